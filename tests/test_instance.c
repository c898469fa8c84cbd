/*
 * Model instances and crowds (src/rig/instance.c, src/rig/crowd.c) on the
 * sample assets (every case reads them: without them the whole test is
 * skipped, tests/support/assets.h): the rig's parts and unit-fit, placement in the
 * engine's yaw/pitch/roll order with the fit and size, skinned vertices
 * checked against palette × vertex computed here from the file's own
 * accessors (SimpleSkin, RiggedSimple), morphed vertices (SimpleMorph), a
 * mesh drawn by two nodes (SimpleMeshes), the visibility flag, zero
 * allocations per frame, a crowd updated on a thread pool giving the bits of
 * a serial loop, the crowd path (SIMD kernels, the placement as the roots'
 * parent) held to the per-instance result it replaced within TOLERANCE, the
 * kernels it runs at every SIMD level, and every out-of-memory path of
 * creation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/clip.h>
#include <marionette/gltf.h>
#include <marionette/instance.h>
#include <marionette/math.h>
#include <marionette/mixer.h>

#include "anim/anim.h" /* mni_local_to_world_kernel, mni_palette_kernel: each level */
#include "anim/skeleton_internal.h"
#include "rig/internal.h" /* MNI_CROWD_PREFETCH_MIN_BYTES, mni_instance_batch_leaves_cache */
#include "assert_near.h"
#include "assets.h"
#include "counting_alloc.h"
#include "xorshift.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIMPLE_SKIN mn_test_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf")
#define RIGGED_SIMPLE mn_test_asset("gltf/RiggedSimple/glTF-Binary/RiggedSimple.glb")
#define SIMPLE_MORPH mn_test_asset("gltf/SimpleMorph/glTF/SimpleMorph.gltf")
#define SIMPLE_MESHES mn_test_asset("gltf/SimpleMeshes/glTF/SimpleMeshes.gltf")
#define CESIUM_MAN mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb")

static mn_rig *make_rig(const mn_model *model, const mn_allocator *allocator)
{
    mn_rig *rig = NULL;
    mn_error err;
    mn_rig_options options = {.allocator = allocator ? *allocator : (mn_allocator){0}};
    if (mn_rig_create(model, &options, &rig, &err) != MN_OK)
        fail_msg("mn_rig_create: %s", err.message);
    return rig;
}

static mn_instance *spawn(const mn_rig *rig, mn_instance_desc desc)
{
    mn_instance *in = NULL;
    mn_error err;
    if (mn_instance_create(rig, &desc, &in, &err) != MN_OK)
        fail_msg("mn_instance_create: %s", err.message);
    return in;
}

/* Show the instance's clip 0 at time t (paused there, so nothing moves on). */
static void pose_at(mn_instance *in, float t)
{
    mn_mixer *mixer = mn_instance_mixer(in);
    if (mn_mixer_current(mixer) == MN_NONE)
        assert_int_equal(mn_mixer_play(mixer, 0, NULL, NULL), MN_OK);
    mn_mixer_pause(mixer);
    mn_mixer_seek(mixer, t);
    mn_instance_update(in, 0.0f);
}

/*
 * TOLERANCE: what the crowd path may differ by from the per-instance result
 * it replaced (placement × the mixer's worlds, each node composed with
 * mn_mat4_compose and mn_mat4_mul; palettes with mn_mat4_mul).  The new path
 * composes the placement in once, as the roots' parent, so the products
 * associate differently, and on AVX2 machines the skeleton kernel fuses
 * multiply-adds: each level of the hierarchy rounds differently by an ulp or
 * so of the matrix's magnitude.  |a − b| <= 1e-5 × (1 + the largest |b| of
 * the array) covers hierarchies some dozens of levels deep with a wide
 * margin; the pose, weights and locals themselves stay bit-identical.
 */
static double tolerance_of(const float *expected, size_t n)
{
    double big = 0.0;
    for (size_t i = 0; i < n; i++)
        big = fmax(big, fabs((double)expected[i]));
    return 1e-5 * (1.0 + big);
}

static void assert_within_tolerance(const float *got, const float *expected, size_t n)
{
    assert_vec_near(got, expected, n, tolerance_of(expected, n));
}

/* ---- what the file says, computed here ---------------------------------------------- */

/* World matrices of every node with animation `anim` sampled at t (MN_NONE: rest). */
static float *expected_worlds(const mn_model *model, uint32_t anim, float t)
{
    size_t n = model->node_count;
    float *locals = calloc(16 * n, sizeof(float)), *worlds = calloc(16 * n, sizeof(float));
    int32_t *parents = calloc(n, sizeof(int32_t));
    for (size_t i = 0; i < n; i++) {
        const mn_node *node = &model->nodes[i];
        float tr[3], r[4], s[3];
        memcpy(tr, node->translation, sizeof tr);
        memcpy(r, node->rotation, sizeof r);
        memcpy(s, node->scale, sizeof s);
        for (uint32_t c = 0; anim != MN_NONE && c < model->animations[anim].channel_count; c++) {
            const mn_channel *ch = &model->animations[anim].channels[c];
            if (ch->node != i)
                continue;
            if (ch->path == MN_PATH_TRANSLATION)
                mn_channel_sample(ch, t, tr);
            else if (ch->path == MN_PATH_ROTATION)
                mn_channel_sample(ch, t, r);
            else if (ch->path == MN_PATH_SCALE)
                mn_channel_sample(ch, t, s);
        }
        mn_mat4_compose(locals + 16 * i, tr, r, s);
        parents[i] = node->parent == MN_NONE ? -1 : (int32_t)node->parent;
    }
    assert_int_equal(mn_compose_worlds(parents, n, locals, worlds, NULL), MN_OK);
    free(locals);
    free(parents);
    return worlds;
}

/* The rest positions (and normals, when asked and present) of a primitive. */
static float *attribute(const mn_model *model, const mn_primitive *prim, mn_semantic semantic)
{
    uint32_t a = mn_primitive_find(prim, semantic, 0);
    if (a == MN_NONE)
        return NULL;
    size_t need = mn_accessor_unpack_floats(&model->accessors[a], NULL, 0);
    float *out = calloc(need, sizeof(float));
    mn_accessor_unpack_floats(&model->accessors[a], out, need);
    return out;
}

/*
 * Skinned positions and normals of the part's primitive: Σ w × palette[j] × v
 * with palette[j] = world[skin.joints[j]] × inverseBind[j], in double.
 */
static void expected_skinned(const mn_model *model, const mn_part *part, const float *worlds,
                             float *positions, float *normals)
{
    const mn_primitive *prim = &model->meshes[part->mesh].primitives[part->primitive];
    const mn_skin *skin = &model->skins[part->skin];
    size_t v = prim->vertex_count;
    float *rest = attribute(model, prim, MN_SEMANTIC_POSITION);
    float *rest_n = attribute(model, prim, MN_SEMANTIC_NORMAL);
    uint16_t *joints = calloc(4 * v, sizeof(uint16_t));
    float *weights = calloc(4 * v, sizeof(float));
    assert_true(mn_primitive_skin_influences(model, prim, joints, weights));
    float *palette = calloc(16 * (size_t)skin->joint_count, sizeof(float));
    for (uint32_t j = 0; j < skin->joint_count; j++)
        mn_mat4_mul(palette + 16 * j, worlds + 16 * (size_t)skin->joints[j], skin->inverse_bind + 16 * j);
    for (size_t i = 0; i < v; i++) {
        double p[3] = {0, 0, 0}, nn[3] = {0, 0, 0};
        for (int k = 0; k < 4; k++) {
            double w = weights[4 * i + k];
            const float *m = palette + 16 * (size_t)joints[4 * i + k];
            const float *x = rest + 3 * i;
            for (int r = 0; r < 3; r++) {
                p[r] += w * (m[r] * (double)x[0] + m[4 + r] * (double)x[1] + m[8 + r] * (double)x[2] + m[12 + r]);
                if (rest_n) {
                    const float *y = rest_n + 3 * i;
                    nn[r] += w * (m[r] * (double)y[0] + m[4 + r] * (double)y[1] + m[8 + r] * (double)y[2]);
                }
            }
        }
        double len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
        for (int r = 0; r < 3; r++) {
            positions[3 * i + r] = (float)p[r];
            if (normals && rest_n)
                normals[3 * i + r] = (float)(nn[r] / len);
        }
    }
    free(rest);
    free(rest_n);
    free(joints);
    free(weights);
    free(palette);
}

