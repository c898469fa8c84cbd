/*
 * Building runtime clips: tracks are checked (component counts, finite
 * times), planned — tracks with bit-identical time arrays share one copy (a
 * timeline), pose tracks are grouped by timeline, path and interpolation
 * for the sampler (those of timelines with at most CLIP_SOLO_MAX pose
 * tracks go to the solo loop instead), a track another later one
 * overrides is left out of sampling — and copied into one block laid out
 * for sampling (see clip_internal.h), keys sorted by time when they are not
 * already.  The sampling side lives in clip.c.
 */
#include "anim/clip_internal.h"
#include "anim/skeleton_internal.h"
#include "anim/space_internal.h"

#include "core/core.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define CLIP_ALIGN 16u

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
    return mni_error_set(err, code, path, -1, "%s: %s", path, what);
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
    if (!mni_checked_add(*cursor, align - 1, &at))
        return false;
    at &= ~(align - 1);
    *offset = at;
    return mni_checked_add(at, bytes, cursor);
}

/* Bytes of a track's keys (times and values, each 16-aligned); false on overflow. */
static bool key_bytes(const mn_track *t, size_t *times_bytes, size_t *values_bytes)
{
    size_t n;
    return mni_checked_mul(t->key_count, sizeof(float), times_bytes) &&
           mni_checked_mul(t->key_count, floats_per_key(t), &n) &&
           mni_checked_mul(n, sizeof(float), values_bytes);
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
                     mn_anim_path_name(t->path), expected[t->path], t->components);
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

/* before(ctx, a, b): item a must come before item b (a strict order). */
typedef bool (*before_fn)(const void *ctx, uint32_t a, uint32_t b);

/*
 * Sort order[0..n) stably by before: items neither before the other keep
 * their order, so a deliberate jump between two keys at one time survives,
 * and a group of equal tracks keeps input order.  Bottom-up merge sort; tmp
 * holds n entries.
 */
static void merge_sort(uint32_t *order, size_t n, uint32_t *tmp, before_fn before, const void *ctx)
{
    uint32_t *src = order, *dst = tmp;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                dst[o++] = before(ctx, src[b], src[a]) ? src[b++] : src[a++];
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
        memcpy(order, src, n * sizeof *order);
}

static bool key_before(const void *ctx, uint32_t a, uint32_t b)
{
    const float *times = ctx;
    return times[a] < times[b];
}

/* order[0..n) = the key indices sorted by time, stably; tmp holds n entries. */
static void sort_keys(const float *times, uint32_t n, uint32_t *order, uint32_t *tmp)
{
    for (uint32_t k = 0; k < n; k++)
        order[k] = k;
    merge_sort(order, n, tmp, key_before, times);
}

/* Copy n times in time order (order NULL: already sorted). */
static void copy_times(const float *src, uint32_t n, const uint32_t *order, float *times)
{
    if (!order) {
        memcpy(times, src, (size_t)n * sizeof(float));
        return;
    }
    for (uint32_t k = 0; k < n; k++)
        times[k] = src[order[k]];
}

/* Copy a track's values in time order (order NULL: already sorted). */
static void copy_values(const mn_track *t, const uint32_t *order, float *values)
{
    size_t per_key = floats_per_key(t);
    if (!order) {
        memcpy(values, t->values, (size_t)t->key_count * per_key * sizeof(float));
        return;
    }
    /* A CUBICSPLINE key's in-tangent, value and out-tangent move together. */
    for (uint32_t k = 0; k < t->key_count; k++)
        memcpy(values + k * per_key, t->values + order[k] * per_key, per_key * sizeof(float));
}

/* ---- the plan: which tracks share times, which are sampled, in what order ---------------- */

/*
 * Bookkeeping for laying a clip out, one entry per input track (on the
 * stack for small clips, else in the build's scratch).
 */
typedef struct plan {
    const mn_track *tracks;
    uint32_t count;
    uint32_t *leader;            /* the first input track with the same time array */
    uint32_t *sampled;           /* IN_RUN or SOLO: written into poses (see clip_internal.h); 0: not */
    uint32_t *order;             /* sampling position -> input track */
    uint32_t *timeline;          /* at a leader: its timeline; sort scratch before that */
    uint32_t timeline_count, run_count;
    uint32_t solo_count[CLIP_SOLO_KINDS];
} plan;

