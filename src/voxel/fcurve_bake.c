/*
 * F-curves baked for posing: a bezier or eased segment costs a solve of
 * x(s) = t per sample (tens of nanoseconds for the eases and explicit
 * handles), so a rig that was read bakes every curve once into cubic pieces
 * and posing samples those: the wrap, a branch-free search of the segment,
 * one cubic.
 *
 * A segment is cut into 1, 2, 4, … up to MAX_PIECES pieces of equal width,
 * each the cubic through the exact curve at four Chebyshev points, until
 * every piece stays within the tolerance at CHECKS points across it (both
 * ends included).  The pieces are equal in a warped unit time v (u, sqrt(u)
 * or 1 - sqrt(1 - u)): where x(s) = u has a vertical tangent at an end (an
 * ease-in's end, an ease-out's start, a handle clamped flat) the value
 * goes like a power 3/2 of the distance to that end in u, which cubics in u
 * follow only with ever smaller pieces, but it is smooth in the warped v.
 * Each segment takes the warp and count that fit with the fewest pieces; a
 * segment none fits (a vertical tangent inside it) is marked exact: sampled
 * by mn_fcurve_sample_resolved itself.  Constant and linear segments are one
 * piece each, exact to rounding.
 *
 * A looping animation's tracks are also baked together on one grid
 * (mni_fcurve_grid_bake): cells of equal width over the period, one cubic per
 * cell and track, fitted the same way, so posing finds the phase and cell
 * once and then costs one cubic a track.  A cell near a key's phase (where
 * a constant segment jumps, and where the baked curve's exact wrap decides
 * the side) or one no cubic follows is left to the track's baked curve.
 *
 * mn_fcurve_sample stays the reference; tests/test_fcurve.c holds both
 * bakes to it.
 */
#include "voxel/fcurve_internal.h"

#include <string.h>

/* Pieces a segment is cut into at most (a power of two), and the points each is checked at. */
#define MAX_PIECES 64u
#define CHECKS 16

/* A piece is fitted to this fraction of the tolerance, which leaves room between the checks. */
#define FIT_MARGIN 0.5

/*
 * The smallest tolerance, relative to the largest |value|: the exact curve is
 * itself solved to about 1e-12 of a segment, and posing rounds every value to
 * a float (6e-8).
 */
#define ROUNDING 1e-9

/* The three warps: v = u, sqrt(u), 1 - sqrt(1 - u), as fcurve_segment's coefficients. */
typedef struct warp {
    double qa, qb, wa, wb, ku, kw;
} warp;

static const warp warps[3] = {
    {0.0, 1.0, 0.0, 0.0, 1.0, 0.0},
    {0.0, 1.0, 0.0, 1.0, 0.0, 1.0},
    {1.0, -1.0, 1.0, -1.0, 0.0, 1.0},
};

/* u for a warped v in [0, 1]: the warp's inverse. */
static double unwarp(int w, double v)
{
    return w == 0 ? v : w == 1 ? v * v : 1.0 - (1.0 - v) * (1.0 - v);
}

/* Samples a fit of n pieces takes at most: four nodes and the checks, a piece. */
#define FIT_SAMPLES(n) ((uint64_t)(n) * (4u + CHECKS + 1u))

/*
 * Samples planning and fitting one segment take at most: every warp at 1, 2,
 * 4, ... MAX_PIECES pieces (2·MAX_PIECES - 1 pieces a warp), then its pieces
 * fitted again into place.
 */
#define SEGMENT_SAMPLES (3u * FIT_SAMPLES(2u * MAX_PIECES - 1u) + FIT_SAMPLES(MAX_PIECES))

typedef struct bake_job {
    const mn_fcurve *curve;
    const double *resolved;
    double tol;
    double lo, hi, v_hi;    /* the segment being baked, and its value at hi (the next key's) */
    uint64_t samples;       /* exact samples taken so far (the budget's work) */
} bake_job;

