/*
 * Blend trees (src/anim/blend_tree.c, src/anim/blend_space.c): leaves
 * reset to the bind pose every evaluation and `out` fully written (§7),
 * leaf wrap and clamp (§8), named clocks and the parameter/clock split
 * (§21), lerps and 1D sets (§15), 2D blend spaces with their Delaunay
 * diagonals and the hull rule (§12), phase-locked sets (§11, with its
 * walk/run example), entry nodes and leaf times for a state machine, build
 * refusals, a real humanoid clip, and zero allocations per frame.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/blend.h>
#include <marionette/blend_tree.h>
#include <marionette/clip.h>
#include <marionette/gltf.h>
#include <marionette/math.h>
#include <marionette/pose.h>
#include <marionette/skeleton.h>

#include "anim/blend_internal.h"
#include "assert_near.h"
#include "assets.h"
#include "counting_alloc.h"

#include <math.h>
#include <string.h>

#define JOINTS 3u
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))
#define CESIUM_MAN mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb")

/* ---- helpers ------------------------------------------------------------------ */

static void must(mn_status st, const mn_error *err)
{
    if (st != MN_OK)
        fail_msg("%s: %s", mn_status_name(st), err->message);
}

static mn_pose make_pose(uint32_t joints)
{
    mn_pose p;
    mn_error err;
    must(mn_pose_create(&p, joints, NULL, &err), &err);
    return p;
}

static bool poses_bit_equal(const mn_pose *a, const mn_pose *b)
{
    size_t n = a->joint_count;
    return a->joint_count == b->joint_count &&
           memcmp(a->translations, b->translations, n * 3 * sizeof(float)) == 0 &&
           memcmp(a->rotations, b->rotations, n * 4 * sizeof(float)) == 0 &&
           memcmp(a->scales, b->scales, n * 3 * sizeof(float)) == 0;
}

static mn_clip *clip_from(const mn_track *tracks, uint32_t count)
{
    mn_clip *clip = NULL;
    mn_error err;
    must(mn_clip_create(tracks, count, "test", NULL, &clip, &err), &err);
    return clip;
}

/* Joint `joint` held at translation v (one key at 0: duration 0). */
static mn_clip *constant_clip(uint32_t joint, float x, float y, float z)
{
    static const float time0 = 0.0f;
    float v[3] = {x, y, z};
    mn_track t = {.target = joint, .path = MN_PATH_TRANSLATION, .interpolation = MN_INTERP_LINEAR,
                  .key_count = 1, .components = 3, .times = &time0, .values = v};
    return clip_from(&t, 1);
}

/* Joint `joint`'s x translation equals the clip time over [first, d] (clamped outside). */
static mn_clip *ramp_clip(uint32_t joint, float first, float d)
{
    float times[2] = {first, d};
    float v[6] = {first, 0, 0, d, 0, 0};
    mn_track t = {.target = joint, .path = MN_PATH_TRANSLATION, .interpolation = MN_INTERP_LINEAR,
                  .key_count = 2, .components = 3, .times = times, .values = v};
    return clip_from(&t, 1);
}

/* Rotation-only: joint 1 turns about Z by `angle` (one key). */
static mn_clip *rotation_clip(float angle)
{
    static const float time0 = 0.0f;
    float q[4], axis[3] = {0, 0, 1};
    mn_quat_from_axis_angle(q, axis, angle);
    mn_track t = {.target = 1, .path = MN_PATH_ROTATION, .interpolation = MN_INTERP_LINEAR,
                  .key_count = 1, .components = 4, .times = &time0, .values = q};
    return clip_from(&t, 1);
}

/* A bind pose with joints stacked along +Y. */
static mn_pose bind_pose(void)
{
    mn_pose bind = make_pose(JOINTS);
    for (uint32_t j = 0; j < JOINTS; j++)
        assert_int_equal(mn_pose_set_joint(&bind, j, (float[3]){0.0f, 1.0f + (float)j, 0.0f}, NULL,
                                           (float[3]){1.0f, 1.0f, 1.0f}, NULL),
                         MN_OK);
    return bind;
}

static mn_blend_tree *must_tree(const mn_blend_node *nodes, uint32_t count, uint32_t root,
                                const mn_pose *bind)
{
    mn_blend_tree_desc desc = {.nodes = nodes, .node_count = count, .root = root,
                               .joint_count = JOINTS, .bind = bind};
    mn_blend_tree *tree = NULL;
    mn_error err;
    must(mn_blend_tree_create(&desc, &tree, &err), &err);
    return tree;
}

static mn_status try_tree(const mn_blend_node *nodes, uint32_t count, uint32_t root, mn_error *err)
{
    mn_blend_tree_desc desc = {.nodes = nodes, .node_count = count, .root = root,
                               .joint_count = JOINTS};
    mn_blend_tree *tree = (mn_blend_tree *)&desc;
    mn_status st = mn_blend_tree_create(&desc, &tree, err);
    if (st != MN_OK)
        assert_null(tree);
    mn_blend_tree_free(tree);
    return st;
}

static void set(mn_blend_tree *tree, const char *name, float value)
{
    mn_error err;
    must(mn_blend_tree_set(tree, name, value, &err), &err);
}

static void evaluate(mn_blend_tree *tree, float time, mn_pose *out)
{
    mn_error err;
    must(mn_blend_tree_evaluate(tree, time, out, &err), &err);
}

static void fill_nan(mn_pose *p)
{
    for (uint32_t i = 0; i < 3 * p->joint_count; i++)
        p->translations[i] = p->scales[i] = NAN;
    for (uint32_t i = 0; i < 4 * p->joint_count; i++)
        p->rotations[i] = NAN;
}

/* ---- leaves and out ----------------------------------------------------------------- */

static void a_leaf_starts_from_the_bind_pose_and_out_is_fully_written(void **state)
{
    (void)state;
    mn_clip *clip = ramp_clip(0, 0.0f, 2.0f);
    mn_pose bind = bind_pose(), out = make_pose(JOINTS), expect = make_pose(JOINTS);
    mn_blend_node node = {.kind = MN_BLEND_NODE_CLIP, .clip = clip};
    mn_blend_tree *tree = must_tree(&node, 1, 0, &bind);
    for (float t = -0.5f; t < 2.5f; t += 0.25f) {
        fill_nan(&out); /* anything out held must not leak through */
        evaluate(tree, t, &out);
        mn_pose_copy(&expect, &bind);
        assert_int_equal(mn_clip_sample(clip, t, &expect, NULL), MN_OK);
        assert_true(poses_bit_equal(&out, &expect));
    }
    mn_blend_tree_free(tree);

    /* no bind: untouched channels are T 0, R identity, S 1 */
    tree = must_tree(&node, 1, 0, NULL);
    fill_nan(&out);
    evaluate(tree, 1.0f, &out);
    mn_pose_set_identity(&expect);
    assert_int_equal(mn_clip_sample(clip, 1.0f, &expect, NULL), MN_OK);
    assert_true(poses_bit_equal(&out, &expect));
    mn_blend_tree_free(tree);
    mn_clip_free(clip);
    mn_pose_free(&bind);
    mn_pose_free(&out);
    mn_pose_free(&expect);
}

static void a_bind_pose_keeps_rotation_only_clips_from_collapsing(void **state)
{
    (void)state;
    mn_clip *a = rotation_clip(0.2f), *b = rotation_clip(1.0f);
    mn_pose bind = bind_pose(), out = make_pose(JOINTS);
    mn_blend_node nodes[] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = a},
        {.kind = MN_BLEND_NODE_CLIP, .clip = b},
        {.kind = MN_BLEND_NODE_LERP, .a = 0, .b = 1, .parameter = "mix"},
    };
    mn_blend_tree *tree = must_tree(nodes, 3, 2, &bind);
    set(tree, "mix", 0.5f);
    evaluate(tree, 0.0f, &out);
    /* every joint stays at its bind offset; joint 1 turned 0.6 rad */
    assert_memory_equal(out.translations, bind.translations, 3 * JOINTS * sizeof(float));
    float q[4], axis[3] = {0, 0, 1};
    mn_quat_from_axis_angle(q, axis, 0.6f);
    assert_vec_near(out.rotations + 4, q, 4, 1e-6);
    mn_blend_tree_free(tree);

    /* without one, the translations are zero: the folded figure the bind pose prevents */
    tree = must_tree(nodes, 3, 2, NULL);
    set(tree, "mix", 0.5f);
    evaluate(tree, 0.0f, &out);
    for (uint32_t i = 0; i < 3 * JOINTS; i++)
        assert_float_equal(out.translations[i], 0.0f, 0);
    mn_blend_tree_free(tree);

    /* a bind of the wrong joint count is refused */
    mn_pose small = make_pose(JOINTS - 1);
    mn_blend_tree_desc desc = {.nodes = nodes, .node_count = 3, .root = 2, .joint_count = JOINTS,
                               .bind = &small};
    mn_error err;
    assert_int_equal(mn_blend_tree_create(&desc, &tree, &err), MN_COUNT_MISMATCH);
    assert_null(tree);
    /* joint_count 0 takes the bind's */
    desc.bind = &bind;
    desc.joint_count = 0;
    must(mn_blend_tree_create(&desc, &tree, &err), &err);
    assert_int_equal(mn_blend_tree_joint_count(tree), JOINTS);
    mn_blend_tree_free(tree);
    mn_pose_free(&small);
    mn_clip_free(a);
    mn_clip_free(b);
    mn_pose_free(&bind);
    mn_pose_free(&out);
}

