/*
 * SOMA skeletons, clips, the shared clip cache and the poser (§5, §11):
 * a small synthetic skeleton with a twist segment of two helpers and two
 * clips read back exactly; each corrupted skeleton refused with its code;
 * each bad clip dropped with its reason while the others load; a file that
 * is not soma-clips refused whole; clip timing, slerp, end hold, ground
 * offset and ground speed; a shared clip file in a temporary folder read
 * once for two characters and released; twist helpers take their fraction
 * of the twist (and none of the swing); posing against a double-precision
 * reference; per-frame posing allocates nothing; truncation and
 * out-of-memory sweeps.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <marionette/blend_tree.h>
#include <marionette/clip.h>
#include <marionette/math.h>
#include <marionette/character/soma.h>

#include "counting_alloc.h"
#include "replaced.h"
#include "files.h"

/* Joints: 0 Hips, 1 Spine, 2 UpperArm, 3 ForeArm (the segment's child), 4 Twist1, 5 Twist2, 6 Hand. */
static const char *const NAMES[] = {"Hips", "Spine", "UpperArm", "ForeArm", "Twist1", "Twist2", "Hand"};
enum { J = 7 };
static const int PARENT[J] = {-1, 0, 1, 2, 2, 2, 3};
static const double POS[J][3] = {{0, 1, 0}, {0, 0.2, 0}, {0.2, 0.3, 0}, {0.3, 0, 0},
                                 {0.1, 0, 0}, {0.2, 0, 0}, {0.25, 0, 0}};
/* Twist2's base rotation: 90° about z (x y z w). */
#define BASE2 "[0,0,0.7071067811865476,0.7071067811865476]"

static char *append(char *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    p += vsprintf(p, fmt, ap);
    va_end(ap);
    return p;
}

/* skeleton.json: rest rotations identity, inverse binds the inverse rest translations. */
static void skeleton_json(char *out)
{
    char *p = append(out, "{\"format\":\"aosrig-v2-skeleton\",\"floorY\":0,\"groundOffset\":0.05,"
                          "\"hips\":\"Hips\",\"joints\":[");
    double world[J][3];
    for (int j = 0; j < J; j++) {
        for (int k = 0; k < 3; k++)
            world[j][k] = POS[j][k] + (PARENT[j] >= 0 ? world[PARENT[j]][k] : 0);
        const char *base = j == 4 ? "[0,0,0,1]" : j == 5 ? BASE2 : "null";
        p = append(p, "%s{\"name\":\"%s\",\"parent\":%d,\"localPosition\":[%.17g,%.17g,%.17g],"
                      "\"localRotation\":[0,0,0,1],\"baseLocalRotation\":%s,\"inverseBind\":"
                      "[1,0,0,0,0,1,0,0,0,0,1,0,%.17g,%.17g,%.17g,1]}",
                   j ? "," : "", NAMES[j], PARENT[j], POS[j][0], POS[j][1], POS[j][2], base,
                   -world[j][0], -world[j][1], -world[j][2]);
    }
    append(p, "],\"twist\":[{\"bone\":\"UpperArm\",\"child\":\"ForeArm\",\"helpers\":"
              "[{\"joint\":\"Twist1\",\"fraction\":0.25},{\"joint\":\"Twist2\",\"fraction\":0.75}]}]}");
}

static mn_soma_skeleton *read_skeleton(const char *json)
{
    mn_soma_skeleton *sk = NULL;
    mn_error err;
    if (mn_soma_skeleton_read(json, strlen(json), NAMES, J, NULL, &sk, &err) != MN_OK)
        fail_msg("%s", err.message);
    return sk;
}

