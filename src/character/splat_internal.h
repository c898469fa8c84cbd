/*
 * Private to the splat deform: its kernels and the dispatch that runs one
 * over a range of splats, shared by the single-thread entry point
 * (splat_skin.c), the threaded skinner (splat_skinner.c) and the kernels
 * (splat_skin_sse2.c, splat_skin_avx2.c).  Not installed.
 */
#ifndef MN_CHARACTER_SPLAT_INTERNAL_H
#define MN_CHARACTER_SPLAT_INTERNAL_H

#include <marionette/character/splat.h>

#include "core/simd.h"

#include <stddef.h>

/*
 * Deform splats [first, end) with the kernel of `level`, a level
 * mni_simd_resolve returned (the one dispatch: the widest kernel not above
 * it).  Each splat alone: any split gives the same bits.
 */
void mni_splat_skin_range(const mn_splat_skin_job *job, mn_simd_level level, size_t first,
                          size_t end);

/*
 * The kernels over splats [first, end), one a level (core/simd.h, the
 * convention): the reference (splat_skin.c, always built), SSE2
 * (splat_skin_sse2.c) and AVX2+FMA (splat_skin_avx2.c).
 */
void mni_splat_skin_scalar(const mn_splat_skin_job *job, size_t first, size_t end);
#if MN_WITH_SSE2
void mni_splat_skin_sse2(const mn_splat_skin_job *job, size_t first, size_t end);
#endif
#if MN_WITH_AVX2
void mni_splat_skin_avx2(const mn_splat_skin_job *job, size_t first, size_t end);
#endif

/* Pointers and counts of a job (not joint indices); err may be NULL. */
mn_status mni_splat_job_check(const mn_splat_skin_job *job, mn_error *err);

#endif /* MN_CHARACTER_SPLAT_INTERNAL_H */
