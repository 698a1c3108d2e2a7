/* gantt_cmd.h: `kubectl dagsched gantt JOB`: where and when each task of a DAG job ran, as a chart
 * in the terminal or an SVG file (gantt_chart.h). One row per task in dependency order: its wait
 * from the pod's creation to its start ('.'), its run ('#' running or succeeded, 'x' failed), the
 * node it ran on; a time axis in seconds from the job's creation, spanning the job; the job
 * deadline as a '|' column and a label. Read with the controller's own snapshot code
 * (cluster_view.h). */
#ifndef DAGSCHED_CLI_GANTT_CMD_H
#define DAGSCHED_CLI_GANTT_CMD_H

#include <stdio.h>

/* argv[0] is "gantt". Exit code: 0 done, 1 failure (job not found, cluster unreachable, SVG not
 * written), 2 bad usage. */
int gantt_cmd(int argc, char **argv);

void gantt_cmd_usage(FILE *f);

#endif
