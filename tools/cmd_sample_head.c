/*
 * `marionette sample HEAD.aosrig [--arkit LIST (--table FILE | --fitted INFO BIN)]
 *                               [--controls LIST] [--joint NAME=x,y,z,w]... [--forward] [--json]`
 *
 * An expression head posed with the library, the way an application would
 * (mn_aosrig_read_file, mn_head_create, a control vector, mn_head_pose), and
 * its vertices printed: metres in the body's bind space, or with --forward
 * the head-local vertices in the pack's units, before seam and skinning.
 *
 * The control vector comes from --controls (control names, as
 * mn_head_ext_control_name prints them: "lower_face_002=0.5,gaze_yaw_L=0.2")
 * and/or --arkit (ARKit-52 channel weights, "jawOpen=0.8,eyeBlinkLeft=1")
 * mapped through a table the caller gives: a pack carries no ARKit map, so
 * --arkit without --table or --fitted is refused, as the library refuses it.
 * Controls named by --controls are set after the ARKit map has written the
 * vector, so they override it.
 *
 * JSON ("marionette-head-sample/1"): {"format", "file", "units", "stage"
 * ("pose" or "forward"), "vertexCount", "controls": [dim numbers],
 * "vertices": [[x, y, z], ...]}.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <marionette/head/aosrig.h>
#include <marionette/head/arkit.h>
#include <marionette/head/head.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Prototypes for cmd_sample.c's dispatch (not in cli.h: one command's private pair). */
bool mn_cli_is_aosrig(const char *path);
int mn_cli_head_sample(int argc, char **argv);
int mn_cli_head_sample_values(const char *option);

bool mn_cli_is_aosrig(const char *path)
{
    size_t n = strlen(path);
    return n > 7 && strcmp(path + n - 7, ".aosrig") == 0;
}

#define MAX_JOINT_ARGS 32

typedef struct head_args {
    const char *file;
    const char *arkit;        /* LIST, NULL when absent */
    const char *controls;     /* LIST, NULL when absent */
    const char *table;        /* --table FILE */
    const char *fitted[2];    /* --fitted INFO BIN */
    const char *joint_items[MAX_JOINT_ARGS];
    cli_list joints;          /* --joint NAME=x,y,z,w each, in joint_items */
    bool forward, json;
} head_args;

static const char head_help[] =
    "usage: marionette sample HEAD.aosrig [--arkit LIST (--table FILE | --fitted INFO BIN)]\n"
    "                         [--controls LIST] [--joint NAME=x,y,z,w]... [--forward] [--json]\n"
    "\n"
    "Poses an expression head and prints its vertices (metres, bind space; --forward:\n"
    "head-local, the pack's units).  --arkit \"jawOpen=0.8,eyeBlinkLeft=1\" maps ARKit-52\n"
    "weights through a JSON table (--table) or a face.arkit description and its table\n"
    "file (--fitted); --controls \"lower_face_002=0.5,gaze_yaw_L=0.2\" sets controls by\n"
    "name (after the ARKit map); --joint turns a joint on top of its rest (x y z w).\n";

#define HEAD_OPTIONS 7

/* The tables a head's spec points into. */
typedef struct head_tables {
    cli_option options[HEAD_OPTIONS];
    cli_positional file;
} head_tables;

static cli_spec head_spec(head_args *a, head_tables *t)
{
    memset(a, 0, sizeof *a);
    a->joints = (cli_list){a->joint_items, 0, MAX_JOINT_ARGS};
    const cli_option options[HEAD_OPTIONS] = {
        {.name = "--json", .kind = CLI_FLAG, .dest = &a->json},
        {.name = "--forward", .kind = CLI_FLAG, .dest = &a->forward},
        {.name = "--arkit", .kind = CLI_STRING, .dest = &a->arkit},
        {.name = "--controls", .kind = CLI_STRING, .dest = &a->controls},
        {.name = "--table", .kind = CLI_STRING, .dest = &a->table},
        {.name = "--joint", .kind = CLI_LIST, .dest = &a->joints},
        {.name = "--fitted", .kind = CLI_PAIR, .dest = a->fitted,
         .needs = "INFO.json and TABLE.bin"},
    };
    memcpy(t->options, options, sizeof options);
    t->file = (cli_positional){"FILE", &a->file, "which file?"};
    return (cli_spec){.reads_model = true, .command = cli_find_command("sample"),
                      .help = head_help, .options_of = "a .aosrig head", .options = t->options,
                      .option_count = HEAD_OPTIONS, .positionals = &t->file,
                      .positional_count = 1};
}

