/* admit.c: release as admission, which ready tasks to release against the nodes' free room (see
 * admit.h for the rule). */
#include "admit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mode_names[] = {"capacity", "all"};
static const char *const verdict_names[DS_ADMIT_VERDICT_N] = {
    "released", "lookahead", "no-room", "behind-starving", "limit", "fair-share", "gang"};

const char *ds_admit_mode_name(ds_admit_mode m)
{
    if ((unsigned)m >= sizeof mode_names / sizeof mode_names[0])
        return "unknown";
    return mode_names[m];
}

int ds_admit_mode_parse(const char *name, ds_admit_mode *out)
{
    if (name == NULL)
        return -1;
    for (size_t i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++)
        if (strcmp(name, mode_names[i]) == 0) {
            *out = (ds_admit_mode)i;
            return 0;
        }
    return -1;
}

const char *ds_admit_verdict_name(ds_admit_verdict v)
{
    if ((unsigned)v >= DS_ADMIT_VERDICT_N)
        return "unknown";
    return verdict_names[v];
}

bool ds_admit_verdict_releases(ds_admit_verdict v)
{
    return v == DS_ADMIT_RELEASED || v == DS_ADMIT_LOOKAHEAD;
}

static bool may_use(const ds_admit_task *t, size_t k)
{
    return t->eligible == NULL || t->eligible[k];
}

/* Free room left after the request, as fractions of allocatable summed over kinds. */
static double leftover(const ds_res *request, const ds_res *free_, const ds_res *alloc)
{
    ds_res left = *free_;
    ds_res_sub(&left, request);
    double f[DS_RES_N];
    ds_res_normalise(&left, alloc, f);
    double s = 0;
    for (int k = 0; k < DS_RES_N; k++)
        s += f[k];
    return s;
}

/* Shortfall of the request on free room, as fractions of allocatable summed over kinds (a kind
 * without allocatable counts 1 when requested). */
static double shortfall(const ds_res *request, const ds_res *free_, const ds_res *alloc)
{
    double s = 0;
    for (int k = 0; k < DS_RES_N; k++) {
        if (request->v[k] <= 0 || request->v[k] <= free_->v[k])
            continue;
        if (alloc->v[k] <= 0) {
            s += 1.0;
            continue;
        }
        double gap = (double)request->v[k] - (double)free_->v[k];
        s += gap / (double)alloc->v[k];
    }
    return s;
}

static double free_sum(const ds_res *free_, const ds_res *alloc)
{
    double f[DS_RES_N];
    ds_res_normalise(free_, alloc, f);
    double s = 0;
    for (int k = 0; k < DS_RES_N; k++)
        s += f[k];
    return s;
}

/* The best-fitting node the task may use whose free room holds it, skipping reserved nodes when
 * `reserved` is given; SIZE_MAX when none. */
static size_t best_fit(const ds_admit_task *t, const ds_admit_node *nodes, const ds_res *free_,
                       size_t n_nodes, const size_t *reserved)
{
    size_t best = SIZE_MAX;
    double best_left = 0;
    for (size_t k = 0; k < n_nodes; k++) {
        if (!may_use(t, k) || !ds_res_fits(&t->request, &free_[k]))
            continue;
        if (reserved != NULL && reserved[k] != SIZE_MAX)
            continue;
        double l = leftover(&t->request, &free_[k], &nodes[k].allocatable);
        if (best == SIZE_MAX || l < best_left) {
            best = k;
            best_left = l;
        }
    }
    return best;
}

/* The node the task may use that comes closest to holding it; SIZE_MAX when it may use none. */
static size_t closest(const ds_admit_task *t, const ds_admit_node *nodes, const ds_res *free_,
                      size_t n_nodes)
{
    size_t best = SIZE_MAX;
    double best_short = 0, best_free = 0;
    for (size_t k = 0; k < n_nodes; k++) {
        if (!may_use(t, k))
            continue;
        double s = shortfall(&t->request, &free_[k], &nodes[k].allocatable);
        double f = free_sum(&free_[k], &nodes[k].allocatable);
        if (best == SIZE_MAX || s < best_short || (s == best_short && f > best_free)) {
            best = k;
            best_short = s;
            best_free = f;
        }
    }
    return best;
}

static void set_node(ds_admit_result *r, size_t node, const ds_res *free_)
{
    r->node = node;
    if (node != SIZE_MAX)
        r->node_free = free_[node];
}

