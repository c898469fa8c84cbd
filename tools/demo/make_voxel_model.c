/*
 * make_voxel_model — writes the small voxel model the tests read
 * (tests/data/voxel_arm), byte by byte, with no library help:
 *
 *     make_voxel_model OUT_DIR
 *
 * writes OUT_DIR/rig.json, OUT_DIR/meshes/{base,fore,upper,tip}.glb (a
 * rigged "cube" model) and OUT_DIR/skinned/{rig.json,mesh.glb} (the same arm
 * as an "mc-skinned" model).  The output is a pure function of this file, so
 * test_part_mesh regenerates it and compares it with the committed bytes.
 *
 * The arm stands on +Y in voxel coordinates (docs/formats.md, "Voxel rigs"):
 *
 *   part   parent  pivot       geometry (voxels)            GLB encoding
 *   base   -       (2, 0, 2)   box [0,4]x[0,2]x[0,4]        separate views, f32 VEC3 COLOR_0, u16 indices
 *   upper  base    (2, 2, 2)   box [1,3]x[2,6]x[1,3]        one interleaved view (stride 40) with
 *                                                           f32 VEC4 COLOR_0 (alpha 0.5), u32 indices
 *   fore   upper   (2, 6, 2)   box [1,3]x[6,10]x[1,3]       stored as [1,3]x[0,4]x[1,3] under a node
 *                                                           translated (0, 6, 0); no NORMAL; u8
 *                                                           normalized VEC4 COLOR_0, one colour a face
 *   tip    fore    (2, 10, 2)  none: a socket               a scene with one node and no mesh
 *
 * rig.json lists "fore" before its parent "upper", joins two joints to
 * "fore" (declared order matters), mounts "tip" as a static attachment, keeps
 * an unknown top-level field, and has a looping auto-play animation and a
 * one-shot whose duration is its last key time.
 *
 * The skinned mesh.glb is the three boxes in one primitive (72 vertices,
 * NORMAL, f32 COLOR_0, u8 JOINTS_0, f32 WEIGHTS_0, u16 indices) bound to the
 * bones base → upper → fore → tail ("tail" matches no part, so it holds its
 * bind pose); each bone's inverse bind matrix is T(-pivot) and its node's
 * rest transform T(pivot - parent pivot).  The fore box's top vertices give
 * tail a weight of 0.25.
 *
 * Each box is what the cube mesher writes: 6 faces of 4 vertices, counter-
 * clockwise from outside, 2 triangles a face (24 vertices, 36 indices).
 */
#define _POSIX_C_SOURCE 200809L

#define GLB_WRITE_PROGRAM "make_voxel_model"
#include "glb_write.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- files and folders ----------------------------------------------------------- */

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "make_voxel_model: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static void write_file(const char *dir, const char *name, const void *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        die("cannot create", path);
    if (fwrite(data, 1, size, f) != size || fclose(f) != 0)
        die("cannot write", path);
}

static void make_dir(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s%s", dir, name ? "/" : "", name ? name : "");
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        die("cannot create the folder", path);
}

/* Write the GLB of json and bin (glb_pack) as dir/name, and empty both for the next file. */
static void write_glb(const char *dir, const char *name, bytes *json, bytes *bin)
{
    bytes glb = glb_pack(json, bin);
    write_file(dir, name, glb.data, glb.size);
    free(glb.data);
    free(json->data);
    free(bin->data);
    *json = (bytes){0};
    *bin = (bytes){0};
}

/* ---- boxes as the cube mesher writes them --------------------------------------- */

typedef struct box {
    float pos[24][3];
    float nrm[24][3];
    uint16_t idx[36];
} box;

/*
 * Face f: normal axis n with sign s, tangents u and v with u × v = s·e_n, so
 * corners (-u-v, +u-v, +u+v, -u+v) run counter-clockwise seen from outside.
 */
static const struct { int n, s, u, v; } faces[6] = {
    {0, +1, 1, 2}, {0, -1, 2, 1}, {1, +1, 2, 0}, {1, -1, 0, 2}, {2, +1, 0, 1}, {2, -1, 1, 0},
};

