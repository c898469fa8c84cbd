/*
 * The voxel rig controller (src/voxel/controller.c, marionette/voxel/controller.h): auto-play
 * animations playing from creation; playing, stopping and replacing an
 * animation; a one-shot ending; an animation overlaying only the joints it
 * drives and winning over auto-play; seek; caller values clamped, unset by
 * NaN, refused for unknown names; joint_names and joint_range; the outputs
 * agreeing with mn_voxel_pose; zero allocations while driving and every
 * out-of-memory path of creation; a hand-built skinned mesh skinned by the
 * part worlds; and loading a model's folder (rig.json and GLB meshes written
 * here byte by byte).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/math.h>
#include <marionette/voxel/controller.h>

#include "assert_near.h"
#include "counting_alloc.h"
#include "glb_builder.h"
#include "files.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- a rig built by hand ----------------------------------------------------------------
 *
 *   body (root, pivot 0 0 0)    joint lean      rotation z, caller, [-1, 1]
 *     head (pivot 0 10 0)       joints neck_yaw rotation y, caller, [-0.8, 0.8]
 *                                      nod      rotation x, auto,   [-0.5, 0.5], rest 0.1
 *     tail (pivot 0 2 -3)       joint wag       rotation y, auto,   [-1, 1]
 *
 *   idle  loop, auto_play, 2000 ms: wag 0 → 1 at 1000 (closing back to 0 at 2000),
 *                                   neck_yaw 0 → 0.4 at 1000 (back to 0 at 2000)
 *   wave  one-shot, 500 ms:         neck_yaw 0.6 → -0.6 at 500, nod 0.3 constant
 *   spin  loop, 1000 ms:            lean 0 → 1 at 500, back to 0 at 1000
 */
enum { LEAN, NECK_YAW, NOD, WAG, JOINTS };
enum { BODY, HEAD, TAIL, PARTS };
enum { IDLE, WAVE, SPIN, ANIMS };

typedef struct test_rig {
    mn_fcurve_key idle_wag[2], idle_neck[2], wave_neck[2], wave_nod[1], spin_lean[2];
    mn_voxel_track idle_tracks[2], wave_tracks[2], spin_tracks[1];
    mn_voxel_animation anims[ANIMS];
    uint32_t body_joints[1], head_joints[2], tail_joints[1], order[PARTS];
    mn_voxel_part parts[PARTS];
    mn_voxel_joint joints[JOINTS];
    mn_voxel_rig rig;
} test_rig;

static mn_fcurve_key lin(double t, double v)
{
    mn_fcurve_key k;
    memset(&k, 0, sizeof k);
    k.t = t, k.v = v, k.interp = MN_FCURVE_LINEAR;
    return k;
}

static mn_voxel_joint make_joint(const char *name, uint32_t part, float ax, float ay, float az,
                                 float min, float max, float rest, mn_voxel_drive drive)
{
    mn_voxel_joint j;
    memset(&j, 0, sizeof j);
    j.name = name, j.part = part, j.type = MN_VOXEL_ROTATION;
    j.axis[0] = ax, j.axis[1] = ay, j.axis[2] = az;
    j.min = min, j.max = max, j.rest = rest, j.drive = drive;
    return j;
}

static mn_voxel_part make_part(const char *name, uint32_t parent, float px, float py, float pz,
                               const uint32_t *joints, uint32_t count)
{
    mn_voxel_part p;
    memset(&p, 0, sizeof p);
    p.name = name, p.parent = parent;
    p.pivot[0] = px, p.pivot[1] = py, p.pivot[2] = pz;
    p.joints = joints, p.joint_count = count;
    return p;
}

