/*
 * The OBJ reader's work is bounded: texts generated here, big enough that
 * a quadratic step would show, read through a counting allocator.  Time is
 * held by counting work, never by the clock: a convex polygon of 100,000
 * corners takes no ear-clipping step at all (it is a fan), a star of
 * 100,000 corners takes at most STAR_STEPS steps a corner, far inside its
 * budget, and both come out exactly tiling their polygons.  Memory is held
 * by peak_bytes against the bound the reader states, the result's own
 * bytes (soup, groups, materials, positions) plus a constant times the
 * text: the two polygons, a face of 1,000,000 corner references and
 * 200,000 usemtl groups.  Degenerate polygons (all corners on a line, all
 * at one spot, one repeated figure that crosses itself) finish, with the
 * budget kept.
 */
#define _DEFAULT_SOURCE /* mkdtemp */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <marionette/obj.h>

#include "counting_alloc.h"
#include "obj/internal.h"

/* Working memory the reader may use beyond its result (obj.h states it): per byte of text, and per
   corner of its biggest polygon that is ear-clipped. */
#define TEXT_FACTOR 24
#define EAR_CORNER_BYTES 92

/* Ear-clipping steps a corner of the 100,000-corner star may take (it takes about 95). */
#define STAR_STEPS 160

/* ---- helpers ------------------------------------------------------------------------ */

typedef struct text {
    char *data;
    size_t size, cap;
} text;

static void put(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->data + t->size, t->cap - t->size, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if ((size_t)n < t->cap - t->size) {
            t->size += (size_t)n;
            return;
        }
        t->cap = t->cap ? 2 * t->cap : 1 << 16;
        t->data = realloc(t->data, t->cap);
        assert_non_null(t->data);
    }
}

/* A polygon of n corners round the origin: radius 1, or (star) 1 and 0.5 by turns, 6 decimals. */
static text polygon_text(uint32_t n, bool star)
{
    text t = {0};
    for (uint32_t i = 0; i < n; i++) {
        double a = 6.283185307179586 * i / n, r = star && i % 2 ? 0.5 : 1.0;
        put(&t, "v %.6f %.6f 0\n", r * cos(a), r * sin(a));
    }
    put(&t, "f");
    for (uint32_t i = 0; i < n; i++)
        put(&t, " %u", i + 1);
    put(&t, "\n");
    return t;
}

typedef struct read_result {
    mn_obj *obj;
    size_t peak;
} read_result;

/* The counter outlives the read: the result frees through it.  One result at a time. */
static mn_counting_alloc counter;

static read_result read_counted(const text *t)
{
    counter = mn_counting_alloc_make();
    mn_obj_options options = {.allocator = mn_counting_allocator(&counter), .skip_libraries = true};
    mn_obj *obj = NULL;
    mn_error err;
    mn_status st = mn_obj_read_memory(t->data, t->size, &options, &obj, &err);
    if (st != MN_OK)
        fail_msg("%s: %s", mn_status_name(st), err.message);
    return (read_result){obj, counter.peak_bytes};
}

/* The bytes the result holds: its soup, groups, materials and element arrays. */
static size_t result_bytes(const mn_obj *obj)
{
    size_t bytes = (size_t)obj->position_count * 12 + (size_t)obj->texcoord_count * 8 +
                   (size_t)obj->normal_count * 12 + (size_t)obj->group_count * sizeof(mn_obj_group) +
                   (size_t)obj->material_count * sizeof(mn_obj_material);
    for (uint32_t g = 0; g < obj->group_count; g++)
        bytes += (size_t)obj->groups[g].vertex_count * 8 * sizeof(float);
    return bytes;
}

static void assert_memory_bound(const read_result *r, const text *t, size_t ear_corners)
{
    size_t bound = result_bytes(r->obj) + TEXT_FACTOR * t->size + EAR_CORNER_BYTES * ear_corners;
    if (r->peak > bound)
        fail_msg("peak %zu bytes over the bound %zu (result %zu + %d x text %zu + %d x %zu corners)", r->peak,
                 bound, result_bytes(r->obj), TEXT_FACTOR, t->size, EAR_CORNER_BYTES, ear_corners);
}