static double model_extent(const mn_model *model)
{
    double e = 0;
    for (int a = 0; a < 3; a++)
        e = fmax(e, (double)model->bounds_max[a] - (double)model->bounds_min[a]);
    return e;
}

/* ---- the rig ------------------------------------------------------------------------ */

static void a_rig_lists_its_parts_clips_triangles_and_unit_fit(void **state)
{
    (void)state;
    mn_model *model = mn_test_load(SIMPLE_SKIN);
    mn_rig *rig = make_rig(model, NULL);
    assert_ptr_equal(mn_rig_model(rig), model);
    assert_int_equal(mn_rig_clip_count(rig), 1);
    assert_non_null(mn_rig_clip(rig, 0));
    assert_null(mn_rig_clip(rig, 1));
    assert_int_equal(mn_rig_part_count(rig), 1);
    const mn_part *part = mn_rig_part(rig, 0);
    assert_int_equal(part->node, 0);
    assert_int_equal(part->mesh, 0);
    assert_int_equal(part->primitive, 0);
    assert_int_equal(part->skin, 0);
    assert_false(part->morphed);
    assert_int_equal(part->vertex_count, 10);
    assert_int_equal(part->triangle_count, 8);
    assert_int_equal(part->material, MN_NONE);
    assert_non_null(part->deform);
    assert_null(mn_rig_part(rig, 1));
    assert_int_equal(mn_rig_triangle_count(rig), 8);

    float size[3];
    mn_rig_size(rig, size);
    mn_unit_fit fit = mn_rig_fit(rig);
    float largest = 0.0f;
    for (int a = 0; a < 3; a++) {
        assert_float_equal(size[a], model->bounds_max[a] - model->bounds_min[a], 0.0f);
        assert_float_near(fit.center[a], 0.5f * (model->bounds_min[a] + model->bounds_max[a]), 1e-6);
        largest = fmaxf(largest, size[a]);
    }
    assert_true(largest > 0.0f);
    assert_float_equal(fit.scale, 1.0f / largest, 0.0f);
    mn_rig_free(rig);
    mn_model_free(model);
}

static void a_mesh_drawn_by_two_nodes_is_two_parts_sharing_one_prepared_mesh(void **state)
{
    (void)state;
    mn_model *model = mn_test_load(SIMPLE_MESHES);
    mn_rig *rig = make_rig(model, NULL);
    assert_int_equal(mn_rig_part_count(rig), 2);
    const mn_part *a = mn_rig_part(rig, 0), *b = mn_rig_part(rig, 1);
    assert_int_equal(a->node, 0);
    assert_int_equal(b->node, 1);
    assert_ptr_equal(a->deform, b->deform);
    assert_int_equal(mn_rig_triangle_count(rig), 2);

    mn_instance *in = spawn(rig, (mn_instance_desc){0});
    const mn_posed_part *pa = mn_instance_part(in, 0), *pb = mn_instance_part(in, 1);
    /* Static parts show the rig's rest streams, placed by their node's placed world. */
    assert_ptr_equal(pa->positions, a->deform->positions);
    assert_ptr_equal(pa->matrix, mn_instance_worlds(in));
    assert_ptr_equal(pb->matrix, mn_instance_worlds(in) + 16);
    float placement[16], expected[16], local[16];
    mn_instance_placement(in, placement);
    mn_node_local_matrix(&model->nodes[1], local);
    mn_mat4_mul(expected, placement, local);
    assert_vec_near(pb->matrix, expected, 16, 1e-6);
    mn_instance_free(in);
    mn_rig_free(rig);
    mn_model_free(model);
}

/* ---- placement ----------------------------------------------------------------------- */

static void placement_is_translate_yaw_pitch_roll_then_size_over_the_unit_fit(void **state)
{
    (void)state;
    mn_model *model = mn_test_load(SIMPLE_SKIN);
    mn_rig *rig = make_rig(model, NULL);
    const float yaw = 0.3f, pitch = -0.4f, roll = 0.5f;
    mn_instance *in = spawn(rig, (mn_instance_desc){
        .position = {1, 2, 3}, .yaw = yaw, .pitch = pitch, .roll = roll, .size = 2.5f});

    /* By hand: T · Ry(yaw) · Rx(pitch) · Rz(roll) · S(size × fit.scale) · T(−centre). */
    const float X[3] = {1, 0, 0}, Y[3] = {0, 1, 0}, Z[3] = {0, 0, 1};
    float qy[4], qx[4], qz[4], ry[16], rx[16], rz[16], m1[16], m2[16], r[16];
    mn_quat_from_axis_angle(qy, Y, yaw);
    mn_quat_from_axis_angle(qx, X, pitch);
    mn_quat_from_axis_angle(qz, Z, roll);
    mn_quat_to_mat4(ry, qy);
    mn_quat_to_mat4(rx, qx);
    mn_quat_to_mat4(rz, qz);
    mn_mat4_mul(m1, ry, rx);
    mn_mat4_mul(r, m1, rz);
    mn_unit_fit fit = mn_rig_fit(rig);
    float k = 2.5f * fit.scale, scale_shift[16], t[16], expected[16];
    mn_mat4_identity(scale_shift);
    scale_shift[0] = scale_shift[5] = scale_shift[10] = k;
    for (int a = 0; a < 3; a++)
        scale_shift[12 + a] = -k * fit.center[a];
    mn_mat4_identity(t);
    t[12] = 1;
    t[13] = 2;
    t[14] = 3;
    mn_mat4_mul(m2, t, r);
    mn_mat4_mul(expected, m2, scale_shift);

    float placement[16];
    mn_instance_placement(in, placement);
    assert_vec_near(placement, expected, 16, 1e-6);
    /* A skinned part is drawn with the placement itself. */
    assert_vec_near(mn_instance_part(in, 0)->matrix, expected, 16, 1e-6);
    /* Node worlds are placement × the model-space worlds (composed in one pass: TOLERANCE). */
    const float *model_worlds = mn_mixer_worlds(mn_instance_mixer(in));
    for (uint32_t i = 0; i < model->node_count; i++) {
        float w[16];
        mn_mat4_mul(w, placement, model_worlds + 16 * i);
        assert_within_tolerance(mn_instance_worlds(in) + 16 * i, w, 16);
    }

    /* Unrotated, the bounds span exactly `size` along their largest side, centred on the position. */
    mn_instance_set_rotation(in, 0, 0, 0);
    mn_instance_set_size(in, 4.0f);
    mn_instance_set_position(in, 0, 0, 0);
    mn_instance_placement(in, placement);
    float lo[3], hi[3];
    mn_mat4_transform_point(lo, placement, model->bounds_min);
    mn_mat4_transform_point(hi, placement, model->bounds_max);
    float span = 0;
    for (int a = 0; a < 3; a++) {
        span = fmaxf(span, hi[a] - lo[a]);
        assert_float_near(lo[a] + hi[a], 0.0f, 1e-5);
    }
    assert_float_near(span, 4.0f, 1e-5);

    /* Setters show in the outputs at the next update. */
    float before[16];
    memcpy(before, mn_instance_worlds(in), sizeof before);
    mn_instance_update(in, 0.0f);
    assert_memory_not_equal(mn_instance_worlds(in), before, sizeof before);
    float got[3];
    mn_instance_position(in, got);
    assert_float_equal(got[0], 0.0f, 0.0f);
    mn_instance_rotation(in, got);
    assert_float_equal(got[2], 0.0f, 0.0f);
    assert_float_equal(mn_instance_size(in), 4.0f, 0.0f);
    /* Non-finite values are ignored. */
    mn_instance_set_position(in, NAN, 0, 0);
    mn_instance_set_size(in, INFINITY);
    assert_float_equal(mn_instance_size(in), 4.0f, 0.0f);
    mn_instance_free(in);

    /* The default desc: at the origin, size 1, visible. */
    in = spawn(rig, (mn_instance_desc){0});
    assert_float_equal(mn_instance_size(in), 1.0f, 0.0f);
    assert_true(mn_instance_visible(in));
    mn_instance_free(in);
    mn_rig_free(rig);
    mn_model_free(model);
}

