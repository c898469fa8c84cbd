/*
 * marionette/instance.h — model instances: one prepared model (a rig) shared
 * by many placed, animated, deformed instances, and a crowd of them updated
 * on a worker pool (marionette/pool.h).
 *
 *     mn_rig *rig;             mn_rig_create(model, NULL, &rig, &err);
 *     mn_instance *guard;      mn_instance_create(rig, &(mn_instance_desc){
 *                                  .position = {2, 0, -5}, .yaw = 1.57f, .size = 1.8f},
 *                                  &guard, &err);
 *     mn_mixer_play(mn_instance_mixer(guard), 0, &(mn_play_options){.at = 0.3f}, &err);
 *     for (;;) {
 *         mn_instance_update(guard, dt);                 // or mn_instances_update for a crowd
 *         for (uint32_t i = 0; i < mn_rig_part_count(rig); i++) {
 *             const mn_posed_part *p = mn_instance_part(guard, i);
 *             draw(p->positions, p->normals, p->vertex_count, p->matrix);
 *         }
 *     }
 *     mn_instance_free(guard);
 *     mn_rig_free(rig);
 *     mn_model_free(model);
 *
 * THE RIG
 *   Everything instances share, built once: the clips (one per glTF
 *   animation, targets = node indices), one prepared mn_deform_mesh per mesh
 *   primitive that a node of the default scene (mn_model_default_scene)
 *   draws, the unit-fit, and the part list.  A part is one primitive as one
 *   node draws it: a mesh used by two nodes gives two parts.  Immutable after
 *   creation: share it between instances and threads.  It borrows the model,
 *   which must outlive it.
 *
 * THE UNIT-FIT
 *   Models come in any unit.  The rig fits model->bounds (the default scene
 *   at rest) into a unit box: fit.scale = 1 / (largest side of the bounds)
 *   and fit.center = the centre of the bounds (scale 1 and centre 0 for an
 *   empty or flat-to-a-point model).  An instance's `size` is then its
 *   largest dimension in world units.
 *
 * PLACEMENT
 *   placement = T(position) · R · S(size × fit.scale) · T(−fit.center), with
 *   R = Ry(yaw) · Rx(pitch) · Rz(roll), the usual engine order (roll about
 *   z first, then pitch about x, then yaw about y; radians; y up).
 *
 * AN INSTANCE'S OUTPUTS (buffers the instance owns, rewritten by update)
 *   - worlds: placement × the mixer's model-space world of every node,
 *     composed in one pass with the placement as the roots' parent (so it
 *     agrees with that product to float rounding: docs/animation.md,
 *     "Instances and crowds", gives the tolerance).
 *   - one mn_posed_part per rig part: vertex positions (3 floats a vertex),
 *     normals (3) and tangents (4) when the primitive has them, and `matrix`,
 *     the transform to draw them with:
 *       skinned parts: vertices are morphed, then skinned with the palette
 *         palette[i] = mixer world[skin.joints[i]] × inverseBind[i], which
 *         puts them in model space; matrix = placement (glTF: a skinned mesh
 *         is placed by its joints, its own node's transform is ignored);
 *       morphed, unskinned parts: vertices are morphed only and stay in the
 *         node's space; matrix = worlds[node];
 *       static parts: positions/normals/tangents are the rig's rest streams
 *         (not copied); matrix = worlds[node].
 *   Morph weights come from the mixer (node weights, else mesh defaults,
 *   animated by weights tracks).
 *
 * VISIBILITY
 *   A hidden instance keeps animating (its mixer, worlds and matrices stay
 *   current) but skips deformation; its vertex buffers hold the last visible
 *   frame, and the first update after it is shown again (dt may be 0)
 *   brings them up to date.
 *
 * MEMORY AND THREADS
 *   Creation allocates, through the allocator given; update, the setters and
 *   mn_instances_update allocate nothing and cannot fail on valid objects.
 *   An instance is used from one thread at a time; distinct instances of one
 *   rig may be updated on different threads at once (mn_instances_update
 *   does exactly that).
 */
#ifndef MARIONETTE_INSTANCE_H
#define MARIONETTE_INSTANCE_H

#include "core.h"
#include "model.h"
#include "clip.h"
#include "mixer.h"
#include "pool.h"
#include "skin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the rig ---------------------------------------------------------------- */

typedef struct mn_rig mn_rig;

