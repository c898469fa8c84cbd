/*
 * The voxel exporter's model (voxel/export.h says what it holds): nodes in
 * the part tree with their rest transforms, part meshes or the skinned mesh,
 * and every rig animation baked into LINEAR translation and rotation keys.
 *
 * Every transform comes from mn_voxel_pose's part worlds W, so the export
 * poses exactly as the runtime does.  A node's local transform is
 *     S · T(−pp) · W(parent)⁻¹ · W(part) · T(p) · S⁻¹
 * (p the part's pivot, pp its parent's, S the uniform scale), worked out in
 * double from the float worlds: W(parent)⁻¹ · W(part) is the part's own
 * joints J1..Jn, a rotation and translation, so only the translation scales.
 *
 * Baking samples at k/rate below the duration, the duration itself, every
 * key time and just before every constant-segment jump (see sample_times):
 * LINEAR keys then follow eased curves to within their curvature over one
 * sample interval, and steps stay steps.
 */
#include "voxel/export_internal.h"

#include <marionette/math.h>
#include <marionette/model_build.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- rigid transforms in double ----------------------------------------------------------- */

/* Column-major 3x4: m[c*3 + r], column 3 the translation. */
typedef struct rigid {
    double m[12];
} rigid;

static rigid rigid_from_world(const float w[16])
{
    rigid a;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 3; r++)
            a.m[c * 3 + r] = (double)w[c * 4 + r];
    return a;
}

/* inverse(a) · b for a rotation-and-translation a: Rᵀ · (b − t). */
static rigid rigid_inverse_mul(const rigid *a, const rigid *b)
{
    rigid out;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 3; r++) {
            double v = 0.0;
            for (int k = 0; k < 3; k++) {
                double bk = b->m[c * 3 + k] - (c == 3 ? a->m[9 + k] : 0.0);
                v += a->m[r * 3 + k] * bk;   /* Rᵀ[r][k] = R[k][r] = m[r*3 + k] */
            }
            out.m[c * 3 + r] = v;
        }
    return out;
}

/* The unit quaternion (x y z w) of a rotation block (Shepperd's method: the largest diagonal term). */
static void quat_from_rotation(const double *m, float q[4])
{
    double m00 = m[0], m10 = m[1], m20 = m[2], m01 = m[3], m11 = m[4], m21 = m[5], m02 = m[6], m12 = m[7],
           m22 = m[8];
    double trace = m00 + m11 + m22, x, y, z, w;
    if (trace > 0.0) {
        double s = sqrt(trace + 1.0) * 2.0;
        w = 0.25 * s, x = (m21 - m12) / s, y = (m02 - m20) / s, z = (m10 - m01) / s;
    } else if (m00 > m11 && m00 > m22) {
        double s = sqrt(1.0 + m00 - m11 - m22) * 2.0;
        w = (m21 - m12) / s, x = 0.25 * s, y = (m01 + m10) / s, z = (m02 + m20) / s;
    } else if (m11 > m22) {
        double s = sqrt(1.0 + m11 - m00 - m22) * 2.0;
        w = (m02 - m20) / s, x = (m01 + m10) / s, y = 0.25 * s, z = (m12 + m21) / s;
    } else {
        double s = sqrt(1.0 + m22 - m00 - m11) * 2.0;
        w = (m10 - m01) / s, x = (m02 + m20) / s, y = (m12 + m21) / s, z = 0.25 * s;
    }
    double len = sqrt(x * x + y * y + z * z + w * w);
    q[0] = (float)(x / len);
    q[1] = (float)(y / len);
    q[2] = (float)(z / len);
    q[3] = (float)(w / len);
}

/* ---- the export in progress ------------------------------------------------------------------- */

typedef struct exporter {
    const mn_voxel_rig *rig;
    const mn_part_mesh *const *part_meshes;
    const mn_part_mesh *mesh;
    mn_allocator allocator;
    double scale, rate;
    mn_model_builder *b;
    mn_error *err;
    double size;              /* the model's largest extent at rest, exported units (refinement's yardstick) */
    uint32_t material;        /* the shared vertex-colour material */
    float *worlds;            /* 16 × part_count scratch */
} exporter;

/* Temporary memory through the options' allocator (never 0 bytes). */
static void *temp_alloc(exporter *x, size_t count, size_t size)
{
    size_t bytes;
    if (!mni_checked_mul(count ? count : 1, size, &bytes))
        return NULL;
    return mni_alloc(&x->allocator, bytes);
}

static void temp_free(exporter *x, void *p, size_t count, size_t size)
{
    mni_free(&x->allocator, p, (count ? count : 1) * size);
}

