/* test_writes.c: writes against a scripted loopback server: eviction outcomes (accepted, blocked
 * by a PodDisruptionBudget, throttled then accepted, not found, uid precondition, other errors),
 * the exact patches sent for gates, Job suspension, annotations and nominations, Events, the
 * controller's ConfigMap reads and writes, and the name checks before any path is built. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mock_server.h"
#include "writes.h"

static kube_client *client_for(mock_server *m)
{
    char server[64];
    snprintf(server, sizeof server, "http://127.0.0.1:%d", m->port);
    kube_config cfg = {.server = server, .namespace = "default", .source = "test"};
    kube_client_opts o = {.max_retries = 2, .backoff_initial_s = 0.01, .backoff_max_s = 0.02};
    kube_client *c = NULL;
    ds_err err = {{0}};
    if (kube_client_new(&cfg, &o, &c, &err) != 0)
        fail_msg("kube_client_new: %s", err.msg);
    return c;
}

static const char *const pdb_429 =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"Cannot evict "
    "pod as it would violate the pod's disruption budget.\",\"reason\":\"TooManyRequests\","
    "\"details\":{\"causes\":[{\"reason\":\"DisruptionBudget\",\"message\":\"The disruption "
    "budget web needs 2 healthy pods and has 2 currently\"}]},\"code\":429}";

static void test_evict_outcomes(void **state)
{
    (void)state;
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    mock_server m;
    assert_int_equal(mock_start(&m), 0);
    mock_reply r[] = {
        {.status = 201, .body = "{\"kind\":\"Status\",\"status\":\"Success\",\"code\":201}"},
        {.status = 429, .body = pdb_429},
        {.status = 429,
         .headers = "Retry-After: 1\r\n",
         .body = "{\"kind\":\"Status\",\"message\":\"Too many requests, please try again "
                 "later.\",\"reason\":\"TooManyRequests\",\"code\":429}"},
        {.status = 201, .body = "{}"},
        {.status = 404,
         .body = "{\"kind\":\"Status\",\"message\":\"pods \\\"x\\\" not found\",\"reason\":"
                 "\"NotFound\",\"code\":404}"},
        {.status = 409,
         .body = "{\"kind\":\"Status\",\"message\":\"Precondition failed: UID in precondition: "
                 "u1, UID in object meta: u2\",\"reason\":\"Conflict\",\"code\":409}"},
        {.status = 500,
         .body = "{\"kind\":\"Status\",\"message\":\"This pod has more than one "
                 "PodDisruptionBudget, which the eviction subresource does not support.\","
                 "\"code\":500}"},
        {.status = 500, .body = "{\"kind\":\"Status\",\"message\":\"again\",\"code\":500}"},
        {.status = 500, .body = "{\"kind\":\"Status\",\"message\":\"again\",\"code\":500}"},
    };
    mock_script(&m, r, 9);
    kube_client *c = client_for(&m);
    ds_err err = {{0}};
    assert_int_equal(kube_evict(c, "batch", "p1", "u1", false, &err), KUBE_EVICT_OK);
    assert_string_equal(m.requests[0].method, "POST");
    assert_string_equal(m.requests[0].path, "/api/v1/namespaces/batch/pods/p1/eviction");
    assert_string_equal(m.requests[0].body,
                        "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":"
                        "{\"name\":\"p1\",\"namespace\":\"batch\"},\"deleteOptions\":"
                        "{\"preconditions\":{\"uid\":\"u1\"}}}");
    assert_int_equal(kube_evict(c, "batch", "p1", NULL, true, &err), KUBE_EVICT_BLOCKED_PDB);
    assert_string_equal(err.msg, "POST /api/v1/namespaces/batch/pods/p1/eviction: 429 "
                                 "TooManyRequests: Cannot evict pod as it would violate the "
                                 "pod's disruption budget.");
    assert_string_equal(m.requests[1].body,
                        "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":"
                        "{\"name\":\"p1\",\"namespace\":\"batch\"},\"deleteOptions\":"
                        "{\"dryRun\":[\"All\"]}}");
    /* Throttling 429 (no budget cause): retried after Retry-After. */
    assert_int_equal(kube_evict(c, "batch", "p1", NULL, false, &err), KUBE_EVICT_OK);
    assert_int_equal(m.n_requests, 4);
    assert_int_equal(kube_evict(c, "batch", "x", NULL, false, &err), KUBE_EVICT_NOT_FOUND);
    assert_int_equal(kube_evict(c, "batch", "p1", "u1", false, &err), KUBE_EVICT_NOT_FOUND);
    assert_int_equal(kube_evict(c, "batch", "p1", NULL, false, &err), KUBE_EVICT_ERROR);
    assert_string_equal(err.msg, "POST /api/v1/namespaces/batch/pods/p1/eviction: 500 Failure: "
                                 "again");
    assert_int_equal(m.n_requests, 9);
    assert_int_equal(kube_evict(c, "batch", "../nodes/x", NULL, false, &err), KUBE_EVICT_ERROR);
    assert_string_equal(err.msg, "invalid name \"../nodes/x\"");
    assert_int_equal(m.n_requests, 9);
    assert_string_equal(kube_evict_result_name(KUBE_EVICT_BLOCKED_PDB), "blocked-by-pdb");
    kube_client_free(c);
    mock_stop(&m);
}

