/*
 * The OBJ and MTL reader (parseObj / parseMtl of model-files-3d.md): exact
 * values on small hand-written texts for each statement and face form,
 * triangulation (fan, ear clipping), generated normals, groups, mtllib,
 * bounds, every MTL key and default; the pirate asset with its missing
 * library; a resolver supplying a library; malformed lines with their line
 * and column; the number parser against strtod; then sweeps (truncation at
 * every length, random mutations, oversized input, out of memory at every
 * allocation), each failing cleanly under ASan and UBSan.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <marionette/obj.h>

#include "assets.h"
#include "counting_alloc.h"
#include "obj/internal.h"

#define PIRATE mn_test_asset("obj/pirate/pirate.obj")

/* ---- helpers ------------------------------------------------------------------------ */

static mn_obj *read_ok_with(const char *text, const mn_obj_options *options)
{
    mn_obj *obj = NULL;
    mn_error err;
    mn_status st = mn_obj_read_memory(text, strlen(text), options, &obj, &err);
    if (st != MN_OK)
        fail_msg("%s: %s", mn_status_name(st), err.message);
    assert_non_null(obj);
    assert_int_equal(err.code, MN_OK);
    return obj;
}

static mn_obj *read_ok(const char *text)
{
    mn_obj_options options = {.skip_libraries = true};
    return read_ok_with(text, &options);
}

static void assert_floats(const float *got, const float *want, int n)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("component %d: got %.9g, want %.9g", i, got[i], want[i]);
}

/* Soup vertex v of group g. */
static const float *vertex(const mn_obj *obj, uint32_t g, uint32_t v)
{
    assert_true(g < obj->group_count);
    assert_true(v < obj->groups[g].vertex_count);
    return obj->groups[g].verts + 8 * (size_t)v;
}

/* The `v` index whose position a soup vertex carries (positions in the tests are distinct). */
static uint32_t position_index(const mn_obj *obj, const float *soup_vertex)
{
    for (uint32_t i = 0; i < obj->position_count; i++)
        if (memcmp(obj->positions + 3 * (size_t)i, soup_vertex, 3 * sizeof(float)) == 0)
            return i;
    fail_msg("soup vertex (%g %g %g) matches no position", soup_vertex[0], soup_vertex[1], soup_vertex[2]);
    return MN_NONE;
}

/* A triangle as its three position indices, rotated so the smallest comes first (winding kept). */
static void triangle_key(const mn_obj *obj, uint32_t g, uint32_t t, uint32_t key[3])
{
    uint32_t k[3];
    for (int c = 0; c < 3; c++)
        k[c] = position_index(obj, vertex(obj, g, 3 * t + (uint32_t)c));
    int first = k[0] < k[1] ? (k[0] < k[2] ? 0 : 2) : (k[1] < k[2] ? 1 : 2);
    for (int c = 0; c < 3; c++)
        key[c] = k[(first + c) % 3];
}

/* The group's triangles are exactly `want` (count triples, each rotated smallest first), in any order. */
static void assert_triangle_set(const mn_obj *obj, uint32_t g, const uint32_t (*want)[3], uint32_t count)
{
    assert_int_equal(obj->groups[g].vertex_count, 3 * count);
    bool used[64] = {false};
    for (uint32_t t = 0; t < count; t++) {
        uint32_t key[3];
        triangle_key(obj, g, t, key);
        bool found = false;
        for (uint32_t w = 0; w < count && !found; w++)
            if (!used[w] && memcmp(key, want[w], sizeof key) == 0)
                found = used[w] = true;
        if (!found)
            fail_msg("triangle %u (%u %u %u) is not expected", t, key[0], key[1], key[2]);
    }
}

static mn_status read_status(const char *text, mn_error *err)
{
    mn_obj *obj = NULL;
    mn_obj_options options = {.skip_libraries = true};
    mn_status st = mn_obj_read_memory(text, strlen(text), &options, &obj, err);
    if (st == MN_OK)
        mn_obj_free(obj);
    else
        assert_null(obj);
    return st;
}

static bool has_warning(const mn_obj *obj, mn_status code, const char *needle)
{
    for (uint32_t w = 0; w < obj->warning_count; w++)
        if (obj->warnings[w].code == code && strstr(obj->warnings[w].message, needle))
            return true;
    return false;
}

/* ---- positions, texture coordinates, normals, faces ------------------------------------- */

static void test_every_face_form_gives_exact_soup_values(void **state)
{
    (void)state;
    mn_obj *obj = read_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                          "vt 0.25 0.5\nvt 0.75 0.5\nvt 0.5 1\n"
                          "vn 0 0 2\nvn 0 1 0\nvn 1 0 0\n"
                          "f 1 2 3\n"
                          "f 1/1 2/2 3/3\n"
                          "f 1//3 2//2 3//1\n"
                          "f 1/3/1 2/2/2 3/1/3\n");
    assert_int_equal(obj->group_count, 1);
    assert_null(obj->groups[0].material);
    assert_int_equal(obj->groups[0].material_index, MN_NONE);
    assert_int_equal(obj->groups[0].vertex_count, 12);
    assert_int_equal(obj->position_count, 3);
    assert_int_equal(obj->texcoord_count, 3);
    assert_int_equal(obj->normal_count, 3);
    static const float want[12][8] = {
        /* f 1 2 3: flat normal, uv 0 */
        {0, 0, 0, 0, 0, 1, 0, 0}, {1, 0, 0, 0, 0, 1, 0, 0}, {0, 1, 0, 0, 0, 1, 0, 0},
        /* f v/vt: flat normal, uvs */
        {0, 0, 0, 0, 0, 1, 0.25f, 0.5f}, {1, 0, 0, 0, 0, 1, 0.75f, 0.5f}, {0, 1, 0, 0, 0, 1, 0.5f, 1},
        /* f v//vn: normals as written (vn 1 is not unit length and stays so) */
        {0, 0, 0, 1, 0, 0, 0, 0}, {1, 0, 0, 0, 1, 0, 0, 0}, {0, 1, 0, 0, 0, 2, 0, 0},
        /* f v/vt/vn */
        {0, 0, 0, 0, 0, 2, 0.5f, 1}, {1, 0, 0, 0, 1, 0, 0.75f, 0.5f}, {0, 1, 0, 1, 0, 0, 0.25f, 0.5f},
    };
    for (uint32_t v = 0; v < 12; v++)
        assert_floats(vertex(obj, 0, v), want[v], 8);
    assert_int_equal(obj->warning_count, 0);
    mn_obj_free(obj);
}

static void test_negative_indices_count_back_from_the_latest_element(void **state)
{
    (void)state;
    mn_obj *obj = read_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\n"
                          "f -3/-3/-1 -2/-2/-1 -1/-1/-1\n"
                          "v 5 5 5\nvt 0.5 0.5\nvn 0 1 0\n"
                          "f -4/-4/-2 -3/-3/-2 -1/-1/-1\n"
                          "f 1/1/1 -2/-2/-2 4/4/2\n");
    assert_int_equal(obj->groups[0].vertex_count, 9);
    static const float want[9][8] = {
        {0, 0, 0, 0, 0, 1, 0, 0}, {1, 0, 0, 0, 0, 1, 1, 0}, {0, 1, 0, 0, 0, 1, 0, 1},
        {0, 0, 0, 0, 0, 1, 0, 0}, {1, 0, 0, 0, 0, 1, 1, 0}, {5, 5, 5, 0, 1, 0, 0.5f, 0.5f},
        {0, 0, 0, 0, 0, 1, 0, 0}, {0, 1, 0, 0, 0, 1, 0, 1}, {5, 5, 5, 0, 1, 0, 0.5f, 0.5f},
    };
    for (uint32_t v = 0; v < 9; v++)
        assert_floats(vertex(obj, 0, v), want[v], 8);
    mn_obj_free(obj);
}

