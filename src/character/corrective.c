/*
 * Pose correctives at play time (docs/formats.md): arm
 * elevation with the torso's turn taken out, smoothstep weights, the
 * played corrections' weights and point count.
 */
#include <marionette/character/corrective.h>

#include <math.h>

float mn_corrective_arm_angle_deg(const float frame_skin[16], const float upper[3],
                                  const float next[3])
{
    const float d[3] = {next[0] - upper[0], next[1] - upper[1], next[2] - upper[2]};
    /* d' = Mᵀ·d: column c of M (column-major: m[4c + r]) dotted with d. */
    float dp[3];
    for (int c = 0; c < 3; c++)
        dp[c] = frame_skin[4 * c] * d[0] + frame_skin[4 * c + 1] * d[1] + frame_skin[4 * c + 2] * d[2];
    float len = sqrtf(dp[0] * dp[0] + dp[1] * dp[1] + dp[2] * dp[2]);
    if (!(len > 0))
        return 0;
    float c = -dp[1] / len;
    c = c < -1 ? -1 : c > 1 ? 1 : c;
    return acosf(c) * (180.0f / 3.14159265358979f);
}

float mn_corrective_blend_weight(float theta_deg, float from_deg, float to_deg)
{
    if (!(theta_deg > from_deg))
        return 0;
    if (theta_deg >= to_deg)
        return 1;
    float t = (theta_deg - from_deg) / (to_deg - from_deg);
    return t * t * (3 - 2 * t);
}

void mn_corrective_weights(const mn_corrective_index *index, const float *worlds,
                           const float *skin, float out[2 * MN_CORRECTIONS_PLAYED])
{
    for (uint32_t s = 0; s < 2 * MN_CORRECTIONS_PLAYED; s++)
        out[s] = 0;
    for (uint32_t c = 0; c < index->played_count; c++) {
        const mn_correction *cor = &index->corrections[c];
        for (uint32_t d = 0; d < cor->drive_count; d++) {
            const mn_corrective_drive *dr = &cor->drives[d];
            float deg = mn_corrective_arm_angle_deg(skin + 16 * (size_t)dr->frame,
                                                    worlds + 16 * (size_t)dr->upper + 12,
                                                    worlds + 16 * (size_t)dr->next + 12);
            out[2 * c + dr->side] = mn_corrective_blend_weight(deg, dr->from_deg, dr->to_deg);
        }
    }
}

uint64_t mn_corrective_points(const mn_corrective_index *index)
{
    uint64_t n = 0;
    for (uint32_t c = 0; index && c < index->played_count; c++)
        n += index->corrections[c].points;
    return n;
}
