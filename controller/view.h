/* view.h: the controller's read-only view of the cluster for one decision round.
 *
 * The tracker (tracker.c) fills these plain structs from its informer caches and the job model;
 * the decision modules (guards.c, preempt.c, release.c, publish.c) are pure functions over them, so
 * they are unit-tested without a cluster. Strings are borrowed: they live as long as the snapshot
 * that holds the view. Absent strings are "" (never NULL); absent times are NAN. */
#ifndef DAGSCHED_CONTROLLER_VIEW_H
#define DAGSCHED_CONTROLLER_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "annotations.h"
#include "dsp.h"
#include "node_affinity.h"
#include "owner_retry.h"
#include "resources.h"
#include "victim.h" /* DS_NO_TASK */

#define CTL_ANN_MIRROR "kubernetes.io/config.mirror" /* a static pod's mirror */

typedef enum ctl_pod_state {
    CTL_POD_GATED = 0,     /* pending, held by the dagsched.io/dependencies scheduling gate */
    CTL_POD_PENDING,       /* pending, not bound, not (yet) found unschedulable */
    CTL_POD_UNSCHEDULABLE, /* pending, not bound, PodScheduled=False with reason Unschedulable */
    CTL_POD_BOUND,         /* bound to a node and not finished (Pending with a node, Running) */
    CTL_POD_SUCCEEDED,
    CTL_POD_FAILED,
} ctl_pod_state;

typedef struct ctl_kv {
    const char *key;
    const char *value;
} ctl_kv;

typedef enum ctl_taint_effect {
    CTL_TAINT_NO_SCHEDULE = 0,
    CTL_TAINT_PREFER_NO_SCHEDULE,
    CTL_TAINT_NO_EXECUTE,
} ctl_taint_effect;

typedef struct ctl_taint {
    const char *key;
    const char *value;
    ctl_taint_effect effect;
} ctl_taint;

typedef struct ctl_toleration {
    const char *key;    /* "" with operator Exists: tolerates every taint */
    bool op_exists;     /* operator Exists (else Equal) */
    const char *value;  /* for Equal */
    const char *effect; /* "" matches every effect */
} ctl_toleration;

/* The job model's answer for a pod that is a task of a DAG job. */
typedef struct ctl_task_info {
    size_t job;          /* index into the round's jobs (DAGs); DS_NO_TASK outside a DAG */
    size_t task;         /* index of the task in that job's DAG */
    ds_task_state state; /* from the job's pods: blocked, waiting, running, succeeded, failed */
    bool evaluated;      /* the DSP evaluation below is valid */
    ds_task_eval eval;
    bool has_upstream;  /* the task depends on other tasks (only those are ever nudged) */
    size_t queue_pos;   /* place in the policy's queue order (spec.order) among all waiting
                         * tasks, 0 first; SIZE_MAX when not waiting */
    double order[2];    /* its job's figures in that order (ds_order_job_figures), for the
                         * queue-order rule of preemption; NAN outside a DAG */
    double job_slack_s; /* its job's slack and remaining critical path (ds_job_summary), for */
    double job_path_s;  /* the job deadline rule of preemption; NAN outside a DAG */
    size_t job_steps;   /* the tasks on that path */
    /* The job's and the task's names in the job model (borrowed like the pod's strings), NULL
     * outside a DAG: the identity that cooldowns follow across replacement pods. */
    const char *job_name, *task_name;
    /* The pod names a DAG job but has no task in a valid one (its job is invalid right now: a
     * cycle, conflicting deadlines...; or the pod has an error) and may depend on other tasks
     * (ds_jobset_pod_must_wait): it stays outside the DAG but keeps any gate, since releasing it
     * could break the dependency order. invalid_why says why (the job's or the pod's error,
     * borrowed from the job model); the InvalidJobGraph Event says it too. */
    bool job_invalid;
    const char *invalid_why;
    /* An Argo pod whose node its Workflow does not list yet (ds_pod_result.unlisted): it waits
     * like a task of an invalid job, with its own reason; invalid_why says it. */
    bool unlisted;
    /* Its job is deferred this round (--max-graph-tasks-per-round, workset.h): it is outside the
     * round's job model (job is DS_NO_TASK) and left as it is: a gated pod keeps its gate and its
     * waiting reason, a suspended Job stays suspended; one released and not yet bound still
     * counts in flight. */
    bool deferred;
} ctl_task_info;

