/* httpd.c: HTTP(S) server with exact-path routing, bounded bodies, per-request metrics and
 * certificate hot reload (see httpd.h). libwebsockets provides the event loop, the sockets and
 * TLS (its raw-socket role); the listening socket and its accept batches are httpd_listen.c's,
 * request framing is http1.c's, and connections are answered here. */
#include "httpd.h"
#include "readfile.h"

#include "bytebuf.h"
#include "clock.h"
#include "http1.h"
#include "httpd_listen.h"
#include "malloc_setup.h"

#include <libwebsockets.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

/* Response bytes written per writable callback: extender answers for thousands of nodes are a
 * few hundred KiB, so large chunks save event-loop round trips. */
#define CHUNK 65536
/* A request buffer of this size or more, once freed, makes the server give free heap memory back
 * to the system (rt_malloc_release) TRIM_DELAY_MS later, once for a burst of such frees: a client
 * that made the process buffer hundreds of MiB leaves no resident memory behind. */
#define TRIM_AFTER_BYTES (1u << 20)
#define TRIM_DELAY_MS    200
/* lws's per-thread buffer, into which it reads: one read of a connection is at most this. */
#define SERV_BUF      (128 * 1024)
#define MAX_CERT_FILE (1024 * 1024)

/* Defaults of httpd_opts: connections before their first request byte, at most, per server; and
 * the time a connection has for its TLS handshake, and again from then to its first byte. */
#define MAX_PENDING         128
#define HANDSHAKE_TIMEOUT_S 10
#define LISTEN_PROTOCOL     "dagsched-listen"
#define CONN_PROTOCOL       "dagsched-http1"

/* Connection timeouts, in seconds: an idle keep-alive connection; from the first byte of a request
 * to its last; without progress writing an answer; and, after an answer that closes the
 * connection, waiting for the client to close its side. */
#define IDLE_TIMEOUT_S    60
#define REQUEST_TIMEOUT_S 30
#define WRITE_TIMEOUT_S   30
#define LINGER_TIMEOUT_S  2

/* One connection. Requests are read into `in` and answered one at a time, in order: while an
 * answer is being written the connection is not read (lws rx flow control), so pipelined requests
 * wait in the socket, a half-closed client's end of stream is seen only after its answers, and the
 * buffer holds at most one request plus one read. */
typedef struct conn {
    ds_bytebuf in; /* received bytes not yet consumed, NUL-terminated; limit in_limit() */
    size_t scan;   /* http1_parse_head resume point */
    bool have_head;
    http1_head head;
    bool in_request;   /* some bytes of the next request have arrived; its deadline runs */
    bool continue_due; /* send 100 Continue */
    bool responding;   /* an answer is being written */
    bool close_after;  /* close once the answer is out */
    bool closing;      /* the answer is written; close once lws has sent it all */
    bool lingering;    /* write side shut; discard input until the client closes */
    char hdr[512];     /* status line and header fields of the answer */
    size_t hdr_len;
    httpd_response resp;
    size_t total, sent;    /* bytes of hdr + body to send, and sent */
    double t0;             /* rt_mono_now() at the first byte of the request */
    bool counted;          /* counted in the budget's connections */
    size_t held;           /* bytes of `in` counted in the budget's buffered bytes */
    httpd_pending pending; /* listed while no request byte has arrived yet */
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
    httpd_budget *budget;
    httpd_listener listener;
    int handshake_timeout_s;
    char *tls_cert, *tls_key;
    struct timespec cert_mtime, key_mtime;
    lws_sorted_usec_list_t sul;
    lws_sorted_usec_list_t trim_sul; /* a pending rt_malloc_release */
    bool trim_due;
    lws_usec_t reload_us;
    atomic_ulong reloads;
    metrics_family *m_requests;
    metrics_family *m_latency;
    metrics_family *m_refused;
    metrics_family *m_evicted;
    struct lws_protocols protocols[3];
};

void httpd_budget_init(httpd_budget *b, size_t max_conns, size_t max_buffered)
{
    b->max_conns = max_conns;
    b->max_buffered = max_buffered;
    atomic_init(&b->conns, 0);
    atomic_init(&b->buffered, 0);
}

size_t httpd_budget_conns(const httpd_budget *b)
{
    return b != NULL ? atomic_load(&((httpd_budget *)b)->conns) : 0;
}

