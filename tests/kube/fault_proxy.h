/* fault_proxy.h: a loopback TCP proxy for the integration programs, in front of the real
 * kube-apiserver. It forwards bytes both ways unchanged (TLS passes through: it never reads or
 * invents an HTTP message) and injects transport faults on request: refuse connections (no
 * listener), drop the next connections as soon as the client sends a byte, cut a connection after
 * N bytes from the server, delay every piece the server sends, cut every open connection at once.
 * It counts connections (accepted, and the most open at once) and the bytes forwarded each way, so
 * that a test sees whether a client reused a connection, how many requests it had in flight at
 * once (each holds a connection of its own), or sent anything at all. */
#ifndef DAGSCHED_KUBE_FAULT_PROXY_H
#define DAGSCHED_KUBE_FAULT_PROXY_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FPROXY_MAX_CONNS 64

typedef struct fproxy {
    int upstream_port; /* the API server on 127.0.0.1 */
    int port;          /* where the proxy listens (kept across fproxy_refuse) */
    int listen_fd;     /* -1 while refusing */
    pthread_t thread;
    pthread_mutex_t lock;
    atomic_bool stop;
    /* Faults, read under lock when a connection starts or a piece is forwarded. */
    int drop_next;  /* the next N connections: closed at the client's first byte */
    int cut_next;   /* the next N connections: closed after cut_after server bytes */
    long cut_after; /* bytes from the server before such a cut */
    double delay_s; /* every piece from the server waits this long */
    /* Counters. */
    int connections;     /* accepted */
    int open, most_open; /* open now, and the most open at once */
    uint64_t up_bytes;   /* client -> server, forwarded */
    uint64_t down_bytes; /* server -> client, forwarded */
    /* Open connections (client fd, server fd), for fproxy_cut_all. */
    int conn_fds[FPROXY_MAX_CONNS][2];
    pthread_t conn_threads[FPROXY_MAX_CONNS * 4];
    int n_conn_threads;
} fproxy;

typedef struct fproxy_conn {
    fproxy *p;
    int cfd, sfd, slot;
    bool drop;      /* close at the client's first byte */
    long cut_after; /* > 0: close after this many server bytes */
} fproxy_conn;

static inline void fproxy_sleep(double s)
{
    struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static inline int fproxy_send_all(int fd, const char *b, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

static inline void *fproxy_conn_main(void *arg)
{
    fproxy_conn *k = arg;
    fproxy *p = k->p;
    long down = 0;
    char buf[16384];
    for (;;) {
        struct pollfd pf[2] = {{.fd = k->cfd, .events = POLLIN}, {.fd = k->sfd, .events = POLLIN}};
        int r = poll(pf, 2, 100);
        if (atomic_load(&p->stop))
            break;
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue;
        if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = recv(k->cfd, buf, sizeof buf, 0);
            if (n <= 0 || k->drop)
                break;
            if (fproxy_send_all(k->sfd, buf, (size_t)n) != 0)
                break;
            pthread_mutex_lock(&p->lock);
            p->up_bytes += (uint64_t)n;
            pthread_mutex_unlock(&p->lock);
        }
        if (pf[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = recv(k->sfd, buf, sizeof buf, 0);
            if (n <= 0)
                break;
            /* Delayed in steps: a delay set back to 0 or a stop ends the wait. */
            for (double waited = 0;; waited += 0.02) {
                pthread_mutex_lock(&p->lock);
                double delay = p->delay_s;
                pthread_mutex_unlock(&p->lock);
                if (waited >= delay || atomic_load(&p->stop))
                    break;
                fproxy_sleep(0.02);
            }
            bool cut = false;
            if (k->cut_after > 0 && down + n >= k->cut_after) {
                n = k->cut_after - down;
                cut = true;
            }
            if (n > 0 && fproxy_send_all(k->cfd, buf, (size_t)n) != 0)
                break;
            down += n;
            pthread_mutex_lock(&p->lock);
            p->down_bytes += (uint64_t)n;
            pthread_mutex_unlock(&p->lock);
            if (cut)
                break;
        }
    }
    pthread_mutex_lock(&p->lock);
    p->conn_fds[k->slot][0] = p->conn_fds[k->slot][1] = -1;
    p->open--;
    pthread_mutex_unlock(&p->lock);
    close(k->cfd);
    close(k->sfd);
    free(k);
    return NULL;
}

static inline int fproxy_listen(fproxy *p)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                            .sin_port = htons((uint16_t)p->port)};
    socklen_t al = sizeof a;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) != 0) {
        close(fd);
        return -1;
    }
    p->port = ntohs(a.sin_port);
    return fd;
}

