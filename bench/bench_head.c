/*
 * bench_head — the expression head's forward and pose at the size the
 * spec's packs have: 24,000 vertices, 383 coefficients (a 55 MB f16 basis),
 * the scalar reference and the SIMD kernel (AVX2 + FMA + F16C where the CPU
 * has them), beside memcpy of the basis's bytes in the same run.
 *
 * The head is made here (a plane of vertices, a seeded random basis, a
 * three-joint neck chain, 2% of the vertices on the eyes, both eyes turned),
 * packed with mn_aosrig_write and read back with mn_aosrig_read_memory: the
 * path an application takes.  Each frame poses it from fresh controls.
 *
 * Cases: forward_scalar, forward_simd, pose_scalar, pose_simd (ms per frame,
 * best and median of N; bytes = the basis streamed per frame, so gbps and
 * ratio_to_memcpy say how near to memory speed the basis streams; the target
 * is a SIMD ratio of at least 0.5).  It exits non-zero when SIMD and scalar
 * disagree (beyond 1e-5 relative to the vertices' size): a fast wrong answer
 * is no figure.
 *
 *     build/release/bench_head [runs]     (default 10)
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <marionette/head/aosrig.h>
#include <marionette/head/head.h>

#define V_COUNT 24000u
#define E_COUNT 383u
#define J_COUNT 3u
#define K_COUNT 2u

static uint32_t rng = 0x9e3779b9u;
static float frand(float lo, float hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return lo + (hi - lo) * (float)(rng >> 8) / 16777216.0f;
}

/* The arrays behind the pack's blobs, and the names behind its header. */
typedef struct bench_pack {
    float *neutral, *scale, *eye_weights;
    uint16_t *basis, *skin_index, *skin_weight;
    uint32_t *faces;
    int32_t parents[J_COUNT];
    float rest[J_COUNT * 16], eyes[6];
    char (*names)[8];
    const char **name_ptrs;
} bench_pack;

static void fill_arrays(bench_pack *b)
{
    size_t halves = (size_t)V_COUNT * E_COUNT * 3;
    for (size_t v = 0; v < V_COUNT; v++) {
        b->neutral[3 * v] = (float)(v % 160) * 0.001f - 0.08f;
        b->neutral[3 * v + 1] = (float)(v / 160) * 0.001f;
        b->neutral[3 * v + 2] = 0.05f;
        b->skin_index[2 * v] = 2;
        b->skin_index[2 * v + 1] = 1;
        /* Multiples of 1/1024 that sum to 1 in f16. */
        uint32_t q = (uint32_t)(v * 7 % 1025);
        mn_f16_from_float((float)q / 1024.0f, &b->skin_weight[2 * v], NULL);
        mn_f16_from_float((float)(1024 - q) / 1024.0f, &b->skin_weight[2 * v + 1], NULL);
        b->eye_weights[v] = v % 100 == 0 ? 1.0f : 0.0f;
        b->eye_weights[V_COUNT + v] = v % 100 == 50 ? 1.0f : 0.0f;
    }
    for (size_t i = 0; i < halves; i++)
        mn_f16_from_float(frand(-0.01f, 0.01f), &b->basis[i], NULL);
    if (halves % 2)
        b->basis[halves] = 0;
    for (size_t e = 0; e < E_COUNT; e++) {
        b->scale[e] = frand(0.5f, 1.5f);
        snprintf(b->names[e], sizeof b->names[e], "c%03zu", e);
        b->name_ptrs[e] = b->names[e];
    }
    for (size_t f = 0; f + 2 < V_COUNT; f++) {
        b->faces[3 * f] = (uint32_t)f;
        b->faces[3 * f + 1] = (uint32_t)f + 1;
        b->faces[3 * f + 2] = (uint32_t)f + 2;
    }
    for (uint32_t j = 0; j < J_COUNT; j++) {
        float *m = b->rest + 16 * j;
        memset(m, 0, 16 * sizeof *m);
        m[0] = m[5] = m[10] = m[15] = 1.0f;
        m[7] = 0.05f * (float)j;  /* row-major: y translation */
        b->parents[j] = (int32_t)j - 1;
    }
    float eyes[6] = {0.03f, 0.1f, 0.06f, -0.03f, 0.1f, 0.06f};
    memcpy(b->eyes, eyes, sizeof eyes);
}

