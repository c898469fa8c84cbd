/*
 * core/math: matrices, TRS compose/decompose, quaternions, Euler orders,
 * slerp and the local-to-world pass.  Property tests draw from a seeded
 * PRNG, so every run checks the same cases.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/math.h>

#include "assert_near.h"

#include <math.h>
#include <string.h>

#define PI_F 3.14159265358979f
#define HALF_PI_F 1.57079632679490f

/* ---- deterministic randomness ---------------------------------------------- */

/* splitmix64: tiny, seedable, good enough to spread test cases. */
typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static float rng_unit(rng *r)
{
    return (float)(rng_next(r) >> 40) / (float)(1u << 24);
}

static float rng_range(rng *r, float lo, float hi)
{
    return lo + (hi - lo) * rng_unit(r);
}

/* A rotation drawn uniformly from SO(3) (Shoemake's subgroup algorithm). */
static void rng_quat(rng *r, float q[4])
{
    float u1 = rng_unit(r), u2 = rng_unit(r), u3 = rng_unit(r);
    float a = sqrtf(1.0f - u1), b = sqrtf(u1);
    q[0] = a * sinf(2.0f * PI_F * u2);
    q[1] = a * cosf(2.0f * PI_F * u2);
    q[2] = b * sinf(2.0f * PI_F * u3);
    q[3] = b * cosf(2.0f * PI_F * u3);
}

/* A scale with magnitude log-uniform in [0.1, 10] and a random sign. */
static float rng_scale(rng *r)
{
    float mag = powf(10.0f, rng_range(r, -1.0f, 1.0f));
    return (rng_next(r) & 1) ? -mag : mag;
}

static void rng_vec3(rng *r, float v[3], float lo, float hi)
{
    for (int i = 0; i < 3; i++)
        v[i] = rng_range(r, lo, hi);
}

static void rng_mat4(rng *r, float m[16])
{
    for (int i = 0; i < 16; i++)
        m[i] = rng_range(r, -2.0f, 2.0f);
}

/* ---- helpers ------------------------------------------------------------------ */