size_t httpd_budget_buffered(const httpd_budget *b)
{
    return b != NULL ? atomic_load(&((httpd_budget *)b)->buffered) : 0;
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

static void trim_now(lws_sorted_usec_list_t *sul)
{
    httpd *h = lws_container_of(sul, httpd, trim_sul);
    h->trim_due = false;
    rt_malloc_release();
}

/* A large request buffer of c is about to be freed (or shrunk): plan a trim of the heap. */
static void plan_trim(httpd *h, const conn *c)
{
    if (h == NULL || c->in.cap < TRIM_AFTER_BYTES || h->trim_due)
        return;
    h->trim_due = true;
    lws_sul_schedule(h->ctx, 0, &h->trim_sul, trim_now, (lws_usec_t)TRIM_DELAY_MS * 1000);
}

/* Give the connection's buffered bytes (all of them, or n) back to the budget. */
static void unhold(httpd *h, conn *c, size_t n)
{
    if (n > c->held)
        n = c->held;
    c->held -= n;
    if (h != NULL && h->budget != NULL && n > 0)
        atomic_fetch_sub(&h->budget->buffered, n);
}

static void conn_free(httpd *h, conn *c)
{
    unhold(h, c, c->held);
    if (c->counted && h != NULL && h->budget != NULL)
        atomic_fetch_sub(&h->budget->conns, 1);
    plan_trim(h, c);
    ds_bytebuf_free(&c->in);
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

static void respond_error(httpd_response *resp, int status, const char *why)
{
    char body[160];
    snprintf(body, sizeof body, "{\"error\":\"%s\"}", why);
    httpd_respond(resp, status, "application/json", body);
}

/* Run the handler (or produce the error response) for a complete, well-framed request. */
static void dispatch(httpd *h, conn *c, const char *body, size_t body_len)
{
    memset(&c->resp, 0, sizeof c->resp);
    c->resp.status = 200;
    c->resp.content_type = "application/json";
    bool known;
    const httpd_route *r = find_route(h, c->head.method, c->head.path, &known);
    if (r == NULL) {
        respond_error(&c->resp, known ? 405 : 404, known ? "method not allowed" : "not found");
        return;
    }
    httpd_request req = {
        .method = c->head.method, .path = c->head.path, .body = body, .body_len = body_len};
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
        if (strcmp(h->routes[i].path, c->head.path) == 0)
            label = h->routes[i].path;
    char code[8];
    snprintf(code, sizeof code, "%d", c->resp.status);
    const char *rv[] = {label, code};
    metrics_add(h->m_requests, rv, 1);
    const char *lv[] = {label};
    metrics_observe(h->m_latency, lv, rt_mono_now() - c->t0);
}

/* The most bytes a connection buffers: one request of the largest allowed size plus one read.
 * The connection is read only while its buffer holds no complete request (advance), so this is
 * never exceeded, whatever the client pipelines. */
static size_t in_limit(const httpd *h)
{
    return 2 * HTTP1_MAX_LEADING_EMPTY_LINES + HTTPD_MAX_REQUEST_LINE + 2 + HTTPD_MAX_HEADER_BYTES +
           2 + h->max_body + SERV_BUF;
}

/* Drop the first n bytes of the input; free the buffer once it is empty, give most of a large
 * one back once it is mostly empty. */
static void consume_input(httpd *h, conn *c, size_t n)
{
    unhold(h, c, n);
    ds_bytebuf_consume(&c->in, n);
    if (c->in.len == 0 || (c->in.cap > 4 * CHUNK && c->in.len < CHUNK))
        plan_trim(h, c);
    if (c->in.len == 0)
        ds_bytebuf_shrink(&c->in, 0);
    else if (c->in.cap > 4 * CHUNK && c->in.len < CHUNK)
        ds_bytebuf_shrink(&c->in, 2 * CHUNK);
}

static void start_request_clock(struct lws *wsi, conn *c)
{
    c->in_request = true;
    c->t0 = rt_mono_now();
    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, REQUEST_TIMEOUT_S);
}

/* Begin writing c->resp; the connection is not read until it is out. */
static void start_response(struct lws *wsi, conn *c, bool close_after, bool head_only)
{
    c->close_after = close_after;
    c->continue_due = false;
    c->responding = true;
    c->sent = 0;
    int n = snprintf(c->hdr, sizeof c->hdr,
                     "HTTP/1.1 %d %s\r\nContent-Type: %.200s\r\nContent-Length: %zu\r\n%s\r\n",
                     c->resp.status, http1_reason(c->resp.status), c->resp.content_type,
                     c->resp.body_len,
                     close_after      ? "Connection: close\r\n"
                     : c->head.http10 ? "Connection: keep-alive\r\n"
                                      : "");
    c->hdr_len = n > 0 && (size_t)n < sizeof c->hdr ? (size_t)n : 0;
    c->total = c->hdr_len + (head_only ? 0 : c->resp.body_len);
    lws_rx_flow_control(wsi, 0);
    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, WRITE_TIMEOUT_S);
    lws_callback_on_writable(wsi);
}

