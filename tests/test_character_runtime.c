/*
 * The character runtime (character/runtime.h) on synthetic packages
 * (support/synthetic_character.h): one frame equals the same frame computed
 * through the parts' own calls, to the bit; a crossfade blends from the live
 * pose; ARKit weights go through the face map; the eyes turn toward a target
 * within the limits; the corrective weights switch on as an arm rises; the
 * mouth list's splats stay hidden until the jaw opens; a package without its
 * optional parts runs what remains and says what it skipped; a blend tree, a
 * state machine or a caller's pose can drive the body; a "cm" head lands where
 * the metre one does; and a frame allocates nothing and gives the same bits on
 * one thread or two.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/character/runtime.h>
#include <marionette/math.h>

#include "counting_alloc.h"
#include "files.h"
#include "synthetic_character.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    char dir[256];
    synthetic_character_info info;
    mn_character *character;
} fixture;

static fixture *make(const synthetic_character_options *o)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    mn_test_make_temp_dir(f->dir, sizeof f->dir, "character_runtime");
    synthetic_character_write(f->dir, o, &f->info);
    mn_error err = {0};
    assert_int_equal(mn_character_load(f->dir, "character.json", NULL, &f->character, &err),
                     MN_OK);
    assert_int_equal(f->character->warning_count, 0);
    return f;
}

static void drop(fixture *f)
{
    mn_character_free(f->character);
    mn_test_remove_tree(f->dir);
    free(f);
}

static mn_character_runtime *runtime_of(const mn_character *c, uint32_t threads, uint32_t skip)
{
    mn_character_runtime *rt = NULL;
    mn_error err = {0};
    mn_character_runtime_options o = {.threads = threads, .skip = skip};
    assert_int_equal(mn_character_runtime_create(c, &o, &rt, &err), MN_OK);
    return rt;
}

static void update(mn_character_runtime *rt, const mn_character_frame *f)
{
    mn_error err = {0};
    assert_int_equal(mn_character_runtime_update(rt, f, &err), MN_OK);
}

static float arkit_weights[MN_ARKIT_CHANNEL_COUNT];

static const float *arkit(float jaw, float smile, float look_out_left)
{
    memset(arkit_weights, 0, sizeof arkit_weights);
    arkit_weights[mn_arkit_channel_index("jawOpen")] = jaw;
    arkit_weights[mn_arkit_channel_index("mouthSmileLeft")] = smile;
    arkit_weights[mn_arkit_channel_index("eyeLookOutLeft")] = look_out_left;
    return arkit_weights;
}

/* ---- the frame equals its parts ------------------------------------------------------ */

/* The head's joint worlds from the body's, as a caller would wire them by hand. */
static void head_worlds_by_hand(const mn_character *c, const float *worlds, float *out)
{
    const mn_aosrig *pack = c->head;
    for (uint32_t j = 0; j < pack->header.joint_count; j++) {
        uint32_t b = mn_soma_skeleton_find(c->skeleton, pack->header.joint_names[j]);
        assert_int_not_equal(b, UINT32_MAX);
        for (int r = 0; r < 4; r++)
            for (int k = 0; k < 4; k++)
                out[16 * j + 4 * r + k] = worlds[16 * b + 4 * k + r];
    }
}

static float sigmoid(float x)
{
    return (float)(1.0 / (1.0 + exp(-(double)x)));
}

