/*
 * `marionette render FILE [--clip NAME] [--time T | --frames N [--sheet]] [--size WxH]
 *                         [--yaw DEG] [--pitch DEG] [--view front|side|top] [--turntable N]
 *                         [--skinning lbs|dq] -o out.png`
 *
 * A posed model as a PNG, without a GPU: glTF/GLB (posed by a model
 * instance's mixer), OBJ (as read) and voxel rigs (rig.json, posed by the
 * controller) go through the library's render sources into one renderer.
 * A clip's frames are framed with the bounds of the whole clip, so a
 * sequence or a sheet does not jump.  Several frames are written as a
 * numbered sequence (out_000.png, ...) or, with --sheet, one labelled grid.
 * --skinning dq rigs a glTF with dual-quaternion skinning (mn_rig_options).
 * An expression head (.aosrig) has options of its own: cmd_render_head.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "progress.h"
#include "shot.h"

#include <marionette/marionette.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 1024u
#define BOUNDS_SAMPLES 48u   /* poses a clip's framing bounds are taken over, besides the frames */
#define PI_F 3.14159265f

typedef struct render_args {
    const char *file, *clip;
    cli_shot shot;
    bool has_time, sheet;
    float time;
    uint32_t frames, turntable;
    float distance, fov;          /* degrees, as given */
    float background[4];
    int skinning;                 /* mn_skinning (glTF) */
    bool has_skinning;
} render_args;

