/*
 * The semantic pass over a fully read model: the checks that need more than
 * one part of the document.  The parts were each checked as they were read
 * (types, references in range, accessors inside their buffers); what is left
 * is whether they fit together:
 *
 *   - the node graph is a forest (two parents were refused while reading;
 *     cycles are found here),
 *   - every vertex index is below its primitive's vertex count,
 *   - every joint index of a skinned primitive is below its skin's joint count,
 *   - node morph weights match their mesh's target count,
 *   - inverse bind matrices are finite (animation keys are checked as each
 *     sampler is read, gltf/read_anim.c),
 *
 * and the derived facts: the parent-first node order (model->node_order) and
 * each animation's duration.  The index scans are
 * the only passes over bulk data, so they are tight loops the compiler can
 * vectorise.
 */
#include "gltf/internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- paths for messages ------------------------------------------------------------------ */

/* Set the JSON path to "a[i]", "a[i].b[k]" or "a[i].b[k].c". */
static void path_set(mn_gltf_reader *r, const char *a, size_t i, const char *b, size_t k, const char *c)
{
    mni_json_pop(&r->json, 0);
    mni_json_push_key(&r->json, a);
    mni_json_push_index(&r->json, i);
    if (b) {
        mni_json_push_key(&r->json, b);
        mni_json_push_index(&r->json, k);
    }
    if (c)
        mni_json_push_key(&r->json, c);
}

/* ---- the hierarchy -------------------------------------------------------------------------- */

/* walk[n]: 0 unvisited, else 1 + the walk that reached it.  Each node is walked once. */
static mn_status check_cycles(mn_gltf_reader *r, uint32_t *walk)
{
    mn_model *m = r->model;
    for (uint32_t start = 0; start < m->node_count; start++) {
        uint32_t n = start;
        while (n != MN_NONE && walk[n] == 0) {
            walk[n] = start + 1;
            n = m->nodes[n].parent;
        }
        if (n == MN_NONE || walk[n] != start + 1)
            continue; /* reached a root, or a node an earlier walk proved sound */
        /* n is on a cycle: name its members in order. */
        char members[160] = "";
        size_t len = 0;
        uint32_t k = n;
        for (int count = 0; count < 12; count++) {
            len += (size_t)snprintf(members + len, sizeof members - len, "%u -> ", k);
            if (len >= sizeof members)
                break;
            k = m->nodes[k].parent;
            if (k == n)
                break;
        }
        if (len < sizeof members && k == n)
            snprintf(members + len, sizeof members - len, "%u", n);
        else if (len < sizeof members)
            snprintf(members + len, sizeof members - len, "...");
        path_set(r, "nodes", n, NULL, 0, NULL);
        return mni_json_fail(&r->json, MN_HIERARCHY, NULL,
                             "the nodes form a cycle (child to parent: %s); the node hierarchy must be a forest",
                             members);
    }
    return MN_OK;
}

/*
 * order[] = every node, parents before children: depth-first from each root
 * in index order, children in their listed order.  Needs a forest (each node
 * has one parent, which lists it once, and no cycle), so every node is pushed
 * exactly once and the stack never holds more than node_count.
 */
static void order_nodes(const mn_model *m, uint32_t *order, uint32_t *stack)
{
    uint32_t done = 0;
    for (uint32_t root = 0; root < m->node_count; root++) {
        if (m->nodes[root].parent != MN_NONE)
            continue;
        size_t top = 0;
        stack[top++] = root;
        while (top > 0) {
            uint32_t i = stack[--top];
            const mn_node *n = &m->nodes[i];
            order[done++] = i;
            for (uint32_t c = n->child_count; c-- > 0;) /* pushed last to first: popped first to last */
                stack[top++] = n->children[c];
        }
    }
}

/* The node graph is a forest; then model->node_order. */
static mn_status check_hierarchy(mn_gltf_reader *r)
{
    mn_model *m = r->model;
    if (m->node_count == 0)
        return MN_OK;
    /* The walk marks (then the stack) are scratch: from the allocator, not the model's arena. */
    size_t walk_size = (size_t)m->node_count * sizeof(uint32_t);
    uint32_t *order = mni_gltf_alloc(r, m->node_count, sizeof(uint32_t), 16, false);
    uint32_t *walk = order ? mni_alloc(&r->options.allocator, walk_size) : NULL;
    if (!walk)
        return order ? mni_oom(r->err, "checking the node hierarchy") : MN_OUT_OF_MEMORY;
    memset(walk, 0, walk_size);
    mn_status st = check_cycles(r, walk);
    if (st == MN_OK) {
        order_nodes(m, order, walk); /* the walk marks are done with: their memory is the stack */
        m->node_order = order;
    }
    mni_free(&r->options.allocator, walk, walk_size);
    return st;
}

