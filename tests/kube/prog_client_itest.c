/* prog_client_itest.c: the request layer (kube/client.h) against the real kube-apiserver
 * (KUBECONFIG), through a byte-forwarding fault proxy (fault_proxy.h) where a transport fault is
 * needed. Prints one "ok"/"FAIL" line per check; exits 0 when all passed.
 *   - 4xx answers are not retried and carry the server's Status: 404 NotFound, 409 AlreadyExists,
 *     401 for a bad token;
 *   - one connection serves consecutive requests;
 *   - a connection dropped before the answer, or cut in the middle of a body, is retried and the
 *     retry gets the whole body; a server that refuses connections is given up after
 *     1 + max_retries attempts, with the address in the message;
 *   - a body over max_body_bytes fails at once; a slow server hits the request timeout;
 *   - kube_client_shutdown aborts a request in flight;
 *   - a bearer token file replaced by a rename (projected service account tokens) is read again:
 *     the server sees the new identity;
 *   - streams: watch events in order, the opening call (len 0), a watch that ends without an
 *     event, a watch from an expired resourceVersion (410 Expired). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytebuf.h"
#include "fault_proxy.h"
#include "itest_util.h"
#include "log.h"

static kube_client_opts retrying = {
    .max_retries = 3, .backoff_initial_s = 0.05, .backoff_max_s = 0.2};

/* ---- Status answers: not retried, the message is the server's */
static void check_status_answers(kube_client *c, fproxy *px, const char *ns)
{
    char path[256];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/x?x=1", ns);
    kube_response resp;
    ds_err err = {{0}};
    fproxy_counts before = fproxy_get(px);
    int rc = kube_request(c, "GET", path, NULL, NULL, &resp, &err);
    char want[256];
    snprintf(want, sizeof want,
             "GET /api/v1/namespaces/%s/pods/x: 404 NotFound: pods \"x\" not found", ns);
    CHECK(rc == -1 && resp.status == 404 && resp.attempts == 1,
          "a 404 is an answer, not retried (status %ld, attempts %d)", resp.status, resp.attempts);
    CHECK(strcmp(err.msg, want) == 0, "its message is the server's Status (got \"%s\")", err.msg);
    CHECK(resp.st.valid && strcmp(resp.st.reason, "NotFound") == 0 && resp.st.code == 404,
          "its Status is parsed: reason %s, code %d", resp.st.reason, (int)resp.st.code);
    kube_response_free(&resp);

    /* Two more requests on the same client: still the one connection. */
    json_t *obj = NULL;
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/configmaps", ns);
    json_t *cm = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
                           "metadata", "name", "dup");
    rc = kube_create(c, path, cm, &obj, &err);
    CHECK(rc == 0, "ConfigMap dup created (%s)", rc == 0 ? "201" : err.msg);
    json_decref(obj);
    err.msg[0] = '\0';
    rc = kube_request(c, "POST", path,
                      "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
                      "{\"name\":\"dup\"}}",
                      NULL, &resp, &err);
    snprintf(want, sizeof want,
             "POST /api/v1/namespaces/%s/configmaps: 409 AlreadyExists: configmaps \"dup\" "
             "already exists",
             ns);
    CHECK(rc == -1 && resp.status == 409 && resp.attempts == 1 && strcmp(err.msg, want) == 0,
          "creating it again: 409 AlreadyExists, not retried (attempts %d: %s)", resp.attempts,
          err.msg);
    kube_response_free(&resp);
    json_decref(cm);
    fproxy_counts after = fproxy_get(px);
    CHECK(after.connections - before.connections == 1,
          "three requests of one client used one connection (got %d)",
          after.connections - before.connections);
}

