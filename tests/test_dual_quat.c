/*
 * Dual-quaternion skinning (src/deform/dual_quat*.c): rigid palettes give
 * linear blending's vertices, the antipodality fix, the 180-degree twisted
 * cylinder (LBS collapses its middle, DQS keeps the radius), the SIMD kernels
 * against the scalar reference (SSE2 bit for bit, AVX2+FMA within 4e-6
 * relative to max(1, |value|), normals and tangents of any length), unit
 * normals and tangents, the refusal of non-uniform scale, shear and mirrors
 * naming the joint, uniform scale,
 * prepared meshes and instances opting in, and zero allocations per run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/gltf.h>
#include <marionette/instance.h>
#include <marionette/math.h>
#include <marionette/model.h>
#include <marionette/skin.h>

#include "assert_near.h"
#include "assets.h"
#include "counting_alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LEVELS 3          /* scalar, SSE2, AVX2+FMA (a level the CPU lacks falls back) */
#define DQF MN_SKIN_DQ_FLOATS
#define PI_F 3.14159265358979f

/* The AVX2+FMA kernel's promise against the reference (skin.h). */
#define SIMD_TOL 4e-6f

/* ---- helpers ------------------------------------------------------------------ */

static uint32_t rng;
static float frand(float lo, float hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return lo + (hi - lo) * (float)(rng >> 8) * (1.0f / 16777216.0f);
}

/* A rotation of up to max_angle about a random axis, uniform scale s, a translation. */
static void random_rigid(float m[16], float max_angle, float s)
{
    float axis[3] = {frand(-1, 1), frand(-1, 1), frand(-1, 1) + 0.01f}, q[4];
    mn_quat_from_axis_angle(q, axis, frand(-max_angle, max_angle));
    float t[3] = {frand(-1, 1), frand(-1, 1), frand(-1, 1)}, sc[3] = {s, s, s};
    mn_mat4_compose(m, t, q, sc);
}

/* Streams of a random mesh: n vertices, ic influences on joints below jc. */
typedef struct test_mesh {
    uint32_t n, ic, jc;
    uint16_t *joints;
    float *weights, *pos, *nrm, *tan;
} test_mesh;

static test_mesh random_mesh(uint32_t n, uint32_t ic, uint32_t jc, bool one_influence)
{
    test_mesh m = {n, ic, jc, malloc(sizeof(uint16_t) * n * ic), malloc(sizeof(float) * n * ic),
              malloc(sizeof(float) * 3 * n), malloc(sizeof(float) * 3 * n),
              malloc(sizeof(float) * 4 * n)};
    assert_non_null(m.joints), assert_non_null(m.weights), assert_non_null(m.pos);
    assert_non_null(m.nrm), assert_non_null(m.tan);
    for (uint32_t v = 0; v < n; v++) {
        float sum = 0;
        for (uint32_t k = 0; k < ic; k++) {
            m.joints[v * ic + k] = (uint16_t)((v / 3 + k * 2) % jc);
            m.weights[v * ic + k] = one_influence ? (k == 0) : frand(0, 1);
            sum += m.weights[v * ic + k];
        }
        for (uint32_t k = 0; k < ic; k++)
            m.weights[v * ic + k] /= sum;
        float d[3] = {frand(-1, 1), frand(-1, 1), frand(-1, 1) + 0.01f};
        float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int i = 0; i < 3; i++) {
            m.pos[3 * v + i] = frand(-2, 2);
            m.nrm[3 * v + i] = d[i] / len;
        }
        /* a tangent perpendicular to the normal */
        float t[3] = {d[1], -d[0], 0};
        float tl = sqrtf(t[0] * t[0] + t[1] * t[1]) + 1e-9f;
        m.tan[4 * v] = t[0] / tl, m.tan[4 * v + 1] = t[1] / tl, m.tan[4 * v + 2] = 0;
        m.tan[4 * v + 3] = v % 2 ? 1.0f : -1.0f;
    }
    return m;
}

static void mesh_free(test_mesh *m)
{
    free(m->joints), free(m->weights), free(m->pos), free(m->nrm), free(m->tan);
}

/* A job over m's streams into op/on/ot (normals and tangents when given). */
static mn_skin_job job_of(const test_mesh *m, const float *palette, float *op, float *on, float *ot)
{
    mn_skin_job job;
    memset(&job, 0, sizeof job);
    job.vertex_count = m->n;
    job.influence_count = m->ic;
    job.joints = m->joints;
    job.weights = m->weights;
    job.palette = palette;
    job.palette_count = m->jc;
    job.positions = m->pos;
    job.out_positions = op;
    if (on)
        job.normals = m->nrm, job.out_normals = on;
    if (ot)
        job.tangents = m->tan, job.out_tangents = ot;
    return job;
}

