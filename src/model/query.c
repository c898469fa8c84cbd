/*
 * Pure functions over a loaded mn_model: attribute lookup, node matrices at
 * rest, skin influences, vertex colours, the stride-8 triangle soup, and
 * the world-space bounds the reader stores on the model.
 *
 * A reader's model is validated, so nothing here can fail on one.  Models
 * built by hand get the same guarantee of memory safety: an accessor index
 * out of range reads as "absent", a vertex index past an attribute's count
 * reads as zeros, and a node graph with a cycle still terminates.
 *
 * Attributes are converted in chunks of CHUNK elements into stack buffers
 * through mn_accessor_unpack_floats on a sub-range of the accessor, so the
 * fast conversion kernels are used and no function here allocates except
 * mni_model_compute_bounds, which has an allocator to do it with.  The bounds,
 * computed on every load, read packed f32 attributes in place instead
 * (mn_accessor_float_view), so that a million vertices cost one pass over
 * their bytes and no copy.
 */
#include "model/model.h"

#include <marionette/math.h>

#include <float.h>
#include <math.h>
#include <string.h>

enum { CHUNK = 256 };

/* ---- attribute access ------------------------------------------------------- */

uint32_t mn_primitive_find(const mn_primitive *primitive, mn_semantic semantic, uint32_t set)
{
    if (!primitive)
        return MN_NONE;
    for (uint32_t i = 0; i < primitive->attribute_count; i++) {
        const mn_attribute *a = &primitive->attributes[i];
        if (a->semantic == semantic && a->set == set)
            return a->accessor;
    }
    return MN_NONE;
}

/* The accessor behind an index, NULL when the index is MN_NONE or out of range. */
static const mn_accessor *accessor_at(const mn_model *model, uint32_t index)
{
    return index < model->accessor_count ? &model->accessors[index] : NULL;
}

static const mn_accessor *attribute(const mn_model *model, const mn_primitive *primitive,
                                    mn_semantic semantic, uint32_t set)
{
    return accessor_at(model, mn_primitive_find(primitive, semantic, set));
}

/* Elements [first, first + count) of a as an accessor of their own. */
static mn_accessor sub_accessor(const mn_accessor *a, size_t first, size_t count)
{
    mn_accessor sub = *a;
    sub.data = a->data + first * a->stride;
    sub.count = (uint32_t)count;
    return sub;
}

/* Of `count` elements from `first`, the ones a holds (all of them on a reader's model). */
static mn_accessor chunk_held(const mn_accessor *a, size_t first, size_t count)
{
    size_t have = first < a->count ? a->count - first : 0;
    return sub_accessor(a, first, have < count ? have : count);
}

/* Up to `count` elements from `first` as `comps` floats each; elements past the
   accessor's end (impossible on a reader's model) are zeros. */
static void chunk_floats(const mn_accessor *a, size_t first, size_t count, size_t comps,
                         float *out)
{
    mn_accessor sub = chunk_held(a, first, count);
    size_t have = sub.count;
    mn_accessor_unpack_floats(&sub, out, have * comps);
    memset(out + have * comps, 0, (count - have) * comps * sizeof(float));
}

/* The same for uint32 components (joints). */
static void chunk_u32(const mn_accessor *a, size_t first, size_t count, size_t comps,
                      uint32_t *out)
{
    mn_accessor sub = chunk_held(a, first, count);
    size_t have = sub.count;
    mn_accessor_unpack_u32(&sub, out, have * comps);
    memset(out + have * comps, 0, (count - have) * comps * sizeof(uint32_t));
}

/* Element i of a into out[comps]: a direct copy for unpadded f32, else one-element conversion. */
static void element_floats(const mn_accessor *a, size_t i, size_t comps, float *out)
{
    if (i >= a->count) {
        memset(out, 0, comps * sizeof(float));
    } else if (a->component == MN_COMPONENT_F32) {
        memcpy(out, a->data + i * a->stride, comps * sizeof(float));
    } else {
        mn_accessor sub = sub_accessor(a, i, 1);
        mn_accessor_unpack_floats(&sub, out, comps);
    }
}

/* Index i of an index accessor; MN_NONE past its end. */
static uint32_t element_index(const mn_accessor *a, size_t i)
{
    if (i >= a->count)
        return MN_NONE;
    const uint8_t *p = a->data + i * a->stride;
    uint16_t v16;
    uint32_t v32;
    switch (a->component) {
    case MN_COMPONENT_U8: return p[0];
    case MN_COMPONENT_U16: memcpy(&v16, p, sizeof v16); return v16;
    case MN_COMPONENT_U32: memcpy(&v32, p, sizeof v32); return v32;
    default: {
        mn_accessor sub = sub_accessor(a, i, 1);
        mn_accessor_unpack_u32(&sub, &v32, 1);
        return v32;
    }
    }
}

/* Copy n floats to out[at...], stopping at the capacity. */
static void put_floats(float *out, size_t capacity, size_t at, const float *v, size_t n)
{
    if (at >= capacity)
        return;
    if (n > capacity - at)
        n = capacity - at;
    memcpy(out + at, v, n * sizeof(float));
}

