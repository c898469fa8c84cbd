/*
 * Private: what the glTF reader (gltf/read.c and friends) and the model
 * utilities (accessor.c, model/query.c) share.  Not installed.
 */
#ifndef MN_FORMAT_MODEL_INTERNAL_H
#define MN_FORMAT_MODEL_INTERNAL_H

#include <marionette/model.h>
#include "core/internal.h"

/*
 * Set model->bounds_min/max: the world-space bounds, at rest, of every
 * POSITION of every mesh instanced by the default scene (scene 0 when none
 * is named, all root nodes when there are no scenes).  Skinned meshes are
 * bounded as placed by their joints' rest worlds × inverse bind matrices.
 * Temporary memory comes from `allocator` and is returned before the call
 * returns.  MN_OUT_OF_MEMORY is the only error.
 */
mn_status mn_model_compute_bounds(mn_model *model, const mn_allocator *allocator);

/*
 * The scalar reference of mn_accessor_unpack_floats: the same results from
 * the plain loops only (the SIMD kernels skipped).  test_accessor checks the
 * two paths agree bit for bit.
 */
size_t mn_accessor_unpack_floats_scalar(const mn_accessor *accessor, float *out,
                                        size_t out_capacity);

#endif /* MN_FORMAT_MODEL_INTERNAL_H */
