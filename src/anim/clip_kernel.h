/*
 * The clip sampler's rotation runs, VF_W tracks at a time, written once over
 * the lane layer (core/simd.h, the convention) and included by clip_sse2.c
 * (four tracks) and clip_avx2.c (eight): LINEAR (clip.c's quat_slerp_to on
 * every lane) and CUBICSPLINE (the Hermite cubic, then normalised); and
 * linear rotations of tracks on different key times, each lane at its own
 * span.  The entry points are MN_ISA(mni_clip_slerp),
 * MN_ISA(mni_clip_slerp_scattered), MN_ISA(mni_clip_hermite) and
 * MN_ISA(mni_clip_hermite_scattered), with
 * the contract clip_internal.h states.
 *
 * No fused multiply-add: every lane does the scalar code's IEEE operations
 * in its order (the polynomials of clip_slerp.h, the same selects, the
 * Hermite sum left to right), so a track sampled here gives the bits
 * mn_track_sample gives (tests/test_clip.c holds every track of a clip to
 * that).
 */
#ifndef MN_ANIM_CLIP_KERNEL_H
#define MN_ANIM_CLIP_KERNEL_H

#include "anim/clip_slerp.h"
#include "anim/quat_lanes.h"

/* sin_poly on every lane: the same operations in the same order. */
MN_LANE vf sin_poly_v(vf x)
{
    vf u = vf_mul(x, x), p = vf_set1(mn_sin_poly[0]);
    for (int i = 1; i < MN_SIN_POLY_TERMS; i++)
        p = vf_add(vf_set1(mn_sin_poly[i]), vf_mul(u, p));
    return vf_mul(x, p);
}

/* acos_poly on every lane. */
MN_LANE vf acos_poly_v(vf d)
{
    vf q = vf_set1(mn_acos_poly[0]);
    for (int i = 1; i < MN_ACOS_POLY_TERMS; i++)
        q = vf_add(vf_mul(q, d), vf_set1(mn_acos_poly[i]));
    return vf_mul(vf_sqrt(vf_sub(vf_set1(1.0f), d)), q);
}

/* The four floats at `at` in VF_W tracks' values (a key, or one element of a cubic key) as x, y, z, w registers. */
MN_LANE void load_keys(const mn_track *tr, size_t at, vf r[4])
{
    const float *p[VF_W];
    for (int l = 0; l < VF_W; l++)
        p[l] = tr[l].values + at;
    vf_load_t4(p, r);
}

/* VF_W rotations (x, y, z, w registers) stored at their tracks' targets. */
MN_LANE void store_targets(const mn_track *tr, const vf q[4], float *rotations)
{
    float *p[VF_W];
    for (int l = 0; l < VF_W; l++)
        p[l] = rotations + 4 * (size_t)tr[l].target;
    vf_store_t4(p, q);
}

/*
 * quat_slerp_to for VF_W tracks at span k, lane by lane: both weight pairs
 * computed, the near-parallel test picking one per lane (the discarded
 * lanes may hold NaN from acos of a dot above 1 or a zero sin θ, and are
 * never used); when every lane is near-parallel (keys a frame apart) the
 * polynomials are skipped.
 */
MN_LANE void slerp_keys(const vf a[4], const vf b[4], vf sv, vf rest, vf q[4])
{
    const vf zero = vf_zero(), one = vf_set1(1.0f), sign_bit = vf_set1(-0.0f);
    vf d = quat_dot(a, b);
    vf flip = vf_and(vf_lt(d, zero), sign_bit); /* short arc: d = -d, wb *= -1 */
    d = vf_xor(d, flip);
    vf near = vf_gt(d, vf_set1(MN_CLIP_NEARLY_PARALLEL));
    vf wa = rest, wb = sv;
    if (vf_movemask(near) != VF_ALL) {
        vf theta = acos_poly_v(d);
        vf sin_theta = sin_poly_v(theta);
        wa = vf_select(near, rest, vf_div(sin_poly_v(vf_mul(rest, theta)), sin_theta));
        wb = vf_select(near, sv, vf_div(sin_poly_v(vf_mul(sv, theta)), sin_theta));
    }
    wb = vf_mul(wb, vf_or(one, flip));
    for (int i = 0; i < 4; i++)
        q[i] = vf_add(vf_mul(wa, a[i]), vf_mul(wb, b[i]));
    quat_normalize(q);
}

/*
 * slerp_keys of two independent sets (x and y) in one stretch of code, so
 * that their long dependency chains (the polynomials, the divides, the
 * normalisation) overlap rather than one waiting on the other: each lane is
 * slerp_keys' operations in its order, and the polynomials run for both sets
 * when either has a lane that is not near-parallel (the select then keeps a
 * near lane's lerp weights), so the bits are slerp_keys' own.
 */
