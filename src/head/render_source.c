/*
 * head/render_source: a scene from an expression head.  The head poses into a
 * buffer its caller owns; the scene draws the pack's triangles straight from
 * that buffer, so a refresh only has to recompute the normals, which follow
 * the posed surface (a smile's crease shades as a crease).  The colours do
 * not move with the pose and are made once, from head.h's debug colourings.
 */
#include "render/render.h"

#include <marionette/head/head.h>

#include <math.h>
#include <string.h>

static void head_refresh(mn_render_source *source);

struct mn_head_source {
    const float *posed;          /* V × 3, the caller's */
    float *normals;              /* V × 3, recomputed by every refresh */
    const uint32_t *faces;       /* F × 3, the pack's */
    uint32_t vertex_count, face_count;
};

/* A skin tone and the eyes' dark brown (sRGB, as the colourings are). */
static const float skin_rgb[3] = {0.87f, 0.69f, 0.58f};
static const float eye_rgb[3] = {0.16f, 0.1f, 0.07f};

/* One sRGB byte as a linear value: the renderer lights and blends in linear light. */
static float srgb_byte_to_linear(uint32_t byte)
{
    float c = (float)byte / 255.0f;
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

/* The packed RGBA colours of one colouring, V of them into `packed`. */
static mn_status colour_vertices(const mn_aosrig *pack, const mn_render_head_options *o,
                                 uint32_t *packed, mn_error *err)
{
    size_t v_count = pack->header.vertex_count;
    switch (o->colouring) {
    case MN_HEAD_COLOUR_SKIN: {
        mn_flat_tint(v_count, skin_rgb, packed);
        uint32_t eye = mn_pack_rgba(eye_rgb[0], eye_rgb[1], eye_rgb[2], 1.0f);
        for (size_t v = 0; v < v_count; v++)
            if (fmaxf(pack->eye_weights[v], pack->eye_weights[v_count + v]) >= 0.5f)
                packed[v] = eye;
        return MN_OK;
    }
    case MN_HEAD_COLOUR_FLAT: {
        bool given = o->rgb[0] != 0.0f || o->rgb[1] != 0.0f || o->rgb[2] != 0.0f;
        mn_flat_tint(v_count, given ? o->rgb : NULL, packed);
        return MN_OK;
    }
    case MN_HEAD_COLOUR_JOINT:
        return mn_head_joint_tint(pack, packed, v_count);
    case MN_HEAD_COLOUR_UV:
        if (!pack->uv)
            return mni_error_set(err, MN_MISSING_PROPERTY, "uv", -1,
                                 "render source: the uv colouring needs the pack's uv blob, and "
                                 "this pack has none");
        mn_uv_tint(pack->uv, v_count, packed);
        return MN_OK;
    case MN_HEAD_COLOUR_HEIGHT:
        mn_height_tint(pack->neutral, v_count, packed);
        return MN_OK;
    }
    return mni_fail(err, MN_INVALID_ARGUMENT,
                    "render source: colouring %d is none of mn_head_colouring", (int)o->colouring);
}

static mn_status check_options(const mn_render_head_options *o, mn_error *err)
{
    if ((unsigned)o->colouring > (unsigned)MN_HEAD_COLOUR_HEIGHT)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "render source: colouring %d is none of mn_head_colouring",
                        (int)o->colouring);
    for (int i = 0; i < 3; i++)
        if (!(o->rgb[i] >= 0.0f && o->rgb[i] <= 1.0f))
            return mni_fail(err, MN_INVALID_ARGUMENT, "render source: rgb[%d] is not in [0, 1]", i);
    return MN_OK;
}

/* The colours as the mesh's linear RGB stream (3 floats a vertex, in the arena). */
static mn_status make_colours(mn_render_source *s, const mn_aosrig *pack,
                              const mn_render_head_options *o, mn_error *err)
{
    size_t v_count = pack->header.vertex_count;
    uint32_t *packed = mni_arena_calloc(&s->arena, v_count, sizeof *packed, 16);
    float *colors = mni_arena_calloc(&s->arena, v_count, 3 * sizeof *colors, 16);
    if (!packed || !colors)
        return mni_oom(err, "render source");
    mn_status st = colour_vertices(pack, o, packed, err);
    if (st != MN_OK)
        return st;
    for (size_t v = 0; v < v_count; v++)
        for (int c = 0; c < 3; c++)
            colors[3 * v + c] = srgb_byte_to_linear(packed[v] >> (8 * c) & 0xffu);
    s->meshes[0].colors = colors;
    s->meshes[0].color_components = 3;
    return MN_OK;
}

