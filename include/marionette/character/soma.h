/*
 * marionette/character/soma.h — SOMA skeletons (version-2 character bodies), their
 * clips, the shared clip cache, and the poser with twist helpers.
 *
 *     mn_soma_skeleton *sk;     mn_soma_skeleton_read(json, size, NULL, 0, NULL, &sk, &err);
 *     mn_soma_clips *clips;     mn_soma_clips_read(json2, size2, sk, NULL, &clips, &err);
 *     // per frame, allocation-free:
 *     mn_soma_rest_pose(sk, &pose);
 *     mn_clip_sample(clips->clips[0].clip, t, &pose, &err);   // or any mixer / blend tree output
 *     mn_soma_pose(sk, &pose, worlds, skin);            // twist helpers, then skin matrices
 *
 * Formats and maths: docs/formats.md ("skeleton.json and the twist helpers",
 * "clips.json").  Matrices here
 * are column-major (the SOMA convention, as the rest of marionette), points
 * are column vectors, quaternions x y z w.  Reports of dropped clips carry a
 * name and a status code from marionette's table, so tests compare codes.
 */
#ifndef MARIONETTE_CHARACTER_SOMA_H
#define MARIONETTE_CHARACTER_SOMA_H

#include "../clip.h"
#include "../core.h"
#include "../pose.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mn_soma_twist_helper {
    uint32_t joint;       /* the helper joint */
    float fraction;       /* how much of the bone's twist it takes */
} mn_soma_twist_helper;

/* One twist segment: the bone, its child (a direct child), and the helpers that share the twist. */
typedef struct mn_soma_twist {
    uint32_t bone;
    uint32_t child;
    float axis[3];        /* the child's localPosition normalised: the twist axis in the child's parent frame */
    uint32_t helper_count;
    const mn_soma_twist_helper *helpers;
} mn_soma_twist;

typedef struct mn_soma_skeleton {
    uint32_t joint_count;
    const char *const *names;        /* joint_count names, unique */
    const int32_t *parents;          /* -1 or an earlier joint */
    const float *local_positions;    /* 3 × joint_count */
    const float *local_rotations;    /* 4 × joint_count, normalised */
    const float *inverse_bind;       /* 16 × joint_count, column-major */
    const float *base_local_rotations; /* 4 × joint_count, normalised; identity where absent */
    const uint8_t *has_base;         /* 1 where baseLocalRotation was given (not null) */
    uint32_t hips;                   /* the joint named by "hips" */
    float floor_y;
    float ground_offset;
    uint32_t twist_count;
    const mn_soma_twist *twists;
    struct mn_soma_skeleton_private *priv_;
} mn_soma_skeleton;

/*
 * Read and validate skeleton.json (format "aosrig-v2-skeleton").  When
 * joint_names is not NULL, the joints' names must equal it in order
 * (character.json's jointNames).  The skeleton copies what it keeps.
 * Errors (err->path names the member, e.g. "joints[3].parent"):
 *   MN_JSON_SYNTAX (not JSON, or a number that overflows a double),
 *   MN_JSON_TYPE, MN_MISSING_PROPERTY;
 *   MN_INVALID_VALUE  format not "aosrig-v2-skeleton"; an array of the wrong
 *                     length (localPosition 3, rotations 4, inverseBind 16); a duplicate name; a
 *                     zero-length localRotation or baseLocalRotation; a twist
 *                     child that is not a direct child of its bone or has a
 *                     zero localPosition; a helper that is the bone or child,
 *                     in two segments, or without baseLocalRotation;
 *   MN_INDEX_RANGE    a parent that is not −1 or an earlier joint; hips, a
 *                     twist bone, child or helper that names no joint;
 *   MN_NOT_FINITE     any non-finite number;
 *   MN_COUNT_MISMATCH names differing from joint_names (count or order);
 *   MN_OVERFLOW       more joints than a uint32 holds; MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_soma_skeleton_read(const void *json, size_t size,
                                       const char *const *joint_names, uint32_t joint_name_count,
                                       const mn_allocator *allocator, mn_soma_skeleton **out,
                                       mn_error *err);

/* Free a skeleton.  NULL is allowed. */
MN_API void mn_soma_skeleton_free(mn_soma_skeleton *skeleton);

/* The joint named `name` (set-up time, not per frame), or UINT32_MAX. */
MN_API uint32_t mn_soma_skeleton_find(const mn_soma_skeleton *skeleton, const char *name);

/*
 * The rest pose: translations = localPosition, rotations = localRotation,
 * scales 1, for min(pose, skeleton) joints.  Allocation-free.
 */
MN_API void mn_soma_rest_pose(const mn_soma_skeleton *skeleton, mn_pose *pose);

/*
 * Apply the twist rule to pose (which the mixer and any head aim filled):
 * for each segment, the twist of the child's current local rotation about
 * the segment axis (swing-twist decomposition: mn_soma_twist_angle), and each helper's
 * rotation = baseLocalRotation ⊗ twist^fraction.  Allocation-free.
 * Precondition: pose->joint_count ≥ skeleton->joint_count.
 */
MN_API void mn_soma_apply_twist(const mn_soma_skeleton *skeleton, mn_pose *pose);

/*
 * The poser: mn_soma_apply_twist, then every joint's rig-space world
 * (worlds, 16 floats a joint, column-major) and skin matrix (skin = world ·
 * inverseBind, 16 floats a joint).  The products are affine: the
 * last rows are ignored and written as 0 0 0 1.  worlds and skin are caller
 * storage of 16 × joint_count floats that do not overlap; skin may be NULL.
 * Allocation-free.
 */
MN_API void mn_soma_pose(const mn_soma_skeleton *skeleton, mn_pose *pose, float *worlds,
                         float *skin);

