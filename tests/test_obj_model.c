/*
 * OBJ to model (obj_model.h): an OBJ with two MTL materials (one textured,
 * one translucent and shiny), a group before any usemtl, polygons, negative
 * indices and a normal that is not unit length becomes one mesh whose
 * primitives are the groups, with their materials; uv v flipped, normals
 * unit; written out and read back equal; the shared pirate (no MTL)
 * converts with default materials.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <marionette/gltf.h>
#include <marionette/obj.h>
#include <marionette/obj_model.h>

#include "assets.h"
#include "counting_alloc.h"
#include "oom_walk.h"
#include "files.h"

static const char OBJ[] =
    "mtllib parts.mtl\n"
    "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\n"
    "vt 0 0\nvt 1 0\nvt 1 1\nvt 0.25 0.75\n"
    "vn 0 0 2\n"
    "f 1 2 5\n"                       /* before any usemtl: no material */
    "usemtl wood\n"
    "f 1/1/1 2/2/1 3/3/1 4/4/1\n"     /* a quad: two triangles */
    "usemtl glass\n"
    "f -5/-4 -4/-3 -3/-2\n";          /* negative indices, no normal: the face normal */

static const char MTL[] =
    "newmtl wood\nKd 0.5 0.25 0.125\nmap_Kd -s 1 1 1 textures\\old wood.png\n"
    "newmtl glass\nKd 0.9 0.9 1\nd 0.5\nNs 98\nKe 0.1 0 0\n";

static mn_status mtl_resolver(void *user, const char *base_dir, const char *uri, mn_bytes *out, mn_error *err)
{
    (void)user;
    (void)base_dir;
    (void)err;
    if (strcmp(uri, "parts.mtl") != 0)
        return MN_IO;
    out->data = (const uint8_t *)MTL;
    out->size = sizeof MTL - 1;
    return MN_OK;
}

static mn_obj *read_obj(void)
{
    mn_obj_options o;
    memset(&o, 0, sizeof o);
    o.resolver.read = mtl_resolver;
    mn_obj *obj = NULL;
    mn_error err;
    if (mn_obj_read_memory(OBJ, sizeof OBJ - 1, &o, &obj, &err) != MN_OK)
        fail_msg("obj: %s", err.message);
    return obj;
}

static const float *floats_of(const mn_model *m, const mn_primitive *p, mn_semantic s)
{
    uint32_t a = mn_primitive_find(p, s, 0);
    return a == MN_NONE ? NULL : mn_accessor_float_view(&m->accessors[a]);
}

static void check_model(const mn_model *m)
{
    assert_int_equal(m->node_count, 1);
    assert_string_equal(m->nodes[0].name, "parts");
    assert_int_equal(m->mesh_count, 1);
    const mn_mesh *mesh = &m->meshes[0];
    assert_int_equal(mesh->primitive_count, 3);
    assert_int_equal(mesh->primitives[0].material, MN_NONE);
    assert_int_equal(mesh->primitives[0].vertex_count, 3);
    assert_int_equal(mesh->primitives[1].vertex_count, 6);
    assert_int_equal(m->material_count, 2);
    const mn_material *wood = &m->materials[mesh->primitives[1].material];
    const mn_material *glass = &m->materials[mesh->primitives[2].material];
    assert_string_equal(wood->name, "wood");
    assert_float_equal(wood->base_color[1], 0.25f, 0);
    assert_float_equal(wood->metallic, 0.0f, 0);
    assert_float_equal(wood->roughness, 1.0f, 0);
    assert_int_equal(wood->alpha_mode, MN_ALPHA_OPAQUE);
    assert_int_not_equal(wood->base_color_texture.texture, MN_NONE);
    const mn_image *img = &m->images[m->textures[wood->base_color_texture.texture].image];
    assert_string_equal(img->uri, "textures/old%20wood.png");
    assert_string_equal(img->mime_type, "image/png");
    assert_string_equal(glass->name, "glass");
    assert_float_equal(glass->base_color[3], 0.5f, 0);
    assert_int_equal(glass->alpha_mode, MN_ALPHA_BLEND);
    assert_float_equal(glass->roughness, sqrtf(2.0f / 100.0f), 1e-7);
    assert_float_equal(glass->emissive[0], 0.1f, 0);
    /* uv: v flipped; normals unit, the face normal where the corner had none. */
    const float *uv = floats_of(m, &mesh->primitives[1], MN_SEMANTIC_TEXCOORD);
    assert_non_null(uv);
    assert_float_equal(uv[1], 1.0f, 0);           /* vt 0 0 */
    assert_float_equal(uv[2 * 2 + 1], 0.0f, 0);   /* vt 1 1 */
    const float *n = floats_of(m, &mesh->primitives[1], MN_SEMANTIC_NORMAL);
    assert_float_equal(n[2], 1.0f, 0);            /* vn 0 0 2, normalised */
    n = floats_of(m, &mesh->primitives[2], MN_SEMANTIC_NORMAL);
    assert_float_equal(n[2], 1.0f, 1e-7);         /* v1 v2 v3 lie in z = 0, counter-clockwise: +z */
    const float *pos = floats_of(m, &mesh->primitives[2], MN_SEMANTIC_POSITION);
    assert_float_equal(pos[3], 1.0f, 0);          /* -4 of 5 v: v2 = (1 0 0) */
    assert_float_equal(pos[7], 1.0f, 0);          /* -3: v3 = (1 1 0) */
}

