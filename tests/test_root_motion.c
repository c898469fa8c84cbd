/*
 * Root motion (src/anim/root_motion.c): extract plus strip moves a character
 * exactly one stride per cycle, extract without strip twice as far within a
 * cycle; motion accumulates across wraps (never a stride backwards); a
 * turning walk composes cycles on the left (four quarter turns close a
 * square); reversal, composition and whole-cycle shifts; the period starts at
 * 0 even with a late first key; the base pose supplies unanimated channels;
 * strip pins only animated channels; errors; no allocation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/clip.h>
#include <marionette/math.h>
#include <marionette/pose.h>
#include <marionette/root_motion.h>

#include "assert_near.h"
#include "counting_alloc.h"

#include <math.h>
#include <string.h>

#define STRIDE 1.4f

static mn_track track(uint32_t target, mn_anim_path path, uint32_t keys, const float *times,
                      const float *values)
{
    mn_track t;
    memset(&t, 0, sizeof t);
    t.target = target;
    t.path = path;
    t.interpolation = MN_INTERP_LINEAR;
    t.key_count = keys;
    t.components = path == MN_PATH_ROTATION ? 4 : 3;
    t.times = times;
    t.values = values;
    return t;
}

/* A walk: root (joint 0) strides 1.4 along +Z per 1 s cycle with a bob; joint 1 swings. */
static mn_clip *make_walk(const mn_allocator *allocator)
{
    static const float times[] = {0.0f, 0.5f, 1.0f};
    static const float root_t[] = {0, 0, 0, 0, 0.05f, 0.5f * STRIDE, 0, 0, STRIDE};
    static const float swing[] = {0, 0, 0, 1, 0.2588190f, 0, 0, 0.9659258f, 0, 0, 0, 1};
    mn_track tracks[2] = {track(0, MN_PATH_TRANSLATION, 3, times, root_t),
                          track(1, MN_PATH_ROTATION, 3, times, swing)};
    mn_clip_options options = {0};
    if (allocator)
        options.allocator = *allocator;
    mn_clip *clip = NULL;
    assert_int_equal(mn_clip_create(tracks, 2, "walk", &options, &clip, NULL), MN_OK);
    return clip;
}

/* A character: world position and heading, moved by root motion, and its pose. */
typedef struct character {
    float position[3];
    float rotation[4];
    mn_pose pose;
    _Alignas(16) unsigned char storage[128];
} character;

static void character_init(character *c)
{
    memset(c->position, 0, sizeof c->position);
    mn_quat_identity(c->rotation);
    mn_pose_init(&c->pose, 2, c->storage);
}

/* One frame from t0 to t1: apply the motion, sample the pose, optionally strip. */
static void step(character *c, const mn_clip *clip, float t0, float t1, bool strip)
{
    mn_root_motion m;
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, t0, t1, &m, NULL), MN_OK);
    float moved[3];
    mn_quat_rotate(moved, c->rotation, m.translation);
    for (int i = 0; i < 3; i++)
        c->position[i] += moved[i];
    mn_quat_mul(c->rotation, c->rotation, m.rotation);
    float d = mn_clip_duration(clip);
    assert_int_equal(mn_clip_sample(clip, t1 - d * floorf(t1 / d), &c->pose, NULL), MN_OK);
    if (strip)
        assert_int_equal(mn_root_motion_strip(clip, 0, &c->pose, NULL), MN_OK);
}

/* Where the root is in the world: the character's place plus the pose's root. */
static void root_world(const character *c, float out[3])
{
    mn_quat_rotate(out, c->rotation, c->pose.translations);
    for (int i = 0; i < 3; i++)
        out[i] += c->position[i];
}

static void extract_plus_strip_moves_one_stride_per_cycle(void **state)
{
    (void)state;
    mn_clip *clip = make_walk(NULL);
    character c;
    character_init(&c);
    /* Frames of 1/8 s land on every wrap exactly. */
    for (int i = 1; i <= 24; i++) {
        step(&c, clip, (float)(i - 1) / 8.0f, (float)i / 8.0f, true);
        if (i % 8 == 0) {
            float root[3];
            root_world(&c, root);
            const float expected[3] = {0, 0, STRIDE * (float)(i / 8)};
            assert_vec_near(root, expected, 3, 1e-5 * STRIDE * 3);
        }
    }
    mn_clip_free(clip);
}

static void frames_straddling_wraps_keep_the_exact_speed(void **state)
{
    (void)state;
    /* Frames of 0.07 s cross the wraps mid-frame; the stripped root moves at exactly 1.4 m/s. */
    mn_clip *clip = make_walk(NULL);
    character c;
    character_init(&c);
    for (int i = 1; i <= 43; i++) {
        float t = 0.07f * (float)i;
        step(&c, clip, 0.07f * (float)(i - 1), t, true);
        float root[3];
        root_world(&c, root);
        assert_float_near(root[2], STRIDE * t, 1e-5 * 4);
        assert_float_near(root[0], 0.0f, 1e-6);
    }
    mn_clip_free(clip);
}

