/*
 * What the glTF writer writes, decided before a byte is printed: every
 * accessor of the output (from which model accessor or float array, converted
 * how, with which bounds), which meshes get quantized positions and the node
 * transforms that absorb them, the animation samplers, and where each buffer
 * view lies in the one buffer.  The JSON printer and the buffer stream then
 * only read this plan, so the two always agree.
 *
 * Accessors are created in the order they are first needed (meshes, skins,
 * instancing attributes, animations) and shared through a small hash table
 * keyed by what they are made from: the same model accessor used twice the
 * same way is written once, and so is a float array that several animation
 * samplers share.  Keys compare pointers for equality only, so the output never
 * depends on where things lie in memory.
 */
#include "gltf/write_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- keys ------------------------------------------------------------------------------------ */

/* Kinds of keys (the `a` of mn_wkey, beside the conversion). */
enum {
    KEY_VERTEX = 1u << 8,   /* used as a vertex attribute: 4-byte element alignment */
    KEY_INDEX = 2u << 8,
    KEY_FLOATS = 3u << 8,
    KEY_INSTANCE = 4u << 8, /* an EXT_mesh_gpu_instancing attribute: copied, no target */
    KEY_MESHOPT = 5u << 8   /* b: count, c: bits; a: the filter and components beside the kind */
};

static uint32_t key_hash(const mn_wkey *k)
{
    uint64_t h = (uint64_t)(uintptr_t)k->ptr * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)k->a << 32 | k->b) * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)k->c * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    return (uint32_t)h;
}

static bool key_equal(const mn_wkey *x, const mn_wkey *y)
{
    return x->ptr == y->ptr && x->a == y->a && x->b == y->b && x->c == y->c;
}

/* The slot holding key k, or the empty slot where it would go. */
static uint32_t *key_slot(mn_wtable *t, const mn_wkey *k)
{
    uint32_t i = key_hash(k) & t->mask;
    while (t->slots[i] != 0 && !key_equal(&t->keys[t->slots[i] - 1], k))
        i = (i + 1) & t->mask;
    return &t->slots[i];
}

static uint32_t key_find(mn_wtable *t, mn_wkey k)
{
    uint32_t *slot = key_slot(t, &k);
    return *slot ? *slot - 1 : MN_NONE;
}

/* Entry of key k: true when it is new (numbered t->count - 1). */
static bool key_add(mn_wtable *t, mn_wkey k, uint32_t *index)
{
    uint32_t *slot = key_slot(t, &k);
    if (*slot) {
        *index = *slot - 1;
        return false;
    }
    /* The capacity was counted from the model before planning. */
    *index = t->count++;
    t->keys[*index] = k;
    *slot = *index + 1;
    return true;
}

/* A new accessor for key k (the caller fills it), or NULL when k has one (*index set either way). */
static mn_wacc *acc_add(mn_gltf_writer *w, mn_wkey k, uint32_t *index)
{
    if (!key_add(&w->acc_table, k, index))
        return NULL;
    w->acc_count = w->acc_table.count;
    memset(&w->accs[*index], 0, sizeof w->accs[*index]);
    return &w->accs[*index];
}

/* ---- failing ----------------------------------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static mn_status fail(mn_gltf_writer *w, mn_status code, const char *path, const char *fmt, ...)
{
    char message[sizeof w->err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return mni_error_set(w->err, code, path, -1, "%s", message);
}

/* ---- reading model accessors ------------------------------------------------------------------- */

/* Rows of a matrix type (columns are padded to 4 bytes for 1- and 2-byte components). */
static uint32_t matrix_rows(mn_accessor_type t)
{
    return t == MN_TYPE_MAT2 ? 2 : t == MN_TYPE_MAT3 ? 3 : t == MN_TYPE_MAT4 ? 4 : 0;
}

/* Byte offset of component k within an element. */
static uint32_t component_offset(const mn_accessor *a, uint32_t k)
{
    uint32_t size = mn_component_size(a->component);
    uint32_t rows = matrix_rows(a->type);
    if (rows == 0)
        return k * size;
    uint32_t column = (rows * size + 3u) & ~3u;
    return (k / rows) * column + (k % rows) * size;
}

/* Component k of element i as a double, in the component's own values (not normalized). */
static double component_value(const mn_accessor *a, uint32_t i, uint32_t k)
{
    const uint8_t *p = a->data + (size_t)i * a->stride + component_offset(a, k);
    switch (a->component) {
    case MN_COMPONENT_I8: return (double)(int8_t)p[0];
    case MN_COMPONENT_U8: return (double)p[0];
    case MN_COMPONENT_I16: { int16_t v; memcpy(&v, p, 2); return (double)v; }
    case MN_COMPONENT_U16: { uint16_t v; memcpy(&v, p, 2); return (double)v; }
    case MN_COMPONENT_U32: { uint32_t v; memcpy(&v, p, 4); return (double)v; }
    case MN_COMPONENT_F32: { float v; memcpy(&v, p, 4); return (double)v; }
    default: return 0.0;
    }
}

/* Element i of an f32 accessor of n components. */
static void read_floats(const mn_accessor *a, uint32_t i, float *out, uint32_t n)
{
    memcpy(out, a->data + (size_t)i * a->stride, n * sizeof(float));
}

/* ---- conversions (shared by the plan's bounds and the byte stream) ------------------------------- */

static int16_t quantize_position(float p, float center, float half)
{
    double q = round(((double)p - (double)center) / (double)half * 32767.0);
    return (int16_t)(q > 32767.0 ? 32767.0 : q < -32767.0 ? -32767.0 : q);
}

static uint16_t quantize_uv(float v)
{
    return (uint16_t)round((double)v * 65535.0);
}

/*
 * A normal as normalized i8: of the 8 ways to round its three components
 * (down or up each), the one that decodes closest to unit length, ties going
 * to the one closest to the input.  Plain rounding can miss unit length by
 * more than glTF validators allow.  Non-unit inputs (zero normals) are rounded.
 */
static void quantize_normal(const float n[3], int8_t out[3])
{
    double v[3], lo[3];
    for (int i = 0; i < 3; i++) {
        double x = isfinite(n[i]) ? (double)n[i] : 0.0;
        v[i] = fmax(-127.0, fmin(127.0, x * 127.0));
        lo[i] = floor(v[i]);
    }
    double length = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) / 127.0;
    double best_len = INFINITY, best_dist = INFINITY;
    double pick[3] = {round(v[0]), round(v[1]), round(v[2])};
    if (fabs(length - 1.0) < 0.01) {
        for (int m = 0; m < 8; m++) {
            double c[3], d = 0.0, l = 0.0;
            for (int i = 0; i < 3; i++) {
                c[i] = fmin(127.0, lo[i] + (double)((m >> i) & 1));
                l += c[i] * c[i];
                d += (c[i] - v[i]) * (c[i] - v[i]);
            }
            double err = fabs(sqrt(l) / 127.0 - 1.0);
            if (err < best_len - 1e-12 || (fabs(err - best_len) <= 1e-12 && d < best_dist)) {
                best_len = err;
                best_dist = d;
                memcpy(pick, c, sizeof pick);
            }
        }
    }
    for (int i = 0; i < 3; i++)
        out[i] = (int8_t)pick[i];
}

