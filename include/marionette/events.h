/*
 * marionette/events.h — named events at times on a clip's axis, and which of
 * them a span of playback crossed.
 *
 * An event track is a list of (name, time) pairs, built once and immutable:
 * a footstep at 0.25 s, a sound cue at 0.8 s.  It belongs beside a clip (or a
 * clip leaf of a blend tree, or a state of a state machine: see
 * state_machine.h), and answers one question without allocating: which
 * events did playback cross between two times?
 *
 *     mn_clip_events *steps;
 *     mn_clip_events_create((mn_event_key[]){{"left", 0.1f}, {"right", 0.6f}}, 2, NULL, &steps, &err);
 *     mn_event fired[8];
 *     uint32_t n = mn_clip_events_crossed(steps, mn_clip_duration(walk), true, t, t + dt, fired, 8);
 *
 * THE RULES
 *   - Occurrences.  On a looping clip of duration d > 0, an event at e occurs
 *     at e + k·d for every integer k: an event at 0 and one at d both occur
 *     at every wrap.  On a one-shot (or a loop whose d is 0) it occurs once,
 *     at e.
 *   - A forward span from t0 to t1 > t0 is [t0, t1) in unwrapped time (the
 *     time before any wrapping: a looping leaf at 2.3 s of a 1 s clip is at
 *     2.3, not 0.3).  Every occurrence in it is reported, once per wrap it
 *     crosses, in time order; occurrences at the same time in event order
 *     (the track's order: by time, ties in the order given).
 *   - t1 = t0 reports nothing.  A backward span (t1 < t0) reports (t1, t0],
 *     latest first, ties in reverse event order: the mirror of forward.
 *   - The caller gives capacity: the first events in that order are written
 *     and the total is returned, which may exceed capacity.
 */
#ifndef MARIONETTE_EVENTS_H
#define MARIONETTE_EVENTS_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One event as declared: name (copied at creation) and time in seconds on the clip's axis. */
typedef struct mn_event_key {
    const char *name;
    float time;
} mn_event_key;

/* One occurrence that a span crossed. */
typedef struct mn_event {
    const char *name;    /* the event's name, owned by its track (lives as long as the track) */
    uint32_t event;      /* index of the event as it was declared to mn_clip_events_create */
    float time;          /* the event's declared time on the clip's axis */
    double at;           /* where it occurred in unwrapped time: time + k·duration */
    uint32_t state;      /* state machine: the state whose leaf reported it; MN_EVENT_NONE otherwise */
    uint32_t leaf;       /* state machine: the leaf (depth-first index) that reported it; MN_EVENT_NONE otherwise */
} mn_event;

/* "Not from a state machine" in mn_event.state and mn_event.leaf (the same value as MN_NONE). */
#define MN_EVENT_NONE 0xFFFFFFFFu

/* An event track: opaque, one allocation, immutable (share it between threads and leaves). */
typedef struct mn_clip_events mn_clip_events;

/*
 * Build an event track from `count` keys (names copied; the caller's array
 * may go away).  Keys are ordered by time, stably, so equal times keep the
 * order given.  count 0 is a valid empty track.
 * Errors (nothing is created, *out = NULL): MN_INVALID_ARGUMENT (NULL out,
 * NULL keys with count > 0, a NULL or empty name), MN_NOT_FINITE (a NaN or
 * infinite time), MN_INVALID_VALUE (a negative time: a clip's axis starts at
 * 0), MN_OVERFLOW, MN_OUT_OF_MEMORY.  err names the key ("events[3]").
 */
MN_API mn_status mn_clip_events_create(const mn_event_key *keys, uint32_t count,
                                       const mn_allocator *allocator, mn_clip_events **out,
                                       mn_error *err);

/* Free a track.  NULL is allowed. */
MN_API void mn_clip_events_free(mn_clip_events *events);

/* Number of events (0 for NULL). */
MN_API uint32_t mn_clip_events_count(const mn_clip_events *events);

/* Name and time of event `index` in declaration order; NULL / NaN when out of range. */
MN_API const char *mn_clip_events_name(const mn_clip_events *events, uint32_t index);
MN_API float mn_clip_events_time(const mn_clip_events *events, uint32_t index);

/*
 * The occurrences the span from t0 to t1 crossed (rules above), on a clip of
 * `duration` seconds that loops when `loop` is true.  Writes at most
 * `capacity` events to out (which may be NULL when capacity is 0) and
 * returns the total count (saturating at UINT32_MAX).  A NULL track, a
 * non-finite t0 or t1, or a non-finite or negative duration report nothing
 * (0).  Pure and allocation-free.
 */
MN_API uint32_t mn_clip_events_crossed(const mn_clip_events *events, float duration, bool loop,
                                       double t0, double t1, mn_event *out, uint32_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_EVENTS_H */