static void make_box(const float lo[3], const float hi[3], box *out)
{
    for (int f = 0; f < 6; f++) {
        for (int k = 0; k < 4; k++) {
            float *p = out->pos[4 * f + k], *n = out->nrm[4 * f + k];
            p[faces[f].n] = faces[f].s > 0 ? hi[faces[f].n] : lo[faces[f].n];
            p[faces[f].u] = (k == 0 || k == 3) ? lo[faces[f].u] : hi[faces[f].u];
            p[faces[f].v] = k < 2 ? lo[faces[f].v] : hi[faces[f].v];
            n[0] = n[1] = n[2] = 0.0f;
            n[faces[f].n] = (float)faces[f].s;
        }
        static const uint16_t tri[6] = {0, 1, 2, 0, 2, 3};
        for (int k = 0; k < 6; k++)
            out->idx[6 * f + k] = (uint16_t)(4 * f + tri[k]);
    }
}

/* "min":[..],"max":[..] of n positions, for the POSITION accessor (glTF requires them). */
static void put_bounds(bytes *json, const float (*pos)[3], size_t n)
{
    float lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = hi[k] = pos[0][k];
        for (size_t i = 1; i < n; i++) {
            lo[k] = pos[i][k] < lo[k] ? pos[i][k] : lo[k];
            hi[k] = pos[i][k] > hi[k] ? pos[i][k] : hi[k];
        }
    }
    put_text(json, "\"min\":[%g,%g,%g],\"max\":[%g,%g,%g]", (double)lo[0], (double)lo[1], (double)lo[2],
             (double)hi[0], (double)hi[1], (double)hi[2]);
}

#define ASSET "\"asset\":{\"version\":\"2.0\",\"generator\":\"make_voxel_model\"}"

/* ---- the part GLBs ------------------------------------------------------------------ */

/* base: separate views for POSITION, NORMAL, COLOR_0 (f32 VEC3) and u16 indices. */
static void write_base(const char *dir)
{
    box b;
    make_box((const float[3]){0, 0, 0}, (const float[3]){4, 2, 4}, &b);
    bytes bin = {0}, json = {0};
    for (int i = 0; i < 24; i++)
        for (int k = 0; k < 3; k++)
            put_f32(&bin, b.pos[i][k]);
    for (int i = 0; i < 24; i++)
        for (int k = 0; k < 3; k++)
            put_f32(&bin, b.nrm[i][k]);
    for (int i = 0; i < 24; i++) {
        put_f32(&bin, 0.25f);
        put_f32(&bin, 0.5f);
        put_f32(&bin, 0.75f);
    }
    for (int i = 0; i < 36; i++)
        put_u16(&bin, b.idx[i]);
    put_text(&json, "{" ASSET ",\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
                    "\"nodes\":[{\"name\":\"base\",\"mesh\":0}],");
    put_text(&json, "\"meshes\":[{\"name\":\"base\",\"primitives\":[{\"attributes\":"
                    "{\"POSITION\":0,\"NORMAL\":1,\"COLOR_0\":2},\"indices\":3}]}],");
    put_text(&json, "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":24,\"type\":\"VEC3\",");
    put_bounds(&json, (const float(*)[3])b.pos, 24);
    put_text(&json, "},{\"bufferView\":1,\"componentType\":5126,\"count\":24,\"type\":\"VEC3\"},"
                    "{\"bufferView\":2,\"componentType\":5126,\"count\":24,\"type\":\"VEC3\"},"
                    "{\"bufferView\":3,\"componentType\":5123,\"count\":36,\"type\":\"SCALAR\"}],");
    put_text(&json, "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":288,\"target\":34962},"
                    "{\"buffer\":0,\"byteOffset\":288,\"byteLength\":288,\"target\":34962},"
                    "{\"buffer\":0,\"byteOffset\":576,\"byteLength\":288,\"target\":34962},"
                    "{\"buffer\":0,\"byteOffset\":864,\"byteLength\":72,\"target\":34963}],");
    put_text(&json, "\"buffers\":[{\"byteLength\":%zu}]}", bin.size);
    write_glb(dir, "base.glb", &json, &bin);
}

