/*
 * Vectors, quaternions and column-major 4x4 matrices (see marionette/math.h
 * for the conventions), TRS compose/decompose, Euler conversions, slerp, and
 * the allocation-free local-to-world pass over a node hierarchy.
 *
 * Rotation matrices inside this file are `rot3`, indexed r.m[row][col], so the
 * formulas read like the textbook ones; they are converted to and from the
 * column-major float[16] at the edges.
 */
#include "core/core.h"
#include "core/simd.h"

#include <marionette/math.h>

#include <math.h>
#if MN_WITH_SSE2
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <string.h>

typedef struct rot3 {
    float m[3][3]; /* m[row][col] */
} rot3;

/* Element (row r, col c) of a column-major 4x4. */
#define M4(m, r, c) ((m)[(c) * 4 + (r)])

/* |sin pitch| this close to 1 (cos pitch below this) is treated as gimbal lock. */
#define GIMBAL_COS_EPS 1e-6f

/* Below this |det| an inverse would be all rounding noise. */
#define SINGULAR_DET 1e-30

/* ---- small vector helpers ------------------------------------------------ */

static float vec3_dot(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static float vec3_len(const float a[3])
{
    return sqrtf(vec3_dot(a, a));
}

static void vec3_cross(float out[3], const float a[3], const float b[3])
{
    float x = a[1] * b[2] - a[2] * b[1];
    float y = a[2] * b[0] - a[0] * b[2];
    float z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

/* ---- 4x4 matrices ---------------------------------------------------------- */

void mn_mat4_identity(float out[16])
{
    memset(out, 0, 16 * sizeof(float));
    out[0] = out[5] = out[10] = out[15] = 1.0f;
}

/*
 * Column c of a·b is Σₖ a's column k × b(k, c), summed k = 0..3 left to
 * right.  SSE2 takes a whole column a step with the scalar's products and
 * additions in its order (no fused multiply-add), so both give the same
 * bits; a chain of worlds for IK is a few of these a joint.
 */
#if MN_WITH_SSE2
void mn_mat4_mul(float out[16], const float a[16], const float b[16])
{
    __m128 a0 = _mm_loadu_ps(a), a1 = _mm_loadu_ps(a + 4), a2 = _mm_loadu_ps(a + 8),
           a3 = _mm_loadu_ps(a + 12), col[4];
    for (int c = 0; c < 4; c++) {
        const float *k = b + 4 * c;
        __m128 s = _mm_add_ps(_mm_mul_ps(a0, _mm_set1_ps(k[0])), _mm_mul_ps(a1, _mm_set1_ps(k[1])));
        s = _mm_add_ps(s, _mm_mul_ps(a2, _mm_set1_ps(k[2])));
        col[c] = _mm_add_ps(s, _mm_mul_ps(a3, _mm_set1_ps(k[3])));
    }
    for (int c = 0; c < 4; c++)
        _mm_storeu_ps(out + 4 * c, col[c]);
}
#else
void mn_mat4_mul(float out[16], const float a[16], const float b[16])
{
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 4; r++) {
            M4(out, r, c) = M4(a, r, 0) * M4(b, 0, c) + M4(a, r, 1) * M4(b, 1, c) +
                            M4(a, r, 2) * M4(b, 2, c) + M4(a, r, 3) * M4(b, 3, c);
        }
    }
}
#endif

/* The 2x2 minor of the upper 3x3 without row r and column c, as a cofactor (sign applied). */
static double cofactor3(const float m[16], int r, int c)
{
    int r0 = (r + 1) % 3, r1 = (r + 2) % 3;
    int c0 = (c + 1) % 3, c1 = (c + 2) % 3;
    /* Cyclic row/column order makes the checkerboard sign come out by itself. */
    return (double)M4(m, r0, c0) * M4(m, r1, c1) - (double)M4(m, r0, c1) * M4(m, r1, c0);
}

