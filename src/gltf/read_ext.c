/*
 * Four extensions that add to the scene rather than to its geometry's
 * bytes: KHR_lights_punctual (the root's lights, a node's light),
 * KHR_node_visibility (a node's "visible"), EXT_mesh_gpu_instancing (a
 * node's per-instance TRS accessors) and KHR_materials_variants (the root's
 * variant names, a primitive's mappings).  The root parts are read before
 * the materials, meshes and nodes that refer to them; every index is
 * checked where it is read, and every value against what the extension's
 * schema allows, the message naming the item.
 */
#include "gltf/internal.h"

#include <math.h>
#include <string.h>

#define HALF_PI 1.57079632679489662f

/* ---- KHR_lights_punctual ------------------------------------------------------------------ */

static mn_status read_spot(mn_gltf_reader *r, json_t *obj, mn_light *l)
{
    mn_json *j = &r->json;
    json_t *spot;
    mn_status st = mni_json_object(j, obj, "spot", true, &spot);
    if (st != MN_OK)
        return st;
    size_t mark = mni_json_push_key(j, "spot");
    if ((st = mni_json_float_min(j, spot, "innerConeAngle", false, 0.0f, &l->inner_cone_angle)) != MN_OK ||
        (st = mni_json_float(j, spot, "outerConeAngle", false, &l->outer_cone_angle)) != MN_OK)
        return st;
    if (!(l->outer_cone_angle > 0.0f && l->outer_cone_angle <= HALF_PI))
        return mni_json_fail(j, MN_INVALID_VALUE, "outerConeAngle",
                             "%g radians is not in (0, pi/2]: a spot light's outer cone angle must be",
                             (double)l->outer_cone_angle);
    if (!(l->inner_cone_angle < l->outer_cone_angle))
        return mni_json_fail(j, MN_INVALID_VALUE, "innerConeAngle",
                             "the inner cone angle %g is not below the outer cone angle %g",
                             (double)l->inner_cone_angle, (double)l->outer_cone_angle);
    mni_json_pop(j, mark);
    return MN_OK;
}

static mn_status read_light(mn_gltf_reader *r, json_t *obj, uint32_t index)
{
    mn_json *j = &r->json;
    mn_light *l = &r->model->lights[index];
    static const char *const TYPES[] = {"directional", "point", "spot"};
    int type = 0;
    mn_status st;
    l->color[0] = l->color[1] = l->color[2] = 1.0f;
    l->intensity = 1.0f;
    l->outer_cone_angle = 0.25f * 3.14159265358979f;
    if ((st = mni_json_string(j, obj, "name", false, &l->name)) != MN_OK ||
        (st = mni_json_enum(j, obj, "type", true, TYPES, 3, "a light type", &type)) != MN_OK ||
        (st = mni_json_floats(j, obj, "color", false, 3, l->color)) != MN_OK ||
        (st = mni_json_float_min(j, obj, "intensity", false, 0.0f, &l->intensity)) != MN_OK)
        return st;
    l->type = (mn_light_type)type;
    for (int k = 0; k < 3; k++)
        if (!(l->color[k] >= 0.0f && l->color[k] <= 1.0f))
            return mni_json_fail(j, MN_INVALID_VALUE, "color",
                                 "component %d is %g; a light's colour components lie in [0, 1]", k,
                                 (double)l->color[k]);
    /* A directional light has no range (the extension defines it for point and spot lights only). */
    if (l->type != MN_LIGHT_DIRECTIONAL && json_object_get(obj, "range")) {
        if ((st = mni_json_float(j, obj, "range", true, &l->range)) != MN_OK)
            return st;
        if (!(l->range > 0.0f))
            return mni_json_fail(j, MN_INVALID_VALUE, "range", "%g is not above 0: a light's range must be",
                                 (double)l->range);
    }
    return l->type == MN_LIGHT_SPOT ? read_spot(r, obj, l) : MN_OK;
}

