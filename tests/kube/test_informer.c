/* test_informer.c: the list+watch loop against a scripted loopback server: paginated list,
 * events applied in order with callbacks, bookmarks, 410 Gone -> relist and diff, reconnect after
 * a failure, request paths with selectors, status counters, decoding again with new GPU resource
 * names, and stopping (not spinning) when the client is shut down under running informers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "informer.h"
#include "clock.h"
#include "kube_test_util.h"
#include "kutil.h"
#include "log.h"
#include "mock_server.h"

#define MAX_SEEN 64

typedef struct recorder {
    pthread_mutex_t lock;
    char seen[MAX_SEEN][64];
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
    rec(u, "add %s %s", m->name, m->resource_version);
}

static void on_update(void *u, const kube_meta *o, const kube_meta *m)
{
    rec(u, "update %s %s->%s", m->name, o->resource_version, m->resource_version);
}

static void on_delete(void *u, const kube_meta *m)
{
    rec(u, "delete %s %s", m->name, m->resource_version);
}

static void on_synced(void *u)
{
    rec(u, "synced");
}

static int seen_count(recorder *r)
{
    pthread_mutex_lock(&r->lock);
    int n = r->n;
    pthread_mutex_unlock(&r->lock);
    return n;
}

/* Index of the first entry equal to s at or after from, or -1. */
static int find(recorder *r, int from, const char *s)
{
    for (int i = from; i < r->n; i++)
        if (strcmp(r->seen[i], s) == 0)
            return i;
    return -1;
}

#define POD(name, rv)                                                                              \
    "{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"batch\",\"resourceVersion\":\"" rv       \
    "\",\"labels\":{\"app\":\"x\"}},\"spec\":{\"nodeName\":\"n1\"}}"
#define EVENT(type, obj) "{\"type\":\"" type "\",\"object\":" obj "}\n"

