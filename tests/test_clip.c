/*
 * Clips and sampling (src/anim/clip_build.c, src/anim/clip.c): the glTF 2.0
 * interpolation modes with exact values, on hand-made tracks and on GLBs
 * built byte by byte; clip building (copy, stable sort, rejected tracks);
 * the cursor's bit-identity with plain sampling; zero allocations while
 * sampling; and the InterpolationTest sample model at its key times.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/clip.h>
#include <marionette/gltf.h>
#include <marionette/math.h>
#include <marionette/pose.h>

#include "anim/clip_internal.h" /* mni_clip_sample_at: each kernel level */
#include "assert_near.h"
#include "assets.h"
#include "counting_alloc.h"
#include "glb_builder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))
#define INTERPOLATION_TEST mn_test_asset("gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb")

/* ---- helpers ------------------------------------------------------------------ */

static mn_track make_track(uint32_t target, mn_anim_path path, mn_interpolation interpolation,
                           const float *times, uint32_t key_count, const float *values,
                           uint32_t components)
{
    mn_track t;
    memset(&t, 0, sizeof t);
    t.target = target;
    t.path = path;
    t.interpolation = interpolation;
    t.times = times;
    t.key_count = key_count;
    t.values = values;
    t.components = components;
    return t;
}

static mn_clip *must_create(const mn_track *tracks, uint32_t count, const mn_clip_options *options)
{
    mn_clip *clip = NULL;
    mn_error err;
    mn_status st = mn_clip_create(tracks, count, "test", options, &clip, &err);
    if (st != MN_OK)
        fail_msg("mn_clip_create: %s", err.message);
    return clip;
}

/* The glTF specification's cubic Hermite spline, in double. */
static double hermite(double v0, double b0, double v1, double a1, double t0, double t1, double t)
{
    double dt = t1 - t0, s = (t - t0) / dt, s2 = s * s, s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * v0 + (s3 - 2 * s2 + s) * dt * b0 + (-2 * s3 + 3 * s2) * v1 +
           (s3 - s2) * dt * a1;
}

/* Expected CUBICSPLINE value, component c, of keys laid out [in, value, out] × components. */
static double cubic_expected(const float *times, const float *values, uint32_t n, uint32_t comps,
                             uint32_t c, double t)
{
    if (t <= times[0])
        return values[comps + c];
    if (t >= times[n - 1])
        return values[(size_t)(n - 1) * 3 * comps + comps + c];
    uint32_t k = 0;
    while (!(t < times[k + 1]))
        k++;
    const float *k0 = values + (size_t)k * 3 * comps, *k1 = k0 + 3 * comps;
    return hermite(k0[comps + c], k0[2 * comps + c], k1[comps + c], k1[c], times[k], times[k + 1], t);
}

static double quat_len(const float q[4])
{
    return sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
}

