/* objects.h: the minimal typed Kubernetes objects that dagsched caches, decoded from API JSON.
 *
 * Only the fields dagsched uses are kept. Each object is one allocation (struct, arrays and
 * strings packed together), immutable once decoded and reference counted: caches hand out
 * references, so a reader keeps a consistent snapshot however the cache changes meanwhile.
 * Absent strings are NULL. Every typed struct starts with kube_meta, so a `kube_meta *` can be
 * cast to the struct of its kind.
 *
 * Bounds: KUBE_OBJ_MAX_LABELS labels, KUBE_OBJ_MAX_STR bytes per name/label/value string,
 * KUBE_OBJ_MAX_ANNOTATION bytes per kept annotation (KUBE_OBJ_MAX_ANNOTATIONS of them,
 * KUBE_OBJ_MAX_ANNOTATION_TOTAL bytes in all), KUBE_OBJ_MAX_CM_DATA bytes of ConfigMap data.
 * Only annotations with the prefix "dagsched.io/" are kept. An object beyond a bound that a real
 * API server never exceeds (a name, a field's type, a timestamp...) is rejected with a message.
 * Labels and dagsched.io/ annotations of pods and batch Jobs are the exception: the API server
 * accepts any number of labels and 256 KiB of annotations, so beyond dagsched's bounds the object
 * is still decoded, without the map concerned, and kube_meta.dagsched_error says why when the
 * object carries dagsched metadata (see kube_meta). A pod's required node affinity is kept within
 * the limits of lib/node_affinity.h (beyond them, or malformed, it is recorded as invalid rather
 * than rejected: see kube_pod). Any other bound of a pod (spec.tolerations, spec.nodeSelector,
 * spec.schedulingGates, spec.containers... beyond what dagsched reads, all of which the API server
 * accepts) does not reject it either: the pod is decoded far enough to be identified and left
 * alone (name, namespace, uid, labels, node, phase, times, owner, whether it carries dagsched's
 * scheduling gate and other gates, its request when it can be computed), and dagsched_error says
 * why when the pod carries dagsched metadata or dagsched's gate. */
#ifndef DAGSCHED_KUBE_OBJECTS_H
#define DAGSCHED_KUBE_OBJECTS_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "annotations.h"
#include "ds_error.h"
#include "node_affinity.h"
#include "resources.h"

#define KUBE_OBJ_MAX_LABELS           256
#define KUBE_OBJ_MAX_STR              1024
#define KUBE_OBJ_MAX_ANNOTATION       (64u << 10)
#define KUBE_OBJ_MAX_ANNOTATIONS      KUBE_OBJ_MAX_LABELS /* dagsched.io/ annotations kept */
#define KUBE_OBJ_MAX_ANNOTATION_TOTAL (4 * KUBE_OBJ_MAX_ANNOTATION) /* their keys and values */
#define KUBE_OBJ_MAX_CM_ENTRIES       1024
#define KUBE_OBJ_MAX_CM_DATA          (1u << 20)
#define KUBE_OBJ_MAX_LIST             1024 /* containers, gates, selector terms, values */
/* A pod over its bounds keeps this name for all its other scheduling gates (see kube_pod). */
#define KUBE_GATE_OTHERS       "(other gates)"
#define KUBE_ANNOTATION_PREFIX "dagsched.io/"

typedef enum {
    KUBE_KIND_POD,
    KUBE_KIND_NODE,
    KUBE_KIND_CONFIGMAP,
    KUBE_KIND_PDB,
    KUBE_KIND_JOB,
    KUBE_KIND_NAMESPACE,
    KUBE_KIND_WORKFLOW, /* argoproj.io/v1alpha1 Workflow */
    KUBE_KIND_N
} kube_kind;

typedef struct kube_kv {
    const char *key;
    const char *value;
} kube_kv;

