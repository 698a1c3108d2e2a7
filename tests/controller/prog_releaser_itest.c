/* prog_releaser_itest.c: the release window (controller/releaser.h) against the real kube-apiserver
 * (KUBECONFIG), through a fault proxy (tests/kube/fault_proxy.h) that delays every piece the server
 * sends by 50 ms, on real gated pods of a namespace of its own, each read back afterwards:
 *   window      32 releases through a window of 8: sent at once (the proxy saw more than one
 *               connection open at once; faster than one after another could be) and never more
 *               than 8 in flight (at most 8 connections: each request in flight holds one of its
 *               own); each release one PATCH (the client's count) that removes dagsched's gate,
 *               keeps the other gate (a strategic merge patch), sets released-at and removes
 *               waiting-reason; every callback once, with its payload
 *   window-of-one  a window of 1: one release after another, on one connection
 *   failure     a release of a pod that does not exist ends in the callback with the server's 404
 *   not-leading while the controller may not write, every release is skipped and nothing reaches
 *               the server (no connection, no byte)
 *   stop        releases still queued at stop are skipped, each payload handed to the callback,
 *               and only those sent are released
 *   rate        the client's rate limit (50 requests a second, burst 1) paces the releases
 *   cleanup     the namespace and the pods left gated in it are gone before the program ends
 * Run by the controller's integration suite (tests/controller/integration.sh, scenario releaser),
 * normally as the sanitizer build: payloads are freed in the callback, so a callback that does not
 * fire is a leak. Prints one "ok"/"FAIL" line per check; exits 0 when all passed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kube/itest_util.h"
#include "releaser.h"

#define GATE     "dagsched.io/dependencies"
#define OTHER    "example.com/hold"
#define RELEASED "dagsched.io/released-at"
#define WAITING  "dagsched.io/waiting-reason"
#define DELAY_S  0.05

typedef struct fixture {
    fproxy px;
    kube_client *client; /* through the proxy */
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
    pthread_mutex_lock(&f->mu);
    bool may = f->may;
    pthread_mutex_unlock(&f->mu);
    return may;
}

/* A fresh proxy (its counts are this scenario's) delaying by delay_s, a client through it with the
 * rate limit qps/burst (0: none) and no retry, and the window started. */
static void begin(fixture *f, const char *name, int api_port, size_t window, double delay_s,
                  double qps, double burst, bool may)
{
    printf("-- %s\n", name);
    memset(f, 0, sizeof *f);
    if (pthread_mutex_init(&f->mu, NULL) != 0 || fproxy_start(&f->px, api_port) != 0) {
        printf("FAIL  no mutex or no fault proxy\n");
        exit(1);
    }
    fproxy_set(&f->px, 0, 0, 0, delay_s);
    f->may = may;
    kube_config *pcfg = itest_config();
    itest_set_port(pcfg, f->px.port);
    kube_client_opts o = {.max_retries = 0, .qps = qps, .burst = burst};
    f->client = itest_client(pcfg, &o);
    kube_config_free(pcfg);
    ds_err err = {{0}};
    if (ctl_releaser_start(&f->r, f->client, GATE, RELEASED, window, on_done, may_write, f, &err) !=
        0)
        itest_die("start the release window", &err);
}

static void end(fixture *f)
{
    ctl_releaser_stop(&f->r);
    kube_client_free(f->client);
    fproxy_stop(&f->px);
    pthread_mutex_destroy(&f->mu);
}

/* Release pod NAME of ns: released-at set, waiting-reason removed; its payload is the integer v. */
static void submit(fixture *f, const char *ns, const char *name, int v)
{
    int *payload = malloc(sizeof *payload);
    if (payload == NULL) {
        printf("FAIL  out of memory\n");
        exit(1);
    }
    *payload = v;
    const char *kv[] = {WAITING, NULL};
    if (ctl_releaser_submit(&f->r, ns, name, kv, 1, payload) != 0) {
        free(payload);
        printf("FAIL  submit %s/%s\n", ns, name);
        exit(1);
    }
}

/* Pods PREFIX00..PREFIX(n-1): dagsched's gate and another one (kube-scheduler leaves them alone),
 * a waiting-reason. */