/* A small deterministic generator (tests must not depend on rand()'s implementation). */
static uint32_t rng_next(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

static float rng_float(uint32_t *state, float lo, float hi)
{
    return lo + (hi - lo) * (float)rng_next(state) / 16777216.0f;
}

static void rng_quat(uint32_t *state, float q[4])
{
    float r[4];
    do {
        for (int i = 0; i < 4; i++)
            r[i] = rng_float(state, -1.0f, 1.0f);
    } while (quat_len(r) < 0.1);
    mn_quat_normalize(q, r);
}

static bool pose_bits_equal(const mn_pose *a, const mn_pose *b)
{
    size_t n = a->joint_count;
    return memcmp(a->translations, b->translations, n * 3 * sizeof(float)) == 0 &&
           memcmp(a->rotations, b->rotations, n * 4 * sizeof(float)) == 0 &&
           memcmp(a->scales, b->scales, n * 3 * sizeof(float)) == 0;
}

/* ---- STEP and LINEAR ------------------------------------------------------------ */

static void step_holds_the_left_key(void **state)
{
    (void)state;
    const float times[] = {0, 1, 2};
    const float values[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    mn_track t = make_track(0, MN_PATH_TRANSLATION, MN_INTERP_STEP, times, 3, values, 3);
    float out[3];
    mn_track_sample(&t, 0.5f, out);
    assert_true(out[0] == 1 && out[1] == 2 && out[2] == 3);
    mn_track_sample(&t, 1.0f, out); /* at a key: that key */
    assert_true(out[0] == 4 && out[1] == 5 && out[2] == 6);
    mn_track_sample(&t, 1.999f, out);
    assert_true(out[0] == 4 && out[1] == 5 && out[2] == 6);
    mn_track_sample(&t, 2.0f, out);
    assert_true(out[0] == 7 && out[1] == 8 && out[2] == 9);
}

static void linear_lerps_translation_and_scale(void **state)
{
    (void)state;
    const float times[] = {1, 3};
    const float values[] = {0, 10, -4, 2, 20, 4};
    mn_track t = make_track(0, MN_PATH_SCALE, MN_INTERP_LINEAR, times, 2, values, 3);
    float out[3];
    mn_track_sample(&t, 2.0f, out); /* the midpoint */
    assert_true(out[0] == 1 && out[1] == 15 && out[2] == 0);
    mn_track_sample(&t, 1.5f, out);
    assert_true(out[0] == 0.5f && out[1] == 12.5f && out[2] == -2);
    mn_track_sample(&t, 1.0f, out);
    assert_true(out[0] == 0 && out[1] == 10 && out[2] == -4);
}

static void linear_rotation_takes_the_short_arc_to_a_key_in_the_other_hemisphere(void **state)
{
    (void)state;
    /* Key 1 is a 90° turn about z stored as -q: dot(key0, key1) < 0. */
    const float h = 0.70710678118654752f;
    const float times[] = {0, 1};
    const float values[] = {0, 0, 0, 1, 0, 0, -h, -h};
    mn_track t = make_track(0, MN_PATH_ROTATION, MN_INTERP_LINEAR, times, 2, values, 4);
    float out[4], ref[4];
    mn_track_sample(&t, 0.5f, out);
    /* Half of the short arc is 45° about z; the long arc would be -135°. */
    const float expect[4] = {0, 0, sinf(0.39269908169872414f), cosf(0.39269908169872414f)};
    assert_vec_near(out, expect, 4, 1e-6);
    mn_quat_slerp(ref, values, values + 4, 0.5f);
    assert_vec_near(out, ref, 4, 1e-6);
    mn_track_sample(&t, 0.25f, out);
    const float quarter[4] = {0, 0, sinf(0.19634954084936207f), cosf(0.19634954084936207f)};
    assert_vec_near(out, quarter, 4, 1e-6);
}

static void rotation_keys_crossing_the_hemisphere_stay_on_the_short_arc(void **state)
{
    (void)state;
    /* Turns about y of 0°, 170°, 190°, 300°; the 170° and 300° keys are stored negated. */
    const float deg[] = {0, 170, 190, 300};
    const float sign[] = {1, -1, 1, -1};
    float values[16];
    for (int k = 0; k < 4; k++) {
        float half = deg[k] * 3.14159265358979f / 360.0f;
        const float q[4] = {0, sign[k] * sinf(half), 0, sign[k] * cosf(half)};
        memcpy(values + 4 * k, q, sizeof q);
    }
    const float times[] = {0, 1, 2, 3};
    mn_track t = make_track(0, MN_PATH_ROTATION, MN_INTERP_LINEAR, times, 4, values, 4);
    for (int i = 0; i < 60; i++) {
        float time = 0.05f * (float)i, out[4], ref[4];
        mn_track_sample(&t, time, out);
        uint32_t k = (uint32_t)time;
        float s = time - (float)k;
        mn_quat_slerp(ref, values + 4 * k, values + 4 * (k + 1), s);
        assert_vec_near(out, ref, 4, 1e-6);
        /* The angle moves monotonically along the short arcs: 0→170, 170→190, 190→300. */
        double a0 = deg[k], a1 = deg[k + 1];
        double expect_deg = a0 + (a1 - a0) * s;
        double half = expect_deg * 3.14159265358979 / 360.0;
        double dot = fabs(out[1] * sin(half) + out[3] * cos(half));
        assert_float_near(dot, 1.0, 1e-6);
    }
    /* The middle of the 170°→190° span is the half turn, whatever the stored signs. */
    float out[4];
    mn_track_sample(&t, 1.5f, out);
    assert_float_near(fabsf(out[1]), 1.0, 1e-6);
    assert_float_near(out[3], 0.0, 1e-6);
}

static void linear_rotation_agrees_with_mn_quat_slerp(void **state)
{
    (void)state;
    uint32_t rng = 12345;
    for (int i = 0; i < 2000; i++) {
        float values[8];
        rng_quat(&rng, values);
        if (i % 3 == 0) {
            /* Nearly parallel (the normalised-lerp branch), sometimes negated. */
            float b[4];
            for (int c = 0; c < 4; c++)
                b[c] = values[c] + rng_float(&rng, -0.01f, 0.01f);
            mn_quat_normalize(values + 4, b);
            if (i % 2)
                for (int c = 4; c < 8; c++)
                    values[c] = -values[c];
        } else {
            rng_quat(&rng, values + 4);
        }
        const float times[] = {0, 1};
        mn_track t = make_track(0, MN_PATH_ROTATION, MN_INTERP_LINEAR, times, 2, values, 4);
        float s = rng_float(&rng, 0.0f, 1.0f), out[4], ref[4];
        mn_track_sample(&t, s, out);
        mn_quat_slerp(ref, values, values + 4, s);
        assert_vec_near(out, ref, 4, 1e-6);
    }
    /* Across the whole range of |dot|, up to and across the normalised-lerp threshold. */
    const double dots[] = {0.0, 1e-4, 0.25, 0.4999, 0.5, 0.5001, 0.75, 0.9, 0.99, 0.9994, 0.99949, 0.99951, 0.99999};
    for (size_t i = 0; i < COUNT_OF(dots); i++) {
        for (int flip = 0; flip < 2; flip++) {
            float values[8], turn[4];
            rng_quat(&rng, values);
            const float axis[3] = {rng_float(&rng, -1, 1), 1.0f, rng_float(&rng, -1, 1)};
            mn_quat_from_axis_angle(turn, axis, (float)(2.0 * acos(dots[i])));
            mn_quat_mul(values + 4, values, turn);
            if (flip)
                for (int c = 4; c < 8; c++)
                    values[c] = -values[c];
            const float times[] = {0, 1};
            mn_track t = make_track(0, MN_PATH_ROTATION, MN_INTERP_LINEAR, times, 2, values, 4);
            for (int k = 0; k <= 64; k++) {
                float s = (float)k / 64.0f, out[4], ref[4];
                mn_track_sample(&t, s * 0.999999f, out);
                mn_quat_slerp(ref, values, values + 4, s * 0.999999f);
                assert_vec_near(out, ref, 4, 1e-6);
            }
        }
    }
}

/* ---- CUBICSPLINE ------------------------------------------------------------------ */

static void cubic_spline_with_uneven_key_spacing_is_the_hermite_spline(void **state)
{
    (void)state;
    /* Four keys 0.5, 1.5 and 0.25 s apart: the tangents scale with each interval. */
    const float times[] = {0, 0.5f, 2.0f, 2.25f};
    const float values[] = {
        /* in            value          out */
        9, 9, 9,         0, 1, -1,      4, 0, 2,
        -2, 1, 0,        1, 3, 0.5f,    -1, -3, 0.25f,
        0.5f, 2, -2,     -2, 0, 4,      3, 1, -1,
        1, 1, 1,         5, -5, 0,      7, 7, 7,
    };
    mn_track t = make_track(0, MN_PATH_TRANSLATION, MN_INTERP_CUBICSPLINE, times, 4, values, 3);
    float out[3];
    /* s = 0.5 in [0, 0.5]: 0.5·0 + 0.0625·4 + 0.5·1 - 0.0625·(-2) = 0.875, exact in float. */
    mn_track_sample(&t, 0.25f, out);
    assert_true(out[0] == 0.875f);
    for (int i = -4; i <= 240; i++) {
        float time = 0.01f * (float)i;
        mn_track_sample(&t, time, out);
        for (uint32_t c = 0; c < 3; c++)
            assert_float_near(out[c], cubic_expected(times, values, 4, 3, c, time), 1e-5);
    }
    /* At a key: its value element, exactly; past the ends: the end values. */
    mn_track_sample(&t, 2.0f, out);
    assert_true(out[0] == -2 && out[1] == 0 && out[2] == 4);
    mn_track_sample(&t, -1.0f, out);
    assert_true(out[0] == 0 && out[1] == 1 && out[2] == -1);
    mn_track_sample(&t, 9.0f, out);
    assert_true(out[0] == 5 && out[1] == -5 && out[2] == 0);
}

static void cubic_spline_rotation_is_normalised_after_the_spline(void **state)
{
    (void)state;
    const float times[] = {0, 2};
    const float values[] = {
        0, 0, 0, 0,    0, 0, 0, 1,          0, 0, 1, 0,
        0, 0, 1, 0,    0, 0, 0.6f, 0.8f,    0, 0, 0, 0,
    };
    mn_track t = make_track(0, MN_PATH_ROTATION, MN_INTERP_CUBICSPLINE, times, 2, values, 4);
    for (int i = 0; i <= 20; i++) {
        float time = 0.1f * (float)i, out[4];
        mn_track_sample(&t, time, out);
        double q[4], len = 0;
        for (uint32_t c = 0; c < 4; c++) {
            q[c] = cubic_expected(times, values, 2, 4, c, time);
            len += q[c] * q[c];
        }
        len = sqrt(len);
        for (uint32_t c = 0; c < 4; c++)
            assert_float_near(out[c], q[c] / len, 1e-6);
        assert_float_near(quat_len(out), 1.0, 1e-6);
    }
}

/* ---- normalisation, clamping, degenerate keys ----------------------------------------------- */

static void every_sampled_rotation_is_normalised_even_from_off_unit_keys(void **state)
{
    (void)state;
    const float times[] = {0, 1};
    const float lin[] = {0, 0, 0, 1.02f, 0, 0.6f * 0.98f, 0, 0.8f * 0.98f};
    const float unit1[4] = {0, 0.6f, 0, 0.8f};
    float out[4];
    for (int mode = 0; mode < 2; mode++) {
        mn_track t = make_track(0, MN_PATH_ROTATION, mode ? MN_INTERP_STEP : MN_INTERP_LINEAR,
                                times, 2, lin, 4);
        mn_track_sample(&t, -1.0f, out); /* clamped before */
        assert_true(out[0] == 0 && out[1] == 0 && out[2] == 0 && out[3] == 1);
        mn_track_sample(&t, 0.0f, out); /* at the first key */
        assert_true(out[0] == 0 && out[1] == 0 && out[2] == 0 && out[3] == 1);
        mn_track_sample(&t, 0.4f, out);
        assert_float_near(quat_len(out), 1.0, 1e-6);
        mn_track_sample(&t, 5.0f, out); /* clamped after */
        assert_vec_near(out, unit1, 4, 1e-7);
    }
    float ref[4];
    mn_track lt = make_track(0, MN_PATH_ROTATION, MN_INTERP_LINEAR, times, 2, lin, 4);
    mn_track_sample(&lt, 0.4f, out);
    mn_quat_slerp(ref, lin, lin + 4, 0.4f);
    assert_vec_near(out, ref, 4, 1e-6);

    const float cubic[] = {0, 0, 0, 0, 0, 0, 0, 1.1f, 0, 0, 0, 0,
                           0, 0, 0, 0, 0, 0.6f * 0.9f, 0, 0.8f * 0.9f, 0, 0, 0, 0};
    mn_track ct = make_track(0, MN_PATH_ROTATION, MN_INTERP_CUBICSPLINE, times, 2, cubic, 4);
    mn_track_sample(&ct, 0.0f, out);
    assert_true(out[0] == 0 && out[1] == 0 && out[2] == 0 && out[3] == 1);
    mn_track_sample(&ct, 0.5f, out);
    assert_float_near(quat_len(out), 1.0, 1e-6);
    mn_track_sample(&ct, 1.0f, out);
    assert_vec_near(out, unit1, 4, 1e-7);

    /* A zero key has no direction: identity, as mn_quat_normalize gives. */
    const float zero[] = {0, 0, 0, 0};
    mn_track zt = make_track(0, MN_PATH_ROTATION, MN_INTERP_STEP, times, 1, zero, 4);
    mn_track_sample(&zt, 0.0f, out);
    assert_true(out[0] == 0 && out[1] == 0 && out[2] == 0 && out[3] == 1);
}

static void times_outside_the_keys_clamp_to_the_end_keys(void **state)
{
    (void)state;
    const float times[] = {1, 2};
    const float values[] = {3, 4, 5, 6, 7, 8};
    const float cubic[] = {9, 9, 9, 3, 4, 5, 9, 9, 9, 9, 9, 9, 6, 7, 8, 9, 9, 9};
    const float probes[] = {0.0f, -INFINITY, NAN, 2.0f, 3.0f, INFINITY};
    const int expect_last[] = {0, 0, 0, 1, 1, 1};
    for (int mode = 0; mode < 3; mode++) {
        mn_interpolation interp = mode == 0 ? MN_INTERP_LINEAR : mode == 1 ? MN_INTERP_STEP
                                                                            : MN_INTERP_CUBICSPLINE;
        mn_track t = make_track(0, MN_PATH_TRANSLATION, interp, times, 2,
                                mode == 2 ? cubic : values, 3);
        for (size_t i = 0; i < COUNT_OF(probes); i++) {
            float out[3];
            mn_track_sample(&t, probes[i], out);
            const float *want = values + 3 * expect_last[i];
            assert_true(out[0] == want[0] && out[1] == want[1] && out[2] == want[2]);
        }
    }
}

static void equal_key_times_take_the_right_key(void **state)
{
    (void)state;
    const float times[] = {0, 1, 1, 2};
    const float values[] = {0, 0, 0, 10, 0, 0, 20, 0, 0, 30, 0, 0};
    float out[3];
    mn_track lin = make_track(0, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, times, 4, values, 3);
    mn_track_sample(&lin, 0.5f, out);
    assert_true(out[0] == 5);
    mn_track_sample(&lin, 1.0f, out); /* the jump: the right key of the pair */
    assert_true(out[0] == 20);
    mn_track_sample(&lin, 1.5f, out);
    assert_true(out[0] == 25);
    mn_track step = make_track(0, MN_PATH_TRANSLATION, MN_INTERP_STEP, times, 4, values, 3);
    mn_track_sample(&step, 0.99f, out);
    assert_true(out[0] == 0);
    mn_track_sample(&step, 1.0f, out);
    assert_true(out[0] == 20);

    /* CUBICSPLINE never divides by the zero interval. */
    float cubic[36];
    for (int k = 0; k < 4; k++)
        for (int e = 0; e < 9; e++)
            cubic[9 * k + e] = e >= 3 && e < 6 ? values[3 * k + e - 3] : 1.0f;
    mn_track cub = make_track(0, MN_PATH_TRANSLATION, MN_INTERP_CUBICSPLINE, times, 4, cubic, 3);
    for (int i = 0; i <= 20; i++) {
        mn_track_sample(&cub, 0.1f * (float)i, out);
        assert_true(isfinite(out[0]) && isfinite(out[1]) && isfinite(out[2]));
    }
    mn_track_sample(&cub, 1.0f, out);
    assert_true(out[0] == 20);

    /* Duplicates at the ends: the first time goes to the later key, the last time to the last. */
    const float start[] = {0, 0, 1}, end[] = {0, 1, 1};
    mn_track s = make_track(0, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, start, 3, values, 3);
    mn_track_sample(&s, 0.0f, out);
    assert_true(out[0] == 10);
    mn_track e = make_track(0, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, end, 3, values, 3);
    mn_track_sample(&e, 1.0f, out);
    assert_true(out[0] == 20);
}

static void a_single_key_is_constant(void **state)
{
    (void)state;
    const float times[] = {0.5f};
    const float values[] = {1, 2, 3};
    const float cubic[] = {7, 7, 7, 1, 2, 3, 8, 8, 8};
    for (int mode = 0; mode < 3; mode++) {
        mn_interpolation interp = mode == 0 ? MN_INTERP_LINEAR : mode == 1 ? MN_INTERP_STEP
                                                                            : MN_INTERP_CUBICSPLINE;
        mn_track t = make_track(0, MN_PATH_TRANSLATION, interp, times, 1, mode == 2 ? cubic : values, 3);
        const float probes[] = {-5, 0.5f, 0.75f, 100};
        for (size_t i = 0; i < COUNT_OF(probes); i++) {
            float out[3];
            mn_track_sample(&t, probes[i], out);
            assert_true(out[0] == 1 && out[1] == 2 && out[2] == 3);
        }
    }
    /* No keys: out is left alone. */
    mn_track none = make_track(0, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, NULL, 0, NULL, 3);
    float out[3] = {-1, -1, -1};
    mn_track_sample(&none, 0.0f, out);
    assert_true(out[0] == -1 && out[1] == -1 && out[2] == -1);
}

static void weights_tracks_interpolate_every_component_unnormalised(void **state)
{
    (void)state;
    const float times[] = {0, 2};
    const float lin[] = {0, 0.5f, 1, 1, 0.5f, 0};
    const float cubic[] = {0, 0, 0, 0, 2, 4, 0, 0, 0, 0, 0, 0, 2, 4, 8, 0, 0, 0};
    mn_track tracks[] = {
        make_track(3, MN_PATH_WEIGHTS, MN_INTERP_LINEAR, times, 2, lin, 3),
        make_track(5, MN_PATH_WEIGHTS, MN_INTERP_STEP, times, 2, lin, 3),
        make_track(6, MN_PATH_WEIGHTS, MN_INTERP_CUBICSPLINE, times, 2, cubic, 3),
    };
    mn_clip *clip = must_create(tracks, 3, NULL);
    float out[3] = {-1, -1, -1};
    assert_true(mn_clip_sample_weights(clip, 1.0f, 3, out, 3));
    assert_true(out[0] == 0.5f && out[1] == 0.5f && out[2] == 0.5f);
    assert_true(mn_clip_sample_weights(clip, 1.5f, 3, out, 3));
    assert_true(out[0] == 0.75f && out[1] == 0.5f && out[2] == 0.25f);
    float two[3] = {-1, -1, -1};
    assert_true(mn_clip_sample_weights(clip, 0.5f, 3, two, 2)); /* only count values */
    assert_true(two[0] == 0.25f && two[1] == 0.5f && two[2] == -1);
    assert_true(mn_clip_sample_weights(clip, 1.9f, 5, out, 3));
    assert_true(out[0] == 0 && out[1] == 0.5f && out[2] == 1);
    assert_true(mn_clip_sample_weights(clip, 1.0f, 6, out, 3)); /* halfway, zero tangents */
    assert_true(out[0] == 1 && out[1] == 3 && out[2] == 6);
    float untouched[3] = {-1, -1, -1};
    assert_false(mn_clip_sample_weights(clip, 1.0f, 4, untouched, 3));
    assert_true(untouched[0] == -1 && untouched[1] == -1 && untouched[2] == -1);

    /* mn_clip_sample leaves weights alone: the pose keeps what it held. */
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, 8, NULL, NULL), MN_OK);
    assert_int_equal(mn_clip_sample(clip, 1.0f, &pose, NULL), MN_OK);
    for (uint32_t j = 0; j < 8; j++)
        assert_true(pose.translations[3 * j] == 0 && pose.rotations[4 * j + 3] == 1 &&
                    pose.scales[3 * j] == 1);
    /* And mn_track_sample writes all components of a weights track. */
    mn_track_sample(&tracks[0], 1.0f, out);
    assert_true(out[0] == 0.5f && out[1] == 0.5f && out[2] == 0.5f);
    mn_pose_free(&pose);
    mn_clip_free(clip);
}

/* ---- building clips ---------------------------------------------------------------- */

