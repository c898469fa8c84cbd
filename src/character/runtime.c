/*
 * A character that plays (runtime.h): the parts' own calls in one frame.
 * Nothing here re-derives a part's maths: the mixer plays over a model made
 * of the skeleton's joints (so its semantics are the glTF mixer's), SOMA poses,
 * the corrective state measures, the head poses, the splat kernel deforms and the
 * mouth's functions fade.  What is the runtime's own is the glue: the body's
 * worlds handed to the head's joints, the gaze angles toward a target, the
 * head's normals and the mouth rows' opacity and push.
 */
#include <marionette/character/runtime.h>

#include <marionette/character/mouth.h>
#include <marionette/math.h>
#include <marionette/model.h>
#include <marionette/model_build.h>

#include "character/splat_internal.h"
#include "core/core.h"
#include "core/simd.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

typedef enum body_source { BODY_MIXER, BODY_MACHINE, BODY_TREE, BODY_POSE } body_source;

struct mn_character_runtime {
    mn_allocator allocator;
    mn_arena arena;                    /* every buffer below but the objects */
    const mn_character *character;
    uint32_t runs, skipped;            /* mn_character_part_bits */
    char why[6][64];                   /* per part bit: why it does not run ("" when it does) */
    mn_simd_level level;
    float yaw_limit, pitch_limit;

    /* the body */
    mn_model *model;                   /* the skeleton's joints as nodes, for the mixer */
    mn_mixer *mixer;
    body_source source;
    mn_state_machine *machine;
    mn_blend_tree *tree;
    float tree_time;
    mn_pose rest, pose;
    float *worlds, *skin;              /* J × 16 column-major */

    mn_corrective_state corrective;

    /* the head */
    mn_head *head;
    uint32_t head_joints;
    uint32_t *head_body;               /* per head joint: the body joint of its name, or UINT32_MAX */
    uint32_t *head_order;              /* the head joints, parents first */
    float *head_rest_local;            /* per head joint: row-major rest local, metres */
    float *head_worlds;                /* per head joint: row-major world, metres */
    float unit;                        /* metres per pack unit */
    float eye_model_inverse[2][16];    /* (restWorld⁻¹·bindTransform) of each eye joint, metres */
    float *controls;                   /* dim */
    float *head_verts, *head_normals;  /* V × 3 */

    /* the splats, and the pool that deforms them beside the head */
    mn_pool *pool;
    mn_status head_status;
    mn_splat_skin_job job;
    float *centres, *rotations, *opacities;
    float *mouth_base;                 /* per mouth entry: its splat's opacity */
    float *lip_rest;                   /* per mouth entry: u0 − l0 */

    mn_character_views views;
};

/* ---- small maths -------------------------------------------------------------- */

/* out = a·b, row-major affine (last rows 0 0 0 1). */
static void row_mul(float *restrict out, const float *restrict a, const float *restrict b)
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            out[4 * r + c] = a[4 * r] * b[c] + a[4 * r + 1] * b[4 + c] + a[4 * r + 2] * b[8 + c] +
                             (c == 3 ? a[4 * r + 3] : 0.0f);
    out[12] = out[13] = out[14] = 0.0f;
    out[15] = 1.0f;
}

/* The affine inverse of a row-major matrix (double inside, core/core.h); false when singular. */
static bool row_invert(float out[16], const float m[16])
{
    double inverse[16];
    if (!mni_affine_invert_rows(inverse, m))
        return false;
    for (int k = 0; k < 16; k++)
        out[k] = (float)inverse[k];
    return true;
}

/* A row-major matrix with its translation scaled (pack units to metres). */
static void scaled_translation(float out[16], const float m[16], float unit)
{
    memcpy(out, m, 16 * sizeof(float));
    out[3] *= unit;
    out[7] *= unit;
    out[11] *= unit;
}

static float sigmoid(float x)
{
    return (float)(1.0 / (1.0 + exp(-(double)x)));
}

/* ---- creation ------------------------------------------------------------------- */

static void skip_part(mn_character_runtime *rt, uint32_t bit, const char *why)
{
    rt->runs &= ~bit;
    rt->skipped |= bit;
    int k = 0;
    while ((1u << k) != bit)
        k++;
    snprintf(rt->why[k], sizeof rt->why[k], "%s", why);
}

