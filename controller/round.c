/* round.c: the decision loop. Every epoch (spec.preemption.epoch) and soon after a relevant
 * change, when this process leads and every watch is synced and recent, one round takes a
 * snapshot and carries out, in this order: releases of held-back tasks whose upstream tasks
 * succeeded, nudges of rejected pods, the preemption plan, then the DSP annotations users see.
 * Nudges, evictions and nominations are made in the round; releases are sent by the release
 * window (releaser.h), many at once, while the round goes on, and the round ends when they are
 * made; the waiting reasons and DSP annotations are only queued (writer.h), so that no decision
 * waits behind them.
 * Nothing is done on a cache that is not synced or has been out of contact with the API server
 * for longer than --cache-max-age (see controller.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "controller.h"
#include "cadence.h"
#include "clock.h"
#include "reserve.h"
#include "kutil.h"
#include "log.h"
#include "logfields.h"
#include "release.h"
#include "upcoming.h"
#include "workflows.h"
#include "writes.h"

static bool caches_healthy(ctl_controller *c)
{
    static const char *const names[] = {"pods",       "nodes",      "poddisruptionbudgets",
                                        "jobs",       "job graphs", "policies",
                                        "namespaces", "workflows"};
    kube_informer *all[] = {c->pods,   c->nodes,    c->pdbs,       c->jobs,
                            c->graphs, c->policies, c->namespaces, c->workflows};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i] != NULL && !kube_informer_healthy(all[i], c->opt.cache_max_age_s)) {
            kube_informer_status st;
            kube_informer_get_status(all[i], &st);
            KLOG_DEBUG("loop", "watch of %s: synced %d, watching %d, last contact %.1fs ago: %s",
                       names[i], st.synced, st.watching, st.last_ok_age_s, st.last_error);
            return false;
        }
    return true;
}

static void count_round(ctl_controller *c, const char *outcome)
{
    const char *lv[] = {outcome};
    metrics_add(c->m.rounds, lv, 1);
}

/* Pods and nodes are decoded with the active policy's gpuResourceNames: when a reloaded policy
 * changes them, both watches list again and decode every object with the new names. */
static void apply_gpu_names(ctl_controller *c)
{
    const char *gpu[DS_POLICY_MAX_LIST];
    size_t n = ds_name_list_ptrs(&c->policy.policy.gpu_resource_names, gpu);
    kube_informer *infs[] = {c->pods, c->nodes};
    for (size_t i = 0; i < 2; i++) {
        ds_err err = {{0}};
        int rc = kube_informer_set_gpu_names(infs[i], gpu, n, &err);
        if (rc < 0)
            KLOG_ERROR("policy", "gpuResourceNames: %s", err.msg);
        else if (rc == 1)
            KLOG_INFO("policy", "gpuResourceNames changed: decoding %s again",
                      i == 0 ? "pods" : "nodes");
    }
}

static void refresh_policy(ctl_controller *c)
{
    kube_obj_list l = {0};
    if (kube_informer_list(c->policies, &l) != 0)
        return;
    kube_policy_update u;
    kube_policy_refresh(&c->policy, (const kube_configmap *const *)l.items, l.n, c->opt.policy_name,
                        &u);
    kube_policy_log("policy", c->opt.policy_name, &c->policy, &u);
    apply_gpu_names(c);
    metrics_set(c->m.policy_dups, NULL, (double)c->policy.duplicates);
    if (u.outcome == KUBE_POLICY_INVALID && ctl_may_write(c)) {
        kube_object_ref ref = {.api_version = "v1",
                               .kind = "ConfigMap",
                               .ns = u.cm->meta.ns,
                               .name = u.cm->meta.name,
                               .uid = u.cm->meta.uid};
        char msg[CTL_MSG_MAX];
        kube_policy_event_message(CTL_COMPONENT, &c->policy, &u, msg, sizeof msg);
        ds_err err = {{0}};
        if (kube_create_event(c->client, &ref, "Warning", KUBE_POLICY_EVENT_REASON, msg,
                              CTL_COMPONENT, &err) != 0)
            KLOG_WARN("policy", "posting Event %s on configmap %s/%s: %s", KUBE_POLICY_EVENT_REASON,
                      u.cm->meta.ns, u.cm->meta.name, err.msg);
    }
    kube_obj_list_free(&l);
}

/* Free the lists of a snapshot not taken. */
static void free_lists(kube_obj_list *lists, size_t n)
{
    for (size_t i = 0; i < n; i++)
        kube_obj_list_free(&lists[i]);
}

static int take_snapshot(ctl_controller *c, const ds_policy *pol, ctl_work_round *work,
                         ctl_snapshot *s, ds_err *err)
{
    enum { PODS, NODES, PDBS, JOBS, GRAPHS, NSS, N_LISTS };
    kube_obj_list l[N_LISTS] = {{0}};
    kube_informer *from[N_LISTS] = {c->pods, c->nodes, c->pdbs, c->jobs, c->graphs, c->namespaces};
    for (size_t i = 0; i < N_LISTS; i++)
        if (kube_informer_list(from[i], &l[i]) != 0) {
            free_lists(l, N_LISTS);
            return ds_err_set(err, "snapshot: out of memory");
        }
    /* Argo Workflows declare whole jobs, as JobGraphs do: the snapshot takes both in one list. */
    if (c->workflows != NULL && ctl_list_append_informer(&l[GRAPHS], c->workflows) != 0) {
        free_lists(l, N_LISTS);
        return ds_err_set(err, "snapshot: out of memory");
    }
    /* Which jobs this round evaluates (--max-graph-tasks-per-round); the others wait. */
    if (ctl_workset_plan(&c->work, &l[PODS], &l[JOBS], &l[GRAPHS], c->opt.max_graph_tasks, work,
                         err) != 0) {
        free_lists(l, N_LISTS);
        return -1;
    }
    ds_rt_history *learned = c->runtimes.loaded ? &c->runtimes.history : NULL;
    if (ctl_snapshot_build_work(&l[PODS], &l[NODES], &l[PDBS], &l[JOBS], &l[GRAPHS], &l[NSS], pol,
                                learned, work, rt_wall_now(), s, err) != 0) {
        ctl_work_round_free(work);
        return -1;
    }
    ctl_mark_foreign(s, c->opt.scheduler_name);
    return 0;
}

