/* sim_test_util.h: helpers for the simulator tests: build small workloads in code. */
#ifndef DAGSCHED_SIM_TEST_UTIL_H
#define DAGSCHED_SIM_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

/* A node of `cpu_m` milli-cores, 4 GiB and the given speed. */
static inline void tu_node(sim_workload *w, int64_t cpu_m, double speed)
{
    w->nodes = realloc(w->nodes, (w->n_nodes + 1) * sizeof *w->nodes);
    sim_node_def *n = &w->nodes[w->n_nodes];
    memset(n, 0, sizeof *n);
    snprintf(n->name, sizeof n->name, "node-%zu", w->n_nodes);
    n->allocatable.v[DS_RES_CPU] = cpu_m;
    n->allocatable.v[DS_RES_MEMORY] = 4LL << 30;
    n->speed = speed;
    w->n_nodes++;
}

/* A job of n tasks; task i has runtimes[i], cpu_m[i] and, when chain is set, depends on i - 1. */
static inline sim_job_def *tu_job(sim_workload *w, const char *name, double arrival, size_t n,
                                  const double *runtimes, const int64_t *cpu_m, int chain)
{
    w->jobs = realloc(w->jobs, (w->n_jobs + 1) * sizeof *w->jobs);
    sim_job_def *j = &w->jobs[w->n_jobs++];
    memset(j, 0, sizeof *j);
    j->name = strdup(name);
    j->arrival_s = arrival;
    j->deadline_s = INFINITY;
    j->tasks = calloc(n, sizeof *j->tasks);
    j->n_tasks = n;
    for (size_t i = 0; i < n; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "t%zu", i);
        j->tasks[i].name = strdup(buf);
        j->tasks[i].runtime_s = runtimes[i];
        j->tasks[i].request.v[DS_RES_CPU] = cpu_m[i];
        j->tasks[i].request.v[DS_RES_MEMORY] = 1LL << 20;
        if (chain && i > 0) {
            j->tasks[i].up = malloc(sizeof *j->tasks[i].up);
            j->tasks[i].up[0] = i - 1;
            j->tasks[i].n_up = 1;
        }
    }
    return j;
}

#endif
