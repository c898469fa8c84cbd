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

#endif /* MN_RIG_INTERNAL_H */
