/* writes.c: patches, creations, Events, evictions, gate removal, Job suspension, annotations
 * (see writes.h). */
#include "writes.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "kutil.h"
#include "log.h"

#define EVENT_MESSAGE_MAX 1024
#define MERGE_PATCH       "application/merge-patch+json"

bool kube_valid_name(const char *s)
{
    if (s == NULL)
        return false;
    size_t n = strlen(s);
    if (n == 0 || n > 253)
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        if (!alnum && ch != '-' && ch != '.')
            return false;
        if ((i == 0 || i == n - 1) && !alnum)
            return false;
    }
    return true;
}

static int check_names(const char *ns, const char *name, ds_err *err)
{
    if (ns != NULL && !kube_valid_name(ns))
        return ds_err_set(err, "invalid namespace \"%.64s\"", ns);
    if (!kube_valid_name(name))
        return ds_err_set(err, "invalid name \"%.64s\"", name ? name : "(null)");
    return 0;
}

static int send_json(kube_client *c, const kube_request_opts *ro, const char *method,
                     const char *path, const char *content_type, const json_t *body, json_t **out,
                     kube_response *resp_out, ds_err *err)
{
    if (out != NULL)
        *out = NULL;
    char *text = body != NULL ? json_dumps(body, JSON_COMPACT) : NULL;
    if (body != NULL && text == NULL)
        return ds_err_set(err, "%s %s: cannot serialise the request body", method, path);
    kube_response resp;
    int rc = kube_request_ex(c, ro, method, path, text, content_type, &resp, err);
    free(text);
    if (rc == 0 && out != NULL)
        rc = kube_response_json(&resp, path, out, err);
    if (resp_out != NULL) {
        *resp_out = resp;
    } else {
        kube_response_free(&resp);
    }
    return rc;
}

int kube_patch(kube_client *c, const char *path, const char *patch_type, const json_t *patch,
               json_t **out, ds_err *err)
{
    return send_json(c, NULL, "PATCH", path, patch_type, patch, out, NULL, err);
}

int kube_patch_merge(kube_client *c, const char *path, const json_t *patch, json_t **out,
                     ds_err *err)
{
    return kube_patch(c, path, MERGE_PATCH, patch, out, err);
}

int kube_patch_json(kube_client *c, const char *path, const json_t *ops, json_t **out, ds_err *err)
{
    if (!json_is_array(ops))
        return ds_err_set(err, "JSON patch: operations must be an array");
    return kube_patch(c, path, "application/json-patch+json", ops, out, err);
}

/* PATCH (of patch_type) to the path fmt formats, with names the caller has checked; frees patch.
 * A NULL patch (json_pack out of memory) fails without a request. *status (may be NULL): the
 * answer's HTTP status (0: none). */
static int send_patch(kube_client *c, const char *patch_type, json_t *patch, long *status,
                      ds_err *err, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int send_patch(kube_client *c, const char *patch_type, json_t *patch, long *status,
                      ds_err *err, const char *fmt, ...)
{
    if (status != NULL)
        *status = 0;
    if (patch == NULL)
        return ds_err_set(err, "out of memory");
    char path[800];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    int rc;
    if (n < 0 || (size_t)n >= sizeof path) {
        rc = ds_err_set(err, "PATCH: request path too long");
    } else {
        kube_response resp;
        rc = send_json(c, NULL, "PATCH", path, patch_type, patch, NULL, &resp, err);
        if (status != NULL)
            *status = resp.status;
        kube_response_free(&resp);
    }
    json_decref(patch);
    return rc;
}

int kube_create(kube_client *c, const char *collection_path, const json_t *obj, json_t **out,
                ds_err *err)
{
    return send_json(c, NULL, "POST", collection_path, "application/json", obj, out, NULL, err);
}

int kube_delete(kube_client *c, const char *path, bool missing_ok, ds_err *err)
{
    kube_response resp;
    int rc = kube_request(c, "DELETE", path, NULL, NULL, &resp, err);
    if (rc != 0 && missing_ok && resp.status == 404)
        rc = 0;
    kube_response_free(&resp);
    return rc;
}

const char *kube_apply_result_name(kube_apply_result r)
{
    switch (r) {
    case KUBE_APPLY_CREATED:
        return "created";
    case KUBE_APPLY_CONFIGURED:
        return "configured";
    case KUBE_APPLY_UNCHANGED:
        return "unchanged";
    }
    return "?";
}

#define APPLY_ATTEMPTS 3

/* Whether the stored ConfigMap cur already has obj's data, binaryData and labels. */
static bool configmap_same(const json_t *cur, const json_t *obj)
{
    static const char *const fields[] = {"data", "binaryData"};
    for (size_t i = 0; i < 2; i++) {
        const json_t *a = json_object_get(cur, fields[i]), *b = json_object_get(obj, fields[i]);
        bool a_empty = a == NULL || (json_is_object(a) && json_object_size(a) == 0);
        bool b_empty = b == NULL || (json_is_object(b) && json_object_size(b) == 0);
        if (!(a_empty && b_empty) && !json_equal(a, b))
            return false;
    }
    const json_t *want = json_object_get(json_object_get(obj, "metadata"), "labels");
    const json_t *have = json_object_get(json_object_get(cur, "metadata"), "labels");
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)want, k, v)
    {
        if (!json_equal(json_object_get(have, k), v))
            return false;
    }
    return true;
}

