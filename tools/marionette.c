/*
 * marionette — the command-line tool.  This file holds the command table, the
 * dispatch, and what every command prints alike (usage errors, the library's
 * errors, quoted names, JSON numbers); each command lives in a file of its own
 * (cmd_info.c).
 *
 *     marionette info FILE [--json]
 *     marionette sample FILE [--clip C] [--times LIST] [--rest] [--vertices V] [--json]
 *     marionette render FILE [--clip C] [--time T | --frames N] [--turntable N] [--sheet] -o OUT.png
 *     marionette help [COMMAND]
 *     marionette --version
 */
#include "cli.h"

#include <marionette/marionette.h>

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const cli_command commands[] = {
    {"info", "FILE [--json]",
     "describe a glTF/GLB, OBJ, voxel rig.json, .aosrig head or character.json package",
     "Reads FILE (.glb or .gltf) and prints what it holds: asset version and generator,\n"
     "extensions used and required, the scene tree (nodes with their mesh, skin and\n"
     "camera), meshes with vertex and index counts and attributes, skins with joint\n"
     "counts, animations with channel counts, interpolations and durations, materials,\n"
     "images, world-space bounds at rest, and the reader's warnings.  An .obj (with its\n"
     "MTL libraries) is described as the model it is read into: one mesh whose\n"
     "primitives are its groups.  A .aosrig is an expression head: its controls,\n"
     "regions, joints, eyes and blobs.\n"
     "A FILE ending in .json is a voxel rig: its parts, joints (drive, range),\n"
     "animations and part meshes are summarised instead, unless it is a character\n"
     "package (named character.json, or its top-level \"format\" is \"aosrig-splat\"):\n"
     "then its skeleton, clips (dropped ones with why), splats, head, correctives,\n"
     "mouth list, files (sizes, hashes checked) and dropped optional parts.\n"
     "\n"
     "  --json   print one JSON object instead (keys documented in docs/cli.md)\n"
     "\n"
     "Exit status: 0 when the file loads, 1 when the reader refuses it (the error,\n"
     "with its JSON path and code, goes to stderr), 2 for a wrong command line.\n",
     cli_info},
    {"sample", "FILE [--clip NAME|INDEX|all] [--times LIST | --time T] [--rest] [--skinned] "
               "[--vertices deformed|skinned|all|none] [--json]",
     "pose a model at given times: node world matrices, morph weights, vertex positions",
     "Loads FILE and poses it with the library, at the rest pose and at each asked\n"
     "time of each chosen clip, then prints every node's world matrix, the morph\n"
     "weights of every node whose mesh has targets, and the world-space positions of\n"
     "the chosen primitives (morphed, then skinned; glTF places a skinned mesh by its\n"
     "joints, not by its node).  The JSON is the \"marionette-sample/1\" format of\n"
     "docs/cli.md, meant for comparing implementations number by number.\n"
     "\n"
     "  --clip C       a clip by name, or by index when no clip has that name;\n"
     "                 'all' (the default) samples every clip\n"
     "  --times LIST   comma-separated seconds (float32), or 'keys' (the default: every\n"
     "                 distinct key time of the clip), or 'keys+mid' (the keys, the\n"
     "                 midpoints between them, and 0.25 s before the first and after\n"
     "                 the last); the kinds may be mixed: 0,keys,2.5\n"
     "  --time T       the same as --times T (one time, as render spells it)\n"
     "  --rest         also sample the rest pose (clip -1, time null); a file without\n"
     "                 animations always has it\n"
     "  --vertices V   which primitives get positions: 'deformed' (the default:\n"
     "                 skinned or morphed), 'skinned', 'all', or 'none'\n"
     "  --skinned      the same as --vertices skinned\n"
     "  --json         one JSON object (marionette-sample/1) instead of a table\n"
     "\n"
     "Exit status: 0 when done; 1 when the reader refuses the file or posing it\n"
     "fails (the error goes to stderr); 2 for a wrong command line, including a\n"
     "--clip that names no clip of the file (stderr lists the clips it has).\n"
     "\n"
     "A FILE ending in .json is a voxel rig, posed at one time instead:\n"
     "  marionette sample RIG.json [--anim NAME] [--time-ms T] [--set JOINT=VALUE]...\n"
     "                             [--rest] [--json]\n"
     "prints every joint's value after overlay and clamping and every part's world\n"
     "matrix (marionette-voxel-sample/1 with --json).\n",
     cli_sample},
    {"render", "FILE [--clip NAME] [--time T | --frames N [--sheet]] [--size WxH] "
               "[--yaw DEG --pitch DEG] [--view front|side|top] [--turntable N [--sheet]] "
               "-o OUT.png|OUT.jpg",
     "draw a posed model into a PNG or JPEG: one frame, a sequence, a turntable or a sheet",
     "Loads FILE (.glb/.gltf, .obj, or a voxel rig.json), poses it and draws it with the\n"
     "library's software rasteriser (no GPU): lit, depth-tested, textured, supersampled.\n"
     "The camera frames the model automatically; for a clip it frames the whole clip, so\n"
     "frames of one clip line up.\n"
     "\n"
     "  --clip C         a clip by name, or by index when no clip has that name (glTF), or\n"
     "                   an animation by name (rig.json); default: the rest pose, or clip\n"
     "                   0 when --time or --frames ask for one\n"
     "  --time T         seconds into the clip (clamped to its length); a file without\n"
     "                   animations is drawn at rest, with a note on stderr\n"
     "  --frames N       N frames from the clip's start to its end: OUT_000.png ... or,\n"
     "                   with --sheet, one labelled grid in OUT.png\n"
     "  --turntable N    N views round the model (yaw steps of 360/N), numbered or --sheet\n"
     "  --size WxH       image (or sheet cell) size, default 800x600\n"
     "  --yaw DEG        camera yaw about +y, default 30 (0 looks from the front, +z)\n"
     "  --pitch DEG      camera height, -90..90, default 20\n"
     "  --distance D     camera distance from the bounds' centre (default: framed)\n"
     "  --fov DEG        vertical field of view, default 40\n"
     "  --view V         front, side or top: orthographic views; orbit: the default\n"
     "  --supersample N  N x N samples a pixel, 1..4, default 2\n"
     "  --background C   #rrggbb, #rrggbbaa or none (transparent); default #2e333b\n"
     "  --skinning S     lbs (linear blending, the default) or dq (dual quaternions:\n"
     "                   twisted joints keep their volume); glTF only, and dq refuses a\n"
     "                   skin whose rest pose scales a joint non-uniformly\n"
     "  --threads N      rendering threads, default one per CPU\n"
     "  --quiet          no progress bar and no list of files written\n"
     "  -o, --out OUT    the image to write (required): a PNG when OUT ends in .png, a\n"
     "                   JPEG (quality 90, no alpha) for .jpg or .jpeg; any other name\n"
     "                   is refused before anything is read\n"
     "\n"
     "A FILE ending in .aosrig is an expression head, drawn posed from its controls:\n"
     "  marionette render HEAD.aosrig [--arkit LIST (--table FILE | --fitted INFO BIN)]\n"
     "      [--expr LIST] [--colour skin|flat|joint|uv|height] [--sheet] -o OUT.png\n"
     "(`marionette render HEAD.aosrig --help` explains them); --sheet then draws a grid\n"
     "of expressions: neutral, each given weight alone, and all of them together.\n"
     "A character package (see `marionette help info`) is posed with --clip at --time\n"
     "(--time alone: its first clip) and its splats drawn as coloured discs; it takes\n"
     "--size (default 512x512), --yaw, --pitch, --radius S (disc size, default 1),\n"
     "--supersample and --threads.\n"
     "\n"
     "A progress bar goes to stderr for several frames when stderr is a terminal.\n"
     "Exit status: 0 when written; 1 when the file cannot be read or posed, or the image\n"
     "cannot be written (the error names the file and item); 2 for a wrong command\n"
     "line, including a --clip the file does not have (stderr lists its clips).\n",
     cli_render},
    {"export", "[--rig RIG.json] [--meshes PATH] --out OUT [--scale S] [--rate HZ] [--name N]",
     "a voxel model (rig.json + part meshes, or mesh.glb) as one glTF",
     "Packs a voxel model into one glTF 2.0 file a game engine loads: one node per\n"
     "part (named after it, children as the part tree, origin at its pivot, default\n"
     "transform the rest pose), one vertex-coloured mesh per part (or, for the\n"
     "*-skinned kinds, one skinned mesh with the parts as its skeleton), empty\n"
     "attach-socket nodes (extras {\"socket\": true}) for parts without geometry, and\n"
     "every rig animation baked into a LINEAR clip of the same name (extras loop and\n"
     "autoPlay).  Beside OUT it writes OUT.interface.json: every caller joint with its\n"
     "node, kind, axis and range, the animations and the sockets, also mirrored into\n"
     "the driven nodes' extras.  Without --rig, --meshes names one static mesh.glb.\n"
     "\n"
     "  --rig RIG.json   the rig: a produced rig.json, or a run record holding it as \"rig\"\n"
     "  --meshes PATH    the part meshes: a folder of <part>.glb (rigged kinds), or\n"
     "                   mesh.glb / a folder holding it (skinned and static kinds);\n"
     "                   default: beside the rig (meshes/ or mesh.glb)\n"
     "  --out OUT        .glb, or .gltf (+ .bin beside it); without an extension,\n"
     "                   OUT.glb; -o also works\n"
     "  --scale S        world units per voxel (default: the rig's voxel_size; 1 without a rig)\n"
     "  --rate HZ        animation samples per second (default 60), plus every key time;\n"
     "                   more are added where LINEAR keys would stray from the curves\n"
     "  --name N         the model name interface.json records (default: OUT's file name)\n"
     "\n"
     "Exit status: 0 when written; 1 when an input is missing or invalid or the output\n"
     "cannot be written (the error names the file and item, and no partial output is\n"
     "left behind); 2 for a wrong command line.\n",
     cli_export},
    {"convert", "IN OUT [--quantize] [--scale S] [--rate HZ]",
     "write a glTF/GLB, OBJ (+MTL) or voxel rig.json as GLB or .gltf",
     "Reads IN with the library and writes it to OUT: GLB when OUT ends in .glb,\n"
     "a .gltf with its .bin beside it when OUT ends in .gltf.\n"
     "  IN .glb/.gltf  everything the reader exposes is written back (extras included)\n"
     "  IN .obj        with its MTL libraries: one mesh whose primitives are the OBJ's\n"
     "                 groups (one per usemtl) with their materials (Kd, d/Tr, Ke, Ns;\n"
     "                 map_Kd as a texture referenced by URI); uv v flipped for glTF\n"
     "  IN .json       a voxel rig with its meshes beside it, through `export` (also\n"
     "                 writes OUT.interface.json)\n"
     "\n"
     "  --quantize     KHR_mesh_quantization for positions, normals and uvs (glTF/OBJ input)\n"
     "  --scale S, --rate HZ   as for `export` (rig input)\n"
     "\n"
     "Exit status: 0 when written; 1 when IN cannot be read or OUT cannot be written\n"
     "(the error names the file and item; no partial file is left); 2 for a wrong\n"
     "command line.\n",
     cli_convert},
    {"compress", "IN OUT.mnanim|OUT.glb|OUT.gltf [--max-error M] [--shell S] [--json]",
     "compress every animation of a glTF/GLB within an error bound into .mnanim or glTF",
     "Compresses each animation of IN (over its nodes: the clips a mixer plays) within a\n"
     "maximum error of virtual vertices a shell distance from every joint, in object\n"
     "space, and writes the compressed clips to OUT as one .mnanim file (the blocks\n"
     "back to back, docs/formats.md).  The file is read back and each clip measured\n"
     "against the raw one: the errors printed are the file's.\n"
     "\n"
     "  --max-error M  the bound, in model units (metres for glTF); default 0.0001\n"
     "  --shell S      the vertices' distance from each joint; default 0.03\n"
     "  --json         one object: {\"clips\", \"raw_bytes\" (float32 keys and times as\n"
     "                 glTF stores them), \"compressed_bytes\", \"ratio\", \"max_error_m\",\n"
     "                 \"p99_error_m\" (the largest clip's), \"shell_m\"}\n"
     "\n"
     "OUT.glb or OUT.gltf: the model written again with its animations' keys reduced,\n"
     "quantised and meshopt-compressed (EXT_meshopt_compression, required) within the\n"
     "same bound, read back and measured the same way; compressed bytes are then the\n"
     "animations' buffer views as stored.\n"
     "\n"
     "Exit status: 0 when written; 1 when IN cannot be read or OUT cannot be written\n"
     "(nothing partial is left); 2 for a wrong command line.\n",
     cli_compress},
    {"demo", "[--out DIR] [--size WxH] [--quiet]",
     "build a voxel character in code, export it, play it back and draw a contact sheet",
     "Shows the whole library on a model it makes itself.  A voxel character (15 parts:\n"
     "body, head, a hat on a mount, arms in two segments, hands, legs, feet, a hand\n"
     "socket; caller and auto joints; an idle loop with eases and a one-shot wave) is\n"
     "sculpted in code and written as a voxel model (rig.json and meshes/<part>.glb,\n"
     "vertex-coloured voxels built and written by the library), exported to one glTF\n"
     "with its interface.json, read back, played by the glTF runtime (a model\n"
     "instance's mixer) and drawn by the software renderer: one contact sheet, a row\n"
     "of the idle and two rows of the wave.  Prints the files it wrote.\n"
     "\n"
     "  --out DIR    the folder to write into (made if missing), default marionette-demo:\n"
     "               DIR/character/rig.json, DIR/character/meshes/*.glb,\n"
     "               DIR/character.glb, DIR/character.interface.json, DIR/demo_sheet.png\n"
     "  --size WxH   each sheet cell's size, 16 to 4096 a side, default 256x320\n"
     "  --quiet      no progress bar and no list of files written\n"
     "\n"
     "A progress bar goes to stderr while it draws when stderr is a terminal.\n"
     "Exit status: 0 when everything was written; 1 when a file cannot be written (the\n"
     "error names it); 2 for a wrong command line.\n",
     cli_demo},
    {"bench", "[--quick] [--json] [--quiet]",
     "time the library's hot paths on built-in data, each beside memcpy",
     "Needs no files: the demo's voxel character is built, exported and written to a\n"
     "GLB in memory, and the suite times reading that GLB (gltf_load), sampling its\n"
     "baked wave clip (clip_sample), skinning generated vertices with 4 influences\n"
     "(skinning), posing its voxel rig (voxel_pose) and drawing it with the software\n"
     "renderer (render).  Each case is printed beside memcpy of the same bytes,\n"
     "measured in the same run, since machines differ and are shared.\n"
     "\n"
     "  --quick   smaller sizes and 3 runs: a couple of seconds in all\n"
     "  --json    one JSON object a line (bench, case, what, runs, ms, median_ms,\n"
     "            items, unit, per_s, bytes, memcpy_ms, memcpy_gbps, x_memcpy)\n"
     "  --quiet   no progress bar\n"
     "\n"
     "A progress bar goes to stderr when stderr is a terminal.\n"
     "Exit status: 0 when every case ran; 1 when a case's work failed; 2 for a wrong\n"
     "command line.  No figure is ever a failure.\n",
     cli_bench},
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

bool cli_is_rig_json(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && strcmp(path + n - 5, ".json") == 0;
}

bool cli_has_extension(const char *path, const char *ext)
{
    size_t n = strlen(path), k = strlen(ext);
    if (n <= k)
        return false;
    for (size_t i = 0; i < k; i++) {
        char c = path[n - k + i];
        if ((c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c) != ext[i])
            return false;
    }
    return true;
}

const cli_command *cli_find_command(const char *name)
{
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int cli_usage_error(const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = cli_command_verror(name ? cli_find_command(name) : NULL, fmt, ap);
    va_end(ap);
    return rc;
}

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '/' || c == '-';
}

/* True when word stands whole in text, or as the folder of a path there ("DIR/meshes"): not as
   a piece of a longer name. */
static bool names_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    if (n == 0)
        return false;
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        if ((p == text || !is_name_char(p[-1])) && (p[n] == '/' || !is_name_char(p[n])))
            return true;
    return false;
}

