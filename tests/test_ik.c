/*
 * Inverse kinematics (src/anim/ik.c): two-bone IK reach, unreachable and
 * too-close targets, the pole half-plane, twist, soften (ozz's curve, exact
 * numbers), weight (0 = no change, scaled from identity, clamped), the
 * reached rule at its edges, errors, the batch (the lone solve's bits); aim chains with offsets, weights,
 * limits, a carried multi-joint chain and twist control by up and pole.
 * Every solve is checked by applying the corrections to a pose and
 * recomputing the worlds, not by reading the corrections back.  (The solvers
 * take no allocator and call none: nothing here can allocate.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/ik.h>
#include <marionette/math.h>
#include <marionette/pose.h>

#include "assert_near.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define MAXJ 4

/* A chain of joints, each the child of the one before, with its worlds. */
typedef struct chain {
    mn_pose pose;
    _Alignas(16) unsigned char storage[512];
    float worlds[16 * MAXJ];
} chain;

static void chain_update(chain *c)
{
    float locals[16 * MAXJ];
    mn_pose_local_matrices(&c->pose, locals);
    memcpy(c->worlds, locals, 16 * sizeof(float));
    for (uint32_t j = 1; j < c->pose.joint_count; j++)
        mn_mat4_mul(c->worlds + 16 * j, c->worlds + 16 * (j - 1), locals + 16 * j);
}

static void chain_init(chain *c, uint32_t n)
{
    assert_true(mn_pose_storage_size(n) <= sizeof c->storage);
    mn_pose_init(&c->pose, n, c->storage);
}

static void set_local(chain *c, uint32_t j, float tx, float ty, float tz, const float q[4])
{
    const float t[3] = {tx, ty, tz};
    assert_int_equal(mn_pose_set_joint(&c->pose, j, t, q, NULL, NULL), MN_OK);
}

static const float *position(const chain *c, uint32_t j)
{
    return c->worlds + 16 * j + 12;
}

static float dist3(const float *a, const float *b)
{
    float d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static void quat_axis(float q[4], float x, float y, float z, float angle)
{
    const float axis[3] = {x, y, z};
    mn_quat_from_axis_angle(q, axis, angle);
}

/*
 * A leg: start at an arbitrary orientation; the mid joint turned about its
 * own +Z, bones in the mid's XY plane, so the hinge is mid-local +Z.  Bones
 * of length 1.0 and 0.8; bent so that a positive turn about +Z opens it.
 */
static void make_leg(chain *c)
{
    chain_init(c, 3);
    float q0[4], q1[4];
    quat_axis(q0, 0.3f, 1.0f, -0.2f, 0.7f);
    quat_axis(q1, 0.0f, 0.0f, 1.0f, 0.4f);
    set_local(c, 0, 0.5f, 1.0f, -0.25f, q0);
    set_local(c, 1, 1.0f, 0.0f, 0.0f, q1);
    set_local(c, 2, 0.0f, -0.8f, 0.0f, NULL);
    chain_update(c);
}

static mn_ik_two_bone leg_job(const chain *c, const float target[3])
{
    mn_ik_two_bone job;
    mn_ik_two_bone_init(&job);
    job.start_world = c->worlds;
    job.mid_world = c->worlds + 16;
    job.end_world = c->worlds + 32;
    memcpy(job.target, target, sizeof job.target);
    return job;
}

static void apply(chain *c, const mn_ik_two_bone_result *res)
{
    mn_ik_apply_correction(&c->pose, 0, res->start_correction);
    mn_ik_apply_correction(&c->pose, 1, res->mid_correction);
    chain_update(c);
}

/* A point at distance `frac` × chain length from the start, along a fixed direction. */
static void target_at(const chain *c, float frac, float target[3])
{
    const float dir[3] = {0.48f, -0.8f, 0.36f}; /* unit */
    const float *s = position(c, 0);
    for (int i = 0; i < 3; i++)
        target[i] = s[i] + dir[i] * frac * 1.8f;
}

static void reachable_target_is_reached(void **state)
{
    (void)state;
    chain c;
    make_leg(&c);
    float target[3];
    target_at(&c, 0.7f, target);
    mn_ik_two_bone job = leg_job(&c, target);
    mn_ik_two_bone_result res;
    mn_error err;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, &err), MN_OK);
    assert_true(res.reached);
    apply(&c, &res);
    assert_vec_near(position(&c, 2), target, 3, 1e-5);
    /* Bone lengths are kept: corrections are rotations. */
    assert_float_near(dist3(position(&c, 0), position(&c, 1)), 1.0f, 1e-5);
    assert_float_near(dist3(position(&c, 1), position(&c, 2)), 0.8f, 1e-5);
    /* Unit corrections. */
    const float *q = res.start_correction;
    assert_float_near(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0f, 1e-6);
}

/*
 * §13's mid correction, written out: the interior angle at the mid joint goes
 * from acos(c₀) to acos(c₁) (law of cosines, now and at the target distance),
 * so the correction turns acos(c₁) − acos(c₀) about the hinge (+Z here, where
 * a positive turn opens the leg).  The solver gets there without acos; this
 * holds it to the formula, opening and closing, from nearly folded to nearly
 * straight.
 */
