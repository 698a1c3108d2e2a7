/* handlers.c: the extender verbs as pure functions of a request body and a snapshot (see
 * handlers.h). */
#include "handlers.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotations.h"
#include "argo_wf.h"
#include "kutil.h"
#include "model_input.h"
#include "owner_retry.h"
#include "pod_times.h"
#include "timefmt.h"

#define MISSING_MAX       512
#define MISSING_NAMES_MAX 64

void ext_outcome_clear(ext_outcome *o)
{
    if (o->pod != NULL)
        kube_obj_unref(&o->pod->meta);
    o->pod = NULL;
}

static void reply_take(ext_reply *r, int status, ds_bytebuf *b)
{
    size_t len;
    char *s = ds_bytebuf_take(b, &len);
    if (s == NULL) {
        r->status = 500;
        r->body = NULL;
        r->len = 0;
        return;
    }
    r->status = status;
    r->body = s;
    r->len = len;
}

static void reply_error(ext_reply *r, ext_outcome *o, ext_result_kind kind, int status,
                        const char *msg)
{
    o->kind = kind;
    snprintf(o->error, sizeof o->error, "%s", msg);
    ds_bytebuf b;
    ext_out_init(&b, strlen(msg) + 32);
    ext_emit_error(&b, msg);
    reply_take(r, status, &b);
}

static void reply_oom(ext_reply *r, ext_outcome *o)
{
    reply_error(r, o, EXT_INTERNAL, 500, "dagsched: out of memory");
}

/* ---- resolving the pod ---- */

typedef struct pod_ctx {
    const kube_pod *pod; /* reference */
    ext_pod_class cls;
    bool unlisted;     /* EXT_POD_HELD: an Argo pod whose node its Workflow does not list yet */
    const ds_job *job; /* valid job of a DAG pod, else NULL */
    size_t job_idx;
    size_t task; /* DS_NONE when unknown */
    ds_place_pod place;
    char missing[MISSING_MAX];
    /* The missing upstream tasks' names, for the live-cache check (all of them, or none when
     * there are more than fit). */
    const char *missing_names[MISSING_NAMES_MAX];
    size_t n_missing_names;
    char names_buf[MISSING_NAMES_MAX * (DS_NAME_VALUE_MAX + 1)];
} pod_ctx;

static void pod_ctx_free(pod_ctx *pc)
{
    if (pc->pod != NULL)
        kube_obj_unref(&pc->pod->meta);
    pc->pod = NULL;
}

/* metadata.<key> of the request's Pod as a short string, or "" */
static void pod_meta_str(const js_doc *d, long pod, const char *key, char *buf, size_t size)
{
    buf[0] = '\0';
    long meta = js_obj_get(d, (size_t)pod, "metadata");
    if (meta < 0)
        return;
    long v = js_obj_get(d, (size_t)meta, key);
    if (v < 0 || d->t[v].type != JS_STRING || js_str_decode(d, (size_t)v, buf, size) < 0)
        buf[0] = '\0';
}

/* The cached pod when the request's Pod is the version the snapshot has; else decode it. */
static int pod_object(const ext_snapshot *s, const js_doc *d, long pod, const kube_pod **out,
                      char err[EXT_ERR_MAX])
{
    char uid[EXT_UID_MAX + 1], rv[64];
    pod_meta_str(d, pod, "uid", uid, sizeof uid);
    pod_meta_str(d, pod, "resourceVersion", rv, sizeof rv);
    if (uid[0] != '\0' && rv[0] != '\0') {
        size_t idx = ds_jobset_find_pod(&s->jobs, uid);
        if (idx != DS_NONE && idx < s->n_pods) {
            const kube_pod *p = s->pods[idx];
            if (p->meta.resource_version != NULL && strcmp(p->meta.resource_version, rv) == 0) {
                kube_obj_ref(&p->meta);
                *out = p;
                return 0;
            }
        }
    }
    size_t len;
    const char *js = ext_pod_json(d, pod, &len);
    json_error_t je;
    /* JSON_ALLOW_NUL: an annotation value may hold "\u0000" (the API server accepts it); the
     * decoder checks every string it keeps for NUL characters. */
    json_t *j = json_loadb(js, len, JSON_ALLOW_NUL, &je);
    if (j == NULL) {
        snprintf(err, EXT_ERR_MAX, "Pod: %s", je.text);
        return -1;
    }
    /* Decoded as the snapshot's pods were: with its policy's gpuResourceNames. */
    const char *gpu[DS_POLICY_MAX_LIST];
    kube_decode_opts opts = {.gpu_names = gpu,
                             .n_gpu_names = ds_name_list_ptrs(&s->policy.gpu_resource_names, gpu)};
    kube_meta *m = NULL;
    ds_err derr;
    int rc = kube_obj_decode(KUBE_KIND_POD, j, &opts, &m, &derr);
    json_decref(j);
    if (rc != 0) {
        kutil_sfmt(err, EXT_ERR_MAX, "Pod: %s", derr.msg);
        return -1;
    }
    *out = (const kube_pod *)m;
    return 0;
}

/* Remember the name of a missing upstream task; past MISSING_NAMES_MAX the list is dropped (the
 * live-cache check then does not apply). */
