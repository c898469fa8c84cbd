/*
 * The glTF writer:
 *
 *   - round trip: every file under the sample assets' gltf/ is read, written
 *     (GLB, and .gltf + .bin), read back, and compared in every decoded value
 *     (accessor values, materials, image bytes, nodes, skins, animations,
 *     morph targets, names, extras);
 *   - the same model written twice gives the same bytes;
 *   - quantized writes (KHR_mesh_quantization) read back within the
 *     quantization's tolerance, in world space for positions;
 *   - features no asset has (texture transforms, emissive strength, extras
 *     with and without targetNames) set on a loaded model survive the trip;
 *   - errors: a sink that refuses bytes, a file that cannot grow (no partial
 *     file left behind), bad indices, NaN, bad extras, a bad extension; and
 *     every allocation failing in turn (no leak, MN_OUT_OF_MEMORY).
 *
 * Every case reads the assets (tests/support/assets.h): without them the whole test is
 * skipped.  When MN_WRITE_OUT names a folder, every written file is also saved there
 * (tests/test_gltf_validate.sh runs the Khronos validator over them).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <marionette/gltf.h>
#include <marionette/model.h>

#include "assert_near.h"
#include "assets.h"
#include "counting_alloc.h"
#include "files.h"

static const char *const ASSETS[] = {
    "AnimatedCube/glTF/AnimatedCube.gltf",
    "AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb",
    "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
    "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
    "AnimatedTriangle/glTF-Embedded/AnimatedTriangle.gltf",
    "AnimatedTriangle/glTF/AnimatedTriangle.gltf",
    "Box/glTF-Binary/Box.glb",
    "Box/glTF-Embedded/Box.gltf",
    "Box/glTF/Box.gltf",
    "BoxAnimated/glTF-Binary/BoxAnimated.glb",
    "BoxAnimated/glTF-Embedded/BoxAnimated.gltf",
    "BoxAnimated/glTF/BoxAnimated.gltf",
    "BoxInterleaved/glTF-Binary/BoxInterleaved.glb",
    "BoxInterleaved/glTF-Embedded/BoxInterleaved.gltf",
    "BoxInterleaved/glTF/BoxInterleaved.gltf",
    "BoxMeshopt/BoxMeshopt.glb",
    "BoxMeshopt/BoxMeshopt.gltf",
    "BoxTextured/glTF-Binary/BoxTextured.glb",
    "BoxTextured/glTF-Embedded/BoxTextured.gltf",
    "BoxTextured/glTF/BoxTextured.gltf",
    "BoxVertexColors/glTF-Binary/BoxVertexColors.glb",
    "BoxVertexColors/glTF-Embedded/BoxVertexColors.gltf",
    "BoxVertexColors/glTF/BoxVertexColors.gltf",
    "Cameras/glTF-Embedded/Cameras.gltf",
    "Cameras/glTF/Cameras.gltf",
    "CesiumMan/glTF-Binary/CesiumMan.glb",
    "CesiumMan/glTF-Embedded/CesiumMan.gltf",
    "CesiumMan/glTF/CesiumMan.gltf",
    "InterpolationTest/glTF-Binary/InterpolationTest.glb",
    "InterpolationTest/glTF/InterpolationTest.gltf",
    "MeshPrimitiveModes/glTF-Embedded/MeshPrimitiveModes.gltf",
    "MeshPrimitiveModes/glTF/MeshPrimitiveModes.gltf",
    "MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb",
    "MorphPrimitivesTest/glTF/MorphPrimitivesTest.gltf",
    "MultiUVTest/glTF-Binary/MultiUVTest.glb",
    "MultiUVTest/glTF/MultiUVTest.gltf",
    "RiggedFigure/glTF-Binary/RiggedFigure.glb",
    "RiggedFigure/glTF-Embedded/RiggedFigure.gltf",
    "RiggedFigure/glTF/RiggedFigure.gltf",
    "RiggedSimple/glTF-Binary/RiggedSimple.glb",
    "RiggedSimple/glTF-Embedded/RiggedSimple.gltf",
    "RiggedSimple/glTF/RiggedSimple.gltf",
    "SimpleInstancing/glTF-Binary/SimpleInstancing.glb",
    "SimpleInstancing/glTF/SimpleInstancing.gltf",
    "SimpleMeshes/glTF-Embedded/SimpleMeshes.gltf",
    "SimpleMeshes/glTF/SimpleMeshes.gltf",
    "SimpleMorph/glTF-Embedded/SimpleMorph.gltf",
    "SimpleMorph/glTF/SimpleMorph.gltf",
    "SimpleSkin/glTF-Embedded/SimpleSkin.gltf",
    "SimpleSkin/glTF/SimpleSkin.gltf",
    "SimpleSparseAccessor/glTF-Embedded/SimpleSparseAccessor.gltf",
    "SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf",
    "Triangle/glTF-Embedded/Triangle.gltf",
    "Triangle/glTF/Triangle.gltf",
    "TriangleWithoutIndices/glTF-Embedded/TriangleWithoutIndices.gltf",
    "TriangleWithoutIndices/glTF/TriangleWithoutIndices.gltf",
};
#define ASSET_COUNT (sizeof ASSETS / sizeof ASSETS[0])

/* ---- a memory sink ------------------------------------------------------------------------ */

#define MAX_OUTPUTS 2

typedef struct output {
    char name[64];
    unsigned char *data;
    size_t size, cap;
} output;

typedef struct memory_sink {
    output out[MAX_OUTPUTS];
    int count;
    long calls;
    long fail_at_call;   /* < 0: never */
} memory_sink;

