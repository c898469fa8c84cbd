/*
 * marionette/ik.h — inverse kinematics: two-bone IK and aim (look-at) chains.
 *
 * Both solvers follow ozz-animation's design: they read model-space matrices
 * (mn_skeleton_local_to_world's output) and write *corrections*, unit
 * quaternions the caller applies to local rotations as r ← normalize(r·c)
 * (mn_ik_apply_correction).  They touch no pose and no skeleton, allocate
 * nothing and are pure functions of their inputs, so they run per character
 * per frame:
 *
 *     mn_skeleton_local_to_world(sk, &pose, 0, worlds);
 *     mn_ik_two_bone job;
 *     mn_ik_two_bone_init(&job);                     // soften 1, weight 1, hinge +Z
 *     job.start_world = worlds + 16 * hip;  job.mid_world = worlds + 16 * knee;
 *     job.end_world = worlds + 16 * ankle;
 *     memcpy(job.target, foot_target, sizeof job.target);
 *     memcpy(job.pole, knee_forward, sizeof job.pole);
 *     mn_ik_two_bone_result res;
 *     if (mn_ik_two_bone_solve(&job, &res, &err) == MN_OK) {
 *         mn_ik_apply_correction(&pose, hip, res.start_correction);
 *         mn_ik_apply_correction(&pose, knee, res.mid_correction);
 *     }
 *
 * Both jobs follow one rule: call the job's _init first (mn_ik_two_bone_init,
 * mn_ik_aim_chain_init), which sets every field to a usable default (weight 1
 * among them), then fill in what the solve needs.  A zeroed struct is not
 * the default: its weight 0 would make either solver return identity
 * corrections without complaint.
 *
 * The end joint needs no correction (its local rotation is kept; only its
 * position moves with the chain).  Arithmetic is done in double and the
 * results rounded to float.  The rules and their reasons are stated with
 * each function below; docs/animation.md walks through them.
 */
#ifndef MARIONETTE_IK_H
#define MARIONETTE_IK_H

#include "core.h"
#include "pose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- two-bone IK ------------------------------------------------------- */

/*
 * Inputs of one two-bone solve.  Call mn_ik_two_bone_init first: a zeroed
 * struct is NOT the default (soften 0 would soften everything, weight 0
 * would do nothing, and a zero mid_axis is an error).
 */
typedef struct mn_ik_two_bone {
    /* Model-space matrices (16 floats, column-major, affine) of the start
       (hip/shoulder), mid (knee/elbow) and end (ankle/wrist) joints.  They
       need not be parent and child, only a chain in that order. */
    const float *start_world;
    const float *mid_world;
    const float *end_world;
    float target[3];    /* model-space point the end joint should reach */
    /* Model-space direction: the mid joint ends in the half-plane spanned by
       start→target and the pole.  A zero pole, or one parallel to
       start→target, leaves the plane where the chain already bends.  Default +Y. */
    float pole[3];
    /* The hinge in mid-local space, unit length (within 1e-3), about which a
       positive rotation opens the joint.  Default +Z.  The start and end
       joints must lie in the plane through the mid joint normal to it (a
       knee bends about one axis), or the end falls short of the target.
       Rigs are not always exact: CesiumMan's knees turn about local +Y but
       its bones leave that plane by a degree (2 mm short); the normal of the
       actual bend, taken while the knee is bent, is exact (examples/motion.c). */
    float mid_axis[3];
    float twist;        /* radians about start→target, applied after the pole.  Default 0. */
    /* Softening, clamped to [0, 1]: past soften × (chain length) the target
       is pulled in along a smooth curve so a leg never snaps straight.
       1 (the default) means none. */
    float soften;
    /* Clamped to [0, 1] (NaN is MN_NOT_FINITE); ≤ 0 gives identity
       corrections (and reached false), otherwise each correction is scaled
       from identity.  Default 1. */
    float weight;
} mn_ik_two_bone;

/* What a two-bone solve writes. */
typedef struct mn_ik_two_bone_result {
    float start_correction[4];   /* unit quaternion, x y z w, for the start joint's local rotation */
    float mid_correction[4];     /* unit quaternion for the mid joint's local rotation */
    /* True when the end joint reaches the target: the (unsoftened) distance
       start→target is ≤ soften × chain length and > |l1 − l2|, and weight ≥ 1. */
    bool reached;
} mn_ik_two_bone_result;

/* Set the defaults: matrices NULL, target 0, pole +Y, mid_axis +Z, twist 0, soften 1, weight 1. */
MN_API void mn_ik_two_bone_init(mn_ik_two_bone *job);

/*
 * Solve: the corrections that bring the end joint onto the target (or as
 * close as the chain reaches, straightened toward it), with the chain's plane
 * turned toward the pole.  A target at the start joint (closer than 1e-6 ×
 * chain length) gives identity corrections and reached false.
 * Outputs: *out (written only on MN_OK).  Allocates nothing.
 * Errors: MN_INVALID_ARGUMENT (NULL job, out or matrix; a zero-length bone;
 * mid_axis off unit by more than 1e-3; a singular matrix), MN_NOT_FINITE (a
 * NaN or infinite input).
 */
