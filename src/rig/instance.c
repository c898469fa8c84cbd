/*
 * Model instances: the rig that
 * many instances share, and the instance that places, animates and deforms
 * it.  The crowd's thread pool is in crowd.c.
 *
 * The rig does the once-only work: clips, one prepared deform mesh per
 * (mesh, primitive) that the default scene draws (shared when two nodes draw
 * the same mesh), the part list, the unit-fit, and where each skin's palette
 * lives in an instance's palette block.  An instance then only holds what
 * changes per frame: its mixer, placed worlds, palettes and deformed vertex
 * buffers, all allocated at creation.
 */
#include <marionette/instance.h>
#include <marionette/math.h>

#include "anim/anim.h"
#include "core/core.h"
#include "deform/deform.h"
#include "rig/internal.h"

#include <math.h>
#include <string.h>

struct mn_rig {
    mn_arena arena;              /* owns everything below except clips and deform meshes */
    const mn_model *model;
    uint32_t clip_count;
    mn_clip **clips;
    bool borrowed_clips;         /* mn_rig_options.clips: the caller's, never freed here */
    uint32_t deform_count;       /* slots: one per (mesh, primitive) of the model */
    mn_deform_mesh **deforms;    /* NULL where no part uses the primitive */
    uint32_t part_count;
    mn_part *parts;
    mn_unit_fit fit;
    float size[3];
    uint32_t triangles;
    uint32_t *palette_offset;    /* per model skin: float offset in the palette block, MN_NONE when unused */
    uint32_t *used_skins;
    uint32_t used_skin_count;
    size_t palette_floats;       /* the palette block of one instance */
    mn_skinning skinning;        /* how instances skin (mn_rig_options) */
    size_t deformed_bytes;       /* what deforming one instance writes (its vertex buffers) */
};

struct part_buffers {
    float *positions, *normals, *tangents;  /* NULL for static parts (they show the rig's streams) */
};

struct mn_instance {
    mn_arena arena;              /* the instance lives in it; the mixer is separate */
    const mn_rig *rig;
    mn_mixer *mixer;
    float position[3];
    float euler[3];              /* yaw, pitch, roll */
    float size;
    bool visible;
    bool placement_dirty;        /* a setter ran since the worlds were composed */
    bool deform_stale;           /* the pose changed since the vertices were deformed */
    float placement[16];
    float *worlds;               /* placed, 16 floats a node */
    float *palettes;
    float *dual_quats;           /* dual-quaternion rigs: each used skin's, beside its palette */
    bool *dq_ok;                 /* per model skin: its dual quaternions hold this frame */
    mn_posed_part *parts;
    struct part_buffers *buffers;
};

/* ---- the rig ---------------------------------------------------------------- */

/* The default scene's root nodes (mn_model_default_scene: every root when there are no scenes). */
static uint32_t scene_roots(const mn_model *model, uint32_t *roots)
{
    uint32_t scene = mn_model_default_scene(model);
    uint32_t count = 0;
    if (scene != MN_NONE) {
        const mn_scene *s = &model->scenes[scene];
        for (uint32_t i = 0; i < s->node_count && count < model->node_count; i++)
            if (s->nodes[i] < model->node_count)
                roots[count++] = s->nodes[i];
        return count;
    }
    for (uint32_t i = 0; i < model->node_count; i++)
        if (model->nodes[i].parent == MN_NONE)
            roots[count++] = i;
    return count;
}

/*
 * The scene's nodes depth-first (pre-order, children in order) into `visit`;
 * returns how many.  Each node is visited at most once, so even a malformed
 * hand-built graph terminates.
 */
