/*
 * Building runtime clips: tracks are checked (component counts, finite
 * times), copied into one block laid out for sampling (see clip_internal.h),
 * and their keys sorted by time when they are not already.  The sampling side
 * lives in clip.c.
 */
#include "anim/clip_internal.h"

#include "core/internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CLIP_ALIGN 16u

static const char *const PATH_NAMES[] = {"translation", "rotation", "scale", "weights"};

/* Where an error points: "tracks[3]" for mn_clip_create, "animations[0].channels[5]" for glTF. */
typedef struct item_names {
    const char *prefix;          /* "tracks" or "animations[0].channels" */
    const uint32_t *source;      /* source index of each track, NULL: the track index itself */
} item_names;

static mn_status track_error(mn_error *err, mn_status code, const item_names *names, uint32_t i,
                             const char *what)
{
    char path[96];
    snprintf(path, sizeof path, "%s[%u]", names->prefix, names->source ? names->source[i] : i);
    return mn_error_set(err, code, path, -1, "%s: %s", path, what);
}

/* Floats per key: one element, or three (in-tangent, value, out-tangent) for CUBICSPLINE. */
static size_t floats_per_key(const mn_track *t)
{
    return (size_t)t->components * (t->interpolation == MN_INTERP_CUBICSPLINE ? 3u : 1u);
}

/* *cursor rounded up to align, then advanced by bytes; false on overflow. */
static bool reserve(size_t *cursor, size_t bytes, size_t align, size_t *offset)
{
    size_t at;
    if (!mn_checked_add(*cursor, align - 1, &at))
        return false;
    at &= ~(align - 1);
    *offset = at;
    return mn_checked_add(at, bytes, cursor);
}

/* Bytes of a track's keys (times and values, each 16-aligned); false on overflow. */
static bool key_bytes(const mn_track *t, size_t *times_bytes, size_t *values_bytes)
{
    size_t n;
    return mn_checked_mul(t->key_count, sizeof(float), times_bytes) &&
           mn_checked_mul(t->key_count, floats_per_key(t), &n) &&
           mn_checked_mul(n, sizeof(float), values_bytes);
}

/* Everything mn_clip_create refuses about one track. */
static mn_status check_track(const mn_track *t, uint32_t i, const item_names *names, mn_error *err)
{
    char what[160];
    if ((unsigned)t->path > MN_PATH_WEIGHTS) {
        snprintf(what, sizeof what, "path %u is not translation, rotation, scale or weights",
                 (unsigned)t->path);
        return track_error(err, MN_INVALID_ARGUMENT, names, i, what);
    }
    if ((unsigned)t->interpolation > MN_INTERP_CUBICSPLINE) {
        snprintf(what, sizeof what, "interpolation %u is not LINEAR, STEP or CUBICSPLINE",
                 (unsigned)t->interpolation);
        return track_error(err, MN_INVALID_ARGUMENT, names, i, what);
    }
    static const uint32_t expected[] = {3, 4, 3};
    if (t->path == MN_PATH_WEIGHTS ? t->components < 1 : t->components != expected[t->path]) {
        if (t->path == MN_PATH_WEIGHTS)
            snprintf(what, sizeof what, "a weights track needs at least 1 component, it has 0");
        else
            snprintf(what, sizeof what, "a %s track has %u components per key, it has %u",
                     PATH_NAMES[t->path], expected[t->path], t->components);
        return track_error(err, MN_INVALID_ARGUMENT, names, i, what);
    }
    if (t->key_count > 0 && (!t->times || !t->values))
        return track_error(err, MN_INVALID_ARGUMENT, names, i,
                           t->times ? "values is NULL" : "times is NULL");
    for (uint32_t k = 0; k < t->key_count; k++) {
        if (!isfinite(t->times[k])) {
            snprintf(what, sizeof what, "key %u has time %g; key times must be finite", k,
                     (double)t->times[k]);
            return track_error(err, MN_NOT_FINITE, names, i, what);
        }
    }
    return MN_OK;
}

static bool is_sorted(const float *times, uint32_t n)
{
    for (uint32_t k = 1; k < n; k++)
        if (times[k] < times[k - 1])
            return false;
    return true;
}

/*
 * order[0..n) = the key indices sorted by time, stably (equal times keep
 * their input order, so a deliberate jump between two keys at one time
 * survives).  Bottom-up merge sort; tmp holds n entries.
 */
static void sort_keys(const float *times, uint32_t n, uint32_t *order, uint32_t *tmp)
{
    for (uint32_t k = 0; k < n; k++)
        order[k] = k;
    uint32_t *src = order, *dst = tmp;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                dst[o++] = times[src[b]] < times[src[a]] ? src[b++] : src[a++];
            while (a < mid)
                dst[o++] = src[a++];
            while (b < hi)
                dst[o++] = src[b++];
        }
        uint32_t *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != order)
        memcpy(order, src, (size_t)n * sizeof *order);
}

