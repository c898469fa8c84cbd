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
 * each run of tracks (one path, one interpolation) is a tight loop.  Every
 * entry point computes s and Δt with the one helper below and interpolates
 * with the same expressions, so a track sampled alone (mn_track_sample) and
 * within a clip give the same bits.  Linear rotation runs slerp eight
 * tracks at a time with AVX2 where the CPU has it (clip_avx2.c), then four
 * with SSE2; cubic rotation runs take eight at a time with AVX2; linear and
 * cubic translation and scale tracks go one to an SSE2 register.  Only
 * exact IEEE operations (add, multiply, divide, square root, no fused
 * multiply-add) in the scalar code's order, so each lane is bit for bit the
 * scalar code, which stays the reference (MN_NO_SIMD builds only it).
 */
#include "anim/clip_internal.h"
#include "anim/clip_slerp.h"
#include "core/core.h"

#include <float.h>
#include <math.h>
#include <string.h>

#if defined(__SSE2__) && !defined(MN_NO_SIMD)
#include <emmintrin.h>
#define CLIP_SSE2 1
#endif

/* A cursor walks at most this many spans forward before falling back to binary search. */
#define CURSOR_WALK 4u

/*
 * Where t falls among a track's keys: key k alone (span == false) or the
 * span [k, k+1], with Δt = times[k+1] - times[k] and s = (t - times[k]) / Δt
 * (both 0 when not a span).
 */
typedef struct place {
    uint32_t k;
    bool span;
    float s, dt;
} place;

/* The one formula for s and Δt, shared by every entry point. */
static inline place with_fraction(place p, const float *times, float t)
{
    if (p.span) {
        p.dt = times[p.k + 1] - times[p.k];
        p.s = (t - times[p.k]) / p.dt;
    }
    return p;
}

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
                return (place){k, true, 0.0f, 0.0f};
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
 * The cubic Hermite basis at fraction s of a span Δt long, tangent terms
 * scaled by Δt: p(s) = h00·v_k + h10·b_k + h01·v_k+1 + h11·a_k+1, summed
 * in that order by every entry point and kernel.
 */
typedef struct hermite {
    float h00, h10, h01, h11;
} hermite;

