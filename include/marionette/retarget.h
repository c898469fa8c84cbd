/*
 * marionette/retarget.h — playing one skeleton's pose on another, by joint name.
 *
 * A map is built once between a source and a destination skeleton (it
 * allocates) and applied per frame (it does not):
 *
 *     static const mn_retarget_name_pair names[] = {
 *         {"torso_joint_1", "Skeleton_torso_joint_1"}, ...   // source name, destination name
 *     };
 *     mn_retarget_options o = {0};
 *     o.names = names;  o.name_count = 11;
 *     o.src_upper_leg = "leg_joint_L_1";  o.src_foot = "leg_joint_L_3";
 *     o.dst_upper_leg = "leg_joint_L_1";  o.dst_foot = "leg_joint_L_3";
 *     mn_retarget *map;
 *     mn_retarget_create(figure, man, &o, &map, &err);
 *     ... per frame:  mn_retarget_apply(map, &figure_pose, &man_pose, &err);
 *     mn_retarget_free(map);
 *
 * The rules:
 *  - Rotations transfer in model space, relative to each rest pose: with G a
 *    joint's rest model rotation and W its posed one, destination joint j
 *    matched to source joint s gets W_dst(j) = W_src(s)·G_src(s)⁻¹·G_dst(j),
 *    and its local rotation is W_dst(parent)⁻¹·W_dst(j) through the output
 *    being built.  Local deltas would twist limbs whenever the two rigs
 *    orient their joint axes differently, which real rigs do.
 *  - Only the retarget roots (matched destination joints with no matched
 *    ancestor: the hips) take a translation, scaled:
 *    p_dst = Gp_dst + k·(P_src − Gp_src) in model space (Gp rest, P posed
 *    positions), converted to local through the parent.  Every other
 *    translation, and every scale, stays at the destination's rest, so the
 *    destination keeps its own proportions.
 *  - k is the caller's `translation_scale`, else leg(dst)/leg(src), a leg
 *    being the sum of rest model-space bone lengths from the named foot up to
 *    the named upper-leg joint.
 *  - Unmatched destination joints keep their rest local rotation.
 *  - Both skeletons must face the same way in model space (the shared
 *    humanoids do).
 *
 * Which joints match: a destination joint named N takes the source joint
 * named by the caller's pair for N, else the source joint named N (names
 * compared as bytes).  When both skeletons come from skins, only skin joints
 * match: the non-joint ancestors (an armature node, a Z_UP node) are part of
 * model space, but matching them would make them the retarget root and pin
 * the hips' motion.  Skeletons from nodes match every named joint.
 */
#ifndef MARIONETTE_RETARGET_H
#define MARIONETTE_RETARGET_H

#include "core.h"
#include "pose.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "The destination joint named dst takes the source joint named src." */
typedef struct mn_retarget_name_pair {
    const char *src;
    const char *dst;
} mn_retarget_name_pair;

/* Options; zero-initialise, then set what you need.  Every zero means the default given. */
typedef struct mn_retarget_options {
    mn_allocator allocator;           /* zero: malloc/free */
    const mn_retarget_name_pair *names;  /* name_count pairs; NULL: names must match as they are */
    uint32_t name_count;
    /* Rest poses (copied at build); NULL: each skeleton's own rest.  Must
       have at least the skeleton's joint count. */
    const mn_pose *src_rest;
    const mn_pose *dst_rest;
    /* k, finite and > 0; 0: leg(dst)/leg(src) from the four names below. */
    float translation_scale;
    const char *src_upper_leg, *src_foot;   /* joint names on the source skeleton */
    const char *dst_upper_leg, *dst_foot;   /* joint names on the destination skeleton */
} mn_retarget_options;

/* A built map: opaque.  Holds scratch for apply, so use one map per thread. */
typedef struct mn_retarget mn_retarget;

/*
 * Build the map from src to dst.  The skeletons are read here and not
 * referred to afterwards.
 * Errors: MN_INVALID_ARGUMENT (NULL skeleton or out; a pair naming a joint
 * either skeleton lacks; a rest pose with too few joints; a scale that is
 * negative; neither a scale nor all four leg names; a leg name not found, an
 * upper leg that is not an ancestor of its foot, or a leg of length 0; no
 * joint matched at all), MN_NOT_FINITE (a non-finite scale or rest value),
 * MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_retarget_create(const mn_skeleton *src, const mn_skeleton *dst,
                                    const mn_retarget_options *options, mn_retarget **out,
                                    mn_error *err);

/* Free a map.  NULL is allowed. */
MN_API void mn_retarget_free(mn_retarget *map);

/*
 * Retarget src_pose (a pose of the source skeleton) into dst_pose (a pose
 * of the destination skeleton).  Every channel of the destination's joints is
 * written.  Allocation-free; a pure function of the map and src_pose (the
 * scratch is overwritten each call).
 * Errors: MN_INVALID_ARGUMENT (NULL argument; a pose with fewer joints than
 * its skeleton; src_pose and dst_pose the same storage), dst_pose untouched.
 */
MN_API mn_status mn_retarget_apply(mn_retarget *map, const mn_pose *src_pose, mn_pose *dst_pose,
                                   mn_error *err);

/* The translation scale k in use. */
MN_API float mn_retarget_scale(const mn_retarget *map);

/* The source joint that destination joint dst_joint takes, or MN_NONE (unmatched or out of range). */
MN_API uint32_t mn_retarget_source(const mn_retarget *map, uint32_t dst_joint);

/* Whether destination joint dst_joint is a retarget root (takes the scaled translation). */
MN_API bool mn_retarget_is_root(const mn_retarget *map, uint32_t dst_joint);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_RETARGET_H */
