/*
 * glTF reader features, one test each, on inputs built byte by byte
 * (tests/support/glb_builder.h) and read back through the public model with
 * exact expected values.  Error cases live in test_gltf_errors.c.
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
#include <marionette/math.h>
#include <marionette/model.h>

#include "assert_near.h"
#include "counting_alloc.h"
#include "glb_builder.h"

#define ASSET "'asset':{'version':'2.0'}"

/* glTF componentType values. */
enum { I8 = 5120, U8 = 5121, I16 = 5122, U16 = 5123, U32 = 5125, F32 = 5126 };

/* Normalized integers as glTF defines them, computed in double then rounded once. */
#define SN8(c)  ((float)fmax((double)(c) / 127.0, -1.0))
#define SN16(c) ((float)fmax((double)(c) / 32767.0, -1.0))
#define UN8(c)  ((float)((double)(c) / 255.0))
#define UN16(c) ((float)((double)(c) / 65535.0))

/* Converting and dividing once may round differently from the reader's way by an ulp or so. */
#define NORM_TOL 2e-7

/* ---- helpers -------------------------------------------------------------------- */

static void print_failure(mn_status status, const mn_error *err)
{
    print_error("reader failed: %s at '%s' (offset %lld, line %d, column %d): %s\n",
                mn_status_name(status), err->path, (long long)err->offset, err->line, err->column,
                err->message);
}

/* Read bytes that must load; fails the test with the reader's message otherwise. */
static mn_model *read_ok(const void *data, size_t size, const mn_gltf_options *options)
{
    mn_model *model = NULL;
    mn_error err;
    memset(&err, 0, sizeof err);
    mn_status status = mn_gltf_read_memory(data, size, options, &model, &err);
    if (status != MN_OK)
        print_failure(status, &err);
    assert_int_equal(status, MN_OK);
    assert_non_null(model);
    return model;
}

/* A GLB built from the builder and the model read from it (the model borrows the bytes). */
typedef struct loaded {
    mn_model *model;
    gb_blob glb;
} loaded;

static loaded load_glb(const gb_builder *b)
{
    loaded l;
    l.glb = gb_glb(b);
    l.model = read_ok(l.glb.data, l.glb.size, NULL);
    return l;
}

static void unload(loaded *l)
{
    mn_model_free(l->model);
    gb_blob_free(&l->glb);
}

/* Read the builder's JSON as a .gltf held in memory. */
static mn_model *load_gltf_text(const gb_builder *b, const mn_gltf_options *options)
{
    return read_ok(gb_json_text(b), gb_json_size(b), options);
}

/* Start a model whose blob is the one buffer with one buffer view over all of it. */
static void begin_single_view(gb_builder *b)
{
    gb_bin_align(b, 4);
    gb_json(b, "{" ASSET ",'buffers':[{'byteLength':%zu}],"
               "'bufferViews':[{'buffer':0,'byteLength':%zu}],",
            gb_bin_size(b), gb_bin_size(b));
}

static void expect_floats_(const mn_model *m, uint32_t accessor, const float *expected, size_t n,
                           double tol, const char *file, int line)
{
    if (accessor >= m->accessor_count) {
        print_error("accessor %u does not exist (%u accessors)\n", accessor, m->accessor_count);
        _fail(file, line);
    }
    const mn_accessor *a = &m->accessors[accessor];
    size_t need = mn_accessor_unpack_floats(a, NULL, 0);
    if (need != n) {
        print_error("accessors[%u] unpacks to %zu floats, expected %zu\n", accessor, need, n);
        _fail(file, line);
    }
    float *got = malloc((n ? n : 1) * sizeof *got);
    assert_non_null(got);
    size_t wrote = mn_accessor_unpack_floats(a, got, n);
    if (wrote != n) {
        free(got);
        print_error("accessors[%u]: unpack returned %zu, expected %zu\n", accessor, wrote, n);
        _fail(file, line);
    }
    for (size_t i = 0; i < n; i++) {
        if (!(fabs((double)got[i] - (double)expected[i]) <= tol)) {
            print_error("accessors[%u] float %zu = %.9g, expected %.9g (tolerance %.3g)\n",
                        accessor, i, (double)got[i], (double)expected[i], tol);
            free(got);
            _fail(file, line);
        }
    }
    free(got);
}

#define expect_floats(m, accessor, tol, ...)                                                    \
    expect_floats_((m), (accessor), (const float[]){__VA_ARGS__}, GB_COUNT_(float, __VA_ARGS__), \
                   (tol), __FILE__, __LINE__)

static void expect_u32s_(const mn_model *m, uint32_t accessor, const uint32_t *expected, size_t n,
                         const char *file, int line)
{
    if (accessor >= m->accessor_count) {
        print_error("accessor %u does not exist (%u accessors)\n", accessor, m->accessor_count);
        _fail(file, line);
    }
    const mn_accessor *a = &m->accessors[accessor];
    size_t need = mn_accessor_unpack_u32(a, NULL, 0);
    if (need != n) {
        print_error("accessors[%u] unpacks to %zu integers, expected %zu\n", accessor, need, n);
        _fail(file, line);
    }
    uint32_t *got = malloc((n ? n : 1) * sizeof *got);
    assert_non_null(got);
    mn_accessor_unpack_u32(a, got, n);
    for (size_t i = 0; i < n; i++) {
        if (got[i] != expected[i]) {
            print_error("accessors[%u] integer %zu = %u, expected %u\n", accessor, i, got[i],
                        expected[i]);
            free(got);
            _fail(file, line);
        }
    }
    free(got);
}

#define expect_u32s(m, accessor, ...)                                                               \
    expect_u32s_((m), (accessor), (const uint32_t[]){__VA_ARGS__}, GB_COUNT_(uint32_t, __VA_ARGS__), \
                 __FILE__, __LINE__)

/* Compare extras text with the expected JSON by value (formatting is the reader's choice). */
static void expect_json_text(const char *text, const char *expected_single_quoted)
{
    assert_non_null(text);
    gb_builder e;
    gb_init(&e);
    gb_json(&e, "%s", expected_single_quoted);
    json_error_t jerr;
    json_t *got = json_loads(text, JSON_DECODE_ANY, &jerr);
    json_t *want = json_loads(gb_json_text(&e), JSON_DECODE_ANY, &jerr);
    assert_non_null(want);
    if (!got || !json_equal(got, want))
        print_error("extras text %s, expected %s\n", text, gb_json_text(&e));
    bool equal = got && json_equal(got, want);
    json_decref(got);
    json_decref(want);
    gb_free(&e);
    assert_true(equal);
}

static bool has_string(const char **list, uint32_t count, const char *s)
{
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(list[i], s) == 0)
            return true;
    return false;
}

/* ---- component types -------------------------------------------------------------- */

/* Offsets of the values written by build_component_blob. */
typedef struct component_offsets {
    size_t i8, u8, i16, u16, u32, f32;
} component_offsets;

static component_offsets build_component_blob(gb_builder *b)
{
    component_offsets o;
    o.i8 = gb_bin_i8(b, -128, -127, -1, 0, 1, 127);
    o.u8 = gb_bin_u8(b, 0, 1, 128, 255);
    o.i16 = gb_bin_i16(b, -32768, -32767, -1, 0, 1, 32767);
    o.u16 = gb_bin_u16(b, 0, 1, 32768, 65535);
    o.u32 = gb_bin_u32(b, 0, 1, 65536, 4294967295u);
    o.f32 = gb_bin_f32(b, 1.5f, -2.25f, 0.0f, 1e-3f, 3e38f, -7.0f);
    return o;
}

static void test_every_component_type_converts_by_value(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    component_offsets o = build_component_blob(&b);
    begin_single_view(&b);
    gb_json(&b, "'accessors':["
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':6,'type':'SCALAR'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':4,'type':'SCALAR'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':6,'type':'SCALAR'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':4,'type':'SCALAR'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':4,'type':'SCALAR'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':6,'type':'SCALAR'}]}",
            o.i8, I8, o.u8, U8, o.i16, I16, o.u16, U16, o.u32, U32, o.f32, F32);
    loaded l = load_glb(&b);
    const mn_model *m = l.model;

    assert_int_equal(m->accessor_count, 6);
    const mn_component expected_component[6] = { MN_COMPONENT_I8, MN_COMPONENT_U8, MN_COMPONENT_I16,
                                                 MN_COMPONENT_U16, MN_COMPONENT_U32, MN_COMPONENT_F32 };
    const uint32_t expected_size[6] = { 1, 1, 2, 2, 4, 4 };
    for (int i = 0; i < 6; i++) {
        assert_int_equal(m->accessors[i].component, expected_component[i]);
        assert_int_equal(m->accessors[i].type, MN_TYPE_SCALAR);
        assert_false(m->accessors[i].normalized);
        assert_int_equal(mn_component_size(m->accessors[i].component), expected_size[i]);
        assert_int_equal(mn_accessor_element_size(&m->accessors[i]), expected_size[i]);
        assert_int_equal(m->accessors[i].stride, expected_size[i]);
        assert_int_equal(m->accessors[i].sparse_count, 0);
        assert_int_equal(m->accessors[i].buffer_view, 0);
    }
    expect_floats(m, 0, 0, -128, -127, -1, 0, 1, 127);
    expect_floats(m, 1, 0, 0, 1, 128, 255);
    expect_floats(m, 2, 0, -32768, -32767, -1, 0, 1, 32767);
    expect_floats(m, 3, 0, 0, 1, 32768, 65535);
    expect_floats(m, 4, 0, 0, 1, 65536, (float)4294967295u);
    expect_floats(m, 5, 0, 1.5f, -2.25f, 0.0f, 1e-3f, 3e38f, -7.0f);

    expect_u32s(m, 1, 0, 1, 128, 255);
    expect_u32s(m, 3, 0, 1, 32768, 65535);
    expect_u32s(m, 4, 0, 1, 65536, 4294967295u);
    unload(&l);
    gb_free(&b);
}

static void test_normalized_integers_map_to_unit_range(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    component_offsets o = build_component_blob(&b);
    begin_single_view(&b);
    gb_json(&b, "'accessors':["
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':6,'type':'SCALAR','normalized':true},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':4,'type':'SCALAR','normalized':true},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':6,'type':'SCALAR','normalized':true},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':4,'type':'SCALAR','normalized':true},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':2,'type':'VEC2','normalized':false}]}",
            o.i8, I8, o.u8, U8, o.i16, I16, o.u16, U16, o.u8, U8);
    loaded l = load_glb(&b);
    const mn_model *m = l.model;

    for (int i = 0; i < 4; i++)
        assert_true(m->accessors[i].normalized);
    assert_false(m->accessors[4].normalized);
    /* -128 and -127 both map to -1: max(c / 127, -1). */
    expect_floats(m, 0, NORM_TOL, -1.0f, -1.0f, SN8(-1), 0.0f, SN8(1), 1.0f);
    expect_floats(m, 1, NORM_TOL, 0.0f, UN8(1), UN8(128), 1.0f);
    expect_floats(m, 2, NORM_TOL, -1.0f, -1.0f, SN16(-1), 0.0f, SN16(1), 1.0f);
    expect_floats(m, 3, NORM_TOL, 0.0f, UN16(1), UN16(32768), 1.0f);
    /* The same u8 bytes read as a plain VEC2: by value, two elements. */
    assert_int_equal(m->accessors[4].count, 2);
    assert_int_equal(mn_accessor_element_size(&m->accessors[4]), 2);
    expect_floats(m, 4, 0, 0, 1, 128, 255);
    unload(&l);
    gb_free(&b);
}

