/*
 * Part meshes (voxel-rig-format.md "Artifacts of one model"): the voxel arm
 * in tests/data (every part, the socket and the skinned mesh, with exact
 * values), GLBs built byte by byte for each encoding the format allows
 * (interleaved, u16/u32/no indices, float and normalized COLOR_0, VEC3 and
 * VEC4, no colour, no normals, node transforms, scenes), hand-built models
 * for what a reader never lets through, out-of-memory at every allocation,
 * and that regenerating tests/data/voxel_arm gives identical bytes.
 */
#define _POSIX_C_SOURCE 200809L /* rmdir */

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
#include <marionette/voxel/rig.h>

#include "counting_alloc.h"
#include "glb_builder.h"
#include "files.h"

#define DATA "tests/data/voxel_arm/"
#define ASSET "'asset':{'version':'2.0'}"

enum { U8 = 5121, U16 = 5123, U32 = 5125, F32 = 5126 };

/* ---- helpers ----------------------------------------------------------------------------------- */

static mn_model *load(const gb_builder *b)
{
    gb_blob glb = gb_glb(b);
    mn_gltf_options options;
    memset(&options, 0, sizeof options);
    options.copy_input = true;
    mn_model *model = NULL;
    mn_error err;
    mn_status st = mn_gltf_read_memory(glb.data, glb.size, &options, &model, &err);
    if (st != MN_OK)
        print_error("the test GLB does not load: %s\n", err.message);
    assert_int_equal(st, MN_OK);
    gb_blob_free(&glb);
    return model;
}

static mn_part_mesh *decode(const mn_model *model, bool skinned)
{
    mn_part_mesh *mesh = NULL;
    mn_error err;
    mn_status st = mn_part_mesh_from_model(model, skinned, NULL, &mesh, &err);
    if (st != MN_OK)
        print_error("decoding failed: %s\n", err.message);
    assert_int_equal(st, MN_OK);
    assert_non_null(mesh);
    return mesh;
}

/* Load the builder's GLB and decode it as a plain part. */
static mn_part_mesh *decode_builder(const gb_builder *b)
{
    mn_model *model = load(b);
    mn_part_mesh *mesh = decode(model, false);
    mn_model_free(model);
    return mesh;
}

static mn_part_mesh *read_data(const char *name, bool skinned)
{
    mn_part_mesh *mesh = NULL;
    mn_error err;
    mn_status st = mn_part_mesh_read_file(name, skinned, NULL, &mesh, &err);
    if (st != MN_OK)
        print_error("%s: %s\n", name, err.message);
    assert_int_equal(st, MN_OK);
    return mesh;
}

static void assert_vec3(const float *got, float x, float y, float z, float tolerance)
{
    if (fabsf(got[0] - x) > tolerance || fabsf(got[1] - y) > tolerance || fabsf(got[2] - z) > tolerance) {
        print_error("got (%.9g, %.9g, %.9g), expected (%.9g, %.9g, %.9g)\n", (double)got[0], (double)got[1],
                    (double)got[2], (double)x, (double)y, (double)z);
        fail();
    }
}

/*
 * Every triangle winds counter-clockwise seen from the side its vertex normals
 * point to, every normal is a unit vector, and every index is in range: what
 * a renderer needs of a part mesh whatever its encoding.
 */
static void assert_consistent(const mn_part_mesh *m)
{
    assert_int_equal(m->index_count % 3, 0);
    for (uint32_t i = 0; i < m->index_count; i++)
        assert_true(m->indices[i] < m->vertex_count);
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *n = m->normals + 3 * v;
        assert_true(fabsf(sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) - 1.0f) < 1e-5f);
    }
    for (uint32_t t = 0; t < m->index_count; t += 3) {
        const float *a = m->positions + 3 * m->indices[t], *b = m->positions + 3 * m->indices[t + 1],
                    *c = m->positions + 3 * m->indices[t + 2];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float face[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int k = 0; k < 3; k++) {
            const float *n = m->normals + 3 * m->indices[t + k];
            assert_true(face[0] * n[0] + face[1] * n[1] + face[2] * n[2] > 0.0f);
        }
    }
}

/* Min and max of the positions. */
static void bounds(const mn_part_mesh *m, float lo[3], float hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (uint32_t v = 0; v < m->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], m->positions[3 * v + k]);
            hi[k] = fmaxf(hi[k], m->positions[3 * v + k]);
        }
}

static void assert_box(const mn_part_mesh *m, float x0, float y0, float z0, float x1, float y1, float z1)
{
    float lo[3], hi[3];
    bounds(m, lo, hi);
    assert_vec3(lo, x0, y0, z0, 0.0f);
    assert_vec3(hi, x1, y1, z1, 0.0f);
}

/* The cube mesher's index pattern: face f is (4f, 4f+1, 4f+2), (4f, 4f+2, 4f+3). */
static void assert_box_indices(const mn_part_mesh *m)
{
    static const uint32_t tri[6] = {0, 1, 2, 0, 2, 3};
    assert_int_equal(m->index_count, 36);
    for (uint32_t i = 0; i < 36; i++)
        assert_int_equal(m->indices[i], 4 * (i / 6) + tri[i % 6]);
}

/* ---- the voxel arm in tests/data --------------------------------------------------------------- */

