/* actions.c: the controller's writes to the cluster, kept thin: releases (scheduling gate removal,
 * Job resumption), nudges, Events and evictions, made at once; DSP annotations and waiting
 * reasons, queued for the writer thread (writer.h) (see controller.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller.h"
#include "clock.h"
#include "kutil.h"
#include "log.h"
#include "logfields.h"
#include "room_hold.h"
#include "writes.h"

static void api_error(ctl_controller *c, const char *action)
{
    const char *lv[] = {action};
    metrics_add(c->m.api_errors, lv, 1);
}

static void post_event(ctl_controller *c, const kube_object_ref *ref, const char *type,
                       const char *reason, const char *message)
{
    ds_err err = {{0}};
    if (kube_create_event(c->client, ref, type, reason, message, CTL_COMPONENT, &err) != 0) {
        KLOG_WARN("events", "event %s on %s %s/%s: %s", reason, ref->kind, ref->ns, ref->name,
                  err.msg);
        api_error(c, "event");
    }
}

static void observe_request(ctl_controller *c, const char *request, double t0)
{
    const char *lv[] = {request};
    metrics_observe(c->m.release_request, lv, rt_mono_now() - t0);
}

static kube_object_ref pod_ref(const ctl_pod *p)
{
    return (kube_object_ref){
        .api_version = "v1", .kind = "Pod", .ns = p->ns, .name = p->name, .uid = p->uid};
}

static kube_object_ref job_ref(const ctl_batch_job *j)
{
    return (kube_object_ref){
        .api_version = "batch/v1", .kind = "Job", .ns = j->ns, .name = j->name, .uid = j->uid};
}

void ctl_event_pod(ctl_controller *c, const ctl_pod *pod, const char *type, const char *reason,
                   const char *message)
{
    kube_object_ref ref = pod_ref(pod);
    post_event(c, &ref, type, reason, message);
}

void ctl_event_object(ctl_controller *c, const kube_meta *m, const char *type, const char *reason,
                      const char *message)
{
    static const struct {
        kube_kind kind;
        const char *api_version, *name;
    } kinds[] = {{KUBE_KIND_POD, "v1", "Pod"},
                 {KUBE_KIND_CONFIGMAP, "v1", "ConfigMap"},
                 {KUBE_KIND_JOB, "batch/v1", "Job"},
                 {KUBE_KIND_WORKFLOW, "argoproj.io/v1alpha1", "Workflow"}};
    for (size_t i = 0; m != NULL && i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].kind == m->kind) {
            kube_object_ref ref = {.api_version = kinds[i].api_version,
                                   .kind = kinds[i].name,
                                   .ns = m->ns,
                                   .name = m->name,
                                   .uid = m->uid};
            post_event(c, &ref, type, reason, message);
            return;
        }
}

/* Queue an informational write (writer.h): 0 when queued or coalesced. */
static int queued(ctl_controller *c, const ctl_wq_write *w)
{
    ctl_wq_result r = ctl_writer_push(&c->writer, w);
    if (r == CTL_WQ_ADDED || r == CTL_WQ_COALESCED)
        return 0;
    KLOG_DEBUG("publish", "pod %s/%s: %s write not queued: %s", w->ns, w->name, w->kind,
               ctl_wq_result_name(r));
    return -1;
}

static void now_rfc3339(char *buf, size_t size)
{
    kube_format_microtime(rt_wall_now(), buf, size);
}

static void upstream_list(const ctl_snapshot *s, const ctl_task_info *t, char *buf, size_t size)
{
    const ds_job *j = ctl_snapshot_job_of(s, t);
    buf[0] = '\0';
    if (j == NULL || t->task >= j->dag.n)
        return;
    const ds_dag_task *dt = &j->dag.tasks[t->task];
    size_t off = 0;
    for (size_t i = 0; i < dt->n_up && off + 1 < size; i++) {
        int w =
            snprintf(buf + off, size - off, "%s%s", i ? ", " : "", j->dag.tasks[dt->up[i]].name);
        if (w < 0)
            break;
        off += (size_t)w;
    }
    if (dt->n_up == 0)
        snprintf(buf, size, "none");
}

/* A task released, as reported once its request succeeded (owned copies: a pod's release is
 * reported by a thread of the release window, after its round's snapshot may be gone). */