/* msg into out without its first `"file"` (and the blank before it): true when it had one. */
static bool drop_quoted(const char *msg, const char *file, char *out, size_t size)
{
    char quoted[4200];
    int q = snprintf(quoted, sizeof quoted, "\"%s\"", file);
    const char *at = q > 0 && (size_t)q < sizeof quoted ? strstr(msg, quoted) : NULL;
    if (!at)
        return false;
    size_t head = (size_t)(at - msg), skip = (size_t)q;
    if (head > 0 && msg[head - 1] == ' ')
        head--, skip++;
    else if (at[q] == ' ')
        skip++;
    snprintf(out, size, "%.*s%s", (int)head, msg, msg + head + skip);
    return true;
}

/* The file is named once: at the front, taken out of the message where the message quotes it
   ("cannot open \"x.glb\": ..."), and not at the front where the message names it bare
   ("cannot write x.png: ..."). */
void cli_report_error(const char *file, const mn_error *err)
{
    const char *msg = err->message[0] ? err->message : mn_status_message(err->code);
    char text[sizeof err->message];
    bool front = true;
    if (drop_quoted(msg, file, text, sizeof text))
        msg = text;
    else if (names_word(msg, file))
        front = false;
    fputs("marionette: ", stderr);
    if (front)
        fprintf(stderr, "%s: ", file);
    if (err->path[0] && strcmp(err->path, file) != 0 && !names_word(msg, err->path))
        fprintf(stderr, "%s: ", err->path);
    fputs(msg, stderr);
    if (err->line > 0 && !strstr(msg, "line"))
        fprintf(stderr, " (line %d, column %d)", err->line, err->column);
    fprintf(stderr, " (%s)\n", mn_status_name(err->code));
}