static void note_missing(pod_ctx *pc, const char *name, size_t *used, bool *overflow)
{
    size_t l = strlen(name);
    if (*overflow || pc->n_missing_names == MISSING_NAMES_MAX ||
        *used + l + 1 > sizeof pc->names_buf) {
        *overflow = true;
        pc->n_missing_names = 0;
        return;
    }
    memcpy(pc->names_buf + *used, name, l + 1);
    pc->missing_names[pc->n_missing_names++] = pc->names_buf + *used;
    *used += l + 1;
}

/* Upstream tasks named by the pod's own depends-on annotation that the job model has not seen
 * succeed (the pod, or its job, is not in the snapshot yet). 1 when some are missing, 0 when none,
 * -1 when the annotation is malformed (note set). */
static int missing_from_annotation(pod_ctx *pc, const ds_job *job, char *out, size_t size,
                                   char *note, size_t note_size)
{
    size_t names_used = 0;
    bool names_overflow = false;
    out[0] = '\0';
    const char *dep = kube_meta_annotation(&pc->pod->meta, DS_ANN_DEPENDS_ON);
    if (dep == NULL)
        return 0;
    size_t max = ds_depends_on_max_entries(dep);
    ds_span *spans = calloc(max ? max : 1, sizeof *spans);
    if (spans == NULL) {
        snprintf(note, note_size, "out of memory reading %s", DS_ANN_DEPENDS_ON);
        return -1;
    }
    size_t n = 0;
    ds_err err;
    if (ds_depends_on_parse(dep, spans, &n, &err) != 0) {
        kutil_sfmt(note, note_size, "annotation %s: %s", DS_ANN_DEPENDS_ON, err.msg);
        free(spans);
        return -1;
    }
    size_t pos = 0, n_missing = 0, n_listed = 0;
    bool full = false;
    for (size_t i = 0; i < n; i++) {
        char name[DS_NAME_VALUE_MAX + 1];
        size_t l = spans[i].len < DS_NAME_VALUE_MAX ? spans[i].len : DS_NAME_VALUE_MAX;
        memcpy(name, dep + spans[i].off, l);
        name[l] = '\0';
        size_t t;
        if (job != NULL && ds_dag_find(&job->dag, name, &t) == 0 &&
            job->status[t].state == DS_TASK_SUCCEEDED)
            continue;
        n_missing++;
        note_missing(pc, name, &names_used, &names_overflow);
        if (full)
            continue;
        /* Keep room for " and N more". */
        int w = snprintf(out + pos, size - pos, "%s%s", pos > 0 ? ", " : "", name);
        if (w < 0 || (size_t)w >= size - pos - 24) {
            out[pos] = '\0';
            full = true;
            continue;
        }
        pos += (size_t)w;
        n_listed++;
    }
    if (n_missing > n_listed)
        snprintf(out + pos, size - pos, "%sand %zu more", pos > 0 ? " " : "", n_missing - n_listed);
    free(spans);
    return n_missing > 0;
}

static void set_outcome_pod(ext_outcome *o, const kube_pod *p)
{
    snprintf(o->pod_ns, sizeof o->pod_ns, "%s", p->meta.ns != NULL ? p->meta.ns : "");
    snprintf(o->pod_name, sizeof o->pod_name, "%s", p->meta.name != NULL ? p->meta.name : "");
    snprintf(o->pod_uid, sizeof o->pod_uid, "%s", p->meta.uid != NULL ? p->meta.uid : "");
    snprintf(o->job, sizeof o->job, "%s", p->job_key != NULL ? p->job_key : "");
    snprintf(o->task, sizeof o->task, "%s", p->task_name != NULL ? p->task_name : "");
}

static void mark_invalid(pod_ctx *pc, ext_outcome *o, const char *why)
{
    pc->cls = EXT_POD_INVALID_JOB;
    pc->job = NULL;
    pc->task = DS_NONE;
    snprintf(o->note, sizeof o->note, "%s", why);
    o->pod = (const kube_pod *)kube_obj_ref(&pc->pod->meta);
}

/* A pod of an invalid job, or with a pod error, that may depend on other tasks: refused every
 * node until its job is fixed (running it could start it before its upstream tasks). */
static void mark_held(pod_ctx *pc, ext_outcome *o, const char *why, bool holds)
{
    mark_invalid(pc, o, why);
    if (holds)
        pc->cls = EXT_POD_HELD;
}

/* The snapshot says some upstream tasks have not succeeded. It may be a moment behind the cluster:
 * kube-scheduler retries a waiting pod as soon as it sees an upstream pod finish, possibly before
 * the snapshot is rebuilt, and rejecting the pod then would leave it waiting for another cluster
 * event. So ask the live caches, which hold every watch event as soon as it arrives. */
static bool live_upstream_done(const ext_ctx *c, const kube_pod *p, const pod_ctx *pc,
                               ext_outcome *o)
{
    if (c->tasks_succeeded == NULL || pc->n_missing_names == 0 || p->job_key == NULL)
        return false;
    if (!c->tasks_succeeded(c->tasks_user, p->meta.ns != NULL ? p->meta.ns : "", p->job_key,
                            pc->missing_names, pc->n_missing_names))
        return false;
    o->live_override = true;
    return true;
}

