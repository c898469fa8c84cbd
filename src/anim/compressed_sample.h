/*
 * The compressed clip's sampling loop, shared by the scalar sampler
 * (compressed_sample.c) and its SSE2 form (compressed_sample_sse2.c), which
 * instantiate it with their own knot decoder and evaluator; and what it
 * reads: a cursor's storage and a view's prepared records.  Private to
 * src/anim.
 *
 * Per sample, the span and fraction of the frame position are found once
 * for each stride that some track has (every track of a stride shares them:
 * the knot count depends only on the frame count and the stride), and with
 * them the B-spline weights; per track, only its knots and its evaluation
 * remain.  A KEYED track (knots at its own key frames, linear or STEP)
 * shares no span: it bisects its frames (mni_cc_span) each sample.  The weights are mni_cc_bspline_weights of the same fraction, so
 * every result is the bits of mni_cc_interp over mni_cc_span_knots (the
 * decoder the writer measures with, compress_internal.h).
 *
 * A cursor's storage (mni_cc_cursor_bytes), zeroed by mn_clip_cursor_init,
 * is prepared on its first sample: every record parsed once (cold, read
 * only when a track enters another span) and a compact hot entry per track
 * (its output, how it is evaluated, its span's knots already on the float
 * grid, a constant's value).  A forward sample inside the cached spans
 * reads only the hot entries.
 */
#ifndef MN_ANIM_COMPRESSED_SAMPLE_H
#define MN_ANIM_COMPRESSED_SAMPLE_H

#include "anim/compress_internal.h"

#include <stdint.h>

/* A hot entry's sl for a KEYED track: its span is its own (mni_cc_span), not a stride's. */
#define MNI_CC_SL_KEYED 255u

/* How a track is evaluated (mni_cc_interp's cases, in its order). */
enum {
    MNI_CC_EV_CONST = 0,   /* a constant: the value as stored, copied */
    MNI_CC_EV_HOLD,        /* one knot */
    MNI_CC_EV_STEP,        /* the left knot, or the right one from s >= 0.999 */
    MNI_CC_EV_LERP,        /* stride 1: linear between the span's two knots */
    MNI_CC_EV_SPLINE       /* the uniform cubic B-spline of the span's four knots */
};

/* A track's hot entry in a cursor (80 bytes). */
typedef struct mni_cc_hot {
    float p[4][4];         /* the knots of span span1 - 1; a constant's value in p[1] */
    uint32_t span1;        /* 0: no knots held */
    uint32_t target;
    uint8_t path, eval, sl, wdrop; /* sl: MNI_CC_SL_KEYED for a KEYED track; wdrop: rebuild w after the B-spline */
    uint32_t quad1;        /* the quad (below) + 1 that evaluates it at SSE2; 0: none */
} mni_cc_hot;

/*
 * Four rotation tracks evaluated alike (the same evaluation, stride and
 * w), their knots by component across lanes, so that the SSE2 sampler
 * evaluates them in one pass: per lane the operations of eval_sse2 in its
 * order, so the same bits.  Formed only when no two tracks share an output
 * (then the order of the writes cannot matter).
 */
typedef struct mni_cc_quad {
    float p[4][4][4];      /* [knot][component][lane], of span span1 - 1 */
    uint32_t track[4];
    uint32_t span1;
    uint8_t eval, sl, wdrop, unused8_;
    uint32_t unused_[2];
} mni_cc_quad;

/* A track's cold entry: its record as read and where its walk stopped. */
typedef struct mni_cc_cold {
    mni_cc_track tr;
    mni_cc_walker walk;
} mni_cc_cold;

/* A cursor's storage, 16-aligned inside what the caller gave: this, hot[n], quads[n / 4], cold[n]. */
typedef struct mni_cc_cursor {
    uint32_t ready;        /* 0 (zeroed storage): not prepared */
    uint32_t track_count;
    uint32_t strides;      /* bit sl: an animated track at stride 2^sl */
    uint32_t quad_count;
} mni_cc_cursor;

/* A view's prepared records (mn_clip_from_compressed): random access parses nothing. */
typedef struct mni_cc_prepared {
    uint32_t track_count;
    uint32_t strides;
    mni_cc_track tracks[]; /* track_count, in record order */
} mni_cc_prepared;

/* Bytes of a prepared view over track_count records. */
static inline size_t mni_cc_prepared_bytes(uint32_t track_count)
{
    return sizeof(mni_cc_prepared) + (size_t)track_count * sizeof(mni_cc_track);
}