/* Rig options.  A zeroed struct (or NULL) means the defaults given per field. */
typedef struct mn_rig_options {
    mn_allocator allocator;      /* zero: malloc/free; the rig and its clips and meshes come from it */
    /* Clips to play, borrowed (they must outlive the rig): as mn_mixer_options.clips, over the
       model's nodes; compressed clips' views (marionette/compress.h) among them.  NULL: the
       rig builds one clip per model->animations[i]. */
    const mn_clip *const *clips;
    uint32_t clip_count;         /* entries in clips (ignored when clips is NULL) */
    /*
     * How instances skin (skin.h): 0, MN_SKINNING_LINEAR, linear blending;
     * MN_SKINNING_DUAL_QUAT, dual quaternions, each instance converting its
     * palettes once a frame into a block of its own (48 bytes a joint).  An
     * instance whose rest pose gives a joint non-uniform scale or shear is
     * refused (MN_NOT_RIGID, naming the skin and joint); a later pose that
     * does skins that skin linearly until a pose that does not.
     */
    mn_skinning skinning;
} mn_rig_options;

/* The unit-fit: model space → unit box is scale × (p − center). */
typedef struct mn_unit_fit {
    float scale;
    float center[3];
} mn_unit_fit;

/* One drawable part: a primitive of a mesh as one node draws it. */
typedef struct mn_part {
    uint32_t node;               /* the node that draws it */
    uint32_t mesh, primitive;    /* model->meshes[mesh].primitives[primitive] */
    uint32_t material;           /* MN_NONE when absent */
    uint32_t skin;               /* the node's skin when the primitive has joints, else MN_NONE */
    bool morphed;                /* the primitive has morph targets */
    uint32_t vertex_count;
    uint32_t triangle_count;     /* 0 for points and lines */
    const mn_deform_mesh *deform;  /* its rest streams and influences (owned by the rig) */
} mn_part;

/*
 * Prepare `model` for instancing.  The model is borrowed: it must outlive the
 * rig (and every instance of it).  Primitives without POSITION are not parts.
 * Errors (*out = NULL, err names the item): MN_INVALID_ARGUMENT (NULL model or
 * out), MN_INDEX_RANGE (a JOINTS index at or above its skin's joint count),
 * MN_OUT_OF_MEMORY, MN_OVERFLOW, and the errors of mn_clip_from_gltf and
 * mn_deform_mesh_create.
 */
MN_API mn_status mn_rig_create(const mn_model *model, const mn_rig_options *options, mn_rig **out,
                               mn_error *err);

/* Free a rig, its clips and prepared meshes.  Free its instances first.  NULL is allowed. */
MN_API void mn_rig_free(mn_rig *rig);

/* The model the rig was made from. */
MN_API const mn_model *mn_rig_model(const mn_rig *rig);

/* Clips, one per model->animations[i], in file order, or the options' clips (NULL when out of range). */
MN_API uint32_t mn_rig_clip_count(const mn_rig *rig);
MN_API const mn_clip *mn_rig_clip(const mn_rig *rig, uint32_t index);

/* The unit-fit (scale 1, centre 0 for a NULL rig). */
MN_API mn_unit_fit mn_rig_fit(const mn_rig *rig);

/* The model's size in its own units before fitting (bounds max − min; zeros when empty). */
MN_API void mn_rig_size(const mn_rig *rig, float out[3]);

/* Triangles over every part. */
MN_API uint32_t mn_rig_triangle_count(const mn_rig *rig);

/* The parts, in scene order (depth-first from the scene's roots, primitives in order). */
MN_API uint32_t mn_rig_part_count(const mn_rig *rig);
MN_API const mn_part *mn_rig_part(const mn_rig *rig, uint32_t index);  /* NULL when out of range */

/* ---- instances ---------------------------------------------------------------- */

typedef struct mn_instance mn_instance;

/* How to spawn an instance.  A zeroed struct (or NULL) means the defaults given per field. */
typedef struct mn_instance_desc {
    float position[3];           /* world position, default 0 0 0 (y is up) */
    float yaw, pitch, roll;      /* radians, default 0 */
    float size;                  /* largest dimension in world units; 0 means 1 */
    bool hidden;                 /* default false: visible */
    mn_allocator allocator;      /* zero: malloc/free; the instance and its mixer come from it */
} mn_instance_desc;

/*
 * Spawn an instance of `rig` (borrowed: it must outlive the instance) at
 * rest, with its own mixer over the rig's clips, its outputs already
 * computed.  Errors (*out = NULL): MN_INVALID_ARGUMENT (NULL rig or out, a
 * non-finite number in desc, a negative size), MN_OUT_OF_MEMORY, MN_OVERFLOW,
 * and for a dual-quaternion rig MN_NOT_RIGID (see mn_rig_options).
 */