/* Node `part`'s local translation (exported units) and rotation, from part worlds (16 floats a part). */
static void local_trs(const exporter *x, const float *worlds, uint32_t part, float t[3], float q[4])
{
    const mn_voxel_part *p = &x->rig->parts[part];
    rigid w = rigid_from_world(&worlds[16 * (size_t)part]);
    double pp[3] = {0, 0, 0};
    if (p->parent != MN_NONE) {
        rigid parent = rigid_from_world(&worlds[16 * (size_t)p->parent]);
        w = rigid_inverse_mul(&parent, &w);
        for (int k = 0; k < 3; k++)
            pp[k] = x->rig->parts[p->parent].pivot[k];
    }
    /* T(−pp) · M · T(p): the rotation stays, the translation becomes R·p + t − pp. */
    for (int r = 0; r < 3; r++) {
        double v = w.m[9 + r] - pp[r];
        for (int k = 0; k < 3; k++)
            v += w.m[k * 3 + r] * (double)p->pivot[k];
        t[r] = (float)(v * x->scale);
    }
    quat_from_rotation(w.m, q);
}

/* ---- nodes --------------------------------------------------------------------------------------- */

/* The node extras of a part: {"socket": true} and/or {"joints": [...]}; NULL when neither (or no memory). */
static char *part_extras(exporter *x, uint32_t part, bool socket, size_t *size)
{
    bool joints = mni_vx_part_has_caller_joints(x->rig, part);
    if (!socket && !joints)
        return NULL;
    for (int pass = 0; pass < 2; pass++) {
        char *out = pass ? temp_alloc(x, *size, 1) : NULL;
        if (pass && !out)
            return NULL;
        mn_vx_text t = {out, pass ? *size : 0, 0};
        mni_vx_put(&t, socket ? "{\"socket\": true" : "{");
        if (joints) {
            mni_vx_put(&t, socket ? ", \"joints\": [" : "\"joints\": [");
            bool first = true;
            for (uint32_t j = 0; j < x->rig->joint_count; j++) {
                const mn_voxel_joint *jt = &x->rig->joints[j];
                if (jt->part != part || jt->drive != MN_VOXEL_DRIVE_CALLER)
                    continue;
                mni_vx_put(&t, first ? "" : ", ");
                mni_vx_put_joint_entry(&t, x->rig, j, x->scale);
                first = false;
            }
            mni_vx_put(&t, "]");
        }
        mni_vx_put(&t, "}");
        *size = t.len + 1;
        if (pass)
            return out;
    }
    return NULL;
}

/* Node p for part p (rest transform, extras), then the parent links. */
static mn_status part_nodes(exporter *x, const bool *socket)
{
    const mn_voxel_rig *rig = x->rig;
    mn_status st = mn_voxel_pose(rig, NULL, x->worlds, NULL);
    if (st != MN_OK)
        return mni_error_set(x->err, st, "parts", -1, "the rig cannot be posed (its parts form a cycle)");
    for (uint32_t p = 0; p < rig->part_count; p++) {
        uint32_t node = mn_model_build_node(x->b, rig->parts[p].name, MN_NONE);
        float t[3], q[4];
        local_trs(x, x->worlds, p, t, q);
        mn_model_build_node_trs(x->b, node, t, q, NULL);
        size_t size = 0;
        char *extras = part_extras(x, p, socket[p], &size);
        if (!extras && (socket[p] || mni_vx_part_has_caller_joints(rig, p)))
            return mni_oom(x->err, NULL);
        mn_model_build_node_extras(x->b, node, extras);
        if (extras)
            temp_free(x, extras, size, 1);
    }
    for (uint32_t p = 0; p < rig->part_count; p++)
        if (rig->parts[p].parent != MN_NONE)
            mn_model_build_node_parent(x->b, p, rig->parts[p].parent);
    return MN_OK;
}

/* ---- meshes -------------------------------------------------------------------------------------- */

/* A mesh of `m`'s triangles: positions (v − origin) · S, normals, colours, and for skinned ones the influences. */
static uint32_t add_mesh(exporter *x, const char *name, const mn_part_mesh *m, const float origin[3], bool skinned)
{
    size_t n = (size_t)m->vertex_count * 3;
    float *pos = temp_alloc(x, n, sizeof *pos);
    if (!pos) {
        mni_oom(x->err, NULL);
        return MN_NONE;
    }
    for (size_t i = 0; i < n; i++)
        pos[i] = (float)(((double)m->positions[i] - (origin ? (double)origin[i % 3] : 0.0)) * x->scale);
    mn_build_attribute attrs[5];
    uint32_t count = 0;
    attrs[count++] = (mn_build_attribute){"POSITION", mn_model_build_accessor_f32(x->b, NULL, pos, m->vertex_count,
                                                                                  MN_TYPE_VEC3)};
    temp_free(x, pos, n, sizeof *pos);
    if (m->normals)
        attrs[count++] = (mn_build_attribute){"NORMAL", mn_model_build_accessor_f32(x->b, NULL, m->normals,
                                                                                    m->vertex_count, MN_TYPE_VEC3)};
    if (m->colors)
        attrs[count++] = (mn_build_attribute){"COLOR_0", mn_model_build_accessor_f32(x->b, NULL, m->colors,
                                                                                     m->vertex_count, MN_TYPE_VEC3)};
    if (skinned) {
        attrs[count++] = (mn_build_attribute){"JOINTS_0", mn_model_build_accessor_u16(x->b, NULL, m->joints,
                                                                                      m->vertex_count, MN_TYPE_VEC4)};
        attrs[count++] = (mn_build_attribute){"WEIGHTS_0", mn_model_build_accessor_f32(x->b, NULL, m->weights,
                                                                                       m->vertex_count, MN_TYPE_VEC4)};
    }
    uint32_t indices = mn_model_build_accessor_u32(x->b, NULL, m->indices, m->index_count, MN_TYPE_SCALAR);
    uint32_t mesh = mn_model_build_mesh(x->b, name);
    mn_model_build_primitive(x->b, mesh, MN_MODE_TRIANGLES, attrs, count, indices, x->material);
    return mesh;
}

