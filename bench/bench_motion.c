/*
 * bench_motion — per-call costs of the motion solvers beside plain clip
 * sampling measured in the same run: two-bone IK, an aim chain, root-motion
 * extraction, springs and retargeting.
 *
 * Everything is generated here, so the benchmark needs no asset:
 *   - a 64-joint skeleton (a root and 7 chains of 9 joints) built as a
 *     hand-made model, and a second one with the same names, bones 1.3 times
 *     as long and different rest rotations (the retargeting destination);
 *   - a LINEAR clip over the first skeleton: translation, rotation and scale
 *     on every joint, 30 keys a second for 2 s, the root striding forward.
 *
 * Cases (one JSON line each; ns_per_call, and `joint_samples`, the call's
 * cost as a number of joint samples of the baseline, which is what a frame
 * budget is usually counted in):
 *   sample_64               mn_clip_sample of the 64-joint pose at 512 times:
 *                           the baseline, ns_per_joint
 *   ik_two_bone             mn_ik_two_bone_solve, 1,024 targets around a leg
 *   ik_aim_chain_3          mn_ik_aim_chain_solve over a 3-joint chain
 *   root_motion_extract     mn_root_motion_extract over consecutive 60 Hz frames
 *   spring_sample           mn_spring_sample, an analytic anchor (91 anchor calls)
 *   spring_chain_4          mn_spring_chain_sample, 4 links
 *   retarget_64             mn_retarget_apply, 64 joints onto 64 joints
 * Every line carries memcpy of the bytes the call writes, as bench.h asks.
 *
 * Each case is checked before timing: IK lands the end on the target (within
 * 1e-4 of the chain length) after applying its corrections, the aim ray
 * passes the target, root motion over a whole cycle is one stride, a spring
 * evaluated twice gives the same bits and stays within its anchor's range,
 * and the retargeted pose keeps the destination's bone lengths.  A failed
 * check prints "matches_reference": false and the benchmark exits 1.
 *
 * Usage: bench_motion [runs]   (default 15, at most 64)
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <marionette/clip.h>
#include <marionette/ik.h>
#include <marionette/math.h>
#include <marionette/model.h>
#include <marionette/pose.h>
#include <marionette/retarget.h>
#include <marionette/root_motion.h>
#include <marionette/skeleton.h>
#include <marionette/spring.h>

#define DEFAULT_RUNS 15
#define WARMUP_RUNS 2
#define JOINTS 64
#define CHAINS 7
#define CHAIN_LEN 9
#define KEYS 61
#define CLIP_SECONDS 2.0f
#define STRIDE 1.5f
#define CALLS 1024

/* ---- the generated rigs ------------------------------------------------------------- */

typedef struct rig {
    mn_node nodes[JOINTS];
    uint32_t children[JOINTS];
    char names[JOINTS][8];
    mn_model model;
    mn_skeleton *sk;
} rig;