/* The state of one ds_admit_plan call while it decides the ready tasks. */
typedef struct plan {
    const ds_admit_params *p;
    const ds_admit_node *nodes;
    size_t n_nodes;
    const ds_admit_task *ready;
    size_t n_ready;
    ds_admit_result *out;
    ds_admit_summary sum;
    size_t in_flight, slots;
    ds_res *free_;
    size_t *reserved;  /* reserved[k]: ready index of the starving task, SIZE_MAX: none */
    bool *kept;        /* kept[k]: room on node k went to an upcoming or first task */
    bool *done;        /* done[i]: ready task i is decided (early: before the tasks in flight) */
    ds_fair_queue *fq; /* fairness: the tenants' shares; NULL without */
    size_t pos;        /* the next ready task in the order given */
    bool starving_done;
    /* Gangs: the first member of task i's gang (head) and the next member after i (link),
     * SIZE_MAX: none; NULL without gangs. backup: free_ while a gang is tried. */
    size_t *gang_head, *gang_link;
    ds_res *backup;
    /* Held room (gangs, and tasks that may hold: hold_room): cap[k], node k's allocatable less
     * the room held there; holds_left, the tasks that may still hold. */
    ds_res *cap;
    size_t holds_left;
    bool limit_held; /* a gang is held for max_concurrent: so are the tasks behind it */
} plan;

static bool in_gang(const ds_admit_task *t)
{
    return t->gang_size > 0 && !t->upcoming;
}

/* The next ready task to decide in step 2 (and under admission all): the order given; with
 * fairness, the starving tasks in the order given, then the fair queue's order. SIZE_MAX when
 * every task is decided. */
static size_t next_ready(plan *x)
{
    while (x->fq != NULL && !x->starving_done) {
        while (x->pos < x->n_ready && (x->done[x->pos] || !x->ready[x->pos].starving))
            x->pos++;
        if (x->pos < x->n_ready) {
            x->done[x->pos] = true;
            return x->pos++;
        }
        x->starving_done = true;
    }
    if (x->fq != NULL) {
        size_t i = ds_fair_queue_next(x->fq, x->done);
        if (i != SIZE_MAX)
            x->done[i] = true;
        return i;
    }
    while (x->pos < x->n_ready && x->done[x->pos])
        x->pos++;
    if (x->pos == x->n_ready)
        return SIZE_MAX;
    x->done[x->pos] = true;
    return x->pos++;
}

/* Held for the tenant's cap (fairness only): the verdict set, true. */
static bool held_for_cap(plan *x, size_t i)
{
    const ds_admit_task *t = &x->ready[i];
    if (x->fq == NULL || !ds_fair_queue_over_cap(x->fq, t->tenant, &t->request))
        return false;
    ds_admit_result *r = &x->out[i];
    ds_res with = x->fq->slot[t->tenant].t.used;
    ds_res_add(&with, &t->request);
    r->verdict = DS_ADMIT_HELD_FAIR_SHARE;
    r->over_cap = true;
    r->share = ds_dominant_share(&with, &x->fq->capacity);
    r->fair_share = x->fq->slot[t->tenant].t.cap;
    return true;
}

/* A released task takes its tenant's share (fairness only). */
static void charge(plan *x, const ds_admit_task *t)
{
    if (x->fq != NULL)
        ds_fair_queue_charge(x->fq, t->tenant, &t->request);
}

/* Step 0: upcoming tasks and those marked first take the room before the tasks in flight. */
static void decide_early(plan *x)
{
    size_t limit = x->p->max_concurrent;
    for (size_t i = 0; i < x->n_ready; i++) {
        const ds_admit_task *t = &x->ready[i];
        ds_admit_result *r = &x->out[i];
        if ((!t->upcoming && !t->first) || in_gang(t))
            continue;
        if (!t->upcoming && limit > 0 && x->in_flight >= limit)
            continue; /* decided with the others */
        if (held_for_cap(x, i)) {
            x->done[i] = true;
            x->sum.count[r->verdict]++;
            continue;
        }
        size_t k = best_fit(t, x->nodes, x->free_, x->n_nodes, NULL);
        if (k == SIZE_MAX && !t->upcoming)
            continue; /* decided with the others */
        r->verdict = k != SIZE_MAX ? DS_ADMIT_RELEASED : DS_ADMIT_HELD_NO_ROOM;
        set_node(r, k != SIZE_MAX ? k : closest(t, x->nodes, x->free_, x->n_nodes), x->free_);
        if (k != SIZE_MAX) {
            ds_res_sub(&x->free_[k], &t->request);
            x->kept[k] = true;
            x->in_flight += t->upcoming ? 0 : 1;
            charge(x, t);
        }
        x->done[i] = true;
        x->sum.count[r->verdict]++;
    }
}

