/*
 * AVX2 helpers that move data between memory and the two 128-bit halves of
 * a register, shared by the kernels of every layer (anim/quat8_avx2.h, the
 * clip sampler, the pose blends, character/splat_skin_avx2.c).  Not installed.
 *
 * Include only inside an x86-64 GCC/clang block.  The helpers carry the AVX2
 * target attribute and are always inlined, so a caller compiled for AVX2
 * (with or without FMA) gets their shuffles in place; they run only after
 * mni_cpu_level() said the CPU has AVX2.
 */
#ifndef MN_CORE_AVX2_LANES_H
#define MN_CORE_AVX2_LANES_H

#include <immintrin.h>

#define MN_AVX2_LANES static inline __attribute__((always_inline, target("avx2")))

/* Four floats at lo in the low half, four at hi in the high. */
MN_AVX2_LANES __m256 mn_load_halves(const float *lo, const float *hi)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo)), _mm_loadu_ps(hi), 1);
}

/*
 * The 4 × 4 transpose within each 128-bit half of in[0..3] into out[0..3]
 * (out may be in): pairs [q_i | q_i+4] of four-float records become one
 * register per field, and (being its own inverse) back.
 */
MN_AVX2_LANES void mn_transpose_halves4(const __m256 in[4], __m256 out[4])
{
    __m256 lo01 = _mm256_unpacklo_ps(in[0], in[1]), hi01 = _mm256_unpackhi_ps(in[0], in[1]);
    __m256 lo23 = _mm256_unpacklo_ps(in[2], in[3]), hi23 = _mm256_unpackhi_ps(in[2], in[3]);
    out[0] = _mm256_shuffle_ps(lo01, lo23, _MM_SHUFFLE(1, 0, 1, 0));
    out[1] = _mm256_shuffle_ps(lo01, lo23, _MM_SHUFFLE(3, 2, 3, 2));
    out[2] = _mm256_shuffle_ps(hi01, hi23, _MM_SHUFFLE(1, 0, 1, 0));
    out[3] = _mm256_shuffle_ps(hi01, hi23, _MM_SHUFFLE(3, 2, 3, 2));
}

#endif /* MN_CORE_AVX2_LANES_H */
