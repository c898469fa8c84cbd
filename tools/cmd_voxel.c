/*
 * The rig.json side of `marionette info` and `marionette sample`: when the
 * FILE given to either is a voxel rig (a ".json" path), cmd_info.c and
 * cmd_sample.c hand it here.
 *
 *   marionette info rig.json [--json]
 *       parts (parent, pivot, joints), joints (part, type, axis, drive,
 *       range, mount), animations (loop, auto-play, duration, tracks) and the
 *       meshes beside the rig (meshes/<part>.glb, or mesh.glb for the skinned
 *       and static kinds) with their vertex and triangle counts.
 *
 *   marionette sample rig.json [--anim NAME] [--time-ms T] [--set JOINT=VALUE]...
 *                              [--rest] [--json]
 *       poses the rig with mn_voxel_pose — exactly the animation named (or
 *       none; auto-play is a controller's business) at T, over the caller
 *       values set — and prints every joint's final value and every part's
 *       world matrix, in rig.json order.  --json prints one object:
 *         {"format":"marionette-voxel-sample/1","anim":NAME|null,"time_ms":T,
 *          "joints":{NAME:VALUE,...},"parts":[{"name":NAME,"world":[16 numbers]},...]}
 *       with numbers as %.9g (enough for a float to survive the round trip)
 *       and world matrices column-major.
 *
 * Exit status: 0 done; 1 the rig (or, for sample, posing) fails, the error on
 * stderr; 2 a wrong command line, including an unknown --anim or --set joint.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <marionette/voxel/rig.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SAMPLE_FORMAT "marionette-voxel-sample/1"
#define INFO_FORMAT "marionette-voxel-info/1"
#define SAMPLE_ARGS "RIG.json [--anim NAME] [--time-ms T] [--set JOINT=VALUE]... [--rest] [--json]"

/* ---- shared --------------------------------------------------------------------------- */

static mn_voxel_rig *read_rig(const char *path)
{
    mn_voxel_rig *rig = NULL;
    mn_error err;
    memset(&err, 0, sizeof err);
    if (mn_voxel_rig_read_file(path, NULL, &rig, &err) != MN_OK) {
        cli_report_error(path, &err);
        return NULL;
    }
    return rig;
}

/* A JSON string literal. */
static void put_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

/* ---- info: the meshes beside the rig --------------------------------------------------- */

typedef struct mesh_report {
    const char *part;          /* NULL for the model's one mesh.glb */
    char file[512];            /* as printed: relative to the rig's folder */
    const char *status;        /* "ok", "socket", "missing", "error" */
    uint32_t vertices, triangles, bones, bones_matched;
    char error[320];           /* the reader's message (up to 255) and the status name */
} mesh_report;

/* The folder of a file path, as a prefix ("" or "dir/"). */
static void folder_of(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) + 1 : 0;
    if (n >= size)
        n = size - 1;
    memcpy(out, path, n);
    out[n] = '\0';
}

static void inspect_mesh(const mn_voxel_rig *rig, const char *folder, bool skinned,
                         mesh_report *m)
{
    char full[1024];
    snprintf(full, sizeof full, "%s%s", folder, m->file);
    struct stat st;   /* stat() opens nothing: a FIFO cannot block it */
    if (stat(full, &st) != 0 && errno == ENOENT) {
        m->status = "missing";
        snprintf(m->error, sizeof m->error, "%s", strerror(errno));
        return;
    }
    mn_part_mesh *mesh = NULL;
    mn_error err;
    memset(&err, 0, sizeof err);
    /* The rig names the file: it is read only inside the rig's folder (or --allow-outside). */
    if (mn_part_mesh_read_in(folder[0] ? folder : ".", m->file, cli_allow_outside, skinned, NULL, &mesh,
                             &err) != MN_OK) {
        m->status = "error";
        snprintf(m->error, sizeof m->error, "%s (%s)", err.message, mn_status_name(err.code));
        return;
    }
    m->status = mesh->vertex_count == 0 ? "socket" : "ok";
    m->vertices = mesh->vertex_count;
    m->triangles = mesh->index_count / 3;
    m->bones = mesh->bone_count;
    for (uint32_t b = 0; b < mesh->bone_count; b++)
        m->bones_matched += mn_voxel_rig_find_part(rig, mesh->bone_names[b]) != MN_NONE;
    mn_part_mesh_free(mesh);
}

