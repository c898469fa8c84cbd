/*
 * The `marionette` command, run as a user runs it: the built binary (found
 * through MN_BUILD_DIR, which CTest sets) under popen, on real assets, on
 * files this test writes, and on bad command lines.  Checks exit statuses
 * (0 ok, 1 bad file, 2 bad usage), that --json is one valid JSON object with
 * the documented keys and the right counts, and that errors name their code.
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
#include <sys/wait.h>
#include <unistd.h>

#include "assets.h"

#define BOX mn_test_asset("gltf/Box/glTF-Binary/Box.glb")
#define CESIUM_MAN mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb")

/* ---- running the tool -------------------------------------------------------- */

#include "run_tool.h"
#include "files.h"

static run_result run_tool(const char *program, const char *args, int capture_stderr)
{
    return mn_run_tool(program, args, capture_stderr);
}

/* `marionette <args>`, args formatted; capture_stderr selects the stream that comes back. */
static run_result run_marionette(int capture_stderr, const char *fmt, ...)
{
    char args[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof args);
    return run_tool("marionette", args, capture_stderr);
}

#define marionette(...) run_marionette(0, __VA_ARGS__)
#define marionette_stderr(...) run_marionette(1, __VA_ARGS__)

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

/* json_integer_value at a "/"-separated path ("skins/0/joint_count"); fails the test when absent. */
static json_t *at(json_t *root, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *v = root;
    for (char *save = NULL, *tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        if (json_is_array(v))
            v = json_array_get(v, (size_t)strtoul(tok, NULL, 10));
        else
            v = json_object_get(v, tok);
        if (!v)
            fprintf(stderr, "missing JSON path %s (at %s)\n", path, tok);
        assert_non_null(v);
    }
    return v;
}

static long long int_at(json_t *root, const char *path)
{
    json_t *v = at(root, path);
    assert_true(json_is_integer(v));
    return (long long)json_integer_value(v);
}

static const char *str_at(json_t *root, const char *path)
{
    json_t *v = at(root, path);
    assert_true(json_is_string(v));
    return json_string_value(v);
}

/* ---- temporary files --------------------------------------------------------- */

typedef struct tmp_dir {
    char path[64];
} tmp_dir;

static void tmp_make(tmp_dir *t)
{
    mn_test_make_temp_dir(t->path, sizeof t->path, "cli");
}

static void tmp_file(const tmp_dir *t, const char *name, const void *data, size_t size, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", t->path, name);
    FILE *f = fopen(out, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

static void tmp_remove(tmp_dir *t, const char *const *names, size_t count)
{
    char p[256];
    for (size_t i = 0; i < count; i++) {
        snprintf(p, sizeof p, "%s/%s", t->path, names[i]);
        remove(p);
    }
    assert_int_equal(rmdir(t->path), 0);
}

/* ---- version and help ------------------------------------------------------- */

static void version_prints_library_version(void **state)
{
    (void)state;
    run_result r = marionette("--version");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "marionette " MN_VERSION_STRING "\n");
    run_free(&r);
}

static void help_lists_info_and_exits_zero(void **state)
{
    (void)state;
    run_result r = marionette("help");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "info"));
    assert_non_null(strstr(r.out, "FILE [--json]"));
    run_free(&r);

    r = marionette("help info");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: marionette info FILE [--json]"));
    run_free(&r);
}

/* ---- usage errors exit 2 ---------------------------------------------------- */

static void bad_usage_exits_two(void **state)
{
    (void)state;
    /* Formats of the command lines: each %s is Box.glb. */
    static const char *const cases[] = {
        "",                         /* no command */
        "frobnicate",               /* unknown command */
        "info",                     /* no file */
        "info --yaml %s",           /* unknown option */
        "info %s %s",               /* two files */
        "help nosuchcommand",
        "--version extra",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[1024];
        snprintf(args, sizeof args, cases[i], BOX, BOX);
        run_result r = marionette_stderr("%s", args);
        if (r.status != 2)
            fprintf(stderr, "'marionette %s' exited %d\n", args, r.status);
        assert_int_equal(r.status, 2);
        assert_true(r.size > 0);   /* says what was wrong */
        run_free(&r);
    }
}

static void unknown_command_is_named(void **state)
{
    (void)state;
    run_result r = marionette_stderr("frobnicate");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "unknown command 'frobnicate'"));
    run_free(&r);
}

/* ---- info on real files ------------------------------------------------------ */

