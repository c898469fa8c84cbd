/*
 * Private to the rasteriser (renderer.c, setup.c, shade.c): set-up triangles,
 * the renderer's state, and the shading and colour helpers.
 */
#ifndef MN_RENDER_RASTER_INTERNAL_H
#define MN_RENDER_RASTER_INTERNAL_H

#include "render/render.h"

/* Interpolated per vertex: view-space normal (3), linear colour (4), base-colour uv (2),
   emissive uv (2), view-space position (3, which the scene's lights need). */
#define MN_ATTRS 14
#define MN_ATTR_POSITION 11

/* A scene light as a draw uses it: in view space, the spot's cone as scale and offset. */
typedef struct mn_vlight {
    mn_light_type type;
    float color[3];
    float position[3];
    float to_light[3];           /* directional: unit, towards the light */
    float spot_dir[3];           /* spot: unit, the way it shines */
    float inv_range;             /* 0: no range window */
    float cone_scale, cone_offset;   /* spot: clamp(cos θ · scale + offset, 0, 1)² */
} mn_vlight;

/* A triangle after projection, clipping and culling, wound so its screen area is positive. */
typedef struct mn_rtri {
    float x[3], y[3];            /* sample-grid coordinates, y down */
    float z[3];                  /* NDC depth */
    float iw[3];                 /* 1 / clip w, for perspective-correct weights */
    float attr[3][MN_ATTRS];
    uint32_t material;           /* scene material, MN_NONE for the default */
    bool back;                   /* seen from behind (a double-sided back face) */
} mn_rtri;

struct mn_renderer {
    mn_allocator allocator;
    uint32_t width, height, ss;  /* output size, samples per axis */
    uint32_t sw, sh;             /* the sample grid */
    uint8_t background[4];       /* sRGB bytes */
    uint8_t *color;              /* sw × sh × 4: sRGB, straight alpha */
    float *depth;                /* sw × sh */
    size_t max_triangles;        /* what a scene may have */
    size_t capacity;             /* set-up triangles: twice max_triangles (near clipping) */
    mn_rtri *tris;
    int32_t *spans;              /* 2 a triangle: first and last sample row */
    uint32_t *order;             /* opaque triangles in scene order, then BLEND ones far to near */
    float *keys;                 /* BLEND sort keys (mean NDC depth), by triangle */
    uint32_t tri_count, opaque_count;
    uint32_t band_rows, band_count;   /* output rows a band, bands */
    const mn_render_scene *scene;     /* during a draw */
    mn_vlight lights[MN_RENDER_MAX_LIGHTS];   /* the scene's first lights, set up by the draw */
    uint32_t light_count;
    mn_rgba_image *out;
    mn_pool *pool;               /* the bands are shared out over it (core/pool.c) */
    bool owns_pool;              /* made from options.threads, freed with the renderer */
    float srgb_to_linear[256];
    uint8_t linear_to_srgb[4096];
};

/* Fill the colour tables. */
void mni_raster_tables(mn_renderer *r);

/* linear [0,1] → sRGB byte through the table. */
static inline uint8_t mni_raster_encode(const mn_renderer *r, float v)
{
    if (!(v > 0.0f))
        return 0;
    if (v >= 1.0f)
        return 255;
    return r->linear_to_srgb[(int)(v * 4095.0f + 0.5f)];
}

/*
 * Project, clip, cull and classify every triangle of the scene into r->tris,
 * r->spans, r->order (opaque first, then BLEND sorted far to near).  The scene
 * was checked by the caller (indices into materials and textures in range).
 */
void mni_raster_setup(mn_renderer *r, const mn_render_scene *scene, const mn_render_camera *camera);

/* The scene's lights (the first MN_RENDER_MAX_LIGHTS) into r->lights, in the camera's view space. */
void mni_raster_lights(mn_renderer *r, const mn_render_scene *scene, const mn_render_camera *camera);

/*
 * Shade one fragment: the material's colour × vertex colour × texture, lit.
 * attr holds the interpolated attributes.  Writes linear RGB and alpha into
 * out[4]; returns false when MASK discards it.
 */
bool mni_raster_shade(const mn_renderer *r, const mn_render_scene *scene, const mn_rtri *t,
                      const float attr[MN_ATTRS], float out[4]);

#endif /* MN_RENDER_RASTER_INTERNAL_H */