/* ---- index ranges ----------------------------------------------------------------------------- */

#if defined(__SSE2__) && !defined(MN_NO_SIMD)
#include <emmintrin.h>

/*
 * SSE2 has no unsigned compare, so values are biased by the sign bit and
 * compared signed: (v ^ 0x80..) > ((limit - 1) ^ 0x80..)  <=>  v >= limit.
 * Results are OR-ed, so the loop has no branch and runs at memory speed.
 */
static bool any_at_least_simd(const uint8_t *p, size_t n, uint32_t csize, uint32_t limit, size_t *done)
{
    __m128i bias, thr, hit = _mm_setzero_si128();
    size_t per = 16 / csize, i = 0;
    if (csize == 4) {
        bias = _mm_set1_epi32(INT32_MIN);
        thr = _mm_set1_epi32((int32_t)((limit - 1) ^ 0x80000000u));
        for (; i + per <= n; i += per) {
            __m128i v = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(p + i * 4)), bias);
            hit = _mm_or_si128(hit, _mm_cmpgt_epi32(v, thr));
        }
    } else if (csize == 2) {
        bias = _mm_set1_epi16(INT16_MIN);
        thr = _mm_set1_epi16((int16_t)(uint16_t)((limit - 1) ^ 0x8000u));
        for (; i + per <= n; i += per) {
            __m128i v = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(p + i * 2)), bias);
            hit = _mm_or_si128(hit, _mm_cmpgt_epi16(v, thr));
        }
    } else {
        bias = _mm_set1_epi8(INT8_MIN);
        thr = _mm_set1_epi8((int8_t)(uint8_t)((limit - 1) ^ 0x80u));
        for (; i + per <= n; i += per) {
            __m128i v = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(p + i)), bias);
            hit = _mm_or_si128(hit, _mm_cmpgt_epi8(v, thr));
        }
    }
    *done = i;
    return _mm_movemask_epi8(hit) != 0;
}
#endif

/* True when one of n packed unsigned components of csize bytes at p is >= limit. */
static bool any_at_least(const uint8_t *p, size_t n, uint32_t csize, uint32_t limit)
{
    if (n == 0 || limit > (csize == 4 ? UINT32_MAX : csize == 2 ? 0xFFFFu : 0xFFu))
        return false;
    if (limit == 0)
        return true;
    size_t i = 0;
#if defined(__SSE2__) && !defined(MN_NO_SIMD)
    if (any_at_least_simd(p, n, csize, limit, &i))
        return true;
#endif
    bool hit = false;
    for (; i < n; i++)
        hit |= mni_gltf_uint_le(p + i * csize, csize) >= limit;
    return hit;
}

/* True when a component of an unsigned integer accessor is >= limit; *at, *value say where. */
static bool accessor_reaches(const mn_accessor *a, uint32_t limit, uint32_t *at, uint32_t *value)
{
    uint32_t comps = mn_accessor_components(a->type);
    uint32_t csize = mn_component_size(a->component);
    bool hit;
    if (a->stride == comps * csize) {
        hit = any_at_least(a->data, (size_t)a->count * comps, csize, limit);
    } else {
        hit = false;
        for (uint32_t i = 0; i < a->count && !hit; i++)
            hit = any_at_least(a->data + (size_t)i * a->stride, comps, csize, limit);
    }
    if (!hit)
        return false;
    /* Only on the error path: find the first offender for the message. */
    for (uint32_t i = 0; i < a->count; i++) {
        for (uint32_t c = 0; c < comps; c++) {
            uint32_t v = mni_gltf_uint_le(a->data + (size_t)i * a->stride + (size_t)c * csize, csize);
            if (v >= limit) {
                *at = i;
                *value = v;
                return true;
            }
        }
    }
    return true;
}

static mn_status check_indices(mn_gltf_reader *r)
{
    mn_model *m = r->model;
    for (uint32_t mi = 0; mi < m->mesh_count; mi++) {
        for (uint32_t pi = 0; pi < m->meshes[mi].primitive_count; pi++) {
            const mn_primitive *p = &m->meshes[mi].primitives[pi];
            if (p->indices == MN_NONE)
                continue;
            const mn_accessor *a = &m->accessors[p->indices];
            uint32_t at = 0, value = 0;
            if (!accessor_reaches(a, p->vertex_count, &at, &value))
                continue;
            bool converted = p->original_mode != p->mode;
            path_set(r, "meshes", mi, "primitives", pi, "indices");
            if (p->vertex_count == 0)
                return mni_json_fail(&r->json, MN_INDEX_RANGE, NULL,
                                     "index %u (element %u%s) points at a vertex, but the primitive has no "
                                     "vertices",
                                     value, at, converted ? " of the strip/fan converted to a list" : "");
            return mni_json_fail(&r->json, MN_INDEX_RANGE, NULL,
                                 "index %u (element %u%s) is out of range: the primitive has %u vertices "
                                 "(valid: 0 to %u)",
                                 value, at, converted ? " of the strip/fan converted to a list" : "",
                                 p->vertex_count, p->vertex_count - 1);
        }
    }
    return MN_OK;
}

