/*
 * Clips generated in code for the compression tests and bench_compress:
 *
 *   mocap   a 60-joint humanoid (hips 1 m up, arms reaching about 0.7 m from
 *           the spine), every joint rotated by smooth sums of sines (0.15 to
 *           1.5 Hz), the root translated (walking forward, bobbing) and
 *           turning, keyed at `rate` Hz for `seconds`, with optional uniform
 *           jitter of ±jitter radians per key and component;
 *   game    a 64-joint skeleton keyed at 30 Hz for 2 s with a translation,
 *           rotation and scale track on every joint, as game exporters
 *           write them: a third of the rotations animated, the rest and
 *           every scale and most translations constant (half of those at
 *           the rest value).
 *
 * Header-only (static inline) so the benchmark, which links no test support,
 * shares it.  Everything is deterministic (an LCG).
 */
#ifndef MN_TEST_ANIM_GEN_H
#define MN_TEST_ANIM_GEN_H

#include <marionette/clip.h>
#include <marionette/math.h>
#include <marionette/model_build.h>
#include <marionette/skeleton.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct anim_gen {
    mn_model *model;
    mn_skeleton *skeleton;
    mn_clip *clip;               /* in the skeleton's joint space */
    size_t raw_bytes;            /* float32 keys and times, one time array per track */
} anim_gen;

static inline float anim_gen_rand(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / 16777216.0f; /* [0, 1) */
}

/* A node under parent with a translation; MN_NONE parent for the root. */
static inline uint32_t anim_gen_node(mn_model_builder *b, const char *name, uint32_t parent, float x,
                                     float y, float z)
{
    uint32_t n = mn_model_build_node(b, name, parent);
    float t[3] = {x, y, z}, r[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
    mn_model_build_node_trs(b, n, t, r, s);
    return n;
}

/* The 60-joint humanoid (node order); returns the node count. */
static inline uint32_t anim_gen_humanoid(mn_model_builder *b)
{
    char name[32];
    uint32_t hips = anim_gen_node(b, "hips", MN_NONE, 0, 1.0f, 0);
    uint32_t s1 = anim_gen_node(b, "spine1", hips, 0, 0.12f, 0);
    uint32_t s2 = anim_gen_node(b, "spine2", s1, 0, 0.12f, 0);
    uint32_t s3 = anim_gen_node(b, "spine3", s2, 0, 0.12f, 0);
    uint32_t neck = anim_gen_node(b, "neck", s3, 0, 0.1f, 0);
    uint32_t head = anim_gen_node(b, "head", neck, 0, 0.1f, 0);
    anim_gen_node(b, "head_end", head, 0, 0.15f, 0);
    anim_gen_node(b, "jaw", head, 0, -0.03f, 0.06f);
    anim_gen_node(b, "eye_l", head, 0.03f, 0.05f, 0.08f);
    anim_gen_node(b, "eye_r", head, -0.03f, 0.05f, 0.08f);
    for (int side = 0; side < 2; side++) {
        float sx = side ? -1.0f : 1.0f;
        const char *sn = side ? "r" : "l";
        snprintf(name, sizeof name, "clavicle_%s", sn);
        uint32_t cl = anim_gen_node(b, name, s3, sx * 0.05f, 0.08f, 0);
        snprintf(name, sizeof name, "upper_arm_%s", sn);
        uint32_t up = anim_gen_node(b, name, cl, sx * 0.12f, 0, 0);
        snprintf(name, sizeof name, "upper_twist_%s", sn);
        anim_gen_node(b, name, up, sx * 0.14f, 0, 0);
        snprintf(name, sizeof name, "forearm_%s", sn);
        uint32_t fo = anim_gen_node(b, name, up, sx * 0.28f, 0, 0);
        snprintf(name, sizeof name, "fore_twist_%s", sn);
        anim_gen_node(b, name, fo, sx * 0.12f, 0, 0);
        snprintf(name, sizeof name, "hand_%s", sn);
        uint32_t ha = anim_gen_node(b, name, fo, sx * 0.25f, 0, 0);
        for (int f = 0; f < 5; f++) {
            uint32_t p = ha;
            for (int k = 0; k < 3; k++) {
                snprintf(name, sizeof name, "finger%d_%d_%s", f, k, sn);
                p = anim_gen_node(b, name, p, sx * (k ? 0.03f : 0.08f), 0,
                                  k ? 0.0f : (float)(f - 2) * 0.02f);
            }
        }
        snprintf(name, sizeof name, "thigh_%s", sn);
        uint32_t th = anim_gen_node(b, name, hips, sx * 0.1f, -0.05f, 0);
        snprintf(name, sizeof name, "shin_%s", sn);
        uint32_t sh = anim_gen_node(b, name, th, 0, -0.42f, 0);
        snprintf(name, sizeof name, "foot_%s", sn);
        uint32_t ft = anim_gen_node(b, name, sh, 0, -0.4f, 0);
        snprintf(name, sizeof name, "toe_%s", sn);
        anim_gen_node(b, name, ft, 0, -0.05f, 0.12f);
    }
    return 60;
}

/* A 64-joint tree: a spine of 8, four limbs of 6 with 4-joint ends, depth up to 14. */
static inline uint32_t anim_gen_game_tree(mn_model_builder *b)
{
    char name[32];
    uint32_t n = 0;
    uint32_t root = anim_gen_node(b, "root", MN_NONE, 0, 0, 0);
    n++;
    uint32_t p = root, spine[8];
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "spine%d", i);
        p = spine[i] = anim_gen_node(b, name, p, 0, i ? 0.1f : 0.9f, 0);
        n++;
    }
    for (int limb = 0; limb < 4; limb++) {
        uint32_t q = spine[limb < 2 ? 6 : 0];
        float sx = (limb & 1) ? -1.0f : 1.0f;
        for (int i = 0; i < 6; i++) {
            snprintf(name, sizeof name, "limb%d_%d", limb, i);
            q = anim_gen_node(b, name, q, limb < 2 ? sx * 0.12f : 0, limb < 2 ? 0 : -0.15f, 0);
            n++;
        }
        for (int e = 0; e < 2; e++) {
            uint32_t r = q;
            for (int i = 0; i < 4 && n < 64; i++) {
                snprintf(name, sizeof name, "end%d_%d_%d", limb, e, i);
                r = anim_gen_node(b, name, r, sx * 0.03f, 0, (float)e * 0.02f);
                n++;
            }
        }
    }
    while (n < 64) {
        snprintf(name, sizeof name, "extra%u", n);
        anim_gen_node(b, name, spine[7], 0, 0.05f, 0);
        n++;
    }
    return n;
}