/* ---- transport faults, through the proxy */
static void check_transport_faults(const kube_config *pcfg, fproxy *px, const char *ns)
{
    kube_client *c = itest_client(pcfg, &retrying);
    kube_response resp;
    ds_err err = {{0}};

    /* A connection closed by the other side at the client's first byte: retried. */
    fproxy_counts b = fproxy_get(px);
    fproxy_set(px, 1, 0, 0, 0);
    int rc = kube_request(c, "GET", "/version", NULL, NULL, &resp, &err);
    fproxy_counts a = fproxy_get(px);
    CHECK(rc == 0 && resp.status == 200 && resp.attempts == 2 && a.connections - b.connections == 2,
          "a dropped connection is retried on a new one (rc %d, status %ld, attempts %d, "
          "connections %d: %s)",
          rc, resp.status, resp.attempts, a.connections - b.connections, rc ? err.msg : "");
    kube_response_free(&resp);
    kube_client_free(c);

    /* A body cut in the middle: measure one answer's bytes on a fresh connection, then cut the
     * next connection half-way through that many. */
    char big[256 * 1024 + 1];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    char path[256];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/configmaps", ns);
    json_t *cm = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
                           "metadata", "name", "big", "data", "v", big);
    kube_client *admin = itest_client(pcfg, &retrying);
    if (kube_create(admin, path, cm, NULL, &err) != 0)
        itest_die("create big ConfigMap", &err);
    json_decref(cm);
    kube_client_free(admin);
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/configmaps/big", ns);
    c = itest_client(pcfg, &retrying);
    b = fproxy_get(px);
    rc = kube_request(c, "GET", path, NULL, NULL, &resp, &err);
    a = fproxy_get(px);
    long whole = (long)(a.down_bytes - b.down_bytes);
    char *first = rc == 0 ? kutil_strdup(resp.body) : NULL;
    CHECK(rc == 0 && whole > (long)sizeof big, "the big ConfigMap read: %ld bytes on the wire",
          whole);
    kube_response_free(&resp);
    kube_client_free(c);
    c = itest_client(pcfg, &retrying);
    fproxy_set(px, 0, 1, whole / 2, 0);
    b = fproxy_get(px);
    rc = kube_request(c, "GET", path, NULL, NULL, &resp, &err);
    a = fproxy_get(px);
    CHECK(rc == 0 && resp.attempts == 2 && a.connections - b.connections == 2,
          "a connection cut after %ld bytes, mid-body, is retried (rc %d, attempts %d, "
          "connections %d: %s)",
          whole / 2, rc, resp.attempts, a.connections - b.connections, rc ? err.msg : "");
    CHECK(rc == 0 && first != NULL && strcmp(resp.body, first) == 0,
          "the retry returns the whole body (%zu bytes), nothing of the cut one", resp.body_len);
    kube_response_free(&resp);
    free(first);
    kube_client_free(c);

    /* Over the body limit: fails at once, not retried. */
    kube_client_opts small = retrying;
    small.max_body_bytes = 1000;
    c = itest_client(pcfg, &small);
    rc = kube_request(c, "GET", path, NULL, NULL, &resp, &err);
    char want[300];
    snprintf(want, sizeof want,
             "GET /api/v1/namespaces/%s/configmaps/big: response body larger than 1000 bytes", ns);
    CHECK(rc == -1 && resp.attempts == 1 && strcmp(err.msg, want) == 0,
          "a body over max_body_bytes fails, not retried (attempts %d: %s)", resp.attempts,
          err.msg);
    kube_response_free(&resp);
    kube_client_free(c);

    /* A slow server: every piece it sends waits 1.5 s; the request's 1 s timeout ends it. */
    c = itest_client(pcfg, &retrying);
    fproxy_set(px, 0, 0, 0, 1.5);
    kube_request_opts ro = {.no_retry = true, .timeout_s = 1};
    double t0 = rt_mono_now();
    rc = kube_request_ex(c, &ro, "GET", "/version", NULL, NULL, &resp, &err);
    double took = rt_mono_now() - t0;
    fproxy_set(px, 0, 0, 0, 0);
    CHECK(rc == -1 && resp.status == 0 && took < 5 && strstr(err.msg, "Timeout") != NULL,
          "a slow server hits the request timeout after %.1f s (%s)", took, err.msg);
    kube_response_free(&resp);
    rc = kube_request(c, "GET", "/version", NULL, NULL, &resp, &err);
    CHECK(rc == 0, "at full speed again the same client is answered (%s)", rc ? err.msg : "200");
    kube_response_free(&resp);
    kube_client_free(c);

    /* Refused connections: given up after 1 + max_retries attempts. */
    c = itest_client(pcfg, &retrying);
    CHECK(fproxy_refuse(px, true) == 0, "the proxy stops listening");
    rc = kube_request(c, "GET", "/version", NULL, NULL, &resp, &err);
    snprintf(want, sizeof want, "GET /version: Couldn't connect to server (%s)", pcfg->server);
    CHECK(rc == -1 && resp.status == 0 && resp.attempts == 4,
          "a refused connection is retried, then given up (attempts %d)", resp.attempts);
    CHECK(strcmp(err.msg, want) == 0, "the message names the server (got \"%s\")", err.msg);
    kube_response_free(&resp);
    CHECK(fproxy_refuse(px, false) == 0, "the proxy listens again");
    rc = kube_request(c, "GET", "/version", NULL, NULL, &resp, &err);
    CHECK(rc == 0, "and the same client is answered (%s)", rc ? err.msg : "200");
    kube_response_free(&resp);
    kube_client_free(c);
}