/* The root's world position after playing from 0 to t in frames of 1/16 s (t a multiple of it). */
static void play_to(const mn_clip *clip, float t, bool strip, float out[3])
{
    character c;
    character_init(&c);
    int frames = (int)(t * 16.0f + 0.5f);
    for (int i = 1; i <= frames; i++)
        step(&c, clip, (float)(i - 1) / 16.0f, (float)i / 16.0f, strip);
    root_world(&c, out);
}

static void extract_without_strip_moves_twice_as_far(void **state)
{
    (void)state;
    mn_clip *clip = make_walk(NULL);
    float a[3], b[3];
    /* From the start to mid-cycle: half a stride when stripped, a whole one when not. */
    play_to(clip, 0.5f, true, a);
    play_to(clip, 0.5f, false, b);
    assert_float_near(a[2], 0.5f * STRIDE, 1e-5);
    assert_float_near(b[2], 2.0f * a[2], 1e-5);
    /* At an exact wrap the unstripped root snaps back to the clip's start, so there the two agree. */
    for (int k = 1; k <= 2; k++) {
        play_to(clip, (float)k, true, a);
        play_to(clip, (float)k, false, b);
        assert_vec_near(b, a, 3, 1e-5);
    }
    /* Within every later cycle (mid-cycle times, no wrap between them) the same double speed. */
    for (int k = 1; k <= 3; k++) {
        float a0[3], a1[3], b0[3], b1[3];
        play_to(clip, (float)k + 0.25f, true, a0);
        play_to(clip, (float)k + 0.75f, true, a1);
        play_to(clip, (float)k + 0.25f, false, b0);
        play_to(clip, (float)k + 0.75f, false, b1);
        assert_float_near(a1[2] - a0[2], 0.5f * STRIDE, 1e-5 * 4);
        assert_float_near(b1[2] - b0[2], 2.0f * (a1[2] - a0[2]), 1e-5 * 4);
    }
    mn_clip_free(clip);
}

static void motion_accumulates_across_a_wrap(void **state)
{
    (void)state;
    mn_clip *clip = make_walk(NULL);
    mn_root_motion m;
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, 0.9f, 1.1f, &m, NULL), MN_OK);
    /* 0.2 s of walking forward, not p(0.1) − p(0.9) = −1.12 (a stride backwards). */
    assert_float_near(m.translation[2], 0.2f * STRIDE, 1e-5);
    /* The bob is motion too; it is 0.01 high both 0.1 s before and 0.1 s after the wrap. */
    assert_float_near(m.translation[1], 0.0f, 1e-6);
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, 0.0f, 0.25f, &m, NULL), MN_OK);
    assert_float_near(m.translation[1], 0.025f, 1e-6);
    /* Many cycles at once. */
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, 0.5f, 1000.5f, &m, NULL), MN_OK);
    assert_float_near(m.translation[2], 1000.0f * STRIDE, 1e-5 * 1400);
    mn_clip_free(clip);
}

/* A turning walk: 1 along local +Z while turning a quarter turn about +Y, each 1 s cycle. */
static mn_clip *make_turn(void)
{
    static const float times[] = {0.0f, 1.0f};
    static const float root_t[] = {0, 0, 0, 0, 0, 1};
    static const float root_r[] = {0, 0, 0, 1, 0, 0.70710678f, 0, 0.70710678f};
    mn_track tracks[2] = {track(0, MN_PATH_TRANSLATION, 2, times, root_t),
                          track(0, MN_PATH_ROTATION, 2, times, root_r)};
    mn_clip *clip = NULL;
    assert_int_equal(mn_clip_create(tracks, 2, "turn", NULL, &clip, NULL), MN_OK);
    return clip;
}

static void assert_rotation_near(const float *q, const float *expected, double tol)
{
    float d = fabsf(q[0] * expected[0] + q[1] * expected[1] + q[2] * expected[2] + q[3] * expected[3]);
    assert_float_near(d, 1.0f, tol);
}

