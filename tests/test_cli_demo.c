/*
 * `marionette demo` run as a user runs it (the built binary under popen),
 * once, into a temporary folder, at a small cell size: every file it
 * promises is there (the rig.json and a GLB for each of its parts, the
 * exported GLB and its interface.json, the contact sheet), the exported GLB
 * reads back with both clips and passes the Khronos validator with no error
 * and no warning, the sheet matches the stored golden image, the README's
 * pictures are what the tool draws now (docs/demo_sheet.png from a default
 * run, docs/character.png from `marionette render` of the exported GLB), and
 * the command's help, usage errors (exit 2) and unwritable output (exit 1).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/marionette.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "golden.h"
#include "files.h"
#include "run_tool.h"

static char dir[64];
static char out[128];
static run_result first_run;   /* the one demo run the file checks look at */

static bool exists(const char *fmt, ...)
{
    char path[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0;
}

static int setup(void **state)
{
    (void)state;
    mn_test_make_temp_dir(dir, sizeof dir, "cli_demo");
    snprintf(out, sizeof out, "%s/demo", dir);
    char args[256];
    snprintf(args, sizeof args, "demo --out '%s' --size 64x80", out);
    first_run = mn_run_tool("marionette", args, 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    run_free(&first_run);
    mn_test_remove_tree(dir);
    return 0;
}

/* The run succeeded and said what it wrote, every path of it. */
static void test_demo_writes_and_prints(void **state)
{
    (void)state;
    assert_int_equal(first_run.status, 0);
    static const char *const files[] = {"character/rig.json", "character.glb",
                                        "character.interface.json", "demo_sheet.png"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        assert_true(exists("%s/%s", out, files[i]));
        char path[256];
        snprintf(path, sizeof path, "%s/%s", out, files[i]);
        if (!strstr(first_run.out, path))
            fail_msg("the demo did not list %s:\n%s", path, first_run.out);
    }
    assert_non_null(strstr(first_run.out, "character/meshes/*.glb"));
}

/* rig.json is a valid rig with a dozen-odd parts, caller and auto joints, a mount, idle and wave,
   and every part has its GLB. */
static void test_rig_and_part_meshes(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/character/rig.json", out);
    mn_voxel_rig *rig = NULL;
    mn_error err;
    assert_int_equal(mn_voxel_rig_read_file(path, NULL, &rig, &err), MN_OK);
    assert_true(rig->part_count >= 12);
    uint32_t caller = 0, autos = 0, mounts = 0;
    for (uint32_t j = 0; j < rig->joint_count; j++) {
        caller += rig->joints[j].drive == MN_VOXEL_DRIVE_CALLER;
        autos += rig->joints[j].drive == MN_VOXEL_DRIVE_AUTO;
        mounts += rig->joints[j].has_mount;
    }
    assert_true(caller > 0 && autos > 0 && mounts > 0);
    uint32_t idle = mn_voxel_rig_find_animation(rig, "idle");
    uint32_t wave = mn_voxel_rig_find_animation(rig, "wave");
    assert_int_not_equal(idle, MN_NONE);
    assert_int_not_equal(wave, MN_NONE);
    assert_true(rig->animations[idle].loop && rig->animations[idle].auto_play);
    assert_false(rig->animations[wave].loop || rig->animations[wave].auto_play);
    for (uint32_t p = 0; p < rig->part_count; p++)
        assert_true(exists("%s/character/meshes/%s.glb", out, rig->parts[p].name));
    mn_voxel_rig_free(rig);
}

/* The exported GLB reads back with a node per part and both clips; interface.json names them. */
static void test_export_reads_back(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/character.glb", out);
    mn_model *model = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_file(path, NULL, &model, &err), MN_OK);
    assert_true(model->node_count >= 12);
    assert_int_equal(model->animation_count, 2);
    bool idle = false, wave = false;
    for (uint32_t i = 0; i < model->animation_count; i++) {
        idle = idle || strcmp(model->animations[i].name, "idle") == 0;
        wave = wave || strcmp(model->animations[i].name, "wave") == 0;
    }
    assert_true(idle && wave);
    mn_model_free(model);

    snprintf(path, sizeof path, "%s/character.interface.json", out);
    json_error_t jerr;
    json_t *iface = json_load_file(path, 0, &jerr);
    if (!iface)
        fail_msg("%s: %s", path, jerr.text);
    assert_string_equal(json_string_value(json_object_get(iface, "format")), "voxel-rig-interface");
    assert_string_equal(json_string_value(json_object_get(iface, "model")), "character");
    assert_int_equal(json_array_size(json_object_get(iface, "animations")), 2);
    assert_true(json_array_size(json_object_get(iface, "joints")) > 0);
    json_t *sockets = json_object_get(iface, "sockets");
    assert_int_equal(json_array_size(sockets), 1);
    assert_string_equal(json_string_value(json_array_get(sockets, 0)), "grip_r");
    json_decref(iface);
}

/* The Khronos validator (tests/reference/validate.mjs) finds no error and no warning. */
static void test_export_validates(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "node tests/reference/validate.mjs '%s/character.glb' 2>&1", out);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char report[8192];
    size_t n = fread(report, 1, sizeof report - 1, p);
    report[n] = '\0';
    int status = pclose(p);
    if (status != 0 || !strstr(report, "0 errors, 0 warnings"))
        fail_msg("the validator refused the demo's GLB (node and tests/reference/node_modules "
                 "are needed: scripts/deps):\n%s", report);
}

