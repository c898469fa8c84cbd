/*
 * Pose blending and additive layers (src/anim/blend.c, src/anim/additive.c):
 * blend endpoints, clamping and slerp (animation-decisions.md §19), alias
 * safety, masks (§20), the additive layer and its delta (§6), the checked
 * joint write (§22), scale-from-identity, additive clips (§18) including
 * cubic tangents, zero allocations per call, and the SIMD blend and add
 * against their scalar reference (bit for bit where the reference copies).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/blend.h>
#include <marionette/clip.h>
#include <marionette/math.h>
#include <marionette/pose.h>

#include "anim/blend_internal.h"
#include "assert_near.h"
#include "counting_alloc.h"

#include <math.h>
#include <string.h>

#define JOINTS 4u
#define PI_F 3.14159265358979f

/* ---- helpers ------------------------------------------------------------------ */

static void must(mn_status st, const mn_error *err)
{
    if (st != MN_OK)
        fail_msg("%s: %s", mn_status_name(st), err->message);
}

static mn_pose make_pose(uint32_t joints)
{
    mn_pose p;
    mn_error err;
    must(mn_pose_create(&p, joints, NULL, &err), &err);
    return p;
}

static void quat_axis_angle(float out[4], float x, float y, float z, float angle)
{
    float axis[3] = {x, y, z};
    mn_quat_from_axis_angle(out, axis, angle);
}

/* Distinct, non-trivial values on every joint of a pose; `seed` varies them. */
static void fill_pose(mn_pose *p, float seed)
{
    for (uint32_t j = 0; j < p->joint_count; j++) {
        float k = seed + (float)j;
        float t[3] = {0.5f * k, -0.25f * k + 1.0f, 2.0f - k};
        float s[3] = {1.0f + 0.1f * k, 0.8f + 0.05f * k, 1.5f};
        float r[4];
        quat_axis_angle(r, 1.0f, 0.5f * k, -0.3f, 0.4f * k + 0.2f);
        assert_int_equal(mn_pose_set_joint(p, j, t, r, s, NULL), MN_OK);
    }
}

static bool poses_bit_equal(const mn_pose *a, const mn_pose *b)
{
    size_t n = a->joint_count;
    return a->joint_count == b->joint_count &&
           memcmp(a->translations, b->translations, n * 3 * sizeof(float)) == 0 &&
           memcmp(a->rotations, b->rotations, n * 4 * sizeof(float)) == 0 &&
           memcmp(a->scales, b->scales, n * 3 * sizeof(float)) == 0;
}

static void assert_poses_near(const mn_pose *a, const mn_pose *b, double tol)
{
    assert_int_equal(a->joint_count, b->joint_count);
    for (uint32_t j = 0; j < a->joint_count; j++) {
        assert_vec_near(a->translations + 3 * j, b->translations + 3 * j, 3, tol);
        assert_vec_near(a->scales + 3 * j, b->scales + 3 * j, 3, tol);
        /* q and −q are one rotation */
        const float *qa = a->rotations + 4 * j, *qb = b->rotations + 4 * j;
        float d = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
        float flipped[4] = {-qb[0], -qb[1], -qb[2], -qb[3]};
        assert_vec_near(qa, d < 0 ? flipped : qb, 4, tol);
    }
}

/* Reference slerp in double along the short arc (the rule of §19). */
static void slerp_ref(float out[4], const float a[4], const float b_in[4], double t)
{
    double b[4] = {b_in[0], b_in[1], b_in[2], b_in[3]};
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (d < 0) {
        d = -d;
        for (int i = 0; i < 4; i++)
            b[i] = -b[i];
    }
    double wa = 1 - t, wb = t;
    if (d <= 0.9995) {
        double th = acos(d);
        wa = sin((1 - t) * th) / sin(th);
        wb = sin(t * th) / sin(th);
    }
    double r[4], n = 0;
    for (int i = 0; i < 4; i++) {
        r[i] = a[i] * wa + b[i] * wb;
        n += r[i] * r[i];
    }
    for (int i = 0; i < 4; i++)
        out[i] = (float)(r[i] / sqrt(n));
}

/* ---- blend ---------------------------------------------------------------------- */

static void blend_endpoints_copy_inputs_bit_exactly(void **state)
{
    (void)state;
    mn_pose a = make_pose(JOINTS), b = make_pose(JOINTS), out = make_pose(JOINTS);
    fill_pose(&a, 0.1f);
    fill_pose(&b, 2.3f);
    mn_error err;
    const float to_a[] = {0.0f, -0.5f, -INFINITY, NAN};
    const float to_b[] = {1.0f, 1.5f, INFINITY};
    for (size_t i = 0; i < sizeof to_a / sizeof to_a[0]; i++) {
        fill_pose(&out, 9.0f);
        must(mn_pose_blend(&a, &b, to_a[i], &out, &err), &err);
        assert_true(poses_bit_equal(&out, &a));
    }
    for (size_t i = 0; i < sizeof to_b / sizeof to_b[0]; i++) {
        fill_pose(&out, 9.0f);
        must(mn_pose_blend(&a, &b, to_b[i], &out, &err), &err);
        assert_true(poses_bit_equal(&out, &b));
    }
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&out);
}

static void blend_interpolates_translation_scale_and_slerps_rotation(void **state)
{
    (void)state;
    mn_pose a = make_pose(JOINTS), b = make_pose(JOINTS), out = make_pose(JOINTS);
    fill_pose(&a, 0.1f);
    fill_pose(&b, 2.3f);
    mn_error err;
    const float ts[] = {0.25f, 0.5f, 0.9f};
    for (size_t i = 0; i < 3; i++) {
        must(mn_pose_blend(&a, &b, ts[i], &out, &err), &err);
        for (uint32_t j = 0; j < JOINTS; j++)
            for (int c = 0; c < 3; c++) {
                float ta = a.translations[3 * j + c], tb = b.translations[3 * j + c];
                float sa = a.scales[3 * j + c], sb = b.scales[3 * j + c];
                assert_float_near(out.translations[3 * j + c], ta + (tb - ta) * ts[i], 1e-6);
                assert_float_near(out.scales[3 * j + c], sa + (sb - sa) * ts[i], 1e-6);
            }
        for (uint32_t j = 0; j < JOINTS; j++) {
            float expect[4];
            slerp_ref(expect, a.rotations + 4 * j, b.rotations + 4 * j, ts[i]);
            assert_vec_near(out.rotations + 4 * j, expect, 4, 1e-6);
        }
    }
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&out);
}

