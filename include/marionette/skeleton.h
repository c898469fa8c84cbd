/*
 * marionette/skeleton.h — joints in parent-first order, local-to-world, palettes.
 *
 * A skeleton is built once from a glTF skin (its joints plus every ancestor
 * node they hang from, so an armature node above the hips is part of it) or
 * from a model's whole node hierarchy.  Joints are re-ordered depth-first so
 * that every parent comes before its children and every subtree is a
 * contiguous range: local-to-world is then one forward loop, and a partial
 * update from a joint down touches only [joint, subtree_end[joint]).  The
 * mapping to the model's nodes (and to the skin's joint order) is kept.
 *
 *     mn_skeleton *sk;  mn_skeleton_from_skin(model, 0, NULL, &sk, &err);
 *     mn_clip *clip;    mn_clip_from_gltf_skeleton(model, 0, sk, NULL, &clip, &err);
 *     mn_pose pose;     mn_pose_create(&pose, sk->joint_count, NULL, &err);
 *     mn_pose_copy(&pose, &sk->rest);                 // the pose now holds sk->space
 *     mn_clip_sample(clip, t, &pose, &err);           // refused if clip is not in sk->space
 *     mn_skeleton_local_to_world(sk, &pose, 0, worlds);
 *     mn_skeleton_palette(sk, worlds, palette);       // skin-joint order, for JOINTS_n
 */
#ifndef MARIONETTE_SKELETON_H
#define MARIONETTE_SKELETON_H

#include "core.h"
#include "model.h"
#include "pose.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mn_skeleton {
    uint32_t joint_count;
    const char **names;          /* joint names (copies of the nodes' names; NULL where a node has none) */
    const int16_t *parents;      /* parents[j] < j, -1 for roots */
    const uint32_t *subtree_end; /* joints [j, subtree_end[j]) are j and its descendants */
    const uint32_t *node_of_joint;  /* model node index of joint j */
    const uint32_t *joint_of_node;  /* joint index of each model node, MN_NONE when not a joint; node_count entries */
    uint32_t node_count;         /* entries in joint_of_node */
    mn_pose rest;                /* rest local TRS (the nodes' TRS as loaded), bound to space */
    mn_space space;              /* MN_SPACE_JOINTS: these joints (pose.h, SPACES); the id hashes
                                    the model's node space and node_of_joint */
    /* Skin data (a skeleton from mn_skeleton_from_nodes has skin_joint_count 0). */
    uint32_t skin_joint_count;
    const uint32_t *joint_of_skin_joint; /* skin.joints[i] is joint joint_of_skin_joint[i] */
    const float *inverse_bind;   /* 16 floats per skin joint, skin order */
    struct mn_skeleton_private *priv_;
} mn_skeleton;

/* The most joints a skeleton holds (parents are int16_t). */
#define MN_SKELETON_MAX_JOINTS 32767u

/*
 * A skeleton for model->skins[skin]: its joints and their ancestors (so
 * model space includes the transforms of the root's non-joint ancestors;
 * skin.skeleton is not needed for that and is ignored).  A node listed twice
 * in skin.joints is one joint that two skin joints map to.  The skeleton
 * copies what it needs and does not refer to the model afterwards.
 * Errors: MN_INVALID_ARGUMENT (NULL model or out), MN_INDEX_RANGE (skin or a
 * joint's node out of range), MN_OVERFLOW (more than MN_SKELETON_MAX_JOINTS),
 * MN_OUT_OF_MEMORY; MN_HIERARCHY only for a hand-built model whose children
 * and parent links disagree or form a cycle (a reader's model never does).
 */
MN_API mn_status mn_skeleton_from_skin(const mn_model *model, uint32_t skin,
                                       const mn_allocator *allocator, mn_skeleton **out,
                                       mn_error *err);

/* A skeleton of every node of the model (no skin data).  Errors as above. */
MN_API mn_status mn_skeleton_from_nodes(const mn_model *model, const mn_allocator *allocator,
                                        mn_skeleton **out, mn_error *err);

/* Free a skeleton.  NULL is allowed. */
MN_API void mn_skeleton_free(mn_skeleton *skeleton);

/* The first joint named `name` (a linear scan of strcmp: for set-up, not per frame), or MN_NONE. */
MN_API uint32_t mn_skeleton_find(const mn_skeleton *skeleton, const char *name);

/*
 * World matrices (16 floats a joint, joint order) from a pose.  Joints before
 * `from` and outside its subtree are left as they are in `worlds` (they must
 * hold valid worlds already when from > 0); from = 0 updates everything.
 * One forward loop, allocation-free.  Precondition: pose->joint_count >= joint_count.
 */
MN_API void mn_skeleton_local_to_world(const mn_skeleton *skeleton, const mn_pose *pose,
                                       uint32_t from, float *worlds);

/*
 * The skinning palette in skin-joint order (what JOINTS_n index):
 * palette[i] = worlds[joint_of_skin_joint[i]] × inverse_bind[i], 16 floats
 * each.  Allocation-free.  palette must not
 * alias worlds.
 *
 * The multiply is affine: the inverse bind matrices' last row is taken to be
 * 0 0 0 1, as glTF requires of them, and worlds from
 * mn_skeleton_local_to_world have that row too, so every palette matrix is
 * affine with last row 0 0 0 1.
 *
 * Placement: glTF says a skinned mesh is placed by its joints, not by the
 * transform of the node that holds the mesh.  That follows from using these
 * palettes directly on the mesh's bind-space vertices: the worlds include
 * every ancestor of the joints (the skeleton holds them), so palette × vertex
 * is already in model space, and the mesh node's own world matrix must NOT
 * be applied on top.
 */
MN_API void mn_skeleton_palette(const mn_skeleton *skeleton, const float *worlds, float *palette);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_SKELETON_H */
