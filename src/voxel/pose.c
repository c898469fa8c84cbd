/*
 * Posing a voxel rig (docs/formats.md, "Posing"):
 *
 *     world(part) = world(parent) · J1 · J2 · … · Jn     (declared order)
 *     J           = Mount · Driven
 *     Mount       = T(offset) · T(pivot) · R(orient) · T(-pivot)
 *     Driven      = T(pivot) · R(axis, value) · T(-pivot)   rotation joint
 *                 = T(axis · value)                         translation joint
 *     value       = clamp(animation value, else caller, else rest, min, max)
 *
 * plus sampling an animation into a value map (sampleAnimation) and the
 * skinning matrices of a skinned voxel mesh (skinningMatrices).
 *
 * How a pose is made (mn_voxel_pose, mni_voxel_pose_at):
 *  1. Every joint's value: caller or rest, the animations overlaid, clamped
 *     ("joint values").  Animations are sampled last to first, each joint
 *     only by the animation that wins it.  A looping animation of a rig
 *     that was read is sampled on its grid (fcurve_bake.c): its phase and
 *     cell are found once, then each track is one cubic; at a key, and
 *     where no cubic is close enough, the track's curve baked into cubic
 *     pieces (or the curve itself) answers, after mn_fcurve_sample's own
 *     wrap.  With a read rig's plan and AVX2 the caller/rest pick and the
 *     clamp go eight joints at a time (the same comparisons).
 *  2. Every joint's motion J' = T(d)·R at its value, seen from its part's
 *     pivot: R = A + sin·K + (1 - cos)·N is Rodrigues with the mount folded
 *     in, from the joint's plan ("joint plans": worked out once by the
 *     reader, joint by joint for a rig built by hand, to the same bits).
 *     The sines take no library call ("sines and cosines").  With a read
 *     rig's plan and AVX2 this goes four joints at a time with fused
 *     multiply-adds; otherwise joint by joint, by the same operations
 *     ("each joint's motion").
 *  3. Each part, parents first: world(parent) · T(pivot) · J1' · … · Jn' ·
 *     T(-pivot), in double (a matrix column a register with AVX2 and FMA,
 *     chosen at run time by mni_simd_resolve; else plain double), the parent's
 *     world read back from its floats ("composing the parts").  A read
 *     rig's parts go by depth (mni_voxel_rig_level_order), so consecutive parts
 *     are seldom parent and child and the CPU overlaps them.  The two
 *     kernels agree within a few float roundings (in practice to the bit).
 *
 * Nothing here allocates: joint values live in out_values when the caller
 * gives it, else in a stack array of VALUES_ON_STACK floats, and a rig with
 * more joints than that (and no out_values) resolves each joint's value
 * where it is used, by scanning the animations' tracks — the same numbers,
 * found more slowly.  Likewise the motions of up to MOTIONS_ON_STACK joints
 * are kept on the stack (24 KiB), and a bigger rig's are worked out joint
 * by joint as its parts are composed: the same bits.
 */
#include <marionette/voxel/rig.h>

#include <math.h>
#include <string.h>

#include "voxel/fcurve_internal.h"
#include "voxel/pose_internal.h"

/* The AVX2 + FMA composing kernel, compiled through the target attribute, run when the CPU has it. */
#include "core/simd.h"

#if MN_WITH_AVX2
#define VOXEL_AVX2 1
#include <immintrin.h>
#else
#define VOXEL_AVX2 0
#endif

/* Joint values kept on the stack when the caller gives no out_values (4 KiB). */
#define VALUES_ON_STACK 1024u

/* An affine map: column-major 3x4, m[c*3 + r]; column 3 is the translation. */
typedef struct affine {
    double m[12];
} affine;

static const affine affine_identity = {{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}};

/*
 * Make `out` the rotation block R (already in out->m[0..8]) about `pivot`:
 * T(pivot) · R · T(-pivot), whose translation is pivot - R·pivot.
 */
static void about_pivot(affine *out, const float pivot[3])
{
    double p[3] = {pivot[0], pivot[1], pivot[2]};
    for (int r = 0; r < 3; r++)
        out->m[9 + r] = p[r] - (out->m[r] * p[0] + out->m[3 + r] * p[1] + out->m[6 + r] * p[2]);
}

/* R = Rx(e0) · Ry(e1) · Rz(e2), intrinsic XYZ (mn_quat_from_euler_xyz, three.js 'XYZ'). */
static void rotation_euler_xyz(affine *out, const float e[3])
{
    double a = cosf(e[0]), b = sinf(e[0]), c = cosf(e[1]), d = sinf(e[1]);
    double ce = cosf(e[2]), f = sinf(e[2]);
    double ae = a * ce, af = a * f, be = b * ce, bf = b * f;
    double *m = out->m;
    m[0] = c * ce;        m[3] = -c * f;        m[6] = d;
    m[1] = af + be * d;   m[4] = ae - bf * d;   m[7] = -b * c;
    m[2] = bf - ae * d;   m[5] = be + af * d;   m[8] = a * c;
}

/* Mount = T(offset) · T(pivot) · R(orient) · T(-pivot) of a joint on a part with this pivot. */
static void mount_matrix(affine *out, const mn_voxel_joint *joint, const float pivot[3])
{
    *out = affine_identity;
    rotation_euler_xyz(out, joint->orient);
    about_pivot(out, pivot);
    for (int r = 0; r < 3; r++)
        out->m[9 + r] += (double)joint->offset[r];
}

void mn_voxel_mount_affine(const mn_voxel_rig *rig, uint32_t joint, double out[12])
{
    if (rig == NULL || out == NULL || rig->joints == NULL || joint >= rig->joint_count)
        return;
    const mn_voxel_joint *jt = &rig->joints[joint];
    if (rig->parts == NULL || jt->part >= rig->part_count)
        return;
    affine m = affine_identity;
    if (jt->has_mount)
        mount_matrix(&m, jt, rig->parts[jt->part].pivot);
    memcpy(out, m.m, sizeof m.m);
}

/* ---- sines and cosines ------------------------------------------------------------ */

/*
 * sin and cos of joint angles, in double, with no library call: taken with
 * the joints' motions before composing, four joints at a time with AVX2
 * (sin_versin_reduced4), so the composing loop has no call in it (a call
 * makes the compiler spill the running matrix).  The angle is reduced by the
 * nearest multiple k of pi/2 (pi/2 split in two so k·PIO2_HI is exact), then
 * Taylor series to the 13th / 14th power on |r| <= pi/4: truncation below
 * 3e-14, far closer than the float sinf/cosf used before, and far inside
 * the 1e-4 voxel posing is held to.  The quadrant is picked with masks, not branches
 * (its sign is a coin toss to a predictor).  Angles beyond TRIG_FAST
 * radians, and NaN, go to the library.  The scalar path does the same
 * operations in the same order as each SIMD lane: the same bits.
 */
