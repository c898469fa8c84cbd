/*
 * Damped springs sampled as pure functions of time (marionette/spring.h):
 * look back the settle time, start at rest on the anchor, march one
 * fixed grid with the exact step matrix of x'' = ω²(a − x) − 2ζω·x'.
 *
 * The exact matrix exponential, rather than semi-implicit Euler, is what
 * keeps "critical damping never overshoots" true at ninety coarse steps:
 * Euler overshoots there.  The anchor is held at each step's end, so within
 * a step the spring solves the homogeneous equation in y = x − a.
 */
#include <marionette/spring.h>

#include "core/core.h"

#include <math.h>
#include <string.h>

/* −ln(1e−3): one spring's lookback in units of its slowest decay time, and x_1 of the chain rule. */
#define FORGET 6.907755278982137
#define TWO_PI 6.283185307179586

typedef struct spring_step {
    double m00, m01, m10, m11;   /* [y, v] ← M·[y, v] */
} spring_step;

/*
 * Within this of ζ = 1 a spring counts as critically damped, for λ and for
 * M alike (animation-decisions §3).  λ's overdamped formula has an infinite
 * slope at ζ = 1, so switching at exactly 1 let the next float above it
 * (1.0000001f) move the worked example's x(0.5) by 2e−4; with one band for
 * both, a spring within it samples as a critical one does, to a few 1e−7.
 */
#define CRITICAL_BAND 1e-6

/* The slowest decay rate λ (see spring.h), after checking the settings. */
static mn_status decay_rate(const mn_spring_settings *s, double *lambda, mn_error *err)
{
    if (!s)
        return mni_fail(err, MN_INVALID_ARGUMENT, "spring: settings is NULL");
    if (!isfinite(s->frequency_hz) || !isfinite(s->damping))
        return mni_fail(err, MN_NOT_FINITE,
                        "spring: frequency_hz (%g) or damping (%g) is not finite",
                        (double)s->frequency_hz, (double)s->damping);
    if (!(s->frequency_hz > 0.0f))
        return mni_fail(err, MN_INVALID_ARGUMENT, "spring: frequency_hz %g is not > 0",
                        (double)s->frequency_hz);
    /* Undamped, a spring rings forever: no lookback forgets the start, so no pure answer exists. */
    if (!(s->damping > 0.0f))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "spring: damping %g is not > 0 (an undamped spring never settles)",
                        (double)s->damping);
    double omega = TWO_PI * (double)s->frequency_hz;
    double zeta = s->damping;
    *lambda = zeta <= 1.0 + CRITICAL_BAND ? zeta * omega : omega * (zeta - sqrt(zeta * zeta - 1.0));
    return MN_OK;
}

/*
 * x_n for n = 1..MN_SPRING_CHAIN_MAX_LINKS: the root of e^{−x}·Σ_{k<n} x^k/k! = 1e−3, the
 * point where n springs in series (an Erlang tail) have forgotten all but a thousandth.
 * Solved once offline by bisection in 60-digit decimal arithmetic and rounded to double;
 * tests/test_spring.c solves it again in double and compares.  A table, because solving
 * per call (a sum of n terms per bisection step) cost more than the chain it sizes.
 */
static const double CHAIN_FORGET[MN_SPRING_CHAIN_MAX_LINKS] = {
    6.9077552789821368,
    9.2334134764515863,
    11.228872242412663,
    13.062240779188071,
    14.794149222537209,
    16.454745203680108,
    18.061636840199071,
    19.626177395384239,
    21.156198165839982,
    22.65737330906293,
    24.133971145417586,
    25.589298888688695,
    27.02598119428832,
    28.446142696676802,
    29.851532152214965,
    31.243609528544248,
    32.623608730471219,
    33.992583813012118,
    35.351443705752502,
    36.70097875949552,
    38.041881353850023,
    39.374762114021507,
    40.700162829355008,
    42.018566858611742,
    43.330407595201571,
    44.636075417152234,
    45.935923440830045,
    47.230272320939029,
    48.519414283254406,
    49.803616534924686,
    51.083124165924382,
    52.358162631520287,
    53.628939887435308,
    54.89564823533086,
    56.158465925257836,
    57.417558553096626,
    58.673080284169622,
    59.925174928752604,
    61.173976890828371,
    62.419612007882399,
    63.66219829665895,
    64.901846617440071,
    66.138661267472955,
    67.372740512571156,
    68.604177064586608,
    69.833058511341804,
    71.059467704683769,
    72.283483111541415,
    73.505179132208823,
    74.724626389519358,
    75.941891992100366,
    77.1570397744932,
    78.370130516576552,
    79.581222144432815,
    80.790369914540904,
    81.997626582956656,
    83.203042560950266,
    84.406666058402607,
    85.608543216117639,
    86.808718228080082,
    88.007233454577317,
    89.204129527006273,
    90.399445445100341,
    91.59321866723613
};

mn_status mn_spring_settle_time(const mn_spring_settings *settings, double *seconds, mn_error *err)
{
    return mn_spring_chain_settle_time(settings, 1, seconds, err);
}

mn_status mn_spring_chain_settle_time(const mn_spring_settings *settings, uint32_t links,
                                      double *seconds, mn_error *err)
{
    double lambda = 0.0;
    mn_status st = decay_rate(settings, &lambda, err);
    if (st != MN_OK)
        return st;
    if (!seconds)
        return mni_fail(err, MN_INVALID_ARGUMENT, "spring: seconds is NULL");
    if (links == 0 || links > MN_SPRING_CHAIN_MAX_LINKS)
        return mni_fail(err, MN_INVALID_ARGUMENT, "spring chain: %u links (1 to %u allowed)", links,
                        MN_SPRING_CHAIN_MAX_LINKS);
    *seconds = CHAIN_FORGET[links - 1] / lambda;
    return MN_OK;
}

