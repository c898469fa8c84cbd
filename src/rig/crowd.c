/*
 * The crowd: a small pthread pool that runs mn_instance_update over many
 * instances at once.
 *
 * The worker threads start with the pool and sleep on a condition variable
 * between batches.  A batch publishes (instances, count, dt) under the lock,
 * bumps a generation counter and wakes everyone; the caller works too.
 * Instances are handed out in small chunks from one atomic counter, so a
 * thread that drew cheap instances takes more, and each instance is updated
 * by exactly one thread with the same code as mn_instance_update — which is
 * why the results are bit-identical to a serial loop.  The caller returns
 * only after every worker has reported the batch finished, so no worker can
 * still be reading the batch when the next one is published.  Nothing here
 * allocates after mn_pool_create.
 */
#define _POSIX_C_SOURCE 200809L /* pthreads and sysconf under -std=c11 */

#include <marionette/instance.h>

#include "core/core.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#define MN_POOL_MAX_THREADS 256u

struct mn_pool {
    mn_allocator allocator;
    uint32_t thread_count;       /* the caller's included */
    uint32_t worker_count;       /* started threads: thread_count − 1 */
    pthread_t *workers;

    pthread_mutex_t lock;
    pthread_cond_t wake;         /* workers wait here for a new generation or shutdown */
    pthread_cond_t idle;         /* the caller waits here for the workers to finish */
    uint64_t generation;         /* batches published so far */
    uint32_t finished;           /* workers done with the current batch */
    bool shutdown;
    bool busy;                   /* a batch is running (refuses a second caller) */

    /* the current batch */
    mn_instance *const *instances;
    size_t count;
    size_t chunk;
    float dt;
    atomic_size_t next;          /* the first instance nobody has taken yet */
};

/* Take chunks until none are left. */
static void run_batch(mn_pool *pool)
{
    mn_instance *const *instances = pool->instances;
    size_t count = pool->count, chunk = pool->chunk;
    float dt = pool->dt;
    for (;;) {
        size_t start = atomic_fetch_add_explicit(&pool->next, chunk, memory_order_relaxed);
        if (start >= count)
            return;
        size_t end = count - start < chunk ? count : start + chunk;
        for (size_t i = start; i < end; i++)
            mn_instance_update(instances[i], dt);
    }
}

static void *worker_main(void *arg)
{
    mn_pool *pool = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (pool->generation == seen && !pool->shutdown)
            pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->shutdown)
            break;
        seen = pool->generation;
        pthread_mutex_unlock(&pool->lock);
        run_batch(pool);
        pthread_mutex_lock(&pool->lock);
        if (++pool->finished == pool->worker_count)
            pthread_cond_signal(&pool->idle);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

/* Stop and join the first `started` workers. */
static void stop_workers(mn_pool *pool, uint32_t started)
{
    pthread_mutex_lock(&pool->lock);
    pool->shutdown = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (uint32_t i = 0; i < started; i++)
        pthread_join(pool->workers[i], NULL);
}

static void destroy_sync(mn_pool *pool)
{
    pthread_cond_destroy(&pool->idle);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->lock);
}

static void release(mn_pool *pool)
{
    mn_allocator allocator = pool->allocator;
    mni_free(&allocator, pool->workers, (size_t)pool->worker_count * sizeof(pthread_t));
    mni_free(&allocator, pool, sizeof *pool);
}

