/*
 * The expression head's basis sum with AArch64 Advanced SIMD.  Every AArch64
 * CPU has it, half-to-float conversion included (FCVTL), so an AArch64 build
 * runs this kernel without asking the CPU; 32-bit ARM keeps the reference.
 *
 * The shape is the AVX2 kernel's (expression_avx2.c) at four lanes: a row's
 * halves are walked in blocks of twelve with three accumulators, so lane l of
 * accumulator m always holds component (4m + l) mod 3; up to two more blocks
 * of four continue the pattern, and the last row % 4 halves are summed one by
 * one.  Loads read only the row's own halves.  Fused multiply-adds and eight
 * partial sums make the result agree with the reference within float
 * rounding of a dot product, not to the bit.
 */
#include "head/expression_internal.h"

#if MN_EXPR_NEON

#include <arm_neon.h>

#define NEON_INLINE static inline __attribute__((always_inline))

NEON_INLINE float32x4_t load_halves(const uint16_t *h)
{
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(h)));
}

NEON_INLINE void row_sum(const uint16_t *b, const float *c, size_t row, float xyz[3])
{
    float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0, a2 = a0;
    size_t i = 0;
    for (; i + 12 <= row; i += 12) {
        a0 = vfmaq_f32(a0, load_halves(b + i), vld1q_f32(c + i));
        a1 = vfmaq_f32(a1, load_halves(b + i + 4), vld1q_f32(c + i + 4));
        a2 = vfmaq_f32(a2, load_halves(b + i + 8), vld1q_f32(c + i + 8));
    }
    if (i + 4 <= row) {
        a0 = vfmaq_f32(a0, load_halves(b + i), vld1q_f32(c + i));
        i += 4;
        if (i + 4 <= row) {
            a1 = vfmaq_f32(a1, load_halves(b + i), vld1q_f32(c + i));
            i += 4;
        }
    }
    float lanes[12];
    vst1q_f32(lanes, a0);
    vst1q_f32(lanes + 4, a1);
    vst1q_f32(lanes + 8, a2);
    float s[3] = {0.0f, 0.0f, 0.0f};
    for (int l = 0; l < 12; l += 3) {
        s[0] += lanes[l];
        s[1] += lanes[l + 1];
        s[2] += lanes[l + 2];
    }
    for (; i < row; i++)
        s[i % 3] += c[i] * mni_half_to_float(b[i]);
    xyz[0] = s[0];
    xyz[1] = s[1];
    xyz[2] = s[2];
}

void mn_expression_neon(const mn_expr_frame *f)
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

#endif /* MN_EXPR_NEON */
