/*
 * KHR_draco_mesh_compression, decoded with libdraco:
 *
 *   - the seed fuzz/corpus/gltf/draco_box.gltf (Box, Draco-encoded by
 *     gltf-transform with 14-bit positions) decodes to the box: 24 vertices on
 *     the cube's faces within the quantisation step, 36 indices, unit normals;
 *   - hostile edits of it are refused with one error naming the item: the
 *     Draco bufferView cut short, accessor counts that disagree with the
 *     decoded points or triangles, an attribute id the data lacks, a name the
 *     primitive lacks, a mode Draco cannot hold, an accessor two compressed
 *     primitives share; every length of the Draco data and every byte of it
 *     overwritten are refused or read without a crash (ASan decides);
 *   - with MN_DRACO_DIR (tests/test_gltf_draco_models.sh fills it from the sample
 *     assets with gltf-transform, at the bits below; with CesiumMan quantized, so
 *     every integer accessor type, and Box with a float and a u16 generic
 *     attribute), each Draco model agrees
 *     with its uncompressed source: every decoded vertex (all attributes, and
 *     the morph target deltas, which stay uncompressed) matches a source vertex
 *     within the quantisation step the encoder was given, every source vertex
 *     is matched, the triangles cover the same area, skins and animations load;
 *   - Draco data that holds no attribute (gltf-transform leaves a sparse POSITION out of it:
 *     fuzz/corpus/gltf/draco_sparse_triangle.glb, a triangle so encoded) reads its faces
 *     against the primitive's uncompressed vertices;
 *   - a build without libdraco refuses the seed naming what it lacks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <marionette/gltf.h>
#include <marionette/model.h>

#include "assets.h"

#define SEED "fuzz/corpus/gltf/draco_box.gltf"
#define DRACO_PATH "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression"

/* The bits tests/test_gltf_draco_models.sh gives gltf-transform. */
#define BITS_POSITION 14
#define BITS_NORMAL 10
#define BITS_TEXCOORD 12
#define BITS_COLOR 8
#define BITS_GENERIC 12

/* ---- the seed -------------------------------------------------------------------------- */

static void test_seed_decodes_to_the_box(void **state)
{
    (void)state;
    mn_model *m = NULL;
    mn_error err;
    mn_status st = mn_gltf_read_file(SEED, NULL, &m, &err);
#ifndef MN_WITH_DRACO
    assert_int_equal(st, MN_UNSUPPORTED_EXTENSION);
    print_message("    %s: %s\n", err.path, err.message);
    assert_non_null(strstr(err.message, "no Draco decoder"));
    return;
#endif
    if (st != MN_OK)
        fail_msg("%s: %s", err.path, err.message);
    const mn_primitive *p = &m->meshes[0].primitives[0];
    assert_int_equal(p->vertex_count, 24);
    const mn_accessor *idx = &m->accessors[p->indices];
    assert_int_equal(idx->count, 36);
    uint32_t indices[36];
    assert_int_equal(mn_accessor_unpack_u32(idx, indices, 36), 36);
    for (int i = 0; i < 36; i++)
        assert_true(indices[i] < 24);
    float pos[72], nrm[72];
    assert_int_equal(mn_accessor_unpack_floats(&m->accessors[mn_primitive_find(p, MN_SEMANTIC_POSITION, 0)], pos, 72), 72);
    assert_int_equal(mn_accessor_unpack_floats(&m->accessors[mn_primitive_find(p, MN_SEMANTIC_NORMAL, 0)], nrm, 72), 72);
    double step = 1.0 / ((1 << BITS_POSITION) - 1);
    for (int v = 0; v < 24; v++) {
        /* Each corner of the unit cube: every coordinate ±0.5 within the step. */
        for (int k = 0; k < 3; k++)
            assert_true(fabs(fabs(pos[3 * v + k]) - 0.5) <= step);
        double len = sqrt(nrm[3 * v] * nrm[3 * v] + nrm[3 * v + 1] * nrm[3 * v + 1] + nrm[3 * v + 2] * nrm[3 * v + 2]);
        assert_true(fabs(len - 1.0) < 1e-3);
    }
    mn_model_free(m);
}

