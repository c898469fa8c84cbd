/*
 * The synthetic expression head (see synthetic_head.h): geometry, basis,
 * skinning and eyes computed from the options alone, so the same options
 * give the same bytes on every machine.
 */
#include "synthetic_head.h"
#include "xorshift.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD_RADIUS 0.1f
#define EYE_RADIUS 0.012f
#define EYE_RINGS 4u
#define EYE_SEGMENTS 6u
#define PI_F 3.14159265358979f

static void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "synthetic_head: out of memory\n");
        abort();
    }
    return p;
}

static uint32_t sphere_vertex_count(uint32_t rings, uint32_t segments)
{
    return 2 + (rings - 1) * segments;
}

static uint32_t sphere_face_count(uint32_t rings, uint32_t segments)
{
    return 2 * segments * (rings - 1);
}

/*
 * A lat-long sphere: vertex 0 the top pole, then (rings - 1) rings of
 * `segments` vertices, then the bottom pole; written from vertex `base`.
 * Triangles (and, when quads != NULL, the bands' quads) appended at *faces,
 * *quads.  uv (when not NULL) is longitude, latitude in [0, 1].
 */
static void add_sphere(float *positions, float *uv, uint32_t base, const float centre[3],
                       float radius, uint32_t rings, uint32_t segments, uint32_t **faces,
                       uint32_t **quads)
{
    uint32_t v = base;
    for (uint32_t ring = 0; ring <= rings; ring++) {
        float lat = PI_F * (float)ring / (float)rings; /* 0 at the top */
        uint32_t count = (ring == 0 || ring == rings) ? 1 : segments;
        for (uint32_t s = 0; s < count; s++, v++) {
            float lon = 2.0f * PI_F * (float)s / (float)segments;
            positions[3 * v + 0] = centre[0] + radius * sinf(lat) * sinf(lon);
            positions[3 * v + 1] = centre[1] + radius * cosf(lat);
            positions[3 * v + 2] = centre[2] + radius * sinf(lat) * cosf(lon);
            if (uv) {
                uv[2 * v + 0] = (float)s / (float)segments;
                uv[2 * v + 1] = 1.0f - (float)ring / (float)rings;
            }
        }
    }
    uint32_t top = base, bottom = v - 1;
    for (uint32_t s = 0; s < segments; s++) {
        uint32_t s1 = (s + 1) % segments;
        uint32_t *f = *faces;
        f[0] = top, f[1] = base + 1 + s, f[2] = base + 1 + s1;
        *faces += 3;
        for (uint32_t ring = 1; ring + 1 < rings; ring++) {
            uint32_t a = base + 1 + (ring - 1) * segments + s;
            uint32_t b = base + 1 + (ring - 1) * segments + s1;
            uint32_t c = a + segments, d = b + segments;
            f = *faces;
            f[0] = a, f[1] = c, f[2] = d, f[3] = a, f[4] = d, f[5] = b;
            *faces += 6;
            if (quads) {
                uint32_t *q = *quads;
                q[0] = a, q[1] = c, q[2] = d, q[3] = b;
                *quads += 4;
            }
        }
        uint32_t last = base + 1 + (rings - 2) * segments;
        f = *faces;
        f[0] = last + s, f[1] = bottom, f[2] = last + s1;
        *faces += 3;
    }
}

/* The expression regions for E coefficients (see the header). */
static uint32_t make_regions(mn_aosrig_region *regions, uint32_t e_count)
{
    if (e_count < 4) {
        regions[0] = (mn_aosrig_region){"lower_face", e_count, 0, true, e_count > 1 ? 1 : 0};
        return 1;
    }
    uint32_t eye = e_count / 4;
    uint32_t lower = e_count - 2 * eye - 1;
    regions[0] = (mn_aosrig_region){"left_eye", eye, 0, true, (eye + 1) / 2};
    regions[1] = (mn_aosrig_region){"right_eye", eye, eye, true, (eye + 1) / 2};
    regions[2] = (mn_aosrig_region){"lower_face", lower, 2 * eye, true, (lower + 1) / 2};
    regions[3] = (mn_aosrig_region){"pupils", 1, 2 * eye + lower, false, 0};
    return 4;
}