/* What runs: a part the package has and options.skip does not name, whose needs run. */
static void choose_parts(mn_character_runtime *rt, uint32_t skip)
{
    const mn_character *c = rt->character;
    const struct {
        uint32_t bit;
        bool present;
        uint32_t needs;          /* parts that must run for it to (listed before it) */
    } parts[] = {
        {MN_CHARACTER_RUN_HEAD, c->head != NULL, 0},
        {MN_CHARACTER_RUN_FACE, c->face_map != NULL, MN_CHARACTER_RUN_HEAD},
        {MN_CHARACTER_RUN_CORRECTIVE, c->corrective != NULL, 0},
        {MN_CHARACTER_RUN_SPLATS, true, 0},
        {MN_CHARACTER_RUN_MOUTH, c->mouth != NULL, MN_CHARACTER_RUN_HEAD | MN_CHARACTER_RUN_SPLATS},
    };
    rt->runs = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        uint32_t bit = parts[i].bit, missing = parts[i].needs & ~rt->runs;
        rt->runs |= bit;
        if (!parts[i].present)
            skip_part(rt, bit, "the package has none");
        else if (skip & bit)
            skip_part(rt, bit, "skipped");
        else if (missing & MN_CHARACTER_RUN_HEAD)
            skip_part(rt, bit, "needs the head");
        else if (missing)
            skip_part(rt, bit, "needs the splats");
    }
}

/* The skeleton as a model of nodes at the rest pose, so the mixer can play over it. */
static mn_status build_mixer(mn_character_runtime *rt, mn_error *err)
{
    const mn_character *c = rt->character;
    const mn_soma_skeleton *sk = c->skeleton;
    mn_model_builder *b = mn_model_build_begin(&rt->allocator);
    if (!b)
        return mni_oom(err, "character runtime: the skeleton's model");
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        uint32_t parent = sk->parents[j] < 0 ? MN_NONE : (uint32_t)sk->parents[j];
        uint32_t n = mn_model_build_node(b, sk->names[j], parent);
        static const float one[3] = {1, 1, 1};
        mn_model_build_node_trs(b, n, sk->local_positions + 3 * j, sk->local_rotations + 4 * j,
                                one);
    }
    mn_status st = mn_model_build_finish(b, &rt->model, err);
    if (st != MN_OK)
        return st;
    /* The builder normalises rotations again; the rest must be the skeleton's to the bit. */
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        memcpy(rt->model->nodes[j].translation, sk->local_positions + 3 * j, 3 * sizeof(float));
        memcpy(rt->model->nodes[j].rotation, sk->local_rotations + 4 * j, 4 * sizeof(float));
    }
    uint32_t own = c->clips ? c->clips->clip_count : 0;
    uint32_t shared = c->shared_clips ? c->shared_clips->clip_count : 0;
    const mn_clip **clips = mni_arena_calloc(&rt->arena, (size_t)own + shared + 1, sizeof *clips,
                                             8);
    if (!clips)
        return mni_oom(err, "character runtime: clips");
    uint32_t n = 0;
    for (uint32_t i = 0; i < own; i++)
        clips[n++] = c->clips->clips[i].clip;
    for (uint32_t i = 0; i < shared; i++)
        if (!mn_soma_clips_shadowed(c->clips, c->shared_clips, i))
            clips[n++] = c->shared_clips->clips[i].clip;
    mn_mixer_options mo = {.allocator = rt->allocator, .clips = clips, .clip_count = n};
    return mn_mixer_create(rt->model, &mo, &rt->mixer, err);
}

static void order_head_joints(mn_character_runtime *rt, uint8_t *placed);

/* Which body joint drives each head joint, the rest locals of the others, the eyes' frames. */
static mn_status map_head(mn_character_runtime *rt, mn_error *err)
{
    const mn_aosrig *pack = rt->character->head;
    const mn_soma_skeleton *sk = rt->character->skeleton;
    uint32_t J = pack->header.joint_count;
    rt->head_joints = J;
    rt->unit = pack->header.units == MN_AOSRIG_CENTIMETRES ? 0.01f : 1.0f;
    rt->head_body = mni_arena_calloc(&rt->arena, J, sizeof *rt->head_body, 8);
    rt->head_rest_local = mni_arena_calloc(&rt->arena, (size_t)J * 16, sizeof(float), 16);
    rt->head_worlds = mni_arena_calloc(&rt->arena, (size_t)J * 16, sizeof(float), 16);
    rt->head_order = mni_arena_calloc(&rt->arena, J, sizeof *rt->head_order, 8);
    uint8_t *placed = mni_arena_calloc(&rt->arena, J, 1, 8);
    if (!rt->head_body || !rt->head_rest_local || !rt->head_worlds || !rt->head_order || !placed)
        return mni_oom(err, "character runtime: head joints");
    order_head_joints(rt, placed);
    for (uint32_t j = 0; j < J; j++) {
        rt->head_body[j] = mn_soma_skeleton_find(sk, pack->header.joint_names[j]);
        float rest[16], inv[16];
        scaled_translation(rest, pack->rest_world + 16 * j, rt->unit);
        int32_t p = pack->joint_parents[j];
        if (p < 0) {
            memcpy(rt->head_rest_local + 16 * j, rest, sizeof rest);
            continue;
        }
        float parent[16];
        scaled_translation(parent, pack->rest_world + 16 * (size_t)p, rt->unit);
        if (!row_invert(inv, parent))
            return mni_fail(err, MN_INVALID_VALUE, "head joint %s: singular rest world",
                            pack->header.joint_names[p]);
        row_mul(rt->head_rest_local + 16 * j, inv, rest);
    }
    float bind[16];
    scaled_translation(bind, pack->bind_transform, rt->unit);
    for (int k = 0; k < 2; k++) {
        float rest[16], inv[16];
        scaled_translation(rest, pack->rest_world + 16 * (size_t)pack->eye_joint[k], rt->unit);
        if (!row_invert(inv, rest))
            return mni_fail(err, MN_INVALID_VALUE, "head: singular eye joint rest world");
        row_mul(rt->eye_model_inverse[k], inv, bind);
    }
    return MN_OK;
}

