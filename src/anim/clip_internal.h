/*
 * The runtime clip's layout, shared by its builder (clip_build.c) and its
 * sampler (clip.c).  Not installed.
 *
 * One allocation holds, in order: this header, the track records, the
 * indices of the weights tracks, the name, then each track's keys — its
 * times, then its values, 16-byte aligned — so sampling one track touches
 * one record and one compact run of memory.
 */
#ifndef MN_ANIM_CLIP_INTERNAL_H
#define MN_ANIM_CLIP_INTERNAL_H

#include <marionette/clip.h>

struct mn_clip {
    mn_allocator allocator;      /* what the block came from */
    size_t block_size;
    const char *name;            /* never NULL */
    float duration;
    uint32_t track_count;
    mn_track *tracks;            /* times/values point into the block, sorted by time */
    uint32_t weights_count;
    uint32_t *weights_tracks;    /* indices of the weights tracks, in track order */
};

#endif /* MN_ANIM_CLIP_INTERNAL_H */
