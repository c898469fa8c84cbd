/*
 * Building an mn_model in code (model_build.h).
 *
 * The builder writes into a model made by mni_model_create, so its arena
 * owns everything the model keeps.  The arrays that grow as elements are
 * added (the model's accessors, meshes, nodes, ... and the builder's lists)
 * live in the allocator's memory instead, doubling with the outgrown block
 * given back at once (an arena keeps every block until the model is freed,
 * which for a model of a million small primitives was as much again as the
 * arrays); finish moves each model array into the arena at its exact size,
 * one at a time, and gives the lists back.  So building costs the finished
 * model plus at most twice its largest growing array, and the model keeps
 * no slack.
 * What hangs below an element — a mesh's primitives and their morph
 * targets, a node's children, an animation's channels — is kept in flat
 * lists while building and gathered into per-element arrays by finish, so
 * nothing nested ever has to grow.  Children follow from each node's
 * parent; a node re-parented later goes to the end of its new parent's
 * list (a sequence number per link keeps the order), and finish refuses a
 * cycle.
 *
 * Every rule the glTF reader enforces is checked as elements are added (or,
 * where it needs the whole model, at finish), so the finished model carries
 * the reader's guarantees: indices in range, vertex and joint indices below
 * their counts, finite and ordered key times, a forest of nodes.
 */
#include "model/model.h"

#include <marionette/model_build.h>
#include <marionette/math.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A primitive, morph target or channel while building: the element it belongs to, then itself. */
typedef struct built_primitive {
    uint32_t mesh;
    mn_primitive primitive;
} built_primitive;

typedef struct built_target {
    uint32_t mesh, primitive;
    mn_morph_target target;
} built_target;

typedef struct built_channel {
    uint32_t animation;
    mn_channel channel;
} built_channel;

struct mn_model_builder {
    mn_model *model;
    mn_arena *arena;
    mn_error err;                 /* the first error; err.code MN_OK while none */
    uint32_t accessor_cap, image_cap, sampler_cap, texture_cap, material_cap, mesh_cap, node_cap,
        skin_cap, animation_cap;
    built_primitive *prims;       uint32_t prim_count, prim_cap;
    built_target *targets;        uint32_t target_count, target_cap;
    built_channel *channels;      uint32_t channel_count, channel_cap;
    uint32_t *link_order;         /* per node: when it was given its parent (children listed by it) */
    uint32_t link_cap, links;
};

/* ---- failing and growing ----------------------------------------------------------------------- */

/*
 * Record the first error ("path: message", the message alone when path is
 * empty; a NULL fmt gives the code's default message); later ones are dropped.
 */
static void vfail(mn_model_builder *b, mn_status code, const char *path, const char *fmt, va_list ap)
{
    if (b->err.code != MN_OK)
        return;
    char message[sizeof b->err.message];
    if (fmt)
        vsnprintf(message, sizeof message, fmt, ap);
    else
        snprintf(message, sizeof message, "%s", mn_status_message(code));
    if (path[0])
        mni_error_set(&b->err, code, path, -1, "%s: %s", path, message);
    else
        mni_fail(&b->err, code, "%s", message);
}

/* Fail an add: returns MN_NONE, the index an add returns after an error. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static uint32_t fail(mn_model_builder *b, mn_status code, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(b, code, path, fmt, ap);
    va_end(ap);
    return MN_NONE;
}

/* Fail an add for want of memory, as fail does: "path: what: out of memory" (what NULL: "path: out of memory"). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static uint32_t oom(mn_model_builder *b, const char *path, const char *what, ...)
{
    mn_error words; /* mni_oom's message, which fail puts after the path */
    va_list ap;
    va_start(ap, what);
    mni_oom_va(&words, what, ap);
    va_end(ap);
    return fail(b, MN_OUT_OF_MEMORY, path, "%s", words.message);
}

/* Fail a finishing step: returns the first error's code. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static mn_status fail_st(mn_model_builder *b, mn_status code, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(b, code, path, fmt, ap);
    va_end(ap);
    return b->err.code;
}

/* A usable builder: not NULL and nothing failed yet. */
static bool live(const mn_model_builder *b)
{
    return b && b->err.code == MN_OK;
}

/* The allocator behind the model's arena: what the growing arrays come from until finish. */
static const mn_allocator *heap(const mn_model_builder *b)
{
    return &b->model->priv->arena.allocator;
}

/*
 * Room for one more element in *array (count used, *cap allocated); false
 * (error set) when out of memory.  The array lives in the allocator's memory,
 * not the arena, so the outgrown block is given back at once: doubling keeps
 * the array at most twice its count, and growing costs the old block beside
 * the new one for a moment (three times the count).
 */
static bool grow(mn_model_builder *b, void *array, uint32_t count, uint32_t *cap, size_t elem, const char *what)
{
    void **slot = array;
    if (count < *cap)
        return true;
    if (count >= UINT32_MAX / 2) {
        fail(b, MN_OVERFLOW, what, "too many elements");
        return false;
    }
    uint32_t n = *cap ? 2 * *cap : 8;
    size_t bytes;
    void *bigger = mni_checked_mul(n, elem, &bytes) ? mni_alloc(heap(b), bytes) : NULL;
    if (!bigger) {
        oom(b, what, "growing to %u elements", n);
        return false;
    }
    if (count)
        memcpy(bigger, *slot, (size_t)count * elem);
    memset((uint8_t *)bigger + (size_t)count * elem, 0, bytes - (size_t)count * elem);
    mni_free(heap(b), *slot, (size_t)*cap * elem);
    *slot = bigger;
    *cap = n;
    return true;
}

/* One array that grows while building: where its pointer is, its capacity, count and element size. */
typedef struct growing {
    void **slot;
    uint32_t *cap;
    uint32_t count;
    size_t elem;
    bool model;          /* one of the model's arrays (moved into the arena by finish), else a list of the builder */
} growing;

#define GROWING_COUNT 13u

