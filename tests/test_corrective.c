/*
 * Pose correctives (§6, §11 "Correctives"): an index read back exactly;
 * every refusal with its code (format, version, splatCount, unknown joint,
 * fromDeg ≥ toDeg, curve, sides, missing files, paths that are not plain);
 * the plain-path rule itself; arm elevation through the SOMA poser, which
 * a torso lean does not change; smoothstep weights; at most two
 * corrections played with the rest flagged; the state a playing character
 * keeps (each slot's angle and weight, the switch); truncation and memory
 * sweeps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <marionette/character/corrective.h>
#include <marionette/math.h>
#include <marionette/character/soma.h>

#include "counting_alloc.h"
#include "replaced.h"

static const char *const NAMES[] = {"Hips", "Spine", "LeftArm", "LeftForeArm", "RightArm", "RightForeArm"};
enum { J = 6, SPLATS = 5000 };

#define FILES(p) "\"files\":{\"points\":\"" p "/points.bin\",\"pointsSide\":\"" p "/points_side.bin\"," \
    "\"bindings\":\"" p "/bindings.bin\",\"side\":\"" p "/side.bin\",\"fade\":\"" p "/fade.bin\"}"
#define DRIVE(side, upper, next) "{\"side\":" #side ",\"bone\":[\"" upper "\",\"" next "\"],"  \
    "\"frame\":\"Spine\",\"restDeg\":10,\"fromDeg\":60,\"toDeg\":120,\"curve\":\"smoothstep\"}"
#define CORRECTION(name, points) "{\"name\":\"" name "\",\"label\":\"Shoulder\",\"points\":" #points \
    ",\"trainedDeg\":150," FILES(name) ",\"sha256\":{\"points\":\"ab12\"},\"drives\":[" \
    DRIVE(0, "LeftArm", "LeftForeArm") "," DRIVE(1, "RightArm", "RightForeArm") "]}"

static const char INDEX[] = "{\"format\":\"aosrig-corrective\",\"version\":1,\"splatCount\":5000,"
                            "\"corrections\":[" CORRECTION("raise", 300) "," CORRECTION("reach", 200)
                            "]}";

static mn_corrective_index *read_ok(const char *json)
{
    mn_corrective_index *ix = NULL;
    mn_error err;
    if (mn_corrective_index_read(json, strlen(json), SPLATS, NAMES, J, NULL, &ix, &err) != MN_OK)
        fail_msg("%s", err.message);
    return ix;
}

static void test_read(void **state)
{
    (void)state;
    mn_corrective_index *ix = read_ok(INDEX);
    assert_int_equal(ix->splat_count, SPLATS);
    assert_int_equal(ix->correction_count, 2);
    assert_int_equal(ix->played_count, 2);
    assert_false(ix->extra_warning);
    const mn_correction *c = &ix->corrections[0];
    assert_string_equal(c->name, "raise");
    assert_string_equal(c->label, "Shoulder");
    assert_int_equal(c->points, 300);
    assert_true(c->trained_deg == 150.0f);
    assert_string_equal(c->files[MN_CORRECTIVE_FADE], "raise/fade.bin");
    assert_string_equal(c->sha256[MN_CORRECTIVE_POINTS], "ab12");
    assert_null(c->sha256[MN_CORRECTIVE_BINDINGS]);
    assert_int_equal(c->drive_count, 2);
    assert_int_equal(c->drives[1].side, 1);
    assert_int_equal(c->drives[1].upper, 4);
    assert_int_equal(c->drives[1].next, 5);
    assert_int_equal(c->drives[0].frame, 1);
    assert_true(c->drives[0].rest_deg == 10.0f && c->drives[0].from_deg == 60.0f);
    assert_int_equal(mn_corrective_points(ix), 500);
    mn_corrective_index_free(ix);
    mn_corrective_index_free(NULL);

    /* Three corrections: all read, two played, a warning flagged, points over the first two. */
    size_t n = strlen(INDEX);
    char *more = malloc(n + 1024);
    memcpy(more, INDEX, n - 2);
    strcpy(more + n - 2, "," CORRECTION("third", 1000) "]}");
    ix = read_ok(more);
    assert_int_equal(ix->correction_count, 3);
    assert_int_equal(ix->played_count, 2);
    assert_true(ix->extra_warning);
    assert_int_equal(mn_corrective_points(ix), 500);
    mn_corrective_index_free(ix);
    free(more);
}

typedef struct variant {
    const char *from, *to;
    mn_status code;
} variant;