/* How a pose track is sampled: in a run of its timeline's, or by the solo loop. */
enum { IN_RUN = 2, SOLO = 1 };

/* A solo track's kind: its path (translation, rotation, scale) and interpolation. */
static uint32_t solo_kind(const mn_track *t)
{
    return (uint32_t)t->path * 3u + (uint32_t)t->interpolation;
}

/* A total order on time arrays — key count, then bytes — that puts identical ones side by side. */
static int times_compare(const mn_track *a, const mn_track *b)
{
    if (a->key_count != b->key_count)
        return a->key_count < b->key_count ? -1 : 1;
    if (a->times == b->times || a->key_count == 0)
        return 0;
    return memcmp(a->times, b->times, (size_t)a->key_count * sizeof(float));
}

static bool times_before(const void *ctx, uint32_t a, uint32_t b)
{
    const mn_track *t = ctx;
    return times_compare(&t[a], &t[b]) < 0;
}

/* The pose property a track writes: path, then target. */
static bool slot_before(const void *ctx, uint32_t a, uint32_t b)
{
    const mn_track *ta = &((const mn_track *)ctx)[a], *tb = &((const mn_track *)ctx)[b];
    return ta->path != tb->path ? ta->path < tb->path : ta->target < tb->target;
}

/* Sampling order: sampled first, then by timeline, path, interpolation, target. */
static bool sampling_before(const void *ctx, uint32_t a, uint32_t b)
{
    const plan *p = ctx;
    const mn_track *ta = &p->tracks[a], *tb = &p->tracks[b];
    if (p->sampled[a] != p->sampled[b])
        return p->sampled[a] > p->sampled[b];
    if (p->leader[a] != p->leader[b])
        return p->leader[a] < p->leader[b];
    if (ta->path != tb->path)
        return ta->path < tb->path;
    if (ta->interpolation != tb->interpolation)
        return ta->interpolation < tb->interpolation;
    return ta->target < tb->target;
}

/* Does sampled track b continue the run of sampled track a? */
static bool same_run(const plan *p, uint32_t a, uint32_t b)
{
    return p->leader[a] == p->leader[b] && p->tracks[a].path == p->tracks[b].path &&
           p->tracks[a].interpolation == p->tracks[b].interpolation;
}

static void plan_clip(plan *p)
{
    uint32_t n = p->count, *tmp = p->timeline;
    const mn_track *tracks = p->tracks;

    /* Identical time arrays end up adjacent, in input order: the first is the group's leader. */
    for (uint32_t i = 0; i < n; i++)
        p->order[i] = i;
    merge_sort(p->order, n, tmp, times_before, tracks);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t i = p->order[j], prev = j > 0 ? p->order[j - 1] : i;
        bool shared = j > 0 && tracks[i].key_count > 0 && times_compare(&tracks[prev], &tracks[i]) == 0;
        p->leader[i] = shared ? p->leader[prev] : i;
    }

    /*
     * Sampling in input order, a later track on the same target and path
     * overwrote an earlier one; grouping would change which one wins, so the
     * overridden tracks are left out of sampling.  (A track with no keys
     * writes nothing and overrides nothing.)
     */
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        p->sampled[i] = tracks[i].path != MN_PATH_WEIGHTS && tracks[i].key_count > 0;
        if (p->sampled[i])
            p->order[m++] = i;
    }
    merge_sort(p->order, m, tmp, slot_before, tracks);
    for (uint32_t j = 0; j + 1 < m; j++)
        if (!slot_before(tracks, p->order[j], p->order[j + 1]))
            p->sampled[p->order[j]] = 0;

    for (uint32_t i = 0; i < n; i++)
        p->order[i] = i;
    merge_sort(p->order, n, tmp, sampling_before, p);

    /*
     * A timeline of few pose tracks would be runs of one or two, each paying
     * a search and a dispatch: its tracks go to the solo loop instead (the
     * sampled tracks lead the order, grouped by timeline), and the order is
     * made again so that run tracks come first, then solo ones.
     */
    for (uint32_t j = 0; j < n && p->sampled[p->order[j]];) {
        uint32_t e = j + 1, lead = p->leader[p->order[j]];
        while (e < n && p->sampled[p->order[e]] && p->leader[p->order[e]] == lead)
            e++;
        uint32_t how = e - j <= CLIP_SOLO_MAX ? SOLO : IN_RUN;
        for (; j < e; j++)
            p->sampled[p->order[j]] = how;
    }
    for (uint32_t i = 0; i < n; i++)
        p->order[i] = i;
    merge_sort(p->order, n, tmp, sampling_before, p);

    /* Timelines numbered as they first appear in sampling order (pose ones first), and runs. */
    for (uint32_t i = 0; i < n; i++)
        p->timeline[i] = MN_NONE;
    p->timeline_count = p->run_count = 0;
    memset(p->solo_count, 0, sizeof p->solo_count);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t i = p->order[j];
        if (tracks[i].key_count == 0)
            continue;
        if (p->timeline[p->leader[i]] == MN_NONE)
            p->timeline[p->leader[i]] = p->timeline_count++;
        if (p->sampled[i] == SOLO)
            p->solo_count[solo_kind(&tracks[i])]++;
        if (p->sampled[i] == IN_RUN &&
            (j == 0 || p->sampled[p->order[j - 1]] != IN_RUN || !same_run(p, p->order[j - 1], i)))
            p->run_count++;
    }
}

