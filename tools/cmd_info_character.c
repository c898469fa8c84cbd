/*
 * `marionette info character.json [--json]`: what a character package holds,
 * as the library loads it (mn_character_load, every file's size and SHA-256
 * checked): the descriptor's version, rig, units and colour space; the SOMA
 * skeleton's joints and twist helpers; the clips (package, then shared) with
 * durations and ground speeds, and the clips left out with their reasons;
 * the splats; the head pack; the correctives; the mouth list; each file with
 * its size and whether its hash was checked; and the optional parts dropped,
 * with why.  --json prints the same as one "marionette-character-info/1"
 * object.
 *
 * Which FILEs are character packages (mn_cli_is_character): a file named
 * character.json, or any .json file whose top-level "format" is
 * "aosrig-splat" (docs/formats.md, "character.json").  Any other .json stays a
 * voxel rig.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "json_tree.h"

#include <marionette/character/package.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool mn_cli_is_character(const char *path);
int mn_cli_character_info(const char *path, bool json);
void mn_cli_character_split(const char *path, char *dir, size_t dir_size, const char **name);

bool mn_cli_is_character(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (strcmp(base, "character.json") == 0)
        return true;
    if (!cli_has_extension(path, ".json"))
        return false;
    json_t *root = json_load_file(path, JSON_DISABLE_EOF_CHECK, NULL);
    const char *format = json_string_value(json_object_get(root, "format"));
    bool is = format && strcmp(format, "aosrig-splat") == 0;
    json_decref(root);
    return is;
}

/* "dir/character.json" → "dir" and "character.json"; a bare name's folder is ".". */
void mn_cli_character_split(const char *path, char *dir, size_t dir_size, const char **name)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, dir_size, ".");
        *name = path;
        return;
    }
    size_t n = (size_t)(slash - path);
    snprintf(dir, dir_size, "%.*s", (int)(n ? n : 1), n ? path : "/");
    *name = slash + 1;
}

/* ---- what the package holds, as rows both outputs print ------------------------------ */

/* One file: its part name, src, bytes read, and whether a stated sha256 was checked. */
typedef struct file_row {
    const char *name, *src;
    size_t bytes;
    bool hashed;
} file_row;

/* The files read: the descriptor's, then the parts held apart from them. */
static uint32_t file_rows(const mn_character *c, file_row *rows, uint32_t cap)
{
    const mn_character_descriptor *d = c->descriptor;
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->file_count && n < cap; i++)
        rows[n++] = (file_row){d->files[i].name, d->files[i].src, c->file_data[i].size,
                               d->files[i].sha256[0] != '\0'};
    if (c->shared_clips_json.data && n < cap)
        rows[n++] = (file_row){"sharedClips", d->shared_clips.src, c->shared_clips_json.size,
                               d->shared_clips.sha256[0] != '\0'};
    if (c->corrective_index_json.data && n < cap)
        rows[n++] = (file_row){"corrective", d->has_corrective ? d->corrective_index.src
                                                               : "corrective/index.json",
                               c->corrective_index_json.size,
                               d->has_corrective && d->corrective_index.sha256[0] != '\0'};
    if (c->mouth_hidden.data && n < cap)
        rows[n++] = (file_row){"mouth_hidden.bin", "mouth_hidden.bin", c->mouth_hidden.size,
                               false};
    return n;
}

static uint32_t twist_helpers(const mn_soma_skeleton *sk)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < sk->twist_count; i++)
        n += sk->twists[i].helper_count;
    return n;
}

/* ---- text ---------------------------------------------------------------------------- */

static void text_clips(const char *label, const mn_character *c, const mn_soma_clips *set,
                       bool shared)
{
    if (!set)
        return;
    printf("%s: %u kept, %u dropped\n", label, set->clip_count, set->dropped_count);
    for (uint32_t i = 0; i < set->clip_count; i++) {
        const mn_soma_clip *k = &set->clips[i];
        printf("  ");
        cli_put_quoted(stdout, k->name);
        printf("  %.4g s (%u %s at %g fps)%s", (double)k->duration, k->frames,
               cli_noun(k->frames, "frame", "frames"), (double)k->fps,
               k->loop ? " loop" : "");
        if (k->locomotion)
            printf(" locomotion %.4g m/s", (double)k->speed);
        if (shared && mn_soma_clips_shadowed(c->clips, set, i))
            printf(" (shadowed by the package's clip of that name)");
        printf("\n");
    }
    for (uint32_t i = 0; i < set->dropped_count; i++) {
        const mn_soma_clip_drop *dr = &set->dropped[i];
        printf("  dropped clips[%u] ", dr->index);
        cli_put_quoted(stdout, dr->name);
        printf(": %s (%s)\n", dr->message, mn_status_name(dr->code));
    }
}

