/*
 * Posing voxel rigs (src/voxel/pose.c) by voxel-rig-format.md's formula,
 * on rigs built here as plain structs: rest gives identity worlds; one
 * rotation joint turns the part's vertices about its pivot by exactly the
 * angle; translation joints; mounts with an empty range are static
 * attachments; the joints of a part compose in declared order; clamping of
 * caller and animation values; parents listed after their children (with the
 * reader's part_order and without one); animations overlaid in order over
 * the caller map; a rig too large for the stack values giving the same
 * poses; the work done once at load (mounts resolved, mn_voxel_mount_affine,
 * joints planned, posing exactly as the same rig without them; curves baked
 * and looping animations put on grids, posing within the bake's tolerance of
 * the exact curves); the AVX2 + FMA kernel against the portable one (the
 * same values, worlds within 1e-6 relative: in practice the same bits); and
 * the skinning matrices of a skinned mesh.  Tolerances: 1e-4 voxel as the
 * spec allows, tighter (1e-5) where the arithmetic is short.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/math.h>
#include <marionette/voxel/rig.h>

#include "assert_near.h"
#include "voxel/fcurve_internal.h"
#include "voxel/pose_internal.h"

#include <float.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define SQRT1_2 0.70710678118654752440

static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

static mn_voxel_part part(const char *name, uint32_t parent, float px, float py, float pz,
                          const uint32_t *joints, uint32_t joint_count)
{
    mn_voxel_part p;
    memset(&p, 0, sizeof p);
    p.name = name;
    p.parent = parent;
    p.pivot[0] = px, p.pivot[1] = py, p.pivot[2] = pz;
    p.joints = joints;
    p.joint_count = joint_count;
    return p;
}

static mn_voxel_joint joint(const char *name, uint32_t part_index, mn_voxel_joint_type type,
                            float ax, float ay, float az, float min, float max, float rest)
{
    mn_voxel_joint j;
    memset(&j, 0, sizeof j);
    j.name = name;
    j.part = part_index;
    j.type = type;
    float len = sqrtf(ax * ax + ay * ay + az * az);
    j.axis[0] = ax / len, j.axis[1] = ay / len, j.axis[2] = az / len;
    j.min = min, j.max = max, j.rest = rest;
    j.drive = MN_VOXEL_DRIVE_CALLER;
    return j;
}

static mn_voxel_rig rig_of(const mn_voxel_part *parts, uint32_t part_count,
                           const uint32_t *order, const mn_voxel_joint *joints,
                           uint32_t joint_count)
{
    mn_voxel_rig r;
    memset(&r, 0, sizeof r);
    r.voxel_size = 1;
    r.parts = parts, r.part_count = part_count, r.part_order = order;
    r.joints = joints, r.joint_count = joint_count;
    return r;
}

/* ---- independent transforms for expectations ----------------------------------------- */

static void translation(float out[16], float x, float y, float z)
{
    mn_mat4_identity(out);
    out[12] = x, out[13] = y, out[14] = z;
}

static void mul(float out[16], const float a[16], const float b[16])
{
    float tmp[16];
    mn_mat4_mul(tmp, a, b);
    memcpy(out, tmp, sizeof tmp);
}

/* T(p) · M · T(-p) */
static void about(float out[16], const float m[16], const float p[3])
{
    float tp[16], tn[16];
    translation(tp, p[0], p[1], p[2]);
    translation(tn, -p[0], -p[1], -p[2]);
    mul(out, tp, m);
    mul(out, out, tn);
}

/* Driven of a rotation joint by quaternion, T(p) · R(axis, angle) · T(-p). */
static void rotation_about(float out[16], const float axis[3], float angle, const float p[3])
{
    float q[4], r[16];
    mn_quat_from_axis_angle(q, axis, angle);
    mn_quat_to_mat4(r, q);
    about(out, r, p);
}

/* Mount = T(offset) · T(p) · R(orient) · T(-p), orient by mn_quat_from_euler_xyz. */
static void mount(float out[16], const float orient[3], const float offset[3], const float p[3])
{
    float q[4], r[16], t[16];
    mn_quat_from_euler_xyz(q, orient);
    mn_quat_to_mat4(r, q);
    about(out, r, p);
    translation(t, offset[0], offset[1], offset[2]);
    mul(out, t, out);
}

/* ---- rest and single joints -------------------------------------------------------------- */

static void rest_gives_identity_worlds(void **state)
{
    (void)state;
    const uint32_t j0[] = {0}, j1[] = {1, 2};
    mn_voxel_part parts[] = {part("body", MN_NONE, 8, 6, 8, j0, 1),
                             part("head", 0, 8, 12, 8, j1, 2),
                             part("hat", 1, 8, 15, 8, NULL, 0)};
    mn_voxel_joint joints[] = {
        joint("lean", 0, MN_VOXEL_ROTATION, 1, 0, 0, -1, 1, 0),
        joint("neck_yaw", 1, MN_VOXEL_ROTATION, 0, 1, 0, -0.8f, 0.8f, 0),
        joint("bob", 1, MN_VOXEL_TRANSLATION, 0, 1, 0, -2, 2, 0),
    };
    const uint32_t order[] = {0, 1, 2};
    mn_voxel_rig rig = rig_of(parts, 3, order, joints, 3);
    float worlds[16 * 3], values[3];
    assert_int_equal(mn_voxel_pose(&rig, NULL, worlds, values), MN_OK);
    for (int p = 0; p < 3; p++)
        assert_vec_near(&worlds[16 * p], identity, 16, 0);
    for (int j = 0; j < 3; j++)
        assert_true(values[j] == 0);
    /* An input with no caller map and no animations is the same. */
    mn_voxel_pose_input in = {0};
    assert_int_equal(mn_voxel_pose(&rig, &in, worlds, NULL), MN_OK);
    for (int p = 0; p < 3; p++)
        assert_vec_near(&worlds[16 * p], identity, 16, 0);
}

static void the_rest_pose_is_every_joint_at_its_rest(void **state)
{
    (void)state;
    const uint32_t j0[] = {0};
    mn_voxel_part parts[] = {part("arm", MN_NONE, 2, 3, 4, j0, 1)};
    mn_voxel_joint joints[] = {joint("swing", 0, MN_VOXEL_ROTATION, 0, 0, 1, -1, 1, 0.25f)};
    const uint32_t order[] = {0};
    mn_voxel_rig rig = rig_of(parts, 1, order, joints, 1);
    float worlds[16], want[16], caller[1] = {NAN};
    mn_voxel_pose_input in = {.caller = caller};
    assert_int_equal(mn_voxel_pose(&rig, &in, worlds, NULL), MN_OK);
    rotation_about(want, joints[0].axis, 0.25f, parts[0].pivot);
    assert_vec_near(worlds, want, 16, 1e-6);
}

