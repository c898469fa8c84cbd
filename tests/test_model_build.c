/*
 * The model builder (model_build.h):
 *
 *   - a model with every kind of element (accessors of each component, an
 *     embedded and a by-URI image, textured materials, two-primitive meshes
 *     with morph targets, a node tree with TRS and extras, a skin, animations
 *     with shared key times, a weights channel) writes out as GLB and .gltf
 *     and reads back equal in every value the builder set, including what the
 *     reader derives (node_order, scenes, bounds, durations, default names);
 *   - the built model works with the rest of the library (rest worlds,
 *     writing twice gives the same bytes);
 *   - building costs memory in proportion (no old copies of growing arrays);
 *   - errors are sticky, name the element, and leave nothing behind;
 *   - every allocation failing in turn gives MN_OUT_OF_MEMORY and no leak.
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
#include <marionette/math.h>
#include <marionette/model.h>
#include <marionette/model_build.h>

#include "counting_alloc.h"
#include "oom_walk.h"
#include "files.h"

/* A 1x1 PNG (a valid file: signature, IHDR, IDAT, IEND). */
static const unsigned char PNG[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d, 0xb0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
};

/* Build the full model with `allocator` (NULL: malloc); returns finish's status. */
static mn_status build_full(const mn_allocator *allocator, mn_model **out, mn_error *err)
{
    mn_model_builder *b = mn_model_build_begin(allocator);
    static const float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    static const float nrm[] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    static const float uv[] = {0, 0, 1, 0, 1, 1, 0, 1};
    static const float col[] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
    static const float delta[] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    static const uint16_t tri16[] = {0, 1, 2, 0, 2, 3};
    static const uint32_t tri32[] = {0, 2, 3};
    static const uint16_t joints[] = {0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    static const float weights[] = {0.5f, 0.5f, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    uint32_t p = mn_model_build_accessor_f32(b, "positions", pos, 4, MN_TYPE_VEC3);
    uint32_t n = mn_model_build_accessor_f32(b, NULL, nrm, 4, MN_TYPE_VEC3);
    uint32_t t = mn_model_build_accessor_f32(b, NULL, uv, 4, MN_TYPE_VEC2);
    uint32_t c = mn_model_build_accessor_f32(b, NULL, col, 4, MN_TYPE_VEC3);
    uint32_t d = mn_model_build_accessor_f32(b, NULL, delta, 4, MN_TYPE_VEC3);
    uint32_t i16 = mn_model_build_accessor_u16(b, NULL, tri16, 6, MN_TYPE_SCALAR);
    uint32_t i32 = mn_model_build_accessor_u32(b, NULL, tri32, 3, MN_TYPE_SCALAR);
    uint32_t j = mn_model_build_accessor_u16(b, NULL, joints, 4, MN_TYPE_VEC4);
    uint32_t w = mn_model_build_accessor_f32(b, NULL, weights, 4, MN_TYPE_VEC4);

    uint32_t embedded = mn_model_build_image(b, "embedded", "image/png", NULL, PNG, sizeof PNG);
    uint32_t by_uri = mn_model_build_image(b, NULL, NULL, "textures/wood grain.png", NULL, 0);
    uint32_t sampler = mn_model_build_sampler(b, 9729, 9987, 0, 33071);
    uint32_t tex0 = mn_model_build_texture(b, embedded, sampler);
    uint32_t tex1 = mn_model_build_texture(b, by_uri, MN_NONE);
    mn_material mat;
    mn_model_build_material_defaults(&mat);
    mat.name = "red";
    mat.base_color[0] = 0.8f;
    mat.base_color_texture.texture = tex0;
    mat.emissive_texture.texture = tex1;
    mat.double_sided = true;
    mat.extras = "{\"from\":\"test\"}";
    uint32_t red = mn_model_build_material(b, &mat);
    mn_model_build_material_defaults(&mat);
    mn_model_build_material(b, &mat);   /* unnamed: "material1" */

    uint32_t quad = mn_model_build_mesh(b, "quad");
    const mn_build_attribute attrs[] = {{"POSITION", p}, {"NORMAL", n}, {"TEXCOORD_0", t}, {"COLOR_0", c}};
    mn_model_build_primitive(b, quad, MN_MODE_TRIANGLES, attrs, 4, i16, red);
    mn_model_build_primitive(b, quad, MN_MODE_TRIANGLES, attrs, 1, i32, MN_NONE);
    mn_model_build_morph_target(b, quad, 0, d, MN_NONE, MN_NONE);
    mn_model_build_morph_target(b, quad, 1, d, d, MN_NONE);
    mn_model_build_mesh_extras(b, quad, "{\"kind\":\"quad\"}");
    uint32_t skinned = mn_model_build_mesh(b, NULL);
    const mn_build_attribute sattrs[] = {{"POSITION", p}, {"JOINTS_0", j}, {"WEIGHTS_0", w}};
    mn_model_build_primitive(b, skinned, MN_MODE_TRIANGLES, sattrs, 3, i16, MN_NONE);

    uint32_t root = mn_model_build_node(b, "root", MN_NONE);
    uint32_t arm = mn_model_build_node(b, "arm", root);
    uint32_t hand = mn_model_build_node(b, NULL, arm);
    uint32_t other = mn_model_build_node(b, "other", root);
    uint32_t body = mn_model_build_node(b, "body", MN_NONE);
    const float tr[3] = {1, 2, 3}, rot[4] = {0, 0, 2, 2}, sc[3] = {2, 2, 2};
    mn_model_build_node_trs(b, arm, tr, rot, NULL);
    mn_model_build_node_trs(b, hand, NULL, NULL, sc);
    mn_model_build_node_mesh(b, other, quad, MN_NONE);
    mn_model_build_node_extras(b, hand, "{\"socket\":true}");
    const uint32_t skin_joints[2] = {arm, hand};
    float ib[32];
    mn_mat4_identity(ib);
    mn_mat4_identity(ib + 16);
    ib[12] = -1.0f;
    uint32_t skin = mn_model_build_skin(b, "skin", skin_joints, 2, ib, root);
    mn_model_build_node_mesh(b, body, skinned, skin);

    uint32_t wave = mn_model_build_animation(b, "wave", "{\"loop\":true}");
    const float times[3] = {0.0f, 0.5f, 1.25f};
    const float moves[9] = {0, 0, 0, 1, 0, 0, 2, 0, 0};
    const float turns[12] = {0, 0, 0, 1, 0, 0, 0.7071068f, 0.7071068f, 0, 0, 1, 0};
    const float morph[6] = {0, 1, 0.5f, 0.5f, 1, 0};
    mn_model_build_channel(b, wave, arm, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, times, moves, 3);
    mn_model_build_channel(b, wave, arm, MN_PATH_ROTATION, MN_INTERP_LINEAR, times, turns, 3);
    mn_model_build_channel(b, wave, other, MN_PATH_WEIGHTS, MN_INTERP_STEP, times, morph, 3);
    uint32_t still = mn_model_build_animation(b, NULL, NULL);
    mn_model_build_channel(b, still, hand, MN_PATH_SCALE, MN_INTERP_LINEAR, times + 1, moves, 1);
    return mn_model_build_finish(b, out, err);
}

static mn_model *build_ok(void)
{
    mn_model *m = NULL;
    mn_error err;
    mn_status st = build_full(NULL, &m, &err);
    if (st != MN_OK)
        fail_msg("build: %s: %s", mn_status_name(st), err.message);
    return m;
}

static void str_eq(const char *x, const char *y, const char *what)
{
    if ((x == NULL) != (y == NULL) || (x && strcmp(x, y) != 0))
        fail_msg("%s: \"%s\" != \"%s\"", what, x ? x : "(null)", y ? y : "(null)");
}

static void floats_eq(const float *x, const float *y, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            fail_msg("%s[%zu]: %.9g != %.9g", what, i, (double)x[i], (double)y[i]);
}

static void accessors_eq(const mn_model *a, const mn_model *b, uint32_t ia, uint32_t ib_)
{
    if (ia == MN_NONE || ib_ == MN_NONE) {
        assert_int_equal(ia, ib_);
        return;
    }
    const mn_accessor *x = &a->accessors[ia], *y = &b->accessors[ib_];
    assert_int_equal(x->component, y->component);
    assert_int_equal(x->type, y->type);
    assert_int_equal(x->count, y->count);
    assert_int_equal(x->normalized, y->normalized);
    str_eq(x->name, y->name, "accessor name");
    size_t n = mn_accessor_unpack_floats(x, NULL, 0);
    float *fx = malloc(n * 4), *fy = malloc(n * 4);
    assert_non_null(fx);
    assert_non_null(fy);
    mn_accessor_unpack_floats(x, fx, n);
    assert_int_equal(mn_accessor_unpack_floats(y, fy, n), n);
    floats_eq(fx, fy, n, "accessor data");
    free(fx);
    free(fy);
    assert_true(x->has_bounds);
    assert_true(y->has_bounds);
    floats_eq(x->min, y->min, mn_accessor_components(x->type), "min");
    floats_eq(x->max, y->max, mn_accessor_components(x->type), "max");
}

static void texture_ref_eq(const mn_texture_ref *x, const mn_texture_ref *y)
{
    assert_int_equal(x->texture, y->texture);
    assert_int_equal(x->texcoord, y->texcoord);
    assert_true(x->scale == y->scale);
}

/* Every value the builder sets, and everything the reader derives, agrees. */
static void models_eq(const mn_model *a, const mn_model *b)
{
    str_eq(a->version, b->version, "version");
    str_eq(a->generator, b->generator, "generator");
    assert_int_equal(a->mesh_count, b->mesh_count);
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const mn_mesh *x = &a->meshes[i], *y = &b->meshes[i];
        str_eq(x->name, y->name, "mesh name");
        str_eq(x->extras, y->extras, "mesh extras");
        assert_int_equal(x->primitive_count, y->primitive_count);
        assert_int_equal(x->weight_count, y->weight_count);
        floats_eq(x->weights, y->weights, x->weight_count, "mesh weights");
        for (uint32_t p = 0; p < x->primitive_count; p++) {
            const mn_primitive *px = &x->primitives[p], *py = &y->primitives[p];
            assert_int_equal(px->mode, py->mode);
            assert_int_equal(px->original_mode, py->original_mode);
            assert_int_equal(px->material, py->material);
            assert_int_equal(px->vertex_count, py->vertex_count);
            assert_int_equal(px->attribute_count, py->attribute_count);
            for (uint32_t k = 0; k < px->attribute_count; k++) {
                str_eq(px->attributes[k].name, py->attributes[k].name, "attribute");
                assert_int_equal(px->attributes[k].semantic, py->attributes[k].semantic);
                assert_int_equal(px->attributes[k].set, py->attributes[k].set);
                accessors_eq(a, b, px->attributes[k].accessor, py->attributes[k].accessor);
            }
            accessors_eq(a, b, px->indices, py->indices);
            assert_int_equal(px->target_count, py->target_count);
            for (uint32_t k = 0; k < px->target_count; k++) {
                accessors_eq(a, b, px->targets[k].position, py->targets[k].position);
                accessors_eq(a, b, px->targets[k].normal, py->targets[k].normal);
                accessors_eq(a, b, px->targets[k].tangent, py->targets[k].tangent);
            }
        }
    }
    assert_int_equal(a->material_count, b->material_count);
    for (uint32_t i = 0; i < a->material_count; i++) {
        const mn_material *x = &a->materials[i], *y = &b->materials[i];
        str_eq(x->name, y->name, "material name");
        str_eq(x->extras, y->extras, "material extras");
        floats_eq(x->base_color, y->base_color, 4, "base colour");
        assert_true(x->metallic == y->metallic && x->roughness == y->roughness);
        assert_int_equal(x->double_sided, y->double_sided);
        assert_int_equal(x->alpha_mode, y->alpha_mode);
        texture_ref_eq(&x->base_color_texture, &y->base_color_texture);
        texture_ref_eq(&x->emissive_texture, &y->emissive_texture);
        texture_ref_eq(&x->normal_texture, &y->normal_texture);
    }
    assert_int_equal(a->texture_count, b->texture_count);
    for (uint32_t i = 0; i < a->texture_count; i++) {
        assert_int_equal(a->textures[i].image, b->textures[i].image);
        assert_int_equal(a->textures[i].sampler, b->textures[i].sampler);
    }
    assert_int_equal(a->sampler_count, b->sampler_count);
    for (uint32_t i = 0; i < a->sampler_count; i++)
        assert_memory_equal(&a->samplers[i].mag_filter, &b->samplers[i].mag_filter, 4 * sizeof(uint32_t));
    assert_int_equal(a->image_count, b->image_count);
    for (uint32_t i = 0; i < a->image_count; i++) {
        const mn_image *x = &a->images[i], *y = &b->images[i];
        str_eq(x->name, y->name, "image name");
        str_eq(x->uri, y->uri, "image uri");
        str_eq(x->mime_type, y->mime_type, "image mimeType");
        assert_int_equal(x->size, y->size);
        if (x->size)
            assert_memory_equal(x->data, y->data, x->size);
    }
    assert_int_equal(a->node_count, b->node_count);
    for (uint32_t i = 0; i < a->node_count; i++) {
        const mn_node *x = &a->nodes[i], *y = &b->nodes[i];
        str_eq(x->name, y->name, "node name");
        str_eq(x->extras, y->extras, "node extras");
        assert_int_equal(x->parent, y->parent);
        assert_int_equal(x->child_count, y->child_count);
        if (x->child_count)
            assert_memory_equal(x->children, y->children, 4u * x->child_count);
        floats_eq(x->translation, y->translation, 3, "translation");
        floats_eq(x->rotation, y->rotation, 4, "rotation");
        floats_eq(x->scale, y->scale, 3, "scale");
        assert_int_equal(x->mesh, y->mesh);
        assert_int_equal(x->skin, y->skin);
        assert_int_equal(x->camera, y->camera);
        assert_int_equal(a->node_order[i], b->node_order[i]);
    }
    assert_int_equal(a->scene, b->scene);
    assert_int_equal(a->scene_count, b->scene_count);
    assert_int_equal(a->scenes[0].node_count, b->scenes[0].node_count);
    assert_memory_equal(a->scenes[0].nodes, b->scenes[0].nodes, 4u * a->scenes[0].node_count);
    assert_int_equal(a->skin_count, b->skin_count);
    for (uint32_t i = 0; i < a->skin_count; i++) {
        str_eq(a->skins[i].name, b->skins[i].name, "skin name");
        assert_int_equal(a->skins[i].joint_count, b->skins[i].joint_count);
        assert_memory_equal(a->skins[i].joints, b->skins[i].joints, 4u * a->skins[i].joint_count);
        assert_int_equal(a->skins[i].skeleton, b->skins[i].skeleton);
        floats_eq(a->skins[i].inverse_bind, b->skins[i].inverse_bind, 16u * a->skins[i].joint_count, "ibm");
    }
    assert_int_equal(a->animation_count, b->animation_count);
    for (uint32_t i = 0; i < a->animation_count; i++) {
        const mn_animation *x = &a->animations[i], *y = &b->animations[i];
        str_eq(x->name, y->name, "animation name");
        str_eq(x->extras, y->extras, "animation extras");
        assert_true(x->duration == y->duration);
        assert_int_equal(x->channel_count, y->channel_count);
        for (uint32_t k = 0; k < x->channel_count; k++) {
            const mn_channel *cx = &x->channels[k], *cy = &y->channels[k];
            assert_int_equal(cx->node, cy->node);
            assert_int_equal(cx->path, cy->path);
            assert_int_equal(cx->interpolation, cy->interpolation);
            assert_int_equal(cx->key_count, cy->key_count);
            assert_int_equal(cx->components, cy->components);
            floats_eq(cx->times, cy->times, cx->key_count, "times");
            floats_eq(cx->values, cy->values, (size_t)cx->key_count * cx->components, "values");
        }
    }
    floats_eq(a->bounds_min, b->bounds_min, 3, "bounds_min");
    floats_eq(a->bounds_max, b->bounds_max, 3, "bounds_max");
}

static void round_trip(const char *name)
{
    mn_model *a = build_ok();
    char dir[64];
    mn_test_make_temp_dir(dir, sizeof dir, "model_build");
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    mn_error err;
    assert_int_equal(mn_gltf_write_file(a, path, NULL, &err), MN_OK);
    mn_model *b = NULL;
    mn_status st = mn_gltf_read_file(path, NULL, &b, &err);
    if (st != MN_OK)
        fail_msg("read back: %s", err.message);
    models_eq(a, b);
    /* The by-URI image has no file beside the model: the reader says so, nothing else. */
    assert_int_equal(b->warning_count, 1);
    assert_int_equal(b->warnings[0].code, MN_IO);
    mn_model_free(b);
    unlink(path);
    if (strstr(name, ".gltf")) {
        char bin[160];
        snprintf(bin, sizeof bin, "%s/%.*s.bin", dir, (int)(strlen(name) - 5), name);
        assert_int_equal(unlink(bin), 0);
    }
    assert_int_equal(rmdir(dir), 0);
    mn_model_free(a);
}

static void test_built_model_round_trips_as_glb_and_gltf(void **state)
{
    (void)state;
    round_trip("built.glb");
    round_trip("built.gltf");
}

static void test_builder_fills_what_the_reader_derives(void **state)
{
    (void)state;
    mn_model *m = build_ok();
    assert_string_equal(m->nodes[2].name, "node2");
    assert_string_equal(m->materials[1].name, "material1");
    assert_string_equal(m->animations[1].name, "anim1");
    /* Display names, marked so (the writer leaves them out); given names are the elements' own. */
    assert_true(m->nodes[2].default_name && m->materials[1].default_name && m->animations[1].default_name);
    assert_false(m->nodes[0].default_name);
    assert_int_equal(m->scene, 0);
    assert_int_equal(m->scenes[0].node_count, 2);   /* root and body */
    const uint32_t order[5] = {0, 1, 2, 3, 4};        /* root, arm, hand, other, body */
    assert_memory_equal(m->node_order, order, sizeof order);
    assert_int_equal(m->nodes[0].child_count, 2);
    assert_true(m->animations[0].duration == 1.25f);
    assert_int_equal(m->meshes[0].weight_count, 1);
    assert_int_equal(m->animations[0].channels[2].components, 1);
    /* Shared key times are one array (one accessor in the file). */
    assert_ptr_equal(m->animations[0].channels[0].times, m->animations[0].channels[1].times);
    /* The rotation was normalised; rest worlds compose it. */
    assert_float_equal(m->nodes[1].rotation[2], 0.70710678f, 1e-6);
    float worlds[16 * 5];
    mn_model_rest_worlds(m, worlds);
    assert_float_equal(worlds[16 * 2 + 12], 1.0f, 1e-6);   /* hand sits at arm's translation */
    assert_float_equal(worlds[16 * 2 + 13], 2.0f, 1e-6);
    /* Bounds: the quad under "other" (identity under root) and the skinned quad bound by its joints. */
    assert_true(m->bounds_min[0] <= 0.0f && m->bounds_max[0] >= 1.0f);
    assert_int_equal(m->warning_count, 0);
    mn_model_free(m);
}

/*
 * 100,000 primitives of one accessor each: the model keeps at most 400 bytes
 * a primitive (its mn_accessor, mn_primitive, attribute and data, no slack),
 * and building peaks at the model plus twice its accessor array (the array
 * doubling, then moved into the arena at its size), never the old copies of
 * every array that an arena growing them kept.
 */
static void test_building_costs_memory_in_proportion(void **state)
{
    (void)state;
    enum { PRIMITIVES = 100000 };
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_model_builder *b = mn_model_build_begin(&hooks);
    uint32_t mesh = mn_model_build_mesh(b, "many");
    const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    for (uint32_t i = 0; i < PRIMITIVES; i++) {
        const mn_build_attribute attrs[] = {{"POSITION", mn_model_build_accessor_f32(b, NULL, tri, 3, MN_TYPE_VEC3)}};
        mn_model_build_primitive(b, mesh, MN_MODE_TRIANGLES, attrs, 1, MN_NONE, MN_NONE);
    }
    mn_model_build_node_mesh(b, mn_model_build_node(b, NULL, MN_NONE), mesh, MN_NONE);
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_model_build_finish(b, &m, &err), MN_OK);
    assert_int_equal(m->meshes[0].primitive_count, PRIMITIVES);
    size_t model = counter.live_bytes;
    assert_true(model <= (size_t)PRIMITIVES * 400);
    assert_true(counter.peak_bytes <= model + 2 * (size_t)PRIMITIVES * sizeof(mn_accessor) + 65536);
    mn_model_free(m);
    assert_int_equal(counter.live_bytes, 0);
}

