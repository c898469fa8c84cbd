/*
 * Posing a voxel rig (shared/spec/voxel-rig-format.md, "Posing"):
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
 * Every product is an affine map, and a part's joints all turn about its
 * pivot, so a part is composed in its pivot's frame (see "composing in the
 * pivot's frame"): one 3x3 product a rotation joint, in double (SSE2
 * registers where there are some; a scalar path of the same operations
 * otherwise), and only the world matrices are stored, as float.  The joints'
 * sines and cosines are all taken first, in one batch, in double, without
 * a library call ("sines and cosines").
 *
 * What a rig read from rig.json brings along is used where present, and
 * worked out on the fly where not (a rig built by hand), to the same
 * numbers: each curve's resolved Bézier segments (mn_voxel_animation.resolved)
 * and each mount's matrix (mn_voxel_joint.mount_affine).  Overlaid
 * animations are sampled last to first, each joint only by the animation
 * that wins it, so a joint two animations drive costs one curve.
 *
 * Nothing here allocates: joint values live in
 * out_values when the caller gives it, else in a stack array of
 * VALUES_ON_STACK floats, and a rig with more joints than that (and no
 * out_values) resolves each joint's value where it is used, by scanning the
 * animations' tracks — the same numbers, found more slowly.  Likewise the
 * sines and cosines of up to TRIG_ON_STACK joints are kept on the stack,
 * and a bigger rig's are taken joint by joint: the same bits.
 */
#include <marionette/voxel_rig.h>

#include <math.h>
#include <string.h>

/* SSE2 (every x86-64) for the composing and the sines; MN_NO_SIMD builds the scalar path. */
#if defined(__SSE2__) && !defined(MN_NO_SIMD)
#define VOXEL_SSE2 1
#include <emmintrin.h>
#else
#define VOXEL_SSE2 0
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

/* ---- composing in the pivot's frame -------------------------------------------- */

/*
 * A part's joints all turn about its pivot p, and a mount conjugated by
 * T(p) is simply T(offset)·R(orient):
 *     T(-p) · Mount · T(p) = T(offset) · R(orient)
 *     T(-p) · Driven · T(p) = R(axis, value)  or  T(axis · value)
 * so world(parent) · J1 · … · Jn = world(parent) · T(p) · J1' · … · Jn' · T(-p),
 * each J' a bare rotation or translation: the pivot is applied twice a part
 * instead of twice a joint, and a joint costs one 3x3 product (rotation) or
 * one matrix-vector product (translation).
 *
 * The running product is a `frame`: rotation columns and translation in
 * double, held in SSE2 registers where there are some (built with MN_NO_SIMD
 * or elsewhere, plain doubles through the same operations in the same order:
 * the same bits).
 */
#if VOXEL_SSE2

/* Column c as two registers: rows 0-1 in xy[c], row 2 (and a 0) in z[c]. */
typedef struct frame {
    __m128d xy[4], z[4];
} frame;

/* sum of columns 0..2 weighted by w0, w1, w2: ((c0·w0 + c1·w1) + c2·w2), as the scalar path. */
#define FRAME_COMBINE(half, f, w0, w1, w2)                                                    \
    _mm_add_pd(_mm_add_pd(_mm_mul_pd((f)->half[0], w0), _mm_mul_pd((f)->half[1], w1)),         \
               _mm_mul_pd((f)->half[2], w2))

/* f = f · [r | 0], r a column-major 3x3. */
static inline void frame_rotate(frame *f, const double r[9])
{
    __m128d nxy[3], nz[3];
    for (int j = 0; j < 3; j++) {
        __m128d w0 = _mm_set1_pd(r[j * 3]), w1 = _mm_set1_pd(r[j * 3 + 1]);
        __m128d w2 = _mm_set1_pd(r[j * 3 + 2]);
        nxy[j] = FRAME_COMBINE(xy, f, w0, w1, w2);
        nz[j] = FRAME_COMBINE(z, f, w0, w1, w2);
    }
    for (int j = 0; j < 3; j++)
        f->xy[j] = nxy[j], f->z[j] = nz[j];
}

