/*
 * Compressed clips (marionette/compress.h): the error metric (zero for a
 * clip against itself, a root error counted at the hands, per-joint
 * figures), compression of generated clips within the bound as the metric
 * measures it independently through the view, constant and rest tracks
 * collapsed, a file round trip giving the same bits, corrupted blocks
 * refused naming the item, sampling allocation-free, the cursor giving the
 * bits of random access, and the mixer and a blend tree taking a compressed
 * clip as they take a raw one.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/blend_tree.h>
#include <marionette/compress.h>
#include <marionette/instance.h>
#include <marionette/mixer.h>
#include <marionette/pool.h>

#include "anim/clip_internal.h"
#include "anim/compress_internal.h"
#include "anim/compressed_sample.h"
#include "anim_gen.h"
#include "counting_alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static anim_gen mocap, game;

static int setup(void **state)
{
    (void)state;
    if (!anim_gen_mocap(3.0f, 120.0f, 0.0f, &mocap) || !anim_gen_game(&game))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    anim_gen_free(&mocap);
    anim_gen_free(&game);
    return 0;
}

static mn_compressed_clip *compress(const anim_gen *g, mn_compress_stats *stats)
{
    mn_compressed_clip *cc = NULL;
    mn_error err;
    mn_status st = mn_compress_clip(g->clip, g->skeleton, NULL, &cc, stats, &err);
    if (st != MN_OK)
        fail_msg("%s", err.message);
    return cc;
}

/* ---- the metric ----------------------------------------------------------------------- */

static void metric_zero_for_identical(void **state)
{
    (void)state;
    mn_clip_error e;
    uint32_t n = mocap.skeleton->joint_count;
    float *jm = calloc(n, sizeof(float)), *jp = calloc(n, sizeof(float));
    mn_error err;
    assert_int_equal(mn_clip_error_measure(mocap.skeleton, mocap.clip, mocap.clip, NULL, &e, jm, jp,
                                           &err),
                     MN_OK);
    assert_true(e.max == 0.0f && e.p99 == 0.0f);
    assert_int_equal(e.time_count, 2 * 361 - 1); /* 361 keys and the 360 midpoints */
    for (uint32_t j = 0; j < n; j++)
        assert_true(jm[j] == 0.0f && jp[j] == 0.0f);
    free(jm);
    free(jp);
}

/* A root rotated by δ more than the reference: each joint errs by δ times its distance from the root. */
static void metric_root_error_shows_at_hands(void **state)
{
    (void)state;
    const mn_skeleton *sk = mocap.skeleton;
    uint32_t hips = mn_skeleton_find(sk, "hips"), hand = mn_skeleton_find(sk, "finger2_2_l");
    assert_true(hips != MN_NONE && hand != MN_NONE);
    /* One key, the rest pose with the root rotated by 1 mrad about z. */
    float times[1] = {0}, rot[4], none[4] = {0, 0, 0, 1};
    const float axis[3] = {0, 0, 1};
    mn_quat_from_axis_angle(rot, axis, 1e-3f);
    mn_track tr = {.target = hips, .path = MN_PATH_ROTATION, .interpolation = MN_INTERP_LINEAR,
                   .key_count = 1, .components = 4, .times = times, .values = rot};
    mn_track tr0 = tr;
    tr0.values = none;
    mn_clip_options o = {.space = sk->space};
    mn_clip *a, *b;
    mn_error err;
    assert_int_equal(mn_clip_create(&tr0, 1, "ref", &o, &a, &err), MN_OK);
    assert_int_equal(mn_clip_create(&tr, 1, "rotated", &o, &b, &err), MN_OK);
    float *jm = calloc(sk->joint_count, sizeof(float));
    mn_clip_error e;
    assert_int_equal(mn_clip_error_measure(sk, a, b, NULL, &e, jm, NULL, &err), MN_OK);
    /* The hips' own vertices move by δ × shell; the finger tip's, about a metre out, by far more. */
    assert_float_equal(jm[hips], 1e-3f * 0.03f, 2e-6f);
    float *w = calloc(16 * (size_t)sk->joint_count, sizeof(float));
    mn_skeleton_local_to_world(sk, &sk->rest, 0, w);
    float dx = w[16 * hand + 12] - w[16 * hips + 12], dy = w[16 * hand + 13] - w[16 * hips + 13];
    float reach = sqrtf(dx * dx + dy * dy); /* distance in the plane of the rotation */
    assert_true(reach > 0.5f);
    assert_true(jm[hand] > 1e-3f * reach * 0.99f);
    assert_true(jm[hand] < 1e-3f * (reach + 0.03f) * 1.01f);
    assert_true(e.max >= jm[hand] && e.worst_joint != hips);
    free(w);
    free(jm);
    mn_clip_free(a);
    mn_clip_free(b);
}

/* ---- compression ---------------------------------------------------------------------- */

static void compress_mocap_within_bound(void **state)
{
    (void)state;
    mn_compress_stats st;
    mn_compressed_clip *cc = compress(&mocap, &st);
    assert_true(st.bound_met);
    assert_true(st.max_error <= MN_COMPRESS_ERROR_DEFAULT);
    assert_int_equal(st.frame_count, 361);
    /* Measured again, independently, through the view every consumer uses. */
    mn_clip *view;
    mn_error err;
    assert_int_equal(mn_clip_from_compressed(cc, NULL, &view, &err), MN_OK);
    mn_clip_error e;
    assert_int_equal(mn_clip_error_measure(mocap.skeleton, mocap.clip, view, NULL, &e, NULL, NULL,
                                           &err),
                     MN_OK);
    assert_true(e.max <= MN_COMPRESS_ERROR_DEFAULT);
    assert_float_equal(e.max, st.max_error, 1e-9f);
    assert_true(e.p99 <= e.max);
    /* Not a timing: a size.  Smooth curves keep few knots. */
    assert_true(st.bytes * 8 < mocap.raw_bytes);
    mn_clip_free(view);
    mn_compressed_clip_free(cc, NULL);
}

