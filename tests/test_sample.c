/*
 * `marionette sample`, run as a user runs it: the built binary (found
 * through MN_BUILD_DIR, which CTest sets) under popen, on the shared assets.
 * Checks the marionette-sample/1 JSON shape of ../shared/spec/sample-json.md,
 * the rest pose, the time lists (`keys`, `keys+mid`, explicit seconds), clip
 * choice by name, index and `all`, which primitives get positions
 * (`--vertices`), values against what the library computes itself, the text
 * table, and the exit statuses (0 done, 1 bad file, 2 bad command line,
 * including a --clip the file does not have).  Agreement with an outside
 * implementation is tests/test_crosscheck.sh's job (three.js).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/marionette.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "assets.h"

#define BOX mn_test_asset("gltf/Box/glTF-Binary/Box.glb")
#define BOX_ANIMATED mn_test_asset("gltf/BoxAnimated/glTF-Binary/BoxAnimated.glb")
#define CESIUM_MAN mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb")
#define SIMPLE_SKIN mn_test_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf")
#define SIMPLE_MORPH mn_test_asset("gltf/SimpleMorph/glTF/SimpleMorph.gltf")
#define TRIANGLE mn_test_asset("gltf/AnimatedTriangle/glTF/AnimatedTriangle.gltf")
#define INTERPOLATION mn_test_asset("gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb")

/* ---- running the tool -------------------------------------------------------- */

#include "run_tool.h"

/* `marionette <args>`; capture_stderr selects the stream that comes back, the other is dropped. */
static run_result run_marionette(const char *args, int capture_stderr)
{
    return mn_run_tool("marionette", args, capture_stderr);
}


