/*
 * SSE2 kernels of the pose blend and the additive layer (blend.c), four
 * joints a register: the quaternions transposed into x, y, z, w registers,
 * then the dot products, the short-arc flips, the slerp series, the nlerp
 * picks and the normalisation computed for four joints at once, over up to
 * sixteen groups a call in three passes (see mni_blend_sse2).
 *
 * Each lane does the scalar reference's IEEE operations in its order (add,
 * subtract, multiply, divide, square root; no fused multiply-add), except
 * that a group whose inputs are all close sums fewer of the slerp series'
 * terms (series4: the rest are below 1e-8 of the weight), so the result is
 * the reference's to within rounding; tests/test_blend.c holds every
 * component within 1e-6 and the copies bit for bit.  What the reference
 * does without the series (bit-exact copies at weight 0 and 1, identity
 * deltas keeping the base's bits, nlerp above the parallel threshold) is
 * picked per lane with masks, not branches.  A group in which some lane
 * needs the wide-arc series (cos θ below MN_SERIES_FIXED_FROM, summed to
 * convergence) is left unwritten and its bit set in the answer: the caller
 * runs the reference on those four joints.
 *
 * Work that cannot change a joint is skipped: a group whose four weights
 * are all 0 is a copy of the first operand (nothing at all when out is that
 * operand: a mask's zero region), and a blend's translations or scales
 * equal on both sides (unit scales, bind translations) are not lerped.
 */
#include "anim/blend_internal.h"

#ifdef MN_BLEND_SSE2
#include <emmintrin.h>
#include <float.h>
#include <math.h>
#include <string.h>

static inline __m128 select4(__m128 mask, __m128 yes, __m128 no)
{
    return _mm_or_ps(_mm_and_ps(mask, yes), _mm_andnot_ps(mask, no));
}

/* ((a0·b0 + a1·b1) + a2·b2) + a3·b3 per lane: the scalar dot's order. */
static inline __m128 dot4(const __m128 a[4], const __m128 b[4])
{
    __m128 d = _mm_add_ps(_mm_mul_ps(a[0], b[0]), _mm_mul_ps(a[1], b[1]));
    d = _mm_add_ps(d, _mm_mul_ps(a[2], b[2]));
    return _mm_add_ps(d, _mm_mul_ps(a[3], b[3]));
}

/* Four quaternions at q + 4j.. into x, y, z, w registers. */
static inline void load_quats(const float *q, __m128 r[4])
{
    r[0] = _mm_loadu_ps(q);
    r[1] = _mm_loadu_ps(q + 4);
    r[2] = _mm_loadu_ps(q + 8);
    r[3] = _mm_loadu_ps(q + 12);
    _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]);
}

static inline void store_quats(float *q, __m128 r[4])
{
    _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]);
    _mm_storeu_ps(q, r[0]);
    _mm_storeu_ps(q + 4, r[1]);
    _mm_storeu_ps(q + 8, r[2]);
    _mm_storeu_ps(q + 12, r[3]);
}

/* The layer weight times each joint's clamped mask weight (mni_clamp01: NaN gives 0). */
static inline __m128 joint_weights(float layer, const float *mask, uint32_t j)
{
    __m128 l = _mm_set1_ps(layer);
    if (!mask)
        return l;
    __m128 m = _mm_loadu_ps(mask + j), zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
    /* x > 0 ? (x < 1 ? x : 1) : 0, as mni_clamp01 writes it */
    __m128 c = select4(_mm_cmplt_ps(m, one), m, one);
    c = select4(_mm_cmpgt_ps(m, zero), c, zero);
    return _mm_mul_ps(l, c);
}

/*
 * The series of blend.c's series_weights on four lanes,
 * u·(1 + y₁·(1 + … (1 + y_n))), with the same operation order, to n terms.
 * With all eight terms it is the reference bit for bit.  Fewer suffice when
 * the inputs are close: the terms shrink by at least (1 − d)/2 each, so for
 * every d >= 0.98 the tail past three terms is below 1e-8 of the weight,
 * and for every d >= 0.9 the tail past five (groups_terms picks).
 */