/* The segment's exact value at unit time u in [0, 1] (at 1 its limit, the next key's value). */
static double seg_value(bake_job *j, double u)
{
    if (u >= 1.0)
        return j->v_hi;
    double t = j->lo + u * (j->hi - j->lo);
    if (!(t < j->hi))   /* rounded onto the next key: the segment's limit there */
        return j->v_hi;
    j->samples++;
    return mn_fcurve_sample_resolved(j->curve, j->resolved, t);
}

/* The cubic in x in [0, 1] through (x_k, y_k), k = 0..3, in power form (Newton's form expanded). */
static void interpolate(const double x[4], const double y[4], double c[4])
{
    double d1[3], d2[2], d3;
    for (int k = 0; k < 3; k++)
        d1[k] = (y[k + 1] - y[k]) / (x[k + 1] - x[k]);
    for (int k = 0; k < 2; k++)
        d2[k] = (d1[k + 1] - d1[k]) / (x[k + 2] - x[k]);
    d3 = (d2[1] - d2[0]) / (x[3] - x[0]);
    /* y = y0 + (x - x0)·(d1 + (x - x1)·(d2 + (x - x2)·d3)) */
    double a = x[0], b = x[1], e = x[2];
    c[3] = d3;
    c[2] = d2[0] - d3 * (a + b + e);
    c[1] = d1[0] - d2[0] * (a + b) + d3 * (a * b + a * e + b * e);
    c[0] = y[0] - d1[0] * a + d2[0] * a * b - d3 * a * b * e;
}

/*
 * Fit the segment with n pieces in warp w into coef (4 a piece): false when a
 * piece is off by more than the tolerance (or the numbers broke down).
 */
static bool fit(bake_job *j, int w, uint32_t n, double *coef)
{
    static const double nodes[4] = {0.03806023374435663, 0.30865828381745514,
                                    0.69134171618254486, 0.96193976625564337};
    for (uint32_t i = 0; i < n; i++) {
        double y[4], *c = &coef[(size_t)i * 4];
        for (int k = 0; k < 4; k++)
            y[k] = seg_value(j, unwarp(w, (i + nodes[k]) / n));
        interpolate(nodes, y, c);
        for (int k = 0; k <= CHECKS; k++) {
            double x = (double)k / CHECKS;
            double got = c[0] + x * (c[1] + x * (c[2] + x * c[3]));
            double want = seg_value(j, unwarp(w, (i + x) / n));
            if (!(fabs(got - want) <= FIT_MARGIN * j->tol))   /* NaN too */
                return false;
        }
    }
    return true;
}

/* Segment i's times and end value into the job: to the next key, or closing a loop to the first. */
static void segment_ends(bake_job *j, uint32_t i)
{
    const mn_fcurve *c = j->curve;
    bool closing = i + 1 == c->key_count;
    j->lo = c->keys[i].t;
    j->hi = closing ? c->keys[0].t + c->duration_ms : c->keys[i + 1].t;
    j->v_hi = closing ? c->keys[0].v : c->keys[i + 1].v;
}

/*
 * Which warps can help segment i, as bits (1 << warp): a vertical tangent in
 * time needs x'(s) = 0 at an end, x1 = 0 at the start (ease-out, a right
 * handle clamped to no time) or x2 = 1 at the end (ease-in, a left handle
 * clamped so); a bezier segment's x1, x2 come from the curve's record
 * (all three tried without one).  u itself is always tried first.
 */
static unsigned useful_warps(const bake_job *j, uint32_t i)
{
    switch (j->curve->keys[i].interp) {
    case MN_FCURVE_EASE_IN:
        return 1u | 4u;
    case MN_FCURVE_EASE_OUT:
        return 1u | 2u;
    case MN_FCURVE_BEZIER:
        if (j->resolved == NULL)
            return 7u;
        double x1 = j->resolved[(size_t)i * 4], x2 = j->resolved[(size_t)i * 4 + 1];
        return 1u | (x1 == 0.0 ? 2u : 0u) | (x2 == 1.0 ? 4u : 0u);
    default:
        return 1u;
    }
}

