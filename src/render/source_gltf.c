/*
 * render/source_gltf: a scene from a glTF model instance.  One mesh per rig
 * part, pointing at the instance's posed vertices and the part's matrix
 * (mn_instance_part); the model's materials, its images decoded once each,
 * and the streams that never move (indices, uv sets, COLOR_0) unpacked into
 * the source at creation.
 *
 * Each refresh takes what the instance's mixer animates (KHR_animation_pointer,
 * mixer.h): the materials' factors and texture transforms are rebuilt from
 * its animated copies when a clip animates any property, lights take their
 * animated colour, intensity, range and cones, and visibility is the
 * mixer's (the model's as loaded when no clip animates it).
 */
#include "render/render.h"

#include <marionette/mixer.h>

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

/* What a glTF source keeps beside its scene (kind_state). */
typedef struct gltf_state {
    uint32_t *instance_of;       /* per scene mesh: its EXT_mesh_gpu_instancing instance, MN_NONE */
    float *locals;               /* per scene mesh, 16 floats: the instance's T·R·S */
    float *matrices;             /* per scene mesh, 16 floats: part matrix × local (instances only) */
    mn_render_light *lights;     /* the scene's */
    const uint32_t *light_nodes; /* per light, its node */
    float fit_scale;             /* model units → world: the placement's scale */
} gltf_state;

/*
 * A node hidden by KHR_node_visibility, or under one (the walk is bounded: no
 * cycle can hang it), as the mixer has it (as loaded, or animated).
 */
static bool node_hidden(const mn_mixer *mixer, const mn_model *model, uint32_t node)
{
    for (uint32_t steps = 0; node < model->node_count && steps <= model->node_count; steps++) {
        if (mn_mixer_node_hidden(mixer, node))
            return true;
        node = model->nodes[node].parent;
    }
    return false;
}

/* Whether node is under a root of the default scene (every root when there is no scene). */
static bool in_default_scene(const mn_model *model, uint32_t node)
{
    uint32_t root = node;
    for (uint32_t steps = 0; steps <= model->node_count; steps++) {
        uint32_t parent = model->nodes[root].parent;
        if (parent >= model->node_count)
            break;
        root = parent;
    }
    uint32_t scene = mn_model_default_scene(model);
    if (scene == MN_NONE)
        return true;
    for (uint32_t i = 0; i < model->scenes[scene].node_count; i++)
        if (model->scenes[scene].nodes[i] == root)
            return true;
    return false;
}

/* The default scene's lit nodes: their lights become the scene's (at most MN_RENDER_MAX_LIGHTS). */
static mn_status load_lights(mn_render_source *s, const mn_model *model, gltf_state *g)
{
    uint32_t count = 0, found = 0;
    for (uint32_t i = 0; i < model->node_count; i++)
        if (model->nodes[i].light < model->light_count && in_default_scene(model, i))
            found++;
    count = found < MN_RENDER_MAX_LIGHTS ? found : MN_RENDER_MAX_LIGHTS;
    if (found > count)
        mni_source_warn(s, MN_INVALID_VALUE, "extensions.KHR_lights_punctual",
                        "the scene places %u lights; the renderer uses the first %u", found, count);
    if (count == 0)
        return MN_OK;
    uint32_t *nodes = mni_arena_alloc(&s->arena, count * sizeof *nodes, 16);
    g->lights = mni_arena_calloc(&s->arena, count, sizeof *g->lights, 16);
    if (!nodes || !g->lights)
        return MN_OUT_OF_MEMORY;
    uint32_t k = 0;
    for (uint32_t i = 0; i < model->node_count && k < count; i++)
        if (model->nodes[i].light < model->light_count && in_default_scene(model, i))
            nodes[k++] = i;
    g->light_nodes = nodes;
    s->scene.lights = g->lights;
    s->scene.light_count = count;
    return MN_OK;
}