/* ---- nodes ----------------------------------------------------------------- */

void mn_node_local_matrix(const mn_node *node, float out[16])
{
    mn_mat4_compose(out, node->translation, node->rotation, node->scale);
}

/* Element i of accessor `index` as n floats into out; false when it has none. */
static bool instance_element(const mn_model *model, uint32_t index, uint32_t i, float *out, uint32_t n)
{
    if (index >= model->accessor_count)
        return false;
    const mn_accessor *a = &model->accessors[index];
    if (i >= a->count || !a->data || mn_accessor_components(a->type) != n)
        return false;
    mn_accessor one = sub_accessor(a, i, 1);
    return mn_accessor_unpack_floats(&one, out, n) == n;
}

bool mn_node_instance_matrix(const mn_model *model, uint32_t node, uint32_t instance, float out[16])
{
    if (!out)
        return false;
    mn_mat4_identity(out);
    if (!model || node >= model->node_count)
        return false;
    const mn_node *n = &model->nodes[node];
    if (instance >= n->instance_count)
        return false;
    float t[3] = {0, 0, 0}, r[4] = {0, 0, 0, 1}, s3[3] = {1, 1, 1};
    if ((n->instance_translation != MN_NONE && !instance_element(model, n->instance_translation, instance, t, 3)) ||
        (n->instance_rotation != MN_NONE && !instance_element(model, n->instance_rotation, instance, r, 4)) ||
        (n->instance_scale != MN_NONE && !instance_element(model, n->instance_scale, instance, s3, 3)))
        return false;
    float len2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3];
    if (!(len2 > 0.0f) || !isfinite(len2)) {
        r[0] = r[1] = r[2] = 0.0f;
        r[3] = 1.0f;
    } else {
        mn_quat_normalize(r, r);
    }
    mn_mat4_compose(out, t, r, s3);
    return true;
}

static uint32_t parent_of(const mn_model *model, uint32_t i)
{
    uint32_t p = model->nodes[i].parent;
    return p < model->node_count ? p : MN_NONE;
}

/*
 * Without a node_order (a model built by hand): world = local(root) × ... ×
 * local(i), multiplied in from the node upwards.  O(depth) per node and
 * allocation-free; a cycle (never in a reader's model) is cut after
 * node_count steps.
 */
static void world_by_parent_chain(const mn_model *model, uint32_t i, float out[16])
{
    mn_node_local_matrix(&model->nodes[i], out);
    uint32_t p = parent_of(model, i);
    for (uint32_t steps = 0; p != MN_NONE && steps < model->node_count; steps++) {
        float local[16], below[16];
        mn_node_local_matrix(&model->nodes[p], local);
        memcpy(below, out, sizeof below);
        mn_mat4_mul(out, local, below);
        p = parent_of(model, p);
    }
}

void mn_model_rest_worlds(const mn_model *model, float *out)
{
    if (!model || !out)
        return;
    if (!model->node_order) {
        for (uint32_t i = 0; i < model->node_count; i++)
            world_by_parent_chain(model, i, out + 16 * (size_t)i);
        return;
    }
    /* Parents come first in node_order, so world[parent] is final when a child needs it. */
    for (uint32_t k = 0; k < model->node_count; k++) {
        uint32_t i = model->node_order[k];
        if (i >= model->node_count)
            continue;
        float *world = out + 16 * (size_t)i;
        uint32_t p = parent_of(model, i);
        if (p == MN_NONE) {
            mn_node_local_matrix(&model->nodes[i], world);
        } else {
            float local[16];
            mn_node_local_matrix(&model->nodes[i], local);
            mn_mat4_mul(world, out + 16 * (size_t)p, local);
        }
    }
}

/* ---- skin influences and colours -------------------------------------------- */

/* JOINTS_0 and WEIGHTS_0 when both are present as VEC4. */
static bool skin_accessors(const mn_model *model, const mn_primitive *primitive,
                           const mn_accessor **joints, const mn_accessor **weights)
{
    *joints = attribute(model, primitive, MN_SEMANTIC_JOINTS, 0);
    *weights = attribute(model, primitive, MN_SEMANTIC_WEIGHTS, 0);
    return *joints && *weights && (*joints)->type == MN_TYPE_VEC4 &&
           (*weights)->type == MN_TYPE_VEC4;
}

bool mn_primitive_skin_influences(const mn_model *model, const mn_primitive *primitive,
                                  uint16_t *joints, float *weights)
{
    const mn_accessor *ja, *wa;
    if (!model || !primitive || !skin_accessors(model, primitive, &ja, &wa))
        return false;
    uint32_t j[CHUNK * 4];
    size_t count = primitive->vertex_count;
    for (size_t first = 0; first < count; first += CHUNK) {
        size_t n = count - first < CHUNK ? count - first : CHUNK;
        chunk_u32(ja, first, n, 4, j);
        chunk_floats(wa, first, n, 4, weights + 4 * first);
        for (size_t v = 0; v < n; v++)
            mni_skin_weights_normalise(weights + 4 * (first + v), weights + 4 * (first + v), 4);
        /* glTF joints are u8/u16, so the clip to UINT16_MAX never bites on a valid file */
        for (size_t i = 0; i < 4 * n; i++)
            joints[4 * first + i] = (uint16_t)(j[i] > UINT16_MAX ? UINT16_MAX : j[i]);
    }
    return true;
}