/* upper: POSITION, NORMAL and COLOR_0 (f32 VEC4) interleaved in one view, u32 indices. */
static void write_upper(const char *dir)
{
    box b;
    make_box((const float[3]){1, 2, 1}, (const float[3]){3, 6, 3}, &b);
    bytes bin = {0}, json = {0};
    for (int i = 0; i < 24; i++) {
        for (int k = 0; k < 3; k++)
            put_f32(&bin, b.pos[i][k]);
        for (int k = 0; k < 3; k++)
            put_f32(&bin, b.nrm[i][k]);
        put_f32(&bin, 1.0f);
        put_f32(&bin, 0.5f);
        put_f32(&bin, 0.0f);
        put_f32(&bin, 0.5f); /* alpha: dropped by the decoder */
    }
    for (int i = 0; i < 36; i++)
        put_u32(&bin, b.idx[i]);
    put_text(&json, "{" ASSET ",\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
                    "\"nodes\":[{\"name\":\"upper\",\"mesh\":0}],");
    put_text(&json, "\"meshes\":[{\"name\":\"upper\",\"primitives\":[{\"attributes\":"
                    "{\"POSITION\":0,\"NORMAL\":1,\"COLOR_0\":2},\"indices\":3}]}],");
    put_text(&json, "\"accessors\":[{\"bufferView\":0,\"byteOffset\":0,\"componentType\":5126,\"count\":24,"
                    "\"type\":\"VEC3\",");
    put_bounds(&json, (const float(*)[3])b.pos, 24);
    put_text(&json, "},{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5126,\"count\":24,\"type\":\"VEC3\"},"
                    "{\"bufferView\":0,\"byteOffset\":24,\"componentType\":5126,\"count\":24,\"type\":\"VEC4\"},"
                    "{\"bufferView\":1,\"componentType\":5125,\"count\":36,\"type\":\"SCALAR\"}],");
    put_text(&json, "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":960,\"byteStride\":40,"
                    "\"target\":34962},{\"buffer\":0,\"byteOffset\":960,\"byteLength\":144,\"target\":34963}],");
    put_text(&json, "\"buffers\":[{\"byteLength\":%zu}]}", bin.size);
    write_glb(dir, "upper.glb", &json, &bin);
}

/* fore: local box under a translated node, no NORMAL, u8 normalized VEC4 COLOR_0 (one colour a face). */
static void write_fore(const char *dir)
{
    box b;
    make_box((const float[3]){1, 0, 1}, (const float[3]){3, 4, 3}, &b);
    bytes bin = {0}, json = {0};
    for (int i = 0; i < 24; i++)
        for (int k = 0; k < 3; k++)
            put_f32(&bin, b.pos[i][k]);
    for (int i = 0; i < 24; i++) {
        int f = i / 4;
        put_u8(&bin, (uint8_t)(51 * f));
        put_u8(&bin, (uint8_t)(255 - 51 * f));
        put_u8(&bin, 128);
        put_u8(&bin, 255);
    }
    for (int i = 0; i < 36; i++)
        put_u16(&bin, b.idx[i]);
    put_text(&json, "{" ASSET ",\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
                    "\"nodes\":[{\"name\":\"fore\",\"mesh\":0,\"translation\":[0,6,0]}],");
    put_text(&json, "\"meshes\":[{\"name\":\"fore\",\"primitives\":[{\"attributes\":"
                    "{\"POSITION\":0,\"COLOR_0\":1},\"indices\":2}]}],");
    put_text(&json, "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":24,\"type\":\"VEC3\",");
    put_bounds(&json, (const float(*)[3])b.pos, 24);
    put_text(&json, "},{\"bufferView\":1,\"componentType\":5121,\"normalized\":true,\"count\":24,"
                    "\"type\":\"VEC4\"},{\"bufferView\":2,\"componentType\":5123,\"count\":36,\"type\":\"SCALAR\"}],");
    put_text(&json, "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":288,\"target\":34962},"
                    "{\"buffer\":0,\"byteOffset\":288,\"byteLength\":96,\"target\":34962},"
                    "{\"buffer\":0,\"byteOffset\":384,\"byteLength\":72,\"target\":34963}],");
    put_text(&json, "\"buffers\":[{\"byteLength\":%zu}]}", bin.size);
    write_glb(dir, "fore.glb", &json, &bin);
}

/* tip: a socket, a valid GLB whose scene instances no mesh (and so has no BIN chunk). */
static void write_tip(const char *dir)
{
    bytes bin = {0}, json = {0};
    put_text(&json, "{" ASSET ",\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"name\":\"tip\"}]}");
    write_glb(dir, "tip.glb", &json, &bin);
}

