/*
 * A character package played on the command line (character_play.h), and
 * `marionette sample character.json [--clip NAME] [--time T] [--arkit LIST]
 * [--look X,Y,Z] [--samples N] [--json]`: one frame of mn_character_runtime
 * printed — joint worlds, corrective weights and angles, and a sample of the
 * head's vertices and of the splats (docs/cli.md, "sample on a character
 * package", gives the JSON's shape).
 */
#define _POSIX_C_SOURCE 200809L

#include "character_play.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmd_info_character.c: the package's folder and descriptor name from FILE. */
void mn_cli_character_split(const char *path, char *dir, size_t dir_size, const char **name);
int mn_cli_character_sample(int argc, char **argv);
int mn_cli_character_sample_values(const char *option);

/* ---- playing ------------------------------------------------------------------------ */

/* --arkit "jawOpen=0.8,eyeBlinkLeft=1" into 52 weights. */
static int parse_arkit(const char *list, const char *command, float *w)
{
    const char *s = list;
    while (*s) {
        size_t len = strcspn(s, ",");
        const char *eq = memchr(s, '=', len);
        char name[64];
        size_t name_len = eq ? (size_t)(eq - s) : 0;
        float value = 0.0f;
        if (!eq || name_len == 0 || name_len >= sizeof name ||
            !cli_parse_float_span(eq + 1, len - name_len - 1, &value))
            return cli_usage_error(command, "%s: --arkit: '%.*s' is not CHANNEL=NUMBER", command,
                                   (int)(len < 100 ? len : 100), s);
        memcpy(name, s, name_len);
        name[name_len] = '\0';
        int32_t c = mn_arkit_channel_index(name);
        if (c < 0)
            return cli_usage_error(command, "%s: --arkit: '%s' is not an ARKit-52 channel",
                                   command, name);
        w[c] = value;
        s += len + (s[len] == ',' ? 1 : 0);
    }
    return CLI_EXIT_OK;
}

static int parse_look(const char *text, const char *command, float out[3])
{
    const char *s = text;
    for (int k = 0; k < 3; k++) {
        size_t n = strcspn(s, ",");
        if ((k < 2) != (s[n] == ',') || !cli_parse_float_span(s, n, &out[k]))
            return cli_usage_error(command, "%s: --look: '%s' is not X,Y,Z", command, text);
        s += n + 1;
    }
    return CLI_EXIT_OK;
}

static int choose_clip(const cli_character_args *a, const char *command, cli_character *c)
{
    const mn_character *ch = c->character;
    if (a->clip) {
        c->clip = mn_soma_clips_lookup(ch->clips, ch->shared_clips, a->clip);
        if (c->clip)
            return CLI_EXIT_OK;
        fprintf(stderr, "marionette: %s: %s has no clip ", command, a->file);
        cli_put_quoted(stderr, a->clip);
        fprintf(stderr, "; its clips:");
        const mn_soma_clips *sets[2] = {ch->clips, ch->shared_clips};
        for (int k = 0; k < 2; k++)
            for (uint32_t i = 0; sets[k] && i < sets[k]->clip_count; i++) {
                fputc(' ', stderr);
                cli_put_quoted(stderr, sets[k]->clips[i].name);
            }
        fputc('\n', stderr);
        return CLI_EXIT_USAGE;
    }
    if (a->has_time) {
        if (ch->clips && ch->clips->clip_count)
            c->clip = &ch->clips->clips[0];
        else if (ch->shared_clips && ch->shared_clips->clip_count)
            c->clip = &ch->shared_clips->clips[0];
    }
    return CLI_EXIT_OK;
}

