/*
 * ARKit-52 maps (src/head/arkit.c): the channel order and case-insensitive
 * names; the table map (terms resolved to slots, sums clamped, case variants
 * both applied, dropped keys and terms reported with their codes, gaze from
 * the eyeLook* channels and without it); the fitted map against values
 * computed by hand (the linear part unclamped, the correctives from clamped
 * weights, gaze with the table's pitch negated, unknown channels dropped) and
 * every refusal of its description and file; and the head driven through a
 * map (and refusing ARKit without one).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/head/aosrig.h>
#include <marionette/head/arkit.h>
#include <marionette/head/head.h>

#include "assert_near.h"
#include "counting_alloc.h"
#include "synthetic_head.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A layout like the synthetic head's with E = 16: left_eye 4 (0..3),
 * right_eye 4 (4..7), lower_face 7 (8..14), pupils 1 (15), then gaze 16..19.
 */
static const mn_aosrig_region regions[4] = {
    {"left_eye", 4, 0, true, 2}, {"right_eye", 4, 4, true, 2},
    {"lower_face", 7, 8, true, 3}, {"pupils", 1, 15, false, 0}};
static const mn_aosrig_head_ext layout = {20, 16, 4, regions, 4};

static int ch(const char *name)
{
    int32_t c = mn_arkit_channel_index(name);
    assert_true(c >= 0);
    return (int)c;
}

static void channel_order(void **state)
{
    (void)state;
    assert_string_equal(mn_arkit_channel_name(0), "eyeBlinkLeft");
    assert_string_equal(mn_arkit_channel_name(13), "eyeWideRight");
    assert_string_equal(mn_arkit_channel_name(17), "jawOpen");
    assert_string_equal(mn_arkit_channel_name(43), "browInnerUp");
    assert_string_equal(mn_arkit_channel_name(51), "tongueOut");
    assert_null(mn_arkit_channel_name(52));
    assert_int_equal(mn_arkit_channel_index("JawOpen"), 17);
    assert_int_equal(mn_arkit_channel_index("JAWOPEN"), 17);
    assert_int_equal(mn_arkit_channel_index("jawOpe"), -1);
    assert_int_equal(mn_arkit_channel_index("jawOpenX"), -1);
    assert_int_equal(mn_arkit_channel_index(NULL), -1);
    for (uint32_t i = 0; i < MN_ARKIT_CHANNEL_COUNT; i++)
        assert_int_equal(mn_arkit_channel_index(mn_arkit_channel_name(i)), (int32_t)i);
    assert_float_near(MN_ARKIT_GAZE_FULL_SCALE * 180.0 / 3.14159265358979324, 20.0, 1e-5);
}

/* ---- the table map ---------------------------------------------------------------- */

static const char table_json[] =
    "{"
    "\"jawOpen\": [{\"region\": \"lower_face\", \"index\": 2, \"gain\": 1.5},"
    "              {\"region\": \"lower_face\", \"index\": 3.0, \"gain\": -0.5}],"
    "\"JawOpen\": [{\"region\": \"lower_face\", \"index\": 2, \"gain\": 0.5}],"
    "\"eyeBlinkLeft\": [{\"region\": \"left_eye\", \"index\": 0, \"gain\": 10},"
    "                   {\"region\": \"tongue\", \"index\": 0, \"gain\": 1},"
    "                   {\"region\": \"left_eye\", \"index\": 4, \"gain\": 1},"
    "                   {\"region\": \"left_eye\", \"index\": 1.5, \"gain\": 1},"
    "                   {\"region\": \"left_eye\", \"index\": 1, \"gain\": \"big\"}],"
    "\"mouthSmileLeft\": [{\"region\": \"pupils\", \"index\": 0, \"gain\": -2}],"
    "\"notAChannel\": [{\"region\": \"pupils\", \"index\": 0, \"gain\": 1}],"
    "\"cheekPuff\": 3"
    "}";

static bool has_drop(const mn_arkit_map *m, const char *name, mn_status code)
{
    for (uint32_t i = 0; i < m->drop_count; i++)
        if (strcmp(m->drops[i].name, name) == 0 && m->drops[i].code == code)
            return true;
    return false;
}

