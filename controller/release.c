/* release.c: release of held-back DAG tasks by the rule of lib/admit.h, the reasons of those that
 * stay held, and nudges of rejected pods (see release.h). */
#include "release.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guards.h"

static const char *const wait_names[CTL_WAIT_N] = {"upstream",   "no-room",     "behind-starving",
                                                   "limit",      "invalid-job", "argo-unlisted",
                                                   "fair-share", "gang"};

const char *ctl_wait_reason_name(ctl_wait_reason r)
{
    if ((unsigned)r >= CTL_WAIT_N)
        return "unknown";
    return wait_names[r];
}

typedef struct cand {
    ctl_release_kind kind;
    size_t idx;
    double priority;
    size_t queue_pos; /* the policy's order across jobs (spec.order); SIZE_MAX when unknown */
    double created;
    const char *ns, *name;
    bool first;    /* a pod of an upcoming task (lib/upcoming.h): decided before those in flight */
    size_t tenant; /* with fairness: its tenant (tenants.h) */
    size_t gang;   /* its gang (ctl_release_out.gangs) when the rule decides it as one; SIZE_MAX */
} cand;

static int cmp_cand(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    if (a->queue_pos != b->queue_pos)
        return a->queue_pos < b->queue_pos ? -1 : 1;
    if (a->priority != b->priority)
        return a->priority > b->priority ? -1 : 1;
    if (a->created != b->created)
        return a->created < b->created ? -1 : 1;
    int c = strcmp(a->ns, b->ns);
    return c ? c : strcmp(a->name, b->name);
}

static double prio_of(const ctl_task_info *t)
{
    return t->evaluated && isfinite(t->eval.priority) ? t->eval.priority : -INFINITY;
}

/* Pending pods in kube-scheduler's queue, in the order it pops them: highest Kubernetes priority,
 * then the oldest. */
typedef struct queued {
    size_t idx; /* pod index, or SIZE_MAX for a Job without pods (job_idx) */
    size_t job_idx;
    int32_t k8s_priority;
    double created;
    bool counted; /* a task released by dagsched */
} queued;

static int cmp_queued(const void *pa, const void *pb)
{
    const queued *a = pa, *b = pb;
    if (a->k8s_priority != b->k8s_priority)
        return a->k8s_priority > b->k8s_priority ? -1 : 1;
    if (a->created != b->created)
        return a->created < b->created ? -1 : 1;
    if (a->idx != b->idx)
        return a->idx < b->idx ? -1 : 1;
    return (a->job_idx > b->job_idx) - (a->job_idx < b->job_idx);
}

typedef struct node_ref {
    const char *name;
    size_t idx; /* into in->nodes */
} node_ref;

