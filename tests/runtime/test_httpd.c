/* test_httpd.c: the HTTP(S) server on loopback, driven by libcurl and by raw sockets: routing,
 * status codes, body limits, large responses, keep-alive, metrics, TLS certificate hot reload, the
 * /healthz, /metrics and /readyz helpers, and hostile framing (pipelined requests, half-close,
 * malformed or duplicate Content-Length, over-long request lines and headers, slow clients). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "httpd.h"
#include "raw_client.h"
#include "clock.h"

typedef struct {
    char *data;
    size_t len;
} sink;

static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
    sink *s = ud;
    char *nd = realloc(s->data, s->len + size * n + 1);
    if (nd == NULL)
        return 0;
    memcpy(nd + s->len, p, size * n);
    s->data = nd;
    s->len += size * n;
    s->data[s->len] = '\0';
    return size * n;
}

/* Perform one request; returns the status code and fills *body (caller frees). */
static long request(CURL *c, const char *url, const char *post, size_t post_len, sink *body)
{
    memset(body, 0, sizeof *body);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
    if (post != NULL) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, post);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)post_len);
    } else {
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    }
    CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK)
        return -(long)rc;
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

static void h_health(void *ctx, const httpd_request *req, httpd_response *resp)
{
    (void)ctx;
    (void)req;
    httpd_respond(resp, 200, "text/plain", "ok");
}

/* Answers the body's length and first byte; counts its calls in *ctx when given. */
static void h_echo_len(void *ctx, const httpd_request *req, httpd_response *resp)
{
    if (ctx != NULL)
        atomic_fetch_add((atomic_int *)ctx, 1);
    char buf[64];
    snprintf(buf, sizeof buf, "{\"len\":%zu,\"first\":\"%c\"}", req->body_len,
             req->body_len ? req->body[0] : '-');
    httpd_respond(resp, 200, "application/json", buf);
}

static void h_big(void *ctx, const httpd_request *req, httpd_response *resp)
{
    (void)ctx;
    (void)req;
    size_t n = 1000 * 1000 + 7;
    resp->body = malloc(n);
    if (resp->body == NULL) {
        resp->status = 500;
        return;
    }
    for (size_t i = 0; i < n; i++)
        resp->body[i] = (char)('a' + i % 26);
    resp->body_len = n;
    resp->status = 200;
    resp->content_type = "text/plain";
}

static const httpd_route routes[] = {
    {"GET", "/healthz", h_health, NULL},
    {"POST", "/filter", h_echo_len, NULL},
    {"GET", "/big", h_big, NULL},
};

typedef struct {
    httpd *h;
    metrics_registry *m;
    char base[64];
    CURL *curl;
    atomic_int calls; /* handler calls of POST /filter */
    httpd_route routes[3];
} fixture;

/* A test that hangs the server fails by this alarm instead of blocking the suite. */
#define TEST_WATCHDOG_S 30

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    alarm(TEST_WATCHDOG_S);
    f->m = metrics_registry_new();
    atomic_init(&f->calls, 0);
    memcpy(f->routes, routes, sizeof routes);
    f->routes[1].ctx = &f->calls;
    httpd_opts o = {.host = "127.0.0.1",
                    .port = 0,
                    .max_body = 64 * 1024,
                    .routes = f->routes,
                    .n_routes = sizeof routes / sizeof routes[0],
                    .metrics = f->m,
                    .metrics_prefix = "test"};
    ds_err err = {{0}};
    if (httpd_start(&o, &f->h, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    snprintf(f->base, sizeof f->base, "http://127.0.0.1:%d", httpd_port(f->h));
    f->curl = curl_easy_init();
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    curl_easy_cleanup(f->curl);
    httpd_stop(f->h);
    metrics_registry_free(f->m);
    free(f);
    alarm(0);
    return 0;
}

static void test_routes_and_codes(void **state)
{
    fixture *f = *state;
    char url[128];
    sink b;
    snprintf(url, sizeof url, "%s/healthz", f->base);
    assert_int_equal(request(f->curl, url, NULL, 0, &b), 200);
    assert_string_equal(b.data, "ok");
    free(b.data);

    snprintf(url, sizeof url, "%s/filter", f->base);
    assert_int_equal(request(f->curl, url, "{\"Pod\":{}}", 10, &b), 200);
    assert_string_equal(b.data, "{\"len\":10,\"first\":\"{\"}");
    free(b.data);

    assert_int_equal(request(f->curl, url, NULL, 0, &b), 405);
    free(b.data);

    snprintf(url, sizeof url, "%s/nope", f->base);
    assert_int_equal(request(f->curl, url, NULL, 0, &b), 404);
    free(b.data);

    snprintf(url, sizeof url, "%s/healthz?x=1", f->base);
    assert_int_equal(request(f->curl, url, NULL, 0, &b), 200);
    free(b.data);
}

static void test_body_limit(void **state)
{
    fixture *f = *state;
    char url[128];
    snprintf(url, sizeof url, "%s/filter", f->base);
    size_t n = 64 * 1024 + 1;
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, 'x', n);
    sink b;
    assert_int_equal(request(f->curl, url, big, n, &b), 413);
    free(b.data);
    /* Exactly at the limit is accepted. */
    assert_int_equal(request(f->curl, url, big, n - 1, &b), 200);
    assert_string_equal(b.data, "{\"len\":65536,\"first\":\"x\"}");
    free(b.data);
    free(big);
    /* The server still serves after a rejection. */
    snprintf(url, sizeof url, "%s/healthz", f->base);
    assert_int_equal(request(f->curl, url, NULL, 0, &b), 200);
    free(b.data);
}

