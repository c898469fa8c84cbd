/*
 * The demo's character (demo_character.h): its parts and pivots, the boxes
 * of coloured voxels each part is sculpted from, its joints and animations,
 * and the voxel mesher that turns a part's cells into a vertex-coloured mesh.
 */
#define _POSIX_C_SOURCE 200809L

#include "demo_character.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the parts ------------------------------------------------------------------------ */

enum part_id {
    HIPS, BODY, HEAD, HAT, ARM_R, FOREARM_R, HAND_R, GRIP_R, ARM_L, FOREARM_L, HAND_L,
    LEG_R, FOOT_R, LEG_L, FOOT_L, PART_COUNT
};

/* The character's right is −x (it faces +z).  Pivots are where a part turns: joints. */
static const struct {
    const char *name;
    int parent;
    float pivot[3];
} parts[PART_COUNT] = {
    [HIPS] = {"hips", -1, {8, 11, 4}},
    [BODY] = {"body", HIPS, {8, 13, 4}},
    [HEAD] = {"head", BODY, {8, 24, 4}},
    [HAT] = {"hat", HEAD, {8, 32, 4}},
    [ARM_R] = {"arm_r", BODY, {1.5f, 22.5f, 4}},
    [FOREARM_R] = {"forearm_r", ARM_R, {1.5f, 17, 4}},
    [HAND_R] = {"hand_r", FOREARM_R, {1.5f, 12, 4}},
    [GRIP_R] = {"grip_r", HAND_R, {1.5f, 9, 4}},
    [ARM_L] = {"arm_l", BODY, {14.5f, 22.5f, 4}},
    [FOREARM_L] = {"forearm_l", ARM_L, {14.5f, 17, 4}},
    [HAND_L] = {"hand_l", FOREARM_L, {14.5f, 12, 4}},
    [LEG_R] = {"leg_r", HIPS, {5.5f, 11, 4}},
    [FOOT_R] = {"foot_r", LEG_R, {5.5f, 3, 4}},
    [LEG_L] = {"leg_l", HIPS, {10.5f, 11, 4}},
    [FOOT_L] = {"foot_l", LEG_L, {10.5f, 3, 4}},
};

/* ---- the sculpture ----------------------------------------------------------------------- */

#define GRID_W 16
#define GRID_H 40
#define GRID_D 8

/* sRGB colours of the palette. */
enum colour {
    SKIN, SHIRT, SHIRT_DARK, TROUSERS, BELT, BUCKLE, SHOE, HAIR, EYE, MOUTH, HAT_RED, HAT_BAND,
    CHEEK, COLOUR_COUNT
};

static const uint8_t palette[COLOUR_COUNT][3] = {
    [SKIN] = {0xf2, 0xc0, 0x94},    [SHIRT] = {0x2f, 0x7d, 0xd1},   [SHIRT_DARK] = {0x23, 0x5c, 0x9e},
    [TROUSERS] = {0x3b, 0x3f, 0x58}, [BELT] = {0x5a, 0x3a, 0x22},   [BUCKLE] = {0xf0, 0xc8, 0x3c},
    [SHOE] = {0x6b, 0x3b, 0x1e},    [HAIR] = {0x4a, 0x2c, 0x17},    [EYE] = {0x1c, 0x1c, 0x24},
    [MOUTH] = {0xa8, 0x44, 0x3c},   [HAT_RED] = {0xd2, 0x3c, 0x2e}, [HAT_BAND] = {0xf4, 0xe9, 0xd0},
    [CHEEK] = {0xf0, 0x9a, 0x88},
};

/* A box of cells [lo, hi) painted with one colour into one part; later boxes paint over earlier ones. */
typedef struct box {
    uint8_t part, colour;
    uint8_t lo[3], hi[3];
} box;