/* Every growing array of the builder. */
static void growing_arrays(mn_model_builder *b, growing out[GROWING_COUNT])
{
    mn_model *m = b->model;
    const growing list[GROWING_COUNT] = {
        {(void **)&m->accessors, &b->accessor_cap, m->accessor_count, sizeof *m->accessors, true},
        {(void **)&m->images, &b->image_cap, m->image_count, sizeof *m->images, true},
        {(void **)&m->samplers, &b->sampler_cap, m->sampler_count, sizeof *m->samplers, true},
        {(void **)&m->textures, &b->texture_cap, m->texture_count, sizeof *m->textures, true},
        {(void **)&m->materials, &b->material_cap, m->material_count, sizeof *m->materials, true},
        {(void **)&m->meshes, &b->mesh_cap, m->mesh_count, sizeof *m->meshes, true},
        {(void **)&m->nodes, &b->node_cap, m->node_count, sizeof *m->nodes, true},
        {(void **)&m->skins, &b->skin_cap, m->skin_count, sizeof *m->skins, true},
        {(void **)&m->animations, &b->animation_cap, m->animation_count, sizeof *m->animations, true},
        {(void **)&b->prims, &b->prim_cap, b->prim_count, sizeof *b->prims, false},
        {(void **)&b->targets, &b->target_cap, b->target_count, sizeof *b->targets, false},
        {(void **)&b->channels, &b->channel_cap, b->channel_count, sizeof *b->channels, false},
        {(void **)&b->link_order, &b->link_cap, m->node_count, sizeof *b->link_order, false},
    };
    memcpy(out, list, sizeof list);
}

/* Give back every growing array still in the allocator's memory (model arrays already moved are left). */
static void release_growing(mn_model_builder *b, bool lists_only)
{
    growing g[GROWING_COUNT];
    growing_arrays(b, g);
    for (uint32_t i = 0; i < GROWING_COUNT; i++) {
        if (*g[i].cap == 0 || (lists_only && g[i].model))
            continue;
        mni_free(heap(b), *g[i].slot, (size_t)*g[i].cap * g[i].elem);
        *g[i].slot = NULL;
        *g[i].cap = 0;
    }
}

/*
 * Move the model's arrays into its arena at their exact sizes, one at a
 * time (so the peak is the model plus the largest array once more); false
 * when out of memory, the arrays not yet moved left where they are.
 */
static bool settle_arrays(mn_model_builder *b)
{
    growing g[GROWING_COUNT];
    growing_arrays(b, g);
    for (uint32_t i = 0; i < GROWING_COUNT; i++) {
        if (!g[i].model || *g[i].cap == 0)
            continue;
        void *exact = NULL;
        if (g[i].count > 0) {
            if (!(exact = mni_arena_alloc(b->arena, (size_t)g[i].count * g[i].elem, 16)))
                return false;
            memcpy(exact, *g[i].slot, (size_t)g[i].count * g[i].elem);
        }
        mni_free(heap(b), *g[i].slot, (size_t)*g[i].cap * g[i].elem);
        *g[i].slot = exact;
        *g[i].cap = 0;
    }
    return true;
}

/* An arena copy of s (NULL stays NULL); false (error set) when out of memory. */
static bool copy_string(mn_model_builder *b, const char *s, const char **out, const char *path)
{
    *out = NULL;
    if (!s)
        return true;
    if (!(*out = mni_arena_strndup(b->arena, s, strlen(s)))) {
        oom(b, path, NULL);
        return false;
    }
    return true;
}

/* name, or "<prefix><index>" as the reader names an unnamed element (*made then true). */
static bool name_or_default(mn_model_builder *b, const char *name, const char *prefix, uint32_t index,
                            const char **out, bool *made, const char *path)
{
    char text[32];
    *made = name == NULL;
    if (!name) {
        snprintf(text, sizeof text, "%s%u", prefix, index);
        name = text;
    }
    return copy_string(b, name, out, path);
}

static bool in_range(mn_model_builder *b, uint32_t index, uint32_t count, bool optional, const char *what,
                     const char *path)
{
    if ((optional && index == MN_NONE) || index < count)
        return true;
    fail(b, MN_INDEX_RANGE, path, "%s %u is out of range (the model has %u)", what, index, count);
    return false;
}

/* ---- the builder ------------------------------------------------------------------------------------ */

mn_model_builder *mn_model_build_begin(const mn_allocator *allocator)
{
    mn_allocator none;
    memset(&none, 0, sizeof none);
    mn_model *m = mni_model_create(allocator ? allocator : &none);
    if (!m)
        return NULL;
    mn_arena *arena = &m->priv->arena;
    mn_model_builder *b = mni_arena_calloc(arena, 1, sizeof *b, _Alignof(mn_model_builder));
    if (!b) {
        mn_model_free(m);
        return NULL;
    }
    b->model = m;
    b->arena = arena;
    mni_error_clear(&b->err);
    m->version = "2.0";
    m->generator = "marionette " MN_VERSION_STRING;
    return b;
}

void mn_model_build_discard(mn_model_builder *builder)
{
    if (!builder)
        return;
    release_growing(builder, false);
    mn_model_free(builder->model);   /* the builder lives in the model's arena */
}

mn_status mn_model_build_status(const mn_model_builder *builder)
{
    return builder ? builder->err.code : MN_OUT_OF_MEMORY;
}

/* ---- accessors ---------------------------------------------------------------------------------------- */

uint32_t mni_model_build_accessor_place(mn_model_builder *b, const char *name, uint32_t count,
                                       mn_accessor_type type, mn_component component, void **data)
{
    *data = NULL;
    if (!live(b))
        return MN_NONE;
    mn_model *m = b->model;
    char path[40];
    snprintf(path, sizeof path, "accessors[%u]", m->accessor_count);
    uint32_t comps = mn_accessor_components(type);
    uint32_t csize = mn_component_size(component);
    if (comps == 0 || count == 0 || csize == 0)
        return fail(b, MN_INVALID_ARGUMENT, path, "an accessor needs a valid type, data and at least one element");
    if (comps > 4 && component != MN_COMPONENT_F32 && component != MN_COMPONENT_U32)
        return fail(b, MN_INVALID_ARGUMENT, path, "16-bit matrices are not built (their columns are padded)");
    if (!grow(b, &m->accessors, m->accessor_count, &b->accessor_cap, sizeof *m->accessors, path))
        return MN_NONE;
    size_t elements, bytes;
    if (!mni_checked_mul(count, comps, &elements) || !mni_checked_mul(elements, csize, &bytes) ||
        (uint64_t)bytes > ((uint64_t)1 << 40))
        return fail(b, MN_OVERFLOW, path, "%u elements are too many", count);
    uint8_t *place = mni_arena_alloc(b->arena, bytes, 16);
    if (!place)
        return oom(b, path, "%zu bytes", bytes);
    mn_accessor *a = &m->accessors[m->accessor_count];
    memset(a, 0, sizeof *a);
    if (!copy_string(b, name, &a->name, path))
        return MN_NONE;
    a->data = place;
    a->count = count;
    a->component = component;
    a->type = type;
    a->stride = comps * csize;
    a->buffer_view = MN_NONE;
    *data = place;
    return m->accessor_count++;
}

