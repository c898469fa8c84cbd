/*
 * Four scene extensions, read, written and drawn, on byte-built models:
 *
 *   - KHR_lights_punctual: the three kinds with their defaults; a cone with
 *     inner >= outer, an outer cone above pi/2, a negative intensity, a range
 *     of 0, a colour above 1, an unknown type, a spot without "spot" and a
 *     node's light index out of range are refused, the message at the item;
 *   - KHR_node_visibility: "visible" defaults to true, false hides the node;
 *   - EXT_mesh_gpu_instancing: TRANSLATION, ROTATION (normalized i16) and
 *     SCALE become each instance's T·R·S; counts that differ, a TRANSLATION
 *     of VEC4, a ROTATION of u8, a node without a mesh and attributes without
 *     any of the three are refused naming the attribute or node;
 *   - KHR_materials_variants: names and mappings; a variant index out of
 *     range, one mapped twice in a primitive, mappings with no variants at
 *     the root and a mapping's material out of range are refused;
 *   - a file that requires all four loads;
 *   - read → write → read (GLB and .gltf, plain and quantized) gives the
 *     same lights, hidden flags, instance transforms, variants and mappings
 *     (with MN_WRITE_OUT set the written files are kept for
 *     tests/test_gltf_validate.sh);
 *   - marionette info lists the lights (type, colour, intensity, node), the
 *     instanced and hidden nodes and the variants with their primitive
 *     counts, in text and in --json;
 *   - SimpleInstancing (sample assets) loads with its 125 instances, all
 *     inside the model's bounds, and its render source draws 125 meshes;
 *   - drawing: a red point light on the left tints the quad red, brighter on
 *     its left, where without lights it is grey; a directional light lights
 *     the side it faces evenly and not the other, a spot its cone only, a
 *     point light falls off with distance and not at all beyond its range,
 *     and a light that is not finite is refused; three instances draw what
 *     three nodes placed the same way draw (three blobs); a hidden node and
 *     what lies under it draw nothing (the image equals the model without
 *     that mesh, and differs from it when the node is shown).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/marionette.h>

#include "assets.h"
#include "glb_builder.h"
#include "run_tool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ALL_FOUR "'KHR_lights_punctual','KHR_node_visibility','EXT_mesh_gpu_instancing','KHR_materials_variants'"

/* Two quads' worth of meshes: mesh 0 with material 0 (white), mesh 1 with material 1 (red). */
#define TWO_MESHES                                                                                         \
    "[{'primitives':[{'attributes':{'POSITION':0,'NORMAL':1},'indices':2,'material':0}]},"                 \
    "{'primitives':[{'attributes':{'POSITION':0,'NORMAL':1},'indices':2,'material':1}]}]"

/*
 * A GLB over one blob: accessor 0 a 2×2 quad in z = 0 facing +z, 1 its
 * normals, 2 its u16 indices; for instancing 3 three translations (VEC3),
 * 4 three rotations (normalized i16 VEC4: identity, 90° about z, identity),
 * 5 two scales (VEC3), 6 three scales, 7 three VEC4 floats, 8 three u8
 * normalized VEC4.  Three materials: white, red, green.  `meshes`, `nodes`,
 * the scene's `roots` and `root_ext` (",'extensions':{...}" or "") complete it.
 */
static gb_blob model(const char *meshes, const char *nodes, const char *roots, const char *root_ext)
{
    gb_builder b;
    gb_init(&b);
    const float pos[12] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0};
    const float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    size_t views[9];
    views[0] = gb_bin_f32v(&b, pos, 12);
    views[1] = gb_bin_f32v(&b, nrm, 12);
    views[2] = gb_bin_u16(&b, 0, 1, 2, 0, 2, 3);
    views[3] = gb_bin_f32(&b, -3, 0, 0, 0, 0, 0, 3, 0, 0);
    views[4] = gb_bin_i16(&b, 0, 0, 0, 32767, 0, 0, 23170, 23170, 0, 0, 0, 32767);
    views[5] = gb_bin_f32(&b, 1, 1, 1, 2, 2, 2);
    views[6] = gb_bin_f32(&b, 1, 1, 1, 2, 2, 2, 0.5f, 0.5f, 0.5f);
    views[7] = gb_bin_f32(&b, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1);
    views[8] = gb_bin_u8(&b, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255);
    gb_bin_align(&b, 4);
    static const size_t lengths[9] = {48, 48, 12, 36, 24, 24, 36, 48, 12};
    char view_json[1024];
    size_t n = 0;
    for (int i = 0; i < 9; i++)
        n += (size_t)snprintf(view_json + n, sizeof view_json - n, "%s{'buffer':0,'byteOffset':%zu,'byteLength':%zu}",
                              i ? "," : "", views[i], lengths[i]);
    gb_json(&b,
            "{'asset':{'version':'2.0'},'extensionsUsed':[" ALL_FOUR "],"
            "'buffers':[{'byteLength':%zu}],'bufferViews':[%s],"
            "'accessors':[{'bufferView':0,'componentType':5126,'count':4,'type':'VEC3',"
            "'min':[-1,-1,0],'max':[1,1,0]},"
            "{'bufferView':1,'componentType':5126,'count':4,'type':'VEC3'},"
            "{'bufferView':2,'componentType':5123,'count':6,'type':'SCALAR'},"
            "{'bufferView':3,'componentType':5126,'count':3,'type':'VEC3'},"
            "{'bufferView':4,'componentType':5122,'normalized':true,'count':3,'type':'VEC4'},"
            "{'bufferView':5,'componentType':5126,'count':2,'type':'VEC3'},"
            "{'bufferView':6,'componentType':5126,'count':3,'type':'VEC3'},"
            "{'bufferView':7,'componentType':5126,'count':3,'type':'VEC4'},"
            "{'bufferView':8,'componentType':5121,'normalized':true,'count':3,'type':'VEC4'}],"
            "'materials':[{'pbrMetallicRoughness':{'baseColorFactor':[1,1,1,1]}},"
            "{'pbrMetallicRoughness':{'baseColorFactor':[1,0,0,1]}},"
            "{'pbrMetallicRoughness':{'baseColorFactor':[0,1,0,1]}}],"
            "'meshes':%s,'nodes':%s,'scenes':[{'nodes':[%s]}],'scene':0%s}",
            gb_bin_size(&b), view_json, meshes, nodes, roots, root_ext);
    gb_blob glb = gb_glb(&b);
    gb_free(&b);
    return glb;
}

