/*
 * The synthetic character package (synthetic_character.h): every file made
 * from the options alone, hashed, and named by a character.json.
 */
#define _POSIX_C_SOURCE 200809L

#include "synthetic_character.h"
#include "xorshift.h"

#include <marionette/character/package.h>
#include <marionette/head/aosrig.h>
#include <marionette/math.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BASE_JOINTS 14u
#define MOUTH_ROWS 12u
#define PI_F 3.14159265358979f

/* ---- a growing text ------------------------------------------------------------ */

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            abort();
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = (t->cap + (size_t)n + 1) * 2;
        char *s = realloc(t->s, cap);
        if (!s)
            abort();
        t->s = s;
        t->cap = cap;
    }
}

static void write_bytes(const char *dir, const char *name, const void *data, size_t size,
                        char sha[65])
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "synthetic_character: cannot write %s\n", path);
        abort();
    }
    if (sha)
        mn_sha256_hex(data, size, sha);
}

/* ---- the skeleton ---------------------------------------------------------------- */

typedef struct joint {
    char name[32];
    int parent;
    float t[3], r[4];
    bool base;
} joint;

static void set_joint(joint *j, const char *name, int parent, float x, float y, float z)
{
    snprintf(j->name, sizeof j->name, "%s", name);
    j->parent = parent;
    j->t[0] = x, j->t[1] = y, j->t[2] = z;
    j->r[0] = j->r[1] = j->r[2] = 0.0f;
    j->r[3] = 1.0f;
}

static void make_joints(joint *js, uint32_t n, bool rename_head)
{
    set_joint(&js[0], "Hips", -1, 0, 1.0f, 0);
    set_joint(&js[1], "Spine", 0, 0, 0.2f, 0);
    set_joint(&js[2], "Chest", 1, 0, 0.15f, 0);
    /* neck_01 at (0, 1.45, 0), neck_02 at (0, 1.52, 0.01) tilted 0.2 about x, head at
       (0, 1.60, 0.02) untilted: synthetic_head's rest worlds. */
    set_joint(&js[3], "neck_01", 2, 0, 0.10f, 0);
    set_joint(&js[4], "neck_02", 3, 0, 0.07f, 0.01f);
    js[4].r[0] = sinf(0.1f), js[4].r[3] = cosf(0.1f);
    float c = cosf(-0.2f), s = sinf(-0.2f);
    set_joint(&js[5], rename_head ? "HeadBody" : "head", 4, 0, c * 0.08f - s * 0.01f,
              s * 0.08f + c * 0.01f);
    js[5].r[0] = sinf(-0.1f), js[5].r[3] = cosf(-0.1f);
    set_joint(&js[6], "LeftArm", 2, 0.18f, 0.05f, 0);
    set_joint(&js[7], "LeftForeArm", 6, 0, -0.28f, 0);
    set_joint(&js[8], "LeftHand", 7, 0, -0.25f, 0);
    set_joint(&js[9], "RightArm", 2, -0.18f, 0.05f, 0);
    set_joint(&js[10], "RightForeArm", 9, 0, -0.28f, 0);
    set_joint(&js[11], "RightHand", 10, 0, -0.25f, 0);
    set_joint(&js[12], "LeftForeArmTwist", 7, 0, -0.12f, 0);
    set_joint(&js[13], "RightForeArmTwist", 10, 0, -0.12f, 0);
    js[12].base = js[13].base = true;
    for (uint32_t k = BASE_JOINTS; k < n; k++) {
        char name[32];
        snprintf(name, sizeof name, "extra_%03u", k - BASE_JOINTS);
        int parent = (k - BASE_JOINTS) % 8 == 0 ? 0 : (int)k - 1;
        float side = ((k - BASE_JOINTS) / 8) % 2 ? -1.0f : 1.0f;
        set_joint(&js[k], name, parent, side * 0.01f, -0.05f, 0.002f);
    }
}

/* Rest worlds, column-major. */
static void rest_worlds(const joint *js, uint32_t n, float *worlds)
{
    static const float one[3] = {1, 1, 1};
    for (uint32_t j = 0; j < n; j++) {
        float local[16];
        mn_mat4_compose(local, js[j].t, js[j].r, one);
        if (js[j].parent < 0)
            memcpy(worlds + 16 * j, local, sizeof local);
        else
            mn_mat4_mul(worlds + 16 * j, worlds + 16 * (size_t)js[j].parent, local);
    }
}