#define TWO_OVER_PI 0x1.45f306dc9c883p-1
#define PIO2_HI 0x1.921fb544p+0           /* pi/2 to 33 bits: k·PIO2_HI exact for |k| < 2^20 */
#define PIO2_LO 0x1.0b4611a626331p-34     /* pi/2 - PIO2_HI */
#define ROUND_MAGIC 0x1.8p52              /* adding and subtracting it rounds to an integer */
#define TRIG_FAST 65536.0

/* sin(r) = r + r·z·P(z), cos(r) = 1 + z·Q(z), z = r²: Taylor coefficients, highest first. */
#define SIN_P5 (1.0 / 6227020800.0)
#define SIN_P4 (-1.0 / 39916800.0)
#define SIN_P3 (1.0 / 362880.0)
#define SIN_P2 (-1.0 / 5040.0)
#define SIN_P1 (1.0 / 120.0)
#define SIN_P0 (-1.0 / 6.0)
#define COS_Q6 (-1.0 / 87178291200.0)
#define COS_Q5 (1.0 / 479001600.0)
#define COS_Q4 (-1.0 / 3628800.0)
#define COS_Q3 (1.0 / 40320.0)
#define COS_Q2 (-1.0 / 720.0)
#define COS_Q1 (1.0 / 24.0)
#define COS_Q0 (-1.0 / 2.0)

static inline double flip_sign_if(double x, uint64_t sign_bit)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits ^= sign_bit;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* out = {sin x, cos x}, |x| <= TRIG_FAST. */
static inline void sin_cos_reduced(double x, double out[2])
{
    double k = (x * TWO_OVER_PI + ROUND_MAGIC) - ROUND_MAGIC;
    double r = (x - k * PIO2_HI) - k * PIO2_LO;
    double z = r * r;
    double ps = SIN_P5, qc = COS_Q6;
    ps = ps * z + SIN_P4, qc = qc * z + COS_Q5;
    ps = ps * z + SIN_P3, qc = qc * z + COS_Q4;
    ps = ps * z + SIN_P2, qc = qc * z + COS_Q3;
    ps = ps * z + SIN_P1, qc = qc * z + COS_Q2;
    ps = ps * z + SIN_P0, qc = qc * z + COS_Q1;
    qc = qc * z + COS_Q0;
    double sr = r + r * z * ps, cr = 1.0 + z * qc;
    /* Quadrant q = k mod 4: sin is sr, cr, -sr, -cr and cos cr, -sr, -cr, sr. */
    int32_t q = (int32_t)k;
    bool odd = q & 1;
    out[0] = flip_sign_if(odd ? cr : sr, (uint64_t)(q & 2) << 62);
    out[1] = flip_sign_if(odd ? sr : cr, (uint64_t)((q + 1) & 2) << 62);
}

/* out = {sin, 1 - cos} of angle: what R = A + sin·K + (1 - cos)·N takes. */
static inline void sin_versin(float angle, double out[2])
{
    double x = angle;
    if (fabs(x) <= TRIG_FAST) {
        sin_cos_reduced(x, out);
    } else {
        out[0] = sin(x);
        out[1] = cos(x);
    }
    out[1] = 1.0 - out[1];
}


#if VOXEL_AVX2
/*
 * sin_cos_reduced2 four angles at a time, AVX2 without FMA: each lane does
 * the scalar path's IEEE operations in its order, so the same bits.
 */
/* One Horner step on four lanes: acc · z + coef. */
__attribute__((target("avx2"))) static inline __m256d horner_step4(__m256d acc, __m256d z,
                                                                    double coef)
{
    return _mm256_add_pd(_mm256_mul_pd(acc, z), _mm256_set1_pd(coef));
}

__attribute__((target("avx2"))) static inline void sin_versin_reduced4(__m256d x, __m256d *s,
                                                                      __m256d *t)
{
    const __m256d magic = _mm256_set1_pd(ROUND_MAGIC);
    __m256d k = _mm256_sub_pd(_mm256_add_pd(_mm256_mul_pd(x, _mm256_set1_pd(TWO_OVER_PI)), magic),
                              magic);
    __m256d r = _mm256_sub_pd(_mm256_sub_pd(x, _mm256_mul_pd(k, _mm256_set1_pd(PIO2_HI))),
                              _mm256_mul_pd(k, _mm256_set1_pd(PIO2_LO)));
    __m256d z = _mm256_mul_pd(r, r);
    __m256d ps = _mm256_set1_pd(SIN_P5), qc = _mm256_set1_pd(COS_Q6);
    ps = horner_step4(ps, z, SIN_P4), qc = horner_step4(qc, z, COS_Q5);
    ps = horner_step4(ps, z, SIN_P3), qc = horner_step4(qc, z, COS_Q4);
    ps = horner_step4(ps, z, SIN_P2), qc = horner_step4(qc, z, COS_Q3);
    ps = horner_step4(ps, z, SIN_P1), qc = horner_step4(qc, z, COS_Q2);
    ps = horner_step4(ps, z, SIN_P0), qc = horner_step4(qc, z, COS_Q1);
    qc = horner_step4(qc, z, COS_Q0);
    __m256d sr = _mm256_add_pd(r, _mm256_mul_pd(_mm256_mul_pd(r, z), ps));
    __m256d cr = _mm256_add_pd(_mm256_set1_pd(1.0), _mm256_mul_pd(z, qc));
    __m256i q = _mm256_cvtepi32_epi64(_mm256_cvttpd_epi32(k));
    __m256i one = _mm256_set1_epi64x(1), two = _mm256_set1_epi64x(2);
    __m256d odd = _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(q, one), one));
    __m256d sin_neg = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_and_si256(q, two), 62));
    __m256d cos_neg = _mm256_castsi256_pd(
        _mm256_slli_epi64(_mm256_and_si256(_mm256_add_epi64(q, one), two), 62));
    __m256d sn = _mm256_xor_pd(_mm256_blendv_pd(sr, cr, odd), sin_neg);
    __m256d cs = _mm256_xor_pd(_mm256_blendv_pd(cr, sr, odd), cos_neg);
    *s = sn;
    *t = _mm256_sub_pd(_mm256_set1_pd(1.0), cs);
}

#endif