static void test_large_response(void **state)
{
    fixture *f = *state;
    char url[128];
    snprintf(url, sizeof url, "%s/big", f->base);
    sink b;
    assert_int_equal(request(f->curl, url, NULL, 0, &b), 200);
    assert_int_equal(b.len, 1000 * 1000 + 7);
    assert_int_equal(b.data[0], 'a');
    assert_int_equal(b.data[b.len - 1], (char)('a' + (b.len - 1) % 26));
    free(b.data);
}

static void test_keepalive_and_metrics(void **state)
{
    fixture *f = *state;
    char url[128];
    snprintf(url, sizeof url, "%s/filter", f->base);
    for (int i = 0; i < 200; i++) {
        sink b;
        assert_int_equal(request(f->curl, url, "abc", 3, &b), 200);
        free(b.data);
    }
    long conns = -1;
    curl_easy_getinfo(f->curl, CURLINFO_NUM_CONNECTS, &conns);
    assert_int_equal(conns, 0); /* the last request reused the connection */
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(metrics_render(f->m, &text, &len), 0);
    assert_non_null(strstr(text, "test_http_requests_total{path=\"/filter\",code=\"200\"} 200\n"));
    assert_non_null(strstr(text, "test_http_request_duration_seconds_count{path=\"/filter\"} 200"));
    free(text);
}

static void test_port_in_use(void **state)
{
    fixture *f = *state;
    httpd_opts o = {.host = "127.0.0.1", .port = httpd_port(f->h), .routes = routes, .n_routes = 1};
    httpd *h2 = NULL;
    ds_err err = {{0}};
    assert_int_equal(httpd_start(&o, &h2, &err), -1);
    assert_null(h2);
    assert_non_null(strstr(err.msg, "cannot listen on 127.0.0.1"));
}

static void test_bad_options(void **state)
{
    (void)state;
    httpd *h = NULL;
    ds_err err = {{0}};
    httpd_opts o = {.host = "127.0.0.1", .port = 0, .tls_cert = "x.crt"};
    assert_int_equal(httpd_start(&o, &h, &err), -1);
    assert_string_equal(err.msg, "httpd: --tls-cert and --tls-key must be given together");
    httpd_opts o2 = {.host = "127.0.0.1",
                     .port = 0,
                     .tls_cert = "/nonexistent.crt",
                     .tls_key = "/nonexistent.key"};
    assert_int_equal(httpd_start(&o2, &h, &err), -1);
    assert_string_equal(err.msg, "httpd: cannot read TLS certificate /nonexistent.crt");
}

/* Copy src to dst via a temporary file and rename, as a certificate manager would. */
static void install(const char *src, const char *dst)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s.tmp' && mv '%s.tmp' '%s'", src, dst, dst, dst);
    assert_int_equal(system(cmd), 0);
}

