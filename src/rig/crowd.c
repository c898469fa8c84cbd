/*
 * The crowd: mn_instance_update over many instances at once, on the worker
 * pool (core/pool.c).  Each thread takes one contiguous run of the instance
 * array, the same share for every thread: an instance is updated by exactly
 * one thread with the same code as mn_instance_update, which is why the
 * results are bit-identical to a serial loop, and since every line an
 * instance writes is its own (instance.c aligns its outputs to cache lines),
 * threads never write to a shared line, not even a shared counter.  The even
 * split assumes instances of similar cost; a thread descheduled by the OS
 * holds the frame back by its share.
 */
#include <marionette/instance.h>

#include "core/core.h"
#include "rig/internal.h"

typedef struct crowd_batch {
    mn_instance *const *instances;
    size_t count;
    uint32_t threads;
    float dt;
    bool prefetch;               /* too big for the cache: fetch the next instance ahead */
} crowd_batch;

static void update_share(void *context, uint32_t worker)
{
    const crowd_batch *b = context;
    if (worker >= b->threads)
        return; /* fewer instances than threads: the extra threads sit this batch out */
    /* Worker w's share [w·count/T, (w+1)·count/T): contiguous, sizes differ by one at most. */
    size_t first = b->count * worker / b->threads;
    size_t end = b->count * (worker + 1) / b->threads;
    for (size_t i = first; i < end; i++) {
        if (b->prefetch && i + 1 < end)
            mni_instance_prefetch(b->instances[i + 1]);
        mni_instance_update_in_batch(b->instances[i], b->dt, b->count);
    }
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
    uint32_t threads = pool ? mn_pool_thread_count(pool) : 1;
    if (threads < 1)
        threads = 1;
    if ((size_t)threads > count)
        threads = (uint32_t)count;
    crowd_batch batch = {instances, count, threads, dt,
                         mni_instance_batch_leaves_cache(instances[0], count)};
    if (threads == 1) {
        update_share(&batch, 0);
        return MN_OK;
    }
    return mni_pool_run(pool, update_share, &batch);
}
