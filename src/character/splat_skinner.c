/*
 * The splat deform across threads, on a worker pool made with the skinner
 * (core/pool.c).  A run shares the splats out in chunks, the calling
 * thread working too, so a thread that is descheduled (two cores shared
 * with other work) holds back one chunk at most.  Nothing allocates after
 * creation.
 */
#include "character/splat_internal.h"

#include "core/core.h"

/*
 * Splats a chunk: a multiple of every kernel's width, so that chunks split
 * at the same splats whatever the thread count; 2048 splats are about 100 KB
 * of inputs and outputs, small against a frame and large against a wake-up.
 */
#define SPLAT_CHUNK 2048u

struct mn_splat_skinner {
    mn_allocator allocator;
    uint32_t threads;              /* the caller's included */
    mn_pool *pool;                 /* NULL for one thread */
};

typedef struct splat_batch {
    const mn_splat_skin_job *job;
    mn_simd_level level;
} splat_batch;

static void skin_range(void *context, size_t first, size_t end, uint32_t worker)
{
    (void)worker;
    const splat_batch *b = context;
    mni_splat_skin_range(b->job, b->level, first, end);
}

MN_API mn_status mn_splat_skinner_create(uint32_t thread_count, const mn_allocator *allocator,
                                         mn_splat_skinner **out, mn_error *err)
{
    mni_error_clear(err);
    if (!out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    mn_allocator hooks = {0};
    if (allocator)
        hooks = *allocator;
    mn_splat_skinner *s = mni_alloc(&hooks, sizeof *s);
    if (!s)
        return mni_oom(err, "splat skinner");
    *s = (mn_splat_skinner){.allocator = hooks, .threads = thread_count ? thread_count : 1};
    if (s->threads > 1) {
        mn_status st = mn_pool_create(s->threads, &hooks, &s->pool, err);
        if (st != MN_OK) {
            mni_free(&hooks, s, sizeof *s);
            return st;
        }
    }
    *out = s;
    return MN_OK;
}

MN_API uint32_t mn_splat_skinner_threads(const mn_splat_skinner *skinner)
{
    return skinner ? skinner->threads : 0;
}

MN_API mn_status mn_splat_skinner_run(mn_splat_skinner *skinner, const mn_splat_skin_job *job,
                                      mn_simd_level level)
{
    if (!skinner)
        return MN_INVALID_ARGUMENT;
    mn_status st = mni_splat_job_check(job, NULL);
    if (st != MN_OK)
        return st;
    splat_batch batch = {job, mni_simd_resolve(level)};
    return mni_pool_for(skinner->pool, job->count, SPLAT_CHUNK, skin_range, &batch);
}

MN_API void mn_splat_skinner_free(mn_splat_skinner *skinner)
{
    if (!skinner)
        return;
    mn_pool_free(skinner->pool);
    mn_allocator hooks = skinner->allocator;
    mni_free(&hooks, skinner, sizeof *skinner);
}
