/* jobmodel_helpers.h: shared helpers of the job model unit tests (observed pods, lookups). */
#ifndef DAGSCHED_TEST_JOBMODEL_HELPERS_H
#define DAGSCHED_TEST_JOBMODEL_HELPERS_H

#include <math.h>
#include <string.h>

#include "../common/ds_assert.h"
#include "jobmodel.h"

#define NS "default"
#define T0 1795000000.0 /* 2026-11-18T11:06:40Z */

/* A pending, unbound pod of job `job` and task `task`, created at T0; uid = name. */
static inline ds_pod_obs mkpod(const char *name, const char *job, const char *task,
                               const char *deps, const char *runtime)
{
    ds_pod_obs p;
    memset(&p, 0, sizeof p);
    p.ns = NS;
    p.name = name;
    p.uid = name;
    p.job_label = job;
    p.task = task;
    p.depends_on = deps;
    p.runtime = runtime;
    p.phase = DS_PHASE_PENDING;
    p.created_at = T0;
    p.started_at = NAN;
    p.finished_at = NAN;
    p.node_speed = 1.0;
    return p;
}

static inline void set_running(ds_pod_obs *p, double started, double speed)
{
    p->bound = true;
    p->phase = DS_PHASE_RUNNING;
    p->started_at = started;
    p->node_speed = speed;
}

static inline void set_done(ds_pod_obs *p, int phase, double finished)
{
    p->bound = true;
    p->phase = phase;
    p->finished_at = finished;
}

/* Build with default priority parameters; fails the test on error. */
static inline void build_ok(ds_jobset *s, const ds_pod_obs *pods, size_t n,
                            const ds_graph_obs *graphs, size_t ng, double now)
{
    ds_priority_params pp;
    ds_priority_defaults(&pp);
    ds_err e = {{0}};
    int rc = ds_jobs_build(pods, n, graphs, ng, now, &pp, s, &e);
    if (rc != 0)
        fail_msg("ds_jobs_build: %s", e.msg);
}

static inline const ds_job *job_named(const ds_jobset *s, const char *name)
{
    const ds_job *j = ds_jobset_find_job(s, NS, name);
    if (j == NULL)
        fail_msg("no job %s/%s", NS, name);
    return j;
}

static inline size_t task_idx(const ds_job *j, const char *name)
{
    size_t t = 0;
    if (ds_dag_find(&j->dag, name, &t) != 0)
        fail_msg("job %s has no task %s", j->key, name);
    return t;
}

static inline ds_task_state state_of(const ds_job *j, const char *name)
{
    return j->status[task_idx(j, name)].state;
}

static inline const ds_pod_result *pod_res(const ds_jobset *s, const char *uid)
{
    size_t i = ds_jobset_find_pod(s, uid);
    if (i == DS_NONE)
        fail_msg("no pod %s", uid);
    return &s->pods[i];
}

#endif
