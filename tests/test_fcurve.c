/*
 * F-curve sampling (src/voxel/fcurve.c) against shared/spec/voxel-rig-format.md
 * "F-curve sampling": every interpolation against values worked out by hand,
 * explicit handles with their time offsets clamped, auto handles (the slope
 * rule, its 3·min limit, zero at extrema and at a one-shot's ends), the CSS
 * eases against the CSS definition solved here independently, auto tangents
 * that never overshoot a monotone run, loops (floor modulo, the closing
 * segment, continuity of value and slope across the wrap), negative key
 * times, and the edge cases (one key, no keys, NaN); and mn_fcurve_resolve:
 * its record of each segment, and sampling with it giving exactly (to the
 * bit) what sampling without it gives.  The fast paths: a loop's wrap without
 * fmod gives fmod's result to the bit, the eases' starting tables
 * (fcurve_ease.h) hold the exact solutions, and the eases stay on the CSS
 * definition near both ends and at every table knot.  The baked curves
 * posing samples (fcurve_bake.c): within FCURVE_BAKE_TOLERANCE of the value
 * range of the exact curve at dense times, for every interpolation and ease,
 * one-shot and looping, and the curves they cannot follow left unbaked; a
 * looping animation's grid (mni_fcurve_grid_bake): within the tolerance over
 * three periods, every key's cell (a period either side, and just before it)
 * left to the curve, most cells with a cubic, and no grid for a one-shot or
 * a curve of another period.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/voxel/rig.h>

#include "assert_near.h"
#include "voxel/fcurve_ease.h"
#include "voxel/fcurve_internal.h"

#include <math.h>
#include <string.h>

/* A key with no handles (auto on both sides). */
static mn_fcurve_key key(double t, double v, mn_fcurve_interp interp)
{
    mn_fcurve_key k;
    memset(&k, 0, sizeof k);
    k.t = t;
    k.v = v;
    k.interp = interp;
    return k;
}

static mn_fcurve curve_of(const mn_fcurve_key *keys, uint32_t n, bool loop, double duration)
{
    mn_fcurve c = {keys, n, loop, duration};
    return c;
}

/* ---- an independent cubic Bézier, for expectations ------------------------------ */

static double bez(double p0, double p1, double p2, double p3, double s)
{
    double r = 1 - s;
    return r * r * r * p0 + 3 * r * r * s * p1 + 3 * r * s * s * p2 + s * s * s * p3;
}

