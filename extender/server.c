/* server.c: the extender's HTTP endpoints, per-verb metrics and request logs (see server.h). */
#include "server.h"

#include <stdlib.h>
#include <string.h>

#include "httpd.h"
#include "kutil.h"
#include "log.h"
#include "clock.h"

#define COMPONENT "extender"

typedef enum { VERB_FILTER = 0, VERB_PRIORITIZE, VERB_PREEMPT, VERB_N } verb;
static const char *const verb_names[VERB_N] = {"filter", "prioritize", "preempt"};

typedef struct verb_route {
    struct ext_server *srv;
    verb v;
} verb_route;

typedef struct adm_route {
    struct ext_server *srv;
    ext_adm_opts adm;
} adm_route;

struct ext_server {
    ext_server_opts o;
    httpd *http, *adm_http;
    verb_route routes[VERB_N];
    adm_route adm_routes[2]; /* /mutate-pods, /mutate-pods/set-scheduler-name */
    metrics_family *m_bytes;
    metrics_family *m_requests, *m_duration, *m_errors, *m_filter_nodes, *m_pods, *m_victims,
        *m_preempt_nodes, *m_admission;
};

static const char *result_name(ext_result_kind k)
{
    switch (k) {
    case EXT_OK:
        return "ok";
    case EXT_BAD_REQUEST:
        return "bad_request";
    case EXT_NOT_READY:
        return "not_ready";
    case EXT_INTERNAL:
        return "internal";
    }
    return "internal";
}

static const char *class_name(ext_pod_class c)
{
    switch (c) {
    case EXT_POD_OUTSIDE:
        return "outside_dag";
    case EXT_POD_DAG:
        return "dag";
    case EXT_POD_BLOCKED:
        return "blocked";
    case EXT_POD_INVALID_JOB:
        return "invalid_job";
    case EXT_POD_INVALID_POD:
        return "invalid_pod";
    case EXT_POD_HELD:
        return "held_invalid_job";
    }
    return "unknown";
}

static void add2(metrics_family *f, const char *a, const char *b, double v)
{
    const char *lv[] = {a, b};
    if (v > 0)
        metrics_add(f, lv, v);
}

static void add1(metrics_family *f, const char *a, double v)
{
    const char *lv[] = {a};
    if (v > 0)
        metrics_add(f, lv, v);
}

static void record(ext_server *s, verb v, const ext_outcome *o, double secs)
{
    const char *vn = verb_names[v];
    add2(s->m_requests, vn, result_name(o->kind), 1);
    const char *lv[] = {vn};
    metrics_observe(s->m_duration, lv, secs);
    if (o->kind != EXT_OK) {
        add2(s->m_errors, vn, result_name(o->kind), 1);
        return;
    }
    if (s->o.floor_mode)
        return;
    add2(s->m_pods, vn, o->live_override ? "dag_live_upstream" : class_name(o->pod_class), 1);
    if (v == VERB_FILTER) {
        add1(s->m_filter_nodes, "passed", (double)o->n_passed);
        add1(s->m_filter_nodes, "no_fit", (double)o->n_no_fit);
        add1(s->m_filter_nodes, "too_slow", (double)o->n_too_slow);
        add1(s->m_filter_nodes, "blocked", (double)o->n_blocked);
        add1(s->m_filter_nodes, "unknown_node", (double)o->n_unknown);
    } else if (v == VERB_PREEMPT) {
        add1(s->m_victims, "keep", (double)o->n_victims_kept);
        for (int k = 1; k < DS_VICTIM_VERDICTS; k++)
            add1(s->m_victims, ds_victim_verdict_name((ds_victim_verdict)k),
                 (double)o->victims_refused[k]);
        add1(s->m_preempt_nodes, "kept", (double)o->n_nodes_kept);
        add1(s->m_preempt_nodes, "dropped", (double)(o->n_nodes - o->n_nodes_kept));
    }
}

/* The log fields of the outcome's pod. */
#define OUTCOME_FIELDS(o, reason_)                                                                 \
    KLOG_FIELDS(.pod = (o)->pod_name, .ns = (o)->pod_ns, .job = (o)->job, .task = (o)->task,       \
                .reason = (reason_))

