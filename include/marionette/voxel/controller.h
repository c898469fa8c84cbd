/*
 * marionette/voxel/controller.h — the voxel rig controller: what a game
 * drives a loaded voxel model through, rigged or skinned, without a
 * renderer.  A game (or a review tool) loads a produced model, sets its
 * caller joints, plays its animations, advances a clock, and draws the
 * outputs: one world matrix per part and, for a skinned model, the posed
 * vertices.
 *
 *     mn_voxel_controller *c;
 *     mn_voxel_controller_load("out/model", NULL, &c, &err);   // rig.json + meshes
 *     mn_voxel_controller_pose(c, (mn_voxel_joint_value[]){{"neck_yaw", 0.3f}}, 1);
 *     mn_voxel_controller_play_animation(c, "wave");            // a one-shot, by name
 *     for (;;) {
 *         mn_voxel_controller_update(c, dt_seconds);
 *         const float *worlds = mn_voxel_controller_part_worlds(c);
 *         for (uint32_t p = 0; p < rig->part_count; p++)
 *             draw(mn_voxel_controller_part_mesh(c, p), &worlds[16 * p]);
 *     }
 *     mn_voxel_controller_free(c);
 *
 * VALUES
 *   Every joint's value is, as the posing rule says (docs/formats.md), the
 *   value of a playing animation that drives it, else the caller's value
 *   (mn_voxel_controller_pose), else its rest; then clamped to [min, max].
 *   The caller may set any joint, auto joints included.
 *
 * ANIMATIONS AND THE CLOCKS
 *   - Every auto_play animation plays from creation, on the auto clock
 *     (looping ones wrap; a one-shot auto-play animation holds its ends).
 *   - One more animation at a time can be played by name
 *     (mn_voxel_controller_play_animation), on its own clock, which starts at
 *     0 when it is played.  It is overlaid last: its tracks win over the
 *     auto-play ones where both drive a joint, and it overlays only the
 *     joints its tracks drive.  A one-shot (loop false) ends once an update
 *     takes its clock to duration_ms or beyond; its joints then fall back to
 *     the auto-play animations, the caller, or rest.  A looping one plays
 *     until another is played or NULL stops it.
 *   - update(dt) advances both clocks by dt seconds; seek(ms) sets both to
 *     ms (it never ends a one-shot: an update does).  Among auto-play
 *     animations, a later one in rig.json wins a joint both drive.
 *
 * OUTPUTS
 *   part_worlds: 16 floats a part (column-major, part index order).  For a
 *   skinned model, positions and normals: the mesh's vertices skinned with
 *   mn_voxel_skinning_matrices (3 floats a vertex).  Outputs are computed
 *   when first asked for after a change, so several pose calls in one frame
 *   cost one posing; the pointers stay valid until the controller is freed.
 *
 * MEMORY AND THREADS
 *   Creation and loading allocate (through the allocator given); pose,
 *   set_joint, play_animation, update, seek and every output query allocate
 *   nothing.  A controller is used from one thread at a time; controllers
 *   sharing one rig may run on different threads.
 */
#ifndef MARIONETTE_VOXEL_CONTROLLER_H
#define MARIONETTE_VOXEL_CONTROLLER_H

#include "../core.h"
#include "../render.h"
#include "rig.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mn_voxel_controller mn_voxel_controller;

typedef struct mn_voxel_controller_desc {
    const mn_voxel_rig *rig;                /* required; borrowed, must outlive the controller */
    /* Optional, borrowed: part_count entries (NULL entries allowed), returned by
       mn_voxel_controller_part_mesh.  The controller does not read them. */
    const mn_part_mesh *const *part_meshes;
    /* Optional, borrowed: the one mesh of the model.  When it has bones (a
       *-skinned kind) the controller skins it; otherwise (a static model) its
       vertices are the outputs unchanged. */
    const mn_part_mesh *mesh;
    mn_allocator allocator;                 /* zero: malloc/free */
} mn_voxel_controller_desc;

typedef struct mn_voxel_controller_options {
    mn_allocator allocator;                 /* zero: malloc/free */
    const char *root;                       /* where the mesh files may be (marionette/io.h):
                                               NULL: inside the model's folder */
} mn_voxel_controller_options;

/*
 * A controller over a rig (and optionally its meshes), every auto-play
 * animation playing from time 0.  Errors: MN_INVALID_ARGUMENT (NULL desc,
 * rig or out), MN_INDEX_RANGE (a skinned mesh whose joint indices reach past
 * its bones; err says which vertex), MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_voxel_controller_create(const mn_voxel_controller_desc *desc,
                                            mn_voxel_controller **out, mn_error *err);

/*
 * Load a produced model and make a controller that owns it.  `path` is a
 * folder holding rig.json, or the path of the rig.json itself (any name);
 * the meshes are read beside it: meshes/<part>.glb for every part of a
 * rigged kind, mesh.glb for a *-skinned kind (decoded with its skin) or the
 * static kind, each through mn_part_mesh_read_in (kept inside the model's
 * folder or options->root).  Errors: those of mn_voxel_rig_read_file and
 * mn_part_mesh_read_in (MN_IO for a missing part file, MN_URI for one that
 * leads outside; err names the file), and of mn_voxel_controller_create.
 */
