/* bytebuf.h: a growable byte buffer with a hard size limit, always NUL-terminated once it holds
 * anything: the Kubernetes client's response bodies and URLs, the HTTP server's receive buffer,
 * the metrics text and the extender's answers all grow through it.
 *
 * A refused append (the limit, or out of memory) leaves the contents as they were and puts the
 * buffer in a failed state: every later append is refused too until ds_bytebuf_reset, so a run
 * of appends can be checked once at its end. */
#ifndef DAGSCHED_BYTEBUF_H
#define DAGSCHED_BYTEBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A limit that only memory bounds. */
#define DS_BYTEBUF_UNLIMITED SIZE_MAX

typedef struct ds_bytebuf {
    char *data;    /* NULL until the first append, then data[len] == '\0' */
    size_t len;    /* bytes held, without the NUL */
    size_t cap;    /* bytes allocated, the NUL included */
    size_t limit;  /* most bytes len may reach */
    bool overflow; /* an append was refused because of the limit */
    bool failed;   /* an append was refused (limit or out of memory): later ones are too */
} ds_bytebuf;

/* An empty buffer that will hold at most limit bytes (DS_BYTEBUF_UNLIMITED: memory bounds it). */
void ds_bytebuf_init(ds_bytebuf *b, size_t limit);

/* Append n bytes of p. 0, or -1 when the limit would be passed (sets overflow), out of memory, or
 * the buffer has failed before; the contents are then unchanged. */
int ds_bytebuf_append(ds_bytebuf *b, const void *p, size_t n);

/* Append a string literal (its length known at compile time); 0 or -1 as ds_bytebuf_append. */
#define DS_BYTEBUF_LIT(b, lit) ds_bytebuf_append((b), "" lit, sizeof(lit) - 1)

/* Append formatted text; 0 or -1 as ds_bytebuf_append (also -1 for an encoding error). */
int ds_bytebuf_printf(ds_bytebuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Room for n more bytes, for a writer that fills it itself: where they go (data + len), or NULL
 * when refused as ds_bytebuf_append would refuse them (the buffer then fails). Nothing counts,
 * and the NUL the writes may cover is not back, until ds_bytebuf_commit. Also a way to allocate
 * ahead: the room stays for later appends. */
char *ds_bytebuf_room(ds_bytebuf *b, size_t n);

/* Add the first n bytes written in the room to the contents, and the NUL after them. n beyond
 * the room, or a failed buffer, adds none: the buffer fails, its contents unchanged. */
void ds_bytebuf_commit(ds_bytebuf *b, size_t n);

/* Hand the contents to the caller, who frees them: NUL-terminated ("" allocated when nothing was
 * appended), their length in *len. NULL and *len 0 when the buffer has failed (its memory freed)
 * or out of memory. The buffer is empty afterwards, overflow and failed cleared, its limit kept. */
char *ds_bytebuf_take(ds_bytebuf *b, size_t *len);

/* Drop the first n bytes (all of them when n >= len); the capacity stays. */
void ds_bytebuf_consume(ds_bytebuf *b, size_t n);

/* Give memory back: reallocate to max_cap bytes when more are allocated and the contents (and
 * their NUL) fit; a failed reallocation keeps the larger buffer. Free it when it is empty. */
void ds_bytebuf_shrink(ds_bytebuf *b, size_t max_cap);

/* Empty the buffer and clear overflow and failed; the memory is kept for reuse. */
void ds_bytebuf_reset(ds_bytebuf *b);

/* Free the memory; the buffer is empty again with the same limit (overflow and failed stay). */
void ds_bytebuf_free(ds_bytebuf *b);

#endif