typedef struct release_note {
    char *ns, *name, *uid, *job, *task, *how, *up;
    const char *what, *done; /* constants: "pod" or "job", "released" or "resumed" */
    const char *api_version, *kind;
    double priority, created_at;
} release_note;

static void note_free(release_note *n)
{
    if (n == NULL)
        return;
    free(n->ns);
    free(n->name);
    free(n->uid);
    free(n->job);
    free(n->task);
    free(n->how);
    free(n->up);
    free(n);
}

static char *dup_or_null(const char *v, bool *ok)
{
    if (v == NULL)
        return NULL;
    char *d = strdup(v);
    if (d == NULL)
        *ok = false;
    return d;
}

/* what: "pod" or "job" (the metric label); done: "released" or "resumed"; how: the release rule's
 * words, "" or NULL for none. NULL when out of memory. */
static release_note *note_new(const ctl_snapshot *s, const ctl_task_info *t,
                              const kube_object_ref *ref, const char *what, const char *done,
                              const char *how, double created_at)
{
    release_note *n = calloc(1, sizeof *n);
    if (n == NULL)
        return NULL;
    char up[512];
    upstream_list(s, t, up, sizeof up);
    bool ok = true;
    n->ns = dup_or_null(ref->ns, &ok);
    n->name = dup_or_null(ref->name, &ok);
    n->uid = dup_or_null(ref->uid, &ok);
    n->job = dup_or_null(t->job_name, &ok);
    n->task = dup_or_null(t->task_name, &ok);
    n->how = dup_or_null(how != NULL ? how : "", &ok);
    n->up = dup_or_null(up, &ok);
    if (!ok) {
        note_free(n);
        return NULL;
    }
    n->what = what;
    n->done = done;
    n->api_version = ref->api_version;
    n->kind = ref->kind;
    n->priority = t->eval.priority;
    n->created_at = created_at;
    return n;
}

/* Event "Released" on the object (its message: "Released: its upstream tasks (a, b) have
 * succeeded; DSP priority 0.5; fits on node n3", or "Resumed: ..."), metrics (count, latency since
 * created), log line. */
static void note_report(ctl_controller *c, const release_note *n)
{
    char msg[CTL_MSG_MAX];
    bool has_how = n->how[0] != '\0';
    snprintf(msg, sizeof msg,
             "%c%s: its upstream tasks (%s) have succeeded; DSP priority %.3g%s%.600s",
             toupper((unsigned char)n->done[0]), n->done + 1, n->up, n->priority,
             has_how ? "; " : "", n->how);
    kube_object_ref ref = {.api_version = n->api_version,
                           .kind = n->kind,
                           .ns = n->ns,
                           .name = n->name,
                           .uid = n->uid};
    double t0 = rt_mono_now();
    post_event(c, &ref, "Normal", CTL_EV_RELEASED, msg);
    observe_request(c, "event", t0);
    const char *lv[] = {n->what};
    metrics_add(c->m.releases, lv, 1);
    double now = rt_wall_now();
    if (isfinite(n->created_at) && now >= n->created_at)
        metrics_observe(c->m.release_latency, lv, now - n->created_at);
    KLOG_INFO_F("release",
                KLOG_FIELDS(.pod = strcmp(n->what, "pod") == 0 ? n->name : NULL, .ns = n->ns,
                            .job = n->job, .task = n->task, .reason = n->how),
                "%s %s/%s %s (upstream %s succeeded, priority %.3g%s%s)", n->what, n->ns, n->name,
                n->done, n->up, n->priority, has_how ? "; " : "", n->how);
}

void ctl_act_ungate(ctl_controller *c, const ctl_snapshot *s, size_t i)
{
    if (!ctl_may_write(c))
        return;
    const ctl_pod *p = &s->pod[i];
    ds_err err = {{0}};
    if (kube_remove_scheduling_gate(c->client, p->ns, p->name, DS_GATE_DEPENDENCIES, &err) != 0) {
        KLOG_WARN("release", "pod %s/%s: removing gate %s: %s", p->ns, p->name,
                  DS_GATE_DEPENDENCIES, err.msg);
        api_error(c, "release");
        return;
    }
    const char *lv[] = {"outside_dag"};
    metrics_add(c->m.releases, lv, 1);
    const char *why = p->dagsched_error != NULL && p->dagsched_error[0] != '\0'
                          ? p->dagsched_error
                          : "no task of a valid DAG job (no dagsched.io/job label, or the job is "
                            "invalid)";
    KLOG_INFO_F("release", CTL_POD_FIELDS(p, NULL, why),
                "pod %s/%s: gate %s removed: %s (not a DAG task)", p->ns, p->name,
                DS_GATE_DEPENDENCIES, why);
}

