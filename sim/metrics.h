/* metrics.h: what a run measured (makespan, job completion times, deadlines met, preemptions,
 * dependency disorders, utilisation, cost of the run) and its output as CSV, JSON and text tables
 * that compare policies as ratios to the `default` policy. */
#ifndef DAGSCHED_SIM_METRICS_H
#define DAGSCHED_SIM_METRICS_H

#include <stdint.h>
#include <stdio.h>

#include "engine.h"

typedef struct sim_metrics {
    char policy[32];
    char workload[SIM_NAME_MAX];
    uint64_t seed;
    size_t jobs, tasks, nodes;
    double makespan_s;                  /* last completion - first arrival */
    double jct_mean_s;                  /* completion - arrival, over jobs */
    double jct_p95_s;                   /* nearest rank */
    double deadline_met_ratio;          /* over jobs with a deadline; NAN when none has one */
    size_t deadline_jobs, deadline_met; /* jobs with a deadline; of them, jobs that met it */
    uint64_t preemptions;
    uint64_t preempt_urgent, preempt_priority, preempt_starvation, preempt_kube; /* by reason */
    uint64_t disorders;
    double util_cpu, util_memory; /* requested / allocatable, time-averaged over the makespan */
    double lost_work_s;           /* reference seconds of progress lost to evictions */
    double lost_run_s;            /* node seconds the evicted runs had run (checkpoints kept) */
    /* Eviction yield: of the evictions made for a pod whose job has a deadline, the fraction
     * whose job met it. Evictions for jobs without a deadline are counted apart and are not in
     * the yield's denominator. */
    uint64_t evict_deadline;    /* evictions made for jobs with a deadline */
    uint64_t evict_met;         /* ... of which the job met its deadline */
    uint64_t evict_no_deadline; /* evictions made for jobs without a deadline */
    double eviction_yield;      /* evict_met / evict_deadline; NAN when evict_deadline is 0 */
    /* The task-level yield: of the evictions DSP preemption made for a task with a level
     * deadline, the fraction whose task (the preemptor) finished by that level deadline. */
    uint64_t evict_task_deadline, evict_task_met;
    double evict_task_yield; /* NAN when evict_task_deadline is 0 */
    uint64_t failures;       /* runs that failed (started without inputs) */
    uint64_t starts;
    uint64_t sched_failures;    /* kube-scheduler's failed scheduling attempts */
    uint64_t sched_failed_pods; /* pods with at least one */
    uint64_t held_refusals;     /* failed attempts of pods that fit only in held room */
    size_t peak_waiting;
    uint64_t events;
    size_t peak_events; /* most events in the engine's event heap at once */
    double wall_s;      /* run time of the simulation */
    long peak_rss_kb;   /* process peak resident set after the run (getrusage) */
} sim_metrics;

/* Compute the metrics of a finished run. -1 on allocation failure. */
int sim_metrics_compute(const sim_result *r, sim_metrics *m);

/* Each tenant's (the jobs' namespaces) number of jobs and mean job completion time, one line per
 * tenant in the order they arrived ("  tenant flood: 40 jobs, jct mean 1234 s"); nothing when
 * the run has one tenant. */
void sim_metrics_print_tenants(FILE *f, const sim_result *r);

void sim_metrics_csv_header(FILE *f);
void sim_metrics_csv_row(FILE *f, const sim_metrics *m);
/* A JSON array of runs. */
void sim_metrics_json(FILE *f, const sim_metrics *runs, size_t n);

/* The comparison metrics, in table order. */
typedef struct sim_metric_col {
    const char *name;  /* column header */
    const char *label; /* long name for plots */
    int higher_better; /* 1: higher is better, 0: lower is better */
    size_t offset;     /* of the field in sim_metrics */
    int count;         /* 1: a uint64_t count, 0: a double */
} sim_metric_col;
const sim_metric_col *sim_metric_cols(size_t *n);
/* The column's value in one run, as a double. */
double sim_metric_value(const sim_metric_col *col, const sim_metrics *m);

/* Mean of a metric over the runs of one policy (NAN values skipped; NAN when none). */
double sim_metrics_mean(const sim_metrics *runs, size_t n, const char *policy,
                        const sim_metric_col *col);

/* Print the absolute means and the ratio-to-default tables for the policies present in runs. */
void sim_metrics_print_tables(FILE *f, const sim_metrics *runs, size_t n,
                              const char *const *policies, size_t n_policies);

#endif