static void mid_correction_is_the_law_of_cosines_angle_change(void **state)
{
    (void)state;
    static const float fracs[] = {0.15f, 0.3f, 0.5f, 0.62f, 0.8f, 0.95f, 0.99f};
    for (size_t i = 0; i < sizeof fracs / sizeof fracs[0]; i++) {
        chain c;
        make_leg(&c);
        float target[3];
        target_at(&c, fracs[i], target);
        mn_ik_two_bone job = leg_job(&c, target);
        mn_ik_two_bone_result res;
        mn_error err;
        assert_int_equal(mn_ik_two_bone_solve(&job, &res, &err), MN_OK);
        double l1 = 1.0, l2 = 0.8, goal = fracs[i] * 1.8;
        double now = dist3(position(&c, 0), position(&c, 2));
        double c0 = (l1 * l1 + l2 * l2 - now * now) / (2.0 * l1 * l2);
        double c1 = (l1 * l1 + l2 * l2 - goal * goal) / (2.0 * l1 * l2);
        double opening = acos(c1) - acos(c0);
        const float *m = res.mid_correction;
        assert_float_near(m[0], 0.0f, 1e-6);
        assert_float_near(m[1], 0.0f, 1e-6);
        assert_float_near(m[2], (float)sin(0.5 * opening), 1e-5);
        assert_float_near(m[3], (float)cos(0.5 * opening), 1e-5);
    }
}

static void unreachable_target_straightens_toward_it(void **state)
{
    (void)state;
    chain c;
    make_leg(&c);
    float target[3];
    target_at(&c, 2.0f, target);
    mn_ik_two_bone job = leg_job(&c, target);
    mn_ik_two_bone_result res;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, NULL), MN_OK);
    assert_false(res.reached);
    apply(&c, &res);
    /* Straight: the end is 1.8 from the start, on the line to the target. */
    float expected[3];
    target_at(&c, 1.0f, expected);
    assert_vec_near(position(&c, 2), expected, 3, 1e-5);
}

static void too_close_target_folds_toward_it(void **state)
{
    (void)state;
    chain c;
    make_leg(&c);
    float target[3];
    target_at(&c, 0.05f, target); /* 0.09 from the start, closer than |1.0 − 0.8| */
    mn_ik_two_bone job = leg_job(&c, target);
    mn_ik_two_bone_result res;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, NULL), MN_OK);
    assert_false(res.reached);
    apply(&c, &res);
    /* Folded shut: the end sits |l1 − l2| = 0.2 from the start, toward the target. */
    float expected[3];
    target_at(&c, 0.2f / 1.8f, expected);
    assert_vec_near(position(&c, 2), expected, 3, 1e-4);
}

static void reached_holds_strictly_inside_its_edges(void **state)
{
    (void)state;
    const struct {
        float frac;
        bool reached;
    } cases[] = {
        {1.0f - 1e-4f, true},                    /* just inside full reach */
        {1.0f + 1e-4f, false},                   /* just past it */
        {(0.2f / 1.8f) * (1.0f + 1e-3f), true},  /* just past |l1 − l2| */
        {(0.2f / 1.8f) * (1.0f - 1e-3f), false}, /* just inside it */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        chain c;
        make_leg(&c);
        float target[3];
        target_at(&c, cases[i].frac, target);
        mn_ik_two_bone job = leg_job(&c, target);
        mn_ik_two_bone_result res;
        assert_int_equal(mn_ik_two_bone_solve(&job, &res, NULL), MN_OK);
        assert_int_equal(res.reached, cases[i].reached);
    }
}

/* The side of the start→target line the mid joint lies on, measured along the pole. */
static float mid_side(const chain *c, const float target[3], const float pole[3])
{
    const float *s = position(c, 0), *m = position(c, 1);
    float st[3] = {target[0] - s[0], target[1] - s[1], target[2] - s[2]};
    float sm[3] = {m[0] - s[0], m[1] - s[1], m[2] - s[2]};
    float n = sqrtf(st[0] * st[0] + st[1] * st[1] + st[2] * st[2]);
    for (int i = 0; i < 3; i++)
        st[i] /= n;
    float along = sm[0] * st[0] + sm[1] * st[1] + sm[2] * st[2];
    float perp[3] = {sm[0] - along * st[0], sm[1] - along * st[1], sm[2] - along * st[2]};
    return perp[0] * pole[0] + perp[1] * pole[1] + perp[2] * pole[2];
}

/* |component of the mid offset off the plane spanned by start→target and the pole|. */
static float off_pole_plane(const chain *c, const float target[3], const float pole[3])
{
    const float *s = position(c, 0), *m = position(c, 1);
    float st[3] = {target[0] - s[0], target[1] - s[1], target[2] - s[2]};
    float sm[3] = {m[0] - s[0], m[1] - s[1], m[2] - s[2]};
    float n[3];
    n[0] = st[1] * pole[2] - st[2] * pole[1];
    n[1] = st[2] * pole[0] - st[0] * pole[2];
    n[2] = st[0] * pole[1] - st[1] * pole[0];
    float nl = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    return fabsf(sm[0] * n[0] + sm[1] * n[1] + sm[2] * n[2]) / nl;
}

