/*
 * marionette/model.h — a loaded model: buffers, accessors, meshes, materials,
 * images, nodes, scenes, skins and animations.
 *
 * An mn_model is what a reader (mn_gltf_read_*, see gltf.h) produces.  It is
 * plain data: every array is `thing` + `thing_count`, cross-references are
 * uint32_t indices into the model's arrays, and MN_NONE (UINT32_MAX) means
 * "absent".  Everything the model holds lives in one arena and is freed by
 * one mn_model_free().  Where documented, pointers are views into the input
 * bytes (mn_gltf_read_memory does not copy the file): keep those bytes alive
 * as long as the model.
 *
 * The reader has validated every index and range before you see the model:
 * an accessor never reaches past its buffer, an index never points outside
 * its array, the node graph is a forest.  Functions here can therefore not
 * fail on a model that a reader returned.
 */
#ifndef MARIONETTE_MODEL_H
#define MARIONETTE_MODEL_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- accessors -------------------------------------------------------- */

typedef enum mn_component {
    MN_COMPONENT_INVALID = 0,
    MN_COMPONENT_I8,
    MN_COMPONENT_U8,
    MN_COMPONENT_I16,
    MN_COMPONENT_U16,
    MN_COMPONENT_U32,
    MN_COMPONENT_F32
} mn_component;

/*
 * The short name of a component type: "i8", "u8", "i16", "u16", "u32", "f32"
 * (what `marionette info` prints); "invalid" for MN_COMPONENT_INVALID and any
 * value outside the enum.  Like every mn_*_name function of this header: a
 * static string, never NULL.
 */
MN_API const char *mn_component_name(mn_component component);

typedef enum mn_accessor_type {
    MN_TYPE_INVALID = 0,
    MN_TYPE_SCALAR,
    MN_TYPE_VEC2,
    MN_TYPE_VEC3,
    MN_TYPE_VEC4,
    MN_TYPE_MAT2,
    MN_TYPE_MAT3,
    MN_TYPE_MAT4
} mn_accessor_type;

/* glTF's name of an accessor type: "SCALAR", "VEC2" ... "MAT4"; "invalid" otherwise. */
MN_API const char *mn_accessor_type_name(mn_accessor_type type);

/*
 * A typed view of elements.  `data` points at element 0; element i starts at
 * data + i*stride.  For matrices of 1- and 2-byte components the glTF column
 * alignment rule applies: each column starts on a 4-byte boundary
 * (mn_accessor_element_size accounts for it).  Sparse accessors are
 * materialised by the reader into a dense copy, so `data` always holds the
 * final values.  An accessor with neither bufferView nor sparse reads as
 * zeros: data points at zeroed arena memory.
 */
typedef struct mn_accessor {
    const char *name;          /* NULL when the file gives none */
    const uint8_t *data;       /* first element; never NULL when count > 0 */
    uint32_t count;            /* number of elements */
    uint32_t stride;           /* bytes from one element to the next */
    mn_component component;
    mn_accessor_type type;
    bool normalized;           /* integer components map to [0,1] or [-1,1] */
    bool has_bounds;           /* min/max present in the file */
    float min[16], max[16];    /* per component, when has_bounds */
    uint32_t sparse_count;     /* sparse substitutions applied (0 when not sparse) */
    uint32_t buffer_view;      /* MN_NONE when zeros or sparse over zeros */
} mn_accessor;

/* Number of components per element: 1 (SCALAR) ... 16 (MAT4). */
MN_API uint32_t mn_accessor_components(mn_accessor_type type);

/* Bytes of one component: 1, 2 or 4. */
MN_API uint32_t mn_component_size(mn_component component);

/* Bytes of one tightly packed element, column padding of small matrices included. */
MN_API uint32_t mn_accessor_element_size(const mn_accessor *accessor);

/*
 * Zero-copy float view: returns `data` when the accessor stores f32 components
 * packed with stride == element size (a VEC3 float accessor with stride 12),
 * else NULL (convert with mn_accessor_unpack_floats).
 */
MN_API const float *mn_accessor_float_view(const mn_accessor *accessor);

/*
 * Convert every element to floats, components packed (count × components
 * floats; matrix column padding dropped).  Normalized integers map to [0,1]
 * (unsigned) or [-1,1] (signed, max(c/127, -1) as glTF says); plain integers
 * convert by value.  Returns the number of floats the full result needs; writes
 * min(that, out_capacity) floats.  out may be NULL to ask for the size.
 * Vectorised for the common layouts.
 */
