/*
 * Pose correctives at play time (docs/formats.md): arm
 * elevation with the torso's turn taken out, smoothstep weights, the
 * played corrections' weights and point count, and the state a playing
 * character keeps (the switch, each slot's angle and weight).
 */
#include <marionette/character/corrective.h>

#include "core/core.h"

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

/* Each slot's elevation (0 where no drive feeds it): the one measurement weights and states share. */
static void slot_angles(const mn_corrective_index *index, const float *worlds, const float *skin,
                        float angles[MN_CORRECTIVE_SLOTS])
{
    for (uint32_t s = 0; s < MN_CORRECTIVE_SLOTS; s++)
        angles[s] = 0;
    for (uint32_t c = 0; c < index->played_count; c++) {
        const mn_correction *cor = &index->corrections[c];
        for (uint32_t d = 0; d < cor->drive_count; d++) {
            const mn_corrective_drive *dr = &cor->drives[d];
            angles[2 * c + dr->side] =
                mn_corrective_arm_angle_deg(skin + 16 * (size_t)dr->frame,
                                            worlds + 16 * (size_t)dr->upper + 12,
                                            worlds + 16 * (size_t)dr->next + 12);
        }
    }
}

/* The weight of each slot a drive feeds; 0 for the others. */
static void slot_weights(const mn_corrective_index *index, const float angles[MN_CORRECTIVE_SLOTS],
                         float out[MN_CORRECTIVE_SLOTS])
{
    for (uint32_t s = 0; s < MN_CORRECTIVE_SLOTS; s++)
        out[s] = 0;
    for (uint32_t c = 0; index && c < index->played_count; c++) {
        const mn_correction *cor = &index->corrections[c];
        for (uint32_t d = 0; d < cor->drive_count; d++) {
            const mn_corrective_drive *dr = &cor->drives[d];
            uint32_t s = 2 * c + dr->side;
            out[s] = mn_corrective_blend_weight(angles[s], dr->from_deg, dr->to_deg);
        }
    }
}

void mn_corrective_weights(const mn_corrective_index *index, const float *worlds,
                           const float *skin, float out[2 * MN_CORRECTIONS_PLAYED])
{
    float angles[MN_CORRECTIVE_SLOTS];
    slot_angles(index, worlds, skin, angles);
    slot_weights(index, angles, out);
}

void mn_corrective_state_init(mn_corrective_state *state)
{
    if (state)
        *state = (mn_corrective_state){.enabled = true};
}

void mn_corrective_set_enabled(mn_corrective_state *state, bool enabled)
{
    if (!state)
        return;
    state->enabled = enabled;
    if (!enabled)   /* off is exactly a character without corrections, from this frame on */
        for (uint32_t s = 0; s < MN_CORRECTIVE_SLOTS; s++)
            state->weights[s] = 0;
}

mn_status mn_corrective_update(const mn_corrective_index *index, const float *worlds,
                               const float *skin, mn_corrective_state *state, mn_error *err)
{
    mni_error_clear(err);
    if (!state)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_corrective_update: state is NULL");
    if (index && (!worlds || !skin))
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_corrective_update: worlds or skin is NULL");
    if (!index) {
        *state = (mn_corrective_state){.enabled = state->enabled};
        return MN_OK;
    }
    slot_angles(index, worlds, skin, state->angles);
    if (state->enabled)
        slot_weights(index, state->angles, state->weights);
    else
        for (uint32_t s = 0; s < MN_CORRECTIVE_SLOTS; s++)
            state->weights[s] = 0;
    return MN_OK;
}

uint64_t mn_corrective_points(const mn_corrective_index *index)
{
    uint64_t n = 0;
    for (uint32_t c = 0; index && c < index->played_count; c++)
        n += index->corrections[c].points;
    return n;
}
