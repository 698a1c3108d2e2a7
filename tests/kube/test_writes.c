/* test_writes.c: the checks of kube/writes.h made before any request: names, namespaces,
 * annotation keys, node names, API paths and Event types are refused with a message, and nothing
 * is sent; Event timestamps and name validation. What the writes do on a server (evictions and
 * their outcomes, patches, Events, ConfigMaps) is checked against the real kube-apiserver by
 * tests/kube/prog_client_itest.c (make kube-integration-test). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "writes.h"

/* A client of an address where nothing is asked: every call here fails before a request. */
static kube_client *client_unused(void)
{
    kube_config cfg = {.server = "http://127.0.0.1:9", .namespace = "default", .source = "test"};
    kube_client_opts o = {.max_retries = 0, .backoff_initial_s = 0.01, .backoff_max_s = 0.02};
    kube_client *c = NULL;
    ds_err err = {{0}};
    if (kube_client_new(&cfg, &o, &c, &err) != 0)
        fail_msg("kube_client_new: %s", err.msg);
    return c;
}

static uint64_t requests(kube_client *c)
{
    uint64_t n = 0;
    for (int m = 0; m < KUBE_METHOD_N; m++)
        n += kube_client_requests(c, (kube_method)m);
    return n;
}

/* Names that are not object names never reach a URL: refused with a message, nothing sent. */
static void test_names_checked_before_sending(void **state)
{
    (void)state;
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    kube_client *c = client_unused();
    ds_err err = {{0}};
    assert_int_equal(kube_evict(c, "batch", "../nodes/x", NULL, false, &err), KUBE_EVICT_ERROR);
    assert_string_equal(err.msg, "invalid name \"../nodes/x\"");
    const char *kv[] = {"dagsched.io/evicted-by", "ml/p2", "dagsched.io/evicted-at", NULL};
    assert_int_equal(kube_annotate_pod_pairs(c, "batch", "p1/eviction", kv, 2, &err), -1);
    assert_string_equal(err.msg, "invalid name \"p1/eviction\"");
    assert_int_equal(kube_annotate_pod_pairs(c, "../x", "p1", kv, 2, &err), -1);
    assert_string_equal(err.msg, "invalid namespace \"../x\"");
    const char *bad_key[] = {"", "v"};
    assert_int_equal(kube_annotate_pod_pairs(c, "batch", "p1", bad_key, 1, &err), -1);
    assert_string_equal(err.msg, "invalid annotation key");
    assert_int_equal(kube_nominate_node(c, "batch", "p1", "n?x=1", &err), -1);
    assert_string_equal(err.msg, "invalid node name \"n?x=1\"");
    json_t *obj = NULL;
    long status = 0;
    assert_int_equal(kube_get_named(c, "/api/v1", "batch", "pods", "P1", &obj, &status, &err), -1);
    assert_string_equal(err.msg, "invalid name \"P1\"");
    assert_int_equal(kube_get_named(c, "/api/v1/../x", "batch", "pods", "p1", &obj, NULL, &err),
                     -1);
    assert_string_equal(err.msg, "invalid API path /api/v1/../x/pods");
    assert_int_equal(kube_get_named(c, "/api/v1", "batch", "pods/p2", "p1", &obj, NULL, &err), -1);
    json_t *cm = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap", "metadata",
                           "name", "l");
    assert_non_null(cm);
    assert_int_equal(kube_create_configmap(c, "sys tem", cm, NULL, &err), -1);
    assert_string_equal(err.msg, "invalid namespace \"sys tem\"");
    assert_int_equal(kube_replace_configmap(c, "sys", "l%2F", cm, NULL, NULL, &err), -1);
    assert_string_equal(err.msg, "invalid name \"l%2F\"");
    assert_int_equal(kube_replace_configmap(c, NULL, "l", cm, NULL, NULL, &err), -1);
    json_decref(cm);
    kube_object_ref ref = {"v1", "Pod", "batch", "p1", "u1"};
    assert_int_equal(kube_create_event(c, &ref, "Info", "X", "m", NULL, &err), -1);
    assert_string_equal(err.msg, "event type must be Normal or Warning (got \"Info\")");
    assert_int_equal(requests(c), 0);
    kube_client_free(c);
}

static void test_names_and_times(void **state)
{
    (void)state;
    char t[40];
    kube_format_microtime(1795341600.25, t, sizeof t);
    assert_string_equal(t, "2026-11-22T10:00:00.250000Z");
    assert_true(kube_valid_name("a.b-c"));
    assert_false(kube_valid_name("-a"));
    assert_false(kube_valid_name("A"));
    assert_false(kube_valid_name(""));
    assert_string_equal(kube_evict_result_name(KUBE_EVICT_BLOCKED_PDB), "blocked-by-pdb");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_checked_before_sending),
        cmocka_unit_test(test_names_and_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
