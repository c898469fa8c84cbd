/*
 * `marionette bench [--quick] [--json] [--quiet]`
 *
 * A benchmark suite that needs no files: the demo's voxel character
 * (demo_character.c) is built, exported and written to a GLB in memory, and
 * the library's hot paths are timed on it and on generated data:
 *
 *   gltf_load    reading that GLB from memory (mn_gltf_read_memory)
 *   clip_sample  sampling its "wave" clip into a pose at spread-out times
 *   skinning     linear-blend skinning of generated vertices, 4 influences
 *   voxel_pose   posing the character's voxel rig (idle + wave overlaid)
 *   render       drawing the played-back character (2×2 supersampling, all CPUs)
 *
 * Every figure is printed beside memcpy of the same number of bytes,
 * measured in the same run (bench/bench.h), because the machines are shared
 * and a ratio travels better than a time.  Nothing here fails on a figure:
 * the command exits 1 only when the work itself fails.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "demo_character.h"
#include "progress.h"

#include "../bench/bench.h"

#include <marionette/marionette.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bench_args {
    bool quick, json, quiet;
} bench_args;

/* Sizes and repetitions: --quick keeps the whole suite to a couple of seconds. */
typedef struct bench_plan {
    int runs;
    uint32_t samples;         /* clip samples and voxel poses a repetition */
    uint32_t skin_vertices;
    uint32_t render_side;
} bench_plan;

static const bench_plan full_plan = {15, 20000, 200000, 1024};
static const bench_plan quick_plan = {3, 2000, 20000, 256};

/* ---- output ----------------------------------------------------------------------------- */

/*
 * One case's figures: `ms` for `bytes` of work (what memcpy is given), and
 * a rate in `unit` (items per second when items > 0).
 */
typedef struct result {
    const char *name;
    char what[128];
    bench_timing t;
    size_t bytes;
    double items;             /* triangles, vertices, samples... per repetition */
    const char *unit;         /* what items are */
    bench_timing copy;
} result;

static void print_result(const bench_args *a, const result *r)
{
    double per_s = r->t.best_ms > 0.0 ? r->items / (r->t.best_ms * 1e-3) : 0.0;
    double ratio = r->copy.ok && r->copy.best_ms > 0.0 ? r->t.best_ms / r->copy.best_ms : 0.0;
    if (a->json) {
        bench_line line;
        bench_line_begin(&line, "marionette", r->name);
        bench_line_str(&line, "what", r->what);
        bench_line_i64(&line, "runs", r->t.runs);
        bench_line_num(&line, "ms", r->t.best_ms);
        bench_line_num(&line, "median_ms", r->t.median_ms);
        bench_line_u64(&line, "items", (uint64_t)r->items);
        bench_line_str(&line, "unit", r->unit);
        bench_line_num(&line, "per_s", per_s);
        bench_line_u64(&line, "bytes", r->bytes);
        bench_line_num(&line, "memcpy_ms", r->copy.best_ms);
        bench_line_num(&line, "memcpy_gbps", bench_gbps(r->bytes, r->copy.best_ms));
        bench_line_num(&line, "x_memcpy", ratio);
        printf("%s}\n", line.text);
        return;
    }
    /* 12.3 M triangles/s reads better than 1.23e+07. */
    const char *scale = " ";
    double shown = per_s;
    if (per_s >= 1e9) {
        scale = " G";
        shown = per_s / 1e9;
    } else if (per_s >= 1e6) {
        scale = " M";
        shown = per_s / 1e6;
    } else if (per_s >= 1e3) {
        scale = " k";
        shown = per_s / 1e3;
    }
    char rate[64];
    snprintf(rate, sizeof rate, "%.3g%s%s/s", shown, scale, r->unit);
    printf("%-12s %9.3f ms  %-22s memcpy of %6.2f MB %7.3f ms (%5.1f GB/s): x%.1f\n"
           "             %s\n",
           r->name, r->t.best_ms, rate, (double)r->bytes / 1e6, r->copy.best_ms,
           bench_gbps(r->bytes, r->copy.best_ms), ratio, r->what);
}

