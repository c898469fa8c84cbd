/*
 * Accessor layout and conversion (src/model/accessor.c), on accessors built
 * by hand: every component type × normalized × SCALAR..MAT4, interleaved
 * strides, the column padding of small matrices, the size protocol, the
 * zero-copy view, reads that end exactly at the end of an allocation (run
 * under ASan), and the SIMD kernels against the scalar reference.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/model.h>
#include "model/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


static const mn_component all_components[] = {MN_COMPONENT_I8,  MN_COMPONENT_U8,
                                              MN_COMPONENT_I16, MN_COMPONENT_U16,
                                              MN_COMPONENT_U32, MN_COMPONENT_F32};
static const mn_accessor_type all_types[] = {MN_TYPE_SCALAR, MN_TYPE_VEC2, MN_TYPE_VEC3,
                                             MN_TYPE_VEC4,   MN_TYPE_MAT2, MN_TYPE_MAT3,
                                             MN_TYPE_MAT4};
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static mn_accessor make_accessor(const void *data, uint32_t count, uint32_t stride,
                                 mn_component component, mn_accessor_type type, bool normalized)
{
    mn_accessor a;
    memset(&a, 0, sizeof a);
    a.data = data;
    a.count = count;
    a.stride = stride;
    a.component = component;
    a.type = type;
    a.normalized = normalized;
    a.buffer_view = 0;
    return a;
}

/* ---- the test's own model of the layout (written from the glTF spec) ------------ */

static uint32_t test_rows(mn_accessor_type t)
{
    switch (t) {
    case MN_TYPE_MAT2: return 2;
    case MN_TYPE_MAT3: return 3;
    case MN_TYPE_MAT4: return 4;
    default: return mn_accessor_components(t);
    }
}

/* Byte offset of component k (column-major order) inside an element. */
static size_t component_offset(mn_component c, mn_accessor_type t, uint32_t k)
{
    uint32_t cs = mn_component_size(c), rows = test_rows(t);
    uint32_t col_bytes = rows * cs;
    if (t >= MN_TYPE_MAT2)
        col_bytes = (col_bytes + 3) / 4 * 4;
    return (size_t)(k / rows) * col_bytes + (size_t)(k % rows) * cs;
}

/* A value representable in c, drawn from a table of edge cases by index i. */
static double sample_value(mn_component c, uint32_t i)
{
    static const double u8v[] = {0, 1, 2, 51, 127, 128, 200, 254, 255};
    static const double i8v[] = {-128, -127, -100, -1, 0, 1, 63, 126, 127};
    static const double u16v[] = {0, 1, 255, 256, 32767, 32768, 40000, 65534, 65535};
    static const double i16v[] = {-32768, -32767, -1000, -1, 0, 1, 12345, 32766, 32767};
    static const double u32v[] = {0, 1, 65535, 65536, 16777216, 16777217, 2147483648.0,
                                  4294967295.0, 123456789};
    static const double f32v[] = {0, -0.5, 1.5, -3.25, 1e-20, 3.0e38, -7.0, 0.1, 42};
    const double *t = c == MN_COMPONENT_U8 ? u8v : c == MN_COMPONENT_I8 ? i8v
                    : c == MN_COMPONENT_U16 ? u16v : c == MN_COMPONENT_I16 ? i16v
                    : c == MN_COMPONENT_U32 ? u32v : f32v;
    return t[i % 9];
}

static void store_value(uint8_t *p, mn_component c, double v)
{
    switch (c) {
    case MN_COMPONENT_U8: *p = (uint8_t)v; break;
    case MN_COMPONENT_I8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case MN_COMPONENT_U16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case MN_COMPONENT_I16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case MN_COMPONENT_U32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: { float x = (float)v; memcpy(p, &x, 4); break; }
    }
}

/* What glTF says a stored value reads as. */
static float expected_float(mn_component c, bool normalized, double v)
{
    if (!normalized || c == MN_COMPONENT_F32 || c == MN_COMPONENT_U32) {
        if (c == MN_COMPONENT_U32)
            return (float)(uint32_t)v;
        return (float)v;
    }
    switch (c) {
    case MN_COMPONENT_U8: return (float)v / 255.0f;
    case MN_COMPONENT_U16: return (float)v / 65535.0f;
    case MN_COMPONENT_I8: return fmaxf((float)v / 127.0f, -1.0f);
    default: return fmaxf((float)v / 32767.0f, -1.0f);
    }
}

