/*
 * The expression head a game drives on the CPU:
 * a parsed .aosrig pack plus one character's state — the joint worlds
 * and the skinning rows folded from them, the last override set, an optional
 * ARKit map — and the scratch a frame needs, all in one block made at
 * creation.  The maths of a frame is src/head/expression.c; this file
 * prepares its inputs.
 *
 * Work is done where its inputs change, not per frame: the skinning rows
 * S_j = u·W_j·restWorld_j⁻¹·bindTransform (u = 0.01 for a "cm" pack, the
 * bind transform and the units folded in, in double) are rebuilt when the
 * joint worlds change; a pose only scales the coefficients and streams the
 * basis.
 */
#include <marionette/head/head.h>

#include "core/core.h"
#include "head/expression_internal.h"

#include <math.h>
#include <string.h>

struct mn_head {
    mn_allocator allocator;
    size_t block_size;
    const mn_aosrig *pack;
    const mn_arkit_map *arkit;
    mn_simd_level level;
    float bounds_min[3], bounds_max[3];

    size_t joint_count;
    uint32_t *order;           /* J: joints parents first */
    double *rest_local;        /* J × 16: restWorld[parent]⁻¹·restWorld[j] (restWorld[j] for a root) */
    double *rest_inverse;      /* J × 16: restWorld[j]⁻¹ */
    double *world_scratch;     /* J × 16: override worlds while they are rebuilt */
    float *worlds;             /* J × 16: the current joint worlds, pack units */
    float *skin_rows;          /* J × 12 */

    /* The effective override set of the previous call (prev) and of this one (next). */
    float *prev_rot, *next_rot;        /* J × 4 (x y z w) */
    uint8_t *prev_has, *next_has;      /* J */
    uint8_t *affected;                 /* J: moved by an override at or above it */
    bool prev_valid;                   /* false after the caller set worlds: any set then moves */

    float *coef3;              /* 3E: scaled coefficients, repeated x y z */
    float *controls;           /* dim: what an ARKit map wrote */
};

/* ---- row-major affine helpers (the pack's convention), in double ------------------ */

/* out = a·b for affine row-major 4×4 (the last rows taken as 0 0 0 1); out may not alias. */
static void affine_mul(double out[16], const double a[16], const double b[16])
{
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 4; c++) {
            double s = a[4 * r] * b[c] + a[4 * r + 1] * b[4 + c] + a[4 * r + 2] * b[8 + c];
            out[4 * r + c] = c == 3 ? s + a[4 * r + 3] : s;
        }
    }
    out[12] = out[13] = out[14] = 0.0;
    out[15] = 1.0;
}

static void to_double(double out[16], const float m[16])
{
    for (int k = 0; k < 16; k++)
        out[k] = m[k];
}

/* The rotation matrix of a unit quaternion x y z w, row-major affine. */
static void quat_matrix(double out[16], const float q[4])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double m[16] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y), 0,
                    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x), 0,
                    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y), 0,
                    0, 0, 0, 1};
    memcpy(out, m, sizeof m);
}

/* ---- the skinning rows ------------------------------------------------------------- */

/*
 * S_j = u·W_j·restWorld_j⁻¹·B for every joint.  A joint whose world is its
 * rest bit for bit gets W·restWorld⁻¹ = I exactly, so the rest pose is the
 * bind transform without the rounding of a matrix times its inverse.
 */
static void build_skin_rows(mn_head *h)
{
    const mn_aosrig *p = h->pack;
    double bind[16], unit = p->header.units == MN_AOSRIG_CENTIMETRES ? 0.01 : 1.0;
    memcpy(bind, p->header.bind_transform, sizeof bind);
    for (size_t j = 0; j < h->joint_count; j++) {
        const float *w = h->worlds + 16 * j;
        double s[16];
        if (memcmp(w, p->rest_world + 16 * j, 16 * sizeof *w) == 0) {
            memcpy(s, bind, sizeof s);
        } else {
            double wd[16], m[16];
            to_double(wd, w);
            affine_mul(m, wd, h->rest_inverse + 16 * j);
            affine_mul(s, m, bind);
        }
        for (int k = 0; k < 12; k++)
            h->skin_rows[12 * j + (size_t)k] = (float)(unit * s[k]);
    }
}

/* ---- creation ---------------------------------------------------------------------- */

/*
 * Joints ordered parents first (the reader proved a forest): each joint's
 * depth, found by walking up to a joint of known depth and filling the path
 * back down, then a counting sort by depth.  depth and counts are J and J + 1
 * words of scratch.
 */