typedef struct anim_gen_track {
    mn_track track;
    float *times, *values;
    bool rest_translation;       /* hold the node's rest translation (filled at finish) */
} anim_gen_track;

/* Finish: model, skeleton over every node, clip in its joint space from per-node tracks. */
static inline bool anim_gen_finish(mn_model_builder *b, anim_gen_track *tracks, uint32_t count,
                                   const char *name, anim_gen *out)
{
    mn_error err;
    memset(out, 0, sizeof *out);
    if (mn_model_build_finish(b, &out->model, &err) != MN_OK)
        return false;
    if (mn_skeleton_from_nodes(out->model, NULL, &out->skeleton, &err) != MN_OK)
        return false;
    mn_track *t = calloc(count, sizeof *t);
    for (uint32_t i = 0; i < count; i++) {
        if (tracks[i].rest_translation)
            for (uint32_t k = 0; k < tracks[i].track.key_count; k++)
                memcpy(tracks[i].values + 3 * k,
                       out->model->nodes[tracks[i].track.target].translation, 3 * sizeof(float));
        t[i] = tracks[i].track;
        t[i].target = out->skeleton->joint_of_node[t[i].target];
        out->raw_bytes += (size_t)t[i].key_count * (t[i].components + 1) * sizeof(float);
    }
    mn_clip_options o = {.space = out->skeleton->space};
    bool ok = mn_clip_create(t, count, name, &o, &out->clip, &err) == MN_OK;
    free(t);
    for (uint32_t i = 0; i < count; i++) {
        free(tracks[i].times);
        free(tracks[i].values);
    }
    free(tracks);
    return ok;
}

static inline anim_gen_track anim_gen_alloc(uint32_t node, mn_anim_path path, uint32_t keys,
                                            float rate)
{
    anim_gen_track g;
    g.rest_translation = false;
    uint32_t comps = path == MN_PATH_ROTATION ? 4 : 3;
    g.times = malloc(keys * sizeof(float));
    g.values = malloc((size_t)keys * comps * sizeof(float));
    for (uint32_t k = 0; k < keys; k++)
        g.times[k] = (float)k / rate;
    g.track = (mn_track){.target = node, .path = path, .interpolation = MN_INTERP_LINEAR,
                         .key_count = keys, .components = comps, .times = g.times,
                         .values = g.values};
    return g;
}