/* ---- hostile edits --------------------------------------------------------------------- */

#ifdef MN_WITH_DRACO
static json_t *load_seed(void)
{
    json_error_t e;
    json_t *root = json_load_file(SEED, 0, &e);
    if (!root)
        fail_msg("%s: %s", SEED, e.text);
    return root;
}

static mn_status read_json(json_t *root, mn_model **m, mn_error *err)
{
    char *text = json_dumps(root, JSON_COMPACT);
    assert_non_null(text);
    mn_status st = mn_gltf_read_memory(text, strlen(text), NULL, m, err);
    free(text);
    return st;
}

static void expect(json_t *root, mn_status code, const char *path, const char *needle)
{
    mn_model *m = NULL;
    mn_error err;
    mn_status st = read_json(root, &m, &err);
    print_message("    %s: %s: %s\n", mn_status_name(st), err.path, err.message);
    assert_int_equal(st, code);
    assert_null(m);
    assert_string_equal(err.path, path);
    assert_null(strchr(err.message, '\n'));
    if (needle && !strstr(err.message, needle))
        fail_msg("the message does not say \"%s\"", needle);
    json_decref(root);
}

static json_t *prim_of(json_t *root)
{
    return json_array_get(json_object_get(json_array_get(json_object_get(root, "meshes"), 0), "primitives"), 0);
}

static json_t *ext_of(json_t *root)
{
    return json_object_get(json_object_get(prim_of(root), "extensions"), "KHR_draco_mesh_compression");
}

static json_t *accessor(json_t *root, size_t i)
{
    return json_array_get(json_object_get(root, "accessors"), i);
}

static void test_hostile_edits_are_refused_naming_the_item(void **state)
{
    (void)state;
    json_t *r = load_seed();
    json_object_set_new(json_array_get(json_object_get(r, "bufferViews"), 0), "byteLength", json_integer(60));
    expect(r, MN_DRACO, DRACO_PATH ".bufferView", "60 bytes");

    r = load_seed();   /* both attributes' counts (they must agree with each other) */
    json_object_set_new(accessor(r, 1), "count", json_integer(25));
    json_object_set_new(accessor(r, 2), "count", json_integer(25));
    expect(r, MN_COUNT_MISMATCH, DRACO_PATH ".attributes.NORMAL", "24 points");

    r = load_seed();
    json_object_set_new(accessor(r, 0), "count", json_integer(33));
    expect(r, MN_COUNT_MISMATCH, DRACO_PATH, "12 triangles");

    r = load_seed();
    json_object_set_new(json_object_get(ext_of(r), "attributes"), "POSITION", json_integer(7));
    expect(r, MN_DRACO, DRACO_PATH ".attributes.POSITION", "no attribute with id 7");

    r = load_seed();
    json_object_set_new(json_object_get(ext_of(r), "attributes"), "TEXCOORD_0", json_integer(0));
    expect(r, MN_INVALID_VALUE, DRACO_PATH ".attributes.TEXCOORD_0", "do not name it");

    r = load_seed();
    json_object_set_new(json_object_get(ext_of(r), "attributes"), "NORMAL", json_string("one"));
    expect(r, MN_JSON_TYPE, DRACO_PATH ".attributes.NORMAL", NULL);

    r = load_seed();
    json_object_set_new(prim_of(r), "mode", json_integer(1));
    expect(r, MN_DRACO, DRACO_PATH, "mode is 1");

    r = load_seed();
    json_object_del(prim_of(r), "indices");
    expect(r, MN_DRACO, DRACO_PATH, "no indices accessor");

    r = load_seed();   /* a second compressed primitive over the same accessors */
    json_t *prims = json_object_get(json_array_get(json_object_get(r, "meshes"), 0), "primitives");
    json_array_append_new(prims, json_deep_copy(json_array_get(prims, 0)));
    expect(r, MN_INVALID_VALUE, "meshes[0].primitives[1].extensions.KHR_draco_mesh_compression.attributes.NORMAL",
           "already filled");

    r = load_seed();   /* the NORMAL accessor declared VEC4 cannot be a NORMAL: refused before decoding */
    json_object_set_new(accessor(r, 1), "type", json_string("VEC4"));
    expect(r, MN_INVALID_VALUE, "meshes[0].primitives[0].attributes.NORMAL", NULL);
}

