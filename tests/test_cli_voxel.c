/*
 * `marionette info` and `marionette sample` on a voxel rig, run as a user
 * runs them: the built binary (found through MN_BUILD_DIR, which CTest sets)
 * under popen, on the project's test model tests/data/voxel_arm (rigged, and
 * its skinned variant).  Checks exit statuses (0 ok, 1 a bad rig file, 2 a
 * wrong command line: an unknown animation or joint), that --json is one
 * object with the documented format and counts, parts in rig.json order,
 * clamping of --set values, and that every world matrix printed equals
 * mn_voxel_pose computed here through the library for the same inputs
 * (printed as %.9g, so within 1e-6).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/voxel/rig.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARM "tests/data/voxel_arm/rig.json"
#define ARM_SKINNED "tests/data/voxel_arm/skinned/rig.json"

/* ---- running the tool -------------------------------------------------------- */

#include "run_tool.h"

/* `marionette <args>`; capture_stderr selects the stream that comes back. */
static run_result run(const char *args, int capture_stderr)
{
    return mn_run_tool("marionette", args, capture_stderr);
}

static json_t *parse_json(const run_result *r)
{
    json_error_t jerr;
    json_t *root = json_loadb(r->out, r->size, 0, &jerr);
    if (!root)
        fprintf(stderr, "not JSON: %s at line %d\n%s\n", jerr.text, jerr.line, r->out);
    assert_non_null(root);
    assert_true(json_is_object(root));
    return root;
}

/* Member `key` of obj, failing the test when it is absent. */
static json_t *member(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        fprintf(stderr, "missing member \"%s\"\n", key);
    assert_non_null(v);
    return v;
}

static size_t array_size_of(json_t *obj, const char *key)
{
    json_t *v = member(obj, key);
    assert_true(json_is_array(v));
    return json_array_size(v);
}

static const char *string_of(json_t *obj, const char *key)
{
    json_t *v = member(obj, key);
    assert_true(json_is_string(v));
    return json_string_value(v);
}

static double number_of(json_t *obj, const char *key)
{
    json_t *v = member(obj, key);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

static mn_voxel_rig *read_rig(const char *path)
{
    mn_voxel_rig *rig = NULL;
    mn_error err;
    if (mn_voxel_rig_read_file(path, NULL, &rig, &err) != MN_OK)
        fail_msg("%s: %s", path, err.message);
    return rig;
}

/* ---- info ---------------------------------------------------------------------- */

static void info_text_summarises_parts_joints_animations_and_meshes(void **state)
{
    (void)state;
    run_result r = run("info " ARM, 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "voxel rig, kind cube, voxel_size 0.25"));
    assert_non_null(strstr(r.out, "parts (4):"));
    assert_non_null(strstr(r.out, "joints (5):"));
    assert_non_null(strstr(r.out, "animations (2):"));
    assert_non_null(strstr(r.out, "meshes (4):"));
    assert_non_null(strstr(r.out, "(static attachment)"));   /* tip_mount: a mount, min == max */
    assert_non_null(strstr(r.out, "socket (no geometry)"));  /* meshes/tip.glb */
    assert_non_null(strstr(r.out, "one-shot, 1200 ms, 2 tracks: elbow (3 keys), reach (2 keys)"));
    free(r.out);
}