static void test_list_watch_gone_relist(void **state)
{
    (void)state;
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    mock_server m;
    assert_int_equal(mock_start(&m), 0);
    mock_reply r[] = {
        {.status = 200,
         .body = "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"10\",\"continue\":"
                 "\"tok/1\"},\"items\":[" POD("a", "5") "," POD("b", "6") "]}"},
        {.status = 200,
         .body = "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[" POD(
             "c", "7") "]}"},
        {.status = 200,
         .chunks = {EVENT("MODIFIED", POD("a", "11")) EVENT("ADDED", POD("d", "12")),
                    "{\"type\":\"DELETED\",\"obj", "ect\":" POD("b", "13") "}\n",
                    EVENT("BOOKMARK", "{\"kind\":\"Pod\",\"metadata\":{\"resourceVersion\":"
                                      "\"20\"}}")}},
        {.status = 200,
         .chunks =
             {"{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,"
              "\"reason\":\"Expired\",\"message\":\"too old resource version: 20 (25)\"}}\n"}},
        {.status = 200,
         .body = "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"30\"},\"items\":[" POD(
             "a", "11") "," POD("c", "25") "]}"},
        {.status = 503, .body = "{\"kind\":\"Status\",\"code\":503,\"message\":\"down\"}"},
        {.status = 200, .chunks = {EVENT("ADDED", POD("e", "31"))}},
    };
    mock_script(&m, r, 7);

    char server[64];
    snprintf(server, sizeof server, "http://127.0.0.1:%d", m.port);
    kube_config cfg = {.server = server, .namespace = "default", .source = "test"};
    kube_client_opts co = {.max_retries = 0, .backoff_initial_s = 0.01, .backoff_max_s = 0.05};
    kube_client *c;
    ds_err err = {{0}};
    assert_int_equal(kube_client_new(&cfg, &co, &c, &err), 0);
    recorder rr = {.n = 0};
    pthread_mutex_init(&rr.lock, NULL);
    kube_informer_opts io = {.kind = KUBE_KIND_POD,
                             .namespace = "batch",
                             .label_selector = "app=x",
                             .page_size = 2,
                             .cb = {on_add, on_update, on_delete, on_synced, &rr}};
    kube_informer *inf;
    assert_int_equal(kube_informer_new(c, &io, &inf, &err), 0);
    assert_false(kube_informer_synced(inf));
    assert_false(kube_informer_healthy(inf, 60));
    assert_int_equal(kube_informer_start(inf, &err), 0);
    assert_true(kube_informer_wait_synced(inf, 10));

    /* 3 adds + synced, 3 watch events, relist (update c, delete d, synced), add e. */
    double deadline = rt_mono_now() + 15;
    while (seen_count(&rr) < 11 && rt_mono_now() < deadline)
        usleep(10000);
    kube_informer_status st;
    kube_informer_get_status(inf, &st);
    kube_informer_stop(inf);

    pthread_mutex_lock(&rr.lock);
    assert_int_equal(rr.n, 11);
    /* First list: three adds in some order, then synced. */
    int s1 = find(&rr, 0, "synced");
    assert_int_equal(s1, 3);
    assert_true(find(&rr, 0, "add a 5") < 3 && find(&rr, 0, "add a 5") >= 0);
    assert_true(find(&rr, 0, "add b 6") >= 0 && find(&rr, 0, "add b 6") < 3);
    assert_true(find(&rr, 0, "add c 7") >= 0 && find(&rr, 0, "add c 7") < 3);
    /* Watch events in stream order. */
    assert_string_equal(rr.seen[4], "update a 5->11");
    assert_string_equal(rr.seen[5], "add d 12");
    assert_string_equal(rr.seen[6], "delete b 13");
    /* Relist after 410: a unchanged (no callback), c changed, d gone. */
    assert_string_equal(rr.seen[7], "update c 7->25");
    assert_string_equal(rr.seen[8], "delete d 12");
    assert_string_equal(rr.seen[9], "synced");
    /* After the 503 the watch reconnects from the relist's resourceVersion. */
    assert_string_equal(rr.seen[10], "add e 31");
    assert_int_equal(find(&rr, 0, "update a 11->11"), -1);
    pthread_mutex_unlock(&rr.lock);

    assert_true(st.synced);
    assert_int_equal(st.lists, 2);
    assert_int_equal(st.relists_gone, 1);
    assert_true(st.failures >= 1);
    assert_int_equal(st.events, 4);
    assert_string_equal(st.resource_version, "31");

    pthread_mutex_lock(&m.lock);
    assert_string_equal(m.requests[0].path, "/api/v1/namespaces/batch/pods?limit=2&"
                                            "labelSelector=app%3Dx");
    assert_string_equal(m.requests[1].path, "/api/v1/namespaces/batch/pods?limit=2&"
                                            "labelSelector=app%3Dx&continue=tok%2F1");
    assert_non_null(strstr(m.requests[2].path, "/api/v1/namespaces/batch/pods?watch=1&"
                                               "allowWatchBookmarks=true&timeoutSeconds="));
    assert_non_null(strstr(m.requests[2].path, "&resourceVersion=10&labelSelector=app%3Dx"));
    assert_non_null(strstr(m.requests[3].path, "&resourceVersion=20&"));
    assert_null(strstr(m.requests[4].path, "watch=1"));
    assert_non_null(strstr(m.requests[5].path, "&resourceVersion=30&"));
    assert_non_null(strstr(m.requests[6].path, "&resourceVersion=30&"));
    pthread_mutex_unlock(&m.lock);

    /* The cache matches the server's state. */
    kube_obj_list l;
    assert_int_equal(kube_informer_list(inf, &l), 0);
    assert_int_equal(l.n, 3);
    kube_obj_list_free(&l);
    const kube_meta *c25 = kube_informer_get(inf, "batch", "c");
    assert_non_null(c25);
    assert_string_equal(c25->resource_version, "25");
    kube_obj_unref(c25);
    assert_null(kube_informer_get(inf, "batch", "b"));
    assert_int_equal(kube_informer_by_index(inf, KUBE_INDEX_POD_NODE, "n1", &l), 0);
    assert_int_equal(l.n, 3);
    kube_obj_list_free(&l);

    kube_informer_free(inf);
    kube_client_free(c);
    mock_stop(&m);
    pthread_mutex_destroy(&rr.lock);
}

