/*
 * Spaces (marionette/pose.h, SPACES): a clip records what its targets index
 * — the nodes of a model or the joints of a skeleton — and sampling, blend
 * trees and state machines refuse a pose of another space rather than
 * animate the wrong joints.  (The mixer's check is in test_mixer.c.)
 *
 * CesiumMan is the case that went silently wrong: 22 nodes, a skeleton of
 * 21 joints (its 19 skin joints and their ancestors), and a glTF animation
 * whose channels name nodes.  The synthetic cases need no asset.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/blend.h>
#include <marionette/blend_tree.h>
#include <marionette/clip.h>
#include <marionette/gltf.h>
#include <marionette/pose.h>
#include <marionette/skeleton.h>
#include <marionette/state_machine.h>

#include "assets.h"
#include "counting_alloc.h"

#include <stdio.h>
#include <string.h>

#define CESIUM_MAN mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb")
#define RIGGED_FIGURE mn_test_asset("gltf/RiggedFigure/glTF-Binary/RiggedFigure.glb")

/* Two made-up spaces of 3 joints, and a clip over each: joint 0 slides along x. */
static const mn_space SPACE_A = {.kind = MN_SPACE_JOINTS, .count = 3, .id = 0xa};
static const mn_space SPACE_B = {.kind = MN_SPACE_JOINTS, .count = 3, .id = 0xb};

static mn_clip *slide(mn_space space, uint32_t target)
{
    static const float times[2] = {0.0f, 1.0f}, values[6] = {0, 0, 0, 1, 0, 0};
    mn_track track = {.target = target, .path = MN_PATH_TRANSLATION,
                      .interpolation = MN_INTERP_LINEAR, .key_count = 2, .components = 3,
                      .times = times, .values = values};
    mn_clip *clip = NULL;
    mn_error err;
    assert_int_equal(mn_clip_create(&track, 1, "slide", &(mn_clip_options){.space = space},
                                    &clip, &err), MN_OK);
    return clip;
}

/* A pose of `count` joints, bound to space (a zeroed space leaves it unbound). */
static void make_pose(mn_pose *pose, uint32_t count, mn_space space)
{
    mn_error err;
    assert_int_equal(mn_pose_create(pose, count, NULL, &err), MN_OK);
    assert_int_equal(mn_pose_bind(pose, space, &err), MN_OK);
}

static void assert_pose_is_identity(const mn_pose *pose)
{
    mn_pose identity;
    assert_int_equal(mn_pose_create(&identity, pose->joint_count, NULL, NULL), MN_OK);
    size_t n = pose->joint_count;
    assert_memory_equal(pose->translations, identity.translations, 3 * sizeof(float) * n);
    assert_memory_equal(pose->rotations, identity.rotations, 4 * sizeof(float) * n);
    mn_pose_free(&identity);
}

/* ---- poses and clips ------------------------------------------------------------ */

static void a_pose_is_bound_by_bind_or_by_a_whole_copy_of_a_bound_pose(void **state)
{
    (void)state;
    mn_pose a, loose, small;
    make_pose(&a, 3, SPACE_A);
    make_pose(&loose, 3, (mn_space){0});
    make_pose(&small, 2, (mn_space){0});
    assert_int_equal(loose.space.kind, MN_SPACE_UNBOUND);
    mn_error err;
    /* A space of another count does not bind; an unknown kind is refused. */
    assert_int_equal(mn_pose_bind(&small, SPACE_A, &err), MN_COUNT_MISMATCH);
    assert_int_equal(small.space.kind, MN_SPACE_UNBOUND);
    assert_int_equal(mn_pose_bind(&small, (mn_space){.kind = (mn_space_kind)7, .count = 2}, &err),
                     MN_INVALID_ARGUMENT);
    assert_int_equal(mn_pose_bind(NULL, SPACE_A, &err), MN_INVALID_ARGUMENT);
    /* A whole copy binds an unbound pose; a part copy does not; a bound pose keeps its own. */
    mn_pose_copy(&small, &a);
    assert_int_equal(small.space.kind, MN_SPACE_UNBOUND);
    mn_pose_copy(&loose, &a);
    assert_true(loose.space.kind == SPACE_A.kind && loose.space.id == SPACE_A.id);
    mn_pose b;
    make_pose(&b, 3, SPACE_B);
    mn_pose_copy(&b, &a);
    assert_true(b.space.id == SPACE_B.id);
    /* A zeroed space unbinds. */
    assert_int_equal(mn_pose_bind(&b, (mn_space){0}, &err), MN_OK);
    assert_int_equal(b.space.kind, MN_SPACE_UNBOUND);
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&loose);
    mn_pose_free(&small);
}