static mn_model *read_ok(const gb_blob *glb)
{
    mn_model *m = NULL;
    mn_error err;
    if (mn_gltf_read_memory(glb->data, glb->size, NULL, &m, &err) != MN_OK)
        fail_msg("%s", err.message);
    return m;
}

/* Refused with `code` at `path`, the message holding `words`. */
static void expect_refused(const char *meshes, const char *nodes, const char *root_ext, mn_status code,
                           const char *path, const char *words)
{
    gb_blob glb = model(meshes, nodes, "0", root_ext);
    mn_model *m = NULL;
    mn_error err;
    mn_status st = mn_gltf_read_memory(glb.data, glb.size, NULL, &m, &err);
    print_message("    %s (%s)\n", err.message, mn_status_name(st));
    assert_int_equal(st, code);
    assert_null(m);
    assert_string_equal(err.path, path);
    assert_non_null(strstr(err.message, words));
    gb_blob_free(&glb);
}

/* ---- KHR_lights_punctual ---------------------------------------------------------------- */

#define LIGHTS(list) ",'extensions':{'KHR_lights_punctual':{'lights':[" list "]}}"
#define LIT_NODE "[{'mesh':0,'extensions':{'KHR_lights_punctual':{'light':0}}}]"

static void test_lights_are_read_with_their_defaults(void **state)
{
    (void)state;
    gb_blob glb = model(TWO_MESHES,
                        "[{'mesh':0,'children':[1,2]},{'extensions':{'KHR_lights_punctual':{'light':2}}},"
                        "{'extensions':{'KHR_lights_punctual':{'light':0}}}]",
                        "0",
                        LIGHTS("{'type':'directional'},"
                               "{'name':'bulb','type':'point','color':[1,0.5,0],'intensity':20,'range':4},"
                               "{'type':'spot','spot':{'innerConeAngle':0.2,'outerConeAngle':0.6}},"
                               "{'type':'spot','spot':{}}"));
    mn_model *m = read_ok(&glb);
    assert_int_equal(m->light_count, 4);
    const mn_light *l = m->lights;
    assert_int_equal(l[0].type, MN_LIGHT_DIRECTIONAL);
    assert_null(l[0].name);
    assert_true(l[0].color[0] == 1.0f && l[0].color[1] == 1.0f && l[0].color[2] == 1.0f);
    assert_true(l[0].intensity == 1.0f && l[0].range == 0.0f);
    assert_int_equal(l[1].type, MN_LIGHT_POINT);
    assert_string_equal(l[1].name, "bulb");
    assert_true(l[1].color[1] == 0.5f && l[1].intensity == 20.0f && l[1].range == 4.0f);
    assert_int_equal(l[2].type, MN_LIGHT_SPOT);
    assert_true(l[2].inner_cone_angle == 0.2f && l[2].outer_cone_angle == 0.6f);
    assert_true(l[3].inner_cone_angle == 0.0f && fabsf(l[3].outer_cone_angle - 0.7853982f) < 1e-6f);
    assert_int_equal(m->nodes[0].light, MN_NONE);
    assert_int_equal(m->nodes[1].light, 2);
    assert_int_equal(m->nodes[2].light, 0);
    assert_string_equal(mn_light_type_name(l[2].type), "spot");
    mn_model_free(m);
    gb_blob_free(&glb);
}

static void test_bad_lights_are_refused_naming_the_item(void **state)
{
    (void)state;
    const char *at0 = "extensions.KHR_lights_punctual.lights[0]";
    char path[128];
    snprintf(path, sizeof path, "%s.spot.innerConeAngle", at0);
    expect_refused(TWO_MESHES, LIT_NODE, LIGHTS("{'type':'spot','spot':{'innerConeAngle':0.5,'outerConeAngle':0.5}}"),
                   MN_INVALID_VALUE, path, "not below the outer cone angle");
    snprintf(path, sizeof path, "%s.spot.outerConeAngle", at0);
    expect_refused(TWO_MESHES, LIT_NODE, LIGHTS("{'type':'spot','spot':{'outerConeAngle':1.6}}"), MN_INVALID_VALUE,
                   path, "(0, pi/2]");
    snprintf(path, sizeof path, "%s.spot.innerConeAngle", at0);
    expect_refused(TWO_MESHES, LIT_NODE, LIGHTS("{'type':'spot','spot':{'innerConeAngle':-0.1}}"), MN_INVALID_VALUE,
                   path, "below the minimum");
    snprintf(path, sizeof path, "%s.spot", at0);
    expect_refused(TWO_MESHES, LIT_NODE, LIGHTS("{'type':'spot'}"), MN_MISSING_PROPERTY, path, "spot");
    snprintf(path, sizeof path, "%s.intensity", at0);
    expect_refused(TWO_MESHES, LIT_NODE, LIGHTS("{'type':'point','intensity':-1}"), MN_INVALID_VALUE, path,
                   "below the minimum");
    snprintf(path, sizeof path, "%s.range", at0);
    expect_refused(TWO_MESHES, LIT_NODE, LIGHTS("{'type':'point','range':0}"), MN_INVALID_VALUE, path,
                   "not above 0");
    snprintf(path, sizeof path, "%s.color", at0);
    expect_refused(TWO_MESHES, LIT_NODE, LIGHTS("{'type':'point','color':[1,2,1]}"), MN_INVALID_VALUE, path,
                   "[0, 1]");
    snprintf(path, sizeof path, "%s.type", at0);
    expect_refused(TWO_MESHES, LIT_NODE, LIGHTS("{'type':'area'}"), MN_INVALID_VALUE, path, "directional");
    expect_refused(TWO_MESHES, "[{'mesh':0,'extensions':{'KHR_lights_punctual':{'light':1}}}]",
                   LIGHTS("{'type':'point'}"), MN_INDEX_RANGE, "nodes[0].extensions.KHR_lights_punctual.light",
                   "1");
    /* No lights at all: every index is out of range. */
    expect_refused(TWO_MESHES, LIT_NODE, "", MN_INDEX_RANGE, "nodes[0].extensions.KHR_lights_punctual.light", "0");
}

