/*
 * Pure functions over a loaded mn_model: attribute lookup, node matrices at
 * rest, skin influences, vertex colours, the stride-8 triangle soup of
 * model-files-3d, and the world-space bounds the reader stores on the model.
 *
 * A reader's model is validated, so nothing here can fail on one.  Models
 * built by hand get the same guarantee of memory safety: an accessor index
 * out of range reads as "absent", a vertex index past an attribute's count
 * reads as zeros, and a node graph with a cycle still terminates.
 *
 * Attributes are converted in chunks of CHUNK elements into stack buffers
 * through mn_accessor_unpack_floats on a sub-range of the accessor, so the
 * fast conversion kernels are used and no function here allocates except
 * mn_model_compute_bounds, which has an allocator to do it with.
 */
#include "format/model_internal.h"

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

/* Up to `count` elements from `first` as `comps` floats each; elements past the
   accessor's end (impossible on a reader's model) are zeros. */
static void chunk_floats(const mn_accessor *a, size_t first, size_t count, size_t comps,
                         float *out)
{
    size_t have = first < a->count ? a->count - first : 0;
    if (have > count)
        have = count;
    mn_accessor sub = sub_accessor(a, first, have);
    mn_accessor_unpack_floats(&sub, out, have * comps);
    memset(out + have * comps, 0, (count - have) * comps * sizeof(float));
}

/* The same for uint32 components (joints). */
static void chunk_u32(const mn_accessor *a, size_t first, size_t count, size_t comps,
                      uint32_t *out)
{
    size_t have = first < a->count ? a->count - first : 0;
    if (have > count)
        have = count;
    mn_accessor sub = sub_accessor(a, first, have);
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

/*
 * mn_model_rest_worlds has no allocator, so instead of mn_compose_worlds
 * (which needs a parents array and separate locals) it composes in place,
 * allocation-free and in O(nodes), with parents anywhere in the array:
 *
 * 1. out[i] = local(i), with m[15] set to 0 to mark "not composed yet"
 *    (a composed affine matrix has m[15] = 1).
 * 2. For each pending node, walk up to its highest pending ancestor,
 *    leaving in each pending matrix's unused m[3] slot (row 3 of column 0,
 *    always 0 in an affine matrix) the index of the child the walk came
 *    from; then walk back down those links composing world = parent × local.
 *    Each node is composed exactly once, and every walk stops at a composed
 *    node, so the total work is linear.  A cycle (never in a reader's model)
 *    is cut after node_count steps; its nodes then keep their locals.
 */
static bool pending(const float *out, uint32_t i)
{
    return out[16 * (size_t)i + 15] == 0.0f;
}

static void set_link(float *m, uint32_t child)
{
    memcpy(&m[3], &child, sizeof child);
}

static uint32_t get_link(const float *m)
{
    uint32_t child;
    memcpy(&child, &m[3], sizeof child);
    return child;
}

static uint32_t parent_of(const mn_model *model, uint32_t i)
{
    uint32_t p = model->nodes[i].parent;
    return p < model->node_count ? p : MN_NONE;
}

static void resolve_chain(const mn_model *model, float *out, uint32_t start)
{
    uint32_t cur = start, below = MN_NONE;
    for (uint32_t steps = 0;; steps++) {
        set_link(out + 16 * (size_t)cur, below);
        uint32_t p = parent_of(model, cur);
        if (p == MN_NONE || !pending(out, p) || steps >= model->node_count)
            break;
        below = cur;
        cur = p;
    }
    while (cur < model->node_count && pending(out, cur)) {
        float *m = out + 16 * (size_t)cur;
        uint32_t next = get_link(m);
        float local[16];
        memcpy(local, m, sizeof local);
        local[3] = 0.0f;
        local[15] = 1.0f;
        uint32_t p = parent_of(model, cur);
        if (p == MN_NONE || pending(out, p))
            memcpy(m, local, sizeof local);
        else
            mn_mat4_mul(m, out + 16 * (size_t)p, local);
        cur = next;
    }
}

void mn_model_rest_worlds(const mn_model *model, float *out)
{
    if (!model || !out)
        return;
    for (uint32_t i = 0; i < model->node_count; i++) {
        mn_node_local_matrix(&model->nodes[i], out + 16 * (size_t)i);
        out[16 * (size_t)i + 15] = 0.0f;
    }
    for (uint32_t i = 0; i < model->node_count; i++)
        if (pending(out, i))
            resolve_chain(model, out, i);
}

/* ---- skin influences and colours -------------------------------------------- */

/* Weights scaled to sum 1; a quad summing to zero (or NaN) becomes [1,0,0,0]. */
static void normalise_weights(float w[4])
{
    float sum = w[0] + w[1] + w[2] + w[3];
    if (sum > 0.0f && sum <= FLT_MAX) {
        for (int k = 0; k < 4; k++)
            w[k] /= sum;
    } else {
        w[0] = 1.0f;
        w[1] = w[2] = w[3] = 0.0f;
    }
}

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
            normalise_weights(weights + 4 * (first + v));
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
 * Exact bounds: every POSITION of every instance is transformed, rather than
 * the 8 corners of the accessor's min/max.  The corners would be cheaper, but
 * min/max are optional, are often stale in real files, and a rotated corner
 * box over-estimates by up to √3 per axis; one pass of one mat4 per vertex
 * costs a few milliseconds for a million vertices and gives the true box.
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
 */
typedef struct bounds_box {
    float min[3], max[3];
} bounds_box;

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
    const float *palette;         /* joint_count matrices, NULL when not skinned */
    uint32_t joint_count;
    const float *morph_weights;   /* weight_count of them, may be NULL */
    uint32_t weight_count;
} bounds_instance;

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

