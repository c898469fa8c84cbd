/*
 * Skeletons (src/anim/skeleton.c): building from a skin or from the node
 * hierarchy (parent-first depth-first order, ancestors of the joints, the
 * mappings, subtree ranges), local-to-world (full and partial) against the
 * model's own rest worlds, the palette, name lookup, allocation behaviour
 * and every error path.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/gltf.h>
#include <marionette/math.h>
#include <marionette/model.h>
#include <marionette/pose.h>
#include <marionette/skeleton.h>

#include "anim/skeleton_internal.h"
#include "assert_near.h"
#include "assets.h"
#include "counting_alloc.h"
#include "glb_builder.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CESIUM_MAN mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb")
#define RIGGED_FIGURE mn_test_asset("gltf/RiggedFigure/glTF-Binary/RiggedFigure.glb")
#define RIGGED_SIMPLE mn_test_asset("gltf/RiggedSimple/glTF-Binary/RiggedSimple.glb")
#define SIMPLE_SKIN mn_test_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf")

#define F32 5126
#define ASSET "'asset':{'version':'2.0'}"

/* A value no computation produces, to see which matrices a partial update left alone. */
#define SENTINEL 12345.5f

/* ---- helpers -------------------------------------------------------------------- */

static void fail_with(mn_status st, const mn_error *err)
{
    if (st != MN_OK)
        print_error("%s at '%s': %s\n", mn_status_name(st), err->path, err->message);
    assert_int_equal(st, MN_OK);
}

static mn_model *load_file(const char *path)
{
    mn_model *m = NULL;
    mn_error err;
    fail_with(mn_gltf_read_file(path, NULL, &m, &err), &err);
    return m;
}

typedef struct loaded {
    mn_model *model;
    gb_blob glb;
} loaded;

static loaded load_glb(const gb_builder *b)
{
    loaded l;
    mn_error err;
    l.glb = gb_glb(b);
    l.model = NULL;
    fail_with(mn_gltf_read_memory(l.glb.data, l.glb.size, NULL, &l.model, &err), &err);
    return l;
}

static void unload(loaded *l)
{
    mn_model_free(l->model);
    gb_blob_free(&l->glb);
}

static mn_skeleton *skin_skeleton(const mn_model *m, uint32_t skin, const mn_allocator *a)
{
    mn_skeleton *sk = NULL;
    mn_error err;
    fail_with(mn_skeleton_from_skin(m, skin, a, &sk, &err), &err);
    assert_non_null(sk);
    return sk;
}

static mn_skeleton *node_skeleton(const mn_model *m, const mn_allocator *a)
{
    mn_skeleton *sk = NULL;
    mn_error err;
    fail_with(mn_skeleton_from_nodes(m, a, &sk, &err), &err);
    assert_non_null(sk);
    return sk;
}

static mn_pose rest_pose(const mn_skeleton *sk, const mn_allocator *a)
{
    mn_pose pose;
    mn_error err;
    fail_with(mn_pose_create(&pose, sk->joint_count, a, &err), &err);
    mn_pose_copy(&pose, &sk->rest);
    return pose;
}

static float *floats(size_t n, float fill)
{
    float *p = malloc(n * sizeof *p);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = fill;
    return p;
}

/* A model assembled by hand (no reader): `count` unnamed roots at identity. */
static mn_model hand_model(mn_node *nodes, uint32_t count)
{
    mn_model m;
    memset(&m, 0, sizeof m);
    for (uint32_t i = 0; i < count; i++) {
        memset(&nodes[i], 0, sizeof nodes[i]);
        nodes[i].parent = MN_NONE;
        nodes[i].rotation[3] = 1.0f;
        nodes[i].scale[0] = nodes[i].scale[1] = nodes[i].scale[2] = 1.0f;
        nodes[i].mesh = nodes[i].skin = nodes[i].camera = MN_NONE;
    }
    m.nodes = nodes;
    m.node_count = count;
    return m;
}

/* |a - b| within 1e-5 of the matrix's scale (its largest entry, at least 1). */
static void assert_mat_near_rel(const float *a, const float *b, double rel)
{
    double scale = 1.0;
    for (int i = 0; i < 16; i++)
        scale = fmax(scale, fabs((double)b[i]));
    assert_vec_near(a, b, 16, rel * scale);
}

/*
 * The order's two promises, checked against the parent links alone:
 * parents come first, and [j, subtree_end[j]) is exactly j and the joints
 * whose ancestor chain passes through j.
 */
static void assert_parent_first_with_contiguous_subtrees(const mn_skeleton *sk)
{
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        assert_true(sk->parents[j] < (int32_t)j);
        assert_true(sk->subtree_end[j] > j && sk->subtree_end[j] <= sk->joint_count);
        for (uint32_t k = 0; k < sk->joint_count; k++) {
            bool below = false;
            for (int32_t a = (int32_t)k; a >= 0 && !below; a = sk->parents[a])
                below = (uint32_t)a == j;
            assert_int_equal(below, k >= j && k < sk->subtree_end[j]);
        }
    }
}

