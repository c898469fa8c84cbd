/*
 * marionette/character/runtime.h — a loaded character that plays: one object
 * that drives the body, the head, the face, the correctives, the splats and
 * the mouth each frame, from the parts' own calls (docs/characters.md,
 * "Playing a character").
 *
 *     mn_character_runtime *rt;
 *     mn_character_runtime_create(character, &(mn_character_runtime_options){.threads = 2},
 *                                 &rt, &err);
 *     mn_character_runtime_play(rt, "walk", &(mn_play_options){.fade = 0.2f}, &err);
 *     for (;;) {
 *         mn_character_frame f = {.dt = 1.0f / 60, .arkit = weights, .arkit_count = 52};
 *         mn_character_runtime_update(rt, &f, &err);
 *         const mn_character_views *v = mn_character_runtime_views(rt);
 *         ... v->splat_centres, v->head_vertices, v->corrective_weights ...
 *     }
 *     mn_character_runtime_free(rt);
 *
 * WHAT A FRAME DOES, IN ORDER (mn_character_runtime_update)
 *   1. The body's local pose, from the source chosen last:
 *      - the mixer (the default): mn_mixer over the package's clips, then the
 *        shared pack's that no package clip shadows, in that order; it has
 *        the glTF mixer's semantics exactly (mixer.h: play, crossfade from
 *        the live pose, speed, seek, loop or once), advanced by dt;
 *      - a state machine the caller built over the skeleton's joints:
 *        mn_state_machine_update(dt) then mn_state_machine_evaluate;
 *      - a blend tree: evaluated at the runtime's clock, which advances by dt;
 *      - a pose the caller supplies in the frame (frame->pose).
 *      Joints no source writes hold the rest pose (localPosition, localRotation).
 *   2. The frame's joint overrides, by the skeleton's joint names: rotation =
 *      rotation ⊗ normalise(q), a turn about the joint's own axes on top of
 *      the played pose (procedural head aim); a name only the head pack has
 *      turns that head joint (step 5); other names are skipped.
 *   3. mn_soma_pose: the twist helpers, then every joint's world and skin matrix.
 *   4. Correctives (when the package has them and they run): mn_corrective_update
 *      with the runtime's state (mn_character_runtime_set_correctives switches it).
 *   5. The head (when the package has one and it runs): each head joint whose
 *      name a skeleton joint has takes that joint's world (column-major to the
 *      pack's row-major, metres; mn_head_set_joint_worlds converts units); a head
 *      joint the body lacks follows its head parent with its rest local (a root
 *      keeps its rest world), turned as restLocal·R(q) by an override of its
 *      name.  Its controls: frame->arkit through the package's face map
 *      (mn_arkit_map_apply), else frame->controls (head_ext), else zeros;
 *      with frame->look, the four gaze angles are replaced by each eye's turn
 *      toward look_at (rig space, metres), clamped to the gaze limits; then
 *      mn_head_pose, and the posed vertices' area-weighted normals (faces).
 *   6. The splats: the splat deform (splat.h) over the skin matrices, in the
 *      skinner's 2048-splat chunks, so the bits are mn_splat_skin_run's; with
 *      threads > 1 the calling thread poses the head (step 5's mn_head_pose and
 *      normals) while the others deform the splats, then joins them.  Opacities
 *      (sigmoid of the stored logit, computed once) are written at creation;
 *      with the mouth list (and a head), each listed splat's opacity is its
 *      base times mn_mouth_hidden_alpha(gap) and each plug's centre moves back
 *      by mn_mouth_plug_push(gap)·forward, gap = mn_mouth_lip_gap of its lip
 *      vertices against the same vertices at zero controls and rest joints
 *      (posed once, at creation).
 *
 * Everything is allocated by mn_character_runtime_create; play, seek, the
 * setters and update allocate nothing.  The same calls give the same bits,
 * whatever the thread count.  One runtime per character, used from one thread
 * at a time; the character must outlive it.
 */
#ifndef MARIONETTE_CHARACTER_RUNTIME_H
#define MARIONETTE_CHARACTER_RUNTIME_H

