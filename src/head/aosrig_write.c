/*
 * mn_aosrig_write: header and blobs → one .aosrig, byte-exactly as
 * docs/formats.md ("Header bytes") lays it out.
 *
 * The header names each blob's offset, and the offsets depend on the
 * header's own length, so the layout is a fixed-point search: pass n lays
 * the blobs out after a header of H bytes (H = 0 in pass 1), prints the
 * header, and stands when the printed length is H; otherwise H takes the
 * printed length.  The length only grows with H (longer offsets), so it
 * settles in two passes in practice; four without agreement is an error.
 */
#define _POSIX_C_SOURCE 200809L

#include "head/aosrig_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAYOUT_PASSES 4

MN_API const char *mn_aosrig_dtype_name(mn_aosrig_dtype dtype)
{
    static const char *const names[MN_AOSRIG_DTYPE_COUNT] = {"f32", "f16", "u8",
                                                             "u16", "u32", "i32"};
    return (unsigned)dtype < MN_AOSRIG_DTYPE_COUNT ? names[dtype] : "invalid";
}

MN_API const char *mn_aosrig_units_name(mn_aosrig_units units)
{
    static const char *const names[] = {"m", "cm"};
    return (unsigned)units < sizeof names / sizeof names[0] ? names[units] : "invalid";
}

MN_API size_t mn_aosrig_dtype_size(mn_aosrig_dtype dtype)
{
    static const size_t sizes[MN_AOSRIG_DTYPE_COUNT] = {4, 2, 1, 2, 4, 4};
    return (unsigned)dtype < MN_AOSRIG_DTYPE_COUNT ? sizes[dtype] : 0;
}

MN_API void mn_aosrig_bytes_free(const mn_allocator *allocator, uint8_t *data, size_t size)
{
    mn_allocator none = {0};
    mni_free(allocator ? allocator : &none, data, size);
}

/* ---- checking what will be printed ------------------------------------------------ */

typedef struct writer {
    const mn_aosrig_header *header;
    const mn_aosrig_blob *blobs;
    uint32_t blob_count;
    const mn_allocator *allocator;
    json_t *mouth, *source;        /* parsed from the header's JSON text, or NULL */
    uint64_t *offsets;             /* blob_count, this pass's layout */
    mn_error *err;
} writer;

static mn_status check_string(writer *w, const char *s, const char *what)
{
    if (!s)
        return mni_error_set(w->err, MN_INVALID_ARGUMENT, what, -1, "%s is NULL", what);
    if (!mni_js_valid_utf8(s, strlen(s)))
        return mni_error_set(w->err, MN_INVALID_ARGUMENT, what, -1,
                             "%s is not UTF-8 text", what);
    return MN_OK;
}

/* Parse a free-form member's JSON text (mouth, source); NULL text leaves it out. */
static mn_status parse_free_form(writer *w, const char *text, const char *key, json_t **out)
{
    *out = NULL;
    if (!text)
        return MN_OK;
    json_error_t jerr;
    *out = mni_js_parse(text, strlen(text), &jerr);
    if (!*out) {
        mn_status st = mni_error_set(w->err, MN_JSON_SYNTAX, key, jerr.position,
                                     "%s: not JSON text (line %d, column %d): %s", key, jerr.line,
                                     jerr.column, jerr.text);
        if (w->err) {
            w->err->line = jerr.line;
            w->err->column = jerr.column;
        }
        return st;
    }
    if (json_is_null(*out))
        return mni_error_set(w->err, MN_JSON_SYNTAX, key, -1,
                             "%s is null; leave it out (NULL) instead", key);
    return MN_OK;
}

static mn_status check_header(writer *w)
{
    const mn_aosrig_header *h = w->header;
    char what[64];
    if (!h->names && h->coeff_count)
        return mni_error_set(w->err, MN_INVALID_ARGUMENT, "names", -1, "names is NULL");
    for (uint32_t e = 0; e < h->coeff_count; e++) {
        snprintf(what, sizeof what, "names[%u]", e);
        mn_status st = check_string(w, h->names[e], what);
        if (st != MN_OK)
            return st;
    }
    if (!h->head_ext.regions && h->head_ext.region_count)
        return mni_error_set(w->err, MN_INVALID_ARGUMENT, "headExt.regions", -1,
                             "headExt.regions is NULL");
    for (uint32_t r = 0; r < h->head_ext.region_count; r++) {
        snprintf(what, sizeof what, "headExt.regions[%u]", r);
        mn_status st = check_string(w, h->head_ext.regions[r].name, what);
        if (st != MN_OK)
            return st;
    }
    for (int k = 0; k < 2; k++) {
        mn_status st = check_string(w, h->eye_joints[k], k ? "eyes.right.joint" : "eyes.left.joint");
        if (st != MN_OK)
            return st;
    }
    if (!h->joint_names && h->joint_count)
        return mni_error_set(w->err, MN_INVALID_ARGUMENT, "joints", -1, "joint_names is NULL");
    for (uint32_t j = 0; j < h->joint_count; j++) {
        snprintf(what, sizeof what, "joints[%u].name", j);
        mn_status st = check_string(w, h->joint_names[j], what);
        if (st != MN_OK)
            return st;
    }
    if (h->has_bind_transform)
        for (int i = 0; i < 16; i++)
            if (!isfinite(h->bind_transform[i]))
                return mni_error_set(w->err, MN_NOT_FINITE, "bindTransform", -1,
                                     "bindTransform[%d] is not finite", i);
    mn_status st = parse_free_form(w, h->mouth_json, "mouth", &w->mouth);
    if (st == MN_OK)
        st = parse_free_form(w, h->source_json, "source", &w->source);
    return st;
}

