/*
 * Dual-quaternion skinning (marionette/skin.h says what it computes and
 * when it refuses): a palette turned into each joint's dual quaternion and
 * uniform scale, the scalar reference every SIMD kernel is measured against,
 * and the dispatch that picks a kernel (core/simd.h, the convention; the
 * kernels are dual_quat_sse2.c and dual_quat_avx2.c around
 * dual_quat_kernel.h).
 *
 * The arithmetic, which every kernel follows in this order (SSE2 gives the
 * same bits; AVX2 fuses the multiply-adds written as such below, adds a
 * blend's products as two chains and normalises n' and t' by |n| and |t.xyz|,
 * the same up to rounding as a rotation keeps lengths, so it agrees within
 * float rounding):
 *
 *   q0     = real part of dq[j_0]
 *   r, d   = Σ_k ±w_k · dq[j_k]   (real and dual parts; −w_k where the dot
 *                                  product of q0 with dq[j_k]'s real part,
 *                                  (x·x' + y·y') + (z·z' + w·w'), has its
 *                                  sign bit set: the antipodality fix; every
 *                                  kernel computes it in this order, so all
 *                                  choose the same signs)
 *   s      = Σ_k w_k · scale[j_k], or the call's one scale when all agree
 *   N      = |r|², k = 2 / N      (0 when N is not positive)
 *   rot(v) = v + k · (r.xyz × (r.xyz × v + r.w · v))
 *   t      = k · ((r.w · d.xyz − d.w · r.xyz) + r.xyz × d.xyz)
 *   p'     = rot(s · p) + t,  n' = normalize(rot(n)),  t'.xyz = normalize(rot(t.xyz))
 *
 * rot and t are the unit dual quaternion's rotation and translation written
 * for an unnormalised one (dividing by N once instead of normalising r and
 * d by a square root each); the part of d along r, which normalising a dual
 * quaternion removes, drops out of t's vector part by itself.
 */
#include "deform/internal.h"

#include "core/core.h"
#include "core/simd.h"

#include <math.h>
#include <string.h>

#define DQ MN_SKIN_DQ_FLOATS

/* ---- palette to dual quaternions ----------------------------------------------- */

/* The dot product of two real parts in the one order every kernel uses. */
static inline float dot4(const float *a, const float *b)
{
    return (a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3]);
}

/* The rotation matrix m (m[row][col]) as a unit quaternion x y z w, by Shepperd's choice of pivot. */
static void matrix_quat(double m[3][3], double q[4])
{
    double trace = m[0][0] + m[1][1] + m[2][2];
    if (trace > 0) {
        double s = 2 * sqrt(trace + 1);
        q[3] = 0.25 * s;
        q[0] = (m[2][1] - m[1][2]) / s;
        q[1] = (m[0][2] - m[2][0]) / s;
        q[2] = (m[1][0] - m[0][1]) / s;
    } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
        double s = 2 * sqrt(1 + m[0][0] - m[1][1] - m[2][2]);
        q[3] = (m[2][1] - m[1][2]) / s;
        q[0] = 0.25 * s;
        q[1] = (m[0][1] + m[1][0]) / s;
        q[2] = (m[0][2] + m[2][0]) / s;
    } else if (m[1][1] > m[2][2]) {
        double s = 2 * sqrt(1 + m[1][1] - m[0][0] - m[2][2]);
        q[3] = (m[0][2] - m[2][0]) / s;
        q[0] = (m[0][1] + m[1][0]) / s;
        q[1] = 0.25 * s;
        q[2] = (m[1][2] + m[2][1]) / s;
    } else {
        double s = 2 * sqrt(1 + m[2][2] - m[0][0] - m[1][1]);
        q[3] = (m[1][0] - m[0][1]) / s;
        q[0] = (m[0][2] + m[2][0]) / s;
        q[1] = (m[1][2] + m[2][1]) / s;
        q[2] = 0.25 * s;
    }
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double sign = q[3] < 0 ? -1.0 : 1.0; /* w >= 0: one of the two signs, always the same */
    for (int i = 0; i < 4; i++)
        q[i] *= sign / len;
}

/*
 * A scale this close to 1 (2^-20 relative, a few float roundings of a rigid
 * palette) is taken as 1, so that a rigid rig's joints share one scale and
 * skinning skips the blend of scales.
 */