static void test_rig_make(test_rig *r)
{
    memset(r, 0, sizeof *r);
    r->idle_wag[0] = lin(0, 0), r->idle_wag[1] = lin(1000, 1);
    r->idle_neck[0] = lin(0, 0), r->idle_neck[1] = lin(1000, 0.4);
    r->wave_neck[0] = lin(0, 0.6), r->wave_neck[1] = lin(500, -0.6);
    r->wave_nod[0] = lin(0, 0.3);
    r->wave_nod[0].interp = MN_FCURVE_CONSTANT;
    r->spin_lean[0] = lin(0, 0), r->spin_lean[1] = lin(500, 1);
    r->idle_tracks[0] = (mn_voxel_track){WAG, {r->idle_wag, 2, true, 2000}};
    r->idle_tracks[1] = (mn_voxel_track){NECK_YAW, {r->idle_neck, 2, true, 2000}};
    r->wave_tracks[0] = (mn_voxel_track){NECK_YAW, {r->wave_neck, 2, false, 500}};
    r->wave_tracks[1] = (mn_voxel_track){NOD, {r->wave_nod, 1, false, 500}};
    r->spin_tracks[0] = (mn_voxel_track){LEAN, {r->spin_lean, 2, true, 1000}};
    r->anims[IDLE] = (mn_voxel_animation){.name = "idle", .loop = true, .auto_play = true,
                                          .duration_ms = 2000, .tracks = r->idle_tracks,
                                          .track_count = 2};
    r->anims[WAVE] = (mn_voxel_animation){.name = "wave", .duration_ms = 500,
                                          .tracks = r->wave_tracks, .track_count = 2};
    r->anims[SPIN] = (mn_voxel_animation){.name = "spin", .loop = true, .duration_ms = 1000,
                                          .tracks = r->spin_tracks, .track_count = 1};
    r->joints[LEAN] = make_joint("lean", BODY, 0, 0, 1, -1, 1, 0, MN_VOXEL_DRIVE_CALLER);
    r->joints[NECK_YAW] =
        make_joint("neck_yaw", HEAD, 0, 1, 0, -0.8f, 0.8f, 0, MN_VOXEL_DRIVE_CALLER);
    r->joints[NOD] = make_joint("nod", HEAD, 1, 0, 0, -0.5f, 0.5f, 0.1f, MN_VOXEL_DRIVE_AUTO);
    r->joints[WAG] = make_joint("wag", TAIL, 0, 1, 0, -1, 1, 0, MN_VOXEL_DRIVE_AUTO);
    r->body_joints[0] = LEAN;
    r->head_joints[0] = NECK_YAW, r->head_joints[1] = NOD;
    r->tail_joints[0] = WAG;
    r->parts[BODY] = make_part("body", MN_NONE, 0, 0, 0, r->body_joints, 1);
    r->parts[HEAD] = make_part("head", BODY, 0, 10, 0, r->head_joints, 2);
    r->parts[TAIL] = make_part("tail", BODY, 0, 2, -3, r->tail_joints, 1);
    for (uint32_t p = 0; p < PARTS; p++)
        r->order[p] = p;
    r->rig.voxel_size = 1;
    r->rig.parts = r->parts, r->rig.part_count = PARTS, r->rig.part_order = r->order;
    r->rig.joints = r->joints, r->rig.joint_count = JOINTS;
    r->rig.animations = r->anims, r->rig.animation_count = ANIMS;
}

static mn_voxel_controller *make_controller(const mn_voxel_rig *rig, const mn_part_mesh *mesh)
{
    mn_voxel_controller *c = NULL;
    mn_error err;
    mn_voxel_controller_desc desc = {.rig = rig, .mesh = mesh};
    if (mn_voxel_controller_create(&desc, &c, &err) != MN_OK)
        fail_msg("mn_voxel_controller_create: %s", err.message);
    return c;
}

static float value_of(mn_voxel_controller *c, uint32_t joint)
{
    return mn_voxel_controller_joint_values(c)[joint];
}

/* ---- animations ------------------------------------------------------------------------- */

static void auto_play_animations_play_from_creation(void **state)
{
    (void)state;
    test_rig r;
    test_rig_make(&r);
    mn_voxel_controller *c = make_controller(&r.rig, NULL);
    assert_null(mn_voxel_controller_playing(c));
    assert_float_near(value_of(c, WAG), 0, 0);
    assert_float_near(value_of(c, NOD), 0.1, 1e-7);   /* no animation drives it: rest */
    mn_voxel_controller_update(c, 0.5);
    assert_float_near(value_of(c, WAG), 0.5, 1e-6);
    assert_float_near(value_of(c, NECK_YAW), 0.2, 1e-6);
    mn_voxel_controller_update(c, 1.0);               /* 1500 ms: the closing segment */
    assert_float_near(value_of(c, WAG), 0.5, 1e-6);
    mn_voxel_controller_update(c, 1.0);               /* 2500 ms: wrapped */
    assert_float_near(value_of(c, WAG), 0.5, 1e-6);
    assert_float_near(mn_voxel_controller_time_ms(c), 2500, 1e-9);
    mn_voxel_controller_free(c);
}

static void a_played_animation_overlays_only_its_joints_and_wins(void **state)
{
    (void)state;
    test_rig r;
    test_rig_make(&r);
    mn_voxel_controller *c = make_controller(&r.rig, NULL);
    mn_voxel_joint_value caller[] = {{"lean", 0.25f}, {"neck_yaw", -0.1f}};
    assert_int_equal(mn_voxel_controller_pose(c, caller, 2), MN_OK);
    mn_voxel_controller_update(c, 0.25);              /* idle at 250 */
    assert_float_near(value_of(c, NECK_YAW), 0.1, 1e-6);   /* idle beats the caller */
    assert_float_near(value_of(c, LEAN), 0.25, 0);

    assert_int_equal(mn_voxel_controller_play_animation(c, "wave"), MN_OK);
    assert_string_equal(mn_voxel_controller_playing(c), "wave");
    assert_float_near(value_of(c, NECK_YAW), 0.6, 1e-6);   /* wave, at its own 0, beats idle */
    assert_float_near(value_of(c, NOD), 0.3, 1e-6);
    assert_float_near(value_of(c, WAG), 0.25, 1e-6);       /* idle keeps its clock */
    assert_float_near(value_of(c, LEAN), 0.25, 0);         /* neither drives it */
    mn_voxel_controller_update(c, 0.25);
    assert_float_near(value_of(c, NECK_YAW), 0.0, 1e-6);
    assert_float_near(value_of(c, WAG), 0.5, 1e-6);
    mn_voxel_controller_free(c);
}