/* Every JOINTS_n of every primitive a skinned node draws stays below the skin's joint count. */
static mn_status check_joints(mn_gltf_reader *r)
{
    mn_model *m = r->model;
    for (uint32_t ni = 0; ni < m->node_count; ni++) {
        const mn_node *n = &m->nodes[ni];
        if (n->mesh == MN_NONE || n->skin == MN_NONE)
            continue;
        uint32_t joints = m->skins[n->skin].joint_count;
        const mn_mesh *mesh = &m->meshes[n->mesh];
        for (uint32_t pi = 0; pi < mesh->primitive_count; pi++) {
            const mn_primitive *p = &mesh->primitives[pi];
            for (uint32_t ai = 0; ai < p->attribute_count; ai++) {
                const mn_attribute *at = &p->attributes[ai];
                if (at->semantic != MN_SEMANTIC_JOINTS)
                    continue;
                uint32_t vertex = 0, value = 0;
                if (!accessor_reaches(&m->accessors[at->accessor], joints, &vertex, &value))
                    continue;
                path_set(r, "meshes", n->mesh, "primitives", pi, "attributes");
                return mni_json_fail(&r->json, MN_INDEX_RANGE, at->name,
                                     "joint index %u (vertex %u) is out of range: nodes[%u] skins this mesh "
                                     "with skins[%u], which has %u joints",
                                     value, vertex, ni, n->skin, joints);
            }
        }
    }
    return MN_OK;
}

static mn_status check_node_weights(mn_gltf_reader *r)
{
    mn_model *m = r->model;
    for (uint32_t ni = 0; ni < m->node_count; ni++) {
        const mn_node *n = &m->nodes[ni];
        if (!n->weights || n->mesh == MN_NONE)
            continue;
        uint32_t targets = m->meshes[n->mesh].weight_count;
        if (n->weight_count != targets) {
            path_set(r, "nodes", ni, NULL, 0, "weights");
            return mni_json_fail(&r->json, MN_COUNT_MISMATCH, NULL,
                                 "%u morph weights, but meshes[%u] has %u morph targets; there must be one "
                                 "per target",
                                 n->weight_count, n->mesh, targets);
        }
    }
    return MN_OK;
}

/* ---- numbers that must be finite ------------------------------------------------------------ */

/* Index of the first non-finite of n floats, or n. */
static size_t first_not_finite(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return i;
    return n;
}

/* Each animation's duration: its channels' last key times (checked by gltf/read_anim.c). */
static void animation_durations(mn_model *m)
{
    for (uint32_t ai = 0; ai < m->animation_count; ai++) {
        mn_animation *anim = &m->animations[ai];
        anim->duration = 0.0f;
        for (uint32_t ci = 0; ci < anim->channel_count; ci++) {
            const mn_channel *ch = &anim->channels[ci];
            float end = ch->times[ch->key_count - 1];
            if (end > anim->duration)
                anim->duration = end;
        }
    }
}

static mn_status check_inverse_binds(mn_gltf_reader *r)
{
    mn_model *m = r->model;
    for (uint32_t si = 0; si < m->skin_count; si++) {
        const mn_skin *s = &m->skins[si];
        size_t n = (size_t)s->joint_count * 16;
        size_t bad = first_not_finite(s->inverse_bind, n);
        if (bad < n) {
            path_set(r, "skins", si, NULL, 0, "inverseBindMatrices");
            return mni_json_fail(&r->json, MN_NOT_FINITE, NULL,
                                 "element %zu of inverse bind matrix %zu is not finite", bad % 16, bad / 16);
        }
    }
    return MN_OK;
}

mn_status mni_gltf_validate(mn_gltf_reader *r)
{
    mn_status st;
    if ((st = check_hierarchy(r)) != MN_OK || (st = check_indices(r)) != MN_OK ||
        (st = check_joints(r)) != MN_OK || (st = check_node_weights(r)) != MN_OK ||
        (st = check_inverse_binds(r)) != MN_OK)
        return st;
    animation_durations(r->model);
    mni_json_pop(&r->json, 0);
    return MN_OK;
}