/* ---- the character, in memory ------------------------------------------------------------- */

typedef struct fixture {
    mn_voxel_rig *voxel_rig;
    uint8_t *glb;
    size_t glb_size, glb_cap;
    mn_model *model;          /* the GLB read back */
    mn_rig *rig;
    mn_instance *instance;
    uint32_t wave;            /* clip index */
} fixture;

static bool collect(void *user, const char *name, const void *bytes, size_t size)
{
    (void)name;
    fixture *f = user;
    if (f->glb_size + size > f->glb_cap) {
        size_t cap = f->glb_cap ? f->glb_cap : 1u << 16;
        while (cap < f->glb_size + size)
            cap *= 2;
        uint8_t *grown = realloc(f->glb, cap);
        if (!grown)
            return false;
        f->glb = grown;
        f->glb_cap = cap;
    }
    memcpy(f->glb + f->glb_size, bytes, size);
    f->glb_size += size;
    return true;
}

static void fixture_free(fixture *f)
{
    mn_instance_free(f->instance);
    mn_rig_free(f->rig);
    mn_model_free(f->model);
    free(f->glb);
    mn_voxel_rig_free(f->voxel_rig);
}

/* The demo character exported to a GLB in memory (what `marionette demo` writes), then read back. */
static bool fixture_make(fixture *f, mn_error *err)
{
    const char *json = demo_character_rig_json();
    if (mn_voxel_rig_read_memory(json, strlen(json), NULL, &f->voxel_rig, err) != MN_OK)
        return false;
    uint32_t n = demo_character_part_count();
    mn_part_mesh **meshes = calloc(n, sizeof *meshes);
    mn_status s = meshes ? MN_OK : MN_OUT_OF_MEMORY;
    for (uint32_t p = 0; s == MN_OK && p < n; p++) {
        mn_model *part;
        s = demo_character_part_model(p, &part, err);
        if (s == MN_OK) {
            s = mn_part_mesh_from_model(part, false, NULL, &meshes[p], err);
            mn_model_free(part);
        }
    }
    mn_model *exported = NULL;
    if (s == MN_OK)
        s = mn_voxel_export_model(f->voxel_rig, (const mn_part_mesh *const *)meshes, NULL, NULL,
                                  &exported, err);
    for (uint32_t p = 0; meshes && p < n; p++)
        mn_part_mesh_free(meshes[p]);
    free(meshes);
    if (s == MN_OK)
        s = mn_gltf_write(exported, NULL, &(mn_gltf_sink){collect, f}, err);
    mn_model_free(exported);
    if (s == MN_OK)
        s = mn_gltf_read_memory(f->glb, f->glb_size, NULL, &f->model, err);
    if (s == MN_OK)
        s = mn_rig_create(f->model, NULL, &f->rig, err);
    if (s == MN_OK)
        s = mn_instance_create(f->rig, NULL, &f->instance, err);
    if (s != MN_OK && err->code == MN_OK) {
        err->code = s;
        snprintf(err->message, sizeof err->message, "%s", mn_status_message(s));
    }
    if (s != MN_OK)
        return false;
    f->wave = mn_mixer_find_clip(mn_instance_mixer(f->instance), "wave");
    if (f->wave == MN_NONE) {
        err->code = MN_INVALID_VALUE;
        snprintf(err->message, sizeof err->message, "the exported model has no \"wave\" clip");
    }
    return f->wave != MN_NONE;
}

/* ---- the cases ------------------------------------------------------------------------------ */

typedef struct load_ctx {
    const fixture *f;
    mn_model *model;
} load_ctx;

static bool load_body(void *ctx)
{
    load_ctx *c = ctx;
    return mn_gltf_read_memory(c->f->glb, c->f->glb_size, NULL, &c->model, NULL) == MN_OK;
}

static bool load_after(void *ctx)
{
    load_ctx *c = ctx;
    mn_model_free(c->model);
    c->model = NULL;
    return true;
}

