/*
 * glb_builder.h — assemble glTF test inputs in memory, byte by byte.
 *
 * Tests describe a model as JSON text plus a binary blob and turn them into
 * a GLB, a .gltf with a data: URI, or a .gltf + .bin pair on disk:
 *
 *     gb_builder b;
 *     gb_init(&b);
 *     size_t pos = gb_bin_f32(&b, 0, 0, 0,  1, 0, 0,  0, 1, 0);  // offset 0
 *     size_t idx = gb_bin_u16(&b, 0, 1, 2);                       // offset 36
 *     gb_json(&b, "{'asset':{'version':'2.0'},"
 *                 "'buffers':[{'byteLength':%zu}], ...}", gb_bin_size(&b));
 *     gb_blob glb = gb_glb(&b);
 *     ... mn_gltf_read_memory(glb.data, glb.size, ...) ...
 *     gb_blob_free(&glb);
 *     gb_free(&b);
 *
 * JSON text: gb_json() is printf-style and turns every single quote into a
 * double quote, so tests can write JSON without escaping.  Use gb_json_raw()
 * for text that must keep its single quotes (or has none to translate).
 *
 * Binary data: the typed appenders write little-endian values, first padding
 * the blob with zero bytes to the size of one component (glTF requires
 * accessor data aligned to its component size), and return the offset where
 * the values start.  gb_bin_bytes() and gb_bin_zeros() never pad, so a test
 * can build deliberately misaligned or interleaved layouts.
 *
 * Everything here uses plain malloc/free (never the library's allocator) and
 * aborts the test program when memory runs out; every object has a matching
 * free so that tests stay clean under LeakSanitizer.
 */
#ifndef MN_TEST_GLB_BUILDER_H
#define MN_TEST_GLB_BUILDER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define GB_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define GB_PRINTF(fmt_index, first_arg)
#endif

/* GLB constants, as the little-endian uint32 values found in the file. */
#define GB_MAGIC      0x46546C67u   /* "glTF" */
#define GB_CHUNK_JSON 0x4E4F534Au   /* "JSON" */
#define GB_CHUNK_BIN  0x004E4942u   /* "BIN\0" */

/* JSON text and a binary blob under construction.  Zero it with gb_init(). */
typedef struct gb_builder {
    char *json;
    size_t json_len, json_cap;
    uint8_t *bin;
    size_t bin_len, bin_cap;
} gb_builder;

/* An owned run of bytes (malloc'd); free with gb_blob_free. */
typedef struct gb_blob {
    uint8_t *data;
    size_t size;
} gb_blob;

void gb_init(gb_builder *b);
/* Free the text and the blob; the builder is then empty and reusable. */
void gb_free(gb_builder *b);
void gb_blob_free(gb_blob *blob);

/* ---- JSON text ------------------------------------------------------------ */

/* Append printf-formatted text, every ' turned into ". */
void gb_json(gb_builder *b, const char *fmt, ...) GB_PRINTF(2, 3);
/* The same with a va_list. */
void gb_jsonv(gb_builder *b, const char *fmt, va_list ap) GB_PRINTF(2, 0);
/* Append text verbatim. */
void gb_json_raw(gb_builder *b, const char *text);
/* The text so far (NUL-terminated, never NULL) and its length. */
const char *gb_json_text(const gb_builder *b);
size_t gb_json_size(const gb_builder *b);

/* ---- binary blob ----------------------------------------------------------- */

/* Bytes in the blob so far (the next value's offset before any padding). */
size_t gb_bin_size(const gb_builder *b);
/* The blob's bytes (may be NULL when empty). */
const uint8_t *gb_bin_data(const gb_builder *b);
/* Pad with zero bytes to a multiple of `align` (≥ 1); returns the new size. */
size_t gb_bin_align(gb_builder *b, size_t align);
/* Append raw bytes, no padding; returns their offset. */
size_t gb_bin_bytes(gb_builder *b, const void *data, size_t size);
/* Append `count` zero bytes, no padding; returns their offset. */
size_t gb_bin_zeros(gb_builder *b, size_t count);

/* Append `count` values little-endian, after padding to the component size; return their offset. */
size_t gb_bin_i8v(gb_builder *b, const int8_t *v, size_t count);
size_t gb_bin_u8v(gb_builder *b, const uint8_t *v, size_t count);
size_t gb_bin_i16v(gb_builder *b, const int16_t *v, size_t count);
size_t gb_bin_u16v(gb_builder *b, const uint16_t *v, size_t count);
size_t gb_bin_u32v(gb_builder *b, const uint32_t *v, size_t count);
size_t gb_bin_f32v(gb_builder *b, const float *v, size_t count);

