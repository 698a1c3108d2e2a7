/* test_httpd_accept.c: how the HTTP server accepts connections, on loopback with raw sockets:
 * connections that never send a byte are closed after the handshake timeout, and the oldest of
 * them when more are waiting than the server keeps; a crowd of clients that connect and close as
 * fast as they can does not delay an established keep-alive client nor a new one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "httpd.h"
#include "raw_client.h"

#define TEST_WATCHDOG_S 30

static void h_ok(void *ctx, const httpd_request *req, httpd_response *resp)
{
    (void)ctx;
    (void)req;
    httpd_respond(resp, 200, "text/plain", "ok\n");
}

static const httpd_route routes[] = {{"GET", "/healthz", h_ok, NULL}};

typedef struct {
    httpd *h;
    metrics_registry *m;
    httpd_budget budget;
} fixture;

static fixture *start(size_t max_pending, int handshake_timeout_s)
{
    alarm(TEST_WATCHDOG_S);
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->m = metrics_registry_new();
    assert_non_null(f->m);
    httpd_budget_init(&f->budget, 0, 0);
    httpd_opts o = {.host = "127.0.0.1",
                    .routes = routes,
                    .n_routes = 1,
                    .budget = &f->budget,
                    .metrics = f->m,
                    .metrics_prefix = "test",
                    .max_pending = max_pending,
                    .handshake_timeout_s = handshake_timeout_s};
    ds_err err = {{0}};
    if (httpd_start(&o, &f->h, &err) != 0)
        fail_msg("%s", err.msg);
    return f;
}

static void stop(fixture *f)
{
    httpd_stop(f->h);
    metrics_registry_free(f->m);
    free(f);
    alarm(0);
}

/* True when the server closed fd within timeout_s (it never sends these sockets a byte). */
static bool closed_within(int fd, double timeout_s)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, (int)(timeout_s * 1000)) <= 0)
        return false;
    char b;
    return recv(fd, &b, 1, MSG_DONTWAIT) <= 0;
}

/* GET /healthz on fd (keep-alive); the seconds the answer took, or -1 without a 200. */
static double get_healthz(int fd)
{
    static const char req[] = "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n";
    double t0 = rt_mono_now();
    if (send(fd, req, sizeof req - 1, MSG_NOSIGNAL) != (ssize_t)(sizeof req - 1))
        return -1;
    char buf[512];
    size_t len = 0;
    while (len < sizeof buf - 1) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 10000) <= 0)
            return -1;
        ssize_t n = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (n <= 0)
            return -1;
        len += (size_t)n;
        buf[len] = '\0';
        if (strstr(buf, "\r\n\r\nok\n") != NULL)
            return strncmp(buf, "HTTP/1.1 200 ", 13) == 0 ? rt_mono_now() - t0 : -1;
    }
    return -1;
}

static void test_oldest_silent_closed_for_newer(void **state)
{
    (void)state;
    fixture *f = start(4, 30);
    int port = httpd_port(f->h);
    int fds[6];
    for (int i = 0; i < 6; i++) {
        fds[i] = connect_lo(port);
        usleep(50 * 1000); /* accepted in this order */
    }
    assert_true(closed_within(fds[0], 3));
    assert_true(closed_within(fds[1], 3));
    for (int i = 2; i < 6; i++)
        assert_false(closed_within(fds[i], 0.2));
    /* A client that sends its request at once is served, closing the oldest silent one. */
    int c = connect_lo(port);
    assert_true(get_healthz(c) >= 0);
    assert_true(closed_within(fds[2], 3));
    assert_false(closed_within(c, 0.2));
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(metrics_render(f->m, &text, &len), 0);
    assert_non_null(strstr(text, "test_http_evicted_total 3\n"));
    free(text);
    for (int i = 0; i < 6; i++)
        close(fds[i]);
    close(c);
    stop(f);
}

static void test_silent_closed_after_handshake_timeout(void **state)
{
    (void)state;
    fixture *f = start(0, 1);
    int port = httpd_port(f->h);
    int ka = connect_lo(port);
    assert_true(get_healthz(ka) >= 0);
    double t0 = rt_mono_now();
    int silent = connect_lo(port);
    assert_true(closed_within(silent, 4));
    double held = rt_mono_now() - t0;
    assert_true(held > 0.5 && held < 4);
    /* The established keep-alive connection is not bound by it. */
    assert_false(closed_within(ka, 1.5));
    assert_true(get_healthz(ka) >= 0);
    close(silent);
    close(ka);
    stop(f);
}

typedef struct {
    int port;
    atomic_bool *stop;
    unsigned long conns;
} churner;

/* Connect and close again as fast as possible until told to stop. */
static void *churn(void *arg)
{
    churner *c = arg;
    while (!atomic_load(c->stop)) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            continue;
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)c->port)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
            c->conns++;
        close(fd);
    }
    return NULL;
}

static void test_connection_churn_starves_nobody(void **state)
{
    (void)state;
    fixture *f = start(0, 0);
    int port = httpd_port(f->h);
    int ka = connect_lo(port);
    assert_true(get_healthz(ka) >= 0);
    atomic_bool halt;
    atomic_init(&halt, false);
    enum { CHURNERS = 6 };
    churner cs[CHURNERS];
    pthread_t th[CHURNERS];
    for (int i = 0; i < CHURNERS; i++) {
        cs[i] = (churner){.port = port, .stop = &halt};
        assert_int_equal(pthread_create(&th[i], NULL, churn, &cs[i]), 0);
    }
    double worst_ka = 0, worst_new = 0, t_end = rt_mono_now() + 3;
    int probes = 0;
    while (rt_mono_now() < t_end) {
        double t = get_healthz(ka);
        assert_true(t >= 0);
        worst_ka = t > worst_ka ? t : worst_ka;
        int c = connect_lo(port);
        t = get_healthz(c);
        close(c);
        assert_true(t >= 0);
        worst_new = t > worst_new ? t : worst_new;
        probes++;
        usleep(50 * 1000);
    }
    atomic_store(&halt, true);
    unsigned long churned = 0;
    for (int i = 0; i < CHURNERS; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        churned += cs[i].conns;
    }
    print_message("%lu connections churned in 3 s; %d probes: keep-alive worst %.3f s, new "
                  "connection worst %.3f s\n",
                  churned, probes, worst_ka, worst_new);
    assert_true(probes >= 10);
    assert_true(worst_ka < 1.0);
    assert_true(worst_new < 1.0);
    close(ka);
    /* Every churned connection is closed again. */
    double deadline = rt_mono_now() + 5;
    while (httpd_budget_conns(&f->budget) > 0 && rt_mono_now() < deadline)
        usleep(20 * 1000);
    assert_int_equal(httpd_budget_conns(&f->budget), 0);
    stop(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oldest_silent_closed_for_newer),
        cmocka_unit_test(test_silent_closed_after_handshake_timeout),
        cmocka_unit_test(test_connection_churn_starves_nobody),
    };
    if (getenv("DAGSCHED_TEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("DAGSCHED_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