MN_API size_t mn_accessor_unpack_floats(const mn_accessor *accessor, float *out, size_t out_capacity);

/*
 * Convert every component of an integer accessor to uint32 (indices, joints).
 * Float components are truncated toward zero; negative values and NaN give 0,
 * values above UINT32_MAX saturate.  Same size protocol as unpack_floats.
 */
MN_API size_t mn_accessor_unpack_u32(const mn_accessor *accessor, uint32_t *out, size_t out_capacity);

/* ---- buffers ---------------------------------------------------------- */

typedef struct mn_buffer {
    const char *name;
    const uint8_t *data;       /* GLB BIN: a view into the input (or the file read); data: URI or
                                  external file: owned by the model; NULL for an
                                  EXT_meshopt_compression fallback buffer, which holds no data */
    size_t size;               /* byteLength */
    const char *uri;           /* as written, NULL for the GLB BIN buffer */
} mn_buffer;

typedef struct mn_buffer_view {
    const char *name;
    uint32_t buffer;
    size_t offset;             /* byteOffset within the buffer */
    size_t size;               /* byteLength */
    uint32_t stride;           /* byteStride, 0 when not given */
    const uint8_t *data;       /* buffer data + offset (decoded bytes for EXT_meshopt_compression) */
    size_t stored_size;        /* bytes it takes in the file: size, or the byteLength of the
                                  compressed bytes under EXT_meshopt_compression (0 by hand) */
} mn_buffer_view;

/* ---- images, samplers, textures, materials ---------------------------- */

typedef struct mn_image {
    const char *name;
    const char *mime_type;     /* "image/png", "image/jpeg", ...; guessed from magic bytes when absent */
    const char *uri;           /* as written; NULL for buffer-view images */
    const uint8_t *data;       /* the encoded bytes: a view into a buffer, or arena-owned */
    size_t size;               /* 0 when the image's file could not be resolved (a warning says so) */
    uint32_t buffer_view;      /* MN_NONE unless the image lives in a buffer view */
} mn_image;

typedef struct mn_sampler {
    const char *name;
    uint32_t mag_filter, min_filter;   /* glTF enum values, 0 when absent */
    uint32_t wrap_s, wrap_t;           /* glTF enum values, default 10497 (REPEAT) */
} mn_sampler;

typedef struct mn_texture {
    const char *name;
    uint32_t image;            /* MN_NONE when absent */
    uint32_t sampler;          /* MN_NONE when absent */
} mn_texture;

/* A material's reference to a texture, with KHR_texture_transform when present. */
typedef struct mn_texture_ref {
    uint32_t texture;          /* MN_NONE when the slot is empty */
    uint32_t texcoord;         /* TEXCOORD_n set (after the transform's override) */
    float scale;               /* normalTexture.scale, occlusionTexture.strength; 1 otherwise */
    bool has_transform;        /* KHR_texture_transform present */
    float offset[2];           /* transform, defaults 0 0 */
    float rotation;            /* radians, default 0 */
    float uv_scale[2];         /* defaults 1 1 */
} mn_texture_ref;

typedef enum mn_alpha_mode {
    MN_ALPHA_OPAQUE = 0,
    MN_ALPHA_MASK,
    MN_ALPHA_BLEND
} mn_alpha_mode;

/* glTF's name of an alpha mode: "OPAQUE", "MASK", "BLEND"; "invalid" otherwise. */
MN_API const char *mn_alpha_mode_name(mn_alpha_mode mode);

typedef struct mn_material {
    const char *name;          /* "material0", "material1", ... when the file gives none */
    bool default_name;         /* true: the file gave none and `name` is that display name,
                                  which mn_gltf_write does not write (see mn_node) */
    float base_color[4];       /* default 1 1 1 1 */
    float metallic;            /* default 1 */
    float roughness;           /* default 1 */
    mn_texture_ref base_color_texture;
    mn_texture_ref metallic_roughness_texture;
    mn_texture_ref normal_texture;      /* .scale = normal scale */
    mn_texture_ref occlusion_texture;   /* .scale = occlusion strength */
    mn_texture_ref emissive_texture;
    float emissive[3];         /* emissiveFactor, default 0 0 0 */
    float emissive_strength;   /* KHR_materials_emissive_strength, default 1 */
    mn_alpha_mode alpha_mode;
    float alpha_cutoff;        /* default 0.5 */
    bool double_sided;
    const char *extras;        /* JSON text of "extras", NULL when absent */
} mn_material;

