/*
 * `marionette info HEAD.aosrig [--json]` on the synthetic head (written to a
 * temporary file by the test): the text summary and the JSON object name the
 * counts, regions, joints, eyes, optional parts and blobs of the pack; a
 * corrupted pack fails with status 1 and the reader's error.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <marionette/head/aosrig.h>

#include "run_tool.h"
#include "synthetic_head.h"

/* Write the synthetic head (with every optional part) to /tmp; the path goes to out. */
static void write_head(char *out, size_t cap, bool corrupt)
{
    synthetic_head h;
    synthetic_head_options o = {.coeff_count = 8, .seed = 3, .uv = true, .quads = true,
                                .stitch = true, .bind_transform = true, .mouth = true};
    synthetic_head_build(&h, &o);
    uint8_t *bytes;
    size_t size;
    mn_error err;
    assert_int_equal(synthetic_head_pack(&h, &bytes, &size, &err), MN_OK);
    if (corrupt) { /* the last float of stitchLocal becomes +infinity (0x7f800000) */
        bytes[size - 4] = bytes[size - 3] = 0x00;
        bytes[size - 2] = 0x80;
        bytes[size - 1] = 0x7f;
    }
    snprintf(out, cap, "/tmp/mn_test_cli_aosrig_%ld%s.aosrig", (long)getpid(),
             corrupt ? "_bad" : "");
    FILE *f = fopen(out, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
    mn_aosrig_bytes_free(NULL, bytes, size);
    synthetic_head_free(&h);
}

static json_t *member(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        fail_msg("missing member \"%s\"", key);
    return v;
}

static void info_summarises_counts_regions_joints_and_blobs(void **state)
{
    (void)state;
    char path[256], cmd[512];
    write_head(path, sizeof path, false);
    snprintf(cmd, sizeof cmd, "info '%s'", path);
    run_result r = mn_run_tool("marionette", cmd, 0);
    assert_int_equal(r.status, 0);
    const char *expect[] = {".aosrig expression head", "units m",
                            "vertices 126, faces 240, quads 96, expressions 8, influences 2, joints 3",
                            "control vector 12 = 8 expression + 4 gaze; reduced view 8",
                            "\"left_eye\"  coefficients 0..1 (2), reduced 1",
                            "\"pupils\"  coefficients 7..7 (1)\n",
                            "\"neck_01\"  root", "\"head\"  parent \"neck_02\"",
                            "left  on \"head\"", "20 weighted vertices",
                            "bindTransform: given", "optional: uv yes, quads yes, stitchLocal yes",
                            "\"basis\"  f16 [126,8,3]", "6048 bytes", "blobs (13):"};
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++)
        if (!strstr(r.out, expect[i]))
            fail_msg("the summary lacks \"%s\":\n%s", expect[i], r.out);
    run_free(&r);
    unlink(path);
}

static void info_json_is_one_object_with_the_documented_keys(void **state)
{
    (void)state;
    char path[256], cmd[512];
    write_head(path, sizeof path, false);
    snprintf(cmd, sizeof cmd, "info '%s' --json", path);
    run_result r = mn_run_tool("marionette", cmd, 0);
    assert_int_equal(r.status, 0);
    json_error_t jerr;
    json_t *root = json_loadb(r.out, r.size, 0, &jerr);
    if (!root)
        fail_msg("not JSON (%s):\n%s", jerr.text, r.out);
    assert_string_equal(json_string_value(member(root, "format")), "marionette-aosrig-info/1");
    assert_string_equal(json_string_value(member(root, "units")), "m");
    assert_int_equal(json_integer_value(member(root, "vertexCount")), 126);
    assert_int_equal(json_integer_value(member(root, "faceCount")), 240);
    assert_int_equal(json_integer_value(member(root, "quadCount")), 96);
    assert_int_equal(json_integer_value(member(root, "coeffCount")), 8);
    assert_int_equal(json_integer_value(member(root, "maxInfluence")), 2);
    assert_int_equal(json_integer_value(member(root, "jointCount")), 3);
    json_t *x = member(root, "headExt");
    assert_int_equal(json_integer_value(member(x, "dim")), 12);
    assert_int_equal(json_integer_value(member(x, "reducedDim")), 8);
    json_t *regions = member(x, "regions");
    assert_int_equal(json_array_size(regions), 4);
    json_t *pupils = json_array_get(regions, 3);
    assert_string_equal(json_string_value(member(pupils, "name")), "pupils");
    assert_int_equal(json_integer_value(member(pupils, "start")), 7);
    assert_true(json_is_null(member(pupils, "reduced")));
    json_t *joints = member(root, "joints");
    assert_int_equal(json_array_size(joints), 3);
    assert_true(json_is_null(member(json_array_get(joints, 0), "parent")));
    assert_string_equal(json_string_value(member(json_array_get(joints, 2), "parent")), "neck_02");
    json_t *left = member(member(root, "eyes"), "left");
    assert_string_equal(json_string_value(member(left, "joint")), "head");
    assert_int_equal(json_integer_value(member(left, "weightedVertices")), 20);
    assert_int_equal(json_array_size(member(root, "bindTransform")), 16);
    assert_true(json_is_true(member(member(root, "optional"), "stitchLocal")));
    assert_string_equal(json_string_value(member(member(root, "mouth"), "jaw")), "head");
    assert_string_equal(json_string_value(member(member(root, "source"), "tool")),
                        "synthetic_head");
    json_t *blobs = member(root, "blobs");
    assert_int_equal(json_array_size(blobs), 13);
    json_t *basis = json_array_get(blobs, 1);
    assert_string_equal(json_string_value(member(basis, "name")), "basis");
    assert_string_equal(json_string_value(member(basis, "dtype")), "f16");
    assert_int_equal(json_integer_value(member(basis, "byteLength")), 6048);
    assert_int_equal(json_integer_value(member(basis, "offset")) % 8, 0);
    assert_true(json_is_true(member(basis, "known")));
    assert_int_equal(json_integer_value(member(root, "bytes")),
                     json_integer_value(member(json_array_get(blobs, 12), "offset")) +
                         json_integer_value(member(json_array_get(blobs, 12), "byteLength")));
    json_decref(root);
    run_free(&r);
    unlink(path);
}

static void a_corrupted_pack_fails_with_status_1_naming_the_blob(void **state)
{
    (void)state;
    char path[256], cmd[512];
    write_head(path, sizeof path, true);
    snprintf(cmd, sizeof cmd, "info '%s' --json", path);
    run_result r = mn_run_tool("marionette", cmd, 1);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "stitchLocal"));
    assert_non_null(strstr(r.out, "MN_NOT_FINITE"));
    run_free(&r);
    r = mn_run_tool("marionette", cmd, 0);
    assert_int_equal(r.status, 1);
    assert_int_equal(r.size, 0); /* nothing on stdout */
    run_free(&r);
    unlink(path);
    r = mn_run_tool("marionette", "info /tmp/mn_no_such_head.aosrig", 1);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "mn_no_such_head.aosrig"));
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(info_summarises_counts_regions_joints_and_blobs),
        cmocka_unit_test(info_json_is_one_object_with_the_documented_keys),
        cmocka_unit_test(a_corrupted_pack_fails_with_status_1_naming_the_blob),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
