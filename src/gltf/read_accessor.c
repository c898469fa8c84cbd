/*
 * Accessors: the typed views every piece of geometry and animation goes
 * through.  Each accessor is checked against its buffer view with checked
 * arithmetic (byteOffset + (count-1) x stride + element size), its stride and
 * offset against its component size, and then becomes a zero-copy view into
 * the view's bytes.  Sparse accessors are materialised into a dense arena
 * copy (over their base view, or over zeros), and accessors without a buffer
 * view read as zeros from arena memory.
 */
#include "gltf/internal.h"

#include <string.h>

static mn_status read_component(mn_gltf_reader *r, json_t *obj, mn_component *out)
{
    uint32_t code = 0;
    mn_status st = mni_json_u32(&r->json, obj, "componentType", true, 0, UINT32_MAX, &code);
    if (st != MN_OK)
        return st;
    *out = mni_component_from_gltf_code(code);
    if (*out == MN_COMPONENT_INVALID)
        return mni_json_fail(&r->json, MN_INVALID_VALUE, "componentType",
                             "%u is not an accessor component type (5120 BYTE, 5121 UNSIGNED_BYTE, 5122 SHORT, "
                             "5123 UNSIGNED_SHORT, 5125 UNSIGNED_INT, 5126 FLOAT)",
                             code);
    return MN_OK;
}

static mn_status read_type(mn_gltf_reader *r, json_t *obj, mn_accessor_type *out)
{
    int i = 0;
    mn_status st = mni_json_enum(&r->json, obj, "type", true, mni_accessor_type_names,
                                 MNI_ACCESSOR_TYPE_COUNT, "an accessor type", &i);
    if (st == MN_OK)
        *out = (mn_accessor_type)(MN_TYPE_SCALAR + i);
    return st;
}

/*
 * `bytes` bytes starting `offset` into buffer view `view` fit the view;
 * key names the offending member for the message.
 */
static mn_status check_fits(mn_gltf_reader *r, const char *key, uint32_t view, size_t offset,
                            size_t bytes, const char *what)
{
    const mn_buffer_view *v = &r->model->buffer_views[view];
    size_t end;
    if (!mni_checked_add(offset, bytes, &end))
        return mni_json_fail(&r->json, MN_OVERFLOW, key, "%s: byteOffset %zu + %zu bytes overflows",
                             what, offset, bytes);
    if (end > v->size)
        return mni_json_fail(&r->json, MN_ACCESSOR_BOUNDS, key,
                             "%s needs bytes %zu to %zu of bufferViews[%u], which holds %zu bytes", what,
                             offset, end, view, v->size);
    return MN_OK;
}

/* The view-backed part: stride, alignment and bounds; sets a->data and a->stride. */
static mn_status bind_view(mn_gltf_reader *r, mn_accessor *a, size_t offset)
{
    const mn_buffer_view *v = &r->model->buffer_views[a->buffer_view];
    uint32_t elem = mn_accessor_element_size(a);
    uint32_t comp = mn_component_size(a->component);
    uint32_t stride = v->stride ? v->stride : elem;
    if (v->stride && v->stride < elem)
        return mni_json_fail(&r->json, MN_INVALID_VALUE, "bufferView",
                             "bufferViews[%u].byteStride %u is smaller than this accessor's element size %u",
                             a->buffer_view, v->stride, elem);
    if (stride % comp != 0)
        return mni_json_fail(&r->json, MN_INVALID_VALUE, "bufferView",
                             "bufferViews[%u].byteStride %u is not a multiple of the component size %u",
                             a->buffer_view, stride, comp);
    if (offset % comp != 0 || (uintptr_t)(v->data + offset) % comp != 0)
        return mni_json_fail(&r->json, MN_INVALID_VALUE, "byteOffset",
                             "the accessor starts at byte %zu of buffer %u, not a multiple of its component "
                             "size %u",
                             v->offset + offset, v->buffer, comp);
    size_t span, bytes;
    if (!mni_checked_mul((size_t)a->count - 1, stride, &span) || !mni_checked_add(span, elem, &bytes))
        return mni_json_fail(&r->json, MN_OVERFLOW, "count",
                             "count %u x byteStride %u overflows the size arithmetic", a->count, stride);
    size_t end;
    if (!mni_checked_add(offset, bytes, &end))
        return mni_json_fail(&r->json, MN_OVERFLOW, "byteOffset", "byteOffset %zu + %zu bytes overflows",
                             offset, bytes);
    if (end > v->size)
        return mni_json_fail(&r->json, MN_ACCESSOR_BOUNDS, NULL,
                             "byteOffset %zu + (count %u - 1) x stride %u + element size %u = %zu bytes runs "
                             "past the end of bufferViews[%u], which holds %zu bytes",
                             offset, a->count, stride, elem, end, a->buffer_view, v->size);
    a->data = v->data + offset;
    a->stride = stride;
    return MN_OK;
}

