/*
 * Meshes: primitives with their attributes (checked against the accessor
 * types glTF and KHR_mesh_quantization allow for each semantic), indices,
 * material and mode; morph targets, default weights and target names.
 * Triangle strips and fans become triangle lists here, through a u32 index
 * accessor appended after the file's own accessors, so everything downstream
 * sees points, lines or triangle lists only.
 */
#include "gltf/internal.h"

#include <stdio.h>
#include <string.h>

/* ---- attribute names and types ---------------------------------------------------------- */

/* Which component layouts a semantic allows: in core glTF, and with KHR_mesh_quantization. */
typedef enum layout_ok {
    LAYOUT_NO = 0,
    LAYOUT_CORE,
    LAYOUT_QUANTIZED
} layout_ok;

static bool is_small_signed(mn_component c)
{
    return c == MN_COMPONENT_I8 || c == MN_COMPONENT_I16;
}

static bool is_small_unsigned(mn_component c)
{
    return c == MN_COMPONENT_U8 || c == MN_COMPONENT_U16;
}

static layout_ok component_allowed(mn_semantic s, bool target, const mn_accessor *a)
{
    mn_component c = a->component;
    bool n = a->normalized;
    if (c == MN_COMPONENT_F32)
        return s == MN_SEMANTIC_JOINTS ? LAYOUT_NO : LAYOUT_CORE;
    switch (s) {
    case MN_SEMANTIC_POSITION:
        return (is_small_signed(c) || (!target && is_small_unsigned(c))) ? LAYOUT_QUANTIZED : LAYOUT_NO;
    case MN_SEMANTIC_NORMAL:
    case MN_SEMANTIC_TANGENT:
        return is_small_signed(c) && n ? LAYOUT_QUANTIZED : LAYOUT_NO;
    case MN_SEMANTIC_TEXCOORD:
        if (is_small_unsigned(c) && n)
            return LAYOUT_CORE;
        return is_small_signed(c) || is_small_unsigned(c) ? LAYOUT_QUANTIZED : LAYOUT_NO;
    case MN_SEMANTIC_COLOR:
    case MN_SEMANTIC_WEIGHTS:
        return is_small_unsigned(c) && n ? LAYOUT_CORE : LAYOUT_NO;
    case MN_SEMANTIC_JOINTS:
        return is_small_unsigned(c) && !n ? LAYOUT_CORE : LAYOUT_NO;
    default:
        return LAYOUT_CORE;
    }
}

static bool type_allowed(mn_semantic s, bool target, mn_accessor_type t)
{
    switch (s) {
    case MN_SEMANTIC_POSITION:
    case MN_SEMANTIC_NORMAL: return t == MN_TYPE_VEC3;
    case MN_SEMANTIC_TANGENT: return t == (target ? MN_TYPE_VEC3 : MN_TYPE_VEC4);
    case MN_SEMANTIC_TEXCOORD: return t == MN_TYPE_VEC2;
    case MN_SEMANTIC_COLOR: return t == MN_TYPE_VEC3 || t == MN_TYPE_VEC4;
    case MN_SEMANTIC_JOINTS:
    case MN_SEMANTIC_WEIGHTS: return t == MN_TYPE_VEC4;
    default: return true;
    }
}

/* The accessor's type and components suit attribute `name` (of a morph target when target). */
static mn_status check_attribute(mn_gltf_reader *r, const char *name, mn_semantic s, bool target,
                                 uint32_t accessor)
{
    const mn_accessor *a = &r->model->accessors[accessor];
    if (!type_allowed(s, target, a->type))
        return mni_json_fail(&r->json, MN_INVALID_VALUE, NULL,
                             "accessor %u is %s, which a%s %s attribute cannot be", accessor,
                             mn_accessor_type_name(a->type), target ? " morph target" : "n", name);
    layout_ok ok = component_allowed(s, target, a);
    if (ok == LAYOUT_NO)
        return mni_json_fail(&r->json, MN_INVALID_VALUE, NULL,
                             "accessor %u holds %s%s components, which a%s %s attribute cannot use", accessor,
                             a->normalized ? "normalized " : "", mni_component_gltf_name(a->component),
                             target ? " morph target" : "n", name);
    if (ok == LAYOUT_QUANTIZED && !r->uses_quantization)
        return mni_json_fail(&r->json, MN_INVALID_VALUE, NULL,
                             "accessor %u holds %s%s components, which %s may use only with "
                             "KHR_mesh_quantization; add it to extensionsUsed",
                             accessor, a->normalized ? "normalized " : "", mni_component_gltf_name(a->component),
                             name);
    return MN_OK;
}

