/*
 * marionette/character/corrective.h — pose correctives: the index, arm elevation and
 * the blend weights of the corrections a character plays.
 *
 * A correction adds splats that fix a shoulder at high arm elevation.  Each
 * has up to two drives (left and right side); a drive's weight rises by
 * smoothstep from fromDeg to toDeg of its arm's elevation.  At most
 * MN_CORRECTIONS_PLAYED corrections play (four weights: slot = 2·correction
 * + side).  Format and maths: docs/formats.md ("corrective/index.json").
 *
 * While a character plays, an mn_corrective_state holds its corrections'
 * switch and what the last frame measured: each slot's arm elevation and
 * weight.  Off, every weight is 0, so the character draws exactly as one
 * without corrections; the elevations are still measured.
 *
 *     mn_corrective_state cs;
 *     mn_corrective_state_init(&cs);                  // on, zeros
 *     // each frame, after mn_soma_pose(skeleton, &pose, worlds, skin):
 *     mn_corrective_update(character->corrective, worlds, skin, &cs, NULL);
 *     // cs.weights[2·correction + side] to the renderer, cs.angles for a debug view
 *     mn_corrective_set_enabled(&cs, false);          // weights 0 from now on
 */
#ifndef MARIONETTE_CHARACTER_CORRECTIVE_H
#define MARIONETTE_CHARACTER_CORRECTIVE_H

#include "../core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Corrections played at most; the rest are read, validated and warned about. */
#define MN_CORRECTIONS_PLAYED 2u

typedef struct mn_corrective_drive {
    uint32_t side;        /* 0 or 1 */
    uint32_t upper;       /* the upper arm joint */
    uint32_t next;        /* the joint after it (its direction's end) */
    uint32_t frame;       /* the joint whose turn since rest is discounted (the torso) */
    float rest_deg, from_deg, to_deg;   /* from_deg < to_deg */
} mn_corrective_drive;

/* The five files of a correction, relative to corrective/, and their optional SHA-256 (NULL when absent). */
enum { MN_CORRECTIVE_POINTS, MN_CORRECTIVE_POINTS_SIDE, MN_CORRECTIVE_BINDINGS,
       MN_CORRECTIVE_SIDE, MN_CORRECTIVE_FADE, MN_CORRECTIVE_FILE_COUNT };

typedef struct mn_correction {
    const char *name;
    const char *label;
    uint32_t points;      /* splats the correction adds */
    float trained_deg;
    const char *files[MN_CORRECTIVE_FILE_COUNT];   /* points, pointsSide, bindings, side, fade */
    const char *sha256[MN_CORRECTIVE_FILE_COUNT];  /* NULL when not given */
    uint32_t drive_count; /* 1 or 2, distinct sides */
    mn_corrective_drive drives[2];
} mn_correction;

typedef struct mn_corrective_index {
    uint32_t splat_count;
    uint32_t correction_count;
    const mn_correction *corrections;  /* in the index's order */
    uint32_t played_count;             /* min(correction_count, MN_CORRECTIONS_PLAYED) */
    bool extra_warning;                /* more corrections than are played: the rest are ignored */
    struct mn_corrective_private *priv_;
} mn_corrective_index;

/*
 * Read and validate corrective/index.json.  joint_names[0..joint_count)
 * resolve the drives' joints; splat_count is the package's.
 * Errors (err->path names the member):
 *   MN_JSON_SYNTAX, MN_JSON_TYPE, MN_MISSING_PROPERTY (any of the five files included);
 *   MN_INVALID_VALUE  format not "aosrig-corrective", version not 1, curve
 *                     not "smoothstep", side not 0 or 1, two drives on one
 *                     side, fromDeg ≥ toDeg, a path that is not plain
 *                     (mn_corrective_path_is_plain), no drives;
 *   MN_COUNT_MISMATCH splatCount not the package's;
 *   MN_INDEX_RANGE    a drive that names a joint the rig lacks;
 *   MN_NOT_FINITE; MN_OUT_OF_MEMORY; MN_INVALID_ARGUMENT.
 */