mn_status mn_pool_create(uint32_t threads, const mn_allocator *allocator, mn_pool **out,
                         mn_error *err)
{
    mni_error_clear(err);
    if (out)
        *out = NULL;
    if (!out || threads > MN_POOL_MAX_THREADS)
        return mni_error_set(err, MN_INVALID_ARGUMENT, NULL, -1,
                            "mn_pool_create: out must not be NULL and threads at most %u",
                            MN_POOL_MAX_THREADS);
    if (threads == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus < 1 ? 1u : cpus > (long)MN_POOL_MAX_THREADS ? MN_POOL_MAX_THREADS
                                                                 : (uint32_t)cpus;
    }
    mn_allocator hooks = allocator ? *allocator : (mn_allocator){0};
    mn_pool *pool = mni_alloc(&hooks, sizeof *pool);
    if (!pool)
        return mni_error_set(err, MN_OUT_OF_MEMORY, NULL, -1, "pool: out of memory");
    *pool = (mn_pool){.allocator = hooks, .thread_count = threads, .worker_count = threads - 1};
    atomic_init(&pool->next, 0);
    if (pool->worker_count) {
        pool->workers = mni_alloc(&hooks, (size_t)pool->worker_count * sizeof(pthread_t));
        if (!pool->workers) {
            mni_free(&hooks, pool, sizeof *pool);
            return mni_error_set(err, MN_OUT_OF_MEMORY, NULL, -1, "pool: out of memory");
        }
    }
    if (pthread_mutex_init(&pool->lock, NULL) != 0) {
        release(pool);
        return mni_error_set(err, MN_OUT_OF_MEMORY, NULL, -1, "pool: cannot create a mutex");
    }
    if (pthread_cond_init(&pool->wake, NULL) != 0) {
        pthread_mutex_destroy(&pool->lock);
        release(pool);
        return mni_error_set(err, MN_OUT_OF_MEMORY, NULL, -1, "pool: cannot create a condition");
    }
    if (pthread_cond_init(&pool->idle, NULL) != 0) {
        pthread_cond_destroy(&pool->wake);
        pthread_mutex_destroy(&pool->lock);
        release(pool);
        return mni_error_set(err, MN_OUT_OF_MEMORY, NULL, -1, "pool: cannot create a condition");
    }
    for (uint32_t i = 0; i < pool->worker_count; i++) {
        int rc = pthread_create(&pool->workers[i], NULL, worker_main, pool);
        if (rc != 0) {
            stop_workers(pool, i);
            destroy_sync(pool);
            release(pool);
            return mni_error_set(err, MN_OUT_OF_MEMORY, NULL, -1,
                                "pool: the system refused to start thread %u of %u (error %d)",
                                i + 1, threads - 1, rc);
        }
    }
    *out = pool;
    return MN_OK;
}

void mn_pool_free(mn_pool *pool)
{
    if (!pool)
        return;
    stop_workers(pool, pool->worker_count);
    destroy_sync(pool);
    release(pool);
}

uint32_t mn_pool_thread_count(const mn_pool *pool)
{
    return pool ? pool->thread_count : 1;
}

mn_status mn_instances_update(mn_pool *pool, mn_instance *const *instances, size_t count,
                              float dt)
{
    if (count == 0)
        return MN_OK;
    if (!instances)
        return MN_INVALID_ARGUMENT;
    for (size_t i = 0; i < count; i++)
        if (!instances[i])
            return MN_INVALID_ARGUMENT;
    if (!pool || pool->worker_count == 0 || count == 1) {
        for (size_t i = 0; i < count; i++)
            mn_instance_update(instances[i], dt);
        return MN_OK;
    }

    pthread_mutex_lock(&pool->lock);
    if (pool->busy) {
        pthread_mutex_unlock(&pool->lock);
        return MN_INVALID_ARGUMENT;
    }
    pool->busy = true;
    pool->instances = instances;
    pool->count = count;
    pool->dt = dt;
    /* Small chunks balance uneven instances; several per thread keep the counter cool. */
    size_t chunk = count / ((size_t)pool->thread_count * 8);
    pool->chunk = chunk ? chunk : 1;
    atomic_store_explicit(&pool->next, 0, memory_order_relaxed);
    pool->finished = 0;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);

    run_batch(pool);

    pthread_mutex_lock(&pool->lock);
    while (pool->finished < pool->worker_count)
        pthread_cond_wait(&pool->idle, &pool->lock);
    pool->busy = false;
    pthread_mutex_unlock(&pool->lock);
    return MN_OK;
}