static void looping_leaves_wrap_from_zero_and_others_clamp(void **state)
{
    (void)state;
    /* keys from 0.5 to 2: the period still counts from 0 (d = 2), as BoxAnimated's does */
    mn_clip *clip = ramp_clip(0, 0.5f, 2.0f);
    mn_pose out = make_pose(JOINTS);
    mn_blend_node node = {.kind = MN_BLEND_NODE_CLIP, .clip = clip, .loop = true};
    mn_blend_tree *tree = must_tree(&node, 1, 0, NULL);
    const float t[] = {2.5f, 2.0f, -0.5f, 5.25f, 0.75f};
    const float x[] = {0.5f, 0.5f /* τ = d → 0, clamped to the first key */, 1.5f, 1.25f, 0.75f};
    for (size_t i = 0; i < COUNT_OF(t); i++) {
        evaluate(tree, t[i], &out);
        assert_float_near(out.translations[0], x[i], 1e-6);
    }
    mn_blend_tree_free(tree);
    node.loop = false;
    tree = must_tree(&node, 1, 0, NULL);
    evaluate(tree, 2.5f, &out);
    assert_float_equal(out.translations[0], 2.0f, 0);
    evaluate(tree, -1.0f, &out);
    assert_float_equal(out.translations[0], 0.5f, 0);
    mn_blend_tree_free(tree);
    mn_clip_free(clip);

    /* a looping clip of duration 0 samples at 0 */
    clip = constant_clip(0, 4, 5, 6);
    node = (mn_blend_node){.kind = MN_BLEND_NODE_CLIP, .clip = clip, .loop = true};
    tree = must_tree(&node, 1, 0, NULL);
    evaluate(tree, 3.0f, &out);
    assert_vec_near(out.translations, ((float[3]){4, 5, 6}), 3, 0);
    mn_blend_tree_free(tree);
    mn_clip_free(clip);
    mn_pose_free(&out);
}

/* ---- parameters and clocks ------------------------------------------------------------ */

static void named_clocks_give_a_leaf_its_own_time(void **state)
{
    (void)state;
    mn_clip *stride = ramp_clip(0, 0.0f, 4.0f), *breathe = ramp_clip(1, 0.0f, 4.0f);
    mn_pose out = make_pose(JOINTS);
    mn_blend_node nodes[] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = stride, .clock = "distance"},
        {.kind = MN_BLEND_NODE_CLIP, .clip = breathe},
        {.kind = MN_BLEND_NODE_LERP, .a = 0, .b = 1, .parameter = "mix"},
    };
    mn_blend_tree *tree = must_tree(nodes, 3, 0, NULL);
    mn_error err;
    assert_int_equal(mn_blend_tree_name_kind(tree, "distance"), MN_BLEND_NAME_CLOCK);
    assert_int_equal(mn_blend_tree_name_kind(tree, "mix"), MN_BLEND_NAME_PARAMETER);
    assert_int_equal(mn_blend_tree_name_kind(tree, "speed"), MN_BLEND_NAME_NONE);
    /* clocks start at 0: the frame time does not move the stride */
    evaluate(tree, 3.0f, &out);
    assert_float_equal(out.translations[0], 0.0f, 0);
    set(tree, "distance", 1.5f);
    evaluate(tree, 3.0f, &out);
    assert_float_equal(out.translations[0], 1.5f, 0);
    must(mn_blend_tree_advance_clock(tree, "distance", 0.25f, &err), &err);
    float v = 0;
    must(mn_blend_tree_get(tree, "distance", &v, &err), &err);
    assert_float_equal(v, 1.75f, 0);
    /* a blend parameter is not a clock to advance */
    assert_int_equal(mn_blend_tree_advance_clock(tree, "mix", 0.25f, &err), MN_INVALID_VALUE);
    assert_int_equal(mn_blend_tree_advance_clock(tree, "distanse", 0.25f, &err), MN_INVALID_VALUE);
    /* the other leaf follows the frame time through the root lerp */
    set(tree, "mix", 1.0f);
    must(mn_blend_tree_evaluate_node(tree, 2, 3.0f, NULL, &out, &err), &err);
    assert_float_equal(out.translations[3], 3.0f, 0);
    mn_blend_tree_free(tree);
    mn_clip_free(stride);
    mn_clip_free(breathe);
    mn_pose_free(&out);
}

static void an_unknown_or_non_finite_parameter_fails_loudly_and_changes_nothing(void **state)
{
    (void)state;
    mn_clip *a = constant_clip(0, 0, 0, 0), *b = constant_clip(0, 2, 0, 0);
    mn_blend_node nodes[] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = a},
        {.kind = MN_BLEND_NODE_CLIP, .clip = b},
        {.kind = MN_BLEND_NODE_LERP, .a = 0, .b = 1, .parameter = "Speed"},
    };
    mn_blend_tree *tree = must_tree(nodes, 3, 2, NULL);
    mn_error err;
    float v = -1;
    must(mn_blend_tree_get(tree, "Speed", &v, &err), &err);
    assert_float_equal(v, 0.0f, 0); /* every value starts at 0 */
    set(tree, "Speed", 0.25f);
    assert_int_equal(mn_blend_tree_set(tree, "speed", 1.0f, &err), MN_INVALID_VALUE); /* case matters */
    assert_int_equal(err.code, MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "\"speed\""));
    assert_int_equal(mn_blend_tree_set(tree, "", 1.0f, &err), MN_INVALID_VALUE);
    assert_int_equal(mn_blend_tree_set(tree, NULL, 1.0f, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_blend_tree_set(tree, "Speed", NAN, &err), MN_NOT_FINITE);
    assert_int_equal(mn_blend_tree_set(tree, "Speed", INFINITY, &err), MN_NOT_FINITE);
    assert_int_equal(mn_blend_tree_get(tree, "Sped", &v, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "did you mean \"Speed\"?"));
    assert_int_equal(mn_blend_tree_set(tree, "altitude", 1.0f, &err), MN_INVALID_VALUE);
    assert_null(strstr(err.message, "did you mean")); /* nothing declared is near */
    must(mn_blend_tree_get(tree, "Speed", &v, &err), &err);
    assert_float_equal(v, 0.25f, 0);
    /* by index */
    uint32_t i = mn_blend_tree_find(tree, "Speed");
    assert_int_equal(i, 0);
    assert_int_equal(mn_blend_tree_find(tree, "nope"), MN_NONE);
    assert_string_equal(mn_blend_tree_name(tree, i), "Speed");
    assert_int_equal(mn_blend_tree_name_count(tree), 1);
    must(mn_blend_tree_set_index(tree, i, 0.5f, &err), &err);
    assert_float_equal(mn_blend_tree_value(tree, i), 0.5f, 0);
    assert_int_equal(mn_blend_tree_set_index(tree, 1, 0.5f, &err), MN_INDEX_RANGE);
    mn_blend_tree_free(tree);
    mn_clip_free(a);
    mn_clip_free(b);
}

static void a_name_used_as_clock_and_parameter_is_refused_at_build(void **state)
{
    (void)state;
    mn_clip *a = constant_clip(0, 0, 0, 0), *b = constant_clip(0, 2, 0, 0);
    mn_blend_node nodes[] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = a, .clock = "speed"},
        {.kind = MN_BLEND_NODE_CLIP, .clip = b},
        {.kind = MN_BLEND_NODE_LERP, .a = 0, .b = 1, .parameter = "speed"},
    };
    mn_error err;
    assert_int_equal(try_tree(nodes, 3, 2, &err), MN_INVALID_VALUE);
    assert_string_equal(err.path, "nodes[2].parameter");
    assert_non_null(strstr(err.message, "speed"));
    assert_non_null(strstr(err.message, "nodes[0]"));
    /* shared uses of one kind are one value */
    nodes[0].clock = "stride";
    nodes[1].clock = "stride";
    mn_blend_tree *tree = must_tree(nodes, 3, 2, NULL);
    assert_int_equal(mn_blend_tree_name_count(tree), 2);
    mn_blend_tree_free(tree);
    /* empty and missing names */
    nodes[0].clock = "";
    assert_int_equal(try_tree(nodes, 3, 2, &err), MN_INVALID_ARGUMENT);
    nodes[0].clock = NULL;
    nodes[2].parameter = NULL;
    assert_int_equal(try_tree(nodes, 3, 2, &err), MN_INVALID_ARGUMENT);
    mn_clip_free(a);
    mn_clip_free(b);
}

/* ---- lerp and 1D ------------------------------------------------------------------------ */

