/* preempt.c: one round of DSP preemption over the controller's view (see preempt.h).
 *
 * Node order: the algorithm (lib/victim.h) breaks ties between equally good plans on different
 * nodes in favour of the lower node index. The nodes are therefore handed to it fastest first
 * (speed g(k) descending, then by name), so that among nodes where equally justified victims make
 * room, the preemptor lands where it finishes soonest. `order` maps the algorithm's node index to
 * the view's; every index that leaves this file is the view's. */
#include "preempt.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CTL_PREEMPT_ROUNDS 4

typedef struct node_ix {
    const char *name;
    size_t idx;
} node_ix;

static int cmp_node_ix(const void *a, const void *b)
{
    return strcmp(((const node_ix *)a)->name, ((const node_ix *)b)->name);
}

/* A node's speed for the ordering: not a positive number counts as the reference 1.0. */
static double node_speed(const ctl_node *n)
{
    return isfinite(n->speed) && n->speed > 0.0 ? n->speed : 1.0;
}

typedef struct node_rank {
    double speed;
    const char *name;
    size_t idx;
} node_rank;

/* Fastest first, then by name, then by view index: a total order, so decisions do not depend on
 * the order in which the nodes were listed. */
static int cmp_node_rank(const void *a, const void *b)
{
    const node_rank *x = a, *y = b;
    if (x->speed != y->speed)
        return x->speed > y->speed ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c != 0)
        return c;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static size_t find_node(const node_ix *ix, size_t n, const char *name)
{
    node_ix key = {.name = name, .idx = 0};
    const node_ix *hit = n ? bsearch(&key, ix, n, sizeof *ix, cmp_node_ix) : NULL;
    return hit ? hit->idx : DS_NO_TASK;
}

typedef struct plan_state {
    const ctl_preempt_in *in;
    ctl_preempt_out *out;
    node_ix *nix;     /* by name -> algorithm node index */
    size_t *order;    /* algorithm node index -> view node index (fastest first) */
    ds_node_free *nf; /* by algorithm node index, as are all the ds_node_free arrays */
    ds_running_task *run;
    size_t *run_pod; /* running index -> pod index */
    size_t n_run;
    ds_waiting_task *wait;
    size_t *wait_pod; /* waiting index -> pod index */
    size_t n_wait;
    bool *constrained;   /* [n_wait] cannot use every schedulable node */
    bool *unconstrained; /* [n_wait] the complement */
    bool *one;           /* [n_wait] scratch: a single active preemptor */
    ds_waiting_task *wsel;
    ds_node_free *nf_work;     /* node state as if the accepted plans were carried out */
    ds_node_free *nf_one;      /* nf_work restricted to one preemptor's nodes */
    ds_running_task *run_work; /* run with the accepted and excluded victims not evictable */
    bool *excluded;            /* [n_run] removed by a failed check */
    ds_decision *dec;
    ctl_eviction *acc;
    size_t n_acc;
    /* The job rule (lib/job_room.h): the blocked work by level of each job with a preemptor,
     * job j's at needs + need_at[j], n_needs[j] entries. */
    ds_level_need *needs;
    size_t *need_at, *n_needs;
} plan_state;

static void state_free(plan_state *s)
{
    free(s->nix);
    free(s->order);
    free(s->nf);
    free(s->run);
    free(s->run_pod);
    free(s->wait);
    free(s->wait_pod);
    free(s->constrained);
    free(s->unconstrained);
    free(s->one);
    free(s->wsel);
    free(s->nf_work);
    free(s->nf_one);
    free(s->run_work);
    free(s->excluded);
    free(s->dec);
    free(s->acc);
    free(s->needs);
    free(s->need_at);
    free(s->n_needs);
}

static int check_input(const ctl_preempt_in *in, ds_err *err)
{
    if (in->policy == NULL || in->ledger == NULL)
        return ds_err_set(err, "preemption round: missing policy or ledger");
    if ((in->pods == NULL && in->n_pods) || (in->nodes == NULL && in->n_nodes) ||
        (in->dags == NULL && in->n_jobs))
        return ds_err_set(err, "preemption round: missing array");
    for (size_t i = 0; i < in->n_pods; i++) {
        const ctl_pod *p = &in->pods[i];
        if (p->task.job != DS_NO_TASK &&
            (p->task.job >= in->n_jobs || p->task.task >= in->dags[p->task.job]->n))
            return ds_err_set(err, "pod %s/%s: task reference %zu/%zu outside the %zu jobs", p->ns,
                              p->name, p->task.job, p->task.task, in->n_jobs);
    }
    return 0;
}

