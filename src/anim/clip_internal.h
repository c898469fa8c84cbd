/*
 * The runtime clip's layout, shared by its builder (clip_build.c) and its
 * sampler (clip.c).  Not installed.
 *
 * Exporters usually give every channel of an animation the same key times
 * (one glTF accessor shared by all samplers).  The clip keeps one copy of
 * each distinct time array — a timeline — and orders its tracks so that the
 * sampler finds the key span once per timeline and reuses it, with the
 * interpolation fraction, for every track on it:
 *
 *   tracks     in sampling order: first the pose tracks in runs
 *              (translation, rotation, scale with keys), grouped by
 *              timeline, then path, then interpolation, targets ascending
 *              within a group (a run); then the solo pose tracks, by
 *              timeline;
 *              then every other track (weights, empty, and pose tracks a
 *              later track on the same target and path overrides);
 *   runs       consecutive pose tracks of one timeline, path and
 *              interpolation: the sampler's unit of work, one dispatch each;
 *   solos      the pose tracks of timelines with at most CLIP_SOLO_MAX of
 *              them (files whose tracks each have their own key times), in
 *              no run: the sampler takes them in one loop a kind;
 *   timelines  each distinct time array (same key count, bit-identical
 *              times) with its runs; a cursor keeps one span per timeline.
 *
 * mn_clip_track(i) still answers in input order through track_of_input.
 *
 * One allocation holds, in order: this header, the track records, the input
 * order map, the indices of the weights tracks, the timelines, the runs, the
 * solo records, the name, then each timeline's times and each track's values
 * (in sampling order), 16-byte aligned, then CLIP_TAIL_PAD zero bytes: the
 * sampler loads a 3-float key as four floats, so the last key of the last
 * track must not end the block.
 */
#define CLIP_TAIL_PAD 16u
#ifndef MN_ANIM_CLIP_INTERNAL_H
#define MN_ANIM_CLIP_INTERNAL_H

#include <marionette/clip.h>

#include "core/simd.h"

/* Consecutive pose tracks (clip->tracks[first .. first + count)) sampled alike. */
typedef struct mn_clip_run {
    uint32_t first, count;       /* targets ascending: those in a pose are a prefix */
    mn_anim_path path;           /* translation, rotation or scale */
    mn_interpolation interpolation;
} mn_clip_run;

/*
 * A pose track on a timeline of few tracks (at most CLIP_SOLO_MAX sampled
 * ones: per-track or per-joint key times), sampled by the solo loop, which
 * finds its span and interpolates it in one pass: runs of one track would
 * cost a dispatch each.  Grouped by kind (path × interpolation).
 */
typedef struct mn_clip_solo {
    const float *times;          /* its timeline's times */
    const float *values;
    float first, last;           /* times[0], times[key_count - 1] */
    float rate;                  /* (key_count - 1) / (last - first), 0 if equal: the span guess */
    float guess_max;             /* key_count - 2, the last span, as a float (0 for one key) */
    uint32_t key_count;          /* >= 1 */
    uint32_t target;
    uint32_t timeline;           /* where its cursor span is */
} mn_clip_solo;

#define CLIP_SOLO_MAX 3u
/* The solo kinds: path (translation, rotation, scale) × 3 + interpolation. */
#define CLIP_SOLO_KINDS 9u

/* One distinct time array and the runs of pose tracks keyed by it. */
typedef struct mn_clip_timeline {
    const float *times;          /* key_count seconds, sorted, in the block */
    uint32_t key_count;          /* >= 1 */
    uint32_t first_run, run_count;   /* into clip->runs; 0 runs: only weights (or overridden) tracks use it */
} mn_clip_timeline;

struct mn_clip {
    mn_allocator allocator;      /* what the block came from */
    size_t block_size;
    const char *name;            /* never NULL */
    float duration;
    uint32_t track_count;
    mn_track *tracks;            /* sampling order (above); times/values point into the block */
    uint32_t *track_of_input;    /* input track i is tracks[track_of_input[i]] */
    uint32_t weights_count;
    uint32_t *weights_tracks;    /* indices into tracks of the weights tracks, in input order */
    uint32_t timeline_count;     /* those with runs first, in the order their runs come, then solo ones */
    mn_clip_timeline *timelines;
    uint32_t run_count;
    mn_clip_run *runs;
    /* solos[solo_first[k] .. solo_first[k + 1]): the solo tracks of kind k, timeline order */
    uint32_t solo_first[CLIP_SOLO_KINDS + 1];
    mn_clip_solo *solos;
    mn_space space;              /* what the targets index (pose.h, SPACES) */
    uint32_t pointer_count;      /* KHR_animation_pointer tracks, after the keys in the block */
    mn_pointer_track *pointers;
    uint32_t pointer_floats;     /* the sum of their components */
    /* Set on a view of a compressed clip (mn_clip_from_compressed): sampling
       and cursors go to it, and the tracks above only say what it drives. */
    const struct mn_compressed_clip *compressed;
    /* Its records read out once (compressed_sample.h), for sampling without a
       cursor; owned (prepared_bytes, the clip's allocator).  NULL: parse. */
    void *compressed_prepared;
    size_t compressed_prepared_bytes;
};

/* The compressed sampler (compressed_sample.c): cache is a cursor's storage or NULL. */
void mni_compressed_sample_prepared(const struct mn_compressed_clip *clip, const void *prepared,
                                    float t, void *cache, mn_pose *pose, mn_simd_level level);
void mni_compressed_sample(const struct mn_compressed_clip *clip, float t, void *cache,
                           mn_pose *pose, mn_simd_level level);