bool mn_mat4_invert_affine(float out[16], const float m[16])
{
    double cof[3][3];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            cof[r][c] = cofactor3(m, r, c);
    /* Double precision: inverse bind matrices are built from this, and small scales
       would otherwise lose most of their digits in the determinant. */
    double det = M4(m, 0, 0) * cof[0][0] + M4(m, 0, 1) * cof[0][1] + M4(m, 0, 2) * cof[0][2];
    if (!(fabs(det) >= SINGULAR_DET) || !isfinite(det)) {
        mn_mat4_identity(out);
        return false;
    }
    double inv[3][3];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            inv[r][c] = cof[c][r] / det; /* adjugate = transposed cofactors */
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++)
            M4(out, r, c) = (float)inv[r][c];
        /* The inverse moves the translation back: -R⁻¹·t. */
        M4(out, r, 3) = (float)-(inv[r][0] * M4(m, 0, 3) + inv[r][1] * M4(m, 1, 3) +
                                 inv[r][2] * M4(m, 2, 3));
        M4(out, 3, r) = 0.0f;
    }
    M4(out, 3, 3) = 1.0f;
    return true;
}

bool mn_mat4_invert(float out[16], const float m[16])
{
    double a[16];
    for (int i = 0; i < 16; i++)
        a[i] = m[i];
    /* 2x2 sub-determinants of the top two rows (s) and the bottom two rows (c);
       the Laplace expansion along them gives every cofactor from 12 products. */
    double s0 = a[0] * a[5] - a[4] * a[1], s1 = a[0] * a[9] - a[8] * a[1];
    double s2 = a[0] * a[13] - a[12] * a[1], s3 = a[4] * a[9] - a[8] * a[5];
    double s4 = a[4] * a[13] - a[12] * a[5], s5 = a[8] * a[13] - a[12] * a[9];
    double c5 = a[10] * a[15] - a[14] * a[11], c4 = a[6] * a[15] - a[14] * a[7];
    double c3 = a[6] * a[11] - a[10] * a[7], c2 = a[2] * a[15] - a[14] * a[3];
    double c1 = a[2] * a[11] - a[10] * a[3], c0 = a[2] * a[7] - a[6] * a[3];
    double det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0;
    if (!(fabs(det) >= SINGULAR_DET) || !isfinite(det)) {
        mn_mat4_identity(out);
        return false;
    }
    double k = 1.0 / det;
    out[0] = (float)((a[5] * c5 - a[9] * c4 + a[13] * c3) * k);
    out[4] = (float)((-a[4] * c5 + a[8] * c4 - a[12] * c3) * k);
    out[8] = (float)((a[7] * s5 - a[11] * s4 + a[15] * s3) * k);
    out[12] = (float)((-a[6] * s5 + a[10] * s4 - a[14] * s3) * k);
    out[1] = (float)((-a[1] * c5 + a[9] * c2 - a[13] * c1) * k);
    out[5] = (float)((a[0] * c5 - a[8] * c2 + a[12] * c1) * k);
    out[9] = (float)((-a[3] * s5 + a[11] * s2 - a[15] * s1) * k);
    out[13] = (float)((a[2] * s5 - a[10] * s2 + a[14] * s1) * k);
    out[2] = (float)((a[1] * c4 - a[5] * c2 + a[13] * c0) * k);
    out[6] = (float)((-a[0] * c4 + a[4] * c2 - a[12] * c0) * k);
    out[10] = (float)((a[3] * s4 - a[7] * s2 + a[15] * s0) * k);
    out[14] = (float)((-a[2] * s4 + a[6] * s2 - a[14] * s0) * k);
    out[3] = (float)((-a[1] * c3 + a[5] * c1 - a[9] * c0) * k);
    out[7] = (float)((a[0] * c3 - a[4] * c1 + a[8] * c0) * k);
    out[11] = (float)((-a[3] * s3 + a[7] * s1 - a[11] * s0) * k);
    out[15] = (float)((a[2] * s3 - a[6] * s1 + a[10] * s0) * k);
    return true;
}

/* Rotation matrix of q.  Dividing by |q|² keeps slightly non-unit quaternions
   (common in files) a proper rotation; a zero quaternion gives identity. */
