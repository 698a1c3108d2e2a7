/* writes.h: the changes dagsched makes to the cluster: patches (merge, JSON, strategic), created
 * objects and Events, evictions (policy/v1), scheduling-gate removal, Job suspension, pod
 * annotations and nominations, and the ConfigMaps the controller keeps; and the read of one named
 * object before such a change (a pod decoded as the informers decode it, kube/objects.h). Every
 * call goes through the request layer (retries on connection errors, 429 throttling and 5xx; Status
 * messages in errors). Names are checked before they go into a URL: every path that holds a
 * namespace or an object name is built here. */
#ifndef DAGSCHED_KUBE_WRITES_H
#define DAGSCHED_KUBE_WRITES_H

#include <jansson.h>
#include <stdbool.h>

#include "client.h"
#include "objects.h"

/* Whether s is a valid object name or namespace for a URL path: 1..253 of [a-z0-9.-], starting
 * and ending with an alphanumeric character. */
bool kube_valid_name(const char *s);

/* PATCH path with the given body; *out (may be NULL) receives the patched object. patch_type is
 * the media type: "application/merge-patch+json", "application/json-patch+json" or
 * "application/strategic-merge-patch+json". */
int kube_patch(kube_client *c, const char *path, const char *patch_type, const json_t *patch,
               json_t **out, ds_err *err);
int kube_patch_merge(kube_client *c, const char *path, const json_t *patch, json_t **out,
                     ds_err *err);
/* ops: a JSON array of RFC 6902 operations. */
int kube_patch_json(kube_client *c, const char *path, const json_t *ops, json_t **out, ds_err *err);

/* POST obj to a collection path ("/api/v1/namespaces/a/pods"); *out (may be NULL) receives the
 * created object. */
int kube_create(kube_client *c, const char *collection_path, const json_t *obj, json_t **out,
                ds_err *err);
/* DELETE path; a 404 counts as success when missing_ok. */
int kube_delete(kube_client *c, const char *path, bool missing_ok, ds_err *err);

/* The object an Event is about. */
typedef struct kube_object_ref {
    const char *api_version; /* "v1" */
    const char *kind;        /* "Pod" */
    const char *ns;
    const char *name;
    const char *uid; /* may be NULL */
} kube_object_ref;

/* Create a core/v1 Event about obj in its namespace. type: "Normal" or "Warning"; reason:
 * CamelCase; message truncated to 1024 bytes; component: the reporting component. */
int kube_create_event(kube_client *c, const kube_object_ref *obj, const char *type,
                      const char *reason, const char *message, const char *component, ds_err *err);

typedef enum {
    KUBE_EVICT_OK,          /* eviction accepted (the pod is being deleted) */
    KUBE_EVICT_BLOCKED_PDB, /* 429: a PodDisruptionBudget does not allow it now */
    KUBE_EVICT_NOT_FOUND,   /* 404, or the pod with this uid is gone (uid precondition failed) */
    KUBE_EVICT_ERROR        /* anything else (err says what) */
} kube_evict_result;

/* Evict a pod through the Eviction API. uid (may be NULL) is a precondition: a newer pod with the
 * same name is never evicted by mistake. dry_run asks the server to check without acting. A 429
 * without a disruption-budget cause is API throttling and is retried with backoff. */
kube_evict_result kube_evict(kube_client *c, const char *ns, const char *name, const char *uid,
                             bool dry_run, ds_err *err);
const char *kube_evict_result_name(kube_evict_result r);

/* Remove one scheduling gate from a pod (a strategic merge patch deleting the gate by name;
 * removing a gate that is not there succeeds). */
int kube_remove_scheduling_gate(kube_client *c, const char *ns, const char *pod, const char *gate,
                                ds_err *err);
