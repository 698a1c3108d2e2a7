/* test_releaser.c: what the release window (controller/releaser.h) decides without a server: its
 * arguments and bounds, nothing sent while the controller may not write, releases still queued at
 * stop skipped and never taken by a thread, every callback once with its payload. The client
 * points at a port where nothing listens and none of these cases sends a request (the client's
 * count says so). What it sends to the API server, at once and never more than the window,
 * failures, stop with a release in flight and the client's rate limit are checked against the real
 * kube-apiserver by tests/controller/prog_releaser_itest.c (the controller's integration suite). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "config.h"
#include "log.h"
#include "releaser.h"

#define GATE "dagsched.io/dependencies"

typedef struct fixture {
    kube_client *client;
    ctl_releaser r;
    pthread_mutex_t mu;
    int done_ok, done_failed, done_skipped, payload_sum;
    int may_calls;    /* may_write called: a release taken by a thread */
    double may_sleep; /* may_write takes this long (seconds): a release being taken */
    bool may;
} fixture;

static void on_done(void *ud, const ctl_release_req *r, int rc, const ds_err *err, double seconds)
{
    fixture *f = ud;
    (void)err;
    (void)seconds;
    pthread_mutex_lock(&f->mu);
    if (rc == 0)
        f->done_ok++;
    else if (rc == CTL_RELEASE_SKIPPED)
        f->done_skipped++;
    else
        f->done_failed++;
    int *payload = r->payload;
    f->payload_sum += *payload;
    free(payload);
    pthread_mutex_unlock(&f->mu);
}

static bool may_write(void *ud)
{
    fixture *f = ud;
    pthread_mutex_lock(&f->mu);
    f->may_calls++;
    double s = f->may_sleep;
    bool may = f->may;
    pthread_mutex_unlock(&f->mu);
    if (s > 0) {
        struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)(s * 1e9)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    return may;
}

/* A client of a server where nothing listens: any request sent would fail. */
static kube_client *client_nowhere(void)
{
    static const char kc[] = "apiVersion: v1\nkind: Config\n"
                             "clusters: [{name: c, cluster: {server: \"http://127.0.0.1:1\"}}]\n"
                             "users: [{name: u, user: {token: t}}]\n"
                             "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
                             "current-context: x\n";
    kube_config *cfg = NULL;
    ds_err err = {{0}};
    if (kube_config_parse_kubeconfig(kc, strlen(kc), "test", NULL, &cfg, &err) != 0)
        return NULL;
    kube_client_opts o = {.max_retries = 0};
    kube_client *c = NULL;
    int rc = kube_client_new(cfg, &o, &c, &err);
    kube_config_free(cfg);
    return rc == 0 ? c : NULL;
}

static int setup(void **state)
{
    kube_log_setup(KUBE_LOG_OFF, KUBE_LOG_TEXT, stderr);
    fixture *f = calloc(1, sizeof *f);
    if (f == NULL || pthread_mutex_init(&f->mu, NULL) != 0) {
        free(f);
        return -1;
    }
    f->client = client_nowhere();
    if (f->client == NULL) {
        pthread_mutex_destroy(&f->mu);
        free(f);
        return -1;
    }
    f->may = true;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    ctl_releaser_stop(&f->r);
    kube_client_free(f->client);
    pthread_mutex_destroy(&f->mu);
    free(f);
    return 0;
}

static void start(fixture *f, size_t window)
{
    ds_err err = {{0}};
    assert_int_equal(ctl_releaser_start(&f->r, f->client, GATE, "dagsched.io/released-at", window,
                                        on_done, may_write, f, &err),
                     0);
}

/* Release pod NAME with two annotations; its payload is the integer v. */
static void submit(fixture *f, const char *name, int v)
{
    int *payload = malloc(sizeof *payload);
    assert_non_null(payload);
    *payload = v;
    const char *kv[] = {"dagsched.io/waiting-reason", NULL};
    assert_int_equal(ctl_releaser_submit(&f->r, "ns1", name, kv, 1, payload), 0);
}

static uint64_t requests_sent(fixture *f)
{
    uint64_t n = 0;
    for (int m = 0; m < KUBE_METHOD_N; m++)
        n += kube_client_requests(f->client, (kube_method)m);
    return n;
}

