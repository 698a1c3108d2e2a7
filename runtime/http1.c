/* http1.c: HTTP/1.x request-head framing (see http1.h); RFC 9112 sections 2-6. */
#include "http1.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

static http1_result fail(http1_head *h, int status, const char *why)
{
    h->error_status = status;
    h->error = why;
    return HTTP1_ERROR;
}

static bool is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static bool is_ows(char c)
{
    return c == ' ' || c == '\t';
}

/* Length of the line at p (up to n bytes) without its LF and an optional CR before it; -1 when
 * the line holds a CR elsewhere (bare CR is not a line ending, and not allowed in a field). */
static long line_content(const char *p, size_t n)
{
    size_t k = n;
    if (k > 0 && p[k - 1] == '\n')
        k--;
    if (k > 0 && p[k - 1] == '\r')
        k--;
    return memchr(p, '\r', k) != NULL ? -1 : (long)k;
}

/* A request line whose end has not arrived within the limit: 414 when it looks like the start of
 * a request (a method and a target), else 400. */
static http1_result line_too_long(const char *p, size_t n, http1_head *h)
{
    size_t i = 0;
    while (i < n && is_tchar((unsigned char)p[i]))
        i++;
    if (i > 0 && i < n - 1 && p[i] == ' ' && p[i + 1] == '/')
        return fail(h, 414, "request line too long");
    return fail(h, 400, "malformed request line");
}

static http1_result parse_version(const char *v, size_t n, http1_head *h)
{
    if (n != 8 || memcmp(v, "HTTP/", 5) != 0 || v[6] != '.' || v[5] < '0' || v[5] > '9' ||
        v[7] < '0' || v[7] > '9')
        return fail(h, 400, "malformed HTTP version");
    if (v[5] != '1')
        return fail(h, 505, "HTTP version not supported");
    h->http10 = v[7] == '0';
    return HTTP1_OK;
}

/* method SP request-target SP HTTP-version */
static http1_result parse_request_line(const char *p, size_t n, http1_head *h)
{
    long k = line_content(p, n);
    if (k < 0)
        return fail(h, 400, "malformed request line");
    if ((size_t)k > HTTPD_MAX_REQUEST_LINE)
        return line_too_long(p, (size_t)k, h);
    size_t len = (size_t)k, m = 0;
    while (m < len && is_tchar((unsigned char)p[m]))
        m++;
    if (m == 0 || m >= sizeof h->method || m == len || p[m] != ' ')
        return fail(h, 400, "malformed request line");
    memcpy(h->method, p, m);
    h->method[m] = '\0';
    size_t t0 = m + 1, t = t0;
    while (t < len && (unsigned char)p[t] > 0x20 && (unsigned char)p[t] < 0x7f)
        t++;
    if (t == t0 || p[t0] != '/' || t == len || p[t] != ' ')
        return fail(h, 400, "malformed request line");
    const char *q = memchr(p + t0, '?', t - t0);
    size_t plen = (q != NULL ? (size_t)(q - p) : t) - t0;
    if (plen >= sizeof h->path)
        return fail(h, 414, "request path too long");
    memcpy(h->path, p + t0, plen);
    h->path[plen] = '\0';
    return parse_version(p + t + 1, len - t - 1, h);
}

/* Content-Length: 1*DIGIT; saturates so that any length above max_body is reported as such. */
static http1_result parse_length(const char *v, size_t n, size_t max_body, http1_head *h,
                                 bool *too_large)
{
    if (n == 0)
        return fail(h, 400, "malformed Content-Length");
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return fail(h, 400, "malformed Content-Length");
        if (x <= max_body)
            x = x * 10 + (uint64_t)(v[i] - '0');
    }
    if (x > max_body)
        *too_large = true;
    else
        h->content_length = (size_t)x;
    return HTTP1_OK;
}

static bool token_eq(const char *v, size_t n, const char *tok)
{
    return strlen(tok) == n && strncasecmp(v, tok, n) == 0;
}

/* Connection: a comma-separated list of options; close and keep-alive matter. */
static void parse_connection(const char *v, size_t n, bool *close, bool *keep)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && (is_ows(v[i]) || v[i] == ','))
            i++;
        size_t s = i;
        while (i < n && v[i] != ',' && !is_ows(v[i]))
            i++;
        if (token_eq(v + s, i - s, "close"))
            *close = true;
        else if (token_eq(v + s, i - s, "keep-alive"))
            *keep = true;
    }
}

typedef struct {
    bool have_length, chunked_or_other_te, too_large, conn_close, conn_keep;
    unsigned fields;
} field_state;