static void info_text_describes_box(void **state)
{
    (void)state;
    mn_test_need_assets();
    run_result r = marionette("info %s", BOX);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "asset       glTF 2.0"));
    assert_non_null(strstr(r.out, "24 vertices, 36 indices (u16)"));
    assert_non_null(strstr(r.out, "      POSITION     VEC3   f32\n"));
    assert_non_null(strstr(r.out, "      NORMAL       VEC3   f32\n"));
    assert_non_null(strstr(r.out, "extensions  used: none; required: none"));
    assert_non_null(strstr(r.out, "[mesh 0"));
    run_free(&r);
}

static void info_json_has_every_documented_key(void **state)
{
    (void)state;
    mn_test_need_assets();
    run_result r = marionette("info --json %s", BOX);
    assert_int_equal(r.status, 0);
    json_t *root = parse_json(&r);
    static const char *const keys[] = {
        "file", "asset", "extensions_used", "extensions_required", "counts", "scene", "scenes",
        "nodes", "meshes", "skins", "animations", "materials", "images", "cameras", "lights",
        "variants", "bounds", "warnings",
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (!json_object_get(root, keys[i]))
            fprintf(stderr, "missing key %s\n", keys[i]);
        assert_non_null(json_object_get(root, keys[i]));
    }
    assert_int_equal(json_object_size(root), sizeof keys / sizeof keys[0]);
    assert_string_equal(str_at(root, "asset/version"), "2.0");
    assert_int_equal(int_at(root, "counts/meshes"), 1);
    assert_int_equal(int_at(root, "counts/nodes"), 2);
    assert_int_equal(int_at(root, "meshes/0/primitives/0/vertex_count"), 24);
    assert_int_equal(int_at(root, "meshes/0/primitives/0/index_count"), 36);
    assert_string_equal(str_at(root, "meshes/0/primitives/0/mode"), "TRIANGLES");
    assert_int_equal(json_array_size(at(root, "meshes/0/primitives/0/attributes")), 2);
    assert_int_equal(json_array_size(at(root, "skins")), 0);
    assert_int_equal(json_array_size(at(root, "animations")), 0);
    assert_true(json_is_object(at(root, "bounds")));
    assert_int_equal(json_array_size(at(root, "bounds/min")), 3);
    json_decref(root);
    run_free(&r);
}

static void info_json_counts_cesium_man(void **state)
{
    (void)state;
    mn_test_need_assets();
    run_result r = marionette("info %s --json", CESIUM_MAN);
    assert_int_equal(r.status, 0);
    json_t *root = parse_json(&r);
    assert_int_equal(int_at(root, "counts/skins"), 1);
    assert_int_equal(int_at(root, "skins/0/joint_count"), 19);
    assert_int_equal(json_array_size(at(root, "skins/0/joints")), 19);
    assert_int_equal(int_at(root, "counts/animations"), 1);
    assert_int_equal(int_at(root, "animations/0/channel_count"), 57);
    assert_int_equal(int_at(root, "animations/0/interpolations/LINEAR"), 57);
    assert_int_equal(int_at(root, "animations/0/interpolations/STEP"), 0);
    assert_int_equal(int_at(root, "animations/0/interpolations/CUBICSPLINE"), 0);
    assert_float_equal(json_real_value(at(root, "animations/0/duration")), 2.0, 1e-4);
    assert_int_equal(int_at(root, "counts/nodes"), 22);
    assert_int_equal(int_at(root, "meshes/0/primitives/0/vertex_count"), 3273);
    assert_int_equal(int_at(root, "meshes/0/primitives/0/index_count"), 14016);
    assert_int_equal(int_at(root, "counts/images"), 1);
    assert_string_equal(str_at(root, "images/0/mime_type"), "image/jpeg");
    assert_true(int_at(root, "images/0/size") > 0);

    /* JOINTS_0 is u16 VEC4 in this file. */
    json_t *attrs = at(root, "meshes/0/primitives/0/attributes");
    int found = 0;
    for (size_t i = 0; i < json_array_size(attrs); i++) {
        json_t *a = json_array_get(attrs, i);
        if (strcmp(json_string_value(json_object_get(a, "name")), "JOINTS_0") == 0) {
            assert_string_equal(json_string_value(json_object_get(a, "component")), "u16");
            assert_string_equal(json_string_value(json_object_get(a, "type")), "VEC4");
            found = 1;
        }
    }
    assert_true(found);
    json_decref(root);
    run_free(&r);
}