static void test_float_view_is_zero_copy_into_the_glb(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_bin_zeros(&b, 8); /* so the data does not start at the chunk's first byte */
    size_t pos = gb_bin_f32(&b, 1, 2, 3, 4, 5, 6);
    size_t idx = gb_bin_u16(&b, 0, 1);
    begin_single_view(&b);
    gb_json(&b, "'accessors':["
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':2,'type':'VEC3'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':2,'type':'SCALAR'}]}",
            pos, F32, idx, U16);
    loaded l = load_glb(&b);
    const mn_model *m = l.model;

    const mn_accessor *a = &m->accessors[0];
    assert_int_equal(a->stride, 12);
    const float *view = mn_accessor_float_view(a);
    assert_non_null(view);
    assert_ptr_equal((const void *)view, (const void *)a->data);
    /* Zero-copy: the accessor points straight into the GLB's BIN chunk. */
    assert_ptr_equal(a->data, l.glb.data + gb_glb_bin_offset(&b) + pos);
    assert_ptr_equal(m->buffers[0].data, l.glb.data + gb_glb_bin_offset(&b));
    assert_null(m->buffers[0].uri);
    assert_int_equal(m->buffers[0].size, gb_bin_size(&b));
    assert_float_near(view[5], 6.0f, 0);
    /* u16 data has no float view. */
    assert_null(mn_accessor_float_view(&m->accessors[1]));
    unload(&l);
    gb_free(&b);
}

/* ---- strides and layouts ----------------------------------------------------------- */

static void test_interleaved_byte_stride(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    /* Per vertex: f32 position[3] (12) | u8 colour[4] (4) | u16 uv[2] (4) = 20 bytes. */
    const float pos[3][3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } };
    const uint8_t col[3][4] = { { 255, 0, 0, 255 }, { 0, 255, 0, 128 }, { 0, 0, 255, 0 } };
    const uint16_t uv[3][2] = { { 0, 0 }, { 65535, 0 }, { 0, 32768 } };
    for (int v = 0; v < 3; v++) {
        gb_bin_f32v(&b, pos[v], 3);
        gb_bin_u8v(&b, col[v], 4);
        gb_bin_u16v(&b, uv[v], 2);
    }
    assert_int_equal(gb_bin_size(&b), 60);
    /* A separate view: f32 scalars with stride 8 (4 bytes of padding after each). */
    size_t gap = gb_bin_f32(&b, 10, -1, 20, -1, 30, -1);
    gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':%zu}],"
                "'bufferViews':[{'buffer':0,'byteLength':60,'byteStride':20,'target':34962},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':24,'byteStride':8}],",
            gb_bin_size(&b), gap);
    gb_json(&b, "'accessors':["
                "{'bufferView':0,'componentType':%d,'count':3,'type':'VEC3','min':[0,0,0],'max':[1,1,0]},"
                "{'bufferView':0,'byteOffset':12,'componentType':%d,'normalized':true,'count':3,'type':'VEC4'},"
                "{'bufferView':0,'byteOffset':16,'componentType':%d,'normalized':true,'count':3,'type':'VEC2'},"
                "{'bufferView':1,'componentType':%d,'count':3,'type':'SCALAR'}],"
                "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'COLOR_0':1,'TEXCOORD_0':2}}]}]}",
            F32, U8, U16, F32);
    loaded l = load_glb(&b);
    const mn_model *m = l.model;

    assert_int_equal(m->buffer_views[0].stride, 20);
    assert_int_equal(m->buffer_views[1].stride, 8);
    assert_int_equal(m->buffer_views[1].offset, gap);
    assert_int_equal(m->buffer_views[1].size, 24);
    assert_true(m->accessors[0].has_bounds);
    assert_vec_near(m->accessors[0].min, ((const float[]){ 0, 0, 0 }), 3, 0);
    assert_vec_near(m->accessors[0].max, ((const float[]){ 1, 1, 0 }), 3, 0);
    assert_false(m->accessors[1].has_bounds);
    for (int i = 0; i < 3; i++)
        assert_int_equal(m->accessors[i].stride, 20);
    assert_int_equal(m->accessors[3].stride, 8);
    assert_int_equal(mn_accessor_element_size(&m->accessors[0]), 12);
    /* Strided floats are not a zero-copy float array. */
    assert_null(mn_accessor_float_view(&m->accessors[0]));
    assert_null(mn_accessor_float_view(&m->accessors[3]));
    expect_floats(m, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    expect_floats(m, 1, NORM_TOL, 1, 0, 0, 1, 0, 1, 0, UN8(128), 0, 0, 1, 0);
    expect_floats(m, 2, NORM_TOL, 0, 0, 1, 0, 0, UN16(32768));
    expect_floats(m, 3, 0, 10, 20, 30);
    expect_u32s(m, 1, 255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0);
    unload(&l);
    gb_free(&b);
}

