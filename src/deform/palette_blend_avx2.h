/*
 * The blend of a skin palette that mesh skinning (skin_avx2.c) and splat
 * skinning (character/splat_skin_avx2.c) both start from: one vertex's or
 * splat's M = Σ w_k · palette[j_k], its 4x4 column-major matrix held as
 * columns 0-1 (c01) and 2-3 (c23, column 3 the translation) in two AVX
 * registers.
 *
 * AVX2 code (core/simd.h, the convention): include after core/lanes_avx2.h,
 * whose MN_LANE compiles it for AVX2 and FMA.  Not installed.
 */
#ifndef MN_DEFORM_PALETTE_BLEND_AVX2_H
#define MN_DEFORM_PALETTE_BLEND_AVX2_H

#if VF_W != 8
#error "include core/lanes_avx2.h first"
#endif

#include <stddef.h>
#include <stdint.h>

MN_LANE void mn_palette_blend_avx2(const float *pal, const uint16_t *j, const float *w, size_t ic,
                                   __m256 *c01, __m256 *c23)
{
    const float *m = pal + 16 * (size_t)j[0];
    __m256 wk = _mm256_broadcast_ss(w);
    __m256 a = _mm256_mul_ps(_mm256_loadu_ps(m), wk);
    __m256 b = _mm256_mul_ps(_mm256_loadu_ps(m + 8), wk);
    for (size_t k = 1; k < ic; k++) {
        m = pal + 16 * (size_t)j[k];
        wk = _mm256_broadcast_ss(w + k);
        a = _mm256_fmadd_ps(_mm256_loadu_ps(m), wk, a);
        b = _mm256_fmadd_ps(_mm256_loadu_ps(m + 8), wk, b);
    }
    *c01 = a;
    *c23 = b;
}

#endif
