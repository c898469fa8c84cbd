/*
 * The command-line parser every `marionette` command uses (tools/args.c,
 * compiled into this test), driven over option tables of the test's own:
 * flags and aliases, values (the next argument, whatever it looks like;
 * "--opt=value" is not a form the commands take), missing values, unknown
 * options, numbers out of range or malformed, choices, lists, custom
 * values, positional counts, required options and --help.  What the parser
 * prints is captured and compared whole, since scripts and the docs read it.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- running the parser with stdout and stderr captured ---------------------------------- */

typedef struct parsed {
    bool go;          /* cli_parse_args's answer */
    int status;
    char out[4096];   /* what went to stdout */
    char err[4096];   /* what went to stderr */
} parsed;

typedef struct capture {
    FILE *stream, *file;
    int saved;
} capture;

static capture capture_begin(FILE *stream)
{
    capture c = {stream, tmpfile(), -1};
    assert_non_null(c.file);
    fflush(stream);
    c.saved = dup(fileno(stream));
    assert_true(c.saved >= 0);
    assert_true(dup2(fileno(c.file), fileno(stream)) >= 0);
    return c;
}

static void capture_end(capture *c, char *text, size_t size)
{
    fflush(c->stream);
    assert_true(dup2(c->saved, fileno(c->stream)) >= 0);
    close(c->saved);
    rewind(c->file);
    size_t n = fread(text, 1, size - 1, c->file);
    text[n] = '\0';
    fclose(c->file);
}

/* argv for the parser: argv[0] is the command's name, as marionette.c hands it on. */
#define ARGV(...) ((char *[]){"tool", __VA_ARGS__, NULL})

static int count_args(char **argv)
{
    int n = 0;
    while (argv[n])
        n++;
    return n;
}

static parsed run(const cli_spec *spec, char **argv)
{
    parsed p;
    memset(&p, 0, sizeof p);
    p.status = -1;
    capture out = capture_begin(stdout), err = capture_begin(stderr);
    p.go = cli_parse_args(spec, count_args(argv), argv, &p.status);
    capture_end(&err, p.err, sizeof p.err);
    capture_end(&out, p.out, sizeof p.out);
    return p;
}

static const cli_command tool = {"tool", "FILE [--json] [-o OUT]", "a test command",
                                 "What the tool does.\n", NULL};

/* The usage error the parser prints for `tool`, its message first. */
#define USAGE_ERROR(message)                                                                  \
    "marionette: " message "\n"                                                               \
    "usage: marionette tool FILE [--json] [-o OUT]\n"                                         \
    "Run 'marionette help tool' for more.\n"

/* One option and no positional: the spec most cases below use. */
static cli_spec one_option(const cli_option *opt)
{
    return (cli_spec){.command = &tool, .options = opt, .option_count = 1};
}

/* One option and one FILE ("which file?" when it is missing). */
static cli_spec option_and_file(const cli_option *opt, const cli_positional *file)
{
    return (cli_spec){.command = &tool, .options = opt, .option_count = 1,
                      .positionals = file, .positional_count = 1};
}

/* A command like info: --json and one FILE. */
typedef struct info_like {
    const char *file;
    bool json;
    cli_option json_option;
    cli_positional file_arg;
    cli_spec spec;
} info_like;

static void info_like_init(info_like *t)
{
    memset(t, 0, sizeof *t);
    t->json_option = (cli_option){.name = "--json", .kind = CLI_FLAG, .dest = &t->json};
    t->file_arg = (cli_positional){"FILE", &t->file, "which file?"};
    t->spec = option_and_file(&t->json_option, &t->file_arg);
}

/* The run went on with nothing printed. */
static void assert_went_on(const parsed *p)
{
    if (!p->go || p->status != CLI_EXIT_OK || p->out[0] || p->err[0])
        fail_msg("stopped (status %d): stdout \"%s\", stderr \"%s\"", p->status, p->out, p->err);
}

/* The run stopped with this usage error and printed nothing else. */
static void assert_usage_error(const parsed *p, const char *want)
{
    assert_false(p->go);
    assert_int_equal(p->status, CLI_EXIT_USAGE);
    assert_string_equal(p->err, want);
    assert_string_equal(p->out, "");
}