size_t mn_primitive_colors(const mn_model *model, const mn_primitive *primitive, uint32_t set,
                           float *out, size_t out_capacity)
{
    if (!model || !primitive)
        return 0;
    const mn_accessor *a = attribute(model, primitive, MN_SEMANTIC_COLOR, set);
    if (!a || (a->type != MN_TYPE_VEC3 && a->type != MN_TYPE_VEC4))
        return 0;
    size_t need = 4 * (size_t)primitive->vertex_count;
    if (!out)
        return need;
    size_t comps = a->type == MN_TYPE_VEC4 ? 4 : 3;
    size_t written = out_capacity < need ? out_capacity : need;
    size_t vertices = (written + 3) / 4; /* the last one may be cut by the capacity */
    float c[CHUNK * 4];
    for (size_t first = 0; first < vertices; first += CHUNK) {
        size_t n = vertices - first < CHUNK ? vertices - first : CHUNK;
        chunk_floats(a, first, n, comps, c);
        for (size_t v = 0; v < n; v++) {
            float rgba[4] = {c[comps * v], c[comps * v + 1], c[comps * v + 2],
                             comps == 4 ? c[comps * v + 3] : 1.0f};
            put_floats(out, out_capacity, 4 * (first + v), rgba, 4);
        }
    }
    return need;
}

/* ---- the triangle soup -------------------------------------------------------- */

/* What a soup vertex is read from. */
typedef struct soup_source {
    const mn_accessor *indices;   /* NULL when not indexed */
    const mn_accessor *position;
    const mn_accessor *normal;    /* NULL: flat normals */
    const mn_accessor *uv;        /* NULL: zeros */
} soup_source;

/* The static bake: world, and the inverse-transpose of its 3x3 for normals,
   computed once per call (never per vertex). */
typedef struct soup_bake {
    float world[16];
    float normal[16];
} soup_bake;

static void bake_prepare(soup_bake *bake, const float world[16])
{
    float inv[16];
    memcpy(bake->world, world, sizeof bake->world);
    /* A singular world gives identity here, so normals pass through and are renormalised. */
    mn_mat4_invert_affine(inv, world);
    mn_mat4_identity(bake->normal);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            bake->normal[c * 4 + r] = inv[r * 4 + c];
}

static void normalise3(float v[3], const float fallback[3])
{
    float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (len > 0.0f && len <= FLT_MAX) {
        v[0] /= len;
        v[1] /= len;
        v[2] /= len;
    } else {
        memcpy(v, fallback, 3 * sizeof(float));
    }
}

/* A degenerate triangle has no direction; it gets +Y, the glTF up axis, so it
   lights like the floor instead of turning black. */
static const float degenerate_normal[3] = {0.0f, 1.0f, 0.0f};

/* Face normal of three stride-8 vertices, counter-clockwise front:
   normalize((p1 - p0) × (p2 - p0)). */