/* Subject CN of the certificate the server presents on a new connection. */
static int served_cn(const char *url, const char *ca, char *cn, size_t cn_size)
{
    CURL *c = curl_easy_init();
    sink b = {0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CAINFO, ca);
    curl_easy_setopt(c, CURLOPT_CERTINFO, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
    CURLcode rc = curl_easy_perform(c);
    cn[0] = '\0';
    if (rc == CURLE_OK) {
        struct curl_certinfo *ci = NULL;
        curl_easy_getinfo(c, CURLINFO_CERTINFO, &ci);
        for (int i = 0; ci != NULL && i < ci->num_of_certs && cn[0] == '\0'; i++)
            for (struct curl_slist *s = ci->certinfo[i]; s != NULL; s = s->next)
                if (strncmp(s->data, "Subject:", 8) == 0) {
                    const char *p = strstr(s->data, "CN");
                    snprintf(cn, cn_size, "%s", p != NULL ? p : s->data);
                    break;
                }
    }
    free(b.data);
    curl_easy_cleanup(c);
    return rc == CURLE_OK ? 0 : -1;
}

static void test_tls_and_reload(void **state)
{
    (void)state;
    const char *dir = getenv("DAGSCHED_TEST_CERTS");
    if (dir == NULL)
        fail_msg("DAGSCHED_TEST_CERTS is not set (run through make runtime-test)");
    char a_crt[512], a_key[512], b_crt[512], b_key[512], crt[512], key[512], ca[512];
    snprintf(a_crt, sizeof a_crt, "%s/a.crt", dir);
    snprintf(a_key, sizeof a_key, "%s/a.key", dir);
    snprintf(b_crt, sizeof b_crt, "%s/b.crt", dir);
    snprintf(b_key, sizeof b_key, "%s/b.key", dir);
    /* This process's own live files: the optimised and the sanitizer builds may run at once. */
    snprintf(crt, sizeof crt, "%s/live-%ld.crt", dir, (long)getpid());
    snprintf(key, sizeof key, "%s/live-%ld.key", dir, (long)getpid());
    snprintf(ca, sizeof ca, "%s/ca.crt", dir);
    install(a_crt, crt);
    install(a_key, key);

    httpd *h = NULL;
    ds_err err = {{0}};
    httpd_opts o = {.host = "127.0.0.1",
                    .port = 0,
                    .tls_cert = crt,
                    .tls_key = key,
                    .routes = routes,
                    .n_routes = 1,
                    .tls_reload_interval_s = 0.2};
    assert_int_equal(httpd_start(&o, &h, &err), 0);
    char url[128], cn[256];
    snprintf(url, sizeof url, "https://127.0.0.1:%d/healthz", httpd_port(h));
    assert_int_equal(served_cn(url, ca, cn, sizeof cn), 0);
    assert_non_null(strstr(cn, "dagsched-test-a"));

    /* A client that offers HTTP/2 in ALPN (as Go's transport does: the API server calling an
     * admission webhook) is answered over HTTP/1.1 by our routes, not by lws's HTTP/2 role. */
    CURL *h2 = curl_easy_init();
    curl_easy_setopt(h2, CURLOPT_CAINFO, ca);
    curl_easy_setopt(h2, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    sink hb;
    assert_int_equal(request(h2, url, NULL, 0, &hb), 200);
    long version = 0;
    curl_easy_getinfo(h2, CURLINFO_HTTP_VERSION, &version);
    assert_int_equal(version, CURL_HTTP_VERSION_1_1);
    assert_non_null(hb.data);
    assert_string_equal(hb.data, "ok");
    free(hb.data);
    curl_easy_cleanup(h2);

    /* Plain HTTP on the HTTPS port is refused. */
    char plain[128];
    snprintf(plain, sizeof plain, "http://127.0.0.1:%d/healthz", httpd_port(h));
    CURL *c = curl_easy_init();
    sink b;
    long code = request(c, plain, NULL, 0, &b);
    free(b.data);
    curl_easy_cleanup(c);
    assert_true(code != 200);

    sleep(1); /* make sure the new files get a different mtime */
    install(b_key, key);
    install(b_crt, crt);
    for (int i = 0; i < 50 && httpd_tls_reloads(h) == 0; i++)
        usleep(100 * 1000);
    assert_true(httpd_tls_reloads(h) >= 1);
    assert_int_equal(served_cn(url, ca, cn, sizeof cn), 0);
    assert_non_null(strstr(cn, "dagsched-test-b"));
    httpd_stop(h);
    unlink(crt);
    unlink(key);
}

/* The handlers both binaries route (/healthz, /metrics) and the /readyz answer. */
static void test_shared_handlers(void **state)
{
    (void)state;
    httpd_request req = {.method = "GET", .path = "/healthz", .body = "", .body_len = 0};
    httpd_response resp = {0};
    httpd_handle_healthz(NULL, &req, &resp);
    assert_int_equal(resp.status, 200);
    assert_string_equal(resp.content_type, "text/plain");
    assert_int_equal(resp.body_len, 3);
    assert_string_equal(resp.body, "ok\n");

    metrics_registry *r = metrics_registry_new();
    assert_non_null(r);
    metrics_family *f =
        metrics_family_new(r, METRICS_COUNTER, "x_total", "Things.", NULL, 0, NULL, 0);
    assert_non_null(f);
    metrics_add(f, NULL, 3);
    req.path = "/metrics";
    httpd_handle_metrics(r, &req, &resp); /* replaces the previous body */
    assert_int_equal(resp.status, 200);
    assert_string_equal(resp.content_type, "text/plain; version=0.0.4");
    assert_int_equal(resp.body_len, strlen(resp.body));
    assert_non_null(
        strstr(resp.body, "# HELP x_total Things.\n# TYPE x_total counter\nx_total 3\n"));
    metrics_registry_free(r);

    httpd_respond_ready(&resp, false, "caches not synced yet\n");
    assert_int_equal(resp.status, 503);
    assert_string_equal(resp.body, "caches not synced yet\n");
    httpd_respond_ready(&resp, true, "caches not synced yet\n");
    assert_int_equal(resp.status, 200);
    assert_string_equal(resp.body, "ok\n");
    free(resp.body);
}

/* ---- Raw-socket clients: exact bytes on the wire, for framing the libcurl tests cannot send. ----
 */

static void send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        assert_true(w > 0);
        p += w;
        n -= (size_t)w;
    }
}