/* One report per mesh file the rig's kind calls for; NULL when out of memory. */
static mesh_report *inspect_meshes(const mn_voxel_rig *rig, const char *path, uint32_t *count)
{
    char folder[512];
    folder_of(path, folder, sizeof folder);
    bool one_mesh = mn_voxel_kind_is_skinned(rig->kind) || rig->kind == MN_VOXEL_STATIC;
    *count = one_mesh ? 1 : rig->part_count;
    mesh_report *reports = calloc(*count ? *count : 1, sizeof *reports);
    if (!reports)
        return NULL;
    for (uint32_t i = 0; i < *count; i++) {
        mesh_report *m = &reports[i];
        m->part = one_mesh ? NULL : rig->parts[i].name;
        if (one_mesh)
            snprintf(m->file, sizeof m->file, "mesh.glb");
        else
            snprintf(m->file, sizeof m->file, "meshes/%s.glb", m->part);
        inspect_mesh(rig, folder, mn_voxel_kind_is_skinned(rig->kind), m);
    }
    return reports;
}

/* ---- info: text ------------------------------------------------------------------------ */

static void text_vec3(FILE *out, const float v[3])
{
    fprintf(out, "[%g, %g, %g]", (double)v[0], (double)v[1], (double)v[2]);
}

static void print_info_text(FILE *out, const char *path, const mn_voxel_rig *rig,
                            const mesh_report *meshes, uint32_t mesh_count)
{
    fprintf(out, "%s: voxel rig, kind %s, voxel_size %g\n", path, mn_voxel_kind_name(rig->kind),
            (double)rig->voxel_size);

    fprintf(out, "\nparts (%u):\n", rig->part_count);
    for (uint32_t p = 0; p < rig->part_count; p++) {
        const mn_voxel_part *part = &rig->parts[p];
        char parent[300];
        if (part->parent != MN_NONE)
            snprintf(parent, sizeof parent, "parent %s", rig->parts[part->parent].name);
        else
            snprintf(parent, sizeof parent, "root");
        fprintf(out, "  %-16s %-22s pivot ", part->name, parent);
        text_vec3(out, part->pivot);
        if (part->joint_count) {
            fprintf(out, "  joints");
            for (uint32_t k = 0; k < part->joint_count; k++)
                fprintf(out, "%s %s", k ? "," : "", rig->joints[part->joints[k]].name);
        }
        fprintf(out, "\n");
    }

    fprintf(out, "\njoints (%u):\n", rig->joint_count);
    for (uint32_t j = 0; j < rig->joint_count; j++) {
        const mn_voxel_joint *jt = &rig->joints[j];
        fprintf(out, "  %-16s part %-12s %-11s %-6s range [%g, %g] rest %g  axis ", jt->name,
                rig->parts[jt->part].name, mn_voxel_joint_type_name(jt->type),
                mn_voxel_drive_name(jt->drive), (double)jt->min, (double)jt->max, (double)jt->rest);
        text_vec3(out, jt->axis);
        if (jt->has_mount) {
            fprintf(out, "  mount orient ");
            text_vec3(out, jt->orient);
            fprintf(out, " offset ");
            text_vec3(out, jt->offset);
            if (jt->min == jt->max)
                fprintf(out, " (static attachment)");
        }
        fprintf(out, "\n");
    }

    fprintf(out, "\nanimations (%u):\n", rig->animation_count);
    for (uint32_t a = 0; a < rig->animation_count; a++) {
        const mn_voxel_animation *an = &rig->animations[a];
        fprintf(out, "  %-16s %s%s %g ms, %u %s:", an->name, an->loop ? "loop" : "one-shot",
                an->auto_play ? ", auto-play," : ",", an->duration_ms, an->track_count,
                cli_noun(an->track_count, "track", "tracks"));
        for (uint32_t k = 0; k < an->track_count; k++)
            fprintf(out, "%s %s (%u %s)", k ? "," : "", rig->joints[an->tracks[k].joint].name,
                    an->tracks[k].curve.key_count,
                    cli_noun(an->tracks[k].curve.key_count, "key", "keys"));
        fprintf(out, "\n");
    }

    fprintf(out, "\nmeshes (%u):\n", mesh_count);
    for (uint32_t i = 0; i < mesh_count; i++) {
        const mesh_report *m = &meshes[i];
        fprintf(out, "  %-28s ", m->file);
        if (strcmp(m->status, "ok") == 0 || strcmp(m->status, "socket") == 0) {
            if (m->vertices == 0)
                fprintf(out, "socket (no geometry)");
            else
                fprintf(out, "%u %s, %u %s", m->vertices, cli_noun(m->vertices, "vertex", "vertices"),
                        m->triangles, cli_noun(m->triangles, "triangle", "triangles"));
            if (m->bones)
                fprintf(out, ", %u %s (%u matched to parts)", m->bones,
                        cli_noun(m->bones, "bone", "bones"), m->bones_matched);
        } else {
            fprintf(out, "%s: %s", m->status, m->error);
        }
        fprintf(out, "\n");
    }
}