/* ---- joint values ------------------------------------------------------------ */

static inline float clampf(float v, float lo, float hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The caller's value for joint j, or its rest when the caller has none (NULL map, NaN). */
static inline float caller_or_rest(const mn_voxel_rig *rig, const float *caller, uint32_t j)
{
    float v = caller != NULL ? caller[j] : NAN;
    return isnan(v) ? rig->joints[j].rest : v;
}

/*
 * Track k's curve of an animation at t: its baked pieces when the reader left
 * them for this very curve (`baked`, the animation's mni_voxel_rig_baked_tracks:
 * within FCURVE_BAKE_TOLERANCE of the value range), else exactly, with its
 * resolved record when there is one.
 */
static inline double sample_track(const mn_voxel_animation *anim, const fcurve_baked *const *baked,
                                  uint32_t k, double t_ms)
{
    const fcurve_baked *b = baked != NULL ? baked[k] : NULL;
    if (b != NULL && b->curve == &anim->tracks[k].curve)
        return fcurve_baked_sample(b, t_ms);
    const double *resolved = anim->resolved != NULL ? anim->resolved[k] : NULL;
    return mn_fcurve_sample_resolved(&anim->tracks[k].curve, resolved, t_ms);
}

/*
 * How many periods from its origin the grid places a time: there t's last
 * place is 2^-32 of a period, far inside the margin the grid keeps around
 * each key (fcurve_bake.c), so a cell with a cubic never holds a key.
 */
#define GRID_PERIODS 1048576.0

/*
 * An animation at one time, ready to sample track by track: its grid's cell
 * (the phase worked out once for every track) when the reader left a grid
 * and t is one it can place, else its baked curves or the exact ones.
 */
typedef struct anim_at {
    const mn_voxel_animation *anim;
    const fcurve_baked *const *baked;
    const fcurve_grid *grid;    /* with the cell and f of t, or NULL */
    uint32_t cell;
    double f;
    double t_ms;
} anim_at;

static anim_at animation_at(const mn_voxel_rig *rig, uint32_t animation, double t_ms)
{
    anim_at at = {&rig->animations[animation], mni_voxel_rig_baked_tracks(rig, animation), NULL, 0,
                  0.0, t_ms};
    const fcurve_grid *g = mni_voxel_rig_baked_grid(rig, animation);
    if (g != NULL && fabs(t_ms - g->origin) < GRID_PERIODS * g->period) {
        at.grid = g;
        at.cell = fcurve_grid_cell(g, t_ms, &at.f);
    }
    return at;
}

/* Track k of the animation at its time: the grid's cubic where the cell has one. */
static inline double sample_at(const anim_at *at, uint32_t k)
{
    double v;
    if (at->grid != NULL && fcurve_grid_cubic(at->grid, k, at->cell, at->f, &v))
        return v;
    return sample_track(at->anim, at->baked, k, at->t_ms);
}

void mn_voxel_sample_animation(const mn_voxel_rig *rig, uint32_t animation, double t_ms,
                               float *values)
{
    if (rig == NULL || values == NULL || animation >= rig->animation_count)
        return;
    anim_at at = animation_at(rig, animation, t_ms);
    for (uint32_t k = 0; k < at.anim->track_count; k++) {
        uint32_t j = at.anim->tracks[k].joint;
        if (j < rig->joint_count)
            values[j] = (float)sample_at(&at, k);
    }
}

/* Joints whose overlay is settled, as bits: enough for the rigs that keep values on the stack. */
#define CLAIM_WORDS (VALUES_ON_STACK / 64u)

/*
 * The animations overlaid in order, each track writing its joint, so a
 * later track wins.  Rather than sample a curve whose value a later
 * animation overwrites, go backwards and sample only each joint's winner,
 * marking joints as they are claimed.  (A rig too big for the bit set
 * overlays forwards: the same values, with the overwritten samples.)
 */
static void overlay_animations(const mn_voxel_rig *rig, const mn_voxel_pose_input *in,
                               float *values)
{
    if (rig->joint_count > CLAIM_WORDS * 64u || in->animation_count < 2) {
        for (uint32_t a = 0; a < in->animation_count; a++)
            mn_voxel_sample_animation(rig, in->animations[a], in->time_ms, values);
        return;
    }
    uint64_t claimed[CLAIM_WORDS];
    memset(claimed, 0, ((rig->joint_count + 63u) / 64u) * sizeof claimed[0]);
    for (uint32_t a = in->animation_count; a-- > 0;) {
        anim_at at = animation_at(rig, in->animations[a], in->time_ms);
        for (uint32_t k = at.anim->track_count; k-- > 0;) {
            uint32_t j = at.anim->tracks[k].joint;
            if (j >= rig->joint_count)
                continue;
            uint64_t bit = (uint64_t)1 << (j % 64u);
            if (claimed[j / 64u] & bit)
                continue;
            claimed[j / 64u] |= bit;
            values[j] = (float)sample_at(&at, k);
        }
    }
}

#if VOXEL_AVX2
/*
 * caller_or_rest, then (after the overlay) clampf, eight joints a step from a
 * read rig's rest and limit arrays: the same comparisons, so the same values.
 */
__attribute__((target("avx2"))) static uint32_t callers_or_rests_avx2(const voxel_pose_plan *plan,
                                                                      const float *caller,
                                                                      float *values)
{
    uint32_t j = 0;
    for (; j + 8 <= plan->joint_count; j += 8) {
        __m256 rest = _mm256_loadu_ps(&plan->rest[j]);
        __m256 v = caller != NULL ? _mm256_loadu_ps(&caller[j]) : rest;
        __m256 unset = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);   /* NaN: not set */
        _mm256_storeu_ps(&values[j], _mm256_blendv_ps(v, rest, unset));
    }
    return j;
}

__attribute__((target("avx2"))) static uint32_t clamps_avx2(const voxel_pose_plan *plan,
                                                            float *values)
{
    uint32_t j = 0;
    for (; j + 8 <= plan->joint_count; j += 8) {
        __m256 v = _mm256_loadu_ps(&values[j]);
        __m256 lo = _mm256_loadu_ps(&plan->min[j]), hi = _mm256_loadu_ps(&plan->max[j]);
        /* v < lo ? lo : v > hi ? hi : v */
        __m256 r = _mm256_blendv_ps(v, hi, _mm256_cmp_ps(v, hi, _CMP_GT_OQ));
        _mm256_storeu_ps(&values[j], _mm256_blendv_ps(r, lo, _mm256_cmp_ps(v, lo, _CMP_LT_OQ)));
    }
    return j;
}
#endif

