/*
 * `marionette render character.json [--clip NAME] [--time T | --frames N --sheet]
 *                                  [--arkit LIST] [--look X,Y,Z] [--size WxH] [--yaw DEG]
 *                                  [--pitch DEG] [--radius S] [--supersample N]
 *                                  [--threads N] -o OUT.png`
 *
 * A character package played with the library's runtime (character_play.h:
 * mn_character_load, mn_character_runtime at the clip time, the face through
 * the package's face map, the eyes toward --look): its splats drawn as
 * coloured camera-facing discs (those the mouth list hides while the lips are
 * closed are left out) and its head, posed on the body, as a shaded mesh,
 * both in one scene.  The camera frames the character over the whole clip
 * (17 poses from its start to its end), so two times of one clip line up.
 * Without --clip and --time the rest pose is drawn; --time alone takes the
 * package's first clip (then the shared pack's).  --frames N --sheet draws N
 * times spread over the clip as one labelled grid.
 */
#define _POSIX_C_SOURCE 200809L

#include "character_play.h"
#include "shot.h"

#include <marionette/character/package.h>
#include <marionette/render.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmd_render.c hands a character package (mn_cli_is_character) to this. */
int mn_cli_render_character(int argc, char **argv);
int mn_cli_render_character_values(const char *option);

#define FRAMING_POSES 17u
#define MAX_FRAMES 256u

typedef struct character_render_args {
    cli_character_args play;
    cli_shot shot;
    float time, radius;
    uint32_t frames;
    bool sheet;
    mn_render_view view;          /* from shot */
} character_render_args;

/* ---- the command line ------------------------------------------------------------ */

#define CHARACTER_OPTIONS 7

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
        {.name = "--clip", .kind = CLI_STRING, .dest = &a->play.clip},
        {.name = "--time", .kind = CLI_FLOAT, .dest = &a->time, .help = "a number of seconds",
         .given = &a->play.has_time},
        {.name = "--radius", .kind = CLI_FLOAT, .dest = &a->radius, .bounds = CLI_ABOVE,
         .help = "a positive number"},
        {.name = "--arkit", .kind = CLI_STRING, .dest = &a->play.arkit},
        {.name = "--look", .kind = CLI_STRING, .dest = &a->play.look},
        {.name = "--frames", .kind = CLI_UINT, .dest = &a->frames, .min = 1, .max = MAX_FRAMES},
        {.name = "--sheet", .kind = CLI_FLAG, .dest = &a->sheet},
    };
    memcpy(t->options, options, sizeof options);
    t->file = (cli_positional){"FILE", &a->play.file, "which file?"};
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
    const char *wrong = NULL;
    if (a->play.has_time && a->frames)
        wrong = "render: --time and --frames exclude each other";
    else if (a->frames && !a->sheet)
        wrong = "render: a character package's --frames N are drawn as one --sheet";
    else if (a->sheet && !a->frames)
        wrong = "render: --sheet lays out --frames N";
    if (wrong) {
        *status = cli_usage_error("render", "%s", wrong);
        return false;
    }
    a->play.threads = a->shot.threads;
    a->play.quiet = a->shot.quiet;
    a->view = cli_shot_view(&a->shot);
    return true;
}

/* ---- the scene: splats and head ------------------------------------------------------ */

typedef struct character_scene {
    cli_character play;
    mn_splat_cloud cloud;          /* the package's, its opacities the frame's (logits) */
    float *logits;
    mn_render_splat_options splat_options;
    mn_render_source *splats, *head;
    mn_render_mesh *meshes;
    mn_render_material *materials;
    mn_render_texture *textures;
    mn_render_scene scene;
} character_scene;

static void scene_free(character_scene *s)
{
    mn_render_source_free(s->splats);
    mn_render_source_free(s->head);
    free(s->logits);
    free(s->meshes);
    free(s->materials);
    free(s->textures);
    cli_character_close(&s->play);
}

/* The splats' source for this frame: hidden ones (opacity 0) are not drawn. */
static mn_status rebuild_splats(character_scene *s, mn_error *err)
{
    const mn_character_views *v = mn_character_runtime_views(s->play.runtime);
    for (uint32_t i = 0; i < v->splat_count; i++) {
        double a = v->splat_opacities[i];
        a = a < 1e-7 ? 1e-7 : a > 1.0 - 1e-7 ? 1.0 - 1e-7 : a;
        s->logits[i] = (float)log(a / (1.0 - a));
    }
    mn_render_source_free(s->splats);
    s->splats = NULL;
    return mn_render_source_splat(&s->cloud, v->splat_centres, &s->splat_options, &s->splats,
                                  err);
}