/* |a - b| <= tol × max(1, |b|) for every float. */
static void assert_rel_near(const float *a, const float *b, size_t n, float tol)
{
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(a[i] - b[i]) <= tol * fmaxf(1.0f, fabsf(b[i])))) {
            print_error("float %zu: %.9g, want %.9g (tolerance %.3g relative)\n", i, (double)a[i],
                        (double)b[i], (double)tol);
            fail();
        }
}

static float *floats(size_t n)
{
    float *p = calloc(n, sizeof(float));
    assert_non_null(p);
    return p;
}

/* ---- rigid palettes: DQS is LBS ------------------------------------------------------ */

/* Each vertex bound to one joint (the others at weight 0): both methods move it rigidly. */
static void rigid_single_influence_matches_lbs(void **state)
{
    (void)state;
    rng = 11;
    for (int scaled = 0; scaled < 2; scaled++) {
        test_mesh m = random_mesh(203, 4, 9, true);
        float palette[9 * 16], dq[9 * DQF];
        for (uint32_t j = 0; j < m.jc; j++)
            random_rigid(palette + 16 * j, PI_F, scaled ? 0.5f + 0.25f * (float)j : 1.0f);
        assert_int_equal(mn_skin_dual_quats(palette, m.jc, dq, NULL), MN_OK);
        float *lp = floats(3 * m.n), *ln = floats(3 * m.n), *lt = floats(4 * m.n);
        float *dp = floats(3 * m.n), *dn = floats(3 * m.n), *dt = floats(4 * m.n);
        mn_skin_job lbs = job_of(&m, palette, lp, ln, lt);
        assert_int_equal(mn_skin_run_with(&lbs, MN_SIMD_SCALAR), MN_OK);
        for (int level = 0; level < LEVELS; level++) {
            mn_skin_job job = job_of(&m, NULL, dp, dn, dt);
            assert_int_equal(mn_skin_dq_run_with(&job, dq, (mn_simd_level)level), MN_OK);
            assert_rel_near(dp, lp, 3 * m.n, 1e-5f);
            assert_rel_near(dn, ln, 3 * m.n, 1e-5f);
            assert_rel_near(dt, lt, 4 * m.n, 1e-5f);
        }
        free(lp), free(ln), free(lt), free(dp), free(dn), free(dt);
        mesh_free(&m);
    }
}

/* Every joint the same rigid transform, weights random: the blend is that transform. */
static void rigid_shared_transform_matches_lbs(void **state)
{
    (void)state;
    rng = 12;
    test_mesh m = random_mesh(77, 8, 5, false);
    float one[16], palette[5 * 16], dq[5 * DQF];
    random_rigid(one, PI_F, 1.0f);
    for (uint32_t j = 0; j < m.jc; j++)
        memcpy(palette + 16 * j, one, sizeof one);
    assert_int_equal(mn_skin_dual_quats(palette, m.jc, dq, NULL), MN_OK);
    float *lp = floats(3 * m.n), *ln = floats(3 * m.n), *dp = floats(3 * m.n), *dn = floats(3 * m.n);
    mn_skin_job lbs = job_of(&m, palette, lp, ln, NULL);
    assert_int_equal(mn_skin_run(&lbs), MN_OK);
    for (int level = 0; level < LEVELS; level++) {
        mn_skin_job job = job_of(&m, NULL, dp, dn, NULL);
        assert_int_equal(mn_skin_dq_run_with(&job, dq, (mn_simd_level)level), MN_OK);
        assert_rel_near(dp, lp, 3 * m.n, 1e-5f);
        assert_rel_near(dn, ln, 3 * m.n, 1e-5f);
    }
    free(lp), free(ln), free(dp), free(dn);
    mesh_free(&m);
}

/* ---- the antipodality fix ------------------------------------------------------------- */

/* The conversion puts every joint in joint 0's hemisphere. */
static void joints_share_joint_0s_hemisphere(void **state)
{
    (void)state;
    rng = 21;
    float palette[20 * 16], dq[20 * DQF];
    for (uint32_t j = 0; j < 20; j++)
        random_rigid(palette + 16 * j, 0.9f * PI_F, 1.0f);
    assert_int_equal(mn_skin_dual_quats(palette, 20, dq, NULL), MN_OK);
    assert_true(dq[3] >= 0);
    for (uint32_t j = 1; j < 20; j++) {
        const float *q = dq + DQF * j;
        assert_true((dq[0] * q[0] + dq[1] * q[1]) + (dq[2] * q[2] + dq[3] * q[3]) >= 0);
    }
}