static void test_matrix_types_and_column_alignment(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    const int8_t P8 = 99;             /* column padding: must never show up in values */
    const int16_t P16 = 0x7777;
    size_t f_mat2 = gb_bin_f32(&b, 1, 2, 3, 4);
    size_t f_mat3 = gb_bin_f32(&b, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    size_t f_mat4 = gb_bin_f32(&b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    gb_bin_align(&b, 4);
    size_t i8_mat2 = gb_bin_i8(&b, 1, 2, P8, P8, 3, 4, P8, P8, -1, -2, P8, P8, -3, -4, P8, P8);
    gb_bin_align(&b, 4);
    size_t u8_mat3 = gb_bin_u8(&b, 255, 0, 0, 7, 0, 255, 0, 7, 0, 0, 255, 7);
    gb_bin_align(&b, 4);
    size_t i16_mat3 = gb_bin_i16(&b, 1, 2, 3, P16, 4, 5, 6, P16, 7, 8, 9, P16);
    gb_bin_align(&b, 4);
    size_t i16_mat2 = gb_bin_i16(&b, 1, 2, 3, 4);
    gb_bin_align(&b, 4);
    size_t u8_mat4 = gb_bin_u8(&b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    size_t i8_vec3 = gb_bin_i8(&b, 1, 2, 3, -4, -5, -6);
    gb_bin_align(&b, 4);
    size_t f_vec = gb_bin_f32(&b, 1, 2, 3, 4);
    begin_single_view(&b);
    gb_json(&b, "'accessors':["
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':1,'type':'MAT2'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':1,'type':'MAT3'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':1,'type':'MAT4'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':2,'type':'MAT2'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':1,'type':'MAT3','normalized':true},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':1,'type':'MAT3'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':1,'type':'MAT2'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':1,'type':'MAT4'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':2,'type':'VEC3'},",
            f_mat2, F32, f_mat3, F32, f_mat4, F32, i8_mat2, I8, u8_mat3, U8, i16_mat3, I16,
            i16_mat2, I16, u8_mat4, U8, i8_vec3, I8);
    gb_json(&b, "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':4,'type':'SCALAR'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':2,'type':'VEC2'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':1,'type':'VEC4'}]}",
            f_vec, F32, f_vec, F32, f_vec, F32);
    loaded l = load_glb(&b);
    const mn_model *m = l.model;

    const mn_accessor_type types[12] = { MN_TYPE_MAT2, MN_TYPE_MAT3, MN_TYPE_MAT4, MN_TYPE_MAT2,
                                         MN_TYPE_MAT3, MN_TYPE_MAT3, MN_TYPE_MAT2, MN_TYPE_MAT4,
                                         MN_TYPE_VEC3, MN_TYPE_SCALAR, MN_TYPE_VEC2, MN_TYPE_VEC4 };
    /* Tight element sizes: 1-byte MAT2/MAT3 and 2-byte MAT3 pad each column to 4 bytes. */
    const uint32_t sizes[12] = { 16, 36, 64, 8, 12, 24, 8, 16, 3, 4, 8, 16 };
    const uint32_t comps[12] = { 4, 9, 16, 4, 9, 9, 4, 16, 3, 1, 2, 4 };
    assert_int_equal(m->accessor_count, 12);
    for (int i = 0; i < 12; i++) {
        assert_int_equal(m->accessors[i].type, types[i]);
        assert_int_equal(mn_accessor_components(types[i]), comps[i]);
        assert_int_equal(mn_accessor_element_size(&m->accessors[i]), sizes[i]);
        assert_int_equal(m->accessors[i].stride, sizes[i]);
    }
    expect_floats(m, 0, 0, 1, 2, 3, 4);
    expect_floats(m, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    expect_floats(m, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    expect_floats(m, 3, 0, 1, 2, 3, 4, -1, -2, -3, -4);
    expect_floats(m, 4, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1);
    expect_floats(m, 5, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    expect_floats(m, 6, 0, 1, 2, 3, 4);
    expect_floats(m, 7, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    expect_floats(m, 8, 0, 1, 2, 3, -4, -5, -6);
    expect_u32s(m, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    expect_floats(m, 9, 0, 1, 2, 3, 4);
    expect_floats(m, 10, 0, 1, 2, 3, 4);
    expect_floats(m, 11, 0, 1, 2, 3, 4);
    assert_non_null(mn_accessor_float_view(&m->accessors[2]));
    unload(&l);
    gb_free(&b);
}

/* ---- sparse accessors -------------------------------------------------------------- */

static void test_sparse_over_a_base_view(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t base = gb_bin_f32(&b, 0, 1, 2, 3, 4, 5);
    size_t idx = gb_bin_u16(&b, 1, 4);
    size_t val = gb_bin_f32(&b, 10, 40);
    size_t base2 = gb_bin_u16(&b, 1, 2, 3, 4, 5, 6);
    size_t idx2 = gb_bin_u8(&b, 2);
    size_t val2 = gb_bin_u16(&b, 70, 80);
    size_t idx3 = gb_bin_u32(&b, 0, 1);
    size_t val3 = gb_bin_f32(&b, -1, -2, -3, -7, -8, -9);
    gb_bin_align(&b, 4);
    gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':%zu}],'bufferViews':["
                "{'buffer':0,'byteOffset':%zu,'byteLength':24},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':4},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':8},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':12},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':1},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':4},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':8},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':24}],",
            gb_bin_size(&b), base, idx, val, base2, idx2, val2, idx3, val3);
    gb_json(&b, "'accessors':["
                "{'bufferView':0,'componentType':%d,'count':6,'type':'SCALAR','sparse':{'count':2,"
                "'indices':{'bufferView':1,'componentType':%d},'values':{'bufferView':2}}},"
                "{'bufferView':3,'componentType':%d,'count':3,'type':'VEC2','sparse':{'count':1,"
                "'indices':{'bufferView':4,'componentType':%d},'values':{'bufferView':5}}},"
                "{'bufferView':0,'componentType':%d,'count':2,'type':'VEC3','sparse':{'count':2,"
                "'indices':{'bufferView':6,'componentType':%d},'values':{'bufferView':7}}}]}",
            F32, U16, U16, U8, F32, U32);
    loaded l = load_glb(&b);
    const mn_model *m = l.model;

    assert_int_equal(m->accessors[0].sparse_count, 2);
    assert_int_equal(m->accessors[0].buffer_view, 0);
    expect_floats(m, 0, 0, 0, 10, 2, 3, 40, 5);
    assert_int_equal(m->accessors[1].sparse_count, 1);
    expect_u32s(m, 1, 1, 2, 3, 4, 70, 80);
    expect_floats(m, 1, 0, 1, 2, 3, 4, 70, 80);
    /* Every element replaced: the base view only sets the count. */
    expect_floats(m, 2, 0, -1, -2, -3, -7, -8, -9);
    /* The base view's bytes are untouched: the reader substitutes into a copy. */
    float first[6];
    memcpy(first, m->buffer_views[0].data, sizeof first);
    const float expected_base[6] = { 0, 1, 2, 3, 4, 5 };
    assert_memory_equal(first, expected_base, sizeof first);
    assert_ptr_not_equal(m->accessors[0].data, m->buffer_views[0].data);
    unload(&l);
    gb_free(&b);
}

static void test_sparse_over_zeros_and_accessor_without_data(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t idx = gb_bin_u32(&b, 0, 3);
    size_t val = gb_bin_f32(&b, 1, 2, 7, 8);
    begin_single_view(&b);
    gb_json(&b, "'accessors':["
                "{'componentType':%d,'count':4,'type':'VEC2','sparse':{'count':2,"
                "'indices':{'bufferView':0,'byteOffset':%zu,'componentType':%d},"
                "'values':{'bufferView':0,'byteOffset':%zu}}},"
                "{'componentType':%d,'count':3,'type':'VEC3'},"
                "{'componentType':%d,'normalized':true,'count':2,'type':'VEC4'}]}",
            F32, idx, U32, val, F32, I16);
    loaded l = load_glb(&b);
    const mn_model *m = l.model;

    assert_int_equal(m->accessors[0].buffer_view, MN_NONE);
    assert_int_equal(m->accessors[0].sparse_count, 2);
    assert_non_null(m->accessors[0].data);
    expect_floats(m, 0, 0, 1, 2, 0, 0, 0, 0, 7, 8);
    assert_int_equal(m->accessors[1].buffer_view, MN_NONE);
    assert_int_equal(m->accessors[1].sparse_count, 0);
    assert_non_null(m->accessors[1].data);
    expect_floats(m, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    expect_floats(m, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    unload(&l);
    gb_free(&b);
}

/* ---- KHR_mesh_quantization ------------------------------------------------------------- */

static void test_khr_mesh_quantization(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t pos = gb_bin_i16(&b, 0, 0, 0, 0, 32767, 0, 0, 0, 0, -32767, 0, 0);      /* padded to 8 bytes each */
    size_t nrm = gb_bin_i8(&b, 0, 0, 127, 0, 0, 0, 127, 0, 0, 0, 127, 0);          /* padded to 4 bytes each */
    size_t uv = gb_bin_u16(&b, 0, 0, 65535, 0, 0, 65535);
    size_t upos = gb_bin_u16(&b, 0, 0, 0, 0, 10, 0, 0, 0, 0, 20, 0, 0);
    gb_bin_align(&b, 4);
    gb_json(&b, "{" ASSET ",'extensionsUsed':['KHR_mesh_quantization'],"
                "'extensionsRequired':['KHR_mesh_quantization'],"
                "'buffers':[{'byteLength':%zu}],'bufferViews':["
                "{'buffer':0,'byteOffset':%zu,'byteLength':24,'byteStride':8},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':12,'byteStride':4},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':12},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':24,'byteStride':8}],",
            gb_bin_size(&b), pos, nrm, uv, upos);
    gb_json(&b, "'accessors':["
                "{'bufferView':0,'componentType':%d,'normalized':true,'count':3,'type':'VEC3',"
                "'min':[0,-32767,0],'max':[32767,0,0]},"
                "{'bufferView':1,'componentType':%d,'normalized':true,'count':3,'type':'VEC3'},"
                "{'bufferView':2,'componentType':%d,'normalized':true,'count':3,'type':'VEC2'},"
                "{'bufferView':3,'componentType':%d,'count':3,'type':'VEC3','min':[0,0,0],'max':[10,20,0]}],"
                "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'NORMAL':1,'TEXCOORD_0':2}},"
                "{'attributes':{'POSITION':3}}]}],"
                "'nodes':[{'mesh':0}],'scenes':[{'nodes':[0]}],'scene':0}",
            I16, I8, U16, U16);
    loaded l = load_glb(&b);
    const mn_model *m = l.model;

    assert_int_equal(m->extensions_required_count, 1);
    assert_string_equal(m->extensions_required[0], "KHR_mesh_quantization");
    assert_true(has_string(m->extensions_used, m->extensions_used_count, "KHR_mesh_quantization"));
    const mn_primitive *p = &m->meshes[0].primitives[0];
    assert_int_equal(p->vertex_count, 3);
    assert_int_equal(mn_primitive_find(p, MN_SEMANTIC_POSITION, 0), 0);
    assert_int_equal(mn_primitive_find(p, MN_SEMANTIC_NORMAL, 0), 1);
    assert_int_equal(mn_primitive_find(p, MN_SEMANTIC_TEXCOORD, 0), 2);
    assert_int_equal(mn_primitive_find(p, MN_SEMANTIC_TEXCOORD, 1), MN_NONE);
    assert_int_equal(m->accessors[0].stride, 8);
    assert_int_equal(m->accessors[1].stride, 4);
    expect_floats(m, 0, 0, 0, 0, 0, 1, 0, 0, 0, -1, 0);
    expect_floats(m, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1);
    expect_floats(m, 2, 0, 0, 0, 1, 0, 0, 1);
    expect_floats(m, 3, 0, 0, 0, 0, 10, 0, 0, 0, 20, 0);
    /* Bounds read the quantized positions through the conversion. */
    assert_float_near(m->bounds_min[0], 0, 0);
    assert_float_near(m->bounds_min[1], -1, 0);
    assert_float_near(m->bounds_max[0], 10, 0);
    assert_float_near(m->bounds_max[1], 20, 0);
    assert_float_near(m->bounds_max[2], 0, 0);
    unload(&l);
    gb_free(&b);
}

/* ---- primitive modes -------------------------------------------------------------------- */

/* A triangle rotated so its smallest index comes first: same winding, comparable. */
typedef struct tri {
    uint32_t v[3];
} tri;

static tri canonical(uint32_t a, uint32_t b, uint32_t c)
{
    tri t;
    if (a <= b && a <= c)
        t = (tri){ { a, b, c } };
    else if (b <= a && b <= c)
        t = (tri){ { b, c, a } };
    else
        t = (tri){ { c, a, b } };
    return t;
}

static int tri_cmp(const void *pa, const void *pb)
{
    const tri *a = pa, *b = pb;
    for (int i = 0; i < 3; i++)
        if (a->v[i] != b->v[i])
            return a->v[i] < b->v[i] ? -1 : 1;
    return 0;
}

/* The primitive's triangles (as a set, winding kept) equal `expected`. */
static void expect_triangles_(const mn_model *m, const mn_primitive *p, const tri *expected,
                              size_t n, const char *file, int line)
{
    if (p->mode != MN_MODE_TRIANGLES || p->indices == MN_NONE) {
        print_error("primitive mode %d, indices %u: expected an indexed triangle list\n", p->mode,
                    p->indices);
        _fail(file, line);
    }
    const mn_accessor *a = &m->accessors[p->indices];
    size_t count = mn_accessor_unpack_u32(a, NULL, 0);
    if (count != 3 * n) {
        print_error("%zu indices, expected %zu (%zu triangles)\n", count, 3 * n, n);
        _fail(file, line);
    }
    uint32_t *idx = malloc(count * sizeof *idx);
    tri *got = malloc(n * sizeof *got);
    tri *want = malloc(n * sizeof *want);
    assert_true(idx && got && want);
    mn_accessor_unpack_u32(a, idx, count);
    for (size_t i = 0; i < n; i++) {
        got[i] = canonical(idx[3 * i], idx[3 * i + 1], idx[3 * i + 2]);
        want[i] = canonical(expected[i].v[0], expected[i].v[1], expected[i].v[2]);
    }
    qsort(got, n, sizeof *got, tri_cmp);
    qsort(want, n, sizeof *want, tri_cmp);
    bool same = memcmp(got, want, n * sizeof *got) == 0;
    if (!same) {
        print_error("triangles (index order as produced):\n");
        for (size_t i = 0; i < n; i++)
            print_error("  %u %u %u\n", idx[3 * i], idx[3 * i + 1], idx[3 * i + 2]);
    }
    free(idx);
    free(got);
    free(want);
    if (!same)
        _fail(file, line);
}

#define expect_triangles(m, p, ...)                                                          \
    expect_triangles_((m), (p), (const tri[]){__VA_ARGS__}, GB_COUNT_(tri, __VA_ARGS__), __FILE__, \
                      __LINE__)

#define T(a, b, c) { { a, b, c } }

static void test_strips_and_fans_become_triangle_lists(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t pos = gb_bin_f32(&b, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 2, 0, 1, 2, 0);
    size_t idx = gb_bin_u8(&b, 5, 4, 3, 2, 1, 0);
    size_t fan_idx = gb_bin_u16(&b, 4, 0, 1, 2, 3);
    begin_single_view(&b);
    gb_json(&b, "'accessors':["
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':6,'type':'VEC3',"
                "'min':[0,0,0],'max':[1,2,0]},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':6,'type':'SCALAR'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':5,'type':'SCALAR'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':3,'type':'VEC3',"
                "'min':[0,0,0],'max':[1,1,0]}],",
            pos, F32, idx, U8, fan_idx, U16, pos, F32);
    gb_json(&b, "'meshes':[{'primitives':["
                "{'attributes':{'POSITION':0},'mode':5},"
                "{'attributes':{'POSITION':0},'indices':1,'mode':5},"
                "{'attributes':{'POSITION':0},'mode':6},"
                "{'attributes':{'POSITION':0},'indices':2,'mode':6},"
                "{'attributes':{'POSITION':3},'mode':5},"
                "{'attributes':{'POSITION':0},'mode':4}]}]}");
    loaded l = load_glb(&b);
    const mn_model *m = l.model;
    const mn_primitive *p = m->meshes[0].primitives;

    /* glTF 3.7.2.1: strip triangle i = (v_i, v_{i+1+i%2}, v_{i+2-i%2}). */
    assert_int_equal(p[0].original_mode, MN_MODE_TRIANGLE_STRIP);
    assert_int_equal(m->accessors[p[0].indices].component, MN_COMPONENT_U32);
    expect_triangles(m, &p[0], T(0, 1, 2), T(1, 3, 2), T(2, 3, 4), T(3, 5, 4));
    /* Indexed: the same rule over the index values 5 4 3 2 1 0. */
    assert_int_equal(p[1].original_mode, MN_MODE_TRIANGLE_STRIP);
    expect_triangles(m, &p[1], T(5, 4, 3), T(4, 2, 3), T(3, 2, 1), T(2, 0, 1));
    /* Fan triangle i = (v_{i+1}, v_{i+2}, v_0). */
    assert_int_equal(p[2].original_mode, MN_MODE_TRIANGLE_FAN);
    expect_triangles(m, &p[2], T(1, 2, 0), T(2, 3, 0), T(3, 4, 0), T(4, 5, 0));
    assert_int_equal(p[3].original_mode, MN_MODE_TRIANGLE_FAN);
    expect_triangles(m, &p[3], T(0, 1, 4), T(1, 2, 4), T(2, 3, 4));
    /* A 3-vertex strip is one triangle. */
    expect_triangles(m, &p[4], T(0, 1, 2));
    /* A plain non-indexed triangle list stays as it is. */
    assert_int_equal(p[5].mode, MN_MODE_TRIANGLES);
    assert_int_equal(p[5].original_mode, MN_MODE_TRIANGLES);
    assert_int_equal(p[5].indices, MN_NONE);
    for (int i = 0; i < 5; i++)
        assert_int_equal(p[i].vertex_count, i == 4 ? 3 : 6);
    /* The soup expands the converted list: 4 strip triangles = 12 vertices. */
    assert_int_equal(mn_primitive_soup(m, &p[0], NULL, NULL, 0), 12);
    unload(&l);
    gb_free(&b);
}

static void test_points_and_lines_keep_their_mode(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t pos = gb_bin_f32(&b, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0);
    size_t idx = gb_bin_u16(&b, 0, 1, 2, 3);
    begin_single_view(&b);
    gb_json(&b, "'accessors':["
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':4,'type':'VEC3',"
                "'min':[0,0,0],'max':[1,1,0]},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':4,'type':'SCALAR'}],"
                "'meshes':[{'primitives':["
                "{'attributes':{'POSITION':0},'mode':0},"
                "{'attributes':{'POSITION':0},'mode':1,'indices':1},"
                "{'attributes':{'POSITION':0},'mode':2},"
                "{'attributes':{'POSITION':0},'mode':3,'indices':1}]}]}",
            pos, F32, idx, U16);
    loaded l = load_glb(&b);
    const mn_model *m = l.model;
    const mn_primitive *p = m->meshes[0].primitives;

    const mn_primitive_mode modes[4] = { MN_MODE_POINTS, MN_MODE_LINES, MN_MODE_LINE_LOOP,
                                         MN_MODE_LINE_STRIP };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(p[i].mode, modes[i]);
        assert_int_equal(p[i].original_mode, modes[i]);
        assert_int_equal(mn_primitive_soup(m, &p[i], NULL, NULL, 0), 0);
    }
    assert_int_equal(p[0].indices, MN_NONE);
    assert_int_equal(p[1].indices, 1);
    assert_int_equal(p[2].indices, MN_NONE);
    expect_u32s(m, p[3].indices, 0, 1, 2, 3);
    unload(&l);
    gb_free(&b);
}

/* Attribute names: set numbers as glTF spells them; any other name is kept, as a custom attribute,
   with a warning unless it starts with '_'. */
static void test_attribute_names_glTF_lacks_are_kept_as_custom(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t pos = gb_bin_f32(&b, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    size_t uv = gb_bin_f32(&b, 0, 0, 1, 0, 0, 1);
    begin_single_view(&b);
    gb_json(&b, "'accessors':["
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':3,'type':'VEC3',"
                "'min':[0,0,0],'max':[1,1,0]},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':3,'type':'VEC2'}],"
                "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'TEXCOORD_10':1,'TEXCOORD_01':1,"
                "'_UV':1}}]}]}",
            pos, F32, uv, F32);
    loaded l = load_glb(&b);
    const mn_model *m = l.model;
    const mn_primitive *p = m->meshes[0].primitives;
    assert_int_equal(p->attribute_count, 4);
    assert_int_equal(mn_primitive_find(p, MN_SEMANTIC_TEXCOORD, 10), 1);
    assert_int_equal(mn_primitive_find(p, MN_SEMANTIC_TEXCOORD, 1), MN_NONE);
    uint32_t customs = 0;
    for (uint32_t a = 0; a < p->attribute_count; a++)
        customs += p->attributes[a].semantic == MN_SEMANTIC_CUSTOM;
    assert_int_equal(customs, 2);
    /* the padded set number is warned about, the underscore name is not */
    assert_int_equal(m->warning_count, 1);
    assert_int_equal(m->warnings[0].code, MN_INVALID_VALUE);
    assert_non_null(strstr(m->warnings[0].message, "\"TEXCOORD_01\" is not a glTF attribute name"));
    unload(&l);
    gb_free(&b);
}

/* ---- buffers: data URIs, files, resolvers ------------------------------------------- */

static void test_data_uri_buffers_and_images(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_bin_f32(&b, 1, 2, 3, -4, 0.5f, 6);
    char *uri = gb_data_uri(&b);
    gb_builder img;
    gb_init(&img);
    gb_bin_u8(&img, 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 1, 2, 3);
    char *png = gb_base64(gb_bin_data(&img), gb_bin_size(&img));
    char *u16 = gb_base64((const uint8_t[]){ 1, 0, 2, 0 }, 4);
    gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':24,'uri':'%s'},"
                "{'byteLength':4,'uri':'data:application/gltf-buffer;base64,%s'}],"
                "'bufferViews':[{'buffer':0,'byteLength':24},{'buffer':1,'byteLength':4}],"
                "'accessors':[{'bufferView':0,'componentType':%d,'count':2,'type':'VEC3'},"
                "{'bufferView':1,'componentType':%d,'count':2,'type':'SCALAR'}],"
                "'images':[{'uri':'data:image/png;base64,%s'}]}",
            uri, u16, F32, U16, png);
    mn_model *m = load_gltf_text(&b, NULL);

    assert_int_equal(m->buffer_count, 2);
    assert_int_equal(m->buffers[0].size, 24);
    assert_string_equal(m->buffers[0].uri, uri);
    assert_memory_equal(m->buffers[0].data, gb_bin_data(&b), 24);
    expect_floats(m, 0, 0, 1, 2, 3, -4, 0.5f, 6);
    expect_u32s(m, 1, 1, 2);
    assert_int_equal(m->image_count, 1);
    assert_string_equal(m->images[0].mime_type, "image/png");
    assert_int_equal(m->images[0].size, gb_bin_size(&img));
    assert_memory_equal(m->images[0].data, gb_bin_data(&img), gb_bin_size(&img));
    assert_int_equal(m->images[0].buffer_view, MN_NONE);
    mn_model_free(m);
    free(uri);
    free(png);
    free(u16);
    gb_free(&img);
    gb_free(&b);
}

static void test_external_buffer_and_image_via_read_file(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_bin_f32(&b, 7, 8, 9);
    gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':12,'uri':'model.bin'},"
                "{'byteLength':4,'uri':'two%%20words.bin'}],"
                "'bufferViews':[{'buffer':0,'byteLength':12},{'buffer':1,'byteLength':4}],"
                "'accessors':[{'bufferView':0,'componentType':%d,'count':3,'type':'SCALAR'},"
                "{'bufferView':1,'componentType':%d,'count':4,'type':'SCALAR'}],"
                "'images':[{'uri':'tex.jpg'},{'uri':'missing.png'}]}",
            F32, U8);
    gb_tempdir dir;
    assert_true(gb_tempdir_create(&dir));
    const char *path = gb_tempdir_write_gltf(&dir, &b, "model.gltf", "model.bin");
    assert_non_null(path);
    assert_non_null(gb_tempdir_write(&dir, "two words.bin", (const uint8_t[]){ 4, 3, 2, 1 }, 4));
    const uint8_t jpeg[6] = { 0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10 };
    assert_non_null(gb_tempdir_write(&dir, "tex.jpg", jpeg, sizeof jpeg));

    mn_model *m = NULL;
    mn_error err;
    mn_status status = mn_gltf_read_file(path, NULL, &m, &err);
    if (status != MN_OK)
        print_failure(status, &err);
    assert_int_equal(status, MN_OK);
    assert_string_equal(m->buffers[0].uri, "model.bin");
    assert_string_equal(m->buffers[1].uri, "two%20words.bin");  /* as written */
    expect_floats(m, 0, 0, 7, 8, 9);
    expect_u32s(m, 1, 4, 3, 2, 1);
    /* The image's MIME type is guessed from its magic bytes. */
    assert_string_equal(m->images[0].mime_type, "image/jpeg");
    assert_int_equal(m->images[0].size, sizeof jpeg);
    assert_memory_equal(m->images[0].data, jpeg, sizeof jpeg);
    /* A missing image is harmless to a runtime: size 0 and a warning naming it. */
    assert_int_equal(m->images[1].size, 0);
    assert_true(m->warning_count >= 1);
    bool named = false;
    for (uint32_t i = 0; i < m->warning_count; i++) {
        print_message("warning %s at %s: %s\n", mn_status_name(m->warnings[i].code),
                      m->warnings[i].path, m->warnings[i].message);
        named |= strstr(m->warnings[i].path, "images[1]") != NULL;
    }
    assert_true(named);
    mn_model_free(m);
    gb_tempdir_remove(&dir);
    gb_free(&b);
}

/* A resolver over an in-memory table of files that counts its calls. */
typedef struct fake_file {
    const char *uri;
    const uint8_t *data;
    size_t size;
} fake_file;

typedef struct fake_resolver {
    const fake_file *files;
    size_t file_count;
    int reads, releases;
    char base_dirs[4][64];
    char uris[4][64];
} fake_resolver;

static mn_status fake_read(void *user, const char *base_dir, const char *uri, mn_bytes *out,
                           mn_error *err)
{
    fake_resolver *r = user;
    if (r->reads < 4) {
        snprintf(r->base_dirs[r->reads], sizeof r->base_dirs[0], "%s", base_dir ? base_dir : "(null)");
        snprintf(r->uris[r->reads], sizeof r->uris[0], "%s", uri);
    }
    r->reads++;
    for (size_t i = 0; i < r->file_count; i++) {
        if (strcmp(r->files[i].uri, uri) == 0) {
            out->data = r->files[i].data;
            out->size = r->files[i].size;
            return MN_OK;
        }
    }
    if (err) {
        memset(err, 0, sizeof *err);
        err->code = MN_IO;
        err->offset = -1;
        snprintf(err->message, sizeof err->message, "no such fake file: %s", uri);
    }
    return MN_IO;
}

static void fake_release(void *user, mn_bytes *bytes)
{
    fake_resolver *r = user;
    (void)bytes;
    r->releases++;
}

static mn_gltf_options resolver_options(fake_resolver *r, const char *base_dir)
{
    mn_gltf_options o;
    memset(&o, 0, sizeof o);
    o.resolver.read = fake_read;
    o.resolver.release = fake_release;
    o.resolver.user = r;
    o.base_dir = base_dir;
    return o;
}

static void test_external_buffers_via_a_custom_resolver(void **state)
{
    (void)state;
    const uint8_t one[8] = { 1, 0, 0, 0, 2, 0, 0, 0 };
    const uint8_t two[2] = { 9, 8 };
    const fake_file files[2] = { { "data.bin", one, sizeof one }, { "sub/more data.bin", two, sizeof two } };
    fake_resolver r = { files, 2, 0, 0, { { 0 } }, { { 0 } } };
    mn_gltf_options o = resolver_options(&r, "virtual/dir");

    gb_builder b;
    gb_init(&b);
    gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':8,'uri':'data.bin'},"
                "{'byteLength':2,'uri':'sub/more%%20data.bin'}],"
                "'bufferViews':[{'buffer':0,'byteLength':8},{'buffer':1,'byteLength':2}],"
                "'accessors':[{'bufferView':0,'componentType':%d,'count':2,'type':'SCALAR'},"
                "{'bufferView':1,'componentType':%d,'count':2,'type':'SCALAR'}]}",
            U32, U8);
    mn_model *m = load_gltf_text(&b, &o);
    assert_int_equal(r.reads, 2);
    assert_string_equal(r.base_dirs[0], "virtual/dir");
    assert_string_equal(r.uris[0], "data.bin");
    assert_string_equal(r.uris[1], "sub/more data.bin");   /* percent-decoded */
    expect_u32s(m, 0, 1, 2);
    expect_u32s(m, 1, 9, 8);
    mn_model_free(m);
    /* Every read is released by the time the model is gone. */
    assert_int_equal(r.releases, 2);
    gb_free(&b);
}

static void test_uri_escaping_the_folder_is_refused_unless_allowed(void **state)
{
    (void)state;
    const uint8_t bytes[4] = { 5, 6, 7, 8 };
    const fake_file files[2] = { { "../secret.bin", bytes, 4 }, { "/abs/secret.bin", bytes, 4 } };
    const char *uris[3] = { "../secret.bin", "/abs/secret.bin", "a/../../secret.bin" };
    for (int i = 0; i < 3; i++) {
        fake_resolver r = { files, 2, 0, 0, { { 0 } }, { { 0 } } };
        mn_gltf_options o = resolver_options(&r, "models");
        gb_builder b;
        gb_init(&b);
        gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':4,'uri':'%s'}]}", uris[i]);
        mn_model *m = NULL;
        mn_error err;
        mn_status status = mn_gltf_read_memory(gb_json_text(&b), gb_json_size(&b), &o, &m, &err);
        print_message("%s: %s at %s: %s\n", uris[i], mn_status_name(status), err.path, err.message);
        assert_int_equal(status, MN_URI);
        assert_null(m);
        assert_string_equal(err.path, "buffers[0].uri");
        assert_int_equal(r.reads, 0);
        if (i < 2) {
            o.resolver.root = "/";
            m = load_gltf_text(&b, &o);
            assert_int_equal(r.reads, 1);
            assert_string_equal(r.uris[0], uris[i]);
            assert_memory_equal(m->buffers[0].data, bytes, 4);
            mn_model_free(m);
        }
        gb_free(&b);
    }
}

static void test_parent_folder_uri_on_disk_needs_permission(void **state)
{
    (void)state;
    gb_tempdir dir;
    assert_true(gb_tempdir_create(&dir));
    assert_non_null(gb_tempdir_mkdir(&dir, "sub"));
    assert_non_null(gb_tempdir_write(&dir, "secret.bin", (const uint8_t[]){ 42, 0, 0, 0 }, 4));
    gb_builder b;
    gb_init(&b);
    gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':4,'uri':'../secret.bin'}],"
                "'bufferViews':[{'buffer':0,'byteLength':4}],"
                "'accessors':[{'bufferView':0,'componentType':%d,'count':1,'type':'SCALAR'}]}",
            U32);
    const char *path = gb_tempdir_write(&dir, "sub/model.gltf", gb_json_text(&b), gb_json_size(&b));
    assert_non_null(path);

    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_file(path, NULL, &m, &err), MN_URI);
    assert_null(m);
    assert_string_equal(err.path, "buffers[0].uri");
    print_message("refused: %s\n", err.message);

    mn_gltf_options o;
    memset(&o, 0, sizeof o);
    o.resolver.root = dir.path;
    mn_status status = mn_gltf_read_file(path, &o, &m, &err);
    if (status != MN_OK)
        print_failure(status, &err);
    assert_int_equal(status, MN_OK);
    expect_u32s(m, 0, 42);
    mn_model_free(m);
    gb_tempdir_remove(&dir);
    gb_free(&b);
}

/* ---- extensions --------------------------------------------------------------------- */

static void test_unsupported_required_extension_is_named(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_json(&b, "{" ASSET ",'extensionsUsed':['EXT_lights_image_based'],"
                "'extensionsRequired':['EXT_lights_image_based']}");
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_memory(gb_json_text(&b), gb_json_size(&b), NULL, &m, &err),
                     MN_UNSUPPORTED_EXTENSION);
    assert_null(m);
    print_message("%s: %s\n", err.path, err.message);
    assert_non_null(strstr(err.message, "EXT_lights_image_based"));
    gb_free(&b);

    /* Used but not required: an unknown extension is ignored. */
    gb_init(&b);
    gb_json(&b, "{" ASSET ",'extensionsUsed':['EXT_made_up'],"
                "'nodes':[{'extensions':{'EXT_made_up':{'x':1}}}]}");
    m = load_gltf_text(&b, NULL);
    assert_int_equal(m->extensions_used_count, 1);
    assert_string_equal(m->extensions_used[0], "EXT_made_up");
    assert_int_equal(m->extensions_required_count, 0);
    assert_int_equal(m->node_count, 1);
    mn_model_free(m);
    gb_free(&b);
}

/* ---- materials ------------------------------------------------------------------------- */

static void expect_empty_slot(const mn_texture_ref *t)
{
    assert_int_equal(t->texture, MN_NONE);
    assert_false(t->has_transform);
}

static void expect_plain_ref(const mn_texture_ref *t, uint32_t texture, uint32_t texcoord, float scale)
{
    assert_int_equal(t->texture, texture);
    assert_int_equal(t->texcoord, texcoord);
    assert_float_near(t->scale, scale, 0);
    assert_false(t->has_transform);
    assert_float_near(t->offset[0], 0, 0);
    assert_float_near(t->offset[1], 0, 0);
    assert_float_near(t->rotation, 0, 0);
    assert_float_near(t->uv_scale[0], 1, 0);
    assert_float_near(t->uv_scale[1], 1, 0);
}

static void test_material_defaults_and_factors(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t png = gb_bin_u8(&b, 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n');
    begin_single_view(&b);
    (void)png;
    gb_json(&b, "'images':[{'bufferView':0,'mimeType':'image/png'}],"
                "'samplers':[{'magFilter':9729,'minFilter':9987,'wrapS':33071},{}],"
                "'textures':[{'source':0,'sampler':0},{'source':0}],"
                "'materials':[{},"
                "{'name':'painted','pbrMetallicRoughness':{'baseColorFactor':[0.5,0.25,0.125,0.75],"
                "'metallicFactor':0.375,'roughnessFactor':0.625,"
                "'baseColorTexture':{'index':0,'texCoord':1},'metallicRoughnessTexture':{'index':1}},"
                "'normalTexture':{'index':0,'scale':0.5},"
                "'occlusionTexture':{'index':1,'strength':0.25,'texCoord':2},"
                "'emissiveTexture':{'index':0},'emissiveFactor':[1,0.5,0],"
                "'alphaMode':'MASK','alphaCutoff':0.25,'doubleSided':true,'extras':{'shader':'toon'}},"
                "{'alphaMode':'BLEND'},{'alphaMode':'OPAQUE','doubleSided':false}]}");
    loaded l = load_glb(&b);
    const mn_model *m = l.model;

    assert_int_equal(m->material_count, 4);
    const mn_material *d = &m->materials[0];
    assert_string_equal(d->name, "material0");
    for (int i = 0; i < 4; i++)
        assert_float_near(d->base_color[i], 1, 0);
    assert_float_near(d->metallic, 1, 0);
    assert_float_near(d->roughness, 1, 0);
    for (int i = 0; i < 3; i++)
        assert_float_near(d->emissive[i], 0, 0);
    assert_float_near(d->emissive_strength, 1, 0);
    assert_int_equal(d->alpha_mode, MN_ALPHA_OPAQUE);
    assert_float_near(d->alpha_cutoff, 0.5f, 0);
    assert_false(d->double_sided);
    assert_null(d->extras);
    expect_empty_slot(&d->base_color_texture);
    expect_empty_slot(&d->metallic_roughness_texture);
    expect_empty_slot(&d->normal_texture);
    expect_empty_slot(&d->occlusion_texture);
    expect_empty_slot(&d->emissive_texture);

    const mn_material *p = &m->materials[1];
    assert_string_equal(p->name, "painted");
    const float bc[4] = { 0.5f, 0.25f, 0.125f, 0.75f };
    assert_vec_near(p->base_color, bc, 4, 0);
    assert_float_near(p->metallic, 0.375f, 0);
    assert_float_near(p->roughness, 0.625f, 0);
    expect_plain_ref(&p->base_color_texture, 0, 1, 1);
    expect_plain_ref(&p->metallic_roughness_texture, 1, 0, 1);
    expect_plain_ref(&p->normal_texture, 0, 0, 0.5f);
    expect_plain_ref(&p->occlusion_texture, 1, 2, 0.25f);
    expect_plain_ref(&p->emissive_texture, 0, 0, 1);
    const float em[3] = { 1, 0.5f, 0 };
    assert_vec_near(p->emissive, em, 3, 0);
    assert_int_equal(p->alpha_mode, MN_ALPHA_MASK);
    assert_float_near(p->alpha_cutoff, 0.25f, 0);
    assert_true(p->double_sided);
    expect_json_text(p->extras, "{'shader':'toon'}");

    assert_string_equal(m->materials[2].name, "material2");
    assert_int_equal(m->materials[2].alpha_mode, MN_ALPHA_BLEND);
    assert_int_equal(m->materials[3].alpha_mode, MN_ALPHA_OPAQUE);

    assert_int_equal(m->texture_count, 2);
    assert_int_equal(m->textures[0].image, 0);
    assert_int_equal(m->textures[0].sampler, 0);
    assert_int_equal(m->textures[1].sampler, MN_NONE);
    assert_int_equal(m->samplers[0].mag_filter, 9729);
    assert_int_equal(m->samplers[0].min_filter, 9987);
    assert_int_equal(m->samplers[0].wrap_s, 33071);
    assert_int_equal(m->samplers[0].wrap_t, 10497);
    assert_int_equal(m->samplers[1].mag_filter, 0);
    assert_int_equal(m->samplers[1].wrap_s, 10497);
    assert_int_equal(m->images[0].buffer_view, 0);
    assert_string_equal(m->images[0].mime_type, "image/png");
    assert_int_equal(m->images[0].size, 8);
    assert_ptr_equal(m->images[0].data, l.glb.data + gb_glb_bin_offset(&b));
    assert_null(m->images[0].uri);
    unload(&l);
    gb_free(&b);
}

static void test_texture_transform_and_emissive_strength(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_json(&b, "{" ASSET ",'extensionsUsed':['KHR_texture_transform','KHR_materials_emissive_strength'],"
                "'images':[{'uri':'data:image/png;base64,iVBORw0KGgo='}],'textures':[{'source':0}],"
                "'materials':[{'pbrMetallicRoughness':{'baseColorTexture':{'index':0,'texCoord':0,"
                "'extensions':{'KHR_texture_transform':{'offset':[0.5,0.25],'rotation':1.5,"
                "'scale':[2,3],'texCoord':1}}}},"
                "'normalTexture':{'index':0,'texCoord':2,"
                "'extensions':{'KHR_texture_transform':{'offset':[0,1]}}},"
                "'emissiveFactor':[1,1,1],"
                "'extensions':{'KHR_materials_emissive_strength':{'emissiveStrength':5.5}}}]}");
    mn_model *m = load_gltf_text(&b, NULL);

    const mn_material *mat = &m->materials[0];
    const mn_texture_ref *t = &mat->base_color_texture;
    assert_true(t->has_transform);
    assert_int_equal(t->texcoord, 1);   /* the transform's texCoord overrides */
    assert_float_near(t->offset[0], 0.5f, 0);
    assert_float_near(t->offset[1], 0.25f, 0);
    assert_float_near(t->rotation, 1.5f, 0);
    assert_float_near(t->uv_scale[0], 2, 0);
    assert_float_near(t->uv_scale[1], 3, 0);
    const mn_texture_ref *n = &mat->normal_texture;
    assert_true(n->has_transform);
    assert_int_equal(n->texcoord, 2);   /* no override: as written */
    assert_float_near(n->offset[1], 1, 0);
    assert_float_near(n->rotation, 0, 0);
    assert_float_near(n->uv_scale[0], 1, 0);
    assert_float_near(n->uv_scale[1], 1, 0);
    assert_float_near(n->scale, 1, 0);
    assert_float_near(mat->emissive_strength, 5.5f, 0);
    assert_string_equal(m->images[0].mime_type, "image/png");
    assert_int_equal(m->images[0].size, 8);
    mn_model_free(m);
    gb_free(&b);
}

/* ---- nodes ---------------------------------------------------------------------------- */

static void expect_local_matrix(const mn_node *node, const float expected[16])
{
    float local[16];
    mn_node_local_matrix(node, local);
    assert_vec_near(local, expected, 16, 1e-5);
}

static void test_matrix_nodes_are_decomposed_to_trs(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    /* T(1,2,3) · Rz(90°) · S(2,3,4), column-major. */
    gb_json(&b, "{" ASSET ",'nodes':["
                "{'matrix':[0,2,0,0, -3,0,0,0, 0,0,4,0, 1,2,3,1]},"
                "{'matrix':[1,0,0,0, 0,1,0,0, 0,0,-1,0, 0,0,0,1]},"
                "{'matrix':[-1,0,0,0, 0,1,0,0, 0,0,1,0, 5,0,0,1]},"
                "{'matrix':[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]},"
                "{'translation':[1,2,3],'rotation':[0,0.6,0,0.8],'scale':[4,5,6]}]}");
    mn_model *m = load_gltf_text(&b, NULL);

    const mn_node *n = m->nodes;
    assert_true(n[0].has_matrix);
    const float t0[3] = { 1, 2, 3 }, r0[4] = { 0, 0, 0.70710678f, 0.70710678f }, s0[3] = { 2, 3, 4 };
    assert_vec_near(n[0].translation, t0, 3, 1e-6);
    assert_vec_near(n[0].rotation, r0, 4, 1e-6);
    assert_vec_near(n[0].scale, s0, 3, 1e-6);
    expect_local_matrix(&n[0], (const float[16]){ 0, 2, 0, 0, -3, 0, 0, 0, 0, 0, 4, 0, 1, 2, 3, 1 });

    /* A mirror: the negative determinant goes into s.z. */
    const float s1[3] = { 1, 1, -1 }, r1[4] = { 0, 0, 0, 1 };
    assert_vec_near(n[1].scale, s1, 3, 1e-6);
    assert_vec_near(n[1].rotation, r1, 4, 1e-6);
    assert_float_near(n[2].scale[2], -1, 1e-6);
    expect_local_matrix(&n[2], (const float[16]){ -1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 0, 0, 1 });

    assert_true(n[3].has_matrix);
    const float zero[3] = { 0, 0, 0 }, one[3] = { 1, 1, 1 }, id[4] = { 0, 0, 0, 1 };
    assert_vec_near(n[3].translation, zero, 3, 0);
    assert_vec_near(n[3].rotation, id, 4, 0);
    assert_vec_near(n[3].scale, one, 3, 0);

    assert_false(n[4].has_matrix);
    const float t4[3] = { 1, 2, 3 }, r4[4] = { 0, 0.6f, 0, 0.8f }, s4[3] = { 4, 5, 6 };
    assert_vec_near(n[4].translation, t4, 3, 0);
    assert_vec_near(n[4].rotation, r4, 4, 0);
    assert_vec_near(n[4].scale, s4, 3, 0);
    mn_model_free(m);
    gb_free(&b);
}

static void test_default_names(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t t = gb_bin_f32(&b, 0, 1);
    size_t v = gb_bin_f32(&b, 0, 0, 0, 1, 1, 1);
    begin_single_view(&b);
    gb_json(&b, "'accessors':["
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':2,'type':'SCALAR','min':[0],'max':[1]},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':2,'type':'VEC3'}],"
                "'nodes':[{},{'name':'hip'},{}],"
                "'materials':[{},{'name':'skin'}],"
                "'animations':["
                "{'channels':[{'sampler':0,'target':{'node':0,'path':'scale'}}],'samplers':[{'input':0,'output':1}]},"
                "{'name':'walk','channels':[{'sampler':0,'target':{'node':1,'path':'translation'}}],"
                "'samplers':[{'input':0,'output':1}]},"
                "{'channels':[{'sampler':0,'target':{'node':2,'path':'translation'}}],"
                "'samplers':[{'input':0,'output':1}]}]}",
            t, F32, v, F32);
    loaded l = load_glb(&b);
    const mn_model *m = l.model;

    assert_string_equal(m->nodes[0].name, "node0");
    assert_string_equal(m->nodes[1].name, "hip");
    assert_string_equal(m->nodes[2].name, "node2");
    assert_string_equal(m->materials[0].name, "material0");
    assert_string_equal(m->materials[1].name, "skin");
    assert_string_equal(m->animations[0].name, "anim0");
    assert_string_equal(m->animations[1].name, "walk");
    assert_string_equal(m->animations[2].name, "anim2");
    unload(&l);
    gb_free(&b);
}

/* ---- morph targets ------------------------------------------------------------------- */

static void test_morph_weights_and_target_names(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t pos = gb_bin_f32(&b, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    size_t d1 = gb_bin_f32(&b, 0, 0, 1, 0, 0, 1, 0, 0, 1);
    size_t d2 = gb_bin_f32(&b, 1, 0, 0, 1, 0, 0, 1, 0, 0);
    begin_single_view(&b);
    gb_json(&b, "'accessors':["
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':3,'type':'VEC3','min':[0,0,0],'max':[1,1,0]},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':3,'type':'VEC3','min':[0,0,1],'max':[0,0,1]},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':3,'type':'VEC3','min':[1,0,0],'max':[1,0,0]}],",
            pos, F32, d1, F32, d2, F32);
    gb_json(&b, "'meshes':["
                "{'primitives':[{'attributes':{'POSITION':0},'targets':[{'POSITION':1},{'POSITION':2,'NORMAL':1}]}],"
                "'weights':[0.5,0.25],'extras':{'targetNames':['smile','frown']}},"
                "{'primitives':[{'attributes':{'POSITION':0},'targets':[{'POSITION':1},{'NORMAL':2}]}]}],"
                "'nodes':[{'mesh':0,'weights':[0.75,0.125]},{'mesh':1}]}");
    loaded l = load_glb(&b);
    const mn_model *m = l.model;

    const mn_mesh *a = &m->meshes[0];
    const mn_primitive *p = &a->primitives[0];
    assert_int_equal(p->target_count, 2);
    assert_int_equal(p->targets[0].position, 1);
    assert_int_equal(p->targets[0].normal, MN_NONE);
    assert_int_equal(p->targets[0].tangent, MN_NONE);
    assert_int_equal(p->targets[1].position, 2);
    assert_int_equal(p->targets[1].normal, 1);
    assert_int_equal(a->weight_count, 2);
    assert_float_near(a->weights[0], 0.5f, 0);
    assert_float_near(a->weights[1], 0.25f, 0);
    assert_non_null(a->target_names);
    assert_string_equal(a->target_names[0], "smile");
    assert_string_equal(a->target_names[1], "frown");
    expect_json_text(a->extras, "{'targetNames':['smile','frown']}");

    const mn_mesh *c = &m->meshes[1];
    assert_int_equal(c->primitives[0].targets[1].position, MN_NONE);
    assert_int_equal(c->primitives[0].targets[1].normal, 2);
    assert_int_equal(c->weight_count, 2);   /* zeros when the file gives none */
    assert_float_near(c->weights[0], 0, 0);
    assert_float_near(c->weights[1], 0, 0);
    assert_null(c->target_names);
    assert_null(c->extras);

    assert_int_equal(m->nodes[0].weight_count, 2);
    assert_float_near(m->nodes[0].weights[0], 0.75f, 0);
    assert_float_near(m->nodes[0].weights[1], 0.125f, 0);
    assert_null(m->nodes[1].weights);
    assert_int_equal(m->nodes[1].weight_count, 0);
    unload(&l);
    gb_free(&b);
}

/* ---- animations ------------------------------------------------------------------------ */

static void expect_channel_values(const mn_channel *c, const float *expected, size_t n)
{
    size_t per_key = c->interpolation == MN_INTERP_CUBICSPLINE ? 3 : 1;
    assert_int_equal((size_t)c->key_count * per_key * c->components, n);
    assert_vec_near(c->values, expected, n, 0);
}

static void test_animation_channels_and_interpolations(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t t0 = gb_bin_f32(&b, 0, 0.5f, 2);
    size_t t1 = gb_bin_f32(&b, 0, 1.5f);
    size_t tr = gb_bin_f32(&b, 0, 0, 0, 1, 2, 3, 4, 5, 6);
    size_t rot = gb_bin_f32(&b, 0, 0, 0, 1, 0, 0.70710677f, 0, 0.70710677f);
    size_t rot16 = gb_bin_i16(&b, 0, 0, 0, 32767, 32767, 0, 0, 0);
    size_t sc = gb_bin_f32(&b, -1, -1, -1, 1, 1, 1, 0.5f, 0.5f, 0.5f,
                           -2, -2, -2, 2, 2, 2, 0.25f, 0.25f, 0.25f);
    size_t w = gb_bin_f32(&b, 0, 1, 0.5f, 0.5f, 1, 0);
    size_t pos = gb_bin_f32(&b, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    begin_single_view(&b);
    gb_json(&b, "'accessors':["
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':3,'type':'SCALAR','min':[0],'max':[2]},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':2,'type':'SCALAR','min':[0],'max':[1.5]},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':3,'type':'VEC3'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':2,'type':'VEC4'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'normalized':true,'count':2,'type':'VEC4'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':6,'type':'VEC3'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':6,'type':'SCALAR'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':3,'type':'VEC3','min':[0,0,0],'max':[1,1,0]},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':2,'type':'VEC3'}],",
            t0, F32, t1, F32, tr, F32, rot, F32, rot16, I16, sc, F32, w, F32, pos, F32, sc, F32);
    gb_json(&b, "'meshes':[{'primitives':[{'attributes':{'POSITION':7},'targets':[{'POSITION':7},{'POSITION':7}]}]}],"
                "'nodes':[{'mesh':0},{},{}],"
                "'animations':[{'channels':["
                "{'sampler':0,'target':{'node':1,'path':'translation'}},"
                "{'sampler':1,'target':{'node':1,'path':'rotation'}},"
                "{'sampler':2,'target':{'node':2,'path':'rotation'}},"
                "{'sampler':3,'target':{'node':2,'path':'scale'}},"
                "{'sampler':4,'target':{'node':0,'path':'weights'}}],"
                "'samplers':[{'input':0,'output':2,'interpolation':'STEP'},"
                "{'input':1,'output':3},"
                "{'input':1,'output':4,'interpolation':'LINEAR'},"
                "{'input':1,'output':5,'interpolation':'CUBICSPLINE'},"
                "{'input':0,'output':6}],'extras':{'loop':true}},"
                "{'name':'second','channels':[{'sampler':0,'target':{'node':1,'path':'scale'}}],"
                "'samplers':[{'input':1,'output':8}]}]}");
    loaded l = load_glb(&b);
    const mn_model *m = l.model;

    assert_int_equal(m->animation_count, 2);
    const mn_animation *a = &m->animations[0];
    assert_string_equal(a->name, "anim0");
    assert_int_equal(a->channel_count, 5);
    assert_float_near(a->duration, 2.0f, 0);
    expect_json_text(a->extras, "{'loop':true}");
    const mn_channel *c = a->channels;

    assert_int_equal(c[0].node, 1);
    assert_int_equal(c[0].path, MN_PATH_TRANSLATION);
    assert_int_equal(c[0].interpolation, MN_INTERP_STEP);
    assert_int_equal(c[0].key_count, 3);
    assert_int_equal(c[0].components, 3);
    assert_int_equal(c[0].sampler, 0);
    assert_vec_near(c[0].times, ((const float[]){ 0, 0.5f, 2 }), 3, 0);
    expect_channel_values(&c[0], (const float[]){ 0, 0, 0, 1, 2, 3, 4, 5, 6 }, 9);

    assert_int_equal(c[1].path, MN_PATH_ROTATION);
    assert_int_equal(c[1].interpolation, MN_INTERP_LINEAR);
    assert_int_equal(c[1].key_count, 2);
    assert_int_equal(c[1].components, 4);
    assert_vec_near(c[1].times, ((const float[]){ 0, 1.5f }), 2, 0);
    expect_channel_values(&c[1], (const float[]){ 0, 0, 0, 1, 0, 0.70710677f, 0, 0.70710677f }, 8);

    /* Normalized i16 rotations arrive as floats. */
    assert_int_equal(c[2].node, 2);
    assert_int_equal(c[2].interpolation, MN_INTERP_LINEAR);
    expect_channel_values(&c[2], (const float[]){ 0, 0, 0, 1, 1, 0, 0, 0 }, 8);

    /* CUBICSPLINE keeps in-tangent, value, out-tangent per key, as authored. */
    assert_int_equal(c[3].path, MN_PATH_SCALE);
    assert_int_equal(c[3].interpolation, MN_INTERP_CUBICSPLINE);
    assert_int_equal(c[3].key_count, 2);
    assert_int_equal(c[3].components, 3);
    expect_channel_values(&c[3], (const float[]){ -1, -1, -1, 1, 1, 1, 0.5f, 0.5f, 0.5f,
                                                  -2, -2, -2, 2, 2, 2, 0.25f, 0.25f, 0.25f }, 18);

    /* Weights: one value per morph target per key. */
    assert_int_equal(c[4].node, 0);
    assert_int_equal(c[4].path, MN_PATH_WEIGHTS);
    assert_int_equal(c[4].key_count, 3);
    assert_int_equal(c[4].components, 2);
    assert_int_equal(c[4].sampler, 4);
    expect_channel_values(&c[4], (const float[]){ 0, 1, 0.5f, 0.5f, 1, 0 }, 6);

    const mn_animation *s = &m->animations[1];
    assert_string_equal(s->name, "second");
    assert_float_near(s->duration, 1.5f, 0);
    assert_null(s->extras);
    expect_channel_values(&s->channels[0], (const float[]){ -1, -1, -1, 1, 1, 1 }, 6);
    unload(&l);
    gb_free(&b);
}

