/*
 * Springs (src/anim/spring.c): settle times (one spring, the ζ > 1 slow mode,
 * chains x_1..x_5 of the decisions doc, growing with depth); the doc's worked
 * example x(0.5) = 0.821740 (the grid replicated, not the continuous ODE),
 * and continuous across the band of 1e−6 around critical damping;
 * critical and over-damping never overshoot, under-damping does; the anchor
 * is called N + 1 times on the stated grid ending exactly at t; evaluating
 * backwards gives the forward pass's bits; damping 0 and other bad input
 * refused; chains of one link are the single spring; chains at rest sit on
 * their offsets and lag link by link.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/spring.h>

#include "assert_near.h"

#include <math.h>
#include <string.h>

#define TWO_PI 6.283185307179586
#define FORGET 6.907755278982137 /* −ln(1e−3) */

/* a = 1 for t ≥ 0, else 0, on x; y and z follow other shapes. */
static void step_anchor(void *user, double t, double out[3])
{
    (void)user;
    out[0] = t >= 0.0 ? 1.0 : 0.0;
    out[1] = 0.0;
    out[2] = 0.0;
}

static void wave_anchor(void *user, double t, double out[3])
{
    (void)user;
    out[0] = sin(3.0 * t);
    out[1] = 0.5 * cos(1.7 * t) + 0.1 * t;
    out[2] = t > 1.0 ? 2.0 : 0.0;
}

/* Records the times it was called at. */
typedef struct recorder {
    double times[512];
    int calls;
} recorder;

static void recording_anchor(void *user, double t, double out[3])
{
    recorder *r = user;
    if (r->calls < 512)
        r->times[r->calls] = t;
    r->calls++;
    wave_anchor(NULL, t, out);
}

static void nan_anchor(void *user, double t, double out[3])
{
    (void)user;
    out[0] = t > -0.5 ? NAN : 0.0;
    out[1] = out[2] = 0.0;
}

static void settle_time_is_minus_ln_1e3_over_the_slowest_rate(void **state)
{
    (void)state;
    double L;
    mn_spring_settings s = {.frequency_hz = 1.0f, .damping = 1.0f};
    assert_int_equal(mn_spring_settle_time(&s, &L, NULL), MN_OK);
    assert_float_near(L, FORGET / TWO_PI, 1e-12);
    s.damping = 0.5f;
    assert_int_equal(mn_spring_settle_time(&s, &L, NULL), MN_OK);
    assert_float_near(L, FORGET / (0.5 * TWO_PI), 1e-12);
    /* Overdamped: the slow mode ω(ζ − √(ζ²−1)), not ζω. */
    s.damping = 2.0f;
    s.frequency_hz = 3.0f;
    assert_int_equal(mn_spring_settle_time(&s, &L, NULL), MN_OK);
    assert_float_near(L, FORGET / (3.0 * TWO_PI * (2.0 - sqrt(3.0))), 1e-12);
}

static void chain_settle_follows_the_erlang_tail(void **state)
{
    (void)state;
    const double x[] = {6.9078, 9.2334, 11.2289, 13.0622, 14.7941};
    mn_spring_settings s = {.frequency_hz = 1.0f, .damping = 1.0f};
    double lambda = TWO_PI, single, prev = 0.0;
    assert_int_equal(mn_spring_settle_time(&s, &single, NULL), MN_OK);
    for (uint32_t n = 1; n <= 5; n++) {
        double L;
        assert_int_equal(mn_spring_chain_settle_time(&s, n, &L, NULL), MN_OK);
        assert_float_near(L * lambda, x[n - 1], 1e-4);
        if (n == 1)
            assert_true(L == single);
        else
            assert_true(L > prev); /* longer than one spring, growing with depth */
        prev = L;
    }
    double L64;
    assert_int_equal(mn_spring_chain_settle_time(&s, MN_SPRING_CHAIN_MAX_LINKS, &L64, NULL), MN_OK);
    assert_true(L64 > prev);
}

