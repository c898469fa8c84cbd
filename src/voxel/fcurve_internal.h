/*
 * F-curves baked for posing (fcurve_bake.c), and the wrap both the exact
 * sampler (fcurve.c) and the baked one use, so a time lands on the same
 * point of a loop in both.
 */
#ifndef MN_VOXEL_FCURVE_INTERNAL_H
#define MN_VOXEL_FCURVE_INTERNAL_H

#include <marionette/voxel/rig.h>

#include <math.h>
#include <stdint.h>

#include "core/core.h"

/*
 * floor-mod of x by period > 0, into [0, period) (-250 mod 2000 is 1750).
 *
 * The common case, x a few periods on (a looping animation's clock), is done
 * without fmod, exactly: q = floor(x / period) (corrected by one if the
 * division rounded across an integer), then x - q·period with the period
 * split into halves of 26 bits (Veltkamp), so q·hi and q·lo are exact for
 * q < 2^26; x - q·hi is exact too (q·hi is a multiple of x's last-place unit
 * and not far from x), and the last subtraction lands on x - q·period
 * itself, which is representable (it is fmod's result).  So the value is
 * fmod's to the bit (a test checks it over 2^30 periods), at a fraction of
 * its cost; anything the checks do not vouch for goes to fmod.
 */
#define FCURVE_SPLIT_FACTOR 134217729.0   /* 2^27 + 1 */
#define FCURVE_QUOTIENT_EXACT 67108864.0  /* 2^26 */

/*
 * fcurve_floor_mod's work once the quotient is estimated: d ~ x / period
 * (off by one either way is corrected), hi + lo the period's split.
 */
static inline double fcurve_floor_mod_from(double x, double period, double d, double hi,
                                           double lo)
{
    if (x > 0.0 && d < FCURVE_QUOTIENT_EXACT) {
        double q = (double)(int64_t)d;   /* floor, for d >= 0 */
        double r = (x - q * hi) - q * lo;
        if (r < 0.0) {   /* the estimate rounded up across an integer */
            q -= 1.0;
            r = (x - q * hi) - q * lo;
        } else if (r >= period) {
            q += 1.0;
            r = (x - q * hi) - q * lo;
        }
        if (r >= 0.0 && r < period)
            return r;
    }
    double r = fmod(x, period);
    if (r < 0.0)
        r += period;
    if (!(r < period))   /* -1e-20 + period rounds to period */
        r = 0.0;
    return r;
}

static inline double fcurve_floor_mod(double x, double period)
{
    if (x >= 0.0 && x < period)   /* already in range: fmod would return x itself */
        return x;
    double c = FCURVE_SPLIT_FACTOR * period;
    double hi = c - (c - period);
    return fcurve_floor_mod_from(x, period, x / period, hi, period - hi);
}

/* Whether the curve samples as a loop: a positive, finite period. */
static inline bool fcurve_is_loop(const mn_fcurve *c)
{
    return c->loop && c->duration_ms > 0.0 && isfinite(c->duration_ms);
}

/*
 * One segment of a baked curve (from a key to the next): `pieces` cubics of
 * equal width in a warped unit time v, where u = (t - t0)·inv_len is the
 * segment's unit time and
 *     v = ku·u + kw·(wa + wb·sqrt(qa + qb·u))
 * is u itself (ku = 1, kw = 0), sqrt(u) or 1 - sqrt(1 - u): the last two
 * for an eased segment that starts or ends with a vertical tangent in time
 * (ease-out, ease-in, a handle clamped flat), where the value is smooth in
 * v but not in u, so a few pieces do.
 */
typedef struct fcurve_segment {
    double t0, inv_len;
    double qa, qb, wa, wb, ku, kw;
    double pieces;              /* the piece count, as a double */
    uint32_t first;             /* its first piece in fcurve_baked.coef */
    uint32_t exact;             /* 1: no few pieces came close enough; sample the curve itself */
} fcurve_segment;