static void log_outcome(ext_server *s, verb v, const ext_outcome *o, double secs)
{
    const char *vn = verb_names[v];
    if (o->kind == EXT_BAD_REQUEST) {
        KLOG_WARN(COMPONENT, "%s: bad request: %s", vn, o->error);
        return;
    }
    if (o->kind == EXT_INTERNAL) {
        KLOG_ERROR(COMPONENT, "%s: %s", vn, o->error);
        return;
    }
    if (o->kind == EXT_NOT_READY) {
        KLOG_INFO(COMPONENT, "%s: not ready (caches not synced); kube-scheduler will retry", vn);
        return;
    }
    if ((o->pod_class == EXT_POD_INVALID_JOB || o->pod_class == EXT_POD_HELD) && o->pod != NULL) {
        char msg[DS_ERR_MAX + 128];
        kutil_sfmt(msg, sizeof msg,
                   o->pod_class == EXT_POD_HELD
                       ? "dagsched: %s; the pod may depend on other tasks: no node until the job "
                         "is fixed"
                       : "dagsched: %s; scheduling the pod without DAG constraints",
                   o->note);
        bool queued = s->o.source.pod_event != NULL &&
                      s->o.source.pod_event(s->o.source.user, o->pod, DS_EV_INVALID_JOB_GRAPH, msg);
        if (queued)
            KLOG_WARN_F(COMPONENT, OUTCOME_FIELDS(o, o->note), "pod %s/%s: %s", o->pod_ns,
                        o->pod_name, msg);
    }
    /* The controller posts the InvalidPodMetadata Event on such a pod (it also sees the pods that
     * never reach the extender, e.g. gated ones); the extender says it in its log. */
    if (o->pod_class == EXT_POD_INVALID_POD && v == VERB_FILTER)
        KLOG_WARN_F(COMPONENT, OUTCOME_FIELDS(o, o->note),
                    "pod %s/%s: %s: dagsched does not manage the pod; scheduling it without DAG "
                    "constraints",
                    o->pod_ns, o->pod_name, o->note);
    if (!kube_log_enabled(KUBE_LOG_DEBUG))
        return;
    if (v == VERB_PREEMPT)
        KLOG_DEBUG_F(COMPONENT, OUTCOME_FIELDS(o, o->preemptor_mode),
                     "preempt pod %s/%s (%s, %s): %zu of %zu victims kept on %zu of %zu nodes in "
                     "%.3f ms",
                     o->pod_ns, o->pod_name, class_name(o->pod_class),
                     o->preemptor_mode != NULL ? o->preemptor_mode : "-", o->n_victims_kept,
                     o->n_victims_in, o->n_nodes_kept, o->n_nodes, secs * 1e3);
    else if (o->live_override)
        KLOG_DEBUG_F(COMPONENT, OUTCOME_FIELDS(o, NULL),
                     "%s pod %s/%s: upstream tasks finished a moment ago (live caches ahead of the "
                     "snapshot); %zu of %zu nodes passed",
                     vn, o->pod_ns, o->pod_name, o->n_passed, o->n_nodes);
    else if (o->pod_class == EXT_POD_BLOCKED)
        KLOG_DEBUG_F(COMPONENT, OUTCOME_FIELDS(o, "waiting for upstream tasks"),
                     "%s pod %s/%s: waiting for upstream tasks: %s", vn, o->pod_ns, o->pod_name,
                     o->note);
    else
        KLOG_DEBUG_F(COMPONENT, OUTCOME_FIELDS(o, NULL),
                     "%s pod %s/%s (%s): %zu nodes, %zu passed, %zu no fit, %zu too slow, %zu "
                     "unknown in %.3f ms",
                     vn, o->pod_ns, o->pod_name, class_name(o->pod_class), o->n_nodes, o->n_passed,
                     o->n_no_fit, o->n_too_slow, o->n_unknown, secs * 1e3);
}

static void serve_verb(void *ctx, const httpd_request *req, httpd_response *resp)
{
    verb_route *vr = ctx;
    ext_server *s = vr->srv;
    double t0 = rt_mono_now();
    ext_reply r = {0};
    ext_outcome o;
    if (s->o.floor_mode && vr->v == VERB_FILTER) {
        ext_handle_floor_filter(&s->o.ctx, req->body, req->body_len, &r, &o);
    } else if (s->o.floor_mode && vr->v == VERB_PRIORITIZE) {
        ext_handle_floor_prioritize(&s->o.ctx, req->body, req->body_len, &r, &o);
    } else {
        const ext_snapshot *snap = s->o.source.acquire(s->o.source.user);
        double now = rt_wall_now();
        if (vr->v == VERB_FILTER)
            ext_handle_filter(&s->o.ctx, snap, req->body, req->body_len, now, &r, &o);
        else if (vr->v == VERB_PRIORITIZE)
            ext_handle_prioritize(&s->o.ctx, snap, req->body, req->body_len, now, &r, &o);
        else
            ext_handle_preempt(&s->o.ctx, snap, req->body, req->body_len, now, &r, &o);
        ext_snapshot_unref(snap);
    }
    double secs = rt_mono_now() - t0;
    if (r.body == NULL) {
        o.kind = EXT_INTERNAL;
        snprintf(o.error, sizeof o.error, "out of memory writing the response");
        httpd_respond(resp, 500, "application/json", "{\"Error\":\"dagsched: out of memory\"}");
    } else {
        resp->status = r.status;
        resp->content_type = "application/json";
        resp->body = r.body;
        resp->body_len = r.len;
    }
    record(s, vr->v, &o, secs);
    add2(s->m_bytes, verb_names[vr->v], "request", (double)req->body_len);
    add2(s->m_bytes, verb_names[vr->v], "response", (double)resp->body_len);
    log_outcome(s, vr->v, &o, secs);
    ext_outcome_clear(&o);
}