static bool has_triangles(const mn_part_mesh *m)
{
    return m && m->vertex_count > 0 && m->index_count >= 3;
}

/* The one material every exported primitive uses: white, lit, coloured by COLOR_0. */
static void add_material(exporter *x)
{
    mn_material mat;
    mn_model_build_material_defaults(&mat);
    mat.name = "vertex_color";
    mat.metallic = 0.0f;
    x->material = mn_model_build_material(x->b, &mat);
}

/* ---- the skinned kinds ------------------------------------------------------------------------------ */

/* A node not named after any part (an extra root): "skeleton", or "skeleton_2", ... when a part has it. */
static void unique_name(const mn_voxel_rig *rig, const char *base, char *out, size_t size)
{
    snprintf(out, size, "%s", base);
    for (unsigned n = 2;; n++) {
        bool taken = false;
        for (uint32_t p = 0; p < rig->part_count && !taken; p++)
            taken = strcmp(rig->parts[p].name, out) == 0;
        if (!taken)
            return;
        snprintf(out, size, "%s_%u", base, n);
    }
}

/*
 * The skeleton over the part nodes: bones matched to parts by name, a node
 * of its own (holding its bind pose) for a bone with no part, an extra root
 * when the joints would have no common root, and the skinned mesh on a root
 * node of its own.
 */
static mn_status skinned_mesh(exporter *x)
{
    const mn_voxel_rig *rig = x->rig;
    const mn_part_mesh *m = x->mesh;
    uint32_t bones = m->bone_count;
    uint32_t *part_of = temp_alloc(x, bones, sizeof *part_of);
    uint32_t *joints = temp_alloc(x, bones, sizeof *joints);
    float *ibm = temp_alloc(x, (size_t)bones * 16, sizeof *ibm);
    mn_status st = MN_OK;
    if (!part_of || !joints || !ibm) {
        st = mni_oom(x->err, NULL);
        goto done;
    }
    for (uint32_t k = 0; k < bones; k++)
        part_of[k] = mn_voxel_rig_find_part(rig, m->bone_names[k]);
    uint32_t roots = 0, orphans = 0;
    for (uint32_t p = 0; p < rig->part_count; p++)
        roots += rig->parts[p].parent == MN_NONE;
    for (uint32_t k = 0; k < bones; k++)
        orphans += part_of[k] == MN_NONE;
    uint32_t top = MN_NONE;
    if (roots > 1 || orphans > 0) {
        char name[64];
        unique_name(rig, "skeleton", name, sizeof name);
        top = mn_model_build_node(x->b, name, MN_NONE);
        for (uint32_t p = 0; p < rig->part_count; p++)
            if (rig->parts[p].parent == MN_NONE)
                mn_model_build_node_parent(x->b, p, top);
    }
    for (uint32_t k = 0; k < bones; k++) {
        /* Exported skinning matrix: S · (runtime skinning matrix) · S⁻¹, so IBM' = S · IB · S⁻¹. */
        float *out = &ibm[16 * (size_t)k];
        memcpy(out, &m->inverse_bind[16 * (size_t)k], 16 * sizeof *out);
        for (int r = 0; r < 3; r++)
            out[12 + r] = (float)((double)out[12 + r] * x->scale);
        if (part_of[k] != MN_NONE) {
            joints[k] = part_of[k];
            continue;
        }
        /* No part: the node's world is the bind pose IBM'⁻¹, so its skinning matrix is the identity. */
        float bind[16], t[3], q[4], s[3];
        if (!mn_mat4_invert(bind, out) || !mn_mat4_decompose(bind, t, q, s) ||
            fabsf(s[0] - 1.0f) > 1e-4f || fabsf(s[1] - 1.0f) > 1e-4f || fabsf(s[2] - 1.0f) > 1e-4f) {
            st = mni_fail(x->err, MN_SKEW,
                          "bone \"%.64s\" matches no part and its inverse bind matrix is not a rotation and "
                          "translation, so no node can hold its bind pose",
                          m->bone_names[k]);
            goto done;
        }
        joints[k] = mn_model_build_node(x->b, m->bone_names[k], top);
        mn_model_build_node_trs(x->b, joints[k], t, q, NULL);
    }
    uint32_t skeleton = top;
    for (uint32_t p = 0; p < rig->part_count && skeleton == MN_NONE; p++)
        if (rig->parts[p].parent == MN_NONE)
            skeleton = p;   /* the one root part */
    uint32_t skin = mn_model_build_skin(x->b, "skin", joints, bones, ibm, skeleton);
    uint32_t mesh = add_mesh(x, "mesh", m, NULL, true);
    uint32_t node = mn_model_build_node(x->b, "mesh", MN_NONE);
    if (mesh != MN_NONE)
        mn_model_build_node_mesh(x->b, node, mesh, skin);
done:
    temp_free(x, part_of, bones, sizeof *part_of);
    temp_free(x, joints, bones, sizeof *joints);
    temp_free(x, ibm, (size_t)bones * 16, sizeof *ibm);
    return st;
}

