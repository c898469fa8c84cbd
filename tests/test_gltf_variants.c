/*
 * Every variant of every sample model agrees with the model's plain glTF variant, within the
 * variant's quantisation:
 *
 *   - every variant folder under the assets' gltf/<Model>/ (glTF-Binary, glTF-Embedded,
 *     glTF-Quantized, ...; BoxMeshopt's two files against Box, whose geometry the assets'
 *     README says they hold) loads, and so do the Draco variants that
 *     tests/test_gltf_variants_draco.sh makes from each plain variant (MN_VARIANTS_DRACO_DIR);
 *   - geometry: the drawn primitives of the default scene, in the order the nodes come, pair
 *     up; each primitive is a soup of elements (triangles, lines or points) whose vertices carry
 *     world-space streams: positions and normals (rest worlds, or the rest skin for a skinned
 *     mesh, since quantisers move the dequantisation into the node or the inverse binds),
 *     tangents, texture coordinates, colours, skin influences (compared per joint, so slot
 *     order and zero-weight joints do not matter) and morph deltas.  Each element of one side
 *     is matched to the element of the other, under a rotation of its corners, that fits best
 *     (elements sorted by centroid, only those with a centroid within the tolerance tried), in
 *     both directions, so vertex order and duplication may differ (Draco reorders);
 *   - animation: every animation of the variant is sampled at its key times and the midpoints
 *     between them, beside the plain variant's animation of the same index, and the posed
 *     world-space positions (morphed, skinned or placed by the posed node worlds) of the
 *     matched vertices agree: that compares the node world matrices where they act, and holds
 *     for variants whose node hierarchies differ (glTF-Quantized adds a node);
 *   - tolerances are derived from what each variant stores: an integer accessor's step (1 for
 *     plain integers, 1/255, 1/32767 ... normalized) times the norm of the transform that
 *     dequantises it; Draco's step, the attribute's widest range over 2^bits - 1 at the bits the
 *     encoder was given, normals octahedral; a normal's step doubled for renormalisation (and
 *     for the octahedral map); animation outputs' steps carried to the posed positions through
 *     the model's extent and hierarchy depth; float32 rounding on top of all of them.
 *
 * One line per variant: model, variant, the largest position error and its tolerance, the
 * worst error of any stream as a fraction of its tolerance, and the largest posed-position
 * error over the animations with its tolerance, and the plain variant's attributes it lacks
 * (only TANGENT may be lacking).  CesiumMan's glTF-Embedded variant is another export (46 keys
 * ending at 1.9167 s, the assets' README says): sampled at its own keys and midpoints it agrees.
 * Without the assets the test is skipped; the Draco case without MN_VARIANTS_DRACO_DIR.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <marionette/clip.h>
#include <marionette/gltf.h>
#include <marionette/math.h>
#include <marionette/model.h>
#include <marionette/pose.h>

#include "assets.h"

/* The bits tests/reference/draco_variants.mjs gives the Draco encoder. */
#define DRACO_BITS_POSITION 14
#define DRACO_BITS_NORMAL 10
#define DRACO_BITS_TEXCOORD 12
#define DRACO_BITS_COLOR 8
#define DRACO_BITS_GENERIC 12

/* float32 rounding of the composed transforms, relative to a stream's magnitude. */
#define FLOAT_SLOP 4e-6

#define MAX_STREAMS 24

/* The negative controls' knobs: every tolerance times tolerance_scale; the variant's first
   position moved by perturb (it must be a float accessor). */
static double tolerance_scale = 1;
static float perturb;

/* ---- a loaded side: the model, its JSON (what the model does not keep) and its draws -------- */

typedef struct draw {
    uint32_t node, mesh, prim;
} draw;

typedef struct side {
    const char *path;
    mn_model *m;
    json_t *json;
    draw *draws;
    uint32_t draw_count;
    float *worlds;      /* 16 × node_count: rest, or the pose being compared */
    float *weights;     /* per node, the morph weights in use (node_count × MAX_TARGETS) */
} side;

#define MAX_TARGETS 16

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    assert_non_null(p);
    return p;
}