static bool bench_load(const fixture *f, const bench_plan *plan, result *r)
{
    load_ctx c = {f, NULL};
    r->name = "gltf_load";
    snprintf(r->what, sizeof r->what, "%s",
             "read the exported character GLB from memory (mn_gltf_read_memory)");
    r->t = bench_run(plan->runs, load_body, load_after, &c);
    r->bytes = f->glb_size;
    r->items = (double)f->glb_size;
    r->unit = "B";
    return r->t.ok;
}

typedef struct sample_ctx {
    const mn_clip *clip;
    mn_pose pose;
    uint32_t samples;
    float duration;
    float sink;
} sample_ctx;

static bool sample_body(void *ctx)
{
    sample_ctx *c = ctx;
    for (uint32_t i = 0; i < c->samples; i++) {
        /* A stride through the clip that is not a divisor of it: every span gets visited. */
        float t = c->duration * (float)((i * 7919u) % 1000u) / 1000.0f;
        if (mn_clip_sample(c->clip, t, &c->pose, NULL) != MN_OK)
            return false;
        c->sink += c->pose.rotations[0];
    }
    return true;
}

static bool bench_sample(const fixture *f, const bench_plan *plan, result *r)
{
    sample_ctx c = {.clip = mn_rig_clip(f->rig, f->wave), .samples = plan->samples};
    c.duration = mn_clip_duration(c.clip);
    if (mn_pose_create(&c.pose, f->model->node_count, NULL, NULL) != MN_OK)
        return false;
    r->name = "clip_sample";
    snprintf(r->what, sizeof r->what, "%s",
             "sample the character's baked \"wave\" clip into a pose at spread-out times");
    r->t = bench_run(plan->runs, sample_body, NULL, &c);
    r->bytes = (size_t)plan->samples * f->model->node_count * 10 * sizeof(float);
    r->items = plan->samples;
    r->unit = "samples";
    mn_pose_free(&c.pose);
    return r->t.ok;
}

typedef struct skin_ctx {
    mn_skin_job job;
} skin_ctx;

static bool skin_body(void *ctx)
{
    return mn_skin_run(&((skin_ctx *)ctx)->job) == MN_OK;
}

enum { SKIN_PALETTE = 64, SKIN_INFLUENCES = 4 };

static bool bench_skin(const bench_plan *plan, result *r)
{
    uint32_t n = plan->skin_vertices;
    float *pos = malloc(sizeof(float) * 3 * n), *nrm = malloc(sizeof(float) * 3 * n);
    float *out_pos = malloc(sizeof(float) * 3 * n), *out_nrm = malloc(sizeof(float) * 3 * n);
    float *weights = malloc(sizeof(float) * SKIN_INFLUENCES * n);
    uint16_t *joints = malloc(sizeof(uint16_t) * SKIN_INFLUENCES * n);
    float palette[16 * SKIN_PALETTE];
    bool ok = pos && nrm && out_pos && out_nrm && weights && joints;
    for (uint32_t i = 0; ok && i < n; i++) {
        for (int k = 0; k < 3; k++) {
            pos[3 * i + k] = (float)((i * (7u + (uint32_t)k)) % 101u) * 0.01f;
            nrm[3 * i + k] = k == 1 ? 1.0f : 0.0f;
        }
        static const float w[SKIN_INFLUENCES] = {0.55f, 0.25f, 0.15f, 0.05f};
        for (int k = 0; k < SKIN_INFLUENCES; k++) {
            /* Runs of 64 vertices share their joints, as a mesh's neighbouring vertices do. */
            joints[SKIN_INFLUENCES * i + (uint32_t)k] =
                (uint16_t)((i / 64u + (uint32_t)k * 5u) % SKIN_PALETTE);
            weights[SKIN_INFLUENCES * i + (uint32_t)k] = w[k];
        }
    }
    for (int j = 0; j < SKIN_PALETTE; j++) {
        float a = 0.05f * (float)j, q[4] = {0.0f, sinf(a), 0.0f, cosf(a)};
        float t[3] = {0.01f * (float)j, 0.0f, 0.0f}, s[3] = {1, 1, 1};
        mn_mat4_compose(palette + 16 * j, t, q, s);
    }
    skin_ctx c = {{.vertex_count = n, .influence_count = SKIN_INFLUENCES, .joints = joints,
                   .weights = weights, .palette = palette, .palette_count = SKIN_PALETTE,
                   .positions = pos, .normals = nrm, .out_positions = out_pos,
                   .out_normals = out_nrm}};
    r->name = "skinning";
    snprintf(r->what, sizeof r->what, "%s",
             "linear-blend skinning, positions and normals, 4 influences, 64 joints (best SIMD)");
    if (ok)
        r->t = bench_run(plan->runs, skin_body, NULL, &c);
    r->bytes = (size_t)n * (12 + 12 + 12 + 12 + 16 + 8);
    r->items = n;
    r->unit = "vertices";
    free(pos);
    free(nrm);
    free(out_pos);
    free(out_nrm);
    free(weights);
    free(joints);
    return ok && r->t.ok;
}

