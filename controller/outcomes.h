/* outcomes.h: what dagsched is for, measured: which DAG jobs finished and whether they met their
 * deadline, how long they took, and how long each task waited before it started. A pure function
 * over the controller's snapshot (tracker.h) that reports each such event once in the process's
 * life, for the outcome metrics (controller.c):
 *
 *   job finished   a valid job whose tasks all succeeded (outcome deadline_met, deadline_missed or
 *                  no_deadline: its last task's finish against the job deadline), or one with a
 *                  failed task and none running or about to run (outcome failed). Makespan: the
 *                  last finish minus the job's creation (its first pod or JobGraph).
 *   task started   a pod of a DAG task that has started (status.startTime): its wait from the pod's
 *                  creation, and from the moment it was ready (the latest of its creation and its
 *                  upstream tasks' finishes).
 *
 * Once: the scanner remembers what it reported while the object is still in the snapshot, so a
 * job or pod is reported again only after it is gone and back (a new pod, a new job of the same
 * name). Events that happened before `since` (the process's start) are remembered but not
 * reported, so that a restarted controller does not count the past again. Finish times come from
 * the pods' containers (finishedAt); a finished task whose pod is gone or has no finish time
 * counts as finished at the snapshot's time. Not thread-safe: owned by the decision loop. */
#ifndef DAGSCHED_CONTROLLER_OUTCOMES_H
#define DAGSCHED_CONTROLLER_OUTCOMES_H

#include <stddef.h>

#include "arena.h"
#include "ds_error.h"
#include "strmap.h"
#include "tracker.h"

typedef enum ctl_job_outcome {
    CTL_OUTCOME_DEADLINE_MET = 0,
    CTL_OUTCOME_DEADLINE_MISSED,
    CTL_OUTCOME_NO_DEADLINE,
    CTL_OUTCOME_FAILED,
} ctl_job_outcome;

/* "deadline_met", "deadline_missed", "no_deadline", "failed". */
const char *ctl_job_outcome_name(ctl_job_outcome o);

typedef struct ctl_job_done {
    size_t job_idx;  /* index into the snapshot's jobs (s->js.jobs) */
    const char *ns;  /* borrowed from the snapshot */
    const char *job; /* its name in the job model (as in the eviction ledger), borrowed */
    ctl_job_outcome outcome;
    double makespan_s; /* NAN when the job's creation is unknown */
    double lateness_s; /* finish - deadline (negative: early); NAN without a deadline */
} ctl_job_done;

typedef struct ctl_task_start {
    const char *ns;
    double from_created_s; /* started - created */
    double from_ready_s;   /* started - ready (see above) */
} ctl_task_start;

typedef struct ctl_outcome_events {
    ctl_job_done *jobs;
    size_t n_jobs;
    ctl_task_start *tasks;
    size_t n_tasks;
} ctl_outcome_events;

typedef struct ctl_outcomes {
    double since;  /* report only events at or after this time */
    ds_arena keys; /* the remembered keys */
    ds_strmap seen;
    bool init;
} ctl_outcomes;

void ctl_outcomes_init(ctl_outcomes *o, double since);
void ctl_outcomes_free(ctl_outcomes *o);

/* Scan one snapshot: fill *out (free with ctl_outcome_events_free) with the events not reported
 * before. 0 on success, -1 with err set when out of memory (nothing is remembered then, so the
 * next scan reports the same events). */
int ctl_outcomes_scan(ctl_outcomes *o, const ctl_snapshot *s, ctl_outcome_events *out, ds_err *err);
void ctl_outcome_events_free(ctl_outcome_events *e);

/* When task t of job j finished: its pod's containers' finishedAt, else `fallback` (no pod, or
 * no finish time recorded). */
double ctl_outcomes_task_finish(const ctl_snapshot *s, const ds_job *j, size_t t, double fallback);

#endif