/* Each of values, given to option, is refused: "tool: OPTION: 'VALUE' is not PHRASE". */
static void assert_each_refused(const cli_spec *spec, const char *option,
                                const char *const *values, size_t n, const char *phrase)
{
    for (size_t i = 0; i < n; i++) {
        char want[512];
        snprintf(want, sizeof want, USAGE_ERROR("tool: %s: '%s' is not %s"), option, values[i],
                 phrase);
        parsed p = run(spec, ARGV((char *)option, (char *)values[i]));
        assert_usage_error(&p, want);
    }
}

/* ---- flags and values ---------------------------------------------------------------------- */

static void flags_and_aliases_set_their_bools(void **state)
{
    (void)state;
    bool json = false, quiet = false, quiet_given = false;
    const cli_option options[] = {
        {.name = "--json", .kind = CLI_FLAG, .dest = &json},
        {.name = "--quiet", .alias = "-q", .kind = CLI_FLAG, .dest = &quiet, .given = &quiet_given},
    };
    const cli_spec spec = {.command = &tool, .options = options,
                           .option_count = CLI_COUNT(options)};
    parsed p = run(&spec, ARGV("-q"));
    assert_went_on(&p);
    assert_false(json);
    assert_true(quiet);
    assert_true(quiet_given);
    p = run(&spec, ARGV("--json", "--quiet", "--json"));
    assert_went_on(&p);
    assert_true(json);
}

static void a_value_is_the_next_argument_whatever_it_looks_like(void **state)
{
    (void)state;
    const char *out = NULL, *clip = NULL;
    float yaw = 0.0f;
    const cli_option options[] = {
        {.name = "--out", .alias = "-o", .kind = CLI_STRING, .dest = &out},
        {.name = "--clip", .kind = CLI_STRING, .dest = &clip},
        {.name = "--yaw", .kind = CLI_FLOAT, .dest = &yaw},
    };
    const cli_spec spec = {.command = &tool, .options = options,
                           .option_count = CLI_COUNT(options)};
    parsed p = run(&spec, ARGV("-o", "a.png", "--yaw", "-30", "--clip", "--help"));
    assert_went_on(&p);
    assert_string_equal(out, "a.png");
    assert_float_equal(yaw, -30.0f, 0.0f);
    assert_string_equal(clip, "--help");
    /* The last one given wins. */
    p = run(&spec, ARGV("--out", "a.png", "-o", "b.png", "--clip", ""));
    assert_went_on(&p);
    assert_string_equal(out, "b.png");
    assert_string_equal(clip, "");
}

static void the_equals_form_is_no_option(void **state)
{
    (void)state;
    const char *out = NULL;
    cli_option opt = {.name = "--out", .kind = CLI_STRING, .dest = &out};
    cli_spec spec = one_option(&opt);
    parsed p = run(&spec, ARGV("--out=a.png"));
    assert_usage_error(&p, USAGE_ERROR("tool: unknown option '--out=a.png'"));
    assert_null(out);
}

static void a_missing_value_is_named(void **state)
{
    (void)state;
    const char *out = NULL, *fitted[2] = {NULL, NULL};
    const cli_option options[] = {
        {.name = "--out", .alias = "-o", .kind = CLI_STRING, .dest = &out},
        {.name = "--fitted", .kind = CLI_PAIR, .dest = fitted, .needs = "INFO.json and TABLE.bin"},
    };
    const cli_spec spec = {.command = &tool, .options = options,
                           .option_count = CLI_COUNT(options)};
    parsed p = run(&spec, ARGV("-o"));
    assert_usage_error(&p, USAGE_ERROR("tool: -o needs a value"));
    p = run(&spec, ARGV("--fitted", "info.json"));
    assert_usage_error(&p, USAGE_ERROR("tool: --fitted needs INFO.json and TABLE.bin"));
    assert_null(fitted[0]);
    p = run(&spec, ARGV("--fitted", "info.json", "table.bin"));
    assert_went_on(&p);
    assert_string_equal(fitted[0], "info.json");
    assert_string_equal(fitted[1], "table.bin");
}

