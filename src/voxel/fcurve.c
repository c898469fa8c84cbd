/*
 * F-curves: the keyframed scalar curves of a voxel rig's animations, sampled
 * exactly as docs/formats.md ("F-curves") says.
 *
 * Where t falls:
 *   - one-shot: before the first key the first key's value, at or after the
 *     last key the last key's value, else segment i with t_i <= t < t_i+1
 *     (so at exactly t_i+1 the value is v_i+1, the start of the next one);
 *   - loop: t' = t0 + floor-mod(t - t0, period) lies in [t0, t0 + period);
 *     at or after the last key it is on the closing segment, from the last
 *     key to the first key moved one period forward, interpolated by the
 *     last key's interp.  A zero-length closing segment (t_last = t0 +
 *     period) is never reached, because t' < t0 + period.
 *
 * How a segment interpolates (the interp of the key that STARTS it):
 *   constant     v_i
 *   linear       straight to v_i+1
 *   bezier       the cubic Bézier P0 = key i, P1 = P0 + right handle of i,
 *                P2 = P3 + left handle of i+1, P3 = key i+1, in (time, value);
 *                solved for x(s) = t, then y(s)
 *   ease-*       the CSS cubic-bezier presets on the segment normalised to
 *                the unit square (handles ignored)
 *
 * Handles: an explicit one has its time offset clamped on its own (right
 * into [0, T], left into [-T, 0], T the segment's duration; the value offset
 * is kept), which makes x(s) monotone, so x(s) = t has one root.  An omitted
 * one is the auto handle: ±Δt/3 in time and the auto slope m times that in
 * value, m from the neighbours with the 3·min limit that keeps the curve in
 * the range of its keys (see auto_slope).
 *
 * Resolving (mn_fcurve_resolve): everything about a bezier segment but the
 * time — its handles, auto or clamped — is fixed by the keys, so it can be
 * worked out once into a record of inner control points; sampling with the
 * record (mn_fcurve_sample_resolved, which posing uses for a rig that was
 * read) skips that work and computes the rest with the very same
 * operations, so the values are the same to the bit.
 *
 * A NaN time samples the first key, as does an infinite one in a loop.
 *
 * Everything is in double: a key time may be thousands of milliseconds and
 * the solve must reach 1e-9 of a segment.  Nothing allocates.
 */
#include <marionette/voxel/rig.h>

#include <math.h>
#include <stdint.h>

#include "voxel/fcurve_ease.h"
#include "voxel/fcurve_internal.h"

/* How a preset's table is indexed (fcurve_ease.h): v = u, sqrt(u) or 1 - sqrt(1 - u). */
typedef enum ease_warp { WARP_NONE, WARP_FLAT_START, WARP_FLAT_END } ease_warp;

/* A CSS preset: its inner control points (x1, y1, x2, y2) and where its solve starts. */
typedef struct css_ease {
    double x1, y1, x2, y2;
    ease_warp warp;
    const ease_knot *knots;
} css_ease;

static const css_ease ease_in = {0.42, 0.0, 1.0, 1.0, WARP_FLAT_END, ease_in_knots};
static const css_ease ease_out = {0.0, 0.0, 0.58, 1.0, WARP_FLAT_START, ease_out_knots};
static const css_ease ease_in_out = {0.42, 0.0, 0.58, 1.0, WARP_NONE, ease_in_out_knots};

/* The preset's s(u) by cubic Hermite interpolation of its table, 0 < u < 1: within 6e-8. */
static inline double ease_guess(const css_ease *e, double u)
{
    double v = e->warp == WARP_NONE         ? u
               : e->warp == WARP_FLAT_START ? sqrt(u)
                                            : 1.0 - sqrt(1.0 - u);
    double f = v * EASE_KNOTS;
    int k = (int)f;
    k = k < 0 ? 0 : k > EASE_KNOTS - 1 ? EASE_KNOTS - 1 : k;
    double t = f - k;
    const ease_knot *p = &e->knots[k], *q = p + 1;
    double ds = q->s - p->s;
    return p->s + t * (p->slope + t * ((3.0 * ds - 2.0 * p->slope - q->slope) +
                                       t * (p->slope + q->slope - 2.0 * ds)));
}

