/*
 * An optional manual check of the AArch64 NEON expression kernel
 * (src/head/expression_neon.c) against the scalar reference, for machines
 * without ARM hardware.  Not part of the CTest suite: on an AArch64 build
 * tests/test_head.c covers the same ground, since there the SIMD level runs
 * the NEON kernel.
 *
 * Cross-compile and run it under user-mode QEMU (Debian packages
 * gcc-aarch64-linux-gnu and qemu-user), from the repository root:
 *
 *   aarch64-linux-gnu-gcc -O2 -std=c11 -Wall -Wextra -Wpedantic -Werror \
 *       -Iinclude -Isrc -static tests/arm/expression_neon_check.c \
 *       src/head/expression*.c src/core/cpu.c -lm -o /tmp/expression_neon_check
 *   qemu-aarch64 /tmp/expression_neon_check
 *
 * Each case builds a random frame (every row length from 3 to 90 halves, so
 * every tail; eyes on and off; forward and a skinned pose) and checks every
 * output float of the NEON kernel within 1e-5 of the reference (the basis
 * values are below 1 and the coefficients below 2, so a row's sum is far
 * from float precision's limit at that tolerance).  Exit status 0 when every
 * case passes.
 */
#include "head/expression_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned rng = 1u;
static unsigned next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}
static float frand(float lo, float hi)
{
    return lo + (hi - lo) * (float)(next() >> 8) / 16777216.0f;
}

/* A random finite half below 1 in magnitude: exponent field 0..14 (subnormals included). */
static uint16_t random_half(void)
{
    unsigned r = next();
    return (uint16_t)((r & 0x8000u) | ((r >> 16) % 15u) << 10 | (r & 0x3ffu));
}

static int run_case(size_t vertices, size_t coeffs, bool eyes, bool pose)
{
    size_t row = 3 * coeffs, joints = 3, k = 2;
    float *neutral = malloc(vertices * 3 * sizeof *neutral);
    uint16_t *basis = malloc(vertices * row * sizeof *basis);
    float *coef3 = malloc(row * sizeof *coef3);
    float *eye_w = malloc(2 * vertices * sizeof *eye_w);
    uint16_t *skin_i = malloc(vertices * k * sizeof *skin_i);
    float *skin_w = malloc(vertices * k * sizeof *skin_w);
    float *rows = malloc(joints * 12 * sizeof *rows);
    float *a = malloc(vertices * 3 * sizeof *a), *b = malloc(vertices * 3 * sizeof *b);
    if (!neutral || !basis || !coef3 || !eye_w || !skin_i || !skin_w || !rows || !a || !b)
        return 1;
    for (size_t i = 0; i < vertices * 3; i++)
        neutral[i] = frand(-0.1f, 0.1f);
    for (size_t i = 0; i < vertices * row; i++)
        basis[i] = random_half();
    for (size_t e = 0; e < coeffs; e++)
        coef3[3 * e] = coef3[3 * e + 1] = coef3[3 * e + 2] = frand(-2.0f, 2.0f);
    for (size_t v = 0; v < vertices; v++) {
        eye_w[v] = v % 5 == 0 ? 1.0f : 0.0f;
        eye_w[vertices + v] = v % 7 == 0 ? 0.5f : 0.0f;
        skin_i[2 * v] = (uint16_t)(v % joints);
        skin_i[2 * v + 1] = (uint16_t)((v + 1) % joints);
        skin_w[2 * v] = 0.75f;
        skin_w[2 * v + 1] = 0.25f;
    }
    for (size_t i = 0; i < joints * 12; i++)
        rows[i] = frand(-1.0f, 1.0f);
    mn_expr_frame f = {0};
    f.vertex_count = vertices;
    f.row = row;
    f.neutral = neutral;
    f.basis = basis;
    f.coef3 = coef3;
    f.eye_weights = eye_w;
    for (int e = 0; e < 2; e++) {
        f.eye_on[e] = eyes;
        float c = cosf(0.3f), s = sinf(0.3f);
        float r[9] = {c, 0, s, 0, 1, 0, -s, 0, c};
        for (int i = 0; i < 9; i++)
            f.eye_rot[e][i] = r[i];
        f.eye_centre[e][0] = e ? -0.03f : 0.03f;
    }
    if (pose) {
        f.influences = k;
        f.skin_index = skin_i;
        f.skin_weight = skin_w;
        f.skin_rows = rows;
    }
    f.out = a;
    mni_expression_scalar(&f);
    f.out = b;
    mni_expression_neon(&f);
    double worst = 0.0;
    for (size_t i = 0; i < vertices * 3; i++)
        worst = fmax(worst, fabs((double)a[i] - (double)b[i]));
    int failed = !(worst <= 1e-5);
    if (failed)
        printf("FAIL coeffs %zu eyes %d pose %d: largest difference %.3g\n", coeffs, eyes, pose,
               worst);
    free(neutral), free(basis), free(coef3), free(eye_w), free(skin_i), free(skin_w);
    free(rows), free(a), free(b);
    return failed;
}

int main(void)
{
    int failures = 0, cases = 0;
    for (size_t coeffs = 1; coeffs <= 30; coeffs++)
        for (int eyes = 0; eyes < 2; eyes++)
            for (int pose = 0; pose < 2; pose++, cases++)
                failures += run_case(37, coeffs, eyes, pose);
    failures += run_case(500, 383, true, true);
    cases++;
    printf("expression NEON vs reference: %d of %d cases pass\n", cases - failures, cases);
    return failures != 0;
}