int cli_character_open(const cli_character_args *a, const char *command, cli_character *c)
{
    memset(c, 0, sizeof *c);
    c->file = a->file;
    int rc = CLI_EXIT_OK;
    if (a->arkit && (rc = parse_arkit(a->arkit, command, c->arkit)) != CLI_EXIT_OK)
        return rc;
    c->has_arkit = a->arkit != NULL;
    if (a->look && (rc = parse_look(a->look, command, c->look_at)) != CLI_EXIT_OK)
        return rc;
    c->look = a->look != NULL;
    char dir[4096];
    const char *name = NULL;
    mn_cli_character_split(a->file, dir, sizeof dir, &name);
    mn_error err;
    memset(&err, 0, sizeof err);
    mn_character_load_options lo = {.resolver.root = cli_allow_outside};
    if (mn_character_load(dir, name, &lo, &c->character, &err) != MN_OK) {
        cli_report_error(a->file, &err);
        return CLI_EXIT_FAILED;
    }
    for (uint32_t i = 0; !a->quiet && i < c->character->warning_count; i++)
        fprintf(stderr, "marionette: warning: %s: %s\n", a->file,
                c->character->warnings[i].message);
    if ((rc = choose_clip(a, command, c)) != CLI_EXIT_OK)
        return rc;
    mn_character_runtime_options ro = {.threads = a->threads};
    if (mn_character_runtime_create(c->character, &ro, &c->runtime, &err) != MN_OK) {
        cli_report_error(a->file, &err);
        return CLI_EXIT_FAILED;
    }
    if (c->has_arkit && (mn_character_runtime_skipped(c->runtime) & MN_CHARACTER_RUN_FACE) &&
        !a->quiet)
        fprintf(stderr, "marionette: warning: %s: --arkit: the package has no face map "
                        "(face.arkit); the face stays at rest\n", a->file);
    return CLI_EXIT_OK;
}

int cli_character_pose(cli_character *c, float t)
{
    mn_error err;
    memset(&err, 0, sizeof err);
    if (c->clip) {
        mn_play_options po = {.once = !c->clip->loop, .at = t};
        if (mn_character_runtime_play(c->runtime, c->clip->name, &po, &err) != MN_OK) {
            cli_report_error(c->file, &err);
            return CLI_EXIT_FAILED;
        }
    }
    mn_character_frame f = {.arkit = c->has_arkit ? c->arkit : NULL,
                            .arkit_count = c->has_arkit ? MN_ARKIT_CHANNEL_COUNT : 0,
                            .look = c->look,
                            .look_at = {c->look_at[0], c->look_at[1], c->look_at[2]}};
    if (mn_character_runtime_update(c->runtime, &f, &err) != MN_OK) {
        cli_report_error(c->file, &err);
        return CLI_EXIT_FAILED;
    }
    return CLI_EXIT_OK;
}

float cli_character_duration(const cli_character *c)
{
    return c->clip ? c->clip->duration : 0.0f;
}

void cli_character_close(cli_character *c)
{
    mn_character_runtime_free(c->runtime);
    mn_character_free(c->character);
    memset(c, 0, sizeof *c);
}

/* ---- sample --------------------------------------------------------------------------- */

typedef struct sample_args {
    cli_character_args play;
    float time;
    uint32_t samples;
    bool json;
} sample_args;

static const char sample_help[] =
    "usage: marionette sample character.json [--clip NAME] [--time T] [--arkit LIST]\n"
    "                         [--look X,Y,Z] [--samples N] [--json]\n"
    "\n"
    "Plays one frame of a character package (body, correctives, head, face, splats,\n"
    "mouth) and prints the joints' worlds, the corrective weights and angles, and N\n"
    "of the head's vertices and N splats, evenly spaced (default 32), plus the mouth\n"
    "list's splats.  --arkit \"jawOpen=0.8\" drives the face through the package's\n"
    "face map; --look turns the eyes toward a point (metres, the character's frame).\n";

#define SAMPLE_OPTIONS 7

typedef struct sample_tables {
    cli_option options[SAMPLE_OPTIONS];
    cli_positional file;
} sample_tables;