static void blend_takes_the_short_arc_and_nlerps_when_nearly_parallel(void **state)
{
    (void)state;
    mn_pose a = make_pose(1), b = make_pose(1), out = make_pose(1);
    float qa[4], qb[4];
    /* 10° and 170° about Z, b stored as its negation: the short arc still passes 90°. */
    quat_axis_angle(qa, 0, 0, 1, 10.0f * PI_F / 180.0f);
    quat_axis_angle(qb, 0, 0, 1, 170.0f * PI_F / 180.0f);
    for (int i = 0; i < 4; i++)
        qb[i] = -qb[i];
    assert_int_equal(mn_pose_set_joint(&a, 0, NULL, qa, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_set_joint(&b, 0, NULL, qb, NULL, NULL), MN_OK);
    mn_error err;
    must(mn_pose_blend(&a, &b, 0.5f, &out, &err), &err);
    float expect[4];
    quat_axis_angle(expect, 0, 0, 1, PI_F / 2);
    assert_vec_near(out.rotations, expect, 4, 1e-6);

    /* every width of arc: the fixed series (d >= 0.5), the summed one (d < 0.5), and b negated */
    for (int deg = 5; deg < 180; deg += 7) {
        float qc[4], want[4];
        quat_axis_angle(qc, 0.3f, -0.5f, 0.8f, (float)deg * PI_F / 180.0f);
        if (deg % 2)
            for (int i = 0; i < 4; i++)
                qc[i] = -qc[i];
        assert_int_equal(mn_pose_set_joint(&b, 0, NULL, qc, NULL, NULL), MN_OK);
        for (float w = 0.1f; w < 1.0f; w += 0.2f) {
            must(mn_pose_blend(&a, &b, w, &out, &err), &err);
            slerp_ref(want, qa, qc, w);
            assert_vec_near(out.rotations, want, 4, 1e-6);
        }
    }

    /* Nearly parallel (0.02 rad apart): the normalised lerp, within float of slerp. */
    quat_axis_angle(qb, 0, 0, 1, 10.0f * PI_F / 180.0f + 0.02f);
    assert_int_equal(mn_pose_set_joint(&b, 0, NULL, qb, NULL, NULL), MN_OK);
    must(mn_pose_blend(&a, &b, 0.3f, &out, &err), &err);
    slerp_ref(expect, qa, qb, 0.3);
    assert_vec_near(out.rotations, expect, 4, 1e-6);
    float n = sqrtf(out.rotations[0] * out.rotations[0] + out.rotations[1] * out.rotations[1] +
                    out.rotations[2] * out.rotations[2] + out.rotations[3] * out.rotations[3]);
    assert_float_near(n, 1.0f, 1e-6);
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&out);
}

static void blend_is_safe_when_out_is_a_or_b(void **state)
{
    (void)state;
    mn_pose a = make_pose(JOINTS), b = make_pose(JOINTS), expect = make_pose(JOINTS);
    mn_error err;
    fill_pose(&a, 0.1f);
    fill_pose(&b, 2.3f);
    must(mn_pose_blend(&a, &b, 0.4f, &expect, &err), &err);
    must(mn_pose_blend(&a, &b, 0.4f, &a, &err), &err);
    assert_true(poses_bit_equal(&a, &expect));
    fill_pose(&a, 0.1f);
    must(mn_pose_blend(&a, &b, 0.4f, &b, &err), &err);
    assert_true(poses_bit_equal(&b, &expect));
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&expect);
}

static void blend_refuses_mismatched_counts_and_leaves_out_untouched(void **state)
{
    (void)state;
    mn_pose a = make_pose(JOINTS), b = make_pose(JOINTS - 1), out = make_pose(JOINTS),
            keep = make_pose(JOINTS);
    fill_pose(&out, 5.0f);
    mn_pose_copy(&keep, &out);
    mn_error err;
    assert_int_equal(mn_pose_blend(&a, &b, 0.5f, &out, &err), MN_COUNT_MISMATCH);
    assert_int_equal(err.code, MN_COUNT_MISMATCH);
    assert_int_equal(mn_pose_add(&a, &b, 0.5f, &out, &err), MN_COUNT_MISMATCH);
    assert_int_equal(mn_pose_blend(&a, NULL, 0.5f, &out, &err), MN_INVALID_ARGUMENT);
    assert_true(poses_bit_equal(&out, &keep));
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&out);
    mn_pose_free(&keep);
}

/* ---- masks ------------------------------------------------------------------------ */

static void mask_weights_each_joint_by_layer_times_mask(void **state)
{
    (void)state;
    mn_pose a = make_pose(JOINTS), b = make_pose(JOINTS), out = make_pose(JOINTS),
            one = make_pose(1), oa = make_pose(1), ob = make_pose(1);
    fill_pose(&a, 0.1f);
    fill_pose(&b, 2.3f);
    const float mask[JOINTS] = {0.0f, 0.5f, 1.0f, 7.0f}; /* 7 clamps to 1 */
    const float t = 0.6f;
    mn_error err;
    must(mn_pose_blend_masked(&a, &b, t, mask, JOINTS, &out, &err), &err);
    /* joint 0: mask 0 copies a exactly */
    assert_memory_equal(out.translations, a.translations, 3 * sizeof(float));
    assert_memory_equal(out.rotations, a.rotations, 4 * sizeof(float));
    assert_memory_equal(out.scales, a.scales, 3 * sizeof(float));
    /* other joints: a single-joint blend at t·clamp01(mask) */
    for (uint32_t j = 1; j < JOINTS; j++) {
        float m = mask[j] > 1.0f ? 1.0f : mask[j];
        assert_int_equal(mn_pose_set_joint(&oa, 0, a.translations + 3 * j, a.rotations + 4 * j, a.scales + 3 * j, NULL), MN_OK);
        assert_int_equal(mn_pose_set_joint(&ob, 0, b.translations + 3 * j, b.rotations + 4 * j, b.scales + 3 * j, NULL), MN_OK);
        must(mn_pose_blend(&oa, &ob, t * m, &one, &err), &err);
        assert_memory_equal(out.translations + 3 * j, one.translations, 3 * sizeof(float));
        assert_memory_equal(out.rotations + 4 * j, one.rotations, 4 * sizeof(float));
        assert_memory_equal(out.scales + 3 * j, one.scales, 3 * sizeof(float));
    }
    /* NULL mask is the plain blend */
    mn_pose plain = make_pose(JOINTS);
    must(mn_pose_blend(&a, &b, t, &plain, &err), &err);
    must(mn_pose_blend_masked(&a, &b, t, NULL, 0, &out, &err), &err);
    assert_true(poses_bit_equal(&out, &plain));
    /* a mask of the wrong length is refused */
    assert_int_equal(mn_pose_blend_masked(&a, &b, t, mask, JOINTS - 1, &out, &err),
                     MN_COUNT_MISMATCH);
    assert_int_equal(mn_pose_add_masked(&a, &b, t, mask, JOINTS + 1, &out, &err), MN_COUNT_MISMATCH);
    assert_true(poses_bit_equal(&out, &plain));
    mn_pose_free(&plain);
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&out);
    mn_pose_free(&one);
    mn_pose_free(&oa);
    mn_pose_free(&ob);
}