static void a_bound_clip_keeps_its_targets_inside_its_space(void **state)
{
    (void)state;
    static const float times[2] = {0.0f, 1.0f}, values[6] = {0};
    mn_track track = {.target = 3, .path = MN_PATH_TRANSLATION, .interpolation = MN_INTERP_LINEAR,
                      .key_count = 2, .components = 3, .times = times, .values = values};
    mn_clip *clip = (mn_clip *)1;
    mn_error err;
    assert_int_equal(mn_clip_create(&track, 1, "far", &(mn_clip_options){.space = SPACE_A}, &clip,
                                    &err), MN_INDEX_RANGE);
    assert_null(clip);
    assert_string_equal(err.path, "tracks[0]");
    mn_space odd = {.kind = (mn_space_kind)9, .count = 4};
    assert_int_equal(mn_clip_create(&track, 1, "far", &(mn_clip_options){.space = odd}, &clip,
                                    &err), MN_INVALID_ARGUMENT);
    /* Unbound, the same track is the caller's business. */
    assert_int_equal(mn_clip_create(&track, 1, "far", NULL, &clip, &err), MN_OK);
    assert_int_equal(mn_clip_space(clip).kind, MN_SPACE_UNBOUND);
    mn_clip_free(clip);
    assert_int_equal(mn_clip_space(NULL).kind, MN_SPACE_UNBOUND);
}

