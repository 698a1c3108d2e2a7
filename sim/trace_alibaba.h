/* trace_alibaba.h: loader for the Alibaba cluster-trace-v2018 batch_task.csv DAG format.
 *
 * Columns: task_name, instance_num, job_name, task_type, status, start_time, end_time, plan_cpu,
 * plan_mem. A task name encodes its dependencies: "M1" is task 1 with no upstream, "R2_1" is task
 * 2 depending on task 1, "J3_1_2" task 3 depending on 1 and 2 (a letter, the task number, then
 * "_" and an upstream number for each dependency). Other names ("task_Nzg3...", "MergeTask") are
 * independent tasks. Mapping: run time = end_time - start_time (at least 1 s), cpu = plan_cpu / 100
 * cores, memory = plan_mem / 100 of one trace machine's memory (machine_memory_bytes), arrival =
 * the job's first start time relative to the trace's first job. Jobs with a task that is not
 * Terminated, has no times or plans, a duplicate task number, or a dependency cycle are skipped and
 * counted; dependencies on task numbers absent from the job are dropped and counted. */
#ifndef DAGSCHED_SIM_TRACE_ALIBABA_H
#define DAGSCHED_SIM_TRACE_ALIBABA_H

#include <stddef.h>
#include <stdint.h>

#include "ds_error.h"
#include "workload.h"

#define SIM_ALIBABA_MAX_LINE 4096
#define SIM_ALIBABA_MAX_DEPS 64

typedef struct sim_alibaba_params {
    double machine_memory_bytes; /* memory of one trace machine (plan_mem 100); default 512Gi */
    size_t max_instances;        /* pods per task: min(instance_num, this); default 1 */
    double deadline_factor_min, deadline_factor_max; /* deadline = factor * critical path */
    uint64_t seed;                                   /* draws the factor of each job */
    size_t max_jobs;                                 /* stop after this many jobs; 0 = all */
    size_t max_lines;                                /* bounded input; default 50,000,000 */
} sim_alibaba_params;

typedef struct sim_alibaba_stats {
    size_t lines, jobs, tasks, pods;
    size_t skipped_jobs;  /* not usable (status, missing values, duplicates, cycles) */
    size_t dropped_edges; /* dependencies on tasks absent from the job */
} sim_alibaba_stats;

void sim_alibaba_defaults(sim_alibaba_params *p);

/* Parse a task name. Returns 1 for a DAG name with *id and deps[0..*n_deps), 0 for an independent
 * task (any other name), -1 when it has more than max_deps dependencies. */
int sim_alibaba_parse_name(const char *name, long *id, long *deps, size_t max_deps, size_t *n_deps);

/* Load path into w's jobs (w's nodes are left as they are). */
int sim_alibaba_load(const char *path, const sim_alibaba_params *p, sim_workload *w,
                     sim_alibaba_stats *st, ds_err *err);

#endif