/* ---- meshes ------------------------------------------------------------ */

typedef enum mn_primitive_mode {
    MN_MODE_POINTS = 0,
    MN_MODE_LINES = 1,
    MN_MODE_LINE_LOOP = 2,
    MN_MODE_LINE_STRIP = 3,
    MN_MODE_TRIANGLES = 4,
    MN_MODE_TRIANGLE_STRIP = 5,
    MN_MODE_TRIANGLE_FAN = 6
} mn_primitive_mode;

/* glTF's name of a primitive mode: "POINTS", "LINES" ... "TRIANGLE_FAN"; "invalid" otherwise. */
MN_API const char *mn_primitive_mode_name(mn_primitive_mode mode);

typedef enum mn_semantic {
    MN_SEMANTIC_INVALID = 0,
    MN_SEMANTIC_POSITION,
    MN_SEMANTIC_NORMAL,
    MN_SEMANTIC_TANGENT,
    MN_SEMANTIC_TEXCOORD,
    MN_SEMANTIC_COLOR,
    MN_SEMANTIC_JOINTS,
    MN_SEMANTIC_WEIGHTS,
    MN_SEMANTIC_CUSTOM         /* an application-specific "_NAME" attribute */
} mn_semantic;

typedef struct mn_attribute {
    const char *name;          /* as written: "TEXCOORD_1" */
    mn_semantic semantic;
    uint32_t set;              /* the n of TEXCOORD_n, 0 for POSITION etc. */
    uint32_t accessor;
} mn_attribute;

/*
 * KHR_materials_variants: when the variant with index v (into
 * model->variants) is chosen, a primitive draws with the material of the
 * mapping that lists v, and with its own material otherwise.  The reader
 * refuses a variant listed by two mappings of one primitive, so at most one
 * mapping lists each variant.
 */
typedef struct mn_variant_mapping {
    uint32_t material;               /* into model->materials */
    uint32_t *variants;              /* into model->variants, at least one */
    uint32_t variant_count;
    const char *name;                /* the mapping's "name", NULL when absent */
} mn_variant_mapping;

/* One morph target: delta accessors (MN_NONE when the target lacks one). */
typedef struct mn_morph_target {
    uint32_t position, normal, tangent;
} mn_morph_target;

/*
 * One draw of a mesh.  Triangle strips and fans are converted to triangle
 * lists by the reader: `mode` is then MN_MODE_TRIANGLES, `original_mode` the
 * mode the file wrote, and `indices` names a u32 SCALAR accessor the reader
 * synthesized (no buffer view), appended after the file's own accessors in
 * model->accessors.  Strip triangle i is (v[i], v[i+1+i%2], v[i+2-i%2]) and
 * fan triangle i is (v[i+1], v[i+2], v[0]), as the glTF specification defines
 * them, so every triangle keeps the strip's or fan's front face.  Points and
 * lines (loops and strips too) keep their mode.
 */
typedef struct mn_primitive {
    mn_primitive_mode mode;          /* strips and fans arrive as MN_MODE_TRIANGLES */
    mn_primitive_mode original_mode; /* the mode written in the file */
    uint32_t indices;                /* accessor, MN_NONE for non-indexed (strip/fan conversion makes a u32 index accessor) */
    uint32_t material;               /* MN_NONE when absent */
    mn_attribute *attributes;
    uint32_t attribute_count;
    mn_morph_target *targets;
    uint32_t target_count;
    uint32_t vertex_count;           /* the count every attribute shares (POSITION's); 0 for a
                                        primitive without attributes */
    mn_variant_mapping *variant_mappings;  /* KHR_materials_variants, NULL when absent */
    uint32_t variant_mapping_count;
} mn_primitive;

/* The accessor index of attribute (semantic, set) or MN_NONE. */
MN_API uint32_t mn_primitive_find(const mn_primitive *primitive, mn_semantic semantic, uint32_t set);

typedef struct mn_mesh {
    const char *name;
    mn_primitive *primitives;
    uint32_t primitive_count;
    float *weights;                  /* default morph weights, target_count of them (zeros when absent) */
    uint32_t weight_count;
    const char **target_names;       /* from extras.targetNames, NULL when absent */
    const char *extras;              /* JSON text, NULL when absent */
} mn_mesh;