static void test_nodes_made_before_their_parents_are_linked_in_order(void **state)
{
    (void)state;
    mn_model_builder *b = mn_model_build_begin(NULL);
    uint32_t fore = mn_model_build_node(b, "fore", MN_NONE);    /* rig.json may list a child first */
    uint32_t base = mn_model_build_node(b, "base", MN_NONE);
    uint32_t upper = mn_model_build_node(b, "upper", MN_NONE);
    uint32_t tip = mn_model_build_node(b, "tip", MN_NONE);
    mn_model_build_node_parent(b, fore, upper);
    mn_model_build_node_parent(b, upper, base);
    mn_model_build_node_parent(b, tip, fore);
    mn_model_build_node_parent(b, tip, MN_NONE);                /* and back to a root */
    mn_model_build_node_parent(b, tip, upper);                  /* after fore among upper's children */
    mn_model *m;
    mn_error err;
    assert_int_equal(mn_model_build_finish(b, &m, &err), MN_OK);
    const uint32_t order[4] = {base, upper, fore, tip};
    assert_memory_equal(m->node_order, order, sizeof order);
    assert_int_equal(m->nodes[upper].child_count, 2);
    assert_int_equal(m->nodes[upper].children[0], fore);
    assert_int_equal(m->nodes[upper].children[1], tip);
    assert_int_equal(m->scenes[0].node_count, 1);
    assert_int_equal(m->scenes[0].nodes[0], base);
    mn_model_free(m);
}

