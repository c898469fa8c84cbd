/*
 * Skeletons: a glTF skin (or a whole node hierarchy) re-ordered so that
 * parents come first and every subtree is a contiguous range, then the two
 * per-frame jobs over it, local-to-world and the skinning palette.
 *
 * Building (once per model):
 *   1. Choose the nodes: a skin's joints plus every ancestor of any of them
 *      (an armature node above the hips places the whole skeleton in model
 *      space, so it must be part of it), or every node.
 *   2. Order them depth-first, preorder: roots by increasing node index,
 *      children in the model's children order.  Preorder gives both
 *      properties the runtime relies on: parents[j] < j, and the descendants
 *      of j are exactly [j + 1, subtree_end[j]).
 *   3. Copy what the runtime needs (names, parents, rest TRS, inverse bind
 *      matrices, the node and skin-joint mappings) into ONE block from the
 *      allocator, carved up largest alignment first as ozz's Skeleton does,
 *      so the skeleton outlives the model and frees with one call.
 *
 * The preorder needs a stack; it lives in the tail of node_of_joint itself:
 * every node is pushed once, so (nodes emitted) + (nodes on the stack) never
 * exceeds joint_count, and the stack grows down from the end of the array
 * while the order grows up from its start.
 *
 * Per frame: local-to-world is one forward loop composing T·R·S and
 * multiplying by the parent's world (already written, since parents come
 * first); the palette is one affine multiply per skin joint.  Neither
 * allocates.  Three implementations, chosen per call:
 *   - scalar: the reference (MN_NO_SIMD builds, non-x86 targets);
 *   - SSE2 (x86-64, and the web build as WebAssembly SIMD): rotation ×
 *     scale of 4 joints at a time in structure-of-arrays form (ozz's
 *     approach: the quaternion-to-matrix arithmetic is most of the work and
 *     vectorises across joints), then per joint the parent multiply, 4
 *     floats a column;
 *   - AVX2+FMA, when the CPU has them: the same with 8 joints a block, fused
 *     multiply-adds and broadcast loads (results differ from the others by
 *     FMA rounding, about 1e-7 relative).
 * A parent that is the previous joint (the common case along a limb) is taken
 * from registers rather than reloaded from the store just made.
 */
#include "core/core.h"
#include "core/simd.h"

#include "anim/anim.h"
#include "anim/skeleton_internal.h"
#include "anim/space_internal.h"

#include <string.h>

/*
 * The SSE2 kernels wherever SSE2 is (x86-64, and the web build, where they
 * run as WebAssembly SIMD through emscripten's SSE2 headers: only plain
 * loads, stores, arithmetic and full-lane shuffles, which map one to one),
 * the AVX2+FMA ones on x86-64 alone.
 */
#if MN_WITH_SSE2
#define MN_SKELETON_SSE2 1
#include <immintrin.h>
#else
#define MN_SKELETON_SSE2 0
#endif
#if MN_WITH_SSE2 && MN_WITH_AVX2
#define MN_SKELETON_AVX2 1
/* AVX2+FMA code is compiled for those instructions alone and runs only where cpuid has them. */
#define MN_TARGET_AVX2 __attribute__((target("avx2,fma")))
#else
#define MN_SKELETON_AVX2 0
#endif

/* The one block's alignment: the pose arrays and matrices want 16 bytes for SIMD loads. */
enum { BLOCK_ALIGN = 16 };

/* joint_of_node states while building (real joint indices are < MN_SKELETON_MAX_JOINTS). */
#define NODE_IN_SET  (MN_NONE - 1u)   /* chosen, not yet pushed on the preorder stack */
#define NODE_PUSHED  (MN_NONE - 2u)   /* on the stack, not yet given a joint index */

struct mn_skeleton_private {
    mn_allocator allocator;
    void *block;        /* what the allocator returned (before alignment) */
    size_t block_size;  /* what was asked of it */
    uint64_t nodes_id;  /* mn_space_of_nodes(model).id */
};

/* ---- choosing the nodes ------------------------------------------------------ */

static uint32_t parent_of(const mn_model *model, uint32_t node)
{
    uint32_t p = model->nodes[node].parent;
    return p < model->node_count ? p : MN_NONE;
}

/*
 * Mark the skin's joints and their ancestors in `in_set` (node_count bytes,
 * zeroed) and count them.  A walk up stops at the first node already marked,
 * so shared ancestors cost nothing twice and even a cyclic parent chain in a
 * hand-built model terminates.
 */
static mn_status mark_skin_nodes(const mn_model *model, uint32_t skin, uint8_t *in_set,
                                 uint32_t *count, mn_error *err)
{
    const mn_skin *s = &model->skins[skin];
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->joint_count; i++) {
        uint32_t node = s->joints[i];
        if (node >= model->node_count)
            return mni_fail(err, MN_INDEX_RANGE,
                            "skins[%u].joints[%u]: node %u is out of range (the model has %u nodes)",
                            skin, i, node, model->node_count);
        for (; node != MN_NONE && !in_set[node]; node = parent_of(model, node)) {
            in_set[node] = 1;
            if (++n > MN_SKELETON_MAX_JOINTS)
                return mni_fail(err, MN_OVERFLOW,
                                "skins[%u]: its joints and their ancestors exceed %u nodes", skin,
                                MN_SKELETON_MAX_JOINTS);
        }
    }
    *count = n;
    return MN_OK;
}

/* ---- the block ------------------------------------------------------------------- */