typedef struct ctl_pod {
    const char *ns, *name, *uid;
    /* The labels of its namespace (spec.preemption.namespaceSelector). ns_known is false when the
     * namespace is not in the controller's namespace cache (then it has no labels here). */
    bool ns_known;
    const ctl_kv *ns_labels;
    size_t n_ns_labels;
    const char *node;           /* spec.nodeName, "" when unbound */
    const char *priority_class; /* spec.priorityClassName, "" when none */
    int32_t k8s_priority;       /* spec.priority (0 when unset) */
    const ctl_kv *labels;
    size_t n_labels;
    const ctl_kv *node_selector; /* spec.nodeSelector */
    size_t n_node_selector;
    const ctl_toleration *tolerations;
    size_t n_tolerations;
    /* spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: when
     * has_required_affinity, the node must satisfy required_affinity (its arrays borrowed like
     * the strings). affinity_error is "" unless the affinity was malformed or over the decoding
     * limits: then it says why, and the pod can run on no node the controller knows of. */
    bool has_required_affinity;
    ds_node_selector required_affinity;
    const char *affinity_error;
    /* Why the pod's dagsched labels or annotations cannot be used (kube_meta.dagsched_error, e.g.
     * "annotation dagsched.io/depends-on: 204800 bytes, limit 65536"), "" when they can: such a
     * pod is outside any DAG job (task.job is DS_NO_TASK) and is never held back. */
    const char *dagsched_error;
    /* Evictions of its owner's pods that leave the owner recreating them without failing
     * (ds_owner_evictions_left: DS_EVICTIONS_UNLIMITED, a Job's retries left, 0 with owner_verdict
     * saying why), and the owner's uid, by which the evictions of one round are counted. */
    size_t owner_evictions_left;
    ds_retry_verdict owner_verdict;
    const char *owner_uid;
    bool mirror; /* a static pod's mirror (kubernetes.io/config.mirror) */
    ctl_pod_state state;
    bool other_gates;           /* scheduling gates other than dagsched.io/dependencies */
    bool terminating;           /* metadata.deletionTimestamp is set, on the pod or on its
                                 * namespace (whose controller deletes every pod of it): the pod
                                 * is leaving; it is not released, ungated, annotated or evicted */
    double created_at;          /* metadata.creationTimestamp */
    double started_at;          /* status.startTime, NAN when not started */
    double unschedulable_since; /* PodScheduled=False lastTransitionTime, NAN otherwise */
    ds_res request;             /* effective request: max(sum containers, any init) + overhead */
    double evicted_at;          /* annotation dagsched.io/evicted-at, NAN when absent */
    double nudged_at;           /* annotation dagsched.io/upstream-succeeded-at, NAN when absent */
    bool released;              /* annotation dagsched.io/released-at present */
    bool has_runtime;           /* annotation dagsched.io/runtime present */
    const char *scheduler_name; /* spec.schedulerName ("" when absent) */
    /* Not dagsched's pod: its schedulerName is another scheduler's. The controller never
     * releases, nudges, annotates or evicts it, nor evicts for it (it stays in the job model,
     * where it takes room). Set by the controller (ctl_mark_foreign), false in a bare view. */
    bool foreign;
    const char *waiting_reason; /* annotation dagsched.io/waiting-reason, "" when absent */
    /* PodDisruptionBudgets of its namespace that select it (filled for bound pods only). */
    unsigned n_pdbs;
    bool pdb_blocks; /* one of them allows no disruption now (status.disruptionsAllowed <= 0) */
    bool pdb_stale;  /* one of them has a status older than its spec (observedGeneration) */
    ctl_task_info task;
} ctl_pod;

typedef struct ctl_node {
    const char *name;
    ds_res allocatable;
    bool schedulable; /* Ready and not cordoned (spec.unschedulable) */
    const ctl_kv *labels;
    size_t n_labels;
    const ctl_taint *taints;
    size_t n_taints;
    double speed; /* processing rate g(k): the policy's speed label, else DSP Eq. 1; a value
                   * that is not a positive number counts as 1.0 (the reference) */
} ctl_node;

/* A Namespace: its labels, for spec.preemption.namespaceSelector. */
typedef struct ctl_namespace {
    const char *name;
    const ctl_kv *labels;
    size_t n_labels;
    bool terminating; /* metadata.deletionTimestamp is set: its pods are being deleted */
} ctl_namespace;

/* A batch/v1 Job that is a DAG task (labels dagsched.io/job and dagsched.io/task). */
typedef struct ctl_batch_job {
    const char *ns, *name, *uid;
    double created_at;
    bool suspended; /* spec.suspend */
    bool has_pods;  /* status.active + succeeded + failed > 0 */
    ds_res request; /* effective request of one pod of its template */
    ctl_task_info task;
} ctl_batch_job;

/* Lookup helpers. */
const char *ctl_kv_get(const ctl_kv *kv, size_t n, const char *key); /* NULL when absent */
const char *ctl_pod_state_name(ctl_pod_state s);

#endif