/* Node order, index and free resources; cordoned or not-ready nodes take nothing and lose
 * nothing. */
static int build_nodes(plan_state *s, const ctl_budget *b, ds_err *err)
{
    const ctl_preempt_in *in = s->in;
    size_t nn = in->n_nodes ? in->n_nodes : 1;
    s->nix = calloc(nn, sizeof *s->nix);
    s->order = calloc(nn, sizeof *s->order);
    s->nf = calloc(nn, sizeof *s->nf);
    node_rank *rank = calloc(nn, sizeof *rank);
    if (s->nix == NULL || s->order == NULL || s->nf == NULL || rank == NULL) {
        free(rank);
        return ds_err_set(err, "preemption round: out of memory");
    }
    for (size_t i = 0; i < in->n_nodes; i++)
        rank[i] = (node_rank){node_speed(&in->nodes[i]), in->nodes[i].name, i};
    qsort(rank, in->n_nodes, sizeof *rank, cmp_node_rank);
    for (size_t a = 0; a < in->n_nodes; a++)
        s->order[a] = rank[a].idx;
    free(rank);
    for (size_t a = 0; a < in->n_nodes; a++) {
        s->nix[a].name = in->nodes[s->order[a]].name;
        s->nix[a].idx = a;
        s->nf[a].free_ = in->nodes[s->order[a]].allocatable;
        s->nf[a].speed = node_speed(&in->nodes[s->order[a]]);
    }
    qsort(s->nix, in->n_nodes, sizeof *s->nix, cmp_node_ix);
    for (size_t i = 0; i < in->n_pods; i++) {
        const ctl_pod *p = &in->pods[i];
        if (p->state != CTL_POD_BOUND || p->node[0] == '\0')
            continue;
        size_t n = find_node(s->nix, in->n_nodes, p->node);
        if (n != DS_NO_TASK)
            ds_res_sub(&s->nf[n].free_, &p->request);
    }
    for (size_t a = 0; in->reserved != NULL && a < in->n_nodes; a++)
        ds_res_sub(&s->nf[a].free_, &in->reserved[s->order[a]]);
    for (size_t a = 0; a < in->n_nodes; a++) {
        const ctl_node *node = &in->nodes[s->order[a]];
        if (!node->schedulable) {
            for (int k = 0; k < DS_RES_N; k++)
                s->nf[a].free_.v[k] = INT64_MIN / 4;
            s->nf[a].evictions_left = 0;
        } else {
            s->nf[a].evictions_left = ctl_budget_node_left(b, node->name);
            s->nf[a].capacity = node->allocatable;
            s->nf[a].long_evicted = ctl_budget_node_long_evicted(b, node->name);
        }
    }
    return 0;
}

typedef struct queued {
    size_t pos;
    ds_res request;
} queued;

static int cmp_queued(const void *a, const void *b)
{
    size_t x = ((const queued *)a)->pos, y = ((const queued *)b)->pos;
    return (x > y) - (x < y);
}

