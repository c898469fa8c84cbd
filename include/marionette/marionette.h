/*
 * marionette.h — the umbrella header: includes every public module.
 *
 * Modules of the runtime:
 *   core.h        status codes, mn_error, mn_allocator, version
 *   math.h        vectors, quaternions, column-major 4x4 matrices, world composition
 *   io.h          the resolver the readers fetch external files through
 *   model.h       mn_model: buffers, accessors, meshes, materials, nodes, skins, animations
 *   model_build.h building an mn_model in code (for writers, exporters, converters)
 *   gltf.h        the glTF 2.0 / GLB reader and writer
 *   obj.h         the Wavefront OBJ / MTL reader
 *   obj_model.h   an OBJ (with its MTL) as an mn_model: groups become primitives
 *   pose.h        a pose: local translation, rotation, scale per joint (SoA)
 *   clip.h        animation clips and their sampling
 *   compress.h    compressed clips, their .mnanim block, and the error metric that sizes them
 *   skeleton.h    joints in parent-first order, local-to-world, skinning palettes
 *   mixer.h       the clip mixer over a model's node hierarchy (play, fade, seek)
 *   blend.h       pose blending, additive layers, masks, additive clips
 *   blend_tree.h  blend trees: clip leaves with clocks, lerp, 1D sets, 2D spaces, phase sync
 *   events.h      named clip events reported across loop wraps
 *   state_machine.h the crossfading state machine over blend-tree states
 *   ik.h          two-bone IK with pole, soften, weight; aim chains
 *   retarget.h    retargeting a pose between skeletons by joint name
 *   root_motion.h root motion extracted across loop wraps, and stripped
 *   spring.h      springs and spring chains as pure functions of time
 *   skin.h        linear-blend skinning and the prepared deformable mesh
 *   morph.h       morph targets
 *   pool.h        the worker pool (the library's only threads) and the CPU count
 *   instance.h    model instances (a shared rig, placed instances) and crowds on a pool
 *   render.h      the headless rasteriser: scenes, cameras, PNGs, contact sheets
 * The products:
 *   voxel/rig.h        voxel rigs: rig.json, part meshes, F-curves, posing, skinning matrices
 *   voxel/controller.h the voxel rig controller: caller joints, animations, clocks
 *   voxel/export.h     voxel rigs to glTF: part nodes, baked clips, interface.json
 *   head/aosrig.h      .aosrig expression-head packs: read (views), write (byte-identical)
 *   head/head.h        the expression head: forward, pose, gaze, joint overrides, head_ext
 *   head/arkit.h       ARKit-52 face channels mapped to a head: table and fitted maps
 *   character/soma.h   SOMA skeletons and clips, shared clip files, the twist-helper poser
 *   character/corrective.h pose correctives: index, arm elevation, smoothstep weights
 *   character/mouth.h  mouth_hidden.bin: the mouth interior list, opacity and plug push
 *   character/slots.h  the slot allocator
 *   character/splat.h  3DGS splats: PLY and bindings read, CPU skinning of centres and rotations
 *   character/package.h character packages: character.json, hashed files, optional parts
 *   character/runtime.h a character that plays: body, head, face, correctives, splats, mouth
 */
#ifndef MARIONETTE_H
#define MARIONETTE_H

#include "core.h"
#include "math.h"
#include "io.h"
#include "model.h"
#include "gltf.h"
#include "obj.h"
#include "pose.h"
#include "clip.h"
#include "compress.h"
#include "skeleton.h"
#include "skin.h"
#include "morph.h"
#include "mixer.h"
#include "pool.h"
#include "instance.h"
#include "voxel/rig.h"
#include "voxel/controller.h"
#include "model_build.h"
#include "render.h"
#include "head/aosrig.h"
#include "ik.h"
#include "root_motion.h"
#include "spring.h"
#include "retarget.h"
#include "obj_model.h"
#include "voxel/export.h"
#include "blend.h"
#include "blend_tree.h"
#include "events.h"
#include "state_machine.h"
#include "head/head.h"
#include "head/arkit.h"
#include "character/soma.h"
#include "character/corrective.h"
#include "character/mouth.h"
#include "character/slots.h"
#include "character/splat.h"
#include "character/package.h"
#include "character/runtime.h"

#endif /* MARIONETTE_H */