int mn_cli_head_sample_values(const char *option)
{
    head_args a;
    head_tables t;
    cli_spec spec = head_spec(&a, &t);
    return cli_option_values(&spec, option);
}

static bool parse_args(int argc, char **argv, head_args *a, int *status)
{
    head_tables t;
    cli_spec spec = head_spec(a, &t);
    if (!cli_parse_args(&spec, argc, argv, status))
        return false;
    const char *wrong = cli_arkit_map_mistake(a->table, a->fitted[0], a->arkit != NULL);
    if (wrong)
        *status = cli_usage_error("sample", "sample: %s", wrong);
    return !wrong;
}

/* A whole file into memory (the map builders copy what they keep). */
static char *read_all(const char *path, size_t *size)
{
    /* Opened without blocking and read only when it is a regular file: a FIFO never hangs the command. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "marionette: %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "marionette: %s: not a regular file; refused\n", path);
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        fprintf(stderr, "marionette: %s: %s\n", path, strerror(errno));
        close(fd);
        return NULL;
    }
    char *data = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            size_t grown = cap ? 2 * cap : 65536;
            char *p = realloc(data, grown);
            if (!p) {
                free(data);
                fclose(f);
                fprintf(stderr, "marionette: %s: out of memory\n", path);
                return NULL;
            }
            data = p;
            cap = grown;
        }
        size_t got = fread(data + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        free(data);
        fprintf(stderr, "marionette: %s: read error\n", path);
        return NULL;
    }
    *size = n;
    return data;
}

/* "name=value" items of LIST, one at a time: false at the end; *bad when an item is malformed. */
typedef struct list_item {
    char name[128];
    float value;
} list_item;

static bool next_item(const char **s, list_item *item, bool *bad)
{
    *bad = false;
    if (**s == '\0')
        return false;
    size_t len = strcspn(*s, ",");
    const char *eq = memchr(*s, '=', len);
    size_t name_len = eq ? (size_t)(eq - *s) : 0, num_len = eq ? len - name_len - 1 : 0;
    /* 63 bytes at most for the number, as cli_parse_float_span takes */
    if (!eq || name_len == 0 || name_len >= sizeof item->name || num_len == 0 || num_len >= 64) {
        snprintf(item->name, sizeof item->name, "%.*s", (int)(len < 100 ? len : 100), *s);
        *bad = true;
        return true;
    }
    memcpy(item->name, *s, name_len);
    item->name[name_len] = '\0';
    if (!cli_parse_float_span(eq + 1, num_len, &item->value))
        *bad = true;
    *s += len + (*(*s + len) == ',' ? 1 : 0);
    return true;
}

static int fill_arkit(const char *list, float *weights)
{
    list_item item;
    bool bad;
    while (next_item(&list, &item, &bad)) {
        if (bad)
            return cli_usage_error("sample",
                                   "sample: --arkit: '%s' is not CHANNEL=NUMBER", item.name);
        int32_t c = mn_arkit_channel_index(item.name);
        if (c < 0)
            return cli_usage_error("sample",
                                   "sample: --arkit: '%s' is not an ARKit-52 channel", item.name);
        weights[c] = item.value;
    }
    return CLI_EXIT_OK;
}

static int fill_controls(const char *list, const mn_aosrig_head_ext *layout, float *controls)
{
    list_item item;
    bool bad;
    char name[160];
    while (next_item(&list, &item, &bad)) {
        if (bad)
            return cli_usage_error("sample",
                                   "sample: --controls: '%s' is not NAME=NUMBER", item.name);
        size_t k = 0;
        for (; k < layout->dim; k++) {
            mn_head_ext_control_name(layout, k, name, sizeof name);
            if (strcmp(name, item.name) == 0)
                break;
        }
        if (k == layout->dim)
            return cli_usage_error("sample",
                                   "sample: --controls: the head has no control '%s'", item.name);
        controls[k] = item.value;
    }
    return CLI_EXIT_OK;
}

/* --joint NAME=x,y,z,w: a rotation override (x y z w). */
static int fill_override(const char *arg, mn_joint_override *ov, char *name, size_t name_size)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= name_size)
        return cli_usage_error("sample", "sample: --joint: '%s' is not NAME=x,y,z,w", arg);
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = '\0';
    const char *s = eq + 1;
    for (int k = 0; k < 4; k++) {
        size_t n = strcspn(s, ",");
        if ((k < 3) != (s[n] == ',') || !cli_parse_float_span(s, n, &ov->rotation[k]))
            return cli_usage_error("sample", "sample: --joint: '%s' is not NAME=x,y,z,w", arg);
        s += n + 1;
    }
    ov->joint = name;
    return CLI_EXIT_OK;
}

