/*
 * Inverse kinematics: ozz-animation's two-bone and aim jobs, written from
 * their published behaviour, with exact arithmetic (double, true square
 * roots and divisions) where ozz uses SIMD estimates.  Rules and their
 * reasons: marionette/ik.h and docs/animation.md.
 */
#include <marionette/ik.h>
#include <marionette/math.h>

#include "anim/motion_internal.h"
#include "core/core.h"

#include <stdio.h>
#include <string.h>

static double clamp01(double x)
{
    return x > 0.0 ? (x < 1.0 ? x : 1.0) : 0.0;
}

void mn_ik_two_bone_init(mn_ik_two_bone *job)
{
    if (!job)
        return;
    memset(job, 0, sizeof *job);
    job->pole[1] = 1.0f;
    job->mid_axis[2] = 1.0f;
    job->soften = 1.0f;
    job->weight = 1.0f;
}

void mn_ik_aim_chain_init(mn_ik_aim_chain *job)
{
    if (!job)
        return;
    memset(job, 0, sizeof *job);
    job->weight = 1.0f;
}

void mn_ik_apply_correction(mn_pose *pose, uint32_t joint, const float correction[4])
{
    if (!pose || !correction || joint >= pose->joint_count)
        return;
    float *r = pose->rotations + 4u * joint;
    mn_quat_mul(r, r, correction);
    mn_quat_normalize(r, r);
}

/* ---- two-bone ------------------------------------------------------------- */

/* What the solve needs, expressed in the start joint's space (_ss) and the mid joint's (_ms). */
typedef struct two_bone_setup {
    mq_affine start, mid, inv_start;
    double mid_axis[3];             /* unit, mid space */
    double start_mid_ms[3], mid_end_ms[3];
    double start_mid_ss[3];
    double l1, l2;                  /* bone lengths, start space */
    double start_end_ss_len2;
} two_bone_setup;

static mn_status two_bone_validate(const mn_ik_two_bone *job, mn_error *err)
{
    if (!job->start_world || !job->mid_world || !job->end_world)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "two-bone IK: the start, mid and end matrices are required");
    if (!mq_finite_floats(job->start_world, 16) || !mq_finite_floats(job->mid_world, 16) ||
        !mq_finite_floats(job->end_world, 16))
        return mni_fail(err, MN_NOT_FINITE, "two-bone IK: a joint matrix holds a NaN or infinity");
    if (!mq_finite_floats(job->target, 3) || !mq_finite_floats(job->pole, 3) ||
        !mq_finite_floats(job->mid_axis, 3) || !isfinite(job->twist) || !isfinite(job->soften) ||
        !isfinite(job->weight))
        return mni_fail(err, MN_NOT_FINITE,
                        "two-bone IK: target, pole, mid_axis, twist, soften or weight is not finite");
    double axis[3];
    mq_from_float3(axis, job->mid_axis);
    double len = sqrt(mq_len2(axis));
    if (fabs(len - 1.0) > 1e-3)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "two-bone IK: mid_axis (%g %g %g) is not unit length",
                        (double)job->mid_axis[0], (double)job->mid_axis[1],
                        (double)job->mid_axis[2]);
    return MN_OK;
}