static void a_rotation_joint_turns_vertices_about_the_pivot_by_the_angle(void **state)
{
    (void)state;
    const uint32_t j0[] = {0};
    mn_voxel_part parts[] = {part("head", MN_NONE, 8, 12, 8, j0, 1)};
    mn_voxel_joint joints[] = {joint("tilt", 0, MN_VOXEL_ROTATION, 1, 1, 0, -3, 3, 0)};
    const uint32_t order[] = {0};
    mn_voxel_rig rig = rig_of(parts, 1, order, joints, 1);
    const float angles[] = {0.5f, -1.25f, 3.0f};
    for (size_t a = 0; a < 3; a++) {
        float caller[1] = {angles[a]}, worlds[16];
        mn_voxel_pose_input in = {.caller = caller};
        assert_int_equal(mn_voxel_pose(&rig, &in, worlds, NULL), MN_OK);
        /* The pivot stays put. */
        float moved[3];
        mn_mat4_transform_point(moved, worlds, parts[0].pivot);
        assert_vec_near(moved, parts[0].pivot, 3, 1e-5);
        /* A vertex off the axis keeps its distance to the axis and turns by the angle,
         * counter-clockwise looking down the axis (right-handed). */
        const float v[3] = {11, 12, 5};
        mn_mat4_transform_point(moved, worlds, v);
        double ax[3] = {SQRT1_2, SQRT1_2, 0};
        double d0[3], d1[3];
        for (int i = 0; i < 3; i++)
            d0[i] = v[i] - parts[0].pivot[i], d1[i] = moved[i] - parts[0].pivot[i];
        double along0 = d0[0] * ax[0] + d0[1] * ax[1] + d0[2] * ax[2];
        double along1 = d1[0] * ax[0] + d1[1] * ax[1] + d1[2] * ax[2];
        assert_float_near(along1, along0, 1e-5);
        double p0[3], p1[3];
        for (int i = 0; i < 3; i++)
            p0[i] = d0[i] - along0 * ax[i], p1[i] = d1[i] - along1 * ax[i];
        double cross[3] = {p0[1] * p1[2] - p0[2] * p1[1], p0[2] * p1[0] - p0[0] * p1[2],
                           p0[0] * p1[1] - p0[1] * p1[0]};
        double sin_part = cross[0] * ax[0] + cross[1] * ax[1] + cross[2] * ax[2];
        double cos_part = p0[0] * p1[0] + p0[1] * p1[1] + p0[2] * p1[2];
        assert_float_near(atan2(sin_part, cos_part), angles[a], 1e-6);
        /* And the whole matrix is T(p)·R(axis, angle)·T(-p). */
        float want[16];
        rotation_about(want, joints[0].axis, angles[a], parts[0].pivot);
        assert_vec_near(worlds, want, 16, 1e-5);
    }
}

static void rotation_about_y_matches_three_js_make_rotation_axis(void **state)
{
    (void)state;
    /* R(y, θ) maps +x to (cos θ, 0, -sin θ): counter-clockwise seen from +y. */
    const uint32_t j0[] = {0};
    mn_voxel_part parts[] = {part("p", MN_NONE, 0, 0, 0, j0, 1)};
    mn_voxel_joint joints[] = {joint("yaw", 0, MN_VOXEL_ROTATION, 0, 1, 0, -2, 2, 0)};
    const uint32_t order[] = {0};
    mn_voxel_rig rig = rig_of(parts, 1, order, joints, 1);
    float caller[1] = {0.3f}, worlds[16], out[3];
    mn_voxel_pose_input in = {.caller = caller};
    assert_int_equal(mn_voxel_pose(&rig, &in, worlds, NULL), MN_OK);
    mn_mat4_transform_point(out, worlds, (const float[3]){1, 0, 0});
    assert_float_near(out[0], cos(0.3), 1e-7);
    assert_float_near(out[1], 0, 1e-7);
    assert_float_near(out[2], -sin(0.3), 1e-7);
}

static void a_translation_joint_moves_along_its_axis(void **state)
{
    (void)state;
    const uint32_t j0[] = {0}, j1[] = {1};
    mn_voxel_part parts[] = {part("base", MN_NONE, 0, 0, 0, j0, 1),
                             part("slider", 0, 4, 0, 0, j1, 1)};
    mn_voxel_joint joints[] = {joint("turn", 0, MN_VOXEL_ROTATION, 0, 0, 1, -2, 2, 0),
                               joint("extend", 1, MN_VOXEL_TRANSLATION, 1, 0, 0, 0, 5, 0)};
    const uint32_t order[] = {0, 1};
    mn_voxel_rig rig = rig_of(parts, 2, order, joints, 2);
    float caller[2] = {NAN, 2.5f}, worlds[32], want[16];
    mn_voxel_pose_input in = {.caller = caller};
    assert_int_equal(mn_voxel_pose(&rig, &in, worlds, NULL), MN_OK);
    translation(want, 2.5f, 0, 0);
    assert_vec_near(&worlds[16], want, 16, 0);
    /* Under a parent turned a quarter about z, +x becomes +y. */
    caller[0] = (float)(PI / 2);
    assert_int_equal(mn_voxel_pose(&rig, &in, worlds, NULL), MN_OK);
    float out[3];
    mn_mat4_transform_point(out, &worlds[16], (const float[3]){4, 0, 0});
    assert_vec_near(out, ((const float[3]){0, 6.5f, 0}), 3, 1e-5);
}

/* ---- mounts, order, clamping -------------------------------------------------------------- */

static void a_mount_with_an_empty_range_is_a_static_attachment(void **state)
{
    (void)state;
    const uint32_t j0[] = {0};
    mn_voxel_part parts[] = {part("hat", MN_NONE, 8, 15, 8, j0, 1)};
    mn_voxel_joint joints[] = {joint("hat_tilt", 0, MN_VOXEL_ROTATION, 1, 0, 0, 0, 0, 0)};
    joints[0].drive = MN_VOXEL_DRIVE_AUTO;
    joints[0].has_mount = true;
    joints[0].orient[0] = 0.3f, joints[0].orient[1] = -0.2f, joints[0].orient[2] = 0.5f;
    joints[0].offset[0] = 1, joints[0].offset[1] = 2, joints[0].offset[2] = -3;
    const uint32_t order[] = {0};
    mn_voxel_rig rig = rig_of(parts, 1, order, joints, 1);
    float want[16];
    mount(want, joints[0].orient, joints[0].offset, parts[0].pivot);
    /* Whatever the caller asks, the value clamps to 0: only the mount remains. */
    const float asks[] = {NAN, 0.7f, -5.0f, INFINITY};
    for (size_t i = 0; i < 4; i++) {
        float caller[1] = {asks[i]}, worlds[16], values[1];
        mn_voxel_pose_input in = {.caller = caller};
        assert_int_equal(mn_voxel_pose(&rig, &in, worlds, values), MN_OK);
        assert_true(values[0] == 0);
        assert_vec_near(worlds, want, 16, 1e-5);
    }
}

static void a_mount_applies_after_the_driven_motion(void **state)
{
    (void)state;
    /* J = Mount · Driven: the driven rotation happens in the sculpted frame, then the mount. */
    const uint32_t j0[] = {0};
    mn_voxel_part parts[] = {part("gun", MN_NONE, 1, 2, 3, j0, 1)};
    mn_voxel_joint joints[] = {joint("aim", 0, MN_VOXEL_ROTATION, 0, 1, 0, -1, 1, 0)};
    joints[0].has_mount = true;
    joints[0].orient[2] = 0.4f;
    joints[0].offset[0] = 5;
    const uint32_t order[] = {0};
    mn_voxel_rig rig = rig_of(parts, 1, order, joints, 1);
    float caller[1] = {0.6f}, worlds[16], m[16], d[16], want[16];
    mn_voxel_pose_input in = {.caller = caller};
    assert_int_equal(mn_voxel_pose(&rig, &in, worlds, NULL), MN_OK);
    mount(m, joints[0].orient, joints[0].offset, parts[0].pivot);
    rotation_about(d, joints[0].axis, 0.6f, parts[0].pivot);
    mul(want, m, d);
    assert_vec_near(worlds, want, 16, 1e-5);
}