/* Is the pod dagsched's: of the scheduler named in c (every pod when none is named)? */
static bool opted_in(const ext_ctx *c, const kube_pod *p)
{
    if (c->scheduler_name == NULL || c->scheduler_name[0] == '\0')
        return true;
    const char *n = p->scheduler_name;
    return strcmp(n != NULL && n[0] != '\0' ? n : "default-scheduler", c->scheduler_name) == 0;
}

/* Classify the pod and fill its placement view. */
static int resolve_pod(const ext_ctx *c, const ext_snapshot *s, const js_doc *d, long pod,
                       pod_ctx *pc, ext_outcome *o, char err[EXT_ERR_MAX])
{
    memset(pc, 0, sizeof *pc);
    pc->task = DS_NONE;
    pc->job_idx = DS_NONE;
    if (pod_object(s, d, pod, &pc->pod, err) != 0)
        return -1;
    const kube_pod *p = pc->pod;
    set_outcome_pod(o, p);
    pc->place.request = p->requests;
    pc->place.runtime_s = 0;
    pc->place.level_deadline = INFINITY;
    pc->place.criticality = 0;
    if (p->meta.dagsched_error != NULL) {
        pc->cls = EXT_POD_INVALID_POD;
        snprintf(o->note, sizeof o->note, "%s", p->meta.dagsched_error);
        return 0;
    }
    if (p->job_key == NULL || !opted_in(c, p)) {
        pc->cls = EXT_POD_OUTSIDE;
        return 0;
    }

    const ds_jobset *js = &s->jobs;
    size_t idx = p->meta.uid != NULL ? ds_jobset_find_pod(js, p->meta.uid) : DS_NONE;
    const ds_job *job = NULL;
    if (idx != DS_NONE && idx < js->n_pods && js->pods[idx].job != DS_NONE) {
        if (js->pods[idx].error != NULL) {
            char why[DS_ERR_MAX];
            snprintf(why, sizeof why, "%s", js->pods[idx].error);
            mark_held(pc, o, why, ds_jobset_pod_must_wait(js, idx));
            pc->unlisted = js->pods[idx].unlisted;
            return 0;
        }
        pc->job_idx = js->pods[idx].job;
        job = &js->jobs[pc->job_idx];
        pc->task = js->pods[idx].task;
    } else {
        job = ds_jobset_find_job(js, p->meta.ns != NULL ? p->meta.ns : "", p->job_key);
        if (job != NULL)
            pc->job_idx = (size_t)(job - js->jobs);
    }
    if (job != NULL && !job->valid) {
        char why[DS_ERR_MAX];
        snprintf(why, sizeof why, "job %s is invalid: %s", job->key,
                 job->error != NULL ? job->error : "unknown error");
        bool depends =
            idx != DS_NONE && idx < js->n_pods
                ? js->pods[idx].depends
                : ds_depends_on_declared(kube_meta_annotation(&p->meta, DS_ANN_DEPENDS_ON));
        mark_held(pc, o, why, ds_job_holds_pod(job, depends));
        return 0;
    }
    /* A task the snapshot knows only as another task's upstream (no pod yet) says nothing of this
     * pod's own dependencies: go by its annotations below. */
    if (job != NULL && pc->task == DS_NONE && p->task_name != NULL) {
        size_t t;
        if (ds_dag_find(&job->dag, p->task_name, &t) == 0 &&
            (job->missing == NULL || !job->missing[t]))
            pc->task = t;
    }

    if (job != NULL && pc->task != DS_NONE) {
        pc->job = job;
        size_t t = pc->task;
        if (ds_job_pending_upstream(job, t, pc->missing, sizeof pc->missing) > 0) {
            const ds_dag_task *dt = &job->dag.tasks[t];
            size_t used = 0;
            bool overflow = false;
            for (size_t k = 0; k < dt->n_up; k++)
                if (job->status[dt->up[k]].state != DS_TASK_SUCCEEDED)
                    note_missing(pc, job->dag.tasks[dt->up[k]].name, &used, &overflow);
            if (!live_upstream_done(c, p, pc, o)) {
                pc->cls = EXT_POD_BLOCKED;
                snprintf(o->note, sizeof o->note, "%s", pc->missing);
                return 0;
            }
        }
        pc->cls = EXT_POD_DAG;
        pc->place.runtime_s = job->dag.tasks[t].runtime_s;
        pc->place.level_deadline = job->level_deadline[job->dag.tasks[t].level];
        double rank = ds_jobset_wait_rank(js, job, t);
        pc->place.criticality = rank > 0 ? rank : 0;
        return 0;
    }

    /* The job model does not know this task yet (its pod is newer than the snapshot): go by the
     * pod's own annotations. */
    char note[DS_ERR_MAX];
    int m = missing_from_annotation(pc, job, pc->missing, sizeof pc->missing, note, sizeof note);
    if (m < 0) {
        mark_invalid(pc, o, note);
        return 0;
    }
    if (m > 0 && !live_upstream_done(c, p, pc, o)) {
        pc->cls = EXT_POD_BLOCKED;
        snprintf(o->note, sizeof o->note, "%s", pc->missing);
        return 0;
    }
    /* Its run time and deadline as the job model will read them: a value the model refuses
     * makes the job invalid there, so it does here too. */
    ds_pod_times times;
    ds_err terr = {{0}};
    if (ds_pod_times_parse(kube_meta_annotation(&p->meta, DS_ANN_RUNTIME),
                           kube_meta_annotation(&p->meta, DS_ANN_DEADLINE),
                           kube_meta_annotation(&p->meta, DS_ANN_DEADLINE_AFTER), &times,
                           &terr) != 0) {
        char why[DS_ERR_MAX];
        kutil_sfmt(why, sizeof why, "pod %s: %s", p->meta.name != NULL ? p->meta.name : "?",
                   terr.msg);
        /* Held when it names upstream tasks (running it could start it before them), as the
         * job model holds the tasks of an invalid job. */
        mark_held(pc, o, why, m > 0 || kube_meta_annotation(&p->meta, DS_ANN_DEPENDS_ON) != NULL);
        return 0;
    }
    pc->cls = EXT_POD_DAG;
    pc->job = NULL; /* no task index: no DSP priority or criticality yet */
    /* Without the DAG the level deadline is not known; the job deadline bounds it from above
     * (exact for tasks of the last level), so the deadline test never rejects a node wrongly. */
    if (times.runtime_set)
        pc->place.runtime_s = times.runtime_s;
    if (times.deadline_kind == DS_DEADLINE_ABSOLUTE)
        pc->place.level_deadline = times.deadline;
    else if (times.deadline_kind == DS_DEADLINE_AFTER && p->meta.creation_ts > 0)
        pc->place.level_deadline = p->meta.creation_ts + times.deadline;
    return 0;
}

