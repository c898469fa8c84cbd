/*
 * Dual-quaternion skinning with AVX2 and FMA, chosen at run time
 * (dual_quat.c's dispatch, when mni_simd_resolve gives MN_SIMD_AVX2_FMA):
 * dual_quat_kernel.h over core/lanes_avx2.h, eight vertices a group, one a
 * lane.  The reference's multiply-adds are fused here (one rounding where it
 * rounds twice), the blend adds its four products as two chains, and
 * normals and tangents are normalised by the input's length (rsqrt and a
 * Newton step, dual_quat_kernel.h's dq_rotate_unit), so results agree with
 * it within float rounding: 4e-6 relative to max(1, |value|), which
 * tests/test_dual_quat.c holds.
 *
 * What is AVX2's own: the blend (below), the packed 3-float streams read and
 * written whole (dq_load3_packed), and the lane-by-lane store of a 3-float
 * output elsewhere (DQ_STORE3): the
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

/*
 * A full group of a packed 3-float stream, 24 contiguous floats, to rows x y
 * z (lanes 0..7) and back: three 32-byte accesses, and per row two blends
 * (which every vector pipe runs) and one permute, where lane by lane takes
 * eight 16-byte accesses, four inserts or extracts and eight shuffles.
 * Lane i of a row is float 3i + c, so the blends gather, at each lane, the
 * one of the three registers that holds a wanted float there, and the
 * permute puts them in order (its indices are their own inverse, so the
 * store uses the same ones).
 */
#define DQ_BLEND_147 0x92 /* lanes 1, 4, 7 from the second operand */
#define DQ_BLEND_25 0x24  /* lanes 2, 5 */
#define DQ_BLEND_036 0x49 /* lanes 0, 3, 6 */

MN_LANE void dq_load3_packed(const float *p, vf v[3])
{
    __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8), c = _mm256_loadu_ps(p + 16);
    __m256 x = _mm256_blend_ps(_mm256_blend_ps(a, b, DQ_BLEND_147), c, DQ_BLEND_25);
    __m256 y = _mm256_blend_ps(_mm256_blend_ps(a, b, DQ_BLEND_25), c, DQ_BLEND_036);
    __m256 z = _mm256_blend_ps(_mm256_blend_ps(a, b, DQ_BLEND_036), c, DQ_BLEND_147);
    v[0] = _mm256_permutevar8x32_ps(x, _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5));
    v[1] = _mm256_permutevar8x32_ps(y, _mm256_setr_epi32(1, 4, 7, 2, 5, 0, 3, 6));
    v[2] = _mm256_permutevar8x32_ps(z, _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7));
}

MN_LANE void dq_store3_packed(float *p, const vf v[3])
{
    __m256 x = _mm256_permutevar8x32_ps(v[0], _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5));
    __m256 y = _mm256_permutevar8x32_ps(v[1], _mm256_setr_epi32(5, 0, 3, 6, 1, 4, 7, 2));
    __m256 z = _mm256_permutevar8x32_ps(v[2], _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7));
    _mm256_storeu_ps(p, _mm256_blend_ps(_mm256_blend_ps(x, y, DQ_BLEND_147), z, DQ_BLEND_25));
    _mm256_storeu_ps(p + 8, _mm256_blend_ps(_mm256_blend_ps(x, y, DQ_BLEND_25), z, DQ_BLEND_036));
    _mm256_storeu_ps(p + 16, _mm256_blend_ps(_mm256_blend_ps(x, y, DQ_BLEND_036), z, DQ_BLEND_147));
}

#define DQ_PACKED3 1
#define DQ_LOAD3_PACKED dq_load3_packed
#define DQ_STORE3_PACKED dq_store3_packed
#define DQ_LOAD4 dq_load4
#define DQ_STORE4 dq_store4
#define DQ_STORE3 dq_store3
#define DQ_BLEND_ISA dq_blend_avx2
#define DQ_NORMALISE_INPUT 1
#include "deform/dual_quat_kernel.h"

/*
 * The blend, vertex by vertex (AVX2's own; SSE2's is dual_quat_sse2.c's): a
 * joint's real and dual parts are one 32-byte load, so an influence costs one
 * broadcast weight and one FMA with its load folded in.  The joints' byte
 * offsets are made four at a time by one widening load and one multiply
 * (three scalar instructions a joint otherwise), and the packed calls take
 * the hemisphere and scale flags as constants (dual_quat_kernel.h's
 * dq_layout), so their loop tests no flag per vertex.  The eight blends
 * then meet in registers: one lane-crossing permute pairs vertex l with
 * l + 4, and vf_transpose_halves4 turns the pairs into one register a field.
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

/* The byte offsets of four joints' records: j × 4 × MN_SKIN_DQ_FLOATS. */
MN_LANE void joint_offsets(const uint16_t *j, uint32_t off[4])
{
    __m128i x = _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)(const void *)j));
    _mm_store_si128((__m128i *)(void *)off,
                    _mm_mullo_epi32(x, _mm_set1_epi32((int)(sizeof(float) * MN_SKIN_DQ_FLOATS))));
}

/* The record at byte offset `off` of dqs, `at` floats in. */
#define REC(dqs, off, at) ((const float *)(const void *)((const char *)(dqs) + (off)) + (at))

/*
 * One vertex's blend of ic influences (a multiple of 4): real part in the low
 * half, dual part in the high; its blended scale in lane 0 of *scale when
 * BLEND_SCALE.  FLIPS: the hemisphere tests (else every sign is +).
 */
