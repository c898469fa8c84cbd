/*
 * The clip sampler's slerp polynomials, shared by its scalar reference and
 * SSE2 kernel (clip.c) and its AVX2 kernel (clip_avx2.c), which evaluate
 * them in the same order so that every lane gives the scalar's bits.  Not
 * installed; include only from those two files.
 */
#ifndef MN_ANIM_CLIP_SLERP_H
#define MN_ANIM_CLIP_SLERP_H

#include <math.h>

/* Above this |cos θ| between keys the sampler takes the normalised lerp. */
#define MN_CLIP_NEARLY_PARALLEL 0.9995f

/*
 * sin x for x in [0, π/2] as x·P(x²), P interpolating sin(√u)/√u at
 * Chebyshev nodes: within 7e-9 of sin there, far below float rounding.
 * Coefficients from the highest power down; odd, so sin_poly(0) is 0.
 */
#define MN_SIN_POLY_TERMS 5
static const float mn_sin_poly[MN_SIN_POLY_TERMS] = {2.605107635e-06f, -1.980901741e-04f,
                                                     8.333050171e-03f, -1.666665795e-01f,
                                                     9.999999957e-01f};

/*
 * acos d for d in [0, 1] as √(1-d)·Q(d), Q interpolating acos(d)/√(1-d)
 * (smooth on the whole interval) at Chebyshev nodes: within 3e-8 of acos.
 * Coefficients from the highest power down.
 */
#define MN_ACOS_POLY_TERMS 8
static const float mn_acos_poly[MN_ACOS_POLY_TERMS] = {
    -1.211737770e-03f, 6.491521428e-03f, -1.684105241e-02f, 3.072212242e-02f,
    -5.011430310e-02f, 8.896885320e-02f, -2.145981556e-01f, 1.570796298e+00f};

/* Horner: p = c₀; p = cᵢ + u·p. */
static inline float sin_poly(float x)
{
    float u = x * x, p = mn_sin_poly[0];
    for (int i = 1; i < MN_SIN_POLY_TERMS; i++)
        p = mn_sin_poly[i] + u * p;
    return x * p;
}

/* Horner: q = c₀; q = q·d + cᵢ; then √(1-d)·q. */
static inline float acos_poly(float d)
{
    float q = mn_acos_poly[0];
    for (int i = 1; i < MN_ACOS_POLY_TERMS; i++)
        q = q * d + mn_acos_poly[i];
    return sqrtf(1.0f - d) * q;
}

#endif /* MN_ANIM_CLIP_SLERP_H */
