/*
 * Morph targets: out = base + Σ w_i · delta_i.
 *
 * The work is streaming: every float of base and of each active delta is
 * read once and every float of out written once, so the loops are plain
 * counted loops over restrict pointers that the compiler vectorises.  The
 * stream is cut into chunks of 8 KiB of output, and every active target is
 * added to a chunk while it is still in L1, so adding n targets costs the
 * reads of n deltas but not n round trips of `out` through memory.
 *
 * Targets whose weight is zero, or whose delta array is NULL, are never
 * read.  The order of the additions is fixed (target 0 first), so a result
 * does not depend on the chunking.
 */
#include <marionette/morph.h>

#include "core/core.h"
#include "deform/internal.h"

#include <math.h>
#include <string.h>

#define MORPH_CHUNK 2048u   /* floats of out per chunk: 8 KiB, well inside L1 */

static inline bool target_active(const float *const *deltas, const float *weights, size_t i)
{
    return weights[i] != 0.0f && deltas[i] != NULL;
}

/* out[i] += w · d[i] */
static void add_scaled(float *restrict out, const float *restrict d, float w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] += w * d[i];
}

/* out[i] = base[i] + w · d[i] (out and base do not overlap) */
static void base_plus_scaled(float *restrict out, const float *restrict base,
                             const float *restrict d, float w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = base[i] + w * d[i];
}

mn_status mn_morph_run(const mn_morph_job *job)
{
    if (!job || job->components == 0)
        return MN_INVALID_ARGUMENT;
    size_t n;
    if (!mni_checked_mul(job->vertex_count, job->components, &n))
        return MN_INVALID_ARGUMENT;
    if (n == 0)
        return MN_OK;
    if (!job->base || !job->out || (job->target_count > 0 && (!job->deltas || !job->weights)))
        return MN_INVALID_ARGUMENT;

    const float *const *deltas = job->deltas;
    const float *weights = job->weights;
    size_t first = 0; /* the first active target: it is fused with the copy of base */
    while (first < job->target_count && !target_active(deltas, weights, first))
        first++;

    for (size_t start = 0; start < n; start += MORPH_CHUNK) {
        size_t len = n - start < MORPH_CHUNK ? n - start : MORPH_CHUNK;
        float *out = job->out + start;
        const float *base = job->base + start;
        if (first == job->target_count) {
            if (out != base)
                memcpy(out, base, len * sizeof *out);
            continue;
        }
        if (out == base)
            add_scaled(out, deltas[first] + start, weights[first], len);
        else
            base_plus_scaled(out, base, deltas[first] + start, weights[first], len);
        for (size_t i = first + 1; i < job->target_count; i++)
            if (target_active(deltas, weights, i))
                add_scaled(out, deltas[i] + start, weights[i], len);
    }
    return MN_OK;
}

/* ---- strided streams for the prepared mesh (tangents: 4 floats a vertex) ---- */

void mni_morph3_strided(float *out, size_t out_stride, const float *base, size_t base_stride,
                        size_t count, const float *const *deltas, const float *weights,
                        size_t target_count, size_t copy_rest)
{
    const size_t chunk = MORPH_CHUNK / 4; /* vertices per chunk */
    for (size_t start = 0; start < count; start += chunk) {
        size_t len = count - start < chunk ? count - start : chunk;
        if (out != base) {
            for (size_t v = start; v < start + len; v++)
                for (size_t c = 0; c < 3 + copy_rest; c++)
                    out[v * out_stride + c] = base[v * base_stride + c];
        }
        for (size_t i = 0; i < target_count; i++) {
            if (!target_active(deltas, weights, i))
                continue;
            const float *d = deltas[i];
            float w = weights[i];
            for (size_t v = start; v < start + len; v++)
                for (size_t c = 0; c < 3; c++)
                    out[v * out_stride + c] += w * d[v * 3 + c];
        }
    }
}

void mni_normalize3_strided(float *v, size_t stride, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        float *p = v + i * stride;
        float len2 = (p[0] * p[0] + p[1] * p[1]) + p[2] * p[2];
        float inv = len2 > 0.0f ? 1.0f / sqrtf(len2) : 0.0f;
        p[0] *= inv;
        p[1] *= inv;
        p[2] *= inv;
    }
}
