/* job_room.h: the job rule of preemption: can the rest of a preemptor's job still get room in
 * time? Pure; shared by victim selection (lib/victim.h) for the controller and the simulator.
 *
 * An eviction starts one task; its job meets its deadline only if the job's other tasks get room
 * in time too. The tasks of the job still blocked on upstream work need room by their latest
 * start (their slack t_allow: level deadline - now - remaining time at reference speed). Grouped
 * by level, each level's requests must be covered by the room that frees by its latest start less
 * the start latency (lib/room.h, ds_room_pool_wait, pooled over the nodes), after the requests
 * queued ahead of the preemptor; for the levels after the preemptor's own, the room made for the
 * preemptor counts as theirs (it passes on when the preemptor ends). When some level cannot get
 * room in time, the job is late whatever one eviction does, and the eviction is waste: its tasks
 * preempt nothing (spec.preemption.jobRoom). Optimistic like room.h: work that arrives later,
 * tasks not yet created, and pods outside any DAG are not counted; the job's own later evictions
 * are not counted on either. */
#ifndef DAGSCHED_JOB_ROOM_H
#define DAGSCHED_JOB_ROOM_H

#include <stdbool.h>
#include <stddef.h>

#include "dag.h"
#include "dsp.h"
#include "resources.h"
#include "room.h"

/* What one level of a job's blocked tasks needs. */
typedef struct ds_level_need {
    int level;         /* the DAG level (1-based) */
    ds_res demand;     /* the blocked tasks' requests, summed */
    double start_by_s; /* seconds from now by which they must start: their smallest slack */
} ds_level_need;

/* The blocked tasks (DS_TASK_BLOCKED) with a deadline (finite t_allow_s) of a job, by level,
 * ascending: out has room for d->n_levels entries; returns how many were written. req[i] is task
 * i's request (its pod's; zero when the pod does not exist yet). */
size_t ds_job_level_needs(const ds_dag *d, const ds_task_status *st, const ds_task_eval *ev,
                          const ds_res *req, ds_level_need *out);

/* Does every level need get room in time? ahead: the requests queued ahead of the preemptor;
 * own and own_level: the preemptor's request and DAG level; start_s: the start latency
 * (spec.preemption.startLatency). True when n is 0. */
bool ds_job_room_in_time(const ds_room_index *ix, const ds_res *ahead, const ds_res *own,
                         int own_level, const ds_level_need *need, size_t n, double start_s);

#endif