static rot3 quat_to_rot(const float q[4])
{
    float x = q[0], y = q[1], z = q[2], w = q[3];
    float n = x * x + y * y + z * z + w * w;
    float k = n > 0.0f ? 2.0f / n : 0.0f;
    float xx = k * x * x, yy = k * y * y, zz = k * z * z;
    float xy = k * x * y, xz = k * x * z, yz = k * y * z;
    float wx = k * w * x, wy = k * w * y, wz = k * w * z;
    rot3 r = {{
        {1.0f - (yy + zz), xy - wz, xz + wy},
        {xy + wz, 1.0f - (xx + zz), yz - wx},
        {xz - wy, yz + wx, 1.0f - (xx + yy)},
    }};
    return r;
}

/*
 * Unit quaternion (w >= 0) of a rotation matrix, Shepperd's method: solve for
 * the largest of |w|,|x|,|y|,|z| from the diagonal first so the divisor is at
 * least 1/2 and nothing cancels catastrophically near 180°.
 */
static void rot_to_quat(float q[4], const rot3 *r)
{
    const float(*m)[3] = r->m;
    float trace = m[0][0] + m[1][1] + m[2][2];
    float out[4];
    if (trace >= m[0][0] && trace >= m[1][1] && trace >= m[2][2]) {
        float s = 2.0f * sqrtf(fmaxf(1.0f + trace, 0.0f));
        float inv = s > 0.0f ? 1.0f / s : 0.0f;
        out[3] = 0.25f * s;
        out[0] = (m[2][1] - m[1][2]) * inv;
        out[1] = (m[0][2] - m[2][0]) * inv;
        out[2] = (m[1][0] - m[0][1]) * inv;
    } else if (m[0][0] >= m[1][1] && m[0][0] >= m[2][2]) {
        float s = 2.0f * sqrtf(fmaxf(1.0f + m[0][0] - m[1][1] - m[2][2], 0.0f));
        float inv = s > 0.0f ? 1.0f / s : 0.0f;
        out[3] = (m[2][1] - m[1][2]) * inv;
        out[0] = 0.25f * s;
        out[1] = (m[0][1] + m[1][0]) * inv;
        out[2] = (m[0][2] + m[2][0]) * inv;
    } else if (m[1][1] >= m[2][2]) {
        float s = 2.0f * sqrtf(fmaxf(1.0f + m[1][1] - m[0][0] - m[2][2], 0.0f));
        float inv = s > 0.0f ? 1.0f / s : 0.0f;
        out[3] = (m[0][2] - m[2][0]) * inv;
        out[0] = (m[0][1] + m[1][0]) * inv;
        out[1] = 0.25f * s;
        out[2] = (m[1][2] + m[2][1]) * inv;
    } else {
        float s = 2.0f * sqrtf(fmaxf(1.0f + m[2][2] - m[0][0] - m[1][1], 0.0f));
        float inv = s > 0.0f ? 1.0f / s : 0.0f;
        out[3] = (m[1][0] - m[0][1]) * inv;
        out[0] = (m[0][2] + m[2][0]) * inv;
        out[1] = (m[1][2] + m[2][1]) * inv;
        out[2] = 0.25f * s;
    }
    mn_quat_normalize(q, out);
    if (q[3] < 0.0f) /* q and -q are the same rotation; w >= 0 makes the result unique */
        for (int i = 0; i < 4; i++)
            q[i] = -q[i];
}

/*
 * With SSE2 each column is stored whole: a product of matrices (a chain of
 * worlds) reads the columns back as wholes right after, and a column written
 * a float at a time cannot be forwarded to such a load, which then waits for
 * the stores to reach the cache.  The same values either way.
 */
void mn_mat4_compose(float out[16], const float t[3], const float r[4], const float s[3])
{
    rot3 rot = quat_to_rot(r);
#if MN_WITH_SSE2
    for (int c = 0; c < 3; c++)
        _mm_storeu_ps(out + 4 * c, _mm_setr_ps(rot.m[0][c] * s[c], rot.m[1][c] * s[c], rot.m[2][c] * s[c], 0.0f));
    _mm_storeu_ps(out + 12, _mm_setr_ps(t[0], t[1], t[2], 1.0f));
#else
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++)
            M4(out, row, c) = rot.m[row][c] * s[c];
        M4(out, 3, c) = 0.0f;
        M4(out, c, 3) = t[c];
    }
    M4(out, 3, 3) = 1.0f;
#endif
}