static void test_unreachable_is_unhealthy(void **state)
{
    (void)state;
    mock_server dead;
    assert_int_equal(mock_start(&dead), 0);
    mock_stop(&dead);
    char server[64];
    snprintf(server, sizeof server, "http://127.0.0.1:%d", dead.port);
    kube_config cfg = {.server = server, .namespace = "default", .source = "test"};
    kube_client_opts co = {.max_retries = 0, .backoff_initial_s = 0.01, .backoff_max_s = 0.02};
    kube_client *c;
    ds_err err = {{0}};
    assert_int_equal(kube_client_new(&cfg, &co, &c, &err), 0);
    kube_informer_opts io = {.kind = KUBE_KIND_NODE};
    kube_informer *inf;
    assert_int_equal(kube_informer_new(c, &io, &inf, &err), 0);
    assert_int_equal(kube_informer_start(inf, &err), 0);
    assert_false(kube_informer_wait_synced(inf, 0.5));
    assert_false(kube_informer_healthy(inf, 1e9));
    kube_informer_status st;
    kube_informer_get_status(inf, &st);
    assert_true(st.failures >= 2);
    char want[128];
    snprintf(want, sizeof want, "GET /api/v1/nodes: Couldn't connect to server (%s)", server);
    assert_string_equal(st.last_error, want);
    kube_informer_free(inf);
    kube_client_free(c);

    /* Bad options are refused. */
    io.namespace = "x";
    assert_int_equal(kube_informer_new(c, &io, &inf, &err), -1);
    assert_string_equal(err.msg, "informer: node is not namespaced");
    io.kind = KUBE_KIND_POD;
    io.namespace = "Bad_NS";
    assert_int_equal(kube_informer_new(c, &io, &inf, &err), -1);
    assert_string_equal(err.msg, "informer: invalid namespace \"Bad_NS\"");
}

/* Lines of `log` containing `s`. */
static int count_lines(const char *log, const char *s)
{
    int n = 0;
    for (const char *p = strstr(log, s); p != NULL; p = strstr(p + 1, s))
        n++;
    return n;
}

static kube_client *client_at(int port, double backoff)
{
    char server[64];
    snprintf(server, sizeof server, "http://127.0.0.1:%d", port);
    kube_config cfg = {.server = server, .namespace = "default", .source = "test"};
    kube_client_opts co = {
        .max_retries = 0, .backoff_initial_s = backoff, .backoff_max_s = backoff * 2};
    kube_client *c = NULL;
    ds_err err = {{0}};
    if (kube_client_new(&cfg, &co, &c, &err) != 0)
        fail_msg("%s", err.msg);
    return c;
}

#define NS(name, rv, labels)                                                                       \
    "{\"metadata\":{\"name\":\"" name "\",\"resourceVersion\":\"" rv "\",\"labels\":{" labels      \
    "}},\"spec\":{\"finalizers\":[\"kubernetes\"]},\"status\":{\"phase\":\"Active\"}}"

/* A cluster-wide Namespace informer: the collection is /api/v1/namespaces, objects are keyed by
 * name alone and a label change arrives as an update. */
static void test_namespace_informer(void **state)
{
    (void)state;
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    mock_server m;
    assert_int_equal(mock_start(&m), 0);
    mock_reply r[] = {
        {.status = 200,
         .body = "{\"kind\":\"NamespaceList\",\"metadata\":{\"resourceVersion\":\"10\"},"
                 "\"items\":[" NS("ml", "5", "\"team\":\"ml\"") "," NS("web", "6", "") "]}"},
        {.status = 200,
         .chunks = {EVENT("MODIFIED", NS("web", "11", "\"dagsched.io/preemption\":\"enabled\""))
                        EVENT("DELETED", NS("ml", "12", "\"team\":\"ml\""))}},
    };
    mock_script(&m, r, 2);
    kube_client *c = client_at(m.port, 0.01);
    recorder rr = {.n = 0};
    pthread_mutex_init(&rr.lock, NULL);
    kube_informer_opts io = {.kind = KUBE_KIND_NAMESPACE,
                             .cb = {on_add, on_update, on_delete, on_synced, &rr}};
    kube_informer *inf;
    ds_err err = {{0}};
    assert_int_equal(kube_informer_new(c, &io, &inf, &err), 0);
    assert_int_equal(kube_informer_start(inf, &err), 0);
    assert_true(kube_informer_wait_synced(inf, 10));
    double deadline = rt_mono_now() + 10;
    while (seen_count(&rr) < 5 && rt_mono_now() < deadline)
        usleep(10000);
    kube_informer_stop(inf);

    pthread_mutex_lock(&rr.lock);
    assert_int_equal(rr.n, 5);
    assert_string_equal(rr.seen[2], "synced");
    assert_string_equal(rr.seen[3], "update web 6->11");
    assert_string_equal(rr.seen[4], "delete ml 12");
    pthread_mutex_unlock(&rr.lock);
    pthread_mutex_lock(&m.lock);
    assert_string_equal(m.requests[0].path, "/api/v1/namespaces?limit=500");
    assert_non_null(strstr(m.requests[1].path, "/api/v1/namespaces?watch=1&"));
    assert_non_null(strstr(m.requests[1].path, "&resourceVersion=10"));
    pthread_mutex_unlock(&m.lock);

    const kube_meta *web = kube_informer_get(inf, NULL, "web");
    assert_non_null(web);
    assert_string_equal(kube_meta_label(web, "dagsched.io/preemption"), "enabled");
    kube_obj_unref(web);
    assert_null(kube_informer_get(inf, NULL, "ml"));
    kube_informer_free(inf);
    kube_client_free(c);
    mock_stop(&m);
    pthread_mutex_destroy(&rr.lock);

    /* Namespaces are not namespaced. */
    io.namespace = "x";
    kube_client *c2 = client_at(m.port, 0.01);
    assert_int_equal(kube_informer_new(c2, &io, &inf, &err), -1);
    assert_string_equal(err.msg, "informer: namespace is not namespaced");
    kube_client_free(c2);
}