static mn_status make_pack(uint8_t **bytes, size_t *size, bench_pack *b)
{
    size_t halves = (size_t)V_COUNT * E_COUNT * 3, faces = V_COUNT - 2;
    b->neutral = malloc(V_COUNT * 3 * sizeof(float));
    b->scale = malloc(E_COUNT * sizeof(float));
    b->eye_weights = malloc(2 * V_COUNT * sizeof(float));
    b->basis = malloc((halves + 1) * sizeof(uint16_t));
    b->skin_index = malloc(V_COUNT * K_COUNT * sizeof(uint16_t));
    b->skin_weight = malloc(V_COUNT * K_COUNT * sizeof(uint16_t));
    b->faces = malloc(faces * 3 * sizeof(uint32_t));
    b->names = malloc(E_COUNT * sizeof *b->names);
    b->name_ptrs = malloc(E_COUNT * sizeof *b->name_ptrs);
    if (!b->neutral || !b->scale || !b->eye_weights || !b->basis || !b->skin_index ||
        !b->skin_weight || !b->faces || !b->names || !b->name_ptrs)
        return MN_OUT_OF_MEMORY;
    fill_arrays(b);

    static const char *const joints[J_COUNT] = {"neck_01", "neck_02", "head"};
    mn_aosrig_region regions[5] = {{"left_eye", 100, 0, true, 16}, {"right_eye", 100, 0, true, 16},
                                   {"lower_face", 150, 0, true, 24}, {"tongue", 32, 0, true, 7},
                                   {"pupils", 1, 0, true, 1}};
    mn_aosrig_header h;
    memset(&h, 0, sizeof h);
    h.units = MN_AOSRIG_METRES;
    h.vertex_count = V_COUNT;
    h.coeff_count = E_COUNT;
    h.max_influence = K_COUNT;
    h.names = b->name_ptrs;
    h.head_ext = (mn_aosrig_head_ext){E_COUNT + 4, E_COUNT, 4, regions, 5};
    h.eye_joints[0] = h.eye_joints[1] = "head";
    h.joint_names = joints;
    h.joint_count = J_COUNT;

    const uint64_t s_v3[] = {V_COUNT, 3}, s_basis[] = {V_COUNT, E_COUNT, 3}, s_e[] = {E_COUNT},
                   s_f[] = {faces, 3}, s_vk[] = {V_COUNT, K_COUNT}, s_j[] = {J_COUNT},
                   s_j16[] = {J_COUNT, 16}, s_23[] = {2, 3}, s_2v[] = {2, V_COUNT};
    mn_aosrig_blob blobs[] = {
        {"neutral", MN_AOSRIG_F32, s_v3, 2, b->neutral, 12ull * V_COUNT, 0},
        {"basis", MN_AOSRIG_F16, s_basis, 3, b->basis, 4ull * ((halves + 1) / 2), 0},
        {"basisScale", MN_AOSRIG_F32, s_e, 1, b->scale, 4ull * E_COUNT, 0},
        {"faces", MN_AOSRIG_U32, s_f, 2, b->faces, 12ull * faces, 0},
        {"skinIndex", MN_AOSRIG_U16, s_vk, 2, b->skin_index, 2ull * V_COUNT * K_COUNT, 0},
        {"skinWeight", MN_AOSRIG_F16, s_vk, 2, b->skin_weight, 2ull * V_COUNT * K_COUNT, 0},
        {"jointParents", MN_AOSRIG_I32, s_j, 1, b->parents, 4ull * J_COUNT, 0},
        {"restWorld", MN_AOSRIG_F32, s_j16, 2, b->rest, 64ull * J_COUNT, 0},
        {"eyePositions", MN_AOSRIG_F32, s_23, 2, b->eyes, 24, 0},
        {"eyeWeights", MN_AOSRIG_F32, s_2v, 2, b->eye_weights, 8ull * V_COUNT, 0},
    };
    mn_error err;
    mn_status st = mn_aosrig_write(&h, blobs, sizeof blobs / sizeof blobs[0], NULL, bytes, size,
                                   &err);
    if (st != MN_OK)
        fprintf(stderr, "bench_head: packing failed: %s\n", err.message);
    return st;
}

static void free_arrays(bench_pack *b)
{
    free(b->neutral);
    free(b->scale);
    free(b->eye_weights);
    free(b->basis);
    free(b->skin_index);
    free(b->skin_weight);
    free(b->faces);
    free(b->names);
    free(b->name_ptrs);
}

/* ---- the timed frame ------------------------------------------------------------------ */

