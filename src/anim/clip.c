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
 * Where t falls is decided once per time array by one rule, shared by every entry
 * point so that the same t gives the same bits whichever one is used:
 *   - t before the first key (or NaN): the first key, clamped;
 *   - t at or after the last key:      the last key, clamped;
 *   - otherwise the span k with times[k] <= t < times[k+1].
 * With keys sorted (a clip's always are) that span is unique, so a cursor
 * that finds it by walking forward from last frame's span lands on exactly
 * the span a binary search would, and does exactly the same arithmetic.
 * The span never has Δt = 0: equal key times are skipped, which takes the
 * right key of the pair, as a jump at that time means.
 *
 * A clip samples by timeline (see clip_internal.h): the span and the
 * fraction s are found once for all the tracks that share a time array, and
 * each run of tracks (one path, one interpolation) is a tight loop; tracks
 * of timelines with few tracks (per-track key times) go to the solo loop,
 * which locates and interpolates each in one pass.  Every
 * entry point computes s and Δt with the one helper below and interpolates
 * with the same expressions, so a track sampled alone (mn_track_sample) and
 * within a clip give the same bits.  The code here is the scalar reference
 * and the dispatch (core/simd.h, the convention): rotation runs, linear and
 * cubic, go eight tracks at a time to AVX2 where the CPU has it
 * (clip_avx2.c), then four at a time to SSE2 (clip_sse2.c), both
 * clip_kernel.h; linear translation and scale tracks go two to an AVX2
 * register (one to an SSE2 register without AVX2), cubic ones one to an
 * SSE2 register.  Only exact IEEE operations (add, multiply, divide, square
 * root, no fused multiply-add) in the scalar code's order, so each lane is
 * bit for bit the scalar code, which stays the reference (MN_NO_SIMD builds
 * only it).
 */
#include "anim/clip_internal.h"
#include "anim/clip_place.h"
#include "anim/clip_slerp.h"
#include "anim/space_internal.h"
#include "core/core.h"
#include "core/simd.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A cursor walks at most this many spans forward before falling back to binary search. */
#define CURSOR_WALK 4u

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
        return (place){0, false, 0.0f, 0.0f};
    if (t >= times[n - 1])
        return (place){n - 1, false, 0.0f, 0.0f};
    return (place){find_span(times, n, t), true, 0.0f, 0.0f};
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
    if (d > MN_CLIP_NEARLY_PARALLEL) {
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

/* (1-s)·v0 + s·v1, written so that s = 0 gives v0 exactly. */
static inline void lerp_to(float *out, const float *v0, const float *v1, uint32_t n, float s)
{
    for (uint32_t i = 0; i < n; i++)
        out[i] = v0[i] + s * (v1[i] - v0[i]);
}

/*
 * Evaluate a track at place p (with its fraction): the shared kernel of
 * every entry point.  `components` is the stride of an element, n_out how
 * many floats to write (<= components).  Rotation tracks (4 components)
 * slerp and normalise.
 */
static inline void eval(const float *values, uint32_t components, uint32_t n_out, mn_anim_path path,
                        mn_interpolation interpolation, place p, float *out)
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
        hermite h = hermite_at(p.s, p.dt);
        const float *v0 = key0 + components, *b0 = key0 + 2 * components;
        const float *v1 = key1 + components, *a1 = key1;
        if (rotation) {
            float q[4];
            for (uint32_t i = 0; i < 4; i++)
                q[i] = h.h00 * v0[i] + h.h10 * b0[i] + h.h01 * v1[i] + h.h11 * a1[i];
            quat_normalize_to(out, q[0], q[1], q[2], q[3]);
            return;
        }
        for (uint32_t i = 0; i < n_out; i++)
            out[i] = h.h00 * v0[i] + h.h10 * b0[i] + h.h01 * v1[i] + h.h11 * a1[i];
        return;
    }
    const float *v0 = values + (size_t)k * components;
    if (!p.span || interpolation == MN_INTERP_STEP) {
        emit(out, v0, n_out, rotation);
        return;
    }
    const float *v1 = v0 + components;
    if (rotation) {
        quat_slerp_to(out, v0, v1, p.s);
        return;
    }
    lerp_to(out, v0, v1, n_out, p.s);
}