/* ---- bounds ---------------------------------------------------------------------------------------- */

/* Room for the bounds of n components (kept when the accessor has some already); false when out of memory. */
static bool bounds_reset(mn_gltf_writer *w, mn_wacc *acc, uint32_t n)
{
    if (!acc->min) {
        acc->min = mni_arena_alloc(&w->arena, 2 * (size_t)n * sizeof *acc->min, _Alignof(double));
        if (!acc->min)
            return false;
        acc->max = acc->min + n;
    }
    acc->has_bounds = true;
    for (uint32_t k = 0; k < n; k++) {
        acc->min[k] = INFINITY;
        acc->max[k] = -INFINITY;
    }
    return true;
}

static void bounds_add(mn_wacc *acc, uint32_t k, double v)
{
    /* NaN never becomes a bound; JSON could not hold it, and a NaN datum is the data's flaw. */
    if (v < acc->min[k])
        acc->min[k] = v;
    if (v > acc->max[k])
        acc->max[k] = v;
}

/* min/max of what the accessor will hold, in its written components; MN_OUT_OF_MEMORY is the one error. */
static mn_status compute_bounds(mn_gltf_writer *w, mn_wacc *acc)
{
    uint32_t n = mn_accessor_components(acc->type);
    if (acc->source == MN_WSOURCE_QNORMAL || acc->source == MN_WSOURCE_QUV) {
        acc->has_bounds = false;   /* quantized normals and uvs: bounds are not required */
        return MN_OK;
    }
    if (!bounds_reset(w, acc, n))
        return mni_oom(w->err, "planning the bounds of an accessor");
    const mn_accessor *a = acc->from;
    switch (acc->source) {
    case MN_WSOURCE_COPY:
        if (a->component == MN_COMPONENT_F32 && mn_accessor_components(a->type) <= 4) {
            /* The common case (positions), read as floats without the per-component switch. */
            for (uint32_t i = 0; i < acc->count; i++) {
                float v[4];
                read_floats(a, i, v, n);
                for (uint32_t k = 0; k < n; k++)
                    bounds_add(acc, k, (double)v[k]);
            }
            break;
        }
        for (uint32_t i = 0; i < acc->count; i++)
            for (uint32_t k = 0; k < n; k++)
                bounds_add(acc, k, component_value(a, i, k));
        break;
    case MN_WSOURCE_QPOS:
        for (uint32_t i = 0; i < acc->count; i++) {
            float p[3];
            read_floats(a, i, p, 3);
            for (uint32_t k = 0; k < 3; k++)
                bounds_add(acc, k, quantize_position(p[k], acc->center[k], acc->half));
        }
        break;
    case MN_WSOURCE_SCALED:
        for (uint32_t i = 0; i < acc->count; i++) {
            float p[3];
            read_floats(a, i, p, 3);
            for (uint32_t k = 0; k < 3; k++)
                bounds_add(acc, k, (double)(p[k] / acc->half));
        }
        break;
    case MN_WSOURCE_FLOATS:
    case MN_WSOURCE_MESHOPT:   /* floats: the values as they decode */
        for (uint32_t i = 0; i < acc->count; i++)
            for (uint32_t k = 0; k < n; k++)
                bounds_add(acc, k, (double)acc->floats[(size_t)i * n + k]);
        break;
    case MN_WSOURCE_BOOLS:
        for (uint32_t i = 0; i < acc->count; i++)
            bounds_add(acc, 0, acc->floats[i] != 0.0f ? 1.0 : 0.0);
        break;
    default:
        break;
    }
    for (uint32_t k = 0; k < n; k++)
        if (!(acc->min[k] <= acc->max[k]))   /* every value was NaN */
            acc->has_bounds = false;
    return MN_OK;
}

/* ---- accessor producers ------------------------------------------------------------------------------ */

static uint32_t round4(uint32_t x)
{
    return (x + 3u) & ~3u;
}

/* A model accessor fit to be written: indices valid, elements present. */
static mn_status check_accessor(mn_gltf_writer *w, uint32_t index, const char *path)
{
    const mn_model *m = w->model;
    if (index >= m->accessor_count)
        return fail(w, MN_INDEX_RANGE, path, "%s: accessor %u is out of range (the model has %u)",
                    path, index, m->accessor_count);
    const mn_accessor *a = &m->accessors[index];
    if (a->count == 0 || a->data == NULL || mn_accessor_components(a->type) == 0 ||
        mn_component_size(a->component) == 0)
        return fail(w, MN_INVALID_ARGUMENT, path,
                    "%s: accessor %u has no elements, no data, or no valid type (glTF needs at least one element)",
                    path, index);
    return MN_OK;
}

/* Fill a new accessor made from model accessor `from`, converted by `source`. */
static void init_from(mn_wacc *acc, const mn_accessor *from, mn_wsource source, bool vertex)
{
    acc->source = source;
    acc->from = from;
    acc->name = from->name;
    acc->count = from->count;
    switch (source) {
    case MN_WSOURCE_QPOS:
        acc->component = MN_COMPONENT_I16;
        acc->normalized = true;
        break;
    case MN_WSOURCE_QNORMAL:
        acc->component = MN_COMPONENT_I8;
        acc->normalized = true;
        break;
    case MN_WSOURCE_QUV:
        acc->component = MN_COMPONENT_U16;
        acc->normalized = true;
        break;
    default:
        acc->component = from->component;
        acc->normalized = from->normalized;
        break;
    }
    acc->type = from->type;
    mn_accessor probe = *from;
    probe.component = acc->component;
    acc->element_size = mn_accessor_element_size(&probe);
    acc->stride = vertex ? round4(acc->element_size) : acc->element_size;
    acc->target = vertex ? MN_GL_ARRAY_BUFFER : 0;
}

static bool is_f32(const mn_accessor *a, mn_accessor_type t)
{
    return a->component == MN_COMPONENT_F32 && a->type == t;
}