#define SCALE_ONE_SLACK (1.0 / 1048576.0)

/*
 * Split joint j's matrix m into uniform scale × rotation and translation:
 * out's 12 floats.  Refuses (MN_NOT_RIGID) what a dual quaternion cannot
 * hold, saying which joint and why.
 */
static mn_status joint_dual_quat(const float *m, uint32_t j, float out[DQ], mn_error *err)
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 3; r++)
            if (!isfinite(m[c * 4 + r]))
                return mni_fail(err, MN_NOT_FINITE, "palette[%u] (joint %u): element %d is not finite",
                                j, j, c * 4 + r);
    double col[3][3], len[3];
    for (int c = 0; c < 3; c++) {
        for (int r = 0; r < 3; r++)
            col[c][r] = m[c * 4 + r];
        len[c] = sqrt(col[c][0] * col[c][0] + col[c][1] * col[c][1] + col[c][2] * col[c][2]);
    }
    double s = (len[0] + len[1] + len[2]) / 3;
    const double tol = MN_SKIN_DQ_SCALE_TOLERANCE;
    const char *why = "a dual quaternion holds a rotation and a translation; scale is applied "
                      "before it only when uniform: skin this rig with linear blending";
    if (!(s > 1e-30))
        return mni_fail(err, MN_NOT_RIGID, "joint %u: its matrix has zero scale: %s", j, why);
    for (int c = 0; c < 3; c++)
        if (fabs(len[c] - s) > tol * s)
            return mni_fail(err, MN_NOT_RIGID,
                            "joint %u: non-uniform scale (its axes scale by %.6g %.6g %.6g): %s",
                            j, len[0], len[1], len[2], why);
    for (int a = 0; a < 3; a++) {
        int b = (a + 1) % 3;
        double cosine = (col[a][0] * col[b][0] + col[a][1] * col[b][1] + col[a][2] * col[b][2]) /
                        (len[a] * len[b]);
        if (fabs(cosine) > tol)
            return mni_fail(err, MN_NOT_RIGID,
                            "joint %u: shear (its axes %d and %d are %.4g degrees apart, not 90): %s",
                            j, a, b, acos(cosine) * 57.29577951308232, why);
    }
    double det = col[0][0] * (col[1][1] * col[2][2] - col[1][2] * col[2][1]) -
                 col[1][0] * (col[0][1] * col[2][2] - col[0][2] * col[2][1]) +
                 col[2][0] * (col[0][1] * col[1][2] - col[0][2] * col[1][1]);
    if (det < 0)
        return mni_fail(err, MN_NOT_RIGID,
                        "joint %u: a mirror (negative scale: its determinant is %.6g): %s", j, det,
                        why);

    double rot[3][3], q[4];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            rot[r][c] = col[c][r] / s;
    matrix_quat(rot, q);
    /* dual part: ½ · (t, 0) · q */
    double t[3] = {m[12], m[13], m[14]};
    double d[4] = {0.5 * (q[3] * t[0] + (t[1] * q[2] - t[2] * q[1])),
                   0.5 * (q[3] * t[1] + (t[2] * q[0] - t[0] * q[2])),
                   0.5 * (q[3] * t[2] + (t[0] * q[1] - t[1] * q[0])),
                   -0.5 * (t[0] * q[0] + t[1] * q[1] + t[2] * q[2])};
    for (int i = 0; i < 4; i++) {
        out[i] = (float)q[i];
        out[4 + i] = (float)d[i];
    }
    out[8] = fabs(s - 1) <= SCALE_ONE_SLACK ? 1.0f : (float)s;
    for (unsigned i = 9; i < DQ; i++)
        out[i] = 0.0f;
    return MN_OK;
}

mn_status mn_skin_dual_quats(const float *palette, uint32_t count, float *out, mn_error *err)
{
    if (count > 0 && (!palette || !out))
        return mni_fail(err, MN_INVALID_ARGUMENT, "dual quaternions: NULL %s",
                        palette ? "out" : "palette");
    for (uint32_t j = 0; j < count; j++) {
        mn_status st = joint_dual_quat(palette + 16 * (size_t)j, j, out + DQ * (size_t)j, err);
        if (st != MN_OK)
            return st;
        /*
         * Each joint in joint 0's hemisphere (joint 0 has w >= 0): a rig's joints
         * then usually share one, whatever rotation the whole rig has, and the
         * kernels skip the hemisphere tests (mn_dq_call.no_flips).
         */
        float *q = out + DQ * (size_t)j;
        if (j > 0 && signbit(dot4(out, q)))
            for (int i = 0; i < 8; i++)
                q[i] = -q[i];
    }
    mni_error_clear(err);
    return MN_OK;
}

