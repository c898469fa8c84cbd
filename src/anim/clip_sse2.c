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

#include <stddef.h>

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

/* Four tracks found at once (solo_quad): each one's key k, where it goes, s and Δt by lane. */
typedef struct solo_quad_place {
    const float *key[4];
    float *out[4];
    __m128 s, dt;
} solo_quad_place;

/* Lane j of v in every lane. */
#define LANE(v, j) _mm_shuffle_ps((v), (v), (j) * 0x55)

/* A solo record's first, last, rate and guess_max (consecutive floats) in one register. */
_Static_assert(offsetof(mn_clip_solo, last) == offsetof(mn_clip_solo, first) + 4 &&
                   offsetof(mn_clip_solo, rate) == offsetof(mn_clip_solo, first) + 8 &&
                   offsetof(mn_clip_solo, guess_max) == offsetof(mn_clip_solo, first) + 12,
               "solo_floats loads first .. guess_max at once");
MN_LANE __m128 solo_floats(const mn_clip_solo *so)
{
    return _mm_loadu_ps((const float *)(const void *)((const char *)so +
                                                      offsetof(mn_clip_solo, first)));
}

/* at[0] and at[1] in lanes 0 and 1 (8 bytes; the upper lanes zero).  Key times are only
   4-byte aligned: _mm_loadl_epi64 is the unaligned 8-byte load (movq), where _mm_load_sd
   promises a double's alignment. */
MN_LANE __m128 times2(const float *at)
{
    return _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)at));
}

/*
 * solo_place for so[0 .. 3] at once in its common case, every track in the
 * pose (target < joints) and t inside the span its guess names (evenly
 * spaced keys), key k at stride floats a key and out at comps floats a
 * target: the guess's operations (max and min are its two clamps,
 * NaN included), the bracket test and with_fraction's subtractions and
 * divide, lane by lane, so the same span and bits as each alone; the
 * cursor is not needed there, as solo_place's guess does not touch it.
 * Returns false, nothing found, when any lane is not that case.
 */
MN_LANE bool solo_quad(const mn_clip_solo *so, float t, uint32_t joints, uint32_t stride,
                       uint32_t comps, float *base, solo_quad_place *q)
{
    if (so[0].target >= joints || so[1].target >= joints || so[2].target >= joints ||
        so[3].target >= joints)
        return false;
    __m128 tv = _mm_set1_ps(t);
    /* first, last, rate, guess_max of each track in one load, transposed to one per lane */
    __m128 first = solo_floats(&so[0]), last = solo_floats(&so[1]);
    __m128 rate = solo_floats(&so[2]), gmax = solo_floats(&so[3]);
    _MM_TRANSPOSE4_PS(first, last, rate, gmax);
    (void)last;
    __m128 f = _mm_mul_ps(_mm_sub_ps(tv, first), rate);
    f = _mm_min_ps(_mm_max_ps(f, _mm_setzero_ps()), gmax);
    __m128i g = _mm_cvttps_epi32(f);
    const uint32_t k[4] = {(uint32_t)_mm_cvtsi128_si32(g),
                           (uint32_t)_mm_cvtsi128_si32(_mm_shuffle_epi32(g, 0x55)),
                           (uint32_t)_mm_cvtsi128_si32(_mm_shuffle_epi32(g, 0xAA)),
                           (uint32_t)_mm_cvtsi128_si32(_mm_shuffle_epi32(g, 0xFF))};
    /* times[k] and times[k + 1] of each track in one 8-byte load: lo and hi by lane */
    __m128 a = _mm_unpacklo_ps(times2(so[0].times + k[0]), times2(so[1].times + k[1]));
    __m128 b = _mm_unpacklo_ps(times2(so[2].times + k[2]), times2(so[3].times + k[3]));
    __m128 lo = _mm_movelh_ps(a, b), hi = _mm_movehl_ps(b, a);
    if (_mm_movemask_ps(_mm_and_ps(_mm_cmple_ps(lo, tv), _mm_cmplt_ps(tv, hi))) != 15)
        return false;
    q->dt = _mm_sub_ps(hi, lo);
    q->s = _mm_div_ps(_mm_sub_ps(tv, lo), q->dt);
    for (uint32_t j = 0; j < 4; j++) {
        q->key[j] = so[j].values + stride * (size_t)k[j];
        q->out[j] = base + comps * (size_t)so[j].target;
    }
    return true;
}

/* The solo tracks so[0 .. count) one at a time: solo_place, then the lerp in one register. */
MN_LANE void solo_lerp3_each(const mn_clip_solo *so, uint32_t count, float t, uint32_t *spans,
                             uint32_t joint_count, float *base)
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

/* The same for cubic tracks: hermite_at's basis, then the sum in one register. */
MN_LANE void solo_hermite3_each(const mn_clip_solo *so, uint32_t count, float t, uint32_t *spans,
                                uint32_t joint_count, float *base)
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

/*
 * The solo loop's translation or scale tracks of one kind (clip.c): four at
 * a time by solo_quad where it applies, else each by solo_place (the
 * reference's rule and arithmetic), then lerped (LINEAR) or its Hermite
 * cubic summed (CUBICSPLINE) in one register as the runs' kernels do, into
 * base.  Tracks targeting joint_count or beyond are left out, as the pose
 * has no room for them.
 */
