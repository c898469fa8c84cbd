/*
 * bench_graph — the per-frame cost of a locomotion graph beside plain
 * sampling of one clip, for a 64-joint skeleton.
 *
 * Everything is generated here: a humanoid-shaped skeleton of 64 joints
 * (hips, two legs of four, a spine to the head, two arms with five
 * three-joint fingers, face joints), nine locomotion clips (a rotation track
 * on every joint and a root translation, 31 LINEAR keys, durations 0.80 s
 * to 1.20 s so phase sync has work to do) and an upper-body wave clip made
 * additive against the rest pose.
 *
 * The graph, one frame:
 *   1. a state machine whose state is a phase-locked 2D blend space of the
 *      nine clips on a 3 × 3 grid of (direction, speed): set both
 *      parameters, update(dt), evaluate (three clips sampled and blended
 *      when the point is inside a triangle, two on an edge), the set's
 *      children blended as one normalised weighted sum (`weighted_sum`, as
 *      ozz blends; blend_tree.h, WEIGHTED SUMS);
 *   2. the additive wave sampled into an identity pose and added with an
 *      upper-body mask (spine and everything above it: 55 joints at 1,
 *      hips and legs at 0);
 *   3. world matrices of the hips and the two leg chains (what IK reads:
 *      seven joints, not the toes), then two-bone IK on each leg toward a
 *      foot target (mn_ik_two_bone_solve_batch: the two legs side by side)
 *      and the corrections applied.
 *      (The whole skeleton's local-to-world, which skinning needs after the
 *      graph, is bench_anim's local_to_world case.)
 * Parameters sweep the space along a smooth path at 60 Hz, so most frames
 * blend three clips.
 *
 * Cases (one JSON line each; frames_per_run frames a run, best of runs):
 *   sample_single_clip   mn_clip_sample of one locomotion clip per frame
 *                        (the baseline: what "plain sampling" costs)
 *   blend_space          step 1 alone
 *   blend_space_additive steps 1 and 2
 *   graph                steps 1, 2 and 3: the whole graph
 *   graph_slerp          the graph with the set's default blends (sequential
 *                        slerps, no weighted_sum): its graph_to_sampling_floor
 *                        over the same floor
 *   sampling_floor       the sampling alone that the graph cannot avoid: three
 *                        locomotion clips (a triangle of the space) each from
 *                        the rest pose, and the additive wave into an
 *                        identity pose: no blending, no layer, no IK.  Its
 *                        ratio is the least the graph's could be with every
 *                        other stage free (three clips and 55 of 64 joints'
 *                        more tracks: about 3.9).
 *   graph_stages         what each stage adds above the sampling it stands
 *                        on, over sampling_floor: blend_stage (blend_space
 *                        less its three clips' sampling, timed alone as
 *                        floor_locomotion: the blends and the machine's
 *                        bookkeeping), additive_stage (the layer less the
 *                        wave's sampling), ik_stage (the leg worlds and IK);
 *                        the three sum to graph_to_sampling_floor − 1.
 *   blend_<level>        mni_blend_poses of two sampled locomotion poses at
 *                        weight 0.4, no mask, on one kernel level: scalar
 *                        (the reference), sse2, avx2 (where the CPU has it);
 *                        ns_per_joint (the figure the two blends of a frame
 *                        cost a joint each).  sse2 and avx2 must stay
 *                        within 1e-6 of the scalar reference.
 * Each graph line prints ns_per_frame, joints_per_second (64 × frames / time) and
 * ratio_to_sampling (its time per frame over sample_single_clip's, from the
 * same run); the graph line adds floor_ratio_to_sampling (sampling_floor's
 * ratio: the least the graph's could be), graph_to_sampling_floor (the graph
 * over its unavoidable sampling), target_to_floor 1.4 and within_target
 * (graph_to_sampling_floor <= 1.4: blends, layer, IK and bookkeeping within
 * 40% of the sampling they stand on).  Lines
 * also carry memcpy of the pose bytes written (40 per joint per frame) as
 * bench.h's yardstick.
 *
 * Checks (exit 1 when one fails, because the figures would then mean
 * nothing): two graphs driven by the same calls give the same pose bit for
 * bit; every output is finite; after IK each ankle lies on its target
 * (within 1e-4 of the leg's length, recomputing the worlds); nothing is
 * allocated per frame (a counting allocator over the machine).
 *
 * Usage: bench_graph [runs]   (default 31, at most 64)
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include "anim/blend_internal.h"   /* mni_blend_poses_at: one kernel level at a time */