static void pole_chooses_the_half_plane_of_the_mid_joint(void **state)
{
    (void)state;
    const float poles[][3] = {{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {-0.6f, 0.0f, 0.8f}};
    for (size_t i = 0; i < sizeof poles / sizeof poles[0]; i++) {
        chain c;
        make_leg(&c);
        float target[3];
        target_at(&c, 0.6f, target);
        mn_ik_two_bone job = leg_job(&c, target);
        memcpy(job.pole, poles[i], sizeof job.pole);
        mn_ik_two_bone_result res;
        assert_int_equal(mn_ik_two_bone_solve(&job, &res, NULL), MN_OK);
        assert_true(res.reached);
        apply(&c, &res);
        assert_vec_near(position(&c, 2), target, 3, 1e-5);
        assert_true(mid_side(&c, target, poles[i]) > 0.1f);
        assert_float_near(off_pole_plane(&c, target, poles[i]), 0.0f, 1e-5);
    }
}

static void twist_half_turn_puts_the_mid_joint_opposite_the_pole(void **state)
{
    (void)state;
    chain c;
    make_leg(&c);
    float target[3];
    target_at(&c, 0.6f, target);
    mn_ik_two_bone job = leg_job(&c, target);
    const float pole[3] = {0, 0, 1};
    memcpy(job.pole, pole, sizeof pole);
    job.twist = 3.14159265f;
    mn_ik_two_bone_result res;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, NULL), MN_OK);
    apply(&c, &res);
    assert_vec_near(position(&c, 2), target, 3, 1e-5);
    assert_true(mid_side(&c, target, pole) < -0.1f);
}

static void soften_follows_ozz_curve(void **state)
{
    (void)state;
    /* soften 0.5 over L = 1.8: da = 0.9, ds = 0.9.  Target at 0.9·L = 1.62:
       α = (1.62 − 0.9)/0.9 = 0.8, distance = 0.9 + 0.9·(1 − 81/3.8⁴). */
    chain c;
    make_leg(&c);
    float target[3];
    target_at(&c, 0.9f, target);
    mn_ik_two_bone job = leg_job(&c, target);
    job.soften = 0.5f;
    mn_ik_two_bone_result res;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, NULL), MN_OK);
    assert_false(res.reached); /* past da */
    apply(&c, &res);
    double expected_len = 0.9 + 0.9 * (1.0 - 81.0 / pow(3.8, 4.0));
    float expected[3];
    target_at(&c, (float)(expected_len / 1.8), expected);
    assert_vec_near(position(&c, 2), expected, 3, 1e-5);

    /* Inside da nothing is softened, and it is reached. */
    make_leg(&c);
    target_at(&c, 0.45f, target);
    job = leg_job(&c, target);
    job.soften = 0.5f;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, NULL), MN_OK);
    assert_true(res.reached);
    apply(&c, &res);
    assert_vec_near(position(&c, 2), target, 3, 1e-5);
}

static void soften_keeps_an_unreachable_leg_short_of_straight(void **state)
{
    (void)state;
    chain c;
    make_leg(&c);
    float target[3];
    target_at(&c, 1.5f, target);
    mn_ik_two_bone job = leg_job(&c, target);
    job.soften = 0.9f;
    mn_ik_two_bone_result res;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, NULL), MN_OK);
    apply(&c, &res);
    float reach = dist3(position(&c, 0), position(&c, 2));
    assert_true(reach < 1.8f);
    assert_true(reach > 0.9f * 1.8f);
}

static void weight_zero_changes_nothing(void **state)
{
    (void)state;
    chain c;
    make_leg(&c);
    float target[3];
    target_at(&c, 0.6f, target);
    const float weights[] = {0.0f, -1.0f};
    for (size_t i = 0; i < 2; i++) {
        mn_ik_two_bone job = leg_job(&c, target);
        job.weight = weights[i];
        mn_ik_two_bone_result res;
        assert_int_equal(mn_ik_two_bone_solve(&job, &res, NULL), MN_OK);
        const float identity[4] = {0, 0, 0, 1};
        assert_memory_equal(res.start_correction, identity, sizeof identity);
        assert_memory_equal(res.mid_correction, identity, sizeof identity);
        assert_false(res.reached);
    }
}

static float quat_angle(const float q[4])
{
    float axis[3], angle;
    mn_quat_to_axis_angle(q, axis, &angle);
    return angle;
}

static void weight_scales_each_correction_from_identity(void **state)
{
    (void)state;
    chain c;
    make_leg(&c);
    float target[3];
    target_at(&c, 0.6f, target);
    mn_ik_two_bone job = leg_job(&c, target);
    mn_ik_two_bone_result full, quarter, over;
    assert_int_equal(mn_ik_two_bone_solve(&job, &full, NULL), MN_OK);
    job.weight = 0.25f;
    assert_int_equal(mn_ik_two_bone_solve(&job, &quarter, NULL), MN_OK);
    assert_false(quarter.reached); /* weight < 1 never reaches */
    /* Slerp from identity: a quarter of the angle, the same axis (a normalised lerp
       would be off by degrees at this size of turn). */
    assert_true(quat_angle(full.start_correction) > 1.0f);
    assert_float_near(quat_angle(quarter.start_correction), 0.25f * quat_angle(full.start_correction), 1e-5);
    assert_float_near(quat_angle(quarter.mid_correction), 0.25f * quat_angle(full.mid_correction), 1e-5);
    float a_full[3], a_quarter[3], angle;
    mn_quat_to_axis_angle(full.start_correction, a_full, &angle);
    mn_quat_to_axis_angle(quarter.start_correction, a_quarter, &angle);
    assert_vec_near(a_quarter, a_full, 3, 1e-4);
    /* Above 1 clamps to 1. */
    job.weight = 3.0f;
    assert_int_equal(mn_ik_two_bone_solve(&job, &over, NULL), MN_OK);
    assert_memory_equal(over.start_correction, full.start_correction, sizeof full.start_correction);
    assert_memory_equal(over.mid_correction, full.mid_correction, sizeof full.mid_correction);
    assert_true(over.reached && full.reached);
}

static void target_at_the_start_gives_identity(void **state)
{
    (void)state;
    chain c;
    make_leg(&c);
    mn_ik_two_bone job = leg_job(&c, position(&c, 0));
    mn_ik_two_bone_result res;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, NULL), MN_OK);
    assert_false(res.reached);
    assert_true(res.start_correction[3] == 1.0f && res.mid_correction[3] == 1.0f);
}

