/* httpd.h: the HTTP(S) server both binaries use (extender verbs, /healthz, /readyz, /metrics):
 * HTTP/1.1 with keep-alive, on libwebsockets' event loop, sockets and TLS, with our own request
 * framing (http1.h).
 *
 * Requests are dispatched by exact method + path to handlers that receive the whole body (bounded
 * by max_body: larger requests get 413 and the connection is closed). Each connection is answered
 * one request at a time, in order: pipelined requests are answered in turn, and a client that
 * half-closes after its requests still gets its answers. A request that cannot be framed
 * (malformed request line or header field, malformed, duplicate or conflicting Content-Length,
 * Transfer-Encoding, limits below) gets its error status and the connection is closed. Handlers run
 * on the server's own service thread, one at a time, and fill in a response whose body the server
 * frees. With a certificate and key the server speaks HTTPS only and reloads both files when they
 * change on disk (checked every few seconds), without dropping the listener. Every request is
 * counted in the registry given (requests by path and code, latency histogram by path).
 *
 * Accepting is bounded so that no crowd of connecting clients can starve the others: at most a
 * few connections are accepted between two rounds of serving the established ones, connections
 * before their first request byte are bounded in number (the oldest is closed for a newer one)
 * and in time (handshake_timeout_s for the TLS handshake, and again for the first byte). */
#ifndef DAGSCHED_HTTPD_H
#define DAGSCHED_HTTPD_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"
#include "metrics.h"

#define HTTPD_MAX_PATH          256   /* longer paths get 414 */
#define HTTPD_MAX_REQUEST_LINE  8192  /* method, request target and version; longer gets 414 */
#define HTTPD_MAX_HEADER_BYTES  16384 /* all header fields together; more gets 431 */
#define HTTPD_MAX_HEADER_FIELDS 100   /* header field lines; more gets 431 */

typedef struct httpd_request {
    const char *method; /* "GET", "POST" */
    const char *path;   /* without the query string */
    const char *body;   /* NUL-terminated copy of the body ("" for none) */
    size_t body_len;
} httpd_request;

typedef struct httpd_response {
    int status;               /* default 200 */
    const char *content_type; /* static string; default "application/json" */
    char *body;               /* malloc'd by the handler; freed by the server */
    size_t body_len;
} httpd_response;

typedef void (*httpd_handler)(void *ctx, const httpd_request *req, httpd_response *resp);

typedef struct httpd_route {
    const char *method;
    const char *path;
    httpd_handler fn;
    void *ctx;
} httpd_route;

/* What every server of a process may hold at once, shared by them (one per process): the
 * connections open and the request bytes received and not yet answered. A connection past
 * max_conns is answered 503 ("too many connections") and closed; a request whose bytes would take
 * the buffered total past max_buffered is answered 503 ("server busy") and its connection closed.
 * Request buffers grow by doubling, so the memory they take is at most twice max_buffered. Init
 * with httpd_budget_init; its counters are atomic (every server's thread updates them). */
typedef struct httpd_budget {
    size_t max_conns;    /* 0: no limit */
    size_t max_buffered; /* bytes; 0: no limit */
    _Atomic size_t conns, buffered;
} httpd_budget;

void httpd_budget_init(httpd_budget *b, size_t max_conns, size_t max_buffered);

/* Connections open and request bytes buffered now (for tests and logs). */
size_t httpd_budget_conns(const httpd_budget *b);
size_t httpd_budget_buffered(const httpd_budget *b);

typedef struct httpd_opts {
    const char *host;     /* address to bind, e.g. "127.0.0.1" or "0.0.0.0" */
    int port;             /* 0 picks a free port (see httpd_port) */
    const char *tls_cert; /* PEM paths; both or neither */
    const char *tls_key;
    size_t max_body;      /* bytes; requests above get 413 */
    httpd_budget *budget; /* the process's shared limits (outlives the server); NULL: none */
    const httpd_route *routes;
    size_t n_routes;
    metrics_registry *metrics;    /* may be NULL */
    const char *metrics_prefix;   /* e.g. "dagsched_extender" */
    double tls_reload_interval_s; /* default 5 */
    /* Connections accepted and not yet past their first request byte (in the TLS handshake, or
     * silent), at most (default 128): one accepted beyond closes the oldest of them. */
    size_t max_pending;
    /* Seconds a connection has for its TLS handshake, and again from then to its first request
     * byte (default 10); after that it is closed. */
    int handshake_timeout_s;
} httpd_opts;

typedef struct httpd httpd;

/* Start listening and serving on a background thread. 0 on success; -1 with err set (bad options,
 * address in use, unreadable certificate...). Routes are copied. */
int httpd_start(const httpd_opts *opts, httpd **out, ds_err *err);

/* The port actually bound. */
int httpd_port(const httpd *h);

/* Number of certificate reloads done so far (for logs and tests). */
unsigned long httpd_tls_reloads(const httpd *h);

/* Stop serving, close connections, free everything. Safe with NULL. */
void httpd_stop(httpd *h);

/* Convenience for handlers: set a response body copied from a string. Returns -1 on allocation
 * failure (the response then becomes a 500 with no body). */
int httpd_respond(httpd_response *resp, int status, const char *content_type, const char *body);

/* Handlers both binaries route: GET /healthz (200 "ok" while the process serves; ctx unused) and
 * GET /metrics (the registry given as ctx, in the Prometheus text format). */
void httpd_handle_healthz(void *ctx, const httpd_request *req, httpd_response *resp);
void httpd_handle_metrics(void *registry, const httpd_request *req, httpd_response *resp);

/* The answer of a /readyz handler: 200 "ok" when ready, else 503 with why_not. */
void httpd_respond_ready(httpd_response *resp, bool ready, const char *why_not);

#endif
