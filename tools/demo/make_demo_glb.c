/*
 * make_demo_glb — writes a small but complete skinned, animated GLB byte by
 * byte, with no library help, so the examples have a model the build made itself.
 *
 *     make_demo_glb OUT.glb [--joints u8|u16]
 *
 * The model is a three-bone "arm": a square tube 3 units long standing on +Y,
 * bent by the joints shoulder (y = 0), elbow (y = 1) and wrist (y = 2).
 *
 *   nodes      rig ─┬─ arm (mesh 0, skin 0)
 *                   └─ shoulder ── elbow ── wrist        (the skin's joints)
 *   mesh       one TRIANGLES primitive, 40 vertices, 84 u16 indices:
 *              POSITION, NORMAL, TEXCOORD_0 (f32), JOINTS_0 (u16, or u8 with
 *              --joints u8), WEIGHTS_0 (f32); flat-shaded sides and end caps
 *   skin       3 joints, inverse bind matrices (inverse of each joint's rest world)
 *   animation  "wave", 2 s, 5 keys: shoulder and elbow rotation LINEAR, wrist
 *              rotation CUBICSPLINE (zero tangents), shoulder translation STEP
 *   material   "arm_paint", base colour factor × a 2×2 PNG texture (written
 *              here too: stored-deflate zlib stream, CRC-32 and Adler-32)
 *
 * The JSON is written by hand rather than with jansson so that this file shows
 * the whole GLB layout in one place: header, JSON chunk padded with spaces,
 * BIN chunk padded with zeros, every buffer view on a 4-byte boundary.
 */
