/*
 * bench_skin — CPU skinning and morphing throughput, beside memcpy.
 *
 * Skinning: linear-blend skinning of positions and normals with four
 * influences a vertex (u16 joints, f32 weights, the glTF layout), a palette
 * of 64 matrices, for 10k, 100k, 1M and 4M vertices, with each
 * implementation (scalar reference, SSE2, AVX2+FMA where the CPU has it).
 * The SIMD kernels run both ways their outputs can be stored
 * (mn_skin_store): through the cache and with streaming stores.  One line a
 * size and level, `skin_<level>_<vertices>`, gives what mn_skin_run_with
 * does by default (`stores` says which way that is): ns_per_vertex,
 * median_ns_per_vertex, mvertices_per_s, times_memcpy (ms / memcpy_ms: the
 * time as a multiple of memcpy moving the same traffic), and below AVX2
 * sse2_to_avx2 or scalar_to_avx2 (the level's time over AVX2's, default
 * stores both); a SIMD line also gives cached_ns_per_vertex,
 * streaming_ns_per_vertex, streaming_to_cached and faster_store, the two
 * ways side by side.
 *
 * Traffic and the memcpy yardstick (the `traffic` field of each line says
 * it too): `bytes` is the memory traffic the work needs, bytes read plus
 * bytes written.  A skinned vertex reads 48 (position and normal 24, joints
 * 8, weights 16) and writes 24 (position and normal): 72.  memcpy of N bytes
 * reads N and writes N, so the yardstick is memcpy of bytes/2 (36 a vertex),
 * the same traffic, measured in the same run; gbps and memcpy_gbps are both
 * traffic rates and ratio_to_memcpy = memcpy_ms / ms (1.0: as fast as memcpy
 * moving the same traffic), times_memcpy its inverse.  Neither side
 * counts the extra read of a line that an ordinary store of it costs
 * (read-for-ownership), which is what streaming stores save.
 *
 * Morphing: out = base + Σ w_i δ_i over 1M vertices of 3 floats, with 4
 * targets all active (traffic: base, 4 deltas, out), and with 8 targets of
 * which 2 have a weight (the 6 others must cost nothing: traffic counts the
 * 2), beside memcpy of the same traffic as above.
 *
 * Dual-quaternion skinning (dqs_<level>_<N>): the same data and sizes,
 * beside LBS at the same level timed in the same run (dqs_to_lbs; see
 * bench_dqs below).
 *
 * The arithmetic floor (skin_compute_floor, first; see "the arithmetic
 * floor" below): a tight FMA loop and its SSE2 and one-lane kin, timed, times
 * the least arithmetic a vertex needs, so that each level's line can say how
 * far it is from what no kernel can beat (compute_floor_ns_per_vertex,
 * floor_times_memcpy, times_floor).  The line skin_targets gathers exactly
 * the ratios the goals name (see targets_line), and the last, skin_dqs_summary,
 * the worst dqs_to_lbs of AVX2 and SSE2 over the sizes beside its goal
 * (see dqs_summary_line).
 *
 * Every timed output is checked against the scalar reference (1e-6 relative,
 * as the library promises), so a figure is never printed for wrong work; the
 * benchmark exits 1 when a check fails.  The data is random but seeded, so
 * every run does the same work.  The whole run takes a few seconds.
 *
 * Usage: bench_skin [runs]   (default 15, at most 64)
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <marionette/morph.h>
#include <marionette/skin.h>

#define JOINTS 64u
#define INFLUENCES 4u
#define BYTES_PER_VERTEX 72u
#define DEFAULT_RUNS 15

/* The convention every line states (see the top of the file). */
#define TRAFFIC_NOTE "bytes = read + written; memcpy copies bytes/2 (same traffic); " \
                     "ratio_to_memcpy = memcpy_ms / ms"

/* memcpy moving `traffic` bytes of traffic: it reads and writes traffic/2. */
static bench_timing memcpy_traffic_ms(size_t traffic, int runs)
{
    return bench_memcpy_ms(traffic / 2, runs);
}

/* xorshift32: the same data on every run and machine. */
static uint32_t rng_state = 0x9e3779b9u;
static float frand(float lo, float hi)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return lo + (hi - lo) * (float)(rng_state >> 8) * (1.0f / 16777216.0f);
}

/* ---- the arithmetic floor ---------------------------------------------------- */

/*
 * What no implementation of a level can beat: the multiplies a skinned
 * vertex needs (four influences, position and normal), times what the CPU
 * takes for one of that level's instructions, timed here in a tight loop of
 * independent chains (so throughput, not latency, is measured).  Counted in
 * float multiplies (an FMA is one), the least any kernel can do:
 *   blend  Σ w_k·M_k over the 12 floats of the 3x4 part, 4 influences   48
 *   p' = M·(p, 1), the translation as the addend                           9
 *   n' = M3x3·n                                                            9
 *   |n'|², then n'·(1/|n'|) (the 1/sqrt not counted)                      6
 * 72 a vertex; and 53 adds where there is no FMA (36 + 9 + 6 + 2).  DQS:
 * blend 4 × 8 floats 32, |r|² 4, translation 15, scale 3, rotation of the
 * position 18 and of the normal 18, renormalisation 6: 96 (the hemisphere
 * tests, 16 more, are skipped for a palette that needs none, as here).
 * AVX2 does 8 of them an FMA; SSE2 4 a multiply and 4 an add, no FMA; a
 * one-lane loop 1 (see floor_ns_per_vertex for the scalar reference).  The floor of a level: its instruction
 * count × the measured cost of one, the larger of the multiplies alone and
 * the multiplies and adds together (whichever pipes the CPU shares).
 */
#define LBS_MULS 72.0
#define LBS_ADDS 53.0
#define DQS_MULS 96.0
#define FLOOR_ITERS 200000L

