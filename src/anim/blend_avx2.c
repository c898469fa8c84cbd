/*
 * AVX2 kernels of the pose blend and the additive layer, eight joints a
 * register: blend_simd.c's SSE2 kernels at twice the width, chosen at run
 * time (mni_cpu_level) by blend.c.
 *
 * Only the functions here are compiled for AVX2, through the target
 * attribute, so the rest of the library stays baseline x86-64; they run only
 * after the CPU said it has AVX2 (and the OS saves the YMM state).  No fused
 * multiply-add is used: every lane does the SSE2 kernel's IEEE operations in
 * its order, so the two agree bit for bit, and both with the scalar
 * reference to within 1e-6 (tests/test_blend.c).
 *
 * Quaternions are transposed eight at a time with in-lane shuffles
 * (quat8_avx2.h); the series, the nlerp picks, the normalisation and the
 * translation and scale lerps then do eight joints an instruction.
 */
#include "anim/blend_internal.h"

#ifdef MN_BLEND_AVX2
#include "anim/quat8_avx2.h"

#include <math.h>
#include <string.h>

/* layer · clamp01(mask[j]) for eight joints (mni_clamp01: NaN gives 0). */
AVX2 static inline __m256 joint_weights8(float layer, const float *mask, uint32_t j)
{
    __m256 l = _mm256_set1_ps(layer);
    if (!mask)
        return l;
    __m256 m = _mm256_loadu_ps(mask + j), zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    __m256 c = select8(_mm256_cmp_ps(m, one, _CMP_LT_OQ), m, one);
    c = select8(_mm256_cmp_ps(m, zero, _CMP_GT_OQ), c, zero);
    return _mm256_mul_ps(l, c);
}

/* blend_simd.c's series4 on eight lanes, to `terms` terms. */
AVX2 static inline __m256 series8(__m256 x, __m256 u, int terms)
{
    __m256 u2 = _mm256_mul_ps(u, u), acc = _mm256_set1_ps(1.0f), one = _mm256_set1_ps(1.0f);
    for (int k = terms; k >= 1; k--) {
        __m256 kx = _mm256_mul_ps(_mm256_set1_ps(mni_slerp_series_k[k - 1]), x);
        __m256 k2 = _mm256_set1_ps((float)(k * k));
        acc = _mm256_add_ps(one, _mm256_mul_ps(_mm256_mul_ps(_mm256_sub_ps(u2, k2), kx), acc));
    }
    return _mm256_mul_ps(u, acc);
}

AVX2 static inline __m256 series8_picked(__m256 x, __m256 u, int terms)
{
    if (terms == 3)
        return series8(x, u, 3);
    if (terms == 5)
        return series8(x, u, 5);
    return series8(x, u, MN_SERIES_FIXED_TERMS);
}

/* The term count blend_simd.c's group_terms picks, by the smallest d of the blended lanes. */
AVX2 static inline int group_terms8(__m256 d, __m256 blended)
{
    if (_mm256_movemask_ps(blended) == 0)
        return 0;
    __m256 dm = select8(blended, d, _mm256_set1_ps(1.0f));
    if (_mm256_movemask_ps(_mm256_cmp_ps(dm, _mm256_set1_ps(0.98f), _CMP_GE_OQ)) == 0xFF)
        return 3;
    if (_mm256_movemask_ps(_mm256_cmp_ps(dm, _mm256_set1_ps(0.9f), _CMP_GE_OQ)) == 0xFF)
        return 5;
    return MN_SERIES_FIXED_TERMS;
}

/*
 * A per-joint value spread over the 24 floats of eight 3-vectors.  Without a
 * mask every lane holds the same value and the spread is the value itself:
 * three cross-lane permutes saved on the shuffle port.
 */
AVX2 static inline void spread3x8(__m256 v, bool uniform, __m256 out[3])
{
    if (uniform) {
        out[0] = out[1] = out[2] = v;
        return;
    }
    out[0] = _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(0, 0, 0, 1, 1, 1, 2, 2));
    out[1] = _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(2, 3, 3, 3, 4, 4, 4, 5));
    out[2] = _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(5, 5, 6, 6, 6, 7, 7, 7));
}