static inline hermite hermite_at(float s, float dt)
{
    float s2 = s * s, s3 = s2 * s;
    return (hermite){2.0f * s3 - 3.0f * s2 + 1.0f, (s3 - 2.0f * s2 + s) * dt, -2.0f * s3 + 3.0f * s2,
                     (s3 - s2) * dt};
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

#ifdef CLIP_SSE2
/* sin_poly on four lanes: the same operations in the same order. */
static inline __m128 sin_poly4(__m128 x)
{
    __m128 u = _mm_mul_ps(x, x), p = _mm_set1_ps(mn_sin_poly[0]);
    for (int i = 1; i < MN_SIN_POLY_TERMS; i++)
        p = _mm_add_ps(_mm_set1_ps(mn_sin_poly[i]), _mm_mul_ps(u, p));
    return _mm_mul_ps(x, p);
}

/* acos_poly on four lanes. */
static inline __m128 acos_poly4(__m128 d)
{
    __m128 q = _mm_set1_ps(mn_acos_poly[0]);
    for (int i = 1; i < MN_ACOS_POLY_TERMS; i++)
        q = _mm_add_ps(_mm_mul_ps(q, d), _mm_set1_ps(mn_acos_poly[i]));
    return _mm_mul_ps(_mm_sqrt_ps(_mm_sub_ps(_mm_set1_ps(1.0f), d)), q);
}

static inline __m128 select4(__m128 mask, __m128 yes, __m128 no)
{
    return _mm_or_ps(_mm_and_ps(mask, yes), _mm_andnot_ps(mask, no));
}

static inline __m128 dot4(__m128 ax, __m128 ay, __m128 az, __m128 aw, __m128 bx, __m128 by,
                          __m128 bz, __m128 bw)
{
    __m128 d = _mm_add_ps(_mm_mul_ps(ax, bx), _mm_mul_ps(ay, by));
    d = _mm_add_ps(d, _mm_mul_ps(az, bz));
    return _mm_add_ps(d, _mm_mul_ps(aw, bw));
}

/*
 * quat_slerp_to for four tracks of one run at span k, lane by lane.  Both
 * weight pairs are computed and the near-parallel test picks one per lane;
 * the lanes a pick discards may hold NaN from acos of a dot above 1 or a
 * zero sin θ, and are never used.  When every lane is near-parallel (keys a
 * frame apart) the polynomials are skipped.
 */
static inline void slerp4(const mn_track *tr, uint32_t k, float s, float *rotations)
{
    size_t at = 4 * (size_t)k;
    __m128 ax = _mm_loadu_ps(tr[0].values + at), ay = _mm_loadu_ps(tr[1].values + at);
    __m128 az = _mm_loadu_ps(tr[2].values + at), aw = _mm_loadu_ps(tr[3].values + at);
    __m128 bx = _mm_loadu_ps(tr[0].values + at + 4), by = _mm_loadu_ps(tr[1].values + at + 4);
    __m128 bz = _mm_loadu_ps(tr[2].values + at + 4), bw = _mm_loadu_ps(tr[3].values + at + 4);
    _MM_TRANSPOSE4_PS(ax, ay, az, aw);
    _MM_TRANSPOSE4_PS(bx, by, bz, bw);

    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f), sign_bit = _mm_set1_ps(-0.0f);
    __m128 d = dot4(ax, ay, az, aw, bx, by, bz, bw);
    __m128 flip = _mm_and_ps(_mm_cmplt_ps(d, zero), sign_bit);   /* short arc: d = -d, wb *= -1 */
    d = _mm_xor_ps(d, flip);
    __m128 sv = _mm_set1_ps(s), rest = _mm_set1_ps(1.0f - s);
    __m128 near = _mm_cmpgt_ps(d, _mm_set1_ps(MN_CLIP_NEARLY_PARALLEL));
    __m128 wa = rest, wb = sv;
    if (_mm_movemask_ps(near) != 0xF) { /* keys a frame apart: all near, no polynomials */
        __m128 theta = acos_poly4(d);
        __m128 sin_theta = sin_poly4(theta);
        wa = select4(near, rest, _mm_div_ps(sin_poly4(_mm_mul_ps(rest, theta)), sin_theta));
        wb = select4(near, sv, _mm_div_ps(sin_poly4(_mm_mul_ps(sv, theta)), sin_theta));
    }
    wb = _mm_mul_ps(wb, _mm_or_ps(one, flip));

    __m128 x = _mm_add_ps(_mm_mul_ps(wa, ax), _mm_mul_ps(wb, bx));
    __m128 y = _mm_add_ps(_mm_mul_ps(wa, ay), _mm_mul_ps(wb, by));
    __m128 z = _mm_add_ps(_mm_mul_ps(wa, az), _mm_mul_ps(wb, bz));
    __m128 w = _mm_add_ps(_mm_mul_ps(wa, aw), _mm_mul_ps(wb, bw));
    /* quat_normalize_to: identity where |q| is zero or not finite. */
    __m128 n = _mm_sqrt_ps(dot4(x, y, z, w, x, y, z, w));
    __m128 ok = _mm_and_ps(_mm_cmpgt_ps(n, zero), _mm_cmple_ps(n, _mm_set1_ps(FLT_MAX)));
    __m128 inv = _mm_div_ps(one, n);
    x = _mm_and_ps(ok, _mm_mul_ps(x, inv));
    y = _mm_and_ps(ok, _mm_mul_ps(y, inv));
    z = _mm_and_ps(ok, _mm_mul_ps(z, inv));
    w = select4(ok, _mm_mul_ps(w, inv), one);
    _MM_TRANSPOSE4_PS(x, y, z, w);
    _mm_storeu_ps(rotations + 4 * (size_t)tr[0].target, x);
    _mm_storeu_ps(rotations + 4 * (size_t)tr[1].target, y);
    _mm_storeu_ps(rotations + 4 * (size_t)tr[2].target, z);
    _mm_storeu_ps(rotations + 4 * (size_t)tr[3].target, w);
}
#endif