/*
 * Every joint's final value into values: caller or rest, animations overlaid
 * in order, clamped (eight at a time from a read rig's plan with AVX2).
 */
static void resolve_values(const mn_voxel_rig *rig, const mn_voxel_pose_input *in, float *values,
                           const voxel_pose_plan *plan, bool fused)
{
    const float *caller = in != NULL ? in->caller : NULL;
    uint32_t j = 0;
#if VOXEL_AVX2
    if (fused && plan != NULL)
        j = callers_or_rests_avx2(plan, caller, values);
#endif
    for (; j < rig->joint_count; j++)
        values[j] = caller_or_rest(rig, caller, j);
    if (in != NULL)
        overlay_animations(rig, in, values);
    j = 0;
#if VOXEL_AVX2
    if (fused && plan != NULL)
        j = clamps_avx2(plan, values);
#endif
    (void)plan, (void)fused;
    for (; j < rig->joint_count; j++)
        values[j] = clampf(values[j], rig->joints[j].min, rig->joints[j].max);
}

/* Joint j's final value found without a value array: the last animation that drives it wins. */
static float resolve_one(const mn_voxel_rig *rig, const mn_voxel_pose_input *in, uint32_t j)
{
    const mn_voxel_joint *joint = &rig->joints[j];
    for (uint32_t a = in != NULL ? in->animation_count : 0; a-- > 0;) {
        const mn_voxel_animation *anim = &rig->animations[in->animations[a]];
        for (uint32_t k = anim->track_count; k-- > 0;)
            if (anim->tracks[k].joint == j) {
                anim_at at = animation_at(rig, in->animations[a], in->time_ms);
                return clampf((float)sample_at(&at, k), joint->min, joint->max);
            }
    }
    return clampf(caller_or_rest(rig, in != NULL ? in->caller : NULL, j), joint->min, joint->max);
}


/* ---- joint plans ------------------------------------------------------------------- */

/*
 * A part's joints all turn about its pivot p, and conjugated by T(p) each
 * joint is a bare rigid motion:
 *     T(-p) · Mount · T(p)  = T(offset) · R(orient)
 *     T(-p) · Driven · T(p) = R(axis, value)  or  T(axis · value)
 * so world(parent) · J1 · … · Jn = world(parent) · T(p) · J1' · … · Jn' · T(-p),
 * and J' = T(offset) · R(orient) · R(axis, v)  or  T(offset + v·R(orient)·axis) · R(orient):
 * always T(d) · R with R = A + sin·K + (1 - cos)·N (Rodrigues, the mount's
 * rotation A folded in), which mni_voxel_joint_plan_make works out once
 * (voxel/pose_internal.h).
 */

/* out = a · b for column-major 3x3 matrices. */
static void mul3(double out[9], const double a[9], const double b[9])
{
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            out[c * 3 + r] = a[r] * b[c * 3] + a[3 + r] * b[c * 3 + 1] + a[6 + r] * b[c * 3 + 2];
}

void mni_voxel_joint_plan_make(const mn_voxel_joint *joint, double plan[VOXEL_PLAN_ROWS],
                           uint32_t *flags)
{
    double *A = &plan[VOXEL_PLAN_A], *K = &plan[VOXEL_PLAN_K], *N = &plan[VOXEL_PLAN_N];
    double *off = &plan[VOXEL_PLAN_OFF], *dir = &plan[VOXEL_PLAN_DIR];
    double own_k[9], own_n[9];
    bool mounted = joint->has_mount;
    if (mounted && joint->mount_affine != NULL) {
        memcpy(A, joint->mount_affine, 9 * sizeof *A);
    } else if (mounted) {
        affine m;
        rotation_euler_xyz(&m, joint->orient);
        memcpy(A, m.m, 9 * sizeof *A);
    } else {
        for (int e = 0; e < 9; e++)
            A[e] = e % 4 == 0 ? 1.0 : 0.0;
    }
    for (int r = 0; r < 3; r++)
        off[r] = mounted ? joint->offset[r] : 0.0;
    double x = joint->axis[0], y = joint->axis[1], z = joint->axis[2];
    if (joint->type == MN_VOXEL_ROTATION) {
        /* [axis]x and axis·axisT - I, column-major; times A with a mount (without one,
           the identity's product, to the bit) */
        double *k = mounted ? own_k : K, *n = mounted ? own_n : N;
        k[0] = 0, k[1] = z, k[2] = -y, k[3] = -z, k[4] = 0, k[5] = x, k[6] = y, k[7] = -x, k[8] = 0;
        n[0] = x * x - 1, n[1] = x * y, n[2] = x * z;
        n[3] = x * y, n[4] = y * y - 1, n[5] = y * z;
        n[6] = x * z, n[7] = y * z, n[8] = z * z - 1;
        if (mounted) {
            mul3(K, A, k);
            mul3(N, A, n);
        }
        dir[0] = dir[1] = dir[2] = 0.0;
        *flags = VOXEL_PLAN_ROTATES | VOXEL_PLAN_TURNS;
    } else {
        for (int e = 0; e < 9; e++)
            K[e] = N[e] = 0.0;
        for (int r = 0; r < 3; r++)
            dir[r] = A[r] * x + A[3 + r] * y + A[6 + r] * z;
        *flags = VOXEL_PLAN_MOVES;
    }
    if (mounted)
        *flags |= VOXEL_PLAN_TURNS | VOXEL_PLAN_MOVES;
}

bool mni_voxel_pose_plan_build(mn_arena *arena, const mn_voxel_rig *rig, voxel_pose_plan *out)
{
    uint32_t n = rig->joint_count, stride = (n + 3u) & ~3u;
    double *rows = mni_arena_calloc(arena, (size_t)VOXEL_PLAN_ROWS * (stride ? stride : 4),
                                    sizeof *rows, 32);
    uint8_t *flags = mni_arena_calloc(arena, n ? n : 1, 1, 1);
    float *limits = mni_arena_calloc(arena, 3 * (size_t)(n ? n : 1), sizeof *limits, 32);
    if (!rows || !flags || !limits)
        return false;
    for (uint32_t j = 0; j < n; j++) {
        double plan[VOXEL_PLAN_ROWS];
        uint32_t f;
        mni_voxel_joint_plan_make(&rig->joints[j], plan, &f);
        for (int e = 0; e < VOXEL_PLAN_ROWS; e++)
            rows[(size_t)e * stride + j] = plan[e];
        flags[j] = (uint8_t)f;
        limits[j] = rig->joints[j].rest;
        limits[n + j] = rig->joints[j].min;
        limits[2 * n + j] = rig->joints[j].max;
    }
    *out = (voxel_pose_plan){rig->joints, n, stride, rows, flags, limits, limits + n, limits + 2 * n};
    return true;
}