/* A solo track's record: its keys (in the block) and its span guess. */
static mn_clip_solo solo_of(const mn_track *t, uint32_t timeline)
{
    uint32_t n = t->key_count;
    double range = (double)t->times[n - 1] - (double)t->times[0];
    double rate = range > 0.0 ? (double)(n - 1) / range : 0.0;
    return (mn_clip_solo){t->times,
                          t->values,
                          t->times[0],
                          t->times[n - 1],
                          rate < (double)FLT_MAX ? (float)rate : FLT_MAX,
                          n >= 2 ? (float)(n - 2) : 0.0f,
                          n,
                          t->target,
                          timeline};
}

/*
 * The keys' part of the block, walked in sampling order: a timeline's times
 * where it first appears, then each track's values.  Measures only (block
 * NULL; false on overflow), or lays the keys out and fills clip's tracks,
 * timelines and runs.  key_order: 2 × scratch_keys entries for sorting keys.
 */
static bool place_keys(const plan *p, size_t *cursor, char *block, mn_clip *clip, uint32_t *key_order,
                       size_t scratch_keys)
{
    uint32_t next_timeline = 0, run = 0, perm_leader = MN_NONE, solo_at[CLIP_SOLO_KINDS];
    const uint32_t *perm = NULL;
    if (block)
        memcpy(solo_at, clip->solo_first, sizeof solo_at);
    for (uint32_t j = 0; j < p->count; j++) {
        uint32_t i = p->order[j];
        const mn_track *src = &p->tracks[i];
        mn_track *dst = block ? &clip->tracks[j] : NULL;
        if (dst) {
            *dst = *src;
            dst->times = NULL;
            dst->values = NULL;
            clip->track_of_input[i] = j;
        }
        if (src->key_count == 0)
            continue;
        uint32_t leader = p->leader[i], tl = p->timeline[leader];
        size_t tb, vb, times_at, values_at;
        if (!key_bytes(src, &tb, &vb))
            return false;
        if (block && perm_leader != leader) {
            /* Tracks sharing a time array share its key order too. */
            perm = NULL;
            if (!is_sorted(src->times, src->key_count)) {
                sort_keys(src->times, src->key_count, key_order, key_order + scratch_keys);
                perm = key_order;
            }
            perm_leader = leader;
        }
        if (tl == next_timeline) {
            if (!reserve(cursor, tb, CLIP_ALIGN, &times_at))
                return false;
            if (block) {
                float *times = (float *)(block + times_at);
                copy_times(src->times, src->key_count, perm, times);
                clip->timelines[tl] = (mn_clip_timeline){times, src->key_count, 0, 0};
            }
            next_timeline++;
        }
        if (!reserve(cursor, vb, CLIP_ALIGN, &values_at))
            return false;
        if (!block)
            continue;
        copy_values(src, perm, (float *)(block + values_at));
        dst->times = clip->timelines[tl].times;
        dst->values = (const float *)(block + values_at);
        if (p->sampled[i] == SOLO) {
            clip->solos[solo_at[solo_kind(src)]++] = solo_of(dst, tl);
            continue;
        }
        if (p->sampled[i] != IN_RUN)
            continue;
        if (run == 0 || !same_run(p, p->order[clip->runs[run - 1].first], i)) {
            mn_clip_timeline *line = &clip->timelines[tl];
            if (line->run_count == 0)
                line->first_run = run;
            line->run_count++;
            clip->runs[run++] = (mn_clip_run){j, 0, src->path, src->interpolation};
        }
        clip->runs[run - 1].count++;
    }
    return true;
}

