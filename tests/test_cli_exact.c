/*
 * The `marionette` command does exactly what it says, run as a user runs it
 * (the built binary under popen): the one FILE argument picks what a line is
 * read as (an option's value never does), every command answers --help on
 * stdout with exit status 0 in lines that fit 100 columns, error lines name
 * the file once and say why, in the command's own terms, counts are worded
 * for their number, -o's extension is the format written (or the line is
 * refused before any work), --time on a file without clips draws its rest
 * pose, export --out without an extension writes a GLB, and an OBJ index too
 * big for any file is printed as written.  Everything here runs on files the
 * test writes and tests/data/voxel_arm; no sample asset is needed.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "run_tool.h"

#define ARM "tests/data/voxel_arm/rig.json"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    mn_test_make_temp_dir(dir, sizeof dir, "cli_exact");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    mn_test_remove_tree(dir);
    return 0;
}

/* `marionette <args>`, args formatted; capture_stderr picks the stream that comes back. */
static run_result run(int capture_stderr, const char *fmt, ...)
{
    char args[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof args);
    return mn_run_tool("marionette", args, capture_stderr);
}

/* The run exited `status` and its captured stream holds needle. */
static void expect(const run_result *r, int status, const char *needle, const char *what)
{
    if (r->status != status || (needle && !strstr(r->out, needle)))
        fail_msg("%s: status %d (want %d), output:\n%s(want \"%s\")", what, r->status, status,
                 r->out, needle ? needle : "");
}

static size_t occurrences(const char *text, const char *word)
{
    size_t n = 0;
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        n++;
    return n;
}

/* A small OBJ triangle (no animations), written into dir; its path into out. */
static void write_triangle(char *out, size_t size, const char *name, const char *face)
{
    snprintf(out, size, "%s/%s", dir, name);
    char text[256];
    int n = snprintf(text, sizeof text, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf %s\n", face);
    mn_test_write_file(out, text, (size_t)n);
}

static bool starts_with_bytes(const char *path, const char *magic, size_t n)
{
    size_t size = 0;
    char *bytes = mn_test_read_file(path, &size);
    bool yes = size >= n && memcmp(bytes, magic, n) == 0;
    free(bytes);
    return yes;
}

/* ---- the one FILE decides ------------------------------------------------------------------- */

static void an_option_value_is_never_taken_for_the_file(void **state)
{
    (void)state;
    /* A voxel rig with a clip named like a head or a package: the rig's own "no animation". */
    run_result r = run(1, "render %s --clip character.json -o %s/x.png", ARM, dir);
    expect(&r, 2, "no animation 'character.json'", "render --clip character.json");
    assert_null(strstr(r.out, "JSON syntax"));
    run_free(&r);
    r = run(1, "render --clip head.aosrig -o %s/x.png %s", dir, ARM);
    expect(&r, 2, "no animation 'head.aosrig'", "render --clip head.aosrig");
    assert_null(strstr(r.out, ".aosrig head"));
    run_free(&r);
    /* sample: --anim is the rig's; its value is no head. */
    r = run(1, "sample --anim wave.aosrig %s", ARM);
    assert_int_equal(r.status != 0, 1);
    assert_null(strstr(r.out, ".aosrig head"));
    assert_non_null(strstr(r.out, "wave.aosrig"));
    run_free(&r);
    /* A glTF FILE with --clip head.aosrig: the glTF sampler, which has no such clip. */
    char obj[128], glb[160];
    write_triangle(obj, sizeof obj, "tri.obj", "1 2 3");
    snprintf(glb, sizeof glb, "%s/tri.glb", dir);
    r = run(0, "convert %s %s", obj, glb);
    expect(&r, 0, "wrote", "convert tri.obj");
    run_free(&r);
    r = run(1, "sample %s --clip head.aosrig", glb);
    expect(&r, 2, "no clip named or numbered 'head.aosrig'", "sample --clip head.aosrig");
    run_free(&r);
}

/* ---- help ------------------------------------------------------------------------------------ */

/* Every line of text is at most 100 columns (UTF-8 characters, not bytes). */
static void assert_fits_100_columns(const char *text, const char *what)
{
    size_t col = 0, line = 1;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\n') {
            col = 0;
            line++;
        } else if ((*p & 0xC0) != 0x80 && ++col > 100) {
            fail_msg("%s: line %zu is wider than 100 columns:\n%s", what, line, text);
        }
    }
}

