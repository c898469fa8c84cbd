/*
 * Retargeting by joint name (the rules: marionette/retarget.h): rotations carried
 * in model space relative to each rest pose, the retarget roots' translation
 * scaled by a leg ratio, everything else at the destination's rest.
 *
 * Building does the name matching, the rest model transforms and every
 * per-joint constant (the rest-to-rest rotation D = G_src⁻¹·G_dst, the
 * inverse rest transform of each root's parent), and claims the scratch the
 * per-frame pass needs, so that applying is two forward loops in double over
 * the joints and allocates nothing.
 */
#include <marionette/retarget.h>

#include "anim/motion_internal.h"
#include "core/core.h"

#include <string.h>

struct mn_retarget {
    mn_arena arena;              /* owns everything below */
    uint32_t src_count, dst_count;
    float scale;                 /* k */
    int16_t *src_parents, *dst_parents;
    uint32_t *src_of_dst;        /* MN_NONE: unmatched */
    bool *is_root;
    double (*rest_to_rest)[4];   /* per dst joint: G_src(s)⁻¹·G_dst(j) (matched only) */
    double (*src_rest_pos)[3];   /* Gp_src */
    double (*dst_rest_pos)[3];   /* Gp_dst */
    mq_affine *dst_parent_inv;   /* per dst joint: inverse rest model transform of its parent */
    float *dst_rest_t, *dst_rest_r, *dst_rest_s;   /* destination rest locals */
    /* Scratch for apply. */
    double (*src_world_rot)[4];
    mq_affine *src_world;
    double (*dst_world_rot)[4];
};

/* ---- rest model transforms ------------------------------------------------- */

static void local_affine(mq_affine *out, const float t[3], const double q[4], const float s[3])
{
    mq_affine_from_quat(out, q);
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            out->m[3 * c + r] *= s[c];
    out->m[9] = t[0];
    out->m[10] = t[1];
    out->m[11] = t[2];
}

static void unit_rotation(double q[4], const float *r)
{
    mq_from_float4(q, r);
    mq_quat_normalize(q, q);
}

/*
 * World rotations (quaternion products: scale plays no part in a joint's
 * orientation) and world affines of a pose, parents first.
 */
static void forward_pass(const int16_t *parents, uint32_t count, const mn_pose *pose,
                         double (*rot)[4], mq_affine *world)
{
    for (uint32_t j = 0; j < count; j++) {
        double q[4];
        mq_affine local;
        unit_rotation(q, pose->rotations + 4u * j);
        local_affine(&local, pose->translations + 3u * j, q, pose->scales + 3u * j);
        int p = parents[j];
        if (p >= 0) {
            mq_quat_mul(rot[j], rot[p], q);
            mq_affine_mul(&world[j], &world[p], &local);
        } else {
            memcpy(rot[j], q, sizeof q);
            world[j] = local;
        }
    }
}

/* ---- matching -------------------------------------------------------------- */

static uint32_t find_name(const mn_skeleton *sk, const bool *eligible, const char *name)
{
    for (uint32_t j = 0; j < sk->joint_count; j++)
        if (sk->names[j] && (!eligible || eligible[j]) && strcmp(sk->names[j], name) == 0)
            return j;
    return MN_NONE;
}

/* Which joints are skin joints (NULL, meaning all, for a skeleton from nodes). */
static bool *skin_joints(const mn_skeleton *sk, mn_arena *arena)
{
    if (sk->skin_joint_count == 0)
        return NULL;
    bool *is_skin = mni_arena_calloc(arena, sk->joint_count, sizeof(bool), 1);
    if (is_skin)
        for (uint32_t i = 0; i < sk->skin_joint_count; i++)
            is_skin[sk->joint_of_skin_joint[i]] = true;
    return is_skin;
}

