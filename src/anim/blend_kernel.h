/*
 * The SIMD kernels of the pose blend and the additive layer (blend.c),
 * written once over the lane layer (core/simd.h, the convention) and
 * included by blend_sse2.c (four joints a register) and blend_avx2.c
 * (eight): VF_W joints a group, the quaternions transposed into x, y, z, w
 * registers, then the dot products, the short-arc flips, the slerp series,
 * the nlerp picks and the normalisation computed for the group at once,
 * over up to BLEND_GROUPS groups (64 joints) a call in three passes (see
 * MN_ISA(mni_blend)).  The entry points are MN_ISA(mni_blend) and
 * MN_ISA(mni_add), with the contract blend_internal.h states.
 *
 * Each lane does the scalar reference's IEEE operations in its order (add,
 * subtract, multiply, divide, square root; no fused multiply-add), except
 * that where BLEND_SHORT_SERIES is 1 a group whose inputs are all close sums
 * fewer of the slerp series' terms (series: the rest are below 1e-8 of the
 * weight), so the result is the reference's to within rounding;
 * tests/test_blend.c holds every component within 1e-6, the copies bit for
 * bit, and the SSE2 and AVX2 kernels to each other bit for bit (on its
 * cases: they part only where an AVX2 group sums fewer terms).  What the
 * reference does without the series (bit-exact copies at weight 0 and 1,
 * identity deltas keeping the base's bits, nlerp above the parallel
 * threshold) is picked per lane with masks, not branches.  A group in which
 * some lane needs the wide-arc series (cos θ below MN_SERIES_FIXED_FROM,
 * summed to convergence) is left unwritten and its bit set in the answer:
 * the caller runs the reference on those joints.
 *
 * Work that cannot change a joint is skipped: a group whose weights are all
 * 0 is a copy of the first operand (nothing at all when out is that
 * operand: a mask's zero region), and a blend's translations or scales
 * equal on both sides (unit scales, bind translations) are not lerped.
 *
 * The including file defines BLEND_SHORT_SERIES: 1 lets a group of close
 * joints sum three or five terms (group_terms); 0 sums the eight of the
 * reference always, and gives the reference's bits.  The SSE2 kernel has
 * always summed the eight, the AVX2 kernel fewer; each keeps the bits it
 * has given.
 */
#ifndef MN_ANIM_BLEND_KERNEL_H
#define MN_ANIM_BLEND_KERNEL_H

#include "anim/quat_lanes.h"

#include <math.h>
#include <string.h>

/* Groups of VF_W joints one call handles: a run of 64 (blend_internal.h's MN_BLEND_RUN). */
#define BLEND_GROUPS (MN_BLEND_RUN / VF_W)

/* The layer weight times each joint's clamped mask weight (mni_clamp01: NaN gives 0). */
MN_LANE vf joint_weights(float layer, const float *mask, uint32_t j)
{
    vf l = vf_set1(layer);
    if (!mask)
        return l;
    vf m = vf_loadu(mask + j), zero = vf_zero(), one = vf_set1(1.0f);
    /* x > 0 ? (x < 1 ? x : 1) : 0, as mni_clamp01 writes it */
    vf c = vf_select(vf_lt(m, one), m, one);
    c = vf_select(vf_gt(m, zero), c, zero);
    return vf_mul(l, c);
}

/*
 * The series of blend.c's series_weights on every lane,
 * u·(1 + y₁·(1 + … (1 + y_n))), with the same operation order, to n terms.
 * With all eight terms it is the reference bit for bit.  Fewer suffice when
 * the inputs are close: the terms shrink by at least (1 − d)/2 each, so for
 * every d >= 0.98 the tail past three terms is below 1e-8 of the weight,
 * and for every d >= 0.9 the tail past five (group_terms picks).
 */
