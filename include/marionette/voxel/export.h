/*
 * marionette/voxel/export.h — a voxel model as one glTF file a game engine
 * loads, and its joint interface beside it (interface.json); docs/formats.md
 * ("Exporting a voxel rig to glTF", "interface.json") has both formats.
 *
 *     mn_voxel_export_options o = {.rate = 60};
 *     mn_error err;
 *     if (mn_voxel_export_file("rig.json", "meshes/", "robot.glb", &o, &err) != MN_OK)
 *         fprintf(stderr, "%s\n", err.message);
 *     (writes robot.glb and robot.interface.json)
 *
 * WHAT THE glTF HOLDS (S = the scale, default the rig's voxel_size)
 *   - node p for part p (same index), named after it, children as the part
 *     tree.  Its origin is the part's pivot and its axes the sculpted ones:
 *     its world at any pose is S · part_world · T(pivot) · S⁻¹, its default
 *     transform the rest pose (every joint at its rest value), so its local
 *     transform is S · T(−parent pivot) · J1 · … · Jn · T(pivot) · S⁻¹, a
 *     rotation and a translation.
 *   - rigged kinds: one mesh per part with geometry, named after the part:
 *     POSITION = (v − pivot) · S, NORMAL, COLOR_0 (linear RGB), u32 indices,
 *     and one shared material "vertex_color" (white, metallic 0, roughness 1).
 *     A part without geometry is a socket: no mesh, extras {"socket": true}.
 *   - *-skinned kinds: the parts' nodes are the skeleton (a part that is no
 *     bone of mesh.glb is a socket), a bone matching no part gets a node of
 *     its own holding its bind pose, and when the joints would not share one
 *     root (a forest, or such bones) an extra root node "skeleton" (no
 *     joint) is added above them.  One root node "mesh" holds the skinned
 *     mesh (POSITION = v · S, NORMAL, COLOR_0, JOINTS_0, WEIGHTS_0); skin
 *     joints follow the mesh's bones, inverse bind matrices S · IB · S⁻¹.
 *   - the static kind, and a static model without a rig: one root node
 *     "mesh" with the mesh, positions v · S (S default 1 without a rig).
 *   - each rig animation: a glTF animation of the same name, LINEAR,
 *     translation and rotation channels for every node with a joint the
 *     animation drives, sampled at k / rate seconds for k / rate below the
 *     duration, at the duration, at every key time (a loop's folded into its
 *     period), and just before every key a constant segment jumps to (so a
 *     step stays a step; key times and the duration are written as the
 *     largest float not after them, so a step's new value holds from its
 *     exact time in any player).  Then refined: where LINEAR between two samples
 *     would miss the rig's pose (probed at 1/4, 1/2 and 3/4 of the way) by
 *     more than 1e-5 of the model's size (or 1e-5 radian), their midpoint
 *     is sampled too, down to 1/64 of the grid step; so eased motion
 *     arrives intact between samples, not only on them.  Poses are the
 *     rig's (mn_voxel_pose with that one animation, every other joint at
 *     rest).  extras {"loop", "autoPlay"}.  A looping clip's last sample, at
 *     the duration, equals its first.
 *   - nodes with caller joints: extras {"joints": [<their interface entries>]}.
 *
 * THE INTERFACE (interface.json): every caller joint in
 * rig.json order: name, node (part name), node_index, kind, axis (the joint's
 * unit axis in the node's frame), min, max, rest (radians; translations in
 * exported units, i.e. voxels × S); every animation's name, loop, autoPlay
 * and duration (seconds); the sockets.  Driving a node from it alone: with
 * the node's joints J1..Jn of the interface, D(j, v) = R(axis, v) (about the
 * node's origin, the pivot) or T(axis · v),
 *     local(v1..vn) = default · (D(1, rest1) ··· D(n, restn))⁻¹ · D(1, v1) ··· D(n, vn).
 * That is the rig's pose exactly when nothing else sits between a node's
 * caller joints: no mount on a joint after its first, no auto joint between
 * or after them away from its rest 0 (true of the usual one joint a part).
 *
 * Everything allocates through options->allocator; nothing here keeps a
 * pointer to the inputs once a call returns.
 */