/* The task-level eviction yield of a finished job: the evictions made for each of its tasks, by
 * whether that task finished by its level deadline. */
static void record_task_yield(ctl_controller *c, const ctl_snapshot *s, const ctl_job_done *d)
{
    const ds_job *j = &s->js.jobs[d->job_idx];
    for (size_t t = 0; t < j->dag.n; t++) {
        ctl_task_ref ref = {.ns = d->ns, .job = d->job, .task = j->dag.tasks[t].name};
        size_t n = ctl_ledger_task_preemptions(&c->ledger.ledger, &ref);
        double deadline = j->eval != NULL ? j->eval[t].level_deadline : INFINITY;
        if (n == 0 || !isfinite(deadline))
            continue;
        double finish = ctl_outcomes_task_finish(s, j, t, s->now);
        const char *ov[] = {finish <= deadline ? "level_deadline_met" : "level_deadline_missed"};
        metrics_add(c->m.preemptor_tasks, ov, (double)n);
    }
}

/* Outcome metrics (outcomes.h): what finished and started since the last round, counted once,
 * from the moment this process leads (so that leaders do not count the same job twice). */
static void record_outcomes(ctl_controller *c, const ctl_snapshot *s)
{
    if (!c->outcomes_leading) {
        ctl_outcomes_init(&c->outcomes, s->now);
        c->outcomes_leading = true;
    }
    ctl_outcome_events e;
    ds_err err = {{0}};
    if (ctl_outcomes_scan(&c->outcomes, s, &e, &err) != 0) {
        KLOG_WARN("outcomes", "%s", err.msg);
        return;
    }
    for (size_t i = 0; i < e.n_jobs; i++) {
        const ctl_job_done *d = &e.jobs[i];
        const char *lv[] = {d->ns, ctl_job_outcome_name(d->outcome)};
        metrics_add(c->m.jobs_done, lv, 1);
        if (isfinite(d->makespan_s))
            metrics_observe(c->m.makespan, NULL, d->makespan_s);
        if (d->outcome == CTL_OUTCOME_DEADLINE_MISSED)
            metrics_observe(c->m.lateness, NULL, d->lateness_s);
        /* Eviction yield: the evictions made for this job's tasks, by its outcome. */
        if (d->job != NULL &&
            (d->outcome == CTL_OUTCOME_DEADLINE_MET || d->outcome == CTL_OUTCOME_DEADLINE_MISSED)) {
            size_t n = ctl_ledger_job_preemptions(&c->ledger.ledger, d->ns, d->job);
            const char *ov[] = {ctl_job_outcome_name(d->outcome)};
            if (n > 0)
                metrics_add(c->m.preemptor_jobs, ov, (double)n);
            if (n > 0)
                record_task_yield(c, s, d);
        }
    }
    for (size_t i = 0; i < e.n_tasks; i++) {
        const char *created[] = {"created"}, *ready[] = {"ready"};
        metrics_observe(c->m.task_wait, created, e.tasks[i].from_created_s);
        metrics_observe(c->m.task_wait, ready, e.tasks[i].from_ready_s);
    }
    ctl_outcome_events_free(&e);
}

/* The pod that carries a job's Event: the first by name among its pods still to run (NULL when
 * none is left). One pod, so that a job of a thousand pods gets one Event, not a thousand. */
static const ctl_pod *event_pod(const ctl_snapshot *s, const ds_job *job)
{
    const ctl_pod *best = NULL;
    for (size_t k = 0; k < job->n_pods; k++) {
        size_t i = job->pods[k];
        if (i >= s->n_pod)
            continue;
        const ctl_pod *p = &s->pod[i];
        if (p->state == CTL_POD_SUCCEEDED || p->state == CTL_POD_FAILED || p->terminating)
            continue;
        if (best == NULL || strcmp(p->name, best->name) < 0)
            best = p;
    }
    return best;
}

/* The jobs this round deferred for the bound on graph work (workset.h): counted, and one Warning
 * Event JobDeferred per job and CTL_DEFER_EVENT_EVERY_S on its JobGraph ConfigMap (else its
 * Workflow, else one of its pods). */
#define CTL_DEFER_EVENT_EVERY_S 600.0
static void report_deferred(ctl_controller *c, const ctl_snapshot *s, const ctl_work_round *w)
{
    const ds_work_plan *p = &w->plan;
    const char *ev[] = {"evaluated"}, *de[] = {"deferred"};
    size_t evaluated = p->tasks_evaluated;
    if (w->bound == 0) /* no bound: the tasks of the model */
        for (size_t i = 0; i < s->js.n_jobs; i++)
            evaluated += s->js.jobs[i].dag.n;
    metrics_set(c->m.graph_tasks, ev, (double)evaluated);
    metrics_set(c->m.graph_tasks, de, (double)p->tasks_deferred);
    if (p->n_deferred == 0)
        return;
    metrics_add(c->m.jobs_deferred, NULL, (double)p->n_deferred);
    KLOG_INFO("jobs",
              "graph work: %zu job(s) evaluated (%zu tasks), %zu deferred to a later round (%zu "
              "tasks); --max-graph-tasks-per-round %zu",
              p->n_evaluated, p->tasks_evaluated, p->n_deferred, p->tasks_deferred, w->bound);
    for (size_t i = 0; i < w->n_jobs; i++) {
        const ctl_work_job *j = &w->jobs[i];
        /* A JobGraph that declares no job ("ns/#graph:NAME") has InvalidJobGraph when read. */
        if (!j->deferred || j->target == NULL || strstr(j->key, "/#") != NULL)
            continue;
        char key[700];
        snprintf(key, sizeof key, "deferred/%.600s", j->key);
        if (!ctl_memo_due(&c->memo, key, s->now, CTL_DEFER_EVENT_EVERY_S))
            continue;
        char msg[CTL_MSG_MAX];
        snprintf(msg, sizeof msg,
                 "Job %.600s (%zu tasks) waits for a later round: the controller evaluates at most "
                 "%zu tasks of DAG jobs a round (--max-graph-tasks-per-round) and takes the jobs "
                 "in turn; none of its tasks is released or evicted for until then",
                 j->key, j->tasks, w->bound);
        ctl_event_object(c, j->target, "Warning", CTL_EV_JOB_DEFERRED, msg);
        KLOG_INFO("jobs", "job %s: %s", j->key, msg);
        ctl_memo_put(&c->memo, key, s->now);
    }
}