static uint32_t scene_nodes(const mn_model *model, mn_arena *arena, uint32_t *visit)
{
    uint32_t n = model->node_count;
    uint32_t *stack = mni_arena_calloc(arena, n ? n : 1, sizeof *stack, 4);
    uint8_t *seen = mni_arena_calloc(arena, n ? n : 1, 1, 1);
    uint32_t *roots = mni_arena_calloc(arena, n ? n : 1, sizeof *roots, 4);
    if (!stack || !seen || !roots)
        return UINT32_MAX;
    uint32_t root_count = scene_roots(model, roots), visited = 0;
    for (uint32_t r = 0; r < root_count; r++) {
        uint32_t top = 0;
        if (seen[roots[r]])
            continue;
        seen[roots[r]] = 1;
        stack[top++] = roots[r];
        while (top) {
            uint32_t node = stack[--top];
            visit[visited++] = node;
            const mn_node *nd = &model->nodes[node];
            for (uint32_t c = nd->child_count; c-- > 0;) { /* reversed: pops in order */
                uint32_t child = nd->children[c];
                if (child < n && !seen[child]) {
                    seen[child] = 1;
                    stack[top++] = child;
                }
            }
        }
    }
    return visited;
}

static uint32_t primitive_triangles(const mn_model *model, const mn_primitive *prim)
{
    if (prim->mode != MN_MODE_TRIANGLES)
        return 0;
    uint32_t count = prim->vertex_count;
    if (prim->indices != MN_NONE && prim->indices < model->accessor_count)
        count = model->accessors[prim->indices].count;
    return count / 3;
}

static void compute_fit(mn_rig *rig)
{
    const mn_model *model = rig->model;
    float largest = 0.0f;
    rig->fit.scale = 1.0f;
    for (int a = 0; a < 3; a++) {
        float lo = model->bounds_min[a], hi = model->bounds_max[a];
        bool empty = !(lo <= hi);
        rig->size[a] = empty ? 0.0f : hi - lo;
        rig->fit.center[a] = empty ? 0.0f : lo + (hi - lo) * 0.5f;
        if (rig->size[a] > largest)
            largest = rig->size[a];
    }
    if (largest > 0.0f && isfinite(largest))
        rig->fit.scale = 1.0f / largest;
}

/* Every JOINTS index of a skinned part must name a joint of its skin. */
static mn_status check_joints(const mn_part *part, const mn_skin *skin, mn_error *err)
{
    const mn_deform_mesh *d = part->deform;
    size_t n = (size_t)d->vertex_count * d->influence_count;
    for (size_t k = 0; k < n; k++)
        if (d->joints[k] >= skin->joint_count)
            return mni_fail(err, MN_INDEX_RANGE,
                            "meshes[%u].primitives[%u]: vertex %zu names joint %u, but "
                            "skins[%u] (drawn by nodes[%u]) has %u joints",
                            part->mesh, part->primitive, k / d->influence_count,
                            (unsigned)d->joints[k], part->skin, part->node, skin->joint_count);
    return MN_OK;
}

/* The deform mesh of (mesh, primitive), created on first use. */
static mn_status deform_for(mn_rig *rig, const mn_allocator *allocator, const uint32_t *first,
                            uint32_t mesh, uint32_t primitive, mn_deform_mesh **out,
                            mn_error *err)
{
    mn_deform_mesh **slot = &rig->deforms[first[mesh] + primitive];
    if (!*slot) {
        mn_status st = mn_deform_mesh_create(rig->model, mesh, primitive, allocator, slot, err);
        if (st != MN_OK)
            return st;
    }
    *out = *slot;
    return MN_OK;
}

