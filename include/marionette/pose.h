/*
 * marionette/pose.h — a pose: local translation, rotation and scale per joint.
 *
 * Structure of arrays: all translations together (3 floats a joint), all
 * rotations (4, x y z w), all scales (3).  Every function that fills a pose
 * fills a caller-owned one and allocates nothing.
 *
 * SPACES
 *   Joint j of a pose means something only beside the hierarchy it was made
 *   for: node j of a model, or joint j of a skeleton (whose joints are the
 *   skin's joints and their ancestors, re-ordered parents first, so joint j
 *   is rarely node j).  A clip records which of these its targets index
 *   (mn_clip_space), and a pose may record which it holds (its `space`):
 *
 *     MN_SPACE_NODES   node j of a model (mn_space_of_nodes in clip.h; a
 *                      mixer's pose; mn_clip_from_gltf without a target map)
 *     MN_SPACE_JOINTS  joint j of a skeleton (mn_skeleton.space; its rest
 *                      pose; mn_clip_from_gltf_skeleton)
 *     MN_SPACE_UNBOUND nothing said: a pose from mn_pose_create or
 *                      mn_pose_init, a clip from mn_clip_create
 *
 *   A space's id is a hash of the hierarchy's structure (node count,
 *   parents and names; for joints, also the node each joint is), so a
 *   model read twice, or two skeletons of one skin, are one space.
 *   Sampling, blend trees, state machines and the mixer refuse a clip bound
 *   to one space on a pose of another (MN_INVALID_ARGUMENT, naming both):
 *   a bound clip fits a bound pose of the same kind, count and id, or an
 *   unbound pose of the same joint count.  An unbound clip fits every pose.
 *   Bind a pose with mn_pose_bind (or copy a bound pose into it whole).
 */
#ifndef MARIONETTE_POSE_H
#define MARIONETTE_POSE_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a pose's joints (or a clip's targets) index.  See SPACES above. */
typedef enum mn_space_kind {
    MN_SPACE_UNBOUND = 0,        /* not recorded: fits any space of its count */
    MN_SPACE_NODES,              /* the nodes of a model, node order */
    MN_SPACE_JOINTS              /* the joints of a skeleton, joint order */
} mn_space_kind;

/* A space: its kind, how many nodes or joints it has, and which hierarchy it is. */
typedef struct mn_space {
    mn_space_kind kind;
    uint32_t count;              /* nodes or joints (0 when unbound) */
    uint64_t id;                 /* hash of the hierarchy's structure (0 when unbound) */
} mn_space;

typedef struct mn_pose {
    uint32_t joint_count;
    float *translations;         /* 3 × joint_count */
    float *rotations;            /* 4 × joint_count, x y z w */
    float *scales;               /* 3 × joint_count */
    mn_space space;              /* what joint j indexes; unbound (zero) unless mn_pose_bind
                                    or a whole copy of a bound pose said so */
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
 * bytes, aligned to 16.  The pose is set to identity (t 0, r 0 0 0 1, s 1)
 * and is unbound (mn_pose_bind gives it a space).
 * Allocates nothing; the pose lives as long as the storage.
 */
MN_API void mn_pose_init(mn_pose *pose, uint32_t joint_count, void *storage);

/*
 * A pose with its own storage (one allocation through `allocator`, NULL for
 * malloc), set to identity, unbound.  Free with mn_pose_free.
 * Errors: MN_OUT_OF_MEMORY, MN_OVERFLOW for an absurd joint_count.
 */
MN_API mn_status mn_pose_create(mn_pose *pose, uint32_t joint_count, const mn_allocator *allocator,
                                mn_error *err);

/* Free what mn_pose_create allocated and zero the pose.  NULL and init'ed poses are fine. */
MN_API void mn_pose_free(mn_pose *pose);

/* Every joint to identity. */
MN_API void mn_pose_set_identity(mn_pose *pose);

/*
 * dst = src for min(dst, src) joints.  dst may be src.  An unbound dst of
 * src's joint count takes src's space too (it now holds a pose of it); a
 * bound dst keeps its own.
 */
MN_API void mn_pose_copy(mn_pose *dst, const mn_pose *src);

/*
 * Record that `pose` holds `space` (a zeroed space unbinds it).  Nothing else
 * changes.  Errors (the pose unchanged): MN_INVALID_ARGUMENT (NULL pose, an
 * unknown kind), MN_COUNT_MISMATCH (space.count is not pose->joint_count).
 */
MN_API mn_status mn_pose_bind(mn_pose *pose, mn_space space, mn_error *err);

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