/* Common header of every cached object (first member of each typed struct). */
typedef struct kube_meta {
    atomic_int refs;
    kube_kind kind;
    const char *ns; /* NULL for cluster-scoped objects */
    const char *name;
    const char *uid;
    const char *resource_version;
    double creation_ts; /* seconds since the epoch; 0 when absent */
    bool deleting;      /* metadata.deletionTimestamp is set */
    const kube_kv *labels;
    size_t n_labels;
    const kube_kv *annotations; /* dagsched.io/ annotations only */
    size_t n_annotations;
    /* Pods and batch Jobs: why the object's dagsched metadata (dagsched.io/ labels and
     * annotations, the Argo workflow label) cannot be used, e.g. "annotation
     * dagsched.io/depends-on: 204800 bytes, limit 65536"; NULL when it can (or there is none).
     * When set, the map over its bounds is not kept (labels or annotations empty), the pod's
     * job_key and task_name are NULL, and dagsched treats the object as outside any DAG job. */
    const char *dagsched_error;
    size_t alloc_bytes; /* size of the object's single allocation */
} kube_meta;

/* spec.tolerations[] of a pod. */
typedef struct kube_toleration {
    const char *key;    /* NULL: every key (with operator Exists) */
    bool op_exists;     /* operator Exists (else Equal) */
    const char *value;  /* NULL when absent */
    const char *effect; /* NULL: every effect */
} kube_toleration;

/* spec.taints[] of a node. */
typedef struct kube_taint {
    const char *key;
    const char *value; /* NULL when absent */
    const char *effect;
} kube_taint;

typedef enum {
    KUBE_POD_PENDING,
    KUBE_POD_RUNNING,
    KUBE_POD_SUCCEEDED,
    KUBE_POD_FAILED,
    KUBE_POD_UNKNOWN
} kube_pod_phase;

typedef struct kube_pod {
    kube_meta meta;
    const char *node_name; /* spec.nodeName; NULL when not bound */
    kube_pod_phase phase;
    double start_time; /* status.startTime; 0 when absent */
    ds_res requests;   /* effective pod request, as the scheduler computes it */
    const char *priority_class;
    const char *scheduler_name; /* spec.schedulerName, or NULL */
    int32_t priority;
    bool has_priority;
    const char *const *gates; /* spec.schedulingGates[].name */
    size_t n_gates;
    const char *owner_kind; /* controller ownerReference, or NULL */
    const char *owner_name;
    const char *owner_uid;
    const char *job_key;        /* label dagsched.io/job, else workflows.argoproj.io/workflow */
    const char *task_name;      /* label dagsched.io/task */
    const char *argo_node_id;   /* annotation workflows.argoproj.io/node-id, or NULL */
    const char *argo_node_name; /* annotation workflows.argoproj.io/node-name, or NULL */
    /* What the controller needs to know about scheduling: */
    bool unschedulable;         /* condition PodScheduled is False with reason Unschedulable */
    double unschedulable_since; /* that condition's lastTransitionTime; 0 when absent */
    double finished_at; /* latest status.containerStatuses[].state.terminated.finishedAt; 0 */
    bool mirror;        /* annotation kubernetes.io/config.mirror is set (a static pod) */
    const kube_kv *node_selector; /* spec.nodeSelector */
    size_t n_node_selector;
    const kube_toleration *tolerations;
    size_t n_tolerations;
    /* spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, within the
     * limits of lib/node_affinity.h and checked by ds_node_selector_check. A malformed or
     * over-limit one does not fail the decoding: has_required_affinity is set, the selector is
     * left without terms (it matches no node) and affinity_error says why. */
    bool has_required_affinity;
    ds_node_selector required_affinity; /* arrays and strings live in the object */
    const char *affinity_error;         /* NULL when the affinity is absent or valid */
} kube_pod;

typedef struct kube_node {
    kube_meta meta;
    ds_res allocatable;
    bool unschedulable;
    bool ready; /* condition Ready is True */
    const kube_taint *taints;
    size_t n_taints;
} kube_node;

typedef struct kube_configmap {
    kube_meta meta;
    const kube_kv *data;
    size_t n_data;
} kube_configmap;

typedef enum {
    KUBE_SEL_IN,
    KUBE_SEL_NOT_IN,
    KUBE_SEL_EXISTS,
    KUBE_SEL_DOES_NOT_EXIST
} kube_selector_op;