/* ---- extras, cameras, scenes ----------------------------------------------------------- */

static void test_extras_are_kept_as_json_text(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_json(&b, "{" ASSET ",'nodes':[{'extras':{'tag':'hero','n':[1,2.5],'deep':{'x':null}}},"
                "{'extras':'just a string'},{}],"
                "'accessors':[{'componentType':%d,'count':3,'type':'VEC3','min':[0,0,0],'max':[0,0,0]}],"
                "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}],'extras':{'lod':2}}]}",
            F32);
    mn_model *m = load_gltf_text(&b, NULL);
    expect_json_text(m->nodes[0].extras, "{'tag':'hero','n':[1,2.5],'deep':{'x':null}}");
    expect_json_text(m->nodes[1].extras, "'just a string'");
    assert_null(m->nodes[2].extras);
    expect_json_text(m->meshes[0].extras, "{'lod':2}");
    mn_model_free(m);
    gb_free(&b);
}

static void test_cameras(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_json(&b, "{" ASSET ",'cameras':["
                "{'name':'eye','type':'perspective','perspective':{'yfov':0.75,'aspectRatio':1.5,'znear':0.125,'zfar':100}},"
                "{'type':'orthographic','orthographic':{'xmag':2,'ymag':3,'znear':0.5,'zfar':50}},"
                "{'type':'perspective','perspective':{'yfov':1,'znear':0.25}}],"
                "'nodes':[{'camera':1},{}]}");
    mn_model *m = load_gltf_text(&b, NULL);

    assert_int_equal(m->camera_count, 3);
    const mn_camera *c = m->cameras;
    assert_string_equal(c[0].name, "eye");
    assert_false(c[0].orthographic);
    assert_float_near(c[0].yfov, 0.75f, 0);
    assert_float_near(c[0].aspect_ratio, 1.5f, 0);
    assert_float_near(c[0].znear, 0.125f, 0);
    assert_float_near(c[0].zfar, 100, 0);
    assert_true(c[1].orthographic);
    assert_float_near(c[1].xmag, 2, 0);
    assert_float_near(c[1].ymag, 3, 0);
    assert_float_near(c[1].znear, 0.5f, 0);
    assert_float_near(c[1].zfar, 50, 0);
    assert_float_near(c[2].yfov, 1, 0);
    assert_float_near(c[2].aspect_ratio, 0, 0);   /* absent */
    assert_float_near(c[2].zfar, 0, 0);           /* infinite */
    assert_int_equal(m->nodes[0].camera, 1);
    assert_int_equal(m->nodes[1].camera, MN_NONE);
    mn_model_free(m);
    gb_free(&b);
}

