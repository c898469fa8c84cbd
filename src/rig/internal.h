/*
 * Private to src/rig: what the crowd (crowd.c) asks of an instance
 * (instance.c) beyond the public mn_instance_update.
 */
#ifndef MN_RIG_INTERNAL_H
#define MN_RIG_INTERNAL_H

#include <marionette/instance.h>

#include <stddef.h>

/*
 * mn_instance_update as one of `batch` instances updated together: when
 * batch × this instance's deformed output bytes reach
 * MN_SKIN_STREAM_MIN_BYTES (the batch's vertices together leave the cache
 * before anyone reads them), skinning streams its stores past the cache
 * (mn_skin_store); otherwise it stores as mn_instance_update does.  The same
 * bits either way.
 */
void mni_instance_update_in_batch(mn_instance *instance, float dt, size_t batch);

/*
 * The working set past which a crowd prefetches (mni_instance_prefetch): a
 * batch whose instances touch this much a frame (pose and worlds, and for
 * visible ones palettes and vertices) no longer stays in a last-level cache
 * from one frame to the next, so each instance's first touches would wait on
 * memory; below it the prefetches are pure cost.  Half a 32 MiB L3.
 */
#define MNI_CROWD_PREFETCH_MIN_BYTES (16u * 1024u * 1024u)

/*
 * Whether `batch` instances like this one (its rig, its visibility) touch
 * MNI_CROWD_PREFETCH_MIN_BYTES or more a frame.  The crowd asks it of its
 * first instance once per call.
 */
bool mni_instance_batch_leaves_cache(const mn_instance *instance, size_t batch);

/*
 * Prefetch what the instance's next update touches but its deformed
 * vertices (itself, its worlds and palettes, its mixer's pose and cursor):
 * the crowd asks it for the next instance of a share while it updates this
 * one.  Changes nothing.
 */
void mni_instance_prefetch(const mn_instance *instance);

#endif /* MN_RIG_INTERNAL_H */
