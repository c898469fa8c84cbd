/*
 * marionette/obj_model.h — an OBJ (with its MTL materials) as an mn_model,
 * ready for mn_gltf_write (`marionette convert model.obj model.glb`).
 *
 *     mn_obj *obj;  mn_obj_read_file("ship.obj", NULL, &obj, &err);
 *     mn_model *model;  mn_model_from_obj(obj, "ship", NULL, &model, &err);
 *     mn_gltf_write_file(model, "ship.glb", NULL, &err);
 *
 * What it makes: one root node and one mesh, both named `name`; each OBJ
 * group (one per usemtl run, file order) becomes a primitive of that mesh:
 * indexed triangles with POSITION, NORMAL and, when the file has any `vt`,
 * TEXCOORD_0.  Corners of a group that come out the same (position, normal
 * and uv after the conversions below, bit for bit) share one vertex, found
 * by hashing (O(n) expected), vertices numbered in the order their first
 * corner comes; so faces that share a `v/vt/vn` are connected, as the file
 * says.  Indices are u16 up to 65,535 vertices, else u32; a group whose
 * corners are all distinct has no indices (they would add bytes only).
 * Conversions glTF asks for:
 *   - uv: v becomes 1 − v (OBJ's origin is the bottom left of the image,
 *     glTF's the top left); u unchanged;
 *   - normals: normalised (OBJ keeps them as written); a zero or non-finite
 *     one is replaced by its triangle's face normal, (0, 0, 1) for a
 *     triangle without area.
 * Materials: one glTF material per OBJ material a group uses, named after
 * it (groups before any usemtl get none): baseColorFactor Kd with alpha the
 * opacity (d, or 1 − Tr; alphaMode BLEND below 1), emissiveFactor Ke,
 * metallic 0, roughness sqrt(2 / (Ns + 2)) (the usual Blinn-Phong exponent
 * to roughness mapping; 1 when Ns is absent), double-sided off.  map_Kd
 * becomes a base-colour texture whose image is referenced by URI, the file
 * name as written (backslashes as '/', characters a URI cannot hold
 * percent-encoded), not embedded: the texture file is expected beside the
 * output as it was beside the OBJ.  Ka, Ks and the map_Kd options have no
 * glTF counterpart and are dropped.
 */
#ifndef MARIONETTE_OBJ_MODEL_H
#define MARIONETTE_OBJ_MODEL_H

#include "core.h"
#include "model.h"
#include "obj.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The model of `obj` (name NULL: "obj"); free with mn_model_free.  Memory
 * from allocator (NULL: malloc): beside the model, at most 4 bytes per
 * triangle corner of the group being converted and 24 per distinct vertex
 * of it (vertices are written straight into the model), plus the model
 * builder's growth (model_build.h).  The model keeps 24 bytes per vertex
 * (32 with TEXCOORD_0) and 2 or 4 per corner of indices.  Errors: MN_INVALID_ARGUMENT (NULL obj or
 * out), MN_OUT_OF_MEMORY, and the model builder's (model_build.h).  An OBJ
 * without faces gives a model with one empty node.
 */
MN_API mn_status mn_model_from_obj(const mn_obj *obj, const char *name, const mn_allocator *allocator,
                                   mn_model **out_model, mn_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_OBJ_MODEL_H */
