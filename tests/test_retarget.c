/*
 * Retargeting (src/anim/retarget.c) between the shared humanoids RiggedFigure
 * and CesiumMan (different joint axes, different names, different bone
 * lengths) and between CesiumMan and a stretched copy of itself: a skeleton
 * onto itself returns the input; rest gives rest; model-space rotation deltas
 * carry over while the destination keeps its own bone lengths; the hips move
 * by the leg ratio (or the caller's scale); the roots are the hips alone;
 * errors; a map allocates once and applying allocates nothing.  Every case
 * starts from the sample assets: without them the whole test is skipped
 * (tests/support/assets.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/clip.h>
#include <marionette/gltf.h>
#include <marionette/math.h>
#include <marionette/pose.h>
#include <marionette/retarget.h>
#include <marionette/skeleton.h>

#include "assert_near.h"
#include "assets.h"
#include "counting_alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CESIUM_MAN mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb")
#define RIGGED_FIGURE mn_test_asset("gltf/RiggedFigure/glTF-Binary/RiggedFigure.glb")
#define SIMPLE_SKIN mn_test_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf")

/* RiggedFigure's names (source) → CesiumMan's (destination) where they differ. */
static const mn_retarget_name_pair FIGURE_TO_MAN[] = {
    {"torso_joint_1", "Skeleton_torso_joint_1"},
    {"torso_joint_2", "Skeleton_torso_joint_2"},
    {"neck_joint_1", "Skeleton_neck_joint_1"},
    {"neck_joint_2", "Skeleton_neck_joint_2"},
    {"arm_joint_R_1", "Skeleton_arm_joint_R"},
    {"arm_joint_R_2", "Skeleton_arm_joint_R__2_"},
    {"arm_joint_R_3", "Skeleton_arm_joint_R__3_"},
    {"arm_joint_L_1", "Skeleton_arm_joint_L__4_"},
    {"arm_joint_L_2", "Skeleton_arm_joint_L__3_"},
    {"arm_joint_L_3", "Skeleton_arm_joint_L__2_"},
};
#define PAIRS (sizeof FIGURE_TO_MAN / sizeof FIGURE_TO_MAN[0])

/* One humanoid: model, skeleton, clip over its joints, a posed and a rest pose. */
typedef struct humanoid {
    mn_model *model;
    mn_skeleton *sk;
    mn_clip *clip;
    mn_pose pose;
    float *worlds, *rest_worlds;
} humanoid;

static void fail_with(mn_status st, const mn_error *err)
{
    if (st != MN_OK)
        print_error("%s: %s\n", mn_status_name(st), err->message);
    assert_int_equal(st, MN_OK);
}

static void load(humanoid *h, const char *path)
{
    mn_error err;
    memset(h, 0, sizeof *h);
    fail_with(mn_gltf_read_file(path, NULL, &h->model, &err), &err);
    fail_with(mn_skeleton_from_skin(h->model, 0, NULL, &h->sk, &err), &err);
    fail_with(mn_clip_from_gltf_skeleton(h->model, 0, h->sk, NULL, &h->clip, &err), &err);
    fail_with(mn_pose_create(&h->pose, h->sk->joint_count, NULL, &err), &err);
    h->worlds = calloc(16u * h->sk->joint_count, sizeof(float));
    h->rest_worlds = calloc(16u * h->sk->joint_count, sizeof(float));
    assert_non_null(h->worlds);
    assert_non_null(h->rest_worlds);
    mn_skeleton_local_to_world(h->sk, &h->sk->rest, 0, h->rest_worlds);
}

static void unload(humanoid *h)
{
    free(h->worlds);
    free(h->rest_worlds);
    mn_pose_free(&h->pose);
    mn_clip_free(h->clip);
    mn_skeleton_free(h->sk);
    mn_model_free(h->model);
}

/* The pose at time t, from rest. */
static void pose_at(humanoid *h, float t)
{
    mn_pose_copy(&h->pose, &h->sk->rest);
    assert_int_equal(mn_clip_sample(h->clip, t, &h->pose, NULL), MN_OK);
    mn_skeleton_local_to_world(h->sk, &h->pose, 0, h->worlds);
}

typedef struct fixture {
    humanoid figure, man;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    load(&f->figure, RIGGED_FIGURE);
    load(&f->man, CESIUM_MAN);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    unload(&f->figure);
    unload(&f->man);
    free(f);
    return 0;
}

