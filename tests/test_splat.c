/*
 * Splats (src/character/ply_read.c, src/character/splat_bindings_read.c,
 * src/deform/splat_skin*.c): PLYs and bindings built byte by byte here,
 * read and refused as section 11 of character-formats.md says; the deform
 * against a double-precision reference (polar factor by Higham's
 * iteration, a different method from the kernels'), the SIMD kernels
 * against the scalar one, threads against one thread (same bits), and no
 * allocation per frame.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/character/splat.h>

#include "counting_alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building PLYs ------------------------------------------------------------- */

typedef struct prop {
    const char *type;  /* "float", "uchar", "double", ... */
    const char *name;
} prop;

/* The standard 3DGS vertex with one f_rest coefficient, in a shuffled order, with two extras to skip. */
static const prop shuffled[] = {
    {"float", "rot_0"},   {"float", "x"},       {"uchar", "red"},     {"float", "y"},
    {"float", "z"},       {"double", "nx"},     {"float", "f_dc_0"},  {"float", "f_dc_1"},
    {"float", "f_dc_2"},  {"float", "f_rest_0"}, {"float", "opacity"}, {"float", "scale_0"},
    {"float", "scale_1"}, {"float", "scale_2"}, {"float", "rot_1"},   {"float", "rot_2"},
    {"float", "rot_3"},
};
#define SHUFFLED_N (sizeof shuffled / sizeof shuffled[0])

typedef struct buffer {
    uint8_t *data;
    size_t size, cap;
} buffer;

static void put(buffer *b, const void *p, size_t n)
{
    if (b->size + n > b->cap) {
        b->cap = (b->size + n) * 2 + 64;
        b->data = realloc(b->data, b->cap);
        assert_non_null(b->data);
    }
    memcpy(b->data + b->size, p, n);
    b->size += n;
}

static void put_text(buffer *b, const char *s)
{
    put(b, s, strlen(s));
}

/* The value a test PLY holds for splat i, property name: distinct and recognisable. */
static double value_of(uint32_t i, const char *name)
{
    if (strcmp(name, "rot_0") == 0)
        return 1.0 + i;  /* never a zero rotation */
    double h = 0;
    for (const char *c = name; *c; c++)
        h = h * 1.5 + (*c - 'a');
    return fmod(h, 17.0) * 0.25 + i * 0.5;
}

static buffer make_ply(const char *format, const prop *props, size_t n, uint32_t count)
{
    buffer b = {0};
    char line[128];
    put_text(&b, "ply\n");
    snprintf(line, sizeof line, "format %s 1.0\ncomment made by test_splat\n", format);
    put_text(&b, line);
    snprintf(line, sizeof line, "element vertex %u\n", count);
    put_text(&b, line);
    for (size_t p = 0; p < n; p++) {
        snprintf(line, sizeof line, "property %s %s\n", props[p].type, props[p].name);
        put_text(&b, line);
    }
    put_text(&b, "end_header\n");
    for (uint32_t i = 0; i < count; i++)
        for (size_t p = 0; p < n; p++) {
            double v = value_of(i, props[p].name);
            if (strcmp(props[p].type, "float") == 0) {
                float f = (float)v;
                put(&b, &f, 4);
            } else if (strcmp(props[p].type, "double") == 0) {
                put(&b, &v, 8);
            } else {
                uint8_t u = (uint8_t)i;
                put(&b, &u, 1);
            }
        }
    return b;
}

static mn_status read_ply(const buffer *b, uint32_t expected, mn_error *err)
{
    mn_splat_read_options o = {.expected_count = expected};
    mn_splat_cloud cloud;
    mn_status st = mn_splat_ply_read(b->data, b->size, &o, &cloud, err);
    mn_splat_cloud_free(&cloud);
    return st;
}

/* ---- the PLY ---------------------------------------------------------------------- */

static void ply_reads_by_name_in_any_order(void **state)
{
    (void)state;
    buffer b = make_ply("binary_little_endian", shuffled, SHUFFLED_N, 5);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_splat_read_options o = {.allocator = mn_counting_allocator(&counter), .expected_count = 5};
    mn_splat_cloud c;
    mn_error err;
    assert_int_equal(mn_splat_ply_read(b.data, b.size, &o, &c, &err), MN_OK);
    assert_int_equal(c.count, 5);
    assert_int_equal(c.rest_count, 1);
    for (uint32_t i = 0; i < 5; i++) {
        assert_true(c.centres[3 * i + 1] == (float)value_of(i, "y"));
        assert_true(c.rotations[4 * i + 0] == (float)value_of(i, "rot_1"));
        assert_true(c.rotations[4 * i + 3] == (float)value_of(i, "rot_0"));
        assert_true(c.scales[3 * i + 2] == (float)value_of(i, "scale_2"));
        assert_true(c.opacities[i] == (float)value_of(i, "opacity"));
        assert_true(c.colours[3 * i] == (float)value_of(i, "f_dc_0"));
        assert_true(c.rest[i] == (float)value_of(i, "f_rest_0"));
    }
    mn_splat_cloud_free(&c);
    assert_int_equal(counter.live_bytes, 0);

    /* every allocation failing in turn is reported, never a leak */
    for (long fail = 0; fail < 8; fail++) {
        counter = mn_counting_alloc_make();
        counter.fail_after = fail;
        o.allocator = mn_counting_allocator(&counter);
        mn_status st = mn_splat_ply_read(b.data, b.size, &o, &c, &err);
        assert_true(st == MN_OK || st == MN_OUT_OF_MEMORY);
        mn_splat_cloud_free(&c);
        assert_int_equal(counter.live_bytes, 0);
    }
    free(b.data);
}