/* ---- the command line ----------------------------------------------------------- */

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* "#rrggbb", "#rrggbbaa" or "none" (transparent). */
static bool parse_color(const char *s, float out[4])
{
    if (strcmp(s, "none") == 0 || strcmp(s, "transparent") == 0) {
        out[0] = out[1] = out[2] = out[3] = 0.0f;
        return true;
    }
    size_t n = strlen(s);
    if (s[0] != '#' || (n != 7 && n != 9))
        return false;
    out[3] = 1.0f;
    for (size_t i = 0; i < (n - 1) / 2; i++) {
        int hi = hex_digit(s[1 + 2 * i]), lo = hex_digit(s[2 + 2 * i]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (float)(hi * 16 + lo) / 255.0f;
    }
    return true;
}

static int take_colour(const cli_spec *spec, const cli_option *opt, const char *option,
                       const char *value)
{
    return parse_color(value, opt->dest) ? CLI_EXIT_OK : cli_bad_value(spec, opt, option, value);
}

#define RENDER_OPTIONS 9

/* The tables a glTF, OBJ or voxel rig FILE's spec points into. */
typedef struct render_tables {
    cli_option options[RENDER_OPTIONS], shot[CLI_SHOT_OPTIONS];
    cli_positional file;
} render_tables;

/* The spec of a glTF, OBJ or voxel rig FILE, storing into a (defaults set here). */
static cli_spec render_spec(render_args *a, render_tables *t)
{
    memset(a, 0, sizeof *a);
    a->shot.size = (cli_size){800, 600};
    a->shot.supersample = 2;
    a->background[0] = 0x2e / 255.0f;
    a->background[1] = 0x33 / 255.0f;
    a->background[2] = 0x3b / 255.0f;
    a->background[3] = 1.0f;
    static const cli_choice skinnings[] = {{"lbs", MN_SKINNING_LINEAR},
                                           {"dq", MN_SKINNING_DUAL_QUAT}, {NULL, 0}};
    const cli_option options[RENDER_OPTIONS] = {
        {.name = "--clip", .kind = CLI_STRING, .dest = &a->clip},
        {.name = "--time", .kind = CLI_FLOAT, .dest = &a->time, .bounds = CLI_AT_LEAST,
         .help = "a time in seconds (0 or more)", .given = &a->has_time},
        {.name = "--frames", .kind = CLI_UINT, .dest = &a->frames, .min = 1, .max = MAX_FRAMES},
        {.name = "--turntable", .kind = CLI_UINT, .dest = &a->turntable, .min = 1,
         .max = MAX_FRAMES},
        {.name = "--sheet", .kind = CLI_FLAG, .dest = &a->sheet},
        {.name = "--distance", .kind = CLI_FLOAT, .dest = &a->distance, .bounds = CLI_ABOVE,
         .help = "a positive number"},
        {.name = "--fov", .kind = CLI_FLOAT, .dest = &a->fov, .bounds = CLI_ABOVE | CLI_BELOW,
         .max = 179, .help = "an angle in degrees between 0 and 179"},
        {.name = "--background", .kind = CLI_CUSTOM, .dest = a->background,
         .convert = take_colour, .help = "#rrggbb, #rrggbbaa or none"},
        {.name = "--skinning", .kind = CLI_CHOICE, .dest = &a->skinning, .choices = skinnings,
         .given = &a->has_skinning},
    };
    memcpy(t->options, options, sizeof options);
    t->file = (cli_positional){"FILE", &a->file, "which file?"};
    return (cli_spec){.reads_model = true, .command = cli_find_command("render"),
                      .options = t->options, .option_count = RENDER_OPTIONS, .shared = t->shot,
                      .shared_count = cli_shot_options(&a->shot, true, t->shot),
                      .positionals = &t->file, .positional_count = 1};
}

/* cli_option_values of a glTF, OBJ or voxel rig FILE's spec. */
static int render_values(const char *option)
{
    render_args a;
    render_tables t;
    cli_spec spec = render_spec(&a, &t);
    return cli_option_values(&spec, option);
}

/* The command line of a glTF, OBJ or voxel rig FILE; see cli_parse_args. */
static bool parse_args(int argc, char **argv, render_args *a, int *status)
{
    render_tables t;
    cli_spec spec = render_spec(a, &t);
    if (!cli_parse_args(&spec, argc, argv, status))
        return false;
    const char *wrong = NULL;
    if (a->has_time && a->frames)
        wrong = "render: --time and --frames exclude each other";
    else if (a->turntable && (a->frames || a->has_time))
        wrong = "render: --turntable renders views of one pose; it takes no --frames or --time";
    else if (a->turntable && a->shot.view != MN_VIEW_ORBIT)
        wrong = "render: --turntable orbits; it takes no --view";
    else if (a->sheet && !a->frames && !a->turntable)
        wrong = "render: --sheet lays out --frames N or --turntable N";
    else if (cli_shot_is_jpeg(&a->shot) && a->background[3] < 1.0f)
        wrong = "render: a JPEG has no transparency: give --background #rrggbb, or -o OUT.png";
    if (wrong)
        *status = cli_usage_error("render", "%s", wrong);
    return !wrong;
}

/* ---- the options every FILE kind takes (shot.h) ----------------------------------- */

/* The image formats -o writes, by its extension. */
typedef enum image_kind { IMAGE_NONE, IMAGE_PNG, IMAGE_JPEG } image_kind;

static image_kind image_kind_of(const char *path)
{
    if (cli_has_extension(path, ".png"))
        return IMAGE_PNG;
    if (cli_has_extension(path, ".jpg") || cli_has_extension(path, ".jpeg"))
        return IMAGE_JPEG;
    return IMAGE_NONE;
}

/* -o OUT: refused now, before any work, when its extension names no format written. */
static int take_image_name(const cli_spec *spec, const cli_option *opt, const char *option,
                           const char *value)
{
    if (image_kind_of(value) == IMAGE_NONE)
        return cli_bad_value(spec, opt, option, value);
    *(const char **)opt->dest = value;
    return CLI_EXIT_OK;
}

bool cli_shot_is_jpeg(const cli_shot *shot)
{
    return image_kind_of(shot->out) == IMAGE_JPEG;
}

/* The quality of every JPEG written: small files, no visible blocks on flat shading. */
#define JPEG_QUALITY 90

/* img as the file at path, by its extension (PNG or JPEG), alone or as one more file of set. */
static mn_status write_image(mn_output *set, const mn_rgba_image *img, const char *path,
                             mn_error *err)
{
    if (image_kind_of(path) == IMAGE_JPEG)
        return set ? mn_rgba_image_write_jpeg_to(set, img, path, JPEG_QUALITY, err)
                   : mn_rgba_image_write_jpeg(img, path, JPEG_QUALITY, err);
    return set ? mn_rgba_image_write_png_to(set, img, path, err)
               : mn_rgba_image_write_png(img, path, err);
}

size_t cli_shot_options(cli_shot *shot, bool with_view, cli_option out[CLI_SHOT_OPTIONS])
{
    static const cli_choice views[] = {{"front", MN_VIEW_FRONT}, {"side", MN_VIEW_SIDE},
                                       {"top", MN_VIEW_TOP}, {"orbit", MN_VIEW_ORBIT},
                                       {NULL, 0}};
    const cli_option options[CLI_SHOT_OPTIONS] = {
        {.name = "--out", .alias = "-o", .kind = CLI_CUSTOM, .dest = &shot->out,
         .convert = take_image_name, .help = "a .png, .jpg or .jpeg file name",
         .required = "where to? (-o out.png)"},
        {.name = "--size", .kind = CLI_SIZE, .dest = &shot->size, .min = 1, .max = 8192,
         .given = &shot->has_size},
        {.name = "--yaw", .kind = CLI_FLOAT, .dest = &shot->yaw, .help = "an angle in degrees",
         .given = &shot->has_yaw},
        {.name = "--pitch", .kind = CLI_FLOAT, .dest = &shot->pitch, .min = -90, .max = 90,
         .bounds = CLI_AT_LEAST | CLI_AT_MOST, .help = "an angle in degrees from -90 to 90",
         .given = &shot->has_pitch},
        {.name = "--supersample", .kind = CLI_UINT, .dest = &shot->supersample, .min = 1,
         .max = 4, .help = "1, 2, 3 or 4"},
        {.name = "--threads", .kind = CLI_UINT, .dest = &shot->threads, .min = 1, .max = 64},
        {.name = "--quiet", .alias = "-q", .kind = CLI_FLAG, .dest = &shot->quiet},
        {.name = "--view", .kind = CLI_CHOICE, .dest = &shot->view, .choices = views},
    };
    size_t n = with_view ? CLI_SHOT_OPTIONS : CLI_SHOT_OPTIONS - 1;
    memcpy(out, options, n * sizeof *out);
    return n;
}

mn_render_view cli_shot_view(const cli_shot *shot)
{
    return (mn_render_view){
        .kind = (mn_render_view_kind)shot->view,
        .yaw = shot->has_yaw ? shot->yaw * PI_F / 180.0f : MN_RENDER_DEFAULT_YAW,
        .pitch = shot->has_pitch ? shot->pitch * PI_F / 180.0f : MN_RENDER_DEFAULT_PITCH};
}

/* ---- the model -------------------------------------------------------------------- */

typedef struct scene_model {
    mn_model *model;
    mn_rig *rig;
    mn_instance *instance;
    mn_obj *obj;
    mn_voxel_controller *voxel;
    mn_render_source *source;
    bool animated;          /* a clip is chosen */
    uint32_t clip;          /* glTF clip or voxel animation index */
    float duration;         /* seconds */
    const char *clip_name;
} scene_model;

static void model_free(scene_model *m)
{
    mn_render_source_free(m->source);
    mn_instance_free(m->instance);
    mn_rig_free(m->rig);
    mn_model_free(m->model);
    mn_obj_free(m->obj);
    mn_voxel_controller_free(m->voxel);
    memset(m, 0, sizeof *m);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n < k)
        return false;
    for (size_t i = 0; i < k; i++) {
        char c = s[n - k + i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != suffix[i])
            return false;
    }
    return true;
}

