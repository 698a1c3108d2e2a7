/* release.c: what the admission webhook and the controller do to the pods of a policy with
 * `gated` (dagsched as shipped), in the simulation.
 *
 * The webhook gates every pod at creation. A gated task whose upstream tasks have all succeeded
 * (ready) waits in the controller's order (spec.order, joborder.h). A controller round runs when
 * something changed (a pod created, bound, finished or evicted) and at every epoch, at most once
 * per `round_interval_s` (the controller's --min-round-interval). It re-evaluates the jobs that
 * changed, then asks the core library which ready tasks to release (ds_admit_plan, lib/admit.h):
 * nodes' free room is allocatable minus the requests of running pods; released pods that are not
 * running yet (in kube-scheduler's queue, or on their way there) are in flight. A released pod
 * enters kube-scheduler's queue `release_latency_s` later (patch, watch, queue); the queue orders
 * it by pod priority, then the time kube-scheduler first saw the pod (its creation: a gated pod
 * waits in the scheduler's unschedulable pool with that timestamp, and ungating keeps it).
 *
 * With spec.fairness, the rule shares the cluster across tenants (the jobs' namespaces,
 * tenants.c): the use of each is the requests of its running pods, and the round's ready tasks
 * are decided in the fair queue's order (lib/fairshare.h), all of them at once.
 *
 * A task that holds the room its upstream task freed (an upcoming task, holds.c) is decided first,
 * before the pods in flight (ds_admit_task.first), as the controller decides it.
 *
 * The extender's criticality is the rank of a waiting task's DSP priority among all waiting
 * tasks (gated, released or queued), as ds_jobset_wait_rank computes it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h"
#include "engine_state.h"
#include "gang.h"
#include "grow.h"

/* Tasks taken from the head of the gated order before the rest is filtered (see admit_round). */
#define ROUND_PREFIX 32

int sim_gate_init(engine *e)
{
    sim_wq_init(&e->gq, 0x9a7e);
    sim_wq_init(&e->rq, 0x7a2c);
    e->last_round = -INFINITY;
    e->writes_done = -INFINITY;
    return 0;
}

void sim_gate_free(engine *e)
{
    sim_wq_free(&e->gq);
    sim_wq_free(&e->rq);
    free(e->inflight);
    e->inflight = NULL;
    e->n_inflight = e->cap_inflight = 0;
}

static sim_qkey gated_key(engine *e, const ejob *j, uint32_t task)
{
    ds_order_key ok;
    ds_order_key_of(&e->order, &j->sum, &j->ev[task], &ok);
    sim_qkey k = {.seq = e->seq++};
    for (int i = 0; i < DS_ORDER_KEY_N; i++)
        k.k[i] = ok.k[i];
    return k;
}

static sim_qkey rank_key(engine *e, const ejob *j, uint32_t task)
{
    sim_qkey k = {.seq = e->seq++};
    k.k[0] = -j->ev[task].priority;
    return k;
}

int sim_gate_ready(engine *e, uint32_t job, uint32_t task)
{
    ejob *j = e->jobs[job];
    etask *t = &j->t[task];
    if (isnan(t->created_at))
        t->created_at = e->now;
    t->runnable_since = e->now;
    if (sim_wq_insert(&e->gq, gated_key(e, j, task), job, task, &t->req, &t->gh) != 0)
        return sim_eng_oom(e, "gated tasks");
    if (sim_wq_insert(&e->rq, rank_key(e, j, task), job, task, &t->req, &t->rh) != 0)
        return sim_eng_oom(e, "waiting rank");
    t->state = T_GATED;
    e->round_wanted = true;
    size_t waiting = sim_wq_size(&e->rq);
    if (waiting > e->r->peak_waiting)
        e->r->peak_waiting = waiting;
    return 0;
}

