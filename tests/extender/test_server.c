/* test_server.c: the extender's HTTP endpoints on loopback (libcurl): the verbs answer as the
 * handlers do, readiness follows the snapshot source, oversized bodies get 413, wrong methods 405,
 * malformed bodies 400, and /metrics counts requests, errors and verdicts per verb. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "server.h"
#include "test_util.h"

typedef struct fake_source {
    ext_snapshot *snap;
    bool ready;
} fake_source;

static const ext_snapshot *fake_acquire(void *user)
{
    fake_source *f = user;
    return f->ready ? ext_snapshot_ref(f->snap) : NULL;
}

static bool fake_ready(void *user)
{
    return ((fake_source *)user)->ready;
}

typedef struct buf {
    char *s;
    size_t n;
} buf;

static size_t collect(char *p, size_t size, size_t nmemb, void *user)
{
    buf *b = user;
    size_t n = size * nmemb;
    char *ns = realloc(b->s, b->n + n + 1);
    if (ns == NULL)
        return 0;
    memcpy(ns + b->n, p, n);
    b->s = ns;
    b->n += n;
    b->s[b->n] = '\0';
    return n;
}

/* One request; returns the status and the body (caller frees). */
static long http(int port, const char *method, const char *path, const char *body, size_t len,
                 char **out)
{
    CURL *c = curl_easy_init();
    assert_non_null(c);
    char url[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
    buf b = {0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    if (body != NULL) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)len);
    }
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    if (rc == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    *out = b.s != NULL ? b.s : calloc(1, 1);
    return status;
}