/* Jobs that cannot run as they are: one Warning Event InvalidJobGraph per job and distinct reason,
 * on one of its pods. An invalid job (its tasks that may depend on others keep their gate and say
 * why in dagsched.io/waiting-reason), or a valid one stalled on an upstream task that has had no
 * pod for the grace period (its dependents wait for it). */
static void report_invalid_jobs(ctl_controller *c, const ctl_snapshot *s)
{
    for (size_t j = 0; j < s->js.n_jobs; j++) {
        const ds_job *job = &s->js.jobs[j];
        const char *why = job->valid ? job->stalled : job->error;
        if (why == NULL)
            continue;
        const ctl_pod *p = event_pod(s, job);
        if (p == NULL || p->foreign)
            continue;
        char key[1024];
        snprintf(key, sizeof key, "invalid/%.100s/%.900s", job->key, why);
        if (ctl_memo_get(&c->memo, key) >= 0)
            continue;
        char msg[CTL_MSG_MAX];
        if (job->valid)
            snprintf(msg, sizeof msg, "Job %s is stalled: %.900s", job->key, why);
        else
            snprintf(msg, sizeof msg,
                     "Job %s cannot be scheduled as a DAG: %.900s; its tasks that depend on other "
                     "tasks will not run until this is fixed",
                     job->key, why);
        ctl_event_pod(c, p, "Warning", CTL_EV_JOB_INVALID, msg);
        KLOG_WARN_F("jobs", CTL_POD_FIELDS(p, NULL, CTL_EV_JOB_INVALID), "pod %s/%s: %s", p->ns,
                    p->name, msg);
        ctl_memo_put(&c->memo, key, s->now);
    }
}

/* Pods whose dagsched labels or annotations cannot be used (beyond dagsched's bounds): one Warning
 * Event InvalidPodMetadata per pod and reason while the pod waits to be scheduled (the memo keeps
 * it from being repeated every round). Such a pod is outside any DAG job; do_release removes its
 * gate. */
static void report_invalid_pods(ctl_controller *c, const ctl_snapshot *s)
{
    for (size_t i = 0; i < s->n_pod; i++) {
        const ctl_pod *p = &s->pod[i];
        if (p->dagsched_error == NULL || p->dagsched_error[0] == '\0' || p->terminating ||
            p->foreign ||
            (p->state != CTL_POD_GATED && p->state != CTL_POD_PENDING &&
             p->state != CTL_POD_UNSCHEDULABLE))
            continue;
        char key[1024];
        snprintf(key, sizeof key, "invalid-pod/%s/%.900s", p->uid, p->dagsched_error);
        if (ctl_memo_get(&c->memo, key) >= 0)
            continue;
        char msg[CTL_MSG_MAX];
        snprintf(msg, sizeof msg,
                 "%.700s: dagsched does not manage this pod and schedules it like a pod outside "
                 "any DAG job%s",
                 p->dagsched_error,
                 p->state == CTL_POD_GATED ? "; its scheduling gate " DS_GATE_DEPENDENCIES
                                             " is removed"
                                           : "");
        ctl_event_pod(c, p, "Warning", CTL_EV_POD_INVALID, msg);
        KLOG_WARN_F("jobs", CTL_POD_FIELDS(p, NULL, CTL_EV_POD_INVALID), "pod %s/%s: %s", p->ns,
                    p->name, msg);
        ctl_memo_put(&c->memo, key, s->now);
    }
}

/* Pending DAG tasks whose required node affinity could not be decoded (malformed or over the
 * limits): the controller makes no eviction for them. One warning per pod and distinct reason. */
static void report_invalid_affinity(ctl_controller *c, const ctl_snapshot *s)
{
    for (size_t i = 0; i < s->n_pod; i++) {
        const ctl_pod *p = &s->pod[i];
        if (p->affinity_error == NULL || p->affinity_error[0] == '\0' ||
            p->task.job == DS_NO_TASK ||
            (p->state != CTL_POD_GATED && p->state != CTL_POD_PENDING &&
             p->state != CTL_POD_UNSCHEDULABLE))
            continue;
        char key[1024];
        snprintf(key, sizeof key, "affinity/%s/%.900s", p->uid, p->affinity_error);
        if (ctl_memo_get(&c->memo, key) >= 0)
            continue;
        KLOG_WARN("preempt",
                  "pod %s/%s: required node affinity not understood: %s; no pod will be evicted "
                  "to make room for it",
                  p->ns, p->name, p->affinity_error);
        ctl_memo_put(&c->memo, key, s->now);
    }
}

/* The reasons of held tasks: a pod's dagsched.io/waiting-reason when it says something else
 * (paced by ctl_wait_due, within the round's annotation budget, in queue order) and the Waiting
 * Event when the reason changes, both queued (writer.h); a suspended Job's Waiting Event once per
 * reason (memo). Returns the annotation updates queued. */
static int report_waiting(ctl_controller *c, const ctl_snapshot *s, const ctl_release_in *in,
                          const ctl_release_out *out, int budget)
{
    int used = 0;
    for (size_t i = 0; i < out->n_wait; i++) {
        const ctl_wait *w = &out->wait[i];
        char msg[CTL_MSG_MAX], key[400];
        ctl_wait_message(in, w, msg, sizeof msg);
        if (w->kind == CTL_RELEASE_JOB) {
            const ctl_batch_job *j = &s->job[w->idx];
            snprintf(key, sizeof key, "waiting-job/%.300s/%s", j->uid,
                     ctl_wait_reason_name(w->reason));
            if (ctl_memo_get(&c->memo, key) >= 0)
                continue;
            ctl_act_waiting_job(c, s, w->idx, msg);
            ctl_memo_put(&c->memo, key, s->now);
            continue;
        }
        if (used >= budget)
            continue;
        const ctl_pod *p = &s->pod[w->idx];
        snprintf(key, sizeof key, "waiting/%.300s", p->uid);
        bool changed;
        if (!ctl_wait_due(p->waiting_reason, msg, w->reason, ctl_memo_get(&c->memo, key), s->now,
                          &changed))
            continue;
        used++;
        if (ctl_act_waiting_pod(c, s, w->idx, msg, changed) == 0)
            ctl_memo_put(&c->memo, key, s->now);
    }
    return used;
}