typedef struct kube_selector_req {
    const char *key;
    kube_selector_op op;
    const char *const *values;
    size_t n_values;
} kube_selector_req;

typedef struct kube_pdb {
    kube_meta meta;
    bool has_selector; /* spec.selector present (absent or null selects nothing) */
    const kube_kv *match_labels;
    size_t n_match_labels;
    const kube_selector_req *match_expressions;
    size_t n_match_expressions;
    int32_t disruptions_allowed;
    int32_t current_healthy;
    int32_t desired_healthy;
    int32_t expected_pods;
    int64_t generation;
    int64_t observed_generation; /* status is stale while this is below generation */
} kube_pdb;

/* A Namespace: only its metadata (name and labels, for spec.preemption.namespaceSelector; the
 * resourceVersion the watch needs). Its spec and status are not kept. */
typedef struct kube_namespace {
    kube_meta meta;
} kube_namespace;

typedef struct kube_job {
    kube_meta meta;
    bool suspend;
    int32_t parallelism;
    int32_t completions; /* -1 when unset */
    int32_t active;
    int32_t succeeded;
    int32_t failed;
    bool finished; /* condition Complete or Failed is True */
    /* How it takes a pod's eviction (kube_job_retries_left): spec.backoffLimit (6 when unset), and
     * whether spec.podFailurePolicy has a rule with action Ignore on the pod condition
     * DisruptionTarget (an evicted pod then counts against nothing). A Job with
     * spec.backoffLimitPerIndex counts failures per index, which dagsched does not see: only the
     * Ignore rule makes its pods safe to evict. */
    int32_t backoff_limit;
    bool per_index_limit;
    bool ignores_disruption;
    /* The effective request of one pod of spec.template (as for a pod; zero without a
     * template). */
    ds_res pod_request;
} kube_job;

/* An Argo Workflow: what lib/argo_wf.h needs (kube/argo_decode.h), in an allocation of its own
 * that lives as long as the object. */
typedef struct kube_workflow {
    kube_meta meta;
    const struct kube_argo_wf *argo;
} kube_workflow;

/* What decoding needs beyond the JSON: the extended resource names counted as gpu. */
typedef struct kube_decode_opts {
    const char *const *gpu_names;
    size_t n_gpu_names;
} kube_decode_opts;

/* Add the quantities of a resources.requests (or limits, overhead) map to r: cpu in millicores,
 * memory, ephemeral-storage and the gpu names of opts in units; other names are ignored. NULL or
 * JSON null adds nothing. -1 with err set ("cpu: ...", "must be a map of quantities") otherwise. */
int kube_requests_add(const json_t *map, const kube_decode_opts *opts, ds_res *r, ds_err *err);

/* Decode an object of the given kind. On success *out holds one reference. Errors name the object
 * and the field: "pod batch/x: spec.containers[0].resources.requests.cpu: ...". */
int kube_obj_decode(kube_kind kind, const json_t *obj, const kube_decode_opts *opts,
                    kube_meta **out, ds_err *err);

/* Take / release a reference (NULL is ignored). The object is freed with its last reference. */
const kube_meta *kube_obj_ref(const kube_meta *m);
void kube_obj_unref(const kube_meta *m);

/* Lower-case singular kind ("pod") and the API collection path parts. */
const char *kube_kind_name(kube_kind kind);
/* "/api/v1", "/apis/policy/v1", "/apis/batch/v1". */
const char *kube_kind_api_prefix(kube_kind kind);
/* "pods", "nodes", "configmaps", "poddisruptionbudgets", "jobs", "namespaces". */
const char *kube_kind_resource(kube_kind kind);
bool kube_kind_namespaced(kube_kind kind);

/* Label (or kept annotation) lookup; NULL when absent. */
const char *kube_meta_label(const kube_meta *m, const char *key);
const char *kube_meta_annotation(const kube_meta *m, const char *key);

/* Whether the budget's selector selects the object's labels (same namespace is the caller's
 * business). A PDB without a selector selects nothing; an empty selector selects everything. */
bool kube_pdb_selects(const kube_pdb *pdb, const kube_meta *obj);

const char *kube_pod_phase_name(kube_pod_phase p);

#endif