static void flat_normal(float tri[3][8])
{
    float e1[3], e2[3], n[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = tri[1][k] - tri[0][k];
        e2[k] = tri[2][k] - tri[0][k];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    normalise3(n, degenerate_normal);
    for (int v = 0; v < 3; v++)
        memcpy(&tri[v][3], n, sizeof n);
}

static void bake_vertex(const soup_bake *bake, float v[8])
{
    float n[3];
    mn_mat4_transform_point(v, bake->world, v);
    mn_mat4_transform_dir(n, bake->normal, v + 3);
    normalise3(n, degenerate_normal);
    memcpy(v + 3, n, sizeof n);
}

/* Vertex `index` of the primitive as pos(3) normal(3) uv(2); zeros when out of range. */
static void soup_vertex(const soup_source *src, uint32_t index, float v[8])
{
    memset(v, 0, 8 * sizeof(float));
    if (index == MN_NONE)
        return;
    element_floats(src->position, index, 3, v);
    if (src->normal)
        element_floats(src->normal, index, 3, v + 3);
    if (src->uv)
        element_floats(src->uv, index, 2, v + 6);
}

static bool soup_source_of(const mn_model *model, const mn_primitive *primitive, soup_source *src)
{
    if (primitive->mode != MN_MODE_TRIANGLES)
        return false;
    src->position = attribute(model, primitive, MN_SEMANTIC_POSITION, 0);
    src->normal = attribute(model, primitive, MN_SEMANTIC_NORMAL, 0);
    src->uv = attribute(model, primitive, MN_SEMANTIC_TEXCOORD, 0);
    src->indices = accessor_at(model, primitive->indices);
    if (src->normal && src->normal->type != MN_TYPE_VEC3)
        src->normal = NULL;
    if (src->uv && src->uv->type != MN_TYPE_VEC2)
        src->uv = NULL;
    return src->position && src->position->type == MN_TYPE_VEC3;
}

size_t mn_primitive_soup(const mn_model *model, const mn_primitive *primitive,
                         const float *world, float *out, size_t out_vertex_capacity)
{
    soup_source src;
    if (!model || !primitive || !soup_source_of(model, primitive, &src))
        return 0;
    size_t corners = src.indices ? src.indices->count : src.position->count;
    size_t vertices = corners - corners % 3;
    if (!out)
        return vertices;
    soup_bake bake;
    if (world)
        bake_prepare(&bake, world);
    size_t write = vertices < out_vertex_capacity ? vertices : out_vertex_capacity;
    size_t capacity = 8 * write;
    for (size_t t = 0; 3 * t < write; t++) {
        float tri[3][8];
        for (size_t k = 0; k < 3; k++) {
            size_t corner = 3 * t + k;
            uint32_t index = src.indices ? element_index(src.indices, corner) : (uint32_t)corner;
            soup_vertex(&src, index, tri[k]);
        }
        if (!src.normal)
            flat_normal(tri);
        for (size_t k = 0; k < 3; k++) {
            if (world)
                bake_vertex(&bake, tri[k]);
            put_floats(out, capacity, 8 * (3 * t + k), tri[k], 8);
        }
    }
    return vertices;
}

/* ---- world-space bounds ------------------------------------------------------- */

/*
 * Exact bounds: every POSITION of every instance is placed, rather than the 8
 * corners of the accessor's min/max.  The corners would be cheaper, but
 * min/max are optional, are often stale in real files, and a rotated corner
 * box over-estimates by up to √3 per axis.
 *
 * At rest includes morphing by the default weights (the node's weights when it
 * has them, else the mesh's): a non-zero weight adds its POSITION deltas, as
 * the renderer would draw the model.  A skinned instance is placed by linear
 * blend skinning at rest: Σ w_k · palette[j_k] · p with palette[j] =
 * world[joint_j] × inverseBind_j and weights normalised like
 * mn_primitive_skin_influences; glTF ignores the skinned node's own transform.
 * An influence whose joint index is outside the skin (impossible in a valid
 * file) uses the node's world instead, and so does a skinned node whose
 * primitive lacks JOINTS_0/WEIGHTS_0.
 *
 * This runs at the end of every load, over every vertex, so it is written to
 * run at memory speed on the common cases rather than skin blindly:
 *   - PLACE_AS_IS: nothing moves the points, so the box is a min/max scan.
 *     That is an unskinned instance whose world is exactly identity, and a
 *     skinned one at rest whose palette is identity within PALETTE_EPSILON —
 *     the usual case, since inverse bind matrices are the joints' rest
 *     worlds inverted.  A blend of identity matrices is identity whatever the
 *     weights, so the scan gives the skinned box to float rounding.  The
 *     epsilon absorbs the rounding that world × inverseBind leaves at rest
 *     (identity in real arithmetic); a palette within it could move a point
 *     by at most 3e-6 × (|p| + 1) per coordinate, so the scan's box is the
 *     blend's to that tolerance.
 *   - PLACE_BY_WORLD: one inlined 3x4 multiply per point.
 *   - PLACE_BY_SKIN: the blend, joints read in place (u8/u16), weights and
 *     positions through zero-copy float views.
 * Float views are read directly; only other layouts (quantized, interleaved)
 * and morphed positions go through CHUNK-sized stack buffers.
 */
typedef struct bounds_box {
    float min[3], max[3];
} bounds_box;

/* |m - I| ≤ PALETTE_EPSILON per element counts as identity for a skin matrix. */
#define PALETTE_EPSILON 1e-6f

static void box_add(bounds_box *box, const float p[3])
{
    for (int k = 0; k < 3; k++) { /* written so that NaN positions are skipped */
        if (p[k] < box->min[k])
            box->min[k] = p[k];
        if (p[k] > box->max[k])
            box->max[k] = p[k];
    }
}

/* How an instance is placed: a world matrix, or a palette of joint matrices. */
typedef struct bounds_instance {
    const float *world;           /* the node's world matrix */
    bool world_is_identity;       /* exactly */
    const float *palette;         /* joint_count matrices, NULL when not skinned */
    uint32_t joint_count;
    bool palette_is_identity;     /* every matrix within PALETTE_EPSILON */
    const float *morph_weights;   /* weight_count of them, may be NULL */
    uint32_t weight_count;
} bounds_instance;

typedef enum bounds_placement { PLACE_AS_IS, PLACE_BY_WORLD, PLACE_BY_SKIN } bounds_placement;

/* What one primitive's points are read from, and how they are placed. */
typedef struct bounds_source {
    const mn_accessor *position;
    const mn_accessor *joints, *weights;  /* only read for PLACE_BY_SKIN */
    const float *position_view;           /* zero-copy, NULL when converted */
    const float *weights_view;            /* zero-copy, NULL when converted */
    bool morphed;                         /* a non-zero default weight moves the points */
    bounds_placement place;
} bounds_source;

static bool near_identity(const float m[16], float epsilon)
{
    for (int i = 0; i < 16; i++)
        if (!(fabsf(m[i] - (i % 5 == 0 ? 1.0f : 0.0f)) <= epsilon)) /* NaN is not identity */
            return false;
    return true;
}

/* out = m · (p, 1): mn_mat4_transform_point with the same operation order (so
   the same bits), inlined because it runs per vertex and influence. */
static inline void affine_point(const float m[16], const float p[3], float out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
}

/* The four joint indices of vertex v: read in place for u8/u16 (every glTF
   file), converted element by element for other layouts (hand-built models
   only); zeros past the accessor's end, like chunk_u32. */
static inline void joints_of(const mn_accessor *a, size_t v, uint32_t j[4])
{
    if (v >= a->count) {
        j[0] = j[1] = j[2] = j[3] = 0;
        return;
    }
    const uint8_t *p = a->data + v * a->stride;
    if (a->component == MN_COMPONENT_U8) {
        for (int k = 0; k < 4; k++)
            j[k] = p[k];
    } else if (a->component == MN_COMPONENT_U16) {
        uint16_t q[4];
        memcpy(q, p, sizeof q);
        for (int k = 0; k < 4; k++)
            j[k] = q[k];
    } else {
        mn_accessor sub = sub_accessor(a, v, 1);
        mn_accessor_unpack_u32(&sub, j, 4);
    }
}

/* True when every joint index the first `count` vertices read is below limit. */
static bool joints_below(const mn_accessor *a, size_t count, uint32_t limit)
{
    uint32_t j[4];
    for (size_t v = 0; v < count && v < a->count; v++) {
        joints_of(a, v, j);
        if (j[0] >= limit || j[1] >= limit || j[2] >= limit || j[3] >= limit)
            return false;
    }
    return limit > 0; /* vertices past the accessor's end read joint 0 */
}

/* ---- the three placements, over n packed xyz points ---- */

#if MNI_MODEL_SSE2
/* Vector r of the running box: its lanes hold the axes (r, r+1, r+2, r) mod 3. */
static __m128 box_lanes(const float v[3], int r)
{
    return _mm_setr_ps(v[r % 3], v[(r + 1) % 3], v[(r + 2) % 3], v[r % 3]);
}

/*
 * Four points are three vectors whose lanes hold (x y z x), (y z x y) and
 * (z x y z), so three running mins and maxes cover every lane without a
 * shuffle.  MINPS/MAXPS return their second operand when either is NaN, and
 * the running value is always the second: a NaN point is skipped exactly as
 * box_add skips it.  Returns the points done; the caller finishes the tail.
 */
static size_t scan_box_sse2(const float *p, size_t n, bounds_box *box)
{
    __m128 lo[3], hi[3];
    for (int r = 0; r < 3; r++) {
        lo[r] = box_lanes(box->min, r);
        hi[r] = box_lanes(box->max, r);
    }
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        for (int r = 0; r < 3; r++) {
            __m128 v = _mm_loadu_ps(p + 3 * i + 4 * (size_t)r);
            lo[r] = _mm_min_ps(v, lo[r]);
            hi[r] = _mm_max_ps(v, hi[r]);
        }
    }
    /* read back as 4 (x y z) triples; the lows fold into min only and the
       highs into max only, since an unused lane still holds the empty box */
    float lows[12], highs[12];
    for (int r = 0; r < 3; r++) {
        _mm_storeu_ps(lows + 4 * r, lo[r]);
        _mm_storeu_ps(highs + 4 * r, hi[r]);
    }
    for (int k = 0; k < 12; k++) {
        if (lows[k] < box->min[k % 3])
            box->min[k % 3] = lows[k];
        if (highs[k] > box->max[k % 3])
            box->max[k % 3] = highs[k];
    }
    return i;
}
#endif

