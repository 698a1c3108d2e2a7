/* configmaps.c: the ConfigMaps dagsched keeps and writes (see configmaps.h). */
#include "configmaps.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "writes.h"

static json_t *pairs_object(const char *const *kv, size_t n, const char *what, ds_err *err)
{
    json_t *o = json_object();
    if (o == NULL) {
        ds_err_set(err, "configmap: out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const char *k = kv[2 * i], *v = kv[2 * i + 1];
        if (k == NULL || v == NULL) {
            json_decref(o);
            ds_err_set(err, "configmap: %s pair %zu is incomplete", what, i);
            return NULL;
        }
        if (json_object_set_new(o, k, json_string(v)) != 0) {
            json_decref(o);
            ds_err_set(err, "configmap: %s %.64s: not a valid UTF-8 string or out of memory", what,
                       k);
            return NULL;
        }
    }
    return o;
}

/* o[key] = v (stolen), false when out of memory (v released). */
static bool put(json_t *o, const char *key, json_t *v)
{
    return o != NULL && v != NULL ? json_object_set_new(o, key, v) == 0 : (json_decref(v), false);
}

json_t *kube_cm_object(const kube_cm_spec *s, ds_err *err)
{
    if (s->ns == NULL || s->name == NULL) {
        ds_err_set(err, "configmap: namespace and name are required");
        return NULL;
    }
    json_t *labels = pairs_object(s->labels, s->n_labels, "label", err);
    json_t *data = labels != NULL ? pairs_object(s->data, s->n_data, "data", err) : NULL;
    if (data == NULL) {
        json_decref(labels);
        return NULL;
    }
    json_t *meta = json_object(), *cm = json_object();
    bool ok = put(meta, "name", json_string(s->name)) &&
              put(meta, "namespace", json_string(s->ns)) && put(meta, "labels", labels);
    labels = NULL;
    if (ok && s->resource_version != NULL && s->resource_version[0] != '\0')
        ok = put(meta, "resourceVersion", json_string(s->resource_version));
    ok = ok && put(cm, "apiVersion", json_string("v1")) &&
         put(cm, "kind", json_string("ConfigMap")) && put(cm, "metadata", json_incref(meta)) &&
         put(cm, "data", data);
    data = NULL;
    json_decref(meta);
    if (!ok) {
        json_decref(labels);
        json_decref(data);
        json_decref(cm);
        ds_err_set(err, "configmap %.64s/%.64s: out of memory or invalid UTF-8", s->ns, s->name);
        return NULL;
    }
    return cm;
}

int kube_get_configmap(kube_client *c, const char *ns, const char *name, const kube_configmap **out,
                       long *status, ds_err *err)
{
    *out = NULL;
    json_t *obj = NULL;
    if (kube_get_named(c, "/api/v1", ns, "configmaps", name, &obj, status, err) != 0)
        return -1;
    kube_meta *m = NULL;
    int rc = kube_obj_decode(KUBE_KIND_CONFIGMAP, obj, NULL, &m, err);
    json_decref(obj);
    if (rc != 0) {
        ds_err_prefix(err, "configmap %.64s/%.64s", ns, name);
        return -1;
    }
    *out = (const kube_configmap *)m;
    return 0;
}

/* The resourceVersion of a stored object into rv (rv NULL: nothing asked). */
static int take_version(const json_t *obj, const kube_cm_spec *s, char *rv, size_t rv_size,
                        ds_err *err)
{
    if (rv == NULL)
        return 0;
    const char *v =
        json_string_value(json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
    if (v == NULL || v[0] == '\0' || strlen(v) >= rv_size)
        return ds_err_set(err, "configmap %.64s/%.64s: no usable metadata.resourceVersion", s->ns,
                          s->name);
    snprintf(rv, rv_size, "%s", v);
    return 0;
}

int kube_cm_create(kube_client *c, const kube_cm_spec *s, char *rv, size_t rv_size, ds_err *err)
{
    json_t *cm = kube_cm_object(s, err);
    if (cm == NULL)
        return -1;
    json_t *out = NULL;
    int rc = kube_create_configmap(c, s->ns, cm, rv != NULL ? &out : NULL, err);
    json_decref(cm);
    if (rc == 0)
        rc = take_version(out, s, rv, rv_size, err);
    json_decref(out);
    return rc;
}

int kube_cm_replace(kube_client *c, const kube_cm_spec *s, char *rv, size_t rv_size, long *status,
                    ds_err *err)
{
    if (status != NULL)
        *status = 0;
    json_t *cm = kube_cm_object(s, err);
    if (cm == NULL)
        return -1;
    json_t *out = NULL;
    int rc = kube_replace_configmap(c, s->ns, s->name, cm, rv != NULL ? &out : NULL, status, err);
    json_decref(cm);
    if (rc == 0)
        rc = take_version(out, s, rv, rv_size, err);
    json_decref(out);
    return rc;
}

int kube_cm_apply(kube_client *c, const kube_cm_spec *s, kube_apply_result *res, ds_err *err)
{
    json_t *cm = kube_cm_object(s, err);
    if (cm == NULL)
        return -1;
    int rc = kube_apply_configmap(c, cm, res, err);
    json_decref(cm);
    return rc;
}

const char *kube_cm_value(const kube_configmap *cm, const char *key)
{
    for (size_t i = 0; cm != NULL && i < cm->n_data; i++)
        if (strcmp(cm->data[i].key, key) == 0)
            return cm->data[i].value;
    return NULL;
}
