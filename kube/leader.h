/* leader.h: leader election on a coordination.k8s.io/v1 Lease, as client-go does it.
 *
 * A candidate thread tries every retry_period (with jitter) to take the Lease: it creates it when
 * absent, or takes it over when it is released (no holder) or when its holder has not renewed it
 * for lease_duration as measured on this process's own clock since the record last changed (no
 * trust in other machines' clocks). Every update carries the resourceVersion read just before
 * (optimistic concurrency): two candidates can never both succeed. The leader renews every
 * retry_period; when it has not managed to renew for renew_deadline it stops leading
 * (on_stopped) and becomes a candidate again.
 *
 * kube_leader_is_leader() is the check to make before every action that only the leader may take:
 * it turns false as soon as renew_deadline has passed since the last successful renewal began,
 * even if the elector thread is stuck, and renew_deadline < lease_duration leaves the margin in
 * which no other candidate can have taken over. Stopping releases the Lease (holder cleared,
 * duration 1 s) so that another candidate takes over at once. When the client is shut down
 * (kube_client_shutdown) the elector thread ends: a leader stops leading (on_stopped) and, unable
 * to write, leaves the Lease to expire; kube_leader_stop / kube_leader_free must still be called.
 */
#ifndef DAGSCHED_KUBE_LEADER_H
#define DAGSCHED_KUBE_LEADER_H

#include <stdbool.h>
#include <stddef.h>

#include "client.h"

typedef struct kube_leader kube_leader;

typedef struct kube_leader_opts {
    const char *namespace;
    const char *name;        /* the Lease */
    const char *identity;    /* unique per process (e.g. pod name + random suffix) */
    double lease_duration_s; /* default 15 */
    double renew_deadline_s; /* default 10; must be < lease_duration */
    double retry_period_s;   /* default 2; renew_deadline must exceed 1.2 * retry_period */
    /* Called from the elector thread. on_started: this process now leads. on_stopped: it no
     * longer does (lost or released). on_new_leader: the observed holder changed. */
    void (*on_started)(void *user);
    void (*on_stopped)(void *user);
    void (*on_new_leader)(void *user, const char *identity);
    void *user;
} kube_leader_opts;

int kube_leader_new(kube_client *client, const kube_leader_opts *opts, kube_leader **out,
                    ds_err *err);
int kube_leader_start(kube_leader *le, ds_err *err);
/* Stop the elector; if leading, call on_stopped and release the Lease. Idempotent. */
void kube_leader_stop(kube_leader *le);
void kube_leader_free(kube_leader *le);
/* True while this process holds the Lease and renewed it within renew_deadline. */
bool kube_leader_is_leader(kube_leader *le);
/* The holder last observed ("" when none). */
void kube_leader_holder(kube_leader *le, char *buf, size_t size);

#endif
