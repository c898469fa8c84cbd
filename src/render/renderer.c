/*
 * render/renderer: the renderer object and the draw.  A draw sets every
 * triangle up on the calling thread (setup.c), then the threads share out
 * horizontal bands of the image: each band is cleared, rasterised (every
 * triangle whose rows reach it, opaque first, then BLEND far to near) and
 * averaged down to output pixels by the thread that took it.  A pixel's
 * result depends only on the triangle order, so any number of threads gives
 * the same image.
 */
#include "render/raster_internal.h"

#include <math.h>
#include <string.h>

#define MAX_SIDE 8192u
#define MAX_THREADS 64u
#define BAND_ROWS_MAX 32u

/* ---- scenes ------------------------------------------------------------------ */

size_t mn_render_scene_triangle_count(const mn_render_scene *scene)
{
    if (!scene || !scene->meshes)
        return 0;
    size_t n = 0;
    for (uint32_t m = 0; m < scene->mesh_count; m++) {
        const mn_render_mesh *mesh = &scene->meshes[m];
        n += mesh->indices ? mesh->index_count / 3 : mesh->vertex_count / 3;
    }
    return n;
}

void mn_render_bounds_reset(float lo[3], float hi[3])
{
    for (int i = 0; i < 3; i++) {
        lo[i] = INFINITY;
        hi[i] = -INFINITY;
    }
}

