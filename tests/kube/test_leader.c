/* test_leader.c: leader election against an in-memory Lease store served on loopback with the API
 * server's optimistic-concurrency rules (409 on a stale resourceVersion or an existing name):
 * one of two candidates leads; release hands over at once; a silent holder is taken over only
 * after the lease duration; a leader that cannot renew stops leading within the renew deadline;
 * a shut-down client ends the election instead of retrying in a loop. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube_test_util.h"
#include "clock.h"
#include "kutil.h"
#include "leader.h"
#include "log.h"
#include "mock_server.h"

#define LEASE_PATH "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/dagsched"

typedef struct store {
    json_t *lease; /* NULL: absent */
    long rv;
    bool down;
    int requests; /* answered so far */
} store;

static void put_status(mock_reply *rep, int code, const char *reason, char *buf, size_t size)
{
    snprintf(buf, size, "{\"kind\":\"Status\",\"code\":%d,\"reason\":\"%s\",\"message\":\"%s\"}",
             code, reason, reason);
    rep->status = code;
    rep->body = buf;
}

static void lease_handler(void *ud, const mock_request *req, mock_reply *rep, char *buf,
                          size_t size)
{
    store *s = ud;
    s->requests++;
    if (s->down) {
        put_status(rep, 503, "ServiceUnavailable", buf, size);
        return;
    }
    bool is_get = strcmp(req->method, "GET") == 0;
    bool is_post = strcmp(req->method, "POST") == 0;
    bool is_put = strcmp(req->method, "PUT") == 0;
    if (is_get && strcmp(req->path, LEASE_PATH) == 0) {
        if (s->lease == NULL) {
            put_status(rep, 404, "NotFound", buf, size);
            return;
        }
        char *t = json_dumps(s->lease, JSON_COMPACT);
        snprintf(buf, size, "%s", t);
        free(t);
        rep->status = 200;
        rep->body = buf;
        return;
    }
    json_error_t jerr;
    json_t *body = json_loads(req->body, 0, &jerr);
    if (body == NULL) {
        put_status(rep, 400, "BadRequest", buf, size);
        return;
    }
    json_t *md = json_object_get(body, "metadata");
    if (is_post && s->lease == NULL) {
        s->rv++;
        json_object_set_new(md, "resourceVersion", json_sprintf("%ld", s->rv));
        s->lease = body;
        rep->status = 201;
        rep->body = "{}";
        return;
    }
    if (is_post) {
        json_decref(body);
        put_status(rep, 409, "AlreadyExists", buf, size);
        return;
    }
    if (is_put && s->lease != NULL && strcmp(req->path, LEASE_PATH) == 0) {
        const char *want = json_string_value(
            json_object_get(json_object_get(s->lease, "metadata"), "resourceVersion"));
        const char *got = json_string_value(json_object_get(md, "resourceVersion"));
        if (got == NULL || strcmp(want, got) != 0) {
            json_decref(body);
            put_status(rep, 409, "Conflict", buf, size);
            return;
        }
        s->rv++;
        json_object_set_new(md, "resourceVersion", json_sprintf("%ld", s->rv));
        json_decref(s->lease);
        s->lease = body;
        rep->status = 200;
        rep->body = "{}";
        return;
    }
    json_decref(body);
    put_status(rep, 405, "MethodNotAllowed", buf, size);
}

typedef struct candidate {
    kube_leader *le;
    atomic_int started, stopped;
} candidate;

static void on_started(void *u)
{
    atomic_fetch_add(&((candidate *)u)->started, 1);
}

static void on_stopped(void *u)
{
    atomic_fetch_add(&((candidate *)u)->stopped, 1);
}

static kube_client *client_for(mock_server *m)
{
    char server[64];
    snprintf(server, sizeof server, "http://127.0.0.1:%d", m->port);
    kube_config cfg = {.server = server, .namespace = "default", .source = "test"};
    kube_client *c = NULL;
    ds_err err = {{0}};
    if (kube_client_new(&cfg, NULL, &c, &err) != 0)
        fail_msg("%s", err.msg);
    return c;
}

/* The Lease store served on loopback, and a client for it. */
static kube_client *lease_server_start(mock_server *m, store *s)
{
    assert_int_equal(mock_start(m), 0);
    pthread_mutex_lock(&m->lock);
    m->handler = lease_handler;
    m->handler_ud = s;
    pthread_mutex_unlock(&m->lock);
    return client_for(m);
}