static void create_copies_keys_and_reports_name_duration_and_tracks(void **state)
{
    (void)state;
    float times[] = {0, 1.5f};
    float values[] = {1, 2, 3, 4, 5, 6};
    float times2[] = {0.25f, 0.75f, 1.0f};
    float values2[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    mn_track tracks[] = {
        make_track(0, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, times, 2, values, 3),
        make_track(1, MN_PATH_ROTATION, MN_INTERP_STEP, times2, 3, values2, 4),
        make_track(2, MN_PATH_SCALE, MN_INTERP_LINEAR, NULL, 0, NULL, 3),
    };
    mn_clip *clip = NULL;
    assert_int_equal(mn_clip_create(tracks, 3, "walk", NULL, &clip, NULL), MN_OK);
    assert_string_equal(mn_clip_name(clip), "walk");
    assert_true(mn_clip_duration(clip) == 1.5f);
    assert_int_equal(mn_clip_track_count(clip), 3);
    assert_null(mn_clip_track(clip, 3));
    const mn_track *t0 = mn_clip_track(clip, 0);
    assert_non_null(t0);
    assert_ptr_not_equal(t0->times, times); /* copied */
    /* The caller's arrays may go away. */
    memset(times, 0, sizeof times);
    memset(values, 0, sizeof values);
    float out[3];
    mn_track_sample(t0, 0.75f, out);
    assert_true(out[0] == 2.5f && out[1] == 3.5f && out[2] == 4.5f);
    assert_int_equal(mn_clip_track(clip, 1)->key_count, 3);
    assert_int_equal(mn_clip_track(clip, 1)->target, 1);
    assert_int_equal(mn_clip_track(clip, 2)->key_count, 0);
    mn_clip_free(clip);

    /* Unnamed and empty clips. */
    assert_int_equal(mn_clip_create(NULL, 0, NULL, NULL, &clip, NULL), MN_OK);
    assert_string_equal(mn_clip_name(clip), "");
    assert_true(mn_clip_duration(clip) == 0.0f);
    assert_int_equal(mn_clip_track_count(clip), 0);
    mn_clip_free(clip);
    mn_clip_free(NULL);
}

static void unsorted_keys_are_sorted_stably_with_their_values(void **state)
{
    (void)state;
    const float times[] = {2, 0, 1, 1, 0.5f};
    float values[15], cubic[45];
    for (int k = 0; k < 5; k++) {
        for (int c = 0; c < 3; c++)
            values[3 * k + c] = 10.0f * (float)k + (float)c;
        for (int e = 0; e < 9; e++)
            cubic[9 * k + e] = 100.0f * (float)k + (float)e;
    }
    mn_track tracks[] = {
        make_track(0, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, times, 5, values, 3),
        make_track(1, MN_PATH_SCALE, MN_INTERP_CUBICSPLINE, times, 5, cubic, 3),
    };
    mn_clip *clip = must_create(tracks, 2, NULL);
    /* Sorted order: key 1 (0), key 4 (0.5), key 2 (1), key 3 (1, after key 2: stable), key 0 (2). */
    const int order[] = {1, 4, 2, 3, 0};
    const float sorted[] = {0, 0.5f, 1, 1, 2};
    const mn_track *lin = mn_clip_track(clip, 0), *cub = mn_clip_track(clip, 1);
    for (int i = 0; i < 5; i++) {
        assert_true(lin->times[i] == sorted[i]);
        assert_true(cub->times[i] == sorted[i]);
        assert_memory_equal(lin->values + 3 * i, values + 3 * order[i], 3 * sizeof(float));
        /* A cubic key's in-tangent, value and out-tangent move together. */
        assert_memory_equal(cub->values + 9 * i, cubic + 9 * order[i], 9 * sizeof(float));
    }
    assert_true(mn_clip_duration(clip) == 2.0f);
    float out[3];
    mn_track_sample(lin, 1.0f, out); /* the right key of the equal pair: input key 3 */
    assert_true(out[0] == 30 && out[1] == 31 && out[2] == 32);
    mn_track_sample(lin, 0.25f, out); /* between input keys 1 and 4 */
    assert_true(out[0] == 25 && out[1] == 26 && out[2] == 27);
    assert_true(times[0] == 2); /* the input is not touched */
    mn_clip_free(clip);
}

static void non_finite_key_times_are_rejected_naming_the_track(void **state)
{
    (void)state;
    const float good[] = {0, 1}, nan_times[] = {0, NAN}, inf_times[] = {-INFINITY, 1};
    const float values[] = {0, 0, 0, 1, 1, 1};
    mn_track tracks[] = {
        make_track(0, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, good, 2, values, 3),
        make_track(1, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, nan_times, 2, values, 3),
    };
    mn_clip *clip = (mn_clip *)&clip;
    mn_error err;
    assert_int_equal(mn_clip_create(tracks, 2, NULL, NULL, &clip, &err), MN_NOT_FINITE);
    assert_null(clip);
    assert_int_equal(err.code, MN_NOT_FINITE);
    assert_string_equal(err.path, "tracks[1]");
    assert_int_equal(strncmp(err.message, "tracks[1]: key 1", 16), 0);
    tracks[1].times = inf_times;
    assert_int_equal(mn_clip_create(tracks, 2, NULL, NULL, &clip, &err), MN_NOT_FINITE);
    assert_int_equal(strncmp(err.message, "tracks[1]: key 0", 16), 0);
}

static void component_counts_must_match_the_path(void **state)
{
    (void)state;
    const float times[] = {0};
    const float values[] = {0, 0, 0, 1};
    struct {
        mn_anim_path path;
        uint32_t components;
        mn_status expect;
    } cases[] = {
        {MN_PATH_TRANSLATION, 4, MN_INVALID_ARGUMENT}, {MN_PATH_TRANSLATION, 3, MN_OK},
        {MN_PATH_ROTATION, 3, MN_INVALID_ARGUMENT},    {MN_PATH_ROTATION, 4, MN_OK},
        {MN_PATH_SCALE, 1, MN_INVALID_ARGUMENT},       {MN_PATH_SCALE, 3, MN_OK},
        {MN_PATH_WEIGHTS, 0, MN_INVALID_ARGUMENT},     {MN_PATH_WEIGHTS, 4, MN_OK},
    };
    for (size_t i = 0; i < COUNT_OF(cases); i++) {
        mn_track tracks[2] = {
            make_track(0, MN_PATH_SCALE, MN_INTERP_STEP, times, 1, values, 3),
            make_track(0, cases[i].path, MN_INTERP_LINEAR, times, 1, values, cases[i].components),
        };
        mn_clip *clip = NULL;
        mn_error err;
        assert_int_equal(mn_clip_create(tracks, 2, NULL, NULL, &clip, &err), cases[i].expect);
        if (cases[i].expect == MN_OK) {
            mn_clip_free(clip);
            continue;
        }
        assert_null(clip);
        assert_string_equal(err.path, "tracks[1]");
        assert_int_equal(strncmp(err.message, "tracks[1]: ", 11), 0);
    }
    /* NULL arrays, bad enums, NULL outputs. */
    mn_clip *clip = NULL;
    mn_error err;
    mn_track t = make_track(0, MN_PATH_SCALE, MN_INTERP_STEP, NULL, 1, values, 3);
    assert_int_equal(mn_clip_create(&t, 1, NULL, NULL, &clip, &err), MN_INVALID_ARGUMENT);
    assert_string_equal(err.path, "tracks[0]");
    t = make_track(0, (mn_anim_path)7, MN_INTERP_STEP, times, 1, values, 3);
    assert_int_equal(mn_clip_create(&t, 1, NULL, NULL, &clip, &err), MN_INVALID_ARGUMENT);
    t = make_track(0, MN_PATH_SCALE, (mn_interpolation)9, times, 1, values, 3);
    assert_int_equal(mn_clip_create(&t, 1, NULL, NULL, &clip, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_clip_create(NULL, 1, NULL, NULL, &clip, &err), MN_INVALID_ARGUMENT);
    t = make_track(0, MN_PATH_SCALE, MN_INTERP_STEP, times, 1, values, 3);
    assert_int_equal(mn_clip_create(&t, 1, NULL, NULL, NULL, &err), MN_INVALID_ARGUMENT);
}

static void building_under_failing_allocations_frees_everything(void **state)
{
    (void)state;
    const float times[] = {1, 0}; /* unsorted: the build also takes sorting scratch */
    const float values[] = {0, 0, 0, 1, 1, 1};
    mn_track t = make_track(0, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, times, 2, values, 3);
    for (long fail = 0; fail < 3; fail++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = fail;
        mn_clip_options options = {.allocator = mn_counting_allocator(&counter)};
        mn_clip *clip = NULL;
        mn_error err;
        mn_status st = mn_clip_create(&t, 1, "x", &options, &clip, &err);
        if (fail < 2) {
            assert_int_equal(st, MN_OUT_OF_MEMORY);
            assert_null(clip);
        } else {
            assert_int_equal(st, MN_OK);
            assert_int_equal(counter.live_bytes, counter.peak_bytes - 16);
            mn_clip_free(clip);
        }
        assert_int_equal(counter.live_bytes, 0);
    }
}

/* ---- pose sampling --------------------------------------------------------------------- */

static void clip_sample_writes_tracked_properties_and_keeps_the_rest(void **state)
{
    (void)state;
    const float times[] = {0, 1};
    const float rot[] = {0, 0, 0, 1, 0, 1, 0, 0};
    const float trans[] = {0, 0, 0, 2, 4, 6};
    mn_track tracks[] = {
        make_track(1, MN_PATH_ROTATION, MN_INTERP_STEP, times, 2, rot, 4),
        make_track(2, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, times, 2, trans, 3),
        make_track(9, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, times, 2, trans, 3), /* beyond the pose */
    };
    mn_clip *clip = must_create(tracks, 3, NULL);
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, 4, NULL, NULL), MN_OK);
    const float rest_t[3] = {7, 8, 9}, rest_s[3] = {2, 2, 2}, rest_r[4] = {0.6f, 0, 0, 0.8f};
    for (uint32_t j = 0; j < 4; j++)
        assert_int_equal(mn_pose_set_joint(&pose, j, rest_t, rest_r, rest_s, NULL), MN_OK);
    assert_int_equal(mn_clip_sample(clip, 0.5f, &pose, NULL), MN_OK);
    /* Joint 1: rotation from the clip, translation and scale kept. */
    assert_true(pose.rotations[4] == 0 && pose.rotations[5] == 0 && pose.rotations[7] == 1);
    assert_memory_equal(pose.translations + 3, rest_t, sizeof rest_t);
    assert_memory_equal(pose.scales + 3, rest_s, sizeof rest_s);
    /* Joint 2: translation from the clip, the rest kept. */
    assert_true(pose.translations[6] == 1 && pose.translations[7] == 2 && pose.translations[8] == 3);
    assert_memory_equal(pose.rotations + 8, rest_r, sizeof rest_r);
    /* Joints 0 and 3: no track mentions them. */
    for (uint32_t j = 0; j < 4; j += 3) {
        assert_memory_equal(pose.translations + 3 * j, rest_t, sizeof rest_t);
        assert_memory_equal(pose.rotations + 4 * j, rest_r, sizeof rest_r);
        assert_memory_equal(pose.scales + 3 * j, rest_s, sizeof rest_s);
    }
    mn_pose_free(&pose);
    mn_clip_free(clip);
}

/* A clip of many tracks over every mode, with duplicate times and sign-flipped rotations. */
static mn_clip *random_clip(uint32_t seed, uint32_t joint_count, float **storage, const mn_clip_options *options)
{
    uint32_t rng = seed;
    uint32_t track_count = joint_count * 3;
    mn_track *tracks = calloc(track_count, sizeof *tracks);
    size_t floats = 0;
    uint32_t keys[256];
    assert_true(track_count <= 256);
    for (uint32_t i = 0; i < track_count; i++) {
        keys[i] = 1 + rng_next(&rng) % 40;
        floats += keys[i] * (1 + 12);
    }
    float *data = calloc(floats, sizeof *data);
    float *at = data;
    for (uint32_t i = 0; i < track_count; i++) {
        mn_anim_path path = (mn_anim_path)(i % 3);
        mn_interpolation interp = (mn_interpolation)(rng_next(&rng) % 3);
        uint32_t comps = path == MN_PATH_ROTATION ? 4 : 3;
        uint32_t per_key = comps * (interp == MN_INTERP_CUBICSPLINE ? 3 : 1);
        float *times = at, *values = at + keys[i];
        at += keys[i] * (1 + 12);
        float time = rng_float(&rng, -0.5f, 0.5f);
        for (uint32_t k = 0; k < keys[i]; k++) {
            if (rng_next(&rng) % 8 != 0) /* one key in eight repeats the time before it */
                time += rng_float(&rng, 0.001f, 0.2f);
            times[k] = time;
            float *v = values + k * per_key;
            for (uint32_t e = 0; e < per_key; e++)
                v[e] = rng_float(&rng, -2.0f, 2.0f);
            if (path == MN_PATH_ROTATION && interp != MN_INTERP_CUBICSPLINE) {
                rng_quat(&rng, v);
                if (rng_next(&rng) % 2)
                    for (int c = 0; c < 4; c++)
                        v[c] = -v[c];
            }
        }
        tracks[i] = make_track(i / 3, path, interp, times, keys[i], values, comps);
    }
    mn_clip *clip = NULL;
    mn_error err;
    assert_int_equal(mn_clip_create(tracks, track_count, "random", options, &clip, &err), MN_OK);
    free(tracks);
    *storage = data;
    return clip;
}