/* The summed requests of the entries of q (sorted by pos, prefix sums) before pos. */
static ds_res sum_before(const queued *q, size_t n, size_t pos)
{
    size_t lo = 0, hi = n; /* the first entry at or after pos */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (q[mid].pos < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    ds_res r;
    memset(&r, 0, sizeof r);
    if (lo > 0)
        r = q[lo - 1].request;
    return r;
}

static void prefix_sums(queued *q, size_t n)
{
    qsort(q, n, sizeof *q, cmp_queued);
    for (size_t k = 1; k < n; k++)
        ds_res_add(&q[k].request, &q[k - 1].request);
}

/* A waiting task that may take room before a preemptor: before it in the queue order, or already
 * in kube-scheduler's queue. */
typedef struct rival {
    size_t pod;
    size_t pos;
    bool in_queue; /* pending, without another's gate: in kube-scheduler's queue */
} rival;

/* May pods a and b use a common schedulable node? */
static bool share_node(const ctl_preempt_in *in, const ctl_pod *a, const ctl_pod *b)
{
    for (size_t n = 0; n < in->n_nodes; n++)
        if (in->nodes[n].schedulable && ctl_guard_node_eligible(a, &in->nodes[n]) &&
            ctl_guard_node_eligible(b, &in->nodes[n]))
            return true;
    return false;
}

/* Could pod p ever bind: is there a schedulable node it may use whose allocatable holds it? A
 * pod that fits no node even empty takes no room from anyone. */
static bool could_ever_fit(const ctl_preempt_in *in, const ctl_pod *p)
{
    for (size_t n = 0; n < in->n_nodes; n++)
        if (in->nodes[n].schedulable && ds_res_fits(&p->request, &in->nodes[n].allocatable) &&
            ctl_guard_node_eligible(p, &in->nodes[n]))
            return true;
    return false;
}

/* Is pod p kept off some schedulable node (node selector, affinity, taints)? */
static bool confined(const ctl_preempt_in *in, const ctl_pod *p)
{
    for (size_t n = 0; n < in->n_nodes; n++)
        if (in->nodes[n].schedulable && !ctl_guard_node_eligible(p, &in->nodes[n]))
            return true;
    return false;
}

/* Each preemptor's `ahead`: the requests of the pods of waiting tasks that take the room that
 * frees before it does (lib/room.h): those before it in the queue order (spec.order), gated or
 * pending; and, for a preemptor that still carries its gate, every task already released to
 * kube-scheduler (pending, a look-ahead release): kube-scheduler does not know dagsched's order,
 * and binds what it has in its queue into room as soon as it frees, before a gated pod. For a
 * preemptor confined to some nodes, only the tasks that may use one of its nodes count (the
 * forecast pools the room of its nodes only). A task that fits no node even empty never takes
 * room and counts for no one. */
static int queued_ahead(plan_state *s, ds_err *err)
{
    const ctl_preempt_in *in = s->in;
    size_t cap = in->n_pods ? in->n_pods : 1;
    queued *q = calloc(cap, sizeof *q);
    queued *inq = calloc(cap, sizeof *inq); /* the ones in kube-scheduler's queue */
    rival *rv = calloc(cap, sizeof *rv);
    if (q == NULL || inq == NULL || rv == NULL) {
        free(q);
        free(inq);
        free(rv);
        return ds_err_set(err, "preemption round: out of memory");
    }
    size_t n = 0, n_inq = 0;
    ds_res inq_total;
    memset(&inq_total, 0, sizeof inq_total);
    for (size_t i = 0; i < in->n_pods; i++) {
        const ctl_pod *p = &in->pods[i];
        bool queued_now = p->state == CTL_POD_PENDING || p->state == CTL_POD_UNSCHEDULABLE;
        bool pending = p->state == CTL_POD_GATED || queued_now;
        if (!pending || p->terminating || p->task.job == DS_NO_TASK ||
            p->task.state != DS_TASK_WAITING || p->task.queue_pos == SIZE_MAX ||
            !could_ever_fit(in, p))
            continue;
        rv[n] = (rival){i, p->task.queue_pos, queued_now && !p->other_gates};
        q[n++] = (queued){p->task.queue_pos, p->request};
        if (rv[n - 1].in_queue) {
            inq[n_inq++] = (queued){p->task.queue_pos, p->request};
            ds_res_add(&inq_total, &p->request);
        }
    }
    size_t n_rivals = n;
    prefix_sums(q, n);
    prefix_sums(inq, n_inq);
    for (size_t w = 0; w < s->n_wait; w++) {
        const ctl_pod *pre = &in->pods[s->wait_pod[w]];
        size_t pos = pre->task.queue_pos;
        bool gated = pre->state == CTL_POD_GATED;
        ds_res *ahead = &s->wait[w].ahead, *ahead_gated = &s->wait[w].ahead_gated;
        memset(ahead, 0, sizeof *ahead);
        memset(ahead_gated, 0, sizeof *ahead_gated);
        if (confined(in, pre)) {
            for (size_t k = 0; k < n_rivals; k++) {
                const ctl_pod *o = &in->pods[rv[k].pod];
                if (rv[k].pod != s->wait_pod[w] && (rv[k].pos < pos || (gated && rv[k].in_queue)) &&
                    share_node(in, pre, o)) {
                    ds_res_add(ahead, &o->request);
                    if (!rv[k].in_queue)
                        ds_res_add(ahead_gated, &o->request);
                }
            }
            continue;
        }
        /* Those before it in the order; of them, the ones not in kube-scheduler's queue wait at a
         * gate (or for another reason outside it). */
        *ahead = sum_before(q, n, pos);
        ds_res queued_before = sum_before(inq, n_inq, pos);
        *ahead_gated = *ahead;
        ds_res_sub(ahead_gated, &queued_before);
        if (gated) { /* plus the queued ones after it in the order */
            ds_res after = inq_total;
            ds_res_sub(&after, &queued_before);
            ds_res_add(ahead, &after);
        }
    }
    free(q);
    free(inq);
    free(rv);
    return 0;
}

/* The job rule's input: for each job with a preemptor, its blocked tasks by level, from the pods
 * of its tasks (a task's pod that does not exist yet needs nothing here: the rule is optimistic).
 * A task with several pods (a replacement beside a terminating one) counts once. */
static int job_needs(plan_state *s, ds_err *err)
{
    const ctl_preempt_in *in = s->in;
    const ds_preempt_params *pp = &in->policy->preemption;
    if (!pp->payoff || !pp->job_room || s->n_wait == 0 || in->n_jobs == 0)
        return 0;
    bool *wanted = calloc(in->n_jobs, sizeof *wanted);
    s->need_at = calloc(in->n_jobs, sizeof *s->need_at);
    s->n_needs = calloc(in->n_jobs, sizeof *s->n_needs);
    if (wanted == NULL || s->need_at == NULL || s->n_needs == NULL) {
        free(wanted);
        return ds_err_set(err, "preemption round: out of memory");
    }
    size_t levels = 0, max_tasks = 0;
    for (size_t w = 0; w < s->n_wait; w++) {
        size_t j = s->wait[w].job;
        if (j == DS_NO_TASK || wanted[j])
            continue;
        wanted[j] = true;
        levels += in->dags[j]->n_levels > 0 ? (size_t)in->dags[j]->n_levels : 0;
        if (in->dags[j]->n > max_tasks)
            max_tasks = in->dags[j]->n;
    }
    /* Per job, its pods' states, evaluations and requests by task; the pods of one job are
     * visited through a list sorted by job. */
    size_t *by_job = calloc(in->n_pods ? in->n_pods : 1, sizeof *by_job);
    size_t *first = calloc(in->n_jobs + 1, sizeof *first);
    ds_task_status *st = calloc(max_tasks ? max_tasks : 1, sizeof *st);
    ds_task_eval *ev = calloc(max_tasks ? max_tasks : 1, sizeof *ev);
    ds_res *req = calloc(max_tasks ? max_tasks : 1, sizeof *req);
    s->needs = calloc(levels ? levels : 1, sizeof *s->needs);
    int rc = 0;
    if (by_job == NULL || first == NULL || st == NULL || ev == NULL || req == NULL ||
        s->needs == NULL) {
        rc = ds_err_set(err, "preemption round: out of memory");
        goto out;
    }
    for (size_t i = 0; i < in->n_pods; i++)
        if (in->pods[i].task.job != DS_NO_TASK && wanted[in->pods[i].task.job])
            first[in->pods[i].task.job + 1]++;
    for (size_t j = 0; j < in->n_jobs; j++)
        first[j + 1] += first[j];
    for (size_t i = 0; i < in->n_pods; i++) {
        size_t j = in->pods[i].task.job;
        if (j != DS_NO_TASK && wanted[j])
            by_job[first[j]++] = i;
    }
    /* first[j] now holds the end of job j's pods; job j's start is the previous job's end. */
    size_t at = 0, begin = 0;
    for (size_t j = 0; j < in->n_jobs; j++) {
        size_t end = first[j];
        if (!wanted[j]) {
            begin = end;
            continue;
        }
        const ds_dag *d = in->dags[j];
        for (size_t t = 0; t < d->n; t++) {
            st[t].state = DS_TASK_SUCCEEDED; /* no pod: nothing to count */
            ev[t].t_allow_s = INFINITY;
            memset(&req[t], 0, sizeof req[t]);
        }
        for (size_t k = begin; k < end; k++) {
            const ctl_pod *p = &in->pods[by_job[k]];
            if (p->task.state != DS_TASK_BLOCKED || !p->task.evaluated || p->terminating)
                continue;
            st[p->task.task].state = DS_TASK_BLOCKED;
            ev[p->task.task] = p->task.eval;
            req[p->task.task] = p->request;
        }
        s->need_at[j] = at;
        s->n_needs[j] = ds_job_level_needs(d, st, ev, req, s->needs + at);
        at += s->n_needs[j];
        begin = end;
    }
    for (size_t w = 0; w < s->n_wait; w++) {
        ds_waiting_task *t = &s->wait[w];
        if (t->job == DS_NO_TASK)
            continue;
        t->level = in->dags[t->job]->tasks[t->task].level;
        t->job_needs = s->needs + s->need_at[t->job];
        t->n_job_needs = s->n_needs[t->job];
    }
out:
    free(wanted);
    free(by_job);
    free(first);
    free(st);
    free(ev);
    free(req);
    return rc;
}

static int build_tasks(plan_state *s, const ctl_budget *b, ds_err *err)
{
    const ctl_preempt_in *in = s->in;
    const ds_policy *pol = in->policy;
    size_t n = in->n_pods ? in->n_pods : 1;
    s->run = calloc(n, sizeof *s->run);
    s->run_pod = calloc(n, sizeof *s->run_pod);
    s->wait = calloc(n, sizeof *s->wait);
    s->wait_pod = calloc(n, sizeof *s->wait_pod);
    s->wsel = calloc(n, sizeof *s->wsel);
    s->dec = calloc(n, sizeof *s->dec);
    s->acc = calloc(n, sizeof *s->acc);
    if (!s->run || !s->run_pod || !s->wait || !s->wait_pod || !s->wsel || !s->dec || !s->acc)
        return ds_err_set(err, "preemption round: out of memory");

    for (size_t i = 0; i < in->n_pods; i++) {
        const ctl_pod *p = &in->pods[i];
        s->out->guard[i] = CTL_GUARD_NOT_RUNNING;
        if (p->task.job == DS_NO_TASK || !p->task.evaluated || p->foreign) {
            s->out->guard[i] = CTL_GUARD_NOT_A_TASK; /* a foreign pod neither evicts nor goes */
            continue;
        }
        if (p->state == CTL_POD_BOUND) {
            size_t node = find_node(s->nix, in->n_nodes, p->node);
            if (node == DS_NO_TASK)
                continue;
            ctl_guard g = ctl_guard_victim(pol, b, p);
            s->out->guard[i] = g;
            double ran = isnan(p->started_at) ? 0.0 : in->now - p->started_at;
            ds_running_task *r = &s->run[s->n_run];
            r->job = p->task.job;
            r->task = p->task.task;
            r->priority = p->task.eval.priority;
            r->t_allow_s = p->task.eval.t_allow_s;
            r->ran_s = ran > 0.0 && isfinite(ran) ? ran : 0.0;
            r->t_rem_s = isfinite(p->task.eval.t_rem_s) && p->task.eval.t_rem_s > 0.0
                             ? p->task.eval.t_rem_s
                             : 0.0;
            r->request = p->request;
            r->node = node;
            r->evictable = g == CTL_GUARD_OK;
            r->order[0] = p->task.order[0];
            r->order[1] = p->task.order[1];
            s->run_pod[s->n_run++] = i;
            s->out->n_running++;
            if (r->evictable)
                s->out->n_evictable++;
            continue;
        }
        bool held = p->state == CTL_POD_GATED && in->held_for_room != NULL && in->held_for_room[i];
        bool pending = p->state == CTL_POD_PENDING || p->state == CTL_POD_UNSCHEDULABLE || held;
        if (!pending || p->terminating || p->node[0] != '\0' || p->task.state != DS_TASK_WAITING)
            continue;
        if (ds_dsp_is_urgent(&p->task.eval, pol->urgent_threshold_s))
            s->out->n_urgent++;
        if (p->state != CTL_POD_UNSCHEDULABLE && !held)
            continue; /* kube-scheduler has not found it unschedulable (yet) */
        if (ctl_guard_preemptor_cooling(pol, in->ledger, p, in->now)) {
            s->out->n_cooling++;
            continue;
        }
        ds_waiting_task *w = &s->wait[s->n_wait];
        w->job = p->task.job;
        w->task = p->task.task;
        w->priority = p->task.eval.priority;
        w->t_allow_s = p->task.eval.t_allow_s;
        w->t_wait_s = isfinite(p->task.eval.t_wait_s) && p->task.eval.t_wait_s > 0.0
                          ? p->task.eval.t_wait_s
                          : 0.0;
        w->t_rem_s = isfinite(p->task.eval.t_rem_s) && p->task.eval.t_rem_s > 0.0
                         ? p->task.eval.t_rem_s
                         : 0.0;
        w->request = p->request;
        w->order[0] = p->task.order[0];
        w->order[1] = p->task.order[1];
        w->job_known = !isnan(p->task.job_slack_s) && !isnan(p->task.job_path_s);
        w->job_slack_s = p->task.job_slack_s;
        w->job_path_s = p->task.job_path_s;
        w->job_steps = p->task.job_steps;
        s->wait_pod[s->n_wait++] = i;
    }
    s->out->n_waiting = s->n_wait;
    /* Say which preemptors no eviction can save (the same rules lib/victim.c applies). */
    double fastest = in->n_nodes > 0 && s->nf[0].speed > 1.0 ? s->nf[0].speed : 1.0;
    double start = pol->preemption.start_latency_s;
    for (size_t w = 0; w < s->n_wait; w++) {
        const ds_waiting_task *t = &s->wait[w];
        if (!ds_preemptor_savable(t->t_allow_s, t->t_rem_s, fastest, start))
            s->out->n_too_late++;
        else if (pol->preemption.payoff && t->job_known &&
                 !ds_job_savable(t->job_slack_s, t->job_path_s, fastest, start))
            s->out->n_job_late++;
    }
    if (queued_ahead(s, err) != 0)
        return -1;
    return job_needs(s, err);
}

/* Evictions already accepted in this round for a namespace. */
static size_t accepted_in_ns(const plan_state *s, const char *ns)
{
    size_t c = 0;
    for (size_t i = 0; i < s->n_acc; i++)
        if (strcmp(s->in->pods[s->acc[i].victim].ns, ns) == 0)
            c++;
    return c;
}

static size_t accepted_of_owner(const plan_state *s, const char *uid)
{
    size_t c = 0;
    for (size_t i = 0; i < s->n_acc; i++) {
        const char *u = s->in->pods[s->acc[i].victim].owner_uid;
        if (u != NULL && strcmp(u, uid) == 0)
            c++;
    }
    return c;
}

/* Would evicting vic, after the round's accepted victims and decisions [from, d) of this plan,
 * evict more of its owner's pods than the owner takes without failing (a Job's retries)? */
static bool owner_would_fail(const plan_state *s, size_t from, size_t d, const ctl_pod *vic)
{
    if (vic->owner_evictions_left == DS_EVICTIONS_UNLIMITED)
        return false;
    if (vic->owner_uid == NULL || vic->owner_uid[0] == '\0')
        return vic->owner_evictions_left == 0;
    size_t used = accepted_of_owner(s, vic->owner_uid);
    for (size_t e = from; e < d; e++) {
        const char *u = s->in->pods[s->run_pod[s->dec[e].running]].owner_uid;
        if (u != NULL && strcmp(u, vic->owner_uid) == 0)
            used++;
    }
    return used >= vic->owner_evictions_left;
}

/* The gated preemptors of the plans accepted so far this round (each takes a release slot). */
static size_t gated_preemptors(const plan_state *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_acc; i++) {
        size_t pre = s->acc[i].preemptor;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = s->acc[j].preemptor == pre;
        if (!seen && s->in->pods[pre].state == CTL_POD_GATED)
            n++;
    }
    return n;
}

