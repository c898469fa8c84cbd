/*
 * bench_web: the native side of `make web-bench` — the per-frame work of web/bench.mjs, done
 * through the C API on this machine, so the wasm build's time can be printed beside the native
 * build's for the same work (scripts/web-bench.mjs reads these lines).
 *
 *   anim        one hidden instance: update (sample, blend, worlds) + its skin palettes
 *   anim_crowd  100 of them
 *   skin_crowd  100 visible instances: update, which also skins their vertices
 *
 * Each case is the best of 15 runs of frames of 1/60 s, each run long enough to time (10 ms):
 * the same timing web/bench.mjs does, printed in µs a frame (native_us).  The yardstick is the
 * wasm build's time for the same case (web-bench prints wasm_to_native).
 *
 * usage: bench_web [MODEL.glb ...]     (default: CesiumMan and RiggedFigure from the sample
 *                                       assets, MN_ASSETS or ../shared/assets)
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime (bench.h) */

#include "bench.h"

#include <marionette/marionette.h>

#define RUNS 15
#define MIN_RUN_MS 10.0
#define CROWD 100
#define DT (1.0f / 60.0f)

typedef struct crowd {
    const mn_model *model;
    mn_instance *instances[CROWD];
    uint32_t count;
    bool palettes;
    float *palette;      /* 16 floats per joint of the largest skin */
    int frames;          /* per run */
} crowd;

/* The palette web/bindings.c computes (mnw_palette): world[joint] x inverseBind[joint]. */
static void palettes_of(const crowd *c, const mn_instance *inst)
{
    const float *worlds = mn_mixer_worlds(mn_instance_mixer((mn_instance *)inst));
    for (uint32_t s = 0; s < c->model->skin_count; s++) {
        const mn_skin *skin = &c->model->skins[s];
        for (uint32_t j = 0; j < skin->joint_count; j++)
            mn_mat4_mul(c->palette + (size_t)j * 16, worlds + (size_t)skin->joints[j] * 16,
                        skin->inverse_bind + (size_t)j * 16);
    }
}

static bool frames(void *ctx)
{
    crowd *c = ctx;
    for (int f = 0; f < c->frames; f++)
        for (uint32_t i = 0; i < c->count; i++) {
            mn_instance_update(c->instances[i], DT);
            if (c->palettes)
                palettes_of(c, c->instances[i]);
        }
    return true;
}

/* As web/bench.mjs: frames per run doubled from 1 until a run takes MIN_RUN_MS, then the best
   of RUNS runs, in ms a frame. */
static double ms_per_frame(crowd *c)
{
    for (c->frames = 1;; c->frames *= 2) {
        double start = bench_now_ms();
        frames(c);
        if (bench_now_ms() - start >= MIN_RUN_MS || c->frames >= 1 << 20)
            break;
    }
    bench_timing t = bench_run(RUNS, frames, NULL, c);
    return t.ok ? t.best_ms / c->frames : -1.0;
}

static void print_case(const char *name, const char *model, uint32_t instances, double ms)
{
    bench_line line;
    bench_line_begin(&line, "web", name);
    bench_line_str(&line, "model", model);
    bench_line_u64(&line, "instances", instances);
    bench_line_num(&line, "native_us", ms * 1e3); /* µs: a lone character takes a few */
    bench_line_print(&line);
}

static bool bench_model(const char *path)
{
    mn_error err;
    mn_model *model = NULL;
    mn_rig *rig = NULL;
    if (mn_gltf_read_file(path, NULL, &model, &err) != MN_OK || mn_rig_create(model, NULL, &rig, &err) != MN_OK) {
        fprintf(stderr, "bench_web: %s: %s\n", path, err.message);
        mn_model_free(model);
        return false;
    }
    uint32_t joints = 1;
    for (uint32_t s = 0; s < model->skin_count; s++)
        joints = model->skins[s].joint_count > joints ? model->skins[s].joint_count : joints;
    crowd c = {.model = model, .palette = malloc((size_t)joints * 16 * sizeof(float))};
    bool ok = c.palette != NULL;
    for (uint32_t i = 0; ok && i < CROWD; i++) {
        ok = mn_instance_create(rig, &(mn_instance_desc){.hidden = true}, &c.instances[i], &err) == MN_OK &&
             mn_mixer_play(mn_instance_mixer(c.instances[i]), 0, &(mn_play_options){.at = (float)i * 0.013f},
                           &err) == MN_OK;
        c.count = ok ? i + 1 : i;
    }
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (ok) {
        c.palettes = true;
        uint32_t all = c.count;
        c.count = 1;
        print_case("anim", name, 1, ms_per_frame(&c));
        c.count = all;
        print_case("anim_crowd", name, CROWD, ms_per_frame(&c));
        c.palettes = false;
        for (uint32_t i = 0; i < c.count; i++)
            mn_instance_set_visible(c.instances[i], true);
        print_case("skin_crowd", name, CROWD, ms_per_frame(&c));
    } else {
        fprintf(stderr, "bench_web: %s: %s\n", path, err.message);
    }
    for (uint32_t i = 0; i < c.count; i++)
        mn_instance_free(c.instances[i]);
    free(c.palette);
    mn_rig_free(rig);
    mn_model_free(model);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        bool ok = true;
        for (int i = 1; i < argc; i++)
            ok = bench_model(argv[i]) && ok;
        return ok ? 0 : 1;
    }
    const char *assets = getenv("MN_ASSETS") && *getenv("MN_ASSETS") ? getenv("MN_ASSETS") : "../shared/assets";
    static const char *const models[] = {"gltf/CesiumMan/glTF-Binary/CesiumMan.glb",
                                         "gltf/RiggedFigure/glTF-Binary/RiggedFigure.glb"};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", assets, models[i]);
        FILE *f = fopen(path, "rb");
        if (!f) {
            printf("{\"bench\": \"web\", \"skipped\": \"%s is missing (set MN_ASSETS)\"}\n", path);
            continue;
        }
        fclose(f);
        if (!bench_model(path))
            return 1;
    }
    return 0;
}