static cli_spec sample_spec(sample_args *a, sample_tables *t)
{
    memset(a, 0, sizeof *a);
    a->samples = 32;
    const cli_option options[SAMPLE_OPTIONS] = {
        {.name = "--json", .kind = CLI_FLAG, .dest = &a->json},
        {.name = "--clip", .kind = CLI_STRING, .dest = &a->play.clip},
        {.name = "--time", .kind = CLI_FLOAT, .dest = &a->time, .help = "a number of seconds",
         .given = &a->play.has_time},
        {.name = "--arkit", .kind = CLI_STRING, .dest = &a->play.arkit},
        {.name = "--look", .kind = CLI_STRING, .dest = &a->play.look},
        {.name = "--samples", .kind = CLI_UINT, .dest = &a->samples, .min = 0, .max = 100000},
        {.name = "--threads", .kind = CLI_UINT, .dest = &a->play.threads, .min = 1, .max = 64},
    };
    memcpy(t->options, options, sizeof options);
    t->file = (cli_positional){"FILE", &a->play.file, "which file?"};
    return (cli_spec){.reads_model = true, .command = cli_find_command("sample"),
                      .help = sample_help, .options_of = "a character package",
                      .options = t->options, .option_count = SAMPLE_OPTIONS,
                      .positionals = &t->file, .positional_count = 1};
}

int mn_cli_character_sample_values(const char *option)
{
    sample_args a;
    sample_tables t;
    cli_spec spec = sample_spec(&a, &t);
    return cli_option_values(&spec, option);
}

/* Index k of `samples` spread evenly over [0, n). */
static uint32_t spread(uint32_t k, uint32_t samples, uint32_t n)
{
    return (uint32_t)(((uint64_t)k * n) / samples);
}

static void put_splat(const mn_character_views *v, uint32_t i)
{
    printf("{\"index\":%u,\"centre\":", i);
    cli_put_json_floats(stdout, v->splat_centres + 3 * (size_t)i, 3);
    printf(",\"rotation\":");
    cli_put_json_floats(stdout, v->splat_rotations + 4 * (size_t)i, 4);
    printf(",\"opacity\":");
    cli_put_json_number(stdout, v->splat_opacities[i]);
    putchar('}');
}

static void print_json(const sample_args *a, const cli_character *c)
{
    const mn_character *ch = c->character;
    const mn_character_views *v = mn_character_runtime_views(c->runtime);
    const mn_soma_skeleton *sk = ch->skeleton;
    printf("{\"format\":\"marionette-character-sample/1\",\"source\":");
    cli_put_quoted(stdout, a->play.file);
    printf(",\"clip\":");
    if (c->clip)
        cli_put_quoted(stdout, c->clip->name);
    else
        printf("null");
    printf(",\"time\":");
    if (c->clip)
        cli_put_json_number(stdout, mn_mixer_time(mn_character_runtime_mixer(c->runtime)));
    else
        printf("null");
    static const char *const parts[5] = {"head", "face", "corrective", "mouth", "splats"};
    printf(",\"skipped\":[");
    uint32_t skipped = mn_character_runtime_skipped(c->runtime);
    for (int k = 0, n = 0; k < 5; k++)
        if (skipped & (1u << k))
            printf("%s\"%s\"", n++ ? "," : "", parts[k]);
    printf("],\"joints\":[");
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        printf("%s{\"index\":%u,\"name\":", j ? "," : "", j);
        cli_put_quoted(stdout, sk->names[j]);
        printf(",\"parent\":%d}", sk->parents[j]);
    }
    printf("],\"world_matrices\":[");
    for (uint32_t j = 0; j < v->joint_count; j++) {
        if (j)
            putchar(',');
        cli_put_json_floats(stdout, v->joint_worlds + 16 * (size_t)j, 16);
    }
    printf("],\"corrective\":{\"weights\":");
    cli_put_json_floats(stdout, v->corrective_weights, v->corrective_slots);
    printf(",\"angles\":");
    cli_put_json_floats(stdout, v->corrective_angles, v->corrective_slots);
    printf("},\"head\":");
    if (v->head_vertices) {
        uint32_t n = a->samples < v->head_vertex_count ? a->samples : v->head_vertex_count;
        printf("{\"vertexCount\":%u,\"controls\":", v->head_vertex_count);
        cli_put_json_floats(stdout, v->head_controls, v->head_control_count);
        printf(",\"vertices\":[");
        for (uint32_t k = 0; k < n; k++) {
            uint32_t i = spread(k, n, v->head_vertex_count);
            printf("%s{\"index\":%u,\"position\":", k ? "," : "", i);
            cli_put_json_floats(stdout, v->head_vertices + 3 * (size_t)i, 3);
            printf(",\"normal\":");
            cli_put_json_floats(stdout, v->head_normals + 3 * (size_t)i, 3);
            putchar('}');
        }
        printf("]}");
    } else {
        printf("null");
    }
    printf(",\"splats\":");
    if (v->splat_centres) {
        uint32_t n = a->samples < v->splat_count ? a->samples : v->splat_count;
        printf("{\"count\":%u,\"samples\":[", v->splat_count);
        for (uint32_t k = 0; k < n; k++) {
            if (k)
                putchar(',');
            put_splat(v, spread(k, n, v->splat_count));
        }
        printf("],\"mouth\":[");
        const mn_mouth_hidden *m = skipped & MN_CHARACTER_RUN_MOUTH ? NULL : ch->mouth;
        for (uint32_t k = 0; m && k < m->count; k++) {
            if (k)
                putchar(',');
            put_splat(v, m->entries[k].row);
        }
        printf("]}");
    } else {
        printf("null");
    }
    printf("}\n");
}