static void test_skeleton_read(void **state)
{
    (void)state;
    char json[8192];
    skeleton_json(json);
    mn_soma_skeleton *sk = read_skeleton(json);
    assert_int_equal(sk->joint_count, J);
    assert_int_equal(sk->hips, 0);
    assert_true(sk->ground_offset == 0.05f);
    assert_int_equal(sk->parents[6], 3);
    assert_int_equal(sk->twist_count, 1);
    assert_int_equal(sk->twists[0].bone, 2);
    assert_int_equal(sk->twists[0].child, 3);
    assert_true(sk->twists[0].axis[0] == 1.0f && sk->twists[0].axis[1] == 0.0f);
    assert_int_equal(sk->twists[0].helper_count, 2);
    assert_int_equal(sk->twists[0].helpers[1].joint, 5);
    assert_true(sk->twists[0].helpers[1].fraction == 0.75f);
    assert_int_equal(sk->has_base[5], 1);
    assert_int_equal(sk->has_base[6], 0);
    assert_true(sk->base_local_rotations[4 * 6 + 3] == 1.0f);
    assert_int_equal(mn_soma_skeleton_find(sk, "Hand"), 6);
    assert_int_equal(mn_soma_skeleton_find(sk, "Tail"), UINT32_MAX);
    mn_soma_skeleton_free(sk);
    mn_soma_skeleton_free(NULL);
    /* Without jointNames to match, the same file reads. */
    mn_error err;
    assert_int_equal(mn_soma_skeleton_read(json, strlen(json), NULL, 0, NULL, &sk, &err), MN_OK);
    mn_soma_skeleton_free(sk);
}

typedef struct variant {
    const char *from, *to;
    mn_status code;
} variant;

static void test_skeleton_refusals(void **state)
{
    (void)state;
    char json[8192];
    skeleton_json(json);
    const variant cases[] = {
        {"aosrig-v2-skeleton", "aosrig-v1-skeleton", MN_INVALID_VALUE},
        {"\"parent\":1", "\"parent\":5", MN_INDEX_RANGE},             /* Spine's parent is later */
        {"\"parent\":-1", "\"parent\":-2", MN_INDEX_RANGE},
        {"\"parent\":0", "\"parent\":0.5", MN_JSON_TYPE},
        {"\"name\":\"Spine\"", "\"name\":\"Hips\"", MN_INVALID_VALUE}, /* duplicate name */
        {"\"localRotation\":[0,0,0,1]", "\"localRotation\":[0,0,0,0]", MN_INVALID_VALUE},
        {"\"localRotation\":[0,0,0,1]", "\"localRotation\":[0,0,1]", MN_INVALID_VALUE},
        {"\"localPosition\":[0,1,0]", "\"localPosition\":[0,1e39,0]", MN_NOT_FINITE},
        {"\"localPosition\":[0,1,0]", "\"localPosition\":[0,1e999,0]", MN_JSON_SYNTAX},
        {"\"hips\":\"Hips\"", "\"hips\":\"Pelvis\"", MN_INDEX_RANGE},
        {"\"bone\":\"UpperArm\"", "\"bone\":\"Spine\"", MN_INVALID_VALUE},  /* child not a direct child */
        {"\"child\":\"ForeArm\"", "\"child\":\"Elbow\"", MN_INDEX_RANGE},
        {"\"joint\":\"Twist1\"", "\"joint\":\"Hand\"", MN_INVALID_VALUE},   /* no baseLocalRotation */
        {"\"joint\":\"Twist1\"", "\"joint\":\"ForeArm\"", MN_INVALID_VALUE},/* the child */
        {"\"joint\":\"Twist1\"", "\"joint\":\"Twist2\"", MN_INVALID_VALUE}, /* listed twice */
        {"\"fraction\":0.25", "\"fraction\":\"a\"", MN_JSON_TYPE},
        {"\"inverseBind\":[1,0,0,0,", "\"inverseBind\":[0,0,0,", MN_INVALID_VALUE},
        {"\"joints\":[", "\"joints\":{},\"x\":[", MN_JSON_TYPE},
        {"{\"format\"", "[{\"format\"", MN_JSON_SYNTAX},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char *bad = mn_test_replaced(json, cases[c].from, cases[c].to);
        mn_soma_skeleton *sk = (mn_soma_skeleton *)bad;
        mn_error err;
        mn_status st = mn_soma_skeleton_read(bad, strlen(bad), NAMES, J, NULL, &sk, &err);
        if (st != cases[c].code)
            fail_msg("case %zu (%s): got %s: %s", c, cases[c].to, mn_status_name(st), err.message);
        assert_null(sk);
        free(bad);
    }
    /* A zero-length child offset gives the twist no axis. */
    char *bad = mn_test_replaced(json, "\"localPosition\":[0.29999999999999999,0,0]", "\"localPosition\":[0,0,0]");
    mn_soma_skeleton *sk;
    mn_error err;
    assert_int_equal(mn_soma_skeleton_read(bad, strlen(bad), NAMES, J, NULL, &sk, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.path, "twist[0]"));
    free(bad);
    /* Names must equal jointNames in order. */
    const char *swapped[J] = {"Hips", "UpperArm", "Spine", "ForeArm", "Twist1", "Twist2", "Hand"};
    assert_int_equal(mn_soma_skeleton_read(json, strlen(json), swapped, J, NULL, &sk, &err), MN_COUNT_MISMATCH);
    assert_int_equal(mn_soma_skeleton_read(json, strlen(json), NAMES, J - 1, NULL, &sk, &err), MN_COUNT_MISMATCH);
}