/* Tight copy of every element (the base of a sparse accessor), or zeros. */
static mn_status dense_copy(mn_gltf_reader *r, const mn_accessor *a, uint8_t **out)
{
    uint32_t elem = mn_accessor_element_size(a);
    size_t bytes;
    if (!mni_checked_mul(a->count, elem, &bytes))
        return mni_json_fail(&r->json, MN_OVERFLOW, "count", "count %u x element size %u overflows",
                             a->count, elem);
    if (!a->data) {
        mn_status st = mni_gltf_budget(r, bytes, "this accessor's elements");
        if (st != MN_OK)
            return st;
    }
    uint8_t *dense = mni_arena_alloc(r->arena, bytes, 16);
    if (!dense)
        return mni_json_oom(&r->json, NULL, "%zu bytes", bytes);
    if (!a->data)
        memset(dense, 0, bytes);
    else if (a->stride == elem)
        memcpy(dense, a->data, bytes);
    else
        for (uint32_t i = 0; i < a->count; i++)
            memcpy(dense + (size_t)i * elem, a->data + (size_t)i * a->stride, elem);
    *out = dense;
    return MN_OK;
}

static mn_status read_sparse(mn_gltf_reader *r, json_t *sparse, mn_accessor *a)
{
    mn_json *j = &r->json;
    mn_model *m = r->model;
    uint32_t count = 0, idx_view = 0, val_view = 0, idx_code = 0;
    uint64_t idx_offset = 0, val_offset = 0;
    json_t *indices, *values;
    mn_status st;
    if ((st = mni_json_u32(j, sparse, "count", true, 1, UINT32_MAX, &count)) != MN_OK ||
        (st = mni_json_object(j, sparse, "indices", true, &indices)) != MN_OK ||
        (st = mni_json_object(j, sparse, "values", true, &values)) != MN_OK)
        return st;
    if (count > a->count)
        return mni_json_fail(j, MN_INVALID_VALUE, "count",
                             "%u sparse substitutions are more than the accessor's %u elements", count,
                             a->count);
    size_t mark = mni_json_push_key(j, "indices");
    if ((st = mni_json_index(j, indices, "bufferView", true, m->buffer_view_count, "bufferViews",
                             &idx_view)) != MN_OK ||
        (st = mni_json_uint(j, indices, "byteOffset", false, 0, SIZE_MAX, &idx_offset)) != MN_OK ||
        (st = mni_json_u32(j, indices, "componentType", true, 0, UINT32_MAX, &idx_code)) != MN_OK)
        return st;
    mn_component idx_comp = mni_component_from_gltf_code(idx_code);
    if (idx_comp != MN_COMPONENT_U8 && idx_comp != MN_COMPONENT_U16 && idx_comp != MN_COMPONENT_U32)
        return mni_json_fail(j, MN_INVALID_VALUE, "componentType",
                             "%u is not a sparse index type (5121 UNSIGNED_BYTE, 5123 UNSIGNED_SHORT, "
                             "5125 UNSIGNED_INT)",
                             idx_code);
    uint32_t isize = mn_component_size(idx_comp);
    if (idx_offset % isize != 0)
        return mni_json_fail(j, MN_INVALID_VALUE, "byteOffset",
                             "byteOffset %llu is not a multiple of the index size %u",
                             (unsigned long long)idx_offset, isize);
    if ((st = check_fits(r, "byteOffset", idx_view, (size_t)idx_offset, (size_t)count * isize,
                         "the sparse indices")) != MN_OK)
        return st;
    mni_json_pop(j, mark);

    uint32_t elem = mn_accessor_element_size(a);
    size_t val_bytes;
    mark = mni_json_push_key(j, "values");
    if ((st = mni_json_index(j, values, "bufferView", true, m->buffer_view_count, "bufferViews",
                             &val_view)) != MN_OK ||
        (st = mni_json_uint(j, values, "byteOffset", false, 0, SIZE_MAX, &val_offset)) != MN_OK)
        return st;
    if (val_offset % mn_component_size(a->component) != 0)
        return mni_json_fail(j, MN_INVALID_VALUE, "byteOffset",
                             "byteOffset %llu is not a multiple of the component size %u",
                             (unsigned long long)val_offset, mn_component_size(a->component));
    if (!mni_checked_mul(count, elem, &val_bytes))
        return mni_json_fail(j, MN_OVERFLOW, NULL, "count %u x element size %u overflows", count, elem);
    if ((st = check_fits(r, "byteOffset", val_view, (size_t)val_offset, val_bytes,
                         "the sparse values")) != MN_OK)
        return st;
    mni_json_pop(j, mark);

    uint8_t *dense;
    if ((st = dense_copy(r, a, &dense)) != MN_OK)
        return st;
    const uint8_t *idx = m->buffer_views[idx_view].data + idx_offset;
    const uint8_t *val = m->buffer_views[val_view].data + val_offset;
    mark = mni_json_push_key(j, "indices");
    uint32_t prev = 0;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t target = mni_gltf_uint_le(idx + (size_t)k * isize, isize);
        if (target >= a->count)
            return mni_json_fail(j, MN_INDEX_RANGE, NULL,
                                 "sparse index %u (substitution %u) is not below the accessor's count %u",
                                 target, k, a->count);
        if (k > 0 && target <= prev)
            return mni_json_fail(j, MN_INVALID_VALUE, NULL,
                                 "sparse indices must increase strictly, but substitution %u has index %u "
                                 "after %u",
                                 k, target, prev);
        memcpy(dense + (size_t)target * elem, val + (size_t)k * elem, elem);
        prev = target;
    }
    mni_json_pop(j, mark);
    a->data = dense;
    a->stride = elem;
    a->sparse_count = count;
    return MN_OK;
}

