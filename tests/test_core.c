/*
 * core: status names and messages, mn_error filling, allocation hooks, the
 * arena, and checked size arithmetic.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/core.h>

#include "core/core.h"
#include "counting_alloc.h"

#include <string.h>

/* ---- status codes ------------------------------------------------------------- */

static void test_every_status_has_a_distinct_name_and_a_message(void **state)
{
    (void)state;
    assert_int_equal(MN_OK, 0);
    for (int i = 0; i < MN_STATUS_COUNT; i++) {
        const char *name = mn_status_name((mn_status)i);
        const char *msg = mn_status_message((mn_status)i);
        assert_non_null(name);
        assert_non_null(msg);
        assert_true(strncmp(name, "MN_", 3) == 0);
        assert_true(strlen(msg) > 0);
        assert_string_not_equal(name, "MN_UNKNOWN");
        for (int j = 0; j < i; j++) {
            assert_string_not_equal(name, mn_status_name((mn_status)j));
            assert_string_not_equal(msg, mn_status_message((mn_status)j));
        }
    }
    assert_string_equal(mn_status_name(MN_OK), "MN_OK");
    assert_string_equal(mn_status_name(MN_GLB_MAGIC), "MN_GLB_MAGIC");
    assert_string_equal(mn_status_name(MN_HIERARCHY), "MN_HIERARCHY");
    assert_string_equal(mn_status_message(MN_OK), "no error");
}

static void test_status_out_of_range_is_unknown(void **state)
{
    (void)state;
    assert_string_equal(mn_status_name(MN_STATUS_COUNT), "MN_UNKNOWN");
    assert_string_equal(mn_status_name((mn_status)1000), "MN_UNKNOWN");
    assert_string_equal(mn_status_name((mn_status)-1), "MN_UNKNOWN");
    assert_non_null(mn_status_message(MN_STATUS_COUNT));
    assert_non_null(mn_status_message((mn_status)-1));
    assert_true(strlen(mn_status_message((mn_status)-1)) > 0);
}

static void test_version_matches_header(void **state)
{
    (void)state;
    assert_string_equal(mn_version(), MN_VERSION_STRING);
    assert_string_equal(mn_version(), "0.1.0");
}

/* ---- mn_error ----------------------------------------------------------------- */

static void test_error_set_formats_message_path_and_offset(void **state)
{
    (void)state;
    mn_error err;
    mn_status st = mni_error_set(&err, MN_ACCESSOR_BOUNDS, "accessors[3]", 120,
                                 "accessors[%d]: count %d x stride %d runs past bufferViews[%d]", 3,
                                 10, 12, 1);
    assert_int_equal(st, MN_ACCESSOR_BOUNDS);
    assert_int_equal(err.code, MN_ACCESSOR_BOUNDS);
    assert_string_equal(err.message, "accessors[3]: count 10 x stride 12 runs past bufferViews[1]");
    assert_string_equal(err.path, "accessors[3]");
    assert_int_equal(err.offset, 120);
    assert_int_equal(err.line, 0);
    assert_int_equal(err.column, 0);
}

static void test_error_set_without_format_uses_default_message(void **state)
{
    (void)state;
    mn_error err;
    mni_error_set(&err, MN_GLB_MAGIC, NULL, -1, NULL);
    assert_string_equal(err.message, mn_status_message(MN_GLB_MAGIC));
    assert_string_equal(err.path, "");
    assert_int_equal(err.offset, -1);
}

static void test_error_set_replaces_an_earlier_error(void **state)
{
    (void)state;
    mn_error err;
    mni_error_set(&err, MN_URI, "images[0].uri", 7, "first");
    err.line = 3;
    mni_error_set(&err, MN_BASE64, NULL, -1, "second");
    assert_int_equal(err.code, MN_BASE64);
    assert_string_equal(err.message, "second");
    assert_string_equal(err.path, "");
    assert_int_equal(err.offset, -1);
    assert_int_equal(err.line, 0);
}

static void test_error_set_with_null_err_returns_code(void **state)
{
    (void)state;
    assert_int_equal(mni_error_set(NULL, MN_IO, "x", 0, "ignored %d", 1), MN_IO);
    mni_error_clear(NULL); /* must not crash */
}