static void order_joints(mn_head *h, uint32_t *depth, uint32_t *counts)
{
    const int32_t *parent = h->pack->joint_parents;
    size_t n = h->joint_count;
    if (n == 0)
        return; /* the scratch arrays are empty too */
    for (size_t j = 0; j < n; j++)
        depth[j] = UINT32_MAX;
    for (size_t j = 0; j < n; j++) {
        size_t top = j, steps = 0;
        while (depth[top] == UINT32_MAX && parent[top] >= 0) {
            top = (size_t)parent[top];
            steps++;
        }
        if (depth[top] == UINT32_MAX)
            depth[top] = 0; /* a root */
        uint32_t d = depth[top];
        size_t k = j;
        for (size_t s = steps; s > 0; s--) {
            depth[k] = d + (uint32_t)s;
            k = (size_t)parent[k];
        }
    }
    memset(counts, 0, (n + 1) * sizeof *counts);
    for (size_t j = 0; j < n; j++)
        counts[depth[j] + 1]++;     /* depths are below n */
    for (size_t d = 1; d <= n; d++)
        counts[d] += counts[d - 1]; /* counts[d]: where depth d starts */
    for (size_t j = 0; j < n; j++)
        h->order[counts[depth[j]]++] = (uint32_t)j;
}

typedef struct block_plan {
    size_t size;
    bool ok;
    size_t order, rest_local, rest_inverse, world_scratch, worlds, skin_rows;
    size_t prev_rot, next_rot, prev_has, next_has, affected, coef3, controls;
} block_plan;

/* Place count × elem bytes at the next multiple of align; returns the offset. */
static size_t take(block_plan *b, size_t count, size_t elem, size_t align)
{
    size_t at = (b->size + align - 1) & ~(align - 1), n = 0;
    b->ok = b->ok && mni_checked_mul(count, elem, &n) && mni_checked_add(at, n, &b->size);
    return at;
}

/* Lay out the head's block: the struct, then each array aligned for its type. */
static bool plan_block(size_t joints, size_t coeffs, size_t dim, block_plan *b)
{
    memset(b, 0, sizeof *b);
    b->ok = joints < SIZE_MAX / 128 && coeffs < SIZE_MAX / 12;
    b->size = sizeof(mn_head);
    if (!b->ok)
        return false;
    b->rest_local = take(b, joints * 16, sizeof(double), 8);
    b->rest_inverse = take(b, joints * 16, sizeof(double), 8);
    b->world_scratch = take(b, joints * 16, sizeof(double), 8);
    b->coef3 = take(b, coeffs * 3, sizeof(float), 4);
    b->worlds = take(b, joints * 16, sizeof(float), 4);
    b->skin_rows = take(b, joints * 12, sizeof(float), 4);
    b->prev_rot = take(b, joints * 4, sizeof(float), 4);
    b->next_rot = take(b, joints * 4, sizeof(float), 4);
    b->controls = take(b, dim, sizeof(float), 4);
    b->order = take(b, joints, sizeof(uint32_t), 4);
    b->prev_has = take(b, joints, 1, 1);
    b->next_has = take(b, joints, 1, 1);
    b->affected = take(b, joints, 1, 1);
    return b->ok;
}

static void neutral_bounds(mn_head *h)
{
    const mn_aosrig *p = h->pack;
    for (int k = 0; k < 3; k++) {
        h->bounds_min[k] = INFINITY;
        h->bounds_max[k] = -INFINITY;
    }
    for (size_t v = 0; v < p->header.vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            h->bounds_min[k] = fminf(h->bounds_min[k], p->neutral[3 * v + (size_t)k]);
            h->bounds_max[k] = fmaxf(h->bounds_max[k], p->neutral[3 * v + (size_t)k]);
        }
}

/* Rest locals and inverses; false (with err) when a rest world cannot be inverted. */
static mn_status prepare_rest(mn_head *h, mn_error *err)
{
    const mn_aosrig *p = h->pack;
    for (size_t j = 0; j < h->joint_count; j++) {
        if (!mni_affine_invert_rows(h->rest_inverse + 16 * j, p->rest_world + 16 * j))
            return mni_error_set(err, MN_INVALID_VALUE, "blobs.restWorld", -1,
                                 "restWorld[%zu] (joint \"%s\") has a singular 3x3: it cannot be "
                                 "inverted for skinning",
                                 j, p->header.joint_names[j]);
    }
    for (size_t j = 0; j < h->joint_count; j++) {
        int32_t parent = p->joint_parents[j];
        double *local = h->rest_local + 16 * j;
        if (parent < 0) {
            to_double(local, p->rest_world + 16 * j);
        } else {
            double rw[16];
            to_double(rw, p->rest_world + 16 * j);
            affine_mul(local, h->rest_inverse + 16 * (size_t)parent, rw);
        }
    }
    return MN_OK;
}