/* Every mapping agrees with the model: parents are the nodes' parents, names and rest TRS are theirs. */
static void assert_mappings_match_model(const mn_skeleton *sk, const mn_model *m)
{
    assert_int_equal(sk->node_count, m->node_count);
    uint32_t mapped = 0;
    for (uint32_t n = 0; n < m->node_count; n++)
        if (sk->joint_of_node[n] != MN_NONE) {
            assert_int_equal(sk->node_of_joint[sk->joint_of_node[n]], n);
            mapped++;
        }
    assert_int_equal(mapped, sk->joint_count);
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        const mn_node *node = &m->nodes[sk->node_of_joint[j]];
        assert_int_equal(sk->joint_of_node[sk->node_of_joint[j]], j);
        if (sk->parents[j] < 0)
            assert_int_equal(node->parent, MN_NONE);
        else
            assert_int_equal(node->parent, sk->node_of_joint[sk->parents[j]]);
        assert_string_equal(sk->names[j], node->name);
        assert_memory_equal(sk->rest.translations + 3 * j, node->translation, 12);
        assert_memory_equal(sk->rest.rotations + 4 * j, node->rotation, 16);
        assert_memory_equal(sk->rest.scales + 3 * j, node->scale, 12);
    }
}

/* ---- building from a skin ------------------------------------------------------ */

/*
 * Nodes (index: name, children):
 *   0 Armature [2]        -- not a joint: an ancestor of the joints
 *   1 Body (mesh holder)  -- not a joint, not an ancestor: left out
 *   2 Hips [3, 4]
 *   3 Spine [5]
 *   4 LegL
 *   5 Head
 * The skin lists its joints child before parent: Head, Spine, LegL, Hips.
 */
static void build_armature(gb_builder *b, const char *skin_joints, uint32_t ibm_count)
{
    gb_init(b);
    gb_bin_align(b, 4);
    for (uint32_t i = 0; i < ibm_count; i++) {
        /* Distinct, recognisable affine matrices: translation (-(i+1), 10 i, 0.5). */
        gb_bin_f32(b, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -(float)(i + 1), 10.0f * (float)i, 0.5f, 1);
    }
    gb_json(b, "{" ASSET ",'buffers':[{'byteLength':%zu}],"
               "'bufferViews':[{'buffer':0,'byteLength':%zu}],"
               "'accessors':[{'bufferView':0,'componentType':%d,'count':%u,'type':'MAT4'}],",
            gb_bin_size(b), gb_bin_size(b), F32, ibm_count);
    gb_json(b, "'nodes':["
               "{'name':'Armature','children':[2],'rotation':[0,0,0.6,0.8],'scale':[2,2,2]},"
               "{'name':'Body'},"
               "{'name':'Hips','children':[3,4],'translation':[0,1,0]},"
               "{'name':'Spine','children':[5],'translation':[0,0.5,0],'rotation':[0.6,0,0,0.8]},"
               "{'name':'LegL','translation':[0.2,-0.1,0]},"
               "{'name':'Head','translation':[0,0.25,0],'scale':[1,3,1]}],"
               "'skins':[{'joints':%s,'inverseBindMatrices':0}],"
               "'scenes':[{'nodes':[0,1]}]}",
            skin_joints);
}

static void test_skin_joints_listed_child_first_come_out_parent_first(void **state)
{
    (void)state;
    gb_builder b;
    build_armature(&b, "[5,3,4,2]", 4);
    loaded l = load_glb(&b);
    mn_skeleton *sk = skin_skeleton(l.model, 0, NULL);

    /* Armature (an ancestor) first, then depth-first in children order. */
    assert_int_equal(sk->joint_count, 5);
    const uint32_t node_of_joint[5] = {0, 2, 3, 5, 4};
    const int16_t parents[5] = {-1, 0, 1, 2, 1};
    const uint32_t subtree_end[5] = {5, 5, 4, 4, 5};
    const char *names[5] = {"Armature", "Hips", "Spine", "Head", "LegL"};
    for (uint32_t j = 0; j < 5; j++) {
        assert_int_equal(sk->node_of_joint[j], node_of_joint[j]);
        assert_int_equal(sk->parents[j], parents[j]);
        assert_int_equal(sk->subtree_end[j], subtree_end[j]);
        assert_string_equal(sk->names[j], names[j]);
    }
    const uint32_t joint_of_node[6] = {0, MN_NONE, 1, 2, 4, 3};
    assert_int_equal(sk->node_count, 6);
    assert_memory_equal(sk->joint_of_node, joint_of_node, sizeof joint_of_node);

    /* The skin's order is kept through the mapping, and so are its inverse binds. */
    assert_int_equal(sk->skin_joint_count, 4);
    const uint32_t joint_of_skin_joint[4] = {3, 2, 4, 1};
    assert_memory_equal(sk->joint_of_skin_joint, joint_of_skin_joint, sizeof joint_of_skin_joint);
    assert_memory_equal(sk->inverse_bind, l.model->skins[0].inverse_bind, 4 * 16 * sizeof(float));
    assert_float_near(sk->inverse_bind[16 * 3 + 12], -4.0f, 0);
    assert_float_near(sk->inverse_bind[16 * 3 + 13], 30.0f, 0);

    /* Rest pose: the nodes' TRS, joint order. */
    assert_vec_near(sk->rest.rotations, ((const float[]){0, 0, 0.6f, 0.8f}), 4, 0);
    assert_vec_near(sk->rest.scales, ((const float[]){2, 2, 2}), 3, 0);
    assert_vec_near(sk->rest.translations + 3 * 3, ((const float[]){0, 0.25f, 0}), 3, 0);
    assert_vec_near(sk->rest.scales + 3 * 3, ((const float[]){1, 3, 1}), 3, 0);
    assert_vec_near(sk->rest.translations + 3 * 4, ((const float[]){0.2f, -0.1f, 0}), 3, 0);
    assert_mappings_match_model(sk, l.model);
    assert_parent_first_with_contiguous_subtrees(sk);

    mn_skeleton_free(sk);
    unload(&l);
    gb_free(&b);
}

