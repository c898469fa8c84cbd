/*
 * marionette/character/splat.h — Gaussian splats bound to a skeleton: the 3DGS PLY,
 * the bindings (bindings.bin), and the CPU deform of the splats' centres and
 * rotations (docs/formats.md, "character.ply", "bindings.bin and the splat deform").
 *
 * The PLY is read whole into packed float arrays (x y z, rotations, scales,
 * opacity, colours); the bindings give each splat K joint indices and
 * weights.  Deforming splat i with skin matrices S (column-major float[16]
 * per joint, the poser's output) and plyToCharacter's translation t:
 *
 *   c' = Σ_k w_k·S_k·(c + t)                    centres, like skinned vertices
 *   M  = Σ_k w_k·S_k[3×3]
 *   R  = the rotation nearest M: the rotation maximising trace(Rᵀ·M), which
 *        is the orthogonal polar factor of M when det M > 0
 *   q' = q(R) ⊗ normalise(q)                    Hamilton product
 *
 * Scales, opacity and colours do not change.  Weights are used as stored,
 * never renormalised.  Quaternions here follow the library: x y z w.  The
 * PLY stores rot_0 = w, rot_1..3 = x y z; the reader reorders them.
 */
#ifndef MARIONETTE_CHARACTER_SPLAT_H
#define MARIONETTE_CHARACTER_SPLAT_H

#include "../core.h"
#include "../pool.h"
#include "../render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the PLY ---------------------------------------------------------------- */

/*
 * A 3D Gaussian Splatting cloud as read from its PLY.  Every array is
 * packed (no stride) and owned by the cloud.
 */
typedef struct mn_splat_cloud {
    uint32_t count;          /* splats */
    uint32_t rest_count;     /* f_rest_* coefficients a splat (0 when the file has none) */
    float *centres;          /* count × 3: x y z */
    float *rotations;        /* count × 4: x y z w (rot_1 rot_2 rot_3 rot_0), as stored (not normalised) */
    float *scales;           /* count × 3: scale_0..2 as stored (3DGS keeps their logarithms) */
    float *opacities;        /* count: opacity as stored (3DGS keeps the logit) */
    float *colours;          /* count × 3: f_dc_0..2 */
    float *rest;             /* count × rest_count: f_rest_0.. in index order; NULL when rest_count is 0 */
    mn_allocator allocator;  /* the hooks it was read with */
} mn_splat_cloud;

typedef struct mn_splat_read_options {
    mn_allocator allocator;     /* zero: malloc/free */
    uint32_t expected_count;    /* the package's splatCount; 0: any count */
} mn_splat_read_options;

/*
 * Read a binary little-endian 3DGS PLY from memory into *out (zeroed on
 * failure; free with mn_splat_cloud_free).  Header rules:
 * properties are found by name in any order; x y z, f_dc_0..2, opacity,
 * scale_0..2, rot_0..3 are required and, like every f_rest_N (N running
 * 0..n-1 with none missing or twice), must be `float` (or `float32`); other
 * scalar properties are skipped by their size; `comment` and `obj_info`
 * lines are skipped.
 *
 * Errors: MN_INVALID_VALUE for a file that is not a PLY, an ASCII or
 * big-endian PLY (the message says so), a list property, an element other
 * than the single `vertex`, an unknown property type, a required property
 * of another type, a duplicate property, or a zero-length rotation;
 * MN_MISSING_PROPERTY for a missing required property; MN_COUNT_MISMATCH
 * when the vertex count differs from expected_count or the data is shorter
 * or longer than count × the vertex size (offset: where it ends);
 * MN_OVERFLOW when the count's bytes overflow; MN_NOT_FINITE for a NaN or
 * infinity in a kept property (offset: its byte); MN_OUT_OF_MEMORY.
 * err->offset names the byte where the fault is, err->path the property.
 */
MN_API mn_status mn_splat_ply_read(const void *data, size_t size,
                                   const mn_splat_read_options *options,
                                   mn_splat_cloud *out, mn_error *err);

/* Free what a cloud owns and zero it.  A zeroed cloud (or NULL) is a no-op. */
MN_API void mn_splat_cloud_free(mn_splat_cloud *cloud);