/* The warp and piece count of smooth segment i: the fewest pieces that fit, warps tried in turn. */
static bool choose_fit(bake_job *j, uint32_t i, double *scratch, int *warp_out,
                       uint32_t *n_out)
{
    unsigned tried = useful_warps(j, i);
    for (uint32_t n = 1; n <= MAX_PIECES; n *= 2)
        for (int w = 0; w < 3; w++)
            if ((tried >> w & 1u) && fit(j, w, n, scratch)) {
                *warp_out = w, *n_out = n;
                return true;
            }
    return false;
}

/*
 * Segment i of the curve, from key i to the next key (or, closing a loop, to
 * the first key one period on): its time, warp and piece count into *seg, the
 * warp's index into *warp_of (-1 for a segment whose one piece is written
 * here: constant, linear, or exact).  Its pieces are fitted later, into place.
 */
static void plan_segment(bake_job *j, uint32_t i, fcurve_segment *seg, int *warp_of,
                         double *scratch)
{
    const mn_fcurve *c = j->curve;
    segment_ends(j, i);
    memset(seg, 0, sizeof *seg);
    seg->t0 = j->lo;
    seg->inv_len = 1.0 / (j->hi - j->lo);
    seg->qb = 1.0, seg->ku = 1.0, seg->pieces = 1.0;
    *warp_of = -1;
    mn_fcurve_interp interp = c->keys[i].interp;
    bool smooth = interp == MN_FCURVE_BEZIER || interp == MN_FCURVE_EASE_IN ||
                  interp == MN_FCURVE_EASE_OUT || interp == MN_FCURVE_EASE_IN_OUT;
    if (!smooth)
        return;
    int w;
    uint32_t n;
    if (!choose_fit(j, i, scratch, &w, &n)) {
        seg->exact = 1;   /* one (unused) piece keeps the indexing uniform */
        return;
    }
    seg->qa = warps[w].qa, seg->qb = warps[w].qb;
    seg->wa = warps[w].wa, seg->wb = warps[w].wb;
    seg->ku = warps[w].ku, seg->kw = warps[w].kw;
    seg->pieces = n;
    *warp_of = w;
}

/* The one piece of a segment that is not fitted: held (constant, exact) or straight (linear). */
static void write_plain_piece(const mn_fcurve *c, uint32_t i, double *coef)
{
    bool closing = i + 1 == c->key_count;
    double va = c->keys[i].v, vb = closing ? c->keys[0].v : c->keys[i + 1].v;
    coef[0] = va;
    coef[1] = c->keys[i].interp == MN_FCURVE_LINEAR ? vb - va : 0.0;
    coef[2] = coef[3] = 0.0;
}

/* The segments the curve samples, in time order (the closing one last for a loop). */
static uint32_t segment_count(const mn_fcurve *c, bool loop)
{
    uint32_t n = c->key_count;
    return n - 1 + (loop && c->keys[n - 1].t < c->keys[0].t + c->duration_ms ? 1 : 0);
}

/* The spread of the values a curve can take: its keys' and its bezier handles'. */
static double value_range(const mn_fcurve *c)
{
    double lo = c->keys[0].v, hi = lo;
    for (uint32_t i = 0; i < c->key_count; i++) {
        const mn_fcurve_key *k = &c->keys[i];
        double v[3] = {k->v, k->v + (k->has_handle_left ? k->handle_left[1] : 0.0),
                       k->v + (k->has_handle_right ? k->handle_right[1] : 0.0)};
        for (int e = 0; e < 3; e++)
            lo = fmin(lo, v[e]), hi = fmax(hi, v[e]);
    }
    return hi - lo;
}

