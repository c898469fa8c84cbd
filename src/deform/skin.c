/*
 * Linear-blend skinning: checking a job, the scalar reference every SIMD
 * kernel is measured against, and the dispatch that picks a kernel
 * (core/simd.h, the convention; the kernels are skin_sse2.c, skin_avx2.c,
 * skin_neon.c and, in the web build, skin_wasm.c around skin_kernel.h).
 *
 * The arithmetic, which every kernel follows (the SIMD ones may fuse a
 * multiply and an add, or add the same terms in another order, so they agree
 * with this one within float rounding, 1e-6 relative, not bit for bit):
 *
 *   M      = Σ_k w_k · palette[j_k]      the affine part only (12 floats):
 *                                        blending the matrices once and
 *                                        transforming once costs less than
 *                                        transforming by every influence
 *   p'     = M · (p, 1)
 *   n'     = normalize(M3x3 · n)
 *   t'.xyz = normalize(M3x3 · t.xyz),    t'.w = t.w
 *   normalize(v) = v · (1 / sqrt(v·v)), and a vector of zero length (or one
 *   whose squared length underflows) becomes zero, never NaN.
 *
 * The palette's fourth row is never read for the result, so a palette whose
 * last row is not exactly 0 0 0 1 skins as if it were.  Zero weights are not
 * skipped: a branch per influence costs more than the multiply, and every
 * kernel then reads the same matrices.
 */
#include "deform/internal.h"

#include "core/core.h"
#include "core/simd.h"

#include <math.h>
#include <string.h>

/* ---- the scalar reference ------------------------------------------------ */

/* m[c*3 + r] = Σ_k w_k · P_k[c*4 + r]: columns 0..3, rows 0..2 of the blend. */
static inline void blend_scalar(const mn_skin_streams *s, size_t v, size_t ic, float m[12])
{
    const uint16_t *j = s->joints + v * ic;
    const float *w = s->weights + v * ic;
    const float *p = s->palette + 16 * (size_t)j[0];
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 3; r++)
            m[c * 3 + r] = w[0] * p[c * 4 + r];
    for (size_t k = 1; k < ic; k++) {
        p = s->palette + 16 * (size_t)j[k];
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 3; r++)
                m[c * 3 + r] = m[c * 3 + r] + w[k] * p[c * 4 + r];
    }
}

/* out = normalize(M3x3 · d); out may alias d (d is read first). */
static inline void transform_dir_scalar(const float m[12], const float d[3], float out[3])
{
    float x = d[0], y = d[1], z = d[2];
    float r[3];
    for (int i = 0; i < 3; i++)
        r[i] = (m[i] * x + m[3 + i] * y) + m[6 + i] * z;
    float len2 = (r[0] * r[0] + r[1] * r[1]) + r[2] * r[2];
    float inv = len2 > 0.0f ? 1.0f / sqrtf(len2) : 0.0f;
    out[0] = r[0] * inv;
    out[1] = r[1] * inv;
    out[2] = r[2] * inv;
}

static inline void skin_scalar_n(const mn_skin_streams *s, size_t ic)
{
    for (size_t v = 0; v < s->count; v++) {
        float m[12];
        blend_scalar(s, v, ic, m);

        const float *p = s->positions + v * s->position_stride;
        float x = p[0], y = p[1], z = p[2];
        float *op = s->out_positions + v * s->out_position_stride;
        for (int i = 0; i < 3; i++)
            op[i] = ((m[i] * x + m[3 + i] * y) + m[6 + i] * z) + m[9 + i];

        if (s->normals)
            transform_dir_scalar(m, s->normals + v * s->normal_stride,
                                 s->out_normals + v * s->out_normal_stride);
        if (s->tangents) {
            const float *t = s->tangents + v * s->tangent_stride;
            float *ot = s->out_tangents + v * s->out_tangent_stride;
            float w = t[3];
            transform_dir_scalar(m, t, ot);
            ot[3] = w;
        }
    }
}