/* A key as the segment code sees it: time and value (a neighbour may be a moved copy). */
typedef struct point {
    double t, v;
} point;

/* ---- the cubic Bézier in one variable ----------------------------------- */

/* B(s) with B(0) = 0, B(1) = 1 and inner control values c1, c2 (Bernstein form). */
static inline double bezier01(double c1, double c2, double s)
{
    double r = 1.0 - s;
    return 3.0 * r * r * s * c1 + 3.0 * r * s * s * c2 + s * s * s;
}

/* Solved to this in x on the unit segment: 1e-12, far below the promised 1e-9 of T. */
#define SOLVE_TOLERANCE 1e-12

/*
 * The s in [0, 1] with x(s) = u, for x = bezier01(x1, x2, ·) with x1, x2 in
 * [0, 1] (then x is non-decreasing, so the root is unique up to a flat
 * spot).  Halley's method from s = u, or Newton's for a CSS preset from
 * its table in fcurve_ease.h (close enough that one step nearly always ends
 * it), on x in power form, x(s) = ((a·s + b)·s + c)·s (cheaper than the Bernstein
 * form, and its derivatives come with it), safeguarded: every step narrows a
 * bracket [lo, hi] around the root, and a step that would leave it (or a
 * vanishing slope, as at the flat end of ease-in) is replaced by bisecting
 * it, so the solve always converges.  The bracket moves without branches
 * (the sign of the error is a coin toss to a branch predictor).
 */
static double solve_x(double x1, double x2, double u, const css_ease *preset)
{
    if (!(u > 0.0))   /* NaN too (a segment of infinite length): the start */
        return 0.0;
    if (u >= 1.0)
        return 1.0;
    double c = 3.0 * x1, b = 3.0 * (x2 - x1) - c, a = 1.0 - c - b;
    double a3 = 3.0 * a, a6 = 6.0 * a, b2 = 2.0 * b;
    double lo = 0.0, hi = 1.0, s = u;
    if (preset != NULL) {   /* a CSS preset: start from its table */
        s = ease_guess(preset, u);
        s = s > 0.0 && s < 1.0 ? s : u;
    }
    for (int i = 0; i < 100; i++) {
        double e = ((a * s + b) * s + c) * s - u;
        if (fabs(e) < SOLVE_TOLERANCE)
            break;
        bool below = e < 0.0;
        lo = below ? s : lo;
        hi = below ? hi : s;
        if (hi - lo < 1e-15)
            break;
        /* From a preset's table (within 6e-8) one Newton step is enough; from s = u,
           Halley's step (cubic convergence, x'' nearly free) saves one evaluation. */
        double d = (a3 * s + b2) * s + c, d2 = a6 * s + b2;
        double den = 2.0 * d * d - e * d2;
        double next = preset != NULL ? (d > 0.0 ? s - e / d : lo)
                                     : (d > 0.0 && den > 0.0 ? s - 2.0 * e * d / den : lo);
        s = next > lo && next < hi ? next : 0.5 * (lo + hi);
    }
    return s;
}

/* ---- auto handles --------------------------------------------------------- */

/* |dv / dt| of one side, +inf for a zero-length side (it limits nothing). */
static inline double side_slope(point a, point b)
{
    double dt = b.t - a.t;
    return dt > 0.0 ? fabs(b.v - a.v) / dt : INFINITY;
}

/*
 * The auto slope at key `at` between neighbours prev and next: the slope
 * from prev to next, zero at an extremum or beside a flat neighbour, and its
 * size limited to 3·min(side slopes) — the Fritsch–Carlson bound, which keeps
 * each Bézier segment inside its two keys' values (no overshoot).
 */
static double auto_slope(point prev, point at, point next)
{
    if ((at.v - prev.v) * (next.v - at.v) <= 0.0)
        return 0.0;
    double m = (next.v - prev.v) / (next.t - prev.t);
    double limit = 3.0 * fmin(side_slope(prev, at), side_slope(at, next));
    if (fabs(m) > limit)
        m = m > 0.0 ? limit : -limit;
    return m;
}

