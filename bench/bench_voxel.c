/*
 * bench_voxel — posing a voxel rig, beside glTF node sampling in the same run.
 *
 * The rig (built here in code): 40 parts in a tree (a spine of 8, four
 * limbs of 6, a head group of 8), 60 joints (20 parts with two, 20 with
 * one; rotations and translations; 10 with mounts), and two looping
 * animations playing together — "idle" (30 tracks, auto-handle beziers)
 * and "walk" (30 tracks, explicit handles, linear and the CSS eases), 12
 * joints driven by both — over a caller map.  One pose is mn_voxel_pose:
 * sample 60 F-curves, overlay, clamp, compose 60 joint matrices and 40
 * world matrices.  Figures: poses per second, parts per second, ns per
 * joint.
 *
 * The yardstick is glTF node sampling of a 60-node hierarchy with the same
 * number of keys: an mn_clip with a LINEAR rotation and a LINEAR translation
 * track per node (120 tracks, glTF's usual TRS animation), sampled with
 * mn_clip_sample — alone, and followed by mn_pose_local_matrices and
 * mn_compose_worlds (so it, too, ends in world matrices).  The last line
 * gives the voxel ns per joint over the glTF ones; the target is within 2×
 * of bare glTF node sampling (mn_clip_sample alone) per joint, the stricter
 * yardstick: the voxel figure includes composing the worlds.  Both ratios
 * are printed, each with whether it is within 2x.
 *
 * The two halves of a pose are also timed apart, on the rig read back:
 * sample_only (mn_voxel_sample_animation of both animations, all 60 tracks)
 * and compose_only (mn_voxel_pose over a caller map, no animation).
 *
 * The rig is timed as a program meets it, read from rig.json text (written
 * here from the rig built in code, and read with mn_voxel_rig_read_memory,
 * which plans every joint once, orders the parts by depth and bakes every
 * curve into cubic pieces and each looping animation onto a grid of cubic
 * cells, src/voxel/fcurve_bake.c), and as built in code (hand_built:
 * nothing planned or baked, so every joint is planned and every bezier and
 * eased segment solved exactly on every pose).  The two must pose alike
 * (1e-4 voxel).
 *
 * Every pose is checked (finite, rigid, last row 0 0 0 1) before a figure is
 * printed; the benchmark exits 1 when a check fails.
 *
 * Usage: bench_voxel [runs]   (default 15, at most 64)
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <marionette/clip.h>
#include <marionette/math.h>
#include <marionette/pose.h>
#include <marionette/voxel/rig.h>

#define PARTS 40u
#define JOINTS 60u
#define KEYS 8u
#define TRACKS_PER_ANIM 30u
#define POSES_PER_RUN 20000u
#define DEFAULT_RUNS 15

/* xorshift32: the same rig on every run and machine. */
static uint32_t rng_state = 0x2545f491u;
static double drand(double lo, double hi)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return lo + (hi - lo) * (double)(rng_state >> 8) * (1.0 / 16777216.0);
}

typedef struct voxel_bench {
    char part_names[PARTS][16], joint_names[JOINTS][16];
    mn_voxel_part parts[PARTS];
    mn_voxel_joint joints[JOINTS];
    uint32_t part_joints[JOINTS], order[PARTS];
    mn_fcurve_key keys[2][TRACKS_PER_ANIM][KEYS];
    mn_voxel_track tracks[2][TRACKS_PER_ANIM];
    mn_voxel_animation anims[2];
    mn_voxel_rig rig;
    const mn_voxel_rig *posed;          /* &rig, or the rig read from rig.json text */
    float caller[JOINTS], values[JOINTS], worlds[16 * PARTS];
    double t;
    double sink;
} voxel_bench;

/* The part tree: spine 0..7, limbs of 6 hanging from spine parts, a head group. */
static uint32_t parent_of(uint32_t p)
{
    if (p == 0)
        return MN_NONE;
    if (p < 8)
        return p - 1;                           /* spine */
    if (p < 32) {                               /* four limbs of six */
        uint32_t limb = (p - 8) / 6, at = (p - 8) % 6;
        static const uint32_t roots[4] = {2, 2, 6, 6};
        return at == 0 ? roots[limb] : p - 1;
    }
    return p == 32 ? 7 : 32 + (p - 33) / 3;     /* head, then its children */
}

