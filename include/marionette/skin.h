/*
 * marionette/skin.h — linear-blend skinning on the CPU, and the prepared
 * deformable mesh that morphs then skins a glTF primitive; dual-quaternion
 * skinning, opt-in, at the end.
 *
 * The skinning job (ozz's SkinningJob shape): caller-owned streams with
 * strides, any number of influences per vertex, a palette of 16-float
 * column-major matrices.  Positions go through the full matrix, normals
 * through its 3x3 (renormalised), tangents' xyz through its 3x3
 * (renormalised, w copied).  Three implementations give the same results
 * within 1e-6 relative: the scalar reference (always built), SSE2 and
 * AVX2+FMA on x86-64, NEON on AArch64; mn_skin_run picks the best the CPU has at run time
 * (MN_NO_SIMD builds the reference alone).  Nothing allocates.
 *
 * Details every implementation shares: the blend uses the affine part of
 * each matrix (the fourth row is never read for the result); a normal or
 * tangent whose skinned length is zero comes out as zero, never NaN; an
 * output stream may be its own input (in place) or must not overlap any
 * input; outputs are written 3 floats a vertex (4 for tangents) and floats
 * between strides are left alone.
 *
 * Where the outputs go (mn_skin_store): by default through the cache, where
 * a caller that reads the vertices next (an upload, a crowd's next step)
 * finds them; on request with non-temporal (streaming) stores, which send
 * them to memory without first reading each cache line.  Ordinary stores
 * measured faster at every size (10k to 4M vertices, docs/animation.md), so
 * the default never streams.  Only the bytes' destination changes, never a
 * value: both ways give the same bits.
 */
#ifndef MARIONETTE_SKIN_H
#define MARIONETTE_SKIN_H

#include "core.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * How a skinning call stores its outputs.  Streaming applies where the layout
 * allows whole aligned 16-byte stores: a 3-float stream at its default stride
 * (3: the SIMD kernels peel up to three vertices to reach a 16-byte boundary;
 * a second 3-float stream streams when it reaches the boundary at the same
 * vertex), and a tangent stream that starts 16-byte aligned with a stride
 * that is a multiple of 4.  Other streams, the scalar reference and the NEON kernel store
 * through the cache whatever is asked.
 */
typedef enum mn_skin_store {
    MN_SKIN_STORE_DEFAULT = 0,  /* through the cache at every size (measured faster; see above) */
    MN_SKIN_STORE_CACHED,       /* ordinary stores: outputs stay in cache for a reader that follows */
    MN_SKIN_STORE_STREAM        /* streaming wherever the layout allows, whatever the size */
} mn_skin_store;

/*
 * What counts as a large call: output bytes of one call (12 a vertex for
 * positions and normals, 16 for tangents; 4 MiB is about 175k vertices of
 * positions and normals).  The SIMD kernels prefetch their inputs ahead in
 * a call whose outputs and influences (6 bytes each) come to that much.
 * Mesh skinning's default no longer streams from it (streaming measured
 * 3-7% slower than ordinary stores at 10k, 100k, 1M and 4M vertices on
 * bench_skin, 16% at 1M on another machine); splat skinning, and a crowd
 * whose batch of calls together reaches it (mn_instances_update), still
 * stream from it.
 */
#define MN_SKIN_STREAM_MIN_BYTES (4u * 1024u * 1024u)

typedef struct mn_skin_job {
    uint32_t vertex_count;
    uint32_t influence_count;      /* influences per vertex (4 per JOINTS_n/WEIGHTS_n set), >= 1 */
    const uint16_t *joints;        /* vertex_count × influence_count palette indices */
    const float *weights;          /* vertex_count × influence_count, each vertex's summing to 1 */
    const float *palette;          /* 16 floats per palette matrix */
    uint32_t palette_count;        /* matrices in palette; joints must be below it */
    const float *positions;        /* 3 floats a vertex at position_stride floats apart (0 = 3) */
    uint32_t position_stride;
    const float *normals;          /* optional (NULL): 3 floats a vertex */
    uint32_t normal_stride;        /* 0 = 3 */
    const float *tangents;         /* optional (NULL): 4 floats a vertex (xyz, w handedness) */
    uint32_t tangent_stride;       /* 0 = 4 */
    float *out_positions;          /* required; may equal positions (in place) */
    uint32_t out_position_stride;  /* 0 = 3 */
    float *out_normals;            /* required when normals is given; may equal normals */
    uint32_t out_normal_stride;    /* 0 = 3 */
    float *out_tangents;           /* required when tangents is given; may equal tangents */
    uint32_t out_tangent_stride;   /* 0 = 4 */
    mn_skin_store output_store;    /* 0 (MN_SKIN_STORE_DEFAULT) = through the cache, see above */
} mn_skin_job;

