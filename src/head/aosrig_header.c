/*
 * The .aosrig header JSON → mn_aosrig_header and the blob list, checked in
 * the order docs/formats.md gives ("What the reader checks, in order"), each flaw
 * named by its JSON path ("headExt.regions[2]", "buffers[4].dtype").
 *
 * Every header number is a double (the document is parsed with jansson's
 * INT_AS_REAL), as in the ECMAScript reader the format comes from, so "1"
 * and "1.0" are the same integer and re-packing writes what was read.
 */
#include "head/aosrig_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

mn_status mni_aosrig_fail(mn_aosrig_reader *r, mn_status code, const char *key, const char *fmt,
                          ...)
{
    char text[224];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return mni_json_fail(&r->json, code, key, "%s", text);
}

static const char *type_name(const json_t *v)
{
    return json_is_number(v) ? "a number" : mni_json_type_name(v);
}

static mn_status out_of_memory(mn_aosrig_reader *r)
{
    return mni_json_oom(&r->json, NULL, "reading the header");
}

/* ---- duplicate names ------------------------------------------------------------------ */

/*
 * The first name (in list order) that repeats an earlier one: true with
 * *dup its index and *first the earlier one's, through one sort
 * (core/sorted_names.c), so hostile lists of many names stay n log n.
 * Scratch comes from the arena; *out_of_memory_flag says the sort failed.
 * count is at most UINT32_MAX (every caller checks it).
 */
static bool first_duplicate(mn_arena *arena, const char *const *names, size_t count, size_t *dup,
                            size_t *first, bool *out_of_memory_flag)
{
    mni_names_sorted sorted;
    uint32_t d, f;
    *out_of_memory_flag = !mni_names_sort(&sorted, arena, names, (uint32_t)count);
    if (*out_of_memory_flag || !mni_names_first_duplicate(&sorted, &d, &f))
        return false;
    *dup = d;
    *first = f;
    return true;
}

/* ---- typed members ------------------------------------------------------------------ */

/* Member `key` of obj: MISSING_PROPERTY when required and absent (*out = NULL when optional). */
static mn_status member(mn_aosrig_reader *r, json_t *obj, const char *key, bool required,
                        json_t **out)
{
    *out = json_object_get(obj, key);
    if (!*out && required)
        return mni_aosrig_fail(r, MN_MISSING_PROPERTY, key, "required member \"%s\" is missing",
                               key);
    return MN_OK;
}

static mn_status typed(mn_aosrig_reader *r, json_t *obj, const char *key, bool required,
                       json_type type, const char *expected, json_t **out)
{
    mn_status st = member(r, obj, key, required, out);
    if (st != MN_OK || !*out)
        return st;
    if (json_typeof(*out) != type)
        return mni_aosrig_fail(r, MN_JSON_TYPE, key, "expected %s, found %s", expected,
                               type_name(*out));
    return MN_OK;
}

/* A string value (the current path) copied into the arena. */
static mn_status string_value(mn_aosrig_reader *r, json_t *v, const char *key, const char **out)
{
    if (!json_is_string(v))
        return mni_aosrig_fail(r, MN_JSON_TYPE, key, "expected a string, found %s", type_name(v));
    *out = mni_arena_strndup(r->arena, json_string_value(v), json_string_length(v));
    return *out ? MN_OK : out_of_memory(r);
}

static mn_status string_member(mn_aosrig_reader *r, json_t *obj, const char *key, const char **out)
{
    json_t *v;
    mn_status st = member(r, obj, key, true, &v);
    return st != MN_OK ? st : string_value(r, v, key, out);
}

/* A number that is an integer in [min, max] (doubles, as ECMAScript reads them). */
static mn_status integer_value(mn_aosrig_reader *r, json_t *v, const char *key, double min,
                               double max, const char *what, uint64_t *out)
{
    if (!json_is_number(v))
        return mni_aosrig_fail(r, MN_JSON_TYPE, key, "expected %s, found %s", what, type_name(v));
    double x = json_number_value(v);
    if (x != floor(x) || x < min || x > max)
        return mni_aosrig_fail(r, MN_INVALID_VALUE, key, "%.17g is not %s (%.0f to %.0f)", x,
                               what, min, max);
    *out = (uint64_t)x;
    return MN_OK;
}