/* Parts in scene order, into rig->parts (sized by the caller for every primitive). */
static mn_status gather_parts(mn_rig *rig, const mn_allocator *allocator, const uint32_t *first,
                              const uint32_t *visit, uint32_t visited, mn_error *err)
{
    const mn_model *model = rig->model;
    for (uint32_t v = 0; v < visited; v++) {
        const mn_node *node = &model->nodes[visit[v]];
        if (node->mesh == MN_NONE || node->mesh >= model->mesh_count)
            continue;
        const mn_mesh *mesh = &model->meshes[node->mesh];
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const mn_primitive *prim = &mesh->primitives[p];
            if (mn_primitive_find(prim, MN_SEMANTIC_POSITION, 0) == MN_NONE)
                continue;
            mn_part *part = &rig->parts[rig->part_count];
            mn_deform_mesh *deform = NULL;
            mn_status st = deform_for(rig, allocator, first, node->mesh, p, &deform, err);
            if (st != MN_OK)
                return st;
            *part = (mn_part){
                .node = visit[v],
                .mesh = node->mesh,
                .primitive = p,
                .material = prim->material,
                .skin = MN_NONE,
                .morphed = deform->target_count > 0,
                .vertex_count = deform->vertex_count,
                .triangle_count = primitive_triangles(model, prim),
                .deform = deform,
            };
            if (node->skin != MN_NONE && node->skin < model->skin_count &&
                deform->influence_count > 0) {
                part->skin = node->skin;
                if ((st = check_joints(part, &model->skins[node->skin], err)) != MN_OK)
                    return st;
            }
            rig->triangles += part->triangle_count;
            rig->part_count++;
        }
    }
    return MN_OK;
}

/* Where each used skin's palette goes in an instance's palette block. */
static mn_status lay_out_palettes(mn_rig *rig, mn_arena *arena, mn_error *err)
{
    const mn_model *model = rig->model;
    size_t skins = model->skin_count ? model->skin_count : 1;
    rig->palette_offset = mni_arena_calloc(arena, skins, sizeof(uint32_t), 4);
    rig->used_skins = mni_arena_calloc(arena, skins, sizeof(uint32_t), 4);
    if (!rig->palette_offset || !rig->used_skins)
        return mni_oom(err, "rig");
    for (uint32_t s = 0; s < model->skin_count; s++)
        rig->palette_offset[s] = MN_NONE;
    size_t floats = 0;
    for (uint32_t p = 0; p < rig->part_count; p++) {
        uint32_t s = rig->parts[p].skin;
        if (s == MN_NONE || rig->palette_offset[s] != MN_NONE)
            continue;
        if (floats > UINT32_MAX - 16 * (size_t)model->skins[s].joint_count)
            return mni_fail(err, MN_OVERFLOW, "rig: palettes overflow");
        rig->palette_offset[s] = (uint32_t)floats;
        rig->used_skins[rig->used_skin_count++] = s;
        floats += 16 * (size_t)model->skins[s].joint_count;
    }
    rig->palette_floats = floats;
    return MN_OK;
}

static void free_rig_objects(mn_rig *rig)
{
    for (uint32_t c = 0; c < rig->clip_count && !rig->borrowed_clips; c++)
        mn_clip_free(rig->clips[c]);
    rig->clip_count = 0;
    for (uint32_t d = 0; d < rig->deform_count; d++)
        mn_deform_mesh_free(rig->deforms[d]);
    rig->deform_count = 0;
}

