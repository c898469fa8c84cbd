/*
 * Pose blending, the additive layer and the checked joint write (the
 * formulas: marionette/blend.h).
 *
 * Each joint is read in full into locals before anything of it is written,
 * which is what makes `out` safe to alias either input.  A weight of exactly
 * 0 or 1 copies one side bit-exactly rather than computing a + (b − a)·w,
 * whose rounding would otherwise leak into poses that should be untouched.
 *
 * The code here is the scalar reference and the dispatch (core/simd.h, the
 * convention).  On x86-64 mni_blend_poses and mni_add_poses hand whole
 * groups of joints to the SIMD kernels of blend_kernel.h: eight at a time to
 * blend_avx2.c at MN_SIMD_AVX2_FMA, then four at a time to blend_sse2.c
 * (SSE2, the x86-64 baseline); the reference runs on the tail and on any
 * group with a wide arc.  MN_NO_SIMD builds the reference alone.
 */
#include <marionette/blend.h>
#include <marionette/math.h>

#include "anim/blend_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* The short-arc threshold below which slerp's sin() denominator is degenerate. */
#define NEARLY_PARALLEL MN_NEARLY_PARALLEL

static void quat_normalize4(float q[4])
{
    float n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (n2 > 0.0f && n2 <= FLT_MAX) {
        float inv = 1.0f / sqrtf(n2);
        q[0] *= inv;
        q[1] *= inv;
        q[2] *= inv;
        q[3] *= inv;
    } else {
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
    }
}

/* 1/(i(2i + 1)) for the series below. */
const float mni_slerp_series_k[40] = {
    1.0f / 3,    1.0f / 10,   1.0f / 21,   1.0f / 36,   1.0f / 55,   1.0f / 78,   1.0f / 105,
    1.0f / 136,  1.0f / 171,  1.0f / 210,  1.0f / 253,  1.0f / 300,  1.0f / 351,  1.0f / 406,
    1.0f / 465,  1.0f / 528,  1.0f / 595,  1.0f / 666,  1.0f / 741,  1.0f / 820,  1.0f / 903,
    1.0f / 990,  1.0f / 1081, 1.0f / 1176, 1.0f / 1275, 1.0f / 1378, 1.0f / 1485, 1.0f / 1596,
    1.0f / 1711, 1.0f / 1830, 1.0f / 1953, 1.0f / 2080, 1.0f / 2211, 1.0f / 2346, 1.0f / 2485,
    1.0f / 2628, 1.0f / 2775, 1.0f / 2926, 1.0f / 3081, 1.0f / 3240};

/*
 * The slerp weights sin((1 − t)θ)/sin θ and sin(tθ)/sin θ for cos θ = d in
 * [0, 0.9995], without a trigonometric call.  sin(uθ)/sin θ is the series
 * Σ b_i(u)·(d − 1)^i with b_0 = u, b_i = b_{i−1}·(u² − i²)/(i(2i + 1))
 * (Eberly, "A fast and accurate algorithm for computing SLERP").  Its terms
 * share one sign for u in [0, 1] and each is at most (1 − d)/2 of the last.
 * For d >= 0.5 (inputs within 120° of each other: nearly every blend) eight
 * terms are within 5e-7 of the exact weights, and a fixed count lets the
 * compiler unroll the loop with no data-dependent branch; wider angles sum
 * until the terms fall below float precision (about 26 terms at d = 0).
 * This is what keeps a blend near the cost of sampling: acosf and three
 * sinf a joint were most of a blend tree's frame.
 */
#define SERIES_FIXED_TERMS MN_SERIES_FIXED_TERMS
#define SERIES_FIXED_FROM MN_SERIES_FIXED_FROM