/* The end of a pod's release, on the release window's thread that sent it (releaser.h). */
void ctl_release_done(void *ud, const ctl_release_req *r, int rc, const ds_err *err, double seconds)
{
    ctl_controller *c = ud;
    release_note *n = r->payload;
    if (rc == CTL_RELEASE_SKIPPED) { /* not sent: no longer the leader, or stopping */
        note_free(n);
        return;
    }
    const char *lv[] = {"patch"};
    metrics_observe(c->m.release_request, lv, seconds);
    if (rc < 0) {
        KLOG_WARN("release", "pod %s/%s: removing gate %s: %s", r->ns, r->name,
                  DS_GATE_DEPENDENCIES, err->msg);
        api_error(c, "release");
        note_free(n);
        return;
    }
    if (rc > 0)
        KLOG_WARN("release", "pod %s/%s: released without annotation %s: %s", r->ns, r->name,
                  DS_ANN_RELEASED_AT, err->msg);
    note_report(c, n);
    note_free(n);
}

bool ctl_release_may_write(void *ud)
{
    return ctl_may_write(ud);
}

void ctl_act_release_pod(ctl_controller *c, const ctl_snapshot *s, size_t i, const char *how,
                         const char *hold_node, double hold_s)
{
    if (!ctl_may_write(c))
        return;
    const ctl_pod *p = &s->pod[i];
    /* A waiting reason still queued must not land after the release removes it. */
    ctl_writer_cancel(&c->writer, p->ns, p->name, CTL_WQ_KIND_WAITING);
    /* One request: the gate goes, the release time is recorded and the waiting reason cleared;
     * sent by the release window (releaser.h), the round going on meanwhile. */
    /* dagsched.io/released-at: set by the window when it sends the request. */
    const char *kv[4] = {DS_ANN_WAITING_REASON, NULL};
    size_t n_kv = p->waiting_reason[0] != '\0' ? 1 : 0;
    char hold[320];
    if (hold_node != NULL) {
        /* A gang member: the room planned for it is held until it binds (lib/gang.h). */
        ds_room_hold_format(hold_node, rt_wall_now() + hold_s, hold, sizeof hold);
        kv[2 * n_kv] = DS_ANN_RESERVED_NODE;
        kv[2 * n_kv + 1] = hold;
        n_kv++;
    }
    kube_object_ref ref = pod_ref(p);
    release_note *n = note_new(s, &p->task, &ref, "pod", "released", how, p->created_at);
    if (n == NULL || ctl_releaser_submit(&c->releaser, p->ns, p->name, kv, n_kv, n) != 0) {
        KLOG_ERROR("release", "pod %s/%s: release not sent: out of memory (tried again next round)",
                   p->ns, p->name);
        api_error(c, "release");
        note_free(n);
    }
}

int ctl_act_waiting_pod(ctl_controller *c, const ctl_snapshot *s, size_t i, const char *msg,
                        bool changed)
{
    if (!ctl_may_write(c))
        return -1;
    const ctl_pod *p = &s->pod[i];
    if (changed)
        KLOG_DEBUG_F("release", CTL_POD_FIELDS(p, NULL, msg), "pod %s/%s waits: %s", p->ns, p->name,
                     msg);
    ctl_wq_write w = {.ns = p->ns,
                      .name = p->name,
                      .uid = p->uid,
                      .kind = CTL_WQ_KIND_WAITING,
                      .n_kv = 1,
                      .kv = {DS_ANN_WAITING_REASON, msg},
                      .event_reason = changed ? CTL_EV_WAITING : NULL,
                      .event_msg = changed ? msg : NULL};
    return queued(c, &w);
}

void ctl_act_waiting_job(ctl_controller *c, const ctl_snapshot *s, size_t i, const char *msg)
{
    if (!ctl_may_write(c))
        return;
    const ctl_batch_job *j = &s->job[i];
    kube_object_ref ref = job_ref(j);
    post_event(c, &ref, "Normal", CTL_EV_WAITING, msg);
    KLOG_DEBUG_F("release", CTL_JOB_FIELDS(j, msg), "job %s/%s waits: %s", j->ns, j->name, msg);
}