uint32_t mni_model_build_accessor_seal(mn_model_builder *b, uint32_t accessor)
{
    if (!live(b) || !in_range(b, accessor, b->model->accessor_count, false, "accessor", "accessors"))
        return MN_NONE;
    mn_accessor *a = &b->model->accessors[accessor];
    char path[40];
    snprintf(path, sizeof path, "accessors[%u]", accessor);
    uint32_t comps = mn_accessor_components(a->type);
    const uint8_t *data = a->data;
    /* min/max as the writer prints them and the reader reads them back: each component's float value. */
    for (uint32_t k = 0; k < comps; k++) {
        a->min[k] = INFINITY;
        a->max[k] = -INFINITY;
    }
    for (size_t i = 0; i < (size_t)a->count * comps; i++) {
        float v;
        if (a->component == MN_COMPONENT_F32)
            memcpy(&v, data + 4 * i, 4);
        else if (a->component == MN_COMPONENT_U32)
            v = (float)((const uint32_t *)(const void *)data)[i];
        else
            v = (float)((const uint16_t *)(const void *)data)[i];
        if (!isfinite(v))
            return fail(b, MN_NOT_FINITE, path, "element %zu component %zu is not finite", i / comps, i % comps);
        uint32_t k = (uint32_t)(i % comps);
        a->min[k] = fminf(a->min[k], v);
        a->max[k] = fmaxf(a->max[k], v);
    }
    a->has_bounds = true;
    return accessor;
}

static uint32_t add_accessor(mn_model_builder *b, const char *name, const void *data, uint32_t count,
                             mn_accessor_type type, mn_component component)
{
    if (live(b) && !data) {
        char path[40];
        snprintf(path, sizeof path, "accessors[%u]", b->model->accessor_count);
        return fail(b, MN_INVALID_ARGUMENT, path, "an accessor needs a valid type, data and at least one element");
    }
    void *place;
    uint32_t index = mni_model_build_accessor_place(b, name, count, type, component, &place);
    if (index == MN_NONE)
        return MN_NONE;
    const mn_accessor *a = &b->model->accessors[index];
    memcpy(place, data, (size_t)a->count * mn_accessor_components(a->type) * mn_component_size(a->component));
    return mni_model_build_accessor_seal(b, index);
}

uint32_t mn_model_build_accessor_f32(mn_model_builder *builder, const char *name, const float *data,
                                     uint32_t count, mn_accessor_type type)
{
    return add_accessor(builder, name, data, count, type, MN_COMPONENT_F32);
}

uint32_t mn_model_build_accessor_u32(mn_model_builder *builder, const char *name, const uint32_t *data,
                                     uint32_t count, mn_accessor_type type)
{
    return add_accessor(builder, name, data, count, type, MN_COMPONENT_U32);
}

uint32_t mn_model_build_accessor_u16(mn_model_builder *builder, const char *name, const uint16_t *data,
                                     uint32_t count, mn_accessor_type type)
{
    return add_accessor(builder, name, data, count, type, MN_COMPONENT_U16);
}

/* ---- materials, images, samplers, textures ---------------------------------------------------------------- */

static mn_texture_ref empty_texture_ref(void)
{
    mn_texture_ref r;
    memset(&r, 0, sizeof r);
    r.texture = MN_NONE;
    r.scale = 1.0f;
    r.uv_scale[0] = r.uv_scale[1] = 1.0f;
    return r;
}

void mn_model_build_material_defaults(mn_material *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 4; i++)
        out->base_color[i] = 1.0f;
    out->metallic = out->roughness = 1.0f;
    out->base_color_texture = out->metallic_roughness_texture = out->normal_texture = out->occlusion_texture =
        out->emissive_texture = empty_texture_ref();
    out->emissive_strength = 1.0f;
    out->alpha_mode = MN_ALPHA_OPAQUE;
    out->alpha_cutoff = 0.5f;
}

static bool texture_ref_ok(mn_model_builder *b, const mn_texture_ref *r, const char *path)
{
    return in_range(b, r->texture, b->model->texture_count, true, "texture", path);
}

uint32_t mn_model_build_material(mn_model_builder *builder, const mn_material *material)
{
    mn_model_builder *b = builder;
    if (!live(b))
        return MN_NONE;
    mn_model *m = b->model;
    char path[40];
    snprintf(path, sizeof path, "materials[%u]", m->material_count);
    if (!material)
        return fail(b, MN_INVALID_ARGUMENT, path, "no material given");
    if (!texture_ref_ok(b, &material->base_color_texture, path) ||
        !texture_ref_ok(b, &material->metallic_roughness_texture, path) ||
        !texture_ref_ok(b, &material->normal_texture, path) || !texture_ref_ok(b, &material->occlusion_texture, path) ||
        !texture_ref_ok(b, &material->emissive_texture, path) ||
        !grow(b, &m->materials, m->material_count, &b->material_cap, sizeof *m->materials, path))
        return MN_NONE;
    mn_material *mat = &m->materials[m->material_count];
    *mat = *material;
    if (!name_or_default(b, material->name, "material", m->material_count, &mat->name, &mat->default_name, path) ||
        !copy_string(b, material->extras, &mat->extras, path))
        return MN_NONE;
    return m->material_count++;
}

/* The media type of an image file by its extension, NULL when unknown (as the reader guesses it). */
static const char *mime_of(const char *uri)
{
    static const struct { const char *ext, *mime; } table[] = {
        {".png", "image/png"}, {".jpg", "image/jpeg"}, {".jpeg", "image/jpeg"}, {".webp", "image/webp"},
        {".ktx2", "image/ktx2"},
    };
    size_t n = strlen(uri);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        size_t e = strlen(table[i].ext);
        if (n >= e) {
            bool same = true;
            for (size_t k = 0; k < e && same; k++) {
                char c = uri[n - e + k];
                same = (c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c) == table[i].ext[k];
            }
            if (same)
                return table[i].mime;
        }
    }
    return NULL;
}