static void masked_add_layers_only_the_masked_joints(void **state)
{
    (void)state;
    /* An upper-body layer: joints 2 and 3 take the delta, 0 and 1 keep the base exactly. */
    mn_pose base = make_pose(JOINTS), delta = make_pose(JOINTS), out = make_pose(JOINTS),
            full = make_pose(JOINTS);
    fill_pose(&base, 0.1f);
    fill_pose(&delta, 1.7f);
    const float upper[JOINTS] = {0, 0, 1, 1};
    mn_error err;
    must(mn_pose_add_masked(&base, &delta, 0.8f, upper, JOINTS, &out, &err), &err);
    must(mn_pose_add(&base, &delta, 0.8f, &full, &err), &err);
    for (uint32_t j = 0; j < JOINTS; j++) {
        const mn_pose *expect = upper[j] > 0 ? &full : &base;
        assert_memory_equal(out.translations + 3 * j, expect->translations + 3 * j, 3 * sizeof(float));
        assert_memory_equal(out.rotations + 4 * j, expect->rotations + 4 * j, 4 * sizeof(float));
        assert_memory_equal(out.scales + 3 * j, expect->scales + 3 * j, 3 * sizeof(float));
    }
    mn_pose_free(&base);
    mn_pose_free(&delta);
    mn_pose_free(&out);
    mn_pose_free(&full);
}

/* ---- additive ------------------------------------------------------------------------ */

static void scale_from_identity_follows_the_short_arc(void **state)
{
    (void)state;
    float q[4], half[4], out[4];
    quat_axis_angle(q, 0, 0, 1, PI_F / 2);
    quat_axis_angle(half, 0, 0, 1, PI_F / 4);
    mn_quat_scale_from_identity(out, q, 0.5f);
    assert_vec_near(out, half, 4, 1e-6);
    float neg[4] = {-q[0], -q[1], -q[2], -q[3]};
    mn_quat_scale_from_identity(out, neg, 0.5f);
    assert_vec_near(out, half, 4, 1e-6);
    mn_quat_scale_from_identity(out, q, 0.0f);
    assert_vec_near(out, ((float[4]){0, 0, 0, 1}), 4, 1e-7);
    mn_quat_scale_from_identity(out, q, 1.0f);
    assert_vec_near(out, q, 4, 1e-6);
    /* a wide arc (q.w < 0.5, summed to convergence) and one the fixed series covers, through
       the additive layer too (base identity, so the result is S itself) */
    const float angles[] = {2.97f, 1.9f, 0.6f};
    const float ws[] = {0.3f, 0.77f, 0.5f};
    mn_pose base = make_pose(1), delta = make_pose(1), sum = make_pose(1);
    for (int i = 0; i < 3; i++) {
        float big[4], want[4];
        quat_axis_angle(big, 1, 0, 0, angles[i]);
        quat_axis_angle(want, 1, 0, 0, ws[i] * angles[i]);
        mn_quat_scale_from_identity(out, big, ws[i]);
        assert_vec_near(out, want, 4, 1e-6);
        assert_int_equal(mn_pose_set_joint(&delta, 0, NULL, big, NULL, NULL), MN_OK);
        mn_error err;
        must(mn_pose_add(&base, &delta, ws[i], &sum, &err), &err);
        assert_vec_near(sum.rotations, want, 4, 1e-6);
    }
    mn_pose_free(&base);
    mn_pose_free(&delta);
    mn_pose_free(&sum);
    /* near identity (q.w > 0.9995): the normalised lerp from identity */
    float small[4], expect[4];
    quat_axis_angle(small, 1, 0, 0, 0.01f);
    quat_axis_angle(expect, 1, 0, 0, 0.0025f);
    mn_quat_scale_from_identity(out, small, 0.25f);
    assert_vec_near(out, expect, 4, 1e-6);
}

static void add_weight_zero_is_the_base_bit_exactly(void **state)
{
    (void)state;
    mn_pose base = make_pose(JOINTS), delta = make_pose(JOINTS), out = make_pose(JOINTS);
    fill_pose(&base, 0.1f);
    fill_pose(&delta, 1.7f);
    mn_error err;
    const float zeroes[] = {0.0f, -3.0f, NAN};
    for (size_t i = 0; i < 3; i++) {
        fill_pose(&out, 9.0f);
        must(mn_pose_add(&base, &delta, zeroes[i], &out, &err), &err);
        assert_true(poses_bit_equal(&out, &base));
    }
    mn_pose_free(&base);
    mn_pose_free(&delta);
    mn_pose_free(&out);
}

static void add_of_a_zero_delta_is_exact(void **state)
{
    (void)state;
    mn_pose base = make_pose(JOINTS), zero = make_pose(JOINTS), out = make_pose(JOINTS);
    fill_pose(&base, 0.1f); /* zero stays at identity: T 0, R I, S 1 */
    mn_error err;
    const float ws[] = {0.3f, 1.0f, 0.77f};
    for (size_t i = 0; i < 3; i++) {
        must(mn_pose_add(&base, &zero, ws[i], &out, &err), &err);
        assert_true(poses_bit_equal(&out, &base));
    }
    mn_pose_free(&base);
    mn_pose_free(&zero);
    mn_pose_free(&out);
}

static void add_composes_in_the_joint_frame_and_scale_multiplies(void **state)
{
    (void)state;
    mn_pose base = make_pose(1), delta = make_pose(1), out = make_pose(1);
    float rb[4], rd[4];
    quat_axis_angle(rb, 1, 0, 0, PI_F / 2);
    quat_axis_angle(rd, 0, 0, 1, 0.8f);
    assert_int_equal(mn_pose_set_joint(&base, 0, (float[3]){1, 2, 3}, rb, (float[3]){2, 2, 2}, NULL), MN_OK);
    assert_int_equal(mn_pose_set_joint(&delta, 0, (float[3]){0.5f, -1, 4}, rd, (float[3]){3, 1, 0.5f}, NULL), MN_OK);
    mn_error err;
    const float w = 0.5f;
    must(mn_pose_add(&base, &delta, w, &out, &err), &err);
    assert_vec_near(out.translations, ((float[3]){1.25f, 1.5f, 5.0f}), 3, 1e-6);
    /* S ⊙ (1 + (ΔS − 1)·w): 2·2, 2·1, 2·0.75 */
    assert_vec_near(out.scales, ((float[3]){4.0f, 2.0f, 1.5f}), 3, 1e-6);
    /* base · S(ΔR, w): 0.4 rad about the base's local Z */
    float half[4], expect[4];
    quat_axis_angle(half, 0, 0, 1, 0.4f);
    mn_quat_mul(expect, rb, half);
    assert_vec_near(out.rotations, expect, 4, 1e-6);
    /* weight past 1 clamps to 1 */
    mn_pose one = make_pose(1);
    must(mn_pose_add(&base, &delta, 1.0f, &one, &err), &err);
    must(mn_pose_add(&base, &delta, 4.0f, &out, &err), &err);
    assert_true(poses_bit_equal(&out, &one));
    mn_pose_free(&one);
    mn_pose_free(&base);
    mn_pose_free(&delta);
    mn_pose_free(&out);
}

