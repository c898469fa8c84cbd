/*
 * Dual-quaternion skinning with AVX2 and FMA, chosen at run time
 * (dual_quat.c's dispatch, when mni_simd_resolve gives MN_SIMD_AVX2_FMA):
 * dual_quat_kernel.h over core/lanes_avx2.h, eight vertices a group, one a
 * lane.  The reference's multiply-adds are fused here (one rounding where it
 * rounds twice), so results agree with it within float rounding: 4e-6
 * relative to max(1, |value|), which tests/test_dual_quat.c holds.
 *
 * What is AVX2's own is the store of a 3-float output (DQ_STORE3): the
 * group's x y z rows transposed within each 128-bit half (one register then
 * holds vertex i in its low half and vertex i+4 in its high), stored in lane
 * order 0 .. 7, 16 bytes a vertex in a packed stream (the fourth float lands
 * on the next vertex's x, which that vertex's store then overwrites) and
 * exactly 12 for the group's last vertex and in strided streams.
 *
 * Every helper is inlined into the one entry point mni_dq_skin_avx2 (MN_LANE),
 * which the compiler ends with vzeroupper.
 */
#include "deform/internal.h"

#if MN_WITH_AVX2

#include "core/lanes_avx2.h"

#include <string.h>

/* Store lanes 0..2 (x y z) of v and nothing else. */
MN_LANE void store3(float *out, __m128 v)
{
    _mm_storel_pi((__m64 *)(void *)out, v);
    _mm_store_ss(out + 2, _mm_movehl_ps(v, v));
}

/*
 * vf_load_t4 and vf_store_t4 spelt out lane by lane: with constant indices
 * only, the compiler keeps the lanes' pointers in registers (the lane
 * layer's loops leave them on the stack, which doubled this kernel's
 * instructions).
 */
MN_LANE void dq_load4(const float *const p[VF_W], vf r[4])
{
    vf t[4] = {vf_load_halves(p[0], p[4]), vf_load_halves(p[1], p[5]),
               vf_load_halves(p[2], p[6]), vf_load_halves(p[3], p[7])};
    vf_transpose_halves4(t, r);
}

MN_LANE void dq_store4(float *const p[VF_W], const vf r[4])
{
    vf t[4];
    vf_transpose_halves4(r, t);
    _mm_storeu_ps(p[0], _mm256_castps256_ps128(t[0]));
    _mm_storeu_ps(p[1], _mm256_castps256_ps128(t[1]));
    _mm_storeu_ps(p[2], _mm256_castps256_ps128(t[2]));
    _mm_storeu_ps(p[3], _mm256_castps256_ps128(t[3]));
    _mm_storeu_ps(p[4], _mm256_extractf128_ps(t[0], 1));
    _mm_storeu_ps(p[5], _mm256_extractf128_ps(t[1], 1));
    _mm_storeu_ps(p[6], _mm256_extractf128_ps(t[2], 1));
    _mm_storeu_ps(p[7], _mm256_extractf128_ps(t[3], 1));
}

/* A lane's x y z: 16 bytes when packed (see DQ_STORE3), else exactly 12. */
MN_LANE void store_lane(float *out, __m128 v, bool packed)
{
    if (packed)
        _mm_storeu_ps(out, v);
    else
        store3(out, v);
}

MN_LANE void dq_store3(float *const p[VF_W], const vf v[3], bool packed)
{
    vf in[4] = {v[0], v[1], v[2], _mm256_setzero_ps()}, t[4];
    vf_transpose_halves4(in, t);
    store_lane(p[0], _mm256_castps256_ps128(t[0]), packed);
    store_lane(p[1], _mm256_castps256_ps128(t[1]), packed);
    store_lane(p[2], _mm256_castps256_ps128(t[2]), packed);
    store_lane(p[3], _mm256_castps256_ps128(t[3]), packed);
    store_lane(p[4], _mm256_extractf128_ps(t[0], 1), packed);
    store_lane(p[5], _mm256_extractf128_ps(t[1], 1), packed);
    store_lane(p[6], _mm256_extractf128_ps(t[2], 1), packed);
    store3(p[7], _mm256_extractf128_ps(t[3], 1));
}

#define DQ_LOAD4 dq_load4
#define DQ_STORE4 dq_store4
#define DQ_STORE3 dq_store3
#define DQ_BLEND_ISA dq_blend_avx2
#include "deform/dual_quat_kernel.h"

/*
 * The blend, vertex by vertex (AVX2's own; SSE2 gathers lane by lane): a
 * joint's real and dual parts are one 32-byte load, so an influence costs
 * one broadcast weight and one FMA, and the four hemisphere tests of a
 * vertex are four multiplies and three horizontal adds, in the reference's
 * order.  Each vertex's blend goes to a buffer of 8 floats a vertex, which
 * the group then reads lane by lane (dq_load4) into the lane layout.
 */

/*
 * (x·x' + y·y') + (z·z' + w·w') of q0's real part with each of four
 * records' (their low halves): the products transposed, then added in that
 * order (cheaper than horizontal adds, which cost several operations each).
 */
