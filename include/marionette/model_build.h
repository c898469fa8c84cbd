/*
 * marionette/model_build.h — building an mn_model in code.
 *
 * The model a builder finishes is the one the glTF reader would return for
 * the file mn_gltf_write makes of it: the same defaults (display names
 * "node3", "material0", "anim1" where none was given, marked default_name so
 * that the writer leaves them out; zero morph weights), accessor
 * min/max, node_order, one scene holding every root node as the default
 * scene, animation durations and the rest-pose bounds.  So every function
 * over a model (mn_gltf_write, mn_model_rest_worlds, mn_clip_from_gltf,
 * mn_instance_*, ...) works on it, and written out and read back it compares
 * equal.
 *
 *     mn_model_builder *b = mn_model_build_begin(NULL);
 *     uint32_t pos = mn_model_build_accessor_f32(b, "positions", xyz, 3, MN_TYPE_VEC3);
 *     uint32_t idx = mn_model_build_accessor_u32(b, NULL, tri, 3, MN_TYPE_SCALAR);
 *     uint32_t mesh = mn_model_build_mesh(b, "triangle");
 *     const mn_build_attribute attrs[] = {{"POSITION", pos}};
 *     mn_model_build_primitive(b, mesh, MN_MODE_TRIANGLES, attrs, 1, idx, MN_NONE);
 *     uint32_t node = mn_model_build_node(b, "root", MN_NONE);
 *     mn_model_build_node_mesh(b, node, mesh);
 *     mn_model *model;
 *     if (mn_model_build_finish(b, &model, &err) != MN_OK) ...   (b is gone either way)
 *     mn_gltf_write_file(model, "triangle.glb", NULL, &err);
 *     mn_model_free(model);
 *
 * ERRORS ARE STICKY.  The add functions return the new element's index, and
 * MN_NONE once anything failed (out of memory, an index out of range, a bad
 * argument); every later call is then a no-op, and mn_model_build_finish
 * returns the first error with a path naming the element ("nodes[3].mesh").
 * So a building sequence needs one check, at the end.
 *
 * MEMORY.  Everything the model holds (copies of every array and string
 * passed in) lives in the model's one arena, from the allocator given to
 * begin; the caller's arrays are never kept.  The arrays that grow as
 * elements are added (accessors, meshes, nodes, ...) double in the
 * allocator's memory, each outgrown block given back at once, and finish
 * moves them into the arena at their exact sizes: building costs the
 * finished model plus at most twice its largest such array (a million
 * accessors: 176 MB of mn_accessor, 352 MB more at most while building),
 * never the old copies of every array.  Not thread-safe: one builder, one
 * thread.
 */
#ifndef MARIONETTE_MODEL_BUILD_H
#define MARIONETTE_MODEL_BUILD_H

#include "core.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mn_model_builder mn_model_builder;

/* A new, empty builder; NULL only when out of memory.  allocator NULL: malloc/free. */
MN_API mn_model_builder *mn_model_build_begin(const mn_allocator *allocator);

/*
 * Finish: the model gets its node_order, default scene (every root node, in
 * index order), animation durations and bounds, and *out_model receives it
 * (free with mn_model_free).  The builder is released whether or not this
 * succeeds.  On failure *out_model is NULL and err holds the first error of
 * the building sequence.  A NULL builder gives MN_OUT_OF_MEMORY (begin failed).
 */
MN_API mn_status mn_model_build_finish(mn_model_builder *builder, mn_model **out_model, mn_error *err);

/* Drop a builder and everything built so far.  NULL is allowed. */
MN_API void mn_model_build_discard(mn_model_builder *builder);

/* The first error so far (MN_OK when none): to stop a long build early. */
MN_API mn_status mn_model_build_status(const mn_model_builder *builder);

/* ---- accessors --------------------------------------------------------------------------- */

/*
 * An accessor holding a copy of `count` elements of `type`, tightly packed
 * (data holds count × components values), with min/max computed.  name may
 * be NULL.  count must be at least 1 (glTF has no empty accessor).
 * Returns the accessor index.
 */
MN_API uint32_t mn_model_build_accessor_f32(mn_model_builder *builder, const char *name,
                                            const float *data, uint32_t count, mn_accessor_type type);
MN_API uint32_t mn_model_build_accessor_u32(mn_model_builder *builder, const char *name,
                                            const uint32_t *data, uint32_t count, mn_accessor_type type);
MN_API uint32_t mn_model_build_accessor_u16(mn_model_builder *builder, const char *name,
                                            const uint16_t *data, uint32_t count, mn_accessor_type type);

/* ---- materials, images, textures ---------------------------------------------------------- */

/* The glTF defaults: white base colour, metallic 1, roughness 1, no textures, opaque, ... */
MN_API void mn_model_build_material_defaults(mn_material *out);

/* A copy of *material (its strings copied too; a NULL name becomes "material<i>"). */
MN_API uint32_t mn_model_build_material(mn_model_builder *builder, const mn_material *material);

/*
 * An image: by `uri` (kept as written, e.g. a texture file beside the model:
 * data NULL, size 0, as the reader leaves an image it could not resolve), or
 * embedded (`data`/`size` copied; mime_type required then).  Either uri or
 * data must be given.
 */
