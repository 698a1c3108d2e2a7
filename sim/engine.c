/* engine.c: the discrete-event simulation loop (see engine.h).
 *
 * State (engine_state.h): nodes (allocatable, requested, speed), the jobs in the system (their DAG
 * and per-task state), kube-scheduler's queue (wqueue.h; what it does after a failed attempt:
 * kqueue.c) and the event heap (evheap.h). After every instant's events a scheduling pass takes
 * the active pods in queue order and binds each to the node the policy scores best, or, when it
 * fits nowhere and cannot preempt (kube-style), fails it. Every epoch, DSP policies re-evaluate
 * priorities (ds_dsp_evaluate), re-order what their order depends on and run Algorithm 1
 * (ds_select_victims). Pods of `gated` policies wait for the controller's releases (release.c)
 * before they enter kube-scheduler's queue. */
#include "engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dsp.h"
#include "evict_budget.h"
#include "evheap.h"
#include "joborder.h"
#include "kube_preempt.h"
#include "node_speed.h"
#include "preempt_rules.h"
#include "victim.h"
#include "engine_state.h"
#include "wqueue.h"
#include "grow.h"

void sim_config_defaults(sim_config *c, const sim_policy_desc *policy)
{
    memset(c, 0, sizeof *c);
    c->policy = policy;
    ds_policy_defaults(&c->pol);
    c->restart_delay_s = 1.0;
    c->disorder_fail_s = 5.0;
    c->backoff_base_s = 10.0;
    c->backoff_max_s = 360.0;
    c->extender_weight = 5.0;
    c->max_time_s = 1e9;
    c->kube_preempt_backoff_s = 10.0;
    c->release_latency_s = SIM_DEFAULT_RELEASE_LATENCY_S;
    c->round_interval_s = 1.0;
    c->release_cost_s = 0;
    c->release_concurrency = 1;
    c->pod_initial_backoff_s = 1.0;
    c->pod_max_backoff_s = 10.0;
    c->backoff_flush_s = 1.0;
    c->max_unschedulable_s = 300.0;
    c->room_holds = true;
    c->record_segments = false;
    c->max_segments = 200000;
}

void sim_result_free(sim_result *r)
{
    if (r == NULL)
        return;
    free(r->jobs);
    free(r->segs);
    free(r->node_speed);
    free(r->node_alloc);
    for (size_t i = 0; i < r->n_tenants; i++)
        free(r->tenants[i]);
    free(r->tenants);
    memset(r, 0, sizeof *r);
}

static int oom(engine *e, const char *what)
{
    return ds_err_set(e->err, "simulator: out of memory (%s)", what);
}

int sim_eng_oom(engine *e, const char *what)
{
    return oom(e, what);
}

static bool uses_dsp(const engine *e)
{
    return e->p->order != SIM_ORDER_KUBE || e->p->dsp_preemption || e->p->gated;
}

/* ---- bookkeeping ------------------------------------------------------------------------- */

static void advance(engine *e, double t)
{
    double dt = t - e->last_t;
    if (dt > 0)
        for (int k = 0; k < DS_RES_N; k++)
            e->r->area[k] += (double)e->used_total.v[k] * dt;
    e->last_t = t;
    e->now = t;
}

static void prio_add(engine *e, int32_t prio, int delta)
{
    for (size_t i = 0; i < e->n_prios; i++)
        if (e->prios[i].prio == prio) {
            e->prios[i].count = (uint32_t)((int64_t)e->prios[i].count + delta);
            return;
        }
    if (delta > 0 && e->n_prios < MAX_PRIO_LEVELS) {
        e->prios[e->n_prios].prio = prio;
        e->prios[e->n_prios].count = (uint32_t)delta;
        e->n_prios++;
    }
}

/* Lowest priority among running pods; INT32_MAX when none run. */
static int32_t min_running_prio(const engine *e)
{
    int32_t m = INT32_MAX;
    for (size_t i = 0; i < e->n_prios; i++)
        if (e->prios[i].count > 0 && e->prios[i].prio < m)
            m = e->prios[i].prio;
    return m;
}

static ds_res node_free(const engine *e, size_t n)
{
    ds_res f = e->nodes[n].alloc;
    ds_res_sub(&f, &e->nodes[n].used);
    return f;
}

static int seg_open(engine *e, uint32_t job, uint32_t task, etask *t)
{
    t->seg = SEG_NONE;
    if (!e->c->record_segments)
        return 0;
    sim_result *r = e->r;
    if (r->n_segs >= e->c->max_segments) {
        r->segs_truncated = true;
        return 0;
    }
    if (r->n_segs % 4096 == 0) {
        sim_segment *g = realloc(r->segs, (r->n_segs + 4096) * sizeof *g);
        if (g == NULL)
            return oom(e, "gantt segments");
        r->segs = g;
    }
    sim_segment *s = &r->segs[r->n_segs];
    double cap = (double)e->nodes[t->node].alloc.v[DS_RES_CPU];
    *s = (sim_segment){.start = e->now,
                       .end = e->now,
                       .node = t->node,
                       .job = job,
                       .task = task,
                       .outcome = SIM_SEG_DONE,
                       .ready = t->runnable_since,
                       .queued = t->queued_at,
                       .cpu_frac = cap > 0 ? (float)((double)t->req.v[DS_RES_CPU] / cap) : 0.0f};
    t->seg = r->n_segs++;
    return 0;
}

static void seg_close(engine *e, etask *t, sim_seg_outcome outcome)
{
    if (t->seg == SEG_NONE)
        return;
    e->r->segs[t->seg].end = e->now;
    e->r->segs[t->seg].outcome = (uint8_t)outcome;
    t->seg = SEG_NONE;
}

/* ---- queue ------------------------------------------------------------------------------- */

static sim_qkey queue_key(engine *e, const ejob *j, uint32_t task)
{
    sim_qkey k = {.seq = e->seq++};
    switch (e->p->order) {
    case SIM_ORDER_KUBE:
        /* PrioritySort: pod priority, then the time the pod entered the scheduler's queue (a
         * gated pod: its creation, release.c) */
        k.k[0] = -(double)j->priority;
        k.k[1] = e->p->gated ? j->t[task].created_at : e->now;
        break;
    case SIM_ORDER_DSP:
        k.k[1] = -j->ev[task].priority;
        break;
    }
    return k;
}

static int enqueue(engine *e, uint32_t job, uint32_t task)
{
    ejob *j = e->jobs[job];
    etask *t = &j->t[task];
    if (sim_wq_insert(&e->q, queue_key(e, j, task), job, task, &t->req, &t->qh) != 0)
        return oom(e, "waiting queue");
    t->state = T_QUEUED;
    sim_kq_entered(e, t);
    if (!e->p->gated) /* gated: runnable since it became ready (sim_gate_ready) */
        t->runnable_since = e->now;
    t->queued_at = e->now;
    if (sim_wq_size(&e->q) > e->r->peak_waiting)
        e->r->peak_waiting = sim_wq_size(&e->q);
    if (sim_wq_size(&e->q) > e->r->peak_queued)
        e->r->peak_queued = sim_wq_size(&e->q);
    return 0;
}