static void expect_ply_refusal(const buffer *b, uint32_t expected, mn_status code,
                               const char *words)
{
    mn_error err;
    assert_int_equal(read_ply(b, expected, &err), code);
    assert_int_equal(err.code, code);
    if (words && !strstr(err.message, words))
        fail_msg("message \"%s\" lacks \"%s\"", err.message, words);
}

static void ply_refuses_ascii_and_big_endian(void **state)
{
    (void)state;
    buffer b = make_ply("ascii", shuffled, SHUFFLED_N, 2);
    expect_ply_refusal(&b, 0, MN_INVALID_VALUE, "ASCII");
    free(b.data);
    b = make_ply("binary_big_endian", shuffled, SHUFFLED_N, 2);
    expect_ply_refusal(&b, 0, MN_INVALID_VALUE, "big-endian");
    free(b.data);
    b = make_ply("binary_little_endian", shuffled, SHUFFLED_N, 2);
    memcpy(b.data, "plz", 3);
    expect_ply_refusal(&b, 0, MN_INVALID_VALUE, "not a PLY");
    free(b.data);
}

static void ply_refuses_truncated_and_trailing(void **state)
{
    (void)state;
    buffer b = make_ply("binary_little_endian", shuffled, SHUFFLED_N, 3);
    buffer cut = b;
    cut.size--;
    expect_ply_refusal(&cut, 0, MN_COUNT_MISMATCH, "truncated");
    put(&b, "x", 1);
    expect_ply_refusal(&b, 0, MN_COUNT_MISMATCH, "trailing");
    /* the header itself cut short */
    cut.size = 40;
    expect_ply_refusal(&cut, 0, MN_COUNT_MISMATCH, "end_header");
    free(b.data);
}

static void ply_refuses_counts(void **state)
{
    (void)state;
    buffer b = make_ply("binary_little_endian", shuffled, SHUFFLED_N, 3);
    expect_ply_refusal(&b, 4, MN_COUNT_MISMATCH, "splatCount");
    free(b.data);
    /* a count beyond 32 bits, and one whose bytes run far past the file */
    const char *huge = "ply\nformat binary_little_endian 1.0\nelement vertex 99999999999\n"
                       "property float x\nend_header\n";
    buffer h = {(uint8_t *)(uintptr_t)huge, strlen(huge), 0};
    expect_ply_refusal(&h, 0, MN_OVERFLOW, NULL);
    b = make_ply("binary_little_endian", shuffled, SHUFFLED_N, 0);
    char *at = strstr((char *)b.data, "vertex 0");
    assert_non_null(at);
    buffer big = {0};
    put(&big, b.data, (size_t)(at - (char *)b.data));
    put_text(&big, "vertex 4294967295");
    put(&big, at + 8, b.size - (size_t)(at + 8 - (char *)b.data));
    expect_ply_refusal(&big, 0, MN_COUNT_MISMATCH, "truncated");
    free(big.data);
    free(b.data);
}

static void ply_refuses_layouts(void **state)
{
    (void)state;
    prop props[SHUFFLED_N + 1];
    memcpy(props, shuffled, sizeof shuffled);

    /* a required property missing */
    props[15] = (prop){"float", "nz"};
    buffer b = make_ply("binary_little_endian", props, SHUFFLED_N, 2);
    expect_ply_refusal(&b, 0, MN_MISSING_PROPERTY, "rot_2");
    free(b.data);

    /* a required property of another type */
    memcpy(props, shuffled, sizeof shuffled);
    props[1] = (prop){"double", "x"};
    b = make_ply("binary_little_endian", props, SHUFFLED_N, 2);
    expect_ply_refusal(&b, 0, MN_INVALID_VALUE, "must be float");
    free(b.data);

    /* f_rest with a gap: f_rest_1 without f_rest_0 */
    memcpy(props, shuffled, sizeof shuffled);
    props[9] = (prop){"float", "f_rest_1"};
    b = make_ply("binary_little_endian", props, SHUFFLED_N, 2);
    expect_ply_refusal(&b, 0, MN_MISSING_PROPERTY, "f_rest_0");
    free(b.data);

    /* a property named twice */
    memcpy(props, shuffled, sizeof shuffled);
    props[SHUFFLED_N] = (prop){"float", "x"};
    b = make_ply("binary_little_endian", props, SHUFFLED_N + 1, 2);
    expect_ply_refusal(&b, 0, MN_INVALID_VALUE, "twice");
    free(b.data);

    /* an unknown type */
    memcpy(props, shuffled, sizeof shuffled);
    props[2] = (prop){"float16", "red"};
    b = make_ply("binary_little_endian", props, SHUFFLED_N, 2);
    expect_ply_refusal(&b, 0, MN_INVALID_VALUE, "type");
    free(b.data);

    /* a list property, and a second element */
    const char *list = "ply\nformat binary_little_endian 1.0\nelement vertex 1\n"
                       "property list uchar int idx\nend_header\n";
    buffer l = {(uint8_t *)(uintptr_t)list, strlen(list), 0};
    expect_ply_refusal(&l, 0, MN_INVALID_VALUE, "list");
    const char *faces = "ply\nformat binary_little_endian 1.0\nelement vertex 1\n"
                        "property float x\nelement face 0\nend_header\n";
    buffer f = {(uint8_t *)(uintptr_t)faces, strlen(faces), 0};
    expect_ply_refusal(&f, 0, MN_INVALID_VALUE, "face");
}