static inline __m128 series4(__m128 x, __m128 u, int terms)
{
    __m128 u2 = _mm_mul_ps(u, u), acc = _mm_set1_ps(1.0f), one = _mm_set1_ps(1.0f);
    for (int k = terms; k >= 1; k--) {
        __m128 kx = _mm_mul_ps(_mm_set1_ps(mni_slerp_series_k[k - 1]), x);
        __m128 k2 = _mm_set1_ps((float)(k * k));
        acc = _mm_add_ps(one, _mm_mul_ps(_mm_mul_ps(_mm_sub_ps(u2, k2), kx), acc));
    }
    return _mm_mul_ps(u, acc);
}

/* series4 at the counts group_terms picks, each unrolled by the compiler. */
static inline __m128 series4_picked(__m128 x, __m128 u, int terms)
{
    if (terms == 3)
        return series4(x, u, 3);
    if (terms == 5)
        return series4(x, u, 5);
    return series4(x, u, MN_SERIES_FIXED_TERMS);
}

/* Series terms a group needs: by the smallest d of the lanes really blended (`blended`); 0 for none. */
static inline int group_terms(__m128 d, __m128 blended)
{
    if (_mm_movemask_ps(blended) == 0)
        return 0;
    __m128 dm = select4(blended, d, _mm_set1_ps(1.0f));
    if (_mm_movemask_ps(_mm_cmpge_ps(dm, _mm_set1_ps(0.98f))) == 0xF)
        return 3;
    if (_mm_movemask_ps(_mm_cmpge_ps(dm, _mm_set1_ps(0.9f))) == 0xF)
        return 5;
    return MN_SERIES_FIXED_TERMS;
}

/* q / |q| per lane, identity where |q|² is zero or not finite (quat_normalize4). */
static inline void normalize4(__m128 q[4])
{
    __m128 n2 = dot4(q, q), zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
    __m128 ok = _mm_and_ps(_mm_cmpgt_ps(n2, zero), _mm_cmple_ps(n2, _mm_set1_ps(FLT_MAX)));
    __m128 inv = _mm_div_ps(one, _mm_sqrt_ps(n2));
    q[0] = _mm_and_ps(ok, _mm_mul_ps(q[0], inv));
    q[1] = _mm_and_ps(ok, _mm_mul_ps(q[1], inv));
    q[2] = _mm_and_ps(ok, _mm_mul_ps(q[2], inv));
    q[3] = select4(ok, _mm_mul_ps(q[3], inv), one);
}

/* A joint's per-lane value spread over the 12 floats of four 3-vectors. */
static inline void spread3(__m128 v, __m128 out[3])
{
    out[0] = _mm_shuffle_ps(v, v, _MM_SHUFFLE(1, 0, 0, 0));
    out[1] = _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 2, 1, 1));
    out[2] = _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 3, 3, 2));
}

/* Joints [j, j+4) of `dst` from `src`, all three channels (nothing when they are one pose). */
static void copy4(mn_pose *dst, const mn_pose *src, uint32_t j)
{
    if (dst == src)
        return;
    memmove(dst->translations + 3 * (size_t)j, src->translations + 3 * (size_t)j, 12 * sizeof(float));
    memmove(dst->rotations + 4 * (size_t)j, src->rotations + 4 * (size_t)j, 16 * sizeof(float));
    memmove(dst->scales + 3 * (size_t)j, src->scales + 3 * (size_t)j, 12 * sizeof(float));
}

/*
 * Whether a + (b − a)·w is a, bit for bit, for every lane of a channel of
 * four joints at any weight: b has a's bits, a is finite and a is not −0
 * (b − a is then +0, and a + 0 is a; −0 + 0 would be +0 and an infinity
 * would give NaN, so those are computed).  Copies at weight 1 give b, which
 * is a here too.
 */
static inline bool channel_unchanged(const __m128 va[3], const __m128 vb[3])
{
    const __m128 inf = _mm_set1_ps(INFINITY), sign_bit = _mm_set1_ps(-0.0f);
    __m128i all = _mm_set1_epi32(-1);
    for (int i = 0; i < 3; i++) {
        __m128i bits = _mm_castps_si128(va[i]);
        __m128i eq = _mm_cmpeq_epi32(bits, _mm_castps_si128(vb[i]));
        __m128i negative_zero = _mm_cmpeq_epi32(bits, _mm_castps_si128(sign_bit));
        __m128i finite = _mm_castps_si128(_mm_cmplt_ps(_mm_andnot_ps(sign_bit, va[i]), inf));
        all = _mm_and_si128(all, _mm_andnot_si128(negative_zero, _mm_and_si128(eq, finite)));
    }
    return _mm_movemask_epi8(all) == 0xFFFF;
}