static void test_scenes_hierarchy_and_default_scene(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    /* Children listed before their parents; node 3 alone in the second scene. */
    gb_json(&b, "{" ASSET ",'nodes':[{'children':[2]},{},{'children':[1,4]},{},{}],"
                "'scenes':[{'nodes':[0]},{'name':'second','nodes':[3]}],'scene':1}");
    mn_model *m = load_gltf_text(&b, NULL);

    assert_int_equal(m->scene_count, 2);
    assert_int_equal(m->scene, 1);
    assert_null(m->scenes[0].name);
    assert_string_equal(m->scenes[1].name, "second");
    assert_int_equal(m->scenes[0].node_count, 1);
    assert_int_equal(m->scenes[0].nodes[0], 0);
    assert_int_equal(m->scenes[1].nodes[0], 3);
    const uint32_t parents[5] = { MN_NONE, 2, 0, MN_NONE, 2 };
    for (int i = 0; i < 5; i++)
        assert_int_equal(m->nodes[i].parent, parents[i]);
    assert_int_equal(m->nodes[2].child_count, 2);
    assert_int_equal(m->nodes[2].children[0], 1);
    assert_int_equal(m->nodes[2].children[1], 4);
    assert_int_equal(m->nodes[1].child_count, 0);
    mn_model_free(m);
    gb_free(&b);

    gb_init(&b);
    gb_json(&b, "{" ASSET ",'nodes':[{}],'scenes':[{'nodes':[0]}]}");
    m = load_gltf_text(&b, NULL);
    assert_int_equal(m->scene, MN_NONE);   /* no "scene": none is the default */
    mn_model_free(m);
    gb_free(&b);
}

