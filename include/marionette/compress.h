/*
 * marionette/compress.h — compressed clips and the error metric that sizes them.
 *
 * THE ERROR METRIC
 *   mn_clip_error_measure compares two clips on a skeleton the way a viewer
 *   sees them: at every sample time (each key time of the reference clip and
 *   the midpoint between each two consecutive ones) both clips are sampled
 *   over the skeleton's rest pose, the whole hierarchy is composed into
 *   object space, and three virtual vertices a shell distance from each
 *   joint (along its local x, y and z axes: rotation about any axis and
 *   scale along any axis move one of them) are compared.  The error of a
 *   joint at a time is the largest of its three distances, in model units
 *   (metres for glTF), so an error near the root is counted where it shows:
 *   at the hands.  Reported as the maximum and the 99th percentile over all
 *   (time, joint) samples, and per joint.  The compressor uses the same
 *   function's core; the benchmark and the tests call this one.
 *
 * THE COMPRESSED CLIP
 *   mn_compress_clip builds, offline, a compressed clip from any mn_clip on
 *   a skeleton, within a maximum error of the metric above (default 0.1 mm
 *   at a 3 cm shell):
 *     - the clip is resampled uniformly at its key rate (the finest key
 *       spacing, at most 240 Hz, rounded so that a whole number of frames
 *       spans the duration);
 *     - a track whose every sample is within its tolerance of one value is
 *       stored once (constant), and a constant track equal to the
 *       skeleton's rest is not stored at all (default: sampling writes
 *       nothing for it, so the pose keeps its rest value, which mixers,
 *       blend trees and state machines start from);
 *     - each other track keeps one knot every 1, 2, 4, ... 32 frames (the
 *       stride): the frames themselves, interpolated linearly, at stride 1;
 *       above, the control points of a uniform cubic B-spline fitted by
 *       least squares to every frame and midpoint between frames; or, for
 *       a LINEAR or STEP track whose keys lie on the frame grid, the
 *       frames at its keys (keyed: few or unevenly spaced keys); knots
 *       are quantised on one grid per track (a minimum per component and
 *       one step, 2^-1 .. 2^-24 of the widest component's extent in
 *       quarter-bit steps), and per segment of 16 or 32 knots each
 *       component keeps a base on the grid and its values above it, each
 *       in the fewest bits that hold them (a quiet component costs few);
 *       where it takes fewer bytes a segment stores differences from the
 *       knot before, or differences of differences (the same values:
 *       sampling at a random time then sums along the segment, at most
 *       32 knots; plain_only turns this off);
 *     - rotations: the track's quaternions are first made continuous
 *       (each negated when its dot with the previous is negative).  When
 *       every w of the result has one sign the track is negated, if need
 *       be, so that w >= 0 everywhere, and only x, y, z are stored
 *       (w = sqrt(max(0, 1 - x² - y² - z²)), rebuilt per knot at stride 1,
 *       after the curve above); otherwise all four are stored; every
 *       sampled rotation is normalised;
 *     - stride and bit rate are chosen per track: first from a tolerance
 *       each joint gets from the bound (its share of the error along the
 *       longest chain through it, divided by the distance from the joint to
 *       its farthest descendant's vertex), then tightened along the chain
 *       from the root to whichever joint the hierarchy-aware metric finds
 *       over the bound, until none is; on small clips each track's
 *       precision is then lowered greedily, a quarter bit a round, leaves
 *       first, while the metric of the whole block holds.  Tracks outside the skeleton, and
 *       weights tracks, are not stored (stats say how many).
 *
 *   The result is one relocatable block of bytes (docs/formats.md,
 *   "Compressed clips (.mnanim)"): offsets, never pointers, so it can be
 *   written to a file as it is and mapped back with mn_compressed_clip_view,
 *   which checks the header, every size and offset, and the checksum.
 *
 * GLTF OUTPUT
 *   mn_compress_gltf makes, offline, every animation of a glTF model into
 *   keys that mn_gltf_write stores quantised and meshopt-compressed
 *   (marionette/gltf.h, mn_gltf_channel_encoding), within the same bound
 *   of the metric above, measured on the values a reader decodes:
 *     - candidate keys per channel: its keys (STEP, LINEAR), or its
 *       CUBICSPLINE curve sampled 8 times a key interval (written LINEAR);
 *     - keys reduced per channel: a STEP channel keeps a key where its
 *       value moves by more than the channel's tolerance, a LINEAR one the
 *       keys a greedy forward scan keeps so that every candidate lies
 *       within the tolerance of the line (slerp for rotations) between its
 *       kept neighbours; a channel within it of its first key keeps one key;
 *     - bits per channel: the fewest (rotations QUATERNION 8..16, then
 *       EXPONENTIAL 17..24 when 16-bit components err by more than the
 *       whole tolerance; the rest EXPONENTIAL 6..24) that stay within a
 *       quarter of the tolerance, and the fewest time
 *       bits (10..24) that keep times increasing and whose time shift
 *       times the channel's speed stays within a quarter of it;
 *     - tolerances: rotation angle and relative scale k × bound / lever
 *       (the joint's reach: shell plus its farthest descendant),
 *       translation k × bound, k = 1/2 at first; the whole clip is then
 *       measured and every joint over the bound tightens k along its chain
 *       to the root, until none is (at most 24 rounds; an animation that
 *       never meets it keeps its source keys, losslessly encoded);
 *     - weights channels, outside the metric: within 1e-4 a weight.
 *
 * SAMPLING
 *   mn_clip_from_compressed wraps a compressed clip as an mn_clip, so every
 *   consumer of clips (mn_clip_sample and its cursor, mixers, blend trees,
 *   state machines, instances) takes it as it takes a raw clip: the same
 *   calls, the same spaces, pure and allocation-free.  Its tracks
 *   (mn_clip_track) describe what it drives and hold no keys (key_count 0):
 *   code that reads keys (additive clips, root motion) needs the raw clip.
 */