/* ---- deformation -------------------------------------------------------------------- */

static void simple_skin_vertices_are_palette_times_vertex_at_0_and_1(void **state)
{
    (void)state;
    mn_model *model = mn_test_load(SIMPLE_SKIN);
    mn_rig *rig = make_rig(model, NULL);
    mn_instance *in = spawn(rig, (mn_instance_desc){.position = {7, 0, 0}, .yaw = 1.0f});
    const mn_part *part = mn_rig_part(rig, 0);
    const mn_posed_part *posed = mn_instance_part(in, 0);
    assert_null(posed->normals); /* SimpleSkin has no normals */
    float expected[30];
    const double tol = 1e-5 * fmax(1.0, model_extent(model));
    const float times[] = {0.0f, 1.0f, 2.75f};
    for (size_t k = 0; k < 3; k++) {
        pose_at(in, times[k]);
        float *worlds = expected_worlds(model, 0, times[k]);
        expected_skinned(model, part, worlds, expected, NULL);
        /* Model space: the instance's own placement is the draw matrix, not in the vertices. */
        assert_vec_near(posed->positions, expected, 30, tol);
        free(worlds);
    }
    /* At 1 s the second joint has turned: the top vertices moved off their rest x. */
    pose_at(in, 1.0f);
    float *rest = attribute(model, &model->meshes[0].primitives[0], MN_SEMANTIC_POSITION);
    assert_true(fabsf(posed->positions[3 * 9] - rest[3 * 9]) > 0.1f);
    free(rest);
    mn_instance_free(in);
    mn_rig_free(rig);
    mn_model_free(model);
}

static void rigged_simple_positions_and_normals_follow_its_skin(void **state)
{
    (void)state;
    mn_model *model = mn_test_load(RIGGED_SIMPLE);
    mn_rig *rig = make_rig(model, NULL);
    mn_instance *in = spawn(rig, (mn_instance_desc){.size = 3.0f});
    assert_int_equal(mn_rig_part_count(rig), 1);
    const mn_part *part = mn_rig_part(rig, 0);
    assert_int_equal(part->skin, 0);
    assert_int_equal(part->node, 2);
    const mn_posed_part *posed = mn_instance_part(in, 0);
    assert_non_null(posed->normals);
    size_t v = part->vertex_count;
    float *positions = calloc(3 * v, sizeof(float)), *normals = calloc(3 * v, sizeof(float));
    const double tol = 1e-5 * fmax(1.0, model_extent(model));
    const float duration = mn_clip_duration(mn_rig_clip(rig, 0));
    const float times[] = {0.0f, 0.5f, 1.0f, 1.3f, duration};
    for (size_t k = 0; k < 5; k++) {
        pose_at(in, times[k]);
        float *worlds = expected_worlds(model, 0, mn_mixer_time(mn_instance_mixer(in)));
        expected_skinned(model, part, worlds, positions, normals);
        assert_vec_near(posed->positions, positions, 3 * v, tol);
        assert_vec_near(posed->normals, normals, 3 * v, 1e-5);
        free(worlds);
    }
    free(positions);
    free(normals);
    mn_instance_free(in);
    mn_rig_free(rig);
    mn_model_free(model);
}

static void simple_morph_vertices_are_the_base_plus_weighted_targets(void **state)
{
    (void)state;
    mn_model *model = mn_test_load(SIMPLE_MORPH);
    mn_rig *rig = make_rig(model, NULL);
    mn_instance *in = spawn(rig, (mn_instance_desc){.position = {0, 1, 0}});
    const mn_part *part = mn_rig_part(rig, 0);
    assert_true(part->morphed);
    assert_int_equal(part->skin, MN_NONE);
    const mn_posed_part *posed = mn_instance_part(in, 0);
    assert_ptr_not_equal(posed->positions, part->deform->positions);
    assert_ptr_equal(posed->matrix, mn_instance_worlds(in) + 16 * part->node);

    const mn_primitive *prim = &model->meshes[0].primitives[0];
    float *base = calloc(9, sizeof(float)), *d0 = calloc(9, sizeof(float)), *d1 = calloc(9, sizeof(float));
    mn_accessor_unpack_floats(&model->accessors[mn_primitive_find(prim, MN_SEMANTIC_POSITION, 0)], base, 9);
    mn_accessor_unpack_floats(&model->accessors[prim->targets[0].position], d0, 9);
    mn_accessor_unpack_floats(&model->accessors[prim->targets[1].position], d1, 9);

    /* At rest: the mesh's default weights (0.5 0.5). */
    for (int i = 0; i < 9; i++)
        assert_float_near(posed->positions[i], base[i] + 0.5f * d0[i] + 0.5f * d1[i], 1e-6);
    /* Animated: the weights track's values. */
    const float times[] = {0.0f, 1.0f, 1.5f, 3.25f};
    for (size_t k = 0; k < 4; k++) {
        pose_at(in, times[k]);
        float w[2];
        mn_channel_sample(&model->animations[0].channels[0], times[k], w);
        uint32_t count = 0;
        const float *mw = mn_mixer_weights(mn_instance_mixer(in), part->node, &count);
        assert_int_equal(count, 2);
        assert_float_equal(mw[0], w[0], 0.0f);
        assert_float_equal(mw[1], w[1], 0.0f);
        for (int i = 0; i < 9; i++)
            assert_float_near(posed->positions[i], base[i] + w[0] * d0[i] + w[1] * d1[i], 1e-6);
    }
    free(base);
    free(d0);
    free(d1);
    mn_instance_free(in);
    mn_rig_free(rig);
    mn_model_free(model);
}

