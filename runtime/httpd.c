/* httpd.c: HTTP(S) server on libwebsockets with exact-path routing, bounded bodies, per-request
 * metrics and certificate hot reload (see httpd.h). */
#include "httpd.h"

#include <libwebsockets.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Response bytes written per writable callback, and the receive buffer: extender answers for
 * thousands of nodes are a few hundred KiB, so large chunks save event-loop round trips. */
#define CHUNK         65536
#define SERV_BUF      (128 * 1024)
#define MAX_CERT_FILE (1024 * 1024)

typedef struct conn {
    char method[8];
    char path[HTTPD_MAX_PATH];
    bool have_request;
    bool too_long;
    char *body;
    size_t len, cap;
    httpd_response resp;
    bool headers_sent;
    size_t sent;
    struct timespec t0;
} conn;

struct httpd {
    struct lws_context *ctx;
    struct lws_vhost *vh;
    pthread_t thread;
    bool thread_started;
    atomic_bool stop;
    httpd_route *routes;
    size_t n_routes;
    size_t max_body;
    char *tls_cert, *tls_key;
    struct timespec cert_mtime, key_mtime;
    lws_sorted_usec_list_t sul;
    lws_usec_t reload_us;
    atomic_ulong reloads;
    metrics_family *m_requests;
    metrics_family *m_latency;
    struct lws_protocols protocols[2];
};