#ifndef MARIONETTE_VOXEL_EXPORT_H
#define MARIONETTE_VOXEL_EXPORT_H

#include "../core.h"
#include "../model.h"
#include "rig.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exporter options.  A zeroed struct (or NULL) means the defaults given per field. */
typedef struct mn_voxel_export_options {
    mn_allocator allocator;    /* zero: malloc/free */
    float scale;               /* world units per voxel; 0: the rig's voxel_size (1 without a rig) */
    float rate;                /* animation samples per second; 0: 60 */
    const char *model_name;    /* interface.json "model"; NULL: "model" (mn_voxel_export_file: the
                                  output's file name without its extension) */
    const char *root;          /* mn_voxel_export_file: where the part meshes the rig names may
                                  be (marionette/io.h); NULL: inside their folder */
} mn_voxel_export_options;

/*
 * The glTF model of a rig and its geometry (build it, then write it with
 * mn_gltf_write_file; free with mn_model_free).
 *   rig          the rig, or NULL for a static model (then `mesh` is required)
 *   part_meshes  rigged kinds: part_count entries, each a part's decoded mesh
 *                (an empty mesh, or a NULL entry, for a socket); else NULL
 *   mesh         *-skinned kinds: the skinned mesh.glb (with bones); static: its mesh; else NULL
 * Errors: MN_INVALID_ARGUMENT (what the kind needs is missing, a non-finite
 * or non-positive scale or rate, a skinned mesh without bones), MN_HIERARCHY
 * (a part cycle in a hand-built rig), MN_SKEW (a bone's bind matrix is not a
 * rotation and translation), MN_OUT_OF_MEMORY, and the builder's errors.
 */
MN_API mn_status mn_voxel_export_model(const mn_voxel_rig *rig, const mn_part_mesh *const *part_meshes,
                                       const mn_part_mesh *mesh, const mn_voxel_export_options *options,
                                       mn_model **out_model, mn_error *err);

/*
 * interface.json of `rig` exported as `exported` (what mn_voxel_export_model
 * made of it: the sockets are its part nodes without a mesh that are no
 * skin joint) as text (UTF-8, pretty-printed, ending in a newline) into
 * out: writes at most `capacity` bytes, NUL included, and returns the text's
 * length without the NUL (snprintf's protocol: out may be NULL to ask the
 * length).  0 for a NULL rig.  Allocates nothing.
 */
MN_API size_t mn_voxel_export_interface(const mn_voxel_rig *rig, const mn_model *exported,
                                        const mn_voxel_export_options *options, char *out, size_t capacity);

/*
 * Read, build and write in one call: the rig at rig_path (raw rig.json or
 * the resolved form; NULL for a static model), its meshes, and the output.
 *   meshes_path  a folder (meshes/<part>.glb for rigged kinds, mesh.glb for
 *                skinned and static kinds) or, for skinned and static, the
 *                .glb itself.  NULL: beside the rig (its folder's meshes/ or
 *                mesh.glb), as a produced model lays them out.
 *   out_path     ".glb" or ".gltf" (+ ".bin" beside it), by extension.
 * With a rig, "<out without extension>.interface.json" is written beside the
 * output.  The files are one output set (marionette/io.h): all written and
 * fsynced to temporary files beside their targets, then renamed .bin, glTF,
 * interface.json (each after the files it names), then the folder fsynced.
 * On any error no temporary file is left and every old file keeps its bytes.
 * The window: a process killed between those renames leaves the files
 * renamed so far new and the rest old, each whole.
 * Errors: those of the rig reader and part mesh decoding (err names the
 * file, and the part for a part mesh: "meshes/arm.glb (part \"arm\"): ..."),
 * MN_IO for a missing mesh file or an unwritable output, MN_URI for a part
 * whose file would lie outside the meshes' folder or options->root (a part
 * name with "..", a symlink leading out: mn_part_mesh_read_in), those of
 * mn_voxel_export_model and mn_gltf_write_file.
 */
MN_API mn_status mn_voxel_export_file(const char *rig_path, const char *meshes_path, const char *out_path,
                                      const mn_voxel_export_options *options, mn_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_VOXEL_EXPORT_H */