static void negated_joint_gives_the_same_vertices(void **state)
{
    (void)state;
    rng = 13;
    test_mesh m = random_mesh(61, 4, 6, false);
    float palette[6 * 16], dq[6 * DQF], flipped[6 * DQF];
    for (uint32_t j = 0; j < m.jc; j++)
        random_rigid(palette + 16 * j, 0.6f, 1.0f);
    assert_int_equal(mn_skin_dual_quats(palette, m.jc, dq, NULL), MN_OK);
    memcpy(flipped, dq, sizeof dq);
    for (uint32_t j = 0; j < m.jc; j += 2) /* joints 0, 2, 4: first influences and others */
        for (int i = 0; i < 8; i++)
            flipped[DQF * j + i] = -flipped[DQF * j + i];
    float *a = floats(3 * m.n), *an = floats(3 * m.n), *b = floats(3 * m.n), *bn = floats(3 * m.n);
    for (int level = 0; level < LEVELS; level++) {
        mn_skin_job ja = job_of(&m, NULL, a, an, NULL), jb = job_of(&m, NULL, b, bn, NULL);
        assert_int_equal(mn_skin_dq_run_with(&ja, dq, (mn_simd_level)level), MN_OK);
        assert_int_equal(mn_skin_dq_run_with(&jb, flipped, (mn_simd_level)level), MN_OK);
        /* (−w)(−q) is w·q exactly, so the bits agree */
        assert_memory_equal(a, b, 3 * m.n * sizeof(float));
        assert_memory_equal(an, bn, 3 * m.n * sizeof(float));
    }
    /* without the fix the blend of a joint and its negation would cancel: here it is a rotation */
    free(a), free(an), free(b), free(bn);
    mesh_free(&m);
}

/* ---- the twisted cylinder ----------------------------------------------------------------- */

#define RINGS 21
#define AROUND 16
#define LENGTH 4.0f

/*
 * A cylinder of radius 1 along +x from 0 to LENGTH, joint 0 at rest and
 * joint 1 twisted 180 degrees about the axis, each vertex weighted by where
 * it lies (joint 1's weight x / LENGTH), four influences a vertex.
 */
static test_mesh twisted_cylinder(float palette[2 * 16])
{
    test_mesh m = random_mesh(RINGS * AROUND, 4, 2, false);
    for (uint32_t r = 0; r < RINGS; r++)
        for (uint32_t a = 0; a < AROUND; a++) {
            uint32_t v = r * AROUND + a;
            float x = LENGTH * (float)r / (RINGS - 1), ang = 2 * PI_F * (float)a / AROUND;
            float p[3] = {x, cosf(ang), sinf(ang)};
            memcpy(m.pos + 3 * v, p, sizeof p);
            m.nrm[3 * v] = 0, m.nrm[3 * v + 1] = p[1], m.nrm[3 * v + 2] = p[2];
            m.tan[4 * v] = 0, m.tan[4 * v + 1] = -p[2], m.tan[4 * v + 2] = p[1], m.tan[4 * v + 3] = 1;
            float w1 = x / LENGTH;
            const float w[4] = {1 - w1, w1, 0, 0};
            const uint16_t j[4] = {0, 1, 0, 0};
            memcpy(m.weights + 4 * v, w, sizeof w);
            memcpy(m.joints + 4 * v, j, sizeof j);
        }
    float axis[3] = {1, 0, 0}, q[4], t[3] = {0, 0, 0}, s[3] = {1, 1, 1};
    mn_mat4_identity(palette);
    mn_quat_from_axis_angle(q, axis, PI_F);
    mn_mat4_compose(palette + 16, t, q, s);
    return m;
}

/* The smallest and largest distance of a vertex from the x axis. */
static void radius_range(const float *p, size_t n, float *lo, float *hi)
{
    *lo = INFINITY, *hi = 0;
    for (size_t v = 0; v < n; v++) {
        float r = sqrtf(p[3 * v + 1] * p[3 * v + 1] + p[3 * v + 2] * p[3 * v + 2]);
        *lo = fminf(*lo, r), *hi = fmaxf(*hi, r);
    }
}

