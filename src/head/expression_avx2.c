/*
 * The expression head's basis sum with AVX2, FMA and F16C, chosen at run
 * time (mni_expression_has_f16c).  Only this file's functions are compiled
 * for those extensions (the target attribute), so the library stays baseline
 * x86-64.
 *
 * A vertex's row is 3E halves, x y z per coefficient, and coef3 is the same
 * length.  Eight halves at a time are widened by vcvtph2ps (exact, as the
 * f16 rule asks) and multiply-added against coef3.  Eight lanes do
 * not divide into x y z triples, but 24 do: the row is walked in blocks of
 * 24 halves with three accumulators, so lane l of accumulator m always holds
 * component (8m + l) mod 3 and the three are folded into x, y, z once per
 * vertex.  The last row % 8 halves (fewer than eight) are summed one by one.
 *
 * The sum's order differs from the reference's (eight partial sums a
 * component, fused multiply-adds), so results agree with it within float
 * rounding of a dot product, not to the bit; everything after the sum is the
 * shared mni_expression_finish.
 */
#include "head/expression_internal.h"

#if MN_EXPR_X86

#include <immintrin.h>

#define AVX2_FN __attribute__((target("avx2,fma,f16c")))
#define AVX2_INLINE static inline __attribute__((always_inline, target("avx2,fma,f16c")))

AVX2_INLINE __m256 load_halves(const uint16_t *h)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)h));
}

/* x y z of one row: the three accumulators' lanes folded by component. */
AVX2_INLINE void row_sum(const uint16_t *b, const float *c, size_t row, float xyz[3])
{
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 24 <= row; i += 24) {
        a0 = _mm256_fmadd_ps(load_halves(b + i), _mm256_loadu_ps(c + i), a0);
        a1 = _mm256_fmadd_ps(load_halves(b + i + 8), _mm256_loadu_ps(c + i + 8), a1);
        a2 = _mm256_fmadd_ps(load_halves(b + i + 16), _mm256_loadu_ps(c + i + 16), a2);
    }
    /* At most two more whole blocks of eight, continuing the lane pattern. */
    if (i + 8 <= row) {
        a0 = _mm256_fmadd_ps(load_halves(b + i), _mm256_loadu_ps(c + i), a0);
        i += 8;
        if (i + 8 <= row) {
            a1 = _mm256_fmadd_ps(load_halves(b + i), _mm256_loadu_ps(c + i), a1);
            i += 8;
        }
    }
    float lanes[24];
    _mm256_storeu_ps(lanes, a0);
    _mm256_storeu_ps(lanes + 8, a1);
    _mm256_storeu_ps(lanes + 16, a2);
    float s[3] = {0.0f, 0.0f, 0.0f};
    for (int l = 0; l < 24; l += 3) {
        s[0] += lanes[l];
        s[1] += lanes[l + 1];
        s[2] += lanes[l + 2];
    }
    /* The tail starts at a multiple of 8, so its component is i mod 3. */
    for (; i < row; i++)
        s[i % 3] += c[i] * _cvtsh_ss(b[i]);
    xyz[0] = s[0];
    xyz[1] = s[1];
    xyz[2] = s[2];
}

AVX2_FN void mni_expression_avx2(const mn_expr_frame *f)
{
    const size_t row = f->row;
    const uint16_t *b = f->basis;
    for (size_t v = 0; v < f->vertex_count; v++, b += row) {
        const float *n = f->neutral + 3 * v;
        float s[3];
        row_sum(b, f->coef3, row, s);
        float p[3] = {n[0] + s[0], n[1] + s[1], n[2] + s[2]};
        mni_expression_finish(f, v, p);
    }
}

#endif /* MN_EXPR_X86 */