static void a_frame_equals_its_parts(void **state)
{
    (void)state;
    fixture *fx = make(&(synthetic_character_options){.splats = 3000, .joints = 40});
    const mn_character *c = fx->character;
    mn_character_runtime *rt = runtime_of(c, 2, 0);
    assert_int_equal(mn_character_runtime_skipped(rt), 0);
    mn_error err = {0};
    assert_int_equal(mn_character_runtime_play(rt, "raise", NULL, &err), MN_OK);
    mn_character_frame frame = {.dt = 0.55f, .arkit = arkit(0.6f, 0.3f, 0.2f),
                                .arkit_count = MN_ARKIT_CHANNEL_COUNT};
    update(rt, &frame);
    const mn_character_views *v = mn_character_runtime_views(rt);

    /* the body */
    uint32_t J = c->skeleton->joint_count;
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, J, NULL, &err), MN_OK);
    mn_soma_rest_pose(c->skeleton, &pose);
    const mn_soma_clip *raise = mn_soma_clips_lookup(c->clips, c->shared_clips, "raise");
    assert_int_equal(mn_clip_sample(raise->clip, 0.55f, &pose, &err), MN_OK);
    float *worlds = malloc((size_t)J * 16 * sizeof(float)), *skin = malloc((size_t)J * 64);
    mn_soma_pose(c->skeleton, &pose, worlds, skin);
    assert_int_equal(v->joint_count, J);
    assert_memory_equal(v->joint_worlds, worlds, (size_t)J * 64);
    assert_memory_equal(v->skin_matrices, skin, (size_t)J * 64);

    /* the correctives */
    mn_corrective_state cs;
    mn_corrective_state_init(&cs);
    assert_int_equal(mn_corrective_update(c->corrective, worlds, skin, &cs, &err), MN_OK);
    assert_memory_equal(v->corrective_weights, cs.weights, sizeof cs.weights);
    assert_memory_equal(v->corrective_angles, cs.angles, sizeof cs.angles);
    assert_true(cs.angles[0] > 80.0f && cs.angles[0] < 100.0f); /* 0.55 of 170 degrees */

    /* the head */
    mn_head *head = NULL;
    assert_int_equal(mn_head_create(c->head, NULL, &head, &err), MN_OK);
    uint32_t HJ = c->head->header.joint_count, V = c->head->header.vertex_count;
    float *hw = malloc((size_t)HJ * 64);
    head_worlds_by_hand(c, worlds, hw);
    assert_int_equal(mn_head_set_joint_worlds(head, hw, (size_t)HJ * 16, &err), MN_OK);
    uint32_t dim = c->head->header.head_ext.dim;
    float *controls = calloc(dim, sizeof(float));
    mn_arkit_map_apply(c->face_map, arkit_weights, controls);
    assert_int_equal(v->head_control_count, dim);
    assert_memory_equal(v->head_controls, controls, dim * sizeof(float));
    float *verts = malloc((size_t)V * 12);
    assert_int_equal(mn_head_pose(head, controls, dim, verts, &err), MN_OK);
    assert_int_equal(v->head_vertex_count, V);
    assert_memory_equal(v->head_vertices, verts, (size_t)V * 12);
    for (uint32_t i = 0; i < V; i++) {
        const float *n = v->head_normals + 3 * i;
        assert_float_equal(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0f, 1e-4);
    }

    /* the splats, and the mouth over them */
    uint32_t N = c->splats.count;
    float *centres = malloc((size_t)N * 12), *rots = malloc((size_t)N * 16);
    mn_splat_skin_job job = {
        .count = N, .influences = c->bindings.influences, .joints = c->bindings.joints,
        .weights = c->bindings.weights, .palette = skin, .palette_count = J,
        .centres = c->splats.centres, .rotations = c->splats.rotations,
        .translation = {c->ply_translation[0], c->ply_translation[1], c->ply_translation[2]},
        .out_centres = centres, .out_rotations = rots};
    assert_int_equal(mn_splat_skin_run(&job, MN_SIMD_BEST), MN_OK);
    float *rest_verts = malloc((size_t)V * 12);
    mn_head *rest_head = NULL;
    assert_int_equal(mn_head_create(c->head, NULL, &rest_head, &err), MN_OK);
    mn_pose rest;
    assert_int_equal(mn_pose_create(&rest, J, NULL, &err), MN_OK);
    mn_soma_rest_pose(c->skeleton, &rest);
    mn_soma_pose(c->skeleton, &rest, worlds, skin);
    head_worlds_by_hand(c, worlds, hw);
    assert_int_equal(mn_head_set_joint_worlds(rest_head, hw, (size_t)HJ * 16, &err), MN_OK);
    assert_int_equal(mn_head_pose(rest_head, NULL, 0, rest_verts, &err), MN_OK);
    const mn_mouth_hidden *m = c->mouth;
    float opacity_hidden = 0.0f;
    for (uint32_t i = 0; i < m->count; i++) {
        const mn_mouth_entry *e = &m->entries[i];
        float gap = mn_mouth_lip_gap(m->up, verts + 3 * e->upper, verts + 3 * e->lower,
                                     rest_verts + 3 * e->upper, rest_verts + 3 * e->lower);
        float alpha = mn_mouth_hidden_alpha(gap);
        assert_float_equal(v->splat_opacities[e->row], sigmoid(c->splats.opacities[e->row]) * alpha,
                           1e-6);
        opacity_hidden += alpha;
        if (e->kind == MN_MOUTH_PLUG)
            for (int k = 0; k < 3; k++)
                centres[3 * e->row + k] -= mn_mouth_plug_push(gap) * m->forward[k];
    }
    assert_true(opacity_hidden < 0.5f * (float)m->count); /* jawOpen 0.6 parts the lips */
    assert_int_equal(v->splat_count, N);
    assert_memory_equal(v->splat_centres, centres, (size_t)N * 12);
    assert_memory_equal(v->splat_rotations, rots, (size_t)N * 16);
    for (uint32_t i = 0; i < fx->info.mouth_first; i++)
        assert_float_equal(v->splat_opacities[i], sigmoid(c->splats.opacities[i]), 0.0);
    mn_pose_free(&rest);
    mn_head_free(rest_head);
    free(rest_verts);
    free(centres);
    free(rots);
    free(verts);
    free(controls);
    free(hw);
    mn_head_free(head);
    free(worlds);
    free(skin);
    mn_pose_free(&pose);
    mn_character_runtime_free(rt);
    drop(fx);
}

