/*
 * Texture formats beyond PNG and JPEG:
 *
 *   - WebP (EXT_texture_webp): an image libwebp encodes here, lossless, decodes
 *     to the same RGBA pixels; a texture whose only source is the extension's
 *     gets that image; a build without libwebp refuses the bytes naming WebP;
 *   - KHR_texture_basisu: a texture whose only source is a KTX2 image loads
 *     without an image (so materials draw with their factors), with one warning
 *     naming the texture and the image, required or not; the geometry loads;
 *     the image decoder names KTX2 when asked to decode one;
 *   - the renderer's source of each: the WebP texture decoded and used, the
 *     basisu one absent, so the material draws with its base colour factor;
 *   - the writer writes a WebP texture under EXT_texture_webp (required, as
 *     there is no core source), and the written file reads back the same.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <marionette/gltf.h>
#include <marionette/instance.h>
#include <marionette/model.h>
#include <marionette/render.h>

#include "glb_builder.h"

#ifdef MN_WITH_WEBP
#include <webp/encode.h>
#endif

#define ASSET "'asset':{'version':'2.0'}"

static const uint8_t KTX2[16] = {0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB, '\r', '\n', 0x1A, '\n', 0, 0, 0, 0};

/* 4 x 3 pixels, every one different, alpha included. */
static void pattern(uint8_t *rgba)
{
    for (int i = 0; i < 12; i++) {
        rgba[4 * i + 0] = (uint8_t)(20 * i);
        rgba[4 * i + 1] = (uint8_t)(255 - 20 * i);
        rgba[4 * i + 2] = (uint8_t)(7 * i);
        rgba[4 * i + 3] = (uint8_t)(255 - 3 * i);
    }
}

static mn_status read_glb(const gb_builder *b, mn_model **m, mn_error *err)
{
    gb_blob glb = gb_glb(b);
    mn_gltf_options opt = {0};
    opt.copy_input = true;
    mn_status st = mn_gltf_read_memory(glb.data, glb.size, &opt, m, err);
    gb_blob_free(&glb);
    return st;
}

/* A triangle with a material whose base colour texture is texture 0, built from `textures`. */
static void textured_triangle(gb_builder *b, const void *image, size_t image_size, const char *extensions,
                              const char *textures)
{
    size_t pos = gb_bin_f32(b, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    size_t img = gb_bin_bytes(b, image, image_size);
    gb_json(b,
            "{" ASSET ",%s'buffers':[{'byteLength':%zu}],"
            "'bufferViews':[{'buffer':0,'byteOffset':%zu,'byteLength':36},"
            "{'buffer':0,'byteOffset':%zu,'byteLength':%zu}],"
            "'accessors':[{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3','min':[0,0,0],"
            "'max':[1,1,0]}],'images':[{'bufferView':1,'mimeType':'image/png'}],'textures':[%s],"
            "'materials':[{'pbrMetallicRoughness':{'baseColorTexture':{'index':0},"
            "'baseColorFactor':[0.25,0.5,0.75,1]}}],"
            "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'material':0}]}],"
            "'nodes':[{'mesh':0}],'scenes':[{'nodes':[0]}],'scene':0}",
            extensions, gb_bin_size(b), pos, img, image_size, textures);
}

/* The renderer's material 0 for the model: its texture (MN_NONE: none) and base colour factor. */
static uint32_t render_texture(const mn_model *m, float base_color[4], bool *decoded)
{
    mn_rig *rig = NULL;
    mn_instance *inst = NULL;
    mn_render_source *src = NULL;
    mn_error err;
    assert_int_equal(mn_rig_create(m, NULL, &rig, &err), MN_OK);
    assert_int_equal(mn_instance_create(rig, NULL, &inst, &err), MN_OK);
    if (mn_render_source_gltf(inst, NULL, &src, &err) != MN_OK)
        fail_msg("%s", err.message);
    const mn_render_scene *scene = mn_render_source_scene(src);
    assert_true(scene->material_count >= 1);
    uint32_t t = scene->materials[0].texture;
    memcpy(base_color, scene->materials[0].base_color, 4 * sizeof(float));
    *decoded = t != MN_NONE && t < scene->texture_count && scene->textures[t].rgba != NULL;
    mn_render_source_free(src);
    mn_instance_free(inst);
    mn_rig_free(rig);
    return t;
}

/* The writer's GLB, collected in memory. */
typedef struct collected {
    uint8_t *bytes;
    size_t size;
} collected;

static bool contains(const uint8_t *hay, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(hay + i, needle, k) == 0)
            return true;
    return false;
}

static bool collect(void *user, const char *name, const void *bytes, size_t size)
{
    (void)name;
    collected *c = user;
    uint8_t *grown = realloc(c->bytes, c->size + size + 1);
    if (!grown)
        return false;
    memcpy(grown + c->size, bytes, size);
    c->bytes = grown;
    c->size += size;
    return true;
}