static void test_endpoints(void **state)
{
    (void)state;
    ds_policy pol;
    ds_policy_defaults(&pol);
    const kube_node *nodes[] = {fx_node("kwok-node-0", "8", "32Gi", "2"),
                                fx_node("kwok-node-1", "8", "32Gi", "0.5")};
    ext_build_input in = {
        .nodes = nodes, .n_nodes = 2, .policy = &pol, .policy_generation = 1, .now = 1e9};
    fake_source src = {.ready = false};
    ds_err err;
    assert_int_equal(ext_snapshot_build(&in, &src.snap, &err), 0);

    metrics_registry *reg = metrics_registry_new();
    ext_server_opts o = {.host = "127.0.0.1",
                         .port = 0,
                         .source = {.acquire = fake_acquire, .ready = fake_ready, .user = &src},
                         .metrics = reg};
    ext_limits_default(&o.ctx.limits);
    o.ctx.limits.max_body = 8192;
    ext_server *srv = NULL;
    assert_int_equal(ext_server_start(&o, &srv, &err), 0);
    int port = ext_server_port(srv);
    assert_true(port > 0);

    char *out;
    assert_int_equal(http(port, "GET", "/healthz", NULL, 0, &out), 200);
    free(out);
    assert_int_equal(http(port, "GET", "/readyz", NULL, 0, &out), 503);
    assert_string_equal(out, "caches not synced yet\n");
    free(out);
    size_t len;
    char *body = tu_read_data("filter_names.json", &len);
    assert_int_equal(http(port, "POST", "/filter", body, len, &out), 503);
    free(out);

    src.ready = true;
    assert_int_equal(http(port, "GET", "/readyz", NULL, 0, &out), 200);
    free(out);
    /* The recorded pod is unknown to this snapshot and depends on extract and clean, which it has
     * never seen succeed. */
    assert_int_equal(http(port, "POST", "/filter", body, len, &out), 200);
    assert_string_equal(out, "{\"Nodes\":null,\"NodeNames\":[],\"FailedNodes\":{},"
                             "\"FailedAndUnresolvableNodes\":{\"kwok-node-0\":\"dagsched: waiting "
                             "for upstream tasks: extract, clean\",\"kwok-node-1\":\"dagsched: "
                             "waiting for upstream tasks: extract, clean\",\"kwok-node-2\":"
                             "\"dagsched: waiting for upstream tasks: extract, clean\"},"
                             "\"Error\":\"\"}");
    free(out);
    assert_int_equal(http(port, "POST", "/prioritize", body, len, &out), 200);
    free(out);
    assert_int_equal(http(port, "GET", "/filter", NULL, 0, &out), 405);
    free(out);
    assert_int_equal(http(port, "POST", "/bind", body, len, &out), 404);
    free(out);
    assert_int_equal(http(port, "POST", "/preempt", "{\"Pod\":7}", 9, &out), 400);
    assert_string_equal(out, "{\"Error\":\"Pod: expected an object (got number)\"}");
    free(out);
    free(body);

    /* Larger than max_body: 413 before any parsing. */
    char *big = malloc(10000);
    assert_non_null(big);
    memset(big, ' ', 10000);
    long st = http(port, "POST", "/filter", big, 10000, &out);
    assert_int_equal(st, 413);
    free(out);
    free(big);

    assert_int_equal(http(port, "GET", "/metrics", NULL, 0, &out), 200);
    assert_non_null(
        strstr(out, "dagsched_extender_requests_total{verb=\"filter\",result=\"ok\"} 1\n"));
    assert_non_null(
        strstr(out, "dagsched_extender_requests_total{verb=\"filter\",result=\"not_ready\"} 1\n"));
    assert_non_null(
        strstr(out, "dagsched_extender_errors_total{verb=\"preempt\",result=\"bad_request\"} 1\n"));
    assert_non_null(strstr(out, "dagsched_extender_filter_nodes_total{verdict=\"blocked\"} 3\n"));
    assert_non_null(
        strstr(out, "dagsched_extender_pods_total{verb=\"filter\",class=\"blocked\"} 1\n"));
    assert_non_null(
        strstr(out, "dagsched_extender_http_requests_total{path=\"/filter\",code=\"413\"} 1\n"));
    assert_non_null(strstr(out, "dagsched_extender_request_duration_seconds_count{verb="
                                "\"prioritize\"} 1\n"));
    /* Body bytes per verb: the two filter requests answered (503 and 200) and the 400 preempt. */
    char want[160];
    snprintf(want, sizeof want,
             "dagsched_extender_bytes_total{verb=\"filter\",direction=\"request\"} %zu\n", 2 * len);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof want,
             "dagsched_extender_bytes_total{verb=\"preempt\",direction=\"request\"} 9\n");
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof want,
             "dagsched_extender_bytes_total{verb=\"preempt\",direction=\"response\"} %zu\n",
             strlen("{\"Error\":\"Pod: expected an object (got number)\"}"));
    assert_non_null(strstr(out, want));
    free(out);

    ext_server_stop(srv);
    metrics_registry_free(reg);
    ext_snapshot_unref(src.snap);
    kube_obj_unref(&nodes[0]->meta);
    kube_obj_unref(&nodes[1]->meta);
}

static const char ADM_REVIEW[] =
    "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
    "\"uid\":\"u-1\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},"
    "\"operation\":\"CREATE\",\"namespace\":\"etl\",\"object\":{\"metadata\":{\"name\":"
    "\"a\"},\"spec\":{\"schedulerName\":\"dagsched\"}}}}";
/* base64 of
 * [{"op":"add","path":"/spec/schedulingGates","value":[{"name":"dagsched.io/dependencies"}]}] */
#define ADM_PATCH                                                                                  \
    "W3sib3AiOiJhZGQiLCJwYXRoIjoiL3NwZWMvc2NoZWR1bGluZ0dhdGVzIiwidmFsdWUiOlt7Im5hbWUiOiJkYWdzY2hl" \
    "ZC5pby9kZXBlbmRlbmNpZXMifV19XQ=="

/* The admission webhook: POST /mutate-pods on the main listener by default (answer, 400 on a
 * malformed review, counted in dagsched_extender_admission_total), the set-scheduler-name route
 * only when enabled, and on a listener of its own: there and not on the main one. */