static http1_result parse_field(const char *p, size_t n, size_t max_body, http1_head *h,
                                field_state *st)
{
    if (is_ows(p[0]))
        return fail(h, 400, "obsolete header line folding");
    long k = line_content(p, n);
    if (k < 0)
        return fail(h, 400, "malformed header field");
    size_t len = (size_t)k, c = 0;
    while (c < len && is_tchar((unsigned char)p[c]))
        c++;
    if (c == 0 || c == len || p[c] != ':')
        return fail(h, 400, "malformed header field");
    if (++st->fields > HTTPD_MAX_HEADER_FIELDS)
        return fail(h, 431, "too many header fields");
    size_t vs = c + 1, ve = len;
    while (vs < ve && is_ows(p[vs]))
        vs++;
    while (ve > vs && is_ows(p[ve - 1]))
        ve--;
    for (size_t i = vs; i < ve; i++)
        if (((unsigned char)p[i] < 0x20 && p[i] != '\t') || p[i] == 0x7f)
            return fail(h, 400, "control character in a header field");
    const char *v = p + vs;
    size_t vn = ve - vs;
    if (token_eq(p, c, "content-length")) {
        if (st->have_length)
            return fail(h, 400, "duplicate Content-Length");
        st->have_length = true;
        return parse_length(v, vn, max_body, h, &st->too_large);
    }
    if (token_eq(p, c, "transfer-encoding"))
        st->chunked_or_other_te = true;
    else if (token_eq(p, c, "connection"))
        parse_connection(v, vn, &st->conn_close, &st->conn_keep);
    else if (token_eq(p, c, "expect") && token_eq(v, vn, "100-continue"))
        h->expect_continue = true;
    return HTTP1_OK;
}

static http1_result parse_fields(const char *p, size_t n, size_t max_body, http1_head *h)
{
    field_state st = {0};
    size_t i = 0;
    for (;;) {
        const char *lf = memchr(p + i, '\n', n - i);
        size_t ll = (size_t)(lf - (p + i)) + 1; /* the head ends with an empty line: lf exists */
        if (ll == 1 || (ll == 2 && p[i] == '\r'))
            break;
        http1_result r = parse_field(p + i, ll, max_body, h, &st);
        if (r != HTTP1_OK)
            return r;
        i += ll;
    }
    if (st.chunked_or_other_te && st.have_length)
        return fail(h, 400, "both Content-Length and Transfer-Encoding");
    if (st.chunked_or_other_te)
        return fail(h, 501, "Transfer-Encoding is not supported; send Content-Length");
    if (st.too_large)
        return fail(h, 413, "request body too large");
    h->keep_alive = h->http10 ? st.conn_keep && !st.conn_close : !st.conn_close;
    return HTTP1_OK;
}

/* Offset just after the empty line ending the head, searching from *scan; 0 when not there yet. */
static size_t find_head_end(const char *buf, size_t len, size_t from, size_t *scan)
{
    size_t i = *scan > from ? *scan : from;
    for (; i < len; i++) {
        if (buf[i] != '\n')
            continue;
        if (i + 1 < len && buf[i + 1] == '\n')
            return i + 2;
        if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
            return i + 3;
        if (i + 1 == len || (i + 2 == len && buf[i + 1] == '\r'))
            break; /* the next bytes decide */
    }
    *scan = i;
    return 0;
}

http1_result http1_parse_head(const char *buf, size_t len, size_t max_body, size_t *scan,
                              http1_head *out)
{
    memset(out, 0, sizeof *out);
    size_t lead = 0;
    while (lead < len && (buf[lead] == '\r' || buf[lead] == '\n'))
        lead++;
    if (lead > 2 * HTTP1_MAX_LEADING_EMPTY_LINES)
        return fail(out, 400, "too many empty lines before the request line");
    if (lead == len)
        return HTTP1_INCOMPLETE;
    const char *lf = memchr(buf + lead, '\n', len - lead);
    if (lf == NULL)
        return len - lead > HTTPD_MAX_REQUEST_LINE + 2 ? line_too_long(buf + lead, len - lead, out)
                                                       : HTTP1_INCOMPLETE;
    size_t line_end = (size_t)(lf - buf) + 1;
    http1_result r = parse_request_line(buf + lead, line_end - lead, out);
    if (r != HTTP1_OK)
        return r;
    size_t end = find_head_end(buf, len, line_end - 1, scan);
    if (end == 0)
        return len - line_end > HTTPD_MAX_HEADER_BYTES
                   ? fail(out, 431, "request header fields too large")
                   : HTTP1_INCOMPLETE;
    if (end - line_end > HTTPD_MAX_HEADER_BYTES + 2)
        return fail(out, 431, "request header fields too large");
    r = parse_fields(buf + line_end, end - line_end, max_body, out);
    if (r != HTTP1_OK)
        return r;
    out->head_len = end;
    return HTTP1_OK;
}

const char *http1_reason(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 204:
        return "No Content";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 409:
        return "Conflict";
    case 413:
        return "Content Too Large";
    case 414:
        return "URI Too Long";
    case 415:
        return "Unsupported Media Type";
    case 422:
        return "Unprocessable Content";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 503:
        return "Service Unavailable";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Unknown";
    }
}