#include <marionette/blend.h>
#include <marionette/blend_tree.h>
#include <marionette/clip.h>
#include <marionette/ik.h>
#include <marionette/math.h>
#include <marionette/pose.h>
#include <marionette/state_machine.h>

#define JOINTS 64u
#define CLIPS 9u
#define KEYS 31u
#define FRAMES_PER_RUN 200u
#define DEFAULT_RUNS 31
#define DT (1.0f / 60.0f)
#define PI 3.14159265358979323846
/* The whole graph at most this many times its sampling_floor. */
#define GRAPH_TARGET 1.4

/* The legs: start (upper leg), mid (knee), end (ankle). */
static const uint32_t LEGS[2][3] = {{1, 2, 3}, {5, 6, 7}};

typedef struct graph {
    int32_t parents[JOINTS];
    mn_pose rest;
    float mask[JOINTS];          /* the upper body */
    mn_clip *clips[CLIPS];
    mn_clip *wave, *wave_additive;
    float wave_duration;
    mn_state_machine *sm;
    mn_pose pose, delta;
    float locals[16 * JOINTS], worlds[16 * JOINTS];
    double t;                    /* frame clock for the parameter path and the wave */
    bool ik_reached;
} graph;

/* ---- the skeleton ------------------------------------------------------------------ */

static uint32_t add_joint(graph *g, uint32_t *n, int32_t parent, float x, float y, float z)
{
    uint32_t j = (*n)++;
    g->parents[j] = parent;
    mn_pose_set_joint(&g->rest, j, (float[3]){x, y, z}, NULL, NULL, NULL);
    return j;
}

/* 64 joints, parents first; returns false when the count is not 64 (a generator bug). */
static bool build_skeleton(graph *g)
{
    uint32_t n = 0;
    add_joint(g, &n, -1, 0.0f, 1.0f, 0.0f);                      /* 0 hips */
    for (int side = 0; side < 2; side++) {                       /* 1-4, 5-8 legs */
        float sx = side ? -1.0f : 1.0f;
        uint32_t up = add_joint(g, &n, 0, 0.1f * sx, -0.05f, 0.0f);
        uint32_t knee = add_joint(g, &n, (int32_t)up, 0.0f, -0.45f, 0.0f);
        uint32_t ankle = add_joint(g, &n, (int32_t)knee, 0.0f, -0.45f, 0.0f);
        add_joint(g, &n, (int32_t)ankle, 0.0f, -0.05f, 0.1f);
    }
    uint32_t spine = add_joint(g, &n, 0, 0.0f, 0.1f, 0.0f);      /* 9-12 spine, chest */
    for (int i = 0; i < 3; i++)
        spine = add_joint(g, &n, (int32_t)spine, 0.0f, 0.15f, 0.0f);
    uint32_t neck = add_joint(g, &n, (int32_t)spine, 0.0f, 0.15f, 0.0f);   /* 13 */
    uint32_t head = add_joint(g, &n, (int32_t)neck, 0.0f, 0.1f, 0.0f);     /* 14 */
    for (int side = 0; side < 2; side++) {                       /* 15-33, 34-52 arms */
        float sx = side ? -1.0f : 1.0f;
        uint32_t j = add_joint(g, &n, (int32_t)spine, 0.05f * sx, 0.1f, 0.0f);
        j = add_joint(g, &n, (int32_t)j, 0.1f * sx, 0.0f, 0.0f);
        j = add_joint(g, &n, (int32_t)j, 0.25f * sx, 0.0f, 0.0f);
        uint32_t hand = add_joint(g, &n, (int32_t)j, 0.25f * sx, 0.0f, 0.0f);
        for (int f = 0; f < 5; f++) {
            uint32_t k = add_joint(g, &n, (int32_t)hand, 0.05f * sx, 0.0f, 0.02f * (float)(f - 2));
            for (int i = 0; i < 2; i++)
                k = add_joint(g, &n, (int32_t)k, 0.03f * sx, 0.0f, 0.0f);
        }
    }
    for (int i = 0; i < 11; i++)                                 /* 53-63 face */
        add_joint(g, &n, (int32_t)head, 0.01f * (float)(i - 5), 0.05f, 0.08f);
    for (uint32_t j = 0; j < JOINTS; j++)
        g->mask[j] = j >= 9 ? 1.0f : 0.0f;
    return n == JOINTS;
}

