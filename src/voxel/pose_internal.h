/*
 * Posing a voxel rig, as the reader and the tests see it (voxel/pose.c):
 * each joint worked out once into a plan of its motion in its part's pivot
 * frame, and posing with a chosen kernel.
 */
#ifndef MN_VOXEL_POSE_INTERNAL_H
#define MN_VOXEL_POSE_INTERNAL_H

#include <marionette/voxel/rig.h>

#include "core/core.h"

/* What a joint's plan holds besides its matrices. */
#define VOXEL_PLAN_ROTATES 1u   /* a rotation joint: R = A + sin·K + (1 - cos)·N */
#define VOXEL_PLAN_TURNS 2u     /* R may differ from the identity (a rotation joint or a mount) */
#define VOXEL_PLAN_MOVES 4u     /* d may differ from zero (a translation joint or a mount) */

/*
 * A joint J = Mount · Driven seen from its part's pivot, J' = T(-pivot)·J·T(pivot),
 * as a function of its (clamped) value v:
 *
 *     J'(v) = T(d) · R,   d = off + v_t·dir,   R = A + sin(v_r)·K + (1 - cos(v_r))·N
 *
 * (v_r = v, v_t = 0 for a rotation joint; v_r = 0, v_t = v for a translation
 * joint).  A is the mount's rotation R(orient) (the identity without a
 * mount); for a rotation joint K = A·[axis]x and N = A·(axis·axisT - I)
 * (Rodrigues), dir = 0 and off the mount's offset; for a translation joint
 * K = N = 0 and dir = A·axis.  A joint's plan is these numbers in rows:
 * A, K and N column-major (9 each), then off and dir.
 */
#define VOXEL_PLAN_A 0
#define VOXEL_PLAN_K 9
#define VOXEL_PLAN_N 18
#define VOXEL_PLAN_OFF 27
#define VOXEL_PLAN_DIR 30
#define VOXEL_PLAN_ROWS 33

/* The joint's plan and flags (its mount_affine used when present, else worked out: the same bits). */
void mni_voxel_joint_plan_make(const mn_voxel_joint *joint, double plan[VOXEL_PLAN_ROWS],
                           uint32_t *flags);

/* Every joint's plan, a row a number: joint j's number e at rows[e·stride + j]. */
typedef struct voxel_pose_plan {
    const mn_voxel_joint *joints;   /* what was planned: used only for these very joints */
    uint32_t joint_count;
    uint32_t stride;                /* joint_count rounded up to a multiple of 4 */
    const double *rows;             /* VOXEL_PLAN_ROWS × stride, 32-byte aligned, zero padded */
    const uint8_t *flags;           /* VOXEL_PLAN_* of each joint */
    const float *rest, *min, *max;  /* each joint's, joint_count apiece */
} voxel_pose_plan;

/* Plan every joint of the rig into the arena.  False: out of memory. */
bool mni_voxel_pose_plan_build(mn_arena *arena, const mn_voxel_rig *rig, voxel_pose_plan *out);

/*
 * The plan of a rig read by mn_voxel_rig_read_* (voxel/rig_read.c), or NULL
 * (a rig built by hand, or one whose joints were replaced): posing then plans
 * each joint as it goes, to the same bits.
 */
const voxel_pose_plan *mni_voxel_rig_pose_plan(const mn_voxel_rig *rig);

/*
 * The parts of a rig read by mn_voxel_rig_read_* by depth (roots first, each
 * depth in part_order's order), or NULL (a rig built by hand, or one whose
 * parts or part_order were replaced): posing then follows part_order.
 */
const uint32_t *mni_voxel_rig_level_order(const mn_voxel_rig *rig);

/*
 * mn_voxel_pose with the kernel for `level` (mn_simd_level): the AVX2 one
 * where mni_simd_resolve(level) is MN_SIMD_AVX2_FMA (MN_SIMD_AVX2_FMA or
 * MN_SIMD_BEST on a CPU and build that have it), else the portable kernel, in
 * plain double.  The two agree within a few float roundings
 * (tests/test_voxel_pose.c).
 */
mn_status mni_voxel_pose_at(const mn_voxel_rig *rig, const mn_voxel_pose_input *input,
                        float *out_worlds, float *out_values, mn_simd_level level);

#endif
