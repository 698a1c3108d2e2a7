/* configmaps.h: the ConfigMaps dagsched keeps (the eviction ledger, the learned run times) and
 * writes for users (a policy's ConfigMap): one way to describe one (kube_cm_spec: namespace,
 * name, labels and string data), to turn it into the object the API takes, to read one decoded as
 * the informers decode it (kube/objects.h), and to look a key up in its data. Callers hold no
 * JSON: the object's shape is built and read here only. */
#ifndef DAGSCHED_KUBE_CONFIGMAPS_H
#define DAGSCHED_KUBE_CONFIGMAPS_H

#include <jansson.h>
#include <stddef.h>

#include "client.h"
#include "objects.h"
#include "writes.h"

/* A ConfigMap to write. labels and data hold n_labels / n_data pairs (key, value). */
typedef struct kube_cm_spec {
    const char *ns;
    const char *name;
    const char *resource_version; /* NULL or "": no precondition; else a conditional replace */
    const char *const *labels;
    size_t n_labels;
    const char *const *data;
    size_t n_data;
} kube_cm_spec;

/* The v1 ConfigMap object of s (one new reference), or NULL when out of memory or a pair holds
 * NULL (said in err). */
json_t *kube_cm_object(const kube_cm_spec *s, ds_err *err);

/* GET the ConfigMap ns/name decoded: *out holds one reference (kube_obj_unref). *status (may be
 * NULL) the HTTP status (404: not there). */
int kube_get_configmap(kube_client *c, const char *ns, const char *name, const kube_configmap **out,
                       long *status, ds_err *err);

/* Create s (POST) or, with a resource version in s, replace it conditionally (PUT; 409 when it
 * changed meanwhile). rv (size rv_size, may be NULL) receives the stored object's
 * metadata.resourceVersion; *status (may be NULL) the HTTP status. A reply without a usable
 * resourceVersion is an error when rv is asked for. */
int kube_cm_create(kube_client *c, const kube_cm_spec *s, char *rv, size_t rv_size, ds_err *err);
int kube_cm_replace(kube_client *c, const kube_cm_spec *s, char *rv, size_t rv_size, long *status,
                    ds_err *err);

/* Create s or update it as kube_apply_configmap does (kube/writes.h). */
int kube_cm_apply(kube_client *c, const kube_cm_spec *s, kube_apply_result *res, ds_err *err);

/* data[key] of cm, or NULL when absent. */
const char *kube_cm_value(const kube_configmap *cm, const char *key);

#endif
