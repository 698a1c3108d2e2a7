/* joborder.h: the order of waiting tasks across jobs (the scheduling queue and the release order).
 *
 * DSP's priority (Eq. 12, 13; dsp.h) ranks the tasks of one job well, but it sums over dependents
 * with factor (1 + gamma) at every level, so it grows with a job's size and depth: compared across
 * jobs, the first levels of a large job outrank everything a small job has. The job orders below
 * first compare jobs by a job-level figure, then tasks of the same job by DSP priority:
 *
 *   dsp                 task priority only, across jobs (the DSP paper)
 *   leastSlack          least job slack first (3DSF): deadline - now - remaining critical path
 *   shortestRemaining   least remaining work first (CSS's minimum completion time first, per job)
 *
 * Tasks of the same job go by one of:
 *
 *   dsp                 DSP priority (Eq. 12, 13), highest first
 *   criticalPath        longest remaining path through the task first (ds_remaining_paths: its own
 *                       remaining time plus the longest chain of its dependents'), then DSP
 *                       priority
 *
 * A starvation threshold (CSS) puts tasks that have waited at least that long before all others,
 * longest wait first. See docs/model.md ("Order across jobs") for the formulas. */
#ifndef DAGSCHED_JOBORDER_H
#define DAGSCHED_JOBORDER_H

#include <stdbool.h>

#include "dag.h"
#include "ds_error.h"
#include "dsp.h"
#include "jobmodel.h"

typedef enum {
    DS_ORDER_DSP = 0,            /* raw DSP priority across jobs (the paper) */
    DS_ORDER_LEAST_SLACK,        /* job slack, then DSP priority within the job */
    DS_ORDER_SHORTEST_REMAINING, /* job remaining work, then DSP priority within the job */
} ds_job_order;

typedef enum {
    DS_WITHIN_DSP = 0,       /* DSP priority within a job */
    DS_WITHIN_CRITICAL_PATH, /* longest remaining path first, then DSP priority */
} ds_within_order;

typedef struct ds_order_params {
    ds_job_order job_order;     /* zero value: DS_ORDER_DSP */
    double starvation_s;        /* tasks waiting at least this go first; 0 = off */
    ds_within_order within_job; /* zero value: DS_WITHIN_DSP */
} ds_order_params;

/* "dsp", "leastSlack", "shortestRemaining"; "unknown" otherwise. */
const char *ds_job_order_name(ds_job_order o);
/* 0 and *out set for a known name, -1 otherwise. */
int ds_job_order_parse(const char *name, ds_job_order *out);

/* "dsp", "criticalPath"; "unknown" otherwise. */
const char *ds_within_order_name(ds_within_order o);
/* 0 and *out set for a known name, -1 otherwise. */
int ds_within_order_parse(const char *name, ds_within_order *out);

/* Job-level figures at evaluation time, from the job's DAG, task states and DSP evaluation. */
typedef struct ds_job_summary {
    double remaining_work_s; /* sum of t_rem over tasks not SUCCEEDED or FAILED */
    double remaining_path_s; /* longest chain of t_rem through tasks not SUCCEEDED or FAILED */
    double slack_s;          /* deadline - now - remaining_path_s; INFINITY without a deadline */
    size_t remaining_steps;  /* tasks not SUCCEEDED or FAILED on that chain (the most of the
                              * chains as long): each is released, scheduled and started */
    size_t unfinished;       /* tasks not SUCCEEDED or FAILED */
} ds_job_summary;

/* Summarise a job evaluated by ds_dsp_evaluate at `now` (ev from that call, st its input).
 * O(tasks + edges), no allocation. 0 on success, -1 with err set on missing arguments or a
 * deadline or `now` that ds_dsp_evaluate would reject. */
int ds_job_summarise(const ds_dag *d, const ds_task_status *st, const ds_task_eval *ev,
                     double job_deadline, double now, ds_job_summary *out, ds_err *err);

/* Sort key of a waiting task: ascending lexicographic order of k[] is queue order (callers break
 * remaining ties, e.g. by arrival in the queue). k[0]: 0 for starving tasks, 1 otherwise; k[1]:
 * the rank of the job's tenant with fair share across tenants (ds_order_key_set_tenant: its
 * weighted dominant share, lib/fairshare.h), 0 without; k[2], k[3]: the job figures (0 under
 * dsp); k[4], k[5]: the task within its job (dsp: minus its DSP priority, 0; criticalPath: minus
 * its remaining path, minus its DSP priority; starving: minus its waiting time, 0). */
#define DS_ORDER_KEY_N 6
typedef struct ds_order_key {
    double k[DS_ORDER_KEY_N];
} ds_order_key;

/* The key of a waiting task with DSP evaluation `task` (its t_wait_s, priority and path_s) in a
 * job with summary `job`, tenant rank 0. */
void ds_order_key_of(const ds_order_params *p, const ds_job_summary *job, const ds_task_eval *task,
                     ds_order_key *out);

/* The same key from the job's figures (ds_order_job_figures) instead of its summary. */
void ds_order_key_from_figures(const ds_order_params *p, const double job[2],
                               const ds_task_eval *task, ds_order_key *out);

/* Put the rank of the task's tenant in front of its job figures (fair share across tenants): the
 * tenant furthest below its weighted fair share first. A starving task's key is left as it is:
 * starving tasks go first whatever their tenant. */
void ds_order_key_set_tenant(ds_order_key *k, double rank);

/* The job figures of a job's keys (k[1], k[2] of a task that is not starving): the part of the
 * order that is the same for every task of the job. 0, 0 under dsp. */
void ds_order_job_figures(const ds_order_params *p, const ds_job_summary *job, double out[2]);

/* The job figures (ds_order_job_figures) of every job of s at `now`: out[j] for job j (n_jobs
 * entries); NAN for an invalid job. With sums (NULL: not wanted), also each job's summary
 * (sums[j]; slack_s and remaining_path_s NAN for an invalid job), for the job deadline rule of
 * preemption (lib/preempt_rules.h). 0, or -1 with err set when a job cannot be summarised. */
int ds_jobset_job_figures(const ds_jobset *s, const ds_order_params *p, double now,
                          double (*out)[2], ds_job_summary *sums, ds_err *err);

/* <0, 0, >0 as a comes before, ties with, or comes after b. */
int ds_order_key_cmp(const ds_order_key *a, const ds_order_key *b);

/* A task of a job set (jobmodel.h): indexes into s->jobs and that job's DAG. */
typedef struct ds_task_ref {
    size_t job, task;
} ds_task_ref;

/* The WAITING tasks of the valid jobs of s (built at time `now`) in queue order under p: the order
 * in which a controller releases held tasks. Ties go to the lower job index, then the lower task
 * index. Writes s->n_waiting entries to out (capacity cap) and returns their number; -1 with err
 * set when cap is too small, on missing arguments or out of memory. */
long ds_jobset_queue_order(const ds_jobset *s, const ds_order_params *p, double now,
                           ds_task_ref *out, size_t cap, ds_err *err);

/* ds_jobset_queue_order with fair share across tenants: job_rank[j] is the rank of job j's
 * tenant (ds_order_key_set_tenant; n_jobs entries); NULL: no tenant ranks. */
long ds_jobset_queue_order_fair(const ds_jobset *s, const ds_order_params *p, double now,
                                const double *job_rank, ds_task_ref *out, size_t cap, ds_err *err);

#endif