static void a_one_shot_ends_and_its_joints_fall_back(void **state)
{
    (void)state;
    test_rig r;
    test_rig_make(&r);
    mn_voxel_controller *c = make_controller(&r.rig, NULL);
    assert_int_equal(mn_voxel_controller_play_animation(c, "wave"), MN_OK);
    mn_voxel_controller_update(c, 0.4);
    assert_string_equal(mn_voxel_controller_playing(c), "wave");
    assert_float_near(value_of(c, NOD), 0.3, 1e-6);
    mn_voxel_controller_update(c, 0.1);               /* 500 ms: the one-shot is over */
    assert_null(mn_voxel_controller_playing(c));
    assert_float_near(value_of(c, NOD), 0.1, 1e-7);          /* rest again */
    assert_float_near(value_of(c, NECK_YAW), 0.2, 1e-6);      /* idle at 500 */
    assert_float_near(mn_voxel_controller_time_ms(c), 500, 1e-9);
    mn_voxel_controller_free(c);
}

static void play_replaces_and_null_stops(void **state)
{
    (void)state;
    test_rig r;
    test_rig_make(&r);
    mn_voxel_controller *c = make_controller(&r.rig, NULL);
    mn_voxel_joint_value lean[] = {{"lean", -0.5f}};
    assert_int_equal(mn_voxel_controller_pose(c, lean, 1), MN_OK);
    assert_int_equal(mn_voxel_controller_play_animation(c, "wave"), MN_OK);
    mn_voxel_controller_update(c, 0.1);
    assert_int_equal(mn_voxel_controller_play_animation(c, "spin"), MN_OK);  /* from its start */
    assert_string_equal(mn_voxel_controller_playing(c), "spin");
    assert_float_near(value_of(c, LEAN), 0, 0);
    assert_float_near(value_of(c, NOD), 0.1, 1e-7);          /* wave no longer plays */
    mn_voxel_controller_update(c, 0.25);
    assert_float_near(value_of(c, LEAN), 0.5, 1e-6);
    mn_voxel_controller_update(c, 10.0);              /* a loop never ends */
    assert_string_equal(mn_voxel_controller_playing(c), "spin");
    assert_int_equal(mn_voxel_controller_play_animation(c, NULL), MN_OK);
    assert_null(mn_voxel_controller_playing(c));
    assert_float_near(value_of(c, LEAN), -0.5, 0);            /* the caller's again */
    /* An unknown name changes nothing. */
    assert_int_equal(mn_voxel_controller_play_animation(c, "spin"), MN_OK);
    assert_int_equal(mn_voxel_controller_play_animation(c, "dance"), MN_INVALID_VALUE);
    assert_string_equal(mn_voxel_controller_playing(c), "spin");
    mn_voxel_controller_free(c);
}

static void seek_sets_both_clocks(void **state)
{
    (void)state;
    test_rig r;
    test_rig_make(&r);
    mn_voxel_controller *c = make_controller(&r.rig, NULL);
    assert_int_equal(mn_voxel_controller_play_animation(c, "spin"), MN_OK);
    mn_voxel_controller_seek(c, 1750);
    assert_float_near(mn_voxel_controller_time_ms(c), 1750, 0);
    assert_float_near(value_of(c, WAG), 0.25, 1e-6);   /* idle at 1750 */
    assert_float_near(value_of(c, LEAN), 0.5, 1e-6);   /* spin at 750 of its 1000 ms loop */
    mn_voxel_controller_seek(c, -250);                 /* a loop takes any time */
    assert_float_near(value_of(c, WAG), 0.25, 1e-6);
    /* Seeking a one-shot past its end shows its last frame; the next update ends it. */
    assert_int_equal(mn_voxel_controller_play_animation(c, "wave"), MN_OK);
    mn_voxel_controller_seek(c, 900);
    assert_string_equal(mn_voxel_controller_playing(c), "wave");
    assert_float_near(value_of(c, NECK_YAW), -0.6, 1e-6);
    mn_voxel_controller_update(c, 0);
    assert_null(mn_voxel_controller_playing(c));
    mn_voxel_controller_seek(c, NAN);
    assert_float_near(mn_voxel_controller_time_ms(c), 0, 0);
    mn_voxel_controller_free(c);
}

/* ---- caller values and the interface ----------------------------------------------------- */

