/*
 * marionette/pool.h — the worker pool: the one way the library runs work on
 * more than one thread, and the CPU count to size one with.
 *
 *     mn_pool *pool;           mn_pool_create(mn_cpu_count(), NULL, &pool, &err);
 *     for (;;)                 mn_instances_update(pool, crowd, crowd_count, dt);
 *     mn_pool_free(pool);
 *
 * THE LIBRARY STARTS NO THREAD UNLESS ASKED
 *   Every count of threads the library takes counts the caller's thread, and
 *   0 means 1: mn_pool_create, mn_render_options.threads,
 *   mn_splat_skinner_create and mn_obj_options.threads.  With 1 the work runs
 *   on the calling thread and no thread is started.  With N > 1 a pool of
 *   N − 1 worker threads does the work beside the caller: the renderer and
 *   the splat skinner make theirs when they are created and stop it when
 *   freed; an OBJ read makes one for the read of a big text only (the OBJ
 *   reader's header says when); mn_instances_update runs on the caller's
 *   pool, and a renderer may draw on one too (mn_render_options.pool).  For
 *   one thread per CPU, pass mn_cpu_count().  Results never depend on the
 *   number of threads.
 *
 * HOW A POOL WORKS
 *   The worker threads start with the pool and sleep between batches.  A
 *   batch wakes them all; the caller works on it too and returns when every
 *   thread is done.  The items of a batch are handed out in small chunks
 *   from one counter, so a thread that is descheduled holds back one chunk
 *   at most.  Running a batch allocates nothing.
 *
 * THREAD SAFETY
 *   A pool runs one batch at a time.  A batch asked of a pool of several
 *   threads while another is running on it (from another thread, or from
 *   inside that batch's own work) is refused with MN_INVALID_ARGUMENT and
 *   nothing is run: share a pool between objects used from one thread, or
 *   give each thread its own.  A NULL pool or a pool of one thread runs
 *   everything on the calling thread and never refuses.
 */
#ifndef MARIONETTE_POOL_H
#define MARIONETTE_POOL_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most threads a pool runs on, the caller's included. */
#define MN_POOL_MAX_THREADS 256u

/*
 * The CPUs online now, from 1 to MN_POOL_MAX_THREADS (1 when the system
 * does not say), so that it can be passed to mn_pool_create as it is.  For
 * callers who want one thread per CPU; the library never calls it for them.
 */
MN_API uint32_t mn_cpu_count(void);

typedef struct mn_pool mn_pool;

/*
 * Make a pool that works on `threads` threads counting the caller's: it
 * starts threads − 1 worker threads, which sleep until a batch comes.  0 and
 * 1 start none (every batch then runs on the calling thread).  The pool
 * allocates once, here, through `allocator` (NULL or zeroed: malloc/free).
 * On success *out is the pool (free with mn_pool_free).
 * Errors (*out = NULL, no thread left running): MN_INVALID_ARGUMENT (NULL
 * out, threads above MN_POOL_MAX_THREADS), MN_OUT_OF_MEMORY (no memory, or
 * the system refused to start a thread).
 */
MN_API mn_status mn_pool_create(uint32_t threads, const mn_allocator *allocator, mn_pool **out,
                                mn_error *err);

/*
 * Stop and join the worker threads and free the pool.  Not while a batch
 * runs on it, nor while a renderer drawing on it lives.  NULL is allowed.
 */
MN_API void mn_pool_free(mn_pool *pool);

/* Threads a batch runs on, the caller's included: 1 for a NULL pool. */
MN_API uint32_t mn_pool_thread_count(const mn_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_POOL_H */