static void info_json_counts_the_rig_and_names_its_socket(void **state)
{
    (void)state;
    run_result r = run("info " ARM " --json", 0);
    assert_int_equal(r.status, 0);
    json_t *root = parse_json(&r);
    assert_string_equal(string_of(root, "format"), "marionette-voxel-info/1");
    assert_string_equal(string_of(root, "kind"), "cube");
    assert_true(number_of(root, "voxel_size") == 0.25);
    assert_int_equal(array_size_of(root, "parts"), 4);
    assert_int_equal(array_size_of(root, "joints"), 5);
    assert_int_equal(array_size_of(root, "animations"), 2);
    assert_int_equal(array_size_of(root, "meshes"), 4);

    /* rig.json order: fore is listed before its parent upper. */
    json_t *fore = json_array_get(member(root, "parts"), 1);
    assert_string_equal(string_of(fore, "name"), "fore");
    assert_string_equal(string_of(fore, "parent"), "upper");
    assert_int_equal(array_size_of(fore, "joints"), 2);
    assert_true(json_is_null(member(json_array_get(member(root, "parts"), 0), "parent")));

    json_t *mount = member(json_array_get(member(root, "joints"), 4), "mount");
    assert_true(json_is_object(mount));
    assert_true(json_number_value(json_array_get(member(mount, "offset"), 1)) == 1.0);
    json_t *reach = json_array_get(member(root, "joints"), 3);
    assert_string_equal(string_of(reach, "type"), "translation");
    assert_string_equal(string_of(reach, "drive"), "auto");

    json_t *wave = json_array_get(member(root, "animations"), 1);
    assert_true(json_is_false(member(wave, "loop")));
    assert_true(number_of(wave, "duration_ms") == 1200.0);   /* the largest key time */

    /* The tip is a socket: a file with no geometry. */
    json_t *tip = json_array_get(member(root, "meshes"), 3);
    assert_string_equal(string_of(tip, "part"), "tip");
    assert_string_equal(string_of(tip, "file"), "meshes/tip.glb");
    assert_string_equal(string_of(tip, "status"), "socket");
    assert_true(number_of(tip, "vertices") == 0);
    json_t *base = json_array_get(member(root, "meshes"), 0);
    assert_string_equal(string_of(base, "status"), "ok");
    assert_true(number_of(base, "vertices") == 24 && number_of(base, "triangles") == 12);
    json_decref(root);
    free(r.out);
}

static void info_on_the_skinned_variant_reports_its_one_mesh_and_bones(void **state)
{
    (void)state;
    run_result r = run("info " ARM_SKINNED " --json", 0);
    assert_int_equal(r.status, 0);
    json_t *root = parse_json(&r);
    assert_string_equal(string_of(root, "kind"), "mc-skinned");
    assert_int_equal(array_size_of(root, "parts"), 3);
    assert_int_equal(array_size_of(root, "joints"), 3);
    assert_int_equal(array_size_of(root, "meshes"), 1);
    json_t *mesh = json_array_get(member(root, "meshes"), 0);
    assert_true(json_is_null(member(mesh, "part")));
    assert_string_equal(string_of(mesh, "file"), "mesh.glb");
    assert_string_equal(string_of(mesh, "status"), "ok");
    assert_true(number_of(mesh, "vertices") == 72 && number_of(mesh, "triangles") == 36);
    /* Four bones, three of them parts (the extra root of a forest is not). */
    assert_true(number_of(mesh, "bones") == 4);
    assert_true(number_of(mesh, "bones_matched") == 3);
    json_decref(root);
    free(r.out);

    r = run("info " ARM_SKINNED, 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "kind mc-skinned"));
    assert_non_null(strstr(r.out, "4 bones (3 matched to parts)"));
    free(r.out);
}

/* ---- sample -------------------------------------------------------------------------- */

/* One caller value a test sets with --set. */
typedef struct set_value {
    const char *joint;
    double value;
} set_value;

/*
 * Run `sample ARM --json <args>` and check its output against mn_voxel_pose
 * of the same inputs: the animation `anim` (NULL: none) at time_ms over the
 * caller values `sets`.  Returns the parsed output for further checks.
 */