static void test_positions_accept_w_and_vertex_colours_and_vt_one_to_three_numbers(void **state)
{
    (void)state;
    mn_obj *obj = read_ok("v 1 2 3 0.5\nv 4 5 6 1 0 0\nv 7 8 9 0.1 0.2 0.3 1\n"
                          "vt 0.5\nvt 0.25 0.75 1\nvn 0 0 1 # unit\n");
    assert_int_equal(obj->position_count, 3);
    static const float pos[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    assert_floats(obj->positions, pos, 9);
    static const float uv[4] = {0.5f, 0, 0.25f, 0.75f};
    assert_int_equal(obj->texcoord_count, 2);
    assert_floats(obj->texcoords, uv, 4);
    assert_int_equal(obj->normal_count, 1);
    assert_int_equal(obj->group_count, 0);
    mn_obj_free(obj);
}

static void test_convex_polygon_is_a_fan_from_its_first_corner(void **state)
{
    (void)state;
    /* A regular-ish pentagon, counter-clockwise in the xy plane. */
    mn_obj *obj = read_ok("v 0 0 0\nv 2 0 0\nv 3 1.5 0\nv 1 3 0\nv -1 1.5 0\nf 1 2 3 4 5\n");
    static const uint32_t fan[3][3] = {{0, 1, 2}, {0, 2, 3}, {0, 3, 4}};
    assert_triangle_set(obj, 0, fan, 3);
    /* In order, too: the fan is written as (0 i i+1). */
    for (uint32_t t = 0; t < 3; t++) {
        uint32_t key[3];
        triangle_key(obj, 0, t, key);
        assert_memory_equal(key, fan[t], sizeof key);
    }
    for (uint32_t v = 0; v < 9; v++) {
        static const float up[3] = {0, 0, 1};
        assert_floats(vertex(obj, 0, v) + 3, up, 3);
    }
    mn_obj_free(obj);
}

static void test_concave_polygon_is_ear_clipped_in_its_own_plane(void **state)
{
    (void)state;
    /*
     * The polygon (0,0) (2,0) (2,2) (1,0.5) (0,2) has a reflex corner 3: a fan
     * from corner 0 would cover (1,0.5).  It lies in the plane z = y (tilted
     * 45 degrees), so it is projected by its Newell normal, (0,-1,1)/sqrt 2.
     */
    mn_obj *obj = read_ok("v 0 0 0\nv 2 0 0\nv 2 2 2\nv 1 0.5 0.5\nv 0 2 2\nf 1 2 3 4 5\n");
    static const uint32_t want[3][3] = {{1, 2, 3}, {0, 1, 3}, {0, 3, 4}};
    assert_triangle_set(obj, 0, want, 3);
    const float n = (float)(1.0 / sqrt(2.0));
    const float normal[3] = {0.0f, -n, n};
    for (uint32_t v = 0; v < 9; v++)
        assert_floats(vertex(obj, 0, v) + 3, normal, 3);
    mn_obj_free(obj);
}

static void test_concave_polygon_clockwise_and_in_another_plane(void **state)
{
    (void)state;
    /* The same outline in the xz plane, written clockwise seen from +y: the normal is -y... */
    mn_obj *obj = read_ok("v 0 0 0\nv 0 0 2\nv 2 0 2\nv 0.5 0 1\nv 2 0 0\nf 1 2 3 4 5\n");
    static const uint32_t want[3][3] = {{1, 2, 3}, {0, 1, 3}, {0, 3, 4}};
    assert_triangle_set(obj, 0, want, 3);
    static const float normal[3] = {0, 1, 0};
    assert_floats(vertex(obj, 0, 0) + 3, normal, 3);
    mn_obj_free(obj);
}

static void test_concave_quad_splits_along_its_inner_diagonal(void **state)
{
    (void)state;
    /* A dart: corner 1 at (1,0.5) is reflex, so the diagonal 1-3 is the inner one. */
    mn_obj *obj = read_ok("v 0 0 0\nv 1 0.5 0\nv 2 0 0\nv 1 2 0\nf 1 2 3 4\n"
                          "f 2 3 4 1\n");
    static const uint32_t want[2][3] = {{1, 2, 3}, {0, 1, 3}};
    assert_int_equal(obj->groups[0].vertex_count, 12);
    uint32_t key[3];
    for (uint32_t t = 0; t < 4; t++) {
        triangle_key(obj, 0, t, key);
        assert_true(memcmp(key, want[0], sizeof key) == 0 || memcmp(key, want[1], sizeof key) == 0);
    }
    mn_obj_free(obj);
}

static void test_generated_normals_are_flat_unit_and_follow_the_winding(void **state)
{
    (void)state;
    mn_obj *obj = read_ok("v 0 0 0\nv 3 0 0\nv 0 0 -3\nv 1 1 1\n"
                          "f 1 2 3\n"   /* (3,0,0) x (0,0,-3) = (0,9,0): +y */
                          "f 1 3 2\n"   /* reversed: -y */
                          "f 1 2 2\n"   /* no area: (0,0,1) */
                          "vn 0.5 0 0\n"
                          "f 1//1 2 3\n"); /* a corner without vn gets the face normal */
    static const float up[3] = {0, 1, 0}, down[3] = {0, -1, 0}, z[3] = {0, 0, 1}, given[3] = {0.5f, 0, 0};
    for (uint32_t v = 0; v < 3; v++) {
        assert_floats(vertex(obj, 0, v) + 3, up, 3);
        assert_floats(vertex(obj, 0, 3 + v) + 3, down, 3);
        assert_floats(vertex(obj, 0, 6 + v) + 3, z, 3);
    }
    assert_floats(vertex(obj, 0, 9) + 3, given, 3);
    assert_floats(vertex(obj, 0, 10) + 3, up, 3);
    assert_floats(vertex(obj, 0, 11) + 3, up, 3);
    mn_obj_free(obj);
}

static void test_big_polygons_triangulate_completely(void **state)
{
    (void)state;
    /* A 1,000-corner star (every other corner reflex) and a 1,000-corner self-crossing zigzag. */
    enum { N = 1000 };
    size_t cap = 64 * N + 64;
    char *text = malloc(cap);
    assert_non_null(text);
    for (int shape = 0; shape < 2; shape++) {
        size_t o = 0;
        for (int i = 0; i < N; i++) {
            double a = 6.283185307179586 * i / N, r = i % 2 ? 1.0 : 3.0;
            double x = shape == 0 ? r * cos(a) : i, y = shape == 0 ? r * sin(a) : (i % 2 ? 1 : -1) * (i % 7);
            o += (size_t)snprintf(text + o, cap - o, "v %.6f %.6f 0\n", x, y);
        }
        o += (size_t)snprintf(text + o, cap - o, "f");
        for (int i = 0; i < N; i++)
            o += (size_t)snprintf(text + o, cap - o, " %d", i + 1);
        snprintf(text + o, cap - o, "\n");
        mn_obj *obj = read_ok(text);
        assert_int_equal(obj->groups[0].vertex_count, 3 * (N - 2));
        if (shape == 0) {
            /* A simple polygon: the triangles tile it, so their areas add up to its area. */
            double area = 0.0, tiles = 0.0;
            for (int i = 0; i < N; i++) {
                const float *p = obj->positions + 3 * i, *q = obj->positions + 3 * ((i + 1) % N);
                area += 0.5 * ((double)p[0] * q[1] - (double)q[0] * p[1]);
            }
            for (uint32_t t = 0; t < N - 2; t++) {
                const float *a = vertex(obj, 0, 3 * t), *b = vertex(obj, 0, 3 * t + 1), *c = vertex(obj, 0, 3 * t + 2);
                double cross = ((double)b[0] - a[0]) * ((double)c[1] - a[1]) - ((double)b[1] - a[1]) * ((double)c[0] - a[0]);
                assert_true(cross >= -1e-9); /* winding as authored: counter-clockwise */
                tiles += 0.5 * cross;
            }
            assert_true(fabs(area - tiles) < 1e-6 * area);
        }
        mn_obj_free(obj);
    }
    free(text);
}

/* ---- groups, mtllib, bounds ----------------------------------------------------------- */

static void test_groups_follow_usemtl_in_file_order(void **state)
{
    (void)state;
    mn_obj *obj = read_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                          "f 1 2 3\n"
                          "usemtl red\nf 1 2 3\nf 1 2 3\n"
                          "usemtl red\nf 1 2 3\n"        /* the same name again: same group */
                          "usemtl unused\n"              /* no face: no group */
                          "usemtl blue\ng part\no thing\ns 1\nf 1 2 3\n"
                          "usemtl red\nf 1 2 3\n"        /* red again, later: a new group */
                          "usemtl with spaces in it  \nf 1 2 3\n");
    assert_int_equal(obj->group_count, 5);
    assert_null(obj->groups[0].material);
    assert_string_equal(obj->groups[1].material, "red");
    assert_string_equal(obj->groups[2].material, "blue");
    assert_string_equal(obj->groups[3].material, "red");
    assert_string_equal(obj->groups[4].material, "with spaces in it");
    static const uint32_t counts[5] = {3, 9, 3, 3, 3};
    for (uint32_t g = 0; g < 5; g++)
        assert_int_equal(obj->groups[g].vertex_count, counts[g]);
    /* Groups are consecutive runs of one soup. */
    for (uint32_t g = 1; g < 5; g++)
        assert_ptr_equal(obj->groups[g].verts, obj->groups[g - 1].verts + 8 * obj->groups[g - 1].vertex_count);
    /* Default materials, one per name, in first-use order; one material owns two groups. */
    assert_int_equal(obj->material_count, 3);
    assert_int_equal(obj->groups[0].material_index, MN_NONE);
    assert_int_equal(obj->groups[1].material_index, 0);
    assert_int_equal(obj->groups[2].material_index, 1);
    assert_int_equal(obj->groups[3].material_index, 0);
    assert_int_equal(obj->groups[4].material_index, 2);
    assert_string_equal(obj->materials[2].name, "with spaces in it");
    assert_false(obj->materials[0].defined);
    assert_ptr_equal(obj->groups[1].material, obj->materials[0].name);
    assert_int_equal(obj->warning_count, 0); /* o, g and s are accepted quietly */
    mn_obj_free(obj);
}

