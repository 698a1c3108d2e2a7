/* explain_cmd.h: `kubectl dagsched explain pod NAME`: the scheduler extender's view of one pod, as
 * kube-scheduler would get it now: for every node whether it passes the extender's filter (and
 * why not), and the extender's score of each node that passes. Computed by the extender's own
 * snapshot builder and handlers (extender/state.h, extender/handlers.h) on what the extender
 * reads from the cluster, so it is what the extender would answer. kube-scheduler's own filters
 * and scores (taints, affinity, its plugins' weights) are not part of it. */
#ifndef DAGSCHED_CLI_EXPLAIN_CMD_H
#define DAGSCHED_CLI_EXPLAIN_CMD_H

#include <stdio.h>

/* argv[0] is "explain". The process exit code: 0 done, 1 no such pod or the cluster could not be
 * read, 2 bad usage. */
int explain_cmd(int argc, char **argv);

void explain_cmd_usage(FILE *f);

#endif