static bool memory_write(void *user, const char *name, const void *bytes, size_t size)
{
    memory_sink *s = user;
    if (s->fail_at_call >= 0 && s->calls++ >= s->fail_at_call)
        return false;
    output *o = NULL;
    for (int i = 0; i < s->count; i++)
        if (strcmp(s->out[i].name, name) == 0)
            o = &s->out[i];
    if (!o) {
        assert_true(s->count < MAX_OUTPUTS);
        /* Outputs never interleave: a new name means the previous output is complete. */
        o = &s->out[s->count++];
        snprintf(o->name, sizeof o->name, "%s", name);
    }
    assert_ptr_equal(o, &s->out[s->count - 1]);
    if (o->cap - o->size < size) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap - o->size < size)
            cap *= 2;
        o->data = realloc(o->data, cap);
        assert_non_null(o->data);
        o->cap = cap;
    }
    memcpy(o->data + o->size, bytes, size);
    o->size += size;
    return true;
}

static memory_sink sink_make(void)
{
    memory_sink s;
    memset(&s, 0, sizeof s);
    s.fail_at_call = -1;
    return s;
}

static void sink_free(memory_sink *s)
{
    for (int i = 0; i < s->count; i++)
        free(s->out[i].data);
    memset(s, 0, sizeof *s);
}

static const output *sink_find(const memory_sink *s, const char *name)
{
    for (int i = 0; i < s->count; i++)
        if (strcmp(s->out[i].name, name) == 0)
            return &s->out[i];
    return NULL;
}

/* ---- reading and writing ------------------------------------------------------------------- */

static void write_ok(const mn_model *m, const mn_gltf_write_options *o, memory_sink *s)
{
    mn_error err;
    mn_gltf_sink sink = {memory_write, s};
    mn_status st = mn_gltf_write(m, o, &sink, &err);
    if (st != MN_OK)
        fail_msg("write: %s at '%s': %s", mn_status_name(st), err.path, err.message);
}

/* The resolver of a .gltf read from memory: serves the sink's .bin. */
static mn_status bin_resolver(void *user, const char *base_dir, const char *uri, mn_bytes *out, mn_error *err)
{
    (void)base_dir;
    (void)err;
    const output *o = sink_find(user, uri);
    if (!o)
        return MN_IO;
    out->data = o->data;
    out->size = o->size;
    return MN_OK;
}

/* Read back what the sink holds (GLB, or .gltf whose .bin the sink also holds). */
static mn_model *read_back(memory_sink *s)
{
    const output *main = &s->out[0];
    mn_gltf_options o;
    memset(&o, 0, sizeof o);
    o.copy_input = true;
    o.resolver.read = bin_resolver;
    o.resolver.user = s;
    o.base_dir = "";
    mn_model *m = NULL;
    mn_error err;
    mn_status st = mn_gltf_read_memory(main->data, main->size, &o, &m, &err);
    if (st != MN_OK)
        fail_msg("read back %s: %s at '%s': %s", main->name, mn_status_name(st), err.path, err.message);
    return m;
}

/* Save the sink's outputs to $MN_WRITE_OUT/<asset>-<variant>/<name> for the validator. */
static void save_outputs(const memory_sink *s, const char *asset, const char *variant)
{
    const char *dir = getenv("MN_WRITE_OUT");
    if (!dir || !dir[0])
        return;
    char folder[768];
    int n = snprintf(folder, sizeof folder, "%s/", dir);
    for (const char *c = asset; *c && n < 700; c++)
        folder[n++] = (*c == '/' || *c == '.') ? '_' : *c;
    snprintf(folder + n, sizeof folder - (size_t)n, "-%s", variant);
    if (mkdir(folder, 0777) != 0 && access(folder, F_OK) != 0)
        fail_msg("cannot create %s", folder);
    /* The source, so the validator can tell a warning the source itself has from a new one. */
    char path[1024];
    snprintf(path, sizeof path, "%s/source.txt", folder);
    FILE *src = fopen(path, "w");
    assert_non_null(src);
    fprintf(src, "%s/%s\n", mn_test_asset("gltf"), asset);
    fclose(src);
    for (int i = 0; i < s->count; i++) {
        snprintf(path, sizeof path, "%s/%s", folder, s->out[i].name);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(s->out[i].data, 1, s->out[i].size, f), s->out[i].size);
        fclose(f);
    }
}

/* ---- comparing models ------------------------------------------------------------------------ */

typedef struct compare {
    const mn_model *a, *b;      /* the original, the one read back */
    bool quantized;             /* b was written with options.quantize */
    bool *mesh_quantized;       /* per mesh of a: b holds i16 positions for it */
    float *worlds_a, *worlds_b; /* rest worlds */
    double size;                /* a's world bounds diagonal (at least 1e-3) */
} compare;

static void str_eq(const char *x, const char *y, const char *what)
{
    if (x == NULL && y == NULL)
        return;
    if (x == NULL || y == NULL || strcmp(x, y) != 0)
        fail_msg("%s: \"%s\" != \"%s\"", what, x ? x : "(null)", y ? y : "(null)");
}

static bool same_float(float x, float y)
{
    return x == y || (isnan(x) && isnan(y));
}

static void floats_eq(const float *x, const float *y, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (!same_float(x[i], y[i]))
            fail_msg("%s[%zu]: %.9g != %.9g", what, i, (double)x[i], (double)y[i]);
}

static float *unpack(const mn_accessor *a, size_t *n)
{
    *n = mn_accessor_unpack_floats(a, NULL, 0);
    float *f = malloc(*n ? *n * sizeof *f : 1);
    assert_non_null(f);
    assert_int_equal(mn_accessor_unpack_floats(a, f, *n), *n);
    return f;
}