static void skeleton_json(text *t, const joint *js, uint32_t n, const float *worlds)
{
    put(t, "{\"format\":\"aosrig-v2-skeleton\",\"floorY\":0,\"groundOffset\":0,\"hips\":\"Hips\","
           "\"joints\":[");
    for (uint32_t j = 0; j < n; j++) {
        const joint *p = &js[j];
        float inv[16];
        if (!mn_mat4_invert_affine(inv, worlds + 16 * j))
            abort();
        put(t, "%s{\"name\":\"%s\",\"parent\":%d,\"localPosition\":[%.9g,%.9g,%.9g],"
               "\"localRotation\":[%.9g,%.9g,%.9g,%.9g],\"baseLocalRotation\":%s,"
               "\"inverseBind\":[",
            j ? "," : "", p->name, p->parent, (double)p->t[0], (double)p->t[1], (double)p->t[2],
            (double)p->r[0], (double)p->r[1], (double)p->r[2], (double)p->r[3],
            p->base ? "[0,0,0,1]" : "null");
        for (int k = 0; k < 16; k++)
            put(t, "%s%.9g", k ? "," : "", (double)inv[k]);
        put(t, "]}");
    }
    put(t, "],\"twist\":[{\"bone\":\"LeftForeArm\",\"child\":\"LeftHand\",\"helpers\":"
           "[{\"joint\":\"LeftForeArmTwist\",\"fraction\":0.5}]},"
           "{\"bone\":\"RightForeArm\",\"child\":\"RightHand\",\"helpers\":"
           "[{\"joint\":\"RightForeArmTwist\",\"fraction\":0.5}]}]}");
}

/* A bone track of 11 frames: rotation about `axis` by a(f), on top of rest rotation r0. */
static void track(text *t, const char *bone, const float r0[4], const float axis[3],
                  float (*angle)(uint32_t f))
{
    put(t, "\"%s\":[", bone);
    for (uint32_t f = 0; f < 11; f++) {
        float q[4], out[4];
        mn_quat_from_axis_angle(q, axis, angle(f));
        mn_quat_mul(out, r0, q);
        put(t, "%s%.9g,%.9g,%.9g,%.9g", f ? "," : "", (double)out[0], (double)out[1],
            (double)out[2], (double)out[3]);
    }
    put(t, "]");
}

static float sway(uint32_t f)
{
    return 0.05f * sinf(2.0f * PI_F * (float)f / 10.0f);
}

static float raise(uint32_t f)
{
    return 170.0f * PI_F / 180.0f * (float)f / 10.0f;
}

static float nod(uint32_t f)
{
    return 0.4f * sinf(PI_F * (float)f / 10.0f);
}

static void clips_json(text *t, const joint *js)
{
    static const float z[3] = {0, 0, 1}, x[3] = {1, 0, 0};
    put(t, "{\"format\":\"soma-clips\",\"clips\":[");
    const char *names[3] = {"idle", "raise", "nod"};
    for (int c = 0; c < 3; c++) {
        put(t, "%s{\"name\":\"%s\",\"fps\":10,\"frames\":11,\"loop\":%s,\"bones\":{", c ? "," : "",
            names[c], c == 1 ? "false" : "true");
        if (c == 0)
            track(t, "Spine", js[1].r, z, sway);
        else if (c == 1)
            track(t, "LeftArm", js[6].r, z, raise);
        else
            track(t, js[5].name, js[5].r, x, nod);
        put(t, "},\"root\":[");
        for (int f = 0; f < 11; f++)
            put(t, "%s0,1,0", f ? "," : "");
        put(t, "]}");
    }
    put(t, "]}");
}

/* ---- the splats -------------------------------------------------------------------- */

