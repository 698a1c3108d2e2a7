/* jobmodel.h: turning what is observed in the cluster (pods, JobGraph ConfigMaps) into DSP jobs.
 *
 * The extender and the controller both call ds_jobs_build with a snapshot of the pods and JobGraphs
 * they watch; it groups pods into jobs, builds and validates each job's DAG, derives every task's
 * state from its pods, resolves the deadline and evaluates DSP priorities (dsp.h). Pure: no I/O, no
 * clock (the caller passes `now`). docs/dag-jobs.md is the user-facing reference for the labels,
 * annotations and the JobGraph format.
 *
 * Bad input never breaks the build of other jobs:
 *  - a pod error (e.g. a job label without a task label) is recorded for that pod only;
 *  - a job error (cycle, unknown upstream task, conflicting deadlines, a malformed annotation, a
 *    malformed JobGraph...) marks the job invalid with a message; its pods stay attached to it so
 *    callers can post an Event and leave them alone;
 *  - warnings (defaults assumed, annotations that disagree with the JobGraph) are informational.
 *
 * Pods may arrive in any order. In a job declared by annotations, an upstream task that no pod
 * carries yet is a task of the DAG without a pod (ds_job.missing): it never succeeds, so its
 * dependents stay BLOCKED until its pod exists and succeeds. Past DS_MISSING_TASK_GRACE_S the job
 * says why it is stalled (ds_job.stalled). A pod that names a job but has no task in a valid job
 * must not run while it may depend on other tasks (ds_jobset_pod_must_wait).
 *
 * Cost: O(pods log pods + tasks + edges) overall; a build with thousands of pods and 2,000-task
 * jobs takes milliseconds (make bench-jobmodel). A built set is never modified by the query
 * functions below, so several threads may read one set at once. */
#ifndef DAGSCHED_JOBMODEL_H
#define DAGSCHED_JOBMODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "annotations.h"
#include "arena.h"
#include "argo_wf.h"
#include "dag.h"
#include "ds_error.h"
#include "dsp.h"
#include "jobgraph.h"
#include "resources.h"
#include "runtime_history.h"
#include "strmap.h"

#define DS_NONE ((size_t)-1) /* "no index" */

#define DS_DEFAULT_RUNTIME_S    60.0 /* a task without dagsched.io/runtime (warned) */
#define DS_JOBSET_MAX_PODS      1000000
#define DS_JOBSET_MAX_GRAPHS    100000
#define DS_JOBSET_MAX_WORKFLOWS 100000
#define DS_DEADLINE_TOLERANCE_S 0.001 /* deadlines of one job agree when this close */
/* How long a task that other tasks name in dagsched.io/depends-on may lack a pod before its job is
 * reported stalled (ds_job.stalled): the pods of a job created in any order (one `kubectl create
 * -f`, a webhook outage) all exist well within it. */
#define DS_MISSING_TASK_GRACE_S 120.0
/* Argo creates a task's pod before it records the pod's node in the Workflow's status.nodes (a
 * fan-out, a retry). Such a pod of a valid Workflow waits, gated, for the node to be listed
 * (ds_pod_result.unlisted), at most this long after its creation; then it is not a task. */
#define DS_WF_UNLISTED_GRACE_S 60.0
/* What follows the name of such a task wherever a reason lists the upstream tasks a task waits
 * for (the job model, the controller's waiting reasons, the plugin). */
#define DS_MISSING_TASK_NOTE " (not created yet)"

/* Pod phases (status.phase). */
enum {
    DS_PHASE_PENDING = 0,
    DS_PHASE_RUNNING,
    DS_PHASE_SUCCEEDED,
    DS_PHASE_FAILED,
    DS_PHASE_UNKNOWN,
};

/* One pod as observed. Strings are borrowed for the duration of ds_jobs_build only (the result
 * keeps copies of what it needs); NULL means "label/annotation absent". */
