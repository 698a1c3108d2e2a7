/* test_client.c: unit tests of the request layer against a scripted loopback HTTP server: retries
 * and backoff on 5xx/429/connection errors with Retry-After, no retry on 4xx, Status messages,
 * connection reuse, body limits, token file rotation, streaming, and Status parsing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "client.h"
#include "clock.h"
#include "kube_test_util.h"
#include "kutil.h"
#include "log.h"
#include "mock_server.h"
#include "status.h"

static const char *const notfound =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
    "\"message\":\"pods \\\"x\\\" not found\",\"reason\":\"NotFound\",\"details\":{\"name\":\"x\","
    "\"kind\":\"pods\"},\"code\":404}";

static kube_client *client_for(mock_server *m, const char *token, const char *token_file,
                               size_t max_body)
{
    char server[64];
    snprintf(server, sizeof server, "http://127.0.0.1:%d", m->port);
    kube_config cfg = {.server = server,
                       .token = (char *)token,
                       .token_file = (char *)token_file,
                       .namespace = "default",
                       .source = "test"};
    kube_client_opts o = {.max_retries = 3,
                          .backoff_initial_s = 0.01,
                          .backoff_max_s = 0.05,
                          .max_body_bytes = max_body};
    kube_client *c = NULL;
    ds_err err = {{0}};
    if (kube_client_new(&cfg, &o, &c, &err) != 0)
        fail_msg("kube_client_new: %s", err.msg);
    return c;
}

static int setup(void **state)
{
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    mock_server *m = calloc(1, sizeof *m);
    if (m == NULL || mock_start(m) != 0)
        return -1;
    *state = m;
    return 0;
}

static int teardown(void **state)
{
    mock_server *m = *state;
    mock_stop(m);
    free(m);
    return 0;
}

static void test_retry_5xx_then_ok(void **state)
{
    mock_server *m = *state;
    mock_reply r[] = {
        {.status = 503, .headers = "Retry-After: 1\r\n", .body = "{}"},
        {.status = 500, .body = "oops"},
        {.status = 200, .body = "{\"kind\":\"PodList\"}"},
    };
    mock_script(m, r, 3);
    kube_client *c = client_for(m, "sekret", NULL, 0);
    kube_response resp;
    ds_err err = {{0}};
    double t0 = rt_mono_now();
    assert_int_equal(kube_request(c, "GET", "/api/v1/pods?limit=5", NULL, NULL, &resp, &err), 0);
    double elapsed = rt_mono_now() - t0;
    assert_int_equal(resp.status, 200);
    assert_int_equal(resp.attempts, 3);
    assert_string_equal(resp.body, "{\"kind\":\"PodList\"}");
    /* Retry-After: 1 was honoured before the second attempt. */
    assert_true(elapsed >= 1.0);
    assert_int_equal(m->n_requests, 3);
    assert_string_equal(m->requests[0].path, "/api/v1/pods?limit=5");
    assert_string_equal(m->requests[2].auth, "Bearer sekret");
    /* One connection for all three attempts. */
    assert_int_equal(m->connections, 1);
    kube_response_free(&resp);
    kube_client_free(c);
}

static void test_no_retry_on_4xx_status_message(void **state)
{
    mock_server *m = *state;
    mock_reply r[] = {{.status = 404, .body = notfound}, {.status = 200, .body = "{}"}};
    mock_script(m, r, 2);
    kube_client *c = client_for(m, NULL, NULL, 0);
    kube_response resp;
    ds_err err = {{0}};
    assert_int_equal(
        kube_request(c, "GET", "/api/v1/namespaces/a/pods/x?x=1", NULL, NULL, &resp, &err), -1);
    assert_int_equal(resp.status, 404);
    assert_int_equal(resp.attempts, 1);
    assert_string_equal(err.msg, "GET /api/v1/namespaces/a/pods/x: 404 NotFound: pods \"x\" not "
                                 "found");
    assert_true(resp.st.valid);
    assert_string_equal(resp.st.reason, "NotFound");
    assert_string_equal(m->requests[0].auth, "");
    kube_response_free(&resp);
    kube_client_free(c);
}