/* The upcoming tasks of the snapshot (lib/upcoming.h) for the release rule; *n_out set to how
 * many. NULL with *n_out 0 when there are none or on allocation failure (logged: none is). */
static ctl_upcoming *upcoming_tasks(const ctl_snapshot *s, size_t *n_out)
{
    *n_out = 0;
    size_t total = ds_jobset_upcoming(&s->js, NULL, s->now, NULL, 0);
    if (total == 0)
        return NULL;
    ds_upcoming *u = calloc(total, sizeof *u);
    ctl_upcoming *out = calloc(total, sizeof *out);
    if (u == NULL || out == NULL) {
        free(u);
        free(out);
        KLOG_ERROR("release", "upcoming tasks: out of memory for %zu", total);
        return NULL;
    }
    total = ds_jobset_upcoming(&s->js, NULL, s->now, u, total);
    size_t n = 0;
    for (size_t i = 0; i < total; i++) {
        const ds_job *j = &s->js.jobs[u[i].job];
        double prio = j->eval != NULL ? j->eval[u[i].task].priority : NAN;
        /* The job model's pods are the view's pods, then the batch Jobs (not upcoming here). */
        if (u[i].pod != DS_NONE && u[i].pod >= s->n_pod)
            continue;
        out[n++] = (ctl_upcoming){.pod = u[i].pod != DS_NONE ? u[i].pod : SIZE_MAX,
                                  .request = u[i].request,
                                  .priority = isfinite(prio) ? prio : -INFINITY,
                                  .queue_pos = s->queue_pos[s->pos_base[u[i].job] + u[i].task],
                                  .ready_since = u[i].ready_since,
                                  .ns = j->ns,
                                  .job_name = j->name,
                                  .task_name = j->dag.tasks[u[i].task].name};
    }
    free(u);
    *n_out = n;
    return out;
}

/* At debug level, once per upcoming task: the room kept for it. */
static void log_kept(ctl_controller *c, const ctl_snapshot *s, const ctl_release_in *in,
                     const ctl_release_out *out)
{
    if (!kube_log_enabled(KUBE_LOG_DEBUG))
        return;
    for (size_t i = 0; i < out->n_kept; i++) {
        const ctl_upcoming *u = &in->upcoming[out->kept[i].idx];
        char key[700];
        snprintf(key, sizeof key, "kept/%.253s/%.253s/%.150s", u->ns, u->job_name, u->task_name);
        if (ctl_memo_get(&c->memo, key) >= 0)
            continue;
        size_t node = out->kept[i].node;
        KLOG_DEBUG("release",
                   "room kept on node %s for task %s of job %s/%s: ready %.1fs ago, its pod is "
                   "not created yet",
                   node < s->n_node ? s->node[node].name : "?", u->task_name, u->ns, u->job_name,
                   s->now - u->ready_since);
        ctl_memo_put(&c->memo, key, s->now);
    }
}

/* The dominant share of each tenant with DAG tasks (spec.fairness), and 0 once for a tenant that
 * had a series and has no DAG task any more (or every tenant, with fairness off). */
static void report_tenants(ctl_controller *c, const ctl_release_out *out)
{
    size_t kept = 0;
    for (size_t i = 0; i < c->n_tenant_series; i++) {
        bool still = false;
        for (size_t k = 0; k < out->n_tenants && !still; k++)
            still = strcmp(out->tenants[k].name, c->tenant_series[i]) == 0;
        if (still) {
            c->tenant_series[kept++] = c->tenant_series[i];
            continue;
        }
        const char *lv[] = {c->tenant_series[i]};
        metrics_set(c->m.tenant_share, lv, 0);
        free(c->tenant_series[i]);
    }
    c->n_tenant_series = kept;
    for (size_t k = 0; k < out->n_tenants; k++) {
        const ctl_tenant_share *t = &out->tenants[k];
        const char *lv[] = {t->name};
        metrics_set(c->m.tenant_share, lv, t->share);
        bool known = false;
        for (size_t i = 0; i < c->n_tenant_series && !known; i++)
            known = strcmp(c->tenant_series[i], t->name) == 0;
        if (known || c->n_tenant_series >= CTL_TENANT_SERIES_MAX)
            continue;
        char *name = strdup(t->name);
        char **grown = realloc(c->tenant_series, (c->n_tenant_series + 1) * sizeof *grown);
        if (name == NULL || grown == NULL) {
            free(name);
            if (grown != NULL)
                c->tenant_series = grown;
            KLOG_ERROR("release", "tenant metrics: out of memory");
            continue;
        }
        c->tenant_series = grown;
        c->tenant_series[c->n_tenant_series++] = name;
    }
}

/* A gang unreleased longer than spec.gang.timeout (from when its first member became ready): one
 * Warning Event GangTimeout on its first member, then again every CTL_GANG_TIMEOUT_REPEAT_S while
 * it still waits (memo); it keeps waiting. */
#define CTL_GANG_TIMEOUT_REPEAT_S 3600.0

static void report_gang_timeouts(ctl_controller *c, const ctl_snapshot *s, const ds_policy *pol,
                                 const ctl_release_out *out)
{
    for (size_t i = 0; i < out->n_gangs; i++) {
        const ctl_gang *g = &out->gangs[i];
        if (!g->waiting || g->pod >= s->n_pod ||
            !ds_gang_timed_out(g->g.ready_since, s->now, pol->gang_timeout_s))
            continue;
        const ctl_pod *p = &s->pod[g->pod];
        char key[400];
        snprintf(key, sizeof key, "gang-timeout/%.100s/%.100s/%.64s", p->ns,
                 p->task.job_name != NULL ? p->task.job_name : "?", g->g.name);
        if (!ctl_memo_due(&c->memo, key, s->now, CTL_GANG_TIMEOUT_REPEAT_S))
            continue;
        char msg[CTL_MSG_MAX];
        snprintf(msg, sizeof msg,
                 "gang %.64s of job %.100s has waited %.0fs, past spec.gang.timeout (%.0fs), and "
                 "may never fit: %.200s; none of its %zu members is released until all of them "
                 "are ready and fit",
                 g->g.name, p->task.job_name != NULL ? p->task.job_name : "?",
                 s->now - g->g.ready_since, pol->gang_timeout_s,
                 g->why[0] != '\0' ? g->why : "waiting for its members", g->g.count.size);
        ctl_event_pod(c, p, "Warning", DS_EV_GANG_TIMEOUT, msg);
        KLOG_WARN_F("release", CTL_POD_FIELDS(p, NULL, DS_EV_GANG_TIMEOUT), "pod %s/%s: %s", p->ns,
                    p->name, msg);
        metrics_add(c->m.gang_timeouts, NULL, 1);
        ctl_memo_put(&c->memo, key, s->now);
    }
}