MN_LANE vf series(vf x, vf u, int terms)
{
    vf u2 = vf_mul(u, u), acc = vf_set1(1.0f), one = vf_set1(1.0f);
    for (int k = terms; k >= 1; k--) {
        vf kx = vf_mul(vf_set1(mni_slerp_series_k[k - 1]), x);
        vf k2 = vf_set1((float)(k * k));
        acc = vf_add(one, vf_mul(vf_mul(vf_sub(u2, k2), kx), acc));
    }
    return vf_mul(u, acc);
}

/* series at the counts group_terms picks, each unrolled by the compiler. */
MN_LANE vf series_picked(vf x, vf u, int terms)
{
    if (terms == 3)
        return series(x, u, 3);
    if (terms == 5)
        return series(x, u, 5);
    return series(x, u, MN_SERIES_FIXED_TERMS);
}

/* Series terms a group needs: by the smallest d of the lanes really blended (`blended`); 0 for none. */
MN_LANE int group_terms(vf d, vf blended)
{
    if (vf_movemask(blended) == 0)
        return 0;
#if BLEND_SHORT_SERIES
    vf dm = vf_select(blended, d, vf_set1(1.0f));
    if (vf_movemask(vf_ge(dm, vf_set1(0.98f))) == VF_ALL)
        return 3;
    if (vf_movemask(vf_ge(dm, vf_set1(0.9f))) == VF_ALL)
        return 5;
#else
    (void)d;
#endif
    return MN_SERIES_FIXED_TERMS;
}

/*
 * A per-joint value spread over the 3·VF_W floats of VF_W 3-vectors.
 * Without a mask every lane holds the same value and the spread is the value
 * itself: the shuffles are saved.
 */
MN_LANE void spread3(vf v, bool uniform, vf out[3])
{
    if (uniform) {
        out[0] = out[1] = out[2] = v;
        return;
    }
    vf_spread3(v, out);
}

/* Joints [j, j + VF_W) of `dst` from `src`, all three channels (nothing when they are one pose). */
MN_LANE void copy_group(mn_pose *dst, const mn_pose *src, uint32_t j)
{
    if (dst == src)
        return;
    memmove(dst->translations + 3 * (size_t)j, src->translations + 3 * (size_t)j,
            3 * VF_W * sizeof(float));
    memmove(dst->rotations + 4 * (size_t)j, src->rotations + 4 * (size_t)j, 4 * VF_W * sizeof(float));
    memmove(dst->scales + 3 * (size_t)j, src->scales + 3 * (size_t)j, 3 * VF_W * sizeof(float));
}

/*
 * Whether a + (b − a)·w is a, bit for bit, for every lane of a channel of
 * the group at any weight: b has a's bits, a is finite and a is not −0
 * (b − a is then +0, and a + 0 is a; −0 + 0 would be +0 and an infinity
 * would give NaN, so those are computed).  Copies at weight 1 give b, which
 * is a here too.
 */
MN_LANE bool channel_unchanged(const vf va[3], const vf vb[3])
{
    const vf inf = vf_set1(INFINITY), sign_bit = vf_set1(-0.0f);
    vf all = vf_true();
    for (int i = 0; i < 3; i++) {
        vf eq = vf_same_bits(va[i], vb[i]);
        vf negative_zero = vf_same_bits(va[i], sign_bit);
        vf finite = vf_lt(vf_andnot(sign_bit, va[i]), inf);
        all = vf_and(all, vf_andnot(negative_zero, vf_and(eq, finite)));
    }
    return vf_movemask(all) == VF_ALL;
}

/*
 * Up to BLEND_GROUPS groups in passes over the run: gather (transpose, dot,
 * flip, weights), the series for every group, then combine and store.  The
 * series is a chain of sixteen dependent multiply-adds; one group at a time
 * left the core waiting on it, while independent groups in a loop of their
 * own overlap.
 */