/* The part of every verb's prologue after parsing: snapshot check, resolve the pod. 0 to go on. */
static int begin_pod(const ext_ctx *c, const ext_snapshot *s, const js_doc *doc, long pod,
                     size_t n_nodes, pod_ctx *pc, ext_reply *r, ext_outcome *o)
{
    o->n_nodes = n_nodes;
    if (s == NULL) {
        reply_error(r, o, EXT_NOT_READY, 503,
                    "dagsched: the extender's caches have not synced yet; retry");
        return -1;
    }
    char err[EXT_ERR_MAX];
    if (resolve_pod(c, s, doc, pod, pc, o, err) != 0) {
        reply_error(r, o, EXT_BAD_REQUEST, 400, err);
        return -1;
    }
    o->pod_class = pc->cls;
    return 0;
}

/* Parse filter or prioritize arguments; 0 to go on, else the 400 answer is written. */
static int parse_args(const ext_ctx *c, const char *body, size_t len, ext_args *a, ext_reply *r,
                      ext_outcome *o)
{
    char err[EXT_ERR_MAX];
    if (ext_parse_args(body, len, &c->limits, a, err) == 0)
        return 0;
    reply_error(r, o, EXT_BAD_REQUEST, 400, err);
    return -1;
}

/* Filter and prioritize prologue: parse, snapshot check, resolve the pod. 0 to go on; else the
 * answer is written and a and pc are released. */
static int begin(const ext_ctx *c, const ext_snapshot *s, const char *body, size_t len, ext_args *a,
                 pod_ctx *pc, ext_reply *r, ext_outcome *o)
{
    memset(o, 0, sizeof *o);
    memset(pc, 0, sizeof *pc);
    if (parse_args(c, body, len, a, r, o) == 0 &&
        begin_pod(c, s, &a->doc, a->pod, a->n_nodes, pc, r, o) == 0)
        return 0;
    ext_args_free(a);
    pod_ctx_free(pc);
    return -1;
}

static const ds_node_view **node_views(const ext_snapshot *s, const ext_args *a)
{
    const ds_node_view **v = calloc(a->n_nodes ? a->n_nodes : 1, sizeof *v);
    if (v == NULL)
        return NULL;
    for (size_t i = 0; i < a->n_nodes; i++) {
        size_t idx;
        v[i] = ds_strmap_get(&s->node_index, a->names[i], a->name_lens[i], &idx) == 0
                   ? &s->nodes[idx].view
                   : NULL;
    }
    return v;
}

/* ---- filter ---- */

static const char *res_unit(int k)
{
    return k == DS_RES_CPU ? "m" : "";
}

/* Room held for preemptors (lib/room_hold.h): a node that passed but where the pod fits only in
 * room held for another pod is refused, with the holder named. */