static void test_error_set_truncates_long_text(void **state)
{
    (void)state;
    char long_text[1000], long_path[400];
    memset(long_text, 'm', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    memset(long_path, 'p', sizeof long_path - 1);
    long_path[sizeof long_path - 1] = '\0';
    mn_error err;
    mni_error_set(&err, MN_JSON_SYNTAX, long_path, 0, "%s", long_text);
    assert_int_equal(strlen(err.message), sizeof err.message - 1);
    assert_int_equal(strlen(err.path), sizeof err.path - 1);
}

static void test_error_set_without_format_names_the_path(void **state)
{
    (void)state;
    mn_error err;
    mni_error_set(&err, MN_OUT_OF_MEMORY, "images[0].uri", -1, NULL);
    assert_string_equal(err.message, "images[0].uri: out of memory");
    assert_string_equal(err.path, "images[0].uri");
    mni_error_set(&err, MN_OUT_OF_MEMORY, "", -1, NULL);
    assert_string_equal(err.message, "out of memory");
}

static void test_fail_sets_code_and_message_without_path_or_offset(void **state)
{
    (void)state;
    mn_error err;
    mni_error_set(&err, MN_URI, "images[0].uri", 7, "stale");
    err.line = 3;
    mn_status st = mni_fail(&err, MN_INVALID_ARGUMENT, "mixer: layer %u does not exist", 4u);
    assert_int_equal(st, MN_INVALID_ARGUMENT);
    assert_int_equal(err.code, MN_INVALID_ARGUMENT);
    assert_string_equal(err.message, "mixer: layer 4 does not exist");
    assert_string_equal(err.path, "");
    assert_int_equal(err.offset, -1);
    assert_int_equal(err.line, 0);
    assert_int_equal(mni_fail(&err, MN_HIERARCHY, NULL), MN_HIERARCHY);
    assert_string_equal(err.message, mn_status_message(MN_HIERARCHY));
    assert_int_equal(mni_fail(NULL, MN_IO, "ignored %d", 1), MN_IO);
}

static void test_oom_names_what_ran_out(void **state)
{
    (void)state;
    mn_error err;
    mn_status st = mni_oom(&err, "render source");
    assert_int_equal(st, MN_OUT_OF_MEMORY);
    assert_int_equal(err.code, MN_OUT_OF_MEMORY);
    assert_string_equal(err.message, "render source: out of memory");
    assert_string_equal(err.path, "");
    assert_int_equal(err.offset, -1);
    mni_oom(&err, "a pose of %u joints (%zu bytes)", 40u, (size_t)1920);
    assert_string_equal(err.message, "a pose of 40 joints (1920 bytes): out of memory");
    mni_oom(&err, NULL);
    assert_string_equal(err.message, "out of memory");
    assert_int_equal(mni_oom(NULL, "ignored"), MN_OUT_OF_MEMORY);
}

static void test_oom_keeps_the_words_after_a_long_what(void **state)
{
    (void)state;
    char long_what[1000];
    memset(long_what, 'w', sizeof long_what - 1);
    long_what[sizeof long_what - 1] = '\0';
    mn_error err;
    mni_oom(&err, "%s", long_what);
    assert_int_equal(strlen(err.message), sizeof err.message - 1);
    const char *tail = err.message + strlen(err.message) - strlen(": out of memory");
    assert_string_equal(tail, ": out of memory");
}

static void test_error_clear_resets_everything(void **state)
{
    (void)state;
    mn_error err;
    mni_error_set(&err, MN_OVERFLOW, "a", 5, "b");
    err.line = 2;
    err.column = 9;
    mni_error_clear(&err);
    assert_int_equal(err.code, MN_OK);
    assert_string_equal(err.message, "");
    assert_string_equal(err.path, "");
    assert_int_equal(err.offset, -1);
    assert_int_equal(err.line, 0);
    assert_int_equal(err.column, 0);
}

/* ---- allocation hooks ----------------------------------------------------------- */

static void test_alloc_goes_through_hooks(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    void *p = mni_alloc(&hooks, 100);
    void *q = mni_alloc(&hooks, 50);
    assert_non_null(p);
    assert_non_null(q);
    assert_int_equal(counter.allocs, 2);
    assert_int_equal(counter.live_bytes, 150);
    mni_free(&hooks, p, 100);
    assert_int_equal(counter.live_bytes, 50);
    mni_free(&hooks, q, 50);
    mni_free(&hooks, NULL, 10); /* no-op, not counted */
    assert_int_equal(counter.frees, 2);
    assert_int_equal(counter.live_bytes, 0);
    assert_int_equal(counter.peak_bytes, 150);
    /* Zero bytes is refused without calling the hook. */
    assert_null(mni_alloc(&hooks, 0));
    assert_int_equal(counter.allocs, 2);
}

static void test_zeroed_allocator_means_malloc(void **state)
{
    (void)state;
    mn_allocator zeroed = {0};
    void *p = mni_alloc(&zeroed, 64);
    assert_non_null(p);
    memset(p, 1, 64);
    mni_free(&zeroed, p, 64);
    p = mni_alloc(NULL, 8);
    assert_non_null(p);
    mni_free(NULL, p, 8);
}

static void test_counting_allocator_fail_after(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    counter.fail_after = 2;
    mn_allocator hooks = mn_counting_allocator(&counter);
    void *a = mni_alloc(&hooks, 1), *b = mni_alloc(&hooks, 2);
    assert_non_null(a);
    assert_non_null(b);
    assert_null(mni_alloc(&hooks, 3));
    assert_int_equal(counter.failures, 1);
    assert_int_equal(counter.allocs, 2);
    mni_free(&hooks, a, 1);
    mni_free(&hooks, b, 2);
    assert_int_equal(counter.live_bytes, 0);
}

/* ---- arena ---------------------------------------------------------------------- */

static bool is_aligned(const void *p, size_t align)
{
    return ((uintptr_t)p & (align - 1)) == 0;
}

static void test_arena_many_small_allocations_stay_intact(void **state)
{
    (void)state;
    enum { N = 5000 };
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_arena arena;
    mni_arena_init(&arena, &hooks);
    static uint8_t *ptrs[N];
    size_t total = 0;
    for (size_t i = 0; i < N; i++) {
        size_t size = 1 + i % 97, align = (size_t)1 << (i % 7);
        ptrs[i] = mni_arena_alloc(&arena, size, align);
        assert_non_null(ptrs[i]);
        assert_true(is_aligned(ptrs[i], align));
        memset(ptrs[i], (int)(i & 0xff), size); /* overlap would clobber an earlier pattern */
        total += size;
    }
    for (size_t i = 0; i < N; i++)
        for (size_t k = 0; k < 1 + i % 97; k++)
            assert_int_equal(ptrs[i][k], (uint8_t)(i & 0xff));
    assert_int_equal(arena.used, total);
    assert_true(arena.reserved >= total);
    assert_true(counter.live_bytes == arena.reserved);
    /* Blocks grow, so 5000 requests cost only a handful of hook calls. */
    assert_true(counter.allocs < 20);
    mni_arena_release(&arena);
    assert_int_equal(counter.live_bytes, 0);
    assert_int_equal(counter.frees, counter.allocs);
}

static void test_arena_alignment_up_to_64(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_arena arena;
    mni_arena_init(&arena, &hooks);
    for (size_t align = 1; align <= 64; align *= 2) {
        for (int n = 0; n < 20; n++) {
            assert_non_null(mni_arena_alloc(&arena, 3, 1)); /* knock the cursor off alignment */
            void *p = mni_arena_alloc(&arena, 24, align);
            assert_non_null(p);
            assert_true(is_aligned(p, align));
        }
    }
    /* A big request is aligned too (it gets a block of its own). */
    void *big = mni_arena_alloc(&arena, 100000, 64);
    assert_non_null(big);
    assert_true(is_aligned(big, 64));
    /* Not a power of two, or above 64: refused. */
    assert_null(mni_arena_alloc(&arena, 8, 3));
    assert_null(mni_arena_alloc(&arena, 8, 128));
    /* 0 means no particular alignment. */
    assert_non_null(mni_arena_alloc(&arena, 8, 0));
    mni_arena_release(&arena);
    assert_int_equal(counter.live_bytes, 0);
}

static void test_arena_big_allocations(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_arena arena;
    mni_arena_init(&arena, &hooks);
    uint8_t *small = mni_arena_alloc(&arena, 16, 8);
    assert_non_null(small);
    const size_t big_size = (size_t)5 << 20; /* above the largest shared block */
    uint8_t *big = mni_arena_alloc(&arena, big_size, 16);
    assert_non_null(big);
    memset(big, 0xab, big_size);
    assert_true(counter.live_bytes >= big_size);
    uint8_t *big2 = mni_arena_alloc(&arena, big_size, 16);
    assert_non_null(big2);
    assert_true(big2 + big_size <= big || big + big_size <= big2);
    assert_int_equal(big[big_size - 1], 0xab);
    /* Small requests after a big one keep working. */
    for (int i = 0; i < 100; i++)
        assert_non_null(mni_arena_alloc(&arena, 32, 8));
    mni_arena_release(&arena);
    assert_int_equal(counter.live_bytes, 0);
    assert_int_equal(counter.frees, counter.allocs);
}

static void test_arena_zero_size_gives_a_valid_pointer(void **state)
{
    (void)state;
    mn_arena arena;
    mni_arena_init(&arena, NULL);
    assert_non_null(mni_arena_alloc(&arena, 0, 8));
    assert_non_null(mni_arena_calloc(&arena, 0, 4, 4));
    mni_arena_release(&arena);
}

static void test_arena_calloc_zeroes_and_refuses_overflow(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_arena arena;
    mni_arena_init(&arena, &hooks);
    /* Dirty the block first so zeroing is the arena's doing, not malloc's luck. */
    uint8_t *dirty = mni_arena_alloc(&arena, 256, 8);
    memset(dirty, 0xff, 256);
    uint32_t *v = mni_arena_calloc(&arena, 100, sizeof(uint32_t), 4);
    assert_non_null(v);
    for (int i = 0; i < 100; i++)
        assert_int_equal(v[i], 0);
    size_t allocs = counter.allocs;
    assert_null(mni_arena_calloc(&arena, SIZE_MAX / 2, 3, 1));
    assert_null(mni_arena_calloc(&arena, (size_t)1 << (sizeof(size_t) * 4), (size_t)1 << (sizeof(size_t) * 4), 1));
    assert_int_equal(counter.allocs, allocs); /* refused before asking the hooks */
    mni_arena_release(&arena);
    assert_int_equal(counter.live_bytes, 0);
}

static void test_arena_huge_request_fails_cleanly(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_arena arena;
    mni_arena_init(&arena, &hooks);
    assert_null(mni_arena_alloc(&arena, SIZE_MAX, 1));
    assert_null(mni_arena_alloc(&arena, SIZE_MAX - 8, 8));
    mni_arena_release(&arena);
    assert_int_equal(counter.live_bytes, 0);
}

static void test_arena_strndup_copies_and_terminates(void **state)
{
    (void)state;
    mn_arena arena;
    mni_arena_init(&arena, NULL);
    const char *src = "skeleton root";
    char *s = mni_arena_strndup(&arena, src, 8);
    assert_non_null(s);
    assert_string_equal(s, "skeleton");
    assert_ptr_not_equal(s, src);
    char *empty = mni_arena_strndup(&arena, src, 0);
    assert_non_null(empty);
    assert_string_equal(empty, "");
    /* Bytes after an embedded NUL are copied too: len decides, not strlen. */
    const char with_nul[4] = {'a', '\0', 'b', 'c'};
    char *raw = mni_arena_strndup(&arena, with_nul, 4);
    assert_memory_equal(raw, with_nul, 4);
    assert_int_equal(raw[4], '\0');
    mni_arena_release(&arena);
}

static void test_arena_release_frees_everything_and_allows_reuse(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_arena arena;
    mni_arena_init(&arena, &hooks);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 1000; i++)
            assert_non_null(mni_arena_alloc(&arena, 100, 16));
        assert_non_null(mni_arena_alloc(&arena, 2 << 20, 16));
        assert_true(counter.live_bytes > 0);
        mni_arena_release(&arena);
        assert_int_equal(counter.live_bytes, 0);
        assert_int_equal(arena.used, 0);
        assert_int_equal(arena.reserved, 0);
        assert_null(arena.head);
    }
    assert_int_equal(counter.frees, counter.allocs);
    mni_arena_release(&arena); /* releasing an empty arena is fine */
}

