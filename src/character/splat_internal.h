/*
 * Private to the splat deform: choosing a kernel and running it over a
 * range of splats, shared by the single-thread entry point (splat_skin.c),
 * the threaded skinner (splat_skinner.c) and the AVX2 kernel
 * (splat_skin_avx2.c).  Not installed.
 */
#ifndef MN_CHARACTER_SPLAT_INTERNAL_H
#define MN_CHARACTER_SPLAT_INTERNAL_H

#include <marionette/character/splat.h>

#include "core/core.h"

#include <stddef.h>

/* x86-64 builds carry the SSE2 and AVX2+FMA kernels (the latter entered only on a CPU with both). */
#if defined(__x86_64__) && !defined(MN_NO_SIMD)
#define MN_SPLAT_X86 1
#else
#define MN_SPLAT_X86 0
#endif

/*
 * Deform splats [first, end) with the kernel of a level mni_simd_resolve
 * returned (NEON, which has no kernel here, runs the reference).  Each splat
 * alone: any split gives the same bits.
 */
void mni_splat_skin_range(const mn_splat_skin_job *job, mn_simd_level level, size_t first,
                         size_t end);

#if MN_SPLAT_X86
/* The AVX2+FMA kernel (splat_skin_avx2.c) over splats [first, end). */
void mni_splat_skin_avx2(const mn_splat_skin_job *job, size_t first, size_t end);
#endif

/* Pointers and counts of a job (not joint indices); err may be NULL. */
mn_status mni_splat_job_check(const mn_splat_skin_job *job, mn_error *err);

#endif /* MN_CHARACTER_SPLAT_INTERNAL_H */