MN_LANE __m256 blend_vertex(const float *dqs, const uint16_t *j, const float *w, size_t ic,
                            bool blend_scale, bool flips, __m128 *scale)
{
    const __m128 sign = _mm_set1_ps(-0.0f);
    _Alignas(16) uint32_t off[4];
    __m256 acc = _mm256_setzero_ps(), q0 = _mm256_setzero_ps();
    __m128 sc = _mm_setzero_ps();
    for (size_t m = 0; m < ic; m += 4) {
        joint_offsets(j + m, off);
        __m256 bw[4] = {_mm256_broadcast_ss(w + m), _mm256_broadcast_ss(w + m + 1),
                        _mm256_broadcast_ss(w + m + 2), _mm256_broadcast_ss(w + m + 3)};
        __m256 even, odd;
        if (flips) {
            __m256 x[4] = {_mm256_loadu_ps(REC(dqs, off[0], 0)), _mm256_loadu_ps(REC(dqs, off[1], 0)),
                           _mm256_loadu_ps(REC(dqs, off[2], 0)), _mm256_loadu_ps(REC(dqs, off[3], 0))};
            if (m == 0)
                q0 = x[0];
            /* −w where the dot's sign bit is set; the first influence's own dot is |q0|² ≥ 0 */
            __m128 neg = _mm_and_ps(dots4(q0, x[0], x[1], x[2], x[3]), sign);
            if (m == 0)
                neg = _mm_move_ss(neg, _mm_setzero_ps());
            __m256 flip = _mm256_insertf128_ps(_mm256_castps128_ps256(neg), neg, 1);
            even = _mm256_mul_ps(_mm256_xor_ps(bw[0], LANE_OF(flip, 0)), x[0]);
            odd = _mm256_mul_ps(_mm256_xor_ps(bw[1], LANE_OF(flip, 1)), x[1]);
            even = _mm256_fmadd_ps(_mm256_xor_ps(bw[2], LANE_OF(flip, 2)), x[2], even);
            odd = _mm256_fmadd_ps(_mm256_xor_ps(bw[3], LANE_OF(flip, 3)), x[3], odd);
        } else {
            /* two chains of two, joined: half the latency of one chain of four */
            even = _mm256_mul_ps(bw[0], _mm256_loadu_ps(REC(dqs, off[0], 0)));
            odd = _mm256_mul_ps(bw[1], _mm256_loadu_ps(REC(dqs, off[1], 0)));
            even = _mm256_fmadd_ps(bw[2], _mm256_loadu_ps(REC(dqs, off[2], 0)), even);
            odd = _mm256_fmadd_ps(bw[3], _mm256_loadu_ps(REC(dqs, off[3], 0)), odd);
        }
        acc = m == 0 ? _mm256_add_ps(even, odd) : _mm256_add_ps(acc, _mm256_add_ps(even, odd));
        if (blend_scale) {
            /* floats 8..11 of each record: the scale and three zeros, weighted (unflipped) */
            __m128 w4[4] = {_mm256_castps256_ps128(bw[0]), _mm256_castps256_ps128(bw[1]),
                            _mm256_castps256_ps128(bw[2]), _mm256_castps256_ps128(bw[3])};
            __m128 se = _mm_mul_ps(w4[0], _mm_loadu_ps(REC(dqs, off[0], 8)));
            __m128 so = _mm_mul_ps(w4[1], _mm_loadu_ps(REC(dqs, off[1], 8)));
            se = _mm_fmadd_ps(w4[2], _mm_loadu_ps(REC(dqs, off[2], 8)), se);
            so = _mm_fmadd_ps(w4[3], _mm_loadu_ps(REC(dqs, off[3], 8)), so);
            sc = m == 0 ? _mm_add_ps(se, so) : _mm_add_ps(sc, _mm_add_ps(se, so));
        }
    }
    *scale = sc;
    return acc;
}

/* The group's blends (dual_quat_kernel.h's DQ_BLEND_ISA). */
MN_LANE dq_blend dq_blend_avx2(const float *dqs, const dq_view *g, size_t ic, bool blend_scale,
                               bool flips)
{
    /*
     * Vertices l and l + 4 together, each pair reduced at once (its parts
     * paired, its scales [s_l, s_l+4, 0, 0]), so that the eight blends and
     * their scales never hold more registers than there are.
     */
    vf r[4], d[4];
    __m128 sp[4];
    DQ_UNROLL
    for (int l = 0; l < 4; l++) {
        size_t x = dq_lane(g, l) * ic, y = dq_lane(g, l + 4) * ic;
        __m128 sa, sb;
        __m256 a = blend_vertex(dqs, g->j + x, g->w + x, ic, blend_scale, flips, &sa);
        __m256 b = blend_vertex(dqs, g->j + y, g->w + y, ic, blend_scale, flips, &sb);
        r[l] = _mm256_permute2f128_ps(a, b, 0x20); /* real parts of l, l + 4 */
        d[l] = _mm256_permute2f128_ps(a, b, 0x31); /* dual parts */
        sp[l] = _mm_unpacklo_ps(sa, sb);
    }
    dq_blend bl;
    vf_transpose_halves4(r, bl.r);
    vf_transpose_halves4(d, bl.d);
    bl.sc = _mm256_setzero_ps();
    if (blend_scale) {
        __m128 t01 = _mm_unpacklo_ps(sp[0], sp[1]); /* s0 s1 s4 s5 */
        __m128 t23 = _mm_unpacklo_ps(sp[2], sp[3]); /* s2 s3 s6 s7 */
        bl.sc = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_movelh_ps(t01, t23)),
                                     _mm_movehl_ps(t23, t01), 1);
    }
    return bl;
}

#undef REC

#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_dual_quat_avx2_unused;
#endif