static void table_map(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_arkit_table_options o = {.allocator = mn_counting_allocator(&counter)};
    mn_arkit_map *m = NULL;
    mn_error err;
    assert_int_equal(mn_arkit_table_map_create(&layout, table_json, strlen(table_json), &o, &m,
                                               &err),
                     MN_OK);
    assert_int_equal(m->dim, 20);
    assert_int_equal(m->terms, 5);
    assert_int_equal(m->drop_count, 6);
    assert_true(has_drop(m, "notAChannel", MN_INVALID_VALUE));
    assert_true(has_drop(m, "cheekPuff", MN_JSON_TYPE));
    assert_true(has_drop(m, "eyeBlinkLeft[1]", MN_INVALID_VALUE));
    assert_true(has_drop(m, "eyeBlinkLeft[2]", MN_INDEX_RANGE));
    assert_true(has_drop(m, "eyeBlinkLeft[3]", MN_INDEX_RANGE));
    assert_true(has_drop(m, "eyeBlinkLeft[4]", MN_JSON_TYPE));

    float arkit[52] = {0}, out[20];
    arkit[ch("jawOpen")] = 0.8f;
    arkit[ch("eyeBlinkLeft")] = 1.0f;
    arkit[ch("mouthSmileLeft")] = 3.0f;
    arkit[ch("eyeLookDownLeft")] = 0.5f;
    arkit[ch("eyeLookUpLeft")] = 2.0f;      /* clamped to 1 */
    arkit[ch("eyeLookOutLeft")] = 0.25f;
    arkit[ch("eyeLookInRight")] = 0.5f;
    arkit[ch("eyeLookOutRight")] = -1.0f;   /* clamped to 0 */
    size_t allocs = counter.allocs;
    for (int i = 0; i < 20; i++)
        out[i] = NAN;
    mn_arkit_map_apply(m, arkit, out);
    assert_int_equal(counter.allocs, allocs);
    const float G = MN_ARKIT_GAZE_FULL_SCALE;
    for (int i = 0; i < 20; i++) {
        float want = 0.0f;
        if (i == 10)
            want = 1.5f * 0.8f + 0.5f * 0.8f;      /* both case variants apply */
        if (i == 11)
            want = -0.5f * 0.8f;
        if (i == 0)
            want = 4.0f;                           /* 10 clamped to 4 */
        if (i == 15)
            want = -4.0f;                          /* -6 clamped to -4 */
        if (i == 16)
            want = G * (0.5f - 1.0f);              /* pitch_L: down - up */
        if (i == 17)
            want = G * (0.25f - 0.0f);             /* yaw_L: out - in */
        if (i == 18)
            want = 0.0f;
        if (i == 19)
            want = G * (0.5f - 0.0f);              /* yaw_R: in - out */
        assert_float_near(out[i], want, 1e-6);
    }
    mn_arkit_map_free(m);
    assert_int_equal(counter.live_bytes, 0);

    /* A custom clamp, gaze off. */
    mn_arkit_table_options o2 = {.clamp = 1.0f, .no_gaze = true};
    assert_int_equal(mn_arkit_table_map_create(&layout, table_json, strlen(table_json), &o2, &m,
                                               &err),
                     MN_OK);
    mn_arkit_map_apply(m, arkit, out);
    assert_float_near(out[0], 1.0f, 0);
    assert_float_near(out[10], 1.0f, 0);
    for (int i = 16; i < 20; i++)
        assert_float_near(out[i], 0.0f, 0);
    mn_arkit_map_free(m);

    /* Refusals of the whole table. */
    assert_int_equal(mn_arkit_table_map_create(&layout, "[1]", 3, NULL, &m, &err), MN_JSON_TYPE);
    assert_null(m);
    assert_int_equal(mn_arkit_table_map_create(&layout, "{\"a\":", 5, NULL, &m, &err),
                     MN_JSON_SYNTAX);
    mn_arkit_table_options neg = {.clamp = -1.0f};
    assert_int_equal(mn_arkit_table_map_create(&layout, "{}", 2, &neg, &m, &err),
                     MN_INVALID_ARGUMENT);
    /* Out of memory at every step leaks nothing. */
    for (long fail = 0; fail < 8; fail++) {
        mn_counting_alloc c = mn_counting_alloc_make();
        c.fail_after = fail;
        mn_arkit_table_options of = {.allocator = mn_counting_allocator(&c)};
        mn_status st = mn_arkit_table_map_create(&layout, table_json, strlen(table_json), &of,
                                                 &m, &err);
        if (st == MN_OK)
            mn_arkit_map_free(m);
        else
            assert_int_equal(st, MN_OUT_OF_MEMORY);
        assert_int_equal(c.live_bytes, 0);
    }
}

/* ---- the fitted map ------------------------------------------------------------------ */