typedef struct layout {
    size_t skeleton, priv, inverse_bind, pose, names, subtree_end, node_of_joint, joint_of_node,
        joint_of_skin_joint, parents, strings, total;
} layout;

/* Reserve `size` bytes at `align` after *end; false on overflow. */
static bool place(size_t *end, size_t *at, size_t count, size_t size, size_t align)
{
    size_t bytes, start;
    if (!mni_checked_mul(count, size, &bytes) || !mni_checked_add(*end, align - 1, &start))
        return false;
    start &= ~(align - 1);
    *at = start;
    return mni_checked_add(start, bytes, end);
}

/* Largest alignment first, so nothing but the tail needs padding. */
static bool plan(layout *l, uint32_t joints, uint32_t nodes, uint32_t skin_joints, size_t strings)
{
    size_t end = 0;
    return place(&end, &l->skeleton, 1, sizeof(mn_skeleton), BLOCK_ALIGN) &&
           place(&end, &l->priv, 1, sizeof(struct mn_skeleton_private), BLOCK_ALIGN) &&
           place(&end, &l->inverse_bind, skin_joints, 16 * sizeof(float), BLOCK_ALIGN) &&
           place(&end, &l->pose, 1, mn_pose_storage_size(joints), BLOCK_ALIGN) &&
           place(&end, &l->names, joints, sizeof(const char *), sizeof(const char *)) &&
           place(&end, &l->subtree_end, joints, sizeof(uint32_t), sizeof(uint32_t)) &&
           place(&end, &l->node_of_joint, joints, sizeof(uint32_t), sizeof(uint32_t)) &&
           place(&end, &l->joint_of_node, nodes, sizeof(uint32_t), sizeof(uint32_t)) &&
           place(&end, &l->joint_of_skin_joint, skin_joints, sizeof(uint32_t), sizeof(uint32_t)) &&
           place(&end, &l->parents, joints, sizeof(int16_t), sizeof(int16_t)) &&
           place(&end, &l->strings, strings, 1, 1) && (l->total = end, true);
}

/* ---- ordering ------------------------------------------------------------------------ */

/*
 * Depth-first preorder of the chosen nodes (joint_of_node[n] == NODE_IN_SET)
 * into node_of_joint, giving each its joint index and parent.  A child is
 * followed only when its own parent link names the node it hangs from, so a
 * hand-built model whose children and parent links disagree, or whose
 * parents form a cycle, leaves nodes unreached: MN_HIERARCHY.
 */
static mn_status order_joints(const mn_model *model, uint32_t joint_count, uint32_t *joint_of_node,
                              uint32_t *node_of_joint, int16_t *parents, mn_error *err)
{
    uint32_t emitted = 0, stacked = 0;
    /* Roots pushed in decreasing index order pop in increasing order. */
    for (uint32_t i = model->node_count; i-- > 0;) {
        if (joint_of_node[i] != NODE_IN_SET || parent_of(model, i) != MN_NONE)
            continue;
        joint_of_node[i] = NODE_PUSHED;
        node_of_joint[joint_count - ++stacked] = i;
    }
    while (stacked > 0) {
        uint32_t node = node_of_joint[joint_count - stacked--];
        uint32_t j = emitted++;
        node_of_joint[j] = node;
        joint_of_node[node] = j;
        uint32_t p = parent_of(model, node);
        parents[j] = (int16_t)(p == MN_NONE ? -1 : (int32_t)joint_of_node[p]);
        const mn_node *n = &model->nodes[node];
        for (uint32_t k = n->child_count; k-- > 0;) {
            uint32_t c = n->children[k];
            if (c >= model->node_count || joint_of_node[c] != NODE_IN_SET ||
                parent_of(model, c) != node)
                continue;
            joint_of_node[c] = NODE_PUSHED;
            node_of_joint[joint_count - ++stacked] = c;
        }
    }
    if (emitted != joint_count)
        return mni_error_set(err, MN_HIERARCHY, "nodes", -1,
                             "%u of %u skeleton nodes are not reachable from a root through "
                             "children lists that agree with their parent links",
                             joint_count - emitted, joint_count);
    return MN_OK;
}

/* subtree_end[j]: preorder makes a subtree contiguous, so its end is its last descendant + 1. */
static void compute_subtree_ends(uint32_t joint_count, const int16_t *parents, uint32_t *subtree_end)
{
    for (uint32_t j = 0; j < joint_count; j++)
        subtree_end[j] = j + 1;
    for (uint32_t j = joint_count; j-- > 0;)
        if (parents[j] >= 0 && subtree_end[parents[j]] < subtree_end[j])
            subtree_end[parents[j]] = subtree_end[j];
}

/* ---- building ------------------------------------------------------------------------ */

static void copy_rest_and_names(const mn_model *model, mn_skeleton *sk, const char **names,
                                char *strings)
{
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        const mn_node *n = &model->nodes[sk->node_of_joint[j]];
        memcpy(sk->rest.translations + 3 * (size_t)j, n->translation, sizeof n->translation);
        memcpy(sk->rest.rotations + 4 * (size_t)j, n->rotation, sizeof n->rotation);
        memcpy(sk->rest.scales + 3 * (size_t)j, n->scale, sizeof n->scale);
        names[j] = NULL;
        if (n->name) {
            size_t len = strlen(n->name) + 1;
            memcpy(strings, n->name, len);
            names[j] = strings;
            strings += len;
        }
    }
}

