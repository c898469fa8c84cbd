/*
 * marionette/head/aosrig.h — `.aosrig` packs: an expression-basis head in one file.
 *
 * A pack (docs/formats.md, "Expression heads") is a 16-byte
 * preamble (magic "AOSRIG\0\0", the header length H as u32, a reserved u32),
 * H bytes of header JSON, then 8-byte-aligned blobs: the neutral mesh, an f16
 * expression basis with a per-coefficient scale, faces, skinning to a small
 * neck/head joint chain, the eyes and an optional neck seam.
 *
 *     mn_aosrig *pack;
 *     if (mn_aosrig_read_file("head.aosrig", NULL, &pack, &err) != MN_OK) ...
 *     for (uint32_t v = 0; v < pack->header.vertex_count; v++)
 *         use(pack->neutral + 3 * v);
 *     mn_aosrig_free(pack);
 *
 * Reading validates everything docs/formats.md lists ("What the reader
 * checks, in order"), in that order, and stops at the first flaw with an mn_error whose
 * path names the field or blob ("headExt.regions[2]", "buffers[7]") and
 * whose message says what is wrong, naming the blob ("buffers[7]: blob
 * \"skinWeight\": half 3 (0x7e00) is not finite").  Every blob is a VIEW
 * into the pack's bytes (no copy), except skinWeight, which is widened from
 * f16 to f32 on load.
 *
 * Writing (mn_aosrig_write) takes the same header struct the reader fills and
 * a list of blobs, and produces the byte-exact container (docs/formats.md,
 * "Header bytes"): the
 * same inputs always give the same bytes, so reading a pack and writing its
 * header and blobs back gives the original bytes (for any pack the writer
 * made).
 *
 * Thread safety: a pack is immutable once read; any number of threads may
 * read it.  Nothing here keeps global state.
 */
#ifndef MARIONETTE_HEAD_AOSRIG_H
#define MARIONETTE_HEAD_AOSRIG_H

#include "../core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- f16 ----------------------------------------------------------------------- */

/*
 * Decode one IEEE half exactly (subnormals, infinities and NaN included) —
 * the value F16C's vcvtph2ps gives.  Pure.
 */
MN_API float mn_f16_to_float(uint16_t half);

/*
 * Decode n halves into n floats (exactly as mn_f16_to_float), with F16C when
 * the CPU has it (asked of cpuid on each call: decode in large batches).
 * src and dst must not overlap.  Allocation-free.
 */
MN_API void mn_f16_decode(const uint16_t *src, float *dst, size_t n);

/*
 * Encode a float as a half, rounding to nearest with ties to even
 * (vcvtps2ph with imm 0).  MN_NOT_FINITE (and *out = 0) when `value` is NaN,
 * infinite, or would round to ±infinity (|value| ≥ 65520); MN_OK otherwise.
 * err may be NULL.
 */
MN_API mn_status mn_f16_from_float(float value, uint16_t *out, mn_error *err);

/* ---- the header -------------------------------------------------------------------- */

/* A blob's element type, as the header's "dtype" string names it. */
typedef enum mn_aosrig_dtype {
    MN_AOSRIG_F32 = 0,   /* "f32" */
    MN_AOSRIG_F16,       /* "f16" (IEEE half) */
    MN_AOSRIG_U8,        /* "u8" */
    MN_AOSRIG_U16,       /* "u16" */
    MN_AOSRIG_U32,       /* "u32" */
    MN_AOSRIG_I32,       /* "i32" */
    MN_AOSRIG_DTYPE_COUNT
} mn_aosrig_dtype;

/* "f32", "f16", ...; "invalid" out of range.  Never NULL. */
MN_API const char *mn_aosrig_dtype_name(mn_aosrig_dtype dtype);
/* Bytes per element (4, 2, 1, 2, 4, 4); 0 out of range. */
MN_API size_t mn_aosrig_dtype_size(mn_aosrig_dtype dtype);

/* The unit of every length a pack stores (neutral, basis × scale, seam, eyes, translations). */
typedef enum mn_aosrig_units {
    MN_AOSRIG_METRES = 0,      /* "m" */
    MN_AOSRIG_CENTIMETRES      /* "cm" */
} mn_aosrig_units;

/* "m", "cm": the header's "units" string, which the reader parses through this;
   "invalid" out of range.  Never NULL. */
