/* watchstream.h: incremental parsing of a watch response, a stream of JSON event objects
 * ({"type":"ADDED","object":{...}}) that the API server writes one after another (newline
 * separated, though nothing here relies on newlines).
 *
 * The splitter finds object boundaries by tracking string, escape and nesting state byte by byte,
 * so the result is the same whatever the chunk boundaries are (one byte at a time, a whole stream
 * at once, or a split inside a string or an escape). Objects are bounded in size and nesting
 * depth; anything that is not an object at the top level is an error. After an error the splitter
 * stays failed: the caller drops the connection and reconnects.
 *
 * Private to kube/: informer.c. */
#ifndef DAGSCHED_KUBE_WATCHSTREAM_H
#define DAGSCHED_KUBE_WATCHSTREAM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"
#include "bytebuf.h"

#define KUBE_WATCH_MAX_EVENT (16u << 20) /* default bound on one event's size */
#define KUBE_WATCH_MAX_DEPTH 128         /* nesting bound (jansson's own limit is 2048) */

typedef int (*kube_split_emit)(void *user, const char *obj, size_t len);

typedef struct kube_json_splitter {
    ds_bytebuf buf; /* bytes of the object in progress that came in earlier chunks */
    size_t max_object;
    int depth;
    bool in_string;
    bool escape;
    bool failed;
    size_t total; /* bytes consumed, for error messages */
} kube_json_splitter;

void kube_splitter_init(kube_json_splitter *s, size_t max_object);
/* Consume a chunk, calling emit for every complete top-level object (emit's non-zero return stops
 * and is returned). -1 with err set on malformed or oversized input. */
int kube_splitter_feed(kube_json_splitter *s, const char *data, size_t len, kube_split_emit emit,
                       void *user, ds_err *err);
/* True when an object is partly received (a stream that ends here was cut short). */
bool kube_splitter_pending(const kube_json_splitter *s);
/* Forget any partial object and clear the failed state (for a new connection). */
void kube_splitter_reset(kube_json_splitter *s);
void kube_splitter_free(kube_json_splitter *s);

typedef enum {
    KUBE_WATCH_ADDED,
    KUBE_WATCH_MODIFIED,
    KUBE_WATCH_DELETED,
    KUBE_WATCH_BOOKMARK,
    KUBE_WATCH_ERROR
} kube_watch_type;

typedef struct kube_watch_event {
    kube_watch_type type;
    json_t *object;               /* owned reference: the resource, or a Status for ERROR */
    const char *resource_version; /* object.metadata.resourceVersion (into object), or NULL */
} kube_watch_event;

/* Parse one event object. Checks the type and that object is a JSON object; every type but ERROR
 * must carry metadata.resourceVersion. */
int kube_watch_event_parse(const char *text, size_t len, kube_watch_event *ev, ds_err *err);
void kube_watch_event_clear(kube_watch_event *ev);
const char *kube_watch_type_name(kube_watch_type t);

#endif
