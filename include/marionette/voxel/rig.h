/*
 * marionette/voxel/rig.h — voxel rigs: rig.json, part meshes, F-curves, posing.
 *
 * A voxel rig (docs/formats.md, "Voxel rigs", states every rule used here) is
 * a forest of parts, each with a pivot, moved by single-axis joints (rotation
 * in radians or translation in voxels) with ranges and optional mounts, and
 * animated by F-curve tracks.  The geometry is one GLB per part
 * (meshes/<part>.glb) or, for the *-skinned kinds, one skinned mesh.glb.
 *
 *     mn_voxel_rig *rig;
 *     mn_voxel_rig_read_file("rig.json", NULL, &rig, &err);
 *     float worlds[16 * MAX_PARTS];
 *     mn_voxel_pose_input in = { .caller = values, .animations = &idle, .animation_count = 1,
 *                                .time_ms = 500 };
 *     mn_voxel_pose(rig, &in, worlds, NULL);
 *
 * Everything a frame needs (sampling, posing, skinning matrices) allocates
 * nothing and is a pure function of its inputs.
 */
#ifndef MARIONETTE_VOXEL_RIG_H
#define MARIONETTE_VOXEL_RIG_H

#include "../core.h"
#include "../model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- F-curves --------------------------------------------------------------- */

/* The interpolation of the segment that STARTS at a key. */
typedef enum mn_fcurve_interp {
    MN_FCURVE_CONSTANT = 0,
    MN_FCURVE_LINEAR,
    MN_FCURVE_BEZIER,
    MN_FCURVE_EASE_IN,         /* CSS cubic-bezier(0.42, 0, 1, 1) */
    MN_FCURVE_EASE_OUT,        /* CSS cubic-bezier(0, 0, 0.58, 1) */
    MN_FCURVE_EASE_IN_OUT      /* CSS cubic-bezier(0.42, 0, 0.58, 1) */
} mn_fcurve_interp;

typedef struct mn_fcurve_key {
    double t;                  /* milliseconds, strictly increasing along a curve */
    double v;                  /* value */
    mn_fcurve_interp interp;
    bool has_handle_left, has_handle_right;   /* false: that side's auto handle */
    double handle_left[2];     /* [dt_ms, dv] offsets, read only by bezier segments */
    double handle_right[2];
} mn_fcurve_key;

typedef struct mn_fcurve {
    const mn_fcurve_key *keys;
    uint32_t key_count;        /* >= 1 */
    bool loop;                 /* periodic with period duration_ms (closing segment last → first) */
    double duration_ms;        /* the loop period (> 0 when loop) */
} mn_fcurve;

/*
 * The curve's value at t milliseconds (docs/formats.md, "F-curves":
 * clamped ends for one-shots, floor-modulo wrap and the closing
 * segment for loops, Bézier solved for x(s) = t to 1e-9 of the segment, auto
 * handles clamped so the curve never leaves its keys' range).  Pure and
 * allocation-free.  A curve with no keys gives 0.
 */
MN_API double mn_fcurve_sample(const mn_fcurve *curve, double t_ms);

/*
 * Resolve a curve's Bézier segments once, so sampling need not: auto handles
 * worked out, explicit handle times clamped, each bezier segment reduced to
 * its inner control points.  out receives 4 doubles a key (4 × key_count),
 * the record of the segment that starts at that key:
 *   {x1, x2, y1, y2}  x1, x2 the control times in the segment's unit time,
 *                     y1, y2 the control values; x1 = x2 = -1 when both
 *                     handles are auto (time is then linear: no solve);
 *   {0, 0, 0, 0}      not a bezier segment (or none starts there).
 * The record stays valid while the curve's keys, loop and duration_ms do.
 * mn_voxel_rig_read_* resolves every track (mn_voxel_animation.resolved).
 */
MN_API void mn_fcurve_resolve(const mn_fcurve *curve, double *out);

/*
 * mn_fcurve_sample with the curve's mn_fcurve_resolve record (NULL: resolved
 * on the fly, i.e. mn_fcurve_sample).  The same value either way, to the bit;
 * only faster with the record.
 */
MN_API double mn_fcurve_sample_resolved(const mn_fcurve *curve, const double *resolved,
                                        double t_ms);

/* ---- the rig ------------------------------------------------------------------- */