#define GLB_WRITE_PROGRAM "make_demo_glb"
#include "glb_write.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PNG's integers are big-endian (the GLB's, in glb_write.h, little-endian). */
static void put_u32_be(bytes *b, uint32_t v)
{
    uint8_t be[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    put_bytes(b, be, 4);
}

/* ---- the BIN chunk: buffer views and accessors as they are written ----------- */

typedef struct gltf {
    bytes bin;      /* the BIN chunk's payload */
    bytes views;    /* JSON text of "bufferViews" entries */
    bytes accs;     /* JSON text of "accessors" entries */
    int view_count, acc_count;
} gltf;

/* Close the bytes written since `start` as a buffer view; returns its index. */
static int end_view(gltf *g, size_t start, int target)
{
    put_text(&g->views, "%s\n    {\"buffer\": 0, \"byteOffset\": %zu, \"byteLength\": %zu",
             g->view_count ? "," : "", start, g->bin.size - start);
    if (target)
        put_text(&g->views, ", \"target\": %d", target);
    put_text(&g->views, "}");
    pad_to_4(&g->bin, 0);
    return g->view_count++;
}

enum { GL_UNSIGNED_BYTE = 5121, GL_UNSIGNED_SHORT = 5123, GL_FLOAT = 5126 };
enum { ARRAY_BUFFER = 34962, ELEMENT_ARRAY_BUFFER = 34963 };

/* An accessor over a whole view; min/max (n floats each) when not NULL. */
static int add_accessor(gltf *g, int view, int component, int count, const char *type,
                        const float *min, const float *max, int n)
{
    put_text(&g->accs, "%s\n    {\"bufferView\": %d, \"componentType\": %d, \"count\": %d, \"type\": \"%s\"",
             g->acc_count ? "," : "", view, component, count, type);
    for (int which = 0; min && which < 2; which++) {
        const float *v = which ? max : min;
        put_text(&g->accs, ", \"%s\": [", which ? "max" : "min");
        for (int i = 0; i < n; i++)
            put_text(&g->accs, "%s%.9g", i ? ", " : "", (double)v[i]);
        put_text(&g->accs, "]");
    }
    put_text(&g->accs, "}");
    return g->acc_count++;
}

/* A float accessor of `count` elements of `n` components; min/max computed. */
static int add_floats(gltf *g, const float *v, int count, int n, const char *type, int target,
                      bool bounds)
{
    float min[16], max[16];
    size_t start = g->bin.size;
    for (int i = 0; i < count * n; i++)
        put_f32(&g->bin, v[i]);
    for (int c = 0; c < n; c++) {
        min[c] = max[c] = v[c];
        for (int i = 1; i < count; i++) {
            min[c] = fminf(min[c], v[i * n + c]);
            max[c] = fmaxf(max[c], v[i * n + c]);
        }
    }
    int view = end_view(g, start, target);
    return add_accessor(g, view, GL_FLOAT, count, type, bounds ? min : NULL, bounds ? max : NULL, n);
}

/* ---- the arm mesh ------------------------------------------------------------ */

#define SEGMENTS 3              /* bones along the tube, one unit each */
#define RINGS (SEGMENTS + 1)
#define HALF 0.2f               /* half the tube's width */
#define SIDE_VERTS (4 * RINGS * 2)
#define VERTS (SIDE_VERTS + 2 * 4)
#define TRIS (4 * SEGMENTS * 2 + 2 * 2)

typedef struct mesh {
    float pos[VERTS][3], nrm[VERTS][3], uv[VERTS][2], wgt[VERTS][4];
    uint16_t jnt[VERTS][4];
    uint16_t idx[TRIS * 3];
} mesh;

/* Ring r sits at y = r: the end rings follow one joint, inner rings share two. */
static void ring_skin(int r, uint16_t j[4], float w[4])
{
    memset(j, 0, 4 * sizeof *j);
    memset(w, 0, 4 * sizeof *w);
    if (r == 0) {
        w[0] = 1.0f;
    } else if (r == SEGMENTS) {
        j[0] = SEGMENTS - 1;
        w[0] = 1.0f;
    } else {
        j[0] = (uint16_t)(r - 1);
        j[1] = (uint16_t)r;
        w[0] = w[1] = 0.5f;
    }
}

static void set_vertex(mesh *m, int v, const float p[3], const float n[3], float u, float t, int ring)
{
    memcpy(m->pos[v], p, sizeof m->pos[v]);
    memcpy(m->nrm[v], n, sizeof m->nrm[v]);
    m->uv[v][0] = u;
    m->uv[v][1] = t;
    ring_skin(ring, m->jnt[v], m->wgt[v]);
}

static void build_mesh(mesh *m)
{
    /* Corners of the square cross-section, counter-clockwise seen from +Y. */
    static const float corner[4][2] = {{HALF, HALF}, {HALF, -HALF}, {-HALF, -HALF}, {-HALF, HALF}};
    static const float side_normal[4][3] = {{1, 0, 0}, {0, 0, -1}, {-1, 0, 0}, {0, 0, 1}};
    int v = 0, t = 0;
    for (int s = 0; s < 4; s++) {
        const float *a = corner[s], *b = corner[(s + 1) % 4];
        for (int r = 0; r < RINGS; r++) {
            float pa[3] = {a[0], (float)r, a[1]}, pb[3] = {b[0], (float)r, b[1]};
            float vt = (float)r / SEGMENTS;
            set_vertex(m, v++, pa, side_normal[s], (float)s / 4.0f, vt, r);
            set_vertex(m, v++, pb, side_normal[s], (float)(s + 1) / 4.0f, vt, r);
        }
        /* Two triangles per segment, wound counter-clockwise seen from outside. */
        for (int r = 0; r < SEGMENTS; r++) {
            uint16_t a0 = (uint16_t)(s * RINGS * 2 + r * 2), b0 = (uint16_t)(a0 + 1);
            uint16_t a1 = (uint16_t)(a0 + 2), b1 = (uint16_t)(a0 + 3);
            uint16_t quad[6] = {a0, b0, a1, b0, b1, a1};
            memcpy(&m->idx[t * 3], quad, sizeof quad);
            t += 2;
        }
    }
    /* End caps: bottom faces -Y, top faces +Y. */
    for (int cap = 0; cap < 2; cap++) {
        float y = cap ? (float)SEGMENTS : 0.0f;
        float n[3] = {0, cap ? 1.0f : -1.0f, 0};
        uint16_t base = (uint16_t)v;
        for (int c = 0; c < 4; c++) {
            float p[3] = {corner[c][0], y, corner[c][1]};
            set_vertex(m, v++, p, n, corner[c][0] / (4 * HALF) + 0.5f, corner[c][1] / (4 * HALF) + 0.5f,
                       cap ? SEGMENTS : 0);
        }
        /* Corners 0-1-2-3 turn counter-clockwise seen from above (+Y). */
        uint16_t facing_up[6] = {base, (uint16_t)(base + 1), (uint16_t)(base + 2),
                                 base, (uint16_t)(base + 2), (uint16_t)(base + 3)};
        uint16_t facing_down[6] = {base, (uint16_t)(base + 3), (uint16_t)(base + 2),
                                   base, (uint16_t)(base + 2), (uint16_t)(base + 1)};
        memcpy(&m->idx[t * 3], cap ? facing_up : facing_down, sizeof facing_up);
        t += 2;
    }
}

/* ---- a 2×2 PNG, written out in full -------------------------------------------- */

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return crc ^ 0xffffffffu;
}