/* ---- the scalar reference --------------------------------------------------------- */

/* v + k · (r × (r × v + r.w · v)): v rotated by the unnormalised quaternion r (k = 2 / |r|²). */
static inline void rotate_scalar(const float r[4], float k, const float v[3], float out[3])
{
    float u0 = (r[1] * v[2] - r[2] * v[1]) + r[3] * v[0];
    float u1 = (r[2] * v[0] - r[0] * v[2]) + r[3] * v[1];
    float u2 = (r[0] * v[1] - r[1] * v[0]) + r[3] * v[2];
    float c0 = r[1] * u2 - r[2] * u1;
    float c1 = r[2] * u0 - r[0] * u2;
    float c2 = r[0] * u1 - r[1] * u0;
    out[0] = v[0] + k * c0;
    out[1] = v[1] + k * c1;
    out[2] = v[2] + k * c2;
}

/* v · (1 / |v|), zero when |v|² is not positive (as skinning normalises). */
static inline void normalize_scalar(float v[3])
{
    float len2 = (v[0] * v[0] + v[1] * v[1]) + v[2] * v[2];
    float inv = len2 > 0.0f ? 1.0f / sqrtf(len2) : 0.0f;
    v[0] *= inv;
    v[1] *= inv;
    v[2] *= inv;
}

static inline void dq_vertex_scalar(const mn_dq_call *call, size_t v, size_t ic)
{
    const mn_skin_streams *s = &call->s;
    const uint16_t *j = s->joints + v * ic;
    const float *w = s->weights + v * ic;
    const float *q = s->palette + DQ * (size_t)j[0];
    const float q0[4] = {q[0], q[1], q[2], q[3]};
    float r[4], d[4], sc = w[0] * q[8];
    for (int i = 0; i < 4; i++) {
        r[i] = w[0] * q[i];
        d[i] = w[0] * q[4 + i];
    }
    for (size_t k = 1; k < ic; k++) {
        q = s->palette + DQ * (size_t)j[k];
        float sw = !call->no_flips && signbit(dot4(q0, q)) ? -w[k] : w[k];
        for (int i = 0; i < 4; i++) {
            r[i] = r[i] + sw * q[i];
            d[i] = d[i] + sw * q[4 + i];
        }
        sc = sc + w[k] * q[8];
    }
    if (!call->blend_scale)
        sc = call->scale;

    float n2 = ((r[0] * r[0] + r[1] * r[1]) + r[2] * r[2]) + r[3] * r[3];
    float k2 = n2 > 0.0f ? 2.0f / n2 : 0.0f;
    float t[3] = {k2 * ((r[3] * d[0] - d[3] * r[0]) + (r[1] * d[2] - r[2] * d[1])),
                  k2 * ((r[3] * d[1] - d[3] * r[1]) + (r[2] * d[0] - r[0] * d[2])),
                  k2 * ((r[3] * d[2] - d[3] * r[2]) + (r[0] * d[1] - r[1] * d[0]))};

    const float *p = s->positions + v * s->position_stride;
    float ps[3] = {sc * p[0], sc * p[1], sc * p[2]}, out[3];
    rotate_scalar(r, k2, ps, out);
    float *op = s->out_positions + v * s->out_position_stride;
    for (int i = 0; i < 3; i++)
        op[i] = out[i] + t[i];

    if (s->normals) {
        const float *n = s->normals + v * s->normal_stride;
        float nn[3] = {n[0], n[1], n[2]};
        rotate_scalar(r, k2, nn, out);
        normalize_scalar(out);
        memcpy(s->out_normals + v * s->out_normal_stride, out, sizeof out);
    }
    if (s->tangents) {
        const float *tg = s->tangents + v * s->tangent_stride;
        float tt[3] = {tg[0], tg[1], tg[2]}, hand = tg[3];
        rotate_scalar(r, k2, tt, out);
        normalize_scalar(out);
        float *ot = s->out_tangents + v * s->out_tangent_stride;
        memcpy(ot, out, sizeof out);
        ot[3] = hand;
    }
}

