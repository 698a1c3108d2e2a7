/* test_request_counts.c: the client counts the requests it sends by HTTP method, every attempt
 * (kube_client_requests). The server is a loopback port bound but not listening: every attempt
 * is refused by the kernel, so each request is made 1 + max_retries times; a request refused
 * before it is sent (an invalid name) counts nothing. A release (kube_release_pod: the gate
 * removed and annotations set) is one request. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client.h"
#include "log.h"
#include "writes.h"

/* A loopback TCP port bound but not listening (connections to it are refused); *fd keeps it. */
static int refusing_port(int *fd)
{
    *fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(*fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(*fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(*fd, (struct sockaddr *)&a, &len), 0);
    return ntohs(a.sin_port);
}

static void assert_counts(kube_client *c, const uint64_t want[KUBE_METHOD_N])
{
    for (int m = 0; m < KUBE_METHOD_N; m++)
        if (kube_client_requests(c, (kube_method)m) != want[m])
            fail_msg("%s: %llu requests, want %llu", kube_method_name((kube_method)m),
                     (unsigned long long)kube_client_requests(c, (kube_method)m),
                     (unsigned long long)want[m]);
}

static void test_counts_by_method(void **state)
{
    (void)state;
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    int fd;
    char server[64];
    snprintf(server, sizeof server, "http://127.0.0.1:%d", refusing_port(&fd));
    kube_config cfg = {.server = server, .namespace = "default", .source = "test"};
    kube_client_opts o = {.max_retries = 2, .backoff_initial_s = 0.001, .backoff_max_s = 0.002};
    kube_client *c = NULL;
    ds_err err = {{0}};
    assert_int_equal(kube_client_new(&cfg, &o, &c, &err), 0);
    uint64_t want[KUBE_METHOD_N] = {0};
    assert_counts(c, want);

    kube_response resp;
    assert_int_equal(kube_request(c, "GET", "/api/v1/pods", NULL, NULL, &resp, &err), -1);
    assert_int_equal(resp.attempts, 3);
    kube_response_free(&resp);
    want[KUBE_METHOD_GET] = 3;
    assert_counts(c, want);

    /* The writes of writes.h: a gate removal is one PATCH request (and its retries). */
    assert_int_equal(kube_remove_scheduling_gate(c, "ns", "p", "dagsched.io/dependencies", &err),
                     -1);
    want[KUBE_METHOD_PATCH] = 3;
    assert_counts(c, want);
    assert_int_equal(kube_delete(c, "/api/v1/namespaces/ns/pods/p", false, &err), -1);
    want[KUBE_METHOD_DELETE] = 3;
    kube_request_opts once = {.no_retry = true};
    assert_int_equal(
        kube_request_ex(c, &once, "POST", "/api/v1/namespaces/ns/events", "{}", NULL, &resp, &err),
        -1);
    kube_response_free(&resp);
    want[KUBE_METHOD_POST] = 1;
    assert_int_equal(kube_request_ex(c, &once, "OPTIONS", "/api", NULL, NULL, &resp, &err), -1);
    kube_response_free(&resp);
    want[KUBE_METHOD_OTHER] = 1;
    assert_counts(c, want);

    /* A release, the gate and annotations together, is one request too (3 attempts). */
    const char *kv[] = {"dagsched.io/released-at", "2026-11-29T10:00:00.000000Z",
                        "dagsched.io/waiting-reason", NULL};
    assert_int_equal(kube_release_pod(c, "ns", "p", "dagsched.io/dependencies", kv, 2, &err), -1);
    want[KUBE_METHOD_PATCH] = 6;
    assert_counts(c, want);

    /* Refused before a request is sent: nothing counted. */
    assert_int_equal(kube_remove_scheduling_gate(c, "ns", "P/x", "dagsched.io/dependencies", &err),
                     -1);
    assert_string_equal(err.msg, "invalid name \"P/x\"");
    const char *bad_key[] = {"", "v"};
    assert_int_equal(kube_release_pod(c, "ns", "p", "dagsched.io/dependencies", bad_key, 1, &err),
                     -1);
    assert_string_equal(err.msg, "invalid annotation key");
    assert_int_equal(kube_release_pod(c, "ns", "p", "", kv, 1, &err), -1);
    assert_string_equal(err.msg, "invalid scheduling gate name");
    assert_counts(c, want);

    assert_string_equal(kube_method_name(KUBE_METHOD_PATCH), "PATCH");
    assert_string_equal(kube_method_name(KUBE_METHOD_OTHER), "other");
    assert_string_equal(kube_method_name(KUBE_METHOD_N), "other");
    assert_int_equal(kube_client_requests(c, KUBE_METHOD_N), 0);
    kube_client_free(c);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_by_method),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
