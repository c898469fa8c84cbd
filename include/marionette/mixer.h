/*
 * marionette/mixer.h — the clip mixer: plays a model's animations over its
 * whole node hierarchy.
 *
 * A mixer drives every node of one loaded model.  It tracks the active clip
 * plus an optional crossfade from the previous one, and every
 * mn_mixer_update advances time, samples the clips, blends during a fade,
 * bakes local matrices and composes world
 * matrices (node order, model space), plus the morph weights of every node
 * that carries a mesh with morph targets.
 *
 *     mn_mixer *mixer;
 *     mn_mixer_create(model, NULL, &mixer, &err);
 *     mn_mixer_play_named(mixer, "Walk", &(mn_play_options){.fade = 0.25f}, &err);
 *     for (;;) {
 *         mn_mixer_update(mixer, dt);
 *         const float *worlds = mn_mixer_worlds(mixer);     // 16 floats a node
 *         ...
 *     }
 *     mn_mixer_free(mixer);
 *
 * WHAT A FRAME COMPUTES
 *   1. Time advances by dt × speed.  A looping clip wraps into [0, duration);
 *      a one-shot clamps at its end (or at 0 when the speed is negative),
 *      stops, and sets the done flag, which stays set until the next play.
 *      During a fade the clip faded from advances too, by dt × its own
 *      speed, looping or clamping as it did before the play.
 *   2. The pose starts from the rest pose (the nodes' TRS as loaded), then the
 *      clip's tracks overwrite what they drive, so a property no track
 *      mentions keeps its rest value.  Morph weights start from the node's
 *      weights, else the mesh's default weights, else zeros, and the clip's
 *      weights tracks overwrite them.
 *   3. During a fade of F seconds started at play time, with w = (real seconds
 *      since play) / F: translation and scale are a + (b − a)·w, rotation is
 *      mn_quat_slerp(a, b, w), weights a + (b − a)·w, where b is the new
 *      clip's pose and a the source's:
 *        - the previous clip, still playing (step 1), sampled as in step 2,
 *          when the mixer showed it alone at play time: walking legs keep
 *          walking while they fade into a run (a finished one-shot holds
 *          its end; a paused clip plays on, as play clears the pause);
 *        - otherwise a frozen snapshot of the pose the mixer showed when
 *          play was called: a fade that interrupts a fade (as the state
 *          machine does), a fade before any clip was shown (from rest), or
 *          after a play or seek that no update has shown yet.
 *      Either way the first frame of the fade starts where the screen was.
 *      The fade's clock is real time (dt, not dt × speed); at its end the
 *      source is dropped.
 *   4. Local matrices T·R·S are rebuilt for the nodes some clip animates;
 *      nodes no clip ever animates keep their rest matrices, computed once at
 *      creation.  World matrices are recomposed for the animated nodes and
 *      their descendants, parents first.
 *
 * Pausing freezes the pose: both clips' times and the fade's clock stand still, and update
 * does nothing until resume, play or seek.  Sampling is a pure function of
 * the clip time, so seeking to a time gives the same bits as playing forward
 * to it.
 *
 * MEMORY AND THREADS
 *   Everything a mixer needs is allocated by mn_mixer_create through the
 *   options' allocator.  play, seek, pause, resume, set_speed and update
 *   allocate nothing and cannot fail on a valid mixer.  A mixer is one object:
 *   use it from one thread at a time.  Distinct mixers are independent; they
 *   may share clips (mn_mixer_options.clips), which are immutable.
 *
 * Playing: an unknown clip name is an error (MN_INVALID_VALUE, nothing
 * changes), never silently ignored; loop is the default and `once` asks for
 * a one-shot; speed and a start offset (`at`) are play options.
 */
#ifndef MARIONETTE_MIXER_H
#define MARIONETTE_MIXER_H

#include "core.h"
#include "model.h"
#include "pose.h"
#include "clip.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The mixer: opaque, created by mn_mixer_create, freed by mn_mixer_free. */
typedef struct mn_mixer mn_mixer;

/* Creation options.  A zeroed struct (or NULL) means the defaults given per field. */
typedef struct mn_mixer_options {
    mn_allocator allocator;      /* zero: malloc/free; everything the mixer holds comes from it */
    /*
     * Clips to play, borrowed: they must target node indices of this model
     * (mn_clip_from_gltf without a target_map, in mn_space_of_nodes(model),
     * or unbound clips of node indices) and outlive the mixer; a clip bound
     * to another space is refused.  This is how many mixers share one set of
     * clips (mn_rig does).  NULL: the mixer builds and owns one clip per
     * model->animations[i], in file order.
     */
    const mn_clip *const *clips;
    uint32_t clip_count;         /* entries in clips (ignored when clips is NULL) */
} mn_mixer_options;

