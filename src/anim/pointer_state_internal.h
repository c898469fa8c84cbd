/*
 * The mixer's KHR_animation_pointer state (pointer_state.c): what the
 * pointer tracks of its clips animate — material factors and texture
 * transforms, camera and light values, node visibility — as an instance's
 * own copies of the model's materials, cameras and lights and its own
 * hidden flags.  Every property some clip drives has a slot of floats; an
 * update fills each layer's slots from the model's values and its clip's
 * tracks, blends the fade's source in, and writes the slots into the
 * copies.  Nothing else in a copy is ever written, so what no clip drives
 * keeps the model's value.  Laid out once in the mixer's arena; the update
 * allocates nothing.  Not installed.
 */
#ifndef MN_ANIM_POINTER_STATE_INTERNAL_H
#define MN_ANIM_POINTER_STATE_INTERNAL_H

#include <marionette/clip.h>

#include "core/core.h"

typedef struct mni_pointer_state {
    uint32_t prop_count;         /* distinct properties driven (0: no state, copies NULL) */
    mn_pointer *props;           /* each once */
    uint32_t *offset;            /* per prop, into the slot arrays */
    uint32_t floats;             /* slot floats in all */
    float *base;                 /* the model's values */
    float *values, *from;        /* this update's, and the fade source's */
    uint32_t **track_prop;       /* per clip, per pointer track: its prop (MN_NONE: not this model's) */
    mn_material *materials;      /* the copies (NULL when prop_count is 0) */
    mn_camera *cameras;
    mn_light *lights;
    bool *hidden;                /* per node */
} mni_pointer_state;

/* Lay out s for model and clips in arena; zero s when no clip has a pointer track. */
mn_status mni_pointer_state_init(mni_pointer_state *s, mn_arena *arena, const mn_model *model,
                                 const mn_clip *const *clips, uint32_t clip_count, mn_error *err);

/* out = the model's values, then clip `c` at t over them (out: values or from). */
void mni_pointer_state_sample(const mni_pointer_state *s, const mn_clip *clip, uint32_t c, float t,
                              float *out);

/* values = from + (values − from)·w; a bool takes values' once w >= 1/2, else from's. */
void mni_pointer_state_blend(mni_pointer_state *s, float w);

/* The model's values everywhere (a caller's pose: no clip plays). */
void mni_pointer_state_rest(mni_pointer_state *s);

/* Write values into the copies. */
void mni_pointer_state_apply(mni_pointer_state *s);

#endif /* MN_ANIM_POINTER_STATE_INTERNAL_H */