static void test_429_retry_or_answer(void **state)
{
    mock_server *m = *state;
    const char *tmr =
        "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"Cannot evict pod as "
        "it would violate the pod's disruption budget.\",\"reason\":"
        "\"TooManyRequests\",\"details\":{\"causes\":[{\"reason\":"
        "\"DisruptionBudget\",\"message\":\"The disruption budget pdb needs 1 "
        "healthy pods\"}]},\"code\":429}";
    mock_reply r[] = {{.status = 429, .body = tmr}, {.status = 201, .body = "{}"}};
    mock_script(m, r, 2);
    kube_client *c = client_for(m, NULL, NULL, 0);
    kube_response resp;
    ds_err err = {{0}};
    kube_request_opts ro = {.no_retry_429 = true};
    assert_int_equal(kube_request_ex(c, &ro, "POST", "/api/v1/namespaces/a/pods/x/eviction",
                                     "{\"kind\":\"Eviction\"}", NULL, &resp, &err),
                     -1);
    assert_int_equal(resp.status, 429);
    assert_int_equal(resp.attempts, 1);
    assert_true(resp.st.cause_disruption_budget);
    assert_string_equal(m->requests[0].method, "POST");
    assert_string_equal(m->requests[0].body, "{\"kind\":\"Eviction\"}");
    assert_string_equal(m->requests[0].content_type, "application/json");
    kube_response_free(&resp);

    /* Without the option a 429 is a throttle and is retried. */
    mock_script(m, r, 2);
    assert_int_equal(kube_request(c, "PATCH", "/api/v1/namespaces/a/pods/x", "{}",
                                  "application/merge-patch+json", &resp, &err),
                     0);
    assert_int_equal(resp.status, 201);
    assert_int_equal(resp.attempts, 2);
    assert_string_equal(m->requests[1].method, "PATCH");
    assert_string_equal(m->requests[1].content_type, "application/merge-patch+json");
    kube_response_free(&resp);
    kube_client_free(c);
}

static void test_dropped_connection_retried(void **state)
{
    mock_server *m = *state;
    mock_reply r[] = {{.status = 0}, {.status = 200, .body = "ok"}};
    mock_script(m, r, 2);
    kube_client *c = client_for(m, NULL, NULL, 0);
    kube_response resp;
    ds_err err = {{0}};
    assert_int_equal(kube_request(c, "GET", "/version", NULL, NULL, &resp, &err), 0);
    assert_int_equal(resp.attempts, 2);
    assert_int_equal(m->connections, 2);
    kube_response_free(&resp);
    kube_client_free(c);
}

static void test_connection_refused_gives_up(void **state)
{
    (void)state;
    /* A port nobody listens on: bind, read the port, close. */
    mock_server dead;
    assert_int_equal(mock_start(&dead), 0);
    mock_stop(&dead);
    kube_client *c = client_for(&dead, NULL, NULL, 0);
    kube_response resp;
    ds_err err = {{0}};
    assert_int_equal(kube_request(c, "GET", "/version", NULL, NULL, &resp, &err), -1);
    assert_int_equal(resp.status, 0);
    assert_int_equal(resp.attempts, 4); /* 1 + max_retries */
    char want[128];
    snprintf(want, sizeof want, "GET /version: Couldn't connect to server (http://127.0.0.1:%d)",
             dead.port);
    assert_string_equal(err.msg, want);
    kube_response_free(&resp);
    kube_client_free(c);
}

