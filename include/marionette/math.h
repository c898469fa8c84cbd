/*
 * marionette/math.h — vectors, quaternions, column-major 4x4 matrices.
 *
 * Conventions: matrices are float[16], column-major (element (row r, col c)
 * at m[c*4 + r]; translation in m[12..14]).  Quaternions are float[4] x y z w.
 * Composition is T·R·S.  Right-handed, Y up, radians.  Every function writes
 * a caller-owned `out`; none allocates.  Unless a function says otherwise,
 * `out` must not alias an input.
 */
#ifndef MARIONETTE_MATH_H
#define MARIONETTE_MATH_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 4x4 matrices ---------------------------------------------------- */

/* out = identity. */
MN_API void mn_mat4_identity(float out[16]);

/* out = a × b (apply b first, then a).  out must not alias a or b. */
MN_API void mn_mat4_mul(float out[16], const float a[16], const float b[16]);

/*
 * out = inverse of an affine matrix (last row 0 0 0 1).  Returns false, and
 * writes identity, when the 3x3 part is singular (|det| below 1e-30).
 * out must not alias m.
 */
MN_API bool mn_mat4_invert_affine(float out[16], const float m[16]);

/* out = general inverse of m.  Returns false, and writes identity, when m is singular. out must not alias m. */
MN_API bool mn_mat4_invert(float out[16], const float m[16]);

/* out = T·R·S from translation t[3], unit quaternion r[4] (x y z w) and scale s[3]. */
MN_API void mn_mat4_compose(float out[16], const float t[3], const float r[4], const float s[3]);

/*
 * Decompose an affine matrix into t, r (unit quaternion, w >= 0) and s.
 * Scale is the length of each basis column; a negative determinant folds into
 * the sign of s[2], so the rotation stays proper.  Exact, up to float
 * rounding, for skew-free matrices.  Returns false when the columns are not
 * orthogonal (skew, relative tolerance 1e-4) or a scale is zero; t, r and s
 * are still written with a best effort.
 */
MN_API bool mn_mat4_decompose(const float m[16], float t[3], float r[4], float s[3]);

/*
 * The engine decomposition: translation,
 * Euler angles e = [yaw, pitch, roll] with R = Ry(yaw)·Rx(pitch)·Rz(roll),
 * and scale.  At pitch = ±90° roll is folded into yaw (roll = 0).
 * Returns false as mn_mat4_decompose does.
 */
MN_API bool mn_mat4_decompose_engine(const float m[16], float t[3], float e[3], float s[3]);

/* out = m · (p, 1), the w divide NOT applied (affine use). */
MN_API void mn_mat4_transform_point(float out[3], const float m[16], const float p[3]);

/* out = m · (d, 0): rotates and scales a direction, ignores translation. */
MN_API void mn_mat4_transform_dir(float out[3], const float m[16], const float d[3]);

/* ---- quaternions (x y z w) -------------------------------------------- */

/* out = identity rotation (0 0 0 1). */
MN_API void mn_quat_identity(float out[4]);

/* out = a · b (Hamilton product: rotate by b, then by a).  out may alias a or b. */
MN_API void mn_quat_mul(float out[4], const float a[4], const float b[4]);

/* out = q / |q|; identity when |q| is zero or not finite.  out may alias q. */
MN_API void mn_quat_normalize(float out[4], const float q[4]);

/* out = conjugate of q (the inverse of a unit quaternion).  out may alias q. */
MN_API void mn_quat_conjugate(float out[4], const float q[4]);

/*
 * Spherical interpolation along the short arc: at t=0 gives a, at t=1 gives
 * ±b.  When |dot| > 0.9995 the normalised lerp is used (indistinguishable
 * there, and the sin() denominator is degenerate).  The result is unit length.
 * out may alias a or b.
 */
MN_API void mn_quat_slerp(float out[4], const float a[4], const float b[4], float t);

/* out = rotation of `angle` radians about `axis` (normalised here; a zero axis gives identity). */
MN_API void mn_quat_from_axis_angle(float out[4], const float axis[3], float angle);

/* Axis (unit) and angle in [0, π] of unit q.  Identity gives axis (1,0,0), angle 0. */
MN_API void mn_quat_to_axis_angle(const float q[4], float axis[3], float *angle);

/* out = rotation with R = Rx(e[0])·Ry(e[1])·Rz(e[2]) (intrinsic XYZ, the voxel rig's mount.orient). */
MN_API void mn_quat_from_euler_xyz(float out[4], const float e[3]);

/* e with R = Rx(e[0])·Ry(e[1])·Rz(e[2]); at e[1] = ±90° e[2] is folded into e[0]. */
MN_API void mn_quat_to_euler_xyz(float e[3], const float q[4]);

/* out = rotation with R = Ry(yaw)·Rx(pitch)·Rz(roll), e = [yaw, pitch, roll]. */
MN_API void mn_quat_from_engine_euler(float out[4], const float e[3]);

/* e = [yaw, pitch, roll] with R = Ry(yaw)·Rx(pitch)·Rz(roll); gimbal branch folds roll into yaw. */
MN_API void mn_quat_to_engine_euler(float e[3], const float q[4]);

/* out = the 3x3 rotation of unit q as a column-major 4x4 (no translation). */
MN_API void mn_quat_to_mat4(float out[16], const float q[4]);

/* out = v rotated by unit q.  out may alias v. */
MN_API void mn_quat_rotate(float out[3], const float q[4], const float v[3]);

/* ---- hierarchies ------------------------------------------------------ */

/*
 * World matrices for `count` nodes: worlds[i] = worlds[parents[i]] · locals[i],
 * parents[i] = -1 for roots.  Parents may appear anywhere in the array (glTF
 * imposes no parent-before-child order).  locals and worlds hold 16 floats per
 * node and must not alias.  Allocates nothing.
 * Errors: MN_INVALID_ARGUMENT for NULL arrays with count > 0; MN_INDEX_RANGE for
 * a parent outside [-1, count); MN_HIERARCHY for a cycle.  On error `worlds`
 * holds unspecified values; the function always returns (never loops forever).
 */
MN_API mn_status mn_compose_worlds(const int32_t *parents, size_t count, const float *locals,
                                   float *worlds, mn_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_MATH_H */
