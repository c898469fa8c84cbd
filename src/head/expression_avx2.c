/*
 * The expression head's basis sum with AVX2, FMA and F16C, eight lanes
 * (expression_kernel.h), chosen at run time by expression.c when the level
 * resolves to MN_SIMD_AVX2_FMA and the CPU has F16C.
 */
#include "head/expression_internal.h"

#if MN_WITH_AVX2
#include "core/lanes_avx2.h"
#include "head/expression_kernel.h"
#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_expression_avx2_unused;
#endif