/* Tracks whose plan fits on the stack (a clip this small takes no scratch for it). */
#define SMALL_CLIP 16u

/* A bound space's targets must be inside it: a pose of that space has no other joints. */
static mn_status check_space(const mn_track *tracks, uint32_t track_count, mn_space space,
                             const item_names *names, mn_error *err)
{
    if (space.kind == MN_SPACE_UNBOUND)
        return MN_OK;
    if (space.kind != MN_SPACE_NODES && space.kind != MN_SPACE_JOINTS)
        return mni_fail(err, MN_INVALID_ARGUMENT, "clip options: unknown space kind %d",
                        (int)space.kind);
    for (uint32_t i = 0; i < track_count; i++) {
        if (tracks[i].target < space.count)
            continue;
        char what[96];
        snprintf(what, sizeof what, "target %u is outside the clip's space (%u %s)",
                 tracks[i].target, space.count, space.kind == MN_SPACE_NODES ? "nodes" : "joints");
        return track_error(err, MN_INDEX_RANGE, names, i, what);
    }
    return MN_OK;
}

/* A pointer track's floats of values: key_count × components (× 3 for CUBICSPLINE). */
static size_t pointer_values(const mn_pointer_track *t)
{
    return (size_t)t->key_count * t->components * (t->interpolation == MN_INTERP_CUBICSPLINE ? 3u : 1u);
}

/*
 * The pointer tracks' part of the block: the records, then each one's text,
 * times and values.  Measures only (block NULL; false on overflow), or
 * copies them into the clip.  The reader checked their keys.
 */
static bool place_pointers(const mn_pointer_track *src, uint32_t count, size_t *cursor, char *block,
                           mn_clip *clip)
{
    size_t records_at;
    if (!reserve(cursor, (size_t)count * sizeof(mn_pointer_track), CLIP_ALIGN, &records_at))
        return false;
    if (block) {
        clip->pointer_count = count;
        clip->pointers = (mn_pointer_track *)(block + records_at);
    }
    for (uint32_t i = 0; i < count; i++) {
        const mn_pointer_track *t = &src[i];
        const char *text = t->pointer.text ? t->pointer.text : "";
        size_t text_at, times_at, values_at, tb, vb;
        if (!mni_checked_mul(t->key_count, sizeof(float), &tb) ||
            !mni_checked_mul(pointer_values(t), sizeof(float), &vb) ||
            !reserve(cursor, strlen(text) + 1, 1, &text_at) || !reserve(cursor, tb, CLIP_ALIGN, &times_at) ||
            !reserve(cursor, vb, CLIP_ALIGN, &values_at))
            return false;
        if (!block)
            continue;
        mn_pointer_track *d = &clip->pointers[i];
        *d = *t;
        memcpy(block + text_at, text, strlen(text) + 1);
        d->pointer.text = block + text_at;
        if (tb)
            memcpy(block + times_at, t->times, tb);
        if (vb)
            memcpy(block + values_at, t->values, vb);
        d->times = (const float *)(block + times_at);
        d->values = (const float *)(block + values_at);
        clip->pointer_floats += t->components;
    }
    return true;
}