typedef struct frame_ctx {
    mn_head *head;
    float controls[E_COUNT + 4];
    float *out;
    bool pose;
    uint32_t frame;
} frame_ctx;

static bool frame_body(void *p)
{
    frame_ctx *c = p;
    /* New controls each frame, as an animated face sends (a cheap change, untimed work aside). */
    c->controls[c->frame % E_COUNT] = 0.25f * (float)(c->frame % 7);
    c->frame++;
    mn_status st = c->pose ? mn_head_pose(c->head, c->controls, E_COUNT + 4, c->out, NULL)
                           : mn_head_forward(c->head, c->controls, E_COUNT + 4, c->out, NULL);
    return st == MN_OK;
}

static void report(const char *name, size_t bytes, bench_timing t, bench_timing memcpy_t)
{
    bench_line line;
    bench_line_begin(&line, "head", name);
    bench_line_u64(&line, "vertices", V_COUNT);
    bench_line_u64(&line, "coeffs", E_COUNT);
    bench_line_throughput(&line, bytes, t, memcpy_t);
    bench_line_print(&line);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 10;
    if (runs < 1 || runs > BENCH_MAX_RUNS)
        runs = 10;
    bench_pack b;
    memset(&b, 0, sizeof b);
    uint8_t *bytes = NULL;
    size_t size = 0;
    mn_aosrig *pack = NULL;
    mn_head *head = NULL;
    mn_error err;
    if (make_pack(&bytes, &size, &b) != MN_OK ||
        mn_aosrig_read_memory(bytes, size, NULL, &pack, &err) != MN_OK ||
        mn_head_create(pack, NULL, &head, &err) != MN_OK) {
        fprintf(stderr, "bench_head: could not make the head\n");
        return 1;
    }
    frame_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.head = head;
    ctx.out = malloc(V_COUNT * 3 * sizeof(float));
    float *check = malloc(V_COUNT * 3 * sizeof(float));
    if (!ctx.out || !check)
        return 1;
    for (size_t i = 0; i < E_COUNT; i++)
        ctx.controls[i] = frand(-1.0f, 1.0f);
    ctx.controls[E_COUNT] = 0.2f;        /* both eyes turned: their vertices take the eye path */
    ctx.controls[E_COUNT + 3] = -0.1f;

    size_t basis_bytes = (size_t)V_COUNT * E_COUNT * 3 * sizeof(uint16_t);
    bench_timing memcpy_t = bench_memcpy_ms(basis_bytes, runs);

    bool have_simd = mn_head_set_simd(head, MN_SIMD_AVX2_FMA) != MN_SIMD_SCALAR;
    const char *names[2][2] = {{"forward_scalar", "pose_scalar"}, {"forward_simd", "pose_simd"}};
    for (int simd = 0; simd <= (have_simd ? 1 : 0); simd++) {
        mn_head_set_simd(head, simd ? MN_SIMD_AVX2_FMA : MN_SIMD_SCALAR);
        for (int pose = 0; pose < 2; pose++) {
            ctx.pose = pose;
            bench_timing t = bench_run(runs, frame_body, NULL, &ctx);
            if (!t.ok) {
                fprintf(stderr, "bench_head: %s failed\n", names[simd][pose]);
                return 1;
            }
            report(names[simd][pose], basis_bytes, t, memcpy_t);
        }
    }

    /* The SIMD result must be the scalar one (within float rounding of a 383-term sum). */
    if (have_simd) {
        mn_head_set_simd(head, MN_SIMD_SCALAR);
        mn_head_pose(head, ctx.controls, E_COUNT + 4, check, NULL);
        mn_head_set_simd(head, MN_SIMD_AVX2_FMA);
        mn_head_pose(head, ctx.controls, E_COUNT + 4, ctx.out, NULL);
        double worst = 0.0;
        for (size_t i = 0; i < V_COUNT * 3; i++)
            worst = fmax(worst, fabs((double)ctx.out[i] - (double)check[i]));
        bench_line line;
        bench_line_begin(&line, "head", "simd_vs_scalar");
        bench_line_num(&line, "max_abs_diff_um", worst * 1e6);
        bench_line_print(&line);
        if (!(worst <= 1e-5 * 0.2)) {
            fprintf(stderr, "bench_head: SIMD and scalar differ by %g\n", worst);
            return 1;
        }
    }
    free(check);
    free(ctx.out);
    mn_head_free(head);
    mn_aosrig_free(pack);
    mn_aosrig_bytes_free(NULL, bytes, size);
    free_arrays(&b);
    return 0;
}
