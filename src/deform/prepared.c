/*
 * The prepared deformable mesh: a glTF primitive converted once into the
 * streams the morph and skinning jobs read (packed floats, merged
 * influences), then deformed per frame without allocating.
 *
 * Everything a mesh holds lives in one block from the caller's allocator,
 * carved into 64-byte aligned arrays (the header, the delta pointer tables,
 * then the streams), so mn_deform_mesh_free is one free.  Creating a skinned
 * mesh borrows one scratch buffer (4 values a vertex) for the accessor
 * conversions and returns it before it returns.
 */
#include <marionette/morph.h>
#include <marionette/skin.h>

#include "core/core.h"
#include "deform/deform.h"
#include "deform/internal.h"
#include "model/model.h"

#include <stdio.h>
#include <string.h>

struct mn_deform_mesh_private {
    mn_allocator allocator;
    size_t size;               /* bytes of the block, for the free hook */
    uint32_t joint_bound;      /* 1 + the largest joint index: the palette must hold that many */
    mn_skinning skinning;      /* how mn_deform_mesh_run skins (set once, before sharing) */
};

#define BLOCK_ALIGN 64u

/* ---- sizing the block --------------------------------------------------------- */

/* Reserve `count` × `size` bytes at the next aligned offset; false on overflow. */
static bool reserve(size_t *offset, size_t count, size_t size, size_t *at)
{
    size_t bytes, start;
    if (!mni_checked_add(*offset, BLOCK_ALIGN - 1, &start))
        return false;
    start &= ~(size_t)(BLOCK_ALIGN - 1);
    if (!mni_checked_mul(count, size, &bytes) || !mni_checked_add(start, bytes, offset))
        return false;
    *at = start;
    return true;
}

/* What the primitive offers, checked, with the block's layout. */
typedef struct mesh_plan {
    const mn_accessor *position, *normal, *tangent;
    uint32_t sets;                      /* JOINTS_n/WEIGHTS_n pairs, n = 0 .. sets-1 */
    uint32_t targets;
    size_t at_private, at_tables, at_positions, at_normals, at_tangents, at_joints, at_weights;
    size_t at_deltas;                   /* first delta array; each is 3 × vertex_count floats */
    size_t delta_stride;                /* bytes between delta arrays */
    size_t delta_arrays;
    size_t size;
} mesh_plan;

static const mn_accessor *accessor_of(const mn_model *model, uint32_t index)
{
    return index < model->accessor_count ? &model->accessors[index] : NULL;
}

/* A stream attribute: absent (NULL), or of the expected type and the primitive's count. */
static mn_status check_stream(const mn_accessor *a, mn_accessor_type type, uint32_t count,
                              const char *path, const char *name, mn_error *err)
{
    if (!a)
        return MN_OK;
    if (a->type != type)
        return mni_error_set(err, MN_INVALID_VALUE, path, -1,
                             "%s: %s must be a %s accessor to deform", path, name,
                             mn_accessor_type_name(type));
    if (a->count != count)
        return mni_error_set(err, MN_COUNT_MISMATCH, path, -1,
                             "%s: %s has %u elements, POSITION has %u", path, name, a->count, count);
    return MN_OK;
}