/* Joint 0 is the root; chain c holds joints 1 + 9c .. 9 + 9c, each hanging from the one before. */
static bool rig_build(rig *r, float bone, float twist)
{
    memset(r, 0, sizeof *r);
    uint32_t next_child = 0;
    for (uint32_t j = 0; j < JOINTS; j++) {
        mn_node *n = &r->nodes[j];
        snprintf(r->names[j], sizeof r->names[j], "j%u", j);
        n->name = r->names[j];
        n->mesh = n->skin = n->camera = MN_NONE;
        n->scale[0] = n->scale[1] = n->scale[2] = 1.0f;
        float axis[3] = {0.3f, 1.0f, 0.2f};
        mn_quat_from_axis_angle(n->rotation, axis, twist * (float)(j % 5));
        if (j == 0) {
            n->parent = MN_NONE;
            n->translation[1] = 1.0f;
            continue;
        }
        uint32_t in_chain = (j - 1) % CHAIN_LEN;
        n->parent = in_chain == 0 ? 0 : j - 1;
        n->translation[1] = -bone;
        n->translation[0] = in_chain == 0 ? 0.1f * (float)((j - 1) / CHAIN_LEN) - 0.3f : 0.0f;
    }
    /* Children lists: the root's chain heads, then each joint's next. */
    for (uint32_t j = 0; j < JOINTS; j++) {
        mn_node *n = &r->nodes[j];
        n->children = r->children + next_child;
        for (uint32_t k = j + 1; k < JOINTS; k++)
            if (r->nodes[k].parent == j) {
                r->children[next_child++] = k;
                n->child_count++;
            }
    }
    r->model.nodes = r->nodes;
    r->model.node_count = JOINTS;
    r->model.scene = MN_NONE;
    mn_error err;
    if (mn_skeleton_from_nodes(&r->model, NULL, &r->sk, &err) != MN_OK) {
        fprintf(stderr, "bench_motion: skeleton: %s\n", err.message);
        return false;
    }
    return true;
}

/* The clip: every joint's T, R and S keyed; the root strides STRIDE a cycle along +Z. */
typedef struct clip_data {
    float times[KEYS];
    float values_t[JOINTS][KEYS * 3], values_r[JOINTS][KEYS * 4], values_s[JOINTS][KEYS * 3];
    mn_track tracks[3 * JOINTS];
} clip_data;

static mn_clip *clip_build(clip_data *c, const rig *r)
{
    for (int k = 0; k < KEYS; k++)
        c->times[k] = CLIP_SECONDS * (float)k / (float)(KEYS - 1);
    for (uint32_t j = 0; j < JOINTS; j++) {
        for (int k = 0; k < KEYS; k++) {
            float phase = 6.2831853f * (float)k / (float)(KEYS - 1);
            float axis[3] = {1.0f, 0.1f * (float)(j % 3), 0.0f}, q[4], local[4];
            mn_quat_from_axis_angle(q, axis, 0.4f * sinf(phase + 0.3f * (float)j));
            mn_quat_mul(local, r->nodes[j].rotation, q);
            memcpy(&c->values_r[j][4 * k], local, sizeof local);
            for (int i = 0; i < 3; i++) {
                c->values_t[j][3 * k + i] = r->nodes[j].translation[i];
                c->values_s[j][3 * k + i] = 1.0f;
            }
            if (j == 0) {
                c->values_t[j][3 * k + 2] = STRIDE * (float)k / (float)(KEYS - 1);
                c->values_t[j][3 * k + 1] += 0.03f * sinf(2.0f * phase);
            }
        }
        const float *vals[3] = {c->values_t[j], c->values_r[j], c->values_s[j]};
        for (int p = 0; p < 3; p++) {
            mn_track *t = &c->tracks[3 * j + (uint32_t)p];
            t->target = j;
            t->path = (mn_anim_path)p;
            t->interpolation = MN_INTERP_LINEAR;
            t->key_count = KEYS;
            t->components = p == 1 ? 4 : 3;
            t->times = c->times;
            t->values = vals[p];
        }
    }
    mn_clip *clip = NULL;
    mn_error err;
    if (mn_clip_create(c->tracks, 3 * JOINTS, "walk", NULL, &clip, &err) != MN_OK)
        fprintf(stderr, "bench_motion: clip: %s\n", err.message);
    return clip;
}

/* ---- timing and lines ---------------------------------------------------------------- */

static bench_timing timed(int runs, bench_fn body, void *ctx)
{
    for (int i = 0; i < WARMUP_RUNS; i++)
        if (!body(ctx))
            return (bench_timing){false, 0, 0.0, 0.0};
    return bench_run(runs, body, NULL, ctx);
}

static double g_ns_per_joint; /* the baseline, once measured */