static void list_gltf_clips(const mn_model *model)
{
    if (model->animation_count == 0) {
        fputs("the file has no animations\n", stderr);
        return;
    }
    fputs("its clips:", stderr);
    for (uint32_t i = 0; i < model->animation_count; i++) {
        fprintf(stderr, "%s %u ", i ? "," : "", i);
        cli_put_quoted(stderr, model->animations[i].name);
    }
    fputc('\n', stderr);
}

/* Choose the glTF clip: --clip by name then index; clip 0 when a time or frames ask for one. */
static int choose_gltf_clip(const render_args *a, scene_model *m)
{
    const mn_model *model = m->model;
    bool wants = a->clip || a->has_time || a->frames;
    if (!wants)
        return CLI_EXIT_OK;
    if (!a->clip && !a->frames && model->animation_count == 0) {
        /* --time alone asks for a moment of a clip; without any, the rest pose is that moment. */
        fprintf(stderr, "marionette: %s: note: the file has no animations; drawing the rest "
                        "pose\n", a->file);
        return CLI_EXIT_OK;
    }
    uint32_t pick = MN_NONE;
    if (a->clip) {
        pick = cli_find_clip(model, a->clip);
    } else if (model->animation_count) {
        pick = 0;
    }
    if (pick == MN_NONE) {
        if (a->clip)
            fprintf(stderr, "marionette: %s: no clip '%s'\n", a->file, a->clip);
        else
            fprintf(stderr, "marionette: %s: --time and --frames need a clip\n", a->file);
        list_gltf_clips(model);
        return cli_usage_error("render", "render: choose a clip the file has");
    }
    m->animated = true;
    m->clip = pick;
    m->duration = mn_clip_duration(mn_rig_clip(m->rig, pick));
    m->clip_name = model->animations[pick].name;
    return CLI_EXIT_OK;
}