static void grow_bounds(const mn_render_mesh *mesh, uint32_t v, float lo[3], float hi[3])
{
    const float *p = mesh->positions + (size_t)v * (mesh->position_stride ? mesh->position_stride : 3);
    float w[3];
    if (mesh->matrix) {
        const float *m = mesh->matrix;
        for (int r = 0; r < 3; r++)
            w[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    } else {
        memcpy(w, p, sizeof w);
    }
    if (!isfinite(w[0]) || !isfinite(w[1]) || !isfinite(w[2]))
        return;
    for (int i = 0; i < 3; i++) {
        lo[i] = fminf(lo[i], w[i]);
        hi[i] = fmaxf(hi[i], w[i]);
    }
}

void mn_render_scene_bounds(const mn_render_scene *scene, float lo[3], float hi[3])
{
    if (!scene || !scene->meshes || !lo || !hi)
        return;
    for (uint32_t m = 0; m < scene->mesh_count; m++) {
        const mn_render_mesh *mesh = &scene->meshes[m];
        if (!mesh->positions || mesh->hidden)
            continue;
        if (mesh->indices) {
            for (uint32_t i = 0; i < mesh->index_count / 3 * 3; i++)
                if (mesh->indices[i] < mesh->vertex_count)
                    grow_bounds(mesh, mesh->indices[i], lo, hi);
        } else {
            for (uint32_t v = 0; v < mesh->vertex_count / 3 * 3; v++)
                grow_bounds(mesh, v, lo, hi);
        }
    }
}

/* ---- the renderer --------------------------------------------------------------- */

static void free_triangles(mn_renderer *r)
{
    if (!r->capacity)
        return;
    mni_free(&r->allocator, r->tris, r->capacity * sizeof *r->tris);
    mni_free(&r->allocator, r->spans, r->capacity * 2 * sizeof *r->spans);
    mni_free(&r->allocator, r->order, r->capacity * sizeof *r->order);
    mni_free(&r->allocator, r->keys, r->capacity * sizeof *r->keys);
    r->tris = NULL;
    r->spans = NULL;
    r->order = NULL;
    r->keys = NULL;
    r->capacity = 0;
    r->max_triangles = 0;
}

mn_status mn_renderer_reserve(mn_renderer *r, size_t max_triangles, mn_error *err)
{
    if (!r)
        return mni_fail(err, MN_INVALID_ARGUMENT, "renderer: NULL");
    if (max_triangles <= r->max_triangles)
        return MN_OK;
    size_t cap, bytes;
    /* Order indices are uint32: keep the doubled capacity below 2^32. */
    if (max_triangles > (size_t)UINT32_MAX / 2 || !mni_checked_mul(max_triangles, 2, &cap) ||
        !mni_checked_mul(cap, sizeof(mn_rtri), &bytes))
        return mni_fail(err, MN_OVERFLOW, "renderer: %zu triangles is too many",
                        max_triangles);
    mn_rtri *tris = mni_alloc(&r->allocator, bytes);
    int32_t *spans = mni_alloc(&r->allocator, cap * 2 * sizeof *spans);
    uint32_t *order = mni_alloc(&r->allocator, cap * sizeof *order);
    float *keys = mni_alloc(&r->allocator, cap * sizeof *keys);
    if (!tris || !spans || !order || !keys) {
        if (tris)
            mni_free(&r->allocator, tris, bytes);
        if (spans)
            mni_free(&r->allocator, spans, cap * 2 * sizeof *spans);
        if (order)
            mni_free(&r->allocator, order, cap * sizeof *order);
        if (keys)
            mni_free(&r->allocator, keys, cap * sizeof *keys);
        return mni_oom(err, "renderer: %zu triangles", max_triangles);
    }
    free_triangles(r);
    r->tris = tris;
    r->spans = spans;
    r->order = order;
    r->keys = keys;
    r->capacity = cap;
    r->max_triangles = max_triangles;
    return MN_OK;
}

static uint8_t to_byte(float v)
{
    return (uint8_t)(v <= 0.0f ? 0.0f : v >= 1.0f ? 255.0f : v * 255.0f + 0.5f);
}

void mn_renderer_set_background(mn_renderer *r, const float rgba[4])
{
    if (!r || !rgba)
        return;
    for (int i = 0; i < 4; i++)
        r->background[i] = to_byte(isfinite(rgba[i]) ? rgba[i] : 0.0f);
}

mn_status mn_renderer_create(const mn_render_options *o, mn_renderer **out, mn_error *err)
{
    if (out)
        *out = NULL;
    if (!o || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "renderer: NULL options or out");
    uint32_t ss = o->supersample ? o->supersample : 2;
    if (o->width == 0 || o->height == 0 || o->width > MAX_SIDE || o->height > MAX_SIDE)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "renderer: size %ux%u is not from 1x1 to %ux%u", o->width, o->height,
                        MAX_SIDE, MAX_SIDE);
    if (ss > 4)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "renderer: supersample %u is not from 1 to 4", ss);
    if (o->threads > MAX_THREADS)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "renderer: %u threads (at most %u)", o->threads, MAX_THREADS);
    if (o->pool && o->threads > 1)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "renderer: %u threads and a pool (give one or the other)",
                        o->threads);
    for (int i = 0; i < 4; i++)
        if (!isfinite(o->background[i]))
            return mni_fail(err, MN_INVALID_ARGUMENT,
                            "renderer: background is not finite");
    mn_allocator hooks = o->allocator;
    mn_renderer *r = mni_alloc(&hooks, sizeof *r);
    if (!r)
        return mni_oom(err, "renderer");
    memset(r, 0, sizeof *r);
    r->allocator = hooks;
    r->width = o->width;
    r->height = o->height;
    r->ss = ss;
    r->sw = o->width * ss;
    r->sh = o->height * ss;
    mn_renderer_set_background(r, o->background);
    mni_raster_tables(r);
    size_t samples = (size_t)r->sw * r->sh;
    r->color = mni_alloc(&hooks, samples * 4);
    r->depth = mni_alloc(&hooks, samples * sizeof *r->depth);
    mn_status st = MN_OK;
    if (!r->color || !r->depth)
        st = mni_oom(err, "renderer: %ux%u at %ux%u samples", o->width, o->height,
                     ss, ss);
    else if (o->pool)
        r->pool = o->pool;
    else if (o->threads > 1 && (st = mn_pool_create(o->threads, &hooks, &r->pool, err)) == MN_OK)
        r->owns_pool = true;
    if (st == MN_OK)
        st = mn_renderer_reserve(r, o->max_triangles ? o->max_triangles : 1, err);
    if (st != MN_OK) {
        mn_renderer_free(r);
        return st;
    }
    /* Enough bands that threads finishing early find more; not so many that each
       band's pass over the triangle rows dominates. */
    uint32_t rows = r->height / (mn_pool_thread_count(r->pool) * 4);
    r->band_rows = rows < 1 ? 1 : rows > BAND_ROWS_MAX ? BAND_ROWS_MAX : rows;
    r->band_count = (r->height + r->band_rows - 1) / r->band_rows;
    *out = r;
    return MN_OK;
}

void mn_renderer_free(mn_renderer *r)
{
    if (!r)
        return;
    if (r->owns_pool)
        mn_pool_free(r->pool);
    size_t samples = (size_t)r->sw * r->sh;
    if (r->color)
        mni_free(&r->allocator, r->color, samples * 4);
    if (r->depth)
        mni_free(&r->allocator, r->depth, samples * sizeof *r->depth);
    free_triangles(r);
    mn_allocator hooks = r->allocator;
    mni_free(&hooks, r, sizeof *r);
}

