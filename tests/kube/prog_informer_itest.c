/* prog_informer_itest.c: the informer (kube/informer.h) against the real kube-apiserver
 * (KUBECONFIG), through a byte-forwarding fault proxy (fault_proxy.h) for the transport faults.
 * Prints one "ok"/"FAIL" line per check; exits 0 when all passed.
 *   - a cluster-wide Namespace informer: keyed by name, a label change is an update, a deletion
 *     arrives once the namespace is finalized;
 *   - a reloaded policy's GPU resource names: the cached pods are decoded again;
 *   - the watch connection cut, then the server gone for a while: the informer reconnects from
 *     its resourceVersion and catches up without a relist, nothing lost or repeated, and its
 *     status counts it;
 *   - a server that refuses connections: never synced, unhealthy, the error names the server;
 *     it syncs once the server is back;
 *   - kube_client_shutdown under a watching informer and a failing one: both stop (no byte sent
 *     afterwards, no failure counted, no "cancelled" spin), the cache is kept.
 * Paginated lists, selectors, events in order and the relist after 410 are prog_kube_itest's
 * list-watch and relist scenarios; an API server restart is its restart scenario. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault_proxy.h"
#include "informer.h"
#include "itest_util.h"
#include "log.h"

#define MAX_SEEN 256

typedef struct recorder {
    pthread_mutex_t lock;
    char seen[MAX_SEEN][160];
    int n;
} recorder;

static void rec(recorder *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rec(recorder *r, const char *fmt, ...)
{
    pthread_mutex_lock(&r->lock);
    if (r->n < MAX_SEEN) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->seen[r->n++], sizeof r->seen[0], fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&r->lock);
}

static void on_add(void *u, const kube_meta *m)
{
    rec(u, "add %s", m->name);
}

static void on_update(void *u, const kube_meta *o, const kube_meta *m)
{
    (void)o;
    rec(u, "update %s", m->name);
}

static void on_delete(void *u, const kube_meta *m)
{
    rec(u, "delete %s", m->name);
}

static void on_synced(void *u)
{
    rec(u, "synced");
}

/* Entries that start with prefix. */
static int count(recorder *r, const char *prefix)
{
    int n = 0;
    pthread_mutex_lock(&r->lock);
    for (int i = 0; i < r->n; i++)
        n += strncmp(r->seen[i], prefix, strlen(prefix)) == 0;
    pthread_mutex_unlock(&r->lock);
    return n;
}

static bool wait_count(recorder *r, const char *prefix, int n, double timeout)
{
    double end = rt_mono_now() + timeout;
    while (count(r, prefix) < n && rt_mono_now() < end)
        usleep(20000);
    return count(r, prefix) >= n;
}

static void recorder_init(recorder *r)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->lock, NULL);
}

static kube_informer *start(kube_client *c, kube_informer_opts *o)
{
    kube_informer *inf;
    ds_err err = {{0}};
    if (kube_informer_new(c, o, &inf, &err) != 0 || kube_informer_start(inf, &err) != 0)
        itest_die("informer", &err);
    return inf;
}

static void patch(kube_client *c, const char *path, const char *text)
{
    json_error_t jerr;
    json_t *p = json_loads(text, 0, &jerr);
    ds_err err = {{0}};
    if (p == NULL || kube_patch_merge(c, path, p, NULL, &err) != 0)
        itest_die(path, &err);
    json_decref(p);
}

/* ---- Namespaces */
static void check_namespace_informer(kube_client *c)
{
    char ns[64], path[256];
    itest_namespace(c, ns, sizeof ns, "itest-nsinf");
    recorder r;
    recorder_init(&r);
    kube_informer_opts o = {.kind = KUBE_KIND_NAMESPACE,
                            .cb = {on_add, on_update, on_delete, on_synced, &r}};
    kube_informer *inf = start(c, &o);
    CHECK(kube_informer_wait_synced(inf, 30), "the Namespace informer synced");
    char want[96];
    snprintf(want, sizeof want, "add %s", ns);
    CHECK(count(&r, want) == 1 && count(&r, "add default") == 1 &&
              count(&r, "add kube-system") == 1,
          "its list holds %s, default and kube-system", ns);
    snprintf(path, sizeof path, "/api/v1/namespaces/%s", ns);
    patch(c, path, "{\"metadata\":{\"labels\":{\"dagsched.io/preemption\":\"enabled\"}}}");
    snprintf(want, sizeof want, "update %s", ns);
    CHECK(wait_count(&r, want, 1, 30), "a label change arrives as an update");
    const kube_meta *m = kube_informer_get(inf, NULL, ns);
    const char *v = m != NULL ? kube_meta_label(m, "dagsched.io/preemption") : NULL;
    CHECK(v != NULL && strcmp(v, "enabled") == 0, "the cache, keyed by name alone, has the label");
    kube_obj_unref(m);
    itest_delete_namespace(c, ns);
    snprintf(want, sizeof want, "delete %s", ns);
    CHECK(wait_count(&r, want, 1, 90), "the deletion arrives once the namespace is finalized");
    CHECK(kube_informer_get(inf, NULL, ns) == NULL, "and it is gone from the cache");
    kube_informer_free(inf);
    pthread_mutex_destroy(&r.lock);
}