/* Two clips: "walk" (2 frames at 10 fps, locomotion, speed 1.5) and "wave" (3 frames, loop). */
static const char CLIPS[] =
    "{\"format\":\"soma-clips\",\"clips\":["
    "{\"name\":\"walk\",\"fps\":10,\"frames\":2,\"loop\":true,\"locomotion\":true,\"speed\":1.5,"
    "\"bones\":{\"UpperArm\":[0,0,0,2, 0,0,0.7071067811865476,0.7071067811865476]},"
    "\"root\":[0,1,0, 0.2,1,0]},"
    "{\"name\":\"wave\",\"fps\":30,\"frames\":3,\"speed\":null,"
    "\"bones\":{\"ForeArm\":[0,0,0,1, 0,0,0,1, 0,0,0,-1],\"Hand\":[0,0,0,1, 0,0,0,1, 0,0,0,1]},"
    "\"root\":[0,0.9,0, 0,0.9,0, 0,0.9,0]}]}";

static mn_soma_clips *read_clips(const mn_soma_skeleton *sk, const char *json)
{
    mn_soma_clips *c = NULL;
    mn_error err;
    if (mn_soma_clips_read(json, strlen(json), sk, NULL, &c, &err) != MN_OK)
        fail_msg("%s", err.message);
    return c;
}

static void test_clips_read_and_sample(void **state)
{
    (void)state;
    char json[8192];
    skeleton_json(json);
    mn_soma_skeleton *sk = read_skeleton(json);
    mn_soma_clips *clips = read_clips(sk, CLIPS);
    assert_int_equal(clips->clip_count, 2);
    assert_int_equal(clips->dropped_count, 0);
    const mn_soma_clip *walk = mn_soma_clips_find(clips, "walk");
    assert_non_null(walk);
    assert_true(walk->locomotion && walk->loop);
    assert_true(walk->speed == 1.5f);
    assert_true(fabsf(walk->duration - 0.1f) < 1e-7f);
    const mn_soma_clip *wave = mn_soma_clips_find(clips, "wave");
    assert_false(wave->loop || wave->locomotion);
    assert_true(wave->speed == 0.0f);
    assert_true(fabsf(mn_clip_duration(wave->clip) - 2.0f / 30) < 1e-7f);
    assert_null(mn_soma_clips_find(clips, "run"));

    float storage[1024];
    mn_pose pose;
    assert_true(mn_pose_storage_size(J) <= sizeof storage);
    mn_pose_init(&pose, J, storage);
    /* Halfway: the UpperArm slerps to 45° about z, the root lerps, groundOffset lifts it. */
    mn_soma_rest_pose(sk, &pose);
    assert_int_equal(mn_clip_sample(walk->clip, 0.05f, &pose, NULL), MN_OK);
    const float *q = pose.rotations + 4 * 2;
    assert_true(fabsf(q[2] - sinf(0.3926991f)) < 1e-5f && fabsf(q[3] - cosf(0.3926991f)) < 1e-5f);
    assert_true(fabsf(pose.translations[0] - 0.1f) < 1e-6f);
    assert_true(fabsf(pose.translations[1] - 1.05f) < 1e-6f);
    /* Unnamed joints keep their rest. */
    assert_true(pose.translations[3 * 6] == 0.25f && pose.rotations[4 * 6 + 3] == 1.0f);
    /* Past the end the last frame holds; before the start the first. */
    assert_int_equal(mn_clip_sample(walk->clip, 7.0f, &pose, NULL), MN_OK);
    assert_true(fabsf(pose.translations[0] - 0.2f) < 1e-6f);
    assert_int_equal(mn_clip_sample(walk->clip, -1.0f, &pose, NULL), MN_OK);
    assert_true(fabsf(pose.translations[0]) < 1e-7f && fabsf(pose.rotations[4 * 2 + 3] - 1) < 1e-6f);
    /* Frame 2 of wave is −identity: the short arc keeps the forearm still. */
    assert_int_equal(mn_clip_sample(wave->clip, 1.5f / 30, &pose, NULL), MN_OK);
    assert_true(fabsf(fabsf(pose.rotations[4 * 3 + 3]) - 1) < 1e-6f);
    mn_soma_clips_free(clips);
    mn_soma_skeleton_free(sk);
}

