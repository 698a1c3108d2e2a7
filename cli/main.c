/* main.c: kubectl-dagsched, the kubectl plugin of dagsched (`kubectl dagsched ...` once the binary
 * is on PATH). It calls the same core library as the extender and the controller, so what it says
 * is what they compute. */
#include <stdio.h>
#include <string.h>

#include "complete.h"
#include "explain_cmd.h"
#include "gantt_cmd.h"
#include "jobs_cmd.h"
#include "view_flags.h"
#include "policy_cmd.h"
#include "term.h"
#include "version_cmd.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: kubectl dagsched COMMAND ...\n\ncommands:\n");
    jobs_cmd_usage(f);
    gantt_cmd_usage(f);
    explain_cmd_usage(f);
    cli_view_flags_usage(f);
    policy_cmd_usage(f);
    completion_cmd_usage(f);
    version_cmd_usage(f);
    fprintf(f, "  help                          this text\n\n"
               "exit codes: 0 done, 1 invalid input or failure, 2 bad usage\n");
}

int main(int argc, char **argv)
{
    /* Every byte printed passes the terminal filter (term.h): text from the cluster cannot drive
     * the operator's terminal. */
    if (cli_term_install() != 0) {
        fprintf(stderr, "kubectl-dagsched: cannot set up its output filter\n");
        return 1;
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0)
        return version_cmd(argc - 1, argv + 1);
    if (strcmp(cmd, "get") == 0 || strcmp(cmd, "describe") == 0)
        return jobs_cmd(argc - 1, argv + 1);
    if (strcmp(cmd, "gantt") == 0)
        return gantt_cmd(argc - 1, argv + 1);
    if (strcmp(cmd, "explain") == 0)
        return explain_cmd(argc - 1, argv + 1);
    if (strcmp(cmd, "policy") == 0)
        return policy_cmd(argc - 2, argv + 2);
    if (strcmp(cmd, "completion") == 0)
        return completion_cmd(argc - 1, argv + 1);
    if (strcmp(cmd, "__complete") == 0)
        return complete_cmd(argc - 1, argv + 1);
    fprintf(stderr, "kubectl-dagsched: unknown command \"%s\"\n", cmd);
    usage(stderr);
    return 2;
}
