/*
 * The demo's character: a small voxel figure built in code, for `marionette
 * demo` and `marionette bench`.
 *
 * Fifteen parts (hips, body, head, a hat on a static mount, arms in two
 * segments with hands, a socket in the right hand, legs with feet), caller
 * joints (hips_turn, neck_yaw, shoulders, elbows, hips) and auto joints
 * (body_sway, neck_nod, wrist_r), an "idle" loop (auto-play, CSS eases and a
 * Bézier) and a one-shot "wave".  It stands on +y facing +z, 40 voxels tall
 * with voxel_size 1/16.  Every part's geometry is voxels of a shared 16 × 40 × 8
 * volume: a face wherever a filled cell of the part meets a cell that is not
 * the part's, one colour a cell.
 */
#ifndef MN_TOOLS_DEMO_CHARACTER_H
#define MN_TOOLS_DEMO_CHARACTER_H

#include <marionette/marionette.h>

/* The rig.json text (NUL-terminated, static). */
const char *demo_character_rig_json(void);

/* Parts, in rig.json order, and their names. */
uint32_t demo_character_part_count(void);
const char *demo_character_part_name(uint32_t part);

/*
 * Part `part`'s geometry as a model (one node; one vertex-coloured mesh with
 * POSITION, NORMAL, COLOR_0 and u32 indices, or none for the socket), built
 * with mn_model_build_*.  Free with mn_model_free.  Errors: the builder's.
 */
mn_status demo_character_part_model(uint32_t part, mn_model **out, mn_error *err);

/*
 * Write the character as a produced voxel model into `dir` (which must
 * exist): dir/rig.json and dir/meshes/<part>.glb, through mn_gltf_write_file.
 * Errors: MN_IO naming the file, the builder's and the writer's.
 */
mn_status demo_character_write(const char *dir, mn_error *err);

#endif /* MN_TOOLS_DEMO_CHARACTER_H */
