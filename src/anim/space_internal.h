/*
 * Spaces (marionette/pose.h, SPACES): the hashes that name a hierarchy and
 * the one check every entry point that puts a clip's targets into a pose
 * makes.  Private to src/anim.
 */
#ifndef MN_ANIM_SPACE_INTERNAL_H
#define MN_ANIM_SPACE_INTERNAL_H

#include <marionette/clip.h>
#include <marionette/pose.h>

/* The FNV-1a 64-bit hash, continued over n bytes. */
uint64_t mni_space_hash(uint64_t h, const void *bytes, size_t n);

/* The hash's starting value. */
#define MNI_SPACE_HASH_SEED 14695981039346656037ull

/*
 * Does a clip (or tree) bound to `space` fit `pose`?  Unbound: always.
 * Bound: the pose has space.count joints and is unbound, or bound to the
 * same kind and id.  O(1), allocation-free.
 */
static inline bool mni_space_fits(mn_space space, const mn_pose *pose)
{
    if (space.kind == MN_SPACE_UNBOUND)
        return true;
    if (space.count != pose->joint_count)
        return false;
    return pose->space.kind == MN_SPACE_UNBOUND ||
           (pose->space.kind == space.kind && pose->space.id == space.id);
}

/* MN_INVALID_ARGUMENT, err naming `what` (e.g. "clip \"walk\""), its space and the pose's. */
mn_status mni_space_refuse(mn_space space, const char *what, const mn_pose *pose, mn_error *err);

/* MN_OK when `space` fits `pose` (err untouched), else mni_space_refuse. */
static inline mn_status mni_space_check(mn_space space, const char *what, const mn_pose *pose,
                                        mn_error *err)
{
    return mni_space_fits(space, pose) ? MN_OK : mni_space_refuse(space, what, pose, err);
}

#endif /* MN_ANIM_SPACE_INTERNAL_H */