static void print_text(const sample_args *a, const cli_character *c)
{
    const mn_character *ch = c->character;
    const mn_character_views *v = mn_character_runtime_views(c->runtime);
    char why[512];
    mn_character_runtime_describe_skipped(c->runtime, why, sizeof why);
    printf("%s: %s", a->play.file, c->clip ? c->clip->name : "rest");
    if (c->clip)
        printf(" at %.9g s", (double)mn_mixer_time(mn_character_runtime_mixer(c->runtime)));
    printf("%s%s\n", why[0] ? "; not run: " : "", why);
    for (uint32_t j = 0; j < v->joint_count; j++) {
        const float *w = v->joint_worlds + 16 * (size_t)j;
        printf("joint %u %s %.9g %.9g %.9g\n", j, ch->skeleton->names[j], (double)w[12],
               (double)w[13], (double)w[14]);
    }
    for (uint32_t s = 0; s < v->corrective_slots; s++)
        printf("corrective %u weight %.9g angle %.9g\n", s, (double)v->corrective_weights[s],
               (double)v->corrective_angles[s]);
    uint32_t n = a->samples < v->head_vertex_count ? a->samples : v->head_vertex_count;
    for (uint32_t k = 0; v->head_vertices && k < n; k++) {
        uint32_t i = spread(k, n, v->head_vertex_count);
        const float *p = v->head_vertices + 3 * (size_t)i;
        printf("head %u %.9g %.9g %.9g\n", i, (double)p[0], (double)p[1], (double)p[2]);
    }
    n = a->samples < v->splat_count ? a->samples : v->splat_count;
    for (uint32_t k = 0; v->splat_centres && k < n; k++) {
        uint32_t i = spread(k, n, v->splat_count);
        const float *p = v->splat_centres + 3 * (size_t)i;
        printf("splat %u %.9g %.9g %.9g opacity %.9g\n", i, (double)p[0], (double)p[1],
               (double)p[2], (double)v->splat_opacities[i]);
    }
}

int mn_cli_character_sample(int argc, char **argv)
{
    sample_args a;
    sample_tables t;
    cli_spec spec = sample_spec(&a, &t);
    int rc;
    if (!cli_parse_args(&spec, argc, argv, &rc))
        return rc;
    cli_character c;
    rc = cli_character_open(&a.play, "sample", &c);
    if (rc == CLI_EXIT_OK)
        rc = cli_character_pose(&c, a.time);
    if (rc == CLI_EXIT_OK) {
        if (a.json)
            print_json(&a, &c);
        else
            print_text(&a, &c);
    }
    cli_character_close(&c);
    return rc;
}