static void print_case(const char *name, bench_timing t, double calls, size_t bytes_per_call,
                       int runs, bool ok)
{
    bench_timing mt = bench_memcpy_ms((size_t)(bytes_per_call * calls), runs);
    double ns = t.best_ms * 1e6 / calls;
    bench_line line;
    bench_line_begin(&line, "motion", name);
    bench_line_u64(&line, "calls", (uint64_t)calls);
    bench_line_num(&line, "ns_per_call", ns);
    bench_line_num(&line, "median_ns_per_call", t.median_ms * 1e6 / calls);
    bench_line_num(&line, "joint_samples", g_ns_per_joint > 0.0 ? ns / g_ns_per_joint : NAN);
    bench_line_num(&line, "memcpy_ns_per_call", mt.best_ms * 1e6 / calls);
    bench_line_throughput(&line, (size_t)(bytes_per_call * calls), t, mt);
    bench_line_bool(&line, "matches_reference", ok && t.ok);
    bench_line_print(&line);
}

/* ---- cases ------------------------------------------------------------------------------ */

typedef struct sample_ctx {
    const mn_clip *clip;
    mn_pose *pose;
    float times[512];
} sample_ctx;

static bool sample_body(void *ctx)
{
    sample_ctx *c = ctx;
    for (int i = 0; i < 512; i++)
        mn_clip_sample(c->clip, c->times[i], c->pose, NULL);
    return true;
}

static bool case_sample(const mn_clip *clip, mn_pose *pose, int runs)
{
    sample_ctx c = {clip, pose, {0}};
    uint32_t seed = 12345u;
    for (int i = 0; i < 512; i++) {
        seed = seed * 1664525u + 1013904223u;
        c.times[i] = CLIP_SECONDS * (float)(seed >> 8) / 16777216.0f;
    }
    bench_timing t = timed(runs, sample_body, &c);
    g_ns_per_joint = t.best_ms * 1e6 / (512.0 * JOINTS);
    bench_timing mt = bench_memcpy_ms(512u * JOINTS * 40u, runs);
    bench_line line;
    bench_line_begin(&line, "motion", "sample_64");
    bench_line_u64(&line, "joints", JOINTS);
    bench_line_num(&line, "ns_per_joint", g_ns_per_joint);
    bench_line_num(&line, "median_ns_per_joint", t.median_ms * 1e6 / (512.0 * JOINTS));
    bench_line_num(&line, "memcpy_ns_per_joint", mt.best_ms * 1e6 / (512.0 * JOINTS));
    bench_line_throughput(&line, 512u * JOINTS * 40u, t, mt);
    bench_line_bool(&line, "matches_reference", t.ok);
    bench_line_print(&line);
    return t.ok;
}

/* Two-bone: the first chain's joints 1, 2, 3 of a sampled pose. */
typedef struct ik_ctx {
    mn_ik_two_bone job;
    float targets[CALLS][3];
    float sink;
} ik_ctx;

static bool ik_body(void *ctx)
{
    ik_ctx *c = ctx;
    mn_ik_two_bone_result res;
    for (int i = 0; i < CALLS; i++) {
        memcpy(c->job.target, c->targets[i], sizeof c->job.target);
        if (mn_ik_two_bone_solve(&c->job, &res, NULL) != MN_OK)
            return false;
        c->sink += res.start_correction[0];
    }
    return true;
}

