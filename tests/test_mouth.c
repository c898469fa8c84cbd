/*
 * mouth_hidden.bin (§7 and §11 "Mouth list"): a synthetic list read back
 * exactly, its plugs and band counted; each corrupted variant (magic, version, size, kind, row, lip
 * vertex, duplicate row, non-unit or NaN up/forward) refused with its code
 * and offset; pad bytes ignored; truncation at every length and out of
 * memory at every allocation fail cleanly; the gap, hiddenAlpha and plugPush
 * as functions of the gap against a double-precision smoothstep.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include <marionette/character/mouth.h>

#include "counting_alloc.h"

enum { SPLATS = 100, HEAD_VERTS = 50, COUNT = 3, SIZE = 36 + 16 * COUNT };

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

static void put_f32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(p, u);
}

/* A valid list: rows 7, 3, 99 with kinds plug, inside, band. */
static void build(uint8_t *b)
{
    memset(b, 0, SIZE);
    memcpy(b, "MHID", 4);
    put_u32(b + 4, 1);
    put_u32(b + 8, COUNT);
    const float up[3] = {0, 1, 0}, fwd[3] = {0, 0.6f, 0.8f};
    for (int k = 0; k < 3; k++) {
        put_f32(b + 12 + 4 * k, up[k]);
        put_f32(b + 24 + 4 * k, fwd[k]);
    }
    const uint32_t rows[COUNT] = {7, 3, 99}, kinds[COUNT] = {1, 2, 3};
    for (int i = 0; i < COUNT; i++) {
        uint8_t *e = b + 36 + 16 * i;
        put_u32(e, rows[i]);
        e[4] = (uint8_t)kinds[i];
        e[5] = 0xAB; /* pad bytes are ignored */
        put_u32(e + 8, 10 + (uint32_t)i);
        put_u32(e + 12, 49 - (uint32_t)i);
    }
}

static void test_read(void **state)
{
    (void)state;
    uint8_t b[SIZE];
    build(b);
    mn_mouth_hidden *m = NULL;
    mn_error err;
    mn_status st = mn_mouth_hidden_read(b, SIZE, SPLATS, HEAD_VERTS, NULL, &m, &err);
    if (st != MN_OK)
        fail_msg("%s", err.message);
    assert_int_equal(m->version, 1);
    assert_int_equal(m->count, COUNT);
    assert_true(m->up[1] == 1.0f);
    assert_true(m->forward[2] == 0.8f);
    assert_int_equal(m->entries[0].row, 7);
    assert_int_equal(m->entries[0].kind, MN_MOUTH_PLUG);
    assert_int_equal(m->entries[1].kind, MN_MOUTH_INSIDE);
    assert_int_equal(m->entries[2].row, 99);
    assert_int_equal(m->entries[2].kind, MN_MOUTH_BAND);
    assert_int_equal(m->entries[2].upper, 12);
    assert_int_equal(m->entries[2].lower, 47);
    assert_int_equal(m->plugs, 1);
    assert_int_equal(m->band, 1);
    mn_mouth_hidden_free(m);
    mn_mouth_hidden_free(NULL);

    /* An empty list is valid. */
    uint8_t e[36];
    memcpy(e, b, 36);
    put_u32(e + 8, 0);
    assert_int_equal(mn_mouth_hidden_read(e, 36, SPLATS, HEAD_VERTS, NULL, &m, &err), MN_OK);
    assert_int_equal(m->count, 0);
    assert_int_equal(m->plugs, 0);
    assert_int_equal(m->band, 0);
    mn_mouth_hidden_free(m);
}

