/*
 * bench_splat — skinning 200,000 splats (centres and rotations) per frame,
 * beside memcpy of the same traffic and beside mesh skinning
 * (mn_skin_run, positions + normals, one thread) of 200,000 vertices, all
 * in the same run.  The target: the splat rate on every core at no
 * less than a third of the mesh-skinning vertex rate.
 *
 * Lines: one per splat kernel on one thread, one for the best kernel on
 * every core (mn_splat_skinner), one for mesh skinning, and a summary
 * with the ratio.  Each splat figure is checked against the scalar kernel
 * (2e-6) first, so a time for wrong work is never printed; exits 1 when a
 * check fails.
 *
 * Traffic a splat: reads 12 (centre) + 16 (rotation) + K·(2 + 4) bindings,
 * writes 12 + 16; K = 4: 80 bytes.  The palette (64 joints) stays in L1.
 *
 * Usage: bench_splat [runs]   (default 15, at most 64)
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <marionette/skin.h>
#include <marionette/splat.h>

#include <math.h>

#define SPLATS 200000u
#define JOINTS 64u
#define K 4u
#define BYTES_PER_SPLAT (12u + 16u + K * 6u + 12u + 16u)
#define MESH_BYTES_PER_VERTEX (24u + K * 6u + 24u)
#define DEFAULT_RUNS 15

static uint32_t rng_state = 0x2545f491u;

static float rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return (float)(rng_state >> 8) / 16777216.0f;
}

typedef struct data {
    uint16_t *joints;
    float *weights, *palette, *centres, *rotations, *normals, *out_c, *out_r, *out_n;
} data;

/* A palette of rigid turns up to ±60° with translations, column-major. */
static void make_palette(float *p)
{
    for (uint32_t j = 0; j < JOINTS; j++) {
        float ax = rnd() - 0.5f, ay = rnd() - 0.5f, az = rnd() - 0.5f;
        float len = sqrtf(ax * ax + ay * ay + az * az);
        float half = (rnd() * 2 - 1) * 0.52f, s = sinf(half) / len;
        float x = ax * s, y = ay * s, z = az * s, w = cosf(half);
        float *m = p + 16 * j;
        m[0] = 1 - 2 * (y * y + z * z), m[1] = 2 * (x * y + w * z), m[2] = 2 * (x * z - w * y);
        m[4] = 2 * (x * y - w * z), m[5] = 1 - 2 * (x * x + z * z), m[6] = 2 * (y * z + w * x);
        m[8] = 2 * (x * z + w * y), m[9] = 2 * (y * z - w * x), m[10] = 1 - 2 * (x * x + y * y);
        m[3] = m[7] = m[11] = 0;
        m[12] = rnd(), m[13] = rnd(), m[14] = rnd(), m[15] = 1;
    }
}

static bool make_data(data *d)
{
    size_t n = SPLATS;
    d->joints = malloc(n * K * sizeof(uint16_t));
    d->weights = malloc(n * K * sizeof(float));
    d->palette = malloc(16 * JOINTS * sizeof(float));
    d->centres = malloc(n * 3 * sizeof(float));
    d->normals = malloc(n * 3 * sizeof(float));
    d->rotations = malloc(n * 4 * sizeof(float));
    d->out_c = malloc(n * 3 * sizeof(float));
    d->out_n = malloc(n * 3 * sizeof(float));
    d->out_r = malloc(n * 4 * sizeof(float));
    if (!d->joints || !d->weights || !d->palette || !d->centres || !d->normals ||
        !d->rotations || !d->out_c || !d->out_n || !d->out_r)
        return false;
    make_palette(d->palette);
    for (size_t i = 0; i < n; i++) {
        float sum = 0, w[K];
        for (uint32_t k = 0; k < K; k++)
            sum += w[k] = rnd() + 0.05f;
        for (uint32_t k = 0; k < K; k++) {
            d->joints[i * K + k] = (uint16_t)(rnd() * JOINTS);
            d->weights[i * K + k] = w[k] / sum;
        }
        for (int c = 0; c < 3; c++)
            d->centres[3 * i + c] = rnd() * 2 - 1, d->normals[3 * i + c] = rnd() - 0.5f;
        for (int c = 0; c < 4; c++)
            d->rotations[4 * i + c] = rnd() * 2 - 1;
    }
    return true;
}

static void free_data(data *d)
{
    free(d->joints), free(d->weights), free(d->palette), free(d->centres), free(d->normals);
    free(d->rotations), free(d->out_c), free(d->out_n), free(d->out_r);
}

static mn_splat_skin_job splat_job(const data *d)
{
    return (mn_splat_skin_job){.count = SPLATS, .influences = K, .joints = d->joints,
                               .weights = d->weights, .palette = d->palette,
                               .palette_count = JOINTS, .centres = d->centres,
                               .rotations = d->rotations, .translation = {0.1f, 0, -0.2f},
                               .out_centres = d->out_c, .out_rotations = d->out_r};
}

typedef struct splat_ctx {
    mn_splat_skin_job job;
    mn_splat_simd level;
    mn_splat_skinner *skinner;  /* NULL: the calling thread alone */
} splat_ctx;

static bool splat_body(void *p)
{
    splat_ctx *c = p;
    if (c->skinner)
        return mn_splat_skinner_run(c->skinner, &c->job, c->level) == MN_OK;
    return mn_splat_skin_run(&c->job, c->level) == MN_OK;
}

typedef struct mesh_ctx {
    mn_skin_job job;
} mesh_ctx;

static bool mesh_body(void *p)
{
    return mn_skin_run(&((mesh_ctx *)p)->job) == MN_OK;
}