static void a_hidden_instance_animates_but_deforms_only_once_shown(void **state)
{
    (void)state;
    mn_model *model = mn_test_load(SIMPLE_SKIN);
    mn_rig *rig = make_rig(model, NULL);
    mn_instance *hidden = spawn(rig, (mn_instance_desc){.hidden = true});
    mn_instance *shown = spawn(rig, (mn_instance_desc){0});
    assert_false(mn_instance_visible(hidden));
    float rest[30];
    memcpy(rest, mn_instance_part(hidden, 0)->positions, sizeof rest);
    assert_memory_equal(rest, mn_instance_part(shown, 0)->positions, sizeof rest);

    mn_instance *both[2] = {hidden, shown};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(mn_mixer_play(mn_instance_mixer(both[i]), 0, NULL, NULL), MN_OK);
        mn_instance_update(both[i], 1.25f);
    }
    /* Worlds move for both; vertices only for the shown one. */
    assert_memory_equal(mn_instance_worlds(hidden), mn_instance_worlds(shown),
                        16 * model->node_count * sizeof(float));
    assert_memory_equal(mn_instance_part(hidden, 0)->positions, rest, sizeof rest);
    assert_memory_not_equal(mn_instance_part(shown, 0)->positions, rest, sizeof rest);

    mn_instance_set_visible(hidden, true);
    mn_instance_update(hidden, 0.0f);
    mn_instance_update(shown, 0.0f);
    assert_memory_equal(mn_instance_part(hidden, 0)->positions, mn_instance_part(shown, 0)->positions,
                        sizeof rest);
    mn_instance_free(hidden);
    mn_instance_free(shown);
    mn_rig_free(rig);
    mn_model_free(model);
}

/* ---- allocation and crowds -------------------------------------------------------- */

static void updating_an_instance_allocates_nothing(void **state)
{
    (void)state;
    mn_model *model = mn_test_load(RIGGED_SIMPLE);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_rig *rig = make_rig(model, &hooks);
    mn_instance *in = spawn(rig, (mn_instance_desc){.allocator = hooks});
    size_t allocs = counter.allocs;
    mn_mixer *mixer = mn_instance_mixer(in);
    assert_int_equal(mn_mixer_play(mixer, 0, &(mn_play_options){.at = 0.2f}, NULL), MN_OK);
    for (int k = 0; k < 120; k++) {
        mn_instance_set_position(in, (float)k, 0, 0);
        mn_instance_update(in, 1.0f / 60.0f);
    }
    assert_int_equal(mn_mixer_play(mixer, 0, &(mn_play_options){.fade = 0.5f, .once = true}, NULL),
                     MN_OK);
    for (int k = 0; k < 120; k++)
        mn_instance_update(in, 1.0f / 60.0f);
    mn_instance_set_visible(in, false);
    mn_instance_update(in, 0.1f);
    /* The deferred matrices are built on request, allocation-free too. */
    assert_non_null(mn_mixer_worlds(mixer));
    assert_non_null(mn_mixer_locals(mixer));
    assert_int_equal(counter.allocs, allocs);
    mn_instance_free(in);
    mn_rig_free(rig);
    assert_int_equal(counter.live_bytes, 0);
    mn_model_free(model);
}

/*
 * 64 CesiumMen deform 5 MB together, past MN_SKIN_STREAM_MIN_BYTES: the crowd
 * streams its skinning stores where a lone mn_instance_update caches them,
 * and the bits must not notice.
 */
enum { CROWD = 64 };

static void spawn_crowd(const mn_rig *rig, mn_instance **crowd, const mn_allocator *hooks)
{
    for (int i = 0; i < CROWD; i++) {
        crowd[i] = spawn(rig, (mn_instance_desc){.position = {(float)i, 0, (float)(i % 5)},
                                                 .yaw = 0.1f * (float)i,
                                                 .size = 1.0f + 0.05f * (float)i,
                                                 .hidden = i % 7 == 3,
                                                 .allocator = *hooks});
        mn_play_options o = {.at = 0.13f * (float)i, .speed = 1.0f + 0.1f * (float)(i % 3),
                             .once = i % 4 == 1};
        assert_int_equal(mn_mixer_play(mn_instance_mixer(crowd[i]), 0, &o, NULL), MN_OK);
    }
}

static void assert_instances_equal(const mn_rig *rig, const mn_instance *a, const mn_instance *b)
{
    const mn_model *model = mn_rig_model(rig);
    assert_memory_equal(mn_instance_worlds(a), mn_instance_worlds(b),
                        16 * model->node_count * sizeof(float));
    for (uint32_t p = 0; p < mn_rig_part_count(rig); p++) {
        const mn_posed_part *pa = mn_instance_part(a, p), *pb = mn_instance_part(b, p);
        assert_memory_equal(pa->positions, pb->positions, 3 * pa->vertex_count * sizeof(float));
        if (pa->normals)
            assert_memory_equal(pa->normals, pb->normals, 3 * pa->vertex_count * sizeof(float));
        assert_memory_equal(pa->matrix, pb->matrix, 16 * sizeof(float));
    }
}

/* A pose handed to an instance's mixer (mn_mixer_set_pose) shows as the clip's own would. */
static void an_instance_shows_a_pose_set_on_its_mixer(void **state)
{
    (void)state;
    mn_model *model = mn_test_load(SIMPLE_SKIN);
    mn_rig *rig = make_rig(model, NULL);
    mn_instance *played = spawn(rig, (mn_instance_desc){.yaw = 1.0f});
    mn_instance *posed = spawn(rig, (mn_instance_desc){.yaw = 1.0f});
    pose_at(played, 1.0f);
    mn_error err;
    mn_mixer *mixer = mn_instance_mixer(posed);
    assert_int_equal(mn_mixer_set_pose(mixer, mn_mixer_pose(mn_instance_mixer(played)), &err), MN_OK);
    mn_instance_update(posed, 0.25f);
    assert_instances_equal(rig, played, posed);
    assert_memory_equal(mn_mixer_worlds(mixer), mn_mixer_worlds(mn_instance_mixer(played)),
                        16 * model->node_count * sizeof(float));
    /* A play with a fade starts from it: its first frame is still that pose. */
    assert_int_equal(mn_mixer_play(mixer, 0, &(mn_play_options){.fade = 0.5f}, &err), MN_OK);
    mn_instance_update(posed, 0.0f);
    assert_within_tolerance(mn_instance_worlds(posed), mn_instance_worlds(played),
                            16 * model->node_count);
    mn_instance_free(posed);
    mn_instance_free(played);
    mn_rig_free(rig);
    mn_model_free(model);
}