/* ---- nodes, scenes, skins ---------------------------------------------- */

typedef struct mn_node {
    const char *name;                /* "node0", "node1", ... when the file gives none */
    bool default_name;               /* true: the file gave no name and `name` is the reader's
                                        display name above, for messages and lookups; the glTF
                                        writer writes a name only where default_name is false,
                                        so a round trip adds no name the source did not have.
                                        The model builder sets it where it is given no name;
                                        false (zeroed) means `name` is the element's own */
    uint32_t parent;                 /* MN_NONE for roots */
    uint32_t *children;
    uint32_t child_count;
    float translation[3];            /* default 0 0 0 */
    float rotation[4];               /* x y z w, default 0 0 0 1 */
    float scale[3];                  /* default 1 1 1 */
    bool has_matrix;                 /* the file gave "matrix"; TRS holds its exact decomposition */
    uint32_t mesh, skin, camera;     /* MN_NONE when absent */
    float *weights;                  /* node morph weights, NULL when absent */
    uint32_t weight_count;
    uint32_t light;                  /* KHR_lights_punctual light, MN_NONE when absent */
    bool hidden;                     /* KHR_node_visibility "visible": false; hides the node and
                                        every descendant (false, the zero value, is visible) */
    /* EXT_mesh_gpu_instancing: the node's mesh is drawn instance_count times,
       instance i at node world × T(i)·R(i)·S(i).  Accessors (VEC3, VEC4
       quaternion, VEC3; MN_NONE for an attribute the file leaves out, which
       means identity); instance_count 0 when the node does not instance. */
    uint32_t instance_translation, instance_rotation, instance_scale;
    uint32_t instance_count;
    const char *extras;              /* JSON text, NULL when absent */
} mn_node;

typedef struct mn_scene {
    const char *name;
    uint32_t *nodes;                 /* root nodes */
    uint32_t node_count;
} mn_scene;

typedef struct mn_skin {
    const char *name;
    uint32_t *joints;                /* node indices */
    uint32_t joint_count;
    const float *inverse_bind;       /* 16 floats per joint, column-major; identity when the file has none */
    uint32_t skeleton;               /* MN_NONE when absent */
} mn_skin;

typedef struct mn_camera {
    const char *name;
    bool orthographic;
    float yfov, aspect_ratio, znear, zfar;  /* perspective (zfar 0 = infinite, aspect 0 = absent) */
    float xmag, ymag;                       /* orthographic */
} mn_camera;

/* KHR_lights_punctual */
typedef enum mn_light_type {
    MN_LIGHT_DIRECTIONAL = 0,
    MN_LIGHT_POINT,
    MN_LIGHT_SPOT
} mn_light_type;

/* glTF's name of a light type: "directional", "point", "spot"; "invalid" otherwise. */
MN_API const char *mn_light_type_name(mn_light_type type);

/*
 * A punctual light; it shines from its node (node->light), along the node's
 * local -Z.  The reader keeps what KHR_lights_punctual allows: colour
 * components and intensity >= 0, range > 0 when given, and for a spot
 * 0 <= inner_cone_angle < outer_cone_angle <= pi/2.  Fields of a type that
 * does not use them (a directional light's range, a point light's cones) keep
 * their defaults.
 */
typedef struct mn_light {
    const char *name;                /* NULL when absent */
    mn_light_type type;
    float color[3];                  /* linear RGB, default 1 1 1 */
    float intensity;                 /* candela (point, spot) or lux (directional), default 1 */
    float range;                     /* 0 when absent: infinite */
    float inner_cone_angle;          /* spot only, radians, default 0 */
    float outer_cone_angle;          /* spot only, radians, default π/4 */
} mn_light;

/* ---- animations -------------------------------------------------------- */

typedef enum mn_anim_path {
    MN_PATH_TRANSLATION = 0,
    MN_PATH_ROTATION,
    MN_PATH_SCALE,
    MN_PATH_WEIGHTS,
    MN_PATH_POINTER                  /* KHR_animation_pointer: the channel's `pointer` says what */
} mn_anim_path;

/* glTF's name of an animation path: "translation", "rotation", "scale", "weights", "pointer";
   "invalid" otherwise. */
MN_API const char *mn_anim_path_name(mn_anim_path path);