/* The twist angle (radians) of rotation q about the unit axis: s = v·axis for q = (v, w), (w, s)
   negated when w < 0, θ = 2·atan2(s, w), 0 when both are 0; so θ lies in [−π, π]. */
MN_API float mn_soma_twist_angle(const float q[4], const float axis[3]);

/* ---- clips --------------------------------------------------------------- */

typedef struct mn_soma_clip {
    const char *name;
    float fps;
    uint32_t frames;
    bool loop;            /* looping is the player's (the clip holds its end frames) */
    bool locomotion;
    float speed;          /* ground speed (m/s) of a locomotion clip; 0 when null or absent */
    float duration;       /* (frames − 1) / fps */
    mn_clip *clip;        /* the ordinary clip: a rotation track per named joint, a translation track on hips */
} mn_soma_clip;

/* A clip left out, and why (code: MN_COUNT_MISMATCH, MN_INDEX_RANGE, MN_NOT_FINITE, ...). */
typedef struct mn_soma_clip_drop {
    uint32_t index;       /* position in the file's clips array */
    const char *name;     /* "" when the clip had no usable name */
    mn_status code;
    const char *message;  /* names the member: "clips[2].bones.LeftArm: 7 numbers, expected 8" */
} mn_soma_clip_drop;

typedef struct mn_soma_clips {
    uint32_t clip_count;
    const mn_soma_clip *clips;       /* in file order */
    uint32_t dropped_count;
    const mn_soma_clip_drop *dropped;
    struct mn_soma_clips_private *priv_;
} mn_soma_clips;

/*
 * Read clips.json (format "soma-clips") for a skeleton.  A clip that breaks
 * a rule is left out and listed in dropped with its reason; the call fails
 * only when the file is not a soma-clips file at all.  Per clip:
 *   MN_MISSING_PROPERTY / MN_JSON_TYPE  a missing or mistyped member;
 *   MN_INVALID_VALUE   fps ≤ 0, frames not a positive integer, a zero-length
 *                      quaternion, a name an earlier kept clip has;
 *   MN_COUNT_MISMATCH  a bones array that is not frames × 4 numbers, or root not frames × 3;
 *   MN_INDEX_RANGE     a bone that names no joint;
 *   MN_NOT_FINITE      a non-finite number.
 * Each kept clip becomes an mn_clip (LINEAR keys at f/fps, quaternions
 * normalised and slerped on the short arc, root lerped, hips translation =
 * root + (0, groundOffset, 0)); joints it does not name keep what the pose holds.
 * The clips do not refer to the skeleton afterwards.
 * Errors of the whole file: MN_JSON_SYNTAX, MN_JSON_TYPE (not an object,
 * clips not an array), MN_MISSING_PROPERTY (format or clips), MN_INVALID_VALUE
 * (format not "soma-clips"), MN_INVALID_ARGUMENT, MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_soma_clips_read(const void *json, size_t size,
                                    const mn_soma_skeleton *skeleton,
                                    const mn_allocator *allocator, mn_soma_clips **out,
                                    mn_error *err);

/* Free clips (and their mn_clips).  NULL is allowed. */
MN_API void mn_soma_clips_free(mn_soma_clips *clips);

/* The clip named `name`, or NULL. */
MN_API const mn_soma_clip *mn_soma_clips_find(const mn_soma_clips *clips, const char *name);

/*
 * A character's clip by name: its own (package) clips first, then the shared
 * ones (either may be NULL) — a name already present wins over a shared
 * clip file's.  NULL when neither has it.
 */
MN_API const mn_soma_clip *mn_soma_clips_lookup(const mn_soma_clips *package,
                                                const mn_soma_clips *shared, const char *name);

/* Whether shared clip `index` loses to a package clip of the same name (listed apart from drops). */
MN_API bool mn_soma_clips_shadowed(const mn_soma_clips *package, const mn_soma_clips *shared,
                                   uint32_t index);

/* ---- the shared clip cache --------------------------------------------------
 * Shared clip files (a pack many characters name) are read once: the cache
 * maps a key (the file's resolved path) to the clips read from it, counted
 * by reference.  Not thread-safe; one cache per loader.
 */
typedef struct mn_soma_clip_cache mn_soma_clip_cache;

/* An empty cache.  Errors: MN_INVALID_ARGUMENT, MN_OUT_OF_MEMORY. */
MN_API mn_status mn_soma_clip_cache_create(const mn_allocator *allocator,
                                           mn_soma_clip_cache **out, mn_error *err);

/*
 * The clips of shared file `key`: when the cache holds them, the same object
 * with its count raised (json is not read again and may be NULL); else json
 * is read with mn_soma_clips_read for the skeleton and kept with count 1.
 * A skeleton whose joint names differ from the one the file was read for is
 * refused (MN_COUNT_MISMATCH): the clips' targets are joint indices.
 * Errors: those of mn_soma_clips_read; MN_INVALID_ARGUMENT (NULL key, or no
 * json for a key not cached); MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_soma_clip_cache_acquire(mn_soma_clip_cache *cache, const char *key,
                                            const void *json, size_t size,
                                            const mn_soma_skeleton *skeleton,
                                            const mn_soma_clips **out, mn_error *err);

/* Give back one reference; the clips are freed when the last goes.  NULL or unknown clips: nothing. */
MN_API void mn_soma_clip_cache_release(mn_soma_clip_cache *cache, const mn_soma_clips *clips);

/* Files the cache holds now. */
MN_API uint32_t mn_soma_clip_cache_count(const mn_soma_clip_cache *cache);

/* Free the cache and every clip set still in it (releaseSharedClips).  NULL is allowed. */
MN_API void mn_soma_clip_cache_free(mn_soma_clip_cache *cache);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_CHARACTER_SOMA_H */