static void test_errors_are_sticky_and_name_the_element(void **state)
{
    (void)state;
    mn_model_builder *b = mn_model_build_begin(NULL);
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint32_t bad_tri[3] = {0, 1, 3};
    uint32_t p = mn_model_build_accessor_f32(b, NULL, pos, 3, MN_TYPE_VEC3);
    uint32_t i = mn_model_build_accessor_u32(b, NULL, bad_tri, 3, MN_TYPE_SCALAR);
    uint32_t mesh = mn_model_build_mesh(b, "m");
    assert_int_equal(mn_model_build_status(b), MN_OK);
    const mn_build_attribute attrs[] = {{"POSITION", p}};
    assert_int_equal(mn_model_build_primitive(b, mesh, MN_MODE_TRIANGLES, attrs, 1, i, MN_NONE), MN_NONE);
    assert_int_equal(mn_model_build_status(b), MN_INDEX_RANGE);
    /* Later calls do nothing and return MN_NONE. */
    assert_int_equal(mn_model_build_node(b, "n", MN_NONE), MN_NONE);
    mn_model *m = (mn_model *)1;
    mn_error err;
    assert_int_equal(mn_model_build_finish(b, &m, &err), MN_INDEX_RANGE);
    assert_null(m);
    assert_string_equal(err.path, "meshes[0].primitives[0]");
    assert_non_null(strstr(err.message, "index 3"));

    struct { const char *what; mn_status code; const char *path; } cases[] = {
        {"node parent", MN_INDEX_RANGE, "nodes[0]"},
        {"bad attribute", MN_INVALID_VALUE, "meshes[0].primitives[0]"},
        {"strip", MN_INVALID_VALUE, "meshes[0].primitives[0]"},
        {"decreasing times", MN_INVALID_VALUE, "animations[0].channels[0]"},
        {"nan translation", MN_NOT_FINITE, "nodes[0]"},
        {"empty mesh", MN_INVALID_ARGUMENT, "meshes[0]"},
        {"joint range", MN_INDEX_RANGE, "meshes[0].primitives[0].attributes"},
        {"cycle", MN_HIERARCHY, "nodes[0]"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        b = mn_model_build_begin(NULL);
        p = mn_model_build_accessor_f32(b, NULL, pos, 3, MN_TYPE_VEC3);
        mesh = mn_model_build_mesh(b, NULL);
        const mn_build_attribute bad[] = {{"POSITON", p}};
        const float times[2] = {1, 0}, values[6] = {0};
        const float nan3[3] = {NAN, 0, 0};
        const uint16_t joints[12] = {0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0};
        switch (k) {
        case 0: mn_model_build_node(b, NULL, 4); break;
        case 1: mn_model_build_primitive(b, mesh, MN_MODE_TRIANGLES, bad, 1, MN_NONE, MN_NONE); break;
        case 2: mn_model_build_primitive(b, mesh, MN_MODE_TRIANGLE_STRIP, attrs, 1, MN_NONE, MN_NONE); break;
        case 3:
            mn_model_build_node(b, NULL, MN_NONE);
            mn_model_build_channel(b, mn_model_build_animation(b, NULL, NULL), 0, MN_PATH_TRANSLATION,
                                   MN_INTERP_LINEAR, times, values, 2);
            break;
        case 4: mn_model_build_node_trs(b, mn_model_build_node(b, NULL, MN_NONE), nan3, NULL, NULL); break;
        case 5: break;   /* the mesh never gets a primitive */
        case 6: {
            uint32_t j = mn_model_build_accessor_u16(b, NULL, joints, 3, MN_TYPE_VEC4);
            const mn_build_attribute sk[] = {{"POSITION", p}, {"JOINTS_0", j}};
            mn_model_build_primitive(b, mesh, MN_MODE_TRIANGLES, sk, 2, MN_NONE, MN_NONE);
            uint32_t node = mn_model_build_node(b, NULL, MN_NONE);
            mn_model_build_node_mesh(b, node, mesh, mn_model_build_skin(b, NULL, &node, 1, NULL, MN_NONE));
            break;
        }
        case 7: {
            uint32_t x = mn_model_build_node(b, NULL, MN_NONE), y = mn_model_build_node(b, NULL, x);
            mn_model_build_node_parent(b, x, y);
            mn_model_build_primitive(b, mesh, MN_MODE_TRIANGLES, attrs, 1, MN_NONE, MN_NONE);
            break;
        }
        default: break;
        }
        mn_status st = mn_model_build_finish(b, &m, &err);
        if (st != cases[k].code || strcmp(err.path, cases[k].path) != 0)
            fail_msg("%s: %s at '%s' (%s)", cases[k].what, mn_status_name(st), err.path, err.message);
        assert_null(m);
    }
    assert_int_equal(mn_model_build_finish(NULL, &m, &err), MN_OUT_OF_MEMORY);
    mn_model_build_discard(NULL);
    b = mn_model_build_begin(NULL);
    mn_model_build_node(b, "kept", MN_NONE);
    mn_model_build_discard(b);
}

static mn_status make_full(const mn_allocator *hooks, void *ctx, mn_model **out, mn_error *err)
{
    (void)ctx;
    return build_full(hooks, out, err);
}

static void test_out_of_memory_at_every_allocation(void **state)
{
    (void)state;
    mn_test_model_oom_walk(make_full, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_built_model_round_trips_as_glb_and_gltf),
        cmocka_unit_test(test_builder_fills_what_the_reader_derives),
        cmocka_unit_test(test_building_costs_memory_in_proportion),
        cmocka_unit_test(test_nodes_made_before_their_parents_are_linked_in_order),
        cmocka_unit_test(test_errors_are_sticky_and_name_the_element),
        cmocka_unit_test(test_out_of_memory_at_every_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