static void test_refusals(void **state)
{
    (void)state;
    const variant cases[] = {
        {"aosrig-corrective", "aosrig-correctives", MN_INVALID_VALUE},
        {"\"version\":1", "\"version\":2", MN_INVALID_VALUE},
        {"\"splatCount\":5000", "\"splatCount\":4999", MN_COUNT_MISMATCH},
        {"\"LeftForeArm\"", "\"LeftHand\"", MN_INDEX_RANGE},
        {"\"frame\":\"Spine\"", "\"frame\":\"Chest\"", MN_INDEX_RANGE},
        {"\"fromDeg\":60", "\"fromDeg\":120", MN_INVALID_VALUE},
        {"\"fromDeg\":60", "\"fromDeg\":130", MN_INVALID_VALUE},
        {"\"curve\":\"smoothstep\"", "\"curve\":\"linear\"", MN_INVALID_VALUE},
        {"\"side\":1", "\"side\":0", MN_INVALID_VALUE},
        {"\"side\":1", "\"side\":2", MN_INVALID_VALUE},
        {"\"fade\":\"raise/fade.bin\"", "\"fades\":\"raise/fade.bin\"", MN_MISSING_PROPERTY},
        {"raise/points.bin", "../points.bin", MN_INVALID_VALUE},
        {"raise/points.bin", "/raise/points.bin", MN_INVALID_VALUE},
        {"raise/points.bin", "raise\\\\points.bin", MN_INVALID_VALUE},
        {"raise/points.bin", "raise//points.bin", MN_INVALID_VALUE},
        {"raise/points.bin", "c:points.bin", MN_INVALID_VALUE},
        {"raise/points.bin", "raise/./points.bin", MN_INVALID_VALUE},
        {"raise/points.bin", "raise/points.bin?x", MN_INVALID_VALUE},
        {"raise/points.bin", "raise/points%2e.bin", MN_INVALID_VALUE},
        {"raise/points.bin", "", MN_INVALID_VALUE},
        {"\"points\":300", "\"points\":-1", MN_INVALID_VALUE},
        {"\"restDeg\":10", "\"restDeg\":1e39", MN_NOT_FINITE},
        {"\"bone\":[\"LeftArm\",", "\"bone\":[", MN_INVALID_VALUE},
        {"\"drives\":[", "\"drives\":[],\"x\":[", MN_INVALID_VALUE},
        {"\"version\":1", "\"version\":1e999", MN_JSON_SYNTAX},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char *bad = mn_test_replaced(INDEX, cases[c].from, cases[c].to);
        mn_corrective_index *ix = (mn_corrective_index *)bad;
        mn_error err;
        mn_status st = mn_corrective_index_read(bad, strlen(bad), SPLATS, NAMES, J, NULL, &ix, &err);
        if (st != cases[c].code)
            fail_msg("case %zu (%s): got %s: %s", c, cases[c].to, mn_status_name(st), err.message);
        assert_null(ix);
        free(bad);
    }
}

static void test_plain_paths(void **state)
{
    (void)state;
    assert_true(mn_corrective_path_is_plain("a", false));
    assert_true(mn_corrective_path_is_plain("raise/points.bin", false));
    assert_true(mn_corrective_path_is_plain("a.b/..c/d..", false));
    assert_false(mn_corrective_path_is_plain(NULL, false));
    assert_false(mn_corrective_path_is_plain("", false));
    assert_false(mn_corrective_path_is_plain("a/", false));
    assert_false(mn_corrective_path_is_plain("a/../b", false));
    assert_false(mn_corrective_path_is_plain(".", false));
    assert_false(mn_corrective_path_is_plain("a\tb", false));
    assert_false(mn_corrective_path_is_plain("a#b", false));
    assert_false(mn_corrective_path_is_plain("../clips.json", false));
    /* A shared clip pack's src may climb out with leading "../" segments only. */
    assert_true(mn_corrective_path_is_plain("../clips.json", true));
    assert_true(mn_corrective_path_is_plain("../../shared/clips.json", true));
    assert_false(mn_corrective_path_is_plain("../a/../b", true));
    assert_false(mn_corrective_path_is_plain("../", true));
    assert_false(mn_corrective_path_is_plain("/../a", true));
}