void mn_track_sample(const mn_track *track, float t, float *out)
{
    if (!track || !out || track->key_count == 0 || !track->times || !track->values ||
        track->components == 0)
        return;
    place p = with_fraction(locate(track->times, track->key_count, t), track->times, t);
    eval(track->values, track->components, track->components, track->path, track->interpolation, p,
         out);
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

void mn_pointer_track_sample(const mn_pointer_track *track, float t, float *out)
{
    if (!track || !out)
        return;
    /* Component by component as a weights track; a node rotation (only a hand-made track can
       be one: clips make those node tracks) is slerped and normalised like a rotation. */
    mn_track tr = {
        .path = track->pointer.property == MN_PROP_NODE_ROTATION && track->components == 4
                    ? MN_PATH_ROTATION
                    : MN_PATH_WEIGHTS,
        .interpolation = track->interpolation,
        .key_count = track->key_count,
        .components = track->components,
        .times = track->times,
        .values = track->values,
    };
    mn_track_sample(&tr, t, out);
    if (track->pointer.property == MN_PROP_NODE_VISIBLE && track->components == 1)
        out[0] = out[0] != 0.0f ? 1.0f : 0.0f;
}

void mn_clip_sample_pointers(const mn_clip *clip, float t, float *out)
{
    if (!clip || !out)
        return;
    for (uint32_t i = 0; i < clip->pointer_count; i++) {
        mn_pointer_track_sample(&clip->pointers[i], t, out);
        out += clip->pointers[i].components;
    }
}

/* How many of a run's tracks drive joints of the pose: a prefix, targets ascending. */
static inline uint32_t tracks_in_pose(const mn_track *tr, uint32_t count, uint32_t joint_count)
{
    if (count == 0 || tr[count - 1].target < joint_count)
        return count;
    uint32_t lo = 0, hi = count;   /* the first track at or past joint_count is in [lo, hi) */
    while (lo < hi) {
        uint32_t mid = lo + ((hi - lo) >> 1);
        if (tr[mid].target < joint_count)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
 * The sampler's dispatch (core/simd.h, the convention), rotation_run and
 * vector_run: a run goes to the widest kernel of `level` (a level
 * mni_simd_resolve gave), what that leaves to the narrower ones, the rest to
 * the reference.  A rotation run at place p: AVX2 eights, then SSE2 fours,
 * then each track alone.
 */
static inline void rotation_run(const mn_track *tr, uint32_t n, mn_interpolation interpolation,
                                place p, mn_simd_level level, float *rotations)
{
    bool linear = p.span && interpolation == MN_INTERP_LINEAR;
    bool cubic = p.span && interpolation == MN_INTERP_CUBICSPLINE;
    float h[4] = {0};
    if (cubic) {
        hermite c = hermite_at(p.s, p.dt);
        h[0] = c.h00, h[1] = c.h10, h[2] = c.h01, h[3] = c.h11;
    }
    uint32_t i = 0;
#if MN_WITH_AVX2
    if (level == MN_SIMD_AVX2_FMA && linear)
        i = mni_clip_slerp_avx2(tr, n, p.k, p.s, rotations);
    else if (level == MN_SIMD_AVX2_FMA && cubic)
        i = mni_clip_hermite_avx2(tr, n, p.k, h, rotations);
#endif
#if MN_WITH_SSE2
    if (i == 0 && (level == MN_SIMD_AVX2_FMA || level == MN_SIMD_SSE2)) {
        if (linear)
            i = mni_clip_slerp_sse2(tr, n, p.k, p.s, rotations);
        else if (cubic)
            i = mni_clip_hermite_sse2(tr, n, p.k, h, rotations);
    }
#endif
    (void)h;
    (void)level;
    for (; i < n; i++) {
        float *out = rotations + 4 * (size_t)tr[i].target;
        const float *v0 = tr[i].values + 4 * (size_t)p.k;
        if (linear)
            quat_slerp_to(out, v0, v0 + 4, p.s);
        else
            eval(tr[i].values, 4, 4, MN_PATH_ROTATION, interpolation, p, out);
    }
}

/* A translation or scale run (three floats a key, checked on build) at place p: SSE2, or the reference. */
static inline void vector_run(const mn_track *tr, uint32_t n, mn_anim_path path,
                              mn_interpolation interpolation, place p, mn_simd_level level,
                              float *base)
{
#if MN_WITH_AVX2
    if (level == MN_SIMD_AVX2_FMA && p.span && interpolation == MN_INTERP_LINEAR) {
        mni_clip_lerp3_avx2(tr, n, p.k, p.s, base);
        return;
    }
#endif
#if MN_WITH_SSE2
    if ((level == MN_SIMD_AVX2_FMA || level == MN_SIMD_SSE2) && p.span &&
        interpolation == MN_INTERP_LINEAR) {
        mni_clip_lerp3_sse2(tr, n, p.k, p.s, base);
        return;
    }
    if ((level == MN_SIMD_AVX2_FMA || level == MN_SIMD_SSE2) && p.span &&
        interpolation == MN_INTERP_CUBICSPLINE) {
        hermite h = hermite_at(p.s, p.dt);
        mni_clip_hermite3_sse2(tr, n, p.k, (const float[4]){h.h00, h.h10, h.h01, h.h11}, base);
        return;
    }
#endif
    (void)level;
    for (uint32_t i = 0; i < n; i++)
        eval(tr[i].values, 3, 3, path, interpolation, p, base + 3 * (size_t)tr[i].target);
}

/* Sample one run at place p into the pose. */
static inline void sample_run(const mn_clip *clip, const mn_clip_run *run, place p,
                              mn_simd_level level, mn_pose *pose)
{
    const mn_track *tr = clip->tracks + run->first;
    uint32_t n = tracks_in_pose(tr, run->count, pose->joint_count);
    if (run->path == MN_PATH_ROTATION)
        rotation_run(tr, n, run->interpolation, p, level, pose->rotations);
    else
        vector_run(tr, n, run->path, run->interpolation, p, level,
                   run->path == MN_PATH_TRANSLATION ? pose->translations : pose->scales);
}

/*
 * Clips whose tracks do not share key times (hand-made files, curves
 * resampled one by one) have a timeline per track or per joint: a run of
 * one or two tracks each.  Their cost is then the search and the dispatch,
 * not the interpolation, so the sampler takes timelines LOCATE_LANES at a
 * time and runs their binary searches interleaved (independent chains the
 * CPU overlaps), and gathers small linear rotation runs from different
 * timelines into one scattered batch for the SIMD kernels.  Each search does
 * find_span's steps and each lane the scalar slerp's operations: the same
 * bits as a timeline alone.
 */
#define LOCATE_LANES 8u
#define SCATTER_BATCH 16u

/* Linear rotations, each at its own span, waiting for a kernel. */
typedef struct scatter {
    uint32_t n;
    const float *keys[SCATTER_BATCH];
    float s[SCATTER_BATCH];
    float *out[SCATTER_BATCH];
} scatter;

static void scatter_flush(scatter *b, mn_simd_level level)
{
    if (b->n == 0)
        return; /* a clip of long runs gathers nothing */
    uint32_t i = 0;
#if MN_WITH_AVX2
    if (level == MN_SIMD_AVX2_FMA)
        i = mni_clip_slerp_scattered_avx2(b->keys, b->s, b->out, b->n);
#endif
#if MN_WITH_SSE2
    if (i == 0 && (level == MN_SIMD_AVX2_FMA || level == MN_SIMD_SSE2))
        i = mni_clip_slerp_scattered_sse2(b->keys, b->s, b->out, b->n);
#endif
    (void)level;
    for (; i < b->n; i++)
        quat_slerp_to(b->out[i], b->keys[i], b->keys[i] + 4, b->s[i]);
    b->n = 0;
}

/* Cubic rotations of solo tracks, each at its own span, waiting for a kernel. */
typedef struct hscatter {
    uint32_t n;
    const float *keys[SCATTER_BATCH];
    float h[4][SCATTER_BATCH];
    float *out[SCATTER_BATCH];
} hscatter;

static void hscatter_flush(hscatter *b, mn_simd_level level)
{
    const float *const h[4] = {b->h[0], b->h[1], b->h[2], b->h[3]};
    uint32_t i = 0;
#if MN_WITH_AVX2
    if (level == MN_SIMD_AVX2_FMA)
        i = mni_clip_hermite_scattered_avx2(b->keys, h, b->out, b->n);
#endif
#if MN_WITH_SSE2
    if (i == 0 && (level == MN_SIMD_AVX2_FMA || level == MN_SIMD_SSE2))
        i = mni_clip_hermite_scattered_sse2(b->keys, h, b->out, b->n);
#endif
    (void)level;
    for (; i < b->n; i++) { /* eval's cubic rotation, its basis already made */
        const float *v0 = b->keys[i] + 4, *b0 = b->keys[i] + 8, *a1 = b->keys[i] + 12;
        const float *v1 = b->keys[i] + 16;
        float q[4];
        for (uint32_t c = 0; c < 4; c++)
            q[c] = h[0][i] * v0[c] + h[1][i] * b0[c] + h[2][i] * v1[c] + h[3][i] * a1[c];
        quat_normalize_to(b->out[i], q[0], q[1], q[2], q[3]);
    }
    b->n = 0;
}

/* Runs narrower than this go to the scattered batch rather than their own kernel call. */
#define SCATTER_RUN 4u

/* A run at place p: into the batch when it is a small linear rotation run, else sampled now. */
static inline void sample_or_gather(const mn_clip *clip, const mn_clip_run *run, place p,
                                    mn_simd_level level, mn_pose *pose, scatter *b)
{
    if (!(run->path == MN_PATH_ROTATION && run->interpolation == MN_INTERP_LINEAR && p.span &&
          run->count < SCATTER_RUN)) {
        sample_run(clip, run, p, level, pose);
        return;
    }
    const mn_track *tr = clip->tracks + run->first;
    uint32_t n = tracks_in_pose(tr, run->count, pose->joint_count);
    for (uint32_t i = 0; i < n; i++) {
        if (b->n == SCATTER_BATCH)
            scatter_flush(b, level);
        b->keys[b->n] = tr[i].values + 4 * (size_t)p.k;
        b->s[b->n] = p.s;
        b->out[b->n++] = pose->rotations + 4 * (size_t)tr[i].target;
    }
}

/*
 * locate()'s rule for `count` timelines at once: the clamps and, with
 * spans (the cursor), a walk from the span each holds over the few after it
 * (forward playback moves at most a span or two a frame; the bracket test
 * identifies the span uniquely in sorted keys, so this agrees with locate()
 * for every t), then the searches left, interleaved.
 */
static inline void locate_lanes(const mn_clip_timeline *lines, uint32_t count, float t,
                                uint32_t *spans, place *out)
{
    uint32_t lo[LOCATE_LANES], hi[LOCATE_LANES];
    bool search[LOCATE_LANES], searching = false;
    for (uint32_t l = 0; l < count; l++) {
        const float *times = lines[l].times;
        uint32_t n = lines[l].key_count, k = spans ? spans[l] : 0;
        search[l] = false;
        lo[l] = 0, hi[l] = 1; /* nothing to search */
        if (spans && k < n - 1 && times[k] <= t) {
            bool hit = false;
            for (uint32_t step = 0; step < CURSOR_WALK && k < n - 1 && !hit; step++)
                hit = t < times[k + 1] || (k++, false);
            if (hit) {
                spans[l] = k;
                out[l] = (place){k, true, 0.0f, 0.0f};
                continue;
            }
        }
        if (!(t >= times[0])) {
            out[l] = (place){0, false, 0.0f, 0.0f};
        } else if (t >= times[n - 1]) {
            out[l] = (place){n - 1, false, 0.0f, 0.0f};
        } else {
            /* Keys are mostly evenly spaced: guess the span in proportion, then bisect the side
               of the guess that brackets t (sorted keys: the same unique span either way). */
            float f = (t - times[0]) / (times[n - 1] - times[0]) * (float)(n - 1);
            uint32_t g = f >= 0.0f && f < (float)(n - 2) ? (uint32_t)f : (f >= 0.0f ? n - 2 : 0);
            if (t < times[g])
                hi[l] = g;
            else if (t >= times[g + 1])
                lo[l] = g + 1, hi[l] = n - 1;
            else
                lo[l] = g, hi[l] = g + 1;
            search[l] = true;
            searching = searching || hi[l] - lo[l] > 1;
        }
    }
    while (searching) { /* find_span's steps on every lane still bracketing more than one span */
        searching = false;
        for (uint32_t l = 0; l < count; l++) {
            uint32_t d = hi[l] - lo[l];
            if (d > 1) {
                uint32_t mid = lo[l] + (d >> 1);
                bool left = lines[l].times[mid] <= t;
                lo[l] = left ? mid : lo[l];
                hi[l] = left ? hi[l] : mid;
                searching = true;
            }
        }
    }
    for (uint32_t l = 0; l < count; l++)
        if (search[l]) {
            out[l] = (place){lo[l], true, 0.0f, 0.0f};
            if (spans)
                spans[l] = lo[l];
        }
}

/* The solo tracks of one kind (path, interpolation: constants where it is inlined). */
static inline __attribute__((always_inline)) void
solo_each(const mn_clip_solo *so, uint32_t count, float t, uint32_t *spans, mn_anim_path path,
          mn_interpolation interpolation, mn_pose *pose, mn_simd_level level, scatter *b,
          hscatter *hb)
{
    uint32_t comps = path == MN_PATH_ROTATION ? 4u : 3u;
    float *base = path == MN_PATH_TRANSLATION ? pose->translations
                  : path == MN_PATH_ROTATION  ? pose->rotations
                                              : pose->scales;
    for (uint32_t i = 0; i < count; i++) {
        if (so[i].target >= pose->joint_count)
            continue;
        place p = solo_place(&so[i], t, spans);
        float *out = base + comps * (size_t)so[i].target;
        if (path == MN_PATH_ROTATION && interpolation == MN_INTERP_LINEAR && p.span) {
            if (b->n == SCATTER_BATCH)
                scatter_flush(b, level);
            b->keys[b->n] = so[i].values + 4 * (size_t)p.k;
            b->s[b->n] = p.s;
            b->out[b->n++] = out;
            continue;
        }
        if (path == MN_PATH_ROTATION && interpolation == MN_INTERP_CUBICSPLINE && p.span) {
            if (hb->n == SCATTER_BATCH)
                hscatter_flush(hb, level);
            hermite h = hermite_at(p.s, p.dt);
            hb->keys[hb->n] = so[i].values + 12 * (size_t)p.k;
            hb->h[0][hb->n] = h.h00, hb->h[1][hb->n] = h.h10;
            hb->h[2][hb->n] = h.h01, hb->h[3][hb->n] = h.h11;
            hb->out[hb->n++] = out;
            continue;
        }
        eval(so[i].values, comps, comps, path, interpolation, p, out);
    }
}

/*
 * The solo tracks of one kind: linear and cubic rotations four at a time
 * through the SSE2 gathers where they take them (the same keys, fractions
 * and Hermite terms into the batches), the rest each alone.
 */
static inline __attribute__((always_inline)) void
solo_kind(const mn_clip_solo *so, uint32_t count, float t, uint32_t *spans, mn_anim_path path,
          mn_interpolation interpolation, mn_pose *pose, mn_simd_level level, scatter *b,
          hscatter *hb)
{
#if MN_WITH_SSE2
    if (path == MN_PATH_ROTATION && interpolation == MN_INTERP_LINEAR &&
        (level == MN_SIMD_AVX2_FMA || level == MN_SIMD_SSE2)) {
        uint32_t i = 0;
        while (i < count) {
            if (SCATTER_BATCH - b->n < 4)
                scatter_flush(b, level);
            uint32_t took =
                mni_clip_solo_gather_sse2(so + i, count - i, t, pose->joint_count, pose->rotations,
                                          b->keys + b->n, b->s + b->n, b->out + b->n,
                                          SCATTER_BATCH - b->n);
            b->n += took;
            i += took;
            if (i < count && SCATTER_BATCH - b->n >= 4) { /* a quad it does not take, or the tail */
                uint32_t m = count - i < 4 ? count - i : 4;
                solo_each(so + i, m, t, spans, path, interpolation, pose, level, b, hb);
                i += m;
            }
        }
        return;
    }
    if (path == MN_PATH_ROTATION && interpolation == MN_INTERP_CUBICSPLINE &&
        (level == MN_SIMD_AVX2_FMA || level == MN_SIMD_SSE2)) {
        uint32_t i = 0;
        while (i < count) {
            if (SCATTER_BATCH - hb->n < 4)
                hscatter_flush(hb, level);
            float *const h[4] = {hb->h[0] + hb->n, hb->h[1] + hb->n, hb->h[2] + hb->n,
                                 hb->h[3] + hb->n};
            uint32_t took = mni_clip_solo_hgather_sse2(so + i, count - i, t, pose->joint_count,
                                                       pose->rotations, hb->keys + hb->n, h,
                                                       hb->out + hb->n, SCATTER_BATCH - hb->n);
            hb->n += took;
            i += took;
            if (i < count && SCATTER_BATCH - hb->n >= 4) {
                uint32_t m = count - i < 4 ? count - i : 4;
                solo_each(so + i, m, t, spans, path, interpolation, pose, level, b, hb);
                i += m;
            }
        }
        return;
    }
#endif
    solo_each(so, count, t, spans, path, interpolation, pose, level, b, hb);
}

/* Every solo track: a loop a kind. */
static void sample_solos(const mn_clip *clip, float t, uint32_t *spans, mn_pose *pose,
                         mn_simd_level level, scatter *b)
{
    static const mn_anim_path paths[3] = {MN_PATH_TRANSLATION, MN_PATH_ROTATION, MN_PATH_SCALE};
    const uint32_t *first = clip->solo_first;
    if (first[CLIP_SOLO_KINDS] == 0)
        return;
    hscatter hb;
    hb.n = 0;
    for (uint32_t k = 0; k < CLIP_SOLO_KINDS; k++) {
        const mn_clip_solo *so = clip->solos + first[k];
        uint32_t n = first[k + 1] - first[k];
        if (n == 0)
            continue;
        mn_anim_path path = paths[k / 3];
#if MN_WITH_SSE2
        if (path != MN_PATH_ROTATION && k % 3 != MN_INTERP_STEP &&
            (level == MN_SIMD_AVX2_FMA || level == MN_SIMD_SSE2)) {
            float *base = path == MN_PATH_TRANSLATION ? pose->translations : pose->scales;
            if (k % 3 == MN_INTERP_LINEAR)
                mni_clip_solo_lerp3_sse2(so, n, t, spans, pose->joint_count, base);
            else
                mni_clip_solo_hermite3_sse2(so, n, t, spans, pose->joint_count, base);
            continue;
        }
#endif
        switch (k % 3) {
        case MN_INTERP_LINEAR:
            if (path == MN_PATH_ROTATION)
                solo_kind(so, n, t, spans, MN_PATH_ROTATION, MN_INTERP_LINEAR, pose, level, b,
                          &hb);
            else
                solo_kind(so, n, t, spans, path, MN_INTERP_LINEAR, pose, level, b,
                          &hb);
            break;
        case MN_INTERP_STEP:
            if (path == MN_PATH_ROTATION)
                solo_kind(so, n, t, spans, MN_PATH_ROTATION, MN_INTERP_STEP, pose, level, b,
                          &hb);
            else
                solo_kind(so, n, t, spans, path, MN_INTERP_STEP, pose, level, b,
                          &hb);
            break;
        default:
            if (path == MN_PATH_ROTATION)
                solo_kind(so, n, t, spans, MN_PATH_ROTATION, MN_INTERP_CUBICSPLINE, pose, level, b,
                          &hb);
            else
                solo_kind(so, n, t, spans, path, MN_INTERP_CUBICSPLINE, pose, level, b,
                          &hb);
            break;
        }
    }
    hscatter_flush(&hb, level);
}

/* Both clip samplers: spans == NULL searches every timeline from scratch. */
static inline void sample_clip(const mn_clip *clip, float t, uint32_t *spans, mn_pose *pose,
                               mn_simd_level level)
{
    if (clip->compressed) {
        mni_compressed_sample_prepared(clip->compressed, clip->compressed_prepared, t, spans, pose,
                                       level);
        return;
    }
    scatter batch;
    batch.n = 0;
    uint32_t lines = 0; /* timelines with runs come first */
    while (lines < clip->timeline_count && clip->timelines[lines].run_count > 0)
        lines++;
    for (uint32_t l0 = 0; l0 < lines; l0 += LOCATE_LANES) {
        uint32_t count = lines - l0 < LOCATE_LANES ? lines - l0 : LOCATE_LANES;
        place at[LOCATE_LANES];
        locate_lanes(clip->timelines + l0, count, t, spans ? spans + l0 : NULL, at);
        for (uint32_t l = 0; l < count; l++) {
            const mn_clip_timeline *line = &clip->timelines[l0 + l];
            place p = with_fraction(at[l], line->times, t);
            for (uint32_t r = 0; r < line->run_count; r++)
                sample_or_gather(clip, &clip->runs[line->first_run + r], p, level, pose, &batch);
        }
    }
    sample_solos(clip, t, spans, pose, level, &batch);
    scatter_flush(&batch, level);
}

/* The "clip \"name\"" a space error names. */
static mn_status refuse(const mn_clip *clip, const mn_pose *pose, mn_error *err)
{
    char what[64];
    snprintf(what, sizeof what, "clip \"%.40s\"", clip->name);
    return mni_space_refuse(clip->space, what, pose, err);
}

static inline void sample_into(const mn_clip *clip, float t, mn_clip_cursor *cursor, mn_pose *pose)
{
    /* A cursor of another clip (or none) would index the wrong tracks: search instead. */
    bool usable = cursor && cursor->clip == clip && cursor->spans;
    sample_clip(clip, t, usable ? cursor->spans : NULL, pose, mni_simd_resolve(MN_SIMD_BEST));
}

/* Both public entry points: the checks inline, so a frame pays a few compares for them. */
static inline mn_status sample_checked(const mn_clip *clip, float t, mn_clip_cursor *cursor,
                                       mn_pose *pose, mn_error *err)
{
    if (!clip || !pose)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_clip_sample: clip and pose must not be NULL");
    if (!mni_space_fits(clip->space, pose))
        return refuse(clip, pose, err);
    sample_into(clip, t, cursor, pose);
    if (err)
        mni_error_clear(err);
    return MN_OK;
}

mn_status mn_clip_sample(const mn_clip *clip, float t, mn_pose *pose, mn_error *err)
{
    return sample_checked(clip, t, NULL, pose, err);
}

void mni_clip_sample_at(const mn_clip *clip, float t, mn_pose *pose, mn_simd_level level)
{
    if (!clip || !pose)
        return;
    sample_clip(clip, t, NULL, pose, mni_simd_resolve(level));
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
            place p = with_fraction(locate(tr->times, tr->key_count, t), tr->times, t);
            eval(tr->values, tr->components, n_out, MN_PATH_WEIGHTS, tr->interpolation, p, out);
        }
        return true;
    }
    return false;
}

size_t mn_clip_cursor_storage_size(const mn_clip *clip)
{
    if (clip && clip->compressed)
        return mni_compressed_cursor_size(clip->compressed);
    return clip ? (size_t)clip->timeline_count * sizeof(uint32_t) : 0;
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

void mni_clip_sample_into(const mn_clip *clip, float t, mn_clip_cursor *cursor, mn_pose *pose)
{
    sample_into(clip, t, cursor, pose);
}

mn_status mn_clip_sample_cursor(const mn_clip *clip, float t, mn_clip_cursor *cursor, mn_pose *pose,
                                mn_error *err)
{
    return sample_checked(clip, t, cursor, pose, err);
}