/* The outputs now against the scalar kernel's (centres, rotations up to sign). */
static bool matches(const data *d, const float *ref_c, const float *ref_r)
{
    for (size_t i = 0; i < SPLATS; i++) {
        for (int c = 0; c < 3; c++)
            if (!(fabsf(d->out_c[3 * i + c] - ref_c[3 * i + c]) <= 2e-6f))
                return false;
        float same = 0, flip = 0;
        for (int c = 0; c < 4; c++) {
            same = fmaxf(same, fabsf(d->out_r[4 * i + c] - ref_r[4 * i + c]));
            flip = fmaxf(flip, fabsf(d->out_r[4 * i + c] + ref_r[4 * i + c]));
        }
        if (!(fminf(same, flip) <= 2e-6f))
            return false;
    }
    return true;
}

static const char *const level_names[] = {"scalar", "sse2", "avx2_fma"};

static bool print_splat(const char *name, splat_ctx *ctx, uint32_t threads, bench_timing mt,
                        const data *d, const float *ref_c, const float *ref_r, int runs,
                        double *rate)
{
    bench_timing t = bench_run(runs, splat_body, NULL, ctx);
    bool right = t.ok && matches(d, ref_c, ref_r);
    bench_line line;
    bench_line_begin(&line, "splat", name);
    bench_line_str(&line, "level", level_names[ctx->level]);
    bench_line_u64(&line, "threads", threads);
    bench_line_u64(&line, "splats", SPLATS);
    bench_line_u64(&line, "influences", K);
    bench_line_num(&line, "ns_per_splat", t.best_ms * 1e6 / SPLATS);
    bench_line_num(&line, "msplats_per_s", SPLATS / (t.best_ms * 1e3));
    bench_line_throughput(&line, (size_t)SPLATS * BYTES_PER_SPLAT, t, mt);
    bench_line_bool(&line, "matches_scalar", right);
    bench_line_print(&line);
    *rate = SPLATS / (t.best_ms * 1e3);
    return right;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : DEFAULT_RUNS;
    if (runs < 1 || runs > BENCH_MAX_RUNS)
        runs = DEFAULT_RUNS;
    data d;
    if (!make_data(&d)) {
        fprintf(stderr, "bench_splat: out of memory\n");
        return 1;
    }
    bench_timing mt = bench_memcpy_ms((size_t)SPLATS * BYTES_PER_SPLAT / 2, runs);
    splat_ctx ctx = {splat_job(&d), MN_SPLAT_SIMD_SCALAR, NULL};
    mn_splat_skin_run(&ctx.job, MN_SPLAT_SIMD_SCALAR);
    float *ref_c = malloc(SPLATS * 3 * sizeof(float)), *ref_r = malloc(SPLATS * 4 * sizeof(float));
    if (!ref_c || !ref_r)
        return 1;
    memcpy(ref_c, d.out_c, SPLATS * 3 * sizeof(float));
    memcpy(ref_r, d.out_r, SPLATS * 4 * sizeof(float));

    bool ok = true;
    double rate = 0, best_one = 0, all = 0;
    mn_splat_simd best = MN_SPLAT_SIMD_SCALAR;
    for (int l = MN_SPLAT_SIMD_SCALAR; l <= MN_SPLAT_SIMD_AVX2_FMA; l++) {
        ctx.level = (mn_splat_simd)l;
        mn_splat_skin_run(&ctx.job, MN_SPLAT_SIMD_BEST);
        ok &= print_splat("splat_skin_one_thread", &ctx, 1, mt, &d, ref_c, ref_r, runs, &rate);
        if (rate > best_one)
            best_one = rate, best = ctx.level;
    }
    mn_splat_skinner *skinner = NULL;
    if (mn_splat_skinner_create(0, NULL, &skinner, NULL) != MN_OK)
        return 1;
    ctx.skinner = skinner;
    ctx.level = best;
    ok &= print_splat("splat_skin_all_cores", &ctx, mn_splat_skinner_threads(skinner), mt, &d,
                      ref_c, ref_r, runs, &all);

    mesh_ctx mesh = {{.vertex_count = SPLATS, .influence_count = K, .joints = d.joints,
                      .weights = d.weights, .palette = d.palette, .palette_count = JOINTS,
                      .positions = d.centres, .normals = d.normals, .out_positions = d.out_c,
                      .out_normals = d.out_n}};
    bench_timing st = bench_run(runs, mesh_body, NULL, &mesh);
    bench_timing mmt = bench_memcpy_ms((size_t)SPLATS * MESH_BYTES_PER_VERTEX / 2, runs);
    double mesh_rate = SPLATS / (st.best_ms * 1e3);
    bench_line line;
    bench_line_begin(&line, "splat", "mesh_skin_one_thread");
    bench_line_str(&line, "streams", "positions+normals");
    bench_line_u64(&line, "vertices", SPLATS);
    bench_line_u64(&line, "influences", K);
    bench_line_num(&line, "ns_per_vertex", st.best_ms * 1e6 / SPLATS);
    bench_line_num(&line, "mvertices_per_s", mesh_rate);
    bench_line_throughput(&line, (size_t)SPLATS * MESH_BYTES_PER_VERTEX, st, mmt);
    bench_line_print(&line);

    bench_line_begin(&line, "splat", "summary");
    bench_line_num(&line, "splat_all_cores_msplats_per_s", all);
    bench_line_num(&line, "mesh_one_thread_mvertices_per_s", mesh_rate);
    bench_line_num(&line, "splat_to_mesh_ratio", all / mesh_rate);
    bench_line_bool(&line, "meets_one_third", all * 3.0 >= mesh_rate);
    bench_line_print(&line);

    mn_splat_skinner_free(skinner);
    free(ref_c), free(ref_r);
    free_data(&d);
    return ok && st.ok ? 0 : 1;
}