/* ---- rasterising a band ---------------------------------------------------------- */

/* True when an edge from (ax, ay) to (bx, by) is a top or left edge (positive-area winding, y down). */
static bool top_left(float ax, float ay, float bx, float by)
{
    float dx = bx - ax, dy = by - ay;
    return (dy == 0.0f && dx > 0.0f) || dy < 0.0f;
}

static void write_sample(mn_renderer *r, size_t s, const float c[4], bool blend)
{
    uint8_t *dst = r->color + 4 * s;
    if (!blend) {
        dst[0] = mni_raster_encode(r, c[0]);
        dst[1] = mni_raster_encode(r, c[1]);
        dst[2] = mni_raster_encode(r, c[2]);
        dst[3] = 255;
        return;
    }
    float a = c[3] < 0.0f ? 0.0f : c[3] > 1.0f ? 1.0f : c[3];
    float da = (float)dst[3] * (1.0f / 255.0f);
    float oa = a + da * (1.0f - a);
    if (!(oa > 0.0f))
        return;
    for (int i = 0; i < 3; i++) {
        float d = r->srgb_to_linear[dst[i]];
        dst[i] = mni_raster_encode(r, (c[i] * a + d * da * (1.0f - a)) / oa);
    }
    dst[3] = to_byte(oa);
}

/*
 * One edge of a triangle as a function of the sample position.  It is always
 * evaluated from the same end (the one first in (y, x) order), then its sign
 * is set for this triangle: a neighbour sharing the edge gets exactly the
 * opposite value, so with the top-left rule every sample on a shared edge
 * belongs to exactly one of the two (no gaps, no double blending).
 */
typedef struct edge {
    float ox, oy, dx, dy;        /* canonical origin and direction */
    float sign;                  /* +1 or −1: positive inside this triangle */
    bool top_left;               /* samples exactly on it are inside */
} edge;

static edge make_edge(float ax, float ay, float bx, float by)
{
    edge e;
    bool swap = by < ay || (by == ay && bx < ax);
    e.ox = swap ? bx : ax;
    e.oy = swap ? by : ay;
    e.dx = swap ? ax - bx : bx - ax;
    e.dy = swap ? ay - by : by - ay;
    e.sign = swap ? -1.0f : 1.0f;
    e.top_left = top_left(ax, ay, bx, by);
    return e;
}

