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
 * libmeshoptimizer, fallback buffers honoured), KHR_draco_mesh_compression
 * (decoded with libdraco when the build found it, every decoded count checked
 * against the accessors first: MN_DRACO or MN_COUNT_MISMATCH naming the item;
 * a build without it refuses such a file naming what it lacks, unless the
 * uncompressed accessors are there too), EXT_texture_webp (the texture's
 * image; the renderer decodes WebP with libwebp) and KHR_texture_basisu (a
 * texture with only a KTX2 image keeps none, with a warning naming it).  Any
 * other extension listed in extensionsRequired is refused with
 * MN_UNSUPPORTED_EXTENSION naming it.  Used but not required, a node with
 * EXT_mesh_gpu_instancing (its mesh drawn once, the instances not kept) is a
 * warning naming the node.  Animation key times must be
 * finite, the first 0 or more, each after the one before, as glTF requires
 * (MN_INVALID_VALUE naming the sampler, its accessor and the key).
 *
 * What it guarantees: every index, range and count is checked before the model
 * is returned; hostile input gets an mn_error naming the JSON path, never a
 * crash, a leak or undefined behaviour.  Flaws harmless to a runtime are
 * tolerated and listed in model->warnings (an image file that cannot be read,
 * an animation channel with an unknown path or no node, ...).  Data the reader
 * creates from counts alone (accessors without a buffer view, sparse
 * accessors, meshopt output, strip/fan index lists) is capped at 1 GiB per
 * model, so a tiny file cannot demand huge allocations (MN_OUT_OF_MEMORY).
 * Memory is in proportion to the input: docs/formats.md states the bound
 * (jansson's DOM included).
 */
#ifndef MARIONETTE_GLTF_H
#define MARIONETTE_GLTF_H

#include "core.h"
#include "io.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reader options.  A zeroed struct (or NULL) means the defaults given per field. */
typedef struct mn_gltf_options {
    mn_allocator allocator;      /* zero: malloc/free */
    mn_resolver resolver;        /* zero (read == NULL): read files relative to base_dir, kept inside
                                    it (resolver.root widens that; marionette/io.h) */
    const char *base_dir;        /* folder external URIs resolve against.  mn_gltf_read_file sets it
                                    from the path when NULL; for mn_gltf_read_memory NULL means
                                    external URIs are refused (MN_URI) unless a resolver is given,
                                    which then receives "" */
    bool copy_input;             /* default false: mn_gltf_read_memory keeps views into the input
                                    (the GLB BIN buffer).  true: the model holds its own copy.
                                    (mn_gltf_read_file always reads the file into the model) */
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
 * Read a .glb or .gltf file.  The file is opened without blocking and read
 * only when it is a regular file (a FIFO or device is MN_IO, named), with
 * read() into one block from the allocator hooks that the model owns: the
 * GLB BIN buffer and its images are views into that block.  External
 * buffers and images are resolved relative to the file's folder and kept
 * inside it (or options->resolver.root; marionette/io.h): each file is read
 * once however many buffers or images name it, a buffer's file only up to
 * the largest byteLength asked of it (a shorter file is an error naming the
 * buffer), an image's file whole.  So the default read allocates at most
 * the model file, plus per distinct external file the largest byteLength
 * asked of it or an image file's size, plus the model's own arrays.
 *
 * While a file changes: the reader takes what each read() returns and never
 * maps, so a file that shrinks while it is read is MN_IO ("changed while
 * being read"), never a crash, and one that grows is read only up to the
 * size it had when opened; once the read returns, the model holds its own
 * bytes and nothing that happens to the files can reach it.
 * Errors as mn_gltf_read_memory, plus MN_IO when a file cannot be read, and
 * MN_URI for a name refused by the containment rule.
 */
MN_API mn_status mn_gltf_read_file(const char *path, const mn_gltf_options *options,
                                   mn_model **out_model, mn_error *err);

/* ---- the writer ----------------------------------------------------------------- */

/*
 * Writing any model (one a reader returned, or one built by hand) back out:
 *
 *     mn_error err;
 *     if (mn_gltf_write_file(model, "out.glb", NULL, &err) != MN_OK)
 *         fprintf(stderr, "%s: %s\n", err.path, err.message);
 *
 * What is written: every part of the model the reader exposes.  asset
 * (generator "marionette X.Y.Z", the model's copyright and minVersion),
 * scenes and the default scene, nodes (name, children, TRS, mesh, skin,
 * camera, weights, extras), cameras, meshes (primitives with their
 * attributes, indices, material and mode; morph targets; default weights;
 * extras, with extras.targetNames from target_names), materials (every field,
 * KHR_texture_transform and KHR_materials_emissive_strength where a value
 * differs from the default), textures, samplers, images, skins (inverse bind
 * matrices, joints, skeleton) and animations (samplers and channels, with
 * CUBICSPLINE tangents as stored).  extensionsUsed/Required list exactly the
 * extensions the written file uses.
 *
 * How it is laid out: one buffer (the GLB BIN chunk, or "<name>.bin" beside
 * the .gltf).  Every accessor gets a buffer view of its own, tightly packed
 * and 4-byte aligned; a vertex attribute whose element is not a multiple of
 * 4 bytes gets a byteStride rounded up to 4, as glTF asks.  Images are
 * embedded as buffer views (mimeType kept) in both containers.  POSITION
 * accessors (morph targets' too), animation inputs, and every accessor the
 * model has bounds for get min/max, computed from the data written.  Floats
 * are printed with 9 significant digits, so each reads back to the same float.
 *
 * What changes on the way (each reads back to the same decoded values):
 *   - sparse accessors and accessors without a buffer view are written dense;
 *   - a node given by "matrix" is written as its TRS decomposition
 *     (has_matrix reads back false);
 *   - triangle strips and fans, which the reader converted, are written as
 *     the triangle lists the model holds (original_mode reads back TRIANGLES);
 *   - skins and animations are written from their decoded floats: skin inverse
 *     bind matrices and animation outputs as f32 accessors (normalized integer
 *     outputs of the source come back as floats); animation inputs and outputs
 *     are shared between samplers where the model shares their arrays;
 *   - the model's buffers, buffer views and accessors that no mesh uses are
 *     not written as such (the data reaches the file through what uses it);
 *   - extensions the model does not expose (EXT_mesh_gpu_instancing, ...)
 *     are not written; EXT_meshopt_compression data is written decompressed
 *     (animations alone can be written compressed: channel_encodings);
 *   - alphaCutoff is written only in MASK mode (the only mode it applies to),
 *     KHR_texture_transform only when one of its values is not the default;
 *   - an image whose bytes could not be resolved (size 0) keeps its uri,
 *     which must pass the reader's own check (no ".." segment, not absolute,
 *     no scheme, valid %XX escapes; a data: URI must decode): else MN_URI
 *     naming the image (it is not embedded: the writer reads no files);
 *   - an animation without channels is left out (glTF requires one).
 *
 * Quantization (options->quantize, KHR_mesh_quantization, off by default):
 *   - NORMAL (f32 VEC3) becomes normalized i8 (each vector's rounding chosen
 *     to stay closest to unit length), stride 4;
 *   - TEXCOORD_n (f32) becomes normalized u16 when every value is in [0, 1]
 *     (core glTF; error at most 1/131070), else stays f32;
 *   - POSITION of a mesh becomes normalized i16: q = (p - center) / half,
 *     with the center of the mesh's bounds and one uniform `half` (the
 *     largest half-extent over the axes, so normals are not skewed).  The
 *     nodes instancing the mesh absorb the dequantization: translation +=
 *     R·(S∘center), scale *= half (exact as TRS because `half` is uniform).
 *     Morph target POSITION deltas are written as f32 divided by `half`.
 *     Error at most half/65534 per component in the mesh's frame.  A mesh's
 *     positions stay f32 when a node cannot absorb it without changing
 *     something else: when the mesh is skinned or not instanced, or when a
 *     node instancing it has children, a camera, or an animated
 *     translation, rotation or scale.
 *
 * The same model written twice gives the same bytes (no time stamps, nothing
 * depends on addresses).  The JSON is printed by hand (snprintf), not by
 * jansson: the key order, number format and every byte are the writer's
 * own, and every byte comes from the allocator hooks.  Extras, held as JSON
 * text, are checked (jansson parses them) and written as given.
 */

/* Which container mn_gltf_write produces. */
typedef enum mn_gltf_container {
    MN_GLTF_CONTAINER_GLB = 0,   /* default: one "<name>.glb" */
    MN_GLTF_CONTAINER_GLTF       /* "<name>.gltf" (JSON) and "<name>.bin" (its one buffer, by URI) */
} mn_gltf_container;

/*
 * Where mn_gltf_write puts its output.  write() appends `size` bytes to the
 * output called `name` ("model.glb"; or "model.gltf", then "model.bin").
 * Each output arrives whole before the next begins, as one or more calls in
 * order; the first call for a name starts that output.  `bytes` is valid
 * only during the call.  Return true when the bytes were taken, false to
 * stop the write (mn_gltf_write then returns MN_IO naming the output).
 * A .gltf whose model has no binary data (no accessors and no images) comes
 * without a .bin.
 */
typedef struct mn_gltf_sink {
    bool (*write)(void *user, const char *name, const void *bytes, size_t size);
    void *user;
} mn_gltf_sink;

/*
 * How mn_gltf_write encodes one animation channel (options->channel_encodings):
 * its times and values go into EXT_meshopt_compression buffer views
 * (meshoptimizer's vertex codec, version 0), filtered first:
 *   value_bits 0       values as f32, no filter (lossless);
 *   rotation, 4..16    the QUATERNION filter at that many bits a component,
 *                      written as normalized i16 VEC4 (core glTF allows it
 *                      for rotation outputs); a CUBICSPLINE rotation (its
 *                      tangents are no unit quaternions) takes EXPONENTIAL;
 *   rotation, 17..24   EXPONENTIAL at that many bits, f32 VEC4 (finer than
 *                      16-bit components can be);
 *   otherwise, 1..24   the EXPONENTIAL filter (f32 as read: an 8-bit
 *                      exponent shared by the element's components and a
 *                      mantissa of that many bits), weights one by one;
 *   time_bits 0        times as f32, no filter; 1..24 EXPONENTIAL.
 * mn_gltf_encoded_keys gives the values a reader decodes.
 */
typedef struct mn_gltf_channel_encoding {
    uint8_t value_bits;
    uint8_t time_bits;
} mn_gltf_channel_encoding;

/*
 * The floats a reader gets back from `count` elements of `components` floats
 * at `in` written as above (`quaternion`: the QUATERNION filter, components
 * 4, bits 4..16; else EXPONENTIAL, bits 1..24; bits 0: unchanged) into out
 * (count × components floats; may be in).  Pure, allocation-free.  Bits
 * outside the range are clamped into it.
 */
MN_API void mn_gltf_encoded_keys(const float *in, uint32_t count, uint32_t components, bool quaternion,
                                 uint32_t bits, float *out);

/* Writer options.  A zeroed struct (or NULL) means the defaults given per field. */
typedef struct mn_gltf_write_options {
    mn_allocator allocator;        /* zero: malloc/free; every byte the writer allocates goes through it */
    mn_gltf_container container;   /* default GLB; mn_gltf_write_file chooses by extension instead */
    const char *name;              /* base name of the outputs, default "model" ("model.glb",
                                      "model.gltf" + "model.bin"; the .gltf refers to the .bin by
                                      this name, percent-encoded).  mn_gltf_write_file uses the
                                      path's file name instead */
    bool quantize;                 /* KHR_mesh_quantization for positions, normals and uvs (above) */
    const mn_gltf_channel_encoding *channel_encodings;
                                   /* NULL: animations as f32.  Else one per channel of every
                                      animation, in order (animation 0's channels, then 1's, ...):
                                      every animation's keys meshopt-compressed as above,
                                      EXT_meshopt_compression required, its views in a "fallback"
                                      buffer (buffer 1) that holds no bytes, as gltfpack writes */
} mn_gltf_write_options;

/*
 * Write `model` to `sink` as GLB or .gltf + .bin (options->container).
 * `model` is only read.  Temporary memory comes from options->allocator and
 * is all returned before the call returns.
 * Errors (err filled, path naming the item, e.g. "nodes[3].translation"):
 *   MN_INVALID_ARGUMENT  a NULL model or sink, or a model a reader would not
 *                        produce: an accessor without elements, a string that
 *                        is not UTF-8, an image with neither bytes nor uri or
 *                        without a mimeType, a channel without keys ...
 *   MN_INVALID_VALUE     key times glTF forbids (the first below 0, one not
 *                        after the one before), naming the channel and key
 *   MN_URI               an image's uri that the reader would refuse
 *   MN_INDEX_RANGE       a cross-reference outside its array (a hand-built model)
 *   MN_NOT_FINITE        a NaN or infinite float the JSON would have to hold
 *   MN_JSON_SYNTAX       extras that are not JSON text
 *   MN_OVERFLOW          a GLB of 4 GiB or more (use the .gltf container)
 *   MN_OUT_OF_MEMORY     an allocation failed
 *   MN_IO                the sink returned false (what was written so far is
 *                        the sink's to discard)
 */
MN_API mn_status mn_gltf_write(const mn_model *model, const mn_gltf_write_options *options,
                               const mn_gltf_sink *sink, mn_error *err);

/*
 * Write `model` to the file `path`: GLB when it ends in ".glb", .gltf when it
 * ends in ".gltf" (any case; then the .bin is written beside it, named after
 * the file: "dir/robot.gltf" + "dir/robot.bin").  options->container and
 * options->name are ignored.  The files are one output set
 * (marionette/io.h): whole or not at all, replaced together.  Each goes to a
 * temporary file in path's folder (unnamed, O_TMPFILE, where the file system
 * has it); both are written and fsynced before either target changes; then
 * the .bin is renamed over its target, then the .gltf that names it, and the
 * folder is fsynced.  On any error no temporary file is left and both old
 * files keep their bytes (a .bin already renamed when the .gltf's rename
 * fails is put back).  The window: a process killed between the two renames
 * leaves the new .bin beside the old .gltf, each whole.  Errors as
 * mn_gltf_write; MN_INVALID_ARGUMENT for another extension; MN_IO (naming
 * the file, with the system's reason) when a file cannot be created,
 * written, fsynced or renamed.
 */
MN_API mn_status mn_gltf_write_file(const mn_model *model, const char *path,
                                    const mn_gltf_write_options *options, mn_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_GLTF_H */