MN_API uint32_t mn_model_build_image(mn_model_builder *builder, const char *name, const char *mime_type,
                                     const char *uri, const void *data, size_t size);

/* A sampler: glTF filter and wrap enum values (0 filters: absent; 0 wraps: REPEAT). */
MN_API uint32_t mn_model_build_sampler(mn_model_builder *builder, uint32_t mag_filter, uint32_t min_filter,
                                       uint32_t wrap_s, uint32_t wrap_t);

/* A texture of image `image` (required) with `sampler` (MN_NONE for none). */
MN_API uint32_t mn_model_build_texture(mn_model_builder *builder, uint32_t image, uint32_t sampler);

/* ---- meshes ------------------------------------------------------------------------------------ */

/* One attribute of a primitive: its glTF name ("POSITION", "TEXCOORD_0", "_CUSTOM") and accessor. */
typedef struct mn_build_attribute {
    const char *name;
    uint32_t accessor;
} mn_build_attribute;

/* An empty mesh (name may be NULL); add primitives to it. */
MN_API uint32_t mn_model_build_mesh(mn_model_builder *builder, const char *name);

/*
 * A primitive of `mesh`: its attributes (every accessor the same count),
 * indices (a SCALAR u16/u32 accessor, or MN_NONE) and material (or MN_NONE).
 * Strips and fans are refused (MN_INVALID_VALUE): give triangle lists, as
 * the reader does.  Returns the primitive's index within the mesh.
 */
MN_API uint32_t mn_model_build_primitive(mn_model_builder *builder, uint32_t mesh, mn_primitive_mode mode,
                                         const mn_build_attribute *attributes, uint32_t attribute_count,
                                         uint32_t indices, uint32_t material);

/*
 * A morph target of primitive `primitive` of `mesh`: delta accessors
 * (MN_NONE where absent).  Every primitive of a mesh needs the same number
 * of targets by finish; the mesh's default weights are zeros.
 */
MN_API uint32_t mn_model_build_morph_target(mn_model_builder *builder, uint32_t mesh, uint32_t primitive,
                                            uint32_t position, uint32_t normal, uint32_t tangent);

/* JSON text for a mesh's extras (checked when written). */
MN_API void mn_model_build_mesh_extras(mn_model_builder *builder, uint32_t mesh, const char *extras_json);

/* ---- nodes, skins ------------------------------------------------------------------------------- */

/*
 * A node, a child of `parent` (an existing node) or a root (MN_NONE).  name
 * NULL becomes "node<i>".  Identity transform.  A node's children are listed
 * in the order they were made (or re-parented).
 */
MN_API uint32_t mn_model_build_node(mn_model_builder *builder, const char *name, uint32_t parent);

/*
 * Move `node` under `parent` (MN_NONE: make it a root), for trees whose
 * parents come after their children (make every node, then link them).
 * Finish refuses a cycle (MN_HIERARCHY).
 */
MN_API void mn_model_build_node_parent(mn_model_builder *builder, uint32_t node, uint32_t parent);

/* The node's translation, rotation (x y z w, normalised here) and scale; a NULL one is left as it is. */
MN_API void mn_model_build_node_trs(mn_model_builder *builder, uint32_t node, const float translation[3],
                                    const float rotation[4], const float scale[3]);

/* The node instances `mesh` (skinned by `skin`, or MN_NONE). */
MN_API void mn_model_build_node_mesh(mn_model_builder *builder, uint32_t node, uint32_t mesh, uint32_t skin);

/* JSON text for the node's extras (checked when written). */
MN_API void mn_model_build_node_extras(mn_model_builder *builder, uint32_t node, const char *extras_json);

/*
 * A skin over `joint_count` existing nodes with their inverse bind matrices
 * (16 floats a joint, column-major; NULL: identities, as the reader makes
 * them) and `skeleton` (a node or MN_NONE).
 */
MN_API uint32_t mn_model_build_skin(mn_model_builder *builder, const char *name, const uint32_t *joints,
                                    uint32_t joint_count, const float *inverse_bind, uint32_t skeleton);

/* ---- animations ----------------------------------------------------------------------------------- */

/* An animation without channels yet (name NULL becomes "anim<i>"; extras JSON text or NULL). */
MN_API uint32_t mn_model_build_animation(mn_model_builder *builder, const char *name, const char *extras_json);

/*
 * A channel of `animation` driving `path` of `node`: key_count times
 * (seconds, finite, the first 0 or more, strictly increasing, as glTF
 * requires; MN_INVALID_VALUE otherwise) and values (3 floats a key for
 * translation and scale, 4 for rotation x y z w, the mesh's target count for
 * weights; three times that per key for CUBICSPLINE: in-tangent, value,
 * out-tangent).  Both are copied, except that a channel whose times equal
 * the previous channel's of the same animation shares them (one accessor in
 * the file).  Returns the channel's index within the animation.
 */
MN_API uint32_t mn_model_build_channel(mn_model_builder *builder, uint32_t animation, uint32_t node,
                                       mn_anim_path path, mn_interpolation interpolation, const float *times,
                                       const float *values, uint32_t key_count);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_MODEL_BUILD_H */