static void test_node_listed_twice_in_a_skin_is_one_joint_for_two_skin_joints(void **state)
{
    (void)state;
    gb_builder b;
    build_armature(&b, "[3,5,3,2]", 4);
    loaded l = load_glb(&b);
    mn_skeleton *sk = skin_skeleton(l.model, 0, NULL);

    /* LegL is neither a joint nor an ancestor of one now. */
    assert_int_equal(sk->joint_count, 4);
    assert_int_equal(sk->joint_of_node[4], MN_NONE);
    const uint32_t joint_of_skin_joint[4] = {2, 3, 2, 1};
    assert_memory_equal(sk->joint_of_skin_joint, joint_of_skin_joint, sizeof joint_of_skin_joint);

    /* Each skin joint keeps its own inverse bind in the palette. */
    mn_pose pose = rest_pose(sk, NULL);
    float worlds[4 * 16], palette[4 * 16], expected[16];
    mn_skeleton_local_to_world(sk, &pose, 0, worlds);
    mn_skeleton_palette(sk, worlds, palette);
    for (uint32_t i = 0; i < 4; i++) {
        mn_mat4_mul(expected, worlds + 16 * joint_of_skin_joint[i], l.model->skins[0].inverse_bind + 16 * i);
        assert_mat_near_rel(palette + 16 * i, expected, 1e-6);
    }
    assert_false(memcmp(palette, palette + 32, 16 * sizeof(float)) == 0);

    mn_pose_free(&pose);
    mn_skeleton_free(sk);
    unload(&l);
    gb_free(&b);
}

static void test_skin_skeleton_includes_non_joint_ancestors_and_skips_the_mesh_node(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *m = load_file(CESIUM_MAN);
    mn_skeleton *sk = skin_skeleton(m, 0, NULL);

    /* 19 joints plus Z_UP (node 0) and Armature (node 1); Cesium_Man (node 2, the mesh) is not in it. */
    assert_int_equal(sk->joint_count, 21);
    const uint32_t order[21] = {0, 1, 3, 12, 13, 20, 21, 17, 18, 19, 14, 15, 16, 8, 9, 10, 11, 4, 5, 6, 7};
    assert_memory_equal(sk->node_of_joint, order, sizeof order);
    assert_int_equal(sk->joint_of_node[2], MN_NONE);
    assert_string_equal(sk->names[0], "Z_UP");
    assert_string_equal(sk->names[1], "Armature");
    assert_int_equal(sk->parents[0], -1);
    assert_int_equal(sk->parents[1], 0);

    /* Subtrees: the whole body under the torso, the arms and neck under torso_joint_3, a leg alone. */
    assert_int_equal(sk->subtree_end[0], 21);
    assert_int_equal(sk->subtree_end[2], 21);                 /* Skeleton_torso_joint_1 */
    assert_int_equal(sk->subtree_end[4], 13);                 /* torso_joint_3: joints 4..12 */
    assert_int_equal(sk->subtree_end[sk->joint_of_node[8]], 17); /* leg_joint_L_1: joints 13..16 */
    assert_int_equal(sk->subtree_end[20], 21);
    assert_parent_first_with_contiguous_subtrees(sk);
    assert_mappings_match_model(sk, m);

    assert_int_equal(sk->skin_joint_count, 19);
    for (uint32_t i = 0; i < 19; i++)
        assert_int_equal(sk->node_of_joint[sk->joint_of_skin_joint[i]], m->skins[0].joints[i]);

    mn_skeleton_free(sk);
    mn_model_free(m);
}

static void test_skeleton_outlives_its_model(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *m = load_file(RIGGED_FIGURE);
    mn_skeleton *sk = skin_skeleton(m, 0, NULL);
    float expected_ibm[16];
    memcpy(expected_ibm, m->skins[0].inverse_bind + 16 * 5, sizeof expected_ibm);
    mn_model_free(m);

    /* Names, inverse binds and the rest pose were copied. */
    const uint32_t order[21] = {0, 21, 2, 11, 12, 19, 20, 16, 17, 18, 13, 14, 15, 7, 8, 9, 10, 3, 4, 5, 6};
    assert_int_equal(sk->joint_count, 21);
    assert_memory_equal(sk->node_of_joint, order, sizeof order);
    assert_int_equal(mn_skeleton_find(sk, "neck_joint_2"), 6);
    assert_string_equal(sk->names[0], "Z_UP");
    assert_memory_equal(sk->inverse_bind + 16 * 5, expected_ibm, sizeof expected_ibm);
    mn_skeleton_free(sk);
}

/* ---- building from the nodes ------------------------------------------------------ */

/*
 * Nodes (index: children): 0 under 3; 1 a root [4, 2]; 2; 3 a root [0]; 4 under 1;
 * 5 a root.  Roots in index order (1, 3, 5), children in children order:
 * 1, 4, 2, 3, 0, 5.
 */
static void build_forest(gb_builder *b)
{
    gb_init(b);
    gb_json(b, "{" ASSET ",'nodes':["
               "{'name':'a','translation':[1,0,0]},"
               "{'name':'b','children':[4,2],'rotation':[0,0.6,0,0.8]},"
               "{'name':'c','translation':[0,2,0]},"
               "{'name':'d','children':[0],'scale':[3,3,3],'translation':[0,0,5]},"
               "{'name':'e','translation':[0,0,1]},"
               "{'name':'f','translation':[7,7,7]}],"
               "'scenes':[{'nodes':[5,3,1]}]}");
}