static void test_arena_out_of_memory_returns_null_without_leaking(void **state)
{
    (void)state;
    /* The first n hook calls succeed and the next fails, for every n up to 11:
       the arena must hand out NULL then, and still give back all it took. */
    for (long n = 0; n < 12; n++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = n;
        mn_allocator hooks = mn_counting_allocator(&counter);
        mn_arena arena;
        mni_arena_init(&arena, &hooks);
        size_t got = 0;
        while (got < 50000 && mni_arena_alloc(&arena, 64 + got % 512, 8))
            got++;
        assert_true(got < 50000); /* ~16 MB of requests need more than 11 blocks */
        assert_true(counter.allocs <= (size_t)n);
        assert_int_equal(counter.failures, 1);
        mni_arena_release(&arena);
        assert_int_equal(counter.live_bytes, 0);
        assert_int_equal(counter.frees, counter.allocs);
    }
}

static void test_arena_calloc_and_strndup_report_out_of_memory(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    counter.fail_after = 0;
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_arena arena;
    mni_arena_init(&arena, &hooks);
    assert_null(mni_arena_calloc(&arena, 4, 4, 4));
    assert_null(mni_arena_strndup(&arena, "abc", 3));
    assert_null(mni_arena_alloc(&arena, 1, 1));
    assert_int_equal(counter.failures, 3);
    mni_arena_release(&arena);
    assert_int_equal(counter.live_bytes, 0);
}