static void add_of_a_made_delta_returns_the_pose(void **state)
{
    (void)state;
    mn_pose q = make_pose(JOINTS), ref = make_pose(JOINTS), delta = make_pose(JOINTS),
            out = make_pose(JOINTS);
    fill_pose(&q, 2.3f);
    fill_pose(&ref, 0.1f);
    mn_error err;
    must(mn_pose_make_additive(&q, &ref, &delta, &err), &err);
    must(mn_pose_add(&ref, &delta, 1.0f, &out, &err), &err);
    assert_poses_near(&out, &q, 1e-6);
    /* the delta of a pose against itself is the zero delta */
    must(mn_pose_make_additive(&ref, &ref, &delta, &err), &err);
    for (uint32_t j = 0; j < JOINTS; j++) {
        assert_vec_near(delta.translations + 3 * j, ((float[3]){0, 0, 0}), 3, 1e-6);
        assert_vec_near(delta.scales + 3 * j, ((float[3]){1, 1, 1}), 3, 1e-6);
        assert_float_near(fabsf(delta.rotations[4 * j + 3]), 1.0f, 1e-6);
    }
    /* alias: the delta written over the pose it came from */
    fill_pose(&delta, 2.3f);
    must(mn_pose_make_additive(&delta, &ref, &delta, &err), &err);
    must(mn_pose_add(&ref, &delta, 1.0f, &delta, &err), &err);
    assert_poses_near(&delta, &q, 1e-6);
    mn_pose_free(&q);
    mn_pose_free(&ref);
    mn_pose_free(&delta);
    mn_pose_free(&out);
}

static void make_additive_refuses_a_zero_reference_scale(void **state)
{
    (void)state;
    mn_pose q = make_pose(2), ref = make_pose(2), delta = make_pose(2), keep = make_pose(2);
    assert_int_equal(mn_pose_set_joint(&ref, 1, NULL, NULL, (float[3]){1, 0, 1}, NULL), MN_OK);
    fill_pose(&delta, 3.0f);
    mn_pose_copy(&keep, &delta);
    mn_error err;
    assert_int_equal(mn_pose_make_additive(&q, &ref, &delta, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "joint 1"));
    assert_true(poses_bit_equal(&delta, &keep));
    mn_pose_free(&q);
    mn_pose_free(&ref);
    mn_pose_free(&delta);
    mn_pose_free(&keep);
}

/* ---- additive clips ----------------------------------------------------------------------- */

static mn_track track(uint32_t target, mn_anim_path path, mn_interpolation interp,
                      const float *times, uint32_t keys, const float *values, uint32_t comps)
{
    mn_track t;
    memset(&t, 0, sizeof t);
    t.target = target;
    t.path = path;
    t.interpolation = interp;
    t.times = times;
    t.key_count = keys;
    t.values = values;
    t.components = comps;
    return t;
}

/* A clip on joints 0..2: linear, step and cubic translation/rotation/scale, and a weights track. */
static mn_clip *mixed_clip(void)
{
    static const float times[3] = {0.0f, 0.5f, 1.25f};
    static const float lin_t[9] = {0, 0, 0, 1, 2, 0, -1, 0.5f, 3};
    static float lin_r[12];
    static const float step_s[9] = {1, 1, 1, 2, 0.5f, 1, 1.5f, 1.5f, 1.5f};
    /* cubic: [in, value, out] per key */
    static const float cub_t[27] = {0, 0, 0, 0, 1, 0, 1, 0, 0, 0.5f, 0, 0, 1, 1, 1, -1, 0, 2,
                                    0, 1, 0, 2, 0, -1, 0, 0, 0};
    static float cub_r[36];
    static const float cub_s[27] = {0, 0, 0, 1, 1, 1, 0.5f, 0, 0, 0, 1, 0, 2, 1.5f, 1, 0, 0, 1,
                                    0, 0, 0, 0.5f, 2, 1, 0, 0, 0};
    static const float weights[6] = {0, 1, 0.5f, 0.5f, 1, 0};
    for (int k = 0; k < 3; k++) {
        quat_axis_angle(lin_r + 4 * k, 0.3f, 1, 0, 0.7f * (float)k - 0.2f);
        quat_axis_angle(cub_r + 12 * k + 4, 1, 0.2f, 0.1f, 0.9f * (float)k);
        for (int c = 0; c < 4; c++) {
            cub_r[12 * k + c] = 0.1f * (float)(c - k);          /* in-tangent */
            cub_r[12 * k + 8 + c] = -0.05f * (float)(c + k);    /* out-tangent */
        }
    }
    mn_track tracks[] = {
        track(0, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, times, 3, lin_t, 3),
        track(0, MN_PATH_ROTATION, MN_INTERP_LINEAR, times, 3, lin_r, 4),
        track(1, MN_PATH_SCALE, MN_INTERP_STEP, times, 3, step_s, 3),
        track(1, MN_PATH_TRANSLATION, MN_INTERP_CUBICSPLINE, times, 3, cub_t, 3),
        track(2, MN_PATH_ROTATION, MN_INTERP_CUBICSPLINE, times, 3, cub_r, 4),
        track(2, MN_PATH_SCALE, MN_INTERP_CUBICSPLINE, times, 3, cub_s, 3),
        track(3, MN_PATH_WEIGHTS, MN_INTERP_LINEAR, times, 3, weights, 2),
    };
    mn_clip *clip = NULL;
    mn_error err;
    must(mn_clip_create(tracks, sizeof tracks / sizeof tracks[0], "mixed", NULL, &clip, &err), &err);
    return clip;
}

static void additive_clip_samples_to_the_delta_of_the_original(void **state)
{
    (void)state;
    mn_clip *clip = mixed_clip();
    mn_pose ref = make_pose(JOINTS), sampled = make_pose(JOINTS), expect = make_pose(JOINTS),
            got = make_pose(JOINTS);
    fill_pose(&ref, 0.4f);
    mn_error err;
    mn_clip *additive = NULL;
    must(mn_clip_create_additive(clip, &ref, NULL, &additive, &err), &err);
    assert_string_equal(mn_clip_name(additive), "mixed");
    assert_int_equal(mn_clip_track_count(additive), mn_clip_track_count(clip));
    assert_float_equal(mn_clip_duration(additive), mn_clip_duration(clip), 0);
    for (float t = -0.2f; t < 1.5f; t += 0.0625f) {
        mn_pose_copy(&sampled, &ref);        /* untracked channels: ref, so their delta is zero */
        assert_int_equal(mn_clip_sample(clip, t, &sampled, NULL), MN_OK);
        must(mn_pose_make_additive(&sampled, &ref, &expect, &err), &err);
        mn_pose_set_identity(&got);          /* the reset the header asks for */
        assert_int_equal(mn_clip_sample(additive, t, &got, NULL), MN_OK);
        assert_poses_near(&got, &expect, 1e-5);
        float w0[2], w1[2];
        assert_true(mn_clip_sample_weights(clip, t, 3, w0, 2));
        assert_true(mn_clip_sample_weights(additive, t, 3, w1, 2));
        assert_memory_equal(w0, w1, sizeof w0);
    }
    /* and laying it back over the reference gives the original's sample */
    mn_pose_set_identity(&got);
    assert_int_equal(mn_clip_sample(additive, 0.8f, &got, NULL), MN_OK);
    must(mn_pose_add(&ref, &got, 1.0f, &got, &err), &err);
    mn_pose_copy(&sampled, &ref);
    assert_int_equal(mn_clip_sample(clip, 0.8f, &sampled, NULL), MN_OK);
    assert_poses_near(&got, &sampled, 1e-5);
    mn_clip_free(additive);
    mn_clip_free(clip);
    mn_pose_free(&ref);
    mn_pose_free(&sampled);
    mn_pose_free(&expect);
    mn_pose_free(&got);
}