/* The clips are ordinary clips: a blend tree plays them, on the SOMA rest pose as bind. */
static void test_clips_play_in_blend_tree(void **state)
{
    (void)state;
    char json[8192];
    skeleton_json(json);
    mn_soma_skeleton *sk = read_skeleton(json);
    mn_soma_clips *clips = read_clips(sk, CLIPS);
    mn_pose bind, out, direct;
    mn_error err;
    assert_int_equal(mn_pose_create(&bind, J, NULL, &err), MN_OK);
    assert_int_equal(mn_pose_create(&out, J, NULL, &err), MN_OK);
    assert_int_equal(mn_pose_create(&direct, J, NULL, &err), MN_OK);
    mn_soma_rest_pose(sk, &bind);
    const mn_blend_node nodes[] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = mn_soma_clips_find(clips, "walk")->clip, .loop = true},
        {.kind = MN_BLEND_NODE_CLIP, .clip = mn_soma_clips_find(clips, "wave")->clip},
        {.kind = MN_BLEND_NODE_LERP, .a = 0, .b = 1, .parameter = "mix"},
    };
    mn_blend_tree_desc desc = {.nodes = nodes, .node_count = 3, .root = 2, .bind = &bind};
    mn_blend_tree *tree = NULL;
    assert_int_equal(mn_blend_tree_create(&desc, &tree, &err), MN_OK);
    assert_int_equal(mn_blend_tree_set(tree, "mix", 0.0f, &err), MN_OK);
    /* mix 0 at t = 0.125 (0.025 into the second loop of walk) is walk sampled at 0.025. */
    assert_int_equal(mn_blend_tree_evaluate(tree, 0.125f, &out, &err), MN_OK);
    mn_pose_copy(&direct, &bind);
    assert_int_equal(mn_clip_sample(nodes[0].clip, 0.025f, &direct, NULL), MN_OK);
    for (uint32_t k = 0; k < 3 * J; k++)
        assert_true(fabsf(out.translations[k] - direct.translations[k]) < 1e-5f);
    for (uint32_t k = 0; k < 4 * J; k++)
        assert_true(fabsf(out.rotations[k] - direct.rotations[k]) < 1e-5f);
    /* mix 1: the wave clip's hips height (root 0.9 + groundOffset). */
    assert_int_equal(mn_blend_tree_set(tree, "mix", 1.0f, &err), MN_OK);
    assert_int_equal(mn_blend_tree_evaluate(tree, 0.01f, &out, &err), MN_OK);
    assert_true(fabsf(out.translations[1] - 0.95f) < 1e-6f);
    mn_blend_tree_free(tree);
    mn_pose_free(&bind);
    mn_pose_free(&out);
    mn_pose_free(&direct);
    mn_soma_clips_free(clips);
    mn_soma_skeleton_free(sk);
}

