/*
 * Private blending helpers shared by the pose blends (blend.c), the
 * additive maker (additive.c) and the blend tree (blend_tree.c,
 * blend_space.c).  Not installed.
 */
#ifndef MN_ANIM_BLEND_INTERNAL_H
#define MN_ANIM_BLEND_INTERNAL_H

#include <marionette/blend.h>
#include <marionette/blend_tree.h>

#include "core/core.h"
#include "core/simd.h"

/* x clamped to [0, 1]; NaN gives 0 (the comparisons are false for it). */
static inline float mni_clamp01(float x)
{
    return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f;
}

/*
 * out = blend of a toward b, joint j at weight clamp01(t)·clamp01(mask[j])
 * (mask NULL: clamp01(t) everywhere).  The three poses have the same joint
 * count (unchecked); out may be a or b.
 */
void mni_blend_poses(const mn_pose *a, const mn_pose *b, float t, const float *mask, mn_pose *out);

/*
 * out = blend(blend(a, b, tb), c, tc) with no mask, bit for bit what the
 * two mni_blend_poses calls give, in one pass where the SIMD kernels take
 * the groups (the first blend's joints stay in registers): a set of three
 * in a blend tree.  Same counts, unchecked; out may be a or b, not c.
 */
void mni_blend_poses3(const mn_pose *a, const mn_pose *b, const mn_pose *c, float tb, float tc,
                      mn_pose *out);
void mni_blend_poses3_at(const mn_pose *a, const mn_pose *b, const mn_pose *c, float tb, float tc,
                         mn_pose *out, mn_simd_level level);

/*
 * out = the weighted sum of a, b and c normalised once (ozz's blending job;
 * a blend tree's `weighted_sum` sets): per joint the rotation
 * normalize((a·wa + b·±wb) + c·±wc), b and c each taken on a's side (negated
 * where its dot with a is negative), and translations and scales
 * (a + (b − a)·wb) + (c − a)·wc, so that equal inputs (bind translations,
 * unit scales) keep their bits.  The weights are the caller's, wa + wb + wc
 * = 1 (wa only weighs the rotations); two inputs: c = b and wc = 0.  No
 * series and no wide-arc case: every kernel level gives the scalar
 * reference's bits (each lane does its IEEE operations in its order).  Same
 * counts, unchecked; out may be a, b or c.
 */
void mni_blend_sum3(const mn_pose *a, const mn_pose *b, const mn_pose *c, float wa, float wb, float wc,
                    mn_pose *out);
void mni_blend_sum3_at(const mn_pose *a, const mn_pose *b, const mn_pose *c, float wa, float wb,
                       float wc, mn_pose *out, mn_simd_level level);

/* out = delta added over base, weights as mni_blend_poses.  Same counts, unchecked. */
void mni_add_poses(const mn_pose *base, const mn_pose *delta, float weight, const float *mask,
                   mn_pose *out);

/*
 * Either at a chosen kernel level (mn_simd_level, resolved here by
 * mni_simd_resolve): MN_SIMD_SCALAR is the scalar reference (what MN_NO_SIMD
 * builds use alone), MN_SIMD_SSE2 and MN_SIMD_AVX2_FMA the SIMD kernels
 * below; a level the CPU or build lacks falls back to the narrower kernels
 * and the reference, and NEON runs the reference.  mni_blend_poses and
 * mni_add_poses use MN_SIMD_BEST; tests/test_blend.c holds every level to
 * the reference.
 */
void mni_blend_poses_at(const mn_pose *a, const mn_pose *b, float t, const float *mask, mn_pose *out,
                        mn_simd_level level);
void mni_add_poses_at(const mn_pose *base, const mn_pose *delta, float weight, const float *mask,
                      mn_pose *out, mn_simd_level level);
#define mn_blend_poses_reference(a, b, t, mask, out) mni_blend_poses_at(a, b, t, mask, out, MN_SIMD_SCALAR)
#define mn_add_poses_reference(base, delta, w, mask, out) \
    mni_add_poses_at(base, delta, w, mask, out, MN_SIMD_SCALAR)

/* Slerp weights (blend.c): nlerp above this cos θ. */
#define MN_NEARLY_PARALLEL 0.9995f
/* The series sin(uθ)/sin θ has a fixed eight terms for cos θ >= 0.5; below, it is summed on. */
#define MN_SERIES_FIXED_TERMS 8
#define MN_SERIES_FIXED_FROM 0.5f
/* 1/(i(2i + 1)), i = 1.., the series' coefficients. */
extern const float mni_slerp_series_k[40];