static void test_base_part_separate_views_float_colour_u16_indices(void **state)
{
    (void)state;
    mn_part_mesh *m = read_data(DATA "meshes/base.glb", false);
    assert_int_equal(m->vertex_count, 24);
    assert_box_indices(m);
    assert_box(m, 0, 0, 0, 4, 2, 4);
    assert_vec3(m->positions, 4, 0, 0, 0.0f);  /* +X face, first corner */
    assert_vec3(m->normals, 1, 0, 0, 0.0f);
    assert_vec3(m->positions + 3 * 8, 0, 2, 0, 0.0f);  /* +Y face */
    assert_vec3(m->normals + 3 * 8, 0, 1, 0, 0.0f);
    for (uint32_t v = 0; v < 24; v++)
        assert_vec3(m->colors + 3 * v, 0.25f, 0.5f, 0.75f, 0.0f);
    assert_int_equal(m->bone_count, 0);
    assert_null(m->joints);
    assert_null(m->weights);
    assert_consistent(m);
    mn_part_mesh_free(m);
}

static void test_upper_part_interleaved_vec4_colour_u32_indices(void **state)
{
    (void)state;
    mn_part_mesh *m = read_data(DATA "meshes/upper.glb", false);
    assert_int_equal(m->vertex_count, 24);
    assert_box_indices(m);
    assert_box(m, 1, 2, 1, 3, 6, 3);
    assert_vec3(m->positions, 3, 2, 1, 0.0f);
    assert_vec3(m->normals + 3 * 4, -1, 0, 0, 0.0f); /* -X face */
    for (uint32_t v = 0; v < 24; v++)
        assert_vec3(m->colors + 3 * v, 1.0f, 0.5f, 0.0f, 0.0f); /* alpha 0.5 dropped */
    assert_consistent(m);
    mn_part_mesh_free(m);
}