/* ---- the clips ----------------------------------------------------------------------- */

/*
 * A rotation track on every joint in [first, JOINTS) (small swings about a
 * per-joint axis) and, when `root_motion`, a root translation with a bob.
 */
static mn_clip *make_clip(const graph *g, uint32_t seed, float duration, uint32_t first, bool root_motion)
{
    static float times[KEYS], rot[JOINTS][KEYS * 4], root[KEYS * 3];
    mn_track tracks[JOINTS + 1];
    uint32_t count = 0;
    for (uint32_t k = 0; k < KEYS; k++)
        times[k] = duration * (float)k / (float)(KEYS - 1);
    for (uint32_t j = first; j < JOINTS; j++) {
        /* Knees are hinges about their local x (what the IK's mid_axis says) and
           always a little bent; every other joint swings about an axis of its own. */
        bool knee = j == LEGS[0][1] || j == LEGS[1][1];
        float axis[3] = {sinf((float)j + (float)seed), cosf((float)j), 0.3f};
        if (knee) {
            axis[0] = 1.0f;
            axis[1] = axis[2] = 0.0f;
        }
        float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
        for (int i = 0; i < 3; i++)
            axis[i] /= len;
        for (uint32_t k = 0; k < KEYS; k++) {
            /* k = KEYS − 1 returns to k = 0's value: the clip loops without a pop. */
            double phase = 2.0 * PI * (double)k / (double)(KEYS - 1);
            float angle = 0.35f * (float)sin(phase + 0.1 * j + seed);
            if (knee)
                angle = -0.5f + 0.3f * (float)sin(phase + seed);
            mn_quat_from_axis_angle(&rot[j][4 * k], axis, angle);
        }
        tracks[count++] = (mn_track){.target = j, .path = MN_PATH_ROTATION, .interpolation = MN_INTERP_LINEAR,
                                     .key_count = KEYS, .components = 4, .times = times, .values = rot[j]};
    }
    if (root_motion) {
        for (uint32_t k = 0; k < KEYS; k++) {
            double phase = 2.0 * PI * (double)k / (double)(KEYS - 1);
            root[3 * k + 0] = g->rest.translations[0];
            root[3 * k + 1] = g->rest.translations[1] + 0.03f * (float)sin(2.0 * phase);
            root[3 * k + 2] = 0.05f * (float)sin(phase);
        }
        tracks[count++] = (mn_track){.target = 0, .path = MN_PATH_TRANSLATION, .interpolation = MN_INTERP_LINEAR,
                                     .key_count = KEYS, .components = 3, .times = times, .values = root};
    }
    mn_clip *clip = NULL;
    mn_error err;
    if (mn_clip_create(tracks, count, "bench", NULL, &clip, &err) != MN_OK) {
        fprintf(stderr, "bench_graph: clip: %s\n", err.message);
        return NULL;
    }
    return clip;
}

static bool build_clips(graph *g)
{
    for (uint32_t c = 0; c < CLIPS; c++)
        if (!(g->clips[c] = make_clip(g, c, 0.8f + 0.05f * (float)c, 0, true)))
            return false;
    g->wave_duration = 1.3f;
    if (!(g->wave = make_clip(g, 100, g->wave_duration, 9, false)))
        return false;
    mn_error err;
    if (mn_clip_create_additive(g->wave, &g->rest, NULL, &g->wave_additive, &err) != MN_OK) {
        fprintf(stderr, "bench_graph: additive: %s\n", err.message);
        return false;
    }
    return true;
}

/* ---- the machine ------------------------------------------------------------------------ */