/* The frame's override for head joint `name`, or NULL. */
static const float *head_override(const mn_character_frame *f, const char *name)
{
    const float *q = NULL;
    for (uint32_t i = 0; f && i < f->override_count; i++)
        if (strcmp(f->overrides[i].joint, name) == 0)
            q = f->overrides[i].rotation; /* the last of a repeated name wins */
    return q;
}

/*
 * The head's joint worlds from the body's, parents first: a joint the body
 * has takes its world; one it lacks follows its head parent by its rest local
 * (a root keeps its rest world), turned by the frame's override of its name.
 */
static mn_status drive_head_joints(mn_character_runtime *rt, const mn_character_frame *f,
                                   mn_error *err)
{
    const mn_aosrig *pack = rt->character->head;
    for (uint32_t k = 0; k < rt->head_joints; k++) {
        uint32_t j = rt->head_order[k];
        float *w = rt->head_worlds + 16 * j;
        uint32_t b = rt->head_body[j];
        if (b != UINT32_MAX) {
            const float *m = rt->worlds + 16 * (size_t)b; /* column-major: M[r][c] at 4c + r */
            for (int r = 0; r < 4; r++)
                for (int c = 0; c < 4; c++)
                    w[4 * r + c] = m[4 * c + r];
            continue;
        }
        float local[16];
        const float *q = head_override(f, pack->header.joint_names[j]);
        if (q) {
            float unit[4], col[16], turn[16];
            mn_quat_normalize(unit, q);
            mn_quat_to_mat4(col, unit);
            for (int r = 0; r < 4; r++)
                for (int c = 0; c < 4; c++)
                    turn[4 * r + c] = col[4 * c + r];
            row_mul(local, rt->head_rest_local + 16 * j, turn);
        } else {
            memcpy(local, rt->head_rest_local + 16 * j, sizeof local);
        }
        if (pack->joint_parents[j] < 0)
            memcpy(w, local, sizeof local);
        else
            row_mul(w, rt->head_worlds + 16 * (size_t)pack->joint_parents[j], local);
    }
    return mn_head_set_joint_worlds(rt->head, rt->head_worlds, (size_t)rt->head_joints * 16, err);
}

/* The head's joints parents first (the pack's parents are a forest in any order). */
static void order_head_joints(mn_character_runtime *rt, uint8_t *placed)
{
    const int32_t *parents = rt->character->head->joint_parents;
    uint32_t J = rt->head_joints, n = 0;
    memset(placed, 0, J);
    while (n < J) /* the reader refused cycles, so every pass places at least one */
        for (uint32_t j = 0; j < J; j++)
            if (!placed[j] && (parents[j] < 0 || placed[parents[j]])) {
                placed[j] = 1;
                rt->head_order[n++] = j;
            }
}

/* Each listed splat's opacity and its lips' rest gap vector, posed once at rest. */
static mn_status prepare_mouth(mn_character_runtime *rt, mn_error *err)
{
    const mn_mouth_hidden *m = rt->character->mouth;
    rt->mouth_base = mni_arena_calloc(&rt->arena, m->count ? m->count : 1, sizeof(float), 16);
    rt->lip_rest = mni_arena_calloc(&rt->arena, m->count ? m->count : 1, 3 * sizeof(float), 16);
    if (!rt->mouth_base || !rt->lip_rest)
        return mni_oom(err, "character runtime: the mouth list");
    mn_soma_rest_pose(rt->character->skeleton, &rt->pose);
    mn_soma_pose(rt->character->skeleton, &rt->pose, rt->worlds, rt->skin);
    mn_status st = drive_head_joints(rt, NULL, err);
    if (st == MN_OK)
        st = mn_head_pose(rt->head, NULL, 0, rt->head_verts, err);
    if (st != MN_OK)
        return st;
    for (uint32_t i = 0; i < m->count; i++) {
        const mn_mouth_entry *e = &m->entries[i];
        rt->mouth_base[i] = rt->opacities[e->row];
        for (int k = 0; k < 3; k++)
            rt->lip_rest[3 * i + k] =
                rt->head_verts[3 * (size_t)e->upper + k] - rt->head_verts[3 * (size_t)e->lower + k];
    }
    return MN_OK;
}

