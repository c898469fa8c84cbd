/*
 * Double-precision vector, quaternion and affine helpers shared by the
 * motion solvers (ik.c, retarget.c, root_motion.c).  The solvers work in
 * double because their rules are stated as exact arithmetic (acos of a law
 * of cosines near ±1, long chains of products) and round to float once at
 * the end.  Quaternions are x y z w; matrices are the library's column-major
 * 4x4 floats, read here into an affine double frame.  Not installed.
 */
#ifndef MN_ANIM_MOTION_INTERNAL_H
#define MN_ANIM_MOTION_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef struct mq_affine {
    double m[12];   /* column-major 3x4: columns x, y, z, translation */
} mq_affine;

static inline double mq_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void mq_cross(double out[3], const double a[3], const double b[3])
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

static inline void mq_sub(double out[3], const double a[3], const double b[3])
{
    out[0] = a[0] - b[0];
    out[1] = a[1] - b[1];
    out[2] = a[2] - b[2];
}

static inline double mq_len2(const double a[3])
{
    return mq_dot(a, a);
}

static inline void mq_from_float3(double out[3], const float v[3])
{
    out[0] = v[0];
    out[1] = v[1];
    out[2] = v[2];
}

static inline void mq_from_float4(double out[4], const float v[4])
{
    out[0] = v[0];
    out[1] = v[1];
    out[2] = v[2];
    out[3] = v[3];
}

static inline void mq_to_float4(float out[4], const double q[4])
{
    out[0] = (float)q[0];
    out[1] = (float)q[1];
    out[2] = (float)q[2];
    out[3] = (float)q[3];
}

/* Every one of v[0..n) finite: a NaN or infinity has all exponent bits set.  No early exit, so
   the loop vectorises (the solvers check whole matrices every call). */
static inline bool mq_finite_floats(const float *v, int n)
{
    uint32_t bad = 0;
    for (int i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, &v[i], sizeof bits);
        bad |= (uint32_t)((bits & 0x7f800000u) == 0x7f800000u);
    }
    return bad == 0;
}

/* ---- quaternions ---------------------------------------------------------- */

static inline void mq_quat_identity(double q[4])
{
    q[0] = q[1] = q[2] = 0.0;
    q[3] = 1.0;
}

/* out = a·b (rotate by b, then by a).  out may alias a or b. */
static inline void mq_quat_mul(double out[4], const double a[4], const double b[4])
{
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
    out[3] = w;
}

static inline void mq_quat_conj(double out[4], const double q[4])
{
    out[0] = -q[0];
    out[1] = -q[1];
    out[2] = -q[2];
    out[3] = q[3];
}

/* Normalise; identity for a zero or non-finite quaternion.  out may alias q. */
static inline void mq_quat_normalize(double out[4], const double q[4])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0.0) || !isfinite(n)) {
        mq_quat_identity(out);
        return;
    }
    double inv = 1.0 / n; /* one division, four products: the solvers normalise often */
    for (int i = 0; i < 4; i++)
        out[i] = q[i] * inv;
}

