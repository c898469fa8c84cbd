/*
 * marionette/clip.h — animation clips and their sampling.
 *
 * A track is a run of keys driving one property of one target (a joint of a
 * skeleton, or a node of a model).  A clip is a set of tracks, built once
 * (keys copied, sorted by time and laid out for sampling) and then sampled as
 * a pure function of time:
 *
 *     mn_clip *clip;
 *     mn_clip_from_gltf_skeleton(model, 0, skeleton, NULL, &clip, &err);
 *     mn_clip_sample(clip, 0.5f, &pose, &err);   // same t, same bits, always
 *
 * A clip records the space its targets index (marionette/pose.h, SPACES):
 * mn_clip_from_gltf makes one over the model's nodes, for a pose of every
 * node (a mixer's); mn_clip_from_gltf_skeleton one over a skeleton's
 * joints, for a pose of that skeleton (what skinning needs).  Sampling a
 * clip into a pose of another space is refused, never a pose of the wrong
 * joints: a glTF channel names a node, and node j is seldom joint j.
 *
 * Interpolation follows the glTF 2.0 specification:
 *   STEP         holds the left key;
 *   LINEAR       lerps; rotations slerp along the short arc (normalised lerp
 *                when nearly parallel);
 *   CUBICSPLINE  the cubic Hermite spline of the specification, tangents
 *                scaled by the key interval (not a lerp of the middle
 *                elements, which is wrong for every curved key).
 * Every sampled rotation is normalised.  Times before the first key or after
 * the last clamp to the end keys.  A cursor (mn_clip_cursor) makes forward
 * playback cheaper and never changes a result.
 */
#ifndef MARIONETTE_CLIP_H
#define MARIONETTE_CLIP_H

#include "core.h"
#include "model.h"
#include "pose.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One track: `components` floats per element; CUBICSPLINE stores 3 elements a key (in-tangent, value, out-tangent). */
typedef struct mn_track {
    uint32_t target;             /* joint or node index the track drives (in the clip's space) */
    mn_anim_path path;           /* translation (3), rotation (4), scale (3), weights (n) */
    mn_interpolation interpolation;
    uint32_t key_count;
    uint32_t components;         /* 3, 4, or the morph target count */
    const float *times;          /* key_count seconds, non-decreasing */
    const float *values;         /* key_count × components (× 3 for CUBICSPLINE) */
} mn_track;

/*
 * Sample one track at time t into out (`components` floats).  A track with no
 * keys leaves out unchanged.  Pure and allocation-free.
 */
MN_API void mn_track_sample(const mn_track *track, float t, float *out);

/* mn_track_sample over a loaded glTF channel. */
MN_API void mn_channel_sample(const mn_channel *channel, float t, float *out);

/*
 * A KHR_animation_pointer track of a clip: a material, camera, light or
 * node-visibility property (model.h, mn_pointer) keyed over time.  Pointers
 * to a node's translation, rotation, scale or weights, and to a mesh's
 * weights, are not pointer tracks: mn_clip_from_gltf makes them ordinary
 * tracks of the nodes they move, so poses, skeletons and mixers take them
 * as they take the core paths.
 */
typedef struct mn_pointer_track {
    mn_pointer pointer;          /* what it drives; text is the clip's own copy */
    mn_interpolation interpolation;   /* STEP for a bool (visible) */
    uint32_t key_count;
    uint32_t components;         /* pointer.components */
    const float *times;          /* key_count seconds, ascending */
    const float *values;         /* key_count × components (× 3 for CUBICSPLINE) */
} mn_pointer_track;

/*
 * A pointer track at t into out[track->components]: STEP, LINEAR or cubic
 * Hermite CUBICSPLINE component by component, as mn_track_sample samples a
 * weights track; a bool gives 1 (true) or 0 (false).  Pure; NULL does
 * nothing.
 */