/* Every component of an f32 VEC2 accessor lies in [0, 1]. */
static bool in_unit_range(const mn_accessor *a)
{
    for (uint32_t i = 0; i < a->count; i++) {
        float uv[2];
        read_floats(a, i, uv, 2);
        if (!(uv[0] >= 0.0f && uv[0] <= 1.0f && uv[1] >= 0.0f && uv[1] <= 1.0f))
            return false;
    }
    return true;
}

/*
 * Does an attribute of this layout need KHR_mesh_quantization?  The same
 * table as the reader's: core glTF allows f32 everywhere (JOINTS aside),
 * normalized u8/u16 TEXCOORD, COLOR and WEIGHTS, u8/u16 JOINTS.
 */
static bool needs_quantization(mn_semantic s, const mn_wacc *acc)
{
    if (acc->component == MN_COMPONENT_F32)
        return false;
    bool small_unsigned = acc->component == MN_COMPONENT_U8 || acc->component == MN_COMPONENT_U16;
    switch (s) {
    case MN_SEMANTIC_POSITION:
    case MN_SEMANTIC_NORMAL:
    case MN_SEMANTIC_TANGENT:
        return true;
    case MN_SEMANTIC_TEXCOORD:
        return !(small_unsigned && acc->normalized);
    default:
        return false;
    }
}

/* How attribute `semantic` of mesh `mesh` is converted, given the options and the plan so far. */
static mn_wsource attribute_source(const mn_gltf_writer *w, uint32_t mesh, mn_semantic semantic,
                                   bool target, const mn_accessor *a)
{
    if (!w->options.quantize)
        return MN_WSOURCE_COPY;
    bool mesh_quantized = w->meshes[mesh].quantized;
    if (semantic == MN_SEMANTIC_POSITION && mesh_quantized && is_f32(a, MN_TYPE_VEC3))
        return target ? MN_WSOURCE_SCALED : MN_WSOURCE_QPOS;
    if (target)
        return MN_WSOURCE_COPY;
    if (semantic == MN_SEMANTIC_NORMAL && is_f32(a, MN_TYPE_VEC3))
        return MN_WSOURCE_QNORMAL;
    if (semantic == MN_SEMANTIC_TEXCOORD && is_f32(a, MN_TYPE_VEC2) && in_unit_range(a))
        return MN_WSOURCE_QUV;
    return MN_WSOURCE_COPY;
}

static mn_wkey attribute_key(const mn_gltf_writer *w, uint32_t mesh, mn_wsource source, uint32_t accessor)
{
    bool per_mesh = source == MN_WSOURCE_QPOS || source == MN_WSOURCE_SCALED;
    mn_wkey k = {&w->model->accessors[accessor], KEY_VERTEX | (uint32_t)source, per_mesh ? mesh : 0, 0};
    return k;
}

/* Plan (or find) the accessor of a mesh attribute. */
static mn_status plan_attribute(mn_gltf_writer *w, uint32_t mesh, mn_semantic semantic, bool target,
                                uint32_t accessor, const char *path)
{
    mn_status st = check_accessor(w, accessor, path);
    if (st != MN_OK)
        return st;
    const mn_accessor *a = &w->model->accessors[accessor];
    mn_wsource source = attribute_source(w, mesh, semantic, target, a);
    uint32_t index;
    mn_wacc *acc = acc_add(w, attribute_key(w, mesh, source, accessor), &index);
    if (acc) {
        init_from(acc, a, source, true);
        if (source == MN_WSOURCE_QPOS || source == MN_WSOURCE_SCALED) {
            memcpy(acc->center, w->meshes[mesh].center, sizeof acc->center);
            acc->half = w->meshes[mesh].half;
        }
        if (source == MN_WSOURCE_QPOS || source == MN_WSOURCE_SCALED || semantic == MN_SEMANTIC_POSITION ||
            (source == MN_WSOURCE_COPY && a->has_bounds))
            st = compute_bounds(w, acc);
    } else {
        acc = &w->accs[index];
        /* A POSITION use needs bounds even when an earlier use did not. */
        if (semantic == MN_SEMANTIC_POSITION && !acc->has_bounds)
            st = compute_bounds(w, acc);
    }
    if (st != MN_OK)
        return st;
    if (needs_quantization(semantic, acc))
        w->uses_quantization = true;
    return MN_OK;
}

uint32_t mni_gltf_write_attribute(mn_gltf_writer *w, uint32_t mesh, mn_semantic semantic, bool target,
                                  uint32_t accessor)
{
    if (accessor >= w->model->accessor_count)
        return MN_NONE;
    mn_wsource source = attribute_source(w, mesh, semantic, target, &w->model->accessors[accessor]);
    return key_find(&w->acc_table, attribute_key(w, mesh, source, accessor));
}

static mn_wkey indices_key(const mn_gltf_writer *w, uint32_t accessor)
{
    mn_wkey k = {&w->model->accessors[accessor], KEY_INDEX, 0, 0};
    return k;
}

uint32_t mni_gltf_write_indices(mn_gltf_writer *w, uint32_t accessor)
{
    return accessor < w->model->accessor_count ? key_find(&w->acc_table, indices_key(w, accessor)) : MN_NONE;
}

static mn_status plan_indices(mn_gltf_writer *w, uint32_t accessor, const char *path)
{
    mn_status st = check_accessor(w, accessor, path);
    if (st != MN_OK)
        return st;
    const mn_accessor *a = &w->model->accessors[accessor];
    if (a->type != MN_TYPE_SCALAR ||
        !(a->component == MN_COMPONENT_U8 || a->component == MN_COMPONENT_U16 || a->component == MN_COMPONENT_U32))
        return fail(w, MN_INVALID_VALUE, path, "%s: accessor %u is not a SCALAR of u8, u16 or u32", path, accessor);
    uint32_t index;
    mn_wacc *acc = acc_add(w, indices_key(w, accessor), &index);
    if (acc) {
        init_from(acc, a, MN_WSOURCE_COPY, false);
        acc->target = MN_GL_ELEMENT_ARRAY_BUFFER;
        if (a->has_bounds)
            return compute_bounds(w, acc);
    }
    return MN_OK;
}

/* Plan (or find) an accessor over `count` elements of `type` f32 at `floats`. */
static uint32_t plan_floats(mn_gltf_writer *w, const float *floats, uint32_t count, mn_accessor_type type,
                            bool bounds)
{
    mn_wkey k = {floats, KEY_FLOATS | (uint32_t)type, count, 0};
    uint32_t index;
    mn_wacc *acc = acc_add(w, k, &index);
    if (acc) {
        acc->source = MN_WSOURCE_FLOATS;
        acc->floats = floats;
        acc->count = count;
        acc->component = MN_COMPONENT_F32;
        acc->type = type;
        acc->element_size = acc->stride = 4u * mn_accessor_components(type);
    } else {
        acc = &w->accs[index];
    }
    if (bounds && !acc->has_bounds && compute_bounds(w, acc) != MN_OK)
        return MN_NONE;
    return index;
}