typedef struct floor_ns {
    double avx2_fma;              /* ns for one 8-lane FMA, at throughput; 0 without AVX2 */
    double avx2_gather;           /* ns for one 8-lane gather from L1, at throughput */
    double sse2_mul, sse2_op;     /* 4-lane multiply; a multiply or an add of a mixed stream */
    double scalar_mul, scalar_op; /* the same, one lane */
} floor_ns;

/* A chain step that the compiler cannot fold: x·m + a with m just below 1. */
#define FLOOR_CHAIN_M 0.99999994f
#define FLOOR_CHAIN_A 1e-7f

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define FLOOR_X86 1

/* 12 independent FMA chains (latency 4-5 on the CPUs in question, two pipes: 8-10 keep them full). */
__attribute__((target("avx2,fma"), noinline)) static float floor_loop_avx2(long iters, float seed)
{
    const __m256 m = _mm256_set1_ps(FLOOR_CHAIN_M), a = _mm256_set1_ps(FLOOR_CHAIN_A);
    __m256 x0 = _mm256_set1_ps(seed), x1 = _mm256_add_ps(x0, a), x2 = _mm256_add_ps(x1, a);
    __m256 x3 = _mm256_add_ps(x2, a), x4 = _mm256_add_ps(x3, a), x5 = _mm256_add_ps(x4, a);
    __m256 x6 = _mm256_add_ps(x5, a), x7 = _mm256_add_ps(x6, a), x8 = _mm256_add_ps(x7, a);
    __m256 x9 = _mm256_add_ps(x8, a), xa = _mm256_add_ps(x9, a), xb = _mm256_add_ps(xa, a);
    for (long i = 0; i < iters; i++) {
        x0 = _mm256_fmadd_ps(x0, m, a), x1 = _mm256_fmadd_ps(x1, m, a);
        x2 = _mm256_fmadd_ps(x2, m, a), x3 = _mm256_fmadd_ps(x3, m, a);
        x4 = _mm256_fmadd_ps(x4, m, a), x5 = _mm256_fmadd_ps(x5, m, a);
        x6 = _mm256_fmadd_ps(x6, m, a), x7 = _mm256_fmadd_ps(x7, m, a);
        x8 = _mm256_fmadd_ps(x8, m, a), x9 = _mm256_fmadd_ps(x9, m, a);
        xa = _mm256_fmadd_ps(xa, m, a), xb = _mm256_fmadd_ps(xb, m, a);
    }
    __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(x0, x1), _mm256_add_ps(x2, x3)),
                             _mm256_add_ps(_mm256_add_ps(x4, x5), _mm256_add_ps(x6, x7)));
    s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(x8, x9), _mm256_add_ps(xa, xb)));
    return _mm_cvtss_f32(_mm256_castps256_ps128(s));
}

/*
 * 8-lane gathers (vgatherdps) from a 4 KB table in L1, as a blend that
 * keeps eight vertices one a lane would need: one gather a matrix element,
 * 12 an influence.  Four independent ones an iteration, summed.
 */
__attribute__((target("avx2,fma"), noinline)) static float floor_loop_gather(long iters, float seed)
{
    static float table[1024];
    for (int i = 0; i < 1024; i++)
        table[i] = seed + (float)i;
    /* palette-like offsets: 8 joints 16 floats apart, scattered over the table */
    __m256i i0 = _mm256_setr_epi32(0, 272, 528, 784, 48, 320, 576, 832);
    __m256i i1 = _mm256_add_epi32(i0, _mm256_set1_epi32(1));
    __m256i i2 = _mm256_add_epi32(i0, _mm256_set1_epi32(2));
    __m256i i3 = _mm256_add_epi32(i0, _mm256_set1_epi32(3));
    const __m256i step = _mm256_set1_epi32(4), mask = _mm256_set1_epi32(1023);
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (long i = 0; i < iters; i++) {
        a0 = _mm256_add_ps(a0, _mm256_i32gather_ps(table, i0, 4));
        a1 = _mm256_add_ps(a1, _mm256_i32gather_ps(table, i1, 4));
        a2 = _mm256_add_ps(a2, _mm256_i32gather_ps(table, i2, 4));
        a3 = _mm256_add_ps(a3, _mm256_i32gather_ps(table, i3, 4));
        i0 = _mm256_and_si256(_mm256_add_epi32(i0, step), mask);
        i1 = _mm256_and_si256(_mm256_add_epi32(i1, step), mask);
        i2 = _mm256_and_si256(_mm256_add_epi32(i2, step), mask);
        i3 = _mm256_and_si256(_mm256_add_epi32(i3, step), mask);
    }
    __m256 s = _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3));
    return _mm_cvtss_f32(_mm256_castps256_ps128(s));
}

/*
 * SSE2: 6 multiply chains and, with `adds`, 6 add chains beside them (14
 * registers with the two constants: more would spill).
 */
__attribute__((noinline)) static float floor_loop_sse2(long iters, float seed, bool adds)
{
    const __m128 m = _mm_set1_ps(FLOOR_CHAIN_M), a = _mm_set1_ps(FLOOR_CHAIN_A);
    __m128 p[6], q[6];
    for (int k = 0; k < 6; k++)
        p[k] = q[k] = _mm_set1_ps(seed + (float)k);
    if (adds) {
        for (long i = 0; i < iters; i++)
            for (int k = 0; k < 6; k++)
                p[k] = _mm_mul_ps(p[k], m), q[k] = _mm_add_ps(q[k], a);
    } else {
        for (long i = 0; i < iters; i++)
            for (int k = 0; k < 6; k++)
                p[k] = _mm_mul_ps(p[k], m);
    }
    __m128 s = _mm_setzero_ps();
    for (int k = 0; k < 6; k++)
        s = _mm_add_ps(s, _mm_add_ps(p[k], q[k]));
    return _mm_cvtss_f32(s);
}
#else
#define FLOOR_X86 0
#endif

