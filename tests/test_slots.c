/*
 * The slot allocator (section 10 and its settled details): first fit in
 * ascending order, loud failure when nothing fits, coalescing on free,
 * refusal of ranges outside the capacity or overlapping a free block,
 * sub-range frees, capacity 0, blocks() copies, out of memory at every
 * allocation, and a random sweep checked against a bitmap model.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <marionette/character/slots.h>

#include "counting_alloc.h"

static mn_slot_allocator *make(uint32_t capacity)
{
    mn_slot_allocator *s = NULL;
    mn_error err;
    assert_int_equal(mn_slot_allocator_create(capacity, NULL, &s, &err), MN_OK);
    return s;
}

static mn_slot_range take(mn_slot_allocator *s, uint32_t count)
{
    mn_slot_range r;
    mn_error err;
    mn_status st = mn_slot_allocate(s, count, &r, &err);
    if (st != MN_OK)
        fail_msg("allocate %u: %s", count, err.message);
    assert_int_equal(r.count, count);
    return r;
}

static void expect_blocks(const mn_slot_allocator *s, const mn_slot_range *want, uint32_t n)
{
    mn_slot_range got[16];
    assert_int_equal(mn_slot_blocks(s, got, 16), n);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(got[i].offset, want[i].offset);
        assert_int_equal(got[i].count, want[i].count);
    }
}

static void test_first_fit_and_coalesce(void **state)
{
    (void)state;
    mn_slot_allocator *s = make(100);
    mn_error err;
    mn_slot_range a = take(s, 10), b = take(s, 20), c = take(s, 30);
    assert_int_equal(a.offset, 0);
    assert_int_equal(b.offset, 10);
    assert_int_equal(c.offset, 30);
    assert_int_equal(mn_slot_available(s), 40);
    expect_blocks(s, (mn_slot_range[]){{60, 40}}, 1);

    assert_int_equal(mn_slot_free(s, a, &err), MN_OK);
    expect_blocks(s, (mn_slot_range[]){{0, 10}, {60, 40}}, 2);
    /* First fit: 5 goes in the hole at 0, 20 does not fit there and goes to 60. */
    mn_slot_range d = take(s, 5), e = take(s, 20);
    assert_int_equal(d.offset, 0);
    assert_int_equal(e.offset, 60);
    expect_blocks(s, (mn_slot_range[]){{5, 5}, {80, 20}}, 2);

    /* Freeing b joins the block before it; freeing c then joins both sides. */
    assert_int_equal(mn_slot_free(s, b, &err), MN_OK);
    expect_blocks(s, (mn_slot_range[]){{5, 25}, {80, 20}}, 2);
    assert_int_equal(mn_slot_free(s, e, &err), MN_OK);
    expect_blocks(s, (mn_slot_range[]){{5, 25}, {60, 40}}, 2);
    assert_int_equal(mn_slot_free(s, c, &err), MN_OK);
    expect_blocks(s, (mn_slot_range[]){{5, 95}}, 1);
    assert_int_equal(mn_slot_free(s, d, &err), MN_OK);
    expect_blocks(s, (mn_slot_range[]){{0, 100}}, 1);
    assert_int_equal(mn_slot_available(s), 100);
    assert_int_equal(mn_slot_capacity(s), 100);
    mn_slot_allocator_free(s);
}