typedef struct voxel_ctx {
    const mn_voxel_rig *rig;
    float *worlds;
    uint32_t poses;
    uint32_t animations[2];
} voxel_ctx;

static bool voxel_body(void *ctx)
{
    voxel_ctx *c = ctx;
    for (uint32_t i = 0; i < c->poses; i++) {
        mn_voxel_pose_input in = {.animations = c->animations, .animation_count = 2,
                                  .time_ms = (double)((i * 7919u) % 2400u)};
        if (mn_voxel_pose(c->rig, &in, c->worlds, NULL) != MN_OK)
            return false;
    }
    return true;
}

static bool bench_voxel(const fixture *f, const bench_plan *plan, result *r)
{
    voxel_ctx c = {.rig = f->voxel_rig, .poses = plan->samples,
                   .animations = {mn_voxel_rig_find_animation(f->voxel_rig, "idle"),
                                  mn_voxel_rig_find_animation(f->voxel_rig, "wave")}};
    c.worlds = malloc(sizeof(float) * 16 * f->voxel_rig->part_count);
    r->name = "voxel_pose";
    snprintf(r->what, sizeof r->what, "%s",
             "pose the character's voxel rig (15 parts, 12 joints), idle and wave overlaid");
    if (c.worlds)
        r->t = bench_run(plan->runs, voxel_body, NULL, &c);
    r->bytes = (size_t)plan->samples * f->voxel_rig->part_count * 16 * sizeof(float);
    r->items = plan->samples;
    r->unit = "poses";
    free(c.worlds);
    return c.worlds && r->t.ok;
}

typedef struct render_ctx {
    mn_renderer *renderer;
    const mn_render_scene *scene;
    mn_render_camera camera;
    mn_rgba_image image;
} render_ctx;

static bool render_body(void *ctx)
{
    render_ctx *c = ctx;
    return mn_renderer_draw(c->renderer, c->scene, &c->camera, &c->image, NULL) == MN_OK;
}