static void an_unknown_option_is_named_with_whose_options_they_are(void **state)
{
    (void)state;
    bool json = false;
    cli_option opt = {.name = "--json", .kind = CLI_FLAG, .dest = &json};
    cli_spec spec = one_option(&opt);
    parsed p = run(&spec, ARGV("--json", "--yaml", "--json"));
    assert_usage_error(&p, USAGE_ERROR("tool: unknown option '--yaml'"));
    spec.options_of = "a .aosrig head";
    p = run(&spec, ARGV("-x"));
    assert_usage_error(&p, USAGE_ERROR("tool: unknown option '-x' for a .aosrig head"));
    /* "--" marks no end of options: it is one more unknown option. */
    p = run(&spec, ARGV("--"));
    assert_usage_error(&p, USAGE_ERROR("tool: unknown option '--' for a .aosrig head"));
}

static void the_shared_table_is_looked_up_too(void **state)
{
    (void)state;
    bool sheet = false;
    uint32_t threads = 0;
    const cli_option own[] = {{.name = "--sheet", .kind = CLI_FLAG, .dest = &sheet}};
    const cli_option shared[] = {
        {.name = "--threads", .kind = CLI_UINT, .dest = &threads, .min = 1, .max = 64},
    };
    const cli_spec spec = {.command = &tool, .options = own, .option_count = 1, .shared = shared,
                           .shared_count = 1};
    parsed p = run(&spec, ARGV("--threads", "8", "--sheet"));
    assert_went_on(&p);
    assert_true(sheet);
    assert_int_equal(threads, 8);
}

/* ---- numbers ------------------------------------------------------------------------------- */

static void counts_take_decimal_digits_in_range(void **state)
{
    (void)state;
    uint32_t n = 7;
    cli_option opt = {.name = "--frames", .kind = CLI_UINT, .dest = &n, .min = 1, .max = 1024};
    cli_spec spec = one_option(&opt);
    parsed p = run(&spec, ARGV("--frames", "1024"));
    assert_went_on(&p);
    assert_int_equal(n, 1024);
    p = run(&spec, ARGV("--frames", "007"));
    assert_went_on(&p);
    assert_int_equal(n, 7);
    static const char *const bad[] = {"0", "1025", "-1", "+3", " 3", "3 ", "3x", "", "1.5",
                                      "0x10", "99999999999999999999"};
    assert_each_refused(&spec, "--frames", bad, sizeof bad / sizeof bad[0],
                        "a count from 1 to 1024");
    assert_int_equal(n, 7);   /* left as it was */
    opt.help = "1, 2, 3 or 4";
    opt.max = 4;
    p = run(&spec, ARGV("--frames", "5"));
    assert_usage_error(&p, USAGE_ERROR("tool: --frames: '5' is not 1, 2, 3 or 4"));
}

