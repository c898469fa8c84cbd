/*
 * F-curves: the keyframed scalar curves of a voxel rig's animations, sampled
 * exactly as shared/spec/voxel-rig-format.md ("F-curve sampling") says.
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
 * A NaN time samples the first key, as does an infinite one in a loop.
 *
 * Everything is in double: a key time may be thousands of milliseconds and
 * the solve must reach 1e-9 of a segment.  Nothing allocates.
 */
#include <marionette/voxel_rig.h>

#include <math.h>

/* The CSS presets' inner control points (x1, y1, x2, y2), indexed by interp. */
typedef struct css_ease {
    double x1, y1, x2, y2;
} css_ease;

static const css_ease ease_in = {0.42, 0.0, 1.0, 1.0};
static const css_ease ease_out = {0.0, 0.0, 0.58, 1.0};
static const css_ease ease_in_out = {0.42, 0.0, 0.58, 1.0};

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

/* dB/ds of bezier01. */
static inline double bezier01_slope(double c1, double c2, double s)
{
    double r = 1.0 - s;
    return 3.0 * r * r * c1 + 6.0 * r * s * (c2 - c1) + 3.0 * s * s * (1.0 - c2);
}

/* Solved to this in x on the unit segment: 1e-12, far below the spec's 1e-9 of T. */
#define SOLVE_TOLERANCE 1e-12

/*
 * The s in [0, 1] with x(s) = u, for x = bezier01(x1, x2, ·) with x1, x2 in
 * [0, 1] (then x is non-decreasing, so the root is unique up to a flat
 * spot).  Newton from s = u, safeguarded: every step narrows a bracket
 * [lo, hi] around the root, and a Newton step that would leave it (or a
 * vanishing slope, as at the flat end of ease-in) is replaced by bisecting
 * it, so the solve always converges and usually takes three or four steps.
 */
static double solve_x(double x1, double x2, double u)
{
    if (u <= 0.0)
        return 0.0;
    if (u >= 1.0)
        return 1.0;
    double lo = 0.0, hi = 1.0, s = u;
    for (int i = 0; i < 100; i++) {
        double e = bezier01(x1, x2, s) - u;
        if (fabs(e) < SOLVE_TOLERANCE)
            break;
        if (e < 0.0)
            lo = s;
        else
            hi = s;
        if (hi - lo < 1e-15)
            break;
        double d = bezier01_slope(x1, x2, s);
        double next = d > 0.0 ? s - e / d : lo;
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

/* The bezier segment from key i (point a) to key j (point b), at t in [a.t, b.t). */
static double bezier_segment(const mn_fcurve *c, uint32_t i, uint32_t j, point a, point b,
                             double t)
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
    /* In unit time: x1 = rdt / T, x2 = 1 + ldt / T, both in [0, 1].  Two auto
     * handles put them at 1/3 and 2/3, where x(s) = s exactly: no solve. */
    double u = (t - a.t) / T;
    double s = !ki->has_handle_right && !kj->has_handle_left ? u
                                                             : solve_x(rdt / T, 1.0 + ldt / T, u);
    double r = 1.0 - s;
    double y1 = a.v + rdv, y2 = b.v + ldv;
    return r * r * r * a.v + 3.0 * r * r * s * y1 + 3.0 * r * s * s * y2 + s * s * s * b.v;
}

static double ease_segment(const css_ease *e, point a, point b, double t)
{
    double s = solve_x(e->x1, e->x2, (t - a.t) / (b.t - a.t));
    return a.v + (b.v - a.v) * bezier01(e->y1, e->y2, s);
}

/* Segment from key i (point a) to key j (point b) at t, a.t <= t < b.t, by key i's interp. */
static double segment(const mn_fcurve *c, uint32_t i, uint32_t j, point a, point b, double t)
{
    switch (c->keys[i].interp) {
    case MN_FCURVE_CONSTANT:
        return a.v;
    case MN_FCURVE_LINEAR:
        return a.v + (b.v - a.v) * ((t - a.t) / (b.t - a.t));
    case MN_FCURVE_BEZIER:
        return bezier_segment(c, i, j, a, b, t);
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

/* The last key i with t_i <= t, given t_0 <= t < t_(n-1).  Binary search. */
static uint32_t find_segment(const mn_fcurve_key *keys, uint32_t n, double t)
{
    uint32_t lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (keys[mid].t <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* floor-mod of x by period > 0, into [0, period) (-250 mod 2000 is 1750). */
static double floor_mod(double x, double period)
{
    double r = fmod(x, period);
    if (r < 0.0)
        r += period;
    if (!(r < period))   /* -1e-20 + period rounds to period */
        r = 0.0;
    return r;
}

double mn_fcurve_sample(const mn_fcurve *curve, double t_ms)
{
    if (curve == NULL || curve->keys == NULL || curve->key_count == 0)
        return 0.0;
    const mn_fcurve_key *keys = curve->keys;
    uint32_t n = curve->key_count;
    if (n == 1)
        return keys[0].v;   /* one key: flat, looping or not */
    bool loop = curve->loop && curve->duration_ms > 0.0 && isfinite(curve->duration_ms);
    double t = t_ms;
    if (loop) {
        if (!isfinite(t))   /* no phase to speak of */
            return keys[0].v;
        t = keys[0].t + floor_mod(t - keys[0].t, curve->duration_ms);
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
        return segment(curve, n - 1, 0, a, b, t);
    }
    uint32_t i = find_segment(keys, n, t);
    return segment(curve, i, i + 1, key_point(curve, i, 0.0), key_point(curve, i + 1, 0.0), t);
}