MN_LANE void slerp_keys2(const vf a[4], const vf b[4], const vf c[4], const vf d[4], vf sv,
                         vf rest, vf q[4], vf r[4])
{
    const vf zero = vf_zero(), one = vf_set1(1.0f), sign_bit = vf_set1(-0.0f);
    vf dx = quat_dot(a, b), dy = quat_dot(c, d);
    vf fx = vf_and(vf_lt(dx, zero), sign_bit), fy = vf_and(vf_lt(dy, zero), sign_bit);
    dx = vf_xor(dx, fx), dy = vf_xor(dy, fy);
    vf nx = vf_gt(dx, vf_set1(MN_CLIP_NEARLY_PARALLEL)), ny = vf_gt(dy, vf_set1(MN_CLIP_NEARLY_PARALLEL));
    vf wax = rest, wbx = sv, way = rest, wby = sv;
    if ((vf_movemask(nx) & vf_movemask(ny)) != VF_ALL) {
        vf tx = acos_poly_v(dx), ty = acos_poly_v(dy);
        vf stx = sin_poly_v(tx), sty = sin_poly_v(ty);
        wax = vf_select(nx, rest, vf_div(sin_poly_v(vf_mul(rest, tx)), stx));
        way = vf_select(ny, rest, vf_div(sin_poly_v(vf_mul(rest, ty)), sty));
        wbx = vf_select(nx, sv, vf_div(sin_poly_v(vf_mul(sv, tx)), stx));
        wby = vf_select(ny, sv, vf_div(sin_poly_v(vf_mul(sv, ty)), sty));
    }
    wbx = vf_mul(wbx, vf_or(one, fx)), wby = vf_mul(wby, vf_or(one, fy));
    for (int i = 0; i < 4; i++) {
        q[i] = vf_add(vf_mul(wax, a[i]), vf_mul(wbx, b[i]));
        r[i] = vf_add(vf_mul(way, c[i]), vf_mul(wby, d[i]));
    }
    quat_normalize(q);
    quat_normalize(r);
}

/* slerp_group of 2·VF_W tracks, all at span k: two sets through slerp_keys2. */
MN_LANE void slerp_group2(const mn_track *tr, size_t k, vf sv, vf rest, float *rotations)
{
    vf a[4], b[4], c[4], d[4], q[4], r[4];
    load_keys(tr, 4 * k, a);
    load_keys(tr, 4 * k + 4, b);
    load_keys(tr + VF_W, 4 * k, c);
    load_keys(tr + VF_W, 4 * k + 4, d);
    slerp_keys2(a, b, c, d, sv, rest, q, r);
    store_targets(tr, q, rotations);
    store_targets(tr + VF_W, r, rotations);
}

/* slerp_keys of VF_W tracks, all at span k. */
MN_LANE void slerp_group(const mn_track *tr, size_t k, vf sv, vf rest, float *rotations)
{
    vf a[4], b[4], q[4];
    load_keys(tr, 4 * k, a);
    load_keys(tr, 4 * k + 4, b);
    slerp_keys(a, b, sv, rest, q);
    store_targets(tr, q, rotations);
}

/*
 * slerp_keys of VF_W tracks each at its own span and fraction (tracks that
 * do not share key times): key[l] is lane l's key k (key k + 1 follows it),
 * s[l] its fraction, out[l] its rotation.
 */
MN_LANE void slerp_scattered(const float *const *key, const float *s, float *const *out)
{
    const float *next[VF_W];
    for (int l = 0; l < VF_W; l++)
        next[l] = key[l] + 4;
    vf a[4], b[4], q[4];
    vf_load_t4(key, a);
    vf_load_t4(next, b);
    vf sv = vf_loadu(s);
    slerp_keys(a, b, sv, vf_sub(vf_set1(1.0f), sv), q);
    vf_store_t4(out, q);
}

/*
 * The cubic of VF_W rotation tracks at span k: key k at 12k (in-tangent,
 * value, out-tangent), key k+1 at 12k + 12; summed in the scalar's order,
 * then normalised.
 */
