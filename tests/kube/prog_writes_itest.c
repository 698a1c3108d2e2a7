/* prog_writes_itest.c: the writes of kube/writes.h against the real kube-apiserver (KUBECONFIG),
 * each read back from the server: the scheduling gate removed and other gates kept, annotations
 * set and removed (one by one and in pairs), the nominated node in the status, a JSON patch, a
 * Job suspended and resumed, an Event with its involved object, ConfigMaps read, created and
 * replaced (a stale resourceVersion is a 409), evictions with a uid precondition and under two
 * PodDisruptionBudgets (the server's 500). Budgets that block or allow an eviction, dry runs and
 * a wrong uid are prog_kube_itest's evict-pdb scenario. Prints one "ok"/"FAIL" line per check;
 * exits 0 when all passed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest_util.h"
#include "log.h"

/* A pod that kube-scheduler leaves alone: it carries dagsched's gate and another one. */
static void create_gated_pod(kube_client *c, const char *ns, const char *name)
{
    char path[256], text[1024];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods", ns);
    snprintf(text, sizeof text,
             "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"labels\":"
             "{\"app\":\"w\"},\"annotations\":{\"dagsched.io/evicted-at\":\"t0\"}},\"spec\":{"
             "\"schedulingGates\":[{\"name\":\"dagsched.io/dependencies\"},{\"name\":"
             "\"example.com/hold\"}],\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}",
             name);
    itest_create(c, path, text, NULL);
}

static json_t *get_pod(kube_client *c, const char *ns, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/%s", ns, name);
    return itest_get(c, path, NULL);
}

static const char *annotation(const json_t *pod, const char *key)
{
    return json_string_value(
        json_object_get(json_object_get(json_object_get(pod, "metadata"), "annotations"), key));
}

static void check_pod_patches(kube_client *c, const char *ns)
{
    create_gated_pod(c, ns, "p1");
    ds_err err = {{0}};
    int rc = kube_remove_scheduling_gate(c, ns, "p1", "dagsched.io/dependencies", &err);
    json_t *pod = get_pod(c, ns, "p1");
    const json_t *gates = json_object_get(json_object_get(pod, "spec"), "schedulingGates");
    CHECK(rc == 0 && json_array_size(gates) == 1 &&
              strcmp(itest_str(json_array_get(gates, 0), "name", NULL), "example.com/hold") == 0,
          "the gate removed, the other gate kept (%zu gates left: %s)", json_array_size(gates),
          rc ? err.msg : "");
    json_decref(pod);

    rc = kube_annotate_pod(c, ns, "p1", "dagsched.io/evicted-by", "x", &err);
    pod = get_pod(c, ns, "p1");
    const char *v = annotation(pod, "dagsched.io/evicted-by");
    CHECK(rc == 0 && v != NULL && strcmp(v, "x") == 0, "annotation set (got %s)", v ? v : "none");
    json_decref(pod);
    rc = kube_annotate_pod(c, ns, "p1", "dagsched.io/evicted-by", NULL, &err);
    pod = get_pod(c, ns, "p1");
    CHECK(rc == 0 && annotation(pod, "dagsched.io/evicted-by") == NULL &&
              annotation(pod, "dagsched.io/evicted-at") != NULL,
          "annotation removed by a null, the others kept");
    json_decref(pod);

    const char *kv[] = {"dagsched.io/evicted-by", "ml/p2", "dagsched.io/evicted-at", NULL};
    rc = kube_annotate_pod_pairs(c, ns, "p1", kv, 2, &err);
    pod = get_pod(c, ns, "p1");
    v = annotation(pod, "dagsched.io/evicted-by");
    CHECK(rc == 0 && v != NULL && strcmp(v, "ml/p2") == 0 &&
              annotation(pod, "dagsched.io/evicted-at") == NULL,
          "two annotations in one patch: one set, one removed (%s)", rc ? err.msg : "ok");
    json_decref(pod);

    rc = kube_nominate_node(c, ns, "p1", "node-1", &err);
    pod = get_pod(c, ns, "p1");
    CHECK(rc == 0 && strcmp(itest_str(pod, "status", "nominatedNodeName"), "node-1") == 0,
          "status.nominatedNodeName set through the status subresource (got \"%s\": %s)",
          itest_str(pod, "status", "nominatedNodeName"), rc ? err.msg : "ok");
    json_decref(pod);

    char path[256];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/p1", ns);
    json_t *ops =
        json_pack("[{s:s, s:s, s:s}]", "op", "add", "path", "/metadata/labels/extra", "value", "b");
    json_t *out = NULL;
    rc = kube_patch_json(c, path, ops, &out, &err);
    CHECK(rc == 0 && strcmp(itest_str(out, "kind", NULL), "Pod") == 0 &&
              strcmp(itest_str(json_object_get(out, "metadata"), "labels", "extra"), "b") == 0,
          "a JSON patch applied; the answer is the patched pod (%s)", rc ? err.msg : "ok");
    json_decref(out);
    json_decref(ops);
    /* A JSON patch that does not apply: 422, the server's message. */
    ops = json_pack("[{s:s, s:s}]", "op", "remove", "path", "/metadata/labels/absent");
    rc = kube_patch_json(c, path, ops, NULL, &err);
    CHECK(rc == -1 && strstr(err.msg, "PATCH /api/v1/namespaces/") != NULL &&
              strstr(err.msg, " 422 ") != NULL,
          "a JSON patch that does not apply is refused: %s", err.msg);
    json_decref(ops);
}