MN_KERNEL void mni_clip_solo_lerp3_sse2(const mn_clip_solo *so, uint32_t count, float t,
                                        uint32_t *spans, uint32_t joint_count, float *base)
{
    uint32_t i = 0;
    for (; i + 4 <= count; i += 4) {
        solo_quad_place q;
        if (!solo_quad(so + i, t, joint_count, 3, 3, base, &q)) {
            solo_lerp3_each(so + i, 4, t, spans, joint_count, base);
            continue;
        }
        lerp3(q.out[0], q.key[0], LANE(q.s, 0));
        lerp3(q.out[1], q.key[1], LANE(q.s, 1));
        lerp3(q.out[2], q.key[2], LANE(q.s, 2));
        lerp3(q.out[3], q.key[3], LANE(q.s, 3));
    }
    solo_lerp3_each(so + i, count - i, t, spans, joint_count, base);
}

/*
 * The solo loop's linear rotations (clip.c) into its scattered batch, four
 * at a time by solo_quad: keys[i], s[i] and out[i] for each track taken
 * (key k, its fraction, where its rotation goes), as the scalar loop would
 * gather them.  Stops at the first quad that is not solo_quad's case, with
 * fewer than four tracks left, or with room for fewer than four; returns how
 * many it took (a multiple of four), the caller doing the rest.
 */
MN_KERNEL uint32_t mni_clip_solo_gather_sse2(const mn_clip_solo *so, uint32_t count, float t,
                                             uint32_t joint_count, float *rotations,
                                             const float **keys, float *s, float **out,
                                             uint32_t room)
{
    uint32_t i = 0;
    for (; i + 4 <= count && i + 4 <= room; i += 4) {
        solo_quad_place q;
        if (!solo_quad(so + i, t, joint_count, 4, 4, rotations, &q))
            break;
        _mm_storeu_ps(s + i, q.s);
        for (uint32_t j = 0; j < 4; j++) {
            keys[i + j] = q.key[j];
            out[i + j] = q.out[j];
        }
    }
    return i;
}

/*
 * The same for the solo loop's cubic rotations (clip.c's other batch): key
 * k, hermite_at's four basis terms (h[c][i], computed four lanes at once in
 * its order) and where each rotation goes.
 */
MN_KERNEL uint32_t mni_clip_solo_hgather_sse2(const mn_clip_solo *so, uint32_t count, float t,
                                              uint32_t joint_count, float *rotations,
                                              const float **keys, float *const h[4], float **out,
                                              uint32_t room)
{
    const __m128 one = _mm_set1_ps(1.0f), two = _mm_set1_ps(2.0f), three = _mm_set1_ps(3.0f);
    const __m128 minus_two = _mm_set1_ps(-2.0f);
    uint32_t i = 0;
    for (; i + 4 <= count && i + 4 <= room; i += 4) {
        solo_quad_place q;
        if (!solo_quad(so + i, t, joint_count, 12, 4, rotations, &q))
            break;
        __m128 s = q.s, s2 = _mm_mul_ps(s, s), s3 = _mm_mul_ps(s2, s);
        _mm_storeu_ps(h[0] + i,
                      _mm_add_ps(_mm_sub_ps(_mm_mul_ps(two, s3), _mm_mul_ps(three, s2)), one));
        _mm_storeu_ps(h[1] + i,
                      _mm_mul_ps(_mm_add_ps(_mm_sub_ps(s3, _mm_mul_ps(two, s2)), s), q.dt));
        _mm_storeu_ps(h[2] + i, _mm_add_ps(_mm_mul_ps(minus_two, s3), _mm_mul_ps(three, s2)));
        _mm_storeu_ps(h[3] + i, _mm_mul_ps(_mm_sub_ps(s3, s2), q.dt));
        for (uint32_t j = 0; j < 4; j++) {
            keys[i + j] = q.key[j];
            out[i + j] = q.out[j];
        }
    }
    return i;
}

/* One lane of a quad's cubic: basis terms lane j of h00 .. h11. */
#define HERMITE_LANE(q, j, h00, h10, h01, h11)                                                  \
    do {                                                                                       \
        const __m128 hv_[4] = {LANE(h00, j), LANE(h10, j), LANE(h01, j), LANE(h11, j)};        \
        hermite3((q).out[j], (q).key[j], hv_);                                                 \
    } while (0)

MN_KERNEL void mni_clip_solo_hermite3_sse2(const mn_clip_solo *so, uint32_t count, float t,
                                           uint32_t *spans, uint32_t joint_count, float *base)
{
    const __m128 one = _mm_set1_ps(1.0f), two = _mm_set1_ps(2.0f), three = _mm_set1_ps(3.0f);
    const __m128 minus_two = _mm_set1_ps(-2.0f);
    uint32_t i = 0;
    for (; i + 4 <= count; i += 4) {
        solo_quad_place q;
        if (!solo_quad(so + i, t, joint_count, 9, 3, base, &q)) {
            solo_hermite3_each(so + i, 4, t, spans, joint_count, base);
            continue;
        }
        /* hermite_at, lane by lane in its order */
        __m128 s = q.s, s2 = _mm_mul_ps(s, s), s3 = _mm_mul_ps(s2, s);
        __m128 h00 = _mm_add_ps(_mm_sub_ps(_mm_mul_ps(two, s3), _mm_mul_ps(three, s2)), one);
        __m128 h10 = _mm_mul_ps(_mm_add_ps(_mm_sub_ps(s3, _mm_mul_ps(two, s2)), s), q.dt);
        __m128 h01 = _mm_add_ps(_mm_mul_ps(minus_two, s3), _mm_mul_ps(three, s2));
        __m128 h11 = _mm_mul_ps(_mm_sub_ps(s3, s2), q.dt);
        HERMITE_LANE(q, 0, h00, h10, h01, h11);
        HERMITE_LANE(q, 1, h00, h10, h01, h11);
        HERMITE_LANE(q, 2, h00, h10, h01, h11);
        HERMITE_LANE(q, 3, h00, h10, h01, h11);
    }
    solo_hermite3_each(so + i, count - i, t, spans, joint_count, base);
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_clip_sse2_unused;
#endif
