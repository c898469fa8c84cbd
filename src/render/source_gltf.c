/*
 * render/source_gltf: a scene from a glTF model instance.  One mesh per rig
 * part, pointing at the instance's posed vertices and the part's matrix
 * (mn_instance_part); the model's materials, its images decoded once each,
 * and the streams that never move (indices, uv sets, COLOR_0) unpacked into
 * the source at creation.
 */
#include "render/render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void gltf_refresh(mn_render_source *s);

/* The unpacked floats of an accessor when it holds `count` elements of `components`, else NULL. */
static const float *unpack_stream(mn_render_source *s, const mn_model *model, uint32_t accessor,
                                  uint32_t count, uint32_t components, mn_status *status)
{
    if (accessor == MN_NONE || accessor >= model->accessor_count)
        return NULL;
    const mn_accessor *a = &model->accessors[accessor];
    if (a->count != count || mn_accessor_components(a->type) != components)
        return NULL;
    size_t n = (size_t)count * components;
    float *out = mni_arena_alloc(&s->arena, n * sizeof *out + 1, 16);
    if (!out) {
        *status = MN_OUT_OF_MEMORY;
        return NULL;
    }
    mn_accessor_unpack_floats(a, out, n);
    return out;
}

/* KHR_texture_transform: uv' = T(offset) · R(rotation) · S(scale) · uv, the rotation turning uv
   counter-clockwise (its example: offset (0, 1), rotation pi/2, scale 0.5 picks the lower-left
   quadrant).  All zeros (the identity) without the extension. */
static void uv_transform(const mn_texture_ref *ref, float out[6])
{
    memset(out, 0, 6 * sizeof *out);
    if (!ref->has_transform)
        return;
    float c = cosf(ref->rotation), sn = sinf(ref->rotation);
    out[0] = c * ref->uv_scale[0];
    out[1] = -sn * ref->uv_scale[0];
    out[2] = sn * ref->uv_scale[1];
    out[3] = c * ref->uv_scale[1];
    out[4] = ref->offset[0];
    out[5] = ref->offset[1];
}

static bool usable(const mn_model *model, const mn_texture_ref *ref,
                   const mn_render_texture *textures)
{
    return ref->texture != MN_NONE && ref->texture < model->texture_count &&
           textures[ref->texture].rgba;
}

static void material_from_gltf(const mn_model *model, const mn_material *m,
                               const mn_render_texture *textures, mn_render_material *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out->base_color, m->base_color, sizeof out->base_color);
    for (int i = 0; i < 3; i++)
        out->emissive[i] = m->emissive[i] * m->emissive_strength;
    out->alpha_mode = m->alpha_mode;
    out->alpha_cutoff = m->alpha_cutoff;
    out->double_sided = m->double_sided;
    out->texture = MN_NONE;
    out->emissive_texture = MN_NONE;
    if (usable(model, &m->base_color_texture, textures)) {
        out->texture = m->base_color_texture.texture;
        out->texcoord = m->base_color_texture.texcoord;
        uv_transform(&m->base_color_texture, out->uv_transform);
    }
    if (usable(model, &m->emissive_texture, textures)) {
        out->emissive_texture = m->emissive_texture.texture;
        out->emissive_texcoord = m->emissive_texture.texcoord;
        uv_transform(&m->emissive_texture, out->emissive_uv_transform);
    }
}

/* Decode every image once, then give each texture its image's pixels and its sampler. */
static mn_status load_textures(mn_render_source *s, const mn_model *model)
{
    mn_status status = MN_OK;
    mn_render_texture *images = NULL;
    if (model->image_count) {
        images = mni_arena_calloc(&s->arena, model->image_count, sizeof *images, 16);
        if (!images)
            return MN_OUT_OF_MEMORY;
    }
    /* Only images some texture uses are decoded. */
    for (uint32_t t = 0; t < model->texture_count; t++) {
        uint32_t img = model->textures[t].image;
        if (img == MN_NONE || img >= model->image_count || images[img].rgba || images[img].width)
            continue;
        char what[64];
        snprintf(what, sizeof what, "images[%u]", img);
        mni_source_decode_texture(s, model->images[img].data, model->images[img].size, what,
                                  &images[img], &status);
        if (status != MN_OK)
            return status;
        if (!images[img].rgba)
            images[img].width = 1;   /* tried: do not warn twice */
    }
    s->textures = model->texture_count
                      ? mni_arena_calloc(&s->arena, model->texture_count, sizeof *s->textures, 16)
                      : NULL;
    if (model->texture_count && !s->textures)
        return MN_OUT_OF_MEMORY;
    for (uint32_t t = 0; t < model->texture_count; t++) {
        mn_render_texture *tex = &s->textures[t];
        uint32_t img = model->textures[t].image;
        if (img != MN_NONE && img < model->image_count && images[img].rgba)
            *tex = images[img];
        tex->wrap_s = tex->wrap_t = MN_WRAP_REPEAT;
        uint32_t smp = model->textures[t].sampler;
        if (smp != MN_NONE && smp < model->sampler_count) {
            tex->wrap_s = model->samplers[smp].wrap_s;
            tex->wrap_t = model->samplers[smp].wrap_t;
            tex->nearest = model->samplers[smp].mag_filter == MN_FILTER_NEAREST;
        }
    }
    s->scene.textures = s->textures;
    s->scene.texture_count = model->texture_count;
    return MN_OK;
}

