/*
 * The worker pool (src/core/pool.c): every worker index runs a job exactly
 * once per run, the chunked sharing covers every item exactly once in chunks
 * whose bounds do not depend on the thread count, nothing allocates during a
 * run, a second batch on a busy pool is refused (never deadlocks), and the
 * create errors.
 *
 * The jobs run on the pool's threads, where a cmocka assert must not fire
 * (it long-jumps on the main thread's stack): they only count, atomically,
 * and the test asserts on the counts afterwards.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/pool.h>

#include "core/core.h"

#include "counting_alloc.h"

#include <stdatomic.h>
#include <stdlib.h>

#define MAX_WORKERS 8u

static const uint32_t thread_counts[] = {0, 1, 2, 3, 5, MAX_WORKERS};

/* ---- one job per worker ---------------------------------------------------------- */

typedef struct per_worker {
    atomic_uint runs[MAX_WORKERS];
    atomic_uint out_of_range;    /* a worker index at or above the thread count */
    uint32_t threads;
} per_worker;

static void count_worker(void *context, uint32_t worker)
{
    per_worker *p = context;
    if (worker >= p->threads)
        atomic_fetch_add(&p->out_of_range, 1u);
    else
        atomic_fetch_add(&p->runs[worker], 1u);
}

static void reset(per_worker *p, uint32_t threads)
{
    for (uint32_t w = 0; w < MAX_WORKERS; w++)
        atomic_init(&p->runs[w], 0u);
    atomic_init(&p->out_of_range, 0u);
    p->threads = threads;
}

static void every_worker_index_runs_a_job_exactly_once_per_run(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        mn_allocator hooks = mn_counting_allocator(&counter);
        mn_pool *pool = NULL;
        assert_int_equal(mn_pool_create(thread_counts[t], &hooks, &pool, NULL), MN_OK);
        uint32_t threads = mn_pool_thread_count(pool);
        assert_int_equal(threads, thread_counts[t] ? thread_counts[t] : 1u);
        size_t allocs = counter.allocs;
        per_worker p;
        for (int run = 0; run < 200; run++) {
            reset(&p, threads);
            assert_int_equal(mni_pool_run(pool, count_worker, &p), MN_OK);
            for (uint32_t w = 0; w < threads; w++)
                assert_int_equal(atomic_load(&p.runs[w]), 1u);
            assert_int_equal(atomic_load(&p.out_of_range), 0u);
        }
        assert_int_equal(counter.allocs, allocs);   /* running allocates nothing */
        mn_pool_free(pool);
        assert_int_equal(counter.live_bytes, 0);
    }
    /* A NULL pool is the caller alone, worker 0. */
    per_worker p;
    reset(&p, 1);
    assert_int_equal(mni_pool_run(NULL, count_worker, &p), MN_OK);
    assert_int_equal(atomic_load(&p.runs[0]), 1u);
    assert_int_equal(atomic_load(&p.out_of_range), 0u);
}

/* ---- chunked sharing ------------------------------------------------------------- */

#define MAX_ITEMS 5000u

typedef struct coverage {
    atomic_uchar hits[MAX_ITEMS];
    atomic_uint bad_bounds;      /* a chunk not at k·chunk .. min((k + 1)·chunk, count) */
    atomic_uint bad_worker;
    atomic_uint calls;
    size_t count, chunk;
    uint32_t threads;
} coverage;

static void cover(void *context, size_t first, size_t end, uint32_t worker)
{
    coverage *c = context;
    size_t want_end = c->count - first < c->chunk ? c->count : first + c->chunk;
    if (first % c->chunk != 0 || first >= c->count || end != want_end)
        atomic_fetch_add(&c->bad_bounds, 1u);
    if (worker >= c->threads)
        atomic_fetch_add(&c->bad_worker, 1u);
    atomic_fetch_add(&c->calls, 1u);
    for (size_t i = first; i < end && i < MAX_ITEMS; i++)
        atomic_fetch_add(&c->hits[i], (unsigned char)1);
}

static void check_coverage(mn_pool *pool, coverage *c, size_t count, size_t chunk)
{
    size_t effective = chunk ? chunk : 1;
    c->count = count;
    c->chunk = effective;
    c->threads = mn_pool_thread_count(pool);
    for (size_t i = 0; i < MAX_ITEMS; i++)
        atomic_init(&c->hits[i], (unsigned char)0);
    atomic_init(&c->bad_bounds, 0u);
    atomic_init(&c->bad_worker, 0u);
    atomic_init(&c->calls, 0u);
    assert_int_equal(mni_pool_for(pool, count, chunk, cover, c), MN_OK);
    for (size_t i = 0; i < count; i++)
        assert_int_equal(atomic_load(&c->hits[i]), 1);
    assert_int_equal(atomic_load(&c->bad_bounds), 0u);
    assert_int_equal(atomic_load(&c->bad_worker), 0u);
    assert_int_equal(atomic_load(&c->calls), (count + effective - 1) / effective);
}

