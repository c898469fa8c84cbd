/*
 * `marionette demo [--out DIR] [--size WxH] [--quiet]`
 *
 * The whole library on a model it builds itself: the procedural voxel
 * character of demo_character.c is written as a produced voxel model
 * (rig.json and meshes/<part>.glb, built with mn_model_build_* and written
 * with mn_gltf_write_file), exported to one glTF with its interface.json by
 * the voxel exporter, read back by the glTF reader, played by a model
 * instance's mixer, and drawn by the software renderer into one contact
 * sheet: a row of the idle loop and two rows of the one-shot wave.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "demo_character.h"
#include "progress.h"

#include <marionette/marionette.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEFAULT_OUT "marionette-demo"
#define BOUNDS_SAMPLES 48u

/* The sheet: three frames of the idle, six of the wave (seconds into each clip). */
static const struct {
    const char *clip;
    float time;
} frames[] = {
    {"idle", 0.0f},  {"idle", 0.6f},  {"idle", 1.2f},
    {"wave", 0.25f}, {"wave", 0.55f}, {"wave", 0.72f},
    {"wave", 1.0f},  {"wave", 1.27f}, {"wave", 1.8f},
};
#define FRAME_COUNT (uint32_t)(sizeof frames / sizeof frames[0])

typedef struct demo_args {
    const char *out;
    uint32_t width, height;
    bool quiet;
} demo_args;

/* cli_parse_args for demo, and a folder name that is not empty. */
static bool parse_args(int argc, char **argv, demo_args *a, int *status)
{
    *a = (demo_args){.out = DEFAULT_OUT};
    cli_size size = {256, 320};
    const cli_option options[] = {
        {.name = "--out", .alias = "-o", .kind = CLI_STRING, .dest = &a->out},
        {.name = "--size", .kind = CLI_SIZE, .dest = &size, .min = 16, .max = 4096},
        {.name = "--quiet", .alias = "-q", .kind = CLI_FLAG, .dest = &a->quiet},
    };
    const cli_spec spec = {.command = cli_find_command("demo"), .options = options,
                           .option_count = CLI_COUNT(options)};
    if (!cli_parse_args(&spec, argc, argv, status))
        return false;
    a->width = size.width;
    a->height = size.height;
    if (!*a->out) {
        *status = cli_usage_error("demo", "demo: --out needs a folder name");
        return false;
    }
    return true;
}

/* ---- the steps ------------------------------------------------------------------------- */

static int make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "marionette: %s: cannot make the folder: %s\n", path, strerror(errno));
        return CLI_EXIT_FAILED;
    }
    return CLI_EXIT_OK;
}

/* The played-back model: the exported GLB read, rigged, instanced and given to the renderer. */
typedef struct playback {
    mn_model *model;
    mn_rig *rig;
    mn_instance *instance;
    mn_render_source *source;
    mn_renderer *renderer;
    mn_rgba_image cell;
    mn_sheet sheet;
} playback;

static void playback_free(playback *p)
{
    mn_sheet_free(&p->sheet);
    mn_rgba_image_free(&p->cell);
    mn_renderer_free(p->renderer);
    mn_render_source_free(p->source);
    mn_instance_free(p->instance);
    mn_rig_free(p->rig);
    mn_model_free(p->model);
}

/* Pose the instance `t` seconds into `clip` through its mixer, and refresh the scene. */
static int pose(playback *p, const char *glb, const char *clip, float t)
{
    mn_error err;
    if (mn_mixer_play_named(mn_instance_mixer(p->instance), clip,
                            &(mn_play_options){.once = true, .at = t}, &err) != MN_OK) {
        cli_report_error(glb, &err);
        return CLI_EXIT_FAILED;
    }
    mn_instance_update(p->instance, 0.0f);
    mn_render_source_refresh(p->source);
    return CLI_EXIT_OK;
}

/* The bounds of both clips, so every cell of the sheet has the same camera. */
static int clip_bounds(playback *p, const char *glb, float lo[3], float hi[3])
{
    mn_render_bounds_reset(lo, hi);
    static const char *const clips[] = {"idle", "wave"};
    for (int c = 0; c < 2; c++) {
        uint32_t index = mn_mixer_find_clip(mn_instance_mixer(p->instance), clips[c]);
        float duration = index == MN_NONE ? 0.0f : mn_clip_duration(mn_rig_clip(p->rig, index));
        for (uint32_t i = 0; i <= BOUNDS_SAMPLES; i++) {
            if (pose(p, glb, clips[c], duration * (float)i / (float)BOUNDS_SAMPLES) != CLI_EXIT_OK)
                return CLI_EXIT_FAILED;
            mn_render_scene_bounds(mn_render_source_scene(p->source), lo, hi);
        }
    }
    return CLI_EXIT_OK;
}