/* Twice the signed area of soup triangles [first, first + count) in the xy plane, and the least one. */
static double tiled_area(const mn_obj *obj, uint32_t count, double *least)
{
    double sum = 0.0;
    *least = INFINITY;
    const float *v = obj->groups[0].verts;
    for (uint32_t t = 0; t < count; t++, v += 24) {
        double cross = ((double)v[8] - v[0]) * ((double)v[17] - v[1]) - ((double)v[9] - v[1]) * ((double)v[16] - v[0]);
        sum += cross;
        if (cross < *least)
            *least = cross;
    }
    return sum;
}

static double polygon_area2(const mn_obj *obj)
{
    double sum = 0.0;
    uint32_t n = obj->position_count;
    for (uint32_t i = 0; i < n; i++) {
        const float *p = obj->positions + 3 * (size_t)i, *q = obj->positions + 3 * (size_t)((i + 1) % n);
        sum += (double)p[0] * q[1] - (double)q[0] * p[1];
    }
    return sum;
}

/* Triangulate the file's one polygon again, directly, for what it cost. */
static mn_obj_tri_cost triangulation_cost(const mn_obj *obj)
{
    uint32_t n = obj->position_count;
    mn_obj_corner *corners = malloc((size_t)n * sizeof *corners);
    assert_non_null(corners);
    for (uint32_t i = 0; i < n; i++)
        corners[i] = (mn_obj_corner){i, MN_NONE, MN_NONE};
    mn_obj_vec tris = {0}, work = {0};
    float normal[3];
    mn_obj_tri_cost cost;
    assert_true(mni_obj_triangulate(NULL, obj->positions, corners, n, &tris, &work, normal, &cost));
    assert_int_equal(tris.size, (size_t)(n - 2) * 3 * sizeof(uint32_t));
    mni_obj_vec_free(NULL, &tris);
    mni_obj_vec_free(NULL, &work);
    free(corners);
    return cost;
}

/* ---- polygons ----------------------------------------------------------------------- */

static void test_convex_polygon_of_100000_corners_is_one_fan(void **state)
{
    (void)state;
    /* Printed with 6 decimals its corners zigzag by about 1e-6: convex only up to that. */
    enum { N = 100000 };
    text t = polygon_text(N, false);
    read_result r = read_counted(&t);
    assert_int_equal(r.obj->group_count, 1);
    assert_int_equal(r.obj->groups[0].vertex_count, 3 * (N - 2));
    assert_int_equal(r.obj->warning_count, 0);
    /* The fan from corner 0, in order. */
    const float *v = r.obj->groups[0].verts;
    for (uint32_t k = 0; k < N - 2; k += 997) {
        assert_memory_equal(v + 24 * (size_t)k, r.obj->positions, 3 * sizeof(float));
        assert_memory_equal(v + 24 * (size_t)k + 8, r.obj->positions + 3 * (size_t)(k + 1), 3 * sizeof(float));
        assert_memory_equal(v + 24 * (size_t)k + 16, r.obj->positions + 3 * (size_t)(k + 2), 3 * sizeof(float));
    }
    double least, area = polygon_area2(r.obj), tiles = tiled_area(r.obj, N - 2, &least);
    assert_true(fabs(tiles - area) < 1e-6 * area);
    mn_obj_tri_cost cost = triangulation_cost(r.obj);
    assert_int_equal(cost.steps, 0);   /* no ear clipping: O(n) */
    assert_false(cost.gave_up);
    assert_memory_bound(&r, &t, 0);
    mn_obj_free(r.obj);
    free(t.data);
}