/* The JSON of a .gltf or of a GLB's JSON chunk. */
static json_t *load_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = xcalloc((size_t)size + 1, 1);
    assert_int_equal(fread(bytes, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    const char *text = (const char *)bytes;
    size_t len = (size_t)size;
    if (size >= 20 && memcmp(bytes, "glTF", 4) == 0) {
        len = (size_t)bytes[12] | (size_t)bytes[13] << 8 | (size_t)bytes[14] << 16 | (size_t)bytes[15] << 24;
        assert_true(len <= (size_t)size - 20);
        text = (const char *)bytes + 20;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    if (!root)
        fail_msg("%s: JSON: %s", path, jerr.text);
    free(bytes);
    return root;
}

static bool in_default_scene(const mn_model *m, uint32_t node)
{
    uint32_t s = mn_model_default_scene(m);
    while (m->nodes[node].parent != MN_NONE)
        node = m->nodes[node].parent;
    if (s == MN_NONE)
        return true;
    for (uint32_t i = 0; i < m->scenes[s].node_count; i++)
        if (m->scenes[s].nodes[i] == node)
            return true;
    return false;
}

static void rest_weights(side *s)
{
    const mn_model *m = s->m;
    for (uint32_t i = 0; i < m->node_count; i++) {
        const mn_node *n = &m->nodes[i];
        float *w = s->weights + (size_t)i * MAX_TARGETS;
        memset(w, 0, MAX_TARGETS * sizeof *w);
        if (n->mesh == MN_NONE)
            continue;
        const float *src = n->weights ? n->weights : m->meshes[n->mesh].weights;
        uint32_t have = n->weights ? n->weight_count : m->meshes[n->mesh].weight_count;
        for (uint32_t k = 0; k < have && k < MAX_TARGETS && src; k++)
            w[k] = src[k];
    }
}

static void side_open(side *s, const char *path)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    mn_error err;
    mn_status st = mn_gltf_read_file(path, NULL, &s->m, &err);
    if (st != MN_OK)
        fail_msg("%s does not load: %s at '%s': %s", path, mn_status_name(st), err.path, err.message);
    s->json = load_json(path);
    const mn_model *m = s->m;
    size_t most = 0;
    for (uint32_t i = 0; i < m->node_count; i++)
        if (m->nodes[i].mesh != MN_NONE)
            most += m->meshes[m->nodes[i].mesh].primitive_count;
    s->draws = xcalloc(most + 1, sizeof *s->draws);
    for (uint32_t k = 0; k < m->node_count; k++) {
        uint32_t i = m->node_order[k];
        const mn_node *n = &m->nodes[i];
        if (n->mesh == MN_NONE || !in_default_scene(m, i))
            continue;
        for (uint32_t p = 0; p < m->meshes[n->mesh].primitive_count; p++) {
            const mn_primitive *prim = &m->meshes[n->mesh].primitives[p];
            if (mn_primitive_find(prim, MN_SEMANTIC_POSITION, 0) == MN_NONE)
                continue;
            if (prim->target_count > MAX_TARGETS)
                fail_msg("%s: a primitive with %u morph targets, more than the test keeps", path,
                         prim->target_count);
            s->draws[s->draw_count++] = (draw){i, n->mesh, p};
        }
    }
    s->worlds = xcalloc((size_t)m->node_count * 16, sizeof(float));
    s->weights = xcalloc((size_t)m->node_count * MAX_TARGETS, sizeof(float));
    mn_model_rest_worlds(m, s->worlds);
    rest_weights(s);
}

static void side_close(side *s)
{
    mn_model_free(s->m);
    json_decref(s->json);
    free(s->draws);
    free(s->worlds);
    free(s->weights);
}

/* ---- quantisation: the step of what a file stores --------------------------------------------- */

/* One step of an accessor's stored values, in the units its values read as (0 for floats). */
static double component_step(mn_component c, bool normalized)
{
    if (c == MN_COMPONENT_F32)
        return 0;
    if (!normalized)
        return 1;
    switch (c) {
    case MN_COMPONENT_I8: return 1.0 / 127;
    case MN_COMPONENT_U8: return 1.0 / 255;
    case MN_COMPONENT_I16: return 1.0 / 32767;
    case MN_COMPONENT_U16: return 1.0 / 65535;
    default: return 0;
    }
}

static json_t *at(json_t *o, const char *key, size_t index)
{
    return json_array_get(json_object_get(o, key), index);
}

static bool is_draco(const side *s, const draw *d)
{
    json_t *p = at(at(s->json, "meshes", d->mesh), "primitives", d->prim);
    return json_object_get(json_object_get(p, "extensions"), "KHR_draco_mesh_compression") != NULL;
}

/* The EXT_meshopt_compression filter of the accessor's buffer view, "" when none. */
static const char *meshopt_filter(const side *s, uint32_t accessor)
{
    json_t *bv = json_object_get(at(s->json, "accessors", accessor), "bufferView");
    if (!json_is_integer(bv))
        return "";
    json_t *ext = json_object_get(json_object_get(at(s->json, "bufferViews", (size_t)json_integer_value(bv)),
                                                  "extensions"), "EXT_meshopt_compression");
    const char *f = json_string_value(json_object_get(ext, "filter"));
    return f ? f : "";
}

/* The widest range over an accessor's components, in its local units. */
static double widest_range(const float *f, uint32_t count, uint32_t comps)
{
    double range = 0;
    for (uint32_t k = 0; k < comps; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t i = 0; i < count; i++) {
            lo = fmin(lo, f[(size_t)i * comps + k]);
            hi = fmax(hi, f[(size_t)i * comps + k]);
        }
        if (count)
            range = fmax(range, hi - lo);
    }
    return range;
}

/* ---- streams ------------------------------------------------------------------------------ */

typedef enum stream_kind { STREAM_PLAIN, STREAM_INFLUENCE } stream_kind;

typedef struct stream {
    char name[32];
    stream_kind kind;
    uint32_t comps;      /* 8 for influences: 4 joints then 4 weights */
    float *data;         /* vertex_count × comps, world space where it has one */
    double tol;          /* this side's share of the tolerance */
} stream;

typedef struct prim_data {
    uint32_t vertex_count;
    uint32_t k;          /* vertices per element: 3, 2 or 1 */
    uint32_t element_count;
    uint32_t *corners;   /* element_count × k vertex indices */
    stream streams[MAX_STREAMS];
    uint32_t stream_count;
    double pos_tol;      /* this side's position tolerance (world units) */
    double lin_norm;     /* the largest ∞-norm of the linear part placing it */
    double extent;       /* diagonal of the world positions' bounds */
} prim_data;

static float *floats_of(const mn_model *m, uint32_t accessor, uint32_t *comps)
{
    const mn_accessor *a = &m->accessors[accessor];
    uint32_t c = mn_accessor_components(a->type);
    size_t n = (size_t)a->count * c;
    float *f = xcalloc(n + 1, sizeof *f);
    assert_int_equal(mn_accessor_unpack_floats(a, f, n), n);
    if (comps)
        *comps = c;
    return f;
}

/* Per vertex, the matrix that places it: the node's world, or the blended rest skin. */
static void vertex_matrices(const side *s, const draw *d, const uint16_t *joints, const float *wts,
                            uint32_t n, float *out)
{
    const mn_model *m = s->m;
    const mn_node *node = &m->nodes[d->node];
    if (!joints) {
        for (uint32_t v = 0; v < n; v++)
            memcpy(out + 16 * (size_t)v, s->worlds + 16 * (size_t)d->node, 16 * sizeof(float));
        return;
    }
    const mn_skin *skin = &m->skins[node->skin];
    for (uint32_t v = 0; v < n; v++) {
        float *o = out + 16 * (size_t)v;
        memset(o, 0, 16 * sizeof(float));
        for (int k = 0; k < 4; k++) {
            float w = wts[4 * (size_t)v + k];
            uint32_t j = joints[4 * (size_t)v + k];
            if (w == 0 || j >= skin->joint_count)
                continue;
            float pal[16];
            mn_mat4_mul(pal, s->worlds + 16 * (size_t)skin->joints[j], skin->inverse_bind + 16 * (size_t)j);
            for (int e = 0; e < 16; e++)
                o[e] += w * pal[e];
        }
    }
}

static double linear_inf_norm(const float *mat)
{
    double worst = 0;
    for (int r = 0; r < 3; r++)
        worst = fmax(worst, fabs(mat[r]) + fabs(mat[4 + r]) + fabs(mat[8 + r]));
    return worst;
}

/* The normal matrix of mat's linear part (its cofactors: the inverse-transpose up to a positive
   factor, which renormalising removes), and the ∞-norm condition number of that part. */
static double normal_matrix(const float *mat, double out[9])
{
    const double a = mat[0], b = mat[4], c = mat[8], d = mat[1], e = mat[5], f = mat[9], g = mat[2],
                 h = mat[6], i = mat[10];
    double co[9] = {e * i - f * h, -(d * i - f * g), d * h - e * g,
                    -(b * i - c * h), a * i - c * g, -(a * h - b * g),
                    b * f - c * e, -(a * f - c * d), a * e - b * d};
    double det = a * co[0] + b * co[1] + c * co[2];
    double sign = det < 0 ? -1 : 1;
    for (int k = 0; k < 9; k++)
        out[k] = sign * co[k];   /* out[3*row + col] = cofactor(row, col) */
    double inv_norm = 0;
    for (int r = 0; r < 3; r++)
        inv_norm = fmax(inv_norm, (fabs(co[r]) + fabs(co[3 + r]) + fabs(co[6 + r])) / fabs(det));
    return linear_inf_norm(mat) * inv_norm;
}