void mn_quat_to_mat4(float out[16], const float q[4])
{
    static const float zero[3] = {0.0f, 0.0f, 0.0f};
    static const float one[3] = {1.0f, 1.0f, 1.0f};
    mn_mat4_compose(out, zero, q, one);
}

/*
 * Orthonormal rotation columns of m's upper 3x3 given its (signed) scales.  A
 * zero-scale column has no direction, so it is rebuilt as the cross product of
 * the other two; with two or more of them the rotation is unknowable and
 * identity is the best effort.
 */
static rot3 rotation_of(const float m[16], const float s[3])
{
    float col[3][3];
    int zero = 0, zero_col = 0;
    for (int c = 0; c < 3; c++) {
        for (int r = 0; r < 3; r++)
            col[c][r] = s[c] != 0.0f ? M4(m, r, c) / s[c] : 0.0f;
        if (s[c] == 0.0f) {
            zero++;
            zero_col = c;
        }
    }
    if (zero == 1)
        vec3_cross(col[zero_col], col[(zero_col + 1) % 3], col[(zero_col + 2) % 3]);
    rot3 rot = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    if (zero <= 1)
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++)
                rot.m[r][c] = col[c][r];
    return rot;
}

/* Shared first half of both decompositions: t, s and the rotation matrix. */
static bool decompose_rot(const float m[16], float t[3], rot3 *rot, float s[3])
{
    float col[3][3];
    for (int c = 0; c < 3; c++) {
        for (int r = 0; r < 3; r++)
            col[c][r] = M4(m, r, c);
        t[c] = M4(m, c, 3);
        s[c] = vec3_len(col[c]);
    }
    bool ok = true;
    for (int c = 0; c < 3; c++)
        if (!(s[c] > 0.0f) || !isfinite(s[c]))
            ok = false;
    /* Skew: a pair of basis columns that is not perpendicular, relative to their lengths. */
    for (int a = 0; a < 3; a++) {
        int b = (a + 1) % 3;
        if (fabsf(vec3_dot(col[a], col[b])) > 1e-4f * s[a] * s[b])
            ok = false;
    }
    /* A mirror cannot be a rotation: put it in the z scale, as decomposeTRS does. */
    float c01[3];
    vec3_cross(c01, col[0], col[1]);
    if (vec3_dot(c01, col[2]) < 0.0f)
        s[2] = -s[2];
    *rot = rotation_of(m, s);
    return ok;
}

bool mn_mat4_decompose(const float m[16], float t[3], float r[4], float s[3])
{
    rot3 rot;
    bool ok = decompose_rot(m, t, &rot, s);
    rot_to_quat(r, &rot);
    return ok;
}

void mn_mat4_transform_point(float out[3], const float m[16], const float p[3])
{
    float v[3];
    for (int r = 0; r < 3; r++)
        v[r] = M4(m, r, 0) * p[0] + M4(m, r, 1) * p[1] + M4(m, r, 2) * p[2] + M4(m, r, 3);
    memcpy(out, v, sizeof v);
}

void mn_mat4_transform_dir(float out[3], const float m[16], const float d[3])
{
    float v[3];
    for (int r = 0; r < 3; r++)
        v[r] = M4(m, r, 0) * d[0] + M4(m, r, 1) * d[1] + M4(m, r, 2) * d[2];
    memcpy(out, v, sizeof v);
}

/* ---- quaternions ------------------------------------------------------------ */

void mn_quat_identity(float out[4])
{
    out[0] = out[1] = out[2] = 0.0f;
    out[3] = 1.0f;
}

void mn_quat_mul(float out[4], const float a[4], const float b[4])
{
    float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    float y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    float z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
    out[3] = w;
}

void mn_quat_normalize(float out[4], const float q[4])
{
    float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0.0f) || !isfinite(n)) {
        mn_quat_identity(out);
        return;
    }
    float inv = 1.0f / n;
    for (int i = 0; i < 4; i++)
        out[i] = q[i] * inv;
}

void mn_quat_conjugate(float out[4], const float q[4])
{
    out[0] = -q[0];
    out[1] = -q[1];
    out[2] = -q[2];
    out[3] = q[3];
}