/*
 * Up to MN_SIMD_GROUPS groups of four in passes over the run: gather
 * (transpose, dot, flip, weights), the series for every group, then
 * combine and store.  The series is a chain of sixteen dependent
 * multiply-adds; one group at a time left the core waiting on it, while
 * independent groups in a loop of their own overlap.
 */
uint32_t mni_blend_sse2(const mn_pose *a, const mn_pose *b, float layer, const float *mask,
                       mn_pose *out, uint32_t first, uint32_t groups)
{
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f), sign_bit = _mm_set1_ps(-0.0f);
    __m128 qa[MN_SIMD_GROUPS][4], qb[MN_SIMD_GROUPS][4], w[MN_SIMD_GROUPS], d[MN_SIMD_GROUPS];
    __m128 flip[MN_SIMD_GROUPS], ka[MN_SIMD_GROUPS], kb[MN_SIMD_GROUPS];
    int terms[MN_SIMD_GROUPS];
    uint32_t skip = 0, refer = 0; /* groups copied whole; groups left to the reference */
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t j = first + 4 * g;
        w[g] = joint_weights(layer, mask, j);
        __m128 is0 = _mm_cmpeq_ps(w[g], zero), is1 = _mm_cmpeq_ps(w[g], one);
        if (_mm_movemask_ps(is0) == 0xF) {
            copy4(out, a, j);
            skip |= 1u << g;
            continue;
        }
        load_quats(a->rotations + 4 * (size_t)j, qa[g]);
        load_quats(b->rotations + 4 * (size_t)j, qb[g]);
        __m128 dot = dot4(qa[g], qb[g]);
        flip[g] = _mm_and_ps(_mm_cmplt_ps(dot, zero), sign_bit); /* the short arc: kb negated */
        d[g] = _mm_xor_ps(dot, flip[g]);
        /* A lane outside the fixed series' range that is really blended: the reference's job. */
        __m128 wide = _mm_andnot_ps(_mm_or_ps(is0, is1), _mm_cmplt_ps(d[g], _mm_set1_ps(MN_SERIES_FIXED_FROM)));
        if (_mm_movemask_ps(wide) != 0) {
            refer |= 1u << g;
            skip |= 1u << g;
        }
        terms[g] = group_terms(d[g], _mm_andnot_ps(_mm_or_ps(is0, is1), _mm_set1_ps(-1.0f)));
    }
    for (uint32_t g = 0; g < groups; g++) {
        if (skip >> g & 1u)
            continue;
        __m128 rest = _mm_sub_ps(one, w[g]), x = _mm_sub_ps(d[g], one);
        __m128 near = _mm_cmpgt_ps(d[g], _mm_set1_ps(MN_NEARLY_PARALLEL));
        if (terms[g] == 0) {
            /* every lane a copy (weights 0 and 1 only): the weights are not used */
            ka[g] = rest;
            kb[g] = w[g];
            continue;
        }
        ka[g] = select4(near, rest, series4_picked(x, rest, terms[g]));
        kb[g] = _mm_xor_ps(select4(near, w[g], series4_picked(x, w[g], terms[g])), flip[g]);
    }
    for (uint32_t g = 0; g < groups; g++) {
        if (skip >> g & 1u)
            continue;
        uint32_t j = first + 4 * g;
        __m128 is0 = _mm_cmpeq_ps(w[g], zero), is1 = _mm_cmpeq_ps(w[g], one);
        __m128 r[4];
        for (int i = 0; i < 4; i++)
            r[i] = _mm_add_ps(_mm_mul_ps(qa[g][i], ka[g]), _mm_mul_ps(qb[g][i], kb[g]));
        normalize4(r);
        if (_mm_movemask_ps(_mm_or_ps(is0, is1)) != 0) /* some joint copies a side */
            for (int i = 0; i < 4; i++)
                r[i] = select4(is0, qa[g][i], select4(is1, qb[g][i], r[i]));

        /* Translations and scales: a + (b − a)·w, 12 floats of each, copies where w is 0 or 1. */
        __m128 w3[3], c0[3], c1[3];
        spread3(w[g], w3);
        spread3(is0, c0);
        spread3(is1, c1);
        float *channels[2] = {out->translations, out->scales};
        const float *from[2] = {a->translations, a->scales}, *to[2] = {b->translations, b->scales};
        __m128 res[2][3];
        bool same[2];
        for (int c = 0; c < 2; c++) {
            __m128 va[3], vb[3];
            for (int i = 0; i < 3; i++) {
                va[i] = _mm_loadu_ps(from[c] + 3 * (size_t)j + 4 * i);
                vb[i] = _mm_loadu_ps(to[c] + 3 * (size_t)j + 4 * i);
            }
            /* Equal inputs (a scale of 1 on both sides, a bind translation) blend to a: skip. */
            if ((same[c] = channel_unchanged(va, vb))) {
                for (int i = 0; i < 3; i++)
                    res[c][i] = va[i];
                continue;
            }
            for (int i = 0; i < 3; i++) {
                __m128 v = _mm_add_ps(va[i], _mm_mul_ps(_mm_sub_ps(vb[i], va[i]), w3[i]));
                res[c][i] = select4(c0[i], va[i], select4(c1[i], vb[i], v));
            }
        }
        /* Each group's joints read before written: out may be a or b. */
        store_quats(out->rotations + 4 * (size_t)j, r);
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < 3 && !(same[c] && out == a); i++)
                _mm_storeu_ps(channels[c] + 3 * (size_t)j + 4 * i, res[c][i]);
    }
    return refer;
}

