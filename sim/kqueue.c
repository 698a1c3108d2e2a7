/* kqueue.c: what kube-scheduler's scheduling queue does with a pod whose scheduling attempt
 * failed, in the simulation (kube-scheduler v1.32, pkg/scheduler/backend/queue; the defaults of
 * KubeSchedulerConfiguration). The order of the queue is engine.c's (queue_key); this file keeps
 * the rest, for the pods of every policy once they are in kube-scheduler's queue:
 *
 *   active         the scheduling pass tries it (engine.c: schedule_pass takes the first active
 *                  pod in queue order and binds it or fails it)
 *   unschedulable  its last attempt failed (no node had room): it waits for a cluster event that
 *                  may make it schedulable, here a pod leaving a node (a run ending or evicted:
 *                  kube-scheduler's AssignedPodDelete, which NodeResourcesFit answers with Queue),
 *                  or for `max_unschedulable_s` in the pool (podMaxInUnschedulablePodsDuration,
 *                  checked every 30 s)
 *   backing off    moved by such an event before its back-off ended: it becomes active at the
 *                  first flush (every `backoff_flush_s`, kube-scheduler's flushBackoffQCompleted)
 *                  at or after its back-off ends
 *
 * The back-off of a pod is initial * 2^(attempts - 1), at most max (podInitialBackoffSeconds 1,
 * podMaxBackoffSeconds 10), counted from its last failed attempt; attempts counts the pod's
 * failed attempts since it entered the queue (a pod recreated after an eviction starts again at
 * 0). A failed attempt also moves the pod behind the pods that entered the queue before it: its
 * queue timestamp becomes the time of the failure (PrioritySort orders by priority, then that
 * timestamp).
 *
 * The parked pods (unschedulable or backing off) stay in engine.q, parked (wqueue.h), so that
 * everything else that looks at the pods in kube-scheduler's queue (the controller's in-flight
 * pods, DSP preemption) still sees them.
 *
 * The event heap holds at most one timeout event per pod in the queue (timeout_pending): a pod
 * that fails again before its event is due keeps that event, which, when due, finds the later
 * failure and moves itself to the first check 30 s after max_unschedulable_s from it, the time an
 * event per failure would have had. So the heap grows with the pods, not with the attempts (with
 * back-off disabled, every pod end retries every parked pod). */
#include <math.h>
#include <stdlib.h>

#include "engine_state.h"
#include "grow.h"

/* kube-scheduler checks the unschedulable pool for pods that stayed too long every 30 s. */
#define UNSCHED_FLUSH_S 30.0

int sim_kq_init(engine *e)
{
    e->unsched = NULL;
    e->unpark = NULL;
    e->n_unsched = e->cap_unsched = e->cap_unpark = 0;
    return 0;
}

void sim_kq_free(engine *e)
{
    free(e->unsched);
    free(e->unpark);
    e->unsched = NULL;
    e->unpark = NULL;
    e->n_unsched = e->cap_unsched = e->cap_unpark = 0;
}

double sim_kq_backoff(const sim_config *c, unsigned attempts)
{
    double d = c->pod_initial_backoff_s;
    for (unsigned i = 1; i < attempts; i++) {
        if (d >= c->pod_max_backoff_s - d)
            return c->pod_max_backoff_s;
        d += d;
    }
    return d < c->pod_max_backoff_s ? d : c->pod_max_backoff_s;
}

/* The first periodic flush at or after t. */
static double flush_at(double t, double period)
{
    if (!(period > 0))
        return t;
    return ceil(t / period - SIM_TIME_EPS) * period;
}

void sim_kq_entered(engine *e, etask *t)
{
    (void)e;
    t->attempts = 0;
    t->sq = SQ_ACTIVE;
    t->failed_at = -INFINITY;
    t->uh = NONE32;
    t->timeout_pending = 0; /* an event of the pod's earlier life is stale (its gen) */
}

/* The pod's timeout: the first check at or after max_unschedulable_s from its last failure;
 * none when that check is now or past (the check of the event being handled). */
static int push_timeout(engine *e, uint32_t job, uint32_t task)
{
    etask *t = &e->jobs[job]->t[task];
    if (!isfinite(e->c->max_unschedulable_s))
        return 0;
    double at = flush_at(t->failed_at + e->c->max_unschedulable_s, UNSCHED_FLUSH_S);
    if (!(at > e->now))
        return 0;
    if (sim_evheap_push(&e->h, at, SIM_EV_UNSCHED_TIMEOUT, job, task, t->gen) != 0)
        return sim_eng_oom(e, "events");
    t->timeout_pending = 1;
    return 0;
}

static void unsched_remove(engine *e, etask *t)
{
    if (t->uh == NONE32)
        return;
    size_t idx = t->uh;
    running_ref last = e->unsched[--e->n_unsched];
    if (idx < e->n_unsched) {
        e->unsched[idx] = last;
        e->jobs[last.job]->t[last.task].uh = (uint32_t)idx;
    }
    t->uh = NONE32;
}

void sim_kq_left(engine *e, etask *t)
{
    unsched_remove(e, t);
    t->sq = SQ_ACTIVE;
}

