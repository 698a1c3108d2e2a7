/* dsp.h: DSP dependency-aware task priority, per-level deadlines and allowable waiting time, and
 * node processing rate (DSP paper, Eq. 1, 2, 12, 13 and section IV-B; see docs/model.md).
 *
 * Times are absolute seconds since the epoch (now, deadlines, start times) or durations in seconds.
 * A job without a deadline passes INFINITY. */
#ifndef DAGSCHED_DSP_H
#define DAGSCHED_DSP_H

#include <stdbool.h>

#include "dag.h"
#include "ds_error.h"

typedef enum { DS_SLACK_URGENCY = 0, DS_SLACK_LITERAL = 1 } ds_slack_term;

typedef struct ds_priority_params {
    double gamma;             /* Eq. 12, in (0, 1); default 0.5 */
    double w_remaining;       /* Eq. 13 w1, default 0.5 */
    double w_waiting;         /* Eq. 13 w2, default 0.3 */
    double w_slack;           /* Eq. 13 w3, default 0.2 */
    ds_slack_term slack_term; /* default urgency: w3 / (1 + t_allow) */
    double time_scale_s;      /* times enter the formula as seconds / time_scale_s; default 60 */
    double min_remaining_s;   /* floor on t_rem against division by zero; default 1 */
} ds_priority_params;

/* The defaults listed above. */
void ds_priority_defaults(ds_priority_params *p);

typedef enum {
    DS_TASK_BLOCKED = 0, /* some upstream task has not succeeded */
    DS_TASK_WAITING,     /* runnable (all upstream succeeded) but not running */
    DS_TASK_RUNNING,
    DS_TASK_SUCCEEDED,
    DS_TASK_FAILED,
} ds_task_state;

typedef struct ds_task_status {
    ds_task_state state;
    double runnable_since; /* WAITING: when it became runnable (absolute s) */
    double started_at;     /* RUNNING: when it started (absolute s) */
    double speed;          /* RUNNING: processing rate of its node (> 0); ignored otherwise */
} ds_task_status;

typedef struct ds_task_eval {
    double priority;
    double t_rem_s;        /* remaining execution time */
    double t_wait_s;       /* time runnable and not running; 0 unless WAITING */
    double level_deadline; /* absolute; INFINITY without a job deadline */
    double t_allow_s;      /* allowable waiting time (slack); INFINITY without a deadline */
    double path_s;         /* remaining path: the longest chain of remaining times from this task
                            * to the end of its job (ds_remaining_paths) */
} ds_task_eval;

/* Per-level deadlines: out[l] for l = 1..n_levels (out has n_levels + 1 entries, out[0] unused).
 * out[L] = job deadline; out[l] = deadline - sum_{k=l+1..L} level_max_runtime[k]. */
void ds_level_deadlines(const ds_dag *d, double job_deadline, double *out);

/* Evaluate every task of the job at time `now`: out has d->n entries (path_s from
 * ds_remaining_paths). 0 on success, -1 with err set
 * on invalid parameters or allocation failure. */
int ds_dsp_evaluate(const ds_dag *d, const ds_task_status *st, double job_deadline, double now,
                    const ds_priority_params *p, ds_task_eval *out, ds_err *err);

/* Remaining path of every task: out[i] = own(i) + the longest out[] among i's dependents, where
 * own(i) is 0 for a SUCCEEDED or FAILED task and ev[i].t_rem_s (at least 0) otherwise. The
 * longest path through a task whose upstream tasks have all succeeded (critical-path-first
 * order, joborder.h). A finished task passes its dependents' path on: a FAILED task's dependents
 * cannot run, yet they are still work to do. O(tasks + edges), no allocation. */
void ds_remaining_paths(const ds_dag *d, const ds_task_status *st, const ds_task_eval *ev,
                        double *out);

/* An urgent waiting task: allowable waiting time at most epsilon seconds. */
bool ds_dsp_is_urgent(const ds_task_eval *e, double epsilon_s);

/* Eq. 1/2: g(k) = theta_cpu * cpu/max_cpu + theta_mem * mem/max_mem (a rate relative to the
 * cluster's largest node). Returns 1.0 when the maxima are 0. */
double ds_node_rate(double cpu, double mem, double max_cpu, double max_mem, double theta_cpu,
                    double theta_mem);

/* Can a task of reference runtime `runtime_s` started now on a node of rate `speed` finish by
 * `deadline`? Always true for an infinite deadline. */
bool ds_can_finish_by(double runtime_s, double speed, double now, double deadline);

#endif
