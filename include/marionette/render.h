/*
 * marionette/render.h — a headless software rasteriser: posed triangle meshes
 * in, an RGBA8 image (and PNG files, and labelled contact sheets) out.
 *
 *     mn_render_source *src;   mn_render_source_gltf(instance, NULL, &src, &err);
 *     mn_renderer *r;          mn_renderer_create(&(mn_render_options){
 *                                  .width = 800, .height = 600,
 *                                  .max_triangles = mn_render_scene_triangle_count(
 *                                      mn_render_source_scene(src))}, &r, &err);
 *     float lo[3], hi[3];      mn_render_scene_bounds(mn_render_source_scene(src), lo, hi);
 *     mn_render_camera cam;    mn_render_camera_frame(lo, hi, &(mn_render_view){
 *                                  .yaw = MN_RENDER_DEFAULT_YAW, .pitch = MN_RENDER_DEFAULT_PITCH},
 *                                  800.0f / 600.0f, &cam);
 *     mn_rgba_image img;       mn_rgba_image_create(800, 600, NULL, &img, &err);
 *     mn_renderer_draw(r, mn_render_source_scene(src), &cam, &img, &err);
 *     mn_rgba_image_write_png(&img, "out.png", &err);
 *
 * THE SCENE
 *   A scene is a list of meshes (positions, optional normals, colours, two uv
 *   sets, optional indices, a model matrix) with materials and decoded
 *   textures.  Every source of posed geometry feeds it: the adapters below
 *   build one from a glTF model instance or an OBJ file, each product's
 *   header adds its own (a voxel rig controller, an expression head, a
 *   character's splats), and a caller may fill one by hand.  The renderer only reads
 *   it.
 *
 * WHAT A PIXEL SHOWS
 *   Triangles are projected, clipped against the near plane, culled when they
 *   face away unless their material is double-sided (a double-sided back face
 *   is lit with its normal flipped), depth-tested, and shaded with
 *   perspective-correct normal, colour and uv.  Colour = base-colour factor ×
 *   vertex colour × base-colour texture (bilinear, or nearest for a NEAREST mag filter;
 *   REPEAT, CLAMP_TO_EDGE and MIRRORED_REPEAT per axis; sRGB texels
 *   decoded to linear), lit by a fixed key light from the upper left in view
 *   space, a sky/ground ambient and a rim term on silhouettes; or, when the
 *   scene has lights (a glTF model's KHR_lights_punctual), by those lights
 *   (Lambert, no specular) over a sky/ground ambient half as bright; plus the
 *   emissive colour (× its own texture, read through its own uv set);
 *   written as sRGB.  OPAQUE ignores alpha; MASK discards
 *   below the cutoff; BLEND triangles are drawn after every opaque one,
 *   farthest first (sorted by mean depth), depth-tested but not written.
 *   Each output pixel is the mean of supersample × supersample samples.
 *
 * THREADS AND MEMORY
 *   By default a renderer draws on the calling thread and starts no thread.
 *   With options.threads above 1 it starts a worker pool of its own at
 *   creation (threads − 1 threads, marionette/pool.h), or it draws on a
 *   caller's pool (options.pool).  It allocates its sample buffers and
 *   triangle storage at creation; mn_renderer_draw allocates nothing and
 *   splits the image into bands shared out over the pool's threads (the
 *   results do not depend on the thread count).  A renderer is used by one
 *   thread at a time; scenes and sources are read-only while drawn.
 */
#ifndef MARIONETTE_RENDER_H
#define MARIONETTE_RENDER_H

#include "core.h"
#include "io.h"
#include "model.h"
#include "instance.h"
#include "obj.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- images ------------------------------------------------------------------ */

/* An RGBA8 image: width × height pixels, rows top to bottom, 4 bytes a pixel (straight alpha, sRGB). */
typedef struct mn_rgba_image {
    uint32_t width, height;
    uint8_t *pixels;
    mn_allocator allocator;      /* what pixels came from */
} mn_rgba_image;