/* ---- shutdown aborts a request in flight */
typedef struct inflight {
    kube_client *c;
    int rc;
    double done_at;
    char msg[600];
} inflight;

static void *inflight_main(void *arg)
{
    inflight *f = arg;
    kube_response resp;
    ds_err err = {{0}};
    f->rc = kube_request(f->c, "GET", "/version", NULL, NULL, &resp, &err);
    f->done_at = rt_mono_now();
    snprintf(f->msg, sizeof f->msg, "%s", err.msg);
    kube_response_free(&resp);
    return NULL;
}

static void check_shutdown_in_flight(const kube_config *pcfg, fproxy *px)
{
    kube_client *c = itest_client(pcfg, &retrying);
    fproxy_set(px, 0, 0, 0, 30);
    inflight f = {.c = c};
    pthread_t t;
    if (pthread_create(&t, NULL, inflight_main, &f) != 0) {
        printf("FAIL  pthread_create\n");
        exit(1);
    }
    usleep(1000 * 1000);
    double t0 = rt_mono_now();
    kube_client_shutdown(c);
    pthread_join(t, NULL);
    fproxy_set(px, 0, 0, 0, 0);
    CHECK(f.rc == -1 && f.done_at - t0 < 3,
          "kube_client_shutdown ends a request waiting on a slow server within %.1f s (%s)",
          f.done_at - t0, f.msg);
    kube_client_free(c);
}

/* ---- bearer tokens from a file, replaced by a rename */
static char *mint_token(kube_client *c, const char *ns, const char *sa)
{
    char path[256];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/serviceaccounts", ns);
    char text[256];
    snprintf(text, sizeof text,
             "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"%s\"}}",
             sa);
    itest_create(c, path, text, NULL);
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/serviceaccounts/%s/token", ns, sa);
    json_t *tr = NULL;
    itest_create(c, path,
                 "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenRequest\","
                 "\"spec\":{\"expirationSeconds\":600}}",
                 &tr);
    char *tok = kutil_strdup(itest_str(tr, "status", "token"));
    json_decref(tr);
    return tok;
}

/* Who the server says the client is (a SelfSubjectReview), into who. */
static int whoami(kube_client *c, char *who, size_t size, long *status)
{
    kube_response resp;
    ds_err err = {{0}};
    int rc = kube_request(c, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                          "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":"
                          "\"SelfSubjectReview\"}",
                          NULL, &resp, &err);
    *status = resp.status;
    who[0] = '\0';
    json_t *j = NULL;
    if (rc == 0 && kube_response_json(&resp, "selfsubjectreviews", &j, &err) == 0) {
        snprintf(who, size, "%s",
                 json_string_value(json_object_get(
                     json_object_get(json_object_get(j, "status"), "userInfo"), "username")));
        json_decref(j);
    } else {
        snprintf(who, size, "%s", err.msg);
    }
    int attempts = resp.attempts;
    kube_response_free(&resp);
    return rc == 0 ? 0 : -attempts;
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    size_t n = strlen(text);
    int rc = fwrite(text, 1, n, f) == n ? 0 : -1;
    return fclose(f) != 0 ? -1 : rc;
}

