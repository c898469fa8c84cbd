/*
 * Private blending helpers shared by the pose blends (blend.c), the
 * additive maker (additive.c) and the blend tree (blend_tree.c,
 * blend_space.c).  Not installed.
 */
#ifndef MN_ANIM_BLEND_INTERNAL_H
#define MN_ANIM_BLEND_INTERNAL_H

#include <marionette/blend.h>
#include <marionette/blend_tree.h>

#include "core/internal.h"

/* x clamped to [0, 1]; NaN gives 0 (the comparisons are false for it). */
static inline float mn_clamp01(float x)
{
    return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f;
}

/*
 * out = blend of a toward b, joint j at weight clamp01(t)·clamp01(mask[j])
 * (mask NULL: clamp01(t) everywhere).  The three poses have the same joint
 * count (unchecked); out may be a or b.
 */
void mn_blend_poses(const mn_pose *a, const mn_pose *b, float t, const float *mask, mn_pose *out);

/* out = delta added over base, weights as mn_blend_poses.  Same counts, unchecked. */
void mn_add_poses(const mn_pose *base, const mn_pose *delta, float weight, const float *mask,
                  mn_pose *out);

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
 * triangles is NULL, the Delaunay rule of animation-decisions.md §12; find
 * the boundary edges.  path names the node for errors.
 * Errors: MN_INVALID_ARGUMENT (fewer than 3 points, duplicates, all
 * collinear, a zero-area triangle), MN_INDEX_RANGE (a triangle index),
 * MN_NOT_FINITE, MN_OUT_OF_MEMORY.
 */
mn_status mn_blend_space_build(mn_blend_space *space, mn_arena *arena, const float *points,
                               uint32_t point_count, const uint32_t *triangles,
                               uint32_t triangle_count, const char *path, mn_error *err);

/*
 * Barycentric weights of (x, y): up to three point indices and weights
 * (summing to 1, in triangle or edge order) in index[] and weight[];
 * returns how many (2 outside the hull, 3 inside).
 */
uint32_t mn_blend_space_weights(const mn_blend_space *space, double x, double y, uint32_t index[3],
                                double weight[3]);

#endif /* MN_ANIM_BLEND_INTERNAL_H */
