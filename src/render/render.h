/*
 * The render folder's interface: the source object every adapter fills —
 * the runtime's own (source_gltf.c, source_obj.c) and each product's render
 * source (voxel/render_source.c, head/render_source.c,
 * character/render_source.c).
 */
#ifndef MN_RENDER_RENDER_H
#define MN_RENDER_RENDER_H

#include <marionette/render.h>

#include "core/core.h"

/* ---- sources ------------------------------------------------------------------ */

#define MN_SOURCE_MAX_WARNINGS 16u

/*
 * What a source of one kind does on mn_render_source_refresh: re-read the
 * posed vertices and matrices into its meshes, allocation-free.  NULL for a
 * source that never moves (an OBJ).  It also tells the kinds apart.
 */
typedef void (*mn_source_refresh_fn)(mn_render_source *source);

struct mn_render_source {
    mn_arena arena;                  /* everything below lives here */
    mn_source_refresh_fn refresh;
    mn_render_scene scene;
    mn_render_mesh *meshes;          /* the scene's, writable for refresh */
    mn_render_material *materials;
    mn_render_texture *textures;
    const mn_instance *instance;     /* a glTF source's instance */
    const uint32_t *part_of;         /* the rig part (glTF) or voxel part each mesh draws */
    void *kind_state;                /* what a product's kind keeps (its controller, head or splats) */
    mn_warning warnings[MN_SOURCE_MAX_WARNINGS];
    uint32_t warning_count;
};

/* A new, empty source with its arena (NULL on failure). */
mn_render_source *mni_source_new(const mn_allocator *allocator, mn_source_refresh_fn refresh);

/*
 * Decode `size` bytes into texture slot `out` (pixels in the source's arena).
 * On failure the slot is left without pixels (width 0) and a warning naming
 * `what` is recorded; returns false then.  MN_OUT_OF_MEMORY is the one error
 * returned (through *status) rather than warned about.
 */
bool mni_source_decode_texture(mn_render_source *source, const void *bytes, size_t size,
                               const char *what, mn_render_texture *out, mn_status *status);

/* Record a warning (kept when there is room; the message is copied into the arena). */
void mni_source_warn(mn_render_source *source, mn_status code, const char *path, const char *fmt,
                     ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif /* MN_RENDER_RENDER_H */