static bool build_machine(graph *g, const mn_allocator *allocator, bool weighted)
{
    static const uint32_t children[CLIPS] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    float grid[2 * CLIPS];
    mn_blend_node nodes[CLIPS + 1];
    for (uint32_t c = 0; c < CLIPS; c++) {
        grid[2 * c] = (float)(c % 3) - 1.0f;     /* direction −1, 0, 1 */
        grid[2 * c + 1] = (float)(c / 3);        /* speed 0, 1, 2 */
        nodes[c] = (mn_blend_node){.kind = MN_BLEND_NODE_CLIP, .clip = g->clips[c]};
    }
    nodes[CLIPS] = (mn_blend_node){.kind = MN_BLEND_NODE_2D, .parameter = "direction", .parameter_y = "speed",
                                   .children = children, .child_count = CLIPS, .positions = grid, .sync = true,
                                   .weighted_sum = weighted};
    mn_sm_state states[] = {{"locomotion", CLIPS}};
    mn_state_machine_desc desc = {.nodes = nodes, .node_count = CLIPS + 1, .bind = &g->rest,
                                  .states = states, .state_count = 1};
    if (allocator)
        desc.allocator = *allocator;
    mn_error err;
    if (mn_state_machine_create(&desc, &g->sm, &err) != MN_OK) {
        fprintf(stderr, "bench_graph: state machine: %s\n", err.message);
        return false;
    }
    return true;
}

static bool graph_init(graph *g, const mn_allocator *allocator, bool weighted)
{
    memset(g, 0, sizeof *g);
    mn_error err;
    if (mn_pose_create(&g->rest, JOINTS, NULL, &err) != MN_OK ||
        mn_pose_create(&g->pose, JOINTS, NULL, &err) != MN_OK ||
        mn_pose_create(&g->delta, JOINTS, NULL, &err) != MN_OK)
        return false;
    return build_skeleton(g) && build_clips(g) && build_machine(g, allocator, weighted);
}

static void graph_free(graph *g)
{
    mn_state_machine_free(g->sm);
    for (uint32_t c = 0; c < CLIPS; c++)
        mn_clip_free(g->clips[c]);
    mn_clip_free(g->wave);
    mn_clip_free(g->wave_additive);
    mn_pose_free(&g->rest);
    mn_pose_free(&g->pose);
    mn_pose_free(&g->delta);
}

/* ---- one frame --------------------------------------------------------------------------- */

enum { STEP_BLEND = 1, STEP_ADDITIVE = 2, STEP_IK = 3 };

/*
 * World matrices of the hips and the joints of both leg chains (start, mid,
 * end), parents first: all that two-bone IK on the legs reads (the toes are
 * not).  The whole skeleton's local-to-world, which skinning needs after the
 * graph, is a later stage of the frame, timed by bench_anim's local_to_world
 * case.
 */
static bool leg_worlds(graph *g, float *worlds)
{
    const uint32_t chain[] = {0,          LEGS[0][0], LEGS[0][1], LEGS[0][2],
                              LEGS[1][0], LEGS[1][1], LEGS[1][2]};
    for (size_t i = 0; i < sizeof chain / sizeof chain[0]; i++) {
        uint32_t j = chain[i];
        int32_t parent = g->parents[j];
        float *local = g->locals + 16 * j;
        mn_mat4_compose(local, g->pose.translations + 3 * j, g->pose.rotations + 4 * j,
                        g->pose.scales + 3 * j);
        if (parent < 0)
            memcpy(worlds + 16 * j, local, 16 * sizeof(float));
        else
            mn_mat4_mul(worlds + 16 * j, worlds + 16 * (uint32_t)parent, local);
    }
    return true;
}