static void check_token_file(kube_client *admin, const kube_config *cfg, const char *ns)
{
    char *t1 = mint_token(admin, ns, "first"), *t2 = mint_token(admin, ns, "second");
    char dir[] = "/tmp/kube-itest-token.XXXXXX";
    if (mkdtemp(dir) == NULL) {
        printf("FAIL  mkdtemp\n");
        exit(1);
    }
    char file[128], tmp[128];
    snprintf(file, sizeof file, "%s/token", dir);
    snprintf(tmp, sizeof tmp, "%s/token.new", dir);
    CHECK(t1 != NULL && t2 != NULL && t1[0] && t2[0] && write_file(file, t1) == 0,
          "tokens minted for the ServiceAccounts first and second");
    kube_config tc = {.server = cfg->server,
                      .ca_data = cfg->ca_data,
                      .ca_data_len = cfg->ca_data_len,
                      .ca_file = cfg->ca_file,
                      .token_file = file,
                      .namespace = "default",
                      .source = "token test"};
    kube_client *c = itest_client(&tc, &retrying);
    char who[600], want[256];
    long status = 0;
    int rc = whoami(c, who, sizeof who, &status);
    snprintf(want, sizeof want, "system:serviceaccount:%s:first", ns);
    CHECK(rc == 0 && strcmp(who, want) == 0, "the token file's token is sent: the server sees %s",
          who);
    /* Projected tokens are replaced by a rename: a new inode. */
    CHECK(write_file(tmp, t2) == 0 && rename(tmp, file) == 0, "the token file replaced");
    rc = whoami(c, who, sizeof who, &status);
    snprintf(want, sizeof want, "system:serviceaccount:%s:second", ns);
    CHECK(rc == 0 && strcmp(who, want) == 0, "the next request sends the new token: %s", who);
    kube_client_free(c);
    CHECK(write_file(file, "not-a-token") == 0, "the token file holds a bad token");
    c = itest_client(&tc, &retrying);
    rc = whoami(c, who, sizeof who, &status);
    CHECK(status == 401 && rc == -1,
          "a bad token: 401 Unauthorized, not retried (status %ld, attempts %d: %s)", status, -rc,
          who);
    kube_client_free(c);
    unlink(file);
    rmdir(dir);
    free(t1);
    free(t2);
}

/* ---- streams */
typedef struct collected {
    ds_bytebuf data;
    int calls, opened; /* calls with data; calls with len 0 */
} collected;

static int collect(void *user, const char *data, size_t len)
{
    collected *col = user;
    if (len == 0) {
        col->opened++;
        return 0;
    }
    col->calls++;
    return ds_bytebuf_append(&col->data, data, len) != 0;
}

typedef struct writer {
    kube_client *c;
    const char *ns;
} writer;

/* After 1 s: creates s1 and s2 (label stream=1), deletes s1. */
static void *writer_main(void *arg)
{
    writer *w = arg;
    usleep(1000 * 1000);
    char path[256];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/configmaps", w->ns);
    itest_create(w->c, path,
                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"s1\","
                 "\"labels\":{\"stream\":\"1\"}}}",
                 NULL);
    itest_create(w->c, path,
                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"s2\","
                 "\"labels\":{\"stream\":\"1\"}}}",
                 NULL);
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/configmaps/s1", w->ns);
    ds_err err = {{0}};
    if (kube_delete(w->c, path, false, &err) != 0)
        itest_die("delete s1", &err);
    return NULL;
}

/* The "type" of each event line, joined by spaces. */
static void event_types(const char *data, char *out, size_t size)
{
    out[0] = '\0';
    size_t len = 0;
    for (const char *p = data; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        json_error_t jerr;
        const char *nl = strchr(p, '\n');
        json_t *ev = json_loadb(p, nl ? (size_t)(nl - p) : strlen(p), 0, &jerr);
        const char *t = json_string_value(json_object_get(ev, "type"));
        const char *name = json_string_value(
            json_object_get(json_object_get(json_object_get(ev, "object"), "metadata"), "name"));
        int w = snprintf(out + len, size - len, "%s%s %s", len ? ", " : "", t ? t : "?",
                         name ? name : "?");
        if (w > 0 && (size_t)w < size - len)
            len += (size_t)w;
        json_decref(ev);
    }
}