static mn_status build_rig(mn_rig *rig, mn_arena *arena, const mn_allocator *allocator,
                           const mn_rig_options *options, mn_error *err)
{
    const mn_model *model = rig->model;
    size_t n = model->node_count ? model->node_count : 1;

    bool borrow = options && options->clips;
    uint32_t clips = borrow ? options->clip_count : model->animation_count;
    rig->clips = mni_arena_calloc(arena, clips ? clips : 1, sizeof *rig->clips, sizeof(void *));
    if (!rig->clips)
        return mni_oom(err, "rig");
    rig->borrowed_clips = borrow;
    for (uint32_t c = 0; borrow && c < clips; c++)
        rig->clips[c] = (mn_clip *)options->clips[c]; /* never freed nor changed: borrowed */
    rig->clip_count = borrow ? clips : 0;
    mn_clip_options clip_options = {.allocator = *allocator};
    for (uint32_t a = 0; !borrow && a < model->animation_count; a++) {
        mn_status st = mn_clip_from_gltf(model, a, &clip_options, &rig->clips[a], err);
        if (st != MN_OK)
            return st;
        rig->clip_count++;
    }

    /* One deform slot per (mesh, primitive); first[mesh] is its mesh's first slot. */
    uint32_t *first = mni_arena_calloc(arena, model->mesh_count ? model->mesh_count : 1,
                                       sizeof *first, 4);
    if (!first)
        return mni_oom(err, "rig");
    size_t slots = 0;
    for (uint32_t m = 0; m < model->mesh_count; m++) {
        first[m] = (uint32_t)slots;
        slots += model->meshes[m].primitive_count;
        if (slots > UINT32_MAX / 2)
            return mni_fail(err, MN_OVERFLOW, "rig: too many primitives");
    }
    rig->deforms = mni_arena_calloc(arena, slots ? slots : 1, sizeof *rig->deforms, sizeof(void *));
    rig->deform_count = (uint32_t)slots;
    uint32_t *visit = mni_arena_calloc(arena, n, sizeof *visit, 4);
    if (!rig->deforms || !visit)
        return mni_oom(err, "rig");
    uint32_t visited = scene_nodes(model, arena, visit);
    if (visited == UINT32_MAX)
        return mni_oom(err, "rig");

    /* Parts: at most every primitive of every visited node's mesh. */
    size_t max_parts = 0;
    for (uint32_t v = 0; v < visited; v++) {
        uint32_t mesh = model->nodes[visit[v]].mesh;
        if (mesh != MN_NONE && mesh < model->mesh_count)
            max_parts += model->meshes[mesh].primitive_count;
    }
    if (max_parts > UINT32_MAX / 2)
        return mni_fail(err, MN_OVERFLOW, "rig: too many parts");
    rig->parts = mni_arena_calloc(arena, max_parts ? max_parts : 1, sizeof *rig->parts, 8);
    if (!rig->parts)
        return mni_oom(err, "rig");
    mn_status st = gather_parts(rig, allocator, first, visit, visited, err);
    if (st != MN_OK)
        return st;
    compute_fit(rig);
    for (uint32_t p = 0; p < rig->part_count; p++) {
        const mn_part *part = &rig->parts[p];
        const mn_deform_mesh *d = part->deform;
        if (part->skin != MN_NONE || part->morphed)
            rig->deformed_bytes += (size_t)d->vertex_count *
                                   (12u + (d->normals ? 12u : 0u) + (d->tangents ? 16u : 0u));
    }
    return lay_out_palettes(rig, arena, err);
}

mn_status mn_rig_create(const mn_model *model, const mn_rig_options *options, mn_rig **out,
                        mn_error *err)
{
    mni_error_clear(err);
    if (out)
        *out = NULL;
    if (!model || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_rig_create: model and out must not be NULL");
    mn_allocator allocator = options ? options->allocator : (mn_allocator){0};
    mn_arena arena;
    mni_arena_init(&arena, &allocator);
    mn_rig *rig = mni_arena_calloc(&arena, 1, sizeof *rig, 16);
    if (!rig) {
        mni_arena_release(&arena);
        return mni_oom(err, "rig");
    }
    rig->model = model;
    rig->skinning = options ? options->skinning : MN_SKINNING_LINEAR;
    if ((unsigned)rig->skinning > (unsigned)MN_SKINNING_DUAL_QUAT) {
        int skinning = (int)rig->skinning; /* the rig lives in the arena */
        mni_arena_release(&arena);
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_rig_create: skinning %d is not an mn_skinning",
                        skinning);
    }
    mn_status st = build_rig(rig, &arena, &allocator, options, err);
    if (st != MN_OK) {
        free_rig_objects(rig);
        mni_arena_release(&arena);
        return st;
    }
    rig->arena = arena;
    *out = rig;
    return MN_OK;
}

