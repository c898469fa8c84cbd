/*
 * OBJ to model (obj_model.h): an OBJ with two MTL materials (one textured,
 * one translucent and shiny), a group before any usemtl, polygons, negative
 * indices and a normal that is not unit length becomes one mesh whose
 * primitives are the groups, with their materials; uv v flipped, normals
 * unit; corners that are the same vertex share one (indices); written out
 * and read back equal; the shared pirate (no MTL) converts with default
 * materials to an indexed mesh with one vertex per distinct (v, vt, vn) of
 * each group and the same triangles; and the memory of a conversion is in
 * proportion: 100,000 usemtl groups, and one face of a million corners,
 * against the bounds stated in obj_model.h and docs/formats.md.
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
    /* Corners that are the same vertex are one: the quad's two triangles share two of its four. */
    assert_int_equal(mesh->primitives[0].vertex_count, 3);
    assert_int_equal(mesh->primitives[0].indices, MN_NONE);   /* nothing shared: no indices */
    assert_int_equal(mesh->primitives[1].vertex_count, 4);
    assert_int_not_equal(mesh->primitives[1].indices, MN_NONE);
    const mn_accessor *idx = &m->accessors[mesh->primitives[1].indices];
    assert_int_equal(idx->count, 6);
    assert_int_equal(idx->component, MN_COMPONENT_U16);
    uint32_t tri[6];
    assert_int_equal(mn_accessor_unpack_u32(idx, tri, 6), 6);
    const uint32_t fan[6] = {0, 1, 2, 0, 2, 3};   /* 1 2 3, 1 3 4: vertices in the order first met */
    assert_memory_equal(tri, fan, sizeof fan);
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

/* One corner's values as the file gives them: v, vt, vn (a corner without vt or vn: zeros). */
typedef struct corner_key {
    float v[8];
} corner_key;

static int key_order(const void *x, const void *y)
{
    return memcmp(x, y, sizeof(corner_key));
}

/* The i-th (1-based, or negative from the end) of count elements of n floats. */
static const float *element(const float *all, long i, size_t count, size_t n)
{
    long at = i > 0 ? i - 1 : (long)count + i;
    assert_true(at >= 0 && (size_t)at < count);
    return &all[(size_t)at * n];
}

/*
 * The distinct corners of each group of an OBJ text, worked out from its own
 * lines, independently of the reader: v, vt, vn and f as written, a new
 * group at the first face after a usemtl that changes the name.  Returns the
 * number of groups; out[g] their distinct (v, vt, vn) value triples.
 */