static int load_gltf(const render_args *a, scene_model *m)
{
    mn_error err;
    if (mn_gltf_read_file(a->file, &(mn_gltf_options){.resolver.root = cli_allow_outside}, &m->model, &err) != MN_OK) {
        cli_report_read_error(a->file, &err, CLI_READS_RENDER);
        return CLI_EXIT_FAILED;
    }
    mn_rig_options rig = {.skinning = (mn_skinning)a->skinning};
    if (mn_rig_create(m->model, &rig, &m->rig, &err) != MN_OK ||
        mn_instance_create(m->rig, NULL, &m->instance, &err) != MN_OK) {
        cli_report_error(a->file, &err);
        return CLI_EXIT_FAILED;
    }
    int rc = choose_gltf_clip(a, m);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (mn_render_source_gltf(m->instance, NULL, &m->source, &err) != MN_OK) {
        cli_report_error(a->file, &err);
        return CLI_EXIT_FAILED;
    }
    return CLI_EXIT_OK;
}

static int load_obj(const render_args *a, scene_model *m)
{
    mn_error err;
    if (a->clip || a->frames) {
        fprintf(stderr, "marionette: %s: an OBJ has no animations\n", a->file);
        return cli_usage_error("render", "render: --clip and --frames need an animated model");
    }
    if (a->has_time)
        fprintf(stderr, "marionette: %s: note: an OBJ has no animations; drawing it as read\n",
                a->file);
    mn_obj_options options = {.threads = cli_obj_threads(), .resolver.root = cli_allow_outside};
    if (mn_obj_read_file(a->file, &options, &m->obj, &err) != MN_OK) {
        cli_report_error(a->file, &err);
        return CLI_EXIT_FAILED;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", a->file);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    if (mn_render_source_obj(m->obj, dir, cli_allow_outside, NULL, &m->source, &err) != MN_OK) {
        cli_report_error(a->file, &err);
        return CLI_EXIT_FAILED;
    }
    return CLI_EXIT_OK;
}

