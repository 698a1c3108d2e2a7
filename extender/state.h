/* state.h: what the extender knows about the cluster, as immutable snapshots.
 *
 * A snapshot holds the nodes (allocatable, usage from bound unfinished pods, processing rate),
 * every pod, the namespaces (their labels, for the policy's namespaceSelector), the DAG jobs
 * evaluated by the job model at the snapshot's time, the active policy and the
 * normalised-priority scale P_bar. It is built from informer caches by a background thread: the
 * informers' callbacks queue the changes of pods, JobGraphs and Workflows for the builder's
 * snapshot cache (snapcache.h) and mark the state dirty; the builder waits for a short quiet
 * period (debounce), applies the changes, evaluates the job model again for the jobs they touch
 * only, and publishes the new snapshot with a pointer swap. Priorities depend on time, so it also
 * rebuilds periodically, then from the informers' lists and evaluating every job. Request
 * handlers take a reference to the current
 * snapshot (a few instructions under a mutex), read it without any lock and release it: they never
 * wait for a rebuild and always see one consistent state.
 *
 * ext_snapshot_build is the pure part (objects in, snapshot out) and is what the handler tests and
 * the benchmark use; ext_state is the live part (informers, builder thread, policy hot reload,
 * Events on invalid policy ConfigMaps). */
#ifndef DAGSCHED_EXT_STATE_H
#define DAGSCHED_EXT_STATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client.h"
#include "joborder.h"
#include "jobmodel.h"
#include "metrics.h"
#include "objects.h"
#include "policy.h"
#include "room_hold.h"
#include "sailfish.h"
#include "strmap.h"

typedef struct ext_node {
    const char *name; /* in the snapshot's node_names */
    ds_node_view view;
    size_t n_pods; /* bound unfinished pods counted in view.requested */
} ext_node;

typedef struct ext_snapshot {
    atomic_int refs;
    uint64_t seq;     /* increases with every snapshot built by one ext_state */
    double now;       /* wall-clock time the job model was evaluated at */
    double build_s;   /* how long building took */
    ds_policy policy; /* active policy */
    uint64_t policy_generation;
    char policy_source[320];

    const kube_node **node_objs; /* references */
    ext_node *nodes;
    size_t n_nodes;
    char *node_names;     /* the nodes' names, packed (keys of node_index) */
    ds_strmap node_index; /* name -> index into nodes */
    double max_speed;     /* fastest node's rate */

    const kube_pod **pods; /* references, in the order given to the job model */
    size_t n_pods;
    size_t *pod_node; /* node index of each bound unfinished pod, or DS_NONE */

    ds_jobset jobs;
    double (*job_order)[2];  /* [jobs.n_jobs] each job's figures in the order across jobs */
    ds_job_summary *job_sum; /* [jobs.n_jobs] each job's summary (the job deadline rule) */
    double pbar_half;        /* P_bar / 2 over every waiting and running task of valid jobs */
    size_t n_dsp_tasks;

    const kube_configmap **graph_objs; /* JobGraph ConfigMaps (references) */
    size_t n_graphs;
    const kube_workflow **wf_objs; /* Argo Workflows (references) */
    size_t n_wfs;

    const kube_namespace **namespaces; /* references */
    size_t n_namespaces;

    /* Room held for preemptors (lib/room_hold.h): the pending pods that carry
     * dagsched.io/reserved-node, with the node's index; the filter keeps other pods off it. */
    ds_room_hold *holds;
    size_t n_holds;
    ds_strmap namespace_index; /* name -> index into namespaces */

    /* Built by an ext_snapcache (snapcache.h): the groups of objects the pods, jobs, JobGraphs and
     * Workflows come from (references; they own the pod references); NULL from
     * ext_snapshot_build. */
    struct ext_unit **units;
    size_t n_units;
} ext_snapshot;

/* Everything a snapshot is built from. Arrays are borrowed; the snapshot takes its own references.
 */
typedef struct ext_build_input {
    const kube_node *const *nodes;
    size_t n_nodes;
    const kube_pod *const *pods;
    size_t n_pods;
    const kube_configmap *const *graphs; /* JobGraph ConfigMaps */
    size_t n_graphs;
    const kube_workflow *const *workflows; /* Argo Workflows; may be NULL */
    size_t n_workflows;
    const kube_namespace *const *namespaces; /* may be NULL: no namespace known */
    size_t n_namespaces;
    const ds_policy *policy;
    uint64_t policy_generation;
    const char *policy_source;
    const ds_rt_history *learned; /* run times learned from earlier runs; may be NULL */
    double now;
} ext_build_input;