/* s with x(s) = x for x control points x0..x3 (non-decreasing), by plain bisection. */
static double bisect(double x0, double x1, double x2, double x3, double x)
{
    double lo = 0, hi = 1;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (bez(x0, x1, x2, x3, mid) < x)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The CSS cubic-bezier(x1, y1, x2, y2) timing function at progress u. */
static double css_cubic_bezier(double x1, double y1, double x2, double y2, double u)
{
    double s = bisect(0, x1, x2, 1, u);
    return bez(0, y1, y2, 1, s);
}

/* ---- constant and linear ------------------------------------------------------------ */

static void constant_holds_until_the_next_key(void **state)
{
    (void)state;
    mn_fcurve_key k[] = {key(0, 1, MN_FCURVE_CONSTANT), key(10, 5, MN_FCURVE_CONSTANT),
                         key(20, -2, MN_FCURVE_CONSTANT)};
    mn_fcurve c = curve_of(k, 3, false, 20);
    assert_true(mn_fcurve_sample(&c, -5) == 1);
    assert_true(mn_fcurve_sample(&c, 0) == 1);
    assert_true(mn_fcurve_sample(&c, 5) == 1);
    assert_true(mn_fcurve_sample(&c, 9.999999) == 1);
    assert_true(mn_fcurve_sample(&c, 10) == 5);   /* at t_i+1 the value is v_i+1 */
    assert_true(mn_fcurve_sample(&c, 19.5) == 5);
    assert_true(mn_fcurve_sample(&c, 20) == -2);
    assert_true(mn_fcurve_sample(&c, 1e9) == -2);
}

static void linear_runs_straight_to_the_next_key(void **state)
{
    (void)state;
    mn_fcurve_key k[] = {key(0, 0, MN_FCURVE_LINEAR), key(100, 10, MN_FCURVE_LINEAR),
                         key(200, 0, MN_FCURVE_LINEAR)};
    mn_fcurve c = curve_of(k, 3, false, 200);
    assert_float_near(mn_fcurve_sample(&c, 25), 2.5, 1e-12);
    assert_float_near(mn_fcurve_sample(&c, 100), 10, 0);
    assert_float_near(mn_fcurve_sample(&c, 150), 5, 1e-12);
    assert_float_near(mn_fcurve_sample(&c, 199), 0.1, 1e-12);
    assert_float_near(mn_fcurve_sample(&c, 250), 0, 0);
    assert_float_near(mn_fcurve_sample(&c, -1), 0, 0);
}

static void each_segment_uses_the_interp_of_the_key_that_starts_it(void **state)
{
    (void)state;
    mn_fcurve_key k[] = {key(0, 0, MN_FCURVE_LINEAR), key(10, 10, MN_FCURVE_CONSTANT),
                         key(20, 0, MN_FCURVE_CONSTANT)};   /* the last key's interp is unused */
    mn_fcurve c = curve_of(k, 3, false, 20);
    assert_float_near(mn_fcurve_sample(&c, 5), 5, 1e-12);
    assert_float_near(mn_fcurve_sample(&c, 15), 10, 0);
}

static void negative_key_times_are_ordinary_times(void **state)
{
    (void)state;
    mn_fcurve_key k[] = {key(-500, -1, MN_FCURVE_LINEAR), key(0, 1, MN_FCURVE_LINEAR),
                         key(500, 3, MN_FCURVE_LINEAR)};
    mn_fcurve c = curve_of(k, 3, false, 500);
    assert_float_near(mn_fcurve_sample(&c, -750), -1, 0);
    assert_float_near(mn_fcurve_sample(&c, -250), 0, 1e-12);
    assert_float_near(mn_fcurve_sample(&c, 250), 2, 1e-12);
}

static void edge_cases_of_a_curve(void **state)
{
    (void)state;
    mn_fcurve empty = curve_of(NULL, 0, false, 0);
    assert_true(mn_fcurve_sample(&empty, 3) == 0);
    assert_true(mn_fcurve_sample(NULL, 3) == 0);
    mn_fcurve_key one[] = {key(40, 7, MN_FCURVE_BEZIER)};
    mn_fcurve c1 = curve_of(one, 1, false, 0);
    assert_true(mn_fcurve_sample(&c1, -100) == 7);
    assert_true(mn_fcurve_sample(&c1, 1000) == 7);
    mn_fcurve c1loop = curve_of(one, 1, true, 1000);   /* a single-key loop is flat */
    assert_true(mn_fcurve_sample(&c1loop, -123) == 7);
    assert_true(mn_fcurve_sample(&c1loop, 5555) == 7);
    mn_fcurve_key k[] = {key(0, 2, MN_FCURVE_LINEAR), key(10, 4, MN_FCURVE_LINEAR)};
    mn_fcurve c = curve_of(k, 2, false, 10);
    assert_true(mn_fcurve_sample(&c, NAN) == 2);
    assert_true(mn_fcurve_sample(&c, -INFINITY) == 2);
    assert_true(mn_fcurve_sample(&c, INFINITY) == 4);
    mn_fcurve cl = curve_of(k, 2, true, 20);
    assert_true(mn_fcurve_sample(&cl, NAN) == 2);
    assert_true(mn_fcurve_sample(&cl, INFINITY) == 2);
}

/* ---- bezier --------------------------------------------------------------------------- */

static void bezier_with_explicit_handles_follows_its_control_points(void **state)
{
    (void)state;
    /* Handles at ±T/3 in time make x(s) = T·s, so s is the time fraction. */
    mn_fcurve_key k[] = {key(0, 0, MN_FCURVE_BEZIER), key(30, 6, MN_FCURVE_BEZIER)};
    k[0].has_handle_right = true;
    k[0].handle_right[0] = 10, k[0].handle_right[1] = 3;
    k[1].has_handle_left = true;
    k[1].handle_left[0] = -10, k[1].handle_left[1] = 0;
    mn_fcurve c = curve_of(k, 2, false, 30);
    /* s = 0.5: 0.125·0 + 0.375·3 + 0.375·6 + 0.125·6 = 4.125 */
    assert_float_near(mn_fcurve_sample(&c, 15), 4.125, 1e-9);
    for (int i = 0; i <= 30; i++) {
        double s = i / 30.0;
        assert_float_near(mn_fcurve_sample(&c, 30 * s), bez(0, 3, 6, 6, s), 1e-9);
    }
}

static void bezier_handle_times_are_clamped_on_their_own_values_kept(void **state)
{
    (void)state;
    /* T = 20.  handle_right [50, 4] → [20, 4]; handle_left [5, -3] → [0, -3]. */
    mn_fcurve_key k[] = {key(100, 1, MN_FCURVE_BEZIER), key(120, 2, MN_FCURVE_BEZIER)};
    k[0].has_handle_right = true;
    k[0].handle_right[0] = 50, k[0].handle_right[1] = 4;
    k[1].has_handle_left = true;
    k[1].handle_left[0] = 5, k[1].handle_left[1] = -3;
    mn_fcurve c = curve_of(k, 2, false, 120);
    for (int i = 0; i < 200; i++) {
        double t = 100 + 20 * i / 200.0;
        double s = bisect(100, 120, 120, 120, t);
        assert_float_near(mn_fcurve_sample(&c, t), bez(1, 5, -1, 2, s), 1e-8);
    }
    /* A left handle too long: [-45, 1] → [-20, 1] (beside an unclamped right handle [8, 4]). */
    k[0].handle_right[0] = 8;
    k[1].handle_left[0] = -45, k[1].handle_left[1] = 1;
    for (int i = 0; i < 200; i++) {
        double t = 100 + 20 * i / 200.0;
        double s = bisect(100, 108, 100, 120, t);
        assert_float_near(mn_fcurve_sample(&c, t), bez(1, 5, 3, 2, s), 1e-8);
    }
}

static void bezier_solves_x_to_a_billionth_of_the_segment(void **state)
{
    (void)state;
    /* Strongly non-linear x: handles of very different lengths. */
    mn_fcurve_key k[] = {key(0, 0, MN_FCURVE_BEZIER), key(1000, 1, MN_FCURVE_BEZIER)};
    k[0].has_handle_right = true;
    k[0].handle_right[0] = 990, k[0].handle_right[1] = 0;
    k[1].has_handle_left = true;
    k[1].handle_left[0] = -1, k[1].handle_left[1] = 0;
    mn_fcurve c = curve_of(k, 2, false, 1000);
    for (int i = 0; i <= 1000; i++) {
        double t = i;
        double s = bisect(0, 990, 999, 1000, t);
        double want = bez(0, 0, 1, 1, s);
        /* dy/dx is bounded here, so 1e-9 of T in x is well under 1e-8 in y. */
        assert_float_near(mn_fcurve_sample(&c, t), want, 1e-8);
    }
}

static void auto_handles_take_the_neighbour_slope(void **state)
{
    (void)state;
    /* Key 1: m = (30 - 0) / 20 = 1.5, limit 3·min(1, 2) = 3.  Ends: m = 0.
     * Segment 0: P = (0,0) (10/3, 0) (20/3, 10 - 1.5·10/3 = 5) (10, 10): x is linear. */
    mn_fcurve_key k[] = {key(0, 0, MN_FCURVE_BEZIER), key(10, 10, MN_FCURVE_BEZIER),
                         key(20, 30, MN_FCURVE_BEZIER)};
    mn_fcurve c = curve_of(k, 3, false, 20);
    for (int i = 0; i <= 10; i++) {
        double s = i / 10.0;
        assert_float_near(mn_fcurve_sample(&c, 10 * s), bez(0, 0, 5, 10, s), 1e-9);
        /* Segment 1: (10,10) (40/3, 10 + 5) (50/3, 30) (20, 30). */
        assert_float_near(mn_fcurve_sample(&c, 10 + 10 * s), bez(10, 15, 30, 30, s), 1e-9);
    }
    assert_float_near(mn_fcurve_sample(&c, 5), 3.125, 1e-9);
}

static void auto_slope_is_limited_to_three_times_the_smaller_side(void **state)
{
    (void)state;
    /* Key 1: m = 10.1 / 11 ≈ 0.918 > 3·min(1, 0.1) = 0.3, so m = 0.3:
     * segment 0's P2 = (20/3, 10 - 0.3·10/3 = 9). */
    mn_fcurve_key k[] = {key(0, 0, MN_FCURVE_BEZIER), key(10, 10, MN_FCURVE_BEZIER),
                         key(11, 10.1, MN_FCURVE_BEZIER)};
    mn_fcurve c = curve_of(k, 3, false, 11);
    assert_float_near(mn_fcurve_sample(&c, 5), bez(0, 0, 9, 10, 0.5), 1e-9);
    assert_float_near(mn_fcurve_sample(&c, 5), 4.625, 1e-9);
    /* Segment 1: P1 = (10 + 1/3, 10 + 0.3/3). */
    assert_float_near(mn_fcurve_sample(&c, 10.5), bez(10, 10.1, 10.1, 10.1, 0.5), 1e-9);
}

static void auto_slope_is_zero_at_extrema_and_flat_neighbours(void **state)
{
    (void)state;
    mn_fcurve_key k[] = {key(0, 0, MN_FCURVE_BEZIER), key(10, 10, MN_FCURVE_BEZIER),
                         key(20, 0, MN_FCURVE_BEZIER), key(30, 0, MN_FCURVE_BEZIER),
                         key(40, 5, MN_FCURVE_BEZIER)};
    mn_fcurve c = curve_of(k, 5, false, 40);
    /* Key 1 is a maximum: slope 0, so the curve peaks exactly at it. */
    assert_float_near(mn_fcurve_sample(&c, 5), bez(0, 0, 10, 10, 0.5), 1e-9);
    assert_float_near(mn_fcurve_sample(&c, 15), bez(10, 10, 0, 0, 0.5), 1e-9);
    /* Keys 2 and 3 are flat neighbours: slope 0; segment 2 stays exactly at 0. */
    for (int i = 0; i < 10; i++)
        assert_float_near(mn_fcurve_sample(&c, 20 + i), 0, 1e-12);
    /* Key 4 is a one-shot's end: slope 0. */
    assert_float_near(mn_fcurve_sample(&c, 35), bez(0, 0, 5, 5, 0.5), 1e-9);
}

static void one_explicit_handle_leaves_the_other_side_auto(void **state)
{
    (void)state;
    /* Key 1 has an explicit left handle only: its right side is the auto
     * handle (m = 1.5 as in auto_handles_take_the_neighbour_slope). */
    mn_fcurve_key k[] = {key(0, 0, MN_FCURVE_BEZIER), key(10, 10, MN_FCURVE_BEZIER),
                         key(20, 30, MN_FCURVE_BEZIER)};
    k[1].has_handle_left = true;
    k[1].handle_left[0] = -5, k[1].handle_left[1] = -8;
    mn_fcurve c = curve_of(k, 3, false, 20);
    for (int i = 0; i <= 20; i++) {
        double t = 10.0 * i / 20.0;
        double s = bisect(0, 10.0 / 3, 5, 10, t);
        assert_float_near(mn_fcurve_sample(&c, t), bez(0, 0, 2, 10, s), 1e-8);
        assert_float_near(mn_fcurve_sample(&c, 10 + t), bez(10, 15, 30, 30, t / 10), 1e-9);
    }
}

static void auto_tangents_never_overshoot_a_monotone_run(void **state)
{
    (void)state;
    /* Uneven spacing and steps (xorshift, seeded), increasing values. */
    uint32_t seed = 12345;
    mn_fcurve_key k[40];
    double t = -300, v = 2;
    for (int i = 0; i < 40; i++) {
        seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
        t += 1 + (seed % 500);
        seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
        v += (i % 7 == 3) ? 0.0 : (seed % 1000) * (i % 5 == 0 ? 10.0 : 0.01);
        k[i] = key(t, v, MN_FCURVE_BEZIER);
    }
    mn_fcurve c = curve_of(k, 40, false, t);
    for (int i = 0; i + 1 < 40; i++) {
        double prev = k[i].v;
        for (int j = 0; j <= 400; j++) {
            double tt = k[i].t + (k[i + 1].t - k[i].t) * j / 400.0;
            double y = mn_fcurve_sample(&c, tt);
            assert_true(y >= k[i].v - 1e-9 && y <= k[i + 1].v + 1e-9);
            assert_true(y >= prev - 1e-9);   /* monotone, not just bounded */
            prev = y;
        }
    }
}

/* ---- CSS eases --------------------------------------------------------------------------- */

static void css_eases_match_the_css_definition(void **state)
{
    (void)state;
    static const struct {
        mn_fcurve_interp interp;
        double x1, y1, x2, y2;
    } eases[] = {{MN_FCURVE_EASE_IN, 0.42, 0, 1, 1},
                 {MN_FCURVE_EASE_OUT, 0, 0, 0.58, 1},
                 {MN_FCURVE_EASE_IN_OUT, 0.42, 0, 0.58, 1}};
    for (size_t e = 0; e < 3; e++) {
        /* Handles on the keys are ignored by the eases. */
        mn_fcurve_key k[] = {key(-200, 3, eases[e].interp), key(800, -1, MN_FCURVE_LINEAR)};
        k[0].has_handle_right = true;
        k[0].handle_right[0] = 900, k[0].handle_right[1] = 50;
        mn_fcurve c = curve_of(k, 2, false, 800);
        for (int i = 0; i <= 1000; i++) {
            double u = i / 1000.0;
            double want = 3 + (-1 - 3) * css_cubic_bezier(eases[e].x1, eases[e].y1, eases[e].x2,
                                                          eases[e].y2, u);
            assert_float_near(mn_fcurve_sample(&c, -200 + 1000 * u), want, 1e-9);
        }
    }
}

/* ---- loops ------------------------------------------------------------------------------- */

static void a_loop_wraps_with_a_floor_modulo(void **state)
{
    (void)state;
    mn_fcurve_key k[] = {key(0, 0, MN_FCURVE_LINEAR), key(1000, 10, MN_FCURVE_LINEAR)};
    mn_fcurve c = curve_of(k, 2, true, 2000);
    /* -250 in a 2000 ms loop is 1750: on the closing segment 1000 → 2000 (10 → 0). */
    assert_float_near(mn_fcurve_sample(&c, -250), 2.5, 1e-12);
    assert_float_near(mn_fcurve_sample(&c, 1750), 2.5, 1e-12);
    assert_float_near(mn_fcurve_sample(&c, -4250), 2.5, 1e-12);
    assert_float_near(mn_fcurve_sample(&c, 5500), 5, 1e-12);
    assert_float_near(mn_fcurve_sample(&c, 2000), 0, 0);
    assert_float_near(mn_fcurve_sample(&c, 1500), 5, 1e-12);
}

static void a_loop_with_a_negative_first_key_wraps_about_it(void **state)
{
    (void)state;
    mn_fcurve_key k[] = {key(-500, 0, MN_FCURVE_LINEAR), key(0, 10, MN_FCURVE_LINEAR)};
    mn_fcurve c = curve_of(k, 2, true, 1000);
    /* t' = -500 + mod(t + 500, 1000); the closing segment runs 0 → 500 (10 → 0). */
    assert_float_near(mn_fcurve_sample(&c, 250), 5, 1e-12);
    assert_float_near(mn_fcurve_sample(&c, -750), 5, 1e-12);   /* t' = 250 */
    assert_float_near(mn_fcurve_sample(&c, 750), 5, 1e-12);    /* t' = -250 */
    assert_float_near(mn_fcurve_sample(&c, 500), 0, 0);
}

static void the_closing_segment_uses_the_last_keys_interp(void **state)
{
    (void)state;
    mn_fcurve_key k[] = {key(0, 0, MN_FCURVE_LINEAR), key(1000, 10, MN_FCURVE_CONSTANT)};
    mn_fcurve c = curve_of(k, 2, true, 2000);
    assert_float_near(mn_fcurve_sample(&c, 1999), 10, 0);
    assert_float_near(mn_fcurve_sample(&c, 2000), 0, 0);
    k[1].interp = MN_FCURVE_EASE_IN;
    assert_float_near(mn_fcurve_sample(&c, 1500),
                      10 + (0 - 10) * css_cubic_bezier(0.42, 0, 1, 1, 0.5), 1e-9);
}

static void a_zero_length_closing_segment_is_never_sampled(void **state)
{
    (void)state;
    /* Last key exactly one period after the first: it and the first key are the same instant. */
    mn_fcurve_key k[] = {key(0, 0, MN_FCURVE_BEZIER), key(1000, 10, MN_FCURVE_BEZIER),
                         key(2000, 3, MN_FCURVE_BEZIER)};
    mn_fcurve c = curve_of(k, 3, true, 2000);
    for (int i = -4000; i <= 4000; i += 7) {
        double y = mn_fcurve_sample(&c, i);
        assert_true(isfinite(y));
    }
    assert_float_near(mn_fcurve_sample(&c, 2000), 0, 0);
    assert_float_near(mn_fcurve_sample(&c, 1000), 10, 0);
    assert_true(mn_fcurve_sample(&c, 1999.999) > 2.9);
}

static double slope_at(const mn_fcurve *c, double t, double h, int side)
{
    return side < 0 ? (mn_fcurve_sample(c, t) - mn_fcurve_sample(c, t - h)) / h
                    : (mn_fcurve_sample(c, t + h) - mn_fcurve_sample(c, t)) / h;
}

static void a_looping_curve_is_continuous_in_value_and_slope_across_the_wrap(void **state)
{
    (void)state;
    mn_fcurve_key k[] = {key(100, 0.2, MN_FCURVE_BEZIER), key(600, 0.9, MN_FCURVE_BEZIER),
                         key(1100, 0.4, MN_FCURVE_BEZIER), key(1500, 0.6, MN_FCURVE_BEZIER)};
    mn_fcurve c = curve_of(k, 4, true, 2000);
    /* Across the wrap (t = 100 ≡ 2100) and across the closing segment's start (t = 1500). */
    double wraps[] = {100, 2100, -1900, 1500, 3500};
    for (size_t i = 0; i < sizeof wraps / sizeof wraps[0]; i++) {
        double t = wraps[i];
        assert_float_near(mn_fcurve_sample(&c, t - 1e-6), mn_fcurve_sample(&c, t + 1e-6), 1e-6);
        double left = slope_at(&c, t, 1e-3, -1), right = slope_at(&c, t, 1e-3, +1);
        assert_float_near(left, right, 1e-5);
    }
    /* Periodic: the same value one, two and minus three periods away. */
    for (int t = 0; t < 2000; t += 37) {
        double y = mn_fcurve_sample(&c, t);
        assert_float_near(mn_fcurve_sample(&c, t + 2000), y, 1e-9);
        assert_float_near(mn_fcurve_sample(&c, t + 4000), y, 1e-9);
        assert_float_near(mn_fcurve_sample(&c, t - 6000), y, 1e-9);
    }
    /* Key 0 (0.2) is a minimum across the wrap (0.6 before it, 0.9 after): slope 0. */
    assert_float_near(slope_at(&c, 100, 1e-4, +1), 0, 1e-4);
}

static void loop_neighbours_across_the_wrap_shape_the_auto_handles(void **state)
{
    (void)state;
    /* Keys 0 → 10 → 20 (v 0, 10, 20), period 30: the closing segment runs 20 → 30 (20 → 0).
     * Key 0's neighbours: key 2 moved back (−10, 20) and key 1 (10, 10): an extremum, m = 0.
     * Key 1's: m = (20 − 0) / 20 = 1, limit 3.  Key 2's: key 1 and key 0 moved
     * forward (30, 0): an extremum, m = 0. */
    mn_fcurve_key k[] = {key(0, 0, MN_FCURVE_BEZIER), key(10, 10, MN_FCURVE_BEZIER),
                         key(20, 20, MN_FCURVE_BEZIER)};
    mn_fcurve c = curve_of(k, 3, true, 30);
    for (int i = 0; i <= 10; i++) {
        double s = i / 10.0;
        assert_float_near(mn_fcurve_sample(&c, 10 * s), bez(0, 0, 10 - 10.0 / 3, 10, s), 1e-9);
        assert_float_near(mn_fcurve_sample(&c, 10 + 10 * s), bez(10, 10 + 10.0 / 3, 20, 20, s),
                          1e-9);
        assert_float_near(mn_fcurve_sample(&c, 20 + 10 * s), bez(20, 20, 0, 0, s), 1e-9);
    }
    /* A one-shot of the same keys has m = 0 at both ends but the same middle. */
    mn_fcurve once = curve_of(k, 3, false, 30);
    assert_float_near(mn_fcurve_sample(&once, 5), bez(0, 0, 10 - 10.0 / 3, 10, 0.5), 1e-9);
}

/* ---- resolved segments ------------------------------------------------------------------------ */

static void resolve_records_each_bezier_segments_control_points(void **state)
{
    (void)state;
    /* Keys 0 (bezier, explicit right handle, too long: clamped to T = 100), 100 (bezier,
     * auto both sides), 300 (linear), 400 (bezier: one-shot, so no segment starts there). */
    mn_fcurve_key k[] = {key(0, 1, MN_FCURVE_BEZIER), key(100, 3, MN_FCURVE_BEZIER),
                         key(300, 5, MN_FCURVE_LINEAR), key(400, 2, MN_FCURVE_BEZIER)};
    k[0].has_handle_right = true;
    k[0].handle_right[0] = 250, k[0].handle_right[1] = 0.5;
    mn_fcurve c = curve_of(k, 4, false, 400);
    double rec[16];
    memset(rec, 0xff, sizeof rec);
    mn_fcurve_resolve(&c, rec);
    /* Segment 0: x1 = 100/100, x2 = 1 - (100/3)/100, y1 = 1 + 0.5; key 1's auto slope is
     * (5 - 1) / 300 (limit 3·min(2/100, 2/200) = 0.03), so y2 = 3 - slope·100/3. */
    double m1 = 4.0 / 300;
    assert_float_near(rec[0], 1, 0);
    assert_float_near(rec[1], 1 - 1.0 / 3, 1e-15);
    assert_float_near(rec[2], 1.5, 0);
    assert_float_near(rec[3], 3 - m1 * 100 / 3, 1e-12);
    /* Segment 1: two auto handles, so time is linear (-1, -1); key 2 is an extremum
     * (3 → 5 → 2): slope 0, so y2 = 5. */
    assert_true(rec[4] == -1 && rec[5] == -1);
    assert_float_near(rec[6], 3 + m1 * 200 / 3, 1e-12);
    assert_float_near(rec[7], 5, 0);
    for (int i = 8; i < 16; i++)   /* linear; and the last key of a one-shot */
        assert_true(rec[i] == 0);
    /* NULL arguments are ignored. */
    mn_fcurve_resolve(NULL, rec);
    mn_fcurve_resolve(&c, NULL);
}

/* Sampling with the record and without it: the same doubles, at many times. */
static void assert_resolved_samples_alike(const mn_fcurve_key *keys, uint32_t n, bool loop,
                                          double duration)
{
    mn_fcurve curve = curve_of(keys, n, loop, duration);
    const mn_fcurve *c = &curve;
    double rec[4 * 16];
    assert_true(c->key_count <= 16);
    mn_fcurve_resolve(c, rec);
    double span = c->keys[c->key_count - 1].t - c->keys[0].t + 1;
    for (int i = -3000; i <= 3000; i++) {
        double t = c->keys[0].t + span * i / 1000.0;
        double plain = mn_fcurve_sample(c, t), resolved = mn_fcurve_sample_resolved(c, rec, t);
        assert_memory_equal(&plain, &resolved, sizeof plain);
    }
    double x = mn_fcurve_sample_resolved(c, NULL, 12.5), y = mn_fcurve_sample(c, 12.5);
    assert_memory_equal(&x, &y, sizeof x);
}

static void sampling_with_the_resolved_record_is_sampling_without_it(void **state)
{
    (void)state;
    mn_fcurve_key k[] = {key(-50, 0.3, MN_FCURVE_BEZIER),  key(40, 1.2, MN_FCURVE_EASE_IN),
                         key(90, -0.4, MN_FCURVE_BEZIER),  key(200, -0.1, MN_FCURVE_BEZIER),
                         key(260, 0.8, MN_FCURVE_EASE_OUT), key(330, 0.2, MN_FCURVE_CONSTANT),
                         key(400, 0.5, MN_FCURVE_BEZIER),  key(470, 0.5, MN_FCURVE_EASE_IN_OUT),
                         key(520, 1.0, MN_FCURVE_LINEAR),  key(600, 0.0, MN_FCURVE_BEZIER)};
    k[2].has_handle_right = true;
    k[2].handle_right[0] = 300, k[2].handle_right[1] = 0.9;   /* time clamped */
    k[3].has_handle_left = true;
    k[3].handle_left[0] = -20, k[3].handle_left[1] = -0.3;
    k[6].has_handle_left = k[6].has_handle_right = true;
    k[6].handle_left[0] = -5, k[6].handle_left[1] = 0.2;
    k[6].handle_right[0] = 60, k[6].handle_right[1] = -0.7;
    k[9].has_handle_right = true;
    k[9].handle_right[0] = 10, k[9].handle_right[1] = 0.4;
    /* One-shot; loops with a closing segment, with a zero-length one, with a bad period. */
    assert_resolved_samples_alike(k, 10, false, 650);
    assert_resolved_samples_alike(k, 10, true, 800);
    assert_resolved_samples_alike(k, 10, true, 650);
    assert_resolved_samples_alike(k, 10, true, 0);
    assert_resolved_samples_alike(k, 2, true, 100);
    assert_resolved_samples_alike(k, 1, true, 100);
}

/* ---- the fast paths ------------------------------------------------------------------------ */

/* floor-mod the slow, plain way: fmod, then into [0, period). */
static double floor_mod_reference(double x, double period)
{
    double r = fmod(x, period);
    if (r < 0)
        r += period;
    if (!(r < period))
        r = 0;
    return r;
}

static void a_loops_wrap_is_fmods_to_the_bit(void **state)
{
    (void)state;
    /* Linear segments turn any difference in the wrapped time into a different value. */
    static const double periods[] = {1000.0 / 3.0, 800, 0.1, 12345.678901, 1e-3 * 7};
    uint32_t rng = 0x9e3779b9u;
    for (size_t p = 0; p < sizeof periods / sizeof periods[0]; p++) {
        double period = periods[p], t0 = -period * 0.37;
        mn_fcurve_key k[] = {key(t0, 1, MN_FCURVE_LINEAR), key(t0 + period * 0.3, -4, MN_FCURVE_LINEAR),
                             key(t0 + period * 0.9, 2.5, MN_FCURVE_LINEAR)};
        mn_fcurve c = curve_of(k, 3, true, period);
        for (int i = 0; i < 20000; i++) {
            rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
            /* Times a few periods on up to 2^30 periods on, and exact multiples of the period. */
            double scale = ldexp(period, (int)(rng % 31));
            double t = i % 4 == 0 ? t0 + (double)(rng % 100000) * period
                                  : t0 + scale * ((rng >> 8) * (1.0 / 16777216.0));
            double wrapped = t0 + floor_mod_reference(t - t0, period);
            double want = mn_fcurve_sample(&c, wrapped);
            double got = mn_fcurve_sample(&c, t);
            assert_memory_equal(&got, &want, sizeof got);
        }
    }
}

/* x(s) of a unit time curve with inner control times x1, x2, and its slope. */
static double unit_x(double x1, double x2, double s)
{
    return bez(0, x1, x2, 1, s);
}

static double unit_dx(double x1, double x2, double s)
{
    double r = 1 - s;
    return 3 * r * r * x1 + 6 * r * s * (x2 - x1) + 3 * s * s * (1 - x2);
}

static void the_ease_tables_hold_the_exact_solutions(void **state)
{
    (void)state;
    static const struct {
        const ease_knot *knots;
        double x1, x2;
        int warp;   /* 0: v = u, 1: v = sqrt(u), 2: v = 1 - sqrt(1 - u) */
    } tables[] = {{ease_in_knots, 0.42, 1, 2}, {ease_out_knots, 0, 0.58, 1},
                  {ease_in_out_knots, 0.42, 0.58, 0}};
    for (size_t e = 0; e < 3; e++) {
        for (int k = 0; k <= EASE_KNOTS; k++) {
            double v = (double)k / EASE_KNOTS;
            double u = tables[e].warp == 0 ? v : tables[e].warp == 1 ? v * v : 1 - (1 - v) * (1 - v);
            double dudv = tables[e].warp == 0 ? 1 : tables[e].warp == 1 ? 2 * v : 2 * (1 - v);
            const ease_knot *kn = &tables[e].knots[k];
            /* The solution, to a few units in the last place of x. */
            assert_float_near(unit_x(tables[e].x1, tables[e].x2, kn->s), u, 1e-15);
            assert_true(kn->s >= 0 && kn->s <= 1);
            /* The slope: ds/dv = (du/dv) / x'(s), or at a flat end its limit, by a difference. */
            double dx = unit_dx(tables[e].x1, tables[e].x2, kn->s);
            double slope, tolerance = 1e-9;
            if (dx > 1e-6) {
                slope = dudv / dx / EASE_KNOTS;
            } else {   /* a one-sided difference: good to a few parts in a million */
                tolerance = 2e-5;
                double h = 1e-6, v2 = k == 0 ? v + h : v - h;
                double u2 = tables[e].warp == 1 ? v2 * v2 : 1 - (1 - v2) * (1 - v2);
                double s2 = bisect(0, tables[e].x1, tables[e].x2, 1, u2);
                slope = fabs(s2 - kn->s) / h / EASE_KNOTS;
            }
            assert_float_near(kn->slope, slope, tolerance * fabs(slope));
        }
    }
}

static void eases_stay_on_the_css_definition_near_the_ends_and_at_the_knots(void **state)
{
    (void)state;
    static const struct {
        mn_fcurve_interp interp;
        double x1, y1, x2, y2;
    } eases[] = {{MN_FCURVE_EASE_IN, 0.42, 0, 1, 1},
                 {MN_FCURVE_EASE_OUT, 0, 0, 0.58, 1},
                 {MN_FCURVE_EASE_IN_OUT, 0.42, 0, 0.58, 1}};
    static const double near_ends[] = {1e-15, 1e-12, 1e-9, 1e-6, 1e-4, 1e-3};
    for (size_t e = 0; e < 3; e++) {
        mn_fcurve_key k[] = {key(0, 0, eases[e].interp), key(1000, 1, MN_FCURVE_LINEAR)};
        mn_fcurve c = curve_of(k, 2, false, 1000);
        for (int i = 0; i < 6 + 6 + 4 * EASE_KNOTS + 1; i++) {
            double u;
            if (i < 6)
                u = near_ends[i];
            else if (i < 12)
                u = 1 - near_ends[i - 6];
            else   /* at, and just beside, the knots in u, sqrt(u) and 1 - sqrt(1 - u) */
                u = (double)(i - 12) / (4 * EASE_KNOTS) + (i % 3 - 1) * 1e-9;
            if (!(u > 0 && u < 1))
                continue;
            double want = css_cubic_bezier(eases[e].x1, eases[e].y1, eases[e].x2, eases[e].y2, u);
            assert_float_near(mn_fcurve_sample(&c, 1000 * u), want, 1e-9);
        }
    }
}

/* ---- baked curves -------------------------------------------------------------- */

/* The spread of a curve's keys and bezier handle values, as mni_fcurve_bake measures it. */
static double keys_range(const mn_fcurve_key *keys, uint32_t n)
{
    double lo = keys[0].v, hi = lo;
    for (uint32_t i = 0; i < n; i++) {
        double l = keys[i].has_handle_left ? keys[i].handle_left[1] : 0;
        double r = keys[i].has_handle_right ? keys[i].handle_right[1] : 0;
        double v[3] = {keys[i].v, keys[i].v + l, keys[i].v + r};
        for (int e = 0; e < 3; e++)
            lo = fmin(lo, v[e]), hi = fmax(hi, v[e]);
    }
    return hi - lo;
}

/* A budget no test curve comes near. */
static fcurve_bake_budget *plenty(void)
{
    static fcurve_bake_budget b;
    b.samples = UINT64_C(1) << 40;
    b.bytes = UINT64_C(1) << 40;
    return &b;
}

/* Bake the curve and compare with mn_fcurve_sample at dense times and at every key (±1 period). */
static void check_baked(const mn_fcurve *c)
{
    mn_arena arena;
    mn_allocator none = {0};
    mni_arena_init(&arena, &none);
    double record[4 * 16];
    assert_true(c->key_count <= 16);
    mn_fcurve_resolve(c, record);
    const fcurve_baked *b = NULL;
    assert_true(mni_fcurve_bake(&arena, c, record, plenty(), &b));
    assert_non_null(b);
    double tol = FCURVE_BAKE_TOLERANCE * keys_range(c->keys, c->key_count);
    double t0 = c->keys[0].t, t1 = c->keys[c->key_count - 1].t;
    double span = c->loop ? c->duration_ms : t1 - t0;
    for (int i = 0; i <= 60000; i++) {
        double t = t0 - span + 3.0 * span * i / 60000.0;
        assert_float_near(fcurve_baked_sample(b, t), mn_fcurve_sample(c, t), tol);
    }
    for (uint32_t k = 0; k < c->key_count; k++)
        for (int p = -1; p <= 1; p++) {
            double t = c->keys[k].t + p * span;
            assert_float_near(fcurve_baked_sample(b, t), mn_fcurve_sample(c, t), tol);
            t = nextafter(t, -INFINITY);
            assert_float_near(fcurve_baked_sample(b, t), mn_fcurve_sample(c, t), tol);
        }
    assert_true(fcurve_baked_sample(b, NAN) == mn_fcurve_sample(c, NAN));
    assert_true(fcurve_baked_sample(b, INFINITY) == mn_fcurve_sample(c, INFINITY));
    assert_true(fcurve_baked_sample(b, -INFINITY) == mn_fcurve_sample(c, -INFINITY));
    mni_arena_release(&arena);
}

static void baked_curves_stay_within_the_tolerance_of_the_exact_ones(void **state)
{
    (void)state;
    static const mn_fcurve_interp interps[] = {MN_FCURVE_CONSTANT, MN_FCURVE_LINEAR,
                                               MN_FCURVE_BEZIER,   MN_FCURVE_EASE_IN,
                                               MN_FCURVE_EASE_OUT, MN_FCURVE_EASE_IN_OUT};
    /* Every interp alone, then all mixed; auto handles, then explicit ones (some clamped
       to the whole segment, which makes a cusp in time); one-shot, loop with a closing
       segment, loop whose last key closes it. */
    for (int kind = 0; kind < 7; kind++) {
        for (int handles = 0; handles < 2; handles++) {
            for (int mode = 0; mode < 3; mode++) {
                mn_fcurve_key keys[9];
                uint32_t n = 9;
                for (uint32_t i = 0; i < n; i++) {
                    double t = -300.0 + 125.0 * i + 37.0 * ((i * 7) % 5);
                    keys[i] = key(t, sin(1.3 * i + kind) * (kind == 6 ? 40.0 : 1.0),
                                  kind < 6 ? interps[kind] : interps[(i * 5 + 1) % 6]);
                    if (handles && keys[i].interp == MN_FCURVE_BEZIER) {
                        keys[i].has_handle_left = keys[i].has_handle_right = true;
                        keys[i].handle_left[0] = i % 3 == 0 ? -1e4 : -30.0;
                        keys[i].handle_left[1] = 0.3 * cos(2.0 * i);
                        keys[i].handle_right[0] = i % 3 == 1 ? 1e4 : 45.0;
                        keys[i].handle_right[1] = -0.2 * sin(3.0 * i);
                    }
                }
                double last = keys[n - 1].t;
                mn_fcurve c = {keys, n, mode > 0, mode == 1 ? last - keys[0].t + 140.0
                                                            : last - keys[0].t};
                if (mode == 2)
                    keys[n - 1].v = keys[0].v;   /* a loop closed by its last key */
                check_baked(&c);
            }
        }
    }
}

static void curves_the_pieces_cannot_follow_are_left_unbaked(void **state)
{
    (void)state;
    mn_arena arena;
    mn_allocator none = {0};
    mni_arena_init(&arena, &none);
    const fcurve_baked *b = (const fcurve_baked *)&arena;
    mn_fcurve_key keys[3] = {key(0, 1, MN_FCURVE_BEZIER), key(10, 2, MN_FCURVE_BEZIER),
                             key(20, 0, MN_FCURVE_BEZIER)};
    mn_fcurve one = {keys, 1, false, 0};
    assert_true(mni_fcurve_bake(&arena, &one, NULL, plenty(), &b));
    assert_null(b);
    mn_fcurve past = {keys, 3, true, 15};   /* a key beyond the loop's period */
    assert_true(mni_fcurve_bake(&arena, &past, NULL, plenty(), &b));
    assert_null(b);
    keys[1].v = INFINITY;
    mn_fcurve inf = {keys, 3, false, 20};
    assert_true(mni_fcurve_bake(&arena, &inf, NULL, plenty(), &b));
    assert_null(b);
    keys[1].v = 2;
    keys[2].t = 10;   /* not increasing */
    assert_true(mni_fcurve_bake(&arena, &inf, NULL, plenty(), &b));
    assert_null(b);
    assert_true(mni_fcurve_bake(&arena, NULL, NULL, plenty(), &b));
    assert_null(b);
    /* A flat bezier curve is baked as it is: one piece a segment, no halving on rounding. */
    mn_fcurve_key flat[3] = {key(0, 3, MN_FCURVE_BEZIER), key(10, 3, MN_FCURVE_EASE_IN),
                             key(20, 3, MN_FCURVE_BEZIER)};
    mn_fcurve flat_curve = {flat, 3, true, 30};
    assert_true(mni_fcurve_bake(&arena, &flat_curve, NULL, plenty(), &b));
    assert_non_null(b);
    assert_int_equal(b->piece_count, 3);
    assert_true(fcurve_baked_sample(b, 17.5) == 3);
    mni_arena_release(&arena);
}

/* ---- a looping animation's grid ------------------------------------------------------ */

/* Curve k of a grid at t as posing samples it: the cell's cubic, or the curve where marked. */
static double grid_sample(const fcurve_grid *g, uint32_t k, const mn_fcurve *c, double t)
{
    double f, v;
    uint32_t cell = fcurve_grid_cell(g, t, &f);
    return fcurve_grid_cubic(g, k, cell, f, &v) ? v : mn_fcurve_sample(c, t);
}

static void a_grid_stays_within_the_tolerance_and_leaves_the_keys_to_the_curves(void **state)
{
    (void)state;
    /* Eight looping curves of one period, every interp and explicit handles among them, keys at
       different phases (some before 0, one track's last key closing its loop). */
    enum { CURVES = 8, KEYS = 7 };
    static const mn_fcurve_interp interps[] = {MN_FCURVE_CONSTANT, MN_FCURVE_LINEAR,
                                               MN_FCURVE_BEZIER,   MN_FCURVE_EASE_IN,
                                               MN_FCURVE_EASE_OUT, MN_FCURVE_EASE_IN_OUT};
    const double period = 900.0;
    mn_fcurve_key keys[CURVES][KEYS];
    mn_fcurve curves[CURVES];
    const mn_fcurve *list[CURVES];
    double records[CURVES][4 * KEYS];
    const double *resolved[CURVES];
    for (uint32_t k = 0; k < CURVES; k++) {
        for (uint32_t i = 0; i < KEYS; i++) {
            double t = -250.0 + 37.0 * k + 120.0 * i + 11.0 * ((i * 5 + k) % 4);
            keys[k][i] = key(t, sin(0.9 * i + k) * (k == 5 ? 30.0 : 1.0), interps[(i + k) % 6]);
            if (k % 2 && keys[k][i].interp == MN_FCURVE_BEZIER) {
                keys[k][i].has_handle_left = keys[k][i].has_handle_right = true;
                keys[k][i].handle_left[0] = i % 3 == 0 ? -1e4 : -25.0;
                keys[k][i].handle_left[1] = 0.2 * cos(1.7 * i);
                keys[k][i].handle_right[0] = 35.0;
                keys[k][i].handle_right[1] = -0.3 * sin(2.3 * i);
            }
        }
        if (k == 7)   /* a loop its last key closes */
            keys[k][KEYS - 1].t = keys[k][0].t + period, keys[k][KEYS - 1].v = keys[k][0].v;
        curves[k] = (mn_fcurve){keys[k], KEYS, true, period};
        list[k] = &curves[k];
        mn_fcurve_resolve(&curves[k], records[k]);
        resolved[k] = records[k];
    }
    mn_arena arena;
    mn_allocator none = {0};
    mni_arena_init(&arena, &none);
    const fcurve_grid *g = NULL;
    assert_true(mni_fcurve_grid_bake(&arena, list, resolved, CURVES, period, plenty(), &g));
    assert_non_null(g);
    for (uint32_t k = 0; k < CURVES; k++) {
        double tol = FCURVE_BAKE_TOLERANCE * keys_range(keys[k], KEYS);
        for (int i = 0; i <= 20000; i++) {   /* three periods, densely */
            double t = -1200.0 + 3.0 * period * i / 20000.0;
            assert_float_near(grid_sample(g, k, &curves[k], t), mn_fcurve_sample(&curves[k], t),
                              tol);
        }
        /* At every key, a period either side, and just before it: the cell is the curve's. */
        for (uint32_t i = 0; i < KEYS; i++)
            for (int p = -1; p <= 1; p++) {
                double t = keys[k][i].t + p * period, f, v;
                assert_false(fcurve_grid_cubic(g, k, fcurve_grid_cell(g, t, &f), f, &v));
                t = nextafter(t, -INFINITY);
                assert_false(fcurve_grid_cubic(g, k, fcurve_grid_cell(g, t, &f), f, &v));
            }
    }
    /* Most cells have a cubic (the grid is there to be used). */
    uint32_t marked = 0;
    for (uint32_t i = 0; i < CURVES * g->cell_count; i++)
        marked += isnan(g->coef[(size_t)i * 4]);
    assert_true(marked < CURVES * g->cell_count / 10);
    /* No grid for a one-shot, or a curve of another period. */
    const fcurve_grid *none_grid = g;
    curves[3].loop = false;
    assert_true(mni_fcurve_grid_bake(&arena, list, resolved, CURVES, period, plenty(), &none_grid));
    assert_null(none_grid);
    curves[3].loop = true;
    curves[3].duration_ms = 2 * period;
    assert_true(mni_fcurve_grid_bake(&arena, list, resolved, CURVES, period, plenty(), &none_grid));
    assert_null(none_grid);
    mni_arena_release(&arena);
}

/* Random values with eases and handles: segments the pieces find hard to follow. */
static void hard_keys(mn_fcurve_key *keys, uint32_t n)
{
    static const mn_fcurve_interp kinds[4] = {MN_FCURVE_EASE_IN, MN_FCURVE_EASE_OUT,
                                             MN_FCURVE_EASE_IN_OUT, MN_FCURVE_BEZIER};
    uint32_t rng = 0x2468aceu;
    for (uint32_t i = 0; i < n; i++) {
        rng = rng * 1664525u + 1013904223u;
        keys[i] = key(10.0 * i, (double)(rng >> 8) / 16777216.0 - 0.5, kinds[rng % 4]);
    }
}

static void a_bake_spends_no_more_than_its_budget(void **state)
{
    (void)state;
    enum { KEYS = 64 };
    mn_fcurve_key keys[KEYS];
    hard_keys(keys, KEYS);
    mn_fcurve c = {keys, KEYS, true, 10.0 * KEYS};
    double record[4 * KEYS];
    mn_fcurve_resolve(&c, record);
    mn_arena arena;
    mn_allocator none = {0};
    mni_arena_init(&arena, &none);
    /* What it costs with room to spare. */
    fcurve_bake_budget big = {UINT64_C(1) << 40, UINT64_C(1) << 40}, left = big;
    const fcurve_baked *b = NULL;
    assert_true(mni_fcurve_bake(&arena, &c, record, &left, &b));
    assert_non_null(b);
    uint64_t samples = big.samples - left.samples, bytes = big.bytes - left.bytes;
    assert_true(samples > 0 && bytes > 0);
    /* Without the samples or the bytes it needs it is left to be sampled exactly, and it never
       spends more than it had. */
    fcurve_bake_budget tight[] = {{0, big.bytes},       {samples / 2, big.bytes},
                                  {big.samples, 0},     {big.samples, bytes / 2},
                                  {samples / 2, bytes / 2}};
    for (size_t i = 0; i < sizeof tight / sizeof tight[0]; i++) {
        fcurve_bake_budget t = tight[i];
        b = (const fcurve_baked *)&arena;
        assert_true(mni_fcurve_bake(&arena, &c, record, &t, &b));
        assert_null(b);
        assert_true(t.samples <= tight[i].samples && t.bytes <= tight[i].bytes);
    }
    /* A grid needs its whole cost up front: without it, no grid and nothing spent. */
    const mn_fcurve *list[1] = {&c};
    const double *resolved[1] = {record};
    const fcurve_grid *g = NULL;
    fcurve_bake_budget t = {1000, big.bytes};
    assert_true(mni_fcurve_grid_bake(&arena, list, resolved, 1, c.duration_ms, &t, &g));
    assert_null(g);
    assert_true(t.samples == 1000 && t.bytes == big.bytes);
    t = big;
    assert_true(mni_fcurve_grid_bake(&arena, list, resolved, 1, c.duration_ms, &t, &g));
    assert_non_null(g);
    assert_true(t.samples < big.samples && t.bytes < big.bytes);
    mni_arena_release(&arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(constant_holds_until_the_next_key),
        cmocka_unit_test(linear_runs_straight_to_the_next_key),
        cmocka_unit_test(each_segment_uses_the_interp_of_the_key_that_starts_it),
        cmocka_unit_test(negative_key_times_are_ordinary_times),
        cmocka_unit_test(edge_cases_of_a_curve),
        cmocka_unit_test(bezier_with_explicit_handles_follows_its_control_points),
        cmocka_unit_test(bezier_handle_times_are_clamped_on_their_own_values_kept),
        cmocka_unit_test(bezier_solves_x_to_a_billionth_of_the_segment),
        cmocka_unit_test(auto_handles_take_the_neighbour_slope),
        cmocka_unit_test(auto_slope_is_limited_to_three_times_the_smaller_side),
        cmocka_unit_test(auto_slope_is_zero_at_extrema_and_flat_neighbours),
        cmocka_unit_test(one_explicit_handle_leaves_the_other_side_auto),
        cmocka_unit_test(auto_tangents_never_overshoot_a_monotone_run),
        cmocka_unit_test(css_eases_match_the_css_definition),
        cmocka_unit_test(a_loop_wraps_with_a_floor_modulo),
        cmocka_unit_test(a_loop_with_a_negative_first_key_wraps_about_it),
        cmocka_unit_test(the_closing_segment_uses_the_last_keys_interp),
        cmocka_unit_test(a_zero_length_closing_segment_is_never_sampled),
        cmocka_unit_test(a_looping_curve_is_continuous_in_value_and_slope_across_the_wrap),
        cmocka_unit_test(loop_neighbours_across_the_wrap_shape_the_auto_handles),
        cmocka_unit_test(resolve_records_each_bezier_segments_control_points),
        cmocka_unit_test(sampling_with_the_resolved_record_is_sampling_without_it),
        cmocka_unit_test(a_loops_wrap_is_fmods_to_the_bit),
        cmocka_unit_test(the_ease_tables_hold_the_exact_solutions),
        cmocka_unit_test(eases_stay_on_the_css_definition_near_the_ends_and_at_the_knots),
        cmocka_unit_test(baked_curves_stay_within_the_tolerance_of_the_exact_ones),
        cmocka_unit_test(curves_the_pieces_cannot_follow_are_left_unbaked),
        cmocka_unit_test(a_grid_stays_within_the_tolerance_and_leaves_the_keys_to_the_curves),
        cmocka_unit_test(a_bake_spends_no_more_than_its_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
