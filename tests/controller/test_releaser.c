/* test_releaser.c: the release window (controller/releaser.h) against a loopback API server whose
 * answers take 50 ms: releases are sent at once, never more than the window (each request in
 * flight holds a connection of its own: the server counts them), each one PATCH with the gate and
 * the annotations, every release ends in the callback once with its payload; a failed one says
 * why; none is sent while the controller may not write; those still queued at stop are skipped;
 * the client's rate limit paces them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kube/mock_server.h"
#include "clock.h"
#include "config.h"
#include "log.h"
#include "releaser.h"

#define GATE "dagsched.io/dependencies"

typedef struct api {
    int patches; /* PATCH requests received */
} api;

/* 200 for a PATCH of a pod of namespace ns1 (404 for pod "missing"), in five chunks 10 ms apart. */
static void handler(void *ud, const mock_request *q, mock_reply *rep, char *body, size_t size)
{
    api *a = ud;
    (void)body;
    (void)size;
    if (strcmp(q->method, "PATCH") == 0)
        a->patches++;
    if (strcmp(q->method, "PATCH") != 0 || strstr(q->path, "/pods/missing") != NULL) {
        rep->status = 404;
        rep->body = "{\"kind\":\"Status\",\"reason\":\"NotFound\",\"code\":404,\"message\":"
                    "\"pods \\\"missing\\\" not found\"}";
        return;
    }
    rep->status = 200;
    rep->body = NULL;
    static const char *const chunks[] = {"{\"kind\":", "\"Pod\",", "\"metadata\":", "{}", "}"};
    for (size_t i = 0; i < 5; i++)
        rep->chunks[i] = chunks[i];
}

typedef struct fixture {
    mock_server m;
    api a;
    kube_client *client;
    ctl_releaser r;
    pthread_mutex_t mu;
    int done_ok, done_failed, done_skipped, payload_sum;
    char last_err[600];
    bool may;
} fixture;

static void on_done(void *ud, const ctl_release_req *r, int rc, const ds_err *err, double seconds)
{
    fixture *f = ud;
    (void)seconds;
    pthread_mutex_lock(&f->mu);
    if (rc == 0)
        f->done_ok++;
    else if (rc == CTL_RELEASE_SKIPPED)
        f->done_skipped++;
    else {
        f->done_failed++;
        snprintf(f->last_err, sizeof f->last_err, "%s", err->msg);
    }
    int *payload = r->payload;
    f->payload_sum += *payload;
    free(payload);
    pthread_mutex_unlock(&f->mu);
}

static bool may_write(void *ud)
{
    fixture *f = ud;
    return f->may;
}

static kube_client *client_for(fixture *f, double qps, double burst)
{
    char kc[512];
    snprintf(kc, sizeof kc,
             "apiVersion: v1\nkind: Config\n"
             "clusters: [{name: c, cluster: {server: \"http://127.0.0.1:%d\"}}]\n"
             "users: [{name: u, user: {token: t}}]\n"
             "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
             "current-context: x\n",
             f->m.port);
    kube_config *cfg = NULL;
    ds_err err = {{0}};
    if (kube_config_parse_kubeconfig(kc, strlen(kc), "test", NULL, &cfg, &err) != 0)
        return NULL;
    kube_client_opts o = {.max_retries = 0, .qps = qps, .burst = burst};
    kube_client *c = NULL;
    int rc = kube_client_new(cfg, &o, &c, &err);
    kube_config_free(cfg);
    return rc == 0 ? c : NULL;
}

static int setup(void **state)
{
    kube_log_setup(KUBE_LOG_OFF, KUBE_LOG_TEXT, stderr);
    fixture *f = calloc(1, sizeof *f);
    if (f == NULL || mock_start(&f->m) != 0)
        return -1;
    pthread_mutex_lock(&f->m.lock);
    f->m.handler = handler;
    f->m.handler_ud = &f->a;
    pthread_mutex_unlock(&f->m.lock);
    pthread_mutex_init(&f->mu, NULL);
    f->may = true;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    ctl_releaser_stop(&f->r);
    if (f->client != NULL)
        kube_client_free(f->client);
    mock_stop(&f->m);
    pthread_mutex_destroy(&f->mu);
    free(f);
    return 0;
}

static void start(fixture *f, size_t window, double qps, double burst)
{
    f->client = client_for(f, qps, burst);
    assert_non_null(f->client);
    ds_err err = {{0}};
    assert_int_equal(ctl_releaser_start(&f->r, f->client, GATE, "dagsched.io/released-at", window,
                                        on_done, may_write, f, &err),
                     0);
}

/* Release pod NAME with one annotation; its payload is the integer v. */
static void submit(fixture *f, const char *name, int v)
{
    int *payload = malloc(sizeof *payload);
    assert_non_null(payload);
    *payload = v;
    const char *kv[] = {"dagsched.io/waiting-reason", NULL};
    assert_int_equal(ctl_releaser_submit(&f->r, "ns1", name, kv, 1, payload), 0);
}

/* 32 releases of 50 ms each through a window of 8: about 0.2 s, not the 1.6 s of one after
 * another; at most 8 connections, so at most 8 requests in flight. */