static void test_clips_dropped(void **state)
{
    (void)state;
    char json[8192];
    skeleton_json(json);
    mn_soma_skeleton *sk = read_skeleton(json);
    /* Each variant breaks "walk" only: "wave" still loads. */
    const variant cases[] = {
        {"0,0,0.7071067811865476,0.7071067811865476]", "0,0,0.7]", MN_COUNT_MISMATCH},
        {"\"UpperArm\":", "\"Tail\":", MN_INDEX_RANGE},
        {"0,0,0,2,", "0,0,1e39,2,", MN_NOT_FINITE},
        {"0,0,0,2,", "0,0,0,0,", MN_INVALID_VALUE},
        {"\"fps\":10", "\"fps\":0", MN_INVALID_VALUE},
        {"\"fps\":10", "\"fps\":-3", MN_INVALID_VALUE},
        {"\"frames\":2", "\"frames\":1.5", MN_INVALID_VALUE},
        {"\"frames\":2", "\"frames\":1000000000", MN_COUNT_MISMATCH}, /* no 12 GB allocation */
        {"\"frames\":2", "\"frames\":1e12", MN_INVALID_VALUE},
        {"\"root\":[0,1,0, 0.2,1,0]", "\"root\":[0,1,0]", MN_COUNT_MISMATCH},
        {",\"root\":[0,1,0, 0.2,1,0]", "", MN_MISSING_PROPERTY},
        {"\"loop\":true", "\"loop\":1", MN_JSON_TYPE},
        {"\"speed\":1.5", "\"speed\":\"fast\"", MN_JSON_TYPE},
        {"0,0,0,2,", "0,0,\"x\",2,", MN_JSON_TYPE},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char *bad = mn_test_replaced(CLIPS, cases[c].from, cases[c].to);
        mn_soma_clips *clips = read_clips(sk, bad);
        assert_int_equal(clips->clip_count, 1);
        assert_string_equal(clips->clips[0].name, "wave");
        assert_int_equal(clips->dropped_count, 1);
        if (clips->dropped[0].code != cases[c].code)
            fail_msg("case %zu: got %s: %s", c, mn_status_name(clips->dropped[0].code),
                     clips->dropped[0].message);
        assert_int_equal(clips->dropped[0].index, 0);
        assert_string_equal(clips->dropped[0].name, "walk");
        assert_non_null(strstr(clips->dropped[0].message, "clips[0]"));
        mn_soma_clips_free(clips);
        free(bad);
    }
    /* A later clip with an earlier kept clip's name is dropped; the first stays. */
    char *dup = mn_test_replaced(CLIPS, "\"name\":\"wave\"", "\"name\":\"walk\"");
    mn_soma_clips *clips = read_clips(sk, dup);
    assert_int_equal(clips->clip_count, 1);
    assert_int_equal(clips->dropped[0].index, 1);
    assert_int_equal(clips->dropped[0].code, MN_INVALID_VALUE);
    assert_true(clips->clips[0].locomotion);
    mn_soma_clips_free(clips);
    free(dup);
    /* Not a soma-clips file at all: refused whole. */
    const variant whole[] = {
        {"soma-clips", "soma-clip", MN_INVALID_VALUE},
        {"\"clips\":[", "\"clip\":[", MN_MISSING_PROPERTY},
        {"\"root\":[0,1,0,", "\"root\":[1e999,1,0,", MN_JSON_SYNTAX},
        {"{\"format\"", "{{\"format\"", MN_JSON_SYNTAX},
    };
    for (size_t c = 0; c < sizeof whole / sizeof *whole; c++) {
        char *bad = mn_test_replaced(CLIPS, whole[c].from, whole[c].to);
        mn_soma_clips *out = (mn_soma_clips *)bad;
        mn_error err;
        assert_int_equal(mn_soma_clips_read(bad, strlen(bad), sk, NULL, &out, &err), whole[c].code);
        assert_null(out);
        free(bad);
    }
    mn_soma_skeleton_free(sk);
}