static void test_patches_and_events(void **state)
{
    (void)state;
    mock_server m;
    assert_int_equal(mock_start(&m), 0);
    mock_reply r[] = {
        {.status = 200, .body = "{}"}, {.status = 200, .body = "{}"},
        {.status = 200, .body = "{}"}, {.status = 200, .body = "{}"},
        {.status = 201, .body = "{}"}, {.status = 200, .body = "{\"kind\":\"Pod\"}"},
    };
    mock_script(&m, r, 6);
    kube_client *c = client_for(&m);
    ds_err err = {{0}};
    assert_int_equal(
        kube_remove_scheduling_gate(c, "batch", "p1", "dagsched.io/dependencies", &err), 0);
    assert_string_equal(m.requests[0].method, "PATCH");
    assert_string_equal(m.requests[0].path, "/api/v1/namespaces/batch/pods/p1");
    assert_string_equal(m.requests[0].content_type, "application/strategic-merge-patch+json");
    assert_string_equal(m.requests[0].body, "{\"spec\":{\"schedulingGates\":[{\"$patch\":"
                                            "\"delete\",\"name\":\"dagsched.io/dependencies\"}]}}");
    assert_int_equal(kube_set_job_suspend(c, "batch", "j1", false, &err), 0);
    assert_string_equal(m.requests[1].path, "/apis/batch/v1/namespaces/batch/jobs/j1");
    assert_string_equal(m.requests[1].content_type, "application/merge-patch+json");
    assert_string_equal(m.requests[1].body, "{\"spec\":{\"suspend\":false}}");
    assert_int_equal(kube_annotate_pod(c, "batch", "p1", "dagsched.io/evicted-by", "x", &err), 0);
    assert_string_equal(m.requests[2].body, "{\"metadata\":{\"annotations\":"
                                            "{\"dagsched.io/evicted-by\":\"x\"}}}");
    assert_int_equal(kube_annotate_pod(c, "batch", "p1", "dagsched.io/evicted-by", NULL, &err), 0);
    assert_string_equal(m.requests[3].body, "{\"metadata\":{\"annotations\":"
                                            "{\"dagsched.io/evicted-by\":null}}}");
    kube_object_ref ref = {"v1", "Pod", "batch", "p1", "u1"};
    assert_int_equal(
        kube_create_event(c, &ref, "Warning", "EvictionBlocked", "budget", "dagsched", &err), 0);
    assert_string_equal(m.requests[4].path, "/api/v1/namespaces/batch/events");
    json_error_t jerr;
    json_t *ev = json_loads(m.requests[4].body, 0, &jerr);
    assert_non_null(ev);
    assert_string_equal(json_string_value(json_object_get(ev, "reason")), "EvictionBlocked");
    assert_string_equal(json_string_value(json_object_get(ev, "type")), "Warning");
    json_t *io = json_object_get(ev, "involvedObject");
    assert_string_equal(json_string_value(json_object_get(io, "uid")), "u1");
    assert_string_equal(json_string_value(json_object_get(io, "name")), "p1");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(ev, "metadata"), "generateName")), "p1.");
    assert_int_equal(strlen(json_string_value(json_object_get(ev, "firstTimestamp"))), 20);
    json_decref(ev);
    assert_int_equal(kube_create_event(c, &ref, "Info", "X", "m", NULL, &err), -1);
    assert_string_equal(err.msg, "event type must be Normal or Warning (got \"Info\")");
    json_t *ops =
        json_pack("[{s:s, s:s, s:s}]", "op", "add", "path", "/metadata/labels/a", "value", "b");
    json_t *out = NULL;
    assert_int_equal(kube_patch_json(c, "/api/v1/namespaces/batch/pods/p1", ops, &out, &err), 0);
    assert_string_equal(m.requests[5].content_type, "application/json-patch+json");
    assert_string_equal(json_string_value(json_object_get(out, "kind")), "Pod");
    json_decref(out);
    json_decref(ops);
    kube_client_free(c);
    mock_stop(&m);

    char t[40];
    kube_format_microtime(1795341600.25, t, sizeof t);
    assert_string_equal(t, "2026-11-22T10:00:00.250000Z");
    assert_true(kube_valid_name("a.b-c"));
    assert_false(kube_valid_name("-a"));
    assert_false(kube_valid_name("A"));
    assert_false(kube_valid_name(""));
}

/* The writes the controller makes to pods and to its ledger ConfigMap: exact paths and bodies,
 * statuses handed back, and names checked before they go into a URL (nothing is sent then). */
