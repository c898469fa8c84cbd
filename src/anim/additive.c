/*
 * Additive deltas (marionette/blend.h): the delta of one pose
 * against a reference, and a whole clip turned into the deltas it carries
 * against a reference pose.
 *
 * Every conversion is linear in the value (a difference, a left product
 * with the conjugate of the reference, a componentwise division), which is
 * why a clip's keys can be converted one by one, cubic tangents included,
 * and still sample to the delta of the original's sample at every time.
 */
#include <marionette/blend.h>
#include <marionette/math.h>

#include "anim/blend_internal.h"
#include "anim/space_internal.h"

#include <math.h>
#include <string.h>

/* The inverse of the normalised reference rotation. */
static void reference_inverse(float out[4], const float r_ref[4])
{
    float n[4];
    mn_quat_normalize(n, r_ref);
    mn_quat_conjugate(out, n);
}

/* First zero component of a reference scale, or -1. */
static int zero_scale_axis(const float s[3])
{
    for (int i = 0; i < 3; i++)
        if (s[i] == 0.0f)
            return i;
    return -1;
}

mn_status mn_pose_make_additive(const mn_pose *pose, const mn_pose *reference, mn_pose *out_delta,
                                mn_error *err)
{
    if (!pose || !reference || !out_delta)
        return mni_fail(err, MN_INVALID_ARGUMENT, "make_additive: a pose is NULL");
    uint32_t n = pose->joint_count;
    if (reference->joint_count != n || out_delta->joint_count != n)
        return mni_fail(err, MN_COUNT_MISMATCH,
                        "make_additive: joint counts differ (pose %u, reference %u, out %u)", n,
                        reference->joint_count, out_delta->joint_count);
    for (uint32_t j = 0; j < n; j++) {
        int axis = zero_scale_axis(reference->scales + 3 * (size_t)j);
        if (axis >= 0)
            return mni_fail(err, MN_INVALID_ARGUMENT,
                            "make_additive: reference joint %u has scale[%d] = 0", j, axis);
    }
    for (uint32_t j = 0; j < n; j++) {
        const float *t = pose->translations + 3 * (size_t)j, *tr = reference->translations + 3 * (size_t)j;
        const float *s = pose->scales + 3 * (size_t)j, *sr = reference->scales + 3 * (size_t)j;
        float dt[3], ds[3], inv[4], dr[4];
        for (int i = 0; i < 3; i++) {
            dt[i] = t[i] - tr[i];
            ds[i] = s[i] / sr[i];
        }
        reference_inverse(inv, reference->rotations + 4 * (size_t)j);
        mn_quat_mul(dr, inv, pose->rotations + 4 * (size_t)j);
        mn_quat_normalize(dr, dr);
        memcpy(out_delta->translations + 3 * (size_t)j, dt, sizeof dt);
        memcpy(out_delta->rotations + 4 * (size_t)j, dr, sizeof dr);
        memcpy(out_delta->scales + 3 * (size_t)j, ds, sizeof ds);
    }
    mni_error_clear(err);
    return MN_OK;
}

/* Floats of a track's values: elements × components, three elements a key for CUBICSPLINE. */
static size_t track_floats(const mn_track *tr)
{
    size_t per_key = tr->interpolation == MN_INTERP_CUBICSPLINE ? 3u : 1u;
    return (size_t)tr->key_count * per_key * tr->components;
}

/*
 * Convert one pose track's values in place.  A CUBICSPLINE key is
 * (in-tangent, value, out-tangent): values get the full delta, tangents its
 * linear part (no offset for translation, no renormalisation for rotation).
 */