static void copy_skin(const mn_skin *skin, mn_skeleton *sk, float *inverse_bind,
                      uint32_t *joint_of_skin_joint)
{
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (uint32_t i = 0; i < skin->joint_count; i++) {
        joint_of_skin_joint[i] = sk->joint_of_node[skin->joints[i]];
        memcpy(inverse_bind + 16 * (size_t)i,
               skin->inverse_bind ? skin->inverse_bind + 16 * (size_t)i : identity,
               sizeof identity);
    }
}

/*
 * The common build: `in_set` (node_count bytes) marks the chosen nodes, or
 * is NULL for every node; `skin` is NULL for a node skeleton.
 */
/*
 * The joints' space: joint j is node node_of_joint[j] of a model of this
 * node space, so a skeleton made again from the same skin (of this model or
 * one read again) is the same space.  The rest pose is bound to it.
 */
static void name_space(const mn_model *model, mn_skeleton *sk)
{
    uint64_t nodes = mn_space_of_nodes(model).id;
    uint64_t h = mni_space_hash(MNI_SPACE_HASH_SEED, &nodes, sizeof nodes);
    h = mni_space_hash(h, &sk->joint_count, sizeof sk->joint_count);
    h = mni_space_hash(h, sk->node_of_joint, (size_t)sk->joint_count * sizeof *sk->node_of_joint);
    sk->priv_->nodes_id = nodes;
    sk->space = (mn_space){.kind = MN_SPACE_JOINTS, .count = sk->joint_count, .id = h};
    sk->rest.space = sk->space;
}

static mn_status build(const mn_model *model, const uint8_t *in_set, uint32_t joint_count,
                       const mn_skin *skin, const mn_allocator *allocator, mn_skeleton **out,
                       mn_error *err)
{
    uint32_t skin_joints = skin ? skin->joint_count : 0;
    /* The names are copied, so the skeleton does not depend on the model's lifetime. */
    size_t strings = 0;
    for (uint32_t i = 0; i < model->node_count; i++) {
        const char *name = model->nodes[i].name;
        if ((!in_set || in_set[i]) && name && !mni_checked_add(strings, strlen(name) + 1, &strings))
            return mni_fail(err, MN_OVERFLOW, "skeleton: node names overflow size_t");
    }
    layout l;
    size_t asked;
    if (!plan(&l, joint_count, model->node_count, skin_joints, strings) ||
        !mni_checked_add(l.total, BLOCK_ALIGN - 1, &asked))
        return mni_fail(err, MN_OVERFLOW, "skeleton: size arithmetic overflows");
    void *block = mni_alloc(allocator, asked);
    if (!block)
        return mni_oom(err, "a skeleton of %u joints (%zu bytes)", joint_count, asked);
    uint8_t *base = (uint8_t *)(((uintptr_t)block + BLOCK_ALIGN - 1) & ~(uintptr_t)(BLOCK_ALIGN - 1));

    mn_skeleton *sk = (mn_skeleton *)(base + l.skeleton);
    struct mn_skeleton_private *priv = (struct mn_skeleton_private *)(base + l.priv);
    memset(sk, 0, sizeof *sk);
    memset(priv, 0, sizeof *priv);
    if (allocator)
        priv->allocator = *allocator;
    priv->block = block;
    priv->block_size = asked;
    sk->priv_ = priv;

    uint32_t *joint_of_node = (uint32_t *)(base + l.joint_of_node);
    uint32_t *node_of_joint = (uint32_t *)(base + l.node_of_joint);
    int16_t *parents = (int16_t *)(base + l.parents);
    uint32_t *subtree_end = (uint32_t *)(base + l.subtree_end);
    for (uint32_t i = 0; i < model->node_count; i++)
        joint_of_node[i] = !in_set || in_set[i] ? NODE_IN_SET : MN_NONE;
    mn_status st = order_joints(model, joint_count, joint_of_node, node_of_joint, parents, err);
    if (st != MN_OK) {
        mni_free(allocator, block, asked);
        return st;
    }
    compute_subtree_ends(joint_count, parents, subtree_end);

    sk->joint_count = joint_count;
    sk->node_count = model->node_count;
    sk->parents = parents;
    sk->subtree_end = subtree_end;
    sk->node_of_joint = node_of_joint;
    sk->joint_of_node = joint_of_node;
    sk->names = (const char **)(base + l.names);
    mn_pose_init(&sk->rest, joint_count, base + l.pose);
    copy_rest_and_names(model, sk, (const char **)(base + l.names), (char *)(base + l.strings));
    name_space(model, sk);
    if (skin) {
        sk->skin_joint_count = skin_joints;
        sk->joint_of_skin_joint = (uint32_t *)(base + l.joint_of_skin_joint);
        sk->inverse_bind = (float *)(base + l.inverse_bind);
        copy_skin(skin, sk, (float *)(base + l.inverse_bind),
                  (uint32_t *)(base + l.joint_of_skin_joint));
    }
    *out = sk;
    return MN_OK;
}

uint64_t mni_skeleton_nodes_id(const mn_skeleton *skeleton)
{
    return skeleton && skeleton->priv_ ? skeleton->priv_->nodes_id : 0;
}