/* Row-major rest worlds: a translation each, neck_02 tilted 0.2 rad about X. */
static void make_joints(synthetic_head *h, float unit)
{
    static const float heights[3] = {1.45f, 1.52f, 1.60f};
    memset(h->rest_world, 0, sizeof h->rest_world);
    for (int j = 0; j < 3; j++) {
        float *m = h->rest_world + 16 * j;
        m[0] = m[5] = m[10] = m[15] = 1.0f;
        m[3] = 0.0f;
        m[7] = heights[j] * unit;
        m[11] = 0.01f * (float)j * unit;
        h->joint_parents[j] = j - 1;
    }
    float c = cosf(0.2f), s = sinf(0.2f);
    float *tilt = h->rest_world + 16;
    tilt[5] = c, tilt[6] = -s, tilt[9] = s, tilt[10] = c;
}

/* Weights by height: head takes w, neck_02 the rest, both multiples of 1/1024 (exact in f16). */
static void make_skin(synthetic_head *h, uint32_t head_vertices, float unit)
{
    for (uint32_t v = 0; v < h->vertex_count; v++) {
        float y = h->neutral[3 * v + 1] / unit;
        float w = v < head_vertices ? (y + HEAD_RADIUS) / (2.0f * HEAD_RADIUS) : 1.0f;
        w = w < 0 ? 0 : w > 1 ? 1 : w;
        float head_w = floorf(w * 1024.0f + 0.5f) / 1024.0f;
        h->skin_index[2 * v + 0] = 2;
        h->skin_index[2 * v + 1] = 1;
        mn_f16_from_float(head_w, &h->skin_weight[2 * v + 0], NULL);
        mn_f16_from_float(1.0f - head_w, &h->skin_weight[2 * v + 1], NULL);
    }
}

static void make_basis(synthetic_head *h, uint32_t e_count, uint32_t seed, float unit)
{
    uint32_t state = seed * 2654435761u + 0x9e3779b9u;
    if (state == 0)
        state = 1;
    size_t halves = (size_t)h->vertex_count * e_count * 3;
    for (size_t i = 0; i < halves; i++)
        if (mn_f16_from_float(mn_test_random_in(&state, -0.01f, 0.01f) * unit, &h->basis[i], NULL) !=
            MN_OK)
            abort();
    for (uint32_t e = 0; e < e_count; e++)
        h->basis_scale[e] = mn_test_random_in(&state, 0.5f, 1.5f);
}

static void add_blob(synthetic_head *h, const char *name, mn_aosrig_dtype dtype, const void *data,
                     uint32_t rank, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t size)
{
    uint32_t i = h->blob_count++;
    uint64_t *shape = h->shapes_storage[i];
    shape[0] = d0, shape[1] = d1, shape[2] = d2;
    h->blobs[i] = (mn_aosrig_blob){name, dtype, shape, rank, data, size, 0};
}

