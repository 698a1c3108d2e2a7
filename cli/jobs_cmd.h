/* jobs_cmd.h: `kubectl dagsched get jobs` and `kubectl dagsched describe job NAME`: what dagsched
 * knows of DAG jobs (task states, deadline, slack, ETA and what it is based on, evictions, and why
 * each waiting task waits), computed by the controller's own snapshot code (cluster_view.h) from
 * one read of the cluster: every namespace's where the user may list them (the release queue and
 * the room, eta_inputs.h), the namespace's jobs shown. */
#ifndef DAGSCHED_CLI_JOBS_CMD_H
#define DAGSCHED_CLI_JOBS_CMD_H

#include <stdio.h>

/* argv[0] is the verb ("get" or "describe"). Returns the exit code: 0 done, 1 failure (cluster
 * unreachable, job not found), 2 bad usage. */
int jobs_cmd(int argc, char **argv);

void jobs_cmd_usage(FILE *f);

#endif
