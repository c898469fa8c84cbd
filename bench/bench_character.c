/*
 * bench_character — a whole character frame (mn_character_runtime_update) of
 * a generated package at a realistic size, on one thread and on two, beside
 * the sum of its parts timed alone in the same run.
 *
 * The package (tests/support/synthetic_character.c, written to a temporary
 * folder and loaded with mn_character_load): a 150-joint SOMA skeleton with
 * twist helpers, 200,000 splats of two influences, a 24,042-vertex head of
 * 383 coefficients (387 controls) with its face map, one correction of two
 * drives and a 12-row mouth list.  Each frame plays "idle" forward by 1/60 s
 * with ARKit weights that change every frame and a look target.
 *
 * Cases (`<T>` the thread count of the splat deform):
 *   frame_<T>_thread(s)  the runtime's update;
 *   parts_<T>_thread(s)  each part alone, timed apart, best of N each, summed (each
 *                        repetition times a frame, then each part once):
 *                        mixer (mn_mixer_update), soma (mn_soma_pose),
 *                        corrective (mn_corrective_update), head (joint worlds,
 *                        mn_arkit_map_apply, mn_head_pose), splats
 *                        (mn_splat_skinner_run, T threads) and mouth (the
 *                        list's alpha and push); the runtime's own glue (the
 *                        head's normals, the gaze angles) is not a part;
 *   summary              frame_over_parts per T (target ≤ 1.15) and the
 *                        two-thread frame's ms (target ≤ 4 ms on two cores).
 * It exits non-zero when a frame on two threads differs from one on one.
 *
 *     build/release/bench_character [runs]     (default 15)
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <marionette/character/runtime.h>
#include <marionette/math.h>

#include "synthetic_character.h"

#include <stdlib.h>
#include <unistd.h>

#define JOINTS 150u
#define SPLATS 200000u

typedef struct frame_ctx {
    mn_character_runtime *rt;
    float arkit[MN_ARKIT_CHANNEL_COUNT];
    uint32_t frame;
} frame_ctx;

static void next_weights(float *w, uint32_t frame)
{
    for (uint32_t i = 0; i < MN_ARKIT_CHANNEL_COUNT; i++)
        w[i] = 0.5f + 0.5f * sinf(0.1f * (float)(frame + 3 * i));
}

static bool frame_body(void *ctx)
{
    frame_ctx *c = ctx;
    next_weights(c->arkit, c->frame++);
    mn_character_frame f = {.dt = 1.0f / 60.0f, .arkit = c->arkit,
                            .arkit_count = MN_ARKIT_CHANNEL_COUNT, .look = true,
                            .look_at = {0.3f, 1.6f, 1.0f}};
    return mn_character_runtime_update(c->rt, &f, NULL) == MN_OK;
}

/* ---- the parts alone -------------------------------------------------------------- */

typedef struct parts_ctx {
    const mn_character *c;
    mn_mixer *mixer;
    mn_pose pose;
    float *worlds, *skin, *head_worlds, *controls, *verts, *rest_verts;
    float *centres, *rotations, *opacities;
    mn_corrective_state cs;
    mn_head *head;
    mn_splat_skinner *skinner;
    mn_splat_skin_job job;
    float arkit[MN_ARKIT_CHANNEL_COUNT];
    uint32_t frame;
} parts_ctx;

static bool part_mixer(void *ctx)
{
    parts_ctx *p = ctx;
    mn_mixer_update(p->mixer, 1.0f / 60.0f);
    const mn_pose *m = mn_mixer_pose(p->mixer);
    uint32_t J = p->c->skeleton->joint_count;
    memcpy(p->pose.translations, m->translations, (size_t)J * 12);
    memcpy(p->pose.rotations, m->rotations, (size_t)J * 16);
    memcpy(p->pose.scales, m->scales, (size_t)J * 12);
    return true;
}

static bool part_soma(void *ctx)
{
    parts_ctx *p = ctx;
    mn_soma_pose(p->c->skeleton, &p->pose, p->worlds, p->skin);
    return true;
}

static bool part_corrective(void *ctx)
{
    parts_ctx *p = ctx;
    return mn_corrective_update(p->c->corrective, p->worlds, p->skin, &p->cs, NULL) == MN_OK;
}

