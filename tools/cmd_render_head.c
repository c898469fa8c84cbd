/*
 * `marionette render HEAD.aosrig [--arkit LIST (--table FILE | --fitted INFO BIN)] [--expr LIST]
 *                               [--colour skin|flat|joint|uv|height] [--sheet] [--size WxH]
 *                               [--yaw DEG] [--pitch DEG] [--view front|side|top|orbit]
 *                               [--supersample N] [--threads N] -o OUT.png`
 *
 * An expression head posed with the library (mn_aosrig_read_file,
 * mn_head_create, a control vector, mn_head_pose) and drawn through its
 * render source (mn_render_source_head) by the software renderer.
 *
 * The control vector: --arkit weights mapped through the table --table or
 * --fitted gives (a pack carries no ARKit map, so --arkit without one is
 * refused with the library's own error, exit 1), then --expr "i=v,..." sets
 * raw control-vector entries by index (the expression coefficients, then the
 * four gaze angles), after the map, so they override it.
 *
 * --sheet draws a labelled grid instead: the neutral head, then each --arkit
 * channel alone at its value and each --expr entry alone at its value, then
 * all of them together ("all", when there are two or more).  With neither
 * option the sheet shows the neutral head and the first coefficient of each
 * of the pack's regions at 1.  Every cell is framed by the bounds of all the
 * cells, so the heads line up.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "shot.h"

#include <marionette/head/aosrig.h>
#include <marionette/head/arkit.h>
#include <marionette/head/head.h>
#include <marionette/render.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmd_render.c hands a .aosrig FILE to this; _values is its spec's cli_option_values. */
int mn_cli_render_head(int argc, char **argv);
int mn_cli_render_head_values(const char *option);

#define MAX_ITEMS 64u             /* --arkit and --expr entries each */
#define MAX_REGION_CELLS 15u      /* the default sheet's region cells */

typedef struct item {
    uint32_t index;               /* ARKit channel, or control-vector index */
    float value;
    char text[48];                /* as given, for a sheet label */
} item;

typedef struct head_render_args {
    const char *file, *arkit_list, *table, *fitted[2];   /* fitted: INFO, BIN */
    cli_shot shot;
    int colouring;                /* an mn_head_colouring */
    bool sheet;
    mn_render_view view;          /* from shot */
    item arkit[MAX_ITEMS], expr[MAX_ITEMS];
    uint32_t arkit_count, expr_count;
} head_render_args;

static const char head_help[] =
    "usage: marionette render HEAD.aosrig [--arkit LIST (--table FILE | --fitted INFO BIN)]\n"
    "                         [--expr LIST] [--colour skin|flat|joint|uv|height] [--sheet]\n"
    "                         [--size WxH] [--yaw DEG] [--pitch DEG] [--view V] -o OUT.png\n\n"
    "Poses an expression head and draws it (default 512x512; sheet cells 256x256).\n"
    "  --arkit LIST   ARKit-52 weights, \"jawOpen=0.8,eyeBlinkLeft=1\", mapped through\n"
    "                 --table FILE (a JSON table) or --fitted INFO BIN (face.arkit and\n"
    "                 its table); a pack has no map of its own, so one is required\n"
    "  --expr LIST    control-vector entries by index, \"3=0.5,17=-1\" (expression\n"
    "                 coefficients, then the four gaze angles), set after the map\n"
    "  --colour C     skin (default; dark eyes), flat, joint (dominant joint, eyes\n"
    "                 cyan), uv, height\n"
    "  --sheet        a labelled grid: neutral, each --arkit/--expr entry alone, all\n"
    "                 together; with neither, each region's first coefficient at 1\n"
    "  --yaw, --pitch, --view, --size, --supersample, --threads: as for any FILE\n"
    "Exit status: 0 when written; 1 when the pack or map cannot be read, --arkit has\n"
    "no map, or the PNG cannot be written; 2 for a wrong command line.\n";

/* ---- the command line ------------------------------------------------------------ */