/* f = f · T(d): only the translation moves, by f's rotation applied to d. */
static inline void frame_translate(frame *f, double d0, double d1, double d2)
{
    __m128d w0 = _mm_set1_pd(d0), w1 = _mm_set1_pd(d1), w2 = _mm_set1_pd(d2);
    f->xy[3] = _mm_add_pd(f->xy[3], FRAME_COMBINE(xy, f, w0, w1, w2));
    f->z[3] = _mm_add_pd(f->z[3], FRAME_COMBINE(z, f, w0, w1, w2));
}

/* A float[16] column-major world (last row 0 0 0 1) as a frame. */
static inline void frame_load(frame *f, const float w[16])
{
    for (int c = 0; c < 4; c++) {
        f->xy[c] = _mm_cvtps_pd(_mm_loadu_ps(&w[c * 4]));   /* rows 0 and 1 */
        f->z[c] = _mm_cvtss_sd(_mm_setzero_pd(), _mm_load_ss(&w[c * 4 + 2]));
    }
}

static inline void frame_identity(frame *f)
{
    for (int c = 0; c < 4; c++)
        f->xy[c] = f->z[c] = _mm_setzero_pd();
    f->xy[0] = _mm_set_sd(1.0);
    f->xy[1] = _mm_set_pd(1.0, 0.0);
    f->z[2] = _mm_set_sd(1.0);
}

/* The frame as a float[16] world, last row 0 0 0 1. */
static inline void frame_store(float out[16], const frame *f)
{
    for (int c = 0; c < 4; c++) {
        __m128d zw = _mm_move_sd(_mm_set_pd(c == 3 ? 1.0 : 0.0, 0.0), f->z[c]);
        _mm_storeu_ps(&out[c * 4], _mm_movelh_ps(_mm_cvtpd_ps(f->xy[c]), _mm_cvtpd_ps(zw)));
    }
}

#else   /* the scalar path: the same operations in the same order, so the same bits */

typedef struct frame {
    double c[4][3];
} frame;

static inline void frame_rotate(frame *f, const double r[9])
{
    double n[3][3];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            n[j][i] = f->c[0][i] * r[j * 3] + f->c[1][i] * r[j * 3 + 1] + f->c[2][i] * r[j * 3 + 2];
    memcpy(f->c, n, sizeof n);
}

static inline void frame_translate(frame *f, double d0, double d1, double d2)
{
    for (int i = 0; i < 3; i++)
        f->c[3][i] += f->c[0][i] * d0 + f->c[1][i] * d1 + f->c[2][i] * d2;
}

static inline void frame_load(frame *f, const float w[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 3; r++)
            f->c[c][r] = w[c * 4 + r];
}

static inline void frame_identity(frame *f)
{
    memset(f, 0, sizeof *f);
    f->c[0][0] = f->c[1][1] = f->c[2][2] = 1.0;
}

static inline void frame_store(float out[16], const frame *f)
{
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 3; r++)
            out[c * 4 + r] = (float)f->c[c][r];
        out[c * 4 + 3] = c == 3 ? 1.0f : 0.0f;
    }
}
#endif

/* ---- sines and cosines ------------------------------------------------------------ */

/*
 * sin and cos of joint angles, in double, with no library call.  They are
 * all taken in one pass before composing (sin_cos_all), two joints at a time
 * in SSE2 registers where there are some: the pass has no dependencies
 * between joints, and the composing loop then has no call in it (a call
 * makes the compiler spill the running matrix).  The angle is reduced by the
 * nearest multiple k of pi/2 (pi/2 split in two so k·PIO2_HI is exact), then
 * Taylor series to the 13th / 14th power on |r| <= pi/4: truncation below
 * 3e-14, far closer than the float sinf/cosf used before, and far inside
 * the spec's 1e-4 voxel.  The quadrant is picked with masks, not branches
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

/* Joints whose sines and cosines are kept on the stack (8 KiB); more are worked out in place. */
#define TRIG_ON_STACK 512u

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

static inline void sin_cos(float angle, double out[2])
{
    double x = angle;
    if (fabs(x) <= TRIG_FAST) {
        sin_cos_reduced(x, out);
    } else {
        out[0] = sin(x);
        out[1] = cos(x);
    }
}