static void lerp_is_blend_with_a_clamped_parameter(void **state)
{
    (void)state;
    mn_clip *a = rotation_clip(0.1f), *b = rotation_clip(1.3f);
    mn_pose bind = bind_pose(), out = make_pose(JOINTS), pa = make_pose(JOINTS),
            pb = make_pose(JOINTS), expect = make_pose(JOINTS);
    mn_blend_node nodes[] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = a},
        {.kind = MN_BLEND_NODE_CLIP, .clip = b},
        {.kind = MN_BLEND_NODE_LERP, .a = 0, .b = 1, .parameter = "p"},
    };
    mn_blend_tree *tree = must_tree(nodes, 3, 2, &bind);
    mn_pose_copy(&pa, &bind);
    assert_int_equal(mn_clip_sample(a, 0, &pa, NULL), MN_OK);
    mn_pose_copy(&pb, &bind);
    assert_int_equal(mn_clip_sample(b, 0, &pb, NULL), MN_OK);
    mn_error err;
    const float ps[] = {-2.0f, 0.0f, 0.3f, 0.999f, 1.0f, 7.0f};
    for (size_t i = 0; i < COUNT_OF(ps); i++) {
        set(tree, "p", ps[i]);
        evaluate(tree, 0.0f, &out);
        must(mn_pose_blend(&pa, &pb, ps[i], &expect, &err), &err);
        assert_true(poses_bit_equal(&out, &expect));
    }
    mn_blend_tree_free(tree);
    mn_clip_free(a);
    mn_clip_free(b);
    mn_pose_free(&bind);
    mn_pose_free(&out);
    mn_pose_free(&pa);
    mn_pose_free(&pb);
    mn_pose_free(&expect);
}

static void one_dimensional_sets_blend_the_bracketing_children(void **state)
{
    (void)state;
    mn_clip *c[3] = {constant_clip(0, 10, 0, 0), constant_clip(0, 20, 0, 0),
                     constant_clip(0, 40, 0, 0)};
    /* declared out of order: sorted by position at build */
    const uint32_t children[3] = {2, 0, 1};
    const float at[3] = {4.0f, 0.0f, 1.0f};
    mn_blend_node nodes[] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = c[0]},
        {.kind = MN_BLEND_NODE_CLIP, .clip = c[1]},
        {.kind = MN_BLEND_NODE_CLIP, .clip = c[2]},
        {.kind = MN_BLEND_NODE_1D, .parameter = "speed", .children = children, .child_count = 3,
         .positions = at},
    };
    mn_blend_tree *tree = must_tree(nodes, 4, 3, NULL);
    mn_pose out = make_pose(JOINTS);
    const float p[] = {-1.0f, 0.0f, 0.5f, 1.0f, 2.5f, 4.0f, 9.0f};
    const float x[] = {10.0f, 10.0f, 15.0f, 20.0f, 30.0f, 40.0f, 40.0f};
    for (size_t i = 0; i < COUNT_OF(p); i++) {
        set(tree, "speed", p[i]);
        evaluate(tree, 0.0f, &out);
        assert_float_near(out.translations[0], x[i], 1e-5);
    }
    /* outside the range: the end child alone, bit-exact */
    set(tree, "speed", 9.0f);
    evaluate(tree, 0.0f, &out);
    assert_float_equal(out.translations[0], 40.0f, 0);
    mn_blend_tree_free(tree);

    /* refusals: equal positions, NaN, no children, positions missing */
    mn_error err;
    const float same[3] = {0.0f, 1.0f, 1.0f}, nan_at[3] = {0.0f, NAN, 1.0f};
    nodes[3].positions = same;
    assert_int_equal(try_tree(nodes, 4, 3, &err), MN_INVALID_ARGUMENT);
    assert_string_equal(err.path, "nodes[3].positions");
    nodes[3].positions = nan_at;
    assert_int_equal(try_tree(nodes, 4, 3, &err), MN_NOT_FINITE);
    nodes[3].positions = at;
    nodes[3].child_count = 0;
    assert_int_equal(try_tree(nodes, 4, 3, &err), MN_INVALID_ARGUMENT);
    nodes[3].child_count = 3;
    nodes[3].positions = NULL;
    assert_int_equal(try_tree(nodes, 4, 3, &err), MN_INVALID_ARGUMENT);
    for (int i = 0; i < 3; i++)
        mn_clip_free(c[i]);
    mn_pose_free(&out);
}

/* ---- 2D ------------------------------------------------------------------------------------ */

/* Nine constant clips on a 3×3 grid (x, y ∈ {−1, 0, 1}, index = 3·row + column) with z = a tag. */
typedef struct grid {
    mn_clip *clips[9];
    mn_blend_node nodes[10];
    uint32_t children[9];
    float positions[18];
    float tag[9];
} grid;

static void grid_make(grid *g)
{
    memset(g, 0, sizeof *g);
    for (uint32_t i = 0; i < 9; i++) {
        float x = (float)(i % 3) - 1.0f, y = (float)(i / 3) - 1.0f;
        g->tag[i] = (float)(i * i) + 0.5f;
        g->clips[i] = constant_clip(0, x, y, g->tag[i]);
        g->nodes[i] = (mn_blend_node){.kind = MN_BLEND_NODE_CLIP, .clip = g->clips[i]};
        g->children[i] = i;
        g->positions[2 * i] = x;
        g->positions[2 * i + 1] = y;
    }
    g->nodes[9] = (mn_blend_node){.kind = MN_BLEND_NODE_2D, .parameter = "x", .parameter_y = "y",
                                  .children = g->children, .child_count = 9,
                                  .positions = g->positions};
}

static void grid_free(grid *g)
{
    for (int i = 0; i < 9; i++)
        mn_clip_free(g->clips[i]);
}

/* out's joint 0 translation for parameters (x, y): (x, y, Σ w·tag) inside the hull. */
static void eval_at(mn_blend_tree *tree, float x, float y, mn_pose *out)
{
    set(tree, "x", x);
    set(tree, "y", y);
    evaluate(tree, 0.0f, out);
}

static void grid_cells_split_along_the_diagonal_through_their_lowest_corner(void **state)
{
    (void)state;
    grid g;
    grid_make(&g);
    mn_blend_tree *tree = must_tree(g.nodes, 10, 9, NULL);
    mn_pose out = make_pose(JOINTS);
    /* Cell {0, 1, 3, 4}: diagonal 0–4.  (−0.25, −0.75) lies in (0, 1, 4): weights ¼, ½, ¼.
       Across the other diagonal it would be in (0, 1, 3) with different weights. */
    eval_at(tree, -0.25f, -0.75f, &out);
    double z = 0.25 * g.tag[0] + 0.5 * g.tag[1] + 0.25 * g.tag[4];
    assert_vec_near(out.translations, ((float[3]){-0.25f, -0.75f, (float)z}), 3, 1e-5);
    /* (−0.75, −0.25) lies in (0, 3, 4): x = −w0 − w3, y = −w0, so w0 = ¼, w3 = ½, w4 = ¼ */
    eval_at(tree, -0.75f, -0.25f, &out);
    z = 0.25 * g.tag[0] + 0.5 * g.tag[3] + 0.25 * g.tag[4];
    assert_float_near(out.translations[2], z, 1e-5);
    /* Cell {1, 2, 4, 5}: lowest corner 1, diagonal 1–5.  (0.25, −0.25) is in (1, 4, 5);
       across the other diagonal (2–4) it would be in (1, 2, 4) */
    eval_at(tree, 0.25f, -0.25f, &out);
    /* p = w1·(0,−1) + w4·(0,0) + w5·(1,0): w5 = 0.25, w1 = 0.25, w4 = 0.5 */
    z = 0.25 * g.tag[1] + 0.5 * g.tag[4] + 0.25 * g.tag[5];
    assert_float_near(out.translations[2], z, 1e-5);
    /* at a grid point: that child alone */
    eval_at(tree, 1.0f, 0.0f, &out);
    assert_float_near(out.translations[2], g.tag[5], 1e-5);
    mn_blend_tree_free(tree);
    grid_free(&g);
    mn_pose_free(&out);
}

static void outside_the_hull_the_nearest_edge_blends_linearly(void **state)
{
    (void)state;
    grid g;
    grid_make(&g);
    mn_blend_tree *tree = must_tree(g.nodes, 10, 9, NULL);
    mn_pose out = make_pose(JOINTS);
    /* right of x = 1, halfway between points 5 (1, 0) and 8 (1, 1) */
    eval_at(tree, 3.0f, 0.5f, &out);
    assert_vec_near(out.translations,
                    ((float[3]){1.0f, 0.5f, 0.5f * (g.tag[5] + g.tag[8])}), 3, 1e-5);
    /* beyond a corner: the corner alone */
    eval_at(tree, 2.0f, 5.0f, &out);
    assert_vec_near(out.translations, ((float[3]){1.0f, 1.0f, g.tag[8]}), 3, 1e-5);
    /* below y = −1, a quarter of the way from 0 to 1 */
    eval_at(tree, -0.75f, -4.0f, &out);
    assert_vec_near(out.translations,
                    ((float[3]){-0.75f, -1.0f, 0.75f * g.tag[0] + 0.25f * g.tag[1]}), 3, 1e-5);
    mn_blend_tree_free(tree);
    grid_free(&g);
    mn_pose_free(&out);
}