static mn_status two_bone_prepare(const mn_ik_two_bone *job, two_bone_setup *s, mn_error *err)
{
    mq_affine end, inv_mid;
    mq_affine_from_mat4(&s->start, job->start_world);
    mq_affine_from_mat4(&s->mid, job->mid_world);
    mq_affine_from_mat4(&end, job->end_world);
    if (!mq_affine_invert(&s->inv_start, &s->start) || !mq_affine_invert(&inv_mid, &s->mid))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "two-bone IK: the start or mid matrix is singular");
    mq_from_float3(s->mid_axis, job->mid_axis);
    double n = sqrt(mq_len2(s->mid_axis));
    for (int i = 0; i < 3; i++)
        s->mid_axis[i] /= n;

    double start_ms[3], end_ss[3], mid_end_ss[3];
    mq_affine_point(start_ms, &inv_mid, s->start.m + 9);
    mq_affine_point(s->mid_end_ms, &inv_mid, end.m + 9);
    mq_affine_point(s->start_mid_ss, &s->inv_start, s->mid.m + 9);
    mq_affine_point(end_ss, &s->inv_start, end.m + 9);
    for (int i = 0; i < 3; i++)
        s->start_mid_ms[i] = -start_ms[i];
    mq_sub(mid_end_ss, end_ss, s->start_mid_ss);
    s->l1 = sqrt(mq_len2(s->start_mid_ss));
    s->l2 = sqrt(mq_len2(mid_end_ss));
    s->start_end_ss_len2 = mq_len2(end_ss);
    if (!(s->l1 > 0.0) || !(s->l2 > 0.0))
        return mni_fail(err, MN_INVALID_ARGUMENT, "two-bone IK: the %s bone has zero length",
                        s->l1 > 0.0 ? "mid-end" : "start-mid");
    return MN_OK;
}

/*
 * ozz's soften curve: past da = soften·L the reachable distance follows
 * da + ds·(1 − 81/(α+3)⁴), which leaves the line with slope 1 and never
 * reaches L, so a leg approaches straight without the snap of a hard clamp.
 */
static double soften_distance(double len, double da, double ds)
{
    if (len > da && ds > 0.0) {
        double alpha = (len - da) / ds;
        double a3 = alpha + 3.0;
        double a3_2 = a3 * a3;
        return da + ds * (1.0 - 81.0 / (a3_2 * a3_2));
    }
    return len;
}

/* cos and sin of half the angle whose cosine is c (clamped to [-1, 1]): both in [0, 1]. */
static void half_angle(double c, double *cos_half, double *sin_half)
{
    c = c < -1.0 ? -1.0 : (c > 1.0 ? 1.0 : c);
    *cos_half = sqrt(0.5 * (1.0 + c));
    *sin_half = sqrt(0.5 * (1.0 - c));
}

/*
 * The mid correction: the change of the interior angle at the mid joint (law
 * of cosines) that makes |start→end| equal the softened target distance, as a
 * rotation about the hinge, its sign chosen by which side the chain bends.
 *
 * The rotation by opening = acos(c₁) − acos(c₀) is (sin(opening/2)·axis,
 * cos(opening/2)); with a = acos(c₁)/2 and b = acos(c₀)/2 the half angles'
 * sines and cosines come from c by the half-angle identities and their
 * difference by the subtraction formulas: the same rotation with four
 * square roots instead of two acos, a sin and a cos.
 */
static void two_bone_mid(const two_bone_setup *s, double target_len2, double out[4])
{
    double sum2 = s->l1 * s->l1 + s->l2 * s->l2;
    double denom = 2.0 * s->l1 * s->l2;
    double ca, sa, cb, sb;
    half_angle((sum2 - target_len2) / denom, &ca, &sa);
    half_angle((sum2 - s->start_end_ss_len2) / denom, &cb, &sb);
    double half_sin = sa * cb - ca * sb, half_cos = ca * cb + sa * sb;
    double side_ref[3];
    mq_cross(side_ref, s->start_mid_ms, s->mid_axis);
    if (mq_dot(side_ref, s->mid_end_ms) < 0.0)
        half_sin = -half_sin;
    for (int i = 0; i < 3; i++)
        out[i] = s->mid_axis[i] * half_sin;
    out[3] = half_cos;
}

/*
 * The start correction: swing the (mid-corrected) start→end onto
 * start→target, then turn about that line until the chain's plane normal
 * (the hinge) lines up with start→target × pole, then twist.
 */
