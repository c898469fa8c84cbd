/*
 * render/image_png: PNG files from RGBA8 images.  The one file that compiles
 * stb_image_write's implementation (static, like stb_image's in
 * image_decode.c).  The PNG is built in memory, then written under a
 * temporary name and renamed, so a failed write leaves no partial file.
 */
#define _POSIX_C_SOURCE 200809L

#include <marionette/render.h>

#include "core/core.h"

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
    FILE *file;
    bool failed;
} png_sink;

static void sink_write(void *context, void *data, int size)
{
    png_sink *sink = context;
    if (!sink->failed && size > 0 && fwrite(data, 1, (size_t)size, sink->file) != (size_t)size)
        sink->failed = true;
}

mn_status mn_rgba_image_write_png(const mn_rgba_image *image, const char *path, mn_error *err)
{
    if (!image || !image->pixels || image->width == 0 || image->height == 0 || !path || !*path)
        return mni_fail(err, MN_INVALID_ARGUMENT, "png: NULL or empty image or path");
    size_t len = strlen(path);
    char tmp[4096];
    if (len + 8 >= sizeof tmp)
        return mni_fail(err, MN_INVALID_ARGUMENT, "png: path too long");
    snprintf(tmp, sizeof tmp, "%s.tmp~", path);
    png_sink sink = {fopen(tmp, "wb"), false};
    if (!sink.file)
        return mni_fail(err, MN_IO, "%s: cannot create the file", path);
    int ok = stbi_write_png_to_func(sink_write, &sink, (int)image->width, (int)image->height, 4,
                                    image->pixels, (int)(image->width * 4u));
    bool closed = fclose(sink.file) == 0;
    if (!ok || sink.failed || !closed || rename(tmp, path) != 0) {
        remove(tmp);
        return mni_fail(err, ok ? MN_IO : MN_OUT_OF_MEMORY, "%s: cannot write the PNG%s", path,
                        ok ? " (disk full?)" : "");
    }
    return MN_OK;
}