static void every_command_answers_help_on_stdout_with_status_0(void **state)
{
    (void)state;
    static const char *const commands[] = {"info", "sample", "render", "export", "convert",
                                           "demo", "bench"};
    static const char *const asks[] = {"%s --help", "%s -h", "help %s", "%s --bogus --help",
                                       "%s --frames 0 -h"};
    char first[2][128] = {{0}};
    for (size_t c = 0; c < 7; c++)
        for (size_t k = 0; k < 5; k++) {
            char line[64], want[64];
            snprintf(line, sizeof line, asks[k], commands[c]);
            snprintf(want, sizeof want, "usage: marionette %s ", commands[c]);
            run_result r = run(0, "%s", line);
            expect(&r, 0, NULL, line);
            if (strncmp(r.out, want, strlen(want)) != 0)
                fail_msg("%s: stdout does not start with \"%s\":\n%s", line, want, r.out);
            assert_fits_100_columns(r.out, line);
            if (c == 3 || c == 4)
                snprintf(first[c - 3], sizeof first[0], "%.*s", (int)strcspn(r.out, "\n"), r.out);
            run_free(&r);
            r = run(1, "%s", line);
            if (r.size != 0)
                fail_msg("%s wrote to stderr:\n%s", line, r.out);
            run_free(&r);
        }
    /* export and convert: each its own usage. */
    assert_string_not_equal(first[0], first[1]);
    /* The FILE kinds with options of their own, and the overview. */
    static const char *const kinds[] = {"render x.aosrig --help", "sample x.aosrig --help",
                                        "sample rig.json --help", "render character.json --help",
                                        "help", "--help"};
    for (size_t k = 0; k < 6; k++) {
        run_result r = run(0, "%s", kinds[k]);
        expect(&r, 0, "usage: marionette ", kinds[k]);
        assert_fits_100_columns(r.out, kinds[k]);
        run_free(&r);
    }
}

static void the_readme_shows_the_usage_the_tool_prints(void **state)
{
    (void)state;
    size_t size = 0;
    char *readme = mn_test_read_file("README.md", &size);
    const char *marker = "<!-- output: marionette help -->\n```\n$ build/release/marionette help\n";
    const char *at = strstr(readme, marker);
    assert_non_null(at);
    at += strlen(marker);
    const char *end = strstr(at, "\n```\n");
    assert_non_null(end);
    run_result r = run(0, "help");
    assert_int_equal(r.status, 0);
    size_t n = (size_t)(end - at) + 1;
    if (r.size != n || memcmp(r.out, at, n) != 0)
        fail_msg("README.md's usage block is not what `marionette help` prints:\n%s", r.out);
    run_free(&r);
    free(readme);
}

/* ---- error lines ----------------------------------------------------------------------------- */

static void an_error_line_names_the_file_once_and_says_why(void **state)
{
    (void)state;
    run_result r = run(1, "info /nonexistent/model.glb");
    expect(&r, 1, "No such file or directory", "info /nonexistent/model.glb");
    assert_int_equal(occurrences(r.out, "/nonexistent/model.glb"), 1);
    run_free(&r);

    /* Files that cannot be made: the system's reason, every time. */
    char blocker[128];
    snprintf(blocker, sizeof blocker, "%s/a_file", dir);
    mn_test_write_file(blocker, "x", 1);
    r = run(1, "render %s --size 32x32 -q -o %s/x.png", ARM, blocker);
    expect(&r, 1, "Not a directory", "render -o FILE/x.png");
    assert_int_equal(occurrences(r.out, "a_file/x.png"), 1);
    run_free(&r);
    r = run(1, "export --rig %s --out %s/x.glb", ARM, blocker);
    expect(&r, 1, "Not a directory", "export --out FILE/x.glb");
    run_free(&r);
    r = run(1, "demo -q --size 16x16 --out %s/d", blocker);
    expect(&r, 1, "Not a directory", "demo --out FILE/d");
    run_free(&r);
}

