/*
 * render/image: RGBA8 images — creation, filling and copying.  Decoding
 * (image_decode.c) and PNG writing (image_png.c) keep stb in files of their
 * own.
 */
#include <marionette/render.h>

#include "core/core.h"

#include <string.h>

#define MN_IMAGE_MAX_SIDE 32768u

mn_status mn_rgba_image_create(uint32_t width, uint32_t height, const mn_allocator *allocator,
                               mn_rgba_image *out, mn_error *err)
{
    if (!out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "image: NULL out");
    memset(out, 0, sizeof *out);
    if (width == 0 || height == 0 || width > MN_IMAGE_MAX_SIDE || height > MN_IMAGE_MAX_SIDE)
        return mni_fail(err, MN_INVALID_ARGUMENT, "image: %ux%u is not a size from 1x1 to %ux%u",
                        width, height, MN_IMAGE_MAX_SIDE, MN_IMAGE_MAX_SIDE);
    size_t bytes = (size_t)width * height * 4u;   /* at most 2^32: fits size_t on 64-bit */
    if (allocator)
        out->allocator = *allocator;
    out->pixels = mni_alloc(&out->allocator, bytes);
    if (!out->pixels)
        return mni_oom(err, "image: %ux%u", width, height);
    memset(out->pixels, 0, bytes);
    out->width = width;
    out->height = height;
    return MN_OK;
}

void mn_rgba_image_free(mn_rgba_image *image)
{
    if (!image)
        return;
    if (image->pixels)
        mni_free(&image->allocator, image->pixels, (size_t)image->width * image->height * 4u);
    memset(image, 0, sizeof *image);
}

void mn_rgba_image_fill(mn_rgba_image *image, const uint8_t rgba[4])
{
    if (!image || !image->pixels || !rgba)
        return;
    size_t n = (size_t)image->width * image->height;
    for (size_t i = 0; i < n; i++)
        memcpy(image->pixels + 4 * i, rgba, 4);
}

void mn_rgba_image_blit(mn_rgba_image *dst, const mn_rgba_image *src, int32_t x, int32_t y)
{
    if (!dst || !src || !dst->pixels || !src->pixels)
        return;
    int64_t x0 = x < 0 ? -(int64_t)x : 0, y0 = y < 0 ? -(int64_t)y : 0;
    int64_t x1 = src->width, y1 = src->height;
    if ((int64_t)x + x1 > dst->width)
        x1 = (int64_t)dst->width - x;
    if ((int64_t)y + y1 > dst->height)
        y1 = (int64_t)dst->height - y;
    if (x0 >= x1 || y0 >= y1)
        return;
    for (int64_t row = y0; row < y1; row++)
        memcpy(dst->pixels + 4 * ((size_t)(row + y) * dst->width + (size_t)(x + x0)),
               src->pixels + 4 * ((size_t)row * src->width + (size_t)x0), (size_t)(x1 - x0) * 4u);
}