static void voxel_bench_make(voxel_bench *b)
{
    memset(b, 0, sizeof *b);
    /* Parts 0..19 get two joints, 20..39 one: 60 joints, each part's contiguous. */
    uint32_t j = 0;
    for (uint32_t p = 0; p < PARTS; p++) {
        uint32_t n = p < 20 ? 2 : 1;
        mn_voxel_part *part = &b->parts[p];
        snprintf(b->part_names[p], sizeof b->part_names[p], "part%u", p);
        part->name = b->part_names[p];
        part->parent = parent_of(p);
        part->pivot[0] = (float)drand(0, 32), part->pivot[1] = (float)drand(0, 32);
        part->pivot[2] = (float)drand(0, 32);
        part->joints = &b->part_joints[j];
        part->joint_count = n;
        for (uint32_t k = 0; k < n; k++, j++) {
            b->part_joints[j] = j;
            mn_voxel_joint *jt = &b->joints[j];
            snprintf(b->joint_names[j], sizeof b->joint_names[j], "joint%u", j);
            jt->name = b->joint_names[j];
            jt->part = p;
            jt->type = j % 6 == 5 ? MN_VOXEL_TRANSLATION : MN_VOXEL_ROTATION;
            double ax = drand(-1, 1), ay = drand(-1, 1), az = drand(-1, 1);
            double len = sqrt(ax * ax + ay * ay + az * az) + 1e-9;
            jt->axis[0] = (float)(ax / len), jt->axis[1] = (float)(ay / len);
            jt->axis[2] = (float)(az / len);
            jt->min = -1.5f, jt->max = 1.5f, jt->rest = 0.1f;
            jt->drive = j % 2 ? MN_VOXEL_DRIVE_AUTO : MN_VOXEL_DRIVE_CALLER;
            if (j % 6 == 1) {
                jt->has_mount = true;
                for (int i = 0; i < 3; i++)
                    jt->orient[i] = (float)drand(-0.5, 0.5), jt->offset[i] = (float)drand(-2, 2);
            }
            b->caller[j] = j % 3 ? (float)drand(-1, 1) : NAN;
        }
    }
    /* Parents come before children in index order by construction. */
    for (uint32_t p = 0; p < PARTS; p++)
        b->order[p] = p;

    /* idle drives joints 0..29, walk 18..47: 12 joints by both. */
    static const mn_fcurve_interp walk_interps[] = {MN_FCURVE_LINEAR, MN_FCURVE_EASE_IN,
                                                    MN_FCURVE_BEZIER, MN_FCURVE_EASE_OUT,
                                                    MN_FCURVE_EASE_IN_OUT};
    for (uint32_t a = 0; a < 2; a++) {
        double period = a == 0 ? 2000 : 800;
        for (uint32_t k = 0; k < TRACKS_PER_ANIM; k++) {
            mn_fcurve_key *keys = b->keys[a][k];
            for (uint32_t i = 0; i < KEYS; i++) {
                keys[i].t = period * i / KEYS + drand(0, period / KEYS * 0.5);
                keys[i].v = drand(-1, 1);
                keys[i].interp = a == 0 ? MN_FCURVE_BEZIER : walk_interps[(k + i) % 5];
                if (a == 1 && keys[i].interp == MN_FCURVE_BEZIER) {
                    keys[i].has_handle_left = keys[i].has_handle_right = true;
                    keys[i].handle_left[0] = -40, keys[i].handle_left[1] = drand(-0.2, 0.2);
                    keys[i].handle_right[0] = 40, keys[i].handle_right[1] = drand(-0.2, 0.2);
                }
            }
            b->tracks[a][k].joint = a == 0 ? k : 18 + k;
            b->tracks[a][k].curve = (mn_fcurve){keys, KEYS, true, period};
        }
        b->anims[a].name = a == 0 ? "idle" : "walk";
        b->anims[a].loop = true;
        b->anims[a].auto_play = a == 0;
        b->anims[a].duration_ms = period;
        b->anims[a].tracks = b->tracks[a];
        b->anims[a].track_count = TRACKS_PER_ANIM;
    }
    b->rig.kind = MN_VOXEL_CUBE;
    b->rig.voxel_size = 1;
    b->rig.parts = b->parts, b->rig.part_count = PARTS, b->rig.part_order = b->order;
    b->rig.joints = b->joints, b->rig.joint_count = JOINTS;
    b->rig.animations = b->anims, b->rig.animation_count = 2;
    b->posed = &b->rig;
}