int sim_eng_enqueue(engine *e, uint32_t job, uint32_t task)
{
    return enqueue(e, job, task);
}

/* A pod exists and its upstream tasks have succeeded (or the policy does not wait for them):
 * gated, or straight into kube-scheduler's queue. */
static int make_ready(engine *e, uint32_t job, uint32_t task)
{
    sim_view_known(e, e->jobs[job], task);
    if (e->p->gated)
        return sim_gate_ready(e, job, task);
    return enqueue(e, job, task);
}

/* ---- DSP evaluation ---------------------------------------------------------------------- */

static void fill_status(const engine *e, ejob *j)
{
    for (size_t i = 0; i < j->dag.n; i++) {
        const etask *t = &j->t[i];
        ds_task_status *s = &j->st[i];
        memset(s, 0, sizeof *s);
        if (sim_view_unknown(e, j, (uint32_t)i)) {
            s->state = DS_TASK_SUCCEEDED; /* cut loose in the view (jobview.c) */
            continue;
        }
        switch (t->state) {
        case T_QUEUED:
        case T_DELAYED:
        case T_GATED:
        case T_RELEASING:
            s->state = DS_TASK_WAITING;
            s->runnable_since = t->runnable_since;
            break;
        case T_RUNNING: {
            double speed = e->nodes[t->node].speed;
            s->state = DS_TASK_RUNNING;
            /* a checkpointed run resumes: it behaves as if it had started earlier */
            s->started_at = t->started_at - t->progress / speed;
            s->speed = speed;
            break;
        }
        case T_DONE:
            s->state = DS_TASK_SUCCEEDED;
            break;
        default:
            s->state = DS_TASK_BLOCKED;
            break;
        }
    }
}

static int evaluate_job(engine *e, ejob *j)
{
    const ds_dag *dag = sim_view_dag(e, j);
    if (dag == NULL)
        return -1;
    fill_status(e, j);
    if (ds_dsp_evaluate(dag, j->st, j->deadline, e->now, &e->c->pol.priority, j->ev, e->err) != 0) {
        ds_err_prefix(e->err, "DSP priority");
        return -1;
    }
    if (e->p->gated &&
        ds_job_summarise(dag, j->st, j->ev, j->deadline, e->now, &j->sum, e->err) != 0) {
        ds_err_prefix(e->err, "job summary");
        return -1;
    }
    j->stale = false;
    return 0;
}

int sim_eng_evaluate_job(engine *e, ejob *j)
{
    return evaluate_job(e, j);
}

static int grow_handles(engine *e, size_t n)
{
    if (e->cap_handles >= n)
        return 0;
    size_t cap = n + n / 2 + 64;
    uint32_t *h = realloc(e->handles, cap * sizeof *h);
    if (h == NULL)
        return oom(e, "queue snapshot");
    e->handles = h;
    e->cap_handles = cap;
    return 0;
}

int sim_eng_grow_handles(engine *e, size_t n)
{
    return grow_handles(e, n);
}

/* Re-evaluate every job in the system and re-order the queue by the new priorities. */
static int refresh_priorities(engine *e)
{
    for (size_t a = 0; a < e->n_active; a++)
        if (evaluate_job(e, e->jobs[e->active[a]]) != 0)
            return -1;
    if (sim_gate_rekey_all(e) != 0)
        return -1;
    if (e->p->order == SIM_ORDER_KUBE)
        return 0;
    size_t n = sim_wq_size(&e->q);
    if (grow_handles(e, n) != 0)
        return -1;
    sim_wq_collect(&e->q, e->handles);
    for (size_t i = 0; i < n; i++) {
        const sim_wq_node *qn = sim_wq_get(&e->q, e->handles[i]);
        const ejob *j = e->jobs[qn->job];
        sim_qkey k = qn->key;
        k.k[1] = -j->ev[qn->task].priority;
        sim_wq_set_key(&e->q, e->handles[i], k);
    }
    if (sim_wq_rebuild(&e->q) != 0)
        return oom(e, "queue rebuild");
    return 0;
}

/* ---- runs -------------------------------------------------------------------------------- */

static int start_task(engine *e, uint32_t job, uint32_t task, uint32_t node)
{
    ejob *j = e->jobs[job];
    etask *t = &j->t[task];
    if (t->state == T_QUEUED) {
        sim_wq_remove(&e->q, t->qh);
        sim_kq_left(e, t);
    }
    sim_gate_started(e, t);
    j->stale = true;
    e->round_wanted = true;
    if (e->n_running == e->cap_running) {
        running_ref *g = ds_grow(e->running, &e->cap_running, sizeof *g, 1024);
        if (g == NULL)
            return oom(e, "running pods");
        e->running = g;
    }
    t->state = T_RUNNING;
    t->node = node;
    /* The run begins start_latency_s after binding (the kubelet starting the pod); the pod holds
     * its resources from binding on. */
    t->started_at = e->now + e->c->start_latency_s;
    t->gen++;
    t->run_idx = (uint32_t)e->n_running;
    e->running[e->n_running++] = (running_ref){job, task};
    ds_res_add(&e->nodes[node].used, &t->req);
    e->free_max_stale = true;
    ds_res_add(&e->used_total, &t->req);
    sim_tenant_use(e, j->tenant, &t->req, true);
    prio_add(e, j->priority, 1);
    e->r->starts++;
    double end;
    if (t->n_up_left > 0) {
        /* Dependency disorder: the task starts before its inputs exist and fails. */
        e->r->disorders++;
        t->flags |= F_DISORDER_RUN;
        end = t->started_at + e->c->disorder_fail_s;
    } else {
        t->flags &= (uint8_t)~F_DISORDER_RUN;
        double left = t->runtime - t->progress;
        if (left < 0)
            left = 0;
        end = t->started_at + left / e->nodes[node].speed;
    }
    if (seg_open(e, job, task, t) != 0)
        return -1;
    if (sim_evheap_push(&e->h, end, SIM_EV_FINISH, job, task, t->gen) != 0)
        return oom(e, "events");
    return 0;
}

/* Take a running task off its node (finish, failure or eviction). */
static void stop_run(engine *e, uint32_t job, uint32_t task)
{
    ejob *j = e->jobs[job];
    etask *t = &j->t[task];
    ds_res_sub(&e->nodes[t->node].used, &t->req);
    e->free_max_stale = true;
    ds_res_sub(&e->used_total, &t->req);
    sim_tenant_use(e, j->tenant, &t->req, false);
    prio_add(e, j->priority, -1);
    j->stale = true;
    e->round_wanted = true;
    t->created_at = NAN; /* its pod is gone; a replacement is a new pod */
    size_t idx = t->run_idx;
    running_ref last = e->running[--e->n_running];
    if (idx < e->n_running) {
        e->running[idx] = last;
        e->jobs[last.job]->t[last.task].run_idx = (uint32_t)idx;
    }
    t->run_idx = NONE32;
    e->pods_freed = true; /* kube-scheduler: AssignedPodDelete */
}