static int load_voxel(const render_args *a, scene_model *m)
{
    mn_error err;
    if (mn_voxel_controller_load(a->file, &(mn_voxel_controller_options){.root = cli_allow_outside}, &m->voxel, &err) != MN_OK) {
        cli_report_error(a->file, &err);
        return CLI_EXIT_FAILED;
    }
    const mn_voxel_rig *rig = mn_voxel_controller_rig(m->voxel);
    if (a->clip) {
        uint32_t pick = mn_voxel_rig_find_animation(rig, a->clip);
        if (pick == MN_NONE) {
            fprintf(stderr, "marionette: %s: no animation '%s'; its animations:", a->file, a->clip);
            for (uint32_t i = 0; i < rig->animation_count; i++) {
                fputc(' ', stderr);
                cli_put_quoted(stderr, rig->animations[i].name);
            }
            fputc('\n', stderr);
            return cli_usage_error("render", "render: choose an animation the rig has");
        }
        m->animated = true;
        m->clip = pick;
        m->clip_name = rig->animations[pick].name;
        m->duration = (float)(rig->animations[pick].duration_ms / 1000.0);
    } else if (a->has_time || a->frames) {
        /* The auto-play animations alone: as long as the longest of them. */
        for (uint32_t i = 0; i < rig->animation_count; i++)
            if (rig->animations[i].auto_play)
                m->duration = fmaxf(m->duration, (float)(rig->animations[i].duration_ms / 1000.0));
        m->animated = true;
        m->clip = MN_NONE;
        m->clip_name = "auto";
    }
    if (mn_render_source_voxel(m->voxel, NULL, &m->source, &err) != MN_OK) {
        cli_report_error(a->file, &err);
        return CLI_EXIT_FAILED;
    }
    return CLI_EXIT_OK;
}

/* Pose the model at t seconds into its clip (rest or as read when none) and refresh the scene. */
static void pose_at(scene_model *m, float t)
{
    if (m->instance && m->animated) {
        mn_mixer_play(mn_instance_mixer(m->instance), m->clip,
                      &(mn_play_options){.once = true, .at = t}, NULL);
        mn_instance_update(m->instance, 0.0f);
    } else if (m->voxel && m->animated) {
        if (m->clip != MN_NONE)
            mn_voxel_controller_play_animation(m->voxel, m->clip_name);
        mn_voxel_controller_seek(m->voxel, (double)t * 1000.0);
    }
    mn_render_source_refresh(m->source);
}

/* ---- frames, progress and output -------------------------------------------------- */

/* out.png → out_007.png, out.jpg → out_007.jpg (4 digits when there are more than 1000
   frames); -o has an image extension (take_image_name). */
static bool numbered_name(char *buf, size_t size, const char *out, uint32_t index, uint32_t count)
{
    const char *dot = strrchr(out, '.');
    int stem = (int)(dot - out);
    int n = count > 1000 ? snprintf(buf, size, "%.*s_%04u%s", stem, out, index % 10000u, dot)
                         : snprintf(buf, size, "%.*s_%03u%s", stem, out, index % 1000u, dot);
    return n > 0 && (size_t)n < size;
}

static float frame_time(const scene_model *m, uint32_t i, uint32_t n)
{
    return n > 1 ? m->duration * (float)i / (float)(n - 1) : 0.0f;
}

static mn_render_view base_view(const render_args *a)
{
    mn_render_view v = cli_shot_view(&a->shot);
    v.distance = a->distance;
    v.fov_y = a->fov * PI_F / 180.0f;
    return v;
}

int cli_write_image(const mn_rgba_image *img, const char *path)
{
    mn_error err;
    if (write_image(NULL, img, path, &err) != MN_OK) {
        fprintf(stderr, "marionette: %s (%s)\n", err.message, mn_status_name(err.code));
        return CLI_EXIT_FAILED;
    }
    return CLI_EXIT_OK;
}

