/*
 * bench_splat — skinning 200,000 splats (centres and rotations) per frame,
 * beside memcpy of the same traffic and beside mesh skinning
 * (mn_skin_run, positions + normals) of 200,000 vertices, all in the same
 * run.  The goal: the splat rate on every core at no less than a
 * third of the mesh-skinning vertex rate.
 *
 * Lines: one per splat kernel on one thread, one for the best kernel on
 * every core (mn_splat_skinner), mesh skinning on one thread and on every
 * core, and a summary with both ratios: against mesh skinning on one
 * thread (as the goal is stated) and like for like, against mesh skinning on
 * as many threads as the splat skinner ran.  Mesh skinning has no threaded
 * entry point, so the bench splits it itself the way mn_splat_skinner
 * splits splats: persistent threads, 2048-vertex chunks from an atomic
 * counter, the calling thread working too, and the chunks streaming their
 * outputs as the whole job would.  Each splat figure is checked against
 * the scalar kernel (2e-6) first, and mesh skinning on every core against
 * its one-thread output, so a time for wrong work is never printed; a last
 * "checks" line sums the checks up, and the bench exits 1 when one fails.
 *
 * Traffic a splat: reads 12 (centre) + 16 (rotation) + K·(2 + 4) bindings,
 * writes 12 + 16; K = 4: 80 bytes.  The palette (64 joints) stays in L1.
 *
 * Usage: bench_splat [runs]   (default 15, at most 64)
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <marionette/skin.h>
#include <marionette/character/splat.h>

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>

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
    mn_simd_level level;
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

/*
 * Mesh skinning across threads for the like-for-like figure: `threads - 1`
 * workers wait on a barrier, a run releases them and works too, and a
 * second barrier ends it; each takes MESH_CHUNK vertices at a time.
 */
#define MESH_CHUNK 2048u
#define MESH_MAX_THREADS 64u

typedef struct mesh_pool {
    mn_skin_job job;                  /* the whole frame */
    uint32_t threads;                 /* the caller's included */
    pthread_t workers[MESH_MAX_THREADS];
    pthread_barrier_t start, done;
    atomic_uint next;                 /* first vertex not yet handed out */
    atomic_bool failed, stop;
} mesh_pool;

static void mesh_pool_work(mesh_pool *p)
{
    const mn_skin_job *whole = &p->job;
    uint32_t k = whole->influence_count;
    for (;;) {
        uint32_t first = atomic_fetch_add(&p->next, MESH_CHUNK);
        if (first >= whole->vertex_count)
            return;
        mn_skin_job chunk = *whole;
        chunk.vertex_count = whole->vertex_count - first < MESH_CHUNK ? whole->vertex_count - first
                                                                      : MESH_CHUNK;
        chunk.joints += (size_t)first * k, chunk.weights += (size_t)first * k;
        chunk.positions += 3 * (size_t)first, chunk.normals += 3 * (size_t)first;
        chunk.out_positions += 3 * (size_t)first, chunk.out_normals += 3 * (size_t)first;
        /* as the whole job would store (the splat skinner decides by the whole job too) */
        chunk.output_store = (size_t)whole->vertex_count * 24u >= MN_SKIN_STREAM_MIN_BYTES
                                 ? MN_SKIN_STORE_STREAM : MN_SKIN_STORE_CACHED;
        if (mn_skin_run(&chunk) != MN_OK)
            atomic_store(&p->failed, true);
    }
}

static void *mesh_pool_main(void *arg)
{
    mesh_pool *p = arg;
    for (;;) {
        pthread_barrier_wait(&p->start);
        if (atomic_load(&p->stop))
            return NULL;
        mesh_pool_work(p);
        pthread_barrier_wait(&p->done);
    }
}

static bool mesh_pool_start(mesh_pool *p, const mn_skin_job *job, uint32_t threads)
{
    p->job = *job;
    p->threads = threads < 1 ? 1 : threads > MESH_MAX_THREADS ? MESH_MAX_THREADS : threads;
    atomic_init(&p->next, 0);
    atomic_init(&p->failed, false);
    atomic_init(&p->stop, false);
    if (pthread_barrier_init(&p->start, NULL, p->threads) != 0 ||
        pthread_barrier_init(&p->done, NULL, p->threads) != 0)
        return false;
    for (uint32_t i = 0; i + 1 < p->threads; i++)
        if (pthread_create(&p->workers[i], NULL, mesh_pool_main, p) != 0)
            return false; /* the bench exits: nothing to join */
    return true;
}

static bool mesh_pool_body(void *arg)
{
    mesh_pool *p = arg;
    atomic_store(&p->next, 0);
    pthread_barrier_wait(&p->start);
    mesh_pool_work(p);
    pthread_barrier_wait(&p->done);
    return !atomic_load(&p->failed);
}

static void mesh_pool_stop(mesh_pool *p)
{
    atomic_store(&p->stop, true);
    pthread_barrier_wait(&p->start);
    for (uint32_t i = 0; i + 1 < p->threads; i++)
        pthread_join(p->workers[i], NULL);
    pthread_barrier_destroy(&p->start);
    pthread_barrier_destroy(&p->done);
}