uint32_t mn_model_build_image(mn_model_builder *builder, const char *name, const char *mime_type,
                              const char *uri, const void *data, size_t size)
{
    mn_model_builder *b = builder;
    if (!live(b))
        return MN_NONE;
    mn_model *m = b->model;
    char path[40];
    snprintf(path, sizeof path, "images[%u]", m->image_count);
    bool embedded = data && size > 0;
    if (!embedded && !uri)
        return fail(b, MN_INVALID_ARGUMENT, path, "an image needs a uri or its bytes");
    if (embedded && !mime_type)
        return fail(b, MN_INVALID_ARGUMENT, path, "an embedded image needs a mimeType");
    if (!grow(b, &m->images, m->image_count, &b->image_cap, sizeof *m->images, path))
        return MN_NONE;
    mn_image *img = &m->images[m->image_count];
    memset(img, 0, sizeof *img);
    img->buffer_view = MN_NONE;
    if (!mime_type && uri)
        mime_type = mime_of(uri);
    if (!copy_string(b, name, &img->name, path) || !copy_string(b, mime_type, &img->mime_type, path) ||
        !copy_string(b, embedded ? NULL : uri, &img->uri, path))
        return MN_NONE;
    if (embedded) {
        uint8_t *copy = mni_arena_alloc(b->arena, size, 16);
        if (!copy)
            return oom(b, path, "copying %zu bytes", size);
        memcpy(copy, data, size);
        img->data = copy;
        img->size = size;
    }
    return m->image_count++;
}

uint32_t mn_model_build_sampler(mn_model_builder *builder, uint32_t mag_filter, uint32_t min_filter,
                                uint32_t wrap_s, uint32_t wrap_t)
{
    mn_model_builder *b = builder;
    if (!live(b))
        return MN_NONE;
    mn_model *m = b->model;
    if (!grow(b, &m->samplers, m->sampler_count, &b->sampler_cap, sizeof *m->samplers, "samplers"))
        return MN_NONE;
    mn_sampler *s = &m->samplers[m->sampler_count];
    memset(s, 0, sizeof *s);
    s->mag_filter = mag_filter;
    s->min_filter = min_filter;
    s->wrap_s = wrap_s ? wrap_s : 10497u;
    s->wrap_t = wrap_t ? wrap_t : 10497u;
    return m->sampler_count++;
}

uint32_t mn_model_build_texture(mn_model_builder *builder, uint32_t image, uint32_t sampler)
{
    mn_model_builder *b = builder;
    if (!live(b))
        return MN_NONE;
    mn_model *m = b->model;
    char path[40];
    snprintf(path, sizeof path, "textures[%u]", m->texture_count);
    if (!in_range(b, image, m->image_count, false, "image", path) ||
        !in_range(b, sampler, m->sampler_count, true, "sampler", path) ||
        !grow(b, &m->textures, m->texture_count, &b->texture_cap, sizeof *m->textures, path))
        return MN_NONE;
    mn_texture *t = &m->textures[m->texture_count];
    memset(t, 0, sizeof *t);
    t->image = image;
    t->sampler = sampler;
    return m->texture_count++;
}

/* ---- meshes --------------------------------------------------------------------------------------------- */

uint32_t mn_model_build_mesh(mn_model_builder *builder, const char *name)
{
    mn_model_builder *b = builder;
    if (!live(b))
        return MN_NONE;
    mn_model *m = b->model;
    char path[40];
    snprintf(path, sizeof path, "meshes[%u]", m->mesh_count);
    if (!grow(b, &m->meshes, m->mesh_count, &b->mesh_cap, sizeof *m->meshes, path))
        return MN_NONE;
    mn_mesh *mesh = &m->meshes[m->mesh_count];
    memset(mesh, 0, sizeof *mesh);
    if (!copy_string(b, name, &mesh->name, path))
        return MN_NONE;
    return m->mesh_count++;
}

void mn_model_build_mesh_extras(mn_model_builder *builder, uint32_t mesh, const char *extras_json)
{
    mn_model_builder *b = builder;
    if (!live(b) || !in_range(b, mesh, b->model->mesh_count, false, "mesh", "meshes"))
        return;
    char path[40];
    snprintf(path, sizeof path, "meshes[%u].extras", mesh);
    copy_string(b, extras_json, &b->model->meshes[mesh].extras, path);
}

/* The accessor layouts core glTF allows for a semantic (what the builder makes: f32, u16, u32). */
static bool layout_ok(mn_semantic s, const mn_accessor *a)
{
    mn_accessor_type t = a->type;
    bool f32 = a->component == MN_COMPONENT_F32;
    switch (s) {
    case MN_SEMANTIC_POSITION:
    case MN_SEMANTIC_NORMAL: return f32 && t == MN_TYPE_VEC3;
    case MN_SEMANTIC_TANGENT: return f32 && t == MN_TYPE_VEC4;
    case MN_SEMANTIC_TEXCOORD: return f32 && t == MN_TYPE_VEC2;
    case MN_SEMANTIC_COLOR: return f32 && (t == MN_TYPE_VEC3 || t == MN_TYPE_VEC4);
    case MN_SEMANTIC_WEIGHTS: return f32 && t == MN_TYPE_VEC4;
    case MN_SEMANTIC_JOINTS: return a->component == MN_COMPONENT_U16 && t == MN_TYPE_VEC4;
    default: return true;
    }
}

/*
 * The model's copy of an attribute name: the common ones are one static
 * string shared by every primitive (a model of a million primitives keeps
 * no million copies of "POSITION"); NULL (error set) when out of memory.
 */
static const char *attribute_name(mn_model_builder *b, const char *name, const char *path)
{
    static const char *const common[] = {"POSITION", "NORMAL", "TANGENT", "TEXCOORD_0", "TEXCOORD_1",
                                         "COLOR_0", "JOINTS_0", "WEIGHTS_0"};
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
        if (strcmp(name, common[i]) == 0)
            return common[i];
    const char *copy;
    return copy_string(b, name, &copy, path) ? copy : NULL;
}

/* The largest value of an index accessor (u16 or u32 SCALAR). */
static uint32_t max_index(const mn_accessor *a)
{
    return (uint32_t)a->max[0];
}