MN_KERNEL uint32_t MN_ISA(mni_blend)(const mn_pose *a, const mn_pose *b, float layer,
                                     const float *mask, mn_pose *out, uint32_t first,
                                     uint32_t groups)
{
    const vf zero = vf_zero(), one = vf_set1(1.0f), sign_bit = vf_set1(-0.0f);
    vf qa[BLEND_GROUPS][4], qb[BLEND_GROUPS][4], w[BLEND_GROUPS], d[BLEND_GROUPS];
    vf flip[BLEND_GROUPS], ka[BLEND_GROUPS], kb[BLEND_GROUPS];
    int terms[BLEND_GROUPS];
    uint32_t skip = 0, refer = 0; /* groups copied whole; groups left to the reference */
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t j = first + VF_W * g;
        w[g] = joint_weights(layer, mask, j);
        vf is0 = vf_eq(w[g], zero), is1 = vf_eq(w[g], one);
        if (vf_movemask(is0) == VF_ALL) {
            copy_group(out, a, j);
            skip |= 1u << g;
            continue;
        }
        quats_load(a->rotations + 4 * (size_t)j, qa[g]);
        quats_load(b->rotations + 4 * (size_t)j, qb[g]);
        vf dot = quat_dot(qa[g], qb[g]);
        flip[g] = vf_and(vf_lt(dot, zero), sign_bit); /* the short arc: kb negated */
        d[g] = vf_xor(dot, flip[g]);
        /* A lane outside the fixed series' range that is really blended: the reference's job. */
        vf copies = vf_or(is0, is1);
        vf wide = vf_andnot(copies, vf_lt(d[g], vf_set1(MN_SERIES_FIXED_FROM)));
        if (vf_movemask(wide) != 0) {
            refer |= 1u << g;
            skip |= 1u << g;
        }
        terms[g] = group_terms(d[g], vf_andnot(copies, vf_true()));
    }
    for (uint32_t g = 0; g < groups; g++) {
        if (skip >> g & 1u)
            continue;
        vf rest = vf_sub(one, w[g]), x = vf_sub(d[g], one);
        if (terms[g] == 0) {
            /* every lane a copy (weights 0 and 1 only): the weights are not used */
            ka[g] = rest;
            kb[g] = w[g];
            continue;
        }
        vf near = vf_gt(d[g], vf_set1(MN_NEARLY_PARALLEL));
        ka[g] = vf_select(near, rest, series_picked(x, rest, terms[g]));
        kb[g] = vf_xor(vf_select(near, w[g], series_picked(x, w[g], terms[g])), flip[g]);
    }
    for (uint32_t g = 0; g < groups; g++) {
        if (skip >> g & 1u)
            continue;
        uint32_t j = first + VF_W * g;
        vf is0 = vf_eq(w[g], zero), is1 = vf_eq(w[g], one);
        vf r[4];
        for (int i = 0; i < 4; i++)
            r[i] = vf_add(vf_mul(qa[g][i], ka[g]), vf_mul(qb[g][i], kb[g]));
        quat_normalize(r);
        if (vf_movemask(vf_or(is0, is1)) != 0) /* some joint copies a side */
            for (int i = 0; i < 4; i++)
                r[i] = vf_select(is0, qa[g][i], vf_select(is1, qb[g][i], r[i]));

        /* Translations and scales: a + (b − a)·w, 3·VF_W floats of each, copies where w is 0 or 1. */
        vf w3[3], c0[3], c1[3];
        spread3(w[g], !mask, w3);
        spread3(is0, !mask, c0);
        spread3(is1, !mask, c1);
        float *channels[2] = {out->translations, out->scales};
        const float *from[2] = {a->translations, a->scales}, *to[2] = {b->translations, b->scales};
        vf res[2][3];
        bool same[2];
        for (int c = 0; c < 2; c++) {
            vf va[3], vb[3];
            for (int i = 0; i < 3; i++) {
                va[i] = vf_loadu(from[c] + 3 * (size_t)j + VF_W * i);
                vb[i] = vf_loadu(to[c] + 3 * (size_t)j + VF_W * i);
            }
            /* Equal inputs (a scale of 1 on both sides, a bind translation) blend to a: skip. */
            if ((same[c] = channel_unchanged(va, vb))) {
                for (int i = 0; i < 3; i++)
                    res[c][i] = va[i];
                continue;
            }
            for (int i = 0; i < 3; i++) {
                vf v = vf_add(va[i], vf_mul(vf_sub(vb[i], va[i]), w3[i]));
                res[c][i] = vf_select(c0[i], va[i], vf_select(c1[i], vb[i], v));
            }
        }
        /* Each group's joints read before written: out may be a or b. */
        quats_store(out->rotations + 4 * (size_t)j, r);
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < 3 && !(same[c] && out == a); i++)
                vf_storeu(channels[c] + 3 * (size_t)j + VF_W * i, res[c][i]);
    }
    return refer;
}

