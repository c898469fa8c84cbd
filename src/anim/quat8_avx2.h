/*
 * Eight quaternions a register set: the AVX2 helpers shared by the pose
 * blend (blend_avx2.c) and the clip sampler (clip_avx2.c).  Not installed.
 *
 * Include only inside an x86-64 GCC/clang block: every function carries the
 * AVX2 target attribute (no FMA, so each lane does exactly the IEEE
 * operations of the SSE2 and scalar code it mirrors), and runs only after
 * mni_cpu_level() said the CPU has AVX2.
 *
 * Layout: x, y, z, w registers with quaternions 0-3 in the low 128-bit half
 * and 4-7 in the high.  Each register pair is loaded as [q_i | q_i+4] (the
 * high half inserted straight from memory, mn_load_halves), so the
 * transpose is eight in-lane shuffles (mn_transpose_halves4) where two
 * 4 × 4 SSE transposes joined cost twenty: on the one shuffle port those
 * were about a fifth of a 64-joint blend.
 */
#ifndef MN_ANIM_QUAT8_AVX2_H
#define MN_ANIM_QUAT8_AVX2_H

#include "core/avx2_lanes.h"

#include <float.h>
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

AVX2 static inline __m256 select8(__m256 mask, __m256 yes, __m256 no)
{
    return _mm256_or_ps(_mm256_and_ps(mask, yes), _mm256_andnot_ps(mask, no));
}

/* ((a0·b0 + a1·b1) + a2·b2) + a3·b3 per lane: the scalar dot's order. */
AVX2 static inline __m256 dot8(const __m256 a[4], const __m256 b[4])
{
    __m256 d = _mm256_add_ps(_mm256_mul_ps(a[0], b[0]), _mm256_mul_ps(a[1], b[1]));
    d = _mm256_add_ps(d, _mm256_mul_ps(a[2], b[2]));
    return _mm256_add_ps(d, _mm256_mul_ps(a[3], b[3]));
}

/* Eight consecutive quaternions at q into x, y, z, w registers. */
AVX2 static inline void load_quats8(const float *q, __m256 r[4])
{
    __m256 t[4];
    for (int i = 0; i < 4; i++)
        t[i] = mn_load_halves(q + 4 * i, q + 16 + 4 * i);
    mn_transpose_halves4(t, r);
}

/* x, y, z, w registers back to eight consecutive quaternions at q. */
AVX2 static inline void store_quats8(float *q, const __m256 r[4])
{
    __m256 t[4];
    mn_transpose_halves4(r, t);
    for (int i = 0; i < 4; i++) {
        _mm_storeu_ps(q + 4 * i, _mm256_castps256_ps128(t[i]));
        _mm_storeu_ps(q + 16 + 4 * i, _mm256_extractf128_ps(t[i], 1));
    }
}

/*
 * q / |q| per lane, the identity where |q| is zero or not finite: the
 * scalar quat_normalize_to's arithmetic (|q|² ≤ FLT_MAX exactly when |q| is
 * finite, and 1/√(|q|²) is its 1/|q|).
 */
AVX2 static inline void normalize8(__m256 q[4])
{
    __m256 n2 = dot8(q, q), zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    __m256 ok = _mm256_and_ps(_mm256_cmp_ps(n2, zero, _CMP_GT_OQ),
                              _mm256_cmp_ps(n2, _mm256_set1_ps(FLT_MAX), _CMP_LE_OQ));
    __m256 inv = _mm256_div_ps(one, _mm256_sqrt_ps(n2));
    q[0] = _mm256_and_ps(ok, _mm256_mul_ps(q[0], inv));
    q[1] = _mm256_and_ps(ok, _mm256_mul_ps(q[1], inv));
    q[2] = _mm256_and_ps(ok, _mm256_mul_ps(q[2], inv));
    q[3] = select8(ok, _mm256_mul_ps(q[3], inv), one);
}

#endif /* MN_ANIM_QUAT8_AVX2_H */