/* ---- primitives ------------------------------------------------------------------------------ */

static mn_status read_attributes(mn_gltf_reader *r, json_t *prim, mn_primitive *p)
{
    mn_json *j = &r->json;
    json_t *attrs;
    mn_status st = mni_json_object(j, prim, "attributes", true, &attrs);
    if (st != MN_OK)
        return st;
    size_t n = json_object_size(attrs);
    p->attributes = mni_gltf_alloc(r, n ? n : 1, sizeof *p->attributes, 16, true);
    if (!p->attributes)
        return MN_OUT_OF_MEMORY;
    size_t mark = mni_json_push_key(j, "attributes");
    const char *key;
    json_t *value;
    uint32_t count = 0, first_count = 0;
    const char *first_name = NULL;
    bool have_position = false;
    json_object_foreach(attrs, key, value) {
        mn_attribute *at = &p->attributes[count];
        size_t m2 = mni_json_push_key(j, key);
        if ((st = mni_json_index_value(j, value, r->file_accessor_count, "accessors", &at->accessor)) != MN_OK)
            return st;
        if (!(at->name = mni_arena_strndup(r->arena, key, strlen(key))))
            return mni_json_oom(j, NULL, NULL);
        at->semantic = mni_semantic_parse(key, &at->set);
        if (at->semantic == MN_SEMANTIC_INVALID) {
            /* Harmless: nothing reads an attribute it does not know. */
            at->semantic = MN_SEMANTIC_CUSTOM;
            if ((st = mni_gltf_warn(r, MN_INVALID_VALUE, NULL,
                                    "\"%.64s\" is not a glTF attribute name (application-specific names "
                                    "start with '_'); kept as a custom attribute",
                                    key)) != MN_OK)
                return st;
        }
        if ((st = check_attribute(r, key, at->semantic, false, at->accessor)) != MN_OK)
            return st;
        uint32_t c = r->model->accessors[at->accessor].count;
        if (at->semantic == MN_SEMANTIC_POSITION) {
            have_position = true;
            p->vertex_count = c;
        }
        if (!first_name) {
            first_name = at->name;
            first_count = c;
        } else if (c != first_count) {
            return mni_json_fail(j, MN_COUNT_MISMATCH, NULL,
                                 "accessor %u has %u elements, but %s has %u: every attribute of a primitive "
                                 "must have the same count",
                                 at->accessor, c, first_name, first_count);
        }
        mni_json_pop(j, m2);
        count++;
    }
    mni_json_pop(j, mark);
    p->attribute_count = count;
    if (!have_position)
        p->vertex_count = first_count;
    return MN_OK;
}

static mn_status read_target(mn_gltf_reader *r, json_t *obj, const mn_primitive *p, mn_morph_target *t)
{
    mn_json *j = &r->json;
    const char *key;
    json_t *value;
    t->position = t->normal = t->tangent = MN_NONE;
    json_object_foreach(obj, key, value) {
        uint32_t set, accessor;
        mn_semantic s = mni_semantic_parse(key, &set);
        uint32_t *slot = s == MN_SEMANTIC_POSITION ? &t->position
                         : s == MN_SEMANTIC_NORMAL ? &t->normal
                         : s == MN_SEMANTIC_TANGENT ? &t->tangent
                                                    : NULL;
        size_t mark = mni_json_push_key(j, key);
        mn_status st = mni_json_index_value(j, value, r->file_accessor_count, "accessors", &accessor);
        if (st != MN_OK)
            return st;
        if (!slot) {
            st = mni_gltf_warn(r, MN_INVALID_VALUE, NULL,
                               "morph target attribute %.64s is not read (only POSITION, NORMAL and TANGENT are)",
                               key);
            if (st != MN_OK)
                return st;
            mni_json_pop(j, mark);
            continue;
        }
        if ((st = check_attribute(r, key, s, true, accessor)) != MN_OK)
            return st;
        uint32_t c = r->model->accessors[accessor].count;
        if (c != p->vertex_count)
            return mni_json_fail(j, MN_COUNT_MISMATCH, NULL,
                                 "morph target accessor %u has %u elements, but the primitive's attributes "
                                 "have %u",
                                 accessor, c, p->vertex_count);
        *slot = accessor;
        mni_json_pop(j, mark);
    }
    return MN_OK;
}