/* Check one preemptor's plan (decisions [from, to)); append it when it passes. Returns whether it
 * passed; on failure the offending victims are excluded from the next round. */
static bool check_plan(plan_state *s, const ctl_budget *b, size_t from, size_t to)
{
    const ctl_preempt_in *in = s->in;
    size_t wi = s->dec[from].waiting;
    const ctl_pod *pre = &in->pods[s->wait_pod[wi]];
    bool ok = ctl_guard_node_eligible(pre, &in->nodes[s->order[s->dec[from].node]]);
    for (size_t d = from; d < to; d++) {
        size_t ri = s->dec[d].running;
        const ctl_pod *vic = &in->pods[s->run_pod[ri]];
        ds_pair_reason pr = ctl_guard_pair(in->policy, pre, vic);
        if (pr != DS_PAIR_OK) {
            s->excluded[ri] = true;
            if (pr != DS_PAIR_HIGHER_PRIORITY)
                s->out->guard[s->run_pod[ri]] = CTL_GUARD_CROSS_NAMESPACE;
            ok = false;
            continue;
        }
        size_t same_group = 0;
        for (size_t e = from; e < d; e++)
            if (strcmp(in->pods[s->run_pod[s->dec[e].running]].ns, vic->ns) == 0)
                same_group++;
        size_t left = ctl_budget_namespace_left(b, vic->ns);
        size_t used = accepted_in_ns(s, vic->ns) + same_group;
        if (used >= left) {
            s->excluded[ri] = true;
            s->out->guard[s->run_pod[ri]] = CTL_GUARD_NAMESPACE_LIMIT;
            ok = false;
        } else if (owner_would_fail(s, from, d, vic)) {
            s->excluded[ri] = true;
            s->out->guard[s->run_pod[ri]] = CTL_GUARD_OWNER_WOULD_FAIL;
            ok = false;
        }
    }
    if (ok && pre->state == CTL_POD_GATED && in->release_limited &&
        gated_preemptors(s) >= in->release_slots) {
        /* Released into the room made, it would pass the release limit: it waits for a slot
         * (offered no more this round), and its victims keep running. */
        s->constrained[wi] = false;
        s->unconstrained[wi] = false;
        s->out->n_release_limit++;
        return false;
    }
    if (!ok)
        return false;
    for (size_t d = from; d < to; d++) {
        size_t ri = s->dec[d].running;
        size_t an = s->dec[d].node; /* the algorithm's index */
        ctl_eviction *e = &s->acc[s->n_acc++];
        e->victim = s->run_pod[ri];
        e->preemptor = s->wait_pod[wi];
        e->node = s->order[an];
        e->reason = s->dec[d].reason;
        e->gap = s->dec[d].gap;
        e->normalised_gap = s->dec[d].normalised_gap;
        e->room_wait_s = s->dec[d].room_wait_s;
        /* The working state as if the victim were gone. */
        ds_res_add(&s->nf_work[an].free_, &s->run[ri].request);
        if (s->nf_work[an].evictions_left > 0)
            s->nf_work[an].evictions_left--;
        s->run_work[ri].evictable = false;
    }
    ds_res_sub(&s->nf_work[s->dec[from].node].free_, &s->wait[wi].request);
    return true;
}