/* Evictions count in one namespace, whatever the jobs' namespaces (their tenants under
 * spec.fairness): the preemption pass treats the simulated cluster as one namespace. */
#define SIM_NAMESPACE "sim"

static int record_eviction(engine *e, const char *node, bool long_task)
{
    if (!e->p->anti_thrash)
        return 0;
    if (e->n_evicts == e->evicts_cap) {
        ds_evict_mark *grown = ds_grow(e->evicts, &e->evicts_cap, sizeof *grown, 64);
        if (grown == NULL)
            return oom(e, "eviction history");
        e->evicts = grown;
    }
    e->evicts[e->n_evicts++] =
        (ds_evict_mark){.at = e->now, .ns = SIM_NAMESPACE, .node = node, .long_task = long_task};
    return 0;
}

/* Drop the evictions no limit looks at any more. */
static void prune_evictions(engine *e)
{
    double keep = ds_evict_budget_window(&e->c->pol);
    size_t k = 0;
    for (size_t i = 0; i < e->n_evicts; i++)
        if (ds_evict_in_window(e->evicts[i].at, e->now, keep))
            e->evicts[k++] = e->evicts[i];
    e->n_evicts = k;
}

static bool evict_mark(const void *ctx, size_t i, ds_evict_mark *m)
{
    *m = ((const engine *)ctx)->evicts[i];
    return true;
}

/* Evict the running task (job, task) to make room for a pod of job `for_job`. dsp: an eviction of
 * DSP preemption, which counts on its node too; long_task: the victim was a long task there. */
static int evict(engine *e, uint32_t job, uint32_t task, uint32_t for_job, bool dsp, bool long_task)
{
    ejob *j = e->jobs[job];
    etask *t = &j->t[task];
    double ran = e->now > t->started_at ? e->now - t->started_at : 0; /* 0 while starting */
    double done = ran * e->nodes[t->node].speed;
    if (record_eviction(e, dsp ? e->w->nodes[t->node].name : NULL, long_task) != 0)
        return -1;
    if (t->evictions < UINT16_MAX)
        t->evictions++;
    stop_run(e, job, task);
    seg_close(e, t, SIM_SEG_EVICTED);
    if (!(t->flags & F_DISORDER_RUN)) {
        if (t->flags & F_CHECKPOINT) {
            t->progress += done;
            if (t->progress > t->runtime)
                t->progress = t->runtime;
        } else {
            e->r->lost_work_s += done + t->progress;
            e->r->lost_run_s += ran;
            t->progress = 0;
        }
    }
    t->state = T_DELAYED;
    t->runnable_since = e->now;
    t->last_evicted = e->now;
    t->gen++;
    e->r->preemptions++;
    e->r->jobs[for_job].evictions_for++;
    if (sim_evheap_push(&e->h, e->now + e->c->restart_delay_s, SIM_EV_REQUEUE, job, task, t->gen) !=
        0)
        return oom(e, "events");
    return 0;
}

/* ---- arrivals and completions ------------------------------------------------------------ */

static void free_job(ejob *j)
{
    if (j == NULL)
        return;
    ds_dag_free(&j->dag);
    sim_view_free(j);
    free(j->t);
    free(j->st);
    free(j->ev);
    free(j);
}

/* A task has become runnable (its job arrived, or its upstream tasks succeeded): its pod is
 * ready (make_ready: gated, or into kube-scheduler's queue), create_latency_s later for a job
 * whose pods a workflow engine creates (onUpstream): the REQUEUE event then makes it ready. */
static int create_pod(engine *e, uint32_t job, uint32_t task)
{
    ejob *j = e->jobs[job];
    etask *t = &j->t[task];
    if (j->upfront || !(e->c->create_latency_s > 0))
        return make_ready(e, job, task);
    t->state = T_DELAYED;
    t->runnable_since = e->now;
    t->gen++;
    if (sim_evheap_push(&e->h, e->now + e->c->create_latency_s, SIM_EV_REQUEUE, job, task,
                        t->gen) != 0)
        return oom(e, "events");
    return 0;
}

static int arrive(engine *e, uint32_t wi)
{
    sim_job_def def;
    bool owned = false;
    if (sim_workload_job(e->w, wi, &def, &owned, e->err) != 0)
        return -1;
    ejob *j = calloc(1, sizeof *j);
    if (j == NULL) {
        if (owned)
            sim_job_def_free(&def);
        return oom(e, "job");
    }
    int rc = sim_job_build_dag(&def, &j->dag, e->err);
    if (rc == 0) {
        j->t = calloc(def.n_tasks, sizeof *j->t);
        j->st = uses_dsp(e) ? calloc(def.n_tasks, sizeof *j->st) : NULL;
        j->ev = uses_dsp(e) ? calloc(def.n_tasks, sizeof *j->ev) : NULL;
        if (j->t == NULL || (uses_dsp(e) && (j->st == NULL || j->ev == NULL)))
            rc = oom(e, "job tasks");
    }
    if (rc != 0) {
        if (owned)
            sim_job_def_free(&def);
        free_job(j);
        return -1;
    }
    rc = sim_tenant_of(e, def.ns != NULL ? def.ns : SIM_DEFAULT_NAMESPACE, &j->tenant);
    if (rc != 0) {
        if (owned)
            sim_job_def_free(&def);
        free_job(j);
        return -1;
    }
    j->arrival = e->now;
    j->priority = def.priority;
    j->upfront = def.release == SIM_RELEASE_UPFRONT;
    double deadline = INFINITY;
    if (isfinite(def.deadline_s))
        deadline = e->now + def.deadline_s;
    else if (def.deadline_factor > 0)
        deadline = e->now + def.deadline_factor * ds_dag_critical_path(&j->dag);
    j->deadline = deadline;
    for (size_t i = 0; i < def.n_tasks; i++) {
        etask *t = &j->t[i];
        t->runtime = def.tasks[i].runtime_s;
        t->req = def.tasks[i].request;
        t->n_up_left = (uint32_t)j->dag.tasks[i].n_up;
        t->flags = def.tasks[i].checkpoint ? F_CHECKPOINT : 0;
        t->qh = NONE32;
        t->gh = NONE32;
        t->rh = NONE32;
        t->created_at = j->upfront ? e->now : NAN; /* upfront: every pod exists from arrival */
        t->run_idx = NONE32;
        t->node = NONE32;
        t->last_evicted = -INFINITY;
        t->preempt_retry_at = -INFINITY;
        t->seg = SEG_NONE;
        t->gang = NONE32;
        if (def.tasks[i].gang != NULL) { /* the index of the first task naming it */
            size_t k = 0;
            while (def.tasks[k].gang == NULL || strcmp(def.tasks[k].gang, def.tasks[i].gang) != 0)
                k++;
            t->gang = (uint32_t)k;
            t->gang_size = (uint16_t)def.tasks[i].gang_size;
            e->has_gangs = true;
        }
    }
    e->r->jobs[wi].arrival = e->now;
    e->r->jobs[wi].deadline = deadline;
    e->r->jobs[wi].n_tasks = (uint32_t)def.n_tasks;
    e->r->jobs[wi].tenant = j->tenant;
    e->r->n_tasks += def.n_tasks;
    if (owned)
        sim_job_def_free(&def);
    e->jobs[wi] = j;
    j->active_pos = (uint32_t)e->n_active;
    e->active[e->n_active++] = wi;
    if (uses_dsp(e) && evaluate_job(e, j) != 0)
        return -1;
    /* Pods enter the queue (or wait for their gate's release): runnable ones always; all of them
     * when the job creates its pods up front and the policy does not hold pods back for their
     * upstream tasks. */
    bool all = j->upfront && !e->p->dag_aware;
    for (size_t i = 0; i < j->dag.n; i++)
        if (all || j->t[i].n_up_left == 0)
            if (create_pod(e, wi, (uint32_t)i) != 0)
                return -1;
    return 0;
}

