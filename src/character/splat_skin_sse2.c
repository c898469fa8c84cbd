/*
 * The splat deform with SSE2, four splats a batch (splat_skin_kernel.h at
 * four lanes, core/simd.h's convention): SSE2 is the x86-64 baseline, so
 * this kernel runs on every x86-64 CPU.  Each splat's blend is a __m128 per
 * matrix column; a batch's columns and rotations are then transposed into
 * one component a register and staged in memory for the kernel's loads.
 */
#include "character/splat_internal.h"

#if MN_WITH_SSE2

#include "core/lanes_sse2.h"

#define SPLAT_STAGED 1
#include "character/splat_skin_kernel.h"

/* Splat i's blend with a __m128 per column (rows 0..3; row 3 is carried and never used); its centre when asked. */
MN_LANE void blend_m128(const mn_splat_skin_job *a, size_t i, bool write_centre,
                              __m128 col[3])
{
    const uint16_t *j = a->joints + i * a->influences;
    const float *w = a->weights + i * a->influences;
    __m128 c0 = _mm_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
    for (size_t k = 0; k < a->influences; k++) {
        const float *p = a->palette + 16 * (size_t)j[k];
        __m128 wk = _mm_set1_ps(w[k]);
        c0 = _mm_add_ps(c0, _mm_mul_ps(wk, _mm_loadu_ps(p)));
        c1 = _mm_add_ps(c1, _mm_mul_ps(wk, _mm_loadu_ps(p + 4)));
        c2 = _mm_add_ps(c2, _mm_mul_ps(wk, _mm_loadu_ps(p + 8)));
        c3 = _mm_add_ps(c3, _mm_mul_ps(wk, _mm_loadu_ps(p + 12)));
    }
    col[0] = c0, col[1] = c1, col[2] = c2;
    if (write_centre) {
        __m128 x = _mm_set1_ps(a->centres[3 * i] + a->translation[0]);
        __m128 y = _mm_set1_ps(a->centres[3 * i + 1] + a->translation[1]);
        __m128 z = _mm_set1_ps(a->centres[3 * i + 2] + a->translation[2]);
        __m128 p = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, x), _mm_mul_ps(c1, y)),
                                         _mm_mul_ps(c2, z)), c3);
        _Alignas(16) float out[4];
        _mm_store_ps(out, p);
        float *centre = a->out_centres + 3 * i;
        centre[0] = out[0], centre[1] = out[1], centre[2] = out[2];
    }
}

/*
 * Splats [base, base + w) into lanes, four at a time: each four's columns
 * and rotations are turned from one splat a register into one component a
 * register by a 4×4 transpose, and stored whole, so the kernel's loads read
 * what one store wrote (a load that gathers narrower stores waits for them).
 */
MN_LANE void gather(const mn_splat_skin_job *a, size_t base, size_t end, float mv[9][VF_W],
                    float rqv[4][VF_W])
{
    float *m = &mv[0][0], *rq = &rqv[0][0];
    const size_t w = VF_W;
    for (size_t g = 0; g < w; g += 4) {
        __m128 col[3][4], rot[4];
        for (size_t l = 0; l < 4; l++) {
            size_t i = base + g + l < end ? base + g + l : end - 1;
            __m128 c[3];
            blend_m128(a, i, base + g + l < end, c);
            col[0][l] = c[0], col[1][l] = c[1], col[2][l] = c[2];
            rot[l] = _mm_loadu_ps(a->rotations + 4 * i);
        }
        for (int c = 0; c < 3; c++) {
            _MM_TRANSPOSE4_PS(col[c][0], col[c][1], col[c][2], col[c][3]);
            for (int r = 0; r < 3; r++)
                _mm_store_ps(m + (size_t)(c * 3 + r) * w + g, col[c][r]);
        }
        _MM_TRANSPOSE4_PS(rot[0], rot[1], rot[2], rot[3]);
        for (int k = 0; k < 4; k++)
            _mm_store_ps(rq + (size_t)k * w + g, rot[k]);
    }
}

/* The lanes' rotations back to x y z w a splat, four at a time; lanes at or past end are dropped. */
MN_LANE void scatter(const mn_splat_skin_job *a, size_t base, size_t end, float rqv[4][VF_W])
{
    const float *rq = &rqv[0][0];
    const size_t w = VF_W;
    for (size_t g = 0; g < w && base + g < end; g += 4) {
        __m128 v0 = _mm_load_ps(rq + g), v1 = _mm_load_ps(rq + w + g);
        __m128 v2 = _mm_load_ps(rq + 2 * w + g), v3 = _mm_load_ps(rq + 3 * w + g);
        _MM_TRANSPOSE4_PS(v0, v1, v2, v3);
        __m128 v[4] = {v0, v1, v2, v3};
        for (size_t l = 0; l < 4 && base + g + l < end; l++)
            _mm_storeu_ps(a->out_rotations + 4 * (base + g + l), v[l]);
    }
}

#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_splat_skin_sse2_unused;
#endif