static mn_status read_lights(mn_gltf_reader *r, json_t *ext)
{
    mn_model *m = r->model;
    json_t *arr;
    mn_status st = mni_json_array_count(&r->json, ext, "lights", false, &arr, &m->light_count);
    if (st != MN_OK || m->light_count == 0)
        return st;
    if (!(m->lights = mni_gltf_alloc(r, m->light_count, sizeof *m->lights, 16, true)))
        return MN_OUT_OF_MEMORY;
    size_t mark = mni_json_push_key(&r->json, "lights");
    for (uint32_t i = 0; i < m->light_count; i++) {
        json_t *obj;
        size_t m2 = r->json.len;
        if ((st = mni_gltf_element(r, arr, i, &obj)) != MN_OK || (st = read_light(r, obj, i)) != MN_OK)
            return st;
        mni_json_pop(&r->json, m2);
    }
    mni_json_pop(&r->json, mark);
    return MN_OK;
}

/* ---- KHR_materials_variants (the root) ---------------------------------------------------------- */

static mn_status read_variants(mn_gltf_reader *r, json_t *ext)
{
    mn_model *m = r->model;
    json_t *arr;
    mn_status st = mni_json_array_count(&r->json, ext, "variants", true, &arr, &m->variant_count);
    if (st != MN_OK || m->variant_count == 0)
        return st;
    if (!(m->variants = mni_gltf_alloc(r, m->variant_count, sizeof *m->variants, 16, false)))
        return MN_OUT_OF_MEMORY;
    size_t mark = mni_json_push_key(&r->json, "variants");
    for (uint32_t i = 0; i < m->variant_count; i++) {
        json_t *obj;
        size_t m2 = r->json.len;
        if ((st = mni_gltf_element(r, arr, i, &obj)) != MN_OK ||
            (st = mni_json_string(&r->json, obj, "name", true, &m->variants[i])) != MN_OK)
            return st;
        mni_json_pop(&r->json, m2);
    }
    mni_json_pop(&r->json, mark);
    return MN_OK;
}

/* The root's extensions object member `name`, read by fn with the path at it. */
static mn_status root_extension(mn_gltf_reader *r, const char *name, mn_status (*fn)(mn_gltf_reader *, json_t *))
{
    json_t *ext;
    mn_status st = mni_gltf_extension(r, r->root, name, &ext);
    if (st != MN_OK || !ext)
        return st;
    size_t mark = mni_json_push_key(&r->json, "extensions");
    mni_json_push_key(&r->json, name);
    st = fn(r, ext);
    mni_json_pop(&r->json, mark);
    return st;
}

mn_status mni_gltf_read_root_extensions(mn_gltf_reader *r)
{
    mn_status st = root_extension(r, "KHR_lights_punctual", read_lights);
    return st != MN_OK ? st : root_extension(r, "KHR_materials_variants", read_variants);
}

/* ---- KHR_materials_variants (a primitive) ---------------------------------------------------------- */