static void pose_clamps_unsets_and_refuses_unknown_names(void **state)
{
    (void)state;
    test_rig r;
    test_rig_make(&r);
    mn_voxel_controller *c = make_controller(&r.rig, NULL);
    mn_voxel_joint_value v[] = {{"lean", 5}, {"nod", -3}};
    assert_int_equal(mn_voxel_controller_pose(c, v, 2), MN_OK);
    assert_float_near(value_of(c, LEAN), 1, 0);
    assert_float_near(value_of(c, NOD), -0.5, 0);      /* a caller may set an auto joint */
    mn_voxel_joint_value bad[] = {{"lean", 0.1f}, {"elbow", 0.2f}};
    assert_int_equal(mn_voxel_controller_pose(c, bad, 2), MN_INVALID_VALUE);
    assert_float_near(value_of(c, LEAN), 1, 0);        /* all or nothing */
    mn_voxel_joint_value unset[] = {{"nod", NAN}};
    assert_int_equal(mn_voxel_controller_pose(c, unset, 1), MN_OK);
    assert_float_near(value_of(c, NOD), 0.1, 1e-7);
    assert_int_equal(mn_voxel_controller_set_joint(c, LEAN, -7), MN_OK);
    assert_float_near(value_of(c, LEAN), -1, 0);
    assert_int_equal(mn_voxel_controller_set_joint(c, JOINTS, 0), MN_INDEX_RANGE);
    assert_int_equal(mn_voxel_controller_pose(c, NULL, 1), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_voxel_controller_pose(c, NULL, 0), MN_OK);
    mn_voxel_controller_reset_pose(c);
    assert_float_near(value_of(c, LEAN), 0, 0);
    mn_voxel_controller_free(c);
}

static void joint_names_and_ranges(void **state)
{
    (void)state;
    test_rig r;
    test_rig_make(&r);
    mn_voxel_controller *c = make_controller(&r.rig, NULL);
    const char *names[4] = {NULL, NULL, NULL, NULL};
    assert_int_equal(mn_voxel_controller_joint_names(c, MN_VOXEL_DRIVE_CALLER, NULL, 0), 2);
    assert_int_equal(mn_voxel_controller_joint_names(c, MN_VOXEL_DRIVE_CALLER, names, 4), 2);
    assert_string_equal(names[0], "lean");
    assert_string_equal(names[1], "neck_yaw");
    assert_null(names[2]);
    assert_int_equal(mn_voxel_controller_joint_names(c, MN_VOXEL_DRIVE_AUTO, names, 1), 2);
    assert_string_equal(names[0], "nod");               /* capacity 1: only the first */
    assert_string_equal(names[1], "neck_yaw");
    mn_voxel_joint_range range;
    assert_int_equal(mn_voxel_controller_joint_range(c, "nod", &range), MN_OK);
    assert_true(range.min == -0.5f && range.max == 0.5f && range.rest == 0.1f);
    assert_int_equal(mn_voxel_controller_joint_range(c, "knee", &range), MN_INVALID_VALUE);
    assert_int_equal(mn_voxel_controller_joint_range(c, NULL, &range), MN_INVALID_VALUE);
    mn_voxel_controller_free(c);
}

static void outputs_agree_with_mn_voxel_pose(void **state)
{
    (void)state;
    test_rig r;
    test_rig_make(&r);
    mn_voxel_controller *c = make_controller(&r.rig, NULL);
    mn_voxel_joint_value v[] = {{"lean", 0.3f}, {"neck_yaw", 0.5f}};
    assert_int_equal(mn_voxel_controller_pose(c, v, 2), MN_OK);
    assert_int_equal(mn_voxel_controller_play_animation(c, "spin"), MN_OK);
    mn_voxel_controller_seek(c, 700);   /* both clocks at 700: one pose input says the same */
    float caller[JOINTS] = {0.3f, 0.5f, NAN, NAN}, worlds[16 * PARTS], values[JOINTS];
    const uint32_t anims[] = {IDLE, SPIN};
    mn_voxel_pose_input in = {.caller = caller, .animations = anims, .animation_count = 2,
                              .time_ms = 700};
    assert_int_equal(mn_voxel_pose(&r.rig, &in, worlds, values), MN_OK);
    assert_vec_near(mn_voxel_controller_part_worlds(c), worlds, 16 * PARTS, 0);
    assert_vec_near(mn_voxel_controller_joint_values(c), values, JOINTS, 0);
    /* And the head really turned: its world is not the identity. */
    assert_true(fabsf(worlds[16 * HEAD + 0] - 1.0f) > 1e-3f);
    mn_voxel_controller_free(c);
}

/* ---- memory -------------------------------------------------------------------------------- */

static void driving_allocates_nothing_and_free_returns_everything(void **state)
{
    (void)state;
    test_rig r;
    test_rig_make(&r);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_voxel_controller_desc desc = {.rig = &r.rig, .allocator = mn_counting_allocator(&counter)};
    mn_voxel_controller *c = NULL;
    assert_int_equal(mn_voxel_controller_create(&desc, &c, NULL), MN_OK);
    size_t allocs = counter.allocs;
    const char *names[4];
    mn_voxel_joint_range range;
    for (int frame = 0; frame < 200; frame++) {
        mn_voxel_joint_value v[] = {{"lean", 0.01f * (float)frame}};
        assert_int_equal(mn_voxel_controller_pose(c, v, 1), MN_OK);
        mn_voxel_controller_set_joint(c, NECK_YAW, 0.2f);
        if (frame % 50 == 0)
            mn_voxel_controller_play_animation(c, frame % 100 ? "wave" : "spin");
        if (frame % 70 == 0)
            mn_voxel_controller_seek(c, 10.0 * frame);
        mn_voxel_controller_update(c, 1.0 / 60.0);
        assert_non_null(mn_voxel_controller_part_worlds(c));
        assert_non_null(mn_voxel_controller_joint_values(c));
        mn_voxel_controller_joint_names(c, MN_VOXEL_DRIVE_CALLER, names, 4);
        mn_voxel_controller_joint_range(c, "wag", &range);
    }
    assert_int_equal(counter.allocs, allocs);
    mn_voxel_controller_free(c);
    assert_int_equal(counter.live_bytes, 0);
}