static void test_window(void **state)
{
    fixture *f = *state;
    start(f, 8, 0, 0);
    double t0 = rt_mono_now();
    int want = 0;
    for (int i = 0; i < 32; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%02d", i);
        submit(f, name, i + 1);
        want += i + 1;
    }
    ctl_releaser_wait(&f->r);
    double took = rt_mono_now() - t0;
    assert_int_equal(f->done_ok, 32);
    assert_int_equal(f->payload_sum, want);
    assert_int_equal(f->a.patches, 32);
    assert_true(took < 0.8);
    pthread_mutex_lock(&f->m.lock);
    int conns = f->m.connections;
    mock_request first = f->m.requests[0];
    pthread_mutex_unlock(&f->m.lock);
    assert_true(conns > 1);
    assert_true(conns <= 8);
    size_t most = ctl_releaser_max_in_flight(&f->r);
    assert_true(most > 1 && most <= 8);
    /* One strategic merge patch: the gate removed, released-at set when sent, waiting-reason
     * removed. */
    assert_string_equal(first.content_type, "application/strategic-merge-patch+json");
    assert_non_null(strstr(first.body, GATE));
    assert_non_null(strstr(first.body, "\"dagsched.io/released-at\""));
    assert_non_null(strstr(first.body, "\"dagsched.io/waiting-reason\":null"));
}

/* A window of 1: one after another (the requests hold one connection). */
static void test_window_of_one(void **state)
{
    fixture *f = *state;
    start(f, 1, 0, 0);
    double t0 = rt_mono_now();
    for (int i = 0; i < 6; i++)
        submit(f, "p", 1);
    ctl_releaser_wait(&f->r);
    assert_int_equal(f->done_ok, 6);
    assert_true(rt_mono_now() - t0 >= 6 * 0.04);
    assert_int_equal(ctl_releaser_max_in_flight(&f->r), 1);
    assert_int_equal(f->m.connections, 1);
}

static void test_failure_reported(void **state)
{
    fixture *f = *state;
    start(f, 4, 0, 0);
    submit(f, "missing", 5);
    submit(f, "p1", 7);
    ctl_releaser_wait(&f->r);
    assert_int_equal(f->done_ok, 1);
    assert_int_equal(f->done_failed, 1);
    assert_int_equal(f->payload_sum, 12);
    assert_non_null(strstr(f->last_err, "404"));
}

static void test_not_leading(void **state)
{
    fixture *f = *state;
    f->may = false;
    start(f, 4, 0, 0);
    for (int i = 0; i < 5; i++)
        submit(f, "p", 1);
    ctl_releaser_wait(&f->r);
    assert_int_equal(f->done_skipped, 5);
    assert_int_equal(f->payload_sum, 5);
    assert_int_equal(f->a.patches, 0);
}

/* Stop with releases queued: the one in flight ends, the others are skipped, each payload handed
 * to the callback (freed there: no leak under LeakSanitizer). */
static void test_stop_skips_queued(void **state)
{
    fixture *f = *state;
    start(f, 1, 0, 0);
    for (int i = 0; i < 20; i++)
        submit(f, "p", 1);
    ctl_releaser_stop(&f->r);
    assert_int_equal(f->done_ok + f->done_skipped, 20);
    assert_true(f->done_skipped >= 10);
    assert_int_equal(f->payload_sum, 20);
    assert_int_equal(ctl_releaser_submit(&f->r, "ns1", "p", NULL, 0, NULL), -1);
}

/* The client's rate limit: 50 requests a second, burst 1: 11 releases take at least 0.2 s
 * whatever the window, and the client counts the requests that waited. */
static void test_client_rate(void **state)
{
    fixture *f = *state;
    start(f, 8, 50, 1);
    double t0 = rt_mono_now();
    for (int i = 0; i < 11; i++)
        submit(f, "p", 1);
    ctl_releaser_wait(&f->r);
    assert_int_equal(f->done_ok, 11);
    assert_true(rt_mono_now() - t0 >= 0.18);
    assert_true(kube_client_throttled(f->client) >= 9);
}

static void test_bad_arguments(void **state)
{
    fixture *f = *state;
    f->client = client_for(f, 0, 0);
    assert_non_null(f->client);
    ds_err err = {{0}};
    assert_int_equal(ctl_releaser_start(&f->r, f->client, GATE, NULL, 0, on_done, NULL, f, &err),
                     -1);
    assert_non_null(strstr(err.msg, "1..256"));
    assert_int_equal(ctl_releaser_start(&f->r, f->client, GATE, NULL, CTL_RELEASER_MAX_WINDOW + 1,
                                        on_done, NULL, f, &err),
                     -1);
    assert_int_equal(ctl_releaser_submit(&f->r, "ns1", "p", NULL, 0, NULL), -1); /* not started */
    assert_int_equal(ctl_releaser_start(&f->r, f->client, GATE, NULL, 2, on_done, NULL, f, &err),
                     0);
    const char *kv[2 * (CTL_RELEASER_MAX_KV + 1)] = {0};
    for (size_t i = 0; i < CTL_RELEASER_MAX_KV + 1; i++)
        kv[2 * i] = "k";
    assert_int_equal(ctl_releaser_submit(&f->r, "ns1", "p", kv, CTL_RELEASER_MAX_KV + 1, NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_window, setup, teardown),
        cmocka_unit_test_setup_teardown(test_window_of_one, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failure_reported, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_leading, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_skips_queued, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client_rate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
