/*
 * Private to src/deform: the skinning job with its defaults filled in (what
 * every kernel receives), the kernels themselves, and the morph helpers the
 * prepared mesh uses.  Not installed.
 */
#ifndef MN_DEFORM_INTERNAL_H
#define MN_DEFORM_INTERNAL_H

#include <marionette/skin.h>

#include <stddef.h>

/* The x86-64 kernels (SSE2 is part of the x86-64 baseline; AVX2+FMA is chosen at run time). */
#if defined(__x86_64__) && !defined(MN_NO_SIMD)
#define MN_SKIN_X86 1
#else
#define MN_SKIN_X86 0
#endif

/*
 * The AArch64 kernel (Advanced SIMD is part of every AArch64 CPU, so it needs
 * no run-time check; 32-bit ARM runs the reference, see skin_neon.c).
 */
#if defined(__aarch64__) && defined(__ARM_NEON) && !defined(MN_NO_SIMD)
#define MN_SKIN_NEON 1
#else
#define MN_SKIN_NEON 0
#endif

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

/* The reference: plain C, always built, the meaning of every other kernel. */
void mni_skin_scalar(const mn_skin_streams *s);

#if MN_SKIN_X86
void mni_skin_sse2(const mn_skin_streams *s);
/* Call only when the CPU has AVX2 and FMA (mni_simd_resolve gave MN_SIMD_AVX2_FMA). */
void mni_skin_avx2(const mn_skin_streams *s);
#endif

#if MN_SKIN_NEON
void mn_skin_neon(const mn_skin_streams *s);
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

#endif /* MN_DEFORM_INTERNAL_H */