/* ---- info: JSON -------------------------------------------------------------------------- */

static void print_info_json(FILE *out, const char *path, const mn_voxel_rig *rig,
                            const mesh_report *meshes, uint32_t mesh_count)
{
    fprintf(out, "{\"format\":\"" INFO_FORMAT "\",\"file\":");
    put_json_string(out, path);
    fprintf(out, ",\"kind\":\"%s\",\"voxel_size\":", mn_voxel_kind_name(rig->kind));
    cli_put_json_number(out, rig->voxel_size);

    fprintf(out, ",\"parts\":[");
    for (uint32_t p = 0; p < rig->part_count; p++) {
        const mn_voxel_part *part = &rig->parts[p];
        fprintf(out, "%s{\"name\":", p ? "," : "");
        put_json_string(out, part->name);
        fprintf(out, ",\"parent\":");
        if (part->parent == MN_NONE)
            fputs("null", out);
        else
            put_json_string(out, rig->parts[part->parent].name);
        fprintf(out, ",\"pivot\":");
        cli_put_json_floats(out, part->pivot, 3);
        fprintf(out, ",\"joints\":[");
        for (uint32_t k = 0; k < part->joint_count; k++) {
            if (k)
                fputc(',', out);
            put_json_string(out, rig->joints[part->joints[k]].name);
        }
        fprintf(out, "]}");
    }

    fprintf(out, "],\"joints\":[");
    for (uint32_t j = 0; j < rig->joint_count; j++) {
        const mn_voxel_joint *jt = &rig->joints[j];
        fprintf(out, "%s{\"name\":", j ? "," : "");
        put_json_string(out, jt->name);
        fprintf(out, ",\"part\":");
        put_json_string(out, rig->parts[jt->part].name);
        fprintf(out, ",\"type\":\"%s\",\"drive\":\"%s\",\"axis\":",
                mn_voxel_joint_type_name(jt->type), mn_voxel_drive_name(jt->drive));
        cli_put_json_floats(out, jt->axis, 3);
        fprintf(out, ",\"min\":");
        cli_put_json_number(out, jt->min);
        fprintf(out, ",\"max\":");
        cli_put_json_number(out, jt->max);
        fprintf(out, ",\"rest\":");
        cli_put_json_number(out, jt->rest);
        fprintf(out, ",\"mount\":");
        if (jt->has_mount) {
            fprintf(out, "{\"orient\":");
            cli_put_json_floats(out, jt->orient, 3);
            fprintf(out, ",\"offset\":");
            cli_put_json_floats(out, jt->offset, 3);
            fprintf(out, "}");
        } else {
            fputs("null", out);
        }
        fprintf(out, "}");
    }

    fprintf(out, "],\"animations\":[");
    for (uint32_t a = 0; a < rig->animation_count; a++) {
        const mn_voxel_animation *an = &rig->animations[a];
        fprintf(out, "%s{\"name\":", a ? "," : "");
        put_json_string(out, an->name);
        fprintf(out, ",\"loop\":%s,\"auto_play\":%s,\"duration_ms\":", an->loop ? "true" : "false",
                an->auto_play ? "true" : "false");
        cli_put_json_number(out, an->duration_ms);
        fprintf(out, ",\"tracks\":[");
        for (uint32_t k = 0; k < an->track_count; k++) {
            fprintf(out, "%s{\"joint\":", k ? "," : "");
            put_json_string(out, rig->joints[an->tracks[k].joint].name);
            fprintf(out, ",\"keys\":%u}", an->tracks[k].curve.key_count);
        }
        fprintf(out, "]}");
    }

    fprintf(out, "],\"meshes\":[");
    for (uint32_t i = 0; i < mesh_count; i++) {
        const mesh_report *m = &meshes[i];
        fprintf(out, "%s{\"part\":", i ? "," : "");
        if (m->part)
            put_json_string(out, m->part);
        else
            fputs("null", out);
        fprintf(out, ",\"file\":");
        put_json_string(out, m->file);
        fprintf(out, ",\"status\":\"%s\"", m->status);
        if (strcmp(m->status, "ok") == 0 || strcmp(m->status, "socket") == 0) {
            fprintf(out, ",\"vertices\":%u,\"triangles\":%u,\"bones\":%u,\"bones_matched\":%u",
                    m->vertices, m->triangles, m->bones, m->bones_matched);
        } else {
            fprintf(out, ",\"error\":");
            put_json_string(out, m->error);
        }
        fprintf(out, "}");
    }
    fprintf(out, "]}\n");
}