static void a_crowd_on_a_pool_matches_serial_updates_bit_for_bit_and_allocates_nothing(void **state)
{
    (void)state;
    mn_model *model = mn_test_load(CESIUM_MAN);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_rig *rig = make_rig(model, &hooks);
    mn_instance *serial[CROWD], *pooled[CROWD];
    spawn_crowd(rig, serial, &hooks);
    spawn_crowd(rig, pooled, &hooks);
    mn_pool *pool = NULL;
    mn_error err;
    assert_int_equal(mn_pool_create(4, &hooks, &pool, &err), MN_OK);
    assert_int_equal(mn_pool_thread_count(pool), 4);

    size_t allocs = counter.allocs;
    for (int frame = 0; frame < 12; frame++) {
        float dt = frame == 5 ? 0.0f : 1.0f / (30.0f + (float)frame);
        for (int i = 0; i < CROWD; i++)
            mn_instance_update(serial[i], dt);
        assert_int_equal(mn_instances_update(pool, pooled, CROWD, dt), MN_OK);
        if (frame == 6) { /* things change between frames, identically on both sides */
            mn_instance_set_visible(serial[3], true);
            mn_instance_set_visible(pooled[3], true);
            mn_instance_set_position(serial[8], 1, 2, 3);
            mn_instance_set_position(pooled[8], 1, 2, 3);
        }
    }
    assert_int_equal(counter.allocs, allocs);
    for (int i = 0; i < CROWD; i++)
        assert_instances_equal(rig, serial[i], pooled[i]);

    /* A NULL pool updates on the calling thread, also identically. */
    for (int i = 0; i < CROWD; i++)
        mn_instance_update(serial[i], 0.02f);
    assert_int_equal(mn_instances_update(NULL, pooled, CROWD, 0.02f), MN_OK);
    for (int i = 0; i < CROWD; i++)
        assert_instances_equal(rig, serial[i], pooled[i]);

    mn_pool_free(pool);
    for (int i = 0; i < CROWD; i++) {
        mn_instance_free(serial[i]);
        mn_instance_free(pooled[i]);
    }
    mn_rig_free(rig);
    assert_int_equal(counter.live_bytes, 0);
    mn_model_free(model);
}

/* What one visible instance of the rig touches a frame, as the crowd counts it (rig/internal.h). */
static size_t frame_bytes(const mn_rig *rig)
{
    size_t bytes = (size_t)mn_rig_model(rig)->node_count * 26u * sizeof(float);
    for (uint32_t p = 0; p < mn_rig_part_count(rig); p++) {
        const mn_part *part = mn_rig_part(rig, p);
        if (part->skin != MN_NONE || part->morphed)
            bytes += (size_t)part->vertex_count *
                     (12u + (part->deform->normals ? 12u : 0u) + (part->deform->tangents ? 16u : 0u));
    }
    return bytes;
}

/*
 * A crowd whose frame touches MNI_CROWD_PREFETCH_MIN_BYTES (about 210
 * CesiumMen, the first visible) prefetches each next instance while it
 * updates one; hidden and visible, fading and still, the bits are a serial
 * loop's, and nothing allocates.
 */
static void a_crowd_past_the_cache_prefetches_and_matches_serial_updates(void **state)
{
    (void)state;
    mn_model *model = mn_test_load(CESIUM_MAN);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_rig *rig = make_rig(model, &hooks);
    size_t count = MNI_CROWD_PREFETCH_MIN_BYTES / frame_bytes(rig) + 2;
    mn_instance **serial = calloc(count, sizeof *serial), **pooled = calloc(count, sizeof *pooled);
    assert_non_null(serial);
    assert_non_null(pooled);
    for (size_t i = 0; i < count; i++) {
        mn_instance_desc desc = {.position = {(float)i, 0, 0}, .yaw = 0.01f * (float)i,
                                 .hidden = i % 3 == 1, .allocator = hooks};
        mn_play_options o = {.at = 0.01f * (float)i, .speed = 1.0f + 0.1f * (float)(i % 3)};
        serial[i] = spawn(rig, desc);
        pooled[i] = spawn(rig, desc);
        assert_int_equal(mn_mixer_play(mn_instance_mixer(serial[i]), 0, &o, NULL), MN_OK);
        assert_int_equal(mn_mixer_play(mn_instance_mixer(pooled[i]), 0, &o, NULL), MN_OK);
    }
    assert_true(mni_instance_batch_leaves_cache(pooled[0], count));
    assert_false(mni_instance_batch_leaves_cache(pooled[0], count / 2));
    mn_pool *pool = NULL;
    assert_int_equal(mn_pool_create(2, &hooks, &pool, NULL), MN_OK);
    size_t allocs = counter.allocs;
    for (int frame = 0; frame < 6; frame++) {
        if (frame == 3) /* a fade on some, identically on both sides */
            for (size_t i = 0; i < count; i += 5) {
                mn_play_options o = {.fade = 0.2f};
                mn_mixer_play(mn_instance_mixer(serial[i]), 0, &o, NULL);
                mn_mixer_play(mn_instance_mixer(pooled[i]), 0, &o, NULL);
            }
        for (size_t i = 0; i < count; i++)
            mn_instance_update(serial[i], 1.0f / 60.0f);
        assert_int_equal(mn_instances_update(frame % 2 ? NULL : pool, pooled, count, 1.0f / 60.0f),
                         MN_OK);
    }
    assert_int_equal(counter.allocs, allocs);
    for (size_t i = 0; i < count; i++)
        assert_instances_equal(rig, serial[i], pooled[i]);
    mn_pool_free(pool);
    for (size_t i = 0; i < count; i++) {
        mn_instance_free(serial[i]);
        mn_instance_free(pooled[i]);
    }
    free(serial);
    free(pooled);
    mn_rig_free(rig);
    assert_int_equal(counter.live_bytes, 0);
    mn_model_free(model);
}

static void a_pool_survives_many_small_batches(void **state)
{
    (void)state;
    mn_model *model = mn_test_load(SIMPLE_SKIN);
    mn_rig *rig = make_rig(model, NULL);
    mn_instance *a[3], *b[3];
    for (int i = 0; i < 3; i++) {
        a[i] = spawn(rig, (mn_instance_desc){0});
        b[i] = spawn(rig, (mn_instance_desc){0});
        mn_mixer_play(mn_instance_mixer(a[i]), 0, &(mn_play_options){.at = (float)i}, NULL);
        mn_mixer_play(mn_instance_mixer(b[i]), 0, &(mn_play_options){.at = (float)i}, NULL);
    }
    mn_pool *pool = NULL;
    assert_int_equal(mn_pool_create(mn_cpu_count(), NULL, &pool, NULL), MN_OK); /* one per CPU */
    assert_true(mn_pool_thread_count(pool) >= 1);
    for (int frame = 0; frame < 500; frame++) {
        size_t count = (size_t)(frame % 4); /* 0 to 3 instances: fewer than threads, often */
        assert_int_equal(mn_instances_update(pool, a, count, 0.01f), MN_OK);
        for (size_t i = 0; i < count; i++)
            mn_instance_update(b[i], 0.01f);
    }
    for (int i = 0; i < 3; i++)
        assert_instances_equal(rig, a[i], b[i]);
    mn_pool_free(pool);
    for (int i = 0; i < 3; i++) {
        mn_instance_free(a[i]);
        mn_instance_free(b[i]);
    }
    mn_rig_free(rig);
    mn_model_free(model);
}

/* ---- every shared model --------------------------------------------------------------- */

