/*
 * Sampling tracks and clips, as the glTF 2.0 specification interpolates:
 *
 *   STEP         the left key's value;
 *   LINEAR       (1-s)·v_k + s·v_k+1; rotations slerp along the short arc;
 *   CUBICSPLINE  p(s) = (2s³-3s²+1)·v_k + (s³-2s²+s)·Δt·b_k
 *                     + (-2s³+3s²)·v_k+1 + (s³-s²)·Δt·a_k+1
 *                with b_k key k's out-tangent, a_k+1 key k+1's in-tangent,
 *                Δt = t_k+1 - t_k and s = (t - t_k) / Δt.
 *
 * Every sampled rotation is normalised, whatever the mode (files store keys
 * slightly off unit length, and a cubic spline leaves the unit sphere).
 *
 * Where t falls is decided once per track by one rule, shared by every entry
 * point so that the same t gives the same bits whichever one is used:
 *   - t before the first key (or NaN): the first key, clamped;
 *   - t at or after the last key:      the last key, clamped;
 *   - otherwise the span k with times[k] <= t < times[k+1].
 * With keys sorted (a clip's always are) that span is unique, so a cursor
 * that finds it by walking forward from last frame's span lands on exactly
 * the span a binary search would, and does exactly the same arithmetic.
 * The span never has Δt = 0: equal key times are skipped, which takes the
 * right key of the pair, as a jump at that time means.
 */
#include "anim/clip_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* A cursor walks at most this many spans forward before falling back to binary search. */
#define CURSOR_WALK 4u

/* Where t falls among a track's keys: key k alone (span == false) or the span [k, k+1]. */
typedef struct place {
    uint32_t k;
    bool span;
} place;

/*
 * The span k with times[k] <= t < times[k+1], given times[0] <= t < times[n-1].
 * Bisection keeps that bracket for any data — keys out of order included, as
 * a loaded mn_channel may hold — so it never leaves the array and Δt > 0.
 */
static inline uint32_t find_span(const float *times, uint32_t n, float t)
{
    uint32_t lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        uint32_t mid = lo + ((hi - lo) >> 1);
        bool left = times[mid] <= t;
        lo = left ? mid : lo;
        hi = left ? hi : mid;
    }
    return lo;
}

/* The rule above, by clamping and binary search.  n >= 1. */
static inline place locate(const float *times, uint32_t n, float t)
{
    if (!(t >= times[0]))
        return (place){0, false};
    if (t >= times[n - 1])
        return (place){n - 1, false};
    return (place){find_span(times, n, t), true};
}

/*
 * The same rule, first trying the span the cursor holds and the few after
 * it: forward playback moves at most a span or two a frame.  The bracket
 * test identifies the span uniquely in sorted keys, so this agrees with
 * locate() for every t.
 */
static inline place locate_cursor(const float *times, uint32_t n, float t, uint32_t *cached)
{
    uint32_t k = *cached;
    if (k < n - 1 && times[k] <= t) {
        for (uint32_t step = 0; step < CURSOR_WALK && k < n - 1; step++, k++) {
            if (t < times[k + 1]) {
                *cached = k;
                return (place){k, true};
            }
        }
    }
    place p = locate(times, n, t);
    if (p.span)
        *cached = p.k;
    return p;
}

/* out = q / |q|, identity when |q| is zero or not finite (mn_quat_normalize's arithmetic). */
static inline void quat_normalize_to(float *out, float x, float y, float z, float w)
{
    float n = sqrtf(x * x + y * y + z * z + w * w);
    if (!(n > 0.0f && n <= FLT_MAX)) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = 1.0f;
        return;
    }
    float inv = 1.0f / n;
    out[0] = x * inv;
    out[1] = y * inv;
    out[2] = z * inv;
    out[3] = w * inv;
}

/*
 * sin x for x in [0, π/2], as x·P(x²) with P interpolating sin(√u)/√u at
 * Chebyshev nodes: within 7e-9 of sin there, far below float rounding.  Odd,
 * so sin_poly(0) is exactly 0.
 */
static inline float sin_poly(float x)
{
    float u = x * x;
    return x * (9.999999957e-01f +
                u * (-1.666665795e-01f +
                     u * (8.333050171e-03f + u * (-1.980901741e-04f + u * 2.605107635e-06f))));
}