static void test_from_nodes_orders_a_forest_by_root_index_then_children_order(void **state)
{
    (void)state;
    gb_builder b;
    build_forest(&b);
    loaded l = load_glb(&b);
    mn_skeleton *sk = node_skeleton(l.model, NULL);

    assert_int_equal(sk->joint_count, 6);
    const uint32_t order[6] = {1, 4, 2, 3, 0, 5};
    const int16_t parents[6] = {-1, 0, 0, -1, 3, -1};
    const uint32_t subtree_end[6] = {3, 2, 3, 5, 5, 6};
    assert_memory_equal(sk->node_of_joint, order, sizeof order);
    assert_memory_equal(sk->parents, parents, sizeof parents);
    assert_memory_equal(sk->subtree_end, subtree_end, sizeof subtree_end);
    assert_int_equal(sk->skin_joint_count, 0);
    assert_null(sk->joint_of_skin_joint);
    assert_null(sk->inverse_bind);
    assert_mappings_match_model(sk, l.model);
    assert_parent_first_with_contiguous_subtrees(sk);

    /* from = 0 covers all three roots, not only joint 0's subtree. */
    mn_pose pose = rest_pose(sk, NULL);
    float worlds[6 * 16], rest[6 * 16];
    for (size_t i = 0; i < 6 * 16; i++)
        worlds[i] = SENTINEL;
    mn_skeleton_local_to_world(sk, &pose, 0, worlds);
    mn_model_rest_worlds(l.model, rest);
    for (uint32_t j = 0; j < 6; j++)
        assert_mat_near_rel(worlds + 16 * j, rest + 16 * sk->node_of_joint[j], 1e-6);

    /* A later root updates only its own subtree. */
    for (size_t i = 0; i < 6 * 16; i++)
        worlds[i] = SENTINEL;
    mn_skeleton_local_to_world(sk, &pose, 3, worlds);
    for (uint32_t j = 0; j < 6; j++) {
        if (j == 3 || j == 4)
            assert_mat_near_rel(worlds + 16 * j, rest + 16 * sk->node_of_joint[j], 1e-6);
        else
            for (int i = 0; i < 16; i++)
                assert_true(worlds[16 * j + i] == SENTINEL);
    }

    mn_pose_free(&pose);
    mn_skeleton_free(sk);
    unload(&l);
    gb_free(&b);
}

static void test_find_returns_the_joint_of_a_name(void **state)
{
    (void)state;
    gb_builder b;
    build_forest(&b);
    loaded l = load_glb(&b);
    mn_skeleton *sk = node_skeleton(l.model, NULL);

    assert_int_equal(mn_skeleton_find(sk, "b"), 0);
    assert_int_equal(mn_skeleton_find(sk, "a"), 4);
    assert_int_equal(mn_skeleton_find(sk, "f"), 5);
    assert_int_equal(mn_skeleton_find(sk, "g"), MN_NONE);
    assert_int_equal(mn_skeleton_find(sk, ""), MN_NONE);
    assert_int_equal(mn_skeleton_find(sk, NULL), MN_NONE);
    assert_int_equal(mn_skeleton_find(NULL, "a"), MN_NONE);

    mn_skeleton_free(sk);
    unload(&l);
    gb_free(&b);
}

/* ---- local-to-world -------------------------------------------------------------- */

/* Worlds of every joint at rest equal the model's rest worlds of its node. */
static void check_rest_worlds(const char *path, bool from_skin)
{
    mn_model *m = load_file(path);
    mn_skeleton *sk = from_skin ? skin_skeleton(m, 0, NULL) : node_skeleton(m, NULL);
    mn_pose pose = rest_pose(sk, NULL);
    float *worlds = floats(16 * (size_t)sk->joint_count, SENTINEL);
    float *rest = floats(16 * (size_t)m->node_count, 0);
    mn_skeleton_local_to_world(sk, &pose, 0, worlds);
    mn_model_rest_worlds(m, rest);
    for (uint32_t j = 0; j < sk->joint_count; j++)
        assert_mat_near_rel(worlds + 16 * j, rest + 16 * sk->node_of_joint[j], 1e-5);
    free(rest);
    free(worlds);
    mn_pose_free(&pose);
    mn_skeleton_free(sk);
    mn_model_free(m);
}

static void test_local_to_world_at_rest_equals_the_model_rest_worlds(void **state)
{
    (void)state;
    mn_test_need_assets();
    check_rest_worlds(CESIUM_MAN, true);
    check_rest_worlds(CESIUM_MAN, false);
    check_rest_worlds(RIGGED_FIGURE, true);
    check_rest_worlds(RIGGED_FIGURE, false);
    check_rest_worlds(RIGGED_SIMPLE, true);
    check_rest_worlds(SIMPLE_SKIN, true);
}

static void test_local_to_world_composes_parent_times_local(void **state)
{
    (void)state;
    gb_builder b;
    build_armature(&b, "[5,3,4,2]", 4);
    loaded l = load_glb(&b);
    mn_skeleton *sk = skin_skeleton(l.model, 0, NULL);
    mn_pose pose = rest_pose(sk, NULL);
    /* Something no node holds, non-uniform scale included. */
    assert_int_equal(mn_pose_set_joint(&pose, 2, (const float[]){1, 2, 3}, (const float[]){0, 0.28f, 0, 0.96f},
                                       (const float[]){0.5f, 2, 1.5f}, NULL),
                     MN_OK);
    float worlds[5 * 16], local[16], expected[16];
    mn_skeleton_local_to_world(sk, &pose, 0, worlds);
    for (uint32_t j = 0; j < 5; j++) {
        mn_mat4_compose(local, pose.translations + 3 * j, pose.rotations + 4 * j, pose.scales + 3 * j);
        if (sk->parents[j] < 0)
            memcpy(expected, local, sizeof local);
        else
            mn_mat4_mul(expected, worlds + 16 * sk->parents[j], local);
        assert_vec_near(worlds + 16 * j, expected, 16, 1e-6);
        assert_vec_near(worlds + 16 * j + 3, ((const float[]){0}), 1, 0);
        assert_float_near(worlds[16 * j + 15], 1.0f, 0);
    }
    mn_pose_free(&pose);
    mn_skeleton_free(sk);
    unload(&l);
    gb_free(&b);
}

