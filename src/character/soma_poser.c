/*
 * The SOMA poser (docs/formats.md): twist helpers by
 * swing-twist decomposition, then rig-space worlds and skin matrices.
 * Everything was validated at load; nothing here allocates or branches on
 * input errors.
 */
#include <marionette/math.h>
#include <marionette/character/soma.h>

#include <math.h>
#include <string.h>

void mn_soma_rest_pose(const mn_soma_skeleton *skeleton, mn_pose *pose)
{
    uint32_t n = skeleton->joint_count < pose->joint_count ? skeleton->joint_count : pose->joint_count;
    memcpy(pose->translations, skeleton->local_positions, (size_t)n * 3 * sizeof(float));
    memcpy(pose->rotations, skeleton->local_rotations, (size_t)n * 4 * sizeof(float));
    for (uint32_t j = 0; j < n * 3; j++)
        pose->scales[j] = 1;
}

float mn_soma_twist_angle(const float q[4], const float axis[3])
{
    float s = q[0] * axis[0] + q[1] * axis[1] + q[2] * axis[2];
    float w = q[3];
    /* The twist of q and of −q is the same turn: take the half with w ≥ 0. */
    if (w < 0) {
        w = -w;
        s = -s;
    }
    if (w == 0 && s == 0)
        return 0;
    return 2 * atan2f(s, w);
}

void mn_soma_apply_twist(const mn_soma_skeleton *skeleton, mn_pose *pose)
{
    for (uint32_t t = 0; t < skeleton->twist_count; t++) {
        const mn_soma_twist *tw = &skeleton->twists[t];
        float theta = mn_soma_twist_angle(pose->rotations + 4 * tw->child, tw->axis);
        for (uint32_t h = 0; h < tw->helper_count; h++) {
            const mn_soma_twist_helper *hp = &tw->helpers[h];
            /* In double: any finite fraction times θ stays finite (a float product could not). */
            double half = 0.5 * (double)hp->fraction * theta;
            float sh = (float)sin(half);
            const float twist[4] = {tw->axis[0] * sh, tw->axis[1] * sh, tw->axis[2] * sh,
                                    (float)cos(half)};
            /* base ⊗ twist^f: the twist turns first, in the helper's base frame. */
            mn_quat_mul(pose->rotations + 4 * hp->joint,
                        skeleton->base_local_rotations + 4 * hp->joint, twist);
        }
    }
}

/*
 * out = a · b for affine column-major matrices (every 4×4 here is
 * affine, the last row is ignored and written as 0 0 0 1).  out must not
 * alias a or b.
 */
static inline void affine_mul(float *restrict out, const float *restrict a, const float *restrict b)
{
    for (int c = 0; c < 4; c++) {
        const float *bc = b + 4 * c;
        for (int r = 0; r < 3; r++)
            out[4 * c + r] = a[r] * bc[0] + a[4 + r] * bc[1] + a[8 + r] * bc[2] +
                             (c == 3 ? a[12 + r] : 0.0f);
        out[4 * c + 3] = c == 3 ? 1.0f : 0.0f;
    }
}

void mn_soma_pose(const mn_soma_skeleton *skeleton, mn_pose *pose, float *worlds, float *skin)
{
    mn_soma_apply_twist(skeleton, pose);
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        float local[16];
        mn_mat4_compose(local, pose->translations + 3 * j, pose->rotations + 4 * j,
                        pose->scales + 3 * j);
        int32_t p = skeleton->parents[j];
        if (p < 0)
            memcpy(worlds + 16 * j, local, sizeof local);
        else
            affine_mul(worlds + 16 * j, worlds + 16 * (size_t)p, local);
        if (skin)
            affine_mul(skin + 16 * j, worlds + 16 * j, skeleton->inverse_bind + 16 * j);
    }
}
