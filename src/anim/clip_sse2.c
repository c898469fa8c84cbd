/*
 * The clip sampler with SSE2 (core/simd.h, the convention), the x86-64
 * baseline: its rotation runs four tracks at a time (clip_kernel.h at four
 * lanes), and its translation and scale runs one track to a register
 * (3-float keys, which no wider register divides).  clip.c's dispatch runs
 * these at MN_SIMD_SSE2, and at MN_SIMD_AVX2_FMA on what the AVX2 kernels
 * leave.  Only exact IEEE operations in the scalar code's order: each lane
 * is bit for bit the scalar code.
 */
#include "anim/clip_internal.h"

#if MN_WITH_SSE2
#include "core/lanes_sse2.h"
#include "anim/clip_kernel.h"
#include "anim/clip_place.h"

/* x, y, z of r to out (12 bytes, nothing after). */
MN_LANE void store3(float *out, __m128 r)
{
    _mm_storel_pi((__m64 *)(void *)out, r);
    _mm_store_ss(out + 2, _mm_movehl_ps(r, r));
}

/*
 * lerp_to of one 3-float key pair at v0 (v1 = v0 + 3) in one register:
 * lanes 0-2 do the scalar's subtract, multiply and add, lane 3 (the next
 * float, in the clip's block: see CLIP_TAIL_PAD) is never stored.
 */
MN_LANE void lerp3(float *out, const float *v0, __m128 s)
{
    __m128 a = _mm_loadu_ps(v0), b = _mm_loadu_ps(v0 + 3);
    store3(out, _mm_add_ps(a, _mm_mul_ps(s, _mm_sub_ps(b, a))));
}

/*
 * The cubic of one 3-float track at span k (key k at key0: in-tangent,
 * value, out-tangent; then key k+1) in one register, lanes 0-2 the scalar's
 * products and sums in its order.  Every four-float load starts inside the
 * two keys and the last ends at key k+1's out-tangent: nothing outside them.
 */
MN_LANE void hermite3(float *out, const float *key0, const __m128 h[4])
{
    __m128 v0 = _mm_loadu_ps(key0 + 3), b0 = _mm_loadu_ps(key0 + 6);
    __m128 a1 = _mm_loadu_ps(key0 + 9), v1 = _mm_loadu_ps(key0 + 12);
    __m128 r = _mm_add_ps(_mm_mul_ps(h[0], v0), _mm_mul_ps(h[1], b0));
    r = _mm_add_ps(r, _mm_mul_ps(h[2], v1));
    r = _mm_add_ps(r, _mm_mul_ps(h[3], a1));
    store3(out, r);
}

MN_KERNEL void mni_clip_lerp3_sse2(const mn_track *tracks, uint32_t count, uint32_t k, float s,
                                   float *base)
{
    __m128 sv = _mm_set1_ps(s);
    for (uint32_t i = 0; i < count; i++)
        lerp3(base + 3 * (size_t)tracks[i].target, tracks[i].values + 3 * (size_t)k, sv);
}

MN_KERNEL void mni_clip_hermite3_sse2(const mn_track *tracks, uint32_t count, uint32_t k,
                                      const float h[4], float *base)
{
    const __m128 hv[4] = {_mm_set1_ps(h[0]), _mm_set1_ps(h[1]), _mm_set1_ps(h[2]),
                          _mm_set1_ps(h[3])};
    for (uint32_t i = 0; i < count; i++)
        hermite3(base + 3 * (size_t)tracks[i].target, tracks[i].values + 9 * (size_t)k, hv);
}

/* x, y, z at v to out: a key itself (no span), as the reference's emit copies it. */
MN_LANE void copy3(float *out, const float *v)
{
    out[0] = v[0];
    out[1] = v[1];
    out[2] = v[2];
}

/*
 * The solo loop's translation or scale tracks of one kind (clip.c): each
 * located by solo_place, the reference's rule and arithmetic, then lerped
 * (LINEAR) or its Hermite cubic summed (CUBICSPLINE) in one register as the
 * runs' kernels do, into base.  Tracks targeting joint_count or beyond are
 * left out, as the pose has no room for them.
 */
MN_KERNEL void mni_clip_solo_lerp3_sse2(const mn_clip_solo *so, uint32_t count, float t,
                                        uint32_t *spans, uint32_t joint_count, float *base)
{
    for (uint32_t i = 0; i < count; i++) {
        if (so[i].target >= joint_count)
            continue;
        place p = solo_place(&so[i], t, spans);
        float *out = base + 3 * (size_t)so[i].target;
        const float *v0 = so[i].values + 3 * (size_t)p.k;
        if (p.span)
            lerp3(out, v0, _mm_set1_ps(p.s));
        else
            copy3(out, v0);
    }
}

MN_KERNEL void mni_clip_solo_hermite3_sse2(const mn_clip_solo *so, uint32_t count, float t,
                                           uint32_t *spans, uint32_t joint_count, float *base)
{
    for (uint32_t i = 0; i < count; i++) {
        if (so[i].target >= joint_count)
            continue;
        place p = solo_place(&so[i], t, spans);
        float *out = base + 3 * (size_t)so[i].target;
        const float *key0 = so[i].values + 9 * (size_t)p.k;
        if (!p.span) {
            copy3(out, key0 + 3);
            continue;
        }
        hermite h = hermite_at(p.s, p.dt);
        const __m128 hv[4] = {_mm_set1_ps(h.h00), _mm_set1_ps(h.h10), _mm_set1_ps(h.h01),
                              _mm_set1_ps(h.h11)};
        hermite3(out, key0, hv);
    }
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_clip_sse2_unused;
#endif