static mn_status build_clip(const mn_track *tracks, uint32_t track_count,
                            const mn_pointer_track *pointers, uint32_t pointer_count, const char *name,
                            const mn_clip_options *options, mn_space space,
                            const item_names *names, mn_clip **out_clip, mn_error *err)
{
    if (!out_clip)
        return mni_fail(err, MN_INVALID_ARGUMENT, "out_clip is NULL");
    *out_clip = NULL;
    if (!tracks && track_count > 0)
        return mni_fail(err, MN_INVALID_ARGUMENT, "tracks is NULL but track_count is %u",
                        track_count);
    mn_allocator allocator = {0};
    if (options)
        allocator = options->allocator;
    if (!name)
        name = "";

    /* Check every track; scratch: sorting the longest unsorted keys, and the plan unless small. */
    size_t scratch_keys = 0, weights_count = 0;
    for (uint32_t i = 0; i < track_count; i++) {
        mn_status st = check_track(&tracks[i], i, names, err);
        if (st != MN_OK)
            return st;
        weights_count += tracks[i].path == MN_PATH_WEIGHTS;
        if (!is_sorted(tracks[i].times, tracks[i].key_count) && tracks[i].key_count > scratch_keys)
            scratch_keys = tracks[i].key_count;
    }
    mn_status space_st = check_space(tracks, track_count, space, names, err);
    if (space_st != MN_OK)
        return space_st;
    size_t plan_entries = track_count > SMALL_CLIP ? (size_t)track_count : 0, scratch_bytes;
    if (!mni_checked_mul(2 * scratch_keys + 4 * plan_entries, sizeof(uint32_t), &scratch_bytes))
        return mni_fail(err, MN_OVERFLOW,
                        "building a clip of %u tracks needs more bytes than size_t holds",
                        track_count);
    uint32_t *scratch = NULL;
    if (scratch_bytes > 0 && !(scratch = mni_alloc(&allocator, scratch_bytes)))
        return mni_oom(err, "building a clip of %u tracks", track_count);
    uint32_t small[4 * SMALL_CLIP];
    uint32_t *per_track = plan_entries ? scratch + 2 * scratch_keys : small;
    plan p = {tracks, track_count, per_track, per_track + track_count, per_track + 2 * (size_t)track_count,
              per_track + 3 * (size_t)track_count, 0, 0, {0}};
    plan_clip(&p);

    /* Size the block. */
    size_t size = sizeof(mn_clip), tracks_at, input_at, weights_at, timelines_at, runs_at, solos_at;
    size_t name_at;
    uint32_t solo_total = 0;
    for (uint32_t k = 0; k < CLIP_SOLO_KINDS; k++)
        solo_total += p.solo_count[k];
    bool ok = reserve(&size, (size_t)track_count * sizeof(mn_track), CLIP_ALIGN, &tracks_at) &&
              reserve(&size, (size_t)track_count * sizeof(uint32_t), CLIP_ALIGN, &input_at) &&
              reserve(&size, weights_count * sizeof(uint32_t), CLIP_ALIGN, &weights_at) &&
              reserve(&size, (size_t)p.timeline_count * sizeof(mn_clip_timeline), CLIP_ALIGN, &timelines_at) &&
              reserve(&size, (size_t)p.run_count * sizeof(mn_clip_run), CLIP_ALIGN, &runs_at) &&
              reserve(&size, (size_t)solo_total * sizeof(mn_clip_solo), CLIP_ALIGN, &solos_at) &&
              reserve(&size, strlen(name) + 1, 1, &name_at);
    size_t pointers_at = size;
    ok = ok && place_pointers(pointers, pointer_count, &size, NULL, NULL);
    size_t keys_at = size, pad_at;
    /* The sampler's SSE2 lerp loads four floats at a 3-float key: 16 zero bytes keep the last in the block. */
    ok = ok && place_keys(&p, &size, NULL, NULL, NULL, 0) && reserve(&size, CLIP_TAIL_PAD, 1, &pad_at);
    char *block = ok ? mni_alloc(&allocator, size) : NULL;
    if (!block) {
        if (scratch)
            mni_free(&allocator, scratch, scratch_bytes);
        return ok ? mni_oom(err, "a clip of %zu bytes", size)
                  : mni_fail(err, MN_OVERFLOW, "the clip's keys need more bytes than size_t holds");
    }

    mn_clip *clip = (mn_clip *)block;
    memset(clip, 0, sizeof *clip);
    clip->allocator = allocator;
    clip->block_size = size;
    clip->track_count = track_count;
    clip->tracks = (mn_track *)(block + tracks_at);
    clip->track_of_input = (uint32_t *)(block + input_at);
    clip->weights_count = (uint32_t)weights_count;
    clip->weights_tracks = (uint32_t *)(block + weights_at);
    clip->timeline_count = p.timeline_count;
    clip->timelines = (mn_clip_timeline *)(block + timelines_at);
    clip->run_count = p.run_count;
    clip->runs = (mn_clip_run *)(block + runs_at);
    clip->solos = (mn_clip_solo *)(block + solos_at);
    for (uint32_t k = 0; k < CLIP_SOLO_KINDS; k++)
        clip->solo_first[k + 1] = clip->solo_first[k] + p.solo_count[k];
    memcpy(block + name_at, name, strlen(name) + 1);
    clip->name = block + name_at;
    clip->space = space;
    /* The same walks as the sizing pass, which proved none of it overflows. */
    (void)place_pointers(pointers, pointer_count, &pointers_at, block, clip);
    (void)place_keys(&p, &keys_at, block, clip, scratch, scratch_keys);
    memset(block + pad_at, 0, CLIP_TAIL_PAD);

    uint32_t w = 0;
    for (uint32_t i = 0; i < track_count; i++)
        if (tracks[i].path == MN_PATH_WEIGHTS)
            clip->weights_tracks[w++] = clip->track_of_input[i];
    float duration = 0.0f;
    for (uint32_t l = 0; l < clip->timeline_count; l++) {
        float last = clip->timelines[l].times[clip->timelines[l].key_count - 1];
        duration = l > 0 && duration > last ? duration : last;
    }
    for (uint32_t i = 0; i < pointer_count; i++)
        if (pointers[i].key_count > 0 && pointers[i].times[pointers[i].key_count - 1] > duration)
            duration = pointers[i].times[pointers[i].key_count - 1];
    clip->duration = duration;
    if (scratch)
        mni_free(&allocator, scratch, scratch_bytes);
    *out_clip = clip;
    mni_error_clear(err);
    return MN_OK;
}