static void apply_linear(const float *mat, const float *in, float *out, bool translate)
{
    for (int r = 0; r < 3; r++)
        out[r] = mat[r] * in[0] + mat[4 + r] * in[1] + mat[8 + r] * in[2] + (translate ? mat[12 + r] : 0);
}

static void apply_normal(const float *mat, const float *in, float *out)
{
    double nm[9];
    normal_matrix(mat, nm);
    double v[3];
    for (int r = 0; r < 3; r++)
        v[r] = nm[3 * r] * in[0] + nm[3 * r + 1] * in[1] + nm[3 * r + 2] * in[2];
    double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int r = 0; r < 3; r++)
        out[r] = (float)(len > 0 ? v[r] / len : 0);
}

/* A morph normal delta by the normal matrix scaled to determinant 1, which turns directions as
   the renormalised normal turns and leaves the delta's length (rotations and uniform scales). */
static void apply_normal_delta(const float *mat, const float *in, float *out)
{
    double nm[9];
    normal_matrix(mat, nm);
    double det = nm[0] * (nm[4] * nm[8] - nm[5] * nm[7]) - nm[1] * (nm[3] * nm[8] - nm[5] * nm[6]) +
                 nm[2] * (nm[3] * nm[7] - nm[4] * nm[6]);
    double unit = det != 0 ? 1 / cbrt(fabs(det)) : 0;
    for (int r = 0; r < 3; r++)
        out[r] = (float)(unit * (nm[3 * r] * in[0] + nm[3 * r + 1] * in[1] + nm[3 * r + 2] * in[2]));
}

/* The step of one stored attribute in its local units, and whether it is a direction. */
static double attribute_step(const side *s, const draw *d, uint32_t accessor, mn_semantic sem,
                             const float *local, uint32_t count, uint32_t comps, double mesh_range)
{
    if (is_draco(s, d)) {
        int bits;
        switch (sem) {
        case MN_SEMANTIC_POSITION:
            return mesh_range / ((1 << DRACO_BITS_POSITION) - 1);
        case MN_SEMANTIC_NORMAL:
        case MN_SEMANTIC_TANGENT:
            /* Octahedral: 2^bits steps over [-1, 1] in each octahedron coordinate, which the map
               back to the sphere stretches by up to 2. */
            return 2 * 2.0 / ((1 << DRACO_BITS_NORMAL) - 1);
        case MN_SEMANTIC_TEXCOORD: bits = DRACO_BITS_TEXCOORD; break;
        case MN_SEMANTIC_COLOR: bits = DRACO_BITS_COLOR; break;
        case MN_SEMANTIC_JOINTS: return 0;
        default: bits = DRACO_BITS_GENERIC; break;
        }
        return widest_range(local, count, comps) / ((1 << bits) - 1);
    }
    const mn_accessor *a = &s->m->accessors[accessor];
    double step = component_step(a->component, a->normalized);
    if (strcmp(meshopt_filter(s, accessor), "OCTAHEDRAL") == 0)
        step *= 2;   /* the octahedral map back to the sphere, as for Draco */
    return step;
}

static stream *add_stream(prim_data *p, const char *name, stream_kind kind, uint32_t comps, double tol)
{
    if (p->stream_count == MAX_STREAMS)
        fail_msg("more streams than the test keeps");
    stream *st = &p->streams[p->stream_count++];
    snprintf(st->name, sizeof st->name, "%s", name);
    st->kind = kind;
    st->comps = comps;
    st->data = xcalloc((size_t)p->vertex_count * comps + 1, sizeof(float));
    st->tol = tol;
    return st;
}

static void element_corners(const side *s, const draw *d, prim_data *p)
{
    const mn_model *m = s->m;
    const mn_primitive *prim = &m->meshes[d->mesh].primitives[d->prim];
    p->k = prim->mode == MN_MODE_TRIANGLES ? 3 : prim->mode == MN_MODE_LINES ? 2 : 1;
    uint32_t n = prim->indices != MN_NONE ? m->accessors[prim->indices].count : prim->vertex_count;
    uint32_t *idx = xcalloc(n + 1, sizeof *idx);
    if (prim->indices != MN_NONE)
        mn_accessor_unpack_u32(&m->accessors[prim->indices], idx, n);
    else
        for (uint32_t i = 0; i < n; i++)
            idx[i] = i;
    p->element_count = n / p->k;
    p->corners = idx;
}

/* Positions placed by the side's current worlds and weights (morphed, skinned), into out. */
static void posed_positions(const side *s, const draw *d, const float *base, float *const *deltas,
                            const uint16_t *joints, const float *wts, float *mats, float *out)
{
    const mn_model *m = s->m;
    const mn_primitive *prim = &m->meshes[d->mesh].primitives[d->prim];
    const float *w = s->weights + (size_t)d->node * MAX_TARGETS;
    vertex_matrices(s, d, joints, wts, prim->vertex_count, mats);
    for (uint32_t v = 0; v < prim->vertex_count; v++) {
        float local[3] = {base[3 * (size_t)v], base[3 * (size_t)v + 1], base[3 * (size_t)v + 2]};
        for (uint32_t t = 0; t < prim->target_count && t < MAX_TARGETS; t++)
            if (deltas[t] && w[t] != 0)
                for (int c = 0; c < 3; c++)
                    local[c] += w[t] * deltas[t][3 * (size_t)v + c];
        apply_linear(mats + 16 * (size_t)v, local, out + 3 * (size_t)v, true);
    }
}

/* What a primitive needs to be posed again at another time. */
typedef struct poseable {
    float *base;                  /* local positions */
    float *deltas[MAX_TARGETS];   /* local position deltas, NULL where a target has none */
    uint16_t *joints;             /* NULL when not skinned */
    float *wts;
    float *mats;                  /* 16 × vertex_count scratch */
    double delta_norm;            /* Σ over targets of the largest world delta */
} poseable;

static void poseable_free(poseable *q)
{
    free(q->base);
    for (int t = 0; t < MAX_TARGETS; t++)
        free(q->deltas[t]);
    free(q->joints);
    free(q->wts);
    free(q->mats);
}

static double max_abs(const float *f, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(f[i]));
    return m;
}

static bool has_attr(const mn_primitive *p, mn_semantic sem, uint32_t set)
{
    return mn_primitive_find(p, sem, set) != MN_NONE;
}

/*
 * The streams of one draw at rest, restricted to what `other` (the primitive it is compared
 * with) has too, each with this side's tolerance; and what posing it again needs.
 */