static const box boxes[] = {
    /* legs and feet (trousers, shoes with the toes forward) */
    {LEG_R, TROUSERS, {4, 3, 2}, {7, 11, 6}},
    {LEG_L, TROUSERS, {9, 3, 2}, {12, 11, 6}},
    {FOOT_R, SHOE, {4, 0, 2}, {7, 3, 8}},
    {FOOT_L, SHOE, {9, 0, 2}, {12, 3, 8}},
    /* hips: shorts and a belt with a buckle */
    {HIPS, TROUSERS, {4, 11, 2}, {12, 12, 6}},
    {HIPS, BELT, {4, 12, 2}, {12, 13, 6}},
    {HIPS, BUCKLE, {7, 12, 6}, {9, 13, 7}},
    {HIPS, BELT, {4, 12, 6}, {7, 13, 7}},
    {HIPS, BELT, {9, 12, 6}, {12, 13, 7}},
    /* body: a shirt with a darker collar and a stripe */
    {BODY, SHIRT, {3, 13, 1}, {13, 24, 7}},
    {BODY, SHIRT_DARK, {3, 17, 1}, {13, 18, 7}},
    {BODY, SKIN, {6, 23, 6}, {10, 24, 7}},
    {BODY, SHIRT_DARK, {5, 23, 6}, {6, 24, 7}},
    {BODY, SHIRT_DARK, {10, 23, 6}, {11, 24, 7}},
    /* head: face, hair on top and at the back, eyes, cheeks and a mouth */
    {HEAD, SKIN, {4, 24, 0}, {12, 32, 8}},
    {HEAD, HAIR, {4, 30, 0}, {12, 32, 8}},
    {HEAD, HAIR, {4, 25, 0}, {12, 32, 2}},
    {HEAD, HAIR, {4, 27, 0}, {5, 32, 6}},
    {HEAD, HAIR, {11, 27, 0}, {12, 32, 6}},
    {HEAD, EYE, {5, 28, 7}, {7, 29, 8}},
    {HEAD, EYE, {9, 28, 7}, {11, 29, 8}},
    {HEAD, CHEEK, {5, 26, 7}, {6, 27, 8}},
    {HEAD, CHEEK, {10, 26, 7}, {11, 27, 8}},
    {HEAD, MOUTH, {7, 25, 7}, {9, 26, 8}},
    /* hat: a brim, a crown and a band */
    {HAT, HAT_RED, {3, 32, 0}, {13, 33, 8}},
    {HAT, HAT_RED, {5, 33, 2}, {11, 37, 6}},
    {HAT, HAT_BAND, {5, 33, 2}, {11, 34, 6}},
    /* arms: sleeves, bare forearms, hands */
    {ARM_R, SHIRT, {0, 17, 3}, {3, 24, 6}},
    {ARM_L, SHIRT, {13, 17, 3}, {16, 24, 6}},
    {FOREARM_R, SKIN, {0, 12, 3}, {3, 17, 6}},
    {FOREARM_L, SKIN, {13, 12, 3}, {16, 17, 6}},
    {FOREARM_R, SHIRT_DARK, {0, 16, 3}, {3, 17, 6}},
    {FOREARM_L, SHIRT_DARK, {13, 16, 3}, {16, 17, 6}},
    {HAND_R, SKIN, {0, 9, 3}, {3, 12, 6}},
    {HAND_L, SKIN, {13, 9, 3}, {16, 12, 6}},
};

#define NO_PART 0xff

typedef struct grid {
    uint8_t part[GRID_W][GRID_H][GRID_D];
    uint8_t colour[GRID_W][GRID_H][GRID_D];
} grid;

static void sculpt(grid *g)
{
    memset(g->part, NO_PART, sizeof g->part);
    for (size_t b = 0; b < sizeof boxes / sizeof boxes[0]; b++)
        for (int x = boxes[b].lo[0]; x < boxes[b].hi[0]; x++)
            for (int y = boxes[b].lo[1]; y < boxes[b].hi[1]; y++)
                for (int z = boxes[b].lo[2]; z < boxes[b].hi[2]; z++) {
                    g->part[x][y][z] = boxes[b].part;
                    g->colour[x][y][z] = boxes[b].colour;
                }
}

static uint8_t part_at(const grid *g, int x, int y, int z)
{
    if (x < 0 || y < 0 || z < 0 || x >= GRID_W || y >= GRID_H || z >= GRID_D)
        return NO_PART;
    return g->part[x][y][z];
}

/* ---- the mesher ------------------------------------------------------------------------------- */

/*
 * Face f of a cell: normal axis n with sign s, tangents u and v with u × v =
 * s·e_n, so the corners (−u−v, +u−v, +u+v, −u+v) run counter-clockwise seen
 * from outside (front faces in glTF).
 */