#ifndef MARIONETTE_COMPRESS_H
#define MARIONETTE_COMPRESS_H

#include "core.h"
#include "clip.h"
#include "gltf.h"
#include "pose.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default shell distance of the metric, in model units (3 cm). */
#define MN_SHELL_DISTANCE_DEFAULT 0.03f
/* The default maximum error of mn_compress_clip, in model units (0.1 mm). */
#define MN_COMPRESS_ERROR_DEFAULT 0.0001f

/* Options of the metric.  Zero means the default of each field. */
typedef struct mn_clip_error_options {
    mn_allocator allocator;      /* zero: malloc/free (scratch freed before return) */
    float shell;                 /* vertex distance from each joint; 0: MN_SHELL_DISTANCE_DEFAULT */
} mn_clip_error_options;

/* What the metric found. */
typedef struct mn_clip_error {
    float max;                   /* the largest error of any joint at any sample time */
    float p99;                   /* the 99th percentile over every (time, joint) sample */
    uint32_t worst_joint;        /* where max is (MN_NONE for a skeleton of no joints) */
    float worst_time;
    uint32_t time_count;         /* sample times */
} mn_clip_error;

/*
 * Measure `candidate` against `reference` on `skeleton` (see THE ERROR
 * METRIC).  Both clips must fit a pose of the skeleton (its joint space) or
 * be in the node space of the model the skeleton was made from (node count
 * skeleton->node_count): targets are then mapped through joint_of_node.
 * joint_max and joint_p99 (skeleton->joint_count floats each, joint order)
 * may be NULL.  Allocates scratch O(times × joints) through the options'
 * allocator and frees it.
 * Errors: MN_INVALID_ARGUMENT (NULL skeleton, clip or out, a clip of
 * another space: err names it, a negative or non-finite shell),
 * MN_OUT_OF_MEMORY, MN_OVERFLOW.
 */
