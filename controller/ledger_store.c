/* ledger_store.c: the eviction ledger's ConfigMap (see ledger_store.h). */
#include "ledger_store.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "writes.h"

void ctl_ledger_store_init(ctl_ledger_store *s, kube_client *c, const char *ns, const char *name)
{
    memset(s, 0, sizeof *s);
    s->client = c;
    snprintf(s->ns, sizeof s->ns, "%s", ns);
    snprintf(s->name, sizeof s->name, "%s", name);
    ctl_ledger_init(&s->ledger);
}

void ctl_ledger_store_free(ctl_ledger_store *s)
{
    ctl_ledger_free(&s->ledger);
}

static int take_version(ctl_ledger_store *s, const json_t *cm, ds_err *err)
{
    const char *rv =
        json_string_value(json_object_get(json_object_get(cm, "metadata"), "resourceVersion"));
    if (rv == NULL || strlen(rv) >= sizeof s->resource_version)
        return ds_err_set(err, "ledger configmap %s/%s: no usable metadata.resourceVersion", s->ns,
                          s->name);
    snprintf(s->resource_version, sizeof s->resource_version, "%s", rv);
    return 0;
}

static int create_empty(ctl_ledger_store *s, ds_err *err)
{
    json_t *cm = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:{s:s}}", "apiVersion", "v1", "kind",
                           "ConfigMap", "metadata", "name", s->name, "namespace", s->ns, "labels",
                           "app.kubernetes.io/managed-by", "dagsched-controller", "data",
                           CTL_LEDGER_KEY, "[]");
    if (cm == NULL)
        return ds_err_set(err, "ledger: out of memory");
    json_t *out = NULL;
    int rc = kube_create_configmap(s->client, s->ns, cm, &out, err);
    json_decref(cm);
    if (rc == 0) {
        rc = take_version(s, out, err);
        ctl_ledger_clear(&s->ledger);
    }
    json_decref(out);
    return rc;
}

int ctl_ledger_store_load(ctl_ledger_store *s, ds_err *err)
{
    if (!kube_valid_name(s->ns) || !kube_valid_name(s->name))
        return ds_err_set(err, "ledger configmap: invalid name %s/%s", s->ns, s->name);
    json_t *cm = NULL;
    long status = 0;
    int rc = kube_get_named(s->client, "/api/v1", s->ns, "configmaps", s->name, &cm, &status, err);
    if (rc != 0 && status == 404) {
        rc = create_empty(s, err);
        s->loaded = rc == 0;
        return rc;
    }
    if (rc != 0)
        return -1;
    json_t *data = json_object_get(cm, "data");
    const char *text = json_string_value(json_object_get(data, CTL_LEDGER_KEY));
    const char *tasks = json_string_value(json_object_get(data, CTL_LEDGER_TASKS_KEY));
    ctl_ledger tmp;
    ctl_ledger_init(&tmp);
    if ((text != NULL && ctl_ledger_decode(text, strlen(text), &tmp, err) != 0) ||
        (tasks != NULL && ctl_ledger_decode_tasks(tasks, strlen(tasks), &tmp, err) != 0)) {
        ds_err_prefix(err, "ledger configmap %s/%s", s->ns, s->name);
        ctl_ledger_free(&tmp);
        json_decref(cm);
        return -1;
    }
    if (take_version(s, cm, err) != 0) {
        ctl_ledger_free(&tmp);
        json_decref(cm);
        return -1;
    }
    json_decref(cm);
    ctl_ledger_free(&s->ledger);
    s->ledger = tmp;
    s->loaded = true;
    return 0;
}

int ctl_ledger_store_save(ctl_ledger_store *s, double now, double keep_s, ds_err *err)
{
    if (!s->loaded)
        return ds_err_set(err, "ledger configmap %s/%s: not loaded", s->ns, s->name);
    ctl_ledger_prune(&s->ledger, now, keep_s);
    char *text = ctl_ledger_encode(&s->ledger);
    char *tasks = ctl_ledger_encode_tasks(&s->ledger);
    if (text == NULL || tasks == NULL) {
        free(text);
        free(tasks);
        return ds_err_set(err, "ledger: out of memory");
    }
    json_t *cm =
        json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:{s:s}}, s:{s:s, s:s}}", "apiVersion", "v1",
                  "kind", "ConfigMap", "metadata", "name", s->name, "namespace", s->ns,
                  "resourceVersion", s->resource_version, "labels", "app.kubernetes.io/managed-by",
                  "dagsched-controller", "data", CTL_LEDGER_KEY, text, CTL_LEDGER_TASKS_KEY, tasks);
    free(text);
    free(tasks);
    if (cm == NULL)
        return ds_err_set(err, "ledger: out of memory");
    json_t *out = NULL;
    long status = 0;
    int rc = kube_replace_configmap(s->client, s->ns, s->name, cm, &out, &status, err);
    json_decref(cm);
    if (rc == 0)
        rc = take_version(s, out, err);
    json_decref(out);
    if (rc != 0 && status == 409) {
        KLOG_WARN("ledger", "configmap %s/%s changed meanwhile; reloading it", s->ns, s->name);
        ds_err keep = *err;
        s->loaded = false;
        if (ctl_ledger_store_load(s, NULL) != 0)
            s->loaded = false;
        *err = keep;
    }
    return rc;
}