/* The box of the points as they are.  The scalar loop is the reference and
   finishes the SIMD tail (MN_NO_SIMD builds only it). */
static void scan_box(const float *p, size_t n, bounds_box *box)
{
    size_t i = 0;
#if MNI_MODEL_SSE2
    i = scan_box_sse2(p, n, box);
#endif
    for (; i < n; i++)
        box_add(box, p + 3 * i);
}

static void transform_box(const float world[16], const float *p, size_t n, bounds_box *box)
{
    float q[3];
    for (size_t i = 0; i < n; i++) {
        affine_point(world, p + 3 * i, q);
        box_add(box, q);
    }
}

/* The matrix of influence joint j: its palette entry, or the node's world when the
   index is outside the skin. */
static inline const float *influence_matrix(const bounds_instance *inst, uint32_t j)
{
    return j < inst->joint_count ? inst->palette + 16 * (size_t)j : inst->world;
}

#if MNI_MODEL_SSE2
/*
 * The blend with one matrix column per vector: each lane does the scalar
 * loop's products and sums in the same order, so the points have the same
 * bits (a MN_NO_SIMD build runs the same tests on the scalar loop).  Lane 3 computes the
 * matrices' last row and is ignored.  Zero weights are still skipped, as in
 * the scalar loop, so that 0 × inf cannot differ.
 */
