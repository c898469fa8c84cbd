/*
 * Golden images: small renders of real assets through the whole path (reader,
 * rig and instance or OBJ or voxel controller, render source, camera framing,
 * renderer) compared with PNGs stored in tests/data/golden/.  A pixel differs
 * when a channel is more than a tolerance away; a render matches when
 * few enough of its pixels differ (tests/support/golden.h).  So a last-bit change in the
 * maths passes, while a wrong pose does not: the skinned figure at another
 * time of its clip is checked to fail against the stored frame.
 *
 * MN_UPDATE_GOLDEN=1 rewrites the stored images instead (then look at them).
 * A failing render is written to $MN_BUILD_DIR/golden_<name>.png to look at.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/marionette.h>

#include "assets.h"
#include "counting_alloc.h"
#include "golden.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE 128

static const float background[4] = {0.18f, 0.2f, 0.23f, 1.0f};

/* Frame the bounds with the command line's default view, draw at SIZE × SIZE (2×2 samples). */
static mn_rgba_image render_scene(mn_render_source *src, const float lo[3], const float hi[3])
{
    const mn_render_scene *scene = mn_render_source_scene(src);
    mn_render_options o = {.width = SIZE, .height = SIZE, .threads = 2,
                           .max_triangles = mn_render_scene_triangle_count(scene)};
    memcpy(o.background, background, sizeof background);
    mn_renderer *r = NULL;
    mn_error err;
    assert_int_equal(mn_renderer_create(&o, &r, &err), MN_OK);
    mn_render_view view = {.yaw = MN_RENDER_DEFAULT_YAW, .pitch = MN_RENDER_DEFAULT_PITCH};
    mn_render_camera cam;
    assert_int_equal(mn_render_camera_frame(lo, hi, &view, 1.0f, &cam, &err), MN_OK);
    mn_rgba_image img;
    assert_int_equal(mn_rgba_image_create(SIZE, SIZE, NULL, &img, &err), MN_OK);
    assert_int_equal(mn_renderer_draw(r, scene, &cam, &img, &err), MN_OK);
    mn_renderer_free(r);
    return img;
}

/* ---- glTF ---------------------------------------------------------------------------- */

typedef struct gltf_scene {
    mn_model *model;
    mn_rig *rig;
    mn_instance *instance;
    mn_render_source *source;
} gltf_scene;

static gltf_scene load_gltf(const char *path)
{
    gltf_scene g = {0};
    mn_error err;
    if (mn_gltf_read_file(path, NULL, &g.model, &err) != MN_OK)
        fail_msg("%s: %s", path, err.message);
    assert_int_equal(mn_rig_create(g.model, NULL, &g.rig, &err), MN_OK);
    assert_int_equal(mn_instance_create(g.rig, NULL, &g.instance, &err), MN_OK);
    assert_int_equal(mn_render_source_gltf(g.instance, NULL, &g.source, &err), MN_OK);
    assert_int_equal(mn_render_source_warning_count(g.source), 0);
    return g;
}

static void free_gltf(gltf_scene *g)
{
    mn_render_source_free(g->source);
    mn_instance_free(g->instance);
    mn_rig_free(g->rig);
    mn_model_free(g->model);
}

static void pose(gltf_scene *g, float t)
{
    mn_mixer_play(mn_instance_mixer(g->instance), 0, &(mn_play_options){.once = true, .at = t},
                  NULL);
    mn_instance_update(g->instance, 0.0f);
    mn_render_source_refresh(g->source);
}

static void render_rest(const char *path, const char *name)
{
    gltf_scene g = load_gltf(path);
    float lo[3], hi[3];
    mn_render_bounds_reset(lo, hi);
    mn_render_scene_bounds(mn_render_source_scene(g.source), lo, hi);
    mn_rgba_image img = render_scene(g.source, lo, hi);
    mn_golden_check(name, &img);
    mn_rgba_image_free(&img);
    free_gltf(&g);
}

static void test_lit_cube(void **state)
{
    (void)state;
    mn_test_need_assets();
    render_rest(mn_test_asset("gltf/Box/glTF-Binary/Box.glb"), "box");
}

static void test_textured_box(void **state)
{
    (void)state;
    mn_test_need_assets();
    /* The .gltf with its PNG beside it: the image is resolved, decoded and sampled. */
    render_rest(mn_test_asset("gltf/BoxTextured/glTF/BoxTextured.gltf"), "box_textured");
}

/* CesiumMan framed on its whole clip, as the command line frames a clip. */
static mn_rgba_image render_cesium(gltf_scene *g, float t)
{
    float lo[3], hi[3];
    mn_render_bounds_reset(lo, hi);
    float duration = mn_clip_duration(mn_rig_clip(g->rig, 0));
    for (int i = 0; i <= 16; i++) {
        pose(g, duration * (float)i / 16.0f);
        mn_render_scene_bounds(mn_render_source_scene(g->source), lo, hi);
    }
    pose(g, t);
    return render_scene(g->source, lo, hi);
}