/* Run the algorithm once with the waiting tasks for which active[i] is true keeping their
 * request (the others get a zero request: they count in the average priority gap and in the
 * delta ranking, but fit anywhere and so never preempt), on `nodes`; check and accept the plans.
 * Returns the number of plans removed, or -1 on error. */
static long run_once(plan_state *s, const ctl_budget *b, const bool *active,
                     const ds_node_free *nodes, ds_err *err)
{
    const ctl_preempt_in *in = s->in;
    if (s->n_acc >= b->total_left)
        return 0;
    ds_preempt_params params = in->policy->preemption;
    params.epsilon_s = in->policy->urgent_threshold_s;
    params.max_evictions = b->total_left - s->n_acc;
    params.pbar_given = in->pbar_given;
    params.pbar_half = in->pbar_half;
    for (size_t i = 0; i < s->n_wait; i++) {
        s->wsel[i] = s->wait[i];
        if (!active[i])
            memset(&s->wsel[i].request, 0, sizeof s->wsel[i].request);
    }
    long nd = ds_select_victims(s->wsel, s->n_wait, s->run_work, s->n_run, nodes, in->n_nodes,
                                in->dags, in->n_jobs, &params, s->dec, s->n_run, err);
    if (nd < 0)
        return -1;
    long dropped = 0;
    for (size_t from = 0; from < (size_t)nd;) {
        size_t to = from + 1;
        while (to < (size_t)nd && s->dec[to].waiting == s->dec[from].waiting)
            to++;
        if (!check_plan(s, b, from, to))
            dropped++;
        from = to;
    }
    return dropped;
}

