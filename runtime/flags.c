/* flags.c: the command-line flags layer of the binaries (see flags.h). */
#include "flags.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "timefmt.h"

/* getopt_long values: a table entry is OPT_BASE + its index; help and version after them. */
enum { OPT_BASE = 1000, OPT_HELP = OPT_BASE + RT_FLAGS_MAX, OPT_VERSION };

#define WHY_MAX   256
#define GOT_MAX   128 /* bytes of a bad value quoted in a message */
#define LABEL_MAX 40  /* the widest label that sets the help's column */
#define HELP_TEXT "print this help and exit"
#define VER_TEXT  "print the version and exit"

static FILE *err_of(const rt_flags *spec)
{
    return spec->err != NULL ? spec->err : stderr;
}

static int has_arg(rt_flag_type t)
{
    if (t == RT_FLAG_T_SET)
        return no_argument;
    return t == RT_FLAG_T_BOOL ? optional_argument : required_argument;
}

/* A value with no leading space, sign aside, and something in it: what strtoll and strtod are
 * given (they would skip leading spaces). */
static bool plain_number(const char *v)
{
    return v[0] != '\0' && !isspace((unsigned char)v[0]);
}

static int set_integer(const rt_flag *fl, const char *v, char *why)
{
    char *end;
    errno = 0;
    long long x = plain_number(v) ? strtoll(v, &end, 10) : 0;
    if (!plain_number(v) || errno != 0 || *end != '\0' || x < fl->ilo || x > fl->ihi) {
        snprintf(why, WHY_MAX, "expected an integer in %lld..%lld", fl->ilo, fl->ihi);
        return -1;
    }
    if (fl->type == RT_FLAG_T_INT)
        *(int *)fl->dest = (int)x;
    else
        *(size_t *)fl->dest = (size_t)x;
    return 0;
}

static int set_double(const rt_flag *fl, const char *v, char *why)
{
    char *end;
    double x = plain_number(v) ? strtod(v, &end) : 0;
    if (!plain_number(v) || *end != '\0' || !(x >= fl->lo && x <= fl->hi)) {
        snprintf(why, WHY_MAX, "expected a number in %g..%g", fl->lo, fl->hi);
        return -1;
    }
    *(double *)fl->dest = x;
    return 0;
}

static int set_duration(const rt_flag *fl, const char *v, char *why)
{
    double x;
    ds_err derr = {{0}};
    if (ds_duration_parse(v, &x, &derr) != 0 || !(x >= fl->lo && x <= fl->hi)) {
        char lo[32], hi[32];
        ds_duration_format(fl->lo, lo, sizeof lo);
        ds_duration_format(fl->hi, hi, sizeof hi);
        snprintf(why, WHY_MAX, "expected a duration in %s..%s, such as 30s or 1m30s", lo, hi);
        return -1;
    }
    *(double *)fl->dest = x;
    return 0;
}

/* "expected a, b or c". */
static int set_choice(const rt_flag *fl, const char *v, char *why)
{
    size_t n = 0;
    while (fl->choices[n] != NULL)
        n++;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v, fl->choices[i]) == 0) {
            *(int *)fl->dest = (int)i;
            return 0;
        }
    }
    size_t len = (size_t)snprintf(why, WHY_MAX, "expected");
    for (size_t i = 0; i < n && len < WHY_MAX; i++)
        len += (size_t)snprintf(why + len, WHY_MAX - len, "%s %s",
                                i == 0 ? "" : (i + 1 == n ? " or" : ","), fl->choices[i]);
    return -1;
}

static int set_value(const rt_flag *fl, const char *v, char *why)
{
    switch (fl->type) {
    case RT_FLAG_T_STRING:
        *(const char **)fl->dest = v;
        return 0;
    case RT_FLAG_T_SET:
        *(bool *)fl->dest = true;
        return 0;
    case RT_FLAG_T_BOOL:
        if (v == NULL || strcmp(v, "true") == 0 || strcmp(v, "1") == 0) {
            *(bool *)fl->dest = true;
            return 0;
        }
        if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0) {
            *(bool *)fl->dest = false;
            return 0;
        }
        snprintf(why, WHY_MAX, "expected true or false");
        return -1;
    case RT_FLAG_T_INT:
    case RT_FLAG_T_SIZE:
        return set_integer(fl, v, why);
    case RT_FLAG_T_DOUBLE:
        return set_double(fl, v, why);
    case RT_FLAG_T_DURATION:
        return set_duration(fl, v, why);
    case RT_FLAG_T_CHOICE:
        return set_choice(fl, v, why);
    case RT_FLAG_T_FUNC:
        why[0] = '\0';
        if (fl->fn(fl->dest, v, why, WHY_MAX) == 0)
            return 0;
        if (why[0] == '\0')
            snprintf(why, WHY_MAX, "expected %s", fl->arg != NULL ? fl->arg : "a valid value");
        return -1;
    case RT_FLAG_T_SECTION:
        break;
    }
    snprintf(why, WHY_MAX, "not a flag");
    return -1;
}