/* The contact sheet is the stored one (3 × 3 cells of 64 × 80 and their labels). */
static void test_sheet_matches_golden(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/demo_sheet.png", out);
    mn_rgba_image sheet;
    mn_error err;
    assert_int_equal(mn_rgba_image_read_file(path, NULL, &sheet, &err), MN_OK);
    assert_int_equal(sheet.width, 3 * 64);
    mn_golden_check("demo_sheet", &sheet);
    mn_rgba_image_free(&sheet);
}

/* docs/demo_sheet.png, the README's picture of the demo, is what the demo draws today at its
   default size. */
static void test_docs_sheet_is_current(void **state)
{
    (void)state;
    char args[256], path[256];
    snprintf(args, sizeof args, "demo --quiet --out '%s/full'", dir);
    run_result r = mn_run_tool("marionette", args, 1);
    assert_int_equal(r.status, 0);
    run_free(&r);
    snprintf(path, sizeof path, "%s/full/demo_sheet.png", dir);
    mn_golden_check_file(path, "docs/demo_sheet.png");
}

/* docs/character.png, the README's first picture, is what `marionette render` draws today of
   the demo's exported glTF character (the GLB does not depend on the sheet's cell size). */
static void test_docs_character_is_current(void **state)
{
    (void)state;
    char args[512], path[256];
    snprintf(path, sizeof path, "%s/character.png", dir);
    snprintf(args, sizeof args,
             "render '%s/character.glb' --clip wave --time 0.6 --size 320x400 --quiet -o '%s'", out,
             path);
    run_result r = mn_run_tool("marionette", args, 1);
    if (r.status != 0)
        fail_msg("marionette %s: status %d:\n%s", args, r.status, r.out);
    run_free(&r);
    mn_golden_check_file(path, "docs/character.png");
}

static void test_help_and_usage(void **state)
{
    (void)state;
    run_result r = mn_run_tool("marionette", "demo --help", 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: marionette demo"));
    run_free(&r);
    static const char *const bad[] = {"demo --bogus", "demo --out", "demo --size 3x3",
                                      "demo --size 64", "demo stray"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = mn_run_tool("marionette", bad[i], 1);
        if (r.status != 2 || !strstr(r.out, "usage: marionette demo"))
            fail_msg("'%s': status %d, stderr:\n%s", bad[i], r.status, r.out);
        run_free(&r);
    }
}

/* An output folder that cannot be made: exit 1, and the message names it. */
static void test_unwritable_output(void **state)
{
    (void)state;
    char args[256];
    snprintf(args, sizeof args, "demo --quiet --out '%s/demo_sheet.png/sub'", out);
    run_result r = mn_run_tool("marionette", args, 1);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "demo_sheet.png/sub"));
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_demo_writes_and_prints),
        cmocka_unit_test(test_rig_and_part_meshes),
        cmocka_unit_test(test_export_reads_back),
        cmocka_unit_test(test_export_validates),
        cmocka_unit_test(test_sheet_matches_golden),
        cmocka_unit_test(test_docs_sheet_is_current),
        cmocka_unit_test(test_docs_character_is_current),
        cmocka_unit_test(test_help_and_usage),
        cmocka_unit_test(test_unwritable_output),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