/*
 * "NAME=NUMBER,..." into items: an ARKit channel name (arkit) or a control
 * index (which is range-checked once the pack says how many there are).  A
 * repeated name keeps its last value.
 */
static int parse_items(const cli_spec *spec, const char *option, const char *list, bool arkit,
                       item *items, uint32_t *count)
{
    for (const char *s = list; *s;) {
        size_t len = strcspn(s, ","), name_len = strcspn(s, "=");
        char name[48];
        item it = {0};
        if (name_len >= len || name_len == 0 || name_len >= sizeof name ||
            !cli_parse_float_span(s + name_len + 1, len - name_len - 1, &it.value))
            return cli_command_error(spec->command, "render: %s: '%.*s' is not %s=NUMBER", option,
                                     (int)(len < 60 ? len : 60), s, arkit ? "CHANNEL" : "INDEX");
        memcpy(name, s, name_len);
        name[name_len] = '\0';
        uint32_t index = 0;
        int32_t channel = arkit ? mn_arkit_channel_index(name) : 0;
        if (arkit ? channel < 0 : !cli_parse_uint(name, 0, UINT32_MAX, &index))
            return cli_command_error(spec->command,
                                     arkit ? "render: %s: '%s' is not an ARKit-52 channel"
                                           : "render: %s: '%s' is not an index",
                                     option, name);
        it.index = arkit ? (uint32_t)channel : index;
        snprintf(it.text, sizeof it.text, "%.*s", (int)(len < 47 ? len : 47), s);
        uint32_t k = 0;
        while (k < *count && items[k].index != it.index)
            k++;
        if (k == MAX_ITEMS)
            return cli_command_error(spec->command, "render: %s: more than %u entries", option,
                                     MAX_ITEMS);
        items[k] = it;
        *count += k == *count;
        s += len + (s[len] == ',');
    }
    return CLI_EXIT_OK;
}

/* --arkit and --expr: each given list is merged into what came before. */
static int take_arkit(const cli_spec *spec, const cli_option *opt, const char *option,
                      const char *list)
{
    head_render_args *a = opt->dest;
    a->arkit_list = list;
    return parse_items(spec, option, list, true, a->arkit, &a->arkit_count);
}

static int take_expr(const cli_spec *spec, const cli_option *opt, const char *option,
                     const char *list)
{
    head_render_args *a = opt->dest;
    return parse_items(spec, option, list, false, a->expr, &a->expr_count);
}

#define HEAD_OPTIONS 6

/* The tables a head's spec points into. */
typedef struct head_tables {
    cli_option options[HEAD_OPTIONS], shot[CLI_SHOT_OPTIONS];
    cli_positional file;
} head_tables;

static cli_spec head_spec(head_render_args *a, head_tables *t)
{
    memset(a, 0, sizeof *a);
    a->shot.supersample = 2;
    static const cli_choice colourings[] = {
        {"skin", MN_HEAD_COLOUR_SKIN}, {"flat", MN_HEAD_COLOUR_FLAT},
        {"joint", MN_HEAD_COLOUR_JOINT}, {"uv", MN_HEAD_COLOUR_UV},
        {"height", MN_HEAD_COLOUR_HEIGHT}, {NULL, 0}};
    const cli_option options[HEAD_OPTIONS] = {
        {.name = "--arkit", .kind = CLI_CUSTOM, .dest = a, .convert = take_arkit},
        {.name = "--expr", .kind = CLI_CUSTOM, .dest = a, .convert = take_expr},
        {.name = "--table", .kind = CLI_STRING, .dest = &a->table},
        {.name = "--fitted", .kind = CLI_PAIR, .dest = a->fitted,
         .needs = "INFO.json and TABLE.bin"},
        {.name = "--colour", .alias = "--color", .kind = CLI_CHOICE, .dest = &a->colouring,
         .choices = colourings},
        {.name = "--sheet", .kind = CLI_FLAG, .dest = &a->sheet},
    };
    memcpy(t->options, options, sizeof options);
    t->file = (cli_positional){"FILE", &a->file, "which file?"};
    return (cli_spec){.reads_model = true, .command = cli_find_command("render"),
                      .help = head_help, .options_of = "a .aosrig head", .options = t->options,
                      .option_count = HEAD_OPTIONS, .shared = t->shot,
                      .shared_count = cli_shot_options(&a->shot, true, t->shot),
                      .positionals = &t->file, .positional_count = 1};
}