static void job_done(engine *e, uint32_t wi)
{
    ejob *j = e->jobs[wi];
    e->r->jobs[wi].completion = e->now;
    uint32_t pos = j->active_pos;
    uint32_t last = e->active[--e->n_active];
    if (pos < e->n_active) {
        e->active[pos] = last;
        e->jobs[last]->active_pos = pos;
    }
    free_job(j);
    e->jobs[wi] = NULL;
    e->jobs_done++;
}

static int finish(engine *e, const sim_event *ev)
{
    ejob *j = e->jobs[ev->a];
    if (j == NULL)
        return 0;
    etask *t = &j->t[ev->b];
    if (t->state != T_RUNNING || t->gen != ev->gen)
        return 0;             /* evicted meanwhile */
    uint32_t freed = t->node; /* the room the task frees: held for a downstream task */
    stop_run(e, ev->a, ev->b);
    if (t->flags & F_DISORDER_RUN) {
        seg_close(e, t, SIM_SEG_FAILED);
        e->r->failures++;
        t->fails++;
        double delay = e->c->backoff_base_s * pow(2.0, (double)(t->fails - 1));
        if (delay > e->c->backoff_max_s)
            delay = e->c->backoff_max_s;
        t->state = T_DELAYED;
        t->gen++;
        if (sim_evheap_push(&e->h, e->now + delay, SIM_EV_REQUEUE, ev->a, ev->b, t->gen) != 0)
            return oom(e, "events");
        return 0;
    }
    seg_close(e, t, SIM_SEG_DONE);
    if (t->evictions_for > 0 && isfinite(t->evict_for_deadline)) {
        e->r->evict_task_deadline += t->evictions_for;
        if (e->now <= t->evict_for_deadline + 1e-9)
            e->r->evict_task_met += t->evictions_for;
    }
    t->evictions_for = 0;
    t->state = T_DONE;
    t->progress = t->runtime;
    j->n_done++;
    const ds_dag_task *dt = &j->dag.tasks[ev->b];
    for (size_t k = 0; k < dt->n_down; k++) {
        etask *d = &j->t[dt->down[k]];
        d->n_up_left--;
        if (d->n_up_left == 0 && d->state == T_BLOCKED)
            if (create_pod(e, ev->a, (uint32_t)dt->down[k]) != 0 ||
                sim_hold_add(e, ev->a, (uint32_t)dt->down[k], ev->b, freed) != 0)
                return -1;
    }
    if (j->n_done == j->dag.n)
        job_done(e, ev->a);
    return 0;
}

static int requeue(engine *e, const sim_event *ev)
{
    ejob *j = e->jobs[ev->a];
    if (j == NULL)
        return 0;
    etask *t = &j->t[ev->b];
    if (t->state != T_DELAYED || t->gen != ev->gen)
        return 0;
    return make_ready(e, ev->a, ev->b);
}

/* ---- scheduling pass --------------------------------------------------------------------- */

/* Nodes where the task can finish by its level deadline (extender filter); NULL = all. */
static const unsigned char *deadline_filter(engine *e, const ejob *j, uint32_t task)
{
    if (!e->p->deadline_filter || !e->c->pol.filter_infeasible_nodes || j->ev == NULL)
        return NULL;
    double dl = j->ev[task].level_deadline;
    if (!isfinite(dl))
        return NULL;
    const etask *t = &j->t[task];
    double left = t->runtime - t->progress;
    size_t feasible = 0;
    for (size_t n = 0; n < e->n_nodes; n++) {
        ds_res f = node_free(e, n);
        bool ok = ds_can_finish_by(left, e->nodes[n].speed, e->now, dl);
        e->allowed[n] = ok;
        if (ok && ds_res_fits(&t->req, &f))
            feasible++;
    }
    return feasible > 0 ? e->allowed : NULL; /* no feasible node: do not filter */
}

/* The nodes the extender lets a pod of job `job` use: those of `allowed` (NULL: all) where it
 * does not fit only in room held for another job's task (holds.c); when the deadline filter
 * leaves none of those with room, the held room alone decides (the filter does not filter when
 * no node is feasible). NULL when nothing is held against the pod and allowed is NULL. */
static const unsigned char *hold_mask(engine *e, uint32_t job, const ds_res *req,
                                      const unsigned char *allowed)
{
    if (e->n_holds == 0)
        return allowed;
    bool refused = false, any = false;
    for (size_t n = 0; n < e->n_nodes; n++) {
        ds_res f = node_free(e, n);
        bool ok = !sim_hold_refuses(e, (uint32_t)n, job, req, &f);
        refused |= !ok;
        e->hold_allowed[n] = ok;
        any |= ok && (allowed == NULL || allowed[n]) && ds_res_fits(req, &f);
    }
    if (!refused)
        return allowed;
    for (size_t n = 0; any && allowed != NULL && n < e->n_nodes; n++)
        e->hold_allowed[n] = e->hold_allowed[n] && allowed[n];
    return e->hold_allowed;
}

static int place(engine *e, uint32_t h)
{
    const sim_wq_node *qn = sim_wq_get(&e->q, h);
    uint32_t job = qn->job, task = qn->task;
    ejob *j = e->jobs[job];
    double crit = e->p->criticality ? sim_gate_criticality(e, j->ev[task].priority) : 0.0;
    const unsigned char *allowed = hold_mask(e, job, &j->t[task].req, deadline_filter(e, j, task));
    size_t node = sim_policy_pick_node(e->p, &e->c->pol, &j->t[task].req, e->nodes, e->n_nodes,
                                       allowed, crit, e->max_speed, e->c->extender_weight);
    if (node == SIZE_MAX)
        return ds_err_set(e->err, "simulator: internal error: pod fits no node after fit query");
    return start_task(e, job, task, (uint32_t)node);
}

/* Does a pod of job `job` requesting req fit some node, room held for other jobs' tasks aside
 * (holds.c)? *held: it fit somewhere only in held room. */