/* Bounds over the frames to render, and for a clip over the whole clip. */
static void framing_bounds(scene_model *m, const render_args *a, uint32_t frames, float lo[3],
                           float hi[3])
{
    mn_render_bounds_reset(lo, hi);
    if (!m->animated) {
        pose_at(m, 0.0f);
        mn_render_scene_bounds(mn_render_source_scene(m->source), lo, hi);
        return;
    }
    for (uint32_t i = 0; i <= BOUNDS_SAMPLES; i++) {
        pose_at(m, m->duration * (float)i / (float)BOUNDS_SAMPLES);
        mn_render_scene_bounds(mn_render_source_scene(m->source), lo, hi);
    }
    for (uint32_t i = 0; i < frames; i++) {
        pose_at(m, a->has_time ? a->time : frame_time(m, i, frames));
        mn_render_scene_bounds(mn_render_source_scene(m->source), lo, hi);
    }
}

typedef struct job {
    const render_args *a;
    scene_model *m;
    mn_renderer *renderer;
    mn_rgba_image image;
    mn_sheet sheet;
    float lo[3], hi[3];
    cli_progress bar;
} job;

/* Render cell i (a frame of the clip or a turntable view) into job->image; label it. */
static int render_cell(job *j, uint32_t i, uint32_t count, char *label, size_t label_size)
{
    const render_args *a = j->a;
    mn_render_view view = base_view(a);
    float t = a->has_time ? a->time : frame_time(j->m, i, count);
    if (a->turntable) {
        view.yaw += 2.0f * PI_F * (float)i / (float)count;
        snprintf(label, label_size, "yaw %.0f", (double)(view.yaw * 180.0f / PI_F));
        t = 0.0f;
    } else {
        snprintf(label, label_size, "%s t=%.2fs", j->m->clip_name ? j->m->clip_name : "",
                 (double)t);
    }
    pose_at(j->m, t);
    mn_render_camera cam;
    mn_error err;
    float aspect = (float)a->shot.size.width / (float)a->shot.size.height;
    if (mn_render_camera_frame(j->lo, j->hi, &view, aspect, &cam, &err) != MN_OK ||
        mn_renderer_draw(j->renderer, mn_render_source_scene(j->m->source), &cam, &j->image,
                         &err) != MN_OK) {
        cli_report_error(a->file, &err);
        return CLI_EXIT_FAILED;
    }
    return CLI_EXIT_OK;
}

static int render_all(job *j)
{
    const render_args *a = j->a;
    uint32_t count = a->turntable ? a->turntable : a->frames ? a->frames : 1;
    j->bar = cli_progress_start("rendering", count, a->shot.quiet);
    if (a->sheet) {
        uint8_t bg[4];
        for (int i = 0; i < 4; i++)
            bg[i] = (uint8_t)(a->background[i] * 255.0f + 0.5f);
        mn_error err;
        if (mn_sheet_create(count, a->shot.size.width, a->shot.size.height, bg, NULL, &j->sheet,
                            &err) != MN_OK) {
            fprintf(stderr, "marionette: %s: %s\n", a->shot.out, err.message);
            return CLI_EXIT_USAGE;
        }
    }
    cli_progress_show(&j->bar, 0);
    /* A sequence is one output set: every frame replaced, or (on any error) none. */
    mn_output *frames = NULL;
    mn_error err;
    if (!a->sheet && count > 1 && mn_output_begin(NULL, &frames, &err) != MN_OK) {
        fprintf(stderr, "marionette: %s (%s)\n", err.message, mn_status_name(err.code));
        return CLI_EXIT_FAILED;
    }
    for (uint32_t i = 0; i < count; i++) {
        char label[96], name[4200];
        int rc = render_cell(j, i, count, label, sizeof label);
        if (rc == CLI_EXIT_OK && a->sheet) {
            mn_sheet_put(&j->sheet, i, &j->image, label);
        } else if (rc == CLI_EXIT_OK && !frames) {
            rc = cli_write_image(&j->image, a->shot.out);
        } else if (rc == CLI_EXIT_OK && !numbered_name(name, sizeof name, a->shot.out, i, count)) {
            fprintf(stderr, "marionette: %s: path too long\n", a->shot.out);
            rc = CLI_EXIT_USAGE;
        } else if (rc == CLI_EXIT_OK && write_image(frames, &j->image, name, &err) != MN_OK) {
            fprintf(stderr, "marionette: %s (%s)\n", err.message, mn_status_name(err.code));
            rc = CLI_EXIT_FAILED;
        }
        if (rc != CLI_EXIT_OK) {
            mn_output_abort(frames);
            return rc;
        }
        cli_progress_show(&j->bar, i + 1);
    }
    if (a->sheet)
        return cli_write_image(&j->sheet.image, a->shot.out);
    if (frames && mn_output_commit(frames, &err) != MN_OK) {
        fprintf(stderr, "marionette: %s (%s)\n", err.message, mn_status_name(err.code));
        return CLI_EXIT_FAILED;
    }
    /* The files of a sequence, listed once the bar is done (not interleaved with it). */
    for (uint32_t i = 0; count > 1 && !a->shot.quiet && i < count; i++) {
        char name[4200];
        if (numbered_name(name, sizeof name, a->shot.out, i, count))
            printf("%s\n", name);
    }
    return CLI_EXIT_OK;
}