mn_status mn_clip_create(const mn_track *tracks, uint32_t track_count, const char *name,
                         const mn_clip_options *options, mn_clip **out_clip, mn_error *err)
{
    item_names names = {"tracks", NULL};
    mn_space space = options ? options->space : (mn_space){0};
    return build_clip(tracks, track_count, NULL, 0, name, options, space, &names, out_clip, err);
}

/* A KHR_animation_pointer channel that stays a pointer track (no node, no mesh's weights). */
static bool is_pointer_track(const mn_channel *ch)
{
    if (ch->path != MN_PATH_POINTER)
        return false;
    mn_pointer_property p = ch->pointer.property;
    return p != MN_PROP_NODE_TRANSLATION && p != MN_PROP_NODE_ROTATION && p != MN_PROP_NODE_SCALE &&
           p != MN_PROP_NODE_WEIGHTS && p != MN_PROP_MESH_WEIGHTS;
}

/*
 * The node tracks channel c of anim makes: returns how many (1 for a core
 * channel or a node pointer; for a mesh-weights pointer, the nodes that show
 * the mesh without weights of their own, nor a weights channel of their own
 * (own[node]); 0 for a pointer track).  Each one's node goes to nodes[] and
 * its path to *path, unless nodes is NULL (counting).
 */
static uint32_t node_tracks_of(const mn_model *model, const mn_channel *ch, const bool *own,
                               uint32_t *nodes, mn_anim_path *path)
{
    if (ch->path != MN_PATH_POINTER) {
        if (nodes)
            nodes[0] = ch->node, *path = ch->path;
        return 1;
    }
    if (is_pointer_track(ch))
        return 0;
    static const mn_anim_path paths[] = {[MN_PROP_NODE_TRANSLATION] = MN_PATH_TRANSLATION,
                                         [MN_PROP_NODE_ROTATION] = MN_PATH_ROTATION,
                                         [MN_PROP_NODE_SCALE] = MN_PATH_SCALE,
                                         [MN_PROP_NODE_WEIGHTS] = MN_PATH_WEIGHTS};
    if (ch->pointer.property != MN_PROP_MESH_WEIGHTS) {
        if (nodes)
            nodes[0] = ch->pointer.index, *path = paths[ch->pointer.property];
        return 1;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < model->node_count; i++) {
        const mn_node *nd = &model->nodes[i];
        if (nd->mesh != ch->pointer.index || nd->weights || own[i])
            continue;
        if (nodes)
            nodes[k] = i, *path = MN_PATH_WEIGHTS;
        k++;
    }
    return k;
}