/* The seed with its Draco bytes replaced by `bytes` (its buffer and view resized). */
static json_t *with_draco_bytes(const uint8_t *bytes, size_t n)
{
    static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    json_t *r = load_seed();
    size_t cap = 64 + (n + 2) / 3 * 4 + 1;
    char *uri = malloc(cap);
    assert_non_null(uri);
    size_t o = (size_t)snprintf(uri, cap, "data:application/octet-stream;base64,");
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)bytes[i] << 16 | (i + 1 < n ? (uint32_t)bytes[i + 1] << 8 : 0) |
                     (i + 2 < n ? bytes[i + 2] : 0);
        uri[o++] = B64[v >> 18 & 63];
        uri[o++] = B64[v >> 12 & 63];
        uri[o++] = i + 1 < n ? B64[v >> 6 & 63] : '=';
        uri[o++] = i + 2 < n ? B64[v & 63] : '=';
    }
    uri[o] = '\0';
    json_t *buf = json_array_get(json_object_get(r, "buffers"), 0);
    json_object_set_new(buf, "uri", json_string(uri));
    json_object_set_new(buf, "byteLength", json_integer((json_int_t)n));
    json_object_set_new(json_array_get(json_object_get(r, "bufferViews"), 0), "byteLength", json_integer((json_int_t)n));
    free(uri);
    return r;
}

/* The seed's Draco bytes, decoded from its data: URI by the reader itself. */
static size_t seed_bytes(uint8_t *out, size_t cap)
{
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_file(SEED, NULL, &m, &err), MN_OK);
    size_t n = m->buffer_views[0].size;
    assert_true(n <= cap);
    memcpy(out, m->buffer_views[0].data, n);
    mn_model_free(m);
    return n;
}

static void test_every_cut_and_overwritten_byte_is_safe(void **state)
{
    (void)state;
    uint8_t bytes[512], copy[512];
    size_t n = seed_bytes(bytes, sizeof bytes);
    int refused = 0, read = 0;
    for (size_t len = 1; len < n; len++) {
        mn_model *m = NULL;
        mn_error err;
        json_t *r = with_draco_bytes(bytes, len);
        mn_status st = read_json(r, &m, &err);
        json_decref(r);
        /* Cut short, the data must not decode into a whole box. */
        assert_int_not_equal(st, MN_OK);
        assert_null(m);
        refused++;
    }
    for (size_t i = 0; i < n; i++) {
        for (int flip = 0; flip < 2; flip++) {
            memcpy(copy, bytes, n);
            copy[i] = flip ? (uint8_t)~copy[i] : 0xff;
            mn_model *m = NULL;
            mn_error err;
            json_t *r = with_draco_bytes(copy, n);
            mn_status st = read_json(r, &m, &err);
            json_decref(r);
            if (st == MN_OK) {
                read++;
                mn_model_free(m);
            } else {
                refused++;
            }
        }
    }
    print_message("    %zu Draco bytes: %d variants refused, %d read (each checked against its accessors)\n", n,
                  refused, read);
}

/* ---- sample models against their uncompressed source ---------------------------------------- */

typedef struct stream {
    const float *data;   /* count x comps floats */
    uint32_t comps;
    double tol;
} stream;

/* Every float of an accessor (freed by the caller). */
static float *floats_of(const mn_model *m, uint32_t accessor, uint32_t *comps)
{
    const mn_accessor *a = &m->accessors[accessor];
    *comps = mn_accessor_components(a->type);
    size_t n = (size_t)a->count * *comps;
    float *f = malloc(n * sizeof *f + 1);
    assert_non_null(f);
    assert_int_equal(mn_accessor_unpack_floats(a, f, n), n);
    return f;
}