static void compress_collapses_constant_and_rest(void **state)
{
    (void)state;
    mn_compress_stats st;
    mn_compressed_clip *cc = compress(&game, &st);
    assert_true(st.bound_met);
    /* 64 scales at 1 and 47 translations at rest are rest; 16 translations held off rest. */
    assert_true(st.default_tracks >= 64 + 47);
    assert_true(st.constant_tracks >= 16);
    assert_int_equal(st.animated_tracks + st.constant_tracks + st.default_tracks, 3 * 64);
    mn_compressed_clip_info info = mn_compressed_clip_info_of(cc);
    assert_int_equal(info.track_count, st.animated_tracks + st.constant_tracks);
    assert_string_equal(info.name, "game");
    assert_int_equal(info.frame_count, 61);
    /*
     * Fixed costs: a rest track has no record at all; a constant's record is its desc byte,
     * its target (LEB128) and its value (a rotation's w dropped where that holds); the block
     * is the header (magic, version, flags, checksum, then LEB128 sizes and counts, the
     * duration, the space's count and id, the two bf16 errors and the name's length: 31
     * bytes here), the records back to back and the name with its NUL and the zeros that
     * make 8 bytes after the records, nothing else.
     */
    mni_cc_header h = mni_cc_head(cc);
    const uint8_t *at = h.records;
    size_t records = 0;
    bool dropped = false;
    for (uint32_t i = 0; i < info.track_count; i++) {
        mni_cc_track tr;
        uint32_t size = mni_cc_parse(at, info.frame_count, &tr);
        if (tr.kind == MNI_CC_CONSTANT)
            assert_int_equal(size, 1 + (tr.target < 128 ? 1 : 2) + 4 * tr.components);
        dropped = dropped || (tr.kind == MNI_CC_CONSTANT && tr.components == 3 &&
                              tr.path == MN_PATH_ROTATION);
        records += size;
        at += size;
    }
    size_t head = 4 + 1 + 1 + 4 + 2 + 1 + 1 + 4 + (info.space.kind ? 1 : 0) +
                  (info.space.id ? 8 : 0) + 4 + 1; /* 2-byte total size, 1-byte counts */
    assert_int_equal(h.header_size, head);
    assert_int_equal(info.bytes, head + records + strlen("game") + 1 + MNI_CC_TAIL - 5);
    mn_compressed_clip_free(cc, NULL);
}

/* The OOM walk: every allocation of compression in turn fails, cleanly. */
static void compress_out_of_memory(void **state)
{
    (void)state;
    for (long n = 0;; n++) {
        mn_counting_alloc c = mn_counting_alloc_make();
        c.fail_after = n;
        mn_compress_options o = {.allocator = mn_counting_allocator(&c)};
        mn_compressed_clip *cc = NULL;
        mn_error err;
        mn_status st = mn_compress_clip(game.clip, game.skeleton, &o, &cc, NULL, &err);
        if (st == MN_OK) {
            mn_compressed_clip_free(cc, &o.allocator);
            assert_int_equal(c.live_bytes, 0);
            break;
        }
        assert_int_equal(st, MN_OUT_OF_MEMORY);
        assert_null(cc);
        assert_int_equal(c.live_bytes, 0);
    }
}

/* ---- the file ---------------------------------------------------------------------------- */

static bool same_pose(const mn_pose *a, const mn_pose *b)
{
    size_t n = a->joint_count;
    return memcmp(a->translations, b->translations, 12 * n) == 0 &&
           memcmp(a->rotations, b->rotations, 16 * n) == 0 &&
           memcmp(a->scales, b->scales, 12 * n) == 0;
}

static void file_round_trip_same_bits(void **state)
{
    (void)state;
    mn_compressed_clip *cc = compress(&mocap, NULL);
    mn_compressed_clip_info info = mn_compressed_clip_info_of(cc);
    char path[] = "/tmp/mn_compress_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_int_equal(fwrite(cc, 1, info.bytes, f), info.bytes);
    fclose(f);
    f = fopen(path, "rb");
    void *bytes = aligned_alloc(8, (info.bytes + 7) & ~(size_t)7);
    assert_int_equal(fread(bytes, 1, info.bytes, f), info.bytes);
    fclose(f);
    remove(path);
    const mn_compressed_clip *back;
    mn_error err;
    assert_int_equal(mn_compressed_clip_view(bytes, info.bytes, &back, &err), MN_OK);
    assert_ptr_equal(back, bytes);
    mn_pose a, b;
    uint32_t n = mocap.skeleton->joint_count;
    mn_pose_create(&a, n, NULL, &err);
    mn_pose_create(&b, n, NULL, &err);
    for (int i = 0; i <= 700; i++) {
        float t = (float)i * 0.0043f;
        mn_pose_copy(&a, &mocap.skeleton->rest);
        mn_pose_copy(&b, &mocap.skeleton->rest);
        assert_int_equal(mn_compressed_clip_sample(cc, t, &a, &err), MN_OK);
        assert_int_equal(mn_compressed_clip_sample(back, t, &b, &err), MN_OK);
        assert_true(same_pose(&a, &b));
    }
    mn_pose_free(&a);
    mn_pose_free(&b);
    free(bytes);
    mn_compressed_clip_free(cc, NULL);
}

