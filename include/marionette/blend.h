/*
 * marionette/blend.h — combining poses: a blend of two, an additive layer
 * over one, per-joint masks for both, a checked joint write, and additive
 * deltas (one pose, or a whole clip).
 *
 *     mn_pose_blend(&walk, &run, 0.3f, &out, &err);            // walk toward run
 *     mn_pose_add(&out, &wave_delta, 1.0f, &out, &err);        // a layer on top
 *     mn_pose_add_masked(&out, &aim_delta, 1.0f, upper_body, n, &out, &err);
 *
 * Every function fills a caller-owned pose, allocates nothing (except
 * mn_clip_create_additive, which builds a clip) and is a pure function of
 * its inputs.  `out` may be the same pose as any input: each joint is read
 * in full before it is written.  On error `out` is left untouched.
 *
 * THE FORMULAS
 *   clamp01(x) = x > 0 ? (x < 1 ? x : 1) : 0, so NaN counts as 0.
 *   Blend, w = clamp01(t): w = 0 copies a and w = 1 copies b, bit-exactly.
 *     Otherwise translation and scale are a + (b − a)·w; rotations take the
 *     short arc (b negated when a·b < 0), normalised lerp when a·b > 0.9995,
 *     slerp otherwise, and the result is normalised.  Inputs are used as
 *     they are (not normalised first).  The slerp weights sin((1−w)θ)/sin θ
 *     and sin(wθ)/sin θ come from a series (no trigonometric calls) that
 *     is within 5e-7 of the exact ones at every angle.
 *   Add, w = clamp01(weight), delta (ΔT, ΔR, ΔS) over base (T, R, S):
 *     T + w·ΔT;  normalize(R · S(ΔR, w));  S ⊙ (1 + (ΔS − 1)·w).
 *     The delta acts in the joint's own frame (three.js / Godot convention).
 *     w = 0 copies the base bit-exactly; a zero delta (0, I, 1) gives the base.
 *   Delta of pose P against reference F:
 *     ΔT = T_P − T_F;  ΔR = normalize(normalize(R_F)⁻¹ · R_P);  ΔS = S_P ⊘ S_F,
 *     so mn_pose_add(F, delta(P, F), 1) = P.
 *   S(q, w), "scale from identity" (mn_quat_scale_from_identity): q along
 *     its short arc from identity by the fraction w.
 *   Mask: joint j blends (or adds) with clamp01(t)·clamp01(mask[j]); a NULL
 *     mask means 1 everywhere.  mask[j] = 0 copies a (or the base) exactly.
 *     Nothing propagates from a joint to its children: an upper-body mask
 *     names every joint of the upper body.
 */
#ifndef MARIONETTE_BLEND_H
#define MARIONETTE_BLEND_H

#include "core.h"
#include "pose.h"
#include "clip.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * out = a blended toward b by t (clamped to [0, 1]; NaN counts as 0).
 * a, b and out must have the same joint count.  out may be a or b.
 * Errors (out untouched): MN_INVALID_ARGUMENT (a NULL pose),
 * MN_COUNT_MISMATCH (joint counts differ).  Allocation-free.
 */
MN_API mn_status mn_pose_blend(const mn_pose *a, const mn_pose *b, float t, mn_pose *out,
                               mn_error *err);

/*
 * mn_pose_blend with a per-joint weight: joint j uses clamp01(t)·clamp01(mask[j]).
 * mask holds mask_count floats and mask_count must equal the joint count;
 * mask NULL means every joint at 1 (then mask_count is ignored), which is
 * exactly mn_pose_blend.  The mask is typically built once (an upper-body
 * layer: 1 for the spine and everything above it, 0 elsewhere).
 * Errors (out untouched): as mn_pose_blend, plus MN_COUNT_MISMATCH for a
 * mask of the wrong length.  Allocation-free.
 */
MN_API mn_status mn_pose_blend_masked(const mn_pose *a, const mn_pose *b, float t,
                                      const float *mask, uint32_t mask_count, mn_pose *out,
                                      mn_error *err);

