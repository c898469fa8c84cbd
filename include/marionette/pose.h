/*
 * marionette/pose.h — a pose: local translation, rotation and scale per joint.
 *
 * Structure of arrays: all translations together (3 floats a joint), all
 * rotations (4, x y z w), all scales (3).  A pose does not know its skeleton;
 * joint j of a pose is joint j of whatever skeleton (or node list) the caller
 * pairs it with.  Every function that fills a pose fills a caller-owned one
 * and allocates nothing.
 */
#ifndef MARIONETTE_POSE_H
#define MARIONETTE_POSE_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mn_pose {
    uint32_t joint_count;
    float *translations;         /* 3 × joint_count */
    float *rotations;            /* 4 × joint_count, x y z w */
    float *scales;               /* 3 × joint_count */
    /* Owner of the arrays when made by mn_pose_create; zero when the caller
       supplied storage (mn_pose_init).  Not for callers to touch. */
    void *block_;
    size_t block_size_;
    mn_allocator allocator_;
} mn_pose;

/* Bytes of storage mn_pose_init needs for joint_count joints (arrays 16-byte aligned within it). */
MN_API size_t mn_pose_storage_size(uint32_t joint_count);

/*
 * Lay a pose over caller storage of at least mn_pose_storage_size(joint_count)
 * bytes, aligned to 16.  The pose is set to identity (t 0, r 0 0 0 1, s 1).
 * Allocates nothing; the pose lives as long as the storage.
 */
MN_API void mn_pose_init(mn_pose *pose, uint32_t joint_count, void *storage);

/*
 * A pose with its own storage (one allocation through `allocator`, NULL for
 * malloc), set to identity.  Free with mn_pose_free.
 * Errors: MN_OUT_OF_MEMORY, MN_OVERFLOW for an absurd joint_count.
 */
MN_API mn_status mn_pose_create(mn_pose *pose, uint32_t joint_count, const mn_allocator *allocator,
                                mn_error *err);

/* Free what mn_pose_create allocated and zero the pose.  NULL and init'ed poses are fine. */
MN_API void mn_pose_free(mn_pose *pose);

/* Every joint to identity. */
MN_API void mn_pose_set_identity(mn_pose *pose);

/* dst = src for min(dst, src) joints.  dst may be src. */
MN_API void mn_pose_copy(mn_pose *dst, const mn_pose *src);

/*
 * Write one joint's transform (what a solver drives, or a caller treating a
 * pose as data).  t, r and s are stored verbatim (r is not normalised); a
 * NULL component leaves that channel alone.
 * Errors (pose untouched): MN_INVALID_ARGUMENT (NULL pose), MN_INDEX_RANGE
 * (joint >= joint_count), MN_NOT_FINITE (a NaN or infinite component: err
 * names the joint, the channel and the component).  Allocation-free.
 */
MN_API mn_status mn_pose_set_joint(mn_pose *pose, uint32_t joint, const float t[3], const float r[4],
                                   const float s[3], mn_error *err);

/* Local matrices T·R·S of every joint: 16 floats a joint into out. */
MN_API void mn_pose_local_matrices(const mn_pose *pose, float *out);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_POSE_H */
