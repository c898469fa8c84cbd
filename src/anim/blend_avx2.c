/*
 * The pose blend and the additive layer with AVX2, eight joints a register:
 * blend_kernel.h at eight lanes (core/simd.h, the convention), chosen at run
 * time by blend.c's dispatch at MN_SIMD_AVX2_FMA.  No fused multiply-add:
 * every lane does the SSE2 kernel's IEEE operations in its order, but a
 * group of close joints sums fewer of the series' terms
 * (BLEND_SHORT_SERIES 1): within 1e-6 of the reference, and the SSE2
 * kernel's bits wherever a group sums all eight (tests/test_blend.c holds
 * both on its cases).
 */
#include "anim/blend_internal.h"

#if MN_WITH_AVX2
#include "core/lanes_avx2.h"
#define BLEND_SHORT_SERIES 1
#include "anim/blend_kernel.h"
#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_blend_avx2_unused;
#endif