/* ---- GPU resource names */
static int64_t cached_gpus(kube_informer *inf, const char *ns)
{
    const kube_pod *p = (const kube_pod *)kube_informer_get(inf, ns, "t");
    if (p == NULL)
        return -1;
    int64_t g = p->requests.v[DS_RES_GPU];
    kube_obj_unref(&p->meta);
    return g;
}

static bool wait_gpus(kube_informer *inf, const char *ns, int64_t want)
{
    double end = rt_mono_now() + 30;
    while (cached_gpus(inf, ns) != want && rt_mono_now() < end)
        usleep(20000);
    return cached_gpus(inf, ns) == want;
}

static void check_gpu_names(kube_client *c, const char *ns)
{
    char path[256];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods", ns);
    itest_create(c, path,
                 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"t\"},\"spec\":"
                 "{\"schedulingGates\":[{\"name\":\"example.com/hold\"}],\"containers\":[{"
                 "\"name\":\"c\",\"image\":\"busybox\",\"resources\":{\"requests\":{"
                 "\"example.com/gpu\":\"2\"},\"limits\":{\"example.com/gpu\":\"2\"}}}]}}",
                 NULL);
    const char *nvidia[] = {"nvidia.com/gpu"}, *example[] = {"example.com/gpu"};
    kube_informer_opts o = {.kind = KUBE_KIND_POD, .namespace = ns, .decode = {nvidia, 1}};
    kube_informer *inf = start(c, &o);
    CHECK(kube_informer_wait_synced(inf, 30), "the pod informer synced");
    CHECK(cached_gpus(inf, ns) == 0, "example.com/gpu is not a GPU yet (got %lld)",
          (long long)cached_gpus(inf, ns));
    ds_err err = {{0}};
    CHECK(kube_informer_set_gpu_names(inf, nvidia, 1, &err) == 0, "the same names: nothing to do");
    CHECK(kube_informer_set_gpu_names(inf, example, 1, &err) == 1, "new names: decoded again");
    CHECK(kube_informer_set_gpu_names(inf, example, 1, &err) == 0, "asked again: already pending");
    CHECK(wait_gpus(inf, ns, 2), "the cached pod now requests 2 GPUs (got %lld)",
          (long long)cached_gpus(inf, ns));
    CHECK(kube_informer_set_gpu_names(inf, NULL, 0, &err) == 1 && wait_gpus(inf, ns, 0),
          "no names: decoded again, no GPU");
    kube_informer_free(inf);
}

/* ---- the watch cut, the server gone and back */
static void cm(kube_client *c, const char *ns, const char *name, const char *v)
{
    char path[256], text[300];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/configmaps", ns);
    snprintf(text, sizeof text,
             "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\","
             "\"labels\":{\"f\":\"1\"}},\"data\":{\"v\":\"%s\"}}",
             name, v);
    itest_create(c, path, text, NULL);
}