static void test_mtllib_is_kept_as_written(void **state)
{
    (void)state;
    mn_obj *obj = read_ok("mtllib   My Library.mtl  \r\nmtllib ../other/x.mtl\n");
    assert_string_equal(obj->mtllib, "My Library.mtl");
    assert_int_equal(obj->mtllib_count, 2);
    assert_string_equal(obj->mtllibs[1], "../other/x.mtl");
    mn_obj_free(obj);
    obj = read_ok("v 1 2 3\n");
    assert_null(obj->mtllib);
    assert_int_equal(obj->mtllib_count, 0);
    assert_int_equal(obj->material_count, 0);
    mn_obj_free(obj);
}

static void test_bounds_cover_every_vertex_used_or_not(void **state)
{
    (void)state;
    mn_obj *obj = read_ok("v -1 2 3\nv 4 -5 6\nv 0 0 -7.5\nv 100 100 100\nf 1 2 3\n");
    static const float lo[3] = {-1, -5, -7.5f}, hi[3] = {100, 100, 100};
    assert_floats(obj->bounds_min, lo, 3);
    assert_floats(obj->bounds_max, hi, 3);
    mn_obj_free(obj);
    obj = read_ok("# nothing\n");
    for (int k = 0; k < 3; k++)
        assert_true(obj->bounds_min[k] > obj->bounds_max[k]);
    assert_int_equal(obj->group_count, 0);
    mn_obj_free(obj);
    obj = read_ok("");
    assert_int_equal(obj->position_count, 0);
    mn_obj_free(obj);
}

static void test_comments_blank_lines_crlf_tabs_and_continuations(void **state)
{
    (void)state;
    mn_obj *obj = read_ok("# a comment\r\n"
                          "\r\n"
                          "   \t\n"
                          "  v\t0 0 0\r\n"
                          "v 1 \\\n0 0\n"           /* continued */
                          "v 0 1 0 # trailing comment\n"
                          "f 1 2 \\\r\n 3\r\n"       /* continued with CRLF */
                          "vn 0 0 1\n"
                          "f 1//1 2//1 3//1\n"
                          "v 7 8 9 \\\\");            /* no final newline, a backslash left as text */
    assert_int_equal(obj->position_count, 4);
    static const float pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 7, 8, 9};
    assert_floats(obj->positions, pos, 12);
    assert_int_equal(obj->groups[0].vertex_count, 6);
    assert_int_equal(obj->warning_count, 0);
    mn_obj_free(obj);
}

static void test_unknown_statements_warn_once_per_keyword(void **state)
{
    (void)state;
    mn_obj *obj = read_ok("v 0 0 0\nv 1 0 0\nl 1 2\nl 2 1\ncurv 0 1 1 2\nvp 0.5\nl 1 \\\n 2\nxyz\n");
    assert_int_equal(obj->warning_count, 4);
    assert_string_equal(obj->warnings[0].path, "l");
    assert_non_null(strstr(obj->warnings[0].message, "line 3"));
    assert_string_equal(obj->warnings[1].path, "curv");
    assert_string_equal(obj->warnings[2].path, "vp");
    assert_string_equal(obj->warnings[3].path, "xyz");
    assert_non_null(strstr(obj->warnings[3].message, "line 9")); /* the continuation counted */
    mn_obj_free(obj);
}

/* ---- MTL ---------------------------------------------------------------------------- */

static mn_mtl_library *mtl_ok(const char *text)
{
    mn_mtl_library *lib = NULL;
    mn_error err;
    mn_status st = mn_mtl_read_memory(text, strlen(text), NULL, &lib, &err);
    if (st != MN_OK)
        fail_msg("%s: %s", mn_status_name(st), err.message);
    return lib;
}

