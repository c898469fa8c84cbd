/*
 * The expression head's forward and pose (docs/formats.md):
 * the scalar reference kernel and the choice of kernel (core/simd.h, the
 * convention; the SIMD kernels are expression_avx2.c and expression_neon.c
 * over expression_kernel.h).
 *
 *   p[v]  = neutral[v] + Σ_e c[e]·basisScale[e]·basis[v,e]    (the basis sum)
 *   p[v] += eyeWeights[k,v]·(R_k·(p[v] − eye_k) + eye_k − p[v]) for the left eye, then the right
 *   out[v] = Σ_i w[v,i]·S_j·(p[v] + stitchLocal[v])           (pose only)
 *
 * The basis sum is the whole cost: 3E halves a vertex, read once, a
 * multiply-add each.  The coefficients arrive already scaled and repeated
 * for x, y and z (coef3), so a vertex's row is a plain dot product against
 * one short vector that stays in L1 while the basis streams past.
 */
#include "head/expression_internal.h"
#include "core/core.h"

void mni_expression_scalar(const mn_expr_frame *f)
{
    const size_t row = f->row;
    const uint16_t *b = f->basis;
    for (size_t v = 0; v < f->vertex_count; v++, b += row) {
        const float *n = f->neutral + 3 * v;
        float x = 0.0f, y = 0.0f, z = 0.0f;
        for (size_t i = 0; i < row; i += 3) {
            x += f->coef3[i] * mni_half_to_float(b[i]);
            y += f->coef3[i + 1] * mni_half_to_float(b[i + 1]);
            z += f->coef3[i + 2] * mni_half_to_float(b[i + 2]);
        }
        float p[3] = {n[0] + x, n[1] + y, n[2] + z};
        mni_expression_finish(f, v, p);
    }
}

mn_simd_level mni_expression_level(mn_simd_level wanted)
{
    switch (mni_simd_resolve(wanted)) {
    case MN_SIMD_AVX2_FMA:
        return mni_cpu_has_f16c() ? MN_SIMD_AVX2_FMA : MN_SIMD_SCALAR;
    case MN_SIMD_NEON:
        return MN_SIMD_NEON;
    default: /* no SSE2 kernel: SSE2 has no half conversion */
        return MN_SIMD_SCALAR;
    }
}

void mni_expression_run(const mn_expr_frame *f, mn_simd_level level)
{
    switch (level) {
#if MN_WITH_AVX2
    case MN_SIMD_AVX2_FMA:
        mni_expression_avx2(f);
        return;
#endif
#if MN_WITH_NEON
    case MN_SIMD_NEON:
        mni_expression_neon(f);
        return;
#endif
    default:
        mni_expression_scalar(f);
        return;
    }
}