static void test_controller_writes(void **state)
{
    (void)state;
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    mock_server m;
    assert_int_equal(mock_start(&m), 0);
    mock_reply r[] = {
        {.status = 200, .body = "{}"},
        {.status = 200, .body = "{}"},
        {.status = 200, .body = "{\"metadata\":{\"uid\":\"u1\"}}"},
        {.status = 404,
         .body = "{\"kind\":\"Status\",\"message\":\"configmaps \\\"l\\\" not found\","
                 "\"reason\":\"NotFound\",\"code\":404}"},
        {.status = 201, .body = "{\"metadata\":{\"resourceVersion\":\"7\"}}"},
        {.status = 409,
         .body = "{\"kind\":\"Status\",\"message\":\"the object has been modified\","
                 "\"reason\":\"Conflict\",\"code\":409}"},
    };
    mock_script(&m, r, 6);
    kube_client *c = client_for(&m);
    ds_err err = {{0}};
    const char *kv[] = {"dagsched.io/evicted-by", "ml/p2", "dagsched.io/evicted-at", NULL};
    assert_int_equal(kube_annotate_pod_pairs(c, "batch", "p1", kv, 2, &err), 0);
    assert_string_equal(m.requests[0].method, "PATCH");
    assert_string_equal(m.requests[0].path, "/api/v1/namespaces/batch/pods/p1");
    assert_string_equal(m.requests[0].content_type, "application/merge-patch+json");
    assert_string_equal(m.requests[0].body,
                        "{\"metadata\":{\"annotations\":{\"dagsched.io/evicted-by\":\"ml/p2\","
                        "\"dagsched.io/evicted-at\":null}}}");
    assert_int_equal(kube_nominate_node(c, "batch", "p1", "node-1", &err), 0);
    assert_string_equal(m.requests[1].path, "/api/v1/namespaces/batch/pods/p1/status");
    assert_string_equal(m.requests[1].body, "{\"status\":{\"nominatedNodeName\":\"node-1\"}}");
    json_t *obj = NULL;
    long status = 0;
    assert_int_equal(kube_get_named(c, "/api/v1", "batch", "pods", "p1", &obj, &status, &err), 0);
    assert_string_equal(m.requests[2].method, "GET");
    assert_string_equal(m.requests[2].path, "/api/v1/namespaces/batch/pods/p1");
    assert_int_equal(status, 200);
    assert_string_equal(json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid")),
                        "u1");
    json_decref(obj);
    assert_int_equal(kube_get_named(c, "/api/v1", "sys", "configmaps", "l", &obj, &status, &err),
                     -1);
    assert_int_equal(status, 404);
    assert_null(obj);
    json_t *cm = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap", "metadata",
                           "name", "l");
    json_t *out = NULL;
    assert_int_equal(kube_create_configmap(c, "sys", cm, &out, &err), 0);
    assert_string_equal(m.requests[4].method, "POST");
    assert_string_equal(m.requests[4].path, "/api/v1/namespaces/sys/configmaps");
    json_decref(out);
    assert_int_equal(kube_replace_configmap(c, "sys", "l", cm, &out, &status, &err), -1);
    assert_string_equal(m.requests[5].method, "PUT");
    assert_string_equal(m.requests[5].path, "/api/v1/namespaces/sys/configmaps/l");
    assert_int_equal(status, 409);
    assert_null(out);
    assert_int_equal(m.n_requests, 6);

    /* Names that are not object names never reach a URL. */
    assert_int_equal(kube_annotate_pod_pairs(c, "batch", "p1/eviction", kv, 2, &err), -1);
    assert_string_equal(err.msg, "invalid name \"p1/eviction\"");
    assert_int_equal(kube_annotate_pod_pairs(c, "../x", "p1", kv, 2, &err), -1);
    assert_string_equal(err.msg, "invalid namespace \"../x\"");
    const char *bad_key[] = {"", "v"};
    assert_int_equal(kube_annotate_pod_pairs(c, "batch", "p1", bad_key, 1, &err), -1);
    assert_string_equal(err.msg, "invalid annotation key");
    assert_int_equal(kube_nominate_node(c, "batch", "p1", "n?x=1", &err), -1);
    assert_string_equal(err.msg, "invalid node name \"n?x=1\"");
    assert_int_equal(kube_get_named(c, "/api/v1", "batch", "pods", "P1", &obj, &status, &err), -1);
    assert_string_equal(err.msg, "invalid name \"P1\"");
    assert_int_equal(kube_get_named(c, "/api/v1/../x", "batch", "pods", "p1", &obj, NULL, &err),
                     -1);
    assert_string_equal(err.msg, "invalid API path /api/v1/../x/pods");
    assert_int_equal(kube_get_named(c, "/api/v1", "batch", "pods/p2", "p1", &obj, NULL, &err), -1);
    assert_int_equal(kube_create_configmap(c, "sys tem", cm, NULL, &err), -1);
    assert_string_equal(err.msg, "invalid namespace \"sys tem\"");
    assert_int_equal(kube_replace_configmap(c, "sys", "l%2F", cm, NULL, NULL, &err), -1);
    assert_string_equal(err.msg, "invalid name \"l%2F\"");
    assert_int_equal(kube_replace_configmap(c, NULL, "l", cm, NULL, NULL, &err), -1);
    assert_int_equal(m.n_requests, 6);
    json_decref(cm);
    kube_client_free(c);
    mock_stop(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_evict_outcomes),
        cmocka_unit_test(test_patches_and_events),
        cmocka_unit_test(test_controller_writes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
