/*
 * The error metric of compressed clips (marionette/compress.h, THE ERROR
 * METRIC): virtual vertices a shell distance from every joint, in object
 * space, under a reference clip and a candidate, at every key time of the
 * reference and the midpoints between.  One core (mni_error_ref_init,
 * mni_error_eval) serves mn_clip_error_measure and the compressor.
 */
#include "anim/clip_internal.h"
#include "anim/compress_internal.h"
#include "anim/space_internal.h"

#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Every key time of the clip, sorted and unique, then the midpoints between: *count times. */
static float *sample_times(const mn_clip *clip, mn_arena *arena, uint32_t *count)
{
    size_t keys = 0;
    uint32_t tracks = mn_clip_track_count(clip);
    for (uint32_t i = 0; i < tracks; i++) {
        const mn_track *tr = mn_clip_track(clip, i);
        if (tr->path != MN_PATH_WEIGHTS)
            keys += tr->key_count;
    }
    /* A compressed view has no keys: its frames are its key times. */
    const mn_compressed_clip *cc = clip->compressed;
    mni_cc_header head = {.frame_count = 0, .sample_rate = 1.0f};
    if (cc)
        head = mni_cc_head(cc);
    uint32_t frames = cc ? head.frame_count : 0;
    size_t n = keys + frames + 1;
    float *t = mni_arena_calloc(arena, 2 * n, sizeof(float), 16);
    if (!t)
        return NULL;
    size_t m = 0;
    t[m++] = 0.0f;
    for (uint32_t i = 0; i < tracks; i++) {
        const mn_track *tr = mn_clip_track(clip, i);
        if (tr->path == MN_PATH_WEIGHTS)
            continue;
        for (uint32_t k = 0; k < tr->key_count; k++)
            t[m++] = tr->times[k] > 0.0f ? tr->times[k] : 0.0f;
    }
    for (uint32_t f = 0; f < frames; f++)
        t[m++] = mni_cc_frame_of(&head, (float)f / head.sample_rate) / head.sample_rate;
    qsort(t, m, sizeof(float), compare_float);
    size_t u = 0;
    for (size_t i = 0; i < m; i++)
        if (u == 0 || t[i] != t[u - 1])
            t[u++] = t[i];
    size_t total = u;
    for (size_t i = 0; i + 1 < u; i++)
        t[total++] = 0.5f * (t[i] + t[i + 1]);
    qsort(t, total, sizeof(float), compare_float);
    *count = (uint32_t)total;
    return t;
}

void mni_error_sample_clip(const void *ctx, float t, mn_pose *pose)
{
    mni_clip_sample_into(ctx, t, NULL, pose);
}

/* How the clip's targets reach the skeleton: false when they do not. */
static bool map_space(mni_error_ref *ref, const mn_skeleton *sk, mn_space space)
{
    if (mni_space_fits(space, &sk->rest)) {
        ref->clip_joints = sk->joint_count;
        ref->joint_of_target = NULL;
        return true;
    }
    if (space.kind == MN_SPACE_NODES && space.count == sk->node_count) {
        ref->clip_joints = sk->node_count;
        ref->joint_of_target = sk->joint_of_node;
        return true;
    }
    return false;
}

static mn_status pose_in(mn_arena *arena, mn_pose *pose, uint32_t joints)
{
    void *storage = mni_arena_alloc(arena, mn_pose_storage_size(joints ? joints : 1), 16);
    if (!storage)
        return MN_OUT_OF_MEMORY;
    mn_pose_init(pose, joints, storage);
    return MN_OK;
}

/* One time: the candidate's pose, the hierarchy composed, worlds filled. */
static void compose_at(mni_error_ref *ref, mni_error_sampler sample, const void *ctx, float t)
{
    mn_pose *cp = &ref->clip_pose;
    uint32_t n = ref->clip_joints;
    memcpy(cp->translations, ref->clip_rest.translations, (size_t)n * 3 * sizeof(float));
    memcpy(cp->rotations, ref->clip_rest.rotations, (size_t)n * 4 * sizeof(float));
    memcpy(cp->scales, ref->clip_rest.scales, (size_t)n * 3 * sizeof(float));
    sample(ctx, t, cp);
    const mn_skeleton *sk = ref->skeleton;
    const mn_pose *jp = cp;
    if (ref->joint_of_target) {
        for (uint32_t j = 0; j < sk->joint_count; j++) {
            uint32_t node = sk->node_of_joint[j];
            memcpy(ref->joint_pose.translations + 3 * j, cp->translations + 3 * node, 12);
            memcpy(ref->joint_pose.rotations + 4 * j, cp->rotations + 4 * node, 16);
            memcpy(ref->joint_pose.scales + 3 * j, cp->scales + 3 * node, 12);
        }
        jp = &ref->joint_pose;
    }
    mn_skeleton_local_to_world(sk, jp, 0, ref->worlds);
}

