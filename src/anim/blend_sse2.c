/*
 * The pose blend and the additive layer with SSE2, four joints a register:
 * blend_kernel.h at four lanes (core/simd.h, the convention).  SSE2 is the
 * x86-64 baseline: blend.c's dispatch runs these at MN_SIMD_SSE2, and at
 * MN_SIMD_AVX2_FMA on the groups of four the AVX2 kernels leave.  They always sum the series'
 * eight terms, as the reference does (BLEND_SHORT_SERIES 0): the bits they
 * have always given.
 */
#include "anim/blend_internal.h"

#if MN_WITH_SSE2
#include "core/lanes_sse2.h"
#define BLEND_SHORT_SERIES 0
#include "anim/blend_kernel.h"
#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_blend_sse2_unused;
#endif
