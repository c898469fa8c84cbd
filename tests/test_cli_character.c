/*
 * `marionette info` and `marionette render` on a character package, run as
 * a user runs them (the built binary under popen) on a small package
 * written here with real SHA-256s: 64 splats in a vertical line, the lower
 * half bound to the hips and the upper half to the spine, a clip "wave"
 * that swings the spine 90 degrees in one second, a broken clip (left out
 * with its reason) and a corrective index the descriptor names but the
 * package lacks (dropped with a warning).  info's text and --json say what
 * the package holds; render writes a PNG of the asked size that is not just
 * background and that changes between two times of the clip; a package
 * whose PLY no longer matches its hash fails with exit 1, a wrong command
 * line with 2; a .json file not named character.json is taken for a
 * package by its "format".
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/character/package.h>
#include <marionette/render.h>

#include "files.h"
#include "run_tool.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SPLATS 64u

static const char skeleton_json[] =
    "{\"format\":\"aosrig-v2-skeleton\",\"floorY\":0,\"groundOffset\":0,\"hips\":\"Hips\","
    "\"joints\":["
    "{\"name\":\"Hips\",\"parent\":-1,\"localPosition\":[0,1,0],\"localRotation\":[0,0,0,1],"
    "\"baseLocalRotation\":null,\"inverseBind\":[1,0,0,0,0,1,0,0,0,0,1,0,0,-1,0,1]},"
    "{\"name\":\"Spine\",\"parent\":0,\"localPosition\":[0,0.2,0],\"localRotation\":[0,0,0,1],"
    "\"baseLocalRotation\":null,\"inverseBind\":[1,0,0,0,0,1,0,0,0,0,1,0,0,-1.2,0,1]}],"
    "\"twist\":[]}";
/* "wave": the spine from rest to 90 degrees about z in one second; "broken": fps 0. */
static const char clips_json[] =
    "{\"format\":\"soma-clips\",\"clips\":["
    "{\"name\":\"wave\",\"fps\":1,\"frames\":2,\"loop\":false,"
    "\"bones\":{\"Spine\":[0,0,0,1,0,0,0.70710678,0.70710678]},\"root\":[0,0,0,0,0,0]},"
    "{\"name\":\"broken\",\"fps\":0,\"frames\":1,\"root\":[0,0,0]}]}";

typedef struct blob {
    uint8_t *data;
    size_t size;
} blob;

/* The splats on a vertical line from y = 0.5 to 2.0, coloured from red (bottom) to blue. */
static blob ply_bytes(void)
{
    static const char *const props[] = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity",
                                        "scale_0", "scale_1", "scale_2", "rot_0", "rot_1",
                                        "rot_2", "rot_3"};
    char header[1024];
    int n = snprintf(header, sizeof header,
                     "ply\nformat binary_little_endian 1.0\nelement vertex %u\n", SPLATS);
    for (size_t p = 0; p < 14; p++)
        n += snprintf(header + n, sizeof header - (size_t)n, "property float %s\n", props[p]);
    n += snprintf(header + n, sizeof header - (size_t)n, "end_header\n");
    blob b = {malloc((size_t)n + SPLATS * 14 * 4), (size_t)n + SPLATS * 14 * 4};
    assert_non_null(b.data);
    memcpy(b.data, header, (size_t)n);
    for (uint32_t i = 0; i < SPLATS; i++) {
        float s = (float)i / (float)(SPLATS - 1);
        float v[14] = {0.0f, 0.5f + 1.5f * s, 0.0f, 1.5f - 3.0f * s, 0.0f, 3.0f * s - 1.5f,
                       4.0f, logf(0.04f), logf(0.04f), logf(0.04f), 1.0f, 0.0f, 0.0f, 0.0f};
        memcpy(b.data + n + (size_t)i * sizeof v, v, sizeof v);
    }
    return b;
}

/* One influence a splat: the hips below y = 1.2, the spine above. */
static blob bindings_bytes(void)
{
    blob b = {calloc(1, 16 + 6 * SPLATS), 16 + 6 * SPLATS};
    assert_non_null(b.data);
    uint32_t head[4] = {0, 1, SPLATS, 1};
    memcpy(head, "BIND", 4);
    memcpy(b.data, head, 16);
    for (uint32_t i = 0; i < SPLATS; i++) {
        float y = 0.5f + 1.5f * (float)i / (float)(SPLATS - 1), w = 1.0f;
        uint16_t j = y < 1.2f ? 0 : 1;
        memcpy(b.data + 16 + 2 * i, &j, 2);
        memcpy(b.data + 16 + 2 * SPLATS + 4 * i, &w, 4);
    }
    return b;
}

typedef struct package {
    char dir[64], pkg[128], descriptor[160], alias[160], out0[160], out1[160], ply[160];
    blob files[4];
} package;

static const char *const names[4] = {"character.ply", "bindings.bin", "skeleton.json",
                                     "clips.json"};