int mn_cli_render_head_values(const char *option)
{
    head_render_args a;
    head_tables t;
    cli_spec spec = head_spec(&a, &t);
    return cli_option_values(&spec, option);
}

static bool parse_args(int argc, char **argv, head_render_args *a, int *status)
{
    head_tables t;
    cli_spec spec = head_spec(a, &t);
    if (!cli_parse_args(&spec, argc, argv, status))
        return false;
    const char *wrong = cli_arkit_map_mistake(a->table, a->fitted[0], a->arkit_list != NULL);
    if (wrong) {
        *status = cli_usage_error("render", "render: %s", wrong);
        return false;
    }
    if (!a->shot.has_size)
        a->shot.size.width = a->shot.size.height = a->sheet ? 256 : 512;
    a->view = cli_shot_view(&a->shot);
    return true;
}

/* ---- cells: what each image shows ---------------------------------------------------- */

typedef enum cell_kind { CELL_NEUTRAL, CELL_ARKIT, CELL_EXPR, CELL_ALL, CELL_REGION } cell_kind;

typedef struct cell {
    cell_kind kind;
    uint32_t index;               /* the item (CELL_ARKIT, CELL_EXPR) or region (CELL_REGION) */
} cell;

typedef struct head_scene {
    const head_render_args *a;
    mn_aosrig *pack;
    mn_head *head;
    mn_arkit_map *map;
    float *controls, *posed;
    mn_render_source *source;
    cell cells[1 + 2 * MAX_ITEMS + 1 + MAX_REGION_CELLS];
    uint32_t cell_count;
} head_scene;

/* The cells to draw: one (everything given) without --sheet; see the file's comment with it. */
static void plan_cells(head_scene *h)
{
    const head_render_args *a = h->a;
    uint32_t n = 0;
    if (!a->sheet) {
        h->cells[n++] = (cell){CELL_ALL, 0};
    } else {
        h->cells[n++] = (cell){CELL_NEUTRAL, 0};
        for (uint32_t i = 0; i < a->arkit_count; i++)
            h->cells[n++] = (cell){CELL_ARKIT, i};
        for (uint32_t i = 0; i < a->expr_count; i++)
            h->cells[n++] = (cell){CELL_EXPR, i};
        if (a->arkit_count + a->expr_count >= 2)
            h->cells[n++] = (cell){CELL_ALL, 0};
        const mn_aosrig_head_ext *layout = &h->pack->header.head_ext;
        bool none_given = n == 1;
        for (uint32_t r = 0; none_given && r < layout->region_count && r < MAX_REGION_CELLS; r++)
            h->cells[n++] = (cell){CELL_REGION, r};
    }
    h->cell_count = n;
}

static void cell_label(const head_scene *h, const cell *c, char *buf, size_t size)
{
    const head_render_args *a = h->a;
    const mn_aosrig_head_ext *layout = &h->pack->header.head_ext;
    char name[64];
    switch (c->kind) {
    case CELL_NEUTRAL:
        snprintf(buf, size, "neutral");
        break;
    case CELL_ARKIT:
        snprintf(buf, size, "%s", a->arkit[c->index].text);
        break;
    case CELL_EXPR:
        mn_head_ext_control_name(layout, a->expr[c->index].index, name, sizeof name);
        snprintf(buf, size, "%s=%g", name, (double)a->expr[c->index].value);
        break;
    case CELL_ALL:
        snprintf(buf, size, "all");
        break;
    case CELL_REGION:
        mn_head_ext_control_name(layout, layout->regions[c->index].start, name, sizeof name);
        snprintf(buf, size, "%s=1", name);
        break;
    }
}