/*
 * Check a job: pointers and counts consistent, strides large enough, every
 * joint index below palette_count (a scan of the joints: call it once when
 * you set a job up, not per frame).  Returns MN_OK or MN_INVALID_ARGUMENT /
 * MN_INDEX_RANGE with err saying which field or vertex.
 */
MN_API mn_status mn_skin_job_validate(const mn_skin_job *job, mn_error *err);

/*
 * Skin with the best available implementation.  Checks pointers and counts
 * (not joint indices: see mn_skin_job_validate) and returns
 * MN_INVALID_ARGUMENT without writing when they are wrong.  Allocation-free.
 */
MN_API mn_status mn_skin_run(const mn_skin_job *job);

/*
 * Skin with the kernel of a chosen level (mn_simd_level in core.h: a level
 * the CPU or the build lacks falls back to the widest below it; MN_SIMD_BEST
 * is what mn_skin_run uses).  Skinning has a kernel at every level: scalar,
 * SSE2, AVX2_FMA, NEON.  Checks and errors as mn_skin_run.
 */
MN_API mn_status mn_skin_run_with(const mn_skin_job *job, mn_simd_level level);

/* ---- the prepared deformable mesh ----------------------------------------- */

/*
 * A glTF primitive prepared for deformation: rest streams as packed floats,
 * every JOINTS_n/WEIGHTS_n set merged into influence_count influences a vertex
 * with weights normalised on load by mn_primitive_skin_influences' rule over
 * all of them (each vertex's scaled to sum 1; a vertex whose weights sum to
 * zero, or to no positive finite number, is bound wholly to its first
 * influence, [1,0,...], rather than collapsing to the origin), morph target
 * deltas as packed floats.  Immutable after creation: share it between
 * instances and threads.
 */
typedef struct mn_deform_mesh {
    uint32_t mesh, primitive;      /* where it came from */
    uint32_t vertex_count;
    const float *positions;        /* 3 × vertex_count */
    const float *normals;          /* 3 × vertex_count, NULL when the primitive has none */
    const float *tangents;         /* 4 × vertex_count, NULL when none */
    uint32_t influence_count;      /* 0 when not skinned */
    const uint16_t *joints;        /* vertex_count × influence_count (skin-joint order) */
    const float *weights;          /* vertex_count × influence_count */
    uint32_t target_count;         /* morph targets */
    const float *const *position_deltas;  /* target_count arrays of 3 × vertex_count, entries NULL when absent */
    const float *const *normal_deltas;
    const float *const *tangent_deltas;   /* xyz deltas, 3 × vertex_count */
    struct mn_deform_mesh_private *priv_;
} mn_deform_mesh;

/*
 * Prepare model->meshes[mesh].primitives[primitive].  The mesh is one block
 * from `allocator` (NULL: malloc); a skinned primitive also borrows one
 * scratch buffer (16 bytes a vertex) while converting, returned before this
 * returns.  The mesh does not refer to the model afterwards.
 * Errors: MN_INVALID_ARGUMENT (NULL model or out), MN_INDEX_RANGE,
 * MN_INVALID_VALUE (no VEC3 POSITION, a NORMAL/TANGENT/JOINTS/WEIGHTS or
 * target accessor of the wrong type, JOINTS_n without WEIGHTS_n),
 * MN_COUNT_MISMATCH, MN_OVERFLOW, MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_deform_mesh_create(const mn_model *model, uint32_t mesh, uint32_t primitive,
                                       const mn_allocator *allocator, mn_deform_mesh **out,
                                       mn_error *err);

/* Free a prepared mesh.  NULL is allowed. */
MN_API void mn_deform_mesh_free(mn_deform_mesh *mesh);

