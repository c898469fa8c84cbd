/*
 * Poses (src/anim/pose.c): storage carved from one block with every array
 * 16-byte aligned, identity, copy, per-joint writes and local matrices.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/math.h>
#include <marionette/pose.h>

#include "counting_alloc.h"

#include <math.h>
#include <string.h>

static void assert_identity_joint(const mn_pose *pose, uint32_t j)
{
    const float *t = pose->translations + 3 * j, *r = pose->rotations + 4 * j, *s = pose->scales + 3 * j;
    for (int i = 0; i < 3; i++) {
        assert_true(t[i] == 0.0f);
        assert_true(s[i] == 1.0f);
        assert_true(r[i] == 0.0f);
    }
    assert_true(r[3] == 1.0f);
}

static bool aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

static void storage_size_pads_each_array_to_16_bytes(void **state)
{
    (void)state;
    assert_int_equal(mn_pose_storage_size(0), 0);
    /* 1 joint: translations 12 → 16, rotations 16, scales 12 → 16 (the tail padded too). */
    assert_int_equal(mn_pose_storage_size(1), 48);
    /* 4 joints: 48 + 64 + 48, no padding needed. */
    assert_int_equal(mn_pose_storage_size(4), 160);
    /* 5 joints: 60 → 64, 80, 60 → 64. */
    assert_int_equal(mn_pose_storage_size(5), 208);
}

static void init_lays_aligned_arrays_over_storage_at_identity(void **state)
{
    (void)state;
    _Alignas(16) unsigned char storage[208];
    memset(storage, 0xAB, sizeof storage);
    mn_pose pose;
    mn_pose_init(&pose, 5, storage);
    assert_int_equal(pose.joint_count, 5);
    assert_ptr_equal(pose.translations, (float *)storage);
    assert_true(aligned16(pose.rotations));
    assert_true(aligned16(pose.scales));
    assert_ptr_equal(pose.rotations, (float *)(storage + 64));
    assert_ptr_equal(pose.scales, (float *)(storage + 144));
    assert_null(pose.block_);
    for (uint32_t j = 0; j < 5; j++)
        assert_identity_joint(&pose, j);
    mn_pose_free(&pose); /* an init'ed pose owns nothing: free only zeroes it */
    assert_int_equal(pose.joint_count, 0);
    assert_null(pose.translations);
}

static void create_takes_one_allocation_and_free_returns_it(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_pose pose;
    mn_error err;
    assert_int_equal(mn_pose_create(&pose, 7, &hooks, &err), MN_OK);
    assert_int_equal(err.code, MN_OK);
    assert_int_equal(counter.allocs, 1);
    assert_int_equal(counter.live_bytes, mn_pose_storage_size(7));
    assert_true(aligned16(pose.translations));
    assert_true(aligned16(pose.rotations));
    assert_true(aligned16(pose.scales));
    for (uint32_t j = 0; j < 7; j++)
        assert_identity_joint(&pose, j);
    mn_pose_free(&pose);
    assert_int_equal(counter.frees, 1);
    assert_int_equal(counter.live_bytes, 0);
    assert_int_equal(pose.joint_count, 0);
    mn_pose_free(&pose); /* twice is harmless */
    mn_pose_free(NULL);
    assert_int_equal(counter.frees, 1);
}

static void create_with_default_allocator_and_zero_joints(void **state)
{
    (void)state;
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, 3, NULL, NULL), MN_OK);
    assert_identity_joint(&pose, 2);
    mn_pose_free(&pose);

    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    assert_int_equal(mn_pose_create(&pose, 0, &hooks, NULL), MN_OK);
    assert_int_equal(pose.joint_count, 0);
    assert_int_equal(counter.allocs, 0); /* nothing to hold */
    mn_pose_free(&pose);
}

static void create_reports_out_of_memory_and_null_pose(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    counter.fail_after = 0;
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_pose pose;
    mn_error err;
    assert_int_equal(mn_pose_create(&pose, 4, &hooks, &err), MN_OUT_OF_MEMORY);
    assert_int_equal(err.code, MN_OUT_OF_MEMORY);
    assert_int_equal(pose.joint_count, 0);
    assert_null(pose.translations);
    mn_pose_free(&pose);
    assert_int_equal(counter.live_bytes, 0);
    assert_int_equal(mn_pose_create(NULL, 4, NULL, &err), MN_INVALID_ARGUMENT);
}

static void set_joint_writes_only_the_given_parts(void **state)
{
    (void)state;
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, 3, NULL, NULL), MN_OK);
    const float t[3] = {1, 2, 3}, r[4] = {0, 0.6f, 0, 0.8f}, s[3] = {4, 5, 6};
    assert_int_equal(mn_pose_set_joint(&pose, 1, t, NULL, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_set_joint(&pose, 2, NULL, r, s, NULL), MN_OK);
    assert_memory_equal(pose.translations + 3, t, sizeof t);
    assert_true(pose.rotations[7] == 1.0f); /* joint 1 kept its rotation */
    assert_true(pose.scales[3] == 1.0f);
    assert_memory_equal(pose.rotations + 8, r, sizeof r);
    assert_memory_equal(pose.scales + 6, s, sizeof s);
    assert_true(pose.translations[6] == 0.0f);
    assert_identity_joint(&pose, 0);
    mn_pose_set_identity(&pose);
    for (uint32_t j = 0; j < 3; j++)
        assert_identity_joint(&pose, j);
    mn_pose_free(&pose);
}