static mn_status integer_member(mn_aosrig_reader *r, json_t *obj, const char *key, double min,
                                double max, const char *what, uint64_t *out)
{
    json_t *v;
    mn_status st = member(r, obj, key, true, &v);
    return st != MN_OK ? st : integer_value(r, v, key, min, max, what, out);
}

/* A string member that must be exactly `want`. */
static mn_status fixed_string(mn_aosrig_reader *r, const char *key, const char *want,
                              const char **out)
{
    json_t *v;
    mn_status st = typed(r, r->root, key, true, JSON_STRING, "a string", &v);
    if (st != MN_OK)
        return st;
    if (strcmp(json_string_value(v), want) != 0)
        return mni_aosrig_fail(r, MN_INVALID_VALUE, key, "\"%s\" is not a model this reader reads (%s)",
                               json_string_value(v), want);
    *out = json_string_value(v);
    return MN_OK;
}

/* ---- the top-level scalars ---------------------------------------------------------- */

static mn_status read_identity(mn_aosrig_reader *r)
{
    json_t *v;
    mn_status st = member(r, r->root, "version", true, &v);
    if (st != MN_OK)
        return st;
    if (!json_is_number(v))
        return mni_aosrig_fail(r, MN_JSON_TYPE, "version", "expected a number, found %s",
                               type_name(v));
    if (json_number_value(v) != 1.0)
        return mni_aosrig_fail(r, MN_INVALID_VALUE, "version",
                               "unsupported version %.17g (this reader reads version 1)",
                               json_number_value(v));
    const char *model;
    st = fixed_string(r, "model", "gnm", &model);
    if (st != MN_OK)
        return st;
    st = typed(r, r->root, "units", true, JSON_STRING, "a string", &v);
    if (st != MN_OK)
        return st;
    const char *units = json_string_value(v);
    for (int u = MN_AOSRIG_METRES; u <= MN_AOSRIG_CENTIMETRES; u++)
        if (strcmp(units, mn_aosrig_units_name((mn_aosrig_units)u)) == 0) {
            r->pack->header.units = (mn_aosrig_units)u;
            return MN_OK;
        }
    return mni_aosrig_fail(r, MN_INVALID_VALUE, "units", "\"%s\" is not a unit (m, cm)", units);
}

static mn_status read_counts(mn_aosrig_reader *r)
{
    static const char *const keys[3] = {"vertexCount", "coeffCount", "maxInfluence"};
    uint32_t *fields[3] = {&r->pack->header.vertex_count, &r->pack->header.coeff_count,
                           &r->pack->header.max_influence};
    for (int i = 0; i < 3; i++) {
        uint64_t n;
        mn_status st = integer_member(r, r->root, keys[i], 1, UINT32_MAX, "a positive integer", &n);
        if (st != MN_OK)
            return st;
        *fields[i] = (uint32_t)n;
    }
    return MN_OK;
}

/* An array member of strings, exactly `count` long when count != UINT32_MAX. */
static mn_status read_names(mn_aosrig_reader *r)
{
    json_t *names;
    mn_status st = typed(r, r->root, "names", true, JSON_ARRAY, "an array", &names);
    if (st != MN_OK)
        return st;
    uint32_t e_count = r->pack->header.coeff_count;
    if (json_array_size(names) != e_count)
        return mni_aosrig_fail(r, MN_COUNT_MISMATCH, "names",
                               "%zu names for coeffCount %u expressions", json_array_size(names),
                               e_count);
    const char **out = mni_arena_alloc(r->arena, (size_t)e_count * sizeof *out, 8);
    if (!out)
        return out_of_memory(r);
    size_t mark = mni_json_push_key(&r->json, "names");
    for (uint32_t e = 0; e < e_count; e++) {
        size_t at = mni_json_push_index(&r->json, e);
        st = string_value(r, json_array_get(names, e), NULL, &out[e]);
        if (st != MN_OK)
            return st;
        mni_json_pop(&r->json, at);
    }
    mni_json_pop(&r->json, mark);
    r->pack->header.names = out;
    return MN_OK;
}

/* ---- headExt ------------------------------------------------------------------------ */