/* Waiting tasks a before b: higher priority first, then input order. */
static bool wait_before(const plan_state *s, size_t a, size_t b)
{
    double x = s->wait[a].priority, y = s->wait[b].priority;
    if (x != y)
        return x > y;
    return a < b;
}

/* Which waiting tasks cannot use every schedulable node (node selector, required node affinity,
 * taints): those are planned one at a time on the nodes they can use, after the others. */
static int mark_constrained(plan_state *s, ds_err *err)
{
    const ctl_preempt_in *in = s->in;
    s->constrained = calloc(s->n_wait ? s->n_wait : 1, sizeof *s->constrained);
    s->unconstrained = calloc(s->n_wait ? s->n_wait : 1, sizeof *s->unconstrained);
    s->nf_work = calloc(in->n_nodes ? in->n_nodes : 1, sizeof *s->nf_work);
    s->nf_one = calloc(in->n_nodes ? in->n_nodes : 1, sizeof *s->nf_one);
    s->run_work = calloc(s->n_run ? s->n_run : 1, sizeof *s->run_work);
    s->excluded = calloc(s->n_run ? s->n_run : 1, sizeof *s->excluded);
    s->one = calloc(s->n_wait ? s->n_wait : 1, sizeof *s->one);
    if (!s->constrained || !s->unconstrained || !s->nf_work || !s->nf_one || !s->run_work ||
        !s->excluded || !s->one)
        return ds_err_set(err, "preemption round: out of memory");
    for (size_t i = 0; i < s->n_wait; i++) {
        const ctl_pod *p = &in->pods[s->wait_pod[i]];
        bool all = true;
        for (size_t n = 0; n < in->n_nodes && all; n++)
            if (in->nodes[n].schedulable && !ctl_guard_node_eligible(p, &in->nodes[n]))
                all = false;
        s->constrained[i] = !all;
        s->unconstrained[i] = all;
    }
    return 0;
}