/* ---- the skinned mesh ------------------------------------------------------------------ */

/* The three boxes, their colours and the bone each box follows. */
static const struct {
    float lo[3], hi[3], color[3];
} arm_boxes[3] = {
    {{0, 0, 0}, {4, 2, 4}, {0.25f, 0.5f, 0.75f}},
    {{1, 2, 1}, {3, 6, 3}, {1.0f, 0.5f, 0.0f}},
    {{1, 6, 1}, {3, 10, 3}, {0.5f, 0.25f, 1.0f}},
};

static void put_translation_matrix(bytes *bin, float x, float y, float z)
{
    const float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1};
    for (int i = 0; i < 16; i++)
        put_f32(bin, m[i]);
}

static void write_skinned_mesh(const char *dir)
{
    box boxes[3];
    float pos[72][3];
    for (int b = 0; b < 3; b++) {
        make_box(arm_boxes[b].lo, arm_boxes[b].hi, &boxes[b]);
        memcpy(pos[24 * b], boxes[b].pos, sizeof boxes[b].pos);
    }
    bytes bin = {0}, json = {0};
    for (int v = 0; v < 72; v++) /* POSITION, offset 0 */
        for (int k = 0; k < 3; k++)
            put_f32(&bin, pos[v][k]);
    for (int v = 0; v < 72; v++) /* NORMAL, offset 864 */
        for (int k = 0; k < 3; k++)
            put_f32(&bin, boxes[v / 24].nrm[v % 24][k]);
    for (int v = 0; v < 72; v++) /* COLOR_0, offset 1728 */
        for (int k = 0; k < 3; k++)
            put_f32(&bin, arm_boxes[v / 24].color[k]);
    for (int v = 0; v < 72; v++) { /* JOINTS_0 (u8), offset 2592 */
        bool top = v / 24 == 2 && pos[v][1] == 10.0f;
        put_u8(&bin, (uint8_t)(v / 24));
        put_u8(&bin, top ? 3 : 0);
        put_u8(&bin, 0);
        put_u8(&bin, 0);
    }
    for (int v = 0; v < 72; v++) { /* WEIGHTS_0, offset 2880 */
        bool top = v / 24 == 2 && pos[v][1] == 10.0f;
        put_f32(&bin, top ? 0.75f : 1.0f);
        put_f32(&bin, top ? 0.25f : 0.0f);
        put_f32(&bin, 0.0f);
        put_f32(&bin, 0.0f);
    }
    for (int i = 0; i < 108; i++) /* indices, offset 4032 */
        put_u16(&bin, (uint16_t)(24 * (i / 36) + boxes[i / 36].idx[i % 36]));
    /* inverse bind matrices, offset 4248: T(-pivot) of base, upper, fore, and tail at (2, 10, 2) */
    put_translation_matrix(&bin, -2, 0, -2);
    put_translation_matrix(&bin, -2, -2, -2);
    put_translation_matrix(&bin, -2, -6, -2);
    put_translation_matrix(&bin, -2, -10, -2);

    put_text(&json, "{" ASSET ",\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],\"nodes\":["
                    "{\"name\":\"arm\",\"mesh\":0,\"skin\":0},"
                    "{\"name\":\"base\",\"translation\":[2,0,2],\"children\":[2]},"
                    "{\"name\":\"upper\",\"translation\":[0,2,0],\"children\":[3]},"
                    "{\"name\":\"fore\",\"translation\":[0,4,0],\"children\":[4]},"
                    "{\"name\":\"tail\",\"translation\":[0,4,0]}],");
    put_text(&json, "\"skins\":[{\"name\":\"arm\",\"joints\":[1,2,3,4],\"skeleton\":1,"
                    "\"inverseBindMatrices\":6}],");
    put_text(&json, "\"meshes\":[{\"name\":\"arm\",\"primitives\":[{\"attributes\":{\"POSITION\":0,"
                    "\"NORMAL\":1,\"COLOR_0\":2,\"JOINTS_0\":3,\"WEIGHTS_0\":4},\"indices\":5}]}],");
    put_text(&json, "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":72,\"type\":\"VEC3\",");
    put_bounds(&json, (const float(*)[3])pos, 72);
    put_text(&json, "},{\"bufferView\":1,\"componentType\":5126,\"count\":72,\"type\":\"VEC3\"},"
                    "{\"bufferView\":2,\"componentType\":5126,\"count\":72,\"type\":\"VEC3\"},"
                    "{\"bufferView\":3,\"componentType\":5121,\"count\":72,\"type\":\"VEC4\"},"
                    "{\"bufferView\":4,\"componentType\":5126,\"count\":72,\"type\":\"VEC4\"},"
                    "{\"bufferView\":5,\"componentType\":5123,\"count\":108,\"type\":\"SCALAR\"},"
                    "{\"bufferView\":6,\"componentType\":5126,\"count\":4,\"type\":\"MAT4\"}],");
    put_text(&json, "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":864,\"target\":34962},"
                    "{\"buffer\":0,\"byteOffset\":864,\"byteLength\":864,\"target\":34962},"
                    "{\"buffer\":0,\"byteOffset\":1728,\"byteLength\":864,\"target\":34962},"
                    "{\"buffer\":0,\"byteOffset\":2592,\"byteLength\":288,\"target\":34962},"
                    "{\"buffer\":0,\"byteOffset\":2880,\"byteLength\":1152,\"target\":34962},"
                    "{\"buffer\":0,\"byteOffset\":4032,\"byteLength\":216,\"target\":34963},"
                    "{\"buffer\":0,\"byteOffset\":4248,\"byteLength\":256}],");
    put_text(&json, "\"buffers\":[{\"byteLength\":%zu}]}", bin.size);
    write_glb(dir, "mesh.glb", &json, &bin);
}

