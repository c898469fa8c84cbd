/*
 * marionette/morph.h — morph targets: base + Σ weight_i × delta_i.
 *
 * The job shape of skin.h: caller-owned streams, nothing allocated.  Targets
 * whose weight is zero (or whose delta array is NULL) cost nothing.
 */
#ifndef MARIONETTE_MORPH_H
#define MARIONETTE_MORPH_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mn_morph_job {
    uint32_t vertex_count;
    uint32_t components;           /* floats per vertex in base, deltas and out: 3 (positions, normals, tangent xyz) */
    const float *base;             /* vertex_count × components */
    uint32_t target_count;
    const float *const *deltas;    /* target_count arrays of vertex_count × components; an entry may be NULL */
    const float *weights;          /* target_count weights */
    float *out;                    /* vertex_count × components; may equal base */
} mn_morph_job;

/* out = base + Σ weights[i] × deltas[i].  MN_INVALID_ARGUMENT for NULL streams or zero components. */
MN_API mn_status mn_morph_run(const mn_morph_job *job);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_MORPH_H */