static void floats_are_finite_float_values_within_their_bounds(void **state)
{
    (void)state;
    float t = 0.5f;
    cli_option opt = {.name = "--time", .kind = CLI_FLOAT, .dest = &t};
    cli_spec spec = one_option(&opt);
    parsed p = run(&spec, ARGV("--time", "-2.25"));
    assert_went_on(&p);
    assert_float_equal(t, -2.25f, 0.0f);
    p = run(&spec, ARGV("--time", "1e-3"));
    assert_went_on(&p);
    assert_float_equal(t, 1e-3f, 0.0f);
    static const char *const bad[] = {"abc", "", "1,5", "2s", "nan", "inf", "-inf", "1e39",
                                      "1e400", "1e-400"};
    assert_each_refused(&spec, "--time", bad, sizeof bad / sizeof bad[0], "a finite number");
    assert_float_equal(t, 1e-3f, 0.0f);

    /* Each bound, inclusive or not. */
    opt = (cli_option){.name = "--fov", .kind = CLI_FLOAT, .dest = &t, .max = 179,
                       .bounds = CLI_ABOVE | CLI_BELOW, .help = "an angle between 0 and 179"};
    p = run(&spec, ARGV("--fov", "178.5"));
    assert_went_on(&p);
    p = run(&spec, ARGV("--fov", "0"));
    assert_usage_error(&p, USAGE_ERROR("tool: --fov: '0' is not an angle between 0 and 179"));
    p = run(&spec, ARGV("--fov", "179"));
    assert_usage_error(&p, USAGE_ERROR("tool: --fov: '179' is not an angle between 0 and 179"));
    /* Positive, but no float above 0: the value is taken as the float it becomes. */
    p = run(&spec, ARGV("--fov", "1e-50"));
    assert_usage_error(&p, USAGE_ERROR("tool: --fov: '1e-50' is not an angle between 0 and 179"));
    opt = (cli_option){.name = "--pitch", .kind = CLI_FLOAT, .dest = &t, .min = -90, .max = 90,
                       .bounds = CLI_AT_LEAST | CLI_AT_MOST, .help = "an angle from -90 to 90"};
    p = run(&spec, ARGV("--pitch", "-90"));
    assert_went_on(&p);
    assert_float_equal(t, -90.0f, 0.0f);
    p = run(&spec, ARGV("--pitch", "90.5"));
    assert_usage_error(&p, USAGE_ERROR("tool: --pitch: '90.5' is not an angle from -90 to 90"));
}

static void doubles_keep_double_precision(void **state)
{
    (void)state;
    double ms = 0.0;
    cli_option opt = {.name = "--time-ms", .kind = CLI_DOUBLE, .dest = &ms};
    cli_spec spec = one_option(&opt);
    parsed p = run(&spec, ARGV("--time-ms", "300.1"));
    assert_went_on(&p);
    assert_true(ms == 300.1);
    p = run(&spec, ARGV("--time-ms", "1e300"));
    assert_went_on(&p);
    p = run(&spec, ARGV("--time-ms", "1e400"));
    assert_usage_error(&p, USAGE_ERROR("tool: --time-ms: '1e400' is not a finite number"));
}

static void sizes_are_width_x_height_each_in_range(void **state)
{
    (void)state;
    cli_size size = {800, 600};
    cli_option opt = {.name = "--size", .kind = CLI_SIZE, .dest = &size, .min = 16, .max = 4096};
    cli_spec spec = one_option(&opt);
    parsed p = run(&spec, ARGV("--size", "64x4096"));
    assert_went_on(&p);
    assert_int_equal(size.width, 64);
    assert_int_equal(size.height, 4096);
    static const char *const bad[] = {"15x64", "64x4097", "64", "x64", "64x", "64X64",
                                      "64x64x2", "-64x64", "64 x 64"};
    assert_each_refused(&spec, "--size", bad, sizeof bad / sizeof bad[0],
                        "WIDTHxHEIGHT (16 to 4096 each)");
    assert_int_equal(size.width, 64);   /* untouched, even where the width was good */
    assert_int_equal(size.height, 4096);
}

static void the_conversions_take_the_whole_text(void **state)
{
    (void)state;
    uint32_t u = 0;
    assert_true(cli_parse_uint("0", 0, UINT32_MAX, &u) && u == 0);
    assert_true(cli_parse_uint("4294967295", 0, UINT32_MAX, &u) && u == UINT32_MAX);
    assert_false(cli_parse_uint("4294967296", 0, UINT32_MAX, &u));
    assert_false(cli_parse_uint("18446744073709551617", 0, UINT32_MAX, &u));
    float f = 0.0f;
    assert_true(cli_parse_float_span("2.5,keys", 3, &f) && f == 2.5f);
    assert_false(cli_parse_float_span("2.5", 0, &f));
    char long_number[80];
    memset(long_number, '1', sizeof long_number);
    assert_true(cli_parse_float_span(long_number, 38, &f));
    assert_false(cli_parse_float_span(long_number, 64, &f));   /* 63 bytes at most */
    double d = 0.0;
    assert_true(cli_parse_double(" 7", &d) && d == 7.0);      /* strtod's leading blanks */
    assert_false(cli_parse_double("7 ", &d));
    cli_size s;
    assert_true(cli_parse_size("1x8192", 1, 8192, &s) && s.width == 1 && s.height == 8192);
    assert_false(cli_parse_size("0x5", 1, 8192, &s));
}