void mni_skin_scalar(const mn_skin_streams *s)
{
    /* Constant influence counts let the compiler unroll the blend. */
    switch (s->influences) {
    case 4: skin_scalar_n(s, 4); break;
    case 8: skin_scalar_n(s, 8); break;
    default: skin_scalar_n(s, s->influences); break;
    }
}

/* ---- checking a job ---------------------------------------------------------- */

static const char *const field_names[] = {"joints", "weights", "palette", "positions",
                                          "out_positions"};

/*
 * The cheap checks (no scan of the data), shared by mn_skin_job_validate and
 * mn_skin_run, and the job with its defaults filled in.
 */
static mn_status check_job(const mn_skin_job *job, mn_error *err, mn_skin_streams *s)
{
    memset(s, 0, sizeof *s);
    if (!job)
        return mni_fail(err, MN_INVALID_ARGUMENT, "the skinning job is NULL");
    if (job->influence_count == 0)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "influence_count is 0: every vertex needs at least one influence");

    const void *required[] = {job->joints, job->weights, job->palette, job->positions,
                              job->out_positions};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!required[i] && job->vertex_count > 0)
            return mni_fail(err, MN_INVALID_ARGUMENT, "%s is NULL", field_names[i]);
    if (job->palette_count == 0 && job->vertex_count > 0)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "palette_count is 0: the joints have no matrix to index");
    if (job->normals && !job->out_normals)
        return mni_fail(err, MN_INVALID_ARGUMENT, "normals are given but out_normals is NULL");
    if (job->tangents && !job->out_tangents)
        return mni_fail(err, MN_INVALID_ARGUMENT, "tangents are given but out_tangents is NULL");

    if ((unsigned)job->output_store > (unsigned)MN_SKIN_STORE_STREAM)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "output_store is %d, not an mn_skin_store (0 = the default)",
                        (int)job->output_store);

    struct { uint32_t stride, least; const char *name; } strides[] = {
        {job->position_stride, 3, "position_stride"},
        {job->normal_stride, 3, "normal_stride"},
        {job->tangent_stride, 4, "tangent_stride"},
        {job->out_position_stride, 3, "out_position_stride"},
        {job->out_normal_stride, 3, "out_normal_stride"},
        {job->out_tangent_stride, 4, "out_tangent_stride"},
    };
    for (size_t i = 0; i < sizeof strides / sizeof strides[0]; i++)
        if (strides[i].stride != 0 && strides[i].stride < strides[i].least)
            return mni_fail(err, MN_INVALID_ARGUMENT,
                            "%s is %u floats, less than the %u floats of a vertex "
                            "(0 means %u)",
                            strides[i].name, strides[i].stride, strides[i].least, strides[i].least);

    s->count = job->vertex_count;
    s->influences = job->influence_count;
    s->joints = job->joints;
    s->weights = job->weights;
    s->palette = job->palette;
    s->palette_count = job->palette_count;
    s->positions = job->positions;
    s->position_stride = job->position_stride ? job->position_stride : 3;
    s->normals = job->normals;
    s->normal_stride = job->normal_stride ? job->normal_stride : 3;
    s->tangents = job->tangents;
    s->tangent_stride = job->tangent_stride ? job->tangent_stride : 4;
    s->out_positions = job->out_positions;
    s->out_position_stride = job->out_position_stride ? job->out_position_stride : 3;
    s->out_normals = job->normals ? job->out_normals : NULL;
    s->out_normal_stride = job->out_normal_stride ? job->out_normal_stride : 3;
    s->out_tangents = job->tangents ? job->out_tangents : NULL;
    s->out_tangent_stride = job->out_tangent_stride ? job->out_tangent_stride : 4;
    return MN_OK;
}

mn_status mni_skin_check_job(const mn_skin_job *job, mn_error *err, mn_skin_streams *s)
{
    return check_job(job, err, s);
}