void mni_dq_skin_scalar(const mn_dq_call *c)
{
    size_t ic = c->s.influences;
    /* Constant influence counts let the compiler unroll the blend. */
    if (ic == 4)
        for (size_t v = 0; v < c->s.count; v++)
            dq_vertex_scalar(c, v, 4);
    else
        for (size_t v = 0; v < c->s.count; v++)
            dq_vertex_scalar(c, v, ic);
}

/* ---- the entry points ---------------------------------------------------------------- */

/*
 * Whether no pair of the n joints has a dot product with its sign bit set,
 * checked only when the n² / 2 products cost little beside `work` (the
 * call's influences); false otherwise.
 */
static bool no_flips(const float *dqs, uint32_t n, size_t work)
{
    if ((size_t)n * n > 2 * work)
        return false;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = a + 1; b < n; b++)
            if (signbit(dot4(dqs + DQ * (size_t)a, dqs + DQ * (size_t)b)))
                return false;
    return true;
}

mn_status mni_dq_call_make(const mn_skin_job *job, const float *dual_quats, mn_error *err,
                           mn_dq_call *c)
{
    memset(c, 0, sizeof *c);
    if (!job)
        return mni_fail(err, MN_INVALID_ARGUMENT, "the skinning job is NULL");
    if (!dual_quats && job->vertex_count > 0)
        return mni_fail(err, MN_INVALID_ARGUMENT, "dual_quats is NULL");
    mn_skin_job j = *job;
    j.palette = dual_quats;
    mn_status st = mni_skin_check_job(&j, err, &c->s);
    if (st != MN_OK)
        return st;
    /* One scale for the whole call when every joint has it (a rigid rig: 1). */
    c->blend_scale = false;
    c->scale = job->palette_count ? dual_quats[8] : 1.0f;
    for (uint32_t k = 1; k < job->palette_count && !c->blend_scale; k++)
        c->blend_scale = dual_quats[DQ * (size_t)k + 8] != c->scale;
    c->no_flips = no_flips(dual_quats, job->palette_count, c->s.count * c->s.influences);
    /* prefetch in a large call, as linear blending does (skin.c's plan_streaming) */
    size_t bytes = c->s.count * (12u + (c->s.normals ? 12u : 0u) + (c->s.tangents ? 16u : 0u));
    c->s.prefetch = bytes + c->s.count * c->s.influences * 6u >= MN_SKIN_STREAM_MIN_BYTES;
    return MN_OK;
}

/* A dual-quaternion kernel (deform/internal.h). */
typedef void dq_fn(const mn_dq_call *c);

/*
 * The one dispatch of dual-quaternion skinning: the kernel of a level
 * mni_simd_resolve gave; the SIMD kernels read influences four at a time, so
 * other counts run the reference.
 */
static dq_fn *dq_kernel(mn_simd_level level, size_t influences)
{
    if (influences % 4 != 0)
        return mni_dq_skin_scalar;
    switch (level) {
#if MN_WITH_AVX2
    case MN_SIMD_AVX2_FMA:
        return mni_dq_skin_avx2;
#endif
#if MN_DQ_WITH_SSE2
    case MN_SIMD_SSE2:
        return mni_dq_skin_sse2;
#endif
    default:
        return mni_dq_skin_scalar;
    }
}

void mni_dq_skin(const mn_dq_call *c, mn_simd_level level)
{
    if (c->s.count > 0)
        dq_kernel(mni_simd_resolve(level), c->s.influences)(c);
}

mn_status mn_skin_dq_run_with(const mn_skin_job *job, const float *dual_quats,
                              mn_simd_level level)
{
    mn_dq_call c;
    mn_status st = mni_dq_call_make(job, dual_quats, NULL, &c);
    if (st == MN_OK)
        mni_dq_skin(&c, level);
    return st;
}

mn_status mn_skin_dq_run(const mn_skin_job *job, const float *dual_quats)
{
    return mn_skin_dq_run_with(job, dual_quats, MN_SIMD_BEST);
}