/* ---- the body ---------------------------------------------------------------------- */

/* idle for 0.3 s, then nod with a 0.2 s fade: 0.1 s in, half of each, idle still playing. */
static void a_crossfade_blends_from_the_live_pose(void **state)
{
    (void)state;
    fixture *fx = make(NULL);
    const mn_character *c = fx->character;
    mn_character_runtime *rt = runtime_of(c, 1, 0);
    mn_error err = {0};
    assert_int_equal(mn_character_runtime_play(rt, "idle", NULL, &err), MN_OK);
    update(rt, &(mn_character_frame){.dt = 0.3f});
    assert_int_equal(mn_character_runtime_play(rt, "nod", &(mn_play_options){.fade = 0.2f}, &err),
                     MN_OK);
    update(rt, &(mn_character_frame){.dt = 0.1f});
    assert_true(mn_mixer_fading(mn_character_runtime_mixer(rt)));

    uint32_t J = c->skeleton->joint_count;
    mn_pose a, b;
    assert_int_equal(mn_pose_create(&a, J, NULL, &err), MN_OK);
    assert_int_equal(mn_pose_create(&b, J, NULL, &err), MN_OK);
    mn_soma_rest_pose(c->skeleton, &a);
    mn_soma_rest_pose(c->skeleton, &b);
    const mn_soma_clip *idle = mn_soma_clips_find(c->clips, "idle");
    const mn_soma_clip *nod = mn_soma_clips_find(c->clips, "nod");
    assert_int_equal(mn_clip_sample(idle->clip, 0.3f + 0.1f, &a, &err), MN_OK);
    assert_int_equal(mn_clip_sample(nod->clip, 0.1f, &b, &err), MN_OK);
    const mn_pose *got = mn_character_runtime_views(rt)->pose;
    uint32_t spine = mn_soma_skeleton_find(c->skeleton, "Spine");
    uint32_t head = mn_soma_skeleton_find(c->skeleton, "head");
    uint32_t joints[2] = {spine, head};
    for (int k = 0; k < 2; k++) {
        uint32_t j = joints[k];
        float want[4];
        mn_quat_slerp(want, a.rotations + 4 * j, b.rotations + 4 * j, 0.5f);
        for (int i = 0; i < 4; i++)
            assert_float_equal(got->rotations[4 * j + i], want[i], 1e-6);
    }
    /* and it really is between the two: the head has turned half of the nod */
    assert_true(fabsf(got->rotations[4 * head] - b.rotations[4 * head]) > 1e-3f);
    assert_true(fabsf(got->rotations[4 * head] - a.rotations[4 * head]) > 1e-3f);
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_character_runtime_free(rt);
    drop(fx);
}

/* A blend tree of one clip leaf over "raise", evaluated at the runtime's clock. */
static void a_blend_tree_drives_the_body(void **state)
{
    (void)state;
    fixture *fx = make(NULL);
    const mn_character *c = fx->character;
    mn_character_runtime *rt = runtime_of(c, 1, 0);
    mn_character_runtime *ref = runtime_of(c, 1, 0);
    mn_error err = {0};
    const mn_soma_clip *raise = mn_soma_clips_find(c->clips, "raise");
    mn_blend_node leaf = {.kind = MN_BLEND_NODE_CLIP, .clip = raise->clip};
    mn_blend_tree *tree = NULL;
    mn_blend_tree_desc desc = {.nodes = &leaf, .node_count = 1,
                               .bind = mn_character_runtime_rest_pose(rt)};
    assert_int_equal(mn_blend_tree_create(&desc, &tree, &err), MN_OK);
    assert_int_equal(mn_character_runtime_use_blend_tree(rt, tree, 0.25f, &err), MN_OK);
    update(rt, &(mn_character_frame){.dt = 0.25f});
    assert_int_equal(mn_character_runtime_play(ref, "raise", &(mn_play_options){.at = 0.5f}, &err),
                     MN_OK);
    update(ref, NULL);
    uint32_t J = c->skeleton->joint_count;
    assert_memory_equal(mn_character_runtime_views(rt)->joint_worlds,
                        mn_character_runtime_views(ref)->joint_worlds, (size_t)J * 64);
    /* a caller's pose */
    mn_character_runtime_use_pose(rt);
    update(rt, &(mn_character_frame){.pose = mn_character_runtime_views(ref)->pose});
    assert_memory_equal(mn_character_runtime_views(rt)->joint_worlds,
                        mn_character_runtime_views(ref)->joint_worlds, (size_t)J * 64);
    mn_blend_tree_free(tree);
    mn_character_runtime_free(ref);
    mn_character_runtime_free(rt);
    drop(fx);
}