/* Scene meshes: one per triangle part, one per instance for a part whose node instances. */
static mn_status count_meshes(const mn_rig *rig, uint32_t *out, mn_error *err)
{
    const mn_model *model = mn_rig_model(rig);
    uint64_t n = 0;
    for (uint32_t i = 0; i < mn_rig_part_count(rig); i++) {
        const mn_part *part = mn_rig_part(rig, i);
        if (part->triangle_count == 0)
            continue;
        uint32_t copies = part->node < model->node_count ? model->nodes[part->node].instance_count : 0;
        n += copies ? copies : 1;
    }
    if (n > UINT32_MAX / 64)
        return mni_fail(err, MN_OVERFLOW, "render source: %llu meshes (instances included) is too many",
                        (unsigned long long)n);
    *out = (uint32_t)n;
    return MN_OK;
}

/* Every mesh of the scene and what refresh needs to place instances. */
static mn_status load_meshes(mn_render_source *s, const mn_rig *rig, uint32_t total, gltf_state *g)
{
    const mn_model *model = mn_rig_model(rig);
    s->meshes = mni_arena_calloc(&s->arena, total, sizeof *s->meshes, 16);
    uint32_t *part_of = mni_arena_calloc(&s->arena, total, sizeof *part_of, 16);
    g->instance_of = mni_arena_alloc(&s->arena, (size_t)total * sizeof *g->instance_of, 16);
    if (!s->meshes || !part_of || !g->instance_of)
        return MN_OUT_OF_MEMORY;
    uint32_t count = 0;
    bool instanced = false;
    for (uint32_t i = 0; i < mn_rig_part_count(rig); i++) {
        const mn_part *part = mn_rig_part(rig, i);
        if (part->triangle_count == 0)
            continue;
        uint32_t copies = part->node < model->node_count ? model->nodes[part->node].instance_count : 0;
        mn_status st = load_part(s, model, part, &s->meshes[count]);
        if (st != MN_OK)
            return st;
        for (uint32_t c = 0; c < (copies ? copies : 1); c++) {
            s->meshes[count + c] = s->meshes[count];   /* the streams that never move are shared */
            part_of[count + c] = i;
            g->instance_of[count + c] = copies ? c : MN_NONE;
        }
        instanced = instanced || copies;
        count += copies ? copies : 1;
    }
    s->part_of = part_of;
    s->scene.meshes = s->meshes;
    s->scene.mesh_count = count;
    if (!instanced)
        return MN_OK;
    g->locals = mni_arena_alloc(&s->arena, (size_t)count * 16 * sizeof(float), 16);
    g->matrices = mni_arena_alloc(&s->arena, (size_t)count * 16 * sizeof(float), 16);
    if (!g->locals || !g->matrices)
        return MN_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < count; k++)
        if (g->instance_of[k] != MN_NONE)
            mn_node_instance_matrix(model, mn_rig_part(rig, part_of[k])->node, g->instance_of[k],
                                    g->locals + 16 * (size_t)k);
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
    uint32_t total = 0;
    mn_status st = count_meshes(rig, &total, err);
    if (st != MN_OK)
        return st;
    mn_render_source *s = mni_source_new(allocator, gltf_refresh);
    if (!s)
        return mni_oom(err, "render source");
    s->instance = instance;
    gltf_state *g = mni_arena_calloc(&s->arena, 1, sizeof *g, 16);
    s->kind_state = g;
    st = g ? load_textures(s, model) : MN_OUT_OF_MEMORY;
    if (st == MN_OK && model->material_count) {
        s->materials = mni_arena_calloc(&s->arena, model->material_count, sizeof *s->materials, 16);
        if (!s->materials)
            st = MN_OUT_OF_MEMORY;
        for (uint32_t i = 0; st == MN_OK && i < model->material_count; i++)
            material_from_gltf(model, &model->materials[i], s->textures, &s->materials[i]);
    }
    if (st == MN_OK && total)
        st = load_meshes(s, rig, total, g);
    if (st == MN_OK)
        st = load_lights(s, model, g);
    if (st != MN_OK) {
        mn_render_source_free(s);
        return mni_oom(err, "render source");
    }
    s->scene.materials = s->materials;
    s->scene.material_count = s->materials ? model->material_count : 0;
    float placement[16];
    mn_instance_placement(instance, placement);
    g->fit_scale = sqrtf(placement[0] * placement[0] + placement[1] * placement[1] + placement[2] * placement[2]);
    gltf_refresh(s);
    *out = s;
    return MN_OK;
}