static bool fits_some_node(engine *e, uint32_t job, const ds_res *req, bool *held)
{
    *held = false;
    sim_holds_prune(e);
    /* A request above the largest free room of some kind fits no node: with back-off disabled,
     * every pod end retries every parked pod, and in a full cluster most fail here. */
    if (e->free_max_stale) {
        for (int k = 0; k < DS_RES_N; k++)
            e->free_max.v[k] = INT64_MIN;
        for (size_t n = 0; n < e->n_nodes; n++) {
            ds_res f = node_free(e, n);
            for (int k = 0; k < DS_RES_N; k++)
                if (f.v[k] > e->free_max.v[k])
                    e->free_max.v[k] = f.v[k];
        }
        e->free_max_stale = false;
    }
    if (!ds_res_fits(req, &e->free_max))
        return false;
    for (size_t n = 0; n < e->n_nodes; n++) {
        ds_res f = node_free(e, n);
        if (!ds_res_fits(req, &f))
            continue;
        if (!sim_hold_refuses(e, (uint32_t)n, job, req, &f))
            return true;
        *held = true;
    }
    return false;
}

/* kube-scheduler's PostFilter for a pod that fits nowhere: it tries to preempt lower-priority
 * pods (DefaultPreemption, lib/kube_preempt.h); the preemptor is bound to the node at once (the
 * graceful termination is not modelled). *started: it was. */
static int kube_preempt_pod(engine *e, uint32_t job, uint32_t task, bool *started)
{
    *started = false;
    ejob *j = e->jobs[job];
    etask *t = &j->t[task];
    if (!e->p->kube_preemption || e->n_running == 0 || j->priority <= min_running_prio(e) ||
        e->now < t->preempt_retry_at)
        return 0;
    ds_kube_pod *pods = malloc((e->n_running + 1) * sizeof *pods);
    ds_res *free_ = malloc(e->n_nodes * sizeof *free_);
    size_t *victims = malloc((e->n_running + 1) * sizeof *victims);
    int rc = 0;
    if (pods == NULL || free_ == NULL || victims == NULL) {
        rc = oom(e, "preemption");
        goto out;
    }
    for (size_t r = 0; r < e->n_running; r++) {
        const etask *rt = &e->jobs[e->running[r].job]->t[e->running[r].task];
        pods[r] = (ds_kube_pod){.node = rt->node,
                                .priority = e->jobs[e->running[r].job]->priority,
                                .start_time = rt->started_at,
                                .request = rt->req,
                                .evictable = true};
    }
    for (size_t nd = 0; nd < e->n_nodes; nd++)
        free_[nd] = node_free(e, nd);
    size_t nv = 0, node = 0;
    int found = ds_kube_select_victims(&t->req, j->priority, free_, e->n_nodes, pods, e->n_running,
                                       victims, 64, &nv, &node, e->err);
    if (found < 0) {
        rc = -1;
        goto out;
    }
    if (found == 0) {
        t->preempt_retry_at = e->now + e->c->kube_preempt_backoff_s;
        goto out;
    }
    /* Resolve victims to tasks before evicting (eviction reorders the running list). */
    running_ref vr[64];
    if (nv > 64)
        nv = 64;
    for (size_t v = 0; v < nv; v++)
        vr[v] = e->running[victims[v]];
    for (size_t v = 0; v < nv; v++) {
        if (evict(e, vr[v].job, vr[v].task, job, false, false) != 0) {
            rc = -1;
            goto out;
        }
        e->r->preempt_kube++;
    }
    ds_res f = node_free(e, node);
    if (ds_res_fits(&t->req, &f)) {
        if (start_task(e, job, task, (uint32_t)node) != 0) {
            rc = -1;
            goto out;
        }
        *started = true;
    }
out:
    free(pods);
    free(free_);
    free(victims);
    return rc;
}

/* kube-scheduler's scheduling cycles: it takes the first active pod in queue order (kqueue.c:
 * pods whose last attempt failed are parked until an event or their back-off moves them) and
 * binds it to the node the policy scores best, or, when it fits no node and cannot preempt,
 * fails it (unschedulable); until no active pod is left. With a cycle time (sched_cycle_s) each
 * attempt keeps the scheduler busy: the pass stops and a SCHED event resumes it when the cycle
 * is over, and whatever happened meanwhile (pod ends, back-off flushes, new pods) is in the
 * queue by then (scheduleOne pops one pod per cycle). */
static int schedule_pass(engine *e)
{
    for (;;) {
        uint32_t h = sim_wq_first_active(&e->q);
        if (h == SIM_WQ_NONE)
            return 0;
        if (e->now < e->sched_free_at - SIM_TIME_EPS) {
            if (!e->sched_pending) {
                if (sim_evheap_push(&e->h, e->sched_free_at, SIM_EV_SCHED, 0, 0, 0) != 0)
                    return oom(e, "events");
                e->sched_pending = true;
            }
            return 0;
        }
        const sim_wq_node *qn = sim_wq_get(&e->q, h);
        uint32_t job = qn->job, task = qn->task;
        bool held = false;
        if (fits_some_node(e, job, &e->jobs[job]->t[task].req, &held)) {
            if (place(e, h) != 0)
                return -1;
            if (e->c->sched_cycle_s > 0)
                e->sched_free_at = e->now + e->c->sched_cycle_s;
            continue;
        }
        bool started = false;
        if (kube_preempt_pod(e, job, task, &started) != 0)
            return -1;
        if (!started && sim_kq_failed(e, job, task) != 0)
            return -1;
        e->r->held_refusals += !started && held;
        double cycle = started ? e->c->sched_cycle_s : e->c->sched_cycle_failed_s;
        if (cycle > 0)
            e->sched_free_at = e->now + cycle;
        /* evictions free nodes: kube-scheduler hears of them (AssignedPodDelete) */
        if (e->pods_freed && sim_kq_pods_freed(e) != 0)
            return -1;
    }
}

/* ---- DSP preemption (Algorithm 1) -------------------------------------------------------- */

/* The i-th waiting task of a preemption round: the first nq from kube-scheduler's queue, the rest
 * gated (e->handles as dsp_preemption collected them). */
static const sim_wq_node *waiting_node(const engine *e, size_t nq, size_t i)
{
    return sim_wq_get(i < nq ? &e->q : &e->gq, e->handles[i]);
}