static void prim_streams(const side *s, const draw *d, const mn_primitive *other, prim_data *p,
                         poseable *q)
{
    const mn_model *m = s->m;
    const mn_primitive *prim = &m->meshes[d->mesh].primitives[d->prim];
    memset(p, 0, sizeof *p);
    memset(q, 0, sizeof *q);
    p->vertex_count = prim->vertex_count;
    element_corners(s, d, p);
    uint32_t n = prim->vertex_count, comps;

    /* The skin at rest, when the node has one and the primitive its influences. */
    if (m->nodes[d->node].skin != MN_NONE && has_attr(prim, MN_SEMANTIC_JOINTS, 0) &&
        has_attr(prim, MN_SEMANTIC_WEIGHTS, 0)) {
        q->joints = xcalloc(4 * (size_t)n + 1, sizeof *q->joints);
        q->wts = xcalloc(4 * (size_t)n + 1, sizeof *q->wts);
        assert_true(mn_primitive_skin_influences(m, prim, q->joints, q->wts));
    }
    q->mats = xcalloc(16 * (size_t)n + 1, sizeof(float));
    vertex_matrices(s, d, q->joints, q->wts, n, q->mats);
    double lin = 0, cond = 1;
    for (uint32_t v = 0; v < n; v++) {
        double nm[9];
        lin = fmax(lin, linear_inf_norm(q->mats + 16 * (size_t)v));
        cond = fmax(cond, normal_matrix(q->mats + 16 * (size_t)v, nm));
    }
    p->lin_norm = lin;

    /* Positions: Draco quantises over the whole mesh's box (gltf-transform's "mesh" volume). */
    uint32_t pa = mn_primitive_find(prim, MN_SEMANTIC_POSITION, 0);
    q->base = floats_of(m, pa, &comps);
    double mesh_range = 0;
    for (uint32_t i = 0; i < m->meshes[d->mesh].primitive_count; i++) {
        const mn_primitive *o = &m->meshes[d->mesh].primitives[i];
        uint32_t oa = mn_primitive_find(o, MN_SEMANTIC_POSITION, 0);
        if (oa == MN_NONE)
            continue;
        float *f = floats_of(m, oa, NULL);
        mesh_range = fmax(mesh_range, widest_range(f, o->vertex_count, 3));
        free(f);
    }
    double pstep = attribute_step(s, d, pa, MN_SEMANTIC_POSITION, q->base, n, 3, mesh_range);
    stream *pos = add_stream(p, "POSITION", STREAM_PLAIN, 3, 0);
    for (uint32_t v = 0; v < n; v++)
        apply_linear(q->mats + 16 * (size_t)v, q->base + 3 * (size_t)v, pos->data + 3 * (size_t)v, true);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < n; v++)
        for (int c = 0; c < 3; c++) {
            lo[c] = fminf(lo[c], pos->data[3 * (size_t)v + c]);
            hi[c] = fmaxf(hi[c], pos->data[3 * (size_t)v + c]);
        }
    p->extent = n ? sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                         (hi[2] - lo[2]) * (hi[2] - lo[2]))
                  : 0;
    double pmag = max_abs(pos->data, 3 * (size_t)n);
    pos->tol = pstep * lin + FLOAT_SLOP * fmax(pmag, 1e-3);
    p->pos_tol = pos->tol;

    /* Normals and tangents: directions, renormalised after the normal matrix. */
    static const struct { mn_semantic sem; const char *name; } dirs[] = {
        {MN_SEMANTIC_NORMAL, "NORMAL"}, {MN_SEMANTIC_TANGENT, "TANGENT"}};
    for (int k = 0; k < 2; k++) {
        uint32_t acc = mn_primitive_find(prim, dirs[k].sem, 0);
        if (acc == MN_NONE || !has_attr(other, dirs[k].sem, 0))
            continue;
        float *local = floats_of(m, acc, &comps);
        double step = attribute_step(s, d, acc, dirs[k].sem, local, n, comps, mesh_range);
        stream *st = add_stream(p, dirs[k].name, STREAM_PLAIN, 3, 2 * step * cond + 1e-5);
        for (uint32_t v = 0; v < n; v++) {
            if (dirs[k].sem == MN_SEMANTIC_NORMAL)
                apply_normal(q->mats + 16 * (size_t)v, local + (size_t)comps * v, st->data + 3 * (size_t)v);
            else {   /* tangents transform with the matrix itself */
                float t[3];
                apply_linear(q->mats + 16 * (size_t)v, local + (size_t)comps * v, t, false);
                double len = sqrt((double)t[0] * t[0] + (double)t[1] * t[1] + (double)t[2] * t[2]);
                for (int c = 0; c < 3; c++)
                    st->data[3 * (size_t)v + c] = (float)(len > 0 ? t[c] / len : 0);
            }
        }
        free(local);
    }

    /* Texture coordinates and colours: no transform. */
    for (uint32_t set = 0; set < 8; set++) {
        uint32_t acc = mn_primitive_find(prim, MN_SEMANTIC_TEXCOORD, set);
        if (acc == MN_NONE || !has_attr(other, MN_SEMANTIC_TEXCOORD, set))
            continue;
        float *local = floats_of(m, acc, &comps);
        char name[32];
        snprintf(name, sizeof name, "TEXCOORD_%u", set);
        double step = attribute_step(s, d, acc, MN_SEMANTIC_TEXCOORD, local, n, comps, mesh_range);
        stream *st = add_stream(p, name, STREAM_PLAIN, 2, step + FLOAT_SLOP * fmax(max_abs(local, 2 * (size_t)n), 1));
        memcpy(st->data, local, 2 * (size_t)n * sizeof(float));
        free(local);
    }
    for (uint32_t set = 0; set < 8; set++) {
        uint32_t acc = mn_primitive_find(prim, MN_SEMANTIC_COLOR, set);
        if (acc == MN_NONE || !has_attr(other, MN_SEMANTIC_COLOR, set))
            continue;
        float *local = floats_of(m, acc, &comps);
        char name[32];
        snprintf(name, sizeof name, "COLOR_%u", set);
        double step = attribute_step(s, d, acc, MN_SEMANTIC_COLOR, local, n, comps, mesh_range);
        stream *st = add_stream(p, name, STREAM_PLAIN, 4, step + 1e-6);
        assert_int_equal(mn_primitive_colors(m, prim, set, st->data, 4 * (size_t)n), 4 * (size_t)n);
        free(local);
    }

    /* Skin influences, normalised by their sum: a weight step becomes up to 2.5 steps. */
    if (q->joints && has_attr(other, MN_SEMANTIC_JOINTS, 0)) {
        uint32_t acc = mn_primitive_find(prim, MN_SEMANTIC_WEIGHTS, 0);
        float *local = floats_of(m, acc, &comps);
        double step = attribute_step(s, d, acc, MN_SEMANTIC_WEIGHTS, local, n, comps, mesh_range);
        stream *st = add_stream(p, "SKIN", STREAM_INFLUENCE, 8, 2.5 * step + 1e-6);
        for (uint32_t v = 0; v < n; v++)
            for (int c = 0; c < 4; c++) {
                st->data[8 * (size_t)v + c] = q->joints[4 * (size_t)v + c];
                st->data[8 * (size_t)v + 4 + c] = q->wts[4 * (size_t)v + c];
            }
        free(local);
    }

    /* Morph deltas: vectors, by the linear part. */
    for (uint32_t t = 0; t < prim->target_count && t < MAX_TARGETS; t++) {
        const uint32_t accs[2] = {prim->targets[t].position, prim->targets[t].normal};
        const uint32_t others[2] = {t < other->target_count ? other->targets[t].position : MN_NONE,
                                    t < other->target_count ? other->targets[t].normal : MN_NONE};
        for (int k = 0; k < 2; k++) {
            if (accs[k] == MN_NONE)
                continue;
            float *local = floats_of(m, accs[k], &comps);
            /* Draco leaves morph targets uncompressed: the step is the stored type's. */
            const mn_accessor *da = &m->accessors[accs[k]];
            double step = component_step(da->component, da->normalized);
            if (k == 0) {
                q->deltas[t] = local;
                double worst = 0;
                for (uint32_t v = 0; v < n; v++) {
                    float wd[3];
                    apply_linear(q->mats + 16 * (size_t)v, local + 3 * (size_t)v, wd, false);
                    worst = fmax(worst, fmax(fabs(wd[0]), fmax(fabs(wd[1]), fabs(wd[2]))));
                }
                q->delta_norm += worst;
            }
            if (others[k] == MN_NONE) {
                if (k)
                    free(local);
                continue;
            }
            char name[32];
            snprintf(name, sizeof name, "target %u %s", t, k ? "NORMAL" : "POSITION");
            stream *st = add_stream(p, name, STREAM_PLAIN, 3, 0);
            for (uint32_t v = 0; v < n; v++)
                if (k)
                    apply_normal_delta(q->mats + 16 * (size_t)v, local + 3 * (size_t)v, st->data + 3 * (size_t)v);
                else
                    apply_linear(q->mats + 16 * (size_t)v, local + 3 * (size_t)v, st->data + 3 * (size_t)v, false);
            /* A normal delta is a change of direction: its step is the unit normals' step. */
            st->tol = step * (k ? cond : lin) + FLOAT_SLOP * fmax(max_abs(st->data, 3 * (size_t)n), 1e-3);
            if (k)
                free(local);
        }
    }
}