static mn_status load_part(mn_render_source *s, const mn_model *model, const mn_part *part,
                           mn_render_mesh *mesh)
{
    mn_status status = MN_OK;
    const mn_primitive *prim = &model->meshes[part->mesh].primitives[part->primitive];
    memset(mesh, 0, sizeof *mesh);
    mesh->vertex_count = part->vertex_count;
    mesh->material = part->material < model->material_count ? part->material : MN_NONE;
    if (prim->indices != MN_NONE && prim->indices < model->accessor_count) {
        const mn_accessor *a = &model->accessors[prim->indices];
        uint32_t *idx = mni_arena_alloc(&s->arena, (size_t)a->count * sizeof *idx + 1, 16);
        if (!idx)
            return MN_OUT_OF_MEMORY;
        mn_accessor_unpack_u32(a, idx, a->count);
        mesh->indices = idx;
        mesh->index_count = a->count / 3 * 3;
    }
    for (uint32_t set = 0; set < 2; set++) {
        mesh->uv[set] = unpack_stream(s, model, mn_primitive_find(prim, MN_SEMANTIC_TEXCOORD, set),
                                      part->vertex_count, 2, &status);
        if (status != MN_OK)
            return status;
    }
    size_t need = mn_primitive_colors(model, prim, 0, NULL, 0);
    if (need == (size_t)part->vertex_count * 4 && need > 0) {
        float *colors = mni_arena_alloc(&s->arena, need * sizeof *colors, 16);
        if (!colors)
            return MN_OUT_OF_MEMORY;
        mn_primitive_colors(model, prim, 0, colors, need);
        mesh->colors = colors;
        mesh->color_components = 4;
    }
    return MN_OK;
}

mn_status mn_render_source_gltf(const mn_instance *instance, const mn_allocator *allocator,
                                mn_render_source **out, mn_error *err)
{
    if (out)
        *out = NULL;
    if (!instance || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "render source: NULL instance or out");
    const mn_rig *rig = mn_instance_rig(instance);
    const mn_model *model = mn_rig_model(rig);
    mn_render_source *s = mni_source_new(allocator, gltf_refresh);
    if (!s)
        return mni_oom(err, "render source");
    s->instance = instance;
    mn_status st = load_textures(s, model);
    uint32_t parts = mn_rig_part_count(rig);
    if (st == MN_OK && model->material_count) {
        s->materials = mni_arena_calloc(&s->arena, model->material_count, sizeof *s->materials, 16);
        if (!s->materials)
            st = MN_OUT_OF_MEMORY;
        for (uint32_t i = 0; st == MN_OK && i < model->material_count; i++)
            material_from_gltf(model, &model->materials[i], s->textures, &s->materials[i]);
    }
    if (st == MN_OK && parts) {
        s->meshes = mni_arena_calloc(&s->arena, parts, sizeof *s->meshes, 16);
        if (!s->meshes)
            st = MN_OUT_OF_MEMORY;
    }
    /* scene.meshes[k] draws rig part part_of[k]: triangle parts only. */
    uint32_t *part_of = parts ? mni_arena_calloc(&s->arena, parts, sizeof *part_of, 16) : NULL;
    if (parts && !part_of)
        st = MN_OUT_OF_MEMORY;
    uint32_t count = 0;
    for (uint32_t i = 0; st == MN_OK && i < parts; i++) {
        const mn_part *part = mn_rig_part(rig, i);
        if (part->triangle_count == 0)
            continue;
        st = load_part(s, model, part, &s->meshes[count]);
        part_of[count++] = i;
    }
    if (st != MN_OK) {
        mn_render_source_free(s);
        return mni_oom(err, "render source");
    }
    s->scene.meshes = s->meshes;
    s->scene.mesh_count = count;
    s->scene.materials = s->materials;
    s->scene.material_count = s->materials ? model->material_count : 0;
    s->part_of = part_of;
    gltf_refresh(s);
    *out = s;
    return MN_OK;
}

static void gltf_refresh(mn_render_source *s)
{
    for (uint32_t k = 0; k < s->scene.mesh_count; k++) {
        const mn_posed_part *p = mn_instance_part(s->instance, s->part_of[k]);
        mn_render_mesh *mesh = &s->meshes[k];
        mesh->positions = p->positions;
        mesh->normals = p->normals;
        mesh->matrix = p->matrix;
        mesh->vertex_count = p->vertex_count;
    }
}
