/*
 * bench_glb.h — writing a GLB byte by byte, for benchmarks that generate
 * their own models (so they need no asset and can choose every size).
 *
 *   - glb_text: a growing JSON text (printf-style appends);
 *   - glb_put_u16/u32/f32: little-endian stores, whatever the host is;
 *   - glb_begin: the GLB container around a JSON text, with the BIN chunk
 *     left for the caller to fill in place (a big BIN is never copied).
 *
 * Like bench.h, everything is static inline: each bench stays one
 * translation unit.
 */
#ifndef MN_BENCH_GLB_H
#define MN_BENCH_GLB_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing text; `failed` sticks after an allocation failure. */
typedef struct glb_text {
    char *data;
    size_t len, cap;
    bool failed;
} glb_text;

static inline void glb_text_init(glb_text *t, size_t capacity)
{
    t->data = malloc(capacity);
    t->len = 0;
    t->cap = capacity;
    t->failed = t->data == NULL;
}

static inline void glb_text_free(glb_text *t)
{
    free(t->data);
    t->data = NULL;
}

static inline void glb_text_append(glb_text *t, const char *fmt, ...)
{
    while (!t->failed) {
        va_list ap;
        size_t room = t->cap - t->len;
        va_start(ap, fmt);
        int n = vsnprintf(t->data + t->len, room, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
        } else if ((size_t)n < room) {
            t->len += (size_t)n;
            return;
        } else {
            size_t cap = t->cap * 2;
            while (cap - t->len <= (size_t)n)
                cap *= 2;
            char *grown = realloc(t->data, cap);
            if (grown == NULL) {
                t->failed = true;
            } else {
                t->data = grown;
                t->cap = cap;
            }
        }
    }
}

static inline void glb_put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void glb_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* glTF is little-endian whatever the host is. */
static inline void glb_put_f32(uint8_t *p, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    glb_put_u32(p, bits);
}

/*
 * Allocate a whole GLB for `json` and a BIN chunk of bin_size bytes: the
 * 12-byte header, the JSON chunk padded with spaces to 4 bytes, the BIN chunk
 * header and its zero padding are written; *bin points at the bin_size bytes
 * the caller fills.  malloc's alignment (16 on the usual hosts) keeps the BIN
 * data 4-aligned, as glTF's component types ask.  NULL when json failed or on
 * allocation failure; free the result with free().
 */
static inline uint8_t *glb_begin(const glb_text *json, size_t bin_size, uint8_t **bin,
                                 size_t *out_size)
{
    if (json->failed)
        return NULL;
    size_t json_padded = (json->len + 3u) & ~(size_t)3u;
    size_t bin_padded = (bin_size + 3u) & ~(size_t)3u;
    size_t total = 12u + 8u + json_padded + 8u + bin_padded;
    if (total > UINT32_MAX)
        return NULL;
    uint8_t *glb = malloc(total);
    if (glb == NULL)
        return NULL;
    uint8_t *p = glb;
    glb_put_u32(p, 0x46546C67u);            /* "glTF" */
    glb_put_u32(p + 4, 2u);
    glb_put_u32(p + 8, (uint32_t)total);
    glb_put_u32(p + 12, (uint32_t)json_padded);
    glb_put_u32(p + 16, 0x4E4F534Au);       /* "JSON" */
    memcpy(p + 20, json->data, json->len);
    memset(p + 20 + json->len, ' ', json_padded - json->len);
    p += 20 + json_padded;
    glb_put_u32(p, (uint32_t)bin_padded);
    glb_put_u32(p + 4, 0x004E4942u);        /* "BIN\0" */
    memset(p + 8 + bin_size, 0, bin_padded - bin_size);
    *bin = p + 8;
    *out_size = total;
    return glb;
}

#endif /* MN_BENCH_GLB_H */
