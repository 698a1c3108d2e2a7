/* ctl_test_util.h: builders for the controller's unit tests: pods, nodes and job DAGs of the
 * controller's view, with hand-set DSP evaluations so that every expected decision can be
 * computed by hand. */
#ifndef DAGSCHED_CTL_TEST_UTIL_H
#define DAGSCHED_CTL_TEST_UTIL_H

#include <math.h>
#include <string.h>

#include "dag.h"
#include "view.h"

#define MILLI(c) ((int64_t)(c)*1000)
#define GIB      ((int64_t)1 << 30)
#define NOW      1000000.0

static inline ctl_pod t_pod(const char *ns, const char *name, ctl_pod_state state)
{
    ctl_pod p;
    memset(&p, 0, sizeof p);
    p.ns = ns;
    p.name = name;
    p.uid = name; /* unique in each test */
    p.node = "";
    p.waiting_reason = "";
    p.priority_class = "";
    p.owner_evictions_left = DS_EVICTIONS_UNLIMITED; /* recreated whatever happens */
    p.owner_verdict = DS_RETRY_OK;
    p.owner_uid = name;
    p.state = state;
    p.created_at = NOW - 1000;
    p.started_at = NAN;
    p.unschedulable_since = NAN;
    p.evicted_at = NAN;
    p.nudged_at = NAN;
    p.task.job = DS_NO_TASK;
    p.task.task = DS_NO_TASK;
    p.task.job_slack_s = p.task.job_path_s = NAN;
    return p;
}

/* A running DAG task on a node, started 10 minutes ago with an hour left, no deadline: evicting
 * it pays for a waiting task (lib/preempt_rules.h, exchange rule). */
static inline ctl_pod t_running(const char *ns, const char *name, const char *node, size_t job,
                                size_t task, double prio, int64_t cpu)
{
    ctl_pod p = t_pod(ns, name, CTL_POD_BOUND);
    p.node = node;
    p.started_at = NOW - 600;
    p.request.v[DS_RES_CPU] = cpu;
    p.task.job = job;
    p.task.task = task;
    p.task.state = DS_TASK_RUNNING;
    p.task.evaluated = true;
    p.task.eval.priority = prio;
    p.task.eval.t_allow_s = INFINITY;
    p.task.eval.level_deadline = INFINITY;
    p.task.eval.t_rem_s = 3600;
    p.task.order[0] = 200; /* after every waiting task's job in the order across jobs */
    p.task.order[1] = 0;
    p.task.job_slack_s = INFINITY;
    p.task.job_path_s = 3600;
    return p;
}

/* A waiting DAG task that kube-scheduler found unschedulable; slack t_allow. */
static inline ctl_pod t_waiting(const char *ns, const char *name, size_t job, size_t task,
                                double prio, double t_allow, int64_t cpu)
{
    ctl_pod p = t_pod(ns, name, CTL_POD_UNSCHEDULABLE);
    p.unschedulable_since = NOW - 5;
    p.request.v[DS_RES_CPU] = cpu;
    p.task.job = job;
    p.task.task = task;
    p.task.state = DS_TASK_WAITING;
    p.task.evaluated = true;
    p.task.has_upstream = true;
    p.task.eval.priority = prio;
    p.task.eval.t_allow_s = t_allow;
    p.task.eval.level_deadline = isfinite(t_allow) ? NOW + t_allow + 60 : INFINITY;
    p.task.eval.t_rem_s = 3600;
    p.task.eval.t_wait_s = 5;
    p.task.order[0] = 100;
    p.task.order[1] = 0;
    p.task.job_slack_s = t_allow; /* a job of one level: its slack is the task's */
    p.task.job_path_s = 3600;
    return p;
}

static inline ctl_node t_node(const char *name, int64_t cpu)
{
    ctl_node n;
    memset(&n, 0, sizeof n);
    n.name = name;
    n.allocatable.v[DS_RES_CPU] = cpu;
    n.allocatable.v[DS_RES_MEMORY] = 64 * GIB;
    n.schedulable = true;
    return n;
}

/* A DAG of n independent tasks named t0..t(n-1) (n <= 16). */
static inline int t_flat_dag(ds_dag *d, size_t n)
{
    static const char *names[] = {"t0", "t1", "t2",  "t3",  "t4",  "t5",  "t6",  "t7",
                                  "t8", "t9", "t10", "t11", "t12", "t13", "t14", "t15"};
    ds_task_spec specs[16];
    memset(specs, 0, sizeof specs);
    for (size_t i = 0; i < n; i++) {
        specs[i].name = names[i];
        specs[i].runtime_s = 60;
    }
    return ds_dag_build(d, specs, n, NULL);
}

/* A chain a -> b -> c (indexes 0, 1, 2). */
static inline int t_chain_dag(ds_dag *d)
{
    static const char *up_b[] = {"a"};
    static const char *up_c[] = {"b"};
    ds_task_spec specs[3] = {
        {.name = "a", .runtime_s = 60},
        {.name = "b", .runtime_s = 60, .upstream = up_b, .n_upstream = 1},
        {.name = "c", .runtime_s = 60, .upstream = up_c, .n_upstream = 1},
    };
    return ds_dag_build(d, specs, 3, NULL);
}

#endif