mn_status mn_skeleton_from_skin(const mn_model *model, uint32_t skin, const mn_allocator *allocator,
                                mn_skeleton **out, mn_error *err)
{
    mni_error_clear(err);
    if (out)
        *out = NULL;
    if (!model || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "skeleton_from_skin: NULL model or out");
    if (skin >= model->skin_count)
        return mni_fail(err, MN_INDEX_RANGE, "skins[%u] does not exist (the model has %u skins)",
                        skin, model->skin_count);
    /* The marks are scratch: one temporary allocation, freed before returning. */
    uint8_t *in_set = NULL;
    if (model->node_count > 0) {
        in_set = mni_alloc(allocator, model->node_count);
        if (!in_set)
            return mni_oom(err, "skins[%u]: %u bytes of node marks", skin, model->node_count);
        memset(in_set, 0, model->node_count);
    }
    uint32_t count = 0;
    mn_status st = mark_skin_nodes(model, skin, in_set, &count, err);
    if (st == MN_OK)
        st = build(model, in_set, count, &model->skins[skin], allocator, out, err);
    mni_free(allocator, in_set, model->node_count);
    return st;
}

mn_status mn_skeleton_from_nodes(const mn_model *model, const mn_allocator *allocator,
                                 mn_skeleton **out, mn_error *err)
{
    mni_error_clear(err);
    if (out)
        *out = NULL;
    if (!model || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "skeleton_from_nodes: NULL model or out");
    if (model->node_count > MN_SKELETON_MAX_JOINTS)
        return mni_error_set(err, MN_OVERFLOW, "nodes", -1,
                             "the model has %u nodes; a skeleton holds at most %u",
                             model->node_count, MN_SKELETON_MAX_JOINTS);
    return build(model, NULL, model->node_count, NULL, allocator, out, err);
}

void mn_skeleton_free(mn_skeleton *skeleton)
{
    if (!skeleton)
        return;
    struct mn_skeleton_private priv = *skeleton->priv_;   /* it lives in the block being freed */
    mni_free(&priv.allocator, priv.block, priv.block_size);
}

/* A linear scan: names are looked up at set-up time, never per frame. */
uint32_t mn_skeleton_find(const mn_skeleton *skeleton, const char *name)
{
    if (!skeleton || !name)
        return MN_NONE;
    for (uint32_t j = 0; j < skeleton->joint_count; j++)
        if (skeleton->names[j] && strcmp(skeleton->names[j], name) == 0)
            return j;
    return MN_NONE;
}

/* ---- per frame: the scalar reference ------------------------------------------------ */

/*
 * The local T·R·S of one joint as four columns (x y z of each; row 3 is
 * 0 0 0 1 and is not stored): the rotation matrix of q scaled per column,
 * then the translation.  The same formula as mn_mat4_compose.
 */
static void local_columns(const float *t, const float *q, const float *s, float c[12])
{
    float x = q[0], y = q[1], z = q[2], w = q[3];
    float x2 = x + x, y2 = y + y, z2 = z + z;
    float xx = x * x2, yy = y * y2, zz = z * z2;
    float xy = x * y2, xz = x * z2, yz = y * z2;
    float wx = w * x2, wy = w * y2, wz = w * z2;
    c[0] = (1.0f - (yy + zz)) * s[0];
    c[1] = (xy + wz) * s[0];
    c[2] = (xz - wy) * s[0];
    c[3] = (xy - wz) * s[1];
    c[4] = (1.0f - (xx + zz)) * s[1];
    c[5] = (yz + wx) * s[1];
    c[6] = (xz + wy) * s[2];
    c[7] = (yz - wx) * s[2];
    c[8] = (1.0f - (xx + yy)) * s[2];
    c[9] = t[0];
    c[10] = t[1];
    c[11] = t[2];
}

/*
 * out = P × L for an affine P (row 3 = 0 0 0 1, carried through) and the
 * columns L of an affine matrix; P NULL means identity.  The sums are
 * grouped as the SSE2 path groups them, so the two agree bit for bit.
 */
static void mul_affine_scalar(float *restrict out, const float *restrict p, const float c[12])
{
    if (!p) {
        for (int k = 0; k < 4; k++) {
            out[4 * k + 0] = c[3 * k + 0];
            out[4 * k + 1] = c[3 * k + 1];
            out[4 * k + 2] = c[3 * k + 2];
            out[4 * k + 3] = k == 3 ? 1.0f : 0.0f;
        }
        return;
    }
    for (int r = 0; r < 4; r++) {
        for (int k = 0; k < 3; k++)
            out[4 * k + r] = (p[r] * c[3 * k] + p[4 + r] * c[3 * k + 1]) + p[8 + r] * c[3 * k + 2];
        out[12 + r] = (p[r] * c[9] + p[4 + r] * c[10]) + (p[8 + r] * c[11] + p[12 + r]);
    }
}

static void local_to_world_scalar(const int16_t *parents, const mn_pose *pose, uint32_t from,
                                  uint32_t end, const float *root, float *worlds)
{
    for (uint32_t j = from; j < end; j++) {
        float c[12];
        local_columns(pose->translations + 3 * (size_t)j, pose->rotations + 4 * (size_t)j,
                      pose->scales + 3 * (size_t)j, c);
        int p = parents[j];
        mul_affine_scalar(worlds + 16 * (size_t)j, p < 0 ? root : worlds + 16 * (size_t)p, c);
    }
}

static void palette_scalar(const mni_palette_job *job, float *palette)
{
    for (uint32_t i = 0; i < job->count; i++) {
        const float *b = job->inverse_bind + 16 * (size_t)i;
        /* The inverse bind's first three rows; its row 3 is taken to be 0 0 0 1. */
        const float c[12] = {b[0], b[1], b[2], b[4], b[5], b[6], b[8], b[9], b[10], b[12], b[13], b[14]};
        mul_affine_scalar(palette + 16 * (size_t)i, job->worlds + 16 * (size_t)job->joints[i], c);
    }
}