MN_API mn_status mn_instance_create(const mn_rig *rig, const mn_instance_desc *desc,
                                    mn_instance **out, mn_error *err);

/* Free an instance and its mixer.  NULL is allowed. */
MN_API void mn_instance_free(mn_instance *instance);

MN_API const mn_rig *mn_instance_rig(const mn_instance *instance);

/*
 * The instance's mixer: play, seek, pause and the rest go through it
 * (mn_mixer_play(mn_instance_mixer(h), ...)).  Owned by the instance.  The
 * pose it sets shows in the instance's outputs at the next mn_instance_update.
 * Its update only samples (pose and weights); its locals and model-space
 * worlds are built when mn_mixer_locals or mn_mixer_worlds is called, so
 * call them after each update rather than keeping their pointers.
 * The instance's animated material, camera, light and visibility state
 * (KHR_animation_pointer) is the mixer's: mn_mixer_material, _camera,
 * _light and _node_hidden (mixer.h), as of the last update.
 */
MN_API mn_mixer *mn_instance_mixer(mn_instance *instance);

/*
 * Placement setters.  They take effect in the outputs at the next
 * mn_instance_update (dt may be 0), so setting all of them costs one
 * recomposition.  Non-finite values are ignored; a size is taken as given.
 */
MN_API void mn_instance_set_position(mn_instance *instance, float x, float y, float z);
MN_API void mn_instance_set_rotation(mn_instance *instance, float yaw, float pitch, float roll);
MN_API void mn_instance_set_size(mn_instance *instance, float size);
MN_API void mn_instance_set_visible(mn_instance *instance, bool visible);

MN_API void mn_instance_position(const mn_instance *instance, float out[3]);
MN_API void mn_instance_rotation(const mn_instance *instance, float out[3]);  /* yaw, pitch, roll */
MN_API float mn_instance_size(const mn_instance *instance);
MN_API bool mn_instance_visible(const mn_instance *instance);

/* The placement matrix from the current position, rotation and size (see PLACEMENT). */
MN_API void mn_instance_placement(const mn_instance *instance, float out[16]);

/*
 * Advance the mixer by dt, recompose the placed worlds when the pose or the
 * placement changed, and deform the parts when the pose changed (visible
 * instances only, see VISIBILITY).  Allocation-free.
 * Cost: sampling plus one SIMD local-to-world pass, within 1.25× of
 * mn_clip_sample_cursor + mn_skeleton_local_to_world alone (bench_anim's
 * crowd_hidden_vs_direct); a visible instance adds the palettes and one
 * skinning pass over its vertices.
 */
MN_API void mn_instance_update(mn_instance *instance, float dt);

/* Placed world matrices, 16 floats a node (the model's node order).  Owned by the instance. */
MN_API const float *mn_instance_worlds(const mn_instance *instance);

/* One part's posed vertices, pointing into the instance's (or for static parts the rig's) buffers. */
typedef struct mn_posed_part {
    uint32_t vertex_count;
    const float *positions;      /* 3 floats a vertex */
    const float *normals;        /* 3 floats a vertex, NULL when the primitive has none */
    const float *tangents;       /* 4 floats a vertex, NULL when the primitive has none */
    const float *matrix;         /* 16 floats: draw the vertices with this (see OUTPUTS) */
} mn_posed_part;

/* Part `index` (the rig's numbering), NULL when out of range.  Stable for the instance's life. */
MN_API const mn_posed_part *mn_instance_part(const mn_instance *instance, uint32_t index);

/* ---- crowds --------------------------------------------------------------------- */

/*
 * mn_instance_update(instances[i], dt) for every i < count, the instances
 * shared out over the pool's threads (and the caller's), one contiguous
 * share of the array each, equal in count; returns when all are done.  Each
 * instance is updated by exactly one thread with the code mn_instance_update
 * runs, so the results are bit-identical to updating them one by one; only
 * where skinning stores go may differ (when the batch's deformed vertices
 * reach MN_SKIN_STREAM_MIN_BYTES they stream past the cache, skin.h).  A NULL pool (or a pool of one thread) updates them on
 * the calling thread.  An instance must appear at most once, and nothing
 * else may touch these instances during the call.  Allocation-free.
 * Errors (nothing is updated): MN_INVALID_ARGUMENT for NULL instances with
 * count > 0 or a NULL entry, or a batch already running on this pool
 * (marionette/pool.h, THREAD SAFETY).
 */
MN_API mn_status mn_instances_update(mn_pool *pool, mn_instance *const *instances, size_t count,
                                     float dt);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_INSTANCE_H */