/*
 * A curve baked for posing: its segments (the closing one last for a loop),
 * each within FCURVE_BAKE_TOLERANCE of the value range of the exact curve
 * (mn_fcurve_sample), found after the same wrap mn_fcurve_sample does (its
 * very remainder, with a multiplication where it divides) in a table of
 * uniform cells over the span: cells[k] is the last segment whose start
 * falls in a cell before k, so t's segment is cells[k] or a later one, and
 * with cells narrower than segments mostly cells[k] or the next.
 */
typedef struct fcurve_baked {
    const mn_fcurve *curve;     /* what it was baked from: sampled itself where a segment says */
    const double *resolved;     /* its mn_fcurve_resolve record, or NULL */
    bool loop;
    double start, span, end;    /* the first key's time, the loop's period, the last key's time */
    double v_first, v_last;
    double inv_span, span_hi, span_lo;   /* 1 / span and span's split (the wrap) */
    const fcurve_segment *segments;     /* segment_count, then one starting at +inf */
    uint32_t segment_count;
    const uint32_t *cells;      /* cell k: a segment at or before any t of cell k (see below) */
    uint32_t cell_count;
    double cell_scale;          /* t's cell: (uint32)((t - start)·cell_scale) */
    const double *coef;         /* 4 a piece: c0 + x·(c1 + x·(c2 + x·c3)), x in [0, 1] */
    uint32_t piece_count;
} fcurve_baked;

/*
 * The largest error a bezier or eased piece may have, as a fraction of the
 * curve's value range (its keys' and bezier handles' values), or 1e-9 of its
 * largest |key value| where that is larger (a nearly flat curve: rounding).
 */
#define FCURVE_BAKE_TOLERANCE 1e-7

/*
 * What the bakes of one rig may still spend: samples of the exact curves
 * (the work: a failed fit of a segment costs thousands) and bytes of baked
 * data.  The reader sets it in proportion to its text (plus room for any
 * ordinary rig), so a hostile rig.json cannot make loading take minutes or
 * gigabytes: a curve or grid the budget cannot cover is simply not baked,
 * and is sampled exactly (the same values, more slowly).
 */
typedef struct fcurve_bake_budget {
    uint64_t samples;
    uint64_t bytes;
} fcurve_bake_budget;

/*
 * Bake `curve` (with its mn_fcurve_resolve record, or NULL) into the arena.
 * *out is the baked curve, or NULL where the curve is one the pieces cannot
 * follow (fewer than two keys, non-finite times or values, keys past a
 * loop's period) or that the budget cannot cover: sample it exactly.  What
 * the bake spends comes off *budget.  False: out of memory.  The curve and
 * record must outlive the arena's use.
 */
bool mni_fcurve_bake(mn_arena *arena, const mn_fcurve *curve, const double *resolved,
                 fcurve_bake_budget *budget, const fcurve_baked **out);

/* t's cell of the baked curve, t >= start (the same expression baking uses). */
static inline uint32_t fcurve_baked_cell(const fcurve_baked *b, double t)
{
    double c = (t - b->start) * b->cell_scale;
    return c < (double)(b->cell_count - 1) ? (uint32_t)c : b->cell_count - 1;
}

/* The last segment whose start is at or before t (t at or after the first's). */
static inline const fcurve_segment *fcurve_baked_segment(const fcurve_baked *b, double t)
{
    const fcurve_segment *s = &b->segments[b->cells[fcurve_baked_cell(b, t)]];
    s += s[1].t0 <= t;
    while (s[1].t0 <= t)   /* a cell holding the starts of several short segments */
        s++;
    return s;
}

/*
 * The baked curve's value at t_ms: mn_fcurve_sample's within the tolerance
 * (its very value before the first key, after a one-shot's last, and on a
 * segment baked as exact).  Inline: posing calls it once a driven joint.
 */