/* A pose away from rest: every joint turned a little about a different axis. */
static void bend(mn_pose *pose)
{
    for (uint32_t j = 0; j < pose->joint_count; j++) {
        float axis[3] = {(float)(j % 3), 1.0f, (float)(j % 5) - 2.0f}, q[4], r[4];
        mn_quat_from_axis_angle(q, axis, 0.1f + 0.05f * (float)j);
        mn_quat_mul(r, pose->rotations + 4 * j, q);
        mn_quat_normalize(r, r);
        assert_int_equal(mn_pose_set_joint(pose, j, NULL, r, NULL, NULL), MN_OK);
    }
}

static void test_partial_update_equals_full_and_leaves_the_rest_untouched(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *m = load_file(CESIUM_MAN);
    mn_skeleton *sk = skin_skeleton(m, 0, NULL);
    mn_pose pose = rest_pose(sk, NULL);
    bend(&pose);
    size_t n = 16 * (size_t)sk->joint_count;
    float *full = floats(n, 0), *partial = floats(n, SENTINEL);
    mn_skeleton_local_to_world(sk, &pose, 0, full);

    /* From torso_joint_3 (joint 4): joints 4..12.  Only its parent's world must be valid. */
    uint32_t from = 4, end = sk->subtree_end[from], parent = (uint32_t)sk->parents[from];
    assert_int_equal(end, 13);
    memcpy(partial + 16 * parent, full + 16 * parent, 16 * sizeof(float));
    mn_skeleton_local_to_world(sk, &pose, from, partial);
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        if (j >= from && j < end)
            assert_memory_equal(partial + 16 * j, full + 16 * j, 16 * sizeof(float));
        else if (j != parent)
            for (int i = 0; i < 16; i++)
                assert_true(partial[16 * j + i] == SENTINEL);
    }

    /* A leaf updates itself alone; from past the end changes nothing. */
    uint32_t leaf = sk->joint_count - 1;
    assert_int_equal(sk->subtree_end[leaf], sk->joint_count);
    for (size_t i = 0; i < n; i++)
        partial[i] = SENTINEL;
    memcpy(partial + 16 * sk->parents[leaf], full + 16 * sk->parents[leaf], 16 * sizeof(float));
    mn_skeleton_local_to_world(sk, &pose, leaf, partial);
    assert_memory_equal(partial + 16 * leaf, full + 16 * leaf, 16 * sizeof(float));
    for (uint32_t j = 0; j < leaf; j++)
        if (j != (uint32_t)sk->parents[leaf])
            assert_true(partial[16 * j] == SENTINEL);
    mn_skeleton_local_to_world(sk, &pose, sk->joint_count, partial);
    assert_true(partial[0] == SENTINEL);

    free(partial);
    free(full);
    mn_pose_free(&pose);
    mn_skeleton_free(sk);
    mn_model_free(m);
}

/* ---- palette ---------------------------------------------------------------------- */

static void test_palette_is_world_times_inverse_bind_in_skin_order(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *m = load_file(CESIUM_MAN);
    mn_skeleton *sk = skin_skeleton(m, 0, NULL);
    mn_pose pose = rest_pose(sk, NULL);
    bend(&pose);
    float *worlds = floats(16 * (size_t)sk->joint_count, 0);
    float *palette = floats(16 * (size_t)sk->skin_joint_count, SENTINEL);
    float expected[16];
    mn_skeleton_local_to_world(sk, &pose, 0, worlds);
    mn_skeleton_palette(sk, worlds, palette);
    for (uint32_t i = 0; i < sk->skin_joint_count; i++) {
        uint32_t joint = sk->joint_of_node[m->skins[0].joints[i]];
        mn_mat4_mul(expected, worlds + 16 * joint, m->skins[0].inverse_bind + 16 * i);
        assert_mat_near_rel(palette + 16 * i, expected, 1e-6);
        assert_vec_near(palette + 16 * i + 3, ((const float[]){0}), 1, 0);
        assert_float_near(palette[16 * i + 15], 1.0f, 0);
    }
    free(palette);
    free(worlds);
    mn_pose_free(&pose);
    mn_skeleton_free(sk);
    mn_model_free(m);
}

/*
 * At rest, palette × bind-space vertex puts the mesh where the file's
 * inverse bind matrices say, whatever the mesh node's own transform.
 * SimpleSkin's inverse binds are the exact inverses of its joints' rest
 * worlds: the palette is the identity (its mesh node is a root at identity).
 * CesiumMan and RiggedFigure (Blender exports) invert the joints' worlds
 * relative to the mesh node's frame: the palette is the mesh node's world,
 * the same for every joint.  RiggedSimple inverts them relative to Z_UP
 * only: its palette is Z_UP's world, NOT its mesh node's (Z_UP × Armature),
 * which is where glTF's rule shows: a skinned mesh is placed by its joints,
 * and its node's transform is not applied.
 */