static void test_groups_become_primitives_with_their_materials(void **state)
{
    (void)state;
    mn_obj *obj = read_obj();
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_model_from_obj(obj, "parts", NULL, &m, &err), MN_OK);
    check_model(m);
    /* Written and read back: the same model (the texture file is not there: a warning, nothing else). */
    char dir[64], path[96];
    mn_test_make_temp_dir(dir, sizeof dir, "obj_model");
    snprintf(path, sizeof path, "%s/parts.glb", dir);
    assert_int_equal(mn_gltf_write_file(m, path, NULL, &err), MN_OK);
    mn_model *back = NULL;
    assert_int_equal(mn_gltf_read_file(path, NULL, &back, &err), MN_OK);
    check_model(back);
    assert_int_equal(back->warning_count, 1);
    mn_model_free(back);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
    mn_model_free(m);
    mn_obj_free(obj);
}

static void test_pirate_without_its_mtl_converts_with_default_materials(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_obj *obj = NULL;
    mn_error err;
    assert_int_equal(mn_obj_read_file(mn_test_asset("obj/pirate/pirate.obj"), NULL, &obj, &err), MN_OK);
    mn_model *m = NULL;
    assert_int_equal(mn_model_from_obj(obj, NULL, NULL, &m, &err), MN_OK);
    assert_string_equal(m->nodes[0].name, "obj");
    assert_int_equal(m->meshes[0].primitive_count, obj->group_count);
    uint32_t vertices = 0;
    for (uint32_t g = 0; g < obj->group_count; g++)
        vertices += m->meshes[0].primitives[g].vertex_count;
    uint32_t expected = 0;
    for (uint32_t g = 0; g < obj->group_count; g++)
        expected += obj->groups[g].vertex_count;
    assert_int_equal(vertices, expected);
    for (uint32_t i = 0; i < m->material_count; i++)
        assert_float_equal(m->materials[i].base_color[0], 0.7f, 1e-7);   /* MTL's default Kd */
    for (int k = 0; k < 3; k++) {
        assert_float_equal(m->bounds_min[k], obj->bounds_min[k], 1e-6);
        assert_float_equal(m->bounds_max[k], obj->bounds_max[k], 1e-6);
    }
    mn_model_free(m);
    mn_obj_free(obj);
}

static mn_status make_parts(const mn_allocator *hooks, void *ctx, mn_model **out, mn_error *err)
{
    return mn_model_from_obj(ctx, "parts", hooks, out, err);
}

static void test_out_of_memory_and_bad_arguments(void **state)
{
    (void)state;
    mn_obj *obj = read_obj();
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_model_from_obj(NULL, NULL, NULL, &m, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_model_from_obj(obj, NULL, NULL, NULL, &err), MN_INVALID_ARGUMENT);
    mn_test_model_oom_walk(make_parts, obj);
    mn_obj_free(obj);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups_become_primitives_with_their_materials),
        cmocka_unit_test(test_pirate_without_its_mtl_converts_with_default_materials),
        cmocka_unit_test(test_out_of_memory_and_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