uint32_t mn_model_build_primitive(mn_model_builder *builder, uint32_t mesh, mn_primitive_mode mode,
                                  const mn_build_attribute *attributes, uint32_t attribute_count, uint32_t indices,
                                  uint32_t material)
{
    mn_model_builder *b = builder;
    if (!live(b))
        return MN_NONE;
    mn_model *m = b->model;
    char path[64];
    if (!in_range(b, mesh, m->mesh_count, false, "mesh", "meshes"))
        return MN_NONE;
    snprintf(path, sizeof path, "meshes[%u].primitives[%u]", mesh, m->meshes[mesh].primitive_count);
    if ((unsigned)mode > MN_MODE_TRIANGLE_FAN)
        return fail(b, MN_INVALID_VALUE, path, "mode %u is not a glTF primitive mode", (unsigned)mode);
    if (mode == MN_MODE_TRIANGLE_STRIP || mode == MN_MODE_TRIANGLE_FAN)
        return fail(b, MN_INVALID_VALUE, path, "strips and fans are not built: give a triangle list");
    if (attribute_count == 0 || !attributes)
        return fail(b, MN_INVALID_ARGUMENT, path, "a primitive needs at least one attribute");
    if (!in_range(b, material, m->material_count, true, "material", path) ||
        !in_range(b, indices, m->accessor_count, true, "indices accessor", path) ||
        !grow(b, &b->prims, b->prim_count, &b->prim_cap, sizeof *b->prims, path))
        return MN_NONE;
    mn_primitive p;
    memset(&p, 0, sizeof p);
    p.mode = p.original_mode = mode;
    p.indices = indices;
    p.material = material;
    p.attributes = mni_arena_calloc(b->arena, attribute_count, sizeof *p.attributes, 16);
    if (!p.attributes)
        return oom(b, path, NULL);
    for (uint32_t i = 0; i < attribute_count; i++) {
        const mn_build_attribute *in = &attributes[i];
        mn_attribute *at = &p.attributes[i];
        if (!in->name || !in_range(b, in->accessor, m->accessor_count, false, "accessor", path))
            return in->name ? MN_NONE : fail(b, MN_INVALID_ARGUMENT, path, "attribute %u has no name", i);
        at->semantic = mni_semantic_parse(in->name, &at->set);
        at->accessor = in->accessor;
        const mn_accessor *a = &m->accessors[in->accessor];
        if (at->semantic == MN_SEMANTIC_INVALID)
            return fail(b, MN_INVALID_VALUE, path, "\"%.64s\" is not a glTF attribute name", in->name);
        if (!layout_ok(at->semantic, a))
            return fail(b, MN_INVALID_VALUE, path, "accessor %u does not suit a %.64s attribute", in->accessor,
                        in->name);
        for (uint32_t k = 0; k < i; k++)
            if (strcmp(p.attributes[k].name, in->name) == 0)
                return fail(b, MN_INVALID_VALUE, path, "attribute %.64s is given twice", in->name);
        if (i > 0 && a->count != m->accessors[p.attributes[0].accessor].count)
            return fail(b, MN_COUNT_MISMATCH, path, "%.64s has %u elements, %.64s %u", in->name, a->count,
                        p.attributes[0].name, m->accessors[p.attributes[0].accessor].count);
        if (!(at->name = attribute_name(b, in->name, path)))
            return MN_NONE;
        p.vertex_count = a->count;   /* every attribute has POSITION's count */
    }
    if (indices != MN_NONE) {
        const mn_accessor *a = &m->accessors[indices];
        if (a->type != MN_TYPE_SCALAR || (a->component != MN_COMPONENT_U16 && a->component != MN_COMPONENT_U32))
            return fail(b, MN_INVALID_VALUE, path, "indices accessor %u is not a SCALAR of u16 or u32", indices);
        if (max_index(a) >= p.vertex_count)
            return fail(b, MN_INDEX_RANGE, path, "index %u is out of range: the primitive has %u vertices",
                        max_index(a), p.vertex_count);
    }
    p.attribute_count = attribute_count;
    b->prims[b->prim_count].mesh = mesh;
    b->prims[b->prim_count].primitive = p;
    b->prim_count++;
    return m->meshes[mesh].primitive_count++;
}

/* The built primitive `primitive` of `mesh`, NULL when there is none. */
static built_primitive *find_primitive(mn_model_builder *b, uint32_t mesh, uint32_t primitive)
{
    uint32_t seen = 0;
    for (uint32_t i = 0; i < b->prim_count; i++)
        if (b->prims[i].mesh == mesh && seen++ == primitive)
            return &b->prims[i];
    return NULL;
}

uint32_t mn_model_build_morph_target(mn_model_builder *builder, uint32_t mesh, uint32_t primitive,
                                     uint32_t position, uint32_t normal, uint32_t tangent)
{
    mn_model_builder *b = builder;
    if (!live(b))
        return MN_NONE;
    mn_model *m = b->model;
    char path[80];
    if (!in_range(b, mesh, m->mesh_count, false, "mesh", "meshes"))
        return MN_NONE;
    built_primitive *bp = find_primitive(b, mesh, primitive);
    snprintf(path, sizeof path, "meshes[%u].primitives[%u].targets", mesh, primitive);
    if (!bp)
        return fail(b, MN_INDEX_RANGE, path, "the mesh has no primitive %u", primitive);
    const uint32_t accessors[3] = {position, normal, tangent};
    for (int k = 0; k < 3; k++) {
        if (!in_range(b, accessors[k], m->accessor_count, true, "accessor", path))
            return MN_NONE;
        if (accessors[k] == MN_NONE)
            continue;
        const mn_accessor *a = &m->accessors[accessors[k]];
        if (a->component != MN_COMPONENT_F32 || a->type != MN_TYPE_VEC3 || a->count != bp->primitive.vertex_count)
            return fail(b, MN_INVALID_VALUE, path,
                        "accessor %u must be f32 VEC3 with one element per vertex (%u)", accessors[k],
                        bp->primitive.vertex_count);
    }
    if (!grow(b, &b->targets, b->target_count, &b->target_cap, sizeof *b->targets, path))
        return MN_NONE;
    built_target *t = &b->targets[b->target_count++];
    t->mesh = mesh;
    t->primitive = primitive;
    t->target.position = position;
    t->target.normal = normal;
    t->target.tangent = tangent;
    return bp->primitive.target_count++;
}

/* ---- nodes and skins -------------------------------------------------------------------------------------- */

uint32_t mn_model_build_node(mn_model_builder *builder, const char *name, uint32_t parent)
{
    mn_model_builder *b = builder;
    if (!live(b))
        return MN_NONE;
    mn_model *m = b->model;
    char path[40];
    snprintf(path, sizeof path, "nodes[%u]", m->node_count);
    if (!in_range(b, parent, m->node_count, true, "parent node", path) ||
        !grow(b, &m->nodes, m->node_count, &b->node_cap, sizeof *m->nodes, path) ||
        !grow(b, &b->link_order, m->node_count, &b->link_cap, sizeof *b->link_order, path))
        return MN_NONE;
    b->link_order[m->node_count] = b->links++;
    mn_node *n = &m->nodes[m->node_count];
    memset(n, 0, sizeof *n);
    n->parent = parent;
    n->mesh = n->skin = n->camera = n->light = MN_NONE;
    n->instance_translation = n->instance_rotation = n->instance_scale = MN_NONE;
    n->rotation[3] = 1.0f;
    n->scale[0] = n->scale[1] = n->scale[2] = 1.0f;
    if (!name_or_default(b, name, "node", m->node_count, &n->name, &n->default_name, path))
        return MN_NONE;
    return m->node_count++;
}