static void write_in(const package *p, const char *name, const void *data, size_t size)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s", p->pkg, name);
    mn_test_write_file(path, data, size);
}

static int setup(void **state)
{
    package *p = calloc(1, sizeof *p);
    assert_non_null(p);
    mn_test_make_temp_dir(p->dir, sizeof p->dir, "cli_character");
    snprintf(p->pkg, sizeof p->pkg, "%s/pkg", p->dir);
    assert_int_equal(mkdir(p->pkg, 0700), 0);
    snprintf(p->descriptor, sizeof p->descriptor, "%s/character.json", p->pkg);
    snprintf(p->alias, sizeof p->alias, "%s/hero.json", p->pkg);
    snprintf(p->out0, sizeof p->out0, "%s/t0.png", p->dir);
    snprintf(p->out1, sizeof p->out1, "%s/t1.png", p->dir);
    snprintf(p->ply, sizeof p->ply, "%s/character.ply", p->pkg);
    p->files[0] = ply_bytes();
    p->files[1] = bindings_bytes();
    p->files[2] = (blob){(uint8_t *)strdup(skeleton_json), strlen(skeleton_json)};
    p->files[3] = (blob){(uint8_t *)strdup(clips_json), strlen(clips_json)};
    char json[4096];
    int n = snprintf(json, sizeof json,
        "{\"format\":\"aosrig-splat\",\"version\":2,\"rig\":\"aosrig-v2\",\"units\":\"m\","
        "\"splatCount\":%u,\"headVertexCount\":0,\"jointNames\":[\"Hips\",\"Spine\"],"
        "\"bounds\":{\"center\":[0,1.25,0],\"radius\":1},"
        "\"plyToCharacter\":[1,0,0,0,0,1,0,0,0,0,1,0],\"colorSpace\":\"srgb\",\"files\":{",
        SPLATS);
    for (int i = 0; i < 4; i++) {
        char sha[65];
        mn_sha256_hex(p->files[i].data, p->files[i].size, sha);
        write_in(p, names[i], p->files[i].data, p->files[i].size);
        n += snprintf(json + n, sizeof json - (size_t)n,
                      "%s\"%s\":{\"src\":\"%s\",\"sha256\":\"%s\",\"bytes\":%zu}", i ? "," : "",
                      names[i], names[i], sha, p->files[i].size);
    }
    n += snprintf(json + n, sizeof json - (size_t)n,
                  "},\"clips\":[\"wave\"],\"corrective\":{\"index\":\"corrective/index.json\"}}");
    mn_test_write_file(p->descriptor, json, (size_t)n);
    mn_test_write_file(p->alias, json, (size_t)n);
    *state = p;
    return 0;
}

static int teardown(void **state)
{
    package *p = *state;
    mn_test_remove_tree(p->dir);
    for (int i = 0; i < 4; i++)
        free(p->files[i].data);
    free(p);
    return 0;
}

static run_result run(const char *fmt, const char *a, const char *b, int capture_stderr)
{
    char args[600];
    snprintf(args, sizeof args, fmt, a, b);
    return mn_run_tool("marionette", args, capture_stderr);
}

/* ---- info ------------------------------------------------------------------------------ */

static void info_text_summarises_the_package(void **state)
{
    package *p = *state;
    run_result r = run("info %s", p->descriptor, "", 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "skeleton: 2 joints (hips \"Hips\"), 0 twist segments"));
    assert_non_null(strstr(r.out, "splats: 64 (0 SH rest coefficients each), 1 joint"));
    assert_non_null(strstr(r.out, "clips: 1 kept, 1 dropped"));
    assert_non_null(strstr(r.out, "\"wave\"  1 s (2 frames at 1 fps)"));
    assert_non_null(strstr(r.out, "dropped clips[1] \"broken\""));
    assert_non_null(strstr(r.out, "head: none"));
    assert_non_null(strstr(r.out, "files: 4"));
    assert_non_null(strstr(r.out, "sha256 verified  \"character.ply\""));
    assert_non_null(strstr(r.out, "warnings: 1"));
    assert_non_null(strstr(r.out, "corrective"));
    run_free(&r);
}