/* The three vertices of joint j: origin + shell × each axis column. */
static void vertices_of(const float *w, float shell, float *v)
{
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++)
            v[3 * a + c] = w[12 + c] + shell * w[4 * a + c];
}

mn_status mni_error_ref_init(mni_error_ref *ref, const mn_skeleton *sk, const mn_clip *clip,
                             float shell, const mn_allocator *allocator, mn_error *err)
{
    memset(ref, 0, sizeof *ref);
    ref->allocator = allocator ? *allocator : (mn_allocator){0};
    ref->skeleton = sk;
    ref->shell = shell;
    if (!map_space(ref, sk, mn_clip_space(clip))) {
        char what[80];
        snprintf(what, sizeof what, "clip \"%.40s\"", mn_clip_name(clip));
        return mni_space_refuse(mn_clip_space(clip), what, &sk->rest, err);
    }
    mn_arena *arena = mni_alloc(&ref->allocator, sizeof *arena);
    if (!arena)
        return mni_oom(err, "error metric");
    mni_arena_init(arena, &ref->allocator);
    ref->arena_ = arena;
    uint32_t joints = sk->joint_count;
    ref->times = sample_times(clip, arena, &ref->time_count);
    size_t verts = 0;
    if (!ref->times || !mni_checked_mul((size_t)ref->time_count * 9u, joints ? joints : 1, &verts)) {
        mni_error_ref_free(ref);
        return mni_fail(err, ref->times ? MN_OVERFLOW : MN_OUT_OF_MEMORY, "error metric: %u times",
                        ref->time_count);
    }
    ref->vertices = mni_arena_calloc(arena, verts, sizeof(float), 16);
    ref->worlds = mni_arena_calloc(arena, (size_t)(joints ? joints : 1) * 16, sizeof(float), 16);
    if (!ref->vertices || !ref->worlds || pose_in(arena, &ref->clip_pose, ref->clip_joints) ||
        pose_in(arena, &ref->clip_rest, ref->clip_joints) ||
        pose_in(arena, &ref->joint_pose, joints)) {
        mni_error_ref_free(ref);
        return mni_oom(err, "error metric");
    }
    /* The clip's rest: the skeleton's, at each joint's target (identity elsewhere). */
    for (uint32_t j = 0; j < joints; j++) {
        uint32_t i = ref->joint_of_target ? sk->node_of_joint[j] : j;
        memcpy(ref->clip_rest.translations + 3 * i, sk->rest.translations + 3 * j, 12);
        memcpy(ref->clip_rest.rotations + 4 * i, sk->rest.rotations + 4 * j, 16);
        memcpy(ref->clip_rest.scales + 3 * i, sk->rest.scales + 3 * j, 12);
    }
    for (uint32_t k = 0; k < ref->time_count; k++) {
        compose_at(ref, mni_error_sample_clip, clip, ref->times[k]);
        float *v = ref->vertices + (size_t)k * joints * 9;
        for (uint32_t j = 0; j < joints; j++)
            vertices_of(ref->worlds + 16 * j, shell, v + 9 * j);
    }
    return MN_OK;
}

void mni_error_ref_free(mni_error_ref *ref)
{
    if (ref->arena_) {
        mni_arena_release(ref->arena_);
        mni_free(&ref->allocator, ref->arena_, sizeof(mn_arena));
    }
    ref->arena_ = NULL;
}