/* While the controller may not write (leadership lost): each release taken is skipped, its
 * payload handed to the callback, and nothing is sent. */
static void test_not_leading(void **state)
{
    fixture *f = *state;
    f->may = false;
    start(f, 4);
    for (int i = 0; i < 5; i++)
        submit(f, "p", i + 1);
    ctl_releaser_wait(&f->r);
    assert_int_equal(f->done_skipped, 5);
    assert_int_equal(f->done_ok + f->done_failed, 0);
    assert_int_equal(f->payload_sum, 15);
    assert_int_equal(f->may_calls, 5);
    assert_int_equal(requests_sent(f), 0);
    assert_true(ctl_releaser_max_in_flight(&f->r) >= 1);
    assert_true(ctl_releaser_max_in_flight(&f->r) <= 4);
}

/* Stop while the one thread is taking a release (may_write takes 50 ms) and 19 more are queued:
 * the queued ones are skipped by stop, never taken by a thread, each payload handed to the
 * callback (freed there: no leak under LeakSanitizer); a release submitted after stop is
 * refused. */
static void test_stop_skips_queued(void **state)
{
    fixture *f = *state;
    f->may = false;
    f->may_sleep = 0.05;
    start(f, 1);
    for (int i = 0; i < 20; i++)
        submit(f, "p", 1);
    ctl_releaser_stop(&f->r);
    assert_int_equal(f->done_skipped, 20);
    assert_int_equal(f->payload_sum, 20);
    assert_true(f->may_calls <= 1);
    assert_int_equal(requests_sent(f), 0);
    assert_int_equal(ctl_releaser_submit(&f->r, "ns1", "p", NULL, 0, NULL), -1);
}

/* Never started: stop, wait and the count are safe; submit is refused. */
static void test_not_started(void **state)
{
    fixture *f = *state;
    ctl_releaser r;
    memset(&r, 0, sizeof r);
    ctl_releaser_stop(&r);
    ctl_releaser_wait(&r);
    assert_int_equal(ctl_releaser_max_in_flight(&r), 0);
    assert_int_equal(ctl_releaser_submit(&r, "ns1", "p", NULL, 0, NULL), -1);
    (void)f;
}

static void test_bad_arguments(void **state)
{
    fixture *f = *state;
    ds_err err = {{0}};
    assert_int_equal(ctl_releaser_start(&f->r, f->client, GATE, NULL, 0, on_done, NULL, f, &err),
                     -1);
    assert_string_equal(err.msg, "release window: 0 threads (1..256)");
    assert_int_equal(ctl_releaser_start(&f->r, f->client, GATE, NULL, CTL_RELEASER_MAX_WINDOW + 1,
                                        on_done, NULL, f, &err),
                     -1);
    assert_string_equal(err.msg, "release window: 257 threads (1..256)");
    assert_int_equal(ctl_releaser_start(&f->r, NULL, GATE, NULL, 2, on_done, NULL, f, &err), -1);
    assert_string_equal(err.msg, "release window: missing client, gate or callback");
    assert_int_equal(ctl_releaser_start(&f->r, f->client, GATE, NULL, 2, NULL, NULL, f, &err), -1);
    assert_int_equal(ctl_releaser_submit(&f->r, "ns1", "p", NULL, 0, NULL), -1); /* not started */
    assert_int_equal(ctl_releaser_start(&f->r, f->client, GATE, NULL, 2, on_done, NULL, f, &err),
                     0);
    const char *kv[2 * (CTL_RELEASER_MAX_KV + 1)] = {0};
    for (size_t i = 0; i < CTL_RELEASER_MAX_KV + 1; i++)
        kv[2 * i] = "k";
    assert_int_equal(ctl_releaser_submit(&f->r, "ns1", "p", kv, CTL_RELEASER_MAX_KV + 1, NULL), -1);
    assert_int_equal(ctl_releaser_submit(&f->r, NULL, "p", NULL, 0, NULL), -1);
    assert_int_equal(ctl_releaser_submit(&f->r, "ns1", NULL, NULL, 0, NULL), -1);
    ctl_releaser_wait(&f->r); /* nothing was queued */
    assert_int_equal(f->done_ok + f->done_failed + f->done_skipped, 0);
    assert_int_equal(requests_sent(f), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_not_leading, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_skips_queued, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_started, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
