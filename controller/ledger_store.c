/* ledger_store.c: the eviction ledger's ConfigMap (see ledger_store.h). */
#include "ledger_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "configmaps.h"
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

static const char *const MANAGED[] = {"app.kubernetes.io/managed-by", "dagsched-controller"};

static int create_empty(ctl_ledger_store *s, ds_err *err)
{
    const char *const data[] = {CTL_LEDGER_KEY, "[]"}; /* an empty ledger, as decode reads it */
    kube_cm_spec spec = {
        .ns = s->ns, .name = s->name, .labels = MANAGED, .n_labels = 1, .data = data, .n_data = 1};
    int rc = kube_cm_create(s->client, &spec, s->resource_version, sizeof s->resource_version, err);
    if (rc == 0)
        ctl_ledger_clear(&s->ledger);
    return rc;
}

int ctl_ledger_store_load(ctl_ledger_store *s, ds_err *err)
{
    if (!kube_valid_name(s->ns) || !kube_valid_name(s->name))
        return ds_err_set(err, "ledger configmap: invalid name %s/%s", s->ns, s->name);
    const kube_configmap *cm = NULL;
    long status = 0;
    int rc = kube_get_configmap(s->client, s->ns, s->name, &cm, &status, err);
    if (rc != 0 && status == 404) {
        rc = create_empty(s, err);
        s->loaded = rc == 0;
        return rc;
    }
    if (rc != 0)
        return -1;
    const char *text = kube_cm_value(cm, CTL_LEDGER_KEY);
    const char *tasks = kube_cm_value(cm, CTL_LEDGER_TASKS_KEY);
    const char *rv = cm->meta.resource_version;
    ctl_ledger tmp;
    ctl_ledger_init(&tmp);
    if ((text != NULL && ctl_ledger_decode(text, strlen(text), &tmp, err) != 0) ||
        (tasks != NULL && ctl_ledger_decode_tasks(tasks, strlen(tasks), &tmp, err) != 0)) {
        ds_err_prefix(err, "ledger configmap %s/%s", s->ns, s->name);
        ctl_ledger_free(&tmp);
        kube_obj_unref(&cm->meta);
        return -1;
    }
    if (rv == NULL || rv[0] == '\0' || strlen(rv) >= sizeof s->resource_version) {
        ctl_ledger_free(&tmp);
        kube_obj_unref(&cm->meta);
        return ds_err_set(err, "ledger configmap %s/%s: no usable metadata.resourceVersion", s->ns,
                          s->name);
    }
    snprintf(s->resource_version, sizeof s->resource_version, "%s", rv);
    kube_obj_unref(&cm->meta);
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
    const char *const data[] = {CTL_LEDGER_KEY, text, CTL_LEDGER_TASKS_KEY, tasks};
    kube_cm_spec spec = {.ns = s->ns,
                         .name = s->name,
                         .resource_version = s->resource_version,
                         .labels = MANAGED,
                         .n_labels = 1,
                         .data = data,
                         .n_data = 2};
    long status = 0;
    int rc = kube_cm_replace(s->client, &spec, s->resource_version, sizeof s->resource_version,
                             &status, err);
    free(text);
    free(tasks);
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