int mn_cli_voxel_info(const char *path, bool json)
{
    mn_voxel_rig *rig = read_rig(path);
    if (!rig)
        return CLI_EXIT_FAILED;
    uint32_t mesh_count = 0;
    mesh_report *meshes = inspect_meshes(rig, path, &mesh_count);
    if (!meshes) {
        fprintf(stderr, "marionette: %s: out of memory while describing the rig\n", path);
        mn_voxel_rig_free(rig);
        return CLI_EXIT_FAILED;
    }
    if (json)
        print_info_json(stdout, path, rig, meshes, mesh_count);
    else
        print_info_text(stdout, path, rig, meshes, mesh_count);
    free(meshes);
    mn_voxel_rig_free(rig);
    return CLI_EXIT_OK;
}

/* ---- sample --------------------------------------------------------------------------------- */

typedef struct sample_args {
    const char *file;
    const char *anim;
    double time_ms;
    bool rest, json;
    cli_list sets;             /* "JOINT=VALUE" each (pointing into argv) */
} sample_args;

/* A rig's options are its own, so its usage line is too (and its --help). */
static const cli_command sample_command = {"sample", SAMPLE_ARGS, NULL, NULL, NULL};

#define SAMPLE_OPTIONS 5

/* The tables a rig's spec points into. */
typedef struct sample_tables {
    cli_option options[SAMPLE_OPTIONS];
    cli_positional file;
} sample_tables;

/* The spec storing into a; the --set items go to storage (cap of them at most). */
static cli_spec sample_spec(sample_args *a, const char **storage, uint32_t cap, sample_tables *t)
{
    memset(a, 0, sizeof *a);
    a->sets = (cli_list){storage, 0, cap};
    const cli_option options[SAMPLE_OPTIONS] = {
        {.name = "--json", .kind = CLI_FLAG, .dest = &a->json},
        {.name = "--rest", .kind = CLI_FLAG, .dest = &a->rest},
        {.name = "--anim", .kind = CLI_STRING, .dest = &a->anim},
        {.name = "--time-ms", .kind = CLI_DOUBLE, .dest = &a->time_ms},
        {.name = "--set", .kind = CLI_LIST, .dest = &a->sets},
    };
    memcpy(t->options, options, sizeof options);
    t->file = (cli_positional){"FILE", &a->file, "which rig.json?"};
    return (cli_spec){.reads_model = true, .command = &sample_command, .options = t->options,
                      .option_count = SAMPLE_OPTIONS, .positionals = &t->file,
                      .positional_count = 1};
}

int mn_cli_voxel_sample_values(const char *option)
{
    sample_args a;
    sample_tables t;
    cli_spec spec = sample_spec(&a, NULL, 0, &t);
    return cli_option_values(&spec, option);
}