static int run_render(const render_args *a)
{
    scene_model m = {0};
    int rc;
    if (a->has_skinning && (cli_is_rig_json(a->file) || ends_with(a->file, ".obj")))
        return cli_usage_error("render", "render: --skinning chooses how a glTF FILE is skinned");
    if (cli_is_rig_json(a->file))
        rc = load_voxel(a, &m);
    else if (ends_with(a->file, ".obj"))
        rc = load_obj(a, &m);
    else
        rc = load_gltf(a, &m);
    if (rc != CLI_EXIT_OK) {
        model_free(&m);
        return rc;
    }
    for (uint32_t i = 0; i < mn_render_source_warning_count(m.source); i++) {
        const mn_warning *w = mn_render_source_warning(m.source, i);
        fprintf(stderr, "marionette: %s: warning: %s\n", a->file, w->message);
    }
    job j = {.a = a, .m = &m};
    mn_error err;
    const mn_render_scene *scene = mn_render_source_scene(m.source);
    mn_render_options opt = {.width = a->shot.size.width, .height = a->shot.size.height,
                             .supersample = a->shot.supersample,
                             .threads = cli_render_threads(a->shot.threads),
                             .max_triangles = mn_render_scene_triangle_count(scene)};
    memcpy(opt.background, a->background, sizeof opt.background);
    if (mn_renderer_create(&opt, &j.renderer, &err) != MN_OK ||
        mn_rgba_image_create(a->shot.size.width, a->shot.size.height, NULL, &j.image, &err) !=
            MN_OK) {
        cli_report_error(a->file, &err);
        rc = CLI_EXIT_FAILED;
    } else {
        framing_bounds(&m, a, a->frames, j.lo, j.hi);
        rc = render_all(&j);
    }
    mn_sheet_free(&j.sheet);
    mn_rgba_image_free(&j.image);
    mn_renderer_free(j.renderer);
    model_free(&m);
    return rc;
}

/* Expression heads (cmd_render_head.c), with their own options (--arkit, --expr, --colour). */
int mn_cli_render_head(int argc, char **argv);
int mn_cli_render_head_values(const char *option);
/* Character packages (cmd_render_character.c; the rule in cmd_info_character.c). */
bool mn_cli_is_character(const char *path);
int mn_cli_render_character(int argc, char **argv);
int mn_cli_render_character_values(const char *option);

int cli_render(int argc, char **argv)
{
    /* The FILE decides whose options the line holds; any kind's table says which
       arguments are option values, so `--clip character.json` names no file. */
    static const cli_values_fn kinds[] = {render_values, mn_cli_render_head_values,
                                          mn_cli_render_character_values};
    const char *file = cli_the_file(argc, argv, kinds, CLI_COUNT(kinds));
    if (file && mn_cli_is_aosrig(file))
        return mn_cli_render_head(argc, argv);
    if (file && mn_cli_is_character(file))
        return mn_cli_render_character(argc, argv);
    render_args a;
    int rc;
    return parse_args(argc, argv, &a, &rc) ? run_render(&a) : rc;
}