/*
 * Deform: morph by `weights` (target_count values; NULL or all zero = no
 * morph; targets of zero weight cost nothing), then skin by `palette`
 * (palette_count matrices in skin-joint order; NULL = not skinned).  Writes
 * 3 floats a vertex to out_positions, and to out_normals / out_tangents (4)
 * when not NULL and the mesh has them.  Allocation-free.
 * A palette given to a mesh without influences is ignored.  A morphed mesh
 * that is not skinned gets its normals and tangent xyz renormalised (a unit
 * vector plus weighted deltas is not unit length; skinning renormalises
 * anyway), so outputs are unit length whichever steps ran.
 * A mesh set to MN_SKINNING_DUAL_QUAT (mn_deform_mesh_set_skinning) converts
 * the palette with mn_skin_dual_quats, on the stack, then skins by dual
 * quaternions.
 * Errors: MN_INVALID_ARGUMENT (NULL out_positions, palette too small for the
 * largest joint index of the mesh, a dual-quaternion mesh whose joints reach
 * past MN_SKIN_DQ_STACK_JOINTS), and for a dual-quaternion mesh those of
 * mn_skin_dual_quats (MN_NOT_FINITE, MN_NOT_RIGID; nothing is written then).
 */
MN_API mn_status mn_deform_mesh_run(const mn_deform_mesh *mesh, const float *weights,
                                    const float *palette, uint32_t palette_count,
                                    float *out_positions, float *out_normals, float *out_tangents);

/* ---- dual-quaternion skinning ---------------------------------------------- */

/*
 * Dual-quaternion skinning (DQS, Kavan et al. 2008), opt-in: where linear
 * blending averages matrices, and a joint twisted far from its neighbour
 * pulls the vertices between them towards the axis (the "candy wrapper"),
 * DQS blends each joint's rotation and translation as a unit dual
 * quaternion, so a 180-degree twist keeps a limb's radius.
 *
 * Per vertex, with influences (j_k, w_k):
 *   - the antipodality fix: a dual quaternion and its negation are the same
 *     transform, so each influence's is taken in the hemisphere of the
 *     vertex's first influence (w_k is negated where its real part's dot
 *     product with the first's is negative);
 *   - b = Σ ±w_k · dq[j_k], normalised; p' = rotate(b, s · p) + translate(b)
 *     where s = Σ w_k · scale[j_k] (the joints' uniform scales, blended
 *     linearly and applied before the rigid part, as the literature does);
 *   - n' = normalize(rotate(b, n)); t'.xyz = normalize(rotate(b, t.xyz)),
 *     t'.w = t.w.  A vertex whose blended rotation is zero keeps s · p, and
 *     a zero normal stays zero.
 * With one influence, or influences that agree, DQS gives LBS's result.
 *
 * Scale: a joint's skin matrix (its palette matrix) is split into a uniform
 * scale and a rigid part.  Its 3x3 part must be s·R with R a rotation: its
 * columns of the same length within MN_SKIN_DQ_SCALE_TOLERANCE relative,
 * pairwise perpendicular within it (|cos| of their angle), and a positive
 * determinant.  A joint with non-uniform scale, shear or a mirror is refused
 * (MN_NOT_RIGID, naming the joint and its column lengths or angle): a dual
 * quaternion holds a rotation and a translation only, and blending the
 * scale outside it, as s above does, is exact only for a uniform one.  Such
 * a rig wants linear blending.
 *
 * Kernels: the scalar reference, SSE2 (the reference's bits) and AVX2+FMA
 * (within 4e-6 of it, relative to max(1, |value|)) on x86-64; others, and
 * influence counts that are not a multiple of 4, run the reference.  Every
 * output is stored through the cache (output_store is ignored).  Nothing
 * allocates.
 */

/* Floats a joint's dual quaternion takes: real part x y z w, dual part x y z w, scale, 3 unused. */
#define MN_SKIN_DQ_FLOATS 12u

