/*
 * Private: what the .aosrig reader and writer share — the container's fixed
 * numbers, the blobs a pack knows, and the printer that writes JSON exactly
 * as ECMAScript's JSON.stringify does (docs/formats.md, "Header bytes").
 */
#ifndef MN_HEAD_AOSRIG_INTERNAL_H
#define MN_HEAD_AOSRIG_INTERNAL_H

#include "core/core.h"

#include <marionette/head/aosrig.h>

#include <jansson.h>

#include "io/io.h"

#define MN_AOSRIG_MAGIC "AOSRIG\0\0"
#define MN_AOSRIG_PREAMBLE 16u
/* Header numbers are doubles: integers beyond 2^53 do not survive them. */
#define MN_AOSRIG_MAX_SAFE_INTEGER 9007199254740991.0

static inline uint64_t mni_align8(uint64_t x)
{
    return (x + 7u) & ~(uint64_t)7u;
}

/* Little-endian loads and stores of the preamble's u32s (the file's byte order on any host). */
static inline uint32_t mni_load_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void mni_store_u32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* ---- JSON text as JSON.stringify prints it (aosrig_json.c) ------------------------- */

/*
 * Number::toString of a finite double into out (at least 32 bytes): the
 * shortest digits that read back to the same double, plain notation for
 * 1e-6 <= |x| < 1e21, d.ddde±n otherwise, -0 as "0".  Returns the length.
 * The caller has checked that x is finite.
 */
size_t mni_js_number(double x, char *out);

/* A JSON string literal: escapes only ", \ and code points below U+0020.  false when
   s is not UTF-8 (or holds NUL) — check with mni_js_valid_utf8 first to tell that apart. */
bool mni_js_put_string(mn_jstext *t, const char *s, size_t n);
/* True when s[0..n) is well-formed UTF-8 without NUL (what a JSON string here may hold). */
bool mni_js_valid_utf8(const char *s, size_t n);
/* Any jansson value (numbers as doubles), objects' members in their order. */
bool mni_js_put_value(mn_jstext *t, const json_t *value);

/* Parse JSON text as the header's own numbers are read: every number a double. */
json_t *mni_js_parse(const char *text, size_t size, json_error_t *error);

/* ---- the reader's shared state (aosrig_read.c, aosrig_header.c) -------------------- */


typedef struct mn_aosrig_reader {
    mn_aosrig *pack;          /* being filled; its header strings live in `arena` */
    mn_arena *arena;
    mn_error *err;
    mn_json json;             /* the JSON path of the member being read */
    const uint8_t *bytes;
    size_t size;
    uint32_t header_length;   /* H */
    json_t *root;             /* the header document, freed by the reader */
    const mn_allocator *allocator;  /* for the JS-form text of mouth and source */
} mn_aosrig_reader;

/*
 * Read the header document (r->root, already parsed and an object) into
 * r->pack: header, eye_joint, bind_transform and every buffers entry (name,
 * dtype, shape, offset, size; data not yet set), checking the header items
 * of docs/formats.md's list in order, up to and including "buffers well-formed with
 * unique names and known dtypes".
 */
mn_status mni_aosrig_read_header(mn_aosrig_reader *r);

/* Fail at member `key` of the current JSON path (NULL: the path itself). */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
mn_status mni_aosrig_fail(mn_aosrig_reader *r, mn_status code, const char *key, const char *fmt,
                          ...);

#endif /* MN_HEAD_AOSRIG_INTERNAL_H */