/* Releases, nudges, ungates and the reasons of held tasks; returns the annotation updates made
 * for reasons (counted against --max-annotation-updates). held_for_room (n_pod flags, may be
 * NULL) is set for the gated pods held for lack of room: the preemption round's preemptors. */
static int do_release(ctl_controller *c, const ctl_snapshot *s, const ds_policy *pol,
                      const ds_res *reserved, bool *held_for_room, size_t *slots_left)
{
    *slots_left = SIZE_MAX; /* no limit, or no plan: preemption not limited by it */
    ctl_release_in in = {.reserved = reserved,
                         .pods = s->pod,
                         .n_pods = s->n_pod,
                         .jobs = s->job,
                         .n_jobs = s->n_job,
                         .nodes = s->node,
                         .n_nodes = s->n_node,
                         .model = s->js.jobs,
                         .n_model = s->js.n_jobs,
                         .admission = pol->release_admission,
                         .lookahead = pol->release_lookahead,
                         .hold_room = pol->release_hold_room,
                         .max_concurrent = pol->max_concurrent_releases,
                         .starvation_s = pol->order.starvation_s,
                         .namespaces = s->ns,
                         .n_namespaces = s->n_ns};
    ctl_fairness fairness = ctl_fairness_of(pol);
    in.fairness = &fairness;
    ctl_upcoming *upcoming = upcoming_tasks(s, &in.n_upcoming);
    in.upcoming = upcoming;
    ctl_release_out out;
    ds_err err = {{0}};
    if (ctl_release_plan(&in, &out, &err) != 0) {
        KLOG_ERROR("release", "%s", err.msg);
        free(upcoming);
        return 0;
    }
    log_kept(c, s, &in, &out);
    metrics_set(c->m.upcoming_kept, NULL, (double)out.n_kept);
    if (pol->max_concurrent_releases > 0) {
        size_t taken = out.in_flight + out.n_rel;
        *slots_left =
            taken < pol->max_concurrent_releases ? pol->max_concurrent_releases - taken : 0;
    }
    double gang_hold_s = ds_gang_hold_s(pol->cooldown_s);
    for (size_t i = 0; i < out.n_rel; i++) {
        char how[CTL_MSG_MAX];
        ctl_release_message(&in, &out.rel[i], how, sizeof how);
        if (out.rel[i].kind == CTL_RELEASE_POD)
            ctl_act_release_pod(c, s, out.rel[i].idx, how, out.rel[i].hold_node, gang_hold_s);
        else
            ctl_act_release_job(c, s, out.rel[i].idx, how);
    }
    /* Held for room, or for fair share while it lacks room too: a preemptor as before (deadline
     * urgency crosses tenants only as spec.preemption.crossNamespace allows). */
    for (size_t i = 0; held_for_room != NULL && i < out.n_wait; i++)
        if (out.wait[i].kind == CTL_RELEASE_POD &&
            (out.wait[i].reason == CTL_WAIT_NO_ROOM ||
             (out.wait[i].reason == CTL_WAIT_FAIR_SHARE && !out.wait[i].r.over_cap)))
            held_for_room[out.wait[i].idx] = true;
    report_tenants(c, &out);
    metrics_set(c->m.gangs_waiting, NULL, (double)out.gangs_waiting);
    report_gang_timeouts(c, s, pol, &out);
    for (int r = 0; r < CTL_WAIT_N; r++) {
        const char *lv[] = {ctl_wait_reason_name((ctl_wait_reason)r)};
        metrics_set(c->m.queue, lv, (double)out.by_reason[r]);
    }
    if (out.n_held > 0)
        KLOG_DEBUG("release",
                   "%zu ready tasks held (%zu no room, %zu behind a starving task, %zu by the "
                   "limit %zu, %zu for fair share), %zu released tasks not bound yet",
                   out.n_held, out.by_reason[CTL_WAIT_NO_ROOM], out.by_reason[CTL_WAIT_STARVING],
                   out.by_reason[CTL_WAIT_LIMIT], pol->max_concurrent_releases,
                   out.by_reason[CTL_WAIT_FAIR_SHARE], out.in_flight);
    int used = report_waiting(c, s, &in, &out, c->opt.max_annotation_updates);
    for (size_t i = 0; i < out.n_nudge; i++)
        ctl_act_nudge(c, s, out.nudge[i]);
    for (size_t i = 0; i < out.n_ungate; i++)
        ctl_act_ungate(c, s, out.ungate[i]);
    ctl_release_out_free(&out);
    free(upcoming);
    return used;
}

/* While tasks wait for room, say (at debug level) why each running task that is not evictable is
 * held back, once per pod and guard every GUARD_LOG_INTERVAL_S. */
#define GUARD_LOG_INTERVAL_S 600.0

static void log_guarded(ctl_controller *c, const ctl_snapshot *s, const ctl_preempt_out *out)
{
    if (!kube_log_enabled(KUBE_LOG_DEBUG))
        return;
    for (size_t i = 0; i < s->n_pod; i++) {
        const ctl_pod *p = &s->pod[i];
        ctl_guard g = out->guard[i];
        if (p->state != CTL_POD_BOUND || p->task.job == DS_NO_TASK || g == CTL_GUARD_OK ||
            g == CTL_GUARD_NOT_A_TASK || g == CTL_GUARD_NOT_RUNNING)
            continue;
        char key[400];
        snprintf(key, sizeof key, "guard/%.300s/%s", p->uid, ctl_guard_name(g));
        if (!ctl_memo_due(&c->memo, key, s->now, GUARD_LOG_INTERVAL_S))
            continue;
        char why[CTL_MSG_MAX];
        ctl_guard_describe(g, p, why, sizeof why);
        KLOG_DEBUG_F("preempt", CTL_POD_FIELDS(p, p->node, ctl_guard_name(g)),
                     "not evictable (%s): %s", ctl_guard_name(g), why);
        ctl_memo_put(&c->memo, key, s->now);
    }
}