int sim_kq_failed(engine *e, uint32_t job, uint32_t task)
{
    etask *t = &e->jobs[job]->t[task];
    if (t->attempts == 0)
        e->r->sched_failed_pods++;
    if (t->attempts < UINT16_MAX)
        t->attempts++;
    t->failed_at = e->now;
    e->r->sched_failures++;
    /* The pod's queue timestamp becomes the time of the failure (kube order only: the upper
     * bounds' order has no timestamp). */
    if (e->p->order == SIM_ORDER_KUBE) {
        sim_qkey k = sim_wq_get(&e->q, t->qh)->key;
        k.k[1] = e->now;
        k.seq = e->seq++;
        if (sim_wq_reinsert(&e->q, &t->qh, k, 1) != 0)
            return sim_eng_oom(e, "waiting queue");
    } else {
        sim_wq_set_parked(&e->q, t->qh, 1);
    }
    if (e->n_unsched == e->cap_unsched) {
        running_ref *g = ds_grow(e->unsched, &e->cap_unsched, sizeof *g, 256);
        if (g == NULL)
            return sim_eng_oom(e, "unschedulable pods");
        e->unsched = g;
    }
    t->uh = (uint32_t)e->n_unsched;
    e->unsched[e->n_unsched++] = (running_ref){job, task};
    t->sq = SQ_UNSCHED;
    if (t->timeout_pending) /* due earlier: it moves itself (sim_kq_unsched_timeout) */
        return 0;
    return push_timeout(e, job, task);
}

/* Out of the unschedulable pool: backing off until its back-off ends (-> 0), else active (-> 1:
 * the caller unparks it). -1 on allocation failure. */
static int leave_pool(engine *e, uint32_t job, uint32_t task)
{
    etask *t = &e->jobs[job]->t[task];
    unsched_remove(e, t);
    double until = t->failed_at + sim_kq_backoff(e->c, t->attempts);
    if (e->now < until - SIM_TIME_EPS) {
        t->sq = SQ_BACKOFF;
        if (sim_evheap_push(&e->h, flush_at(until, e->c->backoff_flush_s), SIM_EV_BACKOFF, job,
                            task, t->gen) != 0)
            return sim_eng_oom(e, "events");
        return 0;
    }
    t->sq = SQ_ACTIVE;
    return 1;
}

static int requeue(engine *e, uint32_t job, uint32_t task)
{
    int rc = leave_pool(e, job, task);
    if (rc > 0)
        sim_wq_set_parked(&e->q, e->jobs[job]->t[task].qh, 0);
    return rc < 0 ? -1 : 0;
}

int sim_kq_pods_freed(engine *e)
{
    e->pods_freed = false;
    /* Every pod of the pool leaves it; those that become active are unparked together. */
    if (e->n_unsched > e->cap_unpark) {
        uint32_t *g = realloc(e->unpark, e->cap_unsched * sizeof *g);
        if (g == NULL)
            return sim_eng_oom(e, "unschedulable pods");
        e->unpark = g;
        e->cap_unpark = e->cap_unsched;
    }
    size_t n = 0;
    while (e->n_unsched > 0) {
        running_ref ref = e->unsched[e->n_unsched - 1];
        int rc = leave_pool(e, ref.job, ref.task);
        if (rc < 0)
            return -1;
        if (rc > 0)
            e->unpark[n++] = e->jobs[ref.job]->t[ref.task].qh;
    }
    sim_wq_set_parked_many(&e->q, e->unpark, n, 0);
    return 0;
}

/* The event's pod, when it is still the same pod in kube-scheduler's queue in state sq. */
static etask *event_pod(engine *e, const sim_event *ev, uint8_t sq)
{
    ejob *j = e->jobs[ev->a];
    if (j == NULL)
        return NULL;
    etask *t = &j->t[ev->b];
    if (t->state != T_QUEUED || t->gen != ev->gen || t->sq != sq)
        return NULL;
    return t;
}

int sim_kq_backoff_done(engine *e, const sim_event *ev)
{
    etask *t = event_pod(e, ev, SQ_BACKOFF);
    if (t == NULL || e->now < t->failed_at + sim_kq_backoff(e->c, t->attempts) - SIM_TIME_EPS)
        return 0; /* a later back-off of the same pod has its own event */
    t->sq = SQ_ACTIVE;
    sim_wq_set_parked(&e->q, t->qh, 0);
    return 0;
}

int sim_kq_unsched_timeout(engine *e, const sim_event *ev)
{
    ejob *j = e->jobs[ev->a];
    if (j == NULL)
        return 0;
    etask *t = &j->t[ev->b];
    if (t->state != T_QUEUED || t->gen != ev->gen)
        return 0; /* the pod was bound or is gone: its next life clears timeout_pending */
    t->timeout_pending = 0;
    if (t->sq != SQ_UNSCHED)
        return 0; /* it left the pool: its next failure pushes a new event */
    if (!(e->now - t->failed_at > e->c->max_unschedulable_s - SIM_TIME_EPS))
        return push_timeout(e, ev->a, ev->b); /* it failed again since */
    return requeue(e, ev->a, ev->b);
}