static void twisted_cylinder_keeps_its_radius(void **state)
{
    (void)state;
    rng = 14;
    float palette[2 * 16], dq[2 * DQF];
    test_mesh m = twisted_cylinder(palette);
    assert_int_equal(mn_skin_dual_quats(palette, 2, dq, NULL), MN_OK);
    float *p = floats(3 * m.n), *n = floats(3 * m.n), *t = floats(4 * m.n), lo, hi;

    /* LBS: the middle ring's matrix is ½(I + Rx(180°)) = diag(1, 0, 0): it collapses to the axis */
    mn_skin_job lbs = job_of(&m, palette, p, NULL, NULL);
    assert_int_equal(mn_skin_run(&lbs), MN_OK);
    radius_range(p + 3 * (RINGS / 2) * AROUND, AROUND, &lo, &hi);
    assert_true(hi < 0.01f);

    for (int level = 0; level < LEVELS; level++) {
        mn_skin_job job = job_of(&m, NULL, p, n, t);
        assert_int_equal(mn_skin_dq_run_with(&job, dq, (mn_simd_level)level), MN_OK);
        radius_range(p, m.n, &lo, &hi);
        assert_true(lo > 0.99f && hi < 1.01f); /* 1% asked; it holds to float rounding: */
        assert_float_near(lo, 1, 1e-5);
        assert_float_near(hi, 1, 1e-5);
        for (uint32_t v = 0; v < m.n; v++) {
            /* x stays, the normal stays radial and the tangent round the axis */
            assert_float_near(p[3 * v], m.pos[3 * v], 1e-5);
            float r = sqrtf(p[3 * v + 1] * p[3 * v + 1] + p[3 * v + 2] * p[3 * v + 2]);
            assert_float_near((p[3 * v + 1] * n[3 * v + 1] + p[3 * v + 2] * n[3 * v + 2]) / r, 1, 1e-5);
            assert_float_near(p[3 * v + 1] * t[4 * v + 1] + p[3 * v + 2] * t[4 * v + 2], 0, 1e-5);
            assert_float_near(t[4 * v + 3], 1, 0);
        }
        /* the middle ring turned by 90 degrees (which way is a 180-degree joint's sign) */
        for (uint32_t a = 0; a < AROUND; a++) {
            uint32_t mid = (RINGS / 2) * AROUND + a;
            float ang = 2 * PI_F * (float)a / AROUND;
            assert_float_near(p[3 * mid + 1] * cosf(ang) + p[3 * mid + 2] * sinf(ang), 0, 1e-5);
        }
    }
    free(p), free(n), free(t);
    mesh_free(&m);
}

/* ---- SIMD against the reference ---------------------------------------------------------- */

/*
 * Random blends of nearby rotations (half a radian apart at most, as a real
 * mesh's neighbouring joints are), with and without per-joint scales, 4 and
 * 8 influences, every count from 1 to 40 (every tail of a group), in place
 * and strided.  SSE2 gives the reference's bits; AVX2+FMA agrees within
 * SIMD_TOL.
 */
static void simd_matches_reference(void **state)
{
    (void)state;
    rng = 15;
    for (int scaled = 0; scaled < 2; scaled++)
        for (uint32_t ic = 4; ic <= 8; ic += 4)
            for (uint32_t n = 1; n <= 40; n++) {
                test_mesh m = random_mesh(n, ic, 12, false);
                float palette[12 * 16], dq[12 * DQF];
                for (uint32_t j = 0; j < m.jc; j++)
                    random_rigid(palette + 16 * j, 0.5f, scaled ? frand(0.8f, 1.2f) : 1.0f);
                assert_int_equal(mn_skin_dual_quats(palette, m.jc, dq, NULL), MN_OK);
                /* odd counts: every third joint negated, so the hemisphere tests flip some */
                for (uint32_t j = 1; n % 2 && j < m.jc; j += 3)
                    for (int i = 0; i < 8; i++)
                        dq[DQF * j + i] = -dq[DQF * j + i];
                float *rp = floats(3 * n), *rn = floats(3 * n), *rt = floats(4 * n);
                float *sp = floats(3 * n), *sn = floats(3 * n), *st = floats(4 * n);
                mn_skin_job ref = job_of(&m, NULL, rp, rn, rt);
                assert_int_equal(mn_skin_dq_run_with(&ref, dq, MN_SIMD_SCALAR), MN_OK);
                for (int level = 1; level < LEVELS; level++) {
                    mn_skin_job job = job_of(&m, NULL, sp, sn, st);
                    assert_int_equal(mn_skin_dq_run_with(&job, dq, (mn_simd_level)level), MN_OK);
                    if (mn_simd_detect() >= MN_SIMD_SSE2 && level == MN_SIMD_SSE2) {
                        assert_memory_equal(sp, rp, 3 * n * sizeof(float));
                        assert_memory_equal(sn, rn, 3 * n * sizeof(float));
                        assert_memory_equal(st, rt, 4 * n * sizeof(float));
                    }
                    assert_rel_near(sp, rp, 3 * n, SIMD_TOL);
                    assert_rel_near(sn, rn, 3 * n, SIMD_TOL);
                    assert_rel_near(st, rt, 4 * n, SIMD_TOL);
                }
                /* in place: the outputs are the inputs */
                for (int level = 0; level < LEVELS; level++) {
                    test_mesh c = random_mesh(n, ic, 12, false);
                    memcpy(c.joints, m.joints, sizeof(uint16_t) * n * ic);
                    memcpy(c.weights, m.weights, sizeof(float) * n * ic);
                    memcpy(c.pos, m.pos, sizeof(float) * 3 * n);
                    memcpy(c.nrm, m.nrm, sizeof(float) * 3 * n);
                    memcpy(c.tan, m.tan, sizeof(float) * 4 * n);
                    mn_skin_job job = job_of(&c, NULL, c.pos, c.nrm, c.tan);
                    assert_int_equal(mn_skin_dq_run_with(&job, dq, (mn_simd_level)level), MN_OK);
                    assert_rel_near(c.pos, rp, 3 * n, SIMD_TOL);
                    assert_rel_near(c.nrm, rn, 3 * n, SIMD_TOL);
                    assert_rel_near(c.tan, rt, 4 * n, SIMD_TOL);
                    mesh_free(&c);
                }
                free(rp), free(rn), free(rt), free(sp), free(sn), free(st);
                mesh_free(&m);
            }
}