/* Lists answer one pod asking for an example.com/gpu; watches send a bookmark and end. */
static void gpu_server(void *ud, const mock_request *req, mock_reply *rep, char *body_buf,
                       size_t body_size)
{
    (void)ud;
    (void)body_size;
    memset(rep, 0, sizeof *rep);
    rep->status = 200;
    if (strstr(req->path, "watch=1") != NULL) {
        rep->chunks[0] =
            EVENT("BOOKMARK", "{\"kind\":\"Pod\",\"metadata\":{\"resourceVersion\":\"10\"}}");
        return;
    }
    rep->body = body_buf;
    snprintf(body_buf, body_size, "%s",
             "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[{"
             "\"metadata\":{\"name\":\"t\",\"namespace\":\"batch\",\"resourceVersion\":\"5\"},"
             "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{"
             "\"example.com/gpu\":\"2\"}}}]}}]}");
}

static int64_t cached_gpus(kube_informer *inf)
{
    const kube_pod *p = (const kube_pod *)kube_informer_get(inf, "batch", "t");
    if (p == NULL)
        return -1;
    int64_t g = p->requests.v[DS_RES_GPU];
    kube_obj_unref(&p->meta);
    return g;
}

/* A reloaded policy's gpuResourceNames: the informer lists again and every cached object is
 * decoded with the new names. */
static void test_set_gpu_names_redecodes(void **state)
{
    (void)state;
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    mock_server m;
    assert_int_equal(mock_start(&m), 0);
    pthread_mutex_lock(&m.lock);
    m.handler = gpu_server;
    pthread_mutex_unlock(&m.lock);
    kube_client *c = client_at(m.port, 0.01);
    const char *nvidia[] = {"nvidia.com/gpu"}, *example[] = {"example.com/gpu"};
    kube_informer_opts io = {.kind = KUBE_KIND_POD, .decode = {nvidia, 1}};
    kube_informer *inf;
    ds_err err = {{0}};
    assert_int_equal(kube_informer_new(c, &io, &inf, &err), 0);
    assert_int_equal(kube_informer_start(inf, &err), 0);
    assert_true(kube_informer_wait_synced(inf, 10));
    assert_int_equal(cached_gpus(inf), 0); /* example.com/gpu is not a GPU yet */
    assert_int_equal(kube_informer_set_gpu_names(inf, nvidia, 1, &err), 0);
    assert_int_equal(kube_informer_set_gpu_names(inf, example, 1, &err), 1);
    assert_int_equal(kube_informer_set_gpu_names(inf, example, 1, &err), 0); /* pending already */
    double deadline = rt_mono_now() + 10;
    while (cached_gpus(inf) != 2 && rt_mono_now() < deadline)
        usleep(10000);
    assert_int_equal(cached_gpus(inf), 2);
    assert_int_equal(kube_informer_set_gpu_names(inf, example, 1, &err), 0);
    /* Back to none: decoded again, no GPU. */
    assert_int_equal(kube_informer_set_gpu_names(inf, NULL, 0, &err), 1);
    deadline = rt_mono_now() + 10;
    while (cached_gpus(inf) != 0 && rt_mono_now() < deadline)
        usleep(10000);
    assert_int_equal(cached_gpus(inf), 0);
    kube_informer_stop(inf);
    kube_informer_free(inf);
    kube_client_free(c);
    mock_stop(&m);
}

