/* svg.h: plots as standalone SVG files: the policy comparison (bars of each metric as a ratio to
 * the default policy, and absolute preemption / disorder counts) and a Gantt chart per node of one
 * run (tasks as boxes whose height is their cpu share, evicted runs in red, runs that failed for a
 * dependency disorder in orange, idle capacity left white). */
#ifndef DAGSCHED_SIM_SVG_H
#define DAGSCHED_SIM_SVG_H

#include <stddef.h>

#include "ds_error.h"
#include "engine.h"
#include "metrics.h"

int sim_svg_bars(const char *path, const sim_metrics *runs, size_t n, const char *const *policies,
                 size_t n_policies, const char *title, ds_err *err);

/* Gantt chart of a run recorded with record_segments; at most max_nodes lanes are drawn. */
int sim_svg_gantt(const char *path, const sim_result *r, const char *title, size_t max_nodes,
                  ds_err *err);

#endif