static void accessor_eq(const mn_accessor *x, const mn_accessor *y, const char *what)
{
    assert_int_equal(x->component, y->component);
    assert_int_equal(x->type, y->type);
    assert_int_equal(x->normalized, y->normalized);
    assert_int_equal(x->count, y->count);
    size_t nx, ny;
    float *fx = unpack(x, &nx), *fy = unpack(y, &ny);
    assert_int_equal(nx, ny);
    floats_eq(fx, fy, nx, what);
    free(fx);
    free(fy);
    if (x->component != MN_COMPONENT_F32) {
        size_t n = mn_accessor_unpack_u32(x, NULL, 0);
        uint32_t *ux = malloc(n * 4 + 4), *uy = malloc(n * 4 + 4);
        assert_non_null(ux);
        assert_non_null(uy);
        assert_int_equal(mn_accessor_unpack_u32(y, NULL, 0), n);
        mn_accessor_unpack_u32(x, ux, n);
        mn_accessor_unpack_u32(y, uy, n);
        assert_memory_equal(ux, uy, n * 4);
        free(ux);
        free(uy);
    }
    if (x->has_bounds) {
        if (!y->has_bounds)
            fail_msg("%s: the bounds were lost", what);
        uint32_t n = mn_accessor_components(x->type);
        floats_eq(x->min, y->min, n, what);
        floats_eq(x->max, y->max, n, what);
    }
}

/* Within tol, component by component, of the unpacked floats. */
static void accessor_near(const mn_accessor *x, const mn_accessor *y, double tol, const char *what)
{
    assert_int_equal(x->count, y->count);
    assert_int_equal(x->type, y->type);
    size_t nx, ny;
    float *fx = unpack(x, &nx), *fy = unpack(y, &ny);
    assert_int_equal(nx, ny);
    for (size_t i = 0; i < nx; i++)
        if (!(fabs((double)fx[i] - (double)fy[i]) <= tol))
            fail_msg("%s[%zu]: %.9g and %.9g differ by more than %.3g", what, i, (double)fx[i], (double)fy[i], tol);
    free(fx);
    free(fy);
}

static void transform_point(const float m[16], const float p[3], double out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = (double)m[r] * p[0] + (double)m[4 + r] * p[1] + (double)m[8 + r] * p[2] + (double)m[12 + r];
}

/* Quantized positions of mesh mi: placed by their nodes, they land where the original ones do. */
static void positions_in_world(const compare *c, uint32_t mi, const mn_accessor *x, const mn_accessor *y,
                               const char *what)
{
    size_t nx, ny;
    float *fx = unpack(x, &nx), *fy = unpack(y, &ny);
    assert_int_equal(nx, ny);
    double tol = 2e-5 * c->size + 1e-6;
    for (uint32_t n = 0; n < c->a->node_count; n++) {
        if (c->a->nodes[n].mesh != mi)
            continue;
        for (size_t v = 0; v < nx / 3; v++) {
            double pa[3], pb[3];
            transform_point(&c->worlds_a[16 * n], &fx[3 * v], pa);
            transform_point(&c->worlds_b[16 * n], &fy[3 * v], pb);
            for (int k = 0; k < 3; k++)
                if (!(fabs(pa[k] - pb[k]) <= tol))
                    fail_msg("%s: vertex %zu of node %u lands at %.9g, not %.9g (tolerance %.3g)", what, v, n, pb[k],
                             pa[k], tol);
        }
    }
    free(fx);
    free(fy);
}

/* How much mesh mi's positions were scaled by (from a node instancing it). */
static double mesh_half(const compare *c, uint32_t mi)
{
    for (uint32_t n = 0; n < c->a->node_count; n++)
        if (c->a->nodes[n].mesh == mi)
            return (double)c->b->nodes[n].scale[0] / (double)c->a->nodes[n].scale[0];
    fail_msg("mesh %u is quantized but no node instances it", mi);
    return 1.0;
}

static void attribute_eq(const compare *c, uint32_t mi, mn_semantic s, bool target, uint32_t ax, uint32_t ay,
                         const char *what)
{
    const mn_accessor *x = &c->a->accessors[ax], *y = &c->b->accessors[ay];
    bool from_float = x->component == MN_COMPONENT_F32;
    if (c->quantized && from_float && s == MN_SEMANTIC_POSITION && c->mesh_quantized[mi]) {
        if (target) {
            double half = mesh_half(c, mi);
            size_t nx, ny;
            float *fx = unpack(x, &nx), *fy = unpack(y, &ny);
            assert_int_equal(nx, ny);
            for (size_t i = 0; i < nx; i++)
                assert_float_near((double)fy[i] * half, fx[i], 1e-6 * (fabs(fx[i]) + half));
            free(fx);
            free(fy);
        } else {
            assert_int_equal(y->component, MN_COMPONENT_I16);
            assert_true(y->normalized);
            positions_in_world(c, mi, x, y, what);
        }
    } else if (c->quantized && from_float && !target && s == MN_SEMANTIC_NORMAL) {
        assert_int_equal(y->component, MN_COMPONENT_I8);
        accessor_near(x, y, 1.0 / 127.0 + 1e-6, what);
    } else if (c->quantized && from_float && !target && s == MN_SEMANTIC_TEXCOORD &&
               y->component == MN_COMPONENT_U16) {
        accessor_near(x, y, 0.5 / 65535.0 + 1e-7, what);
    } else {
        accessor_eq(x, y, what);
    }
}

