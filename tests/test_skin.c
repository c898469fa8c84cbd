/*
 * Linear-blend skinning (src/deform/skin*.c) and the prepared deformable
 * mesh (src/deform/prepared.c): exact small cases run through every
 * implementation the CPU has, the SIMD kernels against the scalar reference
 * on random data (1e-6 relative), influence counts, strides, in place,
 * streaming stores (the same bytes as cached ones, at every alignment), job
 * validation, zero allocations per run, and meshes prepared from the shared
 * assets and from GLBs built here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/gltf.h>
#include <marionette/math.h>
#include <marionette/model.h>
#include <marionette/skin.h>

#include "assert_near.h"
#include "assets.h"
#include "counting_alloc.h"
#include "glb_builder.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LEVELS 3

/* ---- helpers ------------------------------------------------------------------ */

static void translation(float m[16], float x, float y, float z)
{
    mn_mat4_identity(m);
    m[12] = x, m[13] = y, m[14] = z;
}

static mn_skin_job basic_job(uint32_t vertex_count, uint32_t influence_count,
                             const uint16_t *joints, const float *weights, const float *palette,
                             uint32_t palette_count, const float *positions, float *out_positions)
{
    mn_skin_job job;
    memset(&job, 0, sizeof job);
    job.vertex_count = vertex_count;
    job.influence_count = influence_count;
    job.joints = joints;
    job.weights = weights;
    job.palette = palette;
    job.palette_count = palette_count;
    job.positions = positions;
    job.out_positions = out_positions;
    return job;
}

/* xorshift32, seeded per test: the same data every run. */
static uint32_t rng;
static float frand(float lo, float hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return lo + (hi - lo) * (float)(rng >> 8) * (1.0f / 16777216.0f);
}

/* A matrix near unit scale: rotation up to 0.5 rad about a random axis, scale 0.9..1.1, a translation. */
static void random_matrix(float m[16])
{
    float axis[3] = {frand(-1, 1), frand(-1, 1), frand(-1, 1) + 0.01f};
    float q[4], t[3] = {frand(-1, 1), frand(-1, 1), frand(-1, 1)};
    float s[3] = {frand(0.9f, 1.1f), frand(0.9f, 1.1f), frand(0.9f, 1.1f)};
    mn_quat_from_axis_angle(q, axis, frand(-0.5f, 0.5f));
    mn_mat4_compose(m, t, q, s);
}

/* |a - b| <= 1e-6 × max(1, |b|): the agreement the library promises between kernels. */
static void assert_agree(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float tol = 1e-6f * fmaxf(1.0f, fabsf(b[i]));
        if (!(fabsf(a[i] - b[i]) <= tol)) {
            print_error("float %zu: %.9g vs reference %.9g\n", i, (double)a[i], (double)b[i]);
            fail();
        }
    }
}

/* ---- exact small cases, every level ---------------------------------------------- */

static void one_joint_translation_moves_position_not_normal(void **state)
{
    (void)state;
    float palette[16];
    translation(palette, 1, 2, 3);
    const uint16_t joints[4] = {0, 0, 0, 0};
    const float weights[4] = {1, 0, 0, 0};
    const float positions[3] = {1, 1, 1}, normals[3] = {0, 0, 1};
    for (int level = 0; level < LEVELS; level++) {
        float out_p[3] = {0}, out_n[3] = {0};
        mn_skin_job job = basic_job(1, 4, joints, weights, palette, 1, positions, out_p);
        job.normals = normals;
        job.out_normals = out_n;
        assert_int_equal(mn_skin_run_with(&job, (mn_simd_level)level), MN_OK);
        const float want_p[3] = {2, 3, 4};
        assert_vec_near(out_p, want_p, 3, 0);
        assert_vec_near(out_n, normals, 3, 0);
    }
}

static void two_joints_half_and_half_blend_translations(void **state)
{
    (void)state;
    float palette[32];
    translation(palette, 2, 0, 0);
    translation(palette + 16, 0, 4, 0);
    const uint16_t joints[2] = {0, 1};
    const float weights[2] = {0.5f, 0.5f};
    const float positions[3] = {1, 1, 1};
    for (int level = 0; level < LEVELS; level++) {
        float out[3] = {0};
        mn_skin_job job = basic_job(1, 2, joints, weights, palette, 2, positions, out);
        assert_int_equal(mn_skin_run_with(&job, (mn_simd_level)level), MN_OK);
        const float want[3] = {2, 3, 1};
        assert_vec_near(out, want, 3, 1e-6);
    }
}

static void normals_are_renormalised_under_non_uniform_scale(void **state)
{
    (void)state;
    float palette[16];
    mn_mat4_identity(palette);
    palette[0] = 2; /* scale x by 2 */
    const uint16_t joints[4] = {0, 0, 0, 0};
    const float weights[4] = {1, 0, 0, 0};
    const float positions[3] = {1, 1, 1};
    const float r = 1.0f / sqrtf(2.0f), normals[3] = {r, r, 0};
    for (int level = 0; level < LEVELS; level++) {
        float out_p[3], out_n[3];
        mn_skin_job job = basic_job(1, 4, joints, weights, palette, 1, positions, out_p);
        job.normals = normals;
        job.out_normals = out_n;
        assert_int_equal(mn_skin_run_with(&job, (mn_simd_level)level), MN_OK);
        /* M·n = (2r, r, 0), normalised (2, 1, 0)/√5: unit length, leaning to x */
        const float want_n[3] = {2 / sqrtf(5.0f), 1 / sqrtf(5.0f), 0}, want_p[3] = {2, 1, 1};
        assert_vec_near(out_n, want_n, 3, 1e-6);
        assert_vec_near(out_p, want_p, 3, 0);
    }
}

static void tangent_xyz_rotates_and_w_is_kept(void **state)
{
    (void)state;
    float palette[16], q[4];
    const float z_axis[3] = {0, 0, 1};
    mn_quat_from_axis_angle(q, z_axis, 3.14159265f / 2);
    mn_quat_to_mat4(palette, q);
    const uint16_t joints[1] = {0};
    const float weights[1] = {1};
    const float positions[3] = {0, 0, 0};
    const float tangents[8] = {1, 0, 0, -1}; /* w = -1: mirrored handedness */
    for (int level = 0; level < LEVELS; level++) {
        float out_p[3], out_t[4];
        mn_skin_job job = basic_job(1, 1, joints, weights, palette, 1, positions, out_p);
        job.tangents = tangents;
        job.out_tangents = out_t;
        assert_int_equal(mn_skin_run_with(&job, (mn_simd_level)level), MN_OK);
        const float want[4] = {0, 1, 0, -1};
        assert_vec_near(out_t, want, 4, 1e-6);
        assert_true(out_t[3] == -1.0f);
    }
}

