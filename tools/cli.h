/*
 * The `marionette` command's private contract: one table entry per command
 * (marionette.c), one file per command (cmd_info.c, cmd_sample.c, ...), and
 * one command-line parser they all use (args.c).  Adding a command means
 * writing its cli_<name> function in cmd_<name>.c with a cli_spec of what it
 * takes, declaring it here, and adding one row to the table in marionette.c.
 */
#ifndef MN_TOOLS_CLI_H
#define MN_TOOLS_CLI_H

#include <marionette/core.h>
#include <marionette/pool.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

/* ---- the command line (args.c) ----------------------------------------------------------
 *
 * Every command declares what it takes as a cli_spec: a table of options and
 * the positional arguments, each with where its value goes.  cli_parse_args
 * walks argv once, fills the destinations, answers --help, and reports every
 * mistake the same way (cli_command_error: the message, the usage line, a
 * hint), so a command never walks argv itself.  What it does not check (one
 * option excluding another, a name the file must have) the command checks
 * after, with the same cli_command_error or cli_usage_error.
 *
 *   --name VALUE, -o VALUE   a value is the next argument, whatever it looks
 *                            like (--yaw -30); "--name=VALUE" is not taken
 *   --help, -h               anywhere, even after a mistake: the help is printed on
 *                            stdout (exit status 0), nothing else runs
 *   -                        alone, a positional argument (not an option)
 *
 * The mistakes it reports, each as "marionette: CMD: MESSAGE", the command's
 * usage line and "Run 'marionette help CMD' for more." (exit status 2):
 *
 *   unknown option '-x'                 no table has -x (" for KIND": spec.options_of)
 *   -x needs a value                    the line ends first (option.needs: "needs NEEDS")
 *   -x: 'V' is not HELP                 a value that does not convert or is out of range
 *   -x takes A, B or C, not 'V'         a choice not in the list
 *   more than CAP -x options            a full list
 *   one FILE at a time ('A' and 'B')    a second argument where one FILE is taken
 *   unexpected argument 'X'             an argument too many anywhere else
 *   MISSING, REQUIRED                   an absent positional's or option's own words
 */

/* Numbers: the one checked conversion every command-line number goes through.  Each
   takes the whole text (strtod's leading blanks aside) and says false for anything else. */

/* A finite double; false on trailing text, overflow or underflow (ERANGE), inf or nan. */
bool cli_parse_double(const char *s, double *out);
/* cli_parse_double, and within float range. */
bool cli_parse_float(const char *s, float *out);
/* cli_parse_float of the n bytes at s (a piece of a list), at most 63 of them. */
bool cli_parse_float_span(const char *s, size_t n, float *out);
/* Decimal digits only (no sign, no blank), a value in [min, max]. */
bool cli_parse_uint(const char *s, uint32_t min, uint32_t max, uint32_t *out);

typedef struct cli_size {
    uint32_t width, height;
} cli_size;

/* "WxH", each side a cli_parse_uint in [min, max]. */
bool cli_parse_size(const char *s, uint32_t min, uint32_t max, cli_size *out);

/* What an option's value becomes, and the type its dest points to. */
typedef enum cli_kind {
    CLI_FLAG = 0,    /* bool: set true; takes no value */
    CLI_SET,         /* int: set to the option's value; takes none (--skinned, a choice's alias) */
    CLI_STRING,      /* const char *: the value itself (it points into argv) */
    CLI_PAIR,        /* const char *[2]: the next two arguments (--fitted INFO BIN) */
    CLI_UINT,        /* uint32_t: cli_parse_uint in [min, max] */
    CLI_FLOAT,       /* float: cli_parse_float within bounds */
    CLI_DOUBLE,      /* double: cli_parse_double within bounds */
    CLI_SIZE,        /* cli_size: cli_parse_size, each side in [min, max] */
    CLI_CHOICE,      /* int: the value of the choice named */
    CLI_LIST,        /* cli_list: each time it is given, the value appended */
    CLI_CUSTOM       /* anything: convert() takes the value */
} cli_kind;