static void refuse_held_room(const ext_snapshot *s, const pod_ctx *pc, const ds_node_view **views,
                             size_t n, double now, ext_node_result *res, char (*msgs)[160],
                             size_t *m, ext_outcome *o)
{
    if (s->n_holds == 0 || pc->pod == NULL || pc->pod->meta.ns == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        if (!res[i].pass || views[i] == NULL)
            continue;
        ds_node_view v = *views[i];
        const ds_room_hold *last = NULL;
        for (size_t h = 0; h < s->n_holds; h++) {
            const ds_room_hold *hd = &s->holds[h];
            if (&s->nodes[hd->node].view != views[i] ||
                !ds_room_hold_applies(&s->policy, hd, pc->pod->meta.ns, pc->pod->meta.uid,
                                      pc->job != NULL ? pc->job->key : NULL, now))
                continue;
            ds_res_add(&v.requested, &hd->request);
            last = hd;
        }
        if (last == NULL || ds_node_fits(&pc->place.request, &v))
            continue;
        res[i].pass = false;
        o->n_no_fit++;
        if (last->job != NULL)
            kutil_sfmt(msgs[*m], sizeof msgs[*m],
                       "dagsched: the room on this node is held for task %s of job %s (its "
                       "upstream task just freed it)",
                       last->name != NULL ? last->name : "?", last->job);
        else if (last->gang)
            kutil_sfmt(msgs[*m], sizeof msgs[*m],
                       "dagsched: the room on this node is held for %s/%s (released with its "
                       "gang into it)",
                       last->ns, last->name != NULL ? last->name : "?");
        else
            kutil_sfmt(msgs[*m], sizeof msgs[*m],
                       "dagsched: the room on this node is held for %s/%s (an eviction made it)",
                       last->ns, last->name != NULL ? last->name : "?");
        res[i].message = msgs[(*m)++];
    }
}

void ext_handle_filter(const ext_ctx *c, const ext_snapshot *s, const char *body, size_t len,
                       double now, ext_reply *r, ext_outcome *o)
{
    ext_args a;
    pod_ctx pc;
    if (begin(c, s, body, len, &a, &pc, r, o) != 0)
        return;
    size_t n = a.n_nodes;
    ext_node_result *res = calloc(n ? n : 1, sizeof *res);
    const ds_node_view **views = node_views(s, &a);
    ds_node_verdict *verdicts = calloc(n ? n : 1, sizeof *verdicts);
    char(*msgs)[160] = NULL; /* one per failing node, with the details */
    if (res == NULL || views == NULL || verdicts == NULL) {
        reply_oom(r, o);
        goto out;
    }

    char blocked_msg[DS_ERR_MAX + MISSING_MAX + 128];
    if (pc.cls == EXT_POD_BLOCKED || pc.cls == EXT_POD_HELD) {
        if (pc.cls == EXT_POD_BLOCKED)
            snprintf(blocked_msg, sizeof blocked_msg, "dagsched: waiting for upstream tasks: %s",
                     pc.missing);
        else if (pc.unlisted)
            snprintf(blocked_msg, sizeof blocked_msg, "dagsched: %.900s", o->note);
        else
            snprintf(blocked_msg, sizeof blocked_msg,
                     "dagsched: %.900s; the pod may depend on other tasks and waits until the job "
                     "is fixed",
                     o->note);
        for (size_t i = 0; i < n; i++)
            res[i] = (ext_node_result){.pass = false, .unresolvable = true, .message = blocked_msg};
        o->n_blocked = n;
    } else {
        bool reject_late = pc.cls == EXT_POD_DAG && s->policy.filter_infeasible_nodes;
        o->n_passed = ds_place_filter(&pc.place, views, n, now, reject_late, verdicts);
        msgs = calloc(n + 1, sizeof *msgs);
        if (msgs == NULL) {
            reply_oom(r, o);
            goto out;
        }
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            res[i].pass = ds_node_verdict_passes(verdicts[i]);
            switch (verdicts[i]) {
            case DS_NODE_OK:
                break;
            case DS_NODE_UNKNOWN:
                o->n_unknown++;
                break;
            case DS_NODE_NO_FIT: {
                o->n_no_fit++;
                int k = ds_place_shortfall(&pc.place.request, views[i]);
                if (k < 0)
                    k = DS_RES_CPU;
                ds_res free_ = views[i]->allocatable;
                ds_res_sub(&free_, &views[i]->requested);
                kutil_sfmt(msgs[m], sizeof msgs[m],
                           "dagsched: insufficient %s (requested %lld%s, free %lld%s)",
                           ds_res_name(k), (long long)pc.place.request.v[k], res_unit(k),
                           (long long)(free_.v[k] > 0 ? free_.v[k] : 0), res_unit(k));
                res[i].message = msgs[m++];
                break;
            }
            case DS_NODE_TOO_SLOW: {
                o->n_too_slow++;
                char need[32], left[32];
                ds_duration_format(pc.place.runtime_s / views[i]->speed, need, sizeof need);
                double l = pc.place.level_deadline - now;
                ds_duration_format(l > 0 ? l : 0, left, sizeof left);
                kutil_sfmt(msgs[m], sizeof msgs[m],
                           "dagsched: cannot finish before its level deadline on this node "
                           "(needs %s at speed %.3g, %s left); faster nodes can",
                           need, views[i]->speed, left);
                res[i].message = msgs[m++];
                break;
            }
            }
        }
        size_t before = m;
        refuse_held_room(s, &pc, views, n, now, res, msgs, &m, o);
        o->n_passed -= m - before;
    }
    ds_bytebuf b;
    ext_out_init(&b, 64 + n * 32);
    ext_emit_filter(&b, &a, res, NULL);
    reply_take(r, 200, &b);