static void test_bounds_of_the_default_scene_at_rest(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t pos = gb_bin_f32(&b, -1, -1, -1, 1, 1, 1, 1, -1, 1, -1, 1, -1);
    begin_single_view(&b);
    gb_json(&b, "'accessors':[{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':4,"
                "'type':'VEC3','min':[-1,-1,-1],'max':[1,1,1]}],"
                "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'mode':0}]}],"
                "'nodes':[{'mesh':0,'translation':[10,0,0],'scale':[2,2,2]},"
                "{'children':[2],'translation':[0,5,0]},"
                "{'mesh':0,'translation':[0,0,-3]},"
                "{'mesh':0,'translation':[100,100,100]}],"
                "'scenes':[{'nodes':[0,1]},{'nodes':[3]}]}",
            pos, F32);
    loaded l = load_glb(&b);
    /* Scene 0 when none is named: node 0 spans x 8..12, y/z -2..2; node 2 sits at (0,5,-3). */
    const float lo[3] = { -1, -2, -4 }, hi[3] = { 12, 6, 2 };
    assert_vec_near(l.model->bounds_min, lo, 3, 1e-6);
    assert_vec_near(l.model->bounds_max, hi, 3, 1e-6);
    unload(&l);

    /* The same file naming scene 1: only node 3 counts. */
    gb_free(&b);
    gb_init(&b);
    pos = gb_bin_f32(&b, -1, -1, -1, 1, 1, 1, 1, -1, 1, -1, 1, -1);
    begin_single_view(&b);
    gb_json(&b, "'accessors':[{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':4,"
                "'type':'VEC3','min':[-1,-1,-1],'max':[1,1,1]}],"
                "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'mode':0}]}],"
                "'nodes':[{'mesh':0,'translation':[10,0,0]},{'mesh':0,'translation':[100,100,100]}],"
                "'scenes':[{'nodes':[0]},{'nodes':[1]}],'scene':1}",
            pos, F32);
    l = load_glb(&b);
    const float lo1[3] = { 99, 99, 99 }, hi1[3] = { 101, 101, 101 };
    assert_vec_near(l.model->bounds_min, lo1, 3, 1e-6);
    assert_vec_near(l.model->bounds_max, hi1, 3, 1e-6);
    unload(&l);
    gb_free(&b);
}