/* ---- choices, lists, custom values ---------------------------------------------------------- */

enum { VIEW_ORBIT, VIEW_FRONT, VIEW_SIDE, VIEW_TOP };
static const cli_choice views[] = {{"front", VIEW_FRONT}, {"side", VIEW_SIDE},
                                   {"top", VIEW_TOP}, {"orbit", VIEW_ORBIT}, {NULL, 0}};

static void a_choice_stores_its_value_or_lists_the_choices(void **state)
{
    (void)state;
    int view = VIEW_ORBIT;
    cli_option opt = {.name = "--view", .alias = "--look", .kind = CLI_CHOICE, .dest = &view,
                      .choices = views};
    cli_spec spec = one_option(&opt);
    parsed p = run(&spec, ARGV("--view", "top"));
    assert_went_on(&p);
    assert_int_equal(view, VIEW_TOP);
    p = run(&spec, ARGV("--view", "Top"));
    assert_usage_error(&p, USAGE_ERROR("tool: --view takes front, side, top or orbit, not 'Top'"));
    /* Errors name the option as it was spelled. */
    p = run(&spec, ARGV("--look", "up"));
    assert_usage_error(&p, USAGE_ERROR("tool: --look takes front, side, top or orbit, not 'up'"));
    static const cli_choice two[] = {{"on", 1}, {"off", 0}, {NULL, 0}};
    opt.choices = two;
    p = run(&spec, ARGV("--view", "maybe"));
    assert_usage_error(&p, USAGE_ERROR("tool: --view takes on or off, not 'maybe'"));
}

static void a_set_option_and_its_choice_share_a_destination(void **state)
{
    (void)state;
    static const cli_choice vertices[] = {{"deformed", 0}, {"skinned", 1}, {"all", 2},
                                          {NULL, 0}};
    int which = 0;
    const cli_option options[] = {
        {.name = "--vertices", .kind = CLI_CHOICE, .dest = &which, .choices = vertices},
        {.name = "--skinned", .kind = CLI_SET, .dest = &which, .value = 1},
    };
    const cli_spec spec = {.command = &tool, .options = options,
                           .option_count = CLI_COUNT(options)};
    parsed p = run(&spec, ARGV("--skinned", "--vertices", "all"));
    assert_went_on(&p);
    assert_int_equal(which, 2);
    p = run(&spec, ARGV("--vertices", "all", "--skinned"));
    assert_went_on(&p);
    assert_int_equal(which, 1);
}

static void a_list_keeps_each_value_up_to_its_cap(void **state)
{
    (void)state;
    const char *items[2];
    cli_list sets = {items, 0, 2};
    cli_option opt = {.name = "--set", .kind = CLI_LIST, .dest = &sets};
    cli_spec spec = one_option(&opt);
    parsed p = run(&spec, ARGV("--set", "a=1", "--set", "b=2"));
    assert_went_on(&p);
    assert_int_equal(sets.count, 2);
    assert_string_equal(items[0], "a=1");
    assert_string_equal(items[1], "b=2");
    sets.count = 0;
    p = run(&spec, ARGV("--set", "a=1", "--set", "b=2", "--set", "c=3"));
    assert_usage_error(&p, USAGE_ERROR("tool: more than 2 --set options"));
}

/* A custom value: "#rgb" only, reported through cli_bad_value; "boom" with a message of its own. */
static int take_colour(const cli_spec *spec, const cli_option *opt, const char *option,
                       const char *value)
{
    if (strcmp(value, "boom") == 0)
        return cli_command_error(spec->command, "tool: %s: '%s' went off", option, value);
    if (value[0] != '#' || strlen(value) != 4)
        return cli_bad_value(spec, opt, option, value);
    *(const char **)opt->dest = value;
    return CLI_EXIT_OK;
}