static void create_pods(kube_client *c, const char *ns, const char *prefix, int n)
{
    char path[256], text[1024];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods", ns);
    for (int i = 0; i < n; i++) {
        snprintf(text, sizeof text,
                 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s%02d\","
                 "\"annotations\":{\"" WAITING "\":\"held\"}},\"spec\":{\"schedulingGates\":"
                 "[{\"name\":\"" GATE "\"},{\"name\":\"" OTHER "\"}],\"containers\":[{\"name\":"
                 "\"c\",\"image\":\"busybox\"}]}}",
                 prefix, i);
        itest_create(c, path, text, NULL);
    }
}

static void pod_name(char *out, size_t size, const char *prefix, int i)
{
    snprintf(out, size, "%s%02d", prefix, i);
}

/* released-at as the releaser writes it when it sends the request: RFC 3339 with microseconds
 * ("2026-11-29T20:10:00.123456Z"). */
static bool stamped(const char *v)
{
    return v != NULL && strlen(v) == 27 && v[4] == '-' && v[10] == 'T' && v[19] == '.' &&
           v[26] == 'Z';
}

/* Pods PREFIX00..PREFIX(n-1) read back: how many are released as a release writes them (only the
 * other gate left, released-at set, waiting-reason gone) and how many untouched (both gates,
 * waiting-reason, no released-at); the others counted in *odd. */
static void count_pods(kube_client *c, const char *ns, const char *prefix, int n, int *released,
                       int *untouched, int *odd)
{
    *released = *untouched = *odd = 0;
    for (int i = 0; i < n; i++) {
        char name[32], path[256];
        pod_name(name, sizeof name, prefix, i);
        snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/%s", ns, name);
        json_t *pod = itest_get(c, path, NULL);
        const json_t *gates = json_object_get(json_object_get(pod, "spec"), "schedulingGates");
        const json_t *ann = json_object_get(json_object_get(pod, "metadata"), "annotations");
        const char *rel = json_string_value(json_object_get(ann, RELEASED));
        const char *wait = json_string_value(json_object_get(ann, WAITING));
        const char *g0 = itest_str(json_array_get(gates, 0), "name", NULL);
        if (json_array_size(gates) == 1 && strcmp(g0, OTHER) == 0 && rel != NULL && stamped(rel) &&
            wait == NULL)
            (*released)++;
        else if (json_array_size(gates) == 2 && strcmp(g0, GATE) == 0 && rel == NULL &&
                 wait != NULL)
            (*untouched)++;
        else
            (*odd)++;
        json_decref(pod);
    }
}

static void check_window(kube_client *c, const char *ns, int api_port)
{
    enum { N = 32, WINDOW = 8 };
    create_pods(c, ns, "w", N);
    fixture f;
    begin(&f, "window", api_port, WINDOW, DELAY_S, 0, 0, true);
    double t0 = rt_mono_now();
    int want = 0;
    for (int i = 0; i < N; i++) {
        char name[32];
        pod_name(name, sizeof name, "w", i);
        submit(&f, ns, name, i + 1);
        want += i + 1;
    }
    ctl_releaser_wait(&f.r);
    double took = rt_mono_now() - t0;
    fproxy_counts pc = fproxy_get(&f.px);
    size_t most = ctl_releaser_max_in_flight(&f.r);
    uint64_t patches = kube_client_requests(f.client, KUBE_METHOD_PATCH);
    uint64_t all = 0;
    for (int m = 0; m < KUBE_METHOD_N; m++)
        all += kube_client_requests(f.client, (kube_method)m);
    CHECK(f.done_ok == N && f.done_failed == 0 && f.done_skipped == 0,
          "%d releases through a window of %d: each callback once, rc 0 (ok %d, failed %d, "
          "skipped %d%s%s)",
          N, WINDOW, f.done_ok, f.done_failed, f.done_skipped, f.done_failed ? ": " : "",
          f.last_err);
    CHECK(f.payload_sum == want, "... each with its payload (sum %d, want %d)", f.payload_sum,
          want);
    CHECK(pc.most_open > 1 && most > 1,
          "... sent at once: %d connections open at once at the proxy, %zu releases in flight",
          pc.most_open, most);
    CHECK(took < N * DELAY_S,
          "... in %.2f s, less than one after another could take (%d answers delayed %.0f ms "
          "each: %.2f s)",
          took, N, DELAY_S * 1000, N * DELAY_S);
    CHECK(pc.connections <= WINDOW && most <= WINDOW,
          "... never more than %d in flight: %d connections in all, %zu in flight at most", WINDOW,
          pc.connections, most);
    CHECK(patches == N && all == N, "... one request each, a PATCH (%llu PATCH, %llu in all)",
          (unsigned long long)patches, (unsigned long long)all);
    end(&f);
    int released, untouched, odd;
    count_pods(c, ns, "w", N, &released, &untouched, &odd);
    CHECK(released == N,
          "... read back: each pod without dagsched's gate, the other gate kept (strategic "
          "merge), released-at set, waiting-reason removed (%d of %d; %d untouched, %d otherwise)",
          released, N, untouched, odd);
}

