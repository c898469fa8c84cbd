/*
 * Sampling compressed clips (marionette/compress.h, SAMPLING): every stored
 * track decoded at the frame position of t, bit for bit the decoder the
 * writer measures with (compress_internal.h), through the loop of
 * compressed_sample.h: the scalar instance here, the SSE2 one in
 * compressed_sample_sse2.c where the build and CPU have it.  A cursor
 * holds each track's record parsed and its span's knots on the float grid,
 * so forward playback decodes a knot per span a track crosses; the view
 * (mn_clip_from_compressed) holds the records parsed, so a sample without
 * a cursor parses nothing.  Neither changes a result.
 */
#include "anim/clip_internal.h"
#include "anim/compress_internal.h"
#include "anim/compressed_sample.h"
#include "anim/space_internal.h"

#include "core/core.h"

#include <stdio.h>
#include <string.h>

size_t mni_cc_cursor_bytes(uint32_t track_count)
{
    /* 16 bytes of room to align the caller's 4-aligned storage up. */
    return 16u + sizeof(mni_cc_cursor) +
           (size_t)track_count * (sizeof(mni_cc_hot) + sizeof(mni_cc_cold)) +
           (size_t)(track_count / 4u) * sizeof(mni_cc_quad);
}

size_t mni_compressed_cursor_size(const mn_compressed_clip *clip)
{
    return clip ? mni_cc_cursor_bytes(mni_cc_head(clip).track_count) : 0;
}

void mni_cc_prepare(const mn_compressed_clip *clip, mni_cc_prepared *prep)
{
    const mni_cc_header head = mni_cc_head(clip), *h = &head;
    const uint8_t *at = h->records;
    prep->track_count = h->track_count;
    prep->strides = 0;
    for (uint32_t i = 0; i < h->track_count; i++) {
        at += mni_cc_parse(at, h->frame_count, &prep->tracks[i]);
        if (prep->tracks[i].kind == MNI_CC_ANIMATED && !prep->tracks[i].frames)
            prep->strides |= 1u << prep->tracks[i].stride_log2;
    }
}

/* Whether two tracks write the same output (then each must write in record order). */
static bool shared_outputs(const mni_cc_hot *hot, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < i; j++)
            if (hot[i].target == hot[j].target && hot[i].path == hot[j].path)
                return true;
    return false;
}

/* Can evaluate in a quad: a rotation, linear or B-spline, at a stride's shared span. */
static bool quad_kind(const mni_cc_hot *e)
{
    return e->path == MN_PATH_ROTATION && e->sl != MNI_CC_SL_KEYED &&
           (e->eval == MNI_CC_EV_LERP || e->eval == MNI_CC_EV_SPLINE);
}

/* Rotation tracks evaluated alike into quads of four (the rest sample one by one). */
static void form_quads(mni_cc_cursor *c)
{
    mni_cc_hot *hot = mni_cc_hots(c);
    mni_cc_quad *quads = mni_cc_quads(c);
    uint32_t n = c->track_count;
    c->quad_count = 0;
    /* The check is quadratic: leave very large clips one by one. */
    if (n < 4u || n > 4096u || shared_outputs(hot, n))
        return;
    for (uint32_t i = 0; i < n; i++) {
        if (hot[i].quad1 || !quad_kind(&hot[i]))
            continue;
        uint32_t lanes[4] = {i, 0, 0, 0}, got = 1;
        for (uint32_t j = i + 1; j < n && got < 4; j++)
            if (!hot[j].quad1 && quad_kind(&hot[j]) && hot[j].eval == hot[i].eval &&
                hot[j].sl == hot[i].sl && hot[j].wdrop == hot[i].wdrop)
                lanes[got++] = j;
        if (got < 4)
            continue;
        mni_cc_quad *q = &quads[c->quad_count++];
        memset(q, 0, sizeof *q);
        q->eval = hot[i].eval;
        q->sl = hot[i].sl;
        q->wdrop = hot[i].wdrop;
        for (uint32_t l = 0; l < 4; l++) {
            q->track[l] = lanes[l];
            hot[lanes[l]].quad1 = c->quad_count;
        }
    }
}

