/*
 * marionette/head/head.h — the expression-basis head: its control vector
 * (head_ext), gaze, its CPU forward and pose, joint overrides, and the debug
 * colourings and view fit a preview needs.
 *
 * A head is posed from a parsed .aosrig pack (aosrig.h) by this maths
 * (docs/formats.md, "The head's forward and pose"):
 *
 *     forward  p[v] = neutral[v] + Σ_e c[e]·basisScale[e]·basis[v,e]
 *              then each eye (left, then right) turns the vertex about its
 *              centre by R = Ry(yaw)·Rx(pitch), blended by eyeWeights[eye,v]
 *     pose     q[v] = p[v] + stitchLocal[v]            (when the pack has it)
 *              out[v] = Σ_i w[v,i]·(jointWorld[j]·restWorld[j]⁻¹)·bindTransform·q[v]
 *
 *     mn_head *head;
 *     mn_head_create(pack, NULL, &head, &err);          (the pack must outlive it)
 *     float controls[387] = {0};                        (header.head_ext.dim)
 *     controls[17] = 0.5f;                              (an expression coefficient)
 *     mn_head_pose(head, controls, 387, out, &err);     (V × 3 floats, metres)
 *     mn_head_free(head);
 *
 * The control vector ("head_ext") is the expression coefficients, region by
 * region, then four gaze angles [pitch_L, yaw_L, pitch_R, yaw_R] in radians,
 * head-local: pitch > 0 looks down (about +X), yaw > 0 looks toward the
 * character's left (about +Y; head-local +X is the character's left, +Z the
 * way the face looks).  Every call taking a control vector zero-pads a
 * shorter one and refuses a longer one.
 *
 * Conventions that differ from the rest of marionette because the pack's
 * format fixes them: matrices here are ROW-MAJOR 4x4 (translation at floats
 * 3, 7, 11), points column vectors.  Quaternions keep marionette's x y z w
 * order (the pack's format writes w x y z).
 *
 * Units: forward returns the pack's units; pose takes joint worlds in metres
 * and returns metres (a "cm" pack's output is scaled by 0.01 and caller joint
 * translations by 100).  The default joint worlds (the pack's restWorld, for
 * which skinning is the identity) are used as stored.
 *
 * Speed: forward and pose stream the f16 basis once (3E halves a vertex);
 * on x86-64 with AVX2, FMA and F16C a SIMD kernel is chosen at run time (on
 * AArch64 a NEON one always), and it agrees with the scalar reference within
 * float rounding of a dot product.  Nothing a frame calls allocates (forward, pose, pose_arkit,
 * set_joint_worlds, set_joint_overrides, the head_ext helpers).
 *
 * Thread safety: a head holds one character's state and scratch; calls on
 * one head must not overlap.  Distinct heads (even of one pack) are
 * independent.
 */
#ifndef MARIONETTE_HEAD_HEAD_H
#define MARIONETTE_HEAD_HEAD_H

#include "../core.h"
#include "../render.h"
#include "aosrig.h"
#include "arkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- head_ext: the control vector ------------------------------------------------ */

/*
 * Split a control vector into its expr_dim expression coefficients and its
 * gaze_dim (4) gaze angles.  `count` floats are read; a shorter vector is
 * zero-padded.  expr must hold layout->expr_dim floats, gaze layout->gaze_dim.
 * Errors: MN_INVALID_ARGUMENT (a NULL pointer, count > layout->dim).
 * Allocation-free.
 */
MN_API mn_status mn_head_ext_unpack(const mn_aosrig_head_ext *layout, const float *controls,
                                    size_t count, float *expr, float *gaze, mn_error *err);

/* Where a region's coefficients sit: the half-open range [start, end) of head_ext. */
typedef struct mn_head_ext_slice {
    const char *region;        /* the layout's name (borrowed) */
    uint32_t start, end;
} mn_head_ext_slice;

/*
 * Every region's slice, in declaration order (they tile [0, expr_dim); gaze
 * follows and is not listed).  Writes min(capacity, region_count) slices and
 * returns region_count, so a NULL `out` with capacity 0 asks for the size.
 */
MN_API size_t mn_head_ext_region_slices(const mn_aosrig_head_ext *layout, mn_head_ext_slice *out,
                                        size_t capacity);

