/* test_httpd_pipeline.c: a client that pipelines far more requests than the server buffers, on
 * loopback with a raw socket: it writes requests without reading until the connection takes no
 * more, then reads and writes as each becomes possible. Every request must be answered, in order,
 * with no reset, while the server holds no more of the connection's input than one request plus
 * one read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bytebuf.h"
#include "clock.h"
#include "httpd.h"
#include "raw_client.h"

#define TEST_WATCHDOG_S 60
/* The controller's body limit: its connections buffer the least. */
#define MAX_BODY 4096

/* Answers the request's body as it came. */
static void h_echo(void *ctx, const httpd_request *req, httpd_response *resp)
{
    (void)ctx;
    httpd_respond(resp, 200, "text/plain", req->body);
}

/* GET /big answers BIG bytes. */
#define BIG (256 * 1024)

static void h_big(void *ctx, const httpd_request *req, httpd_response *resp)
{
    (void)ctx;
    (void)req;
    size_t n = BIG;
    resp->body = malloc(n);
    if (resp->body == NULL) {
        resp->status = 500;
        return;
    }
    memset(resp->body, 'b', n);
    resp->body_len = n;
    resp->status = 200;
    resp->content_type = "text/plain";
}

static void h_ok(void *ctx, const httpd_request *req, httpd_response *resp)
{
    (void)ctx;
    (void)req;
    httpd_respond(resp, 200, "text/plain", "ok");
}

static const httpd_route routes[] = {
    {"POST", "/echo", h_echo, NULL},
    {"GET", "/big", h_big, NULL},
    {"GET", "/healthz", h_ok, NULL},
};

typedef struct {
    httpd *h;
    httpd_budget budget;
} server;

/* A server as the controller runs it: 4 KiB bodies, 64 connections, 4 MiB buffered. */
static void start(server *s)
{
    alarm(TEST_WATCHDOG_S);
    httpd_budget_init(&s->budget, 64, 4 * 1024 * 1024);
    httpd_opts o = {.host = "127.0.0.1",
                    .max_body = MAX_BODY,
                    .budget = &s->budget,
                    .routes = routes,
                    .n_routes = sizeof routes / sizeof routes[0]};
    ds_err err = {{0}};
    if (httpd_start(&o, &s->h, &err) != 0)
        fail_msg("%s", err.msg);
}

static void stop(server *s)
{
    httpd_stop(s->h);
    alarm(0);
}

/* The pipeline of a test: n requests; every `big_every`-th (when not 0) a GET /big, the others a
 * POST /echo whose body is the request's index, padded with dots to `pad` bytes. */
typedef struct {
    size_t n, big_every, pad;
} plan;

static bool is_big(const plan *pl, size_t i)
{
    return pl->big_every > 0 && i % pl->big_every == pl->big_every - 1;
}

static void echo_body(const plan *pl, size_t i, char *body, size_t size)
{
    int n = snprintf(body, size, "%zu", i);
    assert_true(n > 0 && (size_t)n < size && pl->pad < size);
    while ((size_t)n < pl->pad)
        body[n++] = '.';
    body[n] = '\0';
}

static void append_request(ds_bytebuf *out, const plan *pl, size_t i)
{
    int rc;
    if (is_big(pl, i)) {
        rc = ds_bytebuf_printf(out, "GET /big HTTP/1.1\r\nHost: t\r\n\r\n");
    } else {
        char body[MAX_BODY];
        echo_body(pl, i, body, sizeof body);
        rc = ds_bytebuf_printf(out,
                               "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: %zu\r\n\r\n%s",
                               strlen(body), body);
    }
    assert_int_equal(rc, 0);
}

/* Parse the answers at the start of in: each must be the answer to request *next (200, the body
 * that request's answer carries); consumed ones are dropped. False on an answer that is wrong. */
static bool take_answers(ds_bytebuf *in, const plan *pl, size_t *next, char *why, size_t why_n)
{
    for (;;) {
        const char *p = in->data;
        const char *end = in->len > 0 ? strstr(p, "\r\n\r\n") : NULL;
        if (end == NULL)
            return true;
        if (strncmp(p, "HTTP/1.1 200 OK\r\n", 17) != 0) {
            snprintf(why, why_n, "answer %zu: %.60s", *next, p);
            return false;
        }
        const char *cl = strstr(p, "Content-Length: ");
        if (cl == NULL || cl > end) {
            snprintf(why, why_n, "answer %zu without Content-Length", *next);
            return false;
        }
        size_t blen = strtoul(cl + 16, NULL, 10), hlen = (size_t)(end + 4 - p);
        if (in->len < hlen + blen)
            return true;
        const char *body = end + 4;
        if (is_big(pl, *next)) {
            if (blen != BIG || body[0] != 'b' || body[blen - 1] != 'b') {
                snprintf(why, why_n, "answer %zu: a /big answer of %zu bytes", *next, blen);
                return false;
            }
        } else {
            char want[MAX_BODY];
            echo_body(pl, *next, want, sizeof want);
            if (blen != strlen(want) || memcmp(body, want, blen) != 0) {
                snprintf(why, why_n, "answer %zu: body %.*s", *next, (int)(blen < 32 ? blen : 32),
                         body);
                return false;
            }
        }
        (*next)++;
        ds_bytebuf_consume(in, hlen + blen);
    }
}

/* The most request bytes the server may hold for one connection: one request plus one read. */
#define HELD_BOUND                                                                                 \
    (16 + HTTPD_MAX_REQUEST_LINE + 2 + HTTPD_MAX_HEADER_BYTES + 2 + MAX_BODY + 131072)