static void joints_of_a_part_compose_in_declared_order(void **state)
{
    (void)state;
    const uint32_t ab[] = {0, 1}, ba[] = {1, 0};
    mn_voxel_joint joints[] = {joint("pitch", 0, MN_VOXEL_ROTATION, 1, 0, 0, -2, 2, 0),
                               joint("slide", 0, MN_VOXEL_TRANSLATION, 0, 1, 0, -5, 5, 0)};
    const uint32_t order[] = {0};
    float caller[2] = {0.9f, 3.0f}, w_ab[16], w_ba[16], r[16], t[16], want[16];
    mn_voxel_pose_input in = {.caller = caller};
    mn_voxel_part parts_ab[] = {part("p", MN_NONE, 0, 1, 2, ab, 2)};
    mn_voxel_rig rig_ab = rig_of(parts_ab, 1, order, joints, 2);
    assert_int_equal(mn_voxel_pose(&rig_ab, &in, w_ab, NULL), MN_OK);
    mn_voxel_part parts_ba[] = {part("p", MN_NONE, 0, 1, 2, ba, 2)};
    mn_voxel_rig rig_ba = rig_of(parts_ba, 1, order, joints, 2);
    assert_int_equal(mn_voxel_pose(&rig_ba, &in, w_ba, NULL), MN_OK);

    rotation_about(r, joints[0].axis, 0.9f, parts_ab[0].pivot);
    translation(t, 0, 3, 0);
    mul(want, r, t);                            /* J1 · J2 = pitch · slide */
    assert_vec_near(w_ab, want, 16, 1e-5);
    mul(want, t, r);                            /* slide · pitch */
    assert_vec_near(w_ba, want, 16, 1e-5);
    /* The orders really differ: the slide is turned by the pitch in the first only. */
    assert_true(fabsf(w_ab[13] - w_ba[13]) > 0.5f);
}

static void values_are_clamped_to_the_range(void **state)
{
    (void)state;
    const uint32_t j0[] = {0, 1};
    mn_voxel_part parts[] = {part("p", MN_NONE, 0, 0, 0, j0, 2)};
    mn_voxel_joint joints[] = {joint("a", 0, MN_VOXEL_ROTATION, 0, 0, 1, -0.5f, 0.8f, 0),
                               joint("b", 0, MN_VOXEL_TRANSLATION, 1, 0, 0, -1, 2, 0.5f)};
    const uint32_t order[] = {0};
    mn_voxel_rig rig = rig_of(parts, 1, order, joints, 2);
    float caller[2] = {5, -9}, worlds[16], values[2], want[16], t[16];
    mn_voxel_pose_input in = {.caller = caller};
    assert_int_equal(mn_voxel_pose(&rig, &in, worlds, values), MN_OK);
    assert_true(values[0] == 0.8f);
    assert_true(values[1] == -1.0f);
    rotation_about(want, joints[0].axis, 0.8f, parts[0].pivot);
    translation(t, -1, 0, 0);
    mul(want, want, t);
    assert_vec_near(worlds, want, 16, 1e-6);
    caller[0] = -INFINITY, caller[1] = INFINITY;
    assert_int_equal(mn_voxel_pose(&rig, &in, worlds, values), MN_OK);
    assert_true(values[0] == -0.5f && values[1] == 2.0f);
}

/* ---- hierarchy ---------------------------------------------------------------------------- */

/* child listed before its parent: parts[0] = hand (parent 2), parts[1] = root, parts[2] = arm. */
static void parents_listed_after_children(void **state)
{
    (void)state;
    const uint32_t jh[] = {2}, jr[] = {0}, ja[] = {1};
    mn_voxel_part parts[] = {part("hand", 2, 0, 10, 0, jh, 1),
                             part("root", MN_NONE, 0, 0, 0, jr, 1),
                             part("arm", 1, 0, 5, 0, ja, 1)};
    mn_voxel_joint joints[] = {joint("spin", 1, MN_VOXEL_ROTATION, 0, 1, 0, -4, 4, 0),
                               joint("shoulder", 2, MN_VOXEL_ROTATION, 0, 0, 1, -4, 4, 0),
                               joint("wrist", 0, MN_VOXEL_ROTATION, 1, 0, 0, -4, 4, 0)};
    const uint32_t order[] = {1, 2, 0};
    mn_voxel_rig rig = rig_of(parts, 3, order, joints, 3);
    float caller[3] = {0.4f, -0.7f, 1.1f}, worlds[48], worlds2[48], j[16];
    mn_voxel_pose_input in = {.caller = caller};
    assert_int_equal(mn_voxel_pose(&rig, &in, worlds, NULL), MN_OK);

    float root[16], arm[16], hand[16];
    rotation_about(root, joints[0].axis, 0.4f, parts[1].pivot);
    rotation_about(j, joints[1].axis, -0.7f, parts[2].pivot);
    mul(arm, root, j);
    rotation_about(j, joints[2].axis, 1.1f, parts[0].pivot);
    mul(hand, arm, j);
    assert_vec_near(&worlds[16], root, 16, 1e-5);
    assert_vec_near(&worlds[32], arm, 16, 1e-5);
    assert_vec_near(&worlds[0], hand, 16, 1e-5);

    /* Without a part_order (a hand-built rig), posing finds parents first itself. */
    rig.part_order = NULL;
    assert_int_equal(mn_voxel_pose(&rig, &in, worlds2, NULL), MN_OK);
    assert_vec_near(worlds2, worlds, 48, 0);
}

static void a_cycle_without_part_order_is_a_hierarchy_error(void **state)
{
    (void)state;
    mn_voxel_part parts[] = {part("a", 1, 0, 0, 0, NULL, 0), part("b", 0, 0, 0, 0, NULL, 0)};
    mn_voxel_rig rig = rig_of(parts, 2, NULL, NULL, 0);
    float worlds[32];
    assert_int_equal(mn_voxel_pose(&rig, NULL, worlds, NULL), MN_HIERARCHY);
}

/* ---- animations ----------------------------------------------------------------------------- */

/* Two linear one-shot animations: "a" drives j0 and j1, "b" drives j1 only. */
typedef struct anim_rig {
    mn_fcurve_key keys_a0[2], keys_a1[2], keys_b1[2];
    mn_voxel_track tracks_a[2], tracks_b[1];
    mn_voxel_animation anims[2];
    uint32_t part_joints[3];
    mn_voxel_part parts[1];
    mn_voxel_joint joints[3];
    uint32_t order[1];
    mn_voxel_rig rig;
} anim_rig;

static mn_fcurve linear_curve(mn_fcurve_key *k, double v0, double v1)
{
    memset(k, 0, 2 * sizeof *k);
    k[0].t = 0, k[0].v = v0, k[0].interp = MN_FCURVE_LINEAR;
    k[1].t = 1000, k[1].v = v1, k[1].interp = MN_FCURVE_LINEAR;
    return (mn_fcurve){k, 2, false, 1000};
}

