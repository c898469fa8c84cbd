/*
 * marionette/spring.h — secondary motion: damped springs sampled, not advanced.
 *
 * A spring here is a pure function of time.  mn_spring_sample(settings,
 * anchor, user, t, out) does not carry state from call to call: it looks
 * back far enough for the spring to forget where it started (the settle
 * time), starts at rest on the anchor there, and marches one fixed grid up
 * to t.  So dragging a playhead backwards gives exactly the pose the forward
 * pass gave, and a replay needs nothing but the times.  The price is
 * arithmetic per sample (about ninety steps of a 2x2 per axis).
 *
 *     static void hand(void *user, double t, double out[3]) {   // pure in t!
 *         sample the character at t, write the hand's world position
 *     }
 *     mn_spring_settings s = {.frequency_hz = 2.0f, .damping = 0.7f};
 *     float tip[3];
 *     mn_spring_sample(&s, hand, ctx, t, tip, &err);
 *
 * **The anchor is called at times before t**, back to t − settle time, and
 * must itself be a pure function of the time it is handed: an anchor that
 * reads a clock, or answers differently on a second call for one time,
 * silently breaks the property.  If it comes from a clip, sample the clip
 * at the time it is given.
 *
 * The dynamics, per axis: x'' = ω²(a(t) − x) − 2ζω·x', ω = 2π·frequency_hz,
 * integrated with the exact matrix exponential over each grid step (the
 * anchor held at the step's end), in double, results rounded to float.  ζ = 1
 * is critical damping, which never overshoots; above 1 sags in; ζ = 0 rings
 * forever, so no lookback is long enough and it is refused.  Nothing here
 * allocates.
 */
#ifndef MARIONETTE_SPRING_H
#define MARIONETTE_SPRING_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One spring's (or one chain's) settings. */
typedef struct mn_spring_settings {
    float frequency_hz;   /* undamped natural frequency in Hz (ω = 2π·f); finite, > 0 */
    float damping;        /* damping ratio ζ; finite, > 0; 1 is critical */
} mn_spring_settings;

/*
 * Where the spring is anchored at time t (seconds), written to out[3].  Must
 * be a pure function of (user, t).
 */
typedef void (*mn_spring_anchor_fn)(void *user, double t, double out[3]);

/* Steps one spring's lookback is cut into. */
#define MN_SPRING_STEPS 90

/* The most links a chain may have (its state lives on the stack: nothing is allocated). */
#define MN_SPRING_CHAIN_MAX_LINKS 64u

/*
 * How far back one spring looks: L = −ln(1e−3)/λ seconds, the time its
 * slowest mode takes to decay to a thousandth.  λ = ζω for ζ ≤ 1 + 1e−6 and
 * ω(ζ − √(ζ² − 1)) above (an overdamped spring's slow mode; ζω would leave
 * about 40 % of the error at ζ = 2).  The band of 1e−6 is the one the step
 * matrix uses for its critical form (|ζ − 1| < 1e−6): λ's overdamped formula
 * rises with an infinite slope at 1, so without the band ζ = 1.0000001f
 * would move the lookback, and the samples, by a part in two thousand.
 * Output: *seconds.  Errors: MN_INVALID_ARGUMENT (NULL, frequency or damping
 * not > 0), MN_NOT_FINITE.
 */
MN_API mn_status mn_spring_settle_time(const mn_spring_settings *settings, double *seconds,
                                       mn_error *err);

/*
 * How far back a chain of `links` springs looks: x_n/λ, where x_n solves
 * e^{−x}·Σ_{k<n} x^k/k! = 1e−3 (n springs in series forget like an Erlang
 * tail).  Longer than mn_spring_settle_time for n > 1 and growing with n;
 * equal for n = 1.  Errors: as mn_spring_settle_time, plus
 * MN_INVALID_ARGUMENT for links 0 or above MN_SPRING_CHAIN_MAX_LINKS.
 */
MN_API mn_status mn_spring_chain_settle_time(const mn_spring_settings *settings, uint32_t links,
                                             double *seconds, mn_error *err);

/*
 * The spring's position at time t (out[3]).  The grid: h = L/90 (L the settle
 * time), t_k = t − (90 − k)·h for k = 0..90, so the last point is exactly t.
 * Starts at rest on anchor(t_0); each step reads the anchor at the step's end.
 * The anchor is called exactly 91 times, at t_0..t_90 in that order.
 * Output: out, written only on MN_OK.  Allocates nothing.
 * Errors: MN_INVALID_ARGUMENT (NULL settings, anchor or out; frequency or
 * damping not > 0), MN_NOT_FINITE (settings or t not finite, or an anchor
 * value that is not).
 */
MN_API mn_status mn_spring_sample(const mn_spring_settings *settings, mn_spring_anchor_fn anchor,
                                  void *user, double t, float out[3], mn_error *err);

/*
 * A chain of `links` springs sharing one settings (hair, a coat tail, an
 * antenna): link i is a spring toward where link i−1 actually is plus the
 * constant world offset offsets[i] (link 0 toward the anchor plus
 * offsets[0]), with no length constraint.  All links march one grid: the
 * single spring's step h, but N = ceil(90·x_n/x_1) steps (the chain's
 * longer lookback), links advanced in order each step, each reading its
 * parent already advanced.  Starts at rest with link i at anchor(t_0) +
 * offsets[0] + … + offsets[i].  The anchor is called exactly N + 1 times,
 * whatever the number of links.  With one link and a zero offset this is
 * mn_spring_sample, bit for bit.
 * offsets: 3 × links floats (NULL: all zero).  Output: out, 3 × links floats
 * (link positions), written only on MN_OK.  Allocates nothing.
 * Errors: as mn_spring_sample, plus MN_INVALID_ARGUMENT for links 0 or above
 * MN_SPRING_CHAIN_MAX_LINKS, MN_NOT_FINITE for an offset.
 */
MN_API mn_status mn_spring_chain_sample(const mn_spring_settings *settings, uint32_t links,
                                        const float *offsets, mn_spring_anchor_fn anchor,
                                        void *user, double t, float *out, mn_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_SPRING_H */