static void turning_walk_composes_cycles_on_the_left(void **state)
{
    (void)state;
    mn_clip *clip = make_turn();
    mn_root_motion m;
    const float identity[4] = {0, 0, 0, 1};
    const float quarter[4] = {0, 0.70710678f, 0, 0.70710678f};
    /* One cycle: a step forward and a quarter turn. */
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, 0.0f, 1.0f, &m, NULL), MN_OK);
    const float forward[3] = {0, 0, 1};
    assert_vec_near(m.translation, forward, 3, 1e-6);
    assert_rotation_near(m.rotation, quarter, 1e-6);
    /* The second cycle, seen from the root's frame at its start, is the same motion. */
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, 1.0f, 2.0f, &m, NULL), MN_OK);
    assert_vec_near(m.translation, forward, 3, 1e-6);
    /* Four cycles walk a square and come home facing the same way. */
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, 0.0f, 4.0f, &m, NULL), MN_OK);
    const float zero[3] = {0, 0, 0};
    assert_vec_near(m.translation, zero, 3, 1e-5);
    assert_rotation_near(m.rotation, identity, 1e-6);
    /* Two cycles: forward 1, then right-turned 1: (1, 0, 1). */
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, 0.0f, 2.0f, &m, NULL), MN_OK);
    const float two[3] = {1, 0, 1};
    assert_vec_near(m.translation, two, 3, 1e-5);
    mn_clip_free(clip);
}

/* Compose motion a then b (b in a's end frame). */
static void compose(const mn_root_motion *a, const mn_root_motion *b, mn_root_motion *out)
{
    float moved[3];
    mn_quat_rotate(moved, a->rotation, b->translation);
    for (int i = 0; i < 3; i++)
        out->translation[i] = a->translation[i] + moved[i];
    mn_quat_mul(out->rotation, a->rotation, b->rotation);
}

static void motions_compose_reverse_and_shift_by_whole_cycles(void **state)
{
    (void)state;
    mn_clip *clip = make_turn();
    mn_root_motion ab, bc, ac, ba, both, back;
    const float a = 0.3f, b = 2.6f, c = 5.15f;
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, a, b, &ab, NULL), MN_OK);
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, b, c, &bc, NULL), MN_OK);
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, a, c, &ac, NULL), MN_OK);
    compose(&ab, &bc, &both);
    assert_vec_near(both.translation, ac.translation, 3, 1e-5);
    assert_rotation_near(both.rotation, ac.rotation, 1e-6);
    /* to < from is the inverse. */
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, b, a, &ba, NULL), MN_OK);
    compose(&ab, &ba, &back);
    const float zero[3] = {0, 0, 0}, identity[4] = {0, 0, 0, 1};
    assert_vec_near(back.translation, zero, 3, 1e-5);
    assert_rotation_near(back.rotation, identity, 1e-6);
    /* Negative times: a whole number of cycles earlier, the same relative motion. */
    mn_root_motion shifted;
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, a - 3.0f, b - 3.0f, &shifted, NULL), MN_OK);
    assert_vec_near(shifted.translation, ab.translation, 3, 1e-5);
    assert_rotation_near(shifted.rotation, ab.rotation, 1e-6);
    /* from = to: nothing. */
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, b, b, &back, NULL), MN_OK);
    assert_vec_near(back.translation, zero, 3, 1e-6);
    mn_clip_free(clip);
}

static void period_starts_at_zero_with_a_late_first_key(void **state)
{
    (void)state;
    static const float times[] = {0.5f, 1.0f};
    static const float root_t[] = {0, 0, 2, 0, 0, 3};
    mn_track t = track(0, MN_PATH_TRANSLATION, 2, times, root_t);
    mn_clip *clip = NULL;
    assert_int_equal(mn_clip_create(&t, 1, "late", NULL, &clip, NULL), MN_OK);
    mn_root_motion m;
    /* d = 1: a cycle covers p(1) − p(0) = 3 − 2 (p clamps to the first key before 0.5). */
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, 0.0f, 3.0f, &m, NULL), MN_OK);
    assert_float_near(m.translation[2], 3.0f, 1e-6);
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, 1.25f, 1.75f, &m, NULL), MN_OK);
    assert_float_near(m.translation[2], 0.5f, 1e-6);
    mn_clip_free(clip);
}

static void base_pose_supplies_the_unanimated_rotation(void **state)
{
    (void)state;
    mn_clip *clip = make_walk(NULL);
    _Alignas(16) unsigned char storage[128];
    mn_pose base;
    mn_pose_init(&base, 2, storage);
    const float quarter[4] = {0, 0.70710678f, 0, 0.70710678f}; /* +Z → +X */
    assert_int_equal(mn_pose_set_joint(&base, 0, NULL, quarter, NULL, NULL), MN_OK);
    mn_root_motion m;
    assert_int_equal(mn_root_motion_extract(clip, 0, &base, 0.0f, 1.0f, &m, NULL), MN_OK);
    /* The stride, +Z in the parent, is −X in the root's turned frame. */
    const float expected[3] = {-STRIDE, 0, 0};
    assert_vec_near(m.translation, expected, 3, 1e-5);
    assert_rotation_near(m.rotation, (const float[4]){0, 0, 0, 1}, 1e-6);
    mn_clip_free(clip);
}

