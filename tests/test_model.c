/*
 * The pure functions over a loaded model (src/model/query.c), on models
 * built by hand: attribute lookup, local and rest world matrices, skin
 * influences, colours, the stride-8 soup (flat normals, the world bake) and
 * the world-space bounds of the default scene.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/gltf.h>
#include <marionette/math.h>
#include <marionette/model.h>

#include "assert_near.h"
#include "counting_alloc.h"
#include "model/model.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static mn_accessor make_accessor(const void *data, uint32_t count, uint32_t stride,
                                 mn_component component, mn_accessor_type type, bool normalized)
{
    mn_accessor a;
    memset(&a, 0, sizeof a);
    a.data = data;
    a.count = count;
    a.stride = stride;
    a.component = component;
    a.type = type;
    a.normalized = normalized;
    return a;
}

static mn_node make_node(uint32_t parent)
{
    mn_node n;
    memset(&n, 0, sizeof n);
    n.parent = parent;
    n.rotation[3] = 1.0f;
    n.scale[0] = n.scale[1] = n.scale[2] = 1.0f;
    n.mesh = n.skin = n.camera = MN_NONE;
    return n;
}

static mn_primitive make_primitive(mn_attribute *attributes, uint32_t attribute_count,
                                   uint32_t vertex_count)
{
    mn_primitive p;
    memset(&p, 0, sizeof p);
    p.mode = p.original_mode = MN_MODE_TRIANGLES;
    p.indices = MN_NONE;
    p.material = MN_NONE;
    p.attributes = attributes;
    p.attribute_count = attribute_count;
    p.vertex_count = vertex_count;
    return p;
}

static mn_model make_model(mn_accessor *accessors, uint32_t accessor_count)
{
    mn_model m;
    memset(&m, 0, sizeof m);
    m.accessors = accessors;
    m.accessor_count = accessor_count;
    m.scene = MN_NONE;
    return m;
}

/* ---- attributes and nodes --------------------------------------------------------- */

static void primitive_find_matches_semantic_and_set(void **state)
{
    (void)state;
    mn_attribute attrs[] = {
        {"POSITION", MN_SEMANTIC_POSITION, 0, 4},
        {"TEXCOORD_0", MN_SEMANTIC_TEXCOORD, 0, 7},
        {"TEXCOORD_1", MN_SEMANTIC_TEXCOORD, 1, 9},
    };
    mn_primitive p = make_primitive(attrs, 3, 0);
    assert_int_equal(mn_primitive_find(&p, MN_SEMANTIC_POSITION, 0), 4);
    assert_int_equal(mn_primitive_find(&p, MN_SEMANTIC_TEXCOORD, 0), 7);
    assert_int_equal(mn_primitive_find(&p, MN_SEMANTIC_TEXCOORD, 1), 9);
    assert_int_equal(mn_primitive_find(&p, MN_SEMANTIC_TEXCOORD, 2), MN_NONE);
    assert_int_equal(mn_primitive_find(&p, MN_SEMANTIC_NORMAL, 0), MN_NONE);
    assert_int_equal(mn_primitive_find(NULL, MN_SEMANTIC_POSITION, 0), MN_NONE);
}

static void node_local_matrix_is_t_r_s(void **state)
{
    (void)state;
    mn_node n = make_node(MN_NONE);
    n.translation[0] = 1.0f, n.translation[1] = 2.0f, n.translation[2] = 3.0f;
    n.rotation[1] = 1.0f, n.rotation[3] = 0.0f; /* 180° about Y */
    n.scale[0] = 2.0f, n.scale[1] = 3.0f, n.scale[2] = 4.0f;
    float m[16];
    mn_node_local_matrix(&n, m);
    const float want[16] = {-2, 0, 0, 0, 0, 3, 0, 0, 0, 0, -4, 0, 1, 2, 3, 1};
    assert_vec_near(m, want, 16, 0.0);
}

static void rest_worlds_compose_parents_listed_after_children(void **state)
{
    (void)state;
    /* chain 0 → 1 → 2 (root last), plus an independent root 3 */
    mn_node nodes[4] = {make_node(1), make_node(2), make_node(MN_NONE), make_node(MN_NONE)};
    uint32_t c1[] = {0}, c2[] = {1};
    nodes[1].children = c1, nodes[1].child_count = 1;
    nodes[2].children = c2, nodes[2].child_count = 1;
    nodes[0].translation[0] = 1.0f;
    nodes[1].translation[1] = 2.0f;
    nodes[2].translation[2] = 3.0f;
    nodes[2].scale[0] = nodes[2].scale[1] = nodes[2].scale[2] = 2.0f;
    nodes[3].translation[0] = -5.0f;
    mn_model model = make_model(NULL, 0);
    model.nodes = nodes;
    model.node_count = 4;
    float w[64];
    mn_model_rest_worlds(&model, w);
    const float w2[16] = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 3, 1};
    const float w1[16] = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 4, 3, 1};
    const float w0[16] = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 2, 4, 3, 1};
    const float w3[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -5, 0, 0, 1};
    assert_vec_near(w + 0, w0, 16, 0.0);
    assert_vec_near(w + 16, w1, 16, 0.0);
    assert_vec_near(w + 32, w2, 16, 0.0);
    assert_vec_near(w + 48, w3, 16, 0.0);
}

static void rest_worlds_terminate_on_a_hand_built_cycle(void **state)
{
    (void)state;
    mn_node nodes[3] = {make_node(1), make_node(0), make_node(0)};
    mn_model model = make_model(NULL, 0);
    model.nodes = nodes;
    model.node_count = 3;
    float w[48];
    mn_model_rest_worlds(&model, w); /* unspecified values, but it returns */
    for (int i = 0; i < 3; i++)
        assert_true(w[16 * i + 15] == 1.0f);
}

static void rest_worlds_follow_node_order_with_children_listed_first(void **state)
{
    (void)state;
    /* the chain 0 → 1 → 2 (root last) and the root 3, with their parent-first order */
    mn_node nodes[4] = {make_node(1), make_node(2), make_node(MN_NONE), make_node(MN_NONE)};
    uint32_t c1[] = {0}, c2[] = {1};
    const uint32_t order[] = {2, 1, 0, 3};
    nodes[1].children = c1, nodes[1].child_count = 1;
    nodes[2].children = c2, nodes[2].child_count = 1;
    nodes[0].translation[0] = 1.0f;
    nodes[1].translation[1] = 2.0f;
    nodes[1].rotation[2] = 1.0f, nodes[1].rotation[3] = 0.0f; /* 180° about Z */
    nodes[2].translation[2] = 3.0f;
    nodes[2].scale[0] = nodes[2].scale[1] = nodes[2].scale[2] = 2.0f;
    nodes[3].translation[0] = -5.0f;
    mn_model model = make_model(NULL, 0);
    model.nodes = nodes;
    model.node_count = 4;
    model.node_order = order;
    float w[64], chained[64];
    mn_model_rest_worlds(&model, w);
    const float w2[16] = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 3, 1};
    const float w1[16] = {-2, 0, 0, 0, 0, -2, 0, 0, 0, 0, 2, 0, 0, 4, 3, 1};
    const float w0[16] = {-2, 0, 0, 0, 0, -2, 0, 0, 0, 0, 2, 0, -2, 4, 3, 1};
    const float w3[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -5, 0, 0, 1};
    assert_vec_near(w + 0, w0, 16, 0.0);
    assert_vec_near(w + 16, w1, 16, 0.0);
    assert_vec_near(w + 32, w2, 16, 0.0);
    assert_vec_near(w + 48, w3, 16, 0.0);
    /* the parent-chain walk used without an order gives the same matrices */
    model.node_order = NULL;
    mn_model_rest_worlds(&model, chained);
    assert_vec_near(chained, w, 64, 0.0);
}