/* cur (the stored object) with obj's data, binaryData and labels: a new object. */
static json_t *configmap_merged(const json_t *cur, const json_t *obj)
{
    json_t *m = json_deep_copy(cur);
    if (m == NULL)
        return NULL;
    json_t *meta = json_object_get(m, "metadata");
    if (!json_is_object(meta))
        goto fail;
    json_t *labels = json_object_get(meta, "labels");
    if (!json_is_object(labels)) {
        labels = json_object();
        if (labels == NULL || json_object_set_new(meta, "labels", labels) != 0)
            goto fail;
    }
    const json_t *want = json_object_get(json_object_get(obj, "metadata"), "labels");
    if (want != NULL && json_object_update(labels, (json_t *)want) != 0)
        goto fail;
    static const char *const fields[] = {"data", "binaryData"};
    for (size_t i = 0; i < 2; i++) {
        const json_t *v = json_object_get(obj, fields[i]);
        int rc = v != NULL ? json_object_set(m, fields[i], (json_t *)v)
                           : (json_object_del(m, fields[i]), 0);
        if (rc != 0)
            goto fail;
    }
    return m;
fail:
    json_decref(m);
    return NULL;
}

int kube_apply_configmap(kube_client *c, const json_t *obj, kube_apply_result *res, ds_err *err)
{
    const json_t *meta = json_object_get(obj, "metadata");
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    const char *name = json_string_value(json_object_get(meta, "name"));
    if (ns == NULL || check_names(ns, name, err) != 0)
        return ns == NULL ? ds_err_set(err, "ConfigMap: no metadata.namespace") : -1;
    for (int attempt = 0;; attempt++) {
        json_t *cur = NULL;
        long status = 0;
        int rc = kube_get_named(c, "/api/v1", ns, "configmaps", name, &cur, &status, err);
        if (rc != 0 && status != 404)
            return -1;
        if (rc != 0) {
            char path[512];
            snprintf(path, sizeof path, "/api/v1/namespaces/%s/configmaps", ns);
            kube_response resp;
            rc = send_json(c, NULL, "POST", path, "application/json", obj, NULL, &resp, err);
            status = resp.status;
            kube_response_free(&resp);
            if (rc == 0) {
                *res = KUBE_APPLY_CREATED;
                return 0;
            }
            /* 409 AlreadyExists: created meanwhile, replace it on the next attempt. */
            if (status != 409 || attempt + 1 >= APPLY_ATTEMPTS)
                return -1;
            continue;
        }
        if (configmap_same(cur, obj)) {
            json_decref(cur);
            *res = KUBE_APPLY_UNCHANGED;
            return 0;
        }
        json_t *m = configmap_merged(cur, obj);
        json_decref(cur);
        if (m == NULL)
            return ds_err_set(err, "ConfigMap %s/%s: out of memory", ns, name);
        rc = kube_replace_configmap(c, ns, name, m, NULL, &status, err);
        json_decref(m);
        if (rc == 0) {
            *res = KUBE_APPLY_CONFIGURED;
            return 0;
        }
        if (status != 409 || attempt + 1 >= APPLY_ATTEMPTS)
            return -1;
    }
}

void kube_format_microtime(double epoch_s, char *buf, size_t size)
{
    time_t secs = (time_t)floor(epoch_s);
    long micros = (long)((epoch_s - (double)secs) * 1e6);
    if (micros > 999999)
        micros = 999999;
    struct tm tm;
    gmtime_r(&secs, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, size, "%s.%06ldZ", base, micros);
}