/* A state machine of one state over "idle": its pose after 0.3 s is idle's at 0.3 s. */
static void a_state_machine_drives_the_body(void **state)
{
    (void)state;
    fixture *fx = make(NULL);
    const mn_character *c = fx->character;
    mn_character_runtime *rt = runtime_of(c, 1, 0);
    mn_error err = {0};
    const mn_soma_clip *idle = mn_soma_clips_find(c->clips, "idle");
    mn_blend_node leaf = {.kind = MN_BLEND_NODE_CLIP, .clip = idle->clip};
    mn_sm_state st = {"idle", 0};
    mn_state_machine_desc desc = {.nodes = &leaf, .node_count = 1,
                                  .bind = mn_character_runtime_rest_pose(rt), .states = &st,
                                  .state_count = 1};
    mn_state_machine *sm = NULL;
    assert_int_equal(mn_state_machine_create(&desc, &sm, &err), MN_OK);
    assert_int_equal(mn_character_runtime_use_state_machine(rt, sm, &err), MN_OK);
    update(rt, &(mn_character_frame){.dt = 0.3f});
    uint32_t J = c->skeleton->joint_count;
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, J, NULL, &err), MN_OK);
    mn_soma_rest_pose(c->skeleton, &pose);
    assert_int_equal(mn_clip_sample(idle->clip, 0.3f, &pose, &err), MN_OK);
    uint32_t spine = mn_soma_skeleton_find(c->skeleton, "Spine");
    const mn_pose *got = mn_character_runtime_views(rt)->pose;
    for (int i = 0; i < 4; i++)
        assert_float_equal(got->rotations[4 * spine + i], pose.rotations[4 * spine + i], 1e-7);
    mn_pose_free(&pose);
    mn_state_machine_free(sm);
    mn_character_runtime_free(rt);
    drop(fx);
}

/* A "cm" pack is posed in metres: the same head in centimetres lands where the metre one does. */
static void a_centimetre_head_poses_in_metres(void **state)
{
    (void)state;
    fixture *m = make(NULL);
    fixture *cm = make(&(synthetic_character_options){.head = {.centimetres = true}});
    mn_character_runtime *a = runtime_of(m->character, 1, 0);
    mn_character_runtime *b = runtime_of(cm->character, 1, 0);
    mn_error err = {0};
    assert_int_equal(mn_character_runtime_play(a, "nod", NULL, &err), MN_OK);
    assert_int_equal(mn_character_runtime_play(b, "nod", NULL, &err), MN_OK);
    mn_character_frame f = {.dt = 0.4f, .arkit = arkit(0.5f, 0.2f, 0), .arkit_count = 52,
                            .look = true, .look_at = {0.5f, 1.2f, 1.5f}};
    update(a, &f);
    f.arkit = arkit(0.5f, 0.2f, 0);
    update(b, &f);
    const mn_character_views *x = mn_character_runtime_views(a), *y = mn_character_runtime_views(b);
    assert_int_equal(x->head_vertex_count, y->head_vertex_count);
    for (uint32_t i = 0; i < 3 * x->head_vertex_count; i++)
        assert_float_equal(x->head_vertices[i], y->head_vertices[i], 2e-5);
    uint32_t E = m->character->head->header.head_ext.expr_dim;
    for (int k = 0; k < 4; k++)
        assert_float_equal(x->head_controls[E + k], y->head_controls[E + k], 1e-5);
    for (uint32_t i = 0; i < x->splat_count; i++)
        assert_float_equal(x->splat_opacities[i], y->splat_opacities[i], 1e-5);
    mn_character_runtime_free(b);
    mn_character_runtime_free(a);
    drop(cm);
    drop(m);
}