/* animation-decisions §22: verbatim, and an out-of-range joint or a NaN is an error that writes nothing. */
static void set_joint_stores_verbatim_and_refuses_an_out_of_range_joint_or_a_nan(void **state)
{
    (void)state;
    mn_pose p, keep;
    mn_error err;
    assert_int_equal(mn_pose_create(&p, 3, NULL, &err), MN_OK);
    assert_int_equal(mn_pose_create(&keep, 3, NULL, &err), MN_OK);
    const float t[3] = {1, 2, 3}, r[4] = {0, 0, 0, 2} /* not unit: stored as given */;
    assert_int_equal(mn_pose_set_joint(&p, 1, t, r, NULL, &err), MN_OK);
    assert_int_equal(err.code, MN_OK);
    assert_memory_equal(p.translations + 3, t, sizeof t);
    assert_memory_equal(p.rotations + 4, r, sizeof r);
    assert_true(p.scales[3] == 1.0f && p.scales[4] == 1.0f && p.scales[5] == 1.0f); /* NULL: left alone */
    mn_pose_copy(&keep, &p);
    assert_int_equal(mn_pose_set_joint(&p, 3, t, NULL, NULL, &err), MN_INDEX_RANGE);
    assert_non_null(strstr(err.message, "joint 3"));
    assert_int_equal(mn_pose_set_joint(&p, UINT32_MAX, t, NULL, NULL, &err), MN_INDEX_RANGE);
    /* A NaN anywhere refuses the whole write: the finite translation is not stored either. */
    assert_int_equal(mn_pose_set_joint(&p, 0, t, NULL, (float[3]){1, NAN, 1}, &err), MN_NOT_FINITE);
    assert_non_null(strstr(err.message, "scale[1]"));
    assert_int_equal(mn_pose_set_joint(&p, 0, NULL, (float[4]){0, 0, NAN, 1}, NULL, &err), MN_NOT_FINITE);
    assert_non_null(strstr(err.message, "rotation[2]"));
    assert_int_equal(mn_pose_set_joint(&p, 0, (float[3]){INFINITY, 0, 0}, NULL, NULL, &err), MN_NOT_FINITE);
    assert_int_equal(mn_pose_set_joint(NULL, 0, t, NULL, NULL, &err), MN_INVALID_ARGUMENT);
    assert_memory_equal(p.translations, keep.translations, 9 * sizeof(float));
    assert_memory_equal(p.rotations, keep.rotations, 12 * sizeof(float));
    assert_memory_equal(p.scales, keep.scales, 9 * sizeof(float));
    /* NULL err is fine. */
    assert_int_equal(mn_pose_set_joint(&p, 9, t, NULL, NULL, NULL), MN_INDEX_RANGE);
    mn_pose_free(&p);
    mn_pose_free(&keep);
}

static void copy_copies_the_common_joints(void **state)
{
    (void)state;
    mn_pose a, b;
    assert_int_equal(mn_pose_create(&a, 3, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_create(&b, 2, NULL, NULL), MN_OK);
    for (uint32_t j = 0; j < 3; j++) {
        float t[3] = {(float)j, 10.0f + j, 20.0f + j};
        float r[4] = {0.5f, 0.5f, 0.5f, 0.5f};
        float s[3] = {2.0f + j, 3, 4};
        assert_int_equal(mn_pose_set_joint(&a, j, t, r, s, NULL), MN_OK);
    }
    mn_pose_copy(&b, &a); /* 2 joints */
    assert_memory_equal(b.translations, a.translations, 6 * sizeof(float));
    assert_memory_equal(b.rotations, a.rotations, 8 * sizeof(float));
    assert_memory_equal(b.scales, a.scales, 6 * sizeof(float));
    mn_pose_set_identity(&b);
    mn_pose_copy(&a, &b); /* a's third joint is untouched */
    assert_identity_joint(&a, 0);
    assert_identity_joint(&a, 1);
    assert_true(a.translations[6] == 2.0f && a.scales[6] == 4.0f);
    mn_pose_copy(&a, &a); /* dst may be src */
    assert_true(a.translations[6] == 2.0f);
    mn_pose_free(&a);
    mn_pose_free(&b);
}

static void local_matrices_compose_t_r_s_per_joint(void **state)
{
    (void)state;
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, 2, NULL, NULL), MN_OK);
    const float t[3] = {1, -2, 3}, r[4] = {0, 0, 0.6f, 0.8f}, s[3] = {2, 3, 4};
    assert_int_equal(mn_pose_set_joint(&pose, 1, t, r, s, NULL), MN_OK);
    float m[32], expect[16], ident[16];
    mn_pose_local_matrices(&pose, m);
    mn_mat4_identity(ident);
    mn_mat4_compose(expect, t, r, s);
    assert_memory_equal(m, ident, sizeof ident);
    assert_memory_equal(m + 16, expect, sizeof expect);
    /* Column-major T·R·S: the translation sits in the last column, the scaled z axis in the third. */
    assert_true(m[16 + 12] == 1.0f && m[16 + 13] == -2.0f && m[16 + 14] == 3.0f);
    assert_true(m[16 + 10] == 4.0f);
    mn_pose_free(&pose);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(storage_size_pads_each_array_to_16_bytes),
        cmocka_unit_test(init_lays_aligned_arrays_over_storage_at_identity),
        cmocka_unit_test(create_takes_one_allocation_and_free_returns_it),
        cmocka_unit_test(create_with_default_allocator_and_zero_joints),
        cmocka_unit_test(create_reports_out_of_memory_and_null_pose),
        cmocka_unit_test(set_joint_writes_only_the_given_parts),
        cmocka_unit_test(set_joint_stores_verbatim_and_refuses_an_out_of_range_joint_or_a_nan),
        cmocka_unit_test(copy_copies_the_common_joints),
        cmocka_unit_test(local_matrices_compose_t_r_s_per_joint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