/*
 * Allocate a zeroed (transparent black) image.  Errors: MN_INVALID_ARGUMENT
 * (NULL out, a zero side, a side above 32768), MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_rgba_image_create(uint32_t width, uint32_t height, const mn_allocator *allocator,
                                      mn_rgba_image *out, mn_error *err);

/* Free the pixels and zero the struct.  NULL, or a zeroed image, is allowed. */
MN_API void mn_rgba_image_free(mn_rgba_image *image);

/*
 * Decode a PNG or JPEG (or any format stb_image reads) into a new RGBA8
 * image.  stb_image's own decode buffer comes from malloc and is released
 * before this returns; the image comes from `allocator`.
 * Errors: MN_INVALID_ARGUMENT (NULL bytes or out), MN_INVALID_VALUE (not an
 * image stb_image can decode; the message gives its reason), MN_OVERFLOW,
 * MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_rgba_image_decode(const void *bytes, size_t size, const mn_allocator *allocator,
                                      mn_rgba_image *out, mn_error *err);

/* Read and decode an image file.  Errors as mn_rgba_image_decode, plus MN_IO naming the file. */
MN_API mn_status mn_rgba_image_read_file(const char *path, const mn_allocator *allocator,
                                         mn_rgba_image *out, mn_error *err);

/*
 * Write the image as a PNG: whole or not at all (marionette/io.h).  It goes
 * to an unnamed temporary file in path's folder (".NAME.XXXXXX" where the
 * file system has none), is fsynced, renamed over path, and the folder is
 * fsynced; on any error path keeps its old bytes and no temporary file is
 * left.  Errors: MN_INVALID_ARGUMENT (NULL or empty image or path), MN_IO
 * (the file cannot be written; the message names it and the system's
 * reason), MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_rgba_image_write_png(const mn_rgba_image *image, const char *path, mn_error *err);

/*
 * The same PNG as one more file of the output set `set`
 * (mn_output_begin): path changes only when the set is committed, with the
 * rest of the set, after every earlier file of it.  Errors as
 * mn_rgba_image_write_png, and MN_INVALID_ARGUMENT for a NULL set; after
 * an error the set is failed (commit returns the error).
 */
MN_API mn_status mn_rgba_image_write_png_to(mn_output *set, const mn_rgba_image *image, const char *path,
                                            mn_error *err);

/*
 * The image as a baseline JPEG of the given quality (1 to 100; 90 is a good
 * default), written as mn_rgba_image_write_png writes: whole or not at all.
 * A JPEG has no alpha: each pixel's RGB is written and its A dropped, so a
 * transparent background comes out as the colour its pixels hold (black for
 * the renderer's "none").  Errors as mn_rgba_image_write_png, and
 * MN_INVALID_ARGUMENT for a quality outside 1 to 100.
 */
MN_API mn_status mn_rgba_image_write_jpeg(const mn_rgba_image *image, const char *path, int quality,
                                          mn_error *err);

/* The same JPEG as one more file of the output set `set`; as mn_rgba_image_write_png_to. */
MN_API mn_status mn_rgba_image_write_jpeg_to(mn_output *set, const mn_rgba_image *image,
                                             const char *path, int quality, mn_error *err);

/* Fill with one colour (sRGB bytes, straight alpha). */
MN_API void mn_rgba_image_fill(mn_rgba_image *image, const uint8_t rgba[4]);

/* Copy src into dst with its top-left corner at (x, y), cut at dst's edges (no blending). */
MN_API void mn_rgba_image_blit(mn_rgba_image *dst, const mn_rgba_image *src, int32_t x, int32_t y);

/*
 * Draw text with the built-in 5×7 bitmap font (digits, letters, which are
 * drawn as capitals, and . , : ; - + _ / ( ) = # % ' " ! ?; anything else
 * is a blank), each font pixel a scale × scale square, cells 6 × 9 font
 * pixels.  Cut at the image's edges.  Returns the width drawn in pixels.
 */
MN_API uint32_t mn_rgba_image_text(mn_rgba_image *image, int32_t x, int32_t y, uint32_t scale,
                                   const uint8_t rgba[4], const char *text);

