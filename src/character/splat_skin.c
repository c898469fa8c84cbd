/*
 * The CPU deform of splats bound to a skeleton (docs/formats.md,
 * "bindings.bin and the splat deform"), on the calling thread.
 *
 * Three widths of one rotation kernel (splat_skin_kernel.h): the scalar
 * reference and SSE2 here, AVX2+FMA in splat_skin_avx2.c, chosen at run
 * time as mesh skinning chooses.  Each splat's blend is done on its own (a
 * __m128 per matrix column for SSE2: a splat's joints differ from its
 * neighbours', so there is nothing to share across lanes); the rotation
 * maths, which is most of the work, then runs across lanes.  The blend and
 * the centre use the affine part of each skin matrix; its fourth row is
 * never read.
 */
#include "character/splat_internal.h"

#include "core/core.h"

#include <math.h>
#include <string.h>

#if MN_SPLAT_X86
#include <immintrin.h>
#endif

/* ---- the scalar reference ------------------------------------------------------ */

/* Blend splat i's skin matrices (affine part), write its centre, keep its 3×3 in m[.][lane]. */
static inline void blend_scalar(const mn_splat_skin_job *a, size_t i, size_t lane,
                                float m[][1], float *centre)
{
    const uint16_t *j = a->joints + i * a->influences;
    const float *w = a->weights + i * a->influences;
    float b[12] = {0};
    for (size_t k = 0; k < a->influences; k++) {
        const float *p = a->palette + 16 * (size_t)j[k];
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 3; r++)
                b[c * 3 + r] += w[k] * p[c * 4 + r];
    }
    for (int e = 0; e < 9; e++)
        m[e][lane] = b[e];
    if (centre) {
        float x = a->centres[3 * i] + a->translation[0];
        float y = a->centres[3 * i + 1] + a->translation[1];
        float z = a->centres[3 * i + 2] + a->translation[2];
        for (int r = 0; r < 3; r++)
            centre[r] = ((b[r] * x + b[3 + r] * y) + b[6 + r] * z) + b[9 + r];
    }
}

static inline void gather_scalar(const mn_splat_skin_job *a, size_t i, float m[][1],
                                 float rq[][1])
{
    blend_scalar(a, i, 0, m, a->out_centres + 3 * i);
    for (int k = 0; k < 4; k++)
        rq[k][0] = a->rotations[4 * i + k];
}

static inline void scatter_scalar(const mn_splat_skin_job *a, size_t i, float rq[][1])
{
    for (int k = 0; k < 4; k++)
        a->out_rotations[4 * i + k] = rq[k][0];
}

#define SK_NAME splat_skin_scalar
#define SK_ROTATE rotate_scalar
#define SK_ATTR
#define SK_W 1
#define SK_V float
#define SK_SET1(x) (x)
#define SK_LOAD(p) ((p)[0])
#define SK_STORE(p, v) ((p)[0] = (v))
#define SK_SQRT(v) sqrtf(v)
#define SK_SEL_GT(a, b, x, y) ((a) > (b) ? (x) : (y))
#define SK_ALL_GT(a, b) ((a) > (b))
#define SK_MADD(a, b, c) ((a) * (b) + (c))
#define SK_RCP(v) (1.0f / (v))
#define SK_RSQRT(v) (1.0f / sqrtf(v))
#define SK_FLIPSIGN(x, s) (signbit(s) ? -(x) : (x))
#define SK_GATHER(a, base, end, m, rq) gather_scalar((a), (base), (m), (rq))
#define SK_SCATTER(a, base, end, rq) scatter_scalar((a), (base), (rq))
#include "character/splat_skin_kernel.h"
#undef SK_NAME
#undef SK_ROTATE
#undef SK_ATTR
#undef SK_W
#undef SK_V
#undef SK_SET1
#undef SK_LOAD
#undef SK_STORE
#undef SK_SQRT
#undef SK_SEL_GT
#undef SK_ALL_GT
#undef SK_MADD
#undef SK_RCP
#undef SK_RSQRT
#undef SK_FLIPSIGN
#undef SK_GATHER
#undef SK_SCATTER

#if MN_SPLAT_X86

/* ---- SSE2 ------------------------------------------------------------------------ */

