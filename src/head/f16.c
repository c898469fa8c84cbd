/*
 * IEEE half precision: exact decoding (scalar, and F16C where the CPU has
 * it) and round-to-nearest-even encoding, as docs/formats.md ("f16") fixes them.
 *
 * The scalar decoder is the reference: F16C's vcvtph2ps gives the same
 * bits for every half (normals, subnormals, zeros, infinities; a signalling
 * NaN comes back quiet in both).
 */
#include "head/aosrig_internal.h"

#include <string.h>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && !defined(MN_NO_SIMD)
#define MN_HAVE_F16C_KERNEL 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static float float_from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint32_t bits_from_float(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

MN_API float mn_f16_to_float(uint16_t half)
{
    uint32_t sign = (uint32_t)(half & 0x8000u) << 16;
    uint32_t exponent = (half >> 10) & 0x1fu;
    uint32_t mantissa = half & 0x3ffu;
    if (exponent == 0) {
        /* zero or subnormal: mantissa × 2^-24, exact in a float */
        float magnitude = (float)mantissa * 0x1p-24f;
        return float_from_bits(bits_from_float(magnitude) | sign);
    }
    if (exponent == 31) {
        uint32_t nan_quiet = mantissa ? 0x400000u : 0u;
        return float_from_bits(sign | 0x7f800000u | mantissa << 13 | nan_quiet);
    }
    return float_from_bits(sign | (exponent + 112u) << 23 | mantissa << 13);
}

#ifdef MN_HAVE_F16C_KERNEL
__attribute__((target("avx,f16c"))) static void decode_f16c(const uint16_t *src, float *dst,
                                                            size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
    }
    for (; i < n; i++)
        dst[i] = mn_f16_to_float(src[i]);
}
#endif

#ifdef MN_HAVE_F16C_KERNEL
/*
 * F16C is VEX-encoded, so it needs the OS to save the AVX state: the
 * compiler's "avx" check covers that.  clang 14 has no "f16c" name for
 * __builtin_cpu_supports, so that bit comes from cpuid (leaf 1, ECX bit 29).
 */
static bool cpu_has_f16c(void)
{
    unsigned eax, ebx, ecx, edx;
    if (!__builtin_cpu_supports("avx") || !__get_cpuid(1, &eax, &ebx, &ecx, &edx))
        return false;
    return (ecx & bit_F16C) != 0;
}
#endif

MN_API void mn_f16_decode(const uint16_t *src, float *dst, size_t n)
{
#ifdef MN_HAVE_F16C_KERNEL
    if (cpu_has_f16c()) {
        decode_f16c(src, dst, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        dst[i] = mn_f16_to_float(src[i]);
}

/* Shift m right by `shift` (1..31) rounding to nearest, ties to even. */
static uint32_t shift_round_even(uint32_t m, uint32_t shift)
{
    uint32_t q = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (q & 1u)))
        q++;
    return q;
}

MN_API mn_status mn_f16_from_float(float value, uint16_t *out, mn_error *err)
{
    uint32_t bits = bits_from_float(value);
    uint32_t sign = (bits >> 16) & 0x8000u;
    uint32_t magnitude = bits & 0x7fffffffu;
    *out = 0;
    /* 65520 is halfway between 65504 (the largest half) and 65536: ties go to the even
       neighbour, which is infinity.  NaN and infinities land here too. */
    if (magnitude >= 0x477ff000u)
        return mni_fail(err, MN_NOT_FINITE,
                        "%g is not finite as a half (the largest half is 65504)", (double)value);
    uint32_t exponent = magnitude >> 23;
    uint32_t mantissa = magnitude & 0x7fffffu;
    if (exponent < 113) {
        /* below 2^-14: a subnormal half, |value| / 2^-24 rounded; 0 below 2^-25 */
        if (exponent < 101) {
            *out = (uint16_t)sign;
            return MN_OK;
        }
        uint32_t q = shift_round_even(mantissa | 0x800000u, 126u - exponent);
        *out = (uint16_t)(sign | q); /* q = 0x400 is the smallest normal: the bits agree */
        return MN_OK;
    }
    uint32_t q = (exponent - 112u) << 10 | mantissa >> 13;
    uint32_t rem = mantissa & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1u)))
        q++; /* a carry into the exponent is the right answer */
    *out = (uint16_t)(sign | q);
    return MN_OK;
}
