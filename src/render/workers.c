/*
 * render/workers: the renderer's threads.  Started once with the renderer and
 * asleep between batches; a batch wakes them all on one job, runs it on the
 * caller's thread too, and returns when every thread has finished it.  The
 * job itself shares out the work (the renderer's bands, taken from an atomic
 * counter), so a slow thread never holds a band the others could do.
 */
#define _POSIX_C_SOURCE 200809L

#include "render/render.h"

#include <pthread.h>

struct mn_workers {
    mn_allocator allocator;
    uint32_t count;              /* the caller's included */
    pthread_t *threads;
    uint32_t started;
    pthread_mutex_t lock;
    pthread_cond_t wake, idle;
    uint64_t generation;
    uint32_t busy;
    bool stop;
    mn_worker_job job;
    void *context;
};

typedef struct worker_start {
    mn_workers *workers;
    uint32_t index;
} worker_start;

static void *worker_main(void *arg)
{
    mn_workers *w = ((worker_start *)arg)->workers;
    uint32_t index = ((worker_start *)arg)->index;
    uint64_t seen = 0;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->stop && w->generation == seen)
            pthread_cond_wait(&w->wake, &w->lock);
        if (w->stop)
            break;
        seen = w->generation;
        mn_worker_job job = w->job;
        void *context = w->context;
        pthread_mutex_unlock(&w->lock);
        job(context, index);
        pthread_mutex_lock(&w->lock);
        if (--w->busy == 0)
            pthread_cond_signal(&w->idle);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* The start records live after the thread handles in the same block. */
static size_t block_size(uint32_t count)
{
    return sizeof(pthread_t) * count + sizeof(worker_start) * count;
}

mn_workers *mni_workers_create(uint32_t threads, const mn_allocator *allocator)
{
    mn_allocator hooks = {0};
    if (allocator)
        hooks = *allocator;
    if (threads == 0)
        threads = 1;
    mn_workers *w = mni_alloc(&hooks, sizeof *w);
    if (!w)
        return NULL;
    *w = (mn_workers){.allocator = hooks, .count = threads};
    w->threads = mni_alloc(&hooks, block_size(threads));
    if (!w->threads) {
        mni_free(&hooks, w, sizeof *w);
        return NULL;
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    pthread_cond_init(&w->idle, NULL);
    worker_start *starts = (worker_start *)(void *)(w->threads + threads);
    for (uint32_t i = 1; i < threads; i++) {
        starts[i] = (worker_start){w, i};
        if (pthread_create(&w->threads[w->started], NULL, worker_main, &starts[i]) != 0) {
            mni_workers_free(w);
            return NULL;
        }
        w->started++;
    }
    return w;
}

void mni_workers_free(mn_workers *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = true;
    pthread_cond_broadcast(&w->wake);
    pthread_mutex_unlock(&w->lock);
    for (uint32_t i = 0; i < w->started; i++)
        pthread_join(w->threads[i], NULL);
    pthread_cond_destroy(&w->idle);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    mn_allocator hooks = w->allocator;
    mni_free(&hooks, w->threads, block_size(w->count));
    mni_free(&hooks, w, sizeof *w);
}

uint32_t mni_workers_count(const mn_workers *w)
{
    return w ? w->count : 1;
}

void mni_workers_run(mn_workers *w, mn_worker_job job, void *context)
{
    if (!w || w->started == 0) {
        job(context, 0);
        return;
    }
    pthread_mutex_lock(&w->lock);
    w->job = job;
    w->context = context;
    w->busy = w->started;
    w->generation++;
    pthread_cond_broadcast(&w->wake);
    pthread_mutex_unlock(&w->lock);
    job(context, 0);
    pthread_mutex_lock(&w->lock);
    while (w->busy > 0)
        pthread_cond_wait(&w->idle, &w->lock);
    pthread_mutex_unlock(&w->lock);
}