/* Build a snapshot (refs = 1). 0 on success; -1 with err set on allocation failure or invalid
 * priority parameters. Per-job and per-pod problems are recorded in jobs, not errors. */
int ext_snapshot_build(const ext_build_input *in, ext_snapshot **out, ds_err *err);

const ext_snapshot *ext_snapshot_ref(const ext_snapshot *s);
void ext_snapshot_unref(const ext_snapshot *s);

/* The node named `name`, or NULL. O(1) expected. */
const ext_node *ext_snapshot_node(const ext_snapshot *s, const char *name);

/* When room frees anyway for a waiting DAG task (job, task of s->jobs) of this request
 * (ds_room_preemptor_wait over the snapshot): the running DAG tasks' expected ends, the nodes'
 * free resources, and the requests of the waiting DAG pods before it in the queue order; and the
 * wait an eviction saves it (ds_room_saved_wait: those pods that carry a scheduling gate wait at
 * it). 0 with *wait_s and *saved_s set (not a number for a task the snapshot does not know), or
 * -1 with err set on allocation failure. */
int ext_snapshot_room_wait(const ext_snapshot *s, size_t job, size_t task, const ds_res *request,
                           double *wait_s, double *saved_s, ds_err *err);

/* The namespace named `name`, or NULL when the snapshot does not know it. O(1) expected. */
const kube_namespace *ext_snapshot_namespace(const ext_snapshot *s, const char *name);

/* Whether a pod may be evicted under the policy: the evictor filter of lib/evictor.h, which the
 * controller applies too (ns: the pod's namespace, NULL when unknown, which matches no namespace
 * selector but an empty one). */
bool ext_pod_evictable(const kube_pod *p, const kube_namespace *ns, const ds_policy *pol);

/* A pod counts on its node while bound and not Succeeded or Failed. */
bool ext_pod_occupies_node(const kube_pod *p);

/* ---- live state ---- */

typedef struct ext_state_opts {
    const char *policy_namespace; /* where policy ConfigMaps live */
    const char *policy_name;      /* default "default" */
    double debounce_s;            /* quiet period before a rebuild; default 0.05 */
    double max_delay_s;           /* rebuild at most this long after the first change; 0.1 */
    double refresh_s;             /* periodic full rebuild (priorities age); default 5 */
    metrics_registry *metrics;    /* may be NULL */
    const char *component;        /* Event source component; default "dagsched-extender" */
} ext_state_opts;

typedef struct ext_state ext_state;

/* Create the informers (pods, nodes, namespaces, JobGraph ConfigMaps cluster-wide, policy
 * ConfigMaps in the policy namespace) and the builder thread, and start them. */
int ext_state_start(kube_client *client, const ext_state_opts *opts, ext_state **out, ds_err *err);
void ext_state_stop(ext_state *st); /* stops threads; idempotent */
void ext_state_free(ext_state *st);

/* A reference to the current snapshot (release with ext_snapshot_unref), or NULL before the first
 * one is built (the caches have not synced yet). */
const ext_snapshot *ext_state_acquire(ext_state *st);

/* ext_ctx.tasks_succeeded for the live state (user = the ext_state): has every named task of job
 * ns/job a Succeeded pod in the pod informer's cache right now? When not, and a missing task's pod
 * still runs in that cache (kube-scheduler may have seen it finish a moment before the watch
 * did), the job's pods are read from the API server: a synchronous GET on the calling (HTTP)
 * thread under a mutex, at most 2 s, not retried, its answer shared for 250 ms per job. Any
 * failure answers false (the task keeps waiting). */
bool ext_state_tasks_succeeded(void *user, const char *ns, const char *job,
                               const char *const *tasks, size_t n);

/* Every informer has synced and a snapshot exists. */
bool ext_state_ready(ext_state *st);

/* Healthy: ready, and every informer in contact with the API server within max_age_s. */
bool ext_state_healthy(ext_state *st, double max_age_s, char *why, size_t why_size);

/* Post a Warning Event about a pod (deduplicated by pod uid, reason and message for ten minutes).
 * Asynchronous: queued for the event thread, never blocks the caller. True when queued, false
 * when suppressed as a duplicate or the queue is full. */
bool ext_state_pod_event(ext_state *st, const kube_pod *pod, const char *reason,
                         const char *message);

#endif