void mn_quat_slerp(float out[4], const float a[4], const float b[4], float t)
{
    float qa[4], qb[4];
    memcpy(qa, a, sizeof qa); /* copies first: out may alias a or b */
    memcpy(qb, b, sizeof qb);
    float d = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
    /* q and -q are one rotation; flipping b to the same hemisphere takes the short arc. */
    if (d < 0.0f) {
        for (int i = 0; i < 4; i++)
            qb[i] = -qb[i];
        d = -d;
    }
    float wa, wb;
    if (d > 0.9995f) {
        wa = 1.0f - t; /* sin θ ≈ 0: the lerp is indistinguishable and stable */
        wb = t;
    } else {
        float theta = acosf(d);
        float inv_sin = 1.0f / sinf(theta);
        wa = sinf((1.0f - t) * theta) * inv_sin;
        wb = sinf(t * theta) * inv_sin;
    }
    float q[4];
    for (int i = 0; i < 4; i++)
        q[i] = wa * qa[i] + wb * qb[i];
    mn_quat_normalize(out, q);
}

void mn_quat_from_axis_angle(float out[4], const float axis[3], float angle)
{
    float len = vec3_len(axis);
    if (!(len > 0.0f) || !isfinite(len)) {
        mn_quat_identity(out);
        return;
    }
    float k = sinf(0.5f * angle) / len;
    out[0] = axis[0] * k;
    out[1] = axis[1] * k;
    out[2] = axis[2] * k;
    out[3] = cosf(0.5f * angle);
}

void mn_quat_to_axis_angle(const float q[4], float axis[3], float *angle)
{
    /* -q is the same rotation; w >= 0 keeps the angle in [0, π]. */
    float sign = q[3] < 0.0f ? -1.0f : 1.0f;
    float v[3] = {q[0] * sign, q[1] * sign, q[2] * sign};
    float len = vec3_len(v);
    if (!(len > 0.0f)) {
        axis[0] = 1.0f;
        axis[1] = axis[2] = 0.0f;
        *angle = 0.0f;
        return;
    }
    /* atan2 keeps full precision for small angles, where acos(w) would not. */
    *angle = 2.0f * atan2f(len, q[3] * sign);
    for (int i = 0; i < 3; i++)
        axis[i] = v[i] / len;
}

/* Rotation of `angle` about coordinate axis `axis` (0 = x, 1 = y, 2 = z). */
static void quat_axis(float out[4], int axis, float angle)
{
    out[0] = out[1] = out[2] = 0.0f;
    out[axis] = sinf(0.5f * angle);
    out[3] = cosf(0.5f * angle);
}

/* out = rotation about axes i, j, k in that (matrix-product) order: R = Ri(a)·Rj(b)·Rk(c). */
static void quat_from_three(float out[4], const int axes[3], const float angles[3])
{
    float qi[4], qj[4], qk[4];
    quat_axis(qi, axes[0], angles[0]);
    quat_axis(qj, axes[1], angles[1]);
    quat_axis(qk, axes[2], angles[2]);
    mn_quat_mul(out, qi, qj);
    mn_quat_mul(out, out, qk);
}

void mn_quat_from_euler_xyz(float out[4], const float e[3])
{
    static const int xyz[3] = {0, 1, 2};
    quat_from_three(out, xyz, e);
}

void mn_quat_from_engine_euler(float out[4], const float e[3])
{
    static const int yxz[3] = {1, 0, 2};
    quat_from_three(out, yxz, e);
}

/*
 * R = Rx(a)·Ry(b)·Rz(c) has
 *   row 0 = [ cb·cc,            -cb·sc,            sb    ]
 *   row 1 = [ ca·sc + sa·sb·cc,  ca·cc - sa·sb·sc, -sa·cb ]
 *   row 2 = [ sa·sc - ca·sb·cc,  sa·cc + ca·sb·sc,  ca·cb ]
 * b comes from m02 and cb = |(m12, m22)|; a from row/col 2.  c is then read
 * from Rx(-a)·R = Ry(b)·Rz(c), whose row 1 is [sc, cc, 0]: well conditioned
 * even near the gimbal, and consistent with whatever a was chosen.
 * At cb ≈ 0 only a + c (sb = 1) or a - c (sb = -1) is defined: c folds into a.
 */