static mn_status check_blobs(writer *w)
{
    if (!w->blobs && w->blob_count)
        return mni_error_set(w->err, MN_INVALID_ARGUMENT, "buffers", -1,
                             "blobs is NULL with a count of %u", w->blob_count);
    for (uint32_t i = 0; i < w->blob_count; i++) {
        const mn_aosrig_blob *b = &w->blobs[i];
        char what[32];
        snprintf(what, sizeof what, "buffers[%u]", i);
        mn_status st = check_string(w, b->name, what);
        if (st != MN_OK)
            return st;
        if ((unsigned)b->dtype >= MN_AOSRIG_DTYPE_COUNT)
            return mni_error_set(w->err, MN_INVALID_ARGUMENT, what, -1,
                                 "blob \"%s\": dtype %d is not one of f32 f16 u8 u16 u32 i32",
                                 b->name, (int)b->dtype);
        if (b->size && !b->data)
            return mni_error_set(w->err, MN_INVALID_ARGUMENT, what, -1,
                                 "blob \"%s\": data is NULL with %llu bytes", b->name,
                                 (unsigned long long)b->size);
        if (b->rank && !b->shape)
            return mni_error_set(w->err, MN_INVALID_ARGUMENT, what, -1,
                                 "blob \"%s\": shape is NULL with rank %u", b->name, b->rank);
        for (uint32_t d = 0; d < b->rank; d++)
            if ((double)b->shape[d] > MN_AOSRIG_MAX_SAFE_INTEGER)
                return mni_error_set(w->err, MN_INVALID_ARGUMENT, what, -1,
                                     "blob \"%s\": shape[%u] = %llu is not exact as a double",
                                     b->name, d, (unsigned long long)b->shape[d]);
        if ((double)b->size > MN_AOSRIG_MAX_SAFE_INTEGER || b->size > SIZE_MAX)
            return mni_error_set(w->err, MN_OVERFLOW, what, -1, "blob \"%s\" is too large",
                                 b->name);
    }
    return MN_OK;
}

/* ---- printing the header ------------------------------------------------------------ */

static void put_key(mn_jstext *t, const char *key, bool first)
{
    if (!first)
        mni_jstext_put(t, ",", 1);
    mni_js_put_string(t, key, strlen(key));
    mni_jstext_put(t, ":", 1);
}

static void put_number(mn_jstext *t, double x)
{
    char num[40];
    mni_jstext_put(t, num, mni_js_number(x, num));
}

static void put_str(mn_jstext *t, const char *s)
{
    mni_js_put_string(t, s, strlen(s));
}

static void put_head_ext(mn_jstext *t, const mn_aosrig_head_ext *x)
{
    mni_jstext_put(t, "{", 1);
    put_key(t, "dim", true);
    put_number(t, x->dim);
    put_key(t, "exprDim", false);
    put_number(t, x->expr_dim);
    put_key(t, "gazeDim", false);
    put_number(t, x->gaze_dim);
    put_key(t, "regions", false);
    mni_jstext_put(t, "[", 1);
    for (uint32_t r = 0; r < x->region_count; r++) {
        mni_jstext_put(t, r ? ",[" : "[", r ? 2 : 1);
        put_str(t, x->regions[r].name);
        mni_jstext_put(t, ",", 1);
        put_number(t, x->regions[r].count);
        mni_jstext_put(t, "]", 1);
    }
    mni_jstext_put(t, "]", 1);
    put_key(t, "reduced", false);
    mni_jstext_put(t, "{", 1);
    bool first = true;
    for (uint32_t r = 0; r < x->region_count; r++) {
        if (!x->regions[r].has_reduced)
            continue;
        put_key(t, x->regions[r].name, first);
        put_number(t, x->regions[r].reduced);
        first = false;
    }
    mni_jstext_put(t, "}}", 2);
}