/* The same for one lane: plain C (gcc's -O2 leaves independent scalar chains scalar). */
__attribute__((noinline)) static float floor_loop_scalar(long iters, float seed, bool adds)
{
    volatile float vm = FLOOR_CHAIN_M, va = FLOOR_CHAIN_A; /* not folded into the loop */
    float m = vm, a = va;
    float p0 = seed, p1 = seed + 1, p2 = seed + 2, p3 = seed + 3, p4 = seed + 4, p5 = seed + 5;
    float q0 = p0, q1 = p1, q2 = p2, q3 = p3, q4 = p4, q5 = p5;
    if (adds) {
        for (long i = 0; i < iters; i++) {
            p0 *= m, p1 *= m, p2 *= m, p3 *= m, p4 *= m, p5 *= m;
            q0 += a, q1 += a, q2 += a, q3 += a, q4 += a, q5 += a;
        }
    } else {
        for (long i = 0; i < iters; i++)
            p0 *= m, p1 *= m, p2 *= m, p3 *= m, p4 *= m, p5 *= m;
    }
    return p0 + p1 + p2 + p3 + p4 + p5 + q0 + q1 + q2 + q3 + q4 + q5;
}

typedef struct floor_ctx {
    int which; /* 0 avx2, 1 sse2 mul, 2 sse2 mixed, 3 scalar mul, 4 scalar mixed, 5 gather */
    float sink;
} floor_ctx;

static bool floor_body(void *ctx)
{
    floor_ctx *c = ctx;
    float seed = 1.0f + c->sink * 1e-30f;
    switch (c->which) {
#if FLOOR_X86
    case 0: c->sink += floor_loop_avx2(FLOOR_ITERS, seed); break;
    case 5: c->sink += floor_loop_gather(FLOOR_ITERS / 4, seed); break;
    case 1: c->sink += floor_loop_sse2(FLOOR_ITERS, seed, false); break;
    case 2: c->sink += floor_loop_sse2(FLOOR_ITERS, seed, true); break;
#endif
    case 3: c->sink += floor_loop_scalar(FLOOR_ITERS, seed, false); break;
    default: c->sink += floor_loop_scalar(FLOOR_ITERS, seed, true); break;
    }
    return true;
}

/* ns per instruction of loop `which`, best of `runs`; `per_iter` instructions an iteration. */
static double floor_time(int which, double per_iter, int runs)
{
    floor_ctx c = {which, 0.0f};
    bench_timing t = bench_run(runs, floor_body, NULL, &c);
    return t.ok ? t.best_ms * 1e6 / ((double)FLOOR_ITERS * per_iter) : 0.0;
}

static floor_ns floor_measure(int runs)
{
    floor_ns f = {0};
#if FLOOR_X86
    if (mn_simd_detect() == MN_SIMD_AVX2_FMA) {
        f.avx2_fma = floor_time(0, 12, runs);
        f.avx2_gather = floor_time(5, 1, runs); /* FLOOR_ITERS / 4 iterations of 4 */
    }
    f.sse2_mul = floor_time(1, 6, runs);
    f.sse2_op = floor_time(2, 12, runs);
#endif
    f.scalar_mul = floor_time(3, 6, runs);
    f.scalar_op = floor_time(4, 12, runs);
    return f;
}

/* The floor in ns a vertex of `muls` multiplies and `adds` adds, `lanes` a multiply, cost mul / op each. */
static double floor_of(double muls, double adds, double lanes, double mul_ns, double op_ns)
{
    double m = muls / lanes * mul_ns, both = (muls + adds) / lanes * op_ns;
    return m > both ? m : both;
}

/* The floors, measured once at the start; and what the run measured, for the summary line. */
static floor_ns floors;

#define SIZES 4
static const size_t sizes[SIZES] = {10000, 100000, 1000000, 4000000};

typedef struct skin_summary {
    double memcpy_ms[SIZES], ms[3][SIZES]; /* [level][size], default stores */
    double dqs_to_lbs[3][2][SIZES];        /* [level][scaled][size] */
    bool have[3];
} skin_summary;
static skin_summary summary;

/*
 * The floor of LBS (dqs false) or DQS at `level`, ns a vertex; 0 where not
 * measured.  The scalar reference's is SSE2's: it is plain C, but gcc's
 * -O2 pairs some of its lanes into 4-wide SSE (the x86-64 baseline), so
 * only SSE2's floor bounds it; one_lane is the floor of a loop that stays
 * one lane wide.
 */
static double floor_ns_per_vertex(int level, bool dqs)
{
    double lbs = level == MN_SIMD_AVX2_FMA ? LBS_MULS / 8.0 * floors.avx2_fma
                 : level >= 0 ? floor_of(LBS_MULS, LBS_ADDS, 4, floors.sse2_mul, floors.sse2_op)
                              : floor_of(LBS_MULS, LBS_ADDS, 1, floors.scalar_mul, floors.scalar_op);
    return dqs ? lbs * (DQS_MULS / LBS_MULS) : lbs;
}
#define ONE_LANE (-1)

typedef struct skin_data {
    size_t count;
    float *positions, *normals, *weights, *palette;
    uint16_t *joints;
    float *out_positions, *out_normals;
    float *ref_positions, *ref_normals;
} skin_data;

/*
 * A rotation of up to half a radian about a random axis, scale near 1, a
 * translation: the influences of one vertex are neighbouring joints whose
 * matrices differ by that much, so their blend is well conditioned, as in a
 * real mesh (a blend of unrelated rotations can be nearly singular, and then
 * no two float implementations agree on a normal).
 */
