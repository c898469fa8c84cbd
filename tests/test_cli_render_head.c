/*
 * `marionette render HEAD.aosrig`, run as a user runs it (the built binary
 * under popen) on the synthetic head written to a temporary folder:
 *   - one posed head (ARKit weights through a table, then --expr over them)
 *     is a PNG of the size asked for, and a pose that moves the head draws a
 *     different picture than the neutral one;
 *   - --sheet lays out neutral, each entry alone and "all" (5 cells: a 3 × 2
 *     grid), and without entries the neutral head and each region's first
 *     coefficient (1 + 4 regions);
 *   - the refusals: --arkit without a map (exit 1 with the library's "no ARKit
 *     map"), --colour uv on a pack without uv (exit 1), a file that is no
 *     pack (exit 1); an unknown channel, an --expr index past the controls, an
 *     unknown colouring, a map without --arkit, no -o (exit 2).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/marionette.h>

#include "run_tool.h"
#include "synthetic_head.h"
#include "files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CELL 48

static const char table_json[] =
    "{\"jawOpen\": [{\"region\": \"lower_face\", \"index\": 2, \"gain\": 1.5}],"
    " \"eyeBlinkLeft\": [{\"region\": \"left_eye\", \"index\": 0, \"gain\": 1}]}";

typedef struct scene {
    char dir[64], pack[128], table[128], bad[128], png[128], other[128];
} scene;

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    scene *s = calloc(1, sizeof *s);
    assert_non_null(s);
    mn_test_make_temp_dir(s->dir, sizeof s->dir, "cli_render_head");
    synthetic_head head;
    synthetic_head_build(&head, &(synthetic_head_options){.coeff_count = 12});
    uint8_t *bytes;
    size_t size;
    mn_error err;
    assert_int_equal(synthetic_head_pack(&head, &bytes, &size, &err), MN_OK);
    snprintf(s->pack, sizeof s->pack, "%s/head.aosrig", s->dir);
    snprintf(s->table, sizeof s->table, "%s/table.json", s->dir);
    snprintf(s->bad, sizeof s->bad, "%s/bad.aosrig", s->dir);
    snprintf(s->png, sizeof s->png, "%s/face.png", s->dir);
    snprintf(s->other, sizeof s->other, "%s/other.png", s->dir);
    write_file(s->pack, bytes, size);
    write_file(s->table, table_json, strlen(table_json));
    write_file(s->bad, bytes, 40);
    mn_aosrig_bytes_free(NULL, bytes, size);
    synthetic_head_free(&head);
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    scene *s = *state;
    unlink(s->pack);
    unlink(s->table);
    unlink(s->bad);
    unlink(s->png);
    unlink(s->other);
    rmdir(s->dir);
    free(s);
    return 0;
}

/* Run `marionette render ARGS`: the exit status, and its stderr in *keep when asked. */
static int render(const char *args, run_result *keep)
{
    char line[1024];
    snprintf(line, sizeof line, "render %s", args);
    run_result r = mn_run_tool("marionette", line, 1);
    int status = r.status;
    if (keep)
        *keep = r;
    else
        run_free(&r);
    return status;
}

static mn_rgba_image read_png(const char *path)
{
    mn_rgba_image img;
    mn_error err;
    if (mn_rgba_image_read_file(path, NULL, &img, &err) != MN_OK)
        fail_msg("%s: %s", path, err.message);
    return img;
}

