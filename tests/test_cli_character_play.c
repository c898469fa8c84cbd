/*
 * `marionette sample` and `marionette render` on a character package played
 * through the runtime, run as a user runs them (the built binary under popen)
 * on synthetic packages (support/synthetic_character.h).  sample --json prints
 * marionette-character-sample/1 whose numbers are the runtime's own, read back
 * exactly (joint worlds, corrective weights and angles, the sampled head
 * vertices and splats, the mouth rows); --arkit drives the face map, so the
 * mouth rows vanish as the jaw opens; --look turns the eyes; a package without
 * a head says it skipped it; wrong values exit 2.  render writes one image at a
 * time and a sheet of frames, and refuses --frames without --sheet.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/character/runtime.h>
#include <marionette/render.h>

#include "files.h"
#include "run_tool.h"
#include "synthetic_character.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct fixture {
    char dir[256], full[300], bare[300], out[300];
    synthetic_character_info info;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    mn_test_make_temp_dir(f->dir, sizeof f->dir, "cli_character_play");
    snprintf(f->full, sizeof f->full, "%s/full", f->dir);
    snprintf(f->bare, sizeof f->bare, "%s/bare", f->dir);
    snprintf(f->out, sizeof f->out, "%s/out.png", f->dir);
    assert_int_equal(mkdir(f->full, 0700), 0);
    assert_int_equal(mkdir(f->bare, 0700), 0);
    synthetic_character_write(f->full, &(synthetic_character_options){.splats = 600}, &f->info);
    synthetic_character_write(f->bare, &(synthetic_character_options){.no_head = true,
                                                                      .no_corrective = true},
                              NULL);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    mn_test_remove_tree(f->dir);
    free(f);
    return 0;
}

static json_t *sample_json(const char *package, const char *extra)
{
    char args[900];
    snprintf(args, sizeof args, "sample %s/character.json %s --json", package, extra);
    run_result r = mn_run_tool("marionette", args, 0);
    assert_int_equal(r.status, 0);
    json_error_t jerr;
    json_t *root = json_loads(r.out, 0, &jerr);
    if (!root)
        fail_msg("not JSON: %s", jerr.text);
    run_free(&r);
    assert_string_equal(json_string_value(json_object_get(root, "format")),
                        "marionette-character-sample/1");
    return root;
}

static int status_of(const char *fmt, const char *a, const char *b)
{
    char args[900];
    snprintf(args, sizeof args, fmt, a, b);
    run_result r = mn_run_tool("marionette", args, 1);
    int status = r.status;
    run_free(&r);
    return status;
}

static void assert_floats(json_t *array, const float *want, size_t n)
{
    assert_true(json_is_array(array));
    assert_int_equal(json_array_size(array), n);
    for (size_t i = 0; i < n; i++)
        assert_true((float)json_number_value(json_array_get(array, i)) == want[i]);
}

/* The same frame in this process: the package, the runtime, the clip at t. */
static mn_character_runtime *played(const char *package, mn_character **c, const char *clip,
                                    float t, const float *arkit)
{
    mn_error err = {0};
    assert_int_equal(mn_character_load(package, "character.json", NULL, c, &err), MN_OK);
    mn_character_runtime *rt = NULL;
    assert_int_equal(mn_character_runtime_create(*c, NULL, &rt, &err), MN_OK);
    assert_int_equal(mn_character_runtime_play(rt, clip, &(mn_play_options){.once = true, .at = t},
                                               &err),
                     MN_OK);
    mn_character_frame f = {.arkit = arkit, .arkit_count = arkit ? 52 : 0};
    assert_int_equal(mn_character_runtime_update(rt, &f, &err), MN_OK);
    return rt;
}

static void sample_prints_the_runtimes_frame(void **state)
{
    fixture *f = *state;
    json_t *root = sample_json(f->full, "--clip raise --time 0.5 --arkit jawOpen=0.3");
    mn_character *c = NULL;
    float arkit[52] = {0};
    arkit[mn_arkit_channel_index("jawOpen")] = 0.3f;
    mn_character_runtime *rt = played(f->full, &c, "raise", 0.5f, arkit);
    const mn_character_views *v = mn_character_runtime_views(rt);

    assert_string_equal(json_string_value(json_object_get(root, "clip")), "raise");
    assert_true(json_number_value(json_object_get(root, "time")) == 0.5);
    assert_int_equal(json_array_size(json_object_get(root, "skipped")), 0);
    json_t *joints = json_object_get(root, "joints"), *worlds = json_object_get(root, "world_matrices");
    assert_int_equal(json_array_size(joints), v->joint_count);
    assert_string_equal(json_string_value(json_object_get(json_array_get(joints, 6), "name")),
                        "LeftArm");
    for (uint32_t j = 0; j < v->joint_count; j++)
        assert_floats(json_array_get(worlds, j), v->joint_worlds + 16 * j, 16);
    json_t *corr = json_object_get(root, "corrective");
    assert_floats(json_object_get(corr, "weights"), v->corrective_weights, 4);
    assert_floats(json_object_get(corr, "angles"), v->corrective_angles, 4);

    json_t *head = json_object_get(root, "head");
    assert_int_equal(json_integer_value(json_object_get(head, "vertexCount")), v->head_vertex_count);
    assert_floats(json_object_get(head, "controls"), v->head_controls, v->head_control_count);
    json_t *verts = json_object_get(head, "vertices");
    assert_int_equal(json_array_size(verts), 32);
    for (size_t k = 0; k < 32; k++) {
        json_t *e = json_array_get(verts, k);
        size_t i = (size_t)json_integer_value(json_object_get(e, "index"));
        assert_floats(json_object_get(e, "position"), v->head_vertices + 3 * i, 3);
        assert_floats(json_object_get(e, "normal"), v->head_normals + 3 * i, 3);
    }
    json_t *splats = json_object_get(root, "splats");
    assert_int_equal(json_integer_value(json_object_get(splats, "count")), 600);
    json_t *samples = json_object_get(splats, "samples");
    assert_int_equal(json_array_size(samples), 32);
    for (size_t k = 0; k < 32; k++) {
        json_t *e = json_array_get(samples, k);
        size_t i = (size_t)json_integer_value(json_object_get(e, "index"));
        assert_floats(json_object_get(e, "centre"), v->splat_centres + 3 * i, 3);
        assert_floats(json_object_get(e, "rotation"), v->splat_rotations + 4 * i, 4);
        assert_true((float)json_number_value(json_object_get(e, "opacity")) ==
                    v->splat_opacities[i]);
    }
    json_t *mouth = json_object_get(splats, "mouth");
    assert_int_equal(json_array_size(mouth), f->info.mouth_count);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(mouth, 0), "index")),
                     f->info.mouth_first);
    mn_character_runtime_free(rt);
    mn_character_free(c);
    json_decref(root);
}