static void two_bone_start(const mn_ik_two_bone *job, const two_bone_setup *s,
                           const double mid_rot[4], const double target_ss[3], double out[4])
{
    double v[3], mid_end_final[3], start_end_final[3], swing[4];
    mq_quat_rotate(v, mid_rot, s->mid_end_ms);
    mq_affine_dir(v, &s->mid, v);
    mq_affine_dir(mid_end_final, &s->inv_start, v);
    for (int i = 0; i < 3; i++)
        start_end_final[i] = s->start_mid_ss[i] + mid_end_final[i];
    mq_quat_from_vectors(swing, start_end_final, target_ss);

    double pole_world[3], pole_ss[3], ref_normal[3], axis_ss[3], joint_normal[3];
    mq_from_float3(pole_world, job->pole);
    mq_affine_dir(pole_ss, &s->inv_start, pole_world);
    mq_cross(ref_normal, target_ss, pole_ss);
    mq_affine_dir(v, &s->mid, s->mid_axis);
    mq_affine_dir(axis_ss, &s->inv_start, v);
    mq_quat_rotate(joint_normal, swing, axis_ss);

    double inv_len = 1.0 / sqrt(mq_len2(target_ss));
    double axis[3] = {target_ss[0] * inv_len, target_ss[1] * inv_len, target_ss[2] * inv_len};
    double plane[4];
    double nn = sqrt(mq_len2(ref_normal) * mq_len2(joint_normal));
    if (nn > 0.0) {
        double flip = mq_dot(joint_normal, pole_ss) < 0.0 ? -1.0 : 1.0;
        double flipped[3] = {flip * axis[0], flip * axis[1], flip * axis[2]};
        mq_quat_axis_cos(plane, flipped, mq_dot(ref_normal, joint_normal) / nn);
    } else {
        mq_quat_identity(plane); /* no pole plane: keep the chain's own */
    }
    mq_quat_mul(out, plane, swing);
    if (job->twist != 0.0f) {
        double twist[4];
        mq_quat_axis_angle(twist, axis, job->twist);
        mq_quat_mul(out, twist, out);
    }
    /* swing, plane and twist are unit, so their product is, to double rounding: it is not
       renormalised, which would be the longest wait of the solve and changes no float output
       (checked on 20000 random legs). */
}

/*
 * The solve past the setup, in two steps so that a batch can run each step
 * for all its jobs before the next: one job's solve is a chain of dependent
 * square roots and divisions, and two chains side by side overlap on the
 * core where one alone leaves it waiting.  Each job's arithmetic is the
 * same in a batch as alone, so the results are the same bits.
 */
typedef struct two_bone_state {
    double weight, len, target_ss[3];
    double start_q[4], mid_q[4];
    bool active, reached;
} two_bone_state;

/* q on the w >= 0 side, as mq_quat_scale puts it. */
static void hemisphere(double q[4])
{
    if (q[3] < 0.0)
        for (int i = 0; i < 4; i++)
            q[i] = -q[i];
}

/* Target in start space, softened; the mid correction. */
static void two_bone_solve_mid(const mn_ik_two_bone *job, const two_bone_setup *s, two_bone_state *st)
{
    st->weight = clamp01(job->weight);
    double target_world[3];
    mq_from_float3(target_world, job->target);
    mq_affine_point(st->target_ss, &s->inv_start, target_world);
    st->len = sqrt(mq_len2(st->target_ss));
    double chain = s->l1 + s->l2;
    mq_quat_identity(st->start_q);
    mq_quat_identity(st->mid_q);
    st->reached = false;
    st->active = st->weight > 0.0 && st->len >= 1e-6 * chain;
    if (!st->active)
        return;
    double da = chain * clamp01(job->soften), ds = chain - da;
    st->reached = st->len <= da && st->len > fabs(s->l1 - s->l2) && st->weight >= 1.0;
    double softened = soften_distance(st->len, da, ds);
    for (int i = 0; i < 3; i++)
        st->target_ss[i] *= softened / st->len;
    two_bone_mid(s, softened * softened, st->mid_q);
}

