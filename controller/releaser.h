/* releaser.h: the release window: the threads that send the round's releases (one PATCH each: the
 * scheduling gate removed and the release recorded, kube_release_pod) to the API server, at most
 * `window` at once, so that a round that releases hundreds of tasks does not send them one after
 * another. The round decides, submits each release (copied) and goes on; it waits for them
 * (ctl_releaser_wait) before it ends, so that the next round's snapshot sees them as released.
 * The client's own rate limit (kube_client_opts.qps) applies to every request.
 *
 * Each release ends in the `done` callback, called on the thread that sent it, in any order: the
 * request's result, how long it took, and the caller's payload (the callback owns it then). A
 * release taken while `may_write` says no (leadership lost, shutting down) is not sent: `done`
 * gets rc CTL_RELEASE_SKIPPED. Releases still queued at stop are skipped the same way. */
#ifndef DAGSCHED_CONTROLLER_RELEASER_H
#define DAGSCHED_CONTROLLER_RELEASER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "client.h"
#include "ds_error.h"

#define CTL_RELEASER_MAX_KV     4   /* annotations set or removed with a release (and the stamp) */
#define CTL_RELEASER_MAX_WINDOW 256 /* threads at most */
#define CTL_RELEASE_SKIPPED     (-2)

typedef struct ctl_release_req {
    struct ctl_release_req *next;
    char *ns, *name;
    char *kv[2 * CTL_RELEASER_MAX_KV]; /* key, value pairs; a NULL value removes the key */
    size_t n_kv;
    void *payload;
} ctl_release_req;

/* rc: kube_release_pod's (0 released, 1 released without the annotations, -1 failed, err set)
 * or CTL_RELEASE_SKIPPED; seconds: the request's duration (0 when skipped). */
typedef void (*ctl_releaser_done)(void *ud, const ctl_release_req *r, int rc, const ds_err *err,
                                  double seconds);
typedef bool (*ctl_releaser_may)(void *ud);

typedef struct ctl_releaser {
    kube_client *client;
    const char *gate;      /* borrowed: a constant */
    const char *stamp_key; /* borrowed: an annotation set to the time each request is sent */
    ctl_releaser_done done;
    ctl_releaser_may may_write;
    void *ud;
    pthread_mutex_t mu;
    pthread_cond_t work;             /* a release was queued, or stop */
    pthread_cond_t settled;          /* a release ended */
    ctl_release_req *head, *tail;    /* queued, FIFO (under mu) */
    size_t pending;                  /* queued or being sent (under mu) */
    size_t in_flight, max_in_flight; /* being sent now, and the most at once (under mu) */
    bool stop;                       /* under mu */
    pthread_t threads[CTL_RELEASER_MAX_WINDOW];
    size_t n_threads;
    bool started;
} ctl_releaser;

/* window: 1..CTL_RELEASER_MAX_WINDOW threads (releases in flight at most). stamp_key (a constant,
 * may be NULL): an annotation every release also sets, to the time its request is sent (RFC 3339,
 * microseconds), not the time it was queued. may_write may be NULL (always). 0, or -1 with err set
 * (no thread started). */
int ctl_releaser_start(ctl_releaser *r, kube_client *client, const char *gate,
                       const char *stamp_key, size_t window, ctl_releaser_done done,
                       ctl_releaser_may may_write, void *ud, ds_err *err);

/* Queue the release of pod ns/name with n_kv annotation pairs (copied; a NULL value removes the
 * key) and the caller's payload (handed to done). 0, or -1 (out of memory, too many pairs, not
 * started): nothing was queued and the caller keeps the payload. */
int ctl_releaser_submit(ctl_releaser *r, const char *ns, const char *name, const char *const *kv,
                        size_t n_kv, void *payload);

/* Wait until every release submitted so far has ended (its done called). */
void ctl_releaser_wait(ctl_releaser *r);

/* The most releases in flight at once since the start. */
size_t ctl_releaser_max_in_flight(ctl_releaser *r);

/* End the threads after the releases in flight; those still queued are skipped. Safe on a
 * releaser never started. */
void ctl_releaser_stop(ctl_releaser *r);

#endif