/* The table entry of a short flag; NULL when none. */
static const rt_flag *by_short(const rt_flags *spec, int c)
{
    for (size_t i = 0; i < spec->n_flags; i++)
        if (c != 0 && spec->flags[i].type != RT_FLAG_T_SECTION && spec->flags[i].short_name == c)
            return &spec->flags[i];
    return NULL;
}

/* The entry of a getopt value (OPT_BASE + index, or a short name); NULL when none. */
static const rt_flag *by_value(const rt_flags *spec, int c)
{
    if (c >= OPT_BASE && (size_t)(c - OPT_BASE) < spec->n_flags)
        return &spec->flags[c - OPT_BASE];
    return by_short(spec, c);
}

/* "--name", or "-n" when given by its short name (as getopt reports: no long index). */
static void shown_name(const rt_flag *fl, bool long_form, char *buf, size_t size)
{
    if (long_form || fl->short_name == 0)
        snprintf(buf, size, "--%s", fl->name);
    else
        snprintf(buf, size, "-%c", fl->short_name);
}

/* An option getopt refused ('?'): an unknown flag, or a value given to one that takes none. */
static int refused_option(const rt_flags *spec, int argc, char **argv)
{
    FILE *err = err_of(spec);
    char name[80];
    if (optopt == OPT_HELP || optopt == OPT_VERSION) {
        fprintf(err, "%s: --%s: takes no value\n", spec->prog,
                optopt == OPT_HELP ? "help" : "version");
        return RT_EXIT_USAGE;
    }
    const rt_flag *fl = optopt != 0 ? by_value(spec, optopt) : NULL;
    if (fl != NULL) {
        shown_name(fl, optopt >= OPT_BASE, name, sizeof name);
        fprintf(err, "%s: %s: takes no value\n", spec->prog, name);
    } else if (optopt != 0) {
        fprintf(err, "%s: unknown flag -%c (see --help)\n", spec->prog, optopt);
    } else {
        const char *a = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
        fprintf(err, "%s: unknown flag %.*s (see --help)\n", spec->prog, (int)strcspn(a, "="), a);
    }
    return RT_EXIT_USAGE;
}

int rt_flags_parse(const rt_flags *spec, int argc, char **argv, int *first)
{
    FILE *err = err_of(spec);
    if (spec->n_flags > RT_FLAGS_MAX) {
        fprintf(err, "%s: more than %d flags in its table\n", spec->prog, RT_FLAGS_MAX);
        return RT_EXIT_USAGE;
    }
    struct option opts[RT_FLAGS_MAX + 3];
    char shorts[3 * RT_FLAGS_MAX + 2];
    size_t no = 0, ns = 0;
    shorts[ns++] = ':'; /* a missing value returns ':' */
    for (size_t i = 0; i < spec->n_flags; i++) {
        const rt_flag *fl = &spec->flags[i];
        if (fl->type == RT_FLAG_T_SECTION)
            continue;
        opts[no++] = (struct option){fl->name, has_arg(fl->type), NULL, OPT_BASE + (int)i};
        if (fl->short_name != 0) {
            shorts[ns++] = fl->short_name;
            if (has_arg(fl->type) != no_argument)
                shorts[ns++] = ':';
            if (has_arg(fl->type) == optional_argument)
                shorts[ns++] = ':';
        }
    }
    opts[no++] = (struct option){"help", no_argument, NULL, OPT_HELP};
    if (spec->version != NULL)
        opts[no++] = (struct option){"version", no_argument, NULL, OPT_VERSION};
    opts[no] = (struct option){NULL, 0, NULL, 0};
    shorts[ns] = '\0';

    opterr = 0;
    optind = 0; /* 0: getopt starts over (a command may parse several argv in one process) */
    for (;;) {
        int li = -1;
        int c = getopt_long(argc, argv, shorts, opts, &li);
        if (c == -1)
            break;
        FILE *out = spec->out != NULL ? spec->out : stdout;
        if (c == OPT_HELP) {
            rt_flags_usage(spec, out);
            return 0;
        }
        if (c == OPT_VERSION) {
            fprintf(out, "%s\n", spec->version);
            return 0;
        }
        if (c == '?')
            return refused_option(spec, argc, argv);
        char name[80];
        if (c == ':') {
            const rt_flag *fl = by_value(spec, optopt);
            if (fl == NULL) /* cannot happen: getopt names one of the table's flags */
                return rt_flags_error(spec, "a flag without its value (see --help)");
            shown_name(fl, optopt >= OPT_BASE, name, sizeof name);
            fprintf(err, "%s: %s: expected %s (got nothing)\n", spec->prog, name, fl->arg);
            return RT_EXIT_USAGE;
        }
        const rt_flag *fl = by_value(spec, c);
        if (fl == NULL)
            return rt_flags_error(spec, "unknown flag (see --help)");
        shown_name(fl, li >= 0, name, sizeof name);
        if (fl->refused) {
            fprintf(err, "%s: %s is not a flag of this command\n", spec->prog, name);
            return RT_EXIT_USAGE;
        }
        char why[WHY_MAX];
        if (set_value(fl, optarg, why) != 0) {
            fprintf(err, "%s: %s: %s (got \"%.*s\")\n", spec->prog, name, why, GOT_MAX,
                    optarg != NULL ? optarg : "");
            return RT_EXIT_USAGE;
        }
    }
    if (!spec->arguments && optind < argc) {
        fprintf(err, "%s: unexpected argument \"%.*s\" (see --help)\n", spec->prog, GOT_MAX,
                argv[optind]);
        return RT_EXIT_USAGE;
    }
    if (first != NULL)
        *first = optind;
    return RT_FLAGS_RUN;
}