/* One mapping; `used` marks the variants earlier mappings of the primitive listed. */
static mn_status read_mapping(mn_gltf_reader *r, json_t *obj, mn_variant_mapping *map, uint8_t *used)
{
    mn_json *j = &r->json;
    mn_model *m = r->model;
    json_t *arr;
    mn_status st;
    if ((st = mni_json_index(j, obj, "material", true, m->material_count, "materials", &map->material)) != MN_OK ||
        (st = mni_json_string(j, obj, "name", false, &map->name)) != MN_OK ||
        (st = mni_json_array_count(j, obj, "variants", true, &arr, &map->variant_count)) != MN_OK)
        return st;
    if (map->variant_count == 0)
        return mni_json_fail(j, MN_INVALID_VALUE, "variants", "a mapping must list at least one variant");
    if (!(map->variants = mni_gltf_alloc(r, map->variant_count, sizeof(uint32_t), _Alignof(uint32_t), false)))
        return MN_OUT_OF_MEMORY;
    size_t mark = mni_json_push_key(j, "variants");
    for (uint32_t i = 0; i < map->variant_count; i++) {
        size_t m2 = mni_json_push_index(j, i);
        uint32_t v;
        if ((st = mni_json_index_value(j, json_array_get(arr, i), m->variant_count,
                                       "KHR_materials_variants variants", &v)) != MN_OK)
            return st;
        if (used[v])
            return mni_json_fail(j, MN_INVALID_VALUE, NULL,
                                 "variant %u (\"%.64s\") is mapped twice in this primitive; each variant picks "
                                 "one material",
                                 v, m->variants[v]);
        used[v] = 1;
        map->variants[i] = v;
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    return MN_OK;
}

static mn_status read_mappings(mn_gltf_reader *r, json_t *ext, mn_primitive *p, uint8_t *used)
{
    json_t *arr;
    mn_status st = mni_json_array_count(&r->json, ext, "mappings", true, &arr, &p->variant_mapping_count);
    if (st != MN_OK || p->variant_mapping_count == 0)
        return st;
    if (!(p->variant_mappings = mni_gltf_alloc(r, p->variant_mapping_count, sizeof *p->variant_mappings, 16, true)))
        return MN_OUT_OF_MEMORY;
    size_t mark = mni_json_push_key(&r->json, "mappings");
    for (uint32_t i = 0; i < p->variant_mapping_count; i++) {
        json_t *obj;
        size_t m2 = r->json.len;
        if ((st = mni_gltf_element(r, arr, i, &obj)) != MN_OK ||
            (st = read_mapping(r, obj, &p->variant_mappings[i], used)) != MN_OK)
            return st;
        mni_json_pop(&r->json, m2);
    }
    mni_json_pop(&r->json, mark);
    return MN_OK;
}

mn_status mni_gltf_read_variant_mappings(mn_gltf_reader *r, json_t *prim, mn_primitive *p)
{
    json_t *ext;
    mn_status st = mni_gltf_extension(r, prim, "KHR_materials_variants", &ext);
    if (st != MN_OK || !ext)
        return st;
    if (r->model->variant_count == 0) {
        size_t mark = mni_json_push_key(&r->json, "extensions");
        st = mni_json_fail(&r->json, MN_INDEX_RANGE, "KHR_materials_variants",
                           "the primitive maps materials to variants, but the file defines none (the root's "
                           "extensions.KHR_materials_variants.variants)");
        mni_json_pop(&r->json, mark);
        return st;
    }
    /* The duplicate check's marks: one byte a variant, allocated once a read, cleared after each
       primitive by walking what it mapped (so a primitive costs its mappings, not the variants). */
    if (!r->variant_used && !(r->variant_used = mni_gltf_alloc(r, r->model->variant_count, 1, 1, true)))
        return MN_OUT_OF_MEMORY;
    size_t mark = mni_json_push_key(&r->json, "extensions");
    mni_json_push_key(&r->json, "KHR_materials_variants");
    st = read_mappings(r, ext, p, r->variant_used);
    mni_json_pop(&r->json, mark);
    for (uint32_t i = 0; st == MN_OK && i < p->variant_mapping_count; i++)
        for (uint32_t k = 0; k < p->variant_mappings[i].variant_count; k++)
            r->variant_used[p->variant_mappings[i].variants[k]] = 0;
    return st;
}

/* ---- nodes: light, visibility, instancing ---------------------------------------------------------- */

static mn_status read_node_light(mn_gltf_reader *r, json_t *obj, mn_node *n)
{
    json_t *ext;
    mn_status st = mni_gltf_extension(r, obj, "KHR_lights_punctual", &ext);
    if (st != MN_OK || !ext)
        return st;
    size_t mark = mni_json_push_key(&r->json, "extensions");
    mni_json_push_key(&r->json, "KHR_lights_punctual");
    st = mni_json_index(&r->json, ext, "light", true, r->model->light_count, "KHR_lights_punctual lights",
                        &n->light);
    mni_json_pop(&r->json, mark);
    return st;
}

static mn_status read_visibility(mn_gltf_reader *r, json_t *obj, mn_node *n)
{
    json_t *ext;
    mn_status st = mni_gltf_extension(r, obj, "KHR_node_visibility", &ext);
    if (st != MN_OK || !ext)
        return st;
    bool visible = true;
    size_t mark = mni_json_push_key(&r->json, "extensions");
    mni_json_push_key(&r->json, "KHR_node_visibility");
    st = mni_json_bool(&r->json, ext, "visible", false, &visible);
    mni_json_pop(&r->json, mark);
    n->hidden = !visible;
    return st;
}

/* Every component of accessor `acc` is finite (instance transforms feed every vertex). */
static mn_status check_finite(mn_gltf_reader *r, const char *key, uint32_t acc)
{
    const float *v;
    size_t n;
    size_t mark = mni_json_push_key(&r->json, key);
    mn_status st = mni_gltf_accessor_floats(r, acc, &v, &n);
    mni_json_pop(&r->json, mark);
    if (st != MN_OK)
        return st;
    uint32_t comps = mn_accessor_components(r->model->accessors[acc].type);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return mni_json_fail(&r->json, MN_NOT_FINITE, key, "accessor %u: instance %zu holds a non-finite value",
                                 acc, i / comps);
    return MN_OK;
}

/* Attribute `key` of the instancing attributes: its accessor, type-checked. */
static mn_status instance_attribute(mn_gltf_reader *r, json_t *attrs, const char *key, mn_accessor_type type,
                                    bool quaternion, uint32_t *out)
{
    mn_json *j = &r->json;
    mn_status st = mni_json_index(j, attrs, key, false, r->file_accessor_count, "accessors", out);
    if (st != MN_OK || *out == MN_NONE)
        return st;
    const mn_accessor *a = &r->model->accessors[*out];
    bool ok = a->type == type &&
              (a->component == MN_COMPONENT_F32 ||
               (quaternion && a->normalized && (a->component == MN_COMPONENT_I8 || a->component == MN_COMPONENT_I16)));
    if (!ok)
        return mni_json_fail(j, MN_INVALID_VALUE, key,
                             "accessor %u is %s%s %s; EXT_mesh_gpu_instancing's %s must be %s of FLOAT%s", *out,
                             a->normalized ? "normalized " : "", mn_accessor_type_name(a->type),
                             mni_component_gltf_name(a->component), key, mn_accessor_type_name(type),
                             quaternion ? " or normalized BYTE or SHORT" : "");
    return check_finite(r, key, *out);
}

static mn_status read_instancing_attributes(mn_gltf_reader *r, json_t *ext, mn_node *n)
{
    mn_json *j = &r->json;
    json_t *attrs;
    mn_status st = mni_json_object(j, ext, "attributes", true, &attrs);
    if (st != MN_OK)
        return st;
    size_t mark = mni_json_push_key(j, "attributes");
    if ((st = instance_attribute(r, attrs, "TRANSLATION", MN_TYPE_VEC3, false, &n->instance_translation)) != MN_OK ||
        (st = instance_attribute(r, attrs, "ROTATION", MN_TYPE_VEC4, true, &n->instance_rotation)) != MN_OK ||
        (st = instance_attribute(r, attrs, "SCALE", MN_TYPE_VEC3, false, &n->instance_scale)) != MN_OK)
        return st;
    const uint32_t accs[3] = {n->instance_translation, n->instance_rotation, n->instance_scale};
    static const char *const names[3] = {"TRANSLATION", "ROTATION", "SCALE"};
    uint32_t first = 3;
    for (uint32_t k = 0; k < 3; k++) {
        if (accs[k] == MN_NONE)
            continue;
        uint32_t count = r->model->accessors[accs[k]].count;
        if (first == 3) {
            first = k;
            n->instance_count = count;
        } else if (count != n->instance_count) {
            return mni_json_fail(j, MN_COUNT_MISMATCH, names[k],
                                 "accessor %u holds %u instances, but %s (accessor %u) holds %u; every "
                                 "instancing attribute must hold one element per instance",
                                 accs[k], count, names[first], accs[first], n->instance_count);
        }
    }
    if (first == 3)
        return mni_json_fail(j, MN_MISSING_PROPERTY, NULL,
                             "none of TRANSLATION, ROTATION and SCALE is given, so the instances are unknown");
    mni_json_pop(j, mark);
    return MN_OK;
}

static mn_status read_instancing(mn_gltf_reader *r, json_t *obj, uint32_t index)
{
    json_t *ext;
    mn_node *n = &r->model->nodes[index];
    mn_status st = mni_gltf_extension(r, obj, "EXT_mesh_gpu_instancing", &ext);
    if (st != MN_OK || !ext)
        return st;
    size_t mark = mni_json_push_key(&r->json, "extensions");
    mni_json_push_key(&r->json, "EXT_mesh_gpu_instancing");
    if (n->mesh == MN_NONE)
        st = mni_json_fail(&r->json, MN_MISSING_PROPERTY, NULL,
                           "node %u (\"%.64s\") instances a mesh, but it has none", index, n->name);
    else
        st = read_instancing_attributes(r, ext, n);
    mni_json_pop(&r->json, mark);
    return st;
}

mn_status mni_gltf_read_node_extensions(mn_gltf_reader *r, json_t *obj, uint32_t index)
{
    mn_node *n = &r->model->nodes[index];
    mn_status st = read_node_light(r, obj, n);
    if (st == MN_OK)
        st = read_visibility(r, obj, n);
    return st != MN_OK ? st : read_instancing(r, obj, index);
}