void ctl_act_release_job(ctl_controller *c, const ctl_snapshot *s, size_t i, const char *how)
{
    if (!ctl_may_write(c))
        return;
    const ctl_batch_job *j = &s->job[i];
    ds_err err = {{0}};
    if (kube_set_job_suspend(c->client, j->ns, j->name, false, &err) != 0) {
        KLOG_WARN("release", "job %s/%s: resuming: %s", j->ns, j->name, err.msg);
        api_error(c, "release");
        return;
    }
    kube_object_ref ref = job_ref(j);
    release_note *n = note_new(s, &j->task, &ref, "job", "resumed", how, j->created_at);
    if (n == NULL) {
        KLOG_ERROR("release", "job %s/%s resumed; not reported: out of memory", j->ns, j->name);
        return;
    }
    note_report(c, n);
    note_free(n);
}

void ctl_act_nudge(ctl_controller *c, const ctl_snapshot *s, size_t i)
{
    if (!ctl_may_write(c))
        return;
    const ctl_pod *p = &s->pod[i];
    char ts[40];
    now_rfc3339(ts, sizeof ts);
    const char *kv[] = {DS_ANN_UPSTREAM_SUCCEEDED_AT, ts};
    ds_err err = {{0}};
    if (kube_annotate_pod_pairs(c->client, p->ns, p->name, kv, 1, &err) != 0) {
        KLOG_WARN("nudge", "pod %s/%s: %s", p->ns, p->name, err.msg);
        api_error(c, "nudge");
        return;
    }
    metrics_add(c->m.nudges, NULL, 1);
    ctl_event_pod(c, p, "Normal", CTL_EV_NUDGED,
                  "All upstream tasks have succeeded; asked kube-scheduler to retry now");
    KLOG_INFO_F("nudge", CTL_POD_FIELDS(p, NULL, NULL),
                "pod %s/%s: upstream tasks succeeded, scheduling retried", p->ns, p->name);
}

int ctl_act_publish(ctl_controller *c, const ctl_snapshot *s, size_t i, const ctl_dsp_values *v)
{
    if (!ctl_may_write(c))
        return -1;
    const ctl_pod *p = &s->pod[i];
    ctl_wq_write w = {.ns = p->ns,
                      .name = p->name,
                      .uid = p->uid,
                      .kind = CTL_WQ_KIND_PUBLISH,
                      .n_kv = 3,
                      .kv = {DS_ANN_PRIORITY, v->priority, DS_ANN_SLACK, v->slack,
                             DS_ANN_LEVEL_DEADLINE, v->level_deadline}};
    return queued(c, &w);
}

/* ---- eviction ---- */

/* Reserve the freed room for the preemptor as kube-scheduler's own preemption does: with
 * status.nominatedNodeName set, kube-scheduler counts the preemptor's request on that node when it
 * places pods of lower or equal priority (such as the victim's replacement). kube-scheduler keeps
 * the nomination while the preemptor cannot preempt by itself (preemptionPolicy: Never, or a
 * victim of lower priority still terminating) and drops it once the pod is bound. */
static void nominate(ctl_controller *c, const ctl_pod *pre, const char *node)
{
    ds_err err = {{0}};
    if (kube_nominate_node(c->client, pre->ns, pre->name, node, &err) != 0) {
        KLOG_WARN("evict", "pod %s/%s: nominating node %s: %s", pre->ns, pre->name,
                  node != NULL ? node : "(none)", err.msg);
        api_error(c, "nominate");
    }
}

/* The annotation dagsched.io/reserved-node on the preemptor (lib/room_hold.h); an `until` of now
 * ends the hold. */
static void hold_room(ctl_controller *c, const ctl_pod *pre, const char *node, double until)
{
    char v[320];
    ds_room_hold_format(node, until, v, sizeof v);
    const char *kv[] = {DS_ANN_RESERVED_NODE, v};
    ds_err err = {{0}};
    if (kube_annotate_pod_pairs(c->client, pre->ns, pre->name, kv, 1, &err) != 0) {
        KLOG_WARN("evict", "pod %s/%s: holding node %s: %s", pre->ns, pre->name, node, err.msg);
        api_error(c, "hold");
    }
}

