/* test_cut_answer.c: an answer cut after its status line. A loopback peer reads one request,
 * sends the status line and headers of an answer whose body it never finishes, and closes the
 * connection: libcurl reports a transport error with the status it read. A final status (a 4xx
 * the client does not retry: 401, 403, 404, 409, 422) is the server's decision, kept as the
 * answer and not retried; a status that may pass (429, 5xx) and a cut success are retried like
 * any transport failure. The peer answers every connection the same way, so the attempts count
 * how often the client asked. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client.h"
#include "log.h"

typedef struct cut_peer {
    int fd, port;
    char head[256]; /* status line and headers sent before the cut */
    atomic_int accepted;
    atomic_bool stop;
    pthread_t thread;
} cut_peer;

static void *cut_peer_main(void *arg)
{
    cut_peer *p = arg;
    while (!atomic_load(&p->stop)) {
        int c = accept(p->fd, NULL, NULL);
        if (c < 0)
            break;
        if (atomic_load(&p->stop)) {
            close(c);
            break;
        }
        atomic_fetch_add(&p->accepted, 1);
        /* Read the request head (the requests of this test carry no body). */
        char buf[4096];
        size_t got = 0;
        while (got < sizeof buf - 1) {
            ssize_t r = recv(c, buf + got, sizeof buf - 1 - got, 0);
            if (r <= 0)
                break;
            got += (size_t)r;
            buf[got] = '\0';
            if (strstr(buf, "\r\n\r\n") != NULL)
                break;
        }
        const char *part = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Fail";
        ssize_t w = send(c, p->head, strlen(p->head), MSG_NOSIGNAL);
        if (w >= 0)
            w = send(c, part, strlen(part), MSG_NOSIGNAL);
        (void)w;
        close(c);
    }
    return NULL;
}

static void cut_peer_start(cut_peer *p, long status, const char *reason)
{
    memset(p, 0, sizeof *p);
    snprintf(p->head, sizeof p->head,
             "HTTP/1.1 %ld %s\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n",
             status, reason);
    p->fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(p->fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(p->fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(p->fd, 16), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(p->fd, (struct sockaddr *)&a, &len), 0);
    p->port = ntohs(a.sin_port);
    assert_int_equal(pthread_create(&p->thread, NULL, cut_peer_main, p), 0);
}

static void cut_peer_stop(cut_peer *p)
{
    atomic_store(&p->stop, true);
    /* Wake the accept with a connection of our own. */
    int c = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p->port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (c >= 0) {
        (void)connect(c, (struct sockaddr *)&a, sizeof a);
        close(c);
    }
    pthread_join(p->thread, NULL);
    close(p->fd);
}

/* One GET through a client with 2 retries against a peer that cuts its answer of this status;
 * returns the attempts and fills *status and msg. */
static int cut_get(long want_status, const char *reason, long *status, char *msg, size_t size)
{
    cut_peer p;
    cut_peer_start(&p, want_status, reason);
    char server[64];
    snprintf(server, sizeof server, "http://127.0.0.1:%d", p.port);
    kube_config cfg = {.server = server, .namespace = "default", .source = "test"};
    kube_client_opts o = {.max_retries = 2, .backoff_initial_s = 0.001, .backoff_max_s = 0.002};
    kube_client *c = NULL;
    ds_err err = {{0}};
    assert_int_equal(kube_client_new(&cfg, &o, &c, &err), 0);
    kube_response resp;
    int rc = kube_request(c, "GET", "/api/v1/namespaces/ns/configmaps/x", NULL, NULL, &resp, &err);
    assert_int_equal(rc, -1);
    *status = resp.status;
    snprintf(msg, size, "%s", err.msg);
    int attempts = resp.attempts;
    assert_int_equal(atomic_load(&p.accepted), attempts);
    kube_response_free(&resp);
    kube_client_free(c);
    cut_peer_stop(&p);
    return attempts;
}

static void test_final_status_not_retried(void **state)
{
    (void)state;
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    const struct {
        long status;
        const char *reason;
    } finals[] = {{401, "Unauthorized"},
                  {403, "Forbidden"},
                  {404, "Not Found"},
                  {409, "Conflict"},
                  {422, "Unprocessable Entity"}};
    for (size_t i = 0; i < sizeof finals / sizeof finals[0]; i++) {
        long status = 0;
        char msg[512];
        int attempts = cut_get(finals[i].status, finals[i].reason, &status, msg, sizeof msg);
        if (attempts != 1 || status != finals[i].status)
            fail_msg("%ld cut after its head: %d attempts, status %ld (want 1 attempt, the "
                     "status kept): %s",
                     finals[i].status, attempts, status, msg);
        char want[32];
        snprintf(want, sizeof want, ": HTTP %ld", finals[i].status);
        if (strstr(msg, want) == NULL ||
            strstr(msg, "GET /api/v1/namespaces/ns/configmaps/x") == NULL)
            fail_msg("the message names the request and its status: %s", msg);
    }
}

static void test_passing_status_retried(void **state)
{
    (void)state;
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    const struct {
        long status;
        const char *reason;
    } passing[] = {{200, "OK"}, {429, "Too Many Requests"}, {503, "Service Unavailable"}};
    for (size_t i = 0; i < sizeof passing / sizeof passing[0]; i++) {
        long status = -1;
        char msg[512];
        int attempts = cut_get(passing[i].status, passing[i].reason, &status, msg, sizeof msg);
        if (attempts != 3 || status != 0)
            fail_msg("%ld cut after its head: %d attempts, status %ld (want 3, a transport "
                     "failure): %s",
                     passing[i].status, attempts, status, msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_final_status_not_retried),
        cmocka_unit_test(test_passing_status_retried),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
