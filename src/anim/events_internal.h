/*
 * Walking the occurrences of an event track over one span, in order, one at
 * a time and without allocating: what mn_clip_events_crossed and the state
 * machine's merge over many leaves share.  Not installed.
 */
#ifndef MN_ANIM_EVENTS_INTERNAL_H
#define MN_ANIM_EVENTS_INTERNAL_H

#include <marionette/events.h>

/*
 * A span over one track.  Forward (sign +1) walks [from, to) ascending;
 * backward (sign -1) walks (to, from] descending — the mirror, done by
 * negating every time so one ascending walk serves both.  The cursor is the
 * last occurrence handed out, as (mirrored time, mirrored rank).
 */
typedef struct mn_event_span {
    const mn_clip_events *events;
    double period;       /* > 0: looping with this period; 0: each event once */
    double lo, hi;       /* the walk's [lo, hi) in mirrored time */
    int sign;            /* +1 forward, -1 backward */
    double cursor_at;    /* mirrored time of the last occurrence handed out */
    long cursor_rank;    /* its mirrored rank; -1 before the first */
} mn_event_span;

/*
 * Set up a walk from t0 to t1 (t0 < t1 forward, t0 > t1 backward, equal:
 * empty).  duration and loop as mn_clip_events_crossed.  Returns false (an
 * empty walk) for a NULL track or non-finite input.
 */
bool mni_event_span_init(mn_event_span *span, const mn_clip_events *events, float duration,
                         bool loop, double t0, double t1);

/* How many occurrences the whole span holds (saturating at UINT32_MAX). */
uint32_t mni_event_span_total(const mn_event_span *span);

/*
 * The next occurrence after the cursor, without moving it: true and its
 * (unmirrored) time and sorted position, or false when the span is done.
 */
bool mni_event_span_peek(const mn_event_span *span, double *at, uint32_t *sorted);

/* Move the cursor past the occurrence peek returned. */
void mni_event_span_advance(mn_event_span *span, double at, uint32_t sorted);

/* Fill the name, declared index and declared time of the event at `sorted` into *out. */
void mni_event_span_describe(const mn_event_span *span, uint32_t sorted, double at, mn_event *out);

#endif /* MN_ANIM_EVENTS_INTERNAL_H */