MN_API void mn_pointer_track_sample(const mn_pointer_track *track, float t, float *out);

/* The runtime clip: opaque, one allocation, immutable once built (share it between threads). */
typedef struct mn_clip mn_clip;

typedef struct mn_clip_options {
    mn_allocator allocator;      /* zero: malloc/free */
    /* Optional remapping for mn_clip_from_gltf: target_map[node] is the
       target (joint) index a channel on that node drives, or MN_NONE to drop
       the channel (e.g. mn_skeleton's joint_of_node; mn_clip_from_gltf_skeleton does
       that and binds the space).  NULL: targets are node indices. */
    const uint32_t *target_map;
    uint32_t target_map_count;   /* entries in target_map (the model's node count) */
    /* The space the targets index (pose.h, SPACES); zero: unbound, the clip
       fits any pose.  mn_clip_create and mn_clip_from_gltf with a target_map
       take it as given (every target must be < space.count); mn_clip_from_gltf
       without one ignores it (the clip is over the model's nodes), and
       mn_clip_from_gltf_skeleton refuses one (the skeleton gives it). */
    mn_space space;
} mn_clip_options;

/*
 * The space of every node of `model`, node order: what mn_clip_from_gltf's
 * clips and a mixer's pose are in.  O(nodes) (a hash of parents and names):
 * for set-up, not per frame.  Unbound (zero) for a NULL model.
 */
MN_API mn_space mn_space_of_nodes(const mn_model *model);

/*
 * Build a clip from tracks (copied; the caller's arrays may go away).  Keys
 * that are not in time order are sorted (stably) with their values.  The
 * clip is in options->space (unbound when zero).
 * Errors: MN_INVALID_ARGUMENT (NULL arrays, components not matching the path,
 * an unknown space kind), MN_INDEX_RANGE (a target >= space.count of a bound
 * space), MN_NOT_FINITE (a NaN or infinite time), MN_OUT_OF_MEMORY.  err
 * names the track.
 */
MN_API mn_status mn_clip_create(const mn_track *tracks, uint32_t track_count, const char *name,
                                const mn_clip_options *options, mn_clip **out_clip, mn_error *err);

/*
 * Build a clip from model->animations[animation].  Without a target_map its
 * targets are node indices and the clip is in mn_space_of_nodes(model): it
 * samples into a pose of every node (a mixer's), and is refused by a
 * skeleton's pose.  With a target_map it is in options->space.
 * Errors as mn_clip_create, plus MN_INDEX_RANGE (animation out of range, a
 * channel's node outside target_map).
 * KHR_animation_pointer channels: one on a node's translation, rotation,
 * scale or weights is a track of that node; one on a mesh's weights is a
 * weights track of each node that shows the mesh without weights of its
 * own (and no weights channel of its own in this animation); every other one
 * is a pointer track (mn_clip_pointer).
 */
MN_API mn_status mn_clip_from_gltf(const mn_model *model, uint32_t animation,
                                   const mn_clip_options *options, mn_clip **out_clip,
                                   mn_error *err);

/*
 * Build a clip from model->animations[animation] over the joints of
 * `skeleton` (made from this model by mn_skeleton_from_skin or
 * mn_skeleton_from_nodes): each channel drives joint
 * skeleton->joint_of_node[its node], channels on other nodes are dropped,
 * and the clip is in skeleton->space, so it samples into the skeleton's
 * poses (its rest pose, poses bound to skeleton->space) and is refused by
 * any other.  The same tracks as mn_clip_from_gltf with target_map =
 * skeleton->joint_of_node.  options: the allocator; target_map and space
 * must be zero (the skeleton gives both).
 * Errors as mn_clip_from_gltf, plus MN_INVALID_ARGUMENT (NULL skeleton, a
 * target_map or space in options, a skeleton made from another model: err
 * names both node counts or spaces).
 */