static void sharing_covers_every_item_exactly_once(void **state)
{
    (void)state;
    static const size_t counts[] = {0, 1, 2, 7, 64, 1000, 4099, MAX_ITEMS};
    static const size_t chunks[] = {0, 1, 3, 64, 2048, MAX_ITEMS + 1};
    coverage *c = malloc(sizeof *c);
    assert_non_null(c);
    for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        mn_allocator hooks = mn_counting_allocator(&counter);
        mn_pool *pool = NULL;
        assert_int_equal(mn_pool_create(thread_counts[t], &hooks, &pool, NULL), MN_OK);
        size_t allocs = counter.allocs;
        for (size_t n = 0; n < sizeof counts / sizeof *counts; n++)
            for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++)
                for (int rep = 0; rep < 3; rep++)
                    check_coverage(pool, c, counts[n], chunks[k]);
        assert_int_equal(counter.allocs, allocs);   /* sharing allocates nothing */
        mn_pool_free(pool);
        assert_int_equal(counter.live_bytes, 0);
    }
    for (size_t n = 0; n < sizeof counts / sizeof *counts; n++)
        check_coverage(NULL, c, counts[n], 16);
    free(c);
}

/* ---- one batch at a time ----------------------------------------------------------- */

typedef struct nested {
    mn_pool *pool;
    mn_status inner_run, inner_for;
    per_worker inner;
} nested;

static void nothing(void *context, size_t first, size_t end, uint32_t worker)
{
    (void)context, (void)first, (void)end, (void)worker;
}

/* Worker 0 (the caller's thread) asks the same pool for another batch. */
static void ask_again(void *context, uint32_t worker)
{
    nested *n = context;
    if (worker != 0)
        return;
    n->inner_run = mni_pool_run(n->pool, count_worker, &n->inner);
    n->inner_for = mni_pool_for(n->pool, 100, 1, nothing, NULL);
}

static void a_busy_pool_refuses_a_second_batch(void **state)
{
    (void)state;
    for (uint32_t threads = 1; threads <= 3; threads++) {
        mn_pool *pool = NULL;
        assert_int_equal(mn_pool_create(threads, NULL, &pool, NULL), MN_OK);
        nested n = {.pool = pool, .inner_run = MN_IO, .inner_for = MN_IO};
        reset(&n.inner, 1);
        assert_int_equal(mni_pool_run(pool, ask_again, &n), MN_OK);
        if (threads == 1) {
            /* One thread has nothing to share: the inner batch runs on the caller. */
            assert_int_equal(n.inner_run, MN_OK);
            assert_int_equal(n.inner_for, MN_OK);
            assert_int_equal(atomic_load(&n.inner.runs[0]), 1u);
        } else {
            assert_int_equal(n.inner_run, MN_INVALID_ARGUMENT);
            assert_int_equal(n.inner_for, MN_INVALID_ARGUMENT);
            assert_int_equal(atomic_load(&n.inner.runs[0]), 0u);   /* nothing ran */
        }
        /* The pool works again once the batch is over. */
        per_worker p;
        reset(&p, threads);
        assert_int_equal(mni_pool_run(pool, count_worker, &p), MN_OK);
        for (uint32_t w = 0; w < threads; w++)
            assert_int_equal(atomic_load(&p.runs[w]), 1u);
        mn_pool_free(pool);
    }
}

/* ---- creation ------------------------------------------------------------------------ */

static void create_errors_and_defaults(void **state)
{
    (void)state;
    mn_error err;
    mn_pool *pool = (mn_pool *)&err;   /* overwritten with NULL on failure */
    assert_int_equal(mn_pool_create(MN_POOL_MAX_THREADS + 1, NULL, &pool, &err),
                     MN_INVALID_ARGUMENT);
    assert_null(pool);
    assert_int_equal(err.code, MN_INVALID_ARGUMENT);
    assert_int_equal(mn_pool_create(2, NULL, NULL, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_pool_thread_count(NULL), 1u);
    mn_pool_free(NULL);

    /* Out of memory: nothing left behind, for the one allocation a pool makes. */
    mn_counting_alloc counter = mn_counting_alloc_make();
    counter.fail_after = 0;
    mn_allocator hooks = mn_counting_allocator(&counter);
    assert_int_equal(mn_pool_create(3, &hooks, &pool, &err), MN_OUT_OF_MEMORY);
    assert_null(pool);
    assert_int_equal(counter.live_bytes, 0);
    counter.fail_after = -1;
    assert_int_equal(mn_pool_create(3, &hooks, &pool, &err), MN_OK);
    assert_int_equal(counter.allocs, 1);
    mn_pool_free(pool);
    assert_int_equal(counter.live_bytes, 0);

    uint32_t cpus = mn_cpu_count();
    assert_true(cpus >= 1 && cpus <= MN_POOL_MAX_THREADS);
    assert_int_equal(mn_pool_create(cpus, NULL, &pool, &err), MN_OK);
    assert_int_equal(mn_pool_thread_count(pool), cpus);
    mn_pool_free(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_worker_index_runs_a_job_exactly_once_per_run),
        cmocka_unit_test(sharing_covers_every_item_exactly_once),
        cmocka_unit_test(a_busy_pool_refuses_a_second_batch),
        cmocka_unit_test(create_errors_and_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
