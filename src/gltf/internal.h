/*
 * Private: the glTF reader's shared state and the functions its files share.
 *
 * The reader is split by concept; each file reads one part of the document:
 *
 *   read.c           entry points, container detection, asset, extensions,
 *                    buffers, buffer views, warnings
 *   glb.c            the GLB container (header, chunks)
 *   meshopt.c        EXT_meshopt_compression buffer views
 *   read_draco.c     KHR_draco_mesh_compression primitives (decoder: draco.cpp)
 *   read_accessor.c  accessors (bounds, sparse, zeros)
 *   read_material.c  images, samplers, textures, materials
 *   read_mesh.c      meshes, primitives, morph targets, strip/fan conversion
 *   read_node.c      cameras, nodes, scenes, skins
 *   read_ext.c       KHR_lights_punctual, KHR_node_visibility,
 *                    EXT_mesh_gpu_instancing, KHR_materials_variants
 *   read_anim.c      animations
 *   validate.c       the semantic pass over the finished model
 *
 * Files and URIs are read through io/ (io/io.h); the model's owner is
 * model/owner.c (model/model.h).
 *
 * Not installed.
 */
#ifndef MN_GLTF_INTERNAL_H
#define MN_GLTF_INTERNAL_H

#include <marionette/gltf.h>

#include "io/io.h"
#include "model/model.h"

/*
 * Memory the reader creates from counts alone (zero accessors, sparse
 * accessors, meshopt output, strip/fan indices) is capped, so a file of a
 * few bytes cannot ask for gigabytes.  Data converted from bytes the file
 * really holds is bounded by the file and not counted.
 */
#define MN_GLTF_SYNTH_LIMIT ((size_t)1 << 30)

typedef struct mn_gltf_warning_node {
    mn_warning warning;
    struct mn_gltf_warning_node *next;
} mn_gltf_warning_node;

/* Extra facts about an accessor that the model does not expose. */
typedef struct mn_gltf_accessor_info {
    bool sparse;                /* had a sparse section */
} mn_gltf_accessor_info;

/* One read in progress. */
typedef struct mn_gltf_reader {
    mn_json json;               /* path, error, arena */
    mn_error *err;
    mn_arena *arena;
    mn_model *model;
    struct mn_model_private *priv;
    mn_gltf_options options;    /* defaults filled in */
    const char *base_dir;       /* NULL: external URIs are refused */
    bool default_resolver;
    mni_files files;            /* what this read opened: contained, each file read once */

    json_t *root;
    const uint8_t *glb_bin;     /* the GLB BIN chunk, NULL when none */
    size_t glb_bin_size;
    bool is_glb;

    bool uses_quantization;     /* KHR_mesh_quantization in extensionsUsed */
    uint32_t file_accessor_count;   /* accessors written in the file; synthesized ones follow */
    uint32_t accessor_capacity;
    bool *buffer_is_fallback;   /* per buffer: EXT_meshopt_compression fallback without data */
    size_t synth_bytes;         /* counted against MN_GLTF_SYNTH_LIMIT */
    uint8_t *draco_accessor;    /* per file accessor: MNI_DRACO_* (NULL: no Draco primitive) */
    const float **accessor_floats;  /* per file accessor: its converted floats (NULL: none yet) */
    uint8_t *keys_checked;      /* per file accessor: MNI_KEYS_* checks already passed */
    uint8_t *variant_used;      /* per KHR_materials_variants variant: mapped in this primitive
                                   (gltf/read_ext.c; zero between primitives) */
    uint32_t *view_counted;     /* per buffer view: 1 + the animation whose stored_bytes counted it */

    mn_gltf_warning_node *warnings, **warnings_tail;
    uint32_t warning_count;
} mn_gltf_reader;

/* What gltf/read_anim.c has checked of an accessor's floats (mn_gltf_reader.keys_checked). */
#define MNI_KEYS_TIMES 1u       /* key times: finite, the first >= 0, strictly increasing */
#define MNI_KEYS_VALUES 2u      /* key values: finite */

/* What gltf/read_draco.c does with an accessor (mn_gltf_reader.draco_accessor). */
#define MNI_DRACO_TARGET 1u     /* a Draco primitive fills it: no zeros made for it */
#define MNI_DRACO_FILLED 2u     /* filled from decoded data */

/* ---- index data ------------------------------------------------------------- */

/*
 * The little-endian unsigned integer of `size` (1, 2 or 4) bytes at p, at
 * any alignment: index data (sparse indices, vertex and joint index checks).
 * Inline because the validator's scalar index scans call it per component.
 */