static void info_text_marks_skin_and_joints(void **state)
{
    (void)state;
    mn_test_need_assets();
    run_result r = marionette("info %s", CESIUM_MAN);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "[skin 0]"));
    assert_non_null(strstr(r.out, "[joint of skin 0]"));
    assert_non_null(strstr(r.out, "19 joints"));
    assert_non_null(strstr(r.out, "57 channels (19 translation, 19 rotation, 19 scale), LINEAR 57"));
    assert_non_null(strstr(r.out, "image/jpeg"));
    run_free(&r);
}

/* ---- info on the generated demo model ---------------------------------------- */

static void check_demo(const char *joints_flag, const char *joints_component)
{
    tmp_dir t;
    tmp_make(&t);
    char args[512];
    snprintf(args, sizeof args, "'%s/demo.glb' %s", t.path, joints_flag);
    run_result made = run_tool("make_demo_glb", args, 0);
    assert_int_equal(made.status, 0);
    run_free(&made);

    snprintf(args, sizeof args, "info --json '%s/demo.glb'", t.path);
    run_result r = marionette("%s", args);
    assert_int_equal(r.status, 0);
    json_t *root = parse_json(&r);
    assert_string_equal(str_at(root, "asset/generator"), "marionette make_demo_glb");
    assert_int_equal(int_at(root, "counts/nodes"), 5);
    assert_int_equal(int_at(root, "skins/0/joint_count"), 3);
    assert_int_equal(int_at(root, "meshes/0/primitives/0/vertex_count"), 40);
    assert_int_equal(int_at(root, "meshes/0/primitives/0/index_count"), 84);
    assert_int_equal(json_array_size(at(root, "meshes/0/primitives/0/attributes")), 5);
    assert_string_equal(str_at(root, "meshes/0/primitives/0/attributes/3/name"), "JOINTS_0");
    assert_string_equal(str_at(root, "meshes/0/primitives/0/attributes/3/component"), joints_component);
    assert_string_equal(str_at(root, "animations/0/name"), "wave");
    assert_int_equal(int_at(root, "animations/0/channel_count"), 4);
    assert_int_equal(int_at(root, "animations/0/interpolations/LINEAR"), 2);
    assert_int_equal(int_at(root, "animations/0/interpolations/STEP"), 1);
    assert_int_equal(int_at(root, "animations/0/interpolations/CUBICSPLINE"), 1);
    assert_float_equal(json_real_value(at(root, "animations/0/duration")), 2.0, 1e-6);
    assert_string_equal(str_at(root, "materials/0/name"), "arm_paint");
    assert_int_equal(int_at(root, "materials/0/textures/base_color/texture"), 0);
    assert_string_equal(str_at(root, "images/0/mime_type"), "image/png");
    assert_int_equal(int_at(root, "counts/warnings"), 0);
    /* The arm stands 3 units tall on +Y, 0.4 wide. */
    assert_float_equal(json_real_value(at(root, "bounds/min/1")), 0.0, 1e-6);
    assert_float_equal(json_real_value(at(root, "bounds/max/1")), 3.0, 1e-6);
    assert_float_equal(json_real_value(at(root, "bounds/max/0")), 0.2, 1e-6);
    json_decref(root);
    run_free(&r);

    static const char *const names[] = {"demo.glb"};
    tmp_remove(&t, names, 1);
}

static void demo_glb_with_u16_joints_reads_back(void **state)
{
    (void)state;
    check_demo("", "u16");
}

static void demo_glb_with_u8_joints_reads_back(void **state)
{
    (void)state;
    check_demo("--joints u8", "u8");
}

/* ---- bad files exit 1 and name the code ------------------------------------ */

static void missing_file_exits_one_with_io_code(void **state)
{
    (void)state;
    run_result r = marionette_stderr("info /nonexistent/dir/model.glb");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "marionette: /nonexistent/dir/model.glb: "));
    assert_non_null(strstr(r.out, "(MN_IO)"));
    run_free(&r);
}