/* The node where the room for task t (a gang member, or a task that may hold) is held: among
 * the nodes it may use, not reserved by a starving task, whose allocatable left (cap) holds it,
 * the one whose free room comes closest to holding it, then the most free room; SIZE_MAX when
 * none. */
static size_t hold_node(const plan *x, const ds_admit_task *t)
{
    size_t best = SIZE_MAX;
    double best_short = 0, best_free = 0;
    for (size_t k = 0; k < x->n_nodes; k++) {
        if (!may_use(t, k) || x->reserved[k] != SIZE_MAX || !ds_res_fits(&t->request, &x->cap[k]))
            continue;
        double s = shortfall(&t->request, &x->free_[k], &x->nodes[k].allocatable);
        double f = free_sum(&x->free_[k], &x->nodes[k].allocatable);
        if (best == SIZE_MAX || s < best_short || (s == best_short && f > best_free)) {
            best = k;
            best_short = s;
            best_free = f;
        }
    }
    return best;
}

/* Ready task i fits no free room and may hold (ds_admit_task.may_hold): its request is taken from
 * the free room of the node closest to holding it (hold_node), below zero where the room is not
 * free yet, so that the room which frees there goes to it, not to the tasks behind it. True when
 * held (result.node is that node). */
static bool hold_task_room(plan *x, size_t i)
{
    const ds_admit_task *t = &x->ready[i];
    size_t k = hold_node(x, t);
    if (k == SIZE_MAX)
        return false;
    set_node(&x->out[i], k, x->free_);
    ds_res_sub(&x->cap[k], &t->request);
    ds_res_sub(&x->free_[k], &t->request);
    x->kept[k] = true;
    return true;
}

/* Step 2 for ready task i, fitting no free node it may take: which nodes could ever hold it, and
 * is one of them reserved by a starving task ahead? Sets the verdict. */
static void decide_unfit(plan *x, size_t i)
{
    const ds_admit_task *t = &x->ready[i];
    ds_admit_result *r = &x->out[i];
    size_t could = 0, blocked_on = SIZE_MAX, fits_reserved = SIZE_MAX, on_kept = SIZE_MAX;
    for (size_t n = 0; n < x->n_nodes; n++) {
        if (!may_use(t, n) || !ds_res_fits(&t->request, &x->nodes[n].allocatable))
            continue;
        could++;
        if (x->kept[n] && on_kept == SIZE_MAX)
            on_kept = n;
        if (x->reserved[n] != SIZE_MAX && blocked_on == SIZE_MAX)
            blocked_on = n;
        if (x->reserved[n] != SIZE_MAX && fits_reserved == SIZE_MAX &&
            ds_res_fits(&t->request, &x->free_[n]))
            fits_reserved = n;
    }
    size_t on = fits_reserved != SIZE_MAX ? fits_reserved : blocked_on;
    if (on != SIZE_MAX) {
        r->verdict = DS_ADMIT_HELD_STARVING;
        set_node(r, on, x->free_);
        r->blocker = x->reserved[on];
    } else {
        set_node(r, closest(t, x->nodes, x->free_, x->n_nodes), x->free_);
        bool fair_above = x->fq != NULL && ds_fair_queue_above(x->fq, t->tenant);
        if (could == 0) {
            r->verdict = DS_ADMIT_HELD_NO_ROOM;
            r->never_fits = true;
        } else if (t->may_hold && x->holds_left > 0 && !fair_above && hold_task_room(x, i)) {
            r->verdict = DS_ADMIT_HELD_NO_ROOM;
            r->room_held = true;
            x->holds_left--;
        } else if (on_kept != SIZE_MAX) {
            /* Released ahead of room, it would take the room kept for the upcoming task the
             * moment it frees (kube-scheduler binds what is in its queue). */
            r->verdict = DS_ADMIT_HELD_NO_ROOM;
            set_node(r, on_kept, x->free_);
        } else if (fair_above) {
            r->verdict = DS_ADMIT_HELD_FAIR_SHARE;
            r->share = ds_fair_queue_share(x->fq, t->tenant);
            r->fair_share = ds_fair_queue_fair_share(x->fq, t->tenant);
        } else if (x->slots > 0) {
            r->verdict = DS_ADMIT_LOOKAHEAD;
            x->slots--;
            x->in_flight++;
            charge(x, t);
        } else {
            r->verdict = DS_ADMIT_HELD_NO_ROOM;
        }
    }
    if (t->starving && could > 0)
        for (size_t n = 0; n < x->n_nodes; n++)
            if (x->reserved[n] == SIZE_MAX && may_use(t, n) &&
                ds_res_fits(&t->request, &x->nodes[n].allocatable))
                x->reserved[n] = i;
}