static mn_status read_targets(mn_gltf_reader *r, json_t *prim, mn_primitive *p)
{
    mn_json *j = &r->json;
    json_t *arr;
    mn_status st = mni_json_array_count(j, prim, "targets", false, &arr, &p->target_count);
    if (st != MN_OK || p->target_count == 0)
        return st;
    p->targets = mni_gltf_alloc(r, p->target_count, sizeof *p->targets, 16, false);
    if (!p->targets)
        return MN_OUT_OF_MEMORY;
    size_t mark = mni_json_push_key(j, "targets");
    for (uint32_t i = 0; i < p->target_count; i++) {
        json_t *obj;
        size_t m2 = j->len;
        if ((st = mni_gltf_element(r, arr, i, &obj)) != MN_OK ||
            (st = read_target(r, obj, p, &p->targets[i])) != MN_OK)
            return st;
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    return MN_OK;
}

/* Little-endian index i of an index accessor (u8/u16/u32, stride honoured). */
static uint32_t index_at(const mn_accessor *a, uint32_t i)
{
    const uint8_t *p = a->data + (size_t)i * a->stride;
    switch (a->component) {
    case MN_COMPONENT_U8: return p[0];
    case MN_COMPONENT_U16: return (uint32_t)p[0] | (uint32_t)p[1] << 8;
    default: return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    }
}

/*
 * Turn a strip or fan into a list, as the specification's formulas say:
 * strip triangle i = (v[i], v[i+1+i%2], v[i+2-i%2]) so the winding alternates
 * back to one orientation; fan triangle i = (v[i+1], v[i+2], v[0]).
 * Degenerate triangles are kept (they draw nothing).
 */
static mn_status convert_strip_fan(mn_gltf_reader *r, mn_primitive *p)
{
    mn_model *m = r->model;
    const mn_accessor *src = p->indices != MN_NONE ? &m->accessors[p->indices] : NULL;
    uint32_t n = src ? src->count : p->vertex_count;
    if (src && !src->data)   /* a Draco primitive's indices, not decoded yet */
        return mni_json_fail(&r->json, MN_INVALID_VALUE, "indices",
                             "accessor %u holds Draco-compressed indices, which a strip or fan of another "
                             "primitive cannot use",
                             p->indices);
    uint32_t tris = n >= 3 ? n - 2 : 0;
    if (tris > UINT32_MAX / 3)
        return mni_json_fail(&r->json, MN_OVERFLOW, "mode", "%u triangles are too many to list", tris);
    mn_status st = mni_gltf_budget(r, (size_t)tris * 3 * sizeof(uint32_t), "the triangle list of this strip or fan");
    if (st != MN_OK)
        return st;
    uint32_t *out = mni_gltf_alloc(r, (size_t)tris * 3 + 1, sizeof(uint32_t), 16, false);
    if (!out)
        return MN_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < tris; i++) {
        uint32_t a, b, c;
        if (p->mode == MN_MODE_TRIANGLE_STRIP) {
            a = i;
            b = i + 1 + (i & 1);
            c = i + 2 - (i & 1);
        } else {
            a = i + 1;
            b = i + 2;
            c = 0;
        }
        out[3 * (size_t)i + 0] = src ? index_at(src, a) : a;
        out[3 * (size_t)i + 1] = src ? index_at(src, b) : b;
        out[3 * (size_t)i + 2] = src ? index_at(src, c) : c;
    }
    if (m->accessor_count >= r->accessor_capacity)
        return mni_json_fail(&r->json, MN_INVALID_VALUE, "mode", "internal: no room for a converted index list");
    mn_accessor *list = &m->accessors[m->accessor_count];
    memset(list, 0, sizeof *list);
    list->data = (const uint8_t *)out;
    list->count = tris * 3;
    list->stride = sizeof(uint32_t);
    list->component = MN_COMPONENT_U32;
    list->type = MN_TYPE_SCALAR;
    list->buffer_view = MN_NONE;
    p->indices = m->accessor_count++;
    p->mode = MN_MODE_TRIANGLES;
    return MN_OK;
}