/* A bool track's keys (0 or not) as unsigned bytes: what KHR_animation_pointer requires of a bool. */
static uint32_t plan_bools(mn_gltf_writer *w, const float *floats, uint32_t count)
{
    mn_wkey k = {floats, KEY_FLOATS | 15u, count, 0};
    uint32_t index;
    mn_wacc *acc = acc_add(w, k, &index);
    if (acc) {
        acc->source = MN_WSOURCE_BOOLS;
        acc->floats = floats;
        acc->count = count;
        acc->component = MN_COMPONENT_U8;
        acc->type = MN_TYPE_SCALAR;
        acc->element_size = acc->stride = 1;
    }
    return index;
}

uint32_t mni_gltf_write_ibm(mn_gltf_writer *w, uint32_t skin)
{
    const mn_skin *s = &w->model->skins[skin];
    if (!s->inverse_bind || s->joint_count == 0)
        return MN_NONE;
    mn_wkey k = {s->inverse_bind, KEY_FLOATS | (uint32_t)MN_TYPE_MAT4, s->joint_count, 0};
    return key_find(&w->acc_table, k);
}

/* ---- meshes and their quantization --------------------------------------------------------------- */

/* Per node: an animation channel moves its translation, rotation or scale. */
static bool *animated_trs(mn_gltf_writer *w)
{
    const mn_model *m = w->model;
    bool *moved = mni_arena_calloc(&w->arena, m->node_count ? m->node_count : 1, sizeof *moved, 1);
    if (!moved)
        return NULL;
    for (uint32_t a = 0; a < m->animation_count; a++)
        for (uint32_t c = 0; c < m->animations[a].channel_count; c++) {
            const mn_channel *ch = &m->animations[a].channels[c];
            if (ch->node < m->node_count && ch->path != MN_PATH_WEIGHTS && ch->path != MN_PATH_POINTER)
                moved[ch->node] = true;
            mn_pointer_property pp = ch->pointer.property;
            if (ch->path == MN_PATH_POINTER && ch->pointer.index < m->node_count &&
                (pp == MN_PROP_NODE_TRANSLATION || pp == MN_PROP_NODE_ROTATION || pp == MN_PROP_NODE_SCALE))
                moved[ch->pointer.index] = true;
        }
    return moved;
}

/*
 * Whether mesh `mi`'s positions can be quantized, and with which center and
 * half-extent: see "Quantization" in gltf.h for when a mesh stays f32.
 */
static void choose_mesh_quantization(mn_gltf_writer *w, uint32_t mi, const bool *moved)
{
    const mn_model *m = w->model;
    const mn_mesh *mesh = &m->meshes[mi];
    mn_wmesh *q = &w->meshes[mi];
    uint32_t instances = 0;
    for (uint32_t n = 0; n < m->node_count; n++) {
        const mn_node *node = &m->nodes[n];
        if (node->mesh != mi)
            continue;
        /* A fold would move the node's light, and cannot go between the node and its instances. */
        if (node->child_count != 0 || node->skin != MN_NONE || node->camera != MN_NONE || moved[n] ||
            node->instance_count != 0 || node->light < m->light_count)
            return;
        instances++;
    }
    if (instances == 0)
        return;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    bool any = false;
    for (uint32_t p = 0; p < mesh->primitive_count; p++) {
        uint32_t pos = mn_primitive_find(&mesh->primitives[p], MN_SEMANTIC_POSITION, 0);
        if (pos == MN_NONE)
            continue;
        if (pos >= m->accessor_count || !is_f32(&m->accessors[pos], MN_TYPE_VEC3) || !m->accessors[pos].data)
            return;
        const mn_accessor *a = &m->accessors[pos];
        for (uint32_t i = 0; i < a->count; i++) {
            float v[3];
            read_floats(a, i, v, 3);
            for (int k = 0; k < 3; k++) {
                if (!isfinite(v[k]))
                    return;
                lo[k] = fmin(lo[k], v[k]);
                hi[k] = fmax(hi[k], v[k]);
            }
            any = true;
        }
    }
    if (!any)
        return;
    double half = 0.0;
    for (int k = 0; k < 3; k++) {
        q->center[k] = (float)(0.5 * (lo[k] + hi[k]));
        half = fmax(half, 0.5 * (hi[k] - lo[k]));
    }
    if (!(half > 0.0) || !isfinite((float)half))
        return;
    q->half = (float)half;
    q->quantized = true;
}

/* translation += R·(S∘center), scale *= half: the node then maps quantized positions to the mesh's. */
static void fold_node(mn_gltf_writer *w, uint32_t n)
{
    const mn_node *node = &w->model->nodes[n];
    const mn_wmesh *q = &w->meshes[node->mesh];
    double v[3], x = node->rotation[0], y = node->rotation[1], z = node->rotation[2], s = node->rotation[3];
    for (int k = 0; k < 3; k++)
        v[k] = (double)node->scale[k] * (double)q->center[k];
    /* v + 2·u×(u×v + s·v), u = (x, y, z): the rotation of v by the unit quaternion (x, y, z, s). */
    double t[3] = {y * v[2] - z * v[1] + s * v[0], z * v[0] - x * v[2] + s * v[1], x * v[1] - y * v[0] + s * v[2]};
    double r[3] = {v[0] + 2.0 * (y * t[2] - z * t[1]), v[1] + 2.0 * (z * t[0] - x * t[2]),
                   v[2] + 2.0 * (x * t[1] - y * t[0])};
    for (int k = 0; k < 3; k++) {
        w->node_translation[n][k] = (float)((double)node->translation[k] + r[k]);
        w->node_scale[n][k] = (float)((double)node->scale[k] * (double)q->half);
    }
    w->node_folds[n] = true;
}