static void slerp_weights(float d, float t, float *wa, float *wb)
{
    float x = d - 1.0f, u = 1.0f - t;
    float ba = u, bb = t, sa = u, sb = t, p = 1.0f;
    if (d >= SERIES_FIXED_FROM) {
        for (int i = 1; i <= SERIES_FIXED_TERMS; i++) {
            float i2 = (float)(i * i);
            p *= x;
            ba *= (u * u - i2) * mni_slerp_series_k[i - 1];
            bb *= (t * t - i2) * mni_slerp_series_k[i - 1];
            sa += ba * p;
            sb += bb * p;
        }
    } else {
        for (int i = 1; i <= 40; i++) {
            float i2 = (float)(i * i);
            p *= x;
            ba *= (u * u - i2) * mni_slerp_series_k[i - 1];
            bb *= (t * t - i2) * mni_slerp_series_k[i - 1];
            float ta = ba * p, tb = bb * p;
            sa += ta;
            sb += tb;
            if (fabsf(ta) + fabsf(tb) < 1e-8f)
                break;
        }
    }
    *wa = sa;
    *wb = sb;
}

/*
 * slerp_weights for n joints at once, each d[i] >= SERIES_FIXED_FROM: the
 * eight-term series in nested (Horner) form,
 *   sin(uθ)/sin θ = u·(1 + y₁·(1 + y₂·(… (1 + y₈)))),  y_k = (u² − k²)·(d − 1)/(k(2k + 1)),
 * whose y_k are independent of each other.  No branch and no call, so the
 * compiler vectorises the loop across joints.
 */
static void series_weights(const float *d, const float *t, float *wa, float *wb, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        float x = d[i] - 1.0f, v = t[i], u = 1.0f - v;
        float u2 = u * u, v2 = v * v, acc_u = 1.0f, acc_v = 1.0f;
        for (int k = SERIES_FIXED_TERMS; k >= 1; k--) {
            float kx = mni_slerp_series_k[k - 1] * x, k2 = (float)(k * k);
            acc_u = 1.0f + (u2 - k2) * kx * acc_u;
            acc_v = 1.0f + (v2 - k2) * kx * acc_v;
        }
        wa[i] = u * acc_u;
        wb[i] = v * acc_v;
    }
}

/* S(q, w) up to a positive factor: the near-identity branch is left unnormalised. */
static void scale_from_identity_raw(float out[4], const float q_in[4], float w)
{
    float q[4] = {q_in[0], q_in[1], q_in[2], q_in[3]};
    if (q[3] < 0.0f) {
        q[0] = -q[0];
        q[1] = -q[1];
        q[2] = -q[2];
        q[3] = -q[3];
    }
    if (q[3] > NEARLY_PARALLEL) {
        out[0] = w * q[0];
        out[1] = w * q[1];
        out[2] = w * q[2];
        out[3] = (1.0f - w) + w * q[3];
        return;
    }
    if (w == 1.0f) { /* the whole arc: q itself (what the formula gives, up to its rounding) */
        memcpy(out, q, sizeof q);
        return;
    }
    /* A slerp from identity to q by w, whose cos θ is q.w: with θ/2 = acos(q.w) this is
       (sin(wθ/2)/sin(θ/2)·q.xyz, cos(wθ/2)), the additive formula, without its trigonometry. */
    float wi, wq;
    slerp_weights(q[3], w, &wi, &wq);
    out[0] = wq * q[0];
    out[1] = wq * q[1];
    out[2] = wq * q[2];
    out[3] = wi + wq * q[3];
}

void mn_quat_scale_from_identity(float out[4], const float q[4], float w)
{
    float r[4];
    scale_from_identity_raw(r, q, w);
    if (fabsf(q[3]) > NEARLY_PARALLEL)
        quat_normalize4(r); /* the near-identity branch is a normalised lerp */
    memcpy(out, r, sizeof r);
}

/* out = a · b (Hamilton), inlined here: the additive layer runs it per joint. */
static inline void quat_mul(float out[4], const float a[4], const float b[4])
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

/*
 * Joints are blended in runs of 64: a first pass writes each joint's
 * unnormalised rotation and marks it, a second normalises the marked ones.
 * Normalising inside the first pass put a square root and a division on the
 * critical path of every joint, which was half of a blend's time; in a
 * tight loop of their own they overlap.  Joints copied bit-exactly (weight
 * 0 or 1, an identity delta) are not marked.
 */
#define RUN 64u

static void normalize_marked(float *rotations, uint32_t first, uint64_t marks)
{
    for (uint32_t k = 0; marks != 0; k++, marks >>= 1)
        if (marks & 1u)
            quat_normalize4(rotations + 4 * (size_t)(first + k));
}