static void random_matrix(float m[16])
{
    float ax = frand(-1, 1), ay = frand(-1, 1), az = frand(-1, 1);
    float len = sqrtf(ax * ax + ay * ay + az * az) + 1e-6f;
    ax /= len, ay /= len, az /= len;
    float a = frand(-0.5f, 0.5f), c = cosf(a), s = sinf(a), t = 1 - c;
    float k = frand(0.9f, 1.1f);
    float r[9] = {t * ax * ax + c,      t * ax * ay + s * az, t * ax * az - s * ay,
                  t * ax * ay - s * az, t * ay * ay + c,      t * ay * az + s * ax,
                  t * ax * az + s * ay, t * ay * az - s * ax, t * az * az + c};
    for (int col = 0; col < 3; col++) {
        for (int row = 0; row < 3; row++)
            m[col * 4 + row] = k * r[col * 3 + row];
        m[col * 4 + 3] = 0;
    }
    m[12] = frand(-1, 1), m[13] = frand(-1, 1), m[14] = frand(-1, 1), m[15] = 1;
}

static bool skin_data_make(skin_data *d, size_t count)
{
    memset(d, 0, sizeof *d);
    d->count = count;
    d->positions = malloc(count * 3 * sizeof(float));
    d->normals = malloc(count * 3 * sizeof(float));
    d->weights = malloc(count * INFLUENCES * sizeof(float));
    d->joints = malloc(count * INFLUENCES * sizeof(uint16_t));
    d->palette = aligned_alloc(64, JOINTS * 16 * sizeof(float));
    d->out_positions = malloc(count * 3 * sizeof(float));
    d->out_normals = malloc(count * 3 * sizeof(float));
    d->ref_positions = malloc(count * 3 * sizeof(float));
    d->ref_normals = malloc(count * 3 * sizeof(float));
    if (!d->positions || !d->normals || !d->weights || !d->joints || !d->palette ||
        !d->out_positions || !d->out_normals || !d->ref_positions || !d->ref_normals)
        return false;
    for (uint32_t j = 0; j < JOINTS; j++)
        random_matrix(d->palette + 16 * j);
    for (size_t v = 0; v < count; v++) {
        float nx = frand(-1, 1), ny = frand(-1, 1), nz = frand(-1, 1);
        float len = sqrtf(nx * nx + ny * ny + nz * nz) + 1e-6f;
        float sum = 0;
        for (int i = 0; i < 3; i++)
            d->positions[3 * v + i] = frand(-2, 2);
        d->normals[3 * v] = nx / len, d->normals[3 * v + 1] = ny / len, d->normals[3 * v + 2] = nz / len;
        for (uint32_t k = 0; k < INFLUENCES; k++) {
            /* nearby joints, as a real mesh has them: a vertex's joints are few and related */
            d->joints[INFLUENCES * v + k] = (uint16_t)((v / 64 + k * 3) % JOINTS);
            d->weights[INFLUENCES * v + k] = frand(0, 1);
            sum += d->weights[INFLUENCES * v + k];
        }
        for (uint32_t k = 0; k < INFLUENCES; k++)
            d->weights[INFLUENCES * v + k] /= sum;
    }
    /* written once before timing: no first-touch page faults in the timed runs */
    memset(d->out_positions, 0, count * 3 * sizeof(float));
    memset(d->out_normals, 0, count * 3 * sizeof(float));
    return true;
}

static void skin_data_free(skin_data *d)
{
    free(d->positions), free(d->normals), free(d->weights), free(d->joints), free(d->palette);
    free(d->out_positions), free(d->out_normals), free(d->ref_positions), free(d->ref_normals);
}

typedef struct skin_ctx {
    mn_skin_job job;
    mn_simd_level level;
} skin_ctx;

static bool skin_body(void *ctx)
{
    skin_ctx *c = ctx;
    return mn_skin_run_with(&c->job, c->level) == MN_OK;
}

static mn_skin_job make_job(const skin_data *d, float *out_p, float *out_n, mn_skin_store store)
{
    mn_skin_job job;
    memset(&job, 0, sizeof job);
    job.vertex_count = (uint32_t)d->count;
    job.influence_count = INFLUENCES;
    job.joints = d->joints;
    job.weights = d->weights;
    job.palette = d->palette;
    job.palette_count = JOINTS;
    job.positions = d->positions;
    job.normals = d->normals;
    job.out_positions = out_p;
    job.out_normals = out_n;
    job.output_store = store;
    return job;
}

/* |a - b| ≤ 1e-6 × max(1, |b|) for every float: the library's promise. */
static bool agree(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(a[i] - b[i]) <= 1e-6f * fmaxf(1.0f, fabsf(b[i]))))
            return false;
    return true;
}

static const char *const level_names[] = {"scalar", "sse2", "avx2_fma"};

/*
 * What MN_SKIN_STORE_DEFAULT does for a call of `count` vertices (the rule in
 * skin.h: through the cache at every size, since streaming measured slower
 * at each size here); the lines print both ways beside it.
 */
static mn_skin_store default_store(size_t count)
{
    (void)count;
    return MN_SKIN_STORE_CACHED;
}

/* The two ways a SIMD kernel can store (index 0 cached, 1 streaming). */
static const mn_skin_store store_kinds[2] = {MN_SKIN_STORE_CACHED, MN_SKIN_STORE_STREAM};
static const char *const store_names[2] = {"cached", "streaming"};