static void add_blobs(synthetic_head *h, uint32_t e_count)
{
    uint64_t v = h->vertex_count, e = e_count;
    add_blob(h, "neutral", MN_AOSRIG_F32, h->neutral, 2, v, 3, 0, 12 * v);
    add_blob(h, "basis", MN_AOSRIG_F16, h->basis, 3, v, e, 3, 4 * ((v * e * 3 + 1) / 2));
    add_blob(h, "basisScale", MN_AOSRIG_F32, h->basis_scale, 1, e, 0, 0, 4 * e);
    add_blob(h, "faces", MN_AOSRIG_U32, h->faces, 2, h->face_count, 3, 0, 12ull * h->face_count);
    if (h->quads)
        add_blob(h, "quads", MN_AOSRIG_U32, h->quads, 2, h->quad_count, 4, 0,
                 16ull * h->quad_count);
    if (h->uv)
        add_blob(h, "uv", MN_AOSRIG_F32, h->uv, 2, v, 2, 0, 8 * v);
    add_blob(h, "skinIndex", MN_AOSRIG_U16, h->skin_index, 2, v, 2, 0, 4 * v);
    add_blob(h, "skinWeight", MN_AOSRIG_F16, h->skin_weight, 2, v, 2, 0, 4 * v);
    add_blob(h, "jointParents", MN_AOSRIG_I32, h->joint_parents, 1, 3, 0, 0, 12);
    add_blob(h, "restWorld", MN_AOSRIG_F32, h->rest_world, 2, 3, 16, 0, 192);
    add_blob(h, "eyePositions", MN_AOSRIG_F32, h->eye_positions, 2, 2, 3, 0, 24);
    add_blob(h, "eyeWeights", MN_AOSRIG_F32, h->eye_weights, 2, 2, v, 0, 8 * v);
    if (h->stitch_local)
        add_blob(h, "stitchLocal", MN_AOSRIG_F32, h->stitch_local, 2, v, 3, 0, 12 * v);
}

static void make_header(synthetic_head *h, const synthetic_head_options *o, uint32_t e_count,
                        float unit)
{
    static const char *const joints[3] = {"neck_01", "neck_02", "head"};
    mn_aosrig_header *hd = &h->header;
    memset(hd, 0, sizeof *hd);
    hd->units = o->centimetres ? MN_AOSRIG_CENTIMETRES : MN_AOSRIG_METRES;
    hd->vertex_count = h->vertex_count;
    hd->coeff_count = e_count;
    hd->max_influence = 2;
    h->names_storage = xcalloc(e_count, sizeof *h->names_storage);
    for (uint32_t e = 0; e < e_count; e++) {
        h->names_storage[e] = xcalloc(16, 1);
        snprintf(h->names_storage[e], 16, "expr_%03u", e);
    }
    hd->names = (const char *const *)h->names_storage;
    hd->head_ext.expr_dim = e_count;
    hd->head_ext.gaze_dim = 4;
    hd->head_ext.dim = e_count + 4;
    hd->head_ext.region_count = make_regions(h->regions_storage, e_count);
    hd->head_ext.regions = h->regions_storage;
    hd->eye_joints[0] = hd->eye_joints[1] = "head";
    hd->joint_names = joints;
    hd->joint_count = 3;
    for (int i = 0; i < 16; i++)
        hd->bind_transform[i] = (i % 5 == 0) ? 1.0 : 0.0;
    if (o->bind_transform) {
        /* a turn of 0.1 rad about Y and a lift to the head joint, row-major */
        double c = cos(0.1), s = sin(0.1);
        double m[16] = {c, 0, s, 0.0, 0, 1, 0, 1.6 * unit, -s, 0, c, 0.02 * unit, 0, 0, 0, 1};
        memcpy(hd->bind_transform, m, sizeof m);
        hd->has_bind_transform = true;
    }
    hd->mouth_json = o->mouth ? "{\"jaw\":\"head\",\"teeth\":[0.5,-1e-7],\"open\":true}" : NULL;
    hd->source_json = "{\"tool\":\"synthetic_head\",\"note\":\"made by the tests\"}";
}