#if VOXEL_SSE2
/* sin_cos_reduced on two angles at once: lane i of *s, *c is sin, cos of lane i of x. */
static inline void sin_cos_reduced2(__m128d x, __m128d *s, __m128d *c)
{
    const __m128d magic = _mm_set1_pd(ROUND_MAGIC);
    __m128d k = _mm_sub_pd(_mm_add_pd(_mm_mul_pd(x, _mm_set1_pd(TWO_OVER_PI)), magic), magic);
    __m128d r = _mm_sub_pd(_mm_sub_pd(x, _mm_mul_pd(k, _mm_set1_pd(PIO2_HI))),
                           _mm_mul_pd(k, _mm_set1_pd(PIO2_LO)));
    __m128d z = _mm_mul_pd(r, r);
    __m128d ps = _mm_set1_pd(SIN_P5), qc = _mm_set1_pd(COS_Q6);
#define HORNER_STEP(acc, coef) acc = _mm_add_pd(_mm_mul_pd(acc, z), _mm_set1_pd(coef))
    HORNER_STEP(ps, SIN_P4), HORNER_STEP(qc, COS_Q5);
    HORNER_STEP(ps, SIN_P3), HORNER_STEP(qc, COS_Q4);
    HORNER_STEP(ps, SIN_P2), HORNER_STEP(qc, COS_Q3);
    HORNER_STEP(ps, SIN_P1), HORNER_STEP(qc, COS_Q2);
    HORNER_STEP(ps, SIN_P0), HORNER_STEP(qc, COS_Q1);
    HORNER_STEP(qc, COS_Q0);
#undef HORNER_STEP
    __m128d sr = _mm_add_pd(r, _mm_mul_pd(_mm_mul_pd(r, z), ps));
    __m128d cr = _mm_add_pd(_mm_set1_pd(1.0), _mm_mul_pd(z, qc));
    /* Each lane's k as an int32 twice over, so 32-bit masks fill the 64-bit lane. */
    __m128i q = _mm_shuffle_epi32(_mm_cvttpd_epi32(k), _MM_SHUFFLE(1, 1, 0, 0));
    __m128i one = _mm_set1_epi32(1), two = _mm_set1_epi32(2);
    __m128d odd = _mm_castsi128_pd(_mm_cmpeq_epi32(_mm_and_si128(q, one), one));
    __m128d sin_neg = _mm_castsi128_pd(_mm_slli_epi64(_mm_and_si128(q, two), 62));
    __m128d cos_neg = _mm_castsi128_pd(
        _mm_slli_epi64(_mm_and_si128(_mm_add_epi32(q, one), two), 62));
    __m128d a = _mm_or_pd(_mm_and_pd(odd, cr), _mm_andnot_pd(odd, sr));
    __m128d b = _mm_or_pd(_mm_and_pd(odd, sr), _mm_andnot_pd(odd, cr));
    *s = _mm_xor_pd(a, sin_neg);
    *c = _mm_xor_pd(b, cos_neg);
}
#endif

/* trig[2j], trig[2j + 1] = sin, cos of values[j], every joint (cheaper than telling them apart). */
static void sin_cos_all(const float *values, uint32_t count, double *trig)
{
    bool slow = false;
    uint32_t j = 0;
#if VOXEL_SSE2
    const __m128d fast = _mm_set1_pd(TRIG_FAST);
    const __m128d abs_mask = _mm_castsi128_pd(_mm_set1_epi64x(INT64_MAX));
    for (; j + 2 <= count; j += 2) {
        __m128i two = _mm_loadl_epi64((const __m128i *)(const void *)&values[j]);
        __m128d x = _mm_cvtps_pd(_mm_castsi128_ps(two));
        __m128d ok = _mm_cmple_pd(_mm_and_pd(x, abs_mask), fast);   /* false for NaN */
        slow |= _mm_movemask_pd(ok) != 3;
        __m128d s, c;
        sin_cos_reduced2(_mm_and_pd(ok, x), &s, &c);
        _mm_storeu_pd(&trig[(size_t)j * 2], _mm_unpacklo_pd(s, c));
        _mm_storeu_pd(&trig[(size_t)j * 2 + 2], _mm_unpackhi_pd(s, c));
    }
#endif
    for (; j < count; j++) {
        double x = values[j];
        slow |= !(fabs(x) <= TRIG_FAST);
        sin_cos_reduced(fabs(x) <= TRIG_FAST ? x : 0.0, &trig[(size_t)j * 2]);
    }
    for (j = 0; slow && j < count; j++)
        if (!(fabs((double)values[j]) <= TRIG_FAST))
            sin_cos(values[j], &trig[(size_t)j * 2]);
}