/* Every record of clip into prep (mni_cc_prepared_bytes of its track count). */
void mni_cc_prepare(const mn_compressed_clip *clip, mni_cc_prepared *prep);

/* The span of frame position f at stride 2^sl shared by every track of that stride. */
typedef struct mni_cc_at {
    uint32_t k;            /* the span */
    float s;               /* the fraction past its first knot */
    float w[4];            /* the B-spline weights at s (strides above 1) */
} mni_cc_at;

/* mni_cc_span and mni_cc_bspline_weights for every track at stride 2^sl over frame_count frames. */
static inline void mni_cc_at_of(uint32_t frame_count, uint32_t sl, float f, mni_cc_at *a)
{
    mni_cc_track probe;
    memset(&probe, 0, sizeof probe); /* frames NULL: the stride's span, not a KEYED one */
    probe.stride_log2 = (uint8_t)sl;
    probe.knot_count = mni_cc_knots_of(frame_count, sl);
    a->k = mni_cc_span(&probe, f, &a->s);
    mni_cc_bspline_weights(a->s, a->w);
}

/* How tr is evaluated (MNI_CC_EV_*). */
static inline uint8_t mni_cc_eval_of(const mni_cc_track *tr)
{
    if (tr->kind == MNI_CC_CONSTANT)
        return MNI_CC_EV_CONST;
    if (tr->knot_count == 1)
        return MNI_CC_EV_HOLD;
    if (tr->flags & MNI_CC_STEP)
        return MNI_CC_EV_STEP;
    return tr->stride_log2 == 0 ? MNI_CC_EV_LERP : MNI_CC_EV_SPLINE;
}

static inline float *mni_cc_slot(uint32_t path, uint32_t target, mn_pose *pose)
{
    switch (path) {
    case MN_PATH_TRANSLATION: return pose->translations + 3 * (size_t)target;
    case MN_PATH_ROTATION: return pose->rotations + 4 * (size_t)target;
    default: return pose->scales + 3 * (size_t)target;
    }
}

/* The evaluator a sampler instantiates the loop with (scalar or SSE2). */
typedef void (*mni_cc_eval_fn)(const float p[4][4], uint32_t path, uint32_t eval, bool wdrop,
                               const mni_cc_at *a, float *out);

/* 0 plain, 1 differences, 2 differences of differences. */
static inline uint32_t mni_cc_order(const mni_cc_track *tr)
{
    return (tr->flags & MNI_CC_DELTA) ? ((tr->flags & MNI_CC_DELTA2) ? 2u : 1u) : 0u;
}

/*
 * One step of mni_cc_walk: knot m = w->next1 - 1 into w->cur (w->d) from
 * knot m - 1's values there (none needed at a segment's first knot, or
 * for plain values), and w->next1 on to m + 2.  The same unsigned sums in
 * the same order as mni_cc_walk, so the same grid values.
 */
static inline __attribute__((always_inline)) void
mni_cc_step_n(const mni_cc_track *tr, uint32_t order, uint32_t n, mni_cc_walker *w)
{
    uint32_t m = w->next1 - 1u;
    uint32_t g = m >> tr->segment_log2, k0 = g << tr->segment_log2;
    w->next1 = m + 2u;
    if (order == 0 || m == k0) {
        size_t base_bit = (size_t)g * tr->segment_bits;
        for (uint32_t c = 0; c < n; c++) {
            w->cur[c] = 0;
            if (tr->bases) {
                w->cur[c] = mni_cc_field(tr->bases, base_bit, tr->base_bits[c]);
                base_bit += tr->base_bits[c];
            }
        }
        if (order == 0) {
            size_t bit = (size_t)m * tr->knot_bits;
            for (uint32_t c = 0; c < n; c++) {
                w->cur[c] += mni_cc_field(tr->values, bit, tr->bits[c]);
                bit += tr->bits[c];
            }
        }
        return;
    }
    if (order == 2 && m == k0 + 1u) {
        size_t bit = (size_t)g * tr->slope_sum;
        for (uint32_t c = 0; c < n; c++) {
            w->d[c] = mni_cc_field(tr->slopes, bit, tr->slope_bits[c]) + tr->slope_offset[c];
            w->cur[c] += w->d[c];
            bit += tr->slope_bits[c];
        }
        return;
    }
    size_t entry = order == 1 ? m - g - 1u : m - 2u * g - 2u;
    size_t bit = entry * tr->knot_bits;
    for (uint32_t c = 0; c < n; c++) {
        uint32_t v = mni_cc_field(tr->values, bit, tr->bits[c]) + tr->offset[c];
        bit += tr->bits[c];
        if (order == 2) {
            w->d[c] += v;
            w->cur[c] += w->d[c];
        } else {
            w->cur[c] += v;
        }
    }
}

