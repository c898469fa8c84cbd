/*
 * The expression head's forward and pose (docs/formats.md):
 * the scalar reference kernel and the choice of kernel.
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

#if MN_EXPR_X86 && defined(__GNUC__)
#include <cpuid.h>
#endif

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

bool mni_expression_has_f16c(void)
{
#if MN_EXPR_X86 && defined(__GNUC__)
    /* Every AVX2 CPU made has F16C, but the instruction sets are separate bits: ask cpuid
       (leaf 1, ECX bit 29; clang 14's __builtin_cpu_supports does not know "f16c"). */
    unsigned a, b, c, d;
    return mni_cpu_level() == MN_CPU_AVX2_FMA && __get_cpuid(1, &a, &b, &c, &d) &&
           (c & (1u << 29)) != 0;
#else
    return false;
#endif
}

mn_simd_level mni_expression_level(mn_simd_level wanted)
{
    if (wanted == MN_SIMD_SCALAR)
        return MN_SIMD_SCALAR;
#if MN_EXPR_X86
    return mni_expression_has_f16c() ? MN_SIMD_AVX2_FMA : MN_SIMD_SCALAR;
#elif MN_EXPR_NEON
    return MN_SIMD_NEON;
#else
    return MN_SIMD_SCALAR;
#endif
}

void mni_expression_run(const mn_expr_frame *f, mn_simd_level level)
{
#if MN_EXPR_X86
    if (level == MN_SIMD_AVX2_FMA) {
        mni_expression_avx2(f);
        return;
    }
#endif
#if MN_EXPR_NEON
    if (level == MN_SIMD_NEON) {
        mn_expression_neon(f);
        return;
    }
#endif
    (void)level;
    mni_expression_scalar(f);
}