static void reader_orders_nodes_parents_first_roots_in_index_order(void **state)
{
    (void)state;
    /* roots 2 and 4; node 1 lists its children 3 then 0 */
    static const char gltf[] =
        "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": ["
        "{\"translation\": [4, 0, 0]},"
        "{\"translation\": [0, 2, 0], \"children\": [3, 0]},"
        "{\"translation\": [1, 0, 0], \"children\": [1]},"
        "{\"translation\": [0, 0, 3]},"
        "{\"translation\": [0, 0, -1], \"scale\": [2, 2, 2], \"children\": [5]},"
        "{\"translation\": [5, 0, 0]}]}";
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_memory(gltf, sizeof gltf - 1, NULL, &m, &err), MN_OK);
    assert_int_equal(m->node_count, 6);
    assert_non_null(m->node_order);
    const uint32_t want[] = {2, 1, 3, 0, 4, 5};
    for (uint32_t k = 0; k < 6; k++)
        assert_int_equal(m->node_order[k], want[k]);
    float w[96];
    mn_model_rest_worlds(m, w);
    const float t[6][3] = {{5, 2, 0}, {1, 2, 0}, {1, 0, 0}, {1, 2, 3}, {0, 0, -1}, {10, 0, -1}};
    for (int i = 0; i < 6; i++)
        assert_vec_near(w + 16 * i + 12, t[i], 3, 0.0);
    mn_model_free(m);
}

/* ---- skin influences ---------------------------------------------------------------- */