/* Grid values q into out[4] (lanes past the components 0), w rebuilt when asked: the scalar form. */
static inline void mni_cc_convert(const mni_cc_track *tr, const uint32_t *q, bool w, float *out)
{
    out[3] = 0.0f;
    mni_cc_ints_to(tr, q, out);
    if (w)
        mni_cc_rebuild_w(out);
}

static inline __attribute__((always_inline)) void mni_cc_step(const mni_cc_track *tr,
                                                              uint32_t order, mni_cc_walker *w)
{
    mni_cc_step_n(tr, order, tr->components, w);
}

/* Position w to step on to knot k: from its segment's first knot (plain values: k itself). */
static inline void mni_cc_step_start(const mni_cc_track *tr, uint32_t order, uint32_t k,
                                     mni_cc_walker *w)
{
    w->next1 = (order == 0 ? k : k >> tr->segment_log2 << tr->segment_log2) + 1u;
}

/* mni_cc_span_ints through mni_cc_step, n components and the order constants, the walk local. */
static inline __attribute__((always_inline)) void
mni_cc_span_ints_n(const mni_cc_track *tr, uint32_t k, uint32_t q[4][4], mni_cc_walker *wk,
                   uint32_t order, uint32_t n)
{
    uint32_t last = tr->knot_count - 1u;
    bool spline = tr->stride_log2 != 0 && !(tr->flags & MNI_CC_STEP);
    uint32_t first = spline && k > 0 ? k - 1u : k;
    uint32_t end = k + (spline ? 2u : 1u);
    end = end < last ? end : last;
    mni_cc_walker w;
    memset(&w, 0, sizeof w);
    mni_cc_step_start(tr, order, first, &w);
    while (w.next1 - 1u < first)
        mni_cc_step_n(tr, order, n, &w);
    for (uint32_t j = first; j <= end; j++) {
        mni_cc_step_n(tr, order, n, &w);
        memcpy(q[j + 1u - k], w.cur, sizeof q[0]);
    }
    *wk = w;
}

/* mni_cc_span_ints (the same grid values) through mni_cc_step (wk: left where the walk ends). */
static inline void mni_cc_span_ints_fast(const mni_cc_track *tr, uint32_t k, uint32_t q[4][4],
                                         mni_cc_walker *wk)
{
    uint32_t order = mni_cc_order(tr);
    if (tr->components == 3) {
        if (order == 2)
            mni_cc_span_ints_n(tr, k, q, wk, 2u, 3u);
        else if (order == 1)
            mni_cc_span_ints_n(tr, k, q, wk, 1u, 3u);
        else
            mni_cc_span_ints_n(tr, k, q, wk, 0u, 3u);
    } else {
        if (order == 2)
            mni_cc_span_ints_n(tr, k, q, wk, 2u, 4u);
        else if (order == 1)
            mni_cc_span_ints_n(tr, k, q, wk, 1u, 4u);
        else
            mni_cc_span_ints_n(tr, k, q, wk, 0u, 4u);
    }
}

/*
 * mni_cc_span_knots over mni_cc_span_ints_fast: the same grid values, the
 * same float expressions (which the SSE2 decoder matches bit for bit).
 */
static inline void mni_cc_span_knots_fast(const mni_cc_track *tr, uint32_t k, float p[4][4],
                                          mni_cc_walker *wk)
{
    uint32_t last = tr->knot_count - 1u;
    bool step = (tr->flags & MNI_CC_STEP) != 0;
    bool w = (tr->flags & MNI_CC_W_DROPPED) != 0 && (tr->stride_log2 == 0 || step);
    uint32_t q[4][4];
    mni_cc_walker local;
    mni_cc_span_ints_fast(tr, k, q, wk ? wk : &local);
    mni_cc_ints_to(tr, q[1], p[1]);
    if (w)
        mni_cc_rebuild_w(p[1]);
    if (last == 0)
        return;
    mni_cc_ints_to(tr, q[2], p[2]);
    if (w)
        mni_cc_rebuild_w(p[2]);
    if (tr->stride_log2 == 0 || step)
        return;
    if (k > 0)
        mni_cc_ints_to(tr, q[0], p[0]);
    if (k + 2u <= last)
        mni_cc_ints_to(tr, q[3], p[3]);
    for (int c = 0; c < 4; c++) {
        if (k == 0)
            p[0][c] = last >= 2 ? 3.0f * p[1][c] - 3.0f * p[2][c] + p[3][c]
                                : 2.0f * p[1][c] - p[2][c];
        if (k + 2u > last)
            p[3][c] = k > 0 ? 3.0f * p[2][c] - 3.0f * p[1][c] + p[0][c] : 2.0f * p[2][c] - p[1][c];
    }
}