/*
 * Two blends in one pass, out = blend(blend(a, b, tb), c, tc) with no mask
 * and 0 < tb, tc < 1 (blend.c's mni_blend_poses3 sends nothing else): each
 * stage is MN_ISA(mni_blend)'s arithmetic on every lane in its order (the
 * same dot, flip, series, combination and normalisation; at such weights no
 * lane copies a side, so its selects pick the computed values), but the
 * first stage's joints stay in registers for the second instead of being
 * stored, reloaded and transposed twice more.  A group in which either stage
 * needs the wide-arc series is left unwritten and its bit set: the caller
 * runs the two blends on it as they would run alone.  Everything read (a's
 * and b's channels, then c's) is read before the first store, so out may be
 * a or b.
 */
typedef struct blend3_group {
    vf q[4], t[3], s[3];         /* the first stage's joints */
} blend3_group;

/* Pass 1 of a stage for one group: dot, flip, |dot|; false when a lane needs the wide series. */
MN_LANE bool blend3_prepare(const vf p[4], const vf q[4], vf *d, vf *flip, int *terms)
{
    const vf zero = vf_zero(), sign_bit = vf_set1(-0.0f);
    vf dot = quat_dot(p, q);
    *flip = vf_and(vf_lt(dot, zero), sign_bit);
    *d = vf_xor(dot, *flip);
    if (vf_movemask(vf_lt(*d, vf_set1(MN_SERIES_FIXED_FROM))) != 0)
        return false;
    *terms = group_terms(*d, vf_true());
    return true;
}

/* Pass 2: the slerp weights of a's and b's side. */
MN_LANE void blend3_series(vf w, vf d, vf flip, int terms, vf *ka, vf *kb)
{
    const vf one = vf_set1(1.0f);
    vf rest = vf_sub(one, w), x = vf_sub(d, one);
    vf near = vf_gt(d, vf_set1(MN_NEARLY_PARALLEL));
    *ka = vf_select(near, rest, series_picked(x, rest, terms));
    *kb = vf_xor(vf_select(near, w, series_picked(x, w, terms)), flip);
}

/* Pass 3: the rotations combined and normalised; translations and scales lerped. */
MN_LANE void blend3_combine(const vf p[4], const vf q[4], vf ka, vf kb, vf r[4])
{
    for (int i = 0; i < 4; i++)
        r[i] = vf_add(vf_mul(p[i], ka), vf_mul(q[i], kb));
    quat_normalize(r);
}

MN_LANE void blend3_lerp(const vf va[3], const vf vb[3], vf w, vf res[3])
{
    bool same = channel_unchanged(va, vb);
    for (int i = 0; i < 3; i++)
        res[i] = same ? va[i] : vf_add(va[i], vf_mul(vf_sub(vb[i], va[i]), w));
}

MN_LANE void channel_load(const float *base, uint32_t j, vf v[3])
{
    for (int i = 0; i < 3; i++)
        v[i] = vf_loadu(base + 3 * (size_t)j + VF_W * i);
}