static mn_status plan_meshes(mn_gltf_writer *w)
{
    const mn_model *m = w->model;
    if (w->options.quantize) {
        bool *moved = animated_trs(w);
        if (!moved)
            return mni_oom(w->err, "planning quantization");
        for (uint32_t n = 0; n < m->node_count; n++)
            if (m->nodes[n].mesh != MN_NONE && m->nodes[n].mesh >= m->mesh_count) {
                char at[48];
                snprintf(at, sizeof at, "nodes[%u].mesh", n);
                return fail(w, MN_INDEX_RANGE, at, "%s: mesh %u is out of range (the model has %u)", at,
                            m->nodes[n].mesh, m->mesh_count);
            }
        for (uint32_t i = 0; i < m->mesh_count; i++)
            choose_mesh_quantization(w, i, moved);
        for (uint32_t n = 0; n < m->node_count; n++)
            if (m->nodes[n].mesh != MN_NONE && w->meshes[m->nodes[n].mesh].quantized)
                fold_node(w, n);
    }
    char path[160];
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const mn_mesh *mesh = &m->meshes[i];
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const mn_primitive *prim = &mesh->primitives[p];
            mn_status st;
            for (uint32_t a = 0; a < prim->attribute_count; a++) {
                const mn_attribute *attr = &prim->attributes[a];
                snprintf(path, sizeof path, "meshes[%u].primitives[%u].attributes.%.64s", i, p,
                         attr->name ? attr->name : "?");
                if ((st = plan_attribute(w, i, attr->semantic, false, attr->accessor, path)) != MN_OK)
                    return st;
            }
            if (prim->indices != MN_NONE) {
                snprintf(path, sizeof path, "meshes[%u].primitives[%u].indices", i, p);
                if ((st = plan_indices(w, prim->indices, path)) != MN_OK)
                    return st;
            }
            for (uint32_t t = 0; t < prim->target_count; t++) {
                static const mn_semantic semantics[3] = {MN_SEMANTIC_POSITION, MN_SEMANTIC_NORMAL,
                                                         MN_SEMANTIC_TANGENT};
                const uint32_t accessors[3] = {prim->targets[t].position, prim->targets[t].normal,
                                               prim->targets[t].tangent};
                for (int k = 0; k < 3; k++) {
                    if (accessors[k] == MN_NONE)
                        continue;
                    snprintf(path, sizeof path, "meshes[%u].primitives[%u].targets[%u].%s", i, p, t,
                             mni_semantic_name(semantics[k]));
                    if ((st = plan_attribute(w, i, semantics[k], true, accessors[k], path)) != MN_OK)
                        return st;
                }
            }
        }
    }
    return MN_OK;
}

/* ---- skins and animations -------------------------------------------------------------------------- */

static mn_status plan_skins(mn_gltf_writer *w)
{
    const mn_model *m = w->model;
    for (uint32_t i = 0; i < m->skin_count; i++) {
        const mn_skin *s = &m->skins[i];
        if (s->inverse_bind && s->joint_count)
            plan_floats(w, s->inverse_bind, s->joint_count, MN_TYPE_MAT4, false);
    }
    return MN_OK;
}

static mn_wkey instance_key(const mn_gltf_writer *w, uint32_t accessor)
{
    mn_wkey k = {&w->model->accessors[accessor], KEY_INSTANCE, 0, 0};
    return k;
}

uint32_t mni_gltf_write_instance_attribute(mn_gltf_writer *w, uint32_t accessor)
{
    return accessor < w->model->accessor_count ? key_find(&w->acc_table, instance_key(w, accessor)) : MN_NONE;
}

/* EXT_mesh_gpu_instancing: each node's TRANSLATION, ROTATION, SCALE accessors, copied as they are. */
static mn_status plan_instancing(mn_gltf_writer *w)
{
    const mn_model *m = w->model;
    static const char *const names[3] = {"TRANSLATION", "ROTATION", "SCALE"};
    char path[96];
    for (uint32_t n = 0; n < m->node_count; n++) {
        const mn_node *node = &m->nodes[n];
        if (node->instance_count == 0)
            continue;
        const uint32_t accs[3] = {node->instance_translation, node->instance_rotation, node->instance_scale};
        bool any = false;
        for (int k = 0; k < 3; k++) {
            if (accs[k] == MN_NONE)
                continue;
            snprintf(path, sizeof path, "nodes[%u].extensions.EXT_mesh_gpu_instancing.attributes.%s", n, names[k]);
            mn_status st = check_accessor(w, accs[k], path);
            if (st != MN_OK)
                return st;
            if (m->accessors[accs[k]].count != node->instance_count)
                return fail(w, MN_COUNT_MISMATCH, path, "%s: accessor %u holds %u elements for %u instances", path,
                            accs[k], m->accessors[accs[k]].count, node->instance_count);
            uint32_t index;
            mn_wacc *acc = acc_add(w, instance_key(w, accs[k]), &index);
            if (acc)
                init_from(acc, &m->accessors[accs[k]], MN_WSOURCE_COPY, false);
            any = true;
        }
        if (!any) {
            snprintf(path, sizeof path, "nodes[%u]", n);
            return fail(w, MN_INVALID_ARGUMENT, path, "%s: %u instances but no TRANSLATION, ROTATION or SCALE",
                        path, node->instance_count);
        }
        w->uses_instancing = true;
    }
    return MN_OK;
}

static const uint32_t PATH_COMPONENTS[3] = {3, 4, 3};

/*
 * Key times as glTF requires them (and the reader checks them): finite, the
 * first at 0 or later, strictly increasing; so no written file breaks that rule.
 */
static mn_status check_times(mn_gltf_writer *w, const mn_channel *ch, const char *path)
{
    const float *t = ch->times;
    for (uint32_t k = 0; k < ch->key_count; k++) {
        if (!isfinite(t[k]))
            return fail(w, MN_NOT_FINITE, path, "%s: key time %u is not finite", path, k);
        if (k == 0 && t[0] < 0.0f)
            return fail(w, MN_INVALID_VALUE, path, "%s: key 0 is at %g s; glTF requires key times of 0 or more",
                        path, (double)t[0]);
        if (k > 0 && !(t[k] > t[k - 1]))
            return fail(w, MN_INVALID_VALUE, path,
                        "%s: key %u is at %g s, not after key %u at %g s; glTF requires strictly increasing "
                        "key times",
                        path, k, (double)t[k], k - 1, (double)t[k - 1]);
    }
    return MN_OK;
}

/* A pointer channel's output: the pointer's accessor type and its elements. */
static mn_status plan_pointer_output(mn_gltf_writer *w, const mn_channel *ch, const char *path,
                                     mn_accessor_type *type, uint64_t *elements)
{
    const mn_model *m = w->model;
    mn_pointer resolved;
    char why[128];
    mn_status st = ch->pointer.text ? mni_pointer_resolve(m, ch->pointer.text, &resolved, why, sizeof why)
                                    : MN_INVALID_VALUE;
    if (st != MN_OK)
        return fail(w, MN_INVALID_VALUE, path, "%s: the pointer \"%.96s\" names nothing in this model (%s)", path,
                    ch->pointer.text ? ch->pointer.text : "", ch->pointer.text ? why : "no text");
    if (ch->node != MN_NONE || resolved.property != ch->pointer.property || resolved.index != ch->pointer.index ||
        resolved.slot != ch->pointer.slot || resolved.components != ch->components)
        return fail(w, MN_INVALID_VALUE, path, "%s: the pointer \"%.96s\" does not match the channel's target",
                    path, ch->pointer.text);
    *type = mni_pointer_type(&resolved);
    if (*type == MN_TYPE_SCALAR)
        *elements *= ch->components;
    return MN_OK;
}