static void sampling_refuses_a_clip_of_another_space_and_leaves_the_pose(void **state)
{
    (void)state;
    mn_clip *a = slide(SPACE_A, 0), *loose = slide((mn_space){0}, 0);
    mn_pose in_a, in_b, unbound, bigger;
    make_pose(&in_a, 3, SPACE_A);
    make_pose(&in_b, 3, SPACE_B);
    make_pose(&unbound, 3, (mn_space){0});
    make_pose(&bigger, 4, (mn_space){0});
    mn_error err;
    assert_int_equal(mn_clip_sample(a, 0.5f, &in_a, &err), MN_OK);
    assert_int_equal(err.code, MN_OK);
    assert_float_equal(in_a.translations[0], 0.5f, 0.0f);
    /* Another space of the same count: refused, both named, the pose untouched. */
    assert_int_equal(mn_clip_sample(a, 0.5f, &in_b, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "clip \"slide\""));
    assert_non_null(strstr(err.message, "space 000000000000000a"));
    assert_non_null(strstr(err.message, "space 000000000000000b"));
    assert_pose_is_identity(&in_b);
    /* An unbound pose of the clip's count fits; of another count it does not. */
    assert_int_equal(mn_clip_sample(a, 0.5f, &unbound, &err), MN_OK);
    assert_int_equal(mn_clip_sample(a, 0.5f, &bigger, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "4 joints of no recorded space"));
    assert_pose_is_identity(&bigger);
    /* With a cursor, the same. */
    _Alignas(16) unsigned char storage[64];
    assert_true(mn_clip_cursor_storage_size(a) <= sizeof storage);
    mn_clip_cursor cursor;
    mn_clip_cursor_init(&cursor, a, storage);
    assert_int_equal(mn_clip_sample_cursor(a, 0.5f, &cursor, &in_b, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_clip_sample_cursor(a, 0.5f, &cursor, &in_a, &err), MN_OK);
    /* An unbound clip fits any pose; NULLs are errors. */
    assert_int_equal(mn_clip_sample(loose, 0.5f, &in_b, &err), MN_OK);
    assert_int_equal(mn_clip_sample(loose, 0.5f, &bigger, &err), MN_OK);
    assert_int_equal(mn_clip_sample(NULL, 0.5f, &in_a, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_clip_sample(a, 0.5f, NULL, NULL), MN_INVALID_ARGUMENT);
    mn_pose_free(&in_a);
    mn_pose_free(&in_b);
    mn_pose_free(&unbound);
    mn_pose_free(&bigger);
    mn_clip_free(a);
    mn_clip_free(loose);
}

static void an_additive_clip_stays_in_its_clips_space(void **state)
{
    (void)state;
    mn_clip *a = slide(SPACE_A, 0), *delta = NULL;
    mn_pose ref_a, ref_b;
    make_pose(&ref_a, 3, SPACE_A);
    make_pose(&ref_b, 3, SPACE_B);
    mn_error err;
    assert_int_equal(mn_clip_create_additive(a, &ref_b, NULL, &delta, &err), MN_INVALID_ARGUMENT);
    assert_null(delta);
    assert_int_equal(mn_clip_create_additive(a, &ref_a, NULL, &delta, &err), MN_OK);
    assert_true(mn_clip_space(delta).kind == SPACE_A.kind && mn_clip_space(delta).id == SPACE_A.id);
    mn_clip_free(delta);
    mn_pose_free(&ref_a);
    mn_pose_free(&ref_b);
    mn_clip_free(a);
}

static void the_node_space_names_the_hierarchy_not_the_copy(void **state)
{
    (void)state;
    mn_node one[2], two[2];
    memset(one, 0, sizeof one);
    one[0] = (mn_node){.name = "hips", .parent = MN_NONE};
    one[1] = (mn_node){.name = "knee", .parent = 0};
    memcpy(two, one, sizeof one);
    mn_model m1, m2;
    memset(&m1, 0, sizeof m1);
    m1.nodes = one;
    m1.node_count = 2;
    m2 = m1;
    m2.nodes = two;
    mn_space s1 = mn_space_of_nodes(&m1), s2 = mn_space_of_nodes(&m2);
    assert_int_equal(s1.kind, MN_SPACE_NODES);
    assert_int_equal(s1.count, 2);
    assert_true(s1.id == s2.id); /* another copy of the same hierarchy: one space */
    two[1].name = "elbow";
    assert_true(mn_space_of_nodes(&m2).id != s1.id);
    two[1].name = "knee";
    two[1].parent = MN_NONE;
    assert_true(mn_space_of_nodes(&m2).id != s1.id);
    assert_int_equal(mn_space_of_nodes(NULL).kind, MN_SPACE_UNBOUND);
}

/* ---- blend trees and state machines -------------------------------------------- */

static void a_blend_tree_takes_one_space_and_refuses_poses_of_another(void **state)
{
    (void)state;
    mn_clip *a = slide(SPACE_A, 0), *b = slide(SPACE_B, 1), *loose = slide((mn_space){0}, 2);
    mn_clip *four = slide((mn_space){.kind = MN_SPACE_NODES, .count = 4, .id = 0xc}, 0);
    mn_blend_node nodes[3] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = a},
        {.kind = MN_BLEND_NODE_CLIP, .clip = b},
        {.kind = MN_BLEND_NODE_LERP, .a = 0, .b = 1, .parameter = "mix"},
    };
    mn_blend_tree *tree = (mn_blend_tree *)1;
    mn_error err;
    mn_blend_tree_desc desc = {.nodes = nodes, .node_count = 3, .root = 2, .joint_count = 3};
    /* Clips of two spaces cannot be blended: the second is named. */
    assert_int_equal(mn_blend_tree_create(&desc, &tree, &err), MN_INVALID_ARGUMENT);
    assert_null(tree);
    assert_string_equal(err.path, "nodes[1].clip");
    assert_non_null(strstr(err.message, "space 000000000000000b"));
    /* Nor a clip of another joint count. */
    nodes[1].clip = four;
    assert_int_equal(mn_blend_tree_create(&desc, &tree, &err), MN_INVALID_ARGUMENT);
    assert_string_equal(err.path, "nodes[1].clip");
    /* Nor a clip that is not the bind pose's space. */
    mn_pose bind_b;
    make_pose(&bind_b, 3, SPACE_B);
    nodes[1].clip = loose;
    desc.bind = &bind_b;
    assert_int_equal(mn_blend_tree_create(&desc, &tree, &err), MN_INVALID_ARGUMENT);
    assert_string_equal(err.path, "nodes[0].clip");
    /* One space and an unbound clip make a tree of that space. */
    desc.bind = NULL;
    assert_int_equal(mn_blend_tree_create(&desc, &tree, &err), MN_OK);
    assert_true(mn_blend_tree_space(tree).id == SPACE_A.id);
    assert_int_equal(mn_blend_tree_set(tree, "mix", 0.5f, &err), MN_OK);
    mn_pose in_a, in_b, unbound;
    make_pose(&in_a, 3, SPACE_A);
    make_pose(&in_b, 3, SPACE_B);
    make_pose(&unbound, 3, (mn_space){0});
    assert_int_equal(mn_blend_tree_evaluate(tree, 0.5f, &in_b, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "the blend tree"));
    assert_pose_is_identity(&in_b);
    assert_int_equal(mn_blend_tree_evaluate(tree, 0.5f, &in_a, &err), MN_OK);
    assert_int_equal(mn_blend_tree_evaluate(tree, 0.5f, &unbound, &err), MN_OK);
    assert_memory_equal(in_a.translations, unbound.translations, 9 * sizeof(float));
    /* Evaluation checks in O(1) and allocates nothing. */
    mn_blend_tree_free(tree);
    mn_counting_alloc counter = mn_counting_alloc_make();
    desc.allocator = mn_counting_allocator(&counter);
    assert_int_equal(mn_blend_tree_create(&desc, &tree, &err), MN_OK);
    size_t allocs = counter.allocs;
    for (int k = 0; k < 10; k++) {
        assert_int_equal(mn_blend_tree_evaluate(tree, 0.1f * (float)k, &in_a, &err), MN_OK);
        assert_int_equal(mn_blend_tree_evaluate(tree, 0.1f * (float)k, &in_b, &err),
                         MN_INVALID_ARGUMENT);
    }
    assert_int_equal(counter.allocs, allocs);
    mn_blend_tree_free(tree);
    mn_pose_free(&bind_b);
    mn_pose_free(&in_a);
    mn_pose_free(&in_b);
    mn_pose_free(&unbound);
    mn_clip_free(a);
    mn_clip_free(b);
    mn_clip_free(loose);
    mn_clip_free(four);
}