/*
 * The name of control `index` (< layout->dim) into buf, NUL-terminated and
 * cut to `size` like snprintf: "<region>_%03d" (more digits when a region
 * needs them) for an expression coefficient, its index within its region;
 * then "gaze_pitch_L", "gaze_yaw_L", "gaze_pitch_R", "gaze_yaw_R".  Returns
 * the full name's length, or 0 when index is out of range (buf then holds "").
 */
MN_API size_t mn_head_ext_control_name(const mn_aosrig_head_ext *layout, size_t index, char *buf,
                                       size_t size);

/* The reduced view's length: Σ over regions of their reduced count, plus gaze_dim. */
MN_API size_t mn_head_ext_reduced_dim(const mn_aosrig_head_ext *layout);

/*
 * Widen a reduced view (for each region in order its first `reduced`
 * coefficients, then the gaze angles) to a full control vector: each run
 * lands at its region's start, every other coefficient is 0, gaze is
 * copied.  `count` must be exactly mn_head_ext_reduced_dim; out holds
 * layout->dim floats.  Errors: MN_INVALID_ARGUMENT (NULL pointer),
 * MN_COUNT_MISMATCH (another count).  Allocation-free.
 */
MN_API mn_status mn_head_ext_widen(const mn_aosrig_head_ext *layout, const float *reduced,
                                   size_t count, float *out, mn_error *err);

/*
 * Gaze [pitch_L, yaw_L, pitch_R, yaw_R] (radians) to each eye's rotation
 * R = Ry(yaw)·Rx(pitch), as unit quaternions x y z w: (cy·sp, sy·cp, −sy·sp,
 * cy·cp) with half-angle cosines and sines.  Pure.
 */
MN_API void mn_gaze_to_eye_rotations(const float gaze[4], float left[4], float right[4]);

/* ---- the head --------------------------------------------------------------------- */

typedef struct mn_head mn_head;

/* Options for mn_head_create.  A zeroed struct (or NULL) means malloc/free. */
typedef struct mn_head_options {
    mn_allocator allocator;
} mn_head_options;

/*
 * A head over `pack` (borrowed: it must outlive the head and not change).
 * The head starts at the rest (joint worlds = restWorld, no overrides, no
 * ARKit map) with the best kernel this CPU runs.  One allocation (a block
 * sized by E and J); the basis is never copied.
 * Errors: MN_INVALID_ARGUMENT (NULL pack or out), MN_INVALID_VALUE (a
 * restWorld whose 3×3 is singular: it cannot be inverted for skinning),
 * MN_OVERFLOW, MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_head_create(const mn_aosrig *pack, const mn_head_options *options,
                                mn_head **out, mn_error *err);

/* Free a head.  NULL is allowed. */
MN_API void mn_head_free(mn_head *head);

/* The pack the head was made from. */
MN_API const mn_aosrig *mn_head_pack(const mn_head *head);

/*
 * The kernel forward and pose use, by level (mn_simd_level in core.h):
 * the head has the scalar reference, AVX2_FMA (which also needs the CPU's
 * F16C, every AVX2 CPU's half conversion) and NEON.  A level falls back to
 * the widest of those not above it that the CPU and the build have, so
 * MN_SIMD_SSE2 runs the reference and MN_SIMD_BEST the widest there is.
 * Returns the level now in use (a kernel's level, never MN_SIMD_BEST).  For
 * tests and benchmarks; results agree within float rounding.
 */
MN_API mn_simd_level mn_head_set_simd(mn_head *head, mn_simd_level level);

/* The axis-aligned bounds of the neutral mesh, in the pack's units (for a view fit). */
MN_API void mn_head_neutral_bounds(const mn_head *head, float min[3], float max[3]);

/*
 * forward: the head-local vertices (pack units), before the seam and
 * skinning, for `count` controls (zero-padded to dim).  out holds V × 3
 * floats.  Errors: MN_INVALID_ARGUMENT (NULL head, out, or controls with
 * count > 0; count > dim).  Allocation-free.
 */
MN_API mn_status mn_head_forward(mn_head *head, const float *controls, size_t count, float *out,
                                 mn_error *err);

/*
 * pose: forward, the neck seam, the bind transform, then skinning against
 * the head's current joint worlds; V × 3 floats in metres.  Errors as
 * mn_head_forward.  Allocation-free.
 */