typedef enum mn_interpolation {
    MN_INTERP_LINEAR = 0,
    MN_INTERP_STEP,
    MN_INTERP_CUBICSPLINE
} mn_interpolation;

/* glTF's name of an interpolation: "LINEAR", "STEP", "CUBICSPLINE"; "invalid" otherwise. */
MN_API const char *mn_interpolation_name(mn_interpolation interpolation);

/*
 * KHR_animation_pointer: the animatable properties a pointer channel can
 * drive, from the extension's list (core glTF, KHR_texture_transform,
 * KHR_materials_emissive_strength, KHR_lights_punctual, KHR_node_visibility).
 * The comment gives the pointer after the object's index and the value's
 * floats.  MN_PROP_TEXTURE_* name the slot in mn_pointer.slot.
 */
typedef enum mn_pointer_property {
    MN_PROP_NODE_TRANSLATION = 0,    /* /nodes/N/translation, 3 */
    MN_PROP_NODE_ROTATION,           /* /nodes/N/rotation, 4 (a quaternion x y z w) */
    MN_PROP_NODE_SCALE,              /* /nodes/N/scale, 3 */
    MN_PROP_NODE_WEIGHTS,            /* /nodes/N/weights, the mesh's morph target count */
    MN_PROP_NODE_VISIBLE,            /* /nodes/N/extensions/KHR_node_visibility/visible, 1 (bool) */
    MN_PROP_MESH_WEIGHTS,            /* /meshes/N/weights, its morph target count */
    MN_PROP_BASE_COLOR,              /* /materials/N/pbrMetallicRoughness/baseColorFactor, 4 */
    MN_PROP_METALLIC,                /* .../pbrMetallicRoughness/metallicFactor, 1 */
    MN_PROP_ROUGHNESS,               /* .../pbrMetallicRoughness/roughnessFactor, 1 */
    MN_PROP_ALPHA_CUTOFF,            /* /materials/N/alphaCutoff, 1 */
    MN_PROP_EMISSIVE,                /* /materials/N/emissiveFactor, 3 */
    MN_PROP_EMISSIVE_STRENGTH,       /* .../extensions/KHR_materials_emissive_strength/emissiveStrength, 1 */
    MN_PROP_NORMAL_SCALE,            /* /materials/N/normalTexture/scale, 1 */
    MN_PROP_OCCLUSION_STRENGTH,      /* /materials/N/occlusionTexture/strength, 1 */
    MN_PROP_TEXTURE_OFFSET,          /* /materials/N/<slot>/extensions/KHR_texture_transform/offset, 2 */
    MN_PROP_TEXTURE_ROTATION,        /* .../rotation, 1 */
    MN_PROP_TEXTURE_SCALE,           /* .../scale, 2 */
    MN_PROP_CAMERA_YFOV,             /* /cameras/N/perspective/yfov, 1 */
    MN_PROP_CAMERA_ASPECT_RATIO,     /* /cameras/N/perspective/aspectRatio, 1 */
    MN_PROP_CAMERA_ZNEAR,            /* /cameras/N/perspective/znear or orthographic/znear, 1 */
    MN_PROP_CAMERA_ZFAR,             /* /cameras/N/perspective/zfar or orthographic/zfar, 1 */
    MN_PROP_CAMERA_XMAG,             /* /cameras/N/orthographic/xmag, 1 */
    MN_PROP_CAMERA_YMAG,             /* /cameras/N/orthographic/ymag, 1 */
    MN_PROP_LIGHT_COLOR,             /* /extensions/KHR_lights_punctual/lights/N/color, 3 */
    MN_PROP_LIGHT_INTENSITY,         /* .../lights/N/intensity, 1 */
    MN_PROP_LIGHT_RANGE,             /* .../lights/N/range, 1 */
    MN_PROP_LIGHT_INNER_CONE,        /* .../lights/N/spot/innerConeAngle, 1 */
    MN_PROP_LIGHT_OUTER_CONE,        /* .../lights/N/spot/outerConeAngle, 1 */
    MN_PROP_COUNT
} mn_pointer_property;

/* A material's texture slot, for MN_PROP_TEXTURE_* (mn_pointer.slot). */
typedef enum mn_texture_slot {
    MN_SLOT_BASE_COLOR = 0,          /* pbrMetallicRoughness/baseColorTexture */
    MN_SLOT_METALLIC_ROUGHNESS,      /* pbrMetallicRoughness/metallicRoughnessTexture */
    MN_SLOT_NORMAL,                  /* normalTexture */
    MN_SLOT_OCCLUSION,               /* occlusionTexture */
    MN_SLOT_EMISSIVE                 /* emissiveTexture */
} mn_texture_slot;