/* The width and height in pixels mn_rgba_image_text uses for `text` (one line). */
MN_API uint32_t mn_rgba_text_width(const char *text, uint32_t scale);
MN_API uint32_t mn_rgba_text_height(uint32_t scale);

/* ---- textures, materials, meshes, scenes -------------------------------------------- */

/* glTF sampler constants the renderer honours. */
#define MN_WRAP_REPEAT 10497u
#define MN_WRAP_CLAMP_TO_EDGE 33071u
#define MN_WRAP_MIRRORED_REPEAT 33648u
#define MN_FILTER_NEAREST 9728u

/* A decoded texture and how it is sampled. */
typedef struct mn_render_texture {
    uint32_t width, height;
    const uint8_t *rgba;         /* width × height × 4 bytes, sRGB colour, straight alpha */
    uint32_t wrap_s, wrap_t;     /* MN_WRAP_*; any other value samples as REPEAT */
    bool nearest;                /* true: nearest texel (a NEAREST mag filter), else bilinear */
} mn_render_texture;

typedef struct mn_render_material {
    float base_color[4];         /* linear RGBA factor */
    float emissive[3];           /* linear, added after lighting */
    uint32_t texture;            /* base-colour texture: index into scene textures, MN_NONE for none */
    uint32_t texcoord;           /* which uv set the texture reads: 0 or 1 */
    /* uv' = M · (u, v, 1): a 2×3 matrix, column-major (m[0] m[1] the first
       column): KHR_texture_transform's offset · rotation · scale, or a
       V flip for OBJ.  All zeros means the identity. */
    float uv_transform[6];
    mn_alpha_mode alpha_mode;
    float alpha_cutoff;          /* MASK: a fragment whose alpha is below it is discarded */
    bool double_sided;
    uint32_t emissive_texture;   /* multiplies emissive: index into scene textures, MN_NONE for none */
    uint32_t emissive_texcoord;  /* which uv set it reads: 0 or 1 */
    float emissive_uv_transform[6];  /* as uv_transform, for the emissive texture */
} mn_render_material;

/*
 * One mesh.  Streams are floats, `*_stride` floats from one vertex to the
 * next (0: tightly packed).  A mesh without normals is shaded flat (face
 * normals).  colors have color_components (3 or 4; 0 means 4) per vertex,
 * linear; NULL means white.  indices: index_count of them, three a triangle;
 * NULL draws vertex_count / 3 triangles in order.  An index at or beyond
 * vertex_count, or a triangle with a non-finite corner, is skipped.
 */
typedef struct mn_render_mesh {
    uint32_t vertex_count;
    const float *positions;      uint32_t position_stride;   /* required: xyz */
    const float *normals;        uint32_t normal_stride;     /* optional: xyz */
    const float *colors;         uint32_t color_stride;      /* optional */
    uint32_t color_components;
    const float *uv[2];          uint32_t uv_stride[2];      /* optional: TEXCOORD_0, TEXCOORD_1 */
    const uint32_t *indices;
    uint32_t index_count;
    const float *matrix;         /* model → world, 16 floats column-major; NULL: identity */
    uint32_t material;           /* index into scene materials; MN_NONE: white, opaque, one-sided */
    bool hidden;                 /* drawn nowhere and left out of the bounds (its triangles still
                                    count in mn_render_scene_triangle_count, so showing it again
                                    needs no more room) */
} mn_render_mesh;

/*
 * A punctual light in world space (KHR_lights_punctual's three kinds; the
 * glTF source fills them from the model's lights and their nodes).  A
 * point or spot light's contribution falls off as 1 / d², windowed by
 * clamp(1 − (d / range)⁴, 0, 1)² when range is above 0; a spot's by the
 * cone, clamp((cos θ − outer_cos) / (inner_cos − outer_cos), 0, 1)² where θ
 * is the angle from its direction (the extension's recommended falloffs).
 */