static void a_custom_value_is_converted_and_reported_by_its_function(void **state)
{
    (void)state;
    const char *colour = NULL;
    bool given = false;
    cli_option opt = {.name = "--colour", .alias = "--color", .kind = CLI_CUSTOM, .dest = &colour,
                      .convert = take_colour, .help = "#rgb", .given = &given};
    cli_spec spec = one_option(&opt);
    parsed p = run(&spec, ARGV("--color", "#f0a"));
    assert_went_on(&p);
    assert_string_equal(colour, "#f0a");
    assert_true(given);
    given = false;
    p = run(&spec, ARGV("--colour", "red"));
    assert_usage_error(&p, USAGE_ERROR("tool: --colour: 'red' is not #rgb"));
    assert_false(given);   /* a refused value does not count as given */
    p = run(&spec, ARGV("--color", "boom"));
    assert_usage_error(&p, USAGE_ERROR("tool: --color: 'boom' went off"));
}

/* ---- positional arguments and required options ------------------------------------------ */

static void one_file_is_taken_anywhere_and_a_second_refused(void **state)
{
    (void)state;
    info_like t;
    info_like_init(&t);
    parsed p = run(&t.spec, ARGV("--json", "a.glb"));
    assert_went_on(&p);
    assert_string_equal(t.file, "a.glb");
    t.file = NULL;
    p = run(&t.spec, ARGV("-"));   /* "-" alone is an argument, not an option */
    assert_went_on(&p);
    assert_string_equal(t.file, "-");
    t.file = NULL;
    p = run(&t.spec, ARGV("a.glb", "--json", "b.glb"));
    assert_usage_error(&p, USAGE_ERROR("tool: one FILE at a time ('a.glb' and 'b.glb')"));
    t.file = NULL;
    p = run(&t.spec, ARGV("--json"));
    assert_usage_error(&p, USAGE_ERROR("tool: which file?"));
}

static void several_positionals_in_order_then_no_more(void **state)
{
    (void)state;
    const char *in = NULL, *out = NULL;
    const cli_positional positionals[] = {{"IN", &in, "give an input and an output file"},
                                          {"OUT", &out, "give an input and an output file"}};
    const cli_spec spec = {.command = &tool, .positionals = positionals, .positional_count = 2};
    parsed p = run(&spec, ARGV("a.obj"));
    assert_usage_error(&p, USAGE_ERROR("tool: give an input and an output file"));
    p = run(&spec, ARGV("a.obj", "b.glb"));
    assert_went_on(&p);
    assert_string_equal(in, "a.obj");
    assert_string_equal(out, "b.glb");
    in = out = NULL;
    p = run(&spec, ARGV("a.obj", "b.glb", "c.glb"));
    assert_usage_error(&p, USAGE_ERROR("tool: unexpected argument 'c.glb'"));
    /* No positional at all. */
    const cli_spec none = {.command = &tool};
    p = run(&none, ARGV("stray"));
    assert_usage_error(&p, USAGE_ERROR("tool: unexpected argument 'stray'"));
    p = run(&none, ARGV("-"));
    assert_usage_error(&p, USAGE_ERROR("tool: unexpected argument '-'"));
    /* An optional positional may be left out. */
    const char *maybe = NULL;
    const cli_positional optional[] = {{"FILE", &maybe, NULL}};
    const cli_spec lenient = {.command = &tool, .positionals = optional, .positional_count = 1};
    p = run(&lenient, ARGV("x"));
    assert_went_on(&p);
    p = run(&lenient, (char *[]){"tool", NULL});
    assert_went_on(&p);
}

static void a_required_option_is_asked_for_after_the_positionals(void **state)
{
    (void)state;
    const char *file = NULL, *out = NULL;
    const cli_option opt = {.name = "--out", .alias = "-o", .kind = CLI_STRING, .dest = &out,
                            .required = "where to? (-o out.png)"};
    const cli_positional positional = {"FILE", &file, "which file?"};
    const cli_spec spec = option_and_file(&opt, &positional);
    parsed p = run(&spec, ARGV("--bogus"));
    assert_usage_error(&p, USAGE_ERROR("tool: unknown option '--bogus'"));
    p = run(&spec, (char *[]){"tool", NULL});
    assert_usage_error(&p, USAGE_ERROR("tool: which file?"));
    p = run(&spec, ARGV("a.glb"));
    assert_usage_error(&p, USAGE_ERROR("tool: where to? (-o out.png)"));
    file = NULL;
    p = run(&spec, ARGV("-o", "x.png"));
    assert_usage_error(&p, USAGE_ERROR("tool: which file?"));
}