static void skin_box_sse2(const bounds_instance *inst, const mn_accessor *joints, size_t first,
                          size_t n, const float *p, const float *weights, bounds_box *box)
{
    __m128 lo = _mm_setr_ps(box->min[0], box->min[1], box->min[2], 0.0f);
    __m128 hi = _mm_setr_ps(box->max[0], box->max[1], box->max[2], 0.0f);
    for (size_t v = 0; v < n; v++) {
        float w[4];
        uint32_t j[4];
        mni_skin_weights_normalise(weights + 4 * v, w, 4);
        joints_of(joints, first + v, j);
        __m128 x = _mm_set1_ps(p[3 * v]), y = _mm_set1_ps(p[3 * v + 1]),
               z = _mm_set1_ps(p[3 * v + 2]), sum = _mm_setzero_ps();
        for (int k = 0; k < 4; k++) {
            if (w[k] == 0.0f)
                continue;
            const float *m = influence_matrix(inst, j[k]);
            __m128 q = _mm_mul_ps(_mm_loadu_ps(m), x);
            q = _mm_add_ps(q, _mm_mul_ps(_mm_loadu_ps(m + 4), y));
            q = _mm_add_ps(q, _mm_mul_ps(_mm_loadu_ps(m + 8), z));
            q = _mm_add_ps(q, _mm_loadu_ps(m + 12));
            sum = _mm_add_ps(sum, _mm_mul_ps(_mm_set1_ps(w[k]), q));
        }
        lo = _mm_min_ps(sum, lo); /* a NaN point keeps the running value, like box_add */
        hi = _mm_max_ps(sum, hi);
    }
    float out[2][4];
    _mm_storeu_ps(out[0], lo);
    _mm_storeu_ps(out[1], hi);
    memcpy(box->min, out[0], sizeof box->min);
    memcpy(box->max, out[1], sizeof box->max);
}
#endif

/* Linear blend skinning at rest of points [first, first + n), weights[n*4] as stored.
   The scalar loop is the reference (MN_NO_SIMD builds only it). */
static void skin_box(const bounds_instance *inst, const mn_accessor *joints, size_t first,
                     size_t n, const float *p, const float *weights, bounds_box *box)
{
#if MNI_MODEL_SSE2
    skin_box_sse2(inst, joints, first, n, p, weights, box);
#else
    for (size_t v = 0; v < n; v++) {
        float w[4], sum[3] = {0.0f, 0.0f, 0.0f}, q[3];
        uint32_t j[4];
        mni_skin_weights_normalise(weights + 4 * v, w, 4);
        joints_of(joints, first + v, j);
        for (int k = 0; k < 4; k++) {
            if (w[k] == 0.0f)
                continue;
            affine_point(influence_matrix(inst, j[k]), p + 3 * v, q);
            for (int c = 0; c < 3; c++)
                sum[c] += w[k] * q[c];
        }
        box_add(box, sum);
    }
#endif
}

/* ---- reading a primitive's points ---- */

/* True when a default weight of the instance moves some POSITION of the primitive. */
static bool has_morphs(const mn_model *model, const mn_primitive *primitive,
                       const bounds_instance *inst)
{
    for (uint32_t t = 0; t < primitive->target_count && t < inst->weight_count; t++) {
        const mn_accessor *d = accessor_at(model, primitive->targets[t].position);
        if (inst->morph_weights[t] != 0.0f && d && d->type == MN_TYPE_VEC3)
            return true;
    }
    return false;
}

/* Add the weighted POSITION deltas of the instance's morph targets to pos[n*3]. */
static void apply_morphs(const mn_model *model, const mn_primitive *primitive,
                         const bounds_instance *inst, size_t first, size_t n, float *pos)
{
    float delta[CHUNK * 3];
    for (uint32_t t = 0; t < primitive->target_count && t < inst->weight_count; t++) {
        float w = inst->morph_weights[t];
        const mn_accessor *d = accessor_at(model, primitive->targets[t].position);
        if (w == 0.0f || !d || d->type != MN_TYPE_VEC3)
            continue;
        chunk_floats(d, first, n, 3, delta);
        for (size_t i = 0; i < 3 * n; i++)
            pos[i] += w * delta[i];
    }
}