/* The quantisation step of a semantic: the accessor's widest range over 2^bits - 1. */
static double step_of(const char *name, const float *f, uint32_t count, uint32_t comps)
{
    int bits;
    if (strcmp(name, "POSITION") == 0)
        bits = BITS_POSITION;
    else if (strcmp(name, "NORMAL") == 0)
        bits = BITS_NORMAL;
    else if (strncmp(name, "TEXCOORD_", 9) == 0)
        bits = BITS_TEXCOORD;
    else if (strncmp(name, "COLOR_", 6) == 0)
        bits = BITS_COLOR;
    else if (strncmp(name, "JOINTS_", 7) == 0)
        return 0;   /* integers: exact */
    else
        bits = BITS_GENERIC;
    double range = 0;
    for (uint32_t k = 0; k < comps; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t i = 0; i < count; i++) {
            lo = fmin(lo, f[(size_t)i * comps + k]);
            hi = fmax(hi, f[(size_t)i * comps + k]);
        }
        range = fmax(range, hi - lo);
    }
    /* Normals are octahedral: 2^bits steps over [-1, 1] in each of two octahedron coordinates,
       which the map back to the unit sphere stretches by up to 2 in a coordinate. */
    if (strcmp(name, "NORMAL") == 0)
        return 2 * 2.0 / ((1 << bits) - 1);
    return range / ((1 << bits) - 1);
}

static bool vertex_matches(const stream *a, const stream *b, uint32_t n, uint32_t i, uint32_t j)
{
    for (uint32_t s = 0; s < n; s++)
        for (uint32_t k = 0; k < a[s].comps; k++)
            if (fabs((double)a[s].data[(size_t)i * a[s].comps + k] - b[s].data[(size_t)j * b[s].comps + k]) >
                a[s].tol + 1e-6)
                return false;
    return true;
}

/* Each vertex of a (count na) has a match in b (count nb). */
static uint32_t unmatched(const stream *a, uint32_t na, const stream *b, uint32_t nb, uint32_t n)
{
    uint32_t missing = 0;
    for (uint32_t i = 0; i < na; i++) {
        bool found = false;
        for (uint32_t j = 0; j < nb && !found; j++)
            found = vertex_matches(a, b, n, i, j);
        if (!found && missing == 0) {
            /* Say which attribute keeps the first unmatched vertex from its nearest match. */
            uint32_t best = 0;
            double best_d = INFINITY;
            for (uint32_t j = 0; j < nb; j++) {
                double dd = 0;
                for (uint32_t s = 0; s < n; s++)
                    for (uint32_t k = 0; k < a[s].comps; k++)
                        dd = fmax(dd, fabs((double)a[s].data[(size_t)i * a[s].comps + k] -
                                           b[s].data[(size_t)j * b[s].comps + k]) / (a[s].tol + 1e-6));
                if (dd < best_d) {
                    best_d = dd;
                    best = j;
                }
            }
            for (uint32_t s = 0; s < n; s++) {
                double worst = 0;
                for (uint32_t k = 0; k < a[s].comps; k++)
                    worst = fmax(worst, fabs((double)a[s].data[(size_t)i * a[s].comps + k] -
                                             b[s].data[(size_t)best * b[s].comps + k]));
                if (worst > a[s].tol + 1e-6)
                    print_message("      vertex %u: stream %u differs by %g from its nearest match (tolerance %g)\n",
                                  i, s, worst, a[s].tol);
            }
        }
        missing += !found;
    }
    return missing;
}