static void prim_free(prim_data *p)
{
    free(p->corners);
    for (uint32_t i = 0; i < p->stream_count; i++)
        free(p->streams[i].data);
}

/* ---- matching elements ---------------------------------------------------------------------- */

/* |a - b| of one stream at vertices va (of a) and vb (of b), componentwise max. */
static double stream_error(const stream *a, uint32_t va, const stream *b, uint32_t vb)
{
    const float *x = a->data + (size_t)a->comps * va, *y = b->data + (size_t)b->comps * vb;
    double worst = 0;
    if (a->kind == STREAM_INFLUENCE) {
        /* Per joint: the weight each side gives it (summed over slots naming it). */
        for (int side_ = 0; side_ < 2; side_++)
            for (int c = 0; c < 4; c++) {
                float j = (side_ ? y : x)[c];
                double wa = 0, wb = 0;
                for (int e = 0; e < 4; e++) {
                    wa += x[e] == j ? x[4 + e] : 0;
                    wb += y[e] == j ? y[4 + e] : 0;
                }
                worst = fmax(worst, fabs(wa - wb));
            }
        return worst;
    }
    for (uint32_t c = 0; c < a->comps; c++)
        worst = fmax(worst, fabs((double)x[c] - y[c]));
    return worst;
}

typedef struct match {
    uint32_t element;    /* in the other side, MN_NONE when none fits */
    uint32_t rotation;   /* corner c of this element is corner (c + rotation) % k of that one */
} match;

typedef struct errors {
    double pos, pos_tol;     /* the largest position error and its tolerance */
    double ratio;            /* the largest error / tolerance over every stream */
    char worst[48];          /* the stream of that ratio */
} errors;

static double centroid_x(const prim_data *p, uint32_t e)
{
    double c = 0;
    for (uint32_t i = 0; i < p->k; i++)
        c += p->streams[0].data[3 * (size_t)p->corners[(size_t)e * p->k + i]];
    return c / p->k;
}

typedef struct keyed {
    double x;
    uint32_t e;
} keyed;

static int by_x(const void *a, const void *b)
{
    double x = ((const keyed *)a)->x, y = ((const keyed *)b)->x;
    return x < y ? -1 : x > y;
}

/* The worst error/tolerance of pairing element ea of a with eb of b under a rotation. */
static double pair_score(const prim_data *a, uint32_t ea, const prim_data *b, uint32_t eb, uint32_t rot,
                         const double *tol)
{
    double worst = 0;
    for (uint32_t c = 0; c < a->k; c++) {
        uint32_t va = a->corners[(size_t)ea * a->k + c], vb = b->corners[(size_t)eb * b->k + (c + rot) % b->k];
        for (uint32_t s = 0; s < a->stream_count; s++)
            worst = fmax(worst, stream_error(&a->streams[s], va, &b->streams[s], vb) / tol[s]);
    }
    return worst;
}

/*
 * Match every element of a to the best-fitting element of b; fold the errors into e.  Returns
 * the number of elements of a that nothing in b fits within the tolerance.
 */
static uint32_t match_elements(const prim_data *a, const prim_data *b, const double *tol, match *out,
                               errors *e)
{
    keyed *sorted = xcalloc(b->element_count + 1, sizeof *sorted);
    for (uint32_t i = 0; i < b->element_count; i++)
        sorted[i] = (keyed){centroid_x(b, i), i};
    qsort(sorted, b->element_count, sizeof *sorted, by_x);
    uint32_t missing = 0;
    for (uint32_t ea = 0; ea < a->element_count; ea++) {
        double x = centroid_x(a, ea), best = INFINITY;
        uint32_t best_e = MN_NONE, best_r = 0;
        size_t lo = 0, hi = b->element_count;
        while (lo < hi) {   /* the first with x' >= x - tol */
            size_t mid = (lo + hi) / 2;
            if (sorted[mid].x < x - tol[0])
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t i = lo; i < b->element_count && sorted[i].x <= x + tol[0]; i++)
            for (uint32_t r = 0; r < b->k; r++) {
                double s = pair_score(a, ea, b, sorted[i].e, r, tol);
                if (s < best) {
                    best = s;
                    best_e = sorted[i].e;
                    best_r = r;
                }
            }
        if (out)
            out[ea] = (match){best > 1 ? MN_NONE : best_e, best_r};
        if (best_e == MN_NONE) {
            missing++;
            continue;
        }
        missing += best > 1;
        for (uint32_t c = 0; c < a->k; c++) {
            uint32_t va = a->corners[(size_t)ea * a->k + c];
            uint32_t vb = b->corners[(size_t)best_e * b->k + (c + best_r) % b->k];
            for (uint32_t s = 0; s < a->stream_count; s++) {
                double err = stream_error(&a->streams[s], va, &b->streams[s], vb);
                if (s == 0)
                    e->pos = fmax(e->pos, err);
                if (err / tol[s] > e->ratio) {
                    e->ratio = err / tol[s];
                    snprintf(e->worst, sizeof e->worst, "%s", a->streams[s].name);
                }
            }
        }
    }
    free(sorted);
    return missing;
}

