/*
 * The command-line parser every `marionette` command uses (cli.h says how a
 * command declares what it takes), the checked number conversions behind
 * it, and the one way a wrong command line is reported.  It depends on the
 * C library only, so tests/test_cli_args.c drives it over tables of its own.
 */
#include "cli.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers ------------------------------------------------------------------------------ */

bool cli_parse_double(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(d))
        return false;
    *out = d;
    return true;
}

bool cli_parse_float(const char *s, float *out)
{
    double d;
    /* A value past float range is as wrong as "abc": it would become infinity. */
    if (!cli_parse_double(s, &d) || fabs(d) > FLT_MAX)
        return false;
    *out = (float)d;
    return true;
}

bool cli_parse_float_span(const char *s, size_t n, float *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return cli_parse_float(buf, out);
}

bool cli_parse_uint(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
    if (*s < '0' || *s > '9')
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > max)   /* max fits 32 bits, so v never wraps */
            return false;
    }
    if (v < min)
        return false;
    *out = (uint32_t)v;
    return true;
}

bool cli_parse_size(const char *s, uint32_t min, uint32_t max, cli_size *out)
{
    char buf[32];
    const char *x = strchr(s, 'x');
    if (!x || (size_t)(x - s) >= sizeof buf)
        return false;
    memcpy(buf, s, (size_t)(x - s));
    buf[x - s] = '\0';
    cli_size size;
    if (!cli_parse_uint(buf, min, max, &size.width) ||
        !cli_parse_uint(x + 1, min, max, &size.height))
        return false;
    *out = size;
    return true;
}

/* ---- reporting ---------------------------------------------------------------------------- */

/* Where a usage line breaks: the last blank at or before `limit` outside brackets, else the
   last blank at all; 0 when there is none. */
static size_t usage_break(const char *s, size_t limit)
{
    size_t outside = 0, any = 0;
    int depth = 0;
    for (size_t i = 0; s[i] && i <= limit; i++) {
        if (s[i] == '[' || s[i] == '(')
            depth++;
        else if ((s[i] == ']' || s[i] == ')') && depth > 0)
            depth--;
        else if (s[i] == ' ') {
            any = i;
            if (depth == 0)
                outside = i;
        }
    }
    return outside ? outside : any;
}

void cli_put_wrapped(FILE *out, const char *text, size_t at, size_t indent)
{
    const char *s = text;
    size_t room = at < CLI_HELP_COLUMNS ? CLI_HELP_COLUMNS - at : 1;
    while (strlen(s) > room) {
        size_t cut = usage_break(s, room);
        if (cut == 0)
            break;   /* one word wider than the room: it stands whole */
        fprintf(out, "%.*s\n%*s", (int)cut, s, (int)indent, "");
        s += cut + 1;
        room = indent < CLI_HELP_COLUMNS ? CLI_HELP_COLUMNS - indent : 1;
    }
    fprintf(out, "%s\n", s);
}

void cli_print_usage(FILE *out, const char *name, const char *args)
{
    int lead = fprintf(out, "usage: marionette %s ", name);
    size_t at = lead > 0 ? (size_t)lead : 0;
    /* Continuation lines start under ARGS, unless that leaves too little room. */
    cli_put_wrapped(out, args, at, at < CLI_HELP_COLUMNS - 40 ? at : 8);
}

int cli_command_verror(const cli_command *cmd, const char *fmt, va_list ap)
{
    fputs("marionette: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    if (cmd)
        cli_print_usage(stderr, cmd->name, cmd->args);
    fprintf(stderr, "Run 'marionette help%s%s' for more.\n", cmd ? " " : "", cmd ? cmd->name : "");
    return CLI_EXIT_USAGE;
}

int cli_command_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = cli_command_verror(cmd, fmt, ap);
    va_end(ap);
    return rc;
}

/* The phrase a value must fit, when the option gives none: "a count from 1 to 64". */
static const char *value_phrase(const cli_option *opt, char *buf, size_t size)
{
    if (opt->help)
        return opt->help;
    if (opt->kind == CLI_UINT)
        snprintf(buf, size, "a count from %.0f to %.0f", opt->min, opt->max);
    else if (opt->kind == CLI_SIZE)
        snprintf(buf, size, "WIDTHxHEIGHT (%.0f to %.0f each)", opt->min, opt->max);
    else
        snprintf(buf, size, "a finite number");
    return buf;
}