/* min and max: both or neither give bounds; each holds one number per component. */
static mn_status read_min_max(mn_gltf_reader *r, json_t *obj, mn_accessor *a)
{
    size_t n = mn_accessor_components(a->type);
    json_t *min = json_object_get(obj, "min"), *max = json_object_get(obj, "max");
    mn_status st;
    if ((st = mni_json_floats(&r->json, obj, "min", false, n, a->min)) != MN_OK ||
        (st = mni_json_floats(&r->json, obj, "max", false, n, a->max)) != MN_OK)
        return st;
    a->has_bounds = min && max;
    return MN_OK;
}

/* draco: a Draco primitive fills it, so no zeros are made when it has no bufferView. */
static mn_status read_accessor(mn_gltf_reader *r, json_t *obj, mn_accessor *a, bool draco)
{
    mn_json *j = &r->json;
    uint64_t offset = 0;
    json_t *sparse;
    mn_status st;
    if ((st = mni_json_string(j, obj, "name", false, &a->name)) != MN_OK ||
        (st = mni_json_index(j, obj, "bufferView", false, r->model->buffer_view_count, "bufferViews",
                             &a->buffer_view)) != MN_OK ||
        (st = mni_json_uint(j, obj, "byteOffset", false, 0, SIZE_MAX, &offset)) != MN_OK ||
        (st = read_component(r, obj, &a->component)) != MN_OK ||
        (st = mni_json_bool(j, obj, "normalized", false, &a->normalized)) != MN_OK ||
        (st = mni_json_u32(j, obj, "count", true, 1, UINT32_MAX, &a->count)) != MN_OK ||
        (st = read_type(r, obj, &a->type)) != MN_OK ||
        (st = read_min_max(r, obj, a)) != MN_OK ||
        (st = mni_json_object(j, obj, "sparse", false, &sparse)) != MN_OK)
        return st;
    if (a->normalized && (a->component == MN_COMPONENT_F32 || a->component == MN_COMPONENT_U32))
        return mni_json_fail(j, MN_INVALID_VALUE, "normalized",
                             "normalized is only allowed for 8- and 16-bit integer components");
    if (a->buffer_view != MN_NONE) {
        if ((st = bind_view(r, a, (size_t)offset)) != MN_OK)
            return st;
    } else {
        a->stride = mn_accessor_element_size(a);
    }
    if (sparse) {
        size_t mark = mni_json_push_key(j, "sparse");
        st = read_sparse(r, sparse, a);
        mni_json_pop(j, mark);
        return st;
    }
    if (a->buffer_view == MN_NONE && !draco) {
        uint8_t *zeros;
        if ((st = dense_copy(r, a, &zeros)) != MN_OK)
            return st;
        a->data = zeros;
    }
    return MN_OK;
}

static mn_status accessor_at(mn_gltf_reader *r, json_t *obj, uint32_t i)
{
    return read_accessor(r, obj, &r->model->accessors[i], r->draco_accessor && r->draco_accessor[i]);
}

mn_status mni_gltf_read_accessors(mn_gltf_reader *r)
{
    mn_status st = mni_gltf_mark_draco_accessors(r);
    return st != MN_OK ? st : mni_gltf_read_array(r, "accessors", r->file_accessor_count, accessor_at);
}

mn_status mni_gltf_accessor_floats(mn_gltf_reader *r, uint32_t accessor, const float **out,
                                   size_t *out_count)
{
    const mn_accessor *a = &r->model->accessors[accessor];
    size_t n;
    if (!mni_checked_mul(a->count, mn_accessor_components(a->type), &n))
        return mni_json_fail(&r->json, MN_OVERFLOW, NULL, "accessor %u is too large", accessor);
    *out_count = n;
    const float *view = mn_accessor_float_view(a);
    if (view) {
        *out = view;
        return MN_OK;
    }
    /* Converted once per accessor: many samplers or skins sharing one strided or quantized
       accessor must not cost a copy each (memory would grow as their product, not the file). */
    if (!r->accessor_floats &&
        !(r->accessor_floats = mni_gltf_alloc(r, r->file_accessor_count, sizeof(float *), 16, true)))
        return MN_OUT_OF_MEMORY;
    if (r->accessor_floats[accessor]) {
        *out = r->accessor_floats[accessor];
        return MN_OK;
    }
    float *conv = mni_gltf_alloc(r, n ? n : 1, sizeof(float), 16, false);
    if (!conv)
        return MN_OUT_OF_MEMORY;
    mn_accessor_unpack_floats(a, conv, n);
    *out = r->accessor_floats[accessor] = conv;
    return MN_OK;
}