static mn_status check_pairs(const mn_skeleton *src, const mn_skeleton *dst,
                             const mn_retarget_options *o, mn_error *err)
{
    if (o->name_count && !o->names)
        return mni_fail(err, MN_INVALID_ARGUMENT, "retarget: name_count %u with names NULL",
                        o->name_count);
    for (uint32_t i = 0; i < o->name_count; i++) {
        const mn_retarget_name_pair *p = &o->names[i];
        if (!p->src || !p->dst)
            return mni_fail(err, MN_INVALID_ARGUMENT, "retarget: names[%u] has a NULL name", i);
        if (find_name(src, NULL, p->src) == MN_NONE)
            return mni_fail(err, MN_INVALID_ARGUMENT,
                            "retarget: names[%u] names source joint \"%s\", which the source "
                            "skeleton lacks",
                            i, p->src);
        if (find_name(dst, NULL, p->dst) == MN_NONE)
            return mni_fail(err, MN_INVALID_ARGUMENT,
                            "retarget: names[%u] names destination joint \"%s\", which the "
                            "destination skeleton lacks",
                            i, p->dst);
    }
    return MN_OK;
}

/* The source name a destination joint takes: its pair's, else its own. */
static const char *source_name(const mn_retarget_options *o, const char *dst_name)
{
    for (uint32_t i = 0; i < o->name_count; i++)
        if (strcmp(o->names[i].dst, dst_name) == 0)
            return o->names[i].src;
    return dst_name;
}

static uint32_t match_joints(mn_retarget *m, const mn_skeleton *src, const mn_skeleton *dst,
                             const mn_retarget_options *o, const bool *src_skin,
                             const bool *dst_skin)
{
    uint32_t matched = 0;
    for (uint32_t j = 0; j < dst->joint_count; j++) {
        m->src_of_dst[j] = MN_NONE;
        if (!dst->names[j] || (dst_skin && !dst_skin[j]))
            continue;
        m->src_of_dst[j] = find_name(src, src_skin, source_name(o, dst->names[j]));
        matched += m->src_of_dst[j] != MN_NONE;
    }
    /* Roots: matched, with no matched ancestor.  Parents come first, so is_root can first
       record "matched here or above" and then, walking back, be narrowed to the roots:
       slot p < j still holds the first meaning when j is narrowed. */
    for (uint32_t j = 0; j < dst->joint_count; j++) {
        int p = dst->parents[j];
        m->is_root[j] = (p >= 0 && m->is_root[p]) || m->src_of_dst[j] != MN_NONE;
    }
    for (uint32_t j = dst->joint_count; j-- > 0;) {
        int p = dst->parents[j];
        m->is_root[j] = m->src_of_dst[j] != MN_NONE && !(p >= 0 && m->is_root[p]);
    }
    return matched;
}

/* ---- the translation scale ------------------------------------------------- */

static mn_status leg_length(const mn_skeleton *sk, const double (*pos)[3], const char *which,
                            const char *upper, const char *foot, double *out, mn_error *err)
{
    uint32_t u = mn_skeleton_find(sk, upper), f = mn_skeleton_find(sk, foot);
    if (u == MN_NONE || f == MN_NONE)
        return mni_fail(err, MN_INVALID_ARGUMENT, "retarget: the %s skeleton has no joint \"%s\"",
                        which, u == MN_NONE ? upper : foot);
    double sum = 0.0;
    for (uint32_t j = f; j != u;) {
        int p = sk->parents[j];
        if (p < 0)
            return mni_fail(err, MN_INVALID_ARGUMENT,
                            "retarget: on the %s skeleton \"%s\" is not an ancestor of \"%s\"",
                            which, upper, foot);
        double d[3];
        mq_sub(d, pos[j], pos[p]);
        sum += sqrt(mq_len2(d));
        j = (uint32_t)p;
    }
    if (!(sum > 0.0))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "retarget: the %s leg from \"%s\" to \"%s\" has length 0", which, upper,
                        foot);
    *out = sum;
    return MN_OK;
}