static void splat_files(const char *dir, uint32_t n, uint32_t joints, const float *worlds,
                        const joint *js, char sha_ply[65], char sha_bind[65], size_t sizes[2])
{
    static const char *const props[14] = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2",
                                          "opacity", "scale_0", "scale_1", "scale_2", "rot_0",
                                          "rot_1", "rot_2", "rot_3"};
    text h = {0};
    put(&h, "ply\nformat binary_little_endian 1.0\nelement vertex %u\n", n);
    for (int p = 0; p < 14; p++)
        put(&h, "property float %s\n", props[p]);
    put(&h, "end_header\n");
    size_t ply_size = h.len + (size_t)n * 56, bind_size = 16 + (size_t)n * 2 * 6;
    uint8_t *ply = malloc(ply_size), *bind = malloc(bind_size);
    if (!ply || !bind)
        abort();
    memcpy(ply, h.s, h.len);
    uint32_t head[4] = {0, 1, n, 2};
    memcpy(head, "BIND", 4);
    memcpy(bind, head, 16);
    uint32_t state = 0x2545f491u;
    for (uint32_t i = 0; i < n; i++) {
        /* bound to a body joint (not a twist helper), its parent second */
        uint32_t a = i % (joints - 2);
        a = a >= 12 ? a + 2 : a;
        uint32_t b = js[a].parent < 0 ? a : (uint32_t)js[a].parent;
        const float *w = worlds + 16 * a;
        float v[14] = {w[12] + mn_test_random_in(&state, -0.04f, 0.04f),
                       w[13] + mn_test_random_in(&state, -0.04f, 0.04f) - 0.01f,
                       w[14] + mn_test_random_in(&state, -0.04f, 0.04f),
                       mn_test_random_in(&state, -1.5f, 1.5f), mn_test_random_in(&state, -1.5f, 1.5f),
                       mn_test_random_in(&state, -1.5f, 1.5f), mn_test_random_in(&state, -2.0f, 4.0f),
                       logf(0.01f), logf(0.012f), logf(0.008f), mn_test_random_in(&state, 0.2f, 1.0f),
                       mn_test_random_in(&state, -0.5f, 0.5f), mn_test_random_in(&state, -0.5f, 0.5f),
                       mn_test_random_in(&state, -0.5f, 0.5f)};
        memcpy(ply + h.len + (size_t)i * 56, v, 56);
        uint16_t jj[2] = {(uint16_t)a, (uint16_t)b};
        float ww[2] = {0.75f, 0.25f};
        memcpy(bind + 16 + (size_t)i * 4, jj, 4);
        memcpy(bind + 16 + (size_t)n * 4 + (size_t)i * 8, ww, 8);
    }
    write_bytes(dir, "character.ply", ply, ply_size, sha_ply);
    write_bytes(dir, "bindings.bin", bind, bind_size, sha_bind);
    sizes[0] = ply_size;
    sizes[1] = bind_size;
    free(ply);
    free(bind);
    free(h.s);
}

/* ---- the head and its parts ---------------------------------------------------------- */

/* The head vertex nearest p (head sphere vertices only: the eyes come last). */
static uint32_t nearest(const synthetic_head *h, const float p[3])
{
    uint32_t best = 0;
    float d = INFINITY;
    uint32_t head_v = h->vertex_count - 2 * (2 + 3 * 6);
    for (uint32_t v = 0; v < head_v; v++) {
        const float *q = h->neutral + 3 * v;
        float e = (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) +
                  (q[2] - p[2]) * (q[2] - p[2]);
        if (e < d)
            d = e, best = v;
    }
    return best;
}

static void set_half(synthetic_head *h, uint32_t v, uint32_t e, int axis, float value)
{
    uint32_t E = h->header.coeff_count;
    if (mn_f16_from_float(value, &h->basis[((size_t)v * E + e) * 3 + (size_t)axis], NULL) != MN_OK)
        abort();
}

