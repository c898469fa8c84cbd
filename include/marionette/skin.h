/*
 * marionette/skin.h — linear-blend skinning on the CPU, and the prepared
 * deformable mesh that morphs then skins a glTF primitive.
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
 * Errors: MN_INVALID_ARGUMENT (NULL out_positions, palette too small for the
 * largest joint index of the mesh).
 */
MN_API mn_status mn_deform_mesh_run(const mn_deform_mesh *mesh, const float *weights,
                                    const float *palette, uint32_t palette_count,
                                    float *out_positions, float *out_normals, float *out_tangents);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_SKIN_H */