/* Every member of the gang of ready task i gets the verdict v (and the gang's counts). */
static void gang_verdict(plan *x, size_t head, ds_admit_verdict v, size_t n, size_t room)
{
    for (size_t m = head; m != SIZE_MAX; m = x->gang_link[m]) {
        ds_admit_result *r = &x->out[m];
        r->verdict = v;
        r->gang_ready = n;
        r->gang_size = x->ready[head].gang_size;
        r->gang_room = room;
        x->sum.count[v]++;
    }
}

/* A gang whose members are all ready but do not all fit: the room of each member is held on
 * the node that comes closest to holding it (hold_node), its request taken from that node's
 * free room even where the room is not free yet, so that the room which frees there goes to the
 * gang and not to the tasks behind it. True when the room of every member is held; otherwise
 * nothing is (the free room as before: a gang that cannot fit the nodes' allocatable holds
 * nothing). */
static bool hold_gang_room(plan *x, size_t head)
{
    for (size_t m = head; m != SIZE_MAX; m = x->gang_link[m]) {
        const ds_admit_task *t = &x->ready[m];
        size_t k = hold_node(x, t);
        if (k == SIZE_MAX) {
            memcpy(x->free_, x->backup, x->n_nodes * sizeof *x->free_);
            for (size_t u = head; u != m; u = x->gang_link[u])
                ds_res_add(&x->cap[x->out[u].node], &x->ready[u].request);
            return false;
        }
        set_node(&x->out[m], k, x->free_);
        ds_res_sub(&x->cap[k], &t->request);
        ds_res_sub(&x->free_[k], &t->request);
    }
    for (size_t m = head; m != SIZE_MAX; m = x->gang_link[m])
        x->kept[x->out[m].node] = true;
    return true;
}

/* Step 2 for the gang of ready task i: all its members at once, or none. */
static void decide_gang(plan *x, size_t i)
{
    size_t head = x->gang_head[i], n = 0, size = x->ready[i].gang_size;
    ds_res sum = {{0}};
    for (size_t m = head; m != SIZE_MAX; m = x->gang_link[m]) {
        x->done[m] = true;
        ds_res_add(&sum, &x->ready[m].request);
        n++;
    }
    size_t limit = x->p->max_concurrent;
    if (n < size) {
        gang_verdict(x, head, DS_ADMIT_HELD_GANG, n, 0);
        return;
    }
    if (limit > 0 && x->in_flight > 0 && (x->in_flight >= limit || n > limit - x->in_flight)) {
        gang_verdict(x, head, DS_ADMIT_HELD_LIMIT, n, 0);
        x->limit_held = true;
        return;
    }
    size_t tenant = x->ready[head].tenant;
    if (x->fq != NULL && ds_fair_queue_over_cap(x->fq, tenant, &sum)) {
        ds_res with = x->fq->slot[tenant].t.used;
        ds_res_add(&with, &sum);
        double share = ds_dominant_share(&with, &x->fq->capacity);
        gang_verdict(x, head, DS_ADMIT_HELD_FAIR_SHARE, n, 0);
        for (size_t m = head; m != SIZE_MAX; m = x->gang_link[m]) {
            x->out[m].over_cap = true;
            x->out[m].share = share;
            x->out[m].fair_share = x->fq->slot[tenant].t.cap;
        }
        return;
    }
    if (x->p->mode == DS_ADMIT_ALL) {
        for (size_t m = head; m != SIZE_MAX; m = x->gang_link[m]) {
            x->in_flight++;
            charge(x, &x->ready[m]);
        }
        gang_verdict(x, head, DS_ADMIT_RELEASED, n, n);
        return;
    }
    memcpy(x->backup, x->free_, x->n_nodes * sizeof *x->free_);
    size_t room = 0;
    for (size_t m = head; m != SIZE_MAX; m = x->gang_link[m]) {
        const ds_admit_task *t = &x->ready[m];
        size_t k = best_fit(t, x->nodes, x->free_, x->n_nodes, x->reserved);
        if (k == SIZE_MAX) {
            set_node(&x->out[m], closest(t, x->nodes, x->free_, x->n_nodes), x->free_);
            continue;
        }
        set_node(&x->out[m], k, x->free_);
        ds_res_sub(&x->free_[k], &t->request);
        room++;
    }
    if (room < n) {
        memcpy(x->free_, x->backup, x->n_nodes * sizeof *x->free_);
        bool held = hold_gang_room(x, head);
        gang_verdict(x, head, DS_ADMIT_HELD_GANG, n, room);
        for (size_t m = head; m != SIZE_MAX; m = x->gang_link[m])
            x->out[m].gang_holds = held;
        return;
    }
    for (size_t m = head; m != SIZE_MAX; m = x->gang_link[m]) {
        x->in_flight++;
        charge(x, &x->ready[m]);
    }
    gang_verdict(x, head, DS_ADMIT_RELEASED, n, n);
}