/* ---- KHR_node_visibility -------------------------------------------------------------------- */

static void test_visibility_defaults_to_visible(void **state)
{
    (void)state;
    gb_blob glb = model(TWO_MESHES,
                        "[{'mesh':0,'children':[1,2]},{'extensions':{'KHR_node_visibility':{'visible':false}}},"
                        "{'extensions':{'KHR_node_visibility':{}}}]",
                        "0", "");
    mn_model *m = read_ok(&glb);
    assert_false(m->nodes[0].hidden);
    assert_true(m->nodes[1].hidden);
    assert_false(m->nodes[2].hidden);
    mn_model_free(m);
    gb_blob_free(&glb);
    expect_refused(TWO_MESHES, "[{'mesh':0,'extensions':{'KHR_node_visibility':{'visible':0}}}]", "", MN_JSON_TYPE,
                   "nodes[0].extensions.KHR_node_visibility.visible", "");
}

/* ---- EXT_mesh_gpu_instancing ------------------------------------------------------------------ */

#define INSTANCED(attrs) "[{'mesh':0,'extensions':{'EXT_mesh_gpu_instancing':{'attributes':{" attrs "}}}}]"

static void test_instances_are_read_as_trs(void **state)
{
    (void)state;
    gb_blob glb = model(TWO_MESHES, INSTANCED("'TRANSLATION':3,'ROTATION':4,'SCALE':6,'_ID':2"), "0", "");
    mn_model *m = read_ok(&glb);
    const mn_node *n = &m->nodes[0];
    assert_int_equal(n->instance_count, 3);
    assert_int_equal(n->instance_translation, 3);
    assert_int_equal(n->instance_rotation, 4);
    assert_int_equal(n->instance_scale, 6);
    float t[16];
    assert_true(mn_node_instance_matrix(m, 0, 0, t));
    assert_true(fabsf(t[12] + 3.0f) < 1e-6f && fabsf(t[0] - 1.0f) < 1e-6f);
    /* Instance 1: 90° about z, scale 2: x goes to 2 y. */
    assert_true(mn_node_instance_matrix(m, 0, 1, t));
    assert_true(fabsf(t[0]) < 1e-4f && fabsf(t[1] - 2.0f) < 1e-4f && fabsf(t[12]) < 1e-6f);
    assert_true(mn_node_instance_matrix(m, 0, 2, t));
    assert_true(fabsf(t[12] - 3.0f) < 1e-6f && fabsf(t[0] - 0.5f) < 1e-6f);
    assert_false(mn_node_instance_matrix(m, 0, 3, t));
    assert_true(t[0] == 1.0f && t[12] == 0.0f);
    /* The bounds hold every instance: x from -3 - 1 to 3 + 0.5. */
    assert_true(m->bounds_min[0] <= -4.0f + 1e-5f && m->bounds_max[0] >= 3.5f - 1e-5f);
    mn_model_free(m);
    gb_blob_free(&glb);
}

static void test_bad_instancing_is_refused_naming_the_attribute(void **state)
{
    (void)state;
    const char *at = "nodes[0].extensions.EXT_mesh_gpu_instancing";
    char path[128];
    snprintf(path, sizeof path, "%s.attributes.SCALE", at);
    expect_refused(TWO_MESHES, INSTANCED("'TRANSLATION':3,'SCALE':5"), "", MN_COUNT_MISMATCH, path,
                   "accessor 5 holds 2 instances, but TRANSLATION (accessor 3) holds 3");
    snprintf(path, sizeof path, "%s.attributes.TRANSLATION", at);
    expect_refused(TWO_MESHES, INSTANCED("'TRANSLATION':7"), "", MN_INVALID_VALUE, path, "must be VEC3 of FLOAT");
    snprintf(path, sizeof path, "%s.attributes.ROTATION", at);
    expect_refused(TWO_MESHES, INSTANCED("'ROTATION':8"), "", MN_INVALID_VALUE, path,
                   "VEC4 of FLOAT or normalized BYTE or SHORT");
    snprintf(path, sizeof path, "%s.attributes.SCALE", at);
    expect_refused(TWO_MESHES, INSTANCED("'SCALE':9"), "", MN_INDEX_RANGE, path, "9");
    snprintf(path, sizeof path, "%s.attributes", at);
    expect_refused(TWO_MESHES, INSTANCED("'_ID':2"), "", MN_MISSING_PROPERTY, path, "TRANSLATION, ROTATION and SCALE");
    expect_refused(TWO_MESHES,
                   "[{'mesh':0,'children':[1]},{'name':'crowd',"
                   "'extensions':{'EXT_mesh_gpu_instancing':{'attributes':{'TRANSLATION':3}}}}]",
                   "", MN_MISSING_PROPERTY, "nodes[1].extensions.EXT_mesh_gpu_instancing",
                   "node 1 (\"crowd\") instances a mesh, but it has none");
}