typedef struct ds_pod_obs {
    const char *ns, *name, *uid;
    const char *job_label;      /* label dagsched.io/job */
    const char *argo_workflow;  /* label workflows.argoproj.io/workflow (used without job_label) */
    const char *task;           /* label dagsched.io/task */
    const char *depends_on;     /* annotation dagsched.io/depends-on */
    const char *runtime;        /* annotation dagsched.io/runtime */
    const char *deadline;       /* annotation dagsched.io/deadline */
    const char *deadline_after; /* annotation dagsched.io/deadline-after */
    const char *argo_node_id;   /* annotation workflows.argoproj.io/node-id */
    const char *argo_node_name; /* annotation workflows.argoproj.io/node-name */
    int phase;                  /* DS_PHASE_* */
    bool bound;                 /* spec.nodeName is set */
    double created_at;          /* metadata.creationTimestamp, epoch seconds; NAN when unknown */
    double started_at;          /* status.startTime; NAN when unknown */
    double finished_at; /* when it terminated (latest container finishedAt); NAN when unknown */
    double node_speed;  /* processing rate of its node; <= 0 or NAN means 1.0 */
    ds_res request;     /* effective resource request (not interpreted here) */
} ds_pod_obs;

/* One JobGraph ConfigMap. The job key is the graph's metadata.name in namespace `ns`. */
typedef struct ds_graph_obs {
    const char *ns;
    const char *name; /* the ConfigMap's name, for messages */
    const char *yaml; /* data["graph.yaml"]; need not be NUL-terminated */
    size_t len;
    double created_at; /* the ConfigMap's creationTimestamp (origin of spec.deadlineAfter) */
} ds_graph_obs;

/* What Argo's status.nodes says about a task of a job declared by a Workflow. */
typedef struct ds_task_node {
    ds_wf_node_phase phase;
    double started_at, finished_at; /* NAN when unknown */
    bool has_pod;                   /* its template runs a pod */
    ds_wf_runtime_source runtime_source;
    ds_res request;   /* its pods' request as its template states it (before a pod exists) */
    bool has_request; /* the template states one */
} ds_task_node;

typedef struct ds_job {
    char *ns, *name; /* namespace and job key */
    char *key;       /* "ns/name" */
    char *graph;     /* name of the declaring JobGraph ConfigMap, or NULL */
    char *workflow;  /* name of the declaring Argo Workflow, or NULL (a JobGraph wins over it) */
    char *family;    /* the job family of learned run times (ds_jobset_runtime_key), or NULL */
    bool valid;
    char *error;   /* why the job is invalid; NULL when valid */
    char *stalled; /* valid job: why some tasks cannot run until it is fixed (a task named as an
                    * upstream has had no pod for DS_MISSING_TASK_GRACE_S); NULL otherwise */

    /* The rest is set for valid jobs only (zeroed/NULL otherwise). */
    ds_dag dag;
    ds_task_status *status; /* [dag.n] */
    ds_task_node *node;     /* [dag.n] for a job declared by a Workflow; NULL otherwise */
    ds_task_eval *eval;     /* [dag.n] DSP evaluation at `now` */
    size_t *task_pod;       /* [dag.n] index of the pod that represents the task, or DS_NONE */
    unsigned char *missing; /* [dag.n] 1: only named as an upstream task, no pod carries it (a job
                             * declared by annotations); NULL when there is none */
    double *wait_rank;      /* [dag.n] ds_jobset_wait_rank of WAITING tasks; -1 otherwise */
    double *level_deadline; /* [dag.n_levels + 1]; [l] for level l; INFINITY without deadline */
    double deadline;        /* absolute epoch seconds; INFINITY without one */
    double created_at;      /* earliest creation time of its pods and JobGraph; NAN if unknown */

    size_t *pods; /* indexes of every observed pod carrying this job's key */
    size_t n_pods;
} ds_job;

typedef struct ds_pod_result {
    size_t job;    /* index into jobs, or DS_NONE (not a DAG pod, or no usable job key) */
    size_t task;   /* task index in the job's DAG, or DS_NONE (invalid job, pod error) */
    bool primary;  /* the pod that represents its task (see ds_jobs_build) */
    char *error;   /* what is wrong with this pod, or NULL */
    char *warning; /* informational ("; "-separated), or NULL */
    bool depends;  /* its dagsched.io/depends-on annotation names (or may name) upstream tasks */
    bool unlisted; /* an Argo pod whose node its Workflow does not list yet, created less than
                    * DS_WF_UNLISTED_GRACE_S ago: it waits (error says so) */
} ds_pod_result;