MN_LANE void hermite_group(const mn_track *tr, size_t k, const vf h[4], float *rotations)
{
    vf v0[4], b0[4], a1[4], v1[4], q[4];
    size_t at = 12 * k;
    load_keys(tr, at + 4, v0);
    load_keys(tr, at + 8, b0);
    load_keys(tr, at + 12, a1);
    load_keys(tr, at + 16, v1);
    for (int i = 0; i < 4; i++) {
        vf r = vf_add(vf_mul(h[0], v0[i]), vf_mul(h[1], b0[i]));
        r = vf_add(r, vf_mul(h[2], v1[i]));
        q[i] = vf_add(r, vf_mul(h[3], a1[i]));
    }
    quat_normalize(q);
    store_targets(tr, q, rotations);
}

/*
 * hermite_group for VF_W rotation tracks each at its own span (solo tracks):
 * key[l] is lane l's key k (in-tangent, value, out-tangent; key k + 1
 * follows), h[j][l] its basis term j, out[l] its rotation.
 */
MN_LANE void hermite_scattered(const float *const *key, const float *const *h, size_t at,
                               float *const *out)
{
    const float *p[VF_W];
    vf v0[4], b0[4], a1[4], v1[4], q[4];
    const size_t offset[4] = {4, 8, 12, 16};
    vf *dst[4] = {v0, b0, a1, v1};
    for (int e = 0; e < 4; e++) {
        for (int l = 0; l < VF_W; l++)
            p[l] = key[l] + offset[e];
        vf_load_t4(p, dst[e]);
    }
    const vf hv[4] = {vf_loadu(h[0] + at), vf_loadu(h[1] + at), vf_loadu(h[2] + at),
                      vf_loadu(h[3] + at)};
    for (int i = 0; i < 4; i++) {
        vf r = vf_add(vf_mul(hv[0], v0[i]), vf_mul(hv[1], b0[i]));
        r = vf_add(r, vf_mul(hv[2], v1[i]));
        q[i] = vf_add(r, vf_mul(hv[3], a1[i]));
    }
    quat_normalize(q);
    vf_store_t4(out, q);
}

MN_KERNEL uint32_t MN_ISA(mni_clip_hermite_scattered)(const float *const *keys,
                                                      const float *const *h, float *const *out,
                                                      uint32_t count)
{
    if (count < VF_W)
        return 0;
    uint32_t i = 0;
    for (; i + VF_W <= count; i += VF_W)
        hermite_scattered(keys + i, h, i, out + i);
    if (i < count) /* a tail: the last VF_W again, as MN_ISA(mni_clip_slerp) */
        hermite_scattered(keys + count - VF_W, h, count - VF_W, out + count - VF_W);
    return count;
}

MN_KERNEL uint32_t MN_ISA(mni_clip_slerp_scattered)(const float *const *keys, const float *s,
                                                    float *const *out, uint32_t count)
{
    if (count < VF_W)
        return 0;
    uint32_t i = 0;
    for (; i + VF_W <= count; i += VF_W)
        slerp_scattered(keys + i, s + i, out + i);
    if (i < count) /* a tail: the last VF_W again, as MN_ISA(mni_clip_slerp) */
        slerp_scattered(keys + count - VF_W, s + count - VF_W, out + count - VF_W);
    return count;
}

MN_KERNEL uint32_t MN_ISA(mni_clip_slerp)(const mn_track *tracks, uint32_t count, uint32_t k,
                                          float s, float *rotations)
{
    vf sv = vf_set1(s), rest = vf_set1(1.0f - s);
    uint32_t i = 0;
    /* Two sets at a time while they last (their chains overlap), then one. */
    for (; i + 2 * VF_W <= count; i += 2 * VF_W)
        slerp_group2(tracks + i, k, sv, rest, rotations);
    for (; i + VF_W <= count; i += VF_W)
        slerp_group(tracks + i, k, sv, rest, rotations);
    /* A tail shorter than VF_W: the last VF_W again, rewriting some with the bits they hold. */
    if (i < count && count >= VF_W) {
        slerp_group(tracks + count - VF_W, k, sv, rest, rotations);
        i = count;
    }
    return i;
}

MN_KERNEL uint32_t MN_ISA(mni_clip_hermite)(const mn_track *tracks, uint32_t count, uint32_t k,
                                            const float h[4], float *rotations)
{
    if (count < VF_W)
        return 0;
    const vf hv[4] = {vf_set1(h[0]), vf_set1(h[1]), vf_set1(h[2]), vf_set1(h[3])};
    uint32_t i = 0;
    for (; i + VF_W <= count; i += VF_W)
        hermite_group(tracks + i, k, hv, rotations);
    if (i < count) /* a tail: the last VF_W again, as MN_ISA(mni_clip_slerp) */
        hermite_group(tracks + count - VF_W, k, hv, rotations);
    return count;
}

#endif /* MN_ANIM_CLIP_KERNEL_H */