/*
 * A cursor's knots of span ko moved on to span k (ko < k, a few spans on):
 * the knots both spans read shift down, and the walk steps on from the
 * last knot it decoded to the new ones.  False where a fresh decode is
 * needed (an end span's extrapolated knot, a jump, a walk not where the
 * knots end).
 */
typedef void (*mni_cc_convert_fn)(const mni_cc_track *tr, const uint32_t *q, bool w, float *out);

static inline __attribute__((always_inline)) bool
mni_cc_forward(const mni_cc_track *tr, uint32_t eval, bool wdrop, uint32_t ko, uint32_t k,
               float p[4][4], mni_cc_walker *w, mni_cc_convert_fn convert)
{
    uint32_t last = tr->knot_count - 1u, order = mni_cc_order(tr), d = k - ko;
    bool spline = eval == MNI_CC_EV_SPLINE;
    if (d > 4u || (eval != MNI_CC_EV_LERP && eval != MNI_CC_EV_STEP && !spline))
        return false;
    uint32_t first = spline ? k - 1u : k, end = k + (spline ? 2u : 1u);
    uint32_t held = ko + (spline ? 2u : 1u); /* the last knot of span ko */
    if (end > last || (order > 0 && w->next1 != held + 2u))
        return false;
    uint32_t count = end + 1u - first, keep = d < count ? count - d : 0u;
    float (*q)[4] = spline ? p : p + 1;
    for (uint32_t i = 0; i < keep; i++)
        memcpy(q[i], q[i + d], sizeof q[0]);
    if (order == 0)
        w->next1 = held + 2u;
    for (uint32_t j = held + 1u; j <= end; j++) {
        mni_cc_step(tr, order, w);
        if (j >= first)
            convert(tr, w->cur, wdrop && !spline, q[j - first]);
    }
    return true;
}

/* The cursor inside storage (16-aligned up: mni_cc_cursor_bytes leaves room). */
static inline mni_cc_cursor *mni_cc_cursor_in(void *storage)
{
    return (mni_cc_cursor *)(void *)(((uintptr_t)storage + 15u) & ~(uintptr_t)15u);
}

static inline mni_cc_hot *mni_cc_hots(mni_cc_cursor *c)
{
    return (mni_cc_hot *)(void *)(c + 1);
}

static inline mni_cc_quad *mni_cc_quads(mni_cc_cursor *c)
{
    return (mni_cc_quad *)(void *)(mni_cc_hots(c) + c->track_count);
}

static inline mni_cc_cold *mni_cc_colds(mni_cc_cursor *c)
{
    return (mni_cc_cold *)(void *)(mni_cc_quads(c) + c->track_count / 4u);
}

/* Parse every record into the cursor (its first sample). */
void mni_cc_cursor_prepare(const mn_compressed_clip *clip, mni_cc_cursor *c);

/* The span entry of stride sl for this sample, found on first use. */
static inline __attribute__((always_inline)) const mni_cc_at *
mni_cc_at_get(mni_cc_at *at, uint32_t *done, uint32_t frame_count, uint32_t sl, float f)
{
    if (!(*done & (1u << sl))) {
        mni_cc_at_of(frame_count, sl, f, &at[sl]);
        *done |= 1u << sl;
    }
    return &at[sl];
}

/* The span entry of every stride some track of the cursor has, for frame position f. */
static inline void mni_cc_at_all(uint32_t frame_count, uint32_t strides, float f, mni_cc_at *at)
{
    for (uint32_t sl = 0; sl <= MNI_CC_MAX_STRIDE_LOG2; sl++)
        if (strides & (1u << sl))
            mni_cc_at_of(frame_count, sl, f, &at[sl]);
}

/*
 * Track e's knots moved to span k: on from the span they hold (one new
 * knot a span, mni_cc_forward) or decoded afresh from its cold record.
 */