static void print_text(const char *path, const mn_character *c)
{
    const mn_character_descriptor *d = c->descriptor;
    const mn_soma_skeleton *sk = c->skeleton;
    char dir[4096];
    const char *name;
    mn_cli_character_split(path, dir, sizeof dir, &name);
    printf("character package %s\n", dir);
    printf("format: aosrig-splat version %u, rig %s, units %s, colour space %s\n", d->version,
           d->rig, d->units, d->color_space);
    printf("bounds: centre (%g, %g, %g), radius %g\n", (double)d->bounds_center[0],
           (double)d->bounds_center[1], (double)d->bounds_center[2], (double)d->bounds_radius);
    printf("skeleton: %u %s (hips ", sk->joint_count, cli_noun(sk->joint_count, "joint", "joints"));
    cli_put_quoted(stdout, sk->names[sk->hips]);
    uint32_t helpers = twist_helpers(sk);
    printf("), %u twist %s with %u %s\n", sk->twist_count,
           cli_noun(sk->twist_count, "segment", "segments"), helpers,
           cli_noun(helpers, "helper", "helpers"));
    printf("splats: %u (%u SH rest %s each), %u joint %s a splat\n", c->splats.count,
           c->splats.rest_count, cli_noun(c->splats.rest_count, "coefficient", "coefficients"),
           c->bindings.influences, cli_noun(c->bindings.influences, "influence", "influences"));
    text_clips("clips", c, c->clips, false);
    text_clips("shared clips", c, c->shared_clips, true);
    if (c->head)
        printf("head: %u %s, %u %s%s\n", c->head->header.vertex_count,
               cli_noun(c->head->header.vertex_count, "vertex", "vertices"), c->head->face_count,
               cli_noun(c->head->face_count, "face", "faces"),
               c->face_map ? ", fitted ARKit map" : "");
    else
        printf("head: none\n");
    if (c->corrective) {
        printf("correctives: %u (%u played)\n", c->corrective->correction_count,
               c->corrective->played_count);
        for (uint32_t i = 0; i < c->corrective->correction_count; i++) {
            const mn_correction *k = &c->corrective->corrections[i];
            printf("  ");
            cli_put_quoted(stdout, k->name);
            printf("  %u %s, %u %s, trained at %g degrees\n", k->points,
                   cli_noun(k->points, "point", "points"), k->drive_count,
                   cli_noun(k->drive_count, "drive", "drives"), (double)k->trained_deg);
        }
    } else {
        printf("correctives: none\n");
    }
    if (c->mouth)
        printf("mouth list: %u %s\n", c->mouth->count, cli_noun(c->mouth->count, "entry", "entries"));
    else
        printf("mouth list: none\n");
    file_row rows[64];
    uint32_t n = file_rows(c, rows, 64);
    printf("files: %u\n", n);
    for (uint32_t i = 0; i < n; i++) {
        printf("  %-20s %10zu %-5s  %s  ", rows[i].name, rows[i].bytes,
               cli_noun(rows[i].bytes, "byte", "bytes"),
               rows[i].hashed ? "sha256 verified" : "no sha256 stated");
        cli_put_quoted(stdout, rows[i].src);
        printf("\n");
    }
    printf("warnings: %u\n", c->warning_count);
    for (uint32_t i = 0; i < c->warning_count; i++) {
        const mn_character_warning *w = &c->warnings[i];
        /* The loader's messages begin with the part's name; say it only when one does not. */
        bool named = strncmp(w->message, w->name, strlen(w->name)) == 0;
        printf("  %s%s%s (%s)\n", named ? "" : w->name, named ? "" : ": ", w->message,
               mn_status_name(w->code));
    }
}

/* ---- JSON ------------------------------------------------------------------------------ */

static json_t *jreal(float v)
{
    return json_real((double)v);
}

static json_t *json_clips(const mn_character *c, const mn_soma_clips *set, bool shared)
{
    json_t *o = json_object(), *kept = json_array(), *dropped = json_array();
    for (uint32_t i = 0; set && i < set->clip_count; i++) {
        const mn_soma_clip *k = &set->clips[i];
        json_t *e = json_object();
        e = cli_jput(e, "name", json_string(k->name));
        e = cli_jput(e, "duration", jreal(k->duration));
        e = cli_jput(e, "fps", jreal(k->fps));
        e = cli_jput(e, "frames", json_integer(k->frames));
        e = cli_jput(e, "loop", json_boolean(k->loop));
        e = cli_jput(e, "locomotion", json_boolean(k->locomotion));
        e = cli_jput(e, "speed", jreal(k->speed));
        e = cli_jput(e, "shadowed",
                     json_boolean(shared && mn_soma_clips_shadowed(c->clips, set, i)));
        kept = cli_jpush(kept, e);
    }
    for (uint32_t i = 0; set && i < set->dropped_count; i++) {
        const mn_soma_clip_drop *dr = &set->dropped[i];
        json_t *e = json_object();
        e = cli_jput(e, "index", json_integer(dr->index));
        e = cli_jput(e, "name", json_string(dr->name));
        e = cli_jput(e, "code", json_string(mn_status_name(dr->code)));
        e = cli_jput(e, "reason", json_string(dr->message));
        dropped = cli_jpush(dropped, e);
    }
    o = cli_jput(o, "kept", kept);
    return cli_jput(o, "dropped", dropped);
}

