/*
 * The crowd: mn_instance_update over many instances at once, on the worker
 * pool (core/pool.c).  The instances are shared out in small chunks, so a
 * thread that drew cheap instances takes more, and each instance is updated
 * by exactly one thread with the same code as mn_instance_update, which is
 * why the results are bit-identical to a serial loop.
 */
#include <marionette/instance.h>

#include "core/core.h"

typedef struct crowd_batch {
    mn_instance *const *instances;
    float dt;
} crowd_batch;

static void update_range(void *context, size_t first, size_t end, uint32_t worker)
{
    (void)worker;
    const crowd_batch *b = context;
    for (size_t i = first; i < end; i++)
        mn_instance_update(b->instances[i], b->dt);
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
    /* Small chunks balance uneven instances; several per thread keep the counter cool. */
    size_t chunk = count / ((size_t)mn_pool_thread_count(pool) * 8);
    crowd_batch batch = {instances, dt};
    return mni_pool_for(pool, count, chunk ? chunk : 1, update_range, &batch);
}