#include "../blend_tree.h"
#include "../core.h"
#include "../mixer.h"
#include "../pose.h"
#include "../state_machine.h"
#include "../head/head.h"
#include "corrective.h"
#include "package.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The parts a runtime can run (bits of mn_character_runtime_options.skip and of `skipped`). */
typedef enum mn_character_part_bits {
    MN_CHARACTER_RUN_HEAD = 1u << 0,        /* the head pack posed (needs the package's head) */
    MN_CHARACTER_RUN_FACE = 1u << 1,        /* ARKit weights through face.arkit */
    MN_CHARACTER_RUN_CORRECTIVE = 1u << 2,  /* the corrective weights */
    MN_CHARACTER_RUN_MOUTH = 1u << 3,       /* the mouth list's hidden alpha and plug push */
    MN_CHARACTER_RUN_SPLATS = 1u << 4       /* the splat deform */
} mn_character_part_bits;

/* Default gaze limits (radians): 35 degrees of yaw, 25 of pitch, either way. */
#define MN_CHARACTER_GAZE_YAW_LIMIT 0.610865238f
#define MN_CHARACTER_GAZE_PITCH_LIMIT 0.436332313f

typedef struct mn_character_runtime_options {
    mn_allocator allocator;     /* zero: malloc/free */
    uint32_t threads;           /* the deform's threads, the caller's included; 0 and 1: one */
    uint32_t skip;              /* mn_character_part_bits not to run even when the package has them */
    bool force_simd;            /* false: the widest kernels there are (MN_SIMD_BEST) */
    mn_simd_level simd;         /* with force_simd: the splat and head kernels' level */
    float gaze_yaw_limit;       /* > 0: |yaw| at most this toward a look target; 0: the default */
    float gaze_pitch_limit;     /* > 0: |pitch| at most this; 0: the default */
} mn_character_runtime_options;

/* One frame's inputs.  A zeroed struct: no time passes, no face, no look, no overrides. */
typedef struct mn_character_frame {
    float dt;                        /* seconds (negative or non-finite: 0) */
    const mn_pose *pose;             /* the body's local pose when the source is the caller's
                                        (mn_character_runtime_use_pose); ≥ the skeleton's joints */
    const float *arkit;              /* ARKit-52 weights (mn_arkit_channel_name order), or NULL */
    uint32_t arkit_count;            /* ≤ 52, zero-padded */
    const float *controls;           /* head_ext controls when arkit is NULL, or NULL */
    uint32_t control_count;          /* ≤ the head's dim, zero-padded */
    bool look;                       /* turn the eyes toward look_at */
    float look_at[3];                /* rig space, metres */
    const mn_joint_override *overrides;  /* skeleton joint names, x y z w rotations */
    uint32_t override_count;
} mn_character_frame;

/* What the last update computed.  Owned by the runtime, rewritten by every update. */
typedef struct mn_character_views {
    uint32_t joint_count;
    const mn_pose *pose;             /* the body's local pose after overrides and twist */
    const float *joint_worlds;       /* joint_count × 16, column-major, rig space */
    const float *skin_matrices;      /* joint_count × 16, column-major */
    uint32_t corrective_slots;       /* MN_CORRECTIVE_SLOTS */
    const float *corrective_weights; /* slot = 2·correction + side; zeros when not run */
    const float *corrective_angles;  /* degrees */
    uint32_t head_vertex_count;      /* 0 when the head does not run */
    const float *head_vertices;      /* V × 3, metres, rig space (NULL when the head does not run) */
    const float *head_normals;       /* V × 3, unit (a vertex of no triangle: 0) */
    const float *head_controls;      /* the head_ext vector posed (dim floats) */
    uint32_t head_control_count;
    uint32_t splat_count;            /* 0 when the splats do not run */
    const float *splat_centres;      /* N × 3, the character's frame */
    const float *splat_rotations;    /* N × 4, x y z w */
    const float *splat_opacities;    /* N, linear in [0, 1]: sigmoid(stored) × hidden alpha */
} mn_character_views;

typedef struct mn_character_runtime mn_character_runtime;

