/*
 * render/image_png: PNG files from RGBA8 images.  The one file that compiles
 * stb_image_write's implementation (static, like stb_image's in
 * image_decode.c).  stb builds the PNG in memory and hands it over in one
 * call, which goes to a file of an output set (io/output.c): whole or not
 * at all, and a sequence of frames in one set is replaced as one.
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

typedef struct png_sink {
    mn_output *set;
    uint32_t file;
    mn_error *err;
    bool failed;
} png_sink;

static void sink_write(void *context, void *data, int size)
{
    png_sink *sink = context;
    if (!sink->failed && size > 0 && mni_output_write(sink->set, sink->file, data, (size_t)size, sink->err) != MN_OK)
        sink->failed = true;
}

/* Encode the image into a new file of the set (named after the ones before it). */
static mn_status png_to(mn_output *set, const mn_rgba_image *image, const char *path, mn_error *err)
{
    if (!image || !image->pixels || image->width == 0 || image->height == 0 || !path || !*path ||
        image->width > INT_MAX / 4u || image->height > INT_MAX)
        return mni_fail(err, MN_INVALID_ARGUMENT, "png: NULL or empty image or path");
    png_sink sink = {set, 0, err, false};
    mn_status st = mni_output_add(set, path, set->count, &sink.file, err);
    if (st != MN_OK)
        return st;
    int ok = stbi_write_png_to_func(sink_write, &sink, (int)image->width, (int)image->height, 4,
                                    image->pixels, (int)(image->width * 4u));
    if (sink.failed)
        return err->code;
    if (!ok)
        return mni_output_fail(
            set, mni_fail(err, MN_OUT_OF_MEMORY, "%.300s: out of memory encoding the PNG", path), err);
    return mni_output_finish(set, sink.file, err);
}

mn_status mn_rgba_image_write_png(const mn_rgba_image *image, const char *path, mn_error *err)
{
    mn_error local;
    if (!err)
        err = &local;
    mn_output set;
    mni_output_init(&set, NULL);
    mn_status st = png_to(&set, image, path, err);
    if (st != MN_OK) {
        mni_output_abort(&set);
        return st;
    }
    return mni_output_commit(&set, err);
}

mn_status mn_rgba_image_write_png_to(mn_output *set, const mn_rgba_image *image, const char *path, mn_error *err)
{
    mn_error local;
    if (!err)
        err = &local;
    if (!set)
        return mni_fail(err, MN_INVALID_ARGUMENT, "png: the output set is NULL");
    mn_status st = png_to(set, image, path, err);
    return st == MN_OK ? MN_OK : mni_output_fail(set, st, err);
}