static void zero_length_normal_stays_zero(void **state)
{
    (void)state;
    float palette[16];
    mn_mat4_identity(palette);
    const uint16_t joints[1] = {0};
    const float weights[1] = {1};
    const float positions[3] = {0, 0, 0}, normals[3] = {0, 0, 0};
    for (int level = 0; level < LEVELS; level++) {
        float out_p[3], out_n[3] = {9, 9, 9};
        mn_skin_job job = basic_job(1, 1, joints, weights, palette, 1, positions, out_p);
        job.normals = normals;
        job.out_normals = out_n;
        assert_int_equal(mn_skin_run_with(&job, (mn_simd_level)level), MN_OK);
        assert_vec_near(out_n, normals, 3, 0); /* zero, not NaN */
    }
}

/*
 * Directions whose squared length is ordinary, zero, tiny but normal,
 * subnormal (0 < len² < FLT_MIN) and infinite (len² overflows): every level
 * gives the reference's results, finite, the last two through the SIMD
 * kernels' exact fallback (skin_sse2.c, inv_length4): a unit vector and zero.
 */
static void extreme_direction_lengths_agree_with_reference(void **state)
{
    (void)state;
    enum { V = 8 }; /* two full groups: ordinary lengths in the first, the extremes in the second */
    float palette[16];
    mn_mat4_identity(palette);
    uint16_t joints[V] = {0};
    float weights[V], positions[3 * V] = {0};
    const float normals[3 * V] = {0.6f, 0.8f, 0,   0, 0, 0,        0, 3, 4,      1e-18f, 0, 0,
                                  1e-20f, 0, 0,    1e20f, 0, 0,   0, 0, -2e-20f, 0.3f, 0, 0.4f};
    const float tangents[4 * V] = {1e-20f, 0, 0, 1,  0, 1e20f, 0, -1,  0, 1, 0, 1,  0, 0, 0, 1,
                                   0.6f, 0.8f, 0, 1,  1e-21f, 1e-21f, 0, -1,
                                   2, 0, 0, 1,  0, 5, 0, 1};
    for (int v = 0; v < V; v++)
        weights[v] = 1.0f;
    float ref_n[3 * V], ref_t[4 * V];
    for (int level = 0; level < LEVELS; level++) {
        float out_p[3 * V], out_n[3 * V], out_t[4 * V];
        mn_skin_job job = basic_job(V, 1, joints, weights, palette, 1, positions, out_p);
        job.normals = normals, job.out_normals = out_n;
        job.tangents = tangents, job.out_tangents = out_t;
        assert_int_equal(mn_skin_run_with(&job, (mn_simd_level)level), MN_OK);
        for (int i = 0; i < 3 * V; i++)
            assert_true(isfinite(out_n[i]));
        for (int i = 0; i < 4 * V; i++)
            assert_true(isfinite(out_t[i]));
        if (level == 0) {
            memcpy(ref_n, out_n, sizeof ref_n), memcpy(ref_t, out_t, sizeof ref_t);
            const float unit_x[3] = {1, 0, 0}, zero[3] = {0, 0, 0};
            /* subnormal len²: a unit vector, to the precision a subnormal keeps */
            assert_vec_near(out_n + 3 * 4, unit_x, 3, 1e-5);
            assert_vec_near(out_n + 3 * 5, zero, 3, 0);      /* len² overflows: zero */
        }
        assert_agree(out_n, ref_n, 3 * V);
        assert_agree(out_t, ref_t, 4 * V);
    }
}

static void eight_influences_average_eight_translations(void **state)
{
    (void)state;
    enum { V = 7 }; /* a group of four and a tail of three */
    float palette[8 * 16];
    for (int k = 0; k < 8; k++)
        translation(palette + 16 * k, (float)k, (float)(k % 2), -(float)k);
    uint16_t joints[V * 8];
    float weights[V * 8], positions[V * 3];
    for (int v = 0; v < V; v++) {
        for (int k = 0; k < 8; k++)
            joints[v * 8 + k] = (uint16_t)((k + v) % 8), weights[v * 8 + k] = 0.125f;
        positions[v * 3] = (float)v, positions[v * 3 + 1] = 0, positions[v * 3 + 2] = 1;
    }
    for (int level = 0; level < LEVELS; level++) {
        float out[V * 3];
        mn_skin_job job = basic_job(V, 8, joints, weights, palette, 8, positions, out);
        assert_int_equal(mn_skin_run_with(&job, (mn_simd_level)level), MN_OK);
        for (int v = 0; v < V; v++) {
            /* mean translation: (3.5, 0.5, -3.5) */
            const float want[3] = {(float)v + 3.5f, 0.5f, 1 - 3.5f};
            assert_vec_near(out + 3 * v, want, 3, 1e-6);
        }
    }
}

/* ---- the kernels against the reference on random data ------------------------------ */

typedef struct random_mesh {
    uint32_t count, ic, palette_count;
    uint16_t *joints;
    float *weights, *palette, *positions, *normals, *tangents;
} random_mesh;

static random_mesh random_mesh_make(uint32_t count, uint32_t ic, uint32_t seed)
{
    rng = seed;
    random_mesh m = {count, ic, 24, NULL, NULL, NULL, NULL, NULL, NULL};
    m.joints = malloc(sizeof(uint16_t) * count * ic);
    m.weights = malloc(sizeof(float) * count * ic);
    m.palette = malloc(sizeof(float) * 16 * m.palette_count);
    m.positions = malloc(sizeof(float) * 3 * count);
    m.normals = malloc(sizeof(float) * 3 * count);
    m.tangents = malloc(sizeof(float) * 4 * count);
    assert_non_null(m.joints), assert_non_null(m.weights), assert_non_null(m.palette);
    assert_non_null(m.positions), assert_non_null(m.normals), assert_non_null(m.tangents);
    for (uint32_t j = 0; j < m.palette_count; j++)
        random_matrix(m.palette + 16 * j);
    for (uint32_t v = 0; v < count; v++) {
        float sum = 0;
        for (uint32_t k = 0; k < ic; k++) {
            m.joints[v * ic + k] = (uint16_t)(rng % m.palette_count);
            /* some exact zeros: kernels that skip them must agree with those that do not */
            m.weights[v * ic + k] = (k > 0 && v % 3 == 0) ? 0.0f : frand(0.01f, 1);
            sum += m.weights[v * ic + k];
        }
        for (uint32_t k = 0; k < ic; k++)
            m.weights[v * ic + k] /= sum;
        for (int c = 0; c < 3; c++) {
            m.positions[3 * v + c] = frand(-2, 2);
            m.normals[3 * v + c] = frand(-1, 1);
            m.tangents[4 * v + c] = frand(-1, 1);
        }
        m.tangents[4 * v + 3] = v % 2 ? 1.0f : -1.0f;
    }
    return m;
}