/* The same for a literal list of values: gb_bin_u16(&b, 0, 1, 2). */
#define GB_COUNT_(type, ...) (sizeof((const type[]){__VA_ARGS__}) / sizeof(type))
#define gb_bin_i8(b, ...)  gb_bin_i8v((b), (const int8_t[]){__VA_ARGS__}, GB_COUNT_(int8_t, __VA_ARGS__))
#define gb_bin_u8(b, ...)  gb_bin_u8v((b), (const uint8_t[]){__VA_ARGS__}, GB_COUNT_(uint8_t, __VA_ARGS__))
#define gb_bin_i16(b, ...) gb_bin_i16v((b), (const int16_t[]){__VA_ARGS__}, GB_COUNT_(int16_t, __VA_ARGS__))
#define gb_bin_u16(b, ...) gb_bin_u16v((b), (const uint16_t[]){__VA_ARGS__}, GB_COUNT_(uint16_t, __VA_ARGS__))
#define gb_bin_u32(b, ...) gb_bin_u32v((b), (const uint32_t[]){__VA_ARGS__}, GB_COUNT_(uint32_t, __VA_ARGS__))
#define gb_bin_f32(b, ...) gb_bin_f32v((b), (const float[]){__VA_ARGS__}, GB_COUNT_(float, __VA_ARGS__))

/* ---- containers ------------------------------------------------------------ */

/*
 * A well-formed GLB: 12-byte header, the JSON chunk padded with spaces to a
 * multiple of 4, then (only when the blob is not empty) the BIN chunk padded
 * with zeros to a multiple of 4.
 */
gb_blob gb_glb(const gb_builder *b);
/* Where the BIN chunk's data starts inside gb_glb(b)'s bytes. */
size_t gb_glb_bin_offset(const gb_builder *b);

/* Use in gb_chunk.declared_length and gb_layout.declared_length: "the true length". */
#define GB_AUTO (-1)

/* One chunk of a hand-laid GLB. */
typedef struct gb_chunk {
    uint32_t type;             /* GB_CHUNK_JSON, GB_CHUNK_BIN or anything else */
    const void *data;          /* bytes written after the 8-byte chunk header */
    size_t size;
    bool pad;                  /* pad data to 4 bytes (spaces for JSON, zeros otherwise) */
    int64_t declared_length;   /* the chunkLength field; GB_AUTO = size after padding */
} gb_chunk;

/* A hand-laid GLB, for container tests: any magic, version, length and chunks. */
typedef struct gb_layout {
    uint32_t magic;            /* GB_MAGIC for a valid file */
    uint32_t version;          /* 2 for a valid file */
    int64_t declared_length;   /* the header's length field; GB_AUTO = the bytes written */
    const gb_chunk *chunks;
    size_t chunk_count;
} gb_layout;

gb_blob gb_glb_custom(const gb_layout *layout);

/* ---- data: URIs --------------------------------------------------------------- */

/* Standard base64 (RFC 4648, '=' padding) of `size` bytes; NUL-terminated, free() it. */
char *gb_base64(const void *data, size_t size);
/* "data:application/octet-stream;base64,..." of the blob; free() it. */
char *gb_data_uri(const gb_builder *b);

/* ---- a sample model ---------------------------------------------------------- */

/*
 * Fill an empty builder with a small valid model that touches most of the
 * reader: a skinned, morphed, indexed quad (POSITION, NORMAL, TEXCOORD_0,
 * JOINTS_0, WEIGHTS_0, u16 indices, one morph target, mesh weights), a
 * material with a texture whose image lives in a buffer view, a sampler, a
 * perspective camera on a matrix node, a two-joint skin with inverse bind
 * matrices, an animation with a LINEAR translation and a STEP rotation
 * channel, a sparse accessor over zeros, extras, and a default scene.
 * With data_uri the buffer carries the blob as a data: URI (read the JSON as
 * a .gltf); without, it has no uri (build a GLB with gb_glb).
 */
void gb_sample_model(gb_builder *b, bool data_uri);

/* ---- files on disk -------------------------------------------------------------- */

#define GB_TEMPDIR_MAX_ENTRIES 16

/* A fresh directory (mkdtemp) and what the test put in it, removed by gb_tempdir_remove. */
typedef struct gb_tempdir {
    char path[512];
    char *entries[GB_TEMPDIR_MAX_ENTRIES];   /* full paths, creation order */
    bool entry_is_dir[GB_TEMPDIR_MAX_ENTRIES];
    size_t entry_count;
} gb_tempdir;

/* Create $TMPDIR/mn_test_XXXXXX (or /tmp/...); false when that fails. */
bool gb_tempdir_create(gb_tempdir *dir);
/* Create the sub-folder `name` (relative to dir); returns its full path or NULL. */
const char *gb_tempdir_mkdir(gb_tempdir *dir, const char *name);
/* Write a file `name` (relative, may name a sub-folder made earlier); returns its full path or NULL. */
const char *gb_tempdir_write(gb_tempdir *dir, const char *name, const void *data, size_t size);
/*
 * Write the builder's JSON as `gltf_name` and its blob as `bin_name` (the JSON
 * should name bin_name in buffers[].uri); returns the .gltf's full path or NULL.
 */
const char *gb_tempdir_write_gltf(gb_tempdir *dir, const gb_builder *b, const char *gltf_name,
                                  const char *bin_name);
/* Remove every entry (newest first) and the directory itself. */
void gb_tempdir_remove(gb_tempdir *dir);

#endif /* MN_TEST_GLB_BUILDER_H */
