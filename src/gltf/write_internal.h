/*
 * Private: the glTF writer's shared state.
 *
 * Writing goes in three passes over one mn_gltf_writer:
 *
 *   gltf/write_plan.c   decide what is written: the accessors (which model
 *                       accessor or float array each comes from, converted
 *                       how, with which bounds), quantization per mesh and the
 *                       node transforms that absorb it, animation samplers,
 *                       and where every buffer view lies in the one buffer
 *   gltf/write_json.c   print the JSON document from the plan (twice: counted,
 *                       then streamed)
 *   gltf/write.c        entry points: options, the GLB container or .gltf +
 *                       .bin, streaming the buffer to the sink through a
 *                       staging block, and mn_gltf_write_file (its files
 *                       as one output set, io/output.c)
 *
 * Everything the plan holds lives in one arena released at the end.  Not installed.
 */
#ifndef MN_GLTF_WRITE_INTERNAL_H
#define MN_GLTF_WRITE_INTERNAL_H

#include <marionette/gltf.h>

#include "core/core.h"
#include "io/io.h"
#include "model/model.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the glTF writer copies floats and integers as they lie in memory: glTF is little-endian"
#endif

/* glTF enum values the writer prints. */
#define MN_GL_ARRAY_BUFFER 34962u
#define MN_GL_ELEMENT_ARRAY_BUFFER 34963u

/* How the bytes of a written accessor are produced. */
typedef enum mn_wsource {
    MN_WSOURCE_COPY = 0,    /* a model accessor's elements as they are (restrided when needed) */
    MN_WSOURCE_QPOS,        /* f32 VEC3 positions → normalized i16, (p - center) / half */
    MN_WSOURCE_QNORMAL,     /* f32 VEC3 normals → normalized i8, closest to unit length */
    MN_WSOURCE_QUV,         /* f32 VEC2 in [0, 1] → normalized u16 */
    MN_WSOURCE_SCALED,      /* f32 VEC3 morph position deltas divided by half */
    MN_WSOURCE_FLOATS,      /* a float array (inverse bind matrices, animation keys), as is */
    MN_WSOURCE_BOOLS,       /* a float array → u8 SCALAR, 1 where not 0 (KHR_animation_pointer bools) */
    MN_WSOURCE_MESHOPT      /* animation keys filtered and meshopt-encoded at plan time (packed) */
} mn_wsource;

/* The EXT_meshopt_compression filters the writer uses, numbered as the reader's names. */
typedef enum mn_wfilter {
    MN_WFILTER_NONE = 0,
    MN_WFILTER_QUATERNION = 2,
    MN_WFILTER_EXPONENTIAL = 3
} mn_wfilter;

/* One accessor of the written file, with its buffer view. */
typedef struct mn_wacc {
    mn_wsource source;
    const mn_accessor *from;     /* COPY, Q*, SCALED */
    const float *floats;         /* FLOATS */
    const char *name;
    uint32_t count;
    mn_component component;
    mn_accessor_type type;
    bool normalized;
    uint32_t element_size;       /* bytes of one tightly packed element */
    uint32_t stride;             /* bytes per element as written (element_size, or rounded up to 4) */
    uint32_t target;             /* MN_GL_ARRAY_BUFFER, MN_GL_ELEMENT_ARRAY_BUFFER or 0 */
    bool has_bounds;
    double *min, *max;           /* when has_bounds: one per component, in the written component's own
                                    values (the plan's arena; 16 of each would be most of a plan) */
    float center[3], half;       /* QPOS (center, half) and SCALED (half) */
    size_t offset, size;         /* the buffer view in the one buffer (MESHOPT: in its group) */
    uint32_t view;               /* its buffer view (plan_layout) */
    mn_wfilter filter;           /* MESHOPT: the filter, with `bits` */
    uint32_t bits;
    const uint8_t *filtered;     /* MESHOPT: count × stride filtered bytes, before the codec */
    uint32_t group;              /* MESHOPT: the shared view it lies in (mn_wgroup) */
    size_t group_offset;         /* MESHOPT: its byteOffset in that view */
} mn_wacc;

/*
 * One EXT_meshopt_compression view shared by every MESHOPT accessor of one
 * filter and stride: the codec's per-view cost (a tail of at least 32
 * bytes) is paid once, not per channel.
 */
typedef struct mn_wgroup {
    mn_wfilter filter;
    uint32_t stride, count;      /* elements of every accessor in it */
    const uint8_t *packed;       /* the encoded bytes (size of them); plain: the decoded ones */
    size_t size, offset;         /* in buffer 0 */
    bool plain;                  /* the codec saved nothing: the decoded bytes in a plain view
                                    (the same values without the extension) */
    size_t fallback_offset;      /* the decoded view's place in the fallback buffer */
    uint32_t view;
} mn_wgroup;

/* What a written accessor is made from: equal keys share one accessor. */
typedef struct mn_wkey {
    const void *ptr;             /* the model accessor or the float array */
    uint32_t a, b, c;
} mn_wkey;

/* A set of keys, numbered in the order they were added (open addressing). */
typedef struct mn_wtable {
    mn_wkey *keys;               /* keys[i] is entry i */
    uint32_t *slots;             /* entry + 1, 0 = empty */
    uint32_t mask, count;
} mn_wtable;

/* A mesh's position quantization. */
typedef struct mn_wmesh {
    bool quantized;
    float center[3], half;
} mn_wmesh;

/* A written animation sampler. */
typedef struct mn_wsampler {
    uint32_t input, output;      /* written accessors */
    mn_interpolation interpolation;
} mn_wsampler;

