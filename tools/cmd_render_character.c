/*
 * `marionette render character.json [--clip NAME] [--time T] [--size WxH] [--yaw DEG]
 *                                  [--pitch DEG] [--radius S] [--supersample N]
 *                                  [--threads N] -o OUT.png`
 *
 * A character package loaded with the library (mn_character_load), its
 * SOMA skeleton posed with a clip at T (mn_clip_sample, then mn_soma_pose
 * for the skin matrices), its splats deformed on the CPU (mn_splat_skin_run)
 * and drawn as coloured camera-facing discs through the splat render source.
 * The camera frames the splats over the whole clip (17 poses from its start
 * to its end), so two times of one clip line up.  Without --clip and
 * --time the rest pose is drawn; --time alone takes the package's first
 * clip (then the shared pack's).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "shot.h"

#include <marionette/character/package.h>
#include <marionette/render.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmd_render.c hands a character package (mn_cli_is_character) to this. */
int mn_cli_render_character(int argc, char **argv);
int mn_cli_render_character_values(const char *option);
/* cmd_info_character.c: the package's folder and descriptor name from FILE. */
void mn_cli_character_split(const char *path, char *dir, size_t dir_size, const char **name);

#define FRAMING_POSES 17u

typedef struct character_render_args {
    const char *file, *clip;
    cli_shot shot;
    bool has_time;
    float time, radius;
    mn_render_view view;          /* from shot */
} character_render_args;

/* ---- the command line ------------------------------------------------------------ */

#define CHARACTER_OPTIONS 3

/* The tables a package's spec points into. */
typedef struct character_tables {
    cli_option options[CHARACTER_OPTIONS], shot[CLI_SHOT_OPTIONS];
    cli_positional file;
} character_tables;

static cli_spec character_spec(character_render_args *a, character_tables *t)
{
    memset(a, 0, sizeof *a);
    a->shot.size = (cli_size){512, 512};
    a->shot.supersample = 2;
    a->radius = 1.0f;
    const cli_option options[CHARACTER_OPTIONS] = {
        {.name = "--clip", .kind = CLI_STRING, .dest = &a->clip},
        {.name = "--time", .kind = CLI_FLOAT, .dest = &a->time, .help = "a number of seconds",
         .given = &a->has_time},
        {.name = "--radius", .kind = CLI_FLOAT, .dest = &a->radius, .bounds = CLI_ABOVE,
         .help = "a positive number"},
    };
    memcpy(t->options, options, sizeof options);
    t->file = (cli_positional){"FILE", &a->file, "which file?"};
    return (cli_spec){.reads_model = true, .command = cli_find_command("render"),
                      .options_of = "a character package", .options = t->options,
                      .option_count = CHARACTER_OPTIONS, .shared = t->shot,
                      .shared_count = cli_shot_options(&a->shot, false, t->shot),
                      .positionals = &t->file, .positional_count = 1};
}

int mn_cli_render_character_values(const char *option)
{
    character_render_args a;
    character_tables t;
    cli_spec spec = character_spec(&a, &t);
    return cli_option_values(&spec, option);
}

static bool parse_args(int argc, char **argv, character_render_args *a, int *status)
{
    character_tables t;
    cli_spec spec = character_spec(a, &t);
    if (!cli_parse_args(&spec, argc, argv, status))
        return false;
    a->view = cli_shot_view(&a->shot);
    return true;
}

/* ---- posing ------------------------------------------------------------------------ */

typedef struct character_scene {
    mn_character *character;
    const mn_soma_clip *clip;     /* NULL: the rest pose */
    mn_pose pose;
    float *worlds, *skin;         /* 16 × joints each */
    float *centres, *rotations;   /* the deformed splats */
    mn_splat_skin_job job;
    mn_render_source *source;
} character_scene;

static void scene_free(character_scene *s)
{
    mn_render_source_free(s->source);
    free(s->worlds);
    free(s->skin);
    free(s->centres);
    free(s->rotations);
    mn_pose_free(&s->pose);
    mn_character_free(s->character);
}

/* The clip --clip names, or the first there is when only --time was given; exit 2 for a name
   the package lacks, with its clips listed. */
static int choose_clip(const character_render_args *a, character_scene *s)
{
    const mn_character *c = s->character;
    if (a->clip) {
        s->clip = mn_soma_clips_lookup(c->clips, c->shared_clips, a->clip);
        if (s->clip)
            return CLI_EXIT_OK;
        fprintf(stderr, "marionette: render: %s has no clip ", a->file);
        cli_put_quoted(stderr, a->clip);
        fprintf(stderr, "; its clips:");
        const mn_soma_clips *sets[2] = {c->clips, c->shared_clips};
        for (int k = 0; k < 2; k++)
            for (uint32_t i = 0; sets[k] && i < sets[k]->clip_count; i++) {
                fputc(' ', stderr);
                cli_put_quoted(stderr, sets[k]->clips[i].name);
            }
        fputc('\n', stderr);
        return CLI_EXIT_USAGE;
    }
    if (a->has_time) {
        if (c->clips && c->clips->clip_count)
            s->clip = &c->clips->clips[0];
        else if (c->shared_clips && c->shared_clips->clip_count)
            s->clip = &c->shared_clips->clips[0];
    }
    return CLI_EXIT_OK;
}