static void rot_to_euler_xyz(float e[3], const rot3 *r)
{
    const float(*m)[3] = r->m;
    float sb = fminf(fmaxf(m[0][2], -1.0f), 1.0f);
    float cb = hypotf(m[1][2], m[2][2]);
    e[1] = atan2f(sb, cb);
    if (cb < GIMBAL_COS_EPS) {
        float sign = sb < 0.0f ? -1.0f : 1.0f;
        e[0] = atan2f(sign * m[1][0], m[1][1]);
        e[2] = 0.0f;
        return;
    }
    e[0] = atan2f(-m[1][2], m[2][2]);
    float sa = sinf(e[0]), ca = cosf(e[0]);
    e[2] = atan2f(ca * m[1][0] + sa * m[2][0], ca * m[1][1] + sa * m[2][1]);
}

/*
 * R = Ry(y)·Rx(p)·Rz(r) has
 *   row 0 = [ cy·cr + sy·sp·sr,  -cy·sr + sy·sp·cr,  sy·cp ]
 *   row 1 = [ cp·sr,              cp·cr,             -sp    ]
 *   row 2 = [ -sy·cr + cy·sp·sr,  sy·sr + cy·sp·cr,   cy·cp ]
 * p comes from m12 and cp = |(m02, m22)|; y from column 2.  r is then read
 * from Ry(-y)·R = Rx(p)·Rz(r), whose row 0 is [cr, -sr, 0].
 * At cp ≈ 0 only y - r (sp = 1) or y + r (sp = -1) is defined: r folds into y.
 */
static void rot_to_engine_euler(float e[3], const rot3 *r)
{
    const float(*m)[3] = r->m;
    float sp = fminf(fmaxf(-m[1][2], -1.0f), 1.0f);
    float cp = hypotf(m[0][2], m[2][2]);
    e[1] = atan2f(sp, cp);
    if (cp < GIMBAL_COS_EPS) {
        float sign = sp < 0.0f ? -1.0f : 1.0f;
        e[0] = atan2f(sign * m[0][1], m[0][0]);
        e[2] = 0.0f;
        return;
    }
    e[0] = atan2f(m[0][2], m[2][2]);
    float sy = sinf(e[0]), cy = cosf(e[0]);
    e[2] = atan2f(sy * m[2][1] - cy * m[0][1], cy * m[0][0] - sy * m[2][0]);
}

void mn_quat_to_euler_xyz(float e[3], const float q[4])
{
    rot3 r = quat_to_rot(q);
    rot_to_euler_xyz(e, &r);
}

void mn_quat_to_engine_euler(float e[3], const float q[4])
{
    rot3 r = quat_to_rot(q);
    rot_to_engine_euler(e, &r);
}

bool mn_mat4_decompose_engine(const float m[16], float t[3], float e[3], float s[3])
{
    rot3 rot;
    bool ok = decompose_rot(m, t, &rot, s);
    rot_to_engine_euler(e, &rot);
    return ok;
}

void mn_quat_rotate(float out[3], const float q[4], const float v[3])
{
    /* v' = v + 2w(u×v) + 2u×(u×v), u = q.xyz: two cross products, no matrix. */
    const float u[3] = {q[0], q[1], q[2]};
    float uv[3], uuv[3];
    vec3_cross(uv, u, v);
    vec3_cross(uuv, u, uv);
    float r[3];
    for (int i = 0; i < 3; i++)
        r[i] = v[i] + 2.0f * (q[3] * uv[i] + uuv[i]);
    memcpy(out, r, sizeof r);
}

/* ---- hierarchies -------------------------------------------------------------- */

/*
 * Every parent in [-1, count).  Also reports whether every parent precedes its
 * child: such an order cannot hold a cycle, and composes in one forward pass.
 */
static mn_status check_parent_range(const int32_t *parents, size_t count, bool *parent_first,
                                    mn_error *err)
{
    *parent_first = true;
    for (size_t i = 0; i < count; i++) {
        int32_t p = parents[i];
        if (p < -1 || (p >= 0 && (size_t)p >= count)) {
            char path[32];
            snprintf(path, sizeof path, "nodes[%zu]", i);
            return mni_error_set(err, MN_INDEX_RANGE, path, -1,
                                 "node %zu: parent %d out of range (%zu nodes)", i, (int)p, count);
        }
        if (p >= 0 && (size_t)p >= i)
            *parent_first = false;
    }
    return MN_OK;
}

