/* jscan.c: strict, bounded, non-recursive JSON tokenizer (see jscan.h). */
#include "jscan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { ST_VALUE, ST_AFTER_VALUE, ST_KEY } pstate;

typedef struct parser {
    js_doc *d;
    const js_limits *lim;
    size_t pos;
    uint32_t *stack; /* container token indexes */
    unsigned depth;
    char *err;
} parser;

static int fail(parser *p, const char *what)
{
    snprintf(p->err, JS_ERR_MAX, "invalid JSON at byte %zu: %s", p->pos, what);
    return -1;
}

static void skip_ws(parser *p)
{
    const char *b = p->d->buf;
    size_t n = p->d->len;
    while (p->pos < n &&
           (b[p->pos] == ' ' || b[p->pos] == '\n' || b[p->pos] == '\r' || b[p->pos] == '\t'))
        p->pos++;
}

/* Append a token; returns its index or -1. */
static long push_tok(parser *p, js_type type, size_t start)
{
    js_doc *d = p->d;
    if (d->n >= p->lim->max_tokens) {
        snprintf(p->err, JS_ERR_MAX, "JSON has more than %zu values at byte %zu",
                 p->lim->max_tokens, start);
        return -1;
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        if (cap > p->lim->max_tokens)
            cap = p->lim->max_tokens;
        js_tok *nt = realloc(d->t, cap * sizeof *nt);
        if (nt == NULL) {
            snprintf(p->err, JS_ERR_MAX, "out of memory tokenizing JSON (%zu values)", d->n);
            return -1;
        }
        d->t = nt;
        d->cap = cap;
    }
    js_tok *t = &d->t[d->n];
    t->start = (uint32_t)start;
    t->end = (uint32_t)start;
    t->n = 0;
    t->type = (uint8_t)type;
    t->escaped = 0;
    t->next = (uint32_t)(d->n + 1);
    return (long)d->n++;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

size_t js_utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned cp;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07u;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

static unsigned hex4(const char *s);

/* At an opening quote: scan the string and append its token. */
static int parse_string(parser *p)
{
    const char *b = p->d->buf;
    size_t n = p->d->len;
    size_t start = ++p->pos;
    bool escaped = false;
    const unsigned char *u = (const unsigned char *)b;
    for (;;) {
        /* Fast path: plain printable ASCII. */
        size_t pos = p->pos;
        while (pos < n && u[pos] >= 0x20 && u[pos] < 0x80 && u[pos] != '"' && u[pos] != '\\')
            pos++;
        p->pos = pos;
        if (p->pos >= n)
            return fail(p, "unterminated string");
        unsigned char c = u[p->pos];
        if (c == '"')
            break;
        if (c < 0x20)
            return fail(p, "control character in a string");
        if (c >= 0x80) {
            size_t l = js_utf8_seq((const unsigned char *)b + p->pos, n - p->pos);
            if (l == 0)
                return fail(p, "invalid UTF-8 in a string");
            p->pos += l;
            continue;
        }
        if (c == '\\') {
            escaped = true;
            if (p->pos + 1 >= n)
                return fail(p, "unterminated string");
            char e = b[p->pos + 1];
            if (e == 'u') {
                if (p->pos + 5 >= n)
                    return fail(p, "truncated \\u escape");
                for (int i = 2; i < 6; i++)
                    if (hexval(b[p->pos + (size_t)i]) < 0)
                        return fail(p, "invalid \\u escape");
                /* Surrogates must come in pairs (high then low): Go never writes a lone one,
                 * and other JSON readers reject it. */
                unsigned cp = hex4(b + p->pos + 2);
                if (cp >= 0xDC00 && cp <= 0xDFFF)
                    return fail(p, "invalid \\u escape: lone low surrogate");
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    const char *lo = b + p->pos + 6;
                    if (p->pos + 11 >= n || lo[0] != '\\' || lo[1] != 'u' || hexval(lo[2]) < 0 ||
                        hexval(lo[3]) < 0 || hexval(lo[4]) < 0 || hexval(lo[5]) < 0 ||
                        hex4(lo + 2) < 0xDC00 || hex4(lo + 2) > 0xDFFF)
                        return fail(p, "invalid \\u escape: high surrogate without a low one");
                    p->pos += 6;
                }
                p->pos += 6;
                continue;
            }
            if (strchr("\"\\/bfnrt", e) == NULL || e == '\0')
                return fail(p, "invalid escape in a string");
            p->pos += 2;
            continue;
        }
        p->pos++;
    }
    long t = push_tok(p, JS_STRING, start);
    if (t < 0)
        return -1;
    p->d->t[t].end = (uint32_t)p->pos;
    p->d->t[t].escaped = escaped;
    p->pos++; /* closing quote */
    return 0;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int parse_number(parser *p)
{
    const char *b = p->d->buf;
    size_t n = p->d->len, start = p->pos;
    if (p->pos < n && b[p->pos] == '-')
        p->pos++;
    if (p->pos >= n || !is_digit(b[p->pos]))
        return fail(p, "invalid number");
    if (b[p->pos] == '0')
        p->pos++;
    else
        while (p->pos < n && is_digit(b[p->pos]))
            p->pos++;
    if (p->pos < n && b[p->pos] == '.') {
        p->pos++;
        if (p->pos >= n || !is_digit(b[p->pos]))
            return fail(p, "invalid number: digits expected after '.'");
        while (p->pos < n && is_digit(b[p->pos]))
            p->pos++;
    }
    if (p->pos < n && (b[p->pos] == 'e' || b[p->pos] == 'E')) {
        p->pos++;
        if (p->pos < n && (b[p->pos] == '+' || b[p->pos] == '-'))
            p->pos++;
        if (p->pos >= n || !is_digit(b[p->pos]))
            return fail(p, "invalid number: digits expected in the exponent");
        while (p->pos < n && is_digit(b[p->pos]))
            p->pos++;
    }
    long t = push_tok(p, JS_NUMBER, start);
    if (t < 0)
        return -1;
    p->d->t[t].end = (uint32_t)p->pos;
    return 0;
}

static int parse_literal(parser *p, const char *lit, js_type type)
{
    size_t l = strlen(lit);
    if (p->d->len - p->pos < l || memcmp(p->d->buf + p->pos, lit, l) != 0)
        return fail(p, "invalid literal");
    long t = push_tok(p, type, p->pos);
    if (t < 0)
        return -1;
    p->pos += l;
    p->d->t[t].end = (uint32_t)p->pos;
    return 0;
}

static int open_container(parser *p, js_type type)
{
    if (p->depth >= p->lim->max_depth) {
        snprintf(p->err, JS_ERR_MAX, "JSON nested deeper than %u levels at byte %zu",
                 p->lim->max_depth, p->pos);
        return -1;
    }
    long t = push_tok(p, type, p->pos);
    if (t < 0)
        return -1;
    p->stack[p->depth++] = (uint32_t)t;
    p->pos++;
    return 0;
}

static void close_container(parser *p)
{
    js_tok *t = &p->d->t[p->stack[--p->depth]];
    p->pos++;
    t->end = (uint32_t)p->pos;
    t->next = (uint32_t)p->d->n;
}

static int run(parser *p)
{
    const js_doc *d = p->d;
    const char *b = d->buf;
    pstate st = ST_VALUE;
    for (;;) {
        skip_ws(p);
        if (st == ST_VALUE) {
            if (p->pos >= d->len)
                return fail(p, "unexpected end of input, expected a value");
            if (p->depth > 0) {
                js_tok *parent = &p->d->t[p->stack[p->depth - 1]];
                if (parent->type == JS_ARRAY)
                    parent->n++;
            }
            char c = b[p->pos];
            int rc;
            if (c == '{') {
                if (open_container(p, JS_OBJECT))
                    return -1;
                skip_ws(p);
                if (p->pos < d->len && b[p->pos] == '}') {
                    close_container(p);
                    st = ST_AFTER_VALUE;
                } else {
                    st = ST_KEY;
                }
                continue;
            }
            if (c == '[') {
                if (open_container(p, JS_ARRAY))
                    return -1;
                skip_ws(p);
                if (p->pos < d->len && b[p->pos] == ']') {
                    close_container(p);
                    st = ST_AFTER_VALUE;
                } else {
                    st = ST_VALUE;
                }
                continue;
            }
            if (c == '"')
                rc = parse_string(p);
            else if (c == 't')
                rc = parse_literal(p, "true", JS_TRUE);
            else if (c == 'f')
                rc = parse_literal(p, "false", JS_FALSE);
            else if (c == 'n')
                rc = parse_literal(p, "null", JS_NULL);
            else if (c == '-' || is_digit(c))
                rc = parse_number(p);
            else
                return fail(p, "expected a value");
            if (rc)
                return -1;
            st = ST_AFTER_VALUE;
            continue;
        }
        if (st == ST_KEY) {
            if (p->pos >= d->len || b[p->pos] != '"')
                return fail(p, "expected a string as object key");
            if (parse_string(p))
                return -1;
            p->d->t[p->stack[p->depth - 1]].n++;
            skip_ws(p);
            if (p->pos >= d->len || b[p->pos] != ':')
                return fail(p, "expected ':' after an object key");
            p->pos++;
            st = ST_VALUE;
            continue;
        }
        /* ST_AFTER_VALUE */
        if (p->depth == 0) {
            if (p->pos != d->len)
                return fail(p, "unexpected data after the JSON value");
            return 0;
        }
        if (p->pos >= d->len)
            return fail(p, "unexpected end of input inside an object or array");
        const js_tok *top = &p->d->t[p->stack[p->depth - 1]];
        char c = b[p->pos];
        if (c == ',') {
            p->pos++;
            st = top->type == JS_OBJECT ? ST_KEY : ST_VALUE;
            continue;
        }
        if ((top->type == JS_OBJECT && c == '}') || (top->type == JS_ARRAY && c == ']')) {
            close_container(p);
            continue;
        }
        return fail(p, top->type == JS_OBJECT ? "expected ',' or '}' in an object"
                                              : "expected ',' or ']' in an array");
    }
}

int js_parse(js_doc *d, const char *buf, size_t len, const js_limits *lim, char err[JS_ERR_MAX])
{
    memset(d, 0, sizeof *d);
    err[0] = '\0';
    if (len > lim->max_len || len >= UINT32_MAX) {
        snprintf(err, JS_ERR_MAX, "JSON document larger than %zu bytes (got %zu)", lim->max_len,
                 len);
        return -1;
    }
    if (lim->max_depth == 0 || lim->max_tokens == 0) {
        snprintf(err, JS_ERR_MAX, "JSON limits: depth and token count must be positive");
        return -1;
    }
    d->buf = buf;
    d->len = len;
    parser p = {.d = d, .lim = lim, .pos = 0, .depth = 0, .err = err};
    p.stack = malloc(lim->max_depth * sizeof *p.stack);
    if (p.stack == NULL) {
        snprintf(err, JS_ERR_MAX, "out of memory tokenizing JSON");
        return -1;
    }
    int rc = run(&p);
    free(p.stack);
    if (rc) {
        js_free(d);
        return -1;
    }
    return 0;
}

void js_free(js_doc *d)
{
    free(d->t);
    memset(d, 0, sizeof *d);
}

static void put_utf8(char *out, size_t *o, unsigned cp)
{
    if (cp < 0x80) {
        out[(*o)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*o)++] = (char)(0xC0 | (cp >> 6));
        out[(*o)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out[(*o)++] = (char)(0xE0 | (cp >> 12));
        out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*o)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*o)++] = (char)(0xF0 | (cp >> 18));
        out[(*o)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*o)++] = (char)(0x80 | (cp & 0x3F));
    }
}

