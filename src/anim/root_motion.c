/*
 * Root motion: the root's rigid motion between two unwrapped times of a
 * looping clip, accumulated over whole cycles,
 * and pinning the root of a sampled pose to the clip's value at time 0.
 *
 * With r(u) the root's local (translation, rotation) at u in [0, d) and
 * E = r(d) ∘ r(0)⁻¹ the motion of one whole cycle, the root at unwrapped t
 * is R(t) = E^k ∘ r(u), k = floor(t/d): each cycle is the first one moved to
 * start where the one before ended.  Composing on the left is what makes a
 * turning walk turn: the k-th stride is walked in the k-th heading.
 */
#include <marionette/root_motion.h>

#include "anim/motion_internal.h"
#include "core/core.h"

#include <string.h>

/* A rigid map in double: x ↦ q·x + p. */
typedef struct rigid {
    double p[3];
    double q[4];
} rigid;

/* a ∘ b: b first, then a.  out may alias a or b. */
static void rigid_compose(rigid *out, const rigid *a, const rigid *b)
{
    double p[3], q[4];
    mq_quat_rotate(p, a->q, b->p);
    for (int i = 0; i < 3; i++)
        p[i] += a->p[i];
    mq_quat_mul(q, a->q, b->q);
    mq_quat_normalize(q, q);
    memcpy(out->p, p, sizeof p);
    memcpy(out->q, q, sizeof q);
}

static void rigid_inverse(rigid *out, const rigid *a)
{
    double q[4], p[3];
    mq_quat_conj(q, a->q);
    mq_quat_rotate(p, q, a->p);
    for (int i = 0; i < 3; i++)
        out->p[i] = -p[i];
    memcpy(out->q, q, sizeof q);
}

static void rigid_identity(rigid *out)
{
    out->p[0] = out->p[1] = out->p[2] = 0.0;
    mq_quat_identity(out->q);
}

/* e^k by repeated squaring: O(log |k|) compositions, no drift from k single steps. */
static void rigid_power(rigid *out, const rigid *e, int64_t k)
{
    rigid base = *e, acc;
    rigid_identity(&acc);
    if (k < 0) {
        rigid_inverse(&base, &base);
        k = -k;
    }
    while (k > 0) {
        if (k & 1)
            rigid_compose(&acc, &acc, &base);
        rigid_compose(&base, &base, &base);
        k >>= 1;
    }
    *out = acc;
}

/* The root's translation and rotation tracks (the last of each, as sampling lets the last win). */
typedef struct root_tracks {
    const mn_track *translation, *rotation;
    double base_t[3], base_r[4];   /* what unanimated channels hold */
} root_tracks;

static bool find_root_tracks(const mn_clip *clip, uint32_t root, root_tracks *rt)
{
    rt->translation = rt->rotation = NULL;
    for (uint32_t i = 0, n = mn_clip_track_count(clip); i < n; i++) {
        const mn_track *tr = mn_clip_track(clip, i);
        if (tr->target != root || tr->key_count == 0)
            continue;
        if (tr->path == MN_PATH_TRANSLATION)
            rt->translation = tr;
        else if (tr->path == MN_PATH_ROTATION)
            rt->rotation = tr;
    }
    return rt->translation || rt->rotation;
}

/* r(u): the root's local translation and rotation at clip time u. */
static void sample_root(const root_tracks *rt, double u, rigid *out)
{
    float v[4];
    memcpy(out->p, rt->base_t, sizeof out->p);
    memcpy(out->q, rt->base_r, sizeof out->q);
    if (rt->translation) {
        mn_track_sample(rt->translation, (float)u, v);
        mq_from_float3(out->p, v);
    }
    if (rt->rotation) {
        mn_track_sample(rt->rotation, (float)u, v);
        mq_from_float4(out->q, v);
    }
    mq_quat_normalize(out->q, out->q);
}

/* The most cycles an unwrapped time may span: beyond 2^52 the cycle index stops being exact in double. */
#define MAX_CYCLES 4503599627370496.0

/* R(t) = E^k ∘ r(u). */
static void root_at(const root_tracks *rt, const rigid *cycle, double d, double t, rigid *out)
{
    double k = floor(t / d);
    double u = t - k * d;
    if (u < 0.0)
        u = 0.0;
    if (u >= d) { /* rounding at a wrap: the next cycle's start */
        u = 0.0;
        k += 1.0;
    }
    rigid within, moved;
    sample_root(rt, u, &within);
    rigid_power(&moved, cycle, (int64_t)k);
    rigid_compose(out, &moved, &within);
}

mn_status mn_root_motion_extract(const mn_clip *clip, uint32_t root, const mn_pose *base,
                                 float from, float to, mn_root_motion *out, mn_error *err)
{
    if (!clip || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "root motion: clip or out is NULL");
    if (!isfinite(from) || !isfinite(to))
        return mni_fail(err, MN_NOT_FINITE, "root motion: from (%g) or to (%g) is not finite",
                        (double)from, (double)to);
    double d = mn_clip_duration(clip);
    if (!(d > 0.0))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "root motion: clip \"%s\" has duration 0, so it has no cycle",
                        mn_clip_name(clip));
    if (fabs((double)from / d) > MAX_CYCLES || fabs((double)to / d) > MAX_CYCLES)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "root motion: time %g is more than 2^52 cycles from 0",
                        fabs((double)from) > fabs((double)to) ? (double)from : (double)to);
    root_tracks rt;
    if (!find_root_tracks(clip, root, &rt))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "root motion: clip \"%s\" animates neither the translation nor the "
                        "rotation of target %u",
                        mn_clip_name(clip), root);
    rt.base_t[0] = rt.base_t[1] = rt.base_t[2] = 0.0;
    mq_quat_identity(rt.base_r);
    if (base) {
        if (root >= base->joint_count)
            return mni_fail(err, MN_INVALID_ARGUMENT,
                            "root motion: root %u is outside the base pose (%u joints)", root,
                            base->joint_count);
        mq_from_float3(rt.base_t, base->translations + 3u * root);
        mq_from_float4(rt.base_r, base->rotations + 4u * root);
    }

    rigid r0, rd, r0_inv, cycle, at_from, at_to, from_inv, motion;
    sample_root(&rt, 0.0, &r0);
    sample_root(&rt, d, &rd);
    rigid_inverse(&r0_inv, &r0);
    rigid_compose(&cycle, &rd, &r0_inv);
    root_at(&rt, &cycle, d, from, &at_from);
    root_at(&rt, &cycle, d, to, &at_to);
    rigid_inverse(&from_inv, &at_from);
    rigid_compose(&motion, &from_inv, &at_to);
    for (int i = 0; i < 3; i++)
        out->translation[i] = (float)motion.p[i];
    mq_to_float4(out->rotation, motion.q);
    return MN_OK;
}

mn_status mn_root_motion_strip(const mn_clip *clip, uint32_t root, mn_pose *pose, mn_error *err)
{
    if (!clip || !pose)
        return mni_fail(err, MN_INVALID_ARGUMENT, "root motion: clip or pose is NULL");
    if (root >= pose->joint_count)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "root motion: root %u is outside the pose (%u joints)", root,
                        pose->joint_count);
    root_tracks rt;
    find_root_tracks(clip, root, &rt);
    if (rt.translation)
        mn_track_sample(rt.translation, 0.0f, pose->translations + 3u * root);
    if (rt.rotation)
        mn_track_sample(rt.rotation, 0.0f, pose->rotations + 4u * root);
    return MN_OK;
}