/* ---- the bindings ------------------------------------------------------------ */

/*
 * bindings.bin: "BIND" u32 version (1) u32 count u32 K, then count × K u16
 * joint indices (splat-major), then count × K f32 weights; no padding, so
 * the file is exactly 16 + 6·count·K bytes.
 */
typedef struct mn_splat_bindings {
    uint32_t count;          /* splats */
    uint32_t influences;     /* K, ≥ 1 */
    uint16_t *joints;        /* count × K */
    float *weights;          /* count × K, as stored */
    mn_allocator allocator;
} mn_splat_bindings;

typedef struct mn_splat_bindings_read_options {
    mn_allocator allocator;     /* zero: malloc/free */
    uint32_t expected_count;    /* the package's splatCount; 0: any count */
    uint32_t joint_count;       /* joints of the skeleton; every index must be below it (0: not checked) */
} mn_splat_bindings_read_options;

/*
 * Read bindings.bin into *out (zeroed on failure; free with
 * mn_splat_bindings_free).  Errors: MN_INVALID_VALUE for a bad magic,
 * version ≠ 1 or K = 0; MN_COUNT_MISMATCH for a count ≠ expected_count or a
 * size ≠ 16 + 6·count·K; MN_OVERFLOW when that size overflows;
 * MN_INDEX_RANGE for a joint index ≥ joint_count; MN_NOT_FINITE for a weight
 * that is NaN or infinite (offset: the byte); MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_splat_bindings_read(const void *data, size_t size,
                                        const mn_splat_bindings_read_options *options,
                                        mn_splat_bindings *out, mn_error *err);

/* Free what bindings own and zero them.  Zeroed bindings (or NULL) are a no-op. */
MN_API void mn_splat_bindings_free(mn_splat_bindings *bindings);

/* ---- the deform ---------------------------------------------------------------- */

/*
 * plyToCharacter (12 numbers, a row-major 3×4 affine) checked: its 3×3
 * must be the identity (exactly; the PLY's axes are kept),
 * every number finite.  On success writes its translation (indices 3, 7, 11)
 * to translation[3].  Errors: MN_INVALID_VALUE, MN_NOT_FINITE.
 */
MN_API mn_status mn_splat_ply_to_character(const float matrix[12], float translation[3],
                                           mn_error *err);

/*
 * One deform: caller-owned arrays, all packed.  out_centres / out_rotations
 * must not overlap the inputs.  The rotation out for splat i is q' above,
 * x y z w, unit length, its sign free (the kernels agree on it).
 */
typedef struct mn_splat_skin_job {
    uint32_t count;              /* splats */
    uint32_t influences;         /* K, ≥ 1 */
    const uint16_t *joints;      /* count × K, each below palette_count */
    const float *weights;        /* count × K */
    const float *palette;        /* palette_count × 16 floats, column-major skin matrices */
    uint32_t palette_count;
    const float *centres;        /* count × 3 (the PLY's frame) */
    const float *rotations;      /* count × 4, x y z w; normalised here (zero length gives zero) */
    float translation[3];        /* plyToCharacter's translation (mn_splat_ply_to_character), added to each centre first */
    float *out_centres;          /* count × 3, the character's frame */
    float *out_rotations;        /* count × 4 */
} mn_splat_skin_job;

/*
 * Check a job once when it is set up: pointers and counts consistent, every
 * joint index below palette_count.  MN_INVALID_ARGUMENT / MN_INDEX_RANGE
 * with err naming the field or splat.
 */
MN_API mn_status mn_splat_skin_job_validate(const mn_splat_skin_job *job, mn_error *err);

/*
 * Deform on the calling thread with the kernel of a chosen level
 * (mn_simd_level in core.h; MN_SIMD_BEST for the widest there is).  The
 * splat deform has the scalar reference, SSE2 (four splats at a time) and
 * AVX2_FMA (eight); a level the CPU or the build lacks falls back to the
 * widest below it, and NEON runs the reference.  Checks pointers and counts,
 * not joint indices (see mn_splat_skin_job_validate).  Allocation-free.
 * The kernels agree within float rounding, not bit for bit: on unit-sized
 * data each is within 3e-7 of a double-precision reference (tests allow
 * 2e-6).
 */