/* A copy of the block with `edit` applied and, when reseal, its checksum made right again. */
static mn_status view_edited(const mn_compressed_clip *cc, size_t size, void (*edit)(uint8_t *),
                             bool reseal, mn_error *err)
{
    mn_compressed_clip_info info = mn_compressed_clip_info_of(cc);
    uint8_t *copy = aligned_alloc(8, (info.bytes + 7) & ~(size_t)7);
    memcpy(copy, cc, info.bytes);
    edit(copy);
    if (reseal) {
        uint32_t total = mni_cc_head((const mn_compressed_clip *)(const void *)copy).total_size;
        uint32_t h = 2166136261u;
        for (uint32_t i = MNI_CC_CHECKED_FROM; i < total && i < info.bytes; i++)
            h = (h ^ copy[i]) * 16777619u;
        memcpy(copy + 6, &h, 4);
    }
    const mn_compressed_clip *v;
    mn_status st = mn_compressed_clip_view(copy, size, &v, err);
    if (st != MN_OK)
        assert_null(v);
    free(copy);
    return st;
}

static void flip_data_byte(uint8_t *b) { b[200] ^= 0x40; }
static void bad_magic(uint8_t *b) { b[0] = 'X'; }
static void bad_version(uint8_t *b) { b[4] = 9; }
/* The first animated record of a block (the header read out). */
static uint8_t *first_animated(uint8_t *b, uint32_t *stride_at)
{
    mni_cc_header h = mni_cc_head((const mn_compressed_clip *)(const void *)b);
    uint8_t *at = b + h.header_size;
    for (uint32_t i = 0; i < h.track_count; i++) {
        mni_cc_track tr;
        uint32_t size = mni_cc_parse(at, h.frame_count, &tr);
        if (tr.kind == MNI_CC_ANIMATED) {
            uint32_t lead = 1;
            while (at[lead] & 0x80u)
                lead++;
            *stride_at = lead + 1; /* past desc and the LEB128 target: the packed widths */
            assert_false(tr.flags & MNI_CC_KEYED);
            return at;
        }
        at += size;
    }
    fail_msg("no animated record");
    return NULL;
}
/* The track count's first LEB128 byte (after the total size and the frame count). */
static uint8_t *track_count_byte(uint8_t *b)
{
    uint8_t *at = b + MNI_CC_CHECKED_FROM;
    for (int field = 0; field < 2; field++) {
        while (*at & 0x80u)
            at++;
        at++;
    }
    assert_true((*at & 0x7fu) != 0x7fu && (*at & 0x7fu) != 0);
    return at;
}
static void add_track(uint8_t *b) { (*track_count_byte(b))++; }
static void drop_track(uint8_t *b) { (*track_count_byte(b))--; }
static void bad_track_bits(uint8_t *b)
{
    uint32_t stride_at = 0;
    uint8_t *r = first_animated(b, &stride_at);
    /* The first component's bits: the packed widths' bits 5 to 9. */
    uint32_t v = r[stride_at] | (uint32_t)r[stride_at + 1] << 8;
    v = (v & ~(31u << 5)) | (MNI_CC_MAX_BITS + 1) << 5;
    r[stride_at] = (uint8_t)v;
    r[stride_at + 1] = (uint8_t)(v >> 8);
}
static void bad_track_stride(uint8_t *b)
{
    uint32_t stride_at = 0;
    uint8_t *r = first_animated(b, &stride_at);
    r[stride_at] = (uint8_t)((r[stride_at] & ~7u) | (MNI_CC_MAX_STRIDE_LOG2 + 1));
}
static void bad_track_form(uint8_t *b)
{
    uint32_t stride_at = 0;
    uint8_t *r = first_animated(b, &stride_at);
    r[0] = (uint8_t)((r[0] | MNI_CC_DESC_DELTA2) & ~MNI_CC_DESC_DELTA); /* no first differences */
}
static void bad_tail(uint8_t *b)
{
    b[mni_cc_head((const mn_compressed_clip *)(const void *)b).total_size - 1] = 1;
}
static void no_edit(uint8_t *b) { (void)b; }

static void corrupted_blocks_refused(void **state)
{
    (void)state;
    mn_compressed_clip *cc = compress(&mocap, NULL);
    size_t size = mn_compressed_clip_info_of(cc).bytes;
    mn_error err;
    assert_int_equal(view_edited(cc, size, no_edit, false, &err), MN_OK);
    assert_int_equal(view_edited(cc, size, flip_data_byte, false, &err), MN_INVALID_VALUE);
    assert_string_equal(err.path, "header.checksum");
    assert_int_equal(view_edited(cc, size, bad_magic, false, &err), MN_INVALID_VALUE);
    assert_string_equal(err.path, "header.magic");
    assert_int_equal(view_edited(cc, size, bad_version, true, &err), MN_INVALID_VALUE);
    assert_string_equal(err.path, "header.version");
    assert_int_equal(view_edited(cc, size - 1, no_edit, false, &err), MN_ACCESSOR_BOUNDS);
    assert_string_equal(err.path, "header.total_size");
    assert_int_equal(view_edited(cc, 12, no_edit, false, &err), MN_ACCESSOR_BOUNDS);
    assert_string_equal(err.path, "header");
    /* One record more than the block holds runs into the tail; one fewer leaves bytes over. */
    assert_int_equal(view_edited(cc, size, add_track, true, &err), MN_ACCESSOR_BOUNDS);
    assert_non_null(strstr(err.path, "].desc"));
    assert_int_equal(view_edited(cc, size, drop_track, true, &err), MN_COUNT_MISMATCH);
    assert_string_equal(err.path, "header.track_count");
    assert_int_equal(view_edited(cc, size, bad_track_bits, true, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.path, "].bits"));
    assert_int_equal(view_edited(cc, size, bad_track_stride, true, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.path, "].stride_log2"));
    assert_int_equal(view_edited(cc, size, bad_track_form, true, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.path, "].desc"));
    assert_int_equal(view_edited(cc, size, bad_tail, true, &err), MN_INVALID_VALUE);
    assert_string_equal(err.path, "tail");
    /* A block that is not 8-aligned is refused, not read. */
    const mn_compressed_clip *v;
    assert_int_equal(mn_compressed_clip_view((const uint8_t *)cc + 4, size, &v, &err),
                     MN_INVALID_ARGUMENT);
    mn_compressed_clip_free(cc, NULL);
}

