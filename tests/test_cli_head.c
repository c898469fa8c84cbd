/*
 * `marionette sample HEAD.aosrig`, run as a user runs it (the built binary
 * under popen) on the synthetic head written to a temporary folder: --json
 * is one "marionette-head-sample/1" object whose vertices equal mn_head_pose
 * computed here for the same ARKit weights and table (printed as %.9g, so
 * within 1e-6); --controls by name, --forward and --joint; text output; and
 * the refusals: --arkit without a map (exit 1, "no ARKit map"), an unknown
 * channel or control (exit 2), a file that is no pack (exit 1).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/head/aosrig.h>
#include <marionette/head/arkit.h>
#include <marionette/head/head.h>

#include "files.h"
#include "run_tool.h"
#include "synthetic_head.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char table_json[] =
    "{\"jawOpen\": [{\"region\": \"lower_face\", \"index\": 2, \"gain\": 1.5}],"
    " \"eyeBlinkLeft\": [{\"region\": \"left_eye\", \"index\": 0, \"gain\": 1},"
    "                    {\"region\": \"nowhere\", \"index\": 0, \"gain\": 1}]}";

typedef struct scene {
    char dir[64], pack_path[128], table_path[128], bad_path[128];
    synthetic_head source;
    uint8_t *bytes;
    size_t size;
    mn_aosrig *pack;
    mn_head *head;
} scene;

static int setup(void **state)
{
    scene *s = calloc(1, sizeof *s);
    assert_non_null(s);
    mn_test_make_temp_dir(s->dir, sizeof s->dir, "cli_head");
    synthetic_head_options o = {.coeff_count = 12, .stitch = true, .bind_transform = true};
    synthetic_head_build(&s->source, &o);
    mn_error err;
    assert_int_equal(synthetic_head_pack(&s->source, &s->bytes, &s->size, &err), MN_OK);
    snprintf(s->pack_path, sizeof s->pack_path, "%s/head.aosrig", s->dir);
    snprintf(s->table_path, sizeof s->table_path, "%s/table.json", s->dir);
    snprintf(s->bad_path, sizeof s->bad_path, "%s/bad.aosrig", s->dir);
    mn_test_write_file(s->pack_path, s->bytes, s->size);
    mn_test_write_file(s->table_path, table_json, strlen(table_json));
    mn_test_write_file(s->bad_path, s->bytes, 40);
    assert_int_equal(mn_aosrig_read_memory(s->bytes, s->size, NULL, &s->pack, &err), MN_OK);
    assert_int_equal(mn_head_create(s->pack, NULL, &s->head, &err), MN_OK);
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    scene *s = *state;
    mn_head_free(s->head);
    mn_aosrig_free(s->pack);
    mn_aosrig_bytes_free(NULL, s->bytes, s->size);
    synthetic_head_free(&s->source);
    unlink(s->pack_path);
    unlink(s->table_path);
    unlink(s->bad_path);
    rmdir(s->dir);
    free(s);
    return 0;
}

static json_t *parse_json(const run_result *r)
{
    json_error_t jerr;
    json_t *root = json_loadb(r->out, r->size, 0, &jerr);
    if (!root)
        fprintf(stderr, "not JSON: %s at line %d\n", jerr.text, jerr.line);
    assert_non_null(root);
    assert_true(json_is_object(root));
    return root;
}

/* The JSON's vertices against `want` (V × 3). */
static void assert_vertices(json_t *root, const float *want, size_t v_count)
{
    json_t *verts = json_object_get(root, "vertices");
    assert_true(json_is_array(verts));
    assert_int_equal(json_array_size(verts), v_count);
    for (size_t v = 0; v < v_count; v++) {
        json_t *xyz = json_array_get(verts, v);
        assert_int_equal(json_array_size(xyz), 3);
        for (size_t k = 0; k < 3; k++) {
            double got = json_number_value(json_array_get(xyz, k));
            if (!(fabs(got - want[3 * v + k]) <= 1e-6 + 1e-6 * fabs(want[3 * v + k]))) {
                print_error("vertex %zu[%zu]: printed %.9g, library %.9g\n", v, k, got,
                            (double)want[3 * v + k]);
                fail();
            }
        }
    }
}