/* One timed run of d at `level` storing `store`, checked against the reference. */
static bench_timing skin_time(skin_data *d, mn_simd_level level, mn_skin_store store, int runs,
                              bool *right)
{
    size_t count = d->count;
    memset(d->out_positions, 0, count * 3 * sizeof(float));
    memset(d->out_normals, 0, count * 3 * sizeof(float));
    skin_ctx ctx = {make_job(d, d->out_positions, d->out_normals, store), level};
    bench_timing t = bench_run(runs, skin_body, NULL, &ctx);
    *right = t.ok && agree(d->out_positions, d->ref_positions, 3 * count) &&
             agree(d->out_normals, d->ref_normals, 3 * count);
    return t;
}

/* What one size measured: [level][store kind], the scalar reference's cached time in both. */
typedef struct skin_size {
    bench_timing t[3][2];
    bench_timing memcpy_t;
    int top;                 /* the widest level the CPU has */
} skin_size;

/* ms of `level` with the stores the default picks at this size. */
static double default_ms(const skin_size *z, int level, size_t count)
{
    return z->t[level][default_store(count) == MN_SKIN_STORE_STREAM && level > 0].best_ms;
}

/*
 * The line of one size and level: the default route's figures (ns_per_vertex,
 * the throughput fields, times_memcpy = ms / memcpy_ms, the "x a
 * memcpy"), the level's time over AVX2's (sse2_to_avx2, scalar_to_avx2, each
 * with the default stores), and for a SIMD level both store kinds side by
 * side (cached_ns_per_vertex, streaming_ns_per_vertex, streaming_to_cached,
 * faster_store), so the default's choice can be checked against them.
 */
static void skin_line(const skin_size *z, size_t count, int level)
{
    size_t bytes = count * BYTES_PER_VERTEX;
    int s = default_store(count) == MN_SKIN_STORE_STREAM && level > 0;
    bench_timing t = z->t[level][s];
    char name[64];
    snprintf(name, sizeof name, "skin_%s_%zu", level_names[level], count);
    bench_line line;
    bench_line_begin(&line, "skin", name);
    bench_line_str(&line, "level", level_names[level]);
    bench_line_u64(&line, "vertices", count);
    bench_line_u64(&line, "influences", INFLUENCES);
    bench_line_str(&line, "streams", "positions+normals");
    bench_line_str(&line, "stores", store_names[s]);
    bench_line_num(&line, "ns_per_vertex", t.best_ms * 1e6 / (double)count);
    bench_line_num(&line, "median_ns_per_vertex", t.median_ms * 1e6 / (double)count);
    bench_line_num(&line, "mvertices_per_s", (double)count / (t.best_ms * 1e3));
    bench_line_num(&line, "memcpy_ns_per_vertex", z->memcpy_t.best_ms * 1e6 / (double)count);
    bench_line_num(&line, "times_memcpy", t.best_ms / z->memcpy_t.best_ms);
    double floor = floor_ns_per_vertex(level, false);
    if (floor > 0) { /* what no kernel of this level can beat (see the arithmetic floor) */
        bench_line_num(&line, "compute_floor_ns_per_vertex", floor);
        bench_line_num(&line, "floor_times_memcpy",
                       floor / (z->memcpy_t.best_ms * 1e6 / (double)count));
        bench_line_num(&line, "times_floor", t.best_ms * 1e6 / (double)count / floor);
    }
    if (z->top == MN_SIMD_AVX2_FMA && level < MN_SIMD_AVX2_FMA) {
        char key[32];
        snprintf(key, sizeof key, "%s_to_avx2", level_names[level]);
        bench_line_num(&line, key, t.best_ms / default_ms(z, MN_SIMD_AVX2_FMA, count));
    }
    if (level > MN_SIMD_SCALAR) {
        double cached = z->t[level][0].best_ms, streaming = z->t[level][1].best_ms;
        bench_line_num(&line, "cached_ns_per_vertex", cached * 1e6 / (double)count);
        bench_line_num(&line, "streaming_ns_per_vertex", streaming * 1e6 / (double)count);
        bench_line_num(&line, "streaming_to_cached", streaming / cached);
        bench_line_str(&line, "faster_store", streaming < cached ? "streaming" : "cached");
    }
    bench_line_str(&line, "traffic", TRAFFIC_NOTE);
    bench_line_throughput(&line, bytes, t, z->memcpy_t);
    bench_line_bool(&line, "matches_reference", true);
    bench_line_print(&line);
}

/*
 * One size: the reference, the memcpy yardstick, then every level the CPU
 * has, the SIMD ones both ways, each checked; a line per level once all are
 * timed (the ratios need AVX2's time).
 */
static bool bench_skinning(size_t count, int runs)
{
    skin_data d;
    skin_size z;
    memset(&z, 0, sizeof z);
    /* x86 levels only: NEON (above AVX2 in the enum) has no line here */
    z.top = mn_simd_detect() < MN_SIMD_AVX2_FMA ? (int)mn_simd_detect() : MN_SIMD_AVX2_FMA;
    bool ok = skin_data_make(&d, count);
    if (ok) {
        mn_skin_job ref = make_job(&d, d.ref_positions, d.ref_normals, MN_SKIN_STORE_DEFAULT);
        ok = mn_skin_job_validate(&ref, NULL) == MN_OK &&
             mn_skin_run_with(&ref, MN_SIMD_SCALAR) == MN_OK;
    }
    z.memcpy_t = memcpy_traffic_ms(count * BYTES_PER_VERTEX, runs);
    for (int level = MN_SIMD_SCALAR; ok && level <= z.top; level++)
        for (int s = 0; ok && s < (level > MN_SIMD_SCALAR ? 2 : 1); s++)
            z.t[level][s] = skin_time(&d, (mn_simd_level)level, store_kinds[s], runs, &ok);
    z.t[MN_SIMD_SCALAR][1] = z.t[MN_SIMD_SCALAR][0]; /* the reference ignores the store kind */
    if (!ok)
        fprintf(stderr, "bench_skin: %zu vertices: a kernel disagrees with the reference\n", count);
    for (int level = MN_SIMD_SCALAR; ok && level <= z.top; level++)
        skin_line(&z, count, level);
    for (int i = 0; ok && i < SIZES; i++)
        if (sizes[i] == count) {
            summary.memcpy_ms[i] = z.memcpy_t.best_ms;
            for (int level = MN_SIMD_SCALAR; level <= z.top; level++) {
                summary.ms[level][i] = default_ms(&z, level, count);
                summary.have[level] = true;
            }
        }
    skin_data_free(&d);
    return ok;
}