typedef enum mn_voxel_kind {
    MN_VOXEL_CUBE = 0,         /* the default when "kind" is absent */
    MN_VOXEL_MC,
    MN_VOXEL_SN,
    MN_VOXEL_DC,
    MN_VOXEL_MC_SKINNED,
    MN_VOXEL_SN_SKINNED,
    MN_VOXEL_DC_SKINNED,
    MN_VOXEL_STATIC
} mn_voxel_kind;

/* True for the *-skinned kinds (geometry is one skinned mesh.glb). */
MN_API bool mn_voxel_kind_is_skinned(mn_voxel_kind kind);

/* rig.json's name of a kind: "cube", "mc", "sn", "dc", "mc-skinned", "sn-skinned",
   "dc-skinned", "static" (the reader parses through the same table); "invalid" out of
   range.  Never NULL. */
MN_API const char *mn_voxel_kind_name(mn_voxel_kind kind);

typedef enum mn_voxel_joint_type {
    MN_VOXEL_ROTATION = 0,     /* radians about axis, around the part's pivot */
    MN_VOXEL_TRANSLATION       /* voxels along axis */
} mn_voxel_joint_type;

/* rig.json's name of a joint type: "rotation", "translation"; "invalid" out of range. */
MN_API const char *mn_voxel_joint_type_name(mn_voxel_joint_type type);

typedef enum mn_voxel_drive {
    MN_VOXEL_DRIVE_CALLER = 0, /* the procedural interface a game drives */
    MN_VOXEL_DRIVE_AUTO        /* driven only by animations */
} mn_voxel_drive;

/* rig.json's name of a drive: "caller", "auto"; "invalid" out of range. */
MN_API const char *mn_voxel_drive_name(mn_voxel_drive drive);

typedef struct mn_voxel_part {
    const char *name;
    uint32_t parent;           /* part index, MN_NONE for roots */
    float pivot[3];            /* voxels, world space of the sculpt */
    const uint32_t *joints;    /* this part's joints, in declared order */
    uint32_t joint_count;
    const char *extras;        /* unknown fields as compact JSON object text, NULL when none */
} mn_voxel_part;

typedef struct mn_voxel_joint {
    const char *name;
    uint32_t part;
    mn_voxel_joint_type type;
    float axis[3];             /* unit length */
    float min, max, rest;      /* min <= rest <= max */
    mn_voxel_drive drive;
    bool has_mount;
    float orient[3];           /* mount Euler XYZ (R = Rx·Ry·Rz), radians; zeros by default */
    float offset[3];           /* mount translation, voxels; zeros by default */
    const char *extras;
    /* Optional, for speed: Mount = T(offset) · T(pivot) · R(orient) · T(-pivot)
       worked out once (mn_voxel_mount_affine), 12 doubles, column-major 3x4
       (the last column the translation).  NULL: posing works it out on every
       pose, to the same numbers.  mn_voxel_rig_read_* fills it for every
       joint with a mount; one built by hand may leave it NULL. */
    const double *mount_affine;
} mn_voxel_joint;

typedef struct mn_voxel_track {
    uint32_t joint;
    mn_fcurve curve;           /* loop and duration_ms copied from the animation */
} mn_voxel_track;

typedef struct mn_voxel_animation {
    const char *name;
    bool loop, auto_play;
    double duration_ms;        /* given, or the largest key time of any track */
    const mn_voxel_track *tracks;
    uint32_t track_count;
    const char *extras;
    /* Optional, for speed: per track, its curve's mn_fcurve_resolve record
       (track_count pointers; a NULL entry, or NULL for all, is resolved on
       every sample, to the same numbers).  mn_voxel_rig_read_* fills it; an
       animation built by hand may leave it NULL. */
    const double *const *resolved;
} mn_voxel_animation;

typedef struct mn_voxel_rig {
    mn_voxel_kind kind;
    float voxel_size;                  /* world units per voxel, default 1 */
    const mn_voxel_part *parts;        uint32_t part_count;
    const uint32_t *part_order;        /* every part once, parents before children */
    const mn_voxel_joint *joints;      uint32_t joint_count;
    const mn_voxel_animation *animations; uint32_t animation_count;
    const char *extras;                /* unknown top-level fields, compact JSON, NULL when none */
    struct mn_voxel_rig_private *priv_;
} mn_voxel_rig;

typedef struct mn_voxel_rig_options {
    mn_allocator allocator;            /* zero: malloc/free */
} mn_voxel_rig_options;