mn_status mn_head_create(const mn_aosrig *pack, const mn_head_options *options, mn_head **out,
                         mn_error *err)
{
    if (out)
        *out = NULL;
    if (!pack || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "head: NULL pack or out");
    mn_allocator allocator = options ? options->allocator : (mn_allocator){0};
    block_plan b;
    if (!plan_block(pack->header.joint_count, pack->header.coeff_count,
                    pack->header.head_ext.dim, &b))
        return mni_fail(err, MN_OVERFLOW, "head: the state's size overflows");
    uint8_t *block = mni_alloc(&allocator, b.size);
    if (!block)
        return mni_oom(err, "head (%zu bytes)", b.size);
    memset(block, 0, b.size);
    mn_head *h = (mn_head *)(void *)block;
    h->allocator = allocator;
    h->block_size = b.size;
    h->pack = pack;
    h->joint_count = pack->header.joint_count;
    h->order = (uint32_t *)(void *)(block + b.order);
    h->rest_local = (double *)(void *)(block + b.rest_local);
    h->rest_inverse = (double *)(void *)(block + b.rest_inverse);
    h->world_scratch = (double *)(void *)(block + b.world_scratch);
    h->worlds = (float *)(void *)(block + b.worlds);
    h->skin_rows = (float *)(void *)(block + b.skin_rows);
    h->prev_rot = (float *)(void *)(block + b.prev_rot);
    h->next_rot = (float *)(void *)(block + b.next_rot);
    h->prev_has = block + b.prev_has;
    h->next_has = block + b.next_has;
    h->affected = block + b.affected;
    h->coef3 = (float *)(void *)(block + b.coef3);
    h->controls = (float *)(void *)(block + b.controls);
    h->prev_valid = true; /* the rest is the empty override set */

    /* Ordering borrows arrays unused until later: next_rot (4 words a joint) for the depths,
       world_scratch (32 words a joint) for the counts; both are cleared after. */
    order_joints(h, (uint32_t *)(void *)h->next_rot, (uint32_t *)(void *)h->world_scratch);
    memset(h->next_rot, 0, h->joint_count * 4 * sizeof(float));
    memset(h->world_scratch, 0, h->joint_count * 16 * sizeof(double));
    mn_status st = prepare_rest(h, err);
    if (st != MN_OK) {
        mni_free(&allocator, block, b.size);
        return st;
    }
    memcpy(h->worlds, pack->rest_world, h->joint_count * 16 * sizeof(float));
    build_skin_rows(h);
    neutral_bounds(h);
    h->level = mni_expression_level(MN_SIMD_BEST);
    *out = h;
    return MN_OK;
}

void mn_head_free(mn_head *head)
{
    if (!head)
        return;
    mn_allocator allocator = head->allocator;
    mni_free(&allocator, head, head->block_size);
}

const mn_aosrig *mn_head_pack(const mn_head *head)
{
    return head ? head->pack : NULL;
}

mn_simd_level mn_head_set_simd(mn_head *head, mn_simd_level level)
{
    if (!head)
        return MN_SIMD_SCALAR;
    head->level = mni_expression_level(level);
    return head->level;
}

void mn_head_neutral_bounds(const mn_head *head, float min[3], float max[3])
{
    for (int k = 0; k < 3; k++) {
        min[k] = head->bounds_min[k];
        max[k] = head->bounds_max[k];
    }
}

const float *mn_head_joint_worlds(const mn_head *head)
{
    return head ? head->worlds : NULL;
}

/* ---- a frame ----------------------------------------------------------------------- */

/* R = Ry(yaw)·Rx(pitch), row-major 3×3. */
static void eye_matrix(float pitch, float yaw, float r[9])
{
    double cp = cos(pitch), sp = sin(pitch), cy = cos(yaw), sy = sin(yaw);
    double m[9] = {cy, sy * sp, sy * cp, 0.0, cp, -sp, -sy, cy * sp, cy * cp};
    for (int k = 0; k < 9; k++)
        r[k] = (float)m[k];
}