static void send_str(int fd, const char *s)
{
    send_all(fd, s, strlen(s));
}

#define MAX_RESP 8
typedef struct {
    int n; /* complete responses read (interim 100 Continue not counted) */
    int code[MAX_RESP];
    char body[MAX_RESP][128];
    bool closed[MAX_RESP]; /* the response said Connection: close */
    bool eof;              /* the server closed the connection */
    bool malformed;        /* bytes that are not a well-formed response */
    char raw[64 * 1024];
    size_t len, used;
} responses;

static const char *find_ci(const char *hay, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (strncasecmp(hay + i, needle, k) == 0)
            return hay + i;
    return NULL;
}

/* Parse complete responses from r->raw[r->used..]; false when more bytes are needed. */
static bool parse_one(responses *r)
{
    const char *p = r->raw + r->used;
    size_t left = r->len - r->used;
    if (left < 12)
        return false;
    if (strncmp(p, "HTTP/1.1 ", 9) != 0 || p[9] < '1' || p[9] > '5') {
        r->malformed = true;
        return false;
    }
    const char *end = NULL;
    for (size_t i = 0; i + 4 <= left; i++)
        if (memcmp(p + i, "\r\n\r\n", 4) == 0) {
            end = p + i + 4;
            break;
        }
    if (end == NULL)
        return false;
    int code = atoi(p + 9);
    size_t hlen = (size_t)(end - p);
    if (code == 100) {
        r->used += hlen;
        return true;
    }
    const char *cl = find_ci(p, hlen, "\r\nContent-Length:");
    if (cl == NULL) {
        r->malformed = true;
        return false;
    }
    size_t blen = strtoul(cl + 17, NULL, 10);
    if (left < hlen + blen)
        return false;
    if (r->n < MAX_RESP) {
        r->code[r->n] = code;
        r->closed[r->n] = find_ci(p, hlen, "\r\nConnection: close\r\n") != NULL;
        size_t c = blen < sizeof r->body[0] - 1 ? blen : sizeof r->body[0] - 1;
        memcpy(r->body[r->n], end, c);
        r->body[r->n][c] = '\0';
    }
    r->n++;
    r->used += hlen + blen;
    return true;
}

/* Read until `want` responses arrived (then also wait for EOF if `until_eof`), EOF, or timeout. */
static void read_responses(int fd, int want, bool until_eof, double timeout_s, responses *r)
{
    double deadline = rt_mono_now() + timeout_s;
    for (;;) {
        while (parse_one(r))
            ;
        if (r->eof || r->malformed || (r->n >= want && !until_eof))
            return;
        double left = deadline - rt_mono_now();
        if (left <= 0)
            return;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
            continue;
        if (r->len == sizeof r->raw) {
            r->malformed = true;
            return;
        }
        ssize_t n = recv(fd, r->raw + r->len, sizeof r->raw - r->len, 0);
        if (n <= 0) {
            r->eof = true;
            while (parse_one(r))
                ;
            return;
        }
        r->len += (size_t)n;
    }
}