/* A request that cannot be framed: answer and close, since where the next one starts is unknown. */
static void reject(httpd *h, struct lws *wsi, conn *c, int status, const char *why)
{
    memset(&c->resp, 0, sizeof c->resp);
    respond_error(&c->resp, status, why);
    consume_input(h, c, c->in.len);
    start_response(wsi, c, true, false);
}

/* Refused for the process's budget: 503 and close, counted by reason. */
static void refuse(httpd *h, struct lws *wsi, conn *c, const char *reason, const char *why)
{
    if (h->m_refused != NULL) {
        const char *lv[] = {reason};
        metrics_add(h->m_refused, lv, 1);
    }
    c->t0 = rt_mono_now();
    snprintf(c->head.path, sizeof c->head.path, "%s", "-");
    reject(h, wsi, c, 503, why);
}

/* Answer the complete request at the start of the input. */
static void run_request(httpd *h, struct lws *wsi, conn *c)
{
    size_t end = c->head.head_len + c->head.content_length;
    char saved = c->in.data[end]; /* the body is handed over NUL-terminated, in place */
    c->in.data[end] = '\0';
    dispatch(h, c, c->in.data + c->head.head_len, c->head.content_length);
    c->in.data[end] = saved;
    consume_input(h, c, end);
    start_response(wsi, c, !c->head.keep_alive, strcmp(c->head.method, "HEAD") == 0);
}

/* Make progress on the buffered input: parse, answer a complete request, or wait for more. */
static void advance(httpd *h, struct lws *wsi, conn *c)
{
    if (c->responding || c->closing || c->lingering)
        return;
    if (!c->have_head && c->in.len > 0) {
        http1_result r = http1_parse_head(c->in.data, c->in.len, h->max_body, &c->scan, &c->head);
        if (r == HTTP1_ERROR) {
            reject(h, wsi, c, c->head.error_status, c->head.error);
            return;
        }
        if (r == HTTP1_OK) {
            c->have_head = true;
            if (c->head.expect_continue && c->in.len - c->head.head_len < c->head.content_length) {
                c->continue_due = true;
                lws_callback_on_writable(wsi);
            }
        }
    }
    if (c->have_head && c->in.len - c->head.head_len >= c->head.content_length) {
        run_request(h, wsi, c);
        return;
    }
    lws_rx_flow_control(wsi, 1);
}

static int on_rx(httpd *h, struct lws *wsi, conn *c, const void *in, size_t len)
{
    if (c->lingering)
        return 0; /* the answer is out; the rest is discarded */
    if (c->responding || c->closing)
        return 0; /* a refused connection's input, while its 503 goes out */
    if (!c->in_request)
        start_request_clock(wsi, c);
    httpd_budget *b = h->budget;
    if (b != NULL && b->max_buffered > 0 &&
        atomic_fetch_add(&b->buffered, len) + len > b->max_buffered) {
        atomic_fetch_sub(&b->buffered, len);
        refuse(h, wsi, c, "buffered_bytes",
               "server busy: the request bytes this process buffers are at their limit; retry");
        return 0;
    }
    if (b != NULL && b->max_buffered == 0)
        atomic_fetch_add(&b->buffered, len);
    c->held += b != NULL ? len : 0;
    if (ds_bytebuf_append(&c->in, in, len) != 0)
        return -1;
    advance(h, wsi, c);
    return 0;
}

/* The answer has been handed to lws: next request, or close. */
static void finish_response(httpd *h, struct lws *wsi, conn *c)
{
    free(c->resp.body);
    memset(&c->resp, 0, sizeof c->resp);
    c->responding = false;
    c->have_head = false;
    c->scan = 0;
    c->in_request = false;
    if (c->close_after) {
        /* Written, perhaps not yet sent: lws calls back once its buffer is drained. */
        c->closing = true;
        lws_callback_on_writable(wsi);
        return;
    }
    if (c->in.len > 0)
        start_request_clock(wsi, c);
    else
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, IDLE_TIMEOUT_S);
    advance(h, wsi, c);
}

/* Shut the write side and read until the client closes (bounded by a timeout), so that bytes it
 * sent after the request do not turn the close into a reset that could destroy the answer. */