#ifdef CLIP_SSE2
/*
 * lerp_to of one 3-float key pair at v0 (v1 = v0 + 3) in one register:
 * lanes 0-2 do the scalar's subtract, multiply and add, lane 3 (the next
 * float, in the clip's block: see CLIP_TAIL_PAD) is never stored.
 */
static inline void lerp3(float *out, const float *v0, __m128 s)
{
    __m128 a = _mm_loadu_ps(v0), b = _mm_loadu_ps(v0 + 3);
    __m128 r = _mm_add_ps(a, _mm_mul_ps(s, _mm_sub_ps(b, a)));
    _mm_storel_pi((__m64 *)out, r);
    _mm_store_ss(out + 2, _mm_movehl_ps(r, r));
}
#endif

#ifdef CLIP_SSE2
/*
 * The cubic of one 3-float track at span k (key k at key0: in-tangent,
 * value, out-tangent; then key k+1) in one register, lanes 0-2 the scalar's
 * products and sums in its order.  Every four-float load starts inside the
 * two keys and the last ends at key k+1's out-tangent: nothing outside them.
 */
static inline void hermite3(float *out, const float *key0, const __m128 h[4])
{
    __m128 v0 = _mm_loadu_ps(key0 + 3), b0 = _mm_loadu_ps(key0 + 6);
    __m128 a1 = _mm_loadu_ps(key0 + 9), v1 = _mm_loadu_ps(key0 + 12);
    __m128 r = _mm_add_ps(_mm_mul_ps(h[0], v0), _mm_mul_ps(h[1], b0));
    r = _mm_add_ps(r, _mm_mul_ps(h[2], v1));
    r = _mm_add_ps(r, _mm_mul_ps(h[3], a1));
    _mm_storel_pi((__m64 *)out, r);
    _mm_store_ss(out + 2, _mm_movehl_ps(r, r));
}
#endif

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

/* A linear rotation run: AVX2 eights, then SSE2 fours, then one at a time. */
static inline void slerp_run(const mn_track *tr, uint32_t n, place p, bool wide, float *rotations)
{
    (void)wide;
    uint32_t i = 0;
#ifdef MN_CLIP_AVX2
    if (wide)
        i = mni_clip_slerp_avx2(tr, n, p.k, p.s, rotations);
#endif
#ifdef CLIP_SSE2
    for (; i + 4 <= n; i += 4)
        slerp4(tr + i, p.k, p.s, rotations);
    if (i < n && n >= 4) { /* the last four again: same bits for those already written */
        slerp4(tr + n - 4, p.k, p.s, rotations);
        i = n;
    }
#endif
    for (; i < n; i++)
        quat_slerp_to(rotations + 4 * (size_t)tr[i].target, tr[i].values + 4 * (size_t)p.k,
                      tr[i].values + 4 * (size_t)p.k + 4, p.s);
}

/* A rotation run at place p: the linear kernels, the AVX2 cubic, or each track alone. */
static inline void rotation_run(const mn_track *tr, uint32_t n, mn_interpolation interpolation,
                                place p, bool wide, float *rotations)
{
    if (p.span && interpolation == MN_INTERP_LINEAR) {
        slerp_run(tr, n, p, wide, rotations);
        return;
    }
    uint32_t i = 0;
#ifdef MN_CLIP_AVX2
    if (wide && p.span && interpolation == MN_INTERP_CUBICSPLINE) {
        hermite h = hermite_at(p.s, p.dt);
        i = mni_clip_hermite_avx2(tr, n, p.k, (const float[4]){h.h00, h.h10, h.h01, h.h11}, rotations);
    }
#endif
    (void)wide;
    for (; i < n; i++)
        eval(tr[i].values, 4, 4, MN_PATH_ROTATION, interpolation, p, rotations + 4 * (size_t)tr[i].target);
}