static void a_file_of_no_kind_read_is_named_in_the_commands_terms(void **state)
{
    (void)state;
    char png[128], txt[128];
    snprintf(png, sizeof png, "%s/photo.png", dir);
    mn_test_write_file(png, "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
    snprintf(txt, sizeof txt, "%s/notes.txt", dir);
    mn_test_write_file(txt, "hello\n", 6);
    static const struct {
        const char *line, *kinds;
    } cases[] = {
        {"info %s", "not a glTF, OBJ, rig.json, .aosrig or character.json file"},
        {"sample %s", "not a glTF, OBJ, rig.json, .aosrig or character.json file"},
        {"render %s -o /tmp/never.png", "not a glTF, OBJ, rig.json, .aosrig or character.json file"},
        {"convert %s /tmp/never.glb", "not a glTF, OBJ or rig.json file"},
    };
    for (size_t i = 0; i < 4; i++)
        for (int f = 0; f < 2; f++) {
            char line[256];
            snprintf(line, sizeof line, cases[i].line, f ? txt : png);
            run_result r = run(1, "%s", line);
            expect(&r, 1, cases[i].kinds, line);
            assert_null(strstr(r.out, "MN_GLB_MAGIC"));
            assert_null(strstr(r.out, "JSON syntax"));
            run_free(&r);
        }
}

/* No "1 <plural>" in text: each count of one is singular. */
static void assert_no_plural_one(const char *text, const char *what)
{
    static const char *const plurals[] = {"meshes", "bytes", "nodes", "materials", "animations",
                                          "scenes", "images", "vertices", "indices", "tracks",
                                          "keys", "parts", "joints", "primitives", "triangles"};
    for (size_t i = 0; i < sizeof plurals / sizeof plurals[0]; i++) {
        char one[32];
        snprintf(one, sizeof one, " 1 %s", plurals[i]);
        if (strstr(text, one))
            fail_msg("%s says \"%s\":\n%s", what, one + 1, text);
    }
}

static void counts_of_one_are_singular(void **state)
{
    (void)state;
    /* One scene, one node, one mesh, one primitive and one image of 1 byte. */
    char gltf[128];
    snprintf(gltf, sizeof gltf, "%s/one.gltf", dir);
    const char *doc =
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
        "\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
        "\"min\":[0,0,0],\"max\":[1,1,0]}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
        "\"buffers\":[{\"byteLength\":36,\"uri\":\"data:application/octet-stream;base64,"
        "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA\"}],"
        "\"images\":[{\"uri\":\"data:image/png;base64,AA==\"}]}";
    mn_test_write_file(gltf, doc, strlen(doc));
    run_result r = run(0, "info %s", gltf);
    expect(&r, 0, "1 byte, data URI", "info one.gltf");
    assert_non_null(strstr(r.out, "1 scene, 1 node, 1 mesh"));
    assert_no_plural_one(r.out, "info one.gltf");
    run_free(&r);
    char glb[128];
    snprintf(glb, sizeof glb, "%s/one.glb", dir);
    r = run(0, "convert %s %s", gltf, glb);
    expect(&r, 0, "(1 node, 1 mesh, 0 materials, 0 animations)", "convert one.gltf");
    run_free(&r);
    r = run(0, "sample %s --vertices all", glb);
    assert_int_equal(r.status, 0);
    assert_no_plural_one(r.out, "sample one.glb");
    run_free(&r);
    r = run(0, "info %s", ARM);
    assert_int_equal(r.status, 0);
    assert_no_plural_one(r.out, "info rig.json");
    run_free(&r);
}

static void an_obj_index_is_printed_as_written(void **state)
{
    (void)state;
    static const char *const indices[] = {"9223372036854775809", "99999999999999999999",
                                          "-18446744073709551617"};
    for (size_t i = 0; i < 3; i++) {
        char obj[128], face[64], want[96];
        snprintf(face, sizeof face, "1 2 %s", indices[i]);
        write_triangle(obj, sizeof obj, "big.obj", face);
        snprintf(want, sizeof want, "vertex index %s is out of range", indices[i]);
        run_result r = run(1, "info %s", obj);
        expect(&r, 1, want, indices[i]);
        run_free(&r);
    }
}

/* ---- what render and export write ----------------------------------------------------------- */

static void render_writes_the_format_its_extension_names(void **state)
{
    (void)state;
    static const struct {
        const char *name, *magic;
        size_t n;
    } cases[] = {{"a.png", "\x89PNG", 4}, {"b.jpg", "\xFF\xD8\xFF", 3},
                 {"c.JPEG", "\xFF\xD8\xFF", 3}, {"seq_001.jpg", "\xFF\xD8\xFF", 3}};
    run_result r = run(1, "render %s --size 48x32 -q -o %s/a.png", ARM, dir);
    expect(&r, 0, NULL, "render -o a.png");
    run_free(&r);
    r = run(1, "render %s --size 48x32 -q -o %s/b.jpg", ARM, dir);
    expect(&r, 0, NULL, "render -o b.jpg");
    run_free(&r);
    r = run(1, "render %s --size 48x32 -q -o %s/c.JPEG", ARM, dir);
    expect(&r, 0, NULL, "render -o c.JPEG");
    run_free(&r);
    r = run(1, "render %s --size 48x32 --frames 2 -q -o %s/seq.jpg", ARM, dir);
    expect(&r, 0, NULL, "render --frames 2 -o seq.jpg");
    run_free(&r);
    for (size_t i = 0; i < 4; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].name);
        if (!starts_with_bytes(path, cases[i].magic, cases[i].n))
            fail_msg("%s is not the format its name says", path);
    }
    /* No alpha in a JPEG: a transparent background is refused, before any work. */
    r = run(1, "render %s --background none -o %s/t.jpg", ARM, dir);
    expect(&r, 2, "a JPEG has no transparency", "render --background none -o t.jpg");
    run_free(&r);
}

