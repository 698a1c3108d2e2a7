/* cluster_view.c: one read of the cluster into the controller's snapshot (see cluster_view.h).
 * Each resource is listed page by page and decoded with the kube client's decoders. */
#include "cluster_view.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotations.h"
#include "argo_discovery.h"
#include "bytebuf.h"
#include "client.h"
#include "clock.h"
#include "config.h"
#include "configmaps.h"
#include "kutil.h"
#include "term.h"
#include "list.h"
#include "writes.h"
#include "grow.h"

#define PAGE      500
#define MAX_ITEMS 200000

static int push(kube_obj_list *l, size_t *cap, const kube_meta *m)
{
    if (l->n == *cap) {
        const kube_meta **ni = ds_grow(l->items, cap, sizeof *ni, 64);
        if (ni == NULL)
            return -1;
        l->items = ni;
    }
    l->items[l->n++] = m;
    return 0;
}

typedef struct collect {
    kube_kind kind;
    const kube_decode_opts *dec;
    kube_obj_list *out;
    size_t cap;
} collect;

static int collect_item(void *user, const json_t *item, ds_err *err)
{
    collect *cl = user;
    kube_meta *m = NULL;
    ds_err e = {{0}};
    if (kube_obj_decode(cl->kind, item, cl->dec, &m, &e) != 0) {
        fprintf(stderr, "kubectl-dagsched: skipped: %s\n", e.msg);
        return 0;
    }
    if (cl->out->n >= MAX_ITEMS || push(cl->out, &cl->cap, m) != 0) {
        kube_obj_unref(m);
        return ds_err_set(err, "listing %s: more than %d objects or out of memory",
                          kube_kind_resource(cl->kind), MAX_ITEMS);
    }
    return 0;
}

int cli_list_kind(kube_client *c, kube_kind kind, const char *ns, const char *selector,
                  const kube_decode_opts *dec, kube_obj_list *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    ds_bytebuf path;
    ds_bytebuf_init(&path, 4096);
    char *sel = selector != NULL ? kutil_query_escape(selector) : NULL;
    int rc = ds_bytebuf_printf(&path, "%s/", kube_kind_api_prefix(kind));
    if (rc == 0 && ns != NULL)
        rc = ds_bytebuf_printf(&path, "namespaces/%s/", ns);
    if (rc == 0)
        rc = ds_bytebuf_printf(&path, "%s", kube_kind_resource(kind));
    if (rc == 0 && sel != NULL)
        rc = ds_bytebuf_printf(&path, "?labelSelector=%s", sel);
    free(sel);
    if (rc != 0 || (selector != NULL && sel == NULL)) {
        ds_bytebuf_free(&path);
        return ds_err_set(err, "listing %s: out of memory", kube_kind_resource(kind));
    }
    collect cl = {.kind = kind, .dec = dec, .out = out};
    rc = kube_list_each(c, path.data, PAGE, collect_item, &cl, err);
    ds_bytebuf_free(&path);
    if (rc != 0)
        kube_obj_list_free(out);
    return rc;
}

void cli_load_policy(kube_client *c, const cli_view_opts *o, kube_policy_state *st, char *note,
                     size_t note_size)
{
    kube_policy_state_init(st);
    note[0] = '\0';
    kube_obj_list cms;
    ds_err err = {{0}};
    if (cli_list_kind(c, KUBE_KIND_CONFIGMAP, o->policy_ns, KUBE_POLICY_SELECTOR, NULL, &cms,
                      &err) != 0) {
        snprintf(note, note_size, "policy: built-in defaults (cannot read policies: %.180s)",
                 err.msg);
        return;
    }
    kube_policy_update u;
    kube_policy_refresh(st, (const kube_configmap *const *)cms.items, cms.n, o->policy_name, &u);
    if (u.outcome == KUBE_POLICY_INVALID)
        snprintf(note, note_size,
                 "policy: built-in defaults (ConfigMap of policy %.60s is invalid)",
                 o->policy_name);
    else if (!st->from_configmap)
        snprintf(note, note_size, "policy: built-in defaults (no policy %.60s in namespace %.63s)",
                 o->policy_name, o->policy_ns);
    kube_obj_list_free(&cms);
}

int cli_client_open(const cli_view_opts *o, kube_client **out, char *ns, size_t ns_size,
                    ds_err *err)
{
    *out = NULL;
    kube_config_opts co = {.kubeconfig = o->kubeconfig, .context = o->context};
    kube_config *cfg = NULL;
    if (kube_config_load(&co, &cfg, err) != 0)
        return -1;
    snprintf(ns, ns_size, "%s",
             o->ns != NULL ? o->ns : (cfg->namespace != NULL ? cfg->namespace : "default"));
    kube_client_opts clo = {.user_agent = "kubectl-dagsched",
                            .request_timeout_s = o->timeout_s > 0 ? o->timeout_s : 30};
    int rc = kube_client_new(cfg, &clo, out, err);
    kube_config_free(cfg);
    return rc;
}