/* A translation or scale run (three floats a key, checked on build) at place p. */
static inline void vector_run(const mn_track *tr, uint32_t n, mn_anim_path path,
                              mn_interpolation interpolation, place p, float *base)
{
#ifdef CLIP_SSE2
    size_t k = p.k;
    if (p.span && interpolation == MN_INTERP_LINEAR) {
        __m128 sv = _mm_set1_ps(p.s);
        for (uint32_t i = 0; i < n; i++)
            lerp3(base + 3 * (size_t)tr[i].target, tr[i].values + 3 * k, sv);
        return;
    }
    if (p.span && interpolation == MN_INTERP_CUBICSPLINE) {
        hermite h = hermite_at(p.s, p.dt);
        const __m128 hv[4] = {_mm_set1_ps(h.h00), _mm_set1_ps(h.h10), _mm_set1_ps(h.h01),
                              _mm_set1_ps(h.h11)};
        for (uint32_t i = 0; i < n; i++)
            hermite3(base + 3 * (size_t)tr[i].target, tr[i].values + 9 * k, hv);
        return;
    }
#endif
    for (uint32_t i = 0; i < n; i++)
        eval(tr[i].values, 3, 3, path, interpolation, p, base + 3 * (size_t)tr[i].target);
}

/* Sample one run at place p into the pose; `wide`: the CPU has AVX2 (clip_avx2.c). */
static inline void sample_run(const mn_clip *clip, const mn_clip_run *run, place p, bool wide,
                              mn_pose *pose)
{
    const mn_track *tr = clip->tracks + run->first;
    uint32_t n = tracks_in_pose(tr, run->count, pose->joint_count);
    if (run->path == MN_PATH_ROTATION)
        rotation_run(tr, n, run->interpolation, p, wide, pose->rotations);
    else
        vector_run(tr, n, run->path, run->interpolation, p,
                   run->path == MN_PATH_TRANSLATION ? pose->translations : pose->scales);
}

/* Both clip samplers: spans == NULL searches every timeline from scratch. */
static inline void sample_clip(const mn_clip *clip, float t, uint32_t *spans, mn_pose *pose)
{
    bool wide = mni_simd_resolve(MN_SIMD_BEST) == MN_SIMD_AVX2_FMA;
    for (uint32_t l = 0; l < clip->timeline_count; l++) {
        const mn_clip_timeline *line = &clip->timelines[l];
        if (line->run_count == 0)
            break; /* timelines with runs come first */
        place p = spans ? locate_cursor(line->times, line->key_count, t, &spans[l])
                        : locate(line->times, line->key_count, t);
        p = with_fraction(p, line->times, t);
        for (uint32_t r = 0; r < line->run_count; r++)
            sample_run(clip, &clip->runs[line->first_run + r], p, wide, pose);
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
            place p = with_fraction(locate(tr->times, tr->key_count, t), tr->times, t);
            eval(tr->values, tr->components, n_out, MN_PATH_WEIGHTS, tr->interpolation, p, out);
        }
        return true;
    }
    return false;
}

size_t mn_clip_cursor_storage_size(const mn_clip *clip)
{
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

void mn_clip_sample_cursor(const mn_clip *clip, float t, mn_clip_cursor *cursor, mn_pose *pose)
{
    if (!clip || !pose)
        return;
    /* A cursor of another clip (or none) would index the wrong tracks: search instead. */
    bool usable = cursor && cursor->clip == clip && cursor->spans;
    sample_clip(clip, t, usable ? cursor->spans : NULL, pose);
}