static bool bench_render(fixture *f, const bench_plan *plan, result *r, mn_error *err)
{
    render_ctx c = {0};
    mn_render_source *src = NULL;
    uint32_t side = plan->render_side;
    bool ok = false;
    mn_mixer_play(mn_instance_mixer(f->instance), f->wave, &(mn_play_options){.once = true, .at = 1.0f},
                  NULL);
    mn_instance_update(f->instance, 0.0f);
    if (mn_render_source_gltf(f->instance, NULL, &src, err) == MN_OK) {
        mn_render_source_refresh(src);
        c.scene = mn_render_source_scene(src);
        mn_render_options o = {.width = side, .height = side, .threads = cli_render_threads(0),
                               .max_triangles = mn_render_scene_triangle_count(c.scene),
                               .background = {0.18f, 0.2f, 0.23f, 1.0f}};
        float lo[3], hi[3];
        mn_render_bounds_reset(lo, hi);
        mn_render_scene_bounds(c.scene, lo, hi);
        mn_render_view view = {.yaw = MN_RENDER_DEFAULT_YAW, .pitch = MN_RENDER_DEFAULT_PITCH};
        ok = mn_renderer_create(&o, &c.renderer, err) == MN_OK &&
             mn_rgba_image_create(side, side, NULL, &c.image, err) == MN_OK &&
             mn_render_camera_frame(lo, hi, &view, 1.0f, &c.camera, err) == MN_OK;
    }
    r->name = "render";
    snprintf(r->what, sizeof r->what, "draw the character at %ux%u, 2x2 supersampling, every CPU",
             side, side);
    if (ok)
        r->t = bench_run(plan->runs, render_body, NULL, &c);
    r->bytes = (size_t)side * side * 4 * 4;   /* the samples' colour and depth, then the pixels */
    r->items = c.scene ? (double)mn_render_scene_triangle_count(c.scene) : 0.0;
    r->unit = "triangles";
    mn_rgba_image_free(&c.image);
    mn_renderer_free(c.renderer);
    mn_render_source_free(src);
    return ok && r->t.ok;
}

/* ---- the command ------------------------------------------------------------------------------ */

static int run_bench(const bench_args *a)
{
    const bench_plan *plan = a->quick ? &quick_plan : &full_plan;
    enum { STEPS = 6 };
    cli_progress bar = cli_progress_start("benchmarking", STEPS, a->quiet);
    cli_progress_show(&bar, 0);
    fixture f = {0};
    mn_error err = {0};
    if (!fixture_make(&f, &err)) {
        if (bar.on)
            fputc('\n', stderr);
        cli_report_error("bench: the demo character", &err);
        fixture_free(&f);
        return CLI_EXIT_FAILED;
    }
    cli_progress_show(&bar, 1);
    result results[5];
    memset(results, 0, sizeof results);
    bool ok = bench_load(&f, plan, &results[0]);
    cli_progress_show(&bar, 2);
    ok = ok && bench_sample(&f, plan, &results[1]);
    cli_progress_show(&bar, 3);
    ok = ok && bench_skin(plan, &results[2]);
    cli_progress_show(&bar, 4);
    ok = ok && bench_voxel(&f, plan, &results[3]);
    cli_progress_show(&bar, 5);
    ok = ok && bench_render(&f, plan, &results[4], &err);
    if (ok)
        cli_progress_show(&bar, STEPS);
    else if (bar.on)
        fputc('\n', stderr);
    fixture_free(&f);
    if (!ok) {
        fprintf(stderr, "marionette: bench: a benchmark's work failed%s%s\n",
                err.message[0] ? ": " : "", err.message);
        return CLI_EXIT_FAILED;
    }
    /* The yardstick for each case, measured now, after the cases, in the same process. */
    for (int i = 0; i < 5; i++)
        results[i].copy = bench_memcpy_ms(results[i].bytes, plan->runs);
    if (!a->json)
        printf("marionette bench%s: best of %d %s; memcpy of each case's bytes beside it\n",
               a->quick ? " --quick" : "", plan->runs,
               cli_noun((uint64_t)plan->runs, "run", "runs"));
    for (int i = 0; i < 5; i++)
        print_result(a, &results[i]);
    return CLI_EXIT_OK;
}

int cli_bench(int argc, char **argv)
{
    bench_args a = {false, false, false};
    const cli_option options[] = {
        {.name = "--quick", .kind = CLI_FLAG, .dest = &a.quick},
        {.name = "--json", .kind = CLI_FLAG, .dest = &a.json},
        {.name = "--quiet", .alias = "-q", .kind = CLI_FLAG, .dest = &a.quiet},
    };
    const cli_spec spec = {.command = cli_find_command("bench"), .options = options,
                           .option_count = CLI_COUNT(options)};
    int rc;
    return cli_parse_args(&spec, argc, argv, &rc) ? run_bench(&a) : rc;
}