static void cursor_gives_the_same_bits_forward_backward_and_at_random(void **state)
{
    (void)state;
    float *data;
    mn_clip *clip = random_clip(99, 40, &data, NULL);
    mn_pose plain, cursored;
    assert_int_equal(mn_pose_create(&plain, 40, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_create(&cursored, 40, NULL, NULL), MN_OK);
    size_t bytes = mn_clip_cursor_storage_size(clip);
    assert_int_equal(bytes, 120 * sizeof(uint32_t));
    uint32_t *spans = malloc(bytes);
    mn_clip_cursor cursor;
    mn_clip_cursor_init(&cursor, clip, spans);
    float duration = mn_clip_duration(clip);

    /* Forward playback at 60 Hz (and at 7 Hz, skipping spans), then scrubbing backwards. */
    const float steps[] = {1.0f / 60.0f, 1.0f / 7.0f, -1.0f / 60.0f, -0.3f};
    for (size_t s = 0; s < COUNT_OF(steps); s++) {
        float t = steps[s] > 0 ? -1.0f : duration + 1.0f;
        for (int frame = 0; frame < 2000 && t >= -1.0f && t <= duration + 1.0f; frame++) {
            assert_int_equal(mn_clip_sample(clip, t, &plain, NULL), MN_OK);
            assert_int_equal(mn_clip_sample_cursor(clip, t, &cursor, &cursored, NULL), MN_OK);
            assert_true(pose_bits_equal(&plain, &cursored));
            t += steps[s];
        }
    }
    /* Random times, and exactly every key time of every track. */
    uint32_t rng = 7;
    for (int i = 0; i < 3000; i++) {
        float t = rng_float(&rng, -1.0f, duration + 1.0f);
        assert_int_equal(mn_clip_sample(clip, t, &plain, NULL), MN_OK);
        assert_int_equal(mn_clip_sample_cursor(clip, t, &cursor, &cursored, NULL), MN_OK);
        assert_true(pose_bits_equal(&plain, &cursored));
    }
    for (uint32_t i = 0; i < mn_clip_track_count(clip); i++) {
        const mn_track *tr = mn_clip_track(clip, i);
        for (uint32_t k = 0; k < tr->key_count; k++) {
            assert_int_equal(mn_clip_sample(clip, tr->times[k], &plain, NULL), MN_OK);
            assert_int_equal(mn_clip_sample_cursor(clip, tr->times[k], &cursor, &cursored, NULL),
                             MN_OK);
            assert_true(pose_bits_equal(&plain, &cursored));
        }
    }
    /* Each track agrees with mn_track_sample too. */
    for (uint32_t i = 0; i < mn_clip_track_count(clip); i++) {
        const mn_track *tr = mn_clip_track(clip, i);
        float out[4];
        mn_track_sample(tr, 0.37f, out);
        assert_int_equal(mn_clip_sample(clip, 0.37f, &plain, NULL), MN_OK);
        const float *p = tr->path == MN_PATH_TRANSLATION ? plain.translations + 3 * tr->target
                         : tr->path == MN_PATH_ROTATION  ? plain.rotations + 4 * tr->target
                                                         : plain.scales + 3 * tr->target;
        assert_memory_equal(out, p, tr->components * sizeof(float));
    }
    /* A cursor of another clip is not trusted. */
    mn_clip_cursor stranger = {.clip = NULL, .spans = spans};
    assert_int_equal(mn_clip_sample_cursor(clip, 0.2f, &stranger, &cursored, NULL), MN_OK);
    assert_int_equal(mn_clip_sample(clip, 0.2f, &plain, NULL), MN_OK);
    assert_true(pose_bits_equal(&plain, &cursored));
    free(spans);
    free(data);
    mn_pose_free(&plain);
    mn_pose_free(&cursored);
    mn_clip_free(clip);
}

static void sampling_allocates_nothing(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_clip_options options = {.allocator = mn_counting_allocator(&counter)};
    float *data;
    mn_clip *clip = random_clip(3, 16, &data, &options);
    const float wt[] = {0, 1}, wv[] = {0, 1, 1, 0};
    mn_track wtrack = make_track(2, MN_PATH_WEIGHTS, MN_INTERP_LINEAR, wt, 2, wv, 2);
    mn_clip *weights = NULL;
    assert_int_equal(mn_clip_create(&wtrack, 1, NULL, &options, &weights, NULL), MN_OK);
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, 16, &options.allocator, NULL), MN_OK);
    uint32_t spans[48];
    assert_true(mn_clip_cursor_storage_size(clip) <= sizeof spans);
    mn_clip_cursor cursor;
    mn_clip_cursor_init(&cursor, clip, spans);
    mn_channel channel = {.node = 0, .path = MN_PATH_WEIGHTS, .interpolation = MN_INTERP_LINEAR,
                          .times = wt, .values = wv, .key_count = 2, .components = 2};
    size_t allocs = counter.allocs, frees = counter.frees;
    assert_true(allocs >= 3);
    for (int i = 0; i < 200; i++) {
        float t = (float)i / 60.0f, out[4];
        assert_int_equal(mn_clip_sample(clip, t, &pose, NULL), MN_OK);
        assert_int_equal(mn_clip_sample_cursor(clip, t, &cursor, &pose, NULL), MN_OK);
        mn_track_sample(mn_clip_track(clip, (uint32_t)i % 48), t, out);
        mn_channel_sample(&channel, t, out);
        assert_true(mn_clip_sample_weights(weights, t, 2, out, 2));
    }
    assert_int_equal(counter.allocs, allocs);
    assert_int_equal(counter.frees, frees);
    mn_pose_free(&pose);
    mn_clip_free(clip);
    mn_clip_free(weights);
    free(data);
    assert_int_equal(counter.live_bytes, 0);
}

/* ---- shared key times -------------------------------------------------------------------- */

/*
 * Exporters give every channel the same times; the clip keeps one copy per
 * distinct time array (same key count, bit-identical times), samples each
 * once, and must still answer exactly as every track sampled alone.
 */

/* Writes an element of a track for key k: rotations of every kind a file holds. */
static void shared_value(uint32_t *rng, mn_anim_path path, uint32_t k, float *v)
{
    if (path != MN_PATH_ROTATION) {
        for (int c = 0; c < 3; c++)
            v[c] = rng_float(rng, -2.0f, 2.0f);
        return;
    }
    switch (rng_next(rng) % 6) {
    case 0: /* far from the key before: the slerp */
    case 1:
        rng_quat(rng, v);
        break;
    case 2: /* close to it (keys a frame apart): the normalised lerp */
        if (k > 0) {
            for (int c = 0; c < 4; c++)
                v[c] = v[c - 4] + rng_float(rng, -0.01f, 0.01f);
            break;
        }
        rng_quat(rng, v);
        break;
    case 3: /* off unit length, and in the other hemisphere */
        rng_quat(rng, v);
        for (int c = 0; c < 4; c++)
            v[c] *= -1.3f;
        break;
    case 4: /* zero: normalises to the identity */
        v[0] = v[1] = v[2] = v[3] = 0.0f;
        break;
    default: /* the key before, exactly (d ≥ 0.9995 at its edge) */
        if (k > 0)
            memcpy(v, v - 4, 4 * sizeof(float));
        else
            rng_quat(rng, v);
        break;
    }
}

/*
 * A clip over `joints` joints whose T, R and S tracks (targets in descending
 * order, paths interleaved) each own a separate, bit-identical copy of one of
 * two time arrays; every fourth joint's rotation steps.  Returns the input
 * tracks (and the data they point into) for comparisons.
 */
typedef struct shared_clip {
    mn_clip *clip;
    mn_track *tracks;
    uint32_t track_count;
    float *data;
} shared_clip;

static shared_clip make_shared_clip(uint32_t seed, uint32_t joints, const mn_clip_options *options)
{
    enum { KEYS_A = 23, KEYS_B = 9 };
    float times_a[KEYS_A], times_b[KEYS_B];
    for (uint32_t k = 0; k < KEYS_A; k++)
        times_a[k] = 0.1f * (float)k + (k > 10 ? 0.05f : 0.0f);
    for (uint32_t k = 0; k < KEYS_B; k++)
        times_b[k] = -0.25f + 0.3f * (float)k;
    shared_clip sc = {NULL, calloc(3 * joints, sizeof(mn_track)), 3 * joints, NULL};
    sc.data = calloc((size_t)3 * joints * (KEYS_A + 4 * KEYS_A), sizeof(float));
    assert_non_null(sc.tracks);
    assert_non_null(sc.data);
    uint32_t rng = seed;
    float *at = sc.data;
    for (uint32_t i = 0; i < sc.track_count; i++) {
        uint32_t joint = joints - 1 - i / 3;
        mn_anim_path path = (mn_anim_path)((i + joint) % 3);
        bool on_b = joint % 5 == 2;
        uint32_t keys = on_b ? KEYS_B : KEYS_A;
        uint32_t comps = path == MN_PATH_ROTATION ? 4 : 3;
        mn_interpolation interp = path == MN_PATH_ROTATION && joint % 4 == 3 ? MN_INTERP_STEP : MN_INTERP_LINEAR;
        float *times = at, *values = at + keys;
        at += keys * (1 + comps);
        memcpy(times, on_b ? times_b : times_a, keys * sizeof(float));
        for (uint32_t k = 0; k < keys; k++)
            shared_value(&rng, path, k, values + k * comps);
        sc.tracks[i] = make_track(joint, path, interp, times, keys, values, comps);
    }
    sc.clip = must_create(sc.tracks, sc.track_count, options);
    return sc;
}

static void free_shared_clip(shared_clip *sc)
{
    mn_clip_free(sc->clip);
    free(sc->tracks);
    free(sc->data);
}

static const float *pose_property(const mn_pose *pose, const mn_track *tr)
{
    return tr->path == MN_PATH_TRANSLATION ? pose->translations + 3 * tr->target
           : tr->path == MN_PATH_ROTATION  ? pose->rotations + 4 * tr->target
                                           : pose->scales + 3 * tr->target;
}