/* ---- the same rig as rig.json text ------------------------------------------------------ */

/* ,"key":[x,y,z] (sep ",") or "key":[x,y,z] (sep ""). */
static void put_vec3(FILE *f, const char *sep, const char *key, const float v[3])
{
    fprintf(f, "%s\"%s\":[%.9g,%.9g,%.9g]", sep, key, (double)v[0], (double)v[1], (double)v[2]);
}

static void put_key(FILE *f, const mn_fcurve_key *k, bool first)
{
    static const char *const interps[] = {"constant", "linear",   "bezier",
                                          "ease-in",  "ease-out", "ease-in-out"};
    fprintf(f, "%s{\"t\":%.17g,\"v\":%.17g,\"interp\":\"%s\"", first ? "" : ",", k->t, k->v,
            interps[k->interp]);
    if (k->has_handle_left)
        fprintf(f, ",\"handle_left\":[%.17g,%.17g]", k->handle_left[0], k->handle_left[1]);
    if (k->has_handle_right)
        fprintf(f, ",\"handle_right\":[%.17g,%.17g]", k->handle_right[0], k->handle_right[1]);
    fputc('}', f);
}

/* rig.json for the rig built in code; floats as %.9g and doubles as %.17g survive the trip. */
static void write_rig_json(FILE *f, const mn_voxel_rig *rig)
{
    fprintf(f, "{\"format\":\"voxel-rig\",\"version\":1,\"kind\":\"cube\",\"parts\":[");
    for (uint32_t p = 0; p < rig->part_count; p++) {
        const mn_voxel_part *part = &rig->parts[p];
        fprintf(f, "%s{\"name\":\"%s\",\"parent\":", p ? "," : "", part->name);
        if (part->parent == MN_NONE)
            fputs("null", f);
        else
            fprintf(f, "\"%s\"", rig->parts[part->parent].name);
        put_vec3(f, ",", "pivot", part->pivot);
        fputc('}', f);
    }
    fprintf(f, "],\"joints\":[");
    for (uint32_t j = 0; j < rig->joint_count; j++) {
        const mn_voxel_joint *jt = &rig->joints[j];
        fprintf(f, "%s{\"name\":\"%s\",\"part\":\"%s\",\"type\":\"%s\"", j ? "," : "", jt->name,
                rig->parts[jt->part].name, jt->type == MN_VOXEL_ROTATION ? "rotation" : "translation");
        put_vec3(f, ",", "axis", jt->axis);
        fprintf(f, ",\"min\":%.9g,\"max\":%.9g,\"rest\":%.9g,\"drive\":\"%s\"", (double)jt->min,
                (double)jt->max, (double)jt->rest, jt->drive == MN_VOXEL_DRIVE_AUTO ? "auto" : "caller");
        if (jt->has_mount) {
            fprintf(f, ",\"mount\":{");
            put_vec3(f, "", "orient", jt->orient);
            put_vec3(f, ",", "offset", jt->offset);
            fputc('}', f);
        }
        fputc('}', f);
    }
    fprintf(f, "],\"animations\":[");
    for (uint32_t a = 0; a < rig->animation_count; a++) {
        const mn_voxel_animation *an = &rig->animations[a];
        fprintf(f, "%s{\"name\":\"%s\",\"loop\":%s,\"auto_play\":%s,\"duration_ms\":%.17g,\"tracks\":[",
                a ? "," : "", an->name, an->loop ? "true" : "false", an->auto_play ? "true" : "false",
                an->duration_ms);
        for (uint32_t t = 0; t < an->track_count; t++) {
            const mn_voxel_track *tr = &an->tracks[t];
            fprintf(f, "%s{\"joint\":\"%s\",\"keys\":[", t ? "," : "", rig->joints[tr->joint].name);
            for (uint32_t k = 0; k < tr->curve.key_count; k++)
                put_key(f, &tr->curve.keys[k], k == 0);
            fprintf(f, "]}");
        }
        fprintf(f, "]}");
    }
    fprintf(f, "]}\n");
}

