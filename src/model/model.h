/*
 * The model folder's interface: what every reader that fills an mn_model
 * (glTF, OBJ through the builder, voxel exports) shares with the model
 * utilities — the model's owner (its arena and what it must release), the
 * bounds every load computes, the rule that normalises skin weights, the
 * name tables of the model's enums, and the scalar reference of accessor
 * unpacking.
 * Not installed.
 */
#ifndef MN_MODEL_MODEL_H
#define MN_MODEL_MODEL_H

#include <marionette/io.h>
#include <marionette/model.h>

#include "core/core.h"

#include <float.h>
#include <stddef.h>

#if defined(__SSE2__) && !defined(MN_NO_SIMD)
#define MNI_MODEL_SSE2 1
#include <emmintrin.h>
#else
#define MNI_MODEL_SSE2 0
#endif

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
};


/*
 * Set model->bounds_min/max: the world-space bounds, at rest, of every
 * POSITION of every mesh instanced by the default scene
 * (mn_model_default_scene: scene 0 when none is named, all root nodes when
 * there are no scenes).  Skinned meshes are bounded as placed by their
 * joints' rest worlds × inverse bind matrices.
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

/* ---- skin influences ------------------------------------------------------------------------ */

/*
 * The one weight rule of the library: the n weights of a vertex (its
 * WEIGHTS_n influences) scaled to sum 1, which glTF asks of a file and a
 * runtime makes sure of.  out[k] = in[k] / s with s = in[0] + in[1] + ...
 * summed in index order; every positive finite s rescales, however close to 1
 * (no epsilon, so the results do not depend on how far off a file is).  A sum
 * that is zero, negative, NaN or infinite gives [1, 0, 0, ...]: the vertex
 * follows its first influence.  n >= 1; out may be in.  Inline because the
 * load-time bounds call it for every skinned vertex.  With SSE2 each group of
 * four divides in one instruction (compilers do not find it themselves): every
 * lane divides by the same sum, so the bits are the scalar loop's, which
 * MN_NO_SIMD builds run alone.
 */
static inline void mni_skin_weights_normalise(const float *in, float *out, size_t n)
{
    float sum = in[0];
    for (size_t k = 1; k < n; k++)
        sum += in[k];
    if (sum > 0.0f && sum <= FLT_MAX) {
        size_t k = 0;
#if MNI_MODEL_SSE2
        for (; k + 4 <= n; k += 4)
            _mm_storeu_ps(out + k, _mm_div_ps(_mm_loadu_ps(in + k), _mm_set1_ps(sum)));
#endif
        for (; k < n; k++)
            out[k] = in[k] / sum;
    } else {
        out[0] = 1.0f;
        for (size_t k = 1; k < n; k++)
            out[k] = 0.0f;
    }
}

/* ---- KHR_animation_pointer targets (pointer.c) ------------------------------------------------ */

/*
 * Resolve JSON pointer `text` against model m into *out (text is kept, not
 * copied): MN_OK when it names a property of pointer.c's table that is
 * defined in m (index in range; a camera of the right projection; a
 * texture transform that the slot has; a spot's cone; a morph target count
 * for weights).  Otherwise MN_INDEX_RANGE (an index past its array) or
 * MN_INVALID_VALUE (no such property, or not defined), with the reason in
 * why[why_size] (a phrase, no capital, no full stop).
 */
mn_status mni_pointer_resolve(const mn_model *m, const char *text, mn_pointer *out, char *why,
                              size_t why_size);

/* Whether a property is a bool (KHR_node_visibility's visible: STEP keys of unsigned bytes). */
bool mni_pointer_is_bool(mn_pointer_property property);

/* The output accessor type a resolved pointer's values take (SCALAR for weights). */
mn_accessor_type mni_pointer_type(const mn_pointer *p);

/*
 * Where p's floats live among these arrays (materials, cameras, lights
 * indexed by p->index): the material, camera or light properties; NULL for
 * the node and mesh ones, and when the array p needs is NULL.  The mixer's
 * animated copies and the renderer write and read through it.
 */
float *mni_pointer_field(mn_material *materials, mn_camera *cameras, mn_light *lights,
                         const mn_pointer *p);

