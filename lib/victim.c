/* victim.c: DSP Algorithm 1 (dependency-aware task preemption with normalised priorities), adapted
 * to Kubernetes' per-node fit (see victim.h and docs/model.md, "Preemption").
 *
 * Outline:
 *   P_bar = (P_max - P_min) / (n - 1) over every waiting and running task (0 when n < 2).
 *   Phase 1: waiting tasks by descending priority; an urgent (t_allow <= epsilon, or room forecast
 *     not to come in time for it or its job: ds_task_urgent) or starving (tau > 0 and
 *     t_wait >= tau) task that fits no node as things stand evicts preemptable running
 *     tasks it does not depend on (condition C2), on the one node where that makes it fit.
 *   In both phases a node is a place to make room only when the preemptor can still meet its
 *   deadline there if it starts now (lib/preempt_rules.h): no eviction for a lost deadline.
 *   Phase 2: the first ceil(delta * n_waiting) waiting tasks by descending priority, skipping the
 *     phase-1 ones and those that fit already, may evict running tasks they do not depend on whose
 *     priority is lower by a normalised gap: P_hat = P_A - P_B > 0 and (rho = 0 or
 *     P_hat / P_bar > rho).
 *   Per node, victims are taken lowest priority first (at most max_victims_per_preemptor and the
 *   node's budget); among nodes the plan whose highest-priority victim is lowest wins (then fewer
 *   victims, then the lower node index). With one victim per preemptor and same_resource_first,
 *   a victim of the dominant resource the preemptor lacks on its node wins over any other (3DSF).
 *   Every victim must pay (lib/preempt_rules.h: the exchange rule with the wait for room of
 *   lib/room.h, the victim's redo) and come after the preemptor in the queue order; a long task
 *   is not taken on a node where one was evicted within the window or earlier in the call. After
 * each decision a private copy of the node state is updated as if the victims were gone and the
 * preemptor placed.
 *
 * Cost (the decisions do not depend on any of this; bench/bench_victim.c checks them against the
 * previous, unpruned implementation): only running tasks that can ever be victims in this call
 * (evictable, ran long enough, slack above one epoch, on a node with budget) are candidates, kept
 * per node in ascending priority. A node is only searched when its free resources plus the K
 * largest candidate requests (per resource, K = max_victims_per_preemptor) could fit the
 * preemptor. Both phases stop as soon as no candidate is left; phase 2 stops at the first
 * preemptor whose gap to the lowest remaining candidate fails the test (later ones have lower
 * priority). With one victim per preemptor, a request that found no victim (for reasons other
 * than C2) is remembered until the next decision: a later request at least as large everywhere
 * finds none either. Ancestors (C2) are marked only when a candidate of the preemptor's own job is
 * met. Both phases take their tasks from a heap (phase 1: only the urgent and starving ones), so a
 * pass that stops early never sorts the whole waiting list. */
#include "victim.h"

#include <math.h>

#include "job_room.h"
#include "preempt_rules.h"
#include "room.h"
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

/* Failed requests remembered between two decisions (one victim per preemptor only). */
#define DS_VICTIM_FAIL_CAP 16

/* Working state of one call. Inputs are read-only; everything mutable is a private copy.
 * Candidates are the running tasks that may be victims at some point of the call: evictable, run
 * long enough, slack above one epoch, on a node whose budget starts above 0. A candidate is live
 * until it is taken or its node's budget runs out. */
