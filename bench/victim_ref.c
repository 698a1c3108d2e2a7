/* victim_ref.c: the previous implementation of DSP Algorithm 1 (lib/victim.c before its scaling
 * work), kept as the reference that bench/bench_victim.c times and checks the library against:
 * both must return the same decisions on every instance. It applies the same rules as the library
 * (lib/preempt_rules.h: savable preemptors, the exchange rule with the wait for room that frees
 * anyway, the queue order, victims without a deadline; the normalisation; a given P_bar; the
 * greedy plan's unlimited retry) without any of its pruning, the wait computed by a plain scan
 * instead of lib/room.h's index. Not part of the library. */
#include "victim_ref.h"

#include "preempt_rules.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bounded input: tasks of either kind and nodes in one call. */
#define DS_VICTIM_MAX_ITEMS 1000000

typedef struct prio_ix {
    double prio;
    size_t idx;
} prio_ix;

static int cmp_desc(const void *pa, const void *pb)
{
    const prio_ix *a = pa, *b = pb;
    if (a->prio != b->prio)
        return a->prio > b->prio ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int cmp_asc(const void *pa, const void *pb)
{
    const prio_ix *a = pa, *b = pb;
    if (a->prio != b->prio)
        return a->prio < b->prio ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Working state of one call. Inputs are read-only; everything mutable is a private copy. */
typedef struct vctx {
    const ds_waiting_task *w;
    const ds_running_task *r;
    size_t n_nodes;
    const ds_dag *const *jobs;
    const ds_preempt_params *p;
    const ds_node_free *nodes; /* [n_nodes] the caller's, for the node speeds */

    ds_res *free_;          /* [n_nodes] */
    size_t *budget;         /* [n_nodes] evictions left */
    bool *taken;            /* [n_running] already chosen as a victim */
    bool *long_done;        /* [n_nodes] a long task was evicted there (window or this call) */
    size_t *by_node;        /* running indexes grouped by node, ascending priority within a node */
    size_t *node_start;     /* [n_nodes + 1] offsets into by_node */
    unsigned char *mark;    /* ancestors of the current preemptor (its job's DAG) */
    size_t *stack;          /* scratch for ds_dag_mark_ancestors, as large as the largest DAG */
    size_t *cand;           /* [n_running] eligible victims on one node, ascending priority */
    unsigned char *in_plan; /* [n_running] by candidate position */
    size_t *plan;           /* [n_running] candidate positions */
    size_t *best;           /* [n_running] running indexes of the best plan so far */
    int64_t *topk;          /* [DS_RES_N * topk_cap] largest requests per resource */
    size_t topk_cap;        /* min(max_victims_per_preemptor, n_running) */

    double pbar_half; /* P_bar / 2, so that gaps of huge priorities never overflow */
    size_t n_running;
    double wait_s; /* the current preemptor's wait, once known */
    bool wait_known;
    ds_res *free0; /* [n_nodes] the nodes' free resources at the start of the call */

    ds_decision *out;
    size_t n_out;
    size_t limit; /* min(max_evictions, out_cap) */
} vctx;

static int check_time(double v, const char *name, ds_err *err)
{
    if (!isfinite(v) || v < 0.0)
        return ds_err_set(err, "%s: must be a finite number >= 0 (got %g)", name, v);
    return 0;
}

static int check_params(const ds_preempt_params *p, ds_err *err)
{
    if (p == NULL)
        return ds_err_set(err, "preemption parameters: missing (got NULL)");
    if (check_time(p->epsilon_s, "epsilon_s", err) || check_time(p->epoch_s, "epoch_s", err) ||
        check_time(p->min_run_s, "min_run_s", err) || check_time(p->tau_s, "tau_s", err) ||
        check_time(p->long_task_s, "long_task_s", err))
        return -1;
    if (!isfinite(p->delta) || p->delta < 0.0 || p->delta > 1.0)
        return ds_err_set(err, "delta: must be between 0 and 1 (got %g)", p->delta);
    if (!isfinite(p->rho) || !(p->rho == 0.0 || p->rho > 1.0))
        return ds_err_set(err, "rho: must be 0 (no normalised-gap test) or > 1 (got %g)", p->rho);
    if (p->max_victims_per_preemptor < 1)
        return ds_err_set(err, "max_victims_per_preemptor: must be >= 1 (got %zu)",
                          p->max_victims_per_preemptor);
    return 0;
}

static int check_request(const ds_res *req, const char *what, size_t i, ds_err *err)
{
    for (int k = 0; k < DS_RES_N; k++)
        if (req->v[k] < 0)
            return ds_err_set(err, "%s[%zu].request.%s: must be >= 0 (got %lld)", what, i,
                              ds_res_name(k), (long long)req->v[k]);
    return 0;
}

static int check_task_ref(size_t job, size_t task, const ds_dag *const *jobs, size_t n_jobs,
                          const char *what, size_t i, ds_err *err)
{
    if (job == DS_NO_TASK)
        return 0;
    if (job >= n_jobs)
        return ds_err_set(err, "%s[%zu].job: must be below the number of jobs %zu (got %zu)", what,
                          i, n_jobs, job);
    if (task >= jobs[job]->n)
        return ds_err_set(err, "%s[%zu].task: must be below the %zu tasks of job %zu (got %zu)",
                          what, i, jobs[job]->n, job, task);
    return 0;
}

static int check_inputs(const ds_waiting_task *waiting, size_t n_waiting,
                        const ds_running_task *running, size_t n_running, const ds_node_free *nodes,
                        size_t n_nodes, const ds_dag *const *jobs, size_t n_jobs,
                        const ds_preempt_params *p, const ds_decision *out, size_t out_cap,
                        ds_err *err)
{
    if (check_params(p, err))
        return -1;
    if (n_waiting > DS_VICTIM_MAX_ITEMS)
        return ds_err_set(err, "waiting: at most %d tasks (got %zu)", DS_VICTIM_MAX_ITEMS,
                          n_waiting);
    if (n_running > DS_VICTIM_MAX_ITEMS)
        return ds_err_set(err, "running: at most %d tasks (got %zu)", DS_VICTIM_MAX_ITEMS,
                          n_running);
    if (n_nodes > DS_VICTIM_MAX_ITEMS)
        return ds_err_set(err, "nodes: at most %d nodes (got %zu)", DS_VICTIM_MAX_ITEMS, n_nodes);
    if (n_jobs > DS_VICTIM_MAX_ITEMS)
        return ds_err_set(err, "jobs: at most %d jobs (got %zu)", DS_VICTIM_MAX_ITEMS, n_jobs);
    if (waiting == NULL && n_waiting > 0)
        return ds_err_set(err, "waiting: missing (got NULL for %zu tasks)", n_waiting);
    if (running == NULL && n_running > 0)
        return ds_err_set(err, "running: missing (got NULL for %zu tasks)", n_running);
    if (nodes == NULL && n_nodes > 0)
        return ds_err_set(err, "nodes: missing (got NULL for %zu nodes)", n_nodes);
    if (jobs == NULL && n_jobs > 0)
        return ds_err_set(err, "jobs: missing (got NULL for %zu jobs)", n_jobs);
    if (out == NULL && out_cap > 0)
        return ds_err_set(err, "out: missing (got NULL with capacity %zu)", out_cap);
    for (size_t j = 0; j < n_jobs; j++)
        if (jobs[j] == NULL)
            return ds_err_set(err, "jobs[%zu]: missing DAG (got NULL)", j);

    for (size_t i = 0; i < n_waiting; i++) {
        const ds_waiting_task *t = &waiting[i];
        if (!isfinite(t->priority))
            return ds_err_set(err, "waiting[%zu].priority: must be a finite number (got %g)", i,
                              t->priority);
        if (isnan(t->t_allow_s))
            return ds_err_set(err, "waiting[%zu].t_allow_s: must be a number (got %g)", i,
                              t->t_allow_s);
        if (!isfinite(t->t_wait_s) || t->t_wait_s < 0.0)
            return ds_err_set(err, "waiting[%zu].t_wait_s: must be a finite number >= 0 (got %g)",
                              i, t->t_wait_s);
        if (check_request(&t->request, "waiting", i, err) ||
            check_task_ref(t->job, t->task, jobs, n_jobs, "waiting", i, err))
            return -1;
    }
    for (size_t i = 0; i < n_running; i++) {
        const ds_running_task *t = &running[i];
        if (!isfinite(t->priority))
            return ds_err_set(err, "running[%zu].priority: must be a finite number (got %g)", i,
                              t->priority);
        if (isnan(t->t_allow_s))
            return ds_err_set(err, "running[%zu].t_allow_s: must be a number (got %g)", i,
                              t->t_allow_s);
        if (!isfinite(t->ran_s) || t->ran_s < 0.0)
            return ds_err_set(err, "running[%zu].ran_s: must be a finite number >= 0 (got %g)", i,
                              t->ran_s);
        if (t->node >= n_nodes)
            return ds_err_set(err,
                              "running[%zu].node: must be below the number of nodes %zu "
                              "(got %zu)",
                              i, n_nodes, t->node);
        if (check_request(&t->request, "running", i, err) ||
            check_task_ref(t->job, t->task, jobs, n_jobs, "running", i, err))
            return -1;
    }
    return 0;
}

/* Condition C2 for preemptor a (whose ancestors are in ctx->mark) and candidate victim b: b is not
 * an ancestor of a in the same job's DAG. A task is never its own victim either. */
static bool independent(const vctx *c, const ds_waiting_task *a, const ds_running_task *b)
{
    if (a->job == DS_NO_TASK || b->job != a->job)
        return true;
    return b->task != a->task && !c->mark[b->task];
}

static bool preemptable(const vctx *c, size_t ri)
{
    const ds_running_task *b = &c->r[ri];
    return !c->taken[ri] && b->evictable && b->ran_s >= c->p->min_run_s &&
           b->t_allow_s > c->p->epoch_s && (c->p->deadline_victims || !isfinite(b->t_allow_s)) &&
           c->budget[b->node] > 0 && !(c->long_done[b->node] && ds_running_is_long(b, c->p));
}

static bool known_end(const ds_running_task *t)
{
    return isfinite(t->t_rem_s) && t->t_rem_s > 0.0;
}

/* When `req` fits node n as the tasks still running there end (INFINITY: never): the earliest
 * end by which the node's free room plus every task ended by then covers it. */
static double node_wait(const vctx *c, size_t n, const ds_res *req)
{
    if (ds_res_fits(req, &c->free_[n]))
        return 0.0;
    double best = INFINITY;
    for (size_t i = 0; i < c->n_running; i++) {
        const ds_running_task *t = &c->r[i];
        if (t->node != n || c->taken[i] || !known_end(t) || t->t_rem_s >= best)
            continue;
        ds_res by = c->free_[n];
        for (size_t j = 0; j < c->n_running; j++)
            if (c->r[j].node == n && !c->taken[j] && known_end(&c->r[j]) &&
                c->r[j].t_rem_s <= t->t_rem_s)
                ds_res_add(&by, &c->r[j].request);
        if (ds_res_fits(req, &by))
            best = t->t_rem_s;
    }
    return best;
}

/* When the room free at the start plus everything ended by then, pooled over the nodes, covers
 * `demand` (INFINITY: never). */
/* The room pooled over the nodes once every known end by `by_s` has come (by_s < 0: none): on
 * each node, what it has beyond its requests (a node over its capacity offers nothing). */
static ds_res pool_room_by(const vctx *c, double by_s)
{
    ds_res room = {{0}};
    for (size_t n = 0; n < c->n_nodes; n++) {
        ds_res node = c->free0[n];
        for (size_t j = 0; j < c->n_running; j++)
            if (known_end(&c->r[j]) && c->r[j].node == n && c->r[j].t_rem_s <= by_s)
                ds_res_add(&node, &c->r[j].request);
        for (int d = 0; d < DS_RES_N; d++)
            if (node.v[d] > 0)
                room.v[d] += node.v[d];
    }
    return room;
}

static double pool_wait(const vctx *c, const ds_res *demand)
{
    ds_res now = pool_room_by(c, -1.0);
    if (ds_res_fits(demand, &now))
        return 0.0;
    double best = INFINITY;
    for (size_t i = 0; i < c->n_running; i++) {
        const ds_running_task *t = &c->r[i];
        if (!known_end(t) || t->node >= c->n_nodes || t->t_rem_s >= best)
            continue;
        ds_res by = pool_room_by(c, t->t_rem_s);
        if (ds_res_fits(demand, &by))
            best = t->t_rem_s;
    }
    return best;
}

/* The preemptor's wait for room without evictions: on some node for itself, and after the tasks
 * ahead of it (lib/room.h); not a number when it never comes from the known ends while a task
 * within reach has none. */
static double room_wait(vctx *c, const ds_waiting_task *a, const ds_res *ahead)
{
    double own = INFINITY;
    for (size_t n = 0; n < c->n_nodes; n++) {
        double w = node_wait(c, n, &a->request);
        if (w < own)
            own = w;
    }
    ds_res demand = *ahead;
    ds_res_add(&demand, &a->request);
    double queued = pool_wait(c, &demand);
    double wait = queued > own ? queued : own;
    if (!isinf(wait))
        return wait;
    for (size_t i = 0; i < c->n_running; i++) {
        const ds_running_task *t = &c->r[i];
        if (!known_end(t) && t->node < c->n_nodes &&
            c->free0[t->node].v[DS_RES_CPU] > INT64_MIN / 8)
            return NAN;
    }
    return wait;
}

/* Phase-2 test and the reported normalised gap, under the parameters' normalisation. */
static bool gap_passes(const vctx *c, double pa, double pb)
{
    return ds_pair_gap_passes(c->p, pa, pb, c->pbar_half);
}

static double normalised_gap(const vctx *c, double pa, double pb)
{
    return ds_pair_normalised_gap(c->p, pa, pb, c->pbar_half);
}

/* The exchange rule (lib/preempt_rules.h) for preemptor a and victim b on node n; the queue
 * order. */
static bool pays(vctx *c, const ds_waiting_task *a, const ds_running_task *b, size_t n)
{
    if (c->p->queue_order && !ds_victim_after(a->order, a->priority, b->order, b->priority))
        return false;
    if (!c->p->payoff)
        return true;
    if (!c->wait_known) { /* the wait an eviction saves (ds_room_saved_wait) */
        c->wait_s = room_wait(c, a, &a->ahead);
        if (isinf(c->wait_s)) {
            ds_res queued = a->ahead;
            for (int k = 0; k < DS_RES_N; k++) {
                queued.v[k] -= a->ahead_gated.v[k];
                if (queued.v[k] < 0)
                    queued.v[k] = 0;
            }
            if (!isinf(room_wait(c, a, &queued)))
                c->wait_s = NAN;
        }
        c->wait_known = true;
    }
    double max_speed = 1.0;
    for (size_t k = 0; k < c->n_nodes; k++)
        if (c->nodes[k].speed > max_speed)
            max_speed = c->nodes[k].speed;
    ds_urgency_in u = {.t_allow_s = a->t_allow_s,
                       .t_rem_s = a->t_rem_s,
                       .job_slack_s = a->job_known ? a->job_slack_s : NAN,
                       .job_path_s = a->job_known ? a->job_path_s : NAN,
                       .job_steps = a->job_steps,
                       .max_speed = max_speed,
                       .start_s = c->p->start_latency_s};
    double slack = ds_preemptor_afford(&u, c->nodes[n].speed);
    return ds_eviction_pays(slack, isfinite(a->t_allow_s), b->ran_s, isfinite(b->t_allow_s),
                            ds_eviction_wait(b->t_rem_s, c->wait_s)) &&
           ds_victim_survives_redo(b->t_allow_s, b->ran_s);
}

static bool fits_anywhere(const vctx *c, const ds_res *req)
{
    for (size_t n = 0; n < c->n_nodes; n++)
        if (ds_res_fits(req, &c->free_[n]))
            return true;
    return false;
}

/* need = what `room` lacks for `req`, per resource (0 where it has enough); false when nothing is
 * lacking. */
static bool need_of(const ds_res *req, const ds_res *room, ds_res *need)
{
    bool lacking = false;
    for (int d = 0; d < DS_RES_N; d++) {
        int64_t v = 0;
        if (req->v[d] > 0 && req->v[d] > room->v[d]) {
            if (__builtin_sub_overflow(req->v[d], room->v[d], &v))
                v = INT64_MAX;
            lacking = true;
        }
        need->v[d] = v;
    }
    return lacking;
}

/* Build ctx->plan (candidate positions, mandatory top victim first) of at most k victims among
 * cand[0..top], with cand[top] included, that makes `req` fit on the node whose free resources are
 * `free_`. Lowest-priority helpers first: each step takes the lowest-priority candidate that
 * completes the fit, else the lowest-priority one that reduces a missing resource. Victims that
 * turn out unnecessary are dropped at the end. Returns the plan size, 0 when none. */
static size_t greedy_pass(vctx *c, const ds_res *req, const ds_res *free_, size_t top, size_t k)
{
    ds_res cur = *free_;
    ds_res_add(&cur, &c->r[c->cand[top]].request);
    size_t np = 0;
    c->plan[np++] = top;
    c->in_plan[top] = 1;
    ds_res need;
    bool lacking = need_of(req, &cur, &need);
    while (lacking && np < k) {
        size_t pick = SIZE_MAX, partial = SIZE_MAX;
        for (size_t s = 0; s < top; s++) {
            if (c->in_plan[s])
                continue;
            const ds_res *x = &c->r[c->cand[s]].request;
            bool completes = true, reduces = false;
            for (int d = 0; d < DS_RES_N; d++) {
                if (x->v[d] < need.v[d])
                    completes = false;
                if (need.v[d] > 0 && x->v[d] > 0)
                    reduces = true;
            }
            if (completes) {
                pick = s;
                break;
            }
            if (partial == SIZE_MAX && reduces)
                partial = s;
        }
        if (pick == SIZE_MAX)
            pick = partial;
        if (pick == SIZE_MAX)
            break;
        c->plan[np++] = pick;
        c->in_plan[pick] = 1;
        ds_res_add(&cur, &c->r[c->cand[pick]].request);
        lacking = need_of(req, &cur, &need);
    }
    if (!lacking) {
        /* Drop helpers that are not needed, most recently added first. */
        for (size_t i = np; i-- > 1;) {
            ds_res without = cur;
            ds_res_sub(&without, &c->r[c->cand[c->plan[i]]].request);
            if (ds_res_fits(req, &without)) {
                cur = without;
                c->in_plan[c->plan[i]] = 0;
                memmove(&c->plan[i], &c->plan[i + 1], (np - i - 1) * sizeof c->plan[0]);
                np--;
            }
        }
    }
    for (size_t i = 0; i < np; i++)
        c->in_plan[c->plan[i]] = 0;
    return lacking ? 0 : np;
}

/* As lib/victim.c: a pass limited to k that runs out of slots is retried unlimited and kept when
 * its pruned plan has at most k victims. */
static size_t greedy_plan(vctx *c, const ds_res *req, const ds_res *free_, size_t top, size_t k)
{
    size_t np = greedy_pass(c, req, free_, top, k);
    if (np > 0 || k > top)
        return np;
    np = greedy_pass(c, req, free_, top, top + 1);
    return np <= k ? np : 0;
}

/* Per resource, the kk largest requests seen so far, descending: c->topk[d * topk_cap + i]. */
static void topk_insert(vctx *c, const ds_res *x, size_t cnt[DS_RES_N], size_t kk)
{
    for (int d = 0; d < DS_RES_N; d++) {
        int64_t *row = &c->topk[(size_t)d * c->topk_cap];
        int64_t v = x->v[d];
        size_t i = cnt[d];
        if (i == kk) {
            if (kk == 0 || v <= row[kk - 1])
                continue;
            i = kk - 1; /* drop the smallest */
        } else {
            cnt[d]++;
        }
        for (; i > 0 && row[i - 1] < v; i--)
            row[i] = row[i - 1];
        row[i] = v;
    }
}

static bool topk_fits(const vctx *c, const ds_res *req, const ds_res *free_, const ds_res *top,
                      const size_t cnt[DS_RES_N], size_t m)
{
    for (int d = 0; d < DS_RES_N; d++) {
        if (req->v[d] <= 0)
            continue;
        const int64_t *row = &c->topk[(size_t)d * c->topk_cap];
        int64_t room;
        if (__builtin_add_overflow(free_->v[d], top->v[d], &room))
            room = INT64_MAX;
        for (size_t i = 0; i < cnt[d] && i < m && room < req->v[d]; i++)
            if (__builtin_add_overflow(room, row[i], &room))
                room = INT64_MAX;
        if (room < req->v[d])
            return false;
    }
    return true;
}

/* The best plan on node n for preemptor a: the smallest top victim position (lowest maximum
 * priority) for which a plan exists. Candidates above `bound_prio` are not considered (another
 * node already does at least as well). On success ctx->plan holds the plan (candidate positions,
 * sorted ascending) and the size is returned; 0 when none. */
static size_t plan_on_node(vctx *c, const ds_waiting_task *a, size_t n, bool phase2, size_t k,
                           double bound_prio, bool have_bound)
{
    size_t nc = 0;
    for (size_t j = c->node_start[n]; j < c->node_start[n + 1]; j++) {
        size_t ri = c->by_node[j];
        const ds_running_task *b = &c->r[ri];
        if (have_bound && b->priority > bound_prio)
            break; /* ascending: nothing further can win */
        if (!preemptable(c, ri) || !independent(c, a, b) || !pays(c, a, b, n))
            continue;
        if (phase2 && !gap_passes(c, a->priority, b->priority))
            continue;
        c->cand[nc++] = ri;
    }
    /* Two necessary conditions prune hopeless thresholds before the greedy search: all of
     * cand[0..t] together make room, and so do cand[t] plus the k-1 largest requests among
     * cand[0..t-1] (each resource bounded on its own). */
    ds_res prefix = c->free_[n];
    size_t kk = k < c->topk_cap ? k : c->topk_cap;
    size_t cnt[DS_RES_N] = {0};
    for (size_t t = 0; t < nc; t++) {
        const ds_res *x = &c->r[c->cand[t]].request;
        ds_res_add(&prefix, x);
        /* cand[t] plus the k-1 largest of cand[0..t-1], per resource; then remember cand[t]. */
        bool hopeless = kk < t + 1 && !topk_fits(c, &a->request, &c->free_[n], x, cnt, kk - 1);
        topk_insert(c, x, cnt, kk);
        if (hopeless || !ds_res_fits(&a->request, &prefix))
            continue; /* no k of cand[0..t] (with cand[t]) make room */
        size_t np = greedy_plan(c, &a->request, &c->free_[n], t, k);
        if (np > 0) {
            /* Sort the (small) plan by candidate position, i.e. ascending priority. */
            for (size_t i = 1; i < np; i++)
                for (size_t j = i; j > 0 && c->plan[j - 1] > c->plan[j]; j--) {
                    size_t tmp = c->plan[j];
                    c->plan[j] = c->plan[j - 1];
                    c->plan[j - 1] = tmp;
                }
            return np;
        }
    }
    return 0;
}

static void mark_ancestors(vctx *c, const ds_waiting_task *a)
{
    if (a->job == DS_NO_TASK)
        return;
    const ds_dag *d = c->jobs[a->job];
    memset(c->mark, 0, d->n);
    ds_dag_mark_ancestors(d, a->task, c->mark, c->stack);
}

/* Try to find and apply victims for waiting task ai. */
static void try_preempt(vctx *c, size_t ai, ds_preempt_reason reason, bool phase2)
{
    const ds_waiting_task *a = &c->w[ai];
    if (fits_anywhere(c, &a->request))
        return; /* the scheduler places it without evicting anything */
    mark_ancestors(c, a);
    c->wait_known = false;

    size_t left = c->limit - c->n_out;
    size_t best_n = 0, best_node = 0;
    double best_prio = 0.0;
    bool best_match = false;
    /* One victim per preemptor: every eligible candidate that makes room alone, ranked by
     * (dominant resource of the shortfall first, when same_resource_first; priority; node). */
    for (size_t n = 0; c->p->max_victims_per_preemptor == 1 && n < c->n_nodes; n++) {
        if (c->budget[n] == 0 || left == 0 ||
            !ds_preemptor_savable(a->t_allow_s, a->t_rem_s, c->nodes[n].speed,
                                  c->p->start_latency_s))
            continue;
        int want = -1;
        if (c->p->same_resource_first) {
            ds_res need;
            need_of(&a->request, &c->free_[n], &need);
            want = ds_dominant_resource(&need, &c->nodes[n].capacity);
        }
        for (size_t j = c->node_start[n]; j < c->node_start[n + 1]; j++) {
            size_t ri = c->by_node[j];
            const ds_running_task *b = &c->r[ri];
            if (!preemptable(c, ri) || !independent(c, a, b) || !pays(c, a, b, n))
                continue;
            if (phase2 && !gap_passes(c, a->priority, b->priority))
                continue;
            ds_res room = c->free_[n];
            ds_res_add(&room, &b->request);
            if (!ds_res_fits(&a->request, &room))
                continue;
            bool match =
                want >= 0 && ds_dominant_resource(&b->request, &c->nodes[n].capacity) == want;
            if (best_n == 0 || (match && !best_match) ||
                (match == best_match && b->priority < best_prio)) {
                best_n = 1;
                best_node = n;
                best_prio = b->priority;
                best_match = match;
                c->best[0] = ri;
            }
        }
    }
    for (size_t n = 0; c->p->max_victims_per_preemptor > 1 && n < c->n_nodes; n++) {
        size_t k = c->p->max_victims_per_preemptor;
        if (k > c->budget[n])
            k = c->budget[n];
        if (k > left)
            k = left;
        if (k == 0 || !ds_preemptor_savable(a->t_allow_s, a->t_rem_s, c->nodes[n].speed,
                                            c->p->start_latency_s))
            continue;
        size_t np = plan_on_node(c, a, n, phase2, k, best_prio, best_n > 0);
        if (np == 0)
            continue;
        double top = c->r[c->cand[c->plan[np - 1]]].priority;
        if (best_n == 0 || top < best_prio || (top == best_prio && np < best_n)) {
            best_n = np;
            best_node = n;
            best_prio = top;
            for (size_t i = 0; i < np; i++)
                c->best[i] = c->cand[c->plan[i]];
        }
    }
    if (best_n == 0)
        return;

    for (size_t i = 0; i < best_n; i++) {
        size_t ri = c->best[i];
        const ds_running_task *b = &c->r[ri];
        c->out[c->n_out++] = (ds_decision){
            .waiting = ai,
            .running = ri,
            .node = best_node,
            .reason = reason,
            .gap = a->priority - b->priority,
            .normalised_gap = normalised_gap(c, a->priority, b->priority),
        };
        c->taken[ri] = true;
        if (ds_running_is_long(b, c->p))
            c->long_done[best_node] = true;
        ds_res_add(&c->free_[best_node], &b->request);
        c->budget[best_node]--;
    }
    ds_res_sub(&c->free_[best_node], &a->request);
}

static void free_ctx(vctx *c, prio_ix *worder, prio_ix *rorder, bool *handled)
{
    free(c->free_);
    free(c->budget);
    free(c->taken);
    free(c->long_done);
    free(c->by_node);
    free(c->node_start);
    free(c->mark);
    free(c->stack);
    free(c->cand);
    free(c->in_plan);
    free(c->plan);
    free(c->best);
    free(c->topk);
    free(c->free0);
    free(worder);
    free(rorder);
    free(handled);
}

long ref_select_victims(const ds_waiting_task *waiting, size_t n_waiting,
                        const ds_running_task *running, size_t n_running, const ds_node_free *nodes,
                        size_t n_nodes, const ds_dag *const *jobs, size_t n_jobs,
                        const ds_preempt_params *p, ds_decision *out, size_t out_cap, ds_err *err)
{
    if (check_inputs(waiting, n_waiting, running, n_running, nodes, n_nodes, jobs, n_jobs, p, out,
                     out_cap, err))
        return -1;
    size_t limit = p->max_evictions < out_cap ? p->max_evictions : out_cap;
    if (n_waiting == 0 || n_running == 0 || n_nodes == 0 || limit == 0)
        return 0;

    vctx c = {.w = waiting,
              .r = running,
              .n_nodes = n_nodes,
              .jobs = jobs,
              .p = p,
              .nodes = nodes,
              .out = out,
              .limit = limit,
              .n_running = n_running};
    size_t max_dag = 1;
    for (size_t j = 0; j < n_jobs; j++)
        if (jobs[j]->n > max_dag)
            max_dag = jobs[j]->n;

    prio_ix *worder = calloc(n_waiting, sizeof *worder);
    prio_ix *rorder = calloc(n_running, sizeof *rorder);
    bool *handled = calloc(n_waiting, sizeof *handled);
    c.free_ = calloc(n_nodes, sizeof *c.free_);
    c.budget = calloc(n_nodes, sizeof *c.budget);
    c.taken = calloc(n_running, sizeof *c.taken);
    c.long_done = calloc(n_nodes, sizeof *c.long_done);
    c.by_node = calloc(n_running, sizeof *c.by_node);
    c.node_start = calloc(n_nodes + 1, sizeof *c.node_start);
    c.mark = calloc(max_dag, 1);
    c.stack = calloc(max_dag, sizeof *c.stack);
    c.cand = calloc(n_running, sizeof *c.cand);
    c.in_plan = calloc(n_running, 1);
    c.plan = calloc(n_running, sizeof *c.plan);
    c.best = calloc(n_running, sizeof *c.best);
    c.topk_cap =
        p->max_victims_per_preemptor < n_running ? p->max_victims_per_preemptor : n_running;
    c.topk = calloc((size_t)DS_RES_N * c.topk_cap, sizeof *c.topk);
    c.free0 = calloc(n_nodes, sizeof *c.free0);
    if (c.free0 == NULL || c.long_done == NULL || worder == NULL || rorder == NULL ||
        handled == NULL || c.free_ == NULL || c.budget == NULL || c.taken == NULL ||
        c.by_node == NULL || c.node_start == NULL || c.mark == NULL || c.stack == NULL ||
        c.cand == NULL || c.in_plan == NULL || c.plan == NULL || c.best == NULL || c.topk == NULL) {
        free_ctx(&c, worder, rorder, handled);
        return ds_err_set(err,
                          "victim selection: out of memory (%zu waiting, %zu running, %zu "
                          "nodes)",
                          n_waiting, n_running, n_nodes);
    }

    /* P_bar over all tasks, kept halved. */
    double pmin = waiting[0].priority, pmax = waiting[0].priority;
    for (size_t i = 0; i < n_waiting; i++) {
        pmin = fmin(pmin, waiting[i].priority);
        pmax = fmax(pmax, waiting[i].priority);
        worder[i] = (prio_ix){waiting[i].priority, i};
    }
    for (size_t i = 0; i < n_running; i++) {
        pmin = fmin(pmin, running[i].priority);
        pmax = fmax(pmax, running[i].priority);
        rorder[i] = (prio_ix){running[i].priority, i};
    }
    size_t n_all = n_waiting + n_running;
    c.pbar_half = p->pbar_given ? p->pbar_half
                  : n_all >= 2  ? (pmax / 2.0 - pmin / 2.0) / (double)(n_all - 1)
                                : 0.0;

    qsort(worder, n_waiting, sizeof *worder, cmp_desc);
    qsort(rorder, n_running, sizeof *rorder, cmp_asc);

    for (size_t n = 0; n < n_nodes; n++) {
        c.free_[n] = nodes[n].free_;
        c.free0[n] = nodes[n].free_;
        c.long_done[n] = nodes[n].long_evicted;
        c.budget[n] = nodes[n].evictions_left;
    }
    /* Group running tasks by node, keeping ascending priority within each node. */
    for (size_t i = 0; i < n_running; i++)
        c.node_start[running[i].node + 1]++;
    for (size_t n = 0; n < n_nodes; n++)
        c.node_start[n + 1] += c.node_start[n];
    for (size_t i = 0; i < n_running; i++) {
        size_t ri = rorder[i].idx;
        size_t n = running[ri].node;
        c.by_node[c.node_start[n]++] = ri;
    }
    for (size_t n = n_nodes; n > 0; n--)
        c.node_start[n] = c.node_start[n - 1];
    c.node_start[0] = 0;

    /* Phase 1: urgent (ds_task_urgent, judged on the nodes as they stand) and starving tasks. */
    bool *urgent_at = calloc(n_waiting, sizeof *urgent_at);
    if (urgent_at == NULL) {
        free_ctx(&c, worder, rorder, handled);
        return ds_err_set(err, "out of memory");
    }
    double max_speed = 1.0;
    for (size_t n = 0; n < n_nodes; n++)
        if (nodes[n].speed > max_speed)
            max_speed = nodes[n].speed;
    for (size_t ai = 0; ai < n_waiting; ai++) {
        const ds_waiting_task *a = &waiting[ai];
        ds_urgency_in u = {.t_allow_s = a->t_allow_s,
                           .t_rem_s = a->t_rem_s,
                           .job_slack_s = a->job_known ? a->job_slack_s : NAN,
                           .job_path_s = a->job_known ? a->job_path_s : NAN,
                           .job_steps = a->job_steps,
                           .max_speed = max_speed,
                           .start_s = p->start_latency_s,
                           .epsilon_s = p->epsilon_s,
                           .wait_s = p->payoff ? room_wait(&c, a, &a->ahead) : NAN};
        urgent_at[ai] = ds_task_urgent(&u);
    }
    for (size_t i = 0; i < n_waiting && c.n_out < c.limit; i++) {
        size_t ai = worder[i].idx;
        const ds_waiting_task *a = &waiting[ai];
        bool urgent = urgent_at[ai];
        bool starving = p->tau_s > 0.0 && a->t_wait_s >= p->tau_s;
        if (!urgent && !starving)
            continue;
        handled[ai] = true;
        try_preempt(&c, ai, urgent ? DS_REASON_URGENT : DS_REASON_STARVATION, false);
    }

    /* Phase 2: the first ceil(delta * n_waiting) by priority (tolerant of 0.7 * 10 = 7.000...1). */
    double want = ceil(p->delta * (double)n_waiting - 1e-9);
    size_t n_try = want <= 0.0 ? 0 : want >= (double)n_waiting ? n_waiting : (size_t)want;
    for (size_t i = 0; i < n_try && c.n_out < c.limit; i++) {
        size_t ai = worder[i].idx;
        if (handled[ai])
            continue;
        try_preempt(&c, ai, DS_REASON_PRIORITY, true);
    }

    long result = (long)c.n_out;
    free(urgent_at);
    free_ctx(&c, worder, rorder, handled);
    return result;
}