static void raster_triangle(mn_renderer *r, const mn_rtri *t, int32_t y0, int32_t y1)
{
    float xmin = fminf(t->x[0], fminf(t->x[1], t->x[2])), xmax = fmaxf(t->x[0], fmaxf(t->x[1], t->x[2]));
    float lo = floorf(xmin - 0.5f), hi = ceilf(xmax - 0.5f);
    int32_t x0 = lo < 0.0f ? 0 : (int32_t)lo;
    int32_t x1 = hi >= (float)r->sw ? (int32_t)r->sw - 1 : (int32_t)hi;
    /* Edge k is opposite corner k, from corner k+1 to k+2: positive inside (the area is). */
    edge E[3];
    for (int k = 0; k < 3; k++) {
        int a = (k + 1) % 3, b = (k + 2) % 3;
        E[k] = make_edge(t->x[a], t->y[a], t->x[b], t->y[b]);
    }
    float area = (t->x[2] - t->x[1]) * (t->y[0] - t->y[1]) - (t->y[2] - t->y[1]) * (t->x[0] - t->x[1]);
    if (!(area > 0.0f))
        return;
    float inv_area = 1.0f / area;
    const mn_render_scene *scene = r->scene;
    bool blend = t->material != MN_NONE && scene->materials[t->material].alpha_mode == MN_ALPHA_BLEND;
    for (int32_t y = y0; y <= y1; y++) {
        float py = (float)y + 0.5f;
        size_t row = (size_t)y * r->sw;
        /* e_k(px) = sign · (row_k − dy · (px − ox)); narrow the row to where every edge can be
           non-negative (with a sample of slack each side); the exact test decides each sample. */
        float row_k[3], left = (float)x0, right = (float)x1;
        for (int k = 0; k < 3; k++) {
            row_k[k] = E[k].dx * (py - E[k].oy);
            float slope = -E[k].dy * E[k].sign;            /* d e_k / d px */
            float at0 = E[k].sign * (row_k[k] + E[k].dy * E[k].ox);   /* e_k at px = 0 */
            if (slope > 0.0f)
                left = fmaxf(left, -at0 / slope - 1.5f);
            else if (slope < 0.0f)
                right = fminf(right, -at0 / slope + 0.5f);
            else if (at0 < 0.0f)
                right = left - 1.0f;
        }
        if (!(left <= right))
            continue;
        int32_t xa = (int32_t)left, xb = (int32_t)right;
        for (int32_t x = xa; x <= xb; x++) {
            float px = (float)x + 0.5f;
            float e[3];
            bool inside = true;
            for (int k = 0; k < 3 && inside; k++) {
                e[k] = E[k].sign * (row_k[k] - E[k].dy * (px - E[k].ox));
                inside = e[k] > 0.0f || (e[k] == 0.0f && E[k].top_left);
            }
            if (!inside)
                continue;
            float b0 = e[0] * inv_area, b1 = e[1] * inv_area, b2 = e[2] * inv_area;
            float z = b0 * t->z[0] + b1 * t->z[1] + b2 * t->z[2];
            size_t s = row + (size_t)x;
            if (!(z < r->depth[s]) || z < -1.0f)
                continue;
            float p0 = b0 * t->iw[0], p1 = b1 * t->iw[1], p2 = b2 * t->iw[2];
            float norm = 1.0f / (p0 + p1 + p2);
            p0 *= norm;
            p1 *= norm;
            p2 *= norm;
            float attr[MN_ATTRS];
            for (int i = 0; i < MN_ATTRS; i++)
                attr[i] = p0 * t->attr[0][i] + p1 * t->attr[1][i] + p2 * t->attr[2][i];
            float c[4];
            if (!mni_raster_shade(r, scene, t, attr, c))
                continue;
            write_sample(r, s, c, blend);
            if (!blend)
                r->depth[s] = z;
        }
    }
}

/* Average ss × ss samples into each output pixel of rows [oy0, oy1), in linear light. */
static void resolve(mn_renderer *r, uint32_t oy0, uint32_t oy1)
{
    uint32_t ss = r->ss;
    float inv = 1.0f / (float)(ss * ss);
    for (uint32_t oy = oy0; oy < oy1; oy++) {
        uint8_t *dst = r->out->pixels + 4 * (size_t)oy * r->width;
        for (uint32_t ox = 0; ox < r->width; ox++, dst += 4) {
            float sum[3] = {0, 0, 0}, alpha = 0.0f;
            for (uint32_t sy = 0; sy < ss; sy++) {
                const uint8_t *src = r->color + 4 * ((size_t)(oy * ss + sy) * r->sw + ox * ss);
                for (uint32_t sx = 0; sx < ss; sx++, src += 4) {
                    float a = (float)src[3] * (1.0f / 255.0f);
                    sum[0] += r->srgb_to_linear[src[0]] * a;
                    sum[1] += r->srgb_to_linear[src[1]] * a;
                    sum[2] += r->srgb_to_linear[src[2]] * a;
                    alpha += a;
                }
            }
            if (alpha > 0.0f) {
                float ia = 1.0f / alpha;
                dst[0] = mni_raster_encode(r, sum[0] * ia);
                dst[1] = mni_raster_encode(r, sum[1] * ia);
                dst[2] = mni_raster_encode(r, sum[2] * ia);
            } else {
                dst[0] = dst[1] = dst[2] = 0;
            }
            dst[3] = to_byte(alpha * inv);
        }
    }
}

static void draw_band(mn_renderer *r, uint32_t band)
{
    uint32_t oy0 = band * r->band_rows;
    uint32_t oy1 = oy0 + r->band_rows < r->height ? oy0 + r->band_rows : r->height;
    int32_t y0 = (int32_t)(oy0 * r->ss), y1 = (int32_t)(oy1 * r->ss) - 1;
    size_t first = (size_t)y0 * r->sw, count = (size_t)(y1 - y0 + 1) * r->sw;
    /* One 32-bit store a sample (the buffer is allocated memory: its bytes are read back
       through uint8_t, which may alias anything). */
    uint32_t bg;
    memcpy(&bg, r->background, 4);
    uint32_t *color = (uint32_t *)(void *)r->color + first;
    float *depth = r->depth + first;
    for (size_t i = 0; i < count; i++) {
        color[i] = bg;
        depth[i] = 1.0f;
    }
    for (uint32_t k = 0; k < r->tri_count; k++) {
        uint32_t t = r->order[k];
        int32_t lo = r->spans[2 * t], hi = r->spans[2 * t + 1];
        if (hi < y0 || lo > y1)
            continue;
        raster_triangle(r, &r->tris[t], lo > y0 ? lo : y0, hi < y1 ? hi : y1);
    }
    resolve(r, oy0, oy1);
}