static const float IDENTITY[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

static float quat_dot(const float a[4], const float b[4])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

static float quat_len(const float q[4])
{
    return sqrtf(quat_dot(q, q));
}

/* q and -q are the same rotation: compare after matching signs. */
static void assert_same_rotation(const float a[4], const float b[4], double tol)
{
    float flipped[4] = {-b[0], -b[1], -b[2], -b[3]};
    assert_vec_near(a, quat_dot(a, b) >= 0.0f ? b : flipped, 4, tol);
}

/* Angle in radians of the rotation taking a to b. */
static float rotation_angle_between(const float a[4], const float b[4])
{
    float d = fabsf(quat_dot(a, b));
    return 2.0f * acosf(fminf(d, 1.0f));
}

static float max_abs(const float *v, size_t n)
{
    float m = 0.0f;
    for (size_t i = 0; i < n; i++)
        m = fmaxf(m, fabsf(v[i]));
    return m;
}

/* Column-major elementary rotations written out by hand, independent of the library. */
static void mat_rx(float m[16], float a)
{
    memcpy(m, IDENTITY, sizeof IDENTITY);
    m[5] = cosf(a), m[6] = sinf(a), m[9] = -sinf(a), m[10] = cosf(a);
}

static void mat_ry(float m[16], float a)
{
    memcpy(m, IDENTITY, sizeof IDENTITY);
    m[0] = cosf(a), m[2] = -sinf(a), m[8] = sinf(a), m[10] = cosf(a);
}

static void mat_rz(float m[16], float a)
{
    memcpy(m, IDENTITY, sizeof IDENTITY);
    m[0] = cosf(a), m[1] = sinf(a), m[4] = -sinf(a), m[5] = cosf(a);
}

static void mat_mul3(float out[16], const float a[16], const float b[16], const float c[16])
{
    float ab[16];
    mn_mat4_mul(ab, a, b);
    mn_mat4_mul(out, ab, c);
}

/* ---- 4x4 matrices ------------------------------------------------------------- */

static void test_identity_is_neutral_for_mul(void **state)
{
    (void)state;
    rng r = {1};
    float m[16], id[16], out[16];
    mn_mat4_identity(id);
    assert_memory_equal(id, IDENTITY, sizeof IDENTITY);
    for (int n = 0; n < 100; n++) {
        rng_mat4(&r, m);
        mn_mat4_mul(out, id, m);
        assert_memory_equal(out, m, sizeof out);
        mn_mat4_mul(out, m, id);
        assert_memory_equal(out, m, sizeof out);
    }
}

/* mn_mat4_mul is the textbook sum, element by element, k = 0..3 left to right: the same bits. */
static void test_mul_is_the_scalar_sum_bit_for_bit(void **state)
{
    (void)state;
    rng r = {7};
    float a[16], b[16], out[16], ref[16];
    for (int n = 0; n < 200; n++) {
        rng_mat4(&r, a);
        rng_mat4(&r, b);
        for (int c = 0; c < 4; c++)
            for (int row = 0; row < 4; row++) {
                volatile float s = a[row] * b[4 * c]; /* volatile: one rounding a step */
                s = s + a[4 + row] * b[4 * c + 1];
                s = s + a[8 + row] * b[4 * c + 2];
                s = s + a[12 + row] * b[4 * c + 3];
                ref[4 * c + row] = s;
            }
        mn_mat4_mul(out, a, b);
        assert_memory_equal(out, ref, sizeof ref);
    }
}

static void test_mul_is_associative(void **state)
{
    (void)state;
    rng r = {2};
    for (int n = 0; n < 200; n++) {
        float a[16], b[16], c[16], ab[16], bc[16], left[16], right[16];
        rng_mat4(&r, a);
        rng_mat4(&r, b);
        rng_mat4(&r, c);
        mn_mat4_mul(ab, a, b);
        mn_mat4_mul(left, ab, c);
        mn_mat4_mul(bc, b, c);
        mn_mat4_mul(right, a, bc);
        assert_vec_near(left, right, 16, 1e-4);
    }
}

static void test_mul_applies_right_operand_first(void **state)
{
    (void)state;
    float t[16], s[16], ts[16];
    memcpy(t, IDENTITY, sizeof t);
    t[12] = 1, t[13] = 2, t[14] = 3;
    memcpy(s, IDENTITY, sizeof s);
    s[0] = s[5] = s[10] = 2;
    mn_mat4_mul(ts, t, s);
    const float p[3] = {1, 1, 1}, expected[3] = {3, 4, 5};
    float out[3];
    mn_mat4_transform_point(out, ts, p);
    assert_vec_near(out, expected, 3, 0);
}

static void test_transform_point_and_dir(void **state)
{
    (void)state;
    const float t[3] = {10, 20, 30}, s[3] = {2, 2, 2}, axis[3] = {0, 0, 1};
    float q[4], m[16], out[3];
    mn_quat_from_axis_angle(q, axis, HALF_PI_F);
    mn_mat4_compose(m, t, q, s);
    const float x[3] = {1, 0, 0};
    mn_mat4_transform_point(out, m, x);
    const float point[3] = {10, 22, 30};
    assert_vec_near(out, point, 3, 1e-5);
    mn_mat4_transform_dir(out, m, x);
    const float dir[3] = {0, 2, 0};
    assert_vec_near(out, dir, 3, 1e-6);
}

static void test_invert_affine_times_m_is_identity(void **state)
{
    (void)state;
    rng r = {3};
    for (int n = 0; n < 500; n++) {
        float t[3], q[4], s[3], m[16], inv[16], prod[16];
        rng_vec3(&r, t, -50, 50);
        rng_quat(&r, q);
        for (int i = 0; i < 3; i++)
            s[i] = rng_scale(&r);
        mn_mat4_compose(m, t, q, s);
        assert_true(mn_mat4_invert_affine(inv, m));
        mn_mat4_mul(prod, inv, m);
        assert_vec_near(prod, IDENTITY, 16, 1e-4);
        mn_mat4_mul(prod, m, inv);
        assert_vec_near(prod, IDENTITY, 16, 1e-4);
    }
}

static void test_invert_general_times_m_is_identity(void **state)
{
    (void)state;
    rng r = {4};
    int inverted = 0;
    for (int n = 0; n < 500; n++) {
        float m[16], inv[16], prod[16];
        rng_mat4(&r, m);
        for (int i = 0; i < 4; i++)
            m[i * 5] += 4.0f; /* diagonally dominant: far from singular */
        assert_true(mn_mat4_invert(inv, m));
        mn_mat4_mul(prod, inv, m);
        assert_vec_near(prod, IDENTITY, 16, 1e-5);
        inverted++;
    }
    assert_int_equal(inverted, 500);
    /* A perspective projection is not affine but invertible. */
    const float proj[16] = {1.5f, 0, 0, 0, 0, 2, 0, 0, 0, 0, -1.002f, -1, 0, 0, -0.2002f, 0};
    float inv[16], prod[16];
    assert_true(mn_mat4_invert(inv, proj));
    mn_mat4_mul(prod, proj, inv);
    assert_vec_near(prod, IDENTITY, 16, 1e-5);
}

static void test_invert_singular_returns_false_and_identity(void **state)
{
    (void)state;
    float m[16], out[16];
    /* Two equal columns: singular for both functions. */
    const float t[3] = {1, 2, 3}, q[4] = {0, 0, 0, 1}, s[3] = {1, 0, 1};
    mn_mat4_compose(m, t, q, s);
    memset(out, 0x7f, sizeof out);
    assert_false(mn_mat4_invert_affine(out, m));
    assert_memory_equal(out, IDENTITY, sizeof out);
    memset(out, 0x7f, sizeof out);
    assert_false(mn_mat4_invert(out, m));
    assert_memory_equal(out, IDENTITY, sizeof out);

    const float rank3[16] = {1, 2, 3, 4, 2, 4, 6, 8, 0, 1, 0, 0, 0, 0, 1, 0};
    assert_false(mn_mat4_invert(out, rank3));
    assert_memory_equal(out, IDENTITY, sizeof out);

    float zero[16] = {0};
    assert_false(mn_mat4_invert(out, zero));
    assert_false(mn_mat4_invert_affine(out, zero));
}

/* ---- compose / decompose -------------------------------------------------------- */

static void test_compose_known_matrix(void **state)
{
    (void)state;
    const float t[3] = {1, 2, 3}, s[3] = {2, 3, 4}, axis[3] = {0, 0, 1};
    float q[4], m[16];
    mn_quat_from_axis_angle(q, axis, HALF_PI_F);
    mn_mat4_compose(m, t, q, s);
    /* x → y scaled by 2, y → -x scaled by 3, z kept and scaled by 4. */
    const float expected[16] = {0, 2, 0, 0, -3, 0, 0, 0, 0, 0, 4, 0, 1, 2, 3, 1};
    assert_vec_near(m, expected, 16, 1e-6);
}

static void test_quat_to_mat4_matches_compose_and_rotate(void **state)
{
    (void)state;
    rng r = {5};
    const float zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    for (int n = 0; n < 200; n++) {
        float q[4], a[16], b[16];
        rng_quat(&r, q);
        mn_quat_to_mat4(a, q);
        mn_mat4_compose(b, zero, q, one);
        assert_vec_near(a, b, 16, 0);
        /* Column c is the rotated basis vector e_c. */
        for (int c = 0; c < 3; c++) {
            float e[3] = {0, 0, 0}, v[3];
            e[c] = 1;
            mn_quat_rotate(v, q, e);
            assert_vec_near(a + 4 * c, v, 3, 1e-6);
        }
        const float last[4] = {0, 0, 0, 1};
        assert_vec_near(a + 12, last, 4, 0);
    }
}

static void test_compose_tolerates_non_unit_quaternion(void **state)
{
    (void)state;
    /* Files carry slightly non-unit rotations; the result must still be a rotation. */
    const float t[3] = {1, 2, 3}, s[3] = {1, 2, 3}, axis[3] = {1, 1, 0};
    float q[4], q2[4], a[16], b[16];
    mn_quat_from_axis_angle(q, axis, 0.8f);
    for (int i = 0; i < 4; i++)
        q2[i] = q[i] * 1.01f;
    mn_mat4_compose(a, t, q, s);
    mn_mat4_compose(b, t, q2, s);
    assert_vec_near(b, a, 16, 2e-6);
    const float zero[4] = {0, 0, 0, 0};
    mn_quat_to_mat4(a, zero);
    assert_vec_near(a, IDENTITY, 16, 0);
}

/* Decompose, recompose, and check the matrix comes back; components too where they are unique. */
static void check_trs_round_trip(const float t[3], const float q[4], const float s[3])
{
    float m[16], m2[16], t2[3], q2[4], s2[3];
    mn_mat4_compose(m, t, q, s);
    assert_true(mn_mat4_decompose(m, t2, q2, s2));
    assert_true(q2[3] >= 0.0f);
    assert_float_near(quat_len(q2), 1.0f, 1e-6);
    mn_mat4_compose(m2, t2, q2, s2);
    assert_vec_near(m2, m, 16, 1e-5 * fmaxf(1.0f, max_abs(m, 16)));
    /* A negative x or y scale comes back as an equivalent rotation and a negative z,
       so only the cases without one have a unique answer to compare with. */
    if (s[0] > 0 && s[1] > 0) {
        assert_vec_near(t2, t, 3, 0);
        for (int i = 0; i < 3; i++)
            assert_float_near(s2[i], s[i], 1e-5 * fabsf(s[i]));
        assert_same_rotation(q2, q, 2e-5);
    }
}

static void test_decompose_compose_round_trip_random_trs(void **state)
{
    (void)state;
    rng r = {6};
    for (int n = 0; n < 2000; n++) {
        float t[3], q[4], s[3];
        rng_vec3(&r, t, -100, 100);
        rng_quat(&r, q);
        for (int i = 0; i < 3; i++)
            s[i] = rng_scale(&r);
        if (n % 4 == 0) /* a quarter with positive x and y, so components are compared */
            s[0] = fabsf(s[0]), s[1] = fabsf(s[1]);
        check_trs_round_trip(t, q, s);
    }
}

static void test_decompose_negative_determinant_goes_to_z_scale(void **state)
{
    (void)state;
    const float t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {-2, 3, 4};
    float m[16], t2[3], q2[4], s2[3];
    mn_mat4_compose(m, t, q, s);
    assert_true(mn_mat4_decompose(m, t2, q2, s2));
    /* diag(-2, 3, 4) = Ry(180°) · diag(2, 3, -4) */
    const float s_expected[3] = {2, 3, -4}, q_expected[4] = {0, 1, 0, 0};
    assert_vec_near(s2, s_expected, 3, 1e-6);
    assert_vec_near(q2, q_expected, 4, 1e-6);
}

static void test_decompose_near_180_degree_rotations(void **state)
{
    (void)state;
    /* Rotations by ~180° have a tiny w: the trace branch would divide by ~0. */
    rng r = {7};
    for (int n = 0; n < 300; n++) {
        float axis[3], q[4];
        rng_vec3(&r, axis, -1, 1);
        mn_quat_from_axis_angle(q, axis, PI_F - rng_range(&r, 0, 1e-3f));
        const float t[3] = {1, 2, 3}, s[3] = {1, 2, 0.5f};
        check_trs_round_trip(t, q, s);
    }
}

static void test_decompose_reports_skew(void **state)
{
    (void)state;
    float m[16];
    memcpy(m, IDENTITY, sizeof m);
    m[4] = 0.5f; /* column 1 leans towards x */
    float t[3], q[4], s[3];
    assert_false(mn_mat4_decompose(m, t, q, s));
    for (int i = 0; i < 3; i++)
        assert_true(isfinite(t[i]) && isfinite(s[i]));
    assert_float_near(quat_len(q), 1.0f, 1e-6);
    float e[3];
    assert_false(mn_mat4_decompose_engine(m, t, e, s));

    /* Below the 1e-4 relative tolerance it is float noise, not skew. */
    m[4] = 1e-6f;
    assert_true(mn_mat4_decompose(m, t, q, s));
    /* The tolerance is relative: small scales do not hide skew ... */
    memcpy(m, IDENTITY, sizeof m);
    m[0] = m[5] = m[10] = 0.01f;
    m[4] = 0.001f;
    assert_false(mn_mat4_decompose(m, t, q, s));
    /* ... and rounding in a large-scale rotation is not mistaken for it. */
    const float t0[3] = {0, 0, 0}, axis[3] = {0.3f, -0.5f, 0.8f}, big[3] = {1000, 2000, 500};
    mn_quat_from_axis_angle(q, axis, 1.3f);
    mn_mat4_compose(m, t0, q, big);
    assert_true(mn_mat4_decompose(m, t, q, s));
}

static void test_decompose_zero_scale_returns_false_with_best_effort(void **state)
{
    (void)state;
    const float t[3] = {4, 5, 6}, axis[3] = {1, 2, 3}, s[3] = {2, 0, 3};
    float q[4], m[16], t2[3], q2[4], s2[3];
    mn_quat_from_axis_angle(q, axis, 1.0f);
    mn_mat4_compose(m, t, q, s);
    assert_false(mn_mat4_decompose(m, t2, q2, s2));
    assert_vec_near(t2, t, 3, 0);
    assert_vec_near(s2, s, 3, 1e-6);
    /* The zero column is rebuilt from the other two, so the rotation survives. */
    assert_same_rotation(q2, q, 1e-5);

    float zero[16] = {0};
    zero[15] = 1;
    assert_false(mn_mat4_decompose(zero, t2, q2, s2));
    const float id[4] = {0, 0, 0, 1};
    assert_vec_near(q2, id, 4, 0);
}

static void test_decompose_engine_known_matrix(void **state)
{
    (void)state;
    const float yaw = 0.3f, pitch = -0.4f, roll = 1.1f;
    float ry[16], rx[16], rz[16], rot[16];
    mat_ry(ry, yaw);
    mat_rx(rx, pitch);
    mat_rz(rz, roll);
    mat_mul3(rot, ry, rx, rz);
    /* m = T · R · S, written out: scale the columns, then set the translation. */
    const float s[3] = {2, 0.5f, 3};
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            rot[c * 4 + r] *= s[c];
    rot[12] = 7, rot[13] = -8, rot[14] = 9;

    float t2[3], e2[3], s2[3];
    assert_true(mn_mat4_decompose_engine(rot, t2, e2, s2));
    const float t[3] = {7, -8, 9}, e[3] = {yaw, pitch, roll};
    assert_vec_near(t2, t, 3, 0);
    assert_vec_near(s2, s, 3, 1e-6);
    assert_vec_near(e2, e, 3, 1e-6);
}

static void test_decompose_engine_gimbal_folds_roll_into_yaw(void **state)
{
    (void)state;
    float ry[16], rx[16], rz[16], m[16], t[3], e[3], s[3];
    mat_ry(ry, 0.5f);
    mat_rx(rx, HALF_PI_F);
    mat_rz(rz, 0.2f);
    mat_mul3(m, ry, rx, rz);
    assert_true(mn_mat4_decompose_engine(m, t, e, s));
    const float up[3] = {0.5f - 0.2f, HALF_PI_F, 0.0f};
    assert_vec_near(e, up, 3, 1e-5);
    assert_true(e[2] == 0.0f);

    mat_rx(rx, -HALF_PI_F);
    mat_mul3(m, ry, rx, rz);
    assert_true(mn_mat4_decompose_engine(m, t, e, s));
    const float down[3] = {0.5f + 0.2f, -HALF_PI_F, 0.0f};
    assert_vec_near(e, down, 3, 1e-5);
}

/* ---- Euler orders ------------------------------------------------------------------ */

static void test_engine_euler_matches_matrix_product(void **state)
{
    (void)state;
    rng r = {8};
    for (int n = 0; n < 200; n++) {
        float e[3] = {rng_range(&r, -PI_F, PI_F), rng_range(&r, -HALF_PI_F, HALF_PI_F),
                      rng_range(&r, -PI_F, PI_F)};
        float ry[16], rx[16], rz[16], expected[16], q[4], m[16];
        mat_ry(ry, e[0]);
        mat_rx(rx, e[1]);
        mat_rz(rz, e[2]);
        mat_mul3(expected, ry, rx, rz);
        mn_quat_from_engine_euler(q, e);
        mn_quat_to_mat4(m, q);
        assert_vec_near(m, expected, 16, 2e-6);
    }
}

static void test_euler_xyz_matches_matrix_product(void **state)
{
    (void)state;
    rng r = {9};
    for (int n = 0; n < 200; n++) {
        float e[3] = {rng_range(&r, -PI_F, PI_F), rng_range(&r, -HALF_PI_F, HALF_PI_F),
                      rng_range(&r, -PI_F, PI_F)};
        float rx[16], ry[16], rz[16], expected[16], q[4], m[16];
        mat_rx(rx, e[0]);
        mat_ry(ry, e[1]);
        mat_rz(rz, e[2]);
        mat_mul3(expected, rx, ry, rz);
        mn_quat_from_euler_xyz(q, e);
        mn_quat_to_mat4(m, q);
        assert_vec_near(m, expected, 16, 2e-6);
    }
}

typedef void (*euler_from_fn)(float out[4], const float e[3]);
typedef void (*euler_to_fn)(float e[3], const float q[4]);

/* Angles come back when pitch stays clear of ±90°; any rotation comes back as a rotation. */
static void check_euler_round_trip(euler_from_fn from, euler_to_fn to, uint64_t seed)
{
    rng r = {seed};
    for (int n = 0; n < 1000; n++) {
        float e[3] = {rng_range(&r, -3.1f, 3.1f), rng_range(&r, -1.55f, 1.55f),
                      rng_range(&r, -3.1f, 3.1f)};
        float q[4], e2[3], q2[4];
        from(q, e);
        to(e2, q);
        assert_vec_near(e2, e, 3, 2e-4);

        rng_quat(&r, q);
        to(e2, q);
        from(q2, e2);
        assert_same_rotation(q2, q, 2e-5);
    }
}

static void test_engine_euler_round_trip(void **state)
{
    (void)state;
    check_euler_round_trip(mn_quat_from_engine_euler, mn_quat_to_engine_euler, 10);
}

static void test_euler_xyz_round_trip(void **state)
{
    (void)state;
    check_euler_round_trip(mn_quat_from_euler_xyz, mn_quat_to_euler_xyz, 11);
}

static void test_engine_euler_gimbal_folds_roll_into_yaw(void **state)
{
    (void)state;
    const float up[3] = {0.3f, HALF_PI_F, 0.2f}, down[3] = {0.3f, -HALF_PI_F, 0.2f};
    float q[4], e[3], q2[4];
    mn_quat_from_engine_euler(q, up);
    mn_quat_to_engine_euler(e, q);
    /* Looking straight up, yaw and roll turn about the same axis: only yaw - roll is defined. */
    const float up_folded[3] = {0.1f, HALF_PI_F, 0.0f};
    assert_vec_near(e, up_folded, 3, 1e-5);
    assert_true(e[2] == 0.0f);
    mn_quat_from_engine_euler(q2, e);
    assert_same_rotation(q2, q, 1e-6);

    mn_quat_from_engine_euler(q, down);
    mn_quat_to_engine_euler(e, q);
    const float down_folded[3] = {0.5f, -HALF_PI_F, 0.0f};
    assert_vec_near(e, down_folded, 3, 1e-5);
    mn_quat_from_engine_euler(q2, e);
    assert_same_rotation(q2, q, 1e-6);
}

static void test_euler_xyz_gimbal_folds_e2_into_e0(void **state)
{
    (void)state;
    const float up[3] = {0.3f, HALF_PI_F, 0.2f}, down[3] = {0.3f, -HALF_PI_F, 0.2f};
    float q[4], e[3], q2[4];
    mn_quat_from_euler_xyz(q, up);
    mn_quat_to_euler_xyz(e, q);
    const float up_folded[3] = {0.5f, HALF_PI_F, 0.0f};
    assert_vec_near(e, up_folded, 3, 1e-5);
    assert_true(e[2] == 0.0f);
    mn_quat_from_euler_xyz(q2, e);
    assert_same_rotation(q2, q, 1e-6);

    mn_quat_from_euler_xyz(q, down);
    mn_quat_to_euler_xyz(e, q);
    const float down_folded[3] = {0.1f, -HALF_PI_F, 0.0f};
    assert_vec_near(e, down_folded, 3, 1e-5);
    mn_quat_from_euler_xyz(q2, e);
    assert_same_rotation(q2, q, 1e-6);
}

static void test_euler_near_gimbal_keeps_the_rotation(void **state)
{
    (void)state;
    /* Just off ±90° the split between yaw and roll is ill-conditioned, but the
       rotation they describe together must still be right. */
    const float offsets[4] = {1e-3f, 1e-4f, 1e-5f, 1e-7f};
    for (int i = 0; i < 4; i++) {
        for (int sign = -1; sign <= 1; sign += 2) {
            float e[3] = {0.7f, (float)sign * (HALF_PI_F - offsets[i]), -0.4f};
            float q[4], e2[3], q2[4];
            mn_quat_from_engine_euler(q, e);
            mn_quat_to_engine_euler(e2, q);
            mn_quat_from_engine_euler(q2, e2);
            assert_same_rotation(q2, q, 2e-6);
            mn_quat_from_euler_xyz(q, e);
            mn_quat_to_euler_xyz(e2, q);
            mn_quat_from_euler_xyz(q2, e2);
            assert_same_rotation(q2, q, 2e-6);
        }
    }
}

/* ---- quaternions --------------------------------------------------------------------- */

static void test_quat_mul_composes_rotations(void **state)
{
    (void)state;
    rng r = {12};
    for (int n = 0; n < 300; n++) {
        float a[4], b[4], ab[4], v[3], v1[3], v2[3];
        rng_quat(&r, a);
        rng_quat(&r, b);
        rng_vec3(&r, v, -5, 5);
        mn_quat_mul(ab, a, b);
        mn_quat_rotate(v1, ab, v);
        mn_quat_rotate(v2, b, v); /* b first, then a */
        mn_quat_rotate(v2, a, v2); /* aliasing out and v is allowed */
        assert_vec_near(v1, v2, 3, 1e-5);
        /* q · q* = identity */
        float c[4], id[4];
        mn_quat_conjugate(c, a);
        mn_quat_mul(id, a, c);
        const float expected[4] = {0, 0, 0, 1};
        assert_vec_near(id, expected, 4, 1e-6);
        /* out may alias an input */
        mn_quat_mul(a, a, b);
        assert_vec_near(a, ab, 4, 0);
    }
}

static void test_quat_normalize_degenerate_gives_identity(void **state)
{
    (void)state;
    const float id[4] = {0, 0, 0, 1};
    float out[4];
    const float zero[4] = {0, 0, 0, 0};
    mn_quat_normalize(out, zero);
    assert_vec_near(out, id, 4, 0);
    const float bad[4] = {NAN, 0, 0, 1};
    mn_quat_normalize(out, bad);
    assert_vec_near(out, id, 4, 0);
    const float inf[4] = {INFINITY, 0, 0, 1};
    mn_quat_normalize(out, inf);
    assert_vec_near(out, id, 4, 0);
    float q[4] = {0, 3, 0, 4};
    mn_quat_normalize(q, q);
    const float expected[4] = {0, 0.6f, 0, 0.8f};
    assert_vec_near(q, expected, 4, 1e-7);
    float ident[4];
    mn_quat_identity(ident);
    assert_vec_near(ident, id, 4, 0);
}

static void test_axis_angle_round_trip(void **state)
{
    (void)state;
    rng r = {13};
    for (int n = 0; n < 1000; n++) {
        float axis[3], q[4], axis2[3], angle2;
        rng_vec3(&r, axis, -1, 1);
        float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
        if (len < 1e-3f)
            continue;
        for (int i = 0; i < 3; i++)
            axis[i] /= len;
        float angle = rng_range(&r, 1e-3f, PI_F - 1e-3f);
        mn_quat_from_axis_angle(q, axis, angle);
        assert_float_near(quat_len(q), 1.0f, 1e-6);
        mn_quat_to_axis_angle(q, axis2, &angle2);
        assert_float_near(angle2, angle, 1e-5);
        assert_vec_near(axis2, axis, 3, 2e-5);
    }
}

static void test_axis_angle_edge_cases(void **state)
{
    (void)state;
    const float id[4] = {0, 0, 0, 1}, x[3] = {1, 0, 0};
    float q[4], axis[3], angle;
    mn_quat_to_axis_angle(id, axis, &angle);
    assert_vec_near(axis, x, 3, 0);
    assert_true(angle == 0.0f);

    const float zero_axis[3] = {0, 0, 0};
    mn_quat_from_axis_angle(q, zero_axis, 1.0f);
    assert_vec_near(q, id, 4, 0);

    /* The axis is normalised here. */
    const float long_axis[3] = {0, 0, 5}, z[3] = {0, 0, 1};
    mn_quat_from_axis_angle(q, long_axis, 0.5f);
    assert_float_near(quat_len(q), 1.0f, 1e-6);
    mn_quat_to_axis_angle(q, axis, &angle);
    assert_vec_near(axis, z, 3, 1e-6);
    assert_float_near(angle, 0.5f, 1e-6);

    /* 270° about z is 90° about -z: the angle stays in [0, π]. */
    mn_quat_from_axis_angle(q, z, 1.5f * PI_F);
    mn_quat_to_axis_angle(q, axis, &angle);
    const float minus_z[3] = {0, 0, -1};
    assert_vec_near(axis, minus_z, 3, 1e-6);
    assert_float_near(angle, HALF_PI_F, 1e-5);
}

static void test_slerp_endpoints(void **state)
{
    (void)state;
    rng r = {14};
    for (int n = 0; n < 1000; n++) {
        float a[4], b[4], out[4];
        rng_quat(&r, a);
        rng_quat(&r, b);
        mn_quat_slerp(out, a, b, 0.0f);
        assert_vec_near(out, a, 4, 1e-6);
        mn_quat_slerp(out, a, b, 1.0f);
        assert_same_rotation(out, b, 1e-6);
    }
}

static void test_slerp_is_unit_length(void **state)
{
    (void)state;
    rng r = {15};
    for (int n = 0; n < 2000; n++) {
        float a[4], b[4], out[4];
        rng_quat(&r, a);
        rng_quat(&r, b);
        mn_quat_slerp(out, a, b, rng_unit(&r));
        assert_float_near(quat_len(out), 1.0f, 1e-6);
    }
}

static void test_slerp_follows_the_great_circle(void **state)
{
    (void)state;
    /* From identity to 2 rad about an axis: at t the rotation is 2t rad about it. */
    const float axis[3] = {0.48f, -0.6f, 0.64f}, id[4] = {0, 0, 0, 1};
    float b[4];
    mn_quat_from_axis_angle(b, axis, 2.0f);
    for (int i = 0; i <= 10; i++) {
        float t = (float)i / 10.0f, out[4], expected[4];
        mn_quat_slerp(out, id, b, t);
        mn_quat_from_axis_angle(expected, axis, 2.0f * t);
        assert_vec_near(out, expected, 4, 2e-6);
    }
}

static void test_slerp_takes_the_short_arc(void **state)
{
    (void)state;
    rng r = {16};
    for (int n = 0; n < 1000; n++) {
        float a[4], b[4], neg_b[4], out1[4], out2[4];
        rng_quat(&r, a);
        rng_quat(&r, b);
        for (int i = 0; i < 4; i++)
            neg_b[i] = -b[i];
        float t = rng_unit(&r);
        mn_quat_slerp(out1, a, b, t);
        mn_quat_slerp(out2, a, neg_b, t);
        assert_same_rotation(out1, out2, 1e-6);
        /* Halfway is at most half of the at-most-180° rotation from a to b. */
        mn_quat_slerp(out1, a, b, 0.5f);
        float half = rotation_angle_between(a, b) * 0.5f;
        assert_float_near(rotation_angle_between(a, out1), half, 1e-3);
        assert_true(rotation_angle_between(a, out1) <= HALF_PI_F + 1e-3f);
    }
    /* Nearly antipodal quaternions are nearly the same rotation: the midpoint stays near a. */
    const float a[4] = {0.5f, 0.5f, 0.5f, 0.5f};
    const float b[4] = {-0.5f, -0.5f, -0.5f, -0.5001f};
    float mid[4];
    mn_quat_slerp(mid, a, b, 0.5f);
    assert_true(rotation_angle_between(a, mid) < 1e-3f);
}

static void test_slerp_nearly_parallel_uses_nlerp(void **state)
{
    (void)state;
    const float axis[3] = {0, 1, 0}, id[4] = {0, 0, 0, 1};
    float b[4], out[4], expected[4];
    /* 0.01 rad apart: dot = cos(0.005) > 0.9995, the lerp branch. */
    mn_quat_from_axis_angle(b, axis, 0.01f);
    mn_quat_slerp(out, id, b, 0.5f);
    mn_quat_from_axis_angle(expected, axis, 0.005f);
    assert_vec_near(out, expected, 4, 1e-6);
    assert_float_near(quat_len(out), 1.0f, 1e-6);
    /* Identical inputs give the input. */
    mn_quat_slerp(out, b, b, 0.3f);
    assert_vec_near(out, b, 4, 3e-7);
    /* Just outside the fallback the true slerp agrees with it to float precision. */
    mn_quat_from_axis_angle(b, axis, 0.07f);
    mn_quat_slerp(out, id, b, 0.25f);
    mn_quat_from_axis_angle(expected, axis, 0.0175f);
    assert_vec_near(out, expected, 4, 1e-6);
}

static void test_slerp_out_may_alias_inputs(void **state)
{
    (void)state;
    const float axis[3] = {1, 0, 0};
    float a[4], b[4], expected[4];
    mn_quat_identity(a);
    mn_quat_from_axis_angle(b, axis, 1.0f);
    mn_quat_slerp(expected, a, b, 0.5f);
    mn_quat_slerp(a, a, b, 0.5f);
    assert_vec_near(a, expected, 4, 0);
    mn_quat_identity(a);
    mn_quat_slerp(b, a, b, 0.5f);
    assert_vec_near(b, expected, 4, 0);
}

/* ---- hierarchies ------------------------------------------------------------------------ */

#define TREE_NODES 64

/* A random forest in parent-first order with random TRS locals. */
static void make_forest(rng *r, int32_t *parents, float *locals, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        parents[i] = (i == 0 || rng_unit(r) < 0.1f) ? -1 : (int32_t)(rng_next(r) % i);
        float t[3], q[4], s[3];
        rng_vec3(r, t, -2, 2);
        rng_quat(r, q);
        rng_vec3(r, s, 0.5f, 1.5f);
        mn_mat4_compose(locals + 16 * i, t, q, s);
    }
}