static int select_rounds(plan_state *s, const ctl_budget *b, ds_err *err)
{
    const ctl_preempt_in *in = s->in;
    if (mark_constrained(s, err))
        return -1;
    /* Constrained preemptors in descending priority order. */
    size_t *order = calloc(s->n_wait ? s->n_wait : 1, sizeof *order);
    if (order == NULL)
        return ds_err_set(err, "preemption round: out of memory");
    size_t n_order = 0;
    for (size_t i = 0; i < s->n_wait; i++)
        if (s->constrained[i])
            order[n_order++] = i;
    for (size_t i = 1; i < n_order; i++) /* insertion sort: few constrained preemptors */
        for (size_t j = i; j > 0 && wait_before(s, order[j], order[j - 1]); j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }

    int rc = 0;
    for (int round = 0; round < CTL_PREEMPT_ROUNDS; round++) {
        s->out->rounds++;
        s->n_acc = 0;
        memcpy(s->nf_work, s->nf, in->n_nodes * sizeof *s->nf);
        memcpy(s->run_work, s->run, s->n_run * sizeof *s->run);
        for (size_t r = 0; r < s->n_run; r++)
            if (s->excluded[r])
                s->run_work[r].evictable = false;
        long dropped = run_once(s, b, s->unconstrained, s->nf_work, err);
        if (dropped < 0) {
            rc = -1;
            break;
        }
        for (size_t k = 0; k < n_order; k++) {
            size_t wi = order[k];
            if (!s->constrained[wi])
                continue; /* no longer offered (the release limit) */
            const ctl_pod *p = &in->pods[s->wait_pod[wi]];
            for (size_t n = 0; n < in->n_nodes; n++) {
                s->nf_one[n] = s->nf_work[n];
                if (!ctl_guard_node_eligible(p, &in->nodes[s->order[n]])) {
                    for (int kk = 0; kk < DS_RES_N; kk++)
                        s->nf_one[n].free_.v[kk] = INT64_MIN / 4;
                    s->nf_one[n].evictions_left = 0;
                }
            }
            memset(s->one, 0, s->n_wait * sizeof *s->one);
            s->one[wi] = true;
            long d = run_once(s, b, s->one, s->nf_one, err);
            if (d < 0) {
                rc = -1;
                break;
            }
            dropped += d;
        }
        if (rc)
            break;
        s->out->n_dropped += (size_t)dropped;
        if (dropped == 0)
            break;
    }
    free(order);
    return rc;
}