/*
 * Normals and tangents of any length, zero included, come out unit (zero
 * stays zero) as the reference's at every level: AVX2 divides by the input's
 * length, which a rotation keeps, where the reference divides by the output's.
 */
static void simd_normalises_any_length(void **state)
{
    (void)state;
    rng = 19;
    const uint32_t n = 37;
    static const float lengths[] = {0.0f, 1e-3f, 1.0f, 7.5f, 300.0f};
    test_mesh m = random_mesh(n, 4, 9, false);
    float palette[9 * 16], dq[9 * DQF];
    for (uint32_t j = 0; j < m.jc; j++)
        random_rigid(palette + 16 * j, 0.5f, frand(0.8f, 1.2f));
    assert_int_equal(mn_skin_dual_quats(palette, m.jc, dq, NULL), MN_OK);
    for (uint32_t v = 0; v < n; v++) {
        float k = lengths[v % 5];
        for (int i = 0; i < 3; i++)
            m.nrm[3 * v + i] *= k, m.tan[4 * v + i] *= lengths[(v + 2) % 5];
    }
    float *rp = floats(3 * n), *rn = floats(3 * n), *rt = floats(4 * n);
    float *sp = floats(3 * n), *sn = floats(3 * n), *st = floats(4 * n);
    mn_skin_job ref = job_of(&m, NULL, rp, rn, rt);
    assert_int_equal(mn_skin_dq_run_with(&ref, dq, MN_SIMD_SCALAR), MN_OK);
    for (int level = 1; level < LEVELS; level++) {
        mn_skin_job job = job_of(&m, NULL, sp, sn, st);
        assert_int_equal(mn_skin_dq_run_with(&job, dq, (mn_simd_level)level), MN_OK);
        assert_rel_near(sp, rp, 3 * n, SIMD_TOL);
        assert_rel_near(sn, rn, 3 * n, SIMD_TOL);
        assert_rel_near(st, rt, 4 * n, SIMD_TOL);
        for (uint32_t v = 0; v < n; v++) {
            float ln = sqrtf(sn[3 * v] * sn[3 * v] + sn[3 * v + 1] * sn[3 * v + 1] +
                             sn[3 * v + 2] * sn[3 * v + 2]);
            assert_float_near(ln, v % 5 == 0 ? 0.0f : 1.0f, 1e-5);
        }
    }
    free(rp), free(rn), free(rt), free(sp), free(sn), free(st);
    mesh_free(&m);
}

/* Strided streams: the floats between strides are left alone, values as packed. */
static void strided_streams_match_packed(void **state)
{
    (void)state;
    rng = 16;
    const uint32_t n = 29, ps = 5, ns = 7, ts = 6;
    test_mesh m = random_mesh(n, 4, 7, false);
    float palette[7 * 16], dq[7 * DQF];
    for (uint32_t j = 0; j < m.jc; j++)
        random_rigid(palette + 16 * j, 0.5f, 1.0f);
    assert_int_equal(mn_skin_dual_quats(palette, m.jc, dq, NULL), MN_OK);
    float *rp = floats(3 * n), *rn = floats(3 * n), *rt = floats(4 * n);
    mn_skin_job ref = job_of(&m, NULL, rp, rn, rt);
    assert_int_equal(mn_skin_dq_run_with(&ref, dq, MN_SIMD_SCALAR), MN_OK);
    float *ip = floats(ps * n), *in = floats(ns * n), *it = floats(ts * n);
    float *op = floats(ps * n), *on = floats(ns * n), *ot = floats(ts * n);
    for (uint32_t v = 0; v < n; v++) {
        memcpy(ip + ps * v, m.pos + 3 * v, 12), memcpy(in + ns * v, m.nrm + 3 * v, 12);
        memcpy(it + ts * v, m.tan + 4 * v, 16);
    }
    for (int level = 0; level < LEVELS; level++) {
        for (uint32_t i = 0; i < ps * n; i++)
            op[i] = 7;
        for (uint32_t i = 0; i < ns * n; i++)
            on[i] = 7;
        for (uint32_t i = 0; i < ts * n; i++)
            ot[i] = 7;
        mn_skin_job job = job_of(&m, NULL, op, on, ot);
        job.positions = ip, job.normals = in, job.tangents = it;
        job.position_stride = job.out_position_stride = ps;
        job.normal_stride = job.out_normal_stride = ns;
        job.tangent_stride = job.out_tangent_stride = ts;
        assert_int_equal(mn_skin_dq_run_with(&job, dq, (mn_simd_level)level), MN_OK);
        for (uint32_t v = 0; v < n; v++) {
            assert_rel_near(op + ps * v, rp + 3 * v, 3, SIMD_TOL);
            assert_rel_near(on + ns * v, rn + 3 * v, 3, SIMD_TOL);
            assert_rel_near(ot + ts * v, rt + 4 * v, 4, SIMD_TOL);
            for (uint32_t i = 3; i < ps; i++)
                assert_float_near(op[ps * v + i], 7, 0);
            for (uint32_t i = 3; i < ns; i++)
                assert_float_near(on[ns * v + i], 7, 0);
            for (uint32_t i = 4; i < ts; i++)
                assert_float_near(ot[ts * v + i], 7, 0);
        }
    }
    free(rp), free(rn), free(rt), free(ip), free(in), free(it), free(op), free(on), free(ot);
    mesh_free(&m);
}