/* The placement of the primitive's points; false when it has no VEC3 POSITION. */
static bool bounds_source_of(const mn_model *model, const mn_primitive *primitive,
                             const bounds_instance *inst, bounds_source *src)
{
    memset(src, 0, sizeof *src);
    src->position = attribute(model, primitive, MN_SEMANTIC_POSITION, 0);
    if (!src->position || src->position->type != MN_TYPE_VEC3)
        return false;
    src->position_view = mn_accessor_float_view(src->position);
    src->morphed = has_morphs(model, primitive, inst);
    size_t count = src->position->count;
    bool skinned = inst->palette && skin_accessors(model, primitive, &src->joints, &src->weights);
    if (!skinned) {
        src->place = inst->world_is_identity ? PLACE_AS_IS : PLACE_BY_WORLD;
    } else if (inst->palette_is_identity &&
               (inst->world_is_identity || joints_below(src->joints, count, inst->joint_count))) {
        src->place = PLACE_AS_IS; /* every influence is identity: see the comment above */
    } else {
        src->place = PLACE_BY_SKIN;
        /* a short weights accessor (hand-built only) reads zeros past its end: converted */
        if (src->weights->count >= count)
            src->weights_view = mn_accessor_float_view(src->weights);
    }
    return true;
}

/* Points from `first` to place in one go: all that remain when every stream is
   read in place, else what the stack buffers hold. */
static size_t span_length(const bounds_source *src, size_t first)
{
    size_t left = src->position->count - first;
    bool in_place = src->position_view && !src->morphed &&
                    (src->place != PLACE_BY_SKIN || src->weights_view);
    return in_place || left < CHUNK ? left : CHUNK;
}

/* Points [first, first + n) as packed xyz, morphed: in place, or converted into buf. */
static const float *span_positions(const mn_model *model, const mn_primitive *primitive,
                                   const bounds_instance *inst, const bounds_source *src,
                                   size_t first, size_t n, float buf[CHUNK * 3])
{
    if (src->position_view && !src->morphed)
        return src->position_view + 3 * first;
    if (src->position_view)
        memcpy(buf, src->position_view + 3 * first, 3 * n * sizeof(float));
    else
        chunk_floats(src->position, first, n, 3, buf);
    if (src->morphed)
        apply_morphs(model, primitive, inst, first, n, buf);
    return buf;
}

static const float *span_weights(const bounds_source *src, size_t first, size_t n,
                                 float buf[CHUNK * 4])
{
    if (src->weights_view)
        return src->weights_view + 4 * first;
    chunk_floats(src->weights, first, n, 4, buf);
    return buf;
}

static void bound_primitive(const mn_model *model, const mn_primitive *primitive,
                            const bounds_instance *inst, bounds_box *box)
{
    bounds_source src;
    if (!bounds_source_of(model, primitive, inst, &src))
        return;
    float pos_buf[CHUNK * 3], weights_buf[CHUNK * 4];
    for (size_t first = 0, n; first < src.position->count; first += n) {
        n = span_length(&src, first);
        const float *pos = span_positions(model, primitive, inst, &src, first, n, pos_buf);
        if (src.place == PLACE_AS_IS)
            scan_box(pos, n, box);
        else if (src.place == PLACE_BY_WORLD)
            transform_box(inst->world, pos, n, box);
        else
            skin_box(inst, src.joints, first, n, pos, span_weights(&src, first, n, weights_buf),
                     box);
    }
}

/* palette[j] = world[joint_j] × inverseBind_j (a joint index outside the nodes, only in a
   hand-built model, gets identity). */
static void build_palette(const mn_model *model, const mn_skin *skin, const float *worlds,
                          float *palette)
{
    for (uint32_t j = 0; j < skin->joint_count; j++) {
        float *m = palette + 16 * (size_t)j;
        const float *joint_world = skin->joints[j] < model->node_count
                                       ? worlds + 16 * (size_t)skin->joints[j] : NULL;
        if (!joint_world)
            mn_mat4_identity(m);
        else if (skin->inverse_bind)
            mn_mat4_mul(m, joint_world, skin->inverse_bind + 16 * (size_t)j);
        else
            memcpy(m, joint_world, 16 * sizeof(float));
    }
}

static bool palette_is_identity(const float *palette, uint32_t joint_count)
{
    for (uint32_t j = 0; j < joint_count; j++)
        if (!near_identity(palette + 16 * (size_t)j, PALETTE_EPSILON))
            return false;
    return true;
}

/*
 * An EXT_mesh_gpu_instancing node: the mesh's box in the node's space, its
 * eight corners placed by every instance's world (world × T·R·S).  A box that
 * holds every instance, in one pass over the vertices and one over the
 * instances, where exact bounds would cost vertices × instances.
 */