MN_API mn_status mn_ik_two_bone_solve(const mn_ik_two_bone *job, mn_ik_two_bone_result *out,
                                      mn_error *err);

/*
 * Solve `count` independent jobs (both legs of a character, many
 * characters), each exactly as mn_ik_two_bone_solve would: out[k] gets the
 * bits a lone solve of jobs[k] gives.  Faster than one call a job: the
 * jobs are solved a few side by side, whose chains of square roots and
 * divisions then overlap.  Outputs: out[0 .. count) (count 0 does nothing).
 * Allocates nothing.  Errors: as mn_ik_two_bone_solve's, the message led by
 * "jobs[k]: " for the first job that fails; the results of the jobs before
 * it may have been written, its own and those after it are not.
 * MN_INVALID_ARGUMENT also for NULL jobs or out with count > 0.
 */
MN_API mn_status mn_ik_two_bone_solve_batch(const mn_ik_two_bone *jobs, uint32_t count,
                                            mn_ik_two_bone_result *out, mn_error *err);

/* ---- aim / look-at chains ----------------------------------------------- */

/*
 * Inputs of an aim chain solve: turn a chain (head, neck, spine…, tip first)
 * so that a ray fixed to the tip — from `offset` along `forward`, both in
 * tip-local space — passes through the target.  Joint k's correction is the
 * rotation that aims the ray (as moved by the corrections of joints 0..k−1)
 * from joint k, scaled from identity by weight × joint_weights[k] and capped
 * at limits[k] radians (a cone about the animated forward: the axis is kept).
 * Call mn_ik_aim_chain_init first, then fill in worlds, joints, target and
 * forward: a zeroed struct is NOT the default (its weight 0 would do nothing).
 */
typedef struct mn_ik_aim_chain {
    const float *worlds;         /* model-space matrices, 16 floats per joint, indexed by joint */
    uint32_t world_count;        /* matrices in worlds: every joints[k] must be below it */
    const uint32_t *joints;      /* joint_count indices into worlds, tip first; each joint's
                                    matrix must be an ancestor's of the one before (or the same
                                    rigid frame), as in a skeleton */
    uint32_t joint_count;        /* ≥ 1 */
    float target[3];             /* model-space point to aim at */
    float forward[3];            /* tip-local aim direction; required (zero is an error), normalised here */
    float offset[3];             /* tip-local origin of the ray (eyes in front of the head joint); zero is the joint */
    /* Twist control, off when use_up is false (then each correction is the
       shortest arc): `up` in tip-local space is turned into the plane of the
       ray and the model-space `pole`. */
    bool use_up;
    float up[3];
    float pole[3];
    /* Overall weight, clamped to [0, 1] as the two-bone weight is (NaN is
       MN_NOT_FINITE): ≤ 0 gives identity corrections.  Default 1. */
    float weight;
    /* joint_count weights, used as given: each must lie in [0, 1] (else
       MN_INVALID_ARGUMENT naming it).  NULL (the default): all 1. */
    const float *joint_weights;
    const float *limits;         /* joint_count maximum correction angles (radians, ≥ 0); NULL: none */
} mn_ik_aim_chain;

/*
 * Set the defaults: worlds, joints, joint_weights and limits NULL, counts 0,
 * target, forward, offset, up and pole 0, use_up false, weight 1.  forward
 * has no default (animation-decisions §14: a character's facing axis is the
 * caller's to say), so a solve refuses the job until it is set.
 */
MN_API void mn_ik_aim_chain_init(mn_ik_aim_chain *job);

/*
 * Solve: corrections[4k..4k+3] is joint joints[k]'s correction (unit
 * quaternion, applied as r ← normalize(r·c)).  *reached (may be NULL) is
 * true when the corrected ray passes within 1e-3 rad of the target.  A
 * target the ray cannot pass through (inside the sphere the offset sweeps
 * about a joint) gives that joint an identity correction.
 * Outputs: corrections (joint_count × 4 floats) and *reached, written only on
 * MN_OK.  Allocates nothing.
 * Errors: MN_INVALID_ARGUMENT (NULL job, worlds, joints or corrections;
 * joint_count 0; a zero forward or, with use_up, a zero up; a joint_weights
 * entry outside [0, 1]; a negative or NaN limit; a singular matrix),
 * MN_INDEX_RANGE (a joint index ≥ world_count), MN_NOT_FINITE (a NaN or
 * infinite target, forward, offset, up, pole, weight, joint weight or
 * matrix).  The overall weight is clamped, never refused for its range.
 */
MN_API mn_status mn_ik_aim_chain_solve(const mn_ik_aim_chain *job, float *corrections,
                                       bool *reached, mn_error *err);

/* ---- applying ------------------------------------------------------------ */

/*
 * r ← normalize(r·c) for one joint's local rotation: how a correction from
 * either solver is applied.  A joint outside the pose is ignored.
 */
MN_API void mn_ik_apply_correction(mn_pose *pose, uint32_t joint, const float correction[4]);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_IK_H */