/* ---- sampling ------------------------------------------------------------------------- */

static void cursor_gives_random_access_bits(void **state)
{
    (void)state;
    /* mocap: B-spline strides and stride 1; game: constants, stride 1 and w kept. */
    const anim_gen *gens[2] = {&mocap, &game};
    for (int g = 0; g < 2; g++) {
        mn_compressed_clip *cc = compress(gens[g], NULL);
        mn_clip *view;
        mn_error err;
        assert_int_equal(mn_clip_from_compressed(cc, NULL, &view, &err), MN_OK);
        if (g == 0)
            assert_float_equal(mn_clip_duration(view), 3.0f, 1e-6f);
        uint32_t n = gens[g]->skeleton->joint_count;
        mn_pose a, b;
        mn_pose_create(&a, n, NULL, &err);
        mn_pose_create(&b, n, NULL, &err);
        void *storage = malloc(mn_clip_cursor_storage_size(view));
        mn_clip_cursor cursor;
        mn_clip_cursor_init(&cursor, view, storage);
        for (int i = 0; i <= 400; i++) {
            /* Forward playback (spans advance one at a time), with a jump back now and then. */
            float t = (i % 97 == 96) ? 0.5f : (float)i * (1.0f / 60.0f) * 0.5f;
            mn_pose_copy(&a, &gens[g]->skeleton->rest);
            mn_pose_copy(&b, &gens[g]->skeleton->rest);
            assert_int_equal(mn_clip_sample_cursor(view, t, &cursor, &a, &err), MN_OK);
            assert_int_equal(mn_clip_sample(view, t, &b, &err), MN_OK);
            assert_true(same_pose(&a, &b));
        }
        free(storage);
        mn_pose_free(&a);
        mn_pose_free(&b);
        mn_clip_free(view);
        mn_compressed_clip_free(cc, NULL);
    }
}

/* Sampling allocates nothing: a counting allocator behind malloc's back would show it. */
static void sampling_allocates_nothing(void **state)
{
    (void)state;
    mn_counting_alloc c = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&c);
    mn_compress_options o = {.allocator = hooks};
    mn_compressed_clip *cc = NULL;
    mn_error err;
    assert_int_equal(mn_compress_clip(mocap.clip, mocap.skeleton, &o, &cc, NULL, &err), MN_OK);
    mn_clip *view;
    assert_int_equal(mn_clip_from_compressed(cc, &hooks, &view, &err), MN_OK);
    mn_pose p;
    mn_pose_create(&p, mocap.skeleton->joint_count, &hooks, &err);
    void *storage = malloc(mn_clip_cursor_storage_size(view));
    mn_clip_cursor cursor;
    size_t allocs = c.allocs;
    mn_clip_cursor_init(&cursor, view, storage);
    for (int i = 0; i < 200; i++) {
        assert_int_equal(mn_clip_sample(view, (float)i * 0.013f, &p, &err), MN_OK);
        assert_int_equal(mn_compressed_clip_sample(cc, (float)i * 0.017f, &p, &err), MN_OK);
        assert_int_equal(mn_clip_sample_cursor(view, (float)i * 0.011f, &cursor, &p, &err), MN_OK);
    }
    assert_int_equal(c.allocs, allocs);
    free(storage);
    mn_pose_free(&p);
    mn_clip_free(view);
    mn_compressed_clip_free(cc, &hooks);
    assert_int_equal(c.live_bytes, 0);
}

/* A clip with a rotation past 180° (w changes sign: all four stored), a STEP track and a slow curve. */
static mn_clip *odd_clip(void)
{
    enum { K = 90 };
    static float times[K], turn[4 * K], steps[3 * K], slow[4 * K];
    const float axis[3] = {0.3f, 0.9f, 0.1f}, axis2[3] = {1, 0, 0};
    for (int k = 0; k < K; k++) {
        times[k] = (float)k / 30.0f;
        mn_quat_from_axis_angle(turn + 4 * k, axis, 5.5f * (float)k / K);
        mn_quat_from_axis_angle(slow + 4 * k, axis2, 0.4f * sinf(times[k]));
        for (int c = 0; c < 3; c++)
            steps[3 * k + c] = (float)((k / 7) % 3) * 0.1f * (float)(c + 1);
    }
    mn_track tr[3] = {
        {.target = 1, .path = MN_PATH_ROTATION, .interpolation = MN_INTERP_LINEAR, .key_count = K,
         .components = 4, .times = times, .values = turn},
        {.target = 2, .path = MN_PATH_TRANSLATION, .interpolation = MN_INTERP_STEP, .key_count = K,
         .components = 3, .times = times, .values = steps},
        {.target = 3, .path = MN_PATH_ROTATION, .interpolation = MN_INTERP_LINEAR, .key_count = K,
         .components = 4, .times = times, .values = slow},
    };
    mn_clip_options o = {.space = game.skeleton->space};
    mn_clip *clip;
    mn_error err;
    assert_int_equal(mn_clip_create(tr, 3, "odd", &o, &clip, &err), MN_OK);
    return clip;
}

/*
 * Few keys unevenly spaced on a 24 Hz grid (as glTF exporters write them): a LINEAR
 * translation, a STEP rotation and a LINEAR rotation, each best kept at its keys (keyed).
 */