/* Step 3: leg worlds, then each ankle toward a target a little above and ahead of it (one batch). */
static bool solve_legs(graph *g)
{
    mn_error err;
    if (!leg_worlds(g, g->worlds))
        return false;
    mn_ik_two_bone jobs[2];
    mn_ik_two_bone_result res[2];
    for (int leg = 0; leg < 2; leg++) {
        const float *ankle = g->worlds + 16 * LEGS[leg][2];
        mn_ik_two_bone *job = &jobs[leg];
        mn_ik_two_bone_init(job);
        job->start_world = g->worlds + 16 * LEGS[leg][0];
        job->mid_world = g->worlds + 16 * LEGS[leg][1];
        job->end_world = ankle;
        job->target[0] = ankle[12];
        job->target[1] = ankle[13] + 0.06f;
        job->target[2] = ankle[14] + 0.02f;
        job->pole[0] = 0.0f;
        job->pole[1] = 0.0f;
        job->pole[2] = 1.0f;
        job->mid_axis[0] = 1.0f;
        job->mid_axis[1] = 0.0f;
        job->mid_axis[2] = 0.0f;
    }
    if (mn_ik_two_bone_solve_batch(jobs, 2, res, &err) != MN_OK)
        return false;
    g->ik_reached = res[0].reached && res[1].reached;
    for (int leg = 0; leg < 2; leg++) {
        mn_ik_apply_correction(&g->pose, LEGS[leg][0], res[leg].start_correction);
        mn_ik_apply_correction(&g->pose, LEGS[leg][1], res[leg].mid_correction);
    }
    return true;
}

static bool graph_frame(graph *g, int steps)
{
    mn_error err;
    g->t += DT;
    float direction = (float)sin(g->t * 0.7);
    float speed = 1.0f + 0.9f * (float)sin(g->t * 0.31);
    if (mn_state_machine_set(g->sm, "direction", direction, &err) != MN_OK ||
        mn_state_machine_set(g->sm, "speed", speed, &err) != MN_OK ||
        mn_state_machine_update(g->sm, DT, NULL, 0, NULL, &err) != MN_OK ||
        mn_state_machine_evaluate(g->sm, &g->pose, &err) != MN_OK)
        return false;
    if (steps >= STEP_ADDITIVE) {
        float tw = (float)fmod(g->t, (double)g->wave_duration);
        mn_pose_set_identity(&g->delta);
        mn_clip_sample(g->wave_additive, tw, &g->delta, NULL);
        if (mn_pose_add_masked(&g->pose, &g->delta, 1.0f, g->mask, JOINTS, &g->pose, &err) != MN_OK)
            return false;
    }
    return steps < STEP_IK || solve_legs(g);
}

/* ---- timing --------------------------------------------------------------------------- */

typedef struct graph_run {
    graph *g;
    int steps;
} graph_run;

static bool run_graph(void *ctx)
{
    graph_run *r = ctx;
    for (uint32_t f = 0; f < FRAMES_PER_RUN; f++)
        if (!graph_frame(r->g, r->steps))
            return false;
    return true;
}

typedef struct sample_run {
    const mn_clip *clip;
    mn_pose *pose;
    double t;
    float duration;
} sample_run;

static bool run_sample(void *ctx)
{
    sample_run *r = ctx;
    for (uint32_t f = 0; f < FRAMES_PER_RUN; f++) {
        r->t += DT;
        mn_clip_sample(r->clip, (float)fmod(r->t, (double)r->duration), r->pose, NULL);
    }
    return true;
}

/*
 * The graph's unavoidable sampling, one frame: see sampling_floor above
 * (steps STEP_ADDITIVE); steps STEP_BLEND stops after the three locomotion
 * clips (floor_locomotion, for graph_stages).
 */
static bool run_floor(void *ctx)
{
    graph_run *r = ctx;
    graph *g = r->g;
    static const uint32_t triangle[3] = {3, 4, 7};
    for (uint32_t f = 0; f < FRAMES_PER_RUN; f++) {
        g->t += DT;
        for (int c = 0; c < 3; c++) {
            const mn_clip *clip = g->clips[triangle[c]];
            mn_pose_copy(&g->pose, &g->rest);
            mn_clip_sample(clip, (float)fmod(g->t, (double)mn_clip_duration(clip)), &g->pose, NULL);
        }
        if (r->steps < STEP_ADDITIVE)
            continue;
        mn_pose_set_identity(&g->delta);
        float tw = (float)fmod(g->t, (double)g->wave_duration);
        mn_clip_sample(g->wave_additive, tw, &g->delta, NULL);
    }
    return true;
}