/* ---- KHR_materials_variants ------------------------------------------------------------------- */

#define VARIANTS                                                                                           \
    ",'extensions':{'KHR_materials_variants':{'variants':[{'name':'red'},{'name':'green'},{'name':'plain'}]}}"
#define MAPPED(mappings)                                                                                   \
    "[{'primitives':[{'attributes':{'POSITION':0,'NORMAL':1},'indices':2,'material':0,"                    \
    "'extensions':{'KHR_materials_variants':{'mappings':[" mappings "]}}}]}]"

static void test_variants_and_mappings_are_read(void **state)
{
    (void)state;
    gb_blob glb = model(MAPPED("{'material':1,'variants':[0]},{'material':2,'variants':[1,2],'name':'leaf'}"),
                        "[{'mesh':0}]", "0", VARIANTS);
    mn_model *m = read_ok(&glb);
    assert_int_equal(m->variant_count, 3);
    assert_string_equal(m->variants[0], "red");
    assert_string_equal(m->variants[2], "plain");
    const mn_primitive *p = &m->meshes[0].primitives[0];
    assert_int_equal(p->variant_mapping_count, 2);
    assert_int_equal(p->variant_mappings[0].material, 1);
    assert_int_equal(p->variant_mappings[0].variant_count, 1);
    assert_int_equal(p->variant_mappings[0].variants[0], 0);
    assert_null(p->variant_mappings[0].name);
    assert_int_equal(p->variant_mappings[1].material, 2);
    assert_int_equal(p->variant_mappings[1].variant_count, 2);
    assert_int_equal(p->variant_mappings[1].variants[1], 2);
    assert_string_equal(p->variant_mappings[1].name, "leaf");
    mn_model_free(m);
    gb_blob_free(&glb);
}

static void test_bad_variants_are_refused_naming_the_item(void **state)
{
    (void)state;
    const char *at = "meshes[0].primitives[0].extensions.KHR_materials_variants";
    char path[160];
    snprintf(path, sizeof path, "%s.mappings[1].variants[0]", at);
    expect_refused(MAPPED("{'material':1,'variants':[0]},{'material':2,'variants':[3]}"), "[{'mesh':0}]", VARIANTS,
                   MN_INDEX_RANGE, path, "3");
    snprintf(path, sizeof path, "%s.mappings[1].variants[1]", at);
    expect_refused(MAPPED("{'material':1,'variants':[0]},{'material':2,'variants':[1,0]}"), "[{'mesh':0}]",
                   VARIANTS, MN_INVALID_VALUE, path, "variant 0 (\"red\") is mapped twice");
    snprintf(path, sizeof path, "%s.mappings[0].material", at);
    expect_refused(MAPPED("{'material':3,'variants':[0]}"), "[{'mesh':0}]", VARIANTS, MN_INDEX_RANGE, path, "3");
    snprintf(path, sizeof path, "%s.mappings[0].variants", at);
    expect_refused(MAPPED("{'material':1,'variants':[]}"), "[{'mesh':0}]", VARIANTS, MN_INVALID_VALUE, path,
                   "at least one variant");
    snprintf(path, sizeof path, "meshes[0].primitives[0].extensions.KHR_materials_variants");
    expect_refused(MAPPED("{'material':1,'variants':[0]}"), "[{'mesh':0}]", "", MN_INDEX_RANGE, path,
                   "the file defines none");
    expect_refused(TWO_MESHES, "[{'mesh':0}]", ",'extensions':{'KHR_materials_variants':{'variants':[{}]}}",
                   MN_MISSING_PROPERTY, "extensions.KHR_materials_variants.variants[0].name", "name");
}

/* ---- all four, required, and round trips ------------------------------------------------------- */

#define ALL_NODES                                                                                          \
    "[{'mesh':0,'children':[1,2,3]},"                                                                      \
    "{'translation':[0,0,3],'extensions':{'KHR_lights_punctual':{'light':1}}},"                            \
    "{'mesh':0,'translation':[0,4,0],'extensions':{'KHR_node_visibility':{'visible':false}}},"             \
    "{'mesh':0,'translation':[0,-4,0],'extensions':{'EXT_mesh_gpu_instancing':"                            \
    "{'attributes':{'TRANSLATION':3,'ROTATION':4,'SCALE':6}},'KHR_lights_punctual':{'light':0}}}]"
#define ALL_ROOT                                                                                           \
    ",'extensionsRequired':[" ALL_FOUR "],'extensions':{'KHR_lights_punctual':{'lights':["                 \
    "{'type':'directional','color':[0.5,0.5,1],'intensity':3},"                                            \
    "{'name':'lamp','type':'spot','range':9,'spot':{'innerConeAngle':0.1,'outerConeAngle':0.9}},"          \
    "{'type':'point','intensity':0}]},"                                                                    \
    "'KHR_materials_variants':{'variants':[{'name':'red'},{'name':'green'},{'name':'plain'}]}}"

static gb_blob all_four(void)
{
    return model(MAPPED("{'material':1,'variants':[0]},{'material':2,'variants':[1,2],'name':'leaf'}"), ALL_NODES,
                 "0", ALL_ROOT);
}

