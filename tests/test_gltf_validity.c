/*
 * Validity in, validity out, nothing lost without a word, memory in
 * proportion to the input:
 *
 *   - key times glTF forbids (the first below 0, one not after the one
 *     before) are refused by the reader, the model builder and the writer,
 *     each naming the sampler or channel and the key;
 *   - the writer never writes an image URI its own reader would refuse;
 *   - a node instanced with EXT_mesh_gpu_instancing is read with its
 *     instances, without a warning; a Draco-compressed primitive
 *     whose data does not decode is refused naming it, and a build without
 *     libdraco refuses one without uncompressed data and warns about one with;
 *   - a chain of 100,000 nodes, each the only child of the one before, and
 *     100,000 empty nodes, read within the bound docs/formats.md states,
 *     counting jansson's DOM (json_set_alloc_funcs) with the model's arena;
 *     one strided key-time accessor shared by many samplers is converted once.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <marionette/gltf.h>
#include <marionette/model.h>
#include <marionette/model_build.h>

#include "counting_alloc.h"
#include "glb_builder.h"

#define ASSET "'asset':{'version':'2.0'}"
enum { F32 = 5126 };

/* ---- helpers ----------------------------------------------------------------------------- */

/* Read a GLB of the builder; the model (or NULL) and the status, err filled. */
static mn_status read_glb(const gb_builder *b, mn_model **model, mn_error *err)
{
    gb_blob glb = gb_glb(b);
    mn_gltf_options o = {.copy_input = true};
    mn_status st = mn_gltf_read_memory(glb.data, glb.size, &o, model, err);
    gb_blob_free(&glb);
    return st;
}

/* One animated node whose translation sampler has these key times (values all 0). */
static void animated_node(gb_builder *b, const float *times, size_t n)
{
    size_t t = gb_bin_f32v(b, times, n);
    float *values = calloc(3 * n, sizeof(float));
    assert_non_null(values);
    size_t v = gb_bin_f32v(b, values, 3 * n);
    free(values);
    gb_json(b,
            "{" ASSET ",'buffers':[{'byteLength':%zu}],'bufferViews':[{'buffer':0,'byteLength':%zu}],"
            "'accessors':[{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':%zu,'type':'SCALAR',"
            "'min':[0],'max':[9]},{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':%zu,"
            "'type':'VEC3'}],'nodes':[{}],'animations':[{'samplers':[{'input':0,'output':1}],"
            "'channels':[{'sampler':0,'target':{'node':0,'path':'translation'}}]}]}",
            gb_bin_size(b), gb_bin_size(b), t, F32, n, v, F32, n);
}

static void expect_times_refused(const float *times, size_t n, const char *key_text)
{
    gb_builder b;
    gb_init(&b);
    animated_node(&b, times, n);
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(read_glb(&b, &m, &err), MN_INVALID_VALUE);
    assert_null(m);
    print_message("    %s: %s\n", err.path, err.message);
    assert_string_equal(err.path, "animations[0].samplers[0].input");
    assert_non_null(strstr(err.message, key_text));
    assert_non_null(strstr(err.message, "sampler 0 (accessor 0)"));
    gb_free(&b);
}

/* ---- key times ----------------------------------------------------------------------------- */

static void test_reader_refuses_key_times_glTF_forbids(void **state)
{
    (void)state;
    expect_times_refused((const float[]){-1.0f, 0.0f, 1.0f}, 3, "key 0 ");
    expect_times_refused((const float[]){0.0f, 1.0f, 1.0f, 2.0f}, 4, "key 2 ");
    expect_times_refused((const float[]){0.0f, 2.0f, 1.0f}, 3, "key 2 ");

    /* The same keys, strictly increasing from 0, load. */
    gb_builder b;
    gb_init(&b);
    animated_node(&b, (const float[]){0.0f, 1.0f, 2.0f}, 3);
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(read_glb(&b, &m, &err), MN_OK);
    assert_true(m->animations[0].duration == 2.0f);
    mn_model_free(m);
    gb_free(&b);
}