static void count_eviction(ctl_controller *c, const char *result, ds_preempt_reason r)
{
    const char *lv[] = {result, ds_reason_name(r)};
    metrics_add(c->m.evictions, lv, 1);
}

/* Re-read a pod (kube/writes.h decodes it); "" reason when it is still as planned. */
static int recheck(ctl_controller *c, const ctl_pod *p, bool want_bound, char *why, size_t size)
{
    const kube_pod *pod = NULL;
    long status = 0;
    ds_err err = {{0}};
    if (kube_get_pod(c->client, p->ns, p->name, NULL, &pod, &status, &err) != 0) {
        snprintf(why, size, "%s", status == 404 ? "it no longer exists" : err.msg);
        return status == 404 ? 1 : -1;
    }
    const char *uid = pod->meta.uid, *node = pod->node_name;
    why[0] = '\0';
    if (uid == NULL || strcmp(uid, p->uid) != 0)
        snprintf(why, size, "it was replaced by another pod of the same name");
    else if (pod->meta.deleting)
        snprintf(why, size, "it is already being deleted");
    else if (want_bound && (node == NULL || strcmp(node, p->node) != 0))
        snprintf(why, size, "it no longer runs on node %s", p->node);
    else if (!want_bound && node != NULL && node[0] != '\0')
        snprintf(why, size, "it has been scheduled to node %s meanwhile", node);
    else if (pod->phase == KUBE_POD_SUCCEEDED || pod->phase == KUBE_POD_FAILED)
        snprintf(why, size, "it has finished");
    kube_obj_unref(&pod->meta);
    return why[0] ? 1 : 0;
}

static void ledger_entry(ctl_ledger_entry *le, const ctl_pod *victim, const ctl_pod *pre,
                         const char *node, ds_preempt_reason r, double now, const ds_policy *p)
{
    memset(le, 0, sizeof *le);
    le->at = now;
    le->victim_long = ctl_pod_is_long_task(p, victim, now);
    snprintf(le->victim_ns, sizeof le->victim_ns, "%s", victim->ns);
    snprintf(le->victim_name, sizeof le->victim_name, "%s", victim->name);
    snprintf(le->victim_uid, sizeof le->victim_uid, "%s", victim->uid);
    snprintf(le->node, sizeof le->node, "%s", node);
    snprintf(le->preemptor_ns, sizeof le->preemptor_ns, "%s", pre->ns);
    snprintf(le->preemptor_name, sizeof le->preemptor_name, "%s", pre->name);
    snprintf(le->preemptor_uid, sizeof le->preemptor_uid, "%s", pre->uid);
    snprintf(le->reason, sizeof le->reason, "%s", ds_reason_name(r));
    snprintf(le->result, sizeof le->result, CTL_LEDGER_PENDING);
    if (victim->task.job_name != NULL && victim->task.task_name != NULL) {
        snprintf(le->victim_job, sizeof le->victim_job, "%s", victim->task.job_name);
        snprintf(le->victim_task, sizeof le->victim_task, "%s", victim->task.task_name);
    }
    if (pre->task.job_name != NULL && pre->task.task_name != NULL) {
        snprintf(le->preemptor_job, sizeof le->preemptor_job, "%s", pre->task.job_name);
        snprintf(le->preemptor_task, sizeof le->preemptor_task, "%s", pre->task.task_name);
    }
}

static void set_result(ctl_controller *c, const ctl_pod *victim, const char *result,
                       const ds_policy *p)
{
    ctl_ledger_set_result(&c->ledger.ledger, victim->uid, result);
    ds_err err = {{0}};
    if (ctl_ledger_store_save(&c->ledger, rt_wall_now(), ctl_budget_window(p), &err) != 0)
        KLOG_WARN("evict", "recording outcome %s of %s/%s: %s", result, victim->ns, victim->name,
                  err.msg);
}