static size_t head_file(const char *dir, const synthetic_character_options *o,
                        synthetic_character_info *info, char sha[65])
{
    synthetic_head h;
    synthetic_head_options ho = o->head;
    ho.bind_transform = true;
    synthetic_head_build(&h, &ho);
    float unit = ho.centimetres ? 100.0f : 1.0f;
    const float up[3] = {0, -0.03f * unit, 0.095f * unit}, lo[3] = {0, -0.06f * unit, 0.08f * unit};
    info->upper_lip = nearest(&h, up);
    info->lower_lip = nearest(&h, lo);
    info->lip_coeff = 0;
    info->head_vertices = h.vertex_count;
    for (int k = 0; k < 3; k++) {
        set_half(&h, info->upper_lip, 0, k, k == 1 ? 0.01f * unit : 0.0f);
        set_half(&h, info->lower_lip, 0, k, k == 1 ? -0.01f * unit : 0.0f);
    }
    uint8_t *bytes = NULL;
    size_t size = 0;
    mn_error err;
    if (synthetic_head_pack(&h, &bytes, &size, &err) != MN_OK)
        abort();
    write_bytes(dir, "head.aosrig", bytes, size, sha);
    mn_aosrig_bytes_free(NULL, bytes, size);
    synthetic_head_free(&h);
    return size;
}

/* A = 3 rows of E: jawOpen → coefficient 0, mouthSmileLeft → 1, eyeLookOutLeft → none. */
static size_t face_file(const char *dir, uint32_t coeffs, char sha[65])
{
    size_t size = (size_t)3 * coeffs * 4;
    float *a = calloc((size_t)3 * coeffs, sizeof(float));
    if (!a)
        abort();
    a[0] = 1.0f;
    a[coeffs + 1] = 1.0f;
    write_bytes(dir, "arkit_to_gnm.bin", a, size, sha);
    free(a);
    return size;
}

static void corrective_files(const char *dir)
{
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/corrective", dir);
    mkdir(sub, 0700);
    snprintf(sub, sizeof sub, "%s/corrective/shoulder", dir);
    mkdir(sub, 0700);
    static const char *const files[5] = {"points.bin", "points_side.bin", "bindings.bin",
                                         "side.bin", "fade.bin"};
    uint8_t data[64];
    for (int f = 0; f < 5; f++) {
        char name[128];
        memset(data, f + 1, sizeof data);
        snprintf(name, sizeof name, "corrective/shoulder/%s", files[f]);
        write_bytes(dir, name, data, sizeof data, NULL);
    }
}

static void corrective_index(const char *dir, uint32_t splats, char sha[65], size_t *size)
{
    corrective_files(dir);
    text t = {0};
    put(&t, "{\"format\":\"aosrig-corrective\",\"version\":1,\"splatCount\":%u,\"corrections\":["
            "{\"name\":\"shoulder\",\"label\":\"arms up\",\"points\":4,\"trainedDeg\":150,"
            "\"files\":{\"points\":\"shoulder/points.bin\",\"pointsSide\":"
            "\"shoulder/points_side.bin\",\"bindings\":\"shoulder/bindings.bin\","
            "\"side\":\"shoulder/side.bin\",\"fade\":\"shoulder/fade.bin\"},"
            "\"drives\":[{\"side\":0,\"bone\":[\"LeftArm\",\"LeftForeArm\"],\"frame\":\"Chest\","
            "\"restDeg\":0,\"fromDeg\":60,\"toDeg\":120,\"curve\":\"smoothstep\"},"
            "{\"side\":1,\"bone\":[\"RightArm\",\"RightForeArm\"],\"frame\":\"Chest\","
            "\"restDeg\":0,\"fromDeg\":60,\"toDeg\":120,\"curve\":\"smoothstep\"}]}]}",
        splats);
    write_bytes(dir, "corrective/index.json", t.s, t.len, sha);
    *size = t.len;
    free(t.s);
}

static void mouth_file(const char *dir, const synthetic_character_info *info)
{
    uint32_t n = info->mouth_count;
    size_t size = 36 + 16 * (size_t)n;
    uint8_t *b = calloc(1, size);
    if (!b)
        abort();
    uint32_t head[3] = {0, 1, n};
    memcpy(head, "MHID", 4);
    const float axes[6] = {0, 1, 0, 0, 0, 1};
    memcpy(b, head, 12);
    memcpy(b + 12, axes, 24);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *e = b + 36 + 16 * (size_t)i;
        uint32_t row = info->mouth_first + i;
        memcpy(e, &row, 4);
        e[4] = (uint8_t)(1 + i % 3);
        memcpy(e + 8, &info->upper_lip, 4);
        memcpy(e + 12, &info->lower_lip, 4);
    }
    write_bytes(dir, "mouth_hidden.bin", b, size, NULL);
    free(b);
}