static void test_builder_refuses_key_times_glTF_forbids(void **state)
{
    (void)state;
    static const float zeros[9] = {0};
    const float *bad[2] = {(const float[]){-0.5f, 1.0f, 2.0f}, (const float[]){0.0f, 1.0f, 1.0f}};
    for (int i = 0; i < 2; i++) {
        mn_model_builder *b = mn_model_build_begin(NULL);
        uint32_t node = mn_model_build_node(b, "n", MN_NONE);
        uint32_t anim = mn_model_build_animation(b, "a", NULL);
        mn_model_build_channel(b, anim, node, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, bad[i], zeros, 3);
        mn_model *m = NULL;
        mn_error err;
        assert_int_equal(mn_model_build_finish(b, &m, &err), MN_INVALID_VALUE);
        print_message("    %s: %s\n", err.path, err.message);
        assert_non_null(strstr(err.message, i == 0 ? "key 0 " : "key 2 "));
    }
}

/* A sink that keeps nothing: the writer's checks come before any byte. */
static bool discard(void *user, const char *name, const void *bytes, size_t size)
{
    (void)user, (void)name, (void)bytes, (void)size;
    return true;
}

static void test_writer_refuses_key_times_glTF_forbids(void **state)
{
    (void)state;
    /* A model holding such keys cannot come from the reader or the builder: read good keys
       zero-copy from bytes we own, then break them in place, as a caller's own model might. */
    gb_builder b;
    gb_init(&b);
    animated_node(&b, (const float[]){0.0f, 1.0f, 2.0f}, 3);
    gb_blob glb = gb_glb(&b);
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_memory(glb.data, glb.size, NULL, &m, &err), MN_OK);
    float *times = (float *)(glb.data + gb_glb_bin_offset(&b));
    assert_ptr_equal(m->animations[0].channels[0].times, times);
    const mn_gltf_sink sink = {discard, NULL};
    assert_int_equal(mn_gltf_write(m, NULL, &sink, &err), MN_OK);
    times[2] = 1.0f;
    assert_int_equal(mn_gltf_write(m, NULL, &sink, &err), MN_INVALID_VALUE);
    print_message("    %s: %s\n", err.path, err.message);
    assert_string_equal(err.path, "animations[0].channels[0]");
    assert_non_null(strstr(err.message, "key 2 "));
    times[2] = 2.0f;
    times[0] = -1.0f;
    assert_int_equal(mn_gltf_write(m, NULL, &sink, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "key 0 "));
    mn_model_free(m);
    gb_blob_free(&glb);
    gb_free(&b);
}

/* ---- image URIs the writer keeps ------------------------------------------------------------- */

/* A triangle whose material's texture is an image by `uri` only (as an OBJ's map_Kd gives). */
static mn_model *model_with_image_uri(const char *uri)
{
    static const float xyz[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    mn_model_builder *b = mn_model_build_begin(NULL);
    uint32_t pos = mn_model_build_accessor_f32(b, NULL, xyz, 3, MN_TYPE_VEC3);
    uint32_t image = mn_model_build_image(b, "skin", "image/png", uri, NULL, 0);
    mn_material mat;
    mn_model_build_material_defaults(&mat);
    mat.base_color_texture.texture = mn_model_build_texture(b, image, MN_NONE);
    uint32_t material = mn_model_build_material(b, &mat);
    uint32_t mesh = mn_model_build_mesh(b, "tri");
    const mn_build_attribute attrs[] = {{"POSITION", pos}};
    mn_model_build_primitive(b, mesh, MN_MODE_TRIANGLES, attrs, 1, MN_NONE, material);
    mn_model_build_node_mesh(b, mn_model_build_node(b, "n", MN_NONE), mesh, MN_NONE);
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_model_build_finish(b, &m, &err), MN_OK);
    return m;
}

/* Collects what the writer writes. */
typedef struct byte_sink {
    uint8_t *data;
    size_t size;
} byte_sink;

static bool keep_bytes(void *user, const char *name, const void *bytes, size_t size)
{
    (void)name;
    byte_sink *t = user;
    t->data = realloc(t->data, t->size + size + 1);
    assert_non_null(t->data);
    memcpy(t->data + t->size, bytes, size);
    t->size += size;
    return true;
}

