/*
 * The splat render source (src/character/render_source.c) on a hand-made cloud:
 * each drawn splat is a hexagon of four triangles round its posed centre,
 * its radius the largest exp(scale) times radius_scale, its corners along
 * the camera's right and up axes once the source is turned to a camera;
 * colours are the SH DC term decoded from sRGB (or kept linear); splats
 * below min_opacity are left out; a refresh follows the caller's centres;
 * refresh and draw allocate nothing (counting allocator) and the source
 * frees all it took; bad options are refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/render.h>
#include <marionette/character/splat.h>

#include "assert_near.h"
#include "counting_alloc.h"

#include <math.h>
#include <string.h>

#define COUNT 3u

typedef struct cloud_data {
    float centres[COUNT * 3], rotations[COUNT * 4], scales[COUNT * 3], opacities[COUNT],
        colours[COUNT * 3];
    mn_splat_cloud cloud;
} cloud_data;

/* Three splats along x; the middle one nearly transparent (opacity logit -4: alpha 0.018). */
static void make_cloud(cloud_data *d)
{
    memset(d, 0, sizeof *d);
    for (uint32_t i = 0; i < COUNT; i++) {
        d->centres[3 * i] = (float)i;
        d->rotations[4 * i + 3] = 1.0f;
        d->scales[3 * i] = logf(0.1f);
        d->scales[3 * i + 1] = logf(0.2f * (float)(i + 1));
        d->scales[3 * i + 2] = logf(0.05f);
        d->opacities[i] = i == 1 ? -4.0f : 3.0f;
        d->colours[3 * i] = 1.0f;
        d->colours[3 * i + 1] = 0.0f;
        d->colours[3 * i + 2] = -1.0f;
    }
    d->cloud = (mn_splat_cloud){.count = COUNT, .centres = d->centres,
                                .rotations = d->rotations, .scales = d->scales,
                                .opacities = d->opacities, .colours = d->colours};
}