MN_API mn_status mn_voxel_controller_load(const char *path,
                                          const mn_voxel_controller_options *options,
                                          mn_voxel_controller **out, mn_error *err);

/* Free a controller (and, when it was loaded, its rig and meshes).  NULL is allowed. */
MN_API void mn_voxel_controller_free(mn_voxel_controller *controller);

/* What it drives. */
MN_API const mn_voxel_rig *mn_voxel_controller_rig(const mn_voxel_controller *controller);
/* Part `part`'s mesh, NULL when out of range or none was given. */
MN_API const mn_part_mesh *mn_voxel_controller_part_mesh(const mn_voxel_controller *controller,
                                                         uint32_t part);
/* The model's one mesh (skinned or static), NULL when none. */
MN_API const mn_part_mesh *mn_voxel_controller_mesh(const mn_voxel_controller *controller);

/* ---- driving ---------------------------------------------------------------------- */

/* One caller value: a joint by name. */
typedef struct mn_voxel_joint_value {
    const char *name;
    float value;
} mn_voxel_joint_value;

/*
 * pose(caller): set the caller value of each named joint, clamped to its
 * range (NaN unsets it: the joint returns to rest); joints not named keep
 * their values.  All or nothing: MN_INVALID_VALUE, changing nothing, when a
 * name is no joint of the rig (MN_INVALID_ARGUMENT for NULL arrays with
 * count > 0).
 */
MN_API mn_status mn_voxel_controller_pose(mn_voxel_controller *controller,
                                          const mn_voxel_joint_value *values, uint32_t count);

/* Set one joint's caller value by index, as pose does.  MN_INDEX_RANGE for a bad index. */
MN_API mn_status mn_voxel_controller_set_joint(mn_voxel_controller *controller, uint32_t joint,
                                               float value);

/* Unset every caller value: all joints back to rest (under the animations). */
MN_API void mn_voxel_controller_reset_pose(mn_voxel_controller *controller);

/*
 * Play the animation with that name from its start (replacing the one
 * playing), or stop the played one with NULL.  Auto-play animations keep
 * playing either way.  MN_INVALID_VALUE, changing nothing, for a name that
 * is no animation of the rig.
 */
MN_API mn_status mn_voxel_controller_play_animation(mn_voxel_controller *controller,
                                                    const char *name);

/* The played animation's name, NULL when none plays (never, or a one-shot ended, or stopped). */
MN_API const char *mn_voxel_controller_playing(const mn_voxel_controller *controller);

/* Advance the clocks by dt_seconds (negative or non-finite dt is taken as 0); ends a one-shot. */
MN_API void mn_voxel_controller_update(mn_voxel_controller *controller, double dt_seconds);

/* Set both clocks to time_ms (non-finite is taken as 0). */
MN_API void mn_voxel_controller_seek(mn_voxel_controller *controller, double time_ms);

/* The played animation's clock (or the auto clock when none plays), milliseconds. */
MN_API double mn_voxel_controller_time_ms(const mn_voxel_controller *controller);

/* ---- the interface -------------------------------------------------------------- */

/*
 * jointNames(drive): the names of the joints with that drive, in rig.json
 * order, into out (up to capacity pointers into the rig).  Returns how many
 * there are, so a first call with out NULL sizes the array.
 */
MN_API uint32_t mn_voxel_controller_joint_names(const mn_voxel_controller *controller,
                                                mn_voxel_drive drive, const char **out,
                                                uint32_t capacity);

typedef struct mn_voxel_joint_range {
    float min, max, rest;
} mn_voxel_joint_range;

/* jointRange(name).  MN_INVALID_VALUE for a name that is no joint of the rig. */
MN_API mn_status mn_voxel_controller_joint_range(const mn_voxel_controller *controller,
                                                 const char *name, mn_voxel_joint_range *out);

/* ---- outputs ------------------------------------------------------------------------- */

/* World matrix of every part: 16 floats a part, part index order (voxels). */
MN_API const float *mn_voxel_controller_part_worlds(mn_voxel_controller *controller);

/* Every joint's value after overlay and clamping (joint_count floats). */
MN_API const float *mn_voxel_controller_joint_values(mn_voxel_controller *controller);

/* Vertices of the model's mesh: skinned when it has bones, else as read; 0 / NULL without one. */
MN_API uint32_t mn_voxel_controller_vertex_count(const mn_voxel_controller *controller);
MN_API const float *mn_voxel_controller_positions(mn_voxel_controller *controller);  /* 3 a vertex */
MN_API const float *mn_voxel_controller_normals(mn_voxel_controller *controller);    /* 3 a vertex, NULL when the mesh has none */

/* ---- drawing it (render.h) ------------------------------------------------------------ */

/*
 * From a voxel rig controller: a rigged kind draws each part's mesh with its
 * part world; a skinned or static kind draws the controller's one mesh
 * (skinned vertices).  Vertex colours are the meshes' colours.  The
 * controller is borrowed (refresh asks it for its outputs, which may pose
 * it).  Errors: MN_INVALID_ARGUMENT, MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_render_source_voxel(mn_voxel_controller *controller,
                                        const mn_allocator *allocator, mn_render_source **out,
                                        mn_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_VOXEL_CONTROLLER_H */