static void additive_clip_refuses_bad_references(void **state)
{
    (void)state;
    mn_clip *clip = mixed_clip(), *additive = (mn_clip *)&additive;
    mn_pose small = make_pose(2), zero_scale = make_pose(JOINTS);
    mn_error err;
    assert_int_equal(mn_clip_create_additive(clip, &small, NULL, &additive, &err), MN_INDEX_RANGE);
    assert_null(additive);
    assert_int_equal(mn_pose_set_joint(&zero_scale, 2, NULL, NULL, (float[3]){1, 1, 0}, NULL), MN_OK);
    assert_int_equal(mn_clip_create_additive(clip, &zero_scale, NULL, &additive, &err),
                     MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "joint 2"));
    /* a zero scale on a joint no scale track drives is fine */
    assert_int_equal(mn_pose_set_joint(&zero_scale, 2, NULL, NULL, (float[3]){1, 1, 1}, NULL), MN_OK);
    assert_int_equal(mn_pose_set_joint(&zero_scale, 0, NULL, NULL, (float[3]){0, 1, 1}, NULL), MN_OK);
    must(mn_clip_create_additive(clip, &zero_scale, NULL, &additive, &err), &err);
    mn_clip_free(additive);
    assert_int_equal(mn_clip_create_additive(NULL, &small, NULL, &additive, &err),
                     MN_INVALID_ARGUMENT);
    mn_clip_free(clip);
    mn_pose_free(&small);
    mn_pose_free(&zero_scale);
}

static void additive_clip_frees_everything_and_survives_out_of_memory(void **state)
{
    (void)state;
    mn_clip *clip = mixed_clip();
    mn_pose ref = make_pose(JOINTS);
    mn_error err;
    for (long fail = 0;; fail++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = fail;
        mn_clip_options options = {.allocator = mn_counting_allocator(&counter)};
        mn_clip *additive = NULL;
        mn_status st = mn_clip_create_additive(clip, &ref, &options, &additive, &err);
        mn_clip_free(additive);
        assert_int_equal(counter.live_bytes, 0);
        if (st == MN_OK)
            break;
        assert_int_equal(st, MN_OUT_OF_MEMORY);
        assert_true(fail < 10);
    }
    mn_clip_free(clip);
    mn_pose_free(&ref);
}

/* ---- SIMD against the scalar reference ------------------------------------------------------ */

/*
 * 71 joints: two SIMD calls (64 + 4) and a scalar tail of 3.  Rotations
 * cycle through the cases the kernels pick between lane by lane: near
 * parallel (nlerp), apart within the fixed series, wider than 120° (the
 * reference's summed series, whole groups handed back), the long way round
 * (short-arc flip), equal, an identity (delta) and a non-finite one.
 */
#define SIMD_JOINTS 71u

static void fill_cases(mn_pose *a, mn_pose *b)
{
    static const float angle_b[] = {0.0001f, 0.6f, 2.6f, 0.3f, 0.0f, 1.2f, 0.9f, 0.05f};
    for (uint32_t j = 0; j < SIMD_JOINTS; j++) {
        float k = (float)j;
        float ta[3] = {0.1f * k, 1.0f - 0.2f * k, -0.0f}, tb[3] = {-0.3f * k, 0.5f, 0.25f * k};
        float sa[3] = {1.0f, 1.0f + 0.01f * k, 0.5f}, sb[3] = {1.0f, 2.0f - 0.01f * k, 0.5f};
        float ra[4], rb[4];
        float ax = 0.3f + 0.1f * (float)(j % 5), ay = 1.0f - 0.05f * (float)(j % 7);
        quat_axis_angle(ra, ax, ay, 0.2f, 0.3f + 0.01f * k);
        quat_axis_angle(rb, ax, ay, 0.2f, 0.3f + 0.01f * k + angle_b[j % 8]);
        uint32_t kind = (j / 8) % 4;
        if (kind == 1 && j % 3 == 0)
            for (int i = 0; i < 4; i++)
                rb[i] = -rb[i]; /* the long way round */
        if (kind == 2 && j % 4 == 1)
            rb[0] = rb[1] = rb[2] = 0.0f, rb[3] = j % 8 == 1 ? 1.0f : -1.0f; /* identity, ±w */
        assert_int_equal(mn_pose_set_joint(a, j, ta, ra, sa, NULL), MN_OK);
        assert_int_equal(mn_pose_set_joint(b, j, tb, rb, sb, NULL), MN_OK);
        if (j == 45)
            b->rotations[4 * j + 1] = NAN; /* written straight in: set_joint refuses a NaN */
    }
}

/* Masks: weights 0 and 1 (copies), fractions, out-of-range and NaN (clamped); NULL too. */
static const float *simd_mask(int which, float *mask)
{
    if (which == 0)
        return NULL;
    for (uint32_t j = 0; j < SIMD_JOINTS; j++) {
        static const float cycle[] = {0.0f, 1.0f, 0.25f, 0.75f, 2.0f, -1.0f, 0.5f, 0.0f};
        mask[j] = which == 1 ? cycle[j % 8] : (j < 12 || j > 60 ? 0.0f : 1.0f);
    }
    if (which == 1)
        mask[20] = NAN;
    return mask;
}

/*
 * Every component within 1e-6 of the reference, NaN where it is NaN, and
 * the same bits on every joint whose weight is 0 or 1 (copies) or whose
 * data are copied or kept by rule.
 */
static void assert_matches_reference(const mn_pose *got, const mn_pose *want, const float *mask,
                                     float layer)
{
    for (uint32_t j = 0; j < SIMD_JOINTS; j++) {
        float w = mask ? mni_clamp01(layer) * mni_clamp01(mask[j]) : mni_clamp01(layer);
        const float *g[3] = {got->translations + 3 * j, got->rotations + 4 * j, got->scales + 3 * j};
        const float *e[3] = {want->translations + 3 * j, want->rotations + 4 * j, want->scales + 3 * j};
        for (int c = 0; c < 3; c++)
            for (int i = 0; i < (c == 1 ? 4 : 3); i++) {
                if (w == 0.0f || w == 1.0f)
                    assert_memory_equal(&g[c][i], &e[c][i], sizeof(float));
                else if (isnan(e[c][i]))
                    assert_true(isnan(g[c][i]));
                else
                    assert_float_near(g[c][i], e[c][i], 1e-6);
            }
    }
}

static void simd_blend_matches_the_scalar_reference(void **state)
{
    (void)state;
    mn_pose a = make_pose(SIMD_JOINTS), b = make_pose(SIMD_JOINTS), sse2 = make_pose(SIMD_JOINTS);
    mn_pose out = make_pose(SIMD_JOINTS), ref = make_pose(SIMD_JOINTS);
    fill_cases(&a, &b);
    static const float layers[] = {0.0f, 0.3f, 0.5f, 0.9f, 1.0f};
    float storage[SIMD_JOINTS];
    for (int m = 0; m < 3; m++)
        for (size_t l = 0; l < sizeof layers / sizeof layers[0]; l++) {
            const float *mask = simd_mask(m, storage);
            mn_blend_poses_reference(&a, &b, layers[l], mask, &ref);
            for (mn_simd_level level = MN_SIMD_SSE2; level <= MN_SIMD_AVX2_FMA; level++) {
                mni_blend_poses_at(&a, &b, layers[l], mask, &out, level);
                assert_matches_reference(&out, &ref, mask, layers[l]);
                if (level == MN_SIMD_SSE2)
                    mn_pose_copy(&sse2, &out);
                else /* the same operations lane for lane: the same bits */
                    assert_true(poses_bit_equal(&out, &sse2));
            }
            mni_blend_poses(&a, &b, layers[l], mask, &out);
            /* out aliasing a: the same result */
            mn_pose alias = make_pose(SIMD_JOINTS);
            mn_pose_copy(&alias, &a);
            mni_blend_poses(&alias, &b, layers[l], mask, &alias);
            assert_true(poses_bit_equal(&alias, &out));
            mn_pose_free(&alias);
        }
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&sse2);
    mn_pose_free(&out);
    mn_pose_free(&ref);
}