#if MN_SKELETON_SSE2

/* ---- per frame: SSE2 ------------------------------------------------------------------- */

/*
 * Joints [j, j + width) of the pose, or the tail of [j, end) padded with
 * identity rotations and unit scales into `pad` so that a block never reads
 * past the pose's arrays.  Returns the joints that are real.
 */
static uint32_t block_source(const mn_pose *pose, uint32_t j, uint32_t end, uint32_t width,
                             float *pad_r, float *pad_s, const float **r, const float **s)
{
    uint32_t m = end - j < width ? end - j : width;
    *r = pose->rotations + 4 * (size_t)j;
    *s = pose->scales + 3 * (size_t)j;
    if (m == width)
        return m;
    for (uint32_t i = 0; i < width; i++) {
        const float *qr = i < m ? *r + 4 * i : NULL, *qs = i < m ? *s + 3 * i : NULL;
        for (int k = 0; k < 4; k++)
            pad_r[4 * i + k] = qr ? qr[k] : (k == 3 ? 1.0f : 0.0f);
        for (int k = 0; k < 3; k++)
            pad_s[3 * i + k] = qs ? qs[k] : 1.0f;
    }
    *r = pad_r;
    *s = pad_s;
    return m;
}

/* Rotation × scale of 4 joints: rs[e][i] is element e (3 × column + row) of joint i's 3x3. */
static void rotation_scale_block4(const float *r, const float *s, float rs[9][4])
{
    __m128 x = _mm_loadu_ps(r), y = _mm_loadu_ps(r + 4), z = _mm_loadu_ps(r + 8),
           w = _mm_loadu_ps(r + 12);
    _MM_TRANSPOSE4_PS(x, y, z, w);
    __m128 sx = _mm_setr_ps(s[0], s[3], s[6], s[9]), sy = _mm_setr_ps(s[1], s[4], s[7], s[10]),
           sz = _mm_setr_ps(s[2], s[5], s[8], s[11]);
    __m128 x2 = _mm_add_ps(x, x), y2 = _mm_add_ps(y, y), z2 = _mm_add_ps(z, z);
    __m128 xx = _mm_mul_ps(x, x2), yy = _mm_mul_ps(y, y2), zz = _mm_mul_ps(z, z2);
    __m128 xy = _mm_mul_ps(x, y2), xz = _mm_mul_ps(x, z2), yz = _mm_mul_ps(y, z2);
    __m128 wx = _mm_mul_ps(w, x2), wy = _mm_mul_ps(w, y2), wz = _mm_mul_ps(w, z2);
    __m128 one = _mm_set1_ps(1.0f);
    _mm_storeu_ps(rs[0], _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(yy, zz)), sx));
    _mm_storeu_ps(rs[1], _mm_mul_ps(_mm_add_ps(xy, wz), sx));
    _mm_storeu_ps(rs[2], _mm_mul_ps(_mm_sub_ps(xz, wy), sx));
    _mm_storeu_ps(rs[3], _mm_mul_ps(_mm_sub_ps(xy, wz), sy));
    _mm_storeu_ps(rs[4], _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(xx, zz)), sy));
    _mm_storeu_ps(rs[5], _mm_mul_ps(_mm_add_ps(yz, wx), sy));
    _mm_storeu_ps(rs[6], _mm_mul_ps(_mm_add_ps(xz, wy), sz));
    _mm_storeu_ps(rs[7], _mm_mul_ps(_mm_sub_ps(yz, wx), sz));
    _mm_storeu_ps(rs[8], _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(xx, yy)), sz));
}

/* The four columns of a world matrix, kept in registers between joints. */
typedef struct cols4 {
    __m128 c0, c1, c2, c3;
} cols4;

static inline cols4 load_cols(const float *m)
{
    cols4 c = {_mm_loadu_ps(m), _mm_loadu_ps(m + 4), _mm_loadu_ps(m + 8), _mm_loadu_ps(m + 12)};
    return c;
}

/*
 * The parent's world of joint j: `root` (identity when NULL) for a root,
 * `previous` when the parent is j - 1 and was computed in this call
 * (j > from), else a load.
 */
static inline cols4 parent_cols(const float *worlds, int p, uint32_t j, uint32_t from, cols4 previous,
                                const float *root)
{
    cols4 m;
    if (p < 0 && root) {
        m = load_cols(root);
    } else if (p < 0) {
        m.c0 = _mm_setr_ps(1, 0, 0, 0);
        m.c1 = _mm_setr_ps(0, 1, 0, 0);
        m.c2 = _mm_setr_ps(0, 0, 1, 0);
        m.c3 = _mm_setr_ps(0, 0, 0, 1);
    } else if ((uint32_t)p + 1 == j && j > from) {
        m = previous;
    } else {
        const float *w = worlds + 16 * (size_t)p;
        m.c0 = _mm_loadu_ps(w);
        m.c1 = _mm_loadu_ps(w + 4);
        m.c2 = _mm_loadu_ps(w + 8);
        m.c3 = _mm_loadu_ps(w + 12);
    }
    return m;
}

static inline void store_cols(float *out, cols4 m)
{
    _mm_storeu_ps(out, m.c0);
    _mm_storeu_ps(out + 4, m.c1);
    _mm_storeu_ps(out + 8, m.c2);
    _mm_storeu_ps(out + 12, m.c3);
}

