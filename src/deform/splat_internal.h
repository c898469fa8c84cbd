/*
 * Private to the splat deform: choosing a kernel and running it over a
 * range of splats, shared by the single-thread entry point (splat_skin.c)
 * and the threaded skinner (splat_skinner.c).  Not installed.
 */
#ifndef MN_DEFORM_SPLAT_INTERNAL_H
#define MN_DEFORM_SPLAT_INTERNAL_H

#include <marionette/splat.h>

#include <stddef.h>

/* The kernel that runs for `wanted` on this CPU and build (BEST: the widest there is). */
mn_splat_simd mn_splat_level(mn_splat_simd wanted);

/* Deform splats [first, end) with a level mn_splat_level returned.  Each splat alone: any split gives the same bits. */
void mn_splat_skin_range(const mn_splat_skin_job *job, mn_splat_simd level, size_t first,
                         size_t end);

/* Pointers and counts of a job (not joint indices); err may be NULL. */
mn_status mn_splat_job_check(const mn_splat_skin_job *job, mn_error *err);

#endif /* MN_DEFORM_SPLAT_INTERNAL_H */
