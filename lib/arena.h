/* arena.h: a bump allocator for objects that all die together (the results of one model build).
 *
 * Allocations are aligned for any type and are never freed one by one: ds_arena_free releases
 * everything. Blocks start at 1 KiB and double up to 64 KiB; large requests get a block of their
 * own, so waste stays bounded. */
#ifndef DAGSCHED_ARENA_H
#define DAGSCHED_ARENA_H

#include <stddef.h>

typedef struct ds_arena_block ds_arena_block;

typedef struct ds_arena {
    ds_arena_block *head; /* most recent block first */
    size_t used;          /* bytes used in head */
    size_t cap;           /* usable bytes in head */
} ds_arena;

/* A zero-initialised ds_arena is ready to use. */
void ds_arena_free(ds_arena *a);

/* `size` bytes, zeroed; NULL when out of memory or when size is 0. */
void *ds_arena_alloc(ds_arena *a, size_t size);

/* n * size bytes, zeroed; NULL on overflow or out of memory (and when n or size is 0). */
void *ds_arena_calloc(ds_arena *a, size_t n, size_t size);

/* Copy of the first len bytes of s, NUL-terminated. */
char *ds_arena_strndup(ds_arena *a, const char *s, size_t len);
char *ds_arena_strdup(ds_arena *a, const char *s);

/* printf into a new string. NULL when out of memory. */
char *ds_arena_printf(ds_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