static mn_status make_head(mn_character_runtime *rt, mn_error *err)
{
    const mn_aosrig *pack = rt->character->head;
    mn_head_options ho = {.allocator = rt->allocator};
    mn_status st = mn_head_create(pack, &ho, &rt->head, err);
    if (st != MN_OK)
        return st;
    mn_head_set_simd(rt->head, rt->level);
    size_t V = pack->header.vertex_count;
    rt->controls = mni_arena_calloc(&rt->arena, pack->header.head_ext.dim, sizeof(float), 16);
    rt->head_verts = mni_arena_calloc(&rt->arena, V, 3 * sizeof(float), 32);
    rt->head_normals = mni_arena_calloc(&rt->arena, V, 3 * sizeof(float), 32);
    if (!rt->controls || !rt->head_verts || !rt->head_normals)
        return mni_oom(err, "character runtime: head buffers");
    return map_head(rt, err);
}

static mn_status make_splats(mn_character_runtime *rt, mn_error *err)
{
    const mn_character *c = rt->character;
    size_t n = c->splats.count;
    rt->centres = mni_arena_calloc(&rt->arena, n ? n : 1, 3 * sizeof(float), 32);
    rt->rotations = mni_arena_calloc(&rt->arena, n ? n : 1, 4 * sizeof(float), 32);
    rt->opacities = mni_arena_calloc(&rt->arena, n ? n : 1, sizeof(float), 32);
    if (!rt->centres || !rt->rotations || !rt->opacities)
        return mni_oom(err, "character runtime: splat buffers");
    for (size_t i = 0; i < n; i++)
        rt->opacities[i] = sigmoid(c->splats.opacities[i]);
    rt->job = (mn_splat_skin_job){
        .count = c->splats.count, .influences = c->bindings.influences,
        .joints = c->bindings.joints, .weights = c->bindings.weights, .palette = rt->skin,
        .palette_count = c->skeleton->joint_count, .centres = c->splats.centres,
        .rotations = c->splats.rotations,
        .translation = {c->ply_translation[0], c->ply_translation[1], c->ply_translation[2]},
        .out_centres = rt->centres, .out_rotations = rt->rotations};
    return mn_splat_skin_job_validate(&rt->job, err);
}

static void fill_views(mn_character_runtime *rt)
{
    const mn_character *c = rt->character;
    mn_character_views *v = &rt->views;
    v->joint_count = c->skeleton->joint_count;
    v->pose = &rt->pose;
    v->joint_worlds = rt->worlds;
    v->skin_matrices = rt->skin;
    v->corrective_slots = MN_CORRECTIVE_SLOTS;
    v->corrective_weights = rt->corrective.weights;
    v->corrective_angles = rt->corrective.angles;
    if (rt->runs & MN_CHARACTER_RUN_HEAD) {
        v->head_vertex_count = c->head->header.vertex_count;
        v->head_vertices = rt->head_verts;
        v->head_normals = rt->head_normals;
        v->head_controls = rt->controls;
        v->head_control_count = c->head->header.head_ext.dim;
    }
    if (rt->runs & MN_CHARACTER_RUN_SPLATS) {
        v->splat_count = c->splats.count;
        v->splat_centres = rt->centres;
        v->splat_rotations = rt->rotations;
        v->splat_opacities = rt->opacities;
    }
}

static mn_status check_options(const mn_character_runtime_options *o, mn_error *err)
{
    if (o->threads > MN_POOL_MAX_THREADS)
        return mni_fail(err, MN_INVALID_ARGUMENT, "character runtime: %u threads, at most %u",
                        o->threads, MN_POOL_MAX_THREADS);
    if (!(o->gaze_yaw_limit >= 0.0f) || !isfinite(o->gaze_yaw_limit) ||
        !(o->gaze_pitch_limit >= 0.0f) || !isfinite(o->gaze_pitch_limit))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "character runtime: a gaze limit is negative or not finite");
    return MN_OK;
}

static mn_status build(mn_character_runtime *rt, const mn_character_runtime_options *o,
                       mn_error *err)
{
    const mn_character *c = rt->character;
    uint32_t J = c->skeleton->joint_count;
    mn_status st = mn_pose_create(&rt->rest, J, &rt->allocator, err);
    if (st == MN_OK)
        st = mn_pose_create(&rt->pose, J, &rt->allocator, err);
    if (st != MN_OK)
        return st;
    mn_soma_rest_pose(c->skeleton, &rt->rest);
    mn_soma_rest_pose(c->skeleton, &rt->pose);
    rt->worlds = mni_arena_calloc(&rt->arena, J, 16 * sizeof(float), 32);
    rt->skin = mni_arena_calloc(&rt->arena, J, 16 * sizeof(float), 32);
    if (!rt->worlds || !rt->skin)
        return mni_oom(err, "character runtime: joint matrices");
    if ((st = build_mixer(rt, err)) != MN_OK)
        return st;
    if ((rt->runs & MN_CHARACTER_RUN_HEAD) && (st = make_head(rt, err)) != MN_OK)
        return st;
    if ((rt->runs & MN_CHARACTER_RUN_FACE) &&
        (st = mn_head_set_arkit_map(rt->head, c->face_map, err)) != MN_OK)
        return st;
    if ((rt->runs & MN_CHARACTER_RUN_SPLATS) && (st = make_splats(rt, err)) != MN_OK)
        return st;
    if (o->threads > 1 && (rt->runs & (MN_CHARACTER_RUN_SPLATS | MN_CHARACTER_RUN_HEAD)) &&
        (st = mn_pool_create(o->threads, &rt->allocator, &rt->pool, err)) != MN_OK)
        return st;
    if ((rt->runs & MN_CHARACTER_RUN_MOUTH) && (st = prepare_mouth(rt, err)) != MN_OK)
        return st;
    /* The first update's views start from the rest. */
    mn_soma_rest_pose(c->skeleton, &rt->pose);
    mn_soma_pose(c->skeleton, &rt->pose, rt->worlds, rt->skin);
    return MN_OK;
}