static int cmp_node_ref(const void *pa, const void *pb)
{
    const node_ref *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    if (c != 0)
        return c;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

/* Scratch of the capacity rule. Admission nodes are in->nodes sorted by name (ref[k]). */
typedef struct admit_ctx {
    const ctl_release_in *in;
    node_ref *ref;
    ds_admit_node *nodes;
    bool *plain; /* [n_nodes]: nodes a pod without constraints may use */
    bool *masks; /* [n_masks * n_nodes] */
    size_t n_masks, cap_masks;
} admit_ctx;

static bool constrained(const ctl_pod *p)
{
    return p->n_node_selector > 0 || p->has_required_affinity || p->n_tolerations > 0 ||
           (p->affinity_error != NULL && p->affinity_error[0] != '\0');
}

/* The eligibility mask of a pod (NULL for a Job: the plain mask). A required node affinity the
 * controller could not decode (affinity_error) is left out: preemption takes it as matching no
 * node, but holding the pod for it would hold it forever, so release judges it on its node
 * selector and tolerations alone and leaves the affinity to kube-scheduler. */
static const bool *mask_of(admit_ctx *x, const ctl_pod *p)
{
    size_t n = x->in->n_nodes;
    if (p == NULL || !constrained(p))
        return x->plain;
    if (x->n_masks >= x->cap_masks)
        return x->plain; /* cannot happen: sized for every constrained pod */
    ctl_pod judged = *p;
    if (judged.affinity_error != NULL && judged.affinity_error[0] != '\0') {
        judged.affinity_error = "";
        judged.has_required_affinity = false;
    }
    bool *m = &x->masks[x->n_masks++ * n];
    for (size_t k = 0; k < n; k++)
        m[k] = ctl_guard_node_eligible(&judged, &x->in->nodes[x->ref[k].idx]);
    return m;
}

/* Index of the first node of that name in the sorted nodes, or SIZE_MAX. */
static size_t find_node(const admit_ctx *x, const char *name)
{
    size_t lo = 0, hi = x->in->n_nodes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(x->ref[mid].name, name);
        if (c == 0) {
            while (mid > 0 && strcmp(x->ref[mid - 1].name, name) == 0)
                mid--;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return SIZE_MAX;
}

static void admit_ctx_free(admit_ctx *x)
{
    free(x->ref);
    free(x->nodes);
    free(x->plain);
    free(x->masks);
}

/* Nodes sorted by name, their free room after the bound pods, the plain mask. */
static int admit_ctx_init(admit_ctx *x, const ctl_release_in *in, size_t n_masks)
{
    memset(x, 0, sizeof *x);
    x->in = in;
    size_t n = in->n_nodes;
    x->ref = calloc(n ? n : 1, sizeof *x->ref);
    x->nodes = calloc(n ? n : 1, sizeof *x->nodes);
    x->plain = calloc(n ? n : 1, sizeof *x->plain);
    x->cap_masks = n > 0 ? n_masks : 0;
    if (x->cap_masks > 0 && n > SIZE_MAX / sizeof(bool) / x->cap_masks)
        return -1;
    size_t n_bools = x->cap_masks * n;
    x->masks = calloc(n_bools > 0 ? n_bools : 1, sizeof *x->masks);
    if (x->ref == NULL || x->nodes == NULL || x->plain == NULL || x->masks == NULL)
        return -1;
    for (size_t k = 0; k < n; k++)
        x->ref[k] = (node_ref){in->nodes[k].name != NULL ? in->nodes[k].name : "", k};
    qsort(x->ref, n, sizeof *x->ref, cmp_node_ref);
    ctl_pod none;
    memset(&none, 0, sizeof none);
    for (size_t k = 0; k < n; k++) {
        const ctl_node *nd = &in->nodes[x->ref[k].idx];
        x->nodes[k].allocatable = nd->allocatable;
        x->nodes[k].free_ = nd->allocatable;
        if (in->reserved != NULL) /* held for a preemptor (reserve.h) */
            ds_res_sub(&x->nodes[k].free_, &in->reserved[x->ref[k].idx]);
        x->plain[k] = ctl_guard_node_eligible(&none, nd);
    }
    for (size_t i = 0; i < in->n_pods; i++) {
        const ctl_pod *p = &in->pods[i];
        if (p->state != CTL_POD_BOUND || p->node == NULL || p->node[0] == '\0')
            continue;
        size_t k = find_node(x, p->node);
        if (k != SIZE_MAX)
            ds_res_sub(&x->nodes[k].free_, &p->request);
    }
    return 0;
}

/* Turn an admission result's node (an index into the sorted nodes) into an index into in->nodes. */
static void to_view_node(const admit_ctx *x, ds_admit_result *r)
{
    if (r->node != SIZE_MAX && r->node < x->in->n_nodes)
        r->node = x->ref[r->node].idx;
}

static bool outside_dag(const ctl_pod *p)
{
    return (p->dagsched_error != NULL && p->dagsched_error[0] != '\0') ||
           (p->task.job == DS_NO_TASK && !p->task.job_invalid && !p->task.deferred);
}

static bool pending(const ctl_pod *p)
{
    return p->state == CTL_POD_PENDING || p->state == CTL_POD_UNSCHEDULABLE;
}

/* A batch Job released (unsuspended) whose pod does not exist yet: in flight, and its pod takes
 * room first. A deferred job's counts too, whatever its task's state. */
static bool job_in_flight(const ctl_batch_job *j)
{
    return !j->suspended && !j->has_pods &&
           (j->task.deferred || (j->task.job != DS_NO_TASK && j->task.state == DS_TASK_WAITING));
}

/* Decide the ready tasks c[0..nc) (in queue order) with the rule of lib/admit.h; res[i] for c[i]
 * (nodes as indexes into in->nodes). ts: the tenants with fairness on, NULL otherwise. */
static int decide(const ctl_release_in *in, const cand *c, size_t nc, ds_admit_result *res,
                  ctl_tenants *ts, const ctl_gang *gangs, ds_err *err)
{
    ds_admit_params ap = {.mode = in->admission,
                          .lookahead = in->lookahead,
                          .max_concurrent = in->max_concurrent,
                          .hold_room = in->hold_room};
    ds_admit_fair fair = {0};
    if (ts != NULL) {
        fair = (ds_admit_fair){.tenants = ts->fair, .n_tenants = ts->n, .capacity = ts->capacity};
        ap.fair = &fair;
    }
    size_t nq = 0;
    for (size_t i = 0; i < in->n_pods; i++)
        if (pending(&in->pods[i]) && !in->pods[i].terminating && !in->pods[i].other_gates)
            nq++;
    for (size_t i = 0; i < in->n_jobs; i++)
        if (job_in_flight(&in->jobs[i]))
            nq++;
    /* Every constrained pod gets its own mask; the others share the plain one. */
    size_t n_masks = 0;
    for (size_t i = 0; i < in->n_pods; i++) {
        const ctl_pod *p = &in->pods[i];
        n_masks += constrained(p) && ((pending(p) && !p->terminating && !p->other_gates) ||
                                      p->state == CTL_POD_GATED)
                       ? 1
                       : 0;
    }
    admit_ctx x;
    memset(&x, 0, sizeof x);
    queued *q = calloc(nq ? nq : 1, sizeof *q);
    ds_admit_task *inflight = calloc(nq ? nq : 1, sizeof *inflight);
    ds_admit_task *ready = calloc(nc ? nc : 1, sizeof *ready);
    if (q == NULL || inflight == NULL || ready == NULL || admit_ctx_init(&x, in, n_masks) != 0) {
        free(q);
        free(inflight);
        free(ready);
        admit_ctx_free(&x);
        return ds_err_set(err, "release round: out of memory for %zu nodes", in->n_nodes);
    }
    size_t k = 0;
    for (size_t i = 0; i < in->n_pods; i++) {
        const ctl_pod *p = &in->pods[i];
        if (pending(p) && !p->terminating && !p->other_gates)
            q[k++] = (queued){i, SIZE_MAX, p->k8s_priority, p->created_at, !outside_dag(p)};
    }
    for (size_t i = 0; i < in->n_jobs; i++) {
        const ctl_batch_job *j = &in->jobs[i];
        if (job_in_flight(j))
            q[k++] = (queued){SIZE_MAX, i, 0, j->created_at, true};
    }
    qsort(q, nq, sizeof *q, cmp_queued);
    for (size_t i = 0; i < nq; i++) {
        const ctl_pod *p = q[i].idx != SIZE_MAX ? &in->pods[q[i].idx] : NULL;
        inflight[i].request = p != NULL ? p->request : in->jobs[q[i].job_idx].request;
        inflight[i].eligible = mask_of(&x, p);
        inflight[i].room_only = !q[i].counted;
        inflight[i].tenant = SIZE_MAX;
        if (ts != NULL && q[i].counted)
            inflight[i].tenant = ctl_tenants_of(ts, p != NULL ? p->ns : in->jobs[q[i].job_idx].ns);
    }
    /* Tenants added just now: ap.fair must count them. */
    if (ts != NULL)
        fair = (ds_admit_fair){.tenants = ts->fair, .n_tenants = ts->n, .capacity = ts->capacity};
    for (size_t i = 0; i < nc; i++) {
        if (c[i].kind == CTL_RELEASE_UPCOMING) {
            ready[i] = (ds_admit_task){.request = in->upcoming[c[i].idx].request,
                                       .eligible = x.plain,
                                       .upcoming = true,
                                       .tenant = c[i].tenant};
            continue;
        }
        ready[i].first = c[i].first;
        ready[i].tenant = c[i].tenant;
        if (c[i].gang != SIZE_MAX) {
            ready[i].gang = c[i].gang;
            ready[i].gang_size = gangs[c[i].gang].g.count.size;
        }
        const ctl_pod *p = c[i].kind == CTL_RELEASE_POD ? &in->pods[c[i].idx] : NULL;
        const ctl_task_info *t = p != NULL ? &p->task : &in->jobs[c[i].idx].task;
        ready[i].request = p != NULL ? p->request : in->jobs[c[i].idx].request;
        ready[i].eligible = mask_of(&x, p);
        ready[i].starving =
            in->starvation_s > 0 && t->evaluated && t->eval.t_wait_s >= in->starvation_s;
        /* Its job can still meet its deadline: it may hold room (spec.release.holdRoom). */
        ready[i].may_hold = isfinite(t->job_slack_s) && t->job_slack_s >= 0;
    }
    int rc = ds_admit_plan(&ap, x.nodes, in->n_nodes, inflight, nq, ready, nc, res, NULL, err);
    for (size_t i = 0; rc == 0 && i < nc; i++)
        to_view_node(&x, &res[i]);
    free(q);
    free(inflight);
    free(ready);
    admit_ctx_free(&x);
    return rc;
}

/* A pod of a DAG job that is not finished and not another scheduler's: its tenant is listed. */
static bool dag_pod(const ctl_pod *p)
{
    return !p->foreign && p->task.job != DS_NO_TASK && p->state != CTL_POD_SUCCEEDED &&
           p->state != CTL_POD_FAILED;
}

static int cmp_tenant_share(const void *pa, const void *pb)
{
    const ctl_tenant_share *a = pa, *b = pb;
    return strcmp(a->name, b->name);
}

/* The tenants of the round (fairness on): every namespace's with bound pods or pods of DAG jobs,
 * and the tenant of each ready task (c[i].tenant). */
static int tenants_of_round(const ctl_release_in *in, cand *c, size_t nc, ctl_tenants *ts,
                            ds_err *err)
{
    if (ctl_tenants_build(ts, in->fairness, in->namespaces, in->n_namespaces, in->pods, in->n_pods,
                          in->nodes, in->n_nodes, err) != 0)
        return -1;
    bool oom = false;
    for (size_t i = 0; i < nc && !oom; i++) {
        c[i].tenant = ctl_tenants_of(ts, c[i].ns);
        oom = c[i].tenant == SIZE_MAX;
    }
    for (size_t i = 0; i < in->n_pods && !oom; i++)
        if (dag_pod(&in->pods[i]))
            oom = ctl_tenants_of(ts, in->pods[i].ns) == SIZE_MAX;
    if (oom) {
        ctl_tenants_free(ts);
        return ds_err_set(err, "release round: out of memory for tenants");
    }
    return 0;
}

/* out->tenants: the tenants with DAG tasks (ready ones, pods of DAG jobs other than finished
 * ones), their shares as the round began and how many of their tasks wait for fair share. */
static int tenant_shares(const ctl_release_in *in, const cand *c, size_t nc,
                         const ds_admit_result *res, ctl_tenants *ts, ctl_release_out *out,
                         ds_err *err)
{
    size_t *slot = malloc((ts->n ? ts->n : 1) * sizeof *slot);
    if (slot == NULL)
        return ds_err_set(err, "release round: out of memory for tenants");
    for (size_t t = 0; t < ts->n; t++)
        slot[t] = SIZE_MAX;
    out->tenants = calloc(ts->n ? ts->n : 1, sizeof *out->tenants);
    if (out->tenants == NULL) {
        free(slot);
        return ds_err_set(err, "release round: out of memory for tenants");
    }
    for (size_t i = 0; i < nc + in->n_pods; i++) {
        size_t t;
        if (i < nc) {
            t = c[i].tenant;
        } else {
            const ctl_pod *p = &in->pods[i - nc];
            if (!dag_pod(p))
                continue;
            t = ctl_tenants_of(ts, p->ns); /* known: tenants_of_round added it */
        }
        if (t >= ts->n)
            continue;
        if (slot[t] == SIZE_MAX) {
            slot[t] = out->n_tenants++;
            out->tenants[slot[t]] =
                (ctl_tenant_share){.name = ts->name[t],
                                   .share = ds_dominant_share(&ts->fair[t].used, &ts->capacity),
                                   .weight = ts->fair[t].weight};
        }
        if (i < nc && res[i].verdict == DS_ADMIT_HELD_FAIR_SHARE)
            out->tenants[slot[t]].held++;
    }
    free(slot);
    qsort(out->tenants, out->n_tenants, sizeof *out->tenants, cmp_tenant_share);
    return 0;
}

static ctl_wait_reason reason_of(ds_admit_verdict v)
{
    switch (v) {
    case DS_ADMIT_HELD_STARVING:
        return CTL_WAIT_STARVING;
    case DS_ADMIT_HELD_LIMIT:
        return CTL_WAIT_LIMIT;
    case DS_ADMIT_HELD_FAIR_SHARE:
        return CTL_WAIT_FAIR_SHARE;
    case DS_ADMIT_HELD_GANG:
        return CTL_WAIT_GANG;
    default:
        return CTL_WAIT_NO_ROOM;
    }
}

static void add_wait(ctl_release_out *out, ctl_release_kind kind, size_t idx, ctl_wait_reason r)
{
    ctl_wait *w = &out->wait[out->n_wait++];
    memset(w, 0, sizeof *w);
    w->kind = kind;
    w->idx = idx;
    w->reason = r;
    w->r.node = SIZE_MAX;
    w->r.blocker = SIZE_MAX;
    w->blocker_idx = SIZE_MAX;
    out->by_reason[r]++;
}

static const ds_res *request_of(const ctl_release_in *in, ctl_release_kind kind, size_t idx);

static const char *label_of(const ctl_pod *p, const char *key)
{
    for (size_t k = 0; k < p->n_labels; k++)
        if (p->labels[k].key != NULL && strcmp(p->labels[k].key, key) == 0)
            return p->labels[k].value != NULL ? p->labels[k].value : "";
    return NULL;
}

/* When a gated pod's task became ready (its upstream tasks succeeded; the job model's
 * runnable_since, else the pod's creation); NAN for a pod that is not a ready gated task. */
static double ready_since(const ctl_release_in *in, const ctl_pod *p)
{
    if (p->state != CTL_POD_GATED || p->task.state != DS_TASK_WAITING)
        return NAN;
    if (in->model != NULL && p->task.job < in->n_model) {
        const ds_job *j = &in->model[p->task.job];
        if (j->valid && j->status != NULL && p->task.task < j->dag.n &&
            isfinite(j->status[p->task.task].runnable_since))
            return j->status[p->task.task].runnable_since;
    }
    return p->created_at;
}

/* A pod of a DAG task whose gang labels are read: not another scheduler's, in a valid job of the
 * round, not terminating. */
static bool gang_pod(const ctl_pod *p)
{
    return !p->foreign && !p->task.deferred && !outside_dag(p) && !p->terminating &&
           p->task.job != DS_NO_TASK;
}

/* The gangs of the round (out->gangs) and, per pod, its gang (pod_gang[i], SIZE_MAX: none) or
 * whether its gang labels are malformed (bad[i]; ctl_wait_message says why). */
static int gangs_of_round(const ctl_release_in *in, ctl_release_out *out, size_t *pod_gang,
                          bool *bad, ds_err *err)
{
    size_t n = 0;
    ds_gang_obs *obs = calloc(in->n_pods ? in->n_pods : 1, sizeof *obs);
    size_t *obs_pod = calloc(in->n_pods ? in->n_pods : 1, sizeof *obs_pod);
    size_t *of = calloc(in->n_pods ? in->n_pods : 1, sizeof *of);
    ds_gang *g = calloc(in->n_pods ? in->n_pods : 1, sizeof *g);
    if (obs == NULL || obs_pod == NULL || of == NULL || g == NULL) {
        free(obs);
        free(obs_pod);
        free(of);
        free(g);
        return ds_err_set(err, "release round: out of memory for gangs");
    }
    for (size_t i = 0; i < in->n_pods; i++) {
        const ctl_pod *p = &in->pods[i];
        pod_gang[i] = SIZE_MAX;
        if (!gang_pod(p))
            continue;
        const char *name = label_of(p, DS_LABEL_GANG), *size = label_of(p, DS_LABEL_GANG_SIZE);
        if (name == NULL && size == NULL)
            continue;
        ds_gang_spec spec;
        if (ds_gang_parse(name, size, &spec, NULL) != 0) {
            bad[i] = true;
            continue;
        }
        size_t can_exist = SIZE_MAX;
        if (in->model != NULL && p->task.job < in->n_model) {
            const ds_job *j = &in->model[p->task.job];
            if (j->valid && (j->graph != NULL || j->workflow != NULL))
                can_exist = j->dag.n;
        }
        obs_pod[n] = i;
        obs[n++] =
            (ds_gang_obs){.job = p->task.job,
                          .name = name, /* valid: the label value itself */
                          .size = spec.size,
                          .task = p->task.task,
                          .ready = p->state == CTL_POD_GATED && p->task.state == DS_TASK_WAITING,
                          .started = p->state != CTL_POD_GATED,
                          .ready_since = ready_since(in, p),
                          .can_exist = can_exist};
    }
    size_t ng = 0;
    int rc = ds_gang_tally(obs, n, g, &ng, of, err);
    if (rc == 0 && ng > 0) {
        out->gangs = calloc(ng, sizeof *out->gangs);
        if (out->gangs == NULL)
            rc = ds_err_set(err, "release round: out of memory for gangs");
    }
    if (rc == 0) {
        out->n_gangs = ng;
        for (size_t k = 0; k < ng; k++) {
            out->gangs[k].g = g[k];
            out->gangs[k].pod = obs_pod[g[k].first];
            out->gangs[k].waiting = g[k].state != DS_GANG_STARTED;
        }
        for (size_t k = 0; k < n; k++)
            pod_gang[obs_pod[k]] = of[k];
    }
    free(obs);
    free(obs_pod);
    free(of);
    free(g);
    return rc;
}

/* The name of admission node index `node`; NULL when none. */
static const char *node_name(const ctl_release_in *in, size_t node)
{
    return node < in->n_nodes && in->nodes[node].name != NULL ? in->nodes[node].name : NULL;
}

int ctl_release_plan(const ctl_release_in *in, ctl_release_out *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    if ((in->pods == NULL && in->n_pods) || (in->jobs == NULL && in->n_jobs) ||
        (in->nodes == NULL && in->n_nodes))
        return ds_err_set(err, "release round: missing array");
    if (in->upcoming == NULL && in->n_upcoming)
        return ds_err_set(err, "release round: missing array");
    /* Upcoming tasks only count against the room under admission capacity. */
    size_t n_up = in->admission == DS_ADMIT_CAPACITY ? in->n_upcoming : 0;
    size_t cap = in->n_pods + in->n_jobs + n_up;
    cand *c = calloc(cap ? cap : 1, sizeof *c);
    ds_admit_result *res = calloc(cap ? cap : 1, sizeof *res);
    out->rel = calloc(cap ? cap : 1, sizeof *out->rel);
    out->wait = calloc(cap ? cap : 1, sizeof *out->wait);
    out->nudge = calloc(in->n_pods ? in->n_pods : 1, sizeof *out->nudge);
    out->ungate = calloc(in->n_pods ? in->n_pods : 1, sizeof *out->ungate);
    out->kept = calloc(n_up ? n_up : 1, sizeof *out->kept);
    if (c == NULL || res == NULL || out->rel == NULL || out->wait == NULL || out->nudge == NULL ||
        out->ungate == NULL || out->kept == NULL) {
        free(c);
        free(res);
        ctl_release_out_free(out);
        return ds_err_set(err, "release round: out of memory");
    }
    size_t nc = 0;
    /* Held tasks that are not ready, added after the ready ones (kind, idx, reason). */
    size_t n_blocked = 0;
    ctl_wait *blocked = calloc(cap ? cap : 1, sizeof *blocked);
    /* Gangs: each pod's gang, or the error of its gang labels. */
    size_t np1 = in->n_pods ? in->n_pods : 1;
    size_t *pod_gang = calloc(np1, sizeof *pod_gang);
    bool *bad = calloc(np1, sizeof *bad);
    if (blocked == NULL || pod_gang == NULL || bad == NULL ||
        gangs_of_round(in, out, pod_gang, bad, err) != 0) {
        bool oom = blocked == NULL || pod_gang == NULL || bad == NULL;
        free(c);
        free(res);
        free(blocked);
        free(pod_gang);
        free(bad);
        ctl_release_out_free(out);
        return oom ? ds_err_set(err, "release round: out of memory") : -1;
    }
    for (size_t i = 0; i < in->n_pods; i++) {
        const ctl_pod *p = &in->pods[i];
        if (p->foreign)
            continue; /* another scheduler's pod: never released, held or nudged */
        /* Its job waits for a later round (ctl_task_info.deferred): left as it is. */
        if (p->task.deferred) {
            if (pending(p) && !p->terminating)
                out->in_flight++;
            continue;
        }
        /* A gated pod outside every DAG job (unusable dagsched metadata, no dagsched.io/job label,
         * a pod error) has no upstream tasks to wait for: the gate (written by its author or by
         * the admission webhook) is removed at once, never held. A task of a job that is invalid
         * right now keeps its gate: the job may be one whose pods are still being created, and
         * releasing it could run it before its upstream tasks (InvalidJobGraph says why it waits).
         */
        if (outside_dag(p)) {
            if (p->state == CTL_POD_GATED && !p->terminating)
                out->ungate[out->n_ungate++] = i;
            continue;
        }
        if (p->terminating)
            continue;
        bool ready = p->task.state == DS_TASK_WAITING;
        if (p->state == CTL_POD_GATED) {
            if (p->task.job == DS_NO_TASK)
                blocked[n_blocked++] = (ctl_wait){
                    .kind = CTL_RELEASE_POD,
                    .idx = i,
                    .reason = p->task.unlisted ? CTL_WAIT_UNLISTED : CTL_WAIT_INVALID_JOB};
            else if (ready && (bad[i] || (pod_gang[i] != SIZE_MAX &&
                                          out->gangs[pod_gang[i]].g.state == DS_GANG_INVALID))) {
                ctl_wait *b = &blocked[n_blocked++];
                *b = (ctl_wait){.kind = CTL_RELEASE_POD, .idx = i, .reason = CTL_WAIT_GANG};
                if (!bad[i]) {
                    ctl_gang *g = &out->gangs[pod_gang[i]];
                    b->gang = g;
                    ds_gang_describe(g->g.name, g->g.state, &g->g.count, g->why, sizeof g->why);
                }
            } else if (ready)
                c[nc++] = (cand){CTL_RELEASE_POD, i,       prio_of(&p->task), p->task.queue_pos,
                                 p->created_at,   p->ns,   p->name,           false,
                                 SIZE_MAX,        SIZE_MAX};
            else if (p->task.state == DS_TASK_BLOCKED)
                blocked[n_blocked++] =
                    (ctl_wait){.kind = CTL_RELEASE_POD, .idx = i, .reason = CTL_WAIT_UPSTREAM};
            continue;
        }
        if (pending(p))
            out->in_flight++;
        /* Only a task with upstream tasks can have been rejected for them: a root task that
         * waits for room is left to kube-scheduler's own retries. */
        if (p->state == CTL_POD_UNSCHEDULABLE && ready && p->task.has_upstream &&
            (isnan(p->nudged_at) || isnan(p->unschedulable_since) ||
             p->nudged_at < p->unschedulable_since))
            out->nudge[out->n_nudge++] = i;
    }
    for (size_t i = 0; i < in->n_jobs; i++) {
        const ctl_batch_job *j = &in->jobs[i];
        if (job_in_flight(j))
            out->in_flight++;
        if (j->task.job == DS_NO_TASK || !j->suspended)
            continue;
        if (j->task.state == DS_TASK_WAITING)
            c[nc++] = (cand){CTL_RELEASE_JOB, i,       prio_of(&j->task), j->task.queue_pos,
                             j->created_at,   j->ns,   j->name,           false,
                             SIZE_MAX,        SIZE_MAX};
        else if (j->task.state == DS_TASK_BLOCKED)
            blocked[n_blocked++] =
                (ctl_wait){.kind = CTL_RELEASE_JOB, .idx = i, .reason = CTL_WAIT_UPSTREAM};
    }
    out->n_ready = nc;
    for (size_t i = 0; i < n_up; i++) {
        const ctl_upcoming *u = &in->upcoming[i];
        if (u->pod != SIZE_MAX) { /* its gated pod is a candidate already: it goes first */
            for (size_t k = 0; k < out->n_ready; k++)
                if (c[k].kind == CTL_RELEASE_POD && c[k].idx == u->pod)
                    c[k].first = true;
            continue;
        }
        c[nc++] = (cand){CTL_RELEASE_UPCOMING,
                         i,
                         u->priority,
                         u->queue_pos,
                         u->ready_since,
                         u->ns ? u->ns : "",
                         u->task_name ? u->task_name : "",
                         false,
                         SIZE_MAX,
                         SIZE_MAX};
    }
    for (size_t i = 0; i < nc; i++) {
        size_t g = c[i].kind == CTL_RELEASE_POD ? pod_gang[c[i].idx] : SIZE_MAX;
        c[i].gang = g != SIZE_MAX && (out->gangs[g].g.state == DS_GANG_READY ||
                                      out->gangs[g].g.state == DS_GANG_WAITING)
                        ? g
                        : SIZE_MAX;
    }
    free(pod_gang);
    free(bad);
    qsort(c, nc, sizeof *c, cmp_cand);
    ctl_tenants ts;
    bool fair = in->fairness != NULL && in->fairness->enabled;
    if (fair && tenants_of_round(in, c, nc, &ts, err) != 0) {
        free(c);
        free(res);
        free(blocked);
        ctl_release_out_free(out);
        return -1;
    }
    if (decide(in, c, nc, res, fair ? &ts : NULL, out->gangs, err) != 0 ||
        (fair && tenant_shares(in, c, nc, res, &ts, out, err) != 0)) {
        if (fair)
            ctl_tenants_free(&ts);
        free(c);
        free(res);
        free(blocked);
        ctl_release_out_free(out);
        return -1;
    }
    for (size_t i = 0; i < nc; i++) {
        if (c[i].kind == CTL_RELEASE_UPCOMING) {
            if (res[i].verdict == DS_ADMIT_RELEASED)
                out->kept[out->n_kept++] = (ctl_kept){c[i].idx, res[i].node};
            continue;
        }
        ctl_gang *g = c[i].gang != SIZE_MAX ? &out->gangs[c[i].gang] : NULL;
        if (ds_admit_verdict_releases(res[i].verdict)) {
            const char *hold = g != NULL && res[i].verdict == DS_ADMIT_RELEASED
                                   ? node_name(in, res[i].node)
                                   : NULL;
            out->rel[out->n_rel++] =
                (ctl_release){c[i].kind, c[i].idx, c[i].priority, res[i], hold};
            if (g != NULL)
                g->waiting = false; /* all its members are released with it */
            continue;
        }
        add_wait(out, c[i].kind, c[i].idx, reason_of(res[i].verdict));
        ctl_wait *w = &out->wait[out->n_wait - 1];
        w->r = res[i];
        if (res[i].verdict == DS_ADMIT_HELD_GANG)
            w->gang = g;
        if (res[i].verdict == DS_ADMIT_HELD_STARVING && res[i].blocker < nc) {
            w->blocker_kind = c[res[i].blocker].kind;
            w->blocker_idx = c[res[i].blocker].idx;
        }
        if (fair && c[i].tenant < ts.n)
            w->tenant = ts.name[c[i].tenant];
        if (g != NULL && g->why[0] == '\0')
            ctl_wait_message(in, w, g->why, sizeof g->why);
    }
    if (fair)
        ctl_tenants_free(&ts);
    out->n_held = out->n_ready - out->n_rel;
    for (size_t i = 0; i < n_blocked; i++) {
        add_wait(out, blocked[i].kind, blocked[i].idx, blocked[i].reason);
        out->wait[out->n_wait - 1].gang = blocked[i].gang;
    }
    free(blocked);
    for (size_t i = 0; i < out->n_gangs; i++)
        out->gangs_waiting += out->gangs[i].waiting ? 1 : 0;
    free(c);
    free(res);
    return 0;
}

void ctl_release_out_free(ctl_release_out *out)
{
    free(out->gangs);
    free(out->tenants);
    free(out->rel);
    free(out->wait);
    free(out->nudge);
    free(out->ungate);
    free(out->kept);
    memset(out, 0, sizeof *out);
}

static const ctl_task_info *task_of(const ctl_release_in *in, ctl_release_kind kind, size_t idx)
{
    if (kind == CTL_RELEASE_POD)
        return idx < in->n_pods ? &in->pods[idx].task : NULL;
    return idx < in->n_jobs ? &in->jobs[idx].task : NULL;
}

static const ds_res *request_of(const ctl_release_in *in, ctl_release_kind kind, size_t idx)
{
    static const ds_res zero;
    if (kind == CTL_RELEASE_POD)
        return idx < in->n_pods ? &in->pods[idx].request : &zero;
    return idx < in->n_jobs ? &in->jobs[idx].request : &zero;
}

/* "waiting for upstream tasks: a, b (+2 more)": the upstream tasks that have not succeeded. */
static void upstream_message(const ctl_release_in *in, const ctl_task_info *t, char *buf,
                             size_t size)
{
    int n = snprintf(buf, size, "waiting for upstream tasks");
    if (n < 0 || (size_t)n >= size || t == NULL || in->model == NULL || t->job >= in->n_model)
        return;
    const ds_job *j = &in->model[t->job];
    if (!j->valid || j->status == NULL || t->task >= j->dag.n)
        return;
    const ds_dag_task *dt = &j->dag.tasks[t->task];
    size_t off = (size_t)n, shown = 0, more = 0;
    for (size_t i = 0; i < dt->n_up; i++) {
        size_t u = dt->up[i];
        if (u >= j->dag.n || j->status[u].state == DS_TASK_SUCCEEDED)
            continue;
        if (shown == CTL_WAIT_MAX_NAMES) {
            more++;
            continue;
        }
        int w =
            snprintf(buf + off, size - off, "%s%.100s%s", shown ? ", " : ": ", j->dag.tasks[u].name,
                     j->missing != NULL && j->missing[u] ? DS_MISSING_TASK_NOTE : "");
        if (w < 0 || (size_t)w >= size - off) {
            buf[off] = '\0';
            return;
        }
        off += (size_t)w;
        shown++;
    }
    if (more > 0)
        snprintf(buf + off, size - off, " (+%zu more)", more);
}

/* "ns/name" of a pod or Job. */
static void object_name(const ctl_release_in *in, ctl_release_kind kind, size_t idx, char *buf,
                        size_t size)
{
    const char *ns = "?", *name = "?";
    if (kind == CTL_RELEASE_POD && idx < in->n_pods) {
        ns = in->pods[idx].ns;
        name = in->pods[idx].name;
    } else if (kind == CTL_RELEASE_JOB && idx < in->n_jobs) {
        ns = in->jobs[idx].ns;
        name = in->jobs[idx].name;
    }
    snprintf(buf, size, "%.253s/%.253s", ns, name);
}

/* The reason of a gang member held: the release rule's (HELD_GANG), its invalid gang's, or the
 * error of its gang labels. */
static void gang_message(const ctl_release_in *in, const ctl_wait *w, char *buf, size_t size)
{
    const ctl_gang *g = w->gang;
    if (g != NULL && w->r.verdict == DS_ADMIT_HELD_GANG) {
        ds_admit_describe(&w->r, request_of(in, w->kind, w->idx), NULL, g->g.name,
                          in->max_concurrent, buf, size);
        return;
    }
    if (g != NULL) {
        ds_gang_describe(g->g.name, g->g.state, &g->g.count, buf, size);
        return;
    }
    ds_gang_spec spec;
    ds_err e = {{0}};
    const ctl_pod *p = w->kind == CTL_RELEASE_POD && w->idx < in->n_pods ? &in->pods[w->idx] : NULL;
    if (p == NULL ||
        ds_gang_parse(label_of(p, DS_LABEL_GANG), label_of(p, DS_LABEL_GANG_SIZE), &spec, &e) == 0)
        snprintf(buf, size, "gang labels are invalid");
    else
        snprintf(buf, size, "gang labels are invalid: %.400s", e.msg);
}

void ctl_wait_message(const ctl_release_in *in, const ctl_wait *w, char *buf, size_t size)
{
    if (buf == NULL || size == 0)
        return;
    switch (w->reason) {
    case CTL_WAIT_UPSTREAM:
        upstream_message(in, task_of(in, w->kind, w->idx), buf, size);
        return;
    case CTL_WAIT_INVALID_JOB: {
        const ctl_task_info *t = task_of(in, w->kind, w->idx);
        if (t != NULL && t->invalid_why != NULL)
            snprintf(buf, size, "its job is invalid right now: %.900s", t->invalid_why);
        else
            snprintf(buf, size, "its job is invalid right now (see the InvalidJobGraph Event)");
        return;
    }
    case CTL_WAIT_UNLISTED: {
        const ctl_task_info *t = task_of(in, w->kind, w->idx);
        snprintf(buf, size, "waiting for Argo to list it: %.900s",
                 t != NULL && t->invalid_why != NULL ? t->invalid_why : "?");
        return;
    }
    case CTL_WAIT_NO_ROOM:
    case CTL_WAIT_STARVING:
    case CTL_WAIT_LIMIT: {
        char blocker[512] = "?";
        if (w->reason == CTL_WAIT_STARVING)
            object_name(in, w->blocker_kind, w->blocker_idx, blocker, sizeof blocker);
        ds_admit_describe(&w->r, request_of(in, w->kind, w->idx), node_name(in, w->r.node), blocker,
                          in->max_concurrent, buf, size);
        return;
    }
    case CTL_WAIT_FAIR_SHARE:
        ds_admit_describe(&w->r, request_of(in, w->kind, w->idx), node_name(in, w->r.node),
                          w->tenant != NULL ? w->tenant : "?", in->max_concurrent, buf, size);
        return;
    case CTL_WAIT_GANG:
        gang_message(in, w, buf, size);
        return;
    case CTL_WAIT_N:
        break;
    }
    snprintf(buf, size, "unknown");
}

ctl_wait_reason ctl_wait_reason_of(const char *message)
{
    static const struct {
        const char *prefix;
        ctl_wait_reason r;
    } known[] = {
        {"waiting for upstream tasks", CTL_WAIT_UPSTREAM},
        {"no room:", CTL_WAIT_NO_ROOM},
        {"behind starving task ", CTL_WAIT_STARVING},
        {"maxConcurrentReleases (", CTL_WAIT_LIMIT},
        {"its job is invalid right now", CTL_WAIT_INVALID_JOB},
        {"waiting for Argo to list it", CTL_WAIT_UNLISTED},
    };
    if (message == NULL)
        return CTL_WAIT_N;
    if (strncmp(message, "tenant ", 7) == 0 && strstr(message, " is above its fair share") != NULL)
        return CTL_WAIT_FAIR_SHARE;
    if (strncmp(message, "gang ", 5) == 0)
        return CTL_WAIT_GANG;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strncmp(message, known[i].prefix, strlen(known[i].prefix)) == 0)
            return known[i].r;
    return CTL_WAIT_N;
}

void ctl_release_message(const ctl_release_in *in, const ctl_release *r, char *buf, size_t size)
{
    if (buf == NULL || size == 0)
        return;
    if (in->admission == DS_ADMIT_ALL) {
        buf[0] = '\0';
        return;
    }
    ds_admit_describe(&r->r, request_of(in, r->kind, r->idx), node_name(in, r->r.node), NULL,
                      in->max_concurrent, buf, size);
}

bool ctl_wait_due(const char *current, const char *want, ctl_wait_reason reason, double last,
                  double now, bool *changed)
{
    *changed = false;
    if (current == NULL)
        current = "";
    if (strcmp(current, want) == 0)
        return false;
    if (current[0] == '\0' || ctl_wait_reason_of(current) != reason) {
        *changed = true;
        return true;
    }
    return last < 0 || now - last >= CTL_WAIT_UPDATE_EVERY_S;
}