static void a_state_machine_refuses_a_pose_of_another_space_even_mid_fade(void **state)
{
    (void)state;
    mn_clip *x = slide(SPACE_A, 0), *y = slide(SPACE_A, 1), *b = slide(SPACE_B, 1);
    mn_blend_node nodes[2] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = x},
        {.kind = MN_BLEND_NODE_CLIP, .clip = y},
    };
    const mn_sm_state states[] = {{"X", 0}, {"Y", 1}};
    const mn_sm_transition go = {.from = 0, .to = 1, .duration = 1.0f, .has_exit_time = true,
                                 .exit_time = 0.1f};
    mn_state_machine_desc desc = {.nodes = nodes, .node_count = 2, .joint_count = 3,
                                  .states = states, .state_count = 2, .transitions = &go,
                                  .transition_count = 1};
    mn_state_machine *sm = NULL;
    mn_error err;
    /* A state's clip of another space is refused when the machine is built. */
    nodes[1].clip = b;
    assert_int_equal(mn_state_machine_create(&desc, &sm, &err), MN_INVALID_ARGUMENT);
    assert_null(sm);
    nodes[1].clip = y;
    assert_int_equal(mn_state_machine_create(&desc, &sm, &err), MN_OK);
    mn_pose in_a, in_b;
    make_pose(&in_a, 3, SPACE_A);
    make_pose(&in_b, 3, SPACE_B);
    assert_int_equal(mn_state_machine_evaluate(sm, &in_b, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "the state machine"));
    assert_int_equal(mn_state_machine_evaluate(sm, &in_a, &err), MN_OK);
    /* Past the exit time the machine fades X to Y: its output goes through a blend. */
    assert_int_equal(mn_state_machine_update(sm, 0.2f, NULL, 0, NULL, &err), MN_OK);
    assert_int_equal(mn_state_machine_update(sm, 0.2f, NULL, 0, NULL, &err), MN_OK);
    assert_int_equal(mn_state_machine_current(sm), 1);
    assert_int_equal(mn_state_machine_evaluate(sm, &in_b, &err), MN_INVALID_ARGUMENT);
    assert_pose_is_identity(&in_b);
    assert_int_equal(mn_state_machine_evaluate(sm, &in_a, &err), MN_OK);
    mn_state_machine_free(sm);
    mn_pose_free(&in_a);
    mn_pose_free(&in_b);
    mn_clip_free(x);
    mn_clip_free(y);
    mn_clip_free(b);
}