/* model->animations[animation], channels' nodes mapped through `map` (NULL: none), in `space`. */
static mn_status clip_from_gltf(const mn_model *model, uint32_t animation, const uint32_t *map,
                                uint32_t map_count, mn_space space, const mn_clip_options *options,
                                mn_clip **out_clip, mn_error *err)
{
    if (out_clip)
        *out_clip = NULL;
    if (!model)
        return mni_fail(err, MN_INVALID_ARGUMENT, "model is NULL");
    if (animation >= model->animation_count)
        return mni_fail(err, MN_INDEX_RANGE, "animation %u is out of range (the model has %u)",
                        animation, model->animation_count);
    const mn_animation *anim = &model->animations[animation];
    char prefix[48];
    snprintf(prefix, sizeof prefix, "animations[%u].channels", animation);

    /* Scratch: the pointer tracks; the tracks (a mesh-weights pointer may make several) and the
       channel each came from (for error paths), then their nodes; which nodes have a weights
       channel of their own. */
    mn_allocator allocator = {0};
    if (options)
        allocator = options->allocator;
    size_t own_bytes = model->node_count ? model->node_count : 1;
    bool *own = mni_alloc(&allocator, own_bytes);
    if (!own)
        return mni_oom(err, "the nodes of animations[%u]", animation);
    memset(own, 0, own_bytes);
    for (uint32_t c = 0; c < anim->channel_count; c++) {
        const mn_channel *ch = &anim->channels[c];
        if (ch->path == MN_PATH_WEIGHTS && ch->node < model->node_count)
            own[ch->node] = true;
        if (ch->path == MN_PATH_POINTER && ch->pointer.property == MN_PROP_NODE_WEIGHTS &&
            ch->pointer.index < model->node_count)
            own[ch->pointer.index] = true;
    }
    size_t n = 0, np = 0;
    for (uint32_t c = 0; c < anim->channel_count; c++)
        n += node_tracks_of(model, &anim->channels[c], own, NULL, NULL),
            np += is_pointer_track(&anim->channels[c]);
    size_t track_bytes, pointer_bytes, scratch_bytes = 0;
    bool fits = mni_checked_mul(n, sizeof(mn_track) + 2 * sizeof(uint32_t), &track_bytes) &&
                mni_checked_mul(np, sizeof(mn_pointer_track), &pointer_bytes) &&
                mni_checked_add(track_bytes, pointer_bytes, &scratch_bytes);
    mn_pointer_track *pointers = NULL;
    if (!fits || (scratch_bytes > 0 && !(pointers = mni_alloc(&allocator, scratch_bytes)))) {
        mni_free(&allocator, own, own_bytes);
        return fits ? mni_oom(err, "the %u channels of animations[%u]", anim->channel_count, animation)
                    : mni_fail(err, MN_OVERFLOW, "animations[%u] has too many channels", animation);
    }
    mn_track *tracks = pointers ? (mn_track *)(pointers + np) : NULL;
    uint32_t *source = tracks ? (uint32_t *)(tracks + n) : NULL;
    uint32_t *nodes = source ? source + n : NULL;
    uint32_t count = 0, pcount = 0;
    mn_status st = MN_OK;
    for (uint32_t c = 0; c < anim->channel_count && st == MN_OK; c++) {
        const mn_channel *ch = &anim->channels[c];
        if (is_pointer_track(ch)) {
            pointers[pcount++] = (mn_pointer_track){ch->pointer, ch->interpolation, ch->key_count,
                                                   ch->components, ch->times, ch->values};
            continue;
        }
        mn_anim_path path = MN_PATH_TRANSLATION;
        uint32_t k = node_tracks_of(model, ch, own, nodes + count, &path);
        for (uint32_t e = 0; e < k; e++) {
            uint32_t target = nodes[count];
            if (map) {
                if (target >= map_count) {
                    char at[96];
                    snprintf(at, sizeof at, "%s[%u]", prefix, c);
                    st = mni_error_set(err, MN_INDEX_RANGE, at, -1,
                                       "%s: node %u is outside target_map (%u entries)", at, target,
                                       map_count);
                    break;
                }
                target = map[target];
                if (target == MN_NONE) { /* the caller drops channels on nodes it does not drive */
                    memmove(nodes + count, nodes + count + 1, (size_t)(k - e - 1) * sizeof *nodes);
                    continue;
                }
            }
            mn_track *t = &tracks[count];
            t->target = target;
            t->path = path;
            t->interpolation = ch->interpolation;
            t->key_count = ch->key_count;
            t->components = ch->components;
            t->times = ch->times;
            t->values = ch->values;
            source[count++] = c;
        }
    }
    mni_free(&allocator, own, own_bytes);
    if (st == MN_OK) {
        item_names names = {prefix, source};
        st = build_clip(tracks, count, pointers, pcount, anim->name, options, space, &names, out_clip, err);
    }
    if (pointers)
        mni_free(&allocator, pointers, scratch_bytes);
    return st;
}