static void check_palette_at_rest_is_node_world(const char *path, uint32_t node)
{
    mn_model *m = load_file(path);
    mn_skeleton *sk = skin_skeleton(m, 0, NULL);
    float *rest = floats(16 * (size_t)m->node_count, 0);
    float *worlds = floats(16 * (size_t)sk->joint_count, 0);
    float *palette = floats(16 * (size_t)sk->skin_joint_count, 0);
    mn_model_rest_worlds(m, rest);
    mn_skeleton_local_to_world(sk, &sk->rest, 0, worlds);
    mn_skeleton_palette(sk, worlds, palette);
    for (uint32_t i = 0; i < sk->skin_joint_count; i++)
        assert_mat_near_rel(palette + 16 * i, rest + 16 * node, 1e-5);
    free(palette);
    free(worlds);
    free(rest);
    mn_skeleton_free(sk);
    mn_model_free(m);
}

static void test_palette_at_rest_places_the_mesh_by_its_joints(void **state)
{
    (void)state;
    mn_test_need_assets();
    check_palette_at_rest_is_node_world(SIMPLE_SKIN, 0);   /* the mesh node, at identity */
    check_palette_at_rest_is_node_world(CESIUM_MAN, 2);    /* the mesh node Cesium_Man */
    check_palette_at_rest_is_node_world(RIGGED_FIGURE, 1); /* the mesh node Proxy */
    check_palette_at_rest_is_node_world(RIGGED_SIMPLE, 0); /* Z_UP, not the mesh node Cylinder (2) */

    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    mn_model *m = load_file(SIMPLE_SKIN);
    float rest[3 * 16];
    mn_model_rest_worlds(m, rest);
    assert_vec_near(rest, identity, 16, 0);
    mn_model_free(m);
    m = load_file(RIGGED_SIMPLE);
    float rs[5 * 16];
    mn_model_rest_worlds(m, rs);
    assert_int_equal(m->nodes[2].skin, 0);
    assert_true(fabsf(rs[16 * 2 + 0] - rs[0]) > 0.5f); /* Cylinder's world is not Z_UP's */
    mn_model_free(m);
}

/* ---- the SIMD paths against the scalar reference -------------------------------------- */

/* Exact equality, element by element (so +0 and -0 agree). */
static void assert_floats_equal(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(a[i] == b[i])) {
            print_error("element %zu: %.9g != %.9g\n", i, (double)a[i], (double)b[i]);
            fail();
        }
}

/*
 * 37 nodes (not a multiple of 4 or 8, so every block width has a tail),
 * each under a pseudo-random earlier node, with rotations, non-uniform
 * scales and translations of their own.
 */
static void check_kernels_agree(const mn_skeleton *sk, const mn_pose *pose)
{
    size_t nw = 16 * (size_t)sk->joint_count, np = 16 * (size_t)(sk->skin_joint_count + 1);
    float *ref = floats(nw, 0), *got = floats(nw, 0), *pref = floats(np, 0), *pgot = floats(np, 0);
    assert_true(mni_skeleton_local_to_world_kernel(MN_SIMD_SCALAR, sk, pose, 0, ref));
    assert_true(mni_skeleton_palette_kernel(MN_SIMD_SCALAR, sk, ref, pref));
    const mn_simd_level kernels[] = {MN_SIMD_SSE2, MN_SIMD_AVX2_FMA,
                                          MN_SIMD_BEST};
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        if (!mni_skeleton_kernel_available(kernels[k])) {
            assert_false(mni_skeleton_local_to_world_kernel(kernels[k], sk, pose, 0, got));
            continue;
        }
        bool exact = kernels[k] == MN_SIMD_SSE2;
        for (uint32_t from = 0; from < sk->joint_count; from += 1 + from / 3) {
            memcpy(got, ref, nw * sizeof(float));
            uint32_t end = from == 0 ? sk->joint_count : sk->subtree_end[from];
            for (size_t i = 16 * (size_t)from; i < 16 * (size_t)end; i++)
                got[i] = SENTINEL;
            assert_true(mni_skeleton_local_to_world_kernel(kernels[k], sk, pose, from, got));
            for (uint32_t j = 0; j < sk->joint_count; j++) {
                if (exact)
                    assert_floats_equal(got + 16 * j, ref + 16 * j, 16);
                else
                    assert_mat_near_rel(got + 16 * j, ref + 16 * j, 1e-6);
            }
        }
        assert_true(mni_skeleton_palette_kernel(kernels[k], sk, ref, pgot));
        for (uint32_t i = 0; i < sk->skin_joint_count; i++) {
            if (exact)
                assert_floats_equal(pgot + 16 * i, pref + 16 * i, 16);
            else
                assert_mat_near_rel(pgot + 16 * i, pref + 16 * i, 1e-6);
        }
    }
    free(pgot);
    free(pref);
    free(got);
    free(ref);
}