static void every_shared_model_makes_a_rig_whose_instances_play_every_clip(void **state)
{
    (void)state;
    static const char *const files[] = {
        "AnimatedCube/glTF/AnimatedCube.gltf", "AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb",
        "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
        "AnimatedTriangle/glTF/AnimatedTriangle.gltf", "Box/glTF-Binary/Box.glb",
        "BoxAnimated/glTF-Binary/BoxAnimated.glb", "BoxInterleaved/glTF-Binary/BoxInterleaved.glb",
        "BoxMeshopt/BoxMeshopt.glb", "BoxTextured/glTF-Binary/BoxTextured.glb",
        "BoxVertexColors/glTF-Binary/BoxVertexColors.glb", "Cameras/glTF/Cameras.gltf",
        "CesiumMan/glTF-Binary/CesiumMan.glb", "InterpolationTest/glTF-Binary/InterpolationTest.glb",
        "MeshPrimitiveModes/glTF/MeshPrimitiveModes.gltf",
        "MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb",
        "MultiUVTest/glTF-Binary/MultiUVTest.glb", "RiggedFigure/glTF-Binary/RiggedFigure.glb",
        "RiggedSimple/glTF-Binary/RiggedSimple.glb", "SimpleInstancing/glTF-Binary/SimpleInstancing.glb",
        "SimpleMeshes/glTF/SimpleMeshes.gltf", "SimpleMorph/glTF/SimpleMorph.gltf",
        "SimpleSkin/glTF/SimpleSkin.gltf", "SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf",
        "Triangle/glTF/Triangle.gltf", "TriangleWithoutIndices/glTF/TriangleWithoutIndices.gltf",
    };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", mn_test_asset("gltf"), files[f]);
        mn_model *model = mn_test_load(path);
        mn_counting_alloc counter = mn_counting_alloc_make();
        mn_allocator hooks = mn_counting_allocator(&counter);
        mn_rig *rig = make_rig(model, &hooks);
        if (mn_rig_part_count(rig) == 0)
            fail_msg("%s: no parts", files[f]);
        mn_instance *in = spawn(rig, (mn_instance_desc){.size = 2.0f, .allocator = hooks});
        size_t allocs = counter.allocs;
        for (uint32_t c = 0; c < mn_rig_clip_count(rig); c++) {
            assert_int_equal(mn_mixer_play(mn_instance_mixer(in), c, &(mn_play_options){.fade = 0.1f},
                                           NULL), MN_OK);
            for (int k = 0; k < 10; k++)
                mn_instance_update(in, 0.37f);
        }
        assert_int_equal(counter.allocs, allocs);
        for (uint32_t p = 0; p < mn_rig_part_count(rig); p++) {
            const mn_posed_part *posed = mn_instance_part(in, p);
            for (size_t i = 0; i < 3 * (size_t)posed->vertex_count; i++)
                if (!isfinite(posed->positions[i]))
                    fail_msg("%s: part %u vertex %zu is not finite", files[f], p, i / 3);
        }
        mn_instance_free(in);
        mn_rig_free(rig);
        assert_int_equal(counter.live_bytes, 0);
        mn_model_free(model);
    }
}

/* ---- the crowd path against the per-instance result it replaced ------------------------ */

/*
 * What mn_instance_update gave before the crowd path, from a plain mixer
 * (eager, scalar mn_mat4_compose and mn_mat4_mul) played beside the
 * instance: its pose, locals and weights bit for bit; its worlds × the
 * placement, and the parts deformed with palettes multiplied by
 * mn_mat4_mul, within TOLERANCE.
 */
static void assert_matches_plain_mixer(const mn_rig *rig, mn_instance *in, const mn_mixer *plain)
{
    const mn_model *model = mn_rig_model(rig);
    mn_mixer *mixer = mn_instance_mixer(in);
    size_t n = model->node_count;
    const mn_pose *a = mn_mixer_pose(mixer), *b = mn_mixer_pose(plain);
    assert_memory_equal(a->translations, b->translations, 3 * n * sizeof(float));
    assert_memory_equal(a->rotations, b->rotations, 4 * n * sizeof(float));
    assert_memory_equal(a->scales, b->scales, 3 * n * sizeof(float));
    assert_memory_equal(mn_mixer_locals(mixer), mn_mixer_locals(plain), 16 * n * sizeof(float));
    for (uint32_t i = 0; i < n; i++) {
        uint32_t count = 0;
        const float *wa = mn_mixer_weights(mixer, i, &count), *wb = mn_mixer_weights(plain, i, NULL);
        if (count)
            assert_memory_equal(wa, wb, count * sizeof(float));
    }
    float placement[16];
    mn_instance_placement(in, placement);
    const float *worlds = mn_mixer_worlds(plain);
    for (size_t i = 0; i < n; i++) {
        float w[16];
        mn_mat4_mul(w, placement, worlds + 16 * i);
        assert_within_tolerance(mn_instance_worlds(in) + 16 * i, w, 16);
        assert_within_tolerance(mn_mixer_worlds(mixer) + 16 * i, worlds + 16 * i, 16);
    }
    for (uint32_t p = 0; mn_instance_visible(in) && p < mn_rig_part_count(rig); p++) {
        const mn_part *part = mn_rig_part(rig, p);
        const mn_posed_part *posed = mn_instance_part(in, p);
        if (part->skin == MN_NONE && !part->morphed)
            continue; /* static: the rig's own streams */
        const mn_skin *skin = part->skin != MN_NONE ? &model->skins[part->skin] : NULL;
        float *palette = skin ? calloc(16 * (size_t)skin->joint_count, sizeof(float)) : NULL;
        for (uint32_t j = 0; skin && j < skin->joint_count; j++) {
            const float *world = worlds + 16 * (size_t)skin->joints[j];
            if (skin->inverse_bind)
                mn_mat4_mul(palette + 16 * j, world, skin->inverse_bind + 16 * j);
            else
                memcpy(palette + 16 * j, world, 16 * sizeof(float));
        }
        size_t v = posed->vertex_count;
        float *pos = calloc(3 * v + 1, sizeof(float)), *nrm = calloc(3 * v + 1, sizeof(float)),
              *tan = calloc(4 * v + 1, sizeof(float));
        const float *weights = part->morphed ? mn_mixer_weights(plain, part->node, NULL) : NULL;
        assert_int_equal(mn_deform_mesh_run(part->deform, weights, palette,
                                            skin ? skin->joint_count : 0, pos,
                                            posed->normals ? nrm : NULL,
                                            posed->tangents ? tan : NULL),
                         MN_OK);
        assert_within_tolerance(posed->positions, pos, 3 * v);
        if (posed->normals)
            assert_within_tolerance(posed->normals, nrm, 3 * v);
        if (posed->tangents)
            assert_within_tolerance(posed->tangents, tan, 4 * v);
        free(palette), free(pos), free(nrm), free(tan);
    }
}