static bool holds(const byte_sink *t, const char *text)
{
    size_t n = strlen(text);
    for (size_t i = 0; i + n <= t->size; i++)
        if (memcmp(t->data + i, text, n) == 0)
            return true;
    return false;
}

static void test_writer_never_writes_an_image_uri_its_reader_refuses(void **state)
{
    (void)state;
    static const char *const refused[] = {"../tex.png", "a/../../tex.png", "/etc/tex.png",
                                          "http://example.com/tex.png", "bad%zzescape.png",
                                          "data:image/png;;base64,AA=="};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        mn_model *m = model_with_image_uri(refused[i]);
        byte_sink t = {0};
        const mn_gltf_sink sink = {keep_bytes, &t};
        mn_error err;
        assert_int_equal(mn_gltf_write(m, NULL, &sink, &err), MN_URI);
        print_message("    \"%s\": %s: %s\n", refused[i], err.path, err.message);
        assert_string_equal(err.path, "images[0].uri");
        assert_null(t.data);   /* refused before a byte was written */
        mn_model_free(m);
    }
    /* A URI inside the model's folder is written as given, and reads back (the file itself is
       missing here, which the reader takes as a warning). */
    mn_model *m = model_with_image_uri("textures/skin%20tone.png");
    byte_sink t = {0};
    const mn_gltf_sink sink = {keep_bytes, &t};
    mn_error err;
    assert_int_equal(mn_gltf_write(m, NULL, &sink, &err), MN_OK);
    assert_true(holds(&t, "\"uri\":\"textures/skin%20tone.png\""));
    mn_model *back = NULL;
    assert_int_equal(mn_gltf_read_memory(t.data, t.size, NULL, &back, &err), MN_OK);
    assert_string_equal(back->images[0].uri, "textures/skin%20tone.png");
    assert_int_equal(back->warning_count, 1);
    mn_model_free(back);
    free(t.data);
    mn_model_free(m);
}

/* ---- what the reader cannot carry over ------------------------------------------------------- */