static void test_a_file_requiring_all_four_loads(void **state)
{
    (void)state;
    gb_blob glb = all_four();
    mn_model *m = read_ok(&glb);
    assert_int_equal(m->extensions_required_count, 4);
    assert_int_equal(m->warning_count, 0);
    assert_int_equal(m->light_count, 3);
    assert_true(m->nodes[2].hidden);
    assert_int_equal(m->nodes[3].instance_count, 3);
    assert_int_equal(m->variant_count, 3);
    mn_model_free(m);
    gb_blob_free(&glb);
}

static void expect_same_extensions(const mn_model *a, const mn_model *b)
{
    assert_int_equal(a->light_count, b->light_count);
    for (uint32_t i = 0; i < a->light_count; i++) {
        const mn_light *x = &a->lights[i], *y = &b->lights[i];
        assert_int_equal(x->type, y->type);
        assert_true((x->name == NULL) == (y->name == NULL));
        if (x->name)
            assert_string_equal(x->name, y->name);
        assert_memory_equal(x->color, y->color, sizeof x->color);
        assert_true(x->intensity == y->intensity && x->range == y->range);
        assert_true(x->inner_cone_angle == y->inner_cone_angle && x->outer_cone_angle == y->outer_cone_angle);
    }
    assert_int_equal(a->node_count, b->node_count);
    for (uint32_t n = 0; n < a->node_count; n++) {
        assert_int_equal(a->nodes[n].light, b->nodes[n].light);
        assert_int_equal(a->nodes[n].hidden, b->nodes[n].hidden);
        assert_int_equal(a->nodes[n].instance_count, b->nodes[n].instance_count);
        for (uint32_t i = 0; i < a->nodes[n].instance_count; i++) {
            float x[16], y[16];
            assert_true(mn_node_instance_matrix(a, n, i, x));
            assert_true(mn_node_instance_matrix(b, n, i, y));
            assert_memory_equal(x, y, sizeof x);
        }
    }
    assert_int_equal(a->variant_count, b->variant_count);
    for (uint32_t v = 0; v < a->variant_count; v++)
        assert_string_equal(a->variants[v], b->variants[v]);
    const mn_primitive *p = &a->meshes[0].primitives[0], *q = &b->meshes[0].primitives[0];
    assert_int_equal(p->variant_mapping_count, q->variant_mapping_count);
    for (uint32_t k = 0; k < p->variant_mapping_count; k++) {
        const mn_variant_mapping *x = &p->variant_mappings[k], *y = &q->variant_mappings[k];
        assert_int_equal(x->material, y->material);
        assert_int_equal(x->variant_count, y->variant_count);
        assert_memory_equal(x->variants, y->variants, x->variant_count * sizeof *x->variants);
        assert_true((x->name == NULL) == (y->name == NULL));
        if (x->name)
            assert_string_equal(x->name, y->name);
    }
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return;   /* a GLB has no .bin */
    FILE *out = fopen(to, "wb");
    assert_non_null(out);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

/* Keep a written model for the validator: $MN_WRITE_OUT/extensions-<variant>/model.*. */
static void keep_for_validator(const char *dir, const char *name, const char *variant)
{
    const char *out = getenv("MN_WRITE_OUT");
    if (!out || !out[0])
        return;
    char folder[512], from[1024], to[1024];
    snprintf(folder, sizeof folder, "%.400s/extensions-%.32s", out, variant);
    mkdir(folder, 0777);
    snprintf(from, sizeof from, "%s/%s", dir, name);
    snprintf(to, sizeof to, "%s/%s", folder, name);
    copy_file(from, to);
    snprintf(from, sizeof from, "%s/model.bin", dir);
    snprintf(to, sizeof to, "%s/model.bin", folder);
    copy_file(from, to);
}

static void test_read_write_read_keeps_all_four(void **state)
{
    (void)state;
    gb_blob glb = all_four();
    mn_model *m = read_ok(&glb);
    static const char *const names[2] = {"model.glb", "model.gltf"};
    for (int quantize = 0; quantize < 2; quantize++)
        for (int k = 0; k < 2; k++) {
            gb_tempdir dir;
            assert_true(gb_tempdir_create(&dir));
            char path[700];
            snprintf(path, sizeof path, "%s/%s", dir.path, names[k]);
            mn_gltf_write_options o = {.quantize = quantize != 0};
            mn_error err;
            if (mn_gltf_write_file(m, path, &o, &err) != MN_OK)
                fail_msg("%s", err.message);
            mn_model *back = NULL;
            if (mn_gltf_read_file(path, NULL, &back, &err) != MN_OK)
                fail_msg("%s: %s", path, err.message);
            expect_same_extensions(m, back);
            char variant[32];
            snprintf(variant, sizeof variant, "%s%s", k ? "gltf" : "glb", quantize ? "-quantized" : "");
            keep_for_validator(dir.path, names[k], variant);
            mn_model_free(back);
            /* the writer's files were not made through the tempdir: remove them first */
            char bin[700];
            snprintf(bin, sizeof bin, "%s/model.bin", dir.path);
            remove(bin);
            remove(path);
            gb_tempdir_remove(&dir);
        }
    mn_model_free(m);
    gb_blob_free(&glb);
}

/* ---- marionette info ------------------------------------------------------------------------------ */

static void test_info_lists_lights_instances_hidden_nodes_and_variants(void **state)
{
    (void)state;
    gb_blob glb = all_four();
    gb_tempdir dir;
    assert_true(gb_tempdir_create(&dir));
    const char *path = gb_tempdir_write(&dir, "all.glb", glb.data, glb.size);
    assert_non_null(path);
    char args[700];
    snprintf(args, sizeof args, "info '%s'", path);
    run_result r = mn_run_tool("marionette", args, 0);
    print_message("%s", r.out);
    assert_int_equal(r.status, 0);
    static const char *const lines[] = {
        "lights (3)\n",
        "  light 0: directional, colour (0.5, 0.5, 1), intensity 3, node 3\n",
        "  light 1 \"lamp\": spot, colour (1, 1, 1), intensity 1, range 9, cone 0.1 to 0.9 rad, node 1\n",
        "  light 2: point, colour (1, 1, 1), intensity 0, range infinite, on no node\n",
        "instanced nodes (1)\n  node 3: 3 instances of mesh 0 (translation, rotation, scale)\n",
        "hidden nodes (1), with what lies under them\n  node 2\n",
        "variants (3)\n  variant 0 \"red\": 1 primitive\n  variant 1 \"green\": 1 primitive\n",
        "#3  [mesh 0]  [light 0]  [3 instances]\n",
        "#2  [mesh 0]  [hidden]\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        if (!strstr(r.out, lines[i]))
            fail_msg("info does not print: %s", lines[i]);
    run_free(&r);
    snprintf(args, sizeof args, "info --json '%s'", path);
    r = mn_run_tool("marionette", args, 0);
    assert_int_equal(r.status, 0);
    static const char *const keys[] = {"\"instance_count\": 3", "\"hidden\": true", "\"type\": \"spot\"",
                                       "\"primitive_count\": 1", "\"name\": \"lamp\""};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strstr(r.out, keys[i]))
            fail_msg("info --json does not print: %s", keys[i]);
    run_free(&r);
    gb_tempdir_remove(&dir);
    gb_blob_free(&glb);
}

/* ---- the sample asset ----------------------------------------------------------------------------- */

static void test_simple_instancing_loads_its_instances(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *m = NULL;
    mn_error err;
    const char *path = mn_test_asset("gltf/SimpleInstancing/glTF-Binary/SimpleInstancing.glb");
    if (mn_gltf_read_file(path, NULL, &m, &err) != MN_OK)
        fail_msg("%s", err.message);
    assert_int_equal(m->warning_count, 0);
    assert_int_equal(m->nodes[0].instance_count, 125);
    float worlds[16];
    mn_model_rest_worlds(m, worlds);
    for (uint32_t i = 0; i < 125; i++) {
        float local[16], w[16];
        assert_true(mn_node_instance_matrix(m, 0, i, local));
        mn_mat4_mul(w, worlds, local);
        for (int k = 0; k < 3; k++)
            assert_true(w[12 + k] >= m->bounds_min[k] && w[12 + k] <= m->bounds_max[k]);
    }
    mn_rig *rig = NULL;
    mn_instance *inst = NULL;
    mn_render_source *src = NULL;
    assert_int_equal(mn_rig_create(m, NULL, &rig, &err), MN_OK);
    assert_int_equal(mn_instance_create(rig, NULL, &inst, &err), MN_OK);
    assert_int_equal(mn_render_source_gltf(inst, NULL, &src, &err), MN_OK);
    assert_int_equal(mn_render_source_scene(src)->mesh_count, 125);
    mn_render_source_free(src);
    mn_instance_free(inst);
    mn_rig_free(rig);
    mn_model_free(m);
}

/* ---- drawing ------------------------------------------------------------------------------------------- */

#define SIDE 48u

/* Load, make the source, draw the front view at SIDE × SIDE. */
static mn_rgba_image draw(const gb_blob *glb)
{
    mn_model *model = read_ok(glb);
    mn_rig *rig = NULL;
    mn_instance *inst = NULL;
    mn_render_source *src = NULL;
    mn_renderer *r = NULL;
    mn_error err;
    assert_int_equal(mn_rig_create(model, NULL, &rig, &err), MN_OK);
    assert_int_equal(mn_instance_create(rig, NULL, &inst, &err), MN_OK);
    assert_int_equal(mn_render_source_gltf(inst, NULL, &src, &err), MN_OK);
    const mn_render_scene *scene = mn_render_source_scene(src);
    mn_render_options o = {.width = SIDE, .height = SIDE, .supersample = 1, .threads = 1,
                           .max_triangles = mn_render_scene_triangle_count(scene)};
    assert_int_equal(mn_renderer_create(&o, &r, &err), MN_OK);
    float lo[3], hi[3];
    mn_render_bounds_reset(lo, hi);
    mn_render_scene_bounds(scene, lo, hi);
    mn_render_view view = {.kind = MN_VIEW_FRONT, .margin = 0.1f};
    mn_render_camera cam;
    assert_int_equal(mn_render_camera_frame(lo, hi, &view, 1.0f, &cam, &err), MN_OK);
    mn_rgba_image img;
    assert_int_equal(mn_rgba_image_create(SIDE, SIDE, NULL, &img, &err), MN_OK);
    assert_int_equal(mn_renderer_draw(r, scene, &cam, &img, &err), MN_OK);
    mn_renderer_free(r);
    mn_render_source_free(src);
    mn_instance_free(inst);
    mn_rig_free(rig);
    mn_model_free(model);
    return img;
}

static const uint8_t *px(const mn_rgba_image *img, uint32_t x, uint32_t y)
{
    return img->pixels + 4 * ((size_t)y * img->width + x);
}

static void test_a_red_point_light_tints_the_lit_side(void **state)
{
    (void)state;
    gb_blob plain = model(TWO_MESHES, "[{'mesh':0}]", "0", "");
    gb_blob lit = model(TWO_MESHES, "[{'mesh':0,'children':[1]},{'translation':[-0.8,0,0.5],"
                                    "'extensions':{'KHR_lights_punctual':{'light':0}}}]",
                        "0", LIGHTS("{'type':'point','color':[1,0,0],'intensity':2}"));
    mn_rgba_image a = draw(&plain), b = draw(&lit);
    uint32_t left = SIDE / 4, right = SIDE - 1 - SIDE / 4, mid = SIDE / 2;
    const uint8_t *p = px(&a, left, mid);
    print_message("    no light: %u %u %u; red light left %u %u %u, right %u %u %u\n", p[0], p[1], p[2],
                  px(&b, left, mid)[0], px(&b, left, mid)[1], px(&b, left, mid)[2], px(&b, right, mid)[0],
                  px(&b, right, mid)[1], px(&b, right, mid)[2]);
    assert_true(p[3] == 255 && abs((int)p[0] - (int)p[1]) <= 2 && abs((int)p[1] - (int)p[2]) <= 2);
    const uint8_t *l = px(&b, left, mid), *r = px(&b, right, mid);
    assert_int_equal(l[3], 255);
    assert_true(l[0] > l[1] + 100 && l[1] == l[2]);   /* red on the lit side, green and blue ambient only */
    assert_true(l[0] > r[0] + 40);                     /* nearer the light, brighter */
    assert_true(r[0] > r[1]);
    mn_rgba_image_free(&a);
    mn_rgba_image_free(&b);
    gb_blob_free(&plain);
    gb_blob_free(&lit);
}

/* Pixels not of the background (alpha above 0), and runs of them along the middle row. */
static uint32_t coverage(const mn_rgba_image *img, uint32_t *runs)
{
    uint32_t n = 0;
    for (size_t i = 0; i < (size_t)img->width * img->height; i++)
        n += img->pixels[4 * i + 3] > 0;
    *runs = 0;
    bool in = false;
    for (uint32_t x = 0; x < img->width; x++) {
        bool on = px(img, x, img->height / 2)[3] > 0;
        *runs += on && !in;
        in = on;
    }
    return n;
}

static void test_instances_draw_what_as_many_nodes_draw(void **state)
{
    (void)state;
    gb_blob instanced = model(TWO_MESHES, INSTANCED("'TRANSLATION':3"), "0", "");
    gb_blob expanded = model(TWO_MESHES,
                             "[{'mesh':0,'translation':[-3,0,0]},{'mesh':0},{'mesh':0,'translation':[3,0,0]}]",
                             "0,1,2", "");
    mn_rgba_image a = draw(&instanced), b = draw(&expanded);
    uint32_t runs_a, runs_b;
    uint32_t cov_a = coverage(&a, &runs_a), cov_b = coverage(&b, &runs_b);
    uint32_t differ = 0;
    for (size_t i = 0; i < (size_t)SIDE * SIDE * 4; i++)
        differ += abs((int)a.pixels[i] - (int)b.pixels[i]) > 2;
    print_message("    instanced: %u pixels in %u blobs; nodes: %u in %u; %u bytes differ\n", cov_a, runs_a, cov_b,
                  runs_b, differ);
    assert_int_equal(runs_a, 3);
    assert_int_equal(runs_b, 3);
    assert_int_equal(cov_a, cov_b);
    assert_true(differ <= SIDE);   /* edge samples at most, from the order of one matrix product */
    mn_rgba_image_free(&a);
    mn_rgba_image_free(&b);
    gb_blob_free(&instanced);
    gb_blob_free(&expanded);
}

static void test_a_hidden_node_and_its_children_draw_nothing(void **state)
{
    (void)state;
    /* Node 1 (hidden) holds node 3, a red half-size quad in front of the white one; node 2 at the
       side keeps the bounds the same whether node 3 draws or not. */
    const char *nodes = "[{'mesh':0},{'translation':[0,0,0.1],'children':[3]%s},"
                        "{'mesh':0,'translation':[4,0,0.2]},{'scale':[0.5,0.5,0.5]%s}]";
    char hidden[512], shown[512], without[512];
    snprintf(hidden, sizeof hidden, nodes, ",'extensions':{'KHR_node_visibility':{'visible':false}}", ",'mesh':1");
    snprintf(shown, sizeof shown, nodes, "", ",'mesh':1");
    snprintf(without, sizeof without, nodes, "", "");
    gb_blob g_hidden = model(TWO_MESHES, hidden, "0,1,2", "");
    gb_blob g_shown = model(TWO_MESHES, shown, "0,1,2", "");
    gb_blob g_without = model(TWO_MESHES, without, "0,1,2", "");
    mn_rgba_image a = draw(&g_hidden), b = draw(&g_shown), c = draw(&g_without);
    assert_memory_equal(a.pixels, c.pixels, (size_t)SIDE * SIDE * 4);
    assert_memory_not_equal(b.pixels, c.pixels, (size_t)SIDE * SIDE * 4);
    mn_rgba_image_free(&a);
    mn_rgba_image_free(&b);
    mn_rgba_image_free(&c);
    gb_blob_free(&g_hidden);
    gb_blob_free(&g_shown);
    gb_blob_free(&g_without);
}

/* A 2×2 quad facing +z drawn from the front with `lights` (none: `count` 0 and lights NULL). */
static mn_rgba_image draw_lit_quad(const mn_render_light *lights, uint32_t count)
{
    static const float pos[12] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0};
    static const float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    static const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    mn_render_mesh mesh = {.vertex_count = 4, .positions = pos, .normals = nrm, .indices = idx, .index_count = 6,
                           .material = MN_NONE};
    mn_render_scene scene = {.meshes = &mesh, .mesh_count = 1, .lights = lights, .light_count = count};
    mn_renderer *r = NULL;
    mn_error err;
    mn_render_options o = {.width = SIDE, .height = SIDE, .supersample = 1, .max_triangles = 2};
    assert_int_equal(mn_renderer_create(&o, &r, &err), MN_OK);
    const float lo[3] = {-1, -1, 0}, hi[3] = {1, 1, 0};
    mn_render_view view = {.kind = MN_VIEW_FRONT, .margin = 0.01f};
    mn_render_camera cam;
    assert_int_equal(mn_render_camera_frame(lo, hi, &view, 1.0f, &cam, &err), MN_OK);
    mn_rgba_image img;
    assert_int_equal(mn_rgba_image_create(SIDE, SIDE, NULL, &img, &err), MN_OK);
    assert_int_equal(mn_renderer_draw(r, &scene, &cam, &img, &err), MN_OK);
    mn_renderer_free(r);
    return img;
}