/* Splat i's blend with a __m128 per column (rows 0..3; row 3 is carried and never used); its centre when asked. */
static inline void blend_m128(const mn_splat_skin_job *a, size_t i, bool write_centre,
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
static inline void gather_m128(const mn_splat_skin_job *a, size_t base, size_t end, float *m,
                               float *rq, size_t w)
{
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
static inline void scatter_m128(const mn_splat_skin_job *a, size_t base, size_t end,
                                const float *rq, size_t w)
{
    for (size_t g = 0; g < w && base + g < end; g += 4) {
        __m128 v0 = _mm_load_ps(rq + g), v1 = _mm_load_ps(rq + w + g);
        __m128 v2 = _mm_load_ps(rq + 2 * w + g), v3 = _mm_load_ps(rq + 3 * w + g);
        _MM_TRANSPOSE4_PS(v0, v1, v2, v3);
        __m128 v[4] = {v0, v1, v2, v3};
        for (size_t l = 0; l < 4 && base + g + l < end; l++)
            _mm_storeu_ps(a->out_rotations + 4 * (base + g + l), v[l]);
    }
}

static inline __m128 sel_gt_m128(__m128 a, __m128 b, __m128 x, __m128 y)
{
    __m128 mask = _mm_cmpgt_ps(a, b);
    return _mm_or_ps(_mm_and_ps(mask, x), _mm_andnot_ps(mask, y));
}

#define SK_NAME splat_skin_sse2
#define SK_ROTATE rotate_sse2
#define SK_ATTR
#define SK_W 4
#define SK_V __m128
#define SK_SET1(x) _mm_set1_ps(x)
#define SK_LOAD(p) _mm_load_ps(p)
#define SK_STORE(p, v) _mm_store_ps((p), (v))
#define SK_SQRT(v) _mm_sqrt_ps(v)
#define SK_SEL_GT(a, b, x, y) sel_gt_m128((a), (b), (x), (y))
#define SK_ALL_GT(a, b) (_mm_movemask_ps(_mm_cmpgt_ps((a), (b))) == 0xf)
#define SK_MADD(a, b, c) ((a) * (b) + (c))
#define SK_RCP(v) _mm_rcp_ps(v)
#define SK_RSQRT(v) _mm_rsqrt_ps(v)
#define SK_FLIPSIGN(x, s) _mm_xor_ps((x), _mm_and_ps((s), _mm_set1_ps(-0.0f)))
#define SK_GATHER(a, base, end, m, rq) gather_m128((a), (base), (end), &(m)[0][0], &(rq)[0][0], 4)
#define SK_SCATTER(a, base, end, rq) scatter_m128((a), (base), (end), &(rq)[0][0], 4)
#include "character/splat_skin_kernel.h"
#undef SK_NAME
#undef SK_ROTATE
#undef SK_ATTR
#undef SK_W
#undef SK_V
#undef SK_SET1
#undef SK_LOAD
#undef SK_STORE
#undef SK_SQRT
#undef SK_SEL_GT
#undef SK_ALL_GT
#undef SK_MADD
#undef SK_RCP
#undef SK_RSQRT
#undef SK_FLIPSIGN
#undef SK_GATHER
#undef SK_SCATTER

#endif /* MN_SPLAT_X86 */

/* ---- choosing and checking ---------------------------------------------------------- */

void mni_splat_skin_range(const mn_splat_skin_job *job, mn_simd_level level, size_t first,
                         size_t end)
{
    if (first >= end)
        return;
#if MN_SPLAT_X86
    if (level == MN_SIMD_AVX2_FMA) {
        mni_splat_skin_avx2(job, first, end);
        return;
    }
    if (level == MN_SIMD_SSE2) {
        splat_skin_sse2(job, first, end);
        return;
    }
#endif
    (void)level;
    splat_skin_scalar(job, first, end);
}

mn_status mni_splat_job_check(const mn_splat_skin_job *job, mn_error *err)
{
    if (!job)
        return mni_fail(err, MN_INVALID_ARGUMENT, "job is NULL");
    if (job->count == 0)
        return MN_OK;
    if (job->influences == 0)
        return mni_error_set(err, MN_INVALID_ARGUMENT, "influences", -1, "influences is 0");
    if (!job->joints || !job->weights || !job->palette || !job->centres || !job->rotations ||
        !job->out_centres || !job->out_rotations)
        return mni_fail(err, MN_INVALID_ARGUMENT, "a stream of the splat job is NULL");
    if (job->palette_count == 0)
        return mni_error_set(err, MN_INVALID_ARGUMENT, "palette_count", -1, "palette is empty");
    for (int k = 0; k < 3; k++)
        if (!isfinite(job->translation[k]))
            return mni_error_set(err, MN_NOT_FINITE, "translation", -1,
                                "translation is not finite");
    return MN_OK;
}

MN_API mn_status mn_splat_skin_job_validate(const mn_splat_skin_job *job, mn_error *err)
{
    mni_error_clear(err);
    mn_status st = mni_splat_job_check(job, err);
    if (st != MN_OK)
        return st;
    size_t n = (size_t)job->count * job->influences;
    for (size_t i = 0; i < n; i++)
        if (job->joints[i] >= job->palette_count)
            return mni_error_set(err, MN_INDEX_RANGE, "joints", -1,
                                "splat %zu: joint %u is not below palette_count %u",
                                i / job->influences, job->joints[i], job->palette_count);
    return MN_OK;
}

MN_API mn_status mn_splat_skin_run(const mn_splat_skin_job *job, mn_simd_level level)
{
    mn_status st = mni_splat_job_check(job, NULL);
    if (st != MN_OK)
        return st;
    mni_splat_skin_range(job, mni_simd_resolve(level), 0, job->count);
    return MN_OK;
}

MN_API mn_status mn_splat_ply_to_character(const float matrix[12], float translation[3],
                                           mn_error *err)
{
    mni_error_clear(err);
    if (!matrix || !translation)
        return mni_fail(err, MN_INVALID_ARGUMENT, "matrix or translation is NULL");
    for (int i = 0; i < 12; i++)
        if (!isfinite(matrix[i]))
            return mni_error_set(err, MN_NOT_FINITE, "plyToCharacter", -1,
                                "plyToCharacter[%d] is not finite", i);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            if (matrix[4 * r + c] != (r == c ? 1.0f : 0.0f))
                return mni_error_set(err, MN_INVALID_VALUE, "plyToCharacter", -1,
                                    "plyToCharacter's 3x3 must be the identity "
                                    "(element [%d][%d] is %g)", r, c, (double)matrix[4 * r + c]);
    translation[0] = matrix[3];
    translation[1] = matrix[7];
    translation[2] = matrix[11];
    return MN_OK;
}
