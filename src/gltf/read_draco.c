/*
 * KHR_draco_mesh_compression: a primitive whose attributes (those the
 * extension's `attributes` names, each by the Draco attribute id) and
 * indices come from one Draco-compressed bufferView.  The accessors keep
 * their glTF meaning: their count, type, componentType and normalized say
 * what the decoded data must be, and the decoder's values (dequantised) are
 * converted to that type.  Everything decoded is checked against the
 * accessors before it is copied into them: the point count against each
 * accessor's count, each attribute's components against its type, the face
 * count against the indices accessor, each face index against the
 * primitive's vertex count.  Attributes the extension does not
 * name, and morph targets, stay uncompressed and are read as usual.
 *
 * The decoder is C++ (gltf/draco.cpp, behind gltf/draco.h) and exists only
 * when the build found libdraco (MN_WITH_DRACO).  Without it such a
 * primitive is refused naming what the build lacks, unless the file also
 * carries the uncompressed data (the extension not required, every accessor
 * with a bufferView), which then loads with a warning.
 */
#include "gltf/internal.h"

#ifdef MN_WITH_DRACO
#include "gltf/draco.h"
#endif

#include <string.h>

#define EXT_NAME "KHR_draco_mesh_compression"

bool mni_gltf_has_draco(void)
{
#ifdef MN_WITH_DRACO
    return true;
#else
    return false;
#endif
}

/* prim.attributes[name] when it is an accessor index below n; MN_NONE otherwise. */
static uint32_t attribute_accessor(json_t *prim, const char *name, uint32_t n)
{
    json_t *v = json_object_get(json_object_get(prim, "attributes"), name);
    json_int_t i = json_is_integer(v) ? json_integer_value(v) : -1;
    return i >= 0 && i < (json_int_t)n ? (uint32_t)i : MN_NONE;
}

mn_status mni_gltf_mark_draco_accessors(mn_gltf_reader *r)
{
    if (!mni_gltf_has_draco() || r->file_accessor_count == 0)
        return MN_OK;
    json_t *meshes = json_object_get(r->root, "meshes");
    for (size_t i = 0; i < json_array_size(meshes); i++) {
        json_t *prims = json_object_get(json_array_get(meshes, i), "primitives");
        for (size_t k = 0; k < json_array_size(prims); k++) {
            json_t *prim = json_array_get(prims, k);
            json_t *ext = json_object_get(json_object_get(prim, "extensions"), EXT_NAME);
            json_t *attrs = json_object_get(ext, "attributes");
            if (!json_is_object(attrs))
                continue;
            if (!r->draco_accessor &&
                !(r->draco_accessor = mni_gltf_alloc(r, r->file_accessor_count, 1, 16, true)))
                return MN_OUT_OF_MEMORY;
            const char *name;
            json_t *value;
            json_object_foreach(attrs, name, value) {
                uint32_t a = attribute_accessor(prim, name, r->file_accessor_count);
                if (a != MN_NONE)
                    r->draco_accessor[a] = MNI_DRACO_TARGET;
            }
            json_t *idx = json_object_get(prim, "indices");
            json_int_t a = json_is_integer(idx) ? json_integer_value(idx) : -1;
            if (a >= 0 && a < (json_int_t)r->file_accessor_count)
                r->draco_accessor[a] = MNI_DRACO_TARGET;
        }
    }
    return MN_OK;
}

mn_status mni_gltf_check_draco_filled(mn_gltf_reader *r)
{
    for (uint32_t i = 0; r->draco_accessor && i < r->file_accessor_count; i++)
        if (!r->model->accessors[i].data)
            return mni_json_fail(&r->json, MN_INVALID_VALUE, NULL,
                                 "accessors[%u] was to be filled from Draco data that no primitive decoded", i);
    return MN_OK;
}

#ifdef MN_WITH_DRACO

typedef struct draco_ctx {
    mn_gltf_reader *r;
    mni_draco_geometry *g;
    mni_draco_counts counts;
    char msg[160];
} draco_ctx;

/* The accessor of primitive attribute `name`, the one the extension's id fills. */
static mn_status find_attribute(draco_ctx *c, const mn_primitive *p, const char *name, uint32_t *out)
{
    for (uint32_t i = 0; i < p->attribute_count; i++)
        if (strcmp(p->attributes[i].name, name) == 0) {
            *out = p->attributes[i].accessor;
            return MN_OK;
        }
    return mni_json_fail(&c->r->json, MN_INVALID_VALUE, NULL,
                         "attribute %.64s is compressed, but the primitive's attributes do not name it", name);
}