static void serve_admission(void *ctx, const httpd_request *req, httpd_response *resp)
{
    adm_route *ar = ctx;
    ext_server *s = ar->srv;
    ext_adm_reply r;
    ext_adm_review(&ar->adm, req->body, req->body_len, &r);
    const char *lv[] = {ext_adm_result_name(r.body != NULL ? r.result : EXT_ADM_ERROR)};
    metrics_add(s->m_admission, lv, 1);
    if (r.body == NULL) {
        KLOG_ERROR(COMPONENT, "admission: out of memory writing the response");
        httpd_respond(resp, 500, "text/plain", "dagsched: out of memory\n");
        return;
    }
    resp->status = r.status;
    resp->content_type = r.json ? "application/json" : "text/plain";
    resp->body = r.body;
    resp->body_len = r.len;
    if (r.result == EXT_ADM_ERROR)
        KLOG_WARN(COMPONENT, "admission: bad request (HTTP 400): %s", r.error);
    else if (r.result == EXT_ADM_GATED)
        KLOG_DEBUG_F(COMPONENT, KLOG_FIELDS(.pod = r.name, .ns = r.ns, .reason = r.why),
                     "admission: pod %s/%s: %s (uid %s)", r.ns, r.name[0] != '\0' ? r.name : "-",
                     r.why, r.uid);
}

static void serve_readyz(void *ctx, const httpd_request *req, httpd_response *resp)
{
    (void)req;
    ext_server *s = ctx;
    httpd_respond_ready(resp, s->o.floor_mode || s->o.source.ready(s->o.source.user),
                        "caches not synced yet\n");
}

static int register_metrics(ext_server *s, ds_err *err)
{
    metrics_registry *r = s->o.metrics;
    const char *vr[] = {"verb", "result"};
    const char *v[] = {"verb"};
    const char *vc[] = {"verb", "class"};
    const char *verdict[] = {"verdict"};
    const char *res[] = {"result"};
    s->m_requests = metrics_family_new(r, METRICS_COUNTER, "dagsched_extender_requests_total",
                                       "Extender requests, by verb and result.", vr, 2, NULL, 0);
    s->m_duration =
        metrics_family_new(r, METRICS_HISTOGRAM, "dagsched_extender_request_duration_seconds",
                           "Time to parse, decide and write one extender answer, by verb.", v, 1,
                           metrics_latency_buckets, metrics_latency_buckets_n);
    const char *vd[] = {"verb", "direction"};
    s->m_bytes = metrics_family_new(r, METRICS_COUNTER, "dagsched_extender_bytes_total",
                                    "Bytes of the extender verbs' request and response bodies, by "
                                    "verb and direction (request, response).",
                                    vd, 2, NULL, 0);
    s->m_errors =
        metrics_family_new(r, METRICS_COUNTER, "dagsched_extender_errors_total",
                           "Extender requests that failed, by verb and reason.", vr, 2, NULL, 0);
    s->m_filter_nodes =
        metrics_family_new(r, METRICS_COUNTER, "dagsched_extender_filter_nodes_total",
                           "Nodes judged by the filter verb, by verdict.", verdict, 1, NULL, 0);
    s->m_pods = metrics_family_new(r, METRICS_COUNTER, "dagsched_extender_pods_total",
                                   "Pods seen by each verb, by class (outside_dag, dag, blocked, "
                                   "invalid_job, invalid_pod, held_invalid_job).",
                                   vc, 2, NULL, 0);
    s->m_victims =
        metrics_family_new(r, METRICS_COUNTER, "dagsched_extender_preempt_victims_total",
                           "Victims proposed by kube-scheduler, by verdict (keep or why refused).",
                           verdict, 1, NULL, 0);
    s->m_preempt_nodes = metrics_family_new(
        r, METRICS_COUNTER, "dagsched_extender_preempt_nodes_total",
        "Candidate nodes of the preempt verb, kept or dropped.", res, 1, NULL, 0);
    s->m_admission = metrics_family_new(
        r, METRICS_COUNTER, "dagsched_extender_admission_total",
        "Pod admission reviews (POST /mutate-pods), by result: gated (a dagsched pod, gate added "
        "or already there), ignored (allowed unchanged), error (malformed review, HTTP 400).",
        res, 1, NULL, 0);
    if (s->m_requests == NULL || s->m_duration == NULL || s->m_errors == NULL ||
        s->m_bytes == NULL || s->m_filter_nodes == NULL || s->m_pods == NULL ||
        s->m_victims == NULL || s->m_preempt_nodes == NULL || s->m_admission == NULL)
        return ds_err_set(err, "extender metrics: cannot register (out of memory or duplicate)");
    return 0;
}

