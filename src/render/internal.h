/*
 * Private to src/render: the worker threads the renderer shares bands over,
 * and the source object the adapters (source_gltf.c, source_obj.c,
 * voxel/render_source.c) fill.
 */
#ifndef MN_RENDER_INTERNAL_H
#define MN_RENDER_INTERNAL_H

#include <marionette/render.h>

#include "core/internal.h"

/* ---- workers ---------------------------------------------------------------- */

typedef struct mn_workers mn_workers;

/* The job every thread runs once per batch: `worker` is 0 for the caller, 1.. for the threads. */
typedef void (*mn_worker_job)(void *context, uint32_t worker);

/* threads counts the caller's; threads − 1 are started.  NULL on failure (memory or threads). */
mn_workers *mn_workers_create(uint32_t threads, const mn_allocator *allocator);
void mn_workers_free(mn_workers *workers);
uint32_t mn_workers_count(const mn_workers *workers);
/* Run job(context, w) on every thread, the caller's included; returns when all are done. */
void mn_workers_run(mn_workers *workers, mn_worker_job job, void *context);

/* ---- sources ------------------------------------------------------------------ */

#define MN_SOURCE_MAX_WARNINGS 16u

typedef enum mn_source_kind {
    MN_SOURCE_GLTF,
    MN_SOURCE_OBJ,
    MN_SOURCE_VOXEL,
    MN_SOURCE_HEAD,
    MN_SOURCE_SPLAT
} mn_source_kind;

struct mn_render_source {
    mn_arena arena;                  /* everything below lives here */
    mn_source_kind kind;
    mn_render_scene scene;
    mn_render_mesh *meshes;          /* the scene's, writable for refresh */
    mn_render_material *materials;
    mn_render_texture *textures;
    const mn_instance *instance;     /* MN_SOURCE_GLTF */
    const uint32_t *part_of;         /* the rig part (glTF) or voxel part each mesh draws */
    mn_voxel_controller *controller; /* MN_SOURCE_VOXEL */
    struct mn_head_source *head;     /* MN_SOURCE_HEAD (head/render_source.c) */
    struct mn_splat_source *splat;   /* MN_SOURCE_SPLAT (character/render_source.c) */
    mn_warning warnings[MN_SOURCE_MAX_WARNINGS];
    uint32_t warning_count;
};

/* A new, empty source with its arena (NULL on failure). */
mn_render_source *mn_source_new(const mn_allocator *allocator, mn_source_kind kind);

/*
 * Decode `size` bytes into texture slot `out` (pixels in the source's arena).
 * On failure the slot is left without pixels (width 0) and a warning naming
 * `what` is recorded; returns false then.  MN_OUT_OF_MEMORY is the one error
 * returned (through *status) rather than warned about.
 */
bool mn_source_decode_texture(mn_render_source *source, const void *bytes, size_t size,
                              const char *what, mn_render_texture *out, mn_status *status);

/* Record a warning (kept when there is room; the message is copied into the arena). */
void mn_source_warn(mn_render_source *source, mn_status code, const char *path, const char *fmt,
                    ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif /* MN_RENDER_INTERNAL_H */