/* log(e^{−x}·Σ_{k<n} x^k/k!), in log space so that long chains neither underflow nor overflow. */
static double log_erlang_tail(double x, uint32_t n)
{
    double top = -INFINITY, sum = 0.0;
    for (uint32_t k = 0; k < n; k++)
        top = fmax(top, k * log(x) - x - lgamma(k + 1.0));
    for (uint32_t k = 0; k < n; k++)
        sum += exp(k * log(x) - x - lgamma(k + 1.0) - top);
    return top + log(sum);
}

static void chain_settle_solves_the_tail_for_every_length(void **state)
{
    (void)state;
    /* The library's x_n, solved again here by bisection in double. */
    mn_spring_settings s = {.frequency_hz = 1.0f, .damping = 0.5f};
    const double lambda = 0.5 * TWO_PI;
    for (uint32_t n = 1; n <= MN_SPRING_CHAIN_MAX_LINKS; n++) {
        double lo = 0.0, hi = 4.0 * n + 20.0;
        for (int i = 0; i < 200; i++) {
            double mid = 0.5 * (lo + hi);
            if (log_erlang_tail(mid, n) > log(1e-3))
                lo = mid;
            else
                hi = mid;
        }
        double L;
        assert_int_equal(mn_spring_chain_settle_time(&s, n, &L, NULL), MN_OK);
        assert_float_near(L * lambda, 0.5 * (lo + hi), 1e-9 * hi);
    }
}

static void decisions_example_replicates_the_grid(void **state)
{
    (void)state;
    /* f = 1 Hz, ζ = 1, anchor stepping 0 → 1 at t = 0: x(0.5) = 0.821740 on the grid;
       the continuous ODE would give 0.821026. */
    mn_spring_settings s = {.frequency_hz = 1.0f, .damping = 1.0f};
    float x[3];
    assert_int_equal(mn_spring_sample(&s, step_anchor, NULL, 0.5, x, NULL), MN_OK);
    assert_float_near(x[0], 0.821740, 1e-6);
    assert_true(fabs(x[0] - 0.821026) > 5e-4);
    assert_true(x[1] == 0.0f && x[2] == 0.0f);
}

/* λ as animation-decisions §3 states it: ζω up to 1 + 1e−6, the overdamped slow mode above. */
static double spec_lambda(double zeta, double omega)
{
    return zeta <= 1.0 + 1e-6 ? zeta * omega : omega * (zeta - sqrt(zeta * zeta - 1.0));
}

/*
 * §3: λ and M share one band around ζ = 1, so the worked example's x(0.5)
 * does not jump as ζ crosses 1.  Before, λ switched at exactly 1 while M
 * used the band, and ζ = 1.0000001f moved x(0.5) by 2.1e−4.
 *
 * The tolerance, |x(ζ) − x(1)| ≤ 0.9·0.52·|L(ζ)/L(1) − 1| + |ζ − 1| + 1e−7:
 * with the exact step matrix and a step anchor held at each step's end,
 * x(0.5) is the continuous response to a step applied at the last grid
 * point before 0, which sits 0.5 + e before t (e < h = 0.0122 s) and moves
 * in proportion to L; the response's slope there is at most 0.9 (ω²·t·e^{−ωt}
 * = 0.853 at t = 0.5).  The dynamics' own dependence on ζ is under 1 per
 * unit ζ (the whole change measured 0.87·|ζ − 1| below 1), and the output is
 * rounded to float (3e−8 at 0.82).  In the band L changes by |ζ − 1| alone,
 * so the bound is about 1.5·|ζ − 1|: 3e−6 at the outermost probe, against
 * the old 2.1e−4.  Above the band L follows the slow mode, whose rate has an
 * infinite slope at 1: at 1 + 2e−6 L is 0.2 % longer and x(0.5) moves
 * 8.6e−4, which the first term accounts for (9.5e−4).
 */