static mn_status read_regions(mn_aosrig_reader *r, json_t *head_ext, mn_aosrig_head_ext *x)
{
    json_t *regions;
    mn_status st = typed(r, head_ext, "regions", true, JSON_ARRAY, "an array", &regions);
    if (st != MN_OK)
        return st;
    size_t count = json_array_size(regions);
    if (count == 0 || count > UINT32_MAX)
        return mni_aosrig_fail(r, MN_INVALID_VALUE, "regions", "%zu regions; at least one tiles exprDim",
                               count);
    mn_aosrig_region *out = mni_arena_calloc(r->arena, count, sizeof *out, 8);
    if (!out)
        return out_of_memory(r);
    size_t mark = mni_json_push_key(&r->json, "regions");
    uint64_t start = 0;
    for (size_t i = 0; i < count; i++) {
        size_t at = mni_json_push_index(&r->json, i);
        json_t *pair = json_array_get(regions, i);
        if (!json_is_array(pair) || json_array_size(pair) != 2)
            return mni_aosrig_fail(r, MN_JSON_TYPE, NULL,
                                   "expected a [name, count] pair, found %s", type_name(pair));
        st = string_value(r, json_array_get(pair, 0), NULL, &out[i].name);
        uint64_t n = 0;
        if (st == MN_OK)
            st = integer_value(r, json_array_get(pair, 1), NULL, 1, UINT32_MAX,
                               "a positive coefficient count", &n);
        if (st != MN_OK)
            return st;
        out[i].count = (uint32_t)n;
        out[i].start = (uint32_t)(start < UINT32_MAX ? start : UINT32_MAX);
        start += n;
        mni_json_pop(&r->json, at);
    }
    const char **names = mni_arena_alloc(r->arena, count * sizeof *names, 8);
    if (!names)
        return out_of_memory(r);
    for (size_t i = 0; i < count; i++)
        names[i] = out[i].name;
    size_t dup, first;
    bool oom;
    if (first_duplicate(r->arena, names, count, &dup, &first, &oom)) {
        mni_json_push_index(&r->json, dup);
        return mni_aosrig_fail(r, MN_INVALID_VALUE, NULL,
                               "region \"%s\" is declared twice (also regions[%zu])", names[dup],
                               first);
    }
    if (oom)
        return out_of_memory(r);
    mni_json_pop(&r->json, mark);
    if (start != x->expr_dim)
        return mni_aosrig_fail(r, MN_INVALID_VALUE, "regions",
                               "the regions cover %llu coefficients; they must tile exprDim %u",
                               (unsigned long long)start, x->expr_dim);
    x->regions = out;
    x->region_count = (uint32_t)count;
    return MN_OK;
}

static mn_status read_reduced(mn_aosrig_reader *r, json_t *head_ext, mn_aosrig_head_ext *x)
{
    json_t *reduced;
    mn_status st = typed(r, head_ext, "reduced", true, JSON_OBJECT, "an object", &reduced);
    if (st != MN_OK)
        return st;
    mn_aosrig_region *regions = (mn_aosrig_region *)x->regions;
    /* regions by name, for a lookup per member that stays cheap with many regions */
    const char **names = mni_arena_alloc(r->arena, x->region_count * sizeof *names, 8);
    mni_names_sorted by_name;
    if (!names)
        return out_of_memory(r);
    for (uint32_t i = 0; i < x->region_count; i++)
        names[i] = regions[i].name;
    if (!mni_names_sort(&by_name, r->arena, names, x->region_count))
        return out_of_memory(r);
    size_t mark = mni_json_push_key(&r->json, "reduced");
    const char *key;
    json_t *value;
    json_object_foreach(reduced, key, value) {
        uint32_t found = mni_names_find(&by_name, key);
        if (found == MN_NONE)
            return mni_aosrig_fail(r, MN_INVALID_VALUE, key, "\"%s\" names no region", key);
        uint64_t n;
        st = integer_value(r, value, key, 0, regions[found].count,
                           "a count within the region", &n);
        if (st != MN_OK)
            return st;
        regions[found].has_reduced = true;
        regions[found].reduced = (uint32_t)n;
    }
    mni_json_pop(&r->json, mark);
    return MN_OK;
}