/*
 * The SIMD kernels (core/simd.h, the convention): blend_kernel.h at four
 * lanes (blend_sse2.c) and eight (blend_avx2.c).  Each takes joints
 * [first, first + W·groups) of mni_blend_poses / mni_add_poses at weight
 * `layer` (already clamped), W its width, groups <= MN_BLEND_RUN / W, and
 * returns a bit per group (1 << g) left unwritten because one of its joints
 * needs the wide-arc series: the caller runs the reference on those joints.
 * mni_blend3_<isa> are mni_blend_poses3's, for 0 < tb, tc < 1 (blend_kernel.h):
 * a group they leave gets the two blends one after the other.
 * mni_blend_sum3_<isa> take groups of mni_blend_sum3's joints (any number) and leave none.
 */
#define MN_BLEND_RUN 64u /* joints one call takes at most */
#if MN_WITH_SSE2
uint32_t mni_blend_sse2(const mn_pose *a, const mn_pose *b, float layer, const float *mask,
                        mn_pose *out, uint32_t first, uint32_t groups);
uint32_t mni_add_sse2(const mn_pose *base, const mn_pose *delta, float layer, const float *mask,
                      mn_pose *out, uint32_t first, uint32_t groups);
uint32_t mni_blend3_sse2(const mn_pose *a, const mn_pose *b, const mn_pose *c, float tb, float tc,
                         mn_pose *out, uint32_t first, uint32_t groups);
void mni_blend_sum3_sse2(const mn_pose *a, const mn_pose *b, const mn_pose *c, float wa, float wb,
                         float wc, mn_pose *out, uint32_t first, uint32_t groups);
#endif
#if MN_WITH_AVX2
uint32_t mni_blend_avx2(const mn_pose *a, const mn_pose *b, float layer, const float *mask,
                        mn_pose *out, uint32_t first, uint32_t groups);
uint32_t mni_add_avx2(const mn_pose *base, const mn_pose *delta, float layer, const float *mask,
                      mn_pose *out, uint32_t first, uint32_t groups);
uint32_t mni_blend3_avx2(const mn_pose *a, const mn_pose *b, const mn_pose *c, float tb, float tc,
                         mn_pose *out, uint32_t first, uint32_t groups);
void mni_blend_sum3_avx2(const mn_pose *a, const mn_pose *b, const mn_pose *c, float wa, float wb,
                         float wc, mn_pose *out, uint32_t first, uint32_t groups);
#endif

/* ---- 2D blend spaces (blend_space.c) ---------------------------------------- */

/* A triangulated set of points in a plane, laid out at build. */
typedef struct mn_blend_space {
    uint32_t point_count;
    const double *points;        /* 2 per point, as given */
    uint32_t triangle_count;
    const uint32_t *triangles;   /* 3 per triangle, canonical order (given, or sorted triples) */
    uint32_t edge_count;
    const uint32_t *edges;       /* 2 per boundary edge, in the order the triangles meet them */
} mn_blend_space;

/*
 * Triangulate `points` (point_count pairs, copied into the arena) with the
 * caller's triangles (triangle_count triples, checked and copied) or, when
 * triangles is NULL, the Delaunay rule (blend_space.c); find
 * the boundary edges.  path names the node for errors.
 * Errors: MN_INVALID_ARGUMENT (fewer than 3 points, duplicates, all
 * collinear, a zero-area triangle), MN_INDEX_RANGE (a triangle index),
 * MN_NOT_FINITE, MN_OUT_OF_MEMORY.
 */
mn_status mni_blend_space_build(mn_blend_space *space, mn_arena *arena, const float *points,
                                uint32_t point_count, const uint32_t *triangles,
                                uint32_t triangle_count, const char *path, mn_error *err);

/*
 * Barycentric weights of (x, y): up to three point indices and weights
 * (summing to 1, in triangle or edge order) in index[] and weight[];
 * returns how many (2 outside the hull, 3 inside).
 */
uint32_t mni_blend_space_weights(const mn_blend_space *space, double x, double y, uint32_t index[3],
                                 double weight[3]);

#endif /* MN_ANIM_BLEND_INTERNAL_H */
