/*
 * The mixer's KHR_animation_pointer state: see anim/pointer_state_internal.h.
 */
#include "anim/pointer_state_internal.h"

#include "model/model.h"

#include <string.h>

static bool same_target(const mn_pointer *a, const mn_pointer *b)
{
    return a->property == b->property && a->index == b->index && a->slot == b->slot;
}

/* The index of track t's property among s->props, added when new; MN_NONE when not this model's. */
static uint32_t prop_of(mni_pointer_state *s, const mn_model *model, const mn_pointer_track *t)
{
    /* A clip made from another model may name what this one lacks: resolve its text here. */
    mn_pointer here;
    char why[128];
    if (mni_pointer_resolve(model, t->pointer.text, &here, why, sizeof why) != MN_OK ||
        !same_target(&here, &t->pointer) || here.components != t->components)
        return MN_NONE;
    for (uint32_t k = 0; k < s->prop_count; k++)
        if (same_target(&s->props[k], &here))
            return k;
    s->props[s->prop_count] = here;
    s->offset[s->prop_count] = s->floats;
    s->floats += here.components;
    return s->prop_count++;
}

/* The model's value of prop k into s->base. */
static void read_base(mni_pointer_state *s, const mn_model *model, uint32_t k)
{
    const mn_pointer *p = &s->props[k];
    float *out = s->base + s->offset[k];
    if (p->property == MN_PROP_NODE_VISIBLE) {
        out[0] = model->nodes[p->index].hidden ? 0.0f : 1.0f;
        return;
    }
    const float *field = mni_pointer_field(s->materials, s->cameras, s->lights, p);
    if (field)
        memcpy(out, field, p->components * sizeof(float));
}

mn_status mni_pointer_state_init(mni_pointer_state *s, mn_arena *arena, const mn_model *model,
                                 const mn_clip *const *clips, uint32_t clip_count, mn_error *err)
{
    memset(s, 0, sizeof *s);
    size_t tracks = 0;
    for (uint32_t c = 0; c < clip_count; c++)
        tracks += mn_clip_pointer_count(clips[c]);
    if (tracks == 0)
        return MN_OK;
    s->props = mni_arena_calloc(arena, tracks, sizeof *s->props, 16);
    s->offset = mni_arena_calloc(arena, tracks, sizeof *s->offset, 4);
    s->track_prop = mni_arena_calloc(arena, clip_count, sizeof *s->track_prop, sizeof(void *));
    if (!s->props || !s->offset || !s->track_prop)
        return mni_oom(err, "mixer: pointer tracks");
    for (uint32_t c = 0; c < clip_count; c++) {
        uint32_t n = mn_clip_pointer_count(clips[c]);
        if (n == 0)
            continue;
        if (!(s->track_prop[c] = mni_arena_calloc(arena, n, sizeof(uint32_t), 4)))
            return mni_oom(err, "mixer: pointer tracks");
        for (uint32_t i = 0; i < n; i++)
            s->track_prop[c][i] = prop_of(s, model, mn_clip_pointer(clips[c], i));
    }
    if (s->prop_count == 0)
        return MN_OK;
    size_t floats = s->floats ? s->floats : 1;
    s->base = mni_arena_calloc(arena, floats, sizeof(float), 16);
    s->values = mni_arena_calloc(arena, floats, sizeof(float), 16);
    s->from = mni_arena_calloc(arena, floats, sizeof(float), 16);
    s->materials = mni_arena_calloc(arena, model->material_count ? model->material_count : 1,
                                    sizeof(mn_material), 16);
    s->cameras = mni_arena_calloc(arena, model->camera_count ? model->camera_count : 1,
                                  sizeof(mn_camera), 16);
    uint32_t lights = model->lights ? model->light_count : 0;
    s->lights = mni_arena_calloc(arena, lights ? lights : 1, sizeof(mn_light), 16);
    s->hidden = mni_arena_calloc(arena, model->node_count ? model->node_count : 1, sizeof(bool), 1);
    if (!s->base || !s->values || !s->from || !s->materials || !s->cameras || !s->lights || !s->hidden)
        return mni_oom(err, "mixer: animated properties");
    if (model->material_count)
        memcpy(s->materials, model->materials, model->material_count * sizeof(mn_material));
    if (model->camera_count)
        memcpy(s->cameras, model->cameras, model->camera_count * sizeof(mn_camera));
    if (lights)
        memcpy(s->lights, model->lights, lights * sizeof(mn_light));
    for (uint32_t i = 0; i < model->node_count; i++)
        s->hidden[i] = model->nodes[i].hidden;
    for (uint32_t k = 0; k < s->prop_count; k++)
        read_base(s, model, k);
    memcpy(s->values, s->base, s->floats * sizeof(float));
    memcpy(s->from, s->base, s->floats * sizeof(float));
    return MN_OK;
}

void mni_pointer_state_sample(const mni_pointer_state *s, const mn_clip *clip, uint32_t c, float t,
                              float *out)
{
    if (s->prop_count == 0)
        return;
    memcpy(out, s->base, s->floats * sizeof(float));
    const uint32_t *map = s->track_prop[c];
    for (uint32_t i = 0, n = mn_clip_pointer_count(clip); map && i < n; i++)
        if (map[i] != MN_NONE)
            mn_pointer_track_sample(mn_clip_pointer(clip, i), t, out + s->offset[map[i]]);
}

void mni_pointer_state_blend(mni_pointer_state *s, float w)
{
    for (uint32_t k = 0; k < s->prop_count; k++) {
        float *v = s->values + s->offset[k];
        const float *f = s->from + s->offset[k];
        if (mni_pointer_is_bool(s->props[k].property)) {
            v[0] = w >= 0.5f ? v[0] : f[0];
            continue;
        }
        for (uint32_t i = 0; i < s->props[k].components; i++)
            v[i] = f[i] + (v[i] - f[i]) * w;
    }
}

void mni_pointer_state_rest(mni_pointer_state *s)
{
    if (s->prop_count)
        memcpy(s->values, s->base, s->floats * sizeof(float));
}

void mni_pointer_state_apply(mni_pointer_state *s)
{
    for (uint32_t k = 0; k < s->prop_count; k++) {
        const mn_pointer *p = &s->props[k];
        const float *v = s->values + s->offset[k];
        if (p->property == MN_PROP_NODE_VISIBLE) {
            s->hidden[p->index] = v[0] == 0.0f;
            continue;
        }
        float *field = mni_pointer_field(s->materials, s->cameras, s->lights, p);
        if (field)
            memcpy(field, v, p->components * sizeof(float));
    }
}