mn_status mn_character_runtime_create(const mn_character *character,
                                      const mn_character_runtime_options *options,
                                      mn_character_runtime **out, mn_error *err)
{
    mni_error_clear(err);
    if (!out || !character || !character->skeleton)
        return mni_fail(err, MN_INVALID_ARGUMENT, "character runtime: NULL character or out");
    *out = NULL;
    mn_character_runtime_options o = {0};
    if (options)
        o = *options;
    mn_status st = check_options(&o, err);
    if (st != MN_OK)
        return st;
    mn_character_runtime *rt = mni_alloc(&o.allocator, sizeof *rt);
    if (!rt)
        return mni_oom(err, "character runtime");
    memset(rt, 0, sizeof *rt);
    rt->allocator = o.allocator;
    mni_arena_init(&rt->arena, &rt->allocator);
    rt->character = character;
    rt->level = o.force_simd ? o.simd : MN_SIMD_BEST;
    rt->yaw_limit = o.gaze_yaw_limit > 0.0f ? o.gaze_yaw_limit : MN_CHARACTER_GAZE_YAW_LIMIT;
    rt->pitch_limit =
        o.gaze_pitch_limit > 0.0f ? o.gaze_pitch_limit : MN_CHARACTER_GAZE_PITCH_LIMIT;
    mn_corrective_state_init(&rt->corrective);
    choose_parts(rt, o.skip);
    st = build(rt, &o, err);
    if (st != MN_OK) {
        mn_character_runtime_free(rt);
        return st;
    }
    fill_views(rt);
    *out = rt;
    return MN_OK;
}

void mn_character_runtime_free(mn_character_runtime *rt)
{
    if (!rt)
        return;
    mn_pool_free(rt->pool);
    mn_head_free(rt->head);
    mn_mixer_free(rt->mixer);
    mn_model_free(rt->model);
    mn_pose_free(&rt->pose);
    mn_pose_free(&rt->rest);
    mn_allocator a = rt->allocator;
    mni_arena_release(&rt->arena);
    mni_free(&a, rt, sizeof *rt);
}

uint32_t mn_character_runtime_skipped(const mn_character_runtime *rt)
{
    return rt ? rt->skipped : 0;
}

size_t mn_character_runtime_describe_skipped(const mn_character_runtime *rt, char *buf,
                                             size_t size)
{
    static const char *const names[5] = {"head", "face", "corrective", "mouth", "splats"};
    size_t len = 0;
    if (buf && size)
        buf[0] = '\0';
    for (int k = 0; rt && k < 5; k++) {
        if (!(rt->skipped & (1u << k)))
            continue;
        int n = snprintf(buf && len < size ? buf + len : NULL, buf && len < size ? size - len : 0,
                         "%s%s: %s", len ? "; " : "", names[k], rt->why[k]);
        len += n > 0 ? (size_t)n : 0;
    }
    return len;
}

/* ---- the body ------------------------------------------------------------------------ */

mn_mixer *mn_character_runtime_mixer(mn_character_runtime *rt)
{
    return rt ? rt->mixer : NULL;
}

mn_status mn_character_runtime_play(mn_character_runtime *rt, const char *clip,
                                    const mn_play_options *options, mn_error *err)
{
    if (!rt)
        return mni_fail(err, MN_INVALID_ARGUMENT, "character runtime: NULL runtime");
    mn_status st = mn_mixer_play_named(rt->mixer, clip, options, err);
    if (st == MN_OK)
        rt->source = BODY_MIXER;
    return st;
}

void mn_character_runtime_use_mixer(mn_character_runtime *rt)
{
    if (rt)
        rt->source = BODY_MIXER;
}

void mn_character_runtime_use_pose(mn_character_runtime *rt)
{
    if (rt)
        rt->source = BODY_POSE;
}

mn_status mn_character_runtime_use_state_machine(mn_character_runtime *rt,
                                                 mn_state_machine *machine, mn_error *err)
{
    if (!rt || !machine)
        return mni_fail(err, MN_INVALID_ARGUMENT, "character runtime: NULL runtime or machine");
    uint32_t n = mn_state_machine_joint_count(machine);
    if (n != rt->character->skeleton->joint_count)
        return mni_fail(err, MN_COUNT_MISMATCH, "state machine of %u joints, the skeleton has %u",
                        n, rt->character->skeleton->joint_count);
    rt->machine = machine;
    rt->source = BODY_MACHINE;
    return MN_OK;
}