/*
 * Fill an element buffer for (c, t) with sample values; padding bytes get 0xEE
 * so that reading them would show.  Returns a malloc'ed block of exactly
 * (count-1)*stride + element size bytes; expected[] gets the floats.
 */
static uint8_t *build_elements(mn_component c, mn_accessor_type t, bool normalized,
                               uint32_t count, uint32_t stride, uint32_t seed, float *expected)
{
    uint32_t k = mn_accessor_components(t), elem = mn_accessor_element_size(
        &(mn_accessor){.component = c, .type = t});
    size_t size = count ? (size_t)(count - 1) * stride + elem : 1;
    uint8_t *buf = malloc(size);
    assert_non_null(buf);
    memset(buf, 0xEE, size);
    for (uint32_t e = 0; e < count; e++) {
        for (uint32_t i = 0; i < k; i++) {
            double v = sample_value(c, seed + e * k + i);
            store_value(buf + (size_t)e * stride + component_offset(c, t, i), c, v);
            if (expected)
                expected[e * k + i] = expected_float(c, normalized, v);
        }
    }
    return buf;
}

/* ---- layout ---------------------------------------------------------------- */

static void components_and_sizes_follow_gltf(void **state)
{
    (void)state;
    assert_int_equal(mn_accessor_components(MN_TYPE_SCALAR), 1);
    assert_int_equal(mn_accessor_components(MN_TYPE_VEC2), 2);
    assert_int_equal(mn_accessor_components(MN_TYPE_VEC3), 3);
    assert_int_equal(mn_accessor_components(MN_TYPE_VEC4), 4);
    assert_int_equal(mn_accessor_components(MN_TYPE_MAT2), 4);
    assert_int_equal(mn_accessor_components(MN_TYPE_MAT3), 9);
    assert_int_equal(mn_accessor_components(MN_TYPE_MAT4), 16);
    assert_int_equal(mn_accessor_components(MN_TYPE_INVALID), 0);
    assert_int_equal(mn_component_size(MN_COMPONENT_I8), 1);
    assert_int_equal(mn_component_size(MN_COMPONENT_U8), 1);
    assert_int_equal(mn_component_size(MN_COMPONENT_I16), 2);
    assert_int_equal(mn_component_size(MN_COMPONENT_U16), 2);
    assert_int_equal(mn_component_size(MN_COMPONENT_U32), 4);
    assert_int_equal(mn_component_size(MN_COMPONENT_F32), 4);
    assert_int_equal(mn_component_size(MN_COMPONENT_INVALID), 0);
}

static uint32_t elem_size(mn_component c, mn_accessor_type t)
{
    mn_accessor a = make_accessor(NULL, 0, 0, c, t, false);
    return mn_accessor_element_size(&a);
}

static void element_size_pads_small_matrix_columns(void **state)
{
    (void)state;
    assert_int_equal(elem_size(MN_COMPONENT_U8, MN_TYPE_VEC3), 3);
    assert_int_equal(elem_size(MN_COMPONENT_U16, MN_TYPE_VEC3), 6);
    assert_int_equal(elem_size(MN_COMPONENT_F32, MN_TYPE_VEC4), 16);
    /* 1-byte MAT2: two 2-byte columns, each padded to 4 */
    assert_int_equal(elem_size(MN_COMPONENT_U8, MN_TYPE_MAT2), 8);
    assert_int_equal(elem_size(MN_COMPONENT_I8, MN_TYPE_MAT2), 8);
    /* 2-byte MAT2 columns are 4 bytes already */
    assert_int_equal(elem_size(MN_COMPONENT_I16, MN_TYPE_MAT2), 8);
    /* 1-byte MAT3: three 3-byte columns padded to 4; 2-byte MAT3: 6-byte columns padded to 8 */
    assert_int_equal(elem_size(MN_COMPONENT_U8, MN_TYPE_MAT3), 12);
    assert_int_equal(elem_size(MN_COMPONENT_U16, MN_TYPE_MAT3), 24);
    assert_int_equal(elem_size(MN_COMPONENT_I16, MN_TYPE_MAT3), 24);
    assert_int_equal(elem_size(MN_COMPONENT_F32, MN_TYPE_MAT3), 36);
    assert_int_equal(elem_size(MN_COMPONENT_U8, MN_TYPE_MAT4), 16);
    assert_int_equal(elem_size(MN_COMPONENT_I16, MN_TYPE_MAT4), 32);
    assert_int_equal(elem_size(MN_COMPONENT_F32, MN_TYPE_MAT4), 64);
    assert_int_equal(elem_size(MN_COMPONENT_INVALID, MN_TYPE_VEC3), 0);
    assert_int_equal(mn_accessor_element_size(NULL), 0);
}