static bool case_ik(const rig *r, mn_pose *pose, float *worlds, int runs)
{
    static ik_ctx c;
    mn_skeleton_local_to_world(r->sk, pose, 0, worlds);
    mn_ik_two_bone_init(&c.job);
    c.job.start_world = worlds + 16 * 1;
    c.job.mid_world = worlds + 16 * 2;
    c.job.end_world = worlds + 16 * 3;
    c.job.pole[1] = 0.0f;
    c.job.pole[2] = 1.0f;
    /* The hinge: the normal of the plane the leg bends in, in the knee's space. */
    float inv_mid[16], hip_ms[3], ankle_ms[3];
    mn_mat4_invert_affine(inv_mid, worlds + 16 * 2);
    mn_mat4_transform_point(hip_ms, inv_mid, worlds + 16 * 1 + 12);
    mn_mat4_transform_point(ankle_ms, inv_mid, worlds + 16 * 3 + 12);
    float hinge[3] = {hip_ms[1] * ankle_ms[2] - hip_ms[2] * ankle_ms[1],
                      hip_ms[2] * ankle_ms[0] - hip_ms[0] * ankle_ms[2],
                      hip_ms[0] * ankle_ms[1] - hip_ms[1] * ankle_ms[0]};
    float hl = sqrtf(hinge[0] * hinge[0] + hinge[1] * hinge[1] + hinge[2] * hinge[2]);
    for (int i = 0; i < 3; i++)
        c.job.mid_axis[i] = hinge[i] / hl;
    const float *hip = worlds + 16 * 1 + 12;
    for (int i = 0; i < CALLS; i++) {
        float a = 6.2831853f * (float)i / CALLS;
        /* Within the leg's reach (two bones of 0.1). */
        c.targets[i][0] = hip[0] + 0.05f * cosf(a);
        c.targets[i][1] = hip[1] - 0.15f - 0.02f * sinf(3.0f * a);
        c.targets[i][2] = hip[2] + 0.05f * sinf(a);
    }
    /* Check one: apply and recompute. */
    bool ok = true;
    {
        mn_ik_two_bone_result res;
        memcpy(c.job.target, c.targets[7], sizeof c.job.target);
        ok = mn_ik_two_bone_solve(&c.job, &res, NULL) == MN_OK && res.reached;
        mn_pose copy;
        mn_error err;
        float check[16 * JOINTS];
        if (ok && mn_pose_create(&copy, JOINTS, NULL, &err) == MN_OK) {
            mn_pose_copy(&copy, pose);
            mn_ik_apply_correction(&copy, 1, res.start_correction);
            mn_ik_apply_correction(&copy, 2, res.mid_correction);
            mn_skeleton_local_to_world(r->sk, &copy, 0, check);
            for (int i = 0; i < 3; i++)
                ok = ok && fabsf(check[16 * 3 + 12 + i] - c.targets[7][i]) < 1e-4f * 0.2f;
            mn_pose_free(&copy);
        }
    }
    bench_timing t = timed(runs, ik_body, &c);
    print_case("ik_two_bone", t, CALLS, 36, runs, ok);
    return ok && t.ok;
}

typedef struct aim_ctx {
    mn_ik_aim_chain job;
    uint32_t joints[3];
    float targets[CALLS][3];
    float corrections[12];
    bool reached_all;
} aim_ctx;

static bool aim_body(void *ctx)
{
    aim_ctx *c = ctx;
    c->reached_all = true;
    for (int i = 0; i < CALLS; i++) {
        bool reached;
        memcpy(c->job.target, c->targets[i], sizeof c->job.target);
        if (mn_ik_aim_chain_solve(&c->job, c->corrections, &reached, NULL) != MN_OK)
            return false;
        c->reached_all = c->reached_all && reached;
    }
    return true;
}

static bool case_aim(const float *worlds, int runs)
{
    static aim_ctx c;
    static const float weights[3] = {0.5f, 0.5f, 1.0f};
    mn_ik_aim_chain_init(&c.job);
    c.joints[0] = 12; /* tip first, in the second chain */
    c.joints[1] = 11;
    c.joints[2] = 10;
    c.job.worlds = worlds;
    c.job.world_count = JOINTS;
    c.job.joints = c.joints;
    c.job.joint_count = 3;
    c.job.forward[1] = -1.0f;
    c.job.offset[2] = 0.05f;
    c.job.joint_weights = weights;
    for (int i = 0; i < CALLS; i++) {
        float a = 6.2831853f * (float)i / CALLS;
        c.targets[i][0] = 2.0f * cosf(a);
        c.targets[i][1] = -1.0f;
        c.targets[i][2] = 2.0f * sinf(a);
    }
    bench_timing t = timed(runs, aim_body, &c);
    print_case("ik_aim_chain_3", t, CALLS, 48, runs, c.reached_all);
    return t.ok && c.reached_all;
}