/* ---- each joint's motion at its value ------------------------------------------ */

/*
 * Before composing, every joint's J' = T(d)·R at its value, 12 numbers (R
 * column-major, then d) a joint, in rows like the plan's: the joint's number
 * e at x[e·stride + j].  Up to MOTIONS_ON_STACK joints are worked out in one
 * batch (four at a time with AVX2); a bigger rig's are worked out joint by
 * joint as they are composed, by the same operations: the same bits.
 */
#define MOTION_ROWS 12
#define MOTIONS_ON_STACK 256u

/* A joint's plan as the motion code reads it: number e at p[e·stride]. */
typedef struct plan_ref {
    const double *p;
    size_t stride;
} plan_ref;

#define PLAN_AT(ref, e) ((ref).p[(size_t)(e) * (ref).stride])

/* The plain-double motion of one joint (value v, {sin, 1 - cos} sv) into x[e·xs]. */
static void joint_motion_plain(plan_ref pl, uint32_t flags, double v, const double sv[2],
                               double *x, size_t xs)
{
    bool rotates = (flags & VOXEL_PLAN_ROTATES) != 0;
    double s = rotates ? sv[0] : 0.0, t = rotates ? sv[1] : 0.0, vt = rotates ? 0.0 : v;
    for (int e = 0; e < 9; e++)
        x[e * xs] = PLAN_AT(pl, VOXEL_PLAN_A + e) + s * PLAN_AT(pl, VOXEL_PLAN_K + e) +
                    t * PLAN_AT(pl, VOXEL_PLAN_N + e);
    for (int e = 0; e < 3; e++)
        x[(9 + e) * xs] = PLAN_AT(pl, VOXEL_PLAN_OFF + e) + vt * PLAN_AT(pl, VOXEL_PLAN_DIR + e);
}

#if VOXEL_AVX2
#define AVX2_FMA __attribute__((target("avx2,fma")))

/* joint_motion_plain with fused multiply-adds, as each lane of joint_motions_avx2 does them. */
AVX2_FMA static void joint_motion_fma(plan_ref pl, uint32_t flags, double v, const double sv[2],
                                      double *x, size_t xs)
{
    bool rotates = (flags & VOXEL_PLAN_ROTATES) != 0;
    __m128d s = _mm_set_sd(rotates ? sv[0] : 0.0), t = _mm_set_sd(rotates ? sv[1] : 0.0);
    __m128d vt = _mm_set_sd(rotates ? 0.0 : v);
    for (int e = 0; e < 9; e++) {
        __m128d r = _mm_fmadd_sd(s, _mm_set_sd(PLAN_AT(pl, VOXEL_PLAN_K + e)),
                                 _mm_set_sd(PLAN_AT(pl, VOXEL_PLAN_A + e)));
        r = _mm_fmadd_sd(t, _mm_set_sd(PLAN_AT(pl, VOXEL_PLAN_N + e)), r);
        x[e * xs] = _mm_cvtsd_f64(r);
    }
    for (int e = 0; e < 3; e++)
        x[(9 + e) * xs] = _mm_cvtsd_f64(_mm_fmadd_sd(
            vt, _mm_set_sd(PLAN_AT(pl, VOXEL_PLAN_DIR + e)), _mm_set_sd(PLAN_AT(pl, VOXEL_PLAN_OFF + e))));
}

/* All ones in lane i where flags[i] is a rotation joint's. */
AVX2_FMA static inline __m256d rotation_mask(const uint8_t flags[4])
{
    uint32_t four;
    memcpy(&four, flags, sizeof four);
    __m256i f = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128((int)four));
    __m256i rot = _mm256_set1_epi64x(VOXEL_PLAN_ROTATES);
    return _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(f, rot), rot));
}

/*
 * Joints [0, count) four at a time, their plans in rows of `rs` (the plan's
 * layout) and their motions into rows of `xs`: their sines
 * (sin_versin_reduced4, the scalar path's bits) and motions
 * (joint_motion_fma's bits).  A group with an angle the polynomial does not
 * take (beyond TRIG_FAST, NaN) is left to the caller: returns a bit mask of
 * such groups, or 0.  Groups beyond 64 are never flagged (posing batches at
 * most MOTIONS_ON_STACK joints).
 */
AVX2_FMA static uint64_t joint_motions_avx2(const double *rows, size_t rs, const uint8_t *flags,
                                            const float *values, uint32_t count, double *x,
                                            size_t xs)
{
    const __m256d fast = _mm256_set1_pd(TRIG_FAST);
    const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX));
    uint64_t slow = 0;
    /* First every group's sines into rows 0 and 1 (and its moves into row 2): short
       iterations, so the CPU runs many of their long polynomial chains at once. */
    for (uint32_t j = 0; j < count; j += 4) {
        __m256d v, is_rot;
        if (j + 4 <= count) {
            v = _mm256_cvtps_pd(_mm_loadu_ps(&values[j]));
            is_rot = rotation_mask(&flags[j]);
        } else {   /* the last, short group: the rest zero (posed as translations by 0) */
            float four[4] = {0, 0, 0, 0};
            uint8_t fl[4] = {0, 0, 0, 0};
            for (uint32_t i = 0; j + i < count; i++)
                four[i] = values[j + i], fl[i] = flags[j + i];
            v = _mm256_cvtps_pd(_mm_loadu_ps(four));
            is_rot = rotation_mask(fl);
        }
        /* rotation joints take v as their angle, translation joints as their move */
        __m256d angle = _mm256_and_pd(is_rot, v);
        __m256d ok = _mm256_cmp_pd(_mm256_and_pd(angle, abs_mask), fast, _CMP_LE_OQ);
        if (_mm256_movemask_pd(ok) != 15)
            slow |= j / 4 < 64 ? (uint64_t)1 << (j / 4) : 0;
        __m256d sn, t;
        sin_versin_reduced4(_mm256_and_pd(ok, angle), &sn, &t);   /* 0, 0 for translations */
        _mm256_store_pd(&x[j], sn);
        _mm256_store_pd(&x[xs + j], t);
        _mm256_store_pd(&x[2 * xs + j], _mm256_andnot_pd(is_rot, v));
    }
    /* Then R = A + sin·K + (1 - cos)·N and d = off + move·dir, group by group. */
    for (uint32_t j = 0; j < count; j += 4) {
        const double *p = &rows[j];
        double *o = &x[j];
        __m256d sn = _mm256_load_pd(&o[0]), t = _mm256_load_pd(&o[xs]);
        __m256d vt = _mm256_load_pd(&o[2 * xs]);
        for (int e = 0; e < 9; e++) {
            __m256d r = _mm256_fmadd_pd(sn, _mm256_load_pd(&p[(VOXEL_PLAN_K + e) * rs]),
                                        _mm256_load_pd(&p[(VOXEL_PLAN_A + e) * rs]));
            r = _mm256_fmadd_pd(t, _mm256_load_pd(&p[(VOXEL_PLAN_N + e) * rs]), r);
            _mm256_store_pd(&o[e * xs], r);
        }
        for (int e = 0; e < 3; e++)
            _mm256_store_pd(&o[(9 + e) * xs],
                            _mm256_fmadd_pd(vt, _mm256_load_pd(&p[(VOXEL_PLAN_DIR + e) * rs]),
                                            _mm256_load_pd(&p[(VOXEL_PLAN_OFF + e) * rs])));
    }
    return slow;
}