static void glb_version_one_is_refused_with_its_code(void **state)
{
    (void)state;
    /* "glTF", version 1, length 20, then an empty JSON chunk header. */
    static const unsigned char glb[20] = {'g', 'l', 'T', 'F', 1, 0, 0, 0, 20, 0, 0, 0,
                                          0, 0, 0, 0, 'J', 'S', 'O', 'N'};
    tmp_dir t;
    tmp_make(&t);
    char path[256], args[320];
    tmp_file(&t, "v1.glb", glb, sizeof glb, path, sizeof path);
    snprintf(args, sizeof args, "info '%s'", path);
    run_result r = marionette_stderr("%s", args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, path));
    assert_non_null(strstr(r.out, "(MN_GLB_VERSION)"));
    run_free(&r);
    static const char *const names[] = {"v1.glb"};
    tmp_remove(&t, names, 1);
}

static void out_of_range_accessor_names_the_json_path(void **state)
{
    (void)state;
    static const char gltf[] =
        "{\"asset\": {\"version\": \"2.0\"},\n"
        " \"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 7}}]}]}\n";
    tmp_dir t;
    tmp_make(&t);
    char path[256], args[320];
    tmp_file(&t, "bad_index.gltf", gltf, sizeof gltf - 1, path, sizeof path);
    snprintf(args, sizeof args, "info --json '%s'", path);
    run_result r = marionette_stderr("%s", args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "meshes[0].primitives[0].attributes.POSITION"));
    assert_non_null(strstr(r.out, "(MN_INDEX_RANGE)"));
    run_free(&r);
    /* Nothing on stdout: a script reading the JSON sees no half object. */
    r = marionette("%s", args);
    assert_int_equal(r.status, 1);
    assert_int_equal(r.size, 0);
    run_free(&r);
    static const char *const names[] = {"bad_index.gltf"};
    tmp_remove(&t, names, 1);
}

static void json_syntax_error_names_its_code(void **state)
{
    (void)state;
    static const char gltf[] = "{\"asset\": {\"version\": \"2.0\"},\n \"nodes\": [}\n";
    tmp_dir t;
    tmp_make(&t);
    char path[256], args[320];
    tmp_file(&t, "syntax.gltf", gltf, sizeof gltf - 1, path, sizeof path);
    snprintf(args, sizeof args, "info '%s'", path);
    run_result r = marionette_stderr("%s", args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "(MN_JSON_SYNTAX)"));
    assert_non_null(strstr(r.out, "line 2"));
    run_free(&r);
    static const char *const names[] = {"syntax.gltf"};
    tmp_remove(&t, names, 1);
}

static void validator_sample_is_refused_with_a_code(void **state)
{
    (void)state;
    mn_test_need_assets();
    const char *file = mn_test_asset("invalid/glb/invalid_magic.glb");
    char prefix[512];
    snprintf(prefix, sizeof prefix, "marionette: %s: ", file);
    run_result r = marionette_stderr("info %s", file);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, prefix));
    assert_non_null(strstr(r.out, "(MN_"));
    run_free(&r);
}

/* The short spellings print exactly what the long ones do. */
static void sample_time_and_skinned_are_the_long_flags(void **state)
{
    (void)state;
    mn_test_need_assets();
    const char *file = mn_test_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf");
    char a[512], b[512];
    snprintf(a, sizeof a, "sample %s --time 0.5 --skinned --json", file);
    snprintf(b, sizeof b, "sample %s --times 0.5 --vertices skinned --json", file);
    run_result ra = marionette("%s", a), rb = marionette("%s", b);
    assert_int_equal(ra.status, 0);
    assert_int_equal(rb.status, 0);
    assert_true(ra.size > 100);
    assert_string_equal(ra.out, rb.out);
    run_free(&ra);
    run_free(&rb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_prints_library_version),
        cmocka_unit_test(help_lists_info_and_exits_zero),
        cmocka_unit_test(bad_usage_exits_two),
        cmocka_unit_test(unknown_command_is_named),
        cmocka_unit_test(info_text_describes_box),
        cmocka_unit_test(info_json_has_every_documented_key),
        cmocka_unit_test(info_json_counts_cesium_man),
        cmocka_unit_test(info_text_marks_skin_and_joints),
        cmocka_unit_test(demo_glb_with_u16_joints_reads_back),
        cmocka_unit_test(demo_glb_with_u8_joints_reads_back),
        cmocka_unit_test(missing_file_exits_one_with_io_code),
        cmocka_unit_test(glb_version_one_is_refused_with_its_code),
        cmocka_unit_test(out_of_range_accessor_names_the_json_path),
        cmocka_unit_test(json_syntax_error_names_its_code),
        cmocka_unit_test(validator_sample_is_refused_with_a_code),
        cmocka_unit_test(sample_time_and_skinned_are_the_long_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