typedef struct root_ctx {
    const mn_clip *clip;
    float position[3], rotation[4];   /* the character, moved frame by frame */
} root_ctx;

static bool root_body(void *ctx)
{
    root_ctx *c = ctx;
    mn_root_motion m;
    memset(c->position, 0, sizeof c->position);
    mn_quat_identity(c->rotation);
    for (int i = 0; i < CALLS; i++) {
        if (mn_root_motion_extract(c->clip, 0, NULL, (float)i / 60.0f, (float)(i + 1) / 60.0f, &m, NULL) != MN_OK)
            return false;
        float step[3];
        mn_quat_rotate(step, c->rotation, m.translation);
        for (int k = 0; k < 3; k++)
            c->position[k] += step[k];
        mn_quat_mul(c->rotation, c->rotation, m.rotation);
    }
    return true;
}

static bool case_root(const mn_clip *clip, int runs)
{
    root_ctx c = {clip, {0}, {0}};
    mn_root_motion cycle, whole;
    /* A whole cycle is one stride (the root's rotation wobbles, so measure its length). */
    bool ok = mn_root_motion_extract(clip, 0, NULL, 0.25f, 0.25f + CLIP_SECONDS, &cycle, NULL) == MN_OK &&
              fabsf(sqrtf(cycle.translation[0] * cycle.translation[0] + cycle.translation[1] * cycle.translation[1] +
                          cycle.translation[2] * cycle.translation[2]) - STRIDE) < 1e-5f;
    bench_timing t = timed(runs, root_body, &c);
    /* The frames, composed, are the motion over their whole span. */
    ok = ok && mn_root_motion_extract(clip, 0, NULL, 0.0f, (float)CALLS / 60.0f, &whole, NULL) == MN_OK;
    for (int k = 0; k < 3; k++)
        ok = ok && fabsf(c.position[k] - whole.translation[k]) < 1e-3f;
    print_case("root_motion_extract", t, CALLS, sizeof cycle, runs, ok);
    return ok && t.ok;
}

static void wave(void *user, double t, double out[3])
{
    (void)user;
    out[0] = sin(2.0 * t);
    out[1] = 1.0 + 0.2 * cos(3.0 * t);
    out[2] = 0.5 * sin(0.7 * t);
}

typedef struct spring_ctx {
    mn_spring_settings s;
    uint32_t links;
    float out[12];
    float first[12];
} spring_ctx;

static bool spring_body(void *ctx)
{
    spring_ctx *c = ctx;
    for (int i = 0; i < CALLS; i++)
        if (mn_spring_chain_sample(&c->s, c->links, NULL, wave, NULL, i / 60.0, c->out, NULL) != MN_OK)
            return false;
    return true;
}

static bool case_spring(const char *name, uint32_t links, int runs)
{
    spring_ctx c = {{2.0f, 0.5f}, links, {0}, {0}};
    bool ok = mn_spring_chain_sample(&c.s, links, NULL, wave, NULL, (CALLS - 1) / 60.0, c.first, NULL) == MN_OK;
    bench_timing t = timed(runs, spring_body, &c);
    ok = ok && memcmp(c.first, c.out, 3 * links * sizeof(float)) == 0;  /* pure: same time, same bits */
    for (uint32_t i = 0; i < links; i++)
        ok = ok && fabsf(c.out[3 * i]) < 1.5f;   /* bounded by the anchor's swing, with overshoot */
    print_case(name, t, CALLS, 12 * links, runs, ok);
    return ok && t.ok;
}