mn_status mn_character_runtime_use_blend_tree(mn_character_runtime *rt, mn_blend_tree *tree,
                                              float time, mn_error *err)
{
    if (!rt || !tree || !isfinite(time))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "character runtime: NULL runtime or tree, or a time not finite");
    uint32_t n = mn_blend_tree_joint_count(tree);
    if (n != rt->character->skeleton->joint_count)
        return mni_fail(err, MN_COUNT_MISMATCH, "blend tree of %u joints, the skeleton has %u", n,
                        rt->character->skeleton->joint_count);
    rt->tree = tree;
    rt->tree_time = time;
    rt->source = BODY_TREE;
    return MN_OK;
}

const mn_pose *mn_character_runtime_rest_pose(const mn_character_runtime *rt)
{
    return rt ? &rt->rest : NULL;
}

void mn_character_runtime_set_correctives(mn_character_runtime *rt, bool enabled)
{
    if (rt)
        mn_corrective_set_enabled(&rt->corrective, enabled);
}

mn_head *mn_character_runtime_head(mn_character_runtime *rt)
{
    return rt ? rt->head : NULL;
}

const mn_character_views *mn_character_runtime_views(const mn_character_runtime *rt)
{
    static const mn_character_views none;
    return rt ? &rt->views : &none;
}

/* ---- the frame -------------------------------------------------------------------------- */

static void copy_pose(mn_pose *dst, const mn_pose *src, uint32_t n)
{
    memcpy(dst->translations, src->translations, (size_t)n * 3 * sizeof(float));
    memcpy(dst->rotations, src->rotations, (size_t)n * 4 * sizeof(float));
    memcpy(dst->scales, src->scales, (size_t)n * 3 * sizeof(float));
}

static mn_status play_body(mn_character_runtime *rt, const mn_character_frame *f, float dt,
                           mn_error *err)
{
    uint32_t J = rt->character->skeleton->joint_count;
    switch (rt->source) {
    case BODY_MIXER:
        mn_mixer_update(rt->mixer, dt);
        copy_pose(&rt->pose, mn_mixer_pose(rt->mixer), J);
        return MN_OK;
    case BODY_MACHINE: {
        uint32_t events = 0;
        mn_status st = mn_state_machine_update(rt->machine, dt, NULL, 0, &events, err);
        if (st == MN_OK)
            copy_pose(&rt->pose, &rt->rest, J);
        return st == MN_OK ? mn_state_machine_evaluate(rt->machine, &rt->pose, err) : st;
    }
    case BODY_TREE:
        rt->tree_time += dt;
        copy_pose(&rt->pose, &rt->rest, J);
        return mn_blend_tree_evaluate(rt->tree, rt->tree_time, &rt->pose, err);
    case BODY_POSE:
        if (!f->pose) {
            copy_pose(&rt->pose, &rt->rest, J);
            return MN_OK;
        }
        if (f->pose->joint_count < J)
            return mni_fail(err, MN_INVALID_ARGUMENT,
                            "character runtime: a pose of %u joints, the skeleton has %u",
                            f->pose->joint_count, J);
        copy_pose(&rt->pose, f->pose, J);
        return MN_OK;
    }
    return MN_OK;
}

static mn_status check_frame(const mn_character_runtime *rt, const mn_character_frame *f,
                             mn_error *err)
{
    if (f->arkit_count > MN_ARKIT_CHANNEL_COUNT || (!f->arkit && f->arkit_count))
        return mni_fail(err, MN_INVALID_ARGUMENT, "character runtime: %u ARKit weights, at most 52",
                        f->arkit_count);
    /* a package without a running head ignores head controls, as it ignores ARKit weights */
    uint32_t dim = rt->head ? rt->character->head->header.head_ext.dim : UINT32_MAX;
    if ((f->controls && f->control_count > dim) || (!f->controls && f->control_count))
        return mni_fail(err, MN_INVALID_ARGUMENT, "character runtime: %u head controls, at most %u",
                        f->control_count, dim);
    if (f->look && !(isfinite(f->look_at[0]) && isfinite(f->look_at[1]) && isfinite(f->look_at[2])))
        return mni_fail(err, MN_INVALID_ARGUMENT, "character runtime: look_at is not finite");
    if (f->override_count && !f->overrides)
        return mni_fail(err, MN_INVALID_ARGUMENT, "character runtime: NULL overrides");
    for (uint32_t i = 0; i < f->override_count; i++) {
        const float *q = f->overrides[i].rotation;
        float len = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        if (!f->overrides[i].joint || !(len > 0.0f) || !isfinite(len))
            return mni_fail(err, MN_INVALID_ARGUMENT,
                            "character runtime: override %u has no name or no rotation", i);
    }
    return MN_OK;
}

