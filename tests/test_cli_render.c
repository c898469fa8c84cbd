/*
 * `marionette render` run as a user runs it (the built binary under popen):
 * exit statuses (0 written, 1 a bad file or an unwritable output, 2 a wrong
 * command line), error messages that name the file and the item, what gets
 * written (one PNG of the asked size, a numbered sequence, a contact sheet of
 * the right grid), and a progress bar that stays off when stderr is not a
 * terminal.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/render.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assets.h"
#include "golden.h"
#include "files.h"
#include "run_tool.h"

#define BOX mn_test_asset("gltf/Box/glTF-Binary/Box.glb")
#define CUBE mn_test_asset("gltf/AnimatedCube/glTF/AnimatedCube.gltf")
#define CESIUM mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb")
#define PIRATE mn_test_asset("obj/pirate/pirate.obj")
#define INVALID_MAGIC mn_test_asset("invalid/glb/invalid_magic.glb")
#define ARM "tests/data/voxel_arm/rig.json"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    mn_test_make_temp_dir(dir, sizeof dir, "cli_render");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    mn_test_remove_tree(dir);
    return 0;
}

/* `marionette render <args>`, args formatted; capture_stderr picks the stream. */
static run_result render(int capture_stderr, const char *fmt, ...)
{
    char args[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    char full[1100];
    snprintf(full, sizeof full, "render %s", args);
    return mn_run_tool("marionette", full, capture_stderr);
}

static void expect(int capture_stderr, int status, const char *needle, const char *fmt, ...)
{
    char args[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    run_result r = render(capture_stderr, "%s", args);
    if (r.status != status || (needle && !strstr(r.out, needle)))
        fail_msg("render %s: status %d (want %d), output:\n%s(want \"%s\")", args, r.status,
                 status, r.out, needle ? needle : "");
    run_free(&r);
}

/* The PNG at path has that size. */
static void expect_png(const char *path, uint32_t w, uint32_t h)
{
    mn_rgba_image img;
    mn_error err;
    if (mn_rgba_image_read_file(path, NULL, &img, &err) != MN_OK)
        fail_msg("%s: %s", path, err.message);
    assert_int_equal(img.width, w);
    assert_int_equal(img.height, h);
    /* Something was drawn: not every pixel is the background of the corner. */
    size_t differ = 0;
    for (size_t i = 0; i < (size_t)w * h; i++)
        differ += memcmp(img.pixels + 4 * i, img.pixels, 4) != 0;
    assert_true(differ > (size_t)w * h / 50);
    mn_rgba_image_free(&img);
}

static void test_help(void **state)
{
    (void)state;
    expect(0, 0, "usage: marionette render FILE", "--help");
    run_result r = mn_run_tool("marionette", "help render", 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "--turntable"));
    assert_non_null(strstr(r.out, "Exit status"));
    run_free(&r);
}

static void test_usage_errors(void **state)
{
    (void)state;
    mn_test_need_assets();
    expect(1, 2, "which file?", "-o %s/x.png", dir);
    expect(1, 2, "-o out.png", "%s", BOX);
    expect(1, 2, "unknown option '--bogus'", "%s --bogus -o %s/x.png", BOX, dir);
    expect(1, 2, "--size: '0x5'", "%s --size 0x5 -o %s/x.png", BOX, dir);
    expect(1, 2, "--size: 'big'", "%s --size big -o %s/x.png", BOX, dir);
    expect(1, 2, "--pitch: '91'", "%s --pitch 91 -o %s/x.png", BOX, dir);
    expect(1, 2, "--view takes front, side, top", "%s --view back -o %s/x.png", BOX, dir);
    expect(1, 2, "--time and --frames", "%s --time 1 --frames 3 -o %s/x.png", CESIUM, dir);
    expect(1, 2, "--sheet lays out", "%s --sheet -o %s/x.png", BOX, dir);
    expect(1, 2, "--frames: '0'", "%s --frames 0 -o %s/x.png", CESIUM, dir);
    expect(1, 2, "--time needs a value", "%s -o %s/x.png --time", BOX, dir);
    expect(1, 2, "--background: 'red'", "%s --background red -o %s/x.png", BOX, dir);
    /* A clip the file lacks: status 2, and stderr lists the clips it has. */
    expect(1, 2, "no clip 'dance'", "%s --clip dance -o %s/x.png", CESIUM, dir);
    expect(1, 2, "its clips: 0", "%s --clip dance -o %s/x.png", CESIUM, dir);
    expect(1, 2, "need a clip", "%s --frames 2 -o %s/x.png", BOX, dir);
    expect(1, 2, "an OBJ has no animations", "%s --frames 2 -o %s/x.png", PIRATE, dir);
    expect(1, 2, "no animation 'dance'", "%s --clip dance -o %s/x.png", ARM, dir);
    /* Nothing was written by any of them. */
    char path[128];
    snprintf(path, sizeof path, "%s/x.png", dir);
    assert_int_not_equal(access(path, F_OK), 0);
}

static void test_bad_files(void **state)
{
    (void)state;
    mn_test_need_assets();
    expect(1, 1, "/nonexistent/model.glb", "/nonexistent/model.glb -o %s/x.png", dir);
    expect(1, 1, "invalid_magic.glb", "%s -o %s/x.png", INVALID_MAGIC, dir);
    expect(1, 1, "(MN_GLB_MAGIC)", "%s -o %s/x.png", INVALID_MAGIC, dir);
    expect(1, 1, "/nonexistent/rig.json", "/nonexistent/rig.json -o %s/x.png", dir);
    /* An output that cannot be written: status 1, the message names it. */
    expect(1, 1, "/nonexistent-dir/out.png", "%s -o /nonexistent-dir/out.png", BOX);
}

static void test_single_images(void **state)
{
    (void)state;
    mn_test_need_assets();
    char out[128];
    snprintf(out, sizeof out, "%s/box.png", dir);
    expect(0, 0, NULL, "%s --size 96x64 -o %s", BOX, out);
    expect_png(out, 96, 64);
    snprintf(out, sizeof out, "%s/cesium.png", dir);
    expect(0, 0, NULL, "%s --clip 0 --time 0.5 --size 64x64 --view side -o %s", CESIUM, out);
    expect_png(out, 64, 64);
    snprintf(out, sizeof out, "%s/pirate.png", dir);
    expect(0, 0, NULL, "%s --size 64x64 --yaw -40 --pitch 10 --background none -o %s", PIRATE,
           out);
    expect_png(out, 64, 64);
    snprintf(out, sizeof out, "%s/arm.png", dir);
    expect(0, 0, NULL, "%s --size 64x64 --view top -o %s", ARM, out);
    expect_png(out, 64, 64);
}

/* --skinning dq draws a glTF skinned by dual quaternions: an image, not lbs's; other files refuse it. */
static void test_skinning(void **state)
{
    (void)state;
    mn_test_need_assets();
    char lbs[128], dq[128];
    snprintf(lbs, sizeof lbs, "%s/lbs.png", dir);
    snprintf(dq, sizeof dq, "%s/dq.png", dir);
    expect(0, 0, NULL, "%s --time 0.5 --size 64x64 --skinning lbs -o %s", CESIUM, lbs);
    expect(0, 0, NULL, "%s --time 0.5 --size 64x64 --skinning dq -o %s", CESIUM, dq);
    expect_png(dq, 64, 64);
    mn_rgba_image a, b;
    mn_error err;
    assert_int_equal(mn_rgba_image_read_file(lbs, NULL, &a, &err), MN_OK);
    assert_int_equal(mn_rgba_image_read_file(dq, NULL, &b, &err), MN_OK);
    assert_true(memcmp(a.pixels, b.pixels, (size_t)64 * 64 * 4) != 0);
    mn_rgba_image_free(&a);
    mn_rgba_image_free(&b);
    expect(1, 2, "--skinning takes lbs or dq", "%s --skinning quat -o %s", CESIUM, dq);
    expect(1, 2, "glTF FILE", "%s --skinning dq -o %s", PIRATE, dq);
    run_result r = mn_run_tool("marionette", "help render", 0);
    assert_non_null(strstr(r.out, "--skinning S"));
    run_free(&r);
}

/* docs/cesium_man.png, the README's picture of a glTF character, is what `marionette render`
   draws today of CesiumMan 0.4 s into its walk. */
static void test_docs_cesium_man_is_current(void **state)
{
    (void)state;
    mn_test_need_assets();
    char out[128];
    snprintf(out, sizeof out, "%s/cesium_man.png", dir);
    expect(0, 0, NULL, "%s --clip 0 --time 0.4 --size 320x400 --quiet -o %s", CESIUM, out);
    mn_golden_check_file(out, "docs/cesium_man.png");
}

static void test_sequences_and_sheets(void **state)
{
    (void)state;
    mn_test_need_assets();
    /* Three frames of a node-animated cube as a numbered sequence; stdout lists them. */
    run_result r = render(0, "%s --frames 3 --size 48x48 -o %s/cube.png", CUBE, dir);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "cube_002.png"));
    run_free(&r);
    for (int i = 0; i < 3; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/cube_%03d.png", dir, i);
        expect_png(path, 48, 48);
    }
    /* --quiet: nothing on stdout; stderr (not a terminal here) carries no progress bar. */
    r = render(0, "%s --frames 2 --quiet --size 32x32 -o %s/q.png", CUBE, dir);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.size, 0);
    run_free(&r);
    r = render(1, "%s --turntable 3 --size 32x32 -o %s/turn.png", BOX, dir);
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.out, "rendering ["));
    run_free(&r);

    /* A sheet of 5 frames: 3 columns, 2 rows of 64×48 cells with a label strip each. */
    char out[128];
    snprintf(out, sizeof out, "%s/sheet.png", dir);
    expect(0, 0, NULL, "%s --frames 5 --sheet --size 64x48 -o %s", CESIUM, out);
    expect_png(out, 3 * 64, 2 * (48 + mn_rgba_text_height(1) + 4));
    snprintf(out, sizeof out, "%s/turn_sheet.png", dir);
    expect(0, 0, NULL, "%s --turntable 4 --sheet --size 300x200 -o %s", ARM, out);
    expect_png(out, 2 * 300, 2 * (200 + mn_rgba_text_height(2) + 4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_single_images),
        cmocka_unit_test(test_skinning),
        cmocka_unit_test(test_docs_cesium_man_is_current),
        cmocka_unit_test(test_sequences_and_sheets),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