static void random_mesh_free(random_mesh *m)
{
    free(m->joints), free(m->weights), free(m->palette);
    free(m->positions), free(m->normals), free(m->tangents);
}

/* Skin m at `level` into packed outputs. */
static void skin_packed(const random_mesh *m, mn_simd_level level, float *p, float *n, float *t)
{
    mn_skin_job job = basic_job(m->count, m->ic, m->joints, m->weights, m->palette,
                                m->palette_count, m->positions, p);
    job.normals = m->normals;
    job.out_normals = n;
    job.tangents = m->tangents;
    job.out_tangents = t;
    assert_int_equal(mn_skin_job_validate(&job, NULL), MN_OK);
    assert_int_equal(mn_skin_run_with(&job, level), MN_OK);
}

static void simd_kernels_agree_with_scalar(uint32_t ic, uint32_t seed)
{
    random_mesh m = random_mesh_make(1003, ic, seed); /* not a multiple of four: a tail */
    size_t n = m.count;
    float *ref = malloc(sizeof(float) * 10 * n), *got = malloc(sizeof(float) * 10 * n);
    assert_non_null(ref), assert_non_null(got);
    skin_packed(&m, MN_SIMD_SCALAR, ref, ref + 3 * n, ref + 6 * n);
    for (int level = 1; level < LEVELS; level++) {
        memset(got, 0, sizeof(float) * 10 * n);
        skin_packed(&m, (mn_simd_level)level, got, got + 3 * n, got + 6 * n);
        assert_agree(got, ref, 10 * n);
    }
    free(ref), free(got);
    random_mesh_free(&m);
}

static void sse2_and_avx2_agree_with_scalar_4_influences(void **state)
{
    (void)state;
    simd_kernels_agree_with_scalar(4, 12345u);
}

static void sse2_and_avx2_agree_with_scalar_8_influences(void **state)
{
    (void)state;
    simd_kernels_agree_with_scalar(8, 777u);
}

static void sse2_and_avx2_agree_with_scalar_other_influence_counts(void **state)
{
    (void)state;
    simd_kernels_agree_with_scalar(1, 99u);
    simd_kernels_agree_with_scalar(3, 5u);
    simd_kernels_agree_with_scalar(12, 31337u);
}

/*
 * The SIMD kernels read a vertex's x y z with 16-byte loads where another
 * float follows it, and exactly 12 bytes at the end of a stream.  Every count
 * from 1 to 13, and 16, 17, puts the end in each place a group can leave it;
 * the streams are allocated to their exact size (positions and normals also
 * at stride 4, the last vertex's gap cut off), so a read past an end is a
 * fault under AddressSanitizer, and the results must still be the reference's.
 */
static void every_count_reads_only_inside_the_streams(void **state)
{
    (void)state;
    const uint32_t counts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        for (uint32_t ic = 3; ic <= 4; ic++) {
            random_mesh m = random_mesh_make(counts[c], ic, 600u + counts[c]);
            size_t n = m.count, strided = 4 * (n - 1) + 3;
            float *ref = malloc(sizeof(float) * 10 * n), *got = malloc(sizeof(float) * 10 * n);
            float *sp = malloc(sizeof(float) * strided), *sn = malloc(sizeof(float) * strided);
            float *op = malloc(sizeof(float) * strided), *on = malloc(sizeof(float) * strided);
            assert_non_null(ref), assert_non_null(got), assert_non_null(sp), assert_non_null(sn);
            assert_non_null(op), assert_non_null(on);
            for (size_t v = 0; v < n; v++) {
                memcpy(sp + 4 * v, m.positions + 3 * v, 3 * sizeof(float));
                memcpy(sn + 4 * v, m.normals + 3 * v, 3 * sizeof(float));
            }
            skin_packed(&m, MN_SIMD_SCALAR, ref, ref + 3 * n, ref + 6 * n);
            for (int level = 1; level < LEVELS; level++) {
                skin_packed(&m, (mn_simd_level)level, got, got + 3 * n, got + 6 * n);
                assert_agree(got, ref, 10 * n);

                mn_skin_job job = basic_job(m.count, ic, m.joints, m.weights, m.palette,
                                            m.palette_count, sp, op);
                job.normals = sn, job.out_normals = on;
                job.position_stride = job.normal_stride = 4;
                job.out_position_stride = job.out_normal_stride = 4;
                assert_int_equal(mn_skin_run_with(&job, (mn_simd_level)level), MN_OK);
                for (size_t v = 0; v < n; v++) {
                    assert_agree(op + 4 * v, ref + 3 * v, 3);
                    assert_agree(on + 4 * v, ref + 3 * n + 3 * v, 3);
                }
            }
            free(ref), free(got), free(sp), free(sn), free(op), free(on);
            random_mesh_free(&m);
        }
    }
}

/*
 * One interleaved buffer a vertex: position(3) normal(3) tangent(4) pad(1),
 * stride 11, in and out in separate buffers of the same layout; then the same
 * in place.  Both must equal the packed reference.
 */