/* The mesh outputs now against the one-thread run's (ref: positions then normals). */
static bool mesh_matches(const data *d, const float *ref)
{
    for (size_t i = 0; i < 3 * (size_t)SPLATS; i++)
        if (!(fabsf(d->out_c[i] - ref[i]) <= 2e-6f) ||
            !(fabsf(d->out_n[i] - ref[3 * (size_t)SPLATS + i]) <= 2e-6f))
            return false;
    return true;
}

static void print_mesh(const char *name, uint32_t threads, bench_timing t, bench_timing mt,
                       bool right)
{
    bench_line line;
    bench_line_begin(&line, "splat", name);
    bench_line_str(&line, "streams", "positions+normals");
    bench_line_u64(&line, "threads", threads);
    bench_line_u64(&line, "vertices", SPLATS);
    bench_line_u64(&line, "influences", K);
    bench_line_num(&line, "ns_per_vertex", t.best_ms * 1e6 / SPLATS);
    bench_line_num(&line, "mvertices_per_s", SPLATS / (t.best_ms * 1e3));
    bench_line_throughput(&line, (size_t)SPLATS * MESH_BYTES_PER_VERTEX, t, mt);
    if (threads > 1) /* the one-thread output is the reference */
        bench_line_bool(&line, "matches_one_thread", right);
    bench_line_print(&line);
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
    splat_ctx ctx = {splat_job(&d), MN_SIMD_SCALAR, NULL};
    mn_splat_skin_run(&ctx.job, MN_SIMD_SCALAR);
    float *ref_c = malloc(SPLATS * 3 * sizeof(float)), *ref_r = malloc(SPLATS * 4 * sizeof(float));
    if (!ref_c || !ref_r)
        return 1;
    memcpy(ref_c, d.out_c, SPLATS * 3 * sizeof(float));
    memcpy(ref_r, d.out_r, SPLATS * 4 * sizeof(float));

    bool ok = true;
    double rate = 0, best_one = 0, all = 0;
    mn_simd_level best = MN_SIMD_SCALAR;
    for (int l = MN_SIMD_SCALAR; l <= MN_SIMD_AVX2_FMA; l++) {
        ctx.level = (mn_simd_level)l;
        mn_splat_skin_run(&ctx.job, MN_SIMD_BEST);
        ok &= print_splat("splat_skin_one_thread", &ctx, 1, mt, &d, ref_c, ref_r, runs, &rate);
        if (rate > best_one)
            best_one = rate, best = ctx.level;
    }
    mn_splat_skinner *skinner = NULL;
    if (mn_splat_skinner_create(mn_cpu_count(), NULL, &skinner, NULL) != MN_OK)
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
    print_mesh("mesh_skin_one_thread", 1, st, mmt, true);
    float *mesh_ref = malloc(SPLATS * 6 * sizeof(float));
    if (!mesh_ref)
        return 1;
    memcpy(mesh_ref, d.out_c, SPLATS * 3 * sizeof(float));
    memcpy(mesh_ref + 3 * SPLATS, d.out_n, SPLATS * 3 * sizeof(float));
    memset(d.out_c, 0, SPLATS * 3 * sizeof(float));
    memset(d.out_n, 0, SPLATS * 3 * sizeof(float));

    uint32_t threads = mn_splat_skinner_threads(skinner);
    mesh_pool pool;
    if (!mesh_pool_start(&pool, &mesh.job, threads)) {
        fprintf(stderr, "bench_splat: cannot start the mesh threads\n");
        return 1;
    }
    bench_timing at = bench_run(runs, mesh_pool_body, NULL, &pool);
    mesh_pool_stop(&pool);
    double mesh_all = SPLATS / (at.best_ms * 1e3);
    bool mesh_right = at.ok && mesh_matches(&d, mesh_ref);
    print_mesh("mesh_skin_all_cores", pool.threads, at, mmt, mesh_right);
    free(mesh_ref);

    bench_line line;
    bench_line_begin(&line, "splat", "summary");
    bench_line_u64(&line, "threads", threads);
    bench_line_num(&line, "splat_all_cores_msplats_per_s", all);
    bench_line_num(&line, "mesh_one_thread_mvertices_per_s", mesh_rate);
    bench_line_num(&line, "mesh_all_cores_mvertices_per_s", mesh_all);
    bench_line_num(&line, "splat_to_mesh_one_thread_ratio", all / mesh_rate);
    bench_line_num(&line, "splat_to_mesh_like_for_like_ratio", all / mesh_all);
    bench_line_bool(&line, "meets_one_third_vs_one_thread", all * 3.0 >= mesh_rate);
    bench_line_bool(&line, "meets_one_third_like_for_like", all * 3.0 >= mesh_all);
    bench_line_print(&line);

    bench_line_begin(&line, "splat", "checks");
    bench_line_bool(&line, "splats_match_scalar", ok);
    bench_line_bool(&line, "mesh_threads_match_one_thread", mesh_right);
    bench_line_print(&line);

    mn_splat_skinner_free(skinner);
    free(ref_c), free(ref_r);
    free_data(&d);
    return ok && st.ok && mesh_right ? 0 : 1;
}