/*
 * acos d for d in [0, 1], as √(1-d)·Q(d) with Q interpolating acos(d)/√(1-d)
 * (smooth on the whole interval) at Chebyshev nodes: within 3e-8 of acos.
 */
static inline float acos_poly(float d)
{
    float q = -1.211737770e-03f;
    q = q * d + 6.491521428e-03f;
    q = q * d - 1.684105241e-02f;
    q = q * d + 3.072212242e-02f;
    q = q * d - 5.011430310e-02f;
    q = q * d + 8.896885320e-02f;
    q = q * d - 2.145981556e-01f;
    q = q * d + 1.570796298e+00f;
    return sqrtf(1.0f - d) * q;
}

/*
 * Slerp along the short arc, normalised: mn_quat_slerp's method, inline.
 * Near-parallel keys (|dot| > 0.9995, the common case for keys a frame apart)
 * take the normalised lerp.  Apart, the angle and the sines come from short
 * polynomials rather than acosf/sinf calls (several times faster; within
 * 1e-6 of mn_quat_slerp, as a test checks).  Both weights divide by the same
 * sin θ, so s = 0 gives weights of exactly 1 and 0: a key time gives the key.
 */
static inline void quat_slerp_to(float *out, const float *a, const float *b, float s)
{
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    /* q and -q are one rotation: flipping b's weight takes the short arc. */
    float sign = 1.0f;
    if (d < 0.0f) {
        sign = -1.0f;
        d = -d;
    }
    float wa, wb;
    if (d > 0.9995f) {
        wa = 1.0f - s;
        wb = s;
    } else {
        float theta = acos_poly(d);
        float sin_theta = sin_poly(theta);
        wa = sin_poly((1.0f - s) * theta) / sin_theta;
        wb = sin_poly(s * theta) / sin_theta;
    }
    wb *= sign;
    quat_normalize_to(out, wa * a[0] + wb * b[0], wa * a[1] + wb * b[1], wa * a[2] + wb * b[2],
                      wa * a[3] + wb * b[3]);
}

/* Write one element v (n_out of its floats); a rotation is normalised. */
static inline void emit(float *out, const float *v, uint32_t n_out, bool rotation)
{
    if (rotation) {
        quat_normalize_to(out, v[0], v[1], v[2], v[3]);
        return;
    }
    for (uint32_t i = 0; i < n_out; i++)
        out[i] = v[i];
}

/*
 * Evaluate a track at place p: the shared kernel of every entry point.
 * `components` is the stride of an element, n_out how many floats to write
 * (<= components).  Rotation tracks (4 components) slerp and normalise.
 */
static inline void eval(const float *times, const float *values, uint32_t components,
                        uint32_t n_out, mn_anim_path path, mn_interpolation interpolation, place p,
                        float t, float *out)
{
    bool rotation = path == MN_PATH_ROTATION && components == 4 && n_out == 4;
    uint32_t k = p.k;
    if (interpolation == MN_INTERP_CUBICSPLINE) {
        /* Key k: in-tangent, value, out-tangent. */
        const float *key0 = values + (size_t)k * 3 * components;
        if (!p.span) {
            emit(out, key0 + components, n_out, rotation);
            return;
        }
        const float *key1 = key0 + 3 * components;
        float dt = times[k + 1] - times[k];
        float s = (t - times[k]) / dt;
        float s2 = s * s, s3 = s2 * s;
        float h00 = 2.0f * s3 - 3.0f * s2 + 1.0f;
        float h10 = (s3 - 2.0f * s2 + s) * dt;
        float h01 = -2.0f * s3 + 3.0f * s2;
        float h11 = (s3 - s2) * dt;
        const float *v0 = key0 + components, *b0 = key0 + 2 * components;
        const float *v1 = key1 + components, *a1 = key1;
        if (rotation) {
            float q[4];
            for (uint32_t i = 0; i < 4; i++)
                q[i] = h00 * v0[i] + h10 * b0[i] + h01 * v1[i] + h11 * a1[i];
            quat_normalize_to(out, q[0], q[1], q[2], q[3]);
            return;
        }
        for (uint32_t i = 0; i < n_out; i++)
            out[i] = h00 * v0[i] + h10 * b0[i] + h01 * v1[i] + h11 * a1[i];
        return;
    }
    const float *v0 = values + (size_t)k * components;
    if (!p.span || interpolation == MN_INTERP_STEP) {
        emit(out, v0, n_out, rotation);
        return;
    }
    const float *v1 = v0 + components;
    float s = (t - times[k]) / (times[k + 1] - times[k]);
    if (rotation) {
        quat_slerp_to(out, v0, v1, s);
        return;
    }
    /* (1-s)·v0 + s·v1, written so that s = 0 gives v0 exactly. */
    for (uint32_t i = 0; i < n_out; i++)
        out[i] = v0[i] + s * (v1[i] - v0[i]);
}