static void strip_pins_only_animated_channels(void **state)
{
    (void)state;
    mn_clip *clip = make_walk(NULL);
    _Alignas(16) unsigned char storage[128];
    mn_pose pose;
    mn_pose_init(&pose, 2, storage);
    const float r[4] = {0, 0, 0.6f, 0.8f}, s[3] = {2, 2, 2};
    assert_int_equal(mn_clip_sample(clip, 0.75f, &pose, NULL), MN_OK);
    assert_int_equal(mn_pose_set_joint(&pose, 0, NULL, r, s, NULL), MN_OK);
    assert_int_equal(mn_root_motion_strip(clip, 0, &pose, NULL), MN_OK);
    const float zero[3] = {0, 0, 0};
    assert_vec_near(pose.translations, zero, 3, 0.0);  /* the clip's value at 0 */
    assert_vec_near(pose.rotations, r, 4, 0.0);        /* not animated on the root: kept */
    assert_vec_near(pose.scales, s, 3, 0.0);           /* scale never touched */
    /* Joint 1 is not the root: untouched. */
    float swing[4];
    memcpy(swing, pose.rotations + 4, sizeof swing);
    assert_int_equal(mn_root_motion_strip(clip, 0, &pose, NULL), MN_OK);
    assert_memory_equal(pose.rotations + 4, swing, sizeof swing);
    mn_error err;
    assert_int_equal(mn_root_motion_strip(clip, 2, &pose, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_root_motion_strip(NULL, 0, &pose, &err), MN_INVALID_ARGUMENT);
    mn_clip_free(clip);
}

static void errors_are_loud(void **state)
{
    (void)state;
    mn_clip *clip = make_walk(NULL);
    mn_root_motion m;
    mn_error err;
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, NAN, 1.0f, &m, &err), MN_NOT_FINITE);
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, 0.0f, INFINITY, &m, &err), MN_NOT_FINITE);
    assert_int_equal(mn_root_motion_extract(NULL, 0, NULL, 0.0f, 1.0f, &m, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, 0.0f, 1.0f, NULL, &err), MN_INVALID_ARGUMENT);
    /* Joint 1 has only a rotation track: fine.  Joint 7 has none: a wrong root is loud. */
    assert_int_equal(mn_root_motion_extract(clip, 1, NULL, 0.0f, 1.0f, &m, &err), MN_OK);
    assert_int_equal(mn_root_motion_extract(clip, 7, NULL, 0.0f, 1.0f, &m, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "target 7"));
    /* A base too small for the root. */
    _Alignas(16) unsigned char storage[64];
    mn_pose small;
    mn_pose_init(&small, 1, storage);
    assert_int_equal(mn_root_motion_extract(clip, 1, &small, 0.0f, 1.0f, &m, &err), MN_INVALID_ARGUMENT);
    /* Absurdly far times. */
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, 0.0f, 1e30f, &m, &err), MN_INVALID_ARGUMENT);
    mn_clip_free(clip);

    /* Duration 0: a single key at 0 has no cycle. */
    static const float times[] = {0.0f};
    static const float one[] = {1, 2, 3};
    mn_track t = track(0, MN_PATH_TRANSLATION, 1, times, one);
    assert_int_equal(mn_clip_create(&t, 1, "still", NULL, &clip, NULL), MN_OK);
    assert_int_equal(mn_root_motion_extract(clip, 0, NULL, 0.0f, 1.0f, &m, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "duration 0"));
    mn_clip_free(clip);
}

static void per_frame_calls_allocate_nothing(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_clip *clip = make_walk(&hooks);
    size_t allocs = counter.allocs;
    character c;
    character_init(&c);
    for (int i = 1; i <= 40; i++)
        step(&c, clip, 0.07f * (float)(i - 1), 0.07f * (float)i, true);
    assert_int_equal(counter.allocs, allocs);
    mn_clip_free(clip);
    assert_int_equal(counter.live_bytes, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(extract_plus_strip_moves_one_stride_per_cycle),
        cmocka_unit_test(frames_straddling_wraps_keep_the_exact_speed),
        cmocka_unit_test(extract_without_strip_moves_twice_as_far),
        cmocka_unit_test(motion_accumulates_across_a_wrap),
        cmocka_unit_test(turning_walk_composes_cycles_on_the_left),
        cmocka_unit_test(motions_compose_reverse_and_shift_by_whole_cycles),
        cmocka_unit_test(period_starts_at_zero_with_a_late_first_key),
        cmocka_unit_test(base_pose_supplies_the_unanimated_rotation),
        cmocka_unit_test(strip_pins_only_animated_channels),
        cmocka_unit_test(errors_are_loud),
        cmocka_unit_test(per_frame_calls_allocate_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