/* The motion-capture-like clip: see the top of the file. */
static inline bool anim_gen_mocap(float seconds, float rate, float jitter, anim_gen *out)
{
    mn_model_builder *b = mn_model_build_begin(NULL);
    uint32_t joints = anim_gen_humanoid(b);
    uint32_t keys = (uint32_t)lrintf(seconds * rate) + 1;
    anim_gen_track *tracks = calloc(joints + 1, sizeof *tracks);
    uint32_t seed = 12345;
    for (uint32_t j = 0; j < joints; j++) {
        tracks[j] = anim_gen_alloc(j, MN_PATH_ROTATION, keys, rate);
        float amp[3], freq[3][2], phase[3][2];
        float big = j == 0 ? 0.15f : (j >= 10 ? 0.3f : 0.2f);
        for (int a = 0; a < 3; a++) {
            amp[a] = big * (0.3f + anim_gen_rand(&seed));
            for (int h = 0; h < 2; h++) {
                freq[a][h] = 0.15f + 1.35f * anim_gen_rand(&seed);
                phase[a][h] = 6.2831853f * anim_gen_rand(&seed);
            }
        }
        for (uint32_t k = 0; k < keys; k++) {
            float t = tracks[j].times[k], e[3];
            for (int a = 0; a < 3; a++) {
                e[a] = amp[a] * (0.7f * sinf(6.2831853f * freq[a][0] * t + phase[a][0]) +
                                 0.3f * sinf(6.2831853f * freq[a][1] * t + phase[a][1]));
                if (jitter > 0.0f)
                    e[a] += jitter * (2.0f * anim_gen_rand(&seed) - 1.0f);
            }
            if (j == 0)
                e[1] += 0.2f * t; /* turning */
            mn_quat_from_euler_xyz(tracks[j].values + 4 * k, e);
        }
    }
    anim_gen_track *root = &tracks[joints];
    *root = anim_gen_alloc(0, MN_PATH_TRANSLATION, keys, rate);
    for (uint32_t k = 0; k < keys; k++) {
        float t = root->times[k];
        float *v = root->values + 3 * k;
        v[0] = 0.05f * sinf(6.2831853f * 0.9f * t);
        v[1] = 1.0f + 0.03f * sinf(6.2831853f * 1.8f * t);
        v[2] = 1.2f * t;
        if (jitter > 0.0f)
            for (int c = 0; c < 3; c++)
                v[c] += 0.5f * jitter * (2.0f * anim_gen_rand(&seed) - 1.0f); /* jitter/2 metres */
    }
    return anim_gen_finish(b, tracks, joints + 1, jitter > 0.0f ? "mocap_jitter" : "mocap", out);
}

/* The hand-keyed game clip: see the top of the file. */
static inline bool anim_gen_game(anim_gen *out)
{
    mn_model_builder *b = mn_model_build_begin(NULL);
    uint32_t joints = anim_gen_game_tree(b);
    const float rate = 30.0f;
    uint32_t keys = 61;
    anim_gen_track *tracks = calloc(3 * joints, sizeof *tracks);
    uint32_t seed = 777;
    for (uint32_t j = 0; j < joints; j++) {
        anim_gen_track *t = &tracks[3 * j], *r = t + 1, *s = t + 2;
        *t = anim_gen_alloc(j, MN_PATH_TRANSLATION, keys, rate);
        *r = anim_gen_alloc(j, MN_PATH_ROTATION, keys, rate);
        *s = anim_gen_alloc(j, MN_PATH_SCALE, keys, rate);
        bool animated = j % 3 == 0, moved = j == 0;
        t->rest_translation = !moved && j % 4 != 1; /* a quarter constant off rest */
        float axis[3] = {anim_gen_rand(&seed) - 0.5f, anim_gen_rand(&seed) - 0.5f,
                         anim_gen_rand(&seed) - 0.5f};
        float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
        for (int c = 0; c < 3; c++)
            axis[c] /= len;
        float hold = (j % 2) ? 0.3f * anim_gen_rand(&seed) : 0.0f; /* a constant pose, or rest */
        float freq = 0.5f + anim_gen_rand(&seed);
        for (uint32_t k = 0; k < keys; k++) {
            float tt = (float)k / rate;
            for (int c = 0; c < 3; c++) {
                s->values[3 * k + c] = 1.0f;
                t->values[3 * k + c] = moved ? (c == 2 ? 0.5f * tt : 0.0f) : (c == 0 ? 0.01f : 0.0f);
            }
            float angle = animated ? 0.6f * sinf(6.2831853f * freq * tt) : hold;
            mn_quat_from_axis_angle(r->values + 4 * k, axis, angle);
        }
    }
    return anim_gen_finish(b, tracks, 3 * joints, "game", out);
}

static inline void anim_gen_free(anim_gen *g)
{
    mn_clip_free(g->clip);
    mn_skeleton_free(g->skeleton);
    mn_model_free(g->model);
    memset(g, 0, sizeof *g);
}

#endif /* MN_TEST_ANIM_GEN_H */