static void tracks_with_identical_times_share_one_copy(void **state)
{
    (void)state;
    shared_clip sc = make_shared_clip(5, 20, NULL);
    /* Two distinct time arrays, hence two cursor spans. */
    assert_int_equal(mn_clip_cursor_storage_size(sc.clip), 2 * sizeof(uint32_t));
    const float *copy_a = NULL, *copy_b = NULL;
    for (uint32_t i = 0; i < sc.track_count; i++) {
        const mn_track *tr = mn_clip_track(sc.clip, i);
        const float **copy = tr->key_count == 9 ? &copy_b : &copy_a;
        if (!*copy)
            *copy = tr->times;
        assert_ptr_equal(tr->times, *copy);
        assert_ptr_not_equal(tr->times, sc.tracks[i].times);
        assert_memory_equal(tr->times, sc.tracks[i].times, tr->key_count * sizeof(float));
    }
    assert_non_null(copy_a);
    assert_non_null(copy_b);
    assert_ptr_not_equal(copy_a, copy_b);
    free_shared_clip(&sc);

    /* Equal values but not bit-identical (0 and -0), or one key fewer: not shared. */
    const float t0[] = {0.0f, 1.0f, 2.0f}, t1[] = {-0.0f, 1.0f, 2.0f}, t2[] = {0.0f, 1.0f};
    const float t3[] = {2.0f, 0.0f, 1.0f}, t4[] = {2.0f, 0.0f, 1.0f}; /* unsorted, identical */
    const float v[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    mn_track tracks[] = {
        make_track(0, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, t0, 3, v, 3),
        make_track(1, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, t1, 3, v, 3),
        make_track(2, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, t2, 2, v, 3),
        make_track(3, MN_PATH_SCALE, MN_INTERP_LINEAR, t0, 3, v, 3), /* the same pointer as track 0 */
        make_track(4, MN_PATH_SCALE, MN_INTERP_LINEAR, t3, 3, v, 3),
        make_track(5, MN_PATH_WEIGHTS, MN_INTERP_LINEAR, t4, 3, v, 3),
    };
    mn_clip *clip = must_create(tracks, COUNT_OF(tracks), NULL);
    assert_int_equal(mn_clip_cursor_storage_size(clip), 4 * sizeof(uint32_t));
    const mn_track *c[COUNT_OF(tracks)];
    for (uint32_t i = 0; i < COUNT_OF(tracks); i++)
        c[i] = mn_clip_track(clip, i);
    assert_ptr_equal(c[0]->times, c[3]->times);
    assert_ptr_equal(c[4]->times, c[5]->times);
    assert_ptr_not_equal(c[0]->times, c[1]->times);
    assert_ptr_not_equal(c[0]->times, c[2]->times);
    assert_ptr_not_equal(c[0]->times, c[4]->times);
    assert_true(signbit(c[1]->times[0]) && !signbit(c[0]->times[0]));
    /* The shared unsorted times are sorted once; each track's values follow its keys. */
    for (uint32_t i = 4; i < 6; i++) {
        assert_true(c[i]->times[0] == 0.0f && c[i]->times[1] == 1.0f && c[i]->times[2] == 2.0f);
        assert_memory_equal(c[i]->values, v + 3, 3 * sizeof(float));
        assert_memory_equal(c[i]->values + 3, v + 6, 3 * sizeof(float));
        assert_memory_equal(c[i]->values + 6, v, 3 * sizeof(float));
    }
    mn_clip_free(clip);
}

static void clip_tracks_keep_input_order_whatever_the_sampling_order(void **state)
{
    (void)state;
    shared_clip sc = make_shared_clip(11, 20, NULL);
    assert_int_equal(mn_clip_track_count(sc.clip), sc.track_count);
    for (uint32_t i = 0; i < sc.track_count; i++) {
        const mn_track *in = &sc.tracks[i], *tr = mn_clip_track(sc.clip, i);
        assert_int_equal(tr->target, in->target);
        assert_int_equal(tr->path, in->path);
        assert_int_equal(tr->interpolation, in->interpolation);
        assert_int_equal(tr->key_count, in->key_count);
        assert_int_equal(tr->components, in->components);
        assert_memory_equal(tr->values, in->values, (size_t)in->key_count * in->components * sizeof(float));
    }
    assert_null(mn_clip_track(sc.clip, sc.track_count));
    free_shared_clip(&sc);
}

/* Every track of the clip in the pose equals mn_track_sample of it (and of the input), bit for bit. */
static void assert_pose_is_each_track_alone(const shared_clip *sc, const mn_pose *pose, float t)
{
    for (uint32_t i = 0; i < sc->track_count; i++) {
        const mn_track *tr = mn_clip_track(sc->clip, i);
        if (tr->target >= pose->joint_count)
            continue;
        float alone[4], input[4];
        mn_track_sample(tr, t, alone);
        mn_track_sample(&sc->tracks[i], t, input);
        assert_memory_equal(alone, input, tr->components * sizeof(float));
        if (memcmp(pose_property(pose, tr), alone, tr->components * sizeof(float)) != 0)
            fail_msg("track %u (target %u, path %d) at t = %.9g differs from mn_track_sample", i,
                     tr->target, (int)tr->path, (double)t);
    }
}

/*
 * The clip sampled at t with every kernel level gives `want`'s bits (the
 * levels this CPU and build lack fall back, so the widest there is runs
 * again; the reference and SSE2 run on every x86-64 machine).
 */
static void assert_every_level_gives(const mn_clip *clip, float t, const mn_pose *want,
                                     mn_pose *scratch)
{
    static const mn_simd_level levels[] = {MN_SIMD_SCALAR, MN_SIMD_SSE2, MN_SIMD_AVX2_FMA,
                                           MN_SIMD_NEON};
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        mni_clip_sample_at(clip, t, scratch, levels[l]);
        if (!pose_bits_equal(scratch, want))
            fail_msg("level %d at t = %.9g differs from the clip's own sampling", (int)levels[l],
                     (double)t);
    }
}

/*
 * A clip of `joints` joints samples every track exactly as mn_track_sample,
 * plainly, through a cursor, and into a pose of `small_joints` (tracks
 * beyond it skipped).
 */