static mn_status run_frame(mn_head *h, const float *controls, size_t count, float *out,
                           bool pose, mn_error *err)
{
    if (!h || !out || (!controls && count > 0))
        return mni_fail(err, MN_INVALID_ARGUMENT, "head: NULL head, output or controls");
    const mn_aosrig *p = h->pack;
    const mn_aosrig_head_ext *layout = &p->header.head_ext;
    if (count > layout->dim)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "head_ext: %zu controls, more than the layout's dim %u", count, layout->dim);
    size_t coeffs = p->header.coeff_count;
    for (size_t e = 0; e < coeffs; e++) {
        float k = (e < count ? controls[e] : 0.0f) * p->basis_scale[e];
        h->coef3[3 * e] = h->coef3[3 * e + 1] = h->coef3[3 * e + 2] = k;
    }
    float gaze[4];
    for (size_t g = 0; g < 4; g++)
        gaze[g] = coeffs + g < count ? controls[coeffs + g] : 0.0f;

    mn_expr_frame f = {0};
    f.vertex_count = p->header.vertex_count;
    f.row = 3 * coeffs;
    f.neutral = p->neutral;
    f.basis = p->basis;
    f.coef3 = h->coef3;
    f.eye_weights = p->eye_weights;
    for (int k = 0; k < 2; k++) {
        float pitch = gaze[2 * k], yaw = gaze[2 * k + 1];
        /* A still eye is skipped: R = I turns nothing, and skipping keeps its vertices' bits. */
        f.eye_on[k] = pitch != 0.0f || yaw != 0.0f;
        eye_matrix(pitch, yaw, f.eye_rot[k]);
        memcpy(f.eye_centre[k], p->eye_positions + 3 * k, 3 * sizeof(float));
    }
    if (pose) {
        f.stitch = p->stitch_local;
        f.influences = p->header.max_influence;
        f.skin_index = p->skin_index;
        f.skin_weight = p->skin_weight;
        f.skin_rows = h->skin_rows;
    }
    f.out = out;
    mni_expression_run(&f, h->level);
    return MN_OK;
}

mn_status mn_head_forward(mn_head *head, const float *controls, size_t count, float *out,
                          mn_error *err)
{
    return run_frame(head, controls, count, out, false, err);
}

mn_status mn_head_pose(mn_head *head, const float *controls, size_t count, float *out,
                       mn_error *err)
{
    return run_frame(head, controls, count, out, true, err);
}

/* ---- joint worlds and overrides ------------------------------------------------------ */

mn_status mn_head_set_joint_worlds(mn_head *head, const float *worlds, size_t count, mn_error *err)
{
    if (!head || (!worlds && count > 0))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "joint worlds: NULL head, or NULL worlds with a count");
    const mn_aosrig *p = head->pack;
    size_t want = head->joint_count * 16;
    if (!worlds) {
        memcpy(head->worlds, p->rest_world, want * sizeof(float));
    } else {
        if (count != want)
            return mni_fail(err, MN_COUNT_MISMATCH,
                            "joint worlds: %zu floats, the pack's %zu joints need %zu", count,
                            head->joint_count, want);
        for (size_t i = 0; i < want; i++)
            if (!isfinite(worlds[i]))
                return mni_fail(err, MN_NOT_FINITE,
                                "joint worlds: joint %zu, element %zu is not finite", i / 16,
                                i % 16);
        /* Caller worlds are metres; a "cm" pack poses in its own units. */
        float unit = p->header.units == MN_AOSRIG_CENTIMETRES ? 100.0f : 1.0f;
        for (size_t i = 0; i < want; i++) {
            size_t k = i % 16;
            head->worlds[i] = (k == 3 || k == 7 || k == 11) ? worlds[i] * unit : worlds[i];
        }
    }
    build_skin_rows(head);
    head->prev_valid = !worlds;
    memset(head->prev_has, 0, head->joint_count);
    return MN_OK;
}

/* Normalise q (x y z w) into out, w ≥ 0 (the first non-zero of x y z positive when w = 0). */
static mn_status canonical_rotation(const float q[4], float out[4], size_t index, mn_error *err)
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    if (!isfinite(x) || !isfinite(y) || !isfinite(z) || !isfinite(w))
        return mni_fail(err, MN_NOT_FINITE, "joint override %zu: the rotation is not finite", index);
    double len = sqrt(x * x + y * y + z * z + w * w);
    if (!(len > 0.0))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "joint override %zu: the rotation has zero length", index);
    double c[4] = {x / len, y / len, z / len, w / len};
    bool flip = c[3] < 0.0 ||
                (c[3] == 0.0 && (c[0] < 0.0 || (c[0] == 0.0 && (c[1] < 0.0 ||
                                                                 (c[1] == 0.0 && c[2] < 0.0)))));
    for (int k = 0; k < 4; k++)
        out[k] = (float)(flip ? -c[k] : c[k]) + 0.0f; /* + 0 turns -0 into 0 */
    return MN_OK;
}