typedef struct vctx {
    const ds_waiting_task *w;
    const ds_running_task *r;
    size_t n_nodes;
    const ds_dag *const *jobs;
    const ds_preempt_params *p;
    const ds_node_free *nodes; /* [n_nodes] the caller's, for the node speeds */
    double max_speed;          /* the fastest node's rate (the job deadline rule) */

    ds_res *free_;      /* [n_nodes] */
    size_t *budget;     /* [n_nodes] evictions left */
    bool *taken;        /* [n_running] already chosen as a victim */
    bool *long_done;    /* [n_nodes] a long task was evicted there (window or this call) */
    size_t *by_node;    /* candidates grouped by node, ascending priority within a node */
    size_t *node_start; /* [n_nodes + 1] offsets into by_node */
    size_t *node_live;  /* [n_nodes] live candidates per node */
    ds_res *room;       /* [n_nodes] per resource, the sum of the K largest live requests */
    size_t *lowest;     /* every candidate, ascending priority (ties: lower index) */
    size_t n_cand, lowest_pos;
    size_t live;             /* live candidates in all */
    uint32_t *mark;          /* mark[t] == mark_gen: t is an ancestor of the current preemptor */
    uint32_t mark_gen;       /* one generation per preemptor */
    bool marked;             /* the current preemptor's ancestors are marked */
    bool c2_excluded;        /* C2 excluded a candidate of the current preemptor */
    bool preemptor_excluded; /* a node or victim was skipped for a reason of the current
                              * preemptor's (deadline, exchange rule): not a failure of its
                              * request alone */
    size_t *stack;           /* scratch for the ancestor walk, as large as the largest DAG */
    size_t *cand;            /* [n_running] eligible victims on one node, ascending priority */
    unsigned char *in_plan;  /* [n_running] by candidate position */
    size_t *plan;            /* [n_running] candidate positions */
    size_t *best;            /* [n_running] running indexes of the best plan so far */
    int64_t *topk;           /* [DS_RES_N * topk_cap] largest requests per resource */
    size_t topk_cap;         /* min(max_victims_per_preemptor, n_running) */
    ds_res fail[DS_VICTIM_FAIL_CAP]; /* requests that found no victim since the last decision */
    size_t n_fail;

    double pbar_half; /* P_bar / 2, so that gaps of huge priorities never overflow */

    prio_ix *worder;     /* [n_waiting] heap of waiting tasks (each phase builds its own) */
    prio_ix *rorder;     /* [n_cand] candidates by ascending priority, while indexing */
    bool *handled;       /* [n_waiting] taken in phase 1 */
    bool *urgent;        /* [n_waiting] urgent (ds_task_urgent), for the decisions' reason */
    double *urgent_wait; /* [n_waiting] the forecast wait it was judged on (NAN: none) */

    /* When room frees anyway (lib/room.h), for the exchange rule: every running task's end,
     * indexed by node; the wait an eviction saves the current preemptor (ds_room_saved_wait),
     * computed on first need. */
    ds_room_task *room_tasks; /* [n_running] */
    ds_room_index room_ix;
    double wait_s;
    bool wait_known;

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
    if (p->pbar_given && (!isfinite(p->pbar_half) || p->pbar_half < 0.0))
        return ds_err_set(err, "pbar_half: must be a finite number >= 0 (got %g)", p->pbar_half);
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
        if (!isfinite(t->t_rem_s) || t->t_rem_s < 0.0)
            return ds_err_set(err, "waiting[%zu].t_rem_s: must be a finite number >= 0 (got %g)", i,
                              t->t_rem_s);
        if (t->n_job_needs > 0 && t->job_needs == NULL)
            return ds_err_set(err, "waiting[%zu].job_needs: missing (n_job_needs %zu)", i,
                              t->n_job_needs);
        if (check_request(&t->request, "waiting", i, err) ||
            check_task_ref(t->job, t->task, jobs, n_jobs, "waiting", i, err))
            return -1;
    }
    for (size_t n = 0; n < n_nodes; n++)
        if (!isfinite(nodes[n].speed) || nodes[n].speed < 0.0)
            return ds_err_set(err, "nodes[%zu].speed: must be a finite number >= 0 (got %g)", n,
                              nodes[n].speed);
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
        if (!isfinite(t->t_rem_s) || t->t_rem_s < 0.0)
            return ds_err_set(err, "running[%zu].t_rem_s: must be a finite number >= 0 (got %g)", i,
                              t->t_rem_s);
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

/* Mark the ancestors of preemptor a in its job's DAG with the current generation (its own walk
 * rather than ds_dag_mark_ancestors, so that no mark array has to be cleared per preemptor). */
static void mark_ancestors(vctx *c, const ds_waiting_task *a)
{
    c->marked = true;
    const ds_dag *d = c->jobs[a->job];
    uint32_t gen = c->mark_gen;
    size_t top = 0;
    c->stack[top++] = a->task;
    while (top > 0) {
        const ds_dag_task *v = &d->tasks[c->stack[--top]];
        for (size_t k = 0; k < v->n_up; k++) {
            size_t u = v->up[k];
            if (c->mark[u] != gen) {
                c->mark[u] = gen;
                c->stack[top++] = u;
            }
        }
    }
}

/* Condition C2 for preemptor a and candidate victim b: b is not an ancestor of a in the same
 * job's DAG. A task is never its own victim either. Ancestors are marked on first need. */
static bool independent(vctx *c, const ds_waiting_task *a, const ds_running_task *b)
{
    if (a->job == DS_NO_TASK || b->job != a->job)
        return true;
    if (b->task != a->task) {
        if (!c->marked)
            mark_ancestors(c, a);
        if (c->mark[b->task] != c->mark_gen)
            return true;
    }
    c->c2_excluded = true;
    return false;
}

ds_preemptable_status ds_running_preemptable(const ds_running_task *b, const ds_preempt_params *p)
{
    if (!b->evictable)
        return DS_NOT_EVICTABLE;
    if (!(b->ran_s >= p->min_run_s))
        return DS_TOO_YOUNG;
    if (!(b->t_allow_s > p->epoch_s))
        return DS_TOO_LITTLE_SLACK;
    if (!p->deadline_victims && isfinite(b->t_allow_s))
        return DS_HAS_DEADLINE;
    return DS_PREEMPTABLE;
}