static void anim_rig_make(anim_rig *a)
{
    memset(a, 0, sizeof *a);
    a->tracks_a[0] = (mn_voxel_track){0, linear_curve(a->keys_a0, 0, 1)};
    a->tracks_a[1] = (mn_voxel_track){1, linear_curve(a->keys_a1, 0, 2)};
    a->tracks_b[0] = (mn_voxel_track){1, linear_curve(a->keys_b1, -1, -3)};
    a->anims[0] = (mn_voxel_animation){.name = "a", .duration_ms = 1000,
                                       .tracks = a->tracks_a, .track_count = 2};
    a->anims[1] = (mn_voxel_animation){.name = "b", .duration_ms = 1000,
                                       .tracks = a->tracks_b, .track_count = 1};
    for (uint32_t i = 0; i < 3; i++)
        a->part_joints[i] = i;
    a->parts[0] = part("p", MN_NONE, 0, 0, 0, a->part_joints, 3);
    a->joints[0] = joint("j0", 0, MN_VOXEL_TRANSLATION, 1, 0, 0, -10, 10, 0);
    a->joints[1] = joint("j1", 0, MN_VOXEL_TRANSLATION, 0, 1, 0, -2.5f, 10, 0);
    a->joints[2] = joint("j2", 0, MN_VOXEL_TRANSLATION, 0, 0, 1, -10, 10, 0);
    a->rig = rig_of(a->parts, 1, a->order, a->joints, 3);
    a->rig.animations = a->anims;
    a->rig.animation_count = 2;
}

static void sample_animation_writes_only_the_joints_it_drives(void **state)
{
    (void)state;
    anim_rig a;
    anim_rig_make(&a);
    float values[3] = {7, 8, 9};
    mn_voxel_sample_animation(&a.rig, 1, 500, values);
    assert_true(values[0] == 7 && values[2] == 9);
    assert_float_near(values[1], -2, 1e-6);   /* unclamped: -2 is inside anyway */
    mn_voxel_sample_animation(&a.rig, 1, 1000, values);
    assert_true(values[1] == -3);             /* sampling does not clamp */
    mn_voxel_sample_animation(&a.rig, 5, 0, values);   /* out of range: nothing */
    assert_true(values[0] == 7 && values[1] == -3 && values[2] == 9);
}

static void animations_overlay_in_order_over_the_caller(void **state)
{
    (void)state;
    anim_rig a;
    anim_rig_make(&a);
    float caller[3] = {4, 4, 4}, worlds[16], values[3];
    const uint32_t ab[] = {0, 1}, ba[] = {1, 0};
    mn_voxel_pose_input in = {.caller = caller, .animations = ab, .animation_count = 2,
                              .time_ms = 500};
    assert_int_equal(mn_voxel_pose(&a.rig, &in, worlds, values), MN_OK);
    assert_float_near(values[0], 0.5, 1e-6);   /* a */
    assert_float_near(values[1], -2, 1e-6);    /* b, the later, wins */
    assert_true(values[2] == 4);               /* driven by neither: the caller's */
    assert_float_near(worlds[12], 0.5, 1e-6);
    assert_float_near(worlds[13], -2, 1e-6);
    assert_float_near(worlds[14], 4, 1e-6);
    in.animations = ba;
    assert_int_equal(mn_voxel_pose(&a.rig, &in, worlds, values), MN_OK);
    assert_float_near(values[1], 1, 1e-6);     /* a wins now */
    /* An animation value is clamped like any: b at 1000 ms is -3, the range ends at -2.5. */
    in.animations = ab, in.time_ms = 1000;
    assert_int_equal(mn_voxel_pose(&a.rig, &in, worlds, values), MN_OK);
    assert_true(values[1] == -2.5f);
}

static void an_animation_index_out_of_range_is_refused(void **state)
{
    (void)state;
    anim_rig a;
    anim_rig_make(&a);
    float worlds[16];
    const uint32_t bad[] = {0, 2};
    mn_voxel_pose_input in = {.animations = bad, .animation_count = 2};
    assert_int_equal(mn_voxel_pose(&a.rig, &in, worlds, NULL), MN_INDEX_RANGE);
    assert_int_equal(mn_voxel_pose(NULL, NULL, worlds, NULL), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_voxel_pose(&a.rig, NULL, NULL, NULL), MN_INVALID_ARGUMENT);
}

static void a_rig_with_many_joints_poses_the_same_without_out_values(void **state)
{
    (void)state;
    /* 1500 joints (more than posing keeps on the stack) over 30 chained parts, animated. */
    enum { PARTS = 30, PER = 50, JOINTS = PARTS * PER };
    mn_voxel_part *parts = calloc(PARTS, sizeof *parts);
    mn_voxel_joint *joints = calloc(JOINTS, sizeof *joints);
    uint32_t *pj = calloc(JOINTS, sizeof *pj), order[PARTS];
    float *caller = calloc(JOINTS, sizeof *caller), *values = calloc(JOINTS, sizeof *values);
    assert_non_null(parts), assert_non_null(joints), assert_non_null(pj);
    assert_non_null(caller), assert_non_null(values);
    for (uint32_t p = 0; p < PARTS; p++) {
        order[p] = p;
        parts[p] = part("p", p == 0 ? MN_NONE : p - 1, (float)p, 1, 0, &pj[p * PER], PER);
    }
    for (uint32_t j = 0; j < JOINTS; j++) {
        pj[j] = j;
        joints[j] = joint("j", j / PER, j % 3 ? MN_VOXEL_ROTATION : MN_VOXEL_TRANSLATION,
                          (float)(j % 2), 1, (float)(j % 5), -0.05f, 0.05f, 0.01f);
        caller[j] = j % 4 ? 0.02f * (float)((int)(j % 7) - 3) : NAN;
    }
    mn_fcurve_key keys[2];
    mn_voxel_track tracks[3] = {{7, linear_curve(keys, 0, 0.04)},
                                {1200, linear_curve(keys, 0, 0.04)},
                                {1499, linear_curve(keys, 0, 0.04)}};
    mn_voxel_animation anim = {.name = "x", .duration_ms = 1000, .tracks = tracks,
                               .track_count = 3};
    mn_voxel_rig rig = rig_of(parts, PARTS, order, joints, JOINTS);
    rig.animations = &anim, rig.animation_count = 1;
    const uint32_t play[] = {0};
    mn_voxel_pose_input in = {.caller = caller, .animations = play, .animation_count = 1,
                              .time_ms = 250};
    float a[16 * PARTS], b[16 * PARTS];
    assert_int_equal(mn_voxel_pose(&rig, &in, a, values), MN_OK);
    assert_int_equal(mn_voxel_pose(&rig, &in, b, NULL), MN_OK);
    assert_vec_near(a, b, 16 * PARTS, 0);
    assert_float_near(values[1200], 0.01, 1e-7);
    free(parts), free(joints), free(pj), free(caller), free(values);
}

/* ---- the fast paths against a plain reference ------------------------------------------------- */