static void creation_fails_cleanly_without_memory(void **state)
{
    (void)state;
    test_rig r;
    test_rig_make(&r);
    mn_counting_alloc counter = mn_counting_alloc_make();
    counter.fail_after = 0;
    mn_voxel_controller_desc desc = {.rig = &r.rig, .allocator = mn_counting_allocator(&counter)};
    mn_voxel_controller *c = (mn_voxel_controller *)&counter;   /* must be reset to NULL */
    mn_error err;
    assert_int_equal(mn_voxel_controller_create(&desc, &c, &err), MN_OUT_OF_MEMORY);
    assert_null(c);
    assert_int_equal(err.code, MN_OUT_OF_MEMORY);
    assert_int_equal(counter.live_bytes, 0);
    assert_int_equal(mn_voxel_controller_create(NULL, &c, NULL), MN_INVALID_ARGUMENT);
    mn_voxel_controller_free(NULL);
}

/* ---- a skinned mesh ----------------------------------------------------------------------------- */

/*
 * Four vertices on the rig's bones, listed in the mesh's own bone order
 * (head, a bone no part is named after, body); inverse binds T(-pivot).
 *   v0: head alone; v1: body alone; v2: half head, half body; v3: the stray bone.
 */
typedef struct skinned_mesh {
    float positions[12], normals[12], colors[12], ibm[48], weights[16];
    uint16_t joints[16];
    uint32_t indices[3];
    const char *bones[3];
    mn_part_mesh mesh;
} skinned_mesh;

static void translation(float out[16], float x, float y, float z)
{
    mn_mat4_identity(out);
    out[12] = x, out[13] = y, out[14] = z;
}

static void skinned_mesh_make(skinned_mesh *s)
{
    memset(s, 0, sizeof *s);
    const float pos[12] = {1, 12, 0, 2, 1, 0, 0, 10, 2, 5, 5, 5};
    memcpy(s->positions, pos, sizeof pos);
    for (int v = 0; v < 4; v++)
        s->normals[v * 3 + 2] = 1, s->colors[v * 3] = s->colors[v * 3 + 1] = s->colors[v * 3 + 2] = 1;
    const uint16_t joints[16] = {0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 1, 0, 0, 0};
    const float weights[16] = {1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0};
    memcpy(s->joints, joints, sizeof joints);
    memcpy(s->weights, weights, sizeof weights);
    translation(&s->ibm[0], 0, -10, 0);
    translation(&s->ibm[16], 0, 0, 0);
    translation(&s->ibm[32], 0, 0, 0);
    s->bones[0] = "head", s->bones[1] = "stray", s->bones[2] = "body";
    s->indices[0] = 0, s->indices[1] = 1, s->indices[2] = 2;
    s->mesh.vertex_count = 4;
    s->mesh.positions = s->positions, s->mesh.normals = s->normals, s->mesh.colors = s->colors;
    s->mesh.index_count = 3, s->mesh.indices = s->indices;
    s->mesh.bone_count = 3, s->mesh.bone_names = s->bones, s->mesh.inverse_bind = s->ibm;
    s->mesh.joints = s->joints, s->mesh.weights = s->weights;
}

static void skinned_vertices_follow_the_part_worlds(void **state)
{
    (void)state;
    test_rig r;
    test_rig_make(&r);
    skinned_mesh s;
    skinned_mesh_make(&s);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_voxel_controller_desc desc = {.rig = &r.rig, .mesh = &s.mesh,
                                     .allocator = mn_counting_allocator(&counter)};
    mn_voxel_controller *c = NULL;
    assert_int_equal(mn_voxel_controller_create(&desc, &c, NULL), MN_OK);
    assert_int_equal(mn_voxel_controller_vertex_count(c), 4);
    mn_voxel_joint_value v[] = {{"lean", 0.4f}, {"neck_yaw", 0.7f}};
    size_t allocs = counter.allocs;
    assert_int_equal(mn_voxel_controller_pose(c, v, 2), MN_OK);
    mn_voxel_controller_seek(c, 1000);   /* idle: neck_yaw 0.4 beats the caller's 0.7 */
    const float *pos = mn_voxel_controller_positions(c);
    const float *nrm = mn_voxel_controller_normals(c);
    const float *w = mn_voxel_controller_part_worlds(c);
    assert_int_equal(counter.allocs, allocs);
    float want[3], a[3], b[3], n[3];
    mn_mat4_transform_point(want, &w[16 * HEAD], &s.positions[0]);
    assert_vec_near(&pos[0], want, 3, 1e-5);
    mn_mat4_transform_point(want, &w[16 * BODY], &s.positions[3]);
    assert_vec_near(&pos[3], want, 3, 1e-5);
    mn_mat4_transform_point(a, &w[16 * HEAD], &s.positions[6]);
    mn_mat4_transform_point(b, &w[16 * BODY], &s.positions[6]);
    for (int i = 0; i < 3; i++)
        want[i] = 0.5f * (a[i] + b[i]);
    assert_vec_near(&pos[6], want, 3, 1e-5);
    assert_vec_near(&pos[9], &s.positions[9], 3, 1e-6);   /* the stray bone holds its bind */
    mn_mat4_transform_dir(n, &w[16 * HEAD], &s.normals[0]);
    assert_vec_near(&nrm[0], n, 3, 1e-5);
    assert_vec_near(&nrm[9], &s.normals[9], 3, 1e-6);
    /* The body leaned: v1 really moved. */
    assert_true(fabsf(pos[3] - s.positions[3]) > 0.1f);
    mn_voxel_controller_free(c);
    assert_int_equal(counter.live_bytes, 0);
}