/* CPU time this process used, in seconds. */
static double cpu_now(void)
{
    struct timespec t;
    assert_int_equal(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t), 0);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Send the plan's requests on one connection without reading until the connection takes no more
 * (then, with `check_idle`, wait a moment and check that the server waits without using the
 * CPU), then read and send as each becomes possible; every answer must come, in order, and the
 * server never holds more than HELD_BOUND of the connection's bytes. Returns the bytes written
 * before the first read. */
static size_t pipeline(server *s, const plan *pl, bool check_idle)
{
    ds_bytebuf out, in;
    ds_bytebuf_init(&out, DS_BYTEBUF_UNLIMITED);
    ds_bytebuf_init(&in, DS_BYTEBUF_UNLIMITED);
    for (size_t i = 0; i < pl->n; i++)
        append_request(&out, pl, i);
    int fd = connect_lo(httpd_port(s->h));
    assert_int_equal(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
    size_t sent = 0, unread_sent = 0, answered = 0, held_max = 0;
    bool reading = false;
    char why[160] = "";
    static char buf[65536];
    while (answered < pl->n) {
        size_t held = httpd_budget_buffered(&s->budget);
        held_max = held > held_max ? held : held_max;
        if (sent < out.len) {
            ssize_t w = send(fd, out.data + sent, out.len - sent, MSG_NOSIGNAL);
            if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
                fail_msg("send after %zu of %zu bytes, %zu answers: %s", sent, out.len, answered,
                         strerror(errno));
            if (w > 0)
                sent += (size_t)w;
            if (!reading)
                unread_sent = sent;
            if (w > 0 && !reading)
                continue; /* write on until the connection takes no more */
        }
        if (!reading && check_idle) {
            usleep(300 * 1000); /* the server reaches what it can do without the client */
            double t0 = cpu_now();
            usleep(500 * 1000);
            double used = cpu_now() - t0;
            if (used >= 0.1)
                fail_msg("the server used %.2f s of CPU in 0.5 s while the client did not read",
                         used);
        }
        reading = true;
        struct pollfd p = {.fd = fd, .events = POLLIN | (sent < out.len ? POLLOUT : 0)};
        if (poll(&p, 1, 20000) <= 0)
            fail_msg("no progress in 20 s: %zu of %zu bytes sent, %zu of %zu answers", sent,
                     out.len, answered, pl->n);
        if (!(p.revents & (POLLIN | POLLERR | POLLHUP)))
            continue;
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (r <= 0)
            fail_msg("%s after %zu of %zu bytes sent (%zu before the first read), %zu of %zu "
                     "answers",
                     r == 0 ? "closed by the server" : strerror(errno), sent, out.len, unread_sent,
                     answered, pl->n);
        assert_int_equal(ds_bytebuf_append(&in, buf, (size_t)r), 0);
        if (!take_answers(&in, pl, &answered, why, sizeof why))
            fail_msg("%s", why);
    }
    assert_int_equal(in.len, 0);
    assert_int_equal(sent, out.len);
    if (held_max > HELD_BOUND)
        fail_msg("the server held %zu bytes of the connection (bound %d)", held_max, HELD_BOUND);
    /* The connection is still usable for a further request. */
    assert_int_equal(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK), 0);
    const char more[] = "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n";
    assert_int_equal(send(fd, more, sizeof more - 1, MSG_NOSIGNAL), (ssize_t)(sizeof more - 1));
    size_t got = 0;
    while (got < 4 || memcmp(buf + got - 4, "\r\nok", 4) != 0) {
        ssize_t r = recv(fd, buf + got, sizeof buf - got - 1, 0);
        assert_true(r > 0);
        got += (size_t)r;
    }
    assert_memory_equal(buf, "HTTP/1.1 200 OK\r\n", 17);
    close(fd);
    ds_bytebuf_free(&out);
    ds_bytebuf_free(&in);
    /* Every byte is given back once the connection is closed. */
    double deadline = rt_mono_now() + 5;
    while ((httpd_budget_conns(&s->budget) != 0 || httpd_budget_buffered(&s->budget) != 0) &&
           rt_mono_now() < deadline)
        usleep(10000);
    assert_int_equal(httpd_budget_conns(&s->budget), 0);
    assert_int_equal(httpd_budget_buffered(&s->budget), 0);
    return unread_sent;
}

/* 8,000 small pipelined requests in one go (about 440 KB, over four times what the server
 * buffers for a connection): every one answered, in order, no reset. */
static void test_pipelined_many_small(void **state)
{
    (void)state;
    server s;
    start(&s);
    plan pl = {.n = 8000};
    pipeline(&s, &pl, false);
    stop(&s);
}

/* Requests of 4 KiB bodies (the controller's largest), 1 in 20 a GET /big whose 256 KiB answer
 * the client does not read: the server's writes stall, it stops reading, the client's writes
 * stall in turn (20 MB of requests, 64 MB of answers); once the client reads, everything is
 * answered in order. */
static void test_pipelined_back_pressure(void **state)
{
    (void)state;
    server s;
    start(&s);
    plan pl = {.n = 5000, .big_every = 20, .pad = MAX_BODY - 1};
    size_t before = pipeline(&s, &pl, true);
    /* The client's writes stalled before the end: the server stopped reading. */
    if (before >= pl.n * (size_t)MAX_BODY)
        fail_msg("all %zu bytes were taken before the first read", before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipelined_many_small),
        cmocka_unit_test(test_pipelined_back_pressure),
    };
    if (getenv("DAGSCHED_TEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("DAGSCHED_TEST_FILTER"));
    return cmocka_run_group_tests_name("httpd_pipeline", tests, NULL, NULL);
}