/* Key i as a point, with the period added `shift` times (loop neighbours). */
static inline point key_point(const mn_fcurve *c, uint32_t i, double shift)
{
    point p = {c->keys[i].t + shift * c->duration_ms, c->keys[i].v};
    return p;
}

/*
 * The auto slope at key i of the curve.  A one-shot has slope 0 at both
 * ends; a loop's first key looks back at the last key moved back one period
 * and its last key forward to the first moved forward one period.
 */
static double key_auto_slope(const mn_fcurve *c, uint32_t i)
{
    uint32_t n = c->key_count;
    if (n < 2)
        return 0.0;
    point prev, next;
    if (i == 0) {
        if (!c->loop)
            return 0.0;
        prev = key_point(c, n - 1, -1.0);
    } else {
        prev = key_point(c, i - 1, 0.0);
    }
    if (i == n - 1) {
        if (!c->loop)
            return 0.0;
        next = key_point(c, 0, 1.0);
    } else {
        next = key_point(c, i + 1, 0.0);
    }
    return auto_slope(prev, key_point(c, i, 0.0), next);
}

/* ---- one segment ------------------------------------------------------------ */

static inline double clampd(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/*
 * The bezier segment from key i (point a) to key j (point b) as its inner
 * control points: ctl = {x1, x2, y1, y2}, x1 and x2 the control times in
 * unit time (both in [0, 1]), y1 and y2 the control values.  Two auto
 * handles put x1, x2 at 1/3 and 2/3, where x(s) = s exactly: that is marked
 * x1 = x2 = -1, "no solve".  This is the record mn_fcurve_resolve stores.
 */
static void bezier_controls(const mn_fcurve *c, uint32_t i, uint32_t j, point a, point b,
                            double ctl[4])
{
    const mn_fcurve_key *ki = &c->keys[i], *kj = &c->keys[j];
    double T = b.t - a.t;
    double rdt, rdv, ldt, ldv;   /* right handle of i, left handle of j: offsets */
    if (ki->has_handle_right) {
        rdt = clampd(ki->handle_right[0], 0.0, T);
        rdv = ki->handle_right[1];
    } else {
        rdt = T / 3.0;
        rdv = key_auto_slope(c, i) * rdt;
    }
    if (kj->has_handle_left) {
        ldt = clampd(kj->handle_left[0], -T, 0.0);
        ldv = kj->handle_left[1];
    } else {
        ldt = -T / 3.0;
        ldv = key_auto_slope(c, j) * ldt;
    }
    bool linear_time = !ki->has_handle_right && !kj->has_handle_left;
    ctl[0] = linear_time ? -1.0 : rdt / T;
    ctl[1] = linear_time ? -1.0 : 1.0 + ldt / T;
    ctl[2] = a.v + rdv;
    ctl[3] = b.v + ldv;
}

/* The bezier segment with inner control points ctl (bezier_controls) at t in [a.t, b.t). */
static inline double bezier_segment(const double ctl[4], point a, point b, double t)
{
    double u = (t - a.t) / (b.t - a.t);
    double s = ctl[0] < 0.0 ? u : solve_x(ctl[0], ctl[1], u, NULL);
    double r = 1.0 - s;
    return r * r * r * a.v + 3.0 * r * r * s * ctl[2] + 3.0 * r * s * s * ctl[3] + s * s * s * b.v;
}

static double ease_segment(const css_ease *e, point a, point b, double t)
{
    double s = solve_x(e->x1, e->x2, (t - a.t) / (b.t - a.t), e);
    return a.v + (b.v - a.v) * bezier01(e->y1, e->y2, s);
}

/*
 * Segment from key i (point a) to key j (point b) at t, a.t <= t < b.t, by
 * key i's interp.  `resolved` is mn_fcurve_resolve's record of the curve, or
 * NULL to work the bezier control points out here: the same numbers.
 */
static double segment(const mn_fcurve *c, const double *resolved, uint32_t i, uint32_t j, point a,
                      point b, double t)
{
    switch (c->keys[i].interp) {
    case MN_FCURVE_CONSTANT:
        return a.v;
    case MN_FCURVE_LINEAR:
        return a.v + (b.v - a.v) * ((t - a.t) / (b.t - a.t));
    case MN_FCURVE_BEZIER:
        if (resolved != NULL)
            return bezier_segment(&resolved[(size_t)i * 4], a, b, t);
        double ctl[4];
        bezier_controls(c, i, j, a, b, ctl);
        return bezier_segment(ctl, a, b, t);
    case MN_FCURVE_EASE_IN:
        return ease_segment(&ease_in, a, b, t);
    case MN_FCURVE_EASE_OUT:
        return ease_segment(&ease_out, a, b, t);
    case MN_FCURVE_EASE_IN_OUT:
        return ease_segment(&ease_in_out, a, b, t);
    }
    return a.v;   /* an interp outside the enum: hold, as constant does */
}

/* ---- where t falls ---------------------------------------------------------- */

/*
 * The last key i with t_i <= t, given t_0 <= t < t_(n-1).  Binary search
 * without branches: the range [base, base + len) holds the answer, and each
 * step keeps its upper or lower part by a conditional move.
 */
static uint32_t find_segment(const mn_fcurve_key *keys, uint32_t n, double t)
{
    const mn_fcurve_key *base = keys;
    uint32_t len = n - 1;   /* candidates 0 .. n-2 */
    while (len > 1) {
        uint32_t half = len / 2;
        base = base[half].t <= t ? base + half : base;
        len -= half;
    }
    return (uint32_t)(base - keys);
}

double mn_fcurve_sample_resolved(const mn_fcurve *curve, const double *resolved, double t_ms)
{
    if (curve == NULL || curve->keys == NULL || curve->key_count == 0)
        return 0.0;
    const mn_fcurve_key *keys = curve->keys;
    uint32_t n = curve->key_count;
    if (n == 1)
        return keys[0].v;   /* one key: flat, looping or not */
    bool loop = fcurve_is_loop(curve);
    double t = t_ms;
    if (loop) {
        if (!isfinite(t))   /* no phase to speak of */
            return keys[0].v;
        t = keys[0].t + fcurve_floor_mod(t - keys[0].t, curve->duration_ms);
    }
    if (!(t >= keys[0].t))  /* before the first key, or NaN */
        return keys[0].v;
    if (t >= keys[n - 1].t) {
        if (!loop)
            return keys[n - 1].v;
        /* The closing segment; t < t0 + period, so it has positive length here. */
        point a = key_point(curve, n - 1, 0.0), b = key_point(curve, 0, 1.0);
        if (!(b.t > a.t))
            return a.v;
        return segment(curve, resolved, n - 1, 0, a, b, t);
    }
    uint32_t i = find_segment(keys, n, t);
    return segment(curve, resolved, i, i + 1, key_point(curve, i, 0.0),
                   key_point(curve, i + 1, 0.0), t);
}

double mn_fcurve_sample(const mn_fcurve *curve, double t_ms)
{
    return mn_fcurve_sample_resolved(curve, NULL, t_ms);
}

/*
 * The record sampling reads: per key, the segment that starts there — the
 * next key's, or for the last key of a loop the closing segment to the first
 * key one period on — if it is a bezier segment that can be sampled.
 */
void mn_fcurve_resolve(const mn_fcurve *curve, double *out)
{
    if (curve == NULL || out == NULL || curve->keys == NULL)
        return;
    uint32_t n = curve->key_count;
    for (uint32_t i = 0; i < n; i++) {
        double *ctl = &out[(size_t)i * 4];
        ctl[0] = ctl[1] = ctl[2] = ctl[3] = 0.0;
        if (n < 2 || curve->keys[i].interp != MN_FCURVE_BEZIER)
            continue;
        uint32_t j = i + 1;
        point a = key_point(curve, i, 0.0), b;
        if (j < n) {
            b = key_point(curve, j, 0.0);
        } else {
            if (!fcurve_is_loop(curve))
                continue;
            j = 0;
            b = key_point(curve, 0, 1.0);
            if (!(b.t > a.t))
                continue;
        }
        bezier_controls(curve, i, j, a, b, ctl);
    }
}