/* At debug level, once per pod and GUARD_LOG_INTERVAL_S: the figures of each waiting DAG task
 * with a deadline that no eviction was planned for (why a deadline task still waits for room). */
static void log_unplanned(ctl_controller *c, const ctl_snapshot *s, const ctl_preempt_out *out,
                          const bool *held_for_room)
{
    if (!kube_log_enabled(KUBE_LOG_DEBUG))
        return;
    for (size_t i = 0; i < s->n_pod; i++) {
        const ctl_pod *p = &s->pod[i];
        bool waiting = p->state == CTL_POD_UNSCHEDULABLE ||
                       (p->state == CTL_POD_GATED && held_for_room != NULL && held_for_room[i]);
        if (!waiting || p->foreign || p->task.job == DS_NO_TASK ||
            !isfinite(p->task.eval.t_allow_s))
            continue;
        bool planned = false;
        for (size_t k = 0; k < out->n_ev && !planned; k++)
            planned = out->ev[k].preemptor == i;
        char key[400];
        snprintf(key, sizeof key, "unplanned/%.300s", p->uid);
        if (planned || !ctl_memo_due(&c->memo, key, s->now, GUARD_LOG_INTERVAL_S))
            continue;
        KLOG_DEBUG_F("preempt", CTL_POD_FIELDS(p, NULL, "no-eviction"),
                     "no eviction for %s/%s: slack %.1fs, job slack %.1fs over a path of %.1fs "
                     "(%zu task(s)), run time %.1fs, queue position %zu, %zu node selector "
                     "term(s)",
                     p->ns, p->name, p->task.eval.t_allow_s, p->task.job_slack_s,
                     p->task.job_path_s, p->task.job_steps, p->task.eval.t_rem_s, p->task.queue_pos,
                     p->n_node_selector);
        ctl_memo_put(&c->memo, key, s->now);
    }
}

/* Room freed by evictions (reserve.h): held for the preemptors that have not bound yet, and
 * what became of it counted once per eviction. NULL when nothing is held (or on error). */
static ds_res *reserve_room(ctl_controller *c, const ctl_snapshot *s, const ds_policy *pol,
                            ds_res **gated_room)
{
    ctl_reserve_out r;
    ds_err err = {{0}};
    if (ctl_reserve_plan(&c->ledger.ledger, s->pod, s->n_pod, s->node, s->n_node, s->now,
                         pol->cooldown_s, &r, &err) != 0) {
        KLOG_WARN("preempt", "reservations: %s", err.msg);
        return NULL;
    }
    for (size_t i = 0; i < r.n_fate; i++) {
        if (r.fate[i].fate == CTL_ROOM_RESERVED)
            continue;
        const ctl_ledger_entry *e = &c->ledger.ledger.e[r.fate[i].entry];
        char key[200];
        snprintf(key, sizeof key, "room/%.63s/%.3f", e->victim_uid, e->at);
        if (ctl_memo_get(&c->memo, key) >= 0)
            continue;
        const char *lv[] = {ctl_room_fate_name(r.fate[i].fate)};
        metrics_add(c->m.room, lv, 1);
        ctl_memo_put(&c->memo, key, s->now);
    }
    metrics_set(c->m.reserved, NULL, (double)r.n_res);
    ds_res *room = NULL;
    if (r.n_res > 0 && (room = calloc(s->n_node ? s->n_node : 1, sizeof *room)) != NULL)
        ctl_reserved_room(&r, s->n_node, room);
    /* For the release rule: room held for preemptors still gated. A released preemptor is in
     * flight, and the rule already lets in-flight pods take room first. */
    if (room != NULL && gated_room != NULL &&
        (*gated_room = calloc(s->n_node ? s->n_node : 1, sizeof **gated_room)) != NULL)
        for (size_t i = 0; i < r.n_res; i++)
            if (r.res[i].node < s->n_node && s->pod[r.res[i].preemptor].state == CTL_POD_GATED)
                ds_res_add(&(*gated_room)[r.res[i].node], &r.res[i].request);
    ctl_reserve_out_free(&r);
    return room;
}

/* No eviction planned, and every running DAG task that was not held back for another reason
 * belongs to an owner that would fail if it were evicted (lib/owner_retry.h): each urgent task
 * waiting for room gets a Warning Event saying so, once per cooldown, and is counted. */
static void report_unsaved(ctl_controller *c, const ctl_snapshot *s, const ds_policy *pol,
                           const bool *held_for_room, size_t n_unsafe)
{
    for (size_t i = 0; i < s->n_pod; i++) {
        const ctl_pod *p = &s->pod[i];
        bool waiting = p->state == CTL_POD_UNSCHEDULABLE ||
                       (p->state == CTL_POD_GATED && held_for_room != NULL && held_for_room[i]);
        if (!waiting || p->terminating || p->foreign || p->task.job == DS_NO_TASK ||
            !isfinite(p->task.eval.t_allow_s) ||
            !ds_dsp_is_urgent(&p->task.eval, pol->urgent_threshold_s))
            continue;
        char key[300];
        snprintf(key, sizeof key, "unsaved/%s", p->uid);
        if (!ctl_memo_due(&c->memo, key, s->now, pol->cooldown_s))
            continue;
        char msg[CTL_MSG_MAX];
        snprintf(msg, sizeof msg,
                 "Urgent and no room, but no eviction can make room for it: every running DAG "
                 "task that could (%zu) belongs to an owner that would fail if it were evicted (a "
                 "Job out of retries, an Argo Workflow whose template does not retry errors, a "
                 "bare pod). Give batch work a retry policy that survives evictions "
                 "(docs/dag-jobs.md) so that urgent work can preempt it",
                 n_unsafe);
        ctl_event_pod(c, p, "Warning", CTL_EV_UNSAVED, msg);
        KLOG_WARN_F("preempt", CTL_POD_FIELDS(p, NULL, CTL_EV_UNSAVED), "pod %s/%s: %s", p->ns,
                    p->name, msg);
        metrics_add(c->m.unsaved, NULL, 1);
        ctl_memo_put(&c->memo, key, s->now);
    }
}