static void check_streams(kube_client *c, const char *ns)
{
    char path[256], rv[64];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/configmaps?labelSelector=stream%%3D1", ns);
    json_t *list = itest_get(c, path, NULL);
    snprintf(rv, sizeof rv, "%s",
             itest_str(json_object_get(list, "metadata"), "resourceVersion", NULL));
    json_decref(list);
    snprintf(path, sizeof path,
             "/api/v1/namespaces/%s/configmaps?watch=1&labelSelector=stream%%3D1&"
             "resourceVersion=%s&timeoutSeconds=4",
             ns, rv);
    writer w = {.c = c, .ns = ns};
    pthread_t t;
    if (pthread_create(&t, NULL, writer_main, &w) != 0) {
        printf("FAIL  pthread_create\n");
        exit(1);
    }
    collected col = {.calls = 0};
    ds_bytebuf_init(&col.data, 1 << 20);
    kube_response resp;
    ds_err err = {{0}};
    double t0 = rt_mono_now();
    int rc = kube_stream(c, path, 30, 0, NULL, collect, &col, &resp, &err);
    double took = rt_mono_now() - t0;
    pthread_join(t, NULL);
    char types[512];
    event_types(col.data.data, types, sizeof types);
    CHECK(rc == 0 && took > 3 && took < 15,
          "a watch with timeoutSeconds=4 ends normally after %.1f s (%s)", took,
          rc ? err.msg : "0");
    CHECK(col.opened == 1 && col.calls >= 1,
          "the consumer learnt the stream opened first (%d), "
          "then %d chunks",
          col.opened, col.calls);
    CHECK(strcmp(types, "ADDED s1, ADDED s2, DELETED s1") == 0,
          "its events arrive whole and in order (got \"%s\")", types);
    kube_response_free(&resp);
    ds_bytebuf_free(&col.data);

    /* Nothing happens: a normal end, the stream was opened, no data. */
    snprintf(path, sizeof path,
             "/api/v1/namespaces/%s/configmaps?watch=1&labelSelector=none%%3D1&timeoutSeconds=1",
             ns);
    memset(&col, 0, sizeof col);
    ds_bytebuf_init(&col.data, 1 << 20);
    rc = kube_stream(c, path, 30, 0, NULL, collect, &col, &resp, &err);
    CHECK(rc == 0 && col.opened == 1 && col.calls == 0 && col.data.len == 0,
          "a watch that ends without an event is a normal end, opened once, no data (rc %d, "
          "opened %d, calls %d)",
          rc, col.opened, col.calls);
    kube_response_free(&resp);
    ds_bytebuf_free(&col.data);

    /* From resourceVersion 1 (expired: integration-run.sh has restarted the API server): 410. */
    snprintf(path, sizeof path,
             "/api/v1/namespaces/%s/configmaps?watch=1&resourceVersion=1&timeoutSeconds=2", ns);
    memset(&col, 0, sizeof col);
    ds_bytebuf_init(&col.data, 1 << 20);
    rc = kube_stream(c, path, 30, 0, NULL, collect, &col, &resp, &err);
    char want[256];
    snprintf(want, sizeof want,
             "GET /api/v1/namespaces/%s/configmaps: 410 Expired: too old "
             "resource version: 1 (",
             ns);
    if (resp.status == 410) {
        CHECK(rc == -1 && resp.st.code == 410 && strncmp(err.msg, want, strlen(want)) == 0 &&
                  col.data.len == 0,
              "a watch from an expired resourceVersion: 410 with the server's Status (%s)",
              err.msg);
    } else {
        char types410[256];
        event_types(col.data.data, types410, sizeof types410);
        CHECK(rc == 0 && resp.status == 200 &&
                  strstr(col.data.data ? col.data.data : "", "\"code\":410") != NULL,
              "a watch from an expired resourceVersion: an ERROR event with code 410 (status "
              "%ld, events \"%s\")",
              resp.status, types410);
    }
    kube_response_free(&resp);
    ds_bytebuf_free(&col.data);
}

int main(void)
{
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    printf("== client\n");
    kube_config *cfg, *pcfg;
    fproxy px;
    itest_proxied(&px, &cfg, &pcfg);
    kube_client *admin = itest_client(cfg, &retrying);
    char ns[64];
    itest_namespace(admin, ns, sizeof ns, "itest-cl");

    kube_client *pc = itest_client(pcfg, &retrying);
    check_status_answers(pc, &px, ns);
    kube_client_free(pc);
    check_transport_faults(pcfg, &px, ns);
    check_shutdown_in_flight(pcfg, &px);
    check_token_file(admin, cfg, ns);
    check_streams(admin, ns);

    itest_delete_namespace(admin, ns);
    kube_client_free(admin);
    fproxy_stop(&px);
    kube_config_free(pcfg);
    kube_config_free(cfg);
    printf("== client: %s\n", itest_failures ? "FAILED" : "passed");
    return itest_failures ? 1 : 0;
}