/* The skeleton posed with the clip at t (clamped to the clip), and the splats deformed. */
static void pose_at(character_scene *s, float t)
{
    const mn_soma_skeleton *sk = s->character->skeleton;
    mn_soma_rest_pose(sk, &s->pose);
    if (s->clip) {
        float d = s->clip->duration;
        /* A SOMA clip is unbound and made for this skeleton's joint count: it cannot fail. */
        (void)mn_clip_sample(s->clip->clip, t < 0.0f ? 0.0f : (t > d ? d : t), &s->pose, NULL);
    }
    mn_soma_pose(sk, &s->pose, s->worlds, s->skin);
    (void)mn_splat_skin_run(&s->job, MN_SIMD_BEST); /* the job was validated at load */
}

static int load(const character_render_args *a, character_scene *s)
{
    char dir[4096];
    const char *name = NULL;
    mn_cli_character_split(a->file, dir, sizeof dir, &name);
    mn_error err;
    memset(&err, 0, sizeof err);
    if (mn_character_load(dir, name, &(mn_character_load_options){.resolver.root = cli_allow_outside}, &s->character, &err) != MN_OK) {
        cli_report_error(a->file, &err);
        return CLI_EXIT_FAILED;
    }
    for (uint32_t i = 0; i < s->character->warning_count; i++) {
        const mn_character_warning *w = &s->character->warnings[i];
        fprintf(stderr, "marionette: warning: %s: %s\n", a->file, w->message);
    }
    int rc = choose_clip(a, s);
    if (rc != CLI_EXIT_OK)
        return rc;
    const mn_character *c = s->character;
    uint32_t joints = c->skeleton->joint_count, n = c->splats.count;
    s->worlds = malloc((size_t)joints * 16 * sizeof(float));
    s->skin = malloc((size_t)joints * 16 * sizeof(float));
    s->centres = malloc((size_t)(n ? n : 1) * 3 * sizeof(float));
    s->rotations = malloc((size_t)(n ? n : 1) * 4 * sizeof(float));
    if (!s->worlds || !s->skin || !s->centres || !s->rotations ||
        mn_pose_create(&s->pose, joints, NULL, &err) != MN_OK) {
        fprintf(stderr, "marionette: %s: out of memory\n", a->file);
        return CLI_EXIT_FAILED;
    }
    s->job = (mn_splat_skin_job){
        .count = n, .influences = c->bindings.influences, .joints = c->bindings.joints,
        .weights = c->bindings.weights, .palette = s->skin, .palette_count = joints,
        .centres = c->splats.centres, .rotations = c->splats.rotations,
        .translation = {c->ply_translation[0], c->ply_translation[1], c->ply_translation[2]},
        .out_centres = s->centres, .out_rotations = s->rotations};
    mn_render_splat_options so = {
        .radius_scale = a->radius,
        .linear_colours = strcmp(c->descriptor->color_space, "linear") == 0};
    if (mn_splat_skin_job_validate(&s->job, &err) != MN_OK ||
        mn_render_source_splat(&c->splats, s->centres, &so, &s->source, &err) != MN_OK) {
        cli_report_error(a->file, &err);
        return CLI_EXIT_FAILED;
    }
    return CLI_EXIT_OK;
}

/* ---- drawing ------------------------------------------------------------------------- */

/* The bounds of the splats over the clip (or at rest), so any time of it is framed alike. */
static void clip_bounds(character_scene *s, float lo[3], float hi[3])
{
    mn_render_bounds_reset(lo, hi);
    uint32_t poses = s->clip ? FRAMING_POSES : 1u;
    for (uint32_t i = 0; i < poses; i++) {
        float t = s->clip ? s->clip->duration * (float)i / (float)(poses - 1) : 0.0f;
        pose_at(s, t);
        mn_render_source_refresh(s->source);
        mn_render_scene_bounds(mn_render_source_scene(s->source), lo, hi);
    }
}

static int draw(const character_render_args *a, character_scene *s)
{
    float lo[3], hi[3];
    clip_bounds(s, lo, hi);
    mn_render_camera cam;
    mn_error err;
    memset(&err, 0, sizeof err);
    float aspect = (float)a->shot.size.width / (float)a->shot.size.height;
    if (mn_render_camera_frame(lo, hi, &a->view, aspect, &cam, &err) != MN_OK) {
        cli_report_error(a->file, &err);
        return CLI_EXIT_FAILED;
    }
    pose_at(s, a->time);
    mn_render_source_splat_face(s->source, &cam);
    mn_render_source_refresh(s->source);
    const mn_render_scene *scene = mn_render_source_scene(s->source);
    mn_renderer *r = NULL;
    mn_rgba_image img = {0};
    mn_render_options ro = {.width = a->shot.size.width, .height = a->shot.size.height,
                            .supersample = a->shot.supersample,
                            .threads = cli_render_threads(a->shot.threads),
                            .max_triangles = mn_render_scene_triangle_count(scene),
                            .background = {0x2e / 255.0f, 0x33 / 255.0f, 0x3b / 255.0f, 1.0f}};
    int rc = CLI_EXIT_FAILED;
    if (mn_renderer_create(&ro, &r, &err) == MN_OK &&
        mn_rgba_image_create(a->shot.size.width, a->shot.size.height, NULL, &img, &err) == MN_OK &&
        mn_renderer_draw(r, scene, &cam, &img, &err) == MN_OK)
        rc = cli_write_image(&img, a->shot.out);
    else
        cli_report_error(a->file, &err);
    mn_rgba_image_free(&img);
    mn_renderer_free(r);
    return rc;
}

int mn_cli_render_character(int argc, char **argv)
{
    character_render_args a;
    int rc;
    if (!parse_args(argc, argv, &a, &rc))
        return rc;
    character_scene s;
    memset(&s, 0, sizeof s);
    rc = load(&a, &s);
    if (rc == CLI_EXIT_OK)
        rc = draw(&a, &s);
    scene_free(&s);
    return rc;
}