static void ply_refuses_values(void **state)
{
    (void)state;
    buffer b = make_ply("binary_little_endian", shuffled, SHUFFLED_N, 3);
    size_t header = (size_t)(strstr((char *)b.data, "end_header\n") - (char *)b.data) + 11;
    size_t stride = 4 * 15 + 1 + 8;
    /* splat 1's x (after rot_0) becomes NaN */
    float nan = NAN;
    memcpy(b.data + header + stride + 4, &nan, 4);
    mn_error err;
    assert_int_equal(read_ply(&b, 0, &err), MN_NOT_FINITE);
    assert_int_equal(err.offset, (int64_t)(header + stride));
    free(b.data);

    /* a zero rotation */
    b = make_ply("binary_little_endian", shuffled, SHUFFLED_N, 2);
    float zero = 0.0f;
    size_t rot[4] = {0, 57, 61, 65}; /* rot_0 first; rot_1..3 after 12 floats, a uchar and a double */
    for (int k = 0; k < 4; k++)
        memcpy(b.data + header + rot[k], &zero, 4);
    expect_ply_refusal(&b, 0, MN_INVALID_VALUE, "zero-length");
    free(b.data);
}

/* ---- the bindings ---------------------------------------------------------------- */

static buffer make_bindings(uint32_t version, uint32_t count, uint32_t k, uint32_t joints)
{
    buffer b = {0};
    put_text(&b, "BIND");
    put(&b, &version, 4);
    put(&b, &count, 4);
    put(&b, &k, 4);
    for (uint32_t i = 0; i < count * k; i++) {
        uint16_t j = (uint16_t)((i * 7u + 3u) % joints);
        put(&b, &j, 2);
    }
    for (uint32_t i = 0; i < count * k; i++) {
        float w = 1.0f / (float)k;
        put(&b, &w, 4);
    }
    return b;
}

static mn_status read_bindings(const buffer *b, uint32_t expected, uint32_t joints,
                               mn_error *err)
{
    mn_splat_bindings_read_options o = {.expected_count = expected, .joint_count = joints};
    mn_splat_bindings bind;
    mn_status st = mn_splat_bindings_read(b->data, b->size, &o, &bind, err);
    mn_splat_bindings_free(&bind);
    return st;
}

static void bindings_read(void **state)
{
    (void)state;
    buffer b = make_bindings(1, 6, 3, 5);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_splat_bindings_read_options o = {.allocator = mn_counting_allocator(&counter),
                                        .expected_count = 6, .joint_count = 5};
    mn_splat_bindings bind;
    assert_int_equal(mn_splat_bindings_read(b.data, b.size, &o, &bind, NULL), MN_OK);
    assert_int_equal(bind.count, 6);
    assert_int_equal(bind.influences, 3);
    for (uint32_t i = 0; i < 18; i++) {
        assert_int_equal(bind.joints[i], (i * 7u + 3u) % 5);
        assert_true(bind.weights[i] == 1.0f / 3.0f);
    }
    mn_splat_bindings_free(&bind);
    assert_int_equal(counter.live_bytes, 0);
    free(b.data);
}

static void bindings_refusals(void **state)
{
    (void)state;
    mn_error err;
    buffer b = make_bindings(1, 4, 2, 5);
    assert_int_equal(read_bindings(&b, 5, 5, &err), MN_COUNT_MISMATCH);
    assert_int_equal(read_bindings(&b, 4, 4, &err), MN_INDEX_RANGE);
    buffer cut = b;
    cut.size--;
    assert_int_equal(read_bindings(&cut, 0, 0, &err), MN_COUNT_MISMATCH);
    cut.size = 10;
    assert_int_equal(read_bindings(&cut, 0, 0, &err), MN_COUNT_MISMATCH);
    float nan = NAN;
    memcpy(b.data + b.size - 4, &nan, 4);
    assert_int_equal(read_bindings(&b, 4, 5, &err), MN_NOT_FINITE);
    assert_int_equal(err.offset, (int64_t)b.size - 4);
    b.data[0] = 'X';
    assert_int_equal(read_bindings(&b, 0, 0, &err), MN_INVALID_VALUE);
    free(b.data);

    b = make_bindings(2, 4, 2, 5);
    assert_int_equal(read_bindings(&b, 0, 0, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "unsupported version 2"));
    free(b.data);
    b = make_bindings(1, 4, 0, 5);
    assert_int_equal(read_bindings(&b, 0, 0, &err), MN_INVALID_VALUE);
    free(b.data);
    /* count × K × 6 beyond size_t */
    b = make_bindings(1, 0, 1, 5);
    uint32_t huge = 0xffffffffu;
    memcpy(b.data + 8, &huge, 4);
    memcpy(b.data + 12, &huge, 4);
    assert_int_equal(read_bindings(&b, 0, 0, &err), MN_OVERFLOW);
    free(b.data);
}

