/*
 * character/render_source: a scene from Gaussian splats, as flat camera-facing
 * hexagons.  The rasteriser draws opaque triangles, so a splat becomes a
 * small disc of its DC colour: enough to see a pose, without sorting or
 * blending.  What does not move (which splats are drawn, their radii,
 * colours and triangles) is made once; a refresh only places the six
 * corners of each disc round the caller's posed centres, along the camera's
 * right and up axes.
 */
#include "render/render.h"

#include <marionette/character/splat.h>

#include <math.h>
#include <string.h>

static void splat_refresh(mn_render_source *source);

enum { DISC_CORNERS = 6, DISC_INDICES = 12 };

struct mn_splat_source {
    const float *posed;          /* cloud count × 3, the caller's */
    const uint32_t *drawn;       /* the splats drawn (opaque enough), in cloud order */
    const float *radius;         /* per drawn splat */
    float *corners;              /* drawn × 6 × 3, rewritten by every refresh */
    uint32_t drawn_count;
    float right[3], up[3];       /* the discs' plane, world space */
};

/* The hexagon's corners on the unit circle: cos and sin of 0, 60, ..., 300 degrees. */
static const float corner_cos[DISC_CORNERS] = {1.0f, 0.5f, -0.5f, -1.0f, -0.5f, 0.5f};
static const float corner_sin[DISC_CORNERS] = {0.0f, 0.8660254f, 0.8660254f,
                                               0.0f, -0.8660254f, -0.8660254f};

/* The zeroth spherical-harmonic basis constant: the DC term's colour is 0.5 + C0 × f_dc. */
#define SH_C0 0.2820948f

static float srgb_to_linear(float c)
{
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

static float dc_colour(float f_dc, bool linear)
{
    float c = 0.5f + SH_C0 * f_dc;
    c = c > 0.0f ? (c < 1.0f ? c : 1.0f) : 0.0f; /* also turns NaN into 0 */
    return linear ? c : srgb_to_linear(c);
}

static mn_status check_options(const mn_render_splat_options *o, mn_error *err)
{
    if (!(o->radius_scale >= 0.0f) || !isfinite(o->radius_scale))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "render source: radius_scale %g is negative or not finite",
                        (double)o->radius_scale);
    if (!(o->min_opacity >= 0.0f && o->min_opacity <= 1.0f))
        return mni_fail(err, MN_INVALID_ARGUMENT, "render source: min_opacity %g is not in [0, 1]",
                        (double)o->min_opacity);
    return MN_OK;
}

/* Whether splat i is opaque enough: 3DGS stores opacity as a logit. */
static bool is_drawn(const mn_splat_cloud *cloud, uint32_t i, float min_opacity)
{
    if (min_opacity <= 0.0f)
        return true;
    float alpha = 1.0f / (1.0f + expf(-cloud->opacities[i]));
    return alpha >= min_opacity;
}

/* The splats drawn, their radii, colours and triangles: everything a pose does not change. */
static mn_status build_discs(mn_render_source *s, struct mn_splat_source *h,
                             const mn_splat_cloud *cloud, const float *posed,
                             const mn_render_splat_options *o, mn_error *err)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < cloud->count; i++)
        n += is_drawn(cloud, i, o->min_opacity) ? 1u : 0u;
    if (n > UINT32_MAX / DISC_INDICES)
        return mni_fail(err, MN_OVERFLOW,
                        "render source: %u splats are more discs than a mesh holds", n);
    size_t room = n ? n : 1; /* an empty cloud still gets valid (unused) pointers */
    uint32_t *drawn = mni_arena_calloc(&s->arena, room, sizeof *drawn, 16);
    float *radius = mni_arena_calloc(&s->arena, room, sizeof *radius, 16);
    float *corners = mni_arena_calloc(&s->arena, room * DISC_CORNERS, 3 * sizeof(float), 16);
    float *colours = mni_arena_calloc(&s->arena, room * DISC_CORNERS, 3 * sizeof(float), 16);
    uint32_t *indices = mni_arena_calloc(&s->arena, room * DISC_INDICES, sizeof(uint32_t), 16);
    if (!drawn || !radius || !corners || !colours || !indices)
        return mni_oom(err, "render source");
    float scale = o->radius_scale > 0.0f ? o->radius_scale : 1.0f;
    uint32_t k = 0;
    for (uint32_t i = 0; i < cloud->count; i++) {
        if (!is_drawn(cloud, i, o->min_opacity))
            continue;
        const float *sc = cloud->scales + 3 * (size_t)i;
        float largest = fmaxf(sc[0], fmaxf(sc[1], sc[2]));
        drawn[k] = i;
        radius[k] = scale * expf(largest);
        for (int c = 0; c < 3; c++) {
            float v = dc_colour(cloud->colours[3 * (size_t)i + c], o->linear_colours);
            for (uint32_t j = 0; j < DISC_CORNERS; j++)
                colours[((size_t)k * DISC_CORNERS + j) * 3 + (size_t)c] = v;
        }
        /* A fan from corner 0: (0 1 2) (0 2 3) (0 3 4) (0 4 5). */
        uint32_t base = k * DISC_CORNERS, *t = indices + (size_t)k * DISC_INDICES;
        for (uint32_t f = 0; f < 4; f++) {
            t[3 * f] = base;
            t[3 * f + 1] = base + f + 1;
            t[3 * f + 2] = base + f + 2;
        }
        k++;
    }
    *h = (struct mn_splat_source){posed, drawn, radius, corners, n,
                                  {1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}};
    mn_render_mesh *mesh = &s->meshes[0];
    mesh->vertex_count = n * DISC_CORNERS;
    mesh->positions = corners;
    mesh->colors = colours;
    mesh->color_components = 3;
    mesh->indices = indices;
    mesh->index_count = n * DISC_INDICES;
    mesh->material = 0;
    return MN_OK;
}