/* Run `marionette sample <args> --json`, args formatted; expect exit 0 and one JSON object. */
static json_t *sample_json(const char *fmt, ...)
{
    char args[1024], full[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(full, sizeof full, "sample %s --json", args);
    run_result r = run_marionette(full, 0);
    if (r.status != 0)
        fprintf(stderr, "'marionette %s' exited %d\n", full, r.status);
    assert_int_equal(r.status, 0);
    json_error_t jerr;
    json_t *root = json_loadb(r.out, r.size, 0, &jerr);
    if (!root)
        fprintf(stderr, "not JSON: %s at line %d\n", jerr.text, jerr.line);
    assert_non_null(root);
    assert_true(json_is_object(root));
    run_free(&r);
    return root;
}

static json_t *get(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        fprintf(stderr, "missing key %s\n", key);
    assert_non_null(v);
    return v;
}

static json_t *item(json_t *arr, size_t i)
{
    assert_true(json_is_array(arr));
    assert_true(i < json_array_size(arr));
    return json_array_get(arr, i);
}

static long long int_of(json_t *obj, const char *key)
{
    json_t *v = get(obj, key);
    assert_true(json_is_integer(v));
    return (long long)json_integer_value(v);
}

static double num(json_t *v)
{
    assert_true(json_is_number(v));
    return json_number_value(v);
}

static json_t *sample_at(json_t *root, size_t i)
{
    return item(get(root, "samples"), i);
}

/* ---- the shape ---------------------------------------------------------------- */

static void json_has_the_documented_shape(void **state)
{
    (void)state;
    mn_test_need_assets();
    json_t *root = sample_json("%s --rest --times 0.5", SIMPLE_SKIN);
    assert_int_equal(json_object_size(root), 5);
    assert_string_equal(json_string_value(get(root, "format")), "marionette-sample/1");
    assert_string_equal(json_string_value(get(root, "source")), "SimpleSkin.gltf");

    json_t *nodes = get(root, "nodes");
    assert_int_equal(json_array_size(nodes), 3);
    json_t *n0 = item(nodes, 0), *n2 = item(nodes, 2);
    assert_int_equal(json_object_size(n0), 5);
    assert_int_equal(int_of(n0, "index"), 0);
    assert_true(json_is_string(get(n0, "name")));
    assert_int_equal(int_of(n0, "parent"), -1);
    assert_int_equal(int_of(n0, "mesh"), 0);
    assert_int_equal(int_of(n0, "skin"), 0);
    assert_int_equal(int_of(n2, "parent"), 1);
    assert_int_equal(int_of(n2, "mesh"), -1);
    assert_int_equal(int_of(n2, "skin"), -1);

    json_t *clips = get(root, "clips");
    assert_int_equal(json_array_size(clips), 1);
    assert_int_equal(int_of(item(clips, 0), "index"), 0);
    assert_true(json_is_string(get(item(clips, 0), "name")));
    assert_true(num(get(item(clips, 0), "duration")) == 5.5);

    assert_int_equal(json_array_size(get(root, "samples")), 2);
    json_t *rest = sample_at(root, 0), *s = sample_at(root, 1);
    assert_int_equal(json_object_size(rest), 5);
    assert_int_equal(int_of(rest, "clip"), -1);
    assert_true(json_is_null(get(rest, "time")));
    assert_int_equal(int_of(s, "clip"), 0);
    assert_true(num(get(s, "time")) == 0.5);
    json_t *worlds = get(s, "world_matrices");
    assert_int_equal(json_array_size(worlds), 3);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(json_array_size(item(worlds, i)), 16);
    assert_true(json_is_array(get(s, "morph_weights")));
    assert_int_equal(json_array_size(get(s, "morph_weights")), 0);

    json_t *prims = get(s, "primitives");
    assert_int_equal(json_array_size(prims), 1);
    json_t *p = item(prims, 0);
    assert_int_equal(json_object_size(p), 7);
    assert_int_equal(int_of(p, "node"), 0);
    assert_int_equal(int_of(p, "mesh"), 0);
    assert_int_equal(int_of(p, "primitive"), 0);
    assert_true(json_is_true(get(p, "skinned")));
    assert_true(json_is_false(get(p, "morphed")));
    assert_int_equal(int_of(p, "vertex_count"), 10);
    assert_int_equal(json_array_size(get(p, "positions")), 30);
    json_decref(root);
}

/* ---- values against the library ------------------------------------------------ */

/* The rest sample is mn_model_rest_worlds, printed so that every float reads back exactly. */
static void rest_worlds_round_trip_exactly(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *m = mn_test_load(CESIUM_MAN);
    float *worlds = malloc((size_t)m->node_count * 16 * sizeof *worlds);
    assert_non_null(worlds);
    mn_model_rest_worlds(m, worlds);
    json_t *root = sample_json("%s --rest --times 0 --vertices none", CESIUM_MAN);
    json_t *rest = sample_at(root, 0);
    assert_int_equal(int_of(rest, "clip"), -1);
    json_t *mats = get(rest, "world_matrices");
    assert_int_equal(json_array_size(mats), m->node_count);
    for (uint32_t n = 0; n < m->node_count; n++)
        for (size_t k = 0; k < 16; k++)
            assert_true((float)num(item(item(mats, n), k)) == worlds[16 * n + k]);
    assert_int_equal(json_array_size(get(rest, "primitives")), 0);
    json_decref(root);
    free(worlds);
    mn_model_free(m);
}

/* An unskinned, unmorphed primitive (--vertices all) is placed by its node's world matrix. */
static void unskinned_positions_are_placed_by_the_node(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *m = mn_test_load(BOX);
    float worlds[2 * 16];
    assert_int_equal(m->node_count, 2);
    mn_model_rest_worlds(m, worlds);
    const mn_primitive *prim = &m->meshes[0].primitives[0];
    const mn_accessor *acc = &m->accessors[mn_primitive_find(prim, MN_SEMANTIC_POSITION, 0)];
    float local[24 * 3];
    assert_int_equal(mn_accessor_unpack_floats(acc, local, 24 * 3), 24 * 3);

    json_t *root = sample_json("%s --vertices all", BOX);
    assert_int_equal(json_array_size(get(root, "samples")), 1);   /* no animations: the rest pose alone */
    json_t *p = item(get(sample_at(root, 0), "primitives"), 0);
    assert_int_equal(int_of(p, "node"), 1);
    assert_true(json_is_false(get(p, "skinned")));
    assert_true(json_is_false(get(p, "morphed")));
    json_t *pos = get(p, "positions");
    assert_int_equal(json_array_size(pos), 24 * 3);
    for (size_t v = 0; v < 24; v++) {
        float want[3];
        mn_mat4_transform_point(want, worlds + 16, local + 3 * v);
        for (size_t c = 0; c < 3; c++)
            assert_float_equal(num(item(pos, 3 * v + c)), want[c], 1e-6);
    }
    json_decref(root);
    mn_model_free(m);
}

/* At rest the inverse bind matrices undo the joints: skinned positions are the bind-pose POSITION data. */
static void skinned_rest_positions_are_the_bind_pose(void **state)
{
    (void)state;
    mn_test_need_assets();
    static const float bind[30] = {-0.5f, 0, 0, 0.5f, 0, 0, -0.5f, 0.5f, 0, 0.5f, 0.5f, 0,
                                   -0.5f, 1, 0, 0.5f, 1, 0, -0.5f, 1.5f, 0, 0.5f, 1.5f, 0,
                                   -0.5f, 2, 0, 0.5f, 2, 0};
    json_t *root = sample_json("%s --rest --clip 0 --times 0", SIMPLE_SKIN);
    json_t *pos = get(item(get(sample_at(root, 0), "primitives"), 0), "positions");
    assert_int_equal(json_array_size(pos), 30);
    for (size_t i = 0; i < 30; i++)
        assert_float_equal(num(item(pos, i)), bind[i], 1e-6);
    json_decref(root);
}

/* At a key time a LINEAR rotation is that key, normalised; its node's world matrix shows it. */
static void key_time_gives_the_key_rotation(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *m = mn_test_load(SIMPLE_SKIN);
    const mn_channel *ch = NULL;
    for (uint32_t c = 0; c < m->animations[0].channel_count; c++)
        if (m->animations[0].channels[c].path == MN_PATH_ROTATION)
            ch = &m->animations[0].channels[c];
    assert_non_null(ch);
    assert_int_equal(ch->node, 2);
    assert_true(ch->key_count > 2);
    float q[4], r[16];
    mn_quat_normalize(q, ch->values + 4 * 2);
    mn_quat_to_mat4(r, q);

    char args[256];
    snprintf(args, sizeof args, "%s --times %.9g", SIMPLE_SKIN, (double)ch->times[2]);
    json_t *root = sample_json("%s", args);
    json_t *s = sample_at(root, 0);
    assert_true((float)num(get(s, "time")) == ch->times[2]);
    json_t *world = item(get(s, "world_matrices"), 2);
    /* Node 2 hangs from node 1 (identity) at translation (0, 1, 0). */
    for (size_t k = 0; k < 12; k++)
        assert_float_equal(num(item(world, k)), r[k], 1e-6);
    assert_float_equal(num(item(world, 12)), 0.0, 1e-6);
    assert_float_equal(num(item(world, 13)), 1.0, 1e-6);
    assert_float_equal(num(item(world, 14)), 0.0, 1e-6);
    assert_float_equal(num(item(world, 15)), 1.0, 1e-6);
    json_decref(root);
    mn_model_free(m);
}

/* Rest weights come from the mesh (SimpleMorph: 0.5 0.5); the clip's weights track overrides them. */
static void morph_weights_rest_then_track(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *m = mn_test_load(SIMPLE_MORPH);
    const mn_channel *ch = &m->animations[0].channels[0];
    assert_int_equal(ch->path, MN_PATH_WEIGHTS);
    assert_int_equal(ch->components, 2);

    char args[256];
    snprintf(args, sizeof args, "%s --rest --times %.9g", SIMPLE_MORPH, (double)ch->times[1]);
    json_t *root = sample_json("%s", args);
    json_t *rest = item(get(sample_at(root, 0), "morph_weights"), 0);
    assert_int_equal(int_of(rest, "node"), 0);
    assert_int_equal(int_of(rest, "mesh"), 0);
    assert_int_equal(json_array_size(get(rest, "weights")), 2);
    assert_true((float)num(item(get(rest, "weights"), 0)) == m->meshes[0].weights[0]);
    assert_true((float)num(item(get(rest, "weights"), 1)) == m->meshes[0].weights[1]);

    json_t *at = item(get(sample_at(root, 1), "morph_weights"), 0);
    assert_true((float)num(item(get(at, "weights"), 0)) == ch->values[2]);
    assert_true((float)num(item(get(at, "weights"), 1)) == ch->values[3]);
    json_t *p = item(get(sample_at(root, 1), "primitives"), 0);
    assert_true(json_is_true(get(p, "morphed")));
    assert_true(json_is_false(get(p, "skinned")));
    json_decref(root);
    mn_model_free(m);
}

/* ---- time lists ---------------------------------------------------------------- */

static void check_times(json_t *root, const float *want, size_t count, long long clip)
{
    json_t *samples = get(root, "samples");
    assert_int_equal(json_array_size(samples), count);
    for (size_t i = 0; i < count; i++) {
        json_t *s = item(samples, i);
        assert_int_equal(int_of(s, "clip"), clip);
        float t = (float)num(get(s, "time"));
        if (t != want[i])
            fprintf(stderr, "sample %zu at %.9g, expected %.9g\n", i, (double)t, (double)want[i]);
        assert_true(t == want[i]);
    }
}

/* AnimatedTriangle's rotation keys are 0, 0.25, 0.5, 0.75, 1. */
static void keys_is_every_key_time(void **state)
{
    (void)state;
    mn_test_need_assets();
    static const float want[] = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f};
    json_t *root = sample_json("%s --times keys --vertices none", TRIANGLE);
    check_times(root, want, 5, 0);
    json_decref(root);

    root = sample_json("%s --vertices none", TRIANGLE);   /* keys is the default */
    check_times(root, want, 5, 0);
    json_decref(root);
}