static double first_mouth_opacity(json_t *root)
{
    json_t *mouth = json_object_get(json_object_get(root, "splats"), "mouth");
    return json_number_value(json_object_get(json_array_get(mouth, 0), "opacity"));
}

static void the_face_and_the_look_change_the_frame(void **state)
{
    fixture *f = *state;
    json_t *closed = sample_json(f->full, "");
    json_t *open = sample_json(f->full, "--arkit jawOpen=1,mouthSmileLeft=0.5");
    assert_true(first_mouth_opacity(closed) > 0.0);
    assert_true(first_mouth_opacity(open) == 0.0);
    assert_true(json_is_null(json_object_get(closed, "clip")));
    json_t *look = sample_json(f->full, "--look 5,1.6,1");
    json_t *controls = json_object_get(json_object_get(look, "head"), "controls");
    size_t dim = json_array_size(controls);
    assert_true(json_number_value(json_array_get(controls, dim - 3)) > 0.3); /* yaw_L: left */
    json_decref(look);
    json_decref(open);
    json_decref(closed);
}

static void a_package_without_a_head_says_so(void **state)
{
    fixture *f = *state;
    json_t *root = sample_json(f->bare, "--time 0.25");
    assert_string_equal(json_string_value(json_object_get(root, "clip")), "idle");
    assert_true(json_is_null(json_object_get(root, "head")));
    json_t *skipped = json_object_get(root, "skipped");
    assert_int_equal(json_array_size(skipped), 4);
    assert_string_equal(json_string_value(json_array_get(skipped, 0)), "head");
    assert_string_equal(json_string_value(json_array_get(skipped, 2)), "corrective");
    json_decref(root);
}

static void wrong_values_exit_2(void **state)
{
    fixture *f = *state;
    assert_int_equal(status_of("sample %s/character.json --clip nope --json", f->full, ""), 2);
    assert_int_equal(status_of("sample %s/character.json --arkit jawOpn=1", f->full, ""), 2);
    assert_int_equal(status_of("sample %s/character.json --arkit jawOpen", f->full, ""), 2);
    assert_int_equal(status_of("sample %s/character.json --look 1,2", f->full, ""), 2);
    assert_int_equal(status_of("render %s/character.json --frames 3 -o %s", f->full, f->out), 2);
    assert_int_equal(
        status_of("render %s/character.json --time 1 --frames 3 --sheet -o %s", f->full, f->out),
        2);
}

static void render_draws_splats_and_head(void **state)
{
    fixture *f = *state;
    char args[900];
    snprintf(args, sizeof args,
             "render %s/character.json --clip raise --time 0.7 --arkit jawOpen=0.5 "
             "--size 96x80 -q -o %s",
             f->full, f->out);
    run_result r = mn_run_tool("marionette", args, 1);
    assert_int_equal(r.status, 0);
    run_free(&r);
    mn_rgba_image img = {0};
    mn_error err = {0};
    assert_int_equal(mn_rgba_image_read_file(f->out, NULL, &img, &err), MN_OK);
    assert_int_equal(img.width, 96);
    assert_int_equal(img.height, 80);
    mn_rgba_image_free(&img);
    snprintf(args, sizeof args,
             "render %s/character.json --clip nod --frames 4 --sheet --size 64x64 -q -o %s",
             f->full, f->out);
    r = mn_run_tool("marionette", args, 1);
    assert_int_equal(r.status, 0);
    run_free(&r);
    assert_int_equal(mn_rgba_image_read_file(f->out, NULL, &img, &err), MN_OK);
    assert_true(img.width == 128 && img.height > 128); /* 2 × 2 cells and their labels */
    mn_rgba_image_free(&img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_prints_the_runtimes_frame),
        cmocka_unit_test(the_face_and_the_look_change_the_frame),
        cmocka_unit_test(a_package_without_a_head_says_so),
        cmocka_unit_test(wrong_values_exit_2),
        cmocka_unit_test(render_draws_splats_and_head),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
