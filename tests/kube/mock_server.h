/* mock_server.h: a scripted HTTP/1.1 server on 127.0.0.1 for the request-layer tests. It answers
 * each request with the next scripted reply (keep-alive, Content-Length or chunked bodies, or a
 * dropped connection) and records what it received and how many connections it accepted. */
#ifndef DAGSCHED_KUBE_MOCK_SERVER_H
#define DAGSCHED_KUBE_MOCK_SERVER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MOCK_MAX 32

typedef struct mock_reply {
    int status;             /* 0: close the connection without answering */
    const char *headers;    /* extra header lines, each ending in \r\n, or NULL */
    const char *body;       /* body (Content-Length), or NULL */
    const char *chunks[16]; /* chunked body pieces sent 10 ms apart (used when body is NULL) */
    bool close_after;
} mock_reply;

typedef struct mock_request {
    char method[16];
    char path[512];
    char auth[256];
    char content_type[128];
    char body[2048];
} mock_request;

/* Optional dynamic handler: fills *rep (body written into body_buf) for a request; called under
 * the server lock. When set, scripted replies are not used. */
typedef void (*mock_handler)(void *ud, const mock_request *req, mock_reply *rep, char *body_buf,
                             size_t body_size);

typedef struct mock_server {
    mock_handler handler;
    void *handler_ud;
    int listen_fd;
    int port;
    pthread_t thread;
    pthread_mutex_t lock;
    mock_reply replies[MOCK_MAX];
    int n_replies;
    int next;
    int connections;
    mock_request requests[MOCK_MAX];
    int n_requests;
    atomic_bool stop;
    pthread_t conn_threads[64];
    int n_conn_threads;
} mock_server;

typedef struct mock_conn {
    mock_server *m;
    int fd;
} mock_conn;

static inline int mock_write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static inline void mock_header(const char *req, const char *name, char *out, size_t size)
{
    out[0] = '\0';
    size_t nl = strlen(name);
    for (const char *p = strstr(req, "\r\n"); p != NULL && p[2] != '\r';
         p = strstr(p + 2, "\r\n")) {
        if (strncasecmp(p + 2, name, nl) == 0 && p[2 + nl] == ':') {
            const char *v = p + 3 + nl;
            while (*v == ' ')
                v++;
            size_t l = strcspn(v, "\r");
            if (l >= size)
                l = size - 1;
            memcpy(out, v, l);
            out[l] = '\0';
            return;
        }
    }
}