/* kube_client_shutdown while informers run (one watching, one failing to reach its server):
 * every request of a shut-down client fails at once, so an informer that retried would spin,
 * logging "watch failed: cancelled" and "reconnecting" without pause. They must stop instead. */
static void test_client_shutdown_stops_informers(void **state)
{
    (void)state;
    FILE *logf = tmpfile();
    assert_non_null(logf);
    kube_log_setup(KUBE_LOG_INFO, KUBE_LOG_TEXT, logf);
    mock_server m;
    assert_int_equal(mock_start(&m), 0);
    /* A list, then watches that stay open for a while (16 bookmarks 10 ms apart each). */
    mock_reply r[8] = {
        {.status = 200,
         .body = "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[" POD(
             "a", "5") "]}"}};
    for (int i = 1; i < 8; i++) {
        r[i].status = 200;
        for (int k = 0; k < 16; k++)
            r[i].chunks[k] =
                EVENT("BOOKMARK", "{\"kind\":\"Pod\",\"metadata\":{\"resourceVersion\":\"11\"}}");
    }
    mock_script(&m, r, 8);
    mock_server dead;
    assert_int_equal(mock_start(&dead), 0);
    mock_stop(&dead);

    kube_client *c = client_at(m.port, 0.01);
    kube_client *cd = client_at(dead.port, 0.01);
    ds_err err = {{0}};
    kube_informer_opts io = {.kind = KUBE_KIND_POD, .namespace = "batch"};
    kube_informer *watching, *failing;
    assert_int_equal(kube_informer_new(c, &io, &watching, &err), 0);
    assert_int_equal(kube_informer_start(watching, &err), 0);
    io.kind = KUBE_KIND_NODE;
    io.namespace = NULL;
    assert_int_equal(kube_informer_new(cd, &io, &failing, &err), 0);
    assert_int_equal(kube_informer_start(failing, &err), 0);
    assert_true(kube_informer_wait_synced(watching, 10));
    kube_informer_status st;
    double end = rt_mono_now() + 5;
    do {
        usleep(5000);
        kube_informer_get_status(watching, &st);
    } while (!st.watching && rt_mono_now() < end);
    assert_true(st.watching);
    kube_informer_get_status(failing, &st);
    assert_true(st.failures >= 1);

    kube_client_shutdown(c);
    kube_client_shutdown(cd);
    usleep(100 * 1000);
    kube_informer_status w0, f0, w1, f1;
    kube_informer_get_status(watching, &w0);
    kube_informer_get_status(failing, &f0);
    pthread_mutex_lock(&m.lock);
    int requests0 = m.n_requests;
    pthread_mutex_unlock(&m.lock);
    usleep(500 * 1000);
    kube_informer_get_status(watching, &w1);
    kube_informer_get_status(failing, &f1);
    /* Nothing more was tried, and the abort is not counted as a failure. */
    assert_false(w1.watching);
    assert_int_equal(w1.watch_starts, w0.watch_starts);
    assert_int_equal(w1.failures, 0);
    assert_int_equal(f1.failures, f0.failures);
    pthread_mutex_lock(&m.lock);
    assert_int_equal(m.n_requests, requests0);
    pthread_mutex_unlock(&m.lock);
    /* The cache keeps what it had; waiting for a sync that cannot come returns at once. */
    assert_true(kube_informer_synced(watching));
    const kube_meta *a = kube_informer_get(watching, "batch", "a");
    assert_non_null(a);
    kube_obj_unref(a);
    double t0 = rt_mono_now();
    assert_false(kube_informer_wait_synced(failing, 5));
    assert_true(rt_mono_now() - t0 < 1.0);
    kube_informer_free(watching);
    kube_informer_free(failing);
    kube_client_free(c);
    kube_client_free(cd);
    mock_stop(&m);

    static char logged[1 << 16];
    ktest_read_log(logf, logged, sizeof logged);
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    fclose(logf);
    assert_int_equal(count_lines(logged, "cancelled"), 0);
    assert_int_equal(count_lines(logged, "pods in batch: the API client is shut down; the watch "
                                         "stops\n"),
                     1);
    assert_int_equal(count_lines(logged, "nodes: the API client is shut down; the watch stops\n"),
                     1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_watch_gone_relist),
        cmocka_unit_test(test_unreachable_is_unhealthy),
        cmocka_unit_test(test_namespace_informer),
        cmocka_unit_test(test_set_gpu_names_redecodes),
        cmocka_unit_test(test_client_shutdown_stops_informers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