void sim_gate_started(engine *e, etask *t)
{
    if (t->state == T_GATED && t->gh != NONE32) { /* a preemptor released with its room */
        sim_wq_remove(&e->gq, t->gh);
        t->gh = NONE32;
        e->r->releases++;
    }
    if (t->rh != NONE32) {
        sim_wq_remove(&e->rq, t->rh);
        t->rh = NONE32;
    }
}

/* New keys for one job's gated and waiting tasks after its evaluation; the queues are rebuilt
 * afterwards (sim_wq_rebuild). */
static void rekey_job(engine *e, uint32_t job)
{
    ejob *j = e->jobs[job];
    for (uint32_t i = 0; i < j->dag.n; i++) {
        etask *t = &j->t[i];
        if (t->state == T_GATED)
            sim_wq_set_key(&e->gq, t->gh, gated_key(e, j, i));
        if (t->rh != NONE32)
            sim_wq_set_key(&e->rq, t->rh, rank_key(e, j, i));
    }
}

static int rekey_queue(engine *e, sim_wqueue *q, bool gated)
{
    size_t n = sim_wq_size(q);
    if (sim_eng_grow_handles(e, n) != 0)
        return -1;
    sim_wq_collect(q, e->handles);
    for (size_t i = 0; i < n; i++) {
        const sim_wq_node *qn = sim_wq_get(q, e->handles[i]);
        const ejob *j = e->jobs[qn->job];
        sim_qkey k = gated ? gated_key(e, j, qn->task) : rank_key(e, j, qn->task);
        sim_wq_set_key(q, e->handles[i], k);
    }
    if (sim_wq_rebuild(q) != 0)
        return sim_eng_oom(e, "queue rebuild");
    return 0;
}

int sim_gate_rekey_all(engine *e)
{
    if (!e->p->gated)
        return 0;
    if (rekey_queue(e, &e->gq, true) != 0 || rekey_queue(e, &e->rq, false) != 0)
        return -1;
    e->round_wanted = true; /* the controller runs a round every epoch */
    return 0;
}

int sim_gate_schedule_round(engine *e)
{
    if (!e->p->gated || !e->round_wanted || e->round_pending || sim_wq_size(&e->gq) == 0)
        return 0;
    double at = e->last_round + e->c->round_interval_s;
    if (at < e->writes_done)
        at = e->writes_done;
    if (!(at > e->now))
        at = e->now;
    if (sim_evheap_push(&e->h, at, SIM_EV_ROUND, 0, 0, 0) != 0)
        return sim_eng_oom(e, "events");
    e->round_pending = true;
    return 0;
}

typedef struct inflight_key {
    int32_t priority;
    double created;
    size_t pos;
    ds_res request;
    uint32_t tenant;
} inflight_key;