static void test_simd_kernels_agree_with_the_scalar_reference(void **state)
{
    (void)state;
    mn_test_need_assets();
    assert_true(mni_skeleton_kernel_available(MN_SIMD_SCALAR));

    mn_model *m = load_file(CESIUM_MAN);
    mn_skeleton *sk = skin_skeleton(m, 0, NULL);
    mn_pose pose = rest_pose(sk, NULL);
    bend(&pose);
    check_kernels_agree(sk, &pose);
    mn_pose_free(&pose);
    mn_skeleton_free(sk);
    mn_model_free(m);

    enum { N = 37 };
    mn_node nodes[N];
    uint32_t children[N], child_start[N], joints[N];
    float ibm[16 * N];
    mn_model hm = hand_model(nodes, N);
    uint32_t lcg = 12345;
    for (uint32_t i = 1; i < N; i++) {
        lcg = lcg * 1103515245u + 12345u;
        nodes[i].parent = (lcg >> 16) % i;
    }
    /* Children lists that agree with the parents, in a shared array. */
    uint32_t used = 0;
    for (uint32_t p = 0; p < N; p++) {
        child_start[p] = used;
        for (uint32_t c = 0; c < N; c++)
            if (nodes[c].parent == p)
                children[used++] = c;
        nodes[p].children = &children[child_start[p]];
        nodes[p].child_count = used - child_start[p];
    }
    for (uint32_t i = 0; i < N; i++) {
        float axis[3] = {1.0f + (float)(i % 3), (float)(i % 5) - 2.0f, 0.5f};
        mn_quat_from_axis_angle(nodes[i].rotation, axis, 0.3f * (float)i);
        nodes[i].translation[0] = 0.1f * (float)i;
        nodes[i].translation[1] = 1.0f;
        nodes[i].translation[2] = -0.05f * (float)(i % 7);
        nodes[i].scale[0] = 1.0f + 0.01f * (float)i;
        nodes[i].scale[1] = 0.9f;
        nodes[i].scale[2] = 1.1f;
        joints[i] = N - 1 - i;
        mn_mat4_compose(ibm + 16 * i, (const float[]){1, -2, 3}, nodes[i].rotation,
                        (const float[]){0.5f, 0.5f, 2});
    }
    mn_skin skin = {NULL, joints, N, ibm, MN_NONE};
    hm.skins = &skin;
    hm.skin_count = 1;
    sk = skin_skeleton(&hm, 0, NULL);
    assert_int_equal(sk->joint_count, N);
    check_kernels_agree(sk, &sk->rest);
    mn_skeleton_free(sk);
}

/* ---- allocation ----------------------------------------------------------------------- */

static void test_hot_calls_allocate_nothing(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_model *m = load_file(CESIUM_MAN);
    mn_skeleton *sk = skin_skeleton(m, 0, &hooks);
    mn_pose pose = rest_pose(sk, &hooks);
    float *worlds = floats(16 * (size_t)sk->joint_count, 0);
    float *palette = floats(16 * (size_t)sk->skin_joint_count, 0);
    /* The skeleton is one block (the node marks were scratch, already freed), the pose another. */
    assert_int_equal(counter.allocs - counter.frees, 2);

    size_t allocs = counter.allocs, frees = counter.frees;
    for (int frame = 0; frame < 3; frame++) {
        mn_skeleton_local_to_world(sk, &pose, 0, worlds);
        mn_skeleton_local_to_world(sk, &pose, 4, worlds);
        mn_skeleton_palette(sk, worlds, palette);
    }
    assert_int_equal(counter.allocs, allocs);
    assert_int_equal(counter.frees, frees);

    free(palette);
    free(worlds);
    mn_pose_free(&pose);
    mn_skeleton_free(sk);
    assert_int_equal(counter.live_bytes, 0);
    mn_model_free(m);
}

/* Every allocation in turn fails: the error is MN_OUT_OF_MEMORY, *out is NULL, nothing leaks. */
static void test_out_of_memory_at_every_allocation_leaks_nothing(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *m = load_file(CESIUM_MAN);
    for (int which = 0; which < 2; which++) {
        bool done = false;
        for (long n = 0; !done; n++) {
            mn_counting_alloc counter = mn_counting_alloc_make();
            counter.fail_after = n;
            mn_allocator hooks = mn_counting_allocator(&counter);
            mn_skeleton *sk = (mn_skeleton *)&counter; /* must be reset to NULL on failure */
            mn_error err;
            mn_status st = which == 0 ? mn_skeleton_from_skin(m, 0, &hooks, &sk, &err)
                                      : mn_skeleton_from_nodes(m, &hooks, &sk, &err);
            if (st == MN_OK) {
                assert_int_equal(counter.failures, 0);
                assert_int_equal(n, which == 0 ? 2 : 1);
                mn_skeleton_free(sk);
                done = true;
            } else {
                assert_int_equal(st, MN_OUT_OF_MEMORY);
                assert_int_equal(err.code, MN_OUT_OF_MEMORY);
                assert_null(sk);
            }
            assert_int_equal(counter.live_bytes, 0);
            assert_true(n < 8);
        }
    }
    mn_model_free(m);
}

/* ---- errors ---------------------------------------------------------------------------- */