/* One scene of both sources: the head's meshes after the splats', materials offset. */
static mn_status combine(character_scene *s, mn_error *err)
{
    const mn_render_scene *parts[2] = {mn_render_source_scene(s->splats),
                                       s->head ? mn_render_source_scene(s->head) : NULL};
    uint32_t meshes = 0, materials = 0, textures = 0;
    for (int k = 0; k < 2; k++)
        if (parts[k]) {
            meshes += parts[k]->mesh_count;
            materials += parts[k]->material_count;
            textures += parts[k]->texture_count;
        }
    free(s->meshes);
    free(s->materials);
    free(s->textures);
    s->meshes = calloc(meshes ? meshes : 1, sizeof *s->meshes);
    s->materials = calloc(materials ? materials : 1, sizeof *s->materials);
    s->textures = calloc(textures ? textures : 1, sizeof *s->textures);
    if (!s->meshes || !s->materials || !s->textures) {
        err->code = MN_OUT_OF_MEMORY;
        snprintf(err->message, sizeof err->message, "out of memory for the scene");
        return MN_OUT_OF_MEMORY;
    }
    uint32_t m = 0, mat = 0, tex = 0;
    for (int k = 0; k < 2; k++) {
        const mn_render_scene *p = parts[k];
        if (!p)
            continue;
        for (uint32_t i = 0; i < p->mesh_count; i++) {
            s->meshes[m] = p->meshes[i];
            if (s->meshes[m].material != MN_NONE)
                s->meshes[m].material += mat;
            m++;
        }
        for (uint32_t i = 0; i < p->material_count; i++) {
            mn_render_material x = p->materials[i];
            if (x.texture != MN_NONE)
                x.texture += tex;
            if (x.emissive_texture != MN_NONE)
                x.emissive_texture += tex;
            s->materials[mat + i] = x;
        }
        if (p->texture_count)
            memcpy(s->textures + tex, p->textures, p->texture_count * sizeof *p->textures);
        mat += p->material_count;
        tex += p->texture_count;
    }
    s->scene = (mn_render_scene){s->meshes, meshes, s->materials, materials, s->textures,
                                 textures, NULL, 0};
    return MN_OK;
}

static int load(const character_render_args *a, character_scene *s)
{
    int rc = cli_character_open(&a->play, "render", &s->play);
    if (rc != CLI_EXIT_OK)
        return rc;
    const mn_character *c = s->play.character;
    mn_error err;
    memset(&err, 0, sizeof err);
    s->cloud = c->splats;
    s->logits = malloc((size_t)(c->splats.count ? c->splats.count : 1) * sizeof(float));
    if (!s->logits) {
        fprintf(stderr, "marionette: %s: out of memory\n", a->play.file);
        return CLI_EXIT_FAILED;
    }
    s->cloud.opacities = s->logits;
    /* 1e-6: what the runtime hides (opacity 0) is not drawn; nothing visible is lost */
    s->splat_options = (mn_render_splat_options){
        .radius_scale = a->radius, .min_opacity = 1e-6f,
        .linear_colours = strcmp(c->descriptor->color_space, "linear") == 0};
    rc = cli_character_pose(&s->play, 0.0f);
    if (rc != CLI_EXIT_OK)
        return rc;
    mn_head *head = mn_character_runtime_head(s->play.runtime);
    const mn_character_views *v = mn_character_runtime_views(s->play.runtime);
    if (rebuild_splats(s, &err) != MN_OK ||
        (head && mn_render_source_head(head, v->head_vertices, NULL, &s->head, &err) != MN_OK)) {
        cli_report_error(a->play.file, &err);
        return CLI_EXIT_FAILED;
    }
    return CLI_EXIT_OK;
}

/* Pose at t and bring both sources (and the combined scene) up to date. */
static int pose_scene(character_scene *s, float t, bool rebuild)
{
    int rc = cli_character_pose(&s->play, t);
    if (rc != CLI_EXIT_OK)
        return rc;
    mn_error err;
    memset(&err, 0, sizeof err);
    if ((rebuild && rebuild_splats(s, &err) != MN_OK) || combine(s, &err) != MN_OK) {
        cli_report_error(s->play.file, &err);
        return CLI_EXIT_FAILED;
    }
    mn_render_source_refresh(s->splats);
    if (s->head)
        mn_render_source_refresh(s->head);
    return CLI_EXIT_OK;
}