/* An add against the reference: within 1e-6, and the base's bits where the rule keeps them. */
static void assert_add_matches(const mn_pose *out, const mn_pose *base, const mn_pose *delta,
                               const mn_pose *ref, const float *mask, float layer)
{
    for (uint32_t j = 0; j < SIMD_JOINTS; j++) {
        float w = mask ? mni_clamp01(layer) * mni_clamp01(mask[j]) : mni_clamp01(layer);
        const float *rd = delta->rotations + 4 * j;
        bool identity = rd[0] == 0.0f && rd[1] == 0.0f && rd[2] == 0.0f;
        if (w == 0.0f)
            assert_memory_equal(out->translations + 3 * j, base->translations + 3 * j, 12);
        if (w == 0.0f || identity)
            assert_memory_equal(out->rotations + 4 * j, base->rotations + 4 * j, 16);
        for (int i = 0; i < 4; i++) {
            float g = out->rotations[4 * j + i], e = ref->rotations[4 * j + i];
            if (isnan(e))
                assert_true(isnan(g));
            else
                assert_float_near(g, e, 1e-6);
        }
        for (int i = 0; i < 3; i++) {
            assert_float_near(out->translations[3 * j + i], ref->translations[3 * j + i], 1e-6);
            assert_float_near(out->scales[3 * j + i], ref->scales[3 * j + i], 1e-6);
        }
    }
}

static void simd_add_matches_the_scalar_reference(void **state)
{
    (void)state;
    mn_pose base = make_pose(SIMD_JOINTS), delta = make_pose(SIMD_JOINTS), sse2 = make_pose(SIMD_JOINTS);
    mn_pose out = make_pose(SIMD_JOINTS), ref = make_pose(SIMD_JOINTS);
    fill_cases(&base, &delta);
    static const float layers[] = {0.0f, 0.3f, 0.5f, 0.9f, 1.0f};
    float storage[SIMD_JOINTS];
    for (int m = 0; m < 3; m++)
        for (size_t l = 0; l < sizeof layers / sizeof layers[0]; l++) {
            const float *mask = simd_mask(m, storage);
            mn_add_poses_reference(&base, &delta, layers[l], mask, &ref);
            mni_add_poses_at(&base, &delta, layers[l], mask, &sse2, MN_SIMD_SSE2);
            assert_add_matches(&sse2, &base, &delta, &ref, mask, layers[l]);
            mni_add_poses_at(&base, &delta, layers[l], mask, &out, MN_SIMD_AVX2_FMA);
            assert_true(poses_bit_equal(&out, &sse2)); /* lane for lane the same operations */
            mni_add_poses(&base, &delta, layers[l], mask, &out);
            assert_add_matches(&out, &base, &delta, &ref, mask, layers[l]);
            /* out aliasing base (how a layer is applied in place): the same result */
            mn_pose alias = make_pose(SIMD_JOINTS);
            mn_pose_copy(&alias, &base);
            mni_add_poses(&alias, &delta, layers[l], mask, &alias);
            assert_true(poses_bit_equal(&alias, &out));
            mn_pose_free(&alias);
        }
    mn_pose_free(&base);
    mn_pose_free(&delta);
    mn_pose_free(&sse2);
    mn_pose_free(&out);
    mn_pose_free(&ref);
}

/*
 * Translations and scales equal on both sides (a bind translation, a unit
 * scale) are skipped by the SIMD blend: still the reference's bits, −0 and
 * infinities (which the formula turns into +0 and NaN) included.
 */
static void blend_of_equal_channels_matches_the_reference_exactly(void **state)
{
    (void)state;
    mn_pose a = make_pose(SIMD_JOINTS), b = make_pose(SIMD_JOINTS);
    mn_pose out = make_pose(SIMD_JOINTS), ref = make_pose(SIMD_JOINTS);
    fill_cases(&a, &b);
    memcpy(b.translations, a.translations, SIMD_JOINTS * 3 * sizeof(float));
    memcpy(b.scales, a.scales, SIMD_JOINTS * 3 * sizeof(float));
    a.translations[3 * 5 + 1] = b.translations[3 * 5 + 1] = -0.0f;
    a.translations[3 * 9] = b.translations[3 * 9] = 0.0f;
    a.scales[3 * 17 + 2] = b.scales[3 * 17 + 2] = INFINITY;
    for (int alias = 0; alias < 2; alias++) {
        mn_pose *dst = alias ? &a : &out;
        mn_blend_poses_reference(&a, &b, 0.35f, NULL, &ref);
        mni_blend_poses_at(&a, &b, 0.35f, NULL, dst, alias ? MN_SIMD_AVX2_FMA : MN_SIMD_SSE2);
        for (uint32_t i = 0; i < 3 * SIMD_JOINTS; i++) {
            const float *pairs[2][2] = {{dst->translations, ref.translations}, {dst->scales, ref.scales}};
            for (int c = 0; c < 2; c++) {
                if (isnan(pairs[c][1][i]))
                    assert_true(isnan(pairs[c][0][i]));
                else
                    assert_memory_equal(&pairs[c][0][i], &pairs[c][1][i], sizeof(float));
            }
        }
        assert_true(signbit(ref.translations[3 * 5 + 1]) == 0); /* the formula's +0 */
    }
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&out);
    mn_pose_free(&ref);
}

/* A masked layer's zero region: nothing computed, the first operand's bits left in place. */
static void zero_mask_regions_are_left_untouched(void **state)
{
    (void)state;
    mn_pose a = make_pose(SIMD_JOINTS), b = make_pose(SIMD_JOINTS), before = make_pose(SIMD_JOINTS);
    fill_cases(&a, &b);
    mn_pose_copy(&before, &a);
    float storage[SIMD_JOINTS];
    const float *mask = simd_mask(2, storage); /* joints 0..11 and 61..70 at 0 */
    mni_blend_poses(&a, &b, 0.4f, mask, &a);
    mni_add_poses(&a, &b, 0.7f, mask, &a);
    for (uint32_t j = 0; j < SIMD_JOINTS; j++) {
        if (mask[j] != 0.0f)
            continue;
        assert_memory_equal(a.translations + 3 * j, before.translations + 3 * j, 12);
        assert_memory_equal(a.rotations + 4 * j, before.rotations + 4 * j, 16);
        assert_memory_equal(a.scales + 3 * j, before.scales + 3 * j, 12);
    }
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&before);
}