/* P × (a, b, c) for one column: (P0·a + P1·b) + P2·c, a b c read from memory. */
static inline __m128 mul_col_sse2(cols4 p, const float *a, const float *b, const float *c)
{
    return _mm_add_ps(_mm_add_ps(_mm_mul_ps(p.c0, _mm_load1_ps(a)), _mm_mul_ps(p.c1, _mm_load1_ps(b))),
                      _mm_mul_ps(p.c2, _mm_load1_ps(c)));
}

/* P × (t, 1): (P0·tx + P1·ty) + (P2·tz + P3). */
static inline __m128 mul_point_sse2(cols4 p, const float *t)
{
    return _mm_add_ps(_mm_add_ps(_mm_mul_ps(p.c0, _mm_load1_ps(t)), _mm_mul_ps(p.c1, _mm_load1_ps(t + 1))),
                      _mm_add_ps(_mm_mul_ps(p.c2, _mm_load1_ps(t + 2)), p.c3));
}

static void local_to_world_sse2(const int16_t *parents, const mn_pose *pose, uint32_t from,
                                uint32_t end, const float *root, float *worlds)
{
    float rs[9][4], pad_r[16], pad_s[12];
    cols4 w = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()};
    for (uint32_t j = from; j < end; j += 4) {
        const float *r, *s;
        uint32_t m = block_source(pose, j, end, 4, pad_r, pad_s, &r, &s);
        rotation_scale_block4(r, s, rs);
        for (uint32_t i = 0; i < m; i++) {
            uint32_t k = j + i;
            const float *t = pose->translations + 3 * (size_t)k;
            cols4 p = parent_cols(worlds, parents[k], k, from, w, root);
            w.c0 = mul_col_sse2(p, &rs[0][i], &rs[1][i], &rs[2][i]);
            w.c1 = mul_col_sse2(p, &rs[3][i], &rs[4][i], &rs[5][i]);
            w.c2 = mul_col_sse2(p, &rs[6][i], &rs[7][i], &rs[8][i]);
            w.c3 = mul_point_sse2(p, t);
            store_cols(worlds + 16 * (size_t)k, w);
        }
    }
}

static void palette_sse2(const mni_palette_job *job, float *palette)
{
    for (uint32_t i = 0; i < job->count; i++) {
        const float *b = job->inverse_bind + 16 * (size_t)i;
        cols4 p = load_cols(job->worlds + 16 * (size_t)job->joints[i]), out;
        out.c0 = mul_col_sse2(p, b, b + 1, b + 2);
        out.c1 = mul_col_sse2(p, b + 4, b + 5, b + 6);
        out.c2 = mul_col_sse2(p, b + 8, b + 9, b + 10);
        out.c3 = mul_point_sse2(p, b + 12);
        store_cols(palette + 16 * (size_t)i, out);
    }
}

#endif /* MN_SKELETON_SSE2 */

#if MN_SKELETON_AVX2

/* ---- per frame: AVX2 + FMA ------------------------------------------------------------- */

/* Rotation × scale of 8 joints, as rotation_scale_block4. */
MN_TARGET_AVX2 static __attribute__((noinline)) void
rotation_scale_block8(const float *r, const float *s, float rs[9][8])
{
    /* Quaternions 0..7 as (q0|q4) (q1|q5) (q2|q6) (q3|q7), then a 4x4 transpose per lane. */
    __m256 m0 = _mm256_loadu_ps(r), m1 = _mm256_loadu_ps(r + 8), m2 = _mm256_loadu_ps(r + 16),
           m3 = _mm256_loadu_ps(r + 24);
    __m256 a0 = _mm256_permute2f128_ps(m0, m2, 0x20), a1 = _mm256_permute2f128_ps(m0, m2, 0x31);
    __m256 a2 = _mm256_permute2f128_ps(m1, m3, 0x20), a3 = _mm256_permute2f128_ps(m1, m3, 0x31);
    __m256d t0 = _mm256_castps_pd(_mm256_unpacklo_ps(a0, a1)),
            t1 = _mm256_castps_pd(_mm256_unpackhi_ps(a0, a1)),
            t2 = _mm256_castps_pd(_mm256_unpacklo_ps(a2, a3)),
            t3 = _mm256_castps_pd(_mm256_unpackhi_ps(a2, a3));
    __m256 x = _mm256_castpd_ps(_mm256_unpacklo_pd(t0, t2)), y = _mm256_castpd_ps(_mm256_unpackhi_pd(t0, t2)),
           z = _mm256_castpd_ps(_mm256_unpacklo_pd(t1, t3)), w = _mm256_castpd_ps(_mm256_unpackhi_pd(t1, t3));
    const __m256i stride3 = _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21);
    __m256 sx = _mm256_i32gather_ps(s, stride3, 4), sy = _mm256_i32gather_ps(s + 1, stride3, 4),
           sz = _mm256_i32gather_ps(s + 2, stride3, 4);
    __m256 x2 = _mm256_add_ps(x, x), y2 = _mm256_add_ps(y, y), z2 = _mm256_add_ps(z, z);
    __m256 xx = _mm256_mul_ps(x, x2), yy = _mm256_mul_ps(y, y2), zz = _mm256_mul_ps(z, z2);
    __m256 xy = _mm256_mul_ps(x, y2), xz = _mm256_mul_ps(x, z2), yz = _mm256_mul_ps(y, z2);
    __m256 wx = _mm256_mul_ps(w, x2), wy = _mm256_mul_ps(w, y2), wz = _mm256_mul_ps(w, z2);
    __m256 one = _mm256_set1_ps(1.0f);
    _mm256_storeu_ps(rs[0], _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(yy, zz)), sx));
    _mm256_storeu_ps(rs[1], _mm256_mul_ps(_mm256_add_ps(xy, wz), sx));
    _mm256_storeu_ps(rs[2], _mm256_mul_ps(_mm256_sub_ps(xz, wy), sx));
    _mm256_storeu_ps(rs[3], _mm256_mul_ps(_mm256_sub_ps(xy, wz), sy));
    _mm256_storeu_ps(rs[4], _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, zz)), sy));
    _mm256_storeu_ps(rs[5], _mm256_mul_ps(_mm256_add_ps(yz, wx), sy));
    _mm256_storeu_ps(rs[6], _mm256_mul_ps(_mm256_add_ps(xz, wy), sz));
    _mm256_storeu_ps(rs[7], _mm256_mul_ps(_mm256_sub_ps(yz, wx), sz));
    _mm256_storeu_ps(rs[8], _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, yy)), sz));
}