/* The obvious reference for parent-first order. */
static void reference_worlds(const int32_t *parents, size_t count, const float *locals,
                             float *worlds)
{
    for (size_t i = 0; i < count; i++) {
        if (parents[i] < 0)
            memcpy(worlds + 16 * i, locals + 16 * i, 16 * sizeof(float));
        else
            mn_mat4_mul(worlds + 16 * i, worlds + 16 * parents[i], locals + 16 * i);
    }
}

static void test_compose_worlds_parent_first_matches_reference(void **state)
{
    (void)state;
    rng r = {17};
    int32_t parents[TREE_NODES];
    float locals[16 * TREE_NODES], worlds[16 * TREE_NODES], expected[16 * TREE_NODES];
    make_forest(&r, parents, locals, TREE_NODES);
    reference_worlds(parents, TREE_NODES, locals, expected);
    mn_error err;
    assert_int_equal(mn_compose_worlds(parents, TREE_NODES, locals, worlds, &err), MN_OK);
    assert_int_equal(err.code, MN_OK);
    assert_memory_equal(worlds, expected, sizeof worlds); /* same products, same bits */
}

static void test_compose_worlds_children_before_parents_match(void **state)
{
    (void)state;
    rng r = {18};
    int32_t parents[TREE_NODES], shuffled_parents[TREE_NODES];
    float locals[16 * TREE_NODES], expected[16 * TREE_NODES];
    float shuffled_locals[16 * TREE_NODES], worlds[16 * TREE_NODES];
    size_t order[TREE_NODES], where[TREE_NODES];
    for (int round = 0; round < 20; round++) {
        make_forest(&r, parents, locals, TREE_NODES);
        reference_worlds(parents, TREE_NODES, locals, expected);
        /* Node order[k] goes to slot k; reversing first guarantees children before parents. */
        for (size_t i = 0; i < TREE_NODES; i++)
            order[i] = TREE_NODES - 1 - i;
        for (size_t i = TREE_NODES - 1; round > 0 && i > 0; i--) {
            size_t j = (size_t)(rng_next(&r) % (i + 1)), tmp = order[i];
            order[i] = order[j];
            order[j] = tmp;
        }
        for (size_t k = 0; k < TREE_NODES; k++)
            where[order[k]] = k;
        for (size_t k = 0; k < TREE_NODES; k++) {
            int32_t p = parents[order[k]];
            shuffled_parents[k] = p < 0 ? -1 : (int32_t)where[p];
            memcpy(shuffled_locals + 16 * k, locals + 16 * order[k], 16 * sizeof(float));
        }
        assert_int_equal(
            mn_compose_worlds(shuffled_parents, TREE_NODES, shuffled_locals, worlds, NULL), MN_OK);
        for (size_t k = 0; k < TREE_NODES; k++)
            assert_vec_near(worlds + 16 * k, expected + 16 * order[k], 16, 1e-4);
    }
}