static int evict_dry_run(ctl_controller *c, const ctl_pod *victim, const ctl_pod *pre,
                         const char *node, const ds_policy *p, const ctl_eviction *e)
{
    char key[600];
    snprintf(key, sizeof key, "dry-run/%s/%s", victim->uid, pre->uid);
    double now = rt_wall_now();
    double every = p->cooldown_s > 60.0 ? p->cooldown_s : 60.0;
    if (!ctl_memo_due(&c->memo, key, now, every))
        return 0; /* reported already */
    char vmsg[CTL_MSG_MAX], pmsg[CTL_MSG_MAX];
    ctl_victim_message(e, pre, victim, node, p, true, vmsg, sizeof vmsg);
    ctl_preemptor_message(e, pre, victim, node, p, true, pmsg, sizeof pmsg);
    KLOG_INFO_F("evict", CTL_POD_FIELDS(victim, node, ds_reason_name(e->reason)),
                "dry run: would evict %s/%s on %s for %s/%s (%s)", victim->ns, victim->name, node,
                pre->ns, pre->name, ds_reason_name(e->reason));
    ctl_event_pod(c, victim, "Normal", CTL_EV_WOULD_PREEMPT, vmsg);
    ctl_event_pod(c, pre, "Normal", CTL_EV_WOULD_PREEMPT, pmsg);
    count_eviction(c, "dry-run", e->reason);
    ctl_memo_put(&c->memo, key, now);
    return 0;
}