static const struct { int n, s, u, v; } faces[6] = {
    {0, +1, 1, 2}, {0, -1, 2, 1}, {1, +1, 2, 0}, {1, -1, 0, 2}, {2, +1, 0, 1}, {2, -1, 1, 0},
};

static float srgb_to_linear(float c)
{
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

/* A cell's linear colour: its palette colour, a little lighter or darker by a hash of its
   position, so flat areas read as voxels. */
static void cell_colour(const grid *g, int x, int y, int z, float out[3])
{
    uint32_t h = (uint32_t)x * 73856093u ^ (uint32_t)y * 19349663u ^ (uint32_t)z * 83492791u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    float shade = 0.94f + 0.08f * (float)(h & 0xffu) / 255.0f;
    const uint8_t *c = palette[g->colour[x][y][z]];
    for (int k = 0; k < 3; k++)
        out[k] = fminf(1.0f, srgb_to_linear((float)c[k] / 255.0f) * shade);
}

typedef struct part_mesh {
    float *pos, *nrm, *col;
    uint32_t *idx;
    uint32_t vertex_count, index_count;
} part_mesh;

static void part_mesh_free(part_mesh *m)
{
    free(m->pos);
    free(m->nrm);
    free(m->col);
    free(m->idx);
    memset(m, 0, sizeof *m);
}

/* Count, then fill: a face wherever a cell of `part` meets a cell that is not the part's. */
static bool mesh_part(const grid *g, uint8_t part, part_mesh *m)
{
    memset(m, 0, sizeof *m);
    uint32_t face_count = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t f_at = 0;
        for (int x = 0; x < GRID_W; x++)
            for (int y = 0; y < GRID_H; y++)
                for (int z = 0; z < GRID_D; z++) {
                    if (g->part[x][y][z] != part)
                        continue;
                    for (int f = 0; f < 6; f++) {
                        int c[3] = {x, y, z};
                        c[faces[f].n] += faces[f].s;
                        if (part_at(g, c[0], c[1], c[2]) == part)
                            continue;
                        if (pass == 1) {
                            float colour[3];
                            cell_colour(g, x, y, z, colour);
                            for (int k = 0; k < 4; k++) {
                                uint32_t v = 4 * f_at + (uint32_t)k;
                                float p[3] = {(float)x, (float)y, (float)z};
                                p[faces[f].n] += faces[f].s > 0 ? 1.0f : 0.0f;
                                p[faces[f].u] += (k == 1 || k == 2) ? 1.0f : 0.0f;
                                p[faces[f].v] += k >= 2 ? 1.0f : 0.0f;
                                memcpy(m->pos + 3 * v, p, sizeof p);
                                float n[3] = {0, 0, 0};
                                n[faces[f].n] = (float)faces[f].s;
                                memcpy(m->nrm + 3 * v, n, sizeof n);
                                memcpy(m->col + 3 * v, colour, sizeof colour);
                            }
                            static const uint32_t tri[6] = {0, 1, 2, 0, 2, 3};
                            for (int k = 0; k < 6; k++)
                                m->idx[6 * f_at + (uint32_t)k] = 4 * f_at + tri[k];
                        }
                        f_at++;
                    }
                }
        if (pass == 0) {
            face_count = f_at;
            if (face_count == 0)
                return true;
            m->vertex_count = 4 * face_count;
            m->index_count = 6 * face_count;
            m->pos = malloc(sizeof(float) * 3 * m->vertex_count);
            m->nrm = malloc(sizeof(float) * 3 * m->vertex_count);
            m->col = malloc(sizeof(float) * 3 * m->vertex_count);
            m->idx = malloc(sizeof(uint32_t) * m->index_count);
            if (!m->pos || !m->nrm || !m->col || !m->idx) {
                part_mesh_free(m);
                return false;
            }
        }
    }
    return true;
}

/* ---- rig.json -------------------------------------------------------------------------------- */

/*
 * The joints and animations.  Angles in radians, translations in voxels,
 * times in milliseconds.  The idle breathes (body sway and a nod with
 * eases and a Bézier with explicit handles, arms swinging out a little); the
 * wave raises the right arm, swings the forearm and hand, and turns the head.
 */