static mn_status plan_mesh(const mn_model *model, uint32_t mesh, uint32_t primitive,
                           mesh_plan *plan, mn_error *err)
{
    char path[128];
    snprintf(path, sizeof path, "meshes[%u].primitives[%u]", mesh, primitive);
    const mn_primitive *p = &model->meshes[mesh].primitives[primitive];
    memset(plan, 0, sizeof *plan);

    plan->position = accessor_of(model, mn_primitive_find(p, MN_SEMANTIC_POSITION, 0));
    if (!plan->position || plan->position->type != MN_TYPE_VEC3)
        return mni_error_set(err, MN_INVALID_VALUE, path, -1,
                             "%s has no VEC3 POSITION attribute: nothing to deform", path);
    uint32_t n = plan->position->count;
    plan->normal = accessor_of(model, mn_primitive_find(p, MN_SEMANTIC_NORMAL, 0));
    plan->tangent = accessor_of(model, mn_primitive_find(p, MN_SEMANTIC_TANGENT, 0));
    mn_status st;
    if ((st = check_stream(plan->normal, MN_TYPE_VEC3, n, path, "NORMAL", err)) != MN_OK ||
        (st = check_stream(plan->tangent, MN_TYPE_VEC4, n, path, "TANGENT", err)) != MN_OK)
        return st;

    /* Influence sets: JOINTS_n and WEIGHTS_n in pairs from n = 0 on. */
    for (;; plan->sets++) {
        const mn_accessor *j = accessor_of(model, mn_primitive_find(p, MN_SEMANTIC_JOINTS, plan->sets));
        const mn_accessor *w = accessor_of(model, mn_primitive_find(p, MN_SEMANTIC_WEIGHTS, plan->sets));
        if (!j && !w)
            break;
        if (!j || !w)
            return mni_error_set(err, MN_INVALID_VALUE, path, -1,
                                 "%s has %s_%u without %s_%u: influences come in pairs", path,
                                 j ? "JOINTS" : "WEIGHTS", plan->sets, j ? "WEIGHTS" : "JOINTS",
                                 plan->sets);
        if ((st = check_stream(j, MN_TYPE_VEC4, n, path, "JOINTS", err)) != MN_OK ||
            (st = check_stream(w, MN_TYPE_VEC4, n, path, "WEIGHTS", err)) != MN_OK)
            return st;
    }
    if (plan->sets > UINT32_MAX / 4)
        return mni_error_set(err, MN_OVERFLOW, path, -1, "%s: too many influence sets", path);

    plan->targets = p->target_count;
    for (uint32_t t = 0; t < p->target_count; t++) {
        char tpath[160];
        snprintf(tpath, sizeof tpath, "%s.targets[%u]", path, t);
        const mn_morph_target *mt = &p->targets[t];
        if ((st = check_stream(accessor_of(model, mt->position), MN_TYPE_VEC3, n, tpath,
                               "POSITION", err)) != MN_OK ||
            (st = check_stream(accessor_of(model, mt->normal), MN_TYPE_VEC3, n, tpath, "NORMAL",
                               err)) != MN_OK ||
            (st = check_stream(accessor_of(model, mt->tangent), MN_TYPE_VEC3, n, tpath,
                               "TANGENT", err)) != MN_OK)
            return st;
        /* Deltas only for streams the mesh has: a normal delta without normals moves nothing. */
        plan->delta_arrays += (mt->position != MN_NONE) + (mt->normal != MN_NONE && plan->normal) +
                              (mt->tangent != MN_NONE && plan->tangent);
    }

    size_t ic = 4 * (size_t)plan->sets, off = sizeof(mn_deform_mesh);
    bool ok = reserve(&off, 1, sizeof(struct mn_deform_mesh_private), &plan->at_private) &&
              reserve(&off, 3 * (size_t)plan->targets, sizeof(float *), &plan->at_tables) &&
              reserve(&off, 3 * (size_t)n, sizeof(float), &plan->at_positions) &&
              reserve(&off, plan->normal ? 3 * (size_t)n : 0, sizeof(float), &plan->at_normals) &&
              reserve(&off, plan->tangent ? 4 * (size_t)n : 0, sizeof(float), &plan->at_tangents) &&
              reserve(&off, ic * n, sizeof(float), &plan->at_weights) &&
              reserve(&off, ic * n, sizeof(uint16_t), &plan->at_joints) &&
              reserve(&off, 0, 1, &plan->at_deltas);
    /* Delta arrays follow one another, each rounded up to the alignment. */
    size_t one = 0, deltas = 0;
    ok = ok && mni_checked_mul(3 * (size_t)n, sizeof(float), &one) &&
         mni_checked_add(one, BLOCK_ALIGN - 1, &one);
    plan->delta_stride = one & ~(size_t)(BLOCK_ALIGN - 1);
    ok = ok && mni_checked_mul(plan->delta_stride, plan->delta_arrays, &deltas) &&
         mni_checked_add(plan->at_deltas, deltas, &plan->size);
    if (!ok)
        return mni_error_set(err, MN_OVERFLOW, path, -1,
                             "%s: %u vertices with %zu influences and %u targets overflow memory",
                             path, n, ic, plan->targets);
    return MN_OK;
}

/* ---- filling the block --------------------------------------------------------- */