/*
 * joint_motions_avx2 for a rig with no plan (built by hand): each group of
 * four planned into a block on the stack first, the same plans (and so the
 * same bits) the reader would have made.
 */
AVX2_FMA static uint64_t joint_motions_unplanned_avx2(const mn_voxel_rig *rig,
                                                      const float *values, double *x, size_t xs,
                                                      uint8_t *flags)
{
    _Alignas(32) double block[VOXEL_PLAN_ROWS * 4];
    uint64_t slow = 0;
    for (uint32_t j = 0; j < rig->joint_count; j += 4) {
        uint32_t n = rig->joint_count - j < 4 ? rig->joint_count - j : 4;
        if (n < 4)   /* lanes past the last joint: translations by 0 */
            memset(block, 0, sizeof block);
        for (uint32_t i = 0; i < n; i++) {
            double plan[VOXEL_PLAN_ROWS];
            uint32_t f;
            mni_voxel_joint_plan_make(&rig->joints[j + i], plan, &f);
            for (int e = 0; e < VOXEL_PLAN_ROWS; e++)
                block[e * 4 + i] = plan[e];
            flags[j + i] = (uint8_t)f;
        }
        if (joint_motions_avx2(block, 4, &flags[j], &values[j], n, &x[j], xs) && j / 4 < 64)
            slow |= (uint64_t)1 << (j / 4);
    }
    return slow;
}
#endif

/* ---- composing the parts -------------------------------------------------------- */

/* One pose in progress: what every part needs. */
typedef struct pose_job {
    const mn_voxel_rig *rig;
    const mn_voxel_pose_input *in;
    const float *values;            /* every joint's final value, or NULL: resolve_one */
    const voxel_pose_plan *plan;    /* the reader's, or NULL: each joint planned as it comes */
    const double *motions;          /* every joint's motion (rows of mstride), or NULL */
    size_t mstride;
    const uint8_t *flags;           /* every joint's plan flags, with motions */
    float *worlds;
} pose_job;

/*
 * Joint j's motion worked out now, into buf (stride 1), its flags into
 * *flags: for a rig too big for the batch.  The batch's operations, so its
 * bits (`fused`: the AVX2 kernel's).
 */
static void joint_motion_now(const pose_job *job, uint32_t j, bool fused, double buf[MOTION_ROWS],
                             uint32_t *flags)
{
    float value = job->values != NULL ? job->values[j] : resolve_one(job->rig, job->in, j);
    double own[VOXEL_PLAN_ROWS], sv[2];
    plan_ref pl = {own, 1};
    if (job->plan != NULL) {
        pl = (plan_ref){&job->plan->rows[j], job->plan->stride};
        *flags = job->plan->flags[j];
    } else {
        mni_voxel_joint_plan_make(&job->rig->joints[j], own, flags);
    }
    sin_versin((*flags & VOXEL_PLAN_ROTATES) ? value : 0.0f, sv);
#if VOXEL_AVX2
    if (fused) {
        joint_motion_fma(pl, *flags, value, sv, buf, 1);
        return;
    }
#endif
    (void)fused;
    joint_motion_plain(pl, *flags, value, sv, buf, 1);
}

/* Joint j's motion (12 numbers at x[e·xs]) and flags, from the batch or worked out in buf. */
static inline const double *joint_motion(const pose_job *job, uint32_t j, bool fused,
                                         double buf[MOTION_ROWS], size_t *xs, uint32_t *flags)
{
    if (job->motions != NULL) {
        *xs = job->mstride;
        *flags = job->flags[j];
        return &job->motions[j];
    }
    joint_motion_now(job, j, fused, buf, flags);
    *xs = 1;
    return buf;
}

/*
 * The portable kernel: world(part) = world(parent) · T(p) · J1' · … · Jn' · T(-p)
 * in plain double, m a 3x4 (translation in column 3), the parent's world read
 * back from its floats.
 */
static void pose_part_portable(const pose_job *job, uint32_t p)
{
    const mn_voxel_rig *rig = job->rig;
    const mn_voxel_part *part = &rig->parts[p];
    const double pv[3] = {part->pivot[0], part->pivot[1], part->pivot[2]};
    double m[4][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, 0}};
    if (part->parent < rig->part_count) {
        const float *w = &job->worlds[(size_t)part->parent * 16];
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 3; r++)
                m[c][r] = w[c * 4 + r];
    }
    for (int r = 0; r < 3; r++)   /* m = m · T(p) */
        m[3][r] += m[0][r] * pv[0] + m[1][r] * pv[1] + m[2][r] * pv[2];
    for (uint32_t q = 0; q < part->joint_count; q++) {
        uint32_t j = part->joints[q];
        if (j >= rig->joint_count)
            continue;
        double buf[MOTION_ROWS];
        size_t xs;
        uint32_t flags;
        const double *x = joint_motion(job, j, false, buf, &xs, &flags);
        if (flags & VOXEL_PLAN_MOVES)   /* m = m · T(d) */
            for (int r = 0; r < 3; r++)
                m[3][r] += m[0][r] * x[9 * xs] + m[1][r] * x[10 * xs] + m[2][r] * x[11 * xs];
        if (!(flags & VOXEL_PLAN_TURNS))
            continue;
        double n[3][3];   /* m = m · R */
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++)
                n[c][r] = m[0][r] * x[(3 * c) * xs] + m[1][r] * x[(3 * c + 1) * xs] +
                          m[2][r] * x[(3 * c + 2) * xs];
        memcpy(m, n, sizeof n);
    }
    for (int r = 0; r < 3; r++)   /* m = m · T(-p) */
        m[3][r] -= m[0][r] * pv[0] + m[1][r] * pv[1] + m[2][r] * pv[2];
    float *out = &job->worlds[(size_t)p * 16];
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 3; r++)
            out[c * 4 + r] = (float)m[c][r];
        out[c * 4 + 3] = c == 3 ? 1.0f : 0.0f;
    }
}