MN_LANE __m128 dots4(__m256 q0, __m256 x0, __m256 x1, __m256 x2, __m256 x3)
{
    __m128 q = _mm256_castps256_ps128(q0);
    __m128 m0 = _mm_mul_ps(q, _mm256_castps256_ps128(x0));
    __m128 m1 = _mm_mul_ps(q, _mm256_castps256_ps128(x1));
    __m128 m2 = _mm_mul_ps(q, _mm256_castps256_ps128(x2));
    __m128 m3 = _mm_mul_ps(q, _mm256_castps256_ps128(x3));
    _MM_TRANSPOSE4_PS(m0, m1, m2, m3); /* m0: the x·x' of the four, m1 y·y', ... */
    return _mm_add_ps(_mm_add_ps(m0, m1), _mm_add_ps(m2, m3));
}

/* Lane k of w (both halves of ww hold w), in every lane: an in-lane permute. */
#define LANE_OF(ww, k) _mm256_permute_ps((ww), (k) * 0x55)

/*
 * One vertex's blend of ic influences (a multiple of 4) into rec (real part,
 * dual part) and its blended scale into *scale when blend_scale.
 */
MN_LANE void blend_vertex(const float *dqs, const uint16_t *j, const float *w, size_t ic,
                          bool blend_scale, bool no_flips, float rec[8], float *scale)
{
    const __m128 sign = _mm_set1_ps(-0.0f);
    __m256 q0 = _mm256_loadu_ps(dqs + MN_SKIN_DQ_FLOATS * (size_t)j[0]), acc = _mm256_setzero_ps();
    for (size_t m = 0; m < ic; m += 4) {
        const float *a[4] = {dqs + MN_SKIN_DQ_FLOATS * (size_t)j[m], dqs + MN_SKIN_DQ_FLOATS * (size_t)j[m + 1],
                             dqs + MN_SKIN_DQ_FLOATS * (size_t)j[m + 2], dqs + MN_SKIN_DQ_FLOATS * (size_t)j[m + 3]};
        __m256 x[4] = {_mm256_loadu_ps(a[0]), _mm256_loadu_ps(a[1]), _mm256_loadu_ps(a[2]),
                       _mm256_loadu_ps(a[3])};
        __m128 wm = _mm_loadu_ps(w + m);
        /* −w where the dot's sign bit is set; the first influence's own dot is |q0|² ≥ 0 */
        __m128 sw = wm;
        if (!no_flips) {
            sw = _mm_xor_ps(wm, _mm_and_ps(dots4(q0, x[0], x[1], x[2], x[3]), sign));
            if (m == 0)
                sw = _mm_move_ss(sw, wm);
        }
        __m256 ww = _mm256_insertf128_ps(_mm256_castps128_ps256(sw), sw, 1);
        /* two chains of two, joined: half the latency of one chain of four */
        __m256 even = _mm256_mul_ps(LANE_OF(ww, 0), x[0]);
        __m256 odd = _mm256_mul_ps(LANE_OF(ww, 1), x[1]);
        even = _mm256_fmadd_ps(LANE_OF(ww, 2), x[2], even);
        odd = _mm256_fmadd_ps(LANE_OF(ww, 3), x[3], odd);
        acc = m == 0 ? _mm256_add_ps(even, odd) : _mm256_add_ps(acc, _mm256_add_ps(even, odd));
    }
    /* two 16-byte stores: the group's 16-byte loads of them then forward from the store queue */
    _mm_store_ps(rec, _mm256_castps256_ps128(acc));
    _mm_store_ps(rec + 4, _mm256_extractf128_ps(acc, 1));
    if (blend_scale) {
        float sc = w[0] * dqs[MN_SKIN_DQ_FLOATS * (size_t)j[0] + 8];
        for (size_t k = 1; k < ic; k++)
            sc = sc + w[k] * dqs[MN_SKIN_DQ_FLOATS * (size_t)j[k] + 8];
        *scale = sc;
    }
}

MN_LANE dq_blend dq_blend_avx2(const float *dqs, const dq_view *g, dq_layout L, bool blend_scale,
                               bool no_flips)
{
    _Alignas(32) float rec[VF_W][8];
    _Alignas(32) float scale[VF_W] = {0};
    DQ_UNROLL
    for (int l = 0; l < VF_W; l++) {
        size_t x = dq_lane(g, l) * L.ic;
        blend_vertex(dqs, g->j + x, g->w + x, L.ic, blend_scale, no_flips, rec[l], &scale[l]);
    }
    dq_blend b;
    const float *r[VF_W], *d[VF_W];
    DQ_UNROLL
    for (int l = 0; l < VF_W; l++)
        r[l] = rec[l], d[l] = rec[l] + 4;
    dq_load4(r, b.r);
    dq_load4(d, b.d);
    b.sc = _mm256_load_ps(scale);
    return b;
}

#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_dual_quat_avx2_unused;
#endif
