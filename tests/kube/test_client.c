/* test_client.c: unit tests of the request layer that need no server: request paths refused
 * before anything is sent, Status parsing, which answers are retryable, the backoff bounds, and
 * JSON bodies holding "\u0000". What the client does against a server (retries, Status messages,
 * connection reuse, body limits, token rotation, streaming, shutdown) is checked against the real
 * kube-apiserver by tests/kube/prog_client_itest.c (make kube-integration-test). */
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
#include "status.h"

static const char *const notfound =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
    "\"message\":\"pods \\\"x\\\" not found\",\"reason\":\"NotFound\",\"details\":{\"name\":\"x\","
    "\"kind\":\"pods\"},\"code\":404}";

/* A client of an address where nothing is asked: every test here fails before a request. */
static kube_client *client_unused(void)
{
    kube_config cfg = {.server = "http://127.0.0.1:9", .namespace = "default", .source = "test"};
    kube_client_opts o = {.max_retries = 3, .backoff_initial_s = 0.01, .backoff_max_s = 0.05};
    kube_client *c = NULL;
    ds_err err = {{0}};
    if (kube_client_new(&cfg, &o, &c, &err) != 0)
        fail_msg("kube_client_new: %s", err.msg);
    return c;
}

static void test_bad_path(void **state)
{
    (void)state;
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    kube_client *c = client_unused();
    kube_response resp;
    ds_err err = {{0}};
    assert_int_equal(kube_request(c, "GET", "api/v1", NULL, NULL, &resp, &err), -1);
    assert_string_equal(err.msg, "request path must start with / (got \"api/v1\")");
    assert_int_equal(kube_request(c, "GET", "/a b", NULL, NULL, &resp, &err), -1);
    assert_string_equal(err.msg, "request path contains a space or control character");
    kube_response_free(&resp);
    /* Nothing was sent: the client counted no request. */
    assert_int_equal(kube_client_requests(c, KUBE_METHOD_GET), 0);
    kube_client_free(c);
}

/* Full jitter: retry n waits initial * 2^n (capped at the maximum) times a factor in [0.5, 1). */
static void test_backoff_bounds(void **state)
{
    (void)state;
    kube_client *c = client_unused();
    const double want[] = {0.01, 0.02, 0.04, 0.05, 0.05, 0.05};
    for (int round = 0; round < 50; round++)
        for (int n = 0; n < 6; n++) {
            double d = kube_client_backoff(c, n);
            if (!(d >= 0.5 * want[n] && d < want[n] + 1e-12))
                fail_msg("backoff of retry %d: %.6f, outside [%.6f, %.6f)", n, d, 0.5 * want[n],
                         want[n]);
        }
    kube_client_free(c);
}

/* A shut-down client fails at once: one attempt, no backoff. */
static void test_shutdown_client_sends_nothing(void **state)
{
    (void)state;
    kube_client *c = client_unused();
    kube_client_shutdown(c);
    assert_true(kube_client_is_shutdown(c));
    kube_response resp;
    ds_err err = {{0}};
    double t0 = rt_mono_now();
    assert_int_equal(kube_request(c, "GET", "/version", NULL, NULL, &resp, &err), -1);
    assert_true(rt_mono_now() - t0 < 1.0);
    assert_int_equal(resp.status, 0);
    assert_int_equal(resp.attempts, 1);
    kube_response_free(&resp);
    assert_int_not_equal(kube_client_sleep(c, 30, NULL), 0);
    assert_true(rt_mono_now() - t0 < 1.0);
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
        cmocka_unit_test(test_bad_path),
        cmocka_unit_test(test_backoff_bounds),
        cmocka_unit_test(test_shutdown_client_sends_nothing),
        cmocka_unit_test(test_status_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