static uint32_t distinct_corners(const char *text, size_t size, uint32_t *out, uint32_t max_groups)
{
    size_t cap[3] = {1024, 1024, 1024}, count[3] = {0, 0, 0};
    float *arr[3] = {malloc(cap[0] * 3 * sizeof(float)), malloc(cap[1] * 2 * sizeof(float)),
                     malloc(cap[2] * 3 * sizeof(float))};
    const size_t width[3] = {3, 2, 3};
    size_t keys_cap = 4096, keys_n = 0;
    corner_key *keys = malloc(keys_cap * sizeof *keys);
    char material[256] = "", group_material[256] = "";
    uint32_t groups = 0;
    bool open = false;
    char *copy = malloc(size + 1);
    memcpy(copy, text, size);
    copy[size] = '\0';
    for (char *save = NULL, *line = strtok_r(copy, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
        bool face = line && strncmp(line, "f ", 2) == 0;
        /* A group ends at the end of the text or at a face whose material differs. */
        if (open && (!line || (face && strcmp(material, group_material) != 0))) {
            qsort(keys, keys_n, sizeof *keys, key_order);
            uint32_t distinct = 0;
            for (size_t i = 0; i < keys_n; i++)
                distinct += i == 0 || key_order(&keys[i], &keys[i - 1]) != 0;
            assert_true(groups < max_groups);
            out[groups++] = distinct;
            keys_n = 0;
            open = false;
        }
        if (!line)
            break;
        int kind = strncmp(line, "v ", 2) == 0 ? 0 : strncmp(line, "vt ", 3) == 0 ? 1 : strncmp(line, "vn ", 3) == 0 ? 2 : -1;
        if (kind >= 0) {
            if (count[kind] == cap[kind])
                arr[kind] = realloc(arr[kind], (cap[kind] *= 2) * width[kind] * sizeof(float));
            char *p = line + (kind ? 3 : 2);
            for (size_t k = 0; k < width[kind]; k++)
                arr[kind][count[kind] * width[kind] + k] = strtof(p, &p);
            count[kind]++;
        } else if (strncmp(line, "usemtl ", 7) == 0) {
            snprintf(material, sizeof material, "%s", line + 7);
        } else if (face) {
            if (!open)
                snprintf(group_material, sizeof group_material, "%s", material);
            open = true;
            for (char *p = line + 2; *p;) {
                while (*p == ' ')
                    p++;
                if (!*p || *p == '\r')
                    break;
                long idx[3] = {0, 0, 0};
                for (int k = 0; k < 3; k++) {
                    if (*p != '/' && *p != ' ' && *p)
                        idx[k] = strtol(p, &p, 10);
                    if (*p == '/')
                        p++;
                    else
                        break;
                }
                corner_key key;
                memset(&key, 0, sizeof key);
                for (int k = 0; k < 3; k++)
                    if (idx[k])
                        memcpy(&key.v[k == 0 ? 0 : k == 1 ? 3 : 5], element(arr[k], idx[k], count[k], width[k]),
                               width[k] * sizeof(float));
                if (keys_n == keys_cap)
                    keys = realloc(keys, (keys_cap *= 2) * sizeof *keys);
                keys[keys_n++] = key;
            }
        }
    }
    free(copy);
    free(keys);
    for (int k = 0; k < 3; k++)
        free(arr[k]);
    return groups;
}

/* The primitive's triangles are the group's: the same position at every corner, uv (if any) flipped. */
static void same_triangles(const mn_model *m, const mn_primitive *p, const mn_obj_group *g)
{
    size_t n = mn_primitive_soup(m, p, NULL, NULL, 0);
    assert_int_equal(n, g->vertex_count);
    float *soup = malloc(n * 8 * sizeof(float));
    assert_int_equal(mn_primitive_soup(m, p, NULL, soup, n), n);
    bool uvs = mn_primitive_find(p, MN_SEMANTIC_TEXCOORD, 0) != MN_NONE;
    for (size_t i = 0; i < n; i++) {
        assert_memory_equal(&soup[8 * i], &g->verts[8 * i], 3 * sizeof(float));
        if (uvs)
            assert_float_equal(soup[8 * i + 7], 1.0f - g->verts[8 * i + 7], 0);
    }
    free(soup);
}

static void test_pirate_converts_to_an_indexed_mesh_sharing_equal_corners(void **state)
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
    size_t text_size;
    char *text = mn_test_read_file(mn_test_asset("obj/pirate/pirate.obj"), &text_size);
    uint32_t expected[16], groups = distinct_corners(text, text_size, expected, 16);
    free(text);
    assert_int_equal(groups, obj->group_count);
    uint32_t vertices = 0, soup = 0;
    for (uint32_t g = 0; g < obj->group_count; g++) {
        const mn_primitive *p = &m->meshes[0].primitives[g];
        assert_int_equal(p->vertex_count, expected[g]);
        assert_int_not_equal(p->indices, MN_NONE);
        same_triangles(m, p, &obj->groups[g]);
        vertices += p->vertex_count;
        soup += obj->groups[g].vertex_count;
    }
    assert_int_equal(vertices, 3168);   /* of 15,030 corners (5,010 triangles); 2,889 `v` */
    assert_int_equal(soup, 15030);
    for (uint32_t i = 0; i < m->material_count; i++)
        assert_float_equal(m->materials[i].base_color[0], 0.7f, 1e-7);   /* MTL's default Kd */
    for (int k = 0; k < 3; k++) {
        assert_float_equal(m->bounds_min[k], obj->bounds_min[k], 1e-6);
        assert_float_equal(m->bounds_max[k], obj->bounds_max[k], 1e-6);
    }
    mn_model_free(m);
    mn_obj_free(obj);
}

/* ---- memory in proportion -------------------------------------------------------------------- */

/* A sink that keeps nothing. */
static bool count_bytes(void *user, const char *name, const void *bytes, size_t size)
{
    (void)name;
    (void)bytes;
    *(size_t *)user += size;
    return true;
}