size_t mni_compressed_cursor_size(const struct mn_compressed_clip *clip);

/*
 * mn_clip_sample with the kernels of `level` (resolved by mni_simd_resolve:
 * a level the CPU or build lacks falls back): for the tests, which hold
 * every level to mn_track_sample's bits.
 */
void mni_clip_sample_at(const mn_clip *clip, float t, mn_pose *pose, mn_simd_level level);

/*
 * mn_clip_sample_cursor without the checks (clip and pose not NULL, the
 * space already checked; cursor may be NULL): for the library's own callers
 * that check a clip's space once, where they take it (a blend tree at
 * build, a mixer at creation).
 */
void mni_clip_sample_into(const mn_clip *clip, float t, mn_clip_cursor *cursor, mn_pose *pose);

/*
 * The sampler's SIMD kernels (core/simd.h, the convention), bit for bit the
 * scalar code; clip.c's dispatch calls them at the levels they are for.
 *
 * mni_clip_slerp_<isa>: a linear rotation run's tracks (targets inside the
 * pose) slerped at span k, fraction s, into rotations, W tracks at a time (4
 * for SSE2, 8 for AVX2; clip_kernel.h), a tail taken by overlapping the last
 * W: returns count when count >= W, else 0 (nothing done).
 * mni_clip_hermite_<isa>: the same for a CUBICSPLINE rotation run, the
 * Hermite basis h (h00, h10, h01, h11, tangent terms already scaled by Δt)
 * applied to span k of each track, then normalised.
 * mni_clip_slerp_scattered_<isa>: count linear rotations each at its own
 * span and fraction (tracks on different timelines, gathered by the
 * dispatch): keys[i] is track i's key k, s[i] its fraction, out[i] where its
 * rotation goes; returns count when count >= W (the tail overlapped), else 0.
 * mni_clip_hermite_scattered_<isa>: count cubic rotations each at its own
 * span (solo tracks): keys[i] is track i's key k, h[j][i] its basis term j,
 * out[i] where its rotation goes; returns count when count >= W, else 0.
 * mni_clip_lerp3_sse2, mni_clip_hermite3_sse2: a translation or scale run
 * (3 floats a key) at span k, every track, one to an SSE2 register, into
 * base (the pose's translations or scales); mni_clip_lerp3_avx2 the linear
 * one two tracks to a register, the same bits.
 * mni_clip_solo_lerp3_sse2, mni_clip_solo_hermite3_sse2: the solo loop's
 * linear or cubic translation or scale tracks of one kind (count of them
 * from so), each located at t (spans: the cursor's, or NULL) and sampled in
 * one SSE2 register into base; targets from joint_count on are skipped.
 * mni_clip_solo_gather_sse2: the solo loop's linear rotations located four
 * at a time into the scattered batch (keys, s, out: room entries), as far
 * as every quad is in the pose with its span where the guess says; returns
 * how many it took (a multiple of four), the caller doing the rest.
 * mni_clip_solo_hgather_sse2: the same for cubic rotations into the cubic
 * batch, h[c] + i each track's Hermite basis term c.
 */
#if MN_WITH_SSE2
uint32_t mni_clip_slerp_sse2(const mn_track *tracks, uint32_t count, uint32_t k, float s,
                             float *rotations);
uint32_t mni_clip_hermite_sse2(const mn_track *tracks, uint32_t count, uint32_t k,
                               const float h[4], float *rotations);
uint32_t mni_clip_slerp_scattered_sse2(const float *const *keys, const float *s, float *const *out,
                                       uint32_t count);
uint32_t mni_clip_hermite_scattered_sse2(const float *const *keys, const float *const *h,
                                         float *const *out, uint32_t count);
void mni_clip_lerp3_sse2(const mn_track *tracks, uint32_t count, uint32_t k, float s, float *base);
void mni_clip_hermite3_sse2(const mn_track *tracks, uint32_t count, uint32_t k, const float h[4],
                            float *base);
void mni_clip_solo_lerp3_sse2(const mn_clip_solo *so, uint32_t count, float t, uint32_t *spans,
                              uint32_t joint_count, float *base);
void mni_clip_solo_hermite3_sse2(const mn_clip_solo *so, uint32_t count, float t, uint32_t *spans,
                                 uint32_t joint_count, float *base);
uint32_t mni_clip_solo_gather_sse2(const mn_clip_solo *so, uint32_t count, float t,
                                   uint32_t joint_count, float *rotations, const float **keys,
                                   float *s, float **out, uint32_t room);
uint32_t mni_clip_solo_hgather_sse2(const mn_clip_solo *so, uint32_t count, float t,
                                    uint32_t joint_count, float *rotations, const float **keys,
                                    float *const h[4], float **out, uint32_t room);
#endif
#if MN_WITH_AVX2
uint32_t mni_clip_slerp_avx2(const mn_track *tracks, uint32_t count, uint32_t k, float s,
                             float *rotations);
uint32_t mni_clip_hermite_avx2(const mn_track *tracks, uint32_t count, uint32_t k,
                               const float h[4], float *rotations);
uint32_t mni_clip_slerp_scattered_avx2(const float *const *keys, const float *s, float *const *out,
                                       uint32_t count);
uint32_t mni_clip_hermite_scattered_avx2(const float *const *keys, const float *const *h,
                                         float *const *out, uint32_t count);
void mni_clip_lerp3_avx2(const mn_track *tracks, uint32_t count, uint32_t k, float s, float *base);
#endif

#endif /* MN_ANIM_CLIP_INTERNAL_H */