static mn_retarget_options legs_options(void)
{
    mn_retarget_options o;
    memset(&o, 0, sizeof o);
    o.src_upper_leg = o.dst_upper_leg = "leg_joint_L_1";
    o.src_foot = o.dst_foot = "leg_joint_L_3";
    return o;
}

static mn_retarget *build(const mn_skeleton *src, const mn_skeleton *dst, const mn_retarget_options *o)
{
    mn_retarget *map = NULL;
    mn_error err;
    fail_with(mn_retarget_create(src, dst, o, &map, &err), &err);
    return map;
}

/* q ≈ ±expected. */
static void assert_same_rotation(const float *q, const float *expected, double tol)
{
    double d = fabs((double)q[0] * expected[0] + (double)q[1] * expected[1] +
                    (double)q[2] * expected[2] + (double)q[3] * expected[3]);
    assert_float_near(d, 1.0, tol);
}

static uint32_t find(const humanoid *h, const char *name)
{
    uint32_t j = mn_skeleton_find(h->sk, name);
    assert_int_not_equal(j, MN_NONE);
    return j;
}

static float distance(const float *worlds, uint32_t a, uint32_t b)
{
    const float *p = worlds + 16 * a + 12, *q = worlds + 16 * b + 12;
    float d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    return sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static void self_retarget_returns_the_input(void **state)
{
    fixture *f = *state;
    humanoid *hs[2] = {&f->man, &f->figure};
    for (int i = 0; i < 2; i++) {
        humanoid *h = hs[i];
        mn_retarget_options o = legs_options();
        mn_retarget *map = build(h->sk, h->sk, &o);
        assert_float_near(mn_retarget_scale(map), 1.0f, 1e-6);
        mn_pose out;
        mn_error err;
        fail_with(mn_pose_create(&out, h->sk->joint_count, NULL, &err), &err);
        for (float t = 0.0f; t <= 1.25f; t += 0.25f) {
            pose_at(h, t);
            fail_with(mn_retarget_apply(map, &h->pose, &out, &err), &err);
            for (uint32_t j = 0; j < h->sk->joint_count; j++) {
                if (mn_retarget_source(map, j) == MN_NONE)
                    continue;
                assert_int_equal(mn_retarget_source(map, j), j);
                assert_same_rotation(out.rotations + 4 * j, h->pose.rotations + 4 * j, 1e-6);
                if (mn_retarget_is_root(map, j))
                    assert_vec_near(out.translations + 3 * j, h->pose.translations + 3 * j, 3, 1e-6);
            }
        }
        mn_pose_free(&out);
        mn_retarget_free(map);
    }
}

static void only_the_hips_are_a_root(void **state)
{
    fixture *f = *state;
    mn_retarget_options o = legs_options();
    o.names = FIGURE_TO_MAN;
    o.name_count = PAIRS;
    mn_retarget *map = build(f->figure.sk, f->man.sk, &o);
    uint32_t hips = find(&f->man, "Skeleton_torso_joint_1");
    uint32_t matched = 0;
    for (uint32_t j = 0; j < f->man.sk->joint_count; j++) {
        assert_int_equal(mn_retarget_is_root(map, j), j == hips);
        matched += mn_retarget_source(map, j) != MN_NONE;
    }
    assert_int_equal(matched, 19); /* every skin joint; Z_UP and Armature are model space only */
    assert_int_equal(mn_retarget_source(map, find(&f->man, "Z_UP")), MN_NONE);
    assert_int_equal(mn_retarget_source(map, find(&f->man, "Skeleton_arm_joint_L__4_")),
                     find(&f->figure, "arm_joint_L_1"));
    assert_int_equal(mn_retarget_source(map, 9999), MN_NONE);
    mn_retarget_free(map);
}

static void source_at_rest_gives_destination_at_rest(void **state)
{
    fixture *f = *state;
    mn_retarget_options o = legs_options();
    o.names = FIGURE_TO_MAN;
    o.name_count = PAIRS;
    mn_retarget *map = build(f->figure.sk, f->man.sk, &o);
    mn_error err;
    fail_with(mn_retarget_apply(map, &f->figure.sk->rest, &f->man.pose, &err), &err);
    const mn_pose *rest = &f->man.sk->rest;
    for (uint32_t j = 0; j < rest->joint_count; j++) {
        assert_same_rotation(f->man.pose.rotations + 4 * j, rest->rotations + 4 * j, 1e-6);
        assert_vec_near(f->man.pose.translations + 3 * j, rest->translations + 3 * j, 3, 1e-6);
        assert_vec_near(f->man.pose.scales + 3 * j, rest->scales + 3 * j, 3, 0.0);
    }
    mn_retarget_free(map);
}

/* Rotation part of world · rest_world⁻¹ for joint j: its model-space change from rest. */
static void delta_from_rest(const float *worlds, const float *rest_worlds, uint32_t j, float q[4])
{
    float inv[16], d[16], t[3], s[3];
    assert_true(mn_mat4_invert_affine(inv, rest_worlds + 16 * j));
    mn_mat4_mul(d, worlds + 16 * j, inv);
    mn_mat4_decompose(d, t, q, s);
}

static void model_space_rotations_carry_across_different_rigs(void **state)
{
    fixture *f = *state;
    mn_retarget_options o = legs_options();
    o.names = FIGURE_TO_MAN;
    o.name_count = PAIRS;
    mn_retarget *map = build(f->figure.sk, f->man.sk, &o);
    mn_error err;
    for (float t = 0.1f; t < 1.25f; t += 0.3f) {
        pose_at(&f->figure, t);
        fail_with(mn_retarget_apply(map, &f->figure.pose, &f->man.pose, &err), &err);
        mn_skeleton_local_to_world(f->man.sk, &f->man.pose, 0, f->man.worlds);
        for (uint32_t j = 0; j < f->man.sk->joint_count; j++) {
            uint32_t s = mn_retarget_source(map, j);
            if (s == MN_NONE)
                continue;
            float qd[4], qs[4];
            delta_from_rest(f->man.worlds, f->man.rest_worlds, j, qd);
            delta_from_rest(f->figure.worlds, f->figure.rest_worlds, s, qs);
            assert_same_rotation(qd, qs, 1e-5);
        }
        /* The destination keeps its own bone lengths. */
        uint32_t knee = find(&f->man, "leg_joint_L_2"), ankle = find(&f->man, "leg_joint_L_3");
        assert_float_near(distance(f->man.worlds, knee, ankle),
                          distance(f->man.rest_worlds, knee, ankle), 1e-5);
    }
    mn_retarget_free(map);
}

static float leg(const humanoid *h, const float *worlds)
{
    return distance(worlds, find(h, "leg_joint_L_1"), find(h, "leg_joint_L_2")) +
           distance(worlds, find(h, "leg_joint_L_2"), find(h, "leg_joint_L_3"));
}

static void hips_move_by_the_leg_ratio(void **state)
{
    fixture *f = *state;
    mn_retarget_options o = legs_options();
    o.names = FIGURE_TO_MAN;
    o.name_count = PAIRS;
    mn_retarget *map = build(f->figure.sk, f->man.sk, &o);
    float k = leg(&f->man, f->man.rest_worlds) / leg(&f->figure, f->figure.rest_worlds);
    assert_float_near(mn_retarget_scale(map), k, 1e-5);
    /* (The two legs happen to be within 0.1 % of each other; the stretched test below takes k = 1.5.) */
    uint32_t hs = find(&f->figure, "torso_joint_1"), hd = find(&f->man, "Skeleton_torso_joint_1");
    mn_error err;
    for (float t = 0.0f; t < 1.25f; t += 0.2f) {
        pose_at(&f->figure, t);
        fail_with(mn_retarget_apply(map, &f->figure.pose, &f->man.pose, &err), &err);
        mn_skeleton_local_to_world(f->man.sk, &f->man.pose, 0, f->man.worlds);
        float expected[3];
        for (int c = 0; c < 3; c++)
            expected[c] = f->man.rest_worlds[16 * hd + 12 + c] +
                          k * (f->figure.worlds[16 * hs + 12 + c] - f->figure.rest_worlds[16 * hs + 12 + c]);
        assert_vec_near(f->man.worlds + 16 * hd + 12, expected, 3, 1e-5);
    }
    mn_retarget_free(map);
}

static void stretched_destination_scales_the_stride(void **state)
{
    fixture *f = *state;
    /* CesiumMan onto CesiumMan with every bone 1.5 times as long (a destination rest of its own). */
    humanoid *h = &f->man;
    mn_pose tall;
    mn_error err;
    fail_with(mn_pose_create(&tall, h->sk->joint_count, NULL, &err), &err);
    mn_pose_copy(&tall, &h->sk->rest);
    for (uint32_t i = 0; i < 3 * tall.joint_count; i++)
        tall.translations[i] *= 1.5f;
    mn_retarget_options o = legs_options();
    o.dst_rest = &tall;
    mn_retarget *map = build(h->sk, h->sk, &o);
    assert_float_near(mn_retarget_scale(map), 1.5f, 1e-5);

    mn_pose out;
    fail_with(mn_pose_create(&out, h->sk->joint_count, NULL, &err), &err);
    float *tall_worlds = calloc(16u * h->sk->joint_count, sizeof(float));
    uint32_t hips = find(h, "Skeleton_torso_joint_1");
    uint32_t knee = find(h, "leg_joint_R_2"), ankle = find(h, "leg_joint_R_3");
    for (float t = 0.2f; t < 2.0f; t += 0.45f) {
        pose_at(h, t);
        fail_with(mn_retarget_apply(map, &h->pose, &out, &err), &err);
        mn_skeleton_local_to_world(h->sk, &out, 0, tall_worlds);
        /* Same rig axes: the local rotations are the source's. */
        for (uint32_t j = 0; j < h->sk->joint_count; j++)
            if (mn_retarget_source(map, j) != MN_NONE)
                assert_same_rotation(out.rotations + 4 * j, h->pose.rotations + 4 * j, 1e-6);
        /* The hips go 1.5 times as far (no translation above them), bones are 1.5 times as long. */
        float expected[3];
        for (int c = 0; c < 3; c++)
            expected[c] = 1.5f * h->worlds[16 * hips + 12 + c];
        assert_vec_near(tall_worlds + 16 * hips + 12, expected, 3, 1e-5);
        assert_float_near(distance(tall_worlds, knee, ankle), 1.5f * distance(h->worlds, knee, ankle), 1e-5);
    }
    free(tall_worlds);
    mn_pose_free(&out);
    mn_pose_free(&tall);
    mn_retarget_free(map);
}

static void caller_scale_overrides_the_legs(void **state)
{
    fixture *f = *state;
    mn_retarget_options o;
    memset(&o, 0, sizeof o);
    o.names = FIGURE_TO_MAN;
    o.name_count = PAIRS;
    o.translation_scale = 2.0f;
    mn_retarget *map = build(f->figure.sk, f->man.sk, &o);
    assert_true(mn_retarget_scale(map) == 2.0f);
    uint32_t hs = find(&f->figure, "torso_joint_1"), hd = find(&f->man, "Skeleton_torso_joint_1");
    pose_at(&f->figure, 0.7f);
    mn_error err;
    fail_with(mn_retarget_apply(map, &f->figure.pose, &f->man.pose, &err), &err);
    mn_skeleton_local_to_world(f->man.sk, &f->man.pose, 0, f->man.worlds);
    float expected[3];
    for (int c = 0; c < 3; c++)
        expected[c] = f->man.rest_worlds[16 * hd + 12 + c] +
                      2.0f * (f->figure.worlds[16 * hs + 12 + c] - f->figure.rest_worlds[16 * hs + 12 + c]);
    assert_vec_near(f->man.worlds + 16 * hd + 12, expected, 3, 1e-5);
    mn_retarget_free(map);
}

static mn_status try_build(const fixture *f, const mn_retarget_options *o, mn_error *err)
{
    mn_retarget *map = (mn_retarget *)(uintptr_t)1;
    mn_status st = mn_retarget_create(f->figure.sk, f->man.sk, o, &map, err);
    if (st == MN_OK)
        mn_retarget_free(map);
    else
        assert_null(map);
    return st;
}

static void build_errors_name_what_is_wrong(void **state)
{
    fixture *f = *state;
    mn_error err;
    mn_retarget_options o;
    memset(&o, 0, sizeof o);
    o.names = FIGURE_TO_MAN;
    o.name_count = PAIRS;
    /* Neither a scale nor legs. */
    assert_int_equal(try_build(f, &o, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "translation_scale"));
    o.translation_scale = -1.0f;
    assert_int_equal(try_build(f, &o, &err), MN_INVALID_ARGUMENT);
    o.translation_scale = NAN;
    assert_int_equal(try_build(f, &o, &err), MN_NOT_FINITE);

    o = legs_options();
    o.names = FIGURE_TO_MAN;
    o.name_count = PAIRS;
    o.dst_foot = "no_such_foot";
    assert_int_equal(try_build(f, &o, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "no_such_foot"));
    o = legs_options();
    o.names = FIGURE_TO_MAN;
    o.name_count = PAIRS;
    o.src_upper_leg = "leg_joint_L_3"; /* the ankle is not above the... */
    o.src_foot = "leg_joint_L_1";      /* ...upper leg */
    assert_int_equal(try_build(f, &o, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "ancestor"));

    mn_retarget_name_pair bad[] = {{"torso_joint_1", "Skeleton_torso_joint_9"}};
    o = legs_options();
    o.names = bad;
    o.name_count = 1;
    assert_int_equal(try_build(f, &o, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "Skeleton_torso_joint_9"));
    o.names = NULL;
    assert_int_equal(try_build(f, &o, &err), MN_INVALID_ARGUMENT);

    /* A rest pose too small for its skeleton. */
    mn_pose small;
    fail_with(mn_pose_create(&small, 3, NULL, &err), &err);
    o = legs_options();
    o.src_rest = &small;
    assert_int_equal(try_build(f, &o, &err), MN_INVALID_ARGUMENT);
    mn_pose_free(&small);

    assert_int_equal(mn_retarget_create(NULL, f->man.sk, &o, NULL, &err), MN_INVALID_ARGUMENT);

    /* Nothing in common: SimpleSkin's joints share no name with CesiumMan's skin joints. */
    humanoid simple;
    load(&simple, SIMPLE_SKIN);
    mn_retarget *map = NULL;
    o.translation_scale = 1.0f;
    o.src_rest = NULL;
    assert_int_equal(mn_retarget_create(simple.sk, f->man.sk, &o, &map, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "no destination joint matched"));
    unload(&simple);
}

static void apply_errors_leave_the_destination_alone(void **state)
{
    fixture *f = *state;
    mn_retarget_options o = legs_options();
    o.names = FIGURE_TO_MAN;
    o.name_count = PAIRS;
    mn_retarget *map = build(f->figure.sk, f->man.sk, &o);
    mn_error err;
    mn_pose small;
    fail_with(mn_pose_create(&small, 2, NULL, &err), &err);
    assert_int_equal(mn_retarget_apply(map, &small, &f->man.pose, &err), MN_INVALID_ARGUMENT);
    small.translations[0] = 7.0f;
    assert_int_equal(mn_retarget_apply(map, &f->figure.pose, &small, &err), MN_INVALID_ARGUMENT);
    assert_true(small.translations[0] == 7.0f);
    assert_int_equal(mn_retarget_apply(NULL, &f->figure.pose, &small, &err), MN_INVALID_ARGUMENT);
    /* Source and destination in one pose would be read after being written. */
    mn_retarget_options self = legs_options();
    mn_retarget *onto_self = build(f->man.sk, f->man.sk, &self);
    assert_int_equal(mn_retarget_apply(onto_self, &f->man.pose, &f->man.pose, &err), MN_INVALID_ARGUMENT);
    mn_retarget_free(onto_self);
    mn_pose_free(&small);
    mn_retarget_free(map);
}

static void map_allocates_once_and_apply_never(void **state)
{
    fixture *f = *state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_retarget_options o = legs_options();
    o.names = FIGURE_TO_MAN;
    o.name_count = PAIRS;
    o.allocator = mn_counting_allocator(&counter);
    mn_retarget *map = build(f->figure.sk, f->man.sk, &o);
    size_t allocs = counter.allocs;
    assert_true(allocs > 0);
    mn_error err;
    for (int i = 0; i < 10; i++) {
        pose_at(&f->figure, 0.1f * (float)i);
        fail_with(mn_retarget_apply(map, &f->figure.pose, &f->man.pose, &err), &err);
    }
    assert_int_equal(counter.allocs, allocs);
    mn_retarget_free(map);
    assert_int_equal(counter.live_bytes, 0);

    /* Every allocation failing in turn is reported, with nothing leaked. */
    for (long fail = 0; fail < (long)allocs; fail++) {
        mn_counting_alloc c = mn_counting_alloc_make();
        c.fail_after = fail;
        o.allocator = mn_counting_allocator(&c);
        mn_retarget *m2 = NULL;
        assert_int_equal(mn_retarget_create(f->figure.sk, f->man.sk, &o, &m2, &err), MN_OUT_OF_MEMORY);
        assert_null(m2);
        assert_int_equal(c.live_bytes, 0);
    }
}

int main(void)
{
    mn_test_binary_needs_assets();
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(self_retarget_returns_the_input),
        T(only_the_hips_are_a_root),
        T(source_at_rest_gives_destination_at_rest),
        T(model_space_rotations_carry_across_different_rigs),
        T(hips_move_by_the_leg_ratio),
        T(stretched_destination_scales_the_stride),
        T(caller_scale_overrides_the_legs),
        T(build_errors_name_what_is_wrong),
        T(apply_errors_leave_the_destination_alone),
        T(map_allocates_once_and_apply_never),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
