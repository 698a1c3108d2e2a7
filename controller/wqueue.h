/* wqueue.h: the controller's queue of informational pod writes (DSP annotations, waiting reasons
 * and the Waiting Events that go with them), as pure data structure: no I/O, no clock, no lock.
 *
 *  - Coalescing: a write has a key (namespace, pod name, kind); a newer write with the key of a
 *    queued one replaces its values in place (it keeps its place in line) and counts as coalesced.
 *  - Bound: at most max writes are queued; a write that finds the queue full is refused and counted
 *    as dropped (the caller writes it again in a later round).
 *  - Rate: a token bucket of qps tokens a second, holding at most burst tokens (burst = qps,
 *    at least 1); each write taken out of the queue spends one. qps <= 0: no limit.
 * Every time is passed in by the caller (seconds on any monotonic clock), so that the rules can be
 * tested without waiting. The queue owns copies of every string it holds. */
#ifndef DAGSCHED_CONTROLLER_WQUEUE_H
#define DAGSCHED_CONTROLLER_WQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTL_WQ_MAX_KV 3 /* annotations set (or removed) by one write */

/* The kinds of writes the controller queues. */
#define CTL_WQ_KIND_PUBLISH "publish" /* DSP priority, slack, level deadline */
#define CTL_WQ_KIND_WAITING "waiting" /* dagsched.io/waiting-reason (+ the Waiting Event) */

/* A write as the caller describes it (strings borrowed for the call). */
typedef struct ctl_wq_write {
    const char *ns, *name, *uid;       /* the pod (uid: for its Event, may be NULL) */
    const char *kind;                  /* coalescing key within the pod: "publish", "waiting" */
    size_t n_kv;                       /* 1..CTL_WQ_MAX_KV */
    const char *kv[2 * CTL_WQ_MAX_KV]; /* key, value pairs; a NULL value removes the key */
    const char *event_reason;          /* a Normal Event posted after the patch; NULL: none */
    const char *event_msg;
} ctl_wq_write;

/* A queued write (owned strings). */
typedef struct ctl_wq_item {
    uint64_t hash; /* of ns, name and kind */
    char *ns, *name, *uid, *kind;
    size_t n_kv;
    char *kv[2 * CTL_WQ_MAX_KV];
    char *event_reason, *event_msg;
    double enqueued_at; /* first enqueued (coalescing keeps it) */
} ctl_wq_item;

typedef struct ctl_wq {
    ctl_wq_item *ring; /* max slots; FIFO from head */
    size_t max, head, n;
    double qps, burst, tokens, last;
    uint64_t added, coalesced, dropped; /* totals since init */
} ctl_wq;

typedef enum {
    CTL_WQ_ADDED = 0,
    CTL_WQ_COALESCED, /* replaced the values of a queued write with the same key */
    CTL_WQ_DROPPED,   /* the queue is full */
    CTL_WQ_INVALID,   /* missing names, or n_kv out of 1..CTL_WQ_MAX_KV */
    CTL_WQ_NOMEM,
} ctl_wq_result;

/* max >= 1 writes; qps writes a second (<= 0: unlimited); now: the clock's current reading (the
 * bucket starts full). 0, or -1 when out of memory. */
int ctl_wq_init(ctl_wq *q, size_t max, double qps, double now);
void ctl_wq_free(ctl_wq *q);

ctl_wq_result ctl_wq_push(ctl_wq *q, const ctl_wq_write *w, double now);

/* Take the oldest write if the rate allows it at now: 1 and *out filled (the caller owns it:
 * ctl_wq_item_free); 0 when the queue is empty; 2 when a token is missing, *wait_s (may be NULL)
 * then receives how long until the next one. */
int ctl_wq_pop(ctl_wq *q, double now, ctl_wq_item *out, double *wait_s);

/* Remove the queued write with this key, if any (it is no longer wanted: not counted as
 * dropped). 1 when one was removed, else 0. The others keep their order. */
int ctl_wq_cancel(ctl_wq *q, const char *ns, const char *name, const char *kind);

/* Whether an item has this key. */
bool ctl_wq_item_is(const ctl_wq_item *it, const char *ns, const char *name, const char *kind);

/* Remove every queued write; returns how many (counted as dropped). */
size_t ctl_wq_clear(ctl_wq *q);

void ctl_wq_item_free(ctl_wq_item *it);

const char *ctl_wq_result_name(ctl_wq_result r);

#endif