/* ---- --help --------------------------------------------------------------------------------- */

static void help_prints_the_usage_and_the_text_and_stops(void **state)
{
    (void)state;
    info_like t;
    info_like_init(&t);
    static const char *const asks[][3] = {{"--help", NULL, NULL},
                                          {"-h", NULL, NULL},
                                          {"a.glb", "--help", "--bogus"},
                                          {"--json", "-h", "b.glb"}};
    for (size_t i = 0; i < 4; i++) {
        char *argv[] = {"tool", (char *)asks[i][0], (char *)asks[i][1], (char *)asks[i][2], NULL};
        parsed p = run(&t.spec, argv);
        assert_false(p.go);
        assert_int_equal(p.status, CLI_EXIT_OK);
        assert_string_equal(p.out, "usage: marionette tool FILE [--json] [-o OUT]\n\n"
                                   "What the tool does.\n");
        assert_string_equal(p.err, "");
    }
    /* Asking for help is never a mistake: a wrong option before it, or a bad value, does
       not stop the help. */
    static const char *const after[][2] = {{"--bogus", "--help"}, {"a.glb", "b.glb"}};
    parsed p;
    for (size_t i = 0; i < 2; i++) {
        char *argv[] = {"tool", (char *)after[i][0], (char *)after[i][1], "-h", NULL};
        p = run(&t.spec, argv);
        assert_false(p.go);
        assert_int_equal(p.status, CLI_EXIT_OK);
        assert_string_equal(p.err, "");
        assert_non_null(strstr(p.out, "usage: marionette tool FILE"));
    }

    /* A FILE kind's own text, printed as it is. */
    t.spec.help = "usage: marionette tool HEAD.aosrig [--json]\n";
    p = run(&t.spec, ARGV("x.aosrig", "--help"));
    assert_int_equal(p.status, CLI_EXIT_OK);
    assert_string_equal(p.out, "usage: marionette tool HEAD.aosrig [--json]\n");

    /* A command without a help text: the usage line alone. */
    const cli_command bare = {"bare", "RIG.json [--rest]", NULL, NULL, NULL};
    const cli_spec plain = {.command = &bare};
    p = run(&plain, ARGV("--help"));
    assert_int_equal(p.status, CLI_EXIT_OK);
    assert_string_equal(p.out, "usage: marionette bare RIG.json [--rest]\n");
}

static void errors_of_no_command_point_at_the_overview(void **state)
{
    (void)state;
    capture err = capture_begin(stderr);
    int rc = cli_command_error(NULL, "unknown command '%s'", "frob");
    char text[512];
    capture_end(&err, text, sizeof text);
    assert_int_equal(rc, CLI_EXIT_USAGE);
    assert_string_equal(text, "marionette: unknown command 'frob'\n"
                              "Run 'marionette help' for more.\n");
}

/* ---- choosing the FILE kind ---------------------------------------------------------------- */

/* Two FILE kinds: the info-like tool (--json) and a head that takes --table FILE and
   --fitted INFO BIN. */
static int tool_values(const char *option)
{
    info_like t;
    info_like_init(&t);
    return cli_option_values(&t.spec, option);
}

static int head_values(const char *option)
{
    const char *table = NULL, *fitted[2] = {NULL, NULL};
    const cli_option options[] = {
        {.name = "--table", .kind = CLI_STRING, .dest = &table},
        {.name = "--fitted", .kind = CLI_PAIR, .dest = fitted},
    };
    const cli_spec spec = {.command = &tool, .options = options, .option_count = 2,
                           .reads_model = true};
    return cli_option_values(&spec, option);
}