static void test_star_polygon_of_100000_corners_is_ear_clipped_in_n_log_n(void **state)
{
    (void)state;
    enum { N = 100000 };
    text t = polygon_text(N, true);
    read_result r = read_counted(&t);
    assert_int_equal(r.obj->groups[0].vertex_count, 3 * (N - 2));
    assert_int_equal(r.obj->warning_count, 0);
    /* A simple polygon: every triangle counter-clockwise, and together exactly its area. */
    double least, area = polygon_area2(r.obj), tiles = tiled_area(r.obj, N - 2, &least);
    assert_true(least >= 0.0);
    assert_true(fabs(tiles - area) < 1e-9 * area);
    mn_obj_tri_cost cost = triangulation_cost(r.obj);
    assert_false(cost.gave_up);
    assert_int_equal(cost.budget, mni_obj_ear_budget(N));
    if (cost.steps > (uint64_t)STAR_STEPS * N)
        fail_msg("%llu steps for %d corners", (unsigned long long)cost.steps, N);
    assert_memory_bound(&r, &t, N);
    mn_obj_free(r.obj);
    free(t.data);
}

static void test_degenerate_and_crossing_polygons_finish_within_budget(void **state)
{
    (void)state;
    /* 20,000 corners on a line; all at one spot; a concave pentagon written 4,000 times over. */
    enum { N = 20000 };
    for (int shape = 0; shape < 3; shape++) {
        text t = {0};
        if (shape == 0)
            for (int i = 0; i < N; i++)
                put(&t, "v %d %d 0\n", i % 3, 2 * (i % 3));
        else if (shape == 1)
            put(&t, "v 1 2 3\n");
        else
            put(&t, "v 0 0 0\nv 2 0 0\nv 2 2 0\nv 1 0.5 0\nv 0 2 0\n");
        put(&t, "f");
        for (int i = 0; i < N; i++)
            put(&t, " %d", shape == 0 ? i + 1 : shape == 1 ? 1 : i % 5 + 1);
        put(&t, "\n");
        read_result r = read_counted(&t);
        assert_int_equal(r.obj->groups[0].vertex_count, 3 * (N - 2));
        assert_memory_bound(&r, &t, shape == 2 ? N : 0);
        mn_obj_free(r.obj);
        free(t.data);
    }
    /* The figure written over itself has no ear left after a while, or runs out of budget: either
       way its rest is a fan, in at most the budget's steps. */
    float positions[15] = {0, 0, 0, 2, 0, 0, 2, 2, 0, 1, 0.5f, 0, 0, 2, 0};
    mn_obj_corner *corners = malloc(N * sizeof *corners);
    assert_non_null(corners);
    for (uint32_t i = 0; i < N; i++)
        corners[i] = (mn_obj_corner){i % 5, MN_NONE, MN_NONE};
    mn_obj_vec tris = {0}, work = {0};
    mn_obj_tri_cost cost;
    assert_true(mni_obj_triangulate(NULL, positions, corners, N, &tris, &work, NULL, &cost));
    assert_int_equal(tris.size, (size_t)(N - 2) * 3 * sizeof(uint32_t));
    assert_true(cost.steps <= cost.budget);
    const uint32_t *tri = tris.data;
    for (size_t k = 0; k < (size_t)(N - 2) * 3; k++)
        assert_true(tri[k] < N);
    mni_obj_vec_free(NULL, &tris);
    mni_obj_vec_free(NULL, &work);
    free(corners);
}

static void test_a_polygon_out_of_budget_warns_once(void **state)
{
    (void)state;
    /* The crossing figure of 50,000 corners twice: each needs more steps than it has. */
    enum { N = 50000 };
    text t = {0};
    put(&t, "v 0 0 0\nv 2 0 0\nv 2 2 0\nv 1 0.5 0\nv 0 2 0\n");
    for (int f = 0; f < 2; f++) {
        put(&t, "f");
        for (int i = 0; i < N; i++)
            put(&t, " %d", i % 5 + 1);
        put(&t, "\n");
    }
    read_result r = read_counted(&t);
    assert_int_equal(r.obj->groups[0].vertex_count, 2 * 3 * (N - 2));
    assert_int_equal(r.obj->warning_count, 1);
    assert_int_equal(r.obj->warnings[0].code, MN_INVALID_VALUE);
    assert_string_equal(r.obj->warnings[0].path, "f");
    assert_non_null(strstr(r.obj->warnings[0].message, "2 polygons were too hard to ear-clip"));
    mn_obj_free(r.obj);
    free(t.data);
}