static void candidate_start(candidate *cd, kube_client *c, const char *id)
{
    kube_leader_opts o = {.namespace = "kube-system",
                          .name = "dagsched",
                          .identity = id,
                          .lease_duration_s = 2,
                          .renew_deadline_s = 1.5,
                          .retry_period_s = 0.25,
                          .on_started = on_started,
                          .on_stopped = on_stopped,
                          .user = cd};
    atomic_init(&cd->started, 0);
    atomic_init(&cd->stopped, 0);
    ds_err err = {{0}};
    if (kube_leader_new(c, &o, &cd->le, &err) != 0 || kube_leader_start(cd->le, &err) != 0)
        fail_msg("%s", err.msg);
}

/* Wait until pred(cd) holds or timeout; returns whether it holds. */
static bool wait_for(candidate *cd, bool want_leader, double timeout)
{
    double end = rt_mono_now() + timeout;
    while (rt_mono_now() < end) {
        if (kube_leader_is_leader(cd->le) == want_leader)
            return true;
        usleep(20000);
    }
    return kube_leader_is_leader(cd->le) == want_leader;
}

static void test_contention_and_release(void **state)
{
    (void)state;
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    store s = {0};
    mock_server m;
    kube_client *c = lease_server_start(&m, &s);
    candidate a, b;
    candidate_start(&a, c, "a");
    candidate_start(&b, c, "b");
    double end = rt_mono_now() + 5;
    while (!kube_leader_is_leader(a.le) && !kube_leader_is_leader(b.le) && rt_mono_now() < end)
        usleep(20000);
    /* Several renewal periods: never two leaders. */
    for (int i = 0; i < 100; i++) {
        bool la = kube_leader_is_leader(a.le), lb = kube_leader_is_leader(b.le);
        assert_true(la != lb);
        usleep(10000);
    }
    candidate *lead = kube_leader_is_leader(a.le) ? &a : &b;
    candidate *other = lead == &a ? &b : &a;
    char holder[64];
    kube_leader_holder(other->le, holder, sizeof holder);
    assert_string_equal(holder, lead == &a ? "a" : "b");
    /* Release on stop: the other takes over well before the lease duration would expire. */
    double t0 = rt_mono_now();
    kube_leader_stop(lead->le);
    assert_int_equal(atomic_load(&lead->started), 1);
    assert_int_equal(atomic_load(&lead->stopped), 1);
    assert_false(kube_leader_is_leader(lead->le));
    assert_true(wait_for(other, true, 5));
    assert_true(rt_mono_now() - t0 < 1.9);
    pthread_mutex_lock(&m.lock);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(s.lease, "spec"), "leaseTransitions")),
        1);
    pthread_mutex_unlock(&m.lock);

    /* The server stops answering: the leader stops within the renew deadline. */
    pthread_mutex_lock(&m.lock);
    s.down = true;
    pthread_mutex_unlock(&m.lock);
    t0 = rt_mono_now();
    assert_true(wait_for(other, false, 5));
    assert_true(rt_mono_now() - t0 <= 1.5 + 0.5);
    end = rt_mono_now() + 3;
    while (atomic_load(&other->stopped) == 0 && rt_mono_now() < end)
        usleep(20000);
    assert_int_equal(atomic_load(&other->stopped), 1);
    /* Back up: it is still the recorded holder, so it leads again. */
    pthread_mutex_lock(&m.lock);
    s.down = false;
    pthread_mutex_unlock(&m.lock);
    assert_true(wait_for(other, true, 5));
    assert_int_equal(atomic_load(&other->started), 2);
    kube_leader_free(a.le);
    kube_leader_free(b.le);
    kube_client_free(c);
    mock_stop(&m);
    json_decref(s.lease);
}