static unsigned hex4(const char *s)
{
    return (unsigned)(hexval(s[0]) << 12 | hexval(s[1]) << 8 | hexval(s[2]) << 4 | hexval(s[3]));
}

size_t js_str_max_len(const js_doc *d, size_t tok)
{
    return d->t[tok].end - d->t[tok].start;
}

long js_str_decode(const js_doc *d, size_t tok, char *out, size_t cap)
{
    const js_tok *t = &d->t[tok];
    if (t->type != JS_STRING || cap == 0)
        return -1;
    const char *s = d->buf + t->start;
    size_t n = t->end - t->start;
    if (!t->escaped) {
        if (n + 1 > cap)
            return -1;
        memcpy(out, s, n);
        out[n] = '\0';
        return (long)n;
    }
    /* Decoded output is never longer than the input (a 4-byte UTF-8 sequence comes from 12
     * input bytes, a 3-byte one from at least 6). Room is checked before each write, keeping one
     * byte for the NUL. */
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c != '\\' || s[i + 1] != 'u') {
            if (o + 2 > cap)
                return -1;
        }
        if (c != '\\') {
            out[o++] = c;
            i++;
            continue;
        }
        char e = s[i + 1];
        if (e != 'u') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            out[o++] = to[strchr(from, e) - from];
            i += 2;
            continue;
        }
        unsigned cp = hex4(s + i + 2);
        i += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
                unsigned lo = hex4(s + i + 2);
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                } else {
                    cp = 0xFFFD;
                }
            } else {
                cp = 0xFFFD;
            }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            cp = 0xFFFD;
        }
        size_t need = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
        if (o + need + 1 > cap)
            return -1;
        put_utf8(out, &o, cp);
    }
    out[o] = '\0';
    return (long)o;
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

