/*
 * The interface deform gives the folders after it (rig): what the public
 * skin.h does not say.  Not installed.
 */
#ifndef MN_DEFORM_DEFORM_H
#define MN_DEFORM_DEFORM_H

#include <marionette/skin.h>

/*
 * mn_deform_mesh_run with the skinning step's stores chosen by the caller
 * (mn_skin_store): a crowd knows that the outputs of all its calls together
 * leave the cache, which one 5,000-vertex call cannot.  Same bits either way.
 */
mn_status mni_deform_mesh_run_store(const mn_deform_mesh *mesh, const float *weights,
                                    const float *palette, uint32_t palette_count,
                                    float *out_positions, float *out_normals, float *out_tangents,
                                    mn_skin_store store);

#endif /* MN_DEFORM_DEFORM_H */