static const char rig_tail[] =
    "  \"joints\": [\n"
    "    { \"name\": \"hips_turn\", \"part\": \"hips\", \"type\": \"rotation\", \"axis\": \"y\",\n"
    "      \"min\": -3.14159, \"max\": 3.14159, \"rest\": 0, \"drive\": \"caller\" },\n"
    "    { \"name\": \"body_sway\", \"part\": \"body\", \"type\": \"rotation\", \"axis\": \"z\",\n"
    "      \"min\": -0.3, \"max\": 0.3, \"rest\": 0, \"drive\": \"auto\" },\n"
    "    { \"name\": \"neck_yaw\", \"part\": \"head\", \"type\": \"rotation\", \"axis\": \"y\",\n"
    "      \"min\": -1, \"max\": 1, \"rest\": 0, \"drive\": \"caller\" },\n"
    "    { \"name\": \"neck_nod\", \"part\": \"head\", \"type\": \"rotation\", \"axis\": [1, 0, 0],\n"
    "      \"min\": -0.4, \"max\": 0.4, \"rest\": 0, \"drive\": \"auto\" },\n"
    "    { \"name\": \"hat_mount\", \"part\": \"hat\", \"type\": \"rotation\", \"axis\": \"x\",\n"
    "      \"min\": 0, \"max\": 0, \"rest\": 0, \"drive\": \"caller\",\n"
    "      \"mount\": { \"orient\": [-0.12, 0, 0.16], \"offset\": [0, 0.4, 0] } },\n"
    "    { \"name\": \"shoulder_r\", \"part\": \"arm_r\", \"type\": \"rotation\", \"axis\": [0, 0, -1],\n"
    "      \"min\": -0.3, \"max\": 3, \"rest\": 0.06, \"drive\": \"caller\" },\n"
    "    { \"name\": \"elbow_r\", \"part\": \"forearm_r\", \"type\": \"rotation\", \"axis\": [0, 0, -1],\n"
    "      \"min\": -1.2, \"max\": 1.2, \"rest\": 0, \"drive\": \"caller\" },\n"
    "    { \"name\": \"wrist_r\", \"part\": \"hand_r\", \"type\": \"rotation\", \"axis\": [0, 0, -1],\n"
    "      \"min\": -0.8, \"max\": 0.8, \"rest\": 0, \"drive\": \"auto\" },\n"
    "    { \"name\": \"shoulder_l\", \"part\": \"arm_l\", \"type\": \"rotation\", \"axis\": [0, 0, 1],\n"
    "      \"min\": -0.3, \"max\": 3, \"rest\": 0.06, \"drive\": \"caller\" },\n"
    "    { \"name\": \"elbow_l\", \"part\": \"forearm_l\", \"type\": \"rotation\", \"axis\": [-1, 0, 0],\n"
    "      \"min\": 0, \"max\": 2, \"rest\": 0.1, \"drive\": \"caller\" },\n"
    "    { \"name\": \"hip_r\", \"part\": \"leg_r\", \"type\": \"rotation\", \"axis\": \"x\",\n"
    "      \"min\": -1, \"max\": 1, \"rest\": 0, \"drive\": \"caller\" },\n"
    "    { \"name\": \"hip_l\", \"part\": \"leg_l\", \"type\": \"rotation\", \"axis\": \"x\",\n"
    "      \"min\": -1, \"max\": 1, \"rest\": 0, \"drive\": \"caller\" }\n"
    "  ],\n"
    "  \"animations\": [\n"
    "    { \"name\": \"idle\", \"loop\": true, \"auto_play\": true, \"duration_ms\": 2400,\n"
    "      \"tracks\": [\n"
    "        { \"joint\": \"body_sway\", \"keys\": [\n"
    "          { \"t\": 0,    \"v\": -0.04, \"interp\": \"ease-in-out\" },\n"
    "          { \"t\": 1200, \"v\": 0.04,  \"interp\": \"ease-in-out\" }\n"
    "        ] },\n"
    "        { \"joint\": \"neck_nod\", \"keys\": [\n"
    "          { \"t\": 0,    \"v\": 0,    \"interp\": \"bezier\" },\n"
    "          { \"t\": 800,  \"v\": 0.1,  \"interp\": \"bezier\", \"handle_left\": [-250, 0], "
    "\"handle_right\": [250, 0] },\n"
    "          { \"t\": 1600, \"v\": -0.05, \"interp\": \"ease-out\" }\n"
    "        ] },\n"
    "        { \"joint\": \"shoulder_r\", \"keys\": [\n"
    "          { \"t\": 0,    \"v\": 0.06, \"interp\": \"ease-in-out\" },\n"
    "          { \"t\": 1200, \"v\": 0.14, \"interp\": \"ease-in-out\" }\n"
    "        ] },\n"
    "        { \"joint\": \"shoulder_l\", \"keys\": [\n"
    "          { \"t\": 0,    \"v\": 0.14, \"interp\": \"ease-in-out\" },\n"
    "          { \"t\": 1200, \"v\": 0.06, \"interp\": \"ease-in-out\" }\n"
    "        ] }\n"
    "      ] },\n"
    "    { \"name\": \"wave\", \"loop\": false, \"auto_play\": false, \"duration_ms\": 2000,\n"
    "      \"tracks\": [\n"
    "        { \"joint\": \"shoulder_r\", \"keys\": [\n"
    "          { \"t\": 0,    \"v\": 0.06, \"interp\": \"ease-out\" },\n"
    "          { \"t\": 450,  \"v\": 2.75, \"interp\": \"constant\" },\n"
    "          { \"t\": 1550, \"v\": 2.75, \"interp\": \"ease-in\" },\n"
    "          { \"t\": 2000, \"v\": 0.06, \"interp\": \"linear\" }\n"
    "        ] },\n"
    "        { \"joint\": \"elbow_r\", \"keys\": [\n"
    "          { \"t\": 450,  \"v\": 0,    \"interp\": \"ease-in-out\" },\n"
    "          { \"t\": 725,  \"v\": -0.7, \"interp\": \"ease-in-out\" },\n"
    "          { \"t\": 1000, \"v\": 0.3,  \"interp\": \"ease-in-out\" },\n"
    "          { \"t\": 1275, \"v\": -0.7, \"interp\": \"ease-in-out\" },\n"
    "          { \"t\": 1550, \"v\": 0,    \"interp\": \"linear\" }\n"
    "        ] },\n"
    "        { \"joint\": \"wrist_r\", \"keys\": [\n"
    "          { \"t\": 450,  \"v\": 0,    \"interp\": \"bezier\" },\n"
    "          { \"t\": 725,  \"v\": -0.5, \"interp\": \"bezier\" },\n"
    "          { \"t\": 1000, \"v\": 0.3,  \"interp\": \"bezier\" },\n"
    "          { \"t\": 1275, \"v\": -0.5, \"interp\": \"bezier\" },\n"
    "          { \"t\": 1550, \"v\": 0,    \"interp\": \"linear\" }\n"
    "        ] },\n"
    "        { \"joint\": \"neck_yaw\", \"keys\": [\n"
    "          { \"t\": 0,    \"v\": 0,    \"interp\": \"ease-in-out\" },\n"
    "          { \"t\": 500,  \"v\": -0.35, \"interp\": \"linear\" },\n"
    "          { \"t\": 1500, \"v\": -0.35, \"interp\": \"ease-in-out\" },\n"
    "          { \"t\": 2000, \"v\": 0,    \"interp\": \"linear\" }\n"
    "        ] }\n"
    "      ] }\n"
    "  ]\n"
    "}\n";