MN_API const char *mn_aosrig_units_name(mn_aosrig_units units);

/*
 * One region of the expression block (headExt.regions[i] = [name, count],
 * plus the region's member of headExt.reduced).  Regions tile the expression
 * coefficients in declaration order.
 */
typedef struct mn_aosrig_region {
    const char *name;          /* unique among the regions */
    uint32_t count;            /* coefficients, > 0 */
    uint32_t start;            /* first coefficient: the sum of the earlier counts.  Filled by
                                  the reader; the writer ignores it */
    bool has_reduced;          /* headExt.reduced has a member for this region */
    uint32_t reduced;          /* that member: the reduced view's first `reduced` coefficients
                                  of the region, 0..count (0 when !has_reduced) */
} mn_aosrig_region;

/* headExt: the control vector's layout (the coefficients region by region, then 4 gaze angles). */
typedef struct mn_aosrig_head_ext {
    uint32_t dim;              /* expr_dim + gaze_dim */
    uint32_t expr_dim;         /* = coeff_count */
    uint32_t gaze_dim;         /* 4: pitch_L, yaw_L, pitch_R, yaw_R (radians) */
    const mn_aosrig_region *regions;
    uint32_t region_count;     /* >= 1 */
} mn_aosrig_head_ext;

/*
 * The header JSON, everything but `buffers` (which the writer derives from
 * the blobs).  The reader fills one (pack->header); the writer takes one.
 * "version" is always 1 and "model" always "gnm": they have no field.
 * Strings are UTF-8 without NUL.  The reader's strings live as long as the
 * pack; the writer only reads them during the call.
 */
typedef struct mn_aosrig_header {
    mn_aosrig_units units;
    uint32_t vertex_count;     /* V > 0 */
    uint32_t coeff_count;      /* E > 0 */
    uint32_t max_influence;    /* K > 0: skin influences per vertex */
    const char *const *names;  /* E expression names */
    mn_aosrig_head_ext head_ext;
    const char *eye_joints[2]; /* eyes.left.joint, eyes.right.joint: names of joints */
    const char *const *joint_names;  /* joints[j].name, J of them, unique */
    uint32_t joint_count;      /* J */
    bool has_bind_transform;   /* the header has "bindTransform" (written only when true) */
    double bind_transform[16]; /* row-major 4x4 head-local -> body bind space, as the JSON's
                                  doubles (re-packing writes exactly these); the identity when
                                  !has_bind_transform */
    const char *mouth_json;    /* "mouth": JSON text of any non-null value, NULL when absent.
                                  Reader: compact, as the writer prints it.  Writer: any JSON
                                  text; it is parsed and re-printed (members in their order) */
    const char *source_json;   /* "source", free-form provenance, the same way; never read */
} mn_aosrig_header;

/*
 * A blob: one entry of the header's `buffers` with its bytes.  The reader
 * lists every entry (unknown names included, which it only bounds-checks);
 * the writer writes blobs in the order given, each copied verbatim.
 */
typedef struct mn_aosrig_blob {
    const char *name;          /* unique among the blobs */
    mn_aosrig_dtype dtype;
    const uint64_t *shape;     /* rank dimensions, each an integer < 2^53 */
    uint32_t rank;
    const void *data;          /* reader: a view into the pack's bytes; writer: `size` bytes to
                                  copy (may be NULL when size is 0) */
    uint64_t size;             /* byteLength */
    uint64_t offset;           /* reader: from the start of the file; the writer ignores it */
} mn_aosrig_blob;

/* ---- a parsed pack ----------------------------------------------------------------- */

/*
 * A validated pack.  Counts: V = header.vertex_count, E = header.coeff_count,
 * K = header.max_influence, J = header.joint_count.  Every pointer but
 * skin_weight is a view into `bytes`; an optional blob that is absent is NULL.
 * All matrices are row-major 4x4 (translation at 3, 7, 11).
 */
