/*
 * The `marionette` command's private contract: one table entry per command,
 * one file per command (cmd_info.c, and later cmd_sample.c, cmd_render.c,
 * cmd_export.c, cmd_demo.c, cmd_bench.c).  Adding a command means writing
 * its cli_<name> function in cmd_<name>.c, declaring it here, and adding one
 * row to the table in marionette.c.
 */
#ifndef MN_TOOLS_CLI_H
#define MN_TOOLS_CLI_H

#include <marionette/core.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Exit statuses every command keeps: scripts can tell a bad file from a bad call. */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAILED = 1,   /* the input was bad or the work failed */
    CLI_EXIT_USAGE = 2     /* the command line was wrong */
};

typedef struct cli_command {
    const char *name;      /* "info" */
    const char *args;      /* "FILE [--json]" */
    const char *summary;   /* one line for `marionette help` */
    const char *help;      /* the full text for `marionette help info` */
    /* argv[0] is the command's name; returns one of the CLI_EXIT_ values. */
    int (*run)(int argc, char **argv);
} cli_command;

/* The table, in marionette.c. */
const cli_command *cli_find_command(const char *name);

/* True when FILE names a voxel rig (".json"): info and sample hand it to cmd_voxel.c. */
bool cli_is_rig_json(const char *path);

/* True when path ends in ext (".glb", lower case), whatever the case of path's letters. */
bool cli_has_extension(const char *path, const char *ext);

/* A command-line number that must be positive and finite as a float: false otherwise. */
bool cli_parse_positive(const char *s, float *out);

/* A finite float written whole (no trailing text), as the render commands take --time, --yaw... */
bool cli_parse_float(const char *s, float *out);

/* A decimal count in [1, max] written whole (no sign, no trailing text). */
bool cli_parse_count(const char *s, uint32_t max, uint32_t *out);

/* An image size "WxH", each in [1, 8192]. */
bool cli_parse_size(const char *s, uint32_t *w, uint32_t *h);

/* Print "usage: marionette NAME ARGS" and a hint to `stream`; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *name, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* One option at argv[*i] of a command's `args`; it moves *i past a value it takes.
   CLI_EXIT_OK or a usage error (cli_usage_error). */
typedef int (*cli_option_fn)(int argc, char **argv, int *i, void *args);

/*
 * The arguments of command `name` that takes options and one FILE: "--help" or
 * "-h" sets *help and stops; anything else starting with '-' (but "-" alone)
 * goes to `option`; the FILE into *file (NULL when none; a second is a usage
 * error).  *help and *file are set before the walk.  CLI_EXIT_OK or the first
 * usage error.
 */
int cli_parse_file_args(const char *name, int argc, char **argv, cli_option_fn option, void *args,
                        const char **file, bool *help);

/*
 * "marionette: FILE: PATH: MESSAGE (line L, column C) (MN_CODE)" on stderr, for an
 * error the library returned while reading or posing FILE.  The path is left out
 * when the message already begins with it, the line and column when the message
 * already says "line".
 */
void cli_report_error(const char *file, const mn_error *err);

/* A name from an untrusted file, for text output: in double quotes, with quotes and
   backslashes escaped and control bytes and DEL as \xNN, so none reaches the terminal. */
void cli_put_quoted(FILE *out, const char *s);

/* A number as JSON: %.9g (enough to round-trip a float); JSON has no NaN or infinity, so null. */
void cli_put_json_number(FILE *out, double v);
/* n floats as a JSON array of cli_put_json_number. */
void cli_put_json_floats(FILE *out, const float *v, size_t n);

int cli_info(int argc, char **argv);
int cli_sample(int argc, char **argv);
int cli_render(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_convert(int argc, char **argv);
int cli_demo(int argc, char **argv);
int cli_bench(int argc, char **argv);

/* Expression-head packs: true when FILE ends in ".aosrig" (defined in cmd_sample_head.c);
   `info` hands such a FILE to mn_cli_aosrig_info (cmd_info_aosrig.c). */
bool mn_cli_is_aosrig(const char *path);
int mn_cli_aosrig_info(const char *path, bool json);

/* Voxel rigs (cmd_voxel.c): `info` and `sample` hand a ".json" FILE to these.
   mn_cli_voxel_sample takes sample's whole argv (argv[0] "sample"). */
int mn_cli_voxel_info(const char *path, bool json);
int mn_cli_voxel_sample(int argc, char **argv);

#endif /* MN_TOOLS_CLI_H */