static const char fitted_info[] =
    "{\"version\": 1, \"src\": \"face.bin\", \"sha256\": \"00\", \"bytes\": 384,"
    " \"channels\": [\"jawOpen\", \"EyeBlinkLeft\", \"bogusChannel\", \"mouthClose\"],"
    " \"coeffs\": 16, \"pairs\": [[0, 1], [1, 3]],"
    " \"gaze\": {\"eyeLookUpLeft\": {\"axis\": \"pitch\", \"eye\": \"left\", \"radians\": 0.3},"
    "          \"eyeLookInRight\": {\"axis\": \"yaw\", \"eye\": \"right\", \"radians\": 0.2},"
    "          \"eyeLookBehind\": {\"axis\": \"yaw\", \"eye\": \"left\", \"radians\": 1}},"
    " \"blinks\": [\"eyeBlinkLeft\"]}";

/* A (4 × 16) then C (2 × 16): A[r][k] = r + k/16, C[k][i] = (k + 1)·(i − 8). */
static void fitted_table(float *t)
{
    for (int r = 0; r < 4; r++)
        for (int k = 0; k < 16; k++)
            t[r * 16 + k] = (float)r + (float)k / 16.0f;
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < 16; i++)
            t[64 + p * 16 + i] = (float)(p + 1) * (float)(i - 8);
}

static void fitted_map(void **state)
{
    (void)state;
    float t[96];
    fitted_table(t);
    mn_arkit_map *m = NULL;
    mn_error err;
    assert_int_equal(mn_arkit_fitted_map_create(&layout, fitted_info, strlen(fitted_info), t,
                                                sizeof t, NULL, &m, &err),
                     MN_OK);
    assert_int_equal(m->dim, 20);
    assert_int_equal(m->terms, 5); /* 3 channel rows in use (bogusChannel dropped) + 2 pairs */
    assert_int_equal(m->drop_count, 2);
    assert_true(has_drop(m, "bogusChannel", MN_INVALID_VALUE));
    assert_true(has_drop(m, "gaze.eyeLookBehind", MN_INVALID_VALUE));

    float arkit[52] = {0}, out[20];
    arkit[ch("jawOpen")] = 0.5f;
    arkit[ch("eyeBlinkLeft")] = 1.7f;        /* linear: 1.7; correctives: clamped to 1 */
    arkit[ch("mouthClose")] = -0.4f;         /* linear: -0.4; correctives: 0 */
    arkit[ch("eyeLookUpLeft")] = 0.5f;
    arkit[ch("eyeLookInRight")] = 2.0f;      /* clamped to 1 */
    mn_arkit_map_apply(m, arkit, out);
    for (int k = 0; k < 16; k++) {
        /* rows: jawOpen (A0), eyeBlinkLeft (A1), bogus (A2, weight 0), mouthClose (A3) */
        float a0 = (float)k / 16.0f, a1 = 1.0f + a0, a3 = 3.0f + a0;
        float linear = 0.5f * a0 + 1.7f * a1 + -0.4f * a3;
        /* pair 0 = (jawOpen, eyeBlinkLeft): 0.5·1; pair 1 = (eyeBlinkLeft, mouthClose): 1·0 */
        float corrective = 0.5f * 1.0f * (float)(k - 8);
        assert_float_near(out[k], linear + corrective, 1e-5);
    }
    assert_float_near(out[16], -0.3f * 0.5f, 1e-7); /* pitch: the table's + up, negated */
    assert_float_near(out[17], 0.0f, 0);
    assert_float_near(out[18], 0.0f, 0);
    assert_float_near(out[19], 0.2f, 1e-7);
    /* Hand-computed with a saturated pair: both weights over 1. */
    arkit[ch("jawOpen")] = 3.0f;
    arkit[ch("mouthClose")] = 2.0f;
    mn_arkit_map_apply(m, arkit, out);
    assert_float_near(out[0], 3.0f * 0.0f + 1.7f * 1.0f + 2.0f * 3.0f + 1.0f * -8.0f + 2.0f * -8.0f,
                      1e-5);
    mn_arkit_map_free(m);
}