static int linger(struct lws *wsi, conn *c)
{
    c->closing = false;
    c->lingering = true;
    consume_input(lws_vhost_user(lws_get_vhost(wsi)), c, c->in.len);
    if (lws_is_ssl(wsi))
        return -1; /* lws closes the TLS session itself */
    int fd = (int)lws_get_socket_fd(wsi);
    if (fd < 0 || shutdown(fd, SHUT_WR) != 0)
        return -1;
    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LINGER_TIMEOUT_S);
    lws_rx_flow_control(wsi, 1);
    return 0;
}

static int write_continue(struct lws *wsi)
{
    static const char msg[] = "HTTP/1.1 100 Continue\r\n\r\n";
    unsigned char buf[LWS_PRE + sizeof msg];
    memcpy(buf + LWS_PRE, msg, sizeof msg - 1);
    return lws_write(wsi, buf + LWS_PRE, sizeof msg - 1, LWS_WRITE_RAW) < (int)sizeof msg - 1 ? -1
                                                                                              : 0;
}

/* Write the next chunk of the answer (status line and header fields, then the body). */
static int on_writeable(httpd *h, struct lws *wsi, conn *c)
{
    if (c->lingering)
        return 0;
    if (c->closing)
        return linger(wsi, c);
    if (!c->responding) {
        if (!c->continue_due)
            return 0;
        c->continue_due = false;
        return write_continue(wsi);
    }
    unsigned char buf[LWS_PRE + CHUNK];
    unsigned char *start = buf + LWS_PRE;
    size_t n = 0;
    while (n < CHUNK && c->sent + n < c->total) {
        size_t at = c->sent + n;
        if (at < c->hdr_len) {
            size_t k = c->hdr_len - at < CHUNK - n ? c->hdr_len - at : CHUNK - n;
            memcpy(start + n, c->hdr + at, k);
            n += k;
        } else {
            size_t off = at - c->hdr_len, left = c->total - at;
            size_t k = left < CHUNK - n ? left : CHUNK - n;
            memcpy(start + n, c->resp.body + off, k);
            n += k;
        }
    }
    bool final = c->sent + n == c->total;
    if (final)
        record(h, c); /* before the last byte leaves, so readers see it counted */
    if (lws_write(wsi, start, n, LWS_WRITE_RAW) < (int)n)
        return -1;
    c->sent += n;
    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, WRITE_TIMEOUT_S);
    if (final)
        finish_response(h, wsi, c);
    else
        lws_callback_on_writable(wsi);
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    conn *c = user;
    struct lws_vhost *vh = lws_get_vhost(wsi);
    httpd *h = vh != NULL ? lws_vhost_user(vh) : NULL;

    switch (reason) {
    case LWS_CALLBACK_RAW_ADOPT:
        if (h == NULL || c == NULL)
            return -1;
        memset(c, 0, sizeof *c);
        ds_bytebuf_init(&c->in, in_limit(h));
        /* The TLS handshake (lws gives the time after it, to the first byte, the same bound
         * through the context's timeout_secs), or for plain HTTP the wait for the first byte. */
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, h->handshake_timeout_s);
        if (h->budget != NULL) {
            c->counted = true;
            if (atomic_fetch_add(&h->budget->conns, 1) + 1 > h->budget->max_conns &&
                h->budget->max_conns > 0) {
                refuse(h, wsi, c, "connections",
                       "server busy: this process has as many connections open as it accepts; "
                       "retry");
                /* Its 503 goes out once its handshake is done: it has no longer than others. */
                lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, h->handshake_timeout_s);
                return 0;
            }
        }
        if (httpd_listen_pending_add(&h->listener, &c->pending, wsi) && h->m_evicted != NULL)
            metrics_add(h->m_evicted, NULL, 1);
        return 0;
    case LWS_CALLBACK_RAW_RX:
        if (h == NULL || c == NULL)
            return -1;
        httpd_listen_pending_remove(&h->listener, &c->pending);
        return on_rx(h, wsi, c, in, len);
    case LWS_CALLBACK_RAW_WRITEABLE:
        if (h == NULL || c == NULL)
            return -1;
        return on_writeable(h, wsi, c);
    case LWS_CALLBACK_RAW_CLOSE:
        if (c != NULL && h != NULL)
            httpd_listen_pending_remove(&h->listener, &c->pending);
        if (c != NULL)
            conn_free(h, c);
        return 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* The listening socket (a raw descriptor to lws): accept a batch of connections when readable. */