static mn_status choose_scale(mn_retarget *m, const mn_skeleton *src, const mn_skeleton *dst,
                              const mn_retarget_options *o, mn_error *err)
{
    if (o->translation_scale != 0.0f) {
        if (!isfinite(o->translation_scale))
            return mni_fail(err, MN_NOT_FINITE, "retarget: translation_scale is not finite");
        if (!(o->translation_scale > 0.0f))
            return mni_fail(err, MN_INVALID_ARGUMENT, "retarget: translation_scale %g is negative",
                            (double)o->translation_scale);
        m->scale = o->translation_scale;
        return MN_OK;
    }
    if (!o->src_upper_leg || !o->src_foot || !o->dst_upper_leg || !o->dst_foot)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "retarget: give translation_scale, or the upper-leg and foot joint "
                        "names of both skeletons");
    double ls, ld;
    mn_status st = leg_length(src, (const double (*)[3])m->src_rest_pos, "source",
                              o->src_upper_leg, o->src_foot, &ls, err);
    if (st == MN_OK)
        st = leg_length(dst, (const double (*)[3])m->dst_rest_pos, "destination",
                        o->dst_upper_leg, o->dst_foot, &ld, err);
    if (st == MN_OK)
        m->scale = (float)(ld / ls);
    return st;
}

/* ---- building -------------------------------------------------------------- */

static mn_status check_rest(const mn_pose *rest, const mn_skeleton *sk, const char *which,
                            mn_error *err)
{
    if (rest->joint_count < sk->joint_count)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "retarget: the %s rest pose has %u joints, the skeleton %u", which,
                        rest->joint_count, sk->joint_count);
    size_t n = sk->joint_count;
    if (!mq_finite_floats(rest->translations, (int)(3 * n)) ||
        !mq_finite_floats(rest->rotations, (int)(4 * n)) ||
        !mq_finite_floats(rest->scales, (int)(3 * n)))
        return mni_fail(err, MN_NOT_FINITE, "retarget: the %s rest pose holds a NaN or infinity",
                        which);
    return MN_OK;
}

/* Claim every array; false when out of memory. */
static bool lay_out(mn_retarget *m)
{
    mn_arena *a = &m->arena;
    size_t ns = m->src_count, nd = m->dst_count;
    m->src_parents = mni_arena_alloc(a, ns * sizeof(int16_t), 8);
    m->dst_parents = mni_arena_alloc(a, nd * sizeof(int16_t), 8);
    m->src_of_dst = mni_arena_alloc(a, nd * sizeof(uint32_t), 8);
    m->is_root = mni_arena_calloc(a, nd, sizeof(bool), 1);
    m->rest_to_rest = mni_arena_alloc(a, nd * sizeof *m->rest_to_rest, 16);
    m->src_rest_pos = mni_arena_alloc(a, ns * sizeof *m->src_rest_pos, 16);
    m->dst_rest_pos = mni_arena_alloc(a, nd * sizeof *m->dst_rest_pos, 16);
    m->dst_parent_inv = mni_arena_alloc(a, nd * sizeof *m->dst_parent_inv, 16);
    m->dst_rest_t = mni_arena_alloc(a, nd * 3 * sizeof(float), 16);
    m->dst_rest_r = mni_arena_alloc(a, nd * 4 * sizeof(float), 16);
    m->dst_rest_s = mni_arena_alloc(a, nd * 3 * sizeof(float), 16);
    m->src_world_rot = mni_arena_alloc(a, ns * sizeof *m->src_world_rot, 16);
    m->src_world = mni_arena_alloc(a, ns * sizeof *m->src_world, 16);
    m->dst_world_rot = mni_arena_alloc(a, nd * sizeof *m->dst_world_rot, 16);
    return m->src_parents && m->dst_parents && m->src_of_dst && m->is_root && m->rest_to_rest &&
           m->src_rest_pos && m->dst_rest_pos && m->dst_parent_inv && m->dst_rest_t &&
           m->dst_rest_r && m->dst_rest_s && m->src_world_rot && m->src_world && m->dst_world_rot;
}