static int render_sheet(const demo_args *a, const char *glb, const char *png)
{
    playback p = {0};
    mn_error err;
    static const float background[4] = {0x2e / 255.0f, 0x33 / 255.0f, 0x3b / 255.0f, 1.0f};
    static const uint8_t background8[4] = {0x2e, 0x33, 0x3b, 0xff};
    int rc = CLI_EXIT_FAILED;
    if (mn_gltf_read_file(glb, NULL, &p.model, &err) != MN_OK ||
        mn_rig_create(p.model, NULL, &p.rig, &err) != MN_OK ||
        mn_instance_create(p.rig, NULL, &p.instance, &err) != MN_OK ||
        mn_render_source_gltf(p.instance, NULL, &p.source, &err) != MN_OK) {
        cli_report_error(glb, &err);
        goto done;
    }
    mn_render_options ro = {.width = a->width, .height = a->height, .supersample = 2,
                            .threads = cli_render_threads(0),
                            .max_triangles =
                                mn_render_scene_triangle_count(mn_render_source_scene(p.source))};
    memcpy(ro.background, background, sizeof background);
    if (mn_renderer_create(&ro, &p.renderer, &err) != MN_OK ||
        mn_rgba_image_create(a->width, a->height, NULL, &p.cell, &err) != MN_OK ||
        mn_sheet_create(FRAME_COUNT, a->width, a->height, background8, NULL, &p.sheet, &err) !=
            MN_OK) {
        cli_report_error(png, &err);
        goto done;
    }
    float lo[3], hi[3];
    if (clip_bounds(&p, glb, lo, hi) != CLI_EXIT_OK)
        goto done;
    mn_render_camera cam;
    mn_render_view view = {.yaw = MN_RENDER_DEFAULT_YAW, .pitch = MN_RENDER_DEFAULT_PITCH};
    if (mn_render_camera_frame(lo, hi, &view, (float)a->width / (float)a->height, &cam, &err) !=
        MN_OK) {
        cli_report_error(glb, &err);
        goto done;
    }
    cli_progress bar = cli_progress_start("rendering", FRAME_COUNT, a->quiet);
    cli_progress_show(&bar, 0);
    for (uint32_t i = 0; i < FRAME_COUNT; i++) {
        if (pose(&p, glb, frames[i].clip, frames[i].time) != CLI_EXIT_OK)
            goto done;
        if (mn_renderer_draw(p.renderer, mn_render_source_scene(p.source), &cam, &p.cell, &err) !=
            MN_OK) {
            cli_report_error(glb, &err);
            goto done;
        }
        char label[48];
        snprintf(label, sizeof label, "%s t=%.2fs", frames[i].clip, (double)frames[i].time);
        mn_sheet_put(&p.sheet, i, &p.cell, label);
        cli_progress_show(&bar, i + 1);
    }
    if (mn_rgba_image_write_png(&p.sheet.image, png, &err) != MN_OK) {
        fprintf(stderr, "marionette: %s (%s)\n", err.message, mn_status_name(err.code));
        goto done;
    }
    rc = CLI_EXIT_OK;
done:
    playback_free(&p);
    return rc;
}

static int run_demo(const demo_args *a)
{
    char character[4096], rig[4200], glb[4200], iface[4200], png[4200];
    if (snprintf(character, sizeof character, "%s/character", a->out) >= (int)sizeof character) {
        fprintf(stderr, "marionette: %s: path too long\n", a->out);
        return CLI_EXIT_USAGE;
    }
    snprintf(rig, sizeof rig, "%s/rig.json", character);
    snprintf(glb, sizeof glb, "%s/character.glb", a->out);
    snprintf(iface, sizeof iface, "%s/character.interface.json", a->out);
    snprintf(png, sizeof png, "%s/demo_sheet.png", a->out);
    int rc = make_dir(a->out);
    if (rc == CLI_EXIT_OK)
        rc = make_dir(character);
    if (rc != CLI_EXIT_OK)
        return rc;

    mn_error err;
    if (demo_character_write(character, &err) != MN_OK) {
        cli_report_error(character, &err);
        return CLI_EXIT_FAILED;
    }
    mn_voxel_export_options eo = {.model_name = "character"};
    if (mn_voxel_export_file(rig, NULL, glb, &eo, &err) != MN_OK) {
        cli_report_error(rig, &err);
        return CLI_EXIT_FAILED;
    }
    rc = render_sheet(a, glb, png);
    if (rc != CLI_EXIT_OK || a->quiet)
        return rc;
    printf("marionette demo: a voxel character built in code, exported, played back and drawn\n");
    uint32_t parts = demo_character_part_count();
    printf("  %-40s the rig: %u %s, caller and auto joints, a mount, idle and wave\n", rig, parts,
           cli_noun(parts, "part", "parts"));
    char meshes[4200];
    snprintf(meshes, sizeof meshes, "%s/meshes/*.glb", character);
    printf("  %-40s its parts' voxels, one GLB a part\n", meshes);
    printf("  %-40s the exported glTF (nodes, vertex colours, baked clips)\n", glb);
    printf("  %-40s its joints, animations and sockets for a game engine\n", iface);
    printf("  %-40s contact sheet: idle (top row) and wave, played from the GLB\n", png);
    return CLI_EXIT_OK;
}

int cli_demo(int argc, char **argv)
{
    demo_args a;
    int rc;
    return parse_args(argc, argv, &a, &rc) ? run_demo(&a) : rc;
}