/* A head joint the body lacks follows its head parent, and the frame's override turns it. */
static void a_head_joint_the_body_lacks_follows_and_turns(void **state)
{
    (void)state;
    fixture *fx = make(&(synthetic_character_options){.body_lacks_head_joint = true});
    fixture *ref = make(NULL);
    mn_character_runtime *rt = runtime_of(fx->character, 1, 0);
    mn_character_runtime *rr = runtime_of(ref->character, 1, 0);
    update(rt, NULL);
    update(rr, NULL);
    const mn_character_views *v = mn_character_runtime_views(rt), *w = mn_character_runtime_views(rr);
    uint32_t V = v->head_vertex_count;
    for (uint32_t i = 0; i < 3 * V; i++)
        assert_float_equal(v->head_vertices[i], w->head_vertices[i], 1e-5);
    /* turned: as the head's own override of its pack joint poses it */
    mn_joint_override turn = {"head", {0.0f, 0.258819f, 0.0f, 0.9659258f}}; /* 30 degrees about y */
    update(rt, &(mn_character_frame){.overrides = &turn, .override_count = 1});
    mn_head *head = NULL;
    mn_error err = {0};
    assert_int_equal(mn_head_create(fx->character->head, NULL, &head, &err), MN_OK);
    assert_int_equal(mn_head_set_joint_overrides(head, &turn, 1, NULL, &err), MN_OK);
    float *verts = malloc((size_t)V * 12);
    assert_int_equal(mn_head_pose(head, NULL, 0, verts, &err), MN_OK);
    float moved = 0.0f;
    for (uint32_t i = 0; i < 3 * V; i++) {
        assert_float_equal(v->head_vertices[i], verts[i], 1e-5);
        moved = fmaxf(moved, fabsf(v->head_vertices[i] - w->head_vertices[i]));
    }
    assert_true(moved > 0.01f);
    free(verts);
    mn_head_free(head);
    mn_character_runtime_free(rr);
    mn_character_runtime_free(rt);
    drop(ref);
    drop(fx);
}

/* ---- the face ------------------------------------------------------------------------ */

static void face_controls_go_through_the_face_map(void **state)
{
    (void)state;
    fixture *fx = make(NULL);
    const mn_character *c = fx->character;
    mn_character_runtime *rt = runtime_of(c, 1, 0);
    mn_character_runtime *ref = runtime_of(c, 1, 0);
    uint32_t dim = c->head->header.head_ext.dim, E = c->head->header.head_ext.expr_dim;
    update(rt, &(mn_character_frame){.arkit = arkit(1.0f, 0.5f, 0.5f), .arkit_count = 52});
    const mn_character_views *v = mn_character_runtime_views(rt);
    assert_float_equal(v->head_controls[0], 1.0f, 0.0);          /* jawOpen → lip_coeff */
    assert_float_equal(v->head_controls[1], 0.5f, 0.0);          /* mouthSmileLeft → 1 */
    assert_float_equal(v->head_controls[E + 1], 0.15f, 1e-7);    /* yaw_L = 0.3 × 0.5 */
    for (uint32_t i = 2; i < dim; i++)
        if (i != E + 1)
            assert_float_equal(v->head_controls[i], 0.0f, 0.0);
    /* the same vector given as the head's own controls poses the same vertices */
    float *controls = calloc(dim, sizeof(float));
    memcpy(controls, v->head_controls, dim * sizeof(float));
    update(ref, &(mn_character_frame){.controls = controls, .control_count = dim});
    uint32_t V = v->head_vertex_count;
    assert_memory_equal(mn_character_runtime_views(ref)->head_vertices, v->head_vertices,
                        (size_t)V * 12);
    /* a shorter one is zero-padded; a longer one is refused */
    mn_error err = {0};
    assert_int_equal(mn_character_runtime_update(
                         ref, &(mn_character_frame){.controls = controls, .control_count = dim + 1},
                         &err),
                     MN_INVALID_ARGUMENT);
    free(controls);
    mn_character_runtime_free(ref);
    mn_character_runtime_free(rt);
    drop(fx);
}