/* Memory for accessor `index`'s decoded elements; marks it filled (each is filled once). */
static mn_status claim(draco_ctx *c, uint32_t index, uint8_t **out)
{
    mn_gltf_reader *r = c->r;
    mn_accessor *a = &r->model->accessors[index];
    if (r->draco_accessor[index] == MNI_DRACO_FILLED)
        return mni_json_fail(&r->json, MN_INVALID_VALUE, NULL,
                             "accessor %u is already filled from the Draco data of another primitive; each "
                             "compressed primitive needs accessors of its own",
                             index);
    size_t bytes;
    if (!mni_checked_mul(a->count, mn_accessor_element_size(a), &bytes))
        return mni_json_fail(&r->json, MN_OVERFLOW, NULL, "accessor %u is too large", index);
    mn_status st = mni_gltf_budget(r, bytes, "the decoded Draco data");
    if (st != MN_OK)
        return st;
    if (!(*out = mni_gltf_alloc(r, bytes ? bytes : 1, 1, 16, false)))
        return MN_OUT_OF_MEMORY;
    r->draco_accessor[index] = MNI_DRACO_FILLED;
    a->data = *out;
    a->stride = mn_accessor_element_size(a);
    return MN_OK;
}

static bool is_integer(uint32_t draco_type)
{
    return draco_type >= 1 && draco_type <= 8;
}

/* Draco integer types' sizes: INT8/UINT8 1, INT16/UINT16 2, INT32/UINT32 4, INT64/UINT64 8. */
static uint32_t integer_size(uint32_t draco_type)
{
    return 1u << ((draco_type - 1) / 2);
}

static mn_status decode_attribute(draco_ctx *c, const mn_primitive *p, const char *name, json_t *value)
{
    mn_gltf_reader *r = c->r;
    mn_json *j = &r->json;
    uint32_t id = 0, index = 0;
    mn_status st;
    if ((st = mni_json_index_value(j, value, UINT32_MAX, "Draco attribute ids", &id)) != MN_OK ||
        (st = find_attribute(c, p, name, &index)) != MN_OK)
        return st;
    mn_accessor *a = &r->model->accessors[index];
    mni_draco_attribute_info info;
    if (!mni_draco_attribute(c->g, id, &info))
        return mni_json_fail(j, MN_DRACO, NULL, "the Draco data has no attribute with id %u (for %.64s)", id,
                             name);
    uint32_t comps = mn_accessor_components(a->type);
    if (info.components != comps)
        return mni_json_fail(j, MN_DRACO, NULL,
                             "Draco attribute %u has %u components, but accessor %u (%.64s) is %s", id,
                             info.components, index, name, mn_accessor_type_name(a->type));
    if (c->counts.points != a->count)
        return mni_json_fail(j, MN_COUNT_MISMATCH, NULL,
                             "the Draco data decodes to %u points, but accessor %u (%.64s) has count %u",
                             c->counts.points, index, name, a->count);
    /* The decoder does not rescale between normalized integer sizes: refuse rather than misread. */
    if (a->normalized && is_integer(info.data_type) &&
        integer_size(info.data_type) != mn_component_size(a->component))
        return mni_json_fail(j, MN_DRACO, NULL,
                             "Draco attribute %u holds %s, which does not convert to accessor %u's normalized %s",
                             id, mni_draco_type_name(info.data_type), index,
                             mni_component_gltf_name(a->component));
    uint8_t *out;
    if ((st = claim(c, index, &out)) != MN_OK)
        return st;
    if (!mni_draco_copy_attribute(c->g, id, mni_component_gltf_code(a->component), comps, out, c->msg,
                                  sizeof c->msg))
        return mni_json_fail(j, MN_DRACO, NULL, "Draco attribute %u (%.64s): %s", id, name, c->msg);
    return MN_OK;
}

static mn_status decode_indices(draco_ctx *c, const mn_primitive *p)
{
    mn_gltf_reader *r = c->r;
    mn_json *j = &r->json;
    if (!c->counts.is_mesh) {
        if (p->indices == MN_NONE)
            return MN_OK;
        return mni_json_fail(j, MN_DRACO, NULL,
                             "the Draco data is a point cloud, but the primitive has indices (accessor %u)",
                             p->indices);
    }
    if (p->indices == MN_NONE)
        return mni_json_fail(j, MN_DRACO, NULL,
                             "the Draco data is a triangle mesh, but the primitive has no indices accessor");
    mn_accessor *a = &r->model->accessors[p->indices];
    if ((uint64_t)c->counts.faces * 3 != a->count)
        return mni_json_fail(j, MN_COUNT_MISMATCH, NULL,
                             "the Draco data decodes to %u triangles (%llu indices), but the indices accessor %u "
                             "has count %u",
                             c->counts.faces, (unsigned long long)c->counts.faces * 3, p->indices, a->count);
    uint8_t *out;
    mn_status st = claim(c, p->indices, &out);
    if (st != MN_OK)
        return st;
    /* KHR_draco_mesh_compression: attributes the extension does not list are read as usual, and
       the faces index them too; so the bound is the primitive's vertex count, which every Draco
       attribute's point count was checked against (gltf-transform leaves a sparse POSITION out
       of the Draco data, which then holds no attribute and no points). */
    if (!mni_draco_copy_indices(c->g, mn_component_size(a->component), p->vertex_count, out, c->msg,
                                sizeof c->msg))
        return mni_json_fail(j, MN_DRACO, NULL, "indices accessor %u: %s", p->indices, c->msg);
    return MN_OK;
}

