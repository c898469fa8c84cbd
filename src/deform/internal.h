/*
 * Private to src/deform: the skinning job with its defaults filled in (what
 * every kernel receives), the kernels themselves, and the morph helpers the
 * prepared mesh uses.  Not installed.
 */
#ifndef MN_DEFORM_INTERNAL_H
#define MN_DEFORM_INTERNAL_H

#include <marionette/skin.h>

#include "core/simd.h"

#include <stddef.h>

/*
 * A checked job, strides resolved to floats (never 0).  normals / tangents
 * are NULL when they are not skinned, and then their outputs are NULL too.
 * Every kernel reads all of a vertex's inputs before it writes any of that
 * vertex's outputs, so an output may be its own input (in place).
 */
typedef struct mn_skin_streams {
    size_t count;
    size_t influences;
    const uint16_t *joints;
    const float *weights;
    const float *palette;
    size_t palette_count; /* matrices in palette (the job's palette_count) */
    const float *positions;
    size_t position_stride;
    const float *normals;
    size_t normal_stride;
    const float *tangents;
    size_t tangent_stride;
    float *out_positions;
    size_t out_position_stride;
    float *out_normals;
    size_t out_normal_stride;
    float *out_tangents;
    size_t out_tangent_stride;
    /*
     * Non-temporal stores, for the SIMD kernels (the scalar reference ignores
     * them): which outputs stream, and the vertex (0..3) from which the
     * streamed 3-float outputs sit on 16-byte boundaries, so that each group
     * of four vertices from there is three aligned 16-byte stores.  A kernel
     * that streams anything ends with a store fence.
     */
    bool stream_positions, stream_normals, stream_tangents;
    size_t stream_first;
    /*
     * A large call (inputs of MN_SKIN_STREAM_MIN_BYTES or more): the SIMD
     * kernels prefetch each group's inputs MN_SKIN_PREFETCH_AHEAD vertices
     * ahead.  In cache the prefetches only cost issue slots, so small calls
     * go without.
     */
    bool prefetch;
} mn_skin_streams;

/*
 * How far ahead the SIMD kernels prefetch, in vertices: 128 is about 1.5 KB
 * of positions and 4 KB of weights ahead; measured on bench_skin at 1M
 * vertices (32 helped less, 512 no more).
 */
#define MN_SKIN_PREFETCH_AHEAD 128u

/*
 * The layout of a call, which every kernel specialises on (skin_kernel.h):
 * strides in floats, which optional streams are skinned, influences a
 * vertex.  With `packed` (every stride the default, the glTF layout) the
 * strides are compile-time constants, which frees registers in the hot loop
 * and allows stores that cover several vertices.
 */
typedef struct mn_skin_layout {
    bool packed, has_n, has_t;
    size_t ic;
} mn_skin_layout;

/* A stride of a call with layout L: the default `dflt` when packed, else s->field. */
#define MN_SKIN_STRIDE(L, s, field, dflt) ((L).packed ? (size_t)(dflt) : (s)->field)

/* Every stream at its default stride: positions and normals 3 floats, tangents 4. */
static inline bool mni_skin_packed(const mn_skin_streams *s)
{
    return s->position_stride == 3 && s->normal_stride == 3 && s->tangent_stride == 4 &&
           s->out_position_stride == 3 && s->out_normal_stride == 3 && s->out_tangent_stride == 4;
}

/*
 * The kernels, one a level (core/simd.h): the reference (skin.c: plain C,
 * always built, the meaning of every other kernel), SSE2 (skin_sse2.c: the
 * reference's positions bit for bit, directions within 3e-7), AVX2+FMA
 * (skin_avx2.c) and NEON (skin_neon.c), the last two within float rounding
 * of it.  skin.c's dispatch calls one only
 * at a level mni_simd_resolve gave.
 */