/* ---- morphing ---------------------------------------------------------------- */

#define MORPH_TARGETS 8u

typedef struct morph_ctx {
    mn_morph_job job;
} morph_ctx;

static bool morph_body(void *ctx)
{
    return mn_morph_run(&((morph_ctx *)ctx)->job) == MN_OK;
}

static bool bench_morphing(size_t count, uint32_t targets, uint32_t active, int runs)
{
    size_t n = 3 * count;
    float *base = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
    float *deltas = malloc(n * targets * sizeof(float));
    const float *table[MORPH_TARGETS];
    float weights[MORPH_TARGETS];
    bool ok = base && out && deltas;
    if (ok) {
        for (size_t i = 0; i < n; i++)
            base[i] = frand(-1, 1), out[i] = 0;
        for (size_t i = 0; i < n * targets; i++)
            deltas[i] = frand(-0.1f, 0.1f);
        for (uint32_t t = 0; t < targets; t++) {
            table[t] = deltas + t * n;
            /* the active ones spread over the list, so skipping is exercised */
            weights[t] = (t % (targets / active) == 0) ? frand(0.1f, 1.0f) : 0.0f;
        }
        morph_ctx ctx = {{(uint32_t)count, 3, base, targets, table, weights, out}};
        bench_timing t = bench_run(runs, morph_body, NULL, &ctx);
        /* check: the reference sum, in the library's order */
        for (size_t i = 0; ok && t.ok && i < n; i += 997) {
            float want = base[i];
            for (uint32_t k = 0; k < targets; k++)
                if (weights[k] != 0.0f)
                    want += weights[k] * table[k][i];
            ok = fabsf(out[i] - want) <= 1e-6f * fmaxf(1.0f, fabsf(want));
        }
        ok = ok && t.ok;
        size_t bytes = n * sizeof(float) * (2 + active);
        bench_timing mt = memcpy_traffic_ms(bytes, runs);
        char name[64];
        snprintf(name, sizeof name, "morph_%u_of_%u_targets_%zu", active, targets, count);
        bench_line line;
        bench_line_begin(&line, "skin", name);
        bench_line_u64(&line, "vertices", count);
        bench_line_u64(&line, "targets", targets);
        bench_line_u64(&line, "active_targets", active);
        bench_line_num(&line, "ns_per_vertex", t.best_ms * 1e6 / (double)count);
        bench_line_num(&line, "memcpy_ns_per_vertex", mt.best_ms * 1e6 / (double)count);
        bench_line_str(&line, "traffic", TRAFFIC_NOTE);
        bench_line_throughput(&line, bytes, t, mt);
        bench_line_bool(&line, "matches_reference", ok);
        bench_line_print(&line);
    }
    free(base), free(out), free(deltas);
    return ok;
}

/* ---- dual-quaternion skinning beside linear blending ------------------------- */

/*
 * DQS (mn_skin_dq_run_with) of the skinning data above, positions and
 * normals, four influences, beside LBS (mn_skin_run_with, its default stores)
 * of the same data at the same level, timed in the same run: dqs_to_lbs =
 * DQS's best time / LBS's (the goal is at most 1.4).  The palette is made
 * rigid for the plain lines (each joint's scale divided out: a rig's joints
 * share one scale, the common case); the _scaled lines keep each joint's
 * uniform scale between 0.9 and 1.1, so DQS blends the scales too (its
 * dearer case).  The once-a-frame conversion of the 64 matrices is
 * timed apart (convert_ns_per_joint) and in dqs_with_convert_to_lbs.  DQS's
 * outputs are checked against its scalar reference within 4e-6 relative.
 */
typedef struct dq_ctx {
    mn_skin_job job;
    const float *palette;
    float *dqs;
    mn_simd_level level;
} dq_ctx;

static bool dq_body(void *ctx)
{
    dq_ctx *c = ctx;
    return mn_skin_dq_run_with(&c->job, c->dqs, c->level) == MN_OK;
}

static bool dq_convert_body(void *ctx)
{
    dq_ctx *c = ctx;
    return mn_skin_dual_quats(c->palette, JOINTS, c->dqs, NULL) == MN_OK;
}

/* Each joint's 3x3 divided by its column length: the rotation alone. */
static void make_rigid(float *palette)
{
    for (uint32_t j = 0; j < JOINTS; j++) {
        float *m = palette + 16 * j;
        for (int c = 0; c < 3; c++) {
            float len = sqrtf(m[4 * c] * m[4 * c] + m[4 * c + 1] * m[4 * c + 1] +
                              m[4 * c + 2] * m[4 * c + 2]);
            for (int r = 0; r < 3; r++)
                m[4 * c + r] /= len;
        }
    }
}