static bool part_head(void *ctx)
{
    parts_ctx *p = ctx;
    const mn_aosrig *pack = p->c->head;
    uint32_t HJ = pack->header.joint_count;
    for (uint32_t j = 0; j < HJ; j++) {
        uint32_t b = mn_soma_skeleton_find(p->c->skeleton, pack->header.joint_names[j]);
        for (int r = 0; r < 4; r++)
            for (int k = 0; k < 4; k++)
                p->head_worlds[16 * j + 4 * r + k] = p->worlds[16 * b + 4 * k + r];
    }
    next_weights(p->arkit, p->frame++);
    mn_arkit_map_apply(p->c->face_map, p->arkit, p->controls);
    return mn_head_set_joint_worlds(p->head, p->head_worlds, (size_t)HJ * 16, NULL) == MN_OK &&
           mn_head_pose(p->head, p->controls, pack->header.head_ext.dim, p->verts, NULL) == MN_OK;
}

static bool part_splats(void *ctx)
{
    parts_ctx *p = ctx;
    return mn_splat_skinner_run(p->skinner, &p->job, MN_SIMD_BEST) == MN_OK;
}

static bool part_mouth(void *ctx)
{
    parts_ctx *p = ctx;
    const mn_mouth_hidden *m = p->c->mouth;
    for (uint32_t i = 0; i < m->count; i++) {
        const mn_mouth_entry *e = &m->entries[i];
        float gap = mn_mouth_lip_gap(m->up, p->verts + 3 * e->upper, p->verts + 3 * e->lower,
                                     p->rest_verts + 3 * e->upper, p->rest_verts + 3 * e->lower);
        p->opacities[e->row] = mn_mouth_hidden_alpha(gap);
        if (e->kind == MN_MOUTH_PLUG)
            for (int k = 0; k < 3; k++)
                p->centres[3 * e->row + k] -= mn_mouth_plug_push(gap) * m->forward[k];
    }
    return true;
}

static bool parts_start(parts_ctx *p, const mn_character *c, mn_mixer *mixer, uint32_t threads)
{
    memset(p, 0, sizeof *p);
    p->c = c;
    p->mixer = mixer;
    uint32_t J = c->skeleton->joint_count, V = c->head->header.vertex_count, N = c->splats.count;
    p->worlds = malloc((size_t)J * 64);
    p->skin = malloc((size_t)J * 64);
    p->head_worlds = malloc((size_t)c->head->header.joint_count * 64);
    p->controls = calloc(c->head->header.head_ext.dim, sizeof(float));
    p->verts = malloc((size_t)V * 12);
    p->rest_verts = calloc((size_t)V, 12);
    p->centres = malloc((size_t)N * 12);
    p->rotations = malloc((size_t)N * 16);
    p->opacities = calloc(N, sizeof(float));
    mn_corrective_state_init(&p->cs);
    if (!p->worlds || !p->skin || !p->head_worlds || !p->controls || !p->verts ||
        !p->rest_verts || !p->centres || !p->rotations || !p->opacities ||
        mn_pose_create(&p->pose, J, NULL, NULL) != MN_OK ||
        mn_head_create(c->head, NULL, &p->head, NULL) != MN_OK ||
        mn_splat_skinner_create(threads, NULL, &p->skinner, NULL) != MN_OK)
        return false;
    mn_soma_rest_pose(c->skeleton, &p->pose);
    p->job = (mn_splat_skin_job){
        .count = N, .influences = c->bindings.influences, .joints = c->bindings.joints,
        .weights = c->bindings.weights, .palette = p->skin, .palette_count = J,
        .centres = c->splats.centres, .rotations = c->splats.rotations,
        .translation = {c->ply_translation[0], c->ply_translation[1], c->ply_translation[2]},
        .out_centres = p->centres, .out_rotations = p->rotations};
    return mn_splat_skin_job_validate(&p->job, NULL) == MN_OK;
}

static void parts_stop(parts_ctx *p)
{
    mn_splat_skinner_free(p->skinner);
    mn_head_free(p->head);
    mn_pose_free(&p->pose);
    free(p->worlds), free(p->skin), free(p->head_worlds), free(p->controls), free(p->verts);
    free(p->rest_verts), free(p->centres), free(p->rotations), free(p->opacities);
}