static mn_clip *keyed_clip(void)
{
    enum { K = 5 };
    static const float frames[K] = {0, 10, 21, 30, 40};
    static float times[K], moves[3 * K], turns[4 * K], sways[4 * K];
    const float axis[3] = {0, 0, 1}, axis2[3] = {0.6f, 0.8f, 0};
    for (int k = 0; k < K; k++) {
        times[k] = frames[k] / 24.0f;
        moves[3 * k] = 0.1f * (float)(k % 2);
        moves[3 * k + 1] = 0.05f * (float)k;
        moves[3 * k + 2] = -0.02f;
        mn_quat_from_axis_angle(turns + 4 * k, axis, 0.7f * (float)k);
        mn_quat_from_axis_angle(sways + 4 * k, axis2, 0.05f * (float)(k % 3));
    }
    mn_track tr[3] = {
        {.target = 1, .path = MN_PATH_TRANSLATION, .interpolation = MN_INTERP_LINEAR, .key_count = K,
         .components = 3, .times = times, .values = moves},
        {.target = 2, .path = MN_PATH_ROTATION, .interpolation = MN_INTERP_STEP, .key_count = K,
         .components = 4, .times = times, .values = turns},
        {.target = 3, .path = MN_PATH_ROTATION, .interpolation = MN_INTERP_LINEAR, .key_count = K,
         .components = 4, .times = times, .values = sways},
    };
    mn_clip_options o = {.space = game.skeleton->space};
    mn_clip *clip;
    mn_error err;
    assert_int_equal(mn_clip_create(tr, 3, "keyed", &o, &clip, &err), MN_OK);
    return clip;
}

/*
 * Six LINEAR rotations and a STEP translation, each keyed at its own uneven
 * frames (a KEYED record each: no span is shared between them), beside a
 * densely keyed rotation (a stride's shared span).
 */
static mn_clip *keyed_mixed_clip(void)
{
    enum { T = 7, K = 6, D = 49 };
    static float times[T][K], values[T][4 * K], dense_t[D], dense_v[4 * D];
    const float axis[3] = {0.6f, 0.8f, 0};
    mn_track tr[T + 1];
    for (int i = 0; i < T; i++) {
        bool step = i == T - 1;
        for (int k = 0; k < K; k++) {
            /* Frames 0 .. 48 on a 24 Hz grid, uneven and different per track. */
            float frame = k == K - 1 ? 48.0f : (float)(k * (6 + i / 2) + (k > 1 ? i % 3 : 0));
            times[i][k] = frame / 24.0f;
            if (step) {
                for (int c = 0; c < 3; c++)
                    values[i][3 * k + c] = 0.1f * (float)((k + c) % 3);
            } else {
                mn_quat_from_axis_angle(values[i] + 4 * k, axis,
                                        0.03f * (float)k + 0.01f * (float)(i * (k % 2)));
            }
        }
        tr[i] = (mn_track){.target = (uint32_t)i + 1u,
                           .path = step ? MN_PATH_TRANSLATION : MN_PATH_ROTATION,
                           .interpolation = step ? MN_INTERP_STEP : MN_INTERP_LINEAR,
                           .key_count = K, .components = step ? 3u : 4u,
                           .times = times[i], .values = values[i]};
    }
    for (int k = 0; k < D; k++) {
        dense_t[k] = (float)k / 24.0f;
        mn_quat_from_axis_angle(dense_v + 4 * k, axis, 0.5f * sinf(0.3f * (float)k));
    }
    tr[T] = (mn_track){.target = T + 1, .path = MN_PATH_ROTATION,
                       .interpolation = MN_INTERP_LINEAR, .key_count = D, .components = 4,
                       .times = dense_t, .values = dense_v};
    mn_clip_options o = {.space = game.skeleton->space};
    mn_clip *clip;
    mn_error err;
    assert_int_equal(mn_clip_create(tr, T + 1, "keyed mixed", &o, &clip, &err), MN_OK);
    return clip;
}