static void a_skinned_mesh_with_a_bad_joint_index_is_refused(void **state)
{
    (void)state;
    test_rig r;
    test_rig_make(&r);
    skinned_mesh s;
    skinned_mesh_make(&s);
    s.joints[5] = 3;   /* vertex 1's second influence: only 3 bones */
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_voxel_controller_desc desc = {.rig = &r.rig, .mesh = &s.mesh,
                                     .allocator = mn_counting_allocator(&counter)};
    mn_voxel_controller *c = NULL;
    mn_error err;
    assert_int_equal(mn_voxel_controller_create(&desc, &c, &err), MN_INDEX_RANGE);
    assert_null(c);
    assert_int_equal(counter.live_bytes, 0);
}

static void a_static_mesh_is_output_as_read(void **state)
{
    (void)state;
    test_rig r;
    test_rig_make(&r);
    skinned_mesh s;
    skinned_mesh_make(&s);
    s.mesh.bone_count = 0;
    mn_voxel_controller *c = make_controller(&r.rig, &s.mesh);
    assert_ptr_equal(mn_voxel_controller_positions(c), s.positions);
    assert_ptr_equal(mn_voxel_controller_normals(c), s.normals);
    assert_ptr_equal(mn_voxel_controller_mesh(c), &s.mesh);
    assert_null(mn_voxel_controller_part_mesh(c, 0));
    mn_voxel_controller_free(c);
}

/* ---- loading a model's folder --------------------------------------------------------------- */

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

/* A GLB of one triangle with COLOR_0 (a part), or of one empty node (a socket). */
static void write_part_glb(const char *path, bool socket, float x)
{
    gb_builder b;
    gb_init(&b);
    if (socket) {
        gb_json(&b, "{'asset':{'version':'2.0'},'scene':0,'scenes':[{'nodes':[0]}],"
                    "'nodes':[{'name':'socket'}]}");
    } else {
        size_t pos = gb_bin_f32(&b, x, 0, 0, x + 1, 0, 0, x, 1, 0);
        size_t col = gb_bin_f32(&b, 1, 0, 0, 0, 1, 0, 0, 0, 1);
        size_t idx = gb_bin_u16(&b, 0, 1, 2);
        gb_bin_align(&b, 4);
        gb_json(&b,
                "{'asset':{'version':'2.0'},'scene':0,'scenes':[{'nodes':[0]}],"
                "'nodes':[{'mesh':0}],'meshes':[{'primitives':[{'attributes':"
                "{'POSITION':0,'COLOR_0':1},'indices':2}]}],"
                "'buffers':[{'byteLength':%zu}],'bufferViews':["
                "{'buffer':0,'byteOffset':%zu,'byteLength':36},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':36},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':6}],'accessors':["
                "{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3',"
                "'min':[%g,0,0],'max':[%g,1,0]},"
                "{'bufferView':1,'componentType':5126,'count':3,'type':'VEC3'},"
                "{'bufferView':2,'componentType':5123,'count':3,'type':'SCALAR'}]}",
                gb_bin_size(&b), pos, col, idx, (double)x, (double)x + 1);
    }
    gb_blob glb = gb_glb(&b);
    write_file(path, glb.data, glb.size);
    gb_blob_free(&glb);
    gb_free(&b);
}

static const char rig_json[] =
    "{\"format\":\"voxel-rig\",\"version\":1,\"kind\":\"cube\",\"parts\":["
    "{\"name\":\"body\",\"parent\":null,\"pivot\":[0,0,0]},"
    "{\"name\":\"muzzle\",\"parent\":\"body\",\"pivot\":[1,1,0]}],"
    "\"joints\":[{\"name\":\"aim\",\"part\":\"muzzle\",\"type\":\"rotation\",\"axis\":\"z\","
    "\"min\":-1,\"max\":1,\"rest\":0,\"drive\":\"caller\"}],"
    "\"animations\":[{\"name\":\"idle\",\"loop\":true,\"auto_play\":true,\"duration_ms\":1000,"
    "\"tracks\":[{\"joint\":\"aim\",\"keys\":[{\"t\":0,\"v\":0,\"interp\":\"linear\"},"
    "{\"t\":500,\"v\":0.5,\"interp\":\"linear\"}]}]}]}";

