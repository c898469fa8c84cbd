/*
 * What the running CPU and this build can do, asked in one place for every
 * kernel family that picks a SIMD kernel at run time (core/simd.h says how
 * they use the answer), and how many CPUs there are, for callers sizing a
 * pool (marionette/pool.h).
 */
#define _POSIX_C_SOURCE 200809L /* sysconf under -std=c11 */

#include "core/simd.h"

#include <unistd.h>

#if MN_WITH_AVX2
#include <cpuid.h>
#endif

mn_simd_level mn_simd_detect(void)
{
#if MN_WITH_AVX2
    /* libgcc's (and compiler-rt's) CPU model, read once at load; it also checks that the OS
       saves the YMM state. */
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return MN_SIMD_AVX2_FMA;
#endif
#if MN_WITH_SSE2
    return MN_SIMD_SSE2; /* the x86-64 baseline; WebAssembly SIMD in the web build (core/simd.h) */
#elif MN_WITH_NEON
    return MN_SIMD_NEON; /* the AArch64 baseline */
#else
    return MN_SIMD_SCALAR;
#endif
}

/* The x86-64 levels above the reference, ordered by their values. */
static bool x86_simd(mn_simd_level level)
{
    return level == MN_SIMD_SSE2 || level == MN_SIMD_AVX2_FMA;
}

mn_simd_level mni_simd_resolve(mn_simd_level wanted)
{
    if (wanted == MN_SIMD_SCALAR)
        return MN_SIMD_SCALAR;
    mn_simd_level best = mn_simd_detect();
    if (x86_simd(wanted) && x86_simd(best))
        return wanted < best ? wanted : best;
    /* MN_SIMD_BEST, a level above what runs here, another architecture's, an unknown value */
    return best;
}

bool mni_cpu_has_f16c(void)
{
#if MN_WITH_AVX2
    /* Every AVX2 CPU made has F16C, but they are separate bits: ask cpuid (leaf 1, ECX bit 29;
       clang 14's __builtin_cpu_supports does not know "f16c").  A few hundred cycles, more
       under a hypervisor: for set-up, not for a frame. */
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)) != 0;
#else
    return false;
#endif
}

uint32_t mn_cpu_count(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1)
        return 1;
    return cpus > (long)MN_POOL_MAX_THREADS ? MN_POOL_MAX_THREADS : (uint32_t)cpus;
}