static void draw_bands(void *context, size_t first, size_t end, uint32_t worker)
{
    (void)worker;
    for (size_t band = first; band < end; band++)
        draw_band(context, (uint32_t)band);
}

/* Check what setup relies on: materials and textures in range, positions present. */
static mn_status check_scene(const mn_render_scene *scene, mn_error *err)
{
    if (scene->mesh_count && !scene->meshes)
        return mni_fail(err, MN_INVALID_ARGUMENT, "scene: NULL meshes");
    for (uint32_t m = 0; m < scene->mesh_count; m++) {
        const mn_render_mesh *mesh = &scene->meshes[m];
        if (!mesh->positions && (mesh->vertex_count || mesh->index_count))
            return mni_fail(err, MN_INVALID_ARGUMENT, "meshes[%u]: no positions", m);
        if (mesh->index_count && !mesh->indices)
            return mni_fail(err, MN_INVALID_ARGUMENT,
                            "meshes[%u]: %u indices but NULL", m, mesh->index_count);
        if (mesh->material != MN_NONE && mesh->material >= scene->material_count)
            return mni_fail(err, MN_INDEX_RANGE,
                            "meshes[%u]: material %u of %u", m, mesh->material,
                            scene->material_count);
    }
    if (scene->light_count && !scene->lights)
        return mni_fail(err, MN_INVALID_ARGUMENT, "scene: %u lights but NULL", scene->light_count);
    for (uint32_t i = 0; i < scene->light_count && i < MN_RENDER_MAX_LIGHTS; i++) {
        const mn_render_light *l = &scene->lights[i];
        float sum = l->range + l->inner_cos + l->outer_cos;
        for (int k = 0; k < 3; k++)
            sum += l->color[k] + l->position[k] + l->direction[k];
        if ((unsigned)l->type > MN_LIGHT_SPOT || !isfinite(sum) || l->range < 0.0f)
            return mni_fail(err, MN_INVALID_ARGUMENT,
                            "lights[%u]: a type that is not a light's, a non-finite value or a negative range", i);
    }
    for (uint32_t i = 0; i < scene->material_count; i++)
        for (int k = 0; k < 2; k++) {
            uint32_t tex = k ? scene->materials[i].emissive_texture : scene->materials[i].texture;
            const char *slot = k ? "emissive_texture" : "texture";
            if (tex != MN_NONE && tex >= scene->texture_count)
                return mni_fail(err, MN_INDEX_RANGE, "materials[%u]: %s %u of %u",
                                i, slot, tex, scene->texture_count);
            if (tex != MN_NONE && scene->textures[tex].width && !scene->textures[tex].rgba)
                return mni_fail(err, MN_INVALID_ARGUMENT,
                                "textures[%u]: NULL pixels", tex);
        }
    return MN_OK;
}

mn_status mn_renderer_draw(mn_renderer *r, const mn_render_scene *scene,
                           const mn_render_camera *camera, mn_rgba_image *out, mn_error *err)
{
    if (!r || !scene || !camera || !out || !out->pixels)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "render: NULL renderer, scene, camera or image");
    if (out->width != r->width || out->height != r->height)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "render: image is %ux%u, the renderer draws %ux%u", out->width,
                        out->height, r->width, r->height);
    size_t tris = mn_render_scene_triangle_count(scene);
    if (tris > r->max_triangles)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "render: the scene has %zu triangles, the renderer room for %zu "
                        "(mn_renderer_reserve)",
                        tris, r->max_triangles);
    mn_status st = check_scene(scene, err);
    if (st != MN_OK)
        return st;
    mni_raster_setup(r, scene, camera);
    mni_raster_lights(r, scene, camera);
    r->scene = scene;
    r->out = out;
    st = mni_pool_for(r->pool, r->band_count, 1, draw_bands, r);
    r->scene = NULL;
    r->out = NULL;
    if (st != MN_OK)
        return mni_fail(err, st,
                        "render: the pool is running another batch (one at a time)");
    return MN_OK;
}
