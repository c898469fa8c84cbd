/*
 * The clip mixer (src/anim/mixer.c) on a GLB built byte by byte: loops,
 * one-shots and the done flag, seek (wrapped and clamped), pause, speed and
 * the start offset, the crossfade (checked bit for bit against sampling both
 * clips here), loud errors that change nothing, rest values for whatever no
 * clip drives, a caller's pose (mn_mixer_set_pose) shown and faded from,
 * scrubbing backwards giving the bits of playing forwards, zero
 * allocations per frame, and every out-of-memory path of creation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/clip.h>
#include <marionette/gltf.h>
#include <marionette/math.h>
#include <marionette/mixer.h>
#include <marionette/pose.h>

#include "assert_near.h"
#include "counting_alloc.h"
#include "glb_builder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The test model.  The hand comes before its parent in the node array, so
 * the mixer must find a parent-first order itself.
 *
 *   node 0 "hand"    child of arm; translation (0 0 1)         — "wave" moves it
 *   node 1 "root"    children arm, fixed; translation (0 1 0)  — never animated
 *   node 2 "arm"     child of root; scale (2 2 2), rotation 0.6 about y at rest
 *                    — "walk" drives its rotation and translation (never its scale),
 *                      "wave" its rotation
 *   node 3 "fixed"   child of root; translation (5 0 0), rotation (0 .6 0 .8) — never animated
 *   node 4 "blob"    mesh 0 (a triangle with two morph targets, mesh weights .25 .5)
 *                    — "walk" animates its weights
 *
 *   animation 0 "walk", 2 s: arm rotation z 0°, 90°, 180° at 0, 1, 2 s;
 *                            arm translation (0 0 0) → (2 0 0); blob weights (0 0) → (1 1)
 *   animation 1 "wave", 1 s: hand translation (0 0 0) → (0 4 0); arm rotation x 0° → 90°
 */
enum { HAND, ROOT, ARM, FIXED, BLOB, NODE_COUNT };
enum { WALK, WAVE };

static const float WALK_DURATION = 2.0f, WAVE_DURATION = 1.0f;

typedef struct accessor_desc {
    size_t offset, count;
    const char *type;
    int floats_per;    /* components, for min/max */
} accessor_desc;

static gb_blob build_model(void)
{
    const float s = 0.70710678f;
    gb_builder b;
    gb_init(&b);
    accessor_desc acc[12];
    int n = 0;
#define ADD(type_, comps_, ...)                                                         \
    do {                                                                                \
        const float v_[] = {__VA_ARGS__};                                               \
        acc[n].offset = gb_bin_f32v(&b, v_, sizeof v_ / sizeof v_[0]);                  \
        acc[n].count = sizeof v_ / sizeof v_[0] / (comps_);                             \
        acc[n].type = (type_);                                                          \
        acc[n].floats_per = (comps_);                                                   \
        n++;                                                                            \
    } while (0)
    ADD("SCALAR", 1, 0, 1, 2);                                   /* 0 walk rotation times */
    ADD("VEC4", 4, 0, 0, 0, 1, 0, 0, s, s, 0, 0, 1, 0);          /* 1 walk rotations */
    ADD("SCALAR", 1, 0, 2);                                      /* 2 walk times (2 keys) */
    ADD("VEC3", 3, 0, 0, 0, 2, 0, 0);                            /* 3 walk translations */
    ADD("SCALAR", 1, 0, 0, 1, 1);                                /* 4 walk weights (2 keys × 2) */
    ADD("SCALAR", 1, 0, 1);                                      /* 5 wave times */
    ADD("VEC3", 3, 0, 0, 0, 0, 4, 0);                            /* 6 wave translations */
    ADD("VEC4", 4, 0, 0, 0, 1, s, 0, 0, s);                      /* 7 wave rotations */
    ADD("VEC3", 3, 0, 0, 0, 1, 0, 0, 0, 1, 0);                   /* 8 positions */
    ADD("VEC3", 3, 0, 0, 1, 0, 0, 1, 0, 0, 1);                   /* 9 target 0: +z */
    ADD("VEC3", 3, 1, 0, 0, 1, 0, 0, 1, 0, 0);                   /* 10 target 1: +x */
#undef ADD

    gb_json(&b, "{'asset':{'version':'2.0'},'scene':0,'scenes':[{'nodes':[1,4]}],"
                "'nodes':["
                "{'name':'hand','translation':[0,0,1]},"
                "{'name':'root','children':[2,3],'translation':[0,1,0]},"
                "{'name':'arm','children':[0],'scale':[2,2,2],"
                "'rotation':[0,0.29552021,0,0.95533649]},"
                "{'name':'fixed','translation':[5,0,0],'rotation':[0,0.6,0,0.8]},"
                "{'name':'blob','mesh':0}],"
                "'meshes':[{'primitives':[{'attributes':{'POSITION':8},"
                "'targets':[{'POSITION':9},{'POSITION':10}]}],'weights':[0.25,0.5]}],"
                "'animations':["
                "{'name':'walk','samplers':["
                "{'input':0,'output':1},{'input':2,'output':3},{'input':2,'output':4}],"
                "'channels':[{'sampler':0,'target':{'node':2,'path':'rotation'}},"
                "{'sampler':1,'target':{'node':2,'path':'translation'}},"
                "{'sampler':2,'target':{'node':4,'path':'weights'}}]},"
                "{'name':'wave','samplers':[{'input':5,'output':6},{'input':5,'output':7}],"
                "'channels':[{'sampler':0,'target':{'node':0,'path':'translation'}},"
                "{'sampler':1,'target':{'node':2,'path':'rotation'}}]}],"
                "'buffers':[{'byteLength':%zu}],'bufferViews':[",
            gb_bin_size(&b));
    for (int i = 0; i < n; i++) {
        size_t end = i + 1 < n ? acc[i + 1].offset : gb_bin_size(&b);
        gb_json(&b, "%s{'buffer':0,'byteOffset':%zu,'byteLength':%zu}", i ? "," : "",
                acc[i].offset, end - acc[i].offset);
    }
    gb_json(&b, "],'accessors':[");
    for (int i = 0; i < n; i++) {
        const float *v = (const float *)(const void *)(gb_bin_data(&b) + acc[i].offset);
        gb_json(&b, "%s{'bufferView':%d,'componentType':5126,'count':%zu,'type':'%s','min':[",
                i ? "," : "", i, acc[i].count, acc[i].type);
        for (int c = 0; c < acc[i].floats_per; c++) {
            float lo = v[c];
            for (size_t k = 0; k < acc[i].count; k++)
                lo = fminf(lo, v[k * (size_t)acc[i].floats_per + (size_t)c]);
            gb_json(&b, "%s%.9g", c ? "," : "", (double)lo);
        }
        gb_json(&b, "],'max':[");
        for (int c = 0; c < acc[i].floats_per; c++) {
            float hi = v[c];
            for (size_t k = 0; k < acc[i].count; k++)
                hi = fmaxf(hi, v[k * (size_t)acc[i].floats_per + (size_t)c]);
            gb_json(&b, "%s%.9g", c ? "," : "", (double)hi);
        }
        gb_json(&b, "]}");
    }
    gb_json(&b, "]}");
    gb_blob glb = gb_glb(&b);
    gb_free(&b);
    return glb;
}