static json_t *sample_matches_the_library(const char *args, const char *anim, double time_ms,
                                          const set_value *sets, size_t set_count)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sample " ARM " --json %s", args);
    run_result r = run(cmd, 0);
    assert_int_equal(r.status, 0);
    json_t *root = parse_json(&r);
    free(r.out);
    assert_string_equal(string_of(root, "format"), "marionette-voxel-sample/1");
    if (anim)
        assert_string_equal(string_of(root, "anim"), anim);
    else
        assert_true(json_is_null(member(root, "anim")));
    assert_true(number_of(root, "time_ms") == time_ms);

    mn_voxel_rig *rig = read_rig(ARM);
    float caller[8], values[8], worlds[16 * 8];
    assert_true(rig->joint_count <= 8 && rig->part_count <= 8);
    for (uint32_t j = 0; j < rig->joint_count; j++)
        caller[j] = NAN;
    for (size_t i = 0; i < set_count; i++) {
        uint32_t j = mn_voxel_rig_find_joint(rig, sets[i].joint);
        assert_int_not_equal(j, MN_NONE);
        caller[j] = (float)sets[i].value;
    }
    uint32_t a = anim ? mn_voxel_rig_find_animation(rig, anim) : MN_NONE;
    mn_voxel_pose_input in = {.caller = caller, .animations = &a,
                              .animation_count = anim ? 1 : 0, .time_ms = time_ms};
    assert_int_equal(mn_voxel_pose(rig, &in, worlds, values), MN_OK);

    json_t *joints = member(root, "joints");
    assert_int_equal(json_object_size(joints), rig->joint_count);
    for (uint32_t j = 0; j < rig->joint_count; j++)
        assert_true(fabs(number_of(joints, rig->joints[j].name) - values[j]) <= 1e-6);

    /* Parts in rig.json order, each world the library's. */
    json_t *parts = member(root, "parts");
    assert_int_equal(json_array_size(parts), rig->part_count);
    for (uint32_t p = 0; p < rig->part_count; p++) {
        json_t *part = json_array_get(parts, p);
        assert_string_equal(string_of(part, "name"), rig->parts[p].name);
        json_t *world = member(part, "world");
        assert_int_equal(json_array_size(world), 16);
        for (size_t i = 0; i < 16; i++) {
            double got = json_number_value(json_array_get(world, i));
            if (!(fabs(got - worlds[p * 16 + i]) <= 1e-6))
                fail_msg("parts[%u] (%s) world[%zu]: printed %.9g, library %.9g", p,
                         rig->parts[p].name, i, got, (double)worlds[p * 16 + i]);
        }
    }
    mn_voxel_rig_free(rig);
    return root;
}

static void sample_an_animation_at_a_time(void **state)
{
    (void)state;
    json_t *root = sample_matches_the_library("--anim idle --time-ms 500", "idle", 500, NULL, 0);
    /* idle drives the shoulder: off its rest (0.2) at 500 ms. */
    assert_true(fabs(number_of(member(root, "joints"), "shoulder") - 0.2) > 0.05);
    json_decref(root);
    /* A one-shot mid-way, over caller values, and past its end (it holds its last keys). */
    const set_value sets[] = {{"turn", 0.3}, {"shoulder", -0.4}};
    root = sample_matches_the_library("--anim wave --time-ms 700 --set turn=0.3 --set shoulder=-0.4",
                                      "wave", 700, sets, 2);
    json_decref(root);
    root = sample_matches_the_library("--anim wave --time-ms 5000", "wave", 5000, NULL, 0);
    assert_true(number_of(member(root, "joints"), "elbow") == 0.5);
    assert_true(number_of(member(root, "joints"), "reach") == 1.5);
    json_decref(root);
    /* A loop a period and a half later, and before 0, wraps. */
    root = sample_matches_the_library("--anim idle --time-ms -1250.5", "idle", -1250.5, NULL, 0);
    json_decref(root);
}

static void sample_set_values_are_clamped_to_the_joint_range(void **state)
{
    (void)state;
    const set_value in_range[] = {{"turn", 0.3}};
    json_t *root = sample_matches_the_library("--set turn=0.3", NULL, 0, in_range, 1);
    assert_true(fabs(number_of(member(root, "joints"), "turn") - 0.3) <= 1e-7);
    json_decref(root);
    /* turn's range is [-3.14159, 3.14159]; elbow's [0, 2]. */
    const set_value out_of_range[] = {{"turn", 7.5}, {"elbow", -1}};
    root = sample_matches_the_library("--set turn=7.5 --set elbow=-1", NULL, 0, out_of_range, 2);
    assert_true(fabs(number_of(member(root, "joints"), "turn") - 3.14159) <= 1e-6);
    assert_true(number_of(member(root, "joints"), "elbow") == 0);
    json_decref(root);
    /* An animation value overrides the caller's for the joints it drives. */
    const set_value shoulder[] = {{"shoulder", 1.0}};
    root = sample_matches_the_library("--anim idle --time-ms 0 --set shoulder=1", "idle", 0,
                                      shoulder, 1);
    assert_true(fabs(number_of(member(root, "joints"), "shoulder") - 0.2) <= 1e-6);
    json_decref(root);
}