void mni_cc_cursor_prepare(const mn_compressed_clip *clip, mni_cc_cursor *c)
{
    const mni_cc_header head = mni_cc_head(clip), *h = &head;
    const uint8_t *at = h->records;
    c->track_count = h->track_count;
    c->strides = 0;
    mni_cc_hot *hot = mni_cc_hots(c);
    mni_cc_cold *cold = mni_cc_colds(c);
    for (uint32_t i = 0; i < h->track_count; i++) {
        const mni_cc_track *tr = &cold[i].tr;
        at += mni_cc_parse(at, h->frame_count, &cold[i].tr);
        memset(&cold[i].walk, 0, sizeof cold[i].walk);
        mni_cc_hot *e = &hot[i];
        memset(e, 0, sizeof *e);
        e->target = tr->target;
        e->path = tr->path;
        e->eval = mni_cc_eval_of(tr);
        e->sl = (uint8_t)(tr->stride_log2 <= MNI_CC_MAX_STRIDE_LOG2 ? tr->stride_log2
                                                                  : MNI_CC_MAX_STRIDE_LOG2);
        e->wdrop = (tr->flags & MNI_CC_W_DROPPED) != 0;
        if (tr->kind == MNI_CC_CONSTANT)
            memcpy(e->p[1], tr->min, sizeof e->p[1]);
        else if (tr->frames)
            e->sl = MNI_CC_SL_KEYED; /* its own span each sample, in no quad */
        else
            c->strides |= 1u << e->sl;
    }
    form_quads(c);
    c->ready = 1;
}

/*
 * mni_cc_interp of an animated track with the span's shared weights: the
 * same expressions in the same order, so the same bits.
 */
static inline void eval_scalar(const float p[4][4], uint32_t path, uint32_t eval, bool wdrop,
                               const mni_cc_at *a, float *out)
{
    float v[4] = {0, 0, 0, 0};
    uint32_t n = path == MN_PATH_ROTATION ? 4u : 3u;
    float s = a->s;
    if (eval == MNI_CC_EV_HOLD || (eval == MNI_CC_EV_STEP && s < 0.999f)) {
        memcpy(v, p[1], sizeof v);
    } else if (eval == MNI_CC_EV_STEP) {
        memcpy(v, p[2], sizeof v);
    } else if (eval == MNI_CC_EV_LERP) {
        for (uint32_t c = 0; c < n; c++)
            v[c] = p[1][c] + (p[2][c] - p[1][c]) * s;
    } else {
        const float *w = a->w;
        for (uint32_t c = 0; c < n; c++)
            v[c] = w[0] * p[0][c] + w[1] * p[1][c] + w[2] * p[2][c] + w[3] * p[3][c];
        if (wdrop)
            mni_cc_rebuild_w(v);
    }
    mni_cc_finish(path, v, out);
}

static void sample_cursor_scalar(const mn_compressed_clip *clip, const mni_cc_at *at, float f,
                                 mni_cc_cursor *c, mn_pose *pose)
{
    mni_cc_sample_cursor(clip, at, f, c, pose, false, eval_scalar, mni_cc_convert);
}

static void sample_fresh_scalar(const mn_compressed_clip *clip, const mni_cc_prepared *prep,
                                float t, mn_pose *pose)
{
    mni_cc_sample_fresh(clip, prep, t, pose, eval_scalar);
}

void mni_compressed_sample_prepared(const mn_compressed_clip *clip, const void *prepared, float t,
                                    void *cache, mn_pose *pose, mn_simd_level level)
{
    bool simd = mni_simd_resolve(level) >= MN_SIMD_SSE2;
    const mni_cc_prepared *prep = prepared;
    if (cache) {
        mni_cc_cursor *c = mni_cc_cursor_in(cache);
        if (!c->ready)
            mni_cc_cursor_prepare(clip, c);
        const mni_cc_header head = mni_cc_head(clip), *h = &head;
        float f = mni_cc_frame_of(h, t);
        mni_cc_at at[MNI_CC_MAX_STRIDE_LOG2 + 1];
        mni_cc_at_all(h->frame_count, c->strides, f, at);
#if MN_WITH_SSE2
        if (simd) {
            mni_cc_sample_cursor_sse2(clip, at, f, c, pose);
            return;
        }
#endif
        sample_cursor_scalar(clip, at, f, c, pose);
        return;
    }
#if MN_WITH_SSE2
    if (simd) {
        mni_cc_sample_fresh_sse2(clip, prep, t, pose);
        return;
    }
#endif
    (void)simd;
    sample_fresh_scalar(clip, prep, t, pose);
}