/* Step 2 for ready task i. */
static void decide_ready(plan *x, size_t i)
{
    const ds_admit_task *t = &x->ready[i];
    ds_admit_result *r = &x->out[i];
    size_t limit = x->p->max_concurrent;
    if (x->gang_head != NULL && in_gang(t) && !x->limit_held) {
        decide_gang(x, i);
        return;
    }
    if (x->limit_held || (limit > 0 && x->in_flight >= limit))
        r->verdict = DS_ADMIT_HELD_LIMIT;
    else if (held_for_cap(x, i))
        ;
    else if (x->p->mode == DS_ADMIT_ALL) {
        r->verdict = DS_ADMIT_RELEASED;
        x->in_flight++;
        charge(x, t);
    } else {
        size_t k = best_fit(t, x->nodes, x->free_, x->n_nodes, x->reserved);
        if (k != SIZE_MAX) {
            r->verdict = DS_ADMIT_RELEASED;
            set_node(r, k, x->free_);
            ds_res_sub(&x->free_[k], &t->request);
            x->in_flight++;
            charge(x, t);
        } else {
            decide_unfit(x, i);
        }
    }
    x->sum.count[r->verdict]++;
}

/* The scratch space is one block that starts at free_, and one for gangs at gang_head. */
static void plan_free(plan *x)
{
    free(x->free_);
    free(x->gang_head);
    ds_fair_queue_free(x->fq);
}

typedef struct gang_key {
    size_t gang, idx;
} gang_key;