static void meshes_eq(compare *c)
{
    const mn_model *a = c->a, *b = c->b;
    assert_int_equal(a->mesh_count, b->mesh_count);
    char what[160];
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const mn_mesh *x = &a->meshes[i], *y = &b->meshes[i];
        snprintf(what, sizeof what, "meshes[%u]", i);
        str_eq(x->name, y->name, what);
        str_eq(x->extras, y->extras, what);
        assert_int_equal(x->primitive_count, y->primitive_count);
        assert_int_equal(x->weight_count, y->weight_count);
        floats_eq(x->weights, y->weights, x->weight_count, what);
        assert_int_equal(x->target_names == NULL, y->target_names == NULL);
        for (uint32_t p = 0; p < x->primitive_count; p++) {
            const mn_primitive *px = &x->primitives[p], *py = &y->primitives[p];
            assert_int_equal(px->mode, py->mode);
            assert_int_equal(px->material, py->material);
            assert_int_equal(px->vertex_count, py->vertex_count);
            assert_int_equal(px->attribute_count, py->attribute_count);
            assert_int_equal(px->target_count, py->target_count);
            if (p == 0 && x->target_names)
                for (uint32_t t = 0; t < px->target_count; t++)
                    str_eq(x->target_names[t], y->target_names[t], what);
            for (uint32_t k = 0; k < px->attribute_count; k++) {
                const mn_attribute *ax = &px->attributes[k], *ay = &py->attributes[k];
                snprintf(what, sizeof what, "meshes[%u].primitives[%u].attributes.%s", i, p, ax->name);
                str_eq(ax->name, ay->name, what);
                assert_int_equal(ax->semantic, ay->semantic);
                assert_int_equal(ax->set, ay->set);
                attribute_eq(c, i, ax->semantic, false, ax->accessor, ay->accessor, what);
            }
            assert_int_equal(px->indices == MN_NONE, py->indices == MN_NONE);
            if (px->indices != MN_NONE) {
                snprintf(what, sizeof what, "meshes[%u].primitives[%u].indices", i, p);
                accessor_eq(&a->accessors[px->indices], &b->accessors[py->indices], what);
            }
            for (uint32_t t = 0; t < px->target_count; t++) {
                const uint32_t xs[3] = {px->targets[t].position, px->targets[t].normal, px->targets[t].tangent};
                const uint32_t ys[3] = {py->targets[t].position, py->targets[t].normal, py->targets[t].tangent};
                static const mn_semantic sem[3] = {MN_SEMANTIC_POSITION, MN_SEMANTIC_NORMAL, MN_SEMANTIC_TANGENT};
                for (int k = 0; k < 3; k++) {
                    assert_int_equal(xs[k] == MN_NONE, ys[k] == MN_NONE);
                    snprintf(what, sizeof what, "meshes[%u].primitives[%u].targets[%u][%d]", i, p, t, k);
                    if (xs[k] != MN_NONE)
                        attribute_eq(c, i, sem[k], true, xs[k], ys[k], what);
                }
            }
        }
    }
}

static void texture_ref_eq(const mn_texture_ref *x, const mn_texture_ref *y)
{
    assert_int_equal(x->texture, y->texture);
    if (x->texture == MN_NONE)
        return;
    assert_int_equal(x->texcoord, y->texcoord);
    assert_true(same_float(x->scale, y->scale));
    bool set = x->has_transform && (x->offset[0] != 0 || x->offset[1] != 0 || x->rotation != 0 ||
                                    x->uv_scale[0] != 1 || x->uv_scale[1] != 1);
    assert_int_equal(set, y->has_transform);
    if (set) {
        floats_eq(x->offset, y->offset, 2, "offset");
        floats_eq(&x->rotation, &y->rotation, 1, "rotation");
        floats_eq(x->uv_scale, y->uv_scale, 2, "uv_scale");
    }
}

static void materials_eq(const mn_model *a, const mn_model *b)
{
    assert_int_equal(a->material_count, b->material_count);
    for (uint32_t i = 0; i < a->material_count; i++) {
        const mn_material *x = &a->materials[i], *y = &b->materials[i];
        str_eq(x->name, y->name, "material name");
        str_eq(x->extras, y->extras, "material extras");
        floats_eq(x->base_color, y->base_color, 4, "base_color");
        floats_eq(&x->metallic, &y->metallic, 1, "metallic");
        floats_eq(&x->roughness, &y->roughness, 1, "roughness");
        floats_eq(x->emissive, y->emissive, 3, "emissive");
        floats_eq(&x->emissive_strength, &y->emissive_strength, 1, "emissive_strength");
        assert_int_equal(x->alpha_mode, y->alpha_mode);
        if (x->alpha_mode == MN_ALPHA_MASK)
            floats_eq(&x->alpha_cutoff, &y->alpha_cutoff, 1, "alpha_cutoff");
        assert_int_equal(x->double_sided, y->double_sided);
        texture_ref_eq(&x->base_color_texture, &y->base_color_texture);
        texture_ref_eq(&x->metallic_roughness_texture, &y->metallic_roughness_texture);
        texture_ref_eq(&x->normal_texture, &y->normal_texture);
        texture_ref_eq(&x->occlusion_texture, &y->occlusion_texture);
        texture_ref_eq(&x->emissive_texture, &y->emissive_texture);
    }
    assert_int_equal(a->texture_count, b->texture_count);
    for (uint32_t i = 0; i < a->texture_count; i++) {
        str_eq(a->textures[i].name, b->textures[i].name, "texture name");
        assert_int_equal(a->textures[i].image, b->textures[i].image);
        assert_int_equal(a->textures[i].sampler, b->textures[i].sampler);
    }
    assert_int_equal(a->sampler_count, b->sampler_count);
    for (uint32_t i = 0; i < a->sampler_count; i++) {
        const mn_sampler *x = &a->samplers[i], *y = &b->samplers[i];
        str_eq(x->name, y->name, "sampler name");
        assert_int_equal(x->mag_filter, y->mag_filter);
        assert_int_equal(x->min_filter, y->min_filter);
        assert_int_equal(x->wrap_s, y->wrap_s);
        assert_int_equal(x->wrap_t, y->wrap_t);
    }
    assert_int_equal(a->image_count, b->image_count);
    for (uint32_t i = 0; i < a->image_count; i++) {
        const mn_image *x = &a->images[i], *y = &b->images[i];
        str_eq(x->name, y->name, "image name");
        str_eq(x->mime_type, y->mime_type, "image mimeType");
        assert_int_equal(x->size, y->size);
        if (x->size)
            assert_memory_equal(x->data, y->data, x->size);
        else
            str_eq(x->uri, y->uri, "image uri");
    }
}