static void test_mtl_reads_every_key_and_keeps_map_kd_as_written(void **state)
{
    (void)state;
    mn_mtl_library *lib = mtl_ok("# Blender MTL File\n"
                                 "newmtl Skin\n"
                                 "Ns 96.078431\n"
                                 "Ka 0.1 0.2 0.3\n"
                                 "Kd 0.64 0.5 0.25\n"
                                 "Ks 0.5 0.5 0.5\n"
                                 "Ke 1 0.5 0\n"
                                 "Ni 1.000000\n"
                                 "d 0.75\n"
                                 "illum 2\n"
                                 "map_Kd -s 1 1 1 -o 0.5 0.5 -clamp on textures/My Skin.png  \n"
                                 "map_Bump normal.png\n"
                                 "\n"
                                 "newmtl Bare\n");
    assert_int_equal(lib->material_count, 2);
    const mn_obj_material *m = &lib->materials[0];
    assert_string_equal(m->name, "Skin");
    static const float ka[3] = {0.1f, 0.2f, 0.3f}, kd[3] = {0.64f, 0.5f, 0.25f}, ks[3] = {0.5f, 0.5f, 0.5f},
                       ke[3] = {1, 0.5f, 0};
    assert_floats(m->ambient, ka, 3);
    assert_floats(m->diffuse, kd, 3);
    assert_floats(m->specular, ks, 3);
    assert_floats(m->emissive, ke, 3);
    assert_true(m->shininess == 96.078431f);
    assert_true(m->opacity == 0.75f);
    assert_true(m->has_ambient && m->has_diffuse && m->has_specular && m->has_emissive &&
                m->has_shininess && m->has_opacity && m->defined);
    assert_string_equal(m->map_kd, "-s 1 1 1 -o 0.5 0.5 -clamp on textures/My Skin.png");
    assert_string_equal(m->map_kd_file, "textures/My Skin.png");

    /* Every default. */
    m = &lib->materials[1];
    assert_string_equal(m->name, "Bare");
    static const float grey[3] = {0.7f, 0.7f, 0.7f}, zero[3] = {0, 0, 0};
    assert_floats(m->diffuse, grey, 3);
    assert_floats(m->ambient, zero, 3);
    assert_floats(m->specular, zero, 3);
    assert_floats(m->emissive, zero, 3);
    assert_true(m->shininess == 0.0f && m->opacity == 1.0f);
    assert_false(m->has_ambient || m->has_diffuse || m->has_specular || m->has_emissive ||
                 m->has_shininess || m->has_opacity);
    assert_null(m->map_kd);
    assert_null(m->map_kd_file);
    assert_int_equal(lib->warning_count, 0);
    mn_mtl_free(lib);
}

static void test_mtl_opacity_from_d_or_one_minus_tr(void **state)
{
    (void)state;
    mn_mtl_library *lib = mtl_ok("newmtl tr\nTr 0.25\n"
                                 "newmtl d_then_tr\nd 0.5\nTr 0.9\n"
                                 "newmtl tr_then_d\nTr 0.9\nd 0.5\n"
                                 "newmtl halo\nd -halo 0.4\n"
                                 "newmtl grey\nKd 0.3\n");
    assert_true(lib->materials[0].opacity == 0.75f && lib->materials[0].has_opacity);
    assert_true(lib->materials[1].opacity == 0.5f);
    assert_true(lib->materials[2].opacity == 0.5f);
    assert_true(lib->materials[3].opacity == 0.4f);
    static const float grey[3] = {0.3f, 0.3f, 0.3f};
    assert_floats(lib->materials[4].diffuse, grey, 3);
    mn_mtl_free(lib);
}

static void test_mtl_map_kd_variants(void **state)
{
    (void)state;
    mn_mtl_library *lib = mtl_ok("newmtl a\nmap_Kd C:\\Users\\me\\wood grain.jpg\r\n"
                                 "newmtl b\nmap_Kd\t-bm 0.5 -imfchan m  tex.tga\n"
                                 "newmtl c\nmap_Kd -clamp on\n"
                                 "newmtl d\nmap_Kd -unknown.png\n");
    assert_string_equal(lib->materials[0].map_kd, "C:\\Users\\me\\wood grain.jpg");
    assert_string_equal(lib->materials[0].map_kd_file, "C:\\Users\\me\\wood grain.jpg");
    assert_string_equal(lib->materials[1].map_kd, "-bm 0.5 -imfchan m  tex.tga");
    assert_string_equal(lib->materials[1].map_kd_file, "tex.tga");
    assert_string_equal(lib->materials[2].map_kd, "-clamp on");
    assert_null(lib->materials[2].map_kd_file);
    assert_string_equal(lib->materials[3].map_kd_file, "-unknown.png");
    mn_mtl_free(lib);
}