/* ---- the package ------------------------------------------------------------------------- */

void synthetic_character_write(const char *dir, const synthetic_character_options *options,
                               synthetic_character_info *info_out)
{
    synthetic_character_options o = {0};
    if (options)
        o = *options;
    uint32_t J = o.joints ? o.joints : BASE_JOINTS, N = o.splats ? o.splats : 512;
    if (J < BASE_JOINTS || N < 16)
        abort();
    synthetic_character_info info = {.joints = J, .splats = N};
    joint *js = calloc(J, sizeof *js);
    float *worlds = calloc((size_t)J * 16, sizeof(float));
    if (!js || !worlds)
        abort();
    make_joints(js, J, o.body_lacks_head_joint);
    rest_worlds(js, J, worlds);

    char sha[8][65];
    size_t bytes[8] = {0};
    text t = {0};
    skeleton_json(&t, js, J, worlds);
    write_bytes(dir, "skeleton.json", t.s, t.len, sha[2]);
    bytes[2] = t.len;
    t.len = 0;
    clips_json(&t, js);
    write_bytes(dir, "clips.json", t.s, t.len, sha[3]);
    bytes[3] = t.len;
    splat_files(dir, N, J, worlds, js, sha[0], sha[1], bytes);
    uint32_t coeffs = o.head.coeff_count ? o.head.coeff_count : 8;
    if (!o.no_head)
        bytes[4] = head_file(dir, &o, &info, sha[4]);
    bool face = !o.no_head && !o.no_face;
    if (face)
        bytes[5] = face_file(dir, coeffs, sha[5]);
    if (!o.no_corrective)
        corrective_index(dir, N, sha[6], &bytes[6]);
    if (!o.no_head && !o.no_mouth) {
        info.mouth_count = MOUTH_ROWS;
        info.mouth_first = N - MOUTH_ROWS;
        mouth_file(dir, &info);
    }

    t.len = 0;
    put(&t, "{\"format\":\"aosrig-splat\",\"version\":2,\"rig\":\"aosrig-v2\",\"units\":\"m\","
            "\"splatCount\":%u,\"headVertexCount\":%u,\"jointNames\":[",
        N, o.no_head ? 0u : info.head_vertices);
    for (uint32_t j = 0; j < J; j++)
        put(&t, "%s\"%s\"", j ? "," : "", js[j].name);
    put(&t, "],\"bounds\":{\"center\":[0,1,0],\"radius\":1.2},"
            "\"plyToCharacter\":[1,0,0,0,0,1,0,0.01,0,0,1,0],\"colorSpace\":\"srgb\",\"files\":{");
    static const char *const names[5] = {"character.ply", "bindings.bin", "skeleton.json",
                                         "clips.json", "head.aosrig"};
    for (int i = 0; i < (o.no_head ? 4 : 5); i++)
        put(&t, "%s\"%s\":{\"src\":\"%s\",\"sha256\":\"%s\",\"bytes\":%zu}", i ? "," : "",
            names[i], names[i], sha[i], bytes[i]);
    put(&t, "},\"clips\":[\"idle\",\"raise\",\"nod\"]");
    if (!o.no_corrective)
        put(&t, ",\"corrective\":{\"index\":\"corrective/index.json\",\"sha256\":\"%s\"}", sha[6]);
    if (face)
        put(&t, ",\"face\":{\"arkit\":{\"version\":1,\"src\":\"arkit_to_gnm.bin\","
                "\"sha256\":\"%s\",\"bytes\":%zu,\"channels\":[\"jawOpen\",\"mouthSmileLeft\","
                "\"eyeLookOutLeft\"],\"coeffs\":%u,\"pairs\":[],\"gaze\":{\"eyeLookOutLeft\":"
                "{\"axis\":\"yaw\",\"eye\":\"left\",\"radians\":0.3}},\"blinks\":[]}}",
            sha[5], bytes[5], coeffs);
    put(&t, "}");
    write_bytes(dir, "character.json", t.s, t.len, NULL);
    free(t.s);
    free(js);
    free(worlds);
    if (info_out)
        *info_out = info;
}