static void gaze_turns_the_eyes_toward_a_target(void **state)
{
    (void)state;
    fixture *fx = make(NULL);
    const mn_character *c = fx->character;
    mn_character_runtime *rt = runtime_of(c, 1, 0);
    uint32_t E = c->head->header.head_ext.expr_dim, V = c->head->header.vertex_count;
    const mn_character_views *v = mn_character_runtime_views(rt);
    update(rt, NULL);
    float *still = malloc((size_t)V * 12);
    memcpy(still, v->head_vertices, (size_t)V * 12);
    /* Far along the head's own forward (the bind transform turns it 0.1 rad about y): ahead. */
    mn_character_frame f = {.look = true, .look_at = {100.0f * sinf(0.1f), 1.63f,
                                                      100.0f * cosf(0.1f)}};
    update(rt, &f);
    for (int k = 0; k < 4; k++)
        assert_float_equal(v->head_controls[E + k], 0.0f, 2e-3);
    /* Far to the character's left: both eyes turn left as far as the limit lets them. */
    f.look_at[0] = 100.0f, f.look_at[1] = 1.63f, f.look_at[2] = 0.5f;
    update(rt, &f);
    assert_float_equal(v->head_controls[E + 1], MN_CHARACTER_GAZE_YAW_LIMIT, 0.0);
    assert_float_equal(v->head_controls[E + 3], MN_CHARACTER_GAZE_YAW_LIMIT, 0.0);
    /* Low and near in front: they look down (pitch > 0), clamped too. */
    f.look_at[0] = 0.0f, f.look_at[1] = 0.0f, f.look_at[2] = 0.5f;
    update(rt, &f);
    assert_float_equal(v->head_controls[E], MN_CHARACTER_GAZE_PITCH_LIMIT, 0.0);
    /* A little up and to the right: a small turn, within the limits. */
    f.look_at[0] = -0.3f, f.look_at[1] = 1.9f, f.look_at[2] = 2.0f;
    update(rt, &f);
    assert_true(v->head_controls[E] < 0.0f && v->head_controls[E] > -MN_CHARACTER_GAZE_PITCH_LIMIT);
    assert_true(v->head_controls[E + 1] < 0.0f &&
                v->head_controls[E + 1] > -MN_CHARACTER_GAZE_YAW_LIMIT);
    /* the eyes' vertices moved, the rest of the head did not */
    uint32_t eye_first = V - 2 * 20;
    assert_memory_equal(v->head_vertices, still, (size_t)eye_first * 12);
    assert_memory_not_equal(v->head_vertices + 3 * eye_first, still + 3 * eye_first, 40 * 12);
    free(still);
    mn_character_runtime_free(rt);
    drop(fx);
}

/* ---- correctives and the mouth ----------------------------------------------------------- */

static void correctives_switch_on_as_the_arm_rises(void **state)
{
    (void)state;
    fixture *fx = make(NULL);
    const mn_character *c = fx->character;
    mn_character_runtime *rt = runtime_of(c, 1, 0);
    mn_character_runtime_use_pose(rt);
    mn_error err = {0};
    uint32_t J = c->skeleton->joint_count, arm = mn_soma_skeleton_find(c->skeleton, "LeftArm");
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, J, NULL, &err), MN_OK);
    const mn_character_views *v = mn_character_runtime_views(rt);
    static const float degrees[5] = {0, 50, 90, 130, 170};
    float last = -1.0f;
    for (int i = 0; i < 5; i++) {
        mn_pose_copy(&pose, mn_character_runtime_rest_pose(rt));
        static const float z[3] = {0, 0, 1};
        mn_quat_from_axis_angle(pose.rotations + 4 * arm, z, degrees[i] * 3.14159265f / 180.0f);
        update(rt, &(mn_character_frame){.pose = &pose});
        assert_float_equal(v->corrective_angles[0], degrees[i], 0.01);
        assert_float_equal(v->corrective_angles[1], 0.0f, 0.01); /* the right arm hangs */
        assert_float_equal(v->corrective_weights[1], 0.0f, 0.0);
        assert_true(v->corrective_weights[0] >= last);
        last = v->corrective_weights[0];
        if (degrees[i] <= 60.0f)
            assert_float_equal(v->corrective_weights[0], 0.0f, 0.0);
        else if (degrees[i] >= 120.0f)
            assert_float_equal(v->corrective_weights[0], 1.0f, 0.0);
        else
            assert_true(v->corrective_weights[0] > 0.0f && v->corrective_weights[0] < 1.0f);
    }
    mn_character_runtime_set_correctives(rt, false);
    update(rt, &(mn_character_frame){.pose = &pose});
    assert_float_equal(v->corrective_weights[0], 0.0f, 0.0);
    assert_float_equal(v->corrective_angles[0], 170.0f, 0.01);
    mn_pose_free(&pose);
    mn_character_runtime_free(rt);
    drop(fx);
}