const char *cli_arkit_map_mistake(const char *table, const char *fitted_info, bool arkit)
{
    if (table && fitted_info)
        return "--table and --fitted are two maps: give one";
    if ((table || fitted_info) && !arkit)
        return "--table and --fitted map ARKit weights: give --arkit too";
    return NULL;
}

mn_arkit_map *cli_arkit_map_load(const char *table, const char *const fitted[2],
                                 const mn_aosrig_head_ext *layout)
{
    size_t size = 0, bin_size = 0;
    const char *json_path = table ? table : fitted[0];
    char *json = read_all(json_path, &size), *bin = NULL;
    mn_arkit_map *map = NULL;
    mn_error err;
    if (json && table) {
        if (mn_arkit_table_map_create(layout, json, size, NULL, &map, &err) != MN_OK)
            cli_report_error(json_path, &err);
    } else if (json && (bin = read_all(fitted[1], &bin_size)) != NULL) {
        if (mn_arkit_fitted_map_create(layout, json, size, bin, bin_size, NULL, &map, &err) !=
            MN_OK)
            cli_report_error(json_path, &err);
    }
    free(json);
    free(bin);
    for (uint32_t i = 0; map && i < map->drop_count; i++) {
        fprintf(stderr, "marionette: warning: ARKit map: dropped ");
        cli_put_quoted(stderr, map->drops[i].name);
        fprintf(stderr, " (%s)\n", mn_status_name(map->drops[i].code));
    }
    return map;
}

static void print_json(const head_args *a, const mn_aosrig *pack, const float *controls,
                       const float *verts)
{
    const mn_aosrig_header *h = &pack->header;
    const char *units = mn_aosrig_units_name(a->forward ? h->units : MN_AOSRIG_METRES);
    printf("{\"format\":\"marionette-head-sample/1\",\"file\":");
    cli_put_quoted(stdout, a->file);
    printf(",\"units\":\"%s\",\"stage\":\"%s\",\"vertexCount\":%u,\"controls\":", units,
           a->forward ? "forward" : "pose", h->vertex_count);
    cli_put_json_floats(stdout, controls, h->head_ext.dim);
    printf(",\"vertices\":[");
    for (uint32_t v = 0; v < h->vertex_count; v++) {
        if (v)
            putchar(',');
        cli_put_json_floats(stdout, verts + 3 * (size_t)v, 3);
    }
    printf("]}\n");
}