static mn_status read_head_ext(mn_aosrig_reader *r)
{
    json_t *head_ext;
    mn_status st = typed(r, r->root, "headExt", true, JSON_OBJECT, "an object", &head_ext);
    if (st != MN_OK)
        return st;
    mn_aosrig_head_ext *x = &r->pack->header.head_ext;
    size_t mark = mni_json_push_key(&r->json, "headExt");
    uint64_t dim, expr_dim, gaze_dim;
    st = integer_member(r, head_ext, "dim", 0, UINT32_MAX, "a count", &dim);
    if (st == MN_OK)
        st = integer_member(r, head_ext, "exprDim", 0, UINT32_MAX, "a count", &expr_dim);
    if (st == MN_OK)
        st = integer_member(r, head_ext, "gazeDim", 0, UINT32_MAX, "a count", &gaze_dim);
    if (st != MN_OK)
        return st;
    if (expr_dim != r->pack->header.coeff_count)
        return mni_aosrig_fail(r, MN_INVALID_VALUE, "exprDim", "%llu is not coeffCount %u",
                               (unsigned long long)expr_dim, r->pack->header.coeff_count);
    if (gaze_dim != 4)
        return mni_aosrig_fail(r, MN_INVALID_VALUE, "gazeDim",
                               "%llu; the gaze block is 4 angles (pitch_L, yaw_L, pitch_R, yaw_R)",
                               (unsigned long long)gaze_dim);
    if (dim != expr_dim + gaze_dim)
        return mni_aosrig_fail(r, MN_INVALID_VALUE, "dim", "%llu is not exprDim + gazeDim = %llu",
                               (unsigned long long)dim, (unsigned long long)(expr_dim + gaze_dim));
    x->dim = (uint32_t)dim;
    x->expr_dim = (uint32_t)expr_dim;
    x->gaze_dim = (uint32_t)gaze_dim;
    st = read_regions(r, head_ext, x);
    if (st == MN_OK)
        st = read_reduced(r, head_ext, x);
    if (st == MN_OK)
        mni_json_pop(&r->json, mark);
    return st;
}

/* ---- joints, eyes, bindTransform ------------------------------------------------------ */

static mn_status read_joints(mn_aosrig_reader *r)
{
    json_t *joints;
    mn_status st = typed(r, r->root, "joints", true, JSON_ARRAY, "an array", &joints);
    if (st != MN_OK)
        return st;
    size_t count = json_array_size(joints);
    if (count > UINT32_MAX)
        return mni_aosrig_fail(r, MN_INVALID_VALUE, "joints", "too many joints");
    const char **names = mni_arena_alloc(r->arena, count * sizeof *names, 8);
    if (!names && count)
        return out_of_memory(r);
    size_t mark = mni_json_push_key(&r->json, "joints");
    for (size_t j = 0; j < count; j++) {
        size_t at = mni_json_push_index(&r->json, j);
        json_t *joint = json_array_get(joints, j);
        if (!json_is_object(joint))
            return mni_aosrig_fail(r, MN_JSON_TYPE, NULL, "expected an object, found %s",
                                   type_name(joint));
        st = string_member(r, joint, "name", &names[j]);
        if (st != MN_OK)
            return st;
        mni_json_pop(&r->json, at);
    }
    size_t dup, first;
    bool oom;
    if (first_duplicate(r->arena, names, count, &dup, &first, &oom)) {
        mni_json_push_index(&r->json, dup);
        return mni_aosrig_fail(r, MN_INVALID_VALUE, "name",
                               "joint \"%s\" is named twice (also joints[%zu])", names[dup], first);
    }
    if (oom)
        return out_of_memory(r);
    mni_json_pop(&r->json, mark);
    r->pack->header.joint_names = names;
    r->pack->header.joint_count = (uint32_t)count;
    return MN_OK;
}