/*
 * Plan (or find) a meshopt-encoded accessor of `count` elements of `components`
 * floats (`type`), filtered as asked; MN_NONE after an error.
 */
static uint32_t plan_packed(mn_gltf_writer *w, const float *floats, uint32_t count, uint32_t components,
                            mn_accessor_type type, mn_wfilter filter, uint32_t bits, bool bounds)
{
    mn_wkey k = {floats, KEY_MESHOPT | (uint32_t)filter << 4 | components, count,
                 filter == MN_WFILTER_NONE ? 0 : bits};
    uint32_t index;
    mn_wacc *acc = acc_add(w, k, &index);
    if (!acc)
        return index;
    acc->type = type;
    w->uses_meshopt = true;
    if (mni_gltf_write_pack(w, acc, floats, count, components, filter, bits) != MN_OK ||
        (bounds && compute_bounds(w, acc) != MN_OK))
        return MN_NONE;
    return index;
}

/* Decoded times must keep glTF's rule (strictly increasing): too few bits can merge two. */
static mn_status check_packed_times(mn_gltf_writer *w, const mn_wacc *acc, const char *path)
{
    for (uint32_t k = 1; k < acc->count; k++)
        if (!(acc->floats[k] > acc->floats[k - 1]))
            return fail(w, MN_INVALID_VALUE, path,
                        "%s: at %u bits, key times %u and %u decode to %.9g and %.9g, not increasing; "
                        "give the times more bits",
                        path, acc->bits, k - 1, k, (double)acc->floats[k - 1], (double)acc->floats[k]);
    return MN_OK;
}

/* A channel's input and output as EXT_meshopt_compression views, encoded as `e` says. */
static mn_status plan_packed_channel(mn_gltf_writer *w, const mn_channel *ch, mn_gltf_channel_encoding e,
                                     uint32_t elements, mn_accessor_type type, const char *path,
                                     uint32_t *input, uint32_t *output)
{
    uint32_t known = w->acc_count;
    mn_wfilter tf = e.time_bits ? MN_WFILTER_EXPONENTIAL : MN_WFILTER_NONE;
    *input = plan_packed(w, ch->times, ch->key_count, 1, MN_TYPE_SCALAR, tf, e.time_bits, true);
    if (*input == MN_NONE)
        return w->err->code;
    mn_status st;
    if (w->acc_count > known && ((st = check_times(w, ch, path)) != MN_OK ||
                                 (st = check_packed_times(w, &w->accs[*input], path)) != MN_OK))
        return st;
    uint32_t components = type == MN_TYPE_SCALAR ? 1u : ch->components;
    mn_wfilter vf = e.value_bits == 0                                ? MN_WFILTER_NONE
                    : ch->path == MN_PATH_ROTATION && ch->interpolation != MN_INTERP_CUBICSPLINE &&
                              e.value_bits <= 16
                        ? MN_WFILTER_QUATERNION
                        : MN_WFILTER_EXPONENTIAL;
    *output = plan_packed(w, ch->values, elements, components, type, vf, e.value_bits, false);
    return *output == MN_NONE ? w->err->code : MN_OK;
}

static mn_status plan_channel(mn_gltf_writer *w, uint32_t ai, uint32_t ci, uint32_t flat, uint32_t *input,
                              uint32_t *output)
{
    const mn_model *m = w->model;
    const mn_channel *ch = &m->animations[ai].channels[ci];
    char path[96];
    snprintf(path, sizeof path, "animations[%u].channels[%u]", ai, ci);
    if (ch->path == MN_PATH_POINTER) {
        if ((unsigned)ch->interpolation > MN_INTERP_CUBICSPLINE || ch->key_count == 0 || !ch->times ||
            !ch->values)
            return fail(w, MN_INVALID_VALUE, path, "%s: a channel needs a glTF interpolation and a key", path);
        uint64_t elements = (uint64_t)ch->key_count * (ch->interpolation == MN_INTERP_CUBICSPLINE ? 3u : 1u);
        mn_accessor_type type = MN_TYPE_SCALAR;
        mn_status st = plan_pointer_output(w, ch, path, &type, &elements);
        if (st != MN_OK)
            return st;
        if (elements > UINT32_MAX / 16u)
            return fail(w, MN_OVERFLOW, path, "%s: too many keys", path);
        uint32_t known = w->acc_count;
        if ((*input = plan_floats(w, ch->times, ch->key_count, MN_TYPE_SCALAR, true)) == MN_NONE)
            return w->err->code;
        if (w->acc_count > known && (st = check_times(w, ch, path)) != MN_OK)
            return st;
        w->uses_animation_pointer = true;
        *output = mni_pointer_is_bool(ch->pointer.property) ? plan_bools(w, ch->values, (uint32_t)elements)
                                                            : plan_floats(w, ch->values, (uint32_t)elements, type, false);
        return MN_OK;
    }
    if (ch->node >= m->node_count)
        return fail(w, MN_INDEX_RANGE, path, "%s: node %u is out of range (the model has %u)", path, ch->node,
                    m->node_count);
    if ((unsigned)ch->path > MN_PATH_WEIGHTS || (unsigned)ch->interpolation > MN_INTERP_CUBICSPLINE)
        return fail(w, MN_INVALID_VALUE, path, "%s: the path or interpolation is not one glTF has", path);
    if (ch->key_count == 0 || !ch->times || !ch->values)
        return fail(w, MN_INVALID_ARGUMENT, path, "%s: a channel needs at least one key", path);
    uint32_t components = ch->path == MN_PATH_WEIGHTS ? ch->components : PATH_COMPONENTS[ch->path];
    if (ch->components != components || components == 0)
        return fail(w, MN_INVALID_VALUE, path, "%s: %u components per value do not suit its path", path,
                    ch->components);
    uint64_t elements = (uint64_t)ch->key_count * (ch->interpolation == MN_INTERP_CUBICSPLINE ? 3u : 1u);
    mn_accessor_type type = MN_TYPE_SCALAR;
    if (ch->path == MN_PATH_WEIGHTS)
        elements *= components;
    else
        type = components == 4 ? MN_TYPE_VEC4 : MN_TYPE_VEC3;
    if (elements > UINT32_MAX / 16u)
        return fail(w, MN_OVERFLOW, path, "%s: too many keys", path);
    if (w->options.channel_encodings)
        return plan_packed_channel(w, ch, w->options.channel_encodings[flat], (uint32_t)elements, type, path,
                                   input, output);
    uint32_t known = w->acc_count;
    *input = plan_floats(w, ch->times, ch->key_count, MN_TYPE_SCALAR, true);
    if (*input == MN_NONE)
        return w->err->code;
    mn_status st;
    if (w->acc_count > known && (st = check_times(w, ch, path)) != MN_OK)   /* once per time array */
        return st;
    *output = plan_floats(w, ch->values, (uint32_t)elements, type, false);
    return MN_OK;
}

