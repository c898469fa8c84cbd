/*
 * The worker pool: the library's one place that starts threads.
 *
 * The worker threads start with the pool and sleep on a condition variable
 * between batches.  A batch publishes (job, context) under the lock, bumps a
 * generation counter and wakes everyone; the caller runs the job too, as
 * worker 0, and returns only after every worker has reported the batch
 * finished, so no worker can still be reading a batch when the next one is
 * published, and everything the workers wrote is visible to the caller
 * (both through the lock).  A worker learns its index once, when it starts.
 *
 * mni_pool_for is a batch whose job takes chunk numbers from an atomic
 * counter until none are left.  Its state lives on the caller's stack for
 * the call, so nothing allocates after mn_pool_create.
 */
#define _POSIX_C_SOURCE 200809L /* pthreads under -std=c11 */

#include "core/core.h"

#include <pthread.h>
#include <stdatomic.h>

struct mn_pool {
    mn_allocator allocator;
    uint32_t thread_count;       /* the caller's included */
    uint32_t started;            /* worker threads running */
    uint32_t named;              /* worker indices handed out so far */

    pthread_mutex_t lock;
    pthread_cond_t wake;         /* workers wait here for a new generation or stop */
    pthread_cond_t idle;         /* the caller waits here for the workers to finish */
    uint64_t generation;         /* batches published so far */
    uint32_t running;            /* workers not yet done with the current batch */
    bool busy;                   /* a batch is running (refuses a second one) */
    bool stop;

    mni_pool_job job;            /* the current batch */
    void *context;
    pthread_t threads[];         /* thread_count − 1 */
};

static size_t pool_size(uint32_t threads)
{
    return sizeof(mn_pool) + sizeof(pthread_t) * (threads - 1);
}

static void *worker_main(void *arg)
{
    mn_pool *pool = arg;
    pthread_mutex_lock(&pool->lock);
    uint32_t worker = ++pool->named;
    uint64_t seen = 0;   /* a batch published before this thread ran still counts it */
    for (;;) {
        while (pool->generation == seen && !pool->stop)
            pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->stop)
            break;
        seen = pool->generation;
        mni_pool_job job = pool->job;
        void *context = pool->context;
        pthread_mutex_unlock(&pool->lock);
        job(context, worker);
        pthread_mutex_lock(&pool->lock);
        if (--pool->running == 0)
            pthread_cond_signal(&pool->idle);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

/* Stop and join the started workers, release the lock and conditions and the pool. */
static void destroy(mn_pool *pool)
{
    pthread_mutex_lock(&pool->lock);
    pool->stop = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (uint32_t i = 0; i < pool->started; i++)
        pthread_join(pool->threads[i], NULL);
    pthread_cond_destroy(&pool->idle);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->lock);
    mn_allocator allocator = pool->allocator;
    mni_free(&allocator, pool, pool_size(pool->thread_count));
}

/* The lock and the two conditions; false (none left) when one cannot be made. */
static bool init_sync(mn_pool *pool)
{
    if (pthread_mutex_init(&pool->lock, NULL) != 0)
        return false;
    if (pthread_cond_init(&pool->wake, NULL) == 0) {
        if (pthread_cond_init(&pool->idle, NULL) == 0)
            return true;
        pthread_cond_destroy(&pool->wake);
    }
    pthread_mutex_destroy(&pool->lock);
    return false;
}

mn_status mn_pool_create(uint32_t threads, const mn_allocator *allocator, mn_pool **out,
                         mn_error *err)
{
    mni_error_clear(err);
    if (out)
        *out = NULL;
    if (!out || threads > MN_POOL_MAX_THREADS)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_pool_create: out must not be NULL and threads at most %u",
                        MN_POOL_MAX_THREADS);
    if (threads == 0)
        threads = 1;
    mn_allocator hooks = allocator ? *allocator : (mn_allocator){0};
    mn_pool *pool = mni_alloc(&hooks, pool_size(threads));
    if (!pool)
        return mni_oom(err, "pool");
    *pool = (mn_pool){.allocator = hooks, .thread_count = threads};
    if (!init_sync(pool)) {
        mni_free(&hooks, pool, pool_size(threads));
        return mni_fail(err, MN_OUT_OF_MEMORY,
                        "pool: cannot create a mutex or a condition");
    }
    for (uint32_t i = 0; i + 1 < threads; i++) {
        int rc = pthread_create(&pool->threads[i], NULL, worker_main, pool);
        if (rc != 0) {
            destroy(pool);
            return mni_fail(err, MN_OUT_OF_MEMORY,
                            "pool: the system refused to start thread %u of %u (error %d)",
                            i + 1, threads - 1, rc);
        }
        pool->started++;
    }
    *out = pool;
    return MN_OK;
}

void mn_pool_free(mn_pool *pool)
{
    if (pool)
        destroy(pool);
}

uint32_t mn_pool_thread_count(const mn_pool *pool)
{
    return pool ? pool->thread_count : 1;
}

mn_status mni_pool_run(mn_pool *pool, mni_pool_job job, void *context)
{
    if (!pool || pool->started == 0) {
        job(context, 0);
        return MN_OK;
    }
    pthread_mutex_lock(&pool->lock);
    if (pool->busy) {
        pthread_mutex_unlock(&pool->lock);
        return MN_INVALID_ARGUMENT;
    }
    pool->busy = true;
    pool->job = job;
    pool->context = context;
    pool->running = pool->started;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);

    job(context, 0);

    pthread_mutex_lock(&pool->lock);
    while (pool->running > 0)
        pthread_cond_wait(&pool->idle, &pool->lock);
    pool->busy = false;
    pthread_mutex_unlock(&pool->lock);
    return MN_OK;
}

/* ---- sharing items out ---------------------------------------------------------- */

typedef struct share {
    atomic_size_t next;          /* the first chunk nobody has taken */
    size_t count, chunk, chunks;
    mni_pool_range fn;
    void *context;
} share;

/* Take chunks until none are left.  Counting chunks, not items, keeps the counter from wrapping. */
static void take_chunks(void *arg, uint32_t worker)
{
    share *s = arg;
    for (;;) {
        size_t k = atomic_fetch_add_explicit(&s->next, 1, memory_order_relaxed);
        if (k >= s->chunks)
            return;
        size_t first = k * s->chunk;
        size_t end = s->count - first < s->chunk ? s->count : first + s->chunk;
        s->fn(s->context, first, end, worker);
    }
}

mn_status mni_pool_for(mn_pool *pool, size_t count, size_t chunk, mni_pool_range fn,
                       void *context)
{
    if (chunk == 0)
        chunk = 1;
    share s = {.count = count, .chunk = chunk, .chunks = count / chunk + (count % chunk != 0),
               .fn = fn, .context = context};
    atomic_init(&s.next, 0);
    if (s.chunks <= 1 || !pool || pool->started == 0) {
        take_chunks(&s, 0);   /* the caller alone: nobody to wake */
        return MN_OK;
    }
    return mni_pool_run(pool, take_chunks, &s);
}