/* arkit.h: terms is the rows in use plus the pairs in use; a dropped channel counts in neither. */
static void fitted_terms_are_the_rows_in_use_not_the_rows_listed(void **state)
{
    (void)state;
    static const char info[] =
        "{\"version\": 1, \"coeffs\": 16,"
        " \"channels\": [\"jawOpen\", \"notAChannel\", \"eyeBlinkLeft\", \"alsoNot\"],"
        " \"pairs\": [[0, 2], [1, 2], [2, 3], [0, 0]]}";
    float t[8 * 16];
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        t[i] = 1.0f;
    mn_arkit_map *m = NULL;
    mn_error err;
    assert_int_equal(mn_arkit_fitted_map_create(&layout, info, strlen(info), t, sizeof t, NULL, &m, &err),
                     MN_OK);
    /* Rows: jawOpen and eyeBlinkLeft (2 of 4).  Pairs: [0, 2] and [0, 0] (the two naming a dropped row weigh 0). */
    assert_int_equal(m->terms, 4);
    assert_int_equal(m->drop_count, 2);
    assert_true(has_drop(m, "notAChannel", MN_INVALID_VALUE));
    assert_true(has_drop(m, "alsoNot", MN_INVALID_VALUE));
    /* What apply does agrees: every coefficient is 1, so each slot sums the weights of the rows in use. */
    float arkit[52] = {0}, out[20];
    arkit[ch("jawOpen")] = 0.5f;
    arkit[ch("eyeBlinkLeft")] = 0.25f;
    mn_arkit_map_apply(m, arkit, out);
    /* linear 0.5 + 0.25; pairs 0.5·0.25 and 0.5·0.5 */
    assert_float_near(out[3], 0.5f + 0.25f + 0.125f + 0.25f, 1e-6);
    mn_arkit_map_free(m);

    /* Nothing dropped: every row and pair is in use. */
    static const char all[] = "{\"version\": 1, \"coeffs\": 16, \"channels\": [\"jawOpen\", \"mouthClose\"],"
                              " \"pairs\": [[0, 1]]}";
    assert_int_equal(mn_arkit_fitted_map_create(&layout, all, strlen(all), t, 3 * 16 * 4, NULL, &m, &err),
                     MN_OK);
    assert_int_equal(m->terms, 3);
    assert_int_equal(m->drop_count, 0);
    mn_arkit_map_free(m);
}

/* The description with one member replaced by `text` (a whole "key": value). */
static mn_status fitted_with(const char *json, const float *t, size_t bytes, mn_error *err)
{
    mn_arkit_map *m = NULL;
    mn_status st = mn_arkit_fitted_map_create(&layout, json, strlen(json), t, bytes, NULL, &m, err);
    mn_arkit_map_free(m);
    return st;
}

/* head + the two channels and one pair every refusal below starts from + tail, in buf. */
static const char *with_base(char *buf, size_t size, const char *head, const char *tail)
{
    snprintf(buf, size, "%s\"channels\": [\"jawOpen\", \"eyeBlinkLeft\"], \"pairs\": [[0, 1]]%s",
             head, tail);
    return buf;
}

static void fitted_refusals(void **state)
{
    (void)state;
    float t[96];
    fitted_table(t);
    mn_error err;
    char json[512];
    /* 2 channels + 1 pair = 3 rows of 16: 192 bytes. */
#define V1 "{\"version\": 1, \"coeffs\": 16, "
    const char *roll = ", \"gaze\": {\"eyeLookUpLeft\": {\"axis\": \"roll\", \"eye\": "
                       "\"left\", \"radians\": 1}}}";
    const char *no_radians = ", \"gaze\": {\"eyeLookUpLeft\": {\"axis\": \"yaw\", "
                             "\"eye\": \"left\"}}}";
    assert_int_equal(fitted_with(with_base(json, sizeof json, V1, "}"), t, 192, &err), MN_OK);
    assert_int_equal(fitted_with(with_base(json, sizeof json, "{\"version\": 2, \"coeffs\": 16, ",
                                           "}"), t, 192, &err),
                     MN_INVALID_VALUE);
    assert_int_equal(fitted_with(with_base(json, sizeof json, "{\"coeffs\": 16, ", "}"), t, 192,
                                 &err),
                     MN_MISSING_PROPERTY);
    assert_int_equal(fitted_with(with_base(json, sizeof json, "{\"version\": 1, \"coeffs\": 15, ",
                                           "}"), t, 180, &err),
                     MN_COUNT_MISMATCH);
    assert_non_null(strstr(err.message, "exprDim"));
    assert_int_equal(fitted_with(with_base(json, sizeof json, V1, "}"), t, 188, &err),
                     MN_COUNT_MISMATCH);
    assert_int_equal(fitted_with(with_base(json, sizeof json, V1 "\"bytes\": 200, ", "}"), t, 192,
                                 &err),
                     MN_COUNT_MISMATCH);
    assert_string_equal(err.path, "bytes");
    assert_int_equal(fitted_with(V1 "\"channels\": [\"jawOpen\"], \"pairs\": [[0, 1]]}", t, 128,
                                 &err),
                     MN_INDEX_RANGE);
    assert_int_equal(fitted_with(V1 "\"channels\": [\"jawOpen\", 3]}", t, 128, &err),
                     MN_JSON_TYPE);
    assert_int_equal(fitted_with(with_base(json, sizeof json, V1, roll), t, 192, &err),
                     MN_INVALID_VALUE);
    assert_int_equal(fitted_with(with_base(json, sizeof json, V1, no_radians), t, 192, &err),
                     MN_MISSING_PROPERTY);
    assert_int_equal(fitted_with("[]", t, 0, &err), MN_JSON_TYPE);
    assert_int_equal(fitted_with("{", t, 0, &err), MN_JSON_SYNTAX);
    float bad[48];
    memcpy(bad, t, sizeof bad);
    bad[20] = NAN;
    assert_int_equal(fitted_with(with_base(json, sizeof json, V1, "}"), bad, 192, &err),
                     MN_NOT_FINITE);
#undef V1
}