static void test_bad_arguments_and_skin_index_out_of_range(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *m = load_file(SIMPLE_SKIN);
    mn_skeleton *sk = NULL;
    mn_error err;
    assert_int_equal(mn_skeleton_from_skin(m, 1, NULL, &sk, &err), MN_INDEX_RANGE);
    assert_int_equal(err.code, MN_INDEX_RANGE);
    assert_non_null(strstr(err.message, "skins[1]"));
    assert_null(sk);
    assert_int_equal(mn_skeleton_from_skin(m, MN_NONE, NULL, &sk, NULL), MN_INDEX_RANGE);
    assert_int_equal(mn_skeleton_from_skin(NULL, 0, NULL, &sk, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_skeleton_from_skin(m, 0, NULL, NULL, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_skeleton_from_nodes(NULL, NULL, &sk, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_skeleton_from_nodes(m, NULL, NULL, &err), MN_INVALID_ARGUMENT);
    mn_skeleton_free(NULL);
    mn_model_free(m);
}

static void test_hand_built_model_errors(void **state)
{
    (void)state;
    mn_node nodes[3];
    mn_model m = hand_model(nodes, 3);
    uint32_t joints[2] = {1, 7};
    mn_skin skin = {NULL, joints, 2, NULL, MN_NONE};
    m.skins = &skin;
    m.skin_count = 1;
    mn_skeleton *sk = NULL;
    mn_error err;

    /* A joint's node out of range. */
    assert_int_equal(mn_skeleton_from_skin(&m, 0, NULL, &sk, &err), MN_INDEX_RANGE);
    assert_non_null(strstr(err.message, "skins[0].joints[1]"));
    assert_null(sk);

    /* No inverse binds: identity; unnamed nodes: NULL names, find skips them. */
    joints[1] = 2;
    sk = skin_skeleton(&m, 0, NULL);
    assert_int_equal(sk->joint_count, 2);
    assert_null(sk->names[0]);
    assert_int_equal(mn_skeleton_find(sk, "x"), MN_NONE);
    assert_float_near(sk->inverse_bind[16 + 0], 1.0f, 0);
    assert_float_near(sk->inverse_bind[16 + 12], 0.0f, 0);
    mn_skeleton_free(sk);

    /* A parent cycle (1 → 2 → 1) with no children lists: nothing reaches those nodes. */
    nodes[1].parent = 2;
    nodes[2].parent = 1;
    assert_int_equal(mn_skeleton_from_nodes(&m, NULL, &sk, &err), MN_HIERARCHY);
    assert_null(sk);
    assert_int_equal(mn_skeleton_from_skin(&m, 0, NULL, &sk, &err), MN_HIERARCHY);
    assert_null(sk);

    /* A parent link whose parent does not list the child. */
    nodes[1].parent = 0;
    nodes[2].parent = MN_NONE;
    assert_int_equal(mn_skeleton_from_nodes(&m, NULL, &sk, &err), MN_HIERARCHY);
    assert_null(sk);
}

static void test_too_many_joints_overflow(void **state)
{
    (void)state;
    uint32_t count = MN_SKELETON_MAX_JOINTS + 1;
    mn_node *nodes = calloc(count, sizeof *nodes);
    uint32_t *joints = calloc(count, sizeof *joints);
    assert_non_null(nodes);
    assert_non_null(joints);
    mn_model m = hand_model(nodes, count);
    for (uint32_t i = 0; i < count; i++)
        joints[i] = i;
    mn_skin skin = {NULL, joints, count, NULL, MN_NONE};
    m.skins = &skin;
    m.skin_count = 1;
    mn_skeleton *sk = NULL;
    mn_error err;
    assert_int_equal(mn_skeleton_from_nodes(&m, NULL, &sk, &err), MN_OVERFLOW);
    assert_null(sk);
    assert_int_equal(mn_skeleton_from_skin(&m, 0, NULL, &sk, &err), MN_OVERFLOW);
    assert_null(sk);

    /* Exactly the maximum fits: a chain 32767 deep, which a recursive walk would not survive. */
    m.node_count = MN_SKELETON_MAX_JOINTS;
    skin.joint_count = 1;
    joints[0] = MN_SKELETON_MAX_JOINTS - 1;
    uint32_t *children = calloc(count, sizeof *children);
    assert_non_null(children);
    for (uint32_t i = 0; i + 1 < MN_SKELETON_MAX_JOINTS; i++) {
        children[i] = i + 1;
        nodes[i].children = &children[i];
        nodes[i].child_count = 1;
        nodes[i + 1].parent = i;
        nodes[i + 1].translation[1] = 1.0f;
    }
    sk = skin_skeleton(&m, 0, NULL);
    assert_int_equal(sk->joint_count, MN_SKELETON_MAX_JOINTS);
    assert_int_equal(sk->parents[MN_SKELETON_MAX_JOINTS - 1], MN_SKELETON_MAX_JOINTS - 2);
    assert_int_equal(sk->joint_of_skin_joint[0], MN_SKELETON_MAX_JOINTS - 1);
    float *worlds = floats(16 * (size_t)MN_SKELETON_MAX_JOINTS, 0);
    mn_skeleton_local_to_world(sk, &sk->rest, 0, worlds);
    assert_float_near(worlds[16 * (size_t)(MN_SKELETON_MAX_JOINTS - 1) + 13],
                      (float)(MN_SKELETON_MAX_JOINTS - 1), 0);
    free(worlds);
    mn_skeleton_free(sk);
    free(children);
    free(joints);
    free(nodes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skin_joints_listed_child_first_come_out_parent_first),
        cmocka_unit_test(test_node_listed_twice_in_a_skin_is_one_joint_for_two_skin_joints),
        cmocka_unit_test(test_skin_skeleton_includes_non_joint_ancestors_and_skips_the_mesh_node),
        cmocka_unit_test(test_skeleton_outlives_its_model),
        cmocka_unit_test(test_from_nodes_orders_a_forest_by_root_index_then_children_order),
        cmocka_unit_test(test_find_returns_the_joint_of_a_name),
        cmocka_unit_test(test_local_to_world_at_rest_equals_the_model_rest_worlds),
        cmocka_unit_test(test_local_to_world_composes_parent_times_local),
        cmocka_unit_test(test_partial_update_equals_full_and_leaves_the_rest_untouched),
        cmocka_unit_test(test_palette_is_world_times_inverse_bind_in_skin_order),
        cmocka_unit_test(test_palette_at_rest_places_the_mesh_by_its_joints),
        cmocka_unit_test(test_simd_kernels_agree_with_the_scalar_reference),
        cmocka_unit_test(test_hot_calls_allocate_nothing),
        cmocka_unit_test(test_out_of_memory_at_every_allocation_leaks_nothing),
        cmocka_unit_test(test_bad_arguments_and_skin_index_out_of_range),
        cmocka_unit_test(test_hand_built_model_errors),
        cmocka_unit_test(test_too_many_joints_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