int kube_create_event(kube_client *c, const kube_object_ref *obj, const char *type,
                      const char *reason, const char *message, const char *component, ds_err *err)
{
    if (check_names(obj->ns, obj->name, err) != 0)
        return -1;
    if (type == NULL || (strcmp(type, "Normal") != 0 && strcmp(type, "Warning") != 0))
        return ds_err_set(err, "event type must be Normal or Warning (got \"%.32s\")",
                          type ? type : "(null)");
    if (reason == NULL || reason[0] == '\0' || strlen(reason) > 128)
        return ds_err_set(err, "event reason must be 1..128 characters");
    char msg[EVENT_MESSAGE_MAX + 1];
    snprintf(msg, sizeof msg, "%s", message ? message : "");
    char now[40], gen[300];
    kube_format_microtime(rt_wall_now(), now, sizeof now);
    /* core/v1 Event timestamps are whole seconds. */
    char secs[40];
    snprintf(secs, sizeof secs, "%.19sZ", now);
    snprintf(gen, sizeof gen, "%.200s.", obj->name);
    json_t *ev = json_pack(
        "{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s}, s:s, s:s, s:s, s:{s:s}, s:s, s:s, s:i,"
        " s:s, s:s}",
        "apiVersion", "v1", "kind", "Event", "metadata", "generateName", gen, "namespace", obj->ns,
        "involvedObject", "apiVersion", obj->api_version ? obj->api_version : "v1", "kind",
        obj->kind ? obj->kind : "Pod", "namespace", obj->ns, "name", obj->name, "reason", reason,
        "message", msg, "type", type, "source", "component", component ? component : "dagsched",
        "firstTimestamp", secs, "lastTimestamp", secs, "count", 1, "reportingComponent",
        component ? component : "dagsched", "reportingInstance",
        component ? component : "dagsched");
    if (ev == NULL)
        return ds_err_set(err, "event: cannot build the object (invalid UTF-8 in the message?)");
    if (obj->uid != NULL)
        json_object_set_new(json_object_get(ev, "involvedObject"), "uid", json_string(obj->uid));
    char path[512];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/events", obj->ns);
    int rc = kube_create(c, path, ev, NULL, err);
    json_decref(ev);
    return rc;
}

const char *kube_evict_result_name(kube_evict_result r)
{
    switch (r) {
    case KUBE_EVICT_OK:
        return "evicted";
    case KUBE_EVICT_BLOCKED_PDB:
        return "blocked-by-pdb";
    case KUBE_EVICT_NOT_FOUND:
        return "not-found";
    case KUBE_EVICT_ERROR:
        return "error";
    }
    return "error";
}

kube_evict_result kube_evict(kube_client *c, const char *ns, const char *name, const char *uid,
                             bool dry_run, ds_err *err)
{
    if (check_names(ns, name, err) != 0)
        return KUBE_EVICT_ERROR;
    json_t *body =
        json_pack("{s:s, s:s, s:{s:s, s:s}, s:{}}", "apiVersion", "policy/v1", "kind", "Eviction",
                  "metadata", "name", name, "namespace", ns, "deleteOptions");
    if (body == NULL) {
        ds_err_set(err, "evict %s/%s: out of memory", ns, name);
        return KUBE_EVICT_ERROR;
    }
    json_t *opts = json_object_get(body, "deleteOptions");
    if (uid != NULL)
        json_object_set_new(opts, "preconditions", json_pack("{s:s}", "uid", uid));
    if (dry_run)
        json_object_set_new(opts, "dryRun", json_pack("[s]", "All"));
    char path[640];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/%s/eviction", ns, name);
    /* A 429 is the budget's answer, not throttling: handle it here rather than retrying blindly.
     */
    kube_request_opts ro = {.no_retry_429 = true};
    kube_evict_result result = KUBE_EVICT_ERROR;
    for (int attempt = 0; attempt < 4; attempt++) {
        kube_response resp;
        int rc = send_json(c, &ro, "POST", path, "application/json", body, NULL, &resp, err);
        long status = resp.status;
        kube_status st = resp.st;
        kube_response_free(&resp);
        if (rc == 0) {
            result = KUBE_EVICT_OK;
            break;
        }
        if (status == 404 || (status == 409 && strstr(st.message, "recondition") != NULL)) {
            result = KUBE_EVICT_NOT_FOUND;
            break;
        }
        if (status == 429) {
            bool pdb = st.cause_disruption_budget || strstr(st.message, "disruption budget");
            if (pdb) {
                result = KUBE_EVICT_BLOCKED_PDB;
                break;
            }
            /* Throttled by API priority and fairness: wait and try again. */
            double d = kube_client_backoff(c, attempt);
            if (st.retry_after_s > d)
                d = st.retry_after_s > 30 ? 30 : st.retry_after_s;
            KLOG_WARN("writes", "evict %s/%s: throttled (429); retrying in %.2fs", ns, name, d);
            if (kube_client_sleep(c, d, NULL) != 0)
                break;
            continue;
        }
        break;
    }
    json_decref(body);
    return result;
}