static void arkit_json_matches_library(void **state)
{
    scene *s = *state;
    char args[512];
    snprintf(args, sizeof args, "sample %s --arkit \"jawOpen=0.8,eyeBlinkLeft=1\" --table %s --json",
             s->pack_path, s->table_path);
    run_result r = mn_run_tool("marionette", args, 0);
    assert_int_equal(r.status, 0);
    json_t *root = parse_json(&r);
    assert_string_equal(json_string_value(json_object_get(root, "format")),
                        "marionette-head-sample/1");
    assert_string_equal(json_string_value(json_object_get(root, "stage")), "pose");
    size_t V = s->pack->header.vertex_count;
    assert_int_equal(json_integer_value(json_object_get(root, "vertexCount")), V);

    mn_arkit_map *map;
    mn_error err;
    assert_int_equal(mn_arkit_table_map_create(&s->pack->header.head_ext, table_json,
                                               strlen(table_json), NULL, &map, &err),
                     MN_OK);
    assert_int_equal(mn_head_set_arkit_map(s->head, map, &err), MN_OK);
    float arkit[MN_ARKIT_CHANNEL_COUNT] = {0};
    arkit[mn_arkit_channel_index("jawOpen")] = 0.8f;
    arkit[mn_arkit_channel_index("eyeBlinkLeft")] = 1.0f;
    float *want = malloc(V * 3 * sizeof *want);
    assert_int_equal(mn_head_pose_arkit(s->head, arkit, MN_ARKIT_CHANNEL_COUNT, want, &err), MN_OK);
    assert_vertices(root, want, V);
    /* The controls it used: the map's output. */
    json_t *controls = json_object_get(root, "controls");
    assert_int_equal(json_array_size(controls), s->pack->header.head_ext.dim);
    uint32_t lower = s->pack->header.head_ext.regions[2].start;
    assert_true(fabs(json_number_value(json_array_get(controls, lower + 2)) - 1.2) < 1e-6);
    json_decref(root);
    run_free(&r);

    /* The dropped term is reported on stderr. */
    r = mn_run_tool("marionette", args, 1);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "eyeBlinkLeft[1]"));
    run_free(&r);
    mn_head_set_arkit_map(s->head, NULL, NULL);
    mn_arkit_map_free(map);
    free(want);
}

static void controls_forward_and_joints(void **state)
{
    scene *s = *state;
    size_t V = s->pack->header.vertex_count, dim = s->pack->header.head_ext.dim;
    float *controls = calloc(dim, sizeof *controls), *want = malloc(V * 3 * sizeof *want);
    char name[64], args[512];
    mn_head_ext_control_name(&s->pack->header.head_ext, 5, name, sizeof name);
    controls[5] = 0.75f;
    controls[dim - 3] = 0.25f; /* gaze_yaw_L */
    snprintf(args, sizeof args, "sample %s --controls \"%s=0.75,gaze_yaw_L=0.25\" --forward --json",
             s->pack_path, name);
    run_result r = mn_run_tool("marionette", args, 0);
    assert_int_equal(r.status, 0);
    json_t *root = parse_json(&r);
    assert_string_equal(json_string_value(json_object_get(root, "stage")), "forward");
    assert_int_equal(mn_head_forward(s->head, controls, dim, want, NULL), MN_OK);
    assert_vertices(root, want, V);
    json_decref(root);
    run_free(&r);

    /* A joint turned on top of its rest. */
    snprintf(args, sizeof args, "sample %s --joint head=0.1,0,0,0.995 --json", s->pack_path);
    r = mn_run_tool("marionette", args, 0);
    assert_int_equal(r.status, 0);
    root = parse_json(&r);
    mn_joint_override ov = {"head", {0.1f, 0.0f, 0.0f, 0.995f}};
    assert_int_equal(mn_head_set_joint_overrides(s->head, &ov, 1, NULL, NULL), MN_OK);
    assert_int_equal(mn_head_pose(s->head, NULL, 0, want, NULL), MN_OK);
    assert_vertices(root, want, V);
    assert_int_equal(mn_head_set_joint_overrides(s->head, NULL, 0, NULL, NULL), MN_OK);
    json_decref(root);
    run_free(&r);

    /* Text: a heading line, then one line a vertex. */
    snprintf(args, sizeof args, "sample %s", s->pack_path);
    r = mn_run_tool("marionette", args, 0);
    assert_int_equal(r.status, 0);
    size_t lines = 0;
    for (const char *c = r.out; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, V + 1);
    run_free(&r);
    free(controls);
    free(want);
}

static void refusals(void **state)
{
    scene *s = *state;
    char args[512];
    /* ARKit without a map: the library's refusal, exit 1. */
    snprintf(args, sizeof args, "sample %s --arkit \"jawOpen=0.8,eyeBlinkLeft=1\"", s->pack_path);
    run_result r = mn_run_tool("marionette", args, 1);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "no ARKit map"));
    run_free(&r);
    /* An unknown channel, control or option: a wrong command line, exit 2. */
    snprintf(args, sizeof args, "sample %s --arkit \"jawShut=1\" --table %s", s->pack_path,
             s->table_path);
    r = mn_run_tool("marionette", args, 1);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "jawShut"));
    run_free(&r);
    snprintf(args, sizeof args, "sample %s --controls \"nose_000=1\"", s->pack_path);
    r = mn_run_tool("marionette", args, 1);
    assert_int_equal(r.status, 2);
    run_free(&r);
    snprintf(args, sizeof args, "sample %s --clip walk", s->pack_path);
    r = mn_run_tool("marionette", args, 1);
    assert_int_equal(r.status, 2);
    run_free(&r);
    /* A file that is no pack: exit 1, the reader's error. */
    snprintf(args, sizeof args, "sample %s", s->bad_path);
    r = mn_run_tool("marionette", args, 1);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "MN_"));
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arkit_json_matches_library),
        cmocka_unit_test(controls_forward_and_joints),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