/* ---- checked arithmetic ----------------------------------------------------------- */

static void test_checked_mul_edges(void **state)
{
    (void)state;
    size_t out;
    assert_true(mni_checked_mul(0, SIZE_MAX, &out));
    assert_int_equal(out, 0);
    assert_true(mni_checked_mul(SIZE_MAX, 0, &out));
    assert_int_equal(out, 0);
    assert_true(mni_checked_mul(SIZE_MAX, 1, &out));
    assert_true(out == SIZE_MAX);
    assert_true(mni_checked_mul(12, 34, &out));
    assert_int_equal(out, 408);
    assert_true(mni_checked_mul(SIZE_MAX / 2, 2, &out));
    assert_true(out == SIZE_MAX - 1);
    assert_false(mni_checked_mul(SIZE_MAX / 2 + 1, 2, &out));
    assert_true(out == SIZE_MAX);
    const size_t half = (size_t)1 << (sizeof(size_t) * 4);
    assert_false(mni_checked_mul(half, half, &out));
    assert_true(mni_checked_mul(half - 1, half + 1, &out)); /* (h-1)(h+1) = h² - 1 = SIZE_MAX */
    assert_true(out == SIZE_MAX);
}

static void test_checked_add_edges(void **state)
{
    (void)state;
    size_t out;
    assert_true(mni_checked_add(SIZE_MAX, 0, &out));
    assert_true(out == SIZE_MAX);
    assert_true(mni_checked_add(SIZE_MAX - 1, 1, &out));
    assert_true(out == SIZE_MAX);
    assert_false(mni_checked_add(SIZE_MAX, 1, &out));
    assert_true(out == SIZE_MAX);
    assert_false(mni_checked_add(1, SIZE_MAX, &out));
    assert_false(mni_checked_add(SIZE_MAX / 2 + 1, SIZE_MAX / 2 + 1, &out));
    assert_true(mni_checked_add(0, 0, &out));
    assert_int_equal(out, 0);
}