/* Release a gated pod in one request: remove the scheduling gate and set (value != NULL) or remove
 * (value == NULL) the n annotation pairs of kv (key, value) in the same strategic merge patch, so
 * the pod is never seen ungated without them. n 0: the gate only (kube_remove_scheduling_gate).
 * Returns 0 when done; 1 when the API server refused the annotations (422 Invalid: the pod's
 * annotations at their size limit) and a second request removed the gate alone (err says why the
 * first failed); -1 when the gate is still there (err says why). */
int kube_release_pod(kube_client *c, const char *ns, const char *pod, const char *gate,
                     const char *const *kv, size_t n, ds_err *err);
/* Set spec.suspend of a batch/v1 Job. */
int kube_set_job_suspend(kube_client *c, const char *ns, const char *job, bool suspend,
                         ds_err *err);
/* Set (value != NULL) or remove (value == NULL) one annotation on a pod. */
int kube_annotate_pod(kube_client *c, const char *ns, const char *pod, const char *key,
                      const char *value, ds_err *err);

/* Set (value != NULL) or remove (value == NULL) several annotations on a pod in one merge patch:
 * kv holds n pairs (key, value). */
int kube_annotate_pod_pairs(kube_client *c, const char *ns, const char *pod, const char *const *kv,
                            size_t n, ds_err *err);
/* Set status.nominatedNodeName of a pod (a merge patch of its status subresource), as
 * kube-scheduler's own preemption does; node NULL clears it. */
int kube_nominate_node(kube_client *c, const char *ns, const char *pod, const char *node,
                       ds_err *err);

/* GET one named object: api_prefix ("/api/v1", "/apis/batch/v1") + "/namespaces/<ns>/<resource>/
 * <name>". *out receives it; *status (may be NULL) the HTTP status (404: not there). */
int kube_get_named(kube_client *c, const char *api_prefix, const char *ns, const char *resource,
                   const char *name, json_t **out, long *status, ds_err *err);
/* GET one pod and decode it (kube/objects.h; opts may be NULL: no extended resource counted as
 * gpu): *out holds one reference (kube_obj_unref). *status (may be NULL) the HTTP status (404:
 * not there). A pod the decoder refuses is an error naming the field. */
int kube_get_pod(kube_client *c, const char *ns, const char *name, const kube_decode_opts *opts,
                 const kube_pod **out, long *status, ds_err *err);
/* Create a core/v1 ConfigMap in ns (obj: the whole object); *out (may be NULL) the created one. */
int kube_create_configmap(kube_client *c, const char *ns, const json_t *obj, json_t **out,
                          ds_err *err);
/* Replace (PUT) the ConfigMap ns/name with obj; a metadata.resourceVersion in obj makes it
 * conditional (409 when it changed meanwhile). *out (may be NULL) the stored object; *status
 * (may be NULL) the HTTP status. */
int kube_replace_configmap(kube_client *c, const char *ns, const char *name, const json_t *obj,
                           json_t **out, long *status, ds_err *err);

/* What kube_apply_configmap did, as kubectl apply says it. */
typedef enum {
    KUBE_APPLY_CREATED = 0,
    KUBE_APPLY_CONFIGURED, /* existed, replaced */
    KUBE_APPLY_UNCHANGED,  /* existed with the same data and labels: not written */
} kube_apply_result;

const char *kube_apply_result_name(kube_apply_result r); /* "created", "configured", "unchanged" */

/* Create the ConfigMap obj (metadata.namespace and metadata.name name it) or, when it exists,
 * replace its data and binaryData with obj's and set obj's labels on it, keeping its other
 * metadata (other labels, annotations, owner references): a conditional replace on the
 * resourceVersion read, so a concurrent change is never overwritten unseen; on a conflict
 * (409) the ConfigMap is read again, at most 3 attempts in all. */
int kube_apply_configmap(kube_client *c, const json_t *obj, kube_apply_result *res, ds_err *err);

/* Format seconds since the epoch as RFC 3339 with microseconds ("2026-11-22T10:00:00.123456Z"),
 * as Kubernetes MicroTime fields expect. buf: at least 32 bytes. */
void kube_format_microtime(double epoch_s, char *buf, size_t size);

#endif