static void do_preempt(ctl_controller *c, const ctl_snapshot *s, const ds_policy *pol,
                       const ds_res *reserved, const bool *held_for_room, size_t slots_left)
{
    ctl_preempt_in in = {.held_for_room = held_for_room,
                         .release_limited = slots_left != SIZE_MAX,
                         .release_slots = slots_left,
                         .pods = s->pod,
                         .n_pods = s->n_pod,
                         .nodes = s->node,
                         .n_nodes = s->n_node,
                         .dags = s->dags,
                         .n_jobs = s->js.n_jobs,
                         .policy = pol,
                         .ledger = &c->ledger.ledger,
                         .now = s->now,
                         .pbar_given = true,
                         .pbar_half = ctl_snapshot_pbar_half(s),
                         .reserved = reserved};
    ctl_preempt_out out;
    ds_err err = {{0}};
    int rc = ctl_preempt_plan(&in, &out, &err);
    if (rc != 0) {
        KLOG_ERROR("preempt", "%s", err.msg);
        return;
    }
    metrics_set(c->m.urgent, NULL, (double)out.n_urgent);
    size_t by_guard[CTL_GUARD_N] = {0};
    for (size_t i = 0; i < s->n_pod; i++)
        if (s->pod[i].state == CTL_POD_BOUND && s->pod[i].task.job != DS_NO_TASK &&
            (unsigned)out.guard[i] < CTL_GUARD_N)
            by_guard[out.guard[i]]++;
    char held[768];
    size_t at = 0;
    held[0] = '\0';
    for (int g = 0; g < CTL_GUARD_N; g++) {
        if (g == CTL_GUARD_NOT_A_TASK || g == CTL_GUARD_NOT_RUNNING)
            continue;
        const char *lv[] = {ctl_guard_name((ctl_guard)g)};
        metrics_set(c->m.guards, lv, (double)by_guard[g]);
        if (g != CTL_GUARD_OK && by_guard[g] > 0 && at < sizeof held) {
            int n =
                snprintf(held + at, sizeof held - at, "%s%s %zu",
                         at ? ", " : "; held back: ", ctl_guard_name((ctl_guard)g), by_guard[g]);
            at += n > 0 ? (size_t)n : 0;
        }
    }
    /* Waiting tasks that no eviction can save, and spent budgets: why nothing may be planned. */
    char refused[240] = "";
    if (out.n_too_late > 0 || out.n_job_late > 0 || out.budget_spent)
        snprintf(refused, sizeof refused, "; beyond saving: own deadline %zu, job's deadline %zu%s",
                 out.n_too_late, out.n_job_late, out.budget_spent ? "; eviction budget spent" : "");
    if (out.n_release_limit > 0) {
        size_t end = strlen(refused);
        snprintf(refused + end, sizeof refused - end,
                 "; %zu gated preemptor(s) wait for a release slot (maxConcurrentReleases %zu)",
                 out.n_release_limit, pol->max_concurrent_releases);
    }
    kube_log(out.n_ev > 0 ? KUBE_LOG_INFO : KUBE_LOG_DEBUG, "preempt",
             "%zu waiting (%zu urgent, %zu cooling down), %zu running (%zu evictable): %zu "
             "eviction(s) planned%s%s%s",
             out.n_waiting, out.n_urgent, out.n_cooling, out.n_running, out.n_evictable, out.n_ev,
             c->opt.dry_run ? " (dry run)" : "", held, refused);
    if (out.n_waiting > 0) {
        log_guarded(c, s, &out);
        log_unplanned(c, s, &out, held_for_room);
    }
    if (out.n_ev == 0 && by_guard[CTL_GUARD_OK] == 0 && by_guard[CTL_GUARD_OWNER_WOULD_FAIL] > 0)
        report_unsaved(c, s, pol, held_for_room, by_guard[CTL_GUARD_OWNER_WOULD_FAIL]);
    for (size_t i = 0; i < out.n_ev; i++)
        if (ctl_act_evict(c, s, pol, &out.ev[i]) != 0)
            break;
    ctl_preempt_out_free(&out);
}

/* DSP annotations: only values that changed, at most `budget` a round (what the waiting reasons
 * left of --max-annotation-updates), in the order and at the pace of publish.h, queued for the
 * writer thread (writer.h). */
static void do_publish(ctl_controller *c, const ctl_snapshot *s, const ds_policy *pol, int budget)
{
    size_t by_state[DS_TASK_FAILED + 1] = {0};
    for (size_t i = 0; i < s->n_pod; i++)
        if (s->pod[i].task.evaluated && (unsigned)s->pod[i].task.state <= DS_TASK_FAILED)
            by_state[s->pod[i].task.state]++;
    for (int st = 0; st <= DS_TASK_FAILED; st++) {
        const char *lv[] = {ds_task_state_name((ds_task_state)st)};
        metrics_set(c->m.tasks, lv, (double)by_state[st]);
    }
    size_t *order = calloc(s->n_pod ? s->n_pod : 1, sizeof *order);
    long n = order != NULL ? ctl_publish_order(s->pod, s->n_pod, order) : -1;
    for (long k = 0; k < n && budget > 0; k++) {
        const ctl_pod *p = &s->pod[order[k]];
        const kube_meta *m = s->pods.items[order[k]];
        if (p->foreign)
            continue; /* another scheduler's pod: not annotated */
        ctl_dsp_values v;
        ctl_publish_values(&p->task, &v);
        if (!ctl_publish_differs(&v, kube_meta_annotation(m, DS_ANN_PRIORITY),
                                 kube_meta_annotation(m, DS_ANN_SLACK),
                                 kube_meta_annotation(m, DS_ANN_LEVEL_DEADLINE)))
            continue;
        char key[300];
        snprintf(key, sizeof key, "publish/%s", p->uid);
        double last = ctl_memo_get(&c->memo, key);
        bool urgent = ds_dsp_is_urgent(&p->task.eval, pol->urgent_threshold_s);
        bool cooling = p->state != CTL_POD_BOUND &&
                       ctl_guard_preemptor_cooling(pol, &c->ledger.ledger, p, s->now);
        if (!ctl_publish_due(p, last, s->now, urgent, cooling))
            continue;
        if (ctl_act_publish(c, s, order[k], &v) == 0)
            ctl_memo_put(&c->memo, key, s->now);
        budget--;
    }
    if (n < 0)
        KLOG_ERROR("publish", "out of memory ordering %zu pods", s->n_pod);
    free(order);
}

