/*
 * Morph targets (src/deform/morph.c) and morphing through the prepared mesh
 * (src/deform/prepared.c): exact sums, targets of zero weight or without
 * deltas never read, in place, long streams, and the shared morph assets
 * (plain and quantized) against base + Σ w·delta computed here from their
 * accessors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/gltf.h>
#include <marionette/model.h>
#include <marionette/morph.h>
#include <marionette/skin.h>

#include "assert_near.h"
#include "assets.h"
#include "counting_alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void sums_weighted_deltas_exactly(void **state)
{
    (void)state;
    const float base[6] = {1, 2, 3, 4, 5, 6};
    const float d0[6] = {1, 0, 0, 0, 1, 0}, d1[6] = {0, 0, 2, 2, 0, 0};
    const float *deltas[2] = {d0, d1};
    const float weights[2] = {0.5f, 0.25f};
    float out[6];
    mn_morph_job job = {2, 3, base, 2, deltas, weights, out};
    assert_int_equal(mn_morph_run(&job), MN_OK);
    const float want[6] = {1.5f, 2, 3.5f, 4.5f, 5.5f, 6};
    assert_vec_near(out, want, 6, 0);
}

/*
 * Target 0 has weight 0 and a delta array far too short for the job: reading
 * it would be caught by AddressSanitizer.  Target 1 has no delta (NULL) and a
 * weight; target 2 is NULL with weight 0.  Only target 3 counts.
 */
static void zero_weight_and_missing_targets_are_never_read(void **state)
{
    (void)state;
    enum { V = 1000 };
    float *base = malloc(sizeof(float) * 3 * V), *d3 = malloc(sizeof(float) * 3 * V);
    float *tiny = malloc(sizeof(float)), *out = malloc(sizeof(float) * 3 * V);
    assert_non_null(base), assert_non_null(d3), assert_non_null(tiny), assert_non_null(out);
    for (int i = 0; i < 3 * V; i++)
        base[i] = (float)i, d3[i] = 1.0f;
    tiny[0] = 1e30f;
    const float *deltas[4] = {tiny, NULL, NULL, d3};
    const float weights[4] = {0.0f, 0.7f, 0.0f, 2.0f};
    mn_morph_job job = {V, 3, base, 4, deltas, weights, out};
    assert_int_equal(mn_morph_run(&job), MN_OK);
    for (int i = 0; i < 3 * V; i++)
        assert_float_near(out[i], (float)i + 2.0f, 0);
    free(base), free(d3), free(tiny), free(out);
}

static void in_place_equals_out_of_place(void **state)
{
    (void)state;
    enum { V = 3001 }; /* several chunks and a partial one */
    float *base = malloc(sizeof(float) * 3 * V), *d0 = malloc(sizeof(float) * 3 * V);
    float *d1 = malloc(sizeof(float) * 3 * V), *out = malloc(sizeof(float) * 3 * V);
    assert_non_null(base), assert_non_null(d0), assert_non_null(d1), assert_non_null(out);
    for (int i = 0; i < 3 * V; i++)
        base[i] = (float)(i % 17) * 0.25f, d0[i] = (float)(i % 5), d1[i] = -(float)(i % 3);
    const float *deltas[2] = {d0, d1};
    const float weights[2] = {0.5f, 1.5f};
    mn_morph_job job = {V, 3, base, 2, deltas, weights, out};
    assert_int_equal(mn_morph_run(&job), MN_OK);
    for (int i = 0; i < 3 * V; i++)
        assert_float_near(out[i], base[i] + 0.5f * d0[i] + 1.5f * d1[i], 0);
    job.out = base;
    assert_int_equal(mn_morph_run(&job), MN_OK);
    assert_memory_equal(base, out, sizeof(float) * 3 * V);
    free(base), free(d0), free(d1), free(out);
}

static void no_active_target_copies_base(void **state)
{
    (void)state;
    const float base[3] = {1, 2, 3}, d0[3] = {9, 9, 9};
    const float *deltas[1] = {d0};
    const float weights[1] = {0};
    float out[3] = {0};
    mn_morph_job job = {1, 3, base, 1, deltas, weights, out};
    assert_int_equal(mn_morph_run(&job), MN_OK);
    assert_vec_near(out, base, 3, 0);
    job.target_count = 0, job.deltas = NULL, job.weights = NULL;
    memset(out, 0, sizeof out);
    assert_int_equal(mn_morph_run(&job), MN_OK);
    assert_vec_near(out, base, 3, 0);
}

