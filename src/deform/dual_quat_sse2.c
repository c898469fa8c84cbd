/*
 * Dual-quaternion skinning with SSE2 (the x86-64 baseline, so always
 * available there): dual_quat_kernel.h over core/lanes_sse2.h, four vertices
 * a group, one a lane.  SSE2 has no fused multiply-add and every step runs
 * in the reference's order, so this kernel gives dual_quat.c's bits.
 *
 * What is SSE2's own: the blend, vertex by vertex (below), and the store of
 * a 3-float output (DQ_STORE3): the
 * group's x y z rows transposed into one register a vertex, stored in lane
 * order, 16 bytes a vertex in a packed stream (the fourth float lands on the
 * next vertex's x, which that vertex's store then overwrites) and exactly 12
 * for the group's last vertex and in strided streams.
 */
#include "deform/internal.h"

#if MN_DQ_WITH_SSE2

#include "core/lanes_sse2.h"

#include <string.h>

/* Store lanes 0..2 (x y z) of v and nothing else. */
MN_LANE void store3(float *out, __m128 v)
{
    _mm_storel_pi((__m64 *)(void *)out, v);
    _mm_store_ss(out + 2, _mm_movehl_ps(v, v));
}

MN_LANE void dq_store3(float *const p[VF_W], const vf v[3], bool packed)
{
    __m128 a = v[0], b = v[1], c = v[2], d = _mm_setzero_ps();
    _MM_TRANSPOSE4_PS(a, b, c, d);
    if (packed) {
        _mm_storeu_ps(p[0], a);
        _mm_storeu_ps(p[1], b);
        _mm_storeu_ps(p[2], c);
    } else {
        store3(p[0], a);
        store3(p[1], b);
        store3(p[2], c);
    }
    store3(p[3], d);
}

/*
 * A full group of a packed 3-float stream, 12 contiguous floats (a = x0 y0
 * z0 x1, b = y1 z1 x2 y2, c = z2 x3 y3 z3), to rows x y z and back: three
 * 16-byte accesses and seven shuffles, where the lane-by-lane transpose
 * takes four accesses and eight shuffles in, and more out.
 */
MN_LANE void dq_load3_packed(const float *p, vf v[3])
{
    __m128 a = _mm_loadu_ps(p), b = _mm_loadu_ps(p + 4), c = _mm_loadu_ps(p + 8);
    __m128 bc = _mm_shuffle_ps(b, c, _MM_SHUFFLE(1, 1, 2, 2));           /* x2 x2 x3 x3 */
    v[0] = _mm_shuffle_ps(a, bc, _MM_SHUFFLE(2, 0, 3, 0));               /* x0 x1 x2 x3 */
    __m128 ab = _mm_shuffle_ps(a, b, _MM_SHUFFLE(0, 0, 1, 1));           /* y0 y0 y1 y1 */
    __m128 bc2 = _mm_shuffle_ps(b, c, _MM_SHUFFLE(2, 2, 3, 3));          /* y2 y2 y3 y3 */
    v[1] = _mm_shuffle_ps(ab, bc2, _MM_SHUFFLE(2, 0, 2, 0));             /* y0 y1 y2 y3 */
    __m128 ab2 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 1, 2, 2));          /* z0 z0 z1 z1 */
    v[2] = _mm_shuffle_ps(ab2, c, _MM_SHUFFLE(3, 0, 2, 0));              /* z0 z1 z2 z3 */
}

MN_LANE void dq_store3_packed(float *p, const vf v[3])
{
    __m128 x = v[0], y = v[1], z = v[2];
    __m128 xy0 = _mm_shuffle_ps(x, y, _MM_SHUFFLE(0, 0, 0, 0));  /* x0 x0 y0 y0 */
    __m128 zx = _mm_shuffle_ps(z, x, _MM_SHUFFLE(1, 1, 0, 0));   /* z0 z0 x1 x1 */
    __m128 yz = _mm_shuffle_ps(y, z, _MM_SHUFFLE(1, 1, 1, 1));   /* y1 y1 z1 z1 */
    __m128 xy2 = _mm_shuffle_ps(x, y, _MM_SHUFFLE(2, 2, 2, 2));  /* x2 x2 y2 y2 */
    __m128 zx3 = _mm_shuffle_ps(z, x, _MM_SHUFFLE(3, 3, 2, 2));  /* z2 z2 x3 x3 */
    __m128 yz3 = _mm_shuffle_ps(y, z, _MM_SHUFFLE(3, 3, 3, 3));  /* y3 y3 z3 z3 */
    _mm_storeu_ps(p, _mm_shuffle_ps(xy0, zx, _MM_SHUFFLE(2, 0, 2, 0)));     /* x0 y0 z0 x1 */
    _mm_storeu_ps(p + 4, _mm_shuffle_ps(yz, xy2, _MM_SHUFFLE(2, 0, 2, 0))); /* y1 z1 x2 y2 */
    _mm_storeu_ps(p + 8, _mm_shuffle_ps(zx3, yz3, _MM_SHUFFLE(2, 0, 2, 0))); /* z2 x3 y3 z3 */
}

#define DQ_PACKED3 1
#define DQ_LOAD3_PACKED dq_load3_packed
#define DQ_STORE3_PACKED dq_store3_packed
#define DQ_LOAD4 vf_load_t4
#define DQ_STORE4 vf_store_t4
#define DQ_STORE3 dq_store3
#define DQ_BLEND_ISA dq_blend_sse2
#include "deform/dual_quat_kernel.h"