/*
 * The tolerance of a curve's pieces: FCURVE_BAKE_TOLERANCE of its value range,
 * but never below the rounding of the values themselves (a flat curve).
 */
static double curve_tolerance(const mn_fcurve *c)
{
    double magnitude = 0.0;
    for (uint32_t i = 0; i < c->key_count; i++)
        magnitude = fmax(magnitude, fabs(c->keys[i].v));
    return fmax(FCURVE_BAKE_TOLERANCE * value_range(c), ROUNDING * magnitude);
}

/* Whether the pieces can follow the curve: finite, increasing keys inside a loop's period. */
static bool bakeable(const mn_fcurve *c, bool loop)
{
    uint32_t n = c->key_count;
    if (c->keys == NULL || n < 2)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(c->keys[i].t) || !isfinite(c->keys[i].v))
            return false;
        if (i > 0 && !(c->keys[i].t > c->keys[i - 1].t))
            return false;
    }
    return !loop || c->keys[n - 1].t <= c->keys[0].t + c->duration_ms;
}

/*
 * The cell table: CELLS_PER_SEGMENT a segment, more when the shortest segment
 * is narrower than that makes a cell (at most MAX_CELLS), so that a cell
 * mostly holds at most one segment start.  cells[k] = the last segment whose
 * start's cell is before k (0 for none): every t of cell k is at or after
 * it, as cells are monotone in t.
 */
#define CELLS_PER_SEGMENT 4u
#define MAX_CELLS 4096u

static bool make_cells(mn_arena *arena, fcurve_baked *b)
{
    uint32_t n = b->segment_count;
    double shortest = INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        double hi = i + 1 < n ? b->segments[i + 1].t0 : b->start + b->span;
        shortest = fmin(shortest, hi - b->segments[i].t0);
    }
    double want = fmax((double)CELLS_PER_SEGMENT * n, 2.0 * b->span / shortest);
    uint32_t count = want < MAX_CELLS ? (uint32_t)want + 1 : MAX_CELLS;
    uint32_t *cells = mni_arena_calloc(arena, count, sizeof *cells, _Alignof(uint32_t));
    if (!cells)
        return false;
    b->cells = cells;
    b->cell_count = count;
    b->cell_scale = count / b->span;
    for (uint32_t k = 0, i = 0; k < count; k++) {
        while (i + 1 < n && fcurve_baked_cell(b, b->segments[i + 1].t0) < k)
            i++;
        cells[k] = i;
    }
    return true;
}