/* out = a · b, 4x4 column-major doubles (out may not alias). */
static void mul4(double out[16], const double a[16], const double b[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            out[c * 4 + r] = a[r] * b[c * 4] + a[4 + r] * b[c * 4 + 1] + a[8 + r] * b[c * 4 + 2] +
                             a[12 + r] * b[c * 4 + 3];
}

static void translation4(double out[16], double x, double y, double z)
{
    memset(out, 0, 16 * sizeof *out);
    out[0] = out[5] = out[10] = out[15] = 1;
    out[12] = x, out[13] = y, out[14] = z;
}

/* Rotation by angle about a unit axis (Rodrigues), in double with the library's sin and cos. */
static void rotation4(double out[16], const float axis[3], double angle)
{
    double x = axis[0], y = axis[1], z = axis[2], c = cos(angle), s = sin(angle), t = 1 - c;
    translation4(out, 0, 0, 0);
    out[0] = t * x * x + c, out[4] = t * x * y - s * z, out[8] = t * x * z + s * y;
    out[1] = t * x * y + s * z, out[5] = t * y * y + c, out[9] = t * y * z - s * x;
    out[2] = t * x * z - s * y, out[6] = t * y * z + s * x, out[10] = t * z * z + c;
}

/* M = T(pivot) · M · T(-pivot). */
static void about4(double m[16], const float pivot[3])
{
    double a[16], b[16], tmp[16];
    translation4(a, pivot[0], pivot[1], pivot[2]);
    translation4(b, -pivot[0], -pivot[1], -pivot[2]);
    mul4(tmp, a, m);
    mul4(m, tmp, b);
}

/* The spec's formula read literally: world = world(parent) · Π Mount · Driven, all in double. */
static void reference_pose(const mn_voxel_rig *rig, const float *values, double *worlds)
{
    for (uint32_t k = 0; k < rig->part_count; k++) {
        uint32_t p = rig->part_order[k];
        const mn_voxel_part *pt = &rig->parts[p];
        double w[16], tmp[16], m[16];
        if (pt->parent == MN_NONE)
            translation4(w, 0, 0, 0);
        else
            memcpy(w, &worlds[pt->parent * 16], sizeof w);
        for (uint32_t i = 0; i < pt->joint_count; i++) {
            const mn_voxel_joint *jt = &rig->joints[pt->joints[i]];
            if (jt->has_mount) {
                static const float ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
                double rx[16], ry[16], rz[16], rxy[16], off[16];
                rotation4(rx, ex, jt->orient[0]);
                rotation4(ry, ey, jt->orient[1]);
                rotation4(rz, ez, jt->orient[2]);
                mul4(rxy, rx, ry);
                mul4(m, rxy, rz);
                about4(m, pt->pivot);
                translation4(off, jt->offset[0], jt->offset[1], jt->offset[2]);
                mul4(tmp, off, m);
                mul4(m, w, tmp);
                memcpy(w, m, sizeof w);
            }
            double v = values[pt->joints[i]];
            if (jt->type == MN_VOXEL_ROTATION) {
                rotation4(m, jt->axis, v);
                about4(m, pt->pivot);
            } else {
                translation4(m, jt->axis[0] * v, jt->axis[1] * v, jt->axis[2] * v);
            }
            mul4(tmp, w, m);
            memcpy(w, tmp, sizeof w);
        }
        memcpy(&worlds[p * 16], w, sizeof w);
    }
}

static uint32_t rng_next(uint32_t *state)
{
    *state ^= *state << 13, *state ^= *state >> 17, *state ^= *state << 5;
    return *state;
}

static float rng_float(uint32_t *state, float lo, float hi)
{
    return lo + (hi - lo) * (float)(rng_next(state) >> 8) * (1.0f / 16777216.0f);
}

/* A random rig: 30 parts in a random tree (depth up to 12), 1-3 joints each (every fourth a
   translation), a third of them with mounts.  Its arrays live in the struct, so it must stay put. */
enum { RANDOM_PARTS = 30, RANDOM_MAX_JOINTS = 90 };
typedef struct random_rig {
    mn_voxel_part parts[RANDOM_PARTS];
    mn_voxel_joint joints[RANDOM_MAX_JOINTS];
    uint32_t part_joints[RANDOM_MAX_JOINTS], order[RANDOM_PARTS];
    mn_voxel_rig rig;
} random_rig;

static void random_rig_make(random_rig *r, uint32_t *rng)
{
    uint32_t depth[RANDOM_PARTS], nj = 0;
    for (uint32_t p = 0; p < RANDOM_PARTS; p++) {
        uint32_t parent = p == 0 ? MN_NONE : rng_next(rng) % p;
        if (parent != MN_NONE && depth[parent] >= 11)
            parent = 0;
        depth[p] = parent == MN_NONE ? 0 : depth[parent] + 1;
        r->order[p] = p;
        uint32_t n = 1 + rng_next(rng) % 3;
        r->parts[p] = part("p", parent, rng_float(rng, -40, 40), rng_float(rng, -40, 40),
                           rng_float(rng, -40, 40), &r->part_joints[nj], n);
        for (uint32_t i = 0; i < n; i++, nj++) {
            r->part_joints[nj] = nj;
            r->joints[nj] = joint("j", p, nj % 4 == 3 ? MN_VOXEL_TRANSLATION : MN_VOXEL_ROTATION,
                                  rng_float(rng, -1, 1), rng_float(rng, -1, 1),
                                  rng_float(rng, -1, 1), -7, 7, 0);
            if (nj % 3 == 1) {
                r->joints[nj].has_mount = true;
                for (int c = 0; c < 3; c++) {
                    r->joints[nj].orient[c] = rng_float(rng, -3.2f, 3.2f);
                    r->joints[nj].offset[c] = rng_float(rng, -5, 5);
                }
            }
        }
    }
    r->rig = rig_of(r->parts, RANDOM_PARTS, r->order, r->joints, nj);
}

static void posing_matches_the_formula_in_double_within_a_millionth_of_the_size(void **state)
{
    (void)state;
    /* 30 parts in a random tree (depth up to 12), 1-3 joints each, a third with mounts, angles
       over every quadrant; the posed worlds against the formula read literally in double. */
    enum { PARTS = RANDOM_PARTS, MAX_JOINTS = RANDOM_MAX_JOINTS };
    uint32_t rng = 0x1234567u;
    random_rig r;
    random_rig_make(&r, &rng);
    const mn_voxel_rig rig = r.rig;
    uint32_t nj = r.rig.joint_count;
    float caller[MAX_JOINTS], values[MAX_JOINTS];
    float worlds[16 * PARTS];
    double want[16 * PARTS];
    for (int trial = 0; trial < 50; trial++) {
        for (uint32_t j = 0; j < nj; j++)
            caller[j] = rng_float(&rng, -7, 7);
        mn_voxel_pose_input in = {.caller = caller};
        assert_int_equal(mn_voxel_pose(&rig, &in, worlds, values), MN_OK);
        reference_pose(&rig, values, want);
        for (uint32_t p = 0; p < PARTS; p++)
            for (int i = 0; i < 16; i++)   /* rotations 1e-6, translations 1e-6 of ~500 voxels */
                assert_float_near(worlds[p * 16 + i], want[p * 16 + i], i >= 12 ? 5e-4 : 1e-6);
    }
}

static void a_rotation_at_any_angle_is_the_exact_rotation(void **state)
{
    (void)state;
    /* Every quadrant, both signs, the reduction's edges, and angles beyond where it is used. */
    static const float angles[] = {0.0f, 1e-8f, -1e-8f, 0.3f, -0.3f, 0.78539816f, -0.78539819f,
                                   1.5707964f, -1.5707963f, 2.0f, 3.1415927f, -3.1415925f, 4.0f,
                                   -5.5f, 6.2831855f, 10.0f, -100.5f, 1234.5f, -65535.5f,
                                   65536.0f, 70000.25f, -1e6f, 3e7f};
    const uint32_t j0[] = {0};
    mn_voxel_part parts[] = {part("spin", MN_NONE, 0, 0, 0, j0, 1)};
    mn_voxel_joint joints[] = {joint("z", 0, MN_VOXEL_ROTATION, 0, 0, 1, -1e9f, 1e9f, 0)};
    const uint32_t order[] = {0};
    mn_voxel_rig rig = rig_of(parts, 1, order, joints, 1);
    for (size_t a = 0; a < sizeof angles / sizeof angles[0]; a++) {
        float worlds[16], caller[1] = {angles[a]};
        mn_voxel_pose_input in = {.caller = caller};
        assert_int_equal(mn_voxel_pose(&rig, &in, worlds, NULL), MN_OK);
        double c = cos((double)angles[a]), s = sin((double)angles[a]);
        /* float output: within a unit in the last place of 1 */
        assert_float_near(worlds[0], c, 1.2e-7);
        assert_float_near(worlds[1], s, 1.2e-7);
        assert_float_near(worlds[4], -s, 1.2e-7);
        assert_float_near(worlds[5], c, 1.2e-7);
        assert_true(worlds[10] == 1.0f);
    }
}

static void sines_taken_joint_by_joint_are_the_batched_ones(void **state)
{
    (void)state;
    /* Posing works out every joint's sine and motion in one batch when the rig fits its
       stack table (256 joints), and joint by joint when it does not: the same bits either
       way.  A big rig's first parts must pose exactly as a small rig made of just those. */
    enum { BIG = 600, SMALL = 101 };
    mn_voxel_part *parts = calloc(BIG, sizeof *parts);
    mn_voxel_joint *joints = calloc(BIG, sizeof *joints);
    uint32_t *pj = calloc(BIG, sizeof *pj), *order = calloc(BIG, sizeof *order);
    float *caller = calloc(BIG, sizeof *caller), *values = calloc(BIG, sizeof *values);
    float *big = calloc(16 * BIG, sizeof *big), small[16 * SMALL];
    assert_non_null(parts), assert_non_null(joints), assert_non_null(pj), assert_non_null(order);
    assert_non_null(caller), assert_non_null(values), assert_non_null(big);
    uint32_t rng = 0xabcdefu;
    for (uint32_t p = 0; p < BIG; p++) {
        order[p] = p, pj[p] = p;
        parts[p] = part("p", p == 0 ? MN_NONE : (p - 1) / 2, rng_float(&rng, -9, 9),
                        rng_float(&rng, -9, 9), rng_float(&rng, -9, 9), &pj[p], 1);
        joints[p] = joint("j", p, MN_VOXEL_ROTATION, rng_float(&rng, -1, 1),
                          rng_float(&rng, -1, 1), rng_float(&rng, -1, 1), -1e5f, 1e5f, 0);
        caller[p] = p % 9 == 0 ? 70000.5f : rng_float(&rng, -20, 20);
    }
    mn_voxel_pose_input in = {.caller = caller};
    mn_voxel_rig rig_big = rig_of(parts, BIG, order, joints, BIG);
    mn_voxel_rig rig_small = rig_of(parts, SMALL, order, joints, SMALL);
    assert_int_equal(mn_voxel_pose(&rig_big, &in, big, values), MN_OK);
    assert_int_equal(mn_voxel_pose(&rig_small, &in, small, NULL), MN_OK);
    assert_memory_equal(big, small, sizeof small);
    free(parts), free(joints), free(pj), free(order), free(caller), free(values), free(big);
}

/* rig.json text of `parts` parts (part p's parent (p - 1) / 2), a joint each, a third mounted. */
static char *binary_tree_rig_json(uint32_t parts)
{
    size_t size = 512 + (size_t)parts * 400, at = 0;
    char *text = malloc(size);
    assert_non_null(text);
    uint32_t rng;
    at += (size_t)snprintf(text + at, size - at, "{\"parts\":[");
    for (uint32_t p = 0; p < parts; p++) {
        rng = 0x51f00du + 7919u * p;   /* part p's numbers whatever the rig's size */
        char parent[16] = "null";
        if (p > 0)
            snprintf(parent, sizeof parent, "\"p%u\"", (p - 1) / 2);
        at += (size_t)snprintf(text + at, size - at, "%s{\"name\":\"p%u\",\"parent\":%s,"
                               "\"pivot\":[%.6f,%.6f,%.6f]}", p ? "," : "", p, parent,
                               (double)rng_float(&rng, -9, 9), (double)rng_float(&rng, -9, 9),
                               (double)rng_float(&rng, -9, 9));
    }
    at += (size_t)snprintf(text + at, size - at, "],\"joints\":[");
    for (uint32_t p = 0; p < parts; p++) {
        rng = 0x2bad5eedu + 104729u * p;
        at += (size_t)snprintf(text + at, size - at, "%s{\"name\":\"j%u\",\"part\":\"p%u\","
                               "\"type\":\"%s\",\"axis\":[%.6f,%.6f,%.6f],\"min\":-100000,"
                               "\"max\":100000,\"rest\":0,\"drive\":\"caller\"", p ? "," : "",
                               p, p, p % 5 == 4 ? "translation" : "rotation",
                               (double)rng_float(&rng, -1, 1), (double)rng_float(&rng, -1, 1),
                               (double)rng_float(&rng, 0.1f, 1));
        if (p % 3 == 1)
            at += (size_t)snprintf(text + at, size - at, ",\"mount\":{\"orient\":[%.6f,%.6f,%.6f],"
                                   "\"offset\":[%.6f,0,1]}", (double)rng_float(&rng, -3, 3),
                                   (double)rng_float(&rng, -3, 3), (double)rng_float(&rng, -3, 3),
                                   (double)rng_float(&rng, -2, 2));
        at += (size_t)snprintf(text + at, size - at, "}");
    }
    snprintf(text + at, size - at, "]}");
    assert_true(at + 3 < size);
    return text;
}

static void a_read_rig_poses_joint_by_joint_as_in_its_batch(void **state)
{
    (void)state;
    /* A rig read with more joints than posing works out in one batch (256) has its joints'
       motions worked out one by one as its parts are composed, from the same plans, by the
       same operations as the batch (four lanes, AVX2, where there is one): its first parts
       pose to the bit as a rig read with just those, all in the batch. */
    enum { BIG = 300, SMALL = 101 };
    char *big_text = binary_tree_rig_json(BIG), *small_text = binary_tree_rig_json(SMALL);
    mn_voxel_rig *big = NULL, *small = NULL;
    mn_error err;
    assert_int_equal(mn_voxel_rig_read_memory(big_text, strlen(big_text), NULL, &big, &err), MN_OK);
    assert_int_equal(mn_voxel_rig_read_memory(small_text, strlen(small_text), NULL, &small, &err),
                     MN_OK);
    float *caller = calloc(BIG, sizeof *caller), *worlds = calloc(16 * BIG, sizeof *worlds);
    float small_worlds[16 * SMALL];
    assert_non_null(caller), assert_non_null(worlds);
    uint32_t rng = 0x600du;
    for (uint32_t j = 0; j < BIG; j++)   /* every quadrant, some beyond the polynomial's reach */
        caller[j] = j % 37 == 5 ? 70000.5f : rng_float(&rng, -20, 20);
    mn_voxel_pose_input in = {.caller = caller};
    assert_int_equal(mn_voxel_pose(big, &in, worlds, NULL), MN_OK);
    assert_int_equal(mn_voxel_pose(small, &in, small_worlds, NULL), MN_OK);
    assert_memory_equal(worlds, small_worlds, sizeof small_worlds);
    mn_voxel_rig_free(big), mn_voxel_rig_free(small);
    free(big_text), free(small_text), free(caller), free(worlds);
}

static void the_avx2_kernel_stays_within_float_roundings_of_the_portable_one(void **state)
{
    (void)state;
    /* The posing_matches_the_formula rig (30 parts, depth up to 12, mounts, translations) at
       angles over every quadrant, posed by the AVX2 + FMA kernel (where the CPU has one) and
       by the portable kernel: the same values, and worlds a few float roundings apart (the
       FMA kernel rounds less; a parent's float world feeds its children). */
    enum { PARTS = RANDOM_PARTS, MAX_JOINTS = RANDOM_MAX_JOINTS };
    uint32_t rng = 0x7654321u;
    random_rig r;
    random_rig_make(&r, &rng);
    const mn_voxel_rig rig = r.rig;
    uint32_t nj = r.rig.joint_count;
    float caller[MAX_JOINTS], va[MAX_JOINTS], vb[MAX_JOINTS];
    float a[16 * PARTS], b[16 * PARTS];
    double worst = 0;
    for (int trial = 0; trial < 50; trial++) {
        for (uint32_t j = 0; j < nj; j++)
            caller[j] = rng_float(&rng, -7, 7);
        mn_voxel_pose_input in = {.caller = caller};
        assert_int_equal(mni_voxel_pose_at(&rig, &in, a, va, MN_SIMD_AVX2_FMA), MN_OK);
        assert_int_equal(mni_voxel_pose_at(&rig, &in, b, vb, MN_SIMD_SCALAR), MN_OK);
        assert_memory_equal(va, vb, nj * sizeof *va);
        for (uint32_t i = 0; i < 16 * PARTS; i++)
            worst = fmax(worst, fabs((double)a[i] - b[i]) / (1.0 + fabs((double)b[i])));
    }
    assert_true(worst <= 1e-6);   /* in practice 0: double differences seldom reach a float */
    /* A rig read (the reader's plans, grids and order by depth), animated: the same again. */
    mn_voxel_rig *read = NULL;
    mn_error err;
    assert_int_equal(mn_voxel_rig_read_file("tests/data/voxel_arm/rig.json", NULL, &read, &err),
                     MN_OK);
    assert_true(read->part_count <= PARTS && read->joint_count <= MAX_JOINTS);
    const uint32_t both[] = {mn_voxel_rig_find_animation(read, "idle"),
                             mn_voxel_rig_find_animation(read, "wave")};
    for (double t = -700; t <= 4000; t += 33.3) {
        mn_voxel_pose_input in = {.animations = both, .animation_count = 2, .time_ms = t};
        assert_int_equal(mni_voxel_pose_at(read, &in, a, va, MN_SIMD_AVX2_FMA), MN_OK);
        assert_int_equal(mni_voxel_pose_at(read, &in, b, vb, MN_SIMD_SCALAR), MN_OK);
        assert_memory_equal(va, vb, read->joint_count * sizeof *va);
        for (uint32_t i = 0; i < 16 * read->part_count; i++)
            assert_float_near(a[i], b[i], 1e-6 * (1.0 + fabs((double)b[i])));
    }
    mn_voxel_rig_free(read);
}

/* ---- what the reader resolves at load ------------------------------------------------------ */

static void mount_affine_is_the_mount_of_the_formula(void **state)
{
    (void)state;
    const uint32_t j0[] = {0, 1};
    mn_voxel_part parts[] = {part("p", MN_NONE, 3, -2, 5, j0, 2)};
    mn_voxel_joint joints[] = {joint("m", 0, MN_VOXEL_ROTATION, 0, 1, 0, 0, 0, 0),
                               joint("plain", 0, MN_VOXEL_ROTATION, 1, 0, 0, 0, 0, 0)};
    joints[0].has_mount = true;
    joints[0].orient[0] = 0.3f, joints[0].orient[1] = -0.7f, joints[0].orient[2] = 1.1f;
    joints[0].offset[0] = 1, joints[0].offset[1] = 2, joints[0].offset[2] = -4;
    const uint32_t order[] = {0};
    mn_voxel_rig rig = rig_of(parts, 1, order, joints, 2);
    double m[12];
    float want[16];
    mn_voxel_mount_affine(&rig, 0, m);
    mount(want, joints[0].orient, joints[0].offset, parts[0].pivot);
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 3; r++)
            assert_float_near(m[c * 3 + r], want[c * 4 + r], 1e-5);
    /* No mount: the identity.  Out of range: nothing written. */
    mn_voxel_mount_affine(&rig, 1, m);
    static const double id[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    assert_memory_equal(m, id, sizeof id);
    m[0] = 42;
    mn_voxel_mount_affine(&rig, 2, m);
    mn_voxel_mount_affine(NULL, 0, m);
    assert_true(m[0] == 42);
}

/* The voxel_arm rig read, and a copy of it with nothing resolved (as if built by hand). */
typedef struct unresolved_copy {
    mn_voxel_rig rig;
    mn_voxel_joint joints[8];
    mn_voxel_animation anims[4];
} unresolved_copy;

static void unresolve(const mn_voxel_rig *read, unresolved_copy *u)
{
    assert_true(read->joint_count <= 8 && read->animation_count <= 4);
    u->rig = *read;
    u->rig.priv_ = NULL;
    memcpy(u->joints, read->joints, read->joint_count * sizeof *u->joints);
    memcpy(u->anims, read->animations, read->animation_count * sizeof *u->anims);
    for (uint32_t j = 0; j < read->joint_count; j++)
        u->joints[j].mount_affine = NULL;
    for (uint32_t a = 0; a < read->animation_count; a++)
        u->anims[a].resolved = NULL;
    u->rig.joints = u->joints;
    u->rig.animations = u->anims;
}

static void a_rig_read_poses_as_without_what_it_resolved_and_baked(void **state)
{
    (void)state;
    mn_voxel_rig *read = NULL;
    mn_error err;
    assert_int_equal(mn_voxel_rig_read_file("tests/data/voxel_arm/rig.json", NULL, &read, &err),
                     MN_OK);
    /* The reader resolved the mount and every curve with a bezier key (idle's one track). */
    uint32_t tip = mn_voxel_rig_find_joint(read, "tip_mount");
    assert_non_null(read->joints[tip].mount_affine);
    assert_null(read->joints[mn_voxel_rig_find_joint(read, "turn")].mount_affine);
    uint32_t idle = mn_voxel_rig_find_animation(read, "idle");
    uint32_t wave = mn_voxel_rig_find_animation(read, "wave");
    assert_non_null(read->animations[idle].resolved);
    assert_non_null(read->animations[idle].resolved[0]);
    assert_non_null(read->animations[wave].resolved);
    assert_null(read->animations[wave].resolved[0]);   /* linear and constant: nothing to do */

    unresolved_copy u;
    unresolve(read, &u);
    float caller[8], a[16 * 8], b[16 * 8], va[8], vb[8];
    for (uint32_t j = 0; j < read->joint_count; j++)
        caller[j] = j % 2 ? NAN : 0.25f * (float)j - 0.3f;
    /* Driven by the caller alone, the resolved mounts give the very same bits. */
    mn_voxel_pose_input still = {.caller = caller};
    assert_int_equal(mn_voxel_pose(read, &still, a, va), MN_OK);
    assert_int_equal(mn_voxel_pose(&u.rig, &still, b, vb), MN_OK);
    assert_memory_equal(a, b, 16 * read->part_count * sizeof *a);
    assert_memory_equal(va, vb, read->joint_count * sizeof *va);
    /* Animated, the read rig samples its baked curves: within the bake's tolerance of
       the curves' value range (plus the float value's rounding), and the worlds within
       1e-5 (short arithmetic on values that close). */
    double range = 0;
    for (uint32_t n = 0; n < read->animation_count; n++)
        for (uint32_t k = 0; k < read->animations[n].track_count; k++) {
            const mn_fcurve *c = &read->animations[n].tracks[k].curve;
            double lo = c->keys[0].v, hi = lo;
            for (uint32_t i = 0; i < c->key_count; i++) {   /* keys and handle values */
                const mn_fcurve_key *kk = &c->keys[i];
                double l = kk->has_handle_left ? kk->handle_left[1] : 0;
                double r = kk->has_handle_right ? kk->handle_right[1] : 0;
                lo = fmin(lo, kk->v + fmin(0, fmin(l, r)));
                hi = fmax(hi, kk->v + fmax(0, fmax(l, r)));
            }
            range = fmax(range, hi - lo);
        }
    const uint32_t both[] = {idle, wave}, wave_idle[] = {wave, idle};
    for (int order = 0; order < 2; order++) {
        for (double t = -1500; t <= 5000; t += 12.5) {
            mn_voxel_pose_input in = {.caller = caller, .animations = order ? wave_idle : both,
                                      .animation_count = 2, .time_ms = t};
            assert_int_equal(mn_voxel_pose(read, &in, a, va), MN_OK);
            assert_int_equal(mn_voxel_pose(&u.rig, &in, b, vb), MN_OK);
            assert_vec_near(a, b, 16 * read->part_count, 1e-5);
            for (uint32_t j = 0; j < read->joint_count; j++)
                assert_float_near(va[j], vb[j],
                                  FCURVE_BAKE_TOLERANCE * range + 2 * FLT_EPSILON * fabs(vb[j]));
        }
    }
    mn_voxel_rig_free(read);
}

static void overlaying_backwards_gives_what_overlaying_in_order_gives(void **state)
{
    (void)state;
    /* Three animations, one listed twice: posing samples each joint's winner only; the
       values must be those of sampling every animation in order over the caller. */
    anim_rig a;
    anim_rig_make(&a);
    const uint32_t play[] = {1, 0, 1, 0};
    float caller[3] = {NAN, 0.5f, NAN}, worlds[16], values[3];
    for (double t = 0; t <= 1000; t += 125) {
        for (uint32_t n = 1; n <= 4; n++) {
            float want[3] = {0, 0.5f, 0};   /* rest 0 for joints 0 and 2 */
            for (uint32_t k = 0; k < n; k++)
                mn_voxel_sample_animation(&a.rig, play[k], t, want);
            for (uint32_t j = 0; j < 3; j++)
                want[j] = fminf(fmaxf(want[j], a.joints[j].min), a.joints[j].max);
            mn_voxel_pose_input in = {.caller = caller, .animations = play, .animation_count = n,
                                      .time_ms = t};
            assert_int_equal(mn_voxel_pose(&a.rig, &in, worlds, values), MN_OK);
            assert_memory_equal(values, want, sizeof want);
        }
    }
}

/* ---- skinning matrices ------------------------------------------------------------------------ */

static void skinning_matrices_are_part_worlds_and_unmatched_bones_hold_bind(void **state)
{
    (void)state;
    const uint32_t j0[] = {0}, j1[] = {1};
    mn_voxel_part parts[] = {part("body", MN_NONE, 8, 6, 8, j0, 1),
                             part("head", 0, 8, 12, 8, j1, 1)};
    mn_voxel_joint joints[] = {joint("lean", 0, MN_VOXEL_ROTATION, 1, 0, 0, -1, 1, 0),
                               joint("yaw", 1, MN_VOXEL_ROTATION, 0, 1, 0, -1, 1, 0)};
    const uint32_t order[] = {0, 1};
    mn_voxel_rig rig = rig_of(parts, 2, order, joints, 2);
    float caller[2] = {0.3f, -0.6f}, worlds[32];
    mn_voxel_pose_input in = {.caller = caller};
    assert_int_equal(mn_voxel_pose(&rig, &in, worlds, NULL), MN_OK);

    /* Bones in their own order: head, a bone with no part, body; inverse bind T(-pivot). */
    const char *names[] = {"head", "tail", "body"};
    float ibm[48];
    translation(&ibm[0], -8, -12, -8);
    translation(&ibm[16], -1, -2, -3);
    translation(&ibm[32], -8, -6, -8);
    mn_part_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.bone_count = 3;
    mesh.bone_names = names;
    mesh.inverse_bind = ibm;
    /* The bones' parts, as mn_voxel_bone_parts finds them on a rig that was read. */
    const uint32_t bone_parts[3] = {1, MN_NONE, 0};

    float out[48], out_by_name[48];
    mn_voxel_skinning_matrices(&rig, &mesh, bone_parts, worlds, out);
    assert_vec_near(&out[0], &worlds[16], 16, 1e-5);
    assert_vec_near(&out[16], identity, 16, 0);
    assert_vec_near(&out[32], &worlds[0], 16, 1e-5);
    mn_voxel_skinning_matrices(&rig, &mesh, NULL, worlds, out_by_name);
    assert_vec_near(out_by_name, out, 48, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rest_gives_identity_worlds),
        cmocka_unit_test(the_rest_pose_is_every_joint_at_its_rest),
        cmocka_unit_test(a_rotation_joint_turns_vertices_about_the_pivot_by_the_angle),
        cmocka_unit_test(rotation_about_y_matches_three_js_make_rotation_axis),
        cmocka_unit_test(a_translation_joint_moves_along_its_axis),
        cmocka_unit_test(a_mount_with_an_empty_range_is_a_static_attachment),
        cmocka_unit_test(a_mount_applies_after_the_driven_motion),
        cmocka_unit_test(joints_of_a_part_compose_in_declared_order),
        cmocka_unit_test(values_are_clamped_to_the_range),
        cmocka_unit_test(parents_listed_after_children),
        cmocka_unit_test(a_cycle_without_part_order_is_a_hierarchy_error),
        cmocka_unit_test(sample_animation_writes_only_the_joints_it_drives),
        cmocka_unit_test(animations_overlay_in_order_over_the_caller),
        cmocka_unit_test(an_animation_index_out_of_range_is_refused),
        cmocka_unit_test(a_rig_with_many_joints_poses_the_same_without_out_values),
        cmocka_unit_test(mount_affine_is_the_mount_of_the_formula),
        cmocka_unit_test(a_rig_read_poses_as_without_what_it_resolved_and_baked),
        cmocka_unit_test(overlaying_backwards_gives_what_overlaying_in_order_gives),
        cmocka_unit_test(skinning_matrices_are_part_worlds_and_unmatched_bones_hold_bind),
        cmocka_unit_test(posing_matches_the_formula_in_double_within_a_millionth_of_the_size),
        cmocka_unit_test(a_rotation_at_any_angle_is_the_exact_rotation),
        cmocka_unit_test(sines_taken_joint_by_joint_are_the_batched_ones),
        cmocka_unit_test(a_read_rig_poses_joint_by_joint_as_in_its_batch),
        cmocka_unit_test(the_avx2_kernel_stays_within_float_roundings_of_the_portable_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
