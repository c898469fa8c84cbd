/*
 * Private to the library and its tests: the per-frame skeleton jobs with the
 * implementation named, so tests can check that the scalar reference and the
 * SIMD paths agree.  Not installed.
 */
#ifndef MN_ANIM_SKELETON_INTERNAL_H
#define MN_ANIM_SKELETON_INTERNAL_H

#include <marionette/skeleton.h>

typedef enum mn_skeleton_kernel {
    MN_SKELETON_KERNEL_AUTO = 0, /* what the public functions use: the best this CPU runs */
    MN_SKELETON_KERNEL_SCALAR,   /* the reference; always available */
    MN_SKELETON_KERNEL_SSE2,     /* x86 builds without MN_NO_SIMD; equal to SCALAR bit for bit */
    MN_SKELETON_KERNEL_AVX2      /* also needs AVX2 and FMA at run time; FMA rounding differs */
} mn_skeleton_kernel;

/* Whether `kernel` can run here (built in, and supported by this CPU). */
bool mni_skeleton_kernel_available(mn_skeleton_kernel kernel);

/* mn_skeleton_local_to_world / mn_skeleton_palette through `kernel`; false (nothing written) when unavailable. */
bool mni_skeleton_local_to_world_kernel(mn_skeleton_kernel kernel, const mn_skeleton *skeleton,
                                       const mn_pose *pose, uint32_t from, float *worlds);
bool mni_skeleton_palette_kernel(mn_skeleton_kernel kernel, const mn_skeleton *skeleton,
                                const float *worlds, float *palette);

#endif /* MN_ANIM_SKELETON_INTERNAL_H */