/* The control vector a cell shows: the ARKit map first, then the raw entries over it. */
static void cell_controls(head_scene *h, const cell *c)
{
    const head_render_args *a = h->a;
    const mn_aosrig_head_ext *layout = &h->pack->header.head_ext;
    memset(h->controls, 0, layout->dim * sizeof *h->controls);
    if (h->map && (c->kind == CELL_ARKIT || c->kind == CELL_ALL)) {
        float weights[MN_ARKIT_CHANNEL_COUNT] = {0};
        for (uint32_t i = 0; i < a->arkit_count; i++)
            if (c->kind == CELL_ALL || i == c->index)
                weights[a->arkit[i].index] = a->arkit[i].value;
        mn_arkit_map_apply(h->map, weights, h->controls);
    }
    for (uint32_t i = 0; i < a->expr_count; i++)
        if ((c->kind == CELL_EXPR && i == c->index) || c->kind == CELL_ALL)
            h->controls[a->expr[i].index] = a->expr[i].value;
    if (c->kind == CELL_REGION)
        h->controls[layout->regions[c->index].start] = 1.0f;
}

static int pose_cell(head_scene *h, const cell *c)
{
    mn_error err;
    cell_controls(h, c);
    if (mn_head_pose(h->head, h->controls, h->pack->header.head_ext.dim, h->posed, &err) !=
        MN_OK) {
        cli_report_error(h->a->file, &err);
        return CLI_EXIT_FAILED;
    }
    mn_render_source_refresh(h->source);
    return CLI_EXIT_OK;
}

/* ---- loading, checking, drawing ------------------------------------------------------ */

/* The pack, the head, the map, the buffers and the source; checks that need the pack. */
static int load(head_scene *h)
{
    const head_render_args *a = h->a;
    mn_error err;
    if (mn_aosrig_read_file(a->file, NULL, &h->pack, &err) != MN_OK ||
        mn_head_create(h->pack, NULL, &h->head, &err) != MN_OK) {
        cli_report_error(a->file, &err);
        return CLI_EXIT_FAILED;
    }
    const mn_aosrig_header *hd = &h->pack->header;
    for (uint32_t i = 0; i < a->expr_count; i++)
        if (a->expr[i].index >= hd->head_ext.dim)
            return cli_usage_error("render", "render: --expr: index %u is past the head's %u %s "
                                             "(0 to %u)", a->expr[i].index, hd->head_ext.dim,
                                   cli_noun(hd->head_ext.dim, "control", "controls"),
                                   hd->head_ext.dim - 1);
    h->controls = calloc(hd->head_ext.dim, sizeof *h->controls);
    h->posed = calloc((size_t)hd->vertex_count * 3, sizeof *h->posed);
    if (!h->controls || !h->posed) {
        fprintf(stderr, "marionette: %s: out of memory\n", a->file);
        return CLI_EXIT_FAILED;
    }
    if (a->arkit_list) {
        if ((a->table || a->fitted[0]) &&
            !(h->map = cli_arkit_map_load(a->table, a->fitted, &h->pack->header.head_ext)))
            return CLI_EXIT_FAILED;
        if (h->map && mn_head_set_arkit_map(h->head, h->map, &err) != MN_OK) {
            cli_report_error(a->file, &err);
            return CLI_EXIT_FAILED;
        }
        /* With no map the library refuses an ARKit vector, and says why. */
        float weights[MN_ARKIT_CHANNEL_COUNT] = {0};
        if (mn_head_pose_arkit(h->head, weights, MN_ARKIT_CHANNEL_COUNT, h->posed, &err) != MN_OK) {
            cli_report_error(a->file, &err);
            fprintf(stderr, "marionette: give --table FILE or --fitted INFO BIN: a .aosrig "
                            "carries no ARKit map\n");
            return CLI_EXIT_FAILED;
        }
    }
    mn_render_head_options ro = {.colouring = (mn_head_colouring)a->colouring};
    if (mn_render_source_head(h->head, h->posed, &ro, &h->source, &err) != MN_OK) {
        cli_report_error(a->file, &err);
        return CLI_EXIT_FAILED;
    }
    plan_cells(h);
    return CLI_EXIT_OK;
}