/* The level rule of marionette/core.h, on whatever this machine and build run. */
static void test_simd_resolve_follows_the_level_rule(void **state)
{
    (void)state;
    mn_simd_level best = mn_simd_detect();
    assert_true(best >= MN_SIMD_SCALAR && best <= MN_SIMD_NEON);
    assert_int_equal(mni_simd_resolve(MN_SIMD_SCALAR), MN_SIMD_SCALAR);
    assert_int_equal(mni_simd_resolve(MN_SIMD_BEST), best);
    assert_int_equal(mni_simd_resolve((mn_simd_level)7), best);       /* not a level: the best */
    assert_int_equal(mni_simd_resolve((mn_simd_level)-5), best);
    bool x86 = best == MN_SIMD_SSE2 || best == MN_SIMD_AVX2_FMA;
    if (x86) {
        assert_int_equal(mni_simd_resolve(MN_SIMD_SSE2), MN_SIMD_SSE2);  /* never above what is asked */
        assert_int_equal(mni_simd_resolve(MN_SIMD_AVX2_FMA), best);      /* never above what runs */
        assert_int_equal(mni_simd_resolve(MN_SIMD_NEON), best);          /* another architecture's */
    } else {
        /* the reference alone (MN_NO_SIMD, or no kernels for this architecture), or AArch64 */
        assert_int_equal(mni_simd_resolve(MN_SIMD_SSE2), best);
        assert_int_equal(mni_simd_resolve(MN_SIMD_AVX2_FMA), best);
        assert_int_equal(mni_simd_resolve(MN_SIMD_NEON), best);
    }
    if (!x86)
        assert_false(mni_cpu_has_f16c());
}