static float distance3(const float *a, const float *b)
{
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

float mni_error_eval(mni_error_ref *ref, mni_error_sampler sample, const void *ctx, uint32_t step,
                     float *joint_max, float *errors_out, uint32_t *worst_joint, float *worst_time)
{
    uint32_t joints = ref->skeleton->joint_count;
    float worst = 0.0f;
    uint32_t wj = joints ? 0 : MN_NONE;
    float wt = 0.0f;
    if (joint_max)
        memset(joint_max, 0, (size_t)joints * sizeof(float));
    for (uint32_t k = 0; k < ref->time_count; k += step ? step : 1) {
        compose_at(ref, sample, ctx, ref->times[k]);
        const float *rv = ref->vertices + (size_t)k * joints * 9;
        for (uint32_t j = 0; j < joints; j++) {
            float v[9];
            vertices_of(ref->worlds + 16 * j, ref->shell, v);
            float e = distance3(v, rv + 9 * j);
            float e1 = distance3(v + 3, rv + 9 * j + 3), e2 = distance3(v + 6, rv + 9 * j + 6);
            e = e1 > e ? e1 : e;
            e = e2 > e ? e2 : e;
            if (!(e == e))
                e = INFINITY; /* a NaN is as wrong as anything gets */
            if (errors_out)
                errors_out[(size_t)k * joints + j] = e;
            if (joint_max && e > joint_max[j])
                joint_max[j] = e;
            if (e > worst) {
                worst = e;
                wj = j;
                wt = ref->times[k];
            }
        }
    }
    if (worst_joint)
        *worst_joint = wj;
    if (worst_time)
        *worst_time = wt;
    return worst;
}

/* The 99th percentile of n values (sorted in place): the value at rank ceil(0.99 n). */
static float p99_of(float *v, size_t n)
{
    if (n == 0)
        return 0.0f;
    qsort(v, n, sizeof(float), compare_float);
    size_t rank = (size_t)ceil(0.99 * (double)n);
    return v[rank ? rank - 1 : 0];
}

mn_status mn_clip_error_measure(const mn_skeleton *skeleton, const mn_clip *reference,
                                const mn_clip *candidate, const mn_clip_error_options *options,
                                mn_clip_error *out, float *joint_max, float *joint_p99,
                                mn_error *err)
{
    if (!skeleton || !reference || !candidate || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_clip_error_measure: skeleton, clips and out must not be NULL");
    mn_clip_error_options o = options ? *options : (mn_clip_error_options){0};
    if (o.shell == 0.0f)
        o.shell = MN_SHELL_DISTANCE_DEFAULT;
    if (!(o.shell > 0.0f) || !isfinite(o.shell))
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_clip_error_measure: shell %g is not > 0",
                        (double)o.shell);
    mn_space rs = mn_clip_space(reference), cs = mn_clip_space(candidate);
    if (rs.kind != cs.kind || rs.count != cs.count || rs.id != cs.id)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_clip_error_measure: the clips \"%.40s\" and \"%.40s\" are in different "
                        "spaces", mn_clip_name(reference), mn_clip_name(candidate));
    mni_error_ref ref;
    mn_status st = mni_error_ref_init(&ref, skeleton, reference, o.shell, &o.allocator, err);
    if (st != MN_OK)
        return st;
    uint32_t joints = skeleton->joint_count;
    size_t n = (size_t)ref.time_count * joints;
    float *errors = mni_arena_calloc(ref.arena_, n ? n : 1, sizeof(float), 16);
    float *column = mni_arena_calloc(ref.arena_, ref.time_count ? ref.time_count : 1,
                                     sizeof(float), 16);
    if (!errors || !column) {
        mni_error_ref_free(&ref);
        return mni_oom(err, "error metric");
    }
    memset(out, 0, sizeof *out);
    out->time_count = ref.time_count;
    out->max = mni_error_eval(&ref, mni_error_sample_clip, candidate, 1, joint_max, errors,
                              &out->worst_joint, &out->worst_time);
    if (joint_p99)
        for (uint32_t j = 0; j < joints; j++) {
            for (uint32_t k = 0; k < ref.time_count; k++)
                column[k] = errors[(size_t)k * joints + j];
            joint_p99[j] = p99_of(column, ref.time_count);
        }
    out->p99 = p99_of(errors, n);
    mni_error_ref_free(&ref);
    if (err)
        mni_error_clear(err);
    return MN_OK;
}

void mni_error_levers(mni_error_ref *ref, const mn_clip *clip, float *levers)
{
    const mn_skeleton *sk = ref->skeleton;
    for (uint32_t j = 0; j < sk->joint_count; j++)
        levers[j] = ref->shell;
    uint32_t n = ref->time_count;
    uint32_t at[3] = {0, n / 2, n ? n - 1 : 0};
    for (int i = 0; i < 3 && n > 0; i++) {
        compose_at(ref, mni_error_sample_clip, clip, ref->times[at[i]]);
        for (uint32_t j = 0; j < sk->joint_count; j++) {
            const float *o = ref->worlds + 16 * j + 12;
            for (uint32_t d = j; d < sk->subtree_end[j]; d++) {
                float l = distance3(ref->worlds + 16 * d + 12, o) + ref->shell;
                levers[j] = l > levers[j] ? l : levers[j];
            }
        }
    }
}