static void check_window_of_one(kube_client *c, const char *ns, int api_port)
{
    enum { N = 6 };
    create_pods(c, ns, "o", N);
    fixture f;
    begin(&f, "window-of-one", api_port, 1, DELAY_S, 0, 0, true);
    double t0 = rt_mono_now();
    for (int i = 0; i < N; i++) {
        char name[32];
        pod_name(name, sizeof name, "o", i);
        submit(&f, ns, name, 1);
    }
    ctl_releaser_wait(&f.r);
    double took = rt_mono_now() - t0;
    fproxy_counts pc = fproxy_get(&f.px);
    CHECK(f.done_ok == N && f.payload_sum == N, "a window of 1: %d releases, rc 0 (ok %d%s%s)", N,
          f.done_ok, f.done_failed ? ", failed: " : "", f.last_err);
    CHECK(took >= N * (DELAY_S - 0.01),
          "... one after another: %.2f s, at least %d delayed answers (%.2f s)", took, N,
          N * DELAY_S);
    CHECK(ctl_releaser_max_in_flight(&f.r) == 1 && pc.connections == 1,
          "... one in flight at most, on one connection (%zu, %d connections)",
          ctl_releaser_max_in_flight(&f.r), pc.connections);
    end(&f);
    int released, untouched, odd;
    count_pods(c, ns, "o", N, &released, &untouched, &odd);
    CHECK(released == N, "... read back: %d of %d released", released, N);
}

static void check_failure(kube_client *c, const char *ns, int api_port)
{
    create_pods(c, ns, "f", 1);
    fixture f;
    begin(&f, "failure", api_port, 4, DELAY_S, 0, 0, true);
    submit(&f, ns, "missing", 5);
    submit(&f, ns, "f00", 7);
    ctl_releaser_wait(&f.r);
    CHECK(f.done_ok == 1 && f.done_failed == 1 && f.payload_sum == 12,
          "a release of a pod that does not exist fails, the other succeeds, both callbacks "
          "with their payload (ok %d, failed %d, payloads %d)",
          f.done_ok, f.done_failed, f.payload_sum);
    CHECK(strstr(f.last_err, "404") != NULL && strstr(f.last_err, "missing") != NULL,
          "... the failure says why: %s", f.last_err);
    end(&f);
    int released, untouched, odd;
    count_pods(c, ns, "f", 1, &released, &untouched, &odd);
    CHECK(released == 1, "... read back: the other pod released");
}

static void check_not_leading(kube_client *c, const char *ns, int api_port)
{
    enum { N = 5 };
    create_pods(c, ns, "n", N);
    fixture f;
    begin(&f, "not-leading", api_port, 4, DELAY_S, 0, 0, false);
    for (int i = 0; i < N; i++) {
        char name[32];
        pod_name(name, sizeof name, "n", i);
        submit(&f, ns, name, 1);
    }
    ctl_releaser_wait(&f.r);
    fproxy_counts pc = fproxy_get(&f.px);
    CHECK(f.done_skipped == N && f.payload_sum == N,
          "while the controller may not write: %d releases skipped, each callback with its "
          "payload (skipped %d, ok %d, failed %d)",
          N, f.done_skipped, f.done_ok, f.done_failed);
    CHECK(kube_client_requests(f.client, KUBE_METHOD_PATCH) == 0 && pc.connections == 0 &&
              pc.up_bytes == 0,
          "... nothing sent: no request, no connection, no byte (%d connections, %llu bytes)",
          pc.connections, (unsigned long long)pc.up_bytes);
    end(&f);
    int released, untouched, odd;
    count_pods(c, ns, "n", N, &released, &untouched, &odd);
    CHECK(untouched == N, "... read back: %d of %d pods untouched", untouched, N);
}