/* Joint weight: the layer's weight times the mask's, each clamped. */
static inline float joint_weight(float w, const float *mask, uint32_t j)
{
    return mask ? w * mni_clamp01(mask[j]) : w;
}

static void copy_joint(mn_pose *out, const mn_pose *src, uint32_t j)
{
    if (out == src)
        return;
    memmove(out->translations + 3 * (size_t)j, src->translations + 3 * (size_t)j, 3 * sizeof(float));
    memmove(out->rotations + 4 * (size_t)j, src->rotations + 4 * (size_t)j, 4 * sizeof(float));
    memmove(out->scales + 3 * (size_t)j, src->scales + 3 * (size_t)j, 3 * sizeof(float));
}

/*
 * One run: translations and scales joint by joint; rotations in passes, so
 * that the slerp weights of every joint in the run come from one
 * vectorised loop (series_weights) instead of a dependent chain per joint.
 */
static void blend_run(const mn_pose *a, const mn_pose *b, float layer, const float *mask,
                      mn_pose *out, uint32_t first, uint32_t end)
{
    /* d and w zeroed: gcc's uninitialised-use analysis cannot see the first loop fills n */
    float d[RUN] = {0}, w[RUN] = {0}, wa[RUN], wb[RUN];
    uint32_t n = end - first;
    uint64_t marks = 0, wide = 0, flip = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t j = first + k;
        w[k] = joint_weight(layer, mask, j);
        const float *qa = a->rotations + 4 * (size_t)j, *qb = b->rotations + 4 * (size_t)j;
        float dot = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
        if (dot < 0.0f) {
            dot = -dot;
            flip |= (uint64_t)1 << k;
        }
        /* below the fixed series' range: summed to convergence later; the batch gets a dummy */
        if (dot < SERIES_FIXED_FROM)
            wide |= (uint64_t)1 << k;
        d[k] = dot < SERIES_FIXED_FROM ? 1.0f : dot;
    }
    series_weights(d, w, wa, wb, n);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t j = first + k;
        if (w[k] == 0.0f) {
            copy_joint(out, a, j);
            continue;
        }
        if (w[k] == 1.0f) {
            copy_joint(out, b, j);
            continue;
        }
        const float *ta = a->translations + 3 * (size_t)j, *tb = b->translations + 3 * (size_t)j;
        const float *sa = a->scales + 3 * (size_t)j, *sb = b->scales + 3 * (size_t)j;
        const float *qa = a->rotations + 4 * (size_t)j, *qb = b->rotations + 4 * (size_t)j;
        float t3[3], s3[3], r4[4];
        for (int i = 0; i < 3; i++) {
            t3[i] = ta[i] + (tb[i] - ta[i]) * w[k];
            s3[i] = sa[i] + (sb[i] - sa[i]) * w[k];
        }
        /* nlerp when nearly parallel, slerp otherwise, normalised after the run */
        float ka = wa[k], kb = wb[k];
        if (wide >> k & 1u) {
            float dot = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
            slerp_weights(fabsf(dot), w[k], &ka, &kb);
        } else if (d[k] > NEARLY_PARALLEL) {
            ka = 1.0f - w[k];
            kb = w[k];
        }
        if (flip >> k & 1u)
            kb = -kb; /* the short arc: b negated */
        for (int i = 0; i < 4; i++)
            r4[i] = qa[i] * ka + qb[i] * kb;
        memcpy(out->translations + 3 * (size_t)j, t3, sizeof t3);
        memcpy(out->rotations + 4 * (size_t)j, r4, sizeof r4);
        memcpy(out->scales + 3 * (size_t)j, s3, sizeof s3);
        marks |= (uint64_t)1 << k;
    }
    normalize_marked(out->rotations, first, marks);
}

/* Joints [from, to) by the reference, in runs. */
static void blend_range(const mn_pose *a, const mn_pose *b, float layer, const float *mask,
                        mn_pose *out, uint32_t from, uint32_t to)
{
    for (uint32_t first = from; first < to; first += RUN) {
        uint32_t end = to - first < RUN ? to : first + RUN;
        blend_run(a, b, layer, mask, out, first, end);
    }
}