static void put_buffers(mn_jstext *t, const writer *w)
{
    mni_jstext_put(t, "[", 1);
    for (uint32_t i = 0; i < w->blob_count; i++) {
        const mn_aosrig_blob *b = &w->blobs[i];
        mni_jstext_put(t, i ? ",{" : "{", i ? 2 : 1);
        put_key(t, "name", true);
        put_str(t, b->name);
        put_key(t, "dtype", false);
        put_str(t, mn_aosrig_dtype_name(b->dtype));
        put_key(t, "shape", false);
        mni_jstext_put(t, "[", 1);
        for (uint32_t d = 0; d < b->rank; d++) {
            if (d)
                mni_jstext_put(t, ",", 1);
            put_number(t, (double)b->shape[d]);
        }
        mni_jstext_put(t, "]", 1);
        put_key(t, "offset", false);
        put_number(t, (double)w->offsets[i]);
        put_key(t, "byteLength", false);
        put_number(t, (double)b->size);
        mni_jstext_put(t, "}", 1);
    }
    mni_jstext_put(t, "]", 1);
}

/* The header JSON for this pass's offsets; false when memory ran out. */
static bool print_header(mn_jstext *t, const writer *w)
{
    const mn_aosrig_header *h = w->header;
    t->len = 0;
    mni_jstext_put(t, "{", 1);
    put_key(t, "version", true);
    put_number(t, 1);
    put_key(t, "model", false);
    put_str(t, "gnm");
    put_key(t, "units", false);
    /* any value but centimetres poses as metres (head/runtime.c), so it is written as such */
    put_str(t, mn_aosrig_units_name(h->units == MN_AOSRIG_CENTIMETRES ? MN_AOSRIG_CENTIMETRES
                                                                      : MN_AOSRIG_METRES));
    put_key(t, "vertexCount", false);
    put_number(t, h->vertex_count);
    put_key(t, "coeffCount", false);
    put_number(t, h->coeff_count);
    put_key(t, "maxInfluence", false);
    put_number(t, h->max_influence);
    put_key(t, "names", false);
    mni_jstext_put(t, "[", 1);
    for (uint32_t e = 0; e < h->coeff_count; e++) {
        if (e)
            mni_jstext_put(t, ",", 1);
        put_str(t, h->names[e]);
    }
    mni_jstext_put(t, "]", 1);
    put_key(t, "headExt", false);
    put_head_ext(t, &h->head_ext);
    put_key(t, "eyes", false);
    mni_jstext_puts(t, "{\"left\":{\"joint\":");
    put_str(t, h->eye_joints[0]);
    mni_jstext_puts(t, "},\"right\":{\"joint\":");
    put_str(t, h->eye_joints[1]);
    mni_jstext_puts(t, "}}");
    put_key(t, "joints", false);
    mni_jstext_put(t, "[", 1);
    for (uint32_t j = 0; j < h->joint_count; j++) {
        mni_jstext_puts(t, j ? ",{\"name\":" : "{\"name\":");
        put_str(t, h->joint_names[j]);
        mni_jstext_put(t, "}", 1);
    }
    mni_jstext_put(t, "]", 1);
    if (h->has_bind_transform) {
        put_key(t, "bindTransform", false);
        mni_jstext_put(t, "[", 1);
        for (int i = 0; i < 16; i++) {
            if (i)
                mni_jstext_put(t, ",", 1);
            put_number(t, h->bind_transform[i]);
        }
        mni_jstext_put(t, "]", 1);
    }
    if (w->mouth) {
        put_key(t, "mouth", false);
        mni_js_put_value(t, w->mouth);
    }
    if (w->source) {
        put_key(t, "source", false);
        mni_js_put_value(t, w->source);
    }
    put_key(t, "buffers", false);
    put_buffers(t, w);
    return mni_jstext_put(t, "}", 1);
}

/* Offsets for a header of H bytes; *end = the end of the last blob (16 + H with none). */
static bool lay_out(writer *w, uint64_t header_length, uint64_t *end)
{
    uint64_t at = mni_align8(MN_AOSRIG_PREAMBLE + header_length);
    *end = MN_AOSRIG_PREAMBLE + header_length;
    for (uint32_t i = 0; i < w->blob_count; i++) {
        w->offsets[i] = at;
        if (w->blobs[i].size > UINT64_MAX - 8 - at)
            return false;
        *end = at + w->blobs[i].size;
        at = mni_align8(*end);
    }
    return (double)*end <= MN_AOSRIG_MAX_SAFE_INTEGER && *end <= SIZE_MAX;
}

