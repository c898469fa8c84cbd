/*
 * marionette.h — the umbrella header: includes every public module.
 *
 * Modules:
 *   core.h   status codes, mn_error, mn_allocator, version
 *   math.h   vectors, quaternions, column-major 4x4 matrices, world composition
 *   model.h  mn_model: buffers, accessors, meshes, materials, nodes, skins, animations
 *   gltf.h   the glTF 2.0 / GLB reader
 */
#ifndef MARIONETTE_H
#define MARIONETTE_H

#include "core.h"
#include "math.h"
#include "model.h"
#include "gltf.h"

#endif /* MARIONETTE_H */