/* CLI_FLOAT and CLI_DOUBLE bounds, or'ed; 0: any finite number. */
enum {
    CLI_ABOVE = 1,       /* value > min */
    CLI_AT_LEAST = 2,    /* value >= min */
    CLI_BELOW = 4,       /* value < max */
    CLI_AT_MOST = 8      /* value <= max */
};

typedef struct cli_choice {
    const char *name;    /* "front"; a NULL name ends the list */
    int value;
} cli_choice;

/* A CLI_LIST destination: the values in the order given, at most cap of them. */
typedef struct cli_list {
    const char **items;
    uint32_t count, cap;
} cli_list;

struct cli_spec;
struct cli_option;

/* A CLI_CUSTOM value: CLI_EXIT_OK, or CLI_EXIT_USAGE after reporting it (cli_bad_value,
   cli_command_error).  `option` is the spelling given. */
typedef int (*cli_convert_fn)(const struct cli_spec *spec, const struct cli_option *opt,
                              const char *option, const char *value);

typedef struct cli_option {
    const char *name;            /* "--frames" */
    const char *alias;           /* another spelling ("-o", "--color"), or NULL */
    cli_kind kind;
    void *dest;                  /* where the value goes, of the type its kind names */
    /* The one-line help of the value, in the words errors use: "--frames: '0' is not
       a count from 1 to 1024".  NULL: the kind's own ("a count from MIN to MAX",
       "WIDTHxHEIGHT (MIN to MAX each)", "a finite number"). */
    const char *help;
    double min, max;             /* CLI_UINT and CLI_SIZE: inclusive; floats: see bounds */
    unsigned bounds;             /* CLI_FLOAT, CLI_DOUBLE: CLI_ABOVE | CLI_AT_MOST ... */
    const cli_choice *choices;   /* CLI_CHOICE */
    int value;                   /* CLI_SET */
    cli_convert_fn convert;      /* CLI_CUSTOM */
    const char *needs;           /* what a missing value is called: "OPT needs NEEDS"
                                    (default "a value") */
    bool *given;                 /* set true when the option is given, or NULL */
    const char *required;        /* CLI_STRING: the error when it is still NULL after the
                                    walk ("where to? (-o out.png)"); NULL: optional */
} cli_option;

typedef struct cli_positional {
    const char *name;            /* "FILE", as errors name it */
    const char **dest;
    const char *missing;         /* the error when it is absent ("which file?"); NULL: optional */
} cli_positional;

typedef struct cli_spec {
    /* The command: its name, the usage line errors print (args), and what --help
       prints: "usage: marionette NAME ARGS\n" then, when help is set, "\nHELP". */
    const cli_command *command;
    const char *help;            /* NULL, or all --help prints instead (a FILE kind's own text) */
    const char *options_of;      /* NULL, or whose options they are: "unknown option '-x'
                                    for a .aosrig head" */
    const cli_option *options;
    size_t option_count;
    const cli_option *shared;    /* more options, a table several commands take alike */
    size_t shared_count;
    const cli_positional *positionals;
    size_t positional_count;
    bool reads_model;            /* the command reads a model: it takes --allow-outside DIR
                                    (into cli_allow_outside) */
} cli_spec;

/* --allow-outside DIR: the root every name the model gives may resolve inside (mn_resolver.root
   and the readers' root fields; marionette/io.h), NULL when not given: the model's folder. */
extern const char *cli_allow_outside;

/*
 * Walk argv[1..argc-1] (argv[0] is the command's name) against spec, filling the
 * destinations; it writes only what the command line gives, so set defaults first.
 * True when the command goes on.  False when it must return *status now:
 * CLI_EXIT_OK after --help was printed, CLI_EXIT_USAGE after a mistake was
 * reported on stderr (an unknown option, a missing or bad value, a positional
 * too many or missing, a required option absent: positionals are checked first).
 */