MN_API mn_status mn_corrective_index_read(const void *json, size_t size, uint32_t splat_count,
                                          const char *const *joint_names, uint32_t joint_count,
                                          const mn_allocator *allocator,
                                          mn_corrective_index **out, mn_error *err);

/* Free an index.  NULL is allowed. */
MN_API void mn_corrective_index_free(mn_corrective_index *index);

/*
 * Whether path is a plain relative path: non-empty, '/'-separated, not
 * starting with '/', no '\\', ':', '?', '#', '%' or control character, no
 * empty, "." or ".." segment.  allow_parent lets it start with "../"
 * segments (a shared clip pack's src).
 */
MN_API bool mn_corrective_path_is_plain(const char *path, bool allow_parent);

/*
 * The arm's elevation in degrees: M = the 3×3 of the frame joint's skin
 * matrix (column-major), d = next − upper (rig-space world positions),
 * d' = Mᵀ·d, angle = acos(clamp(−d'_y/|d'|, −1, 1)); 0 when d = 0.  The
 * frame's turn since rest is taken out, so a torso lean does not raise the arm.
 */
MN_API float mn_corrective_arm_angle_deg(const float frame_skin[16], const float upper[3],
                                         const float next[3]);

/* 0 up to from_deg, smoothstep to to_deg, 1 from there on (NaN gives 0). */
MN_API float mn_corrective_blend_weight(float theta_deg, float from_deg, float to_deg);

/*
 * The four played weights (slot = 2·correction + side; unused slots 0) from
 * the poser's worlds and skin matrices (16 floats a joint, column-major):
 * what mn_corrective_update gives an enabled state.  index, worlds, skin
 * and out must not be NULL.  Allocation-free.
 */
MN_API void mn_corrective_weights(const mn_corrective_index *index, const float *worlds,
                                  const float *skin, float out[2 * MN_CORRECTIONS_PLAYED]);

/* The slots: 2 · MN_CORRECTIONS_PLAYED, slot = 2·correction + side. */
#define MN_CORRECTIVE_SLOTS (2u * MN_CORRECTIONS_PLAYED)

/*
 * A character's corrections while it plays.  Caller-owned (one per
 * character, any storage); start it with mn_corrective_state_init.
 */
typedef struct mn_corrective_state {
    bool enabled;      /* play the corrections (init: true); off, every weight is 0 */
    /* Each slot's arm elevation on the last update, degrees from hanging straight down
       (mn_corrective_arm_angle_deg); 0 for a slot no drive feeds.  Measured on or off. */
    float angles[MN_CORRECTIVE_SLOTS];
    /* The weights of the last update, in the same slots: mn_corrective_blend_weight of each
       angle while on, 0 while off and for a slot no drive feeds. */
    float weights[MN_CORRECTIVE_SLOTS];
} mn_corrective_state;

/* Start a state: enabled, every angle and weight 0.  state NULL: nothing happens. */
MN_API void mn_corrective_state_init(mn_corrective_state *state);

/*
 * Switch the corrections on or off.  Switching off sets every weight to 0 at
 * once (the angles are kept); switching on takes effect at the next update.
 * state NULL: nothing happens.
 */
MN_API void mn_corrective_set_enabled(mn_corrective_state *state, bool enabled);

/*
 * One frame: measure each played drive's arm elevation from the poser's
 * worlds and skin matrices (16 floats a joint, column-major, as
 * mn_soma_pose writes them; they must cover every joint the index's
 * drives name, i.e. the skeleton the index was read against), and set
 * state->angles and, by state->enabled, state->weights.  index NULL (a
 * character without correctives): every angle and weight 0.
 * Allocation-free; the same inputs give the same bits.
 * Errors (the state is left as it was): MN_INVALID_ARGUMENT when state is
 * NULL, or index is given and worlds or skin is NULL.
 */
MN_API mn_status mn_corrective_update(const mn_corrective_index *index, const float *worlds,
                                      const float *skin, mn_corrective_state *state,
                                      mn_error *err);

/* The splats the played corrections add (their points summed). */
MN_API uint64_t mn_corrective_points(const mn_corrective_index *index);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_CHARACTER_CORRECTIVE_H */