/* Copy a track's keys into times/values, in time order (order may be NULL: already sorted). */
static void copy_keys(const mn_track *t, const uint32_t *order, float *times, float *values)
{
    size_t per_key = floats_per_key(t);
    if (!order) {
        memcpy(times, t->times, (size_t)t->key_count * sizeof(float));
        memcpy(values, t->values, (size_t)t->key_count * per_key * sizeof(float));
        return;
    }
    for (uint32_t k = 0; k < t->key_count; k++) {
        times[k] = t->times[order[k]];
        /* A CUBICSPLINE key's in-tangent, value and out-tangent move together. */
        memcpy(values + k * per_key, t->values + order[k] * per_key, per_key * sizeof(float));
    }
}

static mn_status build_clip(const mn_track *tracks, uint32_t track_count, const char *name,
                            const mn_clip_options *options, const item_names *names,
                            mn_clip **out_clip, mn_error *err)
{
    if (!out_clip)
        return mn_error_set(err, MN_INVALID_ARGUMENT, NULL, -1, "out_clip is NULL");
    *out_clip = NULL;
    if (!tracks && track_count > 0)
        return mn_error_set(err, MN_INVALID_ARGUMENT, NULL, -1, "tracks is NULL but track_count is %u",
                            track_count);
    mn_allocator allocator = {0};
    if (options)
        allocator = options->allocator;
    if (!name)
        name = "";

    /* Check every track and size the block. */
    size_t size = sizeof(mn_clip), at, tracks_at, weights_at, name_at, scratch = 0;
    uint32_t weights_count = 0;
    bool ok = reserve(&size, (size_t)track_count * sizeof(mn_track), CLIP_ALIGN, &tracks_at);
    for (uint32_t i = 0; i < track_count; i++) {
        mn_status st = check_track(&tracks[i], i, names, err);
        if (st != MN_OK)
            return st;
        weights_count += tracks[i].path == MN_PATH_WEIGHTS;
        if (!is_sorted(tracks[i].times, tracks[i].key_count) && tracks[i].key_count > scratch)
            scratch = tracks[i].key_count;
    }
    ok = ok && reserve(&size, (size_t)weights_count * sizeof(uint32_t), CLIP_ALIGN, &weights_at);
    ok = ok && reserve(&size, strlen(name) + 1, 1, &name_at);
    for (uint32_t i = 0; ok && i < track_count; i++) {
        size_t tb, vb;
        ok = key_bytes(&tracks[i], &tb, &vb) && reserve(&size, tb, CLIP_ALIGN, &at) &&
             reserve(&size, vb, CLIP_ALIGN, &at);
    }
    if (!ok)
        return mn_error_set(err, MN_OVERFLOW, NULL, -1, "the clip's keys need more bytes than size_t holds");

    char *block = mn_alloc(&allocator, size);
    if (!block)
        return mn_error_set(err, MN_OUT_OF_MEMORY, NULL, -1, "out of memory for a clip of %zu bytes", size);
    uint32_t *order = NULL;
    size_t order_bytes;
    if (!mn_checked_mul(scratch, 2 * sizeof(uint32_t), &order_bytes)) {
        mn_free(&allocator, block, size);
        return mn_error_set(err, MN_OVERFLOW, NULL, -1, "sorting %zu keys needs more bytes than size_t holds",
                            scratch);
    }
    if (scratch > 0 && !(order = mn_alloc(&allocator, order_bytes))) {
        mn_free(&allocator, block, size);
        return mn_error_set(err, MN_OUT_OF_MEMORY, NULL, -1,
                            "out of memory for sorting %zu keys", scratch);
    }

    mn_clip *clip = (mn_clip *)block;
    memset(clip, 0, sizeof *clip);
    clip->allocator = allocator;
    clip->block_size = size;
    clip->track_count = track_count;
    clip->tracks = (mn_track *)(block + tracks_at);
    clip->weights_count = weights_count;
    clip->weights_tracks = (uint32_t *)(block + weights_at);
    memcpy(block + name_at, name, strlen(name) + 1);
    clip->name = block + name_at;

    size_t cursor = name_at + strlen(name) + 1;
    uint32_t w = 0;
    bool any_keys = false;
    float duration = 0.0f;
    for (uint32_t i = 0; i < track_count; i++) {
        const mn_track *src = &tracks[i];
        mn_track *dst = &clip->tracks[i];
        /* The same walk as the sizing pass, which proved none of it overflows. */
        size_t tb = 0, vb = 0, times_at = 0, values_at = 0;
        (void)(key_bytes(src, &tb, &vb) && reserve(&cursor, tb, CLIP_ALIGN, &times_at) &&
               reserve(&cursor, vb, CLIP_ALIGN, &values_at));
        *dst = *src;
        dst->times = src->key_count ? (const float *)(block + times_at) : NULL;
        dst->values = src->key_count ? (const float *)(block + values_at) : NULL;
        if (src->key_count) {
            const uint32_t *perm = NULL;
            if (!is_sorted(src->times, src->key_count)) {
                sort_keys(src->times, src->key_count, order, order + scratch);
                perm = order;
            }
            copy_keys(src, perm, (float *)(block + times_at), (float *)(block + values_at));
            float last = dst->times[dst->key_count - 1];
            duration = any_keys && duration > last ? duration : last;
            any_keys = true;
        }
        if (src->path == MN_PATH_WEIGHTS)
            clip->weights_tracks[w++] = i;
    }
    clip->duration = duration;
    if (order)
        mn_free(&allocator, order, order_bytes);
    *out_clip = clip;
    mn_error_clear(err);
    return MN_OK;
}

