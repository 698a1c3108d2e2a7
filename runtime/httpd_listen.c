/* httpd_listen.c: the HTTP server's own listening socket, accepted in bounded batches, and the
 * bounded list of connections before their first request byte (see httpd_listen.h). */
#define _GNU_SOURCE /* accept4 */
#include "httpd_listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libwebsockets.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The kernel's queue of connections not yet accepted (capped by net.core.somaxconn): while the
 * server serves its other connections between two batches, new ones wait there. */
#define LISTEN_BACKLOG 1024

int httpd_listen_open(httpd_listener *l, const char *host, int port, size_t max_pending,
                      ds_err *err)
{
    memset(l, 0, sizeof *l);
    l->fd = -1;
    l->max_pending = max_pending;
    l->head.next = l->head.prev = &l->head;
    const char *h = host == NULL ? "0.0.0.0" : host;
    struct addrinfo hints = {
        .ai_family = AF_INET, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int g = getaddrinfo(h, ps, &hints, &ai);
    if (g != 0 || ai == NULL || ai->ai_addrlen > sizeof(struct sockaddr_in)) {
        if (ai != NULL)
            freeaddrinfo(ai);
        return ds_err_set(err, "httpd: cannot listen on %s:%d (%s)", h, port,
                          g != 0 ? gai_strerror(g) : "no IPv4 address");
    }
    struct sockaddr_in sa = {0};
    memcpy(&sa, ai->ai_addr, ai->ai_addrlen);
    freeaddrinfo(ai);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return ds_err_set(err, "httpd: socket: %s", strerror(errno));
    int one = 1;
    socklen_t len = sizeof sa;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, LISTEN_BACKLOG) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        int e = errno;
        close(fd);
        return ds_err_set(err, "httpd: cannot listen on %s:%d: %s", h, port, strerror(e));
    }
    l->fd = fd;
    l->port = ntohs(sa.sin_port);
    return 0;
}

int httpd_listen_adopt(httpd_listener *l, struct lws_vhost *vh, const char *listen_protocol,
                       ds_err *err)
{
    lws_sock_file_fd_type d = {.filefd = l->fd};
    l->wsi = lws_adopt_descriptor_vhost(vh, LWS_ADOPT_RAW_FILE_DESC, d, listen_protocol, NULL);
    if (l->wsi == NULL)
        /* Whether libwebsockets already holds the descriptor is not known here: it is left open
         * (the server fails to start). */
        return ds_err_set(err, "httpd: cannot add the listening socket to the event loop");
    l->fd = -1; /* closed by libwebsockets with the context */
    return 0;
}

int httpd_listen_accept(httpd_listener *l, struct lws_vhost *vh, bool tls,
                        const char *conn_protocol)
{
    int fd = l->wsi != NULL ? (int)lws_get_socket_fd(l->wsi) : -1;
    int n = 0;
    for (int i = 0; fd >= 0 && i < HTTPD_ACCEPT_BATCH; i++) {
        int c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue; /* counted in the batch all the same */
            break;        /* EAGAIN: none waiting; EMFILE and the like: retried at the next event */
        }
        n++;
        int one = 1;
        if (setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
            close(c);
            continue;
        }
        lws_sock_file_fd_type d = {.sockfd = c};
        /* On failure libwebsockets closes the socket itself. */
        (void)lws_adopt_descriptor_vhost(vh, LWS_ADOPT_SOCKET | (tls ? LWS_ADOPT_ALLOW_SSL : 0), d,
                                         conn_protocol, NULL);
    }
    return n;
}

bool httpd_listen_pending_add(httpd_listener *l, httpd_pending *p, struct lws *wsi)
{
    p->wsi = wsi;
    p->listed = true;
    p->prev = l->head.prev;
    p->next = &l->head;
    l->head.prev->next = p;
    l->head.prev = p;
    l->n_pending++;
    if (l->max_pending == 0 || l->n_pending <= l->max_pending)
        return false;
    httpd_pending *oldest = l->head.next;
    httpd_listen_pending_remove(l, oldest);
    lws_set_timeout(oldest->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
    l->evicted++;
    return true;
}

void httpd_listen_pending_remove(httpd_listener *l, httpd_pending *p)
{
    if (!p->listed)
        return;
    p->prev->next = p->next;
    p->next->prev = p->prev;
    p->prev = p->next = NULL;
    p->listed = false;
    l->n_pending--;
}

void httpd_listen_close(httpd_listener *l)
{
    if (l->fd >= 0)
        close(l->fd);
    l->fd = -1;
}