void mn_model_build_node_parent(mn_model_builder *builder, uint32_t node, uint32_t parent)
{
    mn_model_builder *b = builder;
    if (!live(b) || !in_range(b, node, b->model->node_count, false, "node", "nodes"))
        return;
    char path[40];
    snprintf(path, sizeof path, "nodes[%u]", node);
    if (!in_range(b, parent, b->model->node_count, true, "parent node", path))
        return;
    if (parent == node) {
        fail(b, MN_HIERARCHY, path, "node %u cannot be its own parent", node);
        return;
    }
    b->model->nodes[node].parent = parent;
    b->link_order[node] = b->links++;
}

static bool all_finite(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

void mn_model_build_node_trs(mn_model_builder *builder, uint32_t node, const float translation[3],
                             const float rotation[4], const float scale[3])
{
    mn_model_builder *b = builder;
    if (!live(b) || !in_range(b, node, b->model->node_count, false, "node", "nodes"))
        return;
    char path[40];
    snprintf(path, sizeof path, "nodes[%u]", node);
    mn_node *n = &b->model->nodes[node];
    if ((translation && !all_finite(translation, 3)) || (rotation && !all_finite(rotation, 4)) ||
        (scale && !all_finite(scale, 3))) {
        fail(b, MN_NOT_FINITE, path, "a translation, rotation or scale component is not finite");
        return;
    }
    if (translation)
        memcpy(n->translation, translation, sizeof n->translation);
    if (rotation) {
        float len2 = rotation[0] * rotation[0] + rotation[1] * rotation[1] + rotation[2] * rotation[2] +
                     rotation[3] * rotation[3];
        if (!(len2 > 0.0f)) {
            fail(b, MN_INVALID_VALUE, path, "the rotation quaternion has length 0");
            return;
        }
        mn_quat_normalize(n->rotation, rotation);
    }
    if (scale)
        memcpy(n->scale, scale, sizeof n->scale);
}

void mn_model_build_node_mesh(mn_model_builder *builder, uint32_t node, uint32_t mesh, uint32_t skin)
{
    mn_model_builder *b = builder;
    if (!live(b) || !in_range(b, node, b->model->node_count, false, "node", "nodes"))
        return;
    char path[40];
    snprintf(path, sizeof path, "nodes[%u]", node);
    if (!in_range(b, mesh, b->model->mesh_count, false, "mesh", path) ||
        !in_range(b, skin, b->model->skin_count, true, "skin", path))
        return;
    b->model->nodes[node].mesh = mesh;
    b->model->nodes[node].skin = skin;
}

void mn_model_build_node_extras(mn_model_builder *builder, uint32_t node, const char *extras_json)
{
    mn_model_builder *b = builder;
    if (!live(b) || !in_range(b, node, b->model->node_count, false, "node", "nodes"))
        return;
    char path[40];
    snprintf(path, sizeof path, "nodes[%u].extras", node);
    copy_string(b, extras_json, &b->model->nodes[node].extras, path);
}

uint32_t mn_model_build_skin(mn_model_builder *builder, const char *name, const uint32_t *joints,
                             uint32_t joint_count, const float *inverse_bind, uint32_t skeleton)
{
    mn_model_builder *b = builder;
    if (!live(b))
        return MN_NONE;
    mn_model *m = b->model;
    char path[40];
    snprintf(path, sizeof path, "skins[%u]", m->skin_count);
    if (joint_count == 0 || !joints)
        return fail(b, MN_INVALID_ARGUMENT, path, "a skin needs at least one joint");
    for (uint32_t i = 0; i < joint_count; i++)
        if (!in_range(b, joints[i], m->node_count, false, "joint node", path))
            return MN_NONE;
    if (!in_range(b, skeleton, m->node_count, true, "skeleton node", path) ||
        !grow(b, &m->skins, m->skin_count, &b->skin_cap, sizeof *m->skins, path))
        return MN_NONE;
    if (inverse_bind && !all_finite(inverse_bind, (size_t)joint_count * 16))
        return fail(b, MN_NOT_FINITE, path, "an inverse bind matrix is not finite");
    mn_skin *s = &m->skins[m->skin_count];
    memset(s, 0, sizeof *s);
    uint32_t *j = mni_arena_alloc(b->arena, (size_t)joint_count * sizeof *j, 16);
    float *ib = mni_arena_alloc(b->arena, (size_t)joint_count * 16 * sizeof *ib, 16);
    if (!j || !ib || !copy_string(b, name, &s->name, path))
        return oom(b, path, NULL);
    memcpy(j, joints, (size_t)joint_count * sizeof *j);
    for (uint32_t i = 0; i < joint_count; i++) {
        if (inverse_bind)
            memcpy(&ib[16 * (size_t)i], &inverse_bind[16 * (size_t)i], 16 * sizeof *ib);
        else
            mn_mat4_identity(&ib[16 * (size_t)i]);
    }
    s->joints = j;
    s->joint_count = joint_count;
    s->inverse_bind = ib;
    s->skeleton = skeleton;
    return m->skin_count++;
}

/* ---- animations ------------------------------------------------------------------------------------------- */

uint32_t mn_model_build_animation(mn_model_builder *builder, const char *name, const char *extras_json)
{
    mn_model_builder *b = builder;
    if (!live(b))
        return MN_NONE;
    mn_model *m = b->model;
    char path[40];
    snprintf(path, sizeof path, "animations[%u]", m->animation_count);
    if (!grow(b, &m->animations, m->animation_count, &b->animation_cap, sizeof *m->animations, path))
        return MN_NONE;
    mn_animation *a = &m->animations[m->animation_count];
    memset(a, 0, sizeof *a);
    if (!name_or_default(b, name, "anim", m->animation_count, &a->name, &a->default_name, path) ||
        !copy_string(b, extras_json, &a->extras, path))
        return MN_NONE;
    return m->animation_count++;
}

/* Morph targets of primitive 0 of a mesh (what a weights channel drives). */
static uint32_t mesh_targets(const mn_model_builder *b, uint32_t mesh)
{
    for (uint32_t i = 0; i < b->prim_count; i++)
        if (b->prims[i].mesh == mesh)
            return b->prims[i].primitive.target_count;
    return 0;
}

/* The float copy of n values, or the previous channel's times of the animation when they are equal. */
static const float *keep_floats(mn_model_builder *b, uint32_t animation, const float *v, size_t n, bool times)
{
    if (times && b->channel_count > 0) {
        const mn_channel *prev = &b->channels[b->channel_count - 1].channel;
        if (b->channels[b->channel_count - 1].animation == animation && prev->key_count == n &&
            memcmp(prev->times, v, n * sizeof *v) == 0)
            return prev->times;
    }
    float *copy = mni_arena_alloc(b->arena, n * sizeof *copy, 16);
    if (copy)
        memcpy(copy, v, n * sizeof *copy);
    return copy;
}

uint32_t mn_model_build_channel(mn_model_builder *builder, uint32_t animation, uint32_t node, mn_anim_path path,
                                mn_interpolation interpolation, const float *times, const float *values,
                                uint32_t key_count)
{
    mn_model_builder *b = builder;
    if (!live(b))
        return MN_NONE;
    mn_model *m = b->model;
    char at[64];
    if (!in_range(b, animation, m->animation_count, false, "animation", "animations"))
        return MN_NONE;
    snprintf(at, sizeof at, "animations[%u].channels[%u]", animation, m->animations[animation].channel_count);
    if (!in_range(b, node, m->node_count, false, "node", at))
        return MN_NONE;
    if ((unsigned)path > MN_PATH_WEIGHTS || (unsigned)interpolation > MN_INTERP_CUBICSPLINE)
        return fail(b, MN_INVALID_VALUE, at, "the path or interpolation is not one glTF has");
    if (key_count == 0 || !times || !values)
        return fail(b, MN_INVALID_ARGUMENT, at, "a channel needs at least one key");
    uint32_t components = path == MN_PATH_ROTATION ? 4 : 3;
    if (path == MN_PATH_WEIGHTS) {
        components = m->nodes[node].mesh != MN_NONE ? mesh_targets(b, m->nodes[node].mesh) : 0;
        if (components == 0)
            return fail(b, MN_INVALID_VALUE, at, "node %u has no mesh with morph targets to weight", node);
    }
    for (uint32_t k = 0; k < key_count; k++) {
        if (!isfinite(times[k]))
            return fail(b, MN_NOT_FINITE, at, "key time %u is not finite", k);
        if (k == 0 && times[0] < 0.0f)
            return fail(b, MN_INVALID_VALUE, at, "key 0 is at %g s; glTF requires key times of 0 or more",
                        (double)times[0]);
        if (k > 0 && !(times[k] > times[k - 1]))
            return fail(b, MN_INVALID_VALUE, at,
                        "key %u is at %g s, not after key %u at %g s; glTF requires strictly increasing key "
                        "times",
                        k, (double)times[k], k - 1, (double)times[k - 1]);
    }
    size_t n = (size_t)key_count * components * (interpolation == MN_INTERP_CUBICSPLINE ? 3u : 1u);
    if (!all_finite(values, n))
        return fail(b, MN_NOT_FINITE, at, "a key value is not finite");
    if (!grow(b, &b->channels, b->channel_count, &b->channel_cap, sizeof *b->channels, at))
        return MN_NONE;
    mn_channel ch;
    memset(&ch, 0, sizeof ch);
    ch.node = node;
    ch.path = path;
    ch.interpolation = interpolation;
    ch.key_count = key_count;
    ch.components = components;
    ch.times = keep_floats(b, animation, times, key_count, true);
    ch.values = keep_floats(b, animation, values, n, false);
    if (!ch.times || !ch.values)
        return oom(b, at, "copying the keys");
    b->channels[b->channel_count].animation = animation;
    b->channels[b->channel_count].channel = ch;
    b->channel_count++;
    return m->animations[animation].channel_count++;
}

/* ---- finishing ----------------------------------------------------------------------------------------------- */

/* Gather the flat primitive, target and channel lists into their owners' arrays. */
static bool gather(mn_model_builder *b)
{
    mn_model *m = b->model;
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        mn_mesh *mesh = &m->meshes[i];
        mesh->primitives = mni_arena_calloc(b->arena, mesh->primitive_count + 1u, sizeof *mesh->primitives, 16);
        if (!mesh->primitives)
            return false;
        mesh->primitive_count = 0;
    }
    for (uint32_t i = 0; i < b->prim_count; i++) {
        mn_mesh *mesh = &m->meshes[b->prims[i].mesh];
        mn_primitive *p = &mesh->primitives[mesh->primitive_count++];
        *p = b->prims[i].primitive;
        if (p->target_count && !(p->targets = mni_arena_calloc(b->arena, p->target_count, sizeof *p->targets, 16)))
            return false;
        p->target_count = 0;
    }
    for (uint32_t i = 0; i < b->target_count; i++) {
        mn_primitive *p = &m->meshes[b->targets[i].mesh].primitives[b->targets[i].primitive];
        p->targets[p->target_count++] = b->targets[i].target;
    }
    for (uint32_t i = 0; i < m->animation_count; i++) {
        mn_animation *a = &m->animations[i];
        a->channels = mni_arena_calloc(b->arena, a->channel_count + 1u, sizeof *a->channels, 16);
        if (!a->channels)
            return false;
        a->channel_count = 0;
    }
    for (uint32_t i = 0; i < b->channel_count; i++) {
        mn_animation *a = &m->animations[b->channels[i].animation];
        const mn_channel *ch = &b->channels[i].channel;
        a->channels[a->channel_count++] = *ch;
        if (ch->times[ch->key_count - 1] > a->duration)
            a->duration = ch->times[ch->key_count - 1];
    }
    return true;
}