static void strided_and_in_place_agree_with_packed(void **state)
{
    (void)state;
    random_mesh m = random_mesh_make(203, 4, 4242u);
    size_t n = m.count, S = 11;
    float *ref = malloc(sizeof(float) * 10 * n);
    float *in = malloc(sizeof(float) * S * n), *out = malloc(sizeof(float) * S * n);
    assert_non_null(ref), assert_non_null(in), assert_non_null(out);
    skin_packed(&m, MN_SIMD_SCALAR, ref, ref + 3 * n, ref + 6 * n);
    for (int level = 0; level < LEVELS; level++) {
        for (int in_place = 0; in_place < 2; in_place++) {
            for (size_t v = 0; v < n; v++) {
                memcpy(in + S * v, m.positions + 3 * v, 3 * sizeof(float));
                memcpy(in + S * v + 3, m.normals + 3 * v, 3 * sizeof(float));
                memcpy(in + S * v + 6, m.tangents + 4 * v, 4 * sizeof(float));
                in[S * v + 10] = 12345.0f; /* padding the kernels must not touch */
            }
            float *dst = in_place ? in : out;
            if (!in_place)
                for (size_t i = 0; i < S * n; i++)
                    out[i] = 12345.0f;
            mn_skin_job job = basic_job((uint32_t)n, 4, m.joints, m.weights, m.palette,
                                        m.palette_count, in, dst);
            job.normals = in + 3, job.tangents = in + 6;
            job.out_normals = dst + 3, job.out_tangents = dst + 6;
            job.position_stride = job.normal_stride = job.tangent_stride = (uint32_t)S;
            job.out_position_stride = job.out_normal_stride = job.out_tangent_stride = (uint32_t)S;
            assert_int_equal(mn_skin_run_with(&job, (mn_simd_level)level), MN_OK);
            for (size_t v = 0; v < n; v++) {
                assert_agree(dst + S * v, ref + 3 * v, 3);
                assert_agree(dst + S * v + 3, ref + 3 * n + 3 * v, 3);
                assert_agree(dst + S * v + 6, ref + 6 * n + 4 * v, 4);
                assert_true(dst[S * v + 10] == 12345.0f);
            }
        }
    }
    free(ref), free(in), free(out);
    random_mesh_free(&m);
}

static void packed_in_place_agrees_with_out_of_place(void **state)
{
    (void)state;
    random_mesh m = random_mesh_make(37, 4, 2024u);
    size_t n = m.count;
    float *ref = malloc(sizeof(float) * 10 * n);
    assert_non_null(ref);
    skin_packed(&m, MN_SIMD_SCALAR, ref, ref + 3 * n, ref + 6 * n);
    for (int level = 0; level < LEVELS; level++) {
        random_mesh c = random_mesh_make(37, 4, 2024u); /* fresh inputs to overwrite */
        mn_skin_job job = basic_job(c.count, 4, c.joints, c.weights, c.palette, c.palette_count,
                                    c.positions, c.positions);
        job.normals = job.out_normals = c.normals;
        job.tangents = job.out_tangents = c.tangents;
        assert_int_equal(mn_skin_run_with(&job, (mn_simd_level)level), MN_OK);
        assert_agree(c.positions, ref, 3 * n);
        assert_agree(c.normals, ref + 3 * n, 3 * n);
        assert_agree(c.tangents, ref + 6 * n, 4 * n);
        random_mesh_free(&c);
    }
    free(ref);
    random_mesh_free(&m);
}

/* ---- streaming stores: other route, same bytes ------------------------------------ */

/*
 * Streaming (non-temporal) stores change where the bytes go, never what they
 * are: every case below runs the same job with MN_SKIN_STORE_CACHED and with
 * MN_SKIN_STORE_STREAM, at every level, and compares the output buffers byte
 * for byte, sentinels around them included.  Starts are shifted by 0..3
 * floats so the kernels' peel to a 16-byte boundary, and the cases where a
 * second stream reaches it at another vertex, are all exercised.
 */
#define GUARD 8               /* sentinel floats before and after every output */
#define SENTINEL 12345.0f

typedef struct out_buf {
    float *block;             /* 16-byte aligned, GUARD + shift + floats + GUARD */
    float *at;                /* the output stream, `shift` floats after the guard */
    size_t floats;            /* of the whole block */
} out_buf;

static out_buf out_buf_make(size_t stream_floats, size_t shift)
{
    out_buf b;
    b.floats = (2 * GUARD + shift + stream_floats + 3) & ~(size_t)3;
    b.block = aligned_alloc(16, b.floats * sizeof(float));
    assert_non_null(b.block);
    for (size_t i = 0; i < b.floats; i++)
        b.block[i] = SENTINEL;
    b.at = b.block + GUARD + shift;
    return b;
}

static void out_buf_assert_same(const out_buf *a, const out_buf *b)
{
    assert_int_equal(a->floats, b->floats);
    assert_memory_equal(a->block, b->block, a->floats * sizeof(float));
}

static void out_buf_free(out_buf *b)
{
    free(b->block);
}

/* Packed outputs (the glTF layout) at shifts ps, ns, ts floats: cached and streamed runs. */
static void packed_streaming_case(const random_mesh *m, uint32_t count, int level, size_t ps,
                                  size_t ns, size_t ts, const float *ref)
{
    out_buf out[2][3];
    for (int way = 0; way < 2; way++) {
        out[way][0] = out_buf_make(3 * (size_t)count, ps);
        out[way][1] = out_buf_make(3 * (size_t)count, ns);
        out[way][2] = out_buf_make(4 * (size_t)count, ts);
        mn_skin_job job = basic_job(count, m->ic, m->joints, m->weights, m->palette,
                                    m->palette_count, m->positions, out[way][0].at);
        job.normals = m->normals, job.out_normals = out[way][1].at;
        job.tangents = m->tangents, job.out_tangents = out[way][2].at;
        job.output_store = way ? MN_SKIN_STORE_STREAM : MN_SKIN_STORE_CACHED;
        assert_int_equal(mn_skin_run_with(&job, (mn_simd_level)level), MN_OK);
    }
    for (int k = 0; k < 3; k++)
        out_buf_assert_same(&out[0][k], &out[1][k]);
    /* and the streamed values are the reference's (the first `count` vertices of the mesh) */
    size_t n = m->count;
    assert_agree(out[1][0].at, ref, 3 * (size_t)count);
    assert_agree(out[1][1].at, ref + 3 * n, 3 * (size_t)count);
    assert_agree(out[1][2].at, ref + 6 * n, 4 * (size_t)count);
    for (int way = 0; way < 2; way++)
        for (int k = 0; k < 3; k++)
            out_buf_free(&out[way][k]);
}