/*
 * A resolved KHR_animation_pointer target: the property, the index of its
 * object (node, mesh, material, camera or light, by the property) and the
 * floats one value holds.  The reader resolves every pointer against the
 * model it returns, so index is in range and the property is defined there.
 */
typedef struct mn_pointer {
    const char *text;                /* the JSON pointer as written ("/materials/0/alphaCutoff") */
    mn_pointer_property property;
    uint32_t index;                  /* into nodes, meshes, materials, cameras or lights */
    mn_texture_slot slot;            /* MN_PROP_TEXTURE_* only; 0 otherwise */
    uint32_t components;             /* 1, 2, 3, 4, or the morph target count (weights) */
} mn_pointer;

/*
 * One channel, with its sampler resolved.  times[key_count] ascending;
 * values hold `components` floats per element: 3 (translation, scale),
 * 4 (rotation x y z w), the morph target count (weights), or the pointer's
 * (MN_PATH_POINTER: KHR_animation_pointer).  LINEAR and STEP
 * have one element per key; CUBICSPLINE has three (in-tangent, value,
 * out-tangent) per key, as authored.  Normalised integer outputs are converted.
 */
typedef struct mn_channel {
    uint32_t node;                   /* MN_NONE for MN_PATH_POINTER (its pointer names the object) */
    mn_anim_path path;
    mn_interpolation interpolation;
    const float *times;
    const float *values;
    uint32_t key_count;
    uint32_t components;
    uint32_t sampler;                /* the glTF sampler index within the animation */
    mn_pointer pointer;              /* MN_PATH_POINTER only (zero otherwise); components above
                                        equal pointer.components.  A bool property (visible) has
                                        STEP keys whose values are 0 (false) or not (true) */
} mn_channel;

typedef struct mn_animation {
    const char *name;                /* "anim0", "anim1", ... when the file gives none */
    bool default_name;               /* true: the file gave none and `name` is that display name,
                                        which mn_gltf_write does not write (see mn_node) */
    mn_channel *channels;
    uint32_t channel_count;
    float duration;                  /* latest key time over the channels (0 when none) */
    const char *extras;              /* JSON text, NULL when absent */
    size_t stored_bytes;             /* bytes its samplers' keys take in the file: the stored_size
                                        of each buffer view its samplers' accessors use that no
                                        earlier animation uses, so the sum over the animations
                                        counts each view once (the reader fills it; 0 by hand) */
} mn_animation;

/* ---- warnings ---------------------------------------------------------- */

/* Something the reader tolerated (an unknown animation path, an unresolvable image, ...). */
typedef struct mn_warning {
    mn_status code;                  /* the code the flaw would have if it were fatal */
    const char *path;                /* JSON path */
    const char *message;
} mn_warning;

/* ---- the model --------------------------------------------------------- */

typedef struct mn_model {
    /* asset */
    const char *version;             /* asset.version, "2.0" */
    const char *min_version;         /* NULL when absent */
    const char *generator;           /* NULL when absent */
    const char *copyright;           /* NULL when absent */
    const char **extensions_used;
    uint32_t extensions_used_count;
    const char **extensions_required;
    uint32_t extensions_required_count;

    mn_buffer *buffers;             uint32_t buffer_count;
    mn_buffer_view *buffer_views;   uint32_t buffer_view_count;
    mn_accessor *accessors;         uint32_t accessor_count;
    mn_image *images;               uint32_t image_count;
    mn_sampler *samplers;           uint32_t sampler_count;
    mn_texture *textures;           uint32_t texture_count;
    mn_material *materials;         uint32_t material_count;
    mn_mesh *meshes;                uint32_t mesh_count;
    mn_node *nodes;                 uint32_t node_count;
    /* Every node index once, parents before children (depth-first from the
       roots, roots in index order, each node's children in their listed
       order), so one forward pass composes world matrices.  Filled by the
       reader (NULL when there are no nodes); a model built by hand may leave
       it NULL. */
    const uint32_t *node_order;
    mn_scene *scenes;               uint32_t scene_count;
    uint32_t scene;                  /* default scene, MN_NONE when absent */
    mn_skin *skins;                 uint32_t skin_count;
    mn_camera *cameras;             uint32_t camera_count;
    mn_light *lights;               uint32_t light_count;    /* KHR_lights_punctual */
    const char **variants;          uint32_t variant_count;  /* KHR_materials_variants names */
    mn_animation *animations;       uint32_t animation_count;
    mn_warning *warnings;           uint32_t warning_count;

    /* World-space bounds of the default scene (mn_model_default_scene: scene 0
       when none is named, every root when there are no scenes) at rest;
       min > max when empty. */
    float bounds_min[3], bounds_max[3];

    struct mn_model_private *priv;   /* the arena; not for callers */
} mn_model;