void mn_rig_free(mn_rig *rig)
{
    if (!rig)
        return;
    free_rig_objects(rig);
    mn_arena arena = rig->arena; /* copy first: the rig lives inside it */
    mni_arena_release(&arena);
}

const mn_model *mn_rig_model(const mn_rig *rig)
{
    return rig ? rig->model : NULL;
}

uint32_t mn_rig_clip_count(const mn_rig *rig)
{
    return rig ? rig->clip_count : 0;
}

const mn_clip *mn_rig_clip(const mn_rig *rig, uint32_t index)
{
    return rig && index < rig->clip_count ? rig->clips[index] : NULL;
}

mn_unit_fit mn_rig_fit(const mn_rig *rig)
{
    return rig ? rig->fit : (mn_unit_fit){.scale = 1.0f};
}

void mn_rig_size(const mn_rig *rig, float out[3])
{
    if (!out)
        return;
    for (int a = 0; a < 3; a++)
        out[a] = rig ? rig->size[a] : 0.0f;
}

uint32_t mn_rig_triangle_count(const mn_rig *rig)
{
    return rig ? rig->triangles : 0;
}

uint32_t mn_rig_part_count(const mn_rig *rig)
{
    return rig ? rig->part_count : 0;
}

const mn_part *mn_rig_part(const mn_rig *rig, uint32_t index)
{
    return rig && index < rig->part_count ? &rig->parts[index] : NULL;
}

/* ---- instances ---------------------------------------------------------------- */

static void compute_placement(const mn_instance *in, float out[16])
{
    mn_unit_fit fit = in->rig->fit;
    float q[4], shift[3];
    mn_quat_from_engine_euler(q, in->euler);
    float k = in->size * fit.scale;
    const float s[3] = {k, k, k};
    mn_mat4_compose(out, in->position, q, s);
    /* × T(−center): move the bounds' centre to the origin before scaling. */
    mn_mat4_transform_dir(shift, out, fit.center);
    out[12] -= shift[0];
    out[13] -= shift[1];
    out[14] -= shift[2];
}

/*
 * The placed worlds in one pass over the pose: the placement is the roots'
 * parent, so it is multiplied in once per root rather than once per node,
 * and the mixer's model-space worlds are not needed (a hidden instance never
 * builds them).
 */
static void compose_placed_worlds(mn_instance *in)
{
    mni_mixer_worlds_under(in->mixer, in->placement, in->worlds);
}

/* Where skin s's dual quaternions start in the instance's block (its palette's place, 12 floats a joint). */
static float *skin_dual_quats(const mn_instance *in, uint32_t s)
{
    return in->dual_quats + in->rig->palette_offset[s] / 16 * MN_SKIN_DQ_FLOATS;
}

/*
 * palette[i] = world[skin.joints[i]] × inverseBind[i] for every skin a part
 * uses, and for a dual-quaternion rig each palette's dual quaternions.
 * Returns the first skin whose palette they cannot hold (err says which
 * joint and why); that skin is then skinned linearly.
 */
static mn_status compute_palettes(mn_instance *in, mn_error *err)
{
    const mn_rig *rig = in->rig;
    const float *worlds = mn_mixer_worlds(in->mixer); /* model space, built here when stale */
    mn_status result = MN_OK;
    for (uint32_t u = 0; u < rig->used_skin_count; u++) {
        uint32_t s = rig->used_skins[u];
        const mn_skin *skin = &rig->model->skins[s];
        float *palette = in->palettes + rig->palette_offset[s];
        mni_palette_job job = {worlds, skin->joints, skin->inverse_bind, skin->joint_count};
        mni_palette_kernel(MN_SIMD_BEST, &job, palette);
        if (rig->skinning != MN_SKINNING_DUAL_QUAT)
            continue;
        mn_status st = mn_skin_dual_quats(palette, skin->joint_count, skin_dual_quats(in, s),
                                          result == MN_OK ? err : NULL);
        in->dq_ok[s] = st == MN_OK;
        if (st != MN_OK && result == MN_OK) {
            char why[sizeof err->message] = "";
            if (err)
                memcpy(why, err->message, sizeof why);
            mni_fail(err, st, "skins[%u]: %s", s, why);
            result = st;
        }
    }
    return result;
}