int ctl_act_evict(ctl_controller *c, const ctl_snapshot *s, const ds_policy *p,
                  const ctl_eviction *e)
{
    if (!ctl_may_write(c))
        return -1;
    const ctl_pod *victim = &s->pod[e->victim];
    const ctl_pod *pre = &s->pod[e->preemptor];
    const char *node = s->node[e->node].name;
    char why[600];
    /* Never act on a stale cache: both pods must still be as planned. */
    int rv = recheck(c, victim, true, why, sizeof why);
    int rp = rv == 0 ? recheck(c, pre, false, why, sizeof why) : 0;
    if (rv != 0 || rp != 0) {
        KLOG_INFO_F("evict", CTL_POD_FIELDS(victim, node, ds_reason_name(e->reason)),
                    "not evicting %s/%s for %s/%s: %s %s", victim->ns, victim->name, pre->ns,
                    pre->name, rv != 0 ? "the victim changed:" : "the preemptor changed:", why);
        count_eviction(c, "stale", e->reason);
        return (rv < 0 || rp < 0) ? -1 : 0;
    }
    if (c->opt.dry_run)
        return evict_dry_run(c, victim, pre, node, p, e);

    /* 1. Record it first: a restart or a new leader sees it whatever happens next. */
    double now = rt_wall_now();
    ds_err err = {{0}};
    /* The plan counted the budgets of the ledger the round loaded. One that must be loaded again
     * (a save failed, leadership changed since) may hold evictions the plan did not count: no
     * eviction on it; the next round loads it and plans again. */
    if (atomic_load(&c->need_ledger) || !c->ledger.loaded) {
        KLOG_WARN_F("evict", CTL_POD_FIELDS(victim, node, ds_reason_name(e->reason)),
                    "not evicting %s/%s for %s/%s: the eviction ledger changed since the plan "
                    "(planned again next round)",
                    victim->ns, victim->name, pre->ns, pre->name);
        count_eviction(c, "stale", e->reason);
        return -1;
    }
    ctl_ledger_entry le;
    ledger_entry(&le, victim, pre, node, e->reason, now, p);
    if (ctl_ledger_add(&c->ledger.ledger, &le, &err) != 0 ||
        ctl_ledger_store_save(&c->ledger, now, ctl_budget_window(p), &err) != 0) {
        KLOG_ERROR("evict", "cannot record the eviction of %s/%s, not evicting: %s", victim->ns,
                   victim->name, err.msg);
        api_error(c, "ledger");
        atomic_store(&c->need_ledger, true);
        return -1;
    }
    /* 2. Say why on the victim itself. */
    char reason[512], ts[40];
    ctl_explain_reason(e, pre, victim, p, reason, sizeof reason);
    char ann[700];
    snprintf(ann, sizeof ann, "for %s/%s on node %s: %s", pre->ns, pre->name, node, reason);
    kube_format_microtime(now, ts, sizeof ts);
    const char *kv[] = {DS_ANN_EVICTED_AT, ts, DS_ANN_EVICTION_REASON, ann};
    if (kube_annotate_pod_pairs(c->client, victim->ns, victim->name, kv, 2, &err) != 0) {
        KLOG_WARN("evict", "pod %s/%s: reason annotation: %s; not evicting", victim->ns,
                  victim->name, err.msg);
        set_result(c, victim, CTL_LEDGER_GONE, p);
        count_eviction(c, "error", e->reason);
        return 0;
    }
    if (!ctl_may_write(c)) {
        set_result(c, victim, CTL_LEDGER_GONE, p);
        return -1;
    }
    /* 3. Hold the room for the preemptor before it frees: the moment the victim is gone,
     * kube-scheduler may place a pod already in its queue (another task released ahead of room, a
     * replacement). The extender's filter keeps dagsched pods off held room
     * (lib/room_hold.h, for the cooldown, as the controller's own hold); the nomination tells
     * kube-scheduler, for the pods that are not dagsched's. Both undone when the eviction is
     * refused. */
    hold_room(c, pre, node, now + p->cooldown_s);
    nominate(c, pre, node);
    /* 4. The Eviction API, with the victim's UID as a precondition. */
    kube_evict_result r = kube_evict(c->client, victim->ns, victim->name, victim->uid, false, &err);
    char vmsg[CTL_MSG_MAX], pmsg[CTL_MSG_MAX];
    if (r == KUBE_EVICT_BLOCKED_PDB || r == KUBE_EVICT_NOT_FOUND) {
        nominate(c, pre, NULL);
        hold_room(c, pre, node, now);
    }
    switch (r) {
    case KUBE_EVICT_OK:
        /* The ledger holds the eviction as pending since step 1, so nothing is lost before the
         * outcome is recorded. */
        set_result(c, victim, CTL_LEDGER_EVICTED, p);
        if (pre->state == CTL_POD_GATED) { /* held by the release rule for lack of room */
            char how[600];
            snprintf(how, sizeof how, "room made on node %s by evicting %s/%s", node, victim->ns,
                     victim->name);
            ctl_act_release_pod(c, s, e->preemptor, how, NULL, 0);
        }
        ctl_victim_message(e, pre, victim, node, p, false, vmsg, sizeof vmsg);
        ctl_preemptor_message(e, pre, victim, node, p, false, pmsg, sizeof pmsg);
        ctl_event_pod(c, victim, "Warning", CTL_EV_PREEMPTED, vmsg);
        ctl_event_pod(c, pre, "Normal", CTL_EV_PREEMPTING, pmsg);
        count_eviction(c, "evicted", e->reason);
        KLOG_INFO_F("evict", CTL_POD_FIELDS(victim, node, ds_reason_name(e->reason)),
                    "evicted %s/%s on %s for %s/%s: %s", victim->ns, victim->name, node, pre->ns,
                    pre->name, reason);
        return 0;
    case KUBE_EVICT_BLOCKED_PDB:
        set_result(c, victim, CTL_LEDGER_REFUSED, p);
        snprintf(vmsg, sizeof vmsg,
                 "Eviction for %s/%s refused by a PodDisruptionBudget (%s); not retried before "
                 "the cooldown",
                 pre->ns, pre->name, err.msg);
        ctl_event_pod(c, victim, "Warning", CTL_EV_EVICTION_FAILED, vmsg);
        snprintf(pmsg, sizeof pmsg,
                 "Eviction of %s/%s refused by a PodDisruptionBudget; another victim may be "
                 "chosen next round",
                 victim->ns, victim->name);
        ctl_event_pod(c, pre, "Warning", CTL_EV_EVICTION_FAILED, pmsg);
        count_eviction(c, "refused", e->reason);
        KLOG_WARN_F("evict", CTL_POD_FIELDS(victim, node, ds_reason_name(e->reason)),
                    "eviction of %s/%s refused: %s", victim->ns, victim->name, err.msg);
        return 0;
    case KUBE_EVICT_NOT_FOUND:
        set_result(c, victim, CTL_LEDGER_GONE, p);
        count_eviction(c, "gone", e->reason);
        KLOG_INFO_F("evict", CTL_POD_FIELDS(victim, node, ds_reason_name(e->reason)),
                    "%s/%s was gone before its eviction", victim->ns, victim->name);
        return 0;
    case KUBE_EVICT_ERROR:
        break;
    }
    /* Unknown outcome: the ledger keeps it pending (it counts as made). */
    count_eviction(c, "error", e->reason);
    api_error(c, "evict");
    KLOG_ERROR_F("evict", CTL_POD_FIELDS(victim, node, ds_reason_name(e->reason)),
                 "evicting %s/%s: %s", victim->ns, victim->name, err.msg);
    return -1;
}