static void test_one_head(void **state)
{
    scene *s = *state;
    char args[768];
    snprintf(args, sizeof args, "%s --arkit \"jawOpen=0.8,eyeBlinkLeft=1\" --table %s "
             "--expr \"5=2\" --size %dx%d -o %s", s->pack, s->table, CELL, CELL + 8, s->png);
    assert_int_equal(render(args, NULL), 0);
    snprintf(args, sizeof args, "%s --size %dx%d -o %s", s->pack, CELL, CELL + 8, s->other);
    assert_int_equal(render(args, NULL), 0);
    mn_rgba_image posed = read_png(s->png), neutral = read_png(s->other);
    assert_int_equal(posed.width, CELL);
    assert_int_equal(posed.height, CELL + 8);
    assert_int_equal(neutral.width, CELL);
    assert_true(memcmp(posed.pixels, neutral.pixels, (size_t)CELL * (CELL + 8) * 4) != 0);
    mn_rgba_image_free(&posed);
    mn_rgba_image_free(&neutral);

    /* Each colouring draws; the help for a head is its own. */
    static const char *const colourings[] = {"skin", "flat", "joint", "height"};
    for (size_t k = 0; k < 4; k++) {
        snprintf(args, sizeof args, "%s --colour %s --view front --size 32x32 -q -o %s", s->pack,
                 colourings[k], s->other);
        assert_int_equal(render(args, NULL), 0);
    }
    run_result r = mn_run_tool("marionette", "render head.aosrig --help", 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "--arkit"));
    run_free(&r);
}

static void test_sheets(void **state)
{
    scene *s = *state;
    char args[768];
    snprintf(args, sizeof args, "%s --sheet --arkit \"jawOpen=0.8,eyeBlinkLeft=1\" --table %s "
             "--expr \"5=2\" --size %dx%d -o %s", s->pack, s->table, CELL, CELL, s->png);
    assert_int_equal(render(args, NULL), 0);
    mn_rgba_image sheet = read_png(s->png);
    assert_int_equal(sheet.width, 3 * CELL);          /* 5 cells: ceil(sqrt(5)) = 3 columns */
    assert_true(sheet.height > 2 * CELL);             /* 2 rows, each with a label under it */
    mn_rgba_image_free(&sheet);

    /* No entries: neutral and the 4 regions' first coefficients (left_eye, right_eye,
       lower_face, pupils): 5 cells again. */
    snprintf(args, sizeof args, "%s --sheet --colour joint --size %dx%d -o %s", s->pack, CELL,
             CELL, s->other);
    assert_int_equal(render(args, NULL), 0);
    sheet = read_png(s->other);
    assert_int_equal(sheet.width, 3 * CELL);
    mn_rgba_image_free(&sheet);

    /* One entry: neutral and that entry (no "all"): a 2 × 1 grid. */
    snprintf(args, sizeof args, "%s --sheet --expr 0=1 --size %dx%d -o %s", s->pack, CELL, CELL,
             s->other);
    assert_int_equal(render(args, NULL), 0);
    sheet = read_png(s->other);
    assert_int_equal(sheet.width, 2 * CELL);
    assert_true(sheet.height < 2 * CELL);
    mn_rgba_image_free(&sheet);
}

static void test_refusals(void **state)
{
    scene *s = *state;
    char args[768];
    run_result r;
    snprintf(args, sizeof args, "%s --arkit jawOpen=0.8 -o %s", s->pack, s->other);
    assert_int_equal(render(args, &r), 1);
    assert_non_null(strstr(r.out, "no ARKit map"));
    run_free(&r);
    snprintf(args, sizeof args, "%s --colour uv -o %s", s->pack, s->other);
    assert_int_equal(render(args, &r), 1);
    assert_non_null(strstr(r.out, "uv"));
    run_free(&r);
    snprintf(args, sizeof args, "%s -o %s", s->bad, s->other);
    assert_int_equal(render(args, NULL), 1);

    static const char *const usage[] = {
        "%s --arkit jawOpn=0.8 --table %s -o %s",
        "%s --expr 16=1 -o %s%s",              /* 12 coefficients + 4 gaze: 0..15 */
        "%s --expr x=1 -o %s%s",
        "%s --expr 3=abc -o %s%s",
        "%s --colour plaid -o %s%s",
        "%s --table %s -o %s",
        "%s --size 0x10 -o %s%s",
        "%s --sheets -o %s%s",
        "%s%s%s",
    };
    for (size_t k = 0; k < sizeof usage / sizeof usage[0]; k++) {
        bool table = strstr(usage[k], "--table") != NULL;
        snprintf(args, sizeof args, usage[k], s->pack, table ? s->table : s->other,
                 table ? s->other : "");
        if (render(args, NULL) != 2)
            fail_msg("render %s: exit status not 2", args);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_head),
        cmocka_unit_test(test_sheets),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