/* ---- baked animations ------------------------------------------------------------------------------- */

/* A sample: the float key time written, and the milliseconds the rig is posed at. */
typedef struct sample {
    float t;
    double ms;
} sample;

static int sample_order(const void *a, const void *b)
{
    const sample *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->ms < y->ms ? 1 : x->ms > y->ms ? -1 : 0;   /* the later pose first: it survives dedup */
}

/* Where key time `ms` falls in the clip: folded into [0, D) for a loop; -1 outside [0, D] for a one-shot. */
static double key_position(const mn_voxel_animation *a, double ms)
{
    if (a->loop) {
        double r = fmod(ms, a->duration_ms);
        return r < 0.0 ? r + a->duration_ms : r;
    }
    return ms >= 0.0 && ms <= a->duration_ms ? ms : -1.0;
}

/* The largest float of seconds not after ms: a key's time never rounds past it, so a step's new value
   holds from the exact key time on, in any player. */
static float seconds_at_or_before(double ms)
{
    float t = (float)(ms / 1000.0);
    return (double)t * 1000.0 > ms ? nextafterf(t, -INFINITY) : t;
}

/* Add a key-time sample at ms, and, when `jump`, one just before it (the float below). */
static void add_key(sample *out, size_t *n, double ms, bool jump, double duration_ms)
{
    if (ms < 0.0)
        return;
    float t = seconds_at_or_before(ms);
    out[(*n)++] = (sample){t, ms};
    if (!jump)
        return;
    if (ms == 0.0) {   /* a loop's jump at its start is the one at its end */
        ms = duration_ms;
        t = seconds_at_or_before(ms);
    }
    float before = nextafterf(t, -INFINITY);
    if (before > 0.0f)
        out[(*n)++] = (sample){before, (double)before * 1000.0};
}

/* Upper bound of the samples of animation a (for the array). */
static size_t sample_bound(const exporter *x, const mn_voxel_animation *a)
{
    size_t n = (size_t)ceil(fmax(a->duration_ms, 0.0) / 1000.0 * x->rate) + 2;   /* below MAX_GRID: checked */
    for (uint32_t k = 0; k < a->track_count; k++)
        n += 2 * (size_t)a->tracks[k].curve.key_count + 2;
    return n;
}

/*
 * The sample times of animation a, ascending and distinct: k / rate below
 * the duration, the duration, every key time, and the float just below each
 * key that a constant segment jumps to.  Returns the count.
 */
static size_t sample_times(const exporter *x, const mn_voxel_animation *a, sample *out)
{
    size_t n = 0;
    double d_ms = fmax(a->duration_ms, 0.0);   /* a one-shot whose keys all lie before 0 is one pose */
    for (size_t k = 0;; k++) {
        double ms = (double)k * 1000.0 / x->rate;
        if (!(ms < d_ms))
            break;
        float t = (float)(ms / 1000.0);
        out[n++] = (sample){t, (double)t * 1000.0};
    }
    add_key(out, &n, d_ms, false, d_ms);
    for (uint32_t k = 0; k < a->track_count; k++) {
        const mn_fcurve *c = &a->tracks[k].curve;
        for (uint32_t i = 0; i < c->key_count; i++) {
            /* The segment ending at key i: the previous key's, or in a loop the closing one for key 0. */
            bool jump = false;
            if (i > 0)
                jump = c->keys[i - 1].interp == MN_FCURVE_CONSTANT && c->keys[i - 1].v != c->keys[i].v;
            else if (a->loop && c->key_count > 1)
                jump = c->keys[c->key_count - 1].interp == MN_FCURVE_CONSTANT &&
                       c->keys[c->key_count - 1].v != c->keys[0].v;
            add_key(out, &n, key_position(a, c->keys[i].t), jump, d_ms);
        }
    }
    qsort(out, n, sizeof *out, sample_order);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || out[i].t != out[kept - 1].t)
            out[kept++] = out[i];
    return kept;
}