typedef struct fixture {
    gb_blob glb;
    mn_model *model;
    mn_mixer *mixer;
    mn_counting_alloc counter;
    mn_allocator hooks;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->glb = build_model();
    mn_error err;
    if (mn_gltf_read_memory(f->glb.data, f->glb.size, NULL, &f->model, &err) != MN_OK) {
        fprintf(stderr, "test model: %s: %s\n", err.path, err.message);
        return -1;
    }
    f->counter = mn_counting_alloc_make();
    f->hooks = mn_counting_allocator(&f->counter);
    mn_mixer_options options = {.allocator = f->hooks};
    if (mn_mixer_create(f->model, &options, &f->mixer, &err) != MN_OK) {
        fprintf(stderr, "mixer: %s\n", err.message);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    mn_mixer_free(f->mixer);
    if (f->counter.live_bytes != 0) {
        fprintf(stderr, "mixer leaked %zu bytes\n", f->counter.live_bytes);
        return -1;
    }
    mn_model_free(f->model);
    gb_blob_free(&f->glb);
    free(f);
    return 0;
}

/* ---- expectations built here from the clip and the model ------------------------- */

/* The rest pose of the model's nodes, in caller storage. */
typedef struct test_pose {
    mn_pose pose;
    _Alignas(16) unsigned char storage[1024];
    float weights[2];
} test_pose;

/* What the mixer should show for `clip` at t without a fade: rest, then the tracks. */
static void expected_pose(const fixture *f, uint32_t clip, float t, test_pose *out)
{
    assert_true(mn_pose_storage_size(NODE_COUNT) <= sizeof out->storage);
    mn_pose_init(&out->pose, NODE_COUNT, out->storage);
    for (uint32_t i = 0; i < NODE_COUNT; i++) {
        const mn_node *n = &f->model->nodes[i];
        assert_int_equal(mn_pose_set_joint(&out->pose, i, n->translation, n->rotation, n->scale, NULL), MN_OK);
    }
    assert_int_equal(mn_clip_sample(mn_mixer_clip(f->mixer, clip), t, &out->pose, NULL), MN_OK);
    out->weights[0] = 0.25f;
    out->weights[1] = 0.5f;
    mn_clip_sample_weights(mn_mixer_clip(f->mixer, clip), t, BLOB, out->weights, 2);
}

static void assert_pose_bits(const mn_pose *actual, const mn_pose *expected)
{
    assert_memory_equal(actual->translations, expected->translations, 3 * NODE_COUNT * sizeof(float));
    assert_memory_equal(actual->rotations, expected->rotations, 4 * NODE_COUNT * sizeof(float));
    assert_memory_equal(actual->scales, expected->scales, 3 * NODE_COUNT * sizeof(float));
}

/* World matrices by recursion up the parent links, for comparison. */
static void expected_world(const mn_model *model, const float *locals, uint32_t node, float out[16])
{
    uint32_t parent = model->nodes[node].parent;
    if (parent == MN_NONE) {
        memcpy(out, locals + 16 * node, 16 * sizeof(float));
        return;
    }
    float pw[16];
    expected_world(model, locals, parent, pw);
    mn_mat4_mul(out, pw, locals + 16 * node);
}

static void play(fixture *f, uint32_t clip, mn_play_options options)
{
    mn_error err;
    assert_int_equal(mn_mixer_play(f->mixer, clip, &options, &err), MN_OK);
}

/* ---- creation -------------------------------------------------------------------- */

static void a_new_mixer_shows_the_rest_pose_and_plays_nothing(void **state)
{
    fixture *f = *state;
    assert_int_equal(mn_mixer_node_count(f->mixer), NODE_COUNT);
    assert_int_equal(mn_mixer_clip_count(f->mixer), 2);
    assert_string_equal(mn_clip_name(mn_mixer_clip(f->mixer, WALK)), "walk");
    assert_int_equal(mn_mixer_find_clip(f->mixer, "wave"), WAVE);
    assert_float_equal(mn_clip_duration(mn_mixer_clip(f->mixer, WALK)), WALK_DURATION, 0.0f);
    assert_float_equal(mn_clip_duration(mn_mixer_clip(f->mixer, WAVE)), WAVE_DURATION, 0.0f);
    assert_int_equal(mn_mixer_find_clip(f->mixer, "run"), MN_NONE);
    assert_null(mn_mixer_clip(f->mixer, 2));
    assert_int_equal(mn_mixer_current(f->mixer), MN_NONE);
    assert_false(mn_mixer_playing(f->mixer));
    assert_false(mn_mixer_done(f->mixer));
    assert_false(mn_mixer_update(f->mixer, 0.5f)); /* nothing to advance */
    assert_float_equal(mn_mixer_time(f->mixer), 0.0f, 0.0f);

    float rest_worlds[16 * NODE_COUNT];
    mn_model_rest_worlds(f->model, rest_worlds);
    for (uint32_t i = 0; i < NODE_COUNT; i++) {
        float local[16];
        mn_node_local_matrix(&f->model->nodes[i], local);
        assert_memory_equal(mn_mixer_locals(f->mixer) + 16 * i, local, sizeof local);
        assert_vec_near(mn_mixer_worlds(f->mixer) + 16 * i, rest_worlds + 16 * i, 16, 1e-6);
    }
    uint32_t count = 99;
    const float *w = mn_mixer_weights(f->mixer, BLOB, &count);
    assert_int_equal(count, 2);
    assert_float_equal(w[0], 0.25f, 0.0f);
    assert_float_equal(w[1], 0.5f, 0.0f);
    assert_null(mn_mixer_weights(f->mixer, ARM, &count));
    assert_int_equal(count, 0);
    assert_null(mn_mixer_weights(f->mixer, NODE_COUNT, NULL));
}

static void worlds_compose_parents_first_whatever_the_node_order(void **state)
{
    fixture *f = *state;
    play(f, WAVE, (mn_play_options){0});
    assert_true(mn_mixer_update(f->mixer, 0.25f));
    /* The hand (node 0) hangs from the arm (node 2): its world needs the arm's of this frame. */
    for (uint32_t i = 0; i < NODE_COUNT; i++) {
        float expected[16];
        expected_world(f->model, mn_mixer_locals(f->mixer), i, expected);
        assert_memory_equal(mn_mixer_worlds(f->mixer) + 16 * i, expected, sizeof expected);
    }
    /* And a point on the hand lands where the chain root · arm · hand puts it. */
    const float *hand = mn_mixer_worlds(f->mixer) + 16 * HAND;
    /* At 0.25 s wave puts the hand at (0 1 0) and turns the arm 22.5° about x; the arm
       scales by 2 and the root lifts by 1: (0, 1 + 2 cos 22.5°, 2 sin 22.5°). */
    const double angle = 3.14159265358979 / 8.0;
    assert_float_near(hand[12], 0.0, 1e-6);
    assert_float_near(hand[13], 1.0 + 2.0 * cos(angle), 1e-5);
    assert_float_near(hand[14], 2.0 * sin(angle), 1e-5);
}

static void borrowed_clips_are_played_and_not_freed(void **state)
{
    fixture *f = *state;
    mn_clip *clips[2] = {NULL, NULL};
    mn_error err;
    assert_int_equal(mn_clip_from_gltf(f->model, 1, NULL, &clips[0], &err), MN_OK);
    assert_int_equal(mn_clip_from_gltf(f->model, 0, NULL, &clips[1], &err), MN_OK);
    mn_mixer_options options = {.clips = (const mn_clip *const *)clips, .clip_count = 2};
    mn_mixer *mixer = NULL;
    assert_int_equal(mn_mixer_create(f->model, &options, &mixer, &err), MN_OK);
    assert_int_equal(mn_mixer_clip_count(mixer), 2);
    assert_ptr_equal(mn_mixer_clip(mixer, 0), clips[0]);
    assert_int_equal(mn_mixer_find_clip(mixer, "walk"), 1);
    assert_int_equal(mn_mixer_play_named(mixer, "walk", NULL, &err), MN_OK);
    assert_true(mn_mixer_update(mixer, 0.5f));
    mn_mixer_free(mixer);
    /* Still ours: sampling them after the mixer is gone must be fine (ASan would object). */
    assert_float_equal(mn_clip_duration(clips[1]), WALK_DURATION, 0.0f);
    mn_clip_free(clips[0]);
    mn_clip_free(clips[1]);

    const mn_clip *with_null[1] = {NULL};
    options = (mn_mixer_options){.clips = with_null, .clip_count = 1};
    assert_int_equal(mn_mixer_create(f->model, &options, &mixer, &err), MN_INVALID_ARGUMENT);
    assert_null(mixer);
}

static void a_parent_cycle_in_a_hand_built_model_is_refused(void **state)
{
    (void)state;
    mn_node nodes[3];
    memset(nodes, 0, sizeof nodes);
    for (int i = 0; i < 3; i++) {
        nodes[i].rotation[3] = 1.0f;
        nodes[i].scale[0] = nodes[i].scale[1] = nodes[i].scale[2] = 1.0f;
        nodes[i].mesh = nodes[i].skin = nodes[i].camera = MN_NONE;
    }
    nodes[0].parent = MN_NONE;
    nodes[1].parent = 2;
    nodes[2].parent = 1;
    mn_model model;
    memset(&model, 0, sizeof model);
    model.nodes = nodes;
    model.node_count = 3;
    mn_mixer *mixer = NULL;
    mn_error err;
    assert_int_equal(mn_mixer_create(&model, NULL, &mixer, &err), MN_HIERARCHY);
    assert_null(mixer);
    nodes[2].parent = 7;
    assert_int_equal(mn_mixer_create(&model, NULL, &mixer, &err), MN_INDEX_RANGE);
    assert_int_equal(mn_mixer_create(NULL, NULL, &mixer, &err), MN_INVALID_ARGUMENT);
}

/* ---- playing ---------------------------------------------------------------------- */

static void the_pose_is_the_rest_pose_overwritten_by_the_clip(void **state)
{
    fixture *f = *state;
    play(f, WALK, (mn_play_options){0});
    assert_true(mn_mixer_update(f->mixer, 0.75f));
    test_pose expected;
    expected_pose(f, WALK, 0.75f, &expected);
    assert_pose_bits(mn_mixer_pose(f->mixer), &expected.pose);
    for (uint32_t i = 0; i < NODE_COUNT; i++) {
        float local[16];
        mn_mat4_compose(local, expected.pose.translations + 3 * i, expected.pose.rotations + 4 * i,
                        expected.pose.scales + 3 * i);
        assert_memory_equal(mn_mixer_locals(f->mixer) + 16 * i, local, sizeof local);
    }
    const float *w = mn_mixer_weights(f->mixer, BLOB, NULL);
    assert_memory_equal(w, expected.weights, sizeof expected.weights);
    assert_float_near(w[0], 0.375f, 1e-7);
    /* walk drives the arm's rotation and translation, never its scale: rest (2 2 2) stays. */
    const float *scale = mn_mixer_pose(f->mixer)->scales + 3 * ARM;
    assert_float_equal(scale[0], 2.0f, 0.0f);
    assert_float_equal(scale[2], 2.0f, 0.0f);
}

static void nodes_no_clip_animates_keep_their_rest_matrices(void **state)
{
    fixture *f = *state;
    float rest_locals[16 * NODE_COUNT], rest_worlds[16 * NODE_COUNT];
    memcpy(rest_locals, mn_mixer_locals(f->mixer), sizeof rest_locals);
    memcpy(rest_worlds, mn_mixer_worlds(f->mixer), sizeof rest_worlds);
    play(f, WALK, (mn_play_options){0});
    mn_mixer_update(f->mixer, 0.3f);
    play(f, WAVE, (mn_play_options){.fade = 0.5f});
    mn_mixer_update(f->mixer, 0.2f);
    const uint32_t untouched[] = {ROOT, FIXED, BLOB};
    for (size_t k = 0; k < 3; k++) {
        uint32_t i = untouched[k];
        assert_memory_equal(mn_mixer_locals(f->mixer) + 16 * i, rest_locals + 16 * i, 64);
        assert_memory_equal(mn_mixer_worlds(f->mixer) + 16 * i, rest_worlds + 16 * i, 64);
    }
    /* ... while the animated arm moved. */
    assert_memory_not_equal(mn_mixer_locals(f->mixer) + 16 * ARM, rest_locals + 16 * ARM, 64);
}

static void a_looping_clip_wraps_and_keeps_playing(void **state)
{
    fixture *f = *state;
    play(f, WALK, (mn_play_options){0});
    assert_int_equal(mn_mixer_current(f->mixer), WALK);
    assert_true(mn_mixer_playing(f->mixer));
    mn_mixer_update(f->mixer, 0.5f);
    assert_float_equal(mn_mixer_time(f->mixer), 0.5f, 0.0f);
    mn_mixer_update(f->mixer, 2.0f);
    assert_float_equal(mn_mixer_time(f->mixer), 0.5f, 0.0f);
    mn_mixer_update(f->mixer, 1.5f);
    assert_float_equal(mn_mixer_time(f->mixer), 0.0f, 0.0f);
    assert_true(mn_mixer_playing(f->mixer));
    assert_false(mn_mixer_done(f->mixer));
}

static void a_one_shot_sets_done_which_stays_until_the_next_play(void **state)
{
    fixture *f = *state;
    play(f, WALK, (mn_play_options){.once = true});
    mn_mixer_update(f->mixer, 1.5f);
    assert_false(mn_mixer_done(f->mixer));
    assert_true(mn_mixer_update(f->mixer, 1.0f));
    assert_true(mn_mixer_done(f->mixer));
    assert_false(mn_mixer_playing(f->mixer));
    assert_float_equal(mn_mixer_time(f->mixer), WALK_DURATION, 0.0f);
    test_pose expected;
    expected_pose(f, WALK, WALK_DURATION, &expected);
    assert_pose_bits(mn_mixer_pose(f->mixer), &expected.pose);

    /* Frozen on the last frame: updates change nothing, done stays. */
    assert_false(mn_mixer_update(f->mixer, 1.0f));
    assert_true(mn_mixer_done(f->mixer));
    mn_mixer_resume(f->mixer);
    assert_false(mn_mixer_update(f->mixer, 1.0f));
    assert_true(mn_mixer_done(f->mixer));

    play(f, WALK, (mn_play_options){.once = true});
    assert_false(mn_mixer_done(f->mixer));
    assert_true(mn_mixer_playing(f->mixer));
    assert_float_equal(mn_mixer_time(f->mixer), 0.0f, 0.0f);
}

static void a_backwards_one_shot_ends_at_zero(void **state)
{
    fixture *f = *state;
    play(f, WALK, (mn_play_options){.once = true, .speed = -1.0f, .at = 1.0f});
    mn_mixer_update(f->mixer, 0.75f);
    assert_float_equal(mn_mixer_time(f->mixer), 0.25f, 0.0f);
    mn_mixer_update(f->mixer, 0.75f);
    assert_float_equal(mn_mixer_time(f->mixer), 0.0f, 0.0f);
    assert_true(mn_mixer_done(f->mixer));
}

static void seek_wraps_for_loops_and_clamps_for_one_shots(void **state)
{
    fixture *f = *state;
    mn_mixer_seek(f->mixer, 1.0f); /* nothing played: ignored */
    assert_int_equal(mn_mixer_current(f->mixer), MN_NONE);
    assert_false(mn_mixer_update(f->mixer, 0.0f));

    play(f, WALK, (mn_play_options){0});
    mn_mixer_seek(f->mixer, 5.0f);
    assert_float_equal(mn_mixer_time(f->mixer), 1.0f, 0.0f);
    mn_mixer_seek(f->mixer, -0.5f);
    assert_float_equal(mn_mixer_time(f->mixer), 1.5f, 0.0f);
    mn_mixer_seek(f->mixer, NAN);
    assert_float_equal(mn_mixer_time(f->mixer), 1.5f, 0.0f);
    assert_true(mn_mixer_update(f->mixer, 0.0f));
    test_pose expected;
    expected_pose(f, WALK, 1.5f, &expected);
    assert_pose_bits(mn_mixer_pose(f->mixer), &expected.pose);

    play(f, WALK, (mn_play_options){.once = true});
    mn_mixer_seek(f->mixer, 5.0f);
    assert_float_equal(mn_mixer_time(f->mixer), WALK_DURATION, 0.0f);
    mn_mixer_seek(f->mixer, -3.0f);
    assert_float_equal(mn_mixer_time(f->mixer), 0.0f, 0.0f);

    /* A finished one-shot sought back plays on from there. */
    mn_mixer_update(f->mixer, 9.0f);
    assert_true(mn_mixer_done(f->mixer));
    mn_mixer_seek(f->mixer, 0.5f);
    assert_false(mn_mixer_done(f->mixer));
    mn_mixer_update(f->mixer, 0.25f);
    assert_float_equal(mn_mixer_time(f->mixer), 0.75f, 0.0f);
}

static void pausing_freezes_the_pose_until_resume(void **state)
{
    fixture *f = *state;
    play(f, WALK, (mn_play_options){0});
    mn_mixer_update(f->mixer, 0.3f);
    float worlds[16 * NODE_COUNT];
    memcpy(worlds, mn_mixer_worlds(f->mixer), sizeof worlds);
    mn_mixer_pause(f->mixer);
    assert_true(mn_mixer_paused(f->mixer));
    assert_false(mn_mixer_playing(f->mixer));
    assert_false(mn_mixer_update(f->mixer, 0.5f));
    assert_false(mn_mixer_update(f->mixer, 0.5f));
    assert_float_equal(mn_mixer_time(f->mixer), 0.3f, 0.0f);
    assert_memory_equal(mn_mixer_worlds(f->mixer), worlds, sizeof worlds);

    /* A seek while paused shows (once) and stays paused. */
    mn_mixer_seek(f->mixer, 1.0f);
    assert_true(mn_mixer_update(f->mixer, 0.5f));
    assert_float_equal(mn_mixer_time(f->mixer), 1.0f, 0.0f);
    assert_false(mn_mixer_update(f->mixer, 0.5f));

    mn_mixer_resume(f->mixer);
    assert_true(mn_mixer_playing(f->mixer));
    assert_true(mn_mixer_update(f->mixer, 0.25f));
    assert_float_equal(mn_mixer_time(f->mixer), 1.25f, 0.0f);
}

static void speed_scales_time_and_at_offsets_the_start(void **state)
{
    fixture *f = *state;
    play(f, WALK, (mn_play_options){.speed = 2.0f, .at = 0.5f});
    assert_float_equal(mn_mixer_time(f->mixer), 0.5f, 0.0f);
    assert_float_equal(mn_mixer_speed(f->mixer), 2.0f, 0.0f);
    mn_mixer_update(f->mixer, 0.25f);
    assert_float_equal(mn_mixer_time(f->mixer), 1.0f, 0.0f);
    test_pose expected;
    expected_pose(f, WALK, 1.0f, &expected);
    assert_pose_bits(mn_mixer_pose(f->mixer), &expected.pose);

    /* A zeroed speed means 1; at wraps for a loop. */
    play(f, WALK, (mn_play_options){.at = 4.5f});
    assert_float_equal(mn_mixer_speed(f->mixer), 1.0f, 0.0f);
    assert_float_equal(mn_mixer_time(f->mixer), 0.5f, 0.0f);
    /* set_speed takes the value as given: 0 holds time still; negative plays back, wrapping. */
    mn_mixer_set_speed(f->mixer, 0.0f);
    mn_mixer_update(f->mixer, 0.5f);
    assert_float_equal(mn_mixer_time(f->mixer), 0.5f, 0.0f);
    mn_mixer_set_speed(f->mixer, -1.0f);
    mn_mixer_update(f->mixer, 0.75f);
    assert_float_equal(mn_mixer_time(f->mixer), 1.75f, 0.0f);
}

static void a_fade_halfway_is_the_lerp_and_slerp_of_both_poses(void **state)
{
    fixture *f = *state;
    play(f, WALK, (mn_play_options){0});
    mn_mixer_update(f->mixer, 0.5f);
    test_pose a, b;
    expected_pose(f, WALK, 0.5f, &a);
    assert_pose_bits(mn_mixer_pose(f->mixer), &a.pose);

    play(f, WAVE, (mn_play_options){.fade = 1.0f});
    assert_true(mn_mixer_fading(f->mixer));
    assert_int_equal(mn_mixer_source(f->mixer), WALK);
    assert_true(mn_mixer_update(f->mixer, 0.5f));
    assert_true(mn_mixer_fading(f->mixer));
    /* Walk, faded from, played on: it is at 1.0 s now, not frozen at 0.5 s. */
    assert_float_equal(mn_mixer_source_time(f->mixer), 1.0f, 0.0f);
    expected_pose(f, WALK, 1.0f, &a);
    expected_pose(f, WAVE, 0.5f, &b);
    const mn_pose *p = mn_mixer_pose(f->mixer);
    const float w = 0.5f;
    for (uint32_t i = 0; i < NODE_COUNT; i++) {
        for (int c = 0; c < 3; c++) {
            float t = a.pose.translations[3 * i + c] +
                      (b.pose.translations[3 * i + c] - a.pose.translations[3 * i + c]) * w;
            float s = a.pose.scales[3 * i + c] + (b.pose.scales[3 * i + c] - a.pose.scales[3 * i + c]) * w;
            assert_memory_equal(&p->translations[3 * i + c], &t, sizeof t);
            assert_memory_equal(&p->scales[3 * i + c], &s, sizeof s);
        }
        float r[4];
        mn_quat_slerp(r, a.pose.rotations + 4 * i, b.pose.rotations + 4 * i, w);
        assert_memory_equal(p->rotations + 4 * i, r, sizeof r);
    }
    /* The hand: walk left it at rest (0 0 1), wave at 0.5 s puts it at (0 2 0): halfway (0 1 0.5). */
    assert_float_near(p->translations[3 * HAND + 1], 1.0f, 1e-6);
    assert_float_near(p->translations[3 * HAND + 2], 0.5f, 1e-6);
    /* Weights lerp too: walk's (0.5 0.5) at 1 s towards wave's rest (0.25 0.5). */
    const float *weights = mn_mixer_weights(f->mixer, BLOB, NULL);
    float w0 = a.weights[0] + (b.weights[0] - a.weights[0]) * w;
    float w1 = a.weights[1] + (b.weights[1] - a.weights[1]) * w;
    assert_memory_equal(&weights[0], &w0, sizeof w0);
    assert_memory_equal(&weights[1], &w1, sizeof w1);
    assert_float_near(weights[0], 0.375f, 1e-7);
    assert_float_near(weights[1], 0.5f, 1e-7);

    /* The fade ends after its seconds: then the pose is wave's alone, and walk is dropped. */
    assert_true(mn_mixer_update(f->mixer, 0.5f));
    assert_false(mn_mixer_fading(f->mixer));
    assert_int_equal(mn_mixer_source(f->mixer), MN_NONE);
    expected_pose(f, WAVE, 0.0f /* 1.0 wrapped */, &b);
    assert_pose_bits(mn_mixer_pose(f->mixer), &b.pose);
}

static void a_fade_starts_from_the_pose_on_screen_even_mid_fade(void **state)
{
    fixture *f = *state;
    play(f, WALK, (mn_play_options){0});
    mn_mixer_update(f->mixer, 0.5f);
    play(f, WAVE, (mn_play_options){.fade = 1.0f});
    mn_mixer_update(f->mixer, 0.25f);
    /* The snapshot for the next fade is this blended pose. */
    test_pose on_screen;
    mn_pose_init(&on_screen.pose, NODE_COUNT, on_screen.storage);
    mn_pose_copy(&on_screen.pose, mn_mixer_pose(f->mixer));
    play(f, WALK, (mn_play_options){.fade = 0.5f, .at = 1.0f});
    assert_int_equal(mn_mixer_source(f->mixer), MN_NONE); /* a frozen snapshot, not a clip */
    /* A fade's clock stops while paused. */
    mn_mixer_pause(f->mixer);
    assert_true(mn_mixer_update(f->mixer, 10.0f));  /* shows the play (at 1.0, w = 0) */
    assert_false(mn_mixer_update(f->mixer, 10.0f)); /* then stays frozen */
    assert_true(mn_mixer_fading(f->mixer));
    assert_float_equal(mn_mixer_time(f->mixer), 1.0f, 0.0f);
    mn_mixer_resume(f->mixer);
    mn_mixer_update(f->mixer, 0.25f);
    test_pose target;
    expected_pose(f, WALK, 1.25f, &target);
    const mn_pose *p = mn_mixer_pose(f->mixer);
    for (uint32_t i = 0; i < NODE_COUNT; i++) {
        float r[4];
        mn_quat_slerp(r, on_screen.pose.rotations + 4 * i, target.pose.rotations + 4 * i, 0.5f);
        assert_memory_equal(p->rotations + 4 * i, r, sizeof r);
    }
}

/* What the mixer shows while fading from `a` to `b` by w: the lerp and slerp it documents. */
static void blended(const test_pose *a, const test_pose *b, float w, test_pose *out)
{
    mn_pose_init(&out->pose, NODE_COUNT, out->storage);
    for (uint32_t i = 0; i < NODE_COUNT; i++) {
        for (int c = 0; c < 3; c++) {
            size_t k = 3 * i + (size_t)c;
            out->pose.translations[k] =
                a->pose.translations[k] + (b->pose.translations[k] - a->pose.translations[k]) * w;
            out->pose.scales[k] = a->pose.scales[k] + (b->pose.scales[k] - a->pose.scales[k]) * w;
        }
        mn_quat_slerp(out->pose.rotations + 4 * i, a->pose.rotations + 4 * i,
                      b->pose.rotations + 4 * i, w);
    }
    for (int k = 0; k < 2; k++)
        out->weights[k] = a->weights[k] + (b->weights[k] - a->weights[k]) * w;
}

static void the_clip_faded_from_keeps_playing_at_its_own_speed(void **state)
{
    fixture *f = *state;
    play(f, WALK, (mn_play_options){.speed = 0.5f});
    mn_mixer_update(f->mixer, 0.4f); /* walk at 0.2 s */
    play(f, WAVE, (mn_play_options){.fade = 1.0f});
    test_pose a, b, want, first;
    expected_pose(f, WALK, 0.2f, &first);
    for (int k = 1; k <= 9; k++) {
        assert_true(mn_mixer_update(f->mixer, 0.1f));
        /* Walk advances by dt × its own speed 0.5; wave by dt; the weight by dt / fade. */
        float walk_t = mn_mixer_source_time(f->mixer), wave_t = mn_mixer_time(f->mixer);
        assert_int_equal(mn_mixer_source(f->mixer), WALK);
        assert_float_near(walk_t, 0.2f + 0.05f * (float)k, 1e-6);
        assert_float_near(wave_t, 0.1f * (float)k, 1e-6);
        expected_pose(f, WALK, walk_t, &a);
        expected_pose(f, WAVE, wave_t, &b);
        blended(&a, &b, (float)(0.1 * k / 1.0), &want);
        const mn_pose *p = mn_mixer_pose(f->mixer);
        for (uint32_t i = 0; i < NODE_COUNT; i++) {
            assert_float_near(p->translations[3 * i], want.pose.translations[3 * i], 1e-6);
            assert_float_near(p->translations[3 * i + 1], want.pose.translations[3 * i + 1], 1e-6);
            assert_float_near(p->translations[3 * i + 2], want.pose.translations[3 * i + 2], 1e-6);
            for (int c = 0; c < 4; c++)
                assert_float_near(p->rotations[4 * i + c], want.pose.rotations[4 * i + c], 1e-6);
        }
        const float *weights = mn_mixer_weights(f->mixer, BLOB, NULL);
        assert_float_near(weights[0], want.weights[0], 1e-6);
        /* The outgoing arm moved: its walk rotation is not the one it had when the fade began. */
        float turned = a.pose.rotations[4 * ARM + 2] - first.pose.rotations[4 * ARM + 2];
        assert_true(fabsf(turned) > 1e-3f);
    }
}

static void the_clip_faded_from_loops_or_clamps_as_it_did(void **state)
{
    fixture *f = *state;
    /* A looping walk 0.1 s before its end wraps while it fades out. */
    play(f, WALK, (mn_play_options){.at = 1.9f});
    mn_mixer_update(f->mixer, 0.0f);
    play(f, WAVE, (mn_play_options){.fade = 0.5f});
    mn_mixer_update(f->mixer, 0.3f);
    assert_int_equal(mn_mixer_source(f->mixer), WALK);
    assert_float_near(mn_mixer_source_time(f->mixer), 0.2f, 1e-6);
    /* A one-shot walk clamps at its end and holds it. */
    play(f, WALK, (mn_play_options){.once = true, .at = 1.9f});
    mn_mixer_update(f->mixer, 0.0f);
    play(f, WAVE, (mn_play_options){.fade = 0.5f});
    mn_mixer_update(f->mixer, 0.3f);
    assert_float_equal(mn_mixer_source_time(f->mixer), WALK_DURATION, 0.0f);
    test_pose a, b, want;
    expected_pose(f, WALK, WALK_DURATION, &a);
    expected_pose(f, WAVE, mn_mixer_time(f->mixer), &b);
    blended(&a, &b, 0.3f / 0.5f, &want);
    for (int c = 0; c < 4; c++)
        assert_float_near(mn_mixer_pose(f->mixer)->rotations[4 * ARM + c],
                          want.pose.rotations[4 * ARM + c], 1e-6);
    /* After the fade only wave is left. */
    mn_mixer_update(f->mixer, 0.3f);
    assert_false(mn_mixer_fading(f->mixer));
    assert_int_equal(mn_mixer_source(f->mixer), MN_NONE);
    assert_float_equal(mn_mixer_source_time(f->mixer), 0.0f, 0.0f);
}

/*
 * The largest change of any pose value (and morph weight) since `last`,
 * which then takes the pose on screen.  Rotations are compared up to sign.
 */
static float step_change(const mn_mixer *mixer, test_pose *last)
{
    const mn_pose *p = mn_mixer_pose(mixer);
    const float *w = mn_mixer_weights(mixer, BLOB, NULL);
    float most = 0.0f;
    for (uint32_t i = 0; i < 3 * NODE_COUNT; i++) {
        most = fmaxf(most, fabsf(p->translations[i] - last->pose.translations[i]));
        most = fmaxf(most, fabsf(p->scales[i] - last->pose.scales[i]));
    }
    for (uint32_t i = 0; i < NODE_COUNT; i++) {
        float same = 0.0f, flipped = 0.0f;
        for (int c = 0; c < 4; c++) {
            same = fmaxf(same, fabsf(p->rotations[4 * i + c] - last->pose.rotations[4 * i + c]));
            float r = p->rotations[4 * i + c], q = last->pose.rotations[4 * i + c];
            flipped = fmaxf(flipped, fabsf(r + q));
        }
        most = fmaxf(most, fminf(same, flipped));
    }
    for (int k = 0; k < 2; k++)
        most = fmaxf(most, fabsf(w[k] - last->weights[k]));
    mn_pose_copy(&last->pose, p);
    memcpy(last->weights, w, sizeof last->weights);
    return most;
}

/* Steps of dt through `seconds`: the largest change of one step. */
static float run_steps(fixture *f, float seconds, float dt, test_pose *last)
{
    float most = 0.0f;
    for (float t = 0.0f; t < seconds; t += dt) {
        mn_mixer_update(f->mixer, dt);
        most = fmaxf(most, step_change(f->mixer, last));
    }
    return most;
}

static void a_crossfade_is_continuous_at_its_start_its_end_and_an_interruption(void **state)
{
    fixture *f = *state;
    /*
     * In 1/600 s no value may move more than its clips' speeds allow: walk
     * moves 1 unit/s and turns 90°/s, wave moves 4 units/s, and a fade of F
     * seconds moves a value by at most |b − a| / F ≤ 4 / 0.3 a second — under
     * 20 a second together, 0.034 a step.  A jump (a source that is not what
     * was on screen) moves a value by far more in one step, as the hard cut
     * at the end shows.
     */
    const float dt = 1.0f / 600.0f, bound = 0.04f;
    test_pose last;
    memset(&last, 0, sizeof last);
    mn_pose_init(&last.pose, NODE_COUNT, last.storage);
    play(f, WALK, (mn_play_options){.at = 0.5f});
    mn_mixer_update(f->mixer, 0.0f);
    step_change(f->mixer, &last);
    assert_true(run_steps(f, 0.1f, dt, &last) < bound);
    /* Start: from walk, live, into wave; through the fade's end. */
    play(f, WAVE, (mn_play_options){.fade = 0.5f});
    assert_true(run_steps(f, 0.3f, dt, &last) < bound);
    assert_int_equal(mn_mixer_source(f->mixer), WALK);
    /* Interruption: back to walk mid-fade, from what is on screen, frozen. */
    play(f, WALK, (mn_play_options){.fade = 0.3f, .at = 0.5f});
    assert_int_equal(mn_mixer_source(f->mixer), MN_NONE);
    assert_true(run_steps(f, 0.25f, dt, &last) < bound);
    /* And again mid-fade, then through the end into walk alone. */
    play(f, WAVE, (mn_play_options){.fade = 0.3f});
    assert_true(run_steps(f, 0.4f, dt, &last) < bound);
    assert_false(mn_mixer_fading(f->mixer));
    /* The measure sees a jump: a hard cut moves the hand by a whole unit at once. */
    play(f, WALK, (mn_play_options){.at = 1.0f});
    mn_mixer_update(f->mixer, dt);
    assert_true(step_change(f->mixer, &last) > 10.0f * bound);
}

static void a_clip_of_another_space_is_refused_at_creation(void **state)
{
    fixture *f = *state;
    /* The mixer's pose holds the model's nodes. */
    mn_space nodes = mn_space_of_nodes(f->model);
    const mn_pose *pose = mn_mixer_pose(f->mixer);
    assert_int_equal(pose->space.kind, MN_SPACE_NODES);
    assert_int_equal(pose->space.count, NODE_COUNT);
    assert_true(pose->space.id == nodes.id);
    /* Tracks of this model's node count, but bound to a skeleton's joints: refused. */
    const float times[] = {0, 1}, values[] = {0, 0, 0, 1, 0, 0};
    mn_track track = {.target = ARM, .path = MN_PATH_TRANSLATION, .interpolation = MN_INTERP_LINEAR,
                      .key_count = 2, .components = 3, .times = times, .values = values};
    mn_clip *joints = NULL, *other = NULL, *loose = NULL;
    mn_error err;
    mn_space skeleton = {.kind = MN_SPACE_JOINTS, .count = NODE_COUNT, .id = nodes.id};
    mn_space another = {.kind = MN_SPACE_NODES, .count = NODE_COUNT, .id = nodes.id + 1};
    assert_int_equal(mn_clip_create(&track, 1, "slide", &(mn_clip_options){.space = skeleton},
                                    &joints, &err), MN_OK);
    assert_int_equal(mn_clip_create(&track, 1, "slide", &(mn_clip_options){.space = another},
                                    &other, &err), MN_OK);
    assert_int_equal(mn_clip_create(&track, 1, "slide", NULL, &loose, &err), MN_OK);
    mn_mixer *mixer = (mn_mixer *)1;
    const mn_clip *bad[] = {loose, joints};
    assert_int_equal(mn_mixer_create(f->model, &(mn_mixer_options){.clips = bad, .clip_count = 2},
                                     &mixer, &err), MN_INVALID_ARGUMENT);
    assert_null(mixer);
    assert_non_null(strstr(err.message, "clips[1]"));
    assert_non_null(strstr(err.message, "joints of a skeleton"));
    assert_non_null(strstr(err.message, "nodes of a model"));
    const mn_clip *wrong_model[] = {other};
    mn_mixer_options wrong = {.clips = wrong_model, .clip_count = 1};
    assert_int_equal(mn_mixer_create(f->model, &wrong, &mixer, &err), MN_INVALID_ARGUMENT);
    /* An unbound clip (the caller vouches for its targets) and the model's own clips play. */
    const mn_clip *good[] = {loose, mn_mixer_clip(f->mixer, WALK)};
    assert_int_equal(mn_mixer_create(f->model, &(mn_mixer_options){.clips = good, .clip_count = 2},
                                     &mixer, &err), MN_OK);
    mn_mixer_free(mixer);
    mn_clip_free(joints);
    mn_clip_free(other);
    mn_clip_free(loose);
}

static void errors_are_loud_and_change_nothing(void **state)
{
    fixture *f = *state;
    play(f, WALK, (mn_play_options){.at = 0.5f});
    mn_error err;
    assert_int_equal(mn_mixer_play_named(f->mixer, "run", NULL, &err), MN_INVALID_VALUE);
    assert_int_equal(err.code, MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "run"));
    assert_int_equal(mn_mixer_play(f->mixer, 2, NULL, &err), MN_INDEX_RANGE);
    assert_int_equal(mn_mixer_play(f->mixer, WAVE, &(mn_play_options){.fade = -1.0f}, &err),
                     MN_INVALID_ARGUMENT);
    assert_int_equal(mn_mixer_play(f->mixer, WAVE, &(mn_play_options){.fade = NAN}, &err),
                     MN_INVALID_ARGUMENT);
    assert_int_equal(mn_mixer_play(f->mixer, WAVE, &(mn_play_options){.speed = INFINITY}, &err),
                     MN_INVALID_ARGUMENT);
    assert_int_equal(mn_mixer_play(f->mixer, WAVE, &(mn_play_options){.at = NAN}, &err),
                     MN_INVALID_ARGUMENT);
    assert_int_equal(mn_mixer_play_named(f->mixer, NULL, NULL, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_mixer_play(NULL, 0, NULL, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_mixer_current(f->mixer), WALK);
    assert_float_equal(mn_mixer_time(f->mixer), 0.5f, 0.0f);
    assert_false(mn_mixer_fading(f->mixer));
    assert_int_equal(mn_mixer_play_named(f->mixer, "wave", NULL, &err), MN_OK);
    assert_int_equal(mn_mixer_current(f->mixer), WAVE);
    /* NaN and negative dt count as 0. */
    mn_mixer_update(f->mixer, NAN);
    mn_mixer_update(f->mixer, -1.0f);
    assert_float_equal(mn_mixer_time(f->mixer), 0.0f, 0.0f);
    /* NULL mixers are harmless everywhere. */
    assert_false(mn_mixer_update(NULL, 1.0f));
    assert_null(mn_mixer_worlds(NULL));
    mn_mixer_seek(NULL, 1.0f);
    mn_mixer_pause(NULL);
    mn_mixer_free(NULL);
}

static void scrubbing_backwards_gives_the_bits_of_playing_forwards(void **state)
{
    fixture *f = *state;
    enum { STEPS = 75 };
    static float times[STEPS], worlds[STEPS][16 * NODE_COUNT], weights[STEPS][2];
    play(f, WALK, (mn_play_options){0});
    for (int k = 0; k < STEPS; k++) {
        mn_mixer_update(f->mixer, 1.0f / 30.0f);
        times[k] = mn_mixer_time(f->mixer);
        memcpy(worlds[k], mn_mixer_worlds(f->mixer), sizeof worlds[k]);
        memcpy(weights[k], mn_mixer_weights(f->mixer, BLOB, NULL), sizeof weights[k]);
    }
    bool wrapped = false;
    for (int k = 1; k < STEPS; k++)
        wrapped = wrapped || times[k] < times[k - 1];
    assert_true(wrapped);
    mn_mixer_pause(f->mixer);
    for (int k = STEPS - 1; k >= 0; k--) {
        mn_mixer_seek(f->mixer, times[k]);
        assert_true(mn_mixer_update(f->mixer, 0.0f));
        assert_memory_equal(mn_mixer_worlds(f->mixer), worlds[k], sizeof worlds[k]);
        assert_memory_equal(mn_mixer_weights(f->mixer, BLOB, NULL), weights[k], sizeof weights[k]);
    }
    /* Random order too. */
    for (int k = 0; k < STEPS; k++) {
        int j = (k * 37) % STEPS;
        mn_mixer_seek(f->mixer, times[j]);
        mn_mixer_update(f->mixer, 0.0f);
        assert_memory_equal(mn_mixer_worlds(f->mixer), worlds[j], sizeof worlds[j]);
    }
}

/* ---- a caller's pose (mn_mixer_set_pose) -------------------------------------------- */

/* Wave at 0.5 s, with the never-animated "fixed" node moved too: a pose no clip makes. */
static void callers_pose(const fixture *f, test_pose *out)
{
    expected_pose(f, WAVE, 0.5f, out);
    const float moved[3] = {7, 0, 0};
    memcpy(out->pose.translations + 3 * FIXED, moved, sizeof moved);
}

static void set_pose_shows_the_callers_pose_on_every_node(void **state)
{
    fixture *f = *state;
    mn_error err;
    play(f, WALK, (mn_play_options){0});
    mn_mixer_update(f->mixer, 0.5f);
    test_pose p;
    callers_pose(f, &p);
    assert_int_equal(mn_mixer_set_pose(f->mixer, &p.pose, &err), MN_OK);
    assert_int_equal(mn_mixer_current(f->mixer), MN_NONE); /* clip playback stopped */
    assert_false(mn_mixer_playing(f->mixer));
    assert_true(mn_mixer_update(f->mixer, 0.25f));
    assert_pose_bits(mn_mixer_pose(f->mixer), &p.pose);
    float locals[16 * NODE_COUNT];
    for (uint32_t i = 0; i < NODE_COUNT; i++)
        mn_mat4_compose(locals + 16 * i, p.pose.translations + 3 * i, p.pose.rotations + 4 * i,
                        p.pose.scales + 3 * i);
    assert_memory_equal(mn_mixer_locals(f->mixer), locals, sizeof locals);
    for (uint32_t i = 0; i < NODE_COUNT; i++) {
        float world[16];
        expected_world(f->model, locals, i, world);
        assert_vec_near(mn_mixer_worlds(f->mixer) + 16 * i, world, 16, 1e-6);
    }
    /* Shown: nothing advances until the next set_pose or play. */
    assert_false(mn_mixer_update(f->mixer, 0.25f));
    assert_pose_bits(mn_mixer_pose(f->mixer), &p.pose);
}

static void a_play_after_set_pose_starts_from_it(void **state)
{
    fixture *f = *state;
    mn_error err;
    test_pose p, walk, expect;
    callers_pose(f, &p);
    assert_int_equal(mn_mixer_set_pose(f->mixer, &p.pose, &err), MN_OK);
    mn_mixer_update(f->mixer, 0);
    /* A fade starts from the caller's pose, frozen: halfway is its blend with the clip. */
    play(f, WALK, (mn_play_options){.fade = 1.0f});
    assert_int_equal(mn_mixer_source(f->mixer), MN_NONE);
    assert_true(mn_mixer_update(f->mixer, 0.5f));
    expected_pose(f, WALK, 0.5f, &walk);
    blended(&p, &walk, 0.5f, &expect);
    const mn_pose *pose = mn_mixer_pose(f->mixer);
    const uint32_t animated[] = {HAND, ARM};
    for (int k = 0; k < 2; k++) {
        uint32_t i = animated[k];
        assert_vec_near(pose->translations + 3 * i, expect.pose.translations + 3 * i, 3, 1e-6);
        assert_vec_near(pose->rotations + 4 * i, expect.pose.rotations + 4 * i, 4, 1e-6);
        assert_vec_near(pose->scales + 3 * i, expect.pose.scales + 3 * i, 3, 1e-6);
    }
    /* What no clip animates is back at rest, in the pose, the locals and the worlds. */
    assert_memory_equal(pose->translations + 3 * FIXED, f->model->nodes[FIXED].translation,
                        3 * sizeof(float));
    float rest_worlds[16 * NODE_COUNT];
    mn_model_rest_worlds(f->model, rest_worlds);
    assert_vec_near(mn_mixer_worlds(f->mixer) + 16 * FIXED, rest_worlds + 16 * FIXED, 16, 1e-6);
    /* A hard cut after a set_pose shows the clip alone. */
    assert_int_equal(mn_mixer_set_pose(f->mixer, &p.pose, &err), MN_OK);
    mn_mixer_update(f->mixer, 0);
    play(f, WALK, (mn_play_options){.at = 0.5f});
    assert_true(mn_mixer_update(f->mixer, 0));
    assert_pose_bits(mn_mixer_pose(f->mixer), &walk.pose);
    assert_vec_near(mn_mixer_worlds(f->mixer) + 16 * FIXED, rest_worlds + 16 * FIXED, 16, 1e-6);
}

static void set_pose_refuses_a_pose_of_another_shape_and_changes_nothing(void **state)
{
    fixture *f = *state;
    mn_error err;
    play(f, WALK, (mn_play_options){0});
    mn_mixer_update(f->mixer, 0.5f);
    test_pose p;
    callers_pose(f, &p);
    mn_pose fewer;
    mn_pose_init(&fewer, NODE_COUNT - 1, p.storage);
    assert_int_equal(mn_mixer_set_pose(f->mixer, &fewer, &err), MN_COUNT_MISMATCH);
    mn_space nodes = mn_space_of_nodes(f->model);
    callers_pose(f, &p);
    p.pose.space = (mn_space){.kind = MN_SPACE_JOINTS, .count = NODE_COUNT, .id = nodes.id};
    assert_int_equal(mn_mixer_set_pose(f->mixer, &p.pose, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "joints of a skeleton"));
    p.pose.space = (mn_space){.kind = MN_SPACE_NODES, .count = NODE_COUNT, .id = nodes.id + 1};
    assert_int_equal(mn_mixer_set_pose(f->mixer, &p.pose, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_mixer_set_pose(NULL, &p.pose, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_mixer_set_pose(f->mixer, NULL, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_mixer_current(f->mixer), WALK); /* still playing */
    assert_true(mn_mixer_playing(f->mixer));
    /* The mixer's own space (and an unbound pose) are taken. */
    p.pose.space = nodes;
    assert_int_equal(mn_mixer_set_pose(f->mixer, &p.pose, &err), MN_OK);
}

static void playing_allocates_nothing(void **state)
{
    fixture *f = *state;
    size_t before = f->counter.allocs, frees = f->counter.frees;
    mn_error err;
    play(f, WALK, (mn_play_options){0});
    for (int k = 0; k < 100; k++)
        mn_mixer_update(f->mixer, 1.0f / 60.0f);
    assert_int_equal(mn_mixer_play_named(f->mixer, "wave", &(mn_play_options){.fade = 0.3f}, &err),
                     MN_OK);
    for (int k = 0; k < 100; k++)
        mn_mixer_update(f->mixer, 1.0f / 60.0f);
    mn_mixer_seek(f->mixer, 0.1f);
    mn_mixer_pause(f->mixer);
    mn_mixer_update(f->mixer, 0.1f);
    mn_mixer_resume(f->mixer);
    mn_mixer_set_speed(f->mixer, -2.0f);
    play(f, WALK, (mn_play_options){.once = true, .fade = 0.2f});
    for (int k = 0; k < 6; k++)
        mn_mixer_update(f->mixer, 1.0f / 60.0f);
    play(f, WAVE, (mn_play_options){.fade = 0.2f}); /* an interruption: the snapshot */
    for (int k = 0; k < 200; k++)
        mn_mixer_update(f->mixer, 1.0f / 60.0f);
    assert_int_equal(mn_mixer_play_named(f->mixer, "nope", NULL, &err), MN_INVALID_VALUE);
    test_pose p;
    callers_pose(f, &p);
    for (int k = 0; k < 10; k++) {
        assert_int_equal(mn_mixer_set_pose(f->mixer, &p.pose, &err), MN_OK);
        mn_mixer_update(f->mixer, 1.0f / 60.0f);
    }
    play(f, WALK, (mn_play_options){.fade = 0.2f});
    mn_mixer_update(f->mixer, 1.0f / 60.0f);
    assert_int_equal(f->counter.allocs, before);
    assert_int_equal(f->counter.frees, frees);
}

static void every_allocation_failure_during_creation_is_reported_and_leaks_nothing(void **state)
{
    fixture *f = *state;
    bool succeeded = false;
    for (long fail_after = 0; fail_after < 200 && !succeeded; fail_after++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = fail_after;
        mn_mixer_options options = {.allocator = mn_counting_allocator(&counter)};
        mn_mixer *mixer = NULL;
        mn_error err;
        mn_status st = mn_mixer_create(f->model, &options, &mixer, &err);
        if (st == MN_OK) {
            succeeded = true;
            assert_int_equal(counter.failures, 0);
            mn_mixer_free(mixer);
        } else {
            assert_int_equal(st, MN_OUT_OF_MEMORY);
            assert_null(mixer);
        }
        assert_int_equal(counter.live_bytes, 0);
    }
    assert_true(succeeded);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
        T(a_new_mixer_shows_the_rest_pose_and_plays_nothing),
        T(worlds_compose_parents_first_whatever_the_node_order),
        T(borrowed_clips_are_played_and_not_freed),
        T(a_parent_cycle_in_a_hand_built_model_is_refused),
        T(the_pose_is_the_rest_pose_overwritten_by_the_clip),
        T(nodes_no_clip_animates_keep_their_rest_matrices),
        T(a_looping_clip_wraps_and_keeps_playing),
        T(a_one_shot_sets_done_which_stays_until_the_next_play),
        T(a_backwards_one_shot_ends_at_zero),
        T(seek_wraps_for_loops_and_clamps_for_one_shots),
        T(pausing_freezes_the_pose_until_resume),
        T(speed_scales_time_and_at_offsets_the_start),
        T(a_fade_halfway_is_the_lerp_and_slerp_of_both_poses),
        T(a_fade_starts_from_the_pose_on_screen_even_mid_fade),
        T(the_clip_faded_from_keeps_playing_at_its_own_speed),
        T(the_clip_faded_from_loops_or_clamps_as_it_did),
        T(a_crossfade_is_continuous_at_its_start_its_end_and_an_interruption),
        T(a_clip_of_another_space_is_refused_at_creation),
        T(errors_are_loud_and_change_nothing),
        T(scrubbing_backwards_gives_the_bits_of_playing_forwards),
        T(set_pose_shows_the_callers_pose_on_every_node),
        T(a_play_after_set_pose_starts_from_it),
        T(set_pose_refuses_a_pose_of_another_shape_and_changes_nothing),
        T(playing_allocates_nothing),
        T(every_allocation_failure_during_creation_is_reported_and_leaks_nothing),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