void mni_skin_scalar(const mn_skin_streams *s);
#if MN_WITH_SSE2
void mni_skin_sse2(const mn_skin_streams *s);
#endif
#if MN_WITH_AVX2
void mni_skin_avx2(const mn_skin_streams *s);
#endif
#if MN_WITH_NEON
void mni_skin_neon(const mn_skin_streams *s);
#endif
#if MN_WITH_WASM
/* WebAssembly SIMD (skin_wasm.c): the reference's positions bit for bit, directions within 2e-7;
   the dispatch runs it at MN_SIMD_SSE2 in the web build. */
void mni_skin_wasm(const mn_skin_streams *s);
#endif

/*
 * out[v] = base[v] + Σ weights[i] × deltas[i][v] for the first 3 floats of
 * each vertex; base and out have their own strides (floats, ≥ 3), deltas are
 * packed 3 floats a vertex.  The copy_rest floats after the third (1 for a
 * tangent's w) are copied from base.  Zero weights and NULL deltas are
 * skipped.  out may equal base (with the same stride), else must not overlap it.
 */
void mni_morph3_strided(float *out, size_t out_stride, const float *base, size_t base_stride,
                        size_t count, const float *const *deltas, const float *weights,
                        size_t target_count, size_t copy_rest);

/* v = v / |v| for the first 3 floats of each of count vectors stride floats apart (zero stays zero). */
void mni_normalize3_strided(float *v, size_t stride, size_t count);

/* ---- dual-quaternion skinning (dual_quat.c) ------------------------------------ */

/*
 * The checks of mn_skin_run, and its job with the defaults filled in, for the
 * dual-quaternion entry points (skin.c).
 */
mn_status mni_skin_check_job(const mn_skin_job *job, mn_error *err, mn_skin_streams *s);

/*
 * A checked dual-quaternion call: s.palette holds MN_SKIN_DQ_FLOATS floats a
 * joint.  When every joint of the call has the same scale, blend_scale is
 * false and that scale, `scale`, applies to every vertex as it is (the blend
 * of equal scales by weights that sum to 1 is that scale, up to rounding);
 * otherwise each vertex blends its joints' scales.  When no pair of the
 * call's joints has a dot product (in the kernels' order) with its sign bit
 * set, no_flips is true and the kernels skip the hemisphere tests: they
 * would flip nothing, so the vertices are the same bits.  The check costs
 * palette_count² / 2 dot products, so it is made only where that is small
 * beside the vertices' work.
 */
typedef struct mn_dq_call {
    mn_skin_streams s;
    bool blend_scale;
    float scale;
    bool no_flips;   /* no two joints are in opposite hemispheres: no hemisphere test can flip */
} mn_dq_call;

/*
 * The kernels, one a level: the reference (dual_quat.c), SSE2 (the
 * reference's bits) and AVX2+FMA (within 4e-6 relative), the SIMD ones for
 * influence counts that are a multiple of 4 only.  NEON has none: AArch64
 * runs the reference.
 */
void mni_dq_skin_scalar(const mn_dq_call *c);
/*
 * The SSE2 kernel is built for x86 only: through Emscripten's SSE headers,
 * Debian's clang 14 WebAssembly backend spends minutes on it (over 60 s at
 * -O1 against about 1 s for the other kernels), so the web build runs the
 * reference, which gives the same bits.
 */
#if MN_WITH_SSE2 && !defined(__EMSCRIPTEN__)
#define MN_DQ_WITH_SSE2 1
#else
#define MN_DQ_WITH_SSE2 0
#endif
#if MN_DQ_WITH_SSE2
void mni_dq_skin_sse2(const mn_dq_call *c);
#endif
#if MN_WITH_AVX2
void mni_dq_skin_avx2(const mn_dq_call *c);
#endif

/* mn_skin_dq_run_with without the job's checks: `c` is filled by mni_dq_call_make. */
void mni_dq_skin(const mn_dq_call *c, mn_simd_level level);

/* Check `job` (palette ignored) and fill `c` for dual_quats. */
mn_status mni_dq_call_make(const mn_skin_job *job, const float *dual_quats, mn_error *err,
                           mn_dq_call *c);

#endif /* MN_DEFORM_INTERNAL_H */