static mn_status read_eyes(mn_aosrig_reader *r)
{
    static const char *const sides[2] = {"left", "right"};
    json_t *eyes;
    mn_status st = typed(r, r->root, "eyes", true, JSON_OBJECT, "an object", &eyes);
    if (st != MN_OK)
        return st;
    size_t mark = mni_json_push_key(&r->json, "eyes");
    for (int k = 0; k < 2; k++) {
        json_t *eye, *joint;
        st = typed(r, eyes, sides[k], true, JSON_OBJECT, "an object", &eye);
        if (st != MN_OK)
            return st;
        size_t at = mni_json_push_key(&r->json, sides[k]);
        st = typed(r, eye, "joint", true, JSON_STRING, "a string", &joint);
        if (st != MN_OK)
            return st;
        uint32_t found = mn_aosrig_find_joint(r->pack, json_string_value(joint));
        if (found == UINT32_MAX)
            return mni_aosrig_fail(r, MN_INDEX_RANGE, "joint", "\"%s\" is not a joint of the pack",
                                   json_string_value(joint));
        r->pack->eye_joint[k] = found;
        r->pack->header.eye_joints[k] = r->pack->header.joint_names[found];
        mni_json_pop(&r->json, at);
    }
    mni_json_pop(&r->json, mark);
    return MN_OK;
}

static mn_status read_bind_transform(mn_aosrig_reader *r)
{
    mn_aosrig_header *h = &r->pack->header;
    for (int i = 0; i < 16; i++)
        h->bind_transform[i] = (i % 5 == 0) ? 1.0 : 0.0;
    json_t *m;
    mn_status st = typed(r, r->root, "bindTransform", false, JSON_ARRAY, "an array", &m);
    if (st != MN_OK || !m) {
        for (int i = 0; i < 16; i++)
            r->pack->bind_transform[i] = (float)h->bind_transform[i];
        return st;
    }
    if (json_array_size(m) != 16)
        return mni_aosrig_fail(r, MN_COUNT_MISMATCH, "bindTransform",
                               "%zu numbers; a 4x4 matrix has 16", json_array_size(m));
    size_t mark = mni_json_push_key(&r->json, "bindTransform");
    for (size_t i = 0; i < 16; i++) {
        json_t *v = json_array_get(m, i);
        size_t at = mni_json_push_index(&r->json, i);
        if (!json_is_number(v))
            return mni_aosrig_fail(r, MN_JSON_TYPE, NULL, "expected a number, found %s",
                                   type_name(v));
        double x = json_number_value(v);
        if (!isfinite((float)x))
            return mni_aosrig_fail(r, MN_NOT_FINITE, NULL, "%g is not finite as a float", x);
        h->bind_transform[i] = x;
        r->pack->bind_transform[i] = (float)x;
        mni_json_pop(&r->json, at);
    }
    mni_json_pop(&r->json, mark);
    h->has_bind_transform = true;
    return MN_OK;
}

/* mouth and source: kept as the compact JSON text the writer prints (null counts as absent). */
static mn_status read_free_form(mn_aosrig_reader *r, const char *key, const char **out)
{
    json_t *v = json_object_get(r->root, key);
    *out = NULL;
    if (!v || json_is_null(v))
        return MN_OK;
    mn_jstext text;
    mni_jstext_init(&text, r->allocator);
    bool ok = mni_js_put_value(&text, v);
    if (ok)
        *out = mni_arena_strndup(r->arena, text.data, text.len);
    mni_jstext_free(&text);
    return *out ? MN_OK : out_of_memory(r);
}

/* ---- buffers ---------------------------------------------------------------------- */

static mn_status read_dtype(mn_aosrig_reader *r, json_t *entry, mn_aosrig_dtype *out)
{
    json_t *v;
    mn_status st = typed(r, entry, "dtype", true, JSON_STRING, "a string", &v);
    if (st != MN_OK)
        return st;
    for (int d = 0; d < MN_AOSRIG_DTYPE_COUNT; d++)
        if (strcmp(json_string_value(v), mn_aosrig_dtype_name((mn_aosrig_dtype)d)) == 0) {
            *out = (mn_aosrig_dtype)d;
            return MN_OK;
        }
    return mni_aosrig_fail(r, MN_INVALID_VALUE, "dtype",
                           "\"%s\" is not a dtype (f32 f16 u8 u16 u32 i32)", json_string_value(v));
}