/*
 * A runtime for `character` (borrowed: it must outlive the runtime).  Every
 * scratch buffer, the mixer (over a model of the skeleton's joints), the head
 * and the worker pool (threads − 1 threads) are made here, once.  A part runs when the package has
 * it and options->skip does not name it; the mouth also needs the head.
 * `skipped` (mn_character_runtime_skipped) says which parts do not run.
 * Errors (*out NULL): MN_INVALID_ARGUMENT (NULL character or out, threads
 * above MN_POOL_MAX_THREADS, a negative or non-finite gaze limit), the errors
 * of mn_head_create, mn_splat_skin_job_validate and mn_pool_create, MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_character_runtime_create(const mn_character *character,
                                             const mn_character_runtime_options *options,
                                             mn_character_runtime **out, mn_error *err);

/* Free a runtime (not the character, nor a state machine or tree it was given).  NULL is allowed. */
MN_API void mn_character_runtime_free(mn_character_runtime *runtime);

/* The parts that do not run: a mn_character_part_bits mask (absent from the package, or skipped). */
MN_API uint32_t mn_character_runtime_skipped(const mn_character_runtime *runtime);

/*
 * Why each part that does not run does not, into buf (cut like snprintf):
 * "head: the package has none; mouth: needs the head; ..." or "" when all
 * run.  Returns the full length.
 */
MN_API size_t mn_character_runtime_describe_skipped(const mn_character_runtime *runtime, char *buf,
                                                    size_t size);

/* ---- the body --------------------------------------------------------------------- */

/*
 * The mixer (clips: the package's, then the shared pack's not shadowed), to
 * play, seek, pause or read its state with mixer.h.  Owned by the runtime.
 */
MN_API mn_mixer *mn_character_runtime_mixer(mn_character_runtime *runtime);

/*
 * Play a clip by name on the mixer (mn_mixer_play_named; a package clip wins
 * over a shared one) and make the mixer the body's source.  Errors as
 * mn_mixer_play_named.  Allocation-free.
 */
MN_API mn_status mn_character_runtime_play(mn_character_runtime *runtime, const char *clip,
                                           const mn_play_options *options, mn_error *err);

/* Make the mixer the body's source (as it is at creation). */
MN_API void mn_character_runtime_use_mixer(mn_character_runtime *runtime);

/*
 * Make a state machine (borrowed, caller-built over the package's clips,
 * mn_state_machine_joint_count = the skeleton's joints) the body's source.
 * Errors: MN_INVALID_ARGUMENT (NULL), MN_COUNT_MISMATCH (another joint count).
 */
MN_API mn_status mn_character_runtime_use_state_machine(mn_character_runtime *runtime,
                                                        mn_state_machine *machine, mn_error *err);

/*
 * Make a blend tree (borrowed; joint count = the skeleton's) the body's
 * source, evaluated at the runtime's clock, which starts at `time`.  Errors
 * as mn_character_runtime_use_state_machine.
 */
MN_API mn_status mn_character_runtime_use_blend_tree(mn_character_runtime *runtime,
                                                     mn_blend_tree *tree, float time,
                                                     mn_error *err);

/* Make frame->pose the body's source (a frame without one then holds the rest pose). */
MN_API void mn_character_runtime_use_pose(mn_character_runtime *runtime);

/* The skeleton's rest pose (a pose of its joints): where a caller-built pose may start. */
MN_API const mn_pose *mn_character_runtime_rest_pose(const mn_character_runtime *runtime);

/* ---- switches --------------------------------------------------------------------- */

/* Switch the corrections on or off (mn_corrective_set_enabled on the runtime's state). */
MN_API void mn_character_runtime_set_correctives(mn_character_runtime *runtime, bool enabled);

/* ---- the frame -------------------------------------------------------------------- */

/*
 * One frame, in the order of the header's comment.  frame NULL: a zeroed frame.
 * Errors (the views keep what the failing step had written): MN_INVALID_ARGUMENT
 * (NULL runtime; arkit_count above 52 or control_count above the head's dim, a
 * count without its array; without a running head, arkit and controls are ignored;
 * a caller pose with fewer joints; a look_at that is not finite; an override
 * with a NULL name or a zero-length rotation), the state machine's and blend
 * tree's errors.  Allocation-free.
 */
MN_API mn_status mn_character_runtime_update(mn_character_runtime *runtime,
                                             const mn_character_frame *frame, mn_error *err);

/* The results of the last update (all zeros and NULLs for a NULL runtime). */
MN_API const mn_character_views *mn_character_runtime_views(const mn_character_runtime *runtime);

/* The runtime's head (NULL when the head does not run), e.g. for mn_render_source_head. */
MN_API mn_head *mn_character_runtime_head(mn_character_runtime *runtime);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_CHARACTER_RUNTIME_H */