/* The SSE2 decoder (where built) against the scalar reference, bit for bit, on every kind of track. */
static void simd_matches_scalar(void **state)
{
    (void)state;
    mn_clip *odd = odd_clip(), *keyed = keyed_clip();
    anim_gen jitter; /* noisy keys: first differences */
    assert_true(anim_gen_mocap(0.5f, 120.0f, 0.002f, &jitter));
    const anim_gen *gens[6] = {&mocap, &game, &game, &game, &mocap, &jitter};
    unsigned forms[3] = {0, 0, 0}; /* plain, differences, of differences: each is decoded */
    unsigned keyed_records = 0, long_segments = 0;
    const mn_clip *clips[6] = {mocap.clip, game.clip, odd, keyed, mocap.clip, jitter.clip};
    for (int g = 0; g < 6; g++) {
        mn_compressed_clip *cc = NULL;
        mn_compress_stats st;
        mn_error err;
        mn_compress_options po = {.plain_only = g == 4};
        assert_int_equal(mn_compress_clip(clips[g], gens[g]->skeleton, &po, &cc, &st, &err), MN_OK);
        assert_true(st.bound_met);
        if (g == 2) {
            /* The half turn and more keeps w; the STEP track holds exactly. */
            const uint8_t *at = mni_cc_records(cc);
            bool four = false;
            for (uint32_t i = 0; i < mni_cc_head(cc).track_count; i++) {
                mni_cc_track tr;
                at += mni_cc_parse(at, mni_cc_head(cc).frame_count, &tr);
                four = four || (tr.path == MN_PATH_ROTATION && tr.components == 4);
            }
            assert_true(four);
        }
        const uint8_t *rec = mni_cc_records(cc);
        for (uint32_t i = 0; i < mni_cc_head(cc).track_count; i++) {
            mni_cc_track tr;
            rec += mni_cc_parse(rec, mni_cc_head(cc).frame_count, &tr);
            if (tr.kind == MNI_CC_ANIMATED)
                forms[(tr.flags & MNI_CC_DELTA2) ? 2 : (tr.flags & MNI_CC_DELTA) ? 1 : 0]++;
            keyed_records += (tr.flags & MNI_CC_KEYED) != 0;
            long_segments += tr.kind == MNI_CC_ANIMATED && tr.segment_log2 > MNI_CC_SEGMENT_LOG2_MIN;
        }
        const mn_skeleton *sk = gens[g]->skeleton;
        mn_pose a, b;
        mn_pose_create(&a, sk->joint_count, NULL, &err);
        mn_pose_create(&b, sk->joint_count, NULL, &err);
        float d = mn_compressed_clip_info_of(cc).duration;
        for (int i = 0; i <= 997; i++) {
            float t = d * (float)i / 997.0f * 1.01f - 0.01f;
            mn_pose_copy(&a, &sk->rest);
            mn_pose_copy(&b, &sk->rest);
            mni_compressed_sample(cc, t, NULL, &a, MN_SIMD_SCALAR);
            mni_compressed_sample(cc, t, NULL, &b, MN_SIMD_BEST);
            assert_true(same_pose(&a, &b));
        }
        mn_pose_free(&a);
        mn_pose_free(&b);
        mn_compressed_clip_free(cc, NULL);
    }
    assert_true(forms[0] > 0 && forms[1] > 0 && forms[2] > 0);
    assert_true(keyed_records >= 2 && long_segments > 0);
    /* plain_only: no record of differences, and the bound still met. */
    mn_compress_options po = {.plain_only = true};
    mn_compressed_clip *plain = NULL;
    mn_compress_stats pst;
    assert_int_equal(mn_compress_clip(mocap.clip, mocap.skeleton, &po, &plain, &pst, NULL), MN_OK);
    assert_true(pst.bound_met);
    const uint8_t *pr = mni_cc_records(plain);
    for (uint32_t i = 0; i < mni_cc_head(plain).track_count; i++) {
        mni_cc_track tr;
        pr += mni_cc_parse(pr, mni_cc_head(plain).frame_count, &tr);
        assert_false(tr.flags & MNI_CC_DELTA);
    }
    mn_compressed_clip_free(plain, NULL);
    mn_clip_free(odd);
    mn_clip_free(keyed);
    anim_gen_free(&jitter);
}

/* The pose the reference decoder (compress_internal.h, one track at a time) gives at t. */
static void reference_pose(const mn_compressed_clip *cc, float t, mn_pose *pose)
{
    const mni_cc_header head = mni_cc_head(cc), *h = &head;
    const uint8_t *at = h->records;
    float f = mni_cc_frame_of(h, t);
    for (uint32_t i = 0; i < h->track_count; i++) {
        mni_cc_track tr;
        at += mni_cc_parse(at, h->frame_count, &tr);
        if (tr.target >= pose->joint_count)
            continue;
        float *out = mni_cc_slot(tr.path, tr.target, pose);
        if (tr.kind == MNI_CC_CONSTANT)
            memcpy(out, tr.min, (tr.path == MN_PATH_ROTATION ? 4 : 3) * sizeof(float));
        else
            mni_cc_track_at(&tr, f, out);
    }
}

/* Compare one way of sampling against the reference at t; false on the first difference. */
static bool matches_reference(const mn_compressed_clip *cc, const mn_skeleton *sk, float t,
                              mn_pose *a, mn_pose *b)
{
    mn_pose_copy(b, &sk->rest);
    reference_pose(cc, t, b);
    return same_pose(a, b);
}

/*
 * Every sampler path (the view's prepared records, records parsed in turn,
 * a cursor forward at several rates, backwards and jumping, on storage
 * only 4-aligned; scalar and SSE2) against the reference decoder, bit for
 * bit, on every form of track: the cursor's cached knots, per-stride spans
 * and four-rotation passes never change a result.
 */
