/* term.c: the one rule for text from the cluster that reaches a terminal (see term.h). The two
 * wrapped streams and their UTF-8 decoding state are this module's, for the life of the process. */
#define _GNU_SOURCE /* fopencookie */
#include "term.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* A byte sink: the wrapped stream's file, or a buffer (cli_term_escape). */
typedef struct sink {
    FILE *f;
    char *buf;
    size_t size, len;
    bool full;
} sink;

static void put(sink *o, const char *s, size_t n)
{
    if (o->f != NULL) {
        fwrite(s, 1, n, o->f);
        return;
    }
    if (o->full || o->len + n >= o->size) {
        o->full = true;
        return;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

static void put_hex(sink *o, unsigned char b)
{
    static const char hex[] = "0123456789abcdef";
    char e[4] = {'\\', 'x', hex[b >> 4], hex[b & 15]};
    put(o, e, 4);
}

/* The decoder's state: the bytes of a UTF-8 sequence seen so far. */
typedef struct utf8_state {
    unsigned char pend[4];
    int n, need;
} utf8_state;

static void flush_pending(utf8_state *st, sink *o)
{
    for (int i = 0; i < st->n; i++)
        put_hex(o, st->pend[i]);
    st->n = st->need = 0;
}

/* Whether b may be byte `at` (1-based after the lead) of the sequence led by lead. */
static bool continues(unsigned char lead, int at, unsigned char b)
{
    if (b < 0x80 || b > 0xbf)
        return false;
    if (at != 1)
        return true;
    return !((lead == 0xe0 && b < 0xa0) || (lead == 0xed && b > 0x9f) ||
             (lead == 0xf0 && b < 0x90) || (lead == 0xf4 && b > 0x8f));
}

static void feed(utf8_state *st, sink *o, unsigned char b)
{
    if (st->n > 0) {
        if (continues(st->pend[0], st->n, b)) {
            st->pend[st->n++] = b;
            if (st->n < st->need)
                return;
            if (st->pend[0] == 0xc2 && st->pend[1] <= 0x9f)
                flush_pending(st, o); /* a C1 control */
            else
                put(o, (const char *)st->pend, (size_t)st->n);
            st->n = st->need = 0;
            return;
        }
        flush_pending(st, o); /* a broken sequence; b starts afresh */
    }
    if (b < 0x80) {
        if ((b < 0x20 && b != '\n' && b != '\t') || b == 0x7f)
            put_hex(o, b);
        else
            put(o, (const char *)&b, 1);
        return;
    }
    int need = b >= 0xc2 && b <= 0xdf   ? 2
               : b >= 0xe0 && b <= 0xef ? 3
               : b >= 0xf0 && b <= 0xf4 ? 4
                                        : 0;
    if (need == 0) {
        put_hex(o, b);
        return;
    }
    st->pend[0] = b;
    st->n = 1;
    st->need = need;
}

size_t cli_term_escape(const char *s, size_t n, char *out, size_t size)
{
    if (out == NULL || size == 0)
        return 0;
    out[0] = '\0';
    sink o = {.buf = out, .size = size};
    utf8_state st = {{0}, 0, 0};
    for (size_t i = 0; i < n && !o.full; i++)
        feed(&st, &o, (unsigned char)s[i]);
    flush_pending(&st, &o);
    return o.len;
}

const char *cli_oneline(const char *s, char *buf, size_t size)
{
    if (buf == NULL || size == 0)
        return "";
    size_t k = 0;
    for (const char *p = s != NULL ? s : ""; *p != '\0' && k + 3 < size; p++) {
        char e = *p == '\n' ? 'n' : *p == '\r' ? 'r' : *p == '\t' ? 't' : 0;
        if (e != 0) {
            buf[k++] = '\\';
            buf[k++] = e;
        } else {
            buf[k++] = *p;
        }
    }
    buf[k] = '\0';
    return buf;
}

/* ---- the wrapped streams ---- */

typedef struct wrapped {
    FILE *raw; /* a stream of its own on a duplicate of the original descriptor */
    utf8_state st;
} wrapped;

static wrapped out_w, err_w;

static ssize_t w_write(void *cookie, const char *buf, size_t n)
{
    wrapped *w = cookie;
    sink o = {.f = w->raw};
    for (size_t i = 0; i < n; i++)
        feed(&w->st, &o, (unsigned char)buf[i]);
    /* One write per flush of the wrapper: exit flushes the streams in any order. */
    if (fflush(w->raw) != 0 || ferror(w->raw))
        return -1;
    return (ssize_t)n;
}

static int w_close(void *cookie)
{
    wrapped *w = cookie;
    sink o = {.f = w->raw};
    flush_pending(&w->st, &o);
    return fclose(w->raw);
}

static FILE *wrap(FILE *orig, wrapped *w, int mode)
{
    fflush(orig);
    int fd = dup(fileno(orig));
    if (fd < 0)
        return NULL;
    w->raw = fdopen(fd, "w");
    if (w->raw == NULL) {
        close(fd);
        return NULL;
    }
    cookie_io_functions_t io = {.read = NULL, .write = w_write, .seek = NULL, .close = w_close};
    FILE *f = fopencookie(w, "w", io);
    if (f == NULL) {
        fclose(w->raw);
        return NULL;
    }
    setvbuf(f, NULL, mode, BUFSIZ);
    return f;
}

int cli_term_install(void)
{
    FILE *o = wrap(stdout, &out_w, _IOFBF);
    FILE *e = wrap(stderr, &err_w, _IOLBF);
    if (o == NULL || e == NULL) {
        if (o != NULL)
            fclose(o);
        if (e != NULL)
            fclose(e);
        return -1;
    }
    stdout = o;
    stderr = e;
    return 0;
}