static void the_crowd_path_holds_the_per_instance_result_within_its_tolerance(void **state)
{
    (void)state;
    static const char *const files[] = {
        "CesiumMan/glTF-Binary/CesiumMan.glb", "RiggedFigure/glTF-Binary/RiggedFigure.glb",
        "RiggedSimple/glTF-Binary/RiggedSimple.glb", "SimpleSkin/glTF/SimpleSkin.gltf",
        "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
        "BoxAnimated/glTF-Binary/BoxAnimated.glb", "InterpolationTest/glTF-Binary/InterpolationTest.glb",
    };
    bool direct = false, permuted = false; /* both orders of nodes are seen (mixer.c) */
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", mn_test_asset("gltf"), files[f]);
        mn_model *model = mn_test_load(path);
        bool parents_first = true;
        for (uint32_t i = 0; i < model->node_count; i++)
            parents_first = parents_first && (model->nodes[i].parent == MN_NONE ||
                                              model->nodes[i].parent < i);
        direct |= parents_first, permuted |= !parents_first;
        mn_rig *rig = make_rig(model, NULL);
        mn_instance *in = spawn(rig, (mn_instance_desc){.position = {1, 2, 3}, .yaw = 0.7f,
                                                        .pitch = 0.2f, .size = 1.5f});
        const mn_clip *clips[64];
        uint32_t clip_count = mn_rig_clip_count(rig) < 64 ? mn_rig_clip_count(rig) : 64;
        for (uint32_t c = 0; c < clip_count; c++)
            clips[c] = mn_rig_clip(rig, c);
        mn_mixer *plain = NULL;
        mn_error err;
        assert_int_equal(mn_mixer_create(model, &(mn_mixer_options){.clips = clips,
                                                                    .clip_count = clip_count},
                                         &plain, &err),
                         MN_OK);
        for (uint32_t c = 0; c < clip_count; c++) {
            /* Fades from the clip before: partial clips reset what the other drove. */
            mn_play_options o = {.fade = c ? 0.3f : 0.0f, .at = 0.05f * (float)c};
            assert_int_equal(mn_mixer_play(mn_instance_mixer(in), c, &o, NULL), MN_OK);
            assert_int_equal(mn_mixer_play(plain, c, &o, NULL), MN_OK);
            for (int k = 0; k < 6; k++) {
                mn_instance_set_visible(in, k != 2);
                mn_instance_update(in, 0.11f);
                mn_mixer_update(plain, 0.11f);
                assert_matches_plain_mixer(rig, in, plain);
            }
            mn_instance_set_position(in, -4.0f, 0.5f, (float)c); /* the placement alone moves */
            mn_instance_update(in, 0.0f);
            assert_matches_plain_mixer(rig, in, plain);
            /* The fade is over: the pose is clip c's alone, nothing left of the clips before. */
            mn_mixer *fresh = NULL;
            assert_false(mn_mixer_fading(mn_instance_mixer(in)));
            assert_int_equal(mn_mixer_create(model, &(mn_mixer_options){.clips = clips,
                                                                        .clip_count = clip_count},
                                             &fresh, &err),
                             MN_OK);
            mn_play_options at = {.at = mn_mixer_time(mn_instance_mixer(in))};
            assert_int_equal(mn_mixer_play(fresh, c, &at, NULL), MN_OK);
            mn_mixer_update(fresh, 0.0f);
            const mn_pose *got = mn_mixer_pose(mn_instance_mixer(in)), *want = mn_mixer_pose(fresh);
            assert_memory_equal(got->translations, want->translations, 12 * (size_t)model->node_count);
            assert_memory_equal(got->rotations, want->rotations, 16 * (size_t)model->node_count);
            assert_memory_equal(got->scales, want->scales, 12 * (size_t)model->node_count);
            mn_mixer_free(fresh);
        }
        mn_mixer_free(plain);
        mn_instance_free(in);
        mn_rig_free(rig);
        mn_model_free(model);
    }
    assert_true(direct && permuted);
}

/* A random affine matrix: rotation × scale (0.5 .. 2) and a translation. */
static void random_affine(float out[16], uint32_t *seed)
{
    float q[4], t[3], sc[3];
    for (int k = 0; k < 4; k++)
        q[k] = (float)(mn_test_random(seed) % 2001 - 1000) / 1000.0f;
    mn_quat_normalize(q, q);
    for (int k = 0; k < 3; k++) {
        t[k] = (float)(mn_test_random(seed) % 2001 - 1000) / 100.0f;
        sc[k] = 0.5f + (float)(mn_test_random(seed) % 1000) / 666.0f;
    }
    mn_mat4_compose(out, t, q, sc);
}

/*
 * The kernels the crowd path runs, with the roots placed under a matrix:
 * the scalar kernel agrees with P × (compose, multiply) within TOLERANCE,
 * SSE2 equals the scalar kernel bit for bit, AVX2+FMA stays within
 * TOLERANCE of it; likewise the palette, which copies without inverse binds.
 */
static void the_rooted_kernels_agree_across_levels(void **state)
{
    (void)state;
    enum { J = 37 };
    uint32_t seed = 7;
    int16_t parents[J];
    float *storage = calloc(1, mn_pose_storage_size(J));
    mn_pose pose;
    mn_pose_init(&pose, J, storage);
    for (uint32_t j = 0; j < J; j++) {
        parents[j] = (int16_t)(j == 0 || j % 11 == 0 ? -1 : (int)(mn_test_random(&seed) % j));
        float m[16], q[4];
        random_affine(m, &seed);
        for (int k = 0; k < 4; k++)
            q[k] = (float)(mn_test_random(&seed) % 2001 - 1000) / 1000.0f;
        mn_quat_normalize(pose.rotations + 4 * j, q);
        for (int k = 0; k < 3; k++) {
            pose.translations[3 * j + k] = m[12 + k];
            pose.scales[3 * j + k] = 0.5f + (float)(mn_test_random(&seed) % 1000) / 666.0f;
        }
    }
    float root[16], ref[16 * J], scalar[16 * J], simd[16 * J];
    random_affine(root, &seed);
    for (uint32_t j = 0; j < J; j++) {
        float local[16];
        mn_mat4_compose(local, pose.translations + 3 * j, pose.rotations + 4 * j, pose.scales + 3 * j);
        mn_mat4_mul(ref + 16 * j, parents[j] < 0 ? root : ref + 16 * parents[j], local);
    }
    assert_true(mni_local_to_world_kernel(MN_SIMD_SCALAR, parents, J, &pose, root, scalar));
    assert_within_tolerance(scalar, ref, 16 * J);
    if (mni_local_to_world_kernel(MN_SIMD_SSE2, parents, J, &pose, root, simd))
        assert_memory_equal(simd, scalar, sizeof scalar);
    if (mni_local_to_world_kernel(MN_SIMD_AVX2_FMA, parents, J, &pose, root, simd))
        assert_within_tolerance(simd, scalar, 16 * J);

    uint32_t joints[J];
    float inverse_bind[16 * J], pal_ref[16 * J], pal_scalar[16 * J], pal_simd[16 * J];
    for (uint32_t i = 0; i < J; i++) {
        joints[i] = (i * 7) % J;
        random_affine(inverse_bind + 16 * i, &seed);
        mn_mat4_mul(pal_ref + 16 * i, scalar + 16 * joints[i], inverse_bind + 16 * i);
    }
    mni_palette_job job = {scalar, joints, inverse_bind, J};
    assert_true(mni_palette_kernel(MN_SIMD_SCALAR, &job, pal_scalar));
    assert_within_tolerance(pal_scalar, pal_ref, 16 * J);
    if (mni_palette_kernel(MN_SIMD_SSE2, &job, pal_simd))
        assert_memory_equal(pal_simd, pal_scalar, sizeof pal_scalar);
    if (mni_palette_kernel(MN_SIMD_AVX2_FMA, &job, pal_simd))
        assert_within_tolerance(pal_simd, pal_scalar, 16 * J);
    job.inverse_bind = NULL;
    assert_true(mni_palette_kernel(MN_SIMD_BEST, &job, pal_simd));
    for (uint32_t i = 0; i < J; i++)
        assert_memory_equal(pal_simd + 16 * i, scalar + 16 * joints[i], 16 * sizeof(float));
    free(storage);
}

/*
 * Every prefix of a random hierarchy (1 to 37 joints: each short last block
 * of the 8-joint kernel, which overlaps the joints before it, and fewer
 * joints than a block) through each level: its worlds are the first worlds
 * of the whole hierarchy's, bit for bit (a world depends on its ancestors
 * alone), and nothing past them is written.
 */
