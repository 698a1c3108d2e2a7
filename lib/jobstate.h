/* jobstate.h: the second half of ds_jobs_build (jobmodel.h), internal to the core library: task
 * states from pods, DSP evaluation, level deadlines and the ranking of waiting tasks across jobs.
 *
 * Private to lib/: jobmodel.c. */
#ifndef DAGSCHED_JOBSTATE_H
#define DAGSCHED_JOBSTATE_H

#include "jobmodel.h"

/* Which of two pods carrying the same task name represents the task: true when `a` wins over `b`
 * (non-terminal over terminal, then Succeeded over Failed, then the newest, then by name and uid
 * for a deterministic choice). */
bool ds_pod_obs_better(const ds_pod_obs *a, const ds_pod_obs *b);

/* For every valid job of s (whose dag, task_pod, deadline and created_at are set): fill status,
 * eval, level_deadline and wait_rank, and s->n_waiting. 0 on success, -1 with err set on bad
 * priority parameters or out of memory. */
int ds_jobstate_compute(ds_jobset *s, const ds_pod_obs *pods, double now,
                        const ds_priority_params *pp, ds_err *err);

/* Rank the WAITING tasks of every valid job across the set: s->n_waiting and each job's wait_rank
 * (whose arrays must exist). 0, or -1 with err set when out of memory. */
int ds_jobset_rank_waiting(ds_jobset *s, ds_err *err);

#endif