static void eight_directions_and_a_centre_fan_from_the_centre(void **state)
{
    (void)state;
    mn_clip *clips[9];
    mn_blend_node nodes[10];
    uint32_t children[9];
    float positions[18], tag[9];
    for (uint32_t i = 0; i < 9; i++) {
        /* child 0 the centre, then the eight directions counter-clockwise from +x */
        float a = (float)(i - 1) * 0.78539816f, r = i == 0 ? 0.0f : 1.0f;
        positions[2 * i] = r * cosf(a);
        positions[2 * i + 1] = r * sinf(a);
        tag[i] = 1.0f + (float)i * (float)i;
        clips[i] = constant_clip(0, positions[2 * i], positions[2 * i + 1], tag[i]);
        nodes[i] = (mn_blend_node){.kind = MN_BLEND_NODE_CLIP, .clip = clips[i]};
        children[i] = i;
    }
    nodes[9] = (mn_blend_node){.kind = MN_BLEND_NODE_2D, .parameter = "dir_x",
                               .parameter_y = "dir_y", .children = children, .child_count = 9,
                               .positions = positions, .sync = false};
    mn_blend_tree *tree = must_tree(nodes, 10, 9, NULL);
    mn_pose out = make_pose(JOINTS);
    /* between +x (1) and +x+y (2), half way out: only the centre, 1 and 2 weigh */
    float px = 0.5f * (positions[2] + positions[4]) * 0.5f, py = 0.5f * (positions[3] + positions[5]) * 0.5f;
    set(tree, "dir_x", px);
    set(tree, "dir_y", py);
    evaluate(tree, 0.0f, &out);
    /* p = ½·centre + ¼·(1) + ¼·(2) */
    float z = 0.5f * tag[0] + 0.25f * tag[1] + 0.25f * tag[2];
    assert_vec_near(out.translations, ((float[3]){px, py, z}), 3, 1e-5);
    mn_blend_tree_free(tree);
    for (int i = 0; i < 9; i++)
        mn_clip_free(clips[i]);
    mn_pose_free(&out);
}

static void caller_triangles_are_used_in_their_order(void **state)
{
    (void)state;
    grid g;
    grid_make(&g);
    /* the cell {0, 1, 3, 4} split the other way, 1–3, listed first */
    const uint32_t tris[] = {1, 3, 0, 1, 3, 4, 1, 2, 5, 1, 5, 4};
    g.nodes[9].triangles = tris;
    g.nodes[9].triangle_count = 4;
    mn_blend_tree *tree = must_tree(g.nodes, 10, 9, NULL);
    mn_pose out = make_pose(JOINTS);
    eval_at(tree, -0.25f, -0.75f, &out);
    /* in (1, 3, 0): p = w1·(0,−1) + w3·(−1,0) + w0·(−1,−1): w3 = ¼... solve: x = −w3 − w0, y = −w1 − w0 */
    double w0 = 0.0, w1 = 0.75, w3 = 0.25;
    /* check: x = −0.25 − 0 ✓, y = −0.75 − 0 ✓, sum 1 ✓ (on the edge 1–3, w0 = 0) */
    double z = w0 * g.tag[0] + w1 * g.tag[1] + w3 * g.tag[3];
    assert_float_near(out.translations[2], z, 1e-5);
    /* a point no given triangle covers goes to the nearest boundary edge */
    eval_at(tree, -0.5f, 0.9f, &out);
    assert_float_near(out.translations[0], -0.5f, 1e-5);
    assert_float_near(out.translations[1], 0.0f, 1e-5);
    assert_float_near(out.translations[2], 0.5 * g.tag[3] + 0.5 * g.tag[4], 1e-5);
    mn_blend_tree_free(tree);

    mn_error err;
    const uint32_t flat[] = {0, 1, 2};
    g.nodes[9].triangles = flat;
    g.nodes[9].triangle_count = 1;
    assert_int_equal(try_tree(g.nodes, 10, 9, &err), MN_INVALID_ARGUMENT);
    const uint32_t far[] = {0, 1, 9};
    g.nodes[9].triangles = far;
    assert_int_equal(try_tree(g.nodes, 10, 9, &err), MN_INDEX_RANGE);
    grid_free(&g);
    mn_pose_free(&out);
}

static void two_dimensional_spaces_refuse_degenerate_points(void **state)
{
    (void)state;
    grid g;
    grid_make(&g);
    mn_error err;
    g.nodes[9].child_count = 2;
    assert_int_equal(try_tree(g.nodes, 10, 9, &err), MN_INVALID_ARGUMENT);
    g.nodes[9].child_count = 3; /* 0, 1, 2: all on y = −1 */
    assert_int_equal(try_tree(g.nodes, 10, 9, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "line"));
    g.nodes[9].child_count = 9;
    g.positions[8] = g.positions[0];
    g.positions[9] = g.positions[1];
    assert_int_equal(try_tree(g.nodes, 10, 9, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "same point"));
    g.positions[8] = INFINITY;
    assert_int_equal(try_tree(g.nodes, 10, 9, &err), MN_NOT_FINITE);
    g.positions[8] = 0.0f;
    g.nodes[9].parameter_y = NULL;
    assert_int_equal(try_tree(g.nodes, 10, 9, &err), MN_INVALID_ARGUMENT);
    grid_free(&g);
}

/* A small deterministic generator for the property test below. */
static float next_unit(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / 16777216.0f;
}

static void random_spaces_reproduce_every_point_of_their_hull(void **state)
{
    (void)state;
    /* The unit square's corners plus random points (some on a grid, so cocircular cells occur):
       inside, the weights reproduce the query (barycentric); outside, the nearest square point;
       a z of 1 on every child shows the weights sum to 1. */
    uint32_t rng = 12345u;
    mn_pose out = make_pose(JOINTS);
    for (int round = 0; round < 12; round++) {
        enum { MAX_POINTS = 24 };
        uint32_t n = 4 + (uint32_t)(next_unit(&rng) * 20.0f);
        if (n > MAX_POINTS)
            n = MAX_POINTS;
        float positions[2 * MAX_POINTS];
        const float corners[8] = {0, 0, 1, 0, 0, 1, 1, 1};
        uint32_t children[MAX_POINTS];
        mn_blend_node nodes[MAX_POINTS + 1];
        mn_clip *clips[MAX_POINTS];
        memcpy(positions, corners, sizeof corners);
        for (uint32_t i = 4; i < n; i++) {
            bool on_grid = round % 2 == 0;
            for (;;) {
                float x = next_unit(&rng), y = next_unit(&rng);
                if (on_grid) {
                    x = floorf(x * 5.0f) / 5.0f; /* 25 grid points: room for every n */
                    y = floorf(y * 5.0f) / 5.0f;
                }
                bool dup = false;
                for (uint32_t k = 0; k < i; k++)
                    dup |= positions[2 * k] == x && positions[2 * k + 1] == y;
                if (!dup) {
                    positions[2 * i] = x;
                    positions[2 * i + 1] = y;
                    break;
                }
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            clips[i] = constant_clip(0, positions[2 * i], positions[2 * i + 1], 1.0f);
            nodes[i] = (mn_blend_node){.kind = MN_BLEND_NODE_CLIP, .clip = clips[i]};
            children[i] = i;
        }
        nodes[n] = (mn_blend_node){.kind = MN_BLEND_NODE_2D, .parameter = "x", .parameter_y = "y",
                                   .children = children, .child_count = n, .positions = positions};
        mn_blend_tree *tree = must_tree(nodes, n + 1, n, NULL);
        for (int q = 0; q < 200; q++) {
            float x = next_unit(&rng) * 1.6f - 0.3f, y = next_unit(&rng) * 1.6f - 0.3f;
            eval_at(tree, x, y, &out);
            float ex = x < 0 ? 0 : x > 1 ? 1 : x, ey = y < 0 ? 0 : y > 1 ? 1 : y;
            assert_vec_near(out.translations, ((float[3]){ex, ey, 1.0f}), 3, 2e-5);
        }
        mn_blend_tree_free(tree);
        for (uint32_t i = 0; i < n; i++)
            mn_clip_free(clips[i]);
    }
    mn_pose_free(&out);
}

/* ---- phase sync ----------------------------------------------------------------------------- */

static void synchronised_walk_and_run_share_normalised_time(void **state)
{
    (void)state;
    /* walk 1.0 s on joint 0, run 0.5 s on joint 1; x = the clip's own time */
    mn_clip *walk = ramp_clip(0, 0.0f, 1.0f), *run = ramp_clip(1, 0.0f, 0.5f);
    const uint32_t children[2] = {0, 1};
    const float at[2] = {0.0f, 1.0f};
    mn_blend_node nodes[] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = walk},
        {.kind = MN_BLEND_NODE_CLIP, .clip = run},
        {.kind = MN_BLEND_NODE_1D, .parameter = "speed", .children = children, .child_count = 2,
         .positions = at, .sync = true},
    };
    mn_blend_tree *tree = must_tree(nodes, 3, 2, NULL);
    assert_int_equal(mn_blend_tree_sync_count(tree), 1);
    assert_int_equal(mn_blend_tree_sync_node(tree, 0), 2);
    assert_int_equal(mn_blend_tree_sync_slot(tree, 2), 0);
    assert_int_equal(mn_blend_tree_sync_slot(tree, 0), MN_NONE);
    set(tree, "speed", 0.5f);
    /* the decisions' example: t = 0.3 → D = 0.75, φ = 0.4, walk at 0.4 s, run at 0.2 s */
    assert_float_near(mn_blend_tree_sync_period(tree, 0), 0.75, 1e-12);
    mn_blend_leaf leaves[4];
    assert_int_equal(mn_blend_tree_leaves(tree, 2, 0.3f, NULL, leaves, 4), 2);
    assert_float_near(leaves[0].time, 0.4, 1e-6);
    assert_float_near(leaves[1].time, 0.2, 1e-6);
    assert_true(leaves[0].loop && leaves[1].loop);
    mn_pose out = make_pose(JOINTS);
    evaluate(tree, 0.3f, &out);
    /* walk's joint 0 at 0.4 and run's joint 1 at 0.2, each blended half with the other's bind (0) */
    assert_float_near(out.translations[0], 0.5 * 0.4, 1e-6);
    assert_float_near(out.translations[3], 0.5 * 0.2, 1e-6);
    /* wraps: t = 1.05 → φ = 1.4, same pose as t = 0.3 */
    mn_pose again = make_pose(JOINTS);
    evaluate(tree, 1.05f, &again);
    assert_float_near(again.translations[0], out.translations[0], 1e-5);
    assert_float_near(again.translations[3], out.translations[3], 1e-5);

    /* a state machine's φ: advanced by dt / D and passed in */
    double phases[1] = {0.0};
    for (int i = 0; i < 3; i++)
        mn_blend_tree_advance_phases(tree, 2, 0.1f, phases);
    assert_float_near(phases[0], 0.4, 1e-6);
    mn_error err;
    must(mn_blend_tree_evaluate_node(tree, 2, 123.0f, phases, &again, &err), &err);
    assert_float_near(again.translations[0], out.translations[0], 1e-6);
    /* a change of speed changes D, not the phase reached so far */
    set(tree, "speed", 1.0f);
    assert_float_near(mn_blend_tree_sync_period(tree, 0), 0.5, 1e-12);
    mn_blend_tree_advance_phases(tree, 2, 0.1f, phases);
    assert_float_near(phases[0], 0.6, 1e-6);
    /* advancing from a node with no synced set below touches nothing */
    mn_blend_tree_advance_phases(tree, 0, 0.1f, phases);
    assert_float_near(phases[0], 0.6, 1e-6);
    mn_blend_tree_free(tree);
    mn_clip_free(walk);
    mn_clip_free(run);
    mn_pose_free(&out);
    mn_pose_free(&again);
}