/* ---- huge faces, many groups --------------------------------------------------------- */

static void test_face_of_a_million_corner_references_is_linear(void **state)
{
    (void)state;
    enum { N = 1000000 };
    text t = {0};
    put(&t, "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf");
    for (int i = 0; i < N; i++)
        put(&t, " %d", i % 4 + 1);
    put(&t, "\n");
    read_result r = read_counted(&t);
    assert_int_equal(r.obj->groups[0].vertex_count, 3 * (N - 2));
    assert_int_equal(r.obj->warning_count, 0);
    assert_memory_bound(&r, &t, 0);
    mn_obj_free(r.obj);
    free(t.data);
}

static void test_many_usemtl_groups_cost_memory_in_proportion(void **state)
{
    (void)state;
    enum { GROUPS = 200000 };
    text t = {0};
    put(&t, "v 0 0 0\nv 1 0 0\nv 0 1 0\n");
    for (int g = 0; g < GROUPS; g++)
        put(&t, "usemtl m%d\nf 1 2 3\n", g);
    read_result r = read_counted(&t);
    assert_int_equal(r.obj->group_count, GROUPS);
    assert_int_equal(r.obj->material_count, GROUPS);
    assert_string_equal(r.obj->materials[GROUPS - 1].name, "m199999");
    assert_int_equal(r.obj->groups[GROUPS - 1].material_index, GROUPS - 1);
    assert_memory_bound(&r, &t, 0);
    mn_obj_free(r.obj);
    assert_int_equal(counter.live_bytes, 0);
    free(t.data);
}

static void test_undefined_material_warnings_are_capped(void **state)
{
    (void)state;
    /* Every library read, none defining the 1,000 names used: 16 warnings name them, one counts the rest. */
    static const char library[] = "newmtl other\nKd 1 0 0\n";
    text t = {0};
    put(&t, "mtllib lib.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\n");
    for (int g = 0; g < 1000; g++)
        put(&t, "usemtl m%d\nf 1 2 3\n", g);
    mn_obj_options options = {0};
    char dir[] = "/tmp/mn_obj_bounds_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/lib.mtl", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(library, f);
    fclose(f);
    options.base_dir = dir;
    mn_obj *obj = NULL;
    mn_error err;
    assert_int_equal(mn_obj_read_memory(t.data, t.size, &options, &obj, &err), MN_OK);
    assert_int_equal(obj->material_count, 1001);
    assert_string_equal(obj->materials[0].name, "other");
    assert_string_equal(obj->materials[1].name, "m0");
    assert_int_equal(obj->warning_count, 17);
    assert_non_null(strstr(obj->warnings[15].message, "\"m15\""));
    assert_non_null(strstr(obj->warnings[16].message, "984 more usemtl names"));
    mn_obj_free(obj);
    remove(path);
    remove(dir);
    free(t.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convex_polygon_of_100000_corners_is_one_fan),
        cmocka_unit_test(test_star_polygon_of_100000_corners_is_ear_clipped_in_n_log_n),
        cmocka_unit_test(test_degenerate_and_crossing_polygons_finish_within_budget),
        cmocka_unit_test(test_a_polygon_out_of_budget_warns_once),
        cmocka_unit_test(test_face_of_a_million_corner_references_is_linear),
        cmocka_unit_test(test_many_usemtl_groups_cost_memory_in_proportion),
        cmocka_unit_test(test_undefined_material_warnings_are_capped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