typedef struct mn_render_light {
    mn_light_type type;          /* MN_LIGHT_DIRECTIONAL, MN_LIGHT_POINT or MN_LIGHT_SPOT */
    float color[3];              /* linear RGB, already × intensity */
    float position[3];           /* point and spot */
    float direction[3];          /* directional and spot: the way the light travels (need not be unit) */
    float range;                 /* point and spot; 0: no window */
    float inner_cos, outer_cos;  /* spot: cosines of the cone angles, inner_cos > outer_cos */
} mn_render_light;

/* The most lights a draw uses: the first MN_RENDER_MAX_LIGHTS of a scene's. */
#define MN_RENDER_MAX_LIGHTS 16u

typedef struct mn_render_scene {
    const mn_render_mesh *meshes;         uint32_t mesh_count;
    const mn_render_material *materials;  uint32_t material_count;
    const mn_render_texture *textures;    uint32_t texture_count;
    /* None (0): the fixed key, ambient and rim light below.  Some: a dim sky/ground ambient
       and these lights instead (see WHAT A PIXEL SHOWS). */
    const mn_render_light *lights;        uint32_t light_count;
} mn_render_scene;

/* Triangles the scene draws (index_count / 3, or vertex_count / 3, summed). */
MN_API size_t mn_render_scene_triangle_count(const mn_render_scene *scene);

/*
 * World-space bounds of every vertex the scene's triangles use (each mesh's
 * matrix applied; hidden meshes left out), grown into lo/hi: start with lo = +inf, hi = -inf (or
 * mn_render_bounds_reset) and call it for each pose to get the bounds of a
 * whole clip.  Non-finite positions are left out.
 */
MN_API void mn_render_bounds_reset(float lo[3], float hi[3]);
MN_API void mn_render_scene_bounds(const mn_render_scene *scene, float lo[3], float hi[3]);

/* ---- cameras ------------------------------------------------------------------------ */

typedef struct mn_render_camera {
    float view[16];              /* world → view (right-handed, looking down −z, y up) */
    float projection[16];        /* view → clip (OpenGL conventions, z in [−w, w]) */
    bool orthographic;
} mn_render_camera;

typedef enum mn_render_view_kind {
    MN_VIEW_ORBIT = 0,           /* perspective, from yaw and pitch */
    MN_VIEW_FRONT,               /* orthographic from +z (the model's front in glTF) */
    MN_VIEW_SIDE,                /* orthographic from +x */
    MN_VIEW_TOP                  /* orthographic from +y, +z at the bottom of the image */
} mn_render_view_kind;

/* The command line's three-quarter view: 30 degrees round, 20 degrees above. */
#define MN_RENDER_DEFAULT_YAW 0.5235988f
#define MN_RENDER_DEFAULT_PITCH 0.3490659f

/* Where the camera looks from.  A zeroed struct is a perspective view from straight in front. */
typedef struct mn_render_view {
    mn_render_view_kind kind;
    float yaw;                   /* radians about +y; 0 looks from +z, pi/2 from +x (orbit only) */
    float pitch;                 /* radians above the horizon, within ±pi/2 (orbit only) */
    float distance;              /* from the bounds' centre; 0: framed so the bounds fill the image */
    float fov_y;                 /* vertical field of view in radians; 0: 40 degrees */
    float margin;                /* share of the image left free round the bounds; 0: 0.06 */
} mn_render_view;

/*
 * A camera that frames the box lo..hi (world space) in an image of `aspect`
 * (width / height): it looks at the box's centre from the view's direction,
 * and every corner of the box lands inside the image less the margin.
 * Frame a clip with the bounds of the whole clip (mn_render_scene_bounds over
 * its frames) so the camera stays put.  An empty or non-finite box frames a
 * unit box at the origin.  Errors: MN_INVALID_ARGUMENT (NULL out or view, a
 * non-finite or non-positive aspect, a non-finite angle, a negative distance,
 * fov_y outside (0, pi)).
 */
MN_API mn_status mn_render_camera_frame(const float lo[3], const float hi[3],
                                        const mn_render_view *view, float aspect,
                                        mn_render_camera *out, mn_error *err);