static mn_status decode_all(draco_ctx *c, json_t *ext, mn_primitive *p, uint32_t mode)
{
    mn_gltf_reader *r = c->r;
    mn_json *j = &r->json;
    json_t *attrs;
    uint32_t view;
    mn_status st;
    if ((st = mni_json_index(j, ext, "bufferView", true, r->model->buffer_view_count, "bufferViews", &view)) !=
            MN_OK ||
        (st = mni_json_object(j, ext, "attributes", true, &attrs)) != MN_OK)
        return st;
    if (mode != MN_MODE_TRIANGLES && mode != MN_MODE_POINTS)
        return mni_json_fail(j, MN_DRACO, NULL,
                             "Draco data decodes to triangle lists or points, but the primitive's mode is %u", mode);
    const mn_buffer_view *v = &r->model->buffer_views[view];
    if (!(c->g = mni_draco_decode(v->data, v->size, c->msg, sizeof c->msg)))
        return mni_json_fail(j, MN_DRACO, "bufferView", "bufferViews[%u] (%zu bytes): %s", view, v->size, c->msg);
    c->counts = mni_draco_get_counts(c->g);
    if (c->counts.is_mesh != (mode == MN_MODE_TRIANGLES))
        return mni_json_fail(j, MN_DRACO, "bufferView", "bufferViews[%u] holds a Draco %s, but the primitive's mode is %s",
                             view, c->counts.is_mesh ? "triangle mesh" : "point cloud",
                             mode == MN_MODE_TRIANGLES ? "TRIANGLES" : "POINTS");
    size_t mark = mni_json_push_key(j, "attributes");
    const char *name;
    json_t *value;
    json_object_foreach(attrs, name, value) {
        size_t m2 = mni_json_push_key(j, name);
        if ((st = decode_attribute(c, p, name, value)) != MN_OK)
            return st;
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    return decode_indices(c, p);
}

mn_status mni_gltf_read_draco(mn_gltf_reader *r, json_t *prim, mn_primitive *p, uint32_t mode, uint32_t mesh,
                              uint32_t index)
{
    json_t *ext;
    mn_status st = mni_gltf_extension(r, prim, EXT_NAME, &ext);
    if (st != MN_OK || !ext)
        return st;
    size_t mark = mni_json_push_key(&r->json, "extensions");
    mni_json_push_key(&r->json, EXT_NAME);
    (void)mesh;
    (void)index;
    draco_ctx c = {.r = r};
    st = decode_all(&c, ext, p, mode);
    if (c.g)
        mni_draco_free(c.g);
    if (st == MN_OK)
        mni_json_pop(&r->json, mark);
    return st;
}

#else /* no Draco decoder in this build */

/* An accessor of the primitive that the file leaves without data (no bufferView), or MN_NONE. */
static uint32_t accessor_without_data(mn_gltf_reader *r, const mn_primitive *p)
{
    for (uint32_t i = 0; i < p->attribute_count; i++)
        if (r->model->accessors[p->attributes[i].accessor].buffer_view == MN_NONE)
            return p->attributes[i].accessor;
    if (p->indices != MN_NONE && r->model->accessors[p->indices].buffer_view == MN_NONE)
        return p->indices;
    return MN_NONE;
}

mn_status mni_gltf_read_draco(mn_gltf_reader *r, json_t *prim, mn_primitive *p, uint32_t mode, uint32_t mesh,
                              uint32_t index)
{
    (void)mode;
    json_t *ext;
    mn_status st = mni_gltf_extension(r, prim, EXT_NAME, &ext);
    if (st != MN_OK || !ext)
        return st;
    size_t mark = mni_json_push_key(&r->json, "extensions");
    uint32_t missing = accessor_without_data(r, p);
    if (missing != MN_NONE)
        return mni_json_fail(&r->json, MN_UNSUPPORTED_EXTENSION, EXT_NAME,
                             "primitive %u of mesh %u is Draco-compressed, and this build of marionette has "
                             "no Draco decoder (libdraco was not found when it was built); accessor %u has no "
                             "uncompressed data instead",
                             index, mesh, missing);
    st = mni_gltf_warn(r, MN_UNSUPPORTED_EXTENSION, EXT_NAME,
                       "primitive %u of mesh %u is compressed with " EXT_NAME ", and this build of marionette "
                       "has no Draco decoder: its uncompressed accessors are read instead",
                       index, mesh);
    mni_json_pop(&r->json, mark);
    return st;
}

#endif