MN_API mn_status mn_clip_from_gltf_skeleton(const mn_model *model, uint32_t animation,
                                            const mn_skeleton *skeleton,
                                            const mn_clip_options *options, mn_clip **out_clip,
                                            mn_error *err);

/* Free a clip.  NULL is allowed. */
MN_API void mn_clip_free(mn_clip *clip);

MN_API const char *mn_clip_name(const mn_clip *clip);           /* "" when unnamed */
MN_API float mn_clip_duration(const mn_clip *clip);             /* latest key time, 0 for no keys */
MN_API uint32_t mn_clip_track_count(const mn_clip *clip);
MN_API const mn_track *mn_clip_track(const mn_clip *clip, uint32_t index);  /* NULL when out of range */
MN_API mn_space mn_clip_space(const mn_clip *clip);             /* what it indexes; zero for NULL */

/* Pointer tracks (KHR_animation_pointer), in channel order; 0 and NULL for none or out of range. */
MN_API uint32_t mn_clip_pointer_count(const mn_clip *clip);
MN_API const mn_pointer_track *mn_clip_pointer(const mn_clip *clip, uint32_t index);

/* The floats every pointer track's value takes together (the sum of their components). */
MN_API uint32_t mn_clip_pointer_floats(const mn_clip *clip);

/*
 * Every pointer track at t into out[mn_clip_pointer_floats(clip)], track
 * after track (mn_pointer_track_sample each): the same pure function of
 * time as mn_clip_sample, for the properties a pose does not hold.  A
 * caller that does not use them never calls it.  Allocation-free.
 */
MN_API void mn_clip_sample_pointers(const mn_clip *clip, float t, float *out);

/*
 * Sample every translation, rotation and scale track at t into pose.  A joint
 * (or property) that no track mentions keeps what pose held — a rotation-only
 * clip leaves the rest translations you put there.  Tracks of an unbound clip
 * whose target is >= pose->joint_count are skipped.  Weights tracks are not
 * touched (see mn_clip_sample_weights).  Pure, allocation-free; the space
 * check is O(1).
 * Errors (pose untouched): MN_INVALID_ARGUMENT for a NULL clip or pose, or
 * a clip whose space does not fit the pose (pose.h, SPACES: a bound clip
 * needs a pose of its joint count, unbound or bound to the same space); err
 * names the clip's space and the pose's.
 */
MN_API mn_status mn_clip_sample(const mn_clip *clip, float t, mn_pose *pose, mn_error *err);

/*
 * Sample the weights track of `target` at t into out[count].  Returns false,
 * leaving out unchanged, when the clip has no weights track for that target;
 * writes min(count, the track's components) values.
 */
MN_API bool mn_clip_sample_weights(const mn_clip *clip, float t, uint32_t target, float *out,
                                   uint32_t count);

/*
 * A per-player cursor: remembers the key span last sampled in each distinct
 * key-time array of the clip (tracks that share their times share a slot),
 * so forward playback finds the next span in O(1).  It only speeds the
 * search; results are identical to mn_clip_sample for every t, in any order.
 */
typedef struct mn_clip_cursor {
    const mn_clip *clip;
    uint32_t *spans;             /* one per distinct key-time array, in caller storage */
} mn_clip_cursor;

/* Bytes of storage a cursor for this clip needs. */
MN_API size_t mn_clip_cursor_storage_size(const mn_clip *clip);

/* Set up a cursor over caller storage (mn_clip_cursor_storage_size bytes, 4-aligned). */
MN_API void mn_clip_cursor_init(mn_clip_cursor *cursor, const mn_clip *clip, void *storage);

/*
 * mn_clip_sample with a cursor (which must belong to this clip; NULL, or
 * one of another clip, samples without it).  Errors as mn_clip_sample.
 */
MN_API mn_status mn_clip_sample_cursor(const mn_clip *clip, float t, mn_clip_cursor *cursor,
                                       mn_pose *pose, mn_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_CLIP_H */