static void check_shared_times(uint32_t seed, uint32_t joints, uint32_t small_joints)
{
    shared_clip sc = make_shared_clip(seed, joints, NULL);
    mn_pose plain, cursored, small, level;
    assert_int_equal(mn_pose_create(&plain, joints, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_create(&cursored, joints, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_create(&level, joints, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_create(&small, small_joints, NULL, NULL), MN_OK);
    uint32_t spans[2];
    assert_int_equal(mn_clip_cursor_storage_size(sc.clip), sizeof spans);
    mn_clip_cursor cursor;
    mn_clip_cursor_init(&cursor, sc.clip, spans);
    float duration = mn_clip_duration(sc.clip);
    assert_true(duration == 2.25f);
    uint32_t rng = 3;
    for (int frame = 0; frame < 1500; frame++) {
        /* forward at 60 Hz, then random times, then every key time of both arrays */
        float t = frame < 200 ? -0.5f + (float)frame / 60.0f
                  : frame < 1200 ? rng_float(&rng, -0.5f, duration + 0.5f)
                                 : mn_clip_track(sc.clip, (uint32_t)frame % sc.track_count)
                                       ->times[(uint32_t)frame % 9];
        assert_int_equal(mn_clip_sample(sc.clip, t, &plain, NULL), MN_OK);
        assert_int_equal(mn_clip_sample_cursor(sc.clip, t, &cursor, &cursored, NULL), MN_OK);
        assert_int_equal(mn_clip_sample(sc.clip, t, &small, NULL), MN_OK);
        assert_true(pose_bits_equal(&plain, &cursored));
        assert_every_level_gives(sc.clip, t, &plain, &level);
        assert_pose_is_each_track_alone(&sc, &plain, t);
        assert_pose_is_each_track_alone(&sc, &small, t);
        for (uint32_t j = 0; j < small_joints; j++)
            assert_memory_equal(small.rotations + 4 * j, plain.rotations + 4 * j, 4 * sizeof(float));
    }
    /* Zero keys normalise to the identity, however they are reached. */
    for (uint32_t j = 0; j < joints; j++)
        assert_true(fabs(quat_len(plain.rotations + 4 * j) - 1.0) < 1e-6);
    mn_pose_free(&plain);
    mn_pose_free(&cursored);
    mn_pose_free(&small);
    mn_pose_free(&level);
    free_shared_clip(&sc);
}

static void shared_times_sample_exactly_as_each_track_alone(void **state)
{
    (void)state;
    /*
     * The linear rotation run on the first time array holds 14 of 23 joints
     * (eight for AVX2, four for SSE2, two alone); a pose of 10 keeps 7 of
     * them.  At 70 joints the run holds 42 (five eights and two), a pose of
     * 20 keeps 12 (an eight and a four): every kernel's width and remainder.
     */
    check_shared_times(17, 23, 10);
    check_shared_times(29, 70, 20);
}

/*
 * Keys a frame apart (every lane of a SIMD group near-parallel, some keys in
 * the other hemisphere) take the kernels' nlerp-only path: still exactly
 * mn_track_sample, track by track.  13 joints: an AVX2 eight, an SSE2 four
 * and one alone.
 */
static void near_parallel_runs_sample_exactly_as_each_track_alone(void **state)
{
    (void)state;
    enum { JOINTS = 13, KEYS = 11 };
    static float times[KEYS], values[JOINTS][4 * KEYS];
    mn_track tracks[JOINTS];
    for (uint32_t k = 0; k < KEYS; k++)
        times[k] = 0.1f * (float)k;
    for (uint32_t j = 0; j < JOINTS; j++) {
        float axis[3] = {sinf((float)j), cosf((float)j), 0.5f};
        float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
        for (int c = 0; c < 3; c++)
            axis[c] /= len;
        for (uint32_t k = 0; k < KEYS; k++) {
            float *q = &values[j][4 * k];
            mn_quat_from_axis_angle(q, axis, 0.3f * (float)j + 0.02f * (float)k);
            if ((j + k) % 3 == 0) /* the same rotation from the other hemisphere */
                for (int c = 0; c < 4; c++)
                    q[c] = -q[c];
        }
        tracks[j] = make_track(j, MN_PATH_ROTATION, MN_INTERP_LINEAR, times, KEYS, values[j], 4);
    }
    mn_clip *clip = must_create(tracks, JOINTS, NULL);
    mn_pose pose, level;
    assert_int_equal(mn_pose_create(&pose, JOINTS, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_create(&level, JOINTS, NULL, NULL), MN_OK);
    for (int i = 0; i <= 500; i++) {
        float t = 0.002f * (float)i;
        assert_int_equal(mn_clip_sample(clip, t, &pose, NULL), MN_OK);
        assert_every_level_gives(clip, t, &pose, &level);
        for (uint32_t j = 0; j < JOINTS; j++) {
            float alone[4];
            mn_track_sample(&tracks[j], t, alone);
            assert_memory_equal(pose.rotations + 4 * j, alone, sizeof alone);
        }
    }
    mn_pose_free(&pose);
    mn_pose_free(&level);
    mn_clip_free(clip);
}

/*
 * CUBICSPLINE runs of every path (rotations with tangents of every size,
 * off-unit values) sample exactly as each track alone, at random times and
 * at every key, at every kernel level.  13 joints: an AVX2 eight and a
 * tail; a 6-joint pose keeps fewer than eight (an SSE2 four and its tail).
 */
static void cubic_runs_sample_exactly_as_each_track_alone(void **state)
{
    (void)state;
    enum { JOINTS = 13, KEYS = 7 };
    static float times[KEYS], values[3][JOINTS][3 * 4 * KEYS];
    mn_track tracks[3 * JOINTS];
    uint32_t rng = 41;
    for (uint32_t k = 0; k < KEYS; k++)
        times[k] = 0.2f * (float)k + (k > 3 ? 0.07f : 0.0f);
    for (uint32_t path = 0; path < 3; path++) {
        uint32_t comps = path == MN_PATH_ROTATION ? 4 : 3;
        for (uint32_t j = 0; j < JOINTS; j++) {
            float *v = values[path][j];
            for (uint32_t e = 0; e < 3 * KEYS; e++) { /* in-tangent, value, out-tangent */
                if (comps == 4 && e % 3 == 1)
                    rng_quat(&rng, v + 4 * e);
                else
                    for (uint32_t c = 0; c < comps; c++)
                        v[comps * e + c] = rng_float(&rng, -3.0f, 3.0f);
            }
            tracks[path * JOINTS + j] = make_track(j, (mn_anim_path)path, MN_INTERP_CUBICSPLINE, times,
                                                   KEYS, v, comps);
        }
    }
    mn_clip *clip = must_create(tracks, 3 * JOINTS, NULL);
    mn_pose pose, small, level, small_level;
    assert_int_equal(mn_pose_create(&pose, JOINTS, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_create(&small, 6, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_create(&level, JOINTS, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_create(&small_level, 6, NULL, NULL), MN_OK);
    for (int i = 0; i < 700; i++) {
        float t = i < 600 ? rng_float(&rng, -0.2f, 1.6f) : times[i % KEYS];
        assert_int_equal(mn_clip_sample(clip, t, &pose, NULL), MN_OK);
        assert_int_equal(mn_clip_sample(clip, t, &small, NULL), MN_OK);
        assert_every_level_gives(clip, t, &pose, &level);
        assert_every_level_gives(clip, t, &small, &small_level);
        for (uint32_t c = 0; c < 3 * JOINTS; c++) {
            float alone[4];
            mn_track_sample(&tracks[c], t, alone);
            const mn_pose *poses[2] = {&pose, &small};
            for (int q = 0; q < 2; q++) {
                if (tracks[c].target >= poses[q]->joint_count)
                    continue;
                const float *got = pose_property(poses[q], &tracks[c]);
                if (memcmp(got, alone, tracks[c].components * sizeof(float)) != 0)
                    fail_msg("cubic track %u (path %d) at t = %.9g differs from mn_track_sample", c,
                             (int)tracks[c].path, (double)t);
            }
        }
    }
    mn_pose_free(&pose);
    mn_pose_free(&small);
    mn_pose_free(&level);
    mn_pose_free(&small_level);
    mn_clip_free(clip);
}

static void a_later_track_on_the_same_property_wins_across_time_arrays(void **state)
{
    (void)state;
    const float ta[] = {0, 1}, tb[] = {0, 2}, tc[] = {0, 2};
    const float early[] = {1, 1, 1, 3, 3, 3}, late[] = {10, 20, 30, 50, 60, 70};
    const float qa[] = {0, 0, 0, 1, 0, 1, 0, 0}, qb[] = {1, 0, 0, 0, 0, 0, 1, 0};
    mn_track tracks[] = {
        make_track(2, MN_PATH_SCALE, MN_INTERP_LINEAR, tb, 2, early, 3),         /* tb's array first */
        make_track(0, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, ta, 2, early, 3),   /* overridden ... */
        make_track(0, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, tc, 2, late, 3),    /* ... by this one */
        make_track(1, MN_PATH_ROTATION, MN_INTERP_LINEAR, tb, 2, qa, 4),         /* overridden ... */
        make_track(1, MN_PATH_ROTATION, MN_INTERP_STEP, ta, 2, qb, 4),           /* ... by this one */
        make_track(1, MN_PATH_ROTATION, MN_INTERP_LINEAR, NULL, 0, NULL, 4),     /* no keys: no say */
    };
    mn_clip *clip = must_create(tracks, COUNT_OF(tracks), NULL);
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, 3, NULL, NULL), MN_OK);
    assert_int_equal(mn_clip_sample(clip, 0.5f, &pose, NULL), MN_OK);
    float want[4];
    mn_track_sample(mn_clip_track(clip, 2), 0.5f, want);
    assert_memory_equal(pose.translations, want, 3 * sizeof(float));
    assert_true(want[0] == 20.0f && want[1] == 30.0f && want[2] == 40.0f);
    mn_track_sample(mn_clip_track(clip, 4), 0.5f, want);
    assert_memory_equal(pose.rotations + 4, want, 4 * sizeof(float));
    assert_true(want[0] == 1.0f && want[3] == 0.0f);
    mn_pose_free(&pose);
    mn_clip_free(clip);
}

/*
 * Hand-made files and curves resampled one by one give every track its own
 * time array.  A clip of 37 joints whose T, R and S tracks each have their
 * own keys (2 to 40 of them, spacing even, uneven or clustered, each array
 * starting and ending elsewhere; rotation keys far apart and near, every
 * seventh track STEP, every ninth CUBICSPLINE) samples each track exactly
 * as mn_track_sample of the input track, at every kernel level, plainly and
 * through a cursor, forward at 60 Hz and at random times, before the first
 * key and after the last included; and sampling allocates nothing.
 */
static void tracks_on_their_own_times_sample_exactly_as_each_track_alone(void **state)
{
    (void)state;
    enum { JOINTS = 37, MAX_KEYS = 40 };
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_clip_options options = {.allocator = mn_counting_allocator(&counter)};
    shared_clip sc = {NULL, calloc(3 * JOINTS, sizeof(mn_track)), 3 * JOINTS, NULL};
    sc.data = calloc((size_t)3 * JOINTS * MAX_KEYS * 13, sizeof(float));
    assert_non_null(sc.tracks);
    assert_non_null(sc.data);
    uint32_t rng = 11;
    float *at = sc.data, last = 0.0f;
    for (uint32_t i = 0; i < sc.track_count; i++) {
        uint32_t joint = i / 3, keys = 2 + (i * 7) % (MAX_KEYS - 1);
        mn_anim_path path = (mn_anim_path)(i % 3);
        uint32_t comps = path == MN_PATH_ROTATION ? 4 : 3;
        mn_interpolation interp = i % 7 == 3   ? MN_INTERP_STEP
                                  : i % 9 == 4 ? MN_INTERP_CUBICSPLINE
                                               : MN_INTERP_LINEAR;
        uint32_t per_key = interp == MN_INTERP_CUBICSPLINE ? 3 : 1;
        float *times = at, *values = at + keys;
        at += keys * (1 + comps * per_key);
        float t = rng_float(&rng, -0.3f, 0.4f);
        for (uint32_t k = 0; k < keys; k++) {
            times[k] = t;
            /* even, uneven, or clustered at the start (the proportional guess misses) */
            t += i % 3 == 0 ? 0.05f : i % 3 == 1 ? rng_float(&rng, 0.001f, 0.2f)
                                                 : (k < keys / 2 ? 0.002f : 0.3f);
        }
        last = times[keys - 1] > last ? times[keys - 1] : last;
        for (uint32_t e = 0; e < keys * per_key; e++) {
            float *v = values + e * comps;
            if (path != MN_PATH_ROTATION) {
                for (uint32_t c = 0; c < 3; c++)
                    v[c] = rng_float(&rng, -2.0f, 2.0f);
            } else if (joint % 2 == 0 || e == 0) {
                rng_quat(&rng, v); /* far apart: the polynomials */
            } else {
                memcpy(v, v - comps, 4 * sizeof(float)); /* near: the normalised lerp */
                v[e % 4] += 0.001f;
            }
        }
        sc.tracks[i] = make_track(joint, path, interp, times, keys, values, comps);
    }
    sc.clip = must_create(sc.tracks, sc.track_count, &options);
    mn_pose plain, cursored, level;
    assert_int_equal(mn_pose_create(&plain, JOINTS, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_create(&cursored, JOINTS, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_create(&level, JOINTS, NULL, NULL), MN_OK);
    uint32_t spans[3 * JOINTS];
    assert_int_equal(mn_clip_cursor_storage_size(sc.clip), sizeof spans); /* nothing shared */
    mn_clip_cursor cursor;
    mn_clip_cursor_init(&cursor, sc.clip, spans);
    size_t allocs = counter.allocs;
    for (int frame = 0; frame < 1200; frame++) {
        float t = frame < 400 ? -0.5f + (float)frame / 60.0f
                              : rng_float(&rng, -0.5f, last + 0.5f);
        assert_int_equal(mn_clip_sample(sc.clip, t, &plain, NULL), MN_OK);
        assert_int_equal(mn_clip_sample_cursor(sc.clip, t, &cursor, &cursored, NULL), MN_OK);
        assert_true(pose_bits_equal(&plain, &cursored));
        assert_every_level_gives(sc.clip, t, &plain, &level);
        assert_pose_is_each_track_alone(&sc, &plain, t);
    }
    assert_int_equal(counter.allocs, allocs);
    mn_pose_free(&plain);
    mn_pose_free(&cursored);
    mn_pose_free(&level);
    free_shared_clip(&sc);
    assert_int_equal(counter.live_bytes, 0);
}

/*
 * Sample sc's clip at times[0 .. count) plainly, through one cursor and into a
 * pose of `small` joints that leaves out the later ones: the cursor gives the
 * plain bits, every SIMD level gives them too, and each track's joint holds
 * exactly mn_track_sample of that track alone.
 */
static void assert_samples_each_track_alone(const shared_clip *sc, uint32_t joints, uint32_t small_joints,
                                            const float *times, uint32_t count)
{
    mn_pose plain, cursored, small, level;
    assert_int_equal(mn_pose_create(&plain, joints, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_create(&cursored, joints, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_create(&small, small_joints, NULL, NULL), MN_OK);
    assert_int_equal(mn_pose_create(&level, joints, NULL, NULL), MN_OK);
    uint32_t *spans = malloc(mn_clip_cursor_storage_size(sc->clip));
    assert_non_null(spans);
    mn_clip_cursor cursor;
    mn_clip_cursor_init(&cursor, sc->clip, spans);
    for (uint32_t i = 0; i < count; i++) {
        float t = times[i];
        assert_int_equal(mn_clip_sample(sc->clip, t, &plain, NULL), MN_OK);
        assert_int_equal(mn_clip_sample_cursor(sc->clip, t, &cursor, &cursored, NULL), MN_OK);
        assert_int_equal(mn_clip_sample(sc->clip, t, &small, NULL), MN_OK);
        assert_true(pose_bits_equal(&plain, &cursored));
        assert_every_level_gives(sc->clip, t, &plain, &level);
        assert_pose_is_each_track_alone(sc, &plain, t);
        assert_pose_is_each_track_alone(sc, &small, t);
    }
    free(spans);
    mn_pose_free(&plain);
    mn_pose_free(&cursored);
    mn_pose_free(&small);
    mn_pose_free(&level);
}

/*
 * Timelines of one to five tracks, each track's times in its own buffer
 * (equal content, so the build shares them), LINEAR, STEP and CUBICSPLINE
 * mixed, even, uneven and jumping keys: those of at most three tracks take
 * the solo loop, the others runs.  Each track samples exactly as
 * mn_track_sample at every level, plainly and through one cursor, forward,
 * backward, at random and at every key time, into a whole pose and into one
 * that leaves out the later joints.
 */
static void solo_and_run_timelines_sample_exactly_as_each_track_alone(void **state)
{
    (void)state;
    enum { TRACKS = 120, KEYS = 24, JOINTS = TRACKS / 3, SMALL = JOINTS / 2 };
    shared_clip sc = {NULL, calloc(TRACKS, sizeof(mn_track)), TRACKS, NULL};
    sc.data = calloc((size_t)TRACKS * KEYS * 13, sizeof(float));
    assert_non_null(sc.tracks);
    assert_non_null(sc.data);
    uint32_t rng = 29, groups = 0;
    float *at = sc.data, group_times[KEYS], last = 0.0f;
    for (uint32_t i = 0, left = 0; i < TRACKS; i++, left--) {
        if (left == 0) { /* a new timeline of 1 to 5 tracks */
            left = 1 + groups % 5;
            float t = rng_float(&rng, -0.2f, 0.2f);
            for (uint32_t k = 0; k < KEYS; k++) {
                group_times[k] = t;
                bool jump = groups % 4 == 2 && k == KEYS / 2; /* two keys at one time */
                t += jump ? 0.0f : groups % 3 == 0 ? 1.0f / 30.0f : rng_float(&rng, 0.002f, 0.1f);
            }
            last = group_times[KEYS - 1] > last ? group_times[KEYS - 1] : last;
            groups++;
        }
        mn_anim_path path = (mn_anim_path)(i % 3);
        uint32_t comps = path == MN_PATH_ROTATION ? 4 : 3;
        mn_interpolation interp = (mn_interpolation)((i + groups) % 3);
        uint32_t per_key = interp == MN_INTERP_CUBICSPLINE ? 3 : 1;
        float *times = at, *values = at + KEYS;
        at += KEYS * (1 + comps * per_key);
        memcpy(times, group_times, sizeof group_times);
        for (uint32_t e = 0; e < KEYS * per_key; e++) {
            if (path == MN_PATH_ROTATION)
                rng_quat(&rng, values + e * comps);
            else
                for (uint32_t c = 0; c < 3; c++)
                    values[e * comps + c] = rng_float(&rng, -2.0f, 2.0f);
        }
        sc.tracks[i] = make_track(i / 3, path, interp, times, KEYS, values, comps);
    }
    sc.clip = must_create(sc.tracks, sc.track_count, NULL);
    /* one cursor span a distinct time array: equal contents were shared */
    assert_int_equal(mn_clip_cursor_storage_size(sc.clip), groups * sizeof(uint32_t));
    /* forward at 60 Hz, backward, random, then every key time (jumps included) */
    float times[1600];
    for (int frame = 0; frame < 1600; frame++)
        times[frame] = frame < 300   ? -0.3f + (float)frame / 60.0f
                       : frame < 600 ? last + 0.2f - (float)(frame - 300) / 60.0f
                       : frame < 1200 ? rng_float(&rng, -0.5f, last + 0.5f)
                                      : sc.tracks[(uint32_t)frame % TRACKS].times[(uint32_t)frame % KEYS];
    assert_samples_each_track_alone(&sc, JOINTS, SMALL, times, 1600);
    free_shared_clip(&sc);
}

/*
 * Every track on its own evenly spaced key times (a per-track file: counts
 * and offsets differ, so no two share), LINEAR or CUBICSPLINE by joint: the
 * solo kernels take such tracks four at a time, and fall back one by one
 * where a quad has a track past the pose or t outside a track's keys.  Each
 * track samples exactly as mn_track_sample at every level, plainly and
 * through a cursor, forward at 60 Hz, at random, at key times and past
 * both ends, into a whole pose and into one that leaves out later joints.
 */
static void per_track_times_sample_exactly_as_each_track_alone(void **state)
{
    (void)state;
    enum { JOINTS = 22, TRACKS = 3 * JOINTS, KEYS = 31, SMALL = 13 };
    shared_clip sc = {NULL, calloc(TRACKS, sizeof(mn_track)), TRACKS, NULL};
    sc.data = calloc((size_t)TRACKS * KEYS * 13, sizeof(float));
    assert_non_null(sc.tracks);
    assert_non_null(sc.data);
    uint32_t rng = 41;
    float *at = sc.data;
    for (uint32_t i = 0; i < TRACKS; i++) {
        uint32_t joint = i / 3, keys = KEYS - i % 5;
        mn_anim_path path = (mn_anim_path)(i % 3);
        uint32_t comps = path == MN_PATH_ROTATION ? 4 : 3;
        mn_interpolation interp = joint % 7 == 5 ? MN_INTERP_CUBICSPLINE : MN_INTERP_LINEAR;
        uint32_t per_key = interp == MN_INTERP_CUBICSPLINE ? 3 : 1;
        float *times = at, *values = at + KEYS;
        at += KEYS * (1 + comps * per_key);
        for (uint32_t k = 0; k < keys; k++)
            times[k] = (float)k / 30.0f + (float)i * 1e-4f;
        for (uint32_t e = 0; e < keys * per_key; e++) {
            if (path == MN_PATH_ROTATION)
                rng_quat(&rng, values + e * comps);
            else
                for (uint32_t c = 0; c < 3; c++)
                    values[e * comps + c] = rng_float(&rng, -2.0f, 2.0f);
        }
        sc.tracks[i] = make_track(joint, path, interp, times, keys, values, comps);
    }
    sc.clip = must_create(sc.tracks, sc.track_count, NULL);
    assert_int_equal(mn_clip_cursor_storage_size(sc.clip), TRACKS * sizeof(uint32_t));
    float times[900];
    for (int frame = 0; frame < 900; frame++)
        times[frame] = frame < 120  ? -0.1f + (float)frame / 60.0f
                       : frame < 600 ? rng_float(&rng, -0.2f, 1.3f)
                                     : sc.tracks[(uint32_t)frame % TRACKS].times[(uint32_t)frame % 26];
    assert_samples_each_track_alone(&sc, JOINTS, SMALL, times, 900);
    free_shared_clip(&sc);
}

/*
 * A clip whose tracks each have their own key times costs its keys (times
 * and values, each array 16-byte aligned) and at most 160 bytes a track
 * (track record, input order, timeline, solo record, alignment) besides a
 * fixed header, build scratch included: the bound docs/animation.md states.
 */
static void per_track_clip_memory_is_its_keys_and_a_bounded_record_a_track(void **state)
{
    (void)state;
    enum { TRACKS = 300, KEYS = 61 };
    float *times = malloc((size_t)TRACKS * KEYS * sizeof(float));
    float *values = calloc((size_t)KEYS * 4, sizeof(float));
    mn_track *tracks = calloc(TRACKS, sizeof *tracks);
    assert_non_null(times);
    assert_non_null(values);
    assert_non_null(tracks);
    size_t key_bytes = 0;
    for (uint32_t i = 0; i < TRACKS; i++) {
        mn_anim_path path = (mn_anim_path)(i % 3);
        uint32_t comps = path == MN_PATH_ROTATION ? 4 : 3;
        for (uint32_t k = 0; k < KEYS; k++)
            times[(size_t)i * KEYS + k] = (float)k / 30.0f + (float)i * 1e-5f;
        tracks[i] = make_track(i / 3, path, MN_INTERP_LINEAR, times + (size_t)i * KEYS, KEYS,
                               values, comps);
        key_bytes += (size_t)KEYS * (1 + comps) * sizeof(float);
    }
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_clip_options options = {.allocator = mn_counting_allocator(&counter)};
    mn_clip *clip = must_create(tracks, TRACKS, &options);
    assert_int_equal(mn_clip_cursor_storage_size(clip), TRACKS * sizeof(uint32_t));
    size_t bound = key_bytes + 160u * TRACKS + 1024u;
    if (counter.peak_bytes > bound)
        fail_msg("building took %zu bytes at peak, over the bound %zu", counter.peak_bytes, bound);
    mn_clip_free(clip);
    assert_int_equal(counter.live_bytes, 0);
    free(times);
    free(values);
    free(tracks);
}

static void building_a_large_clip_under_failing_allocations_frees_everything(void **state)
{
    (void)state;
    /* Enough tracks that the build's bookkeeping is scratch memory, not the stack. */
    for (long fail = 0; fail < 3; fail++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = fail;
        mn_clip_options options = {.allocator = mn_counting_allocator(&counter)};
        mn_track tracks[40];
        const float times[] = {0, 1}, values[] = {0, 0, 0, 1, 1, 1, 1, 1};
        for (uint32_t i = 0; i < 40; i++)
            tracks[i] = make_track(i / 2, i % 2 ? MN_PATH_ROTATION : MN_PATH_SCALE, MN_INTERP_LINEAR,
                                   times, 2, values, i % 2 ? 4 : 3);
        mn_clip *clip = NULL;
        mn_status st = mn_clip_create(tracks, 40, "big", &options, &clip, NULL);
        if (fail < 2) {
            assert_int_equal(st, MN_OUT_OF_MEMORY);
            assert_null(clip);
        } else {
            assert_int_equal(st, MN_OK);
            assert_int_equal(counter.allocs, 2);
            assert_int_equal(counter.live_bytes, counter.peak_bytes - 40 * 4 * sizeof(uint32_t));
            mn_clip_free(clip);
        }
        assert_int_equal(counter.live_bytes, 0);
    }
}

/* ---- glTF ---------------------------------------------------------------------------- */

/* bufferViews and accessors gathered while the blob is written. */
typedef struct gltf_lists {
    char views[4096], accessors[4096];
    size_t views_len, accessors_len;
    int count;
} gltf_lists;

static int add_accessor(gb_builder *b, gltf_lists *l, const float *v, size_t floats, const char *type,
                        size_t count, bool scalar_min_max)
{
    size_t offset = gb_bin_f32v(b, v, floats);
    l->views_len += (size_t)snprintf(l->views + l->views_len, sizeof l->views - l->views_len,
                                     "%s{'buffer':0,'byteOffset':%zu,'byteLength':%zu}",
                                     l->count ? "," : "", offset, floats * sizeof(float));
    char minmax[128] = "";
    if (scalar_min_max) /* animation inputs and POSITION need min/max */
        snprintf(minmax, sizeof minmax, ",'min':[%.9g],'max':[%.9g]", (double)v[0], (double)v[count - 1]);
    if (strcmp(type, "VEC3") == 0 && scalar_min_max)
        snprintf(minmax, sizeof minmax, ",'min':[0,0,0],'max':[1,1,0]");
    l->accessors_len += (size_t)snprintf(l->accessors + l->accessors_len,
                                         sizeof l->accessors - l->accessors_len,
                                         "%s{'bufferView':%d,'componentType':5126,'count':%zu,'type':'%s'%s}",
                                         l->count ? "," : "", l->count, count, type, minmax);
    return l->count++;
}

static const float H = 0.70710678118654752f;
static const float STEP_T[] = {0, 1, 2}, STEP_V[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static const float ROT_T[] = {0, 1}, ROT_V[] = {0, 0, 0, 1, 0, 0, -H, -H};
static const float CUBIC_T[] = {0, 0.5f, 2};
static const float CUBIC_V[] = {0, 0, 0, 1, 1, 1, 2, 0, -1,
                                1, 1, 1, 2, 3, 4, 0.5f, -1, 3,
                                -2, 2, 0, 1, 2, 1, 0, 0, 0};
static const float WEIGHT_T[] = {0, 1}, WEIGHT_V[] = {0, 1, 1, 0};
static const float LIN_T[] = {0, 2}, LIN_V[] = {0, 0, 0, 2, 4, 6};

/*
 * Five nodes; node 4 has a mesh with two morph targets.  One animation
 * "moves": node 1 translation STEP, node 2 rotation LINEAR (second key in
 * the other hemisphere), node 3 scale CUBICSPLINE on uneven keys, node 4
 * weights LINEAR, node 0 translation LINEAR.
 */
static gb_blob animated_glb(void)
{
    gb_builder b;
    gb_init(&b);
    gltf_lists l;
    memset(&l, 0, sizeof l);
    const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    int a_pos = add_accessor(&b, &l, pos, 9, "VEC3", 3, true);
    int a_tgt = add_accessor(&b, &l, pos, 9, "VEC3", 3, true);
    int s_in = add_accessor(&b, &l, STEP_T, 3, "SCALAR", 3, true);
    int s_out = add_accessor(&b, &l, STEP_V, 9, "VEC3", 3, false);
    int r_in = add_accessor(&b, &l, ROT_T, 2, "SCALAR", 2, true);
    int r_out = add_accessor(&b, &l, ROT_V, 8, "VEC4", 2, false);
    int c_in = add_accessor(&b, &l, CUBIC_T, 3, "SCALAR", 3, true);
    int c_out = add_accessor(&b, &l, CUBIC_V, 27, "VEC3", 9, false);
    int w_in = add_accessor(&b, &l, WEIGHT_T, 2, "SCALAR", 2, true);
    int w_out = add_accessor(&b, &l, WEIGHT_V, 4, "SCALAR", 4, false);
    int l_in = add_accessor(&b, &l, LIN_T, 2, "SCALAR", 2, true);
    int l_out = add_accessor(&b, &l, LIN_V, 6, "VEC3", 2, false);
    gb_json(&b, "{'asset':{'version':'2.0'},'buffers':[{'byteLength':%zu}],", gb_bin_size(&b));
    gb_json(&b, "'bufferViews':[%s],'accessors':[%s],", l.views, l.accessors);
    gb_json(&b, "'meshes':[{'primitives':[{'attributes':{'POSITION':%d},"
                "'targets':[{'POSITION':%d},{'POSITION':%d}]}],'weights':[0,0]}],",
            a_pos, a_tgt, a_tgt);
    gb_json(&b, "'nodes':[{},{},{},{},{'mesh':0}],'scenes':[{'nodes':[0,1,2,3,4]}],'scene':0,");
    gb_json(&b, "'animations':[{'name':'moves','samplers':["
                "{'input':%d,'output':%d,'interpolation':'STEP'},"
                "{'input':%d,'output':%d},"
                "{'input':%d,'output':%d,'interpolation':'CUBICSPLINE'},"
                "{'input':%d,'output':%d},"
                "{'input':%d,'output':%d,'interpolation':'LINEAR'}],'channels':["
                "{'sampler':0,'target':{'node':1,'path':'translation'}},"
                "{'sampler':1,'target':{'node':2,'path':'rotation'}},"
                "{'sampler':2,'target':{'node':3,'path':'scale'}},"
                "{'sampler':3,'target':{'node':4,'path':'weights'}},"
                "{'sampler':4,'target':{'node':0,'path':'translation'}}]}]}",
            s_in, s_out, r_in, r_out, c_in, c_out, w_in, w_out, l_in, l_out);
    gb_blob glb = gb_glb(&b);
    gb_free(&b);
    return glb;
}

static mn_model *read_glb(const gb_blob *glb)
{
    mn_model *model = NULL;
    mn_error err;
    if (mn_gltf_read_memory(glb->data, glb->size, NULL, &model, &err) != MN_OK)
        fail_msg("mn_gltf_read_memory: %s (%s)", err.message, err.path);
    return model;
}

static void gltf_animation_samples_every_mode_exactly(void **state)
{
    (void)state;
    gb_blob glb = animated_glb();
    mn_model *model = read_glb(&glb);
    assert_int_equal(model->animation_count, 1);
    mn_clip *clip = NULL;
    mn_error err;
    assert_int_equal(mn_clip_from_gltf(model, 0, NULL, &clip, &err), MN_OK);
    assert_string_equal(mn_clip_name(clip), "moves");
    assert_int_equal(mn_clip_track_count(clip), 5);
    assert_true(mn_clip_duration(clip) == 2.0f);
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, 5, NULL, NULL), MN_OK);

    assert_int_equal(mn_clip_sample(clip, 0.5f, &pose, NULL), MN_OK);
    /* node 1, STEP: the left key. */
    assert_true(pose.translations[3] == 1 && pose.translations[4] == 2 && pose.translations[5] == 3);
    /* node 2, LINEAR rotation to a key stored as -q (90° about z): 45°, along the short arc. */
    const float q45[4] = {0, 0, sinf(0.39269908169872414f), cosf(0.39269908169872414f)};
    assert_vec_near(pose.rotations + 8, q45, 4, 1e-6);
    /* node 3, CUBICSPLINE at a key: its value element. */
    assert_true(pose.scales[9] == 2 && pose.scales[10] == 3 && pose.scales[11] == 4);
    /* node 0, LINEAR: a quarter of the way. */
    assert_true(pose.translations[0] == 0.5f && pose.translations[1] == 1 && pose.translations[2] == 1.5f);
    /* node 4 has only weights: its TRS is untouched. */
    assert_true(pose.translations[12] == 0 && pose.rotations[19] == 1 && pose.scales[12] == 1);

    for (int i = -2; i <= 24; i++) {
        float t = 0.1f * (float)i;
        assert_int_equal(mn_clip_sample(clip, t, &pose, NULL), MN_OK);
        for (uint32_t c = 0; c < 3; c++)
            assert_float_near(pose.scales[9 + c], cubic_expected(CUBIC_T, CUBIC_V, 3, 3, c, t), 1e-5);
        float out[3];
        mn_channel_sample(&model->animations[0].channels[2], t, out);
        assert_memory_equal(out, pose.scales + 9, sizeof out);
    }
    assert_int_equal(mn_clip_sample(clip, 1.5f, &pose, NULL), MN_OK);
    assert_true(pose.translations[3] == 4 && pose.translations[4] == 5 && pose.translations[5] == 6);
    assert_int_equal(mn_clip_sample(clip, 7.0f, &pose, NULL), MN_OK);
    assert_true(pose.translations[3] == 7 && pose.translations[0] == 2);

    float w[2];
    assert_true(mn_clip_sample_weights(clip, 0.25f, 4, w, 2));
    assert_true(w[0] == 0.25f && w[1] == 0.75f);
    assert_false(mn_clip_sample_weights(clip, 0.25f, 3, w, 2));

    mn_pose_free(&pose);
    mn_clip_free(clip);
    mn_model_free(model);
    gb_blob_free(&glb);
}

static void target_map_remaps_and_drops_channels(void **state)
{
    (void)state;
    gb_blob glb = animated_glb();
    mn_model *model = read_glb(&glb);
    /* Node 1 → joint 0, node 2 → joint 1, node 4 → 2; nodes 0 and 3 are dropped. */
    const uint32_t map[5] = {MN_NONE, 0, 1, MN_NONE, 2};
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_clip_options options = {.allocator = mn_counting_allocator(&counter), .target_map = map,
                               .target_map_count = 5};
    mn_clip *clip = NULL;
    mn_error err;
    assert_int_equal(mn_clip_from_gltf(model, 0, &options, &clip, &err), MN_OK);
    assert_int_equal(mn_clip_track_count(clip), 3);
    assert_int_equal(mn_clip_track(clip, 0)->target, 0);
    assert_int_equal(mn_clip_track(clip, 0)->path, MN_PATH_TRANSLATION);
    assert_int_equal(mn_clip_track(clip, 1)->target, 1);
    assert_int_equal(mn_clip_track(clip, 2)->target, 2);
    assert_int_equal(mn_clip_track(clip, 2)->path, MN_PATH_WEIGHTS);
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, 3, NULL, NULL), MN_OK);
    assert_int_equal(mn_clip_sample(clip, 1.0f, &pose, NULL), MN_OK);
    assert_true(pose.translations[0] == 4 && pose.translations[1] == 5 && pose.translations[2] == 6);
    assert_true(fabsf(pose.rotations[6]) > 0.7f);
    assert_true(pose.scales[6] == 1 && pose.translations[6] == 0); /* joint 2: weights only */
    float w[2];
    assert_true(mn_clip_sample_weights(clip, 1.0f, 2, w, 2));
    assert_true(w[0] == 1 && w[1] == 0);
    mn_pose_free(&pose);
    mn_clip_free(clip);
    /* The scratch of the build is returned too. */
    assert_int_equal(counter.live_bytes, 0);

    /* A node outside the map, and an animation index out of range. */
    options.target_map_count = 2;
    assert_int_equal(mn_clip_from_gltf(model, 0, &options, &clip, &err), MN_INDEX_RANGE);
    assert_null(clip);
    assert_string_equal(err.path, "animations[0].channels[1]");
    assert_int_equal(counter.live_bytes, 0);
    assert_int_equal(mn_clip_from_gltf(model, 1, NULL, &clip, &err), MN_INDEX_RANGE);
    assert_int_equal(mn_clip_from_gltf(NULL, 0, NULL, &clip, &err), MN_INVALID_ARGUMENT);

    /* Every allocation failure is reported and leaks nothing. */
    options.target_map_count = 5;
    for (long fail = 0; fail < 2; fail++) {
        mn_counting_alloc failing = mn_counting_alloc_make();
        failing.fail_after = fail;
        options.allocator = mn_counting_allocator(&failing);
        assert_int_equal(mn_clip_from_gltf(model, 0, &options, &clip, &err), MN_OUT_OF_MEMORY);
        assert_null(clip);
        assert_int_equal(failing.live_bytes, 0);
    }
    mn_model_free(model);
    gb_blob_free(&glb);
}

static void gltf_errors_name_the_channel(void **state)
{
    (void)state;
    /* A model as the reader gives it, but with a NaN key time in channel 1 (a reader does not check). */
    const float times[] = {0, 1}, bad[] = {0, NAN};
    const float values[] = {0, 0, 0, 1, 1, 1};
    mn_channel channels[2] = {
        {.node = 0, .path = MN_PATH_SCALE, .interpolation = MN_INTERP_LINEAR, .times = times,
         .values = values, .key_count = 2, .components = 3},
        {.node = 1, .path = MN_PATH_SCALE, .interpolation = MN_INTERP_LINEAR, .times = bad,
         .values = values, .key_count = 2, .components = 3},
    };
    mn_animation anims[2];
    memset(anims, 0, sizeof anims);
    anims[1].name = "broken";
    anims[1].channels = channels;
    anims[1].channel_count = 2;
    mn_model model;
    memset(&model, 0, sizeof model);
    model.animations = anims;
    model.animation_count = 2;
    mn_clip *clip = NULL;
    mn_error err;
    assert_int_equal(mn_clip_from_gltf(&model, 1, NULL, &clip, &err), MN_NOT_FINITE);
    assert_string_equal(err.path, "animations[1].channels[1]");
    assert_int_equal(strncmp(err.message, "animations[1].channels[1]: ", 27), 0);
    /* With channel 0 dropped by the map, the path still names the file's channel. */
    const uint32_t map[2] = {MN_NONE, 0};
    mn_clip_options options = {.target_map = map, .target_map_count = 2};
    assert_int_equal(mn_clip_from_gltf(&model, 1, &options, &clip, &err), MN_NOT_FINITE);
    assert_string_equal(err.path, "animations[1].channels[1]");
    /* An animation without channels gives an empty clip. */
    assert_int_equal(mn_clip_from_gltf(&model, 0, NULL, &clip, &err), MN_OK);
    assert_int_equal(mn_clip_track_count(clip), 0);
    mn_clip_free(clip);
}

static void interpolation_test_model_hits_its_keys_exactly(void **state)
{
    (void)state;
    mn_test_need_assets();
    mn_model *model = NULL;
    mn_error err;
    if (mn_gltf_read_file(INTERPOLATION_TEST, NULL, &model, &err) != MN_OK)
        fail_msg("%s: %s", INTERPOLATION_TEST, err.message);
    assert_int_equal(model->animation_count, 9);
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, model->node_count, NULL, NULL), MN_OK);
    int checked = 0;
    for (uint32_t a = 0; a < model->animation_count; a++) {
        mn_clip *clip = NULL;
        assert_int_equal(mn_clip_from_gltf(model, a, NULL, &clip, &err), MN_OK);
        assert_int_equal(mn_clip_track_count(clip), 1);
        const mn_channel *ch = &model->animations[a].channels[0];
        const mn_track *tr = mn_clip_track(clip, 0);
        uint32_t per_key = ch->components * (ch->interpolation == MN_INTERP_CUBICSPLINE ? 3 : 1);
        uint32_t middle = ch->interpolation == MN_INTERP_CUBICSPLINE ? ch->components : 0;
        for (uint32_t k = 0; k < ch->key_count; k++) {
            float t = ch->times[k], want[4], from_track[4], from_channel[4];
            memcpy(want, ch->values + k * per_key + middle, ch->components * sizeof(float));
            if (ch->path == MN_PATH_ROTATION)
                mn_quat_normalize(want, want); /* every sampled rotation is normalised */
            mn_track_sample(tr, t, from_track);
            mn_channel_sample(ch, t, from_channel);
            assert_int_equal(mn_clip_sample(clip, t, &pose, NULL), MN_OK);
            const float *p = ch->path == MN_PATH_TRANSLATION ? pose.translations + 3 * ch->node
                             : ch->path == MN_PATH_ROTATION  ? pose.rotations + 4 * ch->node
                                                             : pose.scales + 3 * ch->node;
            for (uint32_t c = 0; c < ch->components; c++) {
                assert_true(from_track[c] == want[c]);
                assert_true(from_channel[c] == want[c]);
                assert_true(p[c] == want[c]);
            }
            checked++;
        }
        mn_clip_free(clip);
    }
    assert_int_equal(checked, 45);
    mn_pose_free(&pose);
    mn_model_free(model);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(step_holds_the_left_key),
        cmocka_unit_test(linear_lerps_translation_and_scale),
        cmocka_unit_test(linear_rotation_takes_the_short_arc_to_a_key_in_the_other_hemisphere),
        cmocka_unit_test(rotation_keys_crossing_the_hemisphere_stay_on_the_short_arc),
        cmocka_unit_test(linear_rotation_agrees_with_mn_quat_slerp),
        cmocka_unit_test(cubic_spline_with_uneven_key_spacing_is_the_hermite_spline),
        cmocka_unit_test(cubic_spline_rotation_is_normalised_after_the_spline),
        cmocka_unit_test(every_sampled_rotation_is_normalised_even_from_off_unit_keys),
        cmocka_unit_test(times_outside_the_keys_clamp_to_the_end_keys),
        cmocka_unit_test(equal_key_times_take_the_right_key),
        cmocka_unit_test(a_single_key_is_constant),
        cmocka_unit_test(weights_tracks_interpolate_every_component_unnormalised),
        cmocka_unit_test(create_copies_keys_and_reports_name_duration_and_tracks),
        cmocka_unit_test(unsorted_keys_are_sorted_stably_with_their_values),
        cmocka_unit_test(non_finite_key_times_are_rejected_naming_the_track),
        cmocka_unit_test(component_counts_must_match_the_path),
        cmocka_unit_test(building_under_failing_allocations_frees_everything),
        cmocka_unit_test(clip_sample_writes_tracked_properties_and_keeps_the_rest),
        cmocka_unit_test(cursor_gives_the_same_bits_forward_backward_and_at_random),
        cmocka_unit_test(sampling_allocates_nothing),
        cmocka_unit_test(tracks_on_their_own_times_sample_exactly_as_each_track_alone),
        cmocka_unit_test(solo_and_run_timelines_sample_exactly_as_each_track_alone),
        cmocka_unit_test(per_track_times_sample_exactly_as_each_track_alone),
        cmocka_unit_test(per_track_clip_memory_is_its_keys_and_a_bounded_record_a_track),
        cmocka_unit_test(tracks_with_identical_times_share_one_copy),
        cmocka_unit_test(clip_tracks_keep_input_order_whatever_the_sampling_order),
        cmocka_unit_test(shared_times_sample_exactly_as_each_track_alone),
        cmocka_unit_test(near_parallel_runs_sample_exactly_as_each_track_alone),
        cmocka_unit_test(cubic_runs_sample_exactly_as_each_track_alone),
        cmocka_unit_test(a_later_track_on_the_same_property_wins_across_time_arrays),
        cmocka_unit_test(building_a_large_clip_under_failing_allocations_frees_everything),
        cmocka_unit_test(gltf_animation_samples_every_mode_exactly),
        cmocka_unit_test(target_map_remaps_and_drops_channels),
        cmocka_unit_test(gltf_errors_name_the_channel),
        cmocka_unit_test(interpolation_test_model_hits_its_keys_exactly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