out:
    free(res);
    free(views);
    free(verdicts);
    free(msgs);
    ext_args_free(&a);
    pod_ctx_free(&pc);
}

/* ---- prioritize ---- */

void ext_handle_prioritize(const ext_ctx *c, const ext_snapshot *s, const char *body, size_t len,
                           double now, ext_reply *r, ext_outcome *o)
{
    (void)now;
    ext_args a;
    pod_ctx pc;
    if (begin(c, s, body, len, &a, &pc, r, o) != 0)
        return;
    size_t n = a.n_nodes;
    int *scores = calloc(n ? n : 1, sizeof *scores);
    const ds_node_view **views = node_views(s, &a);
    if (scores == NULL || views == NULL) {
        reply_oom(r, o);
    } else {
        if (pc.cls != EXT_POD_BLOCKED && pc.cls != EXT_POD_HELD)
            ds_place_prioritize(&pc.place, views, n, s->max_speed, &s->policy.packing, scores);
        for (size_t i = 0; i < n; i++)
            if (views[i] == NULL)
                o->n_unknown++;
        o->n_passed = n;
        ds_bytebuf b;
        ext_out_init(&b, 16 + n * 40);
        ext_emit_priorities(&b, &a, scores);
        reply_take(r, 200, &b);
    }
    free(scores);
    free(views);
    ext_args_free(&a);
    pod_ctx_free(&pc);
}

/* ---- preempt ---- */

/* The preemptor as Algorithm 1 sees it. */
static void preemptor_view(const ext_snapshot *s, const pod_ctx *pc, ds_place_preemptor *a)
{
    memset(a, 0, sizeof *a);
    a->task.job = DS_NO_TASK;
    a->task.task = 0;
    a->task.t_allow_s = INFINITY;
    a->task.request = pc->place.request;
    a->n_waiting = s->jobs.n_waiting;
    a->rank = s->jobs.n_waiting; /* outside the first delta unless known */
    if (pc->cls != EXT_POD_DAG || pc->job == NULL || pc->task == DS_NONE)
        return;
    const ds_task_eval *e = &pc->job->eval[pc->task];
    a->task.job = pc->job_idx;
    a->task.task = pc->task;
    a->task.priority = e->priority;
    a->task.t_allow_s = e->t_allow_s;
    a->task.t_wait_s = isfinite(e->t_wait_s) && e->t_wait_s > 0 ? e->t_wait_s : 0;
    a->task.t_rem_s = isfinite(e->t_rem_s) && e->t_rem_s > 0 ? e->t_rem_s : 0;
    double rank = ds_jobset_wait_rank(&s->jobs, pc->job, pc->task);
    if (rank >= 0 && s->jobs.n_waiting > 0)
        a->rank = (size_t)lround((1.0 - rank) * (double)(s->jobs.n_waiting - 1));
    a->task.order[0] = s->job_order[pc->job_idx][0];
    a->task.order[1] = s->job_order[pc->job_idx][1];
    a->task.job_slack_s = s->job_sum[pc->job_idx].slack_s;
    a->task.job_path_s = s->job_sum[pc->job_idx].remaining_path_s;
    a->task.job_steps = s->job_sum[pc->job_idx].remaining_steps;
    a->task.job_known = !isnan(a->task.job_slack_s) && !isnan(a->task.job_path_s);
    a->fastest_speed = s->max_speed;
    ds_err err;
    double wait, saved;
    if (s->policy.preemption.payoff &&
        ext_snapshot_room_wait(s, pc->job_idx, pc->task, &a->task.request, &wait, &saved, &err) ==
            0 &&
        !isnan(wait)) {
        a->room_known = true;
        a->room_wait_s = wait;
        a->room_saved_s = saved;
    }
}

/* Does the victim's owner recreate it without failing (lib/owner_retry.h)? A ReplicaSet's or a
 * StatefulSet's pod, or an Argo Workflow's whose template retries errors with retries left. The
 * extender does not watch Jobs: a Job's pod is never its victim (the controller, which does,
 * checks the Job's retries). */
static bool owner_recreates(const ext_snapshot *s, const kube_pod *p)
{
    ds_owner_facts o = {.kind = ds_owner_kind_of(p->owner_kind)};
    if (o.kind == DS_OWNER_WORKFLOW && p->owner_name != NULL && p->argo_node_id != NULL &&
        p->meta.ns != NULL) {
        for (size_t i = 0; i < s->n_wfs; i++) {
            const kube_meta *m = &s->wf_objs[i]->meta;
            if (m->ns == NULL || m->name == NULL || strcmp(m->ns, p->meta.ns) != 0 ||
                strcmp(m->name, p->owner_name) != 0 ||
                (p->owner_uid != NULL && m->uid != NULL && strcmp(m->uid, p->owner_uid) != 0))
                continue;
            ds_wf_obs obs;
            kube_workflow_obs(s->wf_objs[i], &obs);
            o.workflow_retries = ds_wf_retries_left(&obs, p->argo_node_id);
            break;
        }
    }
    return ds_owner_evictions_left(&o, NULL) > 0;
}