void cli_put_quoted(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\x%02x", *p);
        else if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

void cli_put_json_number(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.9g", v);
    else
        fputs("null", out);
}

void cli_put_json_floats(FILE *out, const float *v, size_t n)
{
    fputc('[', out);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', out);
        cli_put_json_number(out, v[i]);
    }
    fputc(']', out);
}

/* The overview's column where arguments and summaries start. */
#define OVERVIEW_INDENT 10

static void print_overview(FILE *out)
{
    fprintf(out, "marionette %s — rigged 3D models that move\n\n", mn_version());
    fputs("usage: marionette COMMAND [ARGS]\n\ncommands:\n", out);
    for (size_t i = 0; i < COMMAND_COUNT; i++) {
        const cli_command *c = &commands[i];
        fprintf(out, "  %-7s ", c->name);
        cli_put_wrapped(out, c->args, OVERVIEW_INDENT, OVERVIEW_INDENT);
        fprintf(out, "%*s", OVERVIEW_INDENT + 2, "");
        cli_put_wrapped(out, c->summary, OVERVIEW_INDENT + 2, OVERVIEW_INDENT + 2);
    }
    fputs("  help    [COMMAND]\n"
          "            this text, or the usage, options and exit statuses of one command\n"
          "\n"
          "options:\n"
          "  --version  print the library version\n"
          "  --help     this text (COMMAND --help: that command's)\n"
          "\n"
          "Exit status: 0 done, 1 a file that cannot be read or written, 2 a wrong command line.\n"
          "info, sample, render, convert and export also take --allow-outside DIR: the files a\n"
          "model names (buffers, images, mtllib, map_Kd, part meshes, package files) may then\n"
          "lie anywhere inside DIR, not only inside the model's own folder.\n",
          out);
}

static int run_help(int argc, char **argv)
{
    if (argc <= 2) {
        print_overview(stdout);
        return CLI_EXIT_OK;
    }
    if (argc > 3)
        return cli_usage_error(NULL, "help takes at most one command name");
    const cli_command *cmd = cli_find_command(argv[2]);
    if (!cmd)
        return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
    cli_print_usage(stdout, cmd->name, cmd->args);
    printf("\n%s", cmd->help);
    return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    int status;
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        if (argc > 2)
            return cli_usage_error(NULL, "%s takes no arguments", name);
        printf("marionette %s\n", mn_version());
        status = CLI_EXIT_OK;
    } else if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        status = run_help(argc, argv);
    } else {
        const cli_command *cmd = cli_find_command(name);
        if (!cmd)
            return cli_usage_error(NULL, "unknown command '%s'", name);
        status = cmd->run(argc - 1, argv + 1);
    }
    /* A full disk or a closed pipe must not pass for success. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "marionette: cannot write the output\n");
        return CLI_EXIT_FAILED;
    }
    return status;
}