/* ---- the run ---------------------------------------------------------------------------- */

static const char *thread_name(const char *what, uint32_t threads, char *buf, size_t size)
{
    snprintf(buf, size, "%s_%u_thread%s", what, threads, threads == 1 ? "" : "s");
    return buf;
}

typedef struct measured {
    double frame_ms, parts_ms;
} measured;

/* Best and median of one item's times (sorts them). */
static bench_timing best_of(double *ms, int runs)
{
    qsort(ms, (size_t)runs, sizeof ms[0], bench_compare_double_);
    bench_timing t = {true, runs, ms[0], runs % 2 ? ms[runs / 2] : 0.5 * (ms[runs / 2 - 1] + ms[runs / 2])};
    return t;
}

/*
 * The frame and the parts, interleaved: each repetition times one frame and then
 * each part once, so a burst of load on a shared machine hits both alike.
 */
static bool measure(const mn_character *c, uint32_t threads, int runs, measured *out,
                    mn_character_runtime **keep)
{
    mn_character_runtime *rt = NULL;
    mn_character_runtime_options o = {.threads = threads};
    if (mn_character_runtime_create(c, &o, &rt, NULL) != MN_OK ||
        mn_character_runtime_play(rt, "idle", NULL, NULL) != MN_OK)
        return false;
    *keep = rt;
    frame_ctx fc = {.rt = rt};
    parts_ctx p;
    if (!parts_start(&p, c, mn_character_runtime_mixer(rt), threads))
        return false;
    static const struct {
        const char *name;
        bench_fn fn;
    } parts[] = {{"mixer", part_mixer}, {"soma", part_soma}, {"corrective", part_corrective},
                 {"head", part_head},   {"splats", part_splats}, {"mouth", part_mouth}};
    enum { PARTS = sizeof parts / sizeof parts[0] };
    static double ms[PARTS + 1][BENCH_MAX_RUNS];
    bool ok = true;
    for (int w = 0; w < 3; w++) { /* warm: pages touched, threads awake */
        ok &= frame_body(&fc);
        for (int i = 0; i < PARTS; i++)
            ok &= parts[i].fn(&p);
    }
    for (int r = 0; ok && r < runs; r++) {
        double t0 = bench_now_ms();
        ok &= frame_body(&fc);
        ms[0][r] = bench_now_ms() - t0;
        for (int i = 0; i < PARTS; i++) {
            t0 = bench_now_ms();
            ok &= parts[i].fn(&p);
            ms[i + 1][r] = bench_now_ms() - t0;
        }
    }
    if (!ok) {
        parts_stop(&p);
        return false;
    }
    bench_timing ft = best_of(ms[0], runs);
    char name[64];
    bench_line line;
    bench_line_begin(&line, "character", thread_name("frame", threads, name, sizeof name));
    bench_line_u64(&line, "threads", threads);
    bench_line_u64(&line, "runs", (uint64_t)ft.runs);
    bench_line_num(&line, "ms", ft.best_ms);
    bench_line_num(&line, "median_ms", ft.median_ms);
    bench_line_print(&line);

    bench_line_begin(&line, "character", thread_name("parts", threads, name, sizeof name));
    bench_line_u64(&line, "threads", threads);
    double sum = 0.0, median_sum = 0.0;
    for (int i = 0; i < PARTS; i++) {
        bench_timing t = best_of(ms[i + 1], runs);
        char key[64];
        snprintf(key, sizeof key, "%s_ms", parts[i].name);
        bench_line_num(&line, key, t.best_ms);
        sum += t.best_ms;
        median_sum += t.median_ms;
    }
    bench_line_num(&line, "sum_ms", sum);
    bench_line_num(&line, "median_sum_ms", median_sum);
    bench_line_print(&line);
    parts_stop(&p);
    out->frame_ms = ft.best_ms;
    out->parts_ms = sum;
    return true;
}