static void streaming_stores_give_the_cached_bytes_packed_at_every_alignment(void **state)
{
    (void)state;
    random_mesh m = random_mesh_make(1031, 4, 8080u);
    size_t n = m.count;
    float *ref = malloc(sizeof(float) * 10 * n);
    assert_non_null(ref);
    skin_packed(&m, MN_SIMD_SCALAR, ref, ref + 3 * n, ref + 6 * n);
    /* fewer vertices than the peel, a group and a tail, many groups and a tail */
    const uint32_t counts[] = {1, 2, 3, 5, 7, 64, 1031};
    for (int level = 0; level < LEVELS; level++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            for (size_t ps = 0; ps < 4; ps++)
                for (size_t ns = 0; ns < 4; ns++)
                    for (size_t ts = 0; ts < 2; ts++)
                        packed_streaming_case(&m, counts[c], level, ps, ns, ts, ref);
    free(ref);
    random_mesh_free(&m);
}

/*
 * Strided outputs, cached and streamed, into one interleaved buffer per run.
 * `offsets` are where position, normal and tangent sit in a vertex of
 * `stride` floats (the rest is padding, which must keep its sentinel).
 */
static void strided_streaming_case(const random_mesh *m, int level, size_t stride,
                                   const size_t offsets[3], size_t shift, const float *ref)
{
    size_t n = m->count;
    out_buf out[2];
    for (int way = 0; way < 2; way++) {
        out[way] = out_buf_make(stride * n, shift);
        float *o = out[way].at;
        mn_skin_job job = basic_job(m->count, m->ic, m->joints, m->weights, m->palette,
                                    m->palette_count, m->positions, o + offsets[0]);
        job.normals = m->normals, job.out_normals = o + offsets[1];
        job.tangents = m->tangents, job.out_tangents = o + offsets[2];
        job.out_position_stride = job.out_normal_stride = job.out_tangent_stride = (uint32_t)stride;
        job.output_store = way ? MN_SKIN_STORE_STREAM : MN_SKIN_STORE_CACHED;
        assert_int_equal(mn_skin_run_with(&job, (mn_simd_level)level), MN_OK);
    }
    out_buf_assert_same(&out[0], &out[1]);
    const float *o = out[1].at;
    for (size_t v = 0; v < n; v++) {
        assert_agree(o + stride * v + offsets[0], ref + 3 * v, 3);
        assert_agree(o + stride * v + offsets[1], ref + 3 * n + 3 * v, 3);
        assert_agree(o + stride * v + offsets[2], ref + 6 * n + 4 * v, 4);
        for (size_t f = 0; f < stride; f++) {
            bool used = (f >= offsets[0] && f < offsets[0] + 3) ||
                        (f >= offsets[1] && f < offsets[1] + 3) ||
                        (f >= offsets[2] && f < offsets[2] + 4);
            if (!used)
                assert_true(o[stride * v + f] == SENTINEL);
        }
    }
    out_buf_free(&out[0]), out_buf_free(&out[1]);
}

/* Copies of the mesh's streams, packed, at `shift` floats past a 16-byte boundary. */
typedef struct in_place_copy {
    out_buf p, n, t;
} in_place_copy;

static in_place_copy in_place_copy_make(const random_mesh *m, size_t shift)
{
    in_place_copy c = {out_buf_make(3 * (size_t)m->count, shift),
                       out_buf_make(3 * (size_t)m->count, shift + 1),
                       out_buf_make(4 * (size_t)m->count, 0)};
    memcpy(c.p.at, m->positions, sizeof(float) * 3 * m->count);
    memcpy(c.n.at, m->normals, sizeof(float) * 3 * m->count);
    memcpy(c.t.at, m->tangents, sizeof(float) * 4 * m->count);
    return c;
}

static void streaming_stores_give_the_cached_bytes_strided_and_in_place(void **state)
{
    (void)state;
    random_mesh m = random_mesh_make(203, 4, 5150u);
    size_t n = m.count;
    float *ref = malloc(sizeof(float) * 10 * n);
    assert_non_null(ref);
    skin_packed(&m, MN_SIMD_SCALAR, ref, ref + 3 * n, ref + 6 * n);
    /* 11: nothing can stream; 12 with the tangent on a 16-byte boundary: the tangent streams */
    const size_t odd[3] = {0, 3, 6}, aligned[3] = {0, 4, 8};
    for (int level = 0; level < LEVELS; level++)
        for (size_t shift = 0; shift < 4; shift++) {
            strided_streaming_case(&m, level, 11, odd, shift, ref);
            strided_streaming_case(&m, level, 12, aligned, shift, ref);
        }

    /* in place: positions at every shift, normals one float further, tangents aligned */
    for (int level = 0; level < LEVELS; level++)
        for (size_t shift = 0; shift < 4; shift++) {
            in_place_copy c[2];
            for (int way = 0; way < 2; way++) {
                c[way] = in_place_copy_make(&m, shift);
                mn_skin_job job = basic_job(m.count, m.ic, m.joints, m.weights, m.palette,
                                            m.palette_count, c[way].p.at, c[way].p.at);
                job.normals = job.out_normals = c[way].n.at;
                job.tangents = job.out_tangents = c[way].t.at;
                job.output_store = way ? MN_SKIN_STORE_STREAM : MN_SKIN_STORE_CACHED;
                assert_int_equal(mn_skin_run_with(&job, (mn_simd_level)level), MN_OK);
            }
            out_buf_assert_same(&c[0].p, &c[1].p);
            out_buf_assert_same(&c[0].n, &c[1].n);
            out_buf_assert_same(&c[0].t, &c[1].t);
            assert_agree(c[1].p.at, ref, 3 * n);
            assert_agree(c[1].n.at, ref + 3 * n, 3 * n);
            assert_agree(c[1].t.at, ref + 6 * n, 4 * n);
            for (int way = 0; way < 2; way++)
                out_buf_free(&c[way].p), out_buf_free(&c[way].n), out_buf_free(&c[way].t);
        }
    free(ref);
    random_mesh_free(&m);
}

/*
 * A large call (past MN_SKIN_STREAM_MIN_BYTES: the SIMD kernels prefetch) at
 * every level: the default (through the cache) and forced streaming give the
 * bytes of forced cached stores.
 */
static void default_store_of_a_large_call_gives_the_cached_bytes(void **state)
{
    (void)state;
    uint32_t count = MN_SKIN_STREAM_MIN_BYTES / 24 + 7; /* positions and normals: 24 bytes a vertex */
    random_mesh m = random_mesh_make(count, 4, 31u);
    const mn_skin_store ways[3] = {MN_SKIN_STORE_CACHED, MN_SKIN_STORE_DEFAULT,
                                   MN_SKIN_STORE_STREAM};
    for (int level = 0; level < LEVELS; level++) {
        out_buf out[3][2];
        for (int way = 0; way < 3; way++) {
            out[way][0] = out_buf_make(3 * (size_t)count, 1);
            out[way][1] = out_buf_make(3 * (size_t)count, 1);
            mn_skin_job job = basic_job(count, 4, m.joints, m.weights, m.palette,
                                        m.palette_count, m.positions, out[way][0].at);
            job.normals = m.normals, job.out_normals = out[way][1].at;
            job.output_store = ways[way];
            assert_int_equal(mn_skin_run_with(&job, (mn_simd_level)level), MN_OK);
        }
        for (int way = 1; way < 3; way++) {
            out_buf_assert_same(&out[0][0], &out[way][0]);
            out_buf_assert_same(&out[0][1], &out[way][1]);
        }
        for (int way = 0; way < 3; way++)
            out_buf_free(&out[way][0]), out_buf_free(&out[way][1]);
    }
    random_mesh_free(&m);
}

/* ---- detection and validation ---------------------------------------------------- */

static void detect_reports_a_level_that_runs(void **state)
{
    (void)state;
    mn_simd_level best = mn_simd_detect();
    /* (an MN_NO_SIMD library says SCALAR; the tests cannot see that option, so no more is asked) */
    assert_true(best >= MN_SIMD_SCALAR && best <= MN_SIMD_NEON);
    assert_int_equal(mn_simd_detect(), best);
    /* a level above the best falls back instead of failing */
    float palette[16];
    translation(palette, 1, 0, 0);
    const uint16_t joints[1] = {0};
    const float weights[1] = {1}, positions[3] = {0, 0, 0};
    float out[3];
    mn_skin_job job = basic_job(1, 1, joints, weights, palette, 1, positions, out);
    assert_int_equal(mn_skin_run_with(&job, (mn_simd_level)7), MN_OK);
    assert_int_equal(mn_skin_run(&job), MN_OK);
    assert_float_near(out[0], 1, 0);
}

static void validate_names_a_joint_beyond_the_palette(void **state)
{
    (void)state;
    float palette[32];
    translation(palette, 0, 0, 0);
    translation(palette + 16, 0, 0, 0);
    const uint16_t joints[8] = {0, 1, 0, 0, 1, 0, 2, 0}; /* vertex 1, influence 2: joint 2 */
    const float weights[8] = {1, 0, 0, 0, 1, 0, 0, 0}, positions[6] = {0};
    float out[6];
    mn_skin_job job = basic_job(2, 4, joints, weights, palette, 2, positions, out);
    mn_error err;
    assert_int_equal(mn_skin_job_validate(&job, &err), MN_INDEX_RANGE);
    assert_int_equal(err.code, MN_INDEX_RANGE);
    assert_non_null(strstr(err.message, "vertex 1"));
    assert_non_null(strstr(err.message, "influence 2"));
    job.palette_count = 3; /* (the matrices are never read by validate) */
    assert_int_equal(mn_skin_job_validate(&job, &err), MN_OK);
    assert_int_equal(err.code, MN_OK);
}

static void run_refuses_bad_jobs_without_writing(void **state)
{
    (void)state;
    float palette[16];
    translation(palette, 1, 0, 0);
    const uint16_t joints[1] = {0};
    const float weights[1] = {1}, positions[3] = {0, 0, 0}, normals[3] = {0, 0, 1};
    float out[4] = {7, 7, 7, 7};
    mn_error err;
    const mn_skin_job good = basic_job(1, 1, joints, weights, palette, 1, positions, out);

    mn_skin_job job = good;
    job.out_positions = NULL;
    assert_int_equal(mn_skin_run(&job), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_skin_job_validate(&job, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "out_positions"));

    job = good;
    job.normals = normals; /* no out_normals */
    assert_int_equal(mn_skin_run(&job), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_skin_job_validate(&job, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "out_normals"));

    job = good;
    job.tangents = normals; /* no out_tangents */
    assert_int_equal(mn_skin_run(&job), MN_INVALID_ARGUMENT);

    job = good;
    job.influence_count = 0;
    assert_int_equal(mn_skin_run(&job), MN_INVALID_ARGUMENT);

    job = good;
    job.position_stride = 2;
    assert_int_equal(mn_skin_job_validate(&job, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "position_stride"));
    job = good;
    job.out_tangent_stride = 3;
    assert_int_equal(mn_skin_run(&job), MN_INVALID_ARGUMENT);

    job = good;
    job.output_store = (mn_skin_store)3;
    assert_int_equal(mn_skin_run(&job), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_skin_job_validate(&job, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "output_store"));

    job = good;
    job.palette = NULL;
    assert_int_equal(mn_skin_run(&job), MN_INVALID_ARGUMENT);
    job = good;
    job.palette_count = 0;
    assert_int_equal(mn_skin_run(&job), MN_INVALID_ARGUMENT);
    job = good;
    job.joints = NULL;
    assert_int_equal(mn_skin_run(&job), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_skin_run(NULL), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_skin_job_validate(NULL, &err), MN_INVALID_ARGUMENT);

    const float untouched[4] = {7, 7, 7, 7};
    assert_vec_near(out, untouched, 4, 0);

    /* an empty job is valid and does nothing */
    job = good;
    job.vertex_count = 0;
    assert_int_equal(mn_skin_run(&job), MN_OK);
}

/* ---- the prepared mesh from shared assets -------------------------------------------- */

/* Every vertex's weights sum to 1 and every joint is below `joint_count`. */
static void assert_influences_normalised(const mn_deform_mesh *mesh, uint32_t joint_count)
{
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        float sum = 0;
        for (uint32_t k = 0; k < mesh->influence_count; k++) {
            sum += mesh->weights[v * mesh->influence_count + k];
            assert_true(mesh->joints[v * mesh->influence_count + k] < joint_count);
        }
        assert_float_near(sum, 1.0f, 1e-6);
    }
}