static void test_draco_primitive_is_decoded_or_named(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t pos = gb_bin_f32(&b, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    size_t dr = gb_bin_u8(&b, 1, 2, 3, 4);
    /* POSITION 0 is uncompressed data; the Draco view (4 bytes that are not Draco) comes after. */
    gb_json(&b,
            "{" ASSET ",'extensionsUsed':['KHR_draco_mesh_compression'],'buffers':[{'byteLength':%zu}],"
            "'bufferViews':[{'buffer':0,'byteOffset':%zu,'byteLength':36},{'buffer':0,'byteOffset':%zu,'byteLength':4}],"
            "'accessors':[{'bufferView':0,'componentType':%d,'count':3,'type':'VEC3','min':[0,0,0],'max':[1,1,0]}],"
            "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]},"
            "{'primitives':[{'attributes':{'POSITION':0}},{'attributes':{'POSITION':0},'mode':0,"
            "'extensions':{'KHR_draco_mesh_compression':{'bufferView':1,'attributes':{'POSITION':0}}}}]}],"
            "'nodes':[{'mesh':1}],'scenes':[{'nodes':[0]}],'scene':0}",
            gb_bin_size(&b), pos, dr, F32);
    mn_model *m = NULL;
    mn_error err;
#ifdef MN_WITH_DRACO
    /* Decoded when present: data that does not decode is refused, naming the view. */
    assert_int_equal(read_glb(&b, &m, &err), MN_DRACO);
    print_message("    %s: %s\n", err.path, err.message);
    assert_string_equal(err.path, "meshes[1].primitives[1].extensions.KHR_draco_mesh_compression.bufferView");
    assert_non_null(strstr(err.message, "bufferViews[1] (4 bytes)"));
#else
    /* No decoder: the uncompressed accessors are read, with a warning naming the primitive. */
    assert_int_equal(read_glb(&b, &m, &err), MN_OK);
    assert_int_equal(m->warning_count, 1);
    print_message("    %s: %s\n", m->warnings[0].path, m->warnings[0].message);
    assert_int_equal(m->warnings[0].code, MN_UNSUPPORTED_EXTENSION);
    assert_string_equal(m->warnings[0].path, "meshes[1].primitives[1].extensions.KHR_draco_mesh_compression");
    assert_non_null(strstr(m->warnings[0].message, "primitive 1 of mesh 1"));
    mn_model_free(m);
#endif

    /* Required, a build without a decoder refuses it naming what it lacks. */
    gb_free(&b);
    gb_init(&b);
    gb_json(&b, "{" ASSET ",'extensionsUsed':['KHR_draco_mesh_compression'],"
                "'extensionsRequired':['KHR_draco_mesh_compression']}");
#ifdef MN_WITH_DRACO
    assert_int_equal(read_glb(&b, &m, &err), MN_OK);
    mn_model_free(m);
#else
    assert_int_equal(read_glb(&b, &m, &err), MN_UNSUPPORTED_EXTENSION);
    assert_non_null(strstr(err.message, "no Draco decoder"));
#endif
    gb_free(&b);
}

static void test_gpu_instancing_is_read_with_its_instances(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t pos = gb_bin_f32(&b, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    size_t tr = gb_bin_f32(&b, 0, 0, 0, 2, 0, 0);
    gb_json(&b,
            "{" ASSET ",'extensionsUsed':['EXT_mesh_gpu_instancing'],'buffers':[{'byteLength':%zu}],"
            "'bufferViews':[{'buffer':0,'byteLength':%zu}],"
            "'accessors':[{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':3,'type':'VEC3',"
            "'min':[0,0,0],'max':[1,1,0]},{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':2,"
            "'type':'VEC3'}],'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}],"
            "'nodes':[{'children':[1]},{'name':'crowd','mesh':0,"
            "'extensions':{'EXT_mesh_gpu_instancing':{'attributes':{'TRANSLATION':1}}}}]}",
            gb_bin_size(&b), gb_bin_size(&b), pos, F32, tr, F32);
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(read_glb(&b, &m, &err), MN_OK);
    assert_int_equal(m->warning_count, 0);
    assert_int_equal(m->nodes[1].instance_count, 2);
    assert_int_equal(m->nodes[1].instance_translation, 1);
    assert_int_equal(m->nodes[1].instance_rotation, MN_NONE);
    assert_int_equal(m->nodes[1].instance_scale, MN_NONE);
    /* The bounds hold both instances: x from 0 to 1 + 2. */
    assert_true(fabsf(m->bounds_max[0] - 3.0f) < 1e-6f);
    mn_model_free(m);
    gb_free(&b);
}

/* ---- memory in proportion -------------------------------------------------------------------------- */


/* Read `text` with every byte the reader and jansson allocate counted: the peak over the input's size. */
static double peak_per_input_byte(const char *text, size_t size, uint32_t want_nodes)
{
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_counting_json_begin(&counter);
    mn_gltf_options o = {.allocator = mn_counting_allocator(&counter)};
    mn_model *m = NULL;
    mn_error err;
    mn_status st = mn_gltf_read_memory(text, size, &o, &m, &err);
    mn_counting_json_end();
    if (st != MN_OK)
        fail_msg("%s: %s", err.path, err.message);
    assert_int_equal(m->node_count, want_nodes);
    mn_model_free(m);
    assert_int_equal(counter.live_bytes, 0);
    return (double)counter.peak_bytes / (double)size;
}

enum { CHAIN = 100000 };

/* The reader's stated bounds (docs/formats.md): peak allocation, jansson's DOM included. */
#define CHAIN_BOUND 20.0    /* nodes written {"name":"n1","children":[2]}: about 17 measured */
#define EMPTY_BOUND 128.0   /* nodes written {}, the smallest a node can be: about 115 measured */

static void test_node_chain_reads_in_proportion(void **state)
{
    (void)state;
    size_t cap = (size_t)CHAIN * 40 + 128, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text + len, cap - len,
                            "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[");
    for (uint32_t i = 0; i < CHAIN; i++) {
        if (i + 1 < CHAIN)
            len += (size_t)snprintf(text + len, cap - len, "{\"name\":\"n%u\",\"children\":[%u]},", i, i + 1);
        else
            len += (size_t)snprintf(text + len, cap - len, "{\"name\":\"n%u\"}]}", i);
    }
    double chain = peak_per_input_byte(text, len, CHAIN);
    print_message("    %u-node chain, %zu bytes: peak %.2f x the input\n", CHAIN, len, chain);
    assert_true(chain < CHAIN_BOUND);

    len = (size_t)snprintf(text, cap, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}");
    for (uint32_t i = 1; i < CHAIN; i++)
        memcpy(text + len, ",{}", 3), len += 3;
    memcpy(text + len, "]}", 3), len += 2;
    double empty = peak_per_input_byte(text, len, CHAIN);
    print_message("    %u empty nodes, %zu bytes: peak %.2f x the input\n", CHAIN, len, empty);
    assert_true(empty < EMPTY_BOUND);
    free(text);
}

/*
 * One key-time accessor with a byteStride (so it cannot be used in place)
 * shared by many samplers: converted once, not once per sampler, whose cost
 * would grow as samplers × keys while the file grows as samplers + keys.
 */
static void test_shared_strided_keys_are_converted_once(void **state)
{
    (void)state;
    enum { KEYS = 2000, SAMPLERS = 500 };
    gb_builder b;
    gb_init(&b);
    for (int k = 0; k < KEYS; k++)
        gb_bin_f32(&b, (float)k * 0.01f, 0.0f);
    size_t values = gb_bin_zeros(&b, (size_t)KEYS * 12);
    gb_json(&b,
            "{" ASSET ",'buffers':[{'byteLength':%zu}],'bufferViews':[{'buffer':0,'byteLength':%zu,"
            "'byteStride':8},{'buffer':0,'byteOffset':%zu,'byteLength':%zu}],'accessors':[{'bufferView':0,"
            "'componentType':%d,'count':%d,'type':'SCALAR','min':[0],'max':[20]},{'bufferView':1,"
            "'componentType':%d,'count':%d,'type':'VEC3'}],'nodes':[{}],'animations':[{'samplers':[",
            gb_bin_size(&b), values, values, (size_t)KEYS * 12, F32, KEYS, F32, KEYS);
    for (int s = 0; s < SAMPLERS; s++)
        gb_json(&b, "%s{'input':0,'output':1}", s ? "," : "");
    gb_json(&b, "],'channels':[");
    for (int s = 0; s < SAMPLERS; s++)
        gb_json(&b, "%s{'sampler':%d,'target':{'node':0,'path':'translation'}}", s ? "," : "", s);
    gb_json(&b, "]}]}");
    gb_blob glb = gb_glb(&b);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_gltf_options o = {.allocator = mn_counting_allocator(&counter)};
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_memory(glb.data, glb.size, &o, &m, &err), MN_OK);
    const mn_animation *a = &m->animations[0];
    assert_int_equal(a->channel_count, SAMPLERS);
    for (uint32_t c = 1; c < a->channel_count; c++)
        assert_ptr_equal(a->channels[c].times, a->channels[0].times);
    print_message("    %d samplers over one strided accessor of %d keys: model %zu bytes, input %zu\n",
                  SAMPLERS, KEYS, counter.live_bytes, glb.size);
    /* Once per sampler would be SAMPLERS x KEYS x 4 = 4 MB for the times alone. */
    assert_true(counter.live_bytes < 4 * glb.size);
    mn_model_free(m);
    gb_blob_free(&glb);
    gb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_refuses_key_times_glTF_forbids),
        cmocka_unit_test(test_builder_refuses_key_times_glTF_forbids),
        cmocka_unit_test(test_writer_refuses_key_times_glTF_forbids),
        cmocka_unit_test(test_writer_never_writes_an_image_uri_its_reader_refuses),
        cmocka_unit_test(test_draco_primitive_is_decoded_or_named),
        cmocka_unit_test(test_gpu_instancing_is_read_with_its_instances),
        cmocka_unit_test(test_node_chain_reads_in_proportion),
        cmocka_unit_test(test_shared_strided_keys_are_converted_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