static inline __attribute__((always_inline)) void
mni_cc_refresh(mni_cc_hot *e, mni_cc_cold *cold, uint32_t k, mni_cc_convert_fn convert)
{
    if (!(e->span1 > 0 && e->span1 <= k &&
          mni_cc_forward(&cold->tr, e->eval, e->wdrop, e->span1 - 1u, k, e->p, &cold->walk,
                         convert))) {
        memset(e->p, 0, sizeof e->p);
        mni_cc_span_knots_fast(&cold->tr, k, e->p, &cold->walk);
    }
    e->span1 = k + 1u;
}

/*
 * One sample through a cursor, the tracks of no quad (skip_quads) or all:
 * each track's hot entry, its knots moved on when it entered another span.
 */
static inline __attribute__((always_inline)) void
mni_cc_sample_cursor(const mn_compressed_clip *clip, const mni_cc_at *at, float f,
                     mni_cc_cursor *c, mn_pose *pose, bool skip_quads, mni_cc_eval_fn eval,
                     mni_cc_convert_fn convert)
{
    mni_cc_hot *hot = mni_cc_hots(c);
    uint32_t n = c->track_count, joints = pose->joint_count;
    (void)clip;
    for (uint32_t i = 0; i < n; i++) {
        mni_cc_hot *e = &hot[i];
        if (e->target >= joints || (skip_quads && e->quad1))
            continue;
        float *out = mni_cc_slot(e->path, e->target, pose);
        if (e->eval == MNI_CC_EV_CONST) {
            memcpy(out, e->p[1], (e->path == MN_PATH_ROTATION ? 4 : 3) * sizeof(float));
            continue;
        }
        mni_cc_at own;
        const mni_cc_at *a = &own;
        if (e->sl == MNI_CC_SL_KEYED) /* its own span: linear or STEP, no weights */
            own.k = mni_cc_span(&mni_cc_colds(c)[i].tr, f, &own.s);
        else
            a = &at[e->sl];
        if (e->span1 != a->k + 1u)
            mni_cc_refresh(e, &mni_cc_colds(c)[i], a->k, convert);
        eval((const float(*)[4])e->p, e->path, e->eval, e->wdrop, a, out);
    }
}

/* One sample without a cursor: records from prep (or parsed in turn when NULL). */
static inline __attribute__((always_inline)) void
mni_cc_sample_fresh(const mn_compressed_clip *clip, const mni_cc_prepared *prep, float t,
                    mn_pose *pose, mni_cc_eval_fn eval)
{
    const mni_cc_header head = mni_cc_head(clip), *h = &head;
    const uint8_t *rec = h->records;
    float f = mni_cc_frame_of(h, t);
    mni_cc_at at[MNI_CC_MAX_STRIDE_LOG2 + 1];
    uint32_t done = 0;
    for (uint32_t i = 0; i < h->track_count; i++) {
        mni_cc_track parsed;
        const mni_cc_track *tr = &parsed;
        if (prep)
            tr = &prep->tracks[i];
        else
            rec += mni_cc_parse(rec, h->frame_count, &parsed);
        if (tr->target >= pose->joint_count)
            continue;
        float *out = mni_cc_slot(tr->path, tr->target, pose);
        if (tr->kind == MNI_CC_CONSTANT) {
            memcpy(out, tr->min, (tr->path == MN_PATH_ROTATION ? 4 : 3) * sizeof(float));
            continue;
        }
        uint32_t sl = tr->stride_log2 <= MNI_CC_MAX_STRIDE_LOG2 ? tr->stride_log2
                                                                 : MNI_CC_MAX_STRIDE_LOG2;
        mni_cc_at own;
        const mni_cc_at *a = &own;
        if (tr->frames) /* KEYED: its own span (linear or STEP, no weights) */
            own.k = mni_cc_span(tr, f, &own.s);
        else
            a = mni_cc_at_get(at, &done, h->frame_count, sl, f);
        float p[4][4] = {{0}};
        mni_cc_span_knots_fast(tr, a->k, p, NULL);
        eval((const float(*)[4])p, tr->path, mni_cc_eval_of(tr),
             (tr->flags & MNI_CC_W_DROPPED) != 0, a, out);
    }
}

#if MN_WITH_SSE2
/* The loop above with the SSE2 decoder and evaluator (compressed_sample_sse2.c). */
void mni_cc_sample_cursor_sse2(const mn_compressed_clip *clip, const mni_cc_at *at, float f,
                               mni_cc_cursor *c, mn_pose *pose);
void mni_cc_sample_fresh_sse2(const mn_compressed_clip *clip, const mni_cc_prepared *prep, float t,
                              mn_pose *pose);
#endif

#endif /* MN_ANIM_COMPRESSED_SAMPLE_H */