static void test_shared_clip_cache(void **state)
{
    (void)state;
    char json[8192];
    skeleton_json(json);
    mn_soma_skeleton *a = read_skeleton(json), *b = read_skeleton(json);
    /* The shared pack is a file in a temporary folder, read as bytes by the caller. */
    char dir[64];
    mn_test_make_temp_dir(dir, sizeof dir, "soma");
    char path[128];
    snprintf(path, sizeof path, "%s/shared_clips.json", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    const char *shared_text = "{\"format\":\"soma-clips\",\"clips\":["
                              "{\"name\":\"idle\",\"fps\":30,\"frames\":1,\"root\":[0,1,0]},"
                              "{\"name\":\"wave\",\"fps\":30,\"frames\":1,\"root\":[0,2,0]}]}";
    fputs(shared_text, f);
    fclose(f);
    char bytes[1024];
    f = fopen(path, "rb");
    size_t n = fread(bytes, 1, sizeof bytes, f);
    fclose(f);

    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_soma_clip_cache *cache;
    mn_error err;
    assert_int_equal(mn_soma_clip_cache_create(&hooks, &cache, &err), MN_OK);
    const mn_soma_clips *s1, *s2;
    assert_int_equal(mn_soma_clip_cache_acquire(cache, path, bytes, n, a, &s1, &err), MN_OK);
    size_t allocs = counter.allocs;
    /* The second character gets the same clips without a read (no bytes needed). */
    assert_int_equal(mn_soma_clip_cache_acquire(cache, path, NULL, 0, b, &s2, &err), MN_OK);
    assert_ptr_equal(s1, s2);
    assert_int_equal(counter.allocs, allocs);
    assert_int_equal(mn_soma_clip_cache_count(cache), 1);
    /* A package clip of the same name wins; the shared one is listed as shadowed. */
    mn_soma_clips *own = read_clips(a, CLIPS);
    assert_ptr_equal(mn_soma_clips_lookup(own, s1, "wave"), mn_soma_clips_find(own, "wave"));
    assert_ptr_equal(mn_soma_clips_lookup(own, s1, "idle"), &s1->clips[0]);
    assert_false(mn_soma_clips_shadowed(own, s1, 0));
    assert_true(mn_soma_clips_shadowed(own, s1, 1));
    mn_soma_clips_free(own);
    /* Other joints: refused.  Unknown key without bytes: refused. */
    char *other = mn_test_replaced(json, "\"Hand\"", "\"Palm\"");
    mn_soma_skeleton *c = NULL;
    assert_int_equal(mn_soma_skeleton_read(other, strlen(other), NULL, 0, NULL, &c, &err), MN_OK);
    const mn_soma_clips *s3;
    assert_int_equal(mn_soma_clip_cache_acquire(cache, path, bytes, n, c, &s3, &err), MN_COUNT_MISMATCH);
    assert_int_equal(mn_soma_clip_cache_acquire(cache, "nowhere", NULL, 0, a, &s3, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_soma_clip_cache_acquire(cache, "bad", "{}", 2, a, &s3, &err), MN_MISSING_PROPERTY);
    assert_int_equal(mn_soma_clip_cache_count(cache), 1);
    mn_soma_skeleton_free(c);
    free(other);
    /* Released by both: gone, memory back; the next acquire reads again. */
    mn_soma_clip_cache_release(cache, s1);
    assert_int_equal(mn_soma_clip_cache_count(cache), 1);
    mn_soma_clip_cache_release(cache, s2);
    assert_int_equal(mn_soma_clip_cache_count(cache), 0);
    assert_int_equal(mn_soma_clip_cache_acquire(cache, path, bytes, n, a, &s1, &err), MN_OK);
    mn_soma_clip_cache_free(cache); /* frees what is still held */
    assert_int_equal(counter.live_bytes, 0);
    remove(path);
    rmdir(dir);
    mn_soma_skeleton_free(a);
    mn_soma_skeleton_free(b);
}

/* ---- twist and posing --------------------------------------------------------------- */

static void quat_axis_angle_d(double out[4], const double axis[3], double angle)
{
    double s = sin(angle / 2);
    out[0] = axis[0] * s;
    out[1] = axis[1] * s;
    out[2] = axis[2] * s;
    out[3] = cos(angle / 2);
}

static void quat_mul_d(double o[4], const double a[4], const double b[4])
{
    double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                   a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                   a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                   a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(o, r, sizeof r);
}

static void test_twist_fraction(void **state)
{
    (void)state;
    char json[8192];
    skeleton_json(json);
    mn_soma_skeleton *sk = read_skeleton(json);
    float storage[1024];
    mn_pose pose;
    mn_pose_init(&pose, J, storage);
    const double x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
    const double base2[4] = {0, 0, sqrt(0.5), sqrt(0.5)};
    for (int i = -7; i <= 7; i++) {
        double theta = i * 0.4; /* up to ±2.8 rad of twist */
        /* Swing (about y) after twist (about x): the helpers take only the twist. */
        double tw[4], sw[4], q[4];
        quat_axis_angle_d(tw, x, theta);
        quat_axis_angle_d(sw, y, 0.6);
        quat_mul_d(q, sw, tw);
        mn_soma_rest_pose(sk, &pose);
        for (int k = 0; k < 4; k++)
            pose.rotations[4 * 3 + k] = (float)q[k];
        mn_soma_apply_twist(sk, &pose);
        const double frac[2] = {0.25, 0.75};
        for (int h = 0; h < 2; h++) {
            double part[4], want[4];
            quat_axis_angle_d(part, x, frac[h] * theta);
            if (h == 1)
                quat_mul_d(want, base2, part);
            else
                memcpy(want, part, sizeof want);
            const float *got = pose.rotations + 4 * (4 + h);
            for (int k = 0; k < 4; k++)
                assert_true(fabs(got[k] - want[k]) < 2e-6);
        }
        /* The twist angle read back from the child is θ (the swing is about a perpendicular axis). */
        const float axis[3] = {1, 0, 0};
        assert_true(fabs(mn_soma_twist_angle(pose.rotations + 12, axis) - theta) < 2e-6);
    }
    /* −q is the same rotation and gives the same helpers. */
    const float neg[4] = {-0.3826834f, 0, 0, -0.9238795f}, axis[3] = {1, 0, 0};
    assert_true(fabsf(mn_soma_twist_angle(neg, axis) - 0.7853982f) < 1e-6f);
    const float zero[4] = {0, 1, 0, 0};
    assert_true(mn_soma_twist_angle(zero, axis) == 0.0f);
    mn_soma_skeleton_free(sk);
}

/* Double-precision reference: local = T·R, world = parent·local, skin = world·inverseBind. */
static void reference_pose(const mn_soma_skeleton *sk, const mn_pose *pose, double worlds[][16],
                           double skin[][16])
{
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        const float *q = pose->rotations + 4 * j, *t = pose->translations + 3 * j;
        double x = q[0], y = q[1], z = q[2], w = q[3];
        double l[16] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w), 0,
                        2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0,
                        2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y), 0,
                        t[0], t[1], t[2], 1};
        int p = sk->parents[j];
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) {
                double s = 0;
                for (int k = 0; k < 4; k++)
                    s += (p < 0 ? (k == r) : worlds[p][4 * k + r]) * l[4 * c + k];
                worlds[j][4 * c + r] = s;
            }
        const float *ib = sk->inverse_bind + 16 * j;
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) {
                double s = 0;
                for (int k = 0; k < 4; k++)
                    s += worlds[j][4 * k + r] * ib[4 * c + k];
                skin[j][4 * c + r] = s;
            }
    }
}