static void head_scene_free(head_scene *h)
{
    mn_render_source_free(h->source);
    mn_arkit_map_free(h->map);
    mn_head_free(h->head);
    mn_aosrig_free(h->pack);
    free(h->controls);
    free(h->posed);
}

/* Every cell drawn with one camera framing the bounds of all of them; one PNG or one sheet. */
static int draw(head_scene *h, mn_renderer *r, mn_rgba_image *img, mn_sheet *sheet)
{
    const head_render_args *a = h->a;
    const mn_render_scene *scene = mn_render_source_scene(h->source);
    float lo[3], hi[3];
    mn_render_bounds_reset(lo, hi);
    for (uint32_t i = 0; i < h->cell_count; i++) {
        if (pose_cell(h, &h->cells[i]) != CLI_EXIT_OK)
            return CLI_EXIT_FAILED;
        mn_render_scene_bounds(scene, lo, hi);
    }
    mn_render_camera cam;
    mn_error err;
    float aspect = (float)a->shot.size.width / (float)a->shot.size.height;
    if (mn_render_camera_frame(lo, hi, &a->view, aspect, &cam, &err) != MN_OK) {
        cli_report_error(a->file, &err);
        return CLI_EXIT_FAILED;
    }
    for (uint32_t i = 0; i < h->cell_count; i++) {
        if (pose_cell(h, &h->cells[i]) != CLI_EXIT_OK)
            return CLI_EXIT_FAILED;
        if (mn_renderer_draw(r, scene, &cam, img, &err) != MN_OK) {
            cli_report_error(a->file, &err);
            return CLI_EXIT_FAILED;
        }
        if (sheet) {
            char label[96];
            cell_label(h, &h->cells[i], label, sizeof label);
            mn_sheet_put(sheet, i, img, label);
        }
    }
    return cli_write_image(sheet ? &sheet->image : img, a->shot.out);
}

static int render_head(const head_render_args *a)
{
    head_scene h = {.a = a};
    int rc = load(&h);
    mn_renderer *r = NULL;
    mn_rgba_image img = {0};
    mn_sheet sheet = {0};
    mn_error err;
    /* The command line's background, #2e333b. */
    const uint8_t bg[4] = {0x2e, 0x33, 0x3b, 0xff};
    mn_render_options opt = {.width = a->shot.size.width, .height = a->shot.size.height,
                             .supersample = a->shot.supersample,
                             .threads = cli_render_threads(a->shot.threads),
                             .background = {bg[0] / 255.0f, bg[1] / 255.0f, bg[2] / 255.0f, 1}};
    if (rc == CLI_EXIT_OK) {
        opt.max_triangles = mn_render_scene_triangle_count(mn_render_source_scene(h.source));
        rc = CLI_EXIT_FAILED;
        if (mn_renderer_create(&opt, &r, &err) != MN_OK ||
            mn_rgba_image_create(a->shot.size.width, a->shot.size.height, NULL, &img, &err) !=
                MN_OK ||
            (a->sheet && mn_sheet_create(h.cell_count, a->shot.size.width, a->shot.size.height, bg,
                                         NULL, &sheet, &err) != MN_OK))
            cli_report_error(a->file, &err);
        else
            rc = draw(&h, r, &img, a->sheet ? &sheet : NULL);
    }
    mn_sheet_free(&sheet);
    mn_rgba_image_free(&img);
    mn_renderer_free(r);
    head_scene_free(&h);
    return rc;
}

int mn_cli_render_head(int argc, char **argv)
{
    head_render_args a;
    int rc;
    return parse_args(argc, argv, &a, &rc) ? render_head(&a) : rc;
}