/* blend_simd.c's channel_unchanged for 24 floats. */
AVX2 static inline bool channel_unchanged8(const __m256 va[3], const __m256 vb[3])
{
    const __m256 inf = _mm256_set1_ps(INFINITY), sign_bit = _mm256_set1_ps(-0.0f);
    __m256i all = _mm256_set1_epi32(-1);
    for (int i = 0; i < 3; i++) {
        __m256i bits = _mm256_castps_si256(va[i]);
        __m256i eq = _mm256_cmpeq_epi32(bits, _mm256_castps_si256(vb[i]));
        __m256i negative_zero = _mm256_cmpeq_epi32(bits, _mm256_castps_si256(sign_bit));
        __m256i finite =
            _mm256_castps_si256(_mm256_cmp_ps(_mm256_andnot_ps(sign_bit, va[i]), inf, _CMP_LT_OQ));
        all = _mm256_and_si256(all, _mm256_andnot_si256(negative_zero, _mm256_and_si256(eq, finite)));
    }
    return _mm256_movemask_epi8(all) == -1;
}

static void copy8(mn_pose *dst, const mn_pose *src, uint32_t j)
{
    if (dst == src)
        return;
    memmove(dst->translations + 3 * (size_t)j, src->translations + 3 * (size_t)j, 24 * sizeof(float));
    memmove(dst->rotations + 4 * (size_t)j, src->rotations + 4 * (size_t)j, 32 * sizeof(float));
    memmove(dst->scales + 3 * (size_t)j, src->scales + 3 * (size_t)j, 24 * sizeof(float));
}

#define G MN_AVX2_GROUPS

AVX2 uint32_t mni_blend_avx2(const mn_pose *a, const mn_pose *b, float layer, const float *mask,
                            mn_pose *out, uint32_t first, uint32_t groups)
{
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), sign_bit = _mm256_set1_ps(-0.0f);
    __m256 qa[G][4], qb[G][4], w[G], d[G], flip[G], ka[G], kb[G];
    int terms[G];
    uint32_t skip = 0, refer = 0;
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t j = first + 8 * g;
        w[g] = joint_weights8(layer, mask, j);
        __m256 is0 = _mm256_cmp_ps(w[g], zero, _CMP_EQ_OQ), is1 = _mm256_cmp_ps(w[g], one, _CMP_EQ_OQ);
        if (_mm256_movemask_ps(is0) == 0xFF) {
            copy8(out, a, j);
            skip |= 1u << g;
            continue;
        }
        load_quats8(a->rotations + 4 * (size_t)j, qa[g]);
        load_quats8(b->rotations + 4 * (size_t)j, qb[g]);
        __m256 dot = dot8(qa[g], qb[g]);
        flip[g] = _mm256_and_ps(_mm256_cmp_ps(dot, zero, _CMP_LT_OQ), sign_bit);
        d[g] = _mm256_xor_ps(dot, flip[g]);
        __m256 copies = _mm256_or_ps(is0, is1);
        __m256 wide = _mm256_andnot_ps(copies, _mm256_cmp_ps(d[g], _mm256_set1_ps(MN_SERIES_FIXED_FROM), _CMP_LT_OQ));
        if (_mm256_movemask_ps(wide) != 0) {
            refer |= 1u << g;
            skip |= 1u << g;
        }
        terms[g] = group_terms8(d[g], _mm256_andnot_ps(copies, _mm256_castsi256_ps(_mm256_set1_epi32(-1))));
    }
    for (uint32_t g = 0; g < groups; g++) {
        if (skip >> g & 1u)
            continue;
        __m256 rest = _mm256_sub_ps(one, w[g]), x = _mm256_sub_ps(d[g], one);
        if (terms[g] == 0) {
            ka[g] = rest;
            kb[g] = w[g];
            continue;
        }
        __m256 near = _mm256_cmp_ps(d[g], _mm256_set1_ps(MN_NEARLY_PARALLEL), _CMP_GT_OQ);
        ka[g] = select8(near, rest, series8_picked(x, rest, terms[g]));
        kb[g] = _mm256_xor_ps(select8(near, w[g], series8_picked(x, w[g], terms[g])), flip[g]);
    }
    for (uint32_t g = 0; g < groups; g++) {
        if (skip >> g & 1u)
            continue;
        uint32_t j = first + 8 * g;
        __m256 is0 = _mm256_cmp_ps(w[g], zero, _CMP_EQ_OQ), is1 = _mm256_cmp_ps(w[g], one, _CMP_EQ_OQ);
        __m256 r[4];
        for (int i = 0; i < 4; i++)
            r[i] = _mm256_add_ps(_mm256_mul_ps(qa[g][i], ka[g]), _mm256_mul_ps(qb[g][i], kb[g]));
        normalize8(r);
        if (_mm256_movemask_ps(_mm256_or_ps(is0, is1)) != 0)
            for (int i = 0; i < 4; i++)
                r[i] = select8(is0, qa[g][i], select8(is1, qb[g][i], r[i]));

        __m256 w3[3], c0[3], c1[3];
        spread3x8(w[g], !mask, w3);
        spread3x8(is0, !mask, c0);
        spread3x8(is1, !mask, c1);
        float *channels[2] = {out->translations, out->scales};
        const float *from[2] = {a->translations, a->scales}, *to[2] = {b->translations, b->scales};
        __m256 res[2][3];
        bool same[2];
        for (int c = 0; c < 2; c++) {
            __m256 va[3], vb[3];
            for (int i = 0; i < 3; i++) {
                va[i] = _mm256_loadu_ps(from[c] + 3 * (size_t)j + 8 * i);
                vb[i] = _mm256_loadu_ps(to[c] + 3 * (size_t)j + 8 * i);
            }
            if ((same[c] = channel_unchanged8(va, vb))) {
                for (int i = 0; i < 3; i++)
                    res[c][i] = va[i];
                continue;
            }
            for (int i = 0; i < 3; i++) {
                __m256 v = _mm256_add_ps(va[i], _mm256_mul_ps(_mm256_sub_ps(vb[i], va[i]), w3[i]));
                res[c][i] = select8(c0[i], va[i], select8(c1[i], vb[i], v));
            }
        }
        store_quats8(out->rotations + 4 * (size_t)j, r);
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < 3 && !(same[c] && out == a); i++)
                _mm256_storeu_ps(channels[c] + 3 * (size_t)j + 8 * i, res[c][i]);
    }
    return refer;
}