static void sampling_matches_reference_decoder(void **state)
{
    (void)state;
    mn_clip *odd = odd_clip(), *keyed = keyed_clip(), *mixed = keyed_mixed_clip();
    mn_compress_options plain = {.plain_only = true};
    const anim_gen *gens[6] = {&mocap, &mocap, &game, &game, &game, &game};
    const mn_clip *clips[6] = {mocap.clip, mocap.clip, game.clip, odd, keyed, mixed};
    const mn_compress_options *opts[6] = {NULL, &plain, NULL, NULL, NULL, NULL};
    mn_simd_level levels[2] = {MN_SIMD_SCALAR, MN_SIMD_BEST};
    bool quads = false;
    unsigned keyed_records = 0;
    for (int g = 0; g < 6; g++) {
        mn_compressed_clip *cc = NULL;
        mn_error err;
        assert_int_equal(mn_compress_clip(clips[g], gens[g]->skeleton, opts[g], &cc, NULL, &err),
                         MN_OK);
        const mn_skeleton *sk = gens[g]->skeleton;
        const uint8_t *rec = mni_cc_records(cc);
        for (uint32_t i = 0; i < mni_cc_head(cc).track_count; i++) {
            mni_cc_track tr;
            rec += mni_cc_parse(rec, mni_cc_head(cc).frame_count, &tr);
            keyed_records += (tr.flags & MNI_CC_KEYED) != 0;
        }
        mn_clip *view;
        assert_int_equal(mn_clip_from_compressed(cc, NULL, &view, &err), MN_OK);
        mn_pose a, b;
        mn_pose_create(&a, sk->joint_count, NULL, &err);
        mn_pose_create(&b, sk->joint_count, NULL, &err);
        float d = mn_compressed_clip_info_of(cc).duration;
        size_t bytes = mni_compressed_cursor_size(cc);
        char *storage = malloc(bytes + 4);
        for (int l = 0; l < 2; l++) {
            for (int rate = 0; rate < 5; rate++) {
                memset(storage + 4, 0, bytes);
                float step = rate == 0   ? 1.0f / 60.0f
                             : rate == 1 ? 1.0f / 240.0f
                             : rate == 2 ? 0.37f
                             : rate == 3 ? -1.0f / 90.0f
                                         : 1.0f / 30.0f;
                uint32_t count = (uint32_t)(d / fabsf(step)) + 3;
                uint32_t seed = 7;
                for (uint32_t i = 0; i < count; i++) {
                    float t = step > 0.0f ? step * (float)i : d + step * (float)i;
                    if (rate == 4 && i % 5 == 4)
                        t = anim_gen_rand(&seed) * d; /* a jump anywhere */
                    mn_pose_copy(&a, &sk->rest);
                    mni_compressed_sample(cc, t, storage + 4, &a, levels[l]);
                    assert_true(matches_reference(cc, sk, t, &a, &b));
                }
                quads = quads || mni_cc_cursor_in(storage + 4)->quad_count > 0;
            }
            uint32_t seed = 11;
            for (int i = 0; i < 300; i++) {
                float t = anim_gen_rand(&seed) * d * 1.02f - 0.01f * d;
                mn_pose_copy(&a, &sk->rest);
                mni_compressed_sample(cc, t, NULL, &a, levels[l]);
                assert_true(matches_reference(cc, sk, t, &a, &b));
                mn_pose_copy(&a, &sk->rest);
                mni_clip_sample_at(view, t, &a, levels[l]);
                assert_true(matches_reference(cc, sk, t, &a, &b));
            }
        }
        free(storage);
        mn_pose_free(&a);
        mn_pose_free(&b);
        mn_clip_free(view);
        mn_compressed_clip_free(cc, NULL);
    }
#if MN_WITH_SSE2
    assert_true(quads); /* the four-rotation pass was exercised */
#else
    (void)quads;
#endif
    assert_true(keyed_records >= 6); /* keyed tracks, each at its own span, were exercised */
    mn_clip_free(odd);
    mn_clip_free(keyed);
    mn_clip_free(mixed);
}