/*
 * Merge every JOINTS_n/WEIGHTS_n set into ic = 4 × sets influences a vertex,
 * set n at influences 4n .. 4n+3.  scratch holds 4 × vertex_count values.
 * Returns 1 + the largest joint index.
 */
static uint32_t fill_influences(const mn_model *model, const mn_primitive *p, const mesh_plan *plan,
                                size_t n, uint16_t *joints, float *weights, void *scratch)
{
    size_t ic = 4 * (size_t)plan->sets;
    uint32_t bound = 0;
    for (uint32_t s = 0; s < plan->sets; s++) {
        const mn_accessor *ja = accessor_of(model, mn_primitive_find(p, MN_SEMANTIC_JOINTS, s));
        const mn_accessor *wa = accessor_of(model, mn_primitive_find(p, MN_SEMANTIC_WEIGHTS, s));
        uint32_t *j32 = scratch;
        mn_accessor_unpack_u32(ja, j32, 4 * n);
        for (size_t v = 0; v < n; v++)
            for (size_t k = 0; k < 4; k++) {
                /* glTF joints are u8 or u16, so the clip never bites on a file the reader took */
                uint32_t j = j32[4 * v + k] > UINT16_MAX ? UINT16_MAX : j32[4 * v + k];
                joints[v * ic + 4 * s + k] = (uint16_t)j;
                if (j + 1 > bound)
                    bound = j + 1;
            }
        float *w32 = scratch;
        mn_accessor_unpack_floats(wa, w32, 4 * n);
        for (size_t v = 0; v < n; v++)
            memcpy(weights + v * ic + 4 * s, w32 + 4 * v, 4 * sizeof(float));
    }
    for (size_t v = 0; v < n; v++)
        mni_skin_weights_normalise(weights + v * ic, weights + v * ic, ic);
    return bound;
}

static float *unpack(const mn_accessor *a, char *block, size_t at, size_t floats)
{
    float *out = (float *)(void *)(block + at);
    mn_accessor_unpack_floats(a, out, floats);
    return out;
}

mn_status mn_deform_mesh_create(const mn_model *model, uint32_t mesh, uint32_t primitive,
                                const mn_allocator *allocator, mn_deform_mesh **out,
                                mn_error *err)
{
    if (out)
        *out = NULL;
    if (!model || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "model and out must not be NULL");
    if (mesh >= model->mesh_count)
        return mni_error_set(err, MN_INDEX_RANGE, "meshes", -1,
                             "mesh %u is out of range: the model has %u meshes", mesh,
                             model->mesh_count);
    if (primitive >= model->meshes[mesh].primitive_count)
        return mni_fail(err, MN_INDEX_RANGE,
                        "primitive %u is out of range: meshes[%u] has %u primitives", primitive,
                        mesh, model->meshes[mesh].primitive_count);

    mesh_plan plan;
    mn_status st = plan_mesh(model, mesh, primitive, &plan, err);
    if (st != MN_OK)
        return st;

    const mn_primitive *p = &model->meshes[mesh].primitives[primitive];
    size_t n = plan.position->count;
    char *block = mni_alloc(allocator, plan.size);
    void *scratch = NULL;
    size_t scratch_size = 4 * n * sizeof(uint32_t);
    if (plan.sets > 0 && n > 0)
        scratch = mni_alloc(allocator, scratch_size);
    if (!block || (plan.sets > 0 && n > 0 && !scratch)) {
        mni_free(allocator, block, plan.size);
        mni_free(allocator, scratch, scratch_size);
        return mni_oom(err, "meshes[%u].primitives[%u] (%zu bytes)", mesh, primitive, plan.size);
    }

    mn_deform_mesh *m = (mn_deform_mesh *)(void *)block;
    memset(m, 0, sizeof *m);
    struct mn_deform_mesh_private *priv = (void *)(block + plan.at_private);
    priv->allocator = allocator ? *allocator : (mn_allocator){0};
    priv->size = plan.size;
    priv->joint_bound = 0;
    priv->skinning = MN_SKINNING_LINEAR;
    m->priv_ = priv;
    m->mesh = mesh;
    m->primitive = primitive;
    m->vertex_count = (uint32_t)n;

    m->positions = unpack(plan.position, block, plan.at_positions, 3 * n);
    if (plan.normal)
        m->normals = unpack(plan.normal, block, plan.at_normals, 3 * n);
    if (plan.tangent)
        m->tangents = unpack(plan.tangent, block, plan.at_tangents, 4 * n);

    if (plan.sets > 0) {
        uint16_t *joints = (uint16_t *)(void *)(block + plan.at_joints);
        float *weights = (float *)(void *)(block + plan.at_weights);
        priv->joint_bound = fill_influences(model, p, &plan, n, joints, weights, scratch);
        m->influence_count = 4 * plan.sets;
        m->joints = joints;
        m->weights = weights;
    }
    mni_free(allocator, scratch, scratch_size);

    m->target_count = plan.targets;
    const float **tables = (const float **)(void *)(block + plan.at_tables);
    const float **pos_d = tables, **nrm_d = tables + plan.targets, **tan_d = tables + 2 * plan.targets;
    size_t next = plan.at_deltas;
    for (uint32_t t = 0; t < plan.targets; t++) {
        const mn_morph_target *mt = &p->targets[t];
        const uint32_t acc[3] = {mt->position, plan.normal ? mt->normal : MN_NONE,
                                 plan.tangent ? mt->tangent : MN_NONE};
        const float **slot[3] = {&pos_d[t], &nrm_d[t], &tan_d[t]};
        for (int k = 0; k < 3; k++) {
            *slot[k] = NULL;
            if (acc[k] == MN_NONE)
                continue;
            *slot[k] = unpack(accessor_of(model, acc[k]), block, next, 3 * n);
            next += plan.delta_stride;
        }
    }
    m->position_deltas = pos_d;
    m->normal_deltas = nrm_d;
    m->tangent_deltas = tan_d;

    *out = m;
    mni_error_clear(err);
    return MN_OK;
}