static void nodes_eq(const compare *c)
{
    const mn_model *a = c->a, *b = c->b;
    assert_int_equal(a->node_count, b->node_count);
    for (uint32_t i = 0; i < a->node_count; i++) {
        const mn_node *x = &a->nodes[i], *y = &b->nodes[i];
        char what[64];
        snprintf(what, sizeof what, "nodes[%u]", i);
        str_eq(x->name, y->name, what);
        str_eq(x->extras, y->extras, what);
        assert_int_equal(x->parent, y->parent);
        assert_int_equal(x->child_count, y->child_count);
        if (x->child_count)
            assert_memory_equal(x->children, y->children, x->child_count * sizeof(uint32_t));
        floats_eq(x->rotation, y->rotation, 4, what);
        bool folded = c->quantized && x->mesh != MN_NONE && c->mesh_quantized[x->mesh];
        if (!folded) {
            floats_eq(x->translation, y->translation, 3, what);
            floats_eq(x->scale, y->scale, 3, what);
        }
        assert_false(y->has_matrix);
        assert_int_equal(x->mesh, y->mesh);
        assert_int_equal(x->skin, y->skin);
        assert_int_equal(x->camera, y->camera);
        assert_int_equal(x->weight_count, y->weight_count);
        floats_eq(x->weights, y->weights, x->weight_count, what);
    }
    assert_int_equal(a->scene, b->scene);
    assert_int_equal(a->scene_count, b->scene_count);
    for (uint32_t i = 0; i < a->scene_count; i++) {
        str_eq(a->scenes[i].name, b->scenes[i].name, "scene name");
        assert_int_equal(a->scenes[i].node_count, b->scenes[i].node_count);
        if (a->scenes[i].node_count)
            assert_memory_equal(a->scenes[i].nodes, b->scenes[i].nodes, a->scenes[i].node_count * 4u);
    }
    assert_int_equal(a->camera_count, b->camera_count);
    for (uint32_t i = 0; i < a->camera_count; i++) {
        const mn_camera *x = &a->cameras[i], *y = &b->cameras[i];
        str_eq(x->name, y->name, "camera name");
        assert_int_equal(x->orthographic, y->orthographic);
        const float fx[6] = {x->yfov, x->aspect_ratio, x->znear, x->zfar, x->xmag, x->ymag};
        const float fy[6] = {y->yfov, y->aspect_ratio, y->znear, y->zfar, y->xmag, y->ymag};
        floats_eq(fx, fy, 6, "camera");
    }
}

static void skins_anims_eq(const mn_model *a, const mn_model *b)
{
    assert_int_equal(a->skin_count, b->skin_count);
    for (uint32_t i = 0; i < a->skin_count; i++) {
        const mn_skin *x = &a->skins[i], *y = &b->skins[i];
        str_eq(x->name, y->name, "skin name");
        assert_int_equal(x->joint_count, y->joint_count);
        assert_memory_equal(x->joints, y->joints, x->joint_count * 4u);
        assert_int_equal(x->skeleton, y->skeleton);
        floats_eq(x->inverse_bind, y->inverse_bind, 16u * x->joint_count, "inverse bind");
    }
    assert_int_equal(a->animation_count, b->animation_count);
    for (uint32_t i = 0; i < a->animation_count; i++) {
        const mn_animation *x = &a->animations[i], *y = &b->animations[i];
        str_eq(x->name, y->name, "animation name");
        str_eq(x->extras, y->extras, "animation extras");
        assert_int_equal(x->channel_count, y->channel_count);
        floats_eq(&x->duration, &y->duration, 1, "duration");
        for (uint32_t k = 0; k < x->channel_count; k++) {
            const mn_channel *cx = &x->channels[k], *cy = &y->channels[k];
            char what[64];
            snprintf(what, sizeof what, "animations[%u].channels[%u]", i, k);
            assert_int_equal(cx->node, cy->node);
            assert_int_equal(cx->path, cy->path);
            assert_int_equal(cx->interpolation, cy->interpolation);
            assert_int_equal(cx->key_count, cy->key_count);
            assert_int_equal(cx->components, cy->components);
            floats_eq(cx->times, cy->times, cx->key_count, what);
            size_t n = (size_t)cx->key_count * cx->components * (cx->interpolation == MN_INTERP_CUBICSPLINE ? 3u : 1u);
            floats_eq(cx->values, cy->values, n, what);
        }
    }
}