/* ---- animation ------------------------------------------------------------------------------ */

/* The largest output step over an animation's channels of one path (from the file's accessors). */
static double output_step(const side *s, uint32_t anim, mn_anim_path path)
{
    const mn_animation *a = &s->m->animations[anim];
    double worst = 0;
    json_t *samplers = json_object_get(at(s->json, "animations", anim), "samplers");
    for (uint32_t c = 0; c < a->channel_count; c++) {
        if (a->channels[c].path != path)
            continue;
        json_t *out = json_object_get(json_array_get(samplers, a->channels[c].sampler), "output");
        json_t *acc = at(s->json, "accessors", (size_t)json_integer_value(out));
        static const struct { int gl; mn_component c; } types[] = {
            {5120, MN_COMPONENT_I8}, {5121, MN_COMPONENT_U8}, {5122, MN_COMPONENT_I16},
            {5123, MN_COMPONENT_U16}, {5125, MN_COMPONENT_U32}, {5126, MN_COMPONENT_F32}};
        int gl = (int)json_integer_value(json_object_get(acc, "componentType"));
        for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
            if (types[k].gl == gl)
                worst = fmax(worst, component_step(types[k].c, json_is_true(json_object_get(acc, "normalized"))));
    }
    return worst;
}

static uint32_t depth_of(const mn_model *m)
{
    uint32_t worst = 0;
    for (uint32_t i = 0; i < m->node_count; i++) {
        uint32_t d = 1;
        for (uint32_t n = m->nodes[i].parent; n != MN_NONE; n = m->nodes[n].parent)
            d++;
        worst = d > worst ? d : worst;
    }
    return worst;
}

static int by_value(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* The animation's key times, sorted and distinct, with the midpoints between them. */
static float *sample_times(const mn_animation *a, size_t *count)
{
    size_t keys = 0;
    for (uint32_t c = 0; c < a->channel_count; c++)
        keys += a->channels[c].key_count;
    float *t = xcalloc(2 * keys + 1, sizeof *t);
    size_t n = 0;
    for (uint32_t c = 0; c < a->channel_count; c++)
        for (uint32_t k = 0; k < a->channels[c].key_count; k++)
            t[n++] = a->channels[c].times[k];
    qsort(t, n, sizeof *t, by_value);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || t[i] > t[u - 1])
            t[u++] = t[i];
    size_t keys_u = u;
    for (size_t i = 0; i + 1 < keys_u; i++)
        t[u++] = 0.5f * (t[i] + t[i + 1]);
    *count = u;
    return t;
}

typedef struct poser {
    mn_clip *clip;
    mn_pose rest, pose;
    int32_t *parents;
    float *locals;
} poser;

static void poser_open(poser *p, side *s, uint32_t anim)
{
    const mn_model *m = s->m;
    mn_error err;
    memset(p, 0, sizeof *p);
    if (mn_clip_from_gltf(m, anim, NULL, &p->clip, &err) != MN_OK)
        fail_msg("%s: animation %u: %s", s->path, anim, err.message);
    assert_int_equal(mn_pose_create(&p->rest, m->node_count, NULL, &err), MN_OK);
    assert_int_equal(mn_pose_create(&p->pose, m->node_count, NULL, &err), MN_OK);
    p->parents = xcalloc(m->node_count, sizeof *p->parents);
    p->locals = xcalloc((size_t)m->node_count * 16, sizeof(float));
    for (uint32_t i = 0; i < m->node_count; i++) {
        const mn_node *n = &m->nodes[i];
        p->parents[i] = n->parent == MN_NONE ? -1 : (int32_t)n->parent;
        assert_int_equal(mn_pose_set_joint(&p->rest, i, n->translation, n->rotation, n->scale, &err), MN_OK);
    }
}

/* Pose the side at t: its worlds and weights. */
static void poser_at(poser *p, side *s, float t)
{
    mn_error err;
    mn_pose_copy(&p->pose, &p->rest);
    assert_int_equal(mn_clip_sample(p->clip, t, &p->pose, &err), MN_OK);
    rest_weights(s);
    for (uint32_t i = 0; i < s->m->node_count; i++)
        mn_clip_sample_weights(p->clip, t, i, s->weights + (size_t)i * MAX_TARGETS, MAX_TARGETS);
    mn_pose_local_matrices(&p->pose, p->locals);
    assert_int_equal(mn_compose_worlds(p->parents, s->m->node_count, p->locals, s->worlds, &err), MN_OK);
}

static void poser_close(poser *p)
{
    mn_clip_free(p->clip);
    mn_pose_free(&p->rest);
    mn_pose_free(&p->pose);
    free(p->parents);
    free(p->locals);
}

/* ---- one variant against the plain one --------------------------------------------------------- */

typedef struct pair_state {
    prim_data pd[2];
    poseable q[2];
    match *fwd;          /* variant element → plain element */
} pair_state;

typedef struct outcome {
    errors geo;
    double anim, anim_tol;
    uint32_t missing;    /* elements without a match, both ways */
    uint32_t samples;
    bool anim_bad;
    char lacks[96];      /* attributes of the plain variant this one lacks */
} outcome;

/* Attributes of pr that pv lacks, into o->lacks; only TANGENT may be missing (glTF-Quantized
   drops it, as the assets' README says; a renderer derives it). */
static uint32_t missing_attributes(const mn_primitive *pv, const mn_primitive *pr, outcome *o)
{
    uint32_t bad = 0;
    for (uint32_t k = 0; k < pr->attribute_count; k++) {
        const mn_attribute *at = &pr->attributes[k];
        if (mn_primitive_find(pv, at->semantic, at->set) != MN_NONE || strstr(o->lacks, at->name))
            continue;
        size_t len = strlen(o->lacks);
        snprintf(o->lacks + len, sizeof o->lacks - len, "%s%s", len ? " " : "", at->name);
        bad += at->semantic != MN_SEMANTIC_TANGENT;
    }
    return bad;
}