#if VOXEL_AVX2
/* s0·x[0] + s1·x[xs] + s2·x[2·xs], the x broadcast from memory: one column of a product. */
AVX2_FMA static inline __m256d combine3(__m256d s0, __m256d s1, __m256d s2, const double *x,
                                        size_t xs)
{
    __m256d acc = _mm256_mul_pd(s0, _mm256_broadcast_sd(&x[0]));
    acc = _mm256_fmadd_pd(s1, _mm256_broadcast_sd(&x[xs]), acc);
    return _mm256_fmadd_pd(s2, _mm256_broadcast_sd(&x[2 * xs]), acc);
}

/*
 * pose_part_portable with a column of m in a register (the 4th lane the w row) and FMA.
 * `batched`: every motion is in job->motions (the usual case), so the loop holds no call
 * and keeps its registers; else a motion may be worked out on the way (joint_motion).
 */
AVX2_FMA static inline __attribute__((always_inline)) void pose_part_avx2_with(const pose_job *job, uint32_t p,
                                                                              bool batched)
{
    const mn_voxel_rig *rig = job->rig;
    const mn_voxel_part *part = &rig->parts[p];
    __m256d m0 = _mm256_setr_pd(1, 0, 0, 0), m1 = _mm256_setr_pd(0, 1, 0, 0);
    __m256d m2 = _mm256_setr_pd(0, 0, 1, 0), mt = _mm256_setr_pd(0, 0, 0, 1);
    if (part->parent < rig->part_count) {   /* the parent's w row is 0 0 0 1 */
        const float *w = &job->worlds[(size_t)part->parent * 16];
        m0 = _mm256_cvtps_pd(_mm_loadu_ps(&w[0]));
        m1 = _mm256_cvtps_pd(_mm_loadu_ps(&w[4]));
        m2 = _mm256_cvtps_pd(_mm_loadu_ps(&w[8]));
        mt = _mm256_cvtps_pd(_mm_loadu_ps(&w[12]));
    }
    const __m256d p0 = _mm256_set1_pd(part->pivot[0]), p1 = _mm256_set1_pd(part->pivot[1]);
    const __m256d p2 = _mm256_set1_pd(part->pivot[2]);
    mt = _mm256_fmadd_pd(m0, p0, mt);   /* m = m · T(p) */
    mt = _mm256_fmadd_pd(m1, p1, mt);
    mt = _mm256_fmadd_pd(m2, p2, mt);
    for (uint32_t q = 0; q < part->joint_count; q++) {
        uint32_t j = part->joints[q];
        if (j >= rig->joint_count)
            continue;
        double buf[MOTION_ROWS];
        size_t xs = job->mstride;
        uint32_t flags;
        const double *x;
        if (batched) {
            x = &job->motions[j];
            flags = job->flags[j];
        } else {
            x = joint_motion(job, j, true, buf, &xs, &flags);
        }
        if (flags & VOXEL_PLAN_MOVES) {   /* m = m · T(d) */
            mt = _mm256_fmadd_pd(m0, _mm256_broadcast_sd(&x[9 * xs]), mt);
            mt = _mm256_fmadd_pd(m1, _mm256_broadcast_sd(&x[10 * xs]), mt);
            mt = _mm256_fmadd_pd(m2, _mm256_broadcast_sd(&x[11 * xs]), mt);
        }
        if (flags & VOXEL_PLAN_TURNS) {   /* m = m · R */
            __m256d n0 = combine3(m0, m1, m2, &x[0], xs);
            __m256d n1 = combine3(m0, m1, m2, &x[3 * xs], xs);
            m2 = combine3(m0, m1, m2, &x[6 * xs], xs);
            m0 = n0, m1 = n1;
        }
    }
    mt = _mm256_fnmadd_pd(m0, p0, mt);   /* m = m · T(-p) */
    mt = _mm256_fnmadd_pd(m1, p1, mt);
    mt = _mm256_fnmadd_pd(m2, p2, mt);
    float *out = &job->worlds[(size_t)p * 16];
    _mm_storeu_ps(&out[0], _mm256_cvtpd_ps(m0));
    _mm_storeu_ps(&out[4], _mm256_cvtpd_ps(m1));
    _mm_storeu_ps(&out[8], _mm256_cvtpd_ps(m2));
    _mm_storeu_ps(&out[12], _mm256_cvtpd_ps(mt));
}

AVX2_FMA static void pose_part_avx2(const pose_job *job, uint32_t p)
{
    pose_part_avx2_with(job, p, false);
}

/* Every part in `order`, in one call (the kernel inlined; with the motions batched, no call in it). */
AVX2_FMA static void pose_parts_avx2(const pose_job *job, const uint32_t *order, uint32_t count)
{
    if (job->motions != NULL) {
        for (uint32_t k = 0; k < count; k++)
            if (order[k] < job->rig->part_count)
                pose_part_avx2_with(job, order[k], true);
        return;
    }
    for (uint32_t k = 0; k < count; k++)
        if (order[k] < job->rig->part_count)
            pose_part_avx2_with(job, order[k], false);
}
#endif

typedef void (*pose_part_fn)(const pose_job *job, uint32_t p);

/*
 * Parents first without a precomputed order (a rig built by hand with
 * part_order NULL): passes over the parts, each posing the parts whose parent
 * is done, a world's w entry (1 once written) marking it done.  O(parts ×
 * depth); a cycle makes a pass with no progress.
 */
static mn_status pose_unordered(const pose_job *job, pose_part_fn pose_part)
{
    const mn_voxel_rig *rig = job->rig;
    float *worlds = job->worlds;
    for (uint32_t p = 0; p < rig->part_count; p++)
        worlds[(size_t)p * 16 + 15] = 0.0f;
    uint32_t done = 0;
    while (done < rig->part_count) {
        uint32_t before = done;
        for (uint32_t p = 0; p < rig->part_count; p++) {
            uint32_t parent = rig->parts[p].parent;
            if (worlds[(size_t)p * 16 + 15] == 1.0f)
                continue;
            if (parent < rig->part_count && worlds[(size_t)parent * 16 + 15] != 1.0f)
                continue;
            pose_part(job, p);
            done++;
        }
        if (done == before)
            return MN_HIERARCHY;
    }
    return MN_OK;
}