static void keys_mid_adds_midpoints_and_clamping_times(void **state)
{
    (void)state;
    mn_test_need_assets();
    static const float want[] = {-0.25f, 0.0f,   0.125f, 0.25f, 0.375f, 0.5f,
                                 0.625f, 0.75f, 0.875f, 1.0f,  1.25f};
    json_t *root = sample_json("%s --times keys+mid --vertices none", TRIANGLE);
    check_times(root, want, 11, 0);
    /* Clamped outside the keys: -0.25 poses as 0, 1.25 as 1. */
    json_t *before = get(sample_at(root, 0), "world_matrices");
    json_t *first = get(sample_at(root, 1), "world_matrices");
    json_t *last = get(sample_at(root, 9), "world_matrices");
    json_t *after = get(sample_at(root, 10), "world_matrices");
    assert_true(json_equal(before, first));
    assert_true(json_equal(after, last));
    json_decref(root);
}

/* BoxAnimated's two channels have different keys (one starts late): keys is their union, once each. */
static void keys_merges_channels_without_duplicates(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *m = mn_test_load(BOX_ANIMATED);
    assert_int_equal(m->animations[0].channel_count, 2);
    json_t *root = sample_json("%s --vertices none", BOX_ANIMATED);
    json_t *samples = get(root, "samples");
    size_t count = json_array_size(samples);
    for (size_t i = 1; i < count; i++)
        assert_true(num(get(item(samples, i - 1), "time")) < num(get(item(samples, i), "time")));
    /* Every key of every channel is there. */
    for (uint32_t c = 0; c < 2; c++) {
        const mn_channel *ch = &m->animations[0].channels[c];
        for (uint32_t k = 0; k < ch->key_count; k++) {
            bool found = false;
            for (size_t i = 0; i < count && !found; i++)
                found = (float)num(get(item(samples, i), "time")) == ch->times[k];
            assert_true(found);
        }
    }
    json_decref(root);
    mn_model_free(m);
}