/* plugs and band count the entries of kind 1 and 3, wherever they are listed; the rest are inside. */
static void counts_the_plugs_and_the_band(void **state)
{
    (void)state;
    enum { N = 11 };
    static const uint8_t kinds[N] = {3, 1, 2, 3, 3, 2, 1, 2, 2, 3, 1};
    uint8_t b[36 + 16 * N];
    build(b);               /* the header's magic, version and axes */
    put_u32(b + 8, N);
    for (uint32_t i = 0; i < N; i++) {
        uint8_t *e = b + 36 + 16 * i;
        memset(e, 0, 16);
        put_u32(e, 2 * i);
        e[4] = kinds[i];
        put_u32(e + 8, i);
        put_u32(e + 12, i + 1);
    }
    mn_mouth_hidden *m = NULL;
    mn_error err;
    assert_int_equal(mn_mouth_hidden_read(b, sizeof b, SPLATS, HEAD_VERTS, NULL, &m, &err), MN_OK);
    assert_int_equal(m->count, N);
    assert_int_equal(m->plugs, 3);
    assert_int_equal(m->band, 4);
    uint32_t inside = 0;
    for (uint32_t i = 0; i < m->count; i++)
        inside += m->entries[i].kind == MN_MOUTH_INSIDE;
    assert_int_equal(m->count - m->plugs - m->band, inside);
    mn_mouth_hidden_free(m);
}

typedef struct corruption {
    const char *what;
    size_t at;
    uint32_t value;     /* written as u32 at `at` (one byte when byte is true) */
    bool byte;
    mn_status code;
} corruption;

static void test_corrupted(void **state)
{
    (void)state;
    float half = 0.5f, nan_f = NAN, near = 1.0009f, far_ = 1.002f;
    uint32_t half_u, nan_u, near_u, far_u;
    memcpy(&half_u, &half, 4);
    memcpy(&nan_u, &nan_f, 4);
    memcpy(&near_u, &near, 4);
    memcpy(&far_u, &far_, 4);
    const corruption cases[] = {
        {"magic", 0, 0x4449484Eu, false, MN_INVALID_VALUE},
        {"version", 4, 2, false, MN_INVALID_VALUE},
        {"count too big", 8, 4, false, MN_COUNT_MISMATCH},
        {"count too small", 8, 2, false, MN_COUNT_MISMATCH},
        {"count huge", 8, 0xFFFFFFFFu, false, MN_COUNT_MISMATCH},
        {"up short", 16, half_u, false, MN_INVALID_VALUE},
        {"up NaN", 12, nan_u, false, MN_NOT_FINITE},
        {"forward long", 32, far_u, false, MN_INVALID_VALUE},
        {"row = splat count", 36 + 16, SPLATS, false, MN_INDEX_RANGE},
        {"kind 0", 36 + 4, 0, true, MN_INVALID_VALUE},
        {"kind 4", 36 + 16 + 4, 4, true, MN_INVALID_VALUE},
        {"upper = vertex count", 36 + 8, HEAD_VERTS, false, MN_INDEX_RANGE},
        {"lower huge", 36 + 32 + 12, 0xFFFFFFFFu, false, MN_INDEX_RANGE},
        {"row twice", 36 + 32, 7, false, MN_INVALID_VALUE},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        uint8_t b[SIZE];
        build(b);
        if (cases[c].byte)
            b[cases[c].at] = (uint8_t)cases[c].value;
        else
            put_u32(b + cases[c].at, cases[c].value);
        mn_mouth_hidden *m = (mn_mouth_hidden *)&b; /* must be reset to NULL */
        mn_error err;
        mn_status st = mn_mouth_hidden_read(b, SIZE, SPLATS, HEAD_VERTS, NULL, &m, &err);
        if (st != cases[c].code)
            fail_msg("%s: got %s (%s)", cases[c].what, mn_status_name(st), err.message);
        assert_null(m);
        assert_true(err.offset >= 0);
    }
    /* up within 1e-3 of unit length is accepted. */
    uint8_t b[SIZE];
    build(b);
    put_u32(b + 16, near_u);
    mn_mouth_hidden *m = NULL;
    mn_error err;
    assert_int_equal(mn_mouth_hidden_read(b, SIZE, SPLATS, HEAD_VERTS, NULL, &m, &err), MN_OK);
    mn_mouth_hidden_free(m);
    /* Trailing bytes. */
    uint8_t longer[SIZE + 1];
    build(longer);
    longer[SIZE] = 0;
    assert_int_equal(mn_mouth_hidden_read(longer, SIZE + 1, SPLATS, HEAD_VERTS, NULL, &m, &err),
                     MN_COUNT_MISMATCH);
    /* The duplicate is reported at its second listing. */
    build(b);
    put_u32(b + 36 + 32, 3);
    assert_int_equal(mn_mouth_hidden_read(b, SIZE, SPLATS, HEAD_VERTS, NULL, &m, &err),
                     MN_INVALID_VALUE);
    assert_int_equal(err.offset, 36 + 32);
    assert_int_equal(mn_mouth_hidden_read(NULL, 4, SPLATS, HEAD_VERTS, NULL, &m, &err),
                     MN_INVALID_ARGUMENT);
}