/*
 * Every joint's motion into the table (rows of job->mstride): four at a time
 * from a read rig's plan with AVX2, else joint by joint (a group the batch
 * left, an angle beyond the polynomial's reach, goes joint by joint too).
 */
static void batch_motions(pose_job *job, double *table, uint8_t *flags, bool fused)
{
    const mn_voxel_rig *rig = job->rig;
    uint64_t left = ~(uint64_t)0;   /* groups of four still to do */
#if VOXEL_AVX2
    const voxel_pose_plan *plan = job->plan;
    if (fused && plan != NULL)
        left = joint_motions_avx2(plan->rows, plan->stride, plan->flags, job->values,
                                  plan->joint_count, table, job->mstride);
    else if (fused)
        left = joint_motions_unplanned_avx2(rig, job->values, table, job->mstride, flags);
#endif
    for (uint32_t j = 0; j < rig->joint_count; j++) {
        if (!(left >> ((j / 4) % 64) & 1u))
            continue;
        double buf[MOTION_ROWS];
        uint32_t f;
        joint_motion_now(job, j, fused, buf, &f);
        flags[j] = (uint8_t)f;
        for (int e = 0; e < MOTION_ROWS; e++)
            table[(size_t)e * job->mstride + j] = buf[e];
    }
}

mn_status mni_voxel_pose_at(const mn_voxel_rig *rig, const mn_voxel_pose_input *input,
                        float *out_worlds, float *out_values, mn_simd_level level)
{
    if (rig == NULL || out_worlds == NULL || (rig->part_count > 0 && rig->parts == NULL) ||
        (rig->joint_count > 0 && rig->joints == NULL))
        return MN_INVALID_ARGUMENT;
    if (input != NULL && input->animation_count > 0 && input->animations == NULL)
        return MN_INVALID_ARGUMENT;
    for (uint32_t a = 0; input != NULL && a < input->animation_count; a++)
        if (input->animations[a] >= rig->animation_count)
            return MN_INDEX_RANGE;

    bool fused = false;
#if VOXEL_AVX2
    fused = mni_simd_resolve(level) == MN_SIMD_AVX2_FMA;
#endif
    (void)level;
    float stack_values[VALUES_ON_STACK];
    float *values = out_values;
    if (values == NULL && rig->joint_count <= VALUES_ON_STACK)
        values = stack_values;
    pose_job job = {rig, input, values, mni_voxel_rig_pose_plan(rig), NULL, 0, NULL, out_worlds};
    _Alignas(32) double motions[MOTION_ROWS * MOTIONS_ON_STACK];
    uint8_t flags[MOTIONS_ON_STACK];
    if (values != NULL) {
        resolve_values(rig, input, values, job.plan, fused);
        if (rig->joint_count <= MOTIONS_ON_STACK) {
            job.mstride = (rig->joint_count + 3u) & ~(size_t)3u;
            job.flags = job.plan != NULL ? job.plan->flags : flags;
            batch_motions(&job, motions, flags, fused);
            job.motions = motions;
        }
    }

    pose_part_fn pose_part = pose_part_portable;
#if VOXEL_AVX2
    if (fused)
        pose_part = pose_part_avx2;
#endif
    if (rig->part_order == NULL)
        return pose_unordered(&job, pose_part);
    /* By depth where the reader worked that out: neighbours are then seldom parent and child. */
    const uint32_t *order = mni_voxel_rig_level_order(rig);
    order = order != NULL ? order : rig->part_order;
#if VOXEL_AVX2
    if (fused) {
        pose_parts_avx2(&job, order, rig->part_count);
        return MN_OK;
    }
#endif
    for (uint32_t k = 0; k < rig->part_count; k++)
        if (order[k] < rig->part_count)
            pose_part(&job, order[k]);
    return MN_OK;
}

mn_status mn_voxel_pose(const mn_voxel_rig *rig, const mn_voxel_pose_input *input,
                        float *out_worlds, float *out_values)
{
    return mni_voxel_pose_at(rig, input, out_worlds, out_values, MN_SIMD_BEST);
}

/* ---- skinned voxel meshes ---------------------------------------------------------- */

/* A bone's part by a plain scan: works on a rig built by hand (no name tables). */
static uint32_t part_named(const mn_voxel_rig *rig, const char *name)
{
    if (name == NULL)
        return MN_NONE;
    for (uint32_t p = 0; p < rig->part_count; p++)
        if (rig->parts[p].name != NULL && strcmp(rig->parts[p].name, name) == 0)
            return p;
    return MN_NONE;
}

/* out = a · b for column-major 4x4 float matrices, in double, rounded once. */
static void mat4_mul_double(float out[16], const double a[16], const float b[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            out[c * 4 + r] = (float)(a[r] * b[c * 4] + a[4 + r] * b[c * 4 + 1] +
                                     a[8 + r] * b[c * 4 + 2] + a[12 + r] * b[c * 4 + 3]);
}

void mn_voxel_skinning_matrices(const mn_voxel_rig *rig, const mn_part_mesh *mesh,
                                const uint32_t *part_of_bone, const float *part_worlds,
                                float *out)
{
    if (rig == NULL || mesh == NULL || part_worlds == NULL || out == NULL)
        return;
    for (uint32_t b = 0; b < mesh->bone_count; b++) {
        float *m = &out[(size_t)b * 16];
        uint32_t p = part_of_bone != NULL
                         ? part_of_bone[b]
                         : part_named(rig, mesh->bone_names != NULL ? mesh->bone_names[b] : NULL);
        if (p >= rig->part_count || mesh->inverse_bind == NULL) {
            /* No part: the bone holds its bind pose, which is the identity palette entry. */
            memset(m, 0, 16 * sizeof *m);
            m[0] = m[5] = m[10] = m[15] = 1.0f;
            continue;
        }
        /* The bone's posed world, part_world · T(pivot), then × its inverse bind. */
        const float *w = &part_worlds[(size_t)p * 16];
        const float *pivot = rig->parts[p].pivot;
        double bone[16];
        for (int i = 0; i < 16; i++)
            bone[i] = w[i];
        for (int r = 0; r < 4; r++)
            bone[12 + r] += bone[r] * pivot[0] + bone[4 + r] * pivot[1] + bone[8 + r] * pivot[2];
        mat4_mul_double(m, bone, &mesh->inverse_bind[(size_t)b * 16]);
    }
}