static void the_mouth_hides_until_the_jaw_opens(void **state)
{
    (void)state;
    fixture *fx = make(NULL);
    const mn_character *c = fx->character;
    mn_character_runtime *rt = runtime_of(c, 1, 0);
    mn_character_runtime *closed = runtime_of(c, 1, MN_CHARACTER_RUN_MOUTH);
    assert_int_equal(mn_character_runtime_skipped(closed), MN_CHARACTER_RUN_MOUTH);
    const mn_character_views *v = mn_character_runtime_views(rt);
    const mn_character_views *w = mn_character_runtime_views(closed);
    const mn_mouth_hidden *m = c->mouth;
    static const float jaw[5] = {0.0f, 0.02f, 0.05f, 0.2f, 1.0f};
    float last[16];
    for (int i = 0; i < 5; i++) {
        update(rt, &(mn_character_frame){.arkit = arkit(jaw[i], 0, 0), .arkit_count = 52});
        update(closed, &(mn_character_frame){.arkit = arkit(jaw[i], 0, 0), .arkit_count = 52});
        for (uint32_t k = 0; k < m->count; k++) {
            uint32_t row = m->entries[k].row;
            float base = sigmoid(c->splats.opacities[row]);
            float a = v->splat_opacities[row];
            if (i == 0)
                assert_float_equal(a, base, 1e-7);       /* closed lips: as stored */
            else
                assert_true(a <= last[k]);                /* fading as the jaw opens */
            if (i == 4)
                assert_float_equal(a, 0.0f, 0.0);         /* wide open: gone */
            last[k] = a;
            float push = m->entries[k].kind == MN_MOUTH_PLUG ? 0.003f : 0.0f;
            float dz = w->splat_centres[3 * row + 2] - v->splat_centres[3 * row + 2];
            if (i == 0)
                assert_float_equal(dz, 0.0f, 0.0);
            if (i == 4)
                assert_float_equal(dz, push, 1e-6);        /* back along forward (+z) */
        }
    }
    mn_character_runtime_free(closed);
    mn_character_runtime_free(rt);
    drop(fx);
}

/* ---- what a package lacks ---------------------------------------------------------------- */

static void a_package_without_optional_parts_runs_what_remains(void **state)
{
    (void)state;
    fixture *fx = make(&(synthetic_character_options){.no_head = true, .no_corrective = true});
    const mn_character *c = fx->character;
    assert_null(c->head);
    mn_character_runtime *rt = runtime_of(c, 2, 0);
    assert_int_equal(mn_character_runtime_skipped(rt),
                     MN_CHARACTER_RUN_HEAD | MN_CHARACTER_RUN_FACE | MN_CHARACTER_RUN_CORRECTIVE |
                         MN_CHARACTER_RUN_MOUTH);
    char why[256];
    mn_character_runtime_describe_skipped(rt, why, sizeof why);
    assert_string_equal(why, "head: the package has none; face: the package has none; "
                             "corrective: the package has none; mouth: the package has none");
    mn_error err = {0};
    assert_int_equal(mn_character_runtime_play(rt, "raise", NULL, &err), MN_OK);
    update(rt, &(mn_character_frame){.dt = 0.8f, .arkit = arkit(1, 0, 0), .arkit_count = 52,
                                     .look = true, .look_at = {1, 1, 1}});
    const mn_character_views *v = mn_character_runtime_views(rt);
    float controls[5] = {1, 1, 1, 1, 1};
    update(rt, &(mn_character_frame){.controls = controls, .control_count = 5}); /* ignored */
    assert_null(v->head_vertices);
    assert_int_equal(v->head_vertex_count, 0);
    for (uint32_t s = 0; s < MN_CORRECTIVE_SLOTS; s++)
        assert_float_equal(v->corrective_weights[s], 0.0f, 0.0);
    /* the splats still follow the body */
    uint32_t J = c->skeleton->joint_count, N = c->splats.count;
    float *centres = malloc((size_t)N * 12), *rots = malloc((size_t)N * 16);
    mn_splat_skin_job job = {
        .count = N, .influences = c->bindings.influences, .joints = c->bindings.joints,
        .weights = c->bindings.weights, .palette = v->skin_matrices, .palette_count = J,
        .centres = c->splats.centres, .rotations = c->splats.rotations,
        .translation = {c->ply_translation[0], c->ply_translation[1], c->ply_translation[2]},
        .out_centres = centres, .out_rotations = rots};
    assert_int_equal(mn_splat_skin_run(&job, MN_SIMD_BEST), MN_OK);
    assert_memory_equal(v->splat_centres, centres, (size_t)N * 12);
    assert_memory_equal(v->splat_rotations, rots, (size_t)N * 16);
    free(centres);
    free(rots);
    mn_character_runtime_free(rt);
    drop(fx);

    /* a head without its face map or mouth list: ARKit weights are not read */
    fx = make(&(synthetic_character_options){.no_face = true, .no_mouth = true});
    rt = runtime_of(fx->character, 1, 0);
    assert_int_equal(mn_character_runtime_skipped(rt),
                     MN_CHARACTER_RUN_FACE | MN_CHARACTER_RUN_MOUTH);
    update(rt, &(mn_character_frame){.arkit = arkit(1, 1, 1), .arkit_count = 52});
    v = mn_character_runtime_views(rt);
    for (uint32_t i = 0; i < v->head_control_count; i++)
        assert_float_equal(v->head_controls[i], 0.0f, 0.0);
    mn_character_runtime_free(rt);
    drop(fx);
}

/* ---- purity ---------------------------------------------------------------------------- */