/* The pod of a proposed victim in the snapshot, or NULL when unknown or not on `node_idx`. */
static const kube_pod *victim_pod(const ext_snapshot *s, const char *uid, size_t node_idx)
{
    if (uid[0] == '\0')
        return NULL;
    size_t idx = ds_jobset_find_pod(&s->jobs, uid);
    if (idx == DS_NONE || idx >= s->n_pods || s->pod_node[idx] != node_idx)
        return NULL;
    return s->pods[idx];
}

/* One proposed victim, or 0 when unknown or not on `node_idx` in the snapshot. */
static int victim_view(const ext_snapshot *s, const char *uid, size_t node_idx, double now,
                       ds_running_task *v)
{
    if (uid[0] == '\0')
        return 0;
    size_t idx = ds_jobset_find_pod(&s->jobs, uid);
    if (idx == DS_NONE || idx >= s->n_pods || s->pod_node[idx] != node_idx)
        return 0;
    const kube_pod *p = s->pods[idx];
    double start = p->start_time > 0 ? p->start_time : p->meta.creation_ts;
    double ran = start > 0 ? now - start : 0;
    *v = (ds_running_task){
        .job = DS_NO_TASK,
        .task = 0,
        .priority = 0,
        .t_allow_s = INFINITY,
        .ran_s = isfinite(ran) && ran > 0 ? ran : 0,
        .request = p->requests,
        .node = node_idx,
        .evictable = ext_pod_evictable(p, ext_snapshot_namespace(s, p->meta.ns), &s->policy) &&
                     owner_recreates(s, p)};
    const ds_pod_result *pr = &s->jobs.pods[idx];
    if (pr->job != DS_NONE && pr->task != DS_NONE && pr->job < s->jobs.n_jobs &&
        s->jobs.jobs[pr->job].valid) {
        const ds_job *j = &s->jobs.jobs[pr->job];
        v->job = pr->job;
        v->task = pr->task;
        v->priority = isfinite(j->eval[pr->task].priority) ? j->eval[pr->task].priority : 0;
        v->t_allow_s = j->eval[pr->task].t_allow_s;
        v->order[0] = s->job_order[pr->job][0];
        v->order[1] = s->job_order[pr->job][1];
        double rem = j->eval[pr->task].t_rem_s;
        v->t_rem_s = isfinite(rem) && rem > 0 ? rem : 0;
    }
    return 1;
}

/* Who may preempt whom (lib/preempt_rules.h) for a DAG preemptor and a victim of the snapshot;
 * the preemptor is the Pod of the request. */
static ds_pair_reason victim_pair(const ext_snapshot *s, const kube_pod *pre, const char *uid,
                                  const ds_policy *pol)
{
    size_t idx = ds_jobset_find_pod(&s->jobs, uid);
    if (idx == DS_NONE || idx >= s->n_pods || pre == NULL)
        return DS_PAIR_CROSS_NS_UNTRUSTED; /* unknown: never evict what cannot be checked */
    const kube_pod *v = s->pods[idx];
    ds_preempt_side a = {pre->meta.ns, pre->priority};
    ds_preempt_side b = {v->meta.ns, v->priority};
    return ds_preempt_pair_check(pol, &a, &b);
}