static void print_text(const head_args *a, const mn_aosrig *pack, const float *verts)
{
    const mn_aosrig_header *h = &pack->header;
    const char *units = mn_aosrig_units_name(a->forward ? h->units : MN_AOSRIG_METRES);
    printf("%s: %u %s, %s (%s)\n", a->file, h->vertex_count,
           cli_noun(h->vertex_count, "vertex", "vertices"),
           a->forward ? "forward, head-local" : "posed, bind space", units);
    for (uint32_t v = 0; v < h->vertex_count; v++)
        printf("%u %.9g %.9g %.9g\n", v, (double)verts[3 * (size_t)v],
               (double)verts[3 * (size_t)v + 1], (double)verts[3 * (size_t)v + 2]);
}

/* Everything after the pack is read: the controls, the overrides, the pose, the output. */
static int pose_and_print(const head_args *a, const mn_aosrig *pack, mn_head *head)
{
    const mn_aosrig_head_ext *layout = &pack->header.head_ext;
    float *controls = calloc(layout->dim, sizeof *controls);
    float *verts = malloc((size_t)pack->header.vertex_count * 3 * sizeof *verts);
    mn_arkit_map *map = NULL;
    int rc = CLI_EXIT_FAILED;
    mn_error err;
    if (!controls || !verts) {
        fprintf(stderr, "marionette: sample: out of memory\n");
        goto done;
    }
    if (a->arkit) {
        float weights[MN_ARKIT_CHANNEL_COUNT] = {0};
        if ((rc = fill_arkit(a->arkit, weights)) != CLI_EXIT_OK)
            goto done;
        if (a->table || a->fitted[0]) {
            map = cli_arkit_map_load(a->table, a->fitted, &pack->header.head_ext);
            if (!map) {
                rc = CLI_EXIT_FAILED;
                goto done;
            }
            mn_head_set_arkit_map(head, map, NULL);
        }
        /* With no map the library refuses, and says so. */
        if (mn_head_pose_arkit(head, weights, MN_ARKIT_CHANNEL_COUNT, verts, &err) != MN_OK) {
            cli_report_error(a->file, &err);
            fprintf(stderr, "marionette: give --table FILE or --fitted INFO BIN: a .aosrig "
                            "carries no ARKit map\n");
            rc = CLI_EXIT_FAILED;
            goto done;
        }
        mn_arkit_map_apply(map, weights, controls);
    }
    if (a->controls && (rc = fill_controls(a->controls, layout, controls)) != CLI_EXIT_OK)
        goto done;
    mn_joint_override ov[MAX_JOINT_ARGS];
    char names[MAX_JOINT_ARGS][128];
    for (uint32_t i = 0; i < a->joints.count; i++)
        if ((rc = fill_override(a->joints.items[i], &ov[i], names[i], sizeof names[i])) !=
            CLI_EXIT_OK)
            goto done;
    rc = CLI_EXIT_FAILED;
    if (mn_head_set_joint_overrides(head, ov, a->joints.count, NULL, &err) != MN_OK ||
        (a->forward ? mn_head_forward(head, controls, layout->dim, verts, &err)
                    : mn_head_pose(head, controls, layout->dim, verts, &err)) != MN_OK) {
        cli_report_error(a->file, &err);
        goto done;
    }
    if (a->json)
        print_json(a, pack, controls, verts);
    else
        print_text(a, pack, verts);
    rc = CLI_EXIT_OK;
done:
    mn_arkit_map_free(map);
    free(controls);
    free(verts);
    return rc;
}

int mn_cli_head_sample(int argc, char **argv)
{
    head_args a;
    int rc;
    if (!parse_args(argc, argv, &a, &rc))
        return rc;
    mn_aosrig *pack = NULL;
    mn_head *head = NULL;
    mn_error err;
    if (mn_aosrig_read_file(a.file, NULL, &pack, &err) != MN_OK ||
        mn_head_create(pack, NULL, &head, &err) != MN_OK) {
        cli_report_error(a.file, &err);
        mn_aosrig_free(pack);
        return CLI_EXIT_FAILED;
    }
    rc = pose_and_print(&a, pack, head);
    mn_head_free(head);
    mn_aosrig_free(pack);
    return rc;
}