/* The extras of a baked animation: its loop and autoPlay intent. */
static const char *anim_extras(const mn_voxel_animation *a)
{
    static const char *const text[4] = {
        "{\"loop\": false, \"autoPlay\": false}", "{\"loop\": false, \"autoPlay\": true}",
        "{\"loop\": true, \"autoPlay\": false}", "{\"loop\": true, \"autoPlay\": true}",
    };
    return text[(a->loop ? 2 : 0) + (a->auto_play ? 1 : 0)];
}

/*
 * The baked keys of one animation: per sample its time, the milliseconds
 * the rig is posed at, and 7 floats (translation, rotation) per driven part.
 */
typedef struct keys {
    size_t n, cap;
    uint32_t driven;          /* parts the animation drives */
    sample *at;
    float *v;                 /* 7 × driven per sample */
} keys;

static bool keys_reserve(exporter *x, keys *k, size_t cap)
{
    if (cap <= k->cap)
        return true;
    sample *at = temp_alloc(x, cap, sizeof *at);
    float *v = temp_alloc(x, cap * k->driven, 7 * sizeof *v);
    if (!at || !v) {
        temp_free(x, at, cap, sizeof *at);
        temp_free(x, v, cap * k->driven, 7 * sizeof *v);
        return false;
    }
    if (k->n) {
        memcpy(at, k->at, k->n * sizeof *at);
        memcpy(v, k->v, k->n * k->driven * 7 * sizeof *v);
    }
    temp_free(x, k->at, k->cap, sizeof *k->at);
    temp_free(x, k->v, k->cap * k->driven, 7 * sizeof *k->v);
    k->at = at;
    k->v = v;
    k->cap = cap;
    return true;
}

static void keys_free(exporter *x, keys *k)
{
    temp_free(x, k->at, k->cap, sizeof *k->at);
    temp_free(x, k->v, k->cap * k->driven, 7 * sizeof *k->v);
}

/* The driven parts' local transforms at ms with animation `index` playing, into out (7 a part). */
static mn_status pose_at(exporter *x, uint32_t index, const uint32_t *parts, uint32_t count, double ms,
                         float *out)
{
    mn_voxel_pose_input in = {NULL, &index, 1, ms};
    mn_status st = mn_voxel_pose(x->rig, &in, x->worlds, NULL);
    if (st != MN_OK)
        return mni_error_set(x->err, st, "animations", -1, "animation \"%.64s\" cannot be posed",
                             x->rig->animations[index].name);
    for (uint32_t i = 0; i < count; i++)
        local_trs(x, x->worlds, parts[i], &out[7 * i], &out[7 * i + 3]);
    return MN_OK;
}

/*
 * How far LINEAR keys a and b miss the pose m at fraction f between them:
 * the largest translation error over the model's size, or rotation error in
 * radians (a rotation error moves points by that angle times their lever, at
 * most the size).  The rotation between is taken as the normalised blend,
 * which differs from slerp by the cube of the keys' angle: an overestimate
 * only refines a little more.
 */
static double lerp_error(const exporter *x, const float *a, const float *b, const float *m, uint32_t count,
                         double f)
{
    double worst = 0.0;
    for (uint32_t i = 0; i < count; i++, a += 7, b += 7, m += 7) {
        double d2 = 0.0;
        for (int k = 0; k < 3; k++) {
            double d = (1.0 - f) * (double)a[k] + f * (double)b[k] - (double)m[k];
            d2 += d * d;
        }
        worst = fmax(worst, sqrt(d2) / x->size);
        double sign = (double)a[3] * b[3] + (double)a[4] * b[4] + (double)a[5] * b[5] + (double)a[6] * b[6] < 0.0
                          ? -1.0 : 1.0;
        double q[4];
        for (int k = 0; k < 4; k++)
            q[k] = (1.0 - f) * (double)a[3 + k] + f * sign * (double)b[3 + k];
        /* The angle of q⁻¹·m: 2·atan2(|vector part|, |scalar part|), well conditioned near 0 (acos is not). */
        double v[3] = {(double)m[3], (double)m[4], (double)m[5]}, w = m[6];
        double r[3] = {q[3] * v[0] - w * q[0] - (q[1] * v[2] - q[2] * v[1]),
                       q[3] * v[1] - w * q[1] - (q[2] * v[0] - q[0] * v[2]),
                       q[3] * v[2] - w * q[2] - (q[0] * v[1] - q[1] * v[0])};
        double s0 = q[3] * w + q[0] * v[0] + q[1] * v[1] + q[2] * v[2];
        worst = fmax(worst, 2.0 * atan2(sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), fabs(s0)));
    }
    return worst;
}