static void every_prefix_of_a_hierarchy_gives_the_same_worlds(void **state)
{
    (void)state;
    enum { J = 37 };
    uint32_t seed = 11;
    int16_t parents[J];
    float *storage = calloc(1, mn_pose_storage_size(J));
    mn_pose pose;
    mn_pose_init(&pose, J, storage);
    for (uint32_t j = 0; j < J; j++) {
        /* mostly the joint before (a limb), sometimes any earlier one, a few roots */
        uint32_t r = mn_test_random(&seed) % 8;
        parents[j] = (int16_t)(j == 0 || r == 0 ? -1 : r < 5 ? (int)j - 1 : (int)(r % j));
        float m[16];
        random_affine(m, &seed);
        float q[4];
        for (int k = 0; k < 4; k++)
            q[k] = (float)(mn_test_random(&seed) % 2001 - 1000) / 1000.0f;
        mn_quat_normalize(pose.rotations + 4 * j, q);
        for (int k = 0; k < 3; k++) {
            pose.translations[3 * j + k] = m[12 + k];
            pose.scales[3 * j + k] = 0.5f + (float)(mn_test_random(&seed) % 1000) / 666.0f;
        }
    }
    float root[16];
    random_affine(root, &seed);
    static const mn_simd_level levels[] = {MN_SIMD_SCALAR, MN_SIMD_SSE2, MN_SIMD_AVX2_FMA};
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        float whole[16 * J], part[16 * J], untouched[16 * J];
        if (!mni_local_to_world_kernel(levels[l], parents, J, &pose, root, whole))
            continue; /* not on this CPU */
        memset(untouched, 0x5a, sizeof untouched);
        for (uint32_t n = 1; n <= J; n++) {
            memcpy(part, untouched, sizeof part);
            assert_true(mni_local_to_world_kernel(levels[l], parents, n, &pose, root, part));
            assert_memory_equal(part, whole, 16 * n * sizeof(float));
            assert_memory_equal(part + 16 * n, untouched, 16 * (J - n) * sizeof(float));
        }
    }
    free(storage);
}

/* ---- errors and out of memory ------------------------------------------------------- */

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    mn_model *model = mn_test_load(SIMPLE_SKIN);
    mn_rig *rig = make_rig(model, NULL);
    mn_rig *no_rig = NULL;
    mn_instance *in = NULL;
    mn_error err;
    assert_int_equal(mn_rig_create(NULL, NULL, &no_rig, &err), MN_INVALID_ARGUMENT);
    assert_null(no_rig);
    assert_int_equal(mn_rig_create(model, NULL, NULL, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_instance_create(NULL, NULL, &in, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_instance_create(rig, &(mn_instance_desc){.size = -1.0f}, &in, &err),
                     MN_INVALID_ARGUMENT);
    assert_int_equal(mn_instance_create(rig, &(mn_instance_desc){.yaw = NAN}, &in, &err),
                     MN_INVALID_ARGUMENT);
    assert_null(in);
    assert_int_equal(mn_instance_create(rig, NULL, &in, &err), MN_OK);

    mn_pool *pool = NULL;
    assert_int_equal(mn_pool_create(1000, NULL, &pool, &err), MN_INVALID_ARGUMENT);
    assert_null(pool);
    assert_int_equal(mn_pool_create(2, NULL, &pool, &err), MN_OK);
    mn_instance *with_null[2] = {in, NULL};
    assert_int_equal(mn_instances_update(pool, with_null, 2, 0.1f), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_instances_update(pool, NULL, 2, 0.1f), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_instances_update(pool, NULL, 0, 0.1f), MN_OK);
    mn_pool_free(pool);
    mn_pool_free(NULL);
    assert_int_equal(mn_pool_thread_count(NULL), 1);

    /* NULL instances and rigs are harmless. */
    mn_instance_update(NULL, 1.0f);
    assert_null(mn_instance_part(in, 5));
    assert_null(mn_instance_worlds(NULL));
    assert_null(mn_instance_mixer(NULL));
    assert_int_equal(mn_rig_part_count(NULL), 0);
    mn_instance_free(in);
    mn_instance_free(NULL);
    mn_rig_free(rig);
    mn_rig_free(NULL);
    mn_model_free(model);
}

static void every_allocation_failure_during_creation_is_reported_and_leaks_nothing(void **state)
{
    (void)state;
    mn_model *model = mn_test_load(RIGGED_SIMPLE);
    bool rig_made = false;
    for (long fail_after = 0; fail_after < 500 && !rig_made; fail_after++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = fail_after;
        mn_rig_options options = {.allocator = mn_counting_allocator(&counter)};
        mn_rig *rig = NULL;
        mn_status st = mn_rig_create(model, &options, &rig, NULL);
        if (st == MN_OK) {
            rig_made = true;
            mn_rig_free(rig);
        } else {
            assert_int_equal(st, MN_OUT_OF_MEMORY);
            assert_null(rig);
        }
        assert_int_equal(counter.live_bytes, 0);
    }
    assert_true(rig_made);

    mn_rig *rig = make_rig(model, NULL);
    bool made = false;
    for (long fail_after = 0; fail_after < 500 && !made; fail_after++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = fail_after;
        mn_instance *in = NULL;
        mn_status st = mn_instance_create(
            rig, &(mn_instance_desc){.allocator = mn_counting_allocator(&counter)}, &in, NULL);
        if (st == MN_OK) {
            made = true;
            mn_instance_free(in);
        } else {
            assert_int_equal(st, MN_OUT_OF_MEMORY);
            assert_null(in);
        }
        assert_int_equal(counter.live_bytes, 0);
    }
    assert_true(made);

    made = false;
    for (long fail_after = 0; fail_after < 10 && !made; fail_after++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = fail_after;
        mn_allocator hooks = mn_counting_allocator(&counter);
        mn_pool *pool = NULL;
        mn_status st = mn_pool_create(3, &hooks, &pool, NULL);
        if (st == MN_OK) {
            made = true;
            mn_pool_free(pool);
        } else {
            assert_int_equal(st, MN_OUT_OF_MEMORY);
        }
        assert_int_equal(counter.live_bytes, 0);
    }
    assert_true(made);
    mn_rig_free(rig);
    mn_model_free(model);
}

int main(void)
{
    mn_test_binary_needs_assets();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_rig_lists_its_parts_clips_triangles_and_unit_fit),
        cmocka_unit_test(a_mesh_drawn_by_two_nodes_is_two_parts_sharing_one_prepared_mesh),
        cmocka_unit_test(placement_is_translate_yaw_pitch_roll_then_size_over_the_unit_fit),
        cmocka_unit_test(simple_skin_vertices_are_palette_times_vertex_at_0_and_1),
        cmocka_unit_test(an_instance_shows_a_pose_set_on_its_mixer),
        cmocka_unit_test(rigged_simple_positions_and_normals_follow_its_skin),
        cmocka_unit_test(simple_morph_vertices_are_the_base_plus_weighted_targets),
        cmocka_unit_test(a_hidden_instance_animates_but_deforms_only_once_shown),
        cmocka_unit_test(updating_an_instance_allocates_nothing),
        cmocka_unit_test(a_crowd_on_a_pool_matches_serial_updates_bit_for_bit_and_allocates_nothing),
        cmocka_unit_test(a_crowd_past_the_cache_prefetches_and_matches_serial_updates),
        cmocka_unit_test(a_pool_survives_many_small_batches),
        cmocka_unit_test(every_shared_model_makes_a_rig_whose_instances_play_every_clip),
        cmocka_unit_test(the_crowd_path_holds_the_per_instance_result_within_its_tolerance),
        cmocka_unit_test(the_rooted_kernels_agree_across_levels),
        cmocka_unit_test(every_prefix_of_a_hierarchy_gives_the_same_worlds),
        cmocka_unit_test(bad_arguments_are_refused),
        cmocka_unit_test(every_allocation_failure_during_creation_is_reported_and_leaks_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