/* With identity matrices, skinning gives back the rest positions and unit normals. */
static void assert_identity_palette_keeps_rest(const mn_deform_mesh *mesh, uint32_t joint_count)
{
    size_t n = mesh->vertex_count;
    float *palette = malloc(sizeof(float) * 16 * joint_count);
    float *out_p = malloc(sizeof(float) * 3 * n), *out_n = malloc(sizeof(float) * 3 * n);
    assert_non_null(palette), assert_non_null(out_p), assert_non_null(out_n);
    for (uint32_t j = 0; j < joint_count; j++)
        mn_mat4_identity(palette + 16 * j);
    assert_int_equal(mn_deform_mesh_run(mesh, NULL, palette, joint_count, out_p, out_n, NULL), MN_OK);
    assert_vec_near(out_p, mesh->positions, 3 * n, 1e-5);
    if (mesh->normals)
        for (size_t v = 0; v < n; v++) {
            const float *q = out_n + 3 * v;
            assert_float_near(sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]), 1.0f, 1e-5);
        }
    /* a palette too small for the joints is refused */
    assert_int_equal(mn_deform_mesh_run(mesh, NULL, palette, 0, out_p, out_n, NULL),
                     MN_INVALID_ARGUMENT);
    free(palette), free(out_p), free(out_n);
}