/* The rig of b as rig.json text, read back; NULL (after a message) when that fails. */
static mn_voxel_rig *read_back(const voxel_bench *b)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return NULL;
    write_rig_json(f, &b->rig);
    fclose(f);
    mn_voxel_rig *rig = NULL;
    mn_error err;
    if (mn_voxel_rig_read_memory(text, size, NULL, &rig, &err) != MN_OK)
        fprintf(stderr, "bench_voxel: reading the rig back: %s: %s\n", err.path, err.message);
    free(text);
    return rig;
}

/*
 * The largest difference between the rig read back (its baked curves and
 * grids, its plans) and the one built in code (the exact curves) over 5.5 s
 * of both animations, or INFINITY when a pose fails: the spec allows 1e-4.
 */
static double pose_difference(voxel_bench *b, const mn_voxel_rig *read)
{
    static const uint32_t playing[2] = {0, 1};
    float other[16 * PARTS];
    double worst = 0;
    for (double t = -500; t < 5000; t += 37.5) {
        mn_voxel_pose_input in = {.caller = b->caller, .animations = playing,
                                  .animation_count = 2, .time_ms = t};
        if (mn_voxel_pose(&b->rig, &in, b->worlds, NULL) != MN_OK ||
            mn_voxel_pose(read, &in, other, NULL) != MN_OK)
            return INFINITY;
        for (uint32_t i = 0; i < 16 * PARTS; i++) {
            double d = fabs((double)b->worlds[i] - other[i]);
            worst = d > worst || d != d ? d : worst;
        }
    }
    return worst;
}

/* A world of a rigid rig: finite, rotation columns orthonormal, last row 0 0 0 1. */
static bool rigid(const float *w)
{
    for (int i = 0; i < 16; i++)
        if (!isfinite(w[i]))
            return false;
    if (w[3] != 0 || w[7] != 0 || w[11] != 0 || w[15] != 1)
        return false;
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++) {
            double d = (double)w[a * 4] * w[c * 4] + (double)w[a * 4 + 1] * w[c * 4 + 1] +
                       (double)w[a * 4 + 2] * w[c * 4 + 2];
            if (fabs(d - (a == c)) > 1e-4)
                return false;
        }
    return true;
}

static bool voxel_body(void *ctx)
{
    voxel_bench *b = ctx;
    static const uint32_t playing[2] = {0, 1};
    mn_voxel_pose_input in = {.caller = b->caller, .animations = playing, .animation_count = 2};
    for (uint32_t i = 0; i < POSES_PER_RUN; i++) {
        in.time_ms = b->t;
        b->t += 1000.0 / 60.0;
        if (mn_voxel_pose(b->posed, &in, b->worlds, b->values) != MN_OK)
            return false;
        b->sink += b->worlds[16 * (i % PARTS) + 12];
    }
    for (uint32_t p = 0; p < PARTS; p++)
        if (!rigid(&b->worlds[16 * p]))
            return false;
    return true;
}

/* The two halves of a pose, timed apart: sampling the curves, and composing the worlds. */
static bool sample_body(void *ctx)
{
    voxel_bench *b = ctx;
    for (uint32_t i = 0; i < POSES_PER_RUN; i++) {
        mn_voxel_sample_animation(b->posed, 0, b->t, b->values);
        mn_voxel_sample_animation(b->posed, 1, b->t, b->values);
        b->t += 1000.0 / 60.0;
        b->sink += b->values[i % JOINTS];
    }
    return true;
}

static bool compose_body(void *ctx)
{
    voxel_bench *b = ctx;
    mn_voxel_pose_input in = {.caller = b->caller};
    for (uint32_t i = 0; i < POSES_PER_RUN; i++) {
        b->caller[i % JOINTS] = (float)((i % 7) * 0.1 - 0.3);
        if (mn_voxel_pose(b->posed, &in, b->worlds, NULL) != MN_OK)
            return false;
        b->sink += b->worlds[16 * (i % PARTS) + 12];
    }
    for (uint32_t p = 0; p < PARTS; p++)
        if (!rigid(&b->worlds[16 * p]))
            return false;
    return true;
}

/* ---- the glTF yardstick ----------------------------------------------------------------- */

typedef struct gltf_bench {
    mn_clip *clip;
    mn_pose pose;
    float *locals, *worlds;
    int32_t parents[JOINTS];
    double t;
    double sink;
    bool worlds_too;
} gltf_bench;