static float srgb_to_linear(float c)
{
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

static void discs_sit_round_the_centres(void **state)
{
    (void)state;
    cloud_data d;
    make_cloud(&d);
    mn_render_source *src = NULL;
    mn_error err;
    mn_render_splat_options o = {.radius_scale = 2.0f};
    assert_int_equal(mn_render_source_splat(&d.cloud, d.centres, &o, &src, &err), MN_OK);
    const mn_render_scene *scene = mn_render_source_scene(src);
    assert_int_equal(scene->mesh_count, 1);
    assert_int_equal(mn_render_scene_triangle_count(scene), COUNT * 4);
    const mn_render_mesh *m = &scene->meshes[0];
    assert_int_equal(m->vertex_count, COUNT * 6);
    /* Facing +z before any camera: corner j at centre + r (cos 60j, sin 60j, 0). */
    for (uint32_t i = 0; i < COUNT; i++) {
        float r = 2.0f * 0.2f * (float)(i + 1);
        for (uint32_t j = 0; j < 6; j++) {
            const float *p = m->positions + 3 * (6 * i + j);
            float a = (float)j * 1.0471976f;
            assert_float_near(p[0], (float)i + r * cosf(a), 1e-5);
            assert_float_near(p[1], r * sinf(a), 1e-5);
            assert_float_near(p[2], 0.0f, 1e-6);
        }
        const float *c = m->colors + 3 * (6 * i);
        assert_int_equal(m->color_components, 3);
        assert_float_near(c[0], srgb_to_linear(0.5f + 0.2820948f), 1e-6);
        assert_float_near(c[1], srgb_to_linear(0.5f), 1e-6);
        assert_float_near(c[2], srgb_to_linear(0.5f - 0.2820948f), 1e-6);
    }
    /* Every index stays inside the mesh, and each disc's triangles use its own corners. */
    for (uint32_t k = 0; k < m->index_count; k++)
        assert_int_equal(m->indices[k] / 6, k / 12);
    mn_render_source_free(src);
}

/* A camera from +x: the discs lie in the y-z plane; a refresh follows moved centres. */
static void discs_face_the_camera_and_follow_the_pose(void **state)
{
    (void)state;
    cloud_data d;
    make_cloud(&d);
    float posed[COUNT * 3];
    memcpy(posed, d.centres, sizeof posed);
    mn_render_source *src = NULL;
    mn_error err;
    mn_render_splat_options o = {.min_opacity = 0.5f, .linear_colours = true};
    assert_int_equal(mn_render_source_splat(&d.cloud, posed, &o, &src, &err), MN_OK);
    const mn_render_mesh *m = &mn_render_source_scene(src)->meshes[0];
    assert_int_equal(m->vertex_count, 2 * 6); /* the middle splat is below min_opacity */
    assert_float_near(m->colors[0], 0.5f + 0.2820948f, 1e-6);
    float lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
    mn_render_camera cam;
    assert_int_equal(mn_render_camera_frame(lo, hi, &(mn_render_view){.kind = MN_VIEW_SIDE}, 1.0f,
                                            &cam, &err),
                     MN_OK);
    mn_render_source_splat_face(src, &cam);
    posed[6 + 1] = 5.0f; /* the third splat (the second drawn) moves up */
    mn_render_source_refresh(src);
    for (uint32_t j = 0; j < 6; j++) {
        const float *p = m->positions + 3 * (6 + j);
        assert_float_near(p[0], 2.0f, 1e-5);
        float dy = p[1] - 5.0f, dz = p[2];
        assert_float_near(sqrtf(dy * dy + dz * dz), 0.6f, 1e-5);
    }
    mn_render_source_free(src);
}

static void refresh_and_draw_allocate_nothing(void **state)
{
    (void)state;
    cloud_data d;
    make_cloud(&d);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_render_source *src = NULL;
    mn_renderer *r = NULL;
    mn_rgba_image img;
    mn_error err;
    mn_render_splat_options o = {.allocator = hooks};
    assert_int_equal(mn_render_source_splat(&d.cloud, d.centres, &o, &src, &err), MN_OK);
    const mn_render_scene *scene = mn_render_source_scene(src);
    mn_render_options ro = {.width = 64, .height = 48, .threads = 2, .allocator = hooks,
                            .max_triangles = mn_render_scene_triangle_count(scene),
                            .background = {0, 0, 0, 1}};
    assert_int_equal(mn_renderer_create(&ro, &r, &err), MN_OK);
    assert_int_equal(mn_rgba_image_create(64, 48, &hooks, &img, &err), MN_OK);
    float lo[3], hi[3];
    mn_render_bounds_reset(lo, hi);
    mn_render_scene_bounds(scene, lo, hi);
    mn_render_camera cam;
    assert_int_equal(mn_render_camera_frame(lo, hi, &(mn_render_view){0}, 64.0f / 48.0f, &cam,
                                            &err),
                     MN_OK);
    size_t before = counter.allocs;
    for (int frame = 0; frame < 3; frame++) {
        d.centres[1] = 0.1f * (float)frame;
        mn_render_source_splat_face(src, &cam);
        mn_render_source_refresh(src);
        assert_int_equal(mn_renderer_draw(r, scene, &cam, &img, &err), MN_OK);
    }
    assert_int_equal(counter.allocs, before);
    size_t lit = 0;
    for (size_t i = 0; i < 64u * 48u; i++)
        lit += img.pixels[4 * i] > 0;
    assert_true(lit > 10);
    mn_rgba_image_free(&img);
    mn_renderer_free(r);
    mn_render_source_free(src);
    assert_int_equal(counter.live_bytes, 0);
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    cloud_data d;
    make_cloud(&d);
    mn_render_source *src = (mn_render_source *)&d; /* must come back NULL */
    mn_error err;
    assert_int_equal(mn_render_source_splat(NULL, d.centres, NULL, &src, &err),
                     MN_INVALID_ARGUMENT);
    assert_null(src);
    assert_int_equal(mn_render_source_splat(&d.cloud, NULL, NULL, &src, &err),
                     MN_INVALID_ARGUMENT);
    mn_render_splat_options o = {.radius_scale = -1.0f};
    assert_int_equal(mn_render_source_splat(&d.cloud, d.centres, &o, &src, &err),
                     MN_INVALID_ARGUMENT);
    o = (mn_render_splat_options){.min_opacity = NAN};
    assert_int_equal(mn_render_source_splat(&d.cloud, d.centres, &o, &src, &err),
                     MN_INVALID_ARGUMENT);
    o = (mn_render_splat_options){.radius_scale = INFINITY};
    assert_int_equal(mn_render_source_splat(&d.cloud, d.centres, &o, &src, &err),
                     MN_INVALID_ARGUMENT);
    /* Turning something that is no splat source, or NULL, does nothing. */
    mn_render_source_splat_face(NULL, NULL);
}

/* Every allocation of a build may fail: the error is MN_OUT_OF_MEMORY and nothing leaks. */
static void out_of_memory_is_reported(void **state)
{
    (void)state;
    cloud_data d;
    make_cloud(&d);
    for (long n = 0;; n++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = n;
        mn_render_splat_options o = {.allocator = mn_counting_allocator(&counter)};
        mn_render_source *src = NULL;
        mn_error err;
        mn_status st = mn_render_source_splat(&d.cloud, d.centres, &o, &src, &err);
        if (st == MN_OK) {
            mn_render_source_free(src);
            assert_int_equal(counter.live_bytes, 0);
            break;
        }
        assert_int_equal(st, MN_OUT_OF_MEMORY);
        assert_null(src);
        assert_int_equal(counter.live_bytes, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(discs_sit_round_the_centres),
        cmocka_unit_test(discs_face_the_camera_and_follow_the_pose),
        cmocka_unit_test(refresh_and_draw_allocate_nothing),
        cmocka_unit_test(bad_arguments_are_refused),
        cmocka_unit_test(out_of_memory_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