static const char *closest(const char *name, const char *const *names, size_t count)
{
    static char hint[128];
    mni_suggest s;
    mni_suggest_init(&s, name);
    for (size_t i = 0; i < count; i++)
        mni_suggest_offer(&s, names[i]);
    return mni_suggest_text(&s, hint, sizeof hint);
}

static void test_suggest_names_the_closest_within_a_third_of_the_name(void **state)
{
    (void)state;
    const char *names[] = {"speed", "jump", "grounded", "direction"};
    assert_string_equal(closest("sped", names, 4), "; did you mean \"speed\"?");   /* a deletion */
    assert_string_equal(closest("Speed", names, 4), "; did you mean \"speed\"?");  /* case is an edit */
    assert_string_equal(closest("jmup", names, 4), "; did you mean \"jump\"?");    /* a swap is one edit */
    assert_string_equal(closest("grnded", names, 4), "; did you mean \"grounded\"?"); /* 2 edits of 6 */
    assert_string_equal(closest("drct", names, 4), "");   /* 5 edits: too far for a 4-byte name */
    assert_string_equal(closest("x", names, 4), "");
    assert_string_equal(closest("", names, 4), "");
    /* Ties go to the name offered first; nearer beats earlier. */
    const char *tie[] = {"spead", "abx", "abcd", "speed"};
    assert_string_equal(closest("abcx", tie, 4), "; did you mean \"abx\"?");    /* 1 and 1 */
    assert_string_equal(closest("speeds", tie, 4), "; did you mean \"speed\"?"); /* 2, then 1 */
    /* Names longer than MNI_SUGGEST_MAX bytes are not compared (the rows live on the stack). */
    char longer[MNI_SUGGEST_MAX + 2], typo[MNI_SUGGEST_MAX + 2];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    memcpy(typo, longer, sizeof typo);
    typo[0] = 'b';
    const char *one[] = {longer};
    assert_string_equal(closest(typo, one, 1), "");
    longer[MNI_SUGGEST_MAX] = '\0'; /* exactly the most: compared */
    typo[MNI_SUGGEST_MAX] = '\0';
    assert_non_null(strstr(closest(typo, one, 1), longer));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_status_has_a_distinct_name_and_a_message),
        cmocka_unit_test(test_simd_resolve_follows_the_level_rule),
        cmocka_unit_test(test_status_out_of_range_is_unknown),
        cmocka_unit_test(test_version_matches_header),
        cmocka_unit_test(test_error_set_formats_message_path_and_offset),
        cmocka_unit_test(test_error_set_without_format_uses_default_message),
        cmocka_unit_test(test_error_set_replaces_an_earlier_error),
        cmocka_unit_test(test_error_set_with_null_err_returns_code),
        cmocka_unit_test(test_error_set_truncates_long_text),
        cmocka_unit_test(test_error_set_without_format_names_the_path),
        cmocka_unit_test(test_fail_sets_code_and_message_without_path_or_offset),
        cmocka_unit_test(test_oom_names_what_ran_out),
        cmocka_unit_test(test_oom_keeps_the_words_after_a_long_what),
        cmocka_unit_test(test_error_clear_resets_everything),
        cmocka_unit_test(test_suggest_names_the_closest_within_a_third_of_the_name),
        cmocka_unit_test(test_alloc_goes_through_hooks),
        cmocka_unit_test(test_zeroed_allocator_means_malloc),
        cmocka_unit_test(test_counting_allocator_fail_after),
        cmocka_unit_test(test_arena_many_small_allocations_stay_intact),
        cmocka_unit_test(test_arena_alignment_up_to_64),
        cmocka_unit_test(test_arena_big_allocations),
        cmocka_unit_test(test_arena_zero_size_gives_a_valid_pointer),
        cmocka_unit_test(test_arena_calloc_zeroes_and_refuses_overflow),
        cmocka_unit_test(test_arena_huge_request_fails_cleanly),
        cmocka_unit_test(test_arena_strndup_copies_and_terminates),
        cmocka_unit_test(test_arena_release_frees_everything_and_allows_reuse),
        cmocka_unit_test(test_arena_out_of_memory_returns_null_without_leaking),
        cmocka_unit_test(test_arena_calloc_and_strndup_report_out_of_memory),
        cmocka_unit_test(test_checked_mul_edges),
        cmocka_unit_test(test_checked_add_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