static void png_chunk(bytes *png, const char type[4], const uint8_t *data, uint32_t n)
{
    bytes tagged = {0};
    put_bytes(&tagged, type, 4);
    if (n)
        put_bytes(&tagged, data, n);
    put_u32_be(png, n);
    put_bytes(png, tagged.data, tagged.size);
    put_u32_be(png, crc32_of(tagged.data, tagged.size));
    free(tagged.data);
}

static void build_png(bytes *png)
{
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    /* Two rows of filter byte 0 + two RGB pixels: a light/dark checker. */
    static const uint8_t raw[14] = {0, 255, 255, 255, 200, 200, 200,
                                    0, 200, 200, 200, 255, 255, 255};
    put_bytes(png, signature, sizeof signature);

    bytes ihdr = {0};
    put_u32_be(&ihdr, 2);                 /* width */
    put_u32_be(&ihdr, 2);                 /* height */
    uint8_t rest[5] = {8, 2, 0, 0, 0};    /* 8-bit, truecolour, deflate, no filter, no interlace */
    put_bytes(&ihdr, rest, sizeof rest);
    png_chunk(png, "IHDR", ihdr.data, (uint32_t)ihdr.size);
    free(ihdr.data);

    /* zlib: header, one final stored deflate block, Adler-32 (big-endian). */
    bytes z = {0};
    uint8_t head[2] = {0x78, 0x01};
    put_bytes(&z, head, 2);
    put_u8(&z, 0x01);                       /* BFINAL = 1, BTYPE = 00 (stored) */
    put_u16(&z, sizeof raw);
    put_u16(&z, (uint16_t)~(uint16_t)sizeof raw);
    put_bytes(&z, raw, sizeof raw);
    uint32_t s1 = 1, s2 = 0;
    for (size_t i = 0; i < sizeof raw; i++) {
        s1 = (s1 + raw[i]) % 65521u;
        s2 = (s2 + s1) % 65521u;
    }
    put_u32_be(&z, (s2 << 16) | s1);
    png_chunk(png, "IDAT", z.data, (uint32_t)z.size);
    free(z.data);

    png_chunk(png, "IEND", NULL, 0);
}

/* ---- the animation ---------------------------------------------------------------- */

#define KEYS 5

static void quat_axis_angle(float out[4], int axis, float angle)
{
    out[0] = out[1] = out[2] = 0.0f;
    out[axis] = sinf(angle * 0.5f);
    out[3] = cosf(angle * 0.5f);
}

/* ---- assembling the file ---------------------------------------------------------- */