/* a · b (Hamilton) per lane, in blend.c's quat_mul order. */
AVX2 static inline void quat_mul8(__m256 out[4], const __m256 a[4], const __m256 b[4])
{
#define M(p, q) _mm256_mul_ps(a[p], b[q])
    out[0] = _mm256_sub_ps(_mm256_add_ps(_mm256_add_ps(M(3, 0), M(0, 3)), M(1, 2)), M(2, 1));
    out[1] = _mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(M(3, 1), M(0, 2)), M(1, 3)), M(2, 0));
    out[2] = _mm256_add_ps(_mm256_sub_ps(_mm256_add_ps(M(3, 2), M(0, 1)), M(1, 0)), M(2, 3));
    out[3] = _mm256_sub_ps(_mm256_sub_ps(_mm256_sub_ps(M(3, 3), M(0, 0)), M(1, 1)), M(2, 2));
#undef M
}

AVX2 uint32_t mni_add_avx2(const mn_pose *base, const mn_pose *delta, float layer, const float *mask,
                          mn_pose *out, uint32_t first, uint32_t groups)
{
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), sign_bit = _mm256_set1_ps(-0.0f);
    __m256 rb[G][4], q[G][4], w[G], keep[G], ki[G], kq[G];
    int terms[G];
    uint32_t skip = 0, refer = 0;
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t j = first + 8 * g;
        w[g] = joint_weights8(layer, mask, j);
        __m256 is0 = _mm256_cmp_ps(w[g], zero, _CMP_EQ_OQ);
        if (_mm256_movemask_ps(is0) == 0xFF) {
            copy8(out, base, j);
            skip |= 1u << g;
            continue;
        }
        __m256 rd[4];
        load_quats8(base->rotations + 4 * (size_t)j, rb[g]);
        load_quats8(delta->rotations + 4 * (size_t)j, rd);
        __m256 identity = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(rd[0], zero, _CMP_EQ_OQ),
                                                      _mm256_cmp_ps(rd[1], zero, _CMP_EQ_OQ)),
                                        _mm256_cmp_ps(rd[2], zero, _CMP_EQ_OQ));
        keep[g] = _mm256_or_ps(is0, identity);
        __m256 flip = _mm256_and_ps(_mm256_cmp_ps(rd[3], zero, _CMP_LT_OQ), sign_bit);
        for (int i = 0; i < 4; i++)
            q[g][i] = _mm256_xor_ps(rd[i], flip);
        __m256 wide = _mm256_andnot_ps(keep[g], _mm256_cmp_ps(q[g][3], _mm256_set1_ps(MN_SERIES_FIXED_FROM), _CMP_LT_OQ));
        if (_mm256_movemask_ps(wide) != 0) {
            refer |= 1u << g;
            skip |= 1u << g;
        }
        terms[g] = group_terms8(q[g][3], _mm256_andnot_ps(keep[g], _mm256_castsi256_ps(_mm256_set1_epi32(-1))));
    }
    for (uint32_t g = 0; g < groups; g++) {
        if (skip >> g & 1u)
            continue;
        __m256 whole = _mm256_cmp_ps(w[g], one, _CMP_EQ_OQ);
        if (_mm256_movemask_ps(_mm256_or_ps(whole, keep[g])) == 0xFF) {
            ki[g] = zero;
            kq[g] = one;
            continue;
        }
        __m256 rest = _mm256_sub_ps(one, w[g]), x = _mm256_sub_ps(q[g][3], one);
        __m256 near = _mm256_cmp_ps(q[g][3], _mm256_set1_ps(MN_NEARLY_PARALLEL), _CMP_GT_OQ);
        ki[g] = select8(near, rest, select8(whole, zero, series8_picked(x, rest, terms[g])));
        kq[g] = select8(near, w[g], select8(whole, one, series8_picked(x, w[g], terms[g])));
    }
    for (uint32_t g = 0; g < groups; g++) {
        if (skip >> g & 1u)
            continue;
        uint32_t j = first + 8 * g;
        __m256 dr[4], r[4];
        dr[0] = _mm256_mul_ps(kq[g], q[g][0]);
        dr[1] = _mm256_mul_ps(kq[g], q[g][1]);
        dr[2] = _mm256_mul_ps(kq[g], q[g][2]);
        dr[3] = _mm256_add_ps(ki[g], _mm256_mul_ps(kq[g], q[g][3]));
        quat_mul8(r, rb[g], dr);
        normalize8(r);
        if (_mm256_movemask_ps(keep[g]) != 0)
            for (int i = 0; i < 4; i++)
                r[i] = select8(keep[g], rb[g][i], r[i]);

        __m256 w3[3], c0[3], t[3], s[3];
        spread3x8(w[g], !mask, w3);
        spread3x8(_mm256_cmp_ps(w[g], zero, _CMP_EQ_OQ), !mask, c0);
        for (int i = 0; i < 3; i++) {
            size_t at = 3 * (size_t)j + 8 * (size_t)i;
            __m256 tb = _mm256_loadu_ps(base->translations + at), td = _mm256_loadu_ps(delta->translations + at);
            __m256 sb = _mm256_loadu_ps(base->scales + at), sd = _mm256_loadu_ps(delta->scales + at);
            t[i] = select8(c0[i], tb, _mm256_add_ps(tb, _mm256_mul_ps(w3[i], td)));
            s[i] = select8(c0[i], sb,
                           _mm256_mul_ps(sb, _mm256_add_ps(one, _mm256_mul_ps(_mm256_sub_ps(sd, one), w3[i]))));
        }
        store_quats8(out->rotations + 4 * (size_t)j, r);
        for (int i = 0; i < 3; i++) {
            size_t at = 3 * (size_t)j + 8 * (size_t)i;
            _mm256_storeu_ps(out->translations + at, t[i]);
            _mm256_storeu_ps(out->scales + at, s[i]);
        }
    }
    return refer;
}
#else
/* Not x86 with GCC or clang, or MN_NO_SIMD: the SSE2 kernels or the reference alone. */
typedef int mn_blend_avx2_unused;
#endif