static void test_body_limit(void **state)
{
    mock_server *m = *state;
    char big[2001];
    memset(big, 'x', 2000);
    big[2000] = '\0';
    mock_reply r[] = {{.status = 200, .body = big}, {.status = 200, .body = big}};
    mock_script(m, r, 2);
    kube_client *c = client_for(m, NULL, NULL, 1000);
    kube_response resp;
    ds_err err = {{0}};
    assert_int_equal(kube_request(c, "GET", "/api/v1/pods", NULL, NULL, &resp, &err), -1);
    assert_string_equal(err.msg, "GET /api/v1/pods: response body larger than 1000 bytes");
    assert_int_equal(resp.attempts, 1);
    kube_response_free(&resp);
    kube_client_free(c);
}

static void test_token_file_rotation(void **state)
{
    mock_server *m = *state;
    char dir[64], path[512];
    assert_int_equal(ktest_mkdtemp(dir, sizeof dir), 0);
    assert_int_equal(ktest_write(dir, "token", "first\n", path, sizeof path), 0);
    mock_reply r[] = {{.status = 200, .body = "{}"}, {.status = 200, .body = "{}"}};
    mock_script(m, r, 2);
    kube_client *c = client_for(m, NULL, path, 0);
    kube_response resp;
    ds_err err = {{0}};
    assert_int_equal(kube_request(c, "GET", "/a", NULL, NULL, &resp, &err), 0);
    kube_response_free(&resp);
    /* Projected tokens are replaced by a rename: a new inode. */
    char tmp[512];
    assert_int_equal(ktest_write(dir, "token.new", "second-token", tmp, sizeof tmp), 0);
    assert_int_equal(rename(tmp, path), 0);
    assert_int_equal(kube_request(c, "GET", "/b", NULL, NULL, &resp, &err), 0);
    kube_response_free(&resp);
    assert_string_equal(m->requests[0].auth, "Bearer first");
    assert_string_equal(m->requests[1].auth, "Bearer second-token");
    kube_client_free(c);
    ktest_rmdir(dir);
}

typedef struct collected {
    char data[4096];
    size_t len;
    int calls;
} collected;

static int collect(void *user, const char *data, size_t len)
{
    collected *col = user;
    if (col->len + len >= sizeof col->data)
        return 1;
    memcpy(col->data + col->len, data, len);
    col->len += len;
    col->data[col->len] = '\0';
    col->calls++;
    return 0;
}

static void test_stream(void **state)
{
    mock_server *m = *state;
    mock_reply r[] = {
        {.status = 200, .chunks = {"{\"type\":\"ADD", "ED\"}\n{\"ty", "pe\":\"DELETED\"}\n"}},
        {.status = 200, .body = ""},
        {.status = 410,
         .body = "{\"kind\":\"Status\",\"message\":\"too old resource version: 1 (5)\","
                 "\"reason\":\"Expired\",\"code\":410}"},
    };
    mock_script(m, r, 3);
    kube_client *c = client_for(m, NULL, NULL, 0);
    kube_response resp;
    ds_err err = {{0}};
    collected col = {0};
    assert_int_equal(kube_stream(c, "/api/v1/pods?watch=1", 5, 0, NULL, collect, &col, &resp, &err),
                     0);
    assert_string_equal(col.data, "{\"type\":\"ADDED\"}\n{\"type\":\"DELETED\"}\n");
    assert_true(col.calls >= 4);
    kube_response_free(&resp);
    /* A watch that ends without a single event is a normal end, and the consumer learnt that
     * the stream was open. */
    memset(&col, 0, sizeof col);
    assert_int_equal(kube_stream(c, "/api/v1/pods?watch=1", 5, 0, NULL, collect, &col, &resp, &err),
                     0);
    assert_int_equal(col.calls, 1);
    assert_int_equal(col.len, 0);
    kube_response_free(&resp);
    memset(&col, 0, sizeof col);
    assert_int_equal(kube_stream(c, "/api/v1/pods?watch=1", 5, 0, NULL, collect, &col, &resp, &err),
                     -1);
    assert_int_equal(resp.status, 410);
    assert_int_equal(resp.st.code, 410);
    assert_string_equal(err.msg, "GET /api/v1/pods: 410 Expired: too old resource version: 1 (5)");
    assert_int_equal(col.len, 0);
    kube_response_free(&resp);
    kube_client_free(c);
}