/* The start correction, both scaled by the weight, and the result. */
static void two_bone_solve_start(const mn_ik_two_bone *job, const two_bone_setup *s, two_bone_state *st,
                                 mn_ik_two_bone_result *out)
{
    if (st->active) {
        two_bone_start(job, s, st->mid_q, st->target_ss, st->start_q);
        if (st->weight < 1.0) {
            mq_quat_scale(st->start_q, st->start_q, st->weight);
            mq_quat_scale(st->mid_q, st->mid_q, st->weight);
        } else {
            /* The whole correction: scaling by 1 is the w >= 0 hemisphere and a normalisation,
               and both are unit already, to double rounding (the start a product of unit
               rotations, the mid built from unit half angles): no square root and division
               at the end of the chain. */
            hemisphere(st->start_q);
            hemisphere(st->mid_q);
        }
    }
    mq_to_float4(out->start_correction, st->start_q);
    mq_to_float4(out->mid_correction, st->mid_q);
    out->reached = st->reached;
}

/* Jobs a batch solves side by side (their setups live on the stack). */
#define TWO_BONE_BATCH 4u

/*
 * Up to TWO_BONE_BATCH jobs, every one checked and set up before any result
 * is written; on an error *failed is the job's index.
 */
static mn_status two_bone_solve_some(const mn_ik_two_bone *jobs, uint32_t n, mn_ik_two_bone_result *out,
                                     uint32_t *failed, mn_error *err)
{
    two_bone_setup setup[TWO_BONE_BATCH];
    two_bone_state state[TWO_BONE_BATCH];
    for (uint32_t k = 0; k < n; k++) {
        mn_status st = two_bone_validate(&jobs[k], err);
        if (st == MN_OK)
            st = two_bone_prepare(&jobs[k], &setup[k], err);
        if (st != MN_OK) {
            *failed = k;
            return st;
        }
    }
    for (uint32_t k = 0; k < n; k++)
        two_bone_solve_mid(&jobs[k], &setup[k], &state[k]);
    for (uint32_t k = 0; k < n; k++)
        two_bone_solve_start(&jobs[k], &setup[k], &state[k], &out[k]);
    return MN_OK;
}

mn_status mn_ik_two_bone_solve(const mn_ik_two_bone *job, mn_ik_two_bone_result *out,
                               mn_error *err)
{
    if (!job || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "two-bone IK: job or out is NULL");
    uint32_t failed;
    return two_bone_solve_some(job, 1, out, &failed, err);
}

mn_status mn_ik_two_bone_solve_batch(const mn_ik_two_bone *jobs, uint32_t count,
                                     mn_ik_two_bone_result *out, mn_error *err)
{
    if (count > 0 && (!jobs || !out))
        return mni_fail(err, MN_INVALID_ARGUMENT, "two-bone IK: jobs or out is NULL");
    for (uint32_t k = 0; k < count; k += TWO_BONE_BATCH) {
        uint32_t n = count - k < TWO_BONE_BATCH ? count - k : TWO_BONE_BATCH, failed = 0;
        mn_status st = two_bone_solve_some(jobs + k, n, out + k, &failed, err);
        if (st != MN_OK) {
            if (err) { /* name the job: the solver's message is about one job */
                char what[sizeof err->message];
                memcpy(what, err->message, sizeof what);
                what[sizeof what - 1] = '\0';
                int lead = snprintf(err->message, sizeof err->message, "jobs[%u]: ", k + failed);
                size_t room = sizeof err->message - (size_t)lead - 1, len = strlen(what);
                len = len < room ? len : room;
                memcpy(err->message + lead, what, len); /* the tail is cut when it does not fit */
                err->message[(size_t)lead + len] = '\0';
            }
            return st;
        }
    }
    mni_error_clear(err);
    return MN_OK;
}

/* ---- aim chain ------------------------------------------------------------ */