MN_API mn_status mn_splat_skin_run(const mn_splat_skin_job *job, mn_simd_level level);

/*
 * A worker pool started once (marionette/pool.h), which splits every deform
 * across its threads and the calling thread.  Running allocates nothing;
 * one run at a time per skinner (a skinner is not to be shared by threads).
 */
typedef struct mn_splat_skinner mn_splat_skinner;

/*
 * Start a skinner of thread_count threads in all, the caller's included:
 * 0 and 1 start no thread (every run is on the calling thread); N starts
 * N − 1, at most MN_POOL_MAX_THREADS in all.  For one per CPU pass
 * mn_cpu_count().  *out is NULL on failure.  Errors: MN_INVALID_ARGUMENT
 * (NULL out, more than MN_POOL_MAX_THREADS), MN_OUT_OF_MEMORY (also when a
 * thread cannot be started).
 */
MN_API mn_status mn_splat_skinner_create(uint32_t thread_count, const mn_allocator *allocator,
                                         mn_splat_skinner **out, mn_error *err);

/* Threads in all, the caller's included (1 for a skinner made with 0; 0 for NULL). */
MN_API uint32_t mn_splat_skinner_threads(const mn_splat_skinner *skinner);

/*
 * Deform across the skinner's threads with the chosen kernel; returns when
 * every splat is written.  The result is the same bits as
 * mn_splat_skin_run with the same level: the threads take chunks that start
 * on multiples of 2048 splats, so every kernel sees the same groups of
 * splats (a group's lanes run the same number of squaring steps).
 * Errors as mn_splat_skin_run.  Allocation-free.
 */
MN_API mn_status mn_splat_skinner_run(mn_splat_skinner *skinner, const mn_splat_skin_job *job,
                                      mn_simd_level level);

/* Stop the threads and free the skinner.  NULL is a no-op. */
MN_API void mn_splat_skinner_free(mn_splat_skinner *skinner);

/* ---- drawing it (render.h) ------------------------------------------------------------ */

/* Options of mn_render_source_splat.  A zeroed struct (or NULL) means the defaults given. */
typedef struct mn_render_splat_options {
    float radius_scale;          /* disc radius = radius_scale × the largest exp(scale); 0: 1 */
    float min_opacity;           /* splats whose sigmoid(opacity) is below it are not drawn,
                                    in [0, 1]; 0 draws every splat */
    bool linear_colours;         /* the colours are linear already (colorSpace "linear");
                                    false: sRGB, decoded to linear (colorSpace "srgb") */
    mn_allocator allocator;
} mn_render_splat_options;

/*
 * From Gaussian splats (splat.h), drawn as a debug view: each splat a flat
 * hexagon (four triangles) centred on its posed centre, facing the camera,
 * its radius from its scales (3DGS stores their logarithms) and its colour
 * from the SH DC term (0.5 + 0.2820948 × f_dc, clamped to [0, 1]).  No
 * blending, no Gaussian falloff: a picture of the pose, not of the
 * splatting.  posed_centres is cloud->count × 3 floats the caller owns
 * (mn_splat_skin_job's out_centres, or cloud->centres at rest), read where
 * it lies by every refresh; cloud (for its scales, opacities and colours)
 * and posed_centres are borrowed and must outlive the source.  The discs
 * face +z until mn_render_source_splat_face turns them.  Pose, then
 * refresh, then draw.  Errors: MN_INVALID_ARGUMENT (NULL cloud, centres or
 * out; a radius_scale that is negative or not finite; a min_opacity outside
 * [0, 1]), MN_OVERFLOW (more splats than a mesh's vertex count holds),
 * MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_render_source_splat(const mn_splat_cloud *cloud,
                                        const float *posed_centres,
                                        const mn_render_splat_options *options,
                                        mn_render_source **out, mn_error *err);

/*
 * Turn a splat source's discs to face `camera` (its view's right and up
 * axes) from the next refresh on.  Not a splat source, or NULL: nothing.
 * Allocation-free.
 */
MN_API void mn_render_source_splat_face(mn_render_source *source,
                                        const mn_render_camera *camera);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_CHARACTER_SPLAT_H */