/* a · b (Hamilton) per lane, in blend.c's quat_mul order. */
static inline void quat_mul4(__m128 out[4], const __m128 a[4], const __m128 b[4])
{
#define M(p, q) _mm_mul_ps(a[p], b[q])
    out[0] = _mm_sub_ps(_mm_add_ps(_mm_add_ps(M(3, 0), M(0, 3)), M(1, 2)), M(2, 1));
    out[1] = _mm_add_ps(_mm_add_ps(_mm_sub_ps(M(3, 1), M(0, 2)), M(1, 3)), M(2, 0));
    out[2] = _mm_add_ps(_mm_sub_ps(_mm_add_ps(M(3, 2), M(0, 1)), M(1, 0)), M(2, 3));
    out[3] = _mm_sub_ps(_mm_sub_ps(_mm_sub_ps(M(3, 3), M(0, 0)), M(1, 1)), M(2, 2));
#undef M
}

/* The additive layer in the same three passes as mni_blend_sse2. */
uint32_t mni_add_sse2(const mn_pose *base, const mn_pose *delta, float layer, const float *mask,
                     mn_pose *out, uint32_t first, uint32_t groups)
{
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f), sign_bit = _mm_set1_ps(-0.0f);
    __m128 rb[MN_SIMD_GROUPS][4], q[MN_SIMD_GROUPS][4], w[MN_SIMD_GROUPS], keep[MN_SIMD_GROUPS];
    __m128 ki[MN_SIMD_GROUPS], kq[MN_SIMD_GROUPS];
    int terms[MN_SIMD_GROUPS];
    uint32_t skip = 0, refer = 0;
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t j = first + 4 * g;
        w[g] = joint_weights(layer, mask, j);
        __m128 is0 = _mm_cmpeq_ps(w[g], zero);
        if (_mm_movemask_ps(is0) == 0xF) {
            copy4(out, base, j);
            skip |= 1u << g;
            continue;
        }
        __m128 rd[4];
        load_quats(base->rotations + 4 * (size_t)j, rb[g]);
        load_quats(delta->rotations + 4 * (size_t)j, rd);
        /* An identity delta (x = y = z = 0) keeps the base's bits. */
        __m128 identity = _mm_and_ps(_mm_and_ps(_mm_cmpeq_ps(rd[0], zero), _mm_cmpeq_ps(rd[1], zero)),
                                     _mm_cmpeq_ps(rd[2], zero));
        keep[g] = _mm_or_ps(is0, identity);
        /* q = delta on the w >= 0 side (−1·x is exactly −x) */
        __m128 flip = _mm_and_ps(_mm_cmplt_ps(rd[3], zero), sign_bit);
        for (int i = 0; i < 4; i++)
            q[g][i] = _mm_xor_ps(rd[i], flip);
        __m128 wide = _mm_andnot_ps(keep[g], _mm_cmplt_ps(q[g][3], _mm_set1_ps(MN_SERIES_FIXED_FROM)));
        if (_mm_movemask_ps(wide) != 0) {
            refer |= 1u << g;
            skip |= 1u << g;
        }
        terms[g] = group_terms(q[g][3], _mm_andnot_ps(keep[g], _mm_set1_ps(-1.0f)));
    }
    for (uint32_t g = 0; g < groups; g++) {
        if (skip >> g & 1u)
            continue;
        __m128 rest = _mm_sub_ps(one, w[g]), x = _mm_sub_ps(q[g][3], one);
        __m128 near = _mm_cmpgt_ps(q[g][3], _mm_set1_ps(MN_NEARLY_PARALLEL));
        __m128 whole = _mm_cmpeq_ps(w[g], one);
        if (_mm_movemask_ps(_mm_or_ps(whole, keep[g])) == 0xF) {
            /* Every lane the whole delta (a 0/1 mask at full weight): S(ΔR, 1) = ΔR, no series. */
            ki[g] = zero;
            kq[g] = one;
            continue;
        }
        /* S(ΔR, w)'s weights: nlerp near identity, the whole arc at w = 1, the series between */
        ki[g] = select4(near, rest, select4(whole, zero, series4_picked(x, rest, terms[g])));
        kq[g] = select4(near, w[g], select4(whole, one, series4_picked(x, w[g], terms[g])));
    }
    for (uint32_t g = 0; g < groups; g++) {
        if (skip >> g & 1u)
            continue;
        uint32_t j = first + 4 * g;
        __m128 dr[4], r[4];
        dr[0] = _mm_mul_ps(kq[g], q[g][0]);
        dr[1] = _mm_mul_ps(kq[g], q[g][1]);
        dr[2] = _mm_mul_ps(kq[g], q[g][2]);
        dr[3] = _mm_add_ps(ki[g], _mm_mul_ps(kq[g], q[g][3]));
        quat_mul4(r, rb[g], dr);
        normalize4(r);
        if (_mm_movemask_ps(keep[g]) != 0) /* some joint keeps the base */
            for (int i = 0; i < 4; i++)
                r[i] = select4(keep[g], rb[g][i], r[i]);

        /* t = t_b + w·t_d; s = s_b·(1 + (s_d − 1)·w); the base where w is 0 */
        __m128 w3[3], c0[3], t[3], s[3];
        spread3(w[g], w3);
        spread3(_mm_cmpeq_ps(w[g], zero), c0);
        for (int i = 0; i < 3; i++) {
            size_t at = 3 * (size_t)j + 4 * (size_t)i;
            __m128 tb = _mm_loadu_ps(base->translations + at), td = _mm_loadu_ps(delta->translations + at);
            __m128 sb = _mm_loadu_ps(base->scales + at), sd = _mm_loadu_ps(delta->scales + at);
            t[i] = select4(c0[i], tb, _mm_add_ps(tb, _mm_mul_ps(w3[i], td)));
            s[i] = select4(c0[i], sb, _mm_mul_ps(sb, _mm_add_ps(one, _mm_mul_ps(_mm_sub_ps(sd, one), w3[i]))));
        }
        store_quats(out->rotations + 4 * (size_t)j, r);
        for (int i = 0; i < 3; i++) {
            size_t at = 3 * (size_t)j + 4 * (size_t)i;
            _mm_storeu_ps(out->translations + at, t[i]);
            _mm_storeu_ps(out->scales + at, s[i]);
        }
    }
    return refer;
}
#else
/* A build without SSE2 (or with MN_NO_SIMD) uses the scalar reference alone. */
typedef int mn_blend_simd_unused;
#endif