static bool pose_finite(const mn_pose *p)
{
    for (uint32_t i = 0; i < 3 * p->joint_count; i++)
        if (!isfinite(p->translations[i]) || !isfinite(p->scales[i]))
            return false;
    for (uint32_t i = 0; i < 4 * p->joint_count; i++)
        if (!isfinite(p->rotations[i]))
            return false;
    return true;
}

/* One kernel level of the pose blend, timed on two sampled poses. */
typedef struct blend_run {
    const mn_pose *a, *b;
    mn_pose *out;
    mn_simd_level level;
} blend_run;

#define BLENDS_PER_RUN 2000u

static bool run_blend(void *ctx)
{
    blend_run *r = ctx;
    for (uint32_t i = 0; i < BLENDS_PER_RUN; i++)
        mni_blend_poses_at(r->a, r->b, 0.4f, NULL, r->out, r->level);
    return true;
}

/* Every value of a within tol of b's (the kernels' promise to the scalar reference: 1e-6). */
static bool poses_near(const mn_pose *a, const mn_pose *b, float tol)
{
    uint32_t n = a->joint_count;
    for (uint32_t i = 0; i < 3 * n; i++)
        if (!(fabsf(a->translations[i] - b->translations[i]) <= tol) ||
            !(fabsf(a->scales[i] - b->scales[i]) <= tol))
            return false;
    for (uint32_t i = 0; i < 4 * n; i++)
        if (!(fabsf(a->rotations[i] - b->rotations[i]) <= tol))
            return false;
    return true;
}

/*
 * blend_scalar, blend_sse2, blend_avx2 (the last two where built and the CPU
 * has them): ns a joint of one blend; false when a kernel strays more than
 * 1e-6 from the scalar reference.
 */
static bool blend_cases(const graph *g, int runs)
{
    mn_pose a, b, out, ref;
    mn_error err;
    if (mn_pose_create(&a, JOINTS, NULL, &err) != MN_OK || mn_pose_create(&b, JOINTS, NULL, &err) != MN_OK ||
        mn_pose_create(&out, JOINTS, NULL, &err) != MN_OK || mn_pose_create(&ref, JOINTS, NULL, &err) != MN_OK)
        return false;
    mn_pose_copy(&a, &g->rest);
    mn_pose_copy(&b, &g->rest);
    mn_clip_sample(g->clips[3], 0.3f, &a, NULL);
    mn_clip_sample(g->clips[4], 0.35f, &b, NULL);
    static const struct { const char *name; mn_simd_level level; } levels[] = {
        {"blend_scalar", MN_SIMD_SCALAR}, {"blend_sse2", MN_SIMD_SSE2}, {"blend_avx2", MN_SIMD_AVX2_FMA}};
    bool ok = true;
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        if (mni_simd_resolve(levels[i].level) != levels[i].level)
            continue;
        blend_run r = {&a, &b, &out, levels[i].level};
        run_blend(&r); /* warm up */
        bench_timing t = bench_run(runs, run_blend, NULL, &r);
        ok = ok && t.ok && pose_finite(&out);
        if (levels[i].level == MN_SIMD_SCALAR)
            mn_pose_copy(&ref, &out);
        else
            ok = ok && poses_near(&out, &ref, 1e-6f);
        bench_line line;
        bench_line_begin(&line, "graph", levels[i].name);
        bench_line_u64(&line, "joints", JOINTS);
        bench_line_u64(&line, "blends_per_run", BLENDS_PER_RUN);
        bench_line_num(&line, "ns_per_joint", t.best_ms * 1e6 / ((double)BLENDS_PER_RUN * JOINTS));
        bench_line_bool(&line, "matches_reference", ok);
        bench_line_print(&line);
    }
    mn_pose_free(&a);
    mn_pose_free(&b);
    mn_pose_free(&out);
    mn_pose_free(&ref);
    return ok;
}

