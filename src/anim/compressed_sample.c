/*
 * Sampling compressed clips (marionette/compress.h, SAMPLING): every stored
 * track decoded at the frame position of t (compress_internal.h holds the
 * decoder the writer measures with), and the mn_clip view that lets every
 * consumer of clips take one; SSE2 decodes and interpolates a track's
 * components in one register (compressed_sample_sse2.c) where the build
 * and CPU have it, bit for bit the scalar code.  A cursor caches each track's four decoded
 * knots, keyed by span: forward playback decodes a track once per span
 * (every 2^stride frames), and the cached knots are the very floats a
 * fresh decode gives, so results never depend on it.
 */
#include "anim/clip_internal.h"
#include "anim/compress_internal.h"
#include "anim/space_internal.h"

#include "core/core.h"

#include <stdio.h>
#include <string.h>

/*
 * One track's entry in a cursor: span + 1 (0: empty), its knots, and its
 * record as read (bytes: the storage is only 4-aligned; size 0: not read).
 */
typedef struct cc_cache {
    uint32_t span1;
    float p[4][4];
    mni_cc_walker walk;
    unsigned char rec[sizeof(mni_cc_track)];
} cc_cache;

size_t mni_cc_cursor_bytes(uint32_t track_count)
{
    return (size_t)track_count * sizeof(cc_cache);
}

size_t mni_compressed_cursor_size(const mn_compressed_clip *clip)
{
    return clip ? mni_cc_cursor_bytes(mni_cc_head(clip).track_count) : 0;
}

static inline float *slot_of(const mni_cc_track *tr, mn_pose *pose)
{
    switch (tr->path) {
    case MN_PATH_TRANSLATION: return pose->translations + 3 * (size_t)tr->target;
    case MN_PATH_ROTATION: return pose->rotations + 4 * (size_t)tr->target;
    default: return pose->scales + 3 * (size_t)tr->target;
    }
}

/* The decoder's two halves at the resolved level: SSE2 where built, else the reference. */
static inline void span_knots(const mni_cc_track *tr, uint32_t k, float p[4][4],
                              mni_cc_walker *w, bool simd)
{
#if MN_WITH_SSE2
    if (simd) {
        mni_cc_span_knots_sse2(tr, k, p, w);
        return;
    }
#endif
    (void)simd;
    mni_cc_span_knots(tr, k, p, w);
}

static inline void interp(const mni_cc_track *tr, const float p[4][4], float s, float *out,
                          bool simd)
{
#if MN_WITH_SSE2
    if (simd) {
        mni_cc_interp_sse2(tr, p, s, out);
        return;
    }
#endif
    (void)simd;
    mni_cc_interp(tr, p, s, out);
}

void mni_compressed_sample(const mn_compressed_clip *clip, float t, void *cache, mn_pose *pose,
                           mn_simd_level level)
{
    bool simd = mni_simd_resolve(level) >= MN_SIMD_SSE2;
    const mni_cc_header head = mni_cc_head(clip), *h = &head;
    const uint8_t *at = h->records;
    float f = mni_cc_frame_of(h, t);
    cc_cache *c = cache;
    for (uint32_t i = 0; i < h->track_count; i++) {
        mni_cc_track rec;
        const mni_cc_track *tr = &rec;
        if (c && c[i].span1) {
            memcpy(&rec, c[i].rec, sizeof rec);
            at += rec.size;
        } else {
            at += mni_cc_parse(at, h->frame_count, &rec);
        }
        if (tr->target >= pose->joint_count)
            continue;
        float *out = slot_of(tr, pose);
        if (tr->kind == MNI_CC_CONSTANT) {
            memcpy(out, tr->min, (tr->path == MN_PATH_ROTATION ? 4 : 3) * sizeof(float));
            if (c && !c[i].span1) {
                memcpy(c[i].rec, &rec, sizeof rec);
                c[i].span1 = 1; /* read; a constant has no span */
            }
            continue;
        }
        float s;
        uint32_t k = mni_cc_span(tr, f, &s);
        if (!c) {
            float p[4][4] = {{0}};
            span_knots(tr, k, p, NULL, simd);
            interp(tr, (const float(*)[4])p, s, out, simd);
            continue;
        }
        if (c[i].span1 != k + 1u) {
            if (!(c[i].span1 == k && k > 0 && mni_cc_advance(tr, k, c[i].p, &c[i].walk))) {
                memset(c[i].p, 0, sizeof c[i].p);
                span_knots(tr, k, c[i].p, &c[i].walk, simd);
            }
            if (!c[i].span1)
                memcpy(c[i].rec, &rec, sizeof rec);
            c[i].span1 = k + 1u;
        }
        interp(tr, (const float(*)[4])c[i].p, s, out, simd);
    }
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
    (*out)->compressed = compressed;
    (*out)->duration = h->duration;
    return MN_OK;
}
