/*
 * The glTF render source on byte-built models, where the expected picture is
 * known: KHR_texture_transform and the sampler reach the renderer (a
 * transform that selects the white half of a black|white texture turns the
 * whole quad white), and an image that cannot be decoded is a warning that
 * names it while the model still draws, untextured.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/marionette.h>

#include "glb_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The PNG bytes of a 2×1 texture: black on the left, white on the right. */
static gb_blob black_white_png(void)
{
    mn_rgba_image img;
    mn_error err;
    assert_int_equal(mn_rgba_image_create(2, 1, NULL, &img, &err), MN_OK);
    const uint8_t px[8] = {0, 0, 0, 255, 255, 255, 255, 255};
    memcpy(img.pixels, px, sizeof px);
    char path[] = "/tmp/mn_test_render_source_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(mn_rgba_image_write_png(&img, path, &err), MN_OK);
    mn_rgba_image_free(&img);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    gb_blob blob = {malloc(4096), 0};
    blob.size = fread(blob.data, 1, 4096, f);
    fclose(f);
    remove(path);
    assert_true(blob.size > 8);
    return blob;
}

/* A quad in the z = 0 plane facing +z, uv 0..1 across, its material's texture given as
   `texture_info` JSON; image bytes `image`. */
static gb_blob quad_glb(const char *texture_info, const uint8_t *image, size_t image_size)
{
    gb_builder b;
    gb_init(&b);
    const float pos[12] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0};
    const float uv[8] = {0, 0, 1, 0, 1, 0, 0, 0};
    const uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    size_t p = gb_bin_f32v(&b, pos, 12);
    size_t u = gb_bin_f32v(&b, uv, 8);
    size_t i = gb_bin_u16v(&b, idx, 6);
    gb_bin_align(&b, 4);
    size_t img = gb_bin_bytes(&b, image, image_size);
    gb_bin_align(&b, 4);
    gb_json(&b,
            "{'asset':{'version':'2.0'},'extensionsUsed':['KHR_texture_transform'],"
            "'buffers':[{'byteLength':%zu}],"
            "'bufferViews':[{'buffer':0,'byteOffset':%zu,'byteLength':48},"
            "{'buffer':0,'byteOffset':%zu,'byteLength':32},"
            "{'buffer':0,'byteOffset':%zu,'byteLength':12},"
            "{'buffer':0,'byteOffset':%zu,'byteLength':%zu}],"
            "'accessors':[{'bufferView':0,'componentType':5126,'count':4,'type':'VEC3',"
            "'min':[-1,-1,0],'max':[1,1,0]},"
            "{'bufferView':1,'componentType':5126,'count':4,'type':'VEC2'},"
            "{'bufferView':2,'componentType':5123,'count':6,'type':'SCALAR'}],"
            "'images':[{'bufferView':3,'mimeType':'image/png'}],"
            "'samplers':[{'magFilter':9728,'wrapS':33071,'wrapT':33071}],"
            "'textures':[{'source':0,'sampler':0}],"
            "'materials':[{'pbrMetallicRoughness':{'baseColorTexture':%s}}],"
            "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'TEXCOORD_0':1},"
            "'indices':2,'material':0}]}],"
            "'nodes':[{'mesh':0}],'scenes':[{'nodes':[0]}],'scene':0}",
            gb_bin_size(&b), p, u, i, img, image_size, texture_info);
    gb_blob glb = gb_glb(&b);
    gb_free(&b);
    return glb;
}

typedef struct drawn {
    mn_rgba_image image;
    uint32_t warnings;
    char warning[256];
} drawn;