/* P × (a, b, c): P2·c + (P1·b + P0·a), fused; broadcasts are plain loads with AVX. */
MN_TARGET_AVX2 static inline __m128 mul_col_fma(cols4 p, const float *a, const float *b, const float *c)
{
    return _mm_fmadd_ps(p.c2, _mm_broadcast_ss(c),
                        _mm_fmadd_ps(p.c1, _mm_broadcast_ss(b), _mm_mul_ps(p.c0, _mm_broadcast_ss(a))));
}

/* P × (t, 1): (P1·ty + P0·tx) + (P2·tz + P3), two independent chains. */
MN_TARGET_AVX2 static inline __m128 mul_point_fma(cols4 p, const float *t)
{
    return _mm_add_ps(_mm_fmadd_ps(p.c1, _mm_broadcast_ss(t + 1), _mm_mul_ps(p.c0, _mm_broadcast_ss(t))),
                      _mm_fmadd_ps(p.c2, _mm_broadcast_ss(t + 2), p.c3));
}

/*
 * Joint k of an AVX2 block: world = P × (rs column e, translation t), P
 * the parent's world: `w` (the joint just made) when p + 1 == k, else loaded
 * (`top` for a root).  Stores the world and returns it.
 */
MN_TARGET_AVX2 static inline cols4 joint_avx2(const int16_t *parents, uint32_t k, const float *top,
                                              float *worlds, const float *e, const float *t,
                                              cols4 w)
{
    int p = parents[k];
    cols4 m = w;
    if (p + 1 != (int)k)
        m = load_cols(p < 0 ? top : worlds + 16 * (ptrdiff_t)p);
    /* mul_col_fma and mul_point_fma on values: broadcasts from the block, not pointers to it */
    w.c0 = _mm_fmadd_ps(m.c2, _mm_set1_ps(e[16]),
                        _mm_fmadd_ps(m.c1, _mm_set1_ps(e[8]), _mm_mul_ps(m.c0, _mm_set1_ps(e[0]))));
    w.c1 = _mm_fmadd_ps(m.c2, _mm_set1_ps(e[40]),
                        _mm_fmadd_ps(m.c1, _mm_set1_ps(e[32]), _mm_mul_ps(m.c0, _mm_set1_ps(e[24]))));
    w.c2 = _mm_fmadd_ps(m.c2, _mm_set1_ps(e[64]),
                        _mm_fmadd_ps(m.c1, _mm_set1_ps(e[56]), _mm_mul_ps(m.c0, _mm_set1_ps(e[48]))));
    w.c3 = _mm_add_ps(_mm_fmadd_ps(m.c1, _mm_set1_ps(t[1]), _mm_mul_ps(m.c0, _mm_set1_ps(t[0]))),
                      _mm_fmadd_ps(m.c2, _mm_set1_ps(t[2]), m.c3));
    store_cols(worlds + 16 * (size_t)k, w);
    return w;
}

/*
 * Blocks of 8 joints, each a straight run of code; a last block shorter
 * than 8 is the last 8 joints of the pose again (rotation × scale
 * recomputed for the ones already done, the same bits, and only the new
 * ones composed), so only a pose of fewer than 8 joints in all takes the
 * padded copy.  A root's parent is `root` or a static identity, loaded like
 * any other parent.  `w` starts as what joint from − 1 would hand on: its
 * world when from > 0 (used only if it is the parent, whose world the
 * caller holds), else the root's parent, so the parent test is one compare.
 */
MN_TARGET_AVX2 static void local_to_world_avx2(const int16_t *parents, const mn_pose *pose,
                                               uint32_t from, uint32_t end, const float *root,
                                               float *worlds)
{
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const float *top = root ? root : identity;
    const float *translations = pose->translations;
    float rs[9][8], pad_r[32], pad_s[24];
    cols4 w = load_cols(from > 0 ? worlds + 16 * (size_t)(from - 1) : top);
    uint32_t j = from;
    for (; end - j >= 8; j += 8) {
        rotation_scale_block8(pose->rotations + 4 * (size_t)j, pose->scales + 3 * (size_t)j, rs);
        const float *t = translations + 3 * (size_t)j;
#pragma GCC unroll 8
        for (uint32_t i = 0; i < 8; i++)
            w = joint_avx2(parents, j + i, top, worlds, &rs[0][i], t + 3 * i, w);
    }
    if (j == end)
        return;
    const float *r, *s;
    uint32_t base = end >= 8 ? end - 8 : j; /* overlap the joints before: their rs again */
    if (end >= 8) {
        r = pose->rotations + 4 * (size_t)base, s = pose->scales + 3 * (size_t)base;
    } else {
        block_source(pose, j, end, 8, pad_r, pad_s, &r, &s);
    }
    rotation_scale_block8(r, s, rs);
    for (uint32_t k = j; k < end; k++)
        w = joint_avx2(parents, k, top, worlds, &rs[0][k - base], translations + 3 * (size_t)k, w);
}