static bool bench_dqs(size_t count, bool scaled, int runs)
{
    skin_data d;
    float *dqs = malloc(JOINTS * MN_SKIN_DQ_FLOATS * sizeof(float));
    bool ok = skin_data_make(&d, count) && dqs;
    if (ok && !scaled)
        make_rigid(d.palette);
    ok = ok && mn_skin_dual_quats(d.palette, JOINTS, dqs, NULL) == MN_OK;
    if (ok) {
        mn_skin_job ref = make_job(&d, d.ref_positions, d.ref_normals, MN_SKIN_STORE_DEFAULT);
        ok = mn_skin_dq_run_with(&ref, dqs, MN_SIMD_SCALAR) == MN_OK;
    }
    dq_ctx conv = {make_job(&d, d.out_positions, d.out_normals, MN_SKIN_STORE_DEFAULT),
                   d.palette, dqs, MN_SIMD_SCALAR};
    bench_timing tc = ok ? bench_run(runs, dq_convert_body, NULL, &conv) : (bench_timing){0};
    for (int level = MN_SIMD_SCALAR; ok && level <= (int)mn_simd_detect(); level++) {
        memset(d.out_positions, 0, count * 3 * sizeof(float));
        memset(d.out_normals, 0, count * 3 * sizeof(float));
        dq_ctx ctx = {make_job(&d, d.out_positions, d.out_normals, MN_SKIN_STORE_DEFAULT),
                      d.palette, dqs, (mn_simd_level)level};
        bench_timing t = bench_run(runs, dq_body, NULL, &ctx);
        bool right = t.ok && tc.ok;
        for (size_t i = 0; right && i < 3 * count; i++)
            right = fabsf(d.out_positions[i] - d.ref_positions[i]) <=
                        4e-6f * fmaxf(1.0f, fabsf(d.ref_positions[i])) &&
                    fabsf(d.out_normals[i] - d.ref_normals[i]) <=
                        4e-6f * fmaxf(1.0f, fabsf(d.ref_normals[i]));
        skin_ctx lctx = {make_job(&d, d.out_positions, d.out_normals, MN_SKIN_STORE_DEFAULT),
                         (mn_simd_level)level};
        bench_timing tl = bench_run(runs, skin_body, NULL, &lctx);
        right = right && tl.ok;
        char name[64];
        snprintf(name, sizeof name, "dqs_%s_%zu%s", level_names[level], count,
                 scaled ? "_scaled" : "");
        bench_line line;
        bench_line_begin(&line, "skin", name);
        bench_line_str(&line, "level", level_names[level]);
        bench_line_u64(&line, "vertices", count);
        bench_line_u64(&line, "influences", INFLUENCES);
        bench_line_str(&line, "streams", "positions+normals");
        bench_line_str(&line, "palette", scaled ? "uniform scale per joint" : "rigid");
        bench_line_num(&line, "ns_per_vertex", t.best_ms * 1e6 / (double)count);
        bench_line_num(&line, "median_ns_per_vertex", t.median_ms * 1e6 / (double)count);
        bench_line_num(&line, "lbs_ns_per_vertex", tl.best_ms * 1e6 / (double)count);
        bench_line_num(&line, "dqs_to_lbs", t.best_ms / tl.best_ms);
        bench_line_num(&line, "convert_ns_per_joint", tc.best_ms * 1e6 / JOINTS);
        bench_line_num(&line, "dqs_with_convert_to_lbs", (t.best_ms + tc.best_ms) / tl.best_ms);
        bench_line_bool(&line, "matches_reference", right);
        bench_line_print(&line);
        for (int i = 0; right && level < 3 && i < SIZES; i++)
            if (sizes[i] == count)
                summary.dqs_to_lbs[level][scaled][i] = t.best_ms / tl.best_ms;
        ok = right;
    }
    skin_data_free(&d);
    free(dqs);
    return ok;
}

/*
 * skin_compute_floor: the measured cost of one instruction of each level
 * and the floors that follow (see the arithmetic floor), with the ratios the
 * targets compare (a level's floor over AVX2's; DQS's over LBS's).
 */
static void floor_line(void)
{
    bench_line line;
    bench_line_begin(&line, "skin", "compute_floor");
    bench_line_u64(&line, "lbs_multiplies_per_vertex", (uint64_t)LBS_MULS);
    bench_line_u64(&line, "lbs_adds_per_vertex_without_fma", (uint64_t)LBS_ADDS);
    bench_line_u64(&line, "dqs_multiplies_per_vertex", (uint64_t)DQS_MULS);
    bench_line_num(&line, "avx2_fma_ns", floors.avx2_fma);
    bench_line_num(&line, "avx2_gather8_ns", floors.avx2_gather);
    bench_line_num(&line, "sse2_mul_ns", floors.sse2_mul);
    bench_line_num(&line, "sse2_mul_or_add_ns", floors.sse2_op);
    bench_line_num(&line, "scalar_mul_ns", floors.scalar_mul);
    bench_line_num(&line, "scalar_mul_or_add_ns", floors.scalar_op);
    for (int level = MN_SIMD_SCALAR; level <= MN_SIMD_AVX2_FMA; level++) {
        char key[64];
        snprintf(key, sizeof key, "compute_floor_ns_per_vertex_%s", level_names[level]);
        bench_line_num(&line, key, floor_ns_per_vertex(level, false));
    }
    double avx2 = floor_ns_per_vertex(MN_SIMD_AVX2_FMA, false);
    if (avx2 > 0) {
        bench_line_num(&line, "compute_floor_ns_per_vertex", avx2);
        bench_line_num(&line, "dqs_compute_floor_ns_per_vertex", floor_ns_per_vertex(MN_SIMD_AVX2_FMA, true));
        /* eight vertices a register, blended from gathers: 48 of them per 8 vertices */
        bench_line_num(&line, "gather_blend_ns_per_vertex", 48.0 / 8.0 * floors.avx2_gather);
        bench_line_num(&line, "sse2_floor_to_avx2_floor", floor_ns_per_vertex(MN_SIMD_SSE2, false) / avx2);
        bench_line_num(&line, "scalar_floor_to_avx2_floor",
                       floor_ns_per_vertex(MN_SIMD_SCALAR, false) / avx2);
    }
    bench_line_num(&line, "one_lane_floor_ns_per_vertex", floor_ns_per_vertex(ONE_LANE, false));
    if (avx2 > 0)
        bench_line_num(&line, "one_lane_floor_to_avx2_floor", floor_ns_per_vertex(ONE_LANE, false) / avx2);
    bench_line_num(&line, "dqs_floor_to_lbs_floor", DQS_MULS / LBS_MULS);
    bench_line_print(&line);
}

