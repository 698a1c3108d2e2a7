/* cluster_view.h: the cluster as dagsched's controller sees it, read once for a command of
 * kubectl-dagsched.
 *
 * Lists (through the kube client's informers, so decoding and bounds are the components' own)
 * pods, nodes, namespaces (where allowed), PodDisruptionBudgets, batch/v1 Jobs of DAG tasks,
 * JobGraph ConfigMaps, Argo
 * Workflows (where the API server serves them; else a warning, once) and the SchedulingPolicy
 * ConfigMaps, picks the active policy as the components do (kube/policy_source.h;
 * the built-in defaults when no policy ConfigMap can be read, said in `policy_source`), and builds
 * the controller's snapshot (controller/tracker.h): the same job model, task states, DSP
 * priorities, level deadlines, slack and queue order the controller computes.
 *
 * A job declared by a Workflow keeps its tasks, their states and times after Argo's podGC deleted
 * their pods: they come from the Workflow's status.nodes (ds_job.node, cli_view_task_times).
 *
 * With a namespace, only that namespace's pods, Jobs and JobGraphs are listed: jobs are per
 * namespace, so each job's model is complete, but queue positions are then among that namespace's
 * waiting tasks only. With `wide` (get jobs, describe job), every namespace's are listed where the
 * user may (the release queue and the room the controller sees: queue positions and the room
 * forecast of the ETA, cli/eta_inputs.h), and the commands show only the namespace's jobs
 * (cli_view_shows); where they may not, the namespace's alone, with wide_note saying so. */
#ifndef DAGSCHED_CLI_CLUSTER_VIEW_H
#define DAGSCHED_CLI_CLUSTER_VIEW_H

#include <stdbool.h>

#include "client.h"
#include "ds_error.h"
#include "policy_source.h"
#include "tracker.h"

typedef struct cli_view_opts {
    const char *kubeconfig, *context;
    const char *ns;        /* NULL: the kubeconfig context's namespace (else "default") */
    bool all_namespaces;   /* every namespace (ns ignored) */
    const char *policy_ns; /* namespace of the policy ConfigMaps (default dagsched-system) */
    const char *policy_name;
    double timeout_s; /* for each list */
    bool wide;        /* list every namespace where allowed (see above) */
} cli_view_opts;

typedef struct cli_view {
    ctl_snapshot snap;
    kube_policy_state policy;
    char policy_note[256]; /* "" or why the built-in defaults are used */
    char ns[254];          /* the namespace shown; "" for every namespace */
    bool wide;             /* every namespace's pods, Jobs, JobGraphs and Workflows were listed */
    char wide_note[512];   /* "" or why only the namespace's were (opts.wide) */
    bool nodes_listed;     /* the nodes could be listed */
    /* The namespaces could be listed: their labels name tenants (spec.fairness.tenantLabel) and
     * select namespaces (spec.preemption.namespaceSelector) as the controller reads them. */
    bool namespaces_listed;
    char namespaces_note[320]; /* "" or why they could not be */
    /* The run times the controller learned (ConfigMap dagsched-runtime-history in the policy
     * namespace, lib/runtime_history.h); empty when it cannot be read. */
    ds_rt_history learned;
} cli_view;

/* A client of the API server for o's kubeconfig and context (each request bounded by
 * o->timeout_s); ns receives the namespace to use: o->ns, else the context's, else "default".
 * 0 on success; -1 with err set (a kubeconfig problem). */
int cli_client_open(const cli_view_opts *o, kube_client **out, char *ns, size_t ns_size,
                    ds_err *err);

/* Every object of `kind` (in ns, or everywhere when ns is NULL) matching selector (may be NULL),
 * page by page, decoded with dec (may be NULL); an object that does not decode is skipped with a
 * note on stderr. 0, or -1 with err set (the API server's answer). */
int cli_list_kind(kube_client *c, kube_kind kind, const char *ns, const char *selector,
                  const kube_decode_opts *dec, kube_obj_list *out, ds_err *err);

/* The active policy as the components pick it (o->policy_ns, o->policy_name); note receives ""
 * or why the built-in defaults are used. */
void cli_load_policy(kube_client *c, const cli_view_opts *o, kube_policy_state *st, char *note,
                     size_t note_size);

/* 0 on success; -1 with err set (a kubeconfig problem, a list that failed or timed out: the
 * message names the resource and the API server's answer). */
int cli_view_load(const cli_view_opts *o, cli_view *out, ds_err *err);
/* cli_view_load for a command: 0, or 1 (the command's exit status) with the error printed and
 * out freed. */
int cli_view_load_or_report(const cli_view_opts *o, cli_view *out);
void cli_view_free(cli_view *v);

/* The pod that represents task t of job j in the snapshot, or NULL (no pod yet). */
const ctl_pod *cli_view_task_pod(const ctl_snapshot *s, const ds_job *j, size_t t);
/* When a task was created, started and finished: epoch seconds, NAN when unknown. */
typedef struct cli_task_times {
    double created, started, finished;
} cli_task_times;

/* The times of task t of job j: its pod's (creation, status.startTime, its containers' last
 * finish; a running task without status.startTime yet: the job model's start); for a job declared
 * by a Workflow, when the task has no pod (podGC deleted it) the
 * times of its node in status.nodes (startedAt as creation, and as start once the node runs or
 * ran), and a finish the pod lacks from its finished node. */
void cli_view_task_times(const ctl_snapshot *s, const ds_job *j, size_t t, cli_task_times *out);

/* Whether job j is one the command shows: of the namespace shown (every one for ""). */
bool cli_view_shows(const cli_view *v, const ds_job *j);

/* The job named `name` in namespace ns ("" for any), or NULL. */
const ds_job *cli_view_find_job(const ctl_snapshot *s, const char *ns, const char *name);

#endif