/*
 * Rest model rotations and positions of both skeletons, the rest-to-rest
 * rotation of each matched joint and the inverse rest transform above each
 * destination joint.  The scratch arrays hold the source's rest world while
 * this runs; the destination's goes through dst_world_rot and a temporary
 * walk of affines kept in dst_parent_inv before inversion.
 */
static void rest_constants(mn_retarget *m, const mn_pose *src_rest, const mn_pose *dst_rest)
{
    forward_pass(m->src_parents, m->src_count, src_rest, m->src_world_rot, m->src_world);
    for (uint32_t s = 0; s < m->src_count; s++)
        memcpy(m->src_rest_pos[s], m->src_world[s].m + 9, 3 * sizeof(double));
    /* dst rest worlds into dst_parent_inv, then turned into each joint's parent's inverse. */
    forward_pass(m->dst_parents, m->dst_count, dst_rest, m->dst_world_rot, m->dst_parent_inv);
    for (uint32_t j = 0; j < m->dst_count; j++)
        memcpy(m->dst_rest_pos[j], m->dst_parent_inv[j].m + 9, 3 * sizeof(double));
    for (uint32_t j = m->dst_count; j-- > 0;) {
        /* Children come after parents, so walking backwards reads each parent's world before
           that slot is overwritten with its own parent's inverse. */
        int p = m->dst_parents[j];
        if (p >= 0)
            mq_affine_invert(&m->dst_parent_inv[j], &m->dst_parent_inv[p]);
        else
            mq_affine_identity(&m->dst_parent_inv[j]);
    }
    for (uint32_t j = 0; j < m->dst_count; j++) {
        uint32_t s = m->src_of_dst[j];
        if (s == MN_NONE)
            continue;
        double inv[4];
        mq_quat_conj(inv, m->src_world_rot[s]);
        mq_quat_mul(m->rest_to_rest[j], inv, m->dst_world_rot[j]);
    }
}

mn_status mn_retarget_create(const mn_skeleton *src, const mn_skeleton *dst,
                             const mn_retarget_options *options, mn_retarget **out, mn_error *err)
{
    if (!src || !dst || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "retarget: source, destination and out are required");
    *out = NULL;
    mn_retarget_options none;
    memset(&none, 0, sizeof none);
    const mn_retarget_options *o = options ? options : &none;
    const mn_pose *src_rest = o->src_rest ? o->src_rest : &src->rest;
    const mn_pose *dst_rest = o->dst_rest ? o->dst_rest : &dst->rest;
    mn_status st = check_rest(src_rest, src, "source", err);
    if (st == MN_OK)
        st = check_rest(dst_rest, dst, "destination", err);
    if (st == MN_OK)
        st = check_pairs(src, dst, o, err);
    if (st != MN_OK)
        return st;

    mn_retarget *m = mni_alloc(&o->allocator, sizeof *m);
    if (!m)
        return mni_oom(err, "retarget");
    memset(m, 0, sizeof *m);
    mni_arena_init(&m->arena, &o->allocator);
    m->src_count = src->joint_count;
    m->dst_count = dst->joint_count;
    bool *src_skin = NULL, *dst_skin = NULL;
    bool both_skins = src->skin_joint_count > 0 && dst->skin_joint_count > 0;
    if (!lay_out(m) ||
        (both_skins && (!(src_skin = skin_joints(src, &m->arena)) ||
                        !(dst_skin = skin_joints(dst, &m->arena))))) {
        mni_arena_release_holder(&m->arena, m, sizeof *m);
        return mni_oom(err, "retarget");
    }
    memcpy(m->src_parents, src->parents, m->src_count * sizeof(int16_t));
    memcpy(m->dst_parents, dst->parents, m->dst_count * sizeof(int16_t));
    memcpy(m->dst_rest_t, dst_rest->translations, m->dst_count * 3 * sizeof(float));
    memcpy(m->dst_rest_r, dst_rest->rotations, m->dst_count * 4 * sizeof(float));
    memcpy(m->dst_rest_s, dst_rest->scales, m->dst_count * 3 * sizeof(float));

    if (match_joints(m, src, dst, o, src_skin, dst_skin) == 0) {
        mni_arena_release_holder(&m->arena, m, sizeof *m);
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "retarget: no destination joint matched a source joint by name");
    }
    rest_constants(m, src_rest, dst_rest);
    st = choose_scale(m, src, dst, o, err);
    if (st != MN_OK) {
        mni_arena_release_holder(&m->arena, m, sizeof *m);
        return st;
    }
    *out = m;
    return MN_OK;
}

