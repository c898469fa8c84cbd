/*
 * render/image_decode: PNG and JPEG (and the other formats stb_image reads)
 * into RGBA8 images, and WebP (EXT_texture_webp) through libwebp when the
 * build found it (MN_WITH_WEBP).  The one file that compiles stb_image's implementation:
 * its functions are static here, so nothing of stb's leaks into the library's
 * symbols or clashes with a program that links its own copy.
 */
#define _POSIX_C_SOURCE 200809L

#include <marionette/render.h>

#include "core/core.h"
#include "io/io.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_STDIO          /* files are read here, with errors that name them */
#define STBI_NO_LINEAR         /* 8-bit results only */
#define STBI_NO_HDR
#define STBI_FAILURE_USERMSG
/* stb declares static functions that this configuration leaves undefined; the compiler
   says so at the end of the file, so the warning stays off to the end of this file. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb/stb_image.h>

#ifdef MN_WITH_WEBP
#include <webp/decode.h>
#endif

/* The largest side decoded: 32768 (a texture past that is refused before any allocation). */
#define MAX_SIDE 32768u

static bool is_webp(const uint8_t *p, size_t n)
{
    return n >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0;
}

static bool is_ktx2(const uint8_t *p, size_t n)
{
    static const uint8_t magic[12] = {0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB, '\r', '\n', 0x1A, '\n'};
    return n >= 12 && memcmp(p, magic, 12) == 0;
}

/* WebP through libwebp: the header's size checked first, then decoded straight into the image. */
static mn_status decode_webp(const uint8_t *bytes, size_t size, const mn_allocator *allocator, mn_rgba_image *out,
                             mn_error *err)
{
#ifdef MN_WITH_WEBP
    int w = 0, h = 0;
    if (!WebPGetInfo(bytes, size, &w, &h))
        return mni_fail(err, MN_INVALID_VALUE, "image: cannot decode: not a WebP image libwebp reads");
    if (w <= 0 || h <= 0 || (uint32_t)w > MAX_SIDE || (uint32_t)h > MAX_SIDE)
        return mni_fail(err, MN_OVERFLOW, "image: %dx%d is too large", w, h);
    mn_status st = mn_rgba_image_create((uint32_t)w, (uint32_t)h, allocator, out, err);
    if (st != MN_OK)
        return st;
    size_t bytes_out = (size_t)w * (size_t)h * 4u;
    if (!WebPDecodeRGBAInto(bytes, size, out->pixels, bytes_out, w * 4)) {
        mn_rgba_image_free(out);
        memset(out, 0, sizeof *out);
        return mni_fail(err, MN_INVALID_VALUE, "image: cannot decode: the WebP data is corrupt");
    }
    return MN_OK;
#else
    (void)bytes;
    (void)size;
    (void)allocator;
    (void)out;
    return mni_fail(err, MN_INVALID_VALUE,
                    "image: a WebP image, and this build of marionette has no WebP decoder (libwebp was not "
                    "found when it was built)");
#endif
}

mn_status mn_rgba_image_decode(const void *bytes, size_t size, const mn_allocator *allocator,
                               mn_rgba_image *out, mn_error *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!bytes || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "image: NULL bytes or out");
    if (size == 0 || size > INT_MAX)
        return mni_fail(err, MN_INVALID_VALUE, "image: %zu bytes is not an image", size);
    if (is_webp(bytes, size))
        return decode_webp(bytes, size, allocator, out, err);
    if (is_ktx2(bytes, size))
        return mni_fail(err, MN_INVALID_VALUE,
                        "image: a KTX2 (KHR_texture_basisu) image, which marionette does not decode");
    int w = 0, h = 0, channels = 0;
    if (!stbi_info_from_memory(bytes, (int)size, &w, &h, &channels))
        return mni_fail(err, MN_INVALID_VALUE, "image: cannot decode: %s", stbi_failure_reason());
    if (w <= 0 || h <= 0 || (uint32_t)w > MAX_SIDE || (uint32_t)h > MAX_SIDE)
        return mni_fail(err, MN_OVERFLOW, "image: %dx%d is too large", w, h);
    unsigned char *pixels = stbi_load_from_memory(bytes, (int)size, &w, &h, &channels, 4);
    if (!pixels)
        return mni_fail(err, MN_INVALID_VALUE, "image: cannot decode: %s", stbi_failure_reason());
    mn_status st = mn_rgba_image_create((uint32_t)w, (uint32_t)h, allocator, out, err);
    if (st == MN_OK)
        memcpy(out->pixels, pixels, (size_t)w * (size_t)h * 4u);
    stbi_image_free(pixels);
    return st;
}

mn_status mn_rgba_image_read_file(const char *path, const mn_allocator *allocator,
                                  mn_rgba_image *out, mn_error *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "image: NULL path or out");
    mn_allocator hooks = {0};
    if (allocator)
        hooks = *allocator;
    /* Opened without blocking, a regular file only, read with read() (io/contain.c). */
    mn_arena scratch;
    mni_arena_init(&scratch, &hooks);
    mn_bytes file;
    mn_status st = mni_file_read(&scratch, path, &file, err);
    if (st == MN_OK && (file.size == 0 || file.size > INT_MAX))
        st = mni_fail(err, MN_IO, "%s: cannot read (empty or too large)", path);
    if (st == MN_OK) {
        st = mn_rgba_image_decode(file.data, file.size, allocator, out, err);
        if (st != MN_OK && err) {
            char why[sizeof err->message];
            snprintf(why, sizeof why, "%s", err->message);
            mni_fail(err, st, "%s: %s", path, why);
        }
    }
    mni_arena_release(&scratch);
    return st;
}
