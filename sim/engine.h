/* engine.h: the deterministic discrete-event simulation of a cluster running DAG jobs under one
 * scheduling policy. Decisions (queue order, node choice, victims) come from the core library
 * through policies.h; the engine only keeps time, state and counts. See docs/simulator.md for the
 * model and its assumptions. */
#ifndef DAGSCHED_SIM_ENGINE_H
#define DAGSCHED_SIM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ds_error.h"
#include "policies.h"
#include "policy.h"
#include "workload.h"

/* Release latency: see docs/simulator.md ("Release latency") for where the value comes from. */
#define SIM_DEFAULT_RELEASE_LATENCY_S 0.5

typedef struct sim_config {
    const sim_policy_desc *policy;
    ds_policy pol;                 /* SchedulingPolicy values (ds_policy_defaults or a file) */
    double restart_delay_s;        /* an evicted pod is schedulable again after this; default 1 */
    double create_latency_s;       /* onUpstream: a task's pod is created (queued) this long after
                                      its upstream tasks succeeded; default 0 */
    double start_latency_s;        /* a bound pod starts running this long after binding, holding
                                      its node's resources meanwhile; default 0 */
    double disorder_fail_s;        /* a task started before its inputs exist fails after this; 5 */
    double backoff_base_s;         /* a failed pod is recreated after base * 2^(failures-1), */
    double backoff_max_s;          /* at most max (batch/v1 Job: 10 s, 360 s) */
    double extender_weight;        /* extender score weight in kube-scheduler; default 5 */
    double max_time_s;             /* abort when simulated time passes this; default 1e9 */
    double kube_preempt_backoff_s; /* a pod whose preemption failed waits this before retrying */
    /* Gated policies (release.c): a released pod enters kube-scheduler's queue this long after
     * the controller's round decided it (default SIM_DEFAULT_RELEASE_LATENCY_S); rounds run at
     * most once per round_interval_s (the controller's --min-round-interval, default 1 s). */
    double release_latency_s;
    double round_interval_s;
    /* What a release costs the controller: each release is one API request of release_cost_s,
     * made at most release_concurrency at a time. A round's releases then reach kube-scheduler's
     * queue batch after batch (the k-th, from 1, ceil(k / concurrency) * cost after the round,
     * before the release latency), and the next round starts no sooner than the round's writes
     * are done. 0 (the default): releases are free, all leave with the round. */
    double release_cost_s;
    unsigned release_concurrency;
    /* Jobs whose pods a workflow engine creates (onUpstream): false, the controller knows each
     * job's whole DAG (a JobGraph, an Argo Workflow); true, only the tasks whose pods were
     * created so far (jobview.c; dagsched-sim --graph observed). */
    bool graph_observed;
    /* kube-scheduler's queue after a failed attempt (kqueue.c; KubeSchedulerConfiguration and
     * kube-scheduler's defaults): back-off podInitialBackoffSeconds * 2^(attempts-1), at most
     * podMaxBackoffSeconds (1 s, 10 s); the back-off queue is flushed every backoff_flush_s (1 s;
     * 0: at the end of each back-off); a pod leaves the unschedulable pool after at most
     * max_unschedulable_s (300 s; INFINITY: never) without an event. */
    double pod_initial_backoff_s;
    double pod_max_backoff_s;
    double backoff_flush_s;
    double max_unschedulable_s;
    /* kube-scheduler's scheduling cycles take time: it tries one pod at a time, and an attempt
     * that binds keeps it busy sched_cycle_s, one that fails sched_cycle_failed_s, before it pops
     * the next pod (0, the default: attempts are instantaneous). */
    double sched_cycle_s;
    double sched_cycle_failed_s;
    /* Gated policies: the extender holds the room an upstream task freed for its job's next
     * task (sim/holds.c); true, the default, as shipped; false only to measure what it does. */
    bool room_holds;
    bool record_segments; /* keep task runs for the Gantt chart */
    size_t max_segments;  /* cap on recorded runs; default 200000 */
} sim_config;

void sim_config_defaults(sim_config *c, const sim_policy_desc *policy);

typedef enum { SIM_SEG_DONE = 0, SIM_SEG_EVICTED = 1, SIM_SEG_FAILED = 2 } sim_seg_outcome;

typedef struct sim_segment {
    double start, end;
    double ready;  /* when the task last became runnable (its pod created or its upstream done) */
    double queued; /* when its pod entered kube-scheduler's queue (gated: released + latency) */
    uint32_t node, job, task;
    uint8_t outcome; /* sim_seg_outcome */
    float cpu_frac;  /* request / node allocatable */
} sim_segment;

typedef struct sim_job_result {
    double arrival, completion, deadline; /* deadline INFINITY when none */
    uint32_t n_tasks;
    uint32_t tenant;        /* its namespace: index into sim_result.tenants */
    uint64_t evictions_for; /* running pods evicted to make room for this job's pods */
} sim_job_result;

typedef struct sim_result {
    size_t n_jobs, n_tasks, n_nodes;
    sim_job_result *jobs;
    uint64_t preemptions; /* evictions of running pods */
    /* The task-level yield's counts: evictions made by DSP preemption for a task with a level
     * deadline, and of those, the ones whose task finished by it. */
    uint64_t evict_task_deadline, evict_task_met;
    uint64_t preempt_urgent, preempt_priority, preempt_starvation, preempt_kube;
    uint64_t disorders; /* task starts while an upstream task had not succeeded */
    uint64_t starts, failures, events, epochs;
    double lost_work_s; /* reference seconds of progress thrown away by evictions */
    double lost_run_s;  /* node seconds the evicted runs had run, less checkpointed progress */
    double first_arrival, end_time;
    double area[DS_RES_N];      /* integral of requested resources over time */
    ds_res capacity;            /* sum of allocatable */
    size_t peak_waiting;        /* most tasks waiting at once (ready, not running) */
    size_t peak_queued;         /* most pods in kube-scheduler's queue at once */
    size_t peak_events;         /* most events in the event heap at once (the engine's memory) */
    uint64_t rounds, releases;  /* gated policies: controller rounds, tasks released */
    uint64_t sched_failures;    /* kube-scheduler's failed scheduling attempts */
    uint64_t sched_failed_pods; /* pods with at least one failed attempt */
    uint64_t held_refusals;     /* failed attempts of pods that fit only in held room */
    sim_segment *segs;
    size_t n_segs;
    bool segs_truncated;
    double *node_speed; /* [n_nodes] */
    ds_res *node_alloc; /* [n_nodes] */
    char **tenants;     /* [n_tenants]: the jobs' namespaces, in the order they arrived */
    size_t n_tenants;
} sim_result;

/* Run the workload to completion under c. 0 on success; -1 with err set on invalid input, a job
 * that can never run, allocation failure or passing max_time_s. */
int sim_run(const sim_workload *w, const sim_config *c, sim_result *r, ds_err *err);
void sim_result_free(sim_result *r);

#endif