static void synchronised_sets_refuse_children_that_cannot_share_a_phase(void **state)
{
    (void)state;
    mn_clip *walk = ramp_clip(0, 0.0f, 1.0f), *still = constant_clip(0, 1, 1, 1);
    const uint32_t children[2] = {0, 1};
    const float at[2] = {0.0f, 1.0f};
    mn_blend_node nodes[] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = walk},
        {.kind = MN_BLEND_NODE_CLIP, .clip = still}, /* duration 0 */
        {.kind = MN_BLEND_NODE_1D, .parameter = "speed", .children = children, .child_count = 2,
         .positions = at, .sync = true},
        {.kind = MN_BLEND_NODE_LERP, .a = 0, .b = 0, .parameter = "p"},
    };
    mn_error err;
    assert_int_equal(try_tree(nodes, 4, 2, &err), MN_INVALID_ARGUMENT);
    assert_string_equal(err.path, "nodes[2].children[1]");
    nodes[1].clip = walk;
    nodes[1].clock = "own";
    assert_int_equal(try_tree(nodes, 4, 2, &err), MN_INVALID_ARGUMENT);
    nodes[1].clock = NULL;
    const uint32_t with_lerp[2] = {0, 3};
    nodes[2].children = with_lerp;
    assert_int_equal(try_tree(nodes, 4, 2, &err), MN_INVALID_ARGUMENT);
    nodes[2].children = children;
    assert_int_equal(try_tree(nodes, 4, 2, &err), MN_OK);
    mn_clip_free(walk);
    mn_clip_free(still);
}

static void synchronised_2d_space_samples_each_child_at_its_share_of_the_cycle(void **state)
{
    (void)state;
    mn_clip *c[3] = {ramp_clip(0, 0.0f, 1.0f), ramp_clip(1, 0.0f, 2.0f), ramp_clip(2, 0.0f, 4.0f)};
    const uint32_t children[3] = {0, 1, 2};
    const float at[6] = {0, 0, 1, 0, 0, 1};
    mn_blend_node nodes[] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = c[0]},
        {.kind = MN_BLEND_NODE_CLIP, .clip = c[1]},
        {.kind = MN_BLEND_NODE_CLIP, .clip = c[2]},
        {.kind = MN_BLEND_NODE_2D, .parameter = "x", .parameter_y = "y", .children = children,
         .child_count = 3, .positions = at, .sync = true},
    };
    mn_blend_tree *tree = must_tree(nodes, 4, 3, NULL);
    set(tree, "x", 0.25f);
    set(tree, "y", 0.25f);
    /* weights ½, ¼, ¼ → D = 0.5 + 0.5 + 1 = 2; t = 1.5 → φ = 0.75 */
    assert_float_near(mn_blend_tree_sync_period(tree, 0), 2.0, 1e-12);
    mn_blend_leaf leaves[3];
    assert_int_equal(mn_blend_tree_leaves(tree, 3, 1.5f, NULL, leaves, 3), 3);
    assert_float_near(leaves[0].time, 0.75, 1e-6);
    assert_float_near(leaves[1].time, 1.5, 1e-6);
    assert_float_near(leaves[2].time, 3.0, 1e-6);
    mn_blend_tree_free(tree);
    for (int i = 0; i < 3; i++)
        mn_clip_free(c[i]);
}

/* ---- structure, entry nodes, leaves ------------------------------------------------------------- */

static void build_refuses_cycles_bad_indices_and_bad_kinds(void **state)
{
    (void)state;
    mn_clip *a = constant_clip(0, 1, 0, 0);
    mn_blend_node nodes[] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = a},
        {.kind = MN_BLEND_NODE_LERP, .a = 0, .b = 2, .parameter = "p"},
        {.kind = MN_BLEND_NODE_LERP, .a = 1, .b = 0, .parameter = "q"},
    };
    mn_error err;
    assert_int_equal(try_tree(nodes, 3, 2, &err), MN_HIERARCHY);
    nodes[1].b = 7;
    assert_int_equal(try_tree(nodes, 3, 2, &err), MN_INDEX_RANGE);
    assert_string_equal(err.path, "nodes[1].b");
    nodes[1].b = 0;
    assert_int_equal(try_tree(nodes, 3, 3, &err), MN_INDEX_RANGE);
    nodes[0].clip = NULL;
    assert_int_equal(try_tree(nodes, 3, 2, &err), MN_INVALID_ARGUMENT);
    nodes[0].clip = a;
    nodes[0].kind = MN_BLEND_NODE_INVALID;
    assert_int_equal(try_tree(nodes, 3, 2, &err), MN_INVALID_ARGUMENT);
    nodes[0].kind = MN_BLEND_NODE_CLIP;
    assert_int_equal(try_tree(nodes, 3, 2, &err), MN_OK);
    assert_int_equal(try_tree(nodes, 0, 0, &err), MN_INVALID_ARGUMENT);
    mn_blend_tree_desc desc = {.nodes = nodes, .node_count = 3, .root = 2};
    mn_blend_tree *tree;
    assert_int_equal(mn_blend_tree_create(&desc, &tree, &err), MN_INVALID_ARGUMENT); /* no joints */

    /* a chain deeper than 64 levels is refused (evaluation recursion stays bounded) */
    mn_blend_node chain[70];
    chain[0] = nodes[0];
    for (uint32_t i = 1; i < 70; i++)
        chain[i] = (mn_blend_node){.kind = MN_BLEND_NODE_LERP, .a = i - 1, .b = 0, .parameter = "p"};
    assert_int_equal(try_tree(chain, 70, 69, &err), MN_OVERFLOW);
    assert_int_equal(try_tree(chain, 40, 39, &err), MN_OK);
    /* a chain whose lerps take the level below on both sides doubles its leaf visits per level */
    for (uint32_t i = 1; i < 40; i++)
        chain[i].b = i - 1;
    assert_int_equal(try_tree(chain, 17, 16, &err), MN_OK);     /* 2^16 visits */
    assert_int_equal(try_tree(chain, 18, 17, &err), MN_OVERFLOW);
    assert_non_null(strstr(err.message, "65536"));
    /* sets of more than MN_BLEND_MAX_CHILDREN children */
    static uint32_t many[MN_BLEND_MAX_CHILDREN + 1];
    static float many_at[MN_BLEND_MAX_CHILDREN + 1];
    for (uint32_t i = 0; i <= MN_BLEND_MAX_CHILDREN; i++)
        many_at[i] = (float)i;
    mn_blend_node sets[2] = {nodes[0], {.kind = MN_BLEND_NODE_1D, .parameter = "p", .children = many,
                                        .child_count = MN_BLEND_MAX_CHILDREN + 1,
                                        .positions = many_at}};
    assert_int_equal(try_tree(sets, 2, 1, &err), MN_OVERFLOW);
    sets[1].child_count = MN_BLEND_MAX_CHILDREN;
    assert_int_equal(try_tree(sets, 2, 1, &err), MN_OK);
    mn_clip_free(a);
}