/* Load, make the source, draw the front view at 32×32. */
static drawn draw_glb(const gb_blob *glb)
{
    drawn d;
    memset(&d, 0, sizeof d);
    mn_model *model = NULL;
    mn_rig *rig = NULL;
    mn_instance *inst = NULL;
    mn_render_source *src = NULL;
    mn_renderer *r = NULL;
    mn_error err;
    if (mn_gltf_read_memory(glb->data, glb->size, NULL, &model, &err) != MN_OK)
        fail_msg("%s", err.message);
    assert_int_equal(mn_rig_create(model, NULL, &rig, &err), MN_OK);
    assert_int_equal(mn_instance_create(rig, NULL, &inst, &err), MN_OK);
    assert_int_equal(mn_render_source_gltf(inst, NULL, &src, &err), MN_OK);
    d.warnings = mn_render_source_warning_count(src);
    if (d.warnings)
        snprintf(d.warning, sizeof d.warning, "%s", mn_render_source_warning(src, 0)->message);
    const mn_render_scene *scene = mn_render_source_scene(src);
    mn_render_options o = {.width = 32, .height = 32, .supersample = 1, .threads = 1,
                           .max_triangles = mn_render_scene_triangle_count(scene)};
    assert_int_equal(mn_renderer_create(&o, &r, &err), MN_OK);
    float lo[3], hi[3];
    mn_render_bounds_reset(lo, hi);
    mn_render_scene_bounds(scene, lo, hi);
    mn_render_view view = {.kind = MN_VIEW_FRONT, .margin = 0.2f};
    mn_render_camera cam;
    assert_int_equal(mn_render_camera_frame(lo, hi, &view, 1.0f, &cam, &err), MN_OK);
    assert_int_equal(mn_rgba_image_create(32, 32, NULL, &d.image, &err), MN_OK);
    assert_int_equal(mn_renderer_draw(r, scene, &cam, &d.image, &err), MN_OK);
    mn_renderer_free(r);
    mn_render_source_free(src);
    mn_instance_free(inst);
    mn_rig_free(rig);
    mn_model_free(model);
    return d;
}

static uint8_t red_at(const mn_rgba_image *img, uint32_t x, uint32_t y)
{
    return img->pixels[4 * ((size_t)y * img->width + x)];
}

static void test_texture_transform(void **state)
{
    (void)state;
    gb_blob png = black_white_png();
    /* No transform: black on the left, white on the right. */
    gb_blob plain = quad_glb("{'index':0}", png.data, png.size);
    drawn d = draw_glb(&plain);
    assert_int_equal(d.warnings, 0);
    assert_true(red_at(&d.image, 10, 16) < 30);
    assert_true(red_at(&d.image, 22, 16) > 150);
    mn_rgba_image_free(&d.image);
    /* u' = 0.5 + 0.5 u: the right (white) half only. */
    gb_blob half = quad_glb("{'index':0,'extensions':{'KHR_texture_transform':"
                            "{'offset':[0.5,0],'scale':[0.5,1]}}}",
                            png.data, png.size);
    d = draw_glb(&half);
    assert_true(red_at(&d.image, 10, 16) > 150);
    assert_true(red_at(&d.image, 22, 16) > 150);
    mn_rgba_image_free(&d.image);
    /* Rotation by pi: u' = −u (+ offset 1): mirrored, white on the left. */
    gb_blob turned = quad_glb("{'index':0,'extensions':{'KHR_texture_transform':"
                              "{'offset':[1,0],'rotation':3.14159265}}}",
                              png.data, png.size);
    d = draw_glb(&turned);
    assert_true(red_at(&d.image, 10, 16) > 150);
    assert_true(red_at(&d.image, 22, 16) < 30);
    mn_rgba_image_free(&d.image);
    gb_blob_free(&plain);
    gb_blob_free(&half);
    gb_blob_free(&turned);
    gb_blob_free(&png);
}

static void test_undecodable_image_warns(void **state)
{
    (void)state;
    static const uint8_t junk[32] = "\x89PNG but not really an image.";
    gb_blob glb = quad_glb("{'index':0}", junk, sizeof junk);
    drawn d = draw_glb(&glb);
    assert_int_equal(d.warnings, 1);
    assert_non_null(strstr(d.warning, "images[0]"));
    assert_non_null(strstr(d.warning, "untextured"));
    /* Drawn all the same, white (no texture), both halves. */
    assert_true(red_at(&d.image, 10, 16) > 150);
    assert_true(red_at(&d.image, 22, 16) > 150);
    mn_rgba_image_free(&d.image);
    gb_blob_free(&glb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_texture_transform),
        cmocka_unit_test(test_undecodable_image_warns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