static double elapsed_s(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

int httpd_respond(httpd_response *resp, int status, const char *content_type, const char *body)
{
    free(resp->body);
    resp->body = NULL;
    resp->body_len = 0;
    resp->status = status;
    resp->content_type = content_type;
    if (body == NULL)
        return 0;
    size_t n = strlen(body);
    resp->body = malloc(n + 1);
    if (resp->body == NULL) {
        resp->status = 500;
        resp->content_type = "text/plain";
        return -1;
    }
    memcpy(resp->body, body, n + 1);
    resp->body_len = n;
    return 0;
}

void httpd_handle_healthz(void *ctx, const httpd_request *req, httpd_response *resp)
{
    (void)ctx;
    (void)req;
    httpd_respond(resp, 200, "text/plain", "ok\n");
}

void httpd_handle_metrics(void *registry, const httpd_request *req, httpd_response *resp)
{
    (void)req;
    char *text = NULL;
    size_t len = 0;
    if (metrics_render(registry, &text, &len) != 0) {
        httpd_respond(resp, 500, "text/plain", "out of memory\n");
        return;
    }
    free(resp->body);
    resp->status = 200;
    resp->content_type = "text/plain; version=0.0.4";
    resp->body = text;
    resp->body_len = len;
}

void httpd_respond_ready(httpd_response *resp, bool ready, const char *why_not)
{
    if (ready)
        httpd_respond(resp, 200, "text/plain", "ok\n");
    else
        httpd_respond(resp, 503, "text/plain", why_not);
}

static void conn_reset(conn *c)
{
    free(c->body);
    free(c->resp.body);
    memset(c, 0, sizeof *c);
}

static const httpd_route *find_route(const httpd *h, const char *method, const char *path,
                                     bool *path_known)
{
    *path_known = false;
    for (size_t i = 0; i < h->n_routes; i++) {
        if (strcmp(h->routes[i].path, path) != 0)
            continue;
        *path_known = true;
        if (strcmp(h->routes[i].method, method) == 0)
            return &h->routes[i];
    }
    return NULL;
}

/* Run the handler (or produce the error response) for a complete request. */
static void dispatch(httpd *h, conn *c)
{
    memset(&c->resp, 0, sizeof c->resp);
    c->resp.status = 200;
    c->resp.content_type = "application/json";
    if (c->too_long) {
        httpd_respond(&c->resp, 414, "application/json", "{\"error\":\"request path too long\"}");
        return;
    }
    bool known;
    const httpd_route *r = find_route(h, c->method, c->path, &known);
    if (r == NULL) {
        if (known)
            httpd_respond(&c->resp, 405, "application/json", "{\"error\":\"method not allowed\"}");
        else
            httpd_respond(&c->resp, 404, "application/json", "{\"error\":\"not found\"}");
        return;
    }
    httpd_request req = {.method = c->method,
                         .path = c->path,
                         .body = c->body != NULL ? c->body : "",
                         .body_len = c->len};
    r->fn(r->ctx, &req, &c->resp);
    if (c->resp.status < 100 || c->resp.status > 599)
        c->resp.status = 500;
    if (c->resp.content_type == NULL)
        c->resp.content_type = "application/json";
    if (c->resp.body == NULL)
        c->resp.body_len = 0;
}

static void record(httpd *h, conn *c)
{
    const char *label = "other";
    for (size_t i = 0; i < h->n_routes; i++)
        if (strcmp(h->routes[i].path, c->path) == 0)
            label = h->routes[i].path;
    char code[8];
    snprintf(code, sizeof code, "%d", c->resp.status);
    const char *rv[] = {label, code};
    metrics_add(h->m_requests, rv, 1);
    const char *lv[] = {label};
    metrics_observe(h->m_latency, lv, elapsed_s(&c->t0));
}

/* Write headers, then the body in chunks; returns -1 to close the connection. */
static int write_response(httpd *h, struct lws *wsi, conn *c)
{
    unsigned char buf[LWS_PRE + CHUNK];
    unsigned char *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf;
    if (!c->headers_sent) {
        if (c->resp.body_len == 0)
            record(h, c); /* before the last byte leaves, so readers see it counted */
        if (lws_add_http_common_headers(wsi, (unsigned int)c->resp.status, c->resp.content_type,
                                        (lws_filepos_t)c->resp.body_len, &p, end) ||
            lws_finalize_write_http_header(wsi, start, &p, end))
            return -1;
        c->headers_sent = true;
        if (c->resp.body_len == 0) {
            conn_reset(c);
            return lws_http_transaction_completed(wsi) ? -1 : 0;
        }
        lws_callback_on_writable(wsi);
        return 0;
    }
    size_t left = c->resp.body_len - c->sent;
    size_t n = left < CHUNK ? left : CHUNK;
    memcpy(start, c->resp.body + c->sent, n);
    bool final = n == left;
    if (final)
        record(h, c);
    if (lws_write(wsi, start, n, final ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != (int)n)
        return -1;
    c->sent += n;
    if (!final) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    conn_reset(c);
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int reject_too_large(struct lws *wsi, conn *c, httpd *h)
{
    memset(&c->resp, 0, sizeof c->resp);
    c->resp.status = 413;
    record(h, c);
    conn_reset(c);
    lws_return_http_status(wsi, 413, "request body too large");
    return -1;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    conn *c = user;
    struct lws_vhost *vh = lws_get_vhost(wsi);
    httpd *h = vh != NULL ? lws_vhost_user(vh) : NULL;

    switch (reason) {
    case LWS_CALLBACK_HTTP: {
        if (h == NULL || c == NULL)
            return -1;
        conn_reset(c);
        clock_gettime(CLOCK_MONOTONIC, &c->t0);
        char *uri = NULL;
        int uri_len = 0;
        int m = lws_http_get_uri_and_method(wsi, &uri, &uri_len);
        const char *method = m == LWSHUMETH_GET    ? "GET"
                             : m == LWSHUMETH_POST ? "POST"
                             : m == LWSHUMETH_PUT  ? "PUT"
                             : m == LWSHUMETH_HEAD ? "HEAD"
                                                   : "OTHER";
        snprintf(c->method, sizeof c->method, "%s", method);
        const char *path = in != NULL ? (const char *)in : "/";
        if (strlen(path) >= sizeof c->path) {
            c->too_long = true;
            snprintf(c->path, sizeof c->path, "/");
        } else {
            snprintf(c->path, sizeof c->path, "%s", path);
        }
        c->have_request = true;
        if (m == LWSHUMETH_POST || m == LWSHUMETH_PUT) {
            char cl[32];
            if (lws_hdr_copy(wsi, cl, sizeof cl, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0) {
                char *endp;
                unsigned long long v = strtoull(cl, &endp, 10);
                if (*endp != '\0' || v > h->max_body)
                    return reject_too_large(wsi, c, h);
                if (v == 0) {
                    dispatch(h, c);
                    lws_callback_on_writable(wsi);
                }
            }
            return 0; /* wait for the body */
        }
        dispatch(h, c);
        lws_callback_on_writable(wsi);
        return 0;
    }
    case LWS_CALLBACK_HTTP_BODY: {
        if (h == NULL || c == NULL || !c->have_request)
            return -1;
        if (c->len + len > h->max_body)
            return reject_too_large(wsi, c, h);
        if (c->len + len + 1 > c->cap) {
            size_t cap = c->cap ? c->cap : 4096;
            while (cap < c->len + len + 1)
                cap *= 2;
            if (cap > h->max_body + 1)
                cap = h->max_body + 1;
            char *nb = realloc(c->body, cap);
            if (nb == NULL)
                return -1;
            c->body = nb;
            c->cap = cap;
        }
        memcpy(c->body + c->len, in, len);
        c->len += len;
        c->body[c->len] = '\0';
        return 0;
    }
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        if (h == NULL || c == NULL || !c->have_request)
            return -1;
        dispatch(h, c);
        lws_callback_on_writable(wsi);
        return 0;
    case LWS_CALLBACK_HTTP_WRITEABLE:
        if (h == NULL || c == NULL || !c->have_request)
            return 0;
        return write_response(h, wsi, c);
    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        if (c != NULL)
            conn_reset(c);
        return 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = malloc(MAX_CERT_FILE + 1);
    size_t n = buf != NULL ? fread(buf, 1, MAX_CERT_FILE + 1, f) : 0;
    fclose(f);
    if (buf == NULL || n == 0 || n > MAX_CERT_FILE) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static bool mtime_of(const char *path, struct timespec *t)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    *t = st.st_mtim;
    return true;
}

static bool ts_eq(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Timer on the service thread: reload the certificate pair when either file changed. */
static void check_certs(lws_sorted_usec_list_t *sul)
{
    httpd *h = lws_container_of(sul, httpd, sul);
    struct timespec cm, km;
    if (mtime_of(h->tls_cert, &cm) && mtime_of(h->tls_key, &km) &&
        (!ts_eq(&cm, &h->cert_mtime) || !ts_eq(&km, &h->key_mtime))) {
        size_t cl = 0, kl = 0;
        char *cert = read_file(h->tls_cert, &cl);
        char *key = read_file(h->tls_key, &kl);
        if (cert != NULL && key != NULL &&
            lws_tls_cert_updated(h->ctx, h->tls_cert, h->tls_key, cert, cl, key, kl) == 0) {
            h->cert_mtime = cm;
            h->key_mtime = km;
            atomic_fetch_add(&h->reloads, 1);
            fprintf(stderr, "httpd: reloaded TLS certificate %s\n", h->tls_cert);
        } else {
            /* Keep serving the previous pair; a half-written file is retried next tick. */
            fprintf(stderr,
                    "httpd: TLS certificate %s or key %s unreadable or invalid; keeping "
                    "the previous pair\n",
                    h->tls_cert, h->tls_key);
        }
        free(cert);
        free(key);
    }
    lws_sul_schedule(h->ctx, 0, &h->sul, check_certs, h->reload_us);
}

static void *serve(void *arg)
{
    httpd *h = arg;
    while (!atomic_load(&h->stop))
        if (lws_service(h->ctx, 0) < 0)
            break;
    return NULL;
}

static void free_routes(httpd *h)
{
    for (size_t i = 0; i < h->n_routes; i++) {
        free((char *)h->routes[i].method);
        free((char *)h->routes[i].path);
    }
    free(h->routes);
}

void httpd_stop(httpd *h)
{
    if (h == NULL)
        return;
    if (h->thread_started) {
        atomic_store(&h->stop, true);
        lws_cancel_service(h->ctx);
        pthread_join(h->thread, NULL);
    }
    if (h->ctx != NULL)
        lws_context_destroy(h->ctx);
    free_routes(h);
    free(h->tls_cert);
    free(h->tls_key);
    free(h);
}

int httpd_port(const httpd *h)
{
    return h != NULL && h->vh != NULL ? lws_get_vhost_listen_port(h->vh) : -1;
}

unsigned long httpd_tls_reloads(const httpd *h)
{
    return h != NULL ? atomic_load(&h->reloads) : 0;
}

static int copy_routes(httpd *h, const httpd_opts *o, ds_err *err)
{
    h->routes = calloc(o->n_routes ? o->n_routes : 1, sizeof *h->routes);
    if (h->routes == NULL)
        return ds_err_set(err, "httpd: out of memory");
    for (size_t i = 0; i < o->n_routes; i++) {
        const httpd_route *r = &o->routes[i];
        if (r->method == NULL || r->path == NULL || r->fn == NULL || r->path[0] != '/')
            return ds_err_set(err, "httpd: route %zu is incomplete", i);
        h->routes[i] = *r;
        h->routes[i].method = strdup(r->method);
        h->routes[i].path = strdup(r->path);
        h->n_routes = i + 1;
        if (h->routes[i].method == NULL || h->routes[i].path == NULL)
            return ds_err_set(err, "httpd: out of memory");
    }
    return 0;
}

static void register_metrics(httpd *h, const httpd_opts *o)
{
    if (o->metrics == NULL)
        return;
    const char *prefix = o->metrics_prefix != NULL ? o->metrics_prefix : "dagsched_http";
    char name[128];
    const char *rl[] = {"path", "code"};
    snprintf(name, sizeof name, "%s_http_requests_total", prefix);
    h->m_requests =
        metrics_family_new(o->metrics, METRICS_COUNTER, name,
                           "HTTP requests served, by path and status code.", rl, 2, NULL, 0);
    const char *ll[] = {"path"};
    snprintf(name, sizeof name, "%s_http_request_duration_seconds", prefix);
    h->m_latency = metrics_family_new(o->metrics, METRICS_HISTOGRAM, name,
                                      "Time from request start to the last byte of the response.",
                                      ll, 1, metrics_latency_buckets, metrics_latency_buckets_n);
}

int httpd_start(const httpd_opts *o, httpd **out, ds_err *err)
{
    *out = NULL;
    if (o == NULL || o->port < 0 || o->port > 65535)
        return ds_err_set(err, "httpd: invalid port");
    if ((o->tls_cert == NULL) != (o->tls_key == NULL))
        return ds_err_set(err, "httpd: --tls-cert and --tls-key must be given together");
    httpd *h = calloc(1, sizeof *h);
    if (h == NULL)
        return ds_err_set(err, "httpd: out of memory");
    atomic_init(&h->stop, false);
    atomic_init(&h->reloads, 0);
    h->max_body = o->max_body ? o->max_body : 4 * 1024 * 1024;
    if (copy_routes(h, o, err) != 0) {
        httpd_stop(h);
        return -1;
    }
    register_metrics(h, o);
    if (o->tls_cert != NULL) {
        h->tls_cert = strdup(o->tls_cert);
        h->tls_key = strdup(o->tls_key);
        if (h->tls_cert == NULL || h->tls_key == NULL) {
            httpd_stop(h);
            return ds_err_set(err, "httpd: out of memory");
        }
        size_t n;
        char *probe = read_file(o->tls_cert, &n);
        if (probe == NULL) {
            httpd_stop(h);
            return ds_err_set(err, "httpd: cannot read TLS certificate %s", o->tls_cert);
        }
        free(probe);
        if ((probe = read_file(o->tls_key, &n)) == NULL) {
            httpd_stop(h);
            return ds_err_set(err, "httpd: cannot read TLS key %s", o->tls_key);
        }
        free(probe);
        mtime_of(h->tls_cert, &h->cert_mtime);
        mtime_of(h->tls_key, &h->key_mtime);
    }

    lws_set_log_level(0, NULL); /* failures are reported through ds_err and our own logs */
    h->protocols[0] = (struct lws_protocols){.name = "http",
                                             .callback = callback,
                                             .per_session_data_size = sizeof(conn),
                                             .rx_buffer_size = CHUNK};

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS | LWS_SERVER_OPTION_DISABLE_IPV6 |
                   (h->tls_cert != NULL ? LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT : 0);
    info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    info.pt_serv_buf_size = SERV_BUF;
    h->ctx = lws_create_context(&info);
    if (h->ctx == NULL) {
        httpd_stop(h);
        return ds_err_set(err, "httpd: cannot create the server context");
    }

    memset(&info, 0, sizeof info);
    info.port = o->port;
    info.iface = (o->host == NULL || strcmp(o->host, "0.0.0.0") == 0) ? NULL : o->host;
    info.protocols = h->protocols;
    info.vhost_name = "dagsched";
    info.user = h;
    info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
    if (h->tls_cert != NULL) {
        info.ssl_cert_filepath = h->tls_cert;
        info.ssl_private_key_filepath = h->tls_key;
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
    }
    h->vh = lws_create_vhost(h->ctx, &info);
    if (h->vh == NULL) {
        httpd_stop(h);
        return ds_err_set(err,
                          "httpd: cannot listen on %s:%d (address in use, bad address or "
                          "invalid certificate)",
                          o->host != NULL ? o->host : "0.0.0.0", o->port);
    }
    if (h->tls_cert != NULL) {
        double iv = o->tls_reload_interval_s > 0 ? o->tls_reload_interval_s : 5;
        h->reload_us = (lws_usec_t)(iv * LWS_US_PER_SEC);
        lws_sul_schedule(h->ctx, 0, &h->sul, check_certs, h->reload_us);
    }
    if (pthread_create(&h->thread, NULL, serve, h) != 0) {
        httpd_stop(h);
        return ds_err_set(err, "httpd: cannot start the server thread");
    }
    h->thread_started = true;
    *out = h;
    return 0;
}
