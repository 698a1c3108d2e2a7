/* httpd_listen.h: the listening socket of one HTTP server (httpd.c) and the connections it has
 * accepted that have not yet sent a request byte (TLS handshake, then the wait for the first byte).
 *
 * The server accepts by itself rather than through libwebsockets' listener, whose accept loop runs
 * as long as connections are waiting and does each TLS connection's first handshake step inline:
 * under a flood of connections it never returned to serve the established ones. Here each readable
 * event of the listening socket accepts at most HTTPD_ACCEPT_BATCH connections, then the event loop
 * serves every other connection before the next batch. At most max_pending connections may be
 * before their first request byte at once; a connection accepted beyond that closes the oldest of
 * them, so that clients that connect and send nothing (or stop mid-handshake) cannot keep new
 * clients out. Everything here runs on the server's service thread; one httpd_listener per server,
 * owned by it. */
#ifndef DAGSCHED_HTTPD_LISTEN_H
#define DAGSCHED_HTTPD_LISTEN_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"

#define HTTPD_ACCEPT_BATCH 8 /* connections accepted per readable event of the listening socket */

struct lws;
struct lws_vhost;

/* A connection before its first request byte; embedded in the connection's state. */
typedef struct httpd_pending {
    struct httpd_pending *prev, *next;
    struct lws *wsi;
    bool listed;
} httpd_pending;

typedef struct httpd_listener {
    int fd;             /* the listening socket; -1 once libwebsockets owns it (or none) */
    int port;           /* the port bound */
    struct lws *wsi;    /* the listening socket in the event loop */
    size_t max_pending; /* connections before their first request byte, at most */
    size_t n_pending;
    httpd_pending head;    /* sentinel: head.next is the oldest */
    unsigned long evicted; /* connections closed to make room for newer ones */
} httpd_listener;

/* Bind and listen on host:port (NULL or "0.0.0.0": every address; port 0: a free one). 0, or -1
 * with err set. */
int httpd_listen_open(httpd_listener *l, const char *host, int port, size_t max_pending,
                      ds_err *err);

/* Hand the listening socket to the event loop of vh, bound to the protocol named listen_protocol
 * (whose callback calls httpd_listen_accept on LWS_CALLBACK_RAW_RX_FILE). 0, or -1 with err set. */
int httpd_listen_adopt(httpd_listener *l, struct lws_vhost *vh, const char *listen_protocol,
                       ds_err *err);

/* Accept up to HTTPD_ACCEPT_BATCH waiting connections and adopt each into vh with conn_protocol
 * (over TLS when tls). Returns the number accepted. */
int httpd_listen_accept(httpd_listener *l, struct lws_vhost *vh, bool tls,
                        const char *conn_protocol);

/* A connection is accepted (p embedded in its state): list it as before its first request byte,
 * and close the oldest listed one when there are more than max_pending. Returns true when one was
 * closed. */
bool httpd_listen_pending_add(httpd_listener *l, httpd_pending *p, struct lws *wsi);

/* The connection sent its first request byte, or is closing: unlist it (no-op when not listed). */
void httpd_listen_pending_remove(httpd_listener *l, httpd_pending *p);

/* Close the listening socket if the event loop does not own it yet. */
void httpd_listen_close(httpd_listener *l);

#endif