static void explicit_times_keep_their_order(void **state)
{
    (void)state;
    mn_test_need_assets();
    static const float want[] = {0.5f, 0.1f, -3.0f, 100.0f};
    json_t *root = sample_json("%s --times 0.5,0.1,-3,1e2 --vertices none", TRIANGLE);
    check_times(root, want, 4, 0);
    json_decref(root);
}

/* ---- clips ---------------------------------------------------------------------- */

static void clip_all_samples_every_clip_in_order(void **state)
{
    (void)state;
    mn_test_need_assets();
    json_t *root = sample_json("%s --clip all --times 0.5 --vertices none", INTERPOLATION);
    assert_int_equal(json_array_size(get(root, "clips")), 9);
    json_t *samples = get(root, "samples");
    assert_int_equal(json_array_size(samples), 9);
    for (size_t i = 0; i < 9; i++)
        assert_int_equal(int_of(item(samples, i), "clip"), (long long)i);
    json_decref(root);

    root = sample_json("%s --times 0.5 --vertices none", INTERPOLATION);   /* all is the default */
    assert_int_equal(json_array_size(get(root, "samples")), 9);
    json_decref(root);
}

static void clip_by_name_and_by_index(void **state)
{
    (void)state;
    mn_test_need_assets();
    json_t *root = sample_json("%s --clip 'Linear Rotation' --times 0,1 --vertices none", INTERPOLATION);
    assert_int_equal(json_array_size(get(root, "clips")), 9);   /* every clip is still listed */
    assert_string_equal(json_string_value(get(item(get(root, "clips"), 5), "name")), "Linear Rotation");
    json_t *samples = get(root, "samples");
    assert_int_equal(json_array_size(samples), 2);
    assert_int_equal(int_of(item(samples, 0), "clip"), 5);
    assert_int_equal(int_of(item(samples, 1), "clip"), 5);
    json_decref(root);

    root = sample_json("%s --clip 7 --times 0 --vertices none --rest", INTERPOLATION);
    samples = get(root, "samples");
    assert_int_equal(json_array_size(samples), 2);
    assert_int_equal(int_of(item(samples, 0), "clip"), -1);
    assert_int_equal(int_of(item(samples, 1), "clip"), 7);
    json_decref(root);
}

