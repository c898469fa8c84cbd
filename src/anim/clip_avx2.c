/*
 * The clip sampler's rotation runs with AVX2, eight tracks at a time:
 * clip_kernel.h at eight lanes (core/simd.h, the convention), chosen at run
 * time by clip.c's dispatch at MN_SIMD_AVX2_FMA.  No fused multiply-add:
 * every lane is bit for bit the scalar code.
 */
#include "anim/clip_internal.h"

#if MN_WITH_AVX2
#include "core/lanes_avx2.h"
#include "anim/clip_kernel.h"

/* x, y, z of r to out (12 bytes, nothing after), as clip_sse2.c's store3. */
MN_LANE void store3_128(float *out, __m128 r)
{
    _mm_storel_pi((__m64 *)(void *)out, r);
    _mm_store_ss(out + 2, _mm_movehl_ps(r, r));
}

/*
 * mni_clip_lerp3_sse2 two tracks to a register: each half is that kernel's
 * one-track register (lanes 0-2 the scalar's subtract, multiply and add,
 * lane 3 the next float, never stored), so the bits are the same; an odd
 * last track takes the four-float half alone.
 */
MN_KERNEL void mni_clip_lerp3_avx2(const mn_track *tracks, uint32_t count, uint32_t k, float s,
                                   float *base)
{
    const __m256 sv = _mm256_set1_ps(s);
    const size_t at = 3 * (size_t)k;
    const mn_track *tr = tracks, *pairs_end = tracks + (count & ~1u);
    for (; tr != pairs_end; tr += 2) {
        const float *v0 = tr[0].values + at, *v1 = tr[1].values + at;
        __m256 a = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(v0)), _mm_loadu_ps(v1), 1);
        __m256 b = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(v0 + 3)),
                                        _mm_loadu_ps(v1 + 3), 1);
        __m256 r = _mm256_add_ps(a, _mm256_mul_ps(sv, _mm256_sub_ps(b, a)));
        store3_128(base + 3 * (size_t)tr[0].target, _mm256_castps256_ps128(r));
        store3_128(base + 3 * (size_t)tr[1].target, _mm256_extractf128_ps(r, 1));
    }
    if (count & 1u) {
        const float *v0 = tr->values + at;
        __m128 a = _mm_loadu_ps(v0), b = _mm_loadu_ps(v0 + 3);
        store3_128(base + 3 * (size_t)tr->target,
                   _mm_add_ps(a, _mm_mul_ps(_mm256_castps256_ps128(sv), _mm_sub_ps(b, a))));
    }
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_clip_avx2_unused;
#endif