/* Two runtimes fed the same frames must give the same bits. */
static bool same_results(mn_character_runtime *a, mn_character_runtime *b)
{
    const mn_character_views *x = mn_character_runtime_views(a), *y = mn_character_runtime_views(b);
    return memcmp(x->joint_worlds, y->joint_worlds, (size_t)x->joint_count * 64) == 0 &&
           memcmp(x->head_vertices, y->head_vertices, (size_t)x->head_vertex_count * 12) == 0 &&
           memcmp(x->splat_centres, y->splat_centres, (size_t)x->splat_count * 12) == 0 &&
           memcmp(x->splat_rotations, y->splat_rotations, (size_t)x->splat_count * 16) == 0 &&
           memcmp(x->splat_opacities, y->splat_opacities, (size_t)x->splat_count * 4) == 0;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 15;
    if (runs < 1 || runs > BENCH_MAX_RUNS)
        runs = 15;
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/bench_character_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "bench_character: cannot make a folder\n");
        return 1;
    }
    synthetic_character_options so = {
        .joints = JOINTS, .splats = SPLATS,
        .head = {.rings = 121, .segments = 200, .coeff_count = 383, .seed = 7}};
    synthetic_character_info info;
    synthetic_character_write(dir, &so, &info);
    mn_character *c = NULL;
    mn_error err = {0};
    if (mn_character_load(dir, "character.json", NULL, &c, &err) != MN_OK) {
        fprintf(stderr, "bench_character: %s\n", err.message);
        return 1;
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_character: could not remove %s\n", dir);

    bench_line line;
    bench_line_begin(&line, "character", "package");
    bench_line_u64(&line, "joints", c->skeleton->joint_count);
    bench_line_u64(&line, "splats", c->splats.count);
    bench_line_u64(&line, "head_vertices", c->head->header.vertex_count);
    bench_line_u64(&line, "head_controls", c->head->header.head_ext.dim);
    bench_line_u64(&line, "mouth_rows", c->mouth ? c->mouth->count : 0);
    bench_line_u64(&line, "corrections", c->corrective ? c->corrective->played_count : 0);
    bench_line_print(&line);

    measured m1, m2;
    mn_character_runtime *r1 = NULL, *r2 = NULL;
    bool ok = measure(c, 1, runs, &m1, &r1) && measure(c, 2, runs, &m2, &r2);
    /* the same frames from the same start on both */
    if (ok) {
        mn_character_runtime_free(r1);
        mn_character_runtime_free(r2);
        r1 = r2 = NULL;
        ok = mn_character_runtime_create(c, &(mn_character_runtime_options){.threads = 1}, &r1,
                                         NULL) == MN_OK &&
             mn_character_runtime_create(c, &(mn_character_runtime_options){.threads = 2}, &r2,
                                         NULL) == MN_OK &&
             mn_character_runtime_play(r1, "idle", NULL, NULL) == MN_OK &&
             mn_character_runtime_play(r2, "idle", NULL, NULL) == MN_OK;
        frame_ctx a = {.rt = r1}, b = {.rt = r2};
        for (int i = 0; ok && i < 4; i++)
            ok = frame_body(&a) && frame_body(&b);
        ok = ok && same_results(r1, r2);
    }
    bench_line_begin(&line, "character", "summary");
    bench_line_num(&line, "frame_over_parts_1_thread", m1.frame_ms / m1.parts_ms);
    bench_line_num(&line, "frame_over_parts_2_threads", m2.frame_ms / m2.parts_ms);
    bench_line_num(&line, "target_frame_over_parts", 1.15);
    bench_line_bool(&line, "within_target_frame_over_parts",
                    m1.frame_ms <= 1.15 * m1.parts_ms && m2.frame_ms <= 1.15 * m2.parts_ms);
    bench_line_num(&line, "frame_2_threads_ms", m2.frame_ms);
    bench_line_num(&line, "target_frame_2_threads_ms", 4.0);
    bench_line_bool(&line, "within_target_frame_ms", m2.frame_ms <= 4.0);
    bench_line_num(&line, "two_thread_speedup", m1.frame_ms / m2.frame_ms);
    bench_line_bool(&line, "threads_agree", ok);
    bench_line_print(&line);
    mn_character_runtime_free(r1);
    mn_character_runtime_free(r2);
    mn_character_free(c);
    return ok ? 0 : 1;
}
