/*
 * What the demo generators (make_demo_glb.c, make_voxel_model.c) share to
 * write a GLB byte by byte with no library help: a growable byte buffer,
 * little-endian integers and floats, JSON text, 4-byte padding, and the GLB
 * container around a JSON chunk and a BIN chunk.
 *
 * Define GLB_WRITE_PROGRAM (the program's name, for its error messages)
 * before including this file.  Everything here is static: each generator is
 * one translation unit.
 */
#ifndef MN_TOOLS_DEMO_GLB_WRITE_H
#define MN_TOOLS_DEMO_GLB_WRITE_H

#ifndef GLB_WRITE_PROGRAM
#error "define GLB_WRITE_PROGRAM before including glb_write.h"
#endif

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bytes {
    uint8_t *data;
    size_t size, cap;
} bytes;

/* "PROGRAM: what" on stderr, exit status 1: a generator has no way to go on. */
static inline void glb_fail(const char *what)
{
    fprintf(stderr, "%s: %s\n", GLB_WRITE_PROGRAM, what);
    exit(1);
}

static inline void put_bytes(bytes *b, const void *src, size_t n)
{
    if (b->size + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->size + n)
            cap *= 2;
        uint8_t *grown = realloc(b->data, cap);
        if (!grown)
            glb_fail("out of memory");
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->size, src, n);
    b->size += n;
}

static inline void put_u8(bytes *b, uint8_t v) { put_bytes(b, &v, 1); }

static inline void put_u16(bytes *b, uint16_t v)
{
    uint8_t le[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put_bytes(b, le, 2);
}

static inline void put_u32(bytes *b, uint32_t v)
{
    uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put_bytes(b, le, 4);
}

/* glTF stores little-endian IEEE floats: write the bits, whatever the host order. */
static inline void put_f32(bytes *b, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    put_u32(b, bits);
}

/* printf-style text, one JSON fragment (under 1 KiB) at a time. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline void put_text(bytes *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp)
        glb_fail("internal: JSON fragment too long");
    put_bytes(b, tmp, (size_t)n);
}

/* Pad with `fill` to a multiple of 4 (glTF aligns every view and chunk to 4 bytes). */
static inline void pad_to_4(bytes *b, uint8_t fill)
{
    while (b->size % 4 != 0)
        put_u8(b, fill);
}

/*
 * The whole GLB: the 12-byte header, the JSON chunk padded with spaces, and
 * the BIN chunk padded with zeros (left out when bin is empty, as a GLB with
 * no binary data has none).  Pads json and bin in place; the caller frees
 * the result's data.
 */
static inline bytes glb_pack(bytes *json, bytes *bin)
{
    pad_to_4(json, ' ');
    pad_to_4(bin, 0);
    bytes glb = {0};
    uint32_t total = 12 + 8 + (uint32_t)json->size + (bin->size ? 8 + (uint32_t)bin->size : 0);
    put_u32(&glb, 0x46546C67u); /* "glTF" */
    put_u32(&glb, 2);
    put_u32(&glb, total);
    put_u32(&glb, (uint32_t)json->size);
    put_u32(&glb, 0x4E4F534Au); /* "JSON" */
    put_bytes(&glb, json->data, json->size);
    if (bin->size) {
        put_u32(&glb, (uint32_t)bin->size);
        put_u32(&glb, 0x004E4942u); /* "BIN\0" */
        put_bytes(&glb, bin->data, bin->size);
    }
    return glb;
}

#endif /* MN_TOOLS_DEMO_GLB_WRITE_H */