/* Mesh weights (zeros, one per target of primitive 0), and every primitive with as many targets. */
static mn_status mesh_weights(mn_model_builder *b)
{
    mn_model *m = b->model;
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        mn_mesh *mesh = &m->meshes[i];
        char path[40];
        snprintf(path, sizeof path, "meshes[%u]", i);
        if (mesh->primitive_count == 0)
            return fail(b, MN_INVALID_ARGUMENT, path, "a mesh needs at least one primitive");
        uint32_t targets = mesh->primitives[0].target_count;
        for (uint32_t p = 1; p < mesh->primitive_count; p++)
            if (mesh->primitives[p].target_count != targets)
                return fail_st(b, MN_COUNT_MISMATCH, path, "primitive %u has %u morph targets, primitive 0 %u", p,
                            mesh->primitives[p].target_count, targets);
        mesh->weight_count = targets;
        if (!(mesh->weights = mni_arena_calloc(b->arena, targets + 1u, sizeof(float), 16)))
            return fail_st(b, MN_OUT_OF_MEMORY, path, NULL);
    }
    return MN_OK;
}

/* Every JOINTS_n of a skinned node's mesh stays below its skin's joint count (the reader's check). */
static mn_status check_joints(mn_model_builder *b)
{
    mn_model *m = b->model;
    for (uint32_t n = 0; n < m->node_count; n++) {
        const mn_node *node = &m->nodes[n];
        if (node->mesh == MN_NONE || node->skin == MN_NONE)
            continue;
        const mn_mesh *mesh = &m->meshes[node->mesh];
        for (uint32_t p = 0; p < mesh->primitive_count; p++)
            for (uint32_t a = 0; a < mesh->primitives[p].attribute_count; a++) {
                const mn_attribute *at = &mesh->primitives[p].attributes[a];
                const mn_accessor *acc = &m->accessors[at->accessor];
                uint32_t joints = m->skins[node->skin].joint_count;
                if (at->semantic != MN_SEMANTIC_JOINTS)
                    continue;
                for (uint32_t k = 0; k < 4; k++)
                    if (acc->max[k] >= (float)joints) {
                        char path[80];
                        snprintf(path, sizeof path, "meshes[%u].primitives[%u].attributes", node->mesh, p);
                        return fail_st(b, MN_INDEX_RANGE, path,
                                    "joint index %g is out of range: nodes[%u] skins it with skins[%u] (%u joints)",
                                    (double)acc->max[k], n, node->skin, joints);
                    }
            }
    }
    return MN_OK;
}