static void already_at_target_needs_no_correction(void **state)
{
    (void)state;
    chain c;
    make_leg(&c);
    float end[3];
    memcpy(end, position(&c, 2), sizeof end);
    mn_ik_two_bone job = leg_job(&c, end);
    /* The pole in the chain's own plane, on the mid joint's side. */
    const float *s = position(&c, 0), *m = position(&c, 1);
    for (int i = 0; i < 3; i++)
        job.pole[i] = m[i] - 0.5f * (s[i] + end[i]);
    mn_ik_two_bone_result res;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, NULL), MN_OK);
    assert_true(res.reached);
    assert_float_near(quat_angle(res.start_correction), 0.0f, 1e-3);
    assert_float_near(quat_angle(res.mid_correction), 0.0f, 1e-3);
}

static void two_bone_errors(void **state)
{
    (void)state;
    chain c;
    make_leg(&c);
    float target[3];
    target_at(&c, 0.6f, target);
    mn_ik_two_bone_result res;
    mn_error err;

    mn_ik_two_bone job = leg_job(&c, target);
    job.mid_world = NULL;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_ik_two_bone_solve(NULL, &res, &err), MN_INVALID_ARGUMENT);
    job = leg_job(&c, target);
    assert_int_equal(mn_ik_two_bone_solve(&job, NULL, &err), MN_INVALID_ARGUMENT);

    job.mid_axis[2] = 1.01f;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "mid_axis"));
    job.mid_axis[2] = 1.0005f; /* within 1e-3 is accepted */
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, &err), MN_OK);

    job = leg_job(&c, target);
    job.target[1] = NAN;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, &err), MN_NOT_FINITE);
    job = leg_job(&c, target);
    job.weight = INFINITY;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, &err), MN_NOT_FINITE);

    /* A zero-length bone: the end joint on top of the mid. */
    job = leg_job(&c, target);
    job.end_world = job.mid_world;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "zero length"));

    /* A singular start matrix. */
    float flat[16];
    memcpy(flat, c.worlds, sizeof flat);
    memset(flat, 0, 12 * sizeof(float));
    job = leg_job(&c, target);
    job.start_world = flat;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, &err), MN_INVALID_ARGUMENT);
}

/*
 * mn_ik_two_bone_solve_batch: each result is the lone solve's, bit for bit,
 * across a batch longer than the side-by-side chunk (jobs of every kind:
 * reached, unreachable, weighted, twisted, at the start); count 0 does
 * nothing; a failing job is named and the jobs after it are not written.
 */
static void batch_matches_lone_solves_bit_for_bit(void **state)
{
    (void)state;
    chain c;
    make_leg(&c);
    enum { N = 9 };
    mn_ik_two_bone jobs[N];
    mn_ik_two_bone_result lone[N], batch[N];
    mn_error err;
    for (int k = 0; k < N; k++) {
        float target[3];
        target_at(&c, 0.15f + 0.13f * (float)k, target); /* up to past the chain's reach */
        jobs[k] = leg_job(&c, target);
        jobs[k].weight = k == 3 ? 0.5f : 1.0f;
        jobs[k].twist = k == 4 ? 0.3f : 0.0f;
        jobs[k].soften = k == 5 ? 0.8f : 1.0f;
    }
    memcpy(jobs[6].target, position(&c, 0), sizeof jobs[6].target); /* at the start */
    for (int k = 0; k < N; k++)
        assert_int_equal(mn_ik_two_bone_solve(&jobs[k], &lone[k], &err), MN_OK);
    memset(batch, 0xcd, sizeof batch);
    assert_int_equal(mn_ik_two_bone_solve_batch(jobs, N, batch, &err), MN_OK);
    for (int k = 0; k < N; k++) {
        assert_memory_equal(batch[k].start_correction, lone[k].start_correction, sizeof lone[k].start_correction);
        assert_memory_equal(batch[k].mid_correction, lone[k].mid_correction, sizeof lone[k].mid_correction);
        assert_int_equal(batch[k].reached, lone[k].reached);
    }
    assert_int_equal(mn_ik_two_bone_solve_batch(NULL, 0, NULL, &err), MN_OK);
    assert_int_equal(mn_ik_two_bone_solve_batch(NULL, 2, batch, &err), MN_INVALID_ARGUMENT);

    jobs[7].target[0] = NAN;
    memset(batch, 0xcd, sizeof batch);
    mn_ik_two_bone_result untouched;
    memset(&untouched, 0xcd, sizeof untouched);
    assert_int_equal(mn_ik_two_bone_solve_batch(jobs, N, batch, &err), MN_NOT_FINITE);
    assert_non_null(strstr(err.message, "jobs[7]: "));
    for (int k = 7; k < N; k++)
        assert_memory_equal(&batch[k], &untouched, sizeof untouched);
}

/*
 * The corrections are unit quaternions to float rounding on legs of every
 * shape (the solver skips renormalising products of unit rotations).
 */
