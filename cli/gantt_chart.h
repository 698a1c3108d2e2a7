/* gantt_chart.h: the chart of `kubectl dagsched gantt`, drawn from plain rows: the terminal text
 * and the SVG picture. No cluster access (gantt_cmd.c reads the job): unit-tested on built rows
 * (tests/cli/test_gantt.c).
 *
 * One row per task: its wait from its pod's creation to its start ('.'), its run ('#' running or
 * succeeded, 'x' failed), the node it ran on, and the job deadline as a '|' column. */
#ifndef DAGSCHED_CLI_GANTT_CHART_H
#define DAGSCHED_CLI_GANTT_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct cli_gantt_row {
    const char *task, *node;
    double created, started, finished; /* epoch seconds, NAN when not (yet) */
    bool failed;
} cli_gantt_row;

typedef struct cli_gantt {
    const char *ns, *name; /* the job */
    const cli_gantt_row *rows;
    size_t n;
    double created;  /* the job's creation, NAN when unknown (then now) */
    double deadline; /* NAN or INFINITY: none */
    double now;
    bool running;  /* some task has not ended */
    double t0, t1; /* the axis, set by cli_gantt_scale */
} cli_gantt;

/* Set the axis (t0, t1) from the rows, the job's creation, now and the deadline. */
void cli_gantt_scale(cli_gantt *c);

/* The chart in `width` columns of bars (plus the name and node columns) on out. */
void cli_gantt_text(const cli_gantt *c, int width, FILE *out);

/* The chart as an SVG document on out. */
void cli_gantt_svg(const cli_gantt *c, FILE *out);

#endif
