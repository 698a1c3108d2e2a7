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
    CLI_F_ALL_NS = 1u << 0, /* -A */
    CLI_F_OUTPUT = 1u << 1, /* -o wide|json */
    CLI_F_SVG = 1u << 2,    /* --svg FILE */
    CLI_F_WIDTH = 1u << 3,  /* --width N (20..400) */
    CLI_F_POLICY = 1u << 4, /* --policy-namespace NS, --policy-name NAME */
};

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

/* The common flags' lines of the usage text. */
void cli_view_flags_usage(FILE *f);

#endif