static void test_pose_against_reference(void **state)
{
    (void)state;
    char json[8192];
    skeleton_json(json);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_soma_skeleton *sk = NULL;
    mn_error err;
    assert_int_equal(mn_soma_skeleton_read(json, strlen(json), NAMES, J, &hooks, &sk, &err), MN_OK);
    mn_soma_clips *clips = NULL;
    assert_int_equal(mn_soma_clips_read(CLIPS, strlen(CLIPS), sk, &hooks, &clips, &err), MN_OK);
    float storage[1024], worlds[16 * J], skin[16 * J];
    mn_pose pose;
    mn_pose_init(&pose, J, storage);
    /* At rest every skin matrix is the identity, but Twist2's: the poser gives it its base
       rotation, which its rest stance (identity here) and inverse bind do not include. */
    mn_soma_rest_pose(sk, &pose);
    mn_soma_pose(sk, &pose, worlds, skin);
    for (int j = 0; j < J; j++)
        for (int k = 0; k < 16 && j != 5; k++)
            assert_true(fabsf(skin[16 * j + k] - (k % 5 == 0 ? 1.0f : 0.0f)) < 1e-6f);
    size_t allocs = counter.allocs;
    for (int frame = 0; frame < 20; frame++) {
        float t = frame * 0.01f;
        mn_soma_rest_pose(sk, &pose);
        assert_int_equal(mn_clip_sample(clips->clips[0].clip, t, &pose, NULL), MN_OK);
        /* Twist the forearm too, so the helpers move. */
        const float axis[3] = {0.6f, 0.8f, 0};
        mn_quat_from_axis_angle(pose.rotations + 12, axis, 0.3f * (float)frame);
        mn_soma_pose(sk, &pose, worlds, skin);
        double rw[J][16], rs[J][16];
        reference_pose(sk, &pose, rw, rs);
        for (int j = 0; j < J; j++)
            for (int k = 0; k < 16; k++) {
                assert_true(fabs(worlds[16 * j + k] - rw[j][k]) < 1e-5);
                assert_true(fabs(skin[16 * j + k] - rs[j][k]) < 1e-5);
            }
    }
    /* Sampling and posing allocate nothing per frame. */
    assert_int_equal(counter.allocs, allocs);
    mn_soma_clips_free(clips);
    mn_soma_skeleton_free(sk);
    assert_int_equal(counter.live_bytes, 0);
}