/* A T-pose: arms along ±x from the spine, rest rotations identity. */
static void arm_skeleton_json(char *out)
{
    static const int parent[J] = {-1, 0, 1, 2, 1, 4};
    static const double pos[J][3] = {{0, 1, 0}, {0, 0.3, 0}, {0.2, 0.2, 0}, {0.3, 0, 0},
                                     {-0.2, 0.2, 0}, {-0.3, 0, 0}};
    double world[J][3];
    char *p = out + sprintf(out, "{\"format\":\"aosrig-v2-skeleton\",\"hips\":\"Hips\",\"joints\":[");
    for (int j = 0; j < J; j++) {
        for (int k = 0; k < 3; k++)
            world[j][k] = pos[j][k] + (parent[j] >= 0 ? world[parent[j]][k] : 0);
        p += sprintf(p, "%s{\"name\":\"%s\",\"parent\":%d,\"localPosition\":[%.17g,%.17g,%.17g],"
                        "\"localRotation\":[0,0,0,1],\"baseLocalRotation\":null,\"inverseBind\":"
                        "[1,0,0,0,0,1,0,0,0,0,1,0,%.17g,%.17g,%.17g,1]}",
                     j ? "," : "", NAMES[j], parent[j], pos[j][0], pos[j][1], pos[j][2],
                     -world[j][0], -world[j][1], -world[j][2]);
    }
    strcpy(p, "]}");
}

static float left_elevation(const mn_soma_skeleton *sk, mn_pose *pose, float *worlds, float *skin)
{
    mn_soma_pose(sk, pose, worlds, skin);
    return mn_corrective_arm_angle_deg(skin + 16 * 1, worlds + 16 * 2 + 12, worlds + 16 * 3 + 12);
}

static void test_arm_elevation(void **state)
{
    (void)state;
    char json[4096];
    arm_skeleton_json(json);
    mn_soma_skeleton *sk = NULL;
    mn_error err;
    assert_int_equal(mn_soma_skeleton_read(json, strlen(json), NAMES, J, NULL, &sk, &err), MN_OK);
    float storage[512], worlds[16 * J], skin[16 * J];
    mn_pose pose;
    mn_pose_init(&pose, J, storage);
    const float z[3] = {0, 0, 1}, x[3] = {1, 0, 0};

    /* T-pose: 90° from straight down. */
    mn_soma_rest_pose(sk, &pose);
    assert_true(fabsf(left_elevation(sk, &pose, worlds, skin) - 90) < 1e-3f);
    /* Raised 45° (about +z the +x arm turns up). */
    mn_quat_from_axis_angle(pose.rotations + 4 * 2, z, 0.7853982f);
    assert_true(fabsf(left_elevation(sk, &pose, worlds, skin) - 135) < 1e-3f);
    /* Hanging: −90° about z: 0°. */
    mn_quat_from_axis_angle(pose.rotations + 4 * 2, z, -1.5707963f);
    assert_true(fabsf(left_elevation(sk, &pose, worlds, skin)) < 0.05f);

    /* A torso lean (the spine, the frame joint, turned 35° forward and 25° sideways) carries the
       arm with it in world space, but the elevation is unchanged. */
    for (int raise = -2; raise <= 2; raise++) {
        mn_soma_rest_pose(sk, &pose);
        mn_quat_from_axis_angle(pose.rotations + 4 * 2, z, 0.3f * (float)raise);
        float upright = left_elevation(sk, &pose, worlds, skin);
        float lean[4], a[4], b[4];
        mn_quat_from_axis_angle(a, x, 0.6108652f);
        mn_quat_from_axis_angle(b, z, 0.4363323f);
        mn_quat_mul(lean, a, b);
        memcpy(pose.rotations + 4 * 1, lean, sizeof lean);
        float leaning = left_elevation(sk, &pose, worlds, skin);
        assert_true(fabsf(leaning - upright) < 1e-3f);
        /* ...while the world direction did change. */
        float dy = worlds[16 * 3 + 13] - worlds[16 * 2 + 13];
        assert_true(fabsf(dy - 0.3f * sinf(0.3f * (float)raise)) > 1e-3f);
    }
    const float same[3] = {1, 2, 3};
    assert_true(mn_corrective_arm_angle_deg(skin, same, same) == 0.0f);

    /* The four weights through an index: left raised to 135° (weight 1), right at rest (90°, 0.5). */
    mn_corrective_index *ix = read_ok(INDEX);
    mn_soma_rest_pose(sk, &pose);
    mn_quat_from_axis_angle(pose.rotations + 4 * 2, z, 0.7853982f);
    mn_soma_pose(sk, &pose, worlds, skin);
    float w[4];
    mn_corrective_weights(ix, worlds, skin, w);
    assert_true(fabsf(w[0] - 1) < 1e-6f);
    assert_true(fabsf(w[1] - 0.5f) < 1e-4f);
    assert_true(fabsf(w[2] - 1) < 1e-6f && fabsf(w[3] - 0.5f) < 1e-4f);
    mn_corrective_index_free(ix);
    mn_soma_skeleton_free(sk);
}