static void sample_rest_poses_every_joint_at_its_rest(void **state)
{
    (void)state;
    json_t *root = sample_matches_the_library("--rest", NULL, 0, NULL, 0);
    json_t *joints = member(root, "joints");
    assert_true(fabs(number_of(joints, "shoulder") - 0.2) <= 1e-7);
    assert_true(number_of(joints, "elbow") == 0.5);
    assert_true(number_of(joints, "turn") == 0);
    /* The root part turns only with turn (rest 0): the identity. */
    json_t *base = member(json_array_get(member(root, "parts"), 0), "world");
    for (size_t i = 0; i < 16; i++)
        assert_true(json_number_value(json_array_get(base, i)) == (i % 5 == 0 ? 1.0 : 0.0));
    json_decref(root);
    /* No options at all is the same pose: nothing set, no animation, time 0. */
    json_decref(sample_matches_the_library("", NULL, 0, NULL, 0));
}

static void sample_without_json_prints_a_table(void **state)
{
    (void)state;
    run_result r = run("sample " ARM " --anim wave --time-ms 300 --set turn=9", 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "wave at 300 ms"));
    assert_non_null(strstr(r.out, "part world matrices"));
    assert_non_null(strstr(r.out, "(9, clamped)"));
    assert_non_null(strstr(r.out, "animation"));
    free(r.out);
}

static void sample_refuses_an_unknown_animation_or_joint_with_status_2(void **state)
{
    (void)state;
    run_result r = run("sample " ARM " --json --anim dance", 1);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "no animation 'dance'"));
    assert_non_null(strstr(r.out, "the rig's animations: idle wave"));
    free(r.out);
    r = run("sample " ARM " --json --set wrist=0.5", 1);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "no joint 'wrist'"));
    assert_non_null(strstr(r.out, "turn shoulder elbow reach tip_mount"));
    free(r.out);
    /* Nothing on stdout when the command line is wrong. */
    r = run("sample " ARM " --json --anim dance", 0);
    assert_int_equal(r.status, 2);
    assert_int_equal(r.size, 0);
    free(r.out);
    r = run("sample " ARM " --json --set turn=abc", 0);
    assert_int_equal(r.status, 2);
    free(r.out);
    r = run("sample " ARM " --rest --anim idle", 0);
    assert_int_equal(r.status, 2);
    free(r.out);
}

/* Write `text` to a fresh .json file under /tmp; the path goes to out. */
static void write_temp_rig(const char *text, char *out, size_t cap)
{
    snprintf(out, cap, "/tmp/mn_test_cli_voxel_%ld.json", (long)getpid());
    FILE *f = fopen(out, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static void a_bad_rig_file_fails_with_status_1_naming_the_problem(void **state)
{
    (void)state;
    char path[256], cmd[512];
    write_temp_rig("{\"parts\":[{\"name\":\"a\",\"parent\":null,\"pivot\":[0,0,0]}],"
                   "\"joints\":[{\"name\":\"j\",\"part\":\"a\",\"type\":\"rotation\",\"axis\":\"x\","
                   "\"min\":1,\"max\":0,\"rest\":0,\"drive\":\"caller\"}]}",
                   path, sizeof path);
    snprintf(cmd, sizeof cmd, "sample '%s' --json", path);
    run_result r = run(cmd, 1);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "joints[0].min"));
    assert_non_null(strstr(r.out, "greater than max"));
    free(r.out);
    snprintf(cmd, sizeof cmd, "info '%s' --json", path);
    r = run(cmd, 0);
    assert_int_equal(r.status, 1);
    assert_int_equal(r.size, 0);
    free(r.out);
    write_temp_rig("{\"parts\": [", path, sizeof path);
    snprintf(cmd, sizeof cmd, "sample '%s' --json", path);
    r = run(cmd, 1);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "JSON"));
    free(r.out);
    assert_int_equal(unlink(path), 0);
    r = run("sample tests/data/voxel_arm/no_such_rig.json --json", 1);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "no_such_rig.json"));
    free(r.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(info_text_summarises_parts_joints_animations_and_meshes),
        cmocka_unit_test(info_json_counts_the_rig_and_names_its_socket),
        cmocka_unit_test(info_on_the_skinned_variant_reports_its_one_mesh_and_bones),
        cmocka_unit_test(sample_an_animation_at_a_time),
        cmocka_unit_test(sample_set_values_are_clamped_to_the_joint_range),
        cmocka_unit_test(sample_rest_poses_every_joint_at_its_rest),
        cmocka_unit_test(sample_without_json_prints_a_table),
        cmocka_unit_test(sample_refuses_an_unknown_animation_or_joint_with_status_2),
        cmocka_unit_test(a_bad_rig_file_fails_with_status_1_naming_the_problem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
