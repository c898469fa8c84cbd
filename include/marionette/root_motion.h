/*
 * marionette/root_motion.h — how far a clip moves its root, and pinning it.
 *
 * Root motion is two calls, and making only one of them is the mistake:
 *
 *     mn_root_motion m;
 *     mn_root_motion_extract(clip, root, &sk->rest, t_prev, t, &m, &err);
 *     position += world_rotation * m.translation;    // the motion, in the root's frame at t_prev
 *     world_rotation = world_rotation * m.rotation;
 *     mn_clip_sample(clip, wrapped(t), &pose, &err);
 *     mn_root_motion_strip(clip, root, &pose, &err); // pin the root to the clip at time 0
 *
 * Extract without strip and the character moves twice, at exactly double
 * speed within a cycle, with nothing failing.
 *
 * The clip is taken as looping with period d = mn_clip_duration (from time 0,
 * even when the first key is later).  Times are unwrapped: cycle k (the k-th
 * repeat, t in [k·d, (k+1)·d)) is cycle 0 moved to start where cycle k−1
 * ended.  So motion is *accumulated* across wraps: sampling the root at two
 * times and subtracting would answer a full stride backwards at every wrap.
 * All three translation components are motion, a vertical bob authored on
 * the root included (strip pins it away from the pose).  Both calls are
 * pure and allocate nothing.
 */
#ifndef MARIONETTE_ROOT_MOTION_H
#define MARIONETTE_ROOT_MOTION_H

#include "clip.h"
#include "core.h"
#include "pose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A rigid motion: translation, then rotation (unit quaternion, x y z w). */
typedef struct mn_root_motion {
    float translation[3];
    float rotation[4];
} mn_root_motion;

/*
 * The root's motion from unwrapped time `from` to `to`, in the root's own
 * frame at `from`: translation Q(from)⁻¹·(P(to) − P(from)), rotation
 * Q(from)⁻¹·Q(to), where (P, Q) is the root's local translation and rotation
 * accumulated over whole cycles.  to < from gives the inverse motion;
 * to = from gives (0, identity).  Scale is ignored.
 *
 * `root` is the target index the clip's tracks use for the root joint.
 * `base` (may be NULL) supplies the root channels the clip does not animate,
 * usually the skeleton's rest pose; NULL stands for translation 0 and
 * rotation identity.  A root whose rotation is constant but not identity
 * needs `base`, or the translation comes out in the parent's frame.
 *
 * Output: *out, written only on MN_OK.  Allocates nothing.
 * Errors: MN_INVALID_ARGUMENT (NULL clip or out; duration 0; the clip
 * animates neither the translation nor the rotation of `root`; root outside
 * `base`), MN_NOT_FINITE (from or to not finite).
 */
MN_API mn_status mn_root_motion_extract(const mn_clip *clip, uint32_t root, const mn_pose *base,
                                        float from, float to, mn_root_motion *out, mn_error *err);

/*
 * Pin the root: set pose's root translation and rotation to the clip's
 * value at time 0, for each of the two channels the clip animates on that
 * joint.  Scale and unanimated channels are left as they are.  Call it
 * after sampling the clip into the pose.
 * Errors: MN_INVALID_ARGUMENT (NULL clip or pose; root outside the pose), the pose untouched.
 */
MN_API mn_status mn_root_motion_strip(const mn_clip *clip, uint32_t root, mn_pose *pose,
                                      mn_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_ROOT_MOTION_H */
