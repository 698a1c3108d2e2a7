/* bytebuf.c: growable byte buffer with a hard size limit (see bytebuf.h). */
#include "bytebuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CAP 256

void ds_bytebuf_init(ds_bytebuf *b, size_t limit)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    /* One byte stays for the NUL, so len + 1 never wraps. */
    b->limit = limit < SIZE_MAX ? limit : SIZE_MAX - 1;
    b->overflow = false;
    b->failed = false;
}

/* Room for n more bytes and the NUL: 0, or -1 (and the failed state) when refused. */
static int reserve(ds_bytebuf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (n > b->limit || b->len > b->limit - n) {
        b->overflow = true;
        b->failed = true;
        return -1;
    }
    size_t need = b->len + n + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : FIRST_CAP;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    if (cap > b->limit + 1)
        cap = b->limit + 1;
    char *nd = realloc(b->data, cap);
    if (nd == NULL) {
        b->failed = true;
        return -1;
    }
    if (b->data == NULL)
        nd[0] = '\0';
    b->data = nd;
    b->cap = cap;
    return 0;
}

int ds_bytebuf_append(ds_bytebuf *b, const void *p, size_t n)
{
    if (reserve(b, n) != 0)
        return -1;
    if (n > 0)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int ds_bytebuf_printf(ds_bytebuf *b, const char *fmt, ...)
{
    if (b->failed)
        return -1;
    /* Print into the spare room; when it is too small, grow to the exact size and print again. */
    size_t room = b->cap - b->len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(room > 0 ? b->data + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < room) {
        b->len += (size_t)n;
        return 0;
    }
    if (room > 0)
        b->data[b->len] = '\0'; /* undo what the cut print wrote */
    if (n < 0) {
        b->failed = true;
        return -1;
    }
    if (reserve(b, (size_t)n) != 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

char *ds_bytebuf_room(ds_bytebuf *b, size_t n)
{
    return reserve(b, n) == 0 ? b->data + b->len : NULL;
}

void ds_bytebuf_commit(ds_bytebuf *b, size_t n)
{
    if (b->data == NULL) {
        b->failed = true;
        return;
    }
    if (b->failed || n > b->cap - 1 - b->len) {
        b->failed = true;
        n = 0;
    }
    b->len += n;
    b->data[b->len] = '\0'; /* the room's writes may have covered it */
}

char *ds_bytebuf_take(ds_bytebuf *b, size_t *len)
{
    char *s = NULL;
    *len = 0;
    if (!b->failed) {
        s = b->data != NULL ? b->data : calloc(1, 1);
        if (s != NULL) {
            *len = b->len;
            b->data = NULL;
        }
    }
    ds_bytebuf_free(b);
    b->overflow = false;
    b->failed = false;
    return s;
}

void ds_bytebuf_consume(ds_bytebuf *b, size_t n)
{
    if (b->data == NULL)
        return;
    if (n > b->len)
        n = b->len;
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
    b->data[b->len] = '\0';
}

void ds_bytebuf_shrink(ds_bytebuf *b, size_t max_cap)
{
    if (b->len == 0) {
        free(b->data);
        b->data = NULL;
        b->cap = 0;
        return;
    }
    if (b->cap <= max_cap || b->len + 1 > max_cap)
        return;
    char *nd = realloc(b->data, max_cap);
    if (nd != NULL) {
        b->data = nd;
        b->cap = max_cap;
    }
}

void ds_bytebuf_reset(ds_bytebuf *b)
{
    b->len = 0;
    b->overflow = false;
    b->failed = false;
    if (b->data != NULL)
        b->data[0] = '\0';
}

void ds_bytebuf_free(ds_bytebuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}
