/* flags.h: the command-line flags of the binaries, parsed, checked and described in one place.
 *
 * Each binary lists its own flags in a table of rt_flag: name, value, where the value goes, its
 * range or choices, and its help text. rt_flags_parse runs getopt_long over the table (flags and
 * arguments in any order, "--flag value" or "--flag=value", unambiguous prefixes of long names),
 * checks every value (integers, numbers and durations against their range, choices against their
 * list) and answers --help and --version itself. Every usage error is one line on stderr, of the
 * form "PROG: --FLAG: expected WHAT (got \"VALUE\")", and exits with RT_EXIT_USAGE.
 * rt_flags_usage prints the help from the same table, so that it names every flag parsed. */
#ifndef DAGSCHED_RUNTIME_FLAGS_H
#define DAGSCHED_RUNTIME_FLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The exit status of a usage error (bad flag, bad value, unexpected argument). */
#define RT_EXIT_USAGE 2
/* rt_flags_parse: the flags are set; the program runs. */
#define RT_FLAGS_RUN (-1)
/* Flags a table may hold (--help and --version not counted). */
#define RT_FLAGS_MAX 96

typedef enum {
    RT_FLAG_T_SECTION,  /* no flag: a heading of the help ("Output"); only help is used */
    RT_FLAG_T_STRING,   /* const char **: the value as given ("" allowed) */
    RT_FLAG_T_SET,      /* bool *: set true; takes no value */
    RT_FLAG_T_BOOL,     /* bool *: no value, "true" or "1": true; "false" or "0": false; a value
                         * only as --flag=VALUE */
    RT_FLAG_T_INT,      /* int *: a decimal integer in [ilo, ihi] */
    RT_FLAG_T_SIZE,     /* size_t *: a decimal integer in [ilo, ihi] (ilo >= 0) */
    RT_FLAG_T_DOUBLE,   /* double *: a number in [lo, hi] */
    RT_FLAG_T_DURATION, /* double * (seconds): a duration ("250ms", "15s", "1m30s") in [lo, hi] */
    RT_FLAG_T_CHOICE,   /* int *: the index of the value in choices (NULL-terminated) */
    RT_FLAG_T_FUNC,     /* fn(dest, value, why): the binary's own check and conversion */
} rt_flag_type;

/* An RT_FLAG_T_FUNC conversion: 0, or -1 with what was expected in why ("expected HOST:PORT"):
 * the caller prints "PROG: --FLAG: WHY (got \"VALUE\")". */
typedef int (*rt_flag_fn)(void *dest, const char *value, char *why, size_t why_size);

typedef struct rt_flag {
    const char *name; /* long name without "--" */
    char short_name;  /* 0: none ('n' for -n) */
    rt_flag_type type;
    const char *arg; /* the value's name in the help and in errors ("PATH", "D"); NULL: none */
    void *dest;
    long long ilo, ihi;         /* RT_FLAG_T_INT, RT_FLAG_T_SIZE */
    double lo, hi;              /* RT_FLAG_T_DOUBLE, RT_FLAG_T_DURATION */
    const char *const *choices; /* RT_FLAG_T_CHOICE */
    rt_flag_fn fn;              /* RT_FLAG_T_FUNC */
    bool refused;               /* parsed (its value taken) but refused: not a flag of this
                                 * command ("PROG: --FLAG is not a flag of this command") */
    const char *help;           /* lines after the first are indented to the first's column */
} rt_flag;

/* Table entries; each checks that dest has the type its kind writes (a mismatch does not
 * compile). */
#define RT_FLAG_PTR_(type, p) (1 ? (p) : (type)0)
#define RT_FLAG_SECTION(title)                                                                     \
    {                                                                                              \
        .type = RT_FLAG_T_SECTION, .help = (title)                                                 \
    }
#define RT_FLAG_STRING(n, a, p, h)                                                                 \
    {                                                                                              \
        .name = (n), .type = RT_FLAG_T_STRING, .arg = (a), .dest = RT_FLAG_PTR_(const char **, p), \
        .help = (h)                                                                                \
    }