/* ---- names of enum values (names.c) -------------------------------------------------------- */

/*
 * The tables behind mn_interpolation_name, mn_anim_path_name,
 * mn_alpha_mode_name and mn_accessor_type_name, in enum order, for the readers
 * that parse through them (mni_json_enum gives the index).  The accessor types
 * start at MN_TYPE_SCALAR: names[t - MN_TYPE_SCALAR].
 */
enum {
    MNI_INTERPOLATION_COUNT = MN_INTERP_CUBICSPLINE + 1,
    MNI_ANIM_PATH_COUNT = MN_PATH_POINTER + 1,
    MNI_ALPHA_MODE_COUNT = MN_ALPHA_BLEND + 1,
    MNI_ACCESSOR_TYPE_COUNT = MN_TYPE_MAT4 - MN_TYPE_SCALAR + 1
};
extern const char *const mni_interpolation_names[MNI_INTERPOLATION_COUNT];
extern const char *const mni_anim_path_names[MNI_ANIM_PATH_COUNT];
extern const char *const mni_alpha_mode_names[MNI_ALPHA_MODE_COUNT];
extern const char *const mni_accessor_type_names[MNI_ACCESSOR_TYPE_COUNT];

/* glTF's name of a component type ("UNSIGNED_SHORT"); "invalid" outside the enum. */
const char *mni_component_gltf_name(mn_component component);

/* glTF's componentType code (5123 for MN_COMPONENT_U16); 0 outside the enum. */
uint32_t mni_component_gltf_code(mn_component component);

/* The component type of a glTF componentType code; MN_COMPONENT_INVALID for any
   other code (5124, which glTF does not have, included). */
mn_component mni_component_from_gltf_code(uint32_t code);

/* glTF's name of a semantic without its set ("POSITION", "TEXCOORD"); "custom" for
   MN_SEMANTIC_CUSTOM, "invalid" outside the enum. */
const char *mni_semantic_name(mn_semantic semantic);

/*
 * The semantic and set of a glTF attribute name, the one parse the glTF reader
 * and the model builder share: "POSITION", "NORMAL", "TANGENT" exactly, or
 * "TEXCOORD_n", "COLOR_n", "JOINTS_n", "WEIGHTS_n" with n a decimal set number
 * of at most 2^32 - 1 and no leading zero (glTF forbids "TEXCOORD_01");
 * MN_SEMANTIC_CUSTOM for any other name starting with '_', MN_SEMANTIC_INVALID
 * for the rest.  *set = the set number, 0 when the semantic has none.
 */
mn_semantic mni_semantic_parse(const char *name, uint32_t *set);

/* ---- building in place (build.c) ---------------------------------------------------------- */

typedef struct mn_model_builder mn_model_builder;

/*
 * An accessor of `count` elements of `type` and `component` whose bytes the
 * caller writes in place, for a reader that would otherwise stage a copy for
 * mn_model_build_accessor_*: *data receives the model's (arena) memory for
 * count × components tightly packed components, uninitialised.  Returns the
 * accessor index, or MN_NONE (and *data NULL) after any error, the
 * builder's errors being sticky as in model_build.h.  The caller fills the
 * bytes, then seals the accessor, which computes min/max and refuses a
 * float that is not finite (MN_NOT_FINITE); an accessor placed and never
 * sealed has no bounds.
 */
uint32_t mni_model_build_accessor_place(mn_model_builder *builder, const char *name, uint32_t count,
                                       mn_accessor_type type, mn_component component, void **data);

/* Seal a placed accessor once its bytes are written; returns it, or MN_NONE after an error. */
uint32_t mni_model_build_accessor_seal(mn_model_builder *builder, uint32_t accessor);

/* ---- the owner (owner.c) ------------------------------------------------------------------- */

/* A new, empty model with its arena; NULL when out of memory. */
mn_model *mni_model_create(const mn_allocator *allocator);

/* Remember resolver bytes to release when the model is freed. */
bool mni_model_keep_resolved(mn_model *model, const mn_resolver *resolver, mn_bytes bytes);

#endif /* MN_MODEL_MODEL_H */