static void check_job_suspend(kube_client *c, const char *ns)
{
    char path[256];
    snprintf(path, sizeof path, "/apis/batch/v1/namespaces/%s/jobs", ns);
    itest_create(c, path,
                 "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"j1\"},"
                 "\"spec\":{\"suspend\":true,\"template\":{\"spec\":{\"restartPolicy\":\"Never\","
                 "\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}",
                 NULL);
    snprintf(path, sizeof path, "/apis/batch/v1/namespaces/%s/jobs/j1", ns);
    ds_err err = {{0}};
    int rc = kube_set_job_suspend(c, ns, "j1", false, &err);
    json_t *job = itest_get(c, path, NULL);
    CHECK(rc == 0 && json_is_false(json_object_get(json_object_get(job, "spec"), "suspend")),
          "Job resumed: spec.suspend false (%s)", rc ? err.msg : "ok");
    json_decref(job);
    rc = kube_set_job_suspend(c, ns, "j1", true, &err);
    job = itest_get(c, path, NULL);
    CHECK(rc == 0 && json_is_true(json_object_get(json_object_get(job, "spec"), "suspend")),
          "Job suspended again: spec.suspend true (%s)", rc ? err.msg : "ok");
    json_decref(job);
    rc = kube_set_job_suspend(c, ns, "nope", true, &err);
    CHECK(rc == -1 && strstr(err.msg, "404 NotFound") != NULL, "a missing Job: %s", err.msg);
}

static void check_event(kube_client *c, const char *ns)
{
    json_t *pod = get_pod(c, ns, "p1");
    char uid[64];
    snprintf(uid, sizeof uid, "%s", itest_str(pod, "metadata", "uid"));
    json_decref(pod);
    kube_object_ref ref = {"v1", "Pod", ns, "p1", uid};
    ds_err err = {{0}};
    int rc = kube_create_event(c, &ref, "Warning", "EvictionBlocked", "budget", "dagsched", &err);
    CHECK(rc == 0, "Event created (%s)", rc ? err.msg : "ok");
    char path[256];
    snprintf(path, sizeof path,
             "/api/v1/namespaces/%s/events?fieldSelector=involvedObject.name%%3Dp1", ns);
    json_t *list = itest_get(c, path, NULL);
    json_t *items = json_object_get(list, "items");
    json_t *ev = json_array_get(items, 0);
    const json_t *io = json_object_get(ev, "involvedObject");
    CHECK(json_array_size(items) == 1 &&
              strcmp(itest_str(ev, "reason", NULL), "EvictionBlocked") == 0 &&
              strcmp(itest_str(ev, "type", NULL), "Warning") == 0 &&
              strcmp(itest_str(ev, "message", NULL), "budget") == 0,
          "the Event read back: reason, type and message (%zu events)", json_array_size(items));
    CHECK(strcmp(itest_str(io, "uid", NULL), uid) == 0 &&
              strcmp(itest_str(io, "kind", NULL), "Pod") == 0 &&
              strcmp(itest_str(io, "name", NULL), "p1") == 0,
          "its involved object is the pod, by uid");
    CHECK(strncmp(itest_str(ev, "metadata", "name"), "p1.", 3) == 0 &&
              strcmp(itest_str(ev, "source", "component"), "dagsched") == 0 &&
              strlen(itest_str(ev, "firstTimestamp", NULL)) == 20,
          "its name starts with p1., its source is dagsched, firstTimestamp %s",
          itest_str(ev, "firstTimestamp", NULL));
    json_decref(list);
}