#if MN_WITH_SSE2
/* Whole groups of `width` joints from joint j on, at most `most` (one SIMD call's worth). */
static inline uint32_t simd_groups(uint32_t j, uint32_t joint_count, uint32_t width, uint32_t most)
{
    uint32_t groups = (joint_count - j) / width;
    return groups < most ? groups : most;
}

/* A kernel's contract (blend_internal.h): a bit per group of joints it left to the reference. */
typedef uint32_t simd_kernel(const mn_pose *p, const mn_pose *q, float layer, const float *mask,
                             mn_pose *out, uint32_t first, uint32_t groups);
/* The reference on joints [first, end): blend_run or add_run. */
typedef void reference_run(const mn_pose *p, const mn_pose *q, float layer, const float *mask,
                           mn_pose *out, uint32_t first, uint32_t end);

/*
 * The kernels' loop from joint j: groups of `width` joints a call, then the
 * reference on each group a call handed back (bit g of its answer).  Returns
 * the joint after the last one covered; the narrower kernels and the
 * reference take the rest.
 */
static inline uint32_t simd_loop(simd_kernel *kernel, reference_run *reference, uint32_t width,
                                 uint32_t most, const mn_pose *p, const mn_pose *q, float layer,
                                 const float *mask, mn_pose *out, uint32_t j)
{
    for (uint32_t groups; (groups = simd_groups(j, out->joint_count, width, most)) > 0; j += width * groups) {
        uint32_t refer = kernel(p, q, layer, mask, out, j, groups);
        for (uint32_t g = 0; refer >> g != 0; g++) /* groups with a wide arc */
            if (refer >> g & 1u)
                reference(p, q, layer, mask, out, j + width * g, j + width * (g + 1));
    }
    return j;
}
#endif

/* The one dispatch of the blends: AVX2 eights, then SSE2 fours, then the reference. */
void mni_blend_poses_at(const mn_pose *a, const mn_pose *b, float t, const float *mask, mn_pose *out,
                        mn_simd_level level)
{
    float layer = mni_clamp01(t);
    uint32_t j = 0;
    level = mni_simd_resolve(level);
#if MN_WITH_AVX2
    if (level == MN_SIMD_AVX2_FMA)
        j = simd_loop(mni_blend_avx2, blend_run, 8u, MN_BLEND_RUN / 8u, a, b, layer, mask, out, j);
#endif
#if MN_WITH_SSE2
    if (level == MN_SIMD_AVX2_FMA || level == MN_SIMD_SSE2)
        j = simd_loop(mni_blend_sse2, blend_run, 4u, MN_BLEND_RUN / 4u, a, b, layer, mask, out, j);
#endif
    (void)level;
    blend_range(a, b, layer, mask, out, j, out->joint_count);
}

void mni_blend_poses(const mn_pose *a, const mn_pose *b, float t, const float *mask, mn_pose *out)
{
    mni_blend_poses_at(a, b, t, mask, out, MN_SIMD_BEST);
}

#if MN_WITH_SSE2
typedef uint32_t blend3_kernel(const mn_pose *a, const mn_pose *b, const mn_pose *c, float tb, float tc,
                               mn_pose *out, uint32_t first, uint32_t groups);

/* Joints [j, j + width): the two blends one after the other, each as its own dispatch takes a group. */
static void blend3_group_apart(simd_kernel *kernel, const mn_pose *a, const mn_pose *b, const mn_pose *c,
                               float tb, float tc, mn_pose *out, uint32_t j, uint32_t width)
{
    if (kernel(a, b, tb, NULL, out, j, 1) & 1u)
        blend_run(a, b, tb, NULL, out, j, j + width);
    if (kernel(out, c, tc, NULL, out, j, 1) & 1u)
        blend_run(out, c, tc, NULL, out, j, j + width);
}