/*
 * Refine: where LINEAR between two neighbouring samples misses the rig's
 * pose at a quarter, half or three quarters of the way by more than
 * REFINE_TOLERANCE, the midpoint becomes a sample too, and so on, at most
 * REFINE_DEPTH halvings of the grid.  (Three probes, not one: an S-shaped
 * stretch can cross the straight line at its middle.)  Eased curves then
 * arrive within the tolerance at any time, not only on the grid.
 */
#define REFINE_TOLERANCE 1e-5
#define REFINE_DEPTH 6
#define REFINE_LIMIT (1u << 22)   /* keys a clip may grow to: refinement stops short of it */
#define MAX_GRID (1u << 24)       /* grid samples of one clip (a duration of 77 hours at 60 Hz) */

/* Does LINEAR from keys i to i+1 stray from the pose?  *mid receives the pose halfway. */
static mn_status strays(exporter *x, uint32_t index, const uint32_t *parts, const keys *k, size_t i, float *mid,
                        float *probe, bool *out)
{
    uint32_t d = k->driven;
    const float *a = &k->v[7 * d * i], *b = &k->v[7 * d * (i + 1)];
    double ta = k->at[i].ms, tb = k->at[i + 1].ms;
    *out = false;
    static const double fractions[3] = {0.5, 0.25, 0.75};
    for (int p = 0; p < 3 && !*out; p++) {
        float *m = p == 0 ? mid : probe;
        float t = (float)(((1.0 - fractions[p]) * ta + fractions[p] * tb) / 1000.0);
        mn_status st = pose_at(x, index, parts, d, (double)t * 1000.0, m);
        if (st != MN_OK)
            return st;
        double f = ((double)t * 1000.0 - ta) / (tb - ta);
        *out = lerp_error(x, a, b, m, d, f) > REFINE_TOLERANCE;
    }
    return MN_OK;
}

static mn_status refine(exporter *x, uint32_t index, const uint32_t *parts, keys *k)
{
    uint32_t d = k->driven;
    float *mid = temp_alloc(x, 2 * (size_t)d, 7 * sizeof *mid);
    if (!mid)
        return mni_oom(x->err, NULL);
    mn_status st = MN_OK;
    for (int depth = 0; depth < REFINE_DEPTH && st == MN_OK && k->n <= REFINE_LIMIT / 2; depth++) {
        keys next = {0, 0, d, NULL, NULL};
        bool added = false;
        if (!keys_reserve(x, &next, 2 * k->n)) {
            st = mni_oom(x->err, NULL);
            break;
        }
        for (size_t i = 0; i < k->n && st == MN_OK; i++) {
            next.at[next.n] = k->at[i];
            memcpy(&next.v[7 * d * next.n++], &k->v[7 * d * i], 7 * d * sizeof *mid);
            if (i + 1 == k->n)
                break;
            float t = (float)(0.5 * (k->at[i].ms + k->at[i + 1].ms) / 1000.0);
            if (!(t > k->at[i].t && t < k->at[i + 1].t))
                continue;   /* neighbours one float apart: a step, nothing between */
            bool stray;
            if ((st = strays(x, index, parts, k, i, mid, mid + 7 * d, &stray)) != MN_OK || !stray)
                continue;
            next.at[next.n] = (sample){t, (double)t * 1000.0};
            memcpy(&next.v[7 * d * next.n++], mid, 7 * d * sizeof *mid);
            added = true;
        }
        keys_free(x, k);
        *k = next;
        if (!added)
            break;
    }
    temp_free(x, mid, 2 * (size_t)d, 7 * sizeof *mid);
    return st;
}