/* b (read back from what was written of a) equals a in every decoded value. */
static void models_eq(const mn_model *a, const mn_model *b, bool quantized)
{
    compare c = {a, b, quantized, NULL, NULL, NULL, 1e-3};
    c.mesh_quantized = calloc(a->mesh_count + 1u, 1);
    c.worlds_a = malloc((a->node_count + 1u) * 64u);
    c.worlds_b = malloc((b->node_count + 1u) * 64u);
    assert_non_null(c.mesh_quantized);
    assert_non_null(c.worlds_a);
    assert_non_null(c.worlds_b);
    mn_model_rest_worlds(a, c.worlds_a);
    mn_model_rest_worlds(b, c.worlds_b);
    double d2 = 0;
    for (int k = 0; k < 3; k++)
        if (a->bounds_max[k] >= a->bounds_min[k])
            d2 += (double)(a->bounds_max[k] - a->bounds_min[k]) * (a->bounds_max[k] - a->bounds_min[k]);
    c.size = fmax(sqrt(d2), 1e-3);
    for (uint32_t i = 0; i < a->mesh_count && i < b->mesh_count; i++)
        for (uint32_t p = 0; p < a->meshes[i].primitive_count; p++) {
            uint32_t pos = mn_primitive_find(&b->meshes[i].primitives[p], MN_SEMANTIC_POSITION, 0);
            uint32_t orig = mn_primitive_find(&a->meshes[i].primitives[p], MN_SEMANTIC_POSITION, 0);
            if (pos != MN_NONE && b->accessors[pos].component == MN_COMPONENT_I16 &&
                a->accessors[orig].component == MN_COMPONENT_F32)
                c.mesh_quantized[i] = true;
        }
    str_eq(a->version, b->version, "asset.version");
    str_eq(a->copyright, b->copyright, "asset.copyright");
    str_eq("marionette " MN_VERSION_STRING, b->generator, "asset.generator");
    meshes_eq(&c);
    materials_eq(a, b);
    nodes_eq(&c);
    skins_anims_eq(a, b);
    /* The bounds of the default scene agree: quantized within the quantization. */
    for (int k = 0; k < 3; k++) {
        assert_float_near(a->bounds_min[k], b->bounds_min[k], quantized ? 2e-5 * c.size + 1e-6 : 1e-6 * c.size);
        assert_float_near(a->bounds_max[k], b->bounds_max[k], quantized ? 2e-5 * c.size + 1e-6 : 1e-6 * c.size);
    }
    free(c.mesh_quantized);
    free(c.worlds_a);
    free(c.worlds_b);
}

/* ---- round trips ------------------------------------------------------------------------------- */

static mn_gltf_write_options options_for(mn_gltf_container container, bool quantize)
{
    mn_gltf_write_options o;
    memset(&o, 0, sizeof o);
    o.container = container;
    o.quantize = quantize;
    return o;
}

/* Write a in the container, read it back, compare; write again and compare the bytes. */
static void round_trip(const mn_model *a, const char *asset, mn_gltf_container container, bool quantize)
{
    mn_gltf_write_options o = options_for(container, quantize);
    memory_sink s = sink_make(), again = sink_make();
    write_ok(a, &o, &s);
    if (container == MN_GLTF_CONTAINER_GLB) {
        assert_int_equal(s.count, 1);
        assert_string_equal(s.out[0].name, "model.glb");
    } else {
        assert_int_equal(s.count, 2);
        assert_string_equal(s.out[0].name, "model.gltf");
        assert_string_equal(s.out[1].name, "model.bin");
    }
    char variant[32];
    snprintf(variant, sizeof variant, "%s%s", container == MN_GLTF_CONTAINER_GLB ? "glb" : "gltf",
             quantize ? "-quantized" : "");
    save_outputs(&s, asset, variant);
    mn_model *b = read_back(&s);
    models_eq(a, b, quantize);
    mn_model_free(b);

    write_ok(a, &o, &again);
    assert_int_equal(again.count, s.count);
    for (int i = 0; i < s.count; i++) {
        assert_int_equal(again.out[i].size, s.out[i].size);
        assert_memory_equal(again.out[i].data, s.out[i].data, s.out[i].size);
    }
    sink_free(&s);
    sink_free(&again);
}

static void test_every_asset_round_trips_as_glb_and_gltf(void **state)
{
    (void)state;
    for (size_t i = 0; i < ASSET_COUNT; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", mn_test_asset("gltf"), ASSETS[i]);
        mn_model *a = mn_test_load(path);
        round_trip(a, ASSETS[i], MN_GLTF_CONTAINER_GLB, false);
        round_trip(a, ASSETS[i], MN_GLTF_CONTAINER_GLTF, false);
        mn_model_free(a);
    }
}

static void test_every_asset_round_trips_quantized_within_tolerance(void **state)
{
    (void)state;
    for (size_t i = 0; i < ASSET_COUNT; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", mn_test_asset("gltf"), ASSETS[i]);
        mn_model *a = mn_test_load(path);
        round_trip(a, ASSETS[i], MN_GLTF_CONTAINER_GLB, true);
        round_trip(a, ASSETS[i], MN_GLTF_CONTAINER_GLTF, true);
        mn_model_free(a);
    }
}

/* Box quantized: i16 positions, i8 normals, the extension required, the node scaled by the half-extent. */
static void test_quantized_box_uses_khr_mesh_quantization(void **state)
{
    (void)state;
    mn_model *a = mn_test_load(mn_test_asset("gltf/Box/glTF-Binary/Box.glb"));
    mn_gltf_write_options o = options_for(MN_GLTF_CONTAINER_GLB, true);
    memory_sink s = sink_make(), plain = sink_make();
    write_ok(a, &o, &s);
    o.quantize = false;
    write_ok(a, &o, &plain);
    assert_true(s.out[0].size < plain.out[0].size);
    mn_model *b = read_back(&s);
    assert_int_equal(b->extensions_required_count, 1);
    assert_string_equal(b->extensions_required[0], "KHR_mesh_quantization");
    const mn_primitive *p = &b->meshes[0].primitives[0];
    const mn_accessor *pos = &b->accessors[mn_primitive_find(p, MN_SEMANTIC_POSITION, 0)];
    const mn_accessor *nor = &b->accessors[mn_primitive_find(p, MN_SEMANTIC_NORMAL, 0)];
    assert_int_equal(pos->component, MN_COMPONENT_I16);
    assert_true(pos->normalized);
    assert_int_equal(nor->component, MN_COMPONENT_I8);
    /* Box's cube spans -0.5..0.5: half-extent 0.5, centre 0, so the mesh node's scale halves. */
    uint32_t n = 1;
    assert_int_equal(b->nodes[n].mesh, 0);
    assert_float_near(b->nodes[n].scale[0], 0.5f * a->nodes[n].scale[0], 1e-7);
    models_eq(a, b, true);
    mn_model_free(b);
    sink_free(&s);
    sink_free(&plain);
    mn_model_free(a);
}