typedef struct mn_aosrig {
    mn_aosrig_header header;
    const mn_aosrig_blob *blobs;     /* every buffers entry, in header order */
    uint32_t blob_count;
    uint32_t eye_joint[2];           /* indices of eyes.left.joint and eyes.right.joint */
    float bind_transform[16];        /* header.bind_transform as floats (identity when absent) */
    uint32_t face_count;             /* F: rows of faces */
    uint32_t quad_count;             /* Q: rows of quads, 0 when absent */

    const float *neutral;            /* (V,3) head-local rest positions, pack units */
    const uint16_t *basis;           /* (V,E,3) f16 halves, vertex-major: basis[(v*E + e)*3 + k];
                                        the blob's u32 words are these halves in pairs (a pad
                                        half follows when V*E*3 is odd) */
    const float *basis_scale;        /* (E) per-coefficient scale */
    const uint32_t *faces;           /* (F,3) triangle vertex indices, each < V */
    const uint32_t *quads;           /* (Q,4) quad vertex indices, each < V; NULL when absent */
    const float *uv;                 /* (V,2); NULL when absent */
    const uint16_t *skin_index;      /* (V,K) indices into the joints, each < J */
    const float *skin_weight;        /* (V,K) widened from the f16 blob, owned by the pack;
                                        used as stored, never renormalised */
    const int32_t *joint_parents;    /* (J) parent joint, -1 for a root; a forest */
    const float *rest_world;         /* (J,16) row-major rest world matrices */
    const float *eye_positions;      /* (2,3) eye centres, left then right, head-local */
    const float *eye_weights;        /* (2,V) per-vertex weight of each eye's rotation */
    const float *stitch_local;       /* (V,3) head-local neck-seam displacement; NULL when absent */

    const uint8_t *bytes;            /* the whole pack */
    size_t byte_length;
    struct mn_aosrig_private *priv_;
} mn_aosrig;

/* Reader options.  A zeroed struct (or NULL) means the defaults given per field. */
typedef struct mn_aosrig_read_options {
    mn_allocator allocator;    /* zero: malloc/free */
    bool copy_input;           /* default false: mn_aosrig_read_memory keeps views into the
                                  caller's bytes.  true: the pack holds its own copy of them
                                  (mn_aosrig_read_file always reads the file into the pack) */
} mn_aosrig_read_options;

/*
 * Read a pack held in memory.  Unless options->copy_input is set, the pack's
 * views point into `data`: keep it alive and unchanged until mn_aosrig_free.
 * (Input that is not 8-byte aligned is copied, so every view is aligned for
 * its type.)  On success *out_pack is a new pack (free it with
 * mn_aosrig_free); on failure *out_pack is NULL, nothing is leaked, and err
 * (when not NULL) names what is wrong in err->path and err->message:
 *   MN_INVALID_VALUE   a bad magic; version not 1; model not "gnm"; units not
 *                      "m"/"cm"; a count not a positive integer; a bad headExt
 *                      (regions that do not tile exprDim, exprDim ≠ coeffCount,
 *                      gazeDim ≠ 4, dim ≠ exprDim + gazeDim, a region twice or
 *                      with a count ≤ 0, a reduced count outside 0..size or
 *                      naming no region); a duplicate joint or blob name; an
 *                      unknown dtype; a shape, offset or byteLength that is not
 *                      an integer below 2^53; a known blob's wrong dtype; more
 *                      than 2^32-1 faces or quads; a misaligned blob; two blobs
 *                      that overlap
 *   MN_JSON_SYNTAX     the header is not JSON text (err->line/column set)
 *   MN_JSON_TYPE       a header member of the wrong JSON type
 *   MN_MISSING_PROPERTY a required header member or required blob is absent
 *   MN_COUNT_MISMATCH  names not E long; bindTransform not 16 numbers; a blob's
 *                      shape not what V, E, K, J say (or of the wrong rank);
 *                      byteLength ≠ elements × dtype size; a file length
 *                      that is not the end of its last blob (path "length")
 *   MN_BUFFER_VIEW_BOUNDS the preamble or the header (16 + H bytes) runs past
 *                      the end of the file; a blob outside [align8(16 + H), length)
 *   MN_INDEX_RANGE     eyes naming no joint; skinIndex ≥ J; faces or quads ≥ V;
 *                      a parent outside -1..J-1
 *   MN_HIERARCHY       parents with a cycle (not a forest)
 *   MN_NOT_FINITE      a non-finite number in bindTransform or an f32 blob,
 *                      or a non-finite half in basis or skinWeight
 *   MN_OUT_OF_MEMORY   an allocation failed
 *   MN_INVALID_ARGUMENT data NULL with size > 0, or out_pack NULL
 */
