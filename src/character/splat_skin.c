/*
 * The CPU deform of splats bound to a skeleton (docs/formats.md,
 * "bindings.bin and the splat deform"), on the calling thread.
 *
 * Three widths of one rotation kernel (splat_skin_kernel.h, core/simd.h's
 * convention): the scalar reference here (the kernel at one lane), SSE2 in
 * splat_skin_sse2.c, AVX2+FMA in splat_skin_avx2.c, chosen at run time by
 * the dispatch below.  Each splat's blend is done on its own (a splat's
 * joints differ from its neighbours', so there is nothing to share across
 * lanes); the rotation maths, which is most of the work, then runs across
 * lanes.  The blend and the centre use the affine part of each skin matrix;
 * its fourth row is never read.
 */
#include "character/splat_internal.h"

#include "core/core.h"

#include <math.h>
#include <string.h>

/* ---- the scalar reference: the kernel at one lane ----------------------------------- */

#include "core/lanes_scalar.h"

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

/* The kernel's one-lane batch: splat i = base. */
MN_LANE void gather(const mn_splat_skin_job *a, size_t i, size_t end, float m[9][1], float rq[4][1])
{
    (void)end;
    blend_scalar(a, i, 0, m, a->out_centres + 3 * i);
    for (int k = 0; k < 4; k++)
        rq[k][0] = a->rotations[4 * i + k];
}

MN_LANE void scatter(const mn_splat_skin_job *a, size_t i, size_t end, float rq[4][1])
{
    (void)end;
    for (int k = 0; k < 4; k++)
        a->out_rotations[4 * i + k] = rq[k][0];
}

#define SPLAT_STAGED 1
#include "character/splat_skin_kernel.h"

/* ---- choosing and checking ---------------------------------------------------------- */

void mni_splat_skin_range(const mn_splat_skin_job *job, mn_simd_level level, size_t first,
                          size_t end)
{
    if (first >= end)
        return;
    switch (level) {
#if MN_WITH_AVX2
    case MN_SIMD_AVX2_FMA:
        mni_splat_skin_avx2(job, first, end);
        return;
#endif
#if MN_WITH_SSE2
    case MN_SIMD_SSE2:
        mni_splat_skin_sse2(job, first, end);
        return;
#endif
    default: /* the reference, and NEON: no kernel there yet */
        mni_splat_skin_scalar(job, first, end);
        return;
    }
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