static void test_truncation_and_memory(void **state)
{
    (void)state;
    uint8_t b[SIZE];
    build(b);
    for (size_t n = 0; n < SIZE; n++) {
        mn_mouth_hidden *m = NULL;
        mn_error err;
        assert_int_not_equal(mn_mouth_hidden_read(b, n, SPLATS, HEAD_VERTS, NULL, &m, &err), MN_OK);
        assert_null(m);
    }
    for (long fail = 0; fail < 3; fail++) {
        mn_counting_alloc c = mn_counting_alloc_make();
        c.fail_after = fail;
        mn_allocator hooks = mn_counting_allocator(&c);
        mn_mouth_hidden *m = NULL;
        mn_error err;
        mn_status st = mn_mouth_hidden_read(b, SIZE, SPLATS, HEAD_VERTS, &hooks, &m, &err);
        if (st == MN_OK)
            mn_mouth_hidden_free(m);
        else
            assert_int_equal(st, MN_OUT_OF_MEMORY);
        assert_int_equal(c.live_bytes, 0);
    }
}

static double smoothstep_ref(double x)
{
    double t = x / 0.002;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return t * t * (3 - 2 * t);
}

static void test_gap_functions(void **state)
{
    (void)state;
    assert_true(mn_mouth_hidden_alpha(-1.0f) == 1.0f);
    assert_true(mn_mouth_hidden_alpha(0.0f) == 1.0f);
    assert_true(mn_mouth_hidden_alpha(0.002f) == 0.0f);
    assert_true(mn_mouth_hidden_alpha(0.5f) == 0.0f);
    assert_true(mn_mouth_plug_push(0.0f) == 0.0f);
    assert_true(mn_mouth_plug_push(0.01f) == 0.003f);
    assert_true(mn_mouth_hidden_alpha(NAN) == 1.0f);
    assert_true(mn_mouth_plug_push(NAN) == 0.0f);
    for (int i = -10; i <= 30; i++) {
        float g = (float)i * 1e-4f;
        double s = smoothstep_ref(g);
        assert_true(fabs(mn_mouth_hidden_alpha(g) - (1 - s)) < 1e-6);
        assert_true(fabs(mn_mouth_plug_push(g) - 0.003 * s) < 1e-8);
    }
    /* Halfway open: smoothstep(0.5) = 0.5. */
    assert_true(fabsf(mn_mouth_hidden_alpha(0.001f) - 0.5f) < 1e-6f);
    /* The gap is measured along up, relative to the rest opening. */
    const float up[3] = {0, 1, 0};
    const float u0[3] = {0, 1.00f, 0.1f}, l0[3] = {0, 0.99f, 0.1f};
    const float u[3] = {0.3f, 1.002f, 0.5f}, l[3] = {0.1f, 0.991f, 0.2f};
    assert_true(fabsf(mn_mouth_lip_gap(up, u, l, u0, l0) - 0.001f) < 1e-6f);
    assert_true(mn_mouth_lip_gap(up, u0, l0, u0, l0) == 0.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read),
        cmocka_unit_test(counts_the_plugs_and_the_band),
        cmocka_unit_test(test_corrupted),
        cmocka_unit_test(test_truncation_and_memory),
        cmocka_unit_test(test_gap_functions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