/* ---- features no asset has ------------------------------------------------------------------------ */

static void test_material_extensions_extras_and_names_survive(void **state)
{
    (void)state;
    mn_model *a = mn_test_load(mn_test_asset("gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb"));
    mn_material *mat = &a->materials[0];
    mat->base_color_texture.texture = MN_NONE;
    mat->emissive_strength = 3.5f;
    mat->emissive[0] = 1.0f;
    mat->emissive[1] = 0.25f;
    mat->alpha_mode = MN_ALPHA_MASK;
    mat->alpha_cutoff = 0.3f;
    mat->double_sided = true;
    mat->extras = "{\"tag\":[1,2.5,\"x\"],\"nested\":{\"a\":null}}";
    a->nodes[0].extras = "\"just a string\"";
    a->nodes[0].name = "quote\" backslash\\ newline\n \xc3\xa9t\xc3\xa9";
    a->animations[0].extras = "{\"loop\":true}";
    static const char *names[2] = {"thin", "angle"};
    a->meshes[0].target_names = names;
    a->meshes[0].extras = "{\"k\":1}";

    memory_sink s = sink_make();
    mn_gltf_write_options o = options_for(MN_GLTF_CONTAINER_GLB, false);
    write_ok(a, &o, &s);
    mn_model *b = read_back(&s);
    assert_int_equal(b->extensions_used_count, 1);
    assert_string_equal(b->extensions_used[0], "KHR_materials_emissive_strength");
    assert_float_near(b->materials[0].emissive_strength, 3.5f, 0);
    assert_string_equal(b->nodes[0].name, a->nodes[0].name);
    assert_string_equal(b->nodes[0].extras, "\"just a string\"");
    assert_non_null(strstr(b->materials[0].extras, "\"nested\""));
    assert_non_null(b->meshes[0].target_names);
    assert_string_equal(b->meshes[0].target_names[0], "thin");
    assert_string_equal(b->meshes[0].target_names[1], "angle");
    assert_non_null(strstr(b->meshes[0].extras, "\"k\""));
    assert_non_null(strstr(b->meshes[0].extras, "\"targetNames\""));
    /* Everything else equal too (the spliced mesh extras aside, which now hold targetNames). */
    a->meshes[0].extras = b->meshes[0].extras;
    a->materials[0].extras = b->materials[0].extras;
    models_eq(a, b, false);
    mn_model_free(b);
    sink_free(&s);
    mn_model_free(a);
}

static void test_texture_transform_survives(void **state)
{
    (void)state;
    mn_model *a = mn_test_load(mn_test_asset("gltf/BoxTextured/glTF-Binary/BoxTextured.glb"));
    mn_texture_ref *r = &a->materials[0].base_color_texture;
    assert_int_not_equal(r->texture, MN_NONE);
    r->has_transform = true;
    r->offset[0] = 0.25f;
    r->offset[1] = 0.5f;
    r->rotation = 0.3f;
    r->uv_scale[0] = 2.0f;
    r->uv_scale[1] = 3.0f;
    memory_sink s = sink_make();
    mn_gltf_write_options o = options_for(MN_GLTF_CONTAINER_GLTF, false);
    write_ok(a, &o, &s);
    mn_model *b = read_back(&s);
    assert_int_equal(b->extensions_used_count, 1);
    assert_string_equal(b->extensions_used[0], "KHR_texture_transform");
    assert_true(b->materials[0].base_color_texture.has_transform);
    assert_float_near(b->materials[0].base_color_texture.rotation, 0.3f, 0);
    models_eq(a, b, false);
    mn_model_free(b);
    sink_free(&s);
    mn_model_free(a);
}

/* ---- errors --------------------------------------------------------------------------------------- */