/* A long task on a node where a long task went already (in the window or in this call). */
static bool long_blocked(const vctx *c, const ds_running_task *b)
{
    return c->long_done[b->node] && ds_running_is_long(b, c->p);
}

static bool preemptable(const vctx *c, size_t ri)
{
    return !c->taken[ri] && c->budget[c->r[ri].node] > 0 && !long_blocked(c, &c->r[ri]);
}

bool ds_running_is_long(const ds_running_task *b, const ds_preempt_params *p)
{
    return p->long_task_s > 0.0 && b->ran_s + b->t_rem_s >= p->long_task_s;
}

int ds_dominant_resource(const ds_res *x, const ds_res *capacity)
{
    int best = -1;
    double share = 0.0;
    for (int k = 0; k < DS_RES_N; k++) {
        if (x->v[k] <= 0 || capacity->v[k] <= 0)
            continue;
        double s = (double)x->v[k] / (double)capacity->v[k];
        if (s > share) {
            share = s;
            best = k;
        }
    }
    return best;
}

double ds_pbar_half(double pmin, double pmax, size_t n)
{
    if (n < 2 || !(pmax >= pmin))
        return 0.0;
    return (pmax / 2.0 - pmin / 2.0) / (double)(n - 1);
}

void ds_pbar_acc_init(ds_pbar_acc *acc)
{
    acc->pmin = INFINITY;
    acc->pmax = -INFINITY;
    acc->n = 0;
}

void ds_pbar_acc_add_job(ds_pbar_acc *acc, const ds_task_status *st, const ds_task_eval *ev,
                         size_t n)
{
    for (size_t t = 0; t < n; t++) {
        if (st[t].state != DS_TASK_WAITING && st[t].state != DS_TASK_RUNNING)
            continue;
        double p = ev[t].priority;
        if (!isfinite(p))
            continue;
        acc->pmin = fmin(acc->pmin, p);
        acc->pmax = fmax(acc->pmax, p);
        acc->n++;
    }
}

double ds_pbar_acc_half(const ds_pbar_acc *acc)
{
    return acc->n >= 2 ? ds_pbar_half(acc->pmin, acc->pmax, acc->n) : 0.0;
}

/* Computed on halves so that the differences of finite priorities stay finite. */
bool ds_gap_passes(double pa, double pb, double pbar_half, double rho)
{
    double hat_half = pa / 2.0 - pb / 2.0;
    if (!(hat_half > 0.0))
        return false;
    if (rho == 0.0)
        return true;
    return pbar_half > 0.0 && hat_half / pbar_half > rho;
}

double ds_normalised_gap(double pa, double pb, double pbar_half)
{
    if (!(pbar_half > 0.0))
        return INFINITY;
    return (pa / 2.0 - pb / 2.0) / pbar_half;
}

bool ds_pair_gap_passes(const ds_preempt_params *p, double pa, double pb, double pbar_half)
{
    if (p->norm != DS_NORM_RATIO)
        return ds_gap_passes(pa, pb, pbar_half, p->rho);
    if (!(pa > pb))
        return false;
    if (p->rho == 0.0 || !(pb > 0.0))
        return true;
    return pa / p->rho > pb; /* pa / pb > rho without an overflowing product */
}

double ds_pair_normalised_gap(const ds_preempt_params *p, double pa, double pb, double pbar_half)
{
    if (p->norm != DS_NORM_RATIO)
        return ds_normalised_gap(pa, pb, pbar_half);
    return pb > 0.0 ? pa / pb : INFINITY;
}

const char *ds_gap_norm_name(ds_gap_norm n)
{
    return n == DS_NORM_RATIO ? "ratio" : n == DS_NORM_PAPER ? "paper" : "unknown";
}

int ds_gap_norm_parse(const char *s, ds_gap_norm *out)
{
    if (strcmp(s, "ratio") == 0)
        *out = DS_NORM_RATIO;
    else if (strcmp(s, "paper") == 0)
        *out = DS_NORM_PAPER;
    else
        return -1;
    return 0;
}

