/*
 * The lane layer at AVX2: vf is eight floats (__m256), lanes 0-3 in the low
 * 128-bit half and 4-7 in the high.  The operations of lanes_sse2.h at
 * twice the width (core/simd.h, the convention), plus the moves between
 * memory and the two halves that the AVX2 kernels share and the half-float
 * conversions (F16C).  Include from an instruction-set file under
 * #if MN_WITH_AVX2, one lane header a translation unit.  Not installed.
 *
 * Everything here, and every function of a file that includes it, is
 * compiled for AVX2, FMA and F16C through MN_LANE and MN_KERNEL, and runs
 * only after a dispatch resolved MN_SIMD_AVX2_FMA (F16C: only the expression
 * head converts halves, and its dispatch also asks mni_cpu_has_f16c).
 * vf_madd is fused (one rounding); comparisons are ordered and quiet.
 */
#ifdef VF_W
#error "one lane layer a translation unit"
#endif

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

typedef __m256 vf;
#define VF_W 8
#define VF_ALL 0xFF /* vf_movemask of a mask true in every lane */

#define MN_LANE static inline __attribute__((always_inline, target("avx2,fma,f16c")))
#define MN_KERNEL __attribute__((target("avx2,fma,f16c")))
#define MN_ISA(name) name##_avx2

MN_LANE vf vf_set1(float x) { return _mm256_set1_ps(x); }
MN_LANE vf vf_zero(void) { return _mm256_setzero_ps(); }
MN_LANE vf vf_loadu(const float *p) { return _mm256_loadu_ps(p); }
MN_LANE void vf_storeu(float *p, vf v) { _mm256_storeu_ps(p, v); }
/* p 32-byte aligned */
MN_LANE vf vf_load(const float *p) { return _mm256_load_ps(p); }
MN_LANE void vf_store(float *p, vf v) { _mm256_store_ps(p, v); }

MN_LANE vf vf_add(vf a, vf b) { return _mm256_add_ps(a, b); }
MN_LANE vf vf_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
MN_LANE vf vf_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
MN_LANE vf vf_div(vf a, vf b) { return _mm256_div_ps(a, b); }
MN_LANE vf vf_sqrt(vf a) { return _mm256_sqrt_ps(a); }
/* a·b + c, fused */
MN_LANE vf vf_madd(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
/* About 1/a and 1/√a (12 bits): for scales, never for a result */
MN_LANE vf vf_rcp(vf a) { return _mm256_rcp_ps(a); }
MN_LANE vf vf_rsqrt(vf a) { return _mm256_rsqrt_ps(a); }

MN_LANE vf vf_and(vf a, vf b) { return _mm256_and_ps(a, b); }
MN_LANE vf vf_or(vf a, vf b) { return _mm256_or_ps(a, b); }
MN_LANE vf vf_xor(vf a, vf b) { return _mm256_xor_ps(a, b); }
/* ~a & b */
MN_LANE vf vf_andnot(vf a, vf b) { return _mm256_andnot_ps(a, b); }

MN_LANE vf vf_lt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
MN_LANE vf vf_le(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
MN_LANE vf vf_gt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
MN_LANE vf vf_ge(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
MN_LANE vf vf_eq(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
/* lanes whose 32 bits are equal (+0 and -0 differ, a NaN can equal itself) */
MN_LANE vf vf_same_bits(vf a, vf b)
{
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_castps_si256(a), _mm256_castps_si256(b)));
}
/* the mask true in every lane */
MN_LANE vf vf_true(void) { return _mm256_castsi256_ps(_mm256_set1_epi32(-1)); }

/* mask ? yes : no, lane by lane (one blend: the mask's lanes are all or nothing) */
MN_LANE vf vf_select(vf mask, vf yes, vf no) { return _mm256_blendv_ps(no, yes, mask); }
MN_LANE int vf_movemask(vf mask) { return _mm256_movemask_ps(mask); }
/* a > b ? x : y, lane by lane; and whether a > b in every lane */
MN_LANE vf vf_sel_gt(vf a, vf b, vf x, vf y) { return vf_select(vf_gt(a, b), x, y); }
MN_LANE bool vf_all_gt(vf a, vf b) { return _mm256_movemask_ps(vf_gt(a, b)) == VF_ALL; }
/* x negated where s has its sign bit set */
MN_LANE vf vf_flipsign(vf x, vf s) { return _mm256_xor_ps(x, _mm256_and_ps(s, _mm256_set1_ps(-0.0f))); }

/* Four floats at lo in the low half, four at hi in the high (the insert loads from memory). */
MN_LANE vf vf_load_halves(const float *lo, const float *hi)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo)), _mm_loadu_ps(hi), 1);
}

/*
 * The 4 × 4 transpose within each 128-bit half of in[0..3] into out[0..3]
 * (out may be in): pairs [q_i | q_i+4] of four-float records become one
 * register per field, and (being its own inverse) back.  Eight in-lane
 * shuffles, where two 4 × 4 SSE transposes joined cost twenty on the one
 * shuffle port.
 */
MN_LANE void vf_transpose_halves4(const vf in[4], vf out[4])
{
    __m256 lo01 = _mm256_unpacklo_ps(in[0], in[1]), hi01 = _mm256_unpackhi_ps(in[0], in[1]);
    __m256 lo23 = _mm256_unpacklo_ps(in[2], in[3]), hi23 = _mm256_unpackhi_ps(in[2], in[3]);
    out[0] = _mm256_shuffle_ps(lo01, lo23, _MM_SHUFFLE(1, 0, 1, 0));
    out[1] = _mm256_shuffle_ps(lo01, lo23, _MM_SHUFFLE(3, 2, 3, 2));
    out[2] = _mm256_shuffle_ps(hi01, hi23, _MM_SHUFFLE(1, 0, 1, 0));
    out[3] = _mm256_shuffle_ps(hi01, hi23, _MM_SHUFFLE(3, 2, 3, 2));
}

/* r[c] lane l = p[l][c]: the four floats at each of VF_W addresses, transposed. */
MN_LANE void vf_load_t4(const float *const p[VF_W], vf r[4])
{
    vf t[4];
    for (int i = 0; i < 4; i++)
        t[i] = vf_load_halves(p[i], p[i + 4]);
    vf_transpose_halves4(t, r);
}

/* vf_load_t4 backwards: p[l][c] = r[c] lane l. */
MN_LANE void vf_store_t4(float *const p[VF_W], const vf r[4])
{
    vf t[4];
    vf_transpose_halves4(r, t);
    for (int i = 0; i < 4; i++) {
        _mm_storeu_ps(p[i], _mm256_castps256_ps128(t[i]));
        _mm_storeu_ps(p[i + 4], _mm256_extractf128_ps(t[i], 1));
    }
}

/* A value a lane spread over 3·VF_W floats: out[k] lane l = v lane (k·VF_W + l) / 3. */
MN_LANE void vf_spread3(vf v, vf out[3])
{
    out[0] = _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(0, 0, 0, 1, 1, 1, 2, 2));
    out[1] = _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(2, 3, 3, 3, 4, 4, 4, 5));
    out[2] = _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(5, 5, 6, 6, 6, 7, 7, 7));
}

/* Eight halves (IEEE binary16 bits) to floats, exactly. */
MN_LANE vf vf_load_f16(const uint16_t *h)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)h));
}

/* One half to a float, exactly. */
MN_LANE float vf_half1(uint16_t h) { return _cvtsh_ss(h); }
