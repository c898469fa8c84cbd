/*
 * The clip sampler's rotation runs with AVX2, eight tracks at a time:
 * clip_kernel.h at eight lanes (core/simd.h, the convention), chosen at run
 * time by clip.c's dispatch at MN_SIMD_AVX2_FMA.  No fused multiply-add:
 * every lane is bit for bit the scalar code.
 */
#include "anim/clip_internal.h"

#if MN_WITH_AVX2
#include "core/lanes_avx2.h"
#include "anim/clip_kernel.h"
#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_clip_avx2_unused;
#endif