/*
 * Read rig.json text (or a document whose "rig" member holds the rig when it
 * has no "parts"), validated completely: each flaw is an mn_error naming the
 * JSON path ("animations[1].tracks[0].keys[3].t").  Unknown fields are kept
 * in `extras`, never fatal (those of the rig, a part, a joint or an
 * animation; a mount's, a track's or a key's are ignored).  In the "rig"
 * member form paths start with "rig.".  Free with mn_voxel_rig_free.
 *
 * So that posing is cheap, the reader also plans every joint (its mount and
 * axis folded into one Rodrigues form), orders the parts by depth, bakes
 * every F-curve into cubic pieces, and bakes every looping animation onto a
 * grid of cubic cells over its period (at most 2 MiB an animation; about
 * 0.5 MB for each of bench_voxel's two).  Posing and mn_voxel_sample_animation
 * on a read rig therefore give each curve's value within 1e-7 of its range
 * (a curve's max - min) of the exact F-curve, which mn_fcurve_sample and a
 * rig built by hand still give exactly.  Baking spends a budget in
 * proportion to the text (plus room for an ordinary rig: bench_voxel's
 * 52 KB rig.json bakes in about 50 ms and 2.3 MB), so a rig.json of
 * thousands of hard keys still loads in time and memory in proportion to
 * its size: the curves past the budget are sampled exactly instead.
 */
MN_API mn_status mn_voxel_rig_read_memory(const void *json, size_t size,
                                          const mn_voxel_rig_options *options,
                                          mn_voxel_rig **out_rig, mn_error *err);

/* mn_voxel_rig_read_memory on a file's contents; MN_IO when it cannot be read. */
MN_API mn_status mn_voxel_rig_read_file(const char *path, const mn_voxel_rig_options *options,
                                        mn_voxel_rig **out_rig, mn_error *err);

/* Free a rig.  NULL is allowed. */
MN_API void mn_voxel_rig_free(mn_voxel_rig *rig);

/* Index of the part / joint / animation with that name, or MN_NONE. */
MN_API uint32_t mn_voxel_rig_find_part(const mn_voxel_rig *rig, const char *name);
MN_API uint32_t mn_voxel_rig_find_joint(const mn_voxel_rig *rig, const char *name);
MN_API uint32_t mn_voxel_rig_find_animation(const mn_voxel_rig *rig, const char *name);

/* ---- sampling and posing ------------------------------------------------------- */

/*
 * sampleAnimation: write the value at t_ms of every joint the animation's
 * tracks drive into values[joint] (joint_count entries); other entries are
 * untouched, so the result overlays a caller map.  Unclamped.
 */
MN_API void mn_voxel_sample_animation(const mn_voxel_rig *rig, uint32_t animation, double t_ms,
                                      float *values);

typedef struct mn_voxel_pose_input {
    const float *caller;               /* joint_count values; NaN = not set (rest). NULL: all rest */
    const uint32_t *animations;        /* animations overlaid in order (a later one wins a joint) */
    uint32_t animation_count;
    double time_ms;                    /* when the animations are sampled */
} mn_voxel_pose_input;

/*
 * World matrices of every part (16 floats each, part index order) by the
 * posing rule (docs/formats.md, "Posing") — parents first, each part's joints
 * composed in declared order as Mount · Driven, values = animation value,
 * else caller, else rest, clamped to [min, max].  out_values (joint_count,
 * optional) receives the final clamped values.  input may be NULL (rest).
 * Allocation-free; uses about 30 KiB of stack (joint values and motions of
 * rigs up to 256 joints; a bigger rig's motions are worked out joint by joint
 * instead).  A hand-built rig may leave part_order NULL: a
 * parents-first order is then found on the fly (MN_HIERARCHY for a cycle).
 * Errors: MN_INVALID_ARGUMENT (NULL rig or out_worlds), MN_INDEX_RANGE (an
 * animation index out of range), MN_HIERARCHY.
 */
MN_API mn_status mn_voxel_pose(const mn_voxel_rig *rig, const mn_voxel_pose_input *input,
                               float *out_worlds, float *out_values);

/*
 * Joint `joint`'s Mount, T(offset) · T(pivot) · R(orient) · T(-pivot) with its
 * part's pivot, as 12 doubles (column-major 3x4, translation last): what
 * mn_voxel_joint.mount_affine holds.  The identity for a joint without a
 * mount; nothing is written for an index (or part) out of range.
 */