static void info_json_is_one_object(void **state)
{
    package *p = *state;
    run_result r = run("info %s --json", p->descriptor, "", 0);
    assert_int_equal(r.status, 0);
    json_error_t jerr;
    json_t *root = json_loads(r.out, 0, &jerr);
    assert_non_null(root);
    assert_string_equal(json_string_value(json_object_get(root, "format")),
                        "marionette-character-info/1");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(root, "splats"), "count")),
                     SPLATS);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(root, "skeleton"), "joints")), 2);
    json_t *clips = json_object_get(root, "clips");
    json_t *kept = json_object_get(clips, "kept"), *dropped = json_object_get(clips, "dropped");
    assert_int_equal(json_array_size(kept), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(kept, 0), "name")),
                        "wave");
    assert_true(fabs(json_number_value(json_object_get(json_array_get(kept, 0), "duration")) -
                     1.0) < 1e-6);
    assert_int_equal(json_array_size(dropped), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(dropped, 0), "name")),
                        "broken");
    assert_string_equal(json_string_value(json_object_get(json_array_get(dropped, 0), "code")),
                        mn_status_name(MN_INVALID_VALUE));
    json_t *files = json_object_get(root, "files");
    assert_int_equal(json_array_size(files), 4);
    for (size_t i = 0; i < 4; i++) {
        json_t *f = json_array_get(files, i);
        assert_string_equal(json_string_value(json_object_get(f, "name")), names[i]);
        assert_true(json_is_true(json_object_get(f, "sha256_verified")));
        assert_int_equal(json_integer_value(json_object_get(f, "bytes")), p->files[i].size);
    }
    assert_int_equal(json_array_size(json_object_get(root, "warnings")), 1);
    assert_true(json_is_null(json_object_get(json_object_get(root, "parts"), "head")));
    json_decref(root);
    run_free(&r);
}

/* Not named character.json: taken for a package by its "format" (a voxel rig.json otherwise). */
static void a_package_is_known_by_its_format(void **state)
{
    package *p = *state;
    run_result r = run("info %s", p->alias, "", 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "splats: 64"));
    run_free(&r);
}

/* ---- render ------------------------------------------------------------------------------ */

static mn_rgba_image read_png(const char *path)
{
    mn_rgba_image img;
    mn_error err;
    assert_int_equal(mn_rgba_image_read_file(path, NULL, &img, &err), MN_OK);
    return img;
}

static void render_draws_the_pose(void **state)
{
    package *p = *state;
    run_result r = run("render %s --clip wave --time 0 --size 96x64 -o %s", p->descriptor,
                       p->out0, 1);
    assert_int_equal(r.status, 0);
    run_free(&r);
    /* The same time again gives the same pixels: what changes below is the pose. */
    r = run("render %s --clip wave --time 0 --size 96x64 -o %s", p->descriptor, p->out1, 1);
    assert_int_equal(r.status, 0);
    run_free(&r);
    mn_rgba_image again = read_png(p->out1);
    r = run("render %s --clip wave --time 1 --size 96x64 -o %s", p->descriptor, p->out1, 1);
    assert_int_equal(r.status, 0);
    run_free(&r);
    mn_rgba_image a = read_png(p->out0), b = read_png(p->out1);
    assert_int_equal(again.width, 96);
    assert_memory_equal(again.pixels, a.pixels, 96u * 64u * 4u);
    mn_rgba_image_free(&again);
    assert_int_equal(a.width, 96);
    assert_int_equal(a.height, 64);
    assert_int_equal(b.width, 96);
    assert_int_equal(b.height, 64);
    /* Splats were drawn (some pixel is not the corner's background), and the pose moved them. */
    size_t drawn = 0, changed = 0;
    for (size_t i = 0; i < 96u * 64u; i++) {
        drawn += memcmp(a.pixels + 4 * i, a.pixels, 3) != 0;
        changed += memcmp(a.pixels + 4 * i, b.pixels + 4 * i, 3) != 0;
    }
    assert_true(drawn > 20);
    assert_true(changed > 20);
    mn_rgba_image_free(&a);
    mn_rgba_image_free(&b);
}

static void render_refuses_a_wrong_command_line(void **state)
{
    package *p = *state;
    run_result r = run("render %s --clip wave%s", p->descriptor, "", 1);
    assert_int_equal(r.status, 2); /* no -o */
    run_free(&r);
    r = run("render %s --clip nope -o %s", p->descriptor, p->out0, 1);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "\"wave\""));
    run_free(&r);
    r = run("render %s --time soon -o %s", p->descriptor, p->out0, 1);
    assert_int_equal(r.status, 2);
    run_free(&r);
    r = run("info %s --bogus%s", p->descriptor, "", 1);
    assert_int_equal(r.status, 2);
    run_free(&r);
}

/* A PLY that no longer matches its stated hash: both commands exit 1 naming the file. */
static void a_corrupted_package_fails(void **state)
{
    package *p = *state;
    blob *ply = &p->files[0];
    ply->data[ply->size - 1] ^= 0x40u;
    mn_test_write_file(p->ply, ply->data, ply->size);
    run_result r = run("info %s%s", p->descriptor, "", 1);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "character.ply"));
    run_free(&r);
    r = run("render %s -o %s", p->descriptor, p->out0, 1);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "character.ply"));
    run_free(&r);
    ply->data[ply->size - 1] ^= 0x40u;
    mn_test_write_file(p->ply, ply->data, ply->size);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(info_text_summarises_the_package),
        cmocka_unit_test(info_json_is_one_object),
        cmocka_unit_test(a_package_is_known_by_its_format),
        cmocka_unit_test(render_draws_the_pose),
        cmocka_unit_test(render_refuses_a_wrong_command_line),
        cmocka_unit_test(a_corrupted_package_fails),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