static void refuses_bad_jobs(void **state)
{
    (void)state;
    const float base[3] = {1, 2, 3};
    float out[3];
    mn_morph_job good = {1, 3, base, 0, NULL, NULL, out};
    mn_morph_job job = good;
    job.base = NULL;
    assert_int_equal(mn_morph_run(&job), MN_INVALID_ARGUMENT);
    job = good;
    job.out = NULL;
    assert_int_equal(mn_morph_run(&job), MN_INVALID_ARGUMENT);
    job = good;
    job.components = 0;
    assert_int_equal(mn_morph_run(&job), MN_INVALID_ARGUMENT);
    job = good;
    job.target_count = 1; /* deltas and weights missing */
    assert_int_equal(mn_morph_run(&job), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_morph_run(NULL), MN_INVALID_ARGUMENT);
}

/* ---- through the prepared mesh ---------------------------------------------------- */

/* The floats of accessor `index` (count × components), malloc'd; NULL for MN_NONE. */
static float *floats_of(const mn_model *model, uint32_t index)
{
    if (index == MN_NONE)
        return NULL;
    const mn_accessor *a = &model->accessors[index];
    size_t n = mn_accessor_unpack_floats(a, NULL, 0);
    float *out = malloc(sizeof(float) * (n ? n : 1));
    assert_non_null(out);
    assert_int_equal(mn_accessor_unpack_floats(a, out, n), n);
    return out;
}

static void simple_morph_positions_are_base_plus_deltas(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *model = mn_test_load(mn_test_asset("gltf/SimpleMorph/glTF/SimpleMorph.gltf"));
    const mn_primitive *p = &model->meshes[0].primitives[0];
    mn_deform_mesh *mesh = NULL;
    assert_int_equal(mn_deform_mesh_create(model, 0, 0, NULL, &mesh, NULL), MN_OK);
    assert_int_equal(mesh->vertex_count, 3);
    assert_int_equal(mesh->target_count, 2);
    assert_int_equal(mesh->influence_count, 0);
    assert_null(mesh->normal_deltas[0]);

    float *base = floats_of(model, mn_primitive_find(p, MN_SEMANTIC_POSITION, 0));
    float *d0 = floats_of(model, p->targets[0].position), *d1 = floats_of(model, p->targets[1].position);
    const float weights[2] = {0.5f, 0.25f};
    float out[9];
    assert_int_equal(mn_deform_mesh_run(mesh, weights, NULL, 0, out, NULL, NULL), MN_OK);
    for (int i = 0; i < 9; i++)
        assert_float_near(out[i], base[i] + 0.5f * d0[i] + 0.25f * d1[i], 1e-6);
    /* the file's deltas move vertices: the morph is not a copy */
    assert_true(fabsf(out[0] - base[0]) + fabsf(out[4] - base[4]) + fabsf(out[7] - base[7]) > 0.1f);

    /* no weights, or all zero: the rest positions */
    const float zeros[2] = {0, 0};
    assert_int_equal(mn_deform_mesh_run(mesh, NULL, NULL, 0, out, NULL, NULL), MN_OK);
    assert_vec_near(out, base, 9, 0);
    assert_int_equal(mn_deform_mesh_run(mesh, zeros, NULL, 0, out, NULL, NULL), MN_OK);
    assert_vec_near(out, base, 9, 0);

    free(base), free(d0), free(d1);
    mn_deform_mesh_free(mesh);
    mn_model_free(model);
}

/* v / |v| in place for 3 floats. */
static void normalise3(float v[3])
{
    float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    v[0] /= len, v[1] /= len, v[2] /= len;
}

/*
 * KHR_mesh_quantization: u16 positions, normalised i8 normals and deltas.  The
 * mesh converts them once; morphed positions are base + Σ w·delta of the
 * converted values, and morphed normals come back renormalised (not skinned).
 */