/* Influence counts that are not a multiple of 4 run the reference at every level. */
static void odd_influence_counts_run(void **state)
{
    (void)state;
    rng = 17;
    for (uint32_t ic = 1; ic <= 6; ic++) {
        if (ic == 4)
            continue;
        test_mesh m = random_mesh(19, ic, 5, false);
        float palette[5 * 16], dq[5 * DQF];
        for (uint32_t j = 0; j < m.jc; j++)
            random_rigid(palette + 16 * j, 0.5f, 1.0f);
        assert_int_equal(mn_skin_dual_quats(palette, m.jc, dq, NULL), MN_OK);
        float *a = floats(3 * m.n), *b = floats(3 * m.n);
        mn_skin_job ja = job_of(&m, NULL, a, NULL, NULL), jb = job_of(&m, NULL, b, NULL, NULL);
        assert_int_equal(mn_skin_dq_run_with(&ja, dq, MN_SIMD_SCALAR), MN_OK);
        assert_int_equal(mn_skin_dq_run(&jb, dq), MN_OK);
        assert_memory_equal(a, b, 3 * m.n * sizeof(float));
        free(a), free(b);
        mesh_free(&m);
    }
}

/* ---- normals and tangents ---------------------------------------------------------------- */

static void normals_and_tangents_stay_unit(void **state)
{
    (void)state;
    rng = 18;
    test_mesh m = random_mesh(150, 4, 10, false);
    float palette[10 * 16], dq[10 * DQF];
    for (uint32_t j = 0; j < m.jc; j++)
        random_rigid(palette + 16 * j, PI_F, frand(0.5f, 2.0f)); /* wide rotations, scaled */
    assert_int_equal(mn_skin_dual_quats(palette, m.jc, dq, NULL), MN_OK);
    float *p = floats(3 * m.n), *n = floats(3 * m.n), *t = floats(4 * m.n);
    for (int level = 0; level < LEVELS; level++) {
        mn_skin_job job = job_of(&m, NULL, p, n, t);
        assert_int_equal(mn_skin_dq_run_with(&job, dq, (mn_simd_level)level), MN_OK);
        for (uint32_t v = 0; v < m.n; v++) {
            float ln = sqrtf(n[3 * v] * n[3 * v] + n[3 * v + 1] * n[3 * v + 1] + n[3 * v + 2] * n[3 * v + 2]);
            float lt = sqrtf(t[4 * v] * t[4 * v] + t[4 * v + 1] * t[4 * v + 1] + t[4 * v + 2] * t[4 * v + 2]);
            assert_float_near(ln, 1, 1e-6);
            assert_float_near(lt, 1, 1e-6);
            /* a rotation keeps the tangent perpendicular to the normal, and w */
            assert_float_near(n[3 * v] * t[4 * v] + n[3 * v + 1] * t[4 * v + 1] + n[3 * v + 2] * t[4 * v + 2], 0, 1e-5);
            assert_float_near(t[4 * v + 3], m.tan[4 * v + 3], 0);
        }
    }
    free(p), free(n), free(t);
    mesh_free(&m);
}

/* ---- scale: uniform taken, the rest refused ------------------------------------------------ */

static void uniform_scale_applies_before_the_rigid_part(void **state)
{
    (void)state;
    float m[16], dq[DQF], axis[3] = {0, 0, 1}, q[4], t[3] = {1, 2, 3}, s[3] = {2, 2, 2};
    mn_quat_from_axis_angle(q, axis, PI_F / 2);
    mn_mat4_compose(m, t, q, s);
    assert_int_equal(mn_skin_dual_quats(m, 1, dq, NULL), MN_OK);
    assert_float_near(dq[8], 2, 1e-6);
    uint16_t j[4] = {0};
    float w[4] = {1, 0, 0, 0}, p[3] = {1, 0, 0}, out[3];
    mn_skin_job job;
    memset(&job, 0, sizeof job);
    job.vertex_count = 1, job.influence_count = 4, job.joints = j, job.weights = w;
    job.palette_count = 1, job.positions = p, job.out_positions = out;
    /* (1, 0, 0) scaled by 2, turned a quarter about z, moved by (1, 2, 3): (1, 4, 3) */
    const float want[3] = {1, 4, 3};
    for (int level = 0; level < LEVELS; level++) {
        assert_int_equal(mn_skin_dq_run_with(&job, dq, (mn_simd_level)level), MN_OK);
        assert_vec_near(out, want, 3, 1e-5);
    }
}