/*
 * Morph, then skin, every deformed part.  Returns the first failure (none
 * after creation but a dual-quaternion skin whose pose it cannot hold, which
 * then skins linearly).
 */
static mn_status deform_parts(mn_instance *in, mn_skin_store store, mn_error *err)
{
    const mn_rig *rig = in->rig;
    mn_status result = compute_palettes(in, err);
    for (uint32_t p = 0; p < rig->part_count; p++) {
        const mn_part *part = &rig->parts[p];
        struct part_buffers *b = &in->buffers[p];
        if (!b->positions)
            continue; /* static: shows the rig's rest streams */
        const float *weights = part->morphed ? mn_mixer_weights(in->mixer, part->node, NULL) : NULL;
        const float *palette = NULL;
        uint32_t palette_count = 0;
        if (part->skin != MN_NONE) {
            palette = in->palettes + rig->palette_offset[part->skin];
            palette_count = rig->model->skins[part->skin].joint_count;
        }
        mn_status st;
        if (palette && rig->skinning == MN_SKINNING_DUAL_QUAT && in->dq_ok[part->skin])
            st = mn_deform_mesh_run_dq(part->deform, weights, skin_dual_quats(in, part->skin),
                                       palette_count, b->positions, b->normals, b->tangents);
        else
            st = mni_deform_mesh_run_store(part->deform, weights, palette, palette_count,
                                           b->positions, b->normals, b->tangents, store);
        if (st != MN_OK && result == MN_OK)
            result = st;
    }
    return result;
}

/* Output buffers and part records. */
static mn_status lay_out_instance(mn_instance *in, mn_arena *arena, mn_error *err)
{
    const mn_rig *rig = in->rig;
    size_t nodes = rig->model->node_count ? rig->model->node_count : 1;
    size_t parts = rig->part_count ? rig->part_count : 1;
    /* Cache-line aligned: no line an instance writes holds another's data (threads, crowd.c). */
    in->worlds = mni_arena_calloc(arena, nodes * 16, sizeof(float), 64);
    in->palettes = mni_arena_calloc(arena, rig->palette_floats ? rig->palette_floats : 16,
                                    sizeof(float), 64);
    if (rig->skinning == MN_SKINNING_DUAL_QUAT) {
        size_t joints = rig->palette_floats ? rig->palette_floats / 16 : 1;
        size_t skins = rig->model->skin_count ? rig->model->skin_count : 1;
        in->dual_quats = mni_arena_calloc(arena, joints * MN_SKIN_DQ_FLOATS, sizeof(float), 64);
        in->dq_ok = mni_arena_calloc(arena, skins, sizeof *in->dq_ok, 64);
        if (!in->dual_quats || !in->dq_ok)
            return mni_oom(err, "instance: dual quaternions");
    }
    in->parts = mni_arena_calloc(arena, parts, sizeof *in->parts, 8);
    in->buffers = mni_arena_calloc(arena, parts, sizeof *in->buffers, 8);
    if (!in->worlds || !in->palettes || !in->parts || !in->buffers)
        return mni_oom(err, "instance");
    for (uint32_t p = 0; p < rig->part_count; p++) {
        const mn_part *part = &rig->parts[p];
        const mn_deform_mesh *d = part->deform;
        mn_posed_part *out = &in->parts[p];
        struct part_buffers *b = &in->buffers[p];
        size_t v = d->vertex_count ? d->vertex_count : 1;
        out->vertex_count = d->vertex_count;
        out->matrix = part->skin != MN_NONE ? in->placement : in->worlds + 16 * (size_t)part->node;
        if (part->skin == MN_NONE && !part->morphed) {
            out->positions = d->positions;
            out->normals = d->normals;
            out->tangents = d->tangents;
            continue;
        }
        b->positions = mni_arena_calloc(arena, v * 3, sizeof(float), 64);
        b->normals = d->normals ? mni_arena_calloc(arena, v * 3, sizeof(float), 64) : NULL;
        b->tangents = d->tangents ? mni_arena_calloc(arena, v * 4, sizeof(float), 64) : NULL;
        if (!b->positions || (d->normals && !b->normals) || (d->tangents && !b->tangents))
            return mni_oom(err, "instance");
        out->positions = b->positions;
        out->normals = b->normals;
        out->tangents = b->tangents;
    }
    return MN_OK;
}