static int cmp_inflight(const void *pa, const void *pb)
{
    const inflight_key *a = pa, *b = pb;
    if (a->priority != b->priority)
        return a->priority > b->priority ? -1 : 1;
    if (a->created != b->created)
        return a->created < b->created ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

typedef struct round_buf {
    inflight_key *order;
    ds_admit_node *nodes;
    ds_admit_task *inflight, *ready;
    ds_admit_result *out;
    uint32_t *gated;  /* handles of the first tasks of the gated queue, in order */
    uint32_t *queued; /* handles of kube-scheduler's queue */
    ds_res *bound;    /* per node: free room less what this round released there */
    ds_fair_tenant *tenants;
} round_buf;

static void round_buf_free(round_buf *b)
{
    free(b->order);
    free(b->nodes);
    free(b->inflight);
    free(b->ready);
    free(b->out);
    free(b->gated);
    free(b->queued);
    free(b->bound);
    free(b->tenants);
}

/* Would the tasks behind the first n of the gated order be decided alike by a call that included
 * them? They cannot change the decisions for the first n (the rule goes in order), and their
 * own decisions release nothing when: maxConcurrentReleases stopped the first n, or no look-ahead
 * slot is left and none of them fits the room left on any node (the room left is at most the free
 * room less what the first n took: in-flight tasks take some more). Then they stay gated, with
 * no effect on anything (a starving task among them reserves nodes only for tasks behind it). */
static bool rest_stays_gated(engine *e, const ds_admit_params *ap, const ds_admit_summary *sum,
                             round_buf *b, size_t n)
{
    if (sum->count[DS_ADMIT_HELD_LIMIT] > 0)
        return true;
    size_t slots =
        ap->lookahead > sum->inflight_unplaced ? ap->lookahead - sum->inflight_unplaced : 0;
    if (ap->mode == DS_ADMIT_ALL || sum->count[DS_ADMIT_LOOKAHEAD] < slots)
        return false;
    for (size_t k = 0; k < e->n_nodes; k++)
        b->bound[k] = b->nodes[k].free_;
    for (size_t i = 0; i < n; i++)
        if (b->out[i].verdict == DS_ADMIT_RELEASED && b->out[i].node < e->n_nodes)
            ds_res_sub(&b->bound[b->out[i].node], &b->ready[i].request);
    for (size_t k = 0; k < e->n_nodes; k++)
        if (sim_wq_first_fit_from(&e->gq, &b->bound[k], n) != SIM_WQ_NONE)
            return false;
    return true;
}

/* The write of the k-th release of a round (k from 1) is done this long after the round. */
static double write_delay(const engine *e, size_t k)
{
    if (!(e->c->release_cost_s > 0) || k == 0)
        return 0;
    size_t batches = (k + e->c->release_concurrency - 1) / e->c->release_concurrency;
    return (double)batches * e->c->release_cost_s;
}

static int release_task(engine *e, uint32_t job, uint32_t task, double write_s)
{
    etask *t = &e->jobs[job]->t[task];
    sim_wq_remove(&e->gq, t->gh);
    t->gh = NONE32;
    if (e->n_inflight == e->cap_inflight) {
        running_ref *g = ds_grow(e->inflight, &e->cap_inflight, sizeof *g, 256);
        if (g == NULL)
            return sim_eng_oom(e, "released pods");
        e->inflight = g;
    }
    t->run_idx = (uint32_t)e->n_inflight; /* its place among the released pods */
    e->inflight[e->n_inflight++] = (running_ref){job, task};
    t->state = T_RELEASING;
    t->gen++;
    e->r->releases++;
    if (sim_evheap_push(&e->h, e->now + write_s + e->c->release_latency_s, SIM_EV_RELEASE, job,
                        task, t->gen) != 0)
        return sim_eng_oom(e, "events");
    return 0;
}

/* Has a member of the job's gang been released (lib/gang.h, started): its other members are
 * released as any task. */
static bool gang_started(const ejob *j, uint32_t gang)
{
    for (size_t k = 0; k < j->dag.n; k++)
        if (j->t[k].gang == gang && j->t[k].state != T_BLOCKED && j->t[k].state != T_GATED)
            return true;
    return false;
}

static int admit_round(engine *e)
{
    size_t ng = sim_wq_size(&e->gq);
    size_t nq = sim_wq_size(&e->q);
    size_t nf = nq + e->n_inflight;
    size_t nn = e->n_nodes ? e->n_nodes : 1;
    round_buf b = {0};
    b.nodes = malloc(nn * sizeof *b.nodes);
    b.bound = malloc(nn * sizeof *b.bound);
    b.inflight = malloc((nf ? nf : 1) * sizeof *b.inflight);
    b.order = malloc((nf ? nf : 1) * sizeof *b.order);
    b.ready = malloc(ng * sizeof *b.ready);
    b.out = malloc(ng * sizeof *b.out);
    b.gated = malloc(ng * sizeof *b.gated);
    b.queued = malloc((nq ? nq : 1) * sizeof *b.queued);
    int rc = 0;
    if (b.nodes == NULL || b.bound == NULL || b.inflight == NULL || b.order == NULL ||
        b.ready == NULL || b.out == NULL || b.gated == NULL || b.queued == NULL) {
        rc = sim_eng_oom(e, "controller round");
        goto out;
    }
    for (size_t k = 0; k < e->n_nodes; k++) {
        b.nodes[k].allocatable = e->nodes[k].alloc;
        b.nodes[k].free_ = e->nodes[k].alloc;
        ds_res_sub(&b.nodes[k].free_, &e->nodes[k].used);
    }
    /* In flight: released pods not running yet (in kube-scheduler's queue or on their way), in
     * the order kube-scheduler pops them, as the controller gives them: pod priority, then the
     * oldest. */
    sim_wq_collect(&e->q, b.queued);
    for (size_t i = 0; i < nf; i++) {
        running_ref ref = i < nq ? (running_ref){sim_wq_get(&e->q, b.queued[i])->job,
                                                 sim_wq_get(&e->q, b.queued[i])->task}
                                 : e->inflight[i - nq];
        const ejob *j = e->jobs[ref.job];
        b.order[i] = (inflight_key){.priority = j->priority,
                                    .created = j->t[ref.task].created_at,
                                    .pos = i,
                                    .request = j->t[ref.task].req,
                                    .tenant = j->tenant};
    }
    qsort(b.order, nf, sizeof *b.order, cmp_inflight);
    for (size_t i = 0; i < nf; i++)
        b.inflight[i] = (ds_admit_task){.request = b.order[i].request, .tenant = b.order[i].tenant};
    const ds_policy *pol = &e->c->pol;
    ds_admit_params ap = {.mode = pol->release_admission,
                          .lookahead = pol->release_lookahead,
                          .max_concurrent = pol->max_concurrent_releases,
                          .hold_room = pol->release_hold_room};
    ds_admit_fair fair = {.n_tenants = e->n_tenants, .capacity = e->r->capacity};
    if (pol->fairness_enabled) {
        b.tenants = malloc((e->n_tenants ? e->n_tenants : 1) * sizeof *b.tenants);
        if (b.tenants == NULL) {
            rc = sim_eng_oom(e, "controller round");
            goto out;
        }
        for (size_t t = 0; t < e->n_tenants; t++)
            b.tenants[t] = (ds_fair_tenant){
                .used = e->tenant_used[t],
                .weight = ds_tenant_map_get(&pol->tenant_weights, e->tenant_name[t], 1.0),
                .cap = ds_tenant_map_get(&pol->tenant_caps, e->tenant_name[t], 0.0)};
        fair.tenants = b.tenants;
        ap.fair = &fair;
    }
    /* The rule costs O(ready tasks x nodes) and a long gated queue is often mostly tasks that fit
     * nowhere: decide the head of the order first, and all of it only when the tasks behind could
     * still be released (rest_stays_gated). The decisions are those of one call with every ready
     * task. Not with fairness: the fair queue picks from the whole order; nor while room is held
     * for upcoming tasks (holds.c): the rule decides them first, wherever they are in the order. */
    sim_holds_prune(e);
    size_t n =
        ap.fair != NULL || e->has_gangs || e->n_holds > 0 || ap.hold_room > 0 || ng < ROUND_PREFIX
            ? ng
            : ROUND_PREFIX;
    for (;;) {
        size_t got = sim_wq_collect_first(&e->gq, b.gated, n);
        for (size_t i = 0; i < got; i++) {
            const sim_wq_node *g = sim_wq_get(&e->gq, b.gated[i]);
            /* ds_order_key: k[0] is 0 for a starving task */
            b.ready[i] = (ds_admit_task){.request = g->req,
                                         .starving = g->key.k[0] == 0,
                                         .first = sim_hold_upcoming(e, g->job, g->task),
                                         .tenant = e->jobs[g->job]->tenant};
            const ejob *jb = e->jobs[g->job];
            /* Its job can still meet its deadline: it may hold room (spec.release.holdRoom). */
            b.ready[i].may_hold = isfinite(jb->deadline) && jb->sum.slack_s >= 0;
            const etask *t = &e->jobs[g->job]->t[g->task];
            if (t->gang != NONE32 && !gang_started(e->jobs[g->job], t->gang)) {
                b.ready[i].gang = ((size_t)g->job << 20) | t->gang; /* tasks < 2^20 a job */
                b.ready[i].gang_size = t->gang_size;
            }
        }
        ds_admit_summary sum;
        if (ds_admit_plan(&ap, b.nodes, e->n_nodes, b.inflight, nf, b.ready, got, b.out, &sum,
                          e->err) != 0) {
            ds_err_prefix(e->err, "controller round");
            rc = -1;
            goto out;
        }
        e->gate_limited = sum.count[DS_ADMIT_HELD_LIMIT] > 0;
        if (got == ng || rest_stays_gated(e, &ap, &sum, &b, got))
            break;
        n = ng;
    }
    size_t decided = n, written = 0;
    for (size_t i = 0; i < decided && rc == 0; i++) {
        if (!ds_admit_verdict_releases(b.out[i].verdict))
            continue;
        const sim_wq_node *g = sim_wq_get(&e->gq, b.gated[i]);
        uint32_t job = g->job, task = g->task;
        rc = release_task(e, job, task, write_delay(e, ++written));
        if (rc == 0 && b.ready[i].gang_size > 0 && b.out[i].verdict == DS_ADMIT_RELEASED &&
            b.out[i].node < e->n_nodes)
            rc = sim_hold_gang(e, job, task, (uint32_t)b.out[i].node,
                               ds_gang_hold_s(e->c->pol.cooldown_s));
    }
    if (written > 0)
        e->writes_done = e->now + write_delay(e, written);
out:
    round_buf_free(&b);
    return rc;
}

int sim_gate_round(engine *e)
{
    e->round_pending = false;
    e->round_wanted = false;
    e->last_round = e->now;
    e->r->rounds++;
    if (sim_wq_size(&e->gq) == 0)
        return 0;
    /* The controller evaluates the jobs at the time of the round; the simulation re-evaluates
     * the jobs whose tasks changed since their last evaluation (all of them every epoch). */
    bool changed = false;
    for (size_t a = 0; a < e->n_active; a++) {
        uint32_t wi = e->active[a];
        ejob *j = e->jobs[wi];
        if (!j->stale)
            continue;
        if (sim_eng_evaluate_job(e, j) != 0)
            return -1;
        rekey_job(e, wi);
        changed = true;
    }
    if (changed && (sim_wq_rebuild(&e->gq) != 0 || sim_wq_rebuild(&e->rq) != 0))
        return sim_eng_oom(e, "queue rebuild");
    return admit_round(e);
}

int sim_gate_release_arrives(engine *e, const sim_event *ev)
{
    ejob *j = e->jobs[ev->a];
    if (j == NULL)
        return 0;
    etask *t = &j->t[ev->b];
    if (t->state != T_RELEASING || t->gen != ev->gen)
        return 0;
    size_t idx = t->run_idx;
    running_ref last = e->inflight[--e->n_inflight];
    if (idx < e->n_inflight) {
        e->inflight[idx] = last;
        e->jobs[last.job]->t[last.task].run_idx = (uint32_t)idx;
    }
    t->run_idx = NONE32;
    return sim_eng_enqueue(e, ev->a, ev->b);
}

double sim_gate_criticality(const engine *e, double priority)
{
    size_t n = sim_wq_size(&e->rq);
    if (n <= 1)
        return 1.0;
    sim_qkey probe = {.seq = 0};
    probe.k[0] = -priority;
    for (int i = 1; i < SIM_QKEY_N; i++)
        probe.k[i] = -INFINITY;
    size_t higher = sim_wq_count_before(&e->rq, &probe);
    return 1.0 - (double)higher / (double)(n - 1);
}