/* The learned run times (runtime_store.h): written at most every CTL_RT_SAVE_EVERY_S. */
static void save_runtimes(ctl_controller *c, const ctl_snapshot *s)
{
    if (s->n_learned > 0)
        KLOG_DEBUG("runtimes", "%zu run(s) recorded", s->n_learned);
    ds_err err = {{0}};
    if (ctl_runtime_store_save(&c->runtimes, s->now, &err) < 0) {
        KLOG_WARN("runtimes", "saving configmap %s/%s: %s (retried)", c->runtimes.ns,
                  c->runtimes.name, err.msg);
        const char *lv[] = {"runtimes"};
        metrics_add(c->m.api_errors, lv, 1);
    }
}

static double thread_cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return NAN;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ctl_round(ctl_controller *c)
{
    double t0 = rt_mono_now(), cpu0 = thread_cpu_now();
    bool healthy = caches_healthy(c);
    metrics_set(c->m.healthy, NULL, healthy ? 1 : 0);
    metrics_set(c->m.leader, NULL, ctl_may_write(c) ? 1 : 0);
    if (!healthy) {
        if (c->was_healthy)
            KLOG_WARN("loop", "watches not synced or out of contact with the API server: no "
                              "action until they recover");
        c->was_healthy = false;
        count_round(c, "cache-not-ready");
        return;
    }
    if (!c->was_healthy)
        KLOG_INFO("loop", "watches synced and in contact: acting");
    c->was_healthy = true;
    refresh_policy(c);
    if (!ctl_may_write(c)) {
        count_round(c, "not-leader");
        if (c->outcomes_leading) { /* the next leader counts from when it leads */
            ctl_outcomes_free(&c->outcomes);
            c->outcomes_leading = false;
        }
        return;
    }
    ds_policy pol = c->policy.policy;
    if (atomic_load(&c->need_ledger)) {
        ds_err err = {{0}};
        if (ctl_ledger_store_load(&c->ledger, &err) == 0) {
            atomic_store(&c->need_ledger, false);
            KLOG_INFO("loop", "eviction ledger %s/%s loaded: %zu recent entries", c->ledger.ns,
                      c->ledger.name, c->ledger.ledger.n);
        } else {
            KLOG_ERROR("loop", "eviction ledger: %s (no eviction until it loads)", err.msg);
        }
    }
    if (atomic_load(&c->need_runtimes)) {
        ds_err err = {{0}};
        if (ctl_runtime_store_load(&c->runtimes, &err) == 0) {
            atomic_store(&c->need_runtimes, false);
            KLOG_INFO("loop", "learned run times %s/%s loaded: %zu task(s)", c->runtimes.ns,
                      c->runtimes.name, c->runtimes.history.n);
        } else {
            KLOG_WARN("loop",
                      "learned run times: %s (tasks without a run time count %gs until "
                      "it loads)",
                      err.msg, DS_DEFAULT_RUNTIME_S);
        }
    }
    ctl_snapshot s;
    ctl_work_round work;
    ds_err err = {{0}};
    if (take_snapshot(c, &pol, &work, &s, &err) != 0) {
        KLOG_ERROR("loop", "%s", err.msg);
        count_round(c, "error");
        return;
    }
    report_deferred(c, &s, &work);
    report_invalid_jobs(c, &s);
    report_invalid_pods(c, &s);
    report_invalid_affinity(c, &s);
    /* Room freed by evictions is held for their preemptors: neither released nor preempted into. */
    ds_res *gated_reserved = NULL;
    ds_res *reserved = reserve_room(c, &s, &pol, &gated_reserved);
    bool *held = calloc(s.n_pod ? s.n_pod : 1, sizeof *held); /* NULL: unschedulable pods only */
    size_t slots_left;
    int used = do_release(c, &s, &pol, gated_reserved, held, &slots_left);
    if (!atomic_load(&c->need_ledger))
        do_preempt(c, &s, &pol, reserved, held, slots_left);
    free(held);
    free(gated_reserved);
    free(reserved);
    do_publish(c, &s, &pol, c->opt.max_annotation_updates - used);
    record_outcomes(c, &s);
    save_runtimes(c, &s);
    /* The round's releases, sent by the release window meanwhile, are made before the next
     * round's snapshot: it sees them released. */
    ctl_releaser_wait(&c->releaser);
    ctl_memo_prune(&c->memo, s.now - (pol.cooldown_s > 3600 ? pol.cooldown_s : 3600));
    ctl_snapshot_free(&s);
    ctl_work_round_free(&work);
    count_round(c, "acted");
    metrics_observe(c->m.duration, NULL, rt_mono_now() - t0);
    double cpu = thread_cpu_now() - cpu0;
    if (isfinite(cpu) && cpu >= 0)
        metrics_observe(c->m.round_cpu, NULL, cpu);
}

void ctl_loop(ctl_controller *c)
{
    ctl_cadence cd;
    ctl_cadence_init(&cd);
    while (!atomic_load(&c->stop)) {
        pthread_mutex_lock(&c->mu);
        bool kicked = c->kicked, urgent = c->kicked_urgent;
        pthread_mutex_unlock(&c->mu);
        double wait;
        ctl_cadence_step step =
            ctl_cadence_next(&cd, rt_mono_now(), c->policy.policy.preemption.epoch_s,
                             c->opt.min_round_interval_s, kicked, urgent, &wait);
        if (step != CTL_CADENCE_WAIT) {
            pthread_mutex_lock(&c->mu);
            c->kicked = false;
            c->kicked_urgent = false;
            pthread_mutex_unlock(&c->mu);
            if (step == CTL_CADENCE_URGENT)
                metrics_add(c->m.urgent_rounds, NULL, 1);
            ctl_round(c);
            ctl_cadence_done(&cd, rt_mono_now());
            continue;
        }
        pthread_mutex_lock(&c->mu);
        /* A kick already seen was counted in `wait`; only a new one needs to wake the loop. */
        if (c->kicked == kicked && c->kicked_urgent == urgent && !atomic_load(&c->stop))
            rt_cond_wait_s(&c->cv, &c->mu, wait);
        pthread_mutex_unlock(&c->mu);
    }
}