static void ply_to_character_checks(void **state)
{
    (void)state;
    float m[12] = {1, 0, 0, 0.5f, 0, 1, 0, -2, 0, 0, 1, 3};
    float t[3];
    assert_int_equal(mn_splat_ply_to_character(m, t, NULL), MN_OK);
    assert_true(t[0] == 0.5f && t[1] == -2.0f && t[2] == 3.0f);
    m[1] = 0.1f;
    assert_int_equal(mn_splat_ply_to_character(m, t, NULL), MN_INVALID_VALUE);
    m[1] = 0;
    m[7] = NAN;
    assert_int_equal(mn_splat_ply_to_character(m, t, NULL), MN_NOT_FINITE);
}

/* ---- the deform --------------------------------------------------------------------- */

typedef struct scene {
    uint32_t count, k, joints;
    uint16_t *joint;
    float *weight, *palette, *centres, *rotations, *out_c, *out_r;
} scene;

static double rnd(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (double)(*s >> 8) / 16777216.0;
}

/* Column-major rigid transform from a quaternion (x y z w) and a translation, with a uniform scale. */
static void rigid(float m[16], const double q[4], const double t[3], double scale)
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y),
                   2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
                   2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)};
    memset(m, 0, 16 * sizeof(float));
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++)
            m[4 * c + row] = (float)(r[3 * c + row] * scale);
    for (int row = 0; row < 3; row++)
        m[12 + row] = (float)t[row];
    m[15] = 1;
}