/*
 * A mixer over every node of `model`, at rest (no clip playing; locals,
 * worlds and weights already hold the rest pose).  The model is borrowed and
 * must outlive the mixer.
 * Returns MN_OK and sets *out, or an error with *out = NULL:
 * MN_INVALID_ARGUMENT (NULL model or out, NULL clips entry, a clip bound to a
 * space other than the model's nodes: err names both spaces), MN_INDEX_RANGE
 * and MN_HIERARCHY (a parent out of range or parents forming a cycle: only
 * a hand-built model can have them),
 * MN_OVERFLOW, MN_OUT_OF_MEMORY, and the errors of mn_clip_from_gltf
 * (err names the animation).
 */
MN_API mn_status mn_mixer_create(const mn_model *model, const mn_mixer_options *options,
                                 mn_mixer **out, mn_error *err);

/* Free a mixer and the clips it built (not borrowed ones).  NULL is allowed. */
MN_API void mn_mixer_free(mn_mixer *mixer);

/* ---- clips ------------------------------------------------------------------ */

/* Number of clips the mixer can play. */
MN_API uint32_t mn_mixer_clip_count(const mn_mixer *mixer);

/* Clip `index`, NULL when out of range.  Owned by the mixer (or borrowed by it). */
MN_API const mn_clip *mn_mixer_clip(const mn_mixer *mixer, uint32_t index);

/* Index of the first clip named `name` (strcmp; for set-up, not per frame), MN_NONE when none. */
MN_API uint32_t mn_mixer_find_clip(const mn_mixer *mixer, const char *name);

/* ---- playing ------------------------------------------------------------------ */

/* Play options.  A zeroed struct (or NULL) means: loop, hard cut, speed 1, from the start. */
typedef struct mn_play_options {
    bool once;       /* false: loop; true: play once, stop at the end and set done */
    float fade;      /* crossfade seconds from the current pose; 0 = hard cut; must be >= 0 */
    float speed;     /* playback rate; 0 means 1; negative plays backwards */
    float at;        /* start this many seconds into the clip (wrapped for loops, clamped for
                        one-shots): what keeps a crowd from marching in lockstep */
} mn_play_options;

/*
 * Start clip `index` with `options`.  Clears done and a pause.  The new pose
 * shows at the next mn_mixer_update (call it with dt = 0 to see it now).
 * Errors (nothing changes): MN_INVALID_ARGUMENT (NULL mixer, a negative or
 * non-finite fade, a non-finite speed or at), MN_INDEX_RANGE (no such clip).
 * Allocation-free.
 */
MN_API mn_status mn_mixer_play(mn_mixer *mixer, uint32_t index, const mn_play_options *options,
                               mn_error *err);

/*
 * mn_mixer_play by clip name.  An unknown name is an error, MN_INVALID_VALUE
 * with err naming it, and nothing changes (a misspelt clip name should be
 * loud).  Other errors as mn_mixer_play.
 */
MN_API mn_status mn_mixer_play_named(mn_mixer *mixer, const char *name,
                                     const mn_play_options *options, mn_error *err);

/*
 * Jump the current clip to `t` seconds: wrapped into [0, duration) for a
 * looping clip, clamped to [0, duration] for a one-shot (seeking a finished
 * one-shot before its end clears done and lets it play on).  A fade in
 * progress keeps going.  Shows at the next update.  No effect when no clip
 * was played or t is not finite.
 */
MN_API void mn_mixer_seek(mn_mixer *mixer, float t);

/* Freeze the pose where it is: time and fade stop until resume (or play). */
MN_API void mn_mixer_pause(mn_mixer *mixer);

/* Undo mn_mixer_pause.  A finished one-shot stays finished. */
MN_API void mn_mixer_resume(mn_mixer *mixer);

/* Set the playback rate of the current clip (taken as given: 0 holds the time still). */
MN_API void mn_mixer_set_speed(mn_mixer *mixer, float speed);

/*
 * Show a pose the caller evaluated (a blend tree's, a state machine's, a
 * hand-made one) instead of a clip: `pose` is copied (every node's TRS,
 * node order) and the next mn_mixer_update rebuilds the locals and worlds
 * of every node from it (an instance's mixer: the instance's worlds and
 * deformed vertices), returning true; later updates return false until
 * the next set_pose or play.  Morph weights stay as they were.
 * Clip playback stops: current becomes MN_NONE, a fade and a pause end,
 * and time no longer advances.  A later play starts from this pose as from
 * any pose on screen: with a fade, from a frozen snapshot of it (step 3);
 * at that play, nodes no clip animates go back to rest.  Call it every
 * frame to drive the mixer from a graph.
 * Errors (nothing changes): MN_INVALID_ARGUMENT (NULL mixer or pose, a pose
 * bound to a space other than mn_space_of_nodes(model), checked as the
 * clips' spaces are at creation: err names both), MN_COUNT_MISMATCH (the
 * pose's joint count is not the node count).  Allocation-free.
 */
MN_API mn_status mn_mixer_set_pose(mn_mixer *mixer, const mn_pose *pose, mn_error *err);

