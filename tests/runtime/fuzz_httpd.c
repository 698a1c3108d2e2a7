/* fuzz_httpd.c: libFuzzer target over the HTTP server's request framing, end to end: a real
 * in-process server (runtime/httpd.c, plain HTTP on loopback) receives the input as a byte stream
 * cut into writes at fuzzer-chosen points, then the client half-closes. The server must answer
 * with well-formed responses only (status line, header fields, Content-Length body), close the
 * connection within a bounded time, and still answer GET /healthz on a new connection.
 *
 * Input: byte 0 gives the number of cut points k (low 3 bits); bytes 1..k give the sizes of the
 * first k writes (1..256 bytes each); the rest is the stream (what remains after the k writes
 * goes in one last write). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "httpd.h"
#include "clock.h"

#define FUZZ_MAX_BODY 4096 /* small, so that 413 is reachable */
/* The server must have answered and closed by then. Its own timeouts for a request and a write are
 * 30 s, so a server that waits on one of them still fails; 15 s leaves room for a loaded machine
 * (a sanitizer build on a shared CI runner). */
#define ANSWER_LIMIT_S 15.0
#define MAX_READ       (4 << 20) /* answers to one input; far above what 64 KiB of requests get */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static httpd *server; /* started once, lives for the process */

static void h_health(void *ctx, const httpd_request *req, httpd_response *resp)
{
    (void)ctx;
    (void)req;
    httpd_respond(resp, 200, "text/plain", "ok\n");
}

static void h_echo(void *ctx, const httpd_request *req, httpd_response *resp)
{
    (void)ctx;
    char buf[64];
    snprintf(buf, sizeof buf, "{\"len\":%zu}", req->body_len);
    if (strlen(req->body) > req->body_len) /* the body is NUL-terminated at its length */
        abort();
    httpd_respond(resp, 200, "application/json", buf);
}

/* Failures print one line starting "fuzz_httpd: FAILED:" (make fuzz-httpd-short shows it whatever
 * the length of libFuzzer's report), then abort so that libFuzzer saves the input. */
static void die(const char *why)
{
    fprintf(stderr, "fuzz_httpd: FAILED: %s\n", why);
    abort();
}

static void die_errno(const char *what)
{
    char why[160];
    snprintf(why, sizeof why, "%s: %s", what, strerror(errno));
    die(why);
}

/* The answers received, escaped, for a failure about them. */
static void die_answer(const char *why, const char *b, size_t n)
{
    fprintf(stderr, "fuzz_httpd: %zu bytes received: \"", n);
    for (size_t i = 0; i < n && i < 1024; i++) {
        unsigned char c = (unsigned char)b[i];
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
            fputc(c, stderr);
        else
            fprintf(stderr, "\\x%02x", c);
    }
    fprintf(stderr, "%s\"\n", n > 1024 ? "..." : "");
    die(why);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static const httpd_route routes[] = {
        {"GET", "/healthz", h_health, NULL},
        {"POST", "/filter", h_echo, NULL},
        {"GET", "/filter", h_echo, NULL},
    };
    httpd_opts o = {.host = "127.0.0.1",
                    .port = 0,
                    .max_body = FUZZ_MAX_BODY,
                    .routes = routes,
                    .n_routes = sizeof routes / sizeof routes[0]};
    ds_err err = {{0}};
    if (httpd_start(&o, &server, &err) != 0)
        die(err.msg);
    return 0;
}

static int connect_server(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)httpd_port(server))};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    /* A machine short of local ports (other suites' connections in TIME_WAIT) refuses for a
     * moment: that is the client's side, not the server's, so retry for a while. */
    double deadline = rt_mono_now() + ANSWER_LIMIT_S;
    for (;;) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            die_errno("socket");
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            if (fcntl(fd, F_SETFL, O_NONBLOCK) != 0)
                die_errno("fcntl");
            return fd;
        }
        int e = errno;
        close(fd);
        errno = e;
        if ((e != EADDRNOTAVAIL && e != EINTR && e != EAGAIN) || rt_mono_now() > deadline)
            die_errno("connect to the server");
        poll(NULL, 0, 10);
    }
}

typedef struct {
    const uint8_t *cuts;
    size_t n_cuts, cut;
    const uint8_t *p;
    size_t left;
    size_t piece_left; /* of the current write */
} sender;

static size_t next_piece(sender *s)
{
    if (s->piece_left == 0)
        s->piece_left = s->cut < s->n_cuts ? (size_t)s->cuts[s->cut++] + 1 : s->left;
    return s->piece_left < s->left ? s->piece_left : s->left;
}

/* Send the stream in its pieces while reading answers (so neither side can block the other),
 * half-close, and read until the server closes. Returns the bytes read (malloc'd). */
