/*
 * AVX2 kernels of the clip sampler's rotation runs, eight tracks at a time,
 * chosen at run time (mni_cpu_level) by clip.c: LINEAR (clip.c's slerp4 at
 * twice the width) and CUBICSPLINE (the Hermite cubic, then normalised).
 *
 * Only these functions are compiled for AVX2, through the target attribute,
 * so the rest of the library stays baseline x86-64.  No fused multiply-add:
 * every lane does the scalar code's IEEE operations in its order (the
 * polynomials of clip_slerp.h, the same selects as slerp4, the Hermite sum
 * left to right), so a track sampled here gives the bits mn_track_sample
 * gives (tests/test_clip.c holds every track of a clip to that).
 */
#include "anim/clip_internal.h"

#ifdef MN_CLIP_AVX2
#include "anim/clip_slerp.h"
#include "anim/quat8_avx2.h"

/* sin_poly on eight lanes. */
AVX2 static inline __m256 sin_poly8(__m256 x)
{
    __m256 u = _mm256_mul_ps(x, x), p = _mm256_set1_ps(mn_sin_poly[0]);
    for (int i = 1; i < MN_SIN_POLY_TERMS; i++)
        p = _mm256_add_ps(_mm256_set1_ps(mn_sin_poly[i]), _mm256_mul_ps(u, p));
    return _mm256_mul_ps(x, p);
}

/* acos_poly on eight lanes. */
AVX2 static inline __m256 acos_poly8(__m256 d)
{
    __m256 q = _mm256_set1_ps(mn_acos_poly[0]);
    for (int i = 1; i < MN_ACOS_POLY_TERMS; i++)
        q = _mm256_add_ps(_mm256_mul_ps(q, d), _mm256_set1_ps(mn_acos_poly[i]));
    return _mm256_mul_ps(_mm256_sqrt_ps(_mm256_sub_ps(_mm256_set1_ps(1.0f), d)), q);
}

/* The four floats at `at` in eight tracks' values (a key, or one element of a cubic key) as
   x, y, z, w registers: tracks 0-3 in the low halves, 4-7 in the high. */
AVX2 static inline void load_keys8(const mn_track *tr, size_t at, __m256 r[4])
{
    __m256 t[4];
    for (int i = 0; i < 4; i++)
        t[i] = mn_load_halves(tr[i].values + at, tr[i + 4].values + at);
    mn_transpose_halves4(t, r);
}

/* Eight rotations (x, y, z, w registers) stored at their tracks' targets. */
AVX2 static inline void store_targets8(const mn_track *tr, const __m256 q[4], float *rotations)
{
    __m256 t[4];
    mn_transpose_halves4(q, t);
    for (int i = 0; i < 4; i++) {
        _mm_storeu_ps(rotations + 4 * (size_t)tr[i].target, _mm256_castps256_ps128(t[i]));
        _mm_storeu_ps(rotations + 4 * (size_t)tr[i + 4].target, _mm256_extractf128_ps(t[i], 1));
    }
}

/*
 * slerp4 for eight tracks at span k: both weight pairs computed, the
 * near-parallel test picking one per lane (the discarded lanes may hold NaN
 * from acos of a dot above 1 or a zero sin θ, and are never used); when
 * every lane is near-parallel the polynomials are skipped.
 */
AVX2 static inline void slerp8(const mn_track *tr, size_t k, __m256 sv, __m256 rest, float *rotations)
{
    __m256 a[4], b[4];
    load_keys8(tr, 4 * k, a);
    load_keys8(tr, 4 * k + 4, b);
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), sign_bit = _mm256_set1_ps(-0.0f);
    __m256 d = dot8(a, b);
    __m256 flip = _mm256_and_ps(_mm256_cmp_ps(d, zero, _CMP_LT_OQ), sign_bit); /* short arc */
    d = _mm256_xor_ps(d, flip);
    __m256 near = _mm256_cmp_ps(d, _mm256_set1_ps(MN_CLIP_NEARLY_PARALLEL), _CMP_GT_OQ);
    __m256 wa = rest, wb = sv;
    if (_mm256_movemask_ps(near) != 0xFF) { /* keys a frame apart: all near, no polynomials */
        __m256 theta = acos_poly8(d);
        __m256 sin_theta = sin_poly8(theta);
        wa = select8(near, rest, _mm256_div_ps(sin_poly8(_mm256_mul_ps(rest, theta)), sin_theta));
        wb = select8(near, sv, _mm256_div_ps(sin_poly8(_mm256_mul_ps(sv, theta)), sin_theta));
    }
    wb = _mm256_mul_ps(wb, _mm256_or_ps(one, flip));
    __m256 q[4];
    for (int i = 0; i < 4; i++)
        q[i] = _mm256_add_ps(_mm256_mul_ps(wa, a[i]), _mm256_mul_ps(wb, b[i]));
    normalize8(q);
    store_targets8(tr, q, rotations);
}

/*
 * The cubic of eight rotation tracks at span k: key k at 12k (in-tangent,
 * value, out-tangent), key k+1 at 12k + 12; summed in the scalar's order,
 * then normalised.
 */
AVX2 static inline void hermite8(const mn_track *tr, size_t k, const __m256 h[4], float *rotations)
{
    __m256 v0[4], b0[4], a1[4], v1[4], q[4];
    size_t at = 12 * k;
    load_keys8(tr, at + 4, v0);
    load_keys8(tr, at + 8, b0);
    load_keys8(tr, at + 12, a1);
    load_keys8(tr, at + 16, v1);
    for (int i = 0; i < 4; i++) {
        __m256 r = _mm256_add_ps(_mm256_mul_ps(h[0], v0[i]), _mm256_mul_ps(h[1], b0[i]));
        r = _mm256_add_ps(r, _mm256_mul_ps(h[2], v1[i]));
        q[i] = _mm256_add_ps(r, _mm256_mul_ps(h[3], a1[i]));
    }
    normalize8(q);
    store_targets8(tr, q, rotations);
}

AVX2 uint32_t mni_clip_hermite_avx2(const mn_track *tracks, uint32_t count, uint32_t k, const float h[4],
                                   float *rotations)
{
    if (count < 8)
        return 0;
    const __m256 hv[4] = {_mm256_set1_ps(h[0]), _mm256_set1_ps(h[1]), _mm256_set1_ps(h[2]),
                          _mm256_set1_ps(h[3])};
    uint32_t i = 0;
    for (; i + 8 <= count; i += 8)
        hermite8(tracks + i, k, hv, rotations);
    if (i < count) /* a tail: the last eight again, as mni_clip_slerp_avx2 */
        hermite8(tracks + count - 8, k, hv, rotations);
    return count;
}

AVX2 uint32_t mni_clip_slerp_avx2(const mn_track *tracks, uint32_t count, uint32_t k, float s,
                                 float *rotations)
{
    __m256 sv = _mm256_set1_ps(s), rest = _mm256_set1_ps(1.0f - s);
    uint32_t i = 0;
    for (; i + 8 <= count; i += 8)
        slerp8(tracks + i, k, sv, rest, rotations);
    /* A tail of one to seven: the last eight again, rewriting some with the bits they already hold. */
    if (i < count && count >= 8) {
        slerp8(tracks + count - 8, k, sv, rest, rotations);
        i = count;
    }
    return i;
}
#else
/* Not x86-64 with GCC or clang, or MN_NO_SIMD: clip.c's SSE2 kernel or the reference alone. */
typedef int mn_clip_avx2_unused;
#endif