static void any_node_is_an_entry_point_and_leaves_list_depth_first(void **state)
{
    (void)state;
    mn_clip *idle = constant_clip(0, 1, 0, 0), *walk = ramp_clip(0, 0.0f, 1.0f),
            *run = ramp_clip(1, 0.0f, 0.5f), *wave = constant_clip(2, 0, 9, 0);
    const uint32_t gait[2] = {1, 2};
    const float at[2] = {1.0f, 3.0f};
    mn_blend_node nodes[] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = idle, .loop = true},               /* 0 */
        {.kind = MN_BLEND_NODE_CLIP, .clip = walk},                              /* 1 */
        {.kind = MN_BLEND_NODE_CLIP, .clip = run},                               /* 2 */
        {.kind = MN_BLEND_NODE_1D, .parameter = "speed", .children = gait, .child_count = 2,
         .positions = at, .sync = true},                                         /* 3 */
        {.kind = MN_BLEND_NODE_LERP, .parameter = "moving", .a = 0, .b = 3},     /* 4: locomotion */
        {.kind = MN_BLEND_NODE_CLIP, .clip = wave, .clock = "wave_time"},        /* 5: a second state */
        {.kind = MN_BLEND_NODE_LERP, .parameter = "waving", .a = 4, .b = 5},     /* 6 */
    };
    mn_blend_tree *tree = must_tree(nodes, 7, 4, NULL);
    assert_int_equal(mn_blend_tree_root(tree), 4);
    assert_int_equal(mn_blend_tree_node_count(tree), 7);
    mn_blend_leaf leaves[8];
    set(tree, "wave_time", 2.5f);
    uint32_t n = mn_blend_tree_leaves(tree, 6, 0.3f, NULL, NULL, 0);
    assert_int_equal(n, 4);
    set(tree, "speed", 2.0f); /* walk and run at ½ each: D = 0.75 */
    assert_int_equal(mn_blend_tree_leaves(tree, 6, 0.3f, NULL, leaves, 8), 4);
    assert_int_equal(leaves[0].node, 0);
    assert_true(leaves[0].loop);
    assert_float_near(leaves[0].time, 0.3, 1e-7);
    assert_int_equal(leaves[1].node, 1);
    assert_float_near(leaves[1].time, 0.4, 1e-6);
    assert_int_equal(leaves[2].node, 2);
    assert_float_near(leaves[2].time, 0.2, 1e-6);
    assert_int_equal(leaves[3].node, 5);
    assert_float_near(leaves[3].time, 2.5, 0);
    assert_ptr_equal(leaves[3].clip, wave);
    /* capacity smaller than the total: the first ones, and the total */
    assert_int_equal(mn_blend_tree_leaves(tree, 6, 0.3f, NULL, leaves, 1), 4);
    assert_int_equal(mn_blend_tree_leaves(tree, 99, 0.3f, NULL, leaves, 8), 0);

    /* evaluating node 5 alone is that clip alone; node 6 with waving = 1 the same */
    mn_pose a = make_pose(JOINTS), b = make_pose(JOINTS);
    mn_error err;
    must(mn_blend_tree_evaluate_node(tree, 5, 0.0f, NULL, &a, &err), &err);
    set(tree, "waving", 1.0f);
    must(mn_blend_tree_evaluate_node(tree, 6, 0.0f, NULL, &b, &err), &err);
    assert_true(poses_bit_equal(&a, &b));
    assert_float_equal(a.translations[7], 9.0f, 0);
    assert_int_equal(mn_blend_tree_evaluate_node(tree, 7, 0.0f, NULL, &a, &err), MN_INDEX_RANGE);
    mn_pose small = make_pose(JOINTS - 1);
    assert_int_equal(mn_blend_tree_evaluate(tree, 0.0f, &small, &err), MN_COUNT_MISMATCH);
    assert_int_equal(mn_blend_tree_evaluate(tree, NAN, &a, &err), MN_NOT_FINITE);
    assert_true(poses_bit_equal(&a, &b)); /* untouched by the refusals */
    mn_blend_tree_free(tree);
    mn_clip_free(idle);
    mn_clip_free(walk);
    mn_clip_free(run);
    mn_clip_free(wave);
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&small);
}

/* ---- real asset ------------------------------------------------------------------------------------ */

static void a_humanoid_clip_through_a_tree_matches_plain_sampling(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *model = NULL;
    mn_skeleton *sk = NULL;
    mn_clip *clip = NULL;
    mn_error err;
    must(mn_gltf_read_file(CESIUM_MAN, NULL, &model, &err), &err);
    must(mn_skeleton_from_skin(model, 0, NULL, &sk, &err), &err);
    must(mn_clip_from_gltf_skeleton(model, 0, sk, NULL, &clip, &err), &err);
    mn_blend_node nodes[] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = clip, .loop = true},
        {.kind = MN_BLEND_NODE_CLIP, .clip = clip, .clock = "offset", .loop = true},
        {.kind = MN_BLEND_NODE_LERP, .a = 0, .b = 1, .parameter = "mix"},
    };
    mn_blend_tree_desc desc = {.nodes = nodes, .node_count = 3, .root = 2, .bind = &sk->rest};
    mn_blend_tree *tree = NULL;
    must(mn_blend_tree_create(&desc, &tree, &err), &err);
    mn_pose out, expect, other;
    must(mn_pose_create(&out, sk->joint_count, NULL, &err), &err);
    must(mn_pose_create(&expect, sk->joint_count, NULL, &err), &err);
    must(mn_pose_create(&other, sk->joint_count, NULL, &err), &err);
    float d = mn_clip_duration(clip);
    for (float t = 0.0f; t < 2.0f * d; t += d / 7.0f) {
        evaluate(tree, t, &out);
        mn_pose_copy(&expect, &sk->rest);
        assert_int_equal(mn_clip_sample(clip, t - d * floorf(t / d), &expect, NULL), MN_OK);
        assert_true(poses_bit_equal(&out, &expect));
    }
    /* half way to the same clip a third of a cycle on */
    set(tree, "mix", 0.5f);
    set(tree, "offset", d / 3.0f);
    evaluate(tree, 0.1f, &out);
    mn_pose_copy(&expect, &sk->rest);
    assert_int_equal(mn_clip_sample(clip, 0.1f, &expect, NULL), MN_OK);
    mn_pose_copy(&other, &sk->rest);
    assert_int_equal(mn_clip_sample(clip, d / 3.0f, &other, NULL), MN_OK);
    must(mn_pose_blend(&expect, &other, 0.5f, &expect, &err), &err);
    assert_true(poses_bit_equal(&out, &expect));
    mn_blend_tree_free(tree);
    mn_pose_free(&out);
    mn_pose_free(&expect);
    mn_pose_free(&other);
    mn_clip_free(clip);
    mn_skeleton_free(sk);
    mn_model_free(model);
}

/* ---- allocation ---------------------------------------------------------------------------------- */

static void evaluation_allocates_nothing_and_free_returns_everything(void **state)
{
    (void)state;
    grid g;
    grid_make(&g);
    mn_clip *walk = ramp_clip(1, 0.0f, 1.0f), *run = ramp_clip(1, 0.0f, 0.6f);
    mn_blend_node nodes[14];
    memcpy(nodes, g.nodes, sizeof g.nodes);
    const uint32_t gait[2] = {10, 11};
    const float at[2] = {0.0f, 2.0f};
    nodes[10] = (mn_blend_node){.kind = MN_BLEND_NODE_CLIP, .clip = walk};
    nodes[11] = (mn_blend_node){.kind = MN_BLEND_NODE_CLIP, .clip = run};
    nodes[12] = (mn_blend_node){.kind = MN_BLEND_NODE_1D, .parameter = "speed", .children = gait,
                                .child_count = 2, .positions = at, .sync = true};
    nodes[13] = (mn_blend_node){.kind = MN_BLEND_NODE_LERP, .parameter = "mix", .a = 9, .b = 12};
    mn_pose bind = bind_pose();
    mn_error err;
    for (long fail = 0;; fail++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = fail;
        mn_blend_tree_desc desc = {.nodes = nodes, .node_count = 14, .root = 13, .bind = &bind,
                                   .allocator = mn_counting_allocator(&counter)};
        mn_blend_tree *tree = NULL;
        mn_status st = mn_blend_tree_create(&desc, &tree, &err);
        if (st != MN_OK) {
            assert_int_equal(st, MN_OUT_OF_MEMORY);
            assert_null(tree);
            assert_int_equal(counter.live_bytes, 0);
            assert_true(fail < 100);
            continue;
        }
        mn_pose out = make_pose(JOINTS);
        double phases[1] = {0};
        size_t before = counter.allocs;
        for (int i = 0; i < 50; i++) {
            float t = 0.037f * (float)i;
            set(tree, "x", sinf(t));
            set(tree, "y", cosf(t) * 1.5f);
            set(tree, "speed", t);
            set(tree, "mix", 0.5f + 0.5f * sinf(3.0f * t));
            evaluate(tree, t, &out);
            mn_blend_tree_advance_phases(tree, 13, 0.016f, phases);
            must(mn_blend_tree_evaluate_node(tree, 13, t, phases, &out, &err), &err);
            mn_blend_leaf leaves[16];
            (void)mn_blend_tree_leaves(tree, 13, t, phases, leaves, 16);
        }
        assert_int_equal(counter.allocs, before);
        mn_blend_tree_free(tree);
        assert_int_equal(counter.live_bytes, 0);
        mn_pose_free(&out);
        break;
    }
    grid_free(&g);
    mn_clip_free(walk);
    mn_clip_free(run);
    mn_pose_free(&bind);
}