/* Skin pos[n*3] in place at rest. */
static void skin_chunk(const bounds_instance *inst, const mn_accessor *ja, const mn_accessor *wa,
                       size_t first, size_t n, float *pos)
{
    uint32_t joints[CHUNK * 4];
    float weights[CHUNK * 4];
    chunk_u32(ja, first, n, 4, joints);
    chunk_floats(wa, first, n, 4, weights);
    for (size_t v = 0; v < n; v++) {
        float *w = weights + 4 * v, sum[3] = {0.0f, 0.0f, 0.0f}, q[3];
        normalise_weights(w);
        for (size_t k = 0; k < 4; k++) {
            uint32_t j = joints[4 * v + k];
            if (w[k] == 0.0f)
                continue;
            const float *m = j < inst->joint_count ? inst->palette + 16 * (size_t)j : inst->world;
            mn_mat4_transform_point(q, m, pos + 3 * v);
            for (int c = 0; c < 3; c++)
                sum[c] += w[k] * q[c];
        }
        memcpy(pos + 3 * v, sum, sizeof sum);
    }
}

static void bound_primitive(const mn_model *model, const mn_primitive *primitive,
                            const bounds_instance *inst, bounds_box *box)
{
    const mn_accessor *pa = attribute(model, primitive, MN_SEMANTIC_POSITION, 0), *ja, *wa;
    if (!pa || pa->type != MN_TYPE_VEC3)
        return;
    bool skinned = inst->palette && skin_accessors(model, primitive, &ja, &wa);
    float pos[CHUNK * 3], p[3];
    for (size_t first = 0; first < pa->count; first += CHUNK) {
        size_t n = pa->count - first < CHUNK ? pa->count - first : CHUNK;
        chunk_floats(pa, first, n, 3, pos);
        apply_morphs(model, primitive, inst, first, n, pos);
        if (skinned)
            skin_chunk(inst, ja, wa, first, n, pos);
        for (size_t v = 0; v < n; v++) {
            if (skinned) {
                box_add(box, pos + 3 * v);
            } else {
                mn_mat4_transform_point(p, inst->world, pos + 3 * v);
                box_add(box, p);
            }
        }
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

static mn_status bound_node(const mn_model *model, uint32_t node_index, const float *worlds,
                            const mn_allocator *allocator, bounds_box *box)
{
    const mn_node *node = &model->nodes[node_index];
    if (node->mesh >= model->mesh_count)
        return MN_OK;
    const mn_mesh *mesh = &model->meshes[node->mesh];
    bounds_instance inst = {worlds + 16 * (size_t)node_index, NULL, 0, mesh->weights,
                            mesh->weight_count};
    if (node->weights && node->weight_count > 0) {
        inst.morph_weights = node->weights;
        inst.weight_count = node->weight_count;
    }
    float *palette = NULL;
    size_t palette_size = 0;
    if (node->skin < model->skin_count && model->skins[node->skin].joint_count > 0) {
        const mn_skin *skin = &model->skins[node->skin];
        palette_size = 16 * sizeof(float) * (size_t)skin->joint_count;
        palette = mn_alloc(allocator, palette_size);
        if (!palette)
            return MN_OUT_OF_MEMORY;
        build_palette(model, skin, worlds, palette);
        inst.palette = palette;
        inst.joint_count = skin->joint_count;
    }
    for (uint32_t i = 0; i < mesh->primitive_count; i++)
        bound_primitive(model, &mesh->primitives[i], &inst, box);
    mn_free(allocator, palette, palette_size);
    return MN_OK;
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
    uint32_t scene = model->scene < model->scene_count ? model->scene
                                                      : (model->scene_count > 0 ? 0 : MN_NONE);
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

mn_status mn_model_compute_bounds(mn_model *model, const mn_allocator *allocator)
{
    if (!model)
        return MN_INVALID_ARGUMENT;
    bounds_box box = {{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
    mn_status st = MN_OK;
    size_t n = model->node_count;
    size_t worlds_size = 16 * sizeof(float) * n, stack_size = sizeof(uint32_t) * n;
    float *worlds = mn_alloc(allocator, worlds_size);
    uint32_t *stack = mn_alloc(allocator, stack_size);
    uint8_t *seen = mn_alloc(allocator, n);
    if (n > 0 && (!worlds || !stack || !seen)) {
        st = MN_OUT_OF_MEMORY;
    } else if (n > 0) {
        memset(seen, 0, n);
        mn_model_rest_worlds(model, worlds);
        st = bound_scene(model, worlds, stack, seen, allocator, &box);
    }
    mn_free(allocator, seen, n);
    mn_free(allocator, stack, stack_size);
    mn_free(allocator, worlds, worlds_size);
    if (st != MN_OK) /* leave the model with an empty box rather than a partial one */
        box = (bounds_box){{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
    memcpy(model->bounds_min, box.min, sizeof box.min);
    memcpy(model->bounds_max, box.max, sizeof box.max);
    return st;
}