static void mat4_mul(float out[16], const float a[16], const float b[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            out[c * 4 + r] = a[r] * b[c * 4] + a[4 + r] * b[c * 4 + 1] + a[8 + r] * b[c * 4 + 2] +
                             a[12 + r] * b[c * 4 + 3];
}

/*
 * A light from its node's world: at the node, shining along its -Z; distances
 * in model units (the extension's: node scale does not change a light), so
 * a point or spot light's colour is × fit² and its range × fit; black when
 * the node is hidden.
 */
static void place_light(const mn_model *model, const mn_mixer *mixer, const gltf_state *g, const float *worlds,
                        uint32_t node, mn_render_light *out)
{
    const mn_light *l = mn_mixer_light(mixer, model->nodes[node].light);  /* animated, or the model's */
    const float *w = worlds + 16 * (size_t)node;
    bool local = l->type != MN_LIGHT_DIRECTIONAL;
    float gain = node_hidden(mixer, model, node) ? 0.0f : l->intensity * (local ? g->fit_scale * g->fit_scale : 1.0f);
    out->type = l->type;
    for (int k = 0; k < 3; k++) {
        out->color[k] = l->color[k] * gain;
        out->position[k] = w[12 + k];
        out->direction[k] = -w[8 + k];
    }
    out->range = local ? l->range * g->fit_scale : 0.0f;
    out->inner_cos = cosf(l->inner_cone_angle);
    out->outer_cos = cosf(l->outer_cone_angle);
}

static void gltf_refresh(mn_render_source *s)
{
    const gltf_state *g = s->kind_state;
    const mn_rig *rig = mn_instance_rig(s->instance);
    const mn_model *model = mn_rig_model(rig);
    /* Read only: the getter is not const because the instance's mixer is played through it. */
    const mn_mixer *mixer = mn_instance_mixer((mn_instance *)s->instance);
    if (mn_mixer_animates_properties(mixer))
        for (uint32_t i = 0; i < s->scene.material_count; i++)
            material_from_gltf(model, mn_mixer_material(mixer, i), s->textures, &s->materials[i]);
    uint32_t last_part = MN_NONE;
    bool hidden = false;
    for (uint32_t k = 0; k < s->scene.mesh_count; k++) {
        const mn_posed_part *p = mn_instance_part(s->instance, s->part_of[k]);
        mn_render_mesh *mesh = &s->meshes[k];
        if (s->part_of[k] != last_part) {   /* a part's instances lie together: one walk each */
            last_part = s->part_of[k];
            hidden = node_hidden(mixer, model, mn_rig_part(rig, last_part)->node);
        }
        mesh->positions = p->positions;
        mesh->normals = p->normals;
        mesh->matrix = p->matrix;
        mesh->vertex_count = p->vertex_count;
        mesh->hidden = hidden;
        if (g->instance_of[k] != MN_NONE) {
            float *m = g->matrices + 16 * (size_t)k;
            mat4_mul(m, p->matrix, g->locals + 16 * (size_t)k);
            mesh->matrix = m;
        }
    }
    const float *worlds = mn_instance_worlds(s->instance);
    for (uint32_t i = 0; i < s->scene.light_count; i++)
        place_light(model, mixer, g, worlds, g->light_nodes[i], &g->lights[i]);
}