/* Tolerant of floating error (0.7 * 10 = 7.000...1). */
size_t ds_delta_count(double delta, size_t n_waiting)
{
    double want = ceil(delta * (double)n_waiting - 1e-9);
    return !(want > 0.0) ? 0 : want >= (double)n_waiting ? n_waiting : (size_t)want;
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

/* One greedy pass: ctx->plan (candidate positions, mandatory top victim first) of at most `limit`
 * victims among cand[0..top], with cand[top] included, that makes `req` fit on the node whose free
 * resources are `free_`. Lowest-priority helpers first: each step takes the lowest-priority
 * candidate that completes the fit, else the lowest-priority one that reduces a missing resource.
 * Victims that turn out unnecessary are dropped at the end. Returns the plan size, 0 when none. */
static size_t greedy_pass(vctx *c, const ds_res *req, const ds_res *free_, size_t top, size_t limit)
{
    size_t k = limit;
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

/* A plan of at most k victims (see greedy_pass). A greedy pass limited to k can spend a slot on a
 * small helper and run out of slots, although a plan of k exists that the same pass finds when it
 * may take more and then drops the helpers that turned out unnecessary; so when the limited pass
 * fails, an unlimited one is tried and kept if its pruned plan has at most k victims. Still a
 * heuristic (the exact problem is a multi-dimensional cover): docs/model.md states the bound. */
static size_t greedy_plan(vctx *c, const ds_res *req, const ds_res *free_, size_t top, size_t k)
{
    size_t np = greedy_pass(c, req, free_, top, k);
    if (np > 0 || k > top)
        return np;
    np = greedy_pass(c, req, free_, top, top + 1);
    return np <= k ? np : 0;
}

/* Can preemptor a still meet its deadline if it starts now on node n? Remembered per preemptor,
 * so that a failure caused by the deadline is not taken for a failure of the request alone. */
static bool savable_on(vctx *c, const ds_waiting_task *a, size_t n)
{
    if (ds_preemptor_savable(a->t_allow_s, a->t_rem_s, c->nodes[n].speed, c->p->start_latency_s))
        return true;
    c->preemptor_excluded = true;
    return false;
}

/* The preemptor's figures for ds_task_urgent and ds_preemptor_afford (lib/preempt_rules.h). */
static ds_urgency_in urgency_of(const vctx *c, const ds_waiting_task *a)
{
    return (ds_urgency_in){.t_allow_s = a->t_allow_s,
                           .t_rem_s = a->t_rem_s,
                           .job_slack_s = a->job_known ? a->job_slack_s : NAN,
                           .job_path_s = a->job_known ? a->job_path_s : NAN,
                           .job_steps = a->job_steps,
                           .max_speed = c->max_speed,
                           .start_s = c->p->start_latency_s,
                           .epsilon_s = c->p->epsilon_s,
                           .wait_s = NAN}; /* not forecast */
}

/* The exchange rule (lib/preempt_rules.h) for preemptor a and victim b on node n, with the time
 * room frees anyway for a (lib/room.h, as the decisions so far left the nodes). */
static bool pays(vctx *c, const ds_waiting_task *a, const ds_running_task *b, size_t n)
{
    if (!c->p->payoff)
        return true;
    if (!c->wait_known) {
        c->wait_s = ds_room_saved_wait(&c->room_ix, c->room_tasks, c->taken, c->free_, &a->request,
                                       &a->ahead, &a->ahead_gated);
        c->wait_known = true;
    }
    ds_urgency_in u = urgency_of(c, a);
    double slack = ds_preemptor_afford(&u, c->nodes[n].speed);
    double wait = ds_eviction_wait(b->t_rem_s, c->wait_s);
    if (ds_eviction_pays(slack, isfinite(a->t_allow_s), b->ran_s, isfinite(b->t_allow_s), wait) &&
        ds_victim_survives_redo(b->t_allow_s, b->ran_s))
        return true;
    c->preemptor_excluded = true;
    return false;
}

/* The queue-order rule (lib/preempt_rules.h) for preemptor a and victim b. */
static bool after(vctx *c, const ds_waiting_task *a, const ds_running_task *b)
{
    if (!c->p->queue_order || ds_victim_after(a->order, a->priority, b->order, b->priority))
        return true;
    c->preemptor_excluded = true;
    return false;
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
        if (!preemptable(c, ri) || !independent(c, a, b) || !after(c, a, b) || !pays(c, a, b, n))
            continue;
        if (phase2 && !ds_pair_gap_passes(c->p, a->priority, b->priority, c->pbar_half))
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

/* free_ + room, per resource, saturating: the most the node could offer the preemptor. */
static bool could_fit(const ds_res *req, const ds_res *free_, const ds_res *room)
{
    for (int d = 0; d < DS_RES_N; d++) {
        if (req->v[d] <= 0)
            continue;
        int64_t most;
        if (__builtin_add_overflow(free_->v[d], room->v[d], &most))
            most = INT64_MAX;
        if (most < req->v[d])
            return false;
    }
    return true;
}

/* room[n]: per resource, the sum of the K largest requests among node n's live candidates. */
static void node_room(vctx *c, size_t n)
{
    size_t kk = c->topk_cap;
    size_t cnt[DS_RES_N] = {0};
    if (c->budget[n] > 0)
        for (size_t j = c->node_start[n]; j < c->node_start[n + 1]; j++)
            if (!c->taken[c->by_node[j]])
                topk_insert(c, &c->r[c->by_node[j]].request, cnt, kk);
    for (int d = 0; d < DS_RES_N; d++) {
        const int64_t *row = &c->topk[(size_t)d * c->topk_cap];
        int64_t sum = 0;
        for (size_t i = 0; i < cnt[d]; i++)
            if (__builtin_add_overflow(sum, row[i], &sum))
                sum = INT64_MAX;
        c->room[n].v[d] = sum;
    }
}

/* Priority of the lowest live candidate; false when none is left. */
static bool lowest_live(vctx *c, double *prio)
{
    while (c->lowest_pos < c->n_cand) {
        size_t ri = c->lowest[c->lowest_pos];
        if (preemptable(c, ri)) {
            *prio = c->r[ri].priority;
            return true;
        }
        c->lowest_pos++;
    }
    return false;
}

/* Was a request no larger than req (everywhere) refused since the last decision? */
static bool known_failure(const vctx *c, const ds_res *req)
{
    for (size_t i = 0; i < c->n_fail; i++) {
        bool covered = true;
        for (int d = 0; d < DS_RES_N && covered; d++)
            covered = req->v[d] >= c->fail[i].v[d];
        if (covered)
            return true;
    }
    return false;
}

static void remember_failure(vctx *c, const ds_res *req)
{
    if (c->n_fail == DS_VICTIM_FAIL_CAP)
        memmove(&c->fail[0], &c->fail[1], (DS_VICTIM_FAIL_CAP - 1) * sizeof c->fail[0]);
    else
        c->n_fail++;
    c->fail[c->n_fail - 1] = *req;
}

/* One victim per preemptor: the lowest-priority live candidate not excluded by C2 (nor, in phase
 * 2, by the gap test) whose eviction makes room on its node; with same_resource_first, one whose
 * dominant resource is the one the preemptor lacks most on its node goes before any other (3DSF),
 * then the lowest priority. Ties go to the lower node, then the lower running index. On success
 * c->best[0] holds it and its node is returned; SIZE_MAX when none. */
static size_t single_victim(vctx *c, const ds_waiting_task *a, bool phase2)
{
    size_t best_node = SIZE_MAX;
    double best_prio = 0.0;
    bool best_match = false;
    for (size_t n = 0; n < c->n_nodes; n++) {
        if (c->budget[n] == 0 || c->node_live[n] == 0 ||
            !could_fit(&a->request, &c->free_[n], &c->room[n]) || !savable_on(c, a, n))
            continue;
        int want = -1; /* the dominant resource of what the preemptor lacks here */
        if (c->p->same_resource_first) {
            ds_res need;
            need_of(&a->request, &c->free_[n], &need);
            want = ds_dominant_resource(&need, &c->nodes[n].capacity);
        }
        for (size_t j = c->node_start[n]; j < c->node_start[n + 1]; j++) {
            size_t ri = c->by_node[j];
            const ds_running_task *b = &c->r[ri];
            if (best_node != SIZE_MAX && b->priority >= best_prio && (best_match || want < 0))
                break; /* ascending: this node cannot do better */
            if (c->taken[ri] || long_blocked(c, b))
                continue;
            if (phase2 && !ds_pair_gap_passes(c->p, a->priority, b->priority, c->pbar_half))
                break; /* the gap only shrinks from here */
            bool match =
                want >= 0 && ds_dominant_resource(&b->request, &c->nodes[n].capacity) == want;
            if (best_node != SIZE_MAX && !(match && !best_match) &&
                !(match == best_match && b->priority < best_prio))
                continue; /* no better than the best so far */
            if (!independent(c, a, b) || !after(c, a, b) || !pays(c, a, b, n))
                continue;
            ds_res room = c->free_[n];
            ds_res_add(&room, &b->request);
            if (ds_res_fits(&a->request, &room)) {
                best_node = n;
                best_prio = b->priority;
                best_match = match;
                c->best[0] = ri;
                if (match || want < 0)
                    break; /* the rest of this node ranks lower */
            }
        }
    }
    return best_node;
}

/* Any number of victims per preemptor: the best plan over the nodes that could make room. */
static size_t multi_victim(vctx *c, const ds_waiting_task *a, bool phase2, size_t *n_victims)
{
    size_t left = c->limit - c->n_out;
    size_t best_n = 0, best_node = SIZE_MAX;
    double best_prio = 0.0;
    for (size_t n = 0; n < c->n_nodes; n++) {
        size_t k = c->p->max_victims_per_preemptor;
        if (k > c->budget[n])
            k = c->budget[n];
        if (k > left)
            k = left;
        if (k == 0 || c->node_live[n] == 0 || !could_fit(&a->request, &c->free_[n], &c->room[n]) ||
            !savable_on(c, a, n))
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
    *n_victims = best_n;
    return best_node;
}

/* Try to find and apply victims for waiting task ai. */
static void try_preempt(vctx *c, size_t ai, ds_preempt_reason reason, bool phase2)
{
    const ds_waiting_task *a = &c->w[ai];
    bool single = c->p->max_victims_per_preemptor == 1;
    if (single && known_failure(c, &a->request))
        return;
    if (fits_anywhere(c, &a->request))
        return; /* the scheduler places it without evicting anything */
    /* The job deadline rule: a job that misses its deadline even if all its remaining tasks got
     * room now gains nothing from room for this task. */
    if (c->p->payoff && a->job_known &&
        !ds_job_savable(a->job_slack_s, a->job_path_s, c->max_speed, c->p->start_latency_s))
        return;
    /* The job rule: a job whose blocked work cannot get room in time is late whatever this
     * eviction does. */
    if (c->p->payoff && c->p->job_room && a->n_job_needs > 0 && isfinite(a->t_allow_s) &&
        !ds_job_room_in_time(&c->room_ix, &a->ahead, &a->request, a->level, a->job_needs,
                             a->n_job_needs, c->p->start_latency_s))
        return;
    c->mark_gen++;
    c->marked = false;
    c->c2_excluded = false;
    c->preemptor_excluded = false;
    c->wait_known = false;

    size_t best_n = 1, best_node;
    if (single)
        best_node = single_victim(c, a, phase2);
    else
        best_node = multi_victim(c, a, phase2, &best_n);
    if (best_node == SIZE_MAX) {
        /* Only C2 depends on the preemptor's job; the gap test only tightens for later ones. */
        if (single && !c->c2_excluded && !c->preemptor_excluded)
            remember_failure(c, &a->request);
        return;
    }

    for (size_t i = 0; i < best_n; i++) {
        size_t ri = c->best[i];
        const ds_running_task *b = &c->r[ri];
        c->out[c->n_out++] = (ds_decision){
            .waiting = ai,
            .running = ri,
            .node = best_node,
            .reason = reason,
            .gap = a->priority - b->priority,
            .normalised_gap = ds_pair_normalised_gap(c->p, a->priority, b->priority, c->pbar_half),
            .room_wait_s = reason == DS_REASON_URGENT ? c->urgent_wait[ai] : NAN,
        };
        c->taken[ri] = true;
        if (ds_running_is_long(b, c->p))
            c->long_done[best_node] = true;
        ds_res_add(&c->free_[best_node], &b->request);
        c->budget[best_node]--;
        c->node_live[best_node]--;
        c->live--;
    }
    ds_res_sub(&c->free_[best_node], &a->request);
    if (c->budget[best_node] == 0) {
        c->live -= c->node_live[best_node];
        c->node_live[best_node] = 0;
    }
    node_room(c, best_node);
    c->n_fail = 0; /* the state changed: earlier failures may now succeed */
}

/* Binary max-heap of waiting tasks in phase-2 order (descending priority, ties: lower index). */
static void heap_down(prio_ix *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && cmp_desc(&h[l], &h[m]) < 0)
            m = l;
        if (l + 1 < n && cmp_desc(&h[l + 1], &h[m]) < 0)
            m = l + 1;
        if (m == i)
            return;
        prio_ix t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static prio_ix heap_pop(prio_ix *h, size_t *n)
{
    prio_ix top = h[0];
    h[0] = h[--*n];
    heap_down(h, *n, 0);
    return top;
}

static void free_ctx(vctx *c)
{
    free(c->free_);
    free(c->budget);
    free(c->taken);
    free(c->long_done);
    free(c->by_node);
    free(c->node_start);
    free(c->node_live);
    free(c->room);
    free(c->lowest);
    free(c->mark);
    free(c->stack);
    free(c->cand);
    free(c->in_plan);
    free(c->plan);
    free(c->best);
    free(c->topk);
    free(c->worder);
    free(c->rorder);
    free(c->handled);
    free(c->urgent);
    free(c->urgent_wait);
    free(c->room_tasks);
    ds_room_index_free(&c->room_ix);
}

/* Can running task b ever be a victim in this call? */
static bool candidate(const ds_running_task *b, const ds_node_free *nodes,
                      const ds_preempt_params *p)
{
    return ds_running_preemptable(b, p) == DS_PREEMPTABLE && nodes[b->node].evictions_left > 0 &&
           !(nodes[b->node].long_evicted && ds_running_is_long(b, p));
}

/* Allocate the call's working state for n_waiting, n_running (n_cand of them candidates) and
 * n_nodes; 0, or -1 with everything freed. */
static int alloc_ctx(vctx *c, size_t n_waiting, size_t n_running, size_t n_nodes, size_t max_dag)
{
    size_t n_cand = c->n_cand;
    c->worder = calloc(n_waiting, sizeof *c->worder);
    c->rorder = calloc(n_cand, sizeof *c->rorder);
    c->handled = calloc(n_waiting, sizeof *c->handled);
    c->urgent = calloc(n_waiting, sizeof *c->urgent);
    c->urgent_wait = calloc(n_waiting, sizeof *c->urgent_wait);
    c->free_ = calloc(n_nodes, sizeof *c->free_);
    c->budget = calloc(n_nodes, sizeof *c->budget);
    c->taken = calloc(n_running, sizeof *c->taken);
    c->long_done = calloc(n_nodes, sizeof *c->long_done);
    c->by_node = calloc(n_cand, sizeof *c->by_node);
    c->node_start = calloc(n_nodes + 1, sizeof *c->node_start);
    c->node_live = calloc(n_nodes, sizeof *c->node_live);
    c->room = calloc(n_nodes, sizeof *c->room);
    c->lowest = calloc(n_cand, sizeof *c->lowest);
    c->mark = calloc(max_dag, sizeof *c->mark);
    c->stack = calloc(max_dag, sizeof *c->stack);
    c->cand = calloc(n_cand, sizeof *c->cand);
    c->in_plan = calloc(n_cand, 1);
    c->plan = calloc(n_cand, sizeof *c->plan);
    c->best = calloc(n_cand, sizeof *c->best);
    c->topk_cap =
        c->p->max_victims_per_preemptor < n_cand ? c->p->max_victims_per_preemptor : n_cand;
    c->topk = calloc((size_t)DS_RES_N * c->topk_cap, sizeof *c->topk);
    c->room_tasks = calloc(n_running, sizeof *c->room_tasks);
    if (c->worder == NULL || c->rorder == NULL || c->handled == NULL || c->urgent == NULL ||
        c->urgent_wait == NULL || c->free_ == NULL || c->budget == NULL || c->taken == NULL ||
        c->long_done == NULL || c->by_node == NULL || c->node_start == NULL ||
        c->node_live == NULL || c->room == NULL || c->lowest == NULL || c->mark == NULL ||
        c->stack == NULL || c->cand == NULL || c->in_plan == NULL || c->plan == NULL ||
        c->best == NULL || c->topk == NULL || c->room_tasks == NULL) {
        free_ctx(c);
        return -1;
    }
    return 0;
}

/* P_bar (kept halved), the candidates by ascending priority, grouped by node, and each node's
 * state. */
static void index_candidates(vctx *c, size_t n_waiting, size_t n_running)
{
    const ds_waiting_task *waiting = c->w;
    const ds_running_task *running = c->r;
    const ds_preempt_params *p = c->p;
    double pmin = waiting[0].priority, pmax = waiting[0].priority;
    for (size_t i = 0; i < n_waiting; i++) {
        pmin = fmin(pmin, waiting[i].priority);
        pmax = fmax(pmax, waiting[i].priority);
    }
    size_t nc = 0;
    for (size_t i = 0; i < n_running; i++) {
        pmin = fmin(pmin, running[i].priority);
        pmax = fmax(pmax, running[i].priority);
        if (candidate(&running[i], c->nodes, p))
            c->rorder[nc++] = (prio_ix){running[i].priority, i};
    }
    c->pbar_half = p->pbar_given ? p->pbar_half : ds_pbar_half(pmin, pmax, n_waiting + n_running);

    qsort(c->rorder, c->n_cand, sizeof *c->rorder, cmp_asc);
    for (size_t i = 0; i < c->n_cand; i++)
        c->lowest[i] = c->rorder[i].idx;

    for (size_t n = 0; n < c->n_nodes; n++) {
        c->free_[n] = c->nodes[n].free_;
        c->budget[n] = c->nodes[n].evictions_left;
        c->long_done[n] = c->nodes[n].long_evicted;
    }
    /* Group candidates by node, keeping ascending priority within each node. */
    for (size_t i = 0; i < c->n_cand; i++)
        c->node_start[running[c->rorder[i].idx].node + 1]++;
    for (size_t n = 0; n < c->n_nodes; n++) {
        c->node_live[n] = c->node_start[n + 1];
        c->node_start[n + 1] += c->node_start[n];
    }
    for (size_t i = 0; i < c->n_cand; i++) {
        size_t ri = c->rorder[i].idx;
        size_t n = running[ri].node;
        c->by_node[c->node_start[n]++] = ri;
    }
    for (size_t n = c->n_nodes; n > 0; n--)
        c->node_start[n] = c->node_start[n - 1];
    c->node_start[0] = 0;
    for (size_t n = 0; n < c->n_nodes; n++)
        node_room(c, n);
}

/* Predictive urgency (ds_task_urgent): slack at most epsilon, or room forecast (lib/room.h, as
 * the nodes stand before any decision of this call) not to come in time for the task or its
 * job. The forecast is made with payoff only (without it, the paper's rule: epsilon alone), for
 * tasks with a deadline above epsilon. */
static bool urgent_now(const vctx *c, const ds_waiting_task *a, double *wait_s)
{
    const ds_preempt_params *p = c->p;
    ds_urgency_in u = urgency_of(c, a);
    if (p->payoff && isfinite(a->t_allow_s) && a->t_allow_s > p->epsilon_s)
        u.wait_s = ds_room_preemptor_wait(&c->room_ix, c->room_tasks, c->taken, c->free_,
                                          &a->request, &a->ahead);
    *wait_s = u.t_allow_s <= p->epsilon_s ? NAN : u.wait_s;
    return ds_task_urgent(&u);
}

/* Phase 1: urgent and starving tasks, by descending priority, taken from a heap. */
static void phase_urgent(vctx *c, size_t n_waiting)
{
    const ds_preempt_params *p = c->p;
    size_t n_p1 = 0;
    for (size_t i = 0; i < n_waiting; i++) {
        const ds_waiting_task *a = &c->w[i];
        bool urgent = urgent_now(c, a, &c->urgent_wait[i]);
        c->urgent[i] = urgent;
        if (urgent || (p->tau_s > 0.0 && a->t_wait_s >= p->tau_s)) {
            c->worder[n_p1++] = (prio_ix){a->priority, i};
            c->handled[i] = true;
        }
    }
    for (size_t i = n_p1 / 2; i-- > 0;)
        heap_down(c->worder, n_p1, i);
    while (n_p1 > 0 && c->n_out < c->limit && c->live > 0) {
        size_t ai = heap_pop(c->worder, &n_p1).idx;
        try_preempt(c, ai, c->urgent[ai] ? DS_REASON_URGENT : DS_REASON_STARVATION, false);
    }
}

/* Phase 2: the first ceil(delta * n_waiting) by priority (tolerant of 0.7 * 10 = 7.000...1),
 * taken from a heap. A task whose gap to the lowest live candidate fails the test ends the phase:
 * every later task has a priority no higher. */
static void phase_priority(vctx *c, size_t n_waiting)
{
    const ds_preempt_params *p = c->p;
    size_t n_try = ds_delta_count(p->delta, n_waiting);
    size_t n_heap = n_waiting;
    if (n_try > 0 && c->n_out < c->limit && c->live > 0) {
        for (size_t i = 0; i < n_waiting; i++)
            c->worder[i] = (prio_ix){c->w[i].priority, i};
        for (size_t i = n_heap / 2; i-- > 0;)
            heap_down(c->worder, n_heap, i);
    }
    for (size_t i = 0; i < n_try && c->n_out < c->limit && c->live > 0; i++) {
        size_t ai = heap_pop(c->worder, &n_heap).idx;
        if (c->handled[ai])
            continue;
        double low;
        if (!lowest_live(c, &low) || !ds_pair_gap_passes(p, c->w[ai].priority, low, c->pbar_half))
            break;
        try_preempt(c, ai, DS_REASON_PRIORITY, true);
    }
}

long ds_select_victims(const ds_waiting_task *waiting, size_t n_waiting,
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
    size_t n_cand = 0;
    for (size_t i = 0; i < n_running; i++)
        if (candidate(&running[i], nodes, p))
            n_cand++;
    if (n_cand == 0)
        return 0; /* nothing can be evicted */

    vctx c = {.w = waiting,
              .r = running,
              .n_nodes = n_nodes,
              .jobs = jobs,
              .p = p,
              .nodes = nodes,
              .out = out,
              .limit = limit,
              .n_cand = n_cand,
              .live = n_cand};
    c.max_speed = 1.0;
    for (size_t n = 0; n < n_nodes; n++)
        if (nodes[n].speed > c.max_speed)
            c.max_speed = nodes[n].speed;
    size_t max_dag = 1;
    for (size_t j = 0; j < n_jobs; j++)
        if (jobs[j]->n > max_dag)
            max_dag = jobs[j]->n;
    if (alloc_ctx(&c, n_waiting, n_running, n_nodes, max_dag) != 0)
        return ds_err_set(err,
                          "victim selection: out of memory (%zu waiting, %zu running, %zu "
                          "nodes)",
                          n_waiting, n_running, n_nodes);
    index_candidates(&c, n_waiting, n_running);
    for (size_t i = 0; i < n_running; i++)
        c.room_tasks[i] = (ds_room_task){running[i].node, running[i].t_rem_s, running[i].request};
    if (ds_room_index_build(&c.room_ix, c.room_tasks, n_running, c.free_, n_nodes, err) != 0) {
        free_ctx(&c);
        return -1;
    }
    phase_urgent(&c, n_waiting);
    phase_priority(&c, n_waiting);
    long result = (long)c.n_out;
    free_ctx(&c);
    return result;
}

const char *ds_reason_name(ds_preempt_reason r)
{
    switch (r) {
    case DS_REASON_URGENT:
        return "urgent";
    case DS_REASON_STARVATION:
        return "starvation";
    case DS_REASON_PRIORITY:
        return "priority";
    }
    return "unknown";
}