static void evaluation_is_a_pure_function_of_parameters_and_time(void **state)
{
    (void)state;
    grid g;
    grid_make(&g);
    mn_blend_tree *tree = must_tree(g.nodes, 10, 9, NULL);
    mn_pose first = make_pose(JOINTS), later = make_pose(JOINTS);
    eval_at(tree, 0.3f, -0.2f, &first);
    eval_at(tree, -0.9f, 0.8f, &later); /* something else in between */
    eval_at(tree, 0.3f, -0.2f, &later);
    assert_true(poses_bit_equal(&first, &later));
    mn_blend_tree_free(tree);
    grid_free(&g);
    mn_pose_free(&first);
    mn_pose_free(&later);
}

/* ---- SIMD blends inside a tree ------------------------------------------------------------- */

#define WIDE_JOINTS 10u /* two SIMD groups of four and a scalar tail of two */

/* Every joint turned about its own axis by angle·(1 + j/10), one key; joint 0 also moved. */
static mn_clip *wide_clip(float angle)
{
    static const float time0 = 0.0f;
    float q[WIDE_JOINTS][4], t[3] = {angle, 0.5f, -angle};
    mn_track tracks[WIDE_JOINTS + 1];
    for (uint32_t j = 0; j < WIDE_JOINTS; j++) {
        float axis[3] = {0.3f, 1.0f - 0.1f * (float)j, 0.2f * (float)j};
        float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
        for (int i = 0; i < 3; i++)
            axis[i] /= len;
        mn_quat_from_axis_angle(q[j], axis, angle * (1.0f + 0.1f * (float)j));
        tracks[j] = (mn_track){.target = j, .path = MN_PATH_ROTATION, .interpolation = MN_INTERP_LINEAR,
                               .key_count = 1, .components = 4, .times = &time0, .values = q[j]};
    }
    tracks[WIDE_JOINTS] = (mn_track){.target = 0, .path = MN_PATH_TRANSLATION,
                                     .interpolation = MN_INTERP_LINEAR, .key_count = 1,
                                     .components = 3, .times = &time0, .values = t};
    return clip_from(tracks, WIDE_JOINTS + 1);
}

static void assert_wide_near(const mn_pose *a, const mn_pose *b)
{
    for (uint32_t i = 0; i < 3 * WIDE_JOINTS; i++) {
        assert_float_near(a->translations[i], b->translations[i], 1e-6);
        assert_float_near(a->scales[i], b->scales[i], 1e-6);
    }
    for (uint32_t i = 0; i < 4 * WIDE_JOINTS; i++)
        assert_float_near(a->rotations[i], b->rotations[i], 1e-6);
}

/*
 * A lerp and a 2D space over ten joints (so the SIMD blend runs): within
 * 1e-6 of the children blended by the scalar reference; children of zero
 * weight are not evaluated, which leaves exactly the weighted child's pose.
 */
static void tree_blends_match_the_scalar_reference_and_skip_zero_weights(void **state)
{
    (void)state;
    mn_clip *clips[3] = {wide_clip(0.1f), wide_clip(0.9f), wide_clip(-0.6f)};
    static const uint32_t children[3] = {0, 1, 2};
    static const float positions[6] = {0, 0, 1, 0, 0, 1};
    mn_blend_node nodes[5] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = clips[0]},
        {.kind = MN_BLEND_NODE_CLIP, .clip = clips[1]},
        {.kind = MN_BLEND_NODE_CLIP, .clip = clips[2]},
        {.kind = MN_BLEND_NODE_LERP, .a = 0, .b = 1, .parameter = "w"},
        {.kind = MN_BLEND_NODE_2D, .parameter = "x", .parameter_y = "y", .children = children,
         .child_count = 3, .positions = positions},
    };
    mn_blend_tree_desc desc = {.nodes = nodes, .node_count = 5, .root = 3, .joint_count = WIDE_JOINTS};
    mn_blend_tree *tree = NULL;
    mn_error err;
    must(mn_blend_tree_create(&desc, &tree, &err), &err);
    mn_pose out = make_pose(WIDE_JOINTS), leaf[3], expect = make_pose(WIDE_JOINTS);
    for (int c = 0; c < 3; c++) {
        leaf[c] = make_pose(WIDE_JOINTS);
        assert_int_equal(mn_clip_sample(clips[c], 0.0f, &leaf[c], NULL), MN_OK);
    }
    /* the lerp: the reference blend at interior weights, the child itself at 0 and 1 */
    static const float ws[] = {0.0f, 0.2f, 0.5f, 0.85f, 1.0f};
    for (size_t i = 0; i < COUNT_OF(ws); i++) {
        set(tree, "w", ws[i]);
        must(mn_blend_tree_evaluate_node(tree, 3, 0.0f, NULL, &out, &err), &err);
        mn_blend_poses_reference(&leaf[0], &leaf[1], ws[i], NULL, &expect);
        if (ws[i] == 0.0f || ws[i] == 1.0f)
            assert_true(poses_bit_equal(&out, &leaf[ws[i] == 0.0f ? 0 : 1]));
        else
            assert_wide_near(&out, &expect);
    }
    /* the space: at a vertex the child alone, bit for bit; on an edge the pair's blend */
    set(tree, "x", 0.0f);
    set(tree, "y", 1.0f);
    must(mn_blend_tree_evaluate_node(tree, 4, 0.0f, NULL, &out, &err), &err);
    assert_true(poses_bit_equal(&out, &leaf[2]));
    set(tree, "x", 0.25f);
    set(tree, "y", 0.0f);
    must(mn_blend_tree_evaluate_node(tree, 4, 0.0f, NULL, &out, &err), &err);
    mn_blend_poses_reference(&leaf[0], &leaf[1], 0.25f, NULL, &expect);
    assert_wide_near(&out, &expect);
    /* inside: the three in the set's order, each by its share so far (w0 = w1 = w2 = 1/3) */
    set(tree, "x", 1.0f / 3.0f);
    set(tree, "y", 1.0f / 3.0f);
    must(mn_blend_tree_evaluate_node(tree, 4, 0.0f, NULL, &out, &err), &err);
    mn_blend_poses_reference(&leaf[0], &leaf[1], 0.5f, NULL, &expect);
    mn_blend_poses_reference(&expect, &leaf[2], 1.0f / 3.0f, NULL, &expect);
    for (uint32_t i = 0; i < 4 * WIDE_JOINTS; i++)
        assert_float_near(out.rotations[i], expect.rotations[i], 1e-5);
    mn_blend_tree_free(tree);
    for (int c = 0; c < 3; c++) {
        mn_pose_free(&leaf[c]);
        mn_clip_free(clips[c]);
    }
    mn_pose_free(&out);
    mn_pose_free(&expect);
}

/*
 * A 2D space with `weighted_sum` over ten joints (the SIMD kernels run): on
 * an edge and inside, the children's normalised weighted sum
 * (mni_blend_sum3) within 1e-6; at a vertex the child alone, bit for bit;
 * and evaluating allocates nothing.
 */
