/*
 * Poses: local translation, rotation and scale per joint, structure of
 * arrays.  The three arrays are carved from one block, each starting on a
 * 16-byte boundary so SIMD code may load four floats at a time from any of
 * them; mn_pose_create allocates that block, mn_pose_init lays a pose over a
 * caller's.
 */
#include <marionette/math.h>
#include <marionette/pose.h>

#include "core/core.h"

#include <math.h>
#include <string.h>

#define POSE_ALIGN 16u

/* Bytes of n floats, rounded up to the alignment of the next array. */
static size_t padded_floats(size_t n)
{
    return (n * sizeof(float) + POSE_ALIGN - 1) & ~(size_t)(POSE_ALIGN - 1);
}

size_t mn_pose_storage_size(uint32_t joint_count)
{
    /* 10 floats a joint: 40 × UINT32_MAX fits in 64 bits; on a 32-bit size_t
       the arithmetic is checked and SIZE_MAX reports the overflow. */
    size_t t, r, total;
    if (!mni_checked_mul(joint_count, 3u * sizeof(float), &t) ||
        !mni_checked_add(t, POSE_ALIGN - 1, &t) ||
        !mni_checked_mul(joint_count, 4u * sizeof(float), &r))
        return SIZE_MAX;
    t &= ~(size_t)(POSE_ALIGN - 1);
    if (!mni_checked_add(t, r, &total) || !mni_checked_add(total, t, &total))
        return SIZE_MAX;
    return total;
}

/* Point the arrays into storage; identity afterwards. */
static void lay_out(mn_pose *pose, uint32_t joint_count, void *storage)
{
    size_t t_bytes = padded_floats((size_t)joint_count * 3u);
    size_t r_bytes = (size_t)joint_count * 4u * sizeof(float);
    char *base = storage;
    pose->joint_count = joint_count;
    pose->translations = joint_count ? (float *)base : NULL;
    pose->rotations = joint_count ? (float *)(base + t_bytes) : NULL;
    pose->scales = joint_count ? (float *)(base + t_bytes + r_bytes) : NULL;
    mn_pose_set_identity(pose);
}

void mn_pose_init(mn_pose *pose, uint32_t joint_count, void *storage)
{
    if (!pose)
        return;
    memset(pose, 0, sizeof *pose);
    if (!storage)
        joint_count = 0; /* nothing to lay over: an empty pose rather than a crash */
    lay_out(pose, joint_count, storage);
}

mn_status mn_pose_create(mn_pose *pose, uint32_t joint_count, const mn_allocator *allocator,
                         mn_error *err)
{
    if (!pose)
        return mni_fail(err, MN_INVALID_ARGUMENT, "pose is NULL");
    memset(pose, 0, sizeof *pose);
    size_t size = mn_pose_storage_size(joint_count);
    if (size == SIZE_MAX)
        return mni_fail(err, MN_OVERFLOW, "a pose of %u joints needs more bytes than size_t holds",
                        joint_count);
    if (allocator)
        pose->allocator_ = *allocator;
    if (size > 0) {
        /* malloc-style alignment (at least 16 on every 64-bit ABI we build for) covers the arrays. */
        pose->block_ = mni_alloc(&pose->allocator_, size);
        if (!pose->block_) {
            memset(pose, 0, sizeof *pose);
            return mni_oom(err, "a pose of %u joints (%zu bytes)", joint_count, size);
        }
        pose->block_size_ = size;
    }
    lay_out(pose, joint_count, pose->block_);
    mni_error_clear(err);
    return MN_OK;
}

void mn_pose_free(mn_pose *pose)
{
    if (!pose)
        return;
    if (pose->block_)
        mni_free(&pose->allocator_, pose->block_, pose->block_size_);
    memset(pose, 0, sizeof *pose);
}

void mn_pose_set_identity(mn_pose *pose)
{
    if (!pose)
        return;
    for (uint32_t j = 0; j < pose->joint_count; j++) {
        float *t = pose->translations + 3 * (size_t)j;
        float *r = pose->rotations + 4 * (size_t)j;
        float *s = pose->scales + 3 * (size_t)j;
        t[0] = t[1] = t[2] = 0.0f;
        r[0] = r[1] = r[2] = 0.0f;
        r[3] = 1.0f;
        s[0] = s[1] = s[2] = 1.0f;
    }
}

void mn_pose_copy(mn_pose *dst, const mn_pose *src)
{
    if (!dst || !src || dst == src)
        return;
    size_t n = dst->joint_count < src->joint_count ? dst->joint_count : src->joint_count;
    if (n == 0)
        return;
    /* memmove: two poses may overlap when a caller lays them over shared storage. */
    memmove(dst->translations, src->translations, n * 3 * sizeof(float));
    memmove(dst->rotations, src->rotations, n * 4 * sizeof(float));
    memmove(dst->scales, src->scales, n * 3 * sizeof(float));
    if (dst->space.kind == MN_SPACE_UNBOUND && dst->joint_count == src->joint_count)
        dst->space = src->space; /* a whole copy is a pose of src's space */
}

mn_status mn_pose_bind(mn_pose *pose, mn_space space, mn_error *err)
{
    if (!pose)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_pose_bind: pose is NULL");
    if (space.kind == MN_SPACE_UNBOUND) {
        pose->space = (mn_space){0};
        return MN_OK;
    }
    if (space.kind != MN_SPACE_NODES && space.kind != MN_SPACE_JOINTS)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_pose_bind: unknown space kind %d",
                        (int)space.kind);
    if (space.count != pose->joint_count)
        return mni_fail(err, MN_COUNT_MISMATCH,
                        "mn_pose_bind: the space has %u %s, the pose %u joints", space.count,
                        space.kind == MN_SPACE_NODES ? "nodes" : "joints", pose->joint_count);
    pose->space = space;
    mni_error_clear(err);
    return MN_OK;
}

mn_status mn_pose_set_joint(mn_pose *pose, uint32_t joint, const float t[3], const float r[4],
                            const float s[3], mn_error *err)
{
    if (!pose)
        return mni_fail(err, MN_INVALID_ARGUMENT, "set_joint: pose is NULL");
    if (joint >= pose->joint_count)
        return mni_fail(err, MN_INDEX_RANGE, "set_joint: joint %u is out of range (%u joints)", joint,
                        pose->joint_count);
    /* Every component is checked before any is written, so a refused call leaves the pose as it was. */
    const struct {
        const float *v;
        int n;
        const char *name;
    } parts[3] = {{t, 3, "translation"}, {r, 4, "rotation"}, {s, 3, "scale"}};
    for (int p = 0; p < 3; p++)
        for (int i = 0; parts[p].v && i < parts[p].n; i++)
            if (!isfinite(parts[p].v[i]))
                return mni_fail(err, MN_NOT_FINITE, "set_joint: joint %u %s[%d] is not finite", joint,
                                parts[p].name, i);
    if (t)
        memcpy(pose->translations + 3 * (size_t)joint, t, 3 * sizeof(float));
    if (r)
        memcpy(pose->rotations + 4 * (size_t)joint, r, 4 * sizeof(float));
    if (s)
        memcpy(pose->scales + 3 * (size_t)joint, s, 3 * sizeof(float));
    mni_error_clear(err);
    return MN_OK;
}

void mn_pose_local_matrices(const mn_pose *pose, float *out)
{
    if (!pose || !out)
        return;
    for (uint32_t j = 0; j < pose->joint_count; j++)
        mn_mat4_compose(out + 16 * (size_t)j, pose->translations + 3 * (size_t)j,
                        pose->rotations + 4 * (size_t)j, pose->scales + 3 * (size_t)j);
}
