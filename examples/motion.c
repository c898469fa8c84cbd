/*
 * Motion on a walking CesiumMan: root motion moves the character, two-bone IK
 * lifts a foot, a spring hangs off the head, and the pose is retargeted onto
 * RiggedFigure.  Usage: motion CESIUMMAN.glb [RIGGEDFIGURE.glb]
 */
#include <marionette/marionette.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the spring's anchor needs: it samples the clip at the time it is handed (pure in t). */
typedef struct head_anchor {
    const mn_skeleton *sk;
    const mn_clip *clip;
    mn_pose *pose;
    float *worlds;
    uint32_t head;
} head_anchor;

static float wrap(float t, float d)
{
    return t - d * floorf(t / d);
}

static void head_at(void *user, double t, double out[3])
{
    head_anchor *a = user;
    mn_pose_copy(a->pose, &a->sk->rest);
    /* The clip and pose of each frame's checked sample: this one cannot be refused. */
    (void)mn_clip_sample(a->clip, wrap((float)t, mn_clip_duration(a->clip)), a->pose, NULL);
    mn_skeleton_local_to_world(a->sk, a->pose, 0, a->worlds);
    for (int c = 0; c < 3; c++)
        out[c] = a->worlds[16 * a->head + 12 + c];
}

/*
 * The knee's hinge in its own space: the normal of the plane the leg bends
 * in.  Two-bone IK needs the hip and ankle in the plane normal to the hinge;
 * CesiumMan's knees turn about local +Y, but its bones leave that plane by a
 * degree, enough to leave the ankle 2 mm short, so the hinge is taken from the
 * bend itself (fine while the knee is bent, as a walking knee is).
 */
static void knee_hinge(const float *hip, const float *knee, const float *ankle, float axis[3])
{
    float inv[16], h[3], a[3];
    mn_mat4_invert_affine(inv, knee);
    mn_mat4_transform_point(h, inv, hip + 12);
    mn_mat4_transform_point(a, inv, ankle + 12);
    float n[3] = {h[1] * a[2] - h[2] * a[1], h[2] * a[0] - h[0] * a[2], h[0] * a[1] - h[1] * a[0]};
    float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int c = 0; c < 3; c++)
        axis[c] = n[c] / len;
}