static void spring_is_continuous_across_the_critical_band(void **state)
{
    (void)state;
    const double omega = TWO_PI;
    const float zetas[] = {1.0f - 2e-6f, 1.0f - 5e-7f, 1.0f, 1.0f + 5e-7f, 1.0000001f, 1.0f + 2e-6f};
    mn_spring_settings s = {.frequency_hz = 1.0f, .damping = 1.0f};
    float x1[3];
    double L1;
    assert_int_equal(mn_spring_sample(&s, step_anchor, NULL, 0.5, x1, NULL), MN_OK);
    assert_int_equal(mn_spring_settle_time(&s, &L1, NULL), MN_OK);
    assert_float_near(x1[0], 0.821740, 1e-6);
    for (size_t i = 0; i < sizeof zetas / sizeof zetas[0]; i++) {
        double zeta = zetas[i];
        s.damping = zetas[i];
        /* The lookback is §3's, exactly as stated. */
        double L;
        assert_int_equal(mn_spring_settle_time(&s, &L, NULL), MN_OK);
        assert_float_near(L, FORGET / spec_lambda(zeta, omega), 1e-12 * L);
        float x[3];
        assert_int_equal(mn_spring_sample(&s, step_anchor, NULL, 0.5, x, NULL), MN_OK);
        double tol = 0.9 * 0.52 * fabs(L / L1 - 1.0) + fabs(zeta - 1.0) + 1e-7;
        assert_float_near(x[0], x1[0], tol);
        if (fabs(zeta - 1.0) < 1e-6)
            assert_true(tol < 3e-6); /* in the band the bound is tight, not the slow mode's */
    }
}

static float max_over_time(float zeta)
{
    mn_spring_settings s = {.frequency_hz = 1.5f, .damping = zeta};
    float peak = -1.0f;
    for (int i = -50; i <= 400; i++) {
        float x[3];
        assert_int_equal(mn_spring_sample(&s, step_anchor, NULL, 0.01 * i, x, NULL), MN_OK);
        if (x[0] > peak)
            peak = x[0];
    }
    return peak;
}

static void critical_damping_never_overshoots(void **state)
{
    (void)state;
    float peak = max_over_time(1.0f);
    assert_true(peak <= 1.0f);
    assert_true(peak > 0.999f); /* it does get there */
    assert_true(max_over_time(2.0f) <= 1.0f); /* overdamped sags in */
    assert_true(max_over_time(0.2f) > 1.3f);  /* underdamped rings past it */
}

static void anchor_is_called_on_the_stated_grid(void **state)
{
    (void)state;
    mn_spring_settings s = {.frequency_hz = 2.0f, .damping = 0.7f};
    double L;
    assert_int_equal(mn_spring_settle_time(&s, &L, NULL), MN_OK);
    const double t = 3.25, h = L / MN_SPRING_STEPS;
    recorder r = {.calls = 0};
    float x[3];
    assert_int_equal(mn_spring_sample(&s, recording_anchor, &r, t, x, NULL), MN_OK);
    assert_int_equal(r.calls, MN_SPRING_STEPS + 1);
    for (int k = 0; k <= MN_SPRING_STEPS; k++)
        assert_float_near(r.times[k], t - (MN_SPRING_STEPS - k) * h, 1e-12);
    assert_true(r.times[MN_SPRING_STEPS] == t); /* the last point is exactly t */

    /* A chain: the single spring's h, N = ceil(90·x_n/x_1) steps, N + 1 calls whatever n. */
    const uint32_t n = 5;
    const uint32_t expected_steps = (uint32_t)ceil(90.0 * 14.7941 / FORGET);
    float links[15];
    r.calls = 0;
    assert_int_equal(mn_spring_chain_sample(&s, n, NULL, recording_anchor, &r, t, links, NULL), MN_OK);
    assert_int_equal(r.calls, expected_steps + 1);
    assert_float_near(r.times[0], t - expected_steps * h, 1e-12);
    assert_true(r.times[expected_steps] == t);
}