static responses *new_responses(void)
{
    responses *r = calloc(1, sizeof *r);
    assert_non_null(r);
    return r;
}

static size_t post(char *buf, size_t size, const char *body)
{
    int n = snprintf(buf, size,
                     "POST /filter HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n%s",
                     strlen(body), body);
    assert_true(n > 0 && (size_t)n < size);
    return (size_t)n;
}

/* The server still answers /healthz promptly on a new connection (libcurl). */
static void assert_healthy(fixture *f)
{
    char url[128];
    snprintf(url, sizeof url, "%s/healthz", f->base);
    sink b;
    double t0 = rt_mono_now();
    assert_int_equal(request(f->curl, url, NULL, 0, &b), 200);
    free(b.data);
    assert_true(rt_mono_now() - t0 < 2.0);
}

/* CPU used by the process over a quiet half second: a spinning service thread uses all of it. */
static void assert_idle(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    usleep(500 * 1000);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    double used = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    assert_true(used < 0.1);
}

/* n POSTs with bodies "a", "bb", "ccc"... in one write: n answers, in order, one handler call each.
 */
static void pipelined(fixture *f, int n)
{
    char all[2048] = "", one[256], body[16];
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        memset(body, 'a' + i, (size_t)i + 1);
        body[i + 1] = '\0';
        size_t k = post(one, sizeof one, body);
        memcpy(all + len, one, k);
        len += k;
    }
    int fd = connect_lo(httpd_port(f->h));
    send_all(fd, all, len);
    responses *r = new_responses();
    read_responses(fd, n, false, 5, r);
    assert_false(r->malformed);
    assert_int_equal(r->n, n);
    for (int i = 0; i < n; i++) {
        char want[64];
        snprintf(want, sizeof want, "{\"len\":%d,\"first\":\"%c\"}", i + 1, 'a' + i);
        assert_int_equal(r->code[i], 200);
        assert_string_equal(r->body[i], want);
    }
    /* Nothing more comes: no re-dispatch of an empty body. */
    read_responses(fd, n + 1, false, 0.5, r);
    assert_int_equal(r->n, n);
    assert_int_equal(atomic_load(&f->calls), n);
    /* The connection is still usable for a further request. */
    len = post(one, sizeof one, "zz");
    send_all(fd, one, len);
    read_responses(fd, n + 1, false, 5, r);
    assert_int_equal(r->n, n + 1);
    assert_string_equal(r->body[n], "{\"len\":2,\"first\":\"z\"}");
    close(fd);
    free(r);
    assert_idle();
    assert_healthy(f);
    assert_int_equal(atomic_load(&f->calls), n + 1);
}

static void test_pipelined_two(void **state)
{
    pipelined(*state, 2);
}

static void test_pipelined_three(void **state)
{
    pipelined(*state, 3);
}

/* The second request is sent before the first answer is read: right after the first (in its own
 * write, racing the server's reading of the first) or a moment later (the answer waits unread). */
static void test_second_before_first_read(void **state)
{
    fixture *f = *state;
    int rounds = 10;
    for (int i = 0; i < rounds; i++) {
        int fd = connect_lo(httpd_port(f->h));
        char req[256];
        size_t n = post(req, sizeof req, "{\"a\":1}");
        send_all(fd, req, n);
        if (i == rounds - 1)
            usleep(200 * 1000);
        n = post(req, sizeof req, "[]");
        send_all(fd, req, n);
        responses *r = new_responses();
        read_responses(fd, 2, false, 5, r);
        assert_int_equal(r->n, 2);
        assert_string_equal(r->body[0], "{\"len\":7,\"first\":\"{\"}");
        assert_string_equal(r->body[1], "{\"len\":2,\"first\":\"[\"}");
        close(fd);
        free(r);
    }
    assert_idle();
    assert_healthy(f);
    assert_int_equal(atomic_load(&f->calls), 2 * rounds);
}