static void a_frame_allocates_nothing_and_repeats(void **state)
{
    (void)state;
    fixture *fx = make(&(synthetic_character_options){.splats = 5000});
    const mn_character *c = fx->character;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_character_runtime_options o = {.allocator = mn_counting_allocator(&counter), .threads = 2};
    mn_character_runtime *rt = NULL, *one = NULL;
    mn_error err = {0};
    assert_int_equal(mn_character_runtime_create(c, &o, &rt, &err), MN_OK);
    one = runtime_of(c, 1, 0);
    size_t allocs = counter.allocs;
    mn_joint_override aim = {"head", {0, 0.0998334f, 0, 0.9950042f}};
    for (int pass = 0; pass < 2; pass++) {
        mn_character_runtime *r = pass ? one : rt;
        assert_int_equal(mn_character_runtime_play(r, "idle", NULL, &err), MN_OK);
        for (int i = 0; i < 3; i++) {
            mn_character_frame f = {.dt = 0.05f, .arkit = arkit(0.1f * (float)i, 0.2f, 0.3f),
                                    .arkit_count = 52, .look = true, .look_at = {0.2f, 1.6f, 1},
                                    .overrides = &aim, .override_count = 1};
            update(r, &f);
        }
        assert_int_equal(mn_character_runtime_play(r, "raise", &(mn_play_options){.fade = 0.1f},
                                                   &err),
                         MN_OK);
        update(r, &(mn_character_frame){.dt = 0.04f});
    }
    assert_int_equal(counter.allocs, allocs);
    const mn_character_views *a = mn_character_runtime_views(rt), *b = mn_character_runtime_views(one);
    assert_memory_equal(a->joint_worlds, b->joint_worlds, (size_t)a->joint_count * 64);
    assert_memory_equal(a->head_vertices, b->head_vertices, (size_t)a->head_vertex_count * 12);
    assert_memory_equal(a->head_normals, b->head_normals, (size_t)a->head_vertex_count * 12);
    assert_memory_equal(a->splat_centres, b->splat_centres, (size_t)a->splat_count * 12);
    assert_memory_equal(a->splat_rotations, b->splat_rotations, (size_t)a->splat_count * 16);
    assert_memory_equal(a->splat_opacities, b->splat_opacities, (size_t)a->splat_count * 4);
    mn_character_runtime_free(one);
    mn_character_runtime_free(rt);
    assert_int_equal(counter.live_bytes, 0);
    drop(fx);
}

static void bad_input_is_refused(void **state)
{
    (void)state;
    fixture *fx = make(NULL);
    mn_character_runtime *rt = NULL;
    mn_error err = {0};
    assert_int_equal(mn_character_runtime_create(NULL, NULL, &rt, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_character_runtime_create(fx->character,
                                                 &(mn_character_runtime_options){
                                                     .gaze_yaw_limit = -1.0f},
                                                 &rt, &err),
                     MN_INVALID_ARGUMENT);
    rt = runtime_of(fx->character, 1, 0);
    assert_int_equal(mn_character_runtime_play(rt, "nope", NULL, &err), MN_INVALID_VALUE);
    float w[53] = {0};
    assert_int_equal(mn_character_runtime_update(
                         rt, &(mn_character_frame){.arkit = w, .arkit_count = 53}, &err),
                     MN_INVALID_ARGUMENT);
    mn_joint_override zero = {"head", {0, 0, 0, 0}};
    assert_int_equal(mn_character_runtime_update(
                         rt, &(mn_character_frame){.overrides = &zero, .override_count = 1}, &err),
                     MN_INVALID_ARGUMENT);
    assert_int_equal(mn_character_runtime_update(
                         rt, &(mn_character_frame){.look = true, .look_at = {NAN, 0, 0}}, &err),
                     MN_INVALID_ARGUMENT);
    mn_character_runtime_free(rt);
    drop(fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_frame_equals_its_parts),
        cmocka_unit_test(a_crossfade_blends_from_the_live_pose),
        cmocka_unit_test(a_blend_tree_drives_the_body),
        cmocka_unit_test(a_state_machine_drives_the_body),
        cmocka_unit_test(a_centimetre_head_poses_in_metres),
        cmocka_unit_test(a_head_joint_the_body_lacks_follows_and_turns),
        cmocka_unit_test(face_controls_go_through_the_face_map),
        cmocka_unit_test(gaze_turns_the_eyes_toward_a_target),
        cmocka_unit_test(correctives_switch_on_as_the_arm_rises),
        cmocka_unit_test(the_mouth_hides_until_the_jaw_opens),
        cmocka_unit_test(a_package_without_optional_parts_runs_what_remains),
        cmocka_unit_test(a_frame_allocates_nothing_and_repeats),
        cmocka_unit_test(bad_input_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