static mn_status read_shape(mn_aosrig_reader *r, json_t *entry, mn_aosrig_blob *b)
{
    json_t *shape;
    mn_status st = typed(r, entry, "shape", true, JSON_ARRAY, "an array", &shape);
    if (st != MN_OK)
        return st;
    size_t rank = json_array_size(shape);
    if (rank > 16)
        return mni_aosrig_fail(r, MN_INVALID_VALUE, "shape", "%zu dimensions (at most 16)", rank);
    uint64_t *dims = mni_arena_alloc(r->arena, rank * sizeof *dims, 8);
    if (!dims && rank)
        return out_of_memory(r);
    size_t mark = mni_json_push_key(&r->json, "shape");
    for (size_t d = 0; d < rank; d++) {
        size_t at = mni_json_push_index(&r->json, d);
        st = integer_value(r, json_array_get(shape, d), NULL, 0, MN_AOSRIG_MAX_SAFE_INTEGER,
                           "a dimension", &dims[d]);
        if (st != MN_OK)
            return st;
        mni_json_pop(&r->json, at);
    }
    mni_json_pop(&r->json, mark);
    b->shape = dims;
    b->rank = (uint32_t)rank;
    return MN_OK;
}

static mn_status read_buffer(mn_aosrig_reader *r, json_t *entry, mn_aosrig_blob *b)
{
    if (!json_is_object(entry))
        return mni_aosrig_fail(r, MN_JSON_TYPE, NULL, "expected an object, found %s",
                               type_name(entry));
    mn_status st = string_member(r, entry, "name", &b->name);
    if (st == MN_OK)
        st = read_dtype(r, entry, &b->dtype);
    if (st == MN_OK)
        st = read_shape(r, entry, b);
    if (st == MN_OK)
        st = integer_member(r, entry, "offset", 0, MN_AOSRIG_MAX_SAFE_INTEGER, "a byte offset",
                            &b->offset);
    if (st == MN_OK)
        st = integer_member(r, entry, "byteLength", 0, MN_AOSRIG_MAX_SAFE_INTEGER,
                            "a byte length", &b->size);
    return st;
}

static mn_status read_buffers(mn_aosrig_reader *r)
{
    json_t *buffers;
    mn_status st = typed(r, r->root, "buffers", true, JSON_ARRAY, "an array", &buffers);
    if (st != MN_OK)
        return st;
    size_t count = json_array_size(buffers);
    if (count > UINT32_MAX)
        return mni_aosrig_fail(r, MN_INVALID_VALUE, "buffers", "too many buffers");
    mn_aosrig_blob *blobs = mni_arena_calloc(r->arena, count, sizeof *blobs, 8);
    if (!blobs && count)
        return out_of_memory(r);
    size_t mark = mni_json_push_key(&r->json, "buffers");
    for (size_t i = 0; i < count; i++) {
        size_t at = mni_json_push_index(&r->json, i);
        st = read_buffer(r, json_array_get(buffers, i), &blobs[i]);
        if (st != MN_OK)
            return st;
        mni_json_pop(&r->json, at);
    }
    const char **names = mni_arena_alloc(r->arena, count * sizeof *names, 8);
    if (!names && count)
        return out_of_memory(r);
    for (size_t i = 0; i < count; i++)
        names[i] = blobs[i].name;
    size_t dup, first;
    bool oom;
    if (first_duplicate(r->arena, names, count, &dup, &first, &oom)) {
        mni_json_push_index(&r->json, dup);
        return mni_aosrig_fail(r, MN_INVALID_VALUE, "name",
                               "blob \"%s\" is listed twice (also buffers[%zu])", names[dup],
                               first);
    }
    if (oom)
        return out_of_memory(r);
    mni_json_pop(&r->json, mark);
    r->pack->blobs = blobs;
    r->pack->blob_count = (uint32_t)count;
    return MN_OK;
}

mn_status mni_aosrig_read_header(mn_aosrig_reader *r)
{
    mn_status st = read_identity(r);
    if (st == MN_OK)
        st = read_counts(r);
    if (st == MN_OK)
        st = read_names(r);
    if (st == MN_OK)
        st = read_head_ext(r);
    if (st == MN_OK)
        st = read_joints(r);
    if (st == MN_OK)
        st = read_eyes(r);
    if (st == MN_OK)
        st = read_bind_transform(r);
    if (st == MN_OK)
        st = read_free_form(r, "mouth", &r->pack->header.mouth_json);
    if (st == MN_OK)
        st = read_free_form(r, "source", &r->pack->header.source_json);
    if (st == MN_OK)
        st = read_buffers(r);
    return st;
}