int kube_set_job_suspend(kube_client *c, const char *ns, const char *job, bool suspend, ds_err *err)
{
    if (check_names(ns, job, err) != 0)
        return -1;
    json_t *patch = json_pack("{s:{s:b}}", "spec", "suspend", suspend);
    return send_patch(c, MERGE_PATCH, patch, NULL, err, "/apis/batch/v1/namespaces/%s/jobs/%s", ns,
                      job);
}

/* An annotation key: 1..317 bytes (a qualified name with a DNS subdomain prefix). */
static bool valid_annotation_key(const char *key)
{
    return key != NULL && key[0] != '\0' && strlen(key) <= 317;
}

/* {"metadata": {"annotations": {key: value or null, ...}}} for n pairs of kv; NULL with err set
 * on a bad key or value or out of memory. */
static json_t *annotations_patch(const char *ns, const char *pod, const char *const *kv, size_t n,
                                 ds_err *err)
{
    json_t *ann = json_object();
    json_t *patch = json_pack("{s:{s:o}}", "metadata", "annotations", ann);
    if (ann == NULL || patch == NULL) {
        json_decref(patch);
        return ds_err_set(err, "annotate %s/%s: out of memory", ns, pod), NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const char *key = kv[2 * i], *value = kv[2 * i + 1];
        if (!valid_annotation_key(key)) {
            json_decref(patch);
            return ds_err_set(err, "invalid annotation key"), NULL;
        }
        json_t *v = value != NULL ? json_string(value) : json_null();
        if (v == NULL || json_object_set_new(ann, key, v) != 0) {
            json_decref(patch);
            return ds_err_set(err, "annotation %s: value is not valid UTF-8 or out of memory", key),
                   NULL;
        }
    }
    return patch;
}

int kube_annotate_pod_pairs(kube_client *c, const char *ns, const char *pod, const char *const *kv,
                            size_t n, ds_err *err)
{
    if (check_names(ns, pod, err) != 0)
        return -1;
    json_t *patch = annotations_patch(ns, pod, kv, n, err);
    if (patch == NULL)
        return -1;
    return send_patch(c, MERGE_PATCH, patch, NULL, err, "/api/v1/namespaces/%s/pods/%s", ns, pod);
}

/* {"spec": {"schedulingGates": [{"$patch": "delete", "name": gate}]}} merged into patch (a new
 * object when patch is NULL); NULL on allocation failure (patch freed). */
static json_t *gate_removal(json_t *patch, const char *gate)
{
    if (patch == NULL && (patch = json_object()) == NULL)
        return NULL;
    json_t *spec =
        json_pack("{s:[{s:s, s:s}]}", "schedulingGates", "$patch", "delete", "name", gate);
    if (spec == NULL || json_object_set_new(patch, "spec", spec) != 0) {
        json_decref(patch);
        return NULL;
    }
    return patch;
}

#define STRATEGIC_MERGE_PATCH "application/strategic-merge-patch+json"

int kube_release_pod(kube_client *c, const char *ns, const char *pod, const char *gate,
                     const char *const *kv, size_t n, ds_err *err)
{
    if (check_names(ns, pod, err) != 0)
        return -1;
    if (gate == NULL || gate[0] == '\0' || strlen(gate) > 317)
        return ds_err_set(err, "invalid scheduling gate name");
    json_t *ann = NULL;
    if (n > 0 && (ann = annotations_patch(ns, pod, kv, n, err)) == NULL)
        return -1;
    /* A strategic merge patch: it deletes the list item whose merge key (name) is the gate's and
     * merges the annotations (null removes one). */
    long status = 0;
    int rc = send_patch(c, STRATEGIC_MERGE_PATCH, gate_removal(ann, gate), &status, err,
                        "/api/v1/namespaces/%s/pods/%s", ns, pod);
    if (rc == 0 || n == 0 || status != 422)
        return rc;
    /* 422: the pod refuses the annotations (its annotations' total size at the API server's
     * limit): the release does not depend on its record. */
    ds_err why = *err;
    if (send_patch(c, STRATEGIC_MERGE_PATCH, gate_removal(NULL, gate), NULL, err,
                   "/api/v1/namespaces/%s/pods/%s", ns, pod) != 0)
        return -1;
    *err = why;
    return 1;
}