/* Joints turned up to ±spread radians about random axes, so neighbours' blends stay away from a reflection. */
static scene make_scene(uint32_t count, uint32_t k, uint32_t joints, double spread, uint32_t seed)
{
    scene s = {count, k, joints, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    s.joint = malloc(sizeof(uint16_t) * count * k);
    s.weight = malloc(sizeof(float) * count * k);
    s.palette = malloc(sizeof(float) * 16 * joints);
    s.centres = malloc(sizeof(float) * 3 * count);
    s.rotations = malloc(sizeof(float) * 4 * count);
    s.out_c = calloc(3 * (size_t)count, sizeof(float));
    s.out_r = calloc(4 * (size_t)count, sizeof(float));
    for (uint32_t j = 0; j < joints; j++) {
        double axis[3] = {rnd(&seed) - 0.5, rnd(&seed) - 0.5, rnd(&seed) - 0.5};
        double len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
        double angle = (rnd(&seed) * 2 - 1) * spread;
        double q[4] = {axis[0] / len * sin(angle / 2), axis[1] / len * sin(angle / 2),
                       axis[2] / len * sin(angle / 2), cos(angle / 2)};
        double t[3] = {rnd(&seed) * 2 - 1, rnd(&seed) * 2, rnd(&seed) - 0.5};
        rigid(s.palette + 16 * j, q, t, 0.8 + 0.4 * rnd(&seed));
    }
    for (uint32_t i = 0; i < count; i++) {
        double sum = 0, w[8];
        for (uint32_t q = 0; q < k; q++)
            sum += w[q] = rnd(&seed) + 0.05;
        for (uint32_t q = 0; q < k; q++) {
            s.joint[i * k + q] = (uint16_t)(rnd(&seed) * joints);
            s.weight[i * k + q] = (float)(w[q] / sum);
        }
        for (int c = 0; c < 3; c++)
            s.centres[3 * i + c] = (float)(rnd(&seed) * 2 - 1);
        for (int c = 0; c < 4; c++)
            s.rotations[4 * i + c] = (float)(rnd(&seed) * 2 - 1);
    }
    return s;
}

static void free_scene(scene *s)
{
    free(s->joint), free(s->weight), free(s->palette), free(s->centres);
    free(s->rotations), free(s->out_c), free(s->out_r);
}

static mn_splat_skin_job job_of(const scene *s, const float t[3])
{
    mn_splat_skin_job job = {
        .count = s->count, .influences = s->k, .joints = s->joint, .weights = s->weight,
        .palette = s->palette, .palette_count = s->joints, .centres = s->centres,
        .rotations = s->rotations, .out_centres = s->out_c, .out_rotations = s->out_r};
    for (int c = 0; c < 3; c++)
        job.translation[c] = t ? t[c] : 0.0f;
    return job;
}

/* 3×3 inverse transpose, double. */
static void inverse_transpose(const double a[9], double out[9])
{
    /* a[3*r + c]; cofactor matrix / det is the inverse transpose */
    double c[9] = {a[4] * a[8] - a[5] * a[7], a[5] * a[6] - a[3] * a[8], a[3] * a[7] - a[4] * a[6],
                   a[2] * a[7] - a[1] * a[8], a[0] * a[8] - a[2] * a[6], a[1] * a[6] - a[0] * a[7],
                   a[1] * a[5] - a[2] * a[4], a[2] * a[3] - a[0] * a[5], a[0] * a[4] - a[1] * a[3]};
    double det = a[0] * c[0] + a[1] * c[1] + a[2] * c[2];
    for (int i = 0; i < 9; i++)
        out[i] = c[i] / det;
}

/* Higham: X ← (X + X⁻ᵀ)/2 converges to the orthogonal polar factor (det > 0 here). */
static void polar(const double m[9], double r[9])
{
    double x[9], it[9];
    memcpy(x, m, sizeof x);
    for (int step = 0; step < 60; step++) {
        inverse_transpose(x, it);
        for (int i = 0; i < 9; i++)
            x[i] = 0.5 * (x[i] + it[i]);
    }
    memcpy(r, x, sizeof x);
}

/* Rotation matrix r[3*row + col] to a quaternion (x y z w), Shepperd. */
static void quat_of(const double r[9], double q[4])
{
    double tr = r[0] + r[4] + r[8];
    if (tr > 0) {
        double s = sqrt(tr + 1) * 2;
        q[3] = s / 4, q[0] = (r[7] - r[5]) / s, q[1] = (r[2] - r[6]) / s, q[2] = (r[3] - r[1]) / s;
    } else if (r[0] > r[4] && r[0] > r[8]) {
        double s = sqrt(1 + r[0] - r[4] - r[8]) * 2;
        q[3] = (r[7] - r[5]) / s, q[0] = s / 4, q[1] = (r[1] + r[3]) / s, q[2] = (r[2] + r[6]) / s;
    } else if (r[4] > r[8]) {
        double s = sqrt(1 + r[4] - r[0] - r[8]) * 2;
        q[3] = (r[2] - r[6]) / s, q[0] = (r[1] + r[3]) / s, q[1] = s / 4, q[2] = (r[5] + r[7]) / s;
    } else {
        double s = sqrt(1 + r[8] - r[0] - r[4]) * 2;
        q[3] = (r[3] - r[1]) / s, q[0] = (r[2] + r[6]) / s, q[1] = (r[5] + r[7]) / s, q[2] = s / 4;
    }
}

static void reference(const scene *s, const float t[3], uint32_t i, double c[3], double q[4])
{
    double m[12] = {0}; /* column-major 3 rows × 4 columns: m[4*... ] as m[c*3 + r] */
    for (uint32_t k = 0; k < s->k; k++) {
        const float *p = s->palette + 16 * s->joint[i * s->k + k];
        for (int col = 0; col < 4; col++)
            for (int row = 0; row < 3; row++)
                m[col * 3 + row] += (double)s->weight[i * s->k + k] * p[col * 4 + row];
    }
    double x[3];
    for (int a = 0; a < 3; a++)
        x[a] = (double)s->centres[3 * i + a] + t[a];
    for (int row = 0; row < 3; row++)
        c[row] = m[row] * x[0] + m[3 + row] * x[1] + m[6 + row] * x[2] + m[9 + row];
    double a[9], r[9], qr[4];
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 3; col++)
            a[3 * row + col] = m[col * 3 + row];
    polar(a, r);
    quat_of(r, qr);
    const float *sr = s->rotations + 4 * i;
    double n = sqrt((double)sr[0] * sr[0] + (double)sr[1] * sr[1] + (double)sr[2] * sr[2] +
                    (double)sr[3] * sr[3]);
    double bx = sr[0] / n, by = sr[1] / n, bz = sr[2] / n, bw = sr[3] / n;
    double ax = qr[0], ay = qr[1], az = qr[2], aw = qr[3];
    q[3] = aw * bw - ax * bx - ay * by - az * bz;
    q[0] = aw * bx + ax * bw + ay * bz - az * by;
    q[1] = aw * by - ax * bz + ay * bw + az * bx;
    q[2] = aw * bz + ax * by - ay * bx + az * bw;
}

/* |a - b| up to the sign of a quaternion. */
static double quat_distance(const float a[4], const double b[4])
{
    double same = 0, flip = 0;
    for (int k = 0; k < 4; k++) {
        same = fmax(same, fabs(a[k] - b[k]));
        flip = fmax(flip, fabs(a[k] + b[k]));
    }
    return fmin(same, flip);
}

static const mn_simd_level levels[] = {MN_SIMD_SCALAR, MN_SIMD_SSE2,
                                       MN_SIMD_AVX2_FMA};

static void deform_matches_double_reference(void **state)
{
    (void)state;
    const float t[3] = {0.25f, -0.5f, 1.0f};
    for (double spread = 0.3; spread < 2.0; spread += 0.8) {
        scene s = make_scene(1003, 4, 12, spread, 7u);
        mn_splat_skin_job job = job_of(&s, t);
        assert_int_equal(mn_splat_skin_job_validate(&job, NULL), MN_OK);
        for (size_t l = 0; l < 3; l++) {
            assert_int_equal(mn_splat_skin_run(&job, levels[l]), MN_OK);
            double worst_c = 0, worst_q = 0;
            for (uint32_t i = 0; i < s.count; i++) {
                double c[3], q[4];
                reference(&s, t, i, c, q);
                for (int a = 0; a < 3; a++)
                    worst_c = fmax(worst_c, fabs(s.out_c[3 * i + a] - c[a]));
                worst_q = fmax(worst_q, quat_distance(s.out_r + 4 * i, q));
                assert_true(s.out_r[4 * i + 3] >= 0.0f);
            }
            if (worst_c > 2e-6 || worst_q > 2e-6)
                fail_msg("spread %.1f level %d: centre error %g, rotation error %g", spread,
                         (int)levels[l], worst_c, worst_q);
        }
        free_scene(&s);
    }
}