/*
 * Channels sharing their input, output and interpolation share one written
 * sampler (the reader gives the channels of one glTF sampler the same arrays).
 */
static mn_status plan_animations(mn_gltf_writer *w)
{
    const mn_model *m = w->model;
    uint32_t flat = 0;
    for (uint32_t ai = 0; ai < m->animation_count; ai++) {
        const mn_animation *anim = &m->animations[ai];
        w->anim_first_sampler[ai] = w->sampler_table.count;
        for (uint32_t ci = 0; ci < anim->channel_count; ci++, flat++) {
            uint32_t input = 0, output = 0, sampler;
            mn_status st = plan_channel(w, ai, ci, flat, &input, &output);
            if (st != MN_OK)
                return st;
            mn_interpolation interp = anim->channels[ci].interpolation;
            mn_wkey k = {anim, input, output, (uint32_t)interp};
            if (key_add(&w->sampler_table, k, &sampler)) {
                w->samplers[sampler].input = input;
                w->samplers[sampler].output = output;
                w->samplers[sampler].interpolation = interp;
            }
            w->channel_samplers[flat] = sampler - w->anim_first_sampler[ai];
        }
        w->anim_sampler_count[ai] = w->sampler_table.count - w->anim_first_sampler[ai];
    }
    return MN_OK;
}

/* ---- images and the buffer's layout --------------------------------------------------------------- */

/*
 * A URI the writer keeps must be one the reader reads back: the reader's own
 * checks (mni_uri_to_path without unsafe URIs: no "..", not absolute, no
 * scheme, valid percent escapes; a data: URI that decodes).  A refused one
 * is MN_URI naming the image; it is not embedded, because the writer reads
 * no files (the URI is relative to a folder it does not know).
 */
static mn_status check_image_uri(mn_gltf_writer *w, const char *uri, const char *path)
{
    char at[64];
    snprintf(at, sizeof at, "%s.uri", path);
    mn_error why;
    mni_error_clear(&why);
    mn_status st;
    mn_arena scratch;   /* what the checks decode is dropped at once */
    mni_arena_init(&scratch, &w->options.allocator);
    if (mni_uri_is_data(uri)) {
        mn_bytes bytes;
        const char *media;
        st = mni_data_uri_decode(&scratch, uri, &bytes, &media, at, &why);
    } else {
        char *decoded;
        st = mni_uri_to_path(&scratch, uri, false, &decoded, at, &why);
    }
    mni_arena_release(&scratch);
    if (st == MN_OUT_OF_MEMORY)
        return mni_oom(w->err, "checking %s", at);
    if (st != MN_OK)
        return fail(w, MN_URI, at, "%s; the reader would refuse it, so it is not written (embed the image's "
                    "bytes or give a URI inside the model's folder)", why.message);
    return MN_OK;
}

static mn_status plan_images(mn_gltf_writer *w)
{
    const mn_model *m = w->model;
    for (uint32_t i = 0; i < m->image_count; i++) {
        const mn_image *img = &m->images[i];
        char path[48];
        snprintf(path, sizeof path, "images[%u]", i);
        w->image_views[i] = MN_NONE;
        if (img->size > 0 && img->data) {
            if (!img->mime_type)
                return fail(w, MN_INVALID_ARGUMENT, path,
                            "%s: an image embedded in the buffer needs a mimeType (image/png, image/jpeg, ...)",
                            path);
            w->image_views[i] = 0;   /* numbered in plan_layout */
        } else if (!img->uri) {
            return fail(w, MN_INVALID_ARGUMENT, path, "%s: the image has neither bytes nor a uri", path);
        } else {
            mn_status st = check_image_uri(w, img->uri, path);
            if (st != MN_OK)
                return st;
        }
    }
    return MN_OK;
}

/* Every buffer view back to back, each starting 4-byte aligned: accessors first, then images. */
static mn_status plan_layout(mn_gltf_writer *w)
{
    size_t offset = 0, fallback = 0;
    uint32_t view = 0;
    for (uint32_t i = 0; i < w->acc_count; i++) {
        mn_wacc *acc = &w->accs[i];
        if (acc->source == MN_WSOURCE_MESHOPT)
            continue;   /* in its group's view */
        acc->view = view++;
        acc->offset = offset;
        if (!mni_checked_mul(acc->count, acc->stride, &acc->size) ||
            !mni_checked_add(offset, acc->size + 3u, &offset))
            return mni_fail(w->err, MN_OVERFLOW, "the buffer would be larger than memory can address");
        offset &= ~(size_t)3u;
    }
    /* Each group: the compressed bytes in buffer 0, the decoded view in the fallback, which holds none. */
    for (uint32_t g = 0; g < w->group_count; g++) {
        mn_wgroup *gr = &w->groups[g];
        gr->view = view++;
        gr->offset = offset;
        gr->fallback_offset = fallback;
        offset = (offset + gr->size + 3u) & ~(size_t)3u;
        if (!gr->plain)
            fallback += ((size_t)gr->count * gr->stride + 3u) & ~(size_t)3u;
    }
    for (uint32_t i = 0; i < w->acc_count; i++)
        if (w->accs[i].source == MN_WSOURCE_MESHOPT)
            w->accs[i].view = w->groups[w->accs[i].group].view;
    for (uint32_t i = 0; i < w->model->image_count; i++) {
        if (w->image_views[i] == MN_NONE)
            continue;
        w->image_views[i] = view++;
        w->image_offsets[i] = offset;
        if (!mni_checked_add(offset, w->model->images[i].size + 3u, &offset))
            return mni_fail(w->err, MN_OVERFLOW, "the buffer would be larger than memory can address");
        offset &= ~(size_t)3u;
    }
    w->bin_size = offset;
    w->fallback_size = fallback;
    w->view_count = view;
    return MN_OK;
}

/* ---- the plan ----------------------------------------------------------------------------------------- */