/* ---- conversion of every layout ------------------------------------------------ */

static void check_layout(mn_component c, mn_accessor_type t, bool normalized, uint32_t count,
                         uint32_t stride)
{
    uint32_t k = mn_accessor_components(t);
    float *expected = malloc(sizeof(float) * count * k + 1);
    float *got = malloc(sizeof(float) * count * k + 1);
    assert_non_null(expected);
    assert_non_null(got);
    uint8_t *buf = build_elements(c, t, normalized, count, stride, 3, expected);
    mn_accessor a = make_accessor(buf, count, stride, c, t, normalized);
    assert_int_equal(mn_accessor_unpack_floats(&a, NULL, 0), (size_t)count * k);
    assert_int_equal(mn_accessor_unpack_floats(&a, got, (size_t)count * k), (size_t)count * k);
    for (size_t i = 0; i < (size_t)count * k; i++) {
        if (memcmp(&got[i], &expected[i], sizeof(float)) != 0)
            fail_msg("component %d type %d normalized %d stride %u: float %zu is %.9g, want %.9g",
                     (int)c, (int)t, (int)normalized, stride, i, (double)got[i],
                     (double)expected[i]);
    }
    assert_int_equal(mni_accessor_unpack_floats_scalar(&a, got, (size_t)count * k),
                     (size_t)count * k);
    assert_memory_equal(got, expected, sizeof(float) * count * k);
    free(buf);
    free(expected);
    free(got);
}

static void every_component_and_type_converts_exactly_when_packed(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < COUNT_OF(all_components); ci++) {
        for (size_t ti = 0; ti < COUNT_OF(all_types); ti++) {
            mn_component c = all_components[ci];
            mn_accessor_type t = all_types[ti];
            uint32_t elem = elem_size(c, t);
            for (int norm = 0; norm < 2; norm++) {
                check_layout(c, t, norm, 1, elem);
                check_layout(c, t, norm, 41, elem); /* long enough for the SIMD kernels */
            }
        }
    }
}

static void every_component_and_type_converts_exactly_when_interleaved(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < COUNT_OF(all_components); ci++) {
        for (size_t ti = 0; ti < COUNT_OF(all_types); ti++) {
            mn_component c = all_components[ci];
            mn_accessor_type t = all_types[ti];
            uint32_t elem = elem_size(c, t);
            for (int norm = 0; norm < 2; norm++) {
                check_layout(c, t, norm, 17, (elem + 4 + 3) / 4 * 4);
                check_layout(c, t, norm, 9, elem + 36);
            }
        }
    }
}