bool js_str_eq_fold(const js_doc *d, size_t tok, const char *lit)
{
    const js_tok *t = &d->t[tok];
    if (t->type != JS_STRING)
        return false;
    size_t ll = strlen(lit);
    const char *s = d->buf + t->start;
    size_t n = t->end - t->start;
    char tmp[128];
    if (t->escaped) {
        if (n >= sizeof tmp)
            return false;
        long dl = js_str_decode(d, tok, tmp, sizeof tmp);
        if (dl < 0)
            return false;
        s = tmp;
        n = (size_t)dl;
    }
    if (n != ll)
        return false;
    for (size_t i = 0; i < n; i++)
        if (lower(s[i]) != lower(lit[i]))
            return false;
    return true;
}

long js_obj_get(const js_doc *d, size_t obj, const char *key)
{
    if (obj >= d->n || d->t[obj].type != JS_OBJECT)
        return -1;
    long found = -1;
    size_t i = obj + 1;
    for (uint32_t m = 0; m < d->t[obj].n; m++) {
        size_t val = i + 1;
        if (js_str_eq_fold(d, i, key))
            found = (long)val;
        i = d->t[val].next;
    }
    return found;
}

int js_int64(const js_doc *d, size_t tok, int64_t *out)
{
    const js_tok *t = &d->t[tok];
    if (t->type != JS_NUMBER)
        return -1;
    size_t n = t->end - t->start;
    char tmp[32];
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, d->buf + t->start, n);
    tmp[n] = '\0';
    if (strpbrk(tmp, ".eE") != NULL)
        return -1;
    errno = 0;
    char *end;
    long long v = strtoll(tmp, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = (int64_t)v;
    return 0;
}
