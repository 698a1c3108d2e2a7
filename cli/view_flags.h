/* view_flags.h: the flags of the kubectl-dagsched commands that read the cluster (get, describe,
 * gantt, explain, policy apply), parsed in one place: --kubeconfig, --context, -n/--namespace,
 * --request-timeout, and per command --policy-namespace, --policy-name, -A/--all-namespaces,
 * -o/--output, --svg FILE, --width N. Flags and arguments may come in any order. */
#ifndef DAGSCHED_CLI_VIEW_FLAGS_H
#define DAGSCHED_CLI_VIEW_FLAGS_H

#include "cluster_view.h"
#include "flags.h"

typedef enum { CLI_OUT_TABLE = 0, CLI_OUT_WIDE, CLI_OUT_JSON } cli_out_fmt;

enum {
    CLI_F_ALL_NS = 1u << 0,  /* -A */
    CLI_F_OUTPUT = 1u << 1,  /* -o wide|json */
    CLI_F_SVG = 1u << 2,     /* --svg FILE */
    CLI_F_WIDTH = 1u << 3,   /* --width N (20..400) */
    CLI_F_POLICY = 1u << 4,  /* --policy-namespace NS, --policy-name NAME */
    CLI_F_WIDE = 1u << 5,    /* with CLI_F_OUTPUT: -o wide as well as -o json */
    CLI_F_OFFLINE = 1u << 6, /* no cluster: --kubeconfig, --context, --request-timeout refused */
    CLI_F_NS_SYSTEM =
        1u << 7, /* -n defaults to dagsched-system (the caller's), not the context's */
};

#define CLI_VIEW_FLAGS_MAX 10

/* The flags each command takes: its parser and shell completion read these. */
#define CLI_FLAGS_GET              (CLI_F_POLICY | CLI_F_OUTPUT | CLI_F_WIDE | CLI_F_ALL_NS)
#define CLI_FLAGS_DESCRIBE         (CLI_F_POLICY | CLI_F_OUTPUT)
#define CLI_FLAGS_EXPLAIN          (CLI_F_POLICY | CLI_F_OUTPUT)
#define CLI_FLAGS_GANTT            (CLI_F_SVG | CLI_F_WIDTH | CLI_F_POLICY)
#define CLI_FLAGS_POLICY_APPLY     CLI_F_NS_SYSTEM
#define CLI_FLAGS_POLICY_CONFIGMAP (CLI_F_OFFLINE | CLI_F_NS_SYSTEM)

typedef struct cli_flags {
    cli_view_opts v;
    cli_out_fmt out;
    const char *svg; /* NULL: none */
    int width;       /* default 60 */
} cli_flags;

/* Parse argv[1..] (argv[0] is the verb) with the flags layer (runtime/flags.h). `allowed` is a
 * set of CLI_F_*; the others are refused with a message on stderr. `usage` opens the help that
 * --help prints (the command's usage line). RT_FLAGS_RUN with *first the index of the first
 * positional argument (getopt moves them to the end); else the exit status: 0 after --help,
 * RT_EXIT_USAGE after a bad flag (its message printed). */
int cli_parse_view_flags(int argc, char **argv, unsigned allowed, const char *usage, cli_flags *f,
                         int *first);

/* The flags table of a command allowing `allowed` (CLI_F_*), its values going to f and *out (the
 * index of -o's value in table[4].choices, -1 when not given): the one description of these
 * flags, which the parser and shell completion read. table holds CLI_VIEW_FLAGS_MAX entries; the
 * flags the command does not take are marked refused. Returns the number of entries. */
size_t cli_view_flag_table(unsigned allowed, cli_flags *f, int *out, rt_flag *table);

/* The common flags' lines of the usage text. */
void cli_view_flags_usage(FILE *f);

#endif