/* The parts block comes from the table above (one source for names, parents and pivots);
   the whole text is about 6.5 KB. */
static char rig_text[16384];

const char *demo_character_rig_json(void)
{
    if (rig_text[0])
        return rig_text;
    size_t at = (size_t)snprintf(rig_text, sizeof rig_text,
                                 "{\n  \"format\": \"voxel-rig\",\n  \"version\": 1,\n"
                                 "  \"kind\": \"cube\",\n  \"voxel_size\": 0.0625,\n"
                                 "  \"generator\": \"marionette demo\",\n  \"parts\": [\n");
    for (int p = 0; p < PART_COUNT; p++) {
        char parent[32];
        if (parts[p].parent < 0)
            snprintf(parent, sizeof parent, "null");
        else
            snprintf(parent, sizeof parent, "\"%s\"", parts[parts[p].parent].name);
        at += (size_t)snprintf(rig_text + at, sizeof rig_text - at,
                               "    { \"name\": \"%s\", \"parent\": %s, \"pivot\": [%g, %g, %g] }%s\n",
                               parts[p].name, parent, (double)parts[p].pivot[0],
                               (double)parts[p].pivot[1], (double)parts[p].pivot[2],
                               p + 1 < PART_COUNT ? "," : "");
    }
    snprintf(rig_text + at, sizeof rig_text - at, "  ],\n%s", rig_tail);
    return rig_text;
}