/* R(axis, angle) from sc = {sin, cos}, column-major: right-handed, three.js makeRotationAxis. */
static inline void rotation_axis(double r[9], const float axis[3], const double sc[2])
{
    double x = axis[0], y = axis[1], z = axis[2];
    double s = sc[0], c = sc[1], t = 1.0 - c;
    double tx = t * x, ty = t * y, tz = t * z;
    r[0] = tx * x + c;     r[3] = tx * y - s * z; r[6] = tx * z + s * y;
    r[1] = tx * y + s * z; r[4] = ty * y + c;     r[7] = ty * z - s * x;
    r[2] = tx * z - s * y; r[5] = ty * z + s * x; r[8] = tz * z + c;
}

/*
 * f = f · J' for one joint at a (clamped) value, J' its Mount · Driven in the
 * pivot's frame; sc the value's {sin, cos} (rotation joints).  The mount's
 * rotation comes from the joint's mount_affine when the reader left one (its
 * rotation block is R(orient)), else it is worked out here by the same
 * function, so both give the same bits.
 */
static inline void compose_joint(frame *f, const mn_voxel_joint *joint, float value,
                                 const double sc[2])
{
    if (joint->has_mount) {
        affine mount;
        if (joint->mount_affine != NULL)
            memcpy(mount.m, joint->mount_affine, 9 * sizeof mount.m[0]);
        else
            rotation_euler_xyz(&mount, joint->orient);
        frame_translate(f, joint->offset[0], joint->offset[1], joint->offset[2]);
        frame_rotate(f, mount.m);
    }
    if (joint->type == MN_VOXEL_ROTATION) {
        double r[9];
        rotation_axis(r, joint->axis, sc);
        frame_rotate(f, r);
    } else {
        double v = value;
        frame_translate(f, joint->axis[0] * v, joint->axis[1] * v, joint->axis[2] * v);
    }
}

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

/* Track k's curve of an animation at t, with its resolved record when the reader left one. */
static inline double sample_track(const mn_voxel_animation *anim, uint32_t k, double t_ms)
{
    const double *resolved = anim->resolved != NULL ? anim->resolved[k] : NULL;
    return mn_fcurve_sample_resolved(&anim->tracks[k].curve, resolved, t_ms);
}

void mn_voxel_sample_animation(const mn_voxel_rig *rig, uint32_t animation, double t_ms,
                               float *values)
{
    if (rig == NULL || values == NULL || animation >= rig->animation_count)
        return;
    const mn_voxel_animation *anim = &rig->animations[animation];
    for (uint32_t k = 0; k < anim->track_count; k++) {
        uint32_t j = anim->tracks[k].joint;
        if (j < rig->joint_count)
            values[j] = (float)sample_track(anim, k, t_ms);
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
        const mn_voxel_animation *anim = &rig->animations[in->animations[a]];
        for (uint32_t k = anim->track_count; k-- > 0;) {
            uint32_t j = anim->tracks[k].joint;
            if (j >= rig->joint_count)
                continue;
            uint64_t bit = (uint64_t)1 << (j % 64u);
            if (claimed[j / 64u] & bit)
                continue;
            claimed[j / 64u] |= bit;
            values[j] = (float)sample_track(anim, k, in->time_ms);
        }
    }
}

/* Every joint's final value into values: caller or rest, animations overlaid in order, clamped. */
static void resolve_values(const mn_voxel_rig *rig, const mn_voxel_pose_input *in, float *values)
{
    const float *caller = in != NULL ? in->caller : NULL;
    for (uint32_t j = 0; j < rig->joint_count; j++)
        values[j] = caller_or_rest(rig, caller, j);
    if (in != NULL)
        overlay_animations(rig, in, values);
    for (uint32_t j = 0; j < rig->joint_count; j++)
        values[j] = clampf(values[j], rig->joints[j].min, rig->joints[j].max);
}