MN_KERNEL uint32_t MN_ISA(mni_blend3)(const mn_pose *a, const mn_pose *b, const mn_pose *c, float tb,
                                      float tc, mn_pose *out, uint32_t first, uint32_t groups)
{
    vf qb[BLEND_GROUPS][4], d[BLEND_GROUPS], flip[BLEND_GROUPS], ka[BLEND_GROUPS], kb[BLEND_GROUPS];
    blend3_group mid[BLEND_GROUPS];
    int terms[BLEND_GROUPS];
    const vf wb = vf_set1(tb), wc = vf_set1(tc);
    uint32_t refer = 0;
    /* the first stage: a toward b */
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t j = first + VF_W * g;
        quats_load(a->rotations + 4 * (size_t)j, mid[g].q);
        quats_load(b->rotations + 4 * (size_t)j, qb[g]);
        if (!blend3_prepare(mid[g].q, qb[g], &d[g], &flip[g], &terms[g]))
            refer |= 1u << g;
    }
    for (uint32_t g = 0; g < groups; g++)
        if (!(refer >> g & 1u))
            blend3_series(wb, d[g], flip[g], terms[g], &ka[g], &kb[g]);
    for (uint32_t g = 0; g < groups; g++) {
        if (refer >> g & 1u)
            continue;
        uint32_t j = first + VF_W * g;
        vf r[4], va[3], vb[3];
        blend3_combine(mid[g].q, qb[g], ka[g], kb[g], r);
        memcpy(mid[g].q, r, sizeof r);
        channel_load(a->translations, j, va);
        channel_load(b->translations, j, vb);
        blend3_lerp(va, vb, wb, mid[g].t);
        channel_load(a->scales, j, va);
        channel_load(b->scales, j, vb);
        blend3_lerp(va, vb, wb, mid[g].s);
    }
    /* the second stage: that toward c, stored */
    for (uint32_t g = 0; g < groups; g++) {
        if (refer >> g & 1u)
            continue;
        quats_load(c->rotations + 4 * (size_t)(first + VF_W * g), qb[g]);
        if (!blend3_prepare(mid[g].q, qb[g], &d[g], &flip[g], &terms[g]))
            refer |= 1u << g;
    }
    for (uint32_t g = 0; g < groups; g++)
        if (!(refer >> g & 1u))
            blend3_series(wc, d[g], flip[g], terms[g], &ka[g], &kb[g]);
    for (uint32_t g = 0; g < groups; g++) {
        if (refer >> g & 1u)
            continue;
        uint32_t j = first + VF_W * g;
        vf r[4], vc[3], t[3], sc[3];
        blend3_combine(mid[g].q, qb[g], ka[g], kb[g], r);
        channel_load(c->translations, j, vc);
        blend3_lerp(mid[g].t, vc, wc, t);
        channel_load(c->scales, j, vc);
        blend3_lerp(mid[g].s, vc, wc, sc);
        quats_store(out->rotations + 4 * (size_t)j, r);
        for (int i = 0; i < 3; i++) {
            vf_storeu(out->translations + 3 * (size_t)j + VF_W * i, t[i]);
            vf_storeu(out->scales + 3 * (size_t)j + VF_W * i, sc[i]);
        }
    }
    return refer;
}

/* a · b (Hamilton) per lane, in blend.c's quat_mul order. */
MN_LANE void quat_mul(vf out[4], const vf a[4], const vf b[4])
{
#define M(p, q) vf_mul(a[p], b[q])
    out[0] = vf_sub(vf_add(vf_add(M(3, 0), M(0, 3)), M(1, 2)), M(2, 1));
    out[1] = vf_add(vf_add(vf_sub(M(3, 1), M(0, 2)), M(1, 3)), M(2, 0));
    out[2] = vf_add(vf_sub(vf_add(M(3, 2), M(0, 1)), M(1, 0)), M(2, 3));
    out[3] = vf_sub(vf_sub(vf_sub(M(3, 3), M(0, 0)), M(1, 1)), M(2, 2));
#undef M
}

