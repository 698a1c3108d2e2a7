/* memo.h: a bounded in-memory record of "what was done when", keyed by string, used to keep the
 * controller from repeating itself within one process's life: the same dry-run decision or
 * invalid-job Event is not posted every epoch, and a pod's DSP annotations are not rewritten
 * more often than a minimum interval. Nothing here is needed for safety (the eviction ledger and
 * the pod annotations hold what must survive a restart). Entries older than a given age are
 * pruned; beyond CTL_MEMO_MAX entries the oldest are forgotten first. Not thread-safe: owned by
 * the decision loop. */
#ifndef DAGSCHED_CONTROLLER_MEMO_H
#define DAGSCHED_CONTROLLER_MEMO_H

#include <stdbool.h>
#include <stddef.h>

#define CTL_MEMO_MAX     200000
#define CTL_MEMO_BUCKETS 8192

typedef struct ctl_memo_entry {
    struct ctl_memo_entry *next;
    double at;
    char key[]; /* NUL-terminated */
} ctl_memo_entry;

typedef struct ctl_memo {
    ctl_memo_entry *bucket[CTL_MEMO_BUCKETS];
    size_t n;
} ctl_memo;

void ctl_memo_init(ctl_memo *m);
void ctl_memo_free(ctl_memo *m);
/* When the key was last recorded, or a negative number when never (or forgotten). */
double ctl_memo_get(const ctl_memo *m, const char *key);
/* Is key due at time now: never recorded (or forgotten), or recorded at least `every` seconds
 * before? The rate limit of "at most once per interval" (an Event, a log line), with
 * ctl_memo_put once it was done. */
bool ctl_memo_due(const ctl_memo *m, const char *key, double now, double every);
/* Record key at time `at`. -1 on allocation failure (nothing recorded). */
int ctl_memo_put(ctl_memo *m, const char *key, double at);
/* Forget entries recorded before `before`. */
void ctl_memo_prune(ctl_memo *m, double before);

#endif