/*
 * Nodes are checked in index order, so a walk up from node i may stop at the
 * first ancestor with a smaller index: that one already reached a root.  Until
 * then the walk only visits the count - i - 1 nodes above i, so a longer walk
 * has repeated a node and is inside a cycle — which bounds the loop.
 */
static mn_status check_cycles(const int32_t *parents, size_t count, mn_error *err)
{
    for (size_t i = 0; i < count; i++) {
        size_t steps = 0;
        int32_t p = parents[i];
        while (p >= 0 && (size_t)p >= i) {
            if ((size_t)p == i || ++steps > count - i) {
                char path[32];
                snprintf(path, sizeof path, "nodes[%d]", (int)p);
                return mni_error_set(err, MN_HIERARCHY, path, -1,
                                     "node %d is in a parent cycle (its parent is node %d)", (int)p,
                                     (int)parents[p]);
            }
            p = parents[p];
        }
    }
    return MN_OK;
}

/*
 * worlds[i] = worlds[a] · (locals of the ancestors between a and i) · locals[i],
 * where a is the first ancestor with a smaller index — already final because
 * nodes are done in index order.  Parent-first input never walks: one forward
 * pass.  Other orders cost O(depth) per node and still no scratch memory.
 */
static void compose_node(const int32_t *parents, size_t i, const float *locals, float *worlds)
{
    const float *chain = locals + 16 * i;
    float acc[16], tmp[16];
    int32_t p = parents[i];
    if (p >= 0 && (size_t)p > i) {
        memcpy(acc, chain, sizeof acc);
        while (p >= 0 && (size_t)p > i) {
            mn_mat4_mul(tmp, locals + 16 * (size_t)p, acc);
            memcpy(acc, tmp, sizeof acc);
            p = parents[p];
        }
        chain = acc;
    }
    if (p < 0)
        memcpy(worlds + 16 * i, chain, 16 * sizeof(float));
    else
        mn_mat4_mul(worlds + 16 * i, worlds + 16 * (size_t)p, chain);
}

mn_status mn_compose_worlds(const int32_t *parents, size_t count, const float *locals,
                            float *worlds, mn_error *err)
{
    mni_error_clear(err);
    if (count == 0)
        return MN_OK;
    if (!parents || !locals || !worlds)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "compose_worlds: NULL parents, locals or worlds for %zu nodes", count);
    bool parent_first;
    mn_status st = check_parent_range(parents, count, &parent_first, err);
    if (st == MN_OK && !parent_first)
        st = check_cycles(parents, count, err);
    if (st != MN_OK)
        return st;
    for (size_t i = 0; i < count; i++)
        compose_node(parents, i, locals, worlds);
    return MN_OK;
}

/* core/core.h: the affine inverse of a row-major matrix, in double. */
bool mni_affine_invert_rows(double out[16], const float m[16])
{
    double a = m[0], b = m[1], c = m[2], d = m[4], e = m[5], f = m[6], g = m[8], h = m[9],
           i = m[10];
    double c00 = e * i - f * h, c01 = c * h - b * i, c02 = b * f - c * e;
    double det = a * c00 + d * c01 + g * c02;
    if (!(fabs(det) > 0.0) || !isfinite(det))
        return false;
    double k = 1.0 / det;
    double r[9] = {c00 * k, c01 * k, c02 * k,
                   (f * g - d * i) * k, (a * i - c * g) * k, (c * d - a * f) * k,
                   (d * h - e * g) * k, (b * g - a * h) * k, (a * e - b * d) * k};
    for (int row = 0; row < 3; row++) {
        out[4 * row] = r[3 * row];
        out[4 * row + 1] = r[3 * row + 1];
        out[4 * row + 2] = r[3 * row + 2];
        out[4 * row + 3] = -(r[3 * row] * m[3] + r[3 * row + 1] * m[7] + r[3 * row + 2] * m[11]);
    }
    out[12] = out[13] = out[14] = 0.0;
    out[15] = 1.0;
    return true;
}