void ext_handle_preempt(const ext_ctx *c, const ext_snapshot *s, const char *body, size_t len,
                        double now, ext_reply *r, ext_outcome *o)
{
    memset(o, 0, sizeof *o);
    ext_preempt_args a;
    pod_ctx pc;
    memset(&pc, 0, sizeof pc);
    char err[EXT_ERR_MAX];
    if (ext_parse_preempt_args(body, len, &c->limits, &a, err) != 0) {
        reply_error(r, o, EXT_BAD_REQUEST, 400, err);
        ext_preempt_args_free(&a);
        return;
    }
    if (begin_pod(c, s, &a.doc, a.pod, a.n_nodes, &pc, r, o) != 0) {
        ext_preempt_args_free(&a);
        pod_ctx_free(&pc);
        return;
    }

    ds_place_preemptor pre;
    preemptor_view(s, &pc, &pre);
    const ds_preempt_params *pp = &s->policy.preemption;
    ds_preemptor_mode mode = ds_place_preemptor_mode(&pre, pp);
    if (!s->policy.preemption_enabled && mode != DS_PREEMPTOR_OUTSIDE)
        mode = DS_PREEMPTOR_OUTSIDE; /* DSP priority rules off; protections and C2 stay */
    if (pc.cls == EXT_POD_BLOCKED || pc.cls == EXT_POD_HELD)
        mode = DS_PREEMPTOR_BARRED; /* it could not run anyway */
    o->preemptor_mode = ds_preemptor_mode_name(mode);
    const ds_dag *dag = pre.task.job != DS_NO_TASK ? &pc.job->dag : NULL;

    size_t total = 0, max_v = 0;
    for (size_t i = 0; i < a.n_nodes; i++) {
        total += a.nodes[i].n_pods;
        if (a.nodes[i].n_pods > max_v)
            max_v = a.nodes[i].n_pods;
    }
    bool *keep = calloc(a.n_nodes ? a.n_nodes : 1, sizeof *keep);
    bool **kept = calloc(a.n_nodes ? a.n_nodes : 1, sizeof *kept);
    bool *kept_store = calloc(total ? total : 1, sizeof *kept_store);
    ds_running_task *vstore = calloc(max_v ? max_v : 1, sizeof *vstore);
    const ds_running_task **vptr = calloc(max_v ? max_v : 1, sizeof *vptr);
    ds_victim_verdict *verd = calloc(max_v ? max_v : 1, sizeof *verd);
    ds_pair_reason *pair = calloc(max_v ? max_v : 1, sizeof *pair);
    if (keep == NULL || kept == NULL || kept_store == NULL || vstore == NULL || vptr == NULL ||
        verd == NULL || pair == NULL) {
        reply_oom(r, o);
        goto out;
    }
    size_t at = 0;
    for (size_t i = 0; i < a.n_nodes; i++) {
        const ext_victim_node *vn = &a.nodes[i];
        kept[i] = &kept_store[at];
        at += vn->n_pods;
        o->n_victims_in += vn->n_pods;
        size_t node_idx;
        if (ds_strmap_get(&s->node_index, vn->node, strlen(vn->node), &node_idx) != 0) {
            o->victims_refused[DS_VICTIM_UNKNOWN] += vn->n_pods;
            continue; /* unknown node: dropped */
        }
        /* Victims of other schedulers did not opt in: dagsched does not judge them, they stay
         * kube-scheduler's choice (their room counts as made). dagsched's own are judged. */
        ds_node_view view = s->nodes[node_idx].view;
        size_t n_own = 0, n_foreign = 0;
        for (size_t j = 0; j < vn->n_pods; j++) {
            const kube_pod *vp = victim_pod(s, vn->uids[j], node_idx);
            kept[i][j] = vp != NULL && !opted_in(c, vp);
            if (kept[i][j]) {
                ds_res_sub(&view.requested, &vp->requests);
                n_foreign++;
                continue;
            }
            vptr[n_own] =
                victim_view(s, vn->uids[j], node_idx, now, &vstore[n_own]) ? &vstore[n_own] : NULL;
            pair[n_own] = DS_PAIR_OK;
            if (vptr[n_own] != NULL && mode != DS_PREEMPTOR_OUTSIDE)
                pair[n_own] = victim_pair(s, pc.pod, vn->uids[j], &s->policy);
            n_own++;
        }
        ds_err derr;
        long nk = ds_place_preempt_node(&pre, mode, dag, &view, vptr, pair, n_own, s->pbar_half, pp,
                                        verd, &keep[i], &derr);
        if (nk < 0) {
            keep[i] = false;
            o->victims_refused[DS_VICTIM_UNKNOWN] += vn->n_pods;
            continue;
        }
        nk += (long)n_foreign;
        for (size_t j = 0, k = 0; j < vn->n_pods; j++) {
            if (kept[i][j])
                continue; /* another scheduler's */
            kept[i][j] = verd[k] == DS_VICTIM_KEEP;
            if (!kept[i][j])
                o->victims_refused[verd[k]]++;
            k++;
        }
        if (keep[i]) {
            o->n_nodes_kept++;
            o->n_victims_kept += (size_t)nk;
        }
    }
    ds_bytebuf b;
    ext_out_init(&b, 64 + total * 48);
    ext_emit_preemption(&b, &a, keep, (const bool *const *)kept);
    reply_take(r, 200, &b);
out:
    free(keep);
    free(kept);
    free(kept_store);
    free(vstore);
    free(vptr);
    free(verd);
    free(pair);
    ext_preempt_args_free(&a);
    pod_ctx_free(&pc);
}

/* ---- the benchmark's floor ---- */

/* Parse the arguments and answer without any state: every node passes (filter) or scores 5
 * (prioritize). */
static void floor_answer(const ext_ctx *c, const char *body, size_t len, bool filter, ext_reply *r,
                         ext_outcome *o)
{
    memset(o, 0, sizeof *o);
    ext_args a;
    if (parse_args(c, body, len, &a, r, o) != 0) {
        ext_args_free(&a);
        return;
    }
    size_t n = a.n_nodes;
    ext_node_result *res = filter ? calloc(n ? n : 1, sizeof *res) : NULL;
    int *scores = filter ? NULL : calloc(n ? n : 1, sizeof *scores);
    if (res == NULL && scores == NULL) {
        reply_oom(r, o);
        ext_args_free(&a);
        return;
    }
    ds_bytebuf b;
    ext_out_init(&b, 64 + n * 40);
    for (size_t i = 0; i < n; i++) {
        if (filter)
            res[i].pass = true;
        else
            scores[i] = 5;
    }
    if (filter)
        ext_emit_filter(&b, &a, res, NULL);
    else
        ext_emit_priorities(&b, &a, scores);
    reply_take(r, 200, &b);
    free(res);
    free(scores);
    ext_args_free(&a);
}

void ext_handle_floor_filter(const ext_ctx *c, const char *body, size_t len, ext_reply *r,
                             ext_outcome *o)
{
    floor_answer(c, body, len, true, r, o);
}

void ext_handle_floor_prioritize(const ext_ctx *c, const char *body, size_t len, ext_reply *r,
                                 ext_outcome *o)
{
    floor_answer(c, body, len, false, r, o);
}