/* ---- allocation ----------------------------------------------------------------------------- */

/*
 * mni_blend_poses3 (a set of three in a blend tree): at every kernel level,
 * the bits of the two blends one after the other, on fill_cases' joints
 * (wide arcs whose groups go back to the two blends apart, flips, a NaN,
 * the scalar tail of 71 joints), with c a third pose, at weights inside
 * (0, 1), at 0 and 1 (copies, taken apart) and out of range; out may be a
 * or b.
 */
static void fused_three_way_blend_is_the_two_blends_bit_for_bit(void **state)
{
    (void)state;
    mn_pose a = make_pose(SIMD_JOINTS), b = make_pose(SIMD_JOINTS), c = make_pose(SIMD_JOINTS);
    mn_pose want = make_pose(SIMD_JOINTS), got = make_pose(SIMD_JOINTS), c_b = make_pose(SIMD_JOINTS);
    fill_cases(&a, &b);
    fill_cases(&c_b, &c); /* c: fill_cases' second pose, shifted against b below */
    for (uint32_t j = 0; j < SIMD_JOINTS; j++) { /* c apart from b: moved, scaled, rotations permuted */
        float *q = c.rotations + 4 * j, x = q[0];
        c.translations[3 * j] += 0.5f, c.scales[3 * j + 2] = 0.75f;
        if (j % 3 == 0)
            q[0] = q[1], q[1] = q[2], q[2] = x;
        if (j % 5 == 0)
            q[0] = -q[0], q[1] = -q[1], q[2] = -q[2], q[3] = -q[3];
    }
    static const float weights[][2] = {{0.375f, 0.2f}, {0.5f, 0.5f}, {0.9f, 0.05f}, {0.0f, 0.3f},
                                       {0.4f, 1.0f},   {1.5f, -2.0f}, {0.25f, 0.999f}};
    for (size_t k = 0; k < sizeof weights / sizeof weights[0]; k++) {
        float tb = weights[k][0], tc = weights[k][1];
        for (mn_simd_level level = MN_SIMD_SCALAR; level <= MN_SIMD_AVX2_FMA; level++) {
            mni_blend_poses_at(&a, &b, tb, NULL, &want, level);
            mni_blend_poses_at(&want, &c, tc, NULL, &want, level);
            memset(got.rotations, 0xff, 4 * SIMD_JOINTS * sizeof(float));
            mni_blend_poses3_at(&a, &b, &c, tb, tc, &got, level);
            assert_true(poses_bit_equal(&got, &want));
            mn_pose_copy(&got, &a); /* out is a */
            mni_blend_poses3_at(&got, &b, &c, tb, tc, &got, level);
            assert_true(poses_bit_equal(&got, &want));
            mn_pose alias_b = make_pose(SIMD_JOINTS); /* out is b */
            mn_pose_copy(&alias_b, &b);
            mni_blend_poses3_at(&a, &alias_b, &c, tb, tc, &alias_b, level);
            assert_true(poses_bit_equal(&alias_b, &want));
            mn_pose_free(&alias_b);
        }
        mni_blend_poses3(&a, &b, &c, tb, tc, &got);
        mni_blend_poses(&a, &b, tb, NULL, &want);
        mni_blend_poses(&want, &c, tc, NULL, &want);
        assert_true(poses_bit_equal(&got, &want));
    }
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&c);
    mn_pose_free(&c_b);
    mn_pose_free(&want);
    mn_pose_free(&got);
}

/*
 * mni_blend_sum3 (a `weighted_sum` set): every kernel level gives the scalar
 * reference's bits on fill_cases' joints (flips, wide arcs, a NaN, the
 * scalar tail), three poses and two (c = b, wc = 0), out aliasing a, b or
 * c; equal channels keep their bits; and the reference is the formula.
 */
static void weighted_sum_kernels_match_the_reference_bit_for_bit(void **state)
{
    (void)state;
    mn_pose a = make_pose(SIMD_JOINTS), b = make_pose(SIMD_JOINTS), c = make_pose(SIMD_JOINTS);
    mn_pose want = make_pose(SIMD_JOINTS), got = make_pose(SIMD_JOINTS), spare = make_pose(SIMD_JOINTS);
    fill_cases(&a, &b);
    fill_cases(&spare, &c);
    for (uint32_t j = 0; j < SIMD_JOINTS; j++) {
        float *q = c.rotations + 4 * j, x = q[0];
        c.translations[3 * j] += 0.5f;
        if (j % 3 == 0)
            q[0] = q[1], q[1] = q[2], q[2] = x;
        if (j % 5 == 0)
            q[0] = -q[0], q[1] = -q[1], q[2] = -q[2], q[3] = -q[3];
    }
    static const float weights[][3] = {{0.5f, 0.3f, 0.2f}, {0.1f, 0.1f, 0.8f}, {0.6f, 0.4f, 0.0f},
                                       {1.0f, 0.0f, 0.0f}, {0.0f, 0.25f, 0.75f}};
    for (size_t k = 0; k < sizeof weights / sizeof weights[0]; k++) {
        float wa = weights[k][0], wb = weights[k][1], wc = weights[k][2];
        const mn_pose *third = wc == 0.0f ? &b : &c;
        mni_blend_sum3_at(&a, &b, third, wa, wb, wc, &want, MN_SIMD_SCALAR);
        for (uint32_t j = 0; j < SIMD_JOINTS; j++) { /* the reference is the formula */
            float x = a.translations[3 * j], y = b.translations[3 * j], z = third->translations[3 * j];
            float t = x + (y - x) * wb + (z - x) * wc;
            assert_memory_equal(&want.translations[3 * j], &t, sizeof t);
        }
        for (mn_simd_level level = MN_SIMD_SSE2; level <= MN_SIMD_AVX2_FMA; level++) {
            memset(got.rotations, 0xff, 4 * SIMD_JOINTS * sizeof(float));
            mni_blend_sum3_at(&a, &b, third, wa, wb, wc, &got, level);
            assert_true(poses_bit_equal(&got, &want));
            const mn_pose *inputs[3] = {&a, &b, third};
            for (int alias = 0; alias < 3; alias++) { /* out is each input in turn */
                mn_pose in[3] = {make_pose(SIMD_JOINTS), make_pose(SIMD_JOINTS), make_pose(SIMD_JOINTS)};
                for (int i = 0; i < 3; i++)
                    mn_pose_copy(&in[i], inputs[i]);
                mni_blend_sum3_at(&in[0], &in[1], wc == 0.0f ? &in[1] : &in[2], wa, wb, wc, &in[alias], level);
                if (!(wc == 0.0f && alias == 2))
                    assert_true(poses_bit_equal(&in[alias], &want));
                for (int i = 0; i < 3; i++)
                    mn_pose_free(&in[i]);
            }
        }
    }
    /* equal channels (unit scales, one translation) keep their bits */
    for (uint32_t j = 0; j < 3 * SIMD_JOINTS; j++) {
        b.scales[j] = c.scales[j] = a.scales[j];
        b.translations[j] = c.translations[j] = a.translations[j] = (float)j * 0.1f;
    }
    mni_blend_sum3(&a, &b, &c, 0.3f, 0.3f, 0.4f, &got);
    assert_memory_equal(got.scales, a.scales, 3 * SIMD_JOINTS * sizeof(float));
    assert_memory_equal(got.translations, a.translations, 3 * SIMD_JOINTS * sizeof(float));
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&c);
    mn_pose_free(&spare);
    mn_pose_free(&want);
    mn_pose_free(&got);
}

