/* arena.c: bump allocator (see arena.h). */
#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK_SIZE (64 * 1024) /* largest regular block */
#define ARENA_FIRST_SIZE 1024        /* the first regular block; each next one doubles */
#define ARENA_ALIGN      16

struct ds_arena_block {
    ds_arena_block *next;
    size_t cap;
    _Alignas(ARENA_ALIGN) unsigned char data[];
};

void ds_arena_free(ds_arena *a)
{
    if (a == NULL)
        return;
    ds_arena_block *b = a->head;
    while (b != NULL) {
        ds_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->used = 0;
    a->cap = 0;
}

static ds_arena_block *block_new(size_t cap)
{
    if (cap > SIZE_MAX - sizeof(ds_arena_block))
        return NULL;
    ds_arena_block *b = malloc(sizeof(ds_arena_block) + cap);
    if (b != NULL) {
        b->next = NULL;
        b->cap = cap;
    }
    return b;
}

void *ds_arena_alloc(ds_arena *a, size_t size)
{
    if (a == NULL || size == 0 || size > SIZE_MAX - ARENA_ALIGN)
        return NULL;
    size_t rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (rounded > ARENA_BLOCK_SIZE / 4) {
        /* A block of its own, linked behind the current one so the current block stays in use. */
        ds_arena_block *b = block_new(rounded);
        if (b == NULL)
            return NULL;
        if (a->head == NULL) {
            a->head = b;
            a->used = rounded;
            a->cap = rounded;
        } else {
            b->next = a->head->next;
            a->head->next = b;
        }
        memset(b->data, 0, rounded);
        return b->data;
    }
    if (a->head == NULL || a->cap - a->used < rounded) {
        /* Small arenas (many small model builds kept side by side) stay small. */
        size_t cap = a->head == NULL ? ARENA_FIRST_SIZE : 2 * a->cap;
        if (cap > ARENA_BLOCK_SIZE)
            cap = ARENA_BLOCK_SIZE;
        while (cap < rounded)
            cap *= 2;
        ds_arena_block *b = block_new(cap);
        if (b == NULL)
            return NULL;
        b->next = a->head;
        a->head = b;
        a->used = 0;
        a->cap = cap;
    }
    void *p = a->head->data + a->used;
    a->used += rounded;
    memset(p, 0, rounded);
    return p;
}

void *ds_arena_calloc(ds_arena *a, size_t n, size_t size)
{
    if (n == 0 || size == 0 || n > SIZE_MAX / size)
        return NULL;
    return ds_arena_alloc(a, n * size);
}

char *ds_arena_strndup(ds_arena *a, const char *s, size_t len)
{
    if (s == NULL || len == SIZE_MAX)
        return NULL;
    char *p = ds_arena_alloc(a, len + 1);
    if (p == NULL)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *ds_arena_strdup(ds_arena *a, const char *s)
{
    if (s == NULL)
        return NULL;
    return ds_arena_strndup(a, s, strlen(s));
}

char *ds_arena_printf(ds_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = ds_arena_alloc(a, (size_t)n + 1);
    if (p == NULL)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}