static int listen_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                           size_t len)
{
    struct lws_vhost *vh = lws_get_vhost(wsi);
    httpd *h = vh != NULL ? lws_vhost_user(vh) : NULL;
    switch (reason) {
    case LWS_CALLBACK_RAW_RX_FILE:
        if (h != NULL)
            httpd_listen_accept(&h->listener, h->vh, h->tls_cert != NULL, CONN_PROTOCOL);
        return 0;
    case LWS_CALLBACK_RAW_CLOSE_FILE:
        if (h != NULL && h->listener.wsi == wsi)
            h->listener.wsi = NULL;
        return 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* A certificate or key file: NULL when unreadable, empty or over MAX_CERT_FILE. */
static char *read_file(const char *path, size_t *len)
{
    char *buf = NULL;
    if (rt_read_file(path, MAX_CERT_FILE, &buf, len, NULL) != 0)
        return NULL;
    if (*len == 0) {
        free(buf);
        return NULL;
    }
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
    httpd_listen_close(&h->listener);
    free_routes(h);
    free(h->tls_cert);
    free(h->tls_key);
    free(h);
}

int httpd_port(const httpd *h)
{
    return h != NULL && h->vh != NULL ? h->listener.port : -1;
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
    const char *fl[] = {"reason"};
    snprintf(name, sizeof name, "%s_http_refused_total", prefix);
    h->m_refused = metrics_family_new(
        o->metrics, METRICS_COUNTER, name,
        "Connections and requests answered 503 for the process's limits (reason: connections, "
        "buffered_bytes).",
        fl, 1, NULL, 0);
    snprintf(name, sizeof name, "%s_http_evicted_total", prefix);
    h->m_evicted = metrics_family_new(
        o->metrics, METRICS_COUNTER, name,
        "Connections closed before their first request byte (in their TLS handshake, or silent) "
        "to make room for newer ones.",
        NULL, 0, NULL, 0);
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
    h->budget = o->budget;
    h->listener.fd = -1;
    h->handshake_timeout_s =
        o->handshake_timeout_s > 0 ? o->handshake_timeout_s : HANDSHAKE_TIMEOUT_S;
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
    /* lws carries bytes (and TLS); HTTP framing is ours (http1.c): accepted sockets are bound to
     * the raw-socket role with this protocol. */
    h->protocols[0] = (struct lws_protocols){.name = CONN_PROTOCOL,
                                             .callback = callback,
                                             .per_session_data_size = sizeof(conn),
                                             .rx_buffer_size = CHUNK};
    h->protocols[1] = (struct lws_protocols){.name = LISTEN_PROTOCOL, .callback = listen_callback};
    if (httpd_listen_open(&h->listener, o->host, o->port,
                          o->max_pending > 0 ? o->max_pending : MAX_PENDING, err) != 0) {
        httpd_stop(h);
        return -1;
    }

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS | LWS_SERVER_OPTION_DISABLE_IPV6 |
                   (h->tls_cert != NULL ? LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT : 0);
    info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    info.pt_serv_buf_size = SERV_BUF;
    info.timeout_secs = (unsigned int)h->handshake_timeout_s;
    h->ctx = lws_create_context(&info);
    if (h->ctx == NULL) {
        httpd_stop(h);
        return ds_err_set(err, "httpd: cannot create the server context");
    }

    /* No lws listener: the listening socket is ours (httpd_listen.c), adopted below. The vhost
     * only serves: ADOPT_APPLY_LISTEN_ACCEPT_CONFIG also keeps lws from making it a client TLS
     * context (the system's CA bundle, otherwise left allocated at exit). */
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    info.protocols = h->protocols;
    info.vhost_name = "dagsched";
    info.user = h;
    info.options =
        LWS_SERVER_OPTION_DISABLE_IPV6 | LWS_SERVER_OPTION_ADOPT_APPLY_LISTEN_ACCEPT_CONFIG;
    if (h->tls_cert != NULL) {
        info.ssl_cert_filepath = h->tls_cert;
        info.ssl_private_key_filepath = h->tls_key;
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        /* Advertise only HTTP/1.1 in TLS ALPN: lws would otherwise offer h2, and a client that
         * takes it (Go's HTTP/2 transport in the API server calling the admission webhook, curl)
         * would be handed to lws's own HTTP/2 role, which knows none of our routes (404). */
        info.alpn = "http/1.1";
    }
    h->vh = lws_create_vhost(h->ctx, &info);
    if (h->vh == NULL) {
        httpd_stop(h);
        return ds_err_set(err, "httpd: cannot serve on %s:%d (invalid certificate or key)",
                          o->host != NULL ? o->host : "0.0.0.0", o->port);
    }
    if (httpd_listen_adopt(&h->listener, h->vh, LISTEN_PROTOCOL, err) != 0) {
        httpd_stop(h);
        return -1;
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