static void normalized_integers_map_to_unit_range(void **state)
{
    (void)state;
    const uint8_t u8[4] = {0, 51, 128, 255};
    const int8_t i8[4] = {-128, -127, 0, 127};
    const uint16_t u16[4] = {0, 13107, 32768, 65535};
    const int16_t i16[4] = {-32768, -32767, 0, 32767};
    float out[4];

    mn_accessor a = make_accessor(u8, 1, 4, MN_COMPONENT_U8, MN_TYPE_VEC4, true);
    mn_accessor_unpack_floats(&a, out, 4);
    assert_true(out[0] == 0.0f && out[1] == 0.2f && out[2] == 128.0f / 255.0f && out[3] == 1.0f);

    a = make_accessor(i8, 1, 4, MN_COMPONENT_I8, MN_TYPE_VEC4, true);
    mn_accessor_unpack_floats(&a, out, 4);
    assert_true(out[0] == -1.0f && out[1] == -1.0f && out[2] == 0.0f && out[3] == 1.0f);

    a = make_accessor(u16, 1, 8, MN_COMPONENT_U16, MN_TYPE_VEC4, true);
    mn_accessor_unpack_floats(&a, out, 4);
    assert_true(out[0] == 0.0f && out[1] == 0.2f);
    assert_true(out[2] == 32768.0f / 65535.0f && out[3] == 1.0f);

    a = make_accessor(i16, 1, 8, MN_COMPONENT_I16, MN_TYPE_VEC4, true);
    mn_accessor_unpack_floats(&a, out, 4);
    assert_true(out[0] == -1.0f && out[1] == -1.0f && out[2] == 0.0f && out[3] == 1.0f);

    /* not normalized: by value */
    a = make_accessor(i16, 1, 8, MN_COMPONENT_I16, MN_TYPE_VEC4, false);
    mn_accessor_unpack_floats(&a, out, 4);
    assert_true(out[0] == -32768.0f && out[1] == -32767.0f && out[2] == 0.0f && out[3] == 32767.0f);
}

static void u32_converts_by_value_rounding_to_nearest(void **state)
{
    (void)state;
    const uint32_t v[8] = {0,           1,           16777216,    16777217,
                           16777219,    2147483648u, 4294967295u, 4294967167u};
    const float want[8] = {0.0f, 1.0f, 16777216.0f, 16777216.0f, 16777220.0f, 2147483648.0f,
                           4294967296.0f, 4294967040.0f};
    float out[8];
    mn_accessor a = make_accessor(v, 8, 4, MN_COMPONENT_U32, MN_TYPE_SCALAR, false);
    assert_int_equal(mn_accessor_unpack_floats(&a, out, 8), 8);
    assert_memory_equal(out, want, sizeof want);
}