mn_status mn_clip_create(const mn_track *tracks, uint32_t track_count, const char *name,
                         const mn_clip_options *options, mn_clip **out_clip, mn_error *err)
{
    item_names names = {"tracks", NULL};
    return build_clip(tracks, track_count, name, options, &names, out_clip, err);
}

mn_status mn_clip_from_gltf(const mn_model *model, uint32_t animation,
                            const mn_clip_options *options, mn_clip **out_clip, mn_error *err)
{
    if (out_clip)
        *out_clip = NULL;
    if (!model)
        return mn_error_set(err, MN_INVALID_ARGUMENT, NULL, -1, "model is NULL");
    if (animation >= model->animation_count)
        return mn_error_set(err, MN_INDEX_RANGE, NULL, -1,
                            "animation %u is out of range (the model has %u)", animation,
                            model->animation_count);
    const mn_animation *anim = &model->animations[animation];
    const uint32_t *map = options ? options->target_map : NULL;
    uint32_t map_count = options ? options->target_map_count : 0;
    char prefix[48];
    snprintf(prefix, sizeof prefix, "animations[%u].channels", animation);

    /* Scratch: one track per channel and the channel each came from (for error paths). */
    mn_allocator allocator = {0};
    if (options)
        allocator = options->allocator;
    size_t n = anim->channel_count;
    size_t scratch_bytes;
    if (!mn_checked_mul(n, sizeof(mn_track) + sizeof(uint32_t), &scratch_bytes))
        return mn_error_set(err, MN_OVERFLOW, NULL, -1, "animations[%u] has too many channels", animation);
    mn_track *tracks = NULL;
    if (n > 0 && !(tracks = mn_alloc(&allocator, scratch_bytes)))
        return mn_error_set(err, MN_OUT_OF_MEMORY, NULL, -1,
                            "out of memory for the %zu channels of animations[%u]", n, animation);
    uint32_t *source = tracks ? (uint32_t *)(tracks + n) : NULL;
    uint32_t count = 0;
    mn_status st = MN_OK;
    for (uint32_t c = 0; c < anim->channel_count; c++) {
        const mn_channel *ch = &anim->channels[c];
        uint32_t target = ch->node;
        if (map) {
            if (ch->node >= map_count) {
                char path[96];
                snprintf(path, sizeof path, "%s[%u]", prefix, c);
                st = mn_error_set(err, MN_INDEX_RANGE, path, -1,
                                  "%s: node %u is outside target_map (%u entries)", path, ch->node,
                                  map_count);
                break;
            }
            target = map[ch->node];
            if (target == MN_NONE)
                continue; /* the caller drops channels on nodes it does not drive */
        }
        mn_track *t = &tracks[count];
        t->target = target;
        t->path = ch->path;
        t->interpolation = ch->interpolation;
        t->key_count = ch->key_count;
        t->components = ch->components;
        t->times = ch->times;
        t->values = ch->values;
        source[count++] = c;
    }
    if (st == MN_OK) {
        item_names names = {prefix, source};
        st = build_clip(tracks, count, anim->name, options, &names, out_clip, err);
    }
    if (tracks)
        mn_free(&allocator, tracks, scratch_bytes);
    return st;
}

void mn_clip_free(mn_clip *clip)
{
    if (!clip)
        return;
    mn_allocator allocator = clip->allocator;
    mn_free(&allocator, clip, clip->block_size);
}

const char *mn_clip_name(const mn_clip *clip)
{
    return clip ? clip->name : "";
}

float mn_clip_duration(const mn_clip *clip)
{
    return clip ? clip->duration : 0.0f;
}

uint32_t mn_clip_track_count(const mn_clip *clip)
{
    return clip ? clip->track_count : 0;
}

const mn_track *mn_clip_track(const mn_clip *clip, uint32_t index)
{
    return clip && index < clip->track_count ? &clip->tracks[index] : NULL;
}
