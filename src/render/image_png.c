/*
 * render/image_png: PNG and JPEG files from RGBA8 images.  The one file that
 * compiles stb_image_write's implementation (static, like stb_image's in
 * image_decode.c).  stb hands the encoded bytes over in pieces, each written
 * to a file of an output set (io/output.c): whole or not at all, and a
 * sequence of frames in one set is replaced as one.
 */
#define _POSIX_C_SOURCE 200809L

#include <marionette/render.h>

#include "core/core.h"
#include "io/io.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
/* stb declares static functions that this configuration leaves undefined; the compiler
   says so at the end of the file, so the warning stays off to the end of this file. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb/stb_image_write.h>

/* Where stb's bytes go.  The PNG comes in one piece; the JPEG writer hands over 64 bytes at a
   time, so pieces are gathered here and written 16 KiB at a time, not a system call each. */
#define SINK_BUFFER 16384u

typedef struct png_sink {
    mn_output *set;
    uint32_t file;
    mn_error *err;
    bool failed;
    size_t used;
    unsigned char buffer[SINK_BUFFER];
} png_sink;

static void sink_put(png_sink *sink, const void *data, size_t size)
{
    if (!sink->failed && size > 0 && mni_output_write(sink->set, sink->file, data, size, sink->err) != MN_OK)
        sink->failed = true;
}

static void sink_flush(png_sink *sink)
{
    sink_put(sink, sink->buffer, sink->used);
    sink->used = 0;
}

static void sink_write(void *context, void *data, int size)
{
    png_sink *sink = context;
    if (size <= 0)
        return;
    if (sink->used + (size_t)size > SINK_BUFFER)
        sink_flush(sink);
    if ((size_t)size >= SINK_BUFFER) {
        sink_put(sink, data, (size_t)size);
        return;
    }
    memcpy(sink->buffer + sink->used, data, (size_t)size);
    sink->used += (size_t)size;
}

typedef enum image_format { FORMAT_PNG, FORMAT_JPEG } image_format;

/* Encode the image into a new file of the set (named after the ones before it). */
static mn_status encode_to(mn_output *set, const mn_rgba_image *image, const char *path,
                           image_format format, int quality, mn_error *err)
{
    const char *what = format == FORMAT_PNG ? "png" : "jpeg";
    if (!image || !image->pixels || image->width == 0 || image->height == 0 || !path || !*path ||
        image->width > INT_MAX / 4u || image->height > INT_MAX)
        return mni_fail(err, MN_INVALID_ARGUMENT, "%s: NULL or empty image or path", what);
    if (format == FORMAT_JPEG && (quality < 1 || quality > 100))
        return mni_fail(err, MN_INVALID_ARGUMENT, "jpeg: quality %d is not from 1 to 100", quality);
    png_sink sink = {.set = set, .err = err};
    mn_status st = mni_output_add(set, path, set->count, &sink.file, err);
    if (st != MN_OK)
        return st;
    /* A JPEG has no alpha: stb writes the RGB of each pixel and drops A. */
    int ok = format == FORMAT_PNG
                 ? stbi_write_png_to_func(sink_write, &sink, (int)image->width, (int)image->height,
                                          4, image->pixels, (int)(image->width * 4u))
                 : stbi_write_jpg_to_func(sink_write, &sink, (int)image->width, (int)image->height,
                                          4, image->pixels, quality);
    sink_flush(&sink);
    if (sink.failed)
        return err->code;
    if (!ok)
        return mni_output_fail(set, mni_fail(err, MN_OUT_OF_MEMORY, "%.300s: out of memory encoding the %s",
                                             path, format == FORMAT_PNG ? "PNG" : "JPEG"), err);
    return mni_output_finish(set, sink.file, err);
}

/* The image as the one file of a set of its own, committed. */
static mn_status write_alone(const mn_rgba_image *image, const char *path, image_format format,
                             int quality, mn_error *err)
{
    mn_error local;
    if (!err)
        err = &local;
    mn_output set;
    mni_output_init(&set, NULL);
    mn_status st = encode_to(&set, image, path, format, quality, err);
    if (st != MN_OK) {
        mni_output_abort(&set);
        return st;
    }
    return mni_output_commit(&set, err);
}

/* The image as one more file of the caller's set; the set failed on an error. */
static mn_status write_into(mn_output *set, const mn_rgba_image *image, const char *path,
                            image_format format, int quality, mn_error *err)
{
    mn_error local;
    if (!err)
        err = &local;
    if (!set)
        return mni_fail(err, MN_INVALID_ARGUMENT, "%s: the output set is NULL",
                        format == FORMAT_PNG ? "png" : "jpeg");
    mn_status st = encode_to(set, image, path, format, quality, err);
    return st == MN_OK ? MN_OK : mni_output_fail(set, st, err);
}

mn_status mn_rgba_image_write_png(const mn_rgba_image *image, const char *path, mn_error *err)
{
    return write_alone(image, path, FORMAT_PNG, 0, err);
}

mn_status mn_rgba_image_write_png_to(mn_output *set, const mn_rgba_image *image, const char *path, mn_error *err)
{
    return write_into(set, image, path, FORMAT_PNG, 0, err);
}

mn_status mn_rgba_image_write_jpeg(const mn_rgba_image *image, const char *path, int quality,
                                   mn_error *err)
{
    return write_alone(image, path, FORMAT_JPEG, quality, err);
}

mn_status mn_rgba_image_write_jpeg_to(mn_output *set, const mn_rgba_image *image, const char *path,
                                      int quality, mn_error *err)
{
    return write_into(set, image, path, FORMAT_JPEG, quality, err);
}