/* ---- state -------------------------------------------------------------------- */

/* The clip playing (or paused, or finished), MN_NONE before the first play. */
MN_API uint32_t mn_mixer_current(const mn_mixer *mixer);

/* Seconds into the current clip (0 before the first play). */
MN_API float mn_mixer_time(const mn_mixer *mixer);

/* The playback rate of the current clip. */
MN_API float mn_mixer_speed(const mn_mixer *mixer);

/* True while a clip is advancing: played, not paused and not a finished one-shot. */
MN_API bool mn_mixer_playing(const mn_mixer *mixer);

/* True while paused. */
MN_API bool mn_mixer_paused(const mn_mixer *mixer);

/* True once a one-shot has reached its end; stays true until the next play (or a seek back). */
MN_API bool mn_mixer_done(const mn_mixer *mixer);

/* True while a crossfade is in progress. */
MN_API bool mn_mixer_fading(const mn_mixer *mixer);

/*
 * The clip a crossfade is fading from and still playing, MN_NONE when no
 * fade is running or the fade is from a frozen snapshot (see step 3).
 */
MN_API uint32_t mn_mixer_source(const mn_mixer *mixer);

/* Seconds into the clip mn_mixer_source plays (0 when it is MN_NONE). */
MN_API float mn_mixer_source_time(const mn_mixer *mixer);

/* ---- the frame ------------------------------------------------------------------ */

/*
 * Advance by dt seconds (dt may be 0; a negative or non-finite dt counts as
 * 0) and rebuild the pose, locals, worlds and weights.  Returns true when it
 * rebuilt them, false when nothing could have changed (no clip played yet, or
 * paused or finished and not touched by play or seek since the last update),
 * in which case the outputs are left as they were.  Allocation-free.
 */
MN_API bool mn_mixer_update(mn_mixer *mixer, float dt);

/* Number of nodes (the model's node_count). */
MN_API uint32_t mn_mixer_node_count(const mn_mixer *mixer);

/*
 * The local TRS of every node (node order), as of the last update, bound to
 * mn_space_of_nodes(model).  Owned by the mixer.
 */
MN_API const mn_pose *mn_mixer_pose(const mn_mixer *mixer);

/*
 * Local matrices T·R·S, 16 floats a node, node order.  Owned by the mixer,
 * rewritten by update; an instance's mixer (instance.h) builds them here,
 * on the first call after an update, so fetch them after each update.
 */
MN_API const float *mn_mixer_locals(const mn_mixer *mixer);

/*
 * World matrices in model space, 16 floats a node, node order.  Owned by the
 * mixer.  An instance's mixer builds them here, as mn_mixer_locals, through
 * the skeleton's SIMD local-to-world (equal to the plain mixer's to float
 * rounding: docs/animation.md, "Instances and crowds").
 */
MN_API const float *mn_mixer_worlds(const mn_mixer *mixer);

/*
 * The morph weights of `node`: its mesh's target count of them (the most
 * targets of any of its primitives), in *count; NULL and *count = 0 when the
 * node has no mesh with morph targets or is out of range.  count may be NULL.
 * Owned by the mixer, rewritten by update.
 */
MN_API const float *mn_mixer_weights(const mn_mixer *mixer, uint32_t node, uint32_t *count);

/*
 * KHR_animation_pointer: what the clips' pointer tracks (clip.h) animate,
 * as of the last update — the mixer's own copies of the model's materials,
 * cameras and lights, and its nodes' visibility.  Each update resets every
 * property some clip drives to the model's value, samples the current clip
 * over it, and during a crossfade blends from the source by the fade's
 * weight like the pose (component by component; a bool such as visibility
 * switches at weight 1/2); properties no clip drives keep the model's
 * values, and a caller's pose (mn_mixer_set_pose) shows the model's values
 * everywhere.  The update allocates nothing.
 *
 * mn_mixer_material, _camera and _light return the animated copy of element
 * `index` (the model's own element when no clip animates any property);
 * pointers stay valid for the mixer's life and every field but the animated
 * ones equals the model's (names and texture indices point into the model).
 * NULL for a NULL mixer or an index out of range (the model's light_count
 * for lights).  mn_mixer_node_hidden: whether the node itself is hidden
 * (KHR_node_visibility's visible false; a hidden node hides its
 * descendants, which the caller walks); false out of range.
 * mn_mixer_animates_properties: whether any clip has a pointer track this
 * model can take.
 */
MN_API const mn_material *mn_mixer_material(const mn_mixer *mixer, uint32_t index);
MN_API const mn_camera *mn_mixer_camera(const mn_mixer *mixer, uint32_t index);
MN_API const mn_light *mn_mixer_light(const mn_mixer *mixer, uint32_t index);
MN_API bool mn_mixer_node_hidden(const mn_mixer *mixer, uint32_t node);
MN_API bool mn_mixer_animates_properties(const mn_mixer *mixer);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_MIXER_H */
