/*
 * Event tracks (src/anim/events.c): building, and the occurrences a span
 * crosses (animation-decisions §17): [t0, t1) forward, loop wraps included,
 * once per wrap, time order then event order, the mirror for backward
 * spans, capacity and totals, and no allocation while querying.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/events.h>

#include "counting_alloc.h"

#include <math.h>
#include <string.h>

static mn_clip_events *make(const mn_event_key *keys, uint32_t count)
{
    mn_clip_events *ev = NULL;
    mn_error err;
    assert_int_equal(mn_clip_events_create(keys, count, NULL, &ev, &err), MN_OK);
    assert_non_null(ev);
    return ev;
}

/* The names crossed from t0 to t1, joined by spaces, into buf. */
static uint32_t crossed_names(const mn_clip_events *ev, float d, bool loop, double t0, double t1,
                              char *buf, size_t size)
{
    mn_event out[32];
    uint32_t n = mn_clip_events_crossed(ev, d, loop, t0, t1, out, 32);
    buf[0] = '\0';
    for (uint32_t i = 0; i < n && i < 32; i++) {
        if (i)
            strncat(buf, " ", size - strlen(buf) - 1);
        strncat(buf, out[i].name, size - strlen(buf) - 1);
    }
    return n;
}

static void create_refuses_bad_keys_naming_them(void **state)
{
    (void)state;
    mn_clip_events *ev = (mn_clip_events *)&ev;
    mn_error err;
    mn_event_key bad_name[] = {{"a", 0.1f}, {"", 0.2f}};
    assert_int_equal(mn_clip_events_create(bad_name, 2, NULL, &ev, &err), MN_INVALID_ARGUMENT);
    assert_null(ev);
    assert_string_equal(err.path, "events[1]");
    mn_event_key null_name[] = {{NULL, 0.1f}};
    assert_int_equal(mn_clip_events_create(null_name, 1, NULL, &ev, &err), MN_INVALID_ARGUMENT);
    mn_event_key nan_time[] = {{"a", 0.1f}, {"b", 0.2f}, {"c", NAN}};
    assert_int_equal(mn_clip_events_create(nan_time, 3, NULL, &ev, &err), MN_NOT_FINITE);
    assert_string_equal(err.path, "events[2]");
    assert_non_null(strstr(err.message, "\"c\""));
    mn_event_key inf_time[] = {{"a", INFINITY}};
    assert_int_equal(mn_clip_events_create(inf_time, 1, NULL, &ev, &err), MN_NOT_FINITE);
    mn_event_key negative[] = {{"a", -0.5f}};
    assert_int_equal(mn_clip_events_create(negative, 1, NULL, &ev, &err), MN_INVALID_VALUE);
    assert_int_equal(mn_clip_events_create(NULL, 2, NULL, &ev, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_clip_events_create(bad_name, 1, NULL, NULL, &err), MN_INVALID_ARGUMENT);
    /* An empty track is valid and crosses nothing. */
    assert_int_equal(mn_clip_events_create(NULL, 0, NULL, &ev, &err), MN_OK);
    assert_int_equal(mn_clip_events_count(ev), 0);
    assert_int_equal(mn_clip_events_crossed(ev, 1.0f, true, 0.0, 10.0, NULL, 0), 0);
    mn_clip_events_free(ev);
    mn_clip_events_free(NULL);
}

static void create_copies_names_and_keeps_declared_indices(void **state)
{
    (void)state;
    char name[8] = "late";
    mn_event_key keys[] = {{name, 0.9f}, {"early", 0.1f}, {"tie1", 0.5f}, {"tie2", 0.5f}};
    mn_clip_events *ev = make(keys, 4);
    memset(name, 'x', sizeof name - 1); /* the caller's string may change or go away */
    assert_int_equal(mn_clip_events_count(ev), 4);
    assert_string_equal(mn_clip_events_name(ev, 0), "late");
    assert_true(mn_clip_events_time(ev, 0) == 0.9f);
    assert_string_equal(mn_clip_events_name(ev, 3), "tie2");
    assert_null(mn_clip_events_name(ev, 4));
    assert_true(isnan(mn_clip_events_time(ev, 4)));
    assert_int_equal(mn_clip_events_count(NULL), 0);
    /* Reported in time order, ties in declared order; each names its declared index. */
    mn_event out[4];
    assert_int_equal(mn_clip_events_crossed(ev, 1.0f, false, 0.0, 1.0, out, 4), 4);
    assert_string_equal(out[0].name, "early");
    assert_int_equal(out[0].event, 1);
    assert_string_equal(out[1].name, "tie1");
    assert_string_equal(out[2].name, "tie2");
    assert_int_equal(out[3].event, 0);
    assert_true(out[3].time == 0.9f);
    assert_true(out[3].at == (double)0.9f);
    assert_int_equal(out[3].state, MN_EVENT_NONE);
    assert_int_equal(out[3].leaf, MN_EVENT_NONE);
    mn_clip_events_free(ev);
}

static void forward_span_is_closed_at_start_open_at_end(void **state)
{
    (void)state;
    mn_event_key keys[] = {{"a", 0.25f}, {"b", 0.5f}};
    mn_clip_events *ev = make(keys, 2);
    char buf[256];
    assert_int_equal(crossed_names(ev, 1.0f, false, 0.25, 0.5, buf, sizeof buf), 1);
    assert_string_equal(buf, "a");
    assert_int_equal(crossed_names(ev, 1.0f, false, 0.0, 0.25, buf, sizeof buf), 0);
    assert_int_equal(crossed_names(ev, 1.0f, false, 0.5, 0.75, buf, sizeof buf), 1);
    assert_string_equal(buf, "b");
    /* dt = 0 reports nothing, even standing exactly on an event. */
    assert_int_equal(crossed_names(ev, 1.0f, false, 0.25, 0.25, buf, sizeof buf), 0);
    mn_clip_events_free(ev);
}

static void one_shot_reports_each_event_once(void **state)
{
    (void)state;
    mn_event_key keys[] = {{"a", 0.25f}};
    mn_clip_events *ev = make(keys, 1);
    char buf[256];
    assert_int_equal(crossed_names(ev, 1.0f, false, 0.0, 10.0, buf, sizeof buf), 1);
    assert_int_equal(crossed_names(ev, 1.0f, false, 1.0, 10.0, buf, sizeof buf), 0);
    /* A loop with no length is a one-shot: a period of 0 would repeat forever. */
    assert_int_equal(crossed_names(ev, 0.0f, true, 0.0, 10.0, buf, sizeof buf), 1);
    mn_clip_events_free(ev);
}

static void loop_reports_every_wrap_in_order(void **state)
{
    (void)state;
    mn_event_key keys[] = {{"L", 0.25f}, {"R", 0.75f}};
    mn_clip_events *ev = make(keys, 2);
    mn_event out[16];
    /* Several wraps in one span: [0.5, 3.3) on a 1 s loop. */
    uint32_t n = mn_clip_events_crossed(ev, 1.0f, true, 0.5, 3.3, out, 16);
    assert_int_equal(n, 6);
    const double at[] = {0.75, 1.25, 1.75, 2.25, 2.75, 3.25};
    for (uint32_t i = 0; i < n; i++) {
        assert_string_equal(out[i].name, i % 2 ? "L" : "R");
        assert_true(fabs(out[i].at - at[i]) < 1e-12);
    }
    mn_clip_events_free(ev);
}

static void events_at_zero_and_duration_both_fire_at_a_wrap(void **state)
{
    (void)state;
    mn_event_key keys[] = {{"end", 1.0f}, {"start", 0.0f}};
    mn_clip_events *ev = make(keys, 2);
    char buf[256];
    /* Span across the wrap at 1: "start" (event order first, time 0) then "end". */
    assert_int_equal(crossed_names(ev, 1.0f, true, 0.9, 1.1, buf, sizeof buf), 2);
    assert_string_equal(buf, "start end");
    /* Starting exactly on the wrap, both occurrences at 1 are in [1, ...). */
    assert_int_equal(crossed_names(ev, 1.0f, true, 1.0, 1.5, buf, sizeof buf), 2);
    /* [0, 0.5): both occur at 0 too — "end" as its k = -1 occurrence, 1 - 1. */
    assert_int_equal(crossed_names(ev, 1.0f, true, 0.0, 0.5, buf, sizeof buf), 2);
    assert_string_equal(buf, "start end");
    /* Two full cycles from 0.5: 1 (start, end), 2 (start, end). */
    assert_int_equal(crossed_names(ev, 1.0f, true, 0.5, 2.5, buf, sizeof buf), 4);
    assert_string_equal(buf, "start end start end");
    mn_clip_events_free(ev);
}

static void backward_span_is_the_mirror(void **state)
{
    (void)state;
    mn_event_key keys[] = {{"a", 0.25f}, {"b", 0.5f}, {"b2", 0.5f}};
    mn_clip_events *ev = make(keys, 3);
    char buf[256];
    /* (0.25, 0.5] descending: b2 then b (ties reversed), not a. */
    assert_int_equal(crossed_names(ev, 1.0f, false, 0.5, 0.25, buf, sizeof buf), 2);
    assert_string_equal(buf, "b2 b");
    /* Backward across wraps of a loop: (0.3, 2.6] descending. */
    assert_int_equal(crossed_names(ev, 1.0f, true, 2.6, 0.3, buf, sizeof buf), 8);
    assert_string_equal(buf, "b2 b a b2 b a b2 b");
    mn_event out[8];
    assert_int_equal(mn_clip_events_crossed(ev, 1.0f, true, 2.6, 0.3, out, 8), 8);
    assert_true(fabs(out[0].at - 2.5) < 1e-12 && fabs(out[7].at - 0.5) < 1e-12);
    /* The end is open: an occurrence exactly at t1 is not crossed going backward. */
    assert_int_equal(crossed_names(ev, 1.0f, false, 0.6, 0.5, buf, sizeof buf), 0);
    assert_int_equal(crossed_names(ev, 1.0f, false, 0.5, 0.4, buf, sizeof buf), 2);
    /* Mirror property: backward over (t1, t0] is forward over the same occurrences reversed. */
    mn_event fwd[16], bwd[16];
    uint32_t nf = mn_clip_events_crossed(ev, 1.0f, true, 0.1, 3.7, fwd, 16);
    uint32_t nb = mn_clip_events_crossed(ev, 1.0f, true, 3.7, 0.1, bwd, 16);
    assert_int_equal(nf, nb);
    for (uint32_t i = 0; i < nf; i++) {
        assert_int_equal(fwd[i].event, bwd[nf - 1 - i].event);
        assert_true(fwd[i].at == bwd[nf - 1 - i].at);
    }
    mn_clip_events_free(ev);
}

static void capacity_truncates_and_total_is_returned(void **state)
{
    (void)state;
    mn_event_key keys[] = {{"a", 0.0f}, {"b", 0.5f}};
    mn_clip_events *ev = make(keys, 2);
    mn_event out[3];
    memset(out, 0, sizeof out);
    assert_int_equal(mn_clip_events_crossed(ev, 1.0f, true, 0.0, 5.0, out, 2), 10);
    assert_string_equal(out[0].name, "a");
    assert_string_equal(out[1].name, "b");
    assert_null(out[2].name);
    assert_int_equal(mn_clip_events_crossed(ev, 1.0f, true, 0.0, 5.0, NULL, 0), 10);
    /* A million wraps are counted, not walked. */
    assert_int_equal(mn_clip_events_crossed(ev, 1.0f, true, 0.0, 1e6, NULL, 0), 2000000);
    mn_clip_events_free(ev);
}

static void hostile_queries_report_nothing(void **state)
{
    (void)state;
    mn_event_key keys[] = {{"a", 0.0f}};
    mn_clip_events *ev = make(keys, 1);
    mn_event out[2];
    assert_int_equal(mn_clip_events_crossed(NULL, 1.0f, true, 0.0, 1.0, out, 2), 0);
    assert_int_equal(mn_clip_events_crossed(ev, 1.0f, true, NAN, 1.0, out, 2), 0);
    assert_int_equal(mn_clip_events_crossed(ev, 1.0f, true, 0.0, INFINITY, out, 2), 0);
    assert_int_equal(mn_clip_events_crossed(ev, NAN, true, 0.0, 1.0, out, 2), 0);
    assert_int_equal(mn_clip_events_crossed(ev, -1.0f, true, 0.0, 1.0, out, 2), 0);
    /* A tiny period over a long span saturates the count instead of walking forever. */
    assert_int_equal(mn_clip_events_crossed(ev, 1e-30f, true, 0.0, 1e6, out, 2), UINT32_MAX);
    mn_clip_events_free(ev);
}

static void querying_allocates_nothing_and_free_returns_everything(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_event_key keys[] = {{"a", 0.0f}, {"b", 0.3f}, {"c", 0.7f}};
    mn_clip_events *ev = NULL;
    mn_error err;
    assert_int_equal(mn_clip_events_create(keys, 3, &hooks, &ev, &err), MN_OK);
    size_t allocs = counter.allocs;
    mn_event out[64];
    for (int i = 0; i < 100; i++)
        mn_clip_events_crossed(ev, 1.0f, true, i * 0.37, i * 0.37 + 2.0, out, 64);
    assert_int_equal(counter.allocs, allocs);
    mn_clip_events_free(ev);
    assert_int_equal(counter.live_bytes, 0);
    /* Out of memory is reported, and nothing leaks. */
    counter = mn_counting_alloc_make();
    counter.fail_after = 0;
    hooks = mn_counting_allocator(&counter);
    ev = (mn_clip_events *)&ev;
    assert_int_equal(mn_clip_events_create(keys, 3, &hooks, &ev, &err), MN_OUT_OF_MEMORY);
    assert_null(ev);
    assert_int_equal(counter.live_bytes, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_refuses_bad_keys_naming_them),
        cmocka_unit_test(create_copies_names_and_keeps_declared_indices),
        cmocka_unit_test(forward_span_is_closed_at_start_open_at_end),
        cmocka_unit_test(one_shot_reports_each_event_once),
        cmocka_unit_test(loop_reports_every_wrap_in_order),
        cmocka_unit_test(events_at_zero_and_duration_both_fire_at_a_wrap),
        cmocka_unit_test(backward_span_is_the_mirror),
        cmocka_unit_test(capacity_truncates_and_total_is_returned),
        cmocka_unit_test(hostile_queries_report_nothing),
        cmocka_unit_test(querying_allocates_nothing_and_free_returns_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
