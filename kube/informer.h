/* informer.h: a list+watch loop keeping a cache of one kind of object in sync with the API server.
 *
 * A background thread lists (paginated: limit/continue), then watches from the list's
 * resourceVersion with bookmarks, applying every event to the cache and calling the callbacks
 * (from that thread, in event order, after the cache is updated; callbacks must not block for
 * long and must not stop or free the informer). What happens when things go wrong:
 *  - the watch ends normally (server timeout): it is reopened at once from the last
 *    resourceVersion seen (event or bookmark), so nothing is lost or repeated;
 *  - the connection drops or the server is unreachable: the watch is reopened from the last
 *    resourceVersion with exponential backoff and jitter; the cache keeps its content, `watching`
 *    is false and the last successful contact time stops advancing (see kube_informer_healthy);
 *  - 410 Gone / Expired (the resourceVersion is too old, at watch start or as an ERROR event): the
 *    informer relists and diffs the new list against the cache, calling add/update/delete for
 *    what changed in between (update only when the resourceVersion differs);
 *  - an event that cannot be parsed or decoded: logged and counted; a stream that is not valid
 *    JSON is dropped and reopened from the last good resourceVersion;
 *  - the client is shut down (kube_client_shutdown): the watch or list in progress is aborted and
 *    the thread ends (logged once, not counted as a failure); the cache keeps its content and
 *    kube_informer_stop / kube_informer_free must still be called.
 * Objects handed out are references to immutable snapshots (release with kube_obj_unref /
 * kube_obj_list_free). */
#ifndef DAGSCHED_KUBE_INFORMER_H
#define DAGSCHED_KUBE_INFORMER_H

#include <stdbool.h>
#include <stdint.h>

#include "cache.h"
#include "client.h"
#include "objects.h"

typedef struct kube_informer kube_informer;

typedef struct kube_informer_callbacks {
    void (*on_add)(void *user, const kube_meta *obj);
    void (*on_update)(void *user, const kube_meta *old, const kube_meta *cur);
    void (*on_delete)(void *user, const kube_meta *obj); /* the object's last known state */
    void (*on_synced)(void *user);                       /* after every complete (re)list */
    void *user;
} kube_informer_callbacks;

typedef struct kube_informer_opts {
    kube_kind kind;
    const char *namespace;      /* NULL: all namespaces */
    const char *label_selector; /* NULL: everything */
    const char *field_selector; /* NULL: everything */
    int page_size;              /* list page size; default 500 */
    int watch_timeout_s;        /* server-side watch timeout, randomised in [t, 2t); default 300 */
    double idle_timeout_s;      /* drop a watch silent this long; 0 (default): never */
    double backoff_max_s;       /* cap on reconnect backoff; default 30 */
    kube_decode_opts decode;
    kube_informer_callbacks cb;
} kube_informer_opts;

typedef struct kube_informer_status {
    bool synced;         /* a full list has been applied at least once */
    bool watching;       /* a watch stream is open right now */
    double last_ok_wall; /* wall clock of the last successful contact; 0: never */
    double last_ok_age_s;
    uint64_t lists;         /* complete lists applied (first one included) */
    uint64_t relists_gone;  /* relists caused by 410 Gone */
    uint64_t watch_starts;  /* watch streams opened */
    uint64_t failures;      /* failed lists or watches */
    uint64_t events;        /* watch events applied */
    uint64_t decode_errors; /* objects or events skipped as undecodable */
    char resource_version[64];
    char last_error[DS_ERR_MAX];
} kube_informer_status;

/* The informer uses the client; the client must outlive it. Strings in opts are copied. */
int kube_informer_new(kube_client *client, const kube_informer_opts *opts, kube_informer **out,
                      ds_err *err);
int kube_informer_start(kube_informer *inf, ds_err *err);
/* Stops the thread (aborting a watch or list in progress) and waits for it. Idempotent. */
void kube_informer_stop(kube_informer *inf);
void kube_informer_free(kube_informer *inf);

/* Wait until the first list has been applied; false on timeout, stop or client shutdown. */
bool kube_informer_wait_synced(kube_informer *inf, double timeout_s);
bool kube_informer_synced(kube_informer *inf);
/* Synced, and either watching now or in contact within max_age_s: callers should refuse to act
 * (evict, release) on a cache that is not healthy. */
bool kube_informer_healthy(kube_informer *inf, double max_age_s);
void kube_informer_get_status(kube_informer *inf, kube_informer_status *st);

const kube_meta *kube_informer_get(kube_informer *inf, const char *ns, const char *name);
int kube_informer_list(kube_informer *inf, kube_obj_list *out);
int kube_informer_by_index(kube_informer *inf, kube_index index, const char *value,
                           kube_obj_list *out);

/* Decode with these extended resource names as GPUs from now on (a reloaded policy's
 * gpuResourceNames). When they differ from the current ones, the current watch ends and the
 * informer lists again, decoding every object anew: the cache then holds objects decoded with the
 * new names (callbacks as for any relist: updates only for changed objects, then on_synced).
 * Returns 1 when a relist was asked for, 0 when the names are the same, -1 on allocation failure.
 * Names are copied. */
int kube_informer_set_gpu_names(kube_informer *inf, const char *const *names, size_t n,
                                ds_err *err);

/* Diagnostics and tests: while held, the current watch is closed and none is opened; when
 * released, the next watch starts from the given resourceVersion if one was set with
 * kube_informer_debug_set_rv (e.g. a stale one, to exercise the 410 path). */
void kube_informer_debug_hold(kube_informer *inf, bool hold);
void kube_informer_debug_set_rv(kube_informer *inf, const char *rv);

#endif