static void backwards_gives_the_forward_pass(void **state)
{
    (void)state;
    mn_spring_settings s = {.frequency_hz = 1.2f, .damping = 0.4f};
    const float offsets[9] = {0, -0.2f, 0, 0, -0.2f, 0.05f, 0, -0.2f, 0};
    enum { FRAMES = 40 };
    float forward[FRAMES][3], backward[FRAMES][3];
    float chain_fwd[FRAMES][9], chain_back[FRAMES][9];
    for (int i = 0; i < FRAMES; i++) {
        assert_int_equal(mn_spring_sample(&s, wave_anchor, NULL, i / 24.0, forward[i], NULL), MN_OK);
        assert_int_equal(mn_spring_chain_sample(&s, 3, offsets, wave_anchor, NULL, i / 24.0,
                                                chain_fwd[i], NULL), MN_OK);
    }
    for (int i = FRAMES - 1; i >= 0; i--) {
        assert_int_equal(mn_spring_sample(&s, wave_anchor, NULL, i / 24.0, backward[i], NULL), MN_OK);
        assert_int_equal(mn_spring_chain_sample(&s, 3, offsets, wave_anchor, NULL, i / 24.0,
                                                chain_back[i], NULL), MN_OK);
    }
    assert_memory_equal(forward, backward, sizeof forward);
    assert_memory_equal(chain_fwd, chain_back, sizeof chain_fwd);
}

static void spring_follows_a_moving_anchor_with_lag(void **state)
{
    (void)state;
    /* A stiff, critically damped spring on a slow anchor sits close to it;
       a soft one lags well behind. */
    float stiff[3], soft[3];
    double a[3];
    mn_spring_settings s = {.frequency_hz = 20.0f, .damping = 1.0f};
    assert_int_equal(mn_spring_sample(&s, wave_anchor, NULL, 0.6, stiff, NULL), MN_OK);
    s.frequency_hz = 0.5f;
    assert_int_equal(mn_spring_sample(&s, wave_anchor, NULL, 0.6, soft, NULL), MN_OK);
    wave_anchor(NULL, 0.6, a);
    assert_float_near(stiff[0], a[0], 0.05);
    assert_true(fabs(soft[0] - a[0]) > 0.2);
}