/* Geometry of every draw pair; fills ps (one per draw) for the animation. */
static void compare_geometry(side *v, side *r, pair_state *ps, outcome *o)
{
    for (uint32_t i = 0; i < v->draw_count; i++) {
        const mn_primitive *pv = &v->m->meshes[v->draws[i].mesh].primitives[v->draws[i].prim];
        const mn_primitive *pr = &r->m->meshes[r->draws[i].mesh].primitives[r->draws[i].prim];
        o->missing += missing_attributes(pv, pr, o);
        prim_streams(v, &v->draws[i], pr, &ps[i].pd[0], &ps[i].q[0]);
        prim_streams(r, &r->draws[i], pv, &ps[i].pd[1], &ps[i].q[1]);
        prim_data *a = &ps[i].pd[0], *b = &ps[i].pd[1];
        assert_int_equal(a->stream_count, b->stream_count);
        assert_int_equal(a->k, b->k);
        double tol[MAX_STREAMS];
        for (uint32_t s = 0; s < a->stream_count; s++) {
            assert_string_equal(a->streams[s].name, b->streams[s].name);
            tol[s] = (a->streams[s].tol + b->streams[s].tol) * tolerance_scale;
        }
        o->geo.pos_tol = fmax(o->geo.pos_tol, tol[0]);
        ps[i].fwd = xcalloc(a->element_count + 1, sizeof *ps[i].fwd);
        uint32_t miss = match_elements(a, b, tol, ps[i].fwd, &o->geo);
        miss += match_elements(b, a, tol, NULL, &o->geo);
        if (miss)
            print_message("    draw %u (node %u): %u of %u / %u elements have no match\n", i, v->draws[i].node,
                          miss, a->element_count, b->element_count);
        o->missing += miss;
    }
}

/* The posed-position tolerance of one animation: rest tolerance, plus what the outputs' steps move. */
static double anim_tolerance(side *v, side *r, uint32_t anim, const pair_state *ps, double extent)
{
    double tol = 0;
    double dn = 0;
    for (uint32_t i = 0; i < v->draw_count; i++) {
        tol = fmax(tol, ps[i].pd[0].pos_tol + ps[i].pd[1].pos_tol);
        dn = fmax(dn, fmax(ps[i].q[0].delta_norm, ps[i].q[1].delta_norm));
    }
    uint32_t depth = depth_of(v->m) > depth_of(r->m) ? depth_of(v->m) : depth_of(r->m);
    side *sides[2] = {v, r};
    for (int k = 0; k < 2; k++) {
        side *s = sides[k];
        /* A quaternion off by a step per component turns by up to about 4 steps (2|dq|, four
           components); a scale step stretches by its size; each along the whole chain. */
        tol += extent * depth * (4 * output_step(s, anim, MN_PATH_ROTATION) + output_step(s, anim, MN_PATH_SCALE));
        tol += depth * output_step(s, anim, MN_PATH_TRANSLATION) * extent;
        tol += output_step(s, anim, MN_PATH_WEIGHTS) * dn;
    }
    return (tol + 1e-5 * extent * depth) * tolerance_scale;
}

static void compare_animation(side *v, side *r, pair_state *ps, outcome *o)
{
    assert_int_equal(v->m->animation_count, r->m->animation_count);
    double extent = 0;
    for (uint32_t i = 0; i < v->draw_count; i++)
        extent = fmax(extent, ps[i].pd[1].extent);
    for (uint32_t a = 0; a < v->m->animation_count; a++) {
        poser pv, pr;
        poser_open(&pv, v, a);
        poser_open(&pr, r, a);
        size_t count;
        float *times = sample_times(&v->m->animations[a], &count);
        double tol = anim_tolerance(v, r, a, ps, extent);
        o->anim_tol = fmax(o->anim_tol, tol);
        for (size_t k = 0; k < count; k++) {
            poser_at(&pv, v, times[k]);
            poser_at(&pr, r, times[k]);
            o->samples++;
            for (uint32_t i = 0; i < v->draw_count; i++) {
                prim_data *da = &ps[i].pd[0], *db = &ps[i].pd[1];
                float *xa = xcalloc(3 * (size_t)da->vertex_count + 1, sizeof(float));
                float *xb = xcalloc(3 * (size_t)db->vertex_count + 1, sizeof(float));
                posed_positions(v, &v->draws[i], ps[i].q[0].base, ps[i].q[0].deltas, ps[i].q[0].joints,
                                ps[i].q[0].wts, ps[i].q[0].mats, xa);
                posed_positions(r, &r->draws[i], ps[i].q[1].base, ps[i].q[1].deltas, ps[i].q[1].joints,
                                ps[i].q[1].wts, ps[i].q[1].mats, xb);
                for (uint32_t e = 0; e < da->element_count; e++) {
                    match mt = ps[i].fwd[e];
                    if (mt.element == MN_NONE)
                        continue;
                    for (uint32_t c = 0; c < da->k; c++) {
                        uint32_t va = da->corners[(size_t)e * da->k + c];
                        uint32_t vb = db->corners[(size_t)mt.element * db->k + (c + mt.rotation) % db->k];
                        for (int x = 0; x < 3; x++) {
                            double err = fabs((double)xa[3 * (size_t)va + x] - xb[3 * (size_t)vb + x]);
                            if (err > tol && !o->anim_bad) {
                                print_message("    animation %u at t=%g: draw %u vertex %u off by %g (tolerance %g)\n",
                                              a, (double)times[k], i, va, err, tol);
                                o->anim_bad = true;
                            }
                            o->anim = fmax(o->anim, err);
                        }
                    }
                }
                free(xa);
                free(xb);
            }
        }
        free(times);
        poser_close(&pv);
        poser_close(&pr);
    }
}

static void perturb_first_position(side *s)
{
    const mn_primitive *p = &s->m->meshes[s->draws[0].mesh].primitives[s->draws[0].prim];
    const mn_accessor *a = &s->m->accessors[mn_primitive_find(p, MN_SEMANTIC_POSITION, 0)];
    assert_int_equal(a->component, MN_COMPONENT_F32);
    float x;
    memcpy(&x, a->data, sizeof x);
    x += perturb;
    memcpy((void *)(uintptr_t)a->data, &x, sizeof x);   /* the file's bytes, which the model owns */
}