void mn_track_sample(const mn_track *track, float t, float *out)
{
    if (!track || !out || track->key_count == 0 || !track->times || !track->values ||
        track->components == 0)
        return;
    place p = locate(track->times, track->key_count, t);
    eval(track->times, track->values, track->components, track->components, track->path,
         track->interpolation, p, t, out);
}

void mn_channel_sample(const mn_channel *channel, float t, float *out)
{
    if (!channel)
        return;
    mn_track track = {
        .target = channel->node,
        .path = channel->path,
        .interpolation = channel->interpolation,
        .key_count = channel->key_count,
        .components = channel->components,
        .times = channel->times,
        .values = channel->values,
    };
    mn_track_sample(&track, t, out);
}

/* The pose array a track writes, or NULL when the pose has no such joint (or it is a weights track). */
static inline float *pose_slot(mn_pose *pose, const mn_track *tr)
{
    if (tr->target >= pose->joint_count)
        return NULL;
    switch (tr->path) {
    case MN_PATH_TRANSLATION: return pose->translations + 3 * (size_t)tr->target;
    case MN_PATH_ROTATION:    return pose->rotations + 4 * (size_t)tr->target;
    case MN_PATH_SCALE:       return pose->scales + 3 * (size_t)tr->target;
    default:                  return NULL;
    }
}

/* Both clip samplers: spans == NULL searches every track from scratch. */
static inline void sample_clip(const mn_clip *clip, float t, uint32_t *spans, mn_pose *pose)
{
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const mn_track *tr = &clip->tracks[i];
        float *out = pose_slot(pose, tr);
        if (!out || tr->key_count == 0)
            continue;
        place p = spans ? locate_cursor(tr->times, tr->key_count, t, &spans[i])
                        : locate(tr->times, tr->key_count, t);
        /* Constant component counts (checked on build) let the compiler unroll each case. */
        if (tr->path == MN_PATH_ROTATION)
            eval(tr->times, tr->values, 4, 4, MN_PATH_ROTATION, tr->interpolation, p, t, out);
        else
            eval(tr->times, tr->values, 3, 3, tr->path, tr->interpolation, p, t, out);
    }
}

void mn_clip_sample(const mn_clip *clip, float t, mn_pose *pose)
{
    if (!clip || !pose)
        return;
    sample_clip(clip, t, NULL, pose);
}

bool mn_clip_sample_weights(const mn_clip *clip, float t, uint32_t target, float *out,
                            uint32_t count)
{
    if (!clip)
        return false;
    for (uint32_t w = 0; w < clip->weights_count; w++) {
        const mn_track *tr = &clip->tracks[clip->weights_tracks[w]];
        if (tr->target != target)
            continue;
        if (tr->key_count > 0 && out && count > 0) {
            uint32_t n_out = count < tr->components ? count : tr->components;
            place p = locate(tr->times, tr->key_count, t);
            eval(tr->times, tr->values, tr->components, n_out, MN_PATH_WEIGHTS, tr->interpolation,
                 p, t, out);
        }
        return true;
    }
    return false;
}

size_t mn_clip_cursor_storage_size(const mn_clip *clip)
{
    return clip ? (size_t)clip->track_count * sizeof(uint32_t) : 0;
}

void mn_clip_cursor_init(mn_clip_cursor *cursor, const mn_clip *clip, void *storage)
{
    if (!cursor)
        return;
    cursor->clip = clip;
    cursor->spans = storage;
    if (storage && clip)
        memset(storage, 0, mn_clip_cursor_storage_size(clip));
}

void mn_clip_sample_cursor(const mn_clip *clip, float t, mn_clip_cursor *cursor, mn_pose *pose)
{
    if (!clip || !pose)
        return;
    /* A cursor of another clip (or none) would index the wrong tracks: search instead. */
    bool usable = cursor && cursor->clip == clip && cursor->spans;
    sample_clip(clip, t, usable ? cursor->spans : NULL, pose);
}