/* floor_ms > 0 marks the whole graph's line: it adds the target and the floor beside it. */
static void print_case(const char *name, bench_timing t, double sample_ms, bench_timing memcpy_t, double floor_ms)
{
    bench_line line;
    bench_line_begin(&line, "graph", name);
    bench_line_u64(&line, "joints", JOINTS);
    bench_line_u64(&line, "frames_per_run", FRAMES_PER_RUN);
    bench_line_throughput(&line, (size_t)FRAMES_PER_RUN * JOINTS * 40u, t, memcpy_t);
    bench_line_num(&line, "ns_per_frame", t.best_ms * 1e6 / FRAMES_PER_RUN);
    bench_line_num(&line, "joints_per_second", (double)FRAMES_PER_RUN * JOINTS / (t.best_ms * 1e-3));
    bench_line_num(&line, "ratio_to_sampling", t.best_ms / sample_ms);
    if (floor_ms > 0.0) {
        /* the least the ratio could be: sampling_floor's, with every other stage free */
        bench_line_num(&line, "floor_ratio_to_sampling", floor_ms / sample_ms);
        bench_line_num(&line, "graph_to_sampling_floor", t.best_ms / floor_ms);
        bench_line_num(&line, "target_to_floor", GRAPH_TARGET);
        bench_line_bool(&line, "within_target", t.best_ms / floor_ms <= GRAPH_TARGET);
    }
    bench_line_print(&line);
}

/*
 * graph_stages: each stage's time above the sampling it stands on, over
 * sampling_floor, from the cumulative cases (ms a run, best of runs):
 * blend, additive, graph, the floor and its locomotion part.
 */
static void print_stages(const double ms[3], double floor_ms, double locomotion_ms)
{
    bench_line line;
    bench_line_begin(&line, "graph", "graph_stages");
    bench_line_num(&line, "floor_locomotion_ns", locomotion_ms * 1e6 / FRAMES_PER_RUN);
    bench_line_num(&line, "floor_wave_ns", (floor_ms - locomotion_ms) * 1e6 / FRAMES_PER_RUN);
    bench_line_num(&line, "blend_stage_to_floor", (ms[0] - locomotion_ms) / floor_ms);
    bench_line_num(&line, "additive_stage_to_floor", (ms[1] - ms[0] - (floor_ms - locomotion_ms)) / floor_ms);
    bench_line_num(&line, "ik_stage_to_floor", (ms[2] - ms[1]) / floor_ms);
    bench_line_print(&line);
}

/* ---- checks ---------------------------------------------------------------------------- */

/* Distance from each ankle to its target after IK, over the leg length; worlds recomputed. */
static bool ik_lands(graph *g)
{
    float before[16 * JOINTS], targets[2][3];
    mn_error err;
    mn_pose_local_matrices(&g->pose, g->locals);
    if (mn_compose_worlds(g->parents, JOINTS, g->locals, before, &err) != MN_OK)
        return false;
    for (int leg = 0; leg < 2; leg++) {
        const float *a = before + 16 * LEGS[leg][2];
        targets[leg][0] = a[12];
        targets[leg][1] = a[13] + 0.06f;
        targets[leg][2] = a[14] + 0.02f;
    }
    if (!solve_legs(g) || !g->ik_reached)
        return false;
    mn_pose_local_matrices(&g->pose, g->locals);
    if (mn_compose_worlds(g->parents, JOINTS, g->locals, g->worlds, &err) != MN_OK)
        return false;
    for (int leg = 0; leg < 2; leg++) {
        const float *a = g->worlds + 16 * LEGS[leg][2];
        double d = hypot(hypot(a[12] - targets[leg][0], a[13] - targets[leg][1]), a[14] - targets[leg][2]);
        if (!(d <= 1e-4 * 0.9))
            return false;
    }
    return true;
}

/* Allocation hooks that count, for the machine: its frames must not call them. */
typedef struct alloc_count {
    size_t allocs, live;
} alloc_count;

static void *count_alloc(void *user, size_t size)
{
    alloc_count *c = user;
    c->allocs++;
    c->live += size;
    return malloc(size);
}

static void count_free(void *user, void *ptr, size_t size)
{
    alloc_count *c = user;
    if (ptr)
        c->live -= size;
    free(ptr);
}

/*
 * Two graphs, same calls: same bits every frame; finite; no allocation by
 * the machine after creation; IK lands every 50th frame.
 */
