/*
 * Quaternions a lane: the helpers over the lane layer (core/simd.h, the
 * convention) that the pose blends (blend_kernel.h) and the clip sampler
 * (clip_kernel.h) share.  A quaternion set is four registers x, y, z, w,
 * quaternion l in lane l.  Each does the scalar code's IEEE operations in
 * its order, so a lane gives the scalar's bits.  Include after a lane
 * header.  Not installed.
 */
#ifndef MN_ANIM_QUAT_LANES_H
#define MN_ANIM_QUAT_LANES_H

#ifndef VF_W
#error "include a lane header (core/lanes_<isa>.h) first"
#endif

#include <float.h>

/* ((a0·b0 + a1·b1) + a2·b2) + a3·b3 per lane: the scalar dot's order. */
MN_LANE vf quat_dot(const vf a[4], const vf b[4])
{
    vf d = vf_add(vf_mul(a[0], b[0]), vf_mul(a[1], b[1]));
    d = vf_add(d, vf_mul(a[2], b[2]));
    return vf_add(d, vf_mul(a[3], b[3]));
}

/*
 * q / |q| per lane, the identity where |q| is zero or not finite: the
 * scalar quat_normalize_to's arithmetic (|q|² ≤ FLT_MAX exactly when |q| is
 * finite, and 1/√(|q|²) is its 1/|q|).
 */
MN_LANE void quat_normalize(vf q[4])
{
    vf n2 = quat_dot(q, q), zero = vf_zero(), one = vf_set1(1.0f);
    vf ok = vf_and(vf_gt(n2, zero), vf_le(n2, vf_set1(FLT_MAX)));
    vf inv = vf_div(one, vf_sqrt(n2));
    q[0] = vf_and(ok, vf_mul(q[0], inv));
    q[1] = vf_and(ok, vf_mul(q[1], inv));
    q[2] = vf_and(ok, vf_mul(q[2], inv));
    q[3] = vf_select(ok, vf_mul(q[3], inv), one);
}

/* VF_W consecutive quaternions at q into x, y, z, w registers. */
MN_LANE void quats_load(const float *q, vf r[4])
{
    const float *p[VF_W];
    for (int l = 0; l < VF_W; l++)
        p[l] = q + 4 * l;
    vf_load_t4(p, r);
}

/* x, y, z, w registers back to VF_W consecutive quaternions at q. */
MN_LANE void quats_store(float *q, const vf r[4])
{
    float *p[VF_W];
    for (int l = 0; l < VF_W; l++)
        p[l] = q + 4 * l;
    vf_store_t4(p, r);
}

#endif /* MN_ANIM_QUAT_LANES_H */