static double area_of(const mn_model *m, const mn_primitive *p)
{
    uint32_t comps;
    float *pos = floats_of(m, mn_primitive_find(p, MN_SEMANTIC_POSITION, 0), &comps);
    const mn_accessor *ia = &m->accessors[p->indices];
    uint32_t *idx = malloc((size_t)ia->count * sizeof *idx + 4);
    assert_non_null(idx);
    mn_accessor_unpack_u32(ia, idx, ia->count);
    double area = 0;
    for (uint32_t t = 0; t + 2 < ia->count; t += 3) {
        const float *a = pos + 3 * (size_t)idx[t], *b = pos + 3 * (size_t)idx[t + 1], *c = pos + 3 * (size_t)idx[t + 2];
        double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double x = u[1] * v[2] - u[2] * v[1], y = u[2] * v[0] - u[0] * v[2], z = u[0] * v[1] - u[1] * v[0];
        area += 0.5 * sqrt(x * x + y * y + z * z);
    }
    free(idx);
    free(pos);
    return area;
}

#define MAX_STREAMS 32

/* The primitive's attributes (named as in src) and morph deltas as streams, with src's tolerances. */
static uint32_t streams_of(const mn_model *m, const mn_primitive *p, const mn_primitive *src, stream *out,
                           float **owned)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < src->attribute_count && n < MAX_STREAMS; i++) {
        const mn_attribute *at = &src->attributes[i];
        uint32_t acc = mn_primitive_find(p, at->semantic, at->set);
        if (acc == MN_NONE)
            fail_msg("the Draco primitive lacks %s", at->name);
        owned[n] = floats_of(m, acc, &out[n].comps);
        out[n].data = owned[n];
        out[n].tol = 0;
        n++;
    }
    for (uint32_t t = 0; t < p->target_count; t++) {
        const uint32_t accs[3] = {p->targets[t].position, p->targets[t].normal, p->targets[t].tangent};
        for (int k = 0; k < 3 && n < MAX_STREAMS; k++)
            if (accs[k] != MN_NONE) {
                owned[n] = floats_of(m, accs[k], &out[n].comps);
                out[n].data = owned[n];
                out[n].tol = 0;
                n++;
            }
    }
    return n;
}

static void compare_model(const char *name, const char *draco_path, const char *plain_path)
{
    mn_model *d = NULL, *s = NULL;
    mn_error err;
    if (mn_gltf_read_file(draco_path, NULL, &d, &err) != MN_OK)
        fail_msg("%s: %s: %s", draco_path, err.path, err.message);
    if (mn_gltf_read_file(plain_path, NULL, &s, &err) != MN_OK)
        fail_msg("%s: %s: %s", plain_path, err.path, err.message);
    assert_int_equal(d->mesh_count, s->mesh_count);
    assert_int_equal(d->skin_count, s->skin_count);
    assert_int_equal(d->animation_count, s->animation_count);
    for (uint32_t mi = 0; mi < s->mesh_count; mi++) {
        assert_int_equal(d->meshes[mi].primitive_count, s->meshes[mi].primitive_count);
        for (uint32_t pi = 0; pi < s->meshes[mi].primitive_count; pi++) {
            const mn_primitive *pd = &d->meshes[mi].primitives[pi], *ps = &s->meshes[mi].primitives[pi];
            assert_int_equal(pd->attribute_count, ps->attribute_count);
            assert_int_equal(pd->target_count, ps->target_count);
            stream sd[MAX_STREAMS], ss[MAX_STREAMS];
            float *od[MAX_STREAMS], *os[MAX_STREAMS];
            uint32_t n = streams_of(d, pd, ps, sd, od);
            assert_int_equal(streams_of(s, ps, ps, ss, os), n);
            for (uint32_t k = 0; k < ps->attribute_count; k++)
                sd[k].tol = ss[k].tol = step_of(ps->attributes[k].name, ss[k].data, ps->vertex_count, ss[k].comps);
            uint32_t miss_d = unmatched(sd, pd->vertex_count, ss, ps->vertex_count, n);
            uint32_t miss_s = unmatched(ss, ps->vertex_count, sd, pd->vertex_count, n);
            double ad = area_of(d, pd), as = area_of(s, ps);
            print_message("    %s mesh %u primitive %u: %u -> %u vertices, %u -> %u indices, %u streams, "
                          "area %.6g vs %.6g, unmatched %u / %u\n",
                          name, mi, pi, ps->vertex_count, pd->vertex_count, s->accessors[ps->indices].count,
                          d->accessors[pd->indices].count, n, as, ad, miss_d, miss_s);
            assert_int_equal(miss_d, 0);
            assert_int_equal(miss_s, 0);
            assert_true(fabs(ad - as) <= 1e-3 * as);
            for (uint32_t k = 0; k < n; k++) {
                free(od[k]);
                free(os[k]);
            }
        }
    }
    mn_model_free(d);
    mn_model_free(s);
}