static void corrections_are_unit_across_random_legs(void **state)
{
    (void)state;
    uint32_t seed = 12345u;
    for (int n = 0; n < 2000; n++) {
        chain c;
        chain_init(&c, 3);
        float q0[4], q1[4], r[8];
        for (int i = 0; i < 8; i++) {
            seed = seed * 1103515245u + 12345u;
            r[i] = (float)((seed >> 8) & 0xffffu) / 65535.0f * 2.0f - 1.0f;
        }
        quat_axis(q0, r[0], r[1], r[2] + 1.5f, 3.0f * r[3]);
        quat_axis(q1, 0.0f, 0.0f, 1.0f, 1.5f * r[4]);
        set_local(&c, 0, r[5], r[6], r[7], q0);
        set_local(&c, 1, 1.0f + 0.5f * r[4], 0.0f, 0.0f, q1);
        set_local(&c, 2, 0.0f, -0.8f - 0.2f * r[3], 0.0f, NULL);
        chain_update(&c);
        float target[3];
        target_at(&c, 0.1f + 0.6f * (r[2] + 1.0f), target);
        mn_ik_two_bone job = leg_job(&c, target);
        job.twist = n % 3 == 0 ? r[1] : 0.0f;
        mn_ik_two_bone_result res;
        mn_error err;
        assert_int_equal(mn_ik_two_bone_solve(&job, &res, &err), MN_OK);
        const float *qs[2] = {res.start_correction, res.mid_correction};
        for (int k = 0; k < 2; k++) {
            const float *q = qs[k];
            assert_float_near(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0f, 5e-7);
            assert_true(q[3] >= 0.0f);
        }
    }
}

static void init_sets_documented_defaults(void **state)
{
    (void)state;
    mn_ik_two_bone job;
    memset(&job, 0x7f, sizeof job);
    mn_ik_two_bone_init(&job);
    assert_null(job.start_world);
    assert_true(job.pole[0] == 0.0f && job.pole[1] == 1.0f && job.pole[2] == 0.0f);
    assert_true(job.mid_axis[0] == 0.0f && job.mid_axis[1] == 0.0f && job.mid_axis[2] == 1.0f);
    assert_true(job.soften == 1.0f && job.weight == 1.0f && job.twist == 0.0f);
}

/* ---- aim ------------------------------------------------------------------ */

/* Angle between the ray (offset, forward) of joint j, in the chain's worlds, and the target. */
static double ray_error(const chain *c, uint32_t j, const float offset[3], const float forward[3],
                        const float target[3])
{
    float p[3], d[3];
    mn_mat4_transform_point(p, c->worlds + 16 * j, offset);
    mn_mat4_transform_dir(d, c->worlds + 16 * j, forward);
    double to[3] = {target[0] - p[0], target[1] - p[1], target[2] - p[2]};
    double dot = to[0] * d[0] + to[1] * d[1] + to[2] * d[2];
    double n = sqrt((to[0] * to[0] + to[1] * to[1] + to[2] * to[2]) *
                    ((double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2]));
    return acos(fmin(1.0, dot / n));
}

/* spine (0) → neck (1) → head (2), the head looking along its +Z. */
static void make_neck(chain *c)
{
    chain_init(c, 3);
    float q0[4], q1[4], q2[4];
    quat_axis(q0, 0.0f, 1.0f, 0.0f, 0.3f);
    quat_axis(q1, 1.0f, 0.0f, 0.0f, -0.2f);
    quat_axis(q2, 0.2f, 1.0f, 0.1f, 0.25f);
    set_local(c, 0, 0.0f, 1.0f, 0.0f, q0);
    set_local(c, 1, 0.0f, 0.5f, 0.05f, q1);
    set_local(c, 2, 0.0f, 0.2f, 0.0f, q2);
    chain_update(c);
}

static mn_ik_aim_chain aim_job(const chain *c, const uint32_t *joints, uint32_t n,
                               const float target[3])
{
    mn_ik_aim_chain job;
    mn_ik_aim_chain_init(&job);
    job.worlds = c->worlds;
    job.world_count = c->pose.joint_count;
    job.joints = joints;
    job.joint_count = n;
    memcpy(job.target, target, sizeof job.target);
    job.forward[2] = 1.0f;
    return job;
}

static void apply_aim(chain *c, const uint32_t *joints, uint32_t n, const float *corrections)
{
    for (uint32_t k = 0; k < n; k++)
        mn_ik_apply_correction(&c->pose, joints[k], corrections + 4 * k);
    chain_update(c);
}

static void aim_single_joint_points_the_ray_at_the_target(void **state)
{
    (void)state;
    chain c;
    make_neck(&c);
    const uint32_t joints[] = {2};
    const float target[3] = {1.5f, 2.5f, -1.0f};
    mn_ik_aim_chain job = aim_job(&c, joints, 1, target);
    float corr[4];
    bool reached = false;
    assert_int_equal(mn_ik_aim_chain_solve(&job, corr, &reached, NULL), MN_OK);
    assert_true(reached);
    apply_aim(&c, joints, 1, corr);
    assert_true(ray_error(&c, 2, job.offset, job.forward, target) < 1e-4);
}

static void aim_with_offset_passes_the_ray_through_the_target(void **state)
{
    (void)state;
    chain c;
    make_neck(&c);
    const uint32_t joints[] = {2};
    const float target[3] = {-0.8f, 1.2f, 1.5f};
    mn_ik_aim_chain job = aim_job(&c, joints, 1, target);
    const float offset[3] = {0.0f, 0.12f, 0.08f}, forward[3] = {0.0f, 0.0f, 2.0f};
    memcpy(job.offset, offset, sizeof offset);
    memcpy(job.forward, forward, sizeof forward); /* not unit: normalised */
    float corr[4];
    bool reached = false;
    assert_int_equal(mn_ik_aim_chain_solve(&job, corr, &reached, NULL), MN_OK);
    assert_true(reached);
    apply_aim(&c, joints, 1, corr);
    assert_true(ray_error(&c, 2, offset, forward, target) < 1e-4);
}