static void check_configmaps(kube_client *c, const char *ns)
{
    ds_err err = {{0}};
    json_t *obj = NULL;
    long status = 0;
    int rc = kube_get_named(c, "/api/v1", ns, "pods", "p1", &obj, &status, &err);
    CHECK(rc == 0 && status == 200 && itest_str(obj, "metadata", "uid")[0] != '\0',
          "kube_get_named reads the pod (HTTP %ld)", status);
    json_decref(obj);
    obj = NULL;
    rc = kube_get_named(c, "/api/v1", ns, "configmaps", "l", &obj, &status, &err);
    CHECK(rc == -1 && status == 404 && obj == NULL, "a missing ConfigMap: 404 (HTTP %ld)", status);
    json_t *cm = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
                           "metadata", "name", "l", "data", "k", "1");
    json_t *out = NULL;
    rc = kube_create_configmap(c, ns, cm, &out, &err);
    char rv[64];
    snprintf(rv, sizeof rv, "%s", itest_str(out, "metadata", "resourceVersion"));
    CHECK(rc == 0 && rv[0] != '\0', "ConfigMap created, resourceVersion %s (%s)", rv,
          rc ? err.msg : "ok");
    json_decref(out);
    out = NULL;
    /* A replace that names an older resourceVersion than the server's: 409 Conflict. */
    json_object_set_new(json_object_get(cm, "metadata"), "resourceVersion", json_string("1"));
    json_object_set_new(json_object_get(cm, "data"), "k", json_string("2"));
    rc = kube_replace_configmap(c, ns, "l", cm, &out, &status, &err);
    CHECK(rc == -1 && status == 409 && out == NULL && strstr(err.msg, "409 Conflict") != NULL,
          "a replace from a stale resourceVersion: 409 Conflict (%s)", err.msg);
    json_decref(out);
    out = NULL;
    json_object_set_new(json_object_get(cm, "metadata"), "resourceVersion", json_string(rv));
    rc = kube_replace_configmap(c, ns, "l", cm, &out, &status, &err);
    CHECK(rc == 0 && status == 200 && strcmp(itest_str(out, "data", "k"), "2") == 0,
          "a replace from the current resourceVersion: 200, data k=%s (%s)",
          itest_str(out, "data", "k"), rc ? err.msg : "ok");
    json_decref(out);
    json_decref(cm);
}

/* Waits until the pod runs (kube-scheduler binds it, kwok starts it): the API server ignores
 * disruption budgets for a pending pod. */
static bool wait_running(kube_client *c, const char *ns, const char *name)
{
    double end = rt_mono_now() + 60;
    for (;;) {
        json_t *pod = get_pod(c, ns, name);
        bool running = strcmp(itest_str(pod, "status", "phase"), "Running") == 0;
        json_decref(pod);
        if (running || rt_mono_now() > end)
            return running;
        usleep(200000);
    }
}

static void check_evictions(kube_client *c, const char *ns)
{
    char path[256];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods", ns);
    itest_create(c, path,
                 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"e1\"},"
                 "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}",
                 NULL);
    json_t *pod = get_pod(c, ns, "e1");
    char uid[64];
    snprintf(uid, sizeof uid, "%s", itest_str(pod, "metadata", "uid"));
    json_decref(pod);
    ds_err err = {{0}};
    kube_evict_result r = kube_evict(c, ns, "e1", uid, false, &err);
    pod = get_pod(c, ns, "e1");
    bool going = pod == NULL ||
                 json_object_get(json_object_get(pod, "metadata"), "deletionTimestamp") != NULL;
    json_decref(pod);
    CHECK(r == KUBE_EVICT_OK && going,
          "an eviction with the pod's own uid as precondition: evicted (got %s: %s)",
          kube_evict_result_name(r), err.msg);

    /* Two budgets select the pod: the API server refuses the eviction (500). */
    itest_create(c, path,
                 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"e2\","
                 "\"labels\":{\"app\":\"two\"}},\"spec\":{\"containers\":[{\"name\":\"c\","
                 "\"image\":\"busybox\"}]}}",
                 NULL);
    snprintf(path, sizeof path, "/apis/policy/v1/namespaces/%s/poddisruptionbudgets", ns);
    for (int i = 0; i < 2; i++) {
        char text[400];
        snprintf(text, sizeof text,
                 "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":"
                 "{\"name\":\"b%d\"},\"spec\":{\"maxUnavailable\":1,\"selector\":{\"matchLabels\":"
                 "{\"app\":\"two\"}}}}",
                 i);
        itest_create(c, path, text, NULL);
    }
    CHECK(wait_running(c, ns, "e2"), "pod e2 runs");
    double t0 = rt_mono_now();
    err.msg[0] = '\0';
    r = kube_evict(c, ns, "e2", NULL, false, &err);
    CHECK(r == KUBE_EVICT_ERROR && strstr(err.msg, "more than one PodDisruptionBudget") != NULL,
          "two budgets: an error with the server's message (got %s: %s)", kube_evict_result_name(r),
          err.msg);
    printf("note  the 500 was retried for %.1f s\n", rt_mono_now() - t0);
    pod = get_pod(c, ns, "e2");
    CHECK(pod != NULL &&
              json_object_get(json_object_get(pod, "metadata"), "deletionTimestamp") == NULL,
          "and the pod is not evicted");
    json_decref(pod);
}

int main(void)
{
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    printf("== writes\n");
    kube_config *cfg = itest_config();
    kube_client_opts o = {.max_retries = 2, .backoff_initial_s = 0.05, .backoff_max_s = 0.2};
    kube_client *c = itest_client(cfg, &o);
    char ns[64];
    itest_namespace(c, ns, sizeof ns, "itest-wr");
    check_pod_patches(c, ns);
    check_job_suspend(c, ns);
    check_event(c, ns);
    check_configmaps(c, ns);
    check_evictions(c, ns);
    itest_delete_namespace(c, ns);
    kube_client_free(c);
    kube_config_free(cfg);
    printf("== writes: %s\n", itest_failures ? "FAILED" : "passed");
    return itest_failures ? 1 : 0;
}
