/*
 * The model folder's interface: what every reader that fills an mn_model
 * (glTF, OBJ through the builder, voxel exports) shares with the model
 * utilities — the model's owner (its arena and what it must release), the
 * bounds every load computes, and the scalar reference of accessor unpacking.
 * Not installed.
 */
#ifndef MN_MODEL_MODEL_H
#define MN_MODEL_MODEL_H

#include <marionette/io.h>
#include <marionette/model.h>

#include "core/core.h"

/* Bytes handed out by a custom resolver, given back by mn_model_free. */
typedef struct mn_resolved {
    mn_bytes bytes;
    struct mn_resolved *next;
} mn_resolved;

/* What mn_model_free needs: everything else lives in the arena. */
struct mn_model_private {
    mn_arena arena;
    mn_resolver resolver;       /* the custom resolver whose bytes are released */
    mn_resolved *resolved;      /* arena list, newest first */
    mn_bytes mapping;           /* the model file mapped by mn_gltf_read_file, or nothing */
};


/*
 * Set model->bounds_min/max: the world-space bounds, at rest, of every
 * POSITION of every mesh instanced by the default scene (scene 0 when none
 * is named, all root nodes when there are no scenes).  Skinned meshes are
 * bounded as placed by their joints' rest worlds × inverse bind matrices.
 * Temporary memory comes from `allocator` and is returned before the call
 * returns.  MN_OUT_OF_MEMORY is the only error.
 */
mn_status mni_model_compute_bounds(mn_model *model, const mn_allocator *allocator);

/*
 * The scalar reference of mn_accessor_unpack_floats: the same results from
 * the plain loops only (the SIMD kernels skipped).  test_accessor checks the
 * two paths agree bit for bit.
 */
size_t mni_accessor_unpack_floats_scalar(const mn_accessor *accessor, float *out,
                                        size_t out_capacity);

/* ---- the owner (owner.c) ------------------------------------------------------------------- */

/* A new, empty model with its arena; NULL when out of memory. */
mn_model *mni_model_create(const mn_allocator *allocator);

/* Remember resolver bytes to release when the model is freed. */
bool mni_model_keep_resolved(mn_model *model, const mn_resolver *resolver, mn_bytes bytes);

#endif /* MN_MODEL_MODEL_H */