static void test_cancel_and_shutdown(void **state)
{
    mock_server *m = *state;
    mock_reply r[] = {{.status = 503, .headers = "Retry-After: 30\r\n", .body = "{}"}};
    mock_script(m, r, 1);
    kube_client *c = client_for(m, NULL, NULL, 0);
    kube_client_shutdown(c);
    kube_response resp;
    ds_err err = {{0}};
    double t0 = rt_mono_now();
    assert_int_equal(kube_request(c, "GET", "/a", NULL, NULL, &resp, &err), -1);
    /* Shut down: no 30 s wait. */
    assert_true(rt_mono_now() - t0 < 10);
    assert_true(kube_client_is_shutdown(c));
    kube_response_free(&resp);
    kube_client_free(c);
}

static void test_bad_path(void **state)
{
    mock_server *m = *state;
    kube_client *c = client_for(m, NULL, NULL, 0);
    kube_response resp;
    ds_err err = {{0}};
    assert_int_equal(kube_request(c, "GET", "api/v1", NULL, NULL, &resp, &err), -1);
    assert_string_equal(err.msg, "request path must start with / (got \"api/v1\")");
    assert_int_equal(kube_request(c, "GET", "/a b", NULL, NULL, &resp, &err), -1);
    assert_string_equal(err.msg, "request path contains a space or control character");
    kube_response_free(&resp);
    kube_client_free(c);
}

static void test_status_parse(void **state)
{
    (void)state;
    kube_status st;
    kube_status_parse(notfound, strlen(notfound), &st);
    assert_true(st.valid);
    assert_int_equal(st.code, 404);
    assert_string_equal(st.reason, "NotFound");
    assert_string_equal(st.message, "pods \"x\" not found");
    assert_false(st.cause_disruption_budget);
    const char *ra = "{\"kind\":\"Status\",\"code\":429,\"reason\":\"TooManyRequests\","
                     "\"message\":\"slow\\ndown\",\"details\":{\"retryAfterSeconds\":7}}";
    kube_status_parse(ra, strlen(ra), &st);
    assert_int_equal(st.retry_after_s, 7);
    assert_string_equal(st.message, "slow down");
    kube_status_parse("<html>", 6, &st);
    assert_false(st.valid);
    kube_status_parse("{\"kind\":\"Pod\"}", 14, &st);
    assert_false(st.valid);
    kube_status_parse(NULL, 0, &st);
    assert_false(st.valid);
    assert_true(kube_status_retryable(0));
    assert_true(kube_status_retryable(429));
    assert_true(kube_status_retryable(503));
    assert_false(kube_status_retryable(501));
    assert_false(kube_status_retryable(409));
    assert_false(kube_status_retryable(403));
}

/* A list whose objects hold "\u0000" in an annotation value (the API server accepts it) is
 * still readable: one such pod must not hide all the others. */
static void test_response_json_with_nul(void **state)
{
    (void)state;
    char body[] = "{\"items\":[{\"metadata\":{\"annotations\":{\"a\":\"b\\u0000c\"}}}]}";
    kube_response resp = {.status = 200, .body = body, .body_len = strlen(body)};
    json_t *j = NULL;
    ds_err err = {{0}};
    assert_int_equal(kube_response_json(&resp, "/api/v1/pods", &j, &err), 0);
    assert_int_equal(json_array_size(json_object_get(j, "items")), 1);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_response_json_with_nul),
        cmocka_unit_test_setup_teardown(test_retry_5xx_then_ok, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_retry_on_4xx_status_message, setup, teardown),
        cmocka_unit_test_setup_teardown(test_429_retry_or_answer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dropped_connection_retried, setup, teardown),
        cmocka_unit_test(test_connection_refused_gives_up),
        cmocka_unit_test_setup_teardown(test_body_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_file_rotation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel_and_shutdown, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_path, setup, teardown),
        cmocka_unit_test(test_status_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