/* ---- the renderer ------------------------------------------------------------------- */

typedef struct mn_renderer mn_renderer;

/* A zeroed struct means the default given per field (width and height are required). */
typedef struct mn_render_options {
    uint32_t width, height;      /* output pixels, 1..8192 */
    uint32_t supersample;        /* samples per pixel along each axis, 1..4; 0: 2 (2×2) */
    uint32_t threads;            /* the caller's thread included, 0..64; 0 and 1: the calling
                                    thread alone (no thread started).  For one per CPU pass
                                    mn_cpu_count() (at most 64 here) */
    size_t max_triangles;        /* triangles a scene may have (mn_renderer_reserve grows it) */
    /* Background, sRGB 0..1 with straight alpha.  Zeros: transparent. */
    float background[4];
    mn_allocator allocator;      /* zero: malloc/free */
    mn_pool *pool;               /* NULL: the renderer's own pool of `threads`.  Not NULL: draw
                                    on this pool instead (threads must then be 0 or 1); it is
                                    borrowed, must outlive the renderer, and runs one batch at
                                    a time (marionette/pool.h) */
} mn_render_options;

/*
 * Make a renderer: sample and depth buffers, triangle storage for
 * max_triangles (twice that after near-plane clipping), and, for threads
 * above 1, a pool of threads − 1 worker threads.  Errors:
 * MN_INVALID_ARGUMENT (NULL options or out, a size, supersample or thread
 * count out of range, threads above 1 with a pool, a non-finite
 * background), MN_OVERFLOW, MN_OUT_OF_MEMORY (also when a thread cannot be
 * started).
 */
MN_API mn_status mn_renderer_create(const mn_render_options *options, mn_renderer **out,
                                    mn_error *err);

/* Stop the renderer's own threads (never a caller's pool) and free everything.  NULL is allowed. */
MN_API void mn_renderer_free(mn_renderer *renderer);

/*
 * Make room for scenes of up to `max_triangles` triangles (a set-up step: it
 * allocates when the room grows).  Errors: MN_OVERFLOW, MN_OUT_OF_MEMORY
 * (the old room is kept).
 */
MN_API mn_status mn_renderer_reserve(mn_renderer *renderer, size_t max_triangles,
                                     mn_error *err);

/* Change the background (sRGB 0..1, straight alpha) for the next draws. */
MN_API void mn_renderer_set_background(mn_renderer *renderer, const float rgba[4]);

/*
 * Draw the scene through the camera into `out`, whose size must be the
 * renderer's width × height.  Allocation-free.  Errors (out is left as it
 * was): MN_INVALID_ARGUMENT (NULL arguments, a size mismatch, a scene with
 * more triangles than the renderer was made for, a mesh without positions,
 * a light that is not finite or has a negative range, a caller's pool
 * already running another batch), MN_INDEX_RANGE (a mesh's
 * material or a material's texture out of range; the message names the
 * mesh or material).
 */
MN_API mn_status mn_renderer_draw(mn_renderer *renderer, const mn_render_scene *scene,
                                  const mn_render_camera *camera, mn_rgba_image *out,
                                  mn_error *err);

/* ---- sources of posed geometry ---------------------------------------------------------- */

/*
 * A source holds a scene built from one kind of posed model: its materials,
 * its decoded textures and the streams that do not move (uvs, colours,
 * indices), and points its meshes at the model's posed vertices.  Pose the
 * model the usual way (mn_instance_update, mn_voxel_controller_update, ...),
 * then call mn_render_source_refresh before drawing: it re-reads the posed
 * vertex pointers and matrices without allocating.
 *
 * A texture that cannot be decoded (or an image whose file could not be
 * resolved) does not stop the source: its materials draw untextured and a
 * warning says which image and why.
 */
typedef struct mn_render_source mn_render_source;