typedef struct ds_graph_result {
    size_t job;  /* job the graph declares, or DS_NONE when metadata.name is unusable */
    char *error; /* why the graph was rejected, or NULL */
} ds_graph_result;

typedef struct ds_wf_result {
    size_t job;  /* job the Workflow declares, or DS_NONE when its name or namespace is unusable */
    char *error; /* why it cannot be a DAG job for dagsched, or NULL */
} ds_wf_result;

typedef struct ds_jobset {
    ds_job *jobs;
    size_t n_jobs;
    ds_pod_result *pods; /* one per observed pod, in input order */
    size_t n_pods;
    ds_graph_result *graphs; /* one per observed graph, in input order */
    size_t n_graphs;
    ds_wf_result *wfs; /* one per observed Workflow, in input order */
    size_t n_wfs;
    size_t n_waiting; /* WAITING tasks of valid jobs (with or without a pod) */
    /* private */
    ds_arena arena;
    ds_strmap job_index; /* "ns/name" -> job */
    ds_strmap pod_index; /* uid -> pod */
    bool joined;         /* made by ds_jobset_join: DAGs and strings belong to the parts */
} ds_jobset;

/* Build the jobs seen in `pods` and `graphs` at time `now`.
 *
 * Task state: a task's pod is the newest (by creation time) non-terminal pod carrying its task
 * name, else the newest Succeeded one, else the newest Failed one. Succeeded -> SUCCEEDED, Failed
 * -> FAILED, bound and not finished -> RUNNING (started at startTime, else creation), unbound ->
 * WAITING when every upstream task has SUCCEEDED, else BLOCKED. A task of a JobGraph without any
 * pod is WAITING or BLOCKED the same way (it counts in priorities but cannot be placed). A WAITING
 * task's runnable_since is the latest of its upstream tasks' finish times and its pod's creation.
 *
 * Returns 0 on success (individual errors are recorded in the set), -1 with err set on invalid
 * arguments (NULL pointers, too many pods or graphs, bad priority parameters) or out of memory;
 * *out is then empty. Free with ds_jobset_free in both cases. */
int ds_jobs_build(const ds_pod_obs *pods, size_t n_pods, const ds_graph_obs *graphs,
                  size_t n_graphs, double now, const ds_priority_params *pp, ds_jobset *out,
                  ds_err *err);

/* ds_jobs_build with Argo Workflows too (argo_wf.h): a Workflow declares the job of its name in
 * its namespace, unless a JobGraph declares it (the JobGraph wins). Its tasks come from
 * ds_wf_expand; a pod of the job is its task by the annotations workflows.argoproj.io/node-id or
 * node-name (else by its dagsched.io/task label); a pod matching no task (an exit handler's) gets
 * a pod error. Task states: as for pods, except that a task whose node has finished takes the
 * node's result (succeeded tasks stay succeeded after Argo's podGC deletes their pods), a task
 * whose node is running without a pod of its own (suspend) is running, and a failed pod of a task
 * whose node has not failed (Argo retries it) leaves the task waiting for its next attempt. A
 * Workflow that cannot be expanded makes its job invalid with the reason. */
int ds_jobs_build_wf(const ds_pod_obs *pods, size_t n_pods, const ds_graph_obs *graphs,
                     size_t n_graphs, const ds_wf_obs *wfs, size_t n_wfs, double now,
                     const ds_priority_params *pp, ds_jobset *out, ds_err *err);

/* ds_jobs_build_wf with run times learned from earlier runs (lib/runtime_history.h; NULL: none):
 * a task without a run time of its own (no dagsched.io/runtime on its pod or template, nor on
 * its Workflow, nor an Argo estimatedDuration) counts its learned estimate, under the key
 * "<ns>/<job family>/<task>" (ds_jobset_runtime_key), instead of DS_DEFAULT_RUNTIME_S; its pods'
 * warning and, for a Workflow, ds_task_node.runtime_source say so. */
int ds_jobs_build_learned(const ds_pod_obs *pods, size_t n_pods, const ds_graph_obs *graphs,
                          size_t n_graphs, const ds_wf_obs *wfs, size_t n_wfs, double now,
                          const ds_priority_params *pp, const struct ds_rt_history *learned,
                          ds_jobset *out, ds_err *err);

