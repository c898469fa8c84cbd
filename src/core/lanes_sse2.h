/*
 * The lane layer at SSE2: vf is four floats (__m128).  One of the lane
 * headers (lanes_scalar.h, lanes_sse2.h, lanes_avx2.h, lanes_neon.h), which
 * spell the same operations for their width, so that a kernel written once
 * over them compiles at each (core/simd.h, the convention).  Include from an
 * instruction-set file under #if MN_WITH_SSE2, one lane header a translation
 * unit.  Not installed.
 *
 * Comparisons give masks (every bit of a lane set, or none), which and, or,
 * xor, andnot and vf_select take; vf_movemask packs lane l's sign bit into
 * bit l.  SSE2 has no fused multiply-add: vf_madd rounds twice.
 */
#ifdef VF_W
#error "one lane layer a translation unit"
#endif

#include <emmintrin.h>
#include <stdbool.h>

typedef __m128 vf;
#define VF_W 4
#define VF_ALL 0xF /* vf_movemask of a mask true in every lane */

/* SSE2 is the x86-64 baseline: the attributes add no target. */
#define MN_LANE static inline __attribute__((always_inline))
#define MN_KERNEL
#define MN_ISA(name) name##_sse2

MN_LANE vf vf_set1(float x) { return _mm_set1_ps(x); }
MN_LANE vf vf_zero(void) { return _mm_setzero_ps(); }
MN_LANE vf vf_loadu(const float *p) { return _mm_loadu_ps(p); }
MN_LANE void vf_storeu(float *p, vf v) { _mm_storeu_ps(p, v); }
/* p 16-byte aligned */
MN_LANE vf vf_load(const float *p) { return _mm_load_ps(p); }
MN_LANE void vf_store(float *p, vf v) { _mm_store_ps(p, v); }

MN_LANE vf vf_add(vf a, vf b) { return _mm_add_ps(a, b); }
MN_LANE vf vf_sub(vf a, vf b) { return _mm_sub_ps(a, b); }
MN_LANE vf vf_mul(vf a, vf b) { return _mm_mul_ps(a, b); }
MN_LANE vf vf_div(vf a, vf b) { return _mm_div_ps(a, b); }
MN_LANE vf vf_sqrt(vf a) { return _mm_sqrt_ps(a); }
/* a·b + c */
MN_LANE vf vf_madd(vf a, vf b, vf c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
/* About 1/a and 1/√a (12 bits): for scales, never for a result */
MN_LANE vf vf_rcp(vf a) { return _mm_rcp_ps(a); }
MN_LANE vf vf_rsqrt(vf a) { return _mm_rsqrt_ps(a); }

MN_LANE vf vf_and(vf a, vf b) { return _mm_and_ps(a, b); }
MN_LANE vf vf_or(vf a, vf b) { return _mm_or_ps(a, b); }
MN_LANE vf vf_xor(vf a, vf b) { return _mm_xor_ps(a, b); }
/* ~a & b */
MN_LANE vf vf_andnot(vf a, vf b) { return _mm_andnot_ps(a, b); }

MN_LANE vf vf_lt(vf a, vf b) { return _mm_cmplt_ps(a, b); }
MN_LANE vf vf_le(vf a, vf b) { return _mm_cmple_ps(a, b); }
MN_LANE vf vf_gt(vf a, vf b) { return _mm_cmpgt_ps(a, b); }
MN_LANE vf vf_ge(vf a, vf b) { return _mm_cmpge_ps(a, b); }
MN_LANE vf vf_eq(vf a, vf b) { return _mm_cmpeq_ps(a, b); }
/* lanes whose 32 bits are equal (+0 and -0 differ, a NaN can equal itself) */
MN_LANE vf vf_same_bits(vf a, vf b)
{
    return _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_castps_si128(a), _mm_castps_si128(b)));
}
/* the mask true in every lane */
MN_LANE vf vf_true(void) { return _mm_castsi128_ps(_mm_set1_epi32(-1)); }

/* mask ? yes : no, lane by lane */
MN_LANE vf vf_select(vf mask, vf yes, vf no)
{
    return _mm_or_ps(_mm_and_ps(mask, yes), _mm_andnot_ps(mask, no));
}
MN_LANE int vf_movemask(vf mask) { return _mm_movemask_ps(mask); }
/* a > b ? x : y, lane by lane; and whether a > b in every lane */
MN_LANE vf vf_sel_gt(vf a, vf b, vf x, vf y) { return vf_select(_mm_cmpgt_ps(a, b), x, y); }
MN_LANE bool vf_all_gt(vf a, vf b) { return _mm_movemask_ps(_mm_cmpgt_ps(a, b)) == VF_ALL; }
/* x negated where s has its sign bit set */
MN_LANE vf vf_flipsign(vf x, vf s) { return _mm_xor_ps(x, _mm_and_ps(s, _mm_set1_ps(-0.0f))); }

/* r[c] lane l = p[l][c]: the four floats at each of VF_W addresses, transposed. */
MN_LANE void vf_load_t4(const float *const p[VF_W], vf r[4])
{
    __m128 a = _mm_loadu_ps(p[0]), b = _mm_loadu_ps(p[1]);
    __m128 c = _mm_loadu_ps(p[2]), d = _mm_loadu_ps(p[3]);
    _MM_TRANSPOSE4_PS(a, b, c, d);
    r[0] = a, r[1] = b, r[2] = c, r[3] = d;
}

/* vf_load_t4 backwards: p[l][c] = r[c] lane l. */
MN_LANE void vf_store_t4(float *const p[VF_W], const vf r[4])
{
    __m128 a = r[0], b = r[1], c = r[2], d = r[3];
    _MM_TRANSPOSE4_PS(a, b, c, d);
    _mm_storeu_ps(p[0], a);
    _mm_storeu_ps(p[1], b);
    _mm_storeu_ps(p[2], c);
    _mm_storeu_ps(p[3], d);
}

/* A value a lane spread over 3·VF_W floats: out[k] lane l = v lane (k·VF_W + l) / 3. */
MN_LANE void vf_spread3(vf v, vf out[3])
{
    out[0] = _mm_shuffle_ps(v, v, _MM_SHUFFLE(1, 0, 0, 0));
    out[1] = _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 2, 1, 1));
    out[2] = _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 3, 3, 2));
}