/* ---- rig.json ------------------------------------------------------------------------------ */

static const char rig_json[] =
    "{\n"
    "  \"format\": \"voxel-rig\",\n"
    "  \"version\": 1,\n"
    "  \"kind\": \"cube\",\n"
    "  \"voxel_size\": 0.25,\n"
    "  \"generator\": \"make_voxel_model\",\n"
    "  \"parts\": [\n"
    "    { \"name\": \"base\",  \"parent\": null,    \"pivot\": [2, 0, 2] },\n"
    "    { \"name\": \"fore\",  \"parent\": \"upper\", \"pivot\": [2, 6, 2] },\n"
    "    { \"name\": \"upper\", \"parent\": \"base\",  \"pivot\": [2, 2, 2] },\n"
    "    { \"name\": \"tip\",   \"parent\": \"fore\",  \"pivot\": [2, 10, 2] }\n"
    "  ],\n"
    "  \"joints\": [\n"
    "    { \"name\": \"turn\", \"part\": \"base\", \"type\": \"rotation\", \"axis\": \"y\",\n"
    "      \"min\": -3.14159, \"max\": 3.14159, \"rest\": 0, \"drive\": \"caller\" },\n"
    "    { \"name\": \"shoulder\", \"part\": \"upper\", \"type\": \"rotation\", \"axis\": [1, 0, 0],\n"
    "      \"min\": -1.2, \"max\": 1.2, \"rest\": 0.2, \"drive\": \"caller\" },\n"
    "    { \"name\": \"elbow\", \"part\": \"fore\", \"type\": \"rotation\", \"axis\": [0, 0, 2],\n"
    "      \"min\": 0, \"max\": 2, \"rest\": 0.5, \"drive\": \"caller\" },\n"
    "    { \"name\": \"reach\", \"part\": \"fore\", \"type\": \"translation\", \"axis\": \"y\",\n"
    "      \"min\": 0, \"max\": 1.5, \"rest\": 0, \"drive\": \"auto\" },\n"
    "    { \"name\": \"tip_mount\", \"part\": \"tip\", \"type\": \"rotation\", \"axis\": \"x\",\n"
    "      \"min\": 0, \"max\": 0, \"rest\": 0, \"drive\": \"caller\",\n"
    "      \"mount\": { \"orient\": [0, 0, 0.5], \"offset\": [0, 1, 0] } }\n"
    "  ],\n"
    "  \"animations\": [\n"
    "    { \"name\": \"idle\", \"loop\": true, \"auto_play\": true, \"duration_ms\": 2000,\n"
    "      \"tracks\": [\n"
    "        { \"joint\": \"shoulder\", \"keys\": [\n"
    "          { \"t\": 0,    \"v\": 0.2, \"interp\": \"bezier\" },\n"
    "          { \"t\": 1000, \"v\": 0.5, \"interp\": \"ease-in-out\" },\n"
    "          { \"t\": 1500, \"v\": 0.3, \"interp\": \"bezier\", \"handle_left\": [-200, 0.05], "
    "\"handle_right\": [150, -0.02] }\n"
    "        ] }\n"
    "      ] },\n"
    "    { \"name\": \"wave\", \"loop\": false, \"auto_play\": false,\n"
    "      \"tracks\": [\n"
    "        { \"joint\": \"elbow\", \"keys\": [\n"
    "          { \"t\": 0,    \"v\": 0.5, \"interp\": \"linear\" },\n"
    "          { \"t\": 600,  \"v\": 1.5, \"interp\": \"constant\" },\n"
    "          { \"t\": 1200, \"v\": 0.5, \"interp\": \"linear\" }\n"
    "        ] },\n"
    "        { \"joint\": \"reach\", \"keys\": [\n"
    "          { \"t\": 0,   \"v\": 0,   \"interp\": \"ease-out\" },\n"
    "          { \"t\": 800, \"v\": 1.5, \"interp\": \"linear\" }\n"
    "        ] }\n"
    "      ] }\n"
    "  ]\n"
    "}\n";

