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
 * Every product is an affine map, so the work is done on 3x4 matrices
 * (rotation/scale block and translation) in double, and only the world
 * matrices are stored, as float.  Sines and cosines are taken in float
 * (cosf/sinf are cheaper: posing 60 joints took ~20% less time): the angles
 * are float already, and their error (~1e-7 relative) is far inside the
 * spec's 1e-4 voxel.
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
 * animations' tracks — the same numbers, found more slowly.
 */
#include <marionette/voxel_rig.h>

#include <math.h>
#include <string.h>

/* Joint values kept on the stack when the caller gives no out_values (4 KiB). */
#define VALUES_ON_STACK 1024u

/* An affine map: column-major 3x4, m[c*3 + r]; column 3 is the translation. */
typedef struct affine {
    double m[12];
} affine;

static const affine affine_identity = {{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}};

/* out = a · b (b first).  out must not alias a or b. */
static void affine_mul(affine *out, const affine *a, const affine *b)
{
    for (int c = 0; c < 4; c++) {
        const double *bc = &b->m[c * 3];
        for (int r = 0; r < 3; r++)
            out->m[c * 3 + r] = a->m[r] * bc[0] + a->m[3 + r] * bc[1] + a->m[6 + r] * bc[2];
    }
    out->m[9] += a->m[9];
    out->m[10] += a->m[10];
    out->m[11] += a->m[11];
}

/* A float[16] column-major world as an affine map (its last row is 0 0 0 1). */
static void affine_from_mat4(affine *out, const float m[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 3; r++)
            out->m[c * 3 + r] = (double)m[c * 4 + r];
}

static void affine_to_mat4(float out[16], const affine *a)
{
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 3; r++)
            out[c * 4 + r] = (float)a->m[c * 3 + r];
        out[c * 4 + 3] = c == 3 ? 1.0f : 0.0f;
    }
}

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

/* R(axis, angle): right-handed, three.js makeRotationAxis (axis taken as unit). */
static void rotation_axis(affine *out, const float axis[3], double angle)
{
    double x = axis[0], y = axis[1], z = axis[2];
    double c = cosf((float)angle), s = sinf((float)angle), t = 1.0 - c;
    double *m = out->m;
    m[0] = t * x * x + c;     m[3] = t * x * y - s * z; m[6] = t * x * z + s * y;
    m[1] = t * x * y + s * z; m[4] = t * y * y + c;     m[7] = t * y * z - s * x;
    m[2] = t * x * z - s * y; m[5] = t * y * z + s * x; m[8] = t * z * z + c;
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

/* Driven = T(pivot) · R(axis, value) · T(-pivot) of a rotation joint. */
static inline void driven_rotation(affine *out, const mn_voxel_joint *joint, const float pivot[3],
                                   double value)
{
    rotation_axis(out, joint->axis, value);
    about_pivot(out, pivot);
}

/*
 * out = world · Mount · Driven for one joint at a (clamped) value, on a part
 * with this pivot (out must not alias world).  Mount · Driven is formed
 * first, as the formula reads; the mount comes from the joint's
 * mount_affine when the reader left one.  A translation joint without a
 * mount only moves the translation column (world · T(d) = [W | W·d + w]:
 * the same sums a full product makes).
 */
static void compose_joint(affine *out, const affine *world, const mn_voxel_joint *joint,
                          const float pivot[3], double value)
{
    const double *w = world->m;
    if (!joint->has_mount && joint->type == MN_VOXEL_TRANSLATION) {
        double d[3] = {(double)joint->axis[0] * value, (double)joint->axis[1] * value,
                       (double)joint->axis[2] * value};
        for (int i = 0; i < 9; i++)
            out->m[i] = w[i];
        for (int r = 0; r < 3; r++)
            out->m[9 + r] = w[r] * d[0] + w[3 + r] * d[1] + w[6 + r] * d[2] + w[9 + r];
        return;
    }
    affine driven;
    if (joint->type == MN_VOXEL_ROTATION) {
        driven_rotation(&driven, joint, pivot, value);
    } else {
        driven = affine_identity;
        for (int r = 0; r < 3; r++)
            driven.m[9 + r] = (double)joint->axis[r] * value;
    }
    if (!joint->has_mount) {
        affine_mul(out, world, &driven);
        return;
    }
    affine mount, j;
    if (joint->mount_affine != NULL)
        memcpy(mount.m, joint->mount_affine, sizeof mount.m);
    else
        mount_matrix(&mount, joint, pivot);
    affine_mul(&j, &mount, &driven);
    affine_mul(out, world, &j);
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

/* world(part) from its parent's (already written) world and its joints. */
static void pose_part(const mn_voxel_rig *rig, const mn_voxel_pose_input *in,
                      const float *values, uint32_t p, float *out_worlds)
{
    const mn_voxel_part *part = &rig->parts[p];
    affine world[2];   /* the product so far and the next one, in turn: no copies */
    unsigned at = 0;
    world[0] = affine_identity;
    if (part->parent < rig->part_count)
        affine_from_mat4(&world[0], &out_worlds[(size_t)part->parent * 16]);
    for (uint32_t k = 0; k < part->joint_count; k++) {
        uint32_t j = part->joints[k];
        if (j >= rig->joint_count)
            continue;
        double v = values != NULL ? values[j] : resolve_one(rig, in, j);
        compose_joint(&world[at ^ 1u], &world[at], &rig->joints[j], part->pivot, v);
        at ^= 1u;
    }
    affine_to_mat4(&out_worlds[(size_t)p * 16], &world[at]);
}

/*
 * Parents first without a precomputed order (a rig built by hand with
 * part_order NULL): passes over the parts, each posing the parts whose parent
 * is done, a world's w entry (1 once written) marking it done.  O(parts ×
 * depth); a cycle makes a pass with no progress.
 */
static mn_status pose_unordered(const mn_voxel_rig *rig, const mn_voxel_pose_input *in,
                                const float *values, float *out_worlds)
{
    for (uint32_t p = 0; p < rig->part_count; p++)
        out_worlds[(size_t)p * 16 + 15] = 0.0f;
    uint32_t done = 0;
    while (done < rig->part_count) {
        uint32_t before = done;
        for (uint32_t p = 0; p < rig->part_count; p++) {
            uint32_t parent = rig->parts[p].parent;
            if (out_worlds[(size_t)p * 16 + 15] == 1.0f)
                continue;
            if (parent < rig->part_count && out_worlds[(size_t)parent * 16 + 15] != 1.0f)
                continue;
            pose_part(rig, in, values, p, out_worlds);
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
    if (values != NULL)
        resolve_values(rig, input, values);

    if (rig->part_order == NULL)
        return pose_unordered(rig, input, values, out_worlds);
    for (uint32_t k = 0; k < rig->part_count; k++)
        if (rig->part_order[k] < rig->part_count)
            pose_part(rig, input, values, rig->part_order[k], out_worlds);
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
