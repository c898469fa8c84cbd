/*
 * The expression head's basis sum with AArch64 Advanced SIMD, four lanes
 * (expression_kernel.h).  Every AArch64 CPU has it, half-to-float
 * conversion included (FCVTL), so an AArch64 build runs this kernel without
 * asking the CPU; 32-bit ARM keeps the reference.
 */
#include "head/expression_internal.h"

#if MN_WITH_NEON
#include "core/lanes_neon.h"
#include "head/expression_kernel.h"
#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_expression_neon_unused;
#endif
