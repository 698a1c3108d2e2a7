/* policy_cmd.h: the `policy` commands of kubectl-dagsched (validate a SchedulingPolicy file, wrap
 * it into the ConfigMap the components watch, apply that ConfigMap to the cluster). */
#ifndef DAGSCHED_CLI_POLICY_CMD_H
#define DAGSCHED_CLI_POLICY_CMD_H

#include <stdio.h>

/* argv[0] is the subcommand ("validate", "configmap", "apply"). Returns the process exit code:
 * 0 done, 1 a file is invalid or unreadable or the API server refused the change, 2 bad usage. */
int policy_cmd(int argc, char **argv);

/* The policy commands' lines of the usage text. */
void policy_cmd_usage(FILE *f);

#endif