/* Free a model and everything it holds.  NULL is allowed. */
MN_API void mn_model_free(mn_model *model);

/* The node's local matrix T·R·S into out[16]. */
MN_API void mn_node_local_matrix(const mn_node *node, float out[16]);

/*
 * Instance `instance` of an EXT_mesh_gpu_instancing node (node->instance_count
 * of them): T·R·S from element `instance` of its TRANSLATION, ROTATION and
 * SCALE accessors into out[16], an attribute the node leaves out counting as
 * identity and the rotation normalised (a zero one is identity).  The
 * instance's world is the node's world × this.  Returns false, with out the
 * identity, for a NULL model or out, a node out of range, one that does not
 * instance, an instance at or beyond its count, or an accessor out of range
 * or too short (only in a model built by hand).
 */
MN_API bool mn_node_instance_matrix(const mn_model *model, uint32_t node, uint32_t instance, float out[16]);

/*
 * World matrices of every node at rest (16 floats per node, node order) into
 * out, which holds 16 × node_count floats: one forward pass over node_order,
 * world = world[parent] × local.  Without a node_order (a model built by
 * hand) each node's parent chain is walked instead.  Never fails on a
 * reader's model.
 */
MN_API void mn_model_rest_worlds(const mn_model *model, float *out);

/*
 * The scene shown when the caller names none, the one rule the bounds,
 * instances (mn_instance_create) and voxel part meshes keep: model->scene when
 * it is one of the model's scenes (glTF's "scene"); else scene 0 when there
 * are scenes (glTF leaves that choice to the application, and the first is
 * the common one; an index out of range, possible only in a model built by
 * hand, counts as none named); else MN_NONE, which stands for every root node
 * (every node without a parent).  MN_NONE for NULL.
 */
MN_API uint32_t mn_model_default_scene(const mn_model *model);

/*
 * Skin influences of a primitive in the layout of the triangle soup below:
 * 4 joints and 4 weights per vertex from JOINTS_0/WEIGHTS_0, weights
 * divided by their sum when it is positive and finite (however close to 1),
 * else [1,0,0,0] (all zeros, a negative or NaN sum).  joints/weights hold
 * 4 × vertex_count each.  Returns false when the primitive has no JOINTS_0/WEIGHTS_0.
 */
MN_API bool mn_primitive_skin_influences(const mn_model *model, const mn_primitive *primitive,
                                         uint16_t *joints, float *weights);

/*
 * Vertex colours of COLOR_<set> as linear float RGBA, 4 floats per vertex
 * (vec3 colours get alpha 1; normalized u8/u16 map to [0,1]).  Returns the
 * number of floats needed (4 × vertex_count), writes at most out_capacity;
 * returns 0 when the primitive has no such set.  out may be NULL to ask the size.
 */
MN_API size_t mn_primitive_colors(const mn_model *model, const mn_primitive *primitive, uint32_t set,
                                  float *out, size_t out_capacity);

/*
 * Expand a primitive into a stride-8 non-indexed triangle soup:
 * position(3) normal(3) uv(2) per vertex, uv from TEXCOORD_0 (zeros when absent).
 * A primitive without NORMAL gets flat (face) normals.  When `world` is not
 * NULL, positions are transformed by it and normals by its inverse-transpose,
 * renormalised (the static bake).  Only triangle primitives expand (points and
 * lines return 0).  Returns the number of vertices the soup has; writes at most
 * out_vertex_capacity of them (8 floats each).  out may be NULL to ask the size.
 */
MN_API size_t mn_primitive_soup(const mn_model *model, const mn_primitive *primitive,
                                const float *world, float *out, size_t out_vertex_capacity);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_MODEL_H */