/* The additive layer in the same three passes as MN_ISA(mni_blend). */
MN_KERNEL uint32_t MN_ISA(mni_add)(const mn_pose *base, const mn_pose *delta, float layer,
                                   const float *mask, mn_pose *out, uint32_t first,
                                   uint32_t groups)
{
    const vf zero = vf_zero(), one = vf_set1(1.0f), sign_bit = vf_set1(-0.0f);
    vf rb[BLEND_GROUPS][4], q[BLEND_GROUPS][4], w[BLEND_GROUPS], keep[BLEND_GROUPS];
    vf ki[BLEND_GROUPS], kq[BLEND_GROUPS];
    int terms[BLEND_GROUPS];
    uint32_t skip = 0, refer = 0;
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t j = first + VF_W * g;
        w[g] = joint_weights(layer, mask, j);
        vf is0 = vf_eq(w[g], zero);
        if (vf_movemask(is0) == VF_ALL) {
            copy_group(out, base, j);
            skip |= 1u << g;
            continue;
        }
        vf rd[4];
        quats_load(base->rotations + 4 * (size_t)j, rb[g]);
        quats_load(delta->rotations + 4 * (size_t)j, rd);
        /* An identity delta (x = y = z = 0) keeps the base's bits. */
        vf identity = vf_and(vf_and(vf_eq(rd[0], zero), vf_eq(rd[1], zero)), vf_eq(rd[2], zero));
        keep[g] = vf_or(is0, identity);
        /* q = delta on the w >= 0 side (−1·x is exactly −x) */
        vf flip = vf_and(vf_lt(rd[3], zero), sign_bit);
        for (int i = 0; i < 4; i++)
            q[g][i] = vf_xor(rd[i], flip);
        vf wide = vf_andnot(keep[g], vf_lt(q[g][3], vf_set1(MN_SERIES_FIXED_FROM)));
        if (vf_movemask(wide) != 0) {
            refer |= 1u << g;
            skip |= 1u << g;
        }
        terms[g] = group_terms(q[g][3], vf_andnot(keep[g], vf_true()));
    }
    for (uint32_t g = 0; g < groups; g++) {
        if (skip >> g & 1u)
            continue;
        vf whole = vf_eq(w[g], one);
        if (vf_movemask(vf_or(whole, keep[g])) == VF_ALL) {
            /* Every lane the whole delta (a 0/1 mask at full weight): S(ΔR, 1) = ΔR, no series. */
            ki[g] = zero;
            kq[g] = one;
            continue;
        }
        vf rest = vf_sub(one, w[g]), x = vf_sub(q[g][3], one);
        vf near = vf_gt(q[g][3], vf_set1(MN_NEARLY_PARALLEL));
        /* S(ΔR, w)'s weights: nlerp near identity, the whole arc at w = 1, the series between */
        ki[g] = vf_select(near, rest, vf_select(whole, zero, series_picked(x, rest, terms[g])));
        kq[g] = vf_select(near, w[g], vf_select(whole, one, series_picked(x, w[g], terms[g])));
    }
    for (uint32_t g = 0; g < groups; g++) {
        if (skip >> g & 1u)
            continue;
        uint32_t j = first + VF_W * g;
        vf dr[4], r[4];
        dr[0] = vf_mul(kq[g], q[g][0]);
        dr[1] = vf_mul(kq[g], q[g][1]);
        dr[2] = vf_mul(kq[g], q[g][2]);
        dr[3] = vf_add(ki[g], vf_mul(kq[g], q[g][3]));
        quat_mul(r, rb[g], dr);
        quat_normalize(r);
        if (vf_movemask(keep[g]) != 0) /* some joint keeps the base */
            for (int i = 0; i < 4; i++)
                r[i] = vf_select(keep[g], rb[g][i], r[i]);

        /* t = t_b + w·t_d; s = s_b·(1 + (s_d − 1)·w); the base where w is 0 */
        vf w3[3], c0[3], t[3], s[3];
        spread3(w[g], !mask, w3);
        spread3(vf_eq(w[g], zero), !mask, c0);
        for (int i = 0; i < 3; i++) {
            size_t at = 3 * (size_t)j + VF_W * (size_t)i;
            vf tb = vf_loadu(base->translations + at), td = vf_loadu(delta->translations + at);
            vf sb = vf_loadu(base->scales + at), sd = vf_loadu(delta->scales + at);
            t[i] = vf_select(c0[i], tb, vf_add(tb, vf_mul(w3[i], td)));
            s[i] = vf_select(c0[i], sb, vf_mul(sb, vf_add(one, vf_mul(vf_sub(sd, one), w3[i]))));
        }
        quats_store(out->rotations + 4 * (size_t)j, r);
        for (int i = 0; i < 3; i++) {
            size_t at = 3 * (size_t)j + VF_W * (size_t)i;
            vf_storeu(out->translations + at, t[i]);
            vf_storeu(out->scales + at, s[i]);
        }
    }
    return refer;
}