static mn_status aim_validate(const mn_ik_aim_chain *job, float *corrections, mn_error *err)
{
    if (!job || !corrections || !job->worlds || !job->joints)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "aim chain: job, worlds, joints and corrections are required");
    if (job->joint_count == 0)
        return mni_fail(err, MN_INVALID_ARGUMENT, "aim chain: joint_count is 0");
    if (!mq_finite_floats(job->target, 3) || !mq_finite_floats(job->forward, 3) ||
        !mq_finite_floats(job->offset, 3) || !mq_finite_floats(job->up, 3) ||
        !mq_finite_floats(job->pole, 3) || !isfinite(job->weight))
        return mni_fail(err, MN_NOT_FINITE,
                        "aim chain: target, forward, offset, up, pole or weight is not finite");
    double f[3], u[3];
    mq_from_float3(f, job->forward);
    mq_from_float3(u, job->up);
    if (!(mq_len2(f) > 0.0))
        return mni_fail(err, MN_INVALID_ARGUMENT, "aim chain: forward is zero");
    if (job->use_up && !(mq_len2(u) > 0.0))
        return mni_fail(err, MN_INVALID_ARGUMENT, "aim chain: up is zero");
    for (uint32_t k = 0; k < job->joint_count; k++) {
        const float *w = job->joint_weights;
        if (job->joints[k] >= job->world_count)
            return mni_fail(err, MN_INDEX_RANGE,
                            "aim chain: joints[%u] = %u is outside worlds (%u matrices)", k,
                            job->joints[k], job->world_count);
        if (w && !(w[k] >= 0.0f && w[k] <= 1.0f))
            return mni_fail(err, isfinite(w[k]) ? MN_INVALID_ARGUMENT : MN_NOT_FINITE,
                            "aim chain: joint_weights[%u] = %g is outside [0, 1]", k, (double)w[k]);
        if (job->limits && !(job->limits[k] >= 0.0f))
            return mni_fail(err, MN_INVALID_ARGUMENT,
                            "aim chain: limits[%u] = %g is negative or NaN", k,
                            (double)job->limits[k]);
        if (!mq_finite_floats(job->worlds + 16u * job->joints[k], 16))
            return mni_fail(err, MN_NOT_FINITE,
                            "aim chain: the matrix of joint %u holds a NaN or infinity",
                            job->joints[k]);
    }
    return MN_OK;
}

/*
 * The direction from joint origin through the point where the ray
 * (offset, forward) meets the sphere of radius |target| about the joint:
 * rotating that direction onto the target puts the target on the ray.
 * False when the ray misses the sphere (the target is inside the circle the
 * offset sweeps), which no rotation can fix.
 */
static bool offsetted_forward(const double fwd[3], const double off[3], const double target[3],
                              double out[3])
{
    double ao = mq_dot(fwd, off);
    double ac2 = mq_len2(off) - ao * ao;
    double r2 = mq_len2(target);
    if (ac2 > r2 || !(r2 > 0.0))
        return false;
    double ai = sqrt(r2 - ac2);
    for (int i = 0; i < 3; i++)
        out[i] = off[i] + fwd[i] * (ai - ao);
    return true;
}

/* Turn the aim about the joint→target line so that `up` lies in the plane of the target and the pole. */
static void aim_twist(const double aim[4], const double up[3], const double pole_js[3],
                      const double target_js[3], double out[4])
{
    double up_c[3], ref_n[3], joint_n[3];
    mq_quat_rotate(up_c, aim, up);
    mq_cross(ref_n, pole_js, target_js);
    mq_cross(joint_n, up_c, target_js);
    double nn = sqrt(mq_len2(ref_n) * mq_len2(joint_n));
    memcpy(out, aim, 4 * sizeof(double));
    if (!(nn > 0.0))
        return;
    double tl = sqrt(mq_len2(target_js));
    double flip = mq_dot(ref_n, up_c) < 0.0 ? -1.0 : 1.0;
    double axis[3] = {flip * target_js[0] / tl, flip * target_js[1] / tl, flip * target_js[2] / tl};
    double plane[4];
    mq_quat_axis_cos(plane, axis, mq_dot(joint_n, ref_n) / nn);
    mq_quat_mul(out, plane, aim);
    mq_quat_normalize(out, out);
}