static void aim_target_inside_the_offset_sphere_gives_identity(void **state)
{
    (void)state;
    chain c;
    make_neck(&c);
    const uint32_t joints[] = {2};
    float target[3];
    memcpy(target, position(&c, 2), sizeof target);
    target[0] += 0.01f;
    mn_ik_aim_chain job = aim_job(&c, joints, 1, target);
    job.offset[1] = 0.5f; /* the ray passes 0.5 from the joint: it cannot meet a target 0.01 away */
    float corr[4];
    bool reached = true;
    assert_int_equal(mn_ik_aim_chain_solve(&job, corr, &reached, NULL), MN_OK);
    assert_false(reached);
    assert_true(corr[3] == 1.0f);
}

static void aim_chain_carries_the_ray_down_the_chain(void **state)
{
    (void)state;
    chain c;
    make_neck(&c);
    const uint32_t joints[] = {2, 1, 0}; /* tip first */
    const float target[3] = {2.0f, 0.5f, 1.0f};
    const float weights[] = {0.4f, 0.4f, 1.0f};
    mn_ik_aim_chain job = aim_job(&c, joints, 3, target);
    job.offset[2] = 0.1f;
    job.joint_weights = weights;
    float corr[12];
    bool reached = false;
    assert_int_equal(mn_ik_aim_chain_solve(&job, corr, &reached, NULL), MN_OK);
    assert_true(reached); /* the last joint at full weight finishes the aim */
    for (int k = 0; k < 3; k++)
        assert_true(quat_angle(corr + 4 * k) > 1e-3f); /* every joint takes a share */
    apply_aim(&c, joints, 3, corr);
    assert_true(ray_error(&c, 2, job.offset, job.forward, target) < 1e-4);
}

static void aim_weights_scale_and_zero_changes_nothing(void **state)
{
    (void)state;
    chain c;
    make_neck(&c);
    const uint32_t joints[] = {2};
    const float target[3] = {1.5f, 2.5f, -1.0f};
    mn_ik_aim_chain job = aim_job(&c, joints, 1, target);
    float full[4], part[4];
    bool reached;
    assert_int_equal(mn_ik_aim_chain_solve(&job, full, &reached, NULL), MN_OK);

    const float half[] = {0.5f};
    job.joint_weights = half;
    job.weight = 0.5f; /* overall × joint: a quarter */
    assert_int_equal(mn_ik_aim_chain_solve(&job, part, &reached, NULL), MN_OK);
    assert_false(reached);
    assert_float_near(quat_angle(part), 0.25f * quat_angle(full), 1e-5);

    job.weight = 0.0f;
    assert_int_equal(mn_ik_aim_chain_solve(&job, part, &reached, NULL), MN_OK);
    const float identity[4] = {0, 0, 0, 1};
    assert_memory_equal(part, identity, sizeof identity);
}

static void aim_limit_caps_the_angle_and_keeps_the_axis(void **state)
{
    (void)state;
    chain c;
    make_neck(&c);
    const uint32_t joints[] = {2};
    const float target[3] = {-3.0f, 1.0f, -1.0f}; /* well behind: a large turn */
    mn_ik_aim_chain job = aim_job(&c, joints, 1, target);
    float full[4], capped[4];
    bool reached;
    assert_int_equal(mn_ik_aim_chain_solve(&job, full, &reached, NULL), MN_OK);
    assert_true(quat_angle(full) > 1.0f);
    const float limit[] = {0.5f};
    job.limits = limit;
    assert_int_equal(mn_ik_aim_chain_solve(&job, capped, &reached, NULL), MN_OK);
    assert_false(reached);
    assert_float_near(quat_angle(capped), 0.5f, 1e-5);
    float a_full[3], a_capped[3], angle;
    mn_quat_to_axis_angle(full, a_full, &angle);
    mn_quat_to_axis_angle(capped, a_capped, &angle);
    assert_vec_near(a_capped, a_full, 3, 1e-5);
}

static void aim_up_and_pole_control_the_twist(void **state)
{
    (void)state;
    chain c;
    make_neck(&c);
    const uint32_t joints[] = {2};
    const float target[3] = {1.5f, 2.0f, 2.0f};
    mn_ik_aim_chain job = aim_job(&c, joints, 1, target);
    job.use_up = true;
    job.up[1] = 1.0f;
    job.pole[0] = 0.3f;
    job.pole[1] = 1.0f;
    float corr[4];
    bool reached;
    assert_int_equal(mn_ik_aim_chain_solve(&job, corr, &reached, NULL), MN_OK);
    assert_true(reached);
    apply_aim(&c, joints, 1, corr);
    assert_true(ray_error(&c, 2, job.offset, job.forward, target) < 1e-4);
    /* The head's up lies in the plane of the aim and the pole, on the pole's side. */
    float up[3], aim[3];
    mn_mat4_transform_dir(up, c.worlds + 32, job.up);
    mn_mat4_transform_dir(aim, c.worlds + 32, job.forward);
    float n[3] = {aim[1] * job.pole[2] - aim[2] * job.pole[1], aim[2] * job.pole[0] - aim[0] * job.pole[2],
                  aim[0] * job.pole[1] - aim[1] * job.pole[0]};
    assert_float_near(up[0] * n[0] + up[1] * n[1] + up[2] * n[2], 0.0f, 1e-5);
    assert_true(up[0] * job.pole[0] + up[1] * job.pole[1] + up[2] * job.pole[2] > 0.0f);
}