/* ---- vertex colours and skin influences --------------------------------------------- */

static void test_vertex_colors_as_linear_rgba(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t pos = gb_bin_f32(&b, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    /* u8 VEC3 colours padded to 4 bytes per vertex (vertex attributes are 4-byte aligned). */
    size_t c0 = gb_bin_u8(&b, 255, 0, 0, 77, 0, 255, 0, 77, 0, 0, 255, 77);
    size_t c1 = gb_bin_u16(&b, 65535, 0, 0, 32768, 0, 65535, 0, 65535, 0, 0, 65535, 0);
    size_t c2 = gb_bin_f32(&b, 0.25f, 0.5f, 0.75f, 1, 1, 1, 0, 0, 0);
    gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':%zu}],'bufferViews':["
                "{'buffer':0,'byteOffset':%zu,'byteLength':36},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':12,'byteStride':4},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':24},"
                "{'buffer':0,'byteOffset':%zu,'byteLength':36}],",
            gb_bin_size(&b), pos, c0, c1, c2);
    gb_json(&b, "'accessors':["
                "{'bufferView':0,'componentType':%d,'count':3,'type':'VEC3','min':[0,0,0],'max':[1,1,0]},"
                "{'bufferView':1,'componentType':%d,'normalized':true,'count':3,'type':'VEC3'},"
                "{'bufferView':2,'componentType':%d,'normalized':true,'count':3,'type':'VEC4'},"
                "{'bufferView':3,'componentType':%d,'count':3,'type':'VEC3'}],"
                "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'COLOR_0':1,'COLOR_1':2,'COLOR_2':3}}]}]}",
            F32, U8, U16, F32);
    loaded l = load_glb(&b);
    const mn_model *m = l.model;
    const mn_primitive *p = &m->meshes[0].primitives[0];

    float rgba[12];
    assert_int_equal(mn_primitive_colors(m, p, 0, NULL, 0), 12);
    assert_int_equal(mn_primitive_colors(m, p, 0, rgba, 12), 12);
    assert_vec_near(rgba, ((const float[]){ 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1 }), 12, 0);
    assert_int_equal(mn_primitive_colors(m, p, 1, rgba, 12), 12);
    assert_vec_near(rgba, ((const float[]){ 1, 0, 0, UN16(32768), 0, 1, 0, 1, 0, 0, 1, 0 }), 12, NORM_TOL);
    assert_int_equal(mn_primitive_colors(m, p, 2, rgba, 12), 12);
    assert_vec_near(rgba, ((const float[]){ 0.25f, 0.5f, 0.75f, 1, 1, 1, 1, 1, 0, 0, 0, 1 }), 12, 0);
    /* Short capacity: at most that many floats are written. */
    float four[5] = { -9, -9, -9, -9, -9 };
    assert_int_equal(mn_primitive_colors(m, p, 0, four, 4), 12);
    assert_float_near(four[0], 1, 0);
    assert_float_near(four[4], -9, 0);
    assert_int_equal(mn_primitive_colors(m, p, 3, rgba, 12), 0);
    assert_int_equal(mn_primitive_find(p, MN_SEMANTIC_COLOR, 2), 3);
    unload(&l);
    gb_free(&b);
}

static void test_skins_and_skin_influences(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    size_t pos = gb_bin_f32(&b, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    size_t j8 = gb_bin_u8(&b, 0, 1, 2, 3, 3, 2, 1, 0, 1, 0, 0, 0);
    size_t wf = gb_bin_f32(&b, 0.25f, 0.25f, 0, 0, 0.125f, 0.125f, 0.25f, 0.5f, 0, 0, 0, 0);
    size_t j16 = gb_bin_u16(&b, 3, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0);
    size_t w8 = gb_bin_u8(&b, 255, 0, 0, 0, 51, 204, 0, 0, 0, 0, 0, 0);
    gb_bin_align(&b, 4);
    size_t ibm = gb_bin_f32(&b, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, -2, -3, 1,
                            2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1);
    begin_single_view(&b);
    gb_json(&b, "'accessors':["
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':3,'type':'VEC3','min':[0,0,0],'max':[1,1,0]},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':3,'type':'VEC4'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':3,'type':'VEC4'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':3,'type':'VEC4'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'normalized':true,'count':3,'type':'VEC4'},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':2,'type':'MAT4'}],",
            pos, F32, j8, U8, wf, F32, j16, U16, w8, U8, ibm, F32);
    gb_json(&b, "'meshes':[{'primitives':["
                "{'attributes':{'POSITION':0,'JOINTS_0':1,'WEIGHTS_0':2}},"
                "{'attributes':{'POSITION':0,'JOINTS_0':3,'WEIGHTS_0':4}},"
                "{'attributes':{'POSITION':0}}]}],"
                "'nodes':[{'mesh':0,'skin':0},{'children':[2,3,4]},{},{},{}],"
                "'skins':[{'joints':[1,2,3,4],'skeleton':1},{'name':'bound','joints':[2,3],'inverseBindMatrices':5}]}");
    loaded l = load_glb(&b);
    const mn_model *m = l.model;

    assert_int_equal(m->skin_count, 2);
    const mn_skin *s = &m->skins[0];
    assert_int_equal(s->joint_count, 4);
    assert_int_equal(s->joints[0], 1);
    assert_int_equal(s->joints[3], 4);
    assert_int_equal(s->skeleton, 1);
    const float id[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
    for (int j = 0; j < 4; j++)
        assert_vec_near(s->inverse_bind + 16 * j, id, 16, 0);
    const mn_skin *s1 = &m->skins[1];
    assert_string_equal(s1->name, "bound");
    assert_int_equal(s1->skeleton, MN_NONE);
    assert_vec_near(s1->inverse_bind,
                    ((const float[]){ 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, -2, -3, 1 }), 16, 0);
    assert_float_near(s1->inverse_bind[16], 2, 0);
    assert_int_equal(m->nodes[0].skin, 0);

    const mn_primitive *p = m->meshes[0].primitives;
    uint16_t joints[12];
    float weights[12];
    assert_true(mn_primitive_skin_influences(m, &p[0], joints, weights));
    const uint16_t j_expected[8] = { 0, 1, 2, 3, 3, 2, 1, 0 };
    assert_memory_equal(joints, j_expected, sizeof j_expected);
    /* Normalised to sum 1; all-zero weights become [1,0,0,0]. */
    assert_vec_near(weights, ((const float[]){ 0.5f, 0.5f, 0, 0, 0.125f, 0.125f, 0.25f, 0.5f, 1, 0, 0, 0 }),
                    12, 1e-6);
    assert_true(mn_primitive_skin_influences(m, &p[1], joints, weights));
    const uint16_t j16_expected[8] = { 3, 0, 0, 0, 1, 2, 0, 0 };
    assert_memory_equal(joints, j16_expected, sizeof j16_expected);
    assert_vec_near(weights, ((const float[]){ 1, 0, 0, 0, 0.2f, 0.8f, 0, 0, 1, 0, 0, 0 }), 12, 1e-6);
    assert_false(mn_primitive_skin_influences(m, &p[2], joints, weights));
    unload(&l);
    gb_free(&b);
}

/* ---- GLB container details ---------------------------------------------------------------- */

static void test_glb_unknown_chunks_are_skipped(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_bin_f32(&b, 3, 4);
    gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':8}],'bufferViews':[{'buffer':0,'byteLength':8}],"
                "'accessors':[{'bufferView':0,'componentType':%d,'count':2,'type':'SCALAR'}]}",
            F32);
    const uint8_t junk[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    gb_chunk chunks[4] = {
        { GB_CHUNK_JSON, gb_json_text(&b), gb_json_size(&b), true, GB_AUTO },
        { GB_CHUNK_BIN, gb_bin_data(&b), gb_bin_size(&b), true, GB_AUTO },
        { 0x5A5A5A5Au, junk, sizeof junk, false, GB_AUTO },
        { 0x00000000u, junk, 4, false, GB_AUTO },
    };
    gb_layout layout = { GB_MAGIC, 2, GB_AUTO, chunks, 4 };
    gb_blob glb = gb_glb_custom(&layout);
    mn_model *m = read_ok(glb.data, glb.size, NULL);
    expect_floats(m, 0, 0, 3, 4);
    mn_model_free(m);
    gb_blob_free(&glb);

    /* JSON and an unknown chunk, no BIN at all. */
    gb_builder j;
    gb_init(&j);
    gb_json(&j, "{" ASSET ",'nodes':[{'name':'only'}]}");
    gb_chunk two[2] = {
        { GB_CHUNK_JSON, gb_json_text(&j), gb_json_size(&j), true, GB_AUTO },
        { 0x54584554u, junk, sizeof junk, false, GB_AUTO },
    };
    layout = (gb_layout){ GB_MAGIC, 2, GB_AUTO, two, 2 };
    glb = gb_glb_custom(&layout);
    m = read_ok(glb.data, glb.size, NULL);
    assert_string_equal(m->nodes[0].name, "only");
    mn_model_free(m);
    gb_blob_free(&glb);
    gb_free(&j);
    gb_free(&b);
}

static void test_glb_padding(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_bin_u8(&b, 10, 20, 30, 40, 50);   /* 5 bytes: the chunk carries 3 bytes of zero padding */
    gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':5}],'bufferViews':[{'buffer':0,'byteLength':5}],"
                "'accessors':[{'bufferView':0,'componentType':%d,'count':5,'type':'SCALAR'}]}",
            U8);
    /* An odd-length JSON text, so the JSON chunk ends in spaces too. */
    if (gb_json_size(&b) % 4 == 0)
        gb_json_raw(&b, " ");
    loaded l = load_glb(&b);
    assert_int_equal(l.glb.size % 4, 0);
    assert_int_equal(l.model->buffers[0].size, 5);
    expect_u32s(l.model, 0, 10, 20, 30, 40, 50);
    unload(&l);
    gb_free(&b);
}