void mn_deform_mesh_free(mn_deform_mesh *mesh)
{
    if (!mesh)
        return;
    struct mn_deform_mesh_private *priv = mesh->priv_;
    mn_allocator allocator = priv->allocator;
    mni_free(&allocator, mesh, priv->size);
}

/* ---- deforming ------------------------------------------------------------------ */

/* True when some target has a weight other than zero (and a weight array was given). */
static bool any_weight(const mn_deform_mesh *mesh, const float *weights)
{
    if (!weights)
        return false;
    for (uint32_t i = 0; i < mesh->target_count; i++)
        if (weights[i] != 0.0f)
            return true;
    return false;
}

/* out = base + Σ w_i δ_i over packed 3-float streams (mn_morph_run cannot fail here). */
static void morph3(const mn_deform_mesh *mesh, const float *base, const float *const *deltas,
                   const float *weights, float *out)
{
    mn_morph_job job = {mesh->vertex_count, 3, base, mesh->target_count, deltas, weights, out};
    (void)mn_morph_run(&job);
}

mn_status mn_deform_mesh_set_skinning(mn_deform_mesh *mesh, mn_skinning skinning)
{
    if (!mesh || (unsigned)skinning > (unsigned)MN_SKINNING_DUAL_QUAT)
        return MN_INVALID_ARGUMENT;
    mesh->priv_->skinning = skinning;
    return MN_OK;
}

mn_skinning mn_deform_mesh_skinning(const mn_deform_mesh *mesh)
{
    return mesh ? mesh->priv_->skinning : MN_SKINNING_LINEAR;
}

/* The skinning step of a deform: its matrices or dual quaternions (one of them). */
typedef struct skin_step {
    const float *palette, *dual_quats;
    uint32_t count;
} skin_step;

/*
 * Morph, then skin by `step` (palette or dual quaternions; neither: not
 * skinned), storing as `store` says (dual quaternions store through the
 * cache whatever it says).  The counts were checked by the caller.
 */
