/*
 * What the running CPU can do, asked in one place for every layer that picks
 * a SIMD kernel at run time (anim/skeleton.c, deform/skin.c), and how many
 * CPUs there are, for callers sizing a pool (marionette/pool.h).
 */
#define _POSIX_C_SOURCE 200809L /* sysconf under -std=c11 */

#include "core/core.h"

#include <unistd.h>

mn_cpu_simd mni_cpu_level(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    /* libgcc's (and compiler-rt's) cpu model also checks that the OS saves the YMM state. */
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return MN_CPU_AVX2_FMA;
    if (__builtin_cpu_supports("sse2"))
        return MN_CPU_SSE2;
#endif
    return MN_CPU_SCALAR;
}

uint32_t mn_cpu_count(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1)
        return 1;
    return cpus > (long)MN_POOL_MAX_THREADS ? MN_POOL_MAX_THREADS : (uint32_t)cpus;
}