mn_status mn_render_source_head(const mn_head *head, const float *posed,
                                const mn_render_head_options *options, mn_render_source **out,
                                mn_error *err)
{
    if (out)
        *out = NULL;
    if (!head || !posed || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "render source: NULL head, posed vertices or out");
    mn_render_head_options o = options ? *options : (mn_render_head_options){0};
    mn_status st = check_options(&o, err);
    if (st != MN_OK)
        return st;
    const mn_aosrig *pack = mn_head_pack(head);
    uint32_t v_count = pack->header.vertex_count;
    if (pack->face_count > UINT32_MAX / 3u)
        return mni_error_set(err, MN_OVERFLOW, "faces", -1,
                             "render source: %u faces are more than a mesh's index count holds",
                             pack->face_count);
    mn_render_source *s = mni_source_new(&o.allocator, head_refresh);
    if (!s)
        return mni_oom(err, "render source");
    struct mn_head_source *h = mni_arena_calloc(&s->arena, 1, sizeof *h, 16);
    s->meshes = mni_arena_calloc(&s->arena, 1, sizeof *s->meshes, 16);
    s->materials = mni_arena_calloc(&s->arena, 1, sizeof *s->materials, 16);
    float *normals = mni_arena_calloc(&s->arena, v_count, 3 * sizeof *normals, 16);
    if (!h || !s->meshes || !s->materials || !normals) {
        mn_render_source_free(s);
        return mni_oom(err, "render source");
    }
    *h = (struct mn_head_source){posed, normals, pack->faces, v_count, pack->face_count};
    s->kind_state = h;
    if ((st = make_colours(s, pack, &o, err)) != MN_OK) {
        mn_render_source_free(s);
        return st;
    }
    mn_render_mesh *mesh = &s->meshes[0];
    mesh->vertex_count = v_count;
    mesh->positions = posed;
    mesh->normals = normals;
    mesh->uv[0] = pack->uv;
    mesh->indices = pack->faces;
    mesh->index_count = pack->face_count * 3u;
    mesh->material = 0;
    mn_render_material *m = &s->materials[0];
    for (int i = 0; i < 4; i++)
        m->base_color[i] = 1.0f;
    m->texture = MN_NONE;
    m->emissive_texture = MN_NONE;
    m->alpha_mode = MN_ALPHA_OPAQUE;
    m->double_sided = true;
    s->scene = (mn_render_scene){s->meshes, 1, s->materials, 1, NULL, 0, NULL, 0};
    head_refresh(s);
    *out = s;
    return MN_OK;
}

/* Area-weighted vertex normals of the posed triangles (the cross product's length is twice the
   area).  A vertex no finite triangle touches gets +z, the way the face looks. */
static void head_refresh(mn_render_source *s)
{
    const struct mn_head_source *h = s->kind_state;
    const float *p = h->posed;
    float *n = h->normals;
    memset(n, 0, (size_t)h->vertex_count * 3 * sizeof *n);
    for (size_t f = 0; f < h->face_count; f++) {
        const uint32_t *t = h->faces + 3 * f;
        const float *a = p + 3 * (size_t)t[0], *b = p + 3 * (size_t)t[1], *c = p + 3 * (size_t)t[2];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float x = e1[1] * e2[2] - e1[2] * e2[1];
        float y = e1[2] * e2[0] - e1[0] * e2[2];
        float z = e1[0] * e2[1] - e1[1] * e2[0];
        if (!isfinite(x) || !isfinite(y) || !isfinite(z))
            continue;
        for (int k = 0; k < 3; k++) {
            float *m = n + 3 * (size_t)t[k];
            m[0] += x;
            m[1] += y;
            m[2] += z;
        }
    }
    for (size_t v = 0; v < h->vertex_count; v++) {
        float *m = n + 3 * v;
        float len = sqrtf(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
        if (len > 0.0f && isfinite(len)) {
            m[0] /= len;
            m[1] /= len;
            m[2] /= len;
        } else {
            m[0] = m[1] = 0.0f;
            m[2] = 1.0f;
        }
    }
}