static mn_status deform(const mn_deform_mesh *mesh, const float *weights, skin_step step,
                        float *out_positions, float *out_normals, float *out_tangents,
                        mn_skin_store store)
{
    bool skinned = (step.palette || step.dual_quats) && mesh->influence_count > 0;
    size_t n = mesh->vertex_count;
    const float *normals = out_normals ? mesh->normals : NULL;
    const float *tangents = out_tangents ? mesh->tangents : NULL;

    bool morphed = any_weight(mesh, weights);
    if (morphed) {
        /* Morph into the outputs; skinning then reads them in place. */
        morph3(mesh, mesh->positions, mesh->position_deltas, weights, out_positions);
        if (normals)
            morph3(mesh, normals, mesh->normal_deltas, weights, out_normals);
        if (tangents)
            mni_morph3_strided(out_tangents, 4, tangents, 4, n, mesh->tangent_deltas, weights,
                               mesh->target_count, 1);
        if (!skinned) {
            /* A sum of unit vectors and deltas is not unit length: renormalise, as skinning would. */
            if (normals)
                mni_normalize3_strided(out_normals, 3, n);
            if (tangents)
                mni_normalize3_strided(out_tangents, 4, n);
            return MN_OK;
        }
    } else if (!skinned) {
        memcpy(out_positions, mesh->positions, 3 * n * sizeof(float));
        if (normals)
            memcpy(out_normals, normals, 3 * n * sizeof(float));
        if (tangents)
            memcpy(out_tangents, tangents, 4 * n * sizeof(float));
        return MN_OK;
    }

    mn_skin_job job;
    memset(&job, 0, sizeof job);
    job.vertex_count = mesh->vertex_count;
    job.influence_count = mesh->influence_count;
    job.joints = mesh->joints;
    job.weights = mesh->weights;
    job.palette = step.palette;
    job.palette_count = step.count;
    job.positions = morphed ? out_positions : mesh->positions;
    job.normals = normals ? (morphed ? out_normals : normals) : NULL;
    job.tangents = tangents ? (morphed ? out_tangents : tangents) : NULL;
    job.out_positions = out_positions;
    job.out_normals = normals ? out_normals : NULL;
    job.out_tangents = tangents ? out_tangents : NULL;
    job.output_store = store;
    return step.dual_quats ? mn_skin_dq_run(&job, step.dual_quats) : mn_skin_run(&job);
}

mn_status mn_deform_mesh_run(const mn_deform_mesh *mesh, const float *weights,
                             const float *palette, uint32_t palette_count,
                             float *out_positions, float *out_normals, float *out_tangents)
{
    return mni_deform_mesh_run_store(mesh, weights, palette, palette_count, out_positions,
                                     out_normals, out_tangents, MN_SKIN_STORE_DEFAULT);
}

mn_status mni_deform_mesh_run_store(const mn_deform_mesh *mesh, const float *weights,
                                    const float *palette, uint32_t palette_count,
                                    float *out_positions, float *out_normals, float *out_tangents,
                                    mn_skin_store store)
{
    if (!mesh || !out_positions)
        return MN_INVALID_ARGUMENT;
    bool skinned = palette != NULL && mesh->influence_count > 0;
    uint32_t bound = mesh->priv_->joint_bound;
    if (skinned && palette_count < bound)
        return MN_INVALID_ARGUMENT;
    skin_step step = {skinned ? palette : NULL, NULL, palette_count};
    if (!skinned || mesh->priv_->skinning == MN_SKINNING_LINEAR)
        return deform(mesh, weights, step, out_positions, out_normals, out_tangents, store);

    /* Dual quaternions of the joints the mesh reaches, converted here, on the stack. */
    if (bound > MN_SKIN_DQ_STACK_JOINTS)
        return MN_INVALID_ARGUMENT;
    float dqs[MN_SKIN_DQ_STACK_JOINTS * MN_SKIN_DQ_FLOATS];
    mn_status st = mn_skin_dual_quats(palette, bound, dqs, NULL);
    if (st != MN_OK)
        return st;
    step = (skin_step){NULL, dqs, bound};
    return deform(mesh, weights, step, out_positions, out_normals, out_tangents, store);
}

mn_status mn_deform_mesh_run_dq(const mn_deform_mesh *mesh, const float *weights,
                                const float *dual_quats, uint32_t dual_count,
                                float *out_positions, float *out_normals, float *out_tangents)
{
    if (!mesh || !out_positions)
        return MN_INVALID_ARGUMENT;
    bool skinned = dual_quats != NULL && mesh->influence_count > 0;
    if (skinned && dual_count < mesh->priv_->joint_bound)
        return MN_INVALID_ARGUMENT;
    skin_step step = {NULL, skinned ? dual_quats : NULL, dual_count};
    return deform(mesh, weights, step, out_positions, out_normals, out_tangents,
                  MN_SKIN_STORE_DEFAULT);
}