static void an_unknown_extension_is_refused_before_any_work(void **state)
{
    (void)state;
    /* The input does not exist: a refusal that read it would be status 1, not 2. */
    static const char *const outs[] = {"x.gif", "x", "x.png.txt"};
    for (size_t i = 0; i < 3; i++) {
        run_result r = run(1, "render /nonexistent/model.glb -o %s/%s", dir, outs[i]);
        expect(&r, 2, "is not a .png, .jpg or .jpeg file name", outs[i]);
        assert_null(strstr(r.out, "nonexistent/model.glb"));
        run_free(&r);
    }
    char listing[512];
    mn_test_list_dir(dir, listing, sizeof listing);
    assert_string_equal(listing, "");
}

static void time_without_clips_draws_the_rest_pose_with_a_note(void **state)
{
    (void)state;
    char obj[128], glb[160], png[160];
    write_triangle(obj, sizeof obj, "tri.obj", "1 2 3");
    snprintf(glb, sizeof glb, "%s/tri.glb", dir);
    run_result r = run(0, "convert %s %s", obj, glb);
    expect(&r, 0, "0 animations", "convert tri.obj");
    run_free(&r);
    snprintf(png, sizeof png, "%s/rest.png", dir);
    r = run(1, "render %s --time 0.5 --size 32x32 -q -o %s", glb, png);
    expect(&r, 0, "note: the file has no animations; drawing the rest pose", "render --time 0.5");
    run_free(&r);
    assert_true(starts_with_bytes(png, "\x89PNG", 4));
    r = run(1, "render %s --time 0.5 --size 32x32 -q -o %s", obj, png);
    expect(&r, 0, "note: an OBJ has no animations", "render tri.obj --time 0.5");
    run_free(&r);
    /* --frames still needs a clip: N frames of one pose are no sequence. */
    r = run(1, "render %s --frames 3 -o %s", glb, png);
    expect(&r, 2, "need a clip", "render --frames 3");
    run_free(&r);
}

static void export_out_without_an_extension_writes_a_glb(void **state)
{
    (void)state;
    char want[256], glb[160], iface[160];
    snprintf(want, sizeof want, "wrote %s/arm.glb and %s/arm.interface.json\n", dir, dir);
    run_result r = run(0, "export --rig %s --out %s/arm", ARM, dir);
    expect(&r, 0, want, "export --out arm");
    run_free(&r);
    snprintf(glb, sizeof glb, "%s/arm.glb", dir);
    snprintf(iface, sizeof iface, "%s/arm.interface.json", dir);
    assert_true(starts_with_bytes(glb, "glTF", 4));
    assert_int_equal(access(iface, F_OK), 0);
    /* Another extension is still no glTF. */
    r = run(1, "export --rig %s --out %s/arm.txt", ARM, dir);
    expect(&r, 2, "--out must end in .glb or .gltf", "export --out arm.txt");
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(an_option_value_is_never_taken_for_the_file, setup,
                                        teardown),
        cmocka_unit_test(every_command_answers_help_on_stdout_with_status_0),
        cmocka_unit_test(the_readme_shows_the_usage_the_tool_prints),
        cmocka_unit_test_setup_teardown(an_error_line_names_the_file_once_and_says_why, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_file_of_no_kind_read_is_named_in_the_commands_terms,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(counts_of_one_are_singular, setup, teardown),
        cmocka_unit_test_setup_teardown(an_obj_index_is_printed_as_written, setup, teardown),
        cmocka_unit_test_setup_teardown(render_writes_the_format_its_extension_names, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(an_unknown_extension_is_refused_before_any_work, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(time_without_clips_draws_the_rest_pose_with_a_note,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(export_out_without_an_extension_writes_a_glb, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