/* MN_HIERARCHY when following parents from some node comes back to it (walk marks as the reader's). */
static mn_status check_cycles(mn_model_builder *b, uint32_t *walk)
{
    mn_model *m = b->model;
    memset(walk, 0, (size_t)m->node_count * sizeof *walk);
    for (uint32_t start = 0; start < m->node_count; start++) {
        uint32_t n = start;
        while (n != MN_NONE && walk[n] == 0) {
            walk[n] = start + 1;
            n = m->nodes[n].parent;
        }
        if (n != MN_NONE && walk[n] == start + 1) {
            char path[40];
            snprintf(path, sizeof path, "nodes[%u]", n);
            return fail_st(b, MN_HIERARCHY, path, "the parents form a cycle through node %u", n);
        }
    }
    return MN_OK;
}

/* Children listed in the order they were linked to their parent. */
static void sort_children(mn_model_builder *b, mn_node *n)
{
    for (uint32_t i = 1; i < n->child_count; i++) {
        uint32_t c = n->children[i], k = i;
        for (; k > 0 && b->link_order[n->children[k - 1]] > b->link_order[c]; k--)
            n->children[k] = n->children[k - 1];
        n->children[k] = c;
    }
}

/* Children from parents, node_order parents first, one scene of every root. */
static mn_status hierarchy(mn_model_builder *b)
{
    mn_model *m = b->model;
    if (m->node_count == 0)
        return MN_OK;
    uint32_t roots = 0;
    for (uint32_t i = 0; i < m->node_count; i++) {
        if (m->nodes[i].parent == MN_NONE)
            roots++;
        else
            m->nodes[m->nodes[i].parent].child_count++;
    }
    uint32_t *order = mni_arena_alloc(b->arena, (size_t)m->node_count * sizeof *order, 16);
    uint32_t *stack = mni_arena_alloc(b->arena, (size_t)m->node_count * sizeof *stack, 16);
    uint32_t *root_list = mni_arena_alloc(b->arena, (size_t)roots * sizeof *root_list, 16);
    m->scenes = mni_arena_calloc(b->arena, 1, sizeof *m->scenes, 16);
    if (!order || !stack || !root_list || !m->scenes)
        return fail_st(b, MN_OUT_OF_MEMORY, "nodes", NULL);
    if (check_cycles(b, stack) != MN_OK)
        return b->err.code;
    for (uint32_t i = 0; i < m->node_count; i++) {
        mn_node *n = &m->nodes[i];
        if (n->child_count && !(n->children = mni_arena_alloc(b->arena, (size_t)n->child_count * sizeof(uint32_t), 16)))
            return fail_st(b, MN_OUT_OF_MEMORY, "nodes", NULL);
        n->child_count = 0;
    }
    roots = 0;
    for (uint32_t i = 0; i < m->node_count; i++) {
        uint32_t parent = m->nodes[i].parent;
        if (parent == MN_NONE)
            root_list[roots++] = i;
        else
            m->nodes[parent].children[m->nodes[parent].child_count++] = i;
    }
    for (uint32_t i = 0; i < m->node_count; i++)
        sort_children(b, &m->nodes[i]);
    /* Depth-first from each root in index order, children in their listed order (the reader's order). */
    uint32_t done = 0;
    for (uint32_t r = 0; r < roots; r++) {
        size_t top = 0;
        stack[top++] = root_list[r];
        while (top > 0) {
            uint32_t i = stack[--top];
            order[done++] = i;
            for (uint32_t c = m->nodes[i].child_count; c-- > 0;)
                stack[top++] = m->nodes[i].children[c];
        }
    }
    m->node_order = order;
    m->scenes[0].nodes = root_list;
    m->scenes[0].node_count = roots;
    m->scene_count = 1;
    m->scene = 0;
    return MN_OK;
}

mn_status mn_model_build_finish(mn_model_builder *builder, mn_model **out_model, mn_error *err)
{
    if (out_model)
        *out_model = NULL;
    if (!builder)
        return mni_oom(err, "creating the model builder");
    mn_model_builder *b = builder;
    mn_model *m = b->model;
    if (!out_model)
        fail(b, MN_INVALID_ARGUMENT, "", "mn_model_build_finish needs out_model");
    if (live(b) && !settle_arrays(b))
        oom(b, "", "moving the model's arrays into its arena");
    if (live(b) && !gather(b))
        oom(b, "", "gathering the model");
    if (live(b))
        mesh_weights(b);
    if (live(b))
        check_joints(b);
    if (live(b))
        hierarchy(b);
    release_growing(b, true);   /* the builder's own lists: gathered into the model now */
    if (live(b) && mni_model_compute_bounds(m, &m->priv->arena.allocator) != MN_OK)
        oom(b, "", "computing the bounds");
    if (!live(b)) {
        mn_error copy = b->err;
        release_growing(b, false);
        mn_model_free(m);
        if (err)
            *err = copy;
        return copy.code;
    }
    if (err)
        mni_error_clear(err);
    *out_model = m;
    return MN_OK;
}