static bool gltf_bench_make(gltf_bench *g)
{
    memset(g, 0, sizeof *g);
    enum { GKEYS = KEYS * 2 };   /* as many keys a node as the voxel joints have in two animations */
    static float times[JOINTS][GKEYS], rot[JOINTS][GKEYS * 4], tra[JOINTS][GKEYS * 3];
    mn_track tracks[JOINTS * 2];
    for (uint32_t n = 0; n < JOINTS; n++) {
        g->parents[n] = n == 0 ? -1 : (int32_t)(n % 4 == 0 ? n / 2 : n - 1);   /* a branching tree */
        for (uint32_t i = 0; i < GKEYS; i++) {
            times[n][i] = (float)i / GKEYS * 2.0f;
            float axis[3] = {(float)drand(-1, 1), (float)drand(-1, 1), (float)drand(-1, 1)};
            mn_quat_from_axis_angle(&rot[n][i * 4], axis, (float)drand(-1, 1));
            for (int c = 0; c < 3; c++)
                tra[n][i * 3 + c] = (float)drand(-1, 1);
        }
        tracks[n * 2] = (mn_track){n, MN_PATH_ROTATION, MN_INTERP_LINEAR, GKEYS, 4, times[n],
                                   rot[n]};
        tracks[n * 2 + 1] = (mn_track){n, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, GKEYS, 3,
                                       times[n], tra[n]};
    }
    mn_error err;
    if (mn_clip_create(tracks, JOINTS * 2, "walk", NULL, &g->clip, &err) != MN_OK) {
        fprintf(stderr, "bench_voxel: mn_clip_create: %s\n", err.message);
        return false;
    }
    if (mn_pose_create(&g->pose, JOINTS, NULL, &err) != MN_OK)
        return false;
    g->locals = malloc(sizeof(float) * 16 * JOINTS);
    g->worlds = malloc(sizeof(float) * 16 * JOINTS);
    return g->locals && g->worlds;
}

static void gltf_bench_free(gltf_bench *g)
{
    mn_clip_free(g->clip);
    mn_pose_free(&g->pose);
    free(g->locals);
    free(g->worlds);
}

static bool gltf_body(void *ctx)
{
    gltf_bench *g = ctx;
    for (uint32_t i = 0; i < POSES_PER_RUN; i++) {
        float t = (float)fmod(g->t, 2.0);
        g->t += 1.0 / 60.0;
        mn_clip_sample(g->clip, t, &g->pose, NULL);
        if (g->worlds_too) {
            mn_pose_local_matrices(&g->pose, g->locals);
            if (mn_compose_worlds(g->parents, JOINTS, g->locals, g->worlds, NULL) != MN_OK)
                return false;
            g->sink += g->worlds[16 * (i % JOINTS) + 12];
        } else {
            g->sink += g->pose.rotations[4 * (i % JOINTS)];
        }
    }
    if (g->worlds_too)
        for (uint32_t n = 0; n < JOINTS; n++)
            if (!rigid(&g->worlds[16 * n]))
                return false;
    return true;
}

/* ---- report ------------------------------------------------------------------------------- */

static double ns_per(double ms, double count)
{
    return ms * 1e6 / count;
}

