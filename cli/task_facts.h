/* task_facts.h: the sections of `kubectl dagsched describe job` after its task table: each task's
 * run-time estimate and where it comes from (lib/runtime_history.h), and when each task started
 * and how long it ran, from its pod or, once podGC deleted the pod of a Workflow's task, from the
 * Workflow's status.nodes (cli_view_task_times). */
#ifndef DAGSCHED_CLI_TASK_FACTS_H
#define DAGSCHED_CLI_TASK_FACTS_H

#include "cluster_view.h"

/* "Run times (at reference speed):", a line per task in DAG order. */
void cli_print_runtimes(const cli_view *v, const ds_job *j);

/* "Task times:", a line per task in DAG order: "started 5m ago, ran 15s" (or "running for"),
 * "-" for a task that has not started. */
void cli_print_task_times(const cli_view *v, const ds_job *j);

#endif