static void space_is_checked(void **state)
{
    (void)state;
    mn_compressed_clip *cc = compress(&mocap, NULL);
    mn_pose wrong;
    mn_error err;
    mn_pose_create(&wrong, 7, NULL, &err);
    assert_int_equal(mn_compressed_clip_sample(cc, 0.0f, &wrong, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_compress_clip(mocap.clip, game.skeleton, NULL, &(mn_compressed_clip *){0},
                                      NULL, &err),
                     MN_INVALID_ARGUMENT);
    mn_pose_free(&wrong);
    mn_compressed_clip_free(cc, NULL);
}

/* ---- consumers ------------------------------------------------------------------------ */

/* The game clip over node indices (what a mixer plays), compressed on the skeleton of the nodes. */
static void node_clips(mn_clip **raw, mn_compressed_clip **cc, mn_clip **view)
{
    uint32_t count = mn_clip_track_count(game.clip);
    mn_track *tracks = calloc(count, sizeof *tracks);
    for (uint32_t i = 0; i < count; i++) {
        tracks[i] = *mn_clip_track(game.clip, i);
        tracks[i].target = game.skeleton->node_of_joint[tracks[i].target];
    }
    mn_clip_options o = {.space = mn_space_of_nodes(game.model)};
    mn_error err;
    assert_int_equal(mn_clip_create(tracks, count, "game_nodes", &o, raw, &err), MN_OK);
    free(tracks);
    assert_int_equal(mn_compress_clip(*raw, game.skeleton, NULL, cc, NULL, &err), MN_OK);
    assert_int_equal(mn_clip_from_compressed(*cc, NULL, view, &err), MN_OK);
}

static void mixer_plays_compressed_clip(void **state)
{
    (void)state;
    const mn_model *model = game.model;
    mn_clip *raw, *view;
    mn_compressed_clip *cc;
    mn_error err;
    node_clips(&raw, &cc, &view);
    const mn_clip *raws[1] = {raw}, *views[1] = {view};
    mn_mixer *mr, *mc;
    assert_int_equal(mn_mixer_create(model, &(mn_mixer_options){.clips = raws, .clip_count = 1},
                                     &mr, &err),
                     MN_OK);
    assert_int_equal(mn_mixer_create(model, &(mn_mixer_options){.clips = views, .clip_count = 1},
                                     &mc, &err),
                     MN_OK);
    assert_int_equal(mn_mixer_play(mr, 0, NULL, &err), MN_OK);
    assert_int_equal(mn_mixer_play(mc, 0, NULL, &err), MN_OK);
    for (int f = 0; f < 50; f++) {
        mn_mixer_update(mr, 1.0f / 45.0f);
        mn_mixer_update(mc, 1.0f / 45.0f);
        const float *wr = mn_mixer_worlds(mr), *wc = mn_mixer_worlds(mc);
        for (uint32_t n = 0; n < model->node_count; n++)
            for (int c = 12; c < 15; c++)
                assert_float_equal(wr[16 * n + c], wc[16 * n + c], 2e-4f);
    }
    mn_mixer_free(mr);
    mn_mixer_free(mc);
    mn_clip_free(view);
    mn_compressed_clip_free(cc, NULL);
    mn_clip_free(raw);
}

/* A crowd of instances of a rig given compressed clips: updated on a pool as one by one. */
static void crowd_plays_compressed_clips(void **state)
{
    (void)state;
    mn_clip *raw, *view;
    mn_compressed_clip *cc;
    mn_error err;
    node_clips(&raw, &cc, &view);
    const mn_clip *clips[1] = {view};
    mn_rig *rig;
    assert_int_equal(mn_rig_create(game.model, &(mn_rig_options){.clips = clips, .clip_count = 1},
                                   &rig, &err),
                     MN_OK);
    assert_int_equal(mn_rig_clip_count(rig), 1);
    assert_ptr_equal(mn_rig_clip(rig, 0), view);
    enum { N = 6 };
    mn_instance *a[N], *b[N];
    for (int i = 0; i < N; i++) {
        assert_int_equal(mn_instance_create(rig, NULL, &a[i], &err), MN_OK);
        assert_int_equal(mn_instance_create(rig, NULL, &b[i], &err), MN_OK);
        mn_play_options play = {.at = 0.1f * (float)i};
        assert_int_equal(mn_mixer_play(mn_instance_mixer(a[i]), 0, &play, &err), MN_OK);
        assert_int_equal(mn_mixer_play(mn_instance_mixer(b[i]), 0, &play, &err), MN_OK);
    }
    mn_pool *pool;
    assert_int_equal(mn_pool_create(2, NULL, &pool, &err), MN_OK);
    for (int f = 0; f < 10; f++) {
        assert_int_equal(mn_instances_update(pool, a, N, 1.0f / 30.0f), MN_OK);
        for (int i = 0; i < N; i++)
            mn_instance_update(b[i], 1.0f / 30.0f);
    }
    for (int i = 0; i < N; i++) {
        assert_memory_equal(mn_instance_worlds(a[i]), mn_instance_worlds(b[i]),
                            16 * sizeof(float) * game.model->node_count);
        mn_instance_free(a[i]);
        mn_instance_free(b[i]);
    }
    mn_pool_free(pool);
    mn_rig_free(rig);
    mn_clip_free(view);
    mn_compressed_clip_free(cc, NULL);
    mn_clip_free(raw);
}

static void blend_tree_takes_compressed_clip(void **state)
{
    (void)state;
    mn_compressed_clip *cc = compress(&mocap, NULL);
    mn_clip *view;
    mn_error err;
    assert_int_equal(mn_clip_from_compressed(cc, NULL, &view, &err), MN_OK);
    mn_blend_node nodes[] = {{.kind = MN_BLEND_NODE_CLIP, .clip = view, .loop = true}};
    mn_blend_tree_desc desc = {.nodes = nodes, .node_count = 1, .root = 0,
                               .bind = &mocap.skeleton->rest};
    mn_blend_tree *tree;
    assert_int_equal(mn_blend_tree_create(&desc, &tree, &err), MN_OK);
    mn_pose a, b;
    uint32_t n = mocap.skeleton->joint_count;
    mn_pose_create(&a, n, NULL, &err);
    mn_pose_create(&b, n, NULL, &err);
    assert_int_equal(mn_blend_tree_evaluate(tree, 1.25f, &a, &err), MN_OK);
    mn_pose_copy(&b, &mocap.skeleton->rest);
    assert_int_equal(mn_clip_sample(view, 1.25f, &b, &err), MN_OK);
    assert_true(same_pose(&a, &b));
    mn_blend_tree_free(tree);
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_clip_free(view);
    mn_compressed_clip_free(cc, NULL);
}

/* The ratio's yardstick counts each distinct key array once, cubic values three times. */
static void raw_bytes_count_each_array_once(void **state)
{
    (void)state;
    static const float times[4] = {0, 1, 2, 3}, other_times[2] = {0, 1};
    static float values[4 * 4 * 3], scales[4 * 3];
    mn_channel channels[4] = {
        {.path = MN_PATH_ROTATION, .interpolation = MN_INTERP_LINEAR, .times = times, .values = values,
         .key_count = 4, .components = 4},
        /* shares both arrays with the first: nothing more */
        {.path = MN_PATH_ROTATION, .interpolation = MN_INTERP_LINEAR, .times = times, .values = values,
         .key_count = 4, .components = 4},
        /* shares the times: 4 keys x 3 floats */
        {.path = MN_PATH_SCALE, .interpolation = MN_INTERP_LINEAR, .times = times, .values = scales,
         .key_count = 4, .components = 3},
        /* its own times (2 keys) and cubic values: 2 keys x 3 (in, value, out) x 4 floats */
        {.path = MN_PATH_ROTATION, .interpolation = MN_INTERP_CUBICSPLINE, .times = other_times,
         .values = values + 16, .key_count = 2, .components = 4},
    };
    mn_animation a = {.name = "a", .channels = channels, .channel_count = 4};
    size_t want = 4 * 4 + 4 * 4 * 4 + 4 * 3 * 4 + 2 * 4 + 2 * 3 * 4 * 4;
    assert_int_equal(mn_animation_raw_bytes(&a), want);
    assert_int_equal(mn_animation_raw_bytes(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(raw_bytes_count_each_array_once),
        cmocka_unit_test(metric_zero_for_identical),
        cmocka_unit_test(metric_root_error_shows_at_hands),
        cmocka_unit_test(compress_mocap_within_bound),
        cmocka_unit_test(compress_collapses_constant_and_rest),
        cmocka_unit_test(compress_out_of_memory),
        cmocka_unit_test(file_round_trip_same_bits),
        cmocka_unit_test(corrupted_blocks_refused),
        cmocka_unit_test(cursor_gives_random_access_bits),
        cmocka_unit_test(sampling_allocates_nothing),
        cmocka_unit_test(simd_matches_scalar),
        cmocka_unit_test(sampling_matches_reference_decoder),
        cmocka_unit_test(space_is_checked),
        cmocka_unit_test(mixer_plays_compressed_clip),
        cmocka_unit_test(crowd_plays_compressed_clips),
        cmocka_unit_test(blend_tree_takes_compressed_clip),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