static void test_copy_input_frees_the_model_from_the_input(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_sample_model(&b, false);
    gb_blob glb = gb_glb(&b);
    mn_gltf_options o;
    memset(&o, 0, sizeof o);
    o.copy_input = true;
    mn_model *m = read_ok(glb.data, glb.size, &o);
    uintptr_t lo = (uintptr_t)glb.data, hi = lo + glb.size;
    uintptr_t at = (uintptr_t)m->buffers[0].data;
    assert_false(at >= lo && at < hi);
    memset(glb.data, 0xAB, glb.size);
    gb_blob_free(&glb);   /* ASan reports any later read of the input */

    expect_floats(m, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0);
    expect_u32s(m, 5, 0, 1, 2, 0, 2, 3);
    assert_string_equal(m->nodes[0].name, "root");
    assert_int_equal(m->images[0].size, 12);
    assert_int_equal(m->images[0].data[1], 'P');
    expect_floats(m, 11, 0, 0, 0, 9);
    mn_model_free(m);
    gb_free(&b);
}

static void test_sample_model_reads_fully(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_sample_model(&b, true);
    mn_model *m = load_gltf_text(&b, NULL);
    assert_string_equal(m->version, "2.0");
    assert_string_equal(m->generator, "glb_builder sample");
    assert_int_equal(m->accessor_count, 12);
    assert_int_equal(m->node_count, 3);
    assert_int_equal(m->meshes[0].primitives[0].vertex_count, 4);
    assert_int_equal(m->meshes[0].primitives[0].attribute_count, 5);
    assert_string_equal(m->meshes[0].target_names[0], "lift");
    assert_int_equal(m->skins[0].joint_count, 2);
    assert_float_near(m->skins[0].inverse_bind[16 + 13], -1, 0);
    assert_int_equal(m->animations[0].channel_count, 2);
    assert_float_near(m->animations[0].duration, 1, 0);
    assert_int_equal(m->animations[0].channels[1].interpolation, MN_INTERP_STEP);
    assert_true(m->nodes[2].has_matrix);
    assert_float_near(m->nodes[2].translation[2], 5, 0);
    assert_int_equal(m->nodes[2].camera, 0);
    assert_int_equal(m->nodes[1].parent, 0);
    assert_int_equal(m->scene, 0);
    assert_int_equal(m->warning_count, 0);
    expect_floats(m, 11, 0, 0, 0, 9);
    /* Bounds: the quad under root (translated z+1), skinned with identity-ish binds. */
    assert_true(m->bounds_min[0] <= m->bounds_max[0]);
    mn_model_free(m);
    gb_free(&b);
}

/* ---- allocator hooks ------------------------------------------------------------------------ */

static void test_reader_allocates_through_the_hooks(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_sample_model(&b, false);
    gb_blob glb = gb_glb(&b);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_gltf_options o;
    memset(&o, 0, sizeof o);
    o.allocator = mn_counting_allocator(&counter);
    mn_model *m = read_ok(glb.data, glb.size, &o);
    assert_true(counter.allocs > 0);
    assert_true(counter.live_bytes > 0);
    mn_model_free(m);
    assert_int_equal(counter.live_bytes, 0);
    assert_int_equal(counter.allocs, counter.frees);
    gb_blob_free(&glb);
    gb_free(&b);
}

/* Fail the N-th allocation for every N until the read succeeds; each failure is clean. */
static void walk_out_of_memory(const void *data, size_t size, bool copy_input)
{
    for (long n = 0;; n++) {
        assert_true(n < 100000);
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = n;
        mn_gltf_options o;
        memset(&o, 0, sizeof o);
        o.allocator = mn_counting_allocator(&counter);
        o.copy_input = copy_input;
        mn_model *m = (mn_model *)&counter;   /* must be overwritten with NULL on failure */
        mn_error err;
        mn_status status = mn_gltf_read_memory(data, size, &o, &m, &err);
        if (status == MN_OK) {
            assert_non_null(m);
            mn_model_free(m);
            assert_int_equal(counter.live_bytes, 0);
            print_message("succeeded once %ld allocations were allowed\n", n);
            return;
        }
        if (status != MN_OUT_OF_MEMORY)
            print_error("allocation %ld failed: %s at '%s': %s\n", n, mn_status_name(status),
                        err.path, err.message);
        assert_int_equal(status, MN_OUT_OF_MEMORY);
        assert_int_equal(err.code, MN_OUT_OF_MEMORY);
        assert_null(m);
        assert_true(counter.failures > 0);
        assert_int_equal(counter.live_bytes, 0);
    }
}

static void test_glb_file_via_read_file_and_out_of_memory(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_sample_model(&b, false);
    gb_blob glb = gb_glb(&b);
    gb_tempdir dir;
    assert_true(gb_tempdir_create(&dir));
    const char *path = gb_tempdir_write(&dir, "sample.glb", glb.data, glb.size);
    assert_non_null(path);
    gb_blob_free(&glb);   /* the model must own what it reads from the file */

    for (long n = 0;; n++) {
        assert_true(n < 100000);
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = n;
        mn_gltf_options o;
        memset(&o, 0, sizeof o);
        o.allocator = mn_counting_allocator(&counter);
        mn_model *m = NULL;
        mn_error err;
        mn_status status = mn_gltf_read_file(path, &o, &m, &err);
        if (status == MN_OK) {
            expect_u32s(m, 5, 0, 1, 2, 0, 2, 3);
            assert_string_equal(m->materials[0].name, "skin");
            assert_int_equal(m->images[0].data[3], 'G');
            mn_model_free(m);
            assert_int_equal(counter.live_bytes, 0);
            assert_true(counter.allocs > 0);
            break;
        }
        if (status != MN_OUT_OF_MEMORY)
            print_failure(status, &err);
        assert_int_equal(status, MN_OUT_OF_MEMORY);
        assert_null(m);
        assert_int_equal(counter.live_bytes, 0);
    }
    gb_tempdir_remove(&dir);
    gb_free(&b);
}

static void test_out_of_memory_at_every_allocation(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_sample_model(&b, false);
    gb_blob glb = gb_glb(&b);
    walk_out_of_memory(glb.data, glb.size, false);
    walk_out_of_memory(glb.data, glb.size, true);
    gb_blob_free(&glb);
    gb_free(&b);

    gb_init(&b);
    gb_sample_model(&b, true);   /* base64 decoding and a .gltf parse */
    walk_out_of_memory(gb_json_text(&b), gb_json_size(&b), false);
    gb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_component_type_converts_by_value),
        cmocka_unit_test(test_normalized_integers_map_to_unit_range),
        cmocka_unit_test(test_float_view_is_zero_copy_into_the_glb),
        cmocka_unit_test(test_interleaved_byte_stride),
        cmocka_unit_test(test_matrix_types_and_column_alignment),
        cmocka_unit_test(test_sparse_over_a_base_view),
        cmocka_unit_test(test_sparse_over_zeros_and_accessor_without_data),
        cmocka_unit_test(test_khr_mesh_quantization),
        cmocka_unit_test(test_strips_and_fans_become_triangle_lists),
        cmocka_unit_test(test_points_and_lines_keep_their_mode),
        cmocka_unit_test(test_attribute_names_glTF_lacks_are_kept_as_custom),
        cmocka_unit_test(test_data_uri_buffers_and_images),
        cmocka_unit_test(test_external_buffer_and_image_via_read_file),
        cmocka_unit_test(test_external_buffers_via_a_custom_resolver),
        cmocka_unit_test(test_uri_escaping_the_folder_is_refused_unless_allowed),
        cmocka_unit_test(test_parent_folder_uri_on_disk_needs_permission),
        cmocka_unit_test(test_unsupported_required_extension_is_named),
        cmocka_unit_test(test_material_defaults_and_factors),
        cmocka_unit_test(test_texture_transform_and_emissive_strength),
        cmocka_unit_test(test_matrix_nodes_are_decomposed_to_trs),
        cmocka_unit_test(test_default_names),
        cmocka_unit_test(test_morph_weights_and_target_names),
        cmocka_unit_test(test_animation_channels_and_interpolations),
        cmocka_unit_test(test_extras_are_kept_as_json_text),
        cmocka_unit_test(test_cameras),
        cmocka_unit_test(test_scenes_hierarchy_and_default_scene),
        cmocka_unit_test(test_bounds_of_the_default_scene_at_rest),
        cmocka_unit_test(test_vertex_colors_as_linear_rgba),
        cmocka_unit_test(test_skins_and_skin_influences),
        cmocka_unit_test(test_glb_unknown_chunks_are_skipped),
        cmocka_unit_test(test_glb_padding),
        cmocka_unit_test(test_copy_input_frees_the_model_from_the_input),
        cmocka_unit_test(test_sample_model_reads_fully),
        cmocka_unit_test(test_reader_allocates_through_the_hooks),
        cmocka_unit_test(test_out_of_memory_at_every_allocation),
        cmocka_unit_test(test_glb_file_via_read_file_and_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