mn_status mn_skin_job_validate(const mn_skin_job *job, mn_error *err)
{
    mn_skin_streams s;
    mn_status st = check_job(job, err, &s);
    if (st != MN_OK)
        return st;
    size_t n = (size_t)job->vertex_count * job->influence_count;
    for (size_t i = 0; i < n; i++)
        if (job->joints[i] >= job->palette_count)
            return mni_fail(err, MN_INDEX_RANGE,
                            "joints[%zu] (vertex %zu, influence %zu) is %u, not below "
                            "palette_count %u",
                            i, i / job->influence_count, i % job->influence_count,
                            (unsigned)job->joints[i], job->palette_count);
    mni_error_clear(err);
    return MN_OK;
}

/* ---- where the outputs go ---------------------------------------------------- */

/* The vertex (0..3) at which a packed 3-float stream reaches a 16-byte boundary. */
static size_t aligned_vertex(const float *out)
{
    return (size_t)(((uintptr_t)out & 15u) / 4u);
}

/*
 * Choose the streamed outputs (see mn_skin_store in skin.h): only when the
 * caller asks.  The default stores through the cache at every size: on
 * bench_skin, at 10k, 100k, 1M and 4M vertices, each SIMD kernel streaming
 * took 1.03-1.07x its time with ordinary stores (1.16x at 1M on another
 * machine), so no size threshold paid (docs/animation.md).  The kernels
 * stream a packed 3-float output as aligned 16-byte stores of four vertices
 * at a time, from stream_first on; a second packed output streams only when
 * it reaches its boundary at the same vertex.  A tangent output streams
 * vertex by vertex when every vertex starts on a 16-byte boundary.
 */
static void plan_streaming(mn_skin_streams *s, mn_skin_store store)
{
    size_t bytes = s->count * (12u + (s->normals ? 12u : 0u) + (s->tangents ? 16u : 0u));
    /* the inputs are at least as large as the outputs, plus the influences */
    s->prefetch = bytes + s->count * s->influences * 6u >= MN_SKIN_STREAM_MIN_BYTES;
    if (store != MN_SKIN_STORE_STREAM)
        return;
    /* float streams are 4-byte aligned, so a packed one reaches 16 bytes within 4 vertices */
    bool first_set = false;
    if (s->out_position_stride == 3 && ((uintptr_t)s->out_positions & 3u) == 0) {
        s->stream_positions = true;
        s->stream_first = aligned_vertex(s->out_positions);
        first_set = true;
    }
    if (s->out_normals && s->out_normal_stride == 3 && ((uintptr_t)s->out_normals & 3u) == 0) {
        size_t first = aligned_vertex(s->out_normals);
        if (!first_set || first == s->stream_first) {
            s->stream_normals = true;
            s->stream_first = first;
        }
    }
    s->stream_tangents = s->out_tangents && s->out_tangent_stride % 4 == 0 &&
                         ((uintptr_t)s->out_tangents & 15u) == 0;
}

/* A skinning kernel (deform/internal.h). */
typedef void skin_fn(const mn_skin_streams *s);

/*
 * The one dispatch of skinning: the kernel of a level mni_simd_resolve gave
 * (skinning has one at every level, each built only where its
 * instruction set is).
 */
static skin_fn *skin_kernel(mn_simd_level level)
{
    switch (level) {
#if MN_WITH_AVX2
    case MN_SIMD_AVX2_FMA:
        return mni_skin_avx2;
#endif
#if MN_WITH_WASM
    case MN_SIMD_SSE2: /* the web build's level: its own kernel, not SSE2 through emulation */
        return mni_skin_wasm;
#elif MN_WITH_SSE2
    case MN_SIMD_SSE2:
        return mni_skin_sse2;
#endif
#if MN_WITH_NEON
    case MN_SIMD_NEON:
        return mni_skin_neon;
#endif
    default:
        return mni_skin_scalar;
    }
}

mn_status mn_skin_run_with(const mn_skin_job *job, mn_simd_level level)
{
    mn_skin_streams s;
    mn_status st = check_job(job, NULL, &s);
    if (st != MN_OK || s.count == 0)
        return st;
    plan_streaming(&s, job->output_store);
    skin_kernel(mni_simd_resolve(level))(&s);
    return MN_OK;
}

mn_status mn_skin_run(const mn_skin_job *job)
{
    return mn_skin_run_with(job, MN_SIMD_BEST);
}