/*
 * From a glTF model instance: one mesh per part of its rig (mn_rig_part),
 * and one per instance of a part whose node instances its mesh
 * (EXT_mesh_gpu_instancing: the part's matrix × the instance's T·R·S), the
 * model's materials (base colour, texture with sampler and
 * KHR_texture_transform, texCoord set, emissive, alpha mode, double-sided)
 * and COLOR_0; and the scene's lights: one per node of the default scene
 * with a KHR_lights_punctual light, placed by the instance's world of that
 * node (distances and ranges in the model's units, so the unit-fit and size
 * do not change how bright a light is; the first MN_RENDER_MAX_LIGHTS, a
 * warning beyond).  A node hidden by KHR_node_visibility, or under one,
 * draws no triangles and lights nothing; the refresh reads node->hidden
 * again.  What the instance's clips animate through KHR_animation_pointer
 * (mixer.h: material factors and texture transforms, light values,
 * visibility) is what each refresh draws.  The instance is borrowed and
 * must outlive the source.
 * Triangle parts only (points and lines are left out).
 * Errors: MN_INVALID_ARGUMENT (NULL instance or out), MN_OUT_OF_MEMORY, MN_OVERFLOW.
 */
MN_API mn_status mn_render_source_gltf(const mn_instance *instance, const mn_allocator *allocator,
                                       mn_render_source **out, mn_error *err);

/*
 * From an OBJ: one mesh per group, its material's Kd as base colour and d as
 * alpha (BLEND below 1), map_Kd read from `base_dir` (the OBJ's folder; NULL:
 * the current one) and kept inside `root` (NULL: base_dir) as every name a
 * model gives is (marionette/io.h: a map that resolves outside, or is not a
 * regular file, is a warning and drawn untextured); each map file is read
 * and decoded once however many materials name it, and sampled with V
 * flipped (OBJ's v runs upwards).  The obj is borrowed.  Errors:
 * MN_INVALID_ARGUMENT, MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_render_source_obj(const mn_obj *obj, const char *base_dir, const char *root,
                                      const mn_allocator *allocator, mn_render_source **out,
                                      mn_error *err);

/* Re-read the posed vertices and matrices (a head source also recomputes its normals; a
   splat source rebuilds its discs).  Allocation-free. */
MN_API void mn_render_source_refresh(mn_render_source *source);

/* The scene, owned by the source (valid until it is freed). */
MN_API const mn_render_scene *mn_render_source_scene(const mn_render_source *source);

/* Warnings from building the source (undecodable textures); owned by the source. */
MN_API uint32_t mn_render_source_warning_count(const mn_render_source *source);
MN_API const mn_warning *mn_render_source_warning(const mn_render_source *source, uint32_t index);

/* Free a source.  NULL is allowed. */
MN_API void mn_render_source_free(mn_render_source *source);

/* ---- contact sheets ---------------------------------------------------------------------- */

/*
 * A grid of equal cells, each a rendered image with a label under it.  The
 * grid is as square as the count allows (columns = ceil(sqrt(count))).
 */
typedef struct mn_sheet {
    uint32_t count, columns, rows;
    uint32_t cell_width, cell_height;   /* the images' size */
    uint32_t label_height;              /* pixels under each image for its label */
    uint8_t ink[4];                     /* label colour: light on a dark background, else dark */
    mn_rgba_image image;                /* the whole sheet */
} mn_sheet;

/*
 * An empty sheet for `count` cells of cell_width × cell_height filled with
 * `background` (sRGB bytes).  Errors: MN_INVALID_ARGUMENT (NULL out, zero
 * count or cell side), MN_OVERFLOW (a sheet over 32768 pixels a side),
 * MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_sheet_create(uint32_t count, uint32_t cell_width, uint32_t cell_height,
                                 const uint8_t background[4], const mn_allocator *allocator,
                                 mn_sheet *out, mn_error *err);

/* Put a cell (its size must be the sheet's cell size; otherwise nothing happens) and its label. */
MN_API void mn_sheet_put(mn_sheet *sheet, uint32_t index, const mn_rgba_image *cell,
                         const char *label);

/* Free the sheet's image.  NULL is allowed. */
MN_API void mn_sheet_free(mn_sheet *sheet);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_RENDER_H */
