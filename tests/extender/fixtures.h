/* fixtures.h: cluster objects for the extender's handler tests and benchmark, built as API JSON
 * and decoded by the Kubernetes object decoder (exactly what the informers cache). Aborts on
 * failure: fixtures are test input, not something to recover from. */
#ifndef DAGSCHED_EXT_FIXTURES_H
#define DAGSCHED_EXT_FIXTURES_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "objects.h"

static inline void fx_die(const char *what, const char *msg)
{
    fprintf(stderr, "fixture %s: %s\n", what, msg);
    abort();
}

static inline const kube_meta *fx_decode(kube_kind kind, json_t *j, const char *what)
{
    kube_meta *m = NULL;
    ds_err err;
    kube_decode_opts opts = {0};
    if (kube_obj_decode(kind, j, &opts, &m, &err) != 0)
        fx_die(what, err.msg);
    json_decref(j);
    return m;
}

/* A node with allocatable cpu/memory (quantity strings) and an optional dagsched.io/speed. */
static inline const kube_node *fx_node(const char *name, const char *cpu, const char *mem,
                                       const char *speed)
{
    json_t *labels = json_object();
    json_object_set_new(labels, "kubernetes.io/hostname", json_string(name));
    if (speed != NULL)
        json_object_set_new(labels, "dagsched.io/speed", json_string(speed));
    json_t *j = json_pack("{s:{s:s,s:s,s:s,s:o},s:{s:{s:s,s:s,s:s}}}", "metadata", "name", name,
                          "uid", name, "resourceVersion", "1", "labels", labels, "status",
                          "allocatable", "cpu", cpu, "memory", mem, "pods", "110");
    if (j == NULL)
        fx_die(name, "json_pack failed");
    return (const kube_node *)fx_decode(KUBE_KIND_NODE, j, name);
}

typedef struct fx_pod_spec {
    const char *ns, *name, *uid, *rv;
    const char *job, *task;                      /* labels, NULL when absent */
    const char *depends_on, *runtime, *deadline; /* annotations, NULL when absent */
    const char *node;                            /* spec.nodeName, NULL when unbound */
    const char *phase;                           /* "Pending", "Running", ... */
    const char *cpu, *mem;                       /* requests */
    const char *created, *started;               /* RFC 3339, NULL when absent */
    const char *priority_class;
    const char *extra_label_key, *extra_label_value;
    /* The controlling owner's kind: NULL for a ReplicaSet (an owner that recreates its pods),
     * "" for none (a bare pod). */
    const char *owner_kind;
    const char *reserved_node; /* annotation dagsched.io/reserved-node, NULL when absent */
    const char *scheduler;     /* spec.schedulerName: NULL for "dagsched", "" for none */
} fx_pod_spec;

/* The Pod as API JSON (caller owns the reference). */
static inline json_t *fx_pod_json(const fx_pod_spec *s)
{
    json_t *labels = json_object();
    if (s->job != NULL)
        json_object_set_new(labels, "dagsched.io/job", json_string(s->job));
    if (s->task != NULL)
        json_object_set_new(labels, "dagsched.io/task", json_string(s->task));
    if (s->extra_label_key != NULL)
        json_object_set_new(labels, s->extra_label_key, json_string(s->extra_label_value));
    json_t *ann = json_object();
    if (s->depends_on != NULL)
        json_object_set_new(ann, "dagsched.io/depends-on", json_string(s->depends_on));
    if (s->runtime != NULL)
        json_object_set_new(ann, "dagsched.io/runtime", json_string(s->runtime));
    if (s->deadline != NULL)
        json_object_set_new(ann, "dagsched.io/deadline", json_string(s->deadline));
    if (s->reserved_node != NULL)
        json_object_set_new(ann, "dagsched.io/reserved-node", json_string(s->reserved_node));
    json_t *meta =
        json_pack("{s:s,s:s,s:s,s:s,s:o,s:o}", "name", s->name, "namespace", s->ns, "uid", s->uid,
                  "resourceVersion", s->rv ? s->rv : "1", "labels", labels, "annotations", ann);
    if (s->created != NULL)
        json_object_set_new(meta, "creationTimestamp", json_string(s->created));
    const char *owner = s->owner_kind != NULL ? s->owner_kind : "ReplicaSet";
    if (owner[0] != '\0')
        json_object_set_new(meta, "ownerReferences",
                            json_pack("[{s:s,s:s,s:s,s:s,s:b}]", "apiVersion", "apps/v1", "kind",
                                      owner, "name", "owner", "uid", "uid-owner", "controller", 1));
    json_t *req = json_object();
    if (s->cpu != NULL)
        json_object_set_new(req, "cpu", json_string(s->cpu));
    if (s->mem != NULL)
        json_object_set_new(req, "memory", json_string(s->mem));
    json_t *spec = json_pack("{s:[{s:s,s:s,s:{s:o}}]}", "containers", "name", "main", "image", "x",
                             "resources", "requests", req);
    if (s->node != NULL)
        json_object_set_new(spec, "nodeName", json_string(s->node));
    if (s->priority_class != NULL)
        json_object_set_new(spec, "priorityClassName", json_string(s->priority_class));
    const char *sched = s->scheduler != NULL ? s->scheduler : "dagsched";
    if (sched[0] != '\0')
        json_object_set_new(spec, "schedulerName", json_string(sched));
    json_t *status = json_pack("{s:s}", "phase", s->phase ? s->phase : "Pending");
    if (s->started != NULL)
        json_object_set_new(status, "startTime", json_string(s->started));
    json_t *j = json_pack("{s:o,s:o,s:o}", "metadata", meta, "spec", spec, "status", status);
    if (j == NULL)
        fx_die(s->name, "json_pack failed");
    return j;
}

static inline const kube_pod *fx_pod(const fx_pod_spec *s)
{
    return (const kube_pod *)fx_decode(KUBE_KIND_POD, fx_pod_json(s), s->name);
}

/* A Namespace with the automatic name label and, when key is not NULL, one more label. */
static inline const kube_namespace *fx_namespace(const char *name, const char *key,
                                                 const char *value)
{
    json_t *labels = json_object();
    json_object_set_new(labels, "kubernetes.io/metadata.name", json_string(name));
    if (key != NULL)
        json_object_set_new(labels, key, json_string(value));
    json_t *j = json_pack("{s:{s:s,s:s,s:s,s:o},s:{s:s}}", "metadata", "name", name, "uid", name,
                          "resourceVersion", "1", "labels", labels, "status", "phase", "Active");
    if (j == NULL)
        fx_die(name, "json_pack failed");
    return (const kube_namespace *)fx_decode(KUBE_KIND_NAMESPACE, j, name);
}

/* A ConfigMap with one data entry. */
static inline const kube_configmap *fx_configmap(const char *ns, const char *name, const char *rv,
                                                 const char *kind_label, const char *key,
                                                 const char *value)
{
    json_t *j = json_pack("{s:{s:s,s:s,s:s,s:s,s:{s:s}},s:{s:s}}", "metadata", "name", name,
                          "namespace", ns, "uid", name, "resourceVersion", rv, "labels",
                          "dagsched.io/kind", kind_label, "data", key, value);
    if (j == NULL)
        fx_die(name, "json_pack failed");
    return (const kube_configmap *)fx_decode(KUBE_KIND_CONFIGMAP, j, name);
}

#endif