/* Overrides on top of the played pose: rotation ⊗ q.  A name lookup per override (a handful). */
static void apply_overrides(mn_character_runtime *rt, const mn_character_frame *f)
{
    for (uint32_t i = 0; i < f->override_count; i++) {
        uint32_t j = mn_soma_skeleton_find(rt->character->skeleton, f->overrides[i].joint);
        if (j == UINT32_MAX)
            continue;
        float q[4], r[4];
        mn_quat_normalize(q, f->overrides[i].rotation);
        memcpy(r, rt->pose.rotations + 4 * j, sizeof r);
        mn_quat_mul(rt->pose.rotations + 4 * j, r, q);
    }
}

/* Each eye's pitch and yaw toward the target, in its own head-local frame, clamped. */
static void gaze_toward(const mn_character_runtime *rt, const float target[3], float gaze[4])
{
    const mn_aosrig *pack = rt->character->head;
    for (int k = 0; k < 2; k++) {
        /* head-local (metres) → rig space: W·restWorld⁻¹·bindTransform; invert it onto the target */
        float model[16], inv[16];
        row_mul(model, rt->head_worlds + 16 * (size_t)pack->eye_joint[k], rt->eye_model_inverse[k]);
        if (!row_invert(inv, model)) {
            gaze[2 * k] = gaze[2 * k + 1] = 0.0f;
            continue;
        }
        double d[3];
        for (int r = 0; r < 3; r++)
            d[r] = (double)inv[4 * r] * target[0] + (double)inv[4 * r + 1] * target[1] +
                   (double)inv[4 * r + 2] * target[2] + inv[4 * r + 3] -
                   (double)rt->unit * pack->eye_positions[3 * k + r];
        /* R = Ry(yaw)·Rx(pitch) turns +Z to (sin y cos p, −sin p, cos y cos p). */
        double yaw = atan2(d[0], d[2]);
        double pitch = atan2(-d[1], sqrt(d[0] * d[0] + d[2] * d[2]));
        double ylim = rt->yaw_limit, plim = rt->pitch_limit;
        gaze[2 * k] = (float)(pitch > plim ? plim : pitch < -plim ? -plim : pitch);
        gaze[2 * k + 1] = (float)(yaw > ylim ? ylim : yaw < -ylim ? -ylim : yaw);
    }
}

/* Area-weighted vertex normals of the posed triangles. */
static void head_normals(mn_character_runtime *rt)
{
    const mn_aosrig *pack = rt->character->head;
    size_t V = pack->header.vertex_count;
    const float *p = rt->head_verts;
    float *n = rt->head_normals;
    memset(n, 0, V * 3 * sizeof(float));
    for (uint32_t f = 0; f < pack->face_count; f++) {
        const uint32_t *t = pack->faces + 3 * (size_t)f;
        const float *a = p + 3 * (size_t)t[0], *b = p + 3 * (size_t)t[1], *c = p + 3 * (size_t)t[2];
        float u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float x = u[1] * v[2] - u[2] * v[1], y = u[2] * v[0] - u[0] * v[2],
              z = u[0] * v[1] - u[1] * v[0];
        for (int k = 0; k < 3; k++) {
            float *o = n + 3 * (size_t)t[k];
            o[0] += x;
            o[1] += y;
            o[2] += z;
        }
    }
    for (size_t v = 0; v < V; v++) {
        float *o = n + 3 * v;
        float len2 = o[0] * o[0] + o[1] * o[1] + o[2] * o[2];
        /* branch-free, so the loop vectorises; a vertex of no triangle keeps its zeros */
        float k = len2 > 0.0f ? 1.0f / sqrtf(len2) : 0.0f;
        o[0] *= k;
        o[1] *= k;
        o[2] *= k;
    }
}

static mn_status prepare_head(mn_character_runtime *rt, const mn_character_frame *f,
                              mn_error *err)
{
    const mn_aosrig *pack = rt->character->head;
    uint32_t dim = pack->header.head_ext.dim;
    mn_status st = drive_head_joints(rt, f, err);
    if (st != MN_OK)
        return st;
    if (f->arkit && (rt->runs & MN_CHARACTER_RUN_FACE)) {
        float arkit[MN_ARKIT_CHANNEL_COUNT] = {0};
        memcpy(arkit, f->arkit, f->arkit_count * sizeof(float));
        mn_arkit_map_apply(rt->character->face_map, arkit, rt->controls);
    } else {
        uint32_t n = f->controls && !f->arkit ? f->control_count : 0;
        if (n)
            memcpy(rt->controls, f->controls, n * sizeof(float));
        memset(rt->controls + n, 0, (dim - n) * sizeof(float));
    }
    if (f->look)
        gaze_toward(rt, f->look_at, rt->controls + pack->header.head_ext.expr_dim);
    return MN_OK;
}