static void test_silent_holder_taken_over_after_duration(void **state)
{
    (void)state;
    store s = {0};
    s.rv = 7;
    s.lease = json_pack("{s:{s:s, s:s, s:s}, s:{s:s, s:i, s:s, s:i}}", "metadata", "name",
                        "dagsched", "namespace", "kube-system", "resourceVersion", "7", "spec",
                        "holderIdentity", "ghost", "leaseDurationSeconds", 2, "renewTime",
                        "2026-11-22T10:00:00.000000Z", "leaseTransitions", 4);
    mock_server m;
    kube_client *c = lease_server_start(&m, &s);
    candidate a;
    double t0 = rt_mono_now();
    candidate_start(&a, c, "a");
    /* The ghost's renewTime is not trusted: the 2 s count from when "a" first saw the record. */
    assert_true(wait_for(&a, true, 6));
    assert_true(rt_mono_now() - t0 >= 2.0);
    pthread_mutex_lock(&m.lock);
    json_t *spec = json_object_get(s.lease, "spec");
    assert_string_equal(json_string_value(json_object_get(spec, "holderIdentity")), "a");
    assert_int_equal(json_integer_value(json_object_get(spec, "leaseTransitions")), 5);
    pthread_mutex_unlock(&m.lock);
    kube_leader_free(a.le);
    kube_client_free(c);
    mock_stop(&m);
    json_decref(s.lease);
}

static int requests_seen(mock_server *m, store *s)
{
    pthread_mutex_lock(&m->lock);
    int n = s->requests;
    pthread_mutex_unlock(&m->lock);
    return n;
}

/* After kube_client_shutdown every request fails at once: the elector threads must end rather
 * than retry in a tight loop. The leader stops leading and cannot release the Lease. */
static void test_client_shutdown_ends_election(void **state)
{
    (void)state;
    FILE *logf = tmpfile();
    assert_non_null(logf);
    kube_log_setup(KUBE_LOG_INFO, KUBE_LOG_TEXT, logf);
    store s = {0};
    mock_server m;
    kube_client *c = lease_server_start(&m, &s);
    candidate a, b;
    candidate_start(&a, c, "a");
    assert_true(wait_for(&a, true, 5));
    candidate_start(&b, c, "b"); /* a candidate, retrying every 0.25 s */
    usleep(300 * 1000);

    kube_client_shutdown(c);
    double end = rt_mono_now() + 3;
    while (atomic_load(&a.stopped) == 0 && rt_mono_now() < end)
        usleep(10000);
    assert_int_equal(atomic_load(&a.stopped), 1);
    assert_false(kube_leader_is_leader(a.le));
    /* No request after the threads noticed (the retry period is 0.25 s: a spinning elector would
     * send hundreds in this time, a live one at least one). */
    usleep(100 * 1000);
    int n = requests_seen(&m, &s);
    usleep(600 * 1000);
    assert_int_equal(requests_seen(&m, &s), n);
    /* The lease is not released (the client cannot write): it still names "a". */
    pthread_mutex_lock(&m.lock);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(s.lease, "spec"), "holderIdentity")),
        "a");
    pthread_mutex_unlock(&m.lock);
    kube_leader_free(a.le);
    kube_leader_free(b.le);
    assert_int_equal(atomic_load(&b.started), 0);

    char logged[8192];
    ktest_read_log(logf, logged, sizeof logged);
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    fclose(logf);
    assert_null(strstr(logged, "cancelled"));
    assert_non_null(strstr(logged, "lease kube-system/dagsched: a stops leading: the API client is "
                                   "shut down\n"));
    assert_non_null(strstr(logged, "the API client is shut down; the election stops\n"));
    kube_client_free(c);
    mock_stop(&m);
    json_decref(s.lease);
}

static void test_bad_options(void **state)
{
    (void)state;
    kube_leader *le;
    ds_err err = {{0}};
    kube_leader_opts o = {.namespace = "ns",
                          .name = "l",
                          .identity = "x",
                          .lease_duration_s = 10,
                          .renew_deadline_s = 10};
    assert_int_equal(kube_leader_new(NULL, &o, &le, &err), -1);
    assert_string_equal(err.msg,
                        "leader election: renewDeadline must be below leaseDuration (got 10 >= "
                        "10)");
    o.renew_deadline_s = 2;
    o.retry_period_s = 2;
    assert_int_equal(kube_leader_new(NULL, &o, &le, &err), -1);
    assert_string_equal(err.msg, "leader election: renewDeadline must exceed 1.2 * retryPeriod "
                                 "(got 2 and 2)");
    o.identity = "";
    assert_int_equal(kube_leader_new(NULL, &o, &le, &err), -1);
    assert_string_equal(err.msg, "leader election: identity must be 1..255 characters");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contention_and_release),
        cmocka_unit_test(test_silent_holder_taken_over_after_duration),
        cmocka_unit_test(test_client_shutdown_ends_election),
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