static int cmp_gang_key(const void *pa, const void *pb)
{
    const gang_key *a = pa, *b = pb;
    if (a->gang != b->gang)
        return a->gang < b->gang ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

/* The members of each gang, in the order given (gang_head, gang_link), and the backup room; 0,
 * or -1 with err set on out of memory. Nothing without gangs. */
static int gang_init(plan *x, ds_err *err)
{
    size_t n = 0;
    for (size_t i = 0; i < x->n_ready; i++)
        n += in_gang(&x->ready[i]) ? 1 : 0;
    if (n == 0)
        return 0;
    size_t nn = x->n_nodes ? x->n_nodes : 1;
    char *block = calloc(2 * x->n_ready * sizeof(size_t) + nn * sizeof(ds_res), 1);
    gang_key *keys = calloc(n, sizeof *keys);
    if (block == NULL || keys == NULL) {
        free(block);
        free(keys);
        return ds_err_set(err, "admission: out of memory for %zu gang members", n);
    }
    x->gang_head = (size_t *)block;
    x->gang_link = x->gang_head + x->n_ready;
    x->backup = (ds_res *)(x->gang_link + x->n_ready);
    size_t k = 0;
    for (size_t i = 0; i < x->n_ready; i++) {
        x->gang_head[i] = x->gang_link[i] = SIZE_MAX;
        if (in_gang(&x->ready[i]))
            keys[k++] = (gang_key){x->ready[i].gang, i};
    }
    qsort(keys, n, sizeof *keys, cmp_gang_key);
    for (size_t j = 0; j < n; j++) {
        bool first = j == 0 || keys[j - 1].gang != keys[j].gang;
        x->gang_head[keys[j].idx] = first ? keys[j].idx : x->gang_head[keys[j - 1].idx];
        if (!first)
            x->gang_link[keys[j - 1].idx] = keys[j].idx;
    }
    free(keys);
    return 0;
}

/* The fair queue over the ready tasks, with the tasks in flight charged to their tenants, which
 * take part in the round: a tenant whose tasks all wait in kube-scheduler's queue (released ahead
 * of room, in back-off there) still has demand, and another tenant's look-ahead release would take
 * the room that frees before them. */
static int fair_init(plan *x, ds_fair_queue *fq, const ds_admit_task *inflight, size_t n_inflight,
                     size_t *tenant_of, ds_err *err)
{
    const ds_admit_fair *f = x->p->fair;
    for (size_t i = 0; i < x->n_ready; i++)
        tenant_of[i] = x->ready[i].tenant;
    if (ds_fair_queue_init(fq, f->tenants, f->n_tenants, &f->capacity, tenant_of, x->n_ready,
                           err) != 0) {
        ds_err_prefix(err, "admission");
        return -1;
    }
    x->fq = fq;
    for (size_t i = 0; i < n_inflight; i++)
        if (!inflight[i].room_only && inflight[i].tenant < f->n_tenants) {
            ds_fair_queue_charge(fq, inflight[i].tenant, &inflight[i].request);
            ds_fair_queue_join(fq, inflight[i].tenant);
        }
    return 0;
}

int ds_admit_plan(const ds_admit_params *p, const ds_admit_node *nodes, size_t n_nodes,
                  const ds_admit_task *inflight, size_t n_inflight, const ds_admit_task *ready,
                  size_t n_ready, ds_admit_result *out, ds_admit_summary *summary, ds_err *err)
{
    if (p == NULL || (nodes == NULL && n_nodes > 0) || (inflight == NULL && n_inflight > 0) ||
        (ready == NULL && n_ready > 0) || (out == NULL && n_ready > 0))
        return ds_err_set(err, "admission: missing %s",
                          p == NULL                              ? "parameters"
                          : (nodes == NULL && n_nodes > 0)       ? "nodes"
                          : (inflight == NULL && n_inflight > 0) ? "in-flight tasks"
                          : (ready == NULL && n_ready > 0)       ? "ready tasks"
                                                                 : "results");
    plan x = {
        .p = p, .nodes = nodes, .n_nodes = n_nodes, .ready = ready, .n_ready = n_ready, .out = out};
    for (size_t i = 0; i < n_ready; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].node = SIZE_MAX;
        out[i].blocker = SIZE_MAX;
    }
    for (size_t i = 0; i < n_inflight; i++)
        x.in_flight += inflight[i].room_only ? 0 : 1;
    /* One block of scratch space: free_ and reserved per node, the tenant of each ready task
     * (size_t-aligned after the ds_res array), then kept per node and done per ready task. */
    size_t nn = n_nodes ? n_nodes : 1, nr = n_ready ? n_ready : 1;
    if (nn > SIZE_MAX / 64 || nr > SIZE_MAX / 64)
        return ds_err_set(err, "admission: too many nodes or tasks (%zu, %zu)", n_nodes, n_ready);
    size_t words = 2 * nn * sizeof(ds_res) + (nn + nr) * sizeof(size_t);
    char *scratch = calloc(words + nn + nr, 1);
    if (scratch == NULL)
        return ds_err_set(err, "admission: out of memory for %zu nodes", n_nodes);
    x.free_ = (ds_res *)scratch;
    x.cap = (ds_res *)scratch + nn;
    x.reserved = (size_t *)(scratch + 2 * nn * sizeof(ds_res));
    size_t *tenant_of = x.reserved + nn;
    x.kept = (bool *)(scratch + words);
    x.done = x.kept + nn;
    ds_fair_queue fq;
    if ((p->fair != NULL && fair_init(&x, &fq, inflight, n_inflight, tenant_of, err) != 0) ||
        gang_init(&x, err) != 0) {
        plan_free(&x);
        return -1;
    }
    for (size_t k = 0; k < n_nodes; k++) {
        x.free_[k] = nodes[k].free_;
        x.cap[k] = nodes[k].allocatable;
        x.reserved[k] = SIZE_MAX;
    }
    x.holds_left = p->hold_room;
    if (p->mode != DS_ADMIT_ALL) {
        decide_early(&x);
        for (size_t i = 0; i < n_inflight; i++) {
            size_t k = best_fit(&inflight[i], nodes, x.free_, n_nodes, NULL);
            if (k == SIZE_MAX) {
                x.sum.inflight_unplaced += inflight[i].room_only ? 0 : 1;
                continue;
            }
            ds_res_sub(&x.free_[k], &inflight[i].request);
            x.sum.inflight_placed++;
        }
        x.slots =
            p->lookahead > x.sum.inflight_unplaced ? p->lookahead - x.sum.inflight_unplaced : 0;
    }
    for (size_t i = next_ready(&x); i != SIZE_MAX; i = next_ready(&x))
        decide_ready(&x, i);
    if (summary != NULL)
        *summary = x.sum;
    plan_free(&x);
    return 0;
}