static mn_status read_indices(mn_gltf_reader *r, json_t *prim, mn_primitive *p)
{
    mn_status st = mni_json_index(&r->json, prim, "indices", false, r->file_accessor_count, "accessors",
                                  &p->indices);
    if (st != MN_OK || p->indices == MN_NONE)
        return st;
    const mn_accessor *a = &r->model->accessors[p->indices];
    bool ok = a->type == MN_TYPE_SCALAR && !a->normalized &&
              (a->component == MN_COMPONENT_U8 || a->component == MN_COMPONENT_U16 ||
               a->component == MN_COMPONENT_U32);
    if (!ok)
        return mni_json_fail(&r->json, MN_INVALID_VALUE, "indices",
                             "accessor %u is %s%s %s; indices must be SCALAR UNSIGNED_BYTE, UNSIGNED_SHORT "
                             "or UNSIGNED_INT",
                             p->indices, a->normalized ? "normalized " : "", mn_accessor_type_name(a->type),
                             mni_component_gltf_name(a->component));
    return MN_OK;
}

static mn_status read_primitive(mn_gltf_reader *r, json_t *prim, mn_primitive *p, uint32_t mesh,
                                uint32_t index)
{
    mn_json *j = &r->json;
    uint32_t mode = MN_MODE_TRIANGLES;
    mn_status st;
    if ((st = read_attributes(r, prim, p)) != MN_OK || (st = read_indices(r, prim, p)) != MN_OK ||
        (st = mni_json_index(j, prim, "material", false, r->model->material_count, "materials",
                             &p->material)) != MN_OK ||
        (st = mni_json_u32(j, prim, "mode", false, 0, 6, &mode)) != MN_OK ||
        (st = read_targets(r, prim, p)) != MN_OK || (st = mni_gltf_read_variant_mappings(r, prim, p)) != MN_OK ||
        (st = mni_gltf_read_draco(r, prim, p, mode, mesh, index)) != MN_OK)
        return st;
    p->mode = p->original_mode = (mn_primitive_mode)mode;
    if (p->mode == MN_MODE_TRIANGLE_STRIP || p->mode == MN_MODE_TRIANGLE_FAN)
        return convert_strip_fan(r, p);
    return MN_OK;
}

/* ---- meshes ---------------------------------------------------------------------------------- */

/* extras.targetNames, when it is an array of one string per morph target. */
static mn_status read_target_names(mn_gltf_reader *r, json_t *obj, mn_mesh *mesh)
{
    json_t *extras = json_object_get(obj, "extras");
    json_t *names = json_is_object(extras) ? json_object_get(extras, "targetNames") : NULL;
    if (!names)
        return MN_OK;
    size_t n = json_is_array(names) ? json_array_size(names) : 0;
    bool ok = json_is_array(names) && n == mesh->weight_count;
    for (size_t i = 0; ok && i < n; i++)
        ok = json_is_string(json_array_get(names, i));
    if (!ok) {
        size_t mark = mni_json_push_key(&r->json, "extras");
        mn_status st = mni_gltf_warn(r, MN_INVALID_VALUE, "targetNames",
                                     "expected an array of %u strings (one per morph target); ignored",
                                     mesh->weight_count);
        mni_json_pop(&r->json, mark);
        return st;
    }
    if (n == 0)
        return MN_OK;
    mesh->target_names = mni_gltf_alloc(r, n, sizeof *mesh->target_names, 16, false);
    if (!mesh->target_names)
        return MN_OUT_OF_MEMORY;
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(names, i);
        if (!(mesh->target_names[i] = mni_arena_strndup(r->arena, json_string_value(s), json_string_length(s))))
            return mni_json_oom(&r->json, NULL, NULL);
    }
    return MN_OK;
}