static void test_basisu_only_texture_loads_without_its_image(void **state)
{
    (void)state;
    const char *uses[] = {"'extensionsUsed':['KHR_texture_basisu'],",
                          "'extensionsUsed':['KHR_texture_basisu'],'extensionsRequired':['KHR_texture_basisu'],"};
    for (int i = 0; i < 2; i++) {
        gb_builder b;
        gb_init(&b);
        textured_triangle(&b, KTX2, sizeof KTX2, uses[i], "{'extensions':{'KHR_texture_basisu':{'source':0}}}");
        mn_model *m = NULL;
        mn_error err;
        if (read_glb(&b, &m, &err) != MN_OK)
            fail_msg("%s: %s", err.path, err.message);
        assert_int_equal(m->meshes[0].primitives[0].vertex_count, 3);
        assert_int_equal(m->texture_count, 1);
        assert_int_equal(m->textures[0].image, MN_NONE);
        assert_int_equal(m->warning_count, 1);
        print_message("    %s: %s\n", m->warnings[0].path, m->warnings[0].message);
        assert_string_equal(m->warnings[0].path, "textures[0]");
        assert_non_null(strstr(m->warnings[0].message, "images[0]"));
        assert_non_null(strstr(m->warnings[0].message, "KHR_texture_basisu"));
        float base[4];
        bool decoded;
        assert_int_equal(render_texture(m, base, &decoded), MN_NONE);
        assert_true(base[0] == 0.25f && base[1] == 0.5f && base[2] == 0.75f && base[3] == 1.0f);
        mn_model_free(m);
        gb_free(&b);
    }
    /* With a PNG fallback as its core source, that one is the texture's image, without a warning. */
    gb_builder b;
    gb_init(&b);
    textured_triangle(&b, KTX2, sizeof KTX2, uses[0], "{'source':0,'extensions':{'KHR_texture_basisu':{'source':0}}}");
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(read_glb(&b, &m, &err), MN_OK);
    assert_int_equal(m->textures[0].image, 0);
    assert_int_equal(m->warning_count, 0);
    mn_model_free(m);
    gb_free(&b);
    /* And asked to decode the KTX2 bytes, the image decoder says what they are. */
    mn_rgba_image img;
    assert_int_equal(mn_rgba_image_decode(KTX2, sizeof KTX2, NULL, &img, &err), MN_INVALID_VALUE);
    print_message("    %s\n", err.message);
    assert_non_null(strstr(err.message, "KTX2"));
}

static void test_webp_texture_decodes(void **state)
{
    (void)state;
    uint8_t rgba[48];
    pattern(rgba);
#ifdef MN_WITH_WEBP
    uint8_t *webp = NULL;
    size_t size = WebPEncodeLosslessRGBA(rgba, 4, 3, 16, &webp);
    assert_true(size > 0);
#else
    /* A WebP header is enough to be told the build has no decoder. */
    static uint8_t header[16] = {'R', 'I', 'F', 'F', 8, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', 'L'};
    uint8_t *webp = header;
    size_t size = sizeof header;
#endif
    gb_builder b;
    gb_init(&b);
    textured_triangle(&b, webp, size, "'extensionsUsed':['EXT_texture_webp'],'extensionsRequired':['EXT_texture_webp'],",
                      "{'extensions':{'EXT_texture_webp':{'source':0}}}");
    mn_model *m = NULL;
    mn_error err;
    if (read_glb(&b, &m, &err) != MN_OK)
        fail_msg("%s: %s", err.path, err.message);
    assert_int_equal(m->textures[0].image, 0);
    assert_int_equal(m->warning_count, 0);
    const mn_image *im = &m->images[0];
    mn_rgba_image img;
    mn_status st = mn_rgba_image_decode(im->data, im->size, NULL, &img, &err);
#ifdef MN_WITH_WEBP
    if (st != MN_OK)
        fail_msg("%s", err.message);
    assert_int_equal(img.width, 4);
    assert_int_equal(img.height, 3);
    assert_memory_equal(img.pixels, rgba, sizeof rgba);
    mn_rgba_image_free(&img);
    float base[4];
    bool decoded;
    assert_int_not_equal(render_texture(m, base, &decoded), MN_NONE);
    assert_true(decoded);
#endif
    /* Written back: the WebP is EXT_texture_webp's source, and the file requires the extension. */
    collected out = {NULL, 0};
    mn_gltf_sink sink = {collect, &out};
    if (mn_gltf_write(m, NULL, &sink, &err) != MN_OK)
        fail_msg("%s: %s", err.path, err.message);
    assert_non_null(out.bytes);
    assert_true(contains(out.bytes, out.size, "\"EXT_texture_webp\":{\"source\":0}"));
    mn_model *back = NULL;
    if (mn_gltf_read_memory(out.bytes, out.size, NULL, &back, &err) != MN_OK)
        fail_msg("%s: %s", err.path, err.message);
    assert_int_equal(back->textures[0].image, 0);
    assert_int_equal(back->extensions_required_count, 1);
    assert_string_equal(back->extensions_required[0], "EXT_texture_webp");
    assert_int_equal(back->images[0].size, im->size);
    assert_memory_equal(back->images[0].data, im->data, im->size);
    mn_model_free(back);
    free(out.bytes);
#ifdef MN_WITH_WEBP
    WebPFree(webp);
    /* Cut short, the WebP is refused. */
    assert_int_not_equal(mn_rgba_image_decode(im->data, im->size / 2, NULL, &img, &err), MN_OK);
    print_message("    cut short: %s\n", err.message);
#else
    assert_int_equal(st, MN_INVALID_VALUE);
    print_message("    %s\n", err.message);
    assert_non_null(strstr(err.message, "no WebP decoder"));
#endif
    mn_model_free(m);
    gb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basisu_only_texture_loads_without_its_image),
        cmocka_unit_test(test_webp_texture_decodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