/* The key of learned run times (ds_rt_key) of task `task` of job j: the job family is the job's
 * name, or its Workflow's family (ds_wf_obs.family, kept in ds_job.family); an Argo task's item
 * or retry suffix "(...)" is dropped, so every item of a fan-out shares one history. False when
 * no key can be made. */
bool ds_jobset_runtime_key(const struct ds_job *j, const char *task, char *buf, size_t size);

/* Record in h the run of every task of a valid job that succeeded (lib/runtime_learn.c): its
 * pod's run time times its node's speed (reference seconds), or, for a Workflow's task whose pod
 * podGC deleted, its node's; each run once (by pod uid, or Workflow and task). pods: the pods the
 * set was built from. Returns the runs recorded. */
size_t ds_jobset_learn_runtimes(const ds_jobset *s, const ds_pod_obs *pods, size_t n_pods,
                                ds_rt_history *h, double now);

void ds_jobset_free(ds_jobset *s);

/* Join sets built separately (ds_jobs_build_wf) from disjoint groups of objects, where each group
 * holds every pod, JobGraph and Workflow carrying the keys of its jobs, into the set one build over
 * all the groups' objects, in group order, evaluated at the same time, would give: pod i of
 * parts[k] becomes pod base_k + i (base_k: the pods of the parts before it), jobs, graphs and
 * Workflows follow in part order, and waiting tasks are ranked across all jobs. The result borrows
 * DAGs, task states, evaluations and strings from the parts, which must outlive it and stay
 * unchanged. 0, or -1 with err set when out of memory (*out then empty). Free with ds_jobset_free.
 * Cost: O(pods + jobs + tasks) plus sorting the waiting tasks. */
int ds_jobset_join(const ds_jobset *const *parts, size_t n_parts, ds_jobset *out, ds_err *err);

/* The job `name` of namespace `ns`, or NULL. O(1) expected. */
const ds_job *ds_jobset_find_job(const ds_jobset *s, const char *ns, const char *name);

/* Index of the pod with this uid in the input (and in s->pods), or DS_NONE. O(1) expected. */
size_t ds_jobset_find_pod(const ds_jobset *s, const char *uid);

/* Whether pod i (an index into s->pods), which names a DAG job (label or Argo Workflow) but has no
 * task in a valid job (its job is invalid, or the pod has an error), must not run: it may depend on
 * other tasks, through its own dagsched.io/depends-on annotation (also a malformed one) or through
 * the broken JobGraph that declares its job. Running it could start it before its upstream tasks.
 * A pod of a job declared by an Argo Workflow waits here only while Argo has not listed its node
 * yet (ds_pod_result.unlisted: a fan-out or retry pod, at most DS_WF_UNLISTED_GRACE_S; once listed
 * it is a task, released in the order of the DAG); otherwise it never does (Argo creates each pod
 * after its upstream tasks), nor does a root task (no dependencies): it may run. False for a pod
 * that has a task in a valid job (its task state decides) and for a pod outside every job. */
bool ds_jobset_pod_must_wait(const ds_jobset *s, size_t i);

/* The same rule for a pod that names job j but is not in the set (newer than it), or has no task
 * in j: `depends` says whether its dagsched.io/depends-on names upstream tasks
 * (ds_depends_on_declared). */
bool ds_job_holds_pod(const ds_job *j, bool depends);

/* Names of the upstream tasks of `task` that have not succeeded, in DAG order, joined by ", " into
 * buf ("a, b"; a task without a pod yet as "b (not created yet)"); when they do not all fit, as
 * many as fit followed by "and N more". Returns how many there are (0: the task may run). buf may
 * be NULL when bufsize is 0. */
size_t ds_job_pending_upstream(const ds_job *j, size_t task, char *buf, size_t bufsize);

/* Rank of a WAITING task's priority among the n WAITING tasks of all valid jobs: 1 - (number of
 * waiting tasks with a strictly higher priority) / (n - 1), so 1 for the highest priority (and for
 * a task waiting alone), 0 for the lowest; equal priorities share a rank. -1 when the task is not
 * WAITING or out of range. */
double ds_jobset_wait_rank(const ds_jobset *s, const ds_job *j, size_t task);

/* "blocked", "waiting", "running", "succeeded", "failed". */
const char *ds_task_state_name(ds_task_state state);

#endif