static int dsp_preemption(engine *e)
{
    if (!e->p->dsp_preemption || !e->c->pol.preemption_enabled)
        return 0;
    /* Preemptors: the pods in kube-scheduler's queue, and under `gated` the ready tasks the
     * release rule holds for lack of room (all gated tasks unless the last round stopped at
     * maxConcurrentReleases), as the controller's preemption round takes them. */
    size_t nq = sim_wq_size(&e->q);
    size_t ng = e->p->gated && !e->gate_limited ? sim_wq_size(&e->gq) : 0;
    size_t nw = nq + ng;
    size_t nr = e->n_running;
    if (nw == 0 || nr == 0)
        return 0;
    ds_preempt_params pp = e->c->pol.preemption;
    ds_evict_budget budget = {0};
    if (e->p->rho_zero)
        pp.rho = 0;
    if (e->p->paper_gap) { /* DSP's Algorithm 1 as published, whatever the policy file says */
        pp.norm = DS_NORM_PAPER;
        pp.payoff = false;
        pp.queue_order = false; /* DSP's own queue is raw priority */
        pp.deadline_victims = true;
        pp.same_resource_first = false;
    }
    /* The queue-order rule reads the jobs' figures in the order across jobs, which only the
     * policies ordered that way compute. */
    if (!e->p->gated)
        pp.queue_order = false;
    /* P_bar over the same population as the controller and the extender: every waiting or
     * running task of the jobs in the system (ds_pbar_acc). */
    ds_pbar_acc acc;
    ds_pbar_acc_init(&acc);
    for (size_t a = 0; a < e->n_active; a++) {
        const ejob *j = e->jobs[e->active[a]];
        ds_pbar_acc_add_job(&acc, j->st, j->ev, j->dag.n);
    }
    pp.pbar_given = true;
    pp.pbar_half = ds_pbar_acc_half(&acc);
    if (e->p->anti_thrash) {
        prune_evictions(e);
        ds_evict_history h = {.n = e->n_evicts, .get = evict_mark, .ctx = e};
        ds_evict_budget_init(&budget, &e->c->pol, h, e->now);
        size_t ns_left = ds_evict_budget_namespace_left(&budget, SIM_NAMESPACE);
        pp.max_evictions = budget.total_left < ns_left ? budget.total_left : ns_left;
    } else {
        pp.min_run_s = 0;
        pp.long_task_s = 0; /* no anti-thrash limits: no long-task limit either */
        pp.max_evictions = SIZE_MAX;
    }
    if (pp.max_evictions == 0)
        return 0;
    if (grow_handles(e, nw) != 0)
        return -1;
    sim_wq_collect(&e->q, e->handles);
    sim_wq_collect_first(&e->gq, e->handles + nq, ng);
    ds_waiting_task *wt = malloc(nw * sizeof *wt);
    ds_running_task *rt = malloc(nr * sizeof *rt);
    ds_node_free *nf = malloc(e->n_nodes * sizeof *nf);
    const ds_dag **dags = malloc((e->n_active ? e->n_active : 1) * sizeof *dags);
    ds_decision *dec = malloc(nr * sizeof *dec);
    running_ref *vref = malloc(nr * sizeof *vref);
    /* The job rule: each active job's blocked work by level (ds_job_level_needs), at need_at[a]
     * in needs, n_needs[a] entries. */
    size_t *need_at = calloc(e->n_active ? e->n_active : 1, sizeof *need_at);
    size_t *n_needs = calloc(e->n_active ? e->n_active : 1, sizeof *n_needs);
    ds_level_need *needs = NULL;
    ds_res *reqs = NULL;
    int rc = 0;
    if (wt == NULL || rt == NULL || nf == NULL || dags == NULL || dec == NULL || vref == NULL ||
        need_at == NULL || n_needs == NULL) {
        rc = oom(e, "preemption");
        goto out;
    }
    size_t total_levels = 0, max_tasks = 0;
    for (size_t a = 0; a < e->n_active; a++) {
        if ((dags[a] = sim_view_dag(e, e->jobs[e->active[a]])) == NULL) {
            rc = -1;
            goto out;
        }
        total_levels += dags[a]->n_levels > 0 ? (size_t)dags[a]->n_levels : 0;
        if (dags[a]->n > max_tasks)
            max_tasks = dags[a]->n;
    }
    if (pp.payoff && pp.job_room) {
        needs = malloc((total_levels ? total_levels : 1) * sizeof *needs);
        reqs = malloc((max_tasks ? max_tasks : 1) * sizeof *reqs);
        if (needs == NULL || reqs == NULL) {
            rc = oom(e, "preemption");
            goto out;
        }
        size_t at = 0;
        for (size_t a = 0; a < e->n_active; a++) {
            const ejob *j = e->jobs[e->active[a]];
            for (size_t t = 0; t < dags[a]->n; t++)
                reqs[t] = j->t[t].req;
            need_at[a] = at;
            n_needs[a] = ds_job_level_needs(dags[a], j->st, j->ev, reqs, needs + at);
            at += n_needs[a];
        }
    }
    ds_res ahead = {{0}};       /* the requests before the i-th waiting task in queue order */
    ds_res ahead_gated = {{0}}; /* of which those of gated tasks */
    for (size_t i = 0; i < nw; i++) {
        const sim_wq_node *qn = waiting_node(e, nq, i);
        const ejob *j = e->jobs[qn->job];
        const ds_task_eval *ev = &j->ev[qn->task];
        wt[i] = (ds_waiting_task){.job = j->active_pos,
                                  .task = qn->task,
                                  .priority = ev->priority,
                                  .t_allow_s = ev->t_allow_s,
                                  .t_wait_s = e->now - j->t[qn->task].runnable_since,
                                  .t_rem_s = ev->t_rem_s,
                                  .request = j->t[qn->task].req};
        if (pp.queue_order)
            ds_order_job_figures(&e->order, &j->sum, wt[i].order);
        wt[i].job_known = e->p->gated; /* the job summary is kept for gated policies */
        wt[i].job_slack_s = j->sum.slack_s;
        wt[i].job_path_s = j->sum.remaining_path_s;
        wt[i].job_steps = j->sum.remaining_steps;
        wt[i].ahead = ahead;
        wt[i].ahead_gated = ahead_gated;
        ds_res_add(&ahead, &wt[i].request);
        if (i >= nq) /* gated (waiting_node) */
            ds_res_add(&ahead_gated, &wt[i].request);
        if (needs != NULL) {
            wt[i].level = dags[j->active_pos]->tasks[qn->task].level;
            wt[i].job_needs = needs + need_at[j->active_pos];
            wt[i].n_job_needs = n_needs[j->active_pos];
        }
    }
    for (size_t i = 0; i < nr; i++) {
        const ejob *j = e->jobs[e->running[i].job];
        const etask *t = &j->t[e->running[i].task];
        const ds_task_eval *ev = &j->ev[e->running[i].task];
        bool cooled =
            !e->p->anti_thrash || (!ds_evict_cooling(&e->c->pol, t->last_evicted, e->now) &&
                                   ds_evict_task_left(&e->c->pol, t->evictions));
        rt[i] =
            (ds_running_task){.job = j->active_pos,
                              .task = e->running[i].task,
                              .priority = ev->priority,
                              .t_allow_s = ev->t_allow_s,
                              .ran_s = e->now > t->started_at ? e->now - t->started_at : 0,
                              .t_rem_s = isfinite(ev->t_rem_s) && ev->t_rem_s > 0 ? ev->t_rem_s : 0,
                              .request = t->req,
                              .node = t->node,
                              .evictable = cooled};
        if (pp.queue_order)
            ds_order_job_figures(&e->order, &j->sum, rt[i].order);
        vref[i] = e->running[i];
    }
    for (size_t n = 0; n < e->n_nodes; n++) {
        nf[n].free_ = node_free(e, n);
        nf[n].speed = e->nodes[n].speed;
        nf[n].evictions_left =
            e->p->anti_thrash ? ds_evict_budget_node_left(&budget, e->w->nodes[n].name) : SIZE_MAX;
        nf[n].capacity = e->nodes[n].alloc;
        nf[n].long_evicted =
            e->p->anti_thrash && ds_evict_budget_node_long_evicted(&budget, e->w->nodes[n].name);
    }
    long nd =
        ds_select_victims(wt, nw, rt, nr, nf, e->n_nodes, dags, e->n_active, &pp, dec, nr, e->err);
    if (nd < 0) {
        ds_err_prefix(e->err, "DSP preemption");
        rc = -1;
        goto out;
    }
    /* Apply: evict each decision's victim; once a preemptor's victims are gone, bind it. A
     * preemptor whose plan has a victim it may not evict (lib/preempt_rules.h: a higher Kubernetes
     * priority; the simulated cluster is one namespace) is dropped whole. */
    for (long d = 0; d < nd; d++) {
        const ds_decision *x = &dec[d];
        if (d == 0 || dec[d - 1].waiting != x->waiting) {
            const sim_wq_node *qa = waiting_node(e, nq, x->waiting);
            ds_preempt_side a = {"default", e->jobs[qa->job]->priority};
            bool ok = true;
            for (long g = d; g < nd && dec[g].waiting == x->waiting; g++) {
                ds_preempt_side b = {"default", e->jobs[vref[dec[g].running].job]->priority};
                if (ds_preempt_pair_check(&e->c->pol, &a, &b) != DS_PAIR_OK)
                    ok = false;
            }
            if (!ok) {
                while (d + 1 < nd && dec[d + 1].waiting == x->waiting)
                    d++;
                continue;
            }
        }
        running_ref v = vref[x->running];
        etask *vt = &e->jobs[v.job]->t[v.task];
        if (vt->state == T_RUNNING) {
            const sim_wq_node *qp = waiting_node(e, nq, x->waiting);
            uint32_t for_job = qp->job;
            if (evict(e, v.job, v.task, for_job, true, ds_running_is_long(&rt[x->running], &pp)) !=
                0) {
                rc = -1;
                goto out;
            }
            etask *for_task = &e->jobs[for_job]->t[qp->task];
            if (for_task->evictions_for == 0)
                for_task->evict_for_deadline = e->jobs[for_job]->ev[qp->task].level_deadline;
            if (for_task->evictions_for < UINT16_MAX)
                for_task->evictions_for++;
            switch (x->reason) {
            case DS_REASON_URGENT:
                e->r->preempt_urgent++;
                break;
            case DS_REASON_STARVATION:
                e->r->preempt_starvation++;
                break;
            default:
                e->r->preempt_priority++;
                break;
            }
        }
        bool last_of_preemptor = d + 1 == nd || dec[d + 1].waiting != x->waiting;
        if (!last_of_preemptor)
            continue;
        const sim_wq_node *qn = waiting_node(e, nq, x->waiting);
        uint32_t pj = qn->job, ptask = qn->task;
        etask *pt = &e->jobs[pj]->t[ptask];
        ds_res f = node_free(e, x->node);
        /* A gated preemptor is released with its room (the controller ungates it and nominates
         * the node): it binds there. */
        if ((pt->state == T_QUEUED || pt->state == T_GATED) && ds_res_fits(&pt->req, &f))
            if (start_task(e, pj, ptask, (uint32_t)x->node) != 0) {
                rc = -1;
                goto out;
            }
    }
out:
    free(wt);
    free(rt);
    free(nf);
    free(dags);
    free(dec);
    free(vref);
    free(need_at);
    free(n_needs);
    free(needs);
    free(reqs);
    return rc;
}