mn_status mn_clip_from_gltf(const mn_model *model, uint32_t animation,
                            const mn_clip_options *options, mn_clip **out_clip, mn_error *err)
{
    if (options && options->target_map)
        return clip_from_gltf(model, animation, options->target_map, options->target_map_count,
                              options->space, options, out_clip, err);
    /* Targets are node indices: the clip is over the model's nodes, whatever options say. */
    return clip_from_gltf(model, animation, NULL, 0, mn_space_of_nodes(model), options, out_clip,
                          err);
}

mn_status mn_clip_from_gltf_skeleton(const mn_model *model, uint32_t animation,
                                     const mn_skeleton *skeleton, const mn_clip_options *options,
                                     mn_clip **out_clip, mn_error *err)
{
    if (out_clip)
        *out_clip = NULL;
    if (!model || !skeleton)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_clip_from_gltf_skeleton: NULL model or skeleton");
    if (options && (options->target_map || options->space.kind != MN_SPACE_UNBOUND))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_clip_from_gltf_skeleton: the skeleton gives the target map and the "
                        "space; options must not");
    mn_space nodes = mn_space_of_nodes(model);
    if (skeleton->node_count != model->node_count || mni_skeleton_nodes_id(skeleton) != nodes.id)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_clip_from_gltf_skeleton: the skeleton was made from another model "
                        "(%u nodes, space %016" PRIx64 "; this model: %u nodes, space %016" PRIx64
                        ")",
                        skeleton->node_count, mni_skeleton_nodes_id(skeleton), model->node_count,
                        nodes.id);
    return clip_from_gltf(model, animation, skeleton->joint_of_node, skeleton->node_count,
                          skeleton->space, options, out_clip, err);
}

void mn_clip_free(mn_clip *clip)
{
    if (!clip)
        return;
    mn_allocator allocator = clip->allocator;
    if (clip->compressed_prepared)
        mni_free(&allocator, clip->compressed_prepared, clip->compressed_prepared_bytes);
    mni_free(&allocator, clip, clip->block_size);
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
    return clip && index < clip->track_count ? &clip->tracks[clip->track_of_input[index]] : NULL;
}

mn_space mn_clip_space(const mn_clip *clip)
{
    return clip ? clip->space : (mn_space){0};
}

uint32_t mn_clip_pointer_count(const mn_clip *clip)
{
    return clip ? clip->pointer_count : 0;
}

const mn_pointer_track *mn_clip_pointer(const mn_clip *clip, uint32_t index)
{
    return clip && index < clip->pointer_count ? &clip->pointers[index] : NULL;
}

uint32_t mn_clip_pointer_floats(const mn_clip *clip)
{
    return clip ? clip->pointer_floats : 0;
}