mn_status mn_render_source_splat(const mn_splat_cloud *cloud, const float *posed_centres,
                                 const mn_render_splat_options *options, mn_render_source **out,
                                 mn_error *err)
{
    if (out)
        *out = NULL;
    if (!cloud || !posed_centres || !out || (cloud->count && (!cloud->scales ||
                                                            !cloud->colours ||
                                                            !cloud->opacities)))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "render source: NULL splats, posed centres or out");
    mn_render_splat_options o = options ? *options : (mn_render_splat_options){0};
    mn_status st = check_options(&o, err);
    if (st != MN_OK)
        return st;
    mn_render_source *s = mni_source_new(&o.allocator, splat_refresh);
    if (!s)
        return mni_oom(err, "render source");
    struct mn_splat_source *h = mni_arena_calloc(&s->arena, 1, sizeof *h, 16);
    s->meshes = mni_arena_calloc(&s->arena, 1, sizeof *s->meshes, 16);
    s->materials = mni_arena_calloc(&s->arena, 1, sizeof *s->materials, 16);
    if (!h || !s->meshes || !s->materials) {
        mn_render_source_free(s);
        return mni_oom(err, "render source");
    }
    if ((st = build_discs(s, h, cloud, posed_centres, &o, err)) != MN_OK) {
        mn_render_source_free(s);
        return st;
    }
    s->kind_state = h;
    mn_render_material *m = &s->materials[0];
    for (int i = 0; i < 4; i++)
        m->base_color[i] = 1.0f;
    m->texture = MN_NONE;
    m->emissive_texture = MN_NONE;
    m->alpha_mode = MN_ALPHA_OPAQUE;
    m->double_sided = true; /* the fan's winding depends on the axes the camera gives */
    s->scene = (mn_render_scene){s->meshes, 1, s->materials, 1, NULL, 0, NULL, 0};
    splat_refresh(s);
    *out = s;
    return MN_OK;
}

/* The camera's right and up axes in world space are the first two rows of the view's rotation. */
void mn_render_source_splat_face(mn_render_source *source, const mn_render_camera *camera)
{
    if (!source || source->refresh != splat_refresh || !camera)
        return;
    struct mn_splat_source *h = source->kind_state;
    const float *v = camera->view;
    for (int i = 0; i < 3; i++) {
        h->right[i] = v[4 * i];
        h->up[i] = v[4 * i + 1];
    }
}

static void splat_refresh(mn_render_source *s)
{
    const struct mn_splat_source *h = s->kind_state;
    float dx[DISC_CORNERS][3];
    for (int j = 0; j < DISC_CORNERS; j++)
        for (int c = 0; c < 3; c++)
            dx[j][c] = corner_cos[j] * h->right[c] + corner_sin[j] * h->up[c];
    for (size_t k = 0; k < h->drawn_count; k++) {
        const float *centre = h->posed + 3 * (size_t)h->drawn[k];
        float r = h->radius[k];
        float *out = h->corners + k * DISC_CORNERS * 3;
        for (int j = 0; j < DISC_CORNERS; j++)
            for (int c = 0; c < 3; c++)
                out[3 * j + c] = centre[c] + r * dx[j][c];
    }
}