/* A client that shuts down its sending side after a complete request still gets its answer. */
static void test_half_close(void **state)
{
    fixture *f = *state;
    for (int pipelined_n = 1; pipelined_n <= 2; pipelined_n++) {
        int fd = connect_lo(httpd_port(f->h));
        char req[256];
        size_t n = post(req, sizeof req, "xyz");
        for (int i = 0; i < pipelined_n; i++)
            send_all(fd, req, n);
        assert_int_equal(shutdown(fd, SHUT_WR), 0);
        responses *r = new_responses();
        read_responses(fd, pipelined_n, true, 5, r);
        assert_int_equal(r->n, pipelined_n);
        for (int i = 0; i < pipelined_n; i++) {
            assert_int_equal(r->code[i], 200);
            assert_string_equal(r->body[i], "{\"len\":3,\"first\":\"x\"}");
        }
        assert_true(r->eof); /* and then the server closes its side */
        close(fd);
        free(r);
    }
    assert_healthy(f);
}

/* Send raw bytes on a new connection; expect one answer `code`, then the connection closed. */
static void expect_status_and_close(fixture *f, const char *bytes, size_t len, int code)
{
    int fd = connect_lo(httpd_port(f->h));
    send_all(fd, bytes, len);
    responses *r = new_responses();
    read_responses(fd, 1, true, 5, r);
    if (r->n != 1 || r->code[0] != code || !r->eof)
        fail_msg("sent %.60s...: got %d answers (first %d), eof %d; want one %d then close", bytes,
                 r->n, r->n > 0 ? r->code[0] : 0, r->eof, code);
    assert_true(r->closed[0]);
    assert_false(r->malformed);
    close(fd);
    free(r);
}

static void expect_str(fixture *f, const char *bytes, int code)
{
    expect_status_and_close(f, bytes, strlen(bytes), code);
}

static void test_bad_content_length(void **state)
{
    fixture *f = *state;
    const char *bad[] = {
        "POST /filter HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\nabc",
        "POST /filter HTTP/1.1\r\nHost: t\r\nContent-Length: 3x\r\n\r\nabc",
        "POST /filter HTTP/1.1\r\nHost: t\r\nContent-Length: -3\r\n\r\nabc",
        "POST /filter HTTP/1.1\r\nHost: t\r\nContent-Length: +3\r\n\r\nabc",
        "POST /filter HTTP/1.1\r\nHost: t\r\nContent-Length: \r\n\r\nabc",
        "POST /filter HTTP/1.1\r\nHost: t\r\nContent-Length: 3, 3\r\n\r\nabc",
        "POST /filter HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
        "POST /filter HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\ncontent-length: 4\r\n\r\nabcd",
        "POST /filter HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n"
        "\r\n3\r\nabc\r\n0\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_str(f, bad[i], 400);
    /* A well-formed length above the limit, even one that overflows 64 bits, is 413. */
    expect_str(f, "POST /filter HTTP/1.1\r\nHost: t\r\nContent-Length: 65537\r\n\r\n", 413);
    expect_str(
        f, "POST /filter HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999999999999999999\r\n\r\n",
        413);
    assert_int_equal(atomic_load(&f->calls), 0);
    assert_healthy(f);
}

static void test_bad_request_line(void **state)
{
    fixture *f = *state;
    expect_str(f, "GARBAGE\r\n\r\n", 400);
    expect_str(f, "GET healthz HTTP/1.1\r\nHost: t\r\n\r\n", 400);
    expect_str(f, "GET /healthz  HTTP/1.1\r\nHost: t\r\n\r\n", 400);
    expect_str(f, "GET /healthz HTTP/1.1 x\r\nHost: t\r\n\r\n", 400);
    expect_str(f, "GET /healthz HTTP/1.1\r\n bad: fold\r\n\r\n", 400);
    expect_str(f, "GET /healthz HTTP/1.1\r\nNo colon here\r\n\r\n", 400);
    expect_str(f, "GET /healthz HTTP/1.1\r\nBad : space\r\n\r\n", 400);
    expect_str(f, "GET /healthz HTTP/1.1\r\nHost: t\rx\r\n\r\n", 400);
    expect_status_and_close(f, "GET /\0 HTTP/1.1\r\n\r\n", 19, 400);
    expect_str(f, "GET /healthz HTTP/3.0\r\nHost: t\r\n\r\n", 505);
    /* A request after a bad one on the same connection is not answered: framing is lost. */
    expect_str(f, "BAD\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", 400);
    assert_healthy(f);
}

static void test_long_uri(void **state)
{
    fixture *f = *state;
    size_t n = 20000;
    char *req = malloc(n + 64);
    assert_non_null(req);
    strcpy(req, "GET /");
    memset(req + 5, 'a', n);
    strcpy(req + 5 + n, " HTTP/1.1\r\nHost: t\r\n\r\n");
    expect_str(f, req, 414);
    /* A path longer than any route (the limit is HTTPD_MAX_PATH) is 414 as well. */
    strcpy(req, "GET /");
    memset(req + 5, 'b', HTTPD_MAX_PATH);
    strcpy(req + 5 + HTTPD_MAX_PATH, " HTTP/1.1\r\nHost: t\r\n\r\n");
    expect_str(f, req, 414);
    free(req);
    assert_healthy(f);
}

static void test_long_header(void **state)
{
    fixture *f = *state;
    size_t n = 40000;
    char *req = malloc(n + 128);
    assert_non_null(req);
    strcpy(req, "GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: ");
    size_t k = strlen(req);
    memset(req + k, 'h', n);
    strcpy(req + k + n, "\r\n\r\n");
    expect_str(f, req, 431);
    /* Too many header fields, each small. */
    strcpy(req, "GET /healthz HTTP/1.1\r\nHost: t\r\n");
    for (int i = 0; i < HTTPD_MAX_HEADER_FIELDS + 1; i++)
        snprintf(req + strlen(req), 64, "X-H%d: v\r\n", i);
    strcat(req, "\r\n");
    expect_str(f, req, 431);
    free(req);
    assert_healthy(f);
}

/* A client sending one byte at a time does not hold up another client. */
static void test_slow_client(void **state)
{
    fixture *f = *state;
    int fd = connect_lo(httpd_port(f->h));
    char req[256];
    size_t n = post(req, sizeof req, "slow");
    for (size_t i = 0; i < n; i++) {
        send_all(fd, req + i, 1);
        if (i % 16 == 0)
            assert_healthy(f);
        usleep(10 * 1000);
    }
    responses *r = new_responses();
    read_responses(fd, 1, false, 5, r);
    assert_int_equal(r->n, 1);
    assert_string_equal(r->body[0], "{\"len\":4,\"first\":\"s\"}");
    close(fd);
    free(r);
}

/* Expect: 100-continue gets the interim answer before the body is sent. */
static void test_expect_continue(void **state)
{
    fixture *f = *state;
    int fd = connect_lo(httpd_port(f->h));
    send_str(fd, "POST /filter HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nExpect: 100-continue"
                 "\r\n\r\n");
    responses *r = new_responses();
    read_responses(fd, 0, false, 0, r);
    double deadline = rt_mono_now() + 5;
    while (r->len < 25 && rt_mono_now() < deadline) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, 100) > 0) {
            ssize_t k = recv(fd, r->raw + r->len, sizeof r->raw - r->len, 0);
            assert_true(k > 0);
            r->len += (size_t)k;
        }
    }
    assert_memory_equal(r->raw, "HTTP/1.1 100 Continue\r\n\r\n", 25);
    send_str(fd, "ok");
    read_responses(fd, 1, false, 5, r);
    assert_int_equal(r->n, 1);
    assert_string_equal(r->body[0], "{\"len\":2,\"first\":\"o\"}");
    close(fd);
    free(r);
}