/* Serve one connection until the peer closes it or a reply asks to close. */
static inline void mock_serve(mock_server *m, int fd)
{
    char buf[65536];
    size_t len = 0;
    for (;;) {
        char *end;
        for (;;) {
            buf[len] = '\0';
            if ((end = strstr(buf, "\r\n\r\n")) != NULL)
                break;
            struct pollfd pfd = {.fd = fd, .events = POLLIN};
            if (atomic_load(&m->stop))
                return;
            if (poll(&pfd, 1, 100) <= 0)
                continue;
            if (len >= sizeof buf - 1)
                return;
            ssize_t r = recv(fd, buf + len, sizeof buf - 1 - len, 0);
            if (r <= 0)
                return;
            len += (size_t)r;
        }
        size_t hlen = (size_t)(end - buf) + 4;
        buf[len] = '\0';
        char cl[32];
        char save = buf[hlen];
        buf[hlen] = '\0';
        mock_header(buf, "Content-Length", cl, sizeof cl);
        buf[hlen] = save;
        size_t blen = cl[0] ? (size_t)strtoul(cl, NULL, 10) : 0;
        while (len < hlen + blen) {
            ssize_t r = recv(fd, buf + len, sizeof buf - 1 - len, 0);
            if (r <= 0)
                return;
            len += (size_t)r;
        }
        buf[len] = '\0';
        mock_request q;
        memset(&q, 0, sizeof q);
        sscanf(buf, "%15s %511s", q.method, q.path);
        save = buf[hlen];
        buf[hlen] = '\0';
        mock_header(buf, "Authorization", q.auth, sizeof q.auth);
        mock_header(buf, "Content-Type", q.content_type, sizeof q.content_type);
        buf[hlen] = save;
        size_t bl = blen < sizeof q.body - 1 ? blen : sizeof q.body - 1;
        memcpy(q.body, buf + hlen, bl);
        q.body[bl] = '\0';
        char dyn_body[8192];
        pthread_mutex_lock(&m->lock);
        mock_reply rep = {.status = 500, .body = "no more scripted replies"};
        if (m->handler != NULL)
            m->handler(m->handler_ud, &q, &rep, dyn_body, sizeof dyn_body);
        else if (m->next < m->n_replies)
            rep = m->replies[m->next];
        m->next++;
        if (m->n_requests < MOCK_MAX)
            m->requests[m->n_requests++] = q;
        pthread_mutex_unlock(&m->lock);
        memmove(buf, buf + hlen + blen, len - hlen - blen);
        len -= hlen + blen;
        if (rep.status == 0)
            return;
        char head[1024];
        if (rep.body != NULL) {
            snprintf(head, sizeof head, "HTTP/1.1 %d X\r\nContent-Length: %zu\r\n%s%s\r\n",
                     rep.status, strlen(rep.body), rep.headers ? rep.headers : "",
                     rep.close_after ? "Connection: close\r\n" : "");
            if (mock_write_all(fd, head, strlen(head)) != 0 ||
                mock_write_all(fd, rep.body, strlen(rep.body)) != 0)
                return;
        } else {
            snprintf(head, sizeof head, "HTTP/1.1 %d X\r\nTransfer-Encoding: chunked\r\n%s%s\r\n",
                     rep.status, rep.headers ? rep.headers : "",
                     rep.close_after ? "Connection: close\r\n" : "");
            if (mock_write_all(fd, head, strlen(head)) != 0)
                return;
            for (int i = 0; i < 16 && rep.chunks[i] != NULL; i++) {
                char sz[32];
                snprintf(sz, sizeof sz, "%zx\r\n", strlen(rep.chunks[i]));
                if (mock_write_all(fd, sz, strlen(sz)) != 0 ||
                    mock_write_all(fd, rep.chunks[i], strlen(rep.chunks[i])) != 0 ||
                    mock_write_all(fd, "\r\n", 2) != 0)
                    return;
                usleep(10000);
            }
            if (mock_write_all(fd, "0\r\n\r\n", 5) != 0)
                return;
        }
        if (rep.close_after)
            return;
    }
}

static inline void *mock_conn_main(void *arg)
{
    mock_conn *c = arg;
    mock_serve(c->m, c->fd);
    close(c->fd);
    free(c);
    return NULL;
}

static inline void *mock_main(void *arg)
{
    mock_server *m = arg;
    while (!atomic_load(&m->stop)) {
        struct pollfd pfd = {.fd = m->listen_fd, .events = POLLIN};
        if (poll(&pfd, 1, 100) <= 0)
            continue;
        int fd = accept(m->listen_fd, NULL, NULL);
        if (fd < 0)
            continue;
        pthread_mutex_lock(&m->lock);
        m->connections++;
        pthread_mutex_unlock(&m->lock);
        mock_conn *c = malloc(sizeof *c);
        if (c == NULL || m->n_conn_threads >= 64) {
            free(c);
            close(fd);
            continue;
        }
        c->m = m;
        c->fd = fd;
        if (pthread_create(&m->conn_threads[m->n_conn_threads], NULL, mock_conn_main, c) != 0) {
            free(c);
            close(fd);
            continue;
        }
        m->n_conn_threads++;
    }
    for (int i = 0; i < m->n_conn_threads; i++)
        pthread_join(m->conn_threads[i], NULL);
    return NULL;
}

static inline int mock_start(mock_server *m)
{
    memset(m, 0, sizeof *m);
    pthread_mutex_init(&m->lock, NULL);
    m->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    if (m->listen_fd < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (bind(m->listen_fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(m->listen_fd, 8) != 0 ||
        getsockname(m->listen_fd, (struct sockaddr *)&a, &al) != 0)
        return -1;
    m->port = ntohs(a.sin_port);
    return pthread_create(&m->thread, NULL, mock_main, m) == 0 ? 0 : -1;
}

static inline void mock_stop(mock_server *m)
{
    atomic_store(&m->stop, true);
    pthread_join(m->thread, NULL);
    close(m->listen_fd);
    pthread_mutex_destroy(&m->lock);
}

static inline void mock_script(mock_server *m, const mock_reply *r, int n)
{
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < n && i < MOCK_MAX; i++)
        m->replies[i] = r[i];
    m->n_replies = n;
    m->next = 0;
    m->n_requests = 0;
    m->connections = 0;
    pthread_mutex_unlock(&m->lock);
}

#endif