static void test_refusals(void **state)
{
    (void)state;
    mn_slot_allocator *s = make(50);
    mn_error err;
    mn_slot_range r;
    assert_int_equal(mn_slot_allocate(s, 0, &r, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_slot_allocate(s, 51, &r, &err), MN_OUT_OF_MEMORY);
    assert_int_equal(r.count, 0);
    mn_slot_range a = take(s, 30);
    /* Fragmented: 20 free but not 21 in one block. */
    assert_int_equal(mn_slot_allocate(s, 21, &r, &err), MN_OUT_OF_MEMORY);
    assert_non_null(strstr(err.message, "20 free"));

    /* Outside the capacity, empty, overlapping a free block: refused, nothing changes. */
    assert_int_equal(mn_slot_free(s, (mn_slot_range){45, 10}, &err), MN_INDEX_RANGE);
    assert_int_equal(mn_slot_free(s, (mn_slot_range){0, 0}, &err), MN_INDEX_RANGE);
    assert_int_equal(mn_slot_free(s, (mn_slot_range){UINT32_MAX, 2}, &err), MN_INDEX_RANGE);
    assert_int_equal(mn_slot_free(s, (mn_slot_range){25, 10}, &err), MN_INVALID_VALUE);
    assert_int_equal(mn_slot_free(s, (mn_slot_range){30, 1}, &err), MN_INVALID_VALUE);
    expect_blocks(s, (mn_slot_range[]){{30, 20}}, 1);

    /* Double free is an overlap. */
    assert_int_equal(mn_slot_free(s, a, &err), MN_OK);
    assert_int_equal(mn_slot_free(s, a, &err), MN_INVALID_VALUE);
    mn_slot_allocator_free(s);
}

static void test_sub_range_and_full(void **state)
{
    (void)state;
    mn_slot_allocator *s = make(40);
    mn_error err;
    mn_slot_range all = take(s, 40);
    assert_int_equal(all.offset, 0);
    /* Full: blocks() is empty. */
    assert_int_equal(mn_slot_blocks(s, NULL, 0), 0);
    assert_int_equal(mn_slot_available(s), 0);
    /* A sub-range of an allocation is accepted. */
    assert_int_equal(mn_slot_free(s, (mn_slot_range){10, 5}, &err), MN_OK);
    expect_blocks(s, (mn_slot_range[]){{10, 5}}, 1);
    mn_slot_range again = take(s, 5);
    assert_int_equal(again.offset, 10);
    mn_slot_allocator_free(s);

    /* Capacity 0: every allocation fails, frees are outside. */
    mn_slot_allocator *z = make(0);
    mn_slot_range r;
    assert_int_equal(mn_slot_allocate(z, 1, &r, &err), MN_OUT_OF_MEMORY);
    assert_int_equal(mn_slot_free(z, (mn_slot_range){0, 1}, &err), MN_INDEX_RANGE);
    assert_int_equal(mn_slot_block_count(z), 0);
    mn_slot_allocator_free(z);
    mn_slot_allocator_free(NULL);
}

static void test_blocks_is_a_copy(void **state)
{
    (void)state;
    mn_slot_allocator *s = make(10);
    mn_slot_range got[2];
    assert_int_equal(mn_slot_blocks(s, got, 2), 1);
    got[0].count = 1;
    expect_blocks(s, (mn_slot_range[]){{0, 10}}, 1);
    mn_slot_allocator_free(s);
}

/* Many scattered frees grow the free list; fail each allocation in turn. */
static void test_out_of_memory(void **state)
{
    (void)state;
    for (long fail = 0; fail < 8; fail++) {
        mn_counting_alloc c = mn_counting_alloc_make();
        c.fail_after = fail;
        mn_allocator hooks = mn_counting_allocator(&c);
        mn_slot_allocator *s = NULL;
        mn_error err;
        if (mn_slot_allocator_create(64, &hooks, &s, &err) != MN_OK) {
            assert_int_equal(err.code, MN_OUT_OF_MEMORY);
            assert_int_equal(c.live_bytes, 0);
            continue;
        }
        mn_slot_range r[32];
        for (int i = 0; i < 32; i++)
            assert_int_equal(mn_slot_allocate(s, 2, &r[i], &err), MN_OK);
        uint32_t blocks = 0;
        for (int i = 0; i < 32; i += 2) {
            mn_status st = mn_slot_free(s, r[i], &err);
            if (st == MN_OK)
                blocks++;
            else
                assert_int_equal(st, MN_OUT_OF_MEMORY);
            assert_int_equal(mn_slot_block_count(s), blocks);
        }
        mn_slot_allocator_free(s);
        assert_int_equal(c.live_bytes, 0);
    }
}

/* Random allocate/free checked against a per-slot ownership model. */
static void test_random_against_model(void **state)
{
    (void)state;
    enum { CAP = 500, MAXR = 64 };
    mn_slot_allocator *s = make(CAP);
    uint8_t owned[CAP] = {0};
    mn_slot_range live[MAXR];
    int nlive = 0;
    uint32_t seed = 12345;
    mn_error err;
    for (int step = 0; step < 5000; step++) {
        seed = seed * 1664525u + 1013904223u;
        if (nlive < MAXR && (seed >> 16) % 3 != 0) {
            uint32_t count = 1 + (seed >> 8) % 40;
            /* The model's first fit: the lowest offset with count free slots. */
            int64_t expect = -1;
            for (uint32_t o = 0, run = 0; o < CAP; o++) {
                run = owned[o] ? 0 : run + 1;
                if (run == count) {
                    expect = o + 1 - count;
                    break;
                }
            }
            mn_slot_range r;
            mn_status st = mn_slot_allocate(s, count, &r, &err);
            if (expect < 0) {
                assert_int_equal(st, MN_OUT_OF_MEMORY);
                continue;
            }
            assert_int_equal(st, MN_OK);
            assert_int_equal(r.offset, (uint32_t)expect);
            memset(owned + r.offset, 1, count);
            live[nlive++] = r;
        } else if (nlive > 0) {
            int k = (int)((seed >> 4) % (uint32_t)nlive);
            assert_int_equal(mn_slot_free(s, live[k], &err), MN_OK);
            memset(owned + live[k].offset, 0, live[k].count);
            live[k] = live[--nlive];
        }
        /* Blocks are maximal free runs, ascending. */
        mn_slot_range blocks[CAP];
        uint32_t n = mn_slot_blocks(s, blocks, CAP), b = 0;
        for (uint32_t o = 0; o < CAP;) {
            if (owned[o]) {
                o++;
                continue;
            }
            uint32_t start = o;
            while (o < CAP && !owned[o])
                o++;
            assert_true(b < n);
            assert_int_equal(blocks[b].offset, start);
            assert_int_equal(blocks[b].count, o - start);
            b++;
        }
        assert_int_equal(b, n);
    }
    mn_slot_allocator_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_fit_and_coalesce),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_sub_range_and_full),
        cmocka_unit_test(test_blocks_is_a_copy),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_random_against_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