mn_status mn_instance_create(const mn_rig *rig, const mn_instance_desc *desc, mn_instance **out,
                             mn_error *err)
{
    mni_error_clear(err);
    if (out)
        *out = NULL;
    if (!rig || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_instance_create: rig and out must not be NULL");
    mn_instance_desc d = desc ? *desc : (mn_instance_desc){0};
    bool finite = isfinite(d.yaw) && isfinite(d.pitch) && isfinite(d.roll) && isfinite(d.size);
    for (int a = 0; a < 3; a++)
        finite = finite && isfinite(d.position[a]);
    if (!finite || d.size < 0.0f)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_instance_create: position, angles and size must be finite, size >= 0");

    mn_arena arena;
    mni_arena_init(&arena, &d.allocator);
    mn_instance *in = mni_arena_calloc(&arena, 1, sizeof *in, 64);
    if (!in) {
        mni_arena_release(&arena);
        return mni_oom(err, "instance");
    }
    in->rig = rig;
    memcpy(in->position, d.position, sizeof in->position);
    in->euler[0] = d.yaw;
    in->euler[1] = d.pitch;
    in->euler[2] = d.roll;
    in->size = d.size == 0.0f ? 1.0f : d.size;
    in->visible = !d.hidden;

    mn_mixer_options mixer_options = {
        .allocator = d.allocator,
        .clips = (const mn_clip *const *)rig->clips,
        .clip_count = rig->clip_count,
    };
    mn_status st = mn_mixer_create(rig->model, &mixer_options, &in->mixer, err);
    if (st == MN_OK)
        st = mni_mixer_defer_matrices(in->mixer, err);
    if (st == MN_OK)
        st = lay_out_instance(in, &arena, err);
    if (st == MN_OK) {
        compute_placement(in, in->placement);
        compose_placed_worlds(in);
        /* The first deformation doubles as the check that every later one succeeds. */
        mn_error why;
        mni_error_clear(&why);
        st = deform_parts(in, MN_SKIN_STORE_DEFAULT, &why);
        if (st != MN_OK)
            mni_fail(err, st, "instance: deforming the rest pose failed%s%s",
                     why.code != MN_OK ? ": " : "", why.code != MN_OK ? why.message : "");
    }
    if (st != MN_OK) {
        mn_mixer_free(in->mixer);
        mni_arena_release(&arena);
        return st;
    }
    in->arena = arena;
    *out = in;
    return MN_OK;
}

void mn_instance_free(mn_instance *instance)
{
    if (!instance)
        return;
    mn_mixer_free(instance->mixer);
    mn_arena arena = instance->arena; /* copy first: the instance lives inside it */
    mni_arena_release(&arena);
}

const mn_rig *mn_instance_rig(const mn_instance *instance)
{
    return instance ? instance->rig : NULL;
}

mn_mixer *mn_instance_mixer(mn_instance *instance)
{
    return instance ? instance->mixer : NULL;
}

void mn_instance_set_position(mn_instance *instance, float x, float y, float z)
{
    if (!instance || !isfinite(x) || !isfinite(y) || !isfinite(z))
        return;
    instance->position[0] = x;
    instance->position[1] = y;
    instance->position[2] = z;
    instance->placement_dirty = true;
}

void mn_instance_set_rotation(mn_instance *instance, float yaw, float pitch, float roll)
{
    if (!instance || !isfinite(yaw) || !isfinite(pitch) || !isfinite(roll))
        return;
    instance->euler[0] = yaw;
    instance->euler[1] = pitch;
    instance->euler[2] = roll;
    instance->placement_dirty = true;
}

void mn_instance_set_size(mn_instance *instance, float size)
{
    if (!instance || !isfinite(size))
        return;
    instance->size = size;
    instance->placement_dirty = true;
}

void mn_instance_set_visible(mn_instance *instance, bool visible)
{
    if (instance)
        instance->visible = visible;
}

void mn_instance_position(const mn_instance *instance, float out[3])
{
    if (out)
        for (int a = 0; a < 3; a++)
            out[a] = instance ? instance->position[a] : 0.0f;
}

void mn_instance_rotation(const mn_instance *instance, float out[3])
{
    if (out)
        for (int a = 0; a < 3; a++)
            out[a] = instance ? instance->euler[a] : 0.0f;
}

float mn_instance_size(const mn_instance *instance)
{
    return instance ? instance->size : 0.0f;
}

bool mn_instance_visible(const mn_instance *instance)
{
    return instance && instance->visible;
}

void mn_instance_placement(const mn_instance *instance, float out[16])
{
    if (!out)
        return;
    if (!instance) {
        mn_mat4_identity(out);
        return;
    }
    compute_placement(instance, out);
}

static void update(mn_instance *instance, float dt, mn_skin_store store)
{
    bool posed = mn_mixer_update(instance->mixer, dt);
    if (instance->placement_dirty)
        compute_placement(instance, instance->placement);
    if (posed || instance->placement_dirty)
        compose_placed_worlds(instance);
    instance->placement_dirty = false;
    if (posed)
        instance->deform_stale = true;
    if (instance->deform_stale && instance->visible) {
        /* cannot fail but for a dual-quaternion skin this pose gives a non-uniform scale, which then skins linearly */
        (void)deform_parts(instance, store, NULL);
        instance->deform_stale = false;
    }
}

void mn_instance_update(mn_instance *instance, float dt)
{
    if (instance)
        update(instance, dt, MN_SKIN_STORE_DEFAULT);
}

void mni_instance_update_in_batch(mn_instance *instance, float dt, size_t batch)
{
    size_t bytes = instance->rig->deformed_bytes;
    bool stream = bytes && batch >= (MN_SKIN_STREAM_MIN_BYTES + bytes - 1) / bytes;
    update(instance, dt, stream ? MN_SKIN_STORE_STREAM : MN_SKIN_STORE_DEFAULT);
}

bool mni_instance_batch_leaves_cache(const mn_instance *instance, size_t batch)
{
    const mn_rig *rig = instance->rig;
    size_t bytes = (size_t)rig->model->node_count * (10u + 16u) * sizeof(float);
    if (instance->visible)
        bytes += rig->deformed_bytes + rig->palette_floats * sizeof(float);
    return bytes && batch >= (MNI_CROWD_PREFETCH_MIN_BYTES + bytes - 1) / bytes;
}

void mni_instance_prefetch(const mn_instance *instance)
{
    const mn_rig *rig = instance->rig;
    mni_prefetch(instance, sizeof *instance, true);
    mni_prefetch(instance->worlds, (size_t)rig->model->node_count * 16u * sizeof(float), true);
    if (instance->visible)
        mni_prefetch(instance->palettes, rig->palette_floats * sizeof(float), true);
    mni_mixer_prefetch(instance->mixer);
}

const float *mn_instance_worlds(const mn_instance *instance)
{
    return instance ? instance->worlds : NULL;
}

const mn_posed_part *mn_instance_part(const mn_instance *instance, uint32_t index)
{
    return instance && index < instance->rig->part_count ? &instance->parts[index] : NULL;
}