/* ---- the process budget (httpd_budget): connections and buffered request bytes ---- */

/* Wait (bounded) until the budget's counters read conns and buffered. */
static void wait_budget(const httpd_budget *b, size_t conns, size_t buffered)
{
    double deadline = rt_mono_now() + 5;
    while ((httpd_budget_conns(b) != conns || httpd_budget_buffered(b) != buffered) &&
           rt_mono_now() < deadline)
        usleep(10000);
    if (httpd_budget_conns(b) != conns || httpd_budget_buffered(b) != buffered)
        fail_msg("budget: %zu connections and %zu bytes, want %zu and %zu", httpd_budget_conns(b),
                 httpd_budget_buffered(b), conns, buffered);
}

/* Two servers sharing one budget of 3 connections and 48 KiB: a fourth connection, on either
 * server, is answered 503 and closed; requests that would hold more than 48 KiB together are
 * answered 503 and closed while smaller ones are served; every byte and connection is given back,
 * and the refusals are counted by reason. */
static void test_budget(void **state)
{
    (void)state;
    alarm(TEST_WATCHDOG_S);
    httpd_budget b;
    httpd_budget_init(&b, 3, 48 * 1024);
    metrics_registry *m = metrics_registry_new();
    atomic_int calls;
    atomic_init(&calls, 0);
    httpd_route r[3];
    memcpy(r, routes, sizeof routes);
    r[1].ctx = &calls;
    httpd_opts o = {.host = "127.0.0.1",
                    .max_body = 64 * 1024,
                    .budget = &b,
                    .routes = r,
                    .n_routes = 3,
                    .metrics = m,
                    .metrics_prefix = "a"};
    httpd *h1 = NULL, *h2 = NULL;
    ds_err err = {{0}};
    assert_int_equal(httpd_start(&o, &h1, &err), 0);
    o.metrics_prefix = "b";
    assert_int_equal(httpd_start(&o, &h2, &err), 0);

    /* Two slow requests of 20 KiB each (all but their last byte sent): 40 KiB held. */
    static char body[20 * 1024 + 1];
    memset(body, 'x', sizeof body - 1);
    static char req[sizeof body + 256];
    size_t n = post(req, sizeof req, body);
    int s1 = connect_lo(httpd_port(h1)), s2 = connect_lo(httpd_port(h2));
    send_all(s1, req, n - 1);
    send_all(s2, req, n - 1);
    wait_budget(&b, 2, 2 * (n - 1));

    /* A third request of 20 KiB would take 60 KiB: 503, closed. */
    int s3 = connect_lo(httpd_port(h1));
    send_all(s3, req, n);
    responses *a = new_responses();
    read_responses(s3, 1, true, 5, a);
    if (a->n != 1 || a->code[0] != 503 || !a->eof)
        fail_msg("over the bytes budget: %d answers (first %d), eof %d", a->n,
                 a->n ? a->code[0] : 0, a->eof);
    assert_non_null(strstr(a->body[0], "server busy"));
    close(s3);
    free(a);
    wait_budget(&b, 2, 2 * (n - 1));

    /* A small request still fits and is served. */
    int s4 = connect_lo(httpd_port(h2));
    char small[256];
    send_all(s4, small, post(small, sizeof small, "{}"));
    a = new_responses();
    read_responses(s4, 1, false, 5, a);
    assert_int_equal(a->n, 1);
    assert_int_equal(a->code[0], 200);
    free(a);

    /* s1, s2 and s4 open: a fourth connection is refused at once, on either server. */
    wait_budget(&b, 3, 2 * (n - 1));
    for (int k = 0; k < 2; k++) {
        int s5 = connect_lo(httpd_port(k == 0 ? h1 : h2));
        a = new_responses();
        read_responses(s5, 1, true, 5, a);
        if (a->n != 1 || a->code[0] != 503 || !a->eof)
            fail_msg("over the connection cap: %d answers (first %d), eof %d", a->n,
                     a->n ? a->code[0] : 0, a->eof);
        assert_non_null(strstr(a->body[0], "connections"));
        close(s5);
        free(a);
    }

    /* The slow requests complete and are answered; everything is given back. */
    send_all(s1, req + n - 1, 1);
    send_all(s2, req + n - 1, 1);
    for (int k = 0; k < 2; k++) {
        a = new_responses();
        read_responses(k == 0 ? s1 : s2, 1, false, 5, a);
        assert_int_equal(a->n, 1);
        assert_int_equal(a->code[0], 200);
        free(a);
    }
    close(s1);
    close(s2);
    close(s4);
    wait_budget(&b, 0, 0);
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(metrics_render(m, &text, &len), 0);
    assert_non_null(strstr(text, "a_http_refused_total{reason=\"buffered_bytes\"} 1\n"));
    assert_non_null(strstr(text, "a_http_refused_total{reason=\"connections\"} 1\n"));
    assert_non_null(strstr(text, "b_http_refused_total{reason=\"connections\"} 1\n"));
    free(text);
    httpd_stop(h1);
    httpd_stop(h2);
    metrics_registry_free(m);
    alarm(0);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_routes_and_codes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_body_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_response, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keepalive_and_metrics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_port_in_use, setup, teardown),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_tls_and_reload),
        cmocka_unit_test(test_shared_handlers),
        cmocka_unit_test_setup_teardown(test_pipelined_two, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pipelined_three, setup, teardown),
        cmocka_unit_test_setup_teardown(test_second_before_first_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_half_close, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_content_length, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_request_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_uri, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_header, setup, teardown),
        cmocka_unit_test_setup_teardown(test_slow_client, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expect_continue, setup, teardown),
        cmocka_unit_test(test_budget),
    };
    if (getenv("DAGSCHED_TEST_FILTER") != NULL) /* e.g. "test_pipelined*" */
        cmocka_set_test_filter(getenv("DAGSCHED_TEST_FILTER"));
    int rc = cmocka_run_group_tests_name("httpd", tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