/* The refusal names the joint and says why. */
static void expect_refused(const float *palette, uint32_t count, const char *what)
{
    float dq[4 * DQF];
    mn_error err;
    assert_int_equal(mn_skin_dual_quats(palette, count, dq, &err), MN_NOT_RIGID);
    assert_int_equal(err.code, MN_NOT_RIGID);
    if (!strstr(err.message, "joint 2") || !strstr(err.message, what) ||
        !strstr(err.message, "linear blending")) {
        print_error("message: %s\n", err.message);
        fail();
    }
}

static void non_uniform_scale_shear_and_mirrors_are_refused(void **state)
{
    (void)state;
    float palette[4 * 16];
    for (int j = 0; j < 4; j++)
        mn_mat4_identity(palette + 16 * j);
    float *bad = palette + 2 * 16;
    bad[5] = 1.5f; /* y scaled by 1.5 */
    expect_refused(palette, 4, "non-uniform scale");
    bad[5] = 1.0f;
    bad[4] = sinf(0.3f), bad[5] = cosf(0.3f); /* y axis leans towards x, its length 1 */
    expect_refused(palette, 4, "shear");
    bad[4] = 0.0f, bad[5] = 1.0f;
    bad[10] = -1.0f; /* z mirrored */
    expect_refused(palette, 4, "mirror");
    bad[10] = 0.0f, bad[0] = bad[5] = 0.0f;
    expect_refused(palette, 4, "zero scale");
    /* within the tolerance: taken */
    mn_mat4_identity(bad);
    bad[5] = 1.0f + 0.5f * MN_SKIN_DQ_SCALE_TOLERANCE;
    float dq[4 * DQF];
    assert_int_equal(mn_skin_dual_quats(palette, 4, dq, NULL), MN_OK);
    bad[3 * 4] = NAN;
    mn_error err;
    assert_int_equal(mn_skin_dual_quats(palette, 4, dq, &err), MN_NOT_FINITE);
    assert_non_null(strstr(err.message, "joint 2"));
    assert_int_equal(mn_skin_dual_quats(NULL, 1, dq, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_skin_dual_quats(NULL, 0, NULL, NULL), MN_OK);
}

static void job_errors(void **state)
{
    (void)state;
    uint16_t j[4] = {0};
    float w[4] = {1, 0, 0, 0}, p[3] = {0}, out[3], dq[DQF] = {0, 0, 0, 1, 0, 0, 0, 0, 1};
    mn_skin_job job;
    memset(&job, 0, sizeof job);
    job.vertex_count = 1, job.influence_count = 4, job.joints = j, job.weights = w;
    job.palette_count = 1, job.positions = p, job.out_positions = out;
    assert_int_equal(mn_skin_dq_run(&job, NULL), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_skin_dq_run(NULL, dq), MN_INVALID_ARGUMENT);
    job.influence_count = 0;
    assert_int_equal(mn_skin_dq_run(&job, dq), MN_INVALID_ARGUMENT);
    job.influence_count = 4, job.vertex_count = 0;
    assert_int_equal(mn_skin_dq_run(&job, dq), MN_OK);
}

/* ---- prepared meshes and instances ----------------------------------------------------- */

/* CesiumMan's 19 joints, each turned a little about its own axis: a palette DQS and LBS nearly share. */
static void cesium_palette(float palette[19 * 16])
{
    rng = 19;
    for (int j = 0; j < 19; j++)
        random_rigid(palette + 16 * j, 0.2f, 1.0f);
}

static void prepared_mesh_opts_in_and_allocates_nothing(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *model = mn_test_load(mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb"));
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_deform_mesh *mesh = NULL;
    assert_int_equal(mn_deform_mesh_create(model, 0, 0, &hooks, &mesh, NULL), MN_OK);
    assert_int_equal(mn_deform_mesh_skinning(mesh), MN_SKINNING_LINEAR);
    size_t n = mesh->vertex_count;
    float palette[19 * 16], dq[19 * DQF];
    cesium_palette(palette);
    float *lp = floats(3 * n), *ln = floats(3 * n), *dp = floats(3 * n), *dn = floats(3 * n);
    float *ep = floats(3 * n), *en = floats(3 * n);
    assert_int_equal(mn_deform_mesh_run(mesh, NULL, palette, 19, lp, ln, NULL), MN_OK);

    assert_int_equal(mn_deform_mesh_set_skinning(mesh, MN_SKINNING_DUAL_QUAT), MN_OK);
    assert_int_equal(mn_deform_mesh_skinning(mesh), MN_SKINNING_DUAL_QUAT);
    assert_int_equal(mn_skin_dual_quats(palette, 19, dq, NULL), MN_OK);
    size_t allocs = counter.allocs;
    for (int frame = 0; frame < 3; frame++) {
        assert_int_equal(mn_deform_mesh_run(mesh, NULL, palette, 19, dp, dn, NULL), MN_OK);
        assert_int_equal(mn_deform_mesh_run_dq(mesh, NULL, dq, 19, ep, en, NULL), MN_OK);
    }
    assert_int_equal(counter.allocs, allocs);
    assert_memory_equal(dp, ep, 3 * n * sizeof(float));
    /* DQS moved the vertices, near LBS but not onto it (the joints differ) */
    bool differs = false;
    for (size_t i = 0; i < 3 * n; i++) {
        assert_float_near(dp[i], lp[i], 0.2);
        differs = differs || dp[i] != lp[i];
    }
    assert_true(differs);

    /* a palette DQS cannot hold is refused, nothing written */
    palette[16 * 4 + 0] = 3.0f;
    memset(ep, 0, 3 * n * sizeof(float));
    assert_int_equal(mn_deform_mesh_run(mesh, NULL, palette, 19, ep, en, NULL), MN_NOT_RIGID);
    assert_float_near(ep[0], 0, 0);
    assert_int_equal(mn_deform_mesh_run_dq(mesh, NULL, dq, 18, ep, en, NULL), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_deform_mesh_set_skinning(mesh, (mn_skinning)7), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_deform_mesh_set_skinning(NULL, MN_SKINNING_LINEAR), MN_INVALID_ARGUMENT);

    mn_deform_mesh_free(mesh);
    assert_int_equal(counter.live_bytes, 0);
    free(lp), free(ln), free(dp), free(dn), free(ep), free(en);
    mn_model_free(model);
}

/* A dual-quaternion rig's instances deform without allocating and near a linear rig's. */
static void instance_opts_in(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *model = mn_test_load(mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb"));
    mn_rig *lin = NULL, *dq = NULL, *bad = NULL;
    mn_instance *a = NULL, *b = NULL;
    mn_error err;
    assert_int_equal(mn_rig_create(model, NULL, &lin, &err), MN_OK);
    assert_int_equal(mn_rig_create(model, &(mn_rig_options){.skinning = MN_SKINNING_DUAL_QUAT}, &dq,
                                   &err),
                     MN_OK);
    assert_int_equal(mn_rig_create(model, &(mn_rig_options){.skinning = (mn_skinning)5}, &bad, &err),
                     MN_INVALID_ARGUMENT);
    mn_counting_alloc counter = mn_counting_alloc_make();
    assert_int_equal(mn_instance_create(lin, NULL, &a, &err), MN_OK);
    assert_int_equal(mn_instance_create(dq, &(mn_instance_desc){.allocator = mn_counting_allocator(&counter)},
                                        &b, &err),
                     MN_OK);
    assert_int_equal(mn_mixer_play(mn_instance_mixer(a), 0, NULL, &err), MN_OK);
    assert_int_equal(mn_mixer_play(mn_instance_mixer(b), 0, NULL, &err), MN_OK);
    size_t allocs = counter.allocs;
    for (int frame = 0; frame < 5; frame++) {
        mn_instance_update(a, 0.1f);
        mn_instance_update(b, 0.1f);
    }
    assert_int_equal(counter.allocs, allocs);
    const mn_posed_part *pa = mn_instance_part(a, 0), *pb = mn_instance_part(b, 0);
    assert_int_equal(pa->vertex_count, pb->vertex_count);
    for (size_t i = 0; i < 3 * (size_t)pa->vertex_count; i++)
        assert_float_near(pb->positions[i], pa->positions[i], 0.05);
    mn_instance_free(a), mn_instance_free(b);
    mn_rig_free(lin), mn_rig_free(dq);
    assert_int_equal(counter.live_bytes, 0);
    mn_model_free(model);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rigid_single_influence_matches_lbs),
        cmocka_unit_test(rigid_shared_transform_matches_lbs),
        cmocka_unit_test(joints_share_joint_0s_hemisphere),
        cmocka_unit_test(negated_joint_gives_the_same_vertices),
        cmocka_unit_test(twisted_cylinder_keeps_its_radius),
        cmocka_unit_test(simd_matches_reference),
        cmocka_unit_test(simd_normalises_any_length),
        cmocka_unit_test(strided_streams_match_packed),
        cmocka_unit_test(odd_influence_counts_run),
        cmocka_unit_test(normals_and_tangents_stay_unit),
        cmocka_unit_test(uniform_scale_applies_before_the_rigid_part),
        cmocka_unit_test(non_uniform_scale_shear_and_mirrors_are_refused),
        cmocka_unit_test(job_errors),
        cmocka_unit_test(prepared_mesh_opts_in_and_allocates_nothing),
        cmocka_unit_test(instance_opts_in),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