/* A uniform float in [0, 1) from an LCG. */
static float rnd(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return (float)(*seed >> 8) * (1.0f / 16777216.0f);
}

/* Rotation angle between two unit quaternions, radians. */
static double quat_angle(const float *p, const float *q)
{
    double d = fabs((double)p[0] * q[0] + (double)p[1] * q[1] + (double)p[2] * q[2] + (double)p[3] * q[3]);
    return 2.0 * acos(d < 1.0 ? d : 1.0);
}

/*
 * The weighted sum against the default sequential slerps
 * (blend(blend(a, b, wb/(wa + wb)), c, wc)) on random triples of rotations
 * within 0.7 rad of one another at random barycentric weights: at most
 * 1.5e-3 rad apart (the bound blend_tree.h's WEIGHTED SUMS states), and
 * translations within float rounding of the barycentric mix.
 */
static void weighted_sum_stays_within_its_bound_of_sequential_slerp(void **state)
{
    (void)state;
    enum { N = 512 };
    mn_pose a = make_pose(N), b = make_pose(N), c = make_pose(N), sum = make_pose(N), seq = make_pose(N);
    uint32_t seed = 12345u;
    double worst = 0.0;
    for (int round = 0; round < 8; round++) {
        for (uint32_t j = 0; j < N; j++) {
            float base[4], off[4];
            quat_axis_angle(base, rnd(&seed) - 0.5f, rnd(&seed) - 0.5f, rnd(&seed) - 0.5f + 1e-3f, 6.0f * rnd(&seed));
            mn_pose *p[3] = {&a, &b, &c};
            for (int i = 0; i < 3; i++) { /* each within 0.35 rad of base: pairwise within 0.7 */
                quat_axis_angle(off, rnd(&seed) - 0.5f, rnd(&seed) - 0.5f, rnd(&seed) - 0.5f + 1e-3f, 0.35f * rnd(&seed));
                mn_quat_mul(p[i]->rotations + 4 * j, base, off);
                if (rnd(&seed) < 0.3f) /* the other hemisphere: one rotation */
                    for (int k = 0; k < 4; k++)
                        p[i]->rotations[4 * j + k] = -p[i]->rotations[4 * j + k];
                for (int k = 0; k < 3; k++)
                    p[i]->translations[3 * j + k] = rnd(&seed) * 2.0f - 1.0f;
            }
        }
        float wb = 0.05f + 0.5f * rnd(&seed), wc = 0.05f + 0.4f * rnd(&seed), wa = 1.0f - wb - wc;
        mni_blend_sum3(&a, &b, &c, wa, wb, wc, &sum);
        mni_blend_poses3(&a, &b, &c, wb / (wa + wb), wc, &seq);
        for (uint32_t j = 0; j < N; j++) {
            double e = quat_angle(sum.rotations + 4 * j, seq.rotations + 4 * j);
            worst = e > worst ? e : worst;
            for (int k = 0; k < 3; k++) {
                uint32_t at = 3 * j + (uint32_t)k;
                double mix = wa * a.translations[at] + wb * b.translations[at] + wc * c.translations[at];
                assert_true(fabs(sum.translations[at] - mix) <= 1e-6);
            }
        }
    }
    print_message("weighted sum vs sequential slerp: worst %.3g rad\n", worst);
    assert_true(worst <= 1.5e-3);
    assert_true(worst > 1e-5); /* the two do differ: the comparison is not vacuous */
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&c);
    mn_pose_free(&sum);
    mn_pose_free(&seq);
}

static void blending_allocates_nothing(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_pose a, b, out;
    mn_error err;
    must(mn_pose_create(&a, JOINTS, &hooks, &err), &err);
    must(mn_pose_create(&b, JOINTS, &hooks, &err), &err);
    must(mn_pose_create(&out, JOINTS, &hooks, &err), &err);
    fill_pose(&a, 0.2f);
    fill_pose(&b, 1.1f);
    const float mask[JOINTS] = {1, 0.5f, 0, 1};
    size_t before = counter.allocs;
    for (int i = 0; i < 100; i++) {
        float w = (float)i / 99.0f;
        must(mn_pose_blend(&a, &b, w, &out, &err), &err);
        must(mn_pose_blend_masked(&a, &b, w, mask, JOINTS, &out, &err), &err);
        must(mn_pose_add(&out, &b, w, &out, &err), &err);
        must(mn_pose_add_masked(&a, &b, w, mask, JOINTS, &out, &err), &err);
        must(mn_pose_make_additive(&a, &b, &out, &err), &err);
        must(mn_pose_set_joint(&out, 1, a.translations, NULL, NULL, &err), &err);
        mni_blend_poses3(&a, &b, &a, w, 0.5f, &out);
        mni_blend_sum3(&a, &b, &out, 0.5f, 0.25f, 0.25f, &out);
    }
    assert_int_equal(counter.allocs, before);
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&out);
    assert_int_equal(counter.live_bytes, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blend_endpoints_copy_inputs_bit_exactly),
        cmocka_unit_test(blend_interpolates_translation_scale_and_slerps_rotation),
        cmocka_unit_test(blend_takes_the_short_arc_and_nlerps_when_nearly_parallel),
        cmocka_unit_test(blend_is_safe_when_out_is_a_or_b),
        cmocka_unit_test(blend_refuses_mismatched_counts_and_leaves_out_untouched),
        cmocka_unit_test(mask_weights_each_joint_by_layer_times_mask),
        cmocka_unit_test(masked_add_layers_only_the_masked_joints),
        cmocka_unit_test(scale_from_identity_follows_the_short_arc),
        cmocka_unit_test(add_weight_zero_is_the_base_bit_exactly),
        cmocka_unit_test(add_of_a_zero_delta_is_exact),
        cmocka_unit_test(add_composes_in_the_joint_frame_and_scale_multiplies),
        cmocka_unit_test(add_of_a_made_delta_returns_the_pose),
        cmocka_unit_test(make_additive_refuses_a_zero_reference_scale),
        cmocka_unit_test(additive_clip_samples_to_the_delta_of_the_original),
        cmocka_unit_test(additive_clip_refuses_bad_references),
        cmocka_unit_test(additive_clip_frees_everything_and_survives_out_of_memory),
        cmocka_unit_test(simd_blend_matches_the_scalar_reference),
        cmocka_unit_test(simd_add_matches_the_scalar_reference),
        cmocka_unit_test(blend_of_equal_channels_matches_the_reference_exactly),
        cmocka_unit_test(zero_mask_regions_are_left_untouched),
        cmocka_unit_test(fused_three_way_blend_is_the_two_blends_bit_for_bit),
        cmocka_unit_test(weighted_sum_kernels_match_the_reference_bit_for_bit),
        cmocka_unit_test(weighted_sum_stays_within_its_bound_of_sequential_slerp),
        cmocka_unit_test(blending_allocates_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