static mn_status assemble(writer *w, mn_jstext *text, uint8_t **out_data, size_t *out_size)
{
    uint64_t header_length = 0, end = 0;
    bool converged = false;
    for (int pass = 1; pass <= LAYOUT_PASSES && !converged; pass++) {
        if (!lay_out(w, header_length, &end))
            return mni_error_set(w->err, MN_OVERFLOW, "buffers", -1,
                                 "the blobs do not fit in a file a double can measure");
        if (!print_header(text, w))
            return mni_oom(w->err, "printing the header");
        converged = text->len == header_length;
        header_length = text->len;
    }
    if (!converged)
        return mni_error_set(w->err, MN_COUNT_MISMATCH, "buffers", -1,
                             "the header length did not converge in %d layout passes "
                             "(last %llu bytes)",
                             LAYOUT_PASSES, (unsigned long long)header_length);
    if (header_length > UINT32_MAX)
        return mni_fail(w->err, MN_OVERFLOW, "the header is %llu bytes; its length must fit a u32",
                        (unsigned long long)header_length);
    size_t size = (size_t)end;
    uint8_t *bytes = mni_alloc(w->allocator, size);
    if (!bytes)
        return mni_oom(w->err, "a %zu-byte pack", size);
    memcpy(bytes, MN_AOSRIG_MAGIC, 8);
    mni_store_u32le(bytes + 8, (uint32_t)header_length);
    mni_store_u32le(bytes + 12, 0);
    memcpy(bytes + MN_AOSRIG_PREAMBLE, text->data, text->len);
    /* each blob, and zeros from the end of what precedes it (the padding): every byte
       written once, so packing costs about a copy */
    size_t filled = MN_AOSRIG_PREAMBLE + text->len;
    for (uint32_t i = 0; i < w->blob_count; i++) {
        size_t at = (size_t)w->offsets[i];
        if (at > filled)
            memset(bytes + filled, 0, at - filled);
        if (w->blobs[i].size)
            memcpy(bytes + at, w->blobs[i].data, (size_t)w->blobs[i].size);
        if (at + (size_t)w->blobs[i].size > filled)
            filled = at + (size_t)w->blobs[i].size;
    }
    *out_data = bytes;
    *out_size = size;
    return MN_OK;
}

MN_API mn_status mn_aosrig_write(const mn_aosrig_header *header, const mn_aosrig_blob *blobs,
                                 uint32_t blob_count, const mn_aosrig_write_options *options,
                                 uint8_t **out_data, size_t *out_size, mn_error *err)
{
    static const mn_allocator malloc_hooks = {0};
    mni_error_clear(err);
    if (out_data)
        *out_data = NULL;
    if (out_size)
        *out_size = 0;
    if (!header || !out_data || !out_size)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_aosrig_write needs a header, out_data and out_size");
    writer w = {.header = header, .blobs = blobs, .blob_count = blob_count,
                .allocator = options ? &options->allocator : &malloc_hooks, .err = err};
    mn_jstext text;
    mni_jstext_init(&text, w.allocator);
    mn_status st = check_header(&w);
    if (st == MN_OK)
        st = check_blobs(&w);
    size_t offsets_size = (size_t)blob_count * sizeof *w.offsets;
    if (st == MN_OK && blob_count) {
        w.offsets = mni_alloc(w.allocator, offsets_size);
        if (!w.offsets)
            st = mni_oom(err, NULL);
    }
    if (st == MN_OK)
        st = assemble(&w, &text, out_data, out_size);
    mni_free(w.allocator, w.offsets, offsets_size);
    mni_jstext_free(&text);
    json_decref(w.mouth);
    json_decref(w.source);
    return st;
}

MN_API mn_status mn_aosrig_repack(const mn_aosrig *pack, const mn_aosrig_write_options *options,
                                  uint8_t **out_data, size_t *out_size, mn_error *err)
{
    if (!pack)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_aosrig_repack: pack is NULL");
    return mn_aosrig_write(&pack->header, pack->blobs, pack->blob_count, options, out_data,
                           out_size, err);
}

/* ---- to a file ----------------------------------------------------------------------- */

MN_API mn_status mn_aosrig_write_file(const mn_aosrig_header *header, const mn_aosrig_blob *blobs,
                                      uint32_t blob_count, const char *path,
                                      const mn_aosrig_write_options *options, mn_error *err)
{
    static const mn_allocator malloc_hooks = {0};
    if (!path)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_aosrig_write_file: path is NULL");
    const mn_allocator *allocator = options ? &options->allocator : &malloc_hooks;
    uint8_t *bytes;
    size_t size;
    mn_status st = mn_aosrig_write(header, blobs, blob_count, options, &bytes, &size, err);
    if (st != MN_OK)
        return st;
        /* Whole or not at all: an output set of one file (io/output.c). */
    st = mni_output_write_whole(path, bytes, size, allocator, err);
    mni_free(allocator, bytes, size);
    return st;
}