/* One correction with a left drive only: slot 1 (its right) is fed by nothing. */
static const char LEFT_ONLY[] =
    "{\"format\":\"aosrig-corrective\",\"version\":1,\"splatCount\":5000,\"corrections\":["
    "{\"name\":\"raise\",\"label\":\"L\",\"points\":4,\"trainedDeg\":150," FILES("raise") ","
    "\"drives\":[" DRIVE(0, "LeftArm", "LeftForeArm") "]}]}";

static bool floats_same(const float *a, const float *b, int n)
{
    return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/*
 * The corrective state (character.md's AosrigCorrectiveState): the angles per
 * slot are the drives' elevations, the weights those of mn_corrective_weights
 * while on; off, every weight is 0 at once and on every update, while the
 * angles are still measured; back on, the weights return.  No allocation.
 */
static void a_state_gives_each_slots_angle_and_off_zeroes_the_weights(void **state)
{
    (void)state;
    char json[4096];
    arm_skeleton_json(json);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_soma_skeleton *sk = NULL;
    mn_corrective_index *ix = NULL, *left = NULL;
    mn_error err;
    assert_int_equal(mn_soma_skeleton_read(json, strlen(json), NAMES, J, &hooks, &sk, &err), MN_OK);
    assert_int_equal(mn_corrective_index_read(INDEX, strlen(INDEX), SPLATS, NAMES, J, &hooks, &ix,
                                              &err), MN_OK);
    assert_int_equal(mn_corrective_index_read(LEFT_ONLY, strlen(LEFT_ONLY), SPLATS, NAMES, J,
                                              &hooks, &left, &err), MN_OK);
    float storage[512], worlds[16 * J], skin[16 * J];
    mn_pose pose;
    mn_pose_init(&pose, J, storage);
    const float z[3] = {0, 0, 1};
    mn_soma_rest_pose(sk, &pose);
    mn_quat_from_axis_angle(pose.rotations + 4 * 2, z, 0.7853982f);   /* left raised to 135° */
    mn_soma_pose(sk, &pose, worlds, skin);

    mn_corrective_state cs;
    memset(&cs, 0x7f, sizeof cs);
    mn_corrective_state_init(&cs);
    assert_true(cs.enabled);
    for (uint32_t s = 0; s < MN_CORRECTIVE_SLOTS; s++)
        assert_true(cs.angles[s] == 0.0f && cs.weights[s] == 0.0f);

    size_t allocs = counter.allocs;
    assert_int_equal(mn_corrective_update(ix, worlds, skin, &cs, &err), MN_OK);
    /* slot 2c + side: each drive's elevation, exactly as the one-arm function measures it */
    const float left_deg = mn_corrective_arm_angle_deg(skin + 16 * 1, worlds + 16 * 2 + 12,
                                                       worlds + 16 * 3 + 12);
    const float right_deg = mn_corrective_arm_angle_deg(skin + 16 * 1, worlds + 16 * 4 + 12,
                                                        worlds + 16 * 5 + 12);
    assert_true(fabsf(left_deg - 135) < 1e-3f && fabsf(right_deg - 90) < 1e-3f);
    const float want_angles[4] = {left_deg, right_deg, left_deg, right_deg};
    assert_true(floats_same(cs.angles, want_angles, 4));
    float w[4];
    mn_corrective_weights(ix, worlds, skin, w);
    assert_true(floats_same(cs.weights, w, 4));
    assert_true(cs.weights[0] == 1.0f && fabsf(cs.weights[1] - 0.5f) < 1e-4f);

    /* off: the weights are 0 at once, the angles kept; updates measure but weigh nothing */
    mn_corrective_set_enabled(&cs, false);
    assert_false(cs.enabled);
    for (uint32_t s = 0; s < MN_CORRECTIVE_SLOTS; s++)
        assert_true(cs.weights[s] == 0.0f);
    assert_true(floats_same(cs.angles, want_angles, 4));
    mn_quat_from_axis_angle(pose.rotations + 4 * 2, z, -1.5707963f);   /* left hanging: 0° */
    mn_soma_pose(sk, &pose, worlds, skin);
    assert_int_equal(mn_corrective_update(ix, worlds, skin, &cs, &err), MN_OK);
    assert_true(cs.angles[0] < 0.05f && fabsf(cs.angles[1] - 90) < 1e-3f);
    for (uint32_t s = 0; s < MN_CORRECTIVE_SLOTS; s++)
        assert_true(cs.weights[s] == 0.0f);

    /* on again: the next update weighs as before */
    mn_corrective_set_enabled(&cs, true);
    assert_int_equal(mn_corrective_update(ix, worlds, skin, &cs, &err), MN_OK);
    mn_corrective_weights(ix, worlds, skin, w);
    assert_true(floats_same(cs.weights, w, 4));
    assert_true(cs.weights[0] == 0.0f && fabsf(cs.weights[1] - 0.5f) < 1e-4f);

    /* a slot no drive feeds: angle and weight 0 */
    assert_int_equal(mn_corrective_update(left, worlds, skin, &cs, &err), MN_OK);
    assert_true(cs.angles[0] < 0.05f);
    for (uint32_t s = 1; s < MN_CORRECTIVE_SLOTS; s++)
        assert_true(cs.angles[s] == 0.0f && cs.weights[s] == 0.0f);
    assert_int_equal(counter.allocs, allocs);   /* updates and switches allocate nothing */

    /* no index (a character without correctives): zeros, the switch kept */
    mn_corrective_set_enabled(&cs, false);
    assert_int_equal(mn_corrective_update(NULL, NULL, NULL, &cs, &err), MN_OK);
    assert_false(cs.enabled);
    for (uint32_t s = 0; s < MN_CORRECTIVE_SLOTS; s++)
        assert_true(cs.angles[s] == 0.0f && cs.weights[s] == 0.0f);

    /* mistakes: an error, the state untouched */
    mn_corrective_state before = cs;
    assert_int_equal(mn_corrective_update(ix, NULL, skin, &cs, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_corrective_update(ix, worlds, NULL, &cs, &err), MN_INVALID_ARGUMENT);
    assert_memory_equal(&cs, &before, sizeof cs);
    assert_int_equal(mn_corrective_update(ix, worlds, skin, NULL, &err), MN_INVALID_ARGUMENT);
    mn_corrective_state_init(NULL);
    mn_corrective_set_enabled(NULL, true);

    mn_corrective_index_free(left);
    mn_corrective_index_free(ix);
    mn_soma_skeleton_free(sk);
    assert_int_equal(counter.live_bytes, 0);
}

static void test_blend_weight(void **state)
{
    (void)state;
    assert_true(mn_corrective_blend_weight(10, 60, 120) == 0.0f);
    assert_true(mn_corrective_blend_weight(60, 60, 120) == 0.0f);
    assert_true(mn_corrective_blend_weight(90, 60, 120) == 0.5f);
    assert_true(mn_corrective_blend_weight(120, 60, 120) == 1.0f);
    assert_true(mn_corrective_blend_weight(170, 60, 120) == 1.0f);
    assert_true(mn_corrective_blend_weight(NAN, 60, 120) == 0.0f);
    for (int d = 60; d <= 120; d += 3) {
        double t = (d - 60) / 60.0, want = t * t * (3 - 2 * t);
        assert_true(fabs(mn_corrective_blend_weight((float)d, 60, 120) - want) < 1e-6);
    }
}

static void test_sweeps(void **state)
{
    (void)state;
    size_t len = strlen(INDEX);
    for (size_t n = 0; n < len; n += 3) {
        mn_corrective_index *ix = NULL;
        mn_error err;
        assert_int_not_equal(mn_corrective_index_read(INDEX, n, SPLATS, NAMES, J, NULL, &ix, &err), MN_OK);
        assert_null(ix);
    }
    for (long fail = 0; fail < 60; fail++) {
        mn_counting_alloc c = mn_counting_alloc_make();
        c.fail_after = fail;
        mn_allocator hooks = mn_counting_allocator(&c);
        mn_corrective_index *ix = NULL;
        mn_error err;
        mn_status st = mn_corrective_index_read(INDEX, len, SPLATS, NAMES, J, &hooks, &ix, &err);
        if (st == MN_OK)
            mn_corrective_index_free(ix);
        else
            assert_int_equal(st, MN_OUT_OF_MEMORY);
        assert_int_equal(c.live_bytes, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_plain_paths),
        cmocka_unit_test(test_arm_elevation),
        cmocka_unit_test(a_state_gives_each_slots_angle_and_off_zeroes_the_weights),
        cmocka_unit_test(test_blend_weight),
        cmocka_unit_test(test_sweeps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