/* (x + (y − x)·wy) + (z − x)·wz on three registers of a channel: mni_blend_sum3's order. */
MN_LANE void sum3_channel(const vf x[3], const vf y[3], const vf z[3], vf wy, vf wz, vf out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = vf_add(vf_add(x[i], vf_mul(vf_sub(y[i], x[i]), wy)), vf_mul(vf_sub(z[i], x[i]), wz));
}

/*
 * mni_blend_sum3 (blend_internal.h) on `groups` groups of VF_W joints from
 * `first`: one pass, no series, so no group is left to the reference.  Each
 * group reads all of its joints before it writes: out may be a, b or c.
 */
MN_KERNEL void MN_ISA(mni_blend_sum3)(const mn_pose *a, const mn_pose *b, const mn_pose *c, float wa,
                                      float wb, float wc, mn_pose *out, uint32_t first, uint32_t groups)
{
    const vf zero = vf_zero(), sign_bit = vf_set1(-0.0f);
    const vf ka = vf_set1(wa), kb0 = vf_set1(wb), kc0 = vf_set1(wc);
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t j = first + VF_W * g;
        vf qa[4], qb[4], qc[4], r[4];
        quats_load(a->rotations + 4 * (size_t)j, qa);
        quats_load(b->rotations + 4 * (size_t)j, qb);
        quats_load(c->rotations + 4 * (size_t)j, qc);
        /* b and c on a's side: the weight negated where the dot is negative (−w is exact) */
        vf kb = vf_xor(kb0, vf_and(vf_lt(quat_dot(qa, qb), zero), sign_bit));
        vf kc = vf_xor(kc0, vf_and(vf_lt(quat_dot(qa, qc), zero), sign_bit));
        for (int i = 0; i < 4; i++)
            r[i] = vf_add(vf_add(vf_mul(qa[i], ka), vf_mul(qb[i], kb)), vf_mul(qc[i], kc));
        quat_normalize(r);
        vf x[3], y[3], z[3], t[3], s[3];
        channel_load(a->translations, j, x);
        channel_load(b->translations, j, y);
        channel_load(c->translations, j, z);
        sum3_channel(x, y, z, kb0, kc0, t);
        channel_load(a->scales, j, x);
        channel_load(b->scales, j, y);
        channel_load(c->scales, j, z);
        sum3_channel(x, y, z, kb0, kc0, s);
        quats_store(out->rotations + 4 * (size_t)j, r);
        for (int i = 0; i < 3; i++) {
            vf_storeu(out->translations + 3 * (size_t)j + VF_W * i, t[i]);
            vf_storeu(out->scales + 3 * (size_t)j + VF_W * i, s[i]);
        }
    }
}

#endif /* MN_ANIM_BLEND_KERNEL_H */
