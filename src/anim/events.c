/*
 * Event tracks: named events at times on a clip's axis, and the walk over
 * the occurrences a span of playback crossed (the rules: marionette/events.h).
 *
 * A track keeps its events sorted by time (stably), so "event order" for
 * ties is a position in one array.  A walk hands occurrences out one at a
 * time in (time, position) order by keeping only the last one handed out:
 * the next is the least occurrence after it over every event, found per
 * event by arithmetic on its period.  That costs the track's length per
 * occurrence, which for the handful of events a clip carries is cheaper
 * than any sorting, and it needs no memory, which is what lets the state
 * machine merge many leaves' walks per frame without allocating.
 */
#include <marionette/events.h>

#include "anim/events_internal.h"
#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct mn_clip_events {
    mn_allocator allocator;
    size_t block_size;
    uint32_t count;
    float *times;            /* by position (time order) */
    uint32_t *declared;      /* declared index of the event at each position */
    uint32_t *position;      /* position of each declared event */
    const char **names;      /* by position */
};

/* ---- building -------------------------------------------------------------- */

/* Stable insertion sort of positions by time: tracks hold a handful of events. */
static void sort_by_time(const mn_event_key *keys, uint32_t count, uint32_t *order)
{
    for (uint32_t i = 0; i < count; i++) {
        uint32_t j = i;
        while (j > 0 && keys[order[j - 1]].time > keys[i].time) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
}

static mn_status check_keys(const mn_event_key *keys, uint32_t count, size_t *name_bytes,
                            mn_error *err)
{
    *name_bytes = 0;
    for (uint32_t i = 0; i < count; i++) {
        char path[32];
        snprintf(path, sizeof path, "events[%u]", i);
        if (!keys[i].name || !keys[i].name[0])
            return mni_error_set(err, MN_INVALID_ARGUMENT, path, -1, "%s: the name is NULL or empty", path);
        if (!isfinite(keys[i].time))
            return mni_error_set(err, MN_NOT_FINITE, path, -1, "%s (\"%s\"): time is not finite", path,
                                 keys[i].name);
        if (keys[i].time < 0.0f)
            return mni_error_set(err, MN_INVALID_VALUE, path, -1,
                                 "%s (\"%s\"): time %g is before the clip's start", path, keys[i].name,
                                 (double)keys[i].time);
        if (!mni_checked_add(*name_bytes, strlen(keys[i].name) + 1, name_bytes))
            return mni_error_set(err, MN_OVERFLOW, path, -1, "event names overflow size_t");
    }
    return MN_OK;
}

mn_status mn_clip_events_create(const mn_event_key *keys, uint32_t count,
                                const mn_allocator *allocator, mn_clip_events **out, mn_error *err)
{
    if (!out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!keys && count > 0)
        return mni_fail(err, MN_INVALID_ARGUMENT, "keys is NULL with count %u", count);
    size_t name_bytes;
    mn_status st = check_keys(keys, count, &name_bytes, err);
    if (st != MN_OK)
        return st;

    /* One block: header, names (pointers), times, two index arrays, then the strings. */
    size_t n = count, size = sizeof(mn_clip_events), part;
    bool ok = mni_checked_mul(n, sizeof(char *) + sizeof(float) + 2 * sizeof(uint32_t), &part) &&
              mni_checked_add(size, part, &size) && mni_checked_add(size, name_bytes, &size);
    if (!ok)
        return mni_fail(err, MN_OVERFLOW, "an event track of %u events overflows size_t", count);
    mn_allocator hooks = allocator ? *allocator : (mn_allocator){0};
    unsigned char *block = mni_alloc(&hooks, size);
    if (!block)
        return mni_oom(err, "%u events", count);

    mn_clip_events *ev = (mn_clip_events *)block;
    memset(ev, 0, sizeof *ev);
    ev->allocator = hooks;
    ev->block_size = size;
    ev->count = count;
    unsigned char *p = block + sizeof *ev;
    ev->names = (const char **)p;
    p += n * sizeof(char *);
    ev->times = (float *)p;
    p += n * sizeof(float);
    ev->declared = (uint32_t *)p;
    p += n * sizeof(uint32_t);
    ev->position = (uint32_t *)p;
    p += n * sizeof(uint32_t);
    char *strings = (char *)p;

    sort_by_time(keys, count, ev->declared);
    for (uint32_t pos = 0; pos < count; pos++) {
        uint32_t i = ev->declared[pos];
        size_t len = strlen(keys[i].name) + 1;
        memcpy(strings, keys[i].name, len);
        ev->names[pos] = strings;
        strings += len;
        ev->times[pos] = keys[i].time;
        ev->position[i] = pos;
    }
    *out = ev;
    return MN_OK;
}

void mn_clip_events_free(mn_clip_events *events)
{
    if (!events)
        return;
    mn_allocator hooks = events->allocator;
    mni_free(&hooks, events, events->block_size);
}

uint32_t mn_clip_events_count(const mn_clip_events *events)
{
    return events ? events->count : 0;
}

const char *mn_clip_events_name(const mn_clip_events *events, uint32_t index)
{
    if (!events || index >= events->count)
        return NULL;
    return events->names[events->position[index]];
}

float mn_clip_events_time(const mn_clip_events *events, uint32_t index)
{
    if (!events || index >= events->count)
        return NAN;
    return events->times[events->position[index]];
}

/* ---- walking a span ------------------------------------------------------------- */

/* Mirrored time and rank of the event at sorted position pos. */
static double mirrored_time(const mn_event_span *span, uint32_t pos)
{
    return span->sign * (double)span->events->times[pos];
}

static long mirrored_rank(const mn_event_span *span, uint32_t pos)
{
    return span->sign > 0 ? (long)pos : (long)(span->events->count - 1u - pos);
}

/*
 * The least k with e + k·d >= t.  ceil() gets there up to rounding; the
 * nudges settle the edge exactly as the comparisons later see it.  The
 * nudges are bounded: where k is so large that k ± 1 does not change e + k·d
 * in double, the walk's times have no resolution left to be wrong about.
 */
static double first_k_at_or_after(double e, double d, double t)
{
    double k = ceil((t - e) / d);
    for (int i = 0; i < 4 && e + k * d < t; i++)
        k += 1.0;
    for (int i = 0; i < 4 && e + (k - 1.0) * d >= t; i++)
        k -= 1.0;
    return k;
}

bool mni_event_span_init(mn_event_span *span, const mn_clip_events *events, float duration,
                         bool loop, double t0, double t1)
{
    memset(span, 0, sizeof *span);
    span->sign = t1 < t0 ? -1 : 1;
    span->cursor_rank = -1;
    if (!events || !isfinite(t0) || !isfinite(t1) || !isfinite(duration) || duration < 0.0f ||
        events->count == 0)
        return false;
    span->events = events;
    span->period = loop && duration > 0.0f ? (double)duration : 0.0;
    span->lo = span->sign * t0;
    span->hi = span->sign * t1;
    span->cursor_at = span->lo;
    return true;
}

uint32_t mni_event_span_total(const mn_event_span *span)
{
    if (!span->events || !(span->lo < span->hi))
        return 0;
    double total = 0.0;
    for (uint32_t pos = 0; pos < span->events->count; pos++) {
        double e = mirrored_time(span, pos);
        if (span->period > 0.0) {
            double first = first_k_at_or_after(e, span->period, span->lo);
            double past = first_k_at_or_after(e, span->period, span->hi);
            if (past > first)
                total += past - first;
        } else if (e >= span->lo && e < span->hi) {
            total += 1.0;
        }
    }
    return total >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}

/* The next occurrence of the event at pos after the cursor, in mirrored time; false when past hi. */
static bool next_of_event(const mn_event_span *span, uint32_t pos, double *at)
{
    double e = mirrored_time(span, pos), t = span->cursor_at;
    double occ;
    if (span->period > 0.0) {
        double d = span->period, k = first_k_at_or_after(e, d, t);
        occ = e + k * d;
        if (occ == t && mirrored_rank(span, pos) <= span->cursor_rank)
            occ = e + (k + 1.0) * d;
    } else {
        occ = e;
        if (occ < t || (occ == t && mirrored_rank(span, pos) <= span->cursor_rank))
            return false;
    }
    if (!(occ < span->hi))
        return false;
    *at = occ;
    return true;
}

bool mni_event_span_peek(const mn_event_span *span, double *at, uint32_t *sorted)
{
    if (!span->events || !(span->lo < span->hi))
        return false;
    bool found = false;
    double best = 0.0;
    long best_rank = 0;
    uint32_t best_pos = 0;
    for (uint32_t pos = 0; pos < span->events->count; pos++) {
        double occ;
        if (!next_of_event(span, pos, &occ))
            continue;
        long rank = mirrored_rank(span, pos);
        if (!found || occ < best || (occ == best && rank < best_rank)) {
            found = true;
            best = occ;
            best_rank = rank;
            best_pos = pos;
        }
    }
    if (found) {
        *at = span->sign * best;
        *sorted = best_pos;
    }
    return found;
}

void mni_event_span_advance(mn_event_span *span, double at, uint32_t sorted)
{
    span->cursor_at = span->sign * at;
    span->cursor_rank = mirrored_rank(span, sorted);
}

void mni_event_span_describe(const mn_event_span *span, uint32_t sorted, double at, mn_event *out)
{
    const mn_clip_events *ev = span->events;
    out->name = ev->names[sorted];
    out->event = ev->declared[sorted];
    out->time = ev->times[sorted];
    out->at = at;
    out->state = MN_EVENT_NONE;
    out->leaf = MN_EVENT_NONE;
}

uint32_t mn_clip_events_crossed(const mn_clip_events *events, float duration, bool loop, double t0,
                                double t1, mn_event *out, uint32_t capacity)
{
    mn_event_span span;
    if (!mni_event_span_init(&span, events, duration, loop, t0, t1))
        return 0;
    uint32_t total = mni_event_span_total(&span);
    uint32_t written = 0;
    double at;
    uint32_t pos;
    while (out && written < capacity && written < total && mni_event_span_peek(&span, &at, &pos)) {
        mni_event_span_describe(&span, pos, at, &out[written++]);
        mni_event_span_advance(&span, at, pos);
    }
    return total;
}