static int epoch(engine *e)
{
    e->epoch_pending = false;
    e->r->epochs++;
    if (e->n_active > 0) {
        if (refresh_priorities(e) != 0)
            return -1;
        if (dsp_preemption(e) != 0)
            return -1;
    }
    if (e->jobs_done < e->w->n_jobs) {
        double next = e->now + e->c->pol.preemption.epoch_s;
        if (sim_evheap_push(&e->h, next, SIM_EV_EPOCH, 0, 0, 0) != 0)
            return oom(e, "events");
        e->epoch_pending = true;
    }
    return 0;
}

/* ---- setup and main loop ----------------------------------------------------------------- */

static int setup(engine *e)
{
    const sim_workload *w = e->w;
    sim_result *r = e->r;
    e->n_nodes = w->n_nodes;
    e->nodes = calloc(w->n_nodes, sizeof *e->nodes);
    e->allowed = calloc(w->n_nodes, 1);
    e->hold_allowed = calloc(w->n_nodes, 1);
    e->jobs = calloc(w->n_jobs, sizeof *e->jobs);
    e->active = calloc(w->n_jobs, sizeof *e->active);
    r->jobs = calloc(w->n_jobs, sizeof *r->jobs);
    r->node_speed = calloc(w->n_nodes, sizeof *r->node_speed);
    r->node_alloc = calloc(w->n_nodes, sizeof *r->node_alloc);
    if (e->nodes == NULL || e->allowed == NULL || e->hold_allowed == NULL || e->jobs == NULL ||
        e->active == NULL || r->jobs == NULL || r->node_speed == NULL || r->node_alloc == NULL)
        return oom(e, "setup");
    r->n_jobs = w->n_jobs;
    r->n_nodes = w->n_nodes;
    double max_cpu = 0, max_mem = 0;
    for (size_t n = 0; n < w->n_nodes; n++) {
        const ds_res *a = &w->nodes[n].allocatable;
        if ((double)a->v[DS_RES_CPU] > max_cpu)
            max_cpu = (double)a->v[DS_RES_CPU];
        if ((double)a->v[DS_RES_MEMORY] > max_mem)
            max_mem = (double)a->v[DS_RES_MEMORY];
    }
    e->max_speed = 0;
    for (size_t n = 0; n < w->n_nodes; n++) {
        const sim_node_def *nd = &w->nodes[n];
        e->nodes[n].alloc = nd->allocatable;
        double speed =
            ds_node_speed(nd->speed, (double)nd->allocatable.v[DS_RES_CPU],
                          (double)nd->allocatable.v[DS_RES_MEMORY], max_cpu, max_mem, &e->c->pol);
        e->nodes[n].speed = speed;
        if (speed > e->max_speed)
            e->max_speed = speed;
        ds_res_add(&r->capacity, &nd->allocatable);
        r->node_speed[n] = speed;
        r->node_alloc[n] = nd->allocatable;
    }
    e->order = e->c->pol.order;
    e->free_max_stale = true;
    sim_wq_init(&e->q, 0x5eed);
    sim_evheap_init(&e->h);
    if (sim_kq_init(e) != 0 || sim_tenants_init(e) != 0)
        return -1;
    e->sched_free_at = -INFINITY;
    return sim_gate_init(e);
}

static void teardown(engine *e)
{
    if (e->jobs != NULL)
        for (size_t i = 0; i < e->w->n_jobs; i++)
            free_job(e->jobs[i]);
    free(e->jobs);
    free(e->active);
    free(e->nodes);
    free(e->allowed);
    free(e->running);
    free(e->handles);
    free(e->evicts);
    sim_wq_free(&e->q);
    sim_evheap_free(&e->h);
    sim_gate_free(e);
    sim_kq_free(e);
    sim_tenants_free(e);
    sim_holds_free(e);
}