static void aim_errors(void **state)
{
    (void)state;
    chain c;
    make_neck(&c);
    const uint32_t joints[] = {2, 1};
    const float target[3] = {1, 1, 1};
    float corr[8];
    bool reached;
    mn_error err;
    mn_ik_aim_chain job = aim_job(&c, joints, 2, target);
    assert_int_equal(mn_ik_aim_chain_solve(&job, NULL, &reached, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_ik_aim_chain_solve(NULL, corr, &reached, &err), MN_INVALID_ARGUMENT);
    job.joint_count = 0;
    assert_int_equal(mn_ik_aim_chain_solve(&job, corr, &reached, &err), MN_INVALID_ARGUMENT);
    job = aim_job(&c, joints, 2, target);
    job.forward[2] = 0.0f;
    assert_int_equal(mn_ik_aim_chain_solve(&job, corr, &reached, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "forward"));
    job = aim_job(&c, joints, 2, target);
    job.use_up = true; /* up left zero */
    assert_int_equal(mn_ik_aim_chain_solve(&job, corr, &reached, &err), MN_INVALID_ARGUMENT);
    job = aim_job(&c, joints, 2, target);
    const float bad_weights[] = {0.5f, 1.5f};
    job.joint_weights = bad_weights;
    assert_int_equal(mn_ik_aim_chain_solve(&job, corr, &reached, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "joint_weights[1]"));
    job = aim_job(&c, joints, 2, target);
    const float bad_limits[] = {-0.1f, 1.0f};
    job.limits = bad_limits;
    assert_int_equal(mn_ik_aim_chain_solve(&job, corr, &reached, &err), MN_INVALID_ARGUMENT);
    job = aim_job(&c, joints, 2, target);
    job.world_count = 2; /* joints[0] = 2 is past it */
    assert_int_equal(mn_ik_aim_chain_solve(&job, corr, &reached, &err), MN_INDEX_RANGE);
    assert_non_null(strstr(err.message, "joints[0]"));
    job = aim_job(&c, joints, 2, target);
    job.target[0] = NAN;
    assert_int_equal(mn_ik_aim_chain_solve(&job, corr, &reached, &err), MN_NOT_FINITE);
}

/* One rule for both jobs: _init gives usable defaults; a zeroed job is not them. */
static void aim_chain_init_sets_usable_defaults_and_a_zeroed_job_is_not_them(void **state)
{
    (void)state;
    mn_ik_aim_chain job;
    memset(&job, 0x7f, sizeof job);
    mn_ik_aim_chain_init(&job);
    assert_null(job.worlds);
    assert_null(job.joints);
    assert_null(job.joint_weights);
    assert_null(job.limits);
    assert_int_equal(job.world_count, 0);
    assert_int_equal(job.joint_count, 0);
    assert_false(job.use_up);
    assert_true(job.weight == 1.0f);
    for (int i = 0; i < 3; i++)
        assert_true(job.target[i] == 0.0f && job.forward[i] == 0.0f && job.offset[i] == 0.0f &&
                    job.up[i] == 0.0f && job.pole[i] == 0.0f);

    chain c;
    make_neck(&c);
    const uint32_t joints[] = {2};
    const float target[3] = {1.5f, 2.5f, -1.0f};
    float corr[4];
    bool reached = false;
    mn_error err;
    /* forward has no default: init and the chain alone are refused, naming it. */
    job.worlds = c.worlds;
    job.world_count = c.pose.joint_count;
    job.joints = joints;
    job.joint_count = 1;
    memcpy(job.target, target, sizeof job.target);
    assert_int_equal(mn_ik_aim_chain_solve(&job, corr, &reached, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "forward"));
    /* With forward set, the defaults aim the ray all the way. */
    job.forward[2] = 1.0f;
    assert_int_equal(mn_ik_aim_chain_solve(&job, corr, &reached, &err), MN_OK);
    assert_true(reached);
    /* The same fields over a zeroed job: weight 0, identity, not reached. */
    mn_ik_aim_chain zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    zeroed.worlds = job.worlds;
    zeroed.world_count = job.world_count;
    zeroed.joints = joints;
    zeroed.joint_count = 1;
    memcpy(zeroed.target, target, sizeof zeroed.target);
    zeroed.forward[2] = 1.0f;
    assert_int_equal(mn_ik_aim_chain_solve(&zeroed, corr, &reached, &err), MN_OK);
    assert_false(reached);
    assert_memory_equal(corr, ((float[4]){0, 0, 0, 1}), 4 * sizeof(float));
}

static void two_bone_init_sets_usable_defaults_and_a_zeroed_job_is_not_them(void **state)
{
    (void)state;
    chain c;
    make_leg(&c);
    float target[3];
    target_at(&c, 0.7f, target);
    mn_ik_two_bone job = leg_job(&c, target); /* mn_ik_two_bone_init, then the chain and target */
    mn_ik_two_bone_result res;
    mn_error err;
    assert_int_equal(mn_ik_two_bone_solve(&job, &res, &err), MN_OK);
    assert_true(res.reached);
    /* A zeroed job with the same chain and target: its zero hinge is refused, loudly. */
    mn_ik_two_bone zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    zeroed.start_world = job.start_world;
    zeroed.mid_world = job.mid_world;
    zeroed.end_world = job.end_world;
    memcpy(zeroed.target, target, sizeof zeroed.target);
    assert_int_equal(mn_ik_two_bone_solve(&zeroed, &res, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "mid_axis"));
}

/* ik.h: the overall weight is clamped to [0, 1] for both jobs; an aim chain's joint weights are refused outside it. */
static void aim_weight_outside_zero_one_is_clamped_and_joint_weights_are_refused(void **state)
{
    (void)state;
    chain c;
    make_neck(&c);
    const uint32_t joints[] = {2, 1};
    const float target[3] = {1.5f, 2.5f, -1.0f};
    mn_ik_aim_chain job = aim_job(&c, joints, 2, target);
    float one[8], over[8], under[8];
    bool reached;
    mn_error err;
    assert_int_equal(mn_ik_aim_chain_solve(&job, one, &reached, &err), MN_OK);
    job.weight = 2.5f;
    assert_int_equal(mn_ik_aim_chain_solve(&job, over, &reached, &err), MN_OK);
    assert_memory_equal(over, one, sizeof one); /* clamped to 1, not an error and not extrapolated */
    job.weight = -3.0f;
    assert_int_equal(mn_ik_aim_chain_solve(&job, under, &reached, &err), MN_OK);
    for (int k = 0; k < 2; k++)
        assert_memory_equal(under + 4 * k, ((float[4]){0, 0, 0, 1}), 4 * sizeof(float));
    assert_false(reached);
    job.weight = NAN;
    assert_int_equal(mn_ik_aim_chain_solve(&job, under, &reached, &err), MN_NOT_FINITE);
    job.weight = 1.0f;
    const float above[] = {1.0f, 1.0f + FLT_EPSILON}, below[] = {-0.0f, -FLT_MIN}, nan_w[] = {NAN, 1};
    job.joint_weights = above;
    assert_int_equal(mn_ik_aim_chain_solve(&job, under, &reached, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "joint_weights[1]"));
    job.joint_weights = below;
    assert_int_equal(mn_ik_aim_chain_solve(&job, under, &reached, &err), MN_INVALID_ARGUMENT);
    job.joint_weights = nan_w;
    assert_int_equal(mn_ik_aim_chain_solve(&job, under, &reached, &err), MN_NOT_FINITE);

    /* The two-bone weight clamps the same way. */
    chain leg;
    make_leg(&leg);
    float foot[3];
    target_at(&leg, 0.7f, foot);
    mn_ik_two_bone tb = leg_job(&leg, foot);
    mn_ik_two_bone_result r1, r2;
    assert_int_equal(mn_ik_two_bone_solve(&tb, &r1, &err), MN_OK);
    tb.weight = 7.0f;
    assert_int_equal(mn_ik_two_bone_solve(&tb, &r2, &err), MN_OK);
    assert_memory_equal(r1.start_correction, r2.start_correction, sizeof r1.start_correction);
    assert_memory_equal(r1.mid_correction, r2.mid_correction, sizeof r1.mid_correction);
    assert_true(r1.reached == r2.reached);
}

static void apply_correction_composes_on_the_right(void **state)
{
    (void)state;
    chain c;
    chain_init(&c, 1);
    float r[4], corr[4], expected[4];
    quat_axis(r, 1, 0, 0, 0.5f);
    quat_axis(corr, 0, 1, 0, 0.25f);
    assert_int_equal(mn_pose_set_joint(&c.pose, 0, NULL, r, NULL, NULL), MN_OK);
    mn_ik_apply_correction(&c.pose, 0, corr);
    mn_quat_mul(expected, r, corr);
    assert_vec_near(c.pose.rotations, expected, 4, 1e-6);
    mn_ik_apply_correction(&c.pose, 5, corr); /* outside: ignored */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reachable_target_is_reached),
        cmocka_unit_test(mid_correction_is_the_law_of_cosines_angle_change),
        cmocka_unit_test(unreachable_target_straightens_toward_it),
        cmocka_unit_test(too_close_target_folds_toward_it),
        cmocka_unit_test(reached_holds_strictly_inside_its_edges),
        cmocka_unit_test(pole_chooses_the_half_plane_of_the_mid_joint),
        cmocka_unit_test(twist_half_turn_puts_the_mid_joint_opposite_the_pole),
        cmocka_unit_test(soften_follows_ozz_curve),
        cmocka_unit_test(soften_keeps_an_unreachable_leg_short_of_straight),
        cmocka_unit_test(weight_zero_changes_nothing),
        cmocka_unit_test(weight_scales_each_correction_from_identity),
        cmocka_unit_test(target_at_the_start_gives_identity),
        cmocka_unit_test(already_at_target_needs_no_correction),
        cmocka_unit_test(two_bone_errors),
        cmocka_unit_test(batch_matches_lone_solves_bit_for_bit),
        cmocka_unit_test(corrections_are_unit_across_random_legs),
        cmocka_unit_test(init_sets_documented_defaults),
        cmocka_unit_test(aim_single_joint_points_the_ray_at_the_target),
        cmocka_unit_test(aim_with_offset_passes_the_ray_through_the_target),
        cmocka_unit_test(aim_target_inside_the_offset_sphere_gives_identity),
        cmocka_unit_test(aim_chain_carries_the_ray_down_the_chain),
        cmocka_unit_test(aim_weights_scale_and_zero_changes_nothing),
        cmocka_unit_test(aim_limit_caps_the_angle_and_keeps_the_axis),
        cmocka_unit_test(aim_up_and_pole_control_the_twist),
        cmocka_unit_test(aim_errors),
        cmocka_unit_test(aim_chain_init_sets_usable_defaults_and_a_zeroed_job_is_not_them),
        cmocka_unit_test(two_bone_init_sets_usable_defaults_and_a_zeroed_job_is_not_them),
        cmocka_unit_test(aim_weight_outside_zero_one_is_clamped_and_joint_weights_are_refused),
        cmocka_unit_test(apply_correction_composes_on_the_right),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
