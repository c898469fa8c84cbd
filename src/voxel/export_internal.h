/*
 * Private: what the voxel exporter's files share.
 *
 *   voxel/export.c        the glTF model: nodes, meshes, skin, baked animations
 *   voxel/export_json.c   interface.json and the joint entries mirrored into node extras
 *   voxel/export_file.c   reading a rig and its meshes, writing the outputs (no partial files)
 *
 * Not installed.
 */
#ifndef MN_VOXEL_EXPORT_INTERNAL_H
#define MN_VOXEL_EXPORT_INTERNAL_H

#include <marionette/voxel/export.h>

#include "core/core.h"

/*
 * Text printed into a bounded buffer, snprintf style: `len` counts every
 * byte asked for, at most cap - 1 of them land in `out` (NUL-terminated
 * when cap > 0), so a first pass with out NULL measures.
 */
typedef struct mn_vx_text {
    char *out;
    size_t cap, len;
} mn_vx_text;

void mni_vx_put(mn_vx_text *t, const char *s);
/* A JSON string, quoted and escaped. */
void mni_vx_put_string(mn_vx_text *t, const char *s);
/* The shortest decimal that reads back to the same float (or double). */
void mni_vx_put_float(mn_vx_text *t, float v);
void mni_vx_put_double(mn_vx_text *t, double v);

/* The interface entry of caller joint `joint` as a JSON object (scale: exported units per voxel). */
void mni_vx_put_joint_entry(mn_vx_text *t, const mn_voxel_rig *rig, uint32_t joint, double scale);

/* True when part `part` has at least one caller joint (its node carries interface entries). */
bool mni_vx_part_has_caller_joints(const mn_voxel_rig *rig, uint32_t part);

/* A part is a socket of the exported model: its node has no mesh and is no joint of a skin. */
bool mni_vx_is_socket(const mn_model *model, uint32_t part);

/* The scale an export uses: options->scale, else the rig's voxel_size, else 1. */
double mni_vx_scale(const mn_voxel_rig *rig, const mn_voxel_export_options *options);

#endif /* MN_VOXEL_EXPORT_INTERNAL_H */