static void weighted_sum_sets_blend_their_children_in_one_sum(void **state)
{
    (void)state;
    mn_clip *clips[3] = {wide_clip(0.1f), wide_clip(0.9f), wide_clip(-0.6f)};
    static const uint32_t children[3] = {0, 1, 2};
    static const float positions[6] = {0, 0, 1, 0, 0, 1};
    mn_blend_node nodes[4] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = clips[0]},
        {.kind = MN_BLEND_NODE_CLIP, .clip = clips[1]},
        {.kind = MN_BLEND_NODE_CLIP, .clip = clips[2]},
        {.kind = MN_BLEND_NODE_2D, .parameter = "x", .parameter_y = "y", .children = children,
         .child_count = 3, .positions = positions, .weighted_sum = true},
    };
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_blend_tree_desc desc = {.nodes = nodes, .node_count = 4, .root = 3, .joint_count = WIDE_JOINTS,
                               .allocator = mn_counting_allocator(&counter)};
    mn_blend_tree *tree = NULL;
    mn_error err;
    must(mn_blend_tree_create(&desc, &tree, &err), &err);
    mn_pose out = make_pose(WIDE_JOINTS), leaf[3], expect = make_pose(WIDE_JOINTS);
    for (int c = 0; c < 3; c++) {
        leaf[c] = make_pose(WIDE_JOINTS);
        assert_int_equal(mn_clip_sample(clips[c], 0.0f, &leaf[c], NULL), MN_OK);
    }
    size_t allocs = counter.allocs;
    set(tree, "x", 0.0f);
    set(tree, "y", 1.0f);
    evaluate(tree, 0.0f, &out);
    assert_true(poses_bit_equal(&out, &leaf[2]));
    set(tree, "x", 0.25f);
    set(tree, "y", 0.0f);
    evaluate(tree, 0.0f, &out);
    mni_blend_sum3_at(&leaf[0], &leaf[1], &leaf[1], 0.75f, 0.25f, 0.0f, &expect, MN_SIMD_SCALAR);
    assert_wide_near(&out, &expect);
    set(tree, "x", 0.2f);
    set(tree, "y", 0.5f);
    evaluate(tree, 0.0f, &out);
    mni_blend_sum3_at(&leaf[0], &leaf[1], &leaf[2], 0.3f, 0.2f, 0.5f, &expect, MN_SIMD_SCALAR);
    assert_wide_near(&out, &expect);
    assert_int_equal(counter.allocs, allocs);
    mn_blend_tree_free(tree);
    assert_int_equal(counter.live_bytes, 0);
    for (int c = 0; c < 3; c++) {
        mn_pose_free(&leaf[c]);
        mn_clip_free(clips[c]);
    }
    mn_pose_free(&out);
    mn_pose_free(&expect);
}

/*
 * A clip with a rotation track on every joint overwrites the rotations whole,
 * so its leaf copies only the rest of the bind pose first: the pose must be
 * what copying the whole bind pose and sampling gives, bit for bit, whatever
 * `out` held (NaN here), for a leaf alone and for a synchronised 2D set of
 * such leaves against the sequential blends it is defined by.
 */
static void a_leaf_whose_clip_covers_a_channel_gives_the_copied_bind_result(void **state)
{
    (void)state;
    mn_pose bind = bind_pose();
    float times[2] = {0.0f, 1.0f}, rot[JOINTS][8], root[6] = {0, 1, 0, 0.2f, 1.1f, 0};
    mn_clip *clips[3];
    for (uint32_t c = 0; c < 3; c++) {
        mn_track tracks[JOINTS + 1];
        for (uint32_t j = 0; j < JOINTS; j++) {
            float axis[3] = {0.3f * (float)c, 1.0f, 0.2f * (float)j};
            float n = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
            for (int i = 0; i < 3; i++)
                axis[i] /= n;
            mn_quat_from_axis_angle(rot[j], axis, 0.1f * (float)(c + j));
            mn_quat_from_axis_angle(rot[j] + 4, axis, 0.5f + 0.2f * (float)c);
            tracks[j] = (mn_track){.target = j, .path = MN_PATH_ROTATION, .interpolation = MN_INTERP_LINEAR,
                                   .key_count = 2, .components = 4, .times = times, .values = rot[j]};
        }
        /* clip 1 also moves joint 0 (translations partly covered: still copied) */
        tracks[JOINTS] = (mn_track){.target = 0, .path = MN_PATH_TRANSLATION, .interpolation = MN_INTERP_LINEAR,
                                    .key_count = 2, .components = 3, .times = times, .values = root};
        clips[c] = clip_from(tracks, c == 1 ? JOINTS + 1 : JOINTS);
    }
    static const uint32_t kids[3] = {0, 1, 2};
    static const float corners[6] = {0, 0, 1, 0, 0, 1};
    mn_blend_node nodes[] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = clips[0], .loop = true},
        {.kind = MN_BLEND_NODE_CLIP, .clip = clips[1], .loop = true},
        {.kind = MN_BLEND_NODE_CLIP, .clip = clips[2], .loop = true},
        {.kind = MN_BLEND_NODE_2D, .parameter = "x", .parameter_y = "y", .children = kids, .child_count = 3,
         .positions = corners, .sync = true},
    };
    mn_blend_tree *tree = must_tree(nodes, COUNT_OF(nodes), 3, &bind);
    mn_pose out = make_pose(JOINTS), expect = make_pose(JOINTS), leaf[3];
    mn_error err;
    for (uint32_t c = 0; c < 3; c++)
        leaf[c] = make_pose(JOINTS);
    const float nan = NAN;
    for (int frame = 0; frame < 5; frame++) {
        float t = 0.13f + 0.17f * (float)frame;
        for (uint32_t c = 0; c < 3; c++) { /* each leaf alone */
            for (uint32_t i = 0; i < 4 * JOINTS; i++)
                out.rotations[i] = out.translations[i % (3 * JOINTS)] = out.scales[i % (3 * JOINTS)] = nan;
            must(mn_blend_tree_evaluate_node(tree, c, t, NULL, &out, &err), &err);
            mn_pose_copy(&leaf[c], &bind);
            must(mn_clip_sample(clips[c], t, &leaf[c], &err), &err);
            assert_true(poses_bit_equal(&out, &leaf[c]));
        }
        /* the set at (0.25, 0.25): weights 0.5, 0.25, 0.25 (exact), blended in that order, phase-locked */
        must(mn_blend_tree_set(tree, "x", 0.25f, &err), &err);
        must(mn_blend_tree_set(tree, "y", 0.25f, &err), &err);
        for (uint32_t i = 0; i < 4 * JOINTS; i++)
            out.rotations[i] = out.translations[i % (3 * JOINTS)] = out.scales[i % (3 * JOINTS)] = nan;
        must(mn_blend_tree_evaluate(tree, t, &out, &err), &err);
        double phase = t / 1.0, frac = phase - floor(phase);
        for (uint32_t c = 0; c < 3; c++) {
            mn_pose_copy(&leaf[c], &bind);
            must(mn_clip_sample(clips[c], (float)(frac * 1.0), &leaf[c], &err), &err);
        }
        mn_pose_copy(&expect, &leaf[0]);
        mni_blend_poses(&expect, &leaf[1], (float)(0.25 / 0.75), NULL, &expect);
        mni_blend_poses(&expect, &leaf[2], (float)(0.25 / 1.0), NULL, &expect);
        assert_true(poses_bit_equal(&out, &expect));
    }
    for (uint32_t c = 0; c < 3; c++) {
        mn_pose_free(&leaf[c]);
        mn_clip_free(clips[c]);
    }
    mn_pose_free(&out);
    mn_pose_free(&expect);
    mn_pose_free(&bind);
    mn_blend_tree_free(tree);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_leaf_starts_from_the_bind_pose_and_out_is_fully_written),
        cmocka_unit_test(a_bind_pose_keeps_rotation_only_clips_from_collapsing),
        cmocka_unit_test(a_leaf_whose_clip_covers_a_channel_gives_the_copied_bind_result),
        cmocka_unit_test(looping_leaves_wrap_from_zero_and_others_clamp),
        cmocka_unit_test(named_clocks_give_a_leaf_its_own_time),
        cmocka_unit_test(an_unknown_or_non_finite_parameter_fails_loudly_and_changes_nothing),
        cmocka_unit_test(a_name_used_as_clock_and_parameter_is_refused_at_build),
        cmocka_unit_test(lerp_is_blend_with_a_clamped_parameter),
        cmocka_unit_test(one_dimensional_sets_blend_the_bracketing_children),
        cmocka_unit_test(grid_cells_split_along_the_diagonal_through_their_lowest_corner),
        cmocka_unit_test(outside_the_hull_the_nearest_edge_blends_linearly),
        cmocka_unit_test(eight_directions_and_a_centre_fan_from_the_centre),
        cmocka_unit_test(caller_triangles_are_used_in_their_order),
        cmocka_unit_test(two_dimensional_spaces_refuse_degenerate_points),
        cmocka_unit_test(random_spaces_reproduce_every_point_of_their_hull),
        cmocka_unit_test(synchronised_walk_and_run_share_normalised_time),
        cmocka_unit_test(synchronised_sets_refuse_children_that_cannot_share_a_phase),
        cmocka_unit_test(synchronised_2d_space_samples_each_child_at_its_share_of_the_cycle),
        cmocka_unit_test(build_refuses_cycles_bad_indices_and_bad_kinds),
        cmocka_unit_test(any_node_is_an_entry_point_and_leaves_list_depth_first),
        cmocka_unit_test(a_humanoid_clip_through_a_tree_matches_plain_sampling),
        cmocka_unit_test(evaluation_allocates_nothing_and_free_returns_everything),
        cmocka_unit_test(evaluation_is_a_pure_function_of_parameters_and_time),
        cmocka_unit_test(tree_blends_match_the_scalar_reference_and_skip_zero_weights),
        cmocka_unit_test(weighted_sum_sets_blend_their_children_in_one_sum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