/* The Argo Workflows of ns (NULL: every namespace), appended to graphs, where the snapshot takes
 * them as the controller does (controller/tracker.h). Where Argo is not served, or the Workflows
 * cannot be listed, a warning (once) and the jobs are read as without Argo; strict: Workflows
 * that are served but cannot be listed are an error instead (err set), without a warning. */
static int add_workflows(kube_client *c, const char *ns, const kube_decode_opts *dec, bool strict,
                         kube_obj_list *graphs, ds_err *err)
{
    bool served = false;
    ds_err werr = {{0}};
    char line[DS_ERR_MAX * 2];
    if (kube_argo_workflows_served(c, &served, &werr) != 0) {
        fprintf(stderr, "kubectl-dagsched: warning: %s (Argo Workflows not read)\n",
                cli_oneline(werr.msg, line, sizeof line));
        return 0;
    }
    if (!served) {
        fprintf(stderr, "kubectl-dagsched: warning: Argo Workflows are not served on this "
                        "cluster (jobs read from pods and JobGraphs only)\n");
        return 0;
    }
    kube_obj_list wfs = {0};
    if (cli_list_kind(c, KUBE_KIND_WORKFLOW, ns, NULL, dec, &wfs, &werr) != 0) {
        if (strict)
            return ds_err_set(err, "%s", werr.msg);
        fprintf(stderr, "kubectl-dagsched: warning: %s (Argo Workflows not read)\n",
                cli_oneline(werr.msg, line, sizeof line));
        return 0;
    }
    if (kube_obj_list_append(graphs, &wfs) != 0) {
        kube_obj_list_free(&wfs);
        return ds_err_set(err, "listing workflows: out of memory");
    }
    return 0;
}

/* What the job model is built from, in ns (NULL: every namespace). */
typedef struct job_inputs {
    kube_obj_list pods, jobs, graphs;
} job_inputs;

static void job_inputs_free(job_inputs *in)
{
    kube_obj_list_free(&in->pods);
    kube_obj_list_free(&in->jobs);
    kube_obj_list_free(&in->graphs);
}

static int list_job_inputs(kube_client *c, const char *ns, const kube_decode_opts *dec, bool strict,
                           job_inputs *in, ds_err *err)
{
    memset(in, 0, sizeof *in);
    int rc = cli_list_kind(c, KUBE_KIND_POD, ns, NULL, dec, &in->pods, err);
    if (rc == 0)
        rc = cli_list_kind(c, KUBE_KIND_JOB, ns, DS_LABEL_TASK, dec, &in->jobs, err);
    if (rc == 0)
        rc = cli_list_kind(c, KUBE_KIND_CONFIGMAP, ns, DS_SELECTOR_JOBGRAPH, dec, &in->graphs, err);
    if (rc == 0)
        rc = add_workflows(c, ns, dec, strict, &in->graphs, err);
    if (rc != 0)
        job_inputs_free(in);
    return rc;
}

/* The job inputs of ns, or of every namespace when o->wide and they can be listed (else those of
 * ns, with v->wide_note saying why). */
static int read_job_inputs(kube_client *c, const cli_view_opts *o, const char *ns,
                           const kube_decode_opts *dec, cli_view *v, job_inputs *in, ds_err *err)
{
    v->wide = ns == NULL;
    if (ns != NULL && o->wide) {
        ds_err werr = {{0}};
        char line[DS_ERR_MAX * 2];
        if (list_job_inputs(c, NULL, dec, true, in, &werr) == 0) {
            v->wide = true;
            return 0;
        }
        snprintf(v->wide_note, sizeof v->wide_note,
                 "only namespace %.63s is read (every namespace cannot be: %.300s)", ns,
                 cli_oneline(werr.msg, line, sizeof line));
    }
    return list_job_inputs(c, ns, dec, false, in, err);
}

/* The controller's learned run times; a user who may not read them gets the defaults. */
static void load_learned(kube_client *c, const cli_view_opts *o, ds_rt_history *h)
{
    const kube_configmap *cm = NULL;
    long status = 0;
    ds_err err = {{0}};
    if (o->policy_ns == NULL ||
        kube_get_configmap(c, o->policy_ns, DS_RUNTIME_HISTORY_NAME, &cm, &status, &err) != 0)
        return;
    const char *text = kube_cm_value(cm, DS_RUNTIME_HISTORY_DATA_KEY);
    if (text != NULL)
        ds_rt_history_decode(h, text, strlen(text), NULL, &err);
    kube_obj_unref(&cm->meta);
}