static void test_admission_routes(void **state)
{
    (void)state;
    fake_source src = {.ready = true};
    ds_err err;
    ds_policy pol;
    ds_policy_defaults(&pol);
    ext_build_input in = {.policy = &pol, .policy_generation = 1, .now = 1e9};
    assert_int_equal(ext_snapshot_build(&in, &src.snap, &err), 0);
    metrics_registry *reg = metrics_registry_new();
    ext_server_opts o = {.host = "127.0.0.1",
                         .source = {.acquire = fake_acquire, .ready = fake_ready, .user = &src},
                         .metrics = reg,
                         .admission = {.enabled = true,
                                       .adm = {.scheduler_name = "dagsched",
                                               .install_namespace = "dagsched-system"}}};
    ext_limits_default(&o.ctx.limits);
    o.ctx.limits.max_body = 8192;
    ext_server *srv = NULL;
    assert_int_equal(ext_server_start(&o, &srv, &err), 0);
    int port = ext_server_port(srv);
    assert_int_equal(ext_server_admission_port(srv), -1);
    char *out;
    assert_int_equal(http(port, "POST", "/mutate-pods", ADM_REVIEW, strlen(ADM_REVIEW), &out), 200);
    assert_string_equal(out, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
                             "\"AdmissionReview\",\"response\":{\"uid\":\"u-1\",\"allowed\":"
                             "true,\"patchType\":\"JSONPatch\",\"patch\":\"" ADM_PATCH "\"}}");
    free(out);
    assert_int_equal(http(port, "POST", "/mutate-pods", "{}", 2, &out), 400);
    assert_string_equal(out, "dagsched: AdmissionReview: expected apiVersion admission.k8s.io/v1 "
                             "and kind AdmissionReview (set admissionReviewVersions: [v1])\n");
    free(out);
    assert_int_equal(
        http(port, "POST", "/mutate-pods/set-scheduler-name", ADM_REVIEW, strlen(ADM_REVIEW), &out),
        404);
    free(out);
    assert_int_equal(http(port, "GET", "/metrics", NULL, 0, &out), 200);
    assert_non_null(strstr(out, "dagsched_extender_admission_total{result=\"gated\"} 1\n"));
    assert_non_null(strstr(out, "dagsched_extender_admission_total{result=\"error\"} 1\n"));
    free(out);
    ext_server_stop(srv);
    metrics_registry_free(reg);

    /* Its own listener, with the rewrite route. */
    reg = metrics_registry_new();
    o.metrics = reg;
    o.admission.own_listener = true;
    o.admission.host = "127.0.0.1";
    o.admission.adm.set_scheduler_name = true;
    assert_int_equal(ext_server_start(&o, &srv, &err), 0);
    port = ext_server_port(srv);
    int aport = ext_server_admission_port(srv);
    assert_true(aport > 0 && aport != port);
    assert_int_equal(http(port, "POST", "/mutate-pods", ADM_REVIEW, strlen(ADM_REVIEW), &out), 404);
    free(out);
    assert_int_equal(http(aport, "POST", "/filter", "{}", 2, &out), 404);
    free(out);
    assert_int_equal(http(aport, "GET", "/healthz", NULL, 0, &out), 200);
    free(out);
    assert_int_equal(http(aport, "POST", "/mutate-pods", ADM_REVIEW, strlen(ADM_REVIEW), &out),
                     200);
    assert_non_null(strstr(out, ADM_PATCH));
    free(out);
    assert_int_equal(http(aport, "POST", "/mutate-pods/set-scheduler-name", ADM_REVIEW,
                          strlen(ADM_REVIEW), &out),
                     200);
    assert_non_null(strstr(out, ADM_PATCH));
    free(out);
    assert_int_equal(http(port, "GET", "/metrics", NULL, 0, &out), 200);
    assert_non_null(strstr(out, "dagsched_extender_admission_total{result=\"gated\"} 2\n"));
    free(out);
    ext_server_stop(srv);
    metrics_registry_free(reg);
    ext_snapshot_unref(src.snap);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_endpoints),
        cmocka_unit_test(test_admission_routes),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