static void test_lights_follow_the_extension_falloffs(void **state)
{
    (void)state;
    /* A black light leaves the ambient alone: the level every other case is measured from. */
    mn_render_light dark = {.type = MN_LIGHT_POINT, .position = {0, 0, 1}};
    mn_rgba_image ambient = draw_lit_quad(&dark, 1);
    uint8_t base = px(&ambient, SIDE / 2, SIDE / 2)[0];
    assert_int_equal(px(&ambient, 2, 2)[0], base);
    /* Directional: from the front lights all of it alike, from behind nothing. */
    mn_render_light front = {.type = MN_LIGHT_DIRECTIONAL, .color = {0.5f, 0.5f, 0.5f}, .direction = {0, 0, -1}};
    mn_render_light behind = front;
    behind.direction[2] = 1.0f;
    mn_rgba_image a = draw_lit_quad(&front, 1), b = draw_lit_quad(&behind, 1);
    assert_true(px(&a, SIDE / 2, SIDE / 2)[0] > base + 50);
    assert_int_equal(px(&a, 2, 2)[0], px(&a, SIDE / 2, SIDE / 2)[0]);
    assert_int_equal(px(&b, SIDE / 2, SIDE / 2)[0], base);
    mn_rgba_image_free(&a);
    mn_rgba_image_free(&b);
    /* Spot, 1 above the centre, outer cone 0.3 rad: the centre lit, a corner (0.9 rad off) not. */
    mn_render_light spot = {.type = MN_LIGHT_SPOT, .color = {1, 1, 1}, .position = {0, 0, 1}, .direction = {0, 0, -1},
                            .inner_cos = cosf(0.1f), .outer_cos = cosf(0.3f)};
    a = draw_lit_quad(&spot, 1);
    assert_true(px(&a, SIDE / 2, SIDE / 2)[0] > base + 50);
    assert_int_equal(px(&a, 2, 2)[0], base);
    mn_rgba_image_free(&a);
    /* Point with range 0.5, 1 from the plane: the window is 0 everywhere.  Range 4: lit. */
    mn_render_light near = {.type = MN_LIGHT_POINT, .color = {1, 1, 1}, .position = {0, 0, 1}, .range = 0.5f};
    mn_render_light far = near;
    far.range = 4.0f;
    a = draw_lit_quad(&near, 1);
    b = draw_lit_quad(&far, 1);
    assert_int_equal(px(&a, SIDE / 2, SIDE / 2)[0], base);
    assert_true(px(&b, SIDE / 2, SIDE / 2)[0] > base + 50);
    /* Inverse square: the centre (d = 1) brighter than a corner (d = sqrt 3, and slanted). */
    assert_true(px(&b, SIDE / 2, SIDE / 2)[0] > px(&b, 2, 2)[0] + 30);
    mn_rgba_image_free(&a);
    mn_rgba_image_free(&b);
    mn_rgba_image_free(&ambient);
    /* A light that is not finite is refused. */
    mn_render_light bad = near;
    bad.position[0] = NAN;
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    mn_render_mesh mesh = {.vertex_count = 3, .positions = pos, .material = MN_NONE};
    mn_render_scene scene = {.meshes = &mesh, .mesh_count = 1, .lights = &bad, .light_count = 1};
    mn_renderer *r = NULL;
    mn_error err;
    assert_int_equal(mn_renderer_create(&(mn_render_options){.width = 4, .height = 4, .max_triangles = 1}, &r, &err),
                     MN_OK);
    mn_render_camera cam;
    const float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 0};
    assert_int_equal(mn_render_camera_frame(lo, hi, &(mn_render_view){0}, 1.0f, &cam, &err), MN_OK);
    mn_rgba_image img;
    assert_int_equal(mn_rgba_image_create(4, 4, NULL, &img, &err), MN_OK);
    assert_int_equal(mn_renderer_draw(r, &scene, &cam, &img, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "lights[0]"));
    mn_rgba_image_free(&img);
    mn_renderer_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lights_are_read_with_their_defaults),
        cmocka_unit_test(test_bad_lights_are_refused_naming_the_item),
        cmocka_unit_test(test_visibility_defaults_to_visible),
        cmocka_unit_test(test_instances_are_read_as_trs),
        cmocka_unit_test(test_bad_instancing_is_refused_naming_the_attribute),
        cmocka_unit_test(test_variants_and_mappings_are_read),
        cmocka_unit_test(test_bad_variants_are_refused_naming_the_item),
        cmocka_unit_test(test_a_file_requiring_all_four_loads),
        cmocka_unit_test(test_read_write_read_keeps_all_four),
        cmocka_unit_test(test_info_lists_lights_instances_hidden_nodes_and_variants),
        cmocka_unit_test(test_simple_instancing_loads_its_instances),
        cmocka_unit_test(test_a_red_point_light_tints_the_lit_side),
        cmocka_unit_test(test_lights_follow_the_extension_falloffs),
        cmocka_unit_test(test_instances_draw_what_as_many_nodes_draw),
        cmocka_unit_test(test_a_hidden_node_and_its_children_draw_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