static void test_models_agree_with_their_source(void **state)
{
    (void)state;
    const char *dir = getenv("MN_DRACO_DIR");
    if (!dir || !*dir) {
        print_message("    MN_DRACO_DIR is not set: tests/test_gltf_draco_models.sh runs this case\n");
        skip();
    }
    mn_test_need_assets();
    /* name, the uncompressed source under the assets' gltf/ (tests/test_gltf_draco_models.sh encodes it) */
    static const char *const models[][2] = {
        {"Box", "Box/glTF-Binary/Box.glb"},
        {"BoxTextured", "BoxTextured/glTF-Binary/BoxTextured.glb"},
        {"BoxVertexColors", "BoxVertexColors/glTF-Binary/BoxVertexColors.glb"},
        {"CesiumMan", "CesiumMan/glTF-Binary/CesiumMan.glb"},
        {"AnimatedMorphCube", "AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb"},
        {"MorphPrimitivesTest", "MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb"},
        {"MultiUVTest", "MultiUVTest/glTF-Binary/MultiUVTest.glb"},
        {"AnimatedCube", "AnimatedCube/glTF/AnimatedCube.gltf"},
        /* made by the script in MN_DRACO_DIR/src: integer accessors of every kind; generic attributes */
        {"CesiumManQuantized", NULL},
        {"BoxGeneric", NULL},
    };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char path[1024], rel[256], made[1024];
        snprintf(path, sizeof path, "%s/%s.glb", dir, models[i][0]);
        snprintf(rel, sizeof rel, "gltf/%s", models[i][1] ? models[i][1] : "");
        snprintf(made, sizeof made, "%s/src/%s.glb", dir, models[i][0]);
        compare_model(models[i][0], path, models[i][1] ? mn_test_asset(rel) : made);
    }
}

#endif

#ifdef MN_WITH_DRACO
/* The faces of Draco data without attributes index the uncompressed (here sparse) accessors. */
static void test_draco_faces_over_uncompressed_attributes(void **state)
{
    (void)state;
    mn_model *m = NULL;
    mn_error err;
    mn_status st = mn_gltf_read_file("fuzz/corpus/gltf/draco_sparse_triangle.glb", NULL, &m, &err);
    if (st != MN_OK)
        fail_msg("%s: %s", err.path, err.message);
    const mn_primitive *p = &m->meshes[0].primitives[0];
    assert_int_equal(p->vertex_count, 3);
    uint32_t idx[3];
    float pos[9];
    assert_int_equal(mn_accessor_unpack_u32(&m->accessors[p->indices], idx, 3), 3);
    assert_int_equal(mn_accessor_unpack_floats(&m->accessors[mn_primitive_find(p, MN_SEMANTIC_POSITION, 0)], pos, 9), 9);
    /* The triangle (0,0,0) (1,0,0) (0,1,0), in whatever corner order the encoder chose. */
    double area2 = 0;
    const float *a = pos + 3 * idx[0], *b = pos + 3 * idx[1], *c = pos + 3 * idx[2];
    area2 = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    assert_true(fabs(fabs(area2) - 1) < 1e-6);
    mn_model_free(m);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_decodes_to_the_box),
#ifdef MN_WITH_DRACO
        cmocka_unit_test(test_hostile_edits_are_refused_naming_the_item),
        cmocka_unit_test(test_every_cut_and_overwritten_byte_is_safe),
        cmocka_unit_test(test_models_agree_with_their_source),
        cmocka_unit_test(test_draco_faces_over_uncompressed_attributes),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