/* ---- --vertices ---------------------------------------------------------------- */

/* The primitives in the first sample of root, a sample_json result (freed here). */
static size_t primitive_count(json_t *root)
{
    size_t n = json_array_size(get(sample_at(root, 0), "primitives"));
    json_decref(root);
    return n;
}

static void vertices_chooses_primitives(void **state)
{
    (void)state;
    mn_test_need_assets();
    assert_int_equal(primitive_count(sample_json("%s --times 0", CESIUM_MAN)), 1);   /* deformed */
    assert_int_equal(primitive_count(sample_json("%s --times 0 --vertices skinned", CESIUM_MAN)), 1);
    assert_int_equal(primitive_count(sample_json("%s --times 0 --vertices none", CESIUM_MAN)), 0);
    assert_int_equal(primitive_count(sample_json("%s --times 0", BOX_ANIMATED)), 0); /* nothing deforms */
    assert_int_equal(primitive_count(sample_json("%s --times 0 --vertices all", BOX_ANIMATED)), 2);
    assert_int_equal(primitive_count(sample_json("%s --times 0 --vertices skinned", SIMPLE_MORPH)), 0);
    assert_int_equal(primitive_count(sample_json("%s --times 0 --vertices deformed", SIMPLE_MORPH)), 1);
}

/* ---- text --------------------------------------------------------------------- */

static void text_table_without_json(void **state)
{
    (void)state;
    mn_test_need_assets();
    char args[256], file_line[256];
    snprintf(args, sizeof args, "sample %s --rest --times 0.5", SIMPLE_SKIN);
    snprintf(file_line, sizeof file_line, "file   \"%s\"\n", SIMPLE_SKIN);
    run_result r = run_marionette(args, 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, file_line));
    assert_non_null(strstr(r.out, "\nrest pose\n"));
    assert_non_null(strstr(r.out, "\nclip 0 \"anim0\" at t = 0.5 s\n"));
    assert_non_null(strstr(r.out, "world translation"));
    assert_non_null(strstr(r.out, "node 0 mesh 0 primitive 0 skinned: 10 vertices, world box min "));
    assert_null(strchr(r.out, '{'));
    run_free(&r);

    r = run_marionette("help sample", 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: marionette sample FILE [--clip NAME|INDEX|all]"));
    run_free(&r);
    r = run_marionette("help", 0);
    assert_non_null(strstr(r.out, "  sample "));
    run_free(&r);
}

