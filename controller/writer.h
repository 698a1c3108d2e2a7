/* writer.h: the thread that carries out the controller's informational pod writes (DSP
 * annotations, waiting reasons and their Waiting Events) from the write queue (wqueue.h), so that
 * a decision round only computes and enqueues them: evictions, releases and nominations never
 * wait behind them.
 *
 * One mutex and one condition variable guard the queue; the round thread pushes (copies of its
 * strings), the writer thread pops one write at a time, at most --write-qps a second, and makes
 * it through kube/writes.h outside the lock. A write taken while this process may not write (not
 * the leader, shutting down) is dropped. Pending writes are dropped at stop. */
#ifndef DAGSCHED_CONTROLLER_WRITER_H
#define DAGSCHED_CONTROLLER_WRITER_H

#include <pthread.h>
#include <stdbool.h>

#include "wqueue.h"

struct ctl_controller;

typedef struct ctl_writer {
    struct ctl_controller *c;
    pthread_mutex_t mu;
    pthread_cond_t cv;       /* a write was queued, or stop */
    pthread_cond_t done;     /* the write in progress finished */
    ctl_wq q;                /* under mu */
    const ctl_wq_item *busy; /* the write in progress, NULL when none (under mu) */
    bool stop;               /* under mu */
    bool started;            /* the thread runs (set and read by the owner only) */
    pthread_t thread;
} ctl_writer;

/* Start the thread: at most max queued writes, qps a second (<= 0: no limit). 0, or -1 (out of
 * memory, no thread). */
int ctl_writer_start(ctl_writer *w, struct ctl_controller *c, size_t max, double qps);

/* Queue a write (copied); what became of it (wqueue.h), counted in the metrics. */
ctl_wq_result ctl_writer_push(ctl_writer *w, const ctl_wq_write *wr);

/* The write with this key is no longer wanted (the pod was released: its waiting reason must not
 * come back): remove it from the queue and, when it is being written now, wait for that write to
 * finish (one request at most), so that a change the caller makes next lands after it. */
void ctl_writer_cancel(ctl_writer *w, const char *ns, const char *name, const char *kind);

/* Writes queued now. */
size_t ctl_writer_depth(ctl_writer *w);

/* Stop the thread (after the write in progress, if any), drop what is queued, free the queue.
 * Safe on a writer never started. */
void ctl_writer_stop(ctl_writer *w);

#endif