static bool check(alloc_count *counter)
{
    static graph a, b;
    mn_allocator hooks = {count_alloc, count_free, counter};
    bool ok = graph_init(&a, &hooks, true) && graph_init(&b, NULL, true);
    size_t allocs = counter->allocs;
    for (uint32_t f = 0; ok && f < 600; f++) {
        bool ik_frame = f % 50 == 49;
        ok = graph_frame(&a, ik_frame ? STEP_ADDITIVE : STEP_IK) &&
             graph_frame(&b, ik_frame ? STEP_ADDITIVE : STEP_IK);
        if (ok && ik_frame)
            ok = ik_lands(&a) && ik_lands(&b);
        ok = ok && pose_finite(&a.pose) &&
             memcmp(a.pose.translations, b.pose.translations, JOINTS * 3 * sizeof(float)) == 0 &&
             memcmp(a.pose.rotations, b.pose.rotations, JOINTS * 4 * sizeof(float)) == 0 &&
             memcmp(a.pose.scales, b.pose.scales, JOINTS * 3 * sizeof(float)) == 0;
        if (!ok)
            fprintf(stderr, "bench_graph: check failed at frame %u\n", f);
    }
    ok = ok && counter->allocs == allocs;
    graph_free(&a);
    graph_free(&b);
    return ok && counter->live == 0;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : DEFAULT_RUNS;
    if (runs < 1 || runs > BENCH_MAX_RUNS)
        runs = DEFAULT_RUNS;
    alloc_count counter = {0, 0};
    bool ok = check(&counter);

    static graph g, gs;
    if (!graph_init(&g, NULL, true) || !graph_init(&gs, NULL, false))
        return 1;
    bench_timing memcpy_t = bench_memcpy_ms((size_t)FRAMES_PER_RUN * JOINTS * 40u, runs);

    sample_run sr = {g.clips[4], &g.pose, 0.0, mn_clip_duration(g.clips[4])};
    run_sample(&sr); /* warm up */
    bench_timing sample_t = bench_run(runs, run_sample, NULL, &sr);
    ok = ok && sample_t.ok && pose_finite(&g.pose);
    print_case("sample_single_clip", sample_t, sample_t.best_ms, memcpy_t, 0.0);

    /* The floors are timed first so the graph's line can carry them; they print last. */
    graph_run fr = {&g, STEP_ADDITIVE}, lr = {&g, STEP_BLEND};
    run_floor(&fr); /* warm up */
    bench_timing floor_t = bench_run(runs, run_floor, NULL, &fr);
    bench_timing locomotion_t = bench_run(runs, run_floor, NULL, &lr);
    ok = ok && floor_t.ok && locomotion_t.ok && pose_finite(&g.pose) && pose_finite(&g.delta);
    double stage_ms[3];

    static const struct { const char *name; int steps; } cases[] = {
        {"blend_space", STEP_BLEND}, {"blend_space_additive", STEP_ADDITIVE}, {"graph", STEP_IK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        graph_run gr = {&g, cases[i].steps};
        run_graph(&gr); /* warm up */
        bench_timing t = bench_run(runs, run_graph, NULL, &gr);
        ok = ok && t.ok && pose_finite(&g.pose);
        stage_ms[i] = t.best_ms;
        print_case(cases[i].name, t, sample_t.best_ms, memcpy_t,
                   cases[i].steps == STEP_IK ? floor_t.best_ms : 0.0);
    }
    {
        /* the same graph with the set's default blends, sequential slerps (no weighted_sum) */
        graph_run gr = {&gs, STEP_IK};
        run_graph(&gr); /* warm up */
        bench_timing t = bench_run(runs, run_graph, NULL, &gr);
        ok = ok && t.ok && pose_finite(&gs.pose);
        print_case("graph_slerp", t, sample_t.best_ms, memcpy_t, floor_t.best_ms);
    }
    print_case("sampling_floor", floor_t, sample_t.best_ms, memcpy_t, 0.0);
    print_stages(stage_ms, floor_t.best_ms, locomotion_t.best_ms);
    ok = blend_cases(&g, runs) && ok;

    bench_line line;
    bench_line_begin(&line, "graph", "checks");
    bench_line_bool(&line, "matches_reference", ok);
    bench_line_print(&line);
    graph_free(&g);
    graph_free(&gs);
    return ok ? 0 : 1;
}