void mn_retarget_free(mn_retarget *map)
{
    if (map)
        mni_arena_release_holder(&map->arena, map, sizeof *map);
}

float mn_retarget_scale(const mn_retarget *map)
{
    return map ? map->scale : 0.0f;
}

uint32_t mn_retarget_source(const mn_retarget *map, uint32_t dst_joint)
{
    return map && dst_joint < map->dst_count ? map->src_of_dst[dst_joint] : MN_NONE;
}

bool mn_retarget_is_root(const mn_retarget *map, uint32_t dst_joint)
{
    return map && dst_joint < map->dst_count && map->is_root[dst_joint];
}

/* ---- applying -------------------------------------------------------------- */

/* The root's model position Gp_dst + k·(P_src − Gp_src), as a local translation under its rest parent. */
static void root_translation(const mn_retarget *m, uint32_t j, uint32_t s, float out[3])
{
    double p[3], local[3];
    for (int c = 0; c < 3; c++)
        p[c] = m->dst_rest_pos[j][c] +
               (double)m->scale * (m->src_world[s].m[9 + c] - m->src_rest_pos[s][c]);
    mq_affine_point(local, &m->dst_parent_inv[j], p);
    for (int c = 0; c < 3; c++)
        out[c] = (float)local[c];
}

mn_status mn_retarget_apply(mn_retarget *map, const mn_pose *src_pose, mn_pose *dst_pose,
                            mn_error *err)
{
    if (!map || !src_pose || !dst_pose)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "retarget: map, source and destination poses are required");
    if (src_pose == dst_pose || src_pose->rotations == dst_pose->rotations)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "retarget: the source and destination poses are the same storage");
    if (src_pose->joint_count < map->src_count || dst_pose->joint_count < map->dst_count)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "retarget: poses of %u and %u joints for skeletons of %u and %u",
                        src_pose->joint_count, dst_pose->joint_count, map->src_count,
                        map->dst_count);
    forward_pass(map->src_parents, map->src_count, src_pose, map->src_world_rot, map->src_world);

    for (uint32_t j = 0; j < map->dst_count; j++) {
        int p = map->dst_parents[j];
        double parent[4], q[4];
        if (p >= 0)
            memcpy(parent, map->dst_world_rot[p], sizeof parent);
        else
            mq_quat_identity(parent);
        uint32_t s = map->src_of_dst[j];
        float *r = dst_pose->rotations + 4u * j;
        if (s != MN_NONE) {
            /* W_dst = W_src·G_src⁻¹·G_dst, local = W_parent⁻¹·W_dst. */
            double inv[4];
            mq_quat_mul(map->dst_world_rot[j], map->src_world_rot[s], map->rest_to_rest[j]);
            mq_quat_conj(inv, parent);
            mq_quat_mul(q, inv, map->dst_world_rot[j]);
            mq_quat_normalize(q, q);
            mq_to_float4(r, q);
        } else {
            unit_rotation(q, map->dst_rest_r + 4u * j);
            mq_quat_mul(map->dst_world_rot[j], parent, q);
            memcpy(r, map->dst_rest_r + 4u * j, 4 * sizeof(float));
        }
        memcpy(dst_pose->scales + 3u * j, map->dst_rest_s + 3u * j, 3 * sizeof(float));
        if (map->is_root[j])
            root_translation(map, j, s, dst_pose->translations + 3u * j);
        else
            memcpy(dst_pose->translations + 3u * j, map->dst_rest_t + 3u * j, 3 * sizeof(float));
    }
    return MN_OK;
}