static void test_fore_part_without_normals_is_flat_and_placed_by_its_node(void **state)
{
    (void)state;
    mn_part_mesh *m = read_data(DATA "meshes/fore.glb", false);
    /* No NORMAL: one vertex per corner, indices 0..35, face normals. */
    assert_int_equal(m->vertex_count, 36);
    assert_int_equal(m->index_count, 36);
    for (uint32_t i = 0; i < 36; i++)
        assert_int_equal(m->indices[i], i);
    /* The node's translation (0, 6, 0) places the local [0,4] box at [6,10]. */
    assert_box(m, 1, 6, 1, 3, 10, 3);
    assert_vec3(m->positions, 3, 6, 1, 0.0f);
    static const float face_normals[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (uint32_t c = 0; c < 36; c++) {
        uint32_t f = c / 6;
        assert_vec3(m->normals + 3 * c, face_normals[f][0], face_normals[f][1], face_normals[f][2], 0.0f);
        /* u8 normalized VEC4: one colour a face, from each corner's source vertex. */
        assert_vec3(m->colors + 3 * c, (float)(51 * f) / 255.0f, (float)(255 - 51 * f) / 255.0f, 128.0f / 255.0f,
                    1e-7f);
    }
    assert_consistent(m);
    mn_part_mesh_free(m);
}

static void test_socket_part_is_an_empty_mesh(void **state)
{
    (void)state;
    mn_part_mesh *m = read_data(DATA "meshes/tip.glb", false);
    assert_int_equal(m->vertex_count, 0);
    assert_int_equal(m->index_count, 0);
    assert_int_equal(m->bone_count, 0);
    assert_non_null(m->positions); /* valid (empty) arrays, safe to hand to memcpy */
    assert_non_null(m->indices);
    mn_part_mesh_free(m);
}

static void test_every_part_of_the_rig_has_its_file(void **state)
{
    (void)state;
    mn_voxel_rig *rig = NULL;
    assert_int_equal(mn_voxel_rig_read_file(DATA "rig.json", NULL, &rig, NULL), MN_OK);
    uint32_t sockets = 0;
    for (uint32_t p = 0; p < rig->part_count; p++) {
        char path[256];
        snprintf(path, sizeof path, DATA "meshes/%s.glb", rig->parts[p].name);
        mn_part_mesh *m = read_data(path, false);
        sockets += m->vertex_count == 0;
        mn_part_mesh_free(m);
    }
    assert_int_equal(sockets, 1);
    mn_voxel_rig_free(rig);
}

static void test_skinned_mesh_with_its_bones(void **state)
{
    (void)state;
    mn_part_mesh *m = read_data(DATA "skinned/mesh.glb", true);
    assert_int_equal(m->vertex_count, 72);
    assert_int_equal(m->index_count, 108);
    assert_box(m, 0, 0, 0, 4, 10, 4); /* as authored */
    assert_vec3(m->positions + 3 * 48, 3, 6, 1, 0.0f);
    assert_int_equal(m->bone_count, 4);
    const char *names[] = {"base", "upper", "fore", "tail"};
    const float pivots[4][3] = {{2, 0, 2}, {2, 2, 2}, {2, 6, 2}, {2, 10, 2}};
    for (uint32_t b = 0; b < 4; b++) {
        assert_string_equal(m->bone_names[b], names[b]);
        const float *ib = m->inverse_bind + 16 * b;
        for (int k = 0; k < 12; k++)
            assert_true(ib[k] == (k % 5 == 0 ? 1.0f : 0.0f));
        assert_vec3(ib + 12, -pivots[b][0], -pivots[b][1], -pivots[b][2], 0.0f);
        assert_true(ib[15] == 1.0f);
    }
    for (uint32_t v = 0; v < 72; v++) {
        uint32_t box = v / 24;
        bool top = box == 2 && m->positions[3 * v + 1] == 10.0f;
        assert_int_equal(m->joints[4 * v], box);
        assert_int_equal(m->joints[4 * v + 1], top ? 3 : 0);
        assert_true(m->weights[4 * v] == (top ? 0.75f : 1.0f));
        assert_true(m->weights[4 * v + 1] == (top ? 0.25f : 0.0f));
        assert_true(m->weights[4 * v + 2] == 0.0f && m->weights[4 * v + 3] == 0.0f);
    }
    assert_vec3(m->colors + 3 * 30, 1.0f, 0.5f, 0.0f, 0.0f);
    assert_consistent(m);

    /* The rig's parts are the bones, matched by name; "tail" matches none. */
    mn_voxel_rig *rig = NULL;
    assert_int_equal(mn_voxel_rig_read_file(DATA "skinned/rig.json", NULL, &rig, NULL), MN_OK);
    uint32_t parts[4];
    mn_voxel_bone_parts(rig, m, parts);
    assert_int_equal(parts[0], 0);
    assert_int_equal(parts[1], 1);
    assert_int_equal(parts[2], 2);
    assert_int_equal(parts[3], MN_NONE);
    mn_voxel_rig_free(rig);
    mn_part_mesh_free(m);

    /* Read as a plain part, the same file is just its geometry. */
    m = read_data(DATA "skinned/mesh.glb", false);
    assert_int_equal(m->vertex_count, 72);
    assert_int_equal(m->bone_count, 0);
    assert_null(m->joints);
    mn_part_mesh_free(m);
}

static void test_skinned_asked_of_an_unskinned_glb_fails(void **state)
{
    (void)state;
    mn_part_mesh *m = (mn_part_mesh *)(uintptr_t)1;
    mn_error err;
    assert_int_equal(mn_part_mesh_read_file(DATA "meshes/base.glb", true, NULL, &m, &err), MN_INVALID_VALUE);
    assert_null(m);
    assert_int_equal(err.code, MN_INVALID_VALUE);
    assert_int_equal(mn_part_mesh_read_file(DATA "meshes/tip.glb", true, NULL, &m, &err), MN_INVALID_VALUE);
    /* A missing part file is an error (the glTF reader's). */
    assert_int_equal(mn_part_mesh_read_file(DATA "meshes/nope.glb", false, NULL, &m, &err), MN_IO);
    assert_null(m);
    assert_int_equal(mn_part_mesh_read_file(NULL, false, NULL, &m, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_part_mesh_from_model(NULL, false, NULL, &m, &err), MN_INVALID_ARGUMENT);
    mn_part_mesh_free(NULL);
}

/* ---- every encoding, byte by byte -------------------------------------------------------------- */

/*
 * A triangle (0,0,0) (1,0,0) (0,1,0) facing +Z with the given COLOR_0 (accessor JSON and the
 * function writing its bytes; color_stride: its view has byteStride 4) and index encoding
 * (U16, U32, or 0 for none).
 */
static void triangle(gb_builder *b, const char *color_json, size_t (*put_color)(gb_builder *), int color_stride,
                     int index_type)
{
    size_t pos = gb_bin_f32(b, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    size_t nrm = gb_bin_f32(b, 0, 0, 1, 0, 0, 1, 0, 0, 1);
    size_t col = put_color ? put_color(b) : 0;
    size_t col_end = gb_bin_size(b);
    size_t idx = index_type == U16 ? gb_bin_u16(b, 2, 0, 1) : index_type == U32 ? gb_bin_u32(b, 2, 0, 1) : 0;
    size_t end = gb_bin_align(b, 4);
    gb_json(b, "{" ASSET ",'scene':0,'scenes':[{'nodes':[0]}],'nodes':[{'mesh':0}],"
               "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'NORMAL':1%s}%s}]}],"
               "'accessors':[{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3','min':[0,0,0],'max':[1,1,0]},"
               "{'bufferView':1,'componentType':5126,'count':3,'type':'VEC3'}",
            put_color ? ",'COLOR_0':2" : "", index_type ? (put_color ? ",'indices':3" : ",'indices':2") : "");
    if (put_color)
        gb_json(b, ",%s", color_json);
    if (index_type)
        gb_json(b, ",{'bufferView':%d,'componentType':%d,'count':3,'type':'SCALAR'}", put_color ? 3 : 2, index_type);
    gb_json(b, "],'bufferViews':[{'buffer':0,'byteOffset':%zu,'byteLength':36},{'buffer':0,'byteOffset':%zu,'byteLength':36}",
            pos, nrm);
    if (put_color)
        gb_json(b, ",{'buffer':0,'byteOffset':%zu,'byteLength':%zu%s}", col, col_end - col,
                color_stride ? ",'byteStride':4" : "");
    if (index_type)
        gb_json(b, ",{'buffer':0,'byteOffset':%zu,'byteLength':%d}", idx, index_type == U16 ? 6 : 12);
    gb_json(b, "],'buffers':[{'byteLength':%zu}]}", end);
}

static size_t float_rgb(gb_builder *b) { return gb_bin_f32(b, 1, 0, 0, 0, 1, 0, 0, 0.5f, 1); }
static size_t unorm16_rgba(gb_builder *b) { return gb_bin_u16(b, 65535, 0, 0, 0, 0, 32768, 65535, 65535, 0, 65535, 0, 0); }
static size_t unorm8_rgb(gb_builder *b) { return gb_bin_u8(b, 255, 0, 0, 0, 0, 255, 0, 0, 0, 0, 51, 0); }

static void assert_triangle(const mn_part_mesh *m)
{
    assert_int_equal(m->vertex_count, 3);
    assert_int_equal(m->index_count, 3);
    assert_vec3(m->positions + 3, 1, 0, 0, 0.0f);
    assert_vec3(m->normals + 6, 0, 0, 1, 0.0f);
    assert_consistent(m);
}

static void test_u16_indices_and_float_vec3_colour(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    triangle(&b, "{'bufferView':2,'componentType':5126,'count':3,'type':'VEC3'}", float_rgb, 0, U16);
    mn_part_mesh *m = decode_builder(&b);
    assert_triangle(m);
    assert_int_equal(m->indices[0], 2);
    assert_int_equal(m->indices[1], 0);
    assert_int_equal(m->indices[2], 1);
    assert_vec3(m->colors + 6, 0, 0.5f, 1, 0.0f);
    mn_part_mesh_free(m);
    gb_free(&b);
}

static void test_u32_indices_and_normalized_u16_vec4_colour(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    triangle(&b, "{'bufferView':2,'componentType':5123,'normalized':true,'count':3,'type':'VEC4'}", unorm16_rgba, 0, U32);
    mn_part_mesh *m = decode_builder(&b);
    assert_triangle(m);
    assert_int_equal(m->indices[0], 2);
    assert_vec3(m->colors, 1, 0, 0, 0.0f);
    assert_vec3(m->colors + 3, 0, 32768.0f / 65535.0f, 1, 1e-7f);
    assert_vec3(m->colors + 6, 0, 1, 0, 0.0f);
    mn_part_mesh_free(m);
    gb_free(&b);
}

static void test_no_indices_and_normalized_u8_vec3_colour(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    /* u8 VEC3 elements are padded to 4 bytes: byteStride 4. */
    triangle(&b, "{'bufferView':2,'componentType':5121,'normalized':true,'count':3,'type':'VEC3'}", unorm8_rgb, 4, 0);
    mn_part_mesh *m = decode_builder(&b);
    assert_triangle(m);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(m->indices[i], i);
    assert_vec3(m->colors, 1, 0, 0, 0.0f);
    assert_vec3(m->colors + 3, 0, 1, 0, 0.0f);
    assert_vec3(m->colors + 6, 0, 0, 0.2f, 1e-7f);
    mn_part_mesh_free(m);
    gb_free(&b);
}

static void test_no_colour_is_white(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    triangle(&b, NULL, NULL, 0, U16);
    mn_part_mesh *m = decode_builder(&b);
    assert_triangle(m);
    for (uint32_t v = 0; v < 3; v++)
        assert_vec3(m->colors + 3 * v, 1, 1, 1, 0.0f);
    mn_part_mesh_free(m);
    gb_free(&b);
}

static void test_interleaved_attributes(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    /* position(3) normal(3) colour(3) per vertex, stride 36; a quad of two triangles. */
    gb_bin_f32(&b, 0, 0, 0, 0, 0, 1, 0.1f, 0.2f, 0.3f,
                   2, 0, 0, 0, 0, 1, 0.4f, 0.5f, 0.6f,
                   2, 2, 0, 0, 0, 1, 0.7f, 0.8f, 0.9f,
                   0, 2, 0, 0, 0, 1, 1.0f, 1.0f, 0.0f);
    size_t idx = gb_bin_u16(&b, 0, 1, 2, 0, 2, 3);
    gb_json(&b, "{" ASSET ",'nodes':[{'mesh':0}],'scenes':[{'nodes':[0]}],"
                "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'NORMAL':1,'COLOR_0':2},'indices':3}]}],"
                "'accessors':[{'bufferView':0,'byteOffset':0,'componentType':5126,'count':4,'type':'VEC3','min':[0,0,0],'max':[2,2,0]},"
                "{'bufferView':0,'byteOffset':12,'componentType':5126,'count':4,'type':'VEC3'},"
                "{'bufferView':0,'byteOffset':24,'componentType':5126,'count':4,'type':'VEC3'},"
                "{'bufferView':1,'componentType':5123,'count':6,'type':'SCALAR'}],"
                "'bufferViews':[{'buffer':0,'byteOffset':0,'byteLength':144,'byteStride':36},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':12}],'buffers':[{'byteLength':%zu}]}",
            idx, gb_bin_align(&b, 4));
    mn_part_mesh *m = decode_builder(&b);
    assert_int_equal(m->vertex_count, 4);
    assert_int_equal(m->index_count, 6);
    assert_vec3(m->positions + 6, 2, 2, 0, 0.0f);
    assert_vec3(m->normals + 9, 0, 0, 1, 0.0f);
    assert_vec3(m->colors + 3, 0.4f, 0.5f, 0.6f, 0.0f);
    assert_int_equal(m->indices[5], 3);
    assert_consistent(m);
    mn_part_mesh_free(m);
    gb_free(&b);
}

static void test_node_world_places_positions_and_normals(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    /* A triangle in the plane x + y = 1 (normal (1,1,0)/√2) under parent T(10,0,0), child S(2,1,1). */
    const float s = 0.70710678f;
    gb_bin_f32(&b, 1, 0, 0, 0, 1, 0, 1, 0, 1);
    gb_bin_f32(&b, s, s, 0, s, s, 0, s, s, 0);
    gb_json(&b, "{" ASSET ",'scene':0,'scenes':[{'nodes':[0]}],"
                "'nodes':[{'translation':[10,0,0],'children':[1]},{'scale':[2,1,1],'mesh':0}],"
                "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'NORMAL':1}}]}],"
                "'accessors':[{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3','min':[0,0,0],'max':[1,1,1]},"
                "{'bufferView':0,'byteOffset':36,'componentType':5126,'count':3,'type':'VEC3'}],"
                "'bufferViews':[{'buffer':0,'byteLength':72}],'buffers':[{'byteLength':72}]}");
    mn_part_mesh *m = decode_builder(&b);
    assert_int_equal(m->vertex_count, 3);
    assert_vec3(m->positions, 12, 0, 0, 0.0f);
    assert_vec3(m->positions + 3, 10, 1, 0, 0.0f);
    assert_vec3(m->positions + 6, 12, 0, 1, 0.0f);
    /* Normals by the inverse-transpose: (1/2, 1, 0) renormalised, which is still ⟂ to the placed plane. */
    const float len = sqrtf(1.25f);
    for (uint32_t v = 0; v < 3; v++)
        assert_vec3(m->normals + 3 * v, 0.5f / len, 1.0f / len, 0, 1e-6f);
    mn_part_mesh_free(m);
    gb_free(&b);
}

/* Two meshes on four nodes: only the default scene's trees count, and primitives concatenate. */
static void scene_model(gb_builder *b, const char *scene_json)
{
    gb_bin_f32(b, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    gb_bin_u16(b, 0, 1, 2);
    gb_bin_align(b, 4);
    gb_bin_f32(b, 0, 0, 0, 0, 0, 1, 1, 0, 0);
    gb_json(b, "{" ASSET "%s,'nodes':[{'name':'a','mesh':0},{'name':'b','mesh':1,'translation':[0,0,5]},"
               "{'name':'c','mesh':0,'translation':[7,0,0]},{'name':'d','children':[2]}],"
               "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'indices':1},"
               "{'attributes':{'POSITION':0},'mode':0},{'attributes':{'POSITION':0},'mode':3}]},"
               "{'primitives':[{'attributes':{'POSITION':2}},{'attributes':{'POSITION':0},'indices':1}]}],"
               "'accessors':[{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3','min':[0,0,0],'max':[1,1,0]},"
               "{'bufferView':1,'componentType':5123,'count':3,'type':'SCALAR'},"
               "{'bufferView':2,'componentType':5126,'count':3,'type':'VEC3','min':[0,0,0],'max':[1,0,1]}],"
               "'bufferViews':[{'buffer':0,'byteLength':36},{'buffer':0,'byteOffset':36,'byteLength':6},"
               "{'buffer':0,'byteOffset':44,'byteLength':36}],'buffers':[{'byteLength':80}]}",
            scene_json);
}

static void test_only_the_default_scene_counts(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    /* Scene 1 is the default: node b (mesh 1: two triangles) and d → c (mesh 0: one triangle). */
    scene_model(&b, ",'scene':1,'scenes':[{'nodes':[0]},{'nodes':[1,3]}]");
    mn_part_mesh *m = decode_builder(&b);
    /* node order: b (1), then d (3) → c (2).  Points and lines add nothing. */
    assert_int_equal(m->vertex_count, 3 + 3 + 3);
    assert_int_equal(m->index_count, 9);
    assert_vec3(m->positions + 3 * 2, 1, 0, 5, 0.0f);   /* b's first primitive, flat (no NORMAL) */
    assert_vec3(m->normals, 0, 1, 0, 0.0f);
    assert_vec3(m->positions + 3 * 4, 1, 0, 5, 0.0f);   /* b's second primitive: indexed, still flat */
    assert_vec3(m->positions + 3 * 7, 8, 0, 0, 0.0f);   /* c, under d */
    for (uint32_t i = 0; i < 9; i++)
        assert_int_equal(m->indices[i], i);
    assert_consistent(m);
    mn_part_mesh_free(m);
    gb_free(&b);

    /* Without "scene", scene 0: node a only. */
    gb_init(&b);
    scene_model(&b, ",'scenes':[{'nodes':[0]},{'nodes':[1,3]}]");
    m = decode_builder(&b);
    assert_int_equal(m->vertex_count, 3);
    assert_vec3(m->positions + 3, 1, 0, 0, 0.0f);
    mn_part_mesh_free(m);
    gb_free(&b);

    /* Without scenes, every root: a, b, d → c. */
    gb_init(&b);
    scene_model(&b, "");
    m = decode_builder(&b);
    assert_int_equal(m->vertex_count, 12);
    mn_part_mesh_free(m);
    gb_free(&b);
}

static void test_empty_glbs_are_sockets(void **state)
{
    (void)state;
    static const char *const documents[] = {
        "{" ASSET "}",
        "{" ASSET ",'scenes':[{'nodes':[]}],'scene':0}",
        "{" ASSET ",'scenes':[{'nodes':[0]}],'nodes':[{'name':'muzzle','extras':{'socket':true}}]}",
    };
    for (size_t i = 0; i < sizeof documents / sizeof documents[0]; i++) {
        gb_builder b;
        gb_init(&b);
        gb_json(&b, "%s", documents[i]);
        mn_part_mesh *m = decode_builder(&b);
        assert_int_equal(m->vertex_count, 0);
        assert_int_equal(m->index_count, 0);
        mn_part_mesh_free(m);
        gb_free(&b);
    }
}

static void test_triangle_strip_is_decoded_as_triangles(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_bin_f32(&b, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0);
    gb_json(&b, "{" ASSET ",'nodes':[{'mesh':0}],'scenes':[{'nodes':[0]}],"
                "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'mode':5}]}],"
                "'accessors':[{'bufferView':0,'componentType':5126,'count':4,'type':'VEC3','min':[0,0,0],'max':[1,1,0]}],"
                "'bufferViews':[{'buffer':0,'byteLength':48}],'buffers':[{'byteLength':48}]}");
    mn_part_mesh *m = decode_builder(&b);
    assert_int_equal(m->index_count, 6);
    assert_int_equal(m->vertex_count, 6); /* no NORMAL: one vertex a corner */
    for (uint32_t v = 0; v < 6; v++)
        assert_vec3(m->normals + 3 * v, 0, 0, 1, 0.0f);
    assert_consistent(m);
    mn_part_mesh_free(m);
    gb_free(&b);
}

static void test_skinned_primitive_without_normals_carries_influences_per_corner(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t pos = gb_bin_f32(&b, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0);
    size_t jnt = gb_bin_u16(&b, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0);
    size_t wgt = gb_bin_f32(&b, 1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0);
    size_t idx = gb_bin_u16(&b, 0, 1, 2, 2, 1, 3);
    size_t ibm = gb_bin_f32(&b, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 1);
    gb_json(&b, "{" ASSET ",'scene':0,'scenes':[{'nodes':[0,1]}],"
                "'nodes':[{'name':'skin','mesh':0,'skin':0,'translation':[100,0,0]},"
                "{'name':'root','children':[2]},{'name':'arm','translation':[1,0,0]}],"
                "'skins':[{'joints':[1,2],'inverseBindMatrices':4}],"
                "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'JOINTS_0':1,'WEIGHTS_0':2},'indices':3}]}],"
                "'accessors':[{'bufferView':0,'componentType':5126,'count':4,'type':'VEC3','min':[0,0,0],'max':[1,1,0]},"
                "{'bufferView':1,'componentType':5123,'count':4,'type':'VEC4'},"
                "{'bufferView':2,'componentType':5126,'count':4,'type':'VEC4'},"
                "{'bufferView':3,'componentType':5123,'count':6,'type':'SCALAR'},"
                "{'bufferView':4,'componentType':5126,'count':2,'type':'MAT4'}],"
                "'bufferViews':[{'buffer':0,'byteOffset':%zu,'byteLength':48},{'buffer':0,'byteOffset':%zu,'byteLength':32},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':64},{'buffer':0,'byteOffset':%zu,'byteLength':12},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':128}],'buffers':[{'byteLength':%zu}]}",
            pos, jnt, wgt, idx, ibm, gb_bin_align(&b, 4));
    mn_model *model = load(&b);
    mn_part_mesh *m = decode(model, true);
    assert_int_equal(m->vertex_count, 6);
    assert_int_equal(m->index_count, 6);
    /* Positions as authored: the skinned node's translation is ignored, as glTF says. */
    assert_vec3(m->positions + 3 * 5, 1, 1, 0, 0.0f);
    /* Corner 3 is vertex 2: joints (0, 1), weights (0.5, 0.5). */
    assert_int_equal(m->joints[4 * 3], 0);
    assert_int_equal(m->joints[4 * 3 + 1], 1);
    assert_true(m->weights[4 * 3] == 0.5f && m->weights[4 * 3 + 1] == 0.5f);
    assert_int_equal(m->joints[4 * 1], 1);
    assert_int_equal(m->bone_count, 2);
    assert_string_equal(m->bone_names[0], "root");
    assert_string_equal(m->bone_names[1], "arm");
    assert_true(m->inverse_bind[16 + 12] == -1.0f);
    for (uint32_t v = 0; v < 6; v++)
        assert_vec3(m->colors + 3 * v, 1, 1, 1, 0.0f);
    assert_consistent(m);
    mn_part_mesh_free(m);

    /* Without a rig every bone is unmatched. */
    uint32_t parts[2] = {7, 7};
    m = decode(model, true);
    mn_voxel_bone_parts(NULL, m, parts);
    assert_int_equal(parts[0], MN_NONE);
    assert_int_equal(parts[1], MN_NONE);
    mn_part_mesh_free(m);
    mn_model_free(model);
    gb_free(&b);
}

/* ---- what only a hand-built model can hold ----------------------------------------------------- */

static void test_hand_built_model_with_bad_indices_is_refused(void **state)
{
    (void)state;
    static const float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    static const uint32_t indices[3] = {0, 1, 3};
    mn_accessor accessors[2];
    memset(accessors, 0, sizeof accessors);
    accessors[0] = (mn_accessor){.data = (const uint8_t *)positions, .count = 3, .stride = 12,
                                 .component = MN_COMPONENT_F32, .type = MN_TYPE_VEC3, .buffer_view = MN_NONE};
    accessors[1] = (mn_accessor){.data = (const uint8_t *)indices, .count = 3, .stride = 4,
                                 .component = MN_COMPONENT_U32, .type = MN_TYPE_SCALAR, .buffer_view = MN_NONE};
    mn_attribute attribute = {.name = "POSITION", .semantic = MN_SEMANTIC_POSITION, .set = 0, .accessor = 0};
    mn_primitive prim = {.mode = MN_MODE_TRIANGLES, .original_mode = MN_MODE_TRIANGLES, .indices = 1,
                         .material = MN_NONE, .attributes = &attribute, .attribute_count = 1, .vertex_count = 3};
    mn_mesh mesh = {.primitives = &prim, .primitive_count = 1};
    mn_node node = {.name = "n", .parent = MN_NONE, .rotation = {0, 0, 0, 1}, .scale = {1, 1, 1},
                    .mesh = 0, .skin = MN_NONE, .camera = MN_NONE};
    mn_model model;
    memset(&model, 0, sizeof model);
    model.accessors = accessors;
    model.accessor_count = 2;
    model.meshes = &mesh;
    model.mesh_count = 1;
    model.nodes = &node;
    model.node_count = 1;
    model.scene = MN_NONE;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_part_mesh *m = NULL;
    mn_error err;
    assert_int_equal(mn_part_mesh_from_model(&model, false, &hooks, &m, &err), MN_INDEX_RANGE);
    assert_string_equal(err.path, "meshes[0].primitives[0].indices");
    assert_null(m);
    assert_int_equal(counter.live_bytes, 0);

    /* With a valid index the same model decodes (no node_order: index order). */
    static const uint32_t good[3] = {0, 1, 2};
    accessors[1].data = (const uint8_t *)good;
    assert_int_equal(mn_part_mesh_from_model(&model, false, &hooks, &m, &err), MN_OK);
    assert_int_equal(m->vertex_count, 3);
    mn_part_mesh_free(m);
    assert_int_equal(counter.live_bytes, 0);
}

static void test_hand_built_skinned_model_is_checked(void **state)
{
    (void)state;
    static const float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    static const float normals[9] = {0, 0, 2, 0, 0, 0, 0, 0, 0.5f}; /* not unit, and a zero one */
    uint16_t joints[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const float weights[12] = {1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    mn_accessor accessors[4];
    memset(accessors, 0, sizeof accessors);
    accessors[0] = (mn_accessor){.data = (const uint8_t *)positions, .count = 3, .stride = 12,
                                 .component = MN_COMPONENT_F32, .type = MN_TYPE_VEC3, .buffer_view = MN_NONE};
    accessors[1] = accessors[0];
    accessors[1].data = (const uint8_t *)normals;
    accessors[2] = (mn_accessor){.data = (const uint8_t *)joints, .count = 3, .stride = 8,
                                 .component = MN_COMPONENT_U16, .type = MN_TYPE_VEC4, .buffer_view = MN_NONE};
    accessors[3] = (mn_accessor){.data = (const uint8_t *)weights, .count = 3, .stride = 16,
                                 .component = MN_COMPONENT_F32, .type = MN_TYPE_VEC4, .buffer_view = MN_NONE};
    mn_attribute attributes[4] = {{"POSITION", MN_SEMANTIC_POSITION, 0, 0}, {"NORMAL", MN_SEMANTIC_NORMAL, 0, 1},
                                  {"JOINTS_0", MN_SEMANTIC_JOINTS, 0, 2}, {"WEIGHTS_0", MN_SEMANTIC_WEIGHTS, 0, 3}};
    mn_primitive prim = {.mode = MN_MODE_TRIANGLES, .original_mode = MN_MODE_TRIANGLES, .indices = MN_NONE,
                         .material = MN_NONE, .attributes = attributes, .attribute_count = 4, .vertex_count = 3};
    mn_mesh mesh = {.primitives = &prim, .primitive_count = 1};
    uint32_t skin_joints[1] = {0};
    mn_skin skin = {.joints = skin_joints, .joint_count = 1, .inverse_bind = NULL, .skeleton = MN_NONE};
    mn_node node = {.name = "bone", .parent = MN_NONE, .rotation = {0, 0, 0, 1}, .scale = {1, 1, 1},
                    .mesh = 0, .skin = 0, .camera = MN_NONE};
    mn_model model;
    memset(&model, 0, sizeof model);
    model.accessors = accessors;
    model.accessor_count = 4;
    model.meshes = &mesh;
    model.mesh_count = 1;
    model.nodes = &node;
    model.node_count = 1;
    model.skins = &skin;
    model.skin_count = 1;
    model.scene = MN_NONE;

    /* Valid: no inverse bind matrices read as identity; normals come out unit (a zero one as +Y). */
    mn_part_mesh *m = decode(&model, true);
    assert_int_equal(m->bone_count, 1);
    assert_string_equal(m->bone_names[0], "bone");
    for (int k = 0; k < 16; k++)
        assert_true(m->inverse_bind[k] == (k % 5 == 0 ? 1.0f : 0.0f));
    assert_vec3(m->normals, 0, 0, 1, 0.0f);
    assert_vec3(m->normals + 3, 0, 1, 0, 0.0f);
    assert_vec3(m->normals + 6, 0, 0, 1, 0.0f);
    assert_true(m->weights[8] == 1.0f); /* an all-zero quad becomes [1, 0, 0, 0] */
    mn_part_mesh_free(m);

    /* A joint index past the skin's joints. */
    mn_error err;
    joints[5] = 1;
    assert_int_equal(mn_part_mesh_from_model(&model, true, NULL, &m, &err), MN_INDEX_RANGE);
    assert_string_equal(err.path, "meshes[0].primitives[0].attributes");
    assert_null(m);
    joints[5] = 0;

    /* No JOINTS_0 on the skinned primitive. */
    prim.attribute_count = 2;
    assert_int_equal(mn_part_mesh_from_model(&model, true, NULL, &m, &err), MN_INVALID_VALUE);
    assert_string_equal(err.path, "meshes[0].primitives[0].attributes");
    assert_null(m);
}

/* ---- out of memory ------------------------------------------------------------------------------- */

static void fail_every_allocation(const char *path, bool skinned)
{
    mn_model *model = NULL;
    assert_int_equal(mn_gltf_read_file(path, NULL, &model, NULL), MN_OK);
    for (int through_file = 0; through_file < 2; through_file++) {
        for (long k = 0;; k++) {
            mn_counting_alloc counter = mn_counting_alloc_make();
            counter.fail_after = k;
            mn_allocator hooks = mn_counting_allocator(&counter);
            mn_part_mesh *m = NULL;
            mn_error err;
            mn_status st = through_file ? mn_part_mesh_read_file(path, skinned, &hooks, &m, &err)
                                        : mn_part_mesh_from_model(model, skinned, &hooks, &m, &err);
            if (st == MN_OK) {
                assert_int_equal(counter.failures, 0);
                mn_part_mesh_free(m);
                assert_int_equal(counter.live_bytes, 0);
                break;
            }
            assert_int_equal(st, MN_OUT_OF_MEMORY);
            assert_int_equal(err.code, MN_OUT_OF_MEMORY);
            assert_null(m);
            assert_int_equal(counter.live_bytes, 0);
            assert_true(k < 10000);
        }
    }
    mn_model_free(model);
}

static void test_out_of_memory_at_every_allocation(void **state)
{
    (void)state;
    fail_every_allocation(DATA "meshes/base.glb", false);
    fail_every_allocation(DATA "meshes/fore.glb", false);
    fail_every_allocation(DATA "meshes/tip.glb", false);
    fail_every_allocation(DATA "skinned/mesh.glb", true);
}

/* ---- the committed data is what the generator writes ---------------------------------------------- */

static bool same_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        same = ca == cb;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

static void test_regenerating_the_voxel_arm_gives_identical_bytes(void **state)
{
    (void)state;
    const char *build = getenv("MN_BUILD_DIR");
    if (!build) {
        print_message("MN_BUILD_DIR is not set (run through ctest): skipped\n");
        skip();
    }
    static const char *const files[] = {"rig.json", "meshes/base.glb", "meshes/upper.glb", "meshes/fore.glb",
                                        "meshes/tip.glb", "skinned/rig.json", "skinned/mesh.glb"};
    char dir[64];
    mn_test_make_temp_dir(dir, sizeof dir, "voxel_arm");
    char command[1024];
    snprintf(command, sizeof command, "'%s/make_voxel_model' '%s/arm'", build, dir);
    assert_int_equal(system(command), 0);
    int different = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char fresh[512], committed[512];
        snprintf(fresh, sizeof fresh, "%s/arm/%s", dir, files[i]);
        snprintf(committed, sizeof committed, DATA "%s", files[i]);
        if (!same_bytes(fresh, committed)) {
            print_error("%s differs from what make_voxel_model writes now\n", committed);
            different++;
        }
        FILE *f = fopen(committed, "rb");
        assert_non_null(f);
        fseek(f, 0, SEEK_END);
        assert_true(ftell(f) < 20 * 1024);
        fclose(f);
        remove(fresh);
    }
    char sub[512];
    snprintf(sub, sizeof sub, "%s/arm/meshes", dir);
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/arm/skinned", dir);
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/arm", dir);
    assert_int_equal(rmdir(sub), 0); /* nothing else was written */
    rmdir(dir);
    assert_int_equal(different, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_part_separate_views_float_colour_u16_indices),
        cmocka_unit_test(test_upper_part_interleaved_vec4_colour_u32_indices),
        cmocka_unit_test(test_fore_part_without_normals_is_flat_and_placed_by_its_node),
        cmocka_unit_test(test_socket_part_is_an_empty_mesh),
        cmocka_unit_test(test_every_part_of_the_rig_has_its_file),
        cmocka_unit_test(test_skinned_mesh_with_its_bones),
        cmocka_unit_test(test_skinned_asked_of_an_unskinned_glb_fails),
        cmocka_unit_test(test_u16_indices_and_float_vec3_colour),
        cmocka_unit_test(test_u32_indices_and_normalized_u16_vec4_colour),
        cmocka_unit_test(test_no_indices_and_normalized_u8_vec3_colour),
        cmocka_unit_test(test_no_colour_is_white),
        cmocka_unit_test(test_interleaved_attributes),
        cmocka_unit_test(test_node_world_places_positions_and_normals),
        cmocka_unit_test(test_only_the_default_scene_counts),
        cmocka_unit_test(test_empty_glbs_are_sockets),
        cmocka_unit_test(test_triangle_strip_is_decoded_as_triangles),
        cmocka_unit_test(test_skinned_primitive_without_normals_carries_influences_per_corner),
        cmocka_unit_test(test_hand_built_model_with_bad_indices_is_refused),
        cmocka_unit_test(test_hand_built_skinned_model_is_checked),
        cmocka_unit_test(test_out_of_memory_at_every_allocation),
        cmocka_unit_test(test_regenerating_the_voxel_arm_gives_identical_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