static void test_skinned_mid_clip(void **state)
{
    (void)state;
    mn_test_need_assets();
    gltf_scene g = load_gltf(mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb"));
    mn_rgba_image img = render_cesium(&g, 1.0f);
    mn_golden_check("cesium_man_t1", &img);
    mn_rgba_image_free(&img);

    /* The comparison is strict enough to catch a wrong pose: a quarter second off fails. */
    const char *update = getenv("MN_UPDATE_GOLDEN");
    if (!update || !*update || strcmp(update, "0") == 0) {
        mn_rgba_image other = render_cesium(&g, 0.75f), want;
        mn_error err;
        assert_int_equal(mn_rgba_image_read_file("tests/data/golden/cesium_man_t1.png", NULL,
                                                 &want, &err), MN_OK);
        assert_false(mn_golden_matches(mn_golden_compare(&other, &want)));
        mn_rgba_image_free(&other);
        mn_rgba_image_free(&want);
    }
    free_gltf(&g);
}

/* A clip drawn frame after frame: posing, refreshing the source and drawing allocate nothing. */
static void test_clip_frames_allocate_nothing(void **state)
{
    (void)state;
    mn_test_need_assets();
    gltf_scene g = load_gltf(mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb"));
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    const mn_render_scene *scene = mn_render_source_scene(g.source);
    mn_render_options o = {.width = 64, .height = 64, .threads = 2, .allocator = hooks,
                           .max_triangles = mn_render_scene_triangle_count(scene)};
    mn_renderer *r = NULL;
    mn_error err;
    assert_int_equal(mn_renderer_create(&o, &r, &err), MN_OK);
    mn_rgba_image img;
    assert_int_equal(mn_rgba_image_create(64, 64, &hooks, &img, &err), MN_OK);
    const float lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
    mn_render_view view = {.yaw = MN_RENDER_DEFAULT_YAW, .pitch = MN_RENDER_DEFAULT_PITCH};
    mn_render_camera cam;
    assert_int_equal(mn_render_camera_frame(lo, hi, &view, 1.0f, &cam, &err), MN_OK);
    size_t before = counter.allocs;
    for (int i = 0; i < 8; i++) {
        pose(&g, 0.25f * (float)i);
        assert_int_equal(mn_renderer_draw(r, scene, &cam, &img, &err), MN_OK);
    }
    assert_int_equal(counter.allocs, before);
    mn_rgba_image_free(&img);
    mn_renderer_free(r);
    assert_int_equal(counter.live_bytes, 0);
    free_gltf(&g);
}

/* ---- OBJ and voxel rigs ----------------------------------------------------------------- */

static void test_obj(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_obj *obj = NULL;
    mn_error err;
    const char *path = mn_test_asset("obj/pirate/pirate.obj");
    if (mn_obj_read_file(path, NULL, &obj, &err) != MN_OK)
        fail_msg("%s: %s", path, err.message);
    mn_render_source *src = NULL;
    assert_int_equal(mn_render_source_obj(obj, mn_test_asset("obj/pirate"), NULL, NULL, &src, &err), MN_OK);
    float lo[3], hi[3];
    mn_render_bounds_reset(lo, hi);
    mn_render_scene_bounds(mn_render_source_scene(src), lo, hi);
    mn_rgba_image img = render_scene(src, lo, hi);
    mn_golden_check("pirate_obj", &img);
    mn_rgba_image_free(&img);
    mn_render_source_free(src);
    mn_obj_free(obj);
}

static void render_voxel(const char *path, const char *name)
{
    mn_voxel_controller *c = NULL;
    mn_error err;
    if (mn_voxel_controller_load(path, NULL, &c, &err) != MN_OK)
        fail_msg("%s: %s", path, err.message);
    mn_render_source *src = NULL;
    assert_int_equal(mn_render_source_voxel(c, NULL, &src, &err), MN_OK);
    mn_voxel_controller_seek(c, 250.0);
    mn_render_source_refresh(src);
    float lo[3], hi[3];
    mn_render_bounds_reset(lo, hi);
    mn_render_scene_bounds(mn_render_source_scene(src), lo, hi);
    mn_rgba_image img = render_scene(src, lo, hi);
    mn_golden_check(name, &img);
    mn_rgba_image_free(&img);
    mn_render_source_free(src);
    mn_voxel_controller_free(c);
}

static void test_voxel_rigged(void **state)
{
    (void)state;
    render_voxel("tests/data/voxel_arm/rig.json", "voxel_arm");
}

static void test_voxel_skinned(void **state)
{
    (void)state;
    render_voxel("tests/data/voxel_arm/skinned/rig.json", "voxel_arm_skinned");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lit_cube),
        cmocka_unit_test(test_textured_box),
        cmocka_unit_test(test_skinned_mid_clip),
        cmocka_unit_test(test_clip_frames_allocate_nothing),
        cmocka_unit_test(test_obj),
        cmocka_unit_test(test_voxel_rigged),
        cmocka_unit_test(test_voxel_skinned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