/* The options into a; the --set items go to storage (argc of them at most). */
static bool parse_sample_args(int argc, char **argv, sample_args *a, const char **storage,
                              int *status)
{
    sample_tables t;
    cli_spec spec = sample_spec(a, storage, (uint32_t)argc, &t);
    if (!cli_parse_args(&spec, argc, argv, status))
        return false;
    if (a->rest && (a->anim || a->sets.count)) {
        *status = cli_command_error(&sample_command, "sample: --rest poses the rest pose: it "
                                                     "takes no --anim or --set");
        return false;
    }
    return true;
}

/* After an unknown name, what the rig does have (on stderr). */
static void list_joints(const mn_voxel_rig *rig)
{
    fprintf(stderr, "the rig's joints:");
    for (uint32_t j = 0; j < rig->joint_count; j++)
        fprintf(stderr, " %s", rig->joints[j].name);
    fprintf(stderr, rig->joint_count ? "\n" : " none\n");
}

static void list_animations(const mn_voxel_rig *rig)
{
    fprintf(stderr, "the rig's animations:");
    for (uint32_t a = 0; a < rig->animation_count; a++)
        fprintf(stderr, " %s", rig->animations[a].name);
    fprintf(stderr, rig->animation_count ? "\n" : " none\n");
}

/* Caller values from the --set arguments; CLI_EXIT_USAGE for a bad one. */
static int apply_sets(const mn_voxel_rig *rig, const sample_args *a, float *caller)
{
    for (uint32_t i = 0; i < a->sets.count; i++) {
        const char *set = a->sets.items[i];
        const char *eq = strchr(set, '=');
        if (!eq || eq == set)
            return cli_command_error(&sample_command, "sample: --set: '%s' is not JOINT=VALUE",
                                     set);
        char name[256];
        size_t len = (size_t)(eq - set);
        if (len >= sizeof name)
            return cli_command_error(&sample_command,
                                     "sample: --set: '%s': the joint name is too long", set);
        memcpy(name, set, len);
        name[len] = '\0';
        uint32_t j = mn_voxel_rig_find_joint(rig, name);
        if (j == MN_NONE) {
            int rc = cli_command_error(&sample_command, "sample: --set: the rig has no joint '%s'",
                                       name);
            list_joints(rig);
            return rc;
        }
        double v;
        if (!cli_parse_double(eq + 1, &v))
            return cli_command_error(&sample_command,
                                     "sample: --set: '%s': the value is not a finite number", set);
        caller[j] = (float)v;
    }
    return CLI_EXIT_OK;
}

/* Where a joint's value came from, for the table. */
static const char *value_source(const mn_voxel_rig *rig, uint32_t anim, const float *caller,
                                uint32_t j)
{
    if (anim != MN_NONE)
        for (uint32_t k = 0; k < rig->animations[anim].track_count; k++)
            if (rig->animations[anim].tracks[k].joint == j)
                return "animation";
    return isnan(caller[j]) ? "rest" : "caller";
}

static void print_sample_json(FILE *out, const mn_voxel_rig *rig, const sample_args *a,
                              const float *values, const float *worlds)
{
    fprintf(out, "{\"format\":\"" SAMPLE_FORMAT "\",\"anim\":");
    if (a->anim)
        put_json_string(out, a->anim);
    else
        fputs("null", out);
    fprintf(out, ",\"time_ms\":");
    cli_put_json_number(out, a->time_ms);
    fprintf(out, ",\"joints\":{");
    for (uint32_t j = 0; j < rig->joint_count; j++) {
        if (j)
            fputc(',', out);
        put_json_string(out, rig->joints[j].name);
        fputc(':', out);
        cli_put_json_number(out, values[j]);
    }
    fprintf(out, "},\"parts\":[");
    for (uint32_t p = 0; p < rig->part_count; p++) {
        fprintf(out, "%s{\"name\":", p ? "," : "");
        put_json_string(out, rig->parts[p].name);
        fprintf(out, ",\"world\":");
        cli_put_json_floats(out, &worlds[(size_t)p * 16], 16);
        fputc('}', out);
    }
    fprintf(out, "]}\n");
}

