/*
 * marionette/gltf.h — the glTF 2.0 reader (GLB and .gltf).
 *
 *     mn_model *model = NULL;
 *     mn_error err;
 *     if (mn_gltf_read_file("CesiumMan.glb", NULL, &model, &err) != MN_OK) {
 *         fprintf(stderr, "%s: %s\n", err.path, err.message);
 *         return 1;
 *     }
 *     ... model->meshes, model->nodes, model->animations ...
 *     mn_model_free(model);
 *
 * What it reads: GLB version 2 (JSON + BIN chunks, unknown chunks skipped) and
 * .gltf JSON with buffers and images from data: URIs or from files beside it
 * (through the resolver); every accessor layout of the specification, sparse
 * accessors included; KHR_mesh_quantization, KHR_texture_transform,
 * KHR_materials_emissive_strength, EXT_meshopt_compression (decoded with
 * libmeshoptimizer, fallback buffers honoured).  Any other extension listed in
 * extensionsRequired (Draco included) is refused with MN_UNSUPPORTED_EXTENSION
 * naming it.
 *
 * What it guarantees: every index, range and count is checked before the model
 * is returned; hostile input gets an mn_error naming the JSON path, never a
 * crash, a leak or undefined behaviour.  Flaws harmless to a runtime are
 * tolerated and listed in model->warnings (an image file that cannot be read,
 * an animation channel with an unknown path or no node, ...).  Data the reader
 * creates from counts alone (accessors without a buffer view, sparse
 * accessors, meshopt output, strip/fan index lists) is capped at 1 GiB per
 * model, so a tiny file cannot demand huge allocations (MN_OUT_OF_MEMORY).
 */
#ifndef MARIONETTE_GLTF_H
#define MARIONETTE_GLTF_H

#include "core.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Loads the bytes an external URI names.  `uri` is already percent-decoded
 * and checked (no "../" escape, not absolute, unless the options allow it);
 * `base_dir` is the folder of the model ("" for the current one).  On success
 * fill *out and return MN_OK; the bytes must stay valid until `release` is
 * called with the same mn_bytes (release may be NULL when nothing needs
 * freeing).  On failure return an error code (MN_IO for a missing file) and,
 * when err is not NULL, fill it.
 */
typedef struct mn_resolver {
    mn_status (*read)(void *user, const char *base_dir, const char *uri, mn_bytes *out, mn_error *err);
    void (*release)(void *user, mn_bytes *bytes);
    void *user;
} mn_resolver;

/* Reader options.  A zeroed struct (or NULL) means the defaults given per field. */
typedef struct mn_gltf_options {
    mn_allocator allocator;      /* zero: malloc/free */
    mn_resolver resolver;        /* zero (read == NULL): read files with stdio, relative to base_dir */
    const char *base_dir;        /* folder external URIs resolve against.  mn_gltf_read_file sets it
                                    from the path when NULL; for mn_gltf_read_memory NULL means
                                    external URIs are refused (MN_URI) unless a resolver is given,
                                    which then receives "" */
    bool allow_unsafe_uris;      /* false: a URI with a ".." segment or an absolute path is refused */
    bool copy_input;             /* default false: mn_gltf_read_memory keeps views into the input
                                    (the GLB BIN buffer); mn_gltf_read_file maps the file.  true:
                                    the model holds its own copy (read_memory copies the input,
                                    read_file reads the file into allocated memory) */
} mn_gltf_options;

/*
 * Read a GLB or .gltf held in memory (detected by the "glTF" magic).  Unless
 * options->copy_input is set, the model keeps views into `data` (the GLB BIN
 * buffer and the images in it): keep `data` alive and unchanged until
 * mn_model_free.  (Input that is not 16-byte aligned is copied, so that the
 * model's float views are aligned for their type.)  On success *out_model is a new model (free it with
 * mn_model_free).  On failure *out_model is NULL, nothing is leaked, and err
 * (when not NULL) says what and where.
 */
MN_API mn_status mn_gltf_read_memory(const void *data, size_t size, const mn_gltf_options *options,
                                     mn_model **out_model, mn_error *err);

/*
 * Read a .glb or .gltf file.  The file is mapped read-only (mmap) and the
 * mapping belongs to the model until mn_model_free: the GLB BIN buffer and its
 * images are zero-copy views into it, and its bytes do not come from the
 * allocator hooks.  Do not truncate the file while the model lives (reading a
 * truncated mapping faults); set copy_input to read it into one allocated
 * buffer instead, as is also done when the file cannot be mapped.  External
 * buffers and images are resolved relative to the file's folder.
 * Errors as mn_gltf_read_memory, plus MN_IO when the file cannot be read.
 */
MN_API mn_status mn_gltf_read_file(const char *path, const mn_gltf_options *options,
                                   mn_model **out_model, mn_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_GLTF_H */
