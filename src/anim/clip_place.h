/*
 * Where a clip's tracks are at time t, shared by the scalar reference
 * (clip.c) and the SSE2 kernels (clip_sse2.c), so that the solo loop's
 * kernels locate each track with the reference's own operations and give
 * its bits.  Not installed; include only from those two files.
 */
#ifndef MN_ANIM_CLIP_PLACE_H
#define MN_ANIM_CLIP_PLACE_H

#include "anim/clip_internal.h"

#include <stdbool.h>
#include <stdint.h>

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
 * The solo loop (clip_internal.h): tracks whose timelines carry at most
 * CLIP_SOLO_MAX of them, each located and interpolated in one pass, one
 * loop a kind (path and interpolation known, so each is straight code).
 * solo_place is locate()'s rule: the cursor's span or the next, else the
 * clamps, else a guess in proportion (exact for evenly spaced keys) and
 * bisection on the side of it that brackets t.  Sorted keys have one span
 * holding t, so each way lands on locate()'s span (clip.c's locate, the
 * reference), and with_fraction is the one formula for s: the same bits as
 * a track alone, in clip.c's solo loop and in the SSE2 kernels alike.
 */
static inline place solo_place(const mn_clip_solo *so, float t, uint32_t *spans)
{
    const float *times = so->times;
    /* The guess, clamped to the spans: g = 0 when t is before the keys or NaN, the last span
       past them; those fail the bracket below and take the clamps. */
    float f = (t - so->first) * so->rate;
    f = f > 0.0f ? f : 0.0f;
    f = f < so->guess_max ? f : so->guess_max;
    uint32_t g = (uint32_t)(int32_t)f;
    if (times[g] <= t && t < times[g + 1])
        return with_fraction((place){g, true, 0.0f, 0.0f}, times, t);
    if (!(t >= so->first))
        return (place){0, false, 0.0f, 0.0f};
    if (t >= so->last)
        return (place){so->key_count - 1, false, 0.0f, 0.0f};
    /* Uneven keys: t is on one side of span g. */
    uint32_t lo = 0, hi = g;
    if (t >= times[g + 1])
        lo = g + 1, hi = so->key_count - 1;
    /* The cursor's span or the next, as forward playback moves, else bisection. */
    if (spans) {
        uint32_t k = spans[so->timeline];
        if (k >= lo && k < hi && times[k] <= t) {
            if (t < times[k + 1])
                return with_fraction((place){k, true, 0.0f, 0.0f}, times, t);
            if (k + 1 < hi && t < times[k + 2]) {
                spans[so->timeline] = k + 1;
                return with_fraction((place){k + 1, true, 0.0f, 0.0f}, times, t);
            }
        }
    }
    while (hi - lo > 1) {
        uint32_t mid = lo + ((hi - lo) >> 1);
        bool left = times[mid] <= t;
        lo = left ? mid : lo;
        hi = left ? hi : mid;
    }
    if (spans)
        spans[so->timeline] = lo;
    return with_fraction((place){lo, true, 0.0f, 0.0f}, times, t);
}

#endif /* MN_ANIM_CLIP_PLACE_H */