/*
 * skin_targets: exactly the ratios the targets name, from the lines above
 * (best of N, default stores): avx2_to_memcpy_<N> (AVX2 LBS over memcpy of
 * the same traffic, goal ≤ 1.3) with floor_to_memcpy_<N> (the AVX2 floor
 * over it: above 1.3, the goal is out of any kernel's reach at that size),
 * sse2_to_avx2_<N> (≤ 1.3) and scalar_to_avx2_<N> (≤ 2.5), and
 * dqs_to_lbs_<level>[_scaled]_<N> (≤ 1.4).
 */
static void targets_line(void)
{
    bench_line line;
    bench_line_begin(&line, "skin", "targets");
    double floor = floor_ns_per_vertex(MN_SIMD_AVX2_FMA, false);
    for (int i = 0; i < SIZES && summary.have[MN_SIMD_AVX2_FMA]; i++) {
        char key[64];
        double avx2 = summary.ms[MN_SIMD_AVX2_FMA][i];
        snprintf(key, sizeof key, "avx2_to_memcpy_%zu", sizes[i]);
        bench_line_num(&line, key, avx2 / summary.memcpy_ms[i]);
        snprintf(key, sizeof key, "floor_to_memcpy_%zu", sizes[i]);
        bench_line_num(&line, key, floor * 1e-6 * (double)sizes[i] / summary.memcpy_ms[i]);
        snprintf(key, sizeof key, "sse2_to_avx2_%zu", sizes[i]);
        bench_line_num(&line, key, summary.ms[MN_SIMD_SSE2][i] / avx2);
        snprintf(key, sizeof key, "scalar_to_avx2_%zu", sizes[i]);
        bench_line_num(&line, key, summary.ms[MN_SIMD_SCALAR][i] / avx2);
    }
    for (int level = MN_SIMD_SCALAR; level <= MN_SIMD_AVX2_FMA; level++)
        for (int scaled = 0; scaled < 2; scaled++)
            for (int i = 0; i < SIZES; i++)
                if (summary.dqs_to_lbs[level][scaled][i] > 0) {
                    char key[64];
                    snprintf(key, sizeof key, "dqs_to_lbs_%s%s_%zu", level_names[level],
                             scaled ? "_scaled" : "", sizes[i]);
                    bench_line_num(&line, key, summary.dqs_to_lbs[level][scaled][i]);
                }
    bench_line_print(&line);
}

/* The goal for dqs_to_lbs at the SIMD levels, at every size, rigid and scaled. */
#define DQS_TO_LBS_TARGET 1.4

/*
 * skin_dqs_summary: the worst dqs_to_lbs of AVX2 and of SSE2 over the four
 * sizes, rigid and scaled (the dqs_ lines above), where it occurs, and the
 * goal: worst_dqs_to_lbs_<level> ≤ target at each level the CPU has.
 */
static void dqs_summary_line(void)
{
    static const int levels[] = {MN_SIMD_AVX2_FMA, MN_SIMD_SSE2};
    bench_line line;
    bench_line_begin(&line, "skin", "dqs_summary");
    bool met = true;
    for (size_t k = 0; k < sizeof levels / sizeof levels[0]; k++) {
        int level = levels[k];
        double worst = 0;
        char where[64] = "";
        for (int scaled = 0; scaled < 2; scaled++)
            for (int i = 0; i < SIZES; i++)
                if (summary.dqs_to_lbs[level][scaled][i] > worst) {
                    worst = summary.dqs_to_lbs[level][scaled][i];
                    snprintf(where, sizeof where, "%zu%s", sizes[i], scaled ? "_scaled" : "");
                }
        if (worst <= 0)
            continue; /* a level the CPU lacks */
        char key[64];
        snprintf(key, sizeof key, "worst_dqs_to_lbs_%s", level_names[level]);
        bench_line_num(&line, key, worst);
        snprintf(key, sizeof key, "worst_dqs_to_lbs_%s_at", level_names[level]);
        bench_line_str(&line, key, where);
        met = met && worst <= DQS_TO_LBS_TARGET;
    }
    bench_line_num(&line, "dqs_to_lbs_target", DQS_TO_LBS_TARGET);
    bench_line_bool(&line, "meets_target", met);
    bench_line_print(&line);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : DEFAULT_RUNS;
    if (runs < 1 || runs > BENCH_MAX_RUNS) {
        fprintf(stderr, "usage: bench_skin [runs 1..%d]\n", BENCH_MAX_RUNS);
        return 2;
    }
    bench_line line;
    bench_line_begin(&line, "skin", "cpu");
    bench_line_str(&line, "best_level", level_names[mn_simd_detect()]);
    bench_line_print(&line);

    floors = floor_measure(runs);
    floor_line();

    bool ok = true;
    for (size_t i = 0; i < SIZES; i++)
        ok = bench_skinning(sizes[i], runs) && ok;
    for (size_t i = 0; i < SIZES; i++)
        for (int scaled = 0; scaled < 2; scaled++)
            ok = bench_dqs(sizes[i], scaled, runs) && ok;
    ok = bench_morphing(1000000, 4, 4, runs) && ok;
    ok = bench_morphing(1000000, 8, 2, runs) && ok;
    if (ok) {
        targets_line();
        dqs_summary_line();
    }
    return ok ? 0 : 1;
}