void synthetic_head_build(synthetic_head *h, const synthetic_head_options *options)
{
    synthetic_head_options o = options ? *options : (synthetic_head_options){0};
    uint32_t rings = o.rings ? o.rings : 8, segments = o.segments ? o.segments : 12;
    uint32_t e_count = o.coeff_count ? o.coeff_count : 8;
    if (rings < 2 || segments < 3) {
        fprintf(stderr, "synthetic_head: rings >= 2 and segments >= 3\n");
        abort();
    }
    float unit = o.centimetres ? 100.0f : 1.0f;
    memset(h, 0, sizeof *h);
    uint32_t head_v = sphere_vertex_count(rings, segments);
    uint32_t eye_v = sphere_vertex_count(EYE_RINGS, EYE_SEGMENTS);
    h->vertex_count = head_v + 2 * eye_v;
    h->face_count = sphere_face_count(rings, segments) + 2 * sphere_face_count(EYE_RINGS, EYE_SEGMENTS);
    uint32_t v = h->vertex_count;
    h->neutral = xcalloc((size_t)v * 3, sizeof(float));
    h->basis = xcalloc((size_t)v * e_count * 3 + 1, sizeof(uint16_t));
    h->basis_scale = xcalloc(e_count, sizeof(float));
    h->faces = xcalloc((size_t)h->face_count * 3, sizeof(uint32_t));
    h->skin_index = xcalloc((size_t)v * 2, sizeof(uint16_t));
    h->skin_weight = xcalloc((size_t)v * 2, sizeof(uint16_t));
    h->eye_weights = xcalloc((size_t)v * 2, sizeof(float));
    if (o.uv)
        h->uv = xcalloc((size_t)v * 2, sizeof(float));
    if (o.quads) {
        h->quad_count = segments * (rings - 2) + 2 * EYE_SEGMENTS * (EYE_RINGS - 2);
        h->quads = xcalloc((size_t)h->quad_count * 4, sizeof(uint32_t));
    }
    uint32_t *faces = h->faces, *quads = h->quads;
    const float head_centre[3] = {0, 0, 0};
    add_sphere(h->neutral, h->uv, 0, head_centre, HEAD_RADIUS, rings, segments, &faces,
               h->quads ? &quads : NULL);
    const float eyes[6] = {0.035f, 0.03f, 0.085f, -0.035f, 0.03f, 0.085f};
    for (int k = 0; k < 2; k++) {
        uint32_t base = head_v + (uint32_t)k * eye_v;
        add_sphere(h->neutral, h->uv, base, eyes + 3 * k, EYE_RADIUS, EYE_RINGS, EYE_SEGMENTS,
                   &faces, h->quads ? &quads : NULL);
        for (uint32_t i = 0; i < eye_v; i++)
            h->eye_weights[(size_t)k * v + base + i] = 1.0f;
    }
    for (size_t i = 0; i < (size_t)v * 3; i++)
        h->neutral[i] *= unit;
    for (int i = 0; i < 6; i++)
        h->eye_positions[i] = eyes[i] * unit;
    if (o.stitch) {
        h->stitch_local = xcalloc((size_t)v * 3, sizeof(float));
        for (uint32_t i = 0; i < head_v; i++) /* the lower half eases down towards the neck */
            if (h->neutral[3 * i + 1] < 0)
                h->stitch_local[3 * i + 1] = 0.05f * h->neutral[3 * i + 1];
    }
    make_basis(h, e_count, o.seed, unit);
    make_joints(h, unit);
    make_skin(h, head_v, unit);
    make_header(h, &o, e_count, unit);
    add_blobs(h, e_count);
}

mn_status synthetic_head_pack(const synthetic_head *h, uint8_t **out, size_t *size, mn_error *err)
{
    return mn_aosrig_write(&h->header, h->blobs, h->blob_count, NULL, out, size, err);
}

int synthetic_head_blob(const synthetic_head *h, const char *name)
{
    for (uint32_t i = 0; i < h->blob_count; i++)
        if (strcmp(h->blobs[i].name, name) == 0)
            return (int)i;
    return -1;
}

void synthetic_head_free(synthetic_head *h)
{
    if (h->names_storage)
        for (uint32_t e = 0; e < h->header.coeff_count; e++)
            free(h->names_storage[e]);
    free(h->names_storage);
    free(h->neutral);
    free(h->basis);
    free(h->basis_scale);
    free(h->faces);
    free(h->quads);
    free(h->uv);
    free(h->skin_index);
    free(h->skin_weight);
    free(h->eye_weights);
    free(h->stitch_local);
    memset(h, 0, sizeof *h);
}