static inline uint32_t mni_gltf_uint_le(const uint8_t *p, uint32_t size)
{
    if (size == 1)
        return p[0];
    if (size == 2)
        return (uint32_t)p[0] | (uint32_t)p[1] << 8;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- shared helpers (gltf/read.c) ----------------------------------------- */

/* Record a warning at member `key` of the current JSON path (NULL: the path itself). */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
mn_status mni_gltf_warn(mn_gltf_reader *r, mn_status code, const char *key, const char *fmt, ...);

/* Count `bytes` against MN_GLTF_SYNTH_LIMIT; MN_OUT_OF_MEMORY (with the path) when over. */
mn_status mni_gltf_budget(mn_gltf_reader *r, size_t bytes, const char *what);

/* Arena allocation that reports MN_OUT_OF_MEMORY at the current path. */
void *mni_gltf_alloc(mn_gltf_reader *r, size_t count, size_t size, size_t align, bool zero);

/* Push "[i]" and check that element i of `array` is an object. */
mn_status mni_gltf_element(mn_gltf_reader *r, json_t *array, size_t i, json_t **out);

/*
 * A name for an element the file left unnamed: *name = "<prefix><index>"
 * ("node3") unless set, and *made says which (the model's default_name: the
 * writer writes no name the file did not have).
 */
mn_status mni_gltf_default_name(mn_gltf_reader *r, const char **name, bool *made, const char *prefix,
                                uint32_t index);

/* Reads one element of a top-level array (the path is at "key[i]"). */
typedef mn_status (*mn_gltf_element_fn)(mn_gltf_reader *r, json_t *obj, uint32_t index);

/* Call fn for each of the first `count` elements of top-level array `key` (each an object). */
mn_status mni_gltf_read_array(mn_gltf_reader *r, const char *key, uint32_t count, mn_gltf_element_fn fn);

/* extensions.<name> of obj (type-checked), NULL when absent. */
mn_status mni_gltf_extension(mn_gltf_reader *r, json_t *obj, const char *name, json_t **out);

/* Resolve and load an external or data: URI (buffers and images). */
typedef enum mn_uri_outcome {
    MN_URI_LOADED = 0,
    MN_URI_UNRESOLVED           /* external file could not be read (err filled, status MN_IO) */
} mn_uri_outcome;

/*
 * Load the bytes `uri` names: a data: URI is decoded into the arena; any
 * other URI is percent-decoded, checked, and read through the resolver (the
 * default one reads at most the largest byteLength any buffer asks of that
 * file, the whole file for an image).  *out_media_type receives a data:
 * URI's media type (arena copy, NULL when none).  Errors are reported at the
 * current path + "uri".
 */
mn_status mni_gltf_load_uri(mn_gltf_reader *r, const char *uri, mn_bytes *out,
                            const char **out_media_type);

/* ---- glb.c ------------------------------------------------------------------ */

/* Split a GLB into its JSON chunk and (optional) BIN chunk; unknown chunks skipped. */
mn_status mni_glb_parse(const uint8_t *data, size_t size, mn_bytes *json, mn_bytes *bin,
                        bool *has_bin, mn_error *err);

/* ---- meshopt.c ------------------------------------------------------------------ */

/*
 * The bufferView at the current path carries EXT_meshopt_compression `ext`:
 * decode it into view->data (arena, view->size bytes).
 */
mn_status mni_meshopt_decode_view(mn_gltf_reader *r, json_t *ext, mn_buffer_view *view);

/* ---- read_draco.c ------------------------------------------------------------- */

/* Whether this build decodes KHR_draco_mesh_compression (libdraco found: MN_WITH_DRACO). */
bool mni_gltf_has_draco(void);

/*
 * Before the accessors are read: mark those a Draco primitive will fill
 * (r->draco_accessor), so no zeros are made for them.  Nothing is checked
 * here; the primitives' own read checks everything.
 */
mn_status mni_gltf_mark_draco_accessors(mn_gltf_reader *r);

/*
 * The primitive at the current path, read so far (attributes, indices,
 * targets) in `mode`: when it carries KHR_draco_mesh_compression, decode it
 * into its accessors, every count checked first; without a decoder, refuse
 * it unless every accessor has uncompressed data (then a warning).
 */
mn_status mni_gltf_read_draco(mn_gltf_reader *r, json_t *prim, mn_primitive *p, uint32_t mode, uint32_t mesh,
                              uint32_t index);

/* After the meshes: every accessor marked for Draco data holds some (an internal check). */
mn_status mni_gltf_check_draco_filled(mn_gltf_reader *r);

/* ---- the parts of the document ------------------------------------------------------ */

mn_status mni_gltf_read_accessors(mn_gltf_reader *r);     /* gltf/read_accessor.c */
mn_status mni_gltf_read_images(mn_gltf_reader *r);        /* gltf/read_material.c */
mn_status mni_gltf_read_samplers(mn_gltf_reader *r);
mn_status mni_gltf_read_textures(mn_gltf_reader *r);
mn_status mni_gltf_read_materials(mn_gltf_reader *r);
mn_status mni_gltf_read_meshes(mn_gltf_reader *r);        /* gltf/read_mesh.c */
mn_status mni_gltf_read_cameras(mn_gltf_reader *r);       /* gltf/read_node.c */
mn_status mni_gltf_read_nodes(mn_gltf_reader *r);
mn_status mni_gltf_read_scenes(mn_gltf_reader *r);
mn_status mni_gltf_read_skins(mn_gltf_reader *r);
mn_status mni_gltf_read_animations(mn_gltf_reader *r);    /* gltf/read_anim.c */
/* gltf/read_ext.c: the root's lights and variants (after the array counts, before the materials). */
mn_status mni_gltf_read_root_extensions(mn_gltf_reader *r);
/* The node at the current path (`obj`, index, mesh and name read): light, visibility, instancing. */
mn_status mni_gltf_read_node_extensions(mn_gltf_reader *r, json_t *obj, uint32_t index);
/* The primitive at the current path: its KHR_materials_variants mappings. */
mn_status mni_gltf_read_variant_mappings(mn_gltf_reader *r, json_t *prim, mn_primitive *p);
mn_status mni_gltf_validate(mn_gltf_reader *r);           /* gltf/validate.c */

/* Upper bound of the accessors strip/fan conversion may add (gltf/read_mesh.c). */
uint32_t mni_gltf_count_synth_accessors(json_t *root);

/*
 * Float data of file accessor `accessor`: a zero-copy view when it is tightly
 * packed f32, else an arena copy converted once per accessor (a second call
 * returns the same copy).  *out_count = count × components.
 */
mn_status mni_gltf_accessor_floats(mn_gltf_reader *r, uint32_t accessor, const float **out,
                                   size_t *out_count);

#endif /* MN_GLTF_INTERNAL_H */