int cli_bad_value(const cli_spec *spec, const cli_option *opt, const char *option,
                  const char *value)
{
    char phrase[64];
    return cli_command_error(spec->command, "%s: %s: '%s' is not %s", spec->command->name, option,
                             value, value_phrase(opt, phrase, sizeof phrase));
}

/* "--view takes front, side, top or orbit, not 'x'". */
static int bad_choice(const cli_spec *spec, const char *option, const cli_choice *choices,
                      const char *value)
{
    char list[256];
    size_t n = 0;
    for (const cli_choice *c = choices; c->name && n < sizeof list; c++) {
        const char *sep = c == choices ? "" : c[1].name ? ", " : " or ";
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", sep, c->name);
    }
    return cli_command_error(spec->command, "%s: %s takes %s, not '%s'", spec->command->name,
                             option, list, value);
}

/* ---- one option ----------------------------------------------------------------------------- */

static const cli_option *find_in(const cli_option *options, size_t count, const char *arg)
{
    for (size_t i = 0; i < count; i++) {
        const cli_option *o = &options[i];
        if (strcmp(arg, o->name) == 0 || (o->alias && strcmp(arg, o->alias) == 0))
            return o;
    }
    return NULL;
}

const char *cli_allow_outside;

/* What every command that reads a model takes (spec.reads_model). */
static const cli_option model_options[] = {
    {"--allow-outside", NULL, CLI_STRING, &cli_allow_outside, .needs = "a folder"},
};

static const cli_option *find_option(const cli_spec *spec, const char *arg)
{
    if (spec->reads_model) {
        const cli_option *m = find_in(model_options, CLI_COUNT(model_options), arg);
        if (m)
            return m;
    }
    const cli_option *o = find_in(spec->options, spec->option_count, arg);
    return o ? o : find_in(spec->shared, spec->shared_count, arg);
}

static int values_taken(cli_kind kind)
{
    return kind == CLI_FLAG || kind == CLI_SET ? 0 : kind == CLI_PAIR ? 2 : 1;
}

static bool within(const cli_option *opt, double v)
{
    unsigned b = opt->bounds;
    return !((b & CLI_ABOVE) && !(v > opt->min)) && !((b & CLI_AT_LEAST) && !(v >= opt->min)) &&
           !((b & CLI_BELOW) && !(v < opt->max)) && !((b & CLI_AT_MOST) && !(v <= opt->max));
}

static int take_choice(const cli_spec *spec, const cli_option *opt, const char *option,
                       const char *value)
{
    for (const cli_choice *c = opt->choices; c->name; c++)
        if (strcmp(value, c->name) == 0) {
            *(int *)opt->dest = c->value;
            return CLI_EXIT_OK;
        }
    return bad_choice(spec, option, opt->choices, value);
}

static int take_list(const cli_spec *spec, const cli_option *opt, const char *option,
                     const char *value)
{
    cli_list *list = opt->dest;
    if (list->count == list->cap)
        return cli_command_error(spec->command, "%s: more than %u %s options", spec->command->name,
                                 list->cap, option);
    list->items[list->count++] = value;
    return CLI_EXIT_OK;
}

/* The option `option` (as spelled) with its values v[0..]: stored, or reported. */
static int take(const cli_spec *spec, const cli_option *opt, const char *option, char **v)
{
    bool ok = true;
    switch (opt->kind) {
    case CLI_FLAG: *(bool *)opt->dest = true; break;
    case CLI_SET: *(int *)opt->dest = opt->value; break;
    case CLI_STRING: *(const char **)opt->dest = v[0]; break;
    case CLI_PAIR:
        ((const char **)opt->dest)[0] = v[0];
        ((const char **)opt->dest)[1] = v[1];
        break;
    case CLI_UINT:
        ok = cli_parse_uint(v[0], (uint32_t)opt->min, (uint32_t)opt->max, opt->dest);
        break;
    case CLI_FLOAT: {
        float f;
        ok = cli_parse_float(v[0], &f) && within(opt, f);
        if (ok)
            *(float *)opt->dest = f;
        break;
    }
    case CLI_DOUBLE: {
        double d;
        ok = cli_parse_double(v[0], &d) && within(opt, d);
        if (ok)
            *(double *)opt->dest = d;
        break;
    }
    case CLI_SIZE:
        ok = cli_parse_size(v[0], (uint32_t)opt->min, (uint32_t)opt->max, opt->dest);
        break;
    case CLI_CHOICE: return take_choice(spec, opt, option, v[0]);
    case CLI_LIST: return take_list(spec, opt, option, v[0]);
    case CLI_CUSTOM: return opt->convert(spec, opt, option, v[0]);
    }
    return ok ? CLI_EXIT_OK : cli_bad_value(spec, opt, option, v[0]);
}