bool cli_parse_args(const cli_spec *spec, int argc, char **argv, int *status);

/* The length of an array of options or positionals. */
#define CLI_COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* "marionette: NAME: OPTION: 'VALUE' is not HELP" for spec's command; CLI_EXIT_USAGE. */
int cli_bad_value(const cli_spec *spec, const cli_option *opt, const char *option,
                  const char *value);

/* "marionette: MESSAGE", then cmd's usage line (none when cmd is NULL) and where its help
   is, on stderr; returns CLI_EXIT_USAGE. */
int cli_command_error(const cli_command *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* cli_command_error with a va_list. */
int cli_command_verror(const cli_command *cmd, const char *fmt, va_list ap);

/* cli_command_error for the command named `name` (marionette.c's table), or for none. */
int cli_usage_error(const char *name, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* How many values `option` (as spelled) takes in spec: 0, 1 or 2; -1 when spec has no such
   option. */
int cli_option_values(const cli_spec *spec, const char *option);

/* One FILE kind's cli_option_values: its spec built and asked. */
typedef int (*cli_values_fn)(const char *option);

/* The one positional argument of argv[1..argc-1]: the first argument that is neither an
   option nor an option's value, NULL when there is none.  How sample and render pick the
   FILE kind whose spec then parses the command line: an option's value (`--clip x.json`,
   `--table t.aosrig`) is skipped as the first of `kinds` that knows the option says, and
   an option no kind knows is taken to have no value (the parse then reports it). */
const char *cli_the_file(int argc, char **argv, const cli_values_fn *kinds, size_t kind_count);

/* Help and usage text fits this many columns (tests/test_cli_help.c holds every command to it). */
#define CLI_HELP_COLUMNS 100

/* text and a newline, text starting at column `at`: broken at blanks outside brackets (at
   any blank where it must) so that no line passes CLI_HELP_COLUMNS, each line after the first
   indented `indent` blanks.  A word wider than the room stands whole on its line. */
void cli_put_wrapped(FILE *out, const char *text, size_t at, size_t indent);

/* "usage: marionette NAME ARGS\n", ARGS broken at blanks outside brackets (where it can) so
   that no line is wider than CLI_HELP_COLUMNS, the rest indented under ARGS's start. */
void cli_print_usage(FILE *out, const char *name, const char *args);

/* The word for n things: one when n is 1, many otherwise ("1 mesh", "2 meshes", "0 meshes").
   The one rule every count the command prints goes through. */
static inline const char *cli_noun(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/*
 * "marionette: FILE: PATH: MESSAGE (line L, column C) (MN_CODE)" on stderr, for an
 * error the library returned while reading or posing FILE.  FILE is named once: a
 * message that quotes it ("cannot open \"FILE\": ...") loses the quoted copy, and
 * one that names it bare ("cannot write FILE: ...") is printed without the front
 * FILE.  PATH (the item) is left out when the message already names it, the line
 * and column when the message already says "line".
 */
void cli_report_error(const char *file, const mn_error *err);

/* A name from an untrusted file, for text output: in double quotes, with quotes and
   backslashes escaped and control bytes and DEL as \xNN, so none reaches the terminal. */
void cli_put_quoted(FILE *out, const char *s);

/* A number as JSON: %.9g (enough to round-trip a float); JSON has no NaN or infinity, so null. */
void cli_put_json_number(FILE *out, double v);
/* n floats as a JSON array of cli_put_json_number. */
void cli_put_json_floats(FILE *out, const float *v, size_t n);

/* What each command reads, in the words "FILE: not a KINDS file" uses (read_model.c). */
#define CLI_READS_INFO "glTF, OBJ, rig.json, .aosrig or character.json"
#define CLI_READS_SAMPLE "glTF, OBJ, rig.json, .aosrig or character.json"
#define CLI_READS_RENDER "glTF, OBJ, rig.json, .aosrig or character.json"
#define CLI_READS_CONVERT "glTF, OBJ or rig.json"

/* The glTF reader's error for FILE, reported (cli_report_error), or, when FILE is no glTF at
   all (neither a GLB nor JSON text, and not named .glb or .gltf), "marionette: FILE: not a
   KINDS file", in the words of what the command reads. */
void cli_report_read_error(const char *file, const mn_error *err, const char *kinds);

/* FILE as a model: OBJ (with its MTL libraries, through mn_model_from_obj) when it ends in
   .obj, else glTF; --allow-outside applies.  The OBJ reader's warnings go to stderr, and the
   glTF reader's too when gltf_warnings.  NULL after saying why (cli_report_read_error).
   Free with mn_model_free. */
struct mn_model *cli_read_model(const char *file, const char *kinds, bool gltf_warnings);

/* The clip a --clip value names in m: a clip of that exact name, else the index it
   spells (decimal digits); MN_NONE when neither (cmd_sample.c; render takes it too). */
struct mn_model;
uint32_t cli_find_clip(const struct mn_model *m, const char *want);

int cli_info(int argc, char **argv);
int cli_sample(int argc, char **argv);
int cli_render(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_convert(int argc, char **argv);
int cli_compress(int argc, char **argv);
int cli_demo(int argc, char **argv);
int cli_bench(int argc, char **argv);

/* export's --scale and --rate into out[0] and out[1], storing into o (convert takes them too,
   as its spec's shared options). */
struct mn_voxel_export_options;
void cli_export_number_options(struct mn_voxel_export_options *o, cli_option out[2]);

/* Expression-head packs: true when FILE ends in ".aosrig" (defined in cmd_sample_head.c);
   `info` hands such a FILE to mn_cli_aosrig_info (cmd_info_aosrig.c). */
bool mn_cli_is_aosrig(const char *path);
int mn_cli_aosrig_info(const char *path, bool json);

/* What is wrong with a head's map options, or NULL: --table and --fitted both given, or
   either without --arkit (cmd_sample_head.c, for sample's and render's heads). */
const char *cli_arkit_map_mistake(const char *table, const char *fitted_info, bool arkit);

/* The ARKit map a head's --table FILE or --fitted INFO BIN names (the first when table is
   set), built for layout (cmd_sample_head.c; render takes it too).  Entries the map
   drops are warned about on stderr.  NULL after saying why (a file that cannot be read,
   a map the library refuses).  Free with mn_arkit_map_free. */
struct mn_arkit_map;
struct mn_aosrig_head_ext;
struct mn_arkit_map *cli_arkit_map_load(const char *table, const char *const fitted[2],
                                        const struct mn_aosrig_head_ext *layout);

/* Voxel rigs (cmd_voxel.c): `info` and `sample` hand a ".json" FILE to these.
   mn_cli_voxel_sample takes sample's whole argv (argv[0] "sample"). */
int mn_cli_voxel_info(const char *path, bool json);
int mn_cli_voxel_sample(int argc, char **argv);
/* The rig's sample spec's cli_option_values (cmd_sample.c's dispatch asks it). */
int mn_cli_voxel_sample_values(const char *option);

/*
 * Threads, which the library leaves to the caller (0 there means the calling thread alone):
 * the commands draw on --threads N when given and else on one thread per CPU (at most 64, the
 * renderer's limit), and read an OBJ on one thread per CPU (at most 8).
 */
static inline uint32_t cli_render_threads(uint32_t asked)
{
    uint32_t cpus = mn_cpu_count();
    return asked ? asked : cpus < 64 ? cpus : 64;
}

static inline uint32_t cli_obj_threads(void)
{
    uint32_t cpus = mn_cpu_count();
    return cpus < 8 ? cpus : 8;
}

#endif /* MN_TOOLS_CLI_H */