MN_API mn_status mn_aosrig_read_memory(const void *data, size_t size,
                                       const mn_aosrig_read_options *options,
                                       mn_aosrig **out_pack, mn_error *err);

/*
 * Read a .aosrig file: opened without blocking, refused unless it is a
 * regular file, and read with read() into one block the pack owns (so a file
 * changed afterwards cannot reach the pack; one that shrinks while it is
 * read is MN_IO).  Errors as mn_aosrig_read_memory, plus MN_IO when the file
 * cannot be read.
 */
MN_API mn_status mn_aosrig_read_file(const char *path, const mn_aosrig_read_options *options,
                                     mn_aosrig **out_pack, mn_error *err);

/* Free a pack and everything it owns (its copy of the bytes).  NULL is allowed. */
MN_API void mn_aosrig_free(mn_aosrig *pack);

/* The blob called `name` (any blob, known or not), or NULL. */
MN_API const mn_aosrig_blob *mn_aosrig_find_blob(const mn_aosrig *pack, const char *name);

/* The index of the joint called `name`, or UINT32_MAX when there is none. */
MN_API uint32_t mn_aosrig_find_joint(const mn_aosrig *pack, const char *name);

/* ---- the writer ------------------------------------------------------------------- */

/* Writer options.  A zeroed struct (or NULL) means malloc/free. */
typedef struct mn_aosrig_write_options {
    mn_allocator allocator;    /* the output and every temporary byte come from it */
} mn_aosrig_write_options;

/*
 * Pack `header` and `blobs` (in that order) into one .aosrig, byte-exactly
 * as docs/formats.md ("Header bytes") lays it out: header JSON printed as
 * ECMAScript's JSON.stringify would (members in the fixed order, shortest
 * round-trip numbers), blobs at 8-byte boundaries with zero padding, the
 * header length found in at most four layout passes.  Blobs are copied
 * verbatim: the writer checks that they can be encoded, not that a reader
 * would accept them (mn_aosrig_read is the judge), so tests can build flawed
 * packs with it.
 * On success *out_data (allocated with options->allocator; free it with
 * mn_aosrig_bytes_free and the same allocator) holds *out_size bytes.
 * Errors (err names the field or blob):
 *   MN_INVALID_ARGUMENT  a NULL header, names, joint_names, eye joint or
 *                        region name, or blobs NULL with a count, a blob
 *                        without a name, an unknown dtype, data NULL with a
 *                        size, a shape entry ≥ 2^53, a string that is not
 *                        well-formed UTF-8
 *   MN_NOT_FINITE        a non-finite bindTransform number
 *   MN_JSON_SYNTAX       mouth_json or source_json that is not JSON text, or
 *                        is null
 *   MN_OVERFLOW          sizes that overflow, or a header over 4 GiB
 *   MN_COUNT_MISMATCH    the header length did not converge in four passes
 *   MN_OUT_OF_MEMORY     an allocation failed
 */
MN_API mn_status mn_aosrig_write(const mn_aosrig_header *header, const mn_aosrig_blob *blobs,
                                 uint32_t blob_count, const mn_aosrig_write_options *options,
                                 uint8_t **out_data, size_t *out_size, mn_error *err);

/* Free what mn_aosrig_write returned, through `allocator` (NULL: malloc/free). NULL data is allowed. */
MN_API void mn_aosrig_bytes_free(const mn_allocator *allocator, uint8_t *data, size_t size);

/*
 * mn_aosrig_write into the file `path`, whole or not at all
 * (marionette/io.h): a temporary file in path's folder, fsynced, renamed
 * over `path`, the folder fsynced; on any error `path` keeps its old bytes
 * and no temporary file is left.  Errors as mn_aosrig_write, plus MN_IO.
 */
MN_API mn_status mn_aosrig_write_file(const mn_aosrig_header *header, const mn_aosrig_blob *blobs,
                                      uint32_t blob_count, const char *path,
                                      const mn_aosrig_write_options *options, mn_error *err);

/*
 * Write `pack` back: mn_aosrig_write(&pack->header, pack->blobs,
 * pack->blob_count, ...).  For a pack the writer made this gives its bytes
 * again, bit for bit.
 */
MN_API mn_status mn_aosrig_repack(const mn_aosrig *pack, const mn_aosrig_write_options *options,
                                  uint8_t **out_data, size_t *out_size, mn_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_HEAD_AOSRIG_H */