#define RT_FLAG_SET(n, p, h)                                                                       \
    {                                                                                              \
        .name = (n), .type = RT_FLAG_T_SET, .dest = RT_FLAG_PTR_(bool *, p), .help = (h)           \
    }
#define RT_FLAG_BOOL(n, p, h)                                                                      \
    {                                                                                              \
        .name = (n), .type = RT_FLAG_T_BOOL, .arg = "BOOL", .dest = RT_FLAG_PTR_(bool *, p),       \
        .help = (h)                                                                                \
    }
#define RT_FLAG_INT(n, a, p, min, max, h)                                                          \
    {                                                                                              \
        .name = (n), .type = RT_FLAG_T_INT, .arg = (a), .dest = RT_FLAG_PTR_(int *, p),            \
        .ilo = (min), .ihi = (max), .help = (h)                                                    \
    }
#define RT_FLAG_SIZE(n, a, p, min, max, h)                                                         \
    {                                                                                              \
        .name = (n), .type = RT_FLAG_T_SIZE, .arg = (a), .dest = RT_FLAG_PTR_(size_t *, p),        \
        .ilo = (min), .ihi = (max), .help = (h)                                                    \
    }
#define RT_FLAG_DOUBLE(n, a, p, min, max, h)                                                       \
    {                                                                                              \
        .name = (n), .type = RT_FLAG_T_DOUBLE, .arg = (a), .dest = RT_FLAG_PTR_(double *, p),      \
        .lo = (min), .hi = (max), .help = (h)                                                      \
    }
#define RT_FLAG_DURATION(n, p, min, max, h)                                                        \
    {                                                                                              \
        .name = (n), .type = RT_FLAG_T_DURATION, .arg = "D", .dest = RT_FLAG_PTR_(double *, p),    \
        .lo = (min), .hi = (max), .help = (h)                                                      \
    }
#define RT_FLAG_CHOICE(n, a, p, list, h)                                                           \
    {                                                                                              \
        .name = (n), .type = RT_FLAG_T_CHOICE, .arg = (a), .dest = RT_FLAG_PTR_(int *, p),         \
        .choices = (list), .help = (h)                                                             \
    }
#define RT_FLAG_FUNC(n, a, f, p, h)                                                                \
    {                                                                                              \
        .name = (n), .type = RT_FLAG_T_FUNC, .arg = (a), .fn = (f), .dest = (p), .help = (h)       \
    }

/* The table of an rt_flags, an array: .flags and .n_flags. */
#define RT_FLAGS_TABLE(table) .flags = (table), .n_flags = sizeof(table) / sizeof((table)[0])

/* A command: its table and what its help says around it. */
typedef struct rt_flags {
    const char *prog;    /* in every message: "dagsched-controller uninstall" */
    const char *usage;   /* the help's opening: usage lines, what the command does ("\n" ends) */
    const char *version; /* the line --version prints; NULL: no --version */
    const rt_flag *flags;
    size_t n_flags;
    bool arguments; /* arguments other than flags are allowed; else each is a usage error */
    FILE *out;      /* --help and --version; NULL: stdout */
    FILE *err;      /* errors; NULL: stderr */
} rt_flags;

/* Parse argv[1..] (argv[0] is the command). RT_FLAGS_RUN when the program runs with the flags
 * set, *first (may be NULL) the index of the first argument other than a flag (getopt moves them
 * to the end, in order); else the program's exit status: 0 after --help or --version, or
 * RT_EXIT_USAGE after a usage error (its message printed). Flags not given keep their dest's
 * value: set the defaults first. */
int rt_flags_parse(const rt_flags *spec, int argc, char **argv, int *first);

/* The help: spec->usage, then one line per flag ("  -n, --namespace NS   help"; refused ones
 * left out) and per section, --help and --version last. */
void rt_flags_usage(const rt_flags *spec, FILE *f);

/* A usage error found once the flags are parsed (flags that exclude each other...): prints
 * "PROG: MESSAGE" and returns RT_EXIT_USAGE. */
int rt_flags_error(const rt_flags *spec, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