static bool table_init(mn_gltf_writer *w, mn_wtable *t, uint32_t capacity)
{
    uint32_t slots = 16;
    while (slots < 2u * capacity)
        slots *= 2;
    t->keys = mni_arena_alloc(&w->arena, (size_t)(capacity ? capacity : 1) * sizeof *t->keys, _Alignof(mn_wkey));
    t->slots = mni_arena_calloc(&w->arena, slots, sizeof *t->slots, 4);
    t->mask = slots - 1;
    t->count = 0;
    return t->keys && t->slots;
}

#define PLAN_LIMIT (1u << 28)   /* accessors or samplers: far beyond any real file */

mn_status mni_gltf_write_plan(mn_gltf_writer *w)
{
    const mn_model *m = w->model;
    uint64_t accessors = m->skin_count, channels = 0;
    for (uint32_t i = 0; i < m->mesh_count; i++)
        for (uint32_t p = 0; p < m->meshes[i].primitive_count; p++) {
            const mn_primitive *prim = &m->meshes[i].primitives[p];
            accessors += (uint64_t)prim->attribute_count + (prim->indices != MN_NONE) + 3u * (uint64_t)prim->target_count;
        }
    for (uint32_t a = 0; a < m->animation_count; a++)
        channels += m->animations[a].channel_count;
    accessors += 2u * channels;
    for (uint32_t n = 0; n < m->node_count; n++)
        accessors += m->nodes[n].instance_count ? 3u : 0u;
    if (accessors > PLAN_LIMIT)
        return mni_fail(w->err, MN_OVERFLOW, "the model has more than %u accessors to write", PLAN_LIMIT);
    w->acc_capacity = (uint32_t)accessors;

    mn_arena *ar = &w->arena;
    w->accs = mni_arena_alloc(ar, (size_t)(accessors ? accessors : 1) * sizeof *w->accs, _Alignof(mn_wacc));
    w->meshes = mni_arena_calloc(ar, m->mesh_count + 1u, sizeof *w->meshes, _Alignof(mn_wmesh));
    w->node_folds = mni_arena_calloc(ar, m->node_count + 1u, sizeof *w->node_folds, 1);
    w->node_translation = mni_arena_alloc(ar, (m->node_count + 1u) * sizeof *w->node_translation, 4);
    w->node_scale = mni_arena_alloc(ar, (m->node_count + 1u) * sizeof *w->node_scale, 4);
    w->image_views = mni_arena_alloc(ar, (m->image_count + 1u) * sizeof *w->image_views, 4);
    w->image_offsets = mni_arena_alloc(ar, (m->image_count + 1u) * sizeof *w->image_offsets, _Alignof(size_t));
    w->samplers = mni_arena_alloc(ar, (size_t)(channels + 1u) * sizeof *w->samplers, _Alignof(mn_wsampler));
    w->anim_first_sampler = mni_arena_alloc(ar, (m->animation_count + 1u) * sizeof(uint32_t), 4);
    w->anim_sampler_count = mni_arena_alloc(ar, (m->animation_count + 1u) * sizeof(uint32_t), 4);
    w->channel_samplers = mni_arena_alloc(ar, (size_t)(channels + 1u) * sizeof(uint32_t), 4);
    if (!w->accs || !w->meshes || !w->node_folds || !w->node_translation || !w->node_scale ||
        !w->image_views || !w->image_offsets || !w->samplers || !w->anim_first_sampler ||
        !w->anim_sampler_count || !w->channel_samplers ||
        !table_init(w, &w->acc_table, (uint32_t)accessors) || !table_init(w, &w->sampler_table, (uint32_t)channels))
        return mni_oom(w->err, "planning the glTF output");

    mn_status st;
    if ((st = plan_meshes(w)) != MN_OK || (st = plan_skins(w)) != MN_OK || (st = plan_instancing(w)) != MN_OK ||
        (st = plan_animations(w)) != MN_OK ||
        (st = mni_gltf_write_groups(w)) != MN_OK ||
        (st = plan_images(w)) != MN_OK || (st = plan_layout(w)) != MN_OK)
        return st;
    return MN_OK;
}

/* ---- the bytes of an accessor ------------------------------------------------------------------------- */

/* Element i of `acc` as written (stride bytes, padding zeroed) into out. */
static void convert_element(const mn_wacc *acc, uint32_t i, uint8_t *out)
{
    memset(out, 0, acc->stride);
    float v[3];
    switch (acc->source) {
    case MN_WSOURCE_BOOLS:
        out[0] = acc->floats[i] != 0.0f;
        break;
    case MN_WSOURCE_QPOS: {
        read_floats(acc->from, i, v, 3);
        int16_t q[3];
        for (int k = 0; k < 3; k++)
            q[k] = quantize_position(v[k], acc->center[k], acc->half);
        memcpy(out, q, sizeof q);
        break;
    }
    case MN_WSOURCE_QNORMAL: {
        read_floats(acc->from, i, v, 3);
        int8_t q[3];
        quantize_normal(v, q);
        memcpy(out, q, sizeof q);
        break;
    }
    case MN_WSOURCE_QUV: {
        read_floats(acc->from, i, v, 2);
        uint16_t q[2] = {quantize_uv(v[0]), quantize_uv(v[1])};
        memcpy(out, q, sizeof q);
        break;
    }
    case MN_WSOURCE_SCALED:
        read_floats(acc->from, i, v, 3);
        for (int k = 0; k < 3; k++)
            v[k] /= acc->half;
        memcpy(out, v, sizeof v);
        break;
    default:   /* COPY with another stride */
        memcpy(out, acc->from->data + (size_t)i * acc->from->stride, acc->element_size);
        break;
    }
}

mn_status mni_gltf_write_accessor_bytes(const mn_wacc *acc, uint8_t *scratch, size_t scratch_size,
                                        mn_wemit_fn emit, void *ctx)
{
    size_t tight = (size_t)acc->count * acc->element_size;
    if (acc->source == MN_WSOURCE_FLOATS)
        return emit(ctx, acc->floats, tight);
    if (acc->source == MN_WSOURCE_COPY && acc->from->stride == acc->element_size &&
        acc->stride == acc->element_size)
        return emit(ctx, acc->from->data, tight);   /* big data goes through untouched */
    uint32_t per_chunk = (uint32_t)(scratch_size / acc->stride);
    for (uint32_t first = 0; first < acc->count; first += per_chunk) {
        uint32_t n = acc->count - first < per_chunk ? acc->count - first : per_chunk;
        for (uint32_t i = 0; i < n; i++)
            convert_element(acc, first + i, scratch + (size_t)i * acc->stride);
        mn_status st = emit(ctx, scratch, (size_t)n * acc->stride);
        if (st != MN_OK)
            return st;
    }
    return MN_OK;
}
