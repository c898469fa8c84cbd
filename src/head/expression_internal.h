/*
 * Private to marionette: one frame of an expression-basis head (the maths of
 * docs/formats.md, "The head's forward and pose") as the kernels receive it,
 * the kernels themselves, and the per-vertex steps every kernel shares.  The head object
 * (src/head/runtime.c) fills a frame from its pack and state; the kernels differ
 * only in how they sum the basis, so scalar and SIMD give the same eyes, seam
 * and skinning to the bit once the sums agree.  Not installed.
 */
#ifndef MN_HEAD_EXPRESSION_INTERNAL_H
#define MN_HEAD_EXPRESSION_INTERNAL_H

#include <marionette/core.h>

#include "core/simd.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * One frame.  Counts are checked by the caller (the head), pointers are the
 * pack's views and the head's scratch.  The basis is vertex-major: vertex v's
 * 3E halves start at half index v·3E, x y z per coefficient, so a vertex's
 * row is one contiguous run whatever its alignment.
 */
typedef struct mn_expr_frame {
    size_t vertex_count;
    size_t row;                 /* 3 × coefficient count: halves per vertex */
    const float *neutral;       /* V × 3 */
    const uint16_t *basis;      /* V × row halves (f16 bits) */
    const float *coef3;         /* row floats: c[e]·basisScale[e], repeated for x y z */

    /* Eyes: R·(p − centre) + centre − p, blended by each eye's weight. */
    bool eye_on[2];             /* false when that eye's rotation is the identity */
    float eye_rot[2][9];        /* row-major 3×3 */
    float eye_centre[2][3];
    const float *eye_weights;   /* 2 × V: left's V, then right's */

    /* Pose only (skin_rows NULL: forward, head-local output). */
    const float *stitch;        /* V × 3, NULL when the pack has none */
    size_t influences;
    const uint16_t *skin_index; /* V × influences */
    const float *skin_weight;   /* V × influences */
    const float *skin_rows;     /* 12 floats a joint: row-major 3×4, bind transform and units folded in */

    float *out;                 /* V × 3 */
} mn_expr_frame;

/*
 * The kernels, one a level (core/simd.h, the convention): the reference
 * (expression.c: plain C, always built, the meaning of every other kernel),
 * AVX2 with FMA and F16C (expression_avx2.c) and NEON (expression_neon.c),
 * both over expression_kernel.h.
 */
void mni_expression_scalar(const mn_expr_frame *f);
#if MN_WITH_AVX2
void mni_expression_avx2(const mn_expr_frame *f);
#endif
#if MN_WITH_NEON
void mni_expression_neon(const mn_expr_frame *f);
#endif

/*
 * The level whose kernel runs for `wanted` on this CPU and build: the
 * widest the head has (MN_SIMD_AVX2_FMA, which also needs F16C, or
 * MN_SIMD_NEON) not above mni_simd_resolve(wanted), else MN_SIMD_SCALAR.
 * Asks the CPU for F16C: call it when a head is set up, not per frame.
 */
mn_simd_level mni_expression_level(mn_simd_level wanted);

/* Run the frame with the kernel of a level mni_expression_level returned: the one dispatch. */
void mni_expression_run(const mn_expr_frame *f, mn_simd_level level);

/*
 * An IEEE half to float, exactly (subnormals included): the half's exponent
 * and mantissa moved into a float's place and multiplied by 2^112, which
 * rebias the exponent (a power of two, so no rounding).  Infinities and NaNs
 * are not handled: the pack reader refuses them.
 */
static inline float mni_half_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)(h & 0x7fffu) << 13;
    float f;
    memcpy(&f, &bits, sizeof f);
    f *= 0x1p112f;
    return (h & 0x8000u) ? -f : f;
}

/*
 * Everything after the basis sum, for vertex v whose summed position is p:
 * the eyes (left, then right, each reading what the previous one left), and
 * for a pose the seam, then skinning by the folded rows.  Writes out[v].
 */
static inline void mni_expression_finish(const mn_expr_frame *f, size_t v, float p[3])
{
    for (int k = 0; k < 2; k++) {
        if (!f->eye_on[k])
            continue;
        float w = f->eye_weights[(size_t)k * f->vertex_count + v];
        if (w == 0.0f)
            continue;
        const float *r = f->eye_rot[k], *c = f->eye_centre[k];
        float d0 = p[0] - c[0], d1 = p[1] - c[1], d2 = p[2] - c[2];
        float t0 = r[0] * d0 + r[1] * d1 + r[2] * d2 + c[0];
        float t1 = r[3] * d0 + r[4] * d1 + r[5] * d2 + c[1];
        float t2 = r[6] * d0 + r[7] * d1 + r[8] * d2 + c[2];
        p[0] += w * (t0 - p[0]);
        p[1] += w * (t1 - p[1]);
        p[2] += w * (t2 - p[2]);
    }
    float *o = f->out + 3 * v;
    if (!f->skin_rows) {
        o[0] = p[0];
        o[1] = p[1];
        o[2] = p[2];
        return;
    }
    if (f->stitch) {
        const float *s = f->stitch + 3 * v;
        p[0] += s[0];
        p[1] += s[1];
        p[2] += s[2];
    }
    float m[12] = {0};
    const uint16_t *ji = f->skin_index + v * f->influences;
    const float *wi = f->skin_weight + v * f->influences;
    for (size_t i = 0; i < f->influences; i++) {
        float w = wi[i];
        if (w == 0.0f)
            continue;
        const float *row = f->skin_rows + 12 * (size_t)ji[i];
        for (int k = 0; k < 12; k++)
            m[k] += w * row[k];
    }
    o[0] = m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + m[3];
    o[1] = m[4] * p[0] + m[5] * p[1] + m[6] * p[2] + m[7];
    o[2] = m[8] * p[0] + m[9] * p[1] + m[10] * p[2] + m[11];
}

#endif /* MN_HEAD_EXPRESSION_INTERNAL_H */