static void check_stop(kube_client *c, const char *ns, int api_port)
{
    enum { N = 20 };
    create_pods(c, ns, "s", N);
    fixture f;
    begin(&f, "stop", api_port, 1, DELAY_S, 0, 0, true);
    for (int i = 0; i < N; i++) {
        char name[32];
        pod_name(name, sizeof name, "s", i);
        submit(&f, ns, name, 1);
    }
    /* Stop once the first release is in flight (its answer takes 50 ms at least). */
    for (int i = 0; i < 5000 && ctl_releaser_max_in_flight(&f.r) == 0; i++)
        usleep(1000);
    ctl_releaser_stop(&f.r);
    uint64_t patches = kube_client_requests(f.client, KUBE_METHOD_PATCH);
    CHECK(f.done_ok + f.done_skipped == N && f.done_failed == 0 && f.done_ok >= 1 &&
              f.done_skipped >= N / 2,
          "stop with %d releases queued: the one in flight ends, the queued ones are skipped "
          "(ok %d, skipped %d, failed %d)",
          N, f.done_ok, f.done_skipped, f.done_failed);
    CHECK(f.payload_sum == N, "... every payload handed to the callback (sum %d)", f.payload_sum);
    CHECK(patches == (uint64_t)f.done_ok, "... only those not skipped sent (%llu PATCH)",
          (unsigned long long)patches);
    CHECK(ctl_releaser_submit(&f.r, ns, "s00", NULL, 0, NULL) == -1,
          "... a release submitted after stop is refused");
    int ok = f.done_ok;
    end(&f);
    int released, untouched, odd;
    count_pods(c, ns, "s", N, &released, &untouched, &odd);
    CHECK(released == ok && untouched == N - ok,
          "... read back: %d released, %d untouched (want %d and %d)", released, untouched, ok,
          N - ok);
}

static void check_rate(kube_client *c, const char *ns, int api_port)
{
    enum { N = 11 };
    create_pods(c, ns, "r", N);
    fixture f;
    /* No delay: what paces the releases is the client's rate limit. */
    begin(&f, "rate", api_port, 8, 0, 50, 1, true);
    double t0 = rt_mono_now();
    for (int i = 0; i < N; i++) {
        char name[32];
        pod_name(name, sizeof name, "r", i);
        submit(&f, ns, name, 1);
    }
    ctl_releaser_wait(&f.r);
    double took = rt_mono_now() - t0;
    CHECK(f.done_ok == N, "the client's rate limit (50/s, burst 1): %d releases, rc 0 (ok %d%s%s)",
          N, f.done_ok, f.done_failed ? ", failed: " : "", f.last_err);
    CHECK(took >= 0.18, "... paced: %.2f s, at least 10 intervals of 20 ms whatever the window",
          took);
    CHECK(kube_client_throttled(f.client) >= N - 2,
          "... the client counts the requests that waited (%llu, want >= %d)",
          (unsigned long long)kube_client_throttled(f.client), N - 2);
    end(&f);
}

int main(void)
{
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    printf("== releaser\n");
    kube_config *cfg = itest_config();
    int api_port = itest_server_port(cfg);
    kube_client_opts o = {.max_retries = 2, .backoff_initial_s = 0.05, .backoff_max_s = 0.2};
    kube_client *c = itest_client(cfg, &o);
    char ns[64];
    itest_namespace(c, ns, sizeof ns, "itest-rel");
    check_window(c, ns, api_port);
    check_window_of_one(c, ns, api_port);
    check_failure(c, ns, api_port);
    check_not_leading(c, ns, api_port);
    check_stop(c, ns, api_port);
    check_rate(c, ns, api_port);
    /* The pods left gated (not-leading, stop) must be gone before the program ends: the suite's
     * next scenario starts a controller that acts on every scheduler's pods, and it would remove
     * dagsched's gate from each of them (pods outside any DAG job), one PATCH each. */
    CHECK(itest_delete_namespace_wait(c, ns, 60),
          "namespace %s deleted and gone, with the gated pods left in it", ns);
    kube_client_free(c);
    kube_config_free(cfg);
    printf("== releaser: %s\n", itest_failures ? "FAILED" : "passed");
    return itest_failures ? 1 : 0;
}
