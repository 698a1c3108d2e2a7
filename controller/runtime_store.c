/* runtime_store.c: the learned run times' ConfigMap (see runtime_store.h). */
#include "runtime_store.h"

#include <stdio.h>
#include <string.h>

#include "annotations.h"
#include "configmaps.h"
#include "log.h"
#include "writes.h"

int ctl_runtime_store_init(ctl_runtime_store *s, kube_client *c, const char *ns, const char *name,
                           ds_err *err)
{
    memset(s, 0, sizeof *s);
    s->client = c;
    snprintf(s->ns, sizeof s->ns, "%s", ns);
    snprintf(s->name, sizeof s->name, "%s", name);
    return ds_rt_history_init(&s->history, DS_RT_MAX_KEYS, err);
}

void ctl_runtime_store_free(ctl_runtime_store *s)
{
    ds_rt_history_free(&s->history);
}

int ctl_runtime_store_load(ctl_runtime_store *s, ds_err *err)
{
    if (!kube_valid_name(s->ns) || !kube_valid_name(s->name))
        return ds_err_set(err, "run-time history configmap: invalid name %s/%s", s->ns, s->name);
    const kube_configmap *cm = NULL;
    long status = 0;
    int rc = kube_get_configmap(s->client, s->ns, s->name, &cm, &status, err);
    if (rc != 0 && status == 404) {
        s->loaded = true;
        return ds_rt_history_decode(&s->history, "", 0, NULL, err);
    }
    if (rc != 0)
        return -1;
    const char *text = kube_cm_value(cm, DS_RUNTIME_HISTORY_DATA_KEY);
    size_t skipped = 0;
    rc = ds_rt_history_decode(&s->history, text != NULL ? text : "", text ? strlen(text) : 0,
                              &skipped, err);
    kube_obj_unref(&cm->meta);
    if (rc != 0)
        return -1;
    if (skipped > 0)
        KLOG_WARN("runtimes", "configmap %s/%s: %zu malformed line(s) skipped", s->ns, s->name,
                  skipped);
    s->loaded = true;
    return 0;
}

int ctl_runtime_store_save(ctl_runtime_store *s, double now, ds_err *err)
{
    if (!s->loaded || !s->history.dirty || now - s->saved_at < CTL_RT_SAVE_EVERY_S)
        return 0;
    ds_bytebuf b;
    ds_bytebuf_init(&b, 900u << 10);
    if (ds_rt_history_encode(&s->history, &b, err) != 0) {
        ds_bytebuf_free(&b);
        return -1;
    }
    const char *const labels[] = {"app.kubernetes.io/managed-by", "dagsched-controller",
                                  DS_LABEL_KIND, DS_KIND_RUNTIME_HISTORY};
    const char *const data[] = {DS_RUNTIME_HISTORY_DATA_KEY, b.data != NULL ? b.data : ""};
    kube_cm_spec spec = {
        .ns = s->ns, .name = s->name, .labels = labels, .n_labels = 2, .data = data, .n_data = 1};
    kube_apply_result res;
    int rc = kube_cm_apply(s->client, &spec, &res, err);
    ds_bytebuf_free(&b);
    if (rc != 0) {
        s->history.dirty = true; /* try again later */
        return -1;
    }
    s->saved_at = now;
    return 1;
}