/* A reflection: M = diag(3, 2, -1) is nearest the identity (trace 4, against 2 for the turn about x). */
static void deform_reflection_takes_the_trace_maximiser(void **state)
{
    (void)state;
    float palette[16] = {3, 0, 0, 0, 0, 2, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1};
    uint16_t joint[8] = {0};
    float weight[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    float centres[24] = {0}, out_c[24], out_r[32];
    float rotations[32];
    for (int i = 0; i < 8; i++)
        rotations[4 * i] = 0, rotations[4 * i + 1] = 0, rotations[4 * i + 2] = 0,
        rotations[4 * i + 3] = 2;
    mn_splat_skin_job job = {.count = 8, .influences = 1, .joints = joint, .weights = weight,
                             .palette = palette, .palette_count = 1, .centres = centres,
                             .rotations = rotations, .out_centres = out_c,
                             .out_rotations = out_r};
    for (size_t l = 0; l < 3; l++) {
        assert_int_equal(mn_splat_skin_run(&job, levels[l]), MN_OK);
        for (int i = 0; i < 8; i++) {
            assert_true(fabsf(out_r[4 * i + 3] - 1.0f) < 1e-6f);
            assert_true(fabsf(out_r[4 * i]) < 1e-6f);
        }
    }
}

/*
 * Degenerate blends: two joints turned 180° apart, weighted half and half
 * (a rank-one 3×3), the same with a third joint's sliver (nearly singular),
 * and an all-zero blend (a joint scaled to nothing, which once gave 0/0 =
 * NaN rotations).  Every level gives a finite unit quaternion with w ≥ 0
 * and the centre the blend puts it at.
 */
static void deform_degenerate_blends_stay_unit(void **state)
{
    (void)state;
    /* joint 0: identity; joint 1: half turn about z; joint 2: quarter turn about x; joint 3: zero */
    float palette[64] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                         -1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                         1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1,
                         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    enum { N = 11 };
    uint16_t joint[3 * N];
    float weight[3 * N], centres[3 * N], rotations[4 * N], out_c[3 * N], out_r[4 * N];
    for (int i = 0; i < N; i++) {
        int kind = i % 3;
        joint[3 * i] = kind == 2 ? 3 : 0, joint[3 * i + 1] = kind == 2 ? 3 : 1;
        joint[3 * i + 2] = kind == 2 ? 3 : 2;
        weight[3 * i] = kind == 1 ? 0.4999f : 0.5f, weight[3 * i + 1] = kind == 1 ? 0.4999f : 0.5f;
        weight[3 * i + 2] = kind == 1 ? 0.0002f : 0.0f;
        centres[3 * i] = (float)i, centres[3 * i + 1] = 1, centres[3 * i + 2] = -2;
        rotations[4 * i] = 0.1f * (float)i, rotations[4 * i + 1] = 0;
        rotations[4 * i + 2] = 0, rotations[4 * i + 3] = 1;
    }
    mn_splat_skin_job job = {.count = N, .influences = 3, .joints = joint, .weights = weight,
                             .palette = palette, .palette_count = 4, .centres = centres,
                             .rotations = rotations, .out_centres = out_c,
                             .out_rotations = out_r};
    assert_int_equal(mn_splat_skin_job_validate(&job, NULL), MN_OK);
    for (size_t l = 0; l < 3; l++) {
        memset(out_r, 0xff, sizeof out_r); /* NaNs: every lane must be written */
        assert_int_equal(mn_splat_skin_run(&job, levels[l]), MN_OK);
        for (int i = 0; i < N; i++) {
            float n2 = 0;
            for (int k = 0; k < 4; k++) {
                if (!isfinite(out_r[4 * i + k]))
                    fail_msg("level %d splat %d: component %d is %g", (int)levels[l], i, k,
                             (double)out_r[4 * i + k]);
                n2 += out_r[4 * i + k] * out_r[4 * i + k];
            }
            assert_true(fabsf(n2 - 1.0f) < 1e-5f);
            assert_true(out_r[4 * i + 3] >= 0.0f);
            /* half and half keeps z and drops x and y: the centre (i, 1, -2) goes to (0, 0, -2) */
            if (i % 3 == 0) {
                assert_true(fabsf(out_c[3 * i]) < 1e-6f && fabsf(out_c[3 * i + 1]) < 1e-6f);
                assert_true(fabsf(out_c[3 * i + 2] + 2.0f) < 1e-6f);
            }
            if (i % 3 == 2)
                assert_true(out_c[3 * i] == 0.0f && out_c[3 * i + 2] == 0.0f);
        }
    }
}

static void simd_matches_scalar(void **state)
{
    (void)state;
    scene s = make_scene(4099, 3, 40, 1.2, 11u);
    mn_splat_skin_job job = job_of(&s, NULL);
    assert_int_equal(mn_splat_skin_run(&job, MN_SIMD_SCALAR), MN_OK);
    float *ref_c = malloc(sizeof(float) * 3 * s.count), *ref_r = malloc(sizeof(float) * 4 * s.count);
    memcpy(ref_c, s.out_c, sizeof(float) * 3 * s.count);
    memcpy(ref_r, s.out_r, sizeof(float) * 4 * s.count);
    for (size_t l = 1; l < 3; l++) {
        memset(s.out_c, 0, sizeof(float) * 3 * s.count);
        assert_int_equal(mn_splat_skin_run(&job, levels[l]), MN_OK);
        for (uint32_t i = 0; i < s.count; i++) {
            for (int a = 0; a < 3; a++)
                assert_true(fabsf(s.out_c[3 * i + a] - ref_c[3 * i + a]) <= 2e-6f);
            double r[4] = {ref_r[4 * i], ref_r[4 * i + 1], ref_r[4 * i + 2], ref_r[4 * i + 3]};
            assert_true(quat_distance(s.out_r + 4 * i, r) <= 2e-6);
        }
    }
    free(ref_c), free(ref_r);
    free_scene(&s);
}

/* A job large enough that the x86 kernels stream their outputs (4 MiB and more): the same values. */
static void large_jobs_stream_the_same_values(void **state)
{
    (void)state;
    scene s = make_scene(150001, 2, 16, 1.0, 9u);
    mn_splat_skin_job job = job_of(&s, NULL);
    assert_int_equal(mn_splat_skin_run(&job, MN_SIMD_SCALAR), MN_OK);
    float *ref_c = malloc(sizeof(float) * 3 * s.count), *ref_r = malloc(sizeof(float) * 4 * s.count);
    memcpy(ref_c, s.out_c, sizeof(float) * 3 * s.count);
    memcpy(ref_r, s.out_r, sizeof(float) * 4 * s.count);
    mn_splat_skinner *skinner = NULL;
    assert_int_equal(mn_splat_skinner_create(2, NULL, &skinner, NULL), MN_OK);
    for (size_t l = 1; l < 3; l++) {
        memset(s.out_c, 0, sizeof(float) * 3 * s.count);
        memset(s.out_r, 0, sizeof(float) * 4 * s.count);
        assert_int_equal(mn_splat_skinner_run(skinner, &job, levels[l]), MN_OK);
        for (uint32_t i = 0; i < s.count; i++) {
            for (int a = 0; a < 3; a++)
                assert_true(fabsf(s.out_c[3 * i + a] - ref_c[3 * i + a]) <= 2e-6f);
            double r[4] = {ref_r[4 * i], ref_r[4 * i + 1], ref_r[4 * i + 2], ref_r[4 * i + 3]};
            assert_true(quat_distance(s.out_r + 4 * i, r) <= 2e-6);
        }
    }
    mn_splat_skinner_free(skinner);
    free(ref_c), free(ref_r);
    free_scene(&s);
}

/*
 * Four influences (the AVX2 kernel's straight-line blend) on a job large
 * enough to stream, with its outputs 16-byte aligned (streaming stores) and
 * one float off (ordinary stores), a short last batch included: the values
 * of the scalar kernel either way.
 */
static void four_influences_stream_or_not_the_same_values(void **state)
{
    (void)state;
    scene s = make_scene(150003, 4, 24, 1.0, 13u);
    mn_splat_skin_job job = job_of(&s, NULL);
    assert_int_equal(mn_splat_skin_run(&job, MN_SIMD_SCALAR), MN_OK);
    float *out_c = malloc(sizeof(float) * (3 * (size_t)s.count + 4));
    float *out_r = malloc(sizeof(float) * (4 * (size_t)s.count + 4));
    for (size_t off = 0; off < 2; off++) {
        for (size_t l = 1; l < 3; l++) {
            mn_splat_skin_job shifted = job;
            shifted.out_centres = out_c + off, shifted.out_rotations = out_r + off;
            memset(out_c, 0, sizeof(float) * (3 * (size_t)s.count + 4));
            memset(out_r, 0, sizeof(float) * (4 * (size_t)s.count + 4));
            assert_int_equal(mn_splat_skin_run(&shifted, levels[l]), MN_OK);
            for (uint32_t i = 0; i < s.count; i++) {
                for (int a = 0; a < 3; a++)
                    assert_true(fabsf(shifted.out_centres[3 * i + a] - s.out_c[3 * i + a]) <=
                                2e-6f);
                double r[4] = {s.out_r[4 * i], s.out_r[4 * i + 1], s.out_r[4 * i + 2],
                               s.out_r[4 * i + 3]};
                assert_true(quat_distance(shifted.out_rotations + 4 * i, r) <= 2e-6);
            }
        }
    }
    free(out_c), free(out_r);
    free_scene(&s);
}

/*
 * The rotation does not depend on the blend's scale: skin matrices scaled
 * by 2^-40 and 2^40 (exact in float, so the blends scale exactly) give the
 * rotations of the unscaled ones, at every level.
 */
static void rotations_do_not_depend_on_scale(void **state)
{
    (void)state;
    scene s = make_scene(203, 4, 10, 1.2, 17u);
    mn_splat_skin_job job = job_of(&s, NULL);
    float *ref_r = malloc(sizeof(float) * 4 * s.count);
    const float scales[2] = {0x1p-40f, 0x1p40f};
    for (size_t l = 0; l < 3; l++) {
        assert_int_equal(mn_splat_skin_run(&job, levels[l]), MN_OK);
        memcpy(ref_r, s.out_r, sizeof(float) * 4 * s.count);
        for (size_t f = 0; f < 2; f++) {
            for (uint32_t j = 0; j < s.joints; j++)
                for (int c = 0; c < 3; c++)
                    for (int row = 0; row < 3; row++)
                        s.palette[16 * j + 4 * c + row] *= scales[f];
            assert_int_equal(mn_splat_skin_run(&job, levels[l]), MN_OK);
            for (uint32_t j = 0; j < s.joints; j++)
                for (int c = 0; c < 3; c++)
                    for (int row = 0; row < 3; row++)
                        s.palette[16 * j + 4 * c + row] /= scales[f];
            for (uint32_t i = 0; i < s.count; i++) {
                double r[4] = {ref_r[4 * i], ref_r[4 * i + 1], ref_r[4 * i + 2], ref_r[4 * i + 3]};
                if (!(quat_distance(s.out_r + 4 * i, r) <= 2e-6))
                    fail_msg("level %d scale %g splat %u: rotation %g off", (int)levels[l],
                             (double)scales[f], i, quat_distance(s.out_r + 4 * i, r));
            }
        }
    }
    free(ref_r);
    free_scene(&s);
}

static void threads_match_one_thread_and_allocate_nothing(void **state)
{
    (void)state;
    scene s = make_scene(10007, 4, 30, 1.0, 5u);
    mn_splat_skin_job job = job_of(&s, NULL);
    float *one_c = malloc(sizeof(float) * 3 * s.count), *one_r = malloc(sizeof(float) * 4 * s.count);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    for (size_t l = 0; l < 3; l++) {
        assert_int_equal(mn_splat_skin_run(&job, levels[l]), MN_OK);
        memcpy(one_c, s.out_c, sizeof(float) * 3 * s.count);
        memcpy(one_r, s.out_r, sizeof(float) * 4 * s.count);
        for (uint32_t threads = 1; threads <= 3; threads++) {
            mn_splat_skinner *skinner = NULL;
            assert_int_equal(mn_splat_skinner_create(threads, &hooks, &skinner, NULL), MN_OK);
            assert_int_equal(mn_splat_skinner_threads(skinner), threads);
            size_t allocs = counter.allocs;
            for (int frame = 0; frame < 4; frame++) {
                memset(s.out_c, 0, sizeof(float) * 3 * s.count);
                memset(s.out_r, 0, sizeof(float) * 4 * s.count);
                assert_int_equal(mn_splat_skinner_run(skinner, &job, levels[l]), MN_OK);
                assert_memory_equal(s.out_c, one_c, sizeof(float) * 3 * s.count);
                assert_memory_equal(s.out_r, one_r, sizeof(float) * 4 * s.count);
            }
            assert_int_equal(counter.allocs, allocs);
            mn_splat_skinner_free(skinner);
            assert_int_equal(counter.live_bytes, 0);
        }
    }
    free(one_c), free(one_r);
    free_scene(&s);
}

static void job_checks(void **state)
{
    (void)state;
    scene s = make_scene(10, 2, 4, 1.0, 3u);
    mn_splat_skin_job job = job_of(&s, NULL);
    s.joint[7] = 4;
    mn_error err;
    assert_int_equal(mn_splat_skin_job_validate(&job, &err), MN_INDEX_RANGE);
    assert_non_null(strstr(err.message, "splat 3"));
    job.out_rotations = NULL;
    assert_int_equal(mn_splat_skin_job_validate(&job, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_splat_skin_run(&job, MN_SIMD_BEST), MN_INVALID_ARGUMENT);
    job = job_of(&s, NULL);
    job.influences = 0;
    assert_int_equal(mn_splat_skin_run(&job, MN_SIMD_BEST), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_splat_skinner_run(NULL, &job, MN_SIMD_BEST), MN_INVALID_ARGUMENT);
    free_scene(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ply_reads_by_name_in_any_order),
        cmocka_unit_test(ply_refuses_ascii_and_big_endian),
        cmocka_unit_test(ply_refuses_truncated_and_trailing),
        cmocka_unit_test(ply_refuses_counts),
        cmocka_unit_test(ply_refuses_layouts),
        cmocka_unit_test(ply_refuses_values),
        cmocka_unit_test(bindings_read),
        cmocka_unit_test(bindings_refusals),
        cmocka_unit_test(ply_to_character_checks),
        cmocka_unit_test(deform_matches_double_reference),
        cmocka_unit_test(deform_reflection_takes_the_trace_maximiser),
        cmocka_unit_test(deform_degenerate_blends_stay_unit),
        cmocka_unit_test(simd_matches_scalar),
        cmocka_unit_test(large_jobs_stream_the_same_values),
        cmocka_unit_test(four_influences_stream_or_not_the_same_values),
        cmocka_unit_test(rotations_do_not_depend_on_scale),
        cmocka_unit_test(threads_match_one_thread_and_allocate_nothing),
        cmocka_unit_test(job_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