typedef struct model_dir {
    char root[64], meshes[96], rig[96], body[128], muzzle[128];
} model_dir;

static void model_dir_make(model_dir *d)
{
    mn_test_make_temp_dir(d->root, sizeof d->root, "voxel");
    snprintf(d->meshes, sizeof d->meshes, "%s/meshes", d->root);
    snprintf(d->rig, sizeof d->rig, "%s/rig.json", d->root);
    snprintf(d->body, sizeof d->body, "%s/body.glb", d->meshes);
    snprintf(d->muzzle, sizeof d->muzzle, "%s/muzzle.glb", d->meshes);
    assert_int_equal(mkdir(d->meshes, 0700), 0);
    write_file(d->rig, rig_json, sizeof rig_json - 1);
    write_part_glb(d->body, false, 3);
    write_part_glb(d->muzzle, true, 0);
}

static void model_dir_remove(model_dir *d)
{
    unlink(d->body);
    unlink(d->muzzle);
    unlink(d->rig);
    rmdir(d->meshes);
    rmdir(d->root);
}

static void load_reads_the_rig_and_every_part_mesh(void **state)
{
    (void)state;
    model_dir d;
    model_dir_make(&d);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_voxel_controller_options options = {.allocator = mn_counting_allocator(&counter)};
    const char *paths[] = {d.root, d.rig};   /* the folder, or the rig.json in it */
    for (int i = 0; i < 2; i++) {
        mn_voxel_controller *c = NULL;
        mn_error err;
        if (mn_voxel_controller_load(paths[i], &options, &c, &err) != MN_OK)
            fail_msg("load %s: %s", paths[i], err.message);
        const mn_voxel_rig *rig = mn_voxel_controller_rig(c);
        assert_int_equal(rig->part_count, 2);
        const mn_part_mesh *body = mn_voxel_controller_part_mesh(c, 0);
        const mn_part_mesh *muzzle = mn_voxel_controller_part_mesh(c, 1);
        assert_non_null(body);
        assert_non_null(muzzle);
        assert_int_equal(body->vertex_count, 3);
        assert_float_near(body->positions[0], 3, 0);
        assert_int_equal(muzzle->vertex_count, 0);   /* a socket */
        mn_voxel_controller_update(c, 0.25);
        assert_float_near(mn_voxel_controller_joint_values(c)[0], 0.25, 1e-6);
        mn_voxel_controller_free(c);
    }
    assert_int_equal(counter.live_bytes, 0);
    model_dir_remove(&d);
}

static void load_fails_on_a_missing_part_file_and_frees_everything(void **state)
{
    (void)state;
    model_dir d;
    model_dir_make(&d);
    unlink(d.muzzle);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_voxel_controller_options options = {.allocator = mn_counting_allocator(&counter)};
    mn_voxel_controller *c = NULL;
    mn_error err;
    assert_int_equal(mn_voxel_controller_load(d.root, &options, &c, &err), MN_IO);
    assert_null(c);
    assert_non_null(strstr(err.message, "muzzle.glb"));
    assert_int_equal(counter.live_bytes, 0);
    /* Every allocation failing in turn leaves nothing behind either. */
    write_part_glb(d.muzzle, true, 0);
    for (long n = 0;; n++) {
        counter = mn_counting_alloc_make();
        counter.fail_after = n;
        mn_status st = mn_voxel_controller_load(d.root, &options, &c, &err);
        if (st == MN_OK) {
            mn_voxel_controller_free(c);
            assert_int_equal(counter.live_bytes, 0);
            break;
        }
        assert_int_equal(st, MN_OUT_OF_MEMORY);
        assert_null(c);
        assert_int_equal(counter.live_bytes, 0);
        assert_true(n < 10000);
    }
    model_dir_remove(&d);
}

/*
 * A skinned model's folder: rig.json of kind mc-skinned (body, and head above
 * it at pivot 0 10 0, turned by "neck" about z) and mesh.glb with a skin whose
 * joints are nodes named after the parts, bound in the sculpted pose (rest
 * transforms T(pivot) relative to the parent, inverse binds T(-pivot)).
 * Vertices: (1,0,0) on body, (0,12,0) on head, (0,11,0) half on each.
 */
