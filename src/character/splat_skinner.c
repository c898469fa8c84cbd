/*
 * The splat deform across threads.  The worker threads
 * start with the skinner and sleep on a condition variable between runs; a
 * run publishes the job, wakes them, works on it from the calling thread
 * too and waits until all are done.  The splats are handed out in chunks
 * from an atomic counter, so a thread that is descheduled (two cores shared
 * with other work) holds back one chunk at most.  Nothing allocates after
 * creation.
 */
#define _POSIX_C_SOURCE 200809L /* pthreads and sysconf under -std=c11 */

#include "character/splat_internal.h"

#include "core/core.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

/*
 * Splats a chunk: a multiple of every kernel's width, so that chunks split
 * at the same splats whatever the thread count; 2048 splats are about 100 KB
 * of inputs and outputs, small against a frame and large against a wake-up.
 */
#define SPLAT_CHUNK 2048u

struct mn_splat_skinner {
    mn_allocator allocator;
    uint32_t threads;              /* the caller's included */
    uint32_t started;              /* worker threads running */
    pthread_t *workers;
    pthread_mutex_t lock;
    pthread_cond_t wake, idle;
    uint64_t generation;
    uint32_t busy;
    bool stop;
    const mn_splat_skin_job *job;  /* the run in progress */
    mn_splat_simd level;
    atomic_size_t next;            /* first splat not yet handed out */
};

static void work(mn_splat_skinner *s)
{
    const mn_splat_skin_job *job = s->job;
    size_t count = job->count;
    for (;;) {
        size_t first = atomic_fetch_add_explicit(&s->next, SPLAT_CHUNK, memory_order_relaxed);
        if (first >= count)
            return;
        size_t end = count - first < SPLAT_CHUNK ? count : first + SPLAT_CHUNK;
        mni_splat_skin_range(job, s->level, first, end);
    }
}

static void *worker_main(void *arg)
{
    mn_splat_skinner *s = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->stop && s->generation == seen)
            pthread_cond_wait(&s->wake, &s->lock);
        if (s->stop)
            break;
        seen = s->generation;
        pthread_mutex_unlock(&s->lock);
        work(s);
        pthread_mutex_lock(&s->lock);
        if (--s->busy == 0)
            pthread_cond_signal(&s->idle);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static uint32_t online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1u : n > 256 ? 256u : (uint32_t)n;
}

MN_API mn_status mn_splat_skinner_create(uint32_t thread_count, const mn_allocator *allocator,
                                         mn_splat_skinner **out, mn_error *err)
{
    mni_error_clear(err);
    if (!out)
        return mni_error_set(err, MN_INVALID_ARGUMENT, NULL, -1, "out is NULL");
    *out = NULL;
    mn_allocator hooks = {0};
    if (allocator)
        hooks = *allocator;
    uint32_t threads = thread_count ? thread_count : online_cpus();
    mn_splat_skinner *s = mni_alloc(&hooks, sizeof *s);
    if (!s)
        return mni_error_set(err, MN_OUT_OF_MEMORY, NULL, -1, "out of memory");
    *s = (mn_splat_skinner){.allocator = hooks, .threads = threads};
    atomic_init(&s->next, 0);
    if (threads > 1) {
        s->workers = mni_alloc(&hooks, sizeof(pthread_t) * (threads - 1));
        if (!s->workers) {
            mni_free(&hooks, s, sizeof *s);
            return mni_error_set(err, MN_OUT_OF_MEMORY, NULL, -1, "out of memory");
        }
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    pthread_cond_init(&s->idle, NULL);
    for (uint32_t i = 0; i + 1 < threads; i++) {
        if (pthread_create(&s->workers[i], NULL, worker_main, s) != 0) {
            mn_splat_skinner_free(s);
            return mni_error_set(err, MN_IO, NULL, -1, "cannot start splat thread %u", i + 1);
        }
        s->started++;
    }
    *out = s;
    return MN_OK;
}

MN_API uint32_t mn_splat_skinner_threads(const mn_splat_skinner *skinner)
{
    return skinner ? skinner->threads : 0;
}

MN_API mn_status mn_splat_skinner_run(mn_splat_skinner *skinner, const mn_splat_skin_job *job,
                                      mn_splat_simd level)
{
    if (!skinner)
        return MN_INVALID_ARGUMENT;
    mn_status st = mni_splat_job_check(job, NULL);
    if (st != MN_OK)
        return st;
    skinner->job = job;
    skinner->level = mni_splat_level(level);
    atomic_store_explicit(&skinner->next, 0, memory_order_relaxed);
    /* one chunk's work does not pay for waking anyone */
    if (skinner->started == 0 || job->count <= SPLAT_CHUNK) {
        work(skinner);
        return MN_OK;
    }
    pthread_mutex_lock(&skinner->lock);
    skinner->busy = skinner->started;
    skinner->generation++;
    pthread_cond_broadcast(&skinner->wake);
    pthread_mutex_unlock(&skinner->lock);
    work(skinner);
    pthread_mutex_lock(&skinner->lock);
    while (skinner->busy > 0)
        pthread_cond_wait(&skinner->idle, &skinner->lock);
    pthread_mutex_unlock(&skinner->lock);
    return MN_OK;
}

MN_API void mn_splat_skinner_free(mn_splat_skinner *skinner)
{
    if (!skinner)
        return;
    pthread_mutex_lock(&skinner->lock);
    skinner->stop = true;
    pthread_cond_broadcast(&skinner->wake);
    pthread_mutex_unlock(&skinner->lock);
    for (uint32_t i = 0; i < skinner->started; i++)
        pthread_join(skinner->workers[i], NULL);
    pthread_cond_destroy(&skinner->idle);
    pthread_cond_destroy(&skinner->wake);
    pthread_mutex_destroy(&skinner->lock);
    mn_allocator hooks = skinner->allocator;
    if (skinner->threads > 1)
        mni_free(&hooks, skinner->workers, sizeof(pthread_t) * (skinner->threads - 1));
    mni_free(&hooks, skinner, sizeof *skinner);
}