static void bad_settings_and_inputs_are_refused(void **state)
{
    (void)state;
    float x[6];
    double L;
    mn_error err;
    mn_spring_settings s = {.frequency_hz = 1.0f, .damping = 0.0f};
    assert_int_equal(mn_spring_sample(&s, step_anchor, NULL, 0.5, x, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "damping"));
    assert_int_equal(mn_spring_settle_time(&s, &L, &err), MN_INVALID_ARGUMENT);
    s.damping = -0.5f;
    assert_int_equal(mn_spring_sample(&s, step_anchor, NULL, 0.5, x, &err), MN_INVALID_ARGUMENT);
    s.damping = NAN;
    assert_int_equal(mn_spring_sample(&s, step_anchor, NULL, 0.5, x, &err), MN_NOT_FINITE);
    s.damping = 1.0f;
    s.frequency_hz = 0.0f;
    assert_int_equal(mn_spring_sample(&s, step_anchor, NULL, 0.5, x, &err), MN_INVALID_ARGUMENT);
    s.frequency_hz = INFINITY;
    assert_int_equal(mn_spring_sample(&s, step_anchor, NULL, 0.5, x, &err), MN_NOT_FINITE);
    s.frequency_hz = 1.0f;
    assert_int_equal(mn_spring_sample(NULL, step_anchor, NULL, 0.5, x, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_spring_sample(&s, NULL, NULL, 0.5, x, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_spring_sample(&s, step_anchor, NULL, 0.5, NULL, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_spring_sample(&s, step_anchor, NULL, NAN, x, &err), MN_NOT_FINITE);
    /* A non-finite anchor value is reported, out untouched. */
    x[0] = 42.0f;
    assert_int_equal(mn_spring_sample(&s, nan_anchor, NULL, 0.5, x, &err), MN_NOT_FINITE);
    assert_true(x[0] == 42.0f);
    assert_int_equal(mn_spring_chain_sample(&s, 0, NULL, step_anchor, NULL, 0.5, x, &err),
                     MN_INVALID_ARGUMENT);
    assert_int_equal(mn_spring_chain_sample(&s, MN_SPRING_CHAIN_MAX_LINKS + 1, NULL, step_anchor,
                                            NULL, 0.5, x, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_spring_chain_settle_time(&s, 0, &L, &err), MN_INVALID_ARGUMENT);
    const float bad_offsets[6] = {0, 0, 0, 0, INFINITY, 0};
    assert_int_equal(mn_spring_chain_sample(&s, 2, bad_offsets, step_anchor, NULL, 0.5, x, &err),
                     MN_NOT_FINITE);
}

static void one_link_chain_is_the_single_spring(void **state)
{
    (void)state;
    mn_spring_settings s = {.frequency_hz = 0.8f, .damping = 0.3f};
    const float zero[3] = {0, 0, 0};
    for (int i = 0; i < 10; i++) {
        float single[3], chain[3], chain0[3];
        double t = 0.37 * i - 0.5;
        assert_int_equal(mn_spring_sample(&s, wave_anchor, NULL, t, single, NULL), MN_OK);
        assert_int_equal(mn_spring_chain_sample(&s, 1, NULL, wave_anchor, NULL, t, chain, NULL), MN_OK);
        assert_int_equal(mn_spring_chain_sample(&s, 1, zero, wave_anchor, NULL, t, chain0, NULL), MN_OK);
        assert_memory_equal(single, chain, sizeof single);
        assert_memory_equal(single, chain0, sizeof single);
    }
}

static void resting_chain_sits_on_its_offsets(void **state)
{
    (void)state;
    /* Before the step the anchor is still at 0: the links hang at their rest offsets exactly. */
    mn_spring_settings s = {.frequency_hz = 2.0f, .damping = 0.5f};
    const float offsets[9] = {0, -1, 0, 0.5f, -1, 0, 0, -1, 0.25f};
    float links[9];
    assert_int_equal(mn_spring_chain_sample(&s, 3, offsets, step_anchor, NULL, -10.0, links, NULL), MN_OK);
    const float expected[9] = {0, -1, 0, 0.5f, -2, 0, 0.5f, -3, 0.25f};
    assert_memory_equal(links, expected, sizeof expected);
}

static void chain_links_lag_one_behind_another(void **state)
{
    (void)state;
    /* Just after the anchor steps, each link has moved less than the one above it,
       and long after, all have arrived (critical damping: none past the step). */
    mn_spring_settings s = {.frequency_hz = 2.0f, .damping = 1.0f};
    float links[12];
    assert_int_equal(mn_spring_chain_sample(&s, 4, NULL, step_anchor, NULL, 0.15, links, NULL), MN_OK);
    for (int i = 1; i < 4; i++)
        assert_true(links[3 * i] < links[3 * (i - 1)]);
    assert_true(links[0] > 0.0f && links[9] > 0.0f);
    double L;
    assert_int_equal(mn_spring_chain_settle_time(&s, 4, &L, NULL), MN_OK);
    assert_int_equal(mn_spring_chain_sample(&s, 4, NULL, step_anchor, NULL, 2.0 * L, links, NULL), MN_OK);
    for (int i = 0; i < 4; i++) {
        assert_true(links[3 * i] <= 1.0f);
        assert_float_near(links[3 * i], 1.0f, 1e-3);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(settle_time_is_minus_ln_1e3_over_the_slowest_rate),
        cmocka_unit_test(chain_settle_follows_the_erlang_tail),
        cmocka_unit_test(chain_settle_solves_the_tail_for_every_length),
        cmocka_unit_test(decisions_example_replicates_the_grid),
        cmocka_unit_test(spring_is_continuous_across_the_critical_band),
        cmocka_unit_test(critical_damping_never_overshoots),
        cmocka_unit_test(anchor_is_called_on_the_stated_grid),
        cmocka_unit_test(backwards_gives_the_forward_pass),
        cmocka_unit_test(spring_follows_a_moving_anchor_with_lag),
        cmocka_unit_test(bad_settings_and_inputs_are_refused),
        cmocka_unit_test(one_link_chain_is_the_single_spring),
        cmocka_unit_test(resting_chain_sits_on_its_offsets),
        cmocka_unit_test(chain_links_lag_one_behind_another),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