static void convert_values(const mn_track *tr, const mn_pose *ref, float *v)
{
    uint32_t j = tr->target;
    bool cubic = tr->interpolation == MN_INTERP_CUBICSPLINE;
    size_t elements = (size_t)tr->key_count * (cubic ? 3u : 1u);
    const float *t_ref = ref->translations + 3 * (size_t)j;
    const float *s_ref = ref->scales + 3 * (size_t)j;
    float inv[4];
    reference_inverse(inv, ref->rotations + 4 * (size_t)j);
    for (size_t e = 0; e < elements; e++) {
        bool tangent = cubic && e % 3 != 1;
        if (tr->path == MN_PATH_TRANSLATION) {
            float *p = v + 3 * e;
            for (int i = 0; i < 3 && !tangent; i++)
                p[i] -= t_ref[i];
        } else if (tr->path == MN_PATH_ROTATION) {
            float *q = v + 4 * e;
            mn_quat_mul(q, inv, q);
            if (!tangent)
                mn_quat_normalize(q, q);
        } else if (tr->path == MN_PATH_SCALE) {
            float *p = v + 3 * e;
            for (int i = 0; i < 3; i++)
                p[i] /= s_ref[i];
        }
    }
}

static bool is_pose_path(mn_anim_path path)
{
    return path == MN_PATH_TRANSLATION || path == MN_PATH_ROTATION || path == MN_PATH_SCALE;
}

/* Every pose track must target a reference joint, and a scale track a non-zero reference scale. */
static mn_status check_tracks(const mn_clip *clip, const mn_pose *reference, mn_error *err)
{
    uint32_t count = mn_clip_track_count(clip);
    for (uint32_t i = 0; i < count; i++) {
        const mn_track *tr = mn_clip_track(clip, i);
        if (!is_pose_path(tr->path) || tr->key_count == 0)
            continue;
        if (tr->target >= reference->joint_count)
            return mni_fail(err, MN_INDEX_RANGE,
                            "additive clip: track %u targets joint %u, the reference has %u", i,
                            tr->target, reference->joint_count);
        int axis = tr->path == MN_PATH_SCALE
                       ? zero_scale_axis(reference->scales + 3 * (size_t)tr->target)
                       : -1;
        if (axis >= 0)
            return mni_fail(err, MN_INVALID_ARGUMENT,
                            "additive clip: track %u scales joint %u, whose reference scale[%d] is 0",
                            i, tr->target, axis);
    }
    return MN_OK;
}

mn_status mn_clip_create_additive(const mn_clip *clip, const mn_pose *reference,
                                  const mn_clip_options *options, mn_clip **out_clip, mn_error *err)
{
    if (out_clip)
        *out_clip = NULL;
    if (!clip || !reference || !out_clip)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "additive clip: clip, reference or out_clip is NULL");
    mn_status st = mni_space_check(mn_clip_space(clip), "the clip", reference, err);
    if (st == MN_OK)
        st = check_tracks(clip, reference, err);
    if (st != MN_OK)
        return st;

    mn_clip_options opts;
    memset(&opts, 0, sizeof opts);
    if (options)
        opts.allocator = options->allocator;
    opts.space = mn_clip_space(clip); /* deltas of the same joints */
    uint32_t count = mn_clip_track_count(clip);

    /* One scratch block: the track records, then every track's converted values. */
    size_t floats = 0, bytes;
    for (uint32_t i = 0; i < count; i++)
        if (!mni_checked_add(floats, track_floats(mn_clip_track(clip, i)), &floats))
            return mni_fail(err, MN_OVERFLOW, "additive clip: too many values");
    size_t track_bytes = (size_t)count * sizeof(mn_track);
    if (!mni_checked_mul(floats, sizeof(float), &bytes) || !mni_checked_add(bytes, track_bytes, &bytes))
        return mni_fail(err, MN_OVERFLOW, "additive clip: too many values");
    char *block = NULL;
    if (bytes > 0 && !(block = mni_alloc(&opts.allocator, bytes)))
        return mni_oom(err, "additive clip (%zu bytes)", bytes);

    mn_track *tracks = (mn_track *)block;
    float *values = (float *)(block + track_bytes);
    for (uint32_t i = 0; i < count; i++) {
        const mn_track *src = mn_clip_track(clip, i);
        size_t n = track_floats(src);
        tracks[i] = *src;
        if (n > 0) {
            memcpy(values, src->values, n * sizeof(float));
            if (is_pose_path(src->path))
                convert_values(src, reference, values);
            tracks[i].values = values;
            values += n;
        }
    }
    st = mn_clip_create(tracks, count, mn_clip_name(clip), &opts, out_clip, err);
    mni_free(&opts.allocator, block, bytes);
    return st;
}