/* Joint j's final value found without a value array: the last animation that drives it wins. */
static float resolve_one(const mn_voxel_rig *rig, const mn_voxel_pose_input *in, uint32_t j)
{
    const mn_voxel_joint *joint = &rig->joints[j];
    for (uint32_t a = in != NULL ? in->animation_count : 0; a-- > 0;) {
        const mn_voxel_animation *anim = &rig->animations[in->animations[a]];
        for (uint32_t k = anim->track_count; k-- > 0;)
            if (anim->tracks[k].joint == j)
                return clampf((float)sample_track(anim, k, in->time_ms), joint->min, joint->max);
    }
    return clampf(caller_or_rest(rig, in != NULL ? in->caller : NULL, j), joint->min, joint->max);
}

/* ---- composing the parts -------------------------------------------------------- */

/* One pose in progress: what every part needs. */
typedef struct pose_job {
    const mn_voxel_rig *rig;
    const mn_voxel_pose_input *in;
    const float *values;        /* every joint's final value, or NULL: resolve_one */
    const double *trig;         /* {sin, cos} of every value, or NULL: worked out per joint */
    float *worlds;
} pose_job;

/* world(part) from its parent's (already written) world and its joints. */
static void pose_part(const pose_job *job, uint32_t p)
{
    const mn_voxel_rig *rig = job->rig;
    const mn_voxel_part *part = &rig->parts[p];
    frame f;
    if (part->parent < rig->part_count)
        frame_load(&f, &job->worlds[(size_t)part->parent * 16]);
    else
        frame_identity(&f);
    double p0 = part->pivot[0], p1 = part->pivot[1], p2 = part->pivot[2];
    frame_translate(&f, p0, p1, p2);
    for (uint32_t k = 0; k < part->joint_count; k++) {
        uint32_t j = part->joints[k];
        if (j >= rig->joint_count)
            continue;
        float v = job->values != NULL ? job->values[j] : resolve_one(rig, job->in, j);
        double sc[2];
        if (job->trig != NULL)
            sc[0] = job->trig[(size_t)j * 2], sc[1] = job->trig[(size_t)j * 2 + 1];
        else
            sin_cos(v, sc);
        compose_joint(&f, &rig->joints[j], v, sc);
    }
    frame_translate(&f, -p0, -p1, -p2);
    frame_store(&job->worlds[(size_t)p * 16], &f);
}

/*
 * Parents first without a precomputed order (a rig built by hand with
 * part_order NULL): passes over the parts, each posing the parts whose parent
 * is done, a world's w entry (1 once written) marking it done.  O(parts ×
 * depth); a cycle makes a pass with no progress.
 */
static mn_status pose_unordered(const pose_job *job)
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

mn_status mn_voxel_pose(const mn_voxel_rig *rig, const mn_voxel_pose_input *input,
                        float *out_worlds, float *out_values)
{
    if (rig == NULL || out_worlds == NULL || (rig->part_count > 0 && rig->parts == NULL) ||
        (rig->joint_count > 0 && rig->joints == NULL))
        return MN_INVALID_ARGUMENT;
    if (input != NULL && input->animation_count > 0 && input->animations == NULL)
        return MN_INVALID_ARGUMENT;
    for (uint32_t a = 0; input != NULL && a < input->animation_count; a++)
        if (input->animations[a] >= rig->animation_count)
            return MN_INDEX_RANGE;

    float stack_values[VALUES_ON_STACK];
    float *values = out_values;
    if (values == NULL && rig->joint_count <= VALUES_ON_STACK)
        values = stack_values;
    double stack_trig[2 * TRIG_ON_STACK];
    pose_job job = {rig, input, values, NULL, out_worlds};
    if (values != NULL) {
        resolve_values(rig, input, values);
        if (rig->joint_count <= TRIG_ON_STACK) {
            sin_cos_all(values, rig->joint_count, stack_trig);
            job.trig = stack_trig;
        }
    }

    if (rig->part_order == NULL)
        return pose_unordered(&job);
    for (uint32_t k = 0; k < rig->part_count; k++)
        if (rig->part_order[k] < rig->part_count)
            pose_part(&job, rig->part_order[k]);
    return MN_OK;
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
