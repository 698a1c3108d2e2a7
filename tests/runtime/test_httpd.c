/* test_httpd.c: the HTTP(S) server on loopback, driven by libcurl: routing, status codes, body
 * limits, large responses, keep-alive, metrics, TLS certificate hot reload, and the /healthz,
 * /metrics and /readyz helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "httpd.h"

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

static void h_echo_len(void *ctx, const httpd_request *req, httpd_response *resp)
{
    (void)ctx;
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
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    f->m = metrics_registry_new();
    httpd_opts o = {.host = "127.0.0.1",
                    .port = 0,
                    .max_body = 64 * 1024,
                    .routes = routes,
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
    snprintf(crt, sizeof crt, "%s/live.crt", dir);
    snprintf(key, sizeof key, "%s/live.key", dir);
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
    };
    int rc = cmocka_run_group_tests_name("httpd", tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