static inline int fproxy_connect_upstream(const fproxy *p)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                            .sin_port = htons((uint16_t)p->upstream_port)};
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static inline void fproxy_accept_one(fproxy *p, int lfd)
{
    int cfd = accept(lfd, NULL, NULL);
    if (cfd < 0)
        return;
    int sfd = fproxy_connect_upstream(p);
    fproxy_conn *k = sfd >= 0 ? calloc(1, sizeof *k) : NULL;
    pthread_mutex_lock(&p->lock);
    int slot = -1;
    for (int i = 0; i < FPROXY_MAX_CONNS && k != NULL; i++)
        if (p->conn_fds[i][0] < 0) {
            slot = i;
            break;
        }
    if (k == NULL || slot < 0 || p->n_conn_threads >= FPROXY_MAX_CONNS * 4) {
        pthread_mutex_unlock(&p->lock);
        free(k);
        if (sfd >= 0)
            close(sfd);
        close(cfd);
        return;
    }
    p->connections++;
    *k = (fproxy_conn){.p = p, .cfd = cfd, .sfd = sfd, .slot = slot};
    if (p->drop_next > 0) {
        p->drop_next--;
        k->drop = true;
    } else if (p->cut_next > 0) {
        p->cut_next--;
        k->cut_after = p->cut_after;
    }
    p->conn_fds[slot][0] = cfd;
    p->conn_fds[slot][1] = sfd;
    if (pthread_create(&p->conn_threads[p->n_conn_threads], NULL, fproxy_conn_main, k) == 0) {
        p->n_conn_threads++;
        if (++p->open > p->most_open)
            p->most_open = p->open;
    } else {
        p->conn_fds[slot][0] = p->conn_fds[slot][1] = -1;
        close(cfd);
        close(sfd);
        free(k);
    }
    pthread_mutex_unlock(&p->lock);
}

static inline void *fproxy_main(void *arg)
{
    fproxy *p = arg;
    while (!atomic_load(&p->stop)) {
        pthread_mutex_lock(&p->lock);
        int lfd = p->listen_fd;
        pthread_mutex_unlock(&p->lock);
        if (lfd < 0) {
            fproxy_sleep(0.02);
            continue;
        }
        struct pollfd pf = {.fd = lfd, .events = POLLIN};
        if (poll(&pf, 1, 50) == 1) {
            pthread_mutex_lock(&p->lock);
            bool same = p->listen_fd == lfd;
            pthread_mutex_unlock(&p->lock);
            if (same)
                fproxy_accept_one(p, lfd);
        }
    }
    return NULL;
}

/* Starts a proxy to 127.0.0.1:upstream_port on a free loopback port (p->port). 0 or -1. */
static inline int fproxy_start(fproxy *p, int upstream_port)
{
    memset(p, 0, sizeof *p);
    p->upstream_port = upstream_port;
    for (int i = 0; i < FPROXY_MAX_CONNS; i++)
        p->conn_fds[i][0] = p->conn_fds[i][1] = -1;
    if (pthread_mutex_init(&p->lock, NULL) != 0)
        return -1;
    p->listen_fd = fproxy_listen(p);
    if (p->listen_fd < 0)
        return -1;
    return pthread_create(&p->thread, NULL, fproxy_main, p) == 0 ? 0 : -1;
}

/* Cuts every open connection (both sides see it closed); new connections are still accepted. */
static inline void fproxy_cut_all(fproxy *p)
{
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < FPROXY_MAX_CONNS; i++)
        if (p->conn_fds[i][0] >= 0) {
            shutdown(p->conn_fds[i][0], SHUT_RDWR);
            shutdown(p->conn_fds[i][1], SHUT_RDWR);
        }
    pthread_mutex_unlock(&p->lock);
}

/* refuse: close the listener (connections are refused) and cut every open connection: the server
 * is gone. !refuse: listen again on the same port. 0 or -1. */
static inline int fproxy_refuse(fproxy *p, bool refuse)
{
    pthread_mutex_lock(&p->lock);
    int rc = 0;
    if (refuse && p->listen_fd >= 0) {
        close(p->listen_fd);
        p->listen_fd = -1;
    } else if (!refuse && p->listen_fd < 0) {
        p->listen_fd = fproxy_listen(p);
        rc = p->listen_fd >= 0 ? 0 : -1;
    }
    pthread_mutex_unlock(&p->lock);
    if (refuse)
        fproxy_cut_all(p);
    return rc;
}

/* Sets the faults for what comes next (see fproxy). */
static inline void fproxy_set(fproxy *p, int drop_next, int cut_next, long cut_after,
                              double delay_s)
{
    pthread_mutex_lock(&p->lock);
    p->drop_next = drop_next;
    p->cut_next = cut_next;
    p->cut_after = cut_after;
    p->delay_s = delay_s;
    pthread_mutex_unlock(&p->lock);
}

typedef struct fproxy_counts {
    int connections, open, most_open;
    uint64_t up_bytes, down_bytes;
} fproxy_counts;

static inline fproxy_counts fproxy_get(fproxy *p)
{
    pthread_mutex_lock(&p->lock);
    fproxy_counts c = {p->connections, p->open, p->most_open, p->up_bytes, p->down_bytes};
    pthread_mutex_unlock(&p->lock);
    return c;
}

static inline void fproxy_stop(fproxy *p)
{
    atomic_store(&p->stop, true);
    pthread_join(p->thread, NULL);
    for (int i = 0; i < p->n_conn_threads; i++)
        pthread_join(p->conn_threads[i], NULL);
    if (p->listen_fd >= 0)
        close(p->listen_fd);
    pthread_mutex_destroy(&p->lock);
}

#endif