/* simd_loop for the fused kernels: the groups a call hands back get the two blends apart. */
static inline uint32_t blend3_loop(blend3_kernel *fused, simd_kernel *kernel, uint32_t width, uint32_t most,
                                   const mn_pose *a, const mn_pose *b, const mn_pose *c, float tb,
                                   float tc, mn_pose *out, uint32_t j)
{
    for (uint32_t groups; (groups = simd_groups(j, out->joint_count, width, most)) > 0; j += width * groups) {
        uint32_t refer = fused(a, b, c, tb, tc, out, j, groups);
        for (uint32_t g = 0; refer >> g != 0; g++)
            if (refer >> g & 1u)
                blend3_group_apart(kernel, a, b, c, tb, tc, out, j + width * g, width);
    }
    return j;
}
#endif

/*
 * Two blends as one: the SIMD levels cover the same groups of joints the two
 * dispatches would (AVX2 eights, SSE2 fours) with the fused kernels, and the
 * tail gets the reference twice; a weight at 0 or 1 (copies) or the scalar
 * level takes the two blends as they are.
 */
void mni_blend_poses3_at(const mn_pose *a, const mn_pose *b, const mn_pose *c, float tb, float tc,
                         mn_pose *out, mn_simd_level level)
{
    float lb = mni_clamp01(tb), lc = mni_clamp01(tc);
    level = mni_simd_resolve(level);
    if (!(lb > 0.0f && lb < 1.0f && lc > 0.0f && lc < 1.0f) || level == MN_SIMD_SCALAR ||
        !MN_WITH_SSE2) {
        mni_blend_poses_at(a, b, lb, NULL, out, level);
        mni_blend_poses_at(out, c, lc, NULL, out, level);
        return;
    }
    uint32_t j = 0;
#if MN_WITH_AVX2
    if (level == MN_SIMD_AVX2_FMA)
        j = blend3_loop(mni_blend3_avx2, mni_blend_avx2, 8u, MN_BLEND_RUN / 8u, a, b, c, lb, lc, out, j);
#endif
#if MN_WITH_SSE2
    if (level == MN_SIMD_AVX2_FMA || level == MN_SIMD_SSE2)
        j = blend3_loop(mni_blend3_sse2, mni_blend_sse2, 4u, MN_BLEND_RUN / 4u, a, b, c, lb, lc, out, j);
#endif
    blend_range(a, b, lb, NULL, out, j, out->joint_count);
    blend_range(out, c, lc, NULL, out, j, out->joint_count);
}

void mni_blend_poses3(const mn_pose *a, const mn_pose *b, const mn_pose *c, float tb, float tc,
                      mn_pose *out)
{
    mni_blend_poses3_at(a, b, c, tb, tc, out, MN_SIMD_BEST);
}

/* mni_blend_sum3's reference on joint j: read whole before anything is written (out may alias). */
static void sum3_joint(const mn_pose *a, const mn_pose *b, const mn_pose *c, float wa, float wb, float wc,
                       mn_pose *out, uint32_t j)
{
    const float *qa = a->rotations + 4 * (size_t)j, *qb = b->rotations + 4 * (size_t)j;
    const float *qc = c->rotations + 4 * (size_t)j;
    float db = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
    float dc = qa[0] * qc[0] + qa[1] * qc[1] + qa[2] * qc[2] + qa[3] * qc[3];
    float kb = db < 0.0f ? -wb : wb, kc = dc < 0.0f ? -wc : wc;
    float r[4], t[3], s[3];
    for (int i = 0; i < 4; i++)
        r[i] = qa[i] * wa + qb[i] * kb + qc[i] * kc;
    quat_normalize4(r);
    const float *channels[3][2] = {{a->translations, a->scales}, {b->translations, b->scales},
                                   {c->translations, c->scales}};
    for (int i = 0; i < 3; i++) {
        size_t at = 3 * (size_t)j + (size_t)i;
        float x = channels[0][0][at], y = channels[1][0][at], z = channels[2][0][at];
        t[i] = x + (y - x) * wb + (z - x) * wc;
        x = channels[0][1][at], y = channels[1][1][at], z = channels[2][1][at];
        s[i] = x + (y - x) * wb + (z - x) * wc;
    }
    memcpy(out->rotations + 4 * (size_t)j, r, sizeof r);
    memcpy(out->translations + 3 * (size_t)j, t, sizeof t);
    memcpy(out->scales + 3 * (size_t)j, s, sizeof s);
}