/* ---- a head driven through a map --------------------------------------------------------- */

static void head_through_map(void **state)
{
    (void)state;
    synthetic_head src;
    synthetic_head_options o = {.coeff_count = 16};
    synthetic_head_build(&src, &o);
    uint8_t *bytes;
    size_t size;
    mn_aosrig *pack;
    mn_head *head;
    mn_error err;
    assert_int_equal(synthetic_head_pack(&src, &bytes, &size, &err), MN_OK);
    assert_int_equal(mn_aosrig_read_memory(bytes, size, NULL, &pack, &err), MN_OK);
    assert_int_equal(mn_head_create(pack, NULL, &head, &err), MN_OK);
    size_t V = pack->header.vertex_count, dim = pack->header.head_ext.dim;
    float *a = malloc(V * 3 * sizeof *a), *b = malloc(V * 3 * sizeof *b);
    float arkit[52] = {0};
    arkit[ch("jawOpen")] = 0.8f;
    arkit[ch("eyeBlinkLeft")] = 1.0f;
    arkit[ch("eyeLookDownLeft")] = 0.7f;
    assert_int_equal(mn_head_pose_arkit(head, arkit, 52, a, &err), MN_INVALID_ARGUMENT);

    mn_arkit_map *m;
    assert_int_equal(mn_arkit_table_map_create(&pack->header.head_ext, table_json,
                                               strlen(table_json), NULL, &m, &err),
                     MN_OK);
    assert_int_equal(mn_head_set_arkit_map(head, m, &err), MN_OK);
    assert_int_equal(mn_head_pose_arkit(head, arkit, 52, a, &err), MN_OK);
    float controls[64];
    mn_arkit_map_apply(m, arkit, controls);
    assert_int_equal(mn_head_pose(head, controls, dim, b, &err), MN_OK);
    assert_memory_equal(a, b, V * 3 * sizeof *a);
    /* A shorter ARKit vector is zero-padded, a longer one refused. */
    assert_int_equal(mn_head_pose_arkit(head, arkit, 18, a, &err), MN_OK);
    assert_int_equal(mn_head_pose_arkit(head, arkit, 53, a, &err), MN_INVALID_ARGUMENT);
    /* A map of another layout is refused. */
    mn_arkit_map *other;
    mn_aosrig_head_ext small = layout;
    small.dim = 12;
    small.expr_dim = 8;
    small.region_count = 2;
    assert_int_equal(mn_arkit_table_map_create(&small, "{}", 2, NULL, &other, &err), MN_OK);
    assert_int_equal(mn_head_set_arkit_map(head, other, &err), MN_COUNT_MISMATCH);
    mn_arkit_map_free(other);
    /* Removing the map refuses again. */
    assert_int_equal(mn_head_set_arkit_map(head, NULL, &err), MN_OK);
    assert_int_equal(mn_head_pose_arkit(head, arkit, 52, a, &err), MN_INVALID_ARGUMENT);
    mn_arkit_map_free(m);
    free(a);
    free(b);
    mn_head_free(head);
    mn_aosrig_free(pack);
    mn_aosrig_bytes_free(NULL, bytes, size);
    synthetic_head_free(&src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(channel_order),
        cmocka_unit_test(table_map),
        cmocka_unit_test(fitted_map),
        cmocka_unit_test(fitted_terms_are_the_rows_in_use_not_the_rows_listed),
        cmocka_unit_test(fitted_refusals),
        cmocka_unit_test(head_through_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