static int check_config(const sim_config *c, ds_err *err)
{
    if (c->policy == NULL)
        return ds_err_set(err, "simulator: no policy");
    if (!(c->restart_delay_s >= 0) || !(c->disorder_fail_s > 0) || !(c->backoff_base_s >= 0) ||
        !(c->backoff_max_s >= c->backoff_base_s) || !(c->create_latency_s >= 0) ||
        !(c->start_latency_s >= 0))
        return ds_err_set(err, "simulator: delays and latencies must be >= 0 (disorder failure "
                               "> 0) and backoff base <= max");
    if (!(c->extender_weight >= 0) || !(c->max_time_s > 0))
        return ds_err_set(err, "simulator: extender weight must be >= 0 and max time > 0");
    if (c->policy->criticality && !c->policy->gated)
        return ds_err_set(err,
                          "simulator: policy %s: criticality needs the waiting rank of a "
                          "gated policy",
                          c->policy->name);
    if (!(c->release_latency_s >= 0) || !(c->round_interval_s >= 0))
        return ds_err_set(err, "simulator: release latency and round interval must be >= 0");
    if (!(c->release_cost_s >= 0 && c->release_cost_s <= 3600) || c->release_concurrency < 1)
        return ds_err_set(err,
                          "simulator: release cost must be 0..3600 s and release "
                          "concurrency at least 1 (got %g s, %u)",
                          c->release_cost_s, c->release_concurrency);
    if (!(c->pod_initial_backoff_s >= 0) || !(c->pod_max_backoff_s >= c->pod_initial_backoff_s) ||
        !(c->backoff_flush_s >= 0) || !(c->max_unschedulable_s > 0))
        return ds_err_set(err, "simulator: kube-scheduler back-off: initial must be >= 0 and <= "
                               "max, flush interval >= 0, unschedulable time > 0");
    /* A flush grid finer than the engine's instants is not modelled, and a denormal one puts
     * every flush at infinity: the back-off queue is never flushed and the run cannot finish. */
    if (c->backoff_flush_s > 0 && c->backoff_flush_s < SIM_TIME_EPS)
        return ds_err_set(err,
                          "simulator: kube-scheduler back-off: flush interval must be 0 (at the "
                          "end of each back-off) or at least %g s, the simulator's time "
                          "resolution (got %g): below it a flush can fall at infinity and the run "
                          "cannot finish",
                          SIM_TIME_EPS, c->backoff_flush_s);
    if (!(c->sched_cycle_s >= 0 && c->sched_cycle_s <= 60) ||
        !(c->sched_cycle_failed_s >= 0 && c->sched_cycle_failed_s <= 60))
        return ds_err_set(err,
                          "simulator: kube-scheduler's scheduling cycle must be 0..60 s (got %g "
                          "s binding, %g s failing)",
                          c->sched_cycle_s, c->sched_cycle_failed_s);
    if (uses_dsp(&(engine){.p = c->policy}) && !(c->pol.preemption.epoch_s > 0))
        return ds_err_set(err, "simulator: spec.preemption.epoch must be > 0 (got %g)",
                          c->pol.preemption.epoch_s);
    return 0;
}

int sim_run(const sim_workload *w, const sim_config *c, sim_result *r, ds_err *err)
{
    memset(r, 0, sizeof *r);
    if (check_config(c, err) != 0)
        return -1;
    if (w->n_nodes == 0 || w->n_jobs == 0)
        return ds_err_set(err, "simulator: workload \"%s\" has no nodes or no jobs", w->name);
    engine e = {.w = w, .c = c, .p = c->policy, .r = r, .err = err};
    int rc = setup(&e);
    if (rc == 0) {
        r->first_arrival = sim_workload_arrival(w, 0);
        e.now = e.last_t = r->first_arrival;
        if (sim_evheap_push(&e.h, r->first_arrival, SIM_EV_ARRIVAL, 0, 0, 0) != 0)
            rc = oom(&e, "events");
        e.next_arrival = 1;
        if (rc == 0 && uses_dsp(&e)) {
            if (sim_evheap_push(&e.h, r->first_arrival, SIM_EV_EPOCH, 0, 0, 0) != 0)
                rc = oom(&e, "events");
            e.epoch_pending = true;
        }
    }
    sim_event ev;
    while (rc == 0 && sim_evheap_pop(&e.h, &ev)) {
        if (ev.t > c->max_time_s) {
            rc = ds_err_set(err,
                            "simulator: simulated time passed the limit of %g s with %zu of "
                            "%zu jobs done",
                            c->max_time_s, e.jobs_done, w->n_jobs);
            break;
        }
        advance(&e, ev.t);
        r->events++;
        switch (ev.type) {
        case SIM_EV_ARRIVAL:
            rc = arrive(&e, ev.a);
            if (rc == 0 && e.next_arrival < w->n_jobs) {
                if (sim_evheap_push(&e.h, sim_workload_arrival(w, e.next_arrival), SIM_EV_ARRIVAL,
                                    (uint32_t)e.next_arrival, 0, 0) != 0)
                    rc = oom(&e, "events");
                e.next_arrival++;
            }
            break;
        case SIM_EV_FINISH:
            rc = finish(&e, &ev);
            break;
        case SIM_EV_REQUEUE:
            rc = requeue(&e, &ev);
            break;
        case SIM_EV_EPOCH:
            rc = epoch(&e);
            break;
        case SIM_EV_ROUND:
            rc = sim_gate_round(&e);
            break;
        case SIM_EV_RELEASE:
            rc = sim_gate_release_arrives(&e, &ev);
            break;
        case SIM_EV_BACKOFF:
            rc = sim_kq_backoff_done(&e, &ev);
            break;
        case SIM_EV_UNSCHED_TIMEOUT:
            rc = sim_kq_unsched_timeout(&e, &ev);
            break;
        case SIM_EV_SCHED:
            e.sched_pending = false;
            break;
        default:
            break;
        }
        if (rc == 0 && e.pods_freed)
            rc = sim_kq_pods_freed(&e);
        if (rc == 0)
            rc = sim_gate_schedule_round(&e);
        if (rc == 0 && sim_evheap_peek_time(&e.h) > e.now)
            rc = schedule_pass(&e);
        if (rc == 0 && e.jobs_done == w->n_jobs)
            break;
    }
    if (rc == 0 && e.jobs_done < w->n_jobs)
        rc = ds_err_set(err,
                        "simulator: no events left with %zu of %zu jobs done (%zu pods "
                        "waiting that fit no node, %zu held by the controller)",
                        e.jobs_done, w->n_jobs, sim_wq_size(&e.q), sim_wq_size(&e.gq));
    r->end_time = e.now;
    r->peak_events = e.h.peak;
    if (rc == 0)
        rc = sim_tenants_result(&e);
    teardown(&e);
    if (rc != 0) {
        sim_result_free(r);
        return -1;
    }
    return 0;
}