/* The exact step matrix M(h) for the three damping regimes. */
static spring_step step_matrix(const mn_spring_settings *s, double h)
{
    double omega = TWO_PI * (double)s->frequency_hz, zeta = s->damping;
    spring_step m;
    if (fabs(zeta - 1.0) < CRITICAL_BAND) {
        double e = exp(-omega * h);
        m.m00 = e * (1.0 + omega * h);
        m.m01 = e * h;
        m.m10 = -e * omega * omega * h;
        m.m11 = e * (1.0 - omega * h);
    } else if (zeta < 1.0) {
        double e = exp(-zeta * omega * h);
        double wd = omega * sqrt(1.0 - zeta * zeta);
        double c = cos(wd * h), sn = sin(wd * h);
        m.m00 = e * (c + zeta * omega * sn / wd);
        m.m01 = e * sn / wd;
        m.m10 = -e * omega * omega * sn / wd;
        m.m11 = e * (c - zeta * omega * sn / wd);
    } else {
        double root = sqrt(zeta * zeta - 1.0);
        double r1 = -omega * (zeta - root), r2 = -omega * (zeta + root);
        double e1 = exp(r1 * h), e2 = exp(r2 * h), d = r1 - r2;
        m.m00 = (r1 * e2 - r2 * e1) / d;
        m.m01 = (e1 - e2) / d;
        m.m10 = r1 * r2 * (e2 - e1) / d;
        m.m11 = (r1 * e1 - r2 * e2) / d;
    }
    return m;
}

static bool read_anchor(mn_spring_anchor_fn anchor, void *user, double t, double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    anchor(user, t, out);
    return isfinite(out[0]) && isfinite(out[1]) && isfinite(out[2]);
}

/* Positions and velocities of every link, double, on the stack. */
typedef struct chain_state {
    double x[MN_SPRING_CHAIN_MAX_LINKS][3];
    double v[MN_SPRING_CHAIN_MAX_LINKS][3];
} chain_state;

/* One grid step: each link, in order, toward its (already advanced) parent plus its offset. */
static void advance(chain_state *cs, uint32_t links, const double (*offsets)[3],
                    const spring_step *m, const double anchor[3])
{
    const double *parent = anchor;
    for (uint32_t i = 0; i < links; i++) {
        for (int c = 0; c < 3; c++) {
            double goal = parent[c] + offsets[i][c];
            double y = cs->x[i][c] - goal, v = cs->v[i][c];
            cs->x[i][c] = goal + (m->m00 * y + m->m01 * v);
            cs->v[i][c] = m->m10 * y + m->m11 * v;
        }
        parent = cs->x[i];
    }
}

mn_status mn_spring_chain_sample(const mn_spring_settings *settings, uint32_t links,
                                 const float *offsets, mn_spring_anchor_fn anchor, void *user,
                                 double t, float *out, mn_error *err)
{
    double lambda = 0.0;
    mn_status st = decay_rate(settings, &lambda, err);
    if (st != MN_OK)
        return st;
    if (!anchor || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "spring: anchor or out is NULL");
    if (links == 0 || links > MN_SPRING_CHAIN_MAX_LINKS)
        return mni_fail(err, MN_INVALID_ARGUMENT, "spring chain: %u links (1 to %u allowed)", links,
                        MN_SPRING_CHAIN_MAX_LINKS);
    if (!isfinite(t))
        return mni_fail(err, MN_NOT_FINITE, "spring: time %g is not finite", t);

    double off[MN_SPRING_CHAIN_MAX_LINKS][3];
    for (uint32_t i = 0; i < links; i++)
        for (int c = 0; c < 3; c++) {
            off[i][c] = offsets ? (double)offsets[3u * i + (uint32_t)c] : 0.0;
            if (!isfinite(off[i][c]))
                return mni_fail(err, MN_NOT_FINITE, "spring chain: offsets[%u] is not finite",
                                3u * i + (uint32_t)c);
        }

    /* The single spring's step; as many steps as the chain's longer memory needs. */
    double h = FORGET / lambda / MN_SPRING_STEPS;
    double x_n = CHAIN_FORGET[links - 1];
    uint32_t steps = (uint32_t)ceil(MN_SPRING_STEPS * x_n / FORGET - 1e-9);
    spring_step m = step_matrix(settings, h);

    chain_state cs;
    double a[3];
    if (!read_anchor(anchor, user, t - (double)steps * h, a))
        return mni_fail(err, MN_NOT_FINITE, "spring: the anchor returned a non-finite value");
    for (uint32_t i = 0; i < links; i++)
        for (int c = 0; c < 3; c++) {
            cs.x[i][c] = (i ? cs.x[i - 1][c] : a[c]) + off[i][c];
            cs.v[i][c] = 0.0;
        }
    for (uint32_t k = 0; k < steps; k++) {
        /* t_{k+1} = t − (N − k − 1)·h: the last step lands exactly on t. */
        if (!read_anchor(anchor, user, t - (double)(steps - k - 1) * h, a))
            return mni_fail(err, MN_NOT_FINITE, "spring: the anchor returned a non-finite value");
        advance(&cs, links, (const double (*)[3])off, &m, a);
    }
    for (uint32_t i = 0; i < links; i++)
        for (int c = 0; c < 3; c++)
            out[3u * i + (uint32_t)c] = (float)cs.x[i][c];
    return MN_OK;
}

mn_status mn_spring_sample(const mn_spring_settings *settings, mn_spring_anchor_fn anchor,
                           void *user, double t, float out[3], mn_error *err)
{
    return mn_spring_chain_sample(settings, 1, NULL, anchor, user, t, out, err);
}