static void check_reconnects(kube_client *admin, const kube_config *pcfg, fproxy *px,
                             const char *ns)
{
    kube_client_opts co = {.max_retries = 0, .backoff_initial_s = 0.1, .backoff_max_s = 0.5};
    kube_client *c = itest_client(pcfg, &co);
    recorder r;
    recorder_init(&r);
    cm(admin, ns, "f0", "0");
    kube_informer_opts o = {.kind = KUBE_KIND_CONFIGMAP,
                            .namespace = ns,
                            .label_selector = "f=1",
                            .cb = {on_add, on_update, on_delete, on_synced, &r}};
    kube_informer *inf = start(c, &o);
    CHECK(kube_informer_wait_synced(inf, 30), "the informer synced through the proxy");
    kube_informer_status st;
    double end = rt_mono_now() + 10;
    do {
        usleep(20000);
        kube_informer_get_status(inf, &st);
    } while (!st.watching && rt_mono_now() < end);
    uint64_t starts0 = st.watch_starts;
    cm(admin, ns, "f1", "1");
    CHECK(wait_count(&r, "add f1", 1, 30), "a watch event arrives");

    /* The watch connection cut mid-stream: reconnect from the resourceVersion. */
    fproxy_cut_all(px);
    cm(admin, ns, "f2", "1");
    CHECK(wait_count(&r, "add f2", 1, 30), "after the cut, the next change arrives");
    kube_informer_get_status(inf, &st);
    CHECK(st.watch_starts > starts0 && st.failures >= 1,
          "the watch was opened again (starts %llu -> %llu, failures %llu)",
          (unsigned long long)starts0, (unsigned long long)st.watch_starts,
          (unsigned long long)st.failures);

    /* The server gone for 3 s while changes happen, then back. */
    fproxy_refuse(px, true);
    cm(admin, ns, "f3", "1");
    char path[256];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/configmaps/f1", ns);
    patch(admin, path, "{\"data\":{\"v\":\"2\"}}");
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/configmaps/f0", ns);
    ds_err err = {{0}};
    if (kube_delete(admin, path, false, &err) != 0)
        itest_die("delete f0", &err);
    usleep(3000 * 1000);
    CHECK(count(&r, "add f3") == 0, "nothing arrives while the server is gone");
    fproxy_refuse(px, false);
    CHECK(wait_count(&r, "add f3", 1, 30) && wait_count(&r, "update f1", 1, 30) &&
              wait_count(&r, "delete f0", 1, 30),
          "back: the three changes made meanwhile arrive");
    usleep(500 * 1000); /* let a duplicate show up */
    CHECK(count(&r, "add f") == 4 && count(&r, "update f1") == 1 && count(&r, "delete f0") == 1 &&
              count(&r, "synced") == 1,
          "each change once, no relist (%d adds, %d synced)", count(&r, "add f"),
          count(&r, "synced"));
    kube_informer_get_status(inf, &st);
    CHECK(st.lists == 1 && st.relists_gone == 0 && st.events == 5,
          "status: 1 list, no relist, 5 events (got %llu, %llu, %llu)",
          (unsigned long long)st.lists, (unsigned long long)st.relists_gone,
          (unsigned long long)st.events);
    CHECK(kube_informer_healthy(inf, 60), "healthy again");
    kube_obj_list l;
    kube_informer_list(inf, &l);
    CHECK(l.n == 3, "the cache holds f1, f2, f3 (got %zu)", l.n);
    kube_obj_list_free(&l);
    kube_informer_free(inf);
    kube_client_free(c);
    pthread_mutex_destroy(&r.lock);
}

/* ---- unreachable */
static void check_unreachable(const kube_config *pcfg, fproxy *px)
{
    kube_client_opts co = {.max_retries = 0, .backoff_initial_s = 0.05, .backoff_max_s = 0.1};
    kube_client *c = itest_client(pcfg, &co);
    fproxy_refuse(px, true);
    kube_informer_opts o = {.kind = KUBE_KIND_NODE};
    kube_informer *inf = start(c, &o);
    CHECK(!kube_informer_wait_synced(inf, 1), "a refused server: not synced");
    CHECK(!kube_informer_healthy(inf, 1e9), "and not healthy");
    kube_informer_status st;
    kube_informer_get_status(inf, &st);
    char want[160];
    snprintf(want, sizeof want, "GET /api/v1/nodes: Couldn't connect to server (%s)", pcfg->server);
    CHECK(st.failures >= 2 && strcmp(st.last_error, want) == 0,
          "it keeps trying (%llu failures), the error names the server (\"%s\")",
          (unsigned long long)st.failures, st.last_error);
    fproxy_refuse(px, false);
    CHECK(kube_informer_wait_synced(inf, 30), "it syncs once the server is reachable");
    kube_informer_free(inf);
    kube_client_free(c);
}

/* ---- shutdown */
static int count_lines(const char *log, const char *s)
{
    int n = 0;
    for (const char *p = strstr(log, s); p != NULL; p = strstr(p + 1, s))
        n++;
    return n;
}