MN_API mn_status mn_clip_error_measure(const mn_skeleton *skeleton, const mn_clip *reference,
                                       const mn_clip *candidate,
                                       const mn_clip_error_options *options, mn_clip_error *out,
                                       float *joint_max, float *joint_p99, mn_error *err);

/* A compressed clip: the first byte of its block (relocatable; see above). */
typedef struct mn_compressed_clip mn_compressed_clip;

/* Options of mn_compress_clip.  Zero means the default of each field. */
typedef struct mn_compress_options {
    mn_allocator allocator;      /* zero: malloc/free; the block and all scratch come from it */
    float max_error;             /* bound on the metric's max; 0: MN_COMPRESS_ERROR_DEFAULT */
    float shell;                 /* the metric's shell; 0: MN_SHELL_DISTANCE_DEFAULT */
    bool plain_only;             /* true: no records of differences, so that sampling at random
                                    times decodes each knot directly (larger blocks) */
} mn_compress_options;

/* What mn_compress_clip made. */
typedef struct mn_compress_stats {
    size_t bytes;                /* the block's size */
    uint32_t frame_count;        /* uniform frames the clip was resampled at */
    float sample_rate;           /* frames per second */
    uint32_t animated_tracks, constant_tracks, default_tracks;
    uint32_t dropped_tracks;     /* weights tracks and tracks on targets outside the skeleton */
    float max_error, p99_error;  /* the metric on the result (also stored in the block) */
    bool bound_met;              /* max_error <= the bound (false only when even 16 bits at
                                    every frame cannot meet it: resampling alone errs more) */
} mn_compress_stats;

/*
 * Compress `clip` on `skeleton` (see THE COMPRESSED CLIP).  The clip must
 * be in the skeleton's joint space or its model's node space, as for
 * mn_clip_error_measure; the compressed clip keeps the clip's space, name
 * and targets.  *out is one block from the options' allocator: free it with
 * mn_compressed_clip_free and the same allocator.  stats may be NULL.
 * Time O(frames × tracks × candidates) plus O(frames × joints) per round
 * of the hierarchy check.
 * Errors (*out = NULL): MN_INVALID_ARGUMENT (NULL arguments, a clip of
 * another space, a non-positive or non-finite max_error or shell),
 * MN_OVERFLOW (more than 2^24 frames, a block over 4 GiB), MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_compress_clip(const mn_clip *clip, const mn_skeleton *skeleton,
                                  const mn_compress_options *options, mn_compressed_clip **out,
                                  mn_compress_stats *stats, mn_error *err);

/* Free a block mn_compress_clip made, through the allocator it was made with.  NULL is allowed. */
MN_API void mn_compressed_clip_free(mn_compressed_clip *clip, const mn_allocator *allocator);

/*
 * Check `size` bytes as a compressed clip and view them as one, in place
 * (no copy, no fix-up): magic, version, the header's sizes, every offset
 * and count, every track record, and the checksum.  bytes must be 8-byte
 * aligned (as malloc and mmap give) and outlive the view; size may exceed
 * the block (a file's padding is ignored).  O(size).
 * Errors (*out = NULL; err names the item and its byte offset):
 * MN_INVALID_ARGUMENT (NULL or misaligned bytes), MN_INVALID_VALUE (magic,
 * version (only version 3 is read: a version 2 block is refused, to be
 * compressed again), flags, checksum, the name's NUL, the tail, a track
 * record's desc, target encoding, bits, stride, knot count or key frames),
 * MN_INDEX_RANGE (a target outside the space), MN_ACCESSOR_BOUNDS (a
 * header field or record that runs past its end, a truncated block),
 * MN_COUNT_MISMATCH (records that end before the name), MN_NOT_FINITE (a
 * non-finite value, minimum, quantum, duration, shell or error).
 */
MN_API mn_status mn_compressed_clip_view(const void *bytes, size_t size,
                                         const mn_compressed_clip **out, mn_error *err);