static void skin_influences_normalise_weights_and_fix_all_zero(void **state)
{
    (void)state;
    const uint8_t joints[12] = {1, 2, 0, 0, 3, 0, 0, 0, 7, 6, 5, 4};
    const float weights[12] = {2, 2, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
    mn_accessor acc[2] = {make_accessor(joints, 3, 4, MN_COMPONENT_U8, MN_TYPE_VEC4, false),
                          make_accessor(weights, 3, 16, MN_COMPONENT_F32, MN_TYPE_VEC4, false)};
    mn_attribute attrs[] = {{"JOINTS_0", MN_SEMANTIC_JOINTS, 0, 0},
                            {"WEIGHTS_0", MN_SEMANTIC_WEIGHTS, 0, 1}};
    mn_primitive p = make_primitive(attrs, 2, 3);
    mn_model model = make_model(acc, 2);
    uint16_t j[12];
    float w[12];
    assert_true(mn_primitive_skin_influences(&model, &p, j, w));
    const uint16_t want_j[12] = {1, 2, 0, 0, 3, 0, 0, 0, 7, 6, 5, 4};
    const float want_w[12] = {0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 0.25f, 0.25f, 0.25f, 0.25f};
    assert_memory_equal(j, want_j, sizeof want_j);
    assert_vec_near(w, want_w, 12, 0.0);
}

static void skin_influences_read_u16_joints_and_normalized_weights(void **state)
{
    (void)state;
    const uint16_t joints[8] = {300, 2, 1, 0, 65535, 0, 0, 0};
    const uint8_t w8[8] = {51, 51, 0, 0, 0, 0, 0, 0};
    const uint16_t w16[8] = {65535, 0, 0, 0, 13107, 13107, 13107, 13107};
    mn_accessor acc[3] = {make_accessor(joints, 2, 8, MN_COMPONENT_U16, MN_TYPE_VEC4, false),
                          make_accessor(w8, 2, 4, MN_COMPONENT_U8, MN_TYPE_VEC4, true),
                          make_accessor(w16, 2, 8, MN_COMPONENT_U16, MN_TYPE_VEC4, true)};
    mn_attribute attrs[] = {{"JOINTS_0", MN_SEMANTIC_JOINTS, 0, 0},
                            {"WEIGHTS_0", MN_SEMANTIC_WEIGHTS, 0, 1}};
    mn_primitive p = make_primitive(attrs, 2, 2);
    mn_model model = make_model(acc, 3);
    uint16_t j[8];
    float w[8];
    assert_true(mn_primitive_skin_influences(&model, &p, j, w));
    const uint16_t want_j[8] = {300, 2, 1, 0, 65535, 0, 0, 0};
    /* 0.2 + 0.2 normalises to halves; the all-zero quad becomes [1,0,0,0] */
    const float want_w8[8] = {0.5f, 0.5f, 0, 0, 1, 0, 0, 0};
    assert_memory_equal(j, want_j, sizeof want_j);
    assert_vec_near(w, want_w8, 8, 0.0);

    attrs[1].accessor = 2;
    assert_true(mn_primitive_skin_influences(&model, &p, j, w));
    const float want_w16[8] = {1, 0, 0, 0, 0.25f, 0.25f, 0.25f, 0.25f};
    assert_vec_near(w, want_w16, 8, 0.0);

    /* no WEIGHTS_0 */
    mn_primitive q = make_primitive(attrs, 1, 2);
    assert_false(mn_primitive_skin_influences(&model, &q, j, w));
}

static void skin_influences_cross_chunk_boundaries(void **state)
{
    (void)state;
    enum { N = 300 };
    static uint16_t joints[4 * N];
    static uint8_t weights[4 * N];
    for (int v = 0; v < N; v++) {
        joints[4 * v] = (uint16_t)v;
        joints[4 * v + 1] = (uint16_t)(v + 1);
        weights[4 * v] = (uint8_t)(v % 2 ? 255 : 0);
        weights[4 * v + 1] = (uint8_t)(v % 2 ? 255 : 0);
    }
    mn_accessor acc[2] = {make_accessor(joints, N, 8, MN_COMPONENT_U16, MN_TYPE_VEC4, false),
                          make_accessor(weights, N, 4, MN_COMPONENT_U8, MN_TYPE_VEC4, true)};
    mn_attribute attrs[] = {{"JOINTS_0", MN_SEMANTIC_JOINTS, 0, 0},
                            {"WEIGHTS_0", MN_SEMANTIC_WEIGHTS, 0, 1}};
    mn_primitive p = make_primitive(attrs, 2, N);
    mn_model model = make_model(acc, 2);
    static uint16_t j[4 * N];
    static float w[4 * N];
    assert_true(mn_primitive_skin_influences(&model, &p, j, w));
    for (int v = 0; v < N; v++) {
        assert_int_equal(j[4 * v], v);
        assert_int_equal(j[4 * v + 1], v + 1);
        const float odd[4] = {0.5f, 0.5f, 0, 0}, even[4] = {1, 0, 0, 0};
        assert_vec_near(w + 4 * v, v % 2 ? odd : even, 4, 0.0);
    }
}

/* ---- colours -------------------------------------------------------------------------- */

static void colors_expand_to_rgba_floats(void **state)
{
    (void)state;
    const uint8_t rgb8[6] = {255, 0, 51, 0, 255, 0};
    const uint16_t rgba16[8] = {65535, 0, 13107, 0, 0, 65535, 0, 65535};
    const float rgbaf[8] = {0.5f, 0.25f, 0.125f, 0.75f, 1, 1, 1, 1};
    mn_accessor acc[3] = {make_accessor(rgb8, 2, 3, MN_COMPONENT_U8, MN_TYPE_VEC3, true),
                          make_accessor(rgba16, 2, 8, MN_COMPONENT_U16, MN_TYPE_VEC4, true),
                          make_accessor(rgbaf, 2, 16, MN_COMPONENT_F32, MN_TYPE_VEC4, false)};
    mn_attribute attrs[] = {{"COLOR_0", MN_SEMANTIC_COLOR, 0, 0},
                            {"COLOR_1", MN_SEMANTIC_COLOR, 1, 1},
                            {"COLOR_2", MN_SEMANTIC_COLOR, 2, 2}};
    mn_primitive p = make_primitive(attrs, 3, 2);
    mn_model model = make_model(acc, 3);
    float out[8];

    assert_int_equal(mn_primitive_colors(&model, &p, 0, NULL, 0), 8);
    assert_int_equal(mn_primitive_colors(&model, &p, 0, out, 8), 8);
    const float want0[8] = {1, 0, 0.2f, 1, 0, 1, 0, 1};
    assert_vec_near(out, want0, 8, 0.0);

    assert_int_equal(mn_primitive_colors(&model, &p, 1, out, 8), 8);
    const float want1[8] = {1, 0, 0.2f, 0, 0, 1, 0, 1};
    assert_vec_near(out, want1, 8, 0.0);

    assert_int_equal(mn_primitive_colors(&model, &p, 2, out, 8), 8);
    assert_vec_near(out, rgbaf, 8, 0.0);

    assert_int_equal(mn_primitive_colors(&model, &p, 3, out, 8), 0);

    /* short capacity: 6 floats written, the rest untouched */
    for (int i = 0; i < 8; i++)
        out[i] = -1.0f;
    assert_int_equal(mn_primitive_colors(&model, &p, 0, out, 6), 8);
    const float want_short[8] = {1, 0, 0.2f, 1, 0, 1, -1, -1};
    assert_vec_near(out, want_short, 8, 0.0);
}

/* ---- the soup ---------------------------------------------------------------------------- */

/* A quad in z = 0: four corners with normals and uvs. */
static const float quad_pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
static const float quad_nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
static const float quad_uv[8] = {0, 0, 1, 0, 0, 1, 1, 1};
static const uint16_t quad_idx[6] = {0, 1, 2, 2, 1, 3};

static void soup_of_a_non_indexed_triangle_copies_each_vertex(void **state)
{
    (void)state;
    mn_accessor acc[3] = {make_accessor(quad_pos, 3, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false),
                          make_accessor(quad_nrm, 3, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false),
                          make_accessor(quad_uv, 3, 8, MN_COMPONENT_F32, MN_TYPE_VEC2, false)};
    mn_attribute attrs[] = {{"POSITION", MN_SEMANTIC_POSITION, 0, 0},
                            {"NORMAL", MN_SEMANTIC_NORMAL, 0, 1},
                            {"TEXCOORD_0", MN_SEMANTIC_TEXCOORD, 0, 2}};
    mn_primitive p = make_primitive(attrs, 3, 3);
    mn_model model = make_model(acc, 3);
    float out[24];
    assert_int_equal(mn_primitive_soup(&model, &p, NULL, NULL, 0), 3);
    assert_int_equal(mn_primitive_soup(&model, &p, NULL, out, 3), 3);
    const float want[24] = {0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 0, 1};
    assert_vec_near(out, want, 24, 0.0);

    /* capacity of 2 vertices: 16 floats written, the third vertex untouched */
    float part[24];
    for (int i = 0; i < 24; i++)
        part[i] = -7.0f;
    assert_int_equal(mn_primitive_soup(&model, &p, NULL, part, 2), 3);
    assert_vec_near(part, want, 16, 0.0);
    for (int i = 16; i < 24; i++)
        assert_true(part[i] == -7.0f);
}

static void soup_of_an_indexed_quad_expands_its_indices(void **state)
{
    (void)state;
    mn_accessor acc[4] = {make_accessor(quad_pos, 4, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false),
                          make_accessor(quad_nrm, 4, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false),
                          make_accessor(quad_uv, 4, 8, MN_COMPONENT_F32, MN_TYPE_VEC2, false),
                          make_accessor(quad_idx, 6, 2, MN_COMPONENT_U16, MN_TYPE_SCALAR, false)};
    mn_attribute attrs[] = {{"POSITION", MN_SEMANTIC_POSITION, 0, 0},
                            {"NORMAL", MN_SEMANTIC_NORMAL, 0, 1},
                            {"TEXCOORD_0", MN_SEMANTIC_TEXCOORD, 0, 2}};
    mn_primitive p = make_primitive(attrs, 3, 4);
    p.indices = 3;
    mn_model model = make_model(acc, 4);
    float out[48];
    assert_int_equal(mn_primitive_soup(&model, &p, NULL, NULL, 0), 6);
    assert_int_equal(mn_primitive_soup(&model, &p, NULL, out, 6), 6);
    for (int v = 0; v < 6; v++) {
        uint16_t i = quad_idx[v];
        assert_vec_near(out + 8 * v, quad_pos + 3 * i, 3, 0.0);
        assert_vec_near(out + 8 * v + 3, quad_nrm + 3 * i, 3, 0.0);
        assert_vec_near(out + 8 * v + 6, quad_uv + 2 * i, 2, 0.0);
    }
}

static void soup_reads_u8_and_u32_indices_and_zeroes_out_of_range_ones(void **state)
{
    (void)state;
    const uint8_t idx8[3] = {3, 2, 1};
    const uint32_t idx32[6] = {0, 1, 2, 1, 4, 3}; /* 4 is past the 4 vertices */
    mn_accessor acc[3] = {make_accessor(quad_pos, 4, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false),
                          make_accessor(idx8, 3, 1, MN_COMPONENT_U8, MN_TYPE_SCALAR, false),
                          make_accessor(idx32, 6, 4, MN_COMPONENT_U32, MN_TYPE_SCALAR, false)};
    mn_attribute attrs[] = {{"POSITION", MN_SEMANTIC_POSITION, 0, 0}};
    mn_primitive p = make_primitive(attrs, 1, 4);
    mn_model model = make_model(acc, 3);
    float out[48];
    p.indices = 1;
    assert_int_equal(mn_primitive_soup(&model, &p, NULL, out, 3), 3);
    assert_vec_near(out, quad_pos + 9, 3, 0.0);
    assert_vec_near(out + 8, quad_pos + 6, 3, 0.0);
    assert_vec_near(out + 16, quad_pos + 3, 3, 0.0);
    p.indices = 2;
    assert_int_equal(mn_primitive_soup(&model, &p, NULL, out, 6), 6);
    const float zero[3] = {0, 0, 0};
    assert_vec_near(out + 8 * 2, quad_pos + 6, 3, 0.0);
    assert_vec_near(out + 8 * 4, zero, 3, 0.0);
    assert_vec_near(out + 8 * 5, quad_pos + 9, 3, 0.0);
}

static void soup_without_normals_gets_flat_face_normals(void **state)
{
    (void)state;
    /* CCW in the XY plane (+Z), CCW seen from +Y in XZ (+Y), and a degenerate line */
    const float pos[27] = {0, 0, 0, 2, 0, 0, 0, 2, 0,
                           0, 0, 0, 0, 0, 3, 3, 0, 0,
                           0, 0, 0, 1, 1, 1, 2, 2, 2};
    const uint8_t uv8[18] = {0, 0, 255, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    mn_accessor acc[2] = {make_accessor(pos, 9, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false),
                          make_accessor(uv8, 9, 2, MN_COMPONENT_U8, MN_TYPE_VEC2, true)};
    mn_attribute attrs[] = {{"POSITION", MN_SEMANTIC_POSITION, 0, 0},
                            {"TEXCOORD_0", MN_SEMANTIC_TEXCOORD, 0, 1}};
    mn_primitive p = make_primitive(attrs, 2, 9);
    mn_model model = make_model(acc, 2);
    float out[72];
    assert_int_equal(mn_primitive_soup(&model, &p, NULL, out, 9), 9);
    const float nz[3] = {0, 0, 1}, ny[3] = {0, 1, 0};
    for (int v = 0; v < 3; v++) {
        assert_vec_near(out + 8 * v + 3, nz, 3, 0.0);
        assert_vec_near(out + 8 * (v + 3) + 3, ny, 3, 0.0);
        assert_vec_near(out + 8 * (v + 6) + 3, ny, 3, 0.0); /* degenerate → +Y */
    }
    const float uv1[2] = {1, 0};
    assert_vec_near(out + 8 + 6, uv1, 2, 0.0);
}

static void soup_bake_transforms_positions_and_renormalises_normals(void **state)
{
    (void)state;
    const float r = 0.70710678f;
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const float nrm[9] = {r, r, 0, r, r, 0, 0, 0, 1};
    mn_accessor acc[2] = {make_accessor(pos, 3, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false),
                          make_accessor(nrm, 3, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false)};
    mn_attribute attrs[] = {{"POSITION", MN_SEMANTIC_POSITION, 0, 0},
                            {"NORMAL", MN_SEMANTIC_NORMAL, 0, 1}};
    mn_primitive p = make_primitive(attrs, 2, 3);
    mn_model model = make_model(acc, 2);
    /* world = T(1,2,3) · S(2,1,1): non-uniform, so normals need the inverse-transpose */
    const float world[16] = {2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1};
    float out[24];
    assert_int_equal(mn_primitive_soup(&model, &p, world, out, 3), 3);
    const float p0[3] = {1, 2, 3}, p1[3] = {3, 2, 3}, p2[3] = {1, 3, 3};
    assert_vec_near(out, p0, 3, 0.0);
    assert_vec_near(out + 8, p1, 3, 0.0);
    assert_vec_near(out + 16, p2, 3, 0.0);
    /* S⁻ᵀ (1,1,0) = (0.5,1,0) → (1,2,0)/√5 */
    const float n0[3] = {1.0f / sqrtf(5.0f), 2.0f / sqrtf(5.0f), 0};
    const float n2[3] = {0, 0, 1};
    assert_vec_near(out + 3, n0, 3, 1e-7);
    assert_vec_near(out + 11, n0, 3, 1e-7);
    assert_vec_near(out + 19, n2, 3, 0.0);
    for (int v = 0; v < 3; v++) {
        const float *n = out + 8 * v + 3;
        assert_float_near(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0, 1e-6);
    }

    /* flat normals under the bake: +Z face under a Z-scale stays +Z, unit length */
    const float world_z[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 5, 0, 0, 0, 0, 1};
    mn_primitive flat = make_primitive(attrs, 1, 3);
    assert_int_equal(mn_primitive_soup(&model, &flat, world_z, out, 3), 3);
    for (int v = 0; v < 3; v++)
        assert_vec_near(out + 8 * v + 3, n2, 3, 0.0);
}

static void soup_is_empty_for_points_lines_and_missing_positions(void **state)
{
    (void)state;
    mn_accessor acc[1] = {make_accessor(quad_pos, 4, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false)};
    mn_attribute attrs[] = {{"POSITION", MN_SEMANTIC_POSITION, 0, 0}};
    mn_model model = make_model(acc, 1);
    mn_primitive p = make_primitive(attrs, 1, 4);
    float out[64];
    p.mode = MN_MODE_POINTS;
    assert_int_equal(mn_primitive_soup(&model, &p, NULL, out, 8), 0);
    p.mode = MN_MODE_LINES;
    assert_int_equal(mn_primitive_soup(&model, &p, NULL, NULL, 0), 0);
    p.mode = MN_MODE_TRIANGLES;
    /* 4 vertices make one whole triangle; the extra vertex is dropped */
    assert_int_equal(mn_primitive_soup(&model, &p, NULL, NULL, 0), 3);
    mn_primitive none = make_primitive(NULL, 0, 0);
    assert_int_equal(mn_primitive_soup(&model, &none, NULL, out, 8), 0);
}

/* ---- bounds -------------------------------------------------------------------------------- */

/*
 * Meshes: 0 = a box (-1..1)³ (plain), 1 = the box 0..1 with JOINTS_0/WEIGHTS_0
 * (skinned).  Nodes: 0 (scene root) mesh 0 at (10,0,0); 1 (scene root) mesh 1
 * skinned by skin 0, with its own transform far away (glTF ignores it);
 * 2 (child of 1) joint 0 at (0,5,0) from its parent; 3 joint 1; 4 a root
 * outside the scene with mesh 0 at (-1000,0,0).
 */
typedef struct bounds_fixture {
    mn_accessor acc[5];
    mn_attribute plain_attrs[1], skinned_attrs[3];
    mn_primitive prims[2];
    mn_mesh meshes[2];
    mn_node nodes[5];
    uint32_t children1[2];
    uint32_t scene_nodes[2];
    mn_scene scene;
    uint32_t joints[2];
    float ibm[32];
    mn_skin skin;
    mn_model model;
} bounds_fixture;

static const float box_pos[6] = {-1, -1, -1, 1, 1, 1};
static const float unit_pos[6] = {0, 0, 0, 1, 1, 1};
static const uint8_t unit_joints[8] = {0, 0, 0, 0, 0, 1, 0, 0};
static const float unit_weights[8] = {1, 0, 0, 0, 0.5f, 0.5f, 0, 0};

static void bounds_fixture_init(bounds_fixture *f)
{
    memset(f, 0, sizeof *f);
    f->acc[0] = make_accessor(box_pos, 2, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false);
    f->acc[1] = make_accessor(unit_pos, 2, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false);
    f->acc[2] = make_accessor(unit_joints, 2, 4, MN_COMPONENT_U8, MN_TYPE_VEC4, false);
    f->acc[3] = make_accessor(unit_weights, 2, 16, MN_COMPONENT_F32, MN_TYPE_VEC4, false);
    f->plain_attrs[0] = (mn_attribute){"POSITION", MN_SEMANTIC_POSITION, 0, 0};
    f->skinned_attrs[0] = (mn_attribute){"POSITION", MN_SEMANTIC_POSITION, 0, 1};
    f->skinned_attrs[1] = (mn_attribute){"JOINTS_0", MN_SEMANTIC_JOINTS, 0, 2};
    f->skinned_attrs[2] = (mn_attribute){"WEIGHTS_0", MN_SEMANTIC_WEIGHTS, 0, 3};
    f->prims[0] = make_primitive(f->plain_attrs, 1, 2);
    f->prims[1] = make_primitive(f->skinned_attrs, 3, 2);
    f->meshes[0].primitives = &f->prims[0], f->meshes[0].primitive_count = 1;
    f->meshes[1].primitives = &f->prims[1], f->meshes[1].primitive_count = 1;
    f->nodes[0] = make_node(MN_NONE);
    f->nodes[0].mesh = 0;
    f->nodes[0].translation[0] = 10.0f;
    f->nodes[1] = make_node(MN_NONE);
    f->nodes[1].mesh = 1;
    f->nodes[1].skin = 0;
    f->nodes[1].translation[0] = f->nodes[1].translation[1] = f->nodes[1].translation[2] = 100.0f;
    f->nodes[2] = make_node(1);
    f->nodes[2].translation[1] = 5.0f;
    f->nodes[3] = make_node(1);
    f->nodes[3].translation[1] = 7.0f;
    f->children1[0] = 2, f->children1[1] = 3;
    f->nodes[1].children = f->children1, f->nodes[1].child_count = 2;
    f->nodes[4] = make_node(MN_NONE);
    f->nodes[4].mesh = 0;
    f->nodes[4].translation[0] = -1000.0f;
    f->scene_nodes[0] = 0, f->scene_nodes[1] = 1;
    f->scene.nodes = f->scene_nodes, f->scene.node_count = 2;
    /* inverse bind matrices undo the parent's (100,100,100): palette = T(0,5,0), T(0,7,0) */
    f->joints[0] = 2, f->joints[1] = 3;
    for (int j = 0; j < 2; j++) {
        mn_mat4_identity(f->ibm + 16 * j);
        f->ibm[16 * j + 12] = f->ibm[16 * j + 13] = f->ibm[16 * j + 14] = -100.0f;
    }
    f->skin.joints = f->joints, f->skin.joint_count = 2;
    f->skin.inverse_bind = f->ibm;
    f->skin.skeleton = MN_NONE;
    f->model = make_model(f->acc, 4);
    f->model.meshes = f->meshes, f->model.mesh_count = 2;
    f->model.nodes = f->nodes, f->model.node_count = 5;
    f->model.scenes = &f->scene, f->model.scene_count = 1;
    f->model.skins = &f->skin, f->model.skin_count = 1;
}

static void compute_bounds_covers_translated_and_skinned_instances(void **state)
{
    (void)state;
    bounds_fixture f;
    bounds_fixture_init(&f);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    f.model.scene = 0;
    assert_int_equal(mni_model_compute_bounds(&f.model, &hooks), MN_OK);
    assert_int_equal(counter.live_bytes, 0);
    /* box at x 9..11; skinned: (0,0,0) by joint 0 → (0,5,0); (1,1,1) half/half → (1,7,1) */
    const float want_min[3] = {0, -1, -1}, want_max[3] = {11, 7, 1};
    assert_vec_near(f.model.bounds_min, want_min, 3, 0.0);
    assert_vec_near(f.model.bounds_max, want_max, 3, 0.0);

    /* no default scene named: scene 0 is used, so the same box */
    f.model.scene = MN_NONE;
    assert_int_equal(mni_model_compute_bounds(&f.model, &hooks), MN_OK);
    assert_vec_near(f.model.bounds_min, want_min, 3, 0.0);
    assert_vec_near(f.model.bounds_max, want_max, 3, 0.0);

    /* no scenes at all: every root, node 4 at x -1001 included */
    f.model.scene_count = 0;
    assert_int_equal(mni_model_compute_bounds(&f.model, &hooks), MN_OK);
    const float all_min[3] = {-1001, -1, -1};
    assert_vec_near(f.model.bounds_min, all_min, 3, 0.0);
    assert_vec_near(f.model.bounds_max, want_max, 3, 0.0);
    assert_int_equal(counter.live_bytes, 0);
}

static void default_scene_is_the_named_one_else_scene_0_else_every_root(void **state)
{
    (void)state;
    mn_scene scenes[3] = {{0}};
    mn_model m = {0};
    m.scenes = scenes, m.scene_count = 3;
    m.scene = 2;
    assert_int_equal(mn_model_default_scene(&m), 2);
    m.scene = MN_NONE;
    assert_int_equal(mn_model_default_scene(&m), 0);
    m.scene = 3; /* out of range, only by hand: as if none were named */
    assert_int_equal(mn_model_default_scene(&m), 0);
    m.scene_count = 0; /* no scenes: MN_NONE, every root stands in */
    assert_int_equal(mn_model_default_scene(&m), MN_NONE);
    m.scene = 0;
    assert_int_equal(mn_model_default_scene(&m), MN_NONE);
    assert_int_equal(mn_model_default_scene(NULL), MN_NONE);
}

static void enum_names_are_gltf_spellings_and_invalid_outside(void **state)
{
    (void)state;
    const struct {
        const char *got, *want;
    } names[] = {
        {mn_component_name(MN_COMPONENT_I8), "i8"},
        {mn_component_name(MN_COMPONENT_U16), "u16"},
        {mn_component_name(MN_COMPONENT_F32), "f32"},
        {mn_component_name(MN_COMPONENT_INVALID), "invalid"},
        {mn_component_name((mn_component)99), "invalid"},
        {mn_accessor_type_name(MN_TYPE_SCALAR), "SCALAR"},
        {mn_accessor_type_name(MN_TYPE_MAT4), "MAT4"},
        {mn_accessor_type_name(MN_TYPE_INVALID), "invalid"},
        {mn_accessor_type_name((mn_accessor_type)8), "invalid"},
        {mn_primitive_mode_name(MN_MODE_POINTS), "POINTS"},
        {mn_primitive_mode_name(MN_MODE_TRIANGLE_FAN), "TRIANGLE_FAN"},
        {mn_primitive_mode_name((mn_primitive_mode)7), "invalid"},
        {mn_alpha_mode_name(MN_ALPHA_OPAQUE), "OPAQUE"},
        {mn_alpha_mode_name(MN_ALPHA_BLEND), "BLEND"},
        {mn_alpha_mode_name((mn_alpha_mode)3), "invalid"},
        {mn_anim_path_name(MN_PATH_TRANSLATION), "translation"},
        {mn_anim_path_name(MN_PATH_WEIGHTS), "weights"},
        {mn_anim_path_name(MN_PATH_POINTER), "pointer"},
        {mn_anim_path_name((mn_anim_path)5), "invalid"},
        {mn_interpolation_name(MN_INTERP_LINEAR), "LINEAR"},
        {mn_interpolation_name(MN_INTERP_CUBICSPLINE), "CUBICSPLINE"},
        {mn_interpolation_name((mn_interpolation)3), "invalid"},
        /* glTF's spellings, which the reader and the writer share */
        {mni_component_gltf_name(MN_COMPONENT_U8), "UNSIGNED_BYTE"},
        {mni_semantic_name(MN_SEMANTIC_TANGENT), "TANGENT"},
        {mni_semantic_name(MN_SEMANTIC_WEIGHTS), "WEIGHTS"},
        {mni_semantic_name(MN_SEMANTIC_CUSTOM), "custom"},
        {mni_semantic_name(MN_SEMANTIC_INVALID), "invalid"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        assert_string_equal(names[i].got, names[i].want);
    assert_int_equal(mni_component_gltf_code(MN_COMPONENT_U32), 5125);
    assert_int_equal(mni_component_gltf_code(MN_COMPONENT_INVALID), 0);
    for (int c = MN_COMPONENT_I8; c <= MN_COMPONENT_F32; c++)
        assert_int_equal(mni_component_from_gltf_code(mni_component_gltf_code((mn_component)c)), c);
    assert_int_equal(mni_component_from_gltf_code(5124), MN_COMPONENT_INVALID);
    assert_int_equal(mni_component_from_gltf_code(0), MN_COMPONENT_INVALID);
}

static void semantic_parse_takes_gltf_names_only(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        mn_semantic semantic;
        uint32_t set;
    } cases[] = {
        {"POSITION", MN_SEMANTIC_POSITION, 0},       {"NORMAL", MN_SEMANTIC_NORMAL, 0},
        {"TANGENT", MN_SEMANTIC_TANGENT, 0},         {"TEXCOORD_0", MN_SEMANTIC_TEXCOORD, 0},
        {"TEXCOORD_12", MN_SEMANTIC_TEXCOORD, 12},   {"COLOR_1", MN_SEMANTIC_COLOR, 1},
        {"JOINTS_2", MN_SEMANTIC_JOINTS, 2},         {"WEIGHTS_4294967295", MN_SEMANTIC_WEIGHTS, 4294967295u},
        {"_TEMPERATURE", MN_SEMANTIC_CUSTOM, 0},     {"_TEXCOORD_01", MN_SEMANTIC_CUSTOM, 0},
        /* glTF forbids a padded set number: "TEXCOORD_01" is not TEXCOORD_1 */
        {"TEXCOORD_01", MN_SEMANTIC_INVALID, 0},     {"TEXCOORD_00", MN_SEMANTIC_INVALID, 0},
        {"WEIGHTS_4294967296", MN_SEMANTIC_INVALID, 0}, {"TEXCOORD_", MN_SEMANTIC_INVALID, 0},
        {"TEXCOORD", MN_SEMANTIC_INVALID, 0},        {"TEXCOORD_1a", MN_SEMANTIC_INVALID, 0},
        {"TEXCOORD_-1", MN_SEMANTIC_INVALID, 0},     {"POSITION_0", MN_SEMANTIC_INVALID, 0},
        {"position", MN_SEMANTIC_INVALID, 0},        {"", MN_SEMANTIC_INVALID, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t set = 7;
        mn_semantic s = mni_semantic_parse(cases[i].name, &set);
        if (s != cases[i].semantic || set != cases[i].set)
            fail_msg("\"%s\": semantic %d set %u, expected %d set %u", cases[i].name, (int)s, set,
                     (int)cases[i].semantic, cases[i].set);
    }
}

static void compute_bounds_applies_default_morph_weights(void **state)
{
    (void)state;
    bounds_fixture f;
    bounds_fixture_init(&f);
    static const float delta[6] = {0, 0, 10, 0, 0, 10};
    f.acc[4] = make_accessor(delta, 2, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false);
    f.model.accessor_count = 5;
    mn_morph_target target = {4, MN_NONE, MN_NONE};
    f.prims[0].targets = &target, f.prims[0].target_count = 1;
    float weight = 0.5f;
    f.meshes[0].weights = &weight, f.meshes[0].weight_count = 1;
    /* the box at node 0 moves up z by 0.5 × 10: z 4..6; the skinned mesh keeps z 0..1 */
    assert_int_equal(mni_model_compute_bounds(&f.model, NULL), MN_OK);
    assert_true(f.model.bounds_min[2] == 0.0f);
    assert_true(f.model.bounds_max[2] == 6.0f);

    /* the node's own weights override the mesh's */
    float node_weight = 0.0f;
    f.nodes[0].weights = &node_weight, f.nodes[0].weight_count = 1;
    assert_int_equal(mni_model_compute_bounds(&f.model, NULL), MN_OK);
    assert_true(f.model.bounds_min[2] == -1.0f);
    assert_true(f.model.bounds_max[2] == 1.0f);
}

static void compute_bounds_transforms_every_quantized_position(void **state)
{
    (void)state;
    enum { N = 1000 };
    static uint16_t pos[3 * N];
    for (int v = 0; v < N; v++) {
        pos[3 * v] = (uint16_t)v;
        pos[3 * v + 1] = (uint16_t)(N - v);
        pos[3 * v + 2] = 7;
    }
    mn_accessor acc[1] = {make_accessor(pos, N, 6, MN_COMPONENT_U16, MN_TYPE_VEC3, false)};
    mn_attribute attrs[] = {{"POSITION", MN_SEMANTIC_POSITION, 0, 0}};
    mn_primitive prim = make_primitive(attrs, 1, N);
    mn_mesh mesh = {0};
    mesh.primitives = &prim, mesh.primitive_count = 1;
    /* a root scaled by 0.5 with a child at (0,0,-7) that carries the mesh */
    mn_node nodes[2] = {make_node(MN_NONE), make_node(0)};
    uint32_t children[1] = {1};
    nodes[0].children = children, nodes[0].child_count = 1;
    nodes[0].scale[0] = nodes[0].scale[1] = nodes[0].scale[2] = 0.5f;
    nodes[1].translation[2] = -7.0f;
    nodes[1].mesh = 0;
    mn_model model = make_model(acc, 1);
    model.meshes = &mesh, model.mesh_count = 1;
    model.nodes = nodes, model.node_count = 2;
    assert_int_equal(mni_model_compute_bounds(&model, NULL), MN_OK);
    const float want_min[3] = {0, 0.5f, 0}, want_max[3] = {499.5f, 500, 0};
    assert_vec_near(model.bounds_min, want_min, 3, 0.0);
    assert_vec_near(model.bounds_max, want_max, 3, 0.0);
}

/*
 * The placements of mni_model_compute_bounds (a min/max scan when nothing
 * moves the points, one matrix, or the skinning blend) must give the box the
 * blend gives.  These tests build one primitive on node 0, with two root
 * joints (nodes 1 and 2) for a skin, and compare with a reference computed
 * here by the plain formula.
 */
typedef struct single_fixture {
    mn_accessor acc[3]; /* POSITION, JOINTS_0, WEIGHTS_0 */
    mn_attribute attrs[3];
    mn_primitive prim;
    mn_mesh mesh;
    mn_node nodes[3];
    uint32_t joints[2];
    float ibm[32];
    mn_skin skin;
    mn_model model;
} single_fixture;

static void single_fixture_init(single_fixture *f, mn_accessor position)
{
    memset(f, 0, sizeof *f);
    f->acc[0] = position;
    f->attrs[0] = (mn_attribute){"POSITION", MN_SEMANTIC_POSITION, 0, 0};
    f->attrs[1] = (mn_attribute){"JOINTS_0", MN_SEMANTIC_JOINTS, 0, 1};
    f->attrs[2] = (mn_attribute){"WEIGHTS_0", MN_SEMANTIC_WEIGHTS, 0, 2};
    f->prim = make_primitive(f->attrs, 1, position.count);
    f->mesh.primitives = &f->prim, f->mesh.primitive_count = 1;
    for (int i = 0; i < 3; i++)
        f->nodes[i] = make_node(MN_NONE);
    f->nodes[0].mesh = 0;
    f->nodes[1].translation[1] = 5.0f; /* joint 0 at (0,5,0) */
    f->nodes[2].translation[0] = 3.0f; /* joint 1 at (3,0,0) */
    f->joints[0] = 1, f->joints[1] = 2;
    mn_mat4_identity(f->ibm);
    mn_mat4_identity(f->ibm + 16);
    f->skin.joints = f->joints, f->skin.joint_count = 2;
    f->skin.inverse_bind = f->ibm;
    f->skin.skeleton = MN_NONE;
    f->model = make_model(f->acc, 3);
    f->model.meshes = &f->mesh, f->model.mesh_count = 1;
    f->model.nodes = f->nodes, f->model.node_count = 3;
    f->model.skins = &f->skin, f->model.skin_count = 1;
}

/* Skin node 0's primitive with skin 0; the inverse binds undo the joints'
   rests when at_rest, so the palette is exactly identity. */
static void single_fixture_skin(single_fixture *f, mn_accessor joints, mn_accessor weights,
                                bool at_rest)
{
    f->acc[1] = joints;
    f->acc[2] = weights;
    f->prim.attribute_count = 3;
    f->nodes[0].skin = 0;
    if (at_rest) {
        f->ibm[13] = -5.0f;
        f->ibm[16 + 12] = -3.0f;
    }
}

static void box_reset(float min[3], float max[3])
{
    for (int k = 0; k < 3; k++)
        min[k] = FLT_MAX, max[k] = -FLT_MAX;
}

static void box_grow(float min[3], float max[3], const float p[3])
{
    for (int k = 0; k < 3; k++) {
        if (p[k] < min[k])
            min[k] = p[k];
        if (p[k] > max[k])
            max[k] = p[k];
    }
}

/* The box of n points, each placed by linear blend skinning over palette
   (weights normalised, an all-zero quad meaning joint 0 alone), or by world
   when palette is NULL. */
static void reference_box(size_t n, const float *pos, const uint32_t *joints, const float *weights,
                          const float *palette, const float world[16], float min[3], float max[3])
{
    box_reset(min, max);
    for (size_t v = 0; v < n; v++) {
        float p[3], q[3];
        if (!palette) {
            mn_mat4_transform_point(p, world, pos + 3 * v);
            box_grow(min, max, p);
            continue;
        }
        const float *w = weights + 4 * v;
        float sum = w[0] + w[1] + w[2] + w[3];
        float wn[4] = {1, 0, 0, 0};
        if (sum > 0.0f)
            for (int k = 0; k < 4; k++)
                wn[k] = w[k] / sum;
        p[0] = p[1] = p[2] = 0.0f;
        for (int k = 0; k < 4; k++) {
            mn_mat4_transform_point(q, palette + 16 * joints[4 * v + k], pos + 3 * v);
            for (int c = 0; c < 3; c++)
                p[c] += wn[k] * q[c];
        }
        box_grow(min, max, p);
    }
}

/* A deterministic value in [-scale, scale). */
static float pseudo_random(uint32_t *seed, float scale)
{
    *seed = *seed * 1664525u + 1013904223u;
    return scale * ((float)(*seed >> 8) / 8388608.0f - 1.0f);
}

enum { SKIN_N = 1001 }; /* crosses chunk boundaries, and is not a multiple of 4 */

/* Positions, two-joint influences (some quads all zero) and the same joints as u16. */
static void skin_data(float *pos, uint32_t *joints, uint16_t *joints16, float *weights)
{
    uint32_t seed = 12345;
    for (size_t v = 0; v < SKIN_N; v++) {
        for (int c = 0; c < 3; c++)
            pos[3 * v + c] = pseudo_random(&seed, 10.0f);
        for (int k = 0; k < 4; k++) {
            joints[4 * v + k] = (uint32_t)((v + (size_t)k) % 2);
            joints16[4 * v + k] = (uint16_t)joints[4 * v + k];
            weights[4 * v + k] = v % 7 == 0 ? 0.0f : fabsf(pseudo_random(&seed, 1.0f));
        }
    }
}

static void compute_bounds_scans_unmoved_positions_exactly(void **state)
{
    (void)state;
    enum { N = 1003 };
    static float pos[3 * N];
    uint32_t seed = 7;
    for (size_t i = 0; i < 3 * N; i++)
        pos[i] = pseudo_random(&seed, 100.0f);
    /* extremes in every SIMD lane position and in the scalar tail; NaNs are skipped */
    pos[3 * 1 + 0] = -500.0f, pos[3 * 2 + 1] = 600.0f, pos[3 * 3 + 2] = -700.0f;
    pos[3 * 500 + 2] = 800.0f, pos[3 * (N - 1) + 0] = 900.0f, pos[3 * (N - 2) + 1] = -1000.0f;
    pos[3 * 5 + 0] = NAN, pos[3 * 6 + 1] = NAN, pos[3 * (N - 1) + 2] = NAN;
    single_fixture f;
    single_fixture_init(&f, make_accessor(pos, N, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false));
    assert_non_null(mn_accessor_float_view(&f.acc[0]));
    float want_min[3], want_max[3];
    box_reset(want_min, want_max);
    for (size_t v = 0; v < N; v++)
        box_grow(want_min, want_max, pos + 3 * v);
    assert_int_equal(mni_model_compute_bounds(&f.model, NULL), MN_OK);
    assert_true(want_min[0] == -500.0f && want_max[0] == 900.0f);
    assert_true(want_max[1] == 600.0f && want_min[1] == -1000.0f);
    assert_true(want_min[2] == -700.0f && want_max[2] == 800.0f);
    assert_vec_near(f.model.bounds_min, want_min, 3, 0.0);
    assert_vec_near(f.model.bounds_max, want_max, 3, 0.0);

    /* fewer points than one SIMD step: the box is still exactly theirs */
    for (uint32_t count = 1; count < 4; count++) {
        f.acc[0].count = count;
        box_reset(want_min, want_max);
        for (size_t v = 0; v < count; v++)
            box_grow(want_min, want_max, pos + 3 * v);
        assert_int_equal(mni_model_compute_bounds(&f.model, NULL), MN_OK);
        assert_vec_near(f.model.bounds_min, want_min, 3, 0.0);
        assert_vec_near(f.model.bounds_max, want_max, 3, 0.0);
    }
}

static void compute_bounds_identity_palette_matches_the_skinning_blend(void **state)
{
    (void)state;
    static float pos[3 * SKIN_N], weights[4 * SKIN_N];
    static uint32_t joints[4 * SKIN_N];
    static uint16_t joints16[4 * SKIN_N];
    skin_data(pos, joints, joints16, weights);
    static const float identity_palette[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                               1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    float want_min[3], want_max[3];
    reference_box(SKIN_N, pos, joints, weights, identity_palette, NULL, want_min, want_max);

    /* joints at rest: world × inverseBind is exactly identity, the box is the scan's */
    single_fixture f;
    single_fixture_init(&f, make_accessor(pos, SKIN_N, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false));
    single_fixture_skin(&f, make_accessor(joints16, SKIN_N, 8, MN_COMPONENT_U16, MN_TYPE_VEC4, false),
                        make_accessor(weights, SKIN_N, 16, MN_COMPONENT_F32, MN_TYPE_VEC4, false),
                        true);
    assert_int_equal(mni_model_compute_bounds(&f.model, NULL), MN_OK);
    float scan_min[3], scan_max[3];
    memcpy(scan_min, f.model.bounds_min, sizeof scan_min);
    memcpy(scan_max, f.model.bounds_max, sizeof scan_max);
    assert_vec_near(scan_min, want_min, 3, 1e-5);
    assert_vec_near(scan_max, want_max, 3, 1e-5);

    /* The same palette through the blend: an unused influence (weight 0) on joint 9,
       outside the skin, would fall back to the node's world, which is no longer identity,
       so the scan cannot be used.  The box must not change. */
    static uint16_t joints_bad[4 * SKIN_N];
    memcpy(joints_bad, joints16, sizeof joints_bad);
    weights[4 * 3 + 3] = 0.0f;
    joints_bad[4 * 3 + 3] = 9;
    f.acc[1].data = (const uint8_t *)joints_bad;
    f.nodes[0].translation[2] = 50.0f; /* glTF ignores a skinned node's own transform */
    assert_int_equal(mni_model_compute_bounds(&f.model, NULL), MN_OK);
    assert_vec_near(f.model.bounds_min, scan_min, 3, 1e-5);
    assert_vec_near(f.model.bounds_max, scan_max, 3, 1e-5);

    /* once that influence weighs, vertex 3 is partly placed by the world T(0,0,50) */
    weights[4 * 3 + 3] = 1.0f;
    const float *w3 = weights + 4 * 3;
    float moved_z = pos[3 * 3 + 2] + 50.0f * (1.0f / (w3[0] + w3[1] + w3[2] + w3[3]));
    assert_int_equal(mni_model_compute_bounds(&f.model, NULL), MN_OK);
    assert_true(f.model.bounds_max[2] >= moved_z - 1e-4f);
    assert_true(f.model.bounds_max[2] > scan_max[2] + 1.0f);
    weights[4 * 3 + 3] = 0.0f;

    /* inverse binds left at identity: palette = T(0,5,0), T(3,0,0), so the blend moves points */
    f.acc[1].data = (const uint8_t *)joints16;
    mn_mat4_identity(f.ibm);
    mn_mat4_identity(f.ibm + 16);
    float palette[32];
    mn_mat4_identity(palette);
    mn_mat4_identity(palette + 16);
    palette[13] = 5.0f, palette[16 + 12] = 3.0f;
    reference_box(SKIN_N, pos, joints, weights, palette, NULL, want_min, want_max);
    assert_int_equal(mni_model_compute_bounds(&f.model, NULL), MN_OK);
    assert_vec_near(f.model.bounds_min, want_min, 3, 1e-5);
    assert_vec_near(f.model.bounds_max, want_max, 3, 1e-5);
    assert_false(want_max[0] == scan_max[0] && want_max[1] == scan_max[1]);
}

static void compute_bounds_of_a_rotated_unskinned_instance(void **state)
{
    (void)state;
    enum { N = 600 };
    static float pos[3 * N];
    uint32_t seed = 99;
    for (size_t v = 0; v < N; v++) {
        pos[3 * v] = pseudo_random(&seed, 1.0f);         /* x in [-1, 1) */
        pos[3 * v + 1] = 1.5f + pseudo_random(&seed, 1.5f); /* y in [0, 3) */
        pos[3 * v + 2] = pseudo_random(&seed, 2.0f);     /* z in [-2, 2) */
    }
    const float corners[6] = {-1, 0, -2, 1, 3, 2};
    memcpy(pos, corners, sizeof corners);
    single_fixture f;
    single_fixture_init(&f, make_accessor(pos, N, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false));
    /* T(10,0,0) · R(90° about z) · S(2): (x, y, z) → (10 - 2y, 2x, 2z) */
    f.nodes[0].translation[0] = 10.0f;
    f.nodes[0].rotation[2] = f.nodes[0].rotation[3] = sqrtf(0.5f);
    f.nodes[0].scale[0] = f.nodes[0].scale[1] = f.nodes[0].scale[2] = 2.0f;
    assert_int_equal(mni_model_compute_bounds(&f.model, NULL), MN_OK);
    const float want_min[3] = {4, -2, -4}, want_max[3] = {10, 2, 4};
    assert_vec_near(f.model.bounds_min, want_min, 3, 1e-5);
    assert_vec_near(f.model.bounds_max, want_max, 3, 1e-5);
}

/* One interleaved vertex: no attribute of it has a zero-copy float view. */
typedef struct interleaved_vertex {
    float position[3];
    float weights[4];
    uint8_t joints[4];
} interleaved_vertex;

static void compute_bounds_reads_interleaved_positions_without_a_float_view(void **state)
{
    (void)state;
    static float pos[3 * SKIN_N], weights[4 * SKIN_N];
    static uint32_t joints[4 * SKIN_N];
    static uint16_t joints16[4 * SKIN_N];
    static interleaved_vertex vertices[SKIN_N];
    skin_data(pos, joints, joints16, weights);
    for (size_t v = 0; v < SKIN_N; v++) {
        memcpy(vertices[v].position, pos + 3 * v, sizeof vertices[v].position);
        memcpy(vertices[v].weights, weights + 4 * v, sizeof vertices[v].weights);
        for (int k = 0; k < 4; k++)
            vertices[v].joints[k] = (uint8_t)joints[4 * v + k];
    }
    const uint32_t stride = sizeof(interleaved_vertex);
    single_fixture f;
    single_fixture_init(&f, make_accessor(vertices[0].position, SKIN_N, stride, MN_COMPONENT_F32,
                                          MN_TYPE_VEC3, false));
    assert_null(mn_accessor_float_view(&f.acc[0]));

    /* identity world: the scan over converted chunks */
    float want_min[3], want_max[3];
    box_reset(want_min, want_max);
    for (size_t v = 0; v < SKIN_N; v++)
        box_grow(want_min, want_max, pos + 3 * v);
    assert_int_equal(mni_model_compute_bounds(&f.model, NULL), MN_OK);
    assert_vec_near(f.model.bounds_min, want_min, 3, 0.0);
    assert_vec_near(f.model.bounds_max, want_max, 3, 0.0);

    /* a translated, scaled world */
    f.nodes[0].translation[1] = -4.0f;
    f.nodes[0].scale[0] = 3.0f;
    float world[16];
    mn_node_local_matrix(&f.nodes[0], world);
    reference_box(SKIN_N, pos, NULL, NULL, NULL, world, want_min, want_max);
    assert_int_equal(mni_model_compute_bounds(&f.model, NULL), MN_OK);
    assert_vec_near(f.model.bounds_min, want_min, 3, 0.0);
    assert_vec_near(f.model.bounds_max, want_max, 3, 0.0);

    /* skinned by a palette that moves the points: weights and u8 joints interleaved too */
    single_fixture_skin(&f,
                        make_accessor(vertices[0].joints, SKIN_N, stride, MN_COMPONENT_U8,
                                      MN_TYPE_VEC4, false),
                        make_accessor(vertices[0].weights, SKIN_N, stride, MN_COMPONENT_F32,
                                      MN_TYPE_VEC4, false),
                        false);
    assert_null(mn_accessor_float_view(&f.acc[2]));
    float palette[32];
    mn_mat4_identity(palette);
    mn_mat4_identity(palette + 16);
    palette[13] = 5.0f, palette[16 + 12] = 3.0f;
    reference_box(SKIN_N, pos, joints, weights, palette, NULL, want_min, want_max);
    assert_int_equal(mni_model_compute_bounds(&f.model, NULL), MN_OK);
    assert_vec_near(f.model.bounds_min, want_min, 3, 1e-5);
    assert_vec_near(f.model.bounds_max, want_max, 3, 1e-5);
}

static void compute_bounds_of_an_empty_model_is_inverted(void **state)
{
    (void)state;
    mn_model model = make_model(NULL, 0);
    assert_int_equal(mni_model_compute_bounds(&model, NULL), MN_OK);
    for (int k = 0; k < 3; k++)
        assert_true(model.bounds_min[k] > model.bounds_max[k]);

    /* nodes but no meshes: still empty */
    mn_node nodes[1] = {make_node(MN_NONE)};
    model.nodes = nodes, model.node_count = 1;
    assert_int_equal(mni_model_compute_bounds(&model, NULL), MN_OK);
    for (int k = 0; k < 3; k++)
        assert_true(model.bounds_min[k] > model.bounds_max[k]);
}

static void compute_bounds_reports_out_of_memory_and_frees_everything(void **state)
{
    (void)state;
    bounds_fixture f;
    bounds_fixture_init(&f);
    for (long fail_after = 0; fail_after < 4; fail_after++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = fail_after;
        mn_allocator hooks = mn_counting_allocator(&counter);
        mn_status st = mni_model_compute_bounds(&f.model, &hooks);
        assert_int_equal(counter.live_bytes, 0);
        if (counter.failures > 0) {
            assert_int_equal(st, MN_OUT_OF_MEMORY);
            assert_true(f.model.bounds_min[0] > f.model.bounds_max[0]);
        } else {
            assert_int_equal(st, MN_OK);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(primitive_find_matches_semantic_and_set),
        cmocka_unit_test(node_local_matrix_is_t_r_s),
        cmocka_unit_test(rest_worlds_compose_parents_listed_after_children),
        cmocka_unit_test(rest_worlds_terminate_on_a_hand_built_cycle),
        cmocka_unit_test(rest_worlds_follow_node_order_with_children_listed_first),
        cmocka_unit_test(reader_orders_nodes_parents_first_roots_in_index_order),
        cmocka_unit_test(skin_influences_normalise_weights_and_fix_all_zero),
        cmocka_unit_test(skin_influences_read_u16_joints_and_normalized_weights),
        cmocka_unit_test(skin_influences_cross_chunk_boundaries),
        cmocka_unit_test(colors_expand_to_rgba_floats),
        cmocka_unit_test(soup_of_a_non_indexed_triangle_copies_each_vertex),
        cmocka_unit_test(soup_of_an_indexed_quad_expands_its_indices),
        cmocka_unit_test(soup_reads_u8_and_u32_indices_and_zeroes_out_of_range_ones),
        cmocka_unit_test(soup_without_normals_gets_flat_face_normals),
        cmocka_unit_test(soup_bake_transforms_positions_and_renormalises_normals),
        cmocka_unit_test(soup_is_empty_for_points_lines_and_missing_positions),
        cmocka_unit_test(compute_bounds_covers_translated_and_skinned_instances),
        cmocka_unit_test(default_scene_is_the_named_one_else_scene_0_else_every_root),
        cmocka_unit_test(enum_names_are_gltf_spellings_and_invalid_outside),
        cmocka_unit_test(semantic_parse_takes_gltf_names_only),
        cmocka_unit_test(compute_bounds_applies_default_morph_weights),
        cmocka_unit_test(compute_bounds_transforms_every_quantized_position),
        cmocka_unit_test(compute_bounds_scans_unmoved_positions_exactly),
        cmocka_unit_test(compute_bounds_identity_palette_matches_the_skinning_blend),
        cmocka_unit_test(compute_bounds_of_a_rotated_unskinned_instance),
        cmocka_unit_test(compute_bounds_reads_interleaved_positions_without_a_float_view),
        cmocka_unit_test(compute_bounds_of_an_empty_model_is_inverted),
        cmocka_unit_test(compute_bounds_reports_out_of_memory_and_frees_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