bool mni_fcurve_bake(mn_arena *arena, const mn_fcurve *curve, const double *resolved,
                 fcurve_bake_budget *budget, const fcurve_baked **out)
{
    *out = NULL;
    bool loop = curve != NULL && fcurve_is_loop(curve);
    if (curve == NULL || !bakeable(curve, loop))
        return true;
    uint32_t n = curve->key_count;
    double range = value_range(curve);
    if (!isfinite(range))
        return true;
    bake_job j = {curve, resolved, curve_tolerance(curve), 0, 0, 0, 0};
    double scratch[4 * MAX_PIECES];
    uint32_t segs_n = segment_count(curve, loop);
    /* the curve's segments, their warps and its cells: bytes known before any work */
    uint64_t frame_bytes = sizeof(fcurve_baked) + ((uint64_t)segs_n + 1) * sizeof(fcurve_segment) +
                           (uint64_t)segs_n * sizeof(int) + (uint64_t)MAX_CELLS * sizeof(uint32_t);
    if (budget->bytes < frame_bytes)
        return true;   /* more than the rig's budget can cover: sampled exactly */
    fcurve_baked *b = mni_arena_calloc(arena, 1, sizeof *b, _Alignof(fcurve_baked));
    fcurve_segment *segs = mni_arena_calloc(arena, (size_t)segs_n + 1, sizeof *segs,
                                            _Alignof(fcurve_segment));
    int *warp_of = mni_arena_calloc(arena, segs_n, sizeof *warp_of, _Alignof(int));
    if (!b || !segs || !warp_of)
        return false;
    uint32_t pieces = 0;
    uint64_t refit = 0;   /* samples the second pass will take */
    budget->bytes -= frame_bytes;
    for (uint32_t i = 0; i < segs_n; i++) {   /* each segment's warp and count */
        if (j.samples + refit + SEGMENT_SAMPLES > budget->samples) {   /* the budget is spent */
            budget->samples -= j.samples;
            return true;
        }
        plan_segment(&j, i, &segs[i], &warp_of[i], scratch);
        segs[i].first = pieces;
        pieces += (uint32_t)segs[i].pieces;
        refit += warp_of[i] >= 0 ? FIT_SAMPLES(segs[i].pieces) : 0;
    }
    uint64_t coef_bytes = (uint64_t)pieces * 4 * sizeof(double);
    if (budget->bytes < coef_bytes) {   /* the planning's samples are spent all the same */
        budget->samples -= j.samples;
        return true;
    }
    double *coef = mni_arena_calloc(arena, (size_t)pieces * 4, sizeof *coef, _Alignof(double));
    if (!coef)
        return false;
    budget->bytes -= coef_bytes;
    for (uint32_t i = 0; i < segs_n; i++) {   /* and its pieces, fitted again into place */
        double *at = &coef[(size_t)segs[i].first * 4];
        if (warp_of[i] < 0) {
            write_plain_piece(curve, i, at);
            continue;
        }
        segment_ends(&j, i);
        fit(&j, warp_of[i], (uint32_t)segs[i].pieces, at);
    }
    b->curve = curve;
    b->resolved = resolved;
    b->loop = loop;
    b->start = curve->keys[0].t;
    b->end = curve->keys[n - 1].t;
    b->span = loop ? curve->duration_ms : b->end - b->start;
    b->v_first = curve->keys[0].v;
    b->v_last = curve->keys[n - 1].v;
    double split = FCURVE_SPLIT_FACTOR * b->span;
    b->inv_span = 1.0 / b->span;
    b->span_hi = split - (split - b->span);
    b->span_lo = b->span - b->span_hi;
    segs[segs_n].t0 = INFINITY;   /* the sentinel that ends every search */
    b->segments = segs;
    b->segment_count = segs_n;
    if (!make_cells(arena, b))
        return false;
    b->coef = coef;
    b->piece_count = pieces;
    budget->samples -= j.samples;
    *out = b;
    return true;
}

/* ---- a looping animation's grid ------------------------------------------------ */

/* Cells a grid has: GRID_CELLS_PER_KEY for each key of its busiest track, a power of two. */
#define GRID_CELLS_PER_KEY 64u
#define GRID_MAX_CELLS 4096u
/* Cells of all tracks together at most (32 bytes each: 2 MiB); a bigger animation has fewer. */
#define GRID_MAX_TOTAL 65536u

/* How far from a key's phase, as a fraction of the period, a cell must stay to get a cubic. */
#define GRID_MARGIN 1e-6

/* Mark the cells within the margin of each key's phase (c0 NaN): the baked curve samples there. */
static void mark_key_cells(const fcurve_grid *g, const mn_fcurve *c, double *coef)
{
    for (uint32_t i = 0; i < c->key_count; i++) {
        /* the margin, and more for a key so far off that its phase was rounded */
        double offset = c->keys[i].t - g->origin;
        double margin = fmax(GRID_MARGIN * g->period, 1e-12 * fabs(offset));
        double phase = fcurve_floor_mod(offset, g->period);
        double from = (phase - margin) * g->cells_per_ms, to = (phase + margin) * g->cells_per_ms;
        if (!(to - from < g->cell_count))
            from = 0.0, to = g->cell_count - 1.0;
        for (double x = floor(from); x <= floor(to); x += 1.0) {
            double cell = x < 0.0 ? x + g->cell_count : x >= g->cell_count ? x - g->cell_count : x;
            coef[(size_t)cell * g->track_count * 4] = NAN;
        }
    }
}