MN_TARGET_AVX2 static void palette_avx2(const mni_palette_job *job, float *palette)
{
    for (uint32_t i = 0; i < job->count; i++) {
        const float *b = job->inverse_bind + 16 * (size_t)i;
        cols4 p = load_cols(job->worlds + 16 * (size_t)job->joints[i]), out;
        out.c0 = mul_col_fma(p, b, b + 1, b + 2);
        out.c1 = mul_col_fma(p, b + 4, b + 5, b + 6);
        out.c2 = mul_col_fma(p, b + 8, b + 9, b + 10);
        out.c3 = mul_point_fma(p, b + 12);
        store_cols(palette + 16 * (size_t)i, out);
    }
}

#endif /* MN_SKELETON_AVX2 */

/* ---- per frame: the entry points -------------------------------------------------------- */

bool mni_skeleton_kernel_available(mn_simd_level level)
{
    if (level == MN_SIMD_SCALAR || level == MN_SIMD_BEST)
        return true;
#if MN_SKELETON_SSE2
    if (level == MN_SIMD_SSE2)
        return mni_simd_resolve(level) == level;
#endif
#if MN_SKELETON_AVX2
    if (level == MN_SIMD_AVX2_FMA)
        return mni_simd_resolve(level) == level;
#endif
    return false;
}

/* The level a kernel call runs at: MN_SIMD_BEST resolved, another as asked when it runs here. */
static bool kernel_level(mn_simd_level *level)
{
    if (*level == MN_SIMD_BEST) {
        *level = mni_simd_resolve(MN_SIMD_BEST);
        return true;
    }
    return mni_skeleton_kernel_available(*level);
}

/* [from, end) of a parents-first array through the kernel of a resolved level. */
static void local_to_world_level(mn_simd_level level, const int16_t *parents, const mn_pose *pose,
                                 uint32_t from, uint32_t end, const float *root, float *worlds)
{
    switch (level) {
#if MN_SKELETON_AVX2
    case MN_SIMD_AVX2_FMA:
        local_to_world_avx2(parents, pose, from, end, root, worlds);
        break;
#endif
#if MN_SKELETON_SSE2
    case MN_SIMD_SSE2:
        local_to_world_sse2(parents, pose, from, end, root, worlds);
        break;
#endif
    default:
        local_to_world_scalar(parents, pose, from, end, root, worlds);
        break;
    }
}

bool mni_skeleton_local_to_world_kernel(mn_simd_level level, const mn_skeleton *skeleton,
                                        const mn_pose *pose, uint32_t from, float *worlds)
{
    if (!kernel_level(&level))
        return false;
    if (from >= skeleton->joint_count)
        return true;
    /* from = 0 covers every root's subtree, not just joint 0's. */
    uint32_t end = from == 0 ? skeleton->joint_count : skeleton->subtree_end[from];
    local_to_world_level(level, skeleton->parents, pose, from, end, NULL, worlds);
    return true;
}

bool mni_local_to_world_kernel(mn_simd_level level, const int16_t *parents, uint32_t count,
                               const mn_pose *pose, const float *root, float *worlds)
{
    if (!kernel_level(&level))
        return false;
    local_to_world_level(level, parents, pose, 0, count, root, worlds);
    return true;
}

bool mni_palette_kernel(mn_simd_level level, const mni_palette_job *job, float *palette)
{
    if (!kernel_level(&level))
        return false;
    if (!job->inverse_bind) {
        for (uint32_t i = 0; i < job->count; i++)
            memcpy(palette + 16 * (size_t)i, job->worlds + 16 * (size_t)job->joints[i],
                   16 * sizeof(float));
        return true;
    }
    switch (level) {
#if MN_SKELETON_AVX2
    case MN_SIMD_AVX2_FMA:
        palette_avx2(job, palette);
        break;
#endif
#if MN_SKELETON_SSE2
    case MN_SIMD_SSE2:
        palette_sse2(job, palette);
        break;
#endif
    default:
        palette_scalar(job, palette);
        break;
    }
    return true;
}

bool mni_skeleton_palette_kernel(mn_simd_level level, const mn_skeleton *skeleton,
                                 const float *worlds, float *palette)
{
    mni_palette_job job = {worlds, skeleton->joint_of_skin_joint, skeleton->inverse_bind,
                           skeleton->skin_joint_count};
    if (!job.inverse_bind)
        job.count = 0; /* a skeleton of nodes has no skin joints */
    return mni_palette_kernel(level, &job, palette);
}

void mn_skeleton_local_to_world(const mn_skeleton *skeleton, const mn_pose *pose, uint32_t from,
                                float *worlds)
{
    mni_skeleton_local_to_world_kernel(MN_SIMD_BEST, skeleton, pose, from, worlds);
}

void mn_skeleton_palette(const mn_skeleton *skeleton, const float *worlds, float *palette)
{
    mni_skeleton_palette_kernel(MN_SIMD_BEST, skeleton, worlds, palette);
}