/*
 * The deforms, as one batch on the runtime's pool: the calling thread poses
 * the head (and its normals) first, while the other threads take the splats
 * in chunks of SPLAT_CHUNK (the skinner's chunks) from one counter; the caller
 * joins them when the head is done.  So on two threads the head and the splats
 * run side by side, and the head never waits for a thread to wake.  Each chunk
 * is deformed alone, so the bits do not depend on who took it.
 */
#define SPLAT_CHUNK 2048u

typedef struct deform_batch {
    mn_character_runtime *rt;
    bool head;                   /* pose the head on the caller */
    mn_simd_level level;         /* the splat kernel's, resolved */
    size_t chunks;
    atomic_size_t next;          /* the next chunk to take */
} deform_batch;

static void deform_job(void *context, uint32_t worker)
{
    deform_batch *b = context;
    mn_character_runtime *rt = b->rt;
    if (worker == 0 && b->head) {
        const mn_aosrig *pack = rt->character->head;
        rt->head_status = mn_head_pose(rt->head, rt->controls, pack->header.head_ext.dim,
                                       rt->head_verts, NULL);
        head_normals(rt);
    }
    size_t n = rt->job.count;
    for (;;) {
        size_t chunk = atomic_fetch_add_explicit(&b->next, 1, memory_order_relaxed);
        if (chunk >= b->chunks)
            return;
        size_t lo = chunk * SPLAT_CHUNK, hi = lo + SPLAT_CHUNK < n ? lo + SPLAT_CHUNK : n;
        mni_splat_skin_range(&rt->job, b->level, lo, hi);
    }
}

static mn_status deform(mn_character_runtime *rt, mn_error *err)
{
    deform_batch b = {.rt = rt, .head = (rt->runs & MN_CHARACTER_RUN_HEAD) != 0,
                      .level = mni_simd_resolve(rt->level)};
    b.chunks = rt->runs & MN_CHARACTER_RUN_SPLATS ? (rt->job.count + SPLAT_CHUNK - 1) / SPLAT_CHUNK
                                                  : 0;
    atomic_init(&b.next, 0);
    rt->head_status = MN_OK;
    if (!b.head && b.chunks == 0)
        return MN_OK;
    /* one thread, or nothing to share: no one is woken */
    mn_status st = b.head && b.chunks == 0 ? (deform_job(&b, 0), MN_OK)
                                           : mni_pool_run(rt->pool, deform_job, &b);
    if (st != MN_OK)
        return mni_fail(err, st, "character runtime: the deform's pool is busy");
    if (rt->head_status != MN_OK)
        return mni_fail(err, rt->head_status, "character runtime: the head's pose failed");
    return MN_OK;
}

/* The mouth rows: opacity base × hidden alpha, plugs pushed back along forward. */
static void apply_mouth(mn_character_runtime *rt)
{
    const mn_mouth_hidden *m = rt->character->mouth;
    const float *hv = rt->head_verts;
    for (uint32_t i = 0; i < m->count; i++) {
        const mn_mouth_entry *e = &m->entries[i];
        const float *u = hv + 3 * (size_t)e->upper, *l = hv + 3 * (size_t)e->lower;
        const float *d0 = rt->lip_rest + 3 * (size_t)i;
        static const float zero[3] = {0, 0, 0};
        float gap = mn_mouth_lip_gap(m->up, u, l, d0, zero);
        rt->opacities[e->row] = rt->mouth_base[i] * mn_mouth_hidden_alpha(gap);
        if (e->kind == MN_MOUTH_PLUG) {
            float push = mn_mouth_plug_push(gap);
            float *c = rt->centres + 3 * (size_t)e->row;
            for (int k = 0; k < 3; k++)
                c[k] -= push * m->forward[k];
        }
    }
}

mn_status mn_character_runtime_update(mn_character_runtime *rt, const mn_character_frame *frame,
                                      mn_error *err)
{
    mni_error_clear(err);
    if (!rt)
        return mni_fail(err, MN_INVALID_ARGUMENT, "character runtime: NULL runtime");
    static const mn_character_frame none;
    const mn_character_frame *f = frame ? frame : &none;
    mn_status st = check_frame(rt, f, err);
    if (st != MN_OK)
        return st;
    float dt = isfinite(f->dt) && f->dt > 0.0f ? f->dt : 0.0f;
    const mn_character *c = rt->character;

    if ((st = play_body(rt, f, dt, err)) != MN_OK)
        return st;
    apply_overrides(rt, f);
    mn_soma_pose(c->skeleton, &rt->pose, rt->worlds, rt->skin);
    if (rt->runs & MN_CHARACTER_RUN_CORRECTIVE)
        (void)mn_corrective_update(c->corrective, rt->worlds, rt->skin, &rt->corrective, NULL);
    if ((rt->runs & MN_CHARACTER_RUN_HEAD) && (st = prepare_head(rt, f, err)) != MN_OK)
        return st;
    if ((st = deform(rt, err)) != MN_OK)
        return st;
    if (rt->runs & MN_CHARACTER_RUN_MOUTH)
        apply_mouth(rt);
    return MN_OK;
}