int ext_server_start(const ext_server_opts *opts, ext_server **out, ds_err *err)
{
    *out = NULL;
    if (opts->metrics == NULL || opts->source.acquire == NULL || opts->source.ready == NULL)
        return ds_err_set(err, "extender server: metrics and a snapshot source are required");
    ext_server *s = calloc(1, sizeof *s);
    if (s == NULL)
        return ds_err_set(err, "extender server: out of memory");
    s->o = *opts;
    if (register_metrics(s, err) != 0) {
        free(s);
        return -1;
    }
    for (int i = 0; i < VERB_N; i++)
        s->routes[i] = (verb_route){.srv = s, .v = (verb)i};
    const ext_admission_opts *ad = &opts->admission;
    for (int i = 0; i < 2; i++) {
        s->adm_routes[i] = (adm_route){.srv = s, .adm = ad->adm};
        s->adm_routes[i].adm.set_scheduler_name = i == 1;
        s->adm_routes[i].adm.max_body =
            ad->own_listener && ad->max_body > 0 ? ad->max_body : opts->ctx.limits.max_body;
    }
    /* The webhook routes, on the main listener or on their own (which the NetworkPolicy may open
     * to the API server without opening the scheduling verbs). */
    httpd_route adm[] = {
        {"POST", "/mutate-pods", serve_admission, &s->adm_routes[0]},
        {"GET", "/healthz", httpd_handle_healthz, NULL},
        {"POST", "/mutate-pods/set-scheduler-name", serve_admission, &s->adm_routes[1]},
    };
    size_t n_adm = !ad->enabled ? 0 : ad->adm.set_scheduler_name ? 3 : 1;
    httpd_route routes[9] = {
        {"POST", "/filter", serve_verb, &s->routes[VERB_FILTER]},
        {"POST", "/prioritize", serve_verb, &s->routes[VERB_PRIORITIZE]},
        {"POST", "/preempt", serve_verb, &s->routes[VERB_PREEMPT]},
        {"GET", "/healthz", httpd_handle_healthz, NULL},
        {"GET", "/readyz", serve_readyz, s},
        {"GET", "/metrics", httpd_handle_metrics, opts->metrics},
    };
    size_t n_routes = 6;
    for (size_t i = 0; i < n_adm && !ad->own_listener; i++)
        if (i != 1)
            routes[n_routes++] = adm[i];
    httpd_opts ho = {.host = opts->host,
                     .port = opts->port,
                     .tls_cert = opts->tls_cert,
                     .tls_key = opts->tls_key,
                     .max_body = opts->ctx.limits.max_body,
                     .routes = routes,
                     .n_routes = n_routes,
                     .budget = opts->budget,
                     .metrics = opts->metrics,
                     .metrics_prefix = "dagsched_extender"};
    if (httpd_start(&ho, &s->http, err) != 0) {
        free(s);
        return -1;
    }
    if (ad->enabled && ad->own_listener) {
        httpd_opts ha = ho;
        ha.host = ad->host;
        ha.port = ad->port;
        ha.routes = adm;
        ha.n_routes = n_adm > 1 ? n_adm : 2;
        ha.metrics_prefix = "dagsched_extender_webhook";
        if (ad->max_body > 0)
            ha.max_body = ad->max_body;
        if (httpd_start(&ha, &s->adm_http, err) != 0) {
            httpd_stop(s->http);
            free(s);
            return -1;
        }
    }
    *out = s;
    return 0;
}

int ext_server_admission_port(const ext_server *s)
{
    return s != NULL && s->adm_http != NULL ? httpd_port(s->adm_http) : -1;
}

int ext_server_port(const ext_server *s)
{
    return s != NULL ? httpd_port(s->http) : -1;
}

void ext_server_stop(ext_server *s)
{
    if (s == NULL)
        return;
    httpd_stop(s->adm_http);
    httpd_stop(s->http);
    free(s);
}