MN_API void mn_voxel_mount_affine(const mn_voxel_rig *rig, uint32_t joint, double out[12]);

/* ---- part meshes ---------------------------------------------------------------- */

/*
 * A decoded part (or static, or skinned) mesh: flat arrays.  colors are
 * linear RGB 0..1 (white when the GLB has no COLOR_0).  For a skinned mesh,
 * joints/weights hold 4 influences a vertex (weights normalised) indexing
 * bone_names / inverse_bind (16 floats a bone, the skin's order).
 */
typedef struct mn_part_mesh {
    uint32_t vertex_count;
    const float *positions;            /* 3 × vertex_count, voxels */
    const float *normals;              /* 3 × vertex_count */
    const float *colors;               /* 3 × vertex_count */
    uint32_t index_count;
    const uint32_t *indices;           /* triangles */
    uint32_t bone_count;               /* 0 unless skinned */
    const char **bone_names;
    const float *inverse_bind;
    const uint16_t *joints;            /* 4 × vertex_count */
    const float *weights;              /* 4 × vertex_count */
    struct mn_part_mesh_private *priv_;
} mn_part_mesh;

/*
 * Decode a part mesh from a loaded glTF: every triangle primitive instanced
 * by the default scene (mn_model_default_scene), transformed by its node's
 * world matrix; an empty scene (a socket) gives an empty mesh.  With
 * `skinned`, the single skinned primitive with its JOINTS_0/WEIGHTS_0 and
 * skin (positions as authored).  A primitive with NORMAL keeps its vertices
 * and indices; one without is unwelded (one vertex per triangle corner,
 * indices 0..n-1) to carry flat face normals.
 * Errors: MN_INVALID_VALUE (skinned asked but no skin, or its primitive lacks
 * JOINTS_0/WEIGHTS_0), MN_INDEX_RANGE (an index or joint out of range: only
 * a model built by hand), MN_OVERFLOW (2^32 vertices or more), MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_part_mesh_from_model(const mn_model *model, bool skinned,
                                         const mn_allocator *allocator, mn_part_mesh **out_mesh,
                                         mn_error *err);

/* Read a .glb file and decode it as above. */
MN_API mn_status mn_part_mesh_read_file(const char *path, bool skinned,
                                        const mn_allocator *allocator, mn_part_mesh **out_mesh,
                                        mn_error *err);

/*
 * Read the mesh file a rig names, `name` ("meshes/upper.glb") in the model's
 * folder `dir`, and decode it as above.  The name is held to the rule every
 * reader keeps (marionette/io.h): refused (MN_URI, err->path = name) when it
 * is absolute, holds "..", or resolves (symlinks followed) outside `root`
 * (NULL: dir); with a root it may be absolute or hold ".." as long as it
 * resolves inside.  The file must be a regular file (MN_IO otherwise, a FIFO
 * never blocks), and its own external buffers are kept inside root too.
 */
MN_API mn_status mn_part_mesh_read_in(const char *dir, const char *name, const char *root,
                                      bool skinned, const mn_allocator *allocator,
                                      mn_part_mesh **out_mesh, mn_error *err);

/* Free a part mesh.  NULL is allowed. */
MN_API void mn_part_mesh_free(mn_part_mesh *mesh);

/*
 * The part each bone of a skinned mesh is, matched by name: out[bone] = part
 * index or MN_NONE (bone_count entries).  Compute once; pass to
 * mn_voxel_skinning_matrices.
 */
MN_API void mn_voxel_bone_parts(const mn_voxel_rig *rig, const mn_part_mesh *mesh, uint32_t *out);

/*
 * skinningMatrices: one matrix per bone of a skinned mesh, bone order:
 * part_world(bone's part) · T(pivot) × inverse_bind; a bone with no matching
 * part gets the identity (holds its bind pose).  part_worlds from
 * mn_voxel_pose; part_of_bone from mn_voxel_bone_parts (NULL: matched by name
 * on every call, slower).  Allocation-free.
 */
MN_API void mn_voxel_skinning_matrices(const mn_voxel_rig *rig, const mn_part_mesh *mesh,
                                       const uint32_t *part_of_bone, const float *part_worlds,
                                       float *out);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_VOXEL_RIG_H */