static char *exchange(int fd, sender *s, size_t *out_len)
{
    char *buf = malloc(MAX_READ);
    if (buf == NULL)
        die("out of memory");
    size_t len = 0;
    bool shut = false;
    double deadline = rt_mono_now() + ANSWER_LIMIT_S;
    for (;;) {
        if (!shut && s->left == 0) {
            shutdown(fd, SHUT_WR);
            shut = true;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN | (shut ? 0 : POLLOUT)};
        double left = deadline - rt_mono_now();
        if (left <= 0)
            die("the server neither answered nor closed the connection in time");
        if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
            continue;
        if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
            if (len == MAX_READ)
                die("unbounded answer");
            ssize_t n = recv(fd, buf + len, MAX_READ - len, 0);
            if (n == 0 || (n < 0 && errno == ECONNRESET))
                break;
            if (n > 0)
                len += (size_t)n;
        }
        if (!shut && (pfd.revents & POLLOUT)) {
            size_t k = next_piece(s);
            ssize_t n = send(fd, s->p, k, MSG_NOSIGNAL);
            if (n > 0) {
                s->p += n;
                s->left -= (size_t)n;
                s->piece_left -= (size_t)n;
            } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                s->left = 0; /* the server closed: stop sending, read what it said */
            }
        }
    }
    *out_len = len;
    return buf;
}

static bool status_known(int code)
{
    static const int known[] = {100, 200, 400, 404, 405, 413, 414, 431, 501, 505};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i] == code)
            return true;
    return false;
}

/* One response at b[0..n): status line, fields, empty line, Content-Length bytes of body (none
 * for 100 Continue and answers to HEAD).
 * Returns its length, or 0 with *why set on anything else (a truncated response included). */
static size_t check_response(const char *b, size_t n, int *code, const char **why)
{
    if (n < 13 || memcmp(b, "HTTP/1.1 ", 9) != 0 || b[12] != ' ') {
        *why = "malformed status line";
        return 0;
    }
    *code = (b[9] - '0') * 100 + (b[10] - '0') * 10 + (b[11] - '0');
    if (!status_known(*code)) {
        *why = "unexpected status code";
        return 0;
    }
    size_t i = 13, clen = 0;
    bool have_len = false, first = true;
    for (;;) {
        const char *lf = memchr(b + i, '\n', n - i);
        if (lf == NULL || lf == b + i || lf[-1] != '\r') {
            *why = "truncated or malformed header section";
            return 0;
        }
        size_t ll = (size_t)(lf - (b + i)) - 1; /* without CRLF */
        if (first) {
            first = false; /* the reason phrase */
        } else if (ll == 0) {
            i += 2;
            break;
        } else {
            const char *colon = memchr(b + i, ':', ll);
            if (colon == NULL || colon == b + i) {
                *why = "malformed header field in an answer";
                return 0;
            }
            if ((size_t)(colon - (b + i)) == 14 && strncasecmp(b + i, "Content-Length", 14) == 0) {
                have_len = true;
                clen = strtoul(colon + 1, NULL, 10);
            }
        }
        i += ll + 2;
    }
    /* Interim answers have no body, nor do answers to HEAD: the server's bodies never start with
     * a status line, so a header section followed by one, or by the end, had no body. */
    if (*code == 100 || i == n || (n - i >= 9 && memcmp(b + i, "HTTP/1.1 ", 9) == 0))
        return i;
    if (!have_len) {
        *why = "answer without Content-Length";
        return 0;
    }
    if (n - i < clen) {
        *why = "truncated body";
        return 0;
    }
    return i + clen;
}

static void check_answers(const char *b, size_t n)
{
    size_t i = 0;
    while (i < n) {
        int code;
        const char *why = NULL;
        size_t len = check_response(b + i, n - i, &code, &why);
        if (len == 0)
            die_answer(why, b, n);
        i += len;
    }
}

static void check_healthz(void)
{
    static const uint8_t req[] = "GET /healthz HTTP/1.1\r\nHost: f\r\nConnection: close\r\n\r\n";
    sender s = {.p = req, .left = sizeof req - 1};
    int fd = connect_server();
    size_t n;
    char *b = exchange(fd, &s, &n);
    close(fd);
    if (n < 12 || memcmp(b, "HTTP/1.1 200", 12) != 0)
        die_answer("/healthz not answered 200 after an input", b, n);
    check_answers(b, n);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t k = data[0] & 7;
    if (size < 1 + k)
        return 0;
    sender s = {.cuts = data + 1, .n_cuts = k, .p = data + 1 + k, .left = size - 1 - k};
    int fd = connect_server();
    size_t n;
    char *b = exchange(fd, &s, &n);
    close(fd);
    check_answers(b, n);
    free(b);
    check_healthz();
    return 0;
}
