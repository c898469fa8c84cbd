/*
 * Names the file never had: a glTF whose first node, mesh, material and
 * animation are unnamed and whose others are named reads with display names
 * ("node0", "material0", "anim0"; a mesh without a name stays NULL) marked
 * default_name, and writes back with no "name" member where the source had
 * none and the source's names where it had them; read and written again, the
 * same bytes.  A model built in code with NULL names writes none either.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include <marionette/gltf.h>
#include <marionette/model.h>
#include <marionette/model_build.h>

/* Positions of one triangle (36 bytes), key times 0 1 (8), translations (24). */
static const char GLTF[] =
    "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
    "\"nodes\":[{\"children\":[1,2]},{\"name\":\"Armature\",\"mesh\":0},{\"mesh\":1}],"
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"material\":0}]},"
    "{\"name\":\"Body\",\"primitives\":[{\"attributes\":{\"POSITION\":0},\"material\":1}]}],"
    "\"materials\":[{},{\"name\":\"Skin\"}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
    "\"min\":[0,0,0],\"max\":[1,1,0]},"
    "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
    "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":8},"
    "{\"buffer\":0,\"byteOffset\":44,\"byteLength\":24}],"
    "\"buffers\":[{\"byteLength\":68,\"uri\":\"data:application/octet-stream;base64,"
    "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAQAAAQEA=\"}],"
    "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}],"
    "\"samplers\":[{\"input\":1,\"output\":2}]},"
    "{\"name\":\"Walk\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"translation\"}}],"
    "\"samplers\":[{\"input\":1,\"output\":2}]}]}";

/* A GLB written into memory. */
typedef struct bytes {
    unsigned char *data;
    size_t size;
} bytes;

static bool keep(void *user, const char *name, const void *data, size_t size)
{
    (void)name;
    bytes *b = user;
    b->data = realloc(b->data, b->size + size);
    assert_non_null(b->data);
    memcpy(b->data + b->size, data, size);
    b->size += size;
    return true;
}

static bytes write_glb(const mn_model *m)
{
    bytes out = {NULL, 0};
    mn_gltf_sink sink = {keep, &out};
    mn_error err;
    if (mn_gltf_write(m, NULL, &sink, &err) != MN_OK)
        fail_msg("write: %s", err.message);
    return out;
}

static mn_model *read(const void *data, size_t size)
{
    mn_model *m = NULL;
    mn_error err;
    mn_gltf_options o;
    memset(&o, 0, sizeof o);
    o.copy_input = true;
    if (mn_gltf_read_memory(data, size, &o, &m, &err) != MN_OK)
        fail_msg("read: %s at %s", err.message, err.path);
    return m;
}

/* The GLB's JSON chunk, parsed. */
static json_t *json_of(const bytes *glb)
{
    assert_true(glb->size > 20);
    uint32_t len;
    memcpy(&len, glb->data + 12, 4);
    json_error_t e;
    json_t *root = json_loadb((const char *)glb->data + 20, len, 0, &e);
    if (!root)
        fail_msg("the written JSON does not parse: %s", e.text);
    return root;
}

/* The "name" of element i of array `key`: NULL when it has none. */
static const char *name_of(json_t *root, const char *key, size_t i)
{
    json_t *e = json_array_get(json_object_get(root, key), i);
    assert_non_null(e);
    return json_string_value(json_object_get(e, "name"));
}

static void check_written(const bytes *glb)
{
    json_t *root = json_of(glb);
    assert_null(name_of(root, "nodes", 0));
    assert_string_equal(name_of(root, "nodes", 1), "Armature");
    assert_null(name_of(root, "nodes", 2));
    assert_null(name_of(root, "meshes", 0));
    assert_string_equal(name_of(root, "meshes", 1), "Body");
    assert_null(name_of(root, "materials", 0));
    assert_string_equal(name_of(root, "materials", 1), "Skin");
    assert_null(name_of(root, "animations", 0));
    assert_string_equal(name_of(root, "animations", 1), "Walk");
    json_decref(root);
}

static void check_read(const mn_model *m)
{
    assert_string_equal(m->nodes[0].name, "node0");
    assert_true(m->nodes[0].default_name);
    assert_string_equal(m->nodes[1].name, "Armature");
    assert_false(m->nodes[1].default_name);
    assert_true(m->nodes[2].default_name);
    assert_null(m->meshes[0].name);
    assert_string_equal(m->meshes[1].name, "Body");
    assert_string_equal(m->materials[0].name, "material0");
    assert_true(m->materials[0].default_name);
    assert_false(m->materials[1].default_name);
    assert_string_equal(m->animations[0].name, "anim0");
    assert_true(m->animations[0].default_name);
    assert_string_equal(m->animations[1].name, "Walk");
    assert_false(m->animations[1].default_name);
}

static void test_a_round_trip_writes_only_the_names_the_file_had(void **state)
{
    (void)state;
    mn_model *m = read(GLTF, sizeof GLTF - 1);
    check_read(m);
    bytes first = write_glb(m);
    check_written(&first);
    mn_model *back = read(first.data, first.size);
    check_read(back);
    bytes second = write_glb(back);
    assert_int_equal(second.size, first.size);
    assert_memory_equal(second.data, first.data, first.size);
    free(first.data);
    free(second.data);
    mn_model_free(back);
    mn_model_free(m);
}

static void test_a_built_model_writes_no_name_it_was_not_given(void **state)
{
    (void)state;
    mn_model_builder *b = mn_model_build_begin(NULL);
    const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, times[2] = {0, 1}, moves[6] = {0, 0, 0, 1, 2, 3};
    mn_material mat;
    mn_model_build_material_defaults(&mat);
    uint32_t material = mn_model_build_material(b, &mat);
    uint32_t mesh = mn_model_build_mesh(b, NULL);
    const mn_build_attribute attrs[] = {{"POSITION", mn_model_build_accessor_f32(b, NULL, tri, 3, MN_TYPE_VEC3)}};
    mn_model_build_primitive(b, mesh, MN_MODE_TRIANGLES, attrs, 1, MN_NONE, material);
    uint32_t root = mn_model_build_node(b, NULL, MN_NONE);
    mn_model_build_node_mesh(b, mn_model_build_node(b, "Named", root), mesh, MN_NONE);
    mn_model_build_channel(b, mn_model_build_animation(b, NULL, NULL), root, MN_PATH_TRANSLATION,
                           MN_INTERP_LINEAR, times, moves, 2);
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_model_build_finish(b, &m, &err), MN_OK);
    assert_string_equal(m->nodes[0].name, "node0");
    bytes glb = write_glb(m);
    json_t *root_json = json_of(&glb);
    assert_null(name_of(root_json, "nodes", 0));
    assert_string_equal(name_of(root_json, "nodes", 1), "Named");
    assert_null(name_of(root_json, "meshes", 0));
    assert_null(name_of(root_json, "materials", 0));
    assert_null(name_of(root_json, "animations", 0));
    json_decref(root_json);
    free(glb.data);
    mn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_round_trip_writes_only_the_names_the_file_had),
        cmocka_unit_test(test_a_built_model_writes_no_name_it_was_not_given),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