static void bound_instances(const mn_model *model, uint32_t node_index, const mn_mesh *mesh,
                            const bounds_instance *inst, bounds_box *box)
{
    bounds_instance local = *inst;
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    local.world = identity;
    local.world_is_identity = true;
    bounds_box own = {{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
    for (uint32_t i = 0; i < mesh->primitive_count; i++)
        bound_primitive(model, &mesh->primitives[i], &local, &own);
    if (!(own.min[0] <= own.max[0]))
        return;
    float corners[24];
    for (int c = 0; c < 8; c++)
        for (int k = 0; k < 3; k++)
            corners[3 * c + k] = (c >> k) & 1 ? own.max[k] : own.min[k];
    for (uint32_t i = 0; i < model->nodes[node_index].instance_count; i++) {
        float m[16], world[16];
        mn_node_instance_matrix(model, node_index, i, m);
        mn_mat4_mul(world, inst->world, m);
        transform_box(world, corners, 8, box);
    }
}

static mn_status bound_node(const mn_model *model, uint32_t node_index, const float *worlds,
                            const mn_allocator *allocator, bounds_box *box)
{
    const mn_node *node = &model->nodes[node_index];
    if (node->mesh >= model->mesh_count)
        return MN_OK;
    const mn_mesh *mesh = &model->meshes[node->mesh];
    bounds_instance inst = {0};
    inst.world = worlds + 16 * (size_t)node_index;
    inst.world_is_identity = near_identity(inst.world, 0.0f);
    inst.morph_weights = mesh->weights;
    inst.weight_count = mesh->weight_count;
    if (node->weights && node->weight_count > 0) {
        inst.morph_weights = node->weights;
        inst.weight_count = node->weight_count;
    }
    float *palette = NULL;
    size_t palette_size = 0;
    if (node->skin < model->skin_count && model->skins[node->skin].joint_count > 0) {
        const mn_skin *skin = &model->skins[node->skin];
        palette_size = 16 * sizeof(float) * (size_t)skin->joint_count;
        palette = mni_alloc(allocator, palette_size);
        if (!palette)
            return MN_OUT_OF_MEMORY;
        build_palette(model, skin, worlds, palette);
        inst.palette = palette;
        inst.joint_count = skin->joint_count;
        inst.palette_is_identity = palette_is_identity(palette, skin->joint_count);
    }
    if (node->instance_count > 0 && !palette)
        bound_instances(model, node_index, mesh, &inst, box);
    else
        for (uint32_t i = 0; i < mesh->primitive_count; i++)
            bound_primitive(model, &mesh->primitives[i], &inst, box);
    mni_free(allocator, palette, palette_size);
    return MN_OK;
}

uint32_t mn_model_default_scene(const mn_model *model)
{
    if (!model || model->scene_count == 0)
        return MN_NONE;
    return model->scene < model->scene_count ? model->scene : 0;
}

/* Push node i unless it was seen; each node enters the stack at most once. */
static void push_node(uint32_t *stack, size_t *top, uint8_t *seen, uint32_t i, uint32_t node_count)
{
    if (i < node_count && !seen[i]) {
        seen[i] = 1;
        stack[(*top)++] = i;
    }
}

/* Walk the default scene's trees (or every root), bounding each mesh instance. */
static mn_status bound_scene(const mn_model *model, const float *worlds, uint32_t *stack,
                             uint8_t *seen, const mn_allocator *allocator, bounds_box *box)
{
    size_t top = 0;
    uint32_t n = model->node_count;
    uint32_t scene = mn_model_default_scene(model);
    if (scene != MN_NONE) {
        for (uint32_t i = 0; i < model->scenes[scene].node_count; i++)
            push_node(stack, &top, seen, model->scenes[scene].nodes[i], n);
    } else {
        for (uint32_t i = 0; i < n; i++)
            if (parent_of(model, i) == MN_NONE)
                push_node(stack, &top, seen, i, n);
    }
    while (top > 0) {
        uint32_t i = stack[--top];
        mn_status st = bound_node(model, i, worlds, allocator, box);
        if (st != MN_OK)
            return st;
        for (uint32_t c = 0; c < model->nodes[i].child_count; c++)
            push_node(stack, &top, seen, model->nodes[i].children[c], n);
    }
    return MN_OK;
}

mn_status mni_model_compute_bounds(mn_model *model, const mn_allocator *allocator)
{
    if (!model)
        return MN_INVALID_ARGUMENT;
    bounds_box box = {{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
    mn_status st = MN_OK;
    size_t n = model->node_count;
    size_t worlds_size = 16 * sizeof(float) * n, stack_size = sizeof(uint32_t) * n;
    float *worlds = mni_alloc(allocator, worlds_size);
    uint32_t *stack = mni_alloc(allocator, stack_size);
    uint8_t *seen = mni_alloc(allocator, n);
    if (n > 0 && (!worlds || !stack || !seen)) {
        st = MN_OUT_OF_MEMORY;
    } else if (n > 0) {
        memset(seen, 0, n);
        mn_model_rest_worlds(model, worlds);
        st = bound_scene(model, worlds, stack, seen, allocator, &box);
    }
    mni_free(allocator, seen, n);
    mni_free(allocator, stack, stack_size);
    mni_free(allocator, worlds, worlds_size);
    if (st != MN_OK) /* leave the model with an empty box rather than a partial one */
        box = (bounds_box){{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
    memcpy(model->bounds_min, box.min, sizeof box.min);
    memcpy(model->bounds_max, box.max, sizeof box.max);
    return st;
}