static void small_matrix_column_padding_is_skipped(void **state)
{
    (void)state;
    /* MAT2 u8: columns [1 2] [3 4], two padding bytes after each */
    const uint8_t mat2[16] = {1, 2, 0xEE, 0xEE, 3, 4, 0xEE, 0xEE,
                              5, 6, 0xEE, 0xEE, 7, 8, 0xEE, 0xEE};
    float out[8];
    mn_accessor a = make_accessor(mat2, 2, 8, MN_COMPONENT_U8, MN_TYPE_MAT2, false);
    assert_int_equal(mn_accessor_unpack_floats(&a, out, 8), 8);
    const float want2[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    assert_memory_equal(out, want2, sizeof want2);

    /* MAT3 i16 normalized: 3 columns of 3 i16 + 2 padding bytes */
    int16_t mat3[12] = {32767, 0, -32767, 0x7EEE,
                        0, 32767, 0, 0x7EEE,
                        -32768, 16384, 32767, 0x7EEE};
    float out3[9];
    a = make_accessor(mat3, 1, 24, MN_COMPONENT_I16, MN_TYPE_MAT3, true);
    assert_int_equal(mn_accessor_unpack_floats(&a, out3, 9), 9);
    const float want3[9] = {1, 0, -1, 0, 1, 0, -1, 16384.0f / 32767.0f, 1};
    assert_memory_equal(out3, want3, sizeof want3);

    /* MAT3 u8 to uint32 skips the padding too */
    const uint8_t m3[12] = {1, 2, 3, 0xEE, 4, 5, 6, 0xEE, 7, 8, 9, 0xEE};
    uint32_t u[9];
    a = make_accessor(m3, 1, 12, MN_COMPONENT_U8, MN_TYPE_MAT3, false);
    assert_int_equal(mn_accessor_unpack_u32(&a, u, 9), 9);
    const uint32_t wantu[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    assert_memory_equal(u, wantu, sizeof wantu);
}

static void interleaved_matches_packed(void **state)
{
    (void)state;
    /* position f32 vec3 + joints u16 vec4 in one 20-byte stride */
    uint8_t buf[20 * 5];
    float packed_pos[15];
    uint16_t packed_joints[20];
    for (int e = 0; e < 5; e++) {
        for (int k = 0; k < 3; k++)
            packed_pos[3 * e + k] = (float)(e * 10 + k) + 0.25f;
        for (int k = 0; k < 4; k++)
            packed_joints[4 * e + k] = (uint16_t)(e * 1000 + k);
        memcpy(buf + 20 * e, packed_pos + 3 * e, 12);
        memcpy(buf + 20 * e + 12, packed_joints + 4 * e, 8);
    }
    float a_out[15], b_out[15], j_out[20], k_out[20];
    mn_accessor s = make_accessor(buf, 5, 20, MN_COMPONENT_F32, MN_TYPE_VEC3, false);
    mn_accessor p = make_accessor(packed_pos, 5, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false);
    mn_accessor_unpack_floats(&s, a_out, 15);
    mn_accessor_unpack_floats(&p, b_out, 15);
    assert_memory_equal(a_out, b_out, sizeof a_out);
    assert_memory_equal(a_out, packed_pos, sizeof a_out);

    s = make_accessor(buf + 12, 5, 20, MN_COMPONENT_U16, MN_TYPE_VEC4, false);
    p = make_accessor(packed_joints, 5, 8, MN_COMPONENT_U16, MN_TYPE_VEC4, false);
    mn_accessor_unpack_floats(&s, j_out, 20);
    mn_accessor_unpack_floats(&p, k_out, 20);
    assert_memory_equal(j_out, k_out, sizeof j_out);
    assert_true(j_out[19] == 4003.0f);

    uint32_t ju[20];
    assert_int_equal(mn_accessor_unpack_u32(&s, ju, 20), 20);
    for (int i = 0; i < 20; i++)
        assert_int_equal(ju[i], packed_joints[i]);
}

/* ---- size protocol and views ----------------------------------------------------- */

static void null_output_asks_for_the_size(void **state)
{
    (void)state;
    const float v[9] = {0};
    mn_accessor a = make_accessor(v, 3, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false);
    assert_int_equal(mn_accessor_unpack_floats(&a, NULL, 0), 9);
    assert_int_equal(mn_accessor_unpack_floats(&a, NULL, 100), 9);
    assert_int_equal(mn_accessor_unpack_u32(&a, NULL, 0), 9);
    a.count = 0;
    a.data = NULL;
    assert_int_equal(mn_accessor_unpack_floats(&a, NULL, 0), 0);
    a.type = MN_TYPE_INVALID;
    a.count = 3;
    a.data = (const uint8_t *)v;
    assert_int_equal(mn_accessor_unpack_floats(&a, NULL, 0), 0);
    assert_int_equal(mn_accessor_unpack_floats(NULL, NULL, 0), 0);
    assert_int_equal(mn_accessor_unpack_u32(NULL, NULL, 0), 0);
}

static void short_capacity_writes_only_the_capacity(void **state)
{
    (void)state;
    const uint8_t v[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    float out[9];
    for (size_t cap = 0; cap <= 9; cap++) {
        for (int i = 0; i < 9; i++)
            out[i] = -99.0f;
        mn_accessor a = make_accessor(v, 3, 3, MN_COMPONENT_U8, MN_TYPE_VEC3, false);
        assert_int_equal(mn_accessor_unpack_floats(&a, out, cap), 9);
        for (size_t i = 0; i < 9; i++)
            assert_true(out[i] == (i < cap ? (float)(i + 1) : -99.0f));
        /* interleaved: 2 of 3 bytes per element */
        for (int i = 0; i < 9; i++)
            out[i] = -99.0f;
        a = make_accessor(v, 3, 3, MN_COMPONENT_U8, MN_TYPE_VEC2, false);
        size_t n = cap < 6 ? cap : 6;
        assert_int_equal(mn_accessor_unpack_floats(&a, out, cap), 6);
        const float want[6] = {1, 2, 4, 5, 7, 8};
        for (size_t i = 0; i < 9; i++)
            assert_true(out[i] == (i < n ? want[i] : -99.0f));
    }
    uint32_t u[9];
    for (int i = 0; i < 9; i++)
        u[i] = 77;
    mn_accessor a = make_accessor(v, 3, 3, MN_COMPONENT_U8, MN_TYPE_VEC3, false);
    assert_int_equal(mn_accessor_unpack_u32(&a, u, 4), 9);
    const uint32_t want[9] = {1, 2, 3, 4, 77, 77, 77, 77, 77};
    assert_memory_equal(u, want, sizeof want);
}

static void float_view_is_the_data_only_for_packed_floats(void **state)
{
    (void)state;
    const float v[32] = {0};
    mn_accessor a = make_accessor(v, 2, 12, MN_COMPONENT_F32, MN_TYPE_VEC3, false);
    assert_ptr_equal(mn_accessor_float_view(&a), v);
    a.stride = 16; /* interleaved */
    assert_null(mn_accessor_float_view(&a));
    a = make_accessor(v, 2, 64, MN_COMPONENT_F32, MN_TYPE_MAT4, false);
    assert_ptr_equal(mn_accessor_float_view(&a), v);
    a = make_accessor(v, 2, 6, MN_COMPONENT_U16, MN_TYPE_VEC3, false);
    assert_null(mn_accessor_float_view(&a));
    a = make_accessor(v, 2, 12, MN_COMPONENT_U32, MN_TYPE_VEC3, false);
    assert_null(mn_accessor_float_view(&a));
    assert_null(mn_accessor_float_view(NULL));
}

/* ---- uint32 ----------------------------------------------------------------------- */

static void unpack_u32_widens_indices_and_clamps_the_rest(void **state)
{
    (void)state;
    const uint8_t i8[4] = {0, 200, 255, 7};
    const uint16_t i16[4] = {0, 65535, 300, 9};
    const uint32_t i32[4] = {0, 4294967295u, 70000, 5};
    const int8_t s8[4] = {-1, -128, 5, 127};
    const int16_t s16[4] = {-1, -32768, 500, 32767};
    const float f[6] = {2.9f, -1.5f, NAN, 5e9f, 0.5f, 16777216.0f};
    uint32_t out[6];

    mn_accessor a = make_accessor(i8, 4, 1, MN_COMPONENT_U8, MN_TYPE_SCALAR, false);
    assert_int_equal(mn_accessor_unpack_u32(&a, out, 4), 4);
    assert_true(out[0] == 0 && out[1] == 200 && out[2] == 255 && out[3] == 7);
    a = make_accessor(i16, 4, 2, MN_COMPONENT_U16, MN_TYPE_SCALAR, false);
    mn_accessor_unpack_u32(&a, out, 4);
    assert_true(out[0] == 0 && out[1] == 65535 && out[2] == 300 && out[3] == 9);
    a = make_accessor(i32, 4, 4, MN_COMPONENT_U32, MN_TYPE_SCALAR, false);
    mn_accessor_unpack_u32(&a, out, 4);
    assert_true(out[0] == 0 && out[1] == 4294967295u && out[2] == 70000 && out[3] == 5);
    /* negative values clamp to 0 */
    a = make_accessor(s8, 4, 1, MN_COMPONENT_I8, MN_TYPE_SCALAR, false);
    mn_accessor_unpack_u32(&a, out, 4);
    assert_true(out[0] == 0 && out[1] == 0 && out[2] == 5 && out[3] == 127);
    a = make_accessor(s16, 2, 4, MN_COMPONENT_I16, MN_TYPE_VEC2, false);
    mn_accessor_unpack_u32(&a, out, 4);
    assert_true(out[0] == 0 && out[1] == 0 && out[2] == 500 && out[3] == 32767);
    /* floats truncate; negative and NaN give 0, too large saturates */
    a = make_accessor(f, 6, 4, MN_COMPONENT_F32, MN_TYPE_SCALAR, false);
    assert_int_equal(mn_accessor_unpack_u32(&a, out, 6), 6);
    assert_true(out[0] == 2 && out[1] == 0 && out[2] == 0 && out[3] == UINT32_MAX && out[4] == 0 &&
                out[5] == 16777216);
}

/* ---- memory safety at the end of an allocation --------------------------------- */

/*
 * The last element ends exactly at the end of a malloc'ed block, so ASan
 * reports any byte read past it (a SIMD load over the tail, a padded column
 * read whole, a stride applied once too often).
 */
static void reads_stop_at_the_last_elements_last_byte(void **state)
{
    (void)state;
    const uint32_t counts[] = {1, 2, 7, 15, 16, 17, 33, 64, 65};
    for (size_t ci = 0; ci < COUNT_OF(all_components); ci++) {
        for (size_t ti = 0; ti < COUNT_OF(all_types); ti++) {
            for (size_t ni = 0; ni < COUNT_OF(counts); ni++) {
                mn_component c = all_components[ci];
                mn_accessor_type t = all_types[ti];
                uint32_t elem = elem_size(c, t), k = mn_accessor_components(t);
                const uint32_t strides[2] = {elem, (elem + 7) / 4 * 4};
                for (int si = 0; si < 2; si++) {
                    uint32_t n = counts[ni];
                    uint8_t *buf = build_elements(c, t, true, n, strides[si], 0, NULL);
                    float *f = malloc(sizeof(float) * n * k);
                    uint32_t *u = malloc(sizeof(uint32_t) * n * k);
                    assert_non_null(f);
                    assert_non_null(u);
                    mn_accessor a = make_accessor(buf, n, strides[si], c, t, true);
                    assert_int_equal(mn_accessor_unpack_floats(&a, f, (size_t)n * k),
                                     (size_t)n * k);
                    assert_int_equal(mni_accessor_unpack_floats_scalar(&a, f, (size_t)n * k),
                                     (size_t)n * k);
                    assert_int_equal(mn_accessor_unpack_u32(&a, u, (size_t)n * k), (size_t)n * k);
                    /* a capacity that ends inside the last element */
                    assert_int_equal(mn_accessor_unpack_floats(&a, f, (size_t)n * k - 1),
                                     (size_t)n * k);
                    free(u);
                    free(f);
                    free(buf);
                }
            }
        }
    }
}

/* ---- SIMD against the scalar reference -------------------------------------------- */

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static void simd_and_scalar_paths_agree_on_random_data(void **state)
{
    (void)state;
    uint32_t seed = 12345;
    const size_t bytes = 64 * 1024 + 13;
    uint8_t *buf = malloc(bytes);
    assert_non_null(buf);
    for (size_t i = 0; i < bytes; i++)
        buf[i] = (uint8_t)lcg(&seed);
    for (size_t ci = 0; ci < COUNT_OF(all_components); ci++) {
        if (all_components[ci] == MN_COMPONENT_F32)
            continue; /* random bits include NaNs; f32 is a copy on both paths */
        for (size_t ti = 0; ti < COUNT_OF(all_types); ti++) {
            mn_component c = all_components[ci];
            mn_accessor_type t = all_types[ti];
            uint32_t elem = elem_size(c, t), k = mn_accessor_components(t);
            for (int norm = 0; norm < 2; norm++) {
                for (uint32_t offset = 0; offset < 4; offset++) { /* misaligned starts too */
                    uint32_t n = (uint32_t)((bytes - 4) / elem);
                    mn_accessor a = make_accessor(buf + offset, n, elem, c, t, norm);
                    float *x = malloc(sizeof(float) * n * k), *y = malloc(sizeof(float) * n * k);
                    assert_non_null(x);
                    assert_non_null(y);
                    mn_accessor_unpack_floats(&a, x, (size_t)n * k);
                    mni_accessor_unpack_floats_scalar(&a, y, (size_t)n * k);
                    assert_memory_equal(x, y, sizeof(float) * n * k);
                    free(x);
                    free(y);
                }
            }
        }
    }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(components_and_sizes_follow_gltf),
        cmocka_unit_test(element_size_pads_small_matrix_columns),
        cmocka_unit_test(every_component_and_type_converts_exactly_when_packed),
        cmocka_unit_test(every_component_and_type_converts_exactly_when_interleaved),
        cmocka_unit_test(normalized_integers_map_to_unit_range),
        cmocka_unit_test(u32_converts_by_value_rounding_to_nearest),
        cmocka_unit_test(small_matrix_column_padding_is_skipped),
        cmocka_unit_test(interleaved_matches_packed),
        cmocka_unit_test(null_output_asks_for_the_size),
        cmocka_unit_test(short_capacity_writes_only_the_capacity),
        cmocka_unit_test(float_view_is_the_data_only_for_packed_floats),
        cmocka_unit_test(unpack_u32_widens_indices_and_clamps_the_rest),
        cmocka_unit_test(reads_stop_at_the_last_elements_last_byte),
        cmocka_unit_test(simd_and_scalar_paths_agree_on_random_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