static void write_glb(const char *path, bool joints_u8)
{
    gltf g = {0};
    static mesh m;
    build_mesh(&m);

    int a_pos = add_floats(&g, &m.pos[0][0], VERTS, 3, "VEC3", ARRAY_BUFFER, true);
    int a_nrm = add_floats(&g, &m.nrm[0][0], VERTS, 3, "VEC3", ARRAY_BUFFER, false);
    int a_uv = add_floats(&g, &m.uv[0][0], VERTS, 2, "VEC2", ARRAY_BUFFER, false);

    size_t start = g.bin.size;
    for (int v = 0; v < VERTS; v++)
        for (int k = 0; k < 4; k++) {
            if (joints_u8)
                put_u8(&g.bin, (uint8_t)m.jnt[v][k]);
            else
                put_u16(&g.bin, m.jnt[v][k]);
        }
    int a_jnt = add_accessor(&g, end_view(&g, start, ARRAY_BUFFER),
                             joints_u8 ? GL_UNSIGNED_BYTE : GL_UNSIGNED_SHORT, VERTS, "VEC4",
                             NULL, NULL, 0);
    int a_wgt = add_floats(&g, &m.wgt[0][0], VERTS, 4, "VEC4", ARRAY_BUFFER, false);

    start = g.bin.size;
    for (int i = 0; i < TRIS * 3; i++)
        put_u16(&g.bin, m.idx[i]);
    int a_idx = add_accessor(&g, end_view(&g, start, ELEMENT_ARRAY_BUFFER), GL_UNSIGNED_SHORT,
                             TRIS * 3, "SCALAR", NULL, NULL, 0);

    /* Joints rest at y = 0, 1, 2 with no rotation: each inverse bind is a translation by -y. */
    float ibm[SEGMENTS][16];
    for (int j = 0; j < SEGMENTS; j++) {
        memset(ibm[j], 0, sizeof ibm[j]);
        ibm[j][0] = ibm[j][5] = ibm[j][10] = ibm[j][15] = 1.0f;
        ibm[j][13] = (float)(-j);
    }
    int a_ibm = add_floats(&g, &ibm[0][0], SEGMENTS, 16, "MAT4", 0, false);

    /* Animation keys. */
    float times[KEYS] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f};
    float shoulder_z[KEYS] = {0.0f, 0.3f, 0.0f, -0.3f, 0.0f};
    float elbow_z[KEYS] = {0.0f, 0.6f, 0.9f, 0.6f, 0.0f};
    float wrist_x[KEYS] = {0.0f, 0.5f, 0.0f, -0.5f, 0.0f};
    float rot_shoulder[KEYS][4], rot_elbow[KEYS][4], rot_wrist[KEYS * 3][4], bob[KEYS][3];
    for (int k = 0; k < KEYS; k++) {
        quat_axis_angle(rot_shoulder[k], 2, shoulder_z[k]);
        quat_axis_angle(rot_elbow[k], 2, elbow_z[k]);
        /* CUBICSPLINE: in-tangent, value, out-tangent per key; zero tangents ease in and out. */
        memset(rot_wrist[3 * k], 0, sizeof rot_wrist[0]);
        quat_axis_angle(rot_wrist[3 * k + 1], 0, wrist_x[k]);
        memset(rot_wrist[3 * k + 2], 0, sizeof rot_wrist[0]);
        bob[k][0] = bob[k][2] = 0.0f;
        bob[k][1] = (k % 2) ? 0.1f : 0.0f;
    }
    int a_time = add_floats(&g, times, KEYS, 1, "SCALAR", 0, true);
    int a_rs = add_floats(&g, &rot_shoulder[0][0], KEYS, 4, "VEC4", 0, false);
    int a_re = add_floats(&g, &rot_elbow[0][0], KEYS, 4, "VEC4", 0, false);
    int a_rw = add_floats(&g, &rot_wrist[0][0], KEYS * 3, 4, "VEC4", 0, false);
    int a_bob = add_floats(&g, &bob[0][0], KEYS, 3, "VEC3", 0, false);

    bytes png = {0};
    build_png(&png);
    start = g.bin.size;
    put_bytes(&g.bin, png.data, png.size);
    int v_png = end_view(&g, start, 0);
    free(png.data);

    /* Node indices: 0 rig, 1 arm, 2 shoulder, 3 elbow, 4 wrist. */
    bytes j = {0};
    put_text(&j, "{\n  \"asset\": {\"version\": \"2.0\", \"generator\": \"marionette make_demo_glb\"},\n");
    put_text(&j, "  \"scene\": 0,\n  \"scenes\": [{\"name\": \"demo\", \"nodes\": [0]}],\n");
    put_text(&j, "  \"nodes\": [\n");
    put_text(&j, "    {\"name\": \"rig\", \"children\": [1, 2]},\n");
    put_text(&j, "    {\"name\": \"arm\", \"mesh\": 0, \"skin\": 0},\n");
    put_text(&j, "    {\"name\": \"shoulder\", \"children\": [3]},\n");
    put_text(&j, "    {\"name\": \"elbow\", \"translation\": [0, 1, 0], \"children\": [4]},\n");
    put_text(&j, "    {\"name\": \"wrist\", \"translation\": [0, 1, 0]}\n  ],\n");
    put_text(&j, "  \"meshes\": [{\"name\": \"arm\", \"primitives\": [{\"attributes\": "
                 "{\"POSITION\": %d, \"NORMAL\": %d, \"TEXCOORD_0\": %d, \"JOINTS_0\": %d, "
                 "\"WEIGHTS_0\": %d}, \"indices\": %d, \"material\": 0, \"mode\": 4}]}],\n",
             a_pos, a_nrm, a_uv, a_jnt, a_wgt, a_idx);
    put_text(&j, "  \"skins\": [{\"name\": \"arm_skin\", \"joints\": [2, 3, 4], \"skeleton\": 2, "
                 "\"inverseBindMatrices\": %d}],\n", a_ibm);
    put_text(&j, "  \"animations\": [{\"name\": \"wave\", \"samplers\": [\n");
    put_text(&j, "    {\"input\": %d, \"output\": %d, \"interpolation\": \"LINEAR\"},\n", a_time, a_rs);
    put_text(&j, "    {\"input\": %d, \"output\": %d, \"interpolation\": \"LINEAR\"},\n", a_time, a_re);
    put_text(&j, "    {\"input\": %d, \"output\": %d, \"interpolation\": \"CUBICSPLINE\"},\n", a_time, a_rw);
    put_text(&j, "    {\"input\": %d, \"output\": %d, \"interpolation\": \"STEP\"}\n  ], \"channels\": [\n",
             a_time, a_bob);
    put_text(&j, "    {\"sampler\": 0, \"target\": {\"node\": 2, \"path\": \"rotation\"}},\n");
    put_text(&j, "    {\"sampler\": 1, \"target\": {\"node\": 3, \"path\": \"rotation\"}},\n");
    put_text(&j, "    {\"sampler\": 2, \"target\": {\"node\": 4, \"path\": \"rotation\"}},\n");
    put_text(&j, "    {\"sampler\": 3, \"target\": {\"node\": 2, \"path\": \"translation\"}}\n  ]}],\n");
    put_text(&j, "  \"materials\": [{\"name\": \"arm_paint\", \"pbrMetallicRoughness\": "
                 "{\"baseColorFactor\": [0.8, 0.45, 0.2, 1], \"baseColorTexture\": {\"index\": 0}, "
                 "\"metallicFactor\": 0.1, \"roughnessFactor\": 0.6}}],\n");
    put_text(&j, "  \"textures\": [{\"sampler\": 0, \"source\": 0}],\n");
    put_text(&j, "  \"samplers\": [{\"magFilter\": 9728, \"minFilter\": 9728}],\n");
    put_text(&j, "  \"images\": [{\"name\": \"checker\", \"bufferView\": %d, \"mimeType\": \"image/png\"}],\n",
             v_png);
    put_text(&j, "  \"accessors\": [");
    put_bytes(&j, g.accs.data, g.accs.size);
    put_text(&j, "\n  ],\n  \"bufferViews\": [");
    put_bytes(&j, g.views.data, g.views.size);
    put_text(&j, "\n  ],\n  \"buffers\": [{\"byteLength\": %zu}]\n}\n", g.bin.size);
    bytes glb = glb_pack(&j, &g.bin);

    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    bool ok = fwrite(glb.data, 1, glb.size, f) == glb.size;
    ok = (fclose(f) == 0) && ok;
    if (!ok) {
        perror(path);
        exit(1);
    }
    printf("make_demo_glb: wrote %s (%zu bytes: %d vertices, %d triangles, %d joints, 1 animation)\n",
           path, glb.size, VERTS, TRIS, SEGMENTS);
    free(glb.data);
    free(j.data);
    free(g.bin.data);
    free(g.views.data);
    free(g.accs.data);
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    bool joints_u8 = false, bad = false;
    for (int i = 1; i < argc && !bad; i++) {
        if (strcmp(argv[i], "--joints") == 0 && i + 1 < argc) {
            const char *kind = argv[++i];
            joints_u8 = strcmp(kind, "u8") == 0;
            bad = !joints_u8 && strcmp(kind, "u16") != 0;
        } else if (!out && argv[i][0] != '-') {
            out = argv[i];
        } else {
            bad = true;
        }
    }
    if (!out || bad) {
        fprintf(stderr, "usage: make_demo_glb OUT.glb [--joints u8|u16]\n");
        return 2;
    }
    write_glb(out, joints_u8);
    return 0;
}