int kube_remove_scheduling_gate(kube_client *c, const char *ns, const char *pod, const char *gate,
                                ds_err *err)
{
    return kube_release_pod(c, ns, pod, gate, NULL, 0, err);
}

int kube_annotate_pod(kube_client *c, const char *ns, const char *pod, const char *key,
                      const char *value, ds_err *err)
{
    const char *kv[] = {key, value};
    return kube_annotate_pod_pairs(c, ns, pod, kv, 1, err);
}

int kube_nominate_node(kube_client *c, const char *ns, const char *pod, const char *node,
                       ds_err *err)
{
    if (check_names(ns, pod, err) != 0)
        return -1;
    if (node != NULL && !kube_valid_name(node))
        return ds_err_set(err, "invalid node name \"%.64s\"", node);
    json_t *patch = node != NULL ? json_pack("{s:{s:s}}", "status", "nominatedNodeName", node)
                                 : json_pack("{s:{s:n}}", "status", "nominatedNodeName");
    return send_patch(c, MERGE_PATCH, patch, NULL, err, "/api/v1/namespaces/%s/pods/%s/status", ns,
                      pod);
}

/* A resource name in a path: 1..63 of [a-z0-9]. */
static bool valid_resource(const char *r)
{
    size_t n = r != NULL ? strlen(r) : 0;
    if (n == 0 || n > 63)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((r[i] >= 'a' && r[i] <= 'z') || (r[i] >= '0' && r[i] <= '9')))
            return false;
    return true;
}

/* An API prefix: "/api/v1" or "/apis/<group>/<version>" of [a-z0-9.-/]. */
static bool valid_prefix(const char *p)
{
    if (p == NULL || (strcmp(p, "/api/v1") != 0 && strncmp(p, "/apis/", 6) != 0) || strlen(p) > 200)
        return false;
    for (const char *q = p; *q != '\0'; q++)
        if (!((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '.' || *q == '-' ||
              *q == '/'))
            return false;
    return strstr(p, "..") == NULL && strstr(p, "//") == NULL;
}

int kube_get_named(kube_client *c, const char *api_prefix, const char *ns, const char *resource,
                   const char *name, json_t **out, long *status, ds_err *err)
{
    *out = NULL;
    if (status != NULL)
        *status = 0;
    if (check_names(ns, name, err) != 0)
        return -1;
    if (!valid_prefix(api_prefix) || !valid_resource(resource))
        return ds_err_set(err, "invalid API path %.64s/%.64s", api_prefix ? api_prefix : "",
                          resource ? resource : "");
    char path[800];
    snprintf(path, sizeof path, "%s/namespaces/%s/%s/%s", api_prefix, ns, resource, name);
    kube_response resp;
    int rc = kube_get_json(c, path, out, &resp, err);
    if (status != NULL)
        *status = resp.status;
    kube_response_free(&resp);
    return rc;
}

int kube_get_pod(kube_client *c, const char *ns, const char *name, const kube_decode_opts *opts,
                 const kube_pod **out, long *status, ds_err *err)
{
    *out = NULL;
    json_t *obj = NULL;
    if (kube_get_named(c, "/api/v1", ns, "pods", name, &obj, status, err) != 0)
        return -1;
    kube_meta *m = NULL;
    int rc = kube_obj_decode(KUBE_KIND_POD, obj, opts, &m, err);
    json_decref(obj);
    if (rc == 0)
        *out = (const kube_pod *)m;
    return rc;
}

int kube_create_configmap(kube_client *c, const char *ns, const json_t *obj, json_t **out,
                          ds_err *err)
{
    if (out != NULL)
        *out = NULL;
    if (ns == NULL || !kube_valid_name(ns))
        return ds_err_set(err, "invalid namespace \"%.64s\"", ns ? ns : "(null)");
    char path[512];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/configmaps", ns);
    return kube_create(c, path, obj, out, err);
}

int kube_replace_configmap(kube_client *c, const char *ns, const char *name, const json_t *obj,
                           json_t **out, long *status, ds_err *err)
{
    if (out != NULL)
        *out = NULL;
    if (status != NULL)
        *status = 0;
    if (ns == NULL)
        return ds_err_set(err, "invalid namespace \"(null)\"");
    if (check_names(ns, name, err) != 0)
        return -1;
    char path[600];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/configmaps/%s", ns, name);
    kube_response resp;
    int rc = send_json(c, NULL, "PUT", path, "application/json", obj, out, &resp, err);
    if (status != NULL)
        *status = resp.status;
    kube_response_free(&resp);
    return rc;
}