MN_API mn_status mn_head_pose(mn_head *head, const float *controls, size_t count, float *out,
                              mn_error *err);

/*
 * Set where the body's joints are: J × 16 ROW-MAJOR world matrices in metres,
 * in the pack's joint order (count must be J × 16), or NULL (count 0) for the
 * rest.  The skinning matrices are recomputed here, once, not per pose.
 * Replaces any overrides; the next mn_head_set_joint_overrides then reports
 * moved.  Errors: MN_INVALID_ARGUMENT (NULL head; worlds NULL with a count),
 * MN_COUNT_MISMATCH (count ≠ J × 16), MN_NOT_FINITE (a non-finite number);
 * on error the head is unchanged.  Allocation-free.
 */
MN_API mn_status mn_head_set_joint_worlds(mn_head *head, const float *worlds, size_t count,
                                          mn_error *err);

/* A per-joint rotation on top of the joint's rest, by the pack's joint name. */
typedef struct mn_joint_override {
    const char *joint;         /* a name of the pack's joints; any other is skipped */
    float rotation[4];         /* parent-relative rotation, x y z w; normalised on use */
} mn_joint_override;

/*
 * Rebuild the joint worlds from the rest with these overrides:
 * an overridden joint's local is restLocal·R(q), a turn about its own origin
 * in its own rest axes; joints below it follow their parents; every other
 * joint keeps its restWorld exactly.  Unknown names are skipped, a repeated
 * name keeps its last rotation, and each call starts from the rest (overrides
 * never accumulate, and never apply on top of worlds a caller set).
 * *moved (may be NULL) says whether the effective set (known joints,
 * normalised, sign-canonical, identities removed) differs from the previous
 * call's; when it does not, nothing is recomputed.  count 0 returns the head
 * to the rest.  Errors: MN_INVALID_ARGUMENT (NULL head, overrides NULL with a
 * count, a NULL name, a zero-length rotation), MN_NOT_FINITE; on error the
 * head is unchanged.  Allocation-free.
 */
MN_API mn_status mn_head_set_joint_overrides(mn_head *head, const mn_joint_override *overrides,
                                             size_t count, bool *moved, mn_error *err);

/*
 * The joint worlds poses use now: J × 16 row-major, in the PACK's units (a
 * "cm" pack's caller worlds appear with their translations × 100).  Owned by
 * the head, valid until the next set call.
 */
MN_API const float *mn_head_joint_worlds(const mn_head *head);

/*
 * The ARKit map mn_head_pose_arkit uses (borrowed; NULL removes it).  Its dim
 * must be the head's control dim: MN_COUNT_MISMATCH otherwise.
 */
MN_API mn_status mn_head_set_arkit_map(mn_head *head, const mn_arkit_map *map, mn_error *err);

/*
 * Pose from ARKit-52 weights (`count` ≤ 52 in mn_arkit_channel_name order,
 * zero-padded) through the head's ARKit map.  A head with no map refuses:
 * MN_INVALID_ARGUMENT, "no ARKit map" (an ARKit vector is never read as
 * head_ext).  Other errors as mn_head_pose.  Allocation-free.
 */
MN_API mn_status mn_head_pose_arkit(mn_head *head, const float *arkit, size_t count, float *out,
                                    mn_error *err);

/* ---- seeing a head: debug colourings and the view fit ---------------------------- */

/*
 * A colour packed as WGSL's pack4x8unorm packs it: byte i = ⌊0.5 +
 * 255·clamp(e_i, 0, 1)⌋, red in bits 0-7, NaN as 0.
 * mn_pack_rgba(1, 0, 0, 1) == 0xff0000ff.
 */
MN_API uint32_t mn_pack_rgba(float r, float g, float b, float a);

/*
 * One opaque colour per vertex from its dominant skinning joint (the largest
 * weight, the first on a tie); distinct joints get distinct colours, and a
 * vertex at least half turned by an eye is cyan.  out holds out_count ≥ V
 * colours.  MN_INVALID_ARGUMENT when pack or out is NULL or out_count < V.
 */
MN_API mn_status mn_head_joint_tint(const mn_aosrig *pack, uint32_t *out, size_t out_count);