static void test_sweeps(void **state)
{
    (void)state;
    char json[8192];
    skeleton_json(json);
    size_t len = strlen(json);
    for (size_t n = 0; n < len; n += 7) {
        mn_soma_skeleton *sk = NULL;
        mn_error err;
        assert_int_not_equal(mn_soma_skeleton_read(json, n, NAMES, J, NULL, &sk, &err), MN_OK);
        assert_null(sk);
    }
    mn_soma_skeleton *sk = read_skeleton(json);
    for (size_t n = 0; n < sizeof CLIPS - 1; n += 5) {
        mn_soma_clips *c = NULL;
        mn_error err;
        if (mn_soma_clips_read(CLIPS, n, sk, NULL, &c, &err) == MN_OK)
            mn_soma_clips_free(c);
    }
    for (long fail = 0; fail < 200; fail++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = fail;
        mn_allocator hooks = mn_counting_allocator(&counter);
        mn_soma_skeleton *s2 = NULL;
        mn_soma_clips *c = NULL;
        mn_error err;
        mn_status st = mn_soma_skeleton_read(json, len, NAMES, J, &hooks, &s2, &err);
        if (st == MN_OK) {
            st = mn_soma_clips_read(CLIPS, sizeof CLIPS - 1, s2, &hooks, &c, &err);
            if (st == MN_OK)
                mn_soma_clips_free(c);
            mn_soma_skeleton_free(s2);
        }
        assert_true(st == MN_OK || st == MN_OUT_OF_MEMORY);
        assert_int_equal(counter.live_bytes, 0);
    }
    mn_soma_skeleton_free(sk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skeleton_read),
        cmocka_unit_test(test_skeleton_refusals),
        cmocka_unit_test(test_clips_read_and_sample),
        cmocka_unit_test(test_clips_play_in_blend_tree),
        cmocka_unit_test(test_clips_dropped),
        cmocka_unit_test(test_shared_clip_cache),
        cmocka_unit_test(test_twist_fraction),
        cmocka_unit_test(test_pose_against_reference),
        cmocka_unit_test(test_sweeps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