/*
 * out = delta applied on top of base by weight (clamped to [0, 1]): the
 * additive layer.  Translation adds, rotation composes (base · S(ΔR, w),
 * the delta acting in the joint's frame), scale multiplies.  A delta comes
 * from mn_pose_make_additive or from sampling a clip made by
 * mn_clip_create_additive into a pose reset with mn_pose_set_identity.
 * out may be base or delta.
 * Errors (out untouched): MN_INVALID_ARGUMENT (a NULL pose),
 * MN_COUNT_MISMATCH (joint counts differ).  Allocation-free.
 */
MN_API mn_status mn_pose_add(const mn_pose *base, const mn_pose *delta, float weight,
                             mn_pose *out, mn_error *err);

/*
 * mn_pose_add with a per-joint weight clamp01(weight)·clamp01(mask[j]); mask
 * as for mn_pose_blend_masked (NULL: all 1).
 * Errors (out untouched): as mn_pose_add, plus MN_COUNT_MISMATCH for a mask
 * of the wrong length.  Allocation-free.
 */
MN_API mn_status mn_pose_add_masked(const mn_pose *base, const mn_pose *delta, float weight,
                                    const float *mask, uint32_t mask_count, mn_pose *out,
                                    mn_error *err);

/*
 * out_delta = the additive delta that takes `reference` to `pose`
 * (ΔT = T − T_ref, ΔR = normalize(normalize(R_ref)⁻¹·R), ΔS = S ⊘ S_ref),
 * so that mn_pose_add(reference, out_delta, 1) gives pose back (within
 * float rounding).  out_delta may be pose or reference.
 * Errors (out_delta untouched): MN_INVALID_ARGUMENT (a NULL pose, or a
 * reference scale component that is zero: err names the joint and axis),
 * MN_COUNT_MISMATCH (joint counts differ).  Allocation-free.
 */
MN_API mn_status mn_pose_make_additive(const mn_pose *pose, const mn_pose *reference,
                                       mn_pose *out_delta, mn_error *err);

/*
 * S(q, w): the rotation q scaled from identity by the fraction w along its
 * short arc (q negated first when q.w < 0).  When q.w > 0.9995 it is
 * normalize((1 − w)·I + w·q); otherwise, with θ = 2·acos(q.w),
 * (sin(wθ/2)/sin(θ/2)·q.xyz, cos(wθ/2)).  w is used as given (not clamped):
 * 0 gives identity, 1 gives ±q.  q should be unit.  out may alias q.
 * Used by the additive layer and by solvers that weight a correction.
 */
MN_API void mn_quat_scale_from_identity(float out[4], const float q[4], float w);

/*
 * Build the additive version of `clip` against `reference` (a pose whose
 * joint j is the reference for tracks targeting joint j): the same tracks,
 * times, interpolation and key counts, each value converted to its delta
 * as mn_pose_make_additive does.  CUBICSPLINE tangents are converted
 * linearly (translation tangents unchanged, rotation tangents R_ref⁻¹·m,
 * scale tangents m ⊘ S_ref), so sampling the additive clip at any t gives
 * the delta of sampling the original at t.  Weights tracks are copied
 * unchanged.  Only tracked channels get tracks: sample the result into a
 * pose reset by mn_pose_set_identity so untracked channels hold the zero
 * delta (T 0, R I, S 1) rather than stale values.
 * options: as for mn_clip_create (allocator; target_map and space are
 * ignored: the new clip is in the original's space).  The new clip has the
 * original's name; free it with mn_clip_free.
 * Errors (*out_clip = NULL): MN_INVALID_ARGUMENT (NULL clip, reference or
 * out_clip; a reference whose space the clip does not fit, as sampling
 * checks; a zero reference scale component on a joint a scale track
 * drives: err names the track and joint), MN_INDEX_RANGE (a pose
 * track targets a joint >= reference->joint_count: err names the track),
 * MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_clip_create_additive(const mn_clip *clip, const mn_pose *reference,
                                         const mn_clip_options *options, mn_clip **out_clip,
                                         mn_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_BLEND_H */