static void write_skinned_glb(const char *path)
{
    gb_builder b;
    gb_init(&b);
    size_t pos = gb_bin_f32(&b, 1, 0, 0, 0, 12, 0, 0, 11, 0);
    size_t jnt = gb_bin_u16(&b, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0);
    size_t wgt = gb_bin_f32(&b, 1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0);
    size_t idx = gb_bin_u16(&b, 0, 1, 2);
    gb_bin_align(&b, 4);
    size_t ibm = gb_bin_f32(&b, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                            1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -10, 0, 1);
    gb_json(&b,
            "{'asset':{'version':'2.0'},'scene':0,'scenes':[{'nodes':[0,2]}],"
            "'nodes':[{'name':'body','children':[1]},{'name':'head','translation':[0,10,0]},"
            "{'name':'skin','mesh':0,'skin':0}],"
            "'skins':[{'joints':[0,1],'inverseBindMatrices':4}],"
            "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'JOINTS_0':1,'WEIGHTS_0':2},"
            "'indices':3}]}],"
            "'buffers':[{'byteLength':%zu}],'bufferViews':["
            "{'buffer':0,'byteOffset':%zu,'byteLength':36},"
            "{'buffer':0,'byteOffset':%zu,'byteLength':24},"
            "{'buffer':0,'byteOffset':%zu,'byteLength':48},"
            "{'buffer':0,'byteOffset':%zu,'byteLength':6},"
            "{'buffer':0,'byteOffset':%zu,'byteLength':128}],'accessors':["
            "{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3',"
            "'min':[0,0,0],'max':[1,12,0]},"
            "{'bufferView':1,'componentType':5123,'count':3,'type':'VEC4'},"
            "{'bufferView':2,'componentType':5126,'count':3,'type':'VEC4'},"
            "{'bufferView':3,'componentType':5123,'count':3,'type':'SCALAR'},"
            "{'bufferView':4,'componentType':5126,'count':2,'type':'MAT4'}]}",
            gb_bin_size(&b), pos, jnt, wgt, idx, ibm);
    gb_blob glb = gb_glb(&b);
    write_file(path, glb.data, glb.size);
    gb_blob_free(&glb);
    gb_free(&b);
}

static const char skinned_rig_json[] =
    "{\"kind\":\"mc-skinned\",\"parts\":["
    "{\"name\":\"body\",\"parent\":null,\"pivot\":[0,0,0]},"
    "{\"name\":\"head\",\"parent\":\"body\",\"pivot\":[0,10,0]}],"
    "\"joints\":[{\"name\":\"neck\",\"part\":\"head\",\"type\":\"rotation\",\"axis\":\"z\","
    "\"min\":-2,\"max\":2,\"rest\":0,\"drive\":\"caller\"}]}";

static void load_skins_a_skinned_kinds_mesh_glb(void **state)
{
    (void)state;
    char root[64], rig[96], mesh[96];
    mn_test_make_temp_dir(root, sizeof root, "voxel");
    snprintf(rig, sizeof rig, "%s/rig.json", root);
    snprintf(mesh, sizeof mesh, "%s/mesh.glb", root);
    write_file(rig, skinned_rig_json, sizeof skinned_rig_json - 1);
    write_skinned_glb(mesh);

    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_voxel_controller_options options = {.allocator = mn_counting_allocator(&counter)};
    mn_voxel_controller *c = NULL;
    mn_error err;
    if (mn_voxel_controller_load(root, &options, &c, &err) != MN_OK)
        fail_msg("load %s: %s", root, err.message);
    assert_int_equal(mn_voxel_controller_mesh(c)->bone_count, 2);
    assert_int_equal(mn_voxel_controller_vertex_count(c), 3);
    /* At rest the skin is where it was sculpted. */
    const float rest[9] = {1, 0, 0, 0, 12, 0, 0, 11, 0};
    assert_vec_near(mn_voxel_controller_positions(c), rest, 9, 1e-6);
    /* A quarter turn of the head about z at its pivot (0 10 0). */
    size_t allocs = counter.allocs;
    mn_voxel_joint_value neck[] = {{"neck", (float)(3.14159265358979323846 / 2)}};
    assert_int_equal(mn_voxel_controller_pose(c, neck, 1), MN_OK);
    const float posed[9] = {1, 0, 0, -2, 10, 0, -0.5f, 10.5f, 0};
    assert_vec_near(mn_voxel_controller_positions(c), posed, 9, 1e-5);
    assert_int_equal(counter.allocs, allocs);
    mn_voxel_controller_free(c);
    assert_int_equal(counter.live_bytes, 0);
    unlink(mesh);
    unlink(rig);
    rmdir(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(auto_play_animations_play_from_creation),
        cmocka_unit_test(a_played_animation_overlays_only_its_joints_and_wins),
        cmocka_unit_test(a_one_shot_ends_and_its_joints_fall_back),
        cmocka_unit_test(play_replaces_and_null_stops),
        cmocka_unit_test(seek_sets_both_clocks),
        cmocka_unit_test(pose_clamps_unsets_and_refuses_unknown_names),
        cmocka_unit_test(joint_names_and_ranges),
        cmocka_unit_test(outputs_agree_with_mn_voxel_pose),
        cmocka_unit_test(driving_allocates_nothing_and_free_returns_everything),
        cmocka_unit_test(creation_fails_cleanly_without_memory),
        cmocka_unit_test(skinned_vertices_follow_the_part_worlds),
        cmocka_unit_test(a_skinned_mesh_with_a_bad_joint_index_is_refused),
        cmocka_unit_test(a_static_mesh_is_output_as_read),
        cmocka_unit_test(load_reads_the_rig_and_every_part_mesh),
        cmocka_unit_test(load_fails_on_a_missing_part_file_and_frees_everything),
        cmocka_unit_test(load_skins_a_skinned_kinds_mesh_glb),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