static void print_case(const char *name, bench_timing t, uint32_t nodes, const char *unit,
                       uint32_t parts)
{
    bench_line line;
    bench_line_begin(&line, "voxel", name);
    bench_line_u64(&line, unit[0] == 'j' ? "joints" : "nodes", nodes);
    if (parts)
        bench_line_u64(&line, "parts", parts);
    bench_line_u64(&line, "poses", POSES_PER_RUN);
    bench_line_num(&line, "ms", t.best_ms);
    bench_line_num(&line, "median_ms", t.median_ms);
    bench_line_i64(&line, "runs", t.runs);
    bench_line_num(&line, "ns_per_pose", ns_per(t.best_ms, POSES_PER_RUN));
    bench_line_num(&line, "ns_per_joint", ns_per(t.best_ms, (double)POSES_PER_RUN * nodes));
    bench_line_num(&line, "poses_per_second", POSES_PER_RUN / (t.best_ms * 1e-3));
    if (parts)
        bench_line_num(&line, "parts_per_second", (double)POSES_PER_RUN * parts / (t.best_ms * 1e-3));
    bench_line_print(&line);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : DEFAULT_RUNS;
    if (runs < 1 || runs > BENCH_MAX_RUNS) {
        fprintf(stderr, "usage: bench_voxel [runs 1..%d]\n", BENCH_MAX_RUNS);
        return 2;
    }
    static voxel_bench vb;
    voxel_bench_make(&vb);
    mn_voxel_rig *read = read_back(&vb);
    double difference = read ? pose_difference(&vb, read) : INFINITY;
    bench_line checks;
    bench_line_begin(&checks, "voxel", "checks");
    bench_line_num(&checks, "read_vs_built_max_abs_microvoxel", difference * 1e6);
    bench_line_num(&checks, "tolerance_microvoxel", 100.0);
    bench_line_bool(&checks, "ok", difference <= 1e-4);
    bench_line_print(&checks);
    if (!(difference <= 1e-4)) {
        fprintf(stderr, "bench_voxel: the rig read from rig.json does not pose as the one built\n");
        mn_voxel_rig_free(read);
        return 1;
    }
    vb.posed = read;
    bench_timing voxel = bench_run(runs, voxel_body, NULL, &vb);
    vb.t = 0;
    bench_timing sample_half = voxel.ok ? bench_run(runs, sample_body, NULL, &vb) : voxel;
    bench_timing compose_half = voxel.ok ? bench_run(runs, compose_body, NULL, &vb) : voxel;
    vb.posed = &vb.rig;
    vb.t = 0;
    bench_timing hand = voxel.ok ? bench_run(runs, voxel_body, NULL, &vb) : voxel;
    mn_voxel_rig_free(read);
    if (!voxel.ok || !hand.ok || !sample_half.ok || !compose_half.ok) {
        fprintf(stderr, "bench_voxel: a voxel pose failed its check\n");
        return 1;
    }
    print_case("pose_40_parts_60_joints_2_anims", voxel, JOINTS, "joints", PARTS);
    print_case("pose_40_parts_60_joints_2_anims_hand_built", hand, JOINTS, "joints", PARTS);
    print_case("sample_only_2_anims_60_tracks", sample_half, JOINTS, "joints", 0);
    print_case("compose_only_40_parts_60_joints", compose_half, JOINTS, "joints", PARTS);

    gltf_bench g;
    if (!gltf_bench_make(&g)) {
        gltf_bench_free(&g);
        return 1;
    }
    bench_timing sample = bench_run(runs, gltf_body, NULL, &g);
    g.worlds_too = true;
    bench_timing worlds = bench_run(runs, gltf_body, NULL, &g);
    double sink = vb.sink + g.sink;
    gltf_bench_free(&g);
    if (!sample.ok || !worlds.ok) {
        fprintf(stderr, "bench_voxel: a glTF pose failed its check\n");
        return 1;
    }
    print_case("gltf_clip_sample_60_nodes", sample, JOINTS, "nodes", 0);
    print_case("gltf_clip_sample_worlds_60_nodes", worlds, JOINTS, "nodes", 0);

    double v = ns_per(voxel.best_ms, (double)POSES_PER_RUN * JOINTS);
    double s = ns_per(sample.best_ms, (double)POSES_PER_RUN * JOINTS);
    double w = ns_per(worlds.best_ms, (double)POSES_PER_RUN * JOINTS);
    bench_line line;
    bench_line_begin(&line, "voxel", "per_joint_vs_gltf");
    bench_line_num(&line, "voxel_ns_per_joint", v);
    bench_line_num(&line, "gltf_sample_ns_per_node", s);
    bench_line_num(&line, "gltf_sample_worlds_ns_per_node", w);
    bench_line_num(&line, "ratio_to_gltf_sample", v / s);
    bench_line_num(&line, "ratio_to_gltf_sample_worlds", v / w);
    bench_line_num(&line, "target_ratio", 2.0);
    bench_line_bool(&line, "within_target", v / s <= 2.0);
    bench_line_bool(&line, "within_2x_of_gltf_sample", v / s <= 2.0);
    bench_line_bool(&line, "within_2x_of_gltf_sample_worlds", v / w <= 2.0);
    bench_line_print(&line);
    if (sink == 12345.678)   /* never true; keeps the work alive */
        fputc('\0', stderr);
    return 0;
}