/* One rig animation as a glTF animation. */
static mn_status bake(exporter *x, uint32_t index)
{
    const mn_voxel_rig *rig = x->rig;
    const mn_voxel_animation *a = &rig->animations[index];
    if (fmax(a->duration_ms, 0.0) / 1000.0 * x->rate > MAX_GRID)
        return mni_error_set(x->err, MN_OVERFLOW, "animations", -1,
                             "animation \"%.64s\" lasts %g s: more than %u samples at %g per second", a->name,
                             a->duration_ms / 1000.0, MAX_GRID, x->rate);
    uint32_t count = 0, *parts = temp_alloc(x, rig->part_count, sizeof *parts);
    size_t bound = sample_bound(x, a);
    sample *grid = temp_alloc(x, bound, sizeof *grid);
    keys k = {0, 0, 0, NULL, NULL};
    float *times = NULL, *trs = NULL;
    mn_status st = MN_OK;
    if (!parts || !grid) {
        st = mni_oom(x->err, "baking animation \"%.64s\"", a->name);
        goto done;
    }
    for (uint32_t p = 0; p < rig->part_count; p++)
        for (uint32_t t = 0; t < a->track_count; t++)
            if (rig->joints[a->tracks[t].joint].part == p) {
                parts[count++] = p;
                break;
            }
    k.driven = count;
    size_t n = sample_times(x, a, grid);
    if (!keys_reserve(x, &k, n)) {
        st = mni_oom(x->err, "baking animation \"%.64s\"", a->name);
        goto done;
    }
    for (size_t i = 0; i < n && st == MN_OK; i++) {
        k.at[i] = grid[i];
        st = pose_at(x, index, parts, count, grid[i].ms, &k.v[7 * count * i]);
    }
    k.n = n;
    if (st == MN_OK && count > 0)
        st = refine(x, index, parts, &k);
    if (st != MN_OK)
        goto done;
    times = temp_alloc(x, k.n, sizeof *times);
    trs = temp_alloc(x, k.n, 7 * sizeof *trs);
    if (!times || !trs) {
        st = mni_oom(x->err, "baking animation \"%.64s\"", a->name);
        goto done;
    }
    for (size_t i = 0; i < k.n; i++)
        times[i] = k.at[i].t;
    uint32_t anim = mn_model_build_animation(x->b, a->name, anim_extras(a));
    for (uint32_t c = 0; c < count; c++) {
        float *tr = trs, *q = trs + 3 * k.n;
        for (size_t i = 0; i < k.n; i++) {
            const float *v = &k.v[7 * (count * i + c)];
            memcpy(&tr[3 * i], v, 3 * sizeof *tr);
            memcpy(&q[4 * i], v + 3, 4 * sizeof *q);
            /* Neighbouring keys in one hemisphere: LINEAR then turns the short way, as the rig does. */
            if (i > 0 && q[4 * i - 4] * q[4 * i] + q[4 * i - 3] * q[4 * i + 1] + q[4 * i - 2] * q[4 * i + 2] +
                                 q[4 * i - 1] * q[4 * i + 3] < 0.0f)
                for (int e = 0; e < 4; e++)
                    q[4 * i + (size_t)e] = -q[4 * i + (size_t)e];
        }
        mn_model_build_channel(x->b, anim, parts[c], MN_PATH_TRANSLATION, MN_INTERP_LINEAR, times, tr, (uint32_t)k.n);
        mn_model_build_channel(x->b, anim, parts[c], MN_PATH_ROTATION, MN_INTERP_LINEAR, times, q, (uint32_t)k.n);
    }
done:
    temp_free(x, parts, rig->part_count, sizeof *parts);
    temp_free(x, grid, bound, sizeof *grid);
    temp_free(x, times, k.n, sizeof *times);
    temp_free(x, trs, k.n, 7 * sizeof *trs);
    keys_free(x, &k);
    return st;
}

/* The model's largest extent at rest (every vertex and pivot, posed), in exported units; one voxel at least. */
static void measure(exporter *x)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const mn_voxel_rig *rig = x->rig;
    bool rigged = rig && !mn_voxel_kind_is_skinned(rig->kind) && rig->kind != MN_VOXEL_STATIC;
    if (rig && mn_voxel_pose(rig, NULL, x->worlds, NULL) == MN_OK) {
        for (uint32_t p = 0; p < rig->part_count; p++) {
            const float *w = &x->worlds[16 * (size_t)p];
            float v[3];
            mn_mat4_transform_point(v, w, rig->parts[p].pivot);
            for (int k = 0; k < 3; k++)
                lo[k] = fmin(lo[k], v[k]), hi[k] = fmax(hi[k], v[k]);
            const mn_part_mesh *m = rigged ? x->part_meshes[p] : NULL;
            for (uint32_t i = 0; m && i < m->vertex_count; i++) {
                mn_mat4_transform_point(v, w, &m->positions[3 * (size_t)i]);
                for (int k = 0; k < 3; k++)
                    lo[k] = fmin(lo[k], v[k]), hi[k] = fmax(hi[k], v[k]);
            }
        }
    }
    for (uint32_t i = 0; x->mesh && i < x->mesh->vertex_count; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], x->mesh->positions[3 * (size_t)i + (size_t)k]);
            hi[k] = fmax(hi[k], x->mesh->positions[3 * (size_t)i + (size_t)k]);
        }
    double size = 1.0;
    for (int k = 0; k < 3; k++)
        if (hi[k] - lo[k] > size)
            size = hi[k] - lo[k];
    x->size = size * x->scale;
}

/* ---- the model ----------------------------------------------------------------------------------------- */