static void test_mtl_warnings_and_errors(void **state)
{
    (void)state;
    mn_mtl_library *lib = mtl_ok("Kd 1 0 0\n"                 /* before any newmtl */
                                 "newmtl m\nKd 1 0 0\nfoo 1\nfoo 2\nKs spectral x.rfl\n"
                                 "newmtl m\nKd 0 1 0\n");     /* defined again: the later wins */
    assert_int_equal(lib->material_count, 1);
    static const float green[3] = {0, 1, 0};
    assert_floats(lib->materials[0].diffuse, green, 3);
    assert_int_equal(lib->warning_count, 4);
    assert_non_null(strstr(lib->warnings[0].message, "before any newmtl"));
    assert_string_equal(lib->warnings[1].path, "foo");
    assert_non_null(strstr(lib->warnings[2].message, "spectral"));
    assert_non_null(strstr(lib->warnings[3].message, "defined again"));
    mn_mtl_free(lib);

    static const struct {
        const char *text;
        mn_status code;
        int line, column;
        const char *path;
    } cases[] = {
        {"newmtl a\nKd 1 x 0\n", MN_INVALID_VALUE, 2, 6, "Kd"},
        {"newmtl a\nKd 1 0\n", MN_INVALID_VALUE, 2, 7, "Kd"},
        {"newmtl a\n\nNs\n", MN_INVALID_VALUE, 3, 3, "Ns"},
        {"newmtl a\nd 0.5 0.5\n", MN_INVALID_VALUE, 2, 7, "d"},
        {"newmtl a\nTr 1e99\n", MN_NOT_FINITE, 2, 4, "Tr"},
        {"newmtl\n", MN_INVALID_VALUE, 1, 7, "newmtl"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mn_error err;
        mn_mtl_library *bad = NULL;
        mn_status st = mn_mtl_read_memory(cases[i].text, strlen(cases[i].text), NULL, &bad, &err);
        if (st != cases[i].code || err.line != cases[i].line || err.column != cases[i].column)
            fail_msg("case %zu: %s line %d column %d (%s)", i, mn_status_name(st), err.line, err.column,
                     err.message);
        assert_string_equal(err.path, cases[i].path);
        assert_null(bad);
    }
}

/* ---- libraries ----------------------------------------------------------------------------- */

static void test_pirate_loads_without_its_library(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_obj *obj = NULL;
    mn_error err;
    assert_int_equal(mn_obj_read_file(PIRATE, NULL, &obj, &err), MN_OK);
    /* Counts from the file itself (awk over pirate.obj): 2,889 v, 3,156 vt, 2,771 vn, 2,527 faces
       (44 triangles, 2,483 quads: 5,010 triangles), seven usemtl groups. */
    assert_int_equal(obj->position_count, 2889);
    assert_int_equal(obj->texcoord_count, 3156);
    assert_int_equal(obj->normal_count, 2771);
    assert_string_equal(obj->mtllib, "pirate.mtl");
    static const char *const names[7] = {"Cornea", "Iris", "Leather", "WhiteCloth", "WhiteCloth_NONE",
                                         "Skin", "BlackCloth"};
    static const uint32_t vertices[7] = {288, 48, 2790, 360, 48, 9096, 2400};
    assert_int_equal(obj->group_count, 7);
    uint32_t total = 0;
    for (uint32_t g = 0; g < 7; g++) {
        assert_string_equal(obj->groups[g].material, names[g]);
        assert_int_equal(obj->groups[g].vertex_count, vertices[g]);
        assert_int_equal(obj->groups[g].material_index, g);
        total += obj->groups[g].vertex_count;
    }
    assert_int_equal(total, 3 * 5010);
    /* Default materials for each name. */
    assert_int_equal(obj->material_count, 7);
    for (uint32_t m = 0; m < 7; m++) {
        assert_string_equal(obj->materials[m].name, names[m]);
        assert_false(obj->materials[m].defined);
        assert_true(obj->materials[m].diffuse[0] == 0.7f && obj->materials[m].opacity == 1.0f);
    }
    /* The one warning: the missing library. */
    assert_int_equal(obj->warning_count, 1);
    assert_int_equal(obj->warnings[0].code, MN_IO);
    assert_string_equal(obj->warnings[0].path, "mtllib");
    assert_non_null(strstr(obj->warnings[0].message, "pirate.mtl"));
    /* Bounds from the file (awk): min/max of every v. */
    static const float lo[3] = {-0.760582f, -0.001088f, -0.229468f}, hi[3] = {0.760509f, 1.903963f, 0.225767f};
    assert_floats(obj->bounds_min, lo, 3);
    assert_floats(obj->bounds_max, hi, 3);
    /* The first face, "f 268/1/1 269/2/2 270/3/3 267/4/4", as its first soup vertex. */
    const float *v0 = vertex(obj, 0, 0);
    assert_floats(v0, obj->positions + 3 * 267, 3);
    assert_floats(v0 + 3, obj->normals, 3);
    assert_floats(v0 + 6, obj->texcoords, 2);
    mn_obj_free(obj);
}

typedef struct fake_files {
    const char *names[4];
    const char *texts[4];
    int reads, releases;
    char last_base[64];
} fake_files;

static mn_status fake_read(void *user, const char *base_dir, const char *uri, mn_bytes *out, mn_error *err)
{
    fake_files *f = user;
    snprintf(f->last_base, sizeof f->last_base, "%s", base_dir);
    for (int i = 0; i < 4 && f->names[i]; i++) {
        if (strcmp(f->names[i], uri) == 0) {
            size_t n = strlen(f->texts[i]);
            uint8_t *copy = malloc(n ? n : 1);
            memcpy(copy, f->texts[i], n);
            out->data = copy;
            out->size = n;
            f->reads++;
            return MN_OK;
        }
    }
    if (err) {
        memset(err, 0, sizeof *err);
        err->code = MN_IO;
        snprintf(err->message, sizeof err->message, "no file %s", uri);
    }
    return MN_IO;
}

static void fake_release(void *user, mn_bytes *bytes)
{
    fake_files *f = user;
    free((void *)(uintptr_t)bytes->data);
    f->releases++;
}

static const char library_obj[] = "mtllib lib.mtl\n"
                                  "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                                  "usemtl Gold\nf 1 2 3\n"
                                  "usemtl Nowhere\nf 1 2 3\n"
                                  "usemtl Glass\nf 1 2 3\n";
static const char library_mtl[] = "newmtl Glass\nKd 0.9 0.9 1\nd 0.25\n"
                                  "newmtl Gold\nKd 1 0.8 0.2\nmap_Kd gold.png\n";

static void test_resolver_supplies_the_library(void **state)
{
    (void)state;
    fake_files files = {.names = {"lib.mtl"}, .texts = {library_mtl}};
    mn_obj_options options = {.resolver = {fake_read, fake_release, &files}};
    mn_obj *obj = read_ok_with(library_obj, &options);
    assert_int_equal(files.reads, 1);
    assert_int_equal(files.releases, 1);
    assert_string_equal(files.last_base, "");
    /* Library materials in library order, then a default one for the undefined name. */
    assert_int_equal(obj->material_count, 3);
    assert_string_equal(obj->materials[0].name, "Glass");
    assert_string_equal(obj->materials[1].name, "Gold");
    assert_string_equal(obj->materials[2].name, "Nowhere");
    assert_true(obj->materials[0].defined && obj->materials[1].defined && !obj->materials[2].defined);
    assert_true(obj->materials[0].opacity == 0.25f);
    assert_string_equal(obj->materials[1].map_kd, "gold.png");
    assert_int_equal(obj->groups[0].material_index, 1);
    assert_int_equal(obj->groups[1].material_index, 2);
    assert_int_equal(obj->groups[2].material_index, 0);
    assert_int_equal(obj->warning_count, 1);
    assert_int_equal(obj->warnings[0].code, MN_INVALID_VALUE);
    assert_string_equal(obj->warnings[0].path, "usemtl");
    assert_non_null(strstr(obj->warnings[0].message, "Nowhere"));
    mn_obj_free(obj);
}

static void test_library_problems_are_warnings(void **state)
{
    (void)state;
    /* Broken library: a warning naming its line; default materials; geometry loads. */
    fake_files files = {.names = {"lib.mtl"}, .texts = {"newmtl Gold\nKd 1 zero 0\n"}};
    mn_obj_options options = {.resolver = {fake_read, fake_release, &files}};
    mn_obj *obj = read_ok_with(library_obj, &options);
    assert_int_equal(files.releases, files.reads);
    assert_int_equal(obj->material_count, 3);
    assert_false(obj->materials[0].defined);
    assert_true(has_warning(obj, MN_INVALID_VALUE, "line 2"));
    assert_int_equal(obj->groups[0].vertex_count, 3);
    mn_obj_free(obj);

    /* A name list: "mtllib a.mtl b.mtl" where only the two files exist. */
    fake_files two = {.names = {"a.mtl", "b.mtl"}, .texts = {"newmtl A\n", "newmtl B\nKd 0 0 1\n"}};
    options.resolver.user = &two;
    obj = read_ok_with("mtllib a.mtl b.mtl\n", &options);
    assert_int_equal(obj->material_count, 2);
    assert_string_equal(obj->materials[1].name, "B");
    assert_int_equal(obj->warning_count, 0);
    assert_int_equal(two.releases, two.reads);
    mn_obj_free(obj);

    /* Unsafe names are refused; from memory without base_dir or resolver nothing is read. */
    mn_obj_options plain = {0};
    obj = read_ok_with("mtllib ../secret.mtl\nmtllib /etc/x.mtl\n", &(mn_obj_options){.base_dir = "."});
    assert_int_equal(obj->warning_count, 2);
    assert_int_equal(obj->warnings[0].code, MN_URI);
    assert_int_equal(obj->warnings[1].code, MN_URI);
    mn_obj_free(obj);
    obj = read_ok_with("mtllib x.mtl\n", &plain);
    assert_int_equal(obj->warning_count, 1);
    assert_int_equal(obj->warnings[0].code, MN_URI);
    mn_obj_free(obj);
    obj = read_ok_with("mtllib x.mtl\nusemtl a\n", &(mn_obj_options){.skip_libraries = true});
    assert_int_equal(obj->warning_count, 0);
    mn_obj_free(obj);
}

/* ---- errors --------------------------------------------------------------------------------- */

static void test_malformed_lines_fail_with_line_and_column(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        mn_status code;
        int line, column;
        const char *path;
    } cases[] = {
        {"v 1 2\n", MN_INVALID_VALUE, 1, 6, "v"},
        {"# c\nv 1 2 x\n", MN_INVALID_VALUE, 2, 7, "v"},
        {"v 1 2 3.5.6\n", MN_INVALID_VALUE, 1, 7, "v"},
        {"v 1 2 3 4 5 6 7 8\n", MN_INVALID_VALUE, 1, 17, "v"},
        {"v 1e39 0 0\n", MN_NOT_FINITE, 1, 3, "v"},
        {"v nan 0 0\n", MN_INVALID_VALUE, 1, 3, "v"},
        {"vt\n", MN_INVALID_VALUE, 1, 3, "vt"},
        {"vt 1 2 3 4\n", MN_INVALID_VALUE, 1, 10, "vt"},
        {"vn 0 0\n", MN_INVALID_VALUE, 1, 7, "vn"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", MN_INDEX_RANGE, 4, 7, "f"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n", MN_INDEX_RANGE, 4, 7, "f"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf -4 2 3\n", MN_INDEX_RANGE, 4, 3, "f"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1 2/1 3/1\n", MN_INDEX_RANGE, 4, 3, "f"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//1 2//1 3//1\n", MN_INDEX_RANGE, 4, 3, "f"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999999\n", MN_INDEX_RANGE, 4, 7, "f"},
        {"v 0 0 0\nv 1 0 0\nf 1 2\n", MN_INVALID_VALUE, 3, 2, "f"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/ 2 3\n", MN_INVALID_VALUE, 4, 3, "f"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3x\n", MN_INVALID_VALUE, 4, 7, "f"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 a\n", MN_INVALID_VALUE, 4, 7, "f"},
        {"usemtl   \n", MN_INVALID_VALUE, 1, 10, "usemtl"},
        {"mtllib\n", MN_INVALID_VALUE, 1, 7, "mtllib"},
        {"v 1 \\\n 2 3\nv 1 2 x\n", MN_INVALID_VALUE, 3, 7, "v"},  /* lines after a continuation */
        {"v 0 0 0\r\nv 1\r\n", MN_INVALID_VALUE, 2, 5, "v"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mn_error err;
        mn_status st = read_status(cases[i].text, &err);
        if (st != cases[i].code || err.line != cases[i].line || err.column != cases[i].column)
            fail_msg("case %zu: %s line %d column %d (%s)", i, mn_status_name(st), err.line, err.column,
                     err.message);
        assert_int_equal(err.code, cases[i].code);
        assert_string_equal(err.path, cases[i].path);
        char line_text[32];
        snprintf(line_text, sizeof line_text, "line %d: %s", cases[i].line, cases[i].path);
        assert_non_null(strstr(err.message, line_text));
    }
}

static void test_bad_arguments_and_missing_files(void **state)
{
    (void)state;
    mn_obj *obj = (mn_obj *)1;
    mn_error err;
    assert_int_equal(mn_obj_read_memory(NULL, 4, NULL, &obj, &err), MN_INVALID_ARGUMENT);
    assert_null(obj);
    assert_int_equal(mn_obj_read_memory("v", 1, NULL, NULL, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_obj_read_file(NULL, NULL, &obj, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_obj_read_file(mn_test_asset("obj/none.obj"), NULL, &obj, &err), MN_IO);
    assert_null(obj);
    assert_int_equal(mn_mtl_read_memory(NULL, 1, NULL, NULL, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_obj_read_memory(NULL, 0, NULL, &obj, NULL), MN_OK);
    mn_obj_free(obj);
    mn_obj_free(NULL);
    mn_mtl_free(NULL);
}

/* ---- numbers --------------------------------------------------------------------------------- */

static float parse(const char *text)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s\n", text);
    float f = -1.0f;
    const char *end = mn_obj_parse_float(buf, &f);
    assert_non_null(end);
    assert_int_equal(*end, '\n');
    return f;
}

static int64_t ulp_distance(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0)
        ia = INT32_MIN - ia;
    if (ib < 0)
        ib = INT32_MIN - ib;
    return llabs((long long)ia - ib);
}

static void test_number_parser_matches_strtod(void **state)
{
    (void)state;
    setlocale(LC_NUMERIC, "C");
    static const char *const fixed[] = {"0", "-0", "1", "+1", ".5", "5.", "-0.000001", "1e5", "1E-5",
                                        "3.4028234e38", "1.17549435e-38", "1e-45", "123456789012345678901234",
                                        "0.1000000000000000055511151231257827", "9.999999e-1", "-2.5e+3",
                                        "0000000000000000000000012.5", "1.00000005960464477539"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        float want = (float)strtod(fixed[i], NULL);
        float got = parse(fixed[i]);
        if (ulp_distance(got, want) > 1 || signbit(got) != signbit(want))
            fail_msg("%s: got %.9g want %.9g", fixed[i], got, want);
    }
    assert_true(signbit(parse("-0")));

    /* Typical OBJ decimals, and floats printed to round-trip. */
    srand(7);
    int exact = 0, total = 0;
    for (int i = 0; i < 200000; i++) {
        char text[64];
        double value = ((double)rand() / RAND_MAX - 0.5) * pow(10.0, rand() % 12 - 6);
        switch (i % 4) {
        case 0: snprintf(text, sizeof text, "%.6f", value); break;
        case 1: snprintf(text, sizeof text, "%.9g", value); break;
        case 2: snprintf(text, sizeof text, "%.7e", value); break;
        default: snprintf(text, sizeof text, "%.17g", value); break;
        }
        float want = (float)strtod(text, NULL);
        float got = parse(text);
        if (ulp_distance(got, want) > 1)
            fail_msg("%s: got %.9g want %.9g", text, got, want);
        exact += got == want;
        total++;
        /* A float printed with 9 digits reads back exactly. */
        float f = (float)value;
        snprintf(text, sizeof text, "%.9g", f);
        if (parse(text) != f)
            fail_msg("%s does not round-trip to %.9g", text, f);
    }
    assert_true(exact > total - total / 1000); /* off by one ulp at most 0.1 % of the time */

    /* Not numbers. */
    static const char *const bad[] = {"", "-", ".", "-.", "e5", "1e", "1e+", "nan", "inf", "+-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char buf[16];
        snprintf(buf, sizeof buf, "%s\n", bad[i]);
        float f;
        assert_null(mn_obj_parse_float(buf, &f));
    }
    /* Beyond the float range: an infinity for the reader to refuse. */
    assert_true(isinf(parse("3.5e38")) && isinf(parse("-1e300")));
    assert_true(parse("1e-300") == 0.0f);
}

/* The token in a buffer with room for the fast parsers' 24-byte reads after it. */
static const char *padded(char buf[96], const char *token, const char *after)
{
    memset(buf, 'x', 96);
    size_t n = strlen(token), m = strlen(after);
    memcpy(buf, token, n);
    memcpy(buf + n, after, m);
    buf[95] = '\n';
    return buf;
}

static void test_fast_number_parsers_match_the_general_ones_and_strtod(void **state)
{
    (void)state;
    setlocale(LC_NUMERIC, "C");
#if MN_OBJ_SWAR
    /* Tricky forms: zeros and signs, 9 and more digits, exponents, denormals, long mantissas,
       and what may follow a number (blank, comment, line end, a byte past ASCII). */
    static const char *const tricky[] = {
        "0", "-0", "+0", "-0.0", "-.0", "0.", "5.", ".5", "+.25", "1234567", "12345678",
        "1234567.1234567", "9999999.9999999", "-9999999.9999999", "0.1234567", "0.12345678",
        "1.17549435", "3.4028235e38", "1e5", "1E-5", "2.5e+3", "1.4e-45", "-2.5e-40",
        "1e-50", "123456789012345678901234", "0.1000000000000000055511151231257827",
        "0000000000000000000000012.5", "00000012.5", "0000001.5", "16777217", "16777216.5",
        "0.33333333", "1.00000005960464477539", "7.0000001", "-", ".", "-.", "e5", "1e", "+-1"};
    static const char *const afters[] = {" ", "\n", "#c", "\t", "\r\n", "\xff\xfa", "/", "e"};
    for (size_t i = 0; i < sizeof tricky / sizeof tricky[0]; i++) {
        for (size_t a = 0; a < sizeof afters / sizeof afters[0]; a++) {
            char buf[96];
            const char *text = padded(buf, tricky[i], afters[a]);
            float fast, general;
            const char *qf = mn_obj_parse_float_fast(text, &fast);
            const char *qg = mn_obj_parse_float(text, &general);
            if (!qf)
                continue;   /* not a fast form: the general parser reads it */
            assert_ptr_equal(qf, qg);
            assert_memory_equal(&fast, &general, sizeof fast);
            float want = (float)strtod(tricky[i], NULL);
            assert_memory_equal(&fast, &want, sizeof fast);   /* -0 stays -0 */
        }
    }
    /* The typical OBJ decimals all take the fast path, to the bit what strtod gives. */
    srand(11);
    for (int i = 0; i < 200000; i++) {
        char token[48], buf[96];
        double value = ((double)rand() / RAND_MAX - 0.5) * pow(10.0, rand() % 13 - 6);
        snprintf(token, sizeof token, "%.*f", rand() % 8, value);
        if (strlen(token) - (token[0] == '-') - (strchr(token, '.') != NULL) > 14 ||
            fabs(value) >= 1e7)
            continue;
        float fast, general;
        const char *text = padded(buf, token, " ");
        const char *qf = mn_obj_parse_float_fast(text, &fast);
        if (!qf)
            fail_msg("%s: not taken by the fast parser", token);
        assert_ptr_equal(qf, mn_obj_parse_float(text, &general));
        float want = (float)strtod(token, NULL);
        if (memcmp(&fast, &general, sizeof fast) != 0 || memcmp(&fast, &want, sizeof fast) != 0)
            fail_msg("%s: fast %.9g general %.9g strtod %.9g", token, fast, general, want);
    }
    /* Indices: up to 7 digits fast, as the general parser reads them; more go to it. */
    for (uint32_t i = 0; i < 100000; i++) {
        char token[24], buf[96];
        uint32_t v = (uint32_t)rand() % (i % 2 ? 100000000u : 1000u);
        snprintf(token, sizeof token, "%s%u", i % 3 == 0 ? "0" : "", v);
        const char *text = padded(buf, token, i % 4 == 0 ? "/" : " ");
        int64_t fast, general;
        const char *qf = mn_obj_parse_index_fast(text, &fast);
        const char *qg = mn_obj_parse_index(text, &general);
        if (strlen(token) >= 8) {
            assert_null(qf);
            continue;
        }
        assert_ptr_equal(qf, qg);
        assert_true(fast == general);
    }
#endif
    /* A corner whose long first index goes to the general parser, and whose last index ends
       the text: the fast parsers must not read past the end (an exact-size buffer, for ASan). */
    {
        char text[256];
        int len = snprintf(text, sizeof text, "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 %s3//1\n",
                           "0000000000000000000000000000000000000000000000000000000000000000000000000000000");
        char *exact = malloc((size_t)len);
        assert_non_null(exact);
        memcpy(exact, text, (size_t)len);
        mn_obj *obj = NULL;
        mn_error err;
        assert_int_equal(mn_obj_read_memory(exact, (size_t)len, NULL, &obj, &err), MN_OK);
        assert_int_equal(obj->groups[0].vertex_count, 3);
        mn_obj_free(obj);
        free(exact);
    }
    /* Through the reader: numbers far from the end of the text (fast) and on its last line
       (too close to the end for the fast parsers' reads) come out the same. */
    static const char *const values[] = {"-0.000001", "1234567.1234567", "0.1", "-3.25", "7", "-0"};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "v %s %s %s\n# padding padding padding padding padding\nv %s %s %s",
                 values[i], values[i], values[i], values[i], values[i], values[i]);
        mn_obj *obj = NULL;
        mn_error err;
        assert_int_equal(mn_obj_read_memory(text, strlen(text), NULL, &obj, &err), MN_OK);
        assert_int_equal(obj->position_count, 2);
        assert_memory_equal(&obj->positions[0], &obj->positions[3], 3 * sizeof(float));
        float want = (float)strtod(values[i], NULL);
        assert_memory_equal(&obj->positions[0], &want, sizeof want);
        mn_obj_free(obj);
    }
}

/* ---- sweeps --------------------------------------------------------------------------------- */

static const char sample[] =
    "# sample\r\nmtllib lib.mtl\no obj\ng grp\n"
    "v 0 0 0\nv 2 0 0\nv 2 2 0\nv 1 0.5 0\nv 0 2 0 1\nv 1 1 1\n"
    "vt 0 0\nvt 1 0\nvt 1 1 0\nvt 0.5\n"
    "vn 0 0 1\nvn 0 1 0\n"
    "f 1 2 3\nusemtl Gold\ns 1\nf 1/1 2/2 3/3\nf 1//1 2//1 3//2\n"
    "f -6/-4/-2 -5/-3/-2 -4/-2/-1\nusemtl Glass\nf 1 2 3 4 5 \\\n # continued\n"
    "f 1 2 3 6\nl 1 2\nusemtl Gold\nf 3/3/1 4/4/2 5/1/1\n";

static void test_truncated_sample_fails_cleanly_at_every_length(void **state)
{
    (void)state;
    size_t size = sizeof sample - 1;
    fake_files files = {.names = {"lib.mtl"}, .texts = {library_mtl}};
    mn_obj_options options = {.resolver = {fake_read, fake_release, &files}};
    for (size_t n = 0; n <= size; n++) {
        /* An exact-size heap copy, so ASan sees any read past the end. */
        char *copy = malloc(n ? n : 1);
        memcpy(copy, sample, n);
        mn_obj *obj = NULL;
        mn_error err;
        mn_status st = mn_obj_read_memory(copy, n, &options, &obj, &err);
        if (st == MN_OK) {
            assert_non_null(obj);
            mn_obj_free(obj);
        } else {
            assert_null(obj);
            assert_true(err.line >= 1);
        }
        free(copy);
    }
    assert_int_equal(files.reads, files.releases);
    mn_obj *obj = read_ok_with(sample, &options);
    assert_int_equal(obj->group_count, 4);
    assert_int_equal(obj->warning_count, 1); /* l */
    mn_obj_free(obj);
}

static void test_mutated_sample_loads_or_fails_cleanly(void **state)
{
    (void)state;
    static const char alphabet[] = "0123456789-+./ \n\r\t\\#vtnfeE";
    size_t size = sizeof sample - 1;
    char *copy = malloc(size);
    srand(12345);
    for (int round = 0; round < 20000; round++) {
        memcpy(copy, sample, size);
        int edits = 1 + rand() % 4;
        for (int e = 0; e < edits; e++) {
            size_t at = (size_t)rand() % size;
            copy[at] = rand() % 2 ? alphabet[rand() % (sizeof alphabet - 1)] : (char)(rand() % 256);
        }
        mn_obj *obj = NULL;
        mn_error err;
        mn_obj_options options = {.skip_libraries = round % 2 == 0};
        mn_status st = mn_obj_read_memory(copy, size, &options, &obj, &err);
        if (st == MN_OK) {
            for (uint32_t g = 0; g < obj->group_count; g++)
                for (uint32_t v = 0; v < obj->groups[g].vertex_count * 8; v++)
                    assert_true(isfinite(obj->groups[g].verts[v]));
            mn_obj_free(obj);
        } else {
            assert_null(obj);
            assert_non_null(memchr(err.message, '\0', sizeof err.message));
        }
        mn_mtl_library *lib = NULL;
        if (mn_mtl_read_memory(copy, size, NULL, &lib, &err) == MN_OK)
            mn_mtl_free(lib);
    }
    free(copy);
}

static void test_oversized_inputs_load_or_fail_cleanly(void **state)
{
    (void)state;
    /* A very long line, long names, many usemtl switches and unknown keywords, a huge index. */
    size_t cap = 1 << 20;
    char *text = malloc(cap);
    size_t o = (size_t)snprintf(text, cap, "v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl ");
    memset(text + o, 'n', 100000);
    o += 100000;
    o += (size_t)snprintf(text + o, cap - o, "\nf");
    for (int i = 0; i < 20000; i++)
        o += (size_t)snprintf(text + o, cap - o, " %d", 1 + i % 3);
    o += (size_t)snprintf(text + o, cap - o, "\n");
    for (int i = 0; i < 2000; i++)
        o += (size_t)snprintf(text + o, cap - o, "usemtl m%d\nf 1 2 3\nk%d\n", i % 50, i);
    mn_obj *obj = NULL;
    mn_error err;
    mn_obj_options options = {.skip_libraries = true};
    assert_int_equal(mn_obj_read_memory(text, o, &options, &obj, &err), MN_OK);
    assert_int_equal(obj->group_count, 2001);
    assert_int_equal(obj->groups[0].vertex_count, 3 * 19998);
    assert_int_equal(strlen(obj->groups[0].material), 100000);
    assert_int_equal(obj->material_count, 51);
    assert_int_equal(obj->warning_count, MN_OBJ_UNKNOWN_KEYWORDS + 1);
    mn_obj_free(obj);
    free(text);
}

/* Fail the k-th allocation for k = 0, 1, ... until the read succeeds; every failure is clean. */
static void test_out_of_memory_at_every_allocation(void **state)
{
    (void)state;
    mn_test_need_assets();
    for (int pass = 0; pass < 2; pass++) {
        for (long k = 0;; k++) {
            mn_counting_alloc counter = mn_counting_alloc_make();
            counter.fail_after = k;
            fake_files files = {.names = {"lib.mtl"}, .texts = {library_mtl}};
            mn_obj_options options = {.allocator = mn_counting_allocator(&counter),
                                      .resolver = {fake_read, fake_release, &files}};
            mn_obj *obj = NULL;
            mn_error err;
            mn_status st = pass == 0 ? mn_obj_read_memory(sample, sizeof sample - 1, &options, &obj, &err)
                                     : mn_obj_read_file(PIRATE, &(mn_obj_options){.allocator = options.allocator},
                                                        &obj, &err);
            assert_int_equal(files.reads, files.releases);
            if (st == MN_OK) {
                assert_int_equal(counter.failures, 0);
                mn_obj_free(obj);
                assert_int_equal(counter.live_bytes, 0);
                assert_true(k > 0);
                break;
            }
            assert_int_equal(st, MN_OUT_OF_MEMORY);
            assert_int_equal(err.code, MN_OUT_OF_MEMORY);
            assert_null(obj);
            assert_int_equal(counter.live_bytes, 0);
            assert_true(k < 10000);
        }
    }
    for (long k = 0;; k++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = k;
        mn_obj_options options = {.allocator = mn_counting_allocator(&counter)};
        mn_mtl_library *lib = NULL;
        mn_error err;
        mn_status st = mn_mtl_read_memory(library_mtl, sizeof library_mtl - 1, &options, &lib, &err);
        assert_int_equal(counter.live_bytes, st == MN_OK ? counter.live_bytes : 0);
        if (st == MN_OK) {
            mn_mtl_free(lib);
            assert_int_equal(counter.live_bytes, 0);
            break;
        }
        assert_int_equal(st, MN_OUT_OF_MEMORY);
        assert_null(lib);
        assert_true(k < 1000);
    }
}

/* A usemtl name holding a NUL byte ends there: the group and its default material agree on it. */
static void test_usemtl_name_with_a_nul_ends_at_it(void **state)
{
    (void)state;
    static const char text[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl ab\0cd\nf 1 2 3\n";
    mn_obj_options o = {.skip_libraries = true};
    mn_obj *obj = NULL;
    mn_error err;
    assert_int_equal(mn_obj_read_memory(text, sizeof text - 1, &o, &obj, &err), MN_OK);
    assert_int_equal(obj->group_count, 1);
    assert_string_equal(obj->groups[0].material, "ab");
    assert_int_equal(obj->groups[0].material_index, 0);
    assert_string_equal(obj->materials[0].name, "ab");
    mn_obj_free(obj);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_face_form_gives_exact_soup_values),
        cmocka_unit_test(test_negative_indices_count_back_from_the_latest_element),
        cmocka_unit_test(test_positions_accept_w_and_vertex_colours_and_vt_one_to_three_numbers),
        cmocka_unit_test(test_convex_polygon_is_a_fan_from_its_first_corner),
        cmocka_unit_test(test_concave_polygon_is_ear_clipped_in_its_own_plane),
        cmocka_unit_test(test_concave_polygon_clockwise_and_in_another_plane),
        cmocka_unit_test(test_concave_quad_splits_along_its_inner_diagonal),
        cmocka_unit_test(test_generated_normals_are_flat_unit_and_follow_the_winding),
        cmocka_unit_test(test_big_polygons_triangulate_completely),
        cmocka_unit_test(test_groups_follow_usemtl_in_file_order),
        cmocka_unit_test(test_mtllib_is_kept_as_written),
        cmocka_unit_test(test_bounds_cover_every_vertex_used_or_not),
        cmocka_unit_test(test_comments_blank_lines_crlf_tabs_and_continuations),
        cmocka_unit_test(test_unknown_statements_warn_once_per_keyword),
        cmocka_unit_test(test_mtl_reads_every_key_and_keeps_map_kd_as_written),
        cmocka_unit_test(test_mtl_opacity_from_d_or_one_minus_tr),
        cmocka_unit_test(test_mtl_map_kd_variants),
        cmocka_unit_test(test_mtl_warnings_and_errors),
        cmocka_unit_test(test_pirate_loads_without_its_library),
        cmocka_unit_test(test_resolver_supplies_the_library),
        cmocka_unit_test(test_library_problems_are_warnings),
        cmocka_unit_test(test_malformed_lines_fail_with_line_and_column),
        cmocka_unit_test(test_bad_arguments_and_missing_files),
        cmocka_unit_test(test_number_parser_matches_strtod),
        cmocka_unit_test(test_fast_number_parsers_match_the_general_ones_and_strtod),
        cmocka_unit_test(test_truncated_sample_fails_cleanly_at_every_length),
        cmocka_unit_test(test_mutated_sample_loads_or_fails_cleanly),
        cmocka_unit_test(test_oversized_inputs_load_or_fail_cleanly),
        cmocka_unit_test(test_out_of_memory_at_every_allocation),
        cmocka_unit_test(test_usemtl_name_with_a_nul_ends_at_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