uint32_t demo_character_part_count(void)
{
    return PART_COUNT;
}

const char *demo_character_part_name(uint32_t part)
{
    return part < PART_COUNT ? parts[part].name : NULL;
}

/* ---- the part models ------------------------------------------------------------------------- */

/* err = "<subject>: <what>" (the subject cut to fit). */
static void fail(mn_error *err, mn_status code, const char *subject, const char *what)
{
    if (!err)
        return;
    memset(err, 0, sizeof *err);
    err->code = code;
    err->offset = -1;
    snprintf(err->message, sizeof err->message, "%.200s: %s", subject, what);
}

mn_status demo_character_part_model(uint32_t part, mn_model **out, mn_error *err)
{
    *out = NULL;
    if (part >= PART_COUNT) {
        fail(err, MN_INVALID_ARGUMENT, "demo character", "no such part");
        return MN_INVALID_ARGUMENT;
    }
    grid *g = malloc(sizeof *g);
    part_mesh m;
    if (g)
        sculpt(g);
    if (!g || !mesh_part(g, (uint8_t)part, &m)) {
        free(g);
        fail(err, MN_OUT_OF_MEMORY, parts[part].name, "out of memory");
        return MN_OUT_OF_MEMORY;
    }
    free(g);
    mn_model_builder *b = mn_model_build_begin(NULL);
    uint32_t node = mn_model_build_node(b, parts[part].name, MN_NONE);
    if (m.vertex_count) {
        uint32_t pos = mn_model_build_accessor_f32(b, NULL, m.pos, m.vertex_count, MN_TYPE_VEC3);
        uint32_t nrm = mn_model_build_accessor_f32(b, NULL, m.nrm, m.vertex_count, MN_TYPE_VEC3);
        uint32_t col = mn_model_build_accessor_f32(b, NULL, m.col, m.vertex_count, MN_TYPE_VEC3);
        uint32_t idx = mn_model_build_accessor_u32(b, NULL, m.idx, m.index_count, MN_TYPE_SCALAR);
        mn_material mat;
        mn_model_build_material_defaults(&mat);
        mat.name = "voxel";
        mat.metallic = 0.0f;
        uint32_t material = mn_model_build_material(b, &mat);
        uint32_t mesh = mn_model_build_mesh(b, parts[part].name);
        const mn_build_attribute attrs[] = {{"POSITION", pos}, {"NORMAL", nrm}, {"COLOR_0", col}};
        mn_model_build_primitive(b, mesh, MN_MODE_TRIANGLES, attrs, 3, idx, material);
        mn_model_build_node_mesh(b, node, mesh, MN_NONE);
    }
    part_mesh_free(&m);
    return mn_model_build_finish(b, out, err);
}

/* The text as one whole file (an output set of one: never a partial rig.json). */
static mn_status write_text(const char *path, const char *text, mn_error *err)
{
    mn_output *set = NULL;
    mn_status s = mn_output_begin(NULL, &set, err);
    if (s == MN_OK && (s = mn_output_write_file(set, path, text, strlen(text), err)) != MN_OK)
        mn_output_abort(set);
    else if (s == MN_OK)
        s = mn_output_commit(set, err);
    return s;
}

mn_status demo_character_write(const char *dir, mn_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/meshes", dir);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        const char *why = strerror(errno);
        fail(err, MN_IO, path, "cannot make the folder");
        if (err) {
            size_t n = strlen(err->message);
            snprintf(err->message + n, sizeof err->message - n, ": %s", why);
        }
        return MN_IO;
    }
    snprintf(path, sizeof path, "%s/rig.json", dir);
    mn_status s = write_text(path, demo_character_rig_json(), err);
    for (uint32_t p = 0; s == MN_OK && p < PART_COUNT; p++) {
        mn_model *model;
        s = demo_character_part_model(p, &model, err);
        if (s != MN_OK)
            break;
        snprintf(path, sizeof path, "%s/meshes/%s.glb", dir, parts[p].name);
        s = mn_gltf_write_file(model, path, NULL, err);
        mn_model_free(model);
    }
    return s;
}