static inline double fcurve_baked_sample(const fcurve_baked *b, double t_ms)
{
    double t = t_ms;
    if (b->loop) {
        if (!isfinite(t))
            return b->v_first;
        double x = t - b->start;
        if (!(x >= 0.0 && x < b->span))
            x = fcurve_floor_mod_from(x, b->span, x * b->inv_span, b->span_hi, b->span_lo);
        t = b->start + x;
    } else if (t >= b->end) {
        return b->v_last;
    }
    if (!(t >= b->start))   /* before the first key, or NaN */
        return b->v_first;
    const fcurve_segment *s = fcurve_baked_segment(b, t);
    if (s->exact)
        return mn_fcurve_sample_resolved(b->curve, b->resolved, t_ms);
    double u = (t - s->t0) * s->inv_len;
    double q = s->qa + s->qb * u;
    double v = s->ku * u + s->kw * (s->wa + s->wb * sqrt(q > 0.0 ? q : 0.0));
    double x = v * s->pieces;   /* >= 0: t >= t0, and sqrt's argument is kept >= 0 */
    double i = (double)(int64_t)x;
    i = i > s->pieces - 1.0 ? s->pieces - 1.0 : i;
    x -= i;
    const double *c = &b->coef[4 * ((size_t)s->first + (size_t)i)];
    return (c[0] + x * c[1]) + (x * x) * (c[2] + x * c[3]);   /* Estrin: a shorter chain */
}

/*
 * A looping animation's tracks baked together on one grid: G cells of equal
 * width over the loop's period, in the phase phi = floor-mod(t - origin,
 * period), one cubic per cell and track.  The phase and its cell are worked
 * out once for every track; a track's value is then one cubic in the cell's
 * unit time f.  Only cells wholly inside one segment of a track (no key in
 * them, with a margin) that a cubic follows within FCURVE_BAKE_TOLERANCE get
 * one; the others are marked (c0 NaN) and sampled by the track's baked curve
 * (fcurve_baked_sample), which wraps exactly as mn_fcurve_sample does, so
 * what happens at a key is never the grid's business.
 */
typedef struct fcurve_grid {
    double origin, period;
    double cells_per_ms;        /* G / period */
    uint32_t cell_count;        /* G */
    uint32_t track_count;
    const double *coef;         /* cell c, track k: coef[(c·track_count + k)·4 ..], NaN first
                                   where marked: one cell's cubics side by side, as a pose reads them */
} fcurve_grid;

/*
 * Bake the `count` curves (one period `period`, all looping) on one grid
 * into the arena; resolved[k] is curve k's mn_fcurve_resolve record or NULL.
 * *out NULL where a grid is no use (no curves, a period that is not finite,
 * a curve that does not loop with that period) or the budget cannot cover
 * it; what it spends comes off *budget.  False: out of memory.
 */
bool mni_fcurve_grid_bake(mn_arena *arena, const mn_fcurve *const *curves,
                      const double *const *resolved, uint32_t count, double period,
                      fcurve_bake_budget *budget, const fcurve_grid **out);

/* Where t falls on the grid: the cell, and f in [0, 1] across it. */
static inline uint32_t fcurve_grid_cell(const fcurve_grid *g, double t_ms, double *f)
{
    double phi = fcurve_floor_mod(t_ms - g->origin, g->period);
    double x = phi * g->cells_per_ms;
    double c = (double)(int64_t)x;   /* phi >= 0 */
    c = c < (double)(g->cell_count - 1) ? c : (double)(g->cell_count - 1);
    *f = x - c;
    return (uint32_t)c;
}

/* Track k's cubic at a cell and f of fcurve_grid_cell into *out; false where the cell is marked. */
static inline bool fcurve_grid_cubic(const fcurve_grid *g, uint32_t k, uint32_t cell, double f,
                                     double *out)
{
    const double *c = &g->coef[((size_t)cell * g->track_count + k) * 4];
    *out = (c[0] + f * c[1]) + (f * f) * (c[2] + f * c[3]);
    return c[0] == c[0];
}

/*
 * The baked forms of animation `animation`'s tracks (track_count entries, a
 * NULL entry sampled exactly) of a rig read by mn_voxel_rig_read_*
 * (voxel/rig_read.c), or NULL for none: sample every curve exactly.
 */
const fcurve_baked *const *mni_voxel_rig_baked_tracks(const mn_voxel_rig *rig, uint32_t animation);

/*
 * The grid of animation `animation` of a rig read by mn_voxel_rig_read_*
 * (track_count tracks, in track order), or NULL: a one-shot, or no grid.
 */
const fcurve_grid *mni_voxel_rig_baked_grid(const mn_voxel_rig *rig, uint32_t animation);

#endif