static mn_status check_inputs(const mn_voxel_rig *rig, const mn_part_mesh *const *part_meshes,
                              const mn_part_mesh *mesh, const mn_voxel_export_options *o, mn_error *err)
{
    float scale = o ? o->scale : 0.0f, rate = o ? o->rate : 0.0f;
    if (!isfinite(scale) || scale < 0.0f)
        return mni_fail(err, MN_INVALID_ARGUMENT, "the scale %g is not a positive number", (double)scale);
    if (!isfinite(rate) || rate < 0.0f || (rate > 0.0f && rate < 1.0f))
        return mni_fail(err, MN_INVALID_ARGUMENT, "the sample rate %g is not at least 1 per second",
                        (double)rate);
    if (!rig)
        return mesh ? MN_OK : mni_fail(err, MN_INVALID_ARGUMENT, "a static export needs its mesh");
    if (!(rig->voxel_size > 0.0f) && scale == 0.0f)
        return mni_fail(err, MN_INVALID_ARGUMENT, "the rig's voxel_size is not positive");
    if (mn_voxel_kind_is_skinned(rig->kind)) {
        if (!mesh || mesh->bone_count == 0)
            return mni_fail(err, MN_INVALID_ARGUMENT,
                            "a %s rig needs its skinned mesh (mesh.glb with a skin)", "*-skinned");
    } else if (rig->kind == MN_VOXEL_STATIC) {
        if (!mesh)
            return mni_fail(err, MN_INVALID_ARGUMENT, "a static rig needs its mesh (mesh.glb)");
    } else if (!part_meshes) {
        return mni_fail(err, MN_INVALID_ARGUMENT, "a rigged export needs one mesh per part");
    }
    return MN_OK;
}

/* Everything but the finish: nodes, meshes, animations. */
static mn_status build(exporter *x)
{
    const mn_voxel_rig *rig = x->rig;
    add_material(x);
    if (!rig) {
        uint32_t node = mn_model_build_node(x->b, "mesh", MN_NONE);
        uint32_t mesh = has_triangles(x->mesh) ? add_mesh(x, "mesh", x->mesh, NULL, false) : MN_NONE;
        if (mesh != MN_NONE)
            mn_model_build_node_mesh(x->b, node, mesh, MN_NONE);
        return x->err->code;
    }
    bool skinned = mn_voxel_kind_is_skinned(rig->kind), rigged = !skinned && rig->kind != MN_VOXEL_STATIC;
    bool *socket = temp_alloc(x, rig->part_count, sizeof *socket);
    if (!socket)
        return mni_oom(x->err, NULL);
    for (uint32_t p = 0; p < rig->part_count; p++) {
        socket[p] = true;
        if (rigged)
            socket[p] = !has_triangles(x->part_meshes[p]);
        for (uint32_t k = 0; skinned && k < x->mesh->bone_count; k++)
            if (strcmp(x->mesh->bone_names[k], rig->parts[p].name) == 0)
                socket[p] = false;
    }
    mn_status st = part_nodes(x, socket);
    for (uint32_t p = 0; st == MN_OK && rigged && p < rig->part_count; p++)
        if (!socket[p])
            mn_model_build_node_mesh(x->b, p, add_mesh(x, rig->parts[p].name, x->part_meshes[p],
                                                       rig->parts[p].pivot, false), MN_NONE);
    temp_free(x, socket, rig->part_count, sizeof *socket);
    if (st == MN_OK && skinned)
        st = skinned_mesh(x);
    if (st == MN_OK && rig->kind == MN_VOXEL_STATIC && has_triangles(x->mesh)) {
        uint32_t node = mn_model_build_node(x->b, "mesh", MN_NONE);
        mn_model_build_node_mesh(x->b, node, add_mesh(x, "mesh", x->mesh, NULL, false), MN_NONE);
    }
    if (st == MN_OK)
        measure(x);
    for (uint32_t a = 0; st == MN_OK && a < rig->animation_count; a++)
        st = bake(x, a);
    return st != MN_OK ? st : x->err->code;   /* add_mesh reports its failures through err */
}

mn_status mn_voxel_export_model(const mn_voxel_rig *rig, const mn_part_mesh *const *part_meshes,
                                const mn_part_mesh *mesh, const mn_voxel_export_options *options,
                                mn_model **out_model, mn_error *err)
{
    mn_error local;
    mni_error_clear(&local);
    if (out_model)
        *out_model = NULL;
    if (!out_model)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_voxel_export_model needs out_model");
    mn_status st = check_inputs(rig, part_meshes, mesh, options, &local);
    exporter x;
    memset(&x, 0, sizeof x);
    x.rig = rig;
    x.part_meshes = part_meshes;
    x.mesh = mesh;
    if (options)
        x.allocator = options->allocator;
    x.scale = mni_vx_scale(rig, options);
    x.rate = options && options->rate > 0.0f ? options->rate : 60.0;
    x.err = &local;
    if (st == MN_OK) {
        x.b = mn_model_build_begin(&x.allocator);
        x.worlds = rig ? temp_alloc(&x, rig->part_count, 16 * sizeof(float)) : NULL;
        if (!x.b || (rig && !x.worlds))
            st = mni_oom(&local, NULL);
    }
    if (st == MN_OK)
        st = build(&x);
    if (x.worlds)
        temp_free(&x, x.worlds, rig->part_count, 16 * sizeof(float));
    if (st != MN_OK) {
        mn_model_build_discard(x.b);
    } else {
        mn_error berr;
        st = mn_model_build_finish(x.b, out_model, &berr);
        if (st != MN_OK)
            local = berr;
    }
    if (err)
        *err = local;
    return st;
}