static void test_compose_worlds_long_reversed_chain(void **state)
{
    (void)state;
    /* 2000 nodes, each the parent of the one before: the deepest walk possible. */
    enum { N = 2000 };
    static int32_t parents[N];
    static float locals[16 * N], worlds[16 * N];
    for (size_t i = 0; i < N; i++) {
        parents[i] = i + 1 < N ? (int32_t)(i + 1) : -1;
        memcpy(locals + 16 * i, IDENTITY, sizeof IDENTITY);
        locals[16 * i + 12] = 1.0f; /* each link moves 1 along x: exact in float */
    }
    assert_int_equal(mn_compose_worlds(parents, N, locals, worlds, NULL), MN_OK);
    for (size_t i = 0; i < N; i++)
        assert_float_near(worlds[16 * i + 12], (float)(N - i), 0);
}

static void test_compose_worlds_parent_out_of_range(void **state)
{
    (void)state;
    const int32_t parents[7] = {-1, 0, 1, 2, 3, 9, 4};
    float locals[16 * 7] = {0}, worlds[16 * 7];
    mn_error err;
    assert_int_equal(mn_compose_worlds(parents, 7, locals, worlds, &err), MN_INDEX_RANGE);
    assert_int_equal(err.code, MN_INDEX_RANGE);
    assert_string_equal(err.path, "nodes[5]");
    assert_string_equal(err.message, "node 5: parent 9 out of range (7 nodes)");

    const int32_t negative[3] = {-1, -2, 0};
    assert_int_equal(mn_compose_worlds(negative, 3, locals, worlds, &err), MN_INDEX_RANGE);
    assert_string_equal(err.path, "nodes[1]");
    /* The parent equal to count is the first one out. */
    const int32_t at_count[3] = {-1, 3, 0};
    assert_int_equal(mn_compose_worlds(at_count, 3, locals, worlds, &err), MN_INDEX_RANGE);
    assert_string_equal(err.path, "nodes[1]");
}