int cli_view_load(const cli_view_opts *o, cli_view *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    kube_client *c = NULL;
    if (cli_client_open(o, &c, out->ns, sizeof out->ns, err) != 0)
        return -1;
    if (o->all_namespaces)
        out->ns[0] = '\0';
    const char *ns = out->ns[0] != '\0' ? out->ns : NULL;
    int rc;
    cli_load_policy(c, o, &out->policy, out->policy_note, sizeof out->policy_note);
    const char *gpu[DS_POLICY_MAX_LIST];
    kube_decode_opts dec = {.gpu_names = gpu};
    dec.n_gpu_names = ds_name_list_ptrs(&out->policy.policy.gpu_resource_names, gpu);
    kube_obj_list nodes = {0}, pdbs = {0}, namespaces = {0};
    job_inputs in = {0};
    if (ds_rt_history_init(&out->learned, DS_RT_MAX_KEYS, err) != 0) {
        kube_client_free(c);
        return -1;
    }
    load_learned(c, o, &out->learned);
    rc = read_job_inputs(c, o, ns, &dec, out, &in, err);
    if (rc == 0) {
        /* Node speeds only change priorities of running tasks; a user who may not list nodes
         * still gets every job (speeds count as 1). */
        ds_err nerr = {{0}};
        out->nodes_listed = cli_list_kind(c, KUBE_KIND_NODE, NULL, NULL, &dec, &nodes, &nerr) == 0;
        if (!out->nodes_listed)
            fprintf(stderr, "kubectl-dagsched: warning: %s (node speeds taken as 1)\n", nerr.msg);
        /* Namespaces are cluster-scoped: a user who may not list them gets the jobs without
         * their labels (the commands that need them say so). */
        ds_err serr = {{0}};
        char line[DS_ERR_MAX * 2];
        out->namespaces_listed =
            cli_list_kind(c, KUBE_KIND_NAMESPACE, NULL, NULL, &dec, &namespaces, &serr) == 0;
        if (!out->namespaces_listed)
            snprintf(out->namespaces_note, sizeof out->namespaces_note,
                     "the namespaces cannot be listed: %.250s",
                     cli_oneline(serr.msg, line, sizeof line));
    }
    kube_client_free(c);
    if (rc != 0) {
        kube_obj_list_free(&nodes);
        kube_obj_list_free(&namespaces);
        return -1;
    }
    /* The view records nothing anywhere: a copy of the history learns this view's runs. */
    rc = ctl_snapshot_build_learned(
        &in.pods, &nodes, &pdbs, &in.jobs, &in.graphs, out->namespaces_listed ? &namespaces : NULL,
        &out->policy.policy, &out->learned, rt_wall_now(), &out->snap, err);
    kube_obj_list_free(&namespaces); /* emptied when the snapshot took them */
    return rc;
}

int cli_view_load_or_report(const cli_view_opts *o, cli_view *out)
{
    ds_err err = {{0}};
    if (cli_view_load(o, out, &err) == 0)
        return 0;
    fprintf(stderr, "kubectl-dagsched: %s\n", err.msg);
    cli_view_free(out);
    return 1;
}

void cli_view_free(cli_view *v)
{
    ctl_snapshot_free(&v->snap);
    ds_rt_history_free(&v->learned);
    memset(v, 0, sizeof *v);
}

const ctl_pod *cli_view_task_pod(const ctl_snapshot *s, const ds_job *j, size_t t)
{
    size_t i = j->task_pod[t];
    return i != DS_NONE && i < s->n_pod ? &s->pod[i] : NULL;
}

void cli_view_task_times(const ctl_snapshot *s, const ds_job *j, size_t t, cli_task_times *out)
{
    out->created = out->started = out->finished = NAN;
    const ctl_pod *p = cli_view_task_pod(s, j, t);
    if (p != NULL) {
        const kube_pod *kp = (const kube_pod *)s->pods.items[p - s->pod];
        out->created = p->created_at;
        out->started = p->started_at;
        out->finished = kp->finished_at > 0 ? kp->finished_at : NAN;
    }
    /* A bound pod runs from its start, which the job model takes from its creation while the
     * kubelet has not reported status.startTime yet. */
    if (!isfinite(out->started) && j->valid && t < j->dag.n &&
        j->status[t].state == DS_TASK_RUNNING)
        out->started = j->status[t].started_at;
    if (j->node == NULL || t >= j->dag.n)
        return;
    /* Argo's startedAt is when it created the node: the start of the run only once the node
     * runs or ran, and then only where the pod is gone (a pod says when it really started). */
    const ds_task_node *n = &j->node[t];
    bool ended = n->phase == DS_WF_NODE_SUCCEEDED || n->phase == DS_WF_NODE_FAILED;
    if (p == NULL) {
        out->created = n->started_at;
        if (ended || n->phase == DS_WF_NODE_RUNNING)
            out->started = n->started_at;
    }
    if (!isfinite(out->finished) && ended)
        out->finished = n->finished_at;
}

bool cli_view_shows(const cli_view *v, const ds_job *j)
{
    return v->ns[0] == '\0' || strcmp(j->ns, v->ns) == 0;
}

const ds_job *cli_view_find_job(const ctl_snapshot *s, const char *ns, const char *name)
{
    for (size_t i = 0; i < s->js.n_jobs; i++)
        if (strcmp(s->js.jobs[i].name, name) == 0 &&
            (ns[0] == '\0' || !strcmp(s->js.jobs[i].ns, ns)))
            return &s->js.jobs[i];
    return NULL;
}