static void deform_mesh_from_simple_skin(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *model = mn_test_load(mn_test_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf"));
    mn_deform_mesh *mesh = NULL;
    mn_error err;
    assert_int_equal(mn_deform_mesh_create(model, 0, 0, NULL, &mesh, &err), MN_OK);
    assert_int_equal(mesh->vertex_count, 10);
    assert_int_equal(mesh->influence_count, 4);
    assert_null(mesh->normals);
    assert_int_equal(mesh->target_count, 0);
    assert_influences_normalised(mesh, 2);
    assert_identity_palette_keeps_rest(mesh, 2);

    /* joint 1 moved up by 1: each vertex moves by its joint-1 weight */
    float palette[32], out[30];
    translation(palette, 0, 0, 0);
    translation(palette + 16, 0, 1, 0);
    assert_int_equal(mn_deform_mesh_run(mesh, NULL, palette, 2, out, NULL, NULL), MN_OK);
    for (uint32_t v = 0; v < 10; v++) {
        float w1 = 0;
        for (int k = 0; k < 4; k++)
            if (mesh->joints[4 * v + k] == 1)
                w1 += mesh->weights[4 * v + k];
        const float want[3] = {mesh->positions[3 * v], mesh->positions[3 * v + 1] + w1,
                               mesh->positions[3 * v + 2]};
        assert_vec_near(out + 3 * v, want, 3, 1e-6);
    }
    mn_deform_mesh_free(mesh);
    mn_model_free(model);
}

static void deform_mesh_from_cesium_man(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *model = mn_test_load(mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb"));
    mn_deform_mesh *mesh = NULL;
    assert_int_equal(mn_deform_mesh_create(model, 0, 0, NULL, &mesh, NULL), MN_OK);
    assert_int_equal(mesh->vertex_count, 3273);
    assert_int_equal(mesh->influence_count, 4);
    assert_non_null(mesh->normals);
    assert_null(mesh->tangents);
    assert_influences_normalised(mesh, 19);
    assert_identity_palette_keeps_rest(mesh, 19);
    mn_deform_mesh_free(mesh);
    mn_model_free(model);
}

static void deform_mesh_create_refuses_bad_indices(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *model = mn_test_load(mn_test_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf"));
    mn_deform_mesh *mesh = (mn_deform_mesh *)(uintptr_t)1;
    mn_error err;
    assert_int_equal(mn_deform_mesh_create(model, 1, 0, NULL, &mesh, &err), MN_INDEX_RANGE);
    assert_null(mesh);
    assert_int_equal(mn_deform_mesh_create(model, 0, 3, NULL, &mesh, &err), MN_INDEX_RANGE);
    assert_int_equal(mn_deform_mesh_create(NULL, 0, 0, NULL, &mesh, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_deform_mesh_run(NULL, NULL, NULL, 0, NULL, NULL, NULL), MN_INVALID_ARGUMENT);
    mn_deform_mesh_free(NULL);
    mn_model_free(model);
}

/* ---- allocation: one block per mesh, nothing per run ------------------------------- */

static void deform_mesh_run_allocates_nothing(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *model = mn_test_load(mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb"));
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_deform_mesh *mesh = NULL;
    assert_int_equal(mn_deform_mesh_create(model, 0, 0, &hooks, &mesh, NULL), MN_OK);
    /* the mesh is one block; the conversion scratch is already returned */
    assert_int_equal(counter.allocs - counter.frees, 1);

    size_t n = mesh->vertex_count;
    float palette[19 * 16];
    for (int j = 0; j < 19; j++)
        translation(palette + 16 * j, 0.1f * (float)j, 0, 0);
    float *out_p = malloc(sizeof(float) * 3 * n), *out_n = malloc(sizeof(float) * 3 * n);
    assert_non_null(out_p), assert_non_null(out_n);
    size_t allocs = counter.allocs;
    for (int frame = 0; frame < 3; frame++) {
        assert_int_equal(mn_deform_mesh_run(mesh, NULL, palette, 19, out_p, out_n, NULL), MN_OK);
        assert_int_equal(mn_deform_mesh_run(mesh, NULL, NULL, 0, out_p, out_n, NULL), MN_OK);
    }
    assert_int_equal(counter.allocs, allocs);

    mn_deform_mesh_free(mesh);
    assert_int_equal(counter.live_bytes, 0);
    free(out_p), free(out_n);
    mn_model_free(model);
}

static void deform_mesh_create_out_of_memory_leaks_nothing(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *model = mn_test_load(mn_test_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf"));
    for (long fail_after = 0; fail_after < 2; fail_after++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = fail_after;
        mn_allocator hooks = mn_counting_allocator(&counter);
        mn_deform_mesh *mesh = NULL;
        mn_error err;
        assert_int_equal(mn_deform_mesh_create(model, 0, 0, &hooks, &mesh, &err), MN_OUT_OF_MEMORY);
        assert_null(mesh);
        assert_int_equal(counter.live_bytes, 0);
    }
    mn_model_free(model);
}

/* ---- two influence sets, built byte by byte ---------------------------------------- */

/*
 * Three vertices, JOINTS_0 (u16) + WEIGHTS_0 (f32) and JOINTS_1 (u8) +
 * WEIGHTS_1 (normalised u8), a four-joint skin:
 *   v0: set 0 joints 0,1 weights .5,.5; set 1 joint 3 weight 1 → sum 2, so .25 .25 | .5
 *   v1: set 0 joint 2 weight .2, set 1 nothing → sum .2, so joint 2 gets 1
 *   v2: every weight zero → [1, 0, 0, 0, 0, 0, 0, 0] on its first joint (0)
 * and one morph target moving every vertex by (0, 0, 1).
 */
static mn_model *two_set_model(gb_builder *b, gb_blob *glb)
{
    gb_init(b);
    size_t pos = gb_bin_f32(b, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    size_t nrm = gb_bin_f32(b, 0, 0, 1, 0, 0, 1, 0, 0, 1);
    size_t j0 = gb_bin_u16(b, 0, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0);
    size_t w0 = gb_bin_f32(b, 0.5f, 0.5f, 0, 0, 0.2f, 0, 0, 0, 0, 0, 0, 0);
    size_t j1 = gb_bin_u8(b, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    size_t w1 = gb_bin_u8(b, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    size_t dp = gb_bin_f32(b, 0, 0, 1, 0, 0, 1, 0, 0, 1);
    gb_json(b,
            "{'asset':{'version':'2.0'},'scene':0,'scenes':[{'nodes':[0,1]}],"
            "'nodes':[{'mesh':0,'skin':0},{'children':[2,3,4]},{},{},{}],"
            "'skins':[{'joints':[1,2,3,4]}],"
            "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'NORMAL':1,'JOINTS_0':2,"
            "'WEIGHTS_0':3,'JOINTS_1':4,'WEIGHTS_1':5},'targets':[{'POSITION':6}]}]}],"
            "'buffers':[{'byteLength':%zu}],"
            "'bufferViews':[{'buffer':0,'byteOffset':%zu,'byteLength':36},"
            "{'buffer':0,'byteOffset':%zu,'byteLength':36},"
            "{'buffer':0,'byteOffset':%zu,'byteLength':24},"
            "{'buffer':0,'byteOffset':%zu,'byteLength':48},"
            "{'buffer':0,'byteOffset':%zu,'byteLength':12},"
            "{'buffer':0,'byteOffset':%zu,'byteLength':12},"
            "{'buffer':0,'byteOffset':%zu,'byteLength':36}],"
            "'accessors':[{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3',"
            "'min':[0,0,0],'max':[1,1,0]},"
            "{'bufferView':1,'componentType':5126,'count':3,'type':'VEC3'},"
            "{'bufferView':2,'componentType':5123,'count':3,'type':'VEC4'},"
            "{'bufferView':3,'componentType':5126,'count':3,'type':'VEC4'},"
            "{'bufferView':4,'componentType':5121,'count':3,'type':'VEC4'},"
            "{'bufferView':5,'componentType':5121,'normalized':true,'count':3,'type':'VEC4'},"
            "{'bufferView':6,'componentType':5126,'count':3,'type':'VEC3'}]}",
            gb_bin_size(b), pos, nrm, j0, w0, j1, w1, dp);
    *glb = gb_glb(b);
    mn_model *model = NULL;
    mn_error err;
    mn_status st = mn_gltf_read_memory(glb->data, glb->size, NULL, &model, &err);
    if (st != MN_OK)
        print_error("two-set model: %s\n", err.message);
    assert_int_equal(st, MN_OK);
    return model;
}

static void deform_mesh_merges_two_influence_sets(void **state)
{
    (void)state;
    gb_builder b;
    gb_blob glb;
    mn_model *model = two_set_model(&b, &glb);
    mn_deform_mesh *mesh = NULL;
    assert_int_equal(mn_deform_mesh_create(model, 0, 0, NULL, &mesh, NULL), MN_OK);
    assert_int_equal(mesh->influence_count, 8);
    const uint16_t want_j[24] = {0, 1, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
                                 0, 0, 0, 0, 0, 0, 0, 0};
    const float want_w[24] = {0.25f, 0.25f, 0, 0, 0.5f, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
                              1, 0, 0, 0, 0, 0, 0, 0};
    assert_memory_equal(mesh->joints, want_j, sizeof want_j);
    assert_vec_near(mesh->weights, want_w, 24, 1e-7);

    float palette[64], out_p[9], out_n[9];
    translation(palette, 1, 0, 0);
    translation(palette + 16, 0, 1, 0);
    translation(palette + 32, 0, 0, 1);
    translation(palette + 48, 2, 2, 2);
    assert_int_equal(mn_deform_mesh_run(mesh, NULL, palette, 4, out_p, out_n, NULL), MN_OK);
    const float want_p[9] = {1.25f, 1.25f, 1, 1, 0, 1, 1, 1, 0};
    const float want_n[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    assert_vec_near(out_p, want_p, 9, 1e-6);
    assert_vec_near(out_n, want_n, 9, 1e-6);
    assert_int_equal(mn_deform_mesh_run(mesh, NULL, palette, 3, out_p, out_n, NULL),
                     MN_INVALID_ARGUMENT); /* joint 3 needs four matrices */

    /* morphed first, then skinned (in place in the outputs): translations add to the delta */
    const float morph[1] = {0.5f};
    assert_int_equal(mn_deform_mesh_run(mesh, morph, palette, 4, out_p, out_n, NULL), MN_OK);
    const float want_mp[9] = {1.25f, 1.25f, 1.5f, 1, 0, 1.5f, 1, 1, 0.5f};
    assert_vec_near(out_p, want_mp, 9, 1e-6);
    assert_vec_near(out_n, want_n, 9, 1e-6);

    mn_deform_mesh_free(mesh);
    mn_model_free(model);
    gb_blob_free(&glb);
    gb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_joint_translation_moves_position_not_normal),
        cmocka_unit_test(two_joints_half_and_half_blend_translations),
        cmocka_unit_test(normals_are_renormalised_under_non_uniform_scale),
        cmocka_unit_test(tangent_xyz_rotates_and_w_is_kept),
        cmocka_unit_test(zero_length_normal_stays_zero),
        cmocka_unit_test(extreme_direction_lengths_agree_with_reference),
        cmocka_unit_test(eight_influences_average_eight_translations),
        cmocka_unit_test(sse2_and_avx2_agree_with_scalar_4_influences),
        cmocka_unit_test(sse2_and_avx2_agree_with_scalar_8_influences),
        cmocka_unit_test(sse2_and_avx2_agree_with_scalar_other_influence_counts),
        cmocka_unit_test(every_count_reads_only_inside_the_streams),
        cmocka_unit_test(strided_and_in_place_agree_with_packed),
        cmocka_unit_test(packed_in_place_agrees_with_out_of_place),
        cmocka_unit_test(streaming_stores_give_the_cached_bytes_packed_at_every_alignment),
        cmocka_unit_test(streaming_stores_give_the_cached_bytes_strided_and_in_place),
        cmocka_unit_test(default_store_of_a_large_call_gives_the_cached_bytes),
        cmocka_unit_test(detect_reports_a_level_that_runs),
        cmocka_unit_test(validate_names_a_joint_beyond_the_palette),
        cmocka_unit_test(run_refuses_bad_jobs_without_writing),
        cmocka_unit_test(deform_mesh_from_simple_skin),
        cmocka_unit_test(deform_mesh_from_cesium_man),
        cmocka_unit_test(deform_mesh_create_refuses_bad_indices),
        cmocka_unit_test(deform_mesh_run_allocates_nothing),
        cmocka_unit_test(deform_mesh_create_out_of_memory_leaks_nothing),
        cmocka_unit_test(deform_mesh_merges_two_influence_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