static void test_compose_worlds_three_cycle(void **state)
{
    (void)state;
    const int32_t parents[5] = {-1, 2, 3, 1, 0};
    float locals[16 * 5] = {0}, worlds[16 * 5];
    mn_error err;
    assert_int_equal(mn_compose_worlds(parents, 5, locals, worlds, &err), MN_HIERARCHY);
    assert_int_equal(err.code, MN_HIERARCHY);
    bool names_cycle_node = strcmp(err.path, "nodes[1]") == 0 ||
                            strcmp(err.path, "nodes[2]") == 0 || strcmp(err.path, "nodes[3]") == 0;
    assert_true(names_cycle_node);
    assert_non_null(strstr(err.message, "cycle"));
}

static void test_compose_worlds_self_parent(void **state)
{
    (void)state;
    const int32_t parents[3] = {-1, 0, 2};
    float locals[16 * 3] = {0}, worlds[16 * 3];
    mn_error err;
    assert_int_equal(mn_compose_worlds(parents, 3, locals, worlds, &err), MN_HIERARCHY);
    assert_string_equal(err.path, "nodes[2]");
}

static void test_compose_worlds_tail_into_cycle_names_cycle_node(void **state)
{
    (void)state;
    /* 0 → 1 → 2 → 3 → 2: node 0 and 1 are not in the cycle, 2 and 3 are. */
    const int32_t parents[4] = {1, 2, 3, 2};
    float locals[16 * 4] = {0}, worlds[16 * 4];
    mn_error err;
    assert_int_equal(mn_compose_worlds(parents, 4, locals, worlds, &err), MN_HIERARCHY);
    bool in_cycle = strcmp(err.path, "nodes[2]") == 0 || strcmp(err.path, "nodes[3]") == 0;
    assert_true(in_cycle);
    /* A cycle with no root at all. */
    const int32_t ring[4] = {3, 0, 1, 2};
    assert_int_equal(mn_compose_worlds(ring, 4, locals, worlds, &err), MN_HIERARCHY);
}