static void check_shutdown(const kube_config *pcfg, fproxy *px, fproxy *dead, const char *ns)
{
    FILE *logf = itest_log_begin();
    kube_client_opts co = {.max_retries = 0, .backoff_initial_s = 0.05, .backoff_max_s = 0.1};
    kube_client *c = itest_client(pcfg, &co);
    kube_config *dcfg = itest_config();
    itest_set_port(dcfg, dead->port);
    kube_client *cd = itest_client(dcfg, &co);
    fproxy_refuse(dead, true);
    kube_informer_opts o = {.kind = KUBE_KIND_POD, .namespace = ns};
    kube_informer *watching = start(c, &o);
    kube_informer_opts od = {.kind = KUBE_KIND_NODE};
    kube_informer *failing = start(cd, &od);
    CHECK(kube_informer_wait_synced(watching, 30), "a pod informer synced");
    kube_informer_status st;
    double end = rt_mono_now() + 10;
    do {
        usleep(20000);
        kube_informer_get_status(watching, &st);
    } while (!st.watching && rt_mono_now() < end);
    CHECK(st.watching, "and watching");
    usleep(300 * 1000);
    kube_informer_get_status(failing, &st);
    CHECK(st.failures >= 1, "a node informer of an unreachable server failing (%llu)",
          (unsigned long long)st.failures);

    kube_client_shutdown(c);
    kube_client_shutdown(cd);
    usleep(200 * 1000);
    kube_informer_status w0, f0, w1, f1;
    kube_informer_get_status(watching, &w0);
    kube_informer_get_status(failing, &f0);
    fproxy_counts b = fproxy_get(px);
    usleep(1000 * 1000);
    kube_informer_get_status(watching, &w1);
    kube_informer_get_status(failing, &f1);
    fproxy_counts a = fproxy_get(px);
    CHECK(!w1.watching && w1.watch_starts == w0.watch_starts && w1.failures == 0,
          "after kube_client_shutdown the watching informer stops: no new watch, no failure "
          "counted (starts %llu, failures %llu)",
          (unsigned long long)w1.watch_starts, (unsigned long long)w1.failures);
    CHECK(f1.failures == f0.failures, "the failing one stops trying (%llu -> %llu)",
          (unsigned long long)f0.failures, (unsigned long long)f1.failures);
    CHECK(a.up_bytes == b.up_bytes && a.connections == b.connections,
          "nothing more reaches the server (%llu bytes, %d connections in 1 s)",
          (unsigned long long)(a.up_bytes - b.up_bytes), a.connections - b.connections);
    const kube_meta *t = kube_informer_get(watching, ns, "t");
    CHECK(kube_informer_synced(watching) && t != NULL, "the cache keeps what it had");
    kube_obj_unref(t);
    double t0 = rt_mono_now();
    CHECK(!kube_informer_wait_synced(failing, 5) && rt_mono_now() - t0 < 1.0,
          "waiting for a sync that cannot come returns at once");
    kube_informer_free(watching);
    kube_informer_free(failing);
    kube_client_free(c);
    kube_client_free(cd);
    kube_config_free(dcfg);
    static char logged[1 << 16];
    itest_log_end(logf, logged, sizeof logged);
    char want[160];
    snprintf(want, sizeof want, "pods in %s: the API client is shut down; the watch stops\n", ns);
    CHECK(count_lines(logged, "cancelled") == 0 && count_lines(logged, want) == 1 &&
              count_lines(logged, "nodes: the API client is shut down; the watch stops\n") == 1,
          "each says once that it stops, no \"cancelled\" in the log");
}

int main(void)
{
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    printf("== informer\n");
    kube_config *cfg, *pcfg;
    fproxy px, dead;
    itest_proxied(&px, &cfg, &pcfg);
    if (fproxy_start(&dead, itest_server_port(cfg)) != 0) {
        printf("FAIL  the second fault proxy did not start\n");
        return 1;
    }
    kube_client_opts o = {.max_retries = 3, .backoff_initial_s = 0.05, .backoff_max_s = 0.2};
    kube_client *admin = itest_client(cfg, &o);
    char ns[64];
    itest_namespace(admin, ns, sizeof ns, "itest-inf");

    check_namespace_informer(admin);
    check_gpu_names(admin, ns);
    check_reconnects(admin, pcfg, &px, ns);
    check_unreachable(pcfg, &px);
    check_shutdown(pcfg, &px, &dead, ns);

    itest_delete_namespace(admin, ns);
    kube_client_free(admin);
    fproxy_stop(&px);
    fproxy_stop(&dead);
    kube_config_free(pcfg);
    kube_config_free(cfg);
    printf("== informer: %s\n", itest_failures ? "FAILED" : "passed");
    return itest_failures ? 1 : 0;
}