void mni_compressed_sample(const mn_compressed_clip *clip, float t, void *cache, mn_pose *pose,
                           mn_simd_level level)
{
    mni_compressed_sample_prepared(clip, NULL, t, cache, pose, level);
}

void mni_compressed_sample_into(const mn_compressed_clip *clip, float t, mn_pose *pose)
{
    mni_compressed_sample(clip, t, NULL, pose, MN_SIMD_BEST);
}

static mn_space space_of(const mni_cc_header *h)
{
    return (mn_space){(mn_space_kind)h->space_kind, h->space_count, h->space_id};
}

mn_compressed_clip_info mn_compressed_clip_info_of(const mn_compressed_clip *clip)
{
    mn_compressed_clip_info info;
    memset(&info, 0, sizeof info);
    if (!clip)
        return info;
    const mni_cc_header head = mni_cc_head(clip), *h = &head;
    info.bytes = h->total_size;
    info.name = h->name;
    info.duration = h->duration;
    info.sample_rate = h->sample_rate;
    info.frame_count = h->frame_count;
    info.track_count = h->track_count;
    info.space = space_of(h);
    info.max_error = h->max_error;
    info.p99_error = h->p99_error;
    info.shell = h->shell;
    return info;
}

mn_status mn_compressed_clip_sample(const mn_compressed_clip *clip, float t, mn_pose *pose,
                                    mn_error *err)
{
    if (!clip || !pose)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_compressed_clip_sample: clip and pose must not be NULL");
    const mni_cc_header head = mni_cc_head(clip), *h = &head;
    if (!mni_space_fits(space_of(h), pose)) {
        char what[80];
        snprintf(what, sizeof what, "compressed clip \"%.40s\"", h->name);
        return mni_space_refuse(space_of(h), what, pose, err);
    }
    mni_compressed_sample(clip, t, NULL, pose, MN_SIMD_BEST);
    if (err)
        mni_error_clear(err);
    return MN_OK;
}

void mn_compressed_clip_free(mn_compressed_clip *clip, const mn_allocator *allocator)
{
    if (!clip)
        return;
    mn_allocator a = allocator ? *allocator : (mn_allocator){0};
    mni_free(&a, clip, mni_cc_head(clip).total_size);
}

mn_status mn_clip_from_compressed(const mn_compressed_clip *compressed,
                                  const mn_allocator *allocator, mn_clip **out, mn_error *err)
{
    if (out)
        *out = NULL;
    if (!compressed || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_clip_from_compressed: compressed and out must not be NULL");
    const mni_cc_header head = mni_cc_head(compressed), *h = &head;
    const uint8_t *at = h->records;
    mn_allocator a = allocator ? *allocator : (mn_allocator){0};
    size_t bytes;
    if (!mni_checked_mul(h->track_count ? h->track_count : 1, sizeof(mn_track), &bytes))
        return mni_fail(err, MN_OVERFLOW, "compressed clip: %u tracks", h->track_count);
    mn_track *tracks = mni_alloc(&a, bytes);
    if (!tracks)
        return mni_oom(err, "the tracks of a compressed clip view");
    static const uint32_t components[] = {3, 4, 3};
    for (uint32_t i = 0; i < h->track_count; i++) {
        mni_cc_track src;
        at += mni_cc_parse(at, h->frame_count, &src);
        tracks[i] = (mn_track){.target = src.target,
                               .path = (mn_anim_path)src.path,
                               .interpolation = (src.flags & MNI_CC_STEP) ? MN_INTERP_STEP
                                                                         : MN_INTERP_LINEAR,
                               .components = components[src.path]};
    }
    mn_clip_options o = {.allocator = a, .space = space_of(h)};
    mn_status st = mn_clip_create(tracks, h->track_count, h->name,
                                  &o, out, err);
    mni_free(&a, tracks, bytes);
    if (st != MN_OK)
        return st;
    /* The records read out once, so that sampling without a cursor parses nothing. */
    size_t prep_bytes = mni_cc_prepared_bytes(h->track_count);
    mni_cc_prepared *prep = mni_alloc(&a, prep_bytes);
    if (!prep) {
        mn_clip_free(*out);
        *out = NULL;
        return mni_oom(err, "the prepared records of a compressed clip view");
    }
    mni_cc_prepare(compressed, prep);
    (*out)->compressed = compressed;
    (*out)->compressed_prepared = prep;
    (*out)->compressed_prepared_bytes = prep_bytes;
    (*out)->duration = h->duration;
    return MN_OK;
}