static void test_sink_refusal_is_an_io_error_at_every_call(void **state)
{
    (void)state;
    mn_model *a = mn_test_load(mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb"));
    mn_gltf_write_options o = options_for(MN_GLTF_CONTAINER_GLTF, false);
    for (long fail_at = 0;; fail_at++) {
        memory_sink s = sink_make();
        s.fail_at_call = fail_at;
        mn_gltf_sink sink = {memory_write, &s};
        mn_error err;
        mn_status st = mn_gltf_write(a, &o, &sink, &err);
        sink_free(&s);
        if (st == MN_OK) {
            assert_true(fail_at > 2);   /* the .gltf and the .bin took several calls */
            break;
        }
        assert_int_equal(st, MN_IO);
        assert_non_null(strstr(err.message, "model."));
    }
    mn_model_free(a);
}

static mn_status write_status(const mn_model *m, mn_error *err)
{
    memory_sink s = sink_make();
    mn_gltf_sink sink = {memory_write, &s};
    mn_status st = mn_gltf_write(m, NULL, &sink, err);
    sink_free(&s);
    return st;
}

static void test_flawed_models_are_refused_with_their_path(void **state)
{
    (void)state;
    mn_model *a = mn_test_load(mn_test_asset("gltf/Box/glTF-Binary/Box.glb"));
    mn_error err;
    float keep = a->nodes[1].translation[0];
    a->nodes[1].translation[0] = NAN;
    assert_int_equal(write_status(a, &err), MN_NOT_FINITE);
    assert_string_equal(err.path, "nodes[1].translation");
    a->nodes[1].translation[0] = keep;

    a->nodes[1].mesh = 7;
    assert_int_equal(write_status(a, &err), MN_INDEX_RANGE);
    assert_string_equal(err.path, "nodes[1].mesh");
    a->nodes[1].mesh = 0;

    a->materials[0].extras = "{\"open\":";
    assert_int_equal(write_status(a, &err), MN_JSON_SYNTAX);
    assert_string_equal(err.path, "materials[0].extras");
    a->materials[0].extras = NULL;

    a->meshes[0].name = "bad \xff byte";
    assert_int_equal(write_status(a, &err), MN_INVALID_ARGUMENT);
    assert_string_equal(err.path, "meshes[0]");
    assert_non_null(strstr(err.message, "(byte 255 at offset 4)"));
    a->meshes[0].name = NULL;

    uint32_t acc = a->meshes[0].primitives[0].indices;
    a->meshes[0].primitives[0].indices = 99;
    assert_int_equal(write_status(a, &err), MN_INDEX_RANGE);
    assert_string_equal(err.path, "meshes[0].primitives[0].indices");
    a->meshes[0].primitives[0].indices = acc;

    assert_int_equal(write_status(a, &err), MN_OK);
    mn_gltf_sink sink = {NULL, NULL};
    assert_int_equal(mn_gltf_write(a, NULL, &sink, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_gltf_write(NULL, NULL, &sink, NULL), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_gltf_write_file(a, "/tmp/whatever.obj", NULL, &err), MN_INVALID_ARGUMENT);
    mn_model_free(a);
}

static void test_write_file_renames_into_place_and_leaves_nothing_on_error(void **state)
{
    (void)state;
    mn_model *a = mn_test_load(mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb"));
    char dir[64];
    mn_test_make_temp_dir(dir, sizeof dir, "gltf_write");
    char glb[128], gltf[128], big[128], listing[1024];
    snprintf(glb, sizeof glb, "%s/man.glb", dir);
    snprintf(gltf, sizeof gltf, "%s/Man Two.GLTF", dir);
    snprintf(big, sizeof big, "%s/big.glb", dir);
    mn_error err;
    assert_int_equal(mn_gltf_write_file(a, glb, NULL, &err), MN_OK);
    assert_int_equal(mn_gltf_write_file(a, gltf, NULL, &err), MN_OK);
    mn_test_list_dir(dir, listing, sizeof listing);
    assert_string_equal(listing, "Man Two.GLTF Man Two.bin man.glb");
    mn_model *b = mn_test_load(glb);
    models_eq(a, b, false);
    mn_model_free(b);
    b = mn_test_load(gltf);   /* the .bin is found through its percent-encoded URI */
    models_eq(a, b, false);
    mn_model_free(b);

    /* A file that cannot grow past 4 KiB: the write fails midway, and nothing is left behind. */
    struct rlimit old, small;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = old;
    small.rlim_cur = 4096;
    void (*previous)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    mn_status st = mn_gltf_write_file(a, big, NULL, &err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, previous);
    assert_int_equal(st, MN_IO);
    print_message("expected failure: %s\n", err.message);
    mn_test_list_dir(dir, listing, sizeof listing);
    assert_string_equal(listing, "Man Two.GLTF Man Two.bin man.glb");

    /* A folder that does not exist. */
    char missing[160];
    snprintf(missing, sizeof missing, "%s/no/such/folder.glb", dir);
    assert_int_equal(mn_gltf_write_file(a, missing, NULL, &err), MN_IO);
    assert_non_null(strstr(err.message, "no/such/folder.glb"));

    unlink(glb);
    unlink(gltf);
    char bin[160];
    snprintf(bin, sizeof bin, "%s/Man Two.bin", dir);
    unlink(bin);
    assert_int_equal(rmdir(dir), 0);
    mn_model_free(a);
}

/* Every allocation the writer makes fails in turn: MN_OUT_OF_MEMORY, nothing leaked. */
static void out_of_memory_walk(const char *asset, mn_gltf_container container, bool quantize)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", mn_test_asset("gltf"), asset);
    mn_model *a = mn_test_load(path);
    long failures = 0;
    for (long n = 0;; n++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = n;
        mn_gltf_write_options o = options_for(container, quantize);
        o.allocator = mn_counting_allocator(&counter);
        memory_sink s = sink_make();
        mn_gltf_sink sink = {memory_write, &s};
        mn_error err;
        mn_status st = mn_gltf_write(a, &o, &sink, &err);
        sink_free(&s);
        assert_int_equal(counter.live_bytes, 0);
        if (st == MN_OK) {
            assert_int_equal(counter.failures, 0);
            break;
        }
        assert_int_equal(st, MN_OUT_OF_MEMORY);
        failures++;
    }
    assert_true(failures > 0);
    mn_model_free(a);
}

static void test_out_of_memory_at_every_allocation(void **state)
{
    (void)state;
    out_of_memory_walk("BoxTextured/glTF-Binary/BoxTextured.glb", MN_GLTF_CONTAINER_GLB, false);
    out_of_memory_walk("CesiumMan/glTF-Binary/CesiumMan.glb", MN_GLTF_CONTAINER_GLTF, true);
    out_of_memory_walk("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf", MN_GLTF_CONTAINER_GLB, true);
}

int main(void)
{
    mn_test_binary_needs_assets();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_asset_round_trips_as_glb_and_gltf),
        cmocka_unit_test(test_every_asset_round_trips_quantized_within_tolerance),
        cmocka_unit_test(test_quantized_box_uses_khr_mesh_quantization),
        cmocka_unit_test(test_material_extensions_extras_and_names_survive),
        cmocka_unit_test(test_texture_transform_survives),
        cmocka_unit_test(test_sink_refusal_is_an_io_error_at_every_call),
        cmocka_unit_test(test_flawed_models_are_refused_with_their_path),
        cmocka_unit_test(test_write_file_renames_into_place_and_leaves_nothing_on_error),
        cmocka_unit_test(test_out_of_memory_at_every_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