/* Weight the correction from identity, then cap its angle (same axis). */
static void aim_weight_and_limit(double c[4], double weight, const float *limit)
{
    mq_quat_scale(c, c, weight);
    if (!limit)
        return;
    double angle = mq_quat_angle(c);
    if (angle > (double)*limit) {
        double s = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        double axis[3] = {c[0] / s, c[1] / s, c[2] / s};
        mq_quat_axis_angle(c, axis, *limit);
    }
}

static void normalize3(double v[3])
{
    double n = sqrt(mq_len2(v));
    if (n > 0.0)
        for (int i = 0; i < 3; i++)
            v[i] /= n;
}

mn_status mn_ik_aim_chain_solve(const mn_ik_aim_chain *job, float *corrections, bool *reached,
                                mn_error *err)
{
    mn_status st = aim_validate(job, corrections, err);
    if (st != MN_OK)
        return st;
    /* Check every matrix inverts before writing anything. */
    for (uint32_t k = 0; k < job->joint_count; k++) {
        mq_affine a, inv;
        mq_affine_from_mat4(&a, job->worlds + 16u * job->joints[k]);
        if (!mq_affine_invert(&inv, &a))
            return mni_fail(err, MN_INVALID_ARGUMENT,
                            "aim chain: the matrix of joint %u is singular", job->joints[k]);
    }
    double fwd[3], off[3], up[3], target[3], pole[3];
    mq_from_float3(fwd, job->forward);
    mq_from_float3(off, job->offset);
    mq_from_float3(up, job->up);
    mq_from_float3(target, job->target);
    mq_from_float3(pole, job->pole);
    normalize3(fwd);
    double weight = clamp01(job->weight);

    mq_affine corrected; /* the last joint's frame with its correction applied */
    mq_affine_identity(&corrected);
    for (uint32_t k = 0; k < job->joint_count; k++) {
        mq_affine frame, inv;
        mq_affine_from_mat4(&frame, job->worlds + 16u * job->joints[k]);
        mq_affine_invert(&inv, &frame);
        if (k > 0) {
            /* Carry the ray from the corrected previous joint into this joint's space. */
            mq_affine rel;
            mq_affine_mul(&rel, &inv, &corrected);
            mq_affine_dir(fwd, &rel, fwd);
            mq_affine_point(off, &rel, off);
            mq_affine_dir(up, &rel, up);
            normalize3(fwd);
        }
        double target_js[3], aimed[3], c[4];
        mq_affine_point(target_js, &inv, target);
        mq_quat_identity(c);
        if (offsetted_forward(fwd, off, target_js, aimed)) {
            mq_quat_from_vectors(c, aimed, target_js);
            if (job->use_up) {
                double pole_js[3];
                mq_affine_dir(pole_js, &inv, pole);
                aim_twist(c, up, pole_js, target_js, c);
            }
        }
        double w = weight * (job->joint_weights ? (double)job->joint_weights[k] : 1.0);
        aim_weight_and_limit(c, w, job->limits ? job->limits + k : NULL);
        mq_to_float4(corrections + 4u * k, c);

        mq_affine rot;
        mq_affine_from_quat(&rot, c);
        mq_affine_mul(&corrected, &frame, &rot);
    }

    if (reached) {
        double p[3], d[3], to[3];
        mq_affine_point(p, &corrected, off);
        mq_affine_dir(d, &corrected, fwd);
        mq_sub(to, target, p);
        double nn = sqrt(mq_len2(d) * mq_len2(to));
        double angle = nn > 0.0 ? acos(fmax(-1.0, fmin(1.0, mq_dot(d, to) / nn))) : 0.0;
        *reached = angle <= 1e-3;
    }
    return MN_OK;
}