/* One opaque colour per vertex from its height (y) inside the vertices' bounds: a ramp, blue low
   to red high; a flat bound gives the ramp's middle. verts holds V × 3 floats. */
MN_API void mn_height_tint(const float *verts, size_t vertex_count, uint32_t *out);

/* One opaque colour per vertex from its UV: red = u, green = v (clamped to [0, 1]). uv holds V × 2. */
MN_API void mn_uv_tint(const float *uv, size_t vertex_count, uint32_t *out);

/* One opaque colour for every vertex; rgb (in [0, 1]) NULL means a light neutral. */
MN_API void mn_flat_tint(size_t vertex_count, const float *rgb, uint32_t *out);

/* The height a fit scales to by default: 0.35 m, a head at conversational distance. */
#define MN_FIT_DEFAULT_HEIGHT 0.35f

/* Options for mn_fit_verts_transform.  Zero fields mean the defaults given. */
typedef struct mn_fit_options {
    float height;      /* > 0: object-space height of the bounds; 0: MN_FIT_DEFAULT_HEIGHT */
    float scale;       /* > 0: this uniform scale, overriding height; 0: from height */
    float offset[3];   /* where the bounds' centre lands; zero: the origin */
} mn_fit_options;

/* A fit: the transform, the scale it chose and where the centre landed. */
typedef struct mn_fit_view {
    float transform[12];   /* row-major 3×4 affine: scale on the diagonal, translation at 3, 7, 11 */
    float scale;
    float centroid[3];     /* object-space centre (= offset), for normal shading */
} mn_fit_view;

/*
 * A rig → object transform that centres the bounds [min, max] and scales
 * them: scale = height / (max.y − min.y) (1 for a flat box) unless options
 * set a scale; translation = offset − scale·centre.  options may be NULL.
 */
MN_API mn_fit_view mn_fit_verts_transform(const float min[3], const float max[3],
                                          const mn_fit_options *options);

/* ---- drawing it (render.h) ------------------------------------------------------------ */

/* How a head source colours its vertices (head.h's debug colourings, or a skin tone). */
typedef enum mn_head_colouring {
    MN_HEAD_COLOUR_SKIN = 0,     /* a flat skin tone, the eyes (eye weight ≥ 0.5) dark */
    MN_HEAD_COLOUR_FLAT,         /* mn_flat_tint with options->rgb (all zero: its light neutral) */
    MN_HEAD_COLOUR_JOINT,        /* mn_head_joint_tint: the dominant joint, the eyes cyan */
    MN_HEAD_COLOUR_UV,           /* mn_uv_tint of the pack's uv (the pack must have one) */
    MN_HEAD_COLOUR_HEIGHT        /* mn_height_tint of the neutral mesh */
} mn_head_colouring;

/* Options of mn_render_source_head.  A zeroed struct (or NULL) means skin colour, malloc/free. */
typedef struct mn_render_head_options {
    mn_head_colouring colouring;
    float rgb[3];                /* MN_HEAD_COLOUR_FLAT's colour, each in [0, 1] */
    mn_allocator allocator;
} mn_render_head_options;

/*
 * From an expression head: one mesh of the pack's triangles (faces; quads
 * are not drawn twice) whose positions are `posed`, the V × 3 floats the
 * caller hands mn_head_pose (or mn_head_pose_arkit, or mn_head_forward),
 * read where they lie.  Normals are computed from the posed triangles
 * (area-weighted, per vertex) by every refresh, into the source's own
 * buffer; the colours are computed once here (the debug colourings' packed
 * sRGB bytes decoded to the renderer's linear colour).  The material is
 * double-sided, since a pack's winding is not fixed.  Pose, then call
 * mn_render_source_refresh, then draw.  head (for its pack) and posed are
 * borrowed and must outlive the source.  Errors: MN_INVALID_ARGUMENT (NULL
 * head, posed or out; a colouring out of range; a non-finite or out of
 * [0, 1] rgb), MN_MISSING_PROPERTY (MN_HEAD_COLOUR_UV for a pack without
 * uv), MN_OVERFLOW, MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_render_source_head(const mn_head *head, const float *posed,
                                       const mn_render_head_options *options,
                                       mn_render_source **out, mn_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_HEAD_HEAD_H */