static void print_sample_text(FILE *out, const mn_voxel_rig *rig, const sample_args *a,
                              uint32_t anim, const float *caller, const float *values,
                              const float *worlds)
{
    fprintf(out, "%s: %s at %g ms\n\n", a->file, a->anim ? a->anim : "no animation", a->time_ms);
    fprintf(out, "%-20s %14s  %-25s %-7s %s\n", "joint", "value", "range", "drive", "from");
    for (uint32_t j = 0; j < rig->joint_count; j++) {
        const mn_voxel_joint *jt = &rig->joints[j];
        char range[64];
        snprintf(range, sizeof range, "[%g, %g]", (double)jt->min, (double)jt->max);
        const char *from = value_source(rig, anim, caller, j);
        fprintf(out, "%-20s %14.9g  %-25s %-7s %s", jt->name, (double)values[j], range,
                mn_voxel_drive_name(jt->drive), from);
        if (strcmp(from, "caller") == 0 && caller[j] != values[j])
            fprintf(out, " (%g, clamped)", (double)caller[j]);
        fprintf(out, "\n");
    }
    fprintf(out, "\npart world matrices (rows; translation last):\n");
    for (uint32_t p = 0; p < rig->part_count; p++) {
        const float *w = &worlds[(size_t)p * 16];
        fprintf(out, "%s\n", rig->parts[p].name);
        for (int r = 0; r < 3; r++)
            fprintf(out, "  [ %12.6f %12.6f %12.6f | %12.6f ]\n", (double)w[r], (double)w[4 + r],
                    (double)w[8 + r], (double)w[12 + r]);
    }
}

int mn_cli_voxel_sample(int argc, char **argv)
{
    const char **set_storage = calloc((size_t)(argc > 0 ? argc : 1), sizeof *set_storage);
    if (!set_storage) {
        fprintf(stderr, "marionette: sample: out of memory\n");
        return CLI_EXIT_FAILED;
    }
    sample_args a;
    int rc;
    if (!parse_sample_args(argc, argv, &a, set_storage, &rc)) {
        free(set_storage);
        return rc;
    }
    mn_voxel_rig *rig = read_rig(a.file);
    if (!rig) {
        free(set_storage);
        return CLI_EXIT_FAILED;
    }
    float *caller = malloc(((size_t)rig->joint_count * 2 + 1) * sizeof *caller);
    float *worlds = malloc(((size_t)rig->part_count * 16 + 1) * sizeof *worlds);
    float *values = caller ? caller + rig->joint_count : NULL;
    if (!caller || !worlds) {
        fprintf(stderr, "marionette: sample: out of memory\n");
        rc = CLI_EXIT_FAILED;
        goto done;
    }
    for (uint32_t j = 0; j < rig->joint_count; j++)
        caller[j] = NAN;
    uint32_t anim = MN_NONE;
    if (a.anim) {
        anim = mn_voxel_rig_find_animation(rig, a.anim);
        if (anim == MN_NONE) {
            rc = cli_command_error(&sample_command, "sample: --anim: the rig has no animation '%s'",
                                   a.anim);
            list_animations(rig);
            goto done;
        }
    }
    rc = apply_sets(rig, &a, caller);
    if (rc != CLI_EXIT_OK)
        goto done;
    mn_voxel_pose_input in = {.caller = caller, .animations = &anim,
                              .animation_count = anim != MN_NONE ? 1 : 0, .time_ms = a.time_ms};
    mn_status st = mn_voxel_pose(rig, &in, worlds, values);
    if (st != MN_OK) {
        fprintf(stderr, "marionette: %s: posing failed: %s (%s)\n", a.file, mn_status_message(st),
                mn_status_name(st));
        rc = CLI_EXIT_FAILED;
        goto done;
    }
    if (a.json)
        print_sample_json(stdout, rig, &a, values, worlds);
    else
        print_sample_text(stdout, rig, &a, anim, caller, values, worlds);
    rc = CLI_EXIT_OK;
done:
    free(caller);
    free(worlds);
    free(set_storage);
    mn_voxel_rig_free(rig);
    return rc;
}