int ctl_preempt_plan(const ctl_preempt_in *in, ctl_preempt_out *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    if (check_input(in, err))
        return -1;
    out->guard = calloc(in->n_pods ? in->n_pods : 1, sizeof *out->guard);
    if (out->guard == NULL)
        return ds_err_set(err, "preemption round: out of memory");
    plan_state s;
    memset(&s, 0, sizeof s);
    s.in = in;
    s.out = out;
    ctl_budget b;
    ctl_budget_init(&b, in->policy, in->ledger, in->now);
    if (build_nodes(&s, &b, err) || build_tasks(&s, &b, err))
        goto fail;
    out->budget_spent = in->policy->preemption_enabled && b.total_left == 0;
    if (in->policy->preemption_enabled && b.total_left > 0 && s.n_wait > 0 && s.n_run > 0) {
        if (select_rounds(&s, &b, err))
            goto fail;
        if (s.n_acc > 0) {
            out->ev = s.acc;
            out->n_ev = s.n_acc;
            s.acc = NULL;
        }
    }
    state_free(&s);
    return 0;
fail:
    state_free(&s);
    ctl_preempt_out_free(out);
    return -1;
}

void ctl_preempt_out_free(ctl_preempt_out *out)
{
    free(out->ev);
    free(out->guard);
    memset(out, 0, sizeof *out);
}