/* The weighted sum: AVX2 eights, SSE2 fours, the reference on the tail; every level the same bits. */
void mni_blend_sum3_at(const mn_pose *a, const mn_pose *b, const mn_pose *c, float wa, float wb,
                       float wc, mn_pose *out, mn_simd_level level)
{
    uint32_t j = 0, n = out->joint_count;
    level = mni_simd_resolve(level);
#if MN_WITH_AVX2
    if (level == MN_SIMD_AVX2_FMA) {
        mni_blend_sum3_avx2(a, b, c, wa, wb, wc, out, j, (n - j) / 8u);
        j += (n - j) / 8u * 8u;
    }
#endif
#if MN_WITH_SSE2
    if (level == MN_SIMD_AVX2_FMA || level == MN_SIMD_SSE2) {
        mni_blend_sum3_sse2(a, b, c, wa, wb, wc, out, j, (n - j) / 4u);
        j += (n - j) / 4u * 4u;
    }
#endif
    (void)level;
    for (; j < n; j++)
        sum3_joint(a, b, c, wa, wb, wc, out, j);
}

void mni_blend_sum3(const mn_pose *a, const mn_pose *b, const mn_pose *c, float wa, float wb, float wc,
                    mn_pose *out)
{
    mni_blend_sum3_at(a, b, c, wa, wb, wc, out, MN_SIMD_BEST);
}

/* One run of the additive layer, its S(ΔR, w) weights batched as blend_run's are. */
static void add_run(const mn_pose *base, const mn_pose *delta, float layer, const float *mask,
                    mn_pose *out, uint32_t first, uint32_t end)
{
    /* d and w zeroed, as in blend_run */
    float d[RUN] = {0}, w[RUN] = {0}, wi[RUN], wq[RUN];
    uint32_t n = end - first;
    uint64_t marks = 0;
    for (uint32_t k = 0; k < n; k++) {
        w[k] = joint_weight(layer, mask, first + k);
        float qw = fabsf(delta->rotations[4 * (size_t)(first + k) + 3]);
        d[k] = qw < SERIES_FIXED_FROM ? 1.0f : qw; /* wide arcs are summed apart below */
    }
    series_weights(d, w, wi, wq, n);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t j = first + k;
        if (w[k] == 0.0f) {
            copy_joint(out, base, j);
            continue;
        }
        const float *tb = base->translations + 3 * (size_t)j, *td = delta->translations + 3 * (size_t)j;
        const float *sb = base->scales + 3 * (size_t)j, *sd = delta->scales + 3 * (size_t)j;
        const float *rb = base->rotations + 4 * (size_t)j, *rd = delta->rotations + 4 * (size_t)j;
        float t3[3], s3[3], r4[4];
        for (int i = 0; i < 3; i++) {
            t3[i] = tb[i] + w[k] * td[i];
            s3[i] = sb[i] * (1.0f + (sd[i] - 1.0f) * w[k]);
        }
        bool identity = rd[0] == 0.0f && rd[1] == 0.0f && rd[2] == 0.0f;
        if (identity) {
            /* An identity delta at any weight is identity, and composing with it is exact:
               keep the base bits, so a zero delta returns the base unchanged. */
            memcpy(r4, rb, sizeof r4);
        } else {
            /* normalize(R_b · S(ΔR, w)); S's own normalisation (near identity) is a positive
               factor the final one absorbs, so it is skipped. */
            float sign = rd[3] < 0.0f ? -1.0f : 1.0f;
            float q[4] = {sign * rd[0], sign * rd[1], sign * rd[2], sign * rd[3]}, dr[4];
            float ki = wi[k], kq = wq[k];
            if (q[3] < SERIES_FIXED_FROM) {
                slerp_weights(q[3], w[k], &ki, &kq);
            } else if (q[3] > NEARLY_PARALLEL) {
                ki = 1.0f - w[k];
                kq = w[k];
            } else if (w[k] == 1.0f) {
                ki = 0.0f;
                kq = 1.0f;
            }
            dr[0] = kq * q[0];
            dr[1] = kq * q[1];
            dr[2] = kq * q[2];
            dr[3] = ki + kq * q[3];
            quat_mul(r4, rb, dr);
        }
        memcpy(out->translations + 3 * (size_t)j, t3, sizeof t3);
        memcpy(out->rotations + 4 * (size_t)j, r4, sizeof r4);
        memcpy(out->scales + 3 * (size_t)j, s3, sizeof s3);
        if (!identity)
            marks |= (uint64_t)1 << k;
    }
    normalize_marked(out->rotations, first, marks);
}