/* out = v rotated by unit q.  out may alias v. */
static inline void mq_quat_rotate(double out[3], const double q[4], const double v[3])
{
    /* v + 2w(u×v) + 2u×(u×v), u = q.xyz */
    double u[3] = {q[0], q[1], q[2]}, t[3], t2[3];
    mq_cross(t, u, v);
    t[0] *= 2.0;
    t[1] *= 2.0;
    t[2] *= 2.0;
    mq_cross(t2, u, t);
    double x = v[0] + q[3] * t[0] + t2[0];
    double y = v[1] + q[3] * t[1] + t2[1];
    double z = v[2] + q[3] * t[2] + t2[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

/* Rotation of `angle` about unit `axis`. */
static inline void mq_quat_axis_angle(double out[4], const double axis[3], double angle)
{
    double s = sin(0.5 * angle);
    out[0] = axis[0] * s;
    out[1] = axis[1] * s;
    out[2] = axis[2] * s;
    out[3] = cos(0.5 * angle);
}

/* Rotation about unit `axis` by the angle whose cosine is `cos_angle` (clamped to [-1, 1]). */
static inline void mq_quat_axis_cos(double out[4], const double axis[3], double cos_angle)
{
    if (cos_angle > 1.0)
        cos_angle = 1.0;
    if (cos_angle < -1.0)
        cos_angle = -1.0;
    double half_cos2 = 0.5 * (1.0 + cos_angle);
    double half_sin = sqrt(1.0 - half_cos2);
    out[0] = axis[0] * half_sin;
    out[1] = axis[1] * half_sin;
    out[2] = axis[2] * half_sin;
    out[3] = sqrt(half_cos2);
}

/*
 * The shortest rotation taking direction u onto direction v (neither need be
 * unit).  Opposite directions turn half a turn about an axis orthogonal to u;
 * a zero vector gives identity.
 */
static inline void mq_quat_from_vectors(double out[4], const double u[3], const double v[3])
{
    double nn = sqrt(mq_len2(u) * mq_len2(v));
    if (!(nn > 0.0)) {
        mq_quat_identity(out);
        return;
    }
    double real = nn + mq_dot(u, v);
    if (real < 1e-12 * nn) {
        if (fabs(u[0]) > fabs(u[2])) {
            out[0] = -u[1];
            out[1] = u[0];
            out[2] = 0.0;
        } else {
            out[0] = 0.0;
            out[1] = -u[2];
            out[2] = u[1];
        }
        out[3] = 0.0;
    } else {
        double c[3];
        mq_cross(c, u, v);
        out[0] = c[0];
        out[1] = c[1];
        out[2] = c[2];
        out[3] = real;
    }
    mq_quat_normalize(out, out);
}

/*
 * Scale-from-identity S(q, w) (marionette/blend.h): q moved to the
 * w ≥ 0 hemisphere, then w of the way from identity along the short arc
 * (normalised lerp when nearly identity, where the sine ratio degenerates).
 */
static inline void mq_quat_scale(double out[4], const double q_in[4], double w)
{
    if (!(w > 0.0)) {
        mq_quat_identity(out); /* exactly, where the sine branch would give −0 components */
        return;
    }
    double q[4] = {q_in[0], q_in[1], q_in[2], q_in[3]};
    if (q[3] < 0.0)
        for (int i = 0; i < 4; i++)
            q[i] = -q[i];
    if (w >= 1.0) {
        /* The whole arc: both branches give q (the sine ratio is 1, cos(acos(q.w)) is q.w),
           so q itself, normalised as the near-identity branch would be, without the trig. */
        mq_quat_normalize(out, q);
        return;
    }
    if (q[3] > 0.9995) {
        double r[4] = {w * q[0], w * q[1], w * q[2], (1.0 - w) + w * q[3]};
        mq_quat_normalize(out, r);
        return;
    }
    double half = acos(q[3]); /* θ/2 */
    double k = sin(w * half) / sin(half);
    out[0] = k * q[0];
    out[1] = k * q[1];
    out[2] = k * q[2];
    out[3] = cos(w * half);
}

/* Rotation angle of unit q in [0, π]. */
static inline double mq_quat_angle(const double q[4])
{
    double w = fabs(q[3]);
    double s = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    return 2.0 * atan2(s, w);
}

/* ---- affine frames --------------------------------------------------------- */

static inline void mq_affine_from_mat4(mq_affine *out, const float m[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 3; r++)
            out->m[c * 3 + r] = m[c * 4 + r];
}

static inline void mq_affine_point(double out[3], const mq_affine *a, const double p[3])
{
    double x = a->m[0] * p[0] + a->m[3] * p[1] + a->m[6] * p[2] + a->m[9];
    double y = a->m[1] * p[0] + a->m[4] * p[1] + a->m[7] * p[2] + a->m[10];
    double z = a->m[2] * p[0] + a->m[5] * p[1] + a->m[8] * p[2] + a->m[11];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

static inline void mq_affine_dir(double out[3], const mq_affine *a, const double d[3])
{
    double x = a->m[0] * d[0] + a->m[3] * d[1] + a->m[6] * d[2];
    double y = a->m[1] * d[0] + a->m[4] * d[1] + a->m[7] * d[2];
    double z = a->m[2] * d[0] + a->m[5] * d[1] + a->m[8] * d[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

static inline void mq_affine_identity(mq_affine *out)
{
    for (int i = 0; i < 12; i++)
        out->m[i] = (i == 0 || i == 4 || i == 8) ? 1.0 : 0.0;
}

/* out = inverse of a; false (out identity) when the 3x3 part is singular or not finite.  out must not alias a. */
static inline bool mq_affine_invert(mq_affine *out, const mq_affine *a)
{
    const double *m = a->m;
    double c00 = m[4] * m[8] - m[7] * m[5];
    double c01 = m[7] * m[2] - m[1] * m[8];
    double c02 = m[1] * m[5] - m[4] * m[2];
    double det = m[0] * c00 + m[3] * c01 + m[6] * c02;
    if (!(fabs(det) > 1e-30) || !isfinite(det)) {
        mq_affine_identity(out);
        return false;
    }
    double id = 1.0 / det;
    double *o = out->m;
    o[0] = c00 * id;
    o[1] = c01 * id;
    o[2] = c02 * id;
    o[3] = (m[6] * m[5] - m[3] * m[8]) * id;
    o[4] = (m[0] * m[8] - m[6] * m[2]) * id;
    o[5] = (m[3] * m[2] - m[0] * m[5]) * id;
    o[6] = (m[3] * m[7] - m[6] * m[4]) * id;
    o[7] = (m[6] * m[1] - m[0] * m[7]) * id;
    o[8] = (m[0] * m[4] - m[3] * m[1]) * id;
    double t[3] = {m[9], m[10], m[11]}, it[3];
    mq_affine_dir(it, out, t);
    o[9] = -it[0];
    o[10] = -it[1];
    o[11] = -it[2];
    return true;
}

/* out = a·b (b applied first).  out must not alias a or b. */
static inline void mq_affine_mul(mq_affine *out, const mq_affine *a, const mq_affine *b)
{
    for (int c = 0; c < 3; c++)
        mq_affine_dir(out->m + 3 * c, a, b->m + 3 * c);
    mq_affine_point(out->m + 9, a, b->m + 9);
}

/* The 3x3 of unit q as an affine frame with zero translation. */
static inline void mq_affine_from_quat(mq_affine *out, const double q[4])
{
    static const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
    mq_quat_rotate(out->m + 0, q, ex);
    mq_quat_rotate(out->m + 3, q, ey);
    mq_quat_rotate(out->m + 6, q, ez);
    out->m[9] = out->m[10] = out->m[11] = 0.0;
}

/*
 * The rotation of an affine frame with scale divided out (columns
 * normalised; a negative determinant folds into the z column), as a unit
 * quaternion with w ≥ 0.  Shepperd's method on the normalised 3x3.
 */
static inline void mq_affine_rotation(double q[4], const mq_affine *a)
{
    double c[9];
    for (int col = 0; col < 3; col++) {
        const double *v = a->m + 3 * col;
        double n = sqrt(mq_len2(v));
        for (int r = 0; r < 3; r++)
            c[col * 3 + r] = n > 0.0 ? v[r] / n : 0.0;
    }
    double cr[3];
    mq_cross(cr, c + 0, c + 3);
    if (mq_dot(cr, c + 6) < 0.0)
        for (int r = 0; r < 3; r++)
            c[6 + r] = -c[6 + r];
    /* element (row r, col k) is c[k*3 + r] */
    double m00 = c[0], m11 = c[4], m22 = c[8];
    double tr = m00 + m11 + m22;
    if (tr > 0.0) {
        double s = sqrt(tr + 1.0) * 2.0;
        q[3] = 0.25 * s;
        q[0] = (c[5] - c[7]) / s;
        q[1] = (c[6] - c[2]) / s;
        q[2] = (c[1] - c[3]) / s;
    } else if (m00 > m11 && m00 > m22) {
        double s = sqrt(1.0 + m00 - m11 - m22) * 2.0;
        q[3] = (c[5] - c[7]) / s;
        q[0] = 0.25 * s;
        q[1] = (c[3] + c[1]) / s;
        q[2] = (c[6] + c[2]) / s;
    } else if (m11 > m22) {
        double s = sqrt(1.0 + m11 - m00 - m22) * 2.0;
        q[3] = (c[6] - c[2]) / s;
        q[0] = (c[3] + c[1]) / s;
        q[1] = 0.25 * s;
        q[2] = (c[7] + c[5]) / s;
    } else {
        double s = sqrt(1.0 + m22 - m00 - m11) * 2.0;
        q[3] = (c[1] - c[3]) / s;
        q[0] = (c[6] + c[2]) / s;
        q[1] = (c[7] + c[5]) / s;
        q[2] = 0.25 * s;
    }
    if (q[3] < 0.0)
        for (int i = 0; i < 4; i++)
            q[i] = -q[i];
    mq_quat_normalize(q, q);
}

#endif /* MN_ANIM_MOTION_INTERNAL_H */