/* Rebuild head->worlds from the rest under the override set prev_*. */
static void rebuild_worlds(mn_head *h)
{
    const mn_aosrig *p = h->pack;
    for (size_t k = 0; k < h->joint_count; k++) {
        size_t j = h->order[k];
        int32_t parent = p->joint_parents[j];
        bool above = parent >= 0 && h->affected[parent];
        h->affected[j] = h->prev_has[j] || above;
        double *w = h->world_scratch + 16 * j;
        if (!h->affected[j]) {
            memcpy(h->worlds + 16 * j, p->rest_world + 16 * j, 16 * sizeof(float));
            to_double(w, p->rest_world + 16 * j);
            continue;
        }
        double local[16];
        if (h->prev_has[j]) {
            double r[16];
            quat_matrix(r, h->prev_rot + 4 * j);
            affine_mul(local, h->rest_local + 16 * j, r);
        } else {
            memcpy(local, h->rest_local + 16 * j, sizeof local);
        }
        if (parent >= 0)
            affine_mul(w, h->world_scratch + 16 * (size_t)parent, local);
        else
            memcpy(w, local, sizeof local);
        for (int i = 0; i < 16; i++)
            h->worlds[16 * j + (size_t)i] = (float)w[i];
    }
}

mn_status mn_head_set_joint_overrides(mn_head *head, const mn_joint_override *overrides,
                                      size_t count, bool *moved, mn_error *err)
{
    if (moved)
        *moved = false;
    if (!head || (!overrides && count > 0))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "joint overrides: NULL head, or NULL overrides with a count");
    size_t n = head->joint_count;
    memset(head->next_has, 0, n);
    for (size_t i = 0; i < count; i++) {
        if (!overrides[i].joint)
            return mni_fail(err, MN_INVALID_ARGUMENT, "joint override %zu: NULL joint name", i);
        float q[4];
        mn_status st = canonical_rotation(overrides[i].rotation, q, i, err);
        if (st != MN_OK)
            return st;
        uint32_t j = mn_aosrig_find_joint(head->pack, overrides[i].joint);
        if (j == UINT32_MAX)
            continue; /* the body has joints the head does not */
        bool identity = q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 1.0f;
        head->next_has[j] = !identity;
        memcpy(head->next_rot + 4 * (size_t)j, q, sizeof q);
    }
    bool same = head->prev_valid;
    for (size_t j = 0; same && j < n; j++)
        same = head->next_has[j] == head->prev_has[j] &&
               (!head->next_has[j] ||
                memcmp(head->next_rot + 4 * j, head->prev_rot + 4 * j, 4 * sizeof(float)) == 0);
    if (same)
        return MN_OK; /* an idle head's repeat: nothing to recompute */
    memcpy(head->prev_has, head->next_has, n);
    memcpy(head->prev_rot, head->next_rot, n * 4 * sizeof(float));
    head->prev_valid = true;
    rebuild_worlds(head);
    build_skin_rows(head);
    if (moved)
        *moved = true;
    return MN_OK;
}

/* ---- ARKit --------------------------------------------------------------------------- */

mn_status mn_head_set_arkit_map(mn_head *head, const mn_arkit_map *map, mn_error *err)
{
    if (!head)
        return mni_fail(err, MN_INVALID_ARGUMENT, "head: NULL");
    if (map && map->dim != head->pack->header.head_ext.dim)
        return mni_fail(err, MN_COUNT_MISMATCH,
                        "ARKit map: it writes %u controls, the head takes %u", map->dim,
                        head->pack->header.head_ext.dim);
    head->arkit = map;
    return MN_OK;
}

mn_status mn_head_pose_arkit(mn_head *head, const float *arkit, size_t count, float *out,
                             mn_error *err)
{
    if (!head || !out || (!arkit && count > 0))
        return mni_fail(err, MN_INVALID_ARGUMENT, "head: NULL head, output or ARKit weights");
    if (!head->arkit)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "no ARKit map: this head has no ARKit-to-head_ext map, so an ARKit "
                        "vector cannot drive it (set one with mn_head_set_arkit_map)");
    if (count > MN_ARKIT_CHANNEL_COUNT)
        return mni_fail(err, MN_INVALID_ARGUMENT, "ARKit: %zu weights, more than the %u channels",
                        count, MN_ARKIT_CHANNEL_COUNT);
    float weights[MN_ARKIT_CHANNEL_COUNT] = {0};
    if (count > 0)
        memcpy(weights, arkit, count * sizeof *weights);
    mn_arkit_map_apply(head->arkit, weights, head->controls);
    return run_frame(head, head->controls, head->arkit->dim, out, true, err);
}