typedef struct mn_gltf_writer {
    const mn_model *model;
    mn_gltf_write_options options;   /* defaults filled in */
    mn_error *err;                   /* never NULL (a local one when the caller gave none) */
    mn_arena arena;                  /* everything the plan holds */

    mn_wacc *accs;                   /* written accessors, in the order they were first needed */
    uint32_t acc_count, acc_capacity;
    mn_wtable acc_table;             /* what each accessor is made from → its index */
    mn_wtable sampler_table;         /* (animation, input, output, interpolation) → sampler index */

    mn_wmesh *meshes;                /* per model mesh */
    bool *node_folds;                /* per node: its TRS absorbs its mesh's dequantization */
    float (*node_translation)[3];    /* per node, the TRS written where node_folds */
    float (*node_scale)[3];

    uint32_t *image_views;           /* per image: its buffer view, MN_NONE when it keeps a uri */
    size_t *image_offsets;

    mn_wsampler *samplers;           /* every animation's samplers, animation after animation */
    uint32_t *anim_first_sampler;    /* per animation */
    uint32_t *anim_sampler_count;
    uint32_t *channel_samplers;      /* per channel of every animation (flat), its sampler within its animation */

    size_t bin_size;                 /* the one buffer, a multiple of 4 */
    size_t fallback_size;            /* EXT_meshopt_compression's fallback buffer (buffer 1), 0: none */
    mn_wgroup groups[8];             /* the meshopt views (filter × stride: a handful at most) */
    uint32_t group_count;
    uint32_t view_count;             /* accessors' own views, then groups, then images */
    bool uses_meshopt;               /* EXT_meshopt_compression: animations encoded */
    bool uses_quantization;          /* KHR_mesh_quantization */
    bool uses_texture_transform;     /* KHR_texture_transform */
    bool uses_emissive_strength;     /* KHR_materials_emissive_strength */
    bool uses_texture_webp;          /* EXT_texture_webp: a texture's image is WebP */
    bool uses_lights;                /* KHR_lights_punctual: the model has lights */
    bool uses_visibility;            /* KHR_node_visibility: a node is hidden */
    bool uses_instancing;            /* EXT_mesh_gpu_instancing: a node instances its mesh */
    bool uses_variants;              /* KHR_materials_variants: the model has variants */
    bool uses_animation_pointer;     /* KHR_animation_pointer: a pointer channel is written */
    uint8_t *animated_slots;         /* per material, texture slots a pointer animates; NULL: none */
} mn_gltf_writer;

/* ---- gltf/write_plan.c --------------------------------------------------------------------- */

/* Decide every accessor, buffer view, sampler and node fold; MN_OK or the first error. */
mn_status mni_gltf_write_plan(mn_gltf_writer *w);

/*
 * The written accessor of mesh attribute `semantic` (accessor index `accessor`
 * of the model) of mesh `mesh`, a morph target's when `target`: the plan made
 * it, so this only looks it up (MN_NONE if the plan did not).
 */
uint32_t mni_gltf_write_attribute(mn_gltf_writer *w, uint32_t mesh, mn_semantic semantic, bool target,
                                  uint32_t accessor);

/* The written accessor of primitive indices `accessor` (looked up as above). */
uint32_t mni_gltf_write_indices(mn_gltf_writer *w, uint32_t accessor);

/* The written accessor of an EXT_mesh_gpu_instancing attribute, model accessor `accessor` (looked up). */
uint32_t mni_gltf_write_instance_attribute(mn_gltf_writer *w, uint32_t accessor);

/* The written accessor of skin `skin`'s inverse bind matrices (MN_NONE when it has none). */
uint32_t mni_gltf_write_ibm(mn_gltf_writer *w, uint32_t skin);

/*
 * Produce the bytes of written accessor `acc` in pieces: `emit` receives
 * either a direct view of the model's bytes (a tight copy) or converted
 * bytes in `scratch` (scratch_size bytes, a multiple of 64).  Returns the
 * first status emit returns that is not MN_OK.
 */
typedef mn_status (*mn_wemit_fn)(void *ctx, const void *bytes, size_t size);
mn_status mni_gltf_write_accessor_bytes(const mn_wacc *acc, uint8_t *scratch, size_t scratch_size,
                                        mn_wemit_fn emit, void *ctx);

/* ---- gltf/write_meshopt.c ------------------------------------------------------------------ */

/*
 * Make `acc` a MESHOPT accessor of `count` elements of `components` floats
 * at `floats`, filtered (`filter`, `bits`) into the plan's arena and placed
 * at the end of its group: component, stride, group set; floats becomes the
 * values as they decode (for bounds).  MN_OUT_OF_MEMORY and MN_OVERFLOW
 * (too many groups or elements) are the errors.
 */
mn_status mni_gltf_write_pack(mn_gltf_writer *w, mn_wacc *acc, const float *floats, uint32_t count,
                              uint32_t components, mn_wfilter filter, uint32_t bits);

/* Encode every group's filtered bytes (once all accessors are planned); MN_OUT_OF_MEMORY. */
mn_status mni_gltf_write_groups(mn_gltf_writer *w);

/* ---- gltf/write_json.c --------------------------------------------------------------------- */

/*
 * Print the document to `emit` (NULL: only count it); bin_uri is the .bin's
 * URI (NULL in a GLB).  *length receives the bytes printed, the same for
 * both ways.  Returns the first error (the model's, or emit's).
 */
mn_status mni_gltf_write_json(mn_gltf_writer *w, const char *bin_uri, mn_wemit_fn emit, void *ctx, size_t *length);

#endif /* MN_GLTF_WRITE_INTERNAL_H */