static json_t *json_parts(const mn_character *c)
{
    json_t *o = json_object();
    json_t *head = json_null(), *corr = json_null(), *mouth = json_null();
    if (c->head) {
        head = json_object();
        head = cli_jput(head, "vertices", json_integer(c->head->header.vertex_count));
        head = cli_jput(head, "faces", json_integer(c->head->face_count));
        head = cli_jput(head, "fitted_arkit_map", json_boolean(c->face_map != NULL));
    }
    if (c->corrective) {
        corr = json_array();
        for (uint32_t i = 0; i < c->corrective->correction_count; i++) {
            const mn_correction *k = &c->corrective->corrections[i];
            json_t *e = json_object();
            e = cli_jput(e, "name", json_string(k->name));
            e = cli_jput(e, "points", json_integer(k->points));
            e = cli_jput(e, "drives", json_integer(k->drive_count));
            e = cli_jput(e, "played", json_boolean(i < c->corrective->played_count));
            corr = cli_jpush(corr, e);
        }
    }
    if (c->mouth) {
        mouth = json_object();
        mouth = cli_jput(mouth, "entries", json_integer(c->mouth->count));
    }
    o = cli_jput(o, "head", head);
    o = cli_jput(o, "correctives", corr);
    return cli_jput(o, "mouth", mouth);
}

static json_t *json_files(const mn_character *c)
{
    file_row rows[64];
    uint32_t n = file_rows(c, rows, 64);
    json_t *a = json_array();
    for (uint32_t i = 0; i < n; i++) {
        json_t *e = json_object();
        e = cli_jput(e, "name", json_string(rows[i].name));
        e = cli_jput(e, "src", json_string(rows[i].src));
        e = cli_jput(e, "bytes", json_integer((json_int_t)rows[i].bytes));
        e = cli_jput(e, "sha256_verified", json_boolean(rows[i].hashed));
        a = cli_jpush(a, e);
    }
    return a;
}

static json_t *json_warnings(const mn_character *c)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < c->warning_count; i++) {
        json_t *e = json_object();
        e = cli_jput(e, "part", json_string(c->warnings[i].name));
        e = cli_jput(e, "code", json_string(mn_status_name(c->warnings[i].code)));
        e = cli_jput(e, "message", json_string(c->warnings[i].message));
        a = cli_jpush(a, e);
    }
    return a;
}

static bool print_json(const char *path, const mn_character *c)
{
    const mn_character_descriptor *d = c->descriptor;
    const mn_soma_skeleton *sk = c->skeleton;
    json_t *root = json_object();
    root = cli_jput(root, "format", json_string("marionette-character-info/1"));
    root = cli_jput(root, "file", json_string(path));
    root = cli_jput(root, "version", json_integer(d->version));
    root = cli_jput(root, "rig", json_string(d->rig));
    root = cli_jput(root, "units", json_string(d->units));
    root = cli_jput(root, "color_space", json_string(d->color_space));
    json_t *skel = json_object();
    skel = cli_jput(skel, "joints", json_integer(sk->joint_count));
    skel = cli_jput(skel, "hips", json_string(sk->names[sk->hips]));
    skel = cli_jput(skel, "twist_segments", json_integer(sk->twist_count));
    skel = cli_jput(skel, "twist_helpers", json_integer(twist_helpers(sk)));
    root = cli_jput(root, "skeleton", skel);
    json_t *splats = json_object();
    splats = cli_jput(splats, "count", json_integer(c->splats.count));
    splats = cli_jput(splats, "sh_rest", json_integer(c->splats.rest_count));
    splats = cli_jput(splats, "influences", json_integer(c->bindings.influences));
    root = cli_jput(root, "splats", splats);
    root = cli_jput(root, "clips", json_clips(c, c->clips, false));
    root = cli_jput(root, "shared_clips", c->shared_clips ? json_clips(c, c->shared_clips, true)
                                                          : json_null());
    root = cli_jput(root, "parts", json_parts(c));
    root = cli_jput(root, "files", json_files(c));
    root = cli_jput(root, "warnings", json_warnings(c));
    if (!root)
        return false;
    int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(7));
    json_decref(root);
    fputc('\n', stdout);
    return rc == 0;
}

int mn_cli_character_info(const char *path, bool json)
{
    char dir[4096];
    const char *name;
    mn_cli_character_split(path, dir, sizeof dir, &name);
    mn_character *c = NULL;
    mn_error err;
    memset(&err, 0, sizeof err);
    if (mn_character_load(dir, name, &(mn_character_load_options){.resolver.root = cli_allow_outside}, &c, &err) != MN_OK) {
        cli_report_error(path, &err);
        return CLI_EXIT_FAILED;
    }
    bool ok = true;
    if (json)
        ok = print_json(path, c);
    else
        print_text(path, c);
    mn_character_free(c);
    if (!ok) {
        fprintf(stderr, "marionette: %s: out of memory while describing the package\n", path);
        return CLI_EXIT_FAILED;
    }
    return CLI_EXIT_OK;
}