static void add_range(const mn_pose *base, const mn_pose *delta, float layer, const float *mask,
                      mn_pose *out, uint32_t from, uint32_t to)
{
    for (uint32_t first = from; first < to; first += RUN) {
        uint32_t end = to - first < RUN ? to : first + RUN;
        add_run(base, delta, layer, mask, out, first, end);
    }
}

/* The one dispatch of the additive layer, as mni_blend_poses_at's. */
void mni_add_poses_at(const mn_pose *base, const mn_pose *delta, float weight, const float *mask,
                      mn_pose *out, mn_simd_level level)
{
    float layer = mni_clamp01(weight);
    uint32_t j = 0;
    level = mni_simd_resolve(level);
#if MN_WITH_AVX2
    if (level == MN_SIMD_AVX2_FMA)
        j = simd_loop(mni_add_avx2, add_run, 8u, MN_BLEND_RUN / 8u, base, delta, layer, mask, out, j);
#endif
#if MN_WITH_SSE2
    if (level == MN_SIMD_AVX2_FMA || level == MN_SIMD_SSE2)
        j = simd_loop(mni_add_sse2, add_run, 4u, MN_BLEND_RUN / 4u, base, delta, layer, mask, out, j);
#endif
    (void)level;
    add_range(base, delta, layer, mask, out, j, out->joint_count);
}

void mni_add_poses(const mn_pose *base, const mn_pose *delta, float weight, const float *mask,
                   mn_pose *out)
{
    mni_add_poses_at(base, delta, weight, mask, out, MN_SIMD_BEST);
}

/* NULL poses, mismatched counts, a mask of the wrong length: the shared checks. */
static mn_status check_three(const char *fn, const mn_pose *a, const mn_pose *b, const mn_pose *out,
                             const float *mask, uint32_t mask_count, mn_error *err)
{
    if (!a || !b || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "%s: a pose is NULL", fn);
    if (a->joint_count != b->joint_count || a->joint_count != out->joint_count)
        return mni_fail(err, MN_COUNT_MISMATCH, "%s: joint counts differ (%u, %u, out %u)", fn,
                        a->joint_count, b->joint_count, out->joint_count);
    if (mask && mask_count != out->joint_count)
        return mni_fail(err, MN_COUNT_MISMATCH, "%s: the mask has %u weights for %u joints", fn,
                        mask_count, out->joint_count);
    mni_error_clear(err);
    return MN_OK;
}

mn_status mn_pose_blend(const mn_pose *a, const mn_pose *b, float t, mn_pose *out, mn_error *err)
{
    return mn_pose_blend_masked(a, b, t, NULL, 0, out, err);
}

mn_status mn_pose_blend_masked(const mn_pose *a, const mn_pose *b, float t, const float *mask,
                               uint32_t mask_count, mn_pose *out, mn_error *err)
{
    mn_status st = check_three("blend", a, b, out, mask, mask_count, err);
    if (st == MN_OK)
        mni_blend_poses(a, b, t, mask, out);
    return st;
}

mn_status mn_pose_add(const mn_pose *base, const mn_pose *delta, float weight, mn_pose *out,
                      mn_error *err)
{
    return mn_pose_add_masked(base, delta, weight, NULL, 0, out, err);
}

mn_status mn_pose_add_masked(const mn_pose *base, const mn_pose *delta, float weight,
                             const float *mask, uint32_t mask_count, mn_pose *out, mn_error *err)
{
    mn_status st = check_three("add", base, delta, out, mask, mask_count, err);
    if (st == MN_OK)
        mni_add_poses(base, delta, weight, mask, out);
    return st;
}