/* CesiumMan's names (source) for RiggedFigure's joints (destination) where they differ. */
static const mn_retarget_name_pair NAMES[] = {
    {"Skeleton_torso_joint_1", "torso_joint_1"},   {"Skeleton_torso_joint_2", "torso_joint_2"},
    {"Skeleton_neck_joint_1", "neck_joint_1"},     {"Skeleton_neck_joint_2", "neck_joint_2"},
    {"Skeleton_arm_joint_R", "arm_joint_R_1"},     {"Skeleton_arm_joint_R__2_", "arm_joint_R_2"},
    {"Skeleton_arm_joint_R__3_", "arm_joint_R_3"}, {"Skeleton_arm_joint_L__4_", "arm_joint_L_1"},
    {"Skeleton_arm_joint_L__3_", "arm_joint_L_2"}, {"Skeleton_arm_joint_L__2_", "arm_joint_L_3"},
};

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s CESIUMMAN.glb [RIGGEDFIGURE.glb]\n", argv[0]);
        return 2;
    }
    const char *figure_path =
        argc > 2 ? argv[2] : "../shared/assets/gltf/RiggedFigure/glTF-Binary/RiggedFigure.glb";
    mn_model *man_model = NULL, *fig_model = NULL;
    mn_skeleton *man = NULL, *fig = NULL;
    mn_clip *walk = NULL;
    mn_retarget *map = NULL;
    mn_pose pose = {0}, fig_pose = {0}, scratch = {0};
    float *worlds = NULL, *scratch_worlds = NULL;
    mn_error err;
    int status = 1;

    if (mn_gltf_read_file(argv[1], NULL, &man_model, &err) != MN_OK ||
        mn_gltf_read_file(figure_path, NULL, &fig_model, &err) != MN_OK ||
        mn_skeleton_from_skin(man_model, 0, NULL, &man, &err) != MN_OK ||
        mn_skeleton_from_skin(fig_model, 0, NULL, &fig, &err) != MN_OK)
        goto done;
    /* The clip drives the skeleton's joints (a clip of the model's nodes would be refused). */
    if (mn_clip_from_gltf_skeleton(man_model, 0, man, NULL, &walk, &err) != MN_OK ||
        mn_pose_create(&pose, man->joint_count, NULL, &err) != MN_OK ||
        mn_pose_create(&fig_pose, fig->joint_count, NULL, &err) != MN_OK ||
        mn_pose_create(&scratch, man->joint_count, NULL, &err) != MN_OK)
        goto done;
    worlds = malloc(16 * sizeof(float) * man->joint_count);
    scratch_worlds = malloc(16 * sizeof(float) * man->joint_count);
    if (!worlds || !scratch_worlds)
        goto done;
    uint32_t hips = mn_skeleton_find(man, "Skeleton_torso_joint_1");
    uint32_t thigh = mn_skeleton_find(man, "leg_joint_L_1"), knee = mn_skeleton_find(man, "leg_joint_L_2");
    uint32_t ankle = mn_skeleton_find(man, "leg_joint_L_3"), head = mn_skeleton_find(man, "Skeleton_neck_joint_2");
    uint32_t fig_hips = mn_skeleton_find(fig, "torso_joint_1");

    /* The retargeting map is built once; the hips move by the ratio of the legs. */
    mn_retarget_options ro = {0};
    ro.names = NAMES;
    ro.name_count = sizeof NAMES / sizeof NAMES[0];
    ro.src_upper_leg = ro.dst_upper_leg = "leg_joint_L_1";
    ro.src_foot = ro.dst_foot = "leg_joint_L_3";
    if (mn_retarget_create(man, fig, &ro, &map, &err) != MN_OK)
        goto done;

    /* The character starts where the hips stand at rest, turned as they are. */
    float position[3], heading[4], scale[3];
    mn_skeleton_local_to_world(man, &man->rest, 0, worlds);
    mn_mat4_decompose(worlds + 16 * hips, position, heading, scale);
    head_anchor anchor = {man, walk, &scratch, scratch_worlds, head};
    const mn_spring_settings antenna = {.frequency_hz = 1.5f, .damping = 0.4f};
    const float dt = 1.0f / 30.0f, duration = mn_clip_duration(walk);

    for (int frame = 1; frame <= 60; frame++) {
        float t0 = (float)(frame - 1) * dt, t = (float)frame * dt;
        /* 1. Root motion: move the character by what the hips travelled, then pin them. */
        mn_root_motion m;
        if (mn_root_motion_extract(walk, hips, &man->rest, t0, t, &m, &err) != MN_OK)
            goto done;
        float step[3];
        mn_quat_rotate(step, heading, m.translation);
        for (int c = 0; c < 3; c++)
            position[c] += step[c];
        mn_quat_mul(heading, heading, m.rotation);
        mn_pose_copy(&pose, &man->rest);
        if (mn_clip_sample(walk, wrap(t, duration), &pose, &err) != MN_OK ||
            mn_root_motion_strip(walk, hips, &pose, &err) != MN_OK)
            goto done;

        /* 2. Two-bone IK: lift the left ankle 5 cm, the knee pointing forward. */
        mn_skeleton_local_to_world(man, &pose, 0, worlds);
        mn_ik_two_bone ik;
        mn_ik_two_bone_init(&ik);
        ik.start_world = worlds + 16 * thigh;
        ik.mid_world = worlds + 16 * knee;
        ik.end_world = worlds + 16 * ankle;
        memcpy(ik.target, worlds + 16 * ankle + 12, sizeof ik.target);
        ik.target[1] += 0.05f;
        const float forward[3] = {0, 0, 1};
        memcpy(ik.pole, forward, sizeof ik.pole);
        knee_hinge(worlds + 16 * thigh, worlds + 16 * knee, worlds + 16 * ankle, ik.mid_axis);
        mn_ik_two_bone_result solved;
        if (mn_ik_two_bone_solve(&ik, &solved, &err) != MN_OK)
            goto done;
        float before = worlds[16 * ankle + 13];
        mn_ik_apply_correction(&pose, thigh, solved.start_correction);
        mn_ik_apply_correction(&pose, knee, solved.mid_correction);
        mn_skeleton_local_to_world(man, &pose, 0, worlds);

        /* 3. A spring hanging off the head, sampled at t (no state between frames). */
        float tip[3];
        if (mn_spring_sample(&antenna, head_at, &anchor, t, tip, &err) != MN_OK)
            goto done;

        /* 4. The same frame on RiggedFigure. */
        if (mn_retarget_apply(map, &pose, &fig_pose, &err) != MN_OK)
            goto done;

        if (frame % 20 == 0)
            printf("t %.2f s: at (%.3f %.3f %.3f), ankle lifted %.3f m (reached %s), "
                   "antenna tip (%.3f %.3f %.3f), figure's hips (%.3f %.3f %.3f)\n",
                   (double)t, (double)position[0], (double)position[1], (double)position[2],
                   (double)(worlds[16 * ankle + 13] - before), solved.reached ? "yes" : "no",
                   (double)tip[0], (double)tip[1], (double)tip[2],
                   (double)fig_pose.translations[3 * fig_hips],
                   (double)fig_pose.translations[3 * fig_hips + 1],
                   (double)fig_pose.translations[3 * fig_hips + 2]);
    }
    status = 0;
done:
    if (status != 0)
        fprintf(stderr, "motion: %s (%s)\n", err.message, mn_status_name(err.code));
    mn_retarget_free(map);
    free(worlds);
    free(scratch_worlds);
    mn_pose_free(&pose);
    mn_pose_free(&fig_pose);
    mn_pose_free(&scratch);
    mn_clip_free(walk);
    mn_skeleton_free(man);
    mn_skeleton_free(fig);
    mn_model_free(man_model);
    mn_model_free(fig_model);
    return status;
}