static mn_obj *read_text(const char *text, size_t size)
{
    mn_obj_options o;
    memset(&o, 0, sizeof o);
    o.skip_libraries = true;
    mn_obj *obj = NULL;
    mn_error err;
    if (mn_obj_read_memory(text, size, &o, &obj, &err) != MN_OK)
        fail_msg("obj: %s", err.message);
    return obj;
}

/*
 * 100,000 usemtl groups of one triangle each (the shape that cost a
 * kilobyte a group in old copies of the builder's arrays, and two more in
 * the writer's plan and JSON text): the conversion peaks at most 1,200
 * bytes a group beyond the OBJ, the model keeps at most 600, and writing it
 * costs at most 500 more (the JSON streams; the plan is ~400 a group).
 */
static void test_many_groups_cost_memory_in_proportion(void **state)
{
    (void)state;
    enum { GROUPS = 100000 };
    size_t cap = 64 + (size_t)GROUPS * 32, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text, cap, "v 0 0 0\nv 1 0 0\nv 0 1 0\n");
    for (uint32_t i = 0; i < GROUPS; i++)
        len += (size_t)snprintf(text + len, cap - len, "usemtl m%u\nf 1 2 3\n", i % 1000);
    mn_obj *obj = read_text(text, len);
    free(text);
    assert_int_equal(obj->group_count, GROUPS);

    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_model_from_obj(obj, "groups", &hooks, &m, &err), MN_OK);
    mn_obj_free(obj);
    assert_int_equal(m->meshes[0].primitive_count, GROUPS);
    size_t model = counter.live_bytes;
    assert_true(counter.peak_bytes <= (size_t)GROUPS * 1200);
    assert_true(model <= (size_t)GROUPS * 600);

    counter.peak_bytes = counter.live_bytes;
    mn_gltf_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.allocator = hooks;
    size_t written = 0;
    mn_gltf_sink sink = {count_bytes, &written};
    assert_int_equal(mn_gltf_write(m, &wo, &sink, &err), MN_OK);
    assert_true(written > (size_t)GROUPS * 100);   /* the JSON alone is some hundred bytes a group */
    assert_true(counter.peak_bytes - model <= (size_t)GROUPS * 500);
    mn_model_free(m);
    assert_int_equal(counter.live_bytes, 0);
}

/*
 * One face of a million corners (a fan of 999,998 triangles over 4 distinct
 * vertices): beside the model, the conversion needs 4 bytes per triangle
 * corner for the vertex numbers, the model keeps 2 per corner (u16 indices)
 * and 4 vertices; the old conversion staged 32 bytes a corner, and kept 32.
 */
static void test_one_big_face_costs_memory_in_proportion(void **state)
{
    (void)state;
    enum { QUADS = 250000 };
    size_t cap = 64 + (size_t)QUADS * 8, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text, cap, "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf");
    for (uint32_t i = 0; i < QUADS; i++)
        len += (size_t)snprintf(text + len, cap - len, " 1 2 3 4");
    text[len++] = '\n';
    mn_obj *obj = read_text(text, len);
    free(text);
    size_t corners = obj->groups[0].vertex_count;
    assert_int_equal(corners, 3 * (4 * (size_t)QUADS - 2));

    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_model_from_obj(obj, "face", &hooks, &m, &err), MN_OK);
    const mn_primitive *p = &m->meshes[0].primitives[0];
    assert_int_equal(p->vertex_count, 4);
    assert_int_equal(m->accessors[p->indices].component, MN_COMPONENT_U16);
    assert_int_equal(m->accessors[p->indices].count, corners);
    same_triangles(m, p, &obj->groups[0]);
    assert_true(counter.peak_bytes <= 6 * corners + 262144);
    assert_true(counter.live_bytes <= 2 * corners + 262144);
    mn_obj_free(obj);
    mn_model_free(m);
    assert_int_equal(counter.live_bytes, 0);
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
        cmocka_unit_test(test_pirate_converts_to_an_indexed_mesh_sharing_equal_corners),
        cmocka_unit_test(test_many_groups_cost_memory_in_proportion),
        cmocka_unit_test(test_one_big_face_costs_memory_in_proportion),
        cmocka_unit_test(test_out_of_memory_and_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