static void test_compose_worlds_arguments(void **state)
{
    (void)state;
    const int32_t parents[1] = {-1};
    float locals[16], worlds[16];
    memcpy(locals, IDENTITY, sizeof locals);
    mn_error err;
    assert_int_equal(mn_compose_worlds(NULL, 0, NULL, NULL, &err), MN_OK);
    assert_int_equal(mn_compose_worlds(NULL, 1, locals, worlds, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(err.code, MN_INVALID_ARGUMENT);
    assert_int_equal(mn_compose_worlds(parents, 1, NULL, worlds, NULL), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_compose_worlds(parents, 1, locals, NULL, NULL), MN_INVALID_ARGUMENT);
    /* Success clears an earlier error. */
    assert_int_equal(mn_compose_worlds(parents, 1, locals, worlds, &err), MN_OK);
    assert_int_equal(err.code, MN_OK);
    assert_string_equal(err.message, "");
    assert_memory_equal(worlds, IDENTITY, sizeof worlds);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_is_neutral_for_mul),
        cmocka_unit_test(test_mul_is_the_scalar_sum_bit_for_bit),
        cmocka_unit_test(test_mul_is_associative),
        cmocka_unit_test(test_mul_applies_right_operand_first),
        cmocka_unit_test(test_transform_point_and_dir),
        cmocka_unit_test(test_invert_affine_times_m_is_identity),
        cmocka_unit_test(test_invert_general_times_m_is_identity),
        cmocka_unit_test(test_invert_singular_returns_false_and_identity),
        cmocka_unit_test(test_compose_known_matrix),
        cmocka_unit_test(test_quat_to_mat4_matches_compose_and_rotate),
        cmocka_unit_test(test_compose_tolerates_non_unit_quaternion),
        cmocka_unit_test(test_decompose_compose_round_trip_random_trs),
        cmocka_unit_test(test_decompose_negative_determinant_goes_to_z_scale),
        cmocka_unit_test(test_decompose_near_180_degree_rotations),
        cmocka_unit_test(test_decompose_reports_skew),
        cmocka_unit_test(test_decompose_zero_scale_returns_false_with_best_effort),
        cmocka_unit_test(test_decompose_engine_known_matrix),
        cmocka_unit_test(test_decompose_engine_gimbal_folds_roll_into_yaw),
        cmocka_unit_test(test_engine_euler_matches_matrix_product),
        cmocka_unit_test(test_euler_xyz_matches_matrix_product),
        cmocka_unit_test(test_engine_euler_round_trip),
        cmocka_unit_test(test_euler_xyz_round_trip),
        cmocka_unit_test(test_engine_euler_gimbal_folds_roll_into_yaw),
        cmocka_unit_test(test_euler_xyz_gimbal_folds_e2_into_e0),
        cmocka_unit_test(test_euler_near_gimbal_keeps_the_rotation),
        cmocka_unit_test(test_quat_mul_composes_rotations),
        cmocka_unit_test(test_quat_normalize_degenerate_gives_identity),
        cmocka_unit_test(test_axis_angle_round_trip),
        cmocka_unit_test(test_axis_angle_edge_cases),
        cmocka_unit_test(test_slerp_endpoints),
        cmocka_unit_test(test_slerp_is_unit_length),
        cmocka_unit_test(test_slerp_follows_the_great_circle),
        cmocka_unit_test(test_slerp_takes_the_short_arc),
        cmocka_unit_test(test_slerp_nearly_parallel_uses_nlerp),
        cmocka_unit_test(test_slerp_out_may_alias_inputs),
        cmocka_unit_test(test_compose_worlds_parent_first_matches_reference),
        cmocka_unit_test(test_compose_worlds_children_before_parents_match),
        cmocka_unit_test(test_compose_worlds_long_reversed_chain),
        cmocka_unit_test(test_compose_worlds_parent_out_of_range),
        cmocka_unit_test(test_compose_worlds_three_cycle),
        cmocka_unit_test(test_compose_worlds_self_parent),
        cmocka_unit_test(test_compose_worlds_tail_into_cycle_names_cycle_node),
        cmocka_unit_test(test_compose_worlds_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