/* ---- errors -------------------------------------------------------------------- */

/* `marionette sample <args>`, args formatted, exits with status and says message on stderr. */
static void expect_failure(int status, const char *message, const char *fmt, ...)
{
    char args[1024], full[1100];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(full, sizeof full, "sample %s", args);
    run_result r = run_marionette(full, 1);
    if (r.status != status || !strstr(r.out, message))
        fprintf(stderr, "'marionette %s' exited %d with:\n%s\n(expected %d and '%s')\n", full,
                r.status, r.out, status, message);
    assert_int_equal(r.status, status);
    assert_non_null(strstr(r.out, message));
    run_free(&r);
}

static void unknown_clip_is_a_usage_error_that_lists_the_clips(void **state)
{
    (void)state;
    mn_test_need_assets();
    expect_failure(2, "no clip named or numbered 'Walk'", "%s --clip Walk", INTERPOLATION);
    expect_failure(2, "its clips: 0 \"Step Scale\", 1 \"Linear Scale\"", "%s --clip Walk", INTERPOLATION);
    expect_failure(2, "no clip named or numbered '9'", "%s --clip 9", INTERPOLATION);
    expect_failure(2, "the file has no animations", "%s --clip 0", BOX);
}

static void bad_command_lines_exit_two(void **state)
{
    (void)state;
    expect_failure(2, "sample: which file?", "");
    expect_failure(2, "--times: 'abc' is not a number", "%s --times abc", TRIANGLE);
    expect_failure(2, "--times: '' is not a number", "%s --times 0,,1", TRIANGLE);
    expect_failure(2, "--times: '1e39' is not a number", "%s --times 1e39", TRIANGLE);
    expect_failure(2, "--times: 'nan' is not a number", "%s --times nan", TRIANGLE);
    expect_failure(2, "--vertices takes deformed, skinned, all or none", "%s --vertices some", TRIANGLE);
    expect_failure(2, "--clip needs a value", "%s --clip", TRIANGLE);
    expect_failure(2, "unknown option '--frames'", "%s --frames 3", TRIANGLE);
    expect_failure(2, "one FILE at a time", "%s %s", TRIANGLE, BOX);
    expect_failure(2, "usage: marionette sample FILE", "%s --times abc", TRIANGLE);
}

static void bad_files_exit_one(void **state)
{
    (void)state;
    mn_test_need_assets();
    expect_failure(1, "(MN_IO)", "/nonexistent/model.glb --json");
    expect_failure(1, "(MN_", "%s", mn_test_asset("invalid/glb/invalid_magic.glb"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_has_the_documented_shape),
        cmocka_unit_test(rest_worlds_round_trip_exactly),
        cmocka_unit_test(unskinned_positions_are_placed_by_the_node),
        cmocka_unit_test(skinned_rest_positions_are_the_bind_pose),
        cmocka_unit_test(key_time_gives_the_key_rotation),
        cmocka_unit_test(morph_weights_rest_then_track),
        cmocka_unit_test(keys_is_every_key_time),
        cmocka_unit_test(keys_mid_adds_midpoints_and_clamping_times),
        cmocka_unit_test(keys_merges_channels_without_duplicates),
        cmocka_unit_test(explicit_times_keep_their_order),
        cmocka_unit_test(clip_all_samples_every_clip_in_order),
        cmocka_unit_test(clip_by_name_and_by_index),
        cmocka_unit_test(vertices_chooses_primitives),
        cmocka_unit_test(text_table_without_json),
        cmocka_unit_test(unknown_clip_is_a_usage_error_that_lists_the_clips),
        cmocka_unit_test(bad_command_lines_exit_two),
        cmocka_unit_test(bad_files_exit_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