/* ---- drawing ------------------------------------------------------------------------- */

static float frame_time(const character_scene *s, uint32_t i, uint32_t n)
{
    return n > 1 ? cli_character_duration(&s->play) * (float)i / (float)(n - 1) : 0.0f;
}

/* The bounds over the clip (or at rest), so any time of it is framed alike. */
static int clip_bounds(character_scene *s, float lo[3], float hi[3])
{
    mn_render_bounds_reset(lo, hi);
    uint32_t poses = s->play.clip ? FRAMING_POSES : 1u;
    for (uint32_t i = 0; i < poses; i++) {
        int rc = pose_scene(s, frame_time(s, i, poses), false);
        if (rc != CLI_EXIT_OK)
            return rc;
        mn_render_scene_bounds(&s->scene, lo, hi);
    }
    return CLI_EXIT_OK;
}

typedef struct drawing {
    mn_renderer *renderer;
    mn_rgba_image image;
    mn_render_camera camera;
} drawing;

static int draw_one(const character_render_args *a, character_scene *s, drawing *d, float t)
{
    mn_error err;
    memset(&err, 0, sizeof err);
    int rc = pose_scene(s, t, true);
    if (rc != CLI_EXIT_OK)
        return rc;
    mn_render_source_splat_face(s->splats, &d->camera);
    mn_render_source_refresh(s->splats);
    if (mn_renderer_draw(d->renderer, &s->scene, &d->camera, &d->image, &err) != MN_OK) {
        cli_report_error(a->play.file, &err);
        return CLI_EXIT_FAILED;
    }
    return CLI_EXIT_OK;
}

static int draw(const character_render_args *a, character_scene *s)
{
    float lo[3], hi[3];
    int rc = clip_bounds(s, lo, hi);
    if (rc != CLI_EXIT_OK)
        return rc;
    drawing d = {0};
    mn_error err;
    memset(&err, 0, sizeof err);
    float aspect = (float)a->shot.size.width / (float)a->shot.size.height;
    const mn_character *c = s->play.character;
    size_t head_triangles = c->head ? c->head->face_count : 0;
    mn_render_options ro = {.width = a->shot.size.width, .height = a->shot.size.height,
                            .supersample = a->shot.supersample,
                            .threads = cli_render_threads(a->shot.threads),
                            .max_triangles = 4 * (size_t)c->splats.count + head_triangles + 1,
                            .background = {0x2e / 255.0f, 0x33 / 255.0f, 0x3b / 255.0f, 1.0f}};
    mn_sheet sheet = {0};
    uint8_t bg[4] = {0x2e, 0x33, 0x3b, 0xff};
    uint32_t count = a->frames ? a->frames : 1;
    if (mn_render_camera_frame(lo, hi, &a->view, aspect, &d.camera, &err) != MN_OK ||
        mn_renderer_create(&ro, &d.renderer, &err) != MN_OK ||
        mn_rgba_image_create(a->shot.size.width, a->shot.size.height, NULL, &d.image, &err) !=
            MN_OK ||
        (a->sheet && mn_sheet_create(count, a->shot.size.width, a->shot.size.height, bg, NULL,
                                     &sheet, &err) != MN_OK)) {
        cli_report_error(a->play.file, &err);
        rc = CLI_EXIT_FAILED;
    }
    for (uint32_t i = 0; rc == CLI_EXIT_OK && i < count; i++) {
        float t = a->frames ? frame_time(s, i, count) : a->time;
        rc = draw_one(a, s, &d, t);
        if (rc == CLI_EXIT_OK && a->sheet) {
            char label[96];
            snprintf(label, sizeof label, "%s t=%.2fs", s->play.clip ? s->play.clip->name : "rest",
                     (double)t);
            mn_sheet_put(&sheet, i, &d.image, label);
        }
    }
    if (rc == CLI_EXIT_OK)
        rc = cli_write_image(a->sheet ? &sheet.image : &d.image, a->shot.out);
    mn_sheet_free(&sheet);
    mn_rgba_image_free(&d.image);
    mn_renderer_free(d.renderer);
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