/*
 * The blend, vertex by vertex: a joint's real part, dual part and scale are
 * three 16-byte loads at one offset, and an influence costs one broadcast
 * weight and a multiply and an add per part, in the reference's order (so
 * its bits); the four blends then transpose into one register a field.
 * Gathering lane by lane instead costs a 4 × 4 transpose per part and
 * influence.
 */

/* The reference's hemisphere dots of q0 with four real parts: (x·x' + y·y') + (z·z' + w·w'). */
MN_LANE __m128 dots4(__m128 q0, __m128 x0, __m128 x1, __m128 x2, __m128 x3)
{
    __m128 m0 = _mm_mul_ps(q0, x0), m1 = _mm_mul_ps(q0, x1);
    __m128 m2 = _mm_mul_ps(q0, x2), m3 = _mm_mul_ps(q0, x3);
    _MM_TRANSPOSE4_PS(m0, m1, m2, m3); /* m0: the x·x' of the four, m1 y·y', ... */
    return _mm_add_ps(_mm_add_ps(m0, m1), _mm_add_ps(m2, m3));
}

/* Lane k of v in every lane. */
#define LANE_OF(v, k) _mm_shuffle_ps((v), (v), (k) * 0x55)

/* One vertex's blend: real part r, dual part d, scale in lane 0 of sc (when blend_scale). */
MN_LANE void blend_vertex(const float *dqs, const uint16_t *j, const float *w, size_t ic,
                          bool blend_scale, bool flips, __m128 *r, __m128 *d, __m128 *sc)
{
    const __m128 sign = _mm_set1_ps(-0.0f);
    const float *q0p = dqs + MN_SKIN_DQ_FLOATS * (size_t)j[0];
    __m128 q0 = _mm_loadu_ps(q0p);
    for (size_t m = 0; m < ic; m += 4) {
        const float *a[4] = {dqs + MN_SKIN_DQ_FLOATS * (size_t)j[m], dqs + MN_SKIN_DQ_FLOATS * (size_t)j[m + 1],
                             dqs + MN_SKIN_DQ_FLOATS * (size_t)j[m + 2], dqs + MN_SKIN_DQ_FLOATS * (size_t)j[m + 3]};
        __m128 wm = _mm_loadu_ps(w + m), sw = wm;
        __m128 x[4] = {_mm_loadu_ps(a[0]), _mm_loadu_ps(a[1]), _mm_loadu_ps(a[2]),
                       _mm_loadu_ps(a[3])};
        if (flips) {
            /* −w where the dot's sign bit is set; the first influence is never flipped */
            __m128 neg = _mm_and_ps(dots4(q0, x[0], x[1], x[2], x[3]), sign);
            if (m == 0)
                neg = _mm_move_ss(neg, _mm_setzero_ps());
            sw = _mm_xor_ps(wm, neg);
        }
        /* the lanes spelt out: a shuffle's selector must be a constant */
        __m128 ws[4] = {LANE_OF(sw, 0), LANE_OF(sw, 1), LANE_OF(sw, 2), LANE_OF(sw, 3)};
        __m128 wu[4] = {LANE_OF(wm, 0), LANE_OF(wm, 1), LANE_OF(wm, 2), LANE_OF(wm, 3)};
        DQ_UNROLL
        for (int i = 0; i < 4; i++) {
            __m128 wk = ws[i], xd = _mm_loadu_ps(a[i] + 4);
            if (m == 0 && i == 0) {
                *r = _mm_mul_ps(wk, x[i]);
                *d = _mm_mul_ps(wk, xd);
            } else {
                *r = _mm_add_ps(*r, _mm_mul_ps(wk, x[i]));
                *d = _mm_add_ps(*d, _mm_mul_ps(wk, xd));
            }
            if (blend_scale) {
                /* floats 8..11: the scale and three zeros, by the unflipped weight */
                __m128 s = _mm_mul_ps(wu[i], _mm_loadu_ps(a[i] + 8));
                *sc = m == 0 && i == 0 ? s : _mm_add_ps(*sc, s);
            }
        }
    }
}

MN_LANE dq_blend dq_blend_sse2(const float *dqs, const dq_view *g, size_t ic, bool blend_scale,
                               bool flips)
{
    dq_blend b;
    __m128 r[VF_W], d[VF_W], s[2] = {_mm_setzero_ps(), _mm_setzero_ps()};
    /* two vertices at a time, their scales paired at once: fewer registers held */
    DQ_UNROLL
    for (int l = 0; l < VF_W; l += 2) {
        size_t x = dq_lane(g, l) * ic, y = dq_lane(g, l + 1) * ic;
        __m128 sa = _mm_setzero_ps(), sb = _mm_setzero_ps();
        blend_vertex(dqs, g->j + x, g->w + x, ic, blend_scale, flips, &r[l], &d[l], &sa);
        blend_vertex(dqs, g->j + y, g->w + y, ic, blend_scale, flips, &r[l + 1], &d[l + 1], &sb);
        s[l / 2] = _mm_unpacklo_ps(sa, sb);
    }
    _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]);
    _MM_TRANSPOSE4_PS(d[0], d[1], d[2], d[3]);
    DQ_UNROLL
    for (int c = 0; c < 4; c++)
        b.r[c] = r[c], b.d[c] = d[c];
    b.sc = _mm_movelh_ps(s[0], s[1]);
    return b;
}

#undef LANE_OF

#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_dual_quat_sse2_unused;
#endif