/* "  -n, --namespace NS" (long-only flags of a table with short names are aligned after "    "). */
static size_t label_of(const rt_flag *fl, bool shorts, char *buf, size_t size)
{
    char lead[8] = "";
    if (fl->short_name != 0)
        snprintf(lead, sizeof lead, "-%c, ", fl->short_name);
    else if (shorts)
        snprintf(lead, sizeof lead, "    ");
    const char *open = fl->arg == NULL ? "" : (fl->type == RT_FLAG_T_BOOL ? "[=" : " ");
    const char *close = fl->arg != NULL && fl->type == RT_FLAG_T_BOOL ? "]" : "";
    snprintf(buf, size, "  %s--%s%s%s%s", lead, fl->name, open, fl->arg != NULL ? fl->arg : "",
             close);
    return strlen(buf);
}

static void print_entry(FILE *f, const char *label, size_t len, const char *help, size_t col)
{
    fputs(label, f);
    if (help == NULL || help[0] == '\0') {
        fputc('\n', f);
        return;
    }
    if (len + 2 > col)
        fprintf(f, "\n%*s", (int)col, "");
    else
        fprintf(f, "%*s", (int)(col - len), "");
    for (const char *p = help; *p != '\0';) {
        size_t line = strcspn(p, "\n");
        fprintf(f, "%.*s\n", (int)line, p);
        p += line;
        if (*p == '\n' && *++p != '\0')
            fprintf(f, "%*s", (int)col, "");
    }
}

void rt_flags_usage(const rt_flags *spec, FILE *f)
{
    bool shorts = false;
    size_t widest = 0;
    char label[160];
    for (size_t i = 0; i < spec->n_flags; i++)
        shorts = shorts || (spec->flags[i].type != RT_FLAG_T_SECTION && !spec->flags[i].refused &&
                            spec->flags[i].short_name != 0);
    for (size_t i = 0; i < spec->n_flags; i++) {
        if (spec->flags[i].type == RT_FLAG_T_SECTION || spec->flags[i].refused)
            continue;
        size_t len = label_of(&spec->flags[i], shorts, label, sizeof label);
        if (len > widest && len <= LABEL_MAX)
            widest = len;
    }
    size_t col = widest + 2;
    if (spec->usage != NULL)
        fputs(spec->usage, f);
    if (spec->n_flags == 0 || spec->flags[0].type != RT_FLAG_T_SECTION)
        fprintf(f, "\nFlags:\n");
    for (size_t i = 0; i < spec->n_flags; i++) {
        const rt_flag *fl = &spec->flags[i];
        if (fl->type == RT_FLAG_T_SECTION) {
            fprintf(f, "\n%s:\n", fl->help);
            continue;
        }
        if (fl->refused)
            continue;
        size_t len = label_of(fl, shorts, label, sizeof label);
        print_entry(f, label, len, fl->help, col);
    }
    snprintf(label, sizeof label, "  %s--help", shorts ? "    " : "");
    print_entry(f, label, strlen(label), HELP_TEXT, col);
    if (spec->version != NULL) {
        snprintf(label, sizeof label, "  %s--version", shorts ? "    " : "");
        print_entry(f, label, strlen(label), VER_TEXT, col);
    }
}

int rt_flags_error(const rt_flags *spec, const char *fmt, ...)
{
    FILE *err = err_of(spec);
    va_list ap;
    va_start(ap, fmt);
    fprintf(err, "%s: ", spec->prog);
    vfprintf(err, fmt, ap);
    fputc('\n', err);
    va_end(ap);
    return RT_EXIT_USAGE;
}
