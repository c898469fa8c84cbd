/*
 * Which instruction sets this build has SIMD kernels for, the guards every
 * kernel family's files test (MN_WITH_SSE2, MN_WITH_AVX2, MN_WITH_NEON: all
 * 0 with MN_NO_SIMD); what the CPU runs is asked of mn_simd_detect()
 * (core/cpu.c).  Not installed.
 */
#ifndef MN_CORE_SIMD_H
#define MN_CORE_SIMD_H

#include "core/core.h"

/* Which instruction sets this build has kernels for (GCC and clang, which the attributes need). */
#if !defined(MN_NO_SIMD) && defined(__GNUC__) && defined(__x86_64__)
#define MN_WITH_SSE2 1
#define MN_WITH_AVX2 1
#else
#define MN_WITH_SSE2 0
#define MN_WITH_AVX2 0
#endif

/* 32-bit ARM runs the reference: its NEON has no vector divide or square root. */
#if !defined(MN_NO_SIMD) && defined(__GNUC__) && defined(__aarch64__) && defined(__ARM_NEON)
#define MN_WITH_NEON 1
#else
#define MN_WITH_NEON 0
#endif

#endif /* MN_CORE_SIMD_H */
