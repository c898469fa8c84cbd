/*
 * Private to the library and its tests: the per-frame skeleton jobs with the
 * implementation named, so tests can check that the scalar reference and the
 * SIMD paths agree.  Not installed.
 */
#ifndef MN_ANIM_SKELETON_INTERNAL_H
#define MN_ANIM_SKELETON_INTERNAL_H

#include <marionette/skeleton.h>

/*
 * The kernels by level (mn_simd_level): MN_SIMD_SCALAR the reference, always
 * there; MN_SIMD_SSE2 (x86-64 builds without MN_NO_SIMD; equal to the
 * reference bit for bit); MN_SIMD_AVX2_FMA (also needs AVX2 and FMA at run
 * time; FMA rounding differs); MN_SIMD_BEST what the public functions use,
 * the best this CPU runs.  Unlike the public jobs, a level asked for here
 * does not fall back: the tests name the kernel they check.
 */

/* Whether the kernel of `level` can run here (built in, and supported by this CPU). */
bool mni_skeleton_kernel_available(mn_simd_level level);

/* mn_skeleton_local_to_world / mn_skeleton_palette through that kernel; false (nothing written) when unavailable. */
bool mni_skeleton_local_to_world_kernel(mn_simd_level level, const mn_skeleton *skeleton,
                                        const mn_pose *pose, uint32_t from, float *worlds);
bool mni_skeleton_palette_kernel(mn_simd_level level, const mn_skeleton *skeleton,
                                 const float *worlds, float *palette);

/* The id of the node space (mn_space_of_nodes) of the model the skeleton was made from. */
uint64_t mni_skeleton_nodes_id(const mn_skeleton *skeleton);

#endif /* MN_ANIM_SKELETON_INTERNAL_H */