/* How far a joint's 3x3 may be from a uniform scale times a rotation (relative). */
#define MN_SKIN_DQ_SCALE_TOLERANCE 1e-3f

/*
 * Convert `count` palette matrices (16 floats each, column-major, as
 * mn_skin_job's palette) into dual quaternions, MN_SKIN_DQ_FLOATS floats
 * each, into out (caller-owned, count × MN_SKIN_DQ_FLOATS floats; it must not
 * overlap palette).  Each joint's real part is its rotation (joint 0's with
 * w >= 0, every other's in joint 0's hemisphere: then a rig's joints usually
 * share one, and skinning skips the per-vertex hemisphere tests), its dual
 * part half its translation times the rotation, its scale the 3x3's uniform
 * scale (1 within 2^-20 of it).  Allocation-free: call it once a
 * frame per palette.
 * Errors: MN_INVALID_ARGUMENT (NULL palette or out with count > 0),
 * MN_NOT_FINITE (a matrix with a NaN or infinity), MN_NOT_RIGID (a joint
 * with non-uniform scale, shear, a mirror or zero scale: err names the first
 * such joint and says which); out's joints before it are written.
 */
MN_API mn_status mn_skin_dual_quats(const float *palette, uint32_t count, float *out,
                                    mn_error *err);

/*
 * Skin `job` by dual quaternions: the job as for mn_skin_run, except that its
 * palette is not read (it may be NULL) and each joint index picks a dual
 * quaternion of `dual_quats` (palette_count of them, from mn_skin_dual_quats,
 * or made by the caller: the real part need not be unit length and either
 * sign gives the same vertices).  Checks and errors as mn_skin_run.
 * Allocation-free.
 */
MN_API mn_status mn_skin_dq_run(const mn_skin_job *job, const float *dual_quats);

/* mn_skin_dq_run with the kernel of a chosen level (as mn_skin_run_with). */
MN_API mn_status mn_skin_dq_run_with(const mn_skin_job *job, const float *dual_quats,
                                     mn_simd_level level);

/* How a prepared mesh is skinned. */
typedef enum mn_skinning {
    MN_SKINNING_LINEAR = 0,      /* linear-blend skinning: mn_skin_run (the default) */
    MN_SKINNING_DUAL_QUAT        /* dual-quaternion skinning: mn_skin_dual_quats, mn_skin_dq_run */
} mn_skinning;

/*
 * The most joints mn_deform_mesh_run converts for a dual-quaternion mesh (it
 * converts the palette on the stack, 48 bytes a joint); a mesh whose joints
 * reach further is deformed with mn_deform_mesh_run_dq instead.
 */
#define MN_SKIN_DQ_STACK_JOINTS 256u

/*
 * Choose how mn_deform_mesh_run skins `mesh` (a new mesh skins linearly).
 * Set it before the mesh is shared between threads: it is the one field of
 * a prepared mesh that changes after creation.  Returns MN_OK, or
 * MN_INVALID_ARGUMENT (NULL mesh, a value not an mn_skinning).
 */
MN_API mn_status mn_deform_mesh_set_skinning(mn_deform_mesh *mesh, mn_skinning skinning);

/* How `mesh` is skinned (MN_SKINNING_LINEAR for NULL). */
MN_API mn_skinning mn_deform_mesh_skinning(const mn_deform_mesh *mesh);

/*
 * mn_deform_mesh_run with the joints' dual quaternions given (dual_count of
 * them, from mn_skin_dual_quats; NULL = not skinned) instead of a palette:
 * morph by `weights`, then skin by dual quaternions whatever the mesh's
 * mn_skinning.  For a caller that keeps the dual quaternions itself (an
 * instance converts each skin's palette once a frame), and for meshes of
 * more than MN_SKIN_DQ_STACK_JOINTS joints.  Allocation-free.
 * Errors: MN_INVALID_ARGUMENT (NULL out_positions, dual_count below the
 * mesh's largest joint index + 1).
 */
MN_API mn_status mn_deform_mesh_run_dq(const mn_deform_mesh *mesh, const float *weights,
                                       const float *dual_quats, uint32_t dual_count,
                                       float *out_positions, float *out_normals,
                                       float *out_tangents);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_SKIN_H */