/* Compare one variant file with the plain one and print its line; true when they agree. */
static bool compare_variant(const char *model, const char *label, const char *path, const char *plain)
{
    side v, r;
    side_open(&v, path);
    if (perturb != 0)
        perturb_first_position(&v);
    side_open(&r, plain);
    if (v.draw_count != r.draw_count)
        fail_msg("%s %s: %u drawn primitives, the plain variant %u", model, label, v.draw_count, r.draw_count);
    pair_state *ps = xcalloc(v.draw_count + 1, sizeof *ps);
    outcome o = {0};
    snprintf(o.geo.worst, sizeof o.geo.worst, "-");
    compare_geometry(&v, &r, ps, &o);
    compare_animation(&v, &r, ps, &o);
    char anim[96];
    if (v.m->animation_count == 0)
        snprintf(anim, sizeof anim, "none");
    else
        snprintf(anim, sizeof anim, "%.3g <= %.3g, %.2f of it (%u samples)", o.anim, o.anim_tol,
                 o.anim / o.anim_tol, o.samples);
    print_message("%-22s %-15s geometry %.3g <= %.3g, worst %.2f of tolerance (%s); animation %s%s%s\n",
                  model, label, o.geo.pos, o.geo.pos_tol, o.geo.ratio, o.geo.worst, anim,
                  o.lacks[0] ? "; lacks " : "", o.lacks);
    bool ok = o.missing == 0 && !o.anim_bad;
    for (uint32_t i = 0; i < v.draw_count; i++) {
        for (int k = 0; k < 2; k++) {
            prim_free(&ps[i].pd[k]);
            poseable_free(&ps[i].q[k]);
        }
        free(ps[i].fwd);
    }
    free(ps);
    side_close(&v);
    side_close(&r);
    return ok;
}

/* ---- the variants ------------------------------------------------------------------------------ */

/* Models without a plain variant of their own: the model whose plain variant they hold. */
static const char *plain_model_of(const char *model)
{
    return strcmp(model, "BoxMeshopt") == 0 ? "Box" : model;
}

/* "a/b" into out, the test failing when it does not fit. */
static void join(char *out, size_t size, const char *a, const char *b)
{
    int n = snprintf(out, size, "%s/%s", a, b);
    assert_true(n >= 0 && (size_t)n < size);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted names in a folder (not "." or ".."); free each and the array. */
static char **list_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    *count = 0;
    if (!d)
        return NULL;
    size_t cap = 16;
    char **names = xcalloc(cap, sizeof *names);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (*count == cap) {
            names = realloc(names, (cap *= 2) * sizeof *names);
            assert_non_null(names);
        }
        names[(*count)++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, *count, sizeof *names, by_name);
    return names;
}

static void free_list(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

static bool is_model_file(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && strcmp(name + n - 5, ".gltf") == 0) || (n > 4 && strcmp(name + n - 4, ".glb") == 0);
}

/* Every model file in folder `dir` compared with plain, labelled `variant` (or by file name). */
static uint32_t compare_folder(const char *model, const char *variant, const char *dir, const char *plain,
                               uint32_t *compared)
{
    size_t count;
    char **files = list_dir(dir, &count);
    uint32_t bad = 0;
    for (size_t f = 0; f < count; f++) {
        if (!is_model_file(files[f]))
            continue;
        char path[1200];
        join(path, sizeof path, dir, files[f]);
        bad += !compare_variant(model, variant ? variant : files[f], path, plain);
        ++*compared;
    }
    free_list(files, count);
    return bad;
}

static void test_every_file_variant_agrees_with_the_plain_one(void **state)
{
    (void)state;
    mn_test_need_assets();
    char root[1024];
    snprintf(root, sizeof root, "%s/gltf", mn_test_assets_dir());
    size_t count;
    char **models = list_dir(root, &count);
    assert_true(count > 0);
    uint32_t bad = 0, compared = 0;
    for (size_t i = 0; i < count; i++) {
        char plain[1400], dir[1200];
        const char *pm = plain_model_of(models[i]);
        char rel[600];
        snprintf(rel, sizeof rel, "%s/glTF/%s.gltf", pm, pm);
        join(plain, sizeof plain, root, rel);
        join(dir, sizeof dir, root, models[i]);
        size_t nv;
        char **variants = list_dir(dir, &nv);
        for (size_t k = 0; k < nv; k++) {
            char vdir[1400];
            join(vdir, sizeof vdir, dir, variants[k]);
            if (strncmp(variants[k], "glTF", 4) == 0 && !strchr(variants[k], '.'))
                bad += compare_folder(models[i], variants[k], vdir, plain, &compared);
        }
        /* Files beside the variant folders (BoxMeshopt's two encodings). */
        bad += compare_folder(models[i], NULL, dir, plain, &compared);
        free_list(variants, nv);
    }
    free_list(models, count);
    print_message("%u variants compared, %u disagree\n", compared, bad);
    assert_int_equal(bad, 0);
}

static void test_every_draco_variant_agrees_with_the_plain_one(void **state)
{
    (void)state;
    const char *dir = getenv("MN_VARIANTS_DRACO_DIR");
    if (!dir || !*dir) {
        print_message("    MN_VARIANTS_DRACO_DIR is not set: tests/test_gltf_variants_draco.sh runs this case\n");
        skip();
    }
    mn_test_need_assets();
    size_t count;
    char **files = list_dir(dir, &count);
    uint32_t bad = 0, compared = 0;
    for (size_t i = 0; i < count; i++) {
        size_t n = strlen(files[i]);
        if (n < 5 || strcmp(files[i] + n - 4, ".glb") != 0)
            continue;
        char model[256], path[1400], rel[600];
        snprintf(model, sizeof model, "%.*s", (int)(n - 4), files[i]);
        join(path, sizeof path, dir, files[i]);
        snprintf(rel, sizeof rel, "gltf/%s/glTF/%s.gltf", model, model);
        bad += !compare_variant(model, "Draco", path, mn_test_asset(rel));
        compared++;
    }
    free_list(files, count);
    print_message("%u Draco variants compared, %u disagree\n", compared, bad);
    assert_true(compared > 0);
    assert_int_equal(bad, 0);
}

/* The comparison can fail: a position moved by 250 times Box's tolerance, and the quantized
   AnimatedMorphCube against an eighth of its tolerances (its errors are real, up to 0.44 of the
   normals' tolerance and half the animation's). */
static void test_a_variant_that_differs_is_caught(void **state)
{
    (void)state;
    mn_test_need_assets();
    const char *box = mn_test_asset("gltf/Box/glTF/Box.gltf");
    perturb = 1e-3f;
    assert_false(compare_variant("Box", "moved", mn_test_asset("gltf/Box/glTF-Embedded/Box.gltf"), box));
    perturb = 0;
    tolerance_scale = 0.125;
    assert_false(compare_variant("AnimatedMorphCube", "strict",
                                 mn_test_asset("gltf/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf"),
                                 mn_test_asset("gltf/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf")));
    tolerance_scale = 1;
}

int main(void)
{
    mn_test_binary_needs_assets();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_file_variant_agrees_with_the_plain_one),
        cmocka_unit_test(test_every_draco_variant_agrees_with_the_plain_one),
        cmocka_unit_test(test_a_variant_that_differs_is_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