static const char skinned_rig_json[] =
    "{\n"
    "  \"format\": \"voxel-rig\",\n"
    "  \"version\": 1,\n"
    "  \"kind\": \"mc-skinned\",\n"
    "  \"parts\": [\n"
    "    { \"name\": \"base\",  \"parent\": null,    \"pivot\": [2, 0, 2] },\n"
    "    { \"name\": \"upper\", \"parent\": \"base\",  \"pivot\": [2, 2, 2] },\n"
    "    { \"name\": \"fore\",  \"parent\": \"upper\", \"pivot\": [2, 6, 2] }\n"
    "  ],\n"
    "  \"joints\": [\n"
    "    { \"name\": \"turn\", \"part\": \"base\", \"type\": \"rotation\", \"axis\": \"y\",\n"
    "      \"min\": -3.14159, \"max\": 3.14159, \"rest\": 0, \"drive\": \"caller\" },\n"
    "    { \"name\": \"shoulder\", \"part\": \"upper\", \"type\": \"rotation\", \"axis\": \"x\",\n"
    "      \"min\": -1.2, \"max\": 1.2, \"rest\": 0, \"drive\": \"caller\" },\n"
    "    { \"name\": \"elbow\", \"part\": \"fore\", \"type\": \"rotation\", \"axis\": \"z\",\n"
    "      \"min\": 0, \"max\": 2, \"rest\": 0, \"drive\": \"auto\" }\n"
    "  ],\n"
    "  \"animations\": [\n"
    "    { \"name\": \"flex\", \"loop\": true, \"auto_play\": true, \"duration_ms\": 1000,\n"
    "      \"tracks\": [\n"
    "        { \"joint\": \"elbow\", \"keys\": [\n"
    "          { \"t\": 0,   \"v\": 0,   \"interp\": \"ease-in-out\" },\n"
    "          { \"t\": 500, \"v\": 1.5, \"interp\": \"ease-in-out\" }\n"
    "        ] }\n"
    "      ] }\n"
    "  ]\n"
    "}\n";

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_voxel_model OUT_DIR\n"
                        "writes OUT_DIR/rig.json, OUT_DIR/meshes/*.glb and OUT_DIR/skinned/{rig.json,mesh.glb}\n");
        return 2;
    }
    const char *out = argv[1];
    char sub[1024];
    make_dir(out, NULL);
    make_dir(out, "meshes");
    make_dir(out, "skinned");
    write_file(out, "rig.json", rig_json, sizeof rig_json - 1);
    snprintf(sub, sizeof sub, "%s/meshes", out);
    write_base(sub);
    write_upper(sub);
    write_fore(sub);
    write_tip(sub);
    snprintf(sub, sizeof sub, "%s/skinned", out);
    write_file(sub, "rig.json", skinned_rig_json, sizeof skinned_rig_json - 1);
    write_skinned_mesh(sub);
    return 0;
}