static mn_status read_weights(mn_gltf_reader *r, json_t *obj, mn_mesh *mesh, uint32_t targets)
{
    mn_json *j = &r->json;
    json_t *arr;
    uint32_t n = 0;
    mn_status st = mni_json_array_count(j, obj, "weights", false, &arr, &n);
    if (st != MN_OK)
        return st;
    if (arr && n != targets)
        return mni_json_fail(j, MN_COUNT_MISMATCH, "weights",
                             "%u default weights for %u morph targets; there must be one per target", n,
                             targets);
    mesh->weight_count = targets;
    mesh->weights = mni_gltf_alloc(r, targets ? targets : 1, sizeof(float), 16, true);
    if (!mesh->weights)
        return MN_OUT_OF_MEMORY;
    if (arr)
        return mni_json_floats(j, obj, "weights", true, n, mesh->weights);
    return MN_OK;
}

static mn_status read_mesh(mn_gltf_reader *r, json_t *obj, uint32_t index)
{
    mn_json *j = &r->json;
    mn_mesh *mesh = &r->model->meshes[index];
    json_t *arr;
    mn_status st;
    if ((st = mni_json_string(j, obj, "name", false, &mesh->name)) != MN_OK ||
        (st = mni_json_array_count(j, obj, "primitives", true, &arr, &mesh->primitive_count)) != MN_OK ||
        (st = mni_json_extras(j, obj, &mesh->extras)) != MN_OK)
        return st;
    mesh->primitives = mni_gltf_alloc(r, mesh->primitive_count ? mesh->primitive_count : 1,
                                      sizeof *mesh->primitives, 16, true);
    if (!mesh->primitives)
        return MN_OUT_OF_MEMORY;
    size_t mark = mni_json_push_key(j, "primitives");
    for (uint32_t i = 0; i < mesh->primitive_count; i++) {
        json_t *prim;
        size_t m2 = j->len;
        mn_primitive *p = &mesh->primitives[i];
        if ((st = mni_gltf_element(r, arr, i, &prim)) != MN_OK ||
            (st = read_primitive(r, prim, p, index, i)) != MN_OK)
            return st;
        if (i > 0 && p->target_count != mesh->primitives[0].target_count)
            return mni_json_fail(j, MN_COUNT_MISMATCH, "targets",
                                 "%u morph targets, but primitive 0 has %u: every primitive of a mesh must "
                                 "have the same number",
                                 p->target_count, mesh->primitives[0].target_count);
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    uint32_t targets = mesh->primitive_count ? mesh->primitives[0].target_count : 0;
    if ((st = read_weights(r, obj, mesh, targets)) != MN_OK)
        return st;
    return read_target_names(r, obj, mesh);
}

mn_status mni_gltf_read_meshes(mn_gltf_reader *r)
{
    mn_status st = mni_gltf_read_array(r, "meshes", r->model->mesh_count, read_mesh);
    return st != MN_OK ? st : mni_gltf_check_draco_filled(r);
}

uint32_t mni_gltf_count_synth_accessors(json_t *root)
{
    json_t *meshes = json_object_get(root, "meshes");
    uint32_t n = 0;
    for (size_t i = 0; i < json_array_size(meshes); i++) {
        json_t *prims = json_object_get(json_array_get(meshes, i), "primitives");
        for (size_t k = 0; k < json_array_size(prims); k++) {
            json_t *mode = json_object_get(json_array_get(prims, k), "mode");
            json_int_t v = json_is_integer(mode) ? json_integer_value(mode) : 4;
            if ((v == MN_MODE_TRIANGLE_STRIP || v == MN_MODE_TRIANGLE_FAN) && n < UINT32_MAX / 2)
                n++;
        }
    }
    return n;
}
