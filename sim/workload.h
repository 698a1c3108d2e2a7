/* workload.h: what the simulator runs: a cluster (nodes with allocatable resources and a speed) and
 * DAG jobs arriving over time. Workloads come from the generator (workload_gen.h), the Alibaba
 * trace loader (trace_alibaba.h) or a workload file (workload_file.h); the engine only sees this
 * model. */
#ifndef DAGSCHED_SIM_WORKLOAD_H
#define DAGSCHED_SIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dag.h"
#include "ds_error.h"
#include "resources.h"

#define SIM_NAME_MAX          254     /* names of nodes, jobs and the workload (253 + NUL) */
#define SIM_MAX_NODES         10000   /* bounded input */
#define SIM_MAX_JOBS          1000000 /* jobs in one workload */
#define SIM_NODE_PREFIX       "node-"
#define SIM_DEFAULT_NAMESPACE "default" /* of a job that names none */

typedef struct sim_node_def {
    char name[SIM_NAME_MAX];
    ds_res allocatable;
    double
        speed; /* processing rate relative to the reference node; 0 = from Eq. 1 (ds_node_rate) */
} sim_node_def;

typedef struct sim_task_def {
    char *name;
    double runtime_s; /* on a node of speed 1.0 */
    ds_res request;
    size_t *up; /* indexes (in the job) of the tasks this one depends on */
    size_t n_up;
    bool checkpoint; /* an evicted run keeps its progress (else it restarts from zero) */
    /* Gang release (lib/gang.h): the tasks of a job with the same gang name start together;
     * NULL: no gang. gang_size: its members (the tasks naming it; 1..DS_GANG_SIZE_MAX). */
    char *gang;
    size_t gang_size;
} sim_task_def;

typedef enum {
    SIM_RELEASE_ON_UPSTREAM =
        0,                   /* a workflow engine creates a task's pod when its upstream is done */
    SIM_RELEASE_UPFRONT = 1, /* all pods of the job are created when the job arrives */
} sim_release;

typedef struct sim_job_def {
    char *name;
    char *ns; /* its namespace (its tenant under spec.fairness); NULL: SIM_DEFAULT_NAMESPACE */
    double arrival_s;
    double deadline_s;      /* relative to arrival; INFINITY when none is given */
    double deadline_factor; /* > 0 and no deadline_s: deadline = factor * critical path */
    int32_t priority;       /* Kubernetes PriorityClass value of its pods */
    sim_release release;
    sim_task_def *tasks;
    size_t n_tasks;
} sim_job_def;

/* A distribution of positive values for the generator. */
typedef enum { SIM_DIST_CONST = 0, SIM_DIST_UNIFORM, SIM_DIST_LOGNORMAL } sim_dist_kind;
typedef struct sim_dist {
    sim_dist_kind kind;
    double a, b;     /* const: a; uniform: [a, b); lognormal: median a, sigma b */
    double min, max; /* draws are clipped to [min, max] */
} sim_dist;

/* Generator parameters (DSP paper, Table II and section V; see docs/simulator.md). */
typedef struct sim_gen_params {
    uint64_t seed;
    size_t n_jobs;
    size_t small_min, small_max; /* tasks of a small job: uniform in [min, max] */
    size_t medium_tasks, large_tasks;
    double task_scale;         /* multiplies the task counts (>= 1 task per job) */
    double rate_min, rate_max; /* jobs per minute: x drawn once in [min, max], Poisson arrivals */
    int max_levels;            /* DAG depth, 1..max */
    int max_fanout;            /* dependents of one task */
    sim_dist runtime_s, cpu_cores, memory_bytes;
    double deadline_factor_min, deadline_factor_max;
    double high_priority_fraction; /* jobs whose pods get priority 1000 (others 0) */
    double checkpoint_fraction;    /* jobs whose tasks checkpoint */
    sim_release release;
    /* Job classes repeat in the pattern: mix[0] small, mix[1] medium, mix[2] large (default
     * 1:1:1, DSP's equal numbers). */
    unsigned mix[3];
    bool large_no_deadline; /* large jobs are batch jobs without a deadline */
    bool large_runtime_set; /* large jobs draw run times from large_runtime_s, not runtime_s */
    sim_dist large_runtime_s;
} sim_gen_params;

typedef struct sim_workload sim_workload;

/* Where a generated workload's jobs come from: materialise job j into *out (0, or -1 with err). */
typedef int (*sim_job_source)(const sim_workload *w, size_t j, sim_job_def *out, ds_err *err);

struct sim_workload {
    char name[SIM_NAME_MAX];
    sim_node_def *nodes;
    size_t n_nodes;
    size_t n_jobs;
    sim_job_def *jobs; /* explicit jobs sorted by arrival, or NULL when generated */
    bool generated;
    sim_gen_params gen;
    sim_job_source source; /* generated: makes each job (the generator sets it) */
    double *arrivals;      /* generated: arrival of each job */
};

/* Job j (0 <= j < n_jobs). Explicit jobs are copied shallowly (*owned = false); generated jobs are
 * materialised into *out (*owned = true: free with sim_job_def_free). */
int sim_workload_job(const sim_workload *w, size_t j, sim_job_def *out, bool *owned, ds_err *err);
double sim_workload_arrival(const sim_workload *w, size_t j);

void sim_job_def_free(sim_job_def *j);
void sim_workload_free(sim_workload *w);

/* Parse a node list "COUNTxCPU:MEMORY[:SPEED],..." (e.g. "40x16:64Gi:1,10x32:128Gi:1.5"); CPU and
 * memory are Kubernetes quantities; names are node-0, node-1, ... */
int sim_nodes_parse(const char *spec, sim_node_def **out, size_t *n, ds_err *err);

/* Check an explicit workload: nodes exist, jobs sorted by arrival, every task fits on some node,
 * every job's DAG is valid (built once and freed). */
int sim_workload_validate(const sim_workload *w, ds_err *err);

/* Build a job's DAG (names, runtimes, edges). */
int sim_job_build_dag(const sim_job_def *j, ds_dag *out, ds_err *err);

#endif