void ds_admit_describe(const ds_admit_result *r, const ds_res *request, const char *node_name,
                       const char *other_name, size_t max_concurrent, char *buf, size_t bufsize)
{
    if (buf == NULL || bufsize == 0)
        return;
    char req[160], room[160];
    ds_res_format(request, req, sizeof req);
    ds_res_format_like(&r->node_free, request, room, sizeof room);
    bool has_node = r->node != SIZE_MAX && node_name != NULL;
    const char *nn = has_node ? node_name : "";
    switch (r->verdict) {
    case DS_ADMIT_RELEASED:
        if (has_node)
            snprintf(buf, bufsize, "fits on node %s", nn);
        else
            snprintf(buf, bufsize, "released");
        return;
    case DS_ADMIT_LOOKAHEAD:
    case DS_ADMIT_HELD_NO_ROOM: {
        const char *head =
            r->verdict == DS_ADMIT_LOOKAHEAD ? "released ahead of room (look-ahead)" : "no room";
        if (r->node == SIZE_MAX)
            snprintf(buf, bufsize, "%s: no node it may run on (node selector, affinity, taints)",
                     head);
        else if (r->never_fits)
            snprintf(buf, bufsize,
                     "%s: needs %s; larger than the allocatable of every node it may run on", head,
                     req);
        else if (r->room_held)
            snprintf(buf, bufsize,
                     "%s: needs %s; the room that frees on node %s is held for it (free now: %s)",
                     head, req, nn, room);
        else
            snprintf(buf, bufsize, "%s: needs %s; most free room on node %s: %s", head, req, nn,
                     room);
        return;
    }
    case DS_ADMIT_HELD_STARVING:
        snprintf(buf, bufsize, "behind starving task %s, which waits for room on node %s",
                 other_name != NULL ? other_name : "?", has_node ? nn : "?");
        return;
    case DS_ADMIT_HELD_LIMIT:
        snprintf(buf, bufsize, "maxConcurrentReleases (%zu) tasks released and not yet running",
                 max_concurrent);
        return;
    case DS_ADMIT_HELD_GANG: {
        const char *gn = other_name != NULL ? other_name : "?";
        if (r->gang_ready < r->gang_size)
            snprintf(buf, bufsize, "gang %.64s: %zu of %zu members ready", gn, r->gang_ready,
                     r->gang_size);
        else
            snprintf(buf, bufsize, "gang %.64s: room for %zu of %zu members%s", gn, r->gang_room,
                     r->gang_ready, r->gang_holds ? "; the room that frees is held for it" : "");
        return;
    }
    case DS_ADMIT_HELD_FAIR_SHARE: {
        const char *tn = other_name != NULL ? other_name : "?";
        if (r->over_cap)
            snprintf(buf, bufsize,
                     "tenant %.100s is above its fair share (dominant share %.2f with this task, "
                     "cap %.2f)",
                     tn, r->share, r->fair_share);
        else if (has_node)
            snprintf(buf, bufsize,
                     "tenant %.100s is above its fair share (dominant share %.2f, fair share "
                     "%.2f): needs %s; most free room on node %s: %s",
                     tn, r->share, r->fair_share, req, nn, room);
        else
            snprintf(buf, bufsize,
                     "tenant %.100s is above its fair share (dominant share %.2f, fair share %.2f)",
                     tn, r->share, r->fair_share);
        return;
    }
    case DS_ADMIT_VERDICT_N:
        break;
    }
    snprintf(buf, bufsize, "unknown");
}
