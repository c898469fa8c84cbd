/*
 * render/source: what every source of posed geometry shares — the arena that
 * holds its scene, texture decoding with warnings instead of failure, and
 * the refresh that each kind implements in its own file.
 */
#include "render/render.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

mn_render_source *mni_source_new(const mn_allocator *allocator, mn_source_refresh_fn refresh)
{
    mn_allocator hooks = {0};
    if (allocator)
        hooks = *allocator;
    mn_render_source *s = mni_alloc(&hooks, sizeof *s);
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    mni_arena_init(&s->arena, &hooks);
    s->refresh = refresh;
    return s;
}

void mni_source_warn(mn_render_source *s, mn_status code, const char *path, const char *fmt, ...)
{
    if (s->warning_count >= MN_SOURCE_MAX_WARNINGS)
        return;
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    const char *message = mni_arena_strndup(&s->arena, text, strlen(text));
    const char *where = path ? mni_arena_strndup(&s->arena, path, strlen(path)) : "";
    if (!message || !where)
        return;
    s->warnings[s->warning_count++] = (mn_warning){code, where, message};
}

bool mni_source_decode_texture(mn_render_source *s, const void *bytes, size_t size,
                               const char *what, mn_render_texture *out, mn_status *status)
{
    out->width = out->height = 0;
    out->rgba = NULL;
    if (!bytes || size == 0) {
        mni_source_warn(s, MN_IO, what, "%s: no image data (the file could not be resolved)", what);
        return false;
    }
    mn_rgba_image img;
    mn_error err;
    mn_status st = mn_rgba_image_decode(bytes, size, &s->arena.allocator, &img, &err);
    if (st == MN_OUT_OF_MEMORY) {
        *status = st;
        return false;
    }
    if (st != MN_OK) {
        mni_source_warn(s, st, what, "%s: %s; drawn untextured", what, err.message);
        return false;
    }
    size_t bytes_needed = (size_t)img.width * img.height * 4u;
    uint8_t *pixels = mni_arena_alloc(&s->arena, bytes_needed, 16);
    if (!pixels) {
        mn_rgba_image_free(&img);
        *status = MN_OUT_OF_MEMORY;
        return false;
    }
    memcpy(pixels, img.pixels, bytes_needed);
    out->width = img.width;
    out->height = img.height;
    out->rgba = pixels;
    mn_rgba_image_free(&img);
    return true;
}

void mn_render_source_refresh(mn_render_source *s)
{
    if (s && s->refresh)
        s->refresh(s);
}

const mn_render_scene *mn_render_source_scene(const mn_render_source *s)
{
    return s ? &s->scene : NULL;
}

uint32_t mn_render_source_warning_count(const mn_render_source *s)
{
    return s ? s->warning_count : 0;
}

const mn_warning *mn_render_source_warning(const mn_render_source *s, uint32_t index)
{
    return s && index < s->warning_count ? &s->warnings[index] : NULL;
}

void mn_render_source_free(mn_render_source *s)
{
    if (s)
        mni_arena_release_holder(&s->arena, s, sizeof *s);
}