/* Fit the cubic of every unmarked cell of one curve, or mark the cell where none is close. */
static void fit_cells(const fcurve_grid *g, const mn_fcurve *c, const double *resolved,
                      double *coef)
{
    static const double nodes[4] = {0.03806023374435663, 0.30865828381745514,
                                    0.69134171618254486, 0.96193976625564337};
    double tol = FIT_MARGIN * curve_tolerance(c);
    double width = 1.0 / g->cells_per_ms;
    for (uint32_t cell = 0; cell < g->cell_count; cell++) {
        double *k = &coef[(size_t)cell * g->track_count * 4];
        if (isnan(k[0]))
            continue;
        double y[4];
        for (int n = 0; n < 4; n++)
            y[n] = mn_fcurve_sample_resolved(c, resolved, g->origin + (cell + nodes[n]) * width);
        interpolate(nodes, y, k);
        for (int n = 0; n <= CHECKS; n++) {
            double f = (double)n / CHECKS;
            double got = (k[0] + f * k[1]) + (f * f) * (k[2] + f * k[3]);
            double want = mn_fcurve_sample_resolved(c, resolved, g->origin + (cell + f) * width);
            if (!(fabs(got - want) <= tol)) {   /* NaN too */
                k[0] = NAN;
                break;
            }
        }
    }
}

bool mni_fcurve_grid_bake(mn_arena *arena, const mn_fcurve *const *curves,
                      const double *const *resolved, uint32_t count, double period,
                      fcurve_bake_budget *budget, const fcurve_grid **out)
{
    *out = NULL;
    if (count == 0 || !(period > 0.0) || !isfinite(period))
        return true;
    uint32_t most_keys = 0;
    for (uint32_t k = 0; k < count; k++) {
        const mn_fcurve *c = curves[k];
        if (!fcurve_is_loop(c) || c->duration_ms != period || !bakeable(c, true) ||
            !isfinite(value_range(c)))
            return true;
        most_keys = c->key_count > most_keys ? c->key_count : most_keys;
    }
    uint32_t cells = 64;
    while (cells < GRID_MAX_CELLS && cells < (uint64_t)GRID_CELLS_PER_KEY * most_keys)
        cells *= 2;
    while (cells > 64 && (uint64_t)count * cells > GRID_MAX_TOTAL)   /* a rig with many tracks */
        cells /= 2;
    if ((uint64_t)count * cells > GRID_MAX_TOTAL)
        return true;
    /* Every cell of every track fitted (at most FIT_SAMPLES(1) samples) and stored (32 bytes). */
    uint64_t samples = (uint64_t)count * cells * FIT_SAMPLES(1);
    uint64_t bytes = sizeof(fcurve_grid) + (uint64_t)count * cells * 4 * sizeof(double);
    if (budget->samples < samples || budget->bytes < bytes)
        return true;   /* the budget cannot cover it: the tracks' baked curves serve */
    budget->samples -= samples;
    budget->bytes -= bytes;
    fcurve_grid *g = mni_arena_calloc(arena, 1, sizeof *g, _Alignof(fcurve_grid));
    double *coef = mni_arena_calloc(arena, (size_t)count * cells * 4, sizeof *coef, 32);
    if (!g || !coef)
        return false;
    g->origin = curves[0]->keys[0].t;
    g->period = period;
    g->cells_per_ms = cells / period;
    g->cell_count = cells;
    g->track_count = count;
    g->coef = coef;
    for (uint32_t k = 0; k < count; k++) {
        double *mine = &coef[(size_t)k * 4];   /* its cubic of cell c at mine[c·count·4] */
        mark_key_cells(g, curves[k], mine);
        fit_cells(g, curves[k], resolved != NULL ? resolved[k] : NULL, mine);
    }
    *out = g;
    return true;
}