static void option_values_are_never_taken_for_the_file(void **state)
{
    (void)state;
    static const cli_values_fn kinds[] = {tool_values, head_values};
    char **argv = ARGV("--table", "t.aosrig", "--fitted", "i.json", "b.bin", "a.glb");
    assert_string_equal(cli_the_file(count_args(argv), argv, kinds, 2), "a.glb");
    argv = ARGV("--allow-outside", "x.aosrig", "--json", "m.glb", "--table", "t.json");
    assert_string_equal(cli_the_file(count_args(argv), argv, kinds, 2), "m.glb");
    /* "-" alone is a positional; an option no kind knows takes no value. */
    argv = ARGV("--bogus", "-", "a.glb");
    assert_string_equal(cli_the_file(count_args(argv), argv, kinds, 2), "-");
    argv = ARGV("--json", "--table", "t.aosrig");
    assert_null(cli_the_file(count_args(argv), argv, kinds, 2));
    assert_int_equal(tool_values("--json"), 0);
    assert_int_equal(head_values("--fitted"), 2);
    assert_int_equal(head_values("--allow-outside"), 1);
    assert_int_equal(tool_values("--table"), -1);
}

static void usage_lines_wrap_at_100_columns_outside_brackets(void **state)
{
    (void)state;
    capture out = capture_begin(stdout);
    cli_print_usage(stdout, "render", "FILE [--clip NAME] [--time T | --frames N [--sheet]] "
                                      "[--size WxH] [--yaw DEG --pitch DEG] [--view front|side|top] "
                                      "[--turntable N [--sheet]] -o OUT.png");
    cli_print_usage(stdout, "info", "FILE [--json]");
    char text[1024];
    capture_end(&out, text, sizeof text);
    assert_string_equal(text,
        "usage: marionette render FILE [--clip NAME] [--time T | --frames N [--sheet]] [--size WxH]\n"
        "                         [--yaw DEG --pitch DEG] [--view front|side|top] [--turntable N [--sheet]]\n"
        "                         -o OUT.png\n"
        "usage: marionette info FILE [--json]\n");
}

static void a_count_takes_its_plural_unless_it_is_one(void **state)
{
    (void)state;
    assert_string_equal(cli_noun(1, "mesh", "meshes"), "mesh");
    assert_string_equal(cli_noun(0, "mesh", "meshes"), "meshes");
    assert_string_equal(cli_noun(2, "byte", "bytes"), "bytes");
    assert_string_equal(cli_noun(UINT64_MAX, "vertex", "vertices"), "vertices");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flags_and_aliases_set_their_bools),
        cmocka_unit_test(a_value_is_the_next_argument_whatever_it_looks_like),
        cmocka_unit_test(the_equals_form_is_no_option),
        cmocka_unit_test(a_missing_value_is_named),
        cmocka_unit_test(an_unknown_option_is_named_with_whose_options_they_are),
        cmocka_unit_test(the_shared_table_is_looked_up_too),
        cmocka_unit_test(counts_take_decimal_digits_in_range),
        cmocka_unit_test(floats_are_finite_float_values_within_their_bounds),
        cmocka_unit_test(doubles_keep_double_precision),
        cmocka_unit_test(sizes_are_width_x_height_each_in_range),
        cmocka_unit_test(the_conversions_take_the_whole_text),
        cmocka_unit_test(a_choice_stores_its_value_or_lists_the_choices),
        cmocka_unit_test(a_set_option_and_its_choice_share_a_destination),
        cmocka_unit_test(a_list_keeps_each_value_up_to_its_cap),
        cmocka_unit_test(a_custom_value_is_converted_and_reported_by_its_function),
        cmocka_unit_test(one_file_is_taken_anywhere_and_a_second_refused),
        cmocka_unit_test(several_positionals_in_order_then_no_more),
        cmocka_unit_test(a_required_option_is_asked_for_after_the_positionals),
        cmocka_unit_test(help_prints_the_usage_and_the_text_and_stops),
        cmocka_unit_test(errors_of_no_command_point_at_the_overview),
        cmocka_unit_test(option_values_are_never_taken_for_the_file),
        cmocka_unit_test(usage_lines_wrap_at_100_columns_outside_brackets),
        cmocka_unit_test(a_count_takes_its_plural_unless_it_is_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