/* What a compressed clip holds. */
typedef struct mn_compressed_clip_info {
    size_t bytes;                /* the block: write these bytes to store it */
    const char *name;            /* "" when unnamed; inside the block */
    float duration, sample_rate;
    uint32_t frame_count, track_count;
    mn_space space;
    float max_error, p99_error, shell;   /* the metric as measured when it was made (the errors
                                            stored to 8 bits of mantissa, rounded up) */
} mn_compressed_clip_info;

/*
 * The bytes a glTF animation's keys take as float32, the yardstick of a
 * compression ratio: every distinct times array (4 bytes a key) and values
 * array (4 bytes a component, three times that for CUBICSPLINE's tangents)
 * counted once, however many channels share it.  0 for NULL.
 */
MN_API size_t mn_animation_raw_bytes(const mn_animation *animation);

/* The block's header read out; zero for NULL. */
MN_API mn_compressed_clip_info mn_compressed_clip_info_of(const mn_compressed_clip *clip);

/*
 * Sample every stored track at t (clamped to [0, duration]) into pose, as
 * mn_clip_sample does for a raw clip: the same space check, default tracks
 * untouched.  Pure, allocation-free.
 * Errors (pose untouched): MN_INVALID_ARGUMENT (NULL clip or pose, a space
 * that does not fit the pose).
 */
MN_API mn_status mn_compressed_clip_sample(const mn_compressed_clip *clip, float t, mn_pose *pose,
                                           mn_error *err);

/*
 * An mn_clip over a compressed clip (borrowed: it must outlive the view),
 * for every consumer of clips; free it with mn_clip_free.  Its name,
 * duration and space are the compressed clip's; its tracks hold no keys.
 * The view keeps the block's records read out (about 128 bytes a track,
 * from allocator), so that sampling it without a cursor parses nothing.
 * A cursor (mn_clip_cursor_storage_size, about 320 bytes a track, 4-aligned
 * is enough) holds each track's record and the decoded knots of forward
 * playback, and never changes a result.
 * Errors: MN_INVALID_ARGUMENT (NULL arguments), MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_clip_from_compressed(const mn_compressed_clip *compressed,
                                         const mn_allocator *allocator, mn_clip **out,
                                         mn_error *err);

/* What mn_compress_gltf made (see GLTF OUTPUT).  Free with mn_gltf_compressed_free. */
typedef struct mn_gltf_compressed {
    const mn_model *source;      /* the model given (borrowed) */
    mn_model model;              /* a shallow copy of it whose animations hold the reduced keys:
                                    everything else is the source's (which must outlive this);
                                    write it with mn_gltf_write, never mn_model_free it */
    const mn_gltf_channel_encoding *encodings;   /* one per channel of every animation, in order:
                                                    mn_gltf_write_options.channel_encodings */
    uint32_t encoding_count;
    float max_error;             /* the metric's largest, over the clips, on the decoded keys */
    bool bound_met;              /* false: some animation kept its source keys (lossless) */
    struct mn_gltf_compressed_private *priv_;
} mn_gltf_compressed;

/*
 * Reduce and quantise every animation of `model` on `skeleton` (made from
 * the model's nodes, mn_skeleton_from_nodes) within options' bound (see GLTF
 * OUTPUT).  *out borrows model.  Time O(rounds × (candidates × span +
 * times × joints)) per animation.
 * Errors (*out = NULL): MN_INVALID_ARGUMENT (NULL arguments, a skeleton of
 * another model, a non-positive max_error or shell, a channel of more than
 * 64 components), MN_OUT_OF_MEMORY, MN_OVERFLOW.
 */
MN_API mn_status mn_compress_gltf(const mn_model *model, const mn_skeleton *skeleton,
                                  const mn_compress_options *options, mn_gltf_compressed **out,
                                  mn_error *err);

/* Free what mn_compress_gltf made.  NULL is allowed. */
MN_API void mn_gltf_compressed_free(mn_gltf_compressed *compressed);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_COMPRESS_H */