typedef struct retarget_ctx {
    mn_retarget *map;
    const mn_pose *src;
    mn_pose *dst;
    const float *times;
    const mn_clip *clip;
    mn_pose *scratch;
} retarget_ctx;

static bool retarget_body(void *ctx)
{
    retarget_ctx *c = ctx;
    for (int i = 0; i < CALLS; i++)
        if (mn_retarget_apply(c->map, c->src, c->dst, NULL) != MN_OK)
            return false;
    return true;
}

static bool case_retarget(const rig *src, const rig *dst, const mn_pose *pose, int runs)
{
    mn_retarget_options o;
    memset(&o, 0, sizeof o);
    o.src_upper_leg = o.dst_upper_leg = "j1";
    o.src_foot = o.dst_foot = "j3";
    mn_retarget *map = NULL;
    mn_error err;
    mn_pose out;
    if (mn_retarget_create(src->sk, dst->sk, &o, &map, &err) != MN_OK ||
        mn_pose_create(&out, JOINTS, NULL, &err) != MN_OK) {
        fprintf(stderr, "bench_motion: retarget: %s\n", err.message);
        mn_retarget_free(map);
        return false;
    }
    retarget_ctx c = {map, pose, &out, NULL, NULL, NULL};
    bench_timing t = timed(runs, retarget_body, &c);
    /* The destination keeps its bones: 1.3 long, the scale 1.3. */
    float worlds[16 * JOINTS];
    mn_skeleton_local_to_world(dst->sk, &out, 0, worlds);
    const float *a = worlds + 16 * 5 + 12, *b = worlds + 16 * 6 + 12;
    float d = sqrtf((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
    bool ok = fabsf(d - 0.13f) < 1e-5f && fabsf(mn_retarget_scale(map) - 1.3f) < 1e-5f;
    print_case("retarget_64", t, CALLS, 40u * JOINTS, runs, ok);
    mn_pose_free(&out);
    mn_retarget_free(map);
    return ok && t.ok;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : DEFAULT_RUNS;
    if (runs < 1 || runs > BENCH_MAX_RUNS) {
        fprintf(stderr, "usage: bench_motion [runs 1..%d]\n", BENCH_MAX_RUNS);
        return 2;
    }
    double start = bench_now_ms();
    static rig src, dst;
    static clip_data data;
    static float worlds[16 * JOINTS];
    if (!rig_build(&src, 0.1f, 0.0f) || !rig_build(&dst, 0.13f, 0.35f))
        return 1;
    mn_clip *clip = clip_build(&data, &src);
    mn_pose pose;
    mn_error err;
    if (!clip || mn_pose_create(&pose, JOINTS, NULL, &err) != MN_OK)
        return 1;
    mn_pose_copy(&pose, &src.sk->rest);
    mn_clip_sample(clip, 0.37f, &pose, NULL);

    bool ok = case_sample(clip, &pose, runs);
    mn_clip_sample(clip, 0.37f, &pose, NULL);
    ok = case_ik(&src, &pose, worlds, runs) && ok;
    mn_skeleton_local_to_world(src.sk, &pose, 0, worlds);
    ok = case_aim(worlds, runs) && ok;
    ok = case_root(clip, runs) && ok;
    ok = case_spring("spring_sample", 1, runs) && ok;
    ok = case_spring("spring_chain_4", 4, runs) && ok;
    ok = case_retarget(&src, &dst, &pose, runs) && ok;

    bench_line line;
    bench_line_begin(&line, "motion", "total");
    bench_line_num(&line, "seconds", (bench_now_ms() - start) * 1e-3);
    bench_line_bool(&line, "all_match_reference", ok);
    bench_line_print(&line);
    mn_pose_free(&pose);
    mn_clip_free(clip);
    mn_skeleton_free(src.sk);
    mn_skeleton_free(dst.sk);
    return ok ? 0 : 1;
}