/* ---- the walk ------------------------------------------------------------------------------- */

static void print_help(const cli_spec *spec)
{
    const cli_command *cmd = spec->command;
    if (spec->help) {
        fputs(spec->help, stdout);
        return;
    }
    cli_print_usage(stdout, cmd->name, cmd->args);
    if (cmd->help)
        printf("\n%s", cmd->help);
}

static int option_at(const cli_spec *spec, int argc, char **argv, int *i)
{
    const char *arg = argv[*i], *name = spec->command->name;
    const cli_option *opt = find_option(spec, arg);
    if (!opt)
        return cli_command_error(spec->command, "%s: unknown option '%s'%s%s", name, arg,
                                 spec->options_of ? " for " : "",
                                 spec->options_of ? spec->options_of : "");
    int n = values_taken(opt->kind);
    if (*i + n >= argc)
        return cli_command_error(spec->command, "%s: %s needs %s", name, arg,
                                 opt->needs ? opt->needs : "a value");
    int rc = take(spec, opt, arg, argv + *i + 1);
    if (rc == CLI_EXIT_OK && opt->given)
        *opt->given = true;
    *i += n;
    return rc;
}

static int positional_at(const cli_spec *spec, const char *arg, size_t *taken)
{
    const char *name = spec->command->name;
    if (*taken < spec->positional_count) {
        *spec->positionals[(*taken)++].dest = arg;
        return CLI_EXIT_OK;
    }
    if (spec->positional_count == 1)
        return cli_command_error(spec->command, "%s: one %s at a time ('%s' and '%s')", name,
                                 spec->positionals[0].name, *spec->positionals[0].dest, arg);
    return cli_command_error(spec->command, "%s: unexpected argument '%s'", name, arg);
}

static int check_required(const cli_spec *spec, const cli_option *options, size_t count)
{
    for (size_t k = 0; k < count; k++)
        if (options[k].required && !*(const char **)options[k].dest)
            return cli_command_error(spec->command, "%s: %s", spec->command->name,
                                     options[k].required);
    return CLI_EXIT_OK;
}

static int check_missing(const cli_spec *spec)
{
    for (size_t k = 0; k < spec->positional_count; k++) {
        const cli_positional *p = &spec->positionals[k];
        if (p->missing && !*p->dest)
            return cli_command_error(spec->command, "%s: %s", spec->command->name, p->missing);
    }
    int rc = check_required(spec, spec->options, spec->option_count);
    return rc != CLI_EXIT_OK ? rc : check_required(spec, spec->shared, spec->shared_count);
}

static bool is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

bool cli_parse_args(const cli_spec *spec, int argc, char **argv, int *status)
{
    /* Asking for help is never a mistake, whatever else the line holds; an option's value
       that reads "--help" (--clip --help) is a value still. */
    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            print_help(spec);
            *status = CLI_EXIT_OK;
            return false;
        }
        const cli_option *opt = argv[i][0] == '-' ? find_option(spec, argv[i]) : NULL;
        i += opt ? values_taken(opt->kind) : 0;
    }
    size_t taken = 0;
    int rc = CLI_EXIT_OK;
    for (int i = 1; i < argc && rc == CLI_EXIT_OK; i++) {
        const char *arg = argv[i];
        rc = arg[0] == '-' && arg[1] != '\0' ? option_at(spec, argc, argv, &i)
                                             : positional_at(spec, arg, &taken);
    }
    if (rc == CLI_EXIT_OK)
        rc = check_missing(spec);
    *status = rc;
    return rc == CLI_EXIT_OK;
}

int cli_option_values(const cli_spec *spec, const char *option)
{
    const cli_option *opt = find_option(spec, option);
    return opt ? values_taken(opt->kind) : -1;
}

const char *cli_the_file(int argc, char **argv, const cli_values_fn *kinds, size_t kind_count)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0')
            return arg;
        int n = -1;
        for (size_t k = 0; k < kind_count && n < 0; k++)
            n = kinds[k](arg);
        i += n > 0 ? n : 0;   /* an option no kind has takes none: the parse reports it */
    }
    return NULL;
}