static void quantized_morph_cube_morphs_positions_and_normals(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *model = mn_test_load(mn_test_asset("gltf/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf"));
    const mn_primitive *p = &model->meshes[0].primitives[0];
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_deform_mesh *mesh = NULL;
    assert_int_equal(mn_deform_mesh_create(model, 0, 0, &hooks, &mesh, NULL), MN_OK);
    assert_int_equal(mesh->vertex_count, 24);
    assert_int_equal(mesh->target_count, 2);
    assert_non_null(mesh->normals);
    assert_null(mesh->tangents);

    float *base = floats_of(model, mn_primitive_find(p, MN_SEMANTIC_POSITION, 0));
    float *base_n = floats_of(model, mn_primitive_find(p, MN_SEMANTIC_NORMAL, 0));
    float *dp[2], *dn[2];
    for (int t = 0; t < 2; t++) {
        dp[t] = floats_of(model, p->targets[t].position);
        dn[t] = floats_of(model, p->targets[t].normal);
    }
    const float weights[2] = {0.3f, 0.6f};
    float out_p[72], out_n[72];
    size_t allocs = counter.allocs;
    assert_int_equal(mn_deform_mesh_run(mesh, weights, NULL, 0, out_p, out_n, NULL), MN_OK);
    assert_int_equal(counter.allocs, allocs); /* morphing allocates nothing */
    for (int v = 0; v < 24; v++) {
        float want_n[3];
        for (int c = 0; c < 3; c++) {
            int i = 3 * v + c;
            float want = base[i];
            float n = base_n[i];
            for (int t = 0; t < 2; t++) {
                if (dp[t])
                    want += weights[t] * dp[t][i];
                if (dn[t])
                    n += weights[t] * dn[t][i];
            }
            want_n[c] = n;
            assert_float_near(out_p[i], want, 1e-5);
        }
        normalise3(want_n);
        assert_vec_near(out_n + 3 * v, want_n, 3, 1e-5);
    }
    for (int t = 0; t < 2; t++)
        free(dp[t]), free(dn[t]);
    free(base), free(base_n);
    mn_deform_mesh_free(mesh);
    assert_int_equal(counter.live_bytes, 0);
    mn_model_free(model);
}

/* The float cube has TANGENT and tangent deltas: xyz morphed and renormalised, w kept. */
static void morph_cube_tangents_keep_w(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *model = mn_test_load(mn_test_asset("gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb"));
    const mn_primitive *p = &model->meshes[0].primitives[0];
    mn_deform_mesh *mesh = NULL;
    assert_int_equal(mn_deform_mesh_create(model, 0, 0, NULL, &mesh, NULL), MN_OK);
    assert_non_null(mesh->tangents);
    assert_non_null(mesh->tangent_deltas[0]);
    float *base_t = floats_of(model, mn_primitive_find(p, MN_SEMANTIC_TANGENT, 0));
    float *dt0 = floats_of(model, p->targets[0].tangent);
    const float weights[2] = {1.0f, 0.0f};
    float out_p[72], out_t[96];
    assert_int_equal(mn_deform_mesh_run(mesh, weights, NULL, 0, out_p, NULL, out_t), MN_OK);
    for (int v = 0; v < 24; v++) {
        float want[3] = {base_t[4 * v] + dt0[3 * v], base_t[4 * v + 1] + dt0[3 * v + 1],
                         base_t[4 * v + 2] + dt0[3 * v + 2]};
        normalise3(want);
        assert_vec_near(out_t + 4 * v, want, 3, 1e-5);
        assert_true(out_t[4 * v + 3] == base_t[4 * v + 3]);
    }
    free(base_t), free(dt0);
    mn_deform_mesh_free(mesh);
    mn_model_free(model);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sums_weighted_deltas_exactly),
        cmocka_unit_test(zero_weight_and_missing_targets_are_never_read),
        cmocka_unit_test(in_place_equals_out_of_place),
        cmocka_unit_test(no_active_target_copies_base),
        cmocka_unit_test(refuses_bad_jobs),
        cmocka_unit_test(simple_morph_positions_are_base_plus_deltas),
        cmocka_unit_test(quantized_morph_cube_morphs_positions_and_normals),
        cmocka_unit_test(morph_cube_tangents_keep_w),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