/* ---- CesiumMan: a clip of nodes, a pose of joints -------------------------------- */

typedef struct cesium {
    mn_model *model;
    mn_skeleton *skeleton;
} cesium;

static void load_cesium(cesium *c)
{
    mn_error err;
    assert_int_equal(mn_gltf_read_file(CESIUM_MAN, NULL, &c->model, &err), MN_OK);
    assert_int_equal(mn_skeleton_from_skin(c->model, 0, NULL, &c->skeleton, &err), MN_OK);
    /* The premise: node j is not joint j, and there are fewer joints than nodes. */
    assert_int_equal(c->model->node_count, 22);
    assert_true(c->skeleton->joint_count < c->model->node_count);
}

static void free_cesium(cesium *c)
{
    mn_skeleton_free(c->skeleton);
    mn_model_free(c->model);
}

static void a_clip_of_nodes_on_a_pose_of_joints_is_refused_naming_both(void **state)
{
    (void)state;
    mn_test_need_assets();
    cesium c;
    load_cesium(&c);
    mn_clip *nodes = NULL;
    mn_error err;
    assert_int_equal(mn_clip_from_gltf(c.model, 0, NULL, &nodes, &err), MN_OK);
    mn_space node_space = mn_space_of_nodes(c.model);
    assert_int_equal(mn_clip_space(nodes).kind, MN_SPACE_NODES);
    assert_true(mn_clip_space(nodes).id == node_space.id);
    /* The skeleton's rest pose, and a pose copied from it, hold the skeleton's joints. */
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, c.skeleton->joint_count, NULL, &err), MN_OK);
    mn_pose_copy(&pose, &c.skeleton->rest);
    assert_true(pose.space.kind == MN_SPACE_JOINTS && pose.space.id == c.skeleton->space.id);
    assert_int_equal(mn_clip_sample(nodes, 0.5f, &pose, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(err.code, MN_INVALID_ARGUMENT);
    char joints[64];
    snprintf(joints, sizeof joints, "the %u joints of a skeleton", c.skeleton->joint_count);
    assert_non_null(strstr(err.message, "the 22 nodes of a model"));
    assert_non_null(strstr(err.message, joints));
    assert_non_null(strstr(err.message, "mn_clip_from_gltf_skeleton"));
    /* Nothing was written: the pose is still the rest pose. */
    assert_memory_equal(pose.rotations, c.skeleton->rest.rotations,
                        4 * sizeof(float) * c.skeleton->joint_count);
    /* An unbound pose of the joint count is refused too: its count is not the clip's. */
    mn_pose bare;
    assert_int_equal(mn_pose_create(&bare, c.skeleton->joint_count, NULL, &err), MN_OK);
    assert_int_equal(mn_clip_sample(nodes, 0.5f, &bare, &err), MN_INVALID_ARGUMENT);
    /* A pose of every node takes it. */
    mn_pose all;
    assert_int_equal(mn_pose_create(&all, c.model->node_count, NULL, &err), MN_OK);
    assert_int_equal(mn_pose_bind(&all, node_space, &err), MN_OK);
    assert_int_equal(mn_clip_sample(nodes, 0.5f, &all, &err), MN_OK);
    mn_pose_free(&all);
    mn_pose_free(&bare);
    mn_pose_free(&pose);
    mn_clip_free(nodes);
    free_cesium(&c);
}

static void the_skeleton_constructor_gives_the_pose_of_the_manual_target_map(void **state)
{
    (void)state;
    mn_test_need_assets();
    cesium c;
    load_cesium(&c);
    mn_clip *bound = NULL, *manual = NULL;
    mn_error err;
    assert_int_equal(mn_clip_from_gltf_skeleton(c.model, 0, c.skeleton, NULL, &bound, &err), MN_OK);
    mn_clip_options options = {.target_map = c.skeleton->joint_of_node,
                               .target_map_count = c.skeleton->node_count};
    assert_int_equal(mn_clip_from_gltf(c.model, 0, &options, &manual, &err), MN_OK);
    assert_true(mn_clip_space(bound).kind == MN_SPACE_JOINTS &&
                mn_clip_space(bound).id == c.skeleton->space.id);
    assert_int_equal(mn_clip_space(manual).kind, MN_SPACE_UNBOUND);
    mn_pose p1, p2;
    assert_int_equal(mn_pose_create(&p1, c.skeleton->joint_count, NULL, &err), MN_OK);
    assert_int_equal(mn_pose_create(&p2, c.skeleton->joint_count, NULL, &err), MN_OK);
    float d = mn_clip_duration(bound);
    for (int k = 0; k <= 10; k++) {
        float t = d * (float)k / 10.0f;
        mn_pose_copy(&p1, &c.skeleton->rest);
        mn_pose_copy(&p2, &c.skeleton->rest);
        assert_int_equal(mn_clip_sample(bound, t, &p1, &err), MN_OK);
        assert_int_equal(mn_clip_sample(manual, t, &p2, &err), MN_OK);
        assert_memory_equal(p1.translations, p2.translations, 3 * sizeof(float) * p1.joint_count);
        assert_memory_equal(p1.rotations, p2.rotations, 4 * sizeof(float) * p1.joint_count);
        assert_memory_equal(p1.scales, p2.scales, 3 * sizeof(float) * p1.joint_count);
    }
    /* The clip of joints is refused by a pose of every node. */
    mn_pose all;
    assert_int_equal(mn_pose_create(&all, c.model->node_count, NULL, &err), MN_OK);
    assert_int_equal(mn_clip_sample(bound, 0.5f, &all, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_pose_bind(&all, mn_space_of_nodes(c.model), &err), MN_OK);
    assert_int_equal(mn_clip_sample(bound, 0.5f, &all, &err), MN_INVALID_ARGUMENT);
    /* A skeleton made again from the same skin is the same space. */
    mn_skeleton *again = NULL;
    assert_int_equal(mn_skeleton_from_skin(c.model, 0, NULL, &again, &err), MN_OK);
    assert_true(again->space.id == c.skeleton->space.id);
    assert_int_equal(mn_clip_sample(bound, 0.5f, &again->rest, &err), MN_OK);
    mn_skeleton_free(again);
    mn_pose_free(&all);
    mn_pose_free(&p1);
    mn_pose_free(&p2);
    mn_clip_free(bound);
    mn_clip_free(manual);
    free_cesium(&c);
}

static void the_skeleton_constructor_refuses_another_models_skeleton_and_a_map(void **state)
{
    (void)state;
    mn_test_need_assets();
    cesium c;
    load_cesium(&c);
    mn_model *figure = NULL;
    mn_skeleton *figure_skeleton = NULL, *all_nodes = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_file(RIGGED_FIGURE, NULL, &figure, &err), MN_OK);
    assert_int_equal(mn_skeleton_from_skin(figure, 0, NULL, &figure_skeleton, &err), MN_OK);
    mn_clip *clip = (mn_clip *)1;
    assert_int_equal(mn_clip_from_gltf_skeleton(c.model, 0, figure_skeleton, NULL, &clip, &err),
                     MN_INVALID_ARGUMENT);
    assert_null(clip);
    assert_non_null(strstr(err.message, "another model"));
    mn_clip_options map = {.target_map = c.skeleton->joint_of_node,
                           .target_map_count = c.skeleton->node_count};
    assert_int_equal(mn_clip_from_gltf_skeleton(c.model, 0, c.skeleton, &map, &clip, &err),
                     MN_INVALID_ARGUMENT);
    assert_int_equal(mn_clip_from_gltf_skeleton(c.model, 0, NULL, NULL, &clip, &err),
                     MN_INVALID_ARGUMENT);
    assert_int_equal(mn_clip_from_gltf_skeleton(c.model, 9, c.skeleton, NULL, &clip, &err),
                     MN_INDEX_RANGE);
    /* A skeleton of every node is a space of joints, not the model's nodes. */
    assert_int_equal(mn_skeleton_from_nodes(c.model, NULL, &all_nodes, &err), MN_OK);
    assert_int_equal(mn_clip_from_gltf_skeleton(c.model, 0, all_nodes, NULL, &clip, &err), MN_OK);
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, c.model->node_count, NULL, &err), MN_OK);
    assert_int_equal(mn_pose_bind(&pose, mn_space_of_nodes(c.model), &err), MN_OK);
    assert_int_equal(mn_clip_sample(clip, 0.5f, &pose, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_clip_sample(clip, 0.5f, &all_nodes->rest, &err), MN_OK);
    mn_pose_free(&pose);
    mn_clip_free(clip);
    mn_skeleton_free(all_nodes);
    mn_skeleton_free(figure_skeleton);
    mn_model_free(figure);
    free_cesium(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_pose_is_bound_by_bind_or_by_a_whole_copy_of_a_bound_pose),
        cmocka_unit_test(a_bound_clip_keeps_its_targets_inside_its_space),
        cmocka_unit_test(sampling_refuses_a_clip_of_another_space_and_leaves_the_pose),
        cmocka_unit_test(an_additive_clip_stays_in_its_clips_space),
        cmocka_unit_test(the_node_space_names_the_hierarchy_not_the_copy),
        cmocka_unit_test(a_blend_tree_takes_one_space_and_refuses_poses_of_another),
        cmocka_unit_test(a_state_machine_refuses_a_pose_of_another_space_even_mid_fade),
        cmocka_unit_test(a_clip_of_nodes_on_a_pose_of_joints_is_refused_naming_both),
        cmocka_unit_test(the_skeleton_constructor_gives_the_pose_of_the_manual_target_map),
        cmocka_unit_test(the_skeleton_constructor_refuses_another_models_skeleton_and_a_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
