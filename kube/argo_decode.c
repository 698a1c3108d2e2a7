/* argo_decode.c: Argo Workflow JSON into a ds_wf_obs (see argo_decode.h). */
#include "argo_decode.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotations.h"
#include "objects.h"
#include "timefmt.h"

typedef struct actx {
    kube_argo_wf *w;
    const kube_decode_opts *opts;
    char error[DS_ERR_MAX]; /* first content problem */
    bool oom;
    size_t children; /* node children so far */
} actx;

static void problem(actx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(actx *c, const char *fmt, ...)
{
    if (c->error[0] != '\0')
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->error, sizeof c->error, fmt, ap);
    va_end(ap);
}

static void *alloc(actx *c, size_t n, size_t size)
{
    if (n == 0)
        return NULL;
    void *p = ds_arena_calloc(&c->w->arena, n, size);
    if (p == NULL)
        c->oom = true;
    else
        c->w->bytes += n * size;
    return p;
}

/* A copy of the string member `key` (NULL when absent or null; a problem when not a string or
 * longer than max). */
static const char *str(actx *c, const json_t *o, const char *key, const char *path, size_t max)
{
    const json_t *v = json_object_get(o, key);
    if (v == NULL || json_is_null(v))
        return NULL;
    if (!json_is_string(v)) {
        problem(c, "%s%s: must be a string", path, key);
        return NULL;
    }
    size_t n = json_string_length(v);
    if (n > max || strlen(json_string_value(v)) != n) {
        problem(c, "%s%s: longer than %zu bytes or contains a NUL character", path, key, max);
        return NULL;
    }
    char *s = ds_arena_strndup(&c->w->arena, json_string_value(v), n);
    if (s == NULL)
        c->oom = true;
    c->w->bytes += n + 1;
    return s;
}

static double time_of(actx *c, const json_t *o, const char *key, const char *path)
{
    const char *s = json_string_value(json_object_get(o, key));
    double t;
    if (s == NULL || s[0] == '\0')
        return NAN;
    if (ds_timestamp_parse(s, &t, NULL) != 0) {
        problem(c, "%s%s: not an RFC 3339 time", path, key);
        return NAN;
    }
    return t;
}

static const char *annotation(actx *c, const json_t *md, const char *key, const char *path)
{
    return str(c, json_object_get(md, "annotations"), key, path, 256);
}

static void decode_step(actx *c, const json_t *s, const char *path, ds_wf_step *out)
{
    if (!json_is_object(s)) {
        problem(c, "%s: must be an object", path);
        return;
    }
    out->name = str(c, s, "name", path, KUBE_ARGO_MAX_STR);
    out->template_name = str(c, s, "template", path, KUBE_ARGO_MAX_STR);
    out->template_ref = json_object_get(s, "templateRef") != NULL;
    out->depends = str(c, s, "depends", path, DS_WF_DEPENDS_MAX);
    out->fan_out = json_object_get(s, "withItems") != NULL ||
                   json_object_get(s, "withParam") != NULL ||
                   json_object_get(s, "withSequence") != NULL;
    const json_t *deps = json_object_get(s, "dependencies");
    if (deps == NULL || json_is_null(deps))
        return;
    if (!json_is_array(deps) || json_array_size(deps) > KUBE_ARGO_MAX_STEPS) {
        problem(c, "%sdependencies: must be a list of at most %d names", path, KUBE_ARGO_MAX_STEPS);
        return;
    }
    size_t n = json_array_size(deps);
    const char **v = alloc(c, n, sizeof *v);
    for (size_t i = 0; v != NULL && i < n; i++) {
        const json_t *d = json_array_get(deps, i);
        size_t len = json_string_length(d);
        if (!json_is_string(d) || len > KUBE_ARGO_MAX_STR) {
            problem(c, "%sdependencies[%zu]: must be a name", path, i);
            return;
        }
        v[i] = ds_arena_strndup(&c->w->arena, json_string_value(d), len);
        if (v[i] == NULL) {
            c->oom = true;
            return;
        }
        c->w->bytes += len + 1;
    }
    out->dependencies = v;
    out->n_dependencies = n;
}

/* A template's retryStrategy: limit (a number, a string of digits; an expression counts as 0)
 * and whether retryPolicy retries errors. */
static void decode_retry(const json_t *rs, ds_wf_template *out)
{
    out->retry_limit = DS_WF_NO_RETRY;
    out->retries_errors = false;
    if (!json_is_object(rs))
        return;
    const json_t *lim = json_object_get(rs, "limit");
    if (lim == NULL || json_is_null(lim)) {
        out->retry_limit = DS_WF_RETRY_UNLIMITED;
    } else if (json_is_integer(lim)) {
        json_int_t v = json_integer_value(lim);
        out->retry_limit = v < 0 ? 0 : v > 1000000 ? 1000000 : (int)v;
    } else {
        const char *s = json_string_value(lim);
        long v = 0;
        for (size_t i = 0; s != NULL && s[i] != '\0' && v <= 1000000; i++) {
            if (s[i] < '0' || s[i] > '9') {
                v = 0;
                break;
            }
            v = v * 10 + (s[i] - '0');
        }
        out->retry_limit = v > 1000000 ? 1000000 : (int)v;
    }
    const char *policy = json_string_value(json_object_get(rs, "retryPolicy"));
    out->retries_errors =
        policy != NULL && (strcmp(policy, "Always") == 0 || strcmp(policy, "OnError") == 0);
}

/* Add the resources.requests of a container object to r; false when one cannot be read. */
static bool container_requests(const actx *c, const json_t *ct, ds_res *r)
{
    ds_err e = {{0}};
    return kube_requests_add(json_object_get(json_object_get(ct, "resources"), "requests"), c->opts,
                             r, &e) == 0;
}

/* The request of a pod of a pod template, as far as the template says: its container or script,
 * the containers of a containerSet and the sidecars, against its largest init container (the pod
 * rule of kube-scheduler; the executor's own containers, added by Argo, are not counted). Unknown
 * (has_request false) when a quantity cannot be read or the template requests nothing. */
static void template_request(const actx *c, const json_t *t, ds_wf_template *out)
{
    ds_res sum = {{0}}, init_max = {{0}};
    bool ok = true;
    const char *single[] = {"container", "script"};
    for (size_t i = 0; i < 2; i++) {
        const json_t *ct = json_object_get(t, single[i]);
        if (json_is_object(ct))
            ok = ok && container_requests(c, ct, &sum);
    }
    const json_t *lists[] = {json_object_get(json_object_get(t, "containerSet"), "containers"),
                             json_object_get(t, "sidecars")};
    for (size_t l = 0; l < 2; l++) {
        size_t i;
        json_t *ct;
        json_array_foreach(lists[l], i, ct) ok = ok && container_requests(c, ct, &sum);
    }
    size_t i;
    json_t *ct;
    json_array_foreach(json_object_get(t, "initContainers"), i, ct)
    {
        ds_res one = {{0}};
        ok = ok && container_requests(c, ct, &one);
        for (int k = 0; k < DS_RES_N; k++)
            if (one.v[k] > init_max.v[k])
                init_max.v[k] = one.v[k];
    }
    for (int k = 0; k < DS_RES_N; k++)
        if (init_max.v[k] > sum.v[k])
            sum.v[k] = init_max.v[k];
    bool any = false;
    for (int k = 0; k < DS_RES_N; k++)
        any = any || sum.v[k] > 0;
    out->has_request = ok && any;
    if (out->has_request)
        out->request = sum;
}

static void decode_template(actx *c, const json_t *t, size_t ti, ds_wf_template *out)
{
    char path[96];
    snprintf(path, sizeof path, "templates[%zu].", ti);
    if (!json_is_object(t)) {
        problem(c, "templates[%zu]: must be an object", ti);
        return;
    }
    out->name = str(c, t, "name", path, KUBE_ARGO_MAX_STR);
    out->runtime = annotation(c, json_object_get(t, "metadata"), DS_ANN_RUNTIME, path);
    decode_retry(json_object_get(t, "retryStrategy"), out);
    const json_t *dag = json_object_get(t, "dag");
    const json_t *steps = json_object_get(t, "steps");
    if (dag != NULL && !json_is_null(dag)) {
        out->kind = DS_WF_TMPL_DAG;
        const json_t *tasks = json_object_get(dag, "tasks");
        size_t n = json_array_size(tasks);
        if (n > KUBE_ARGO_MAX_STEPS) {
            problem(c, "%sdag.tasks: more than %d", path, KUBE_ARGO_MAX_STEPS);
            return;
        }
        ds_wf_step *v = alloc(c, n, sizeof *v);
        for (size_t i = 0; v != NULL && i < n; i++) {
            char sp[192];
            snprintf(sp, sizeof sp, "%sdag.tasks[%zu].", path, i);
            decode_step(c, json_array_get(tasks, i), sp, &v[i]);
        }
        out->steps = v;
        out->n_steps = v != NULL ? n : 0;
    } else if (steps != NULL && !json_is_null(steps)) {
        out->kind = DS_WF_TMPL_STEPS;
        size_t n = 0, ng = json_array_size(steps);
        for (size_t g = 0; g < ng; g++)
            n += json_array_size(json_array_get(steps, g));
        if (n > KUBE_ARGO_MAX_STEPS) {
            problem(c, "%ssteps: more than %d", path, KUBE_ARGO_MAX_STEPS);
            return;
        }
        ds_wf_step *v = alloc(c, n, sizeof *v);
        size_t k = 0;
        for (size_t g = 0; v != NULL && g < ng; g++) {
            const json_t *grp = json_array_get(steps, g);
            for (size_t i = 0; i < json_array_size(grp); i++) {
                char sp[192];
                snprintf(sp, sizeof sp, "%ssteps[%zu][%zu].", path, g, i);
                decode_step(c, json_array_get(grp, i), sp, &v[k]);
                v[k++].group = g;
            }
        }
        out->steps = v;
        out->n_steps = v != NULL ? n : 0;
    } else if (json_object_get(t, "suspend") != NULL || json_object_get(t, "http") != NULL ||
               json_object_get(t, "plugin") != NULL) {
        out->kind = DS_WF_TMPL_NOPOD;
    } else {
        out->kind = DS_WF_TMPL_POD; /* container, script, containerSet, resource, data */
        template_request(c, t, out);
    }
}

static void decode_node(actx *c, const char *id, const json_t *n, ds_wf_node *out)
{
    char path[64];
    snprintf(path, sizeof path, "status.nodes[%.32s].", id);
    if (!json_is_object(n)) {
        problem(c, "%.60s: must be an object", path);
        return;
    }
    size_t idl = strlen(id);
    char *idc = ds_arena_strndup(&c->w->arena, id, idl);
    if (idc == NULL) {
        c->oom = true;
        return;
    }
    c->w->bytes += idl + 1;
    out->id = idc;
    out->name = str(c, n, "name", path, KUBE_ARGO_MAX_STR);
    out->type = str(c, n, "type", path, 32);
    out->template_name = str(c, n, "templateName", path, KUBE_ARGO_MAX_STR);
    const char *phase = json_string_value(json_object_get(n, "phase"));
    out->phase = phase == NULL ? DS_WF_NODE_PENDING : ds_wf_node_phase_of(phase);
    out->started_at = time_of(c, n, "startedAt", path);
    out->finished_at = time_of(c, n, "finishedAt", path);
    const json_t *est = json_object_get(n, "estimatedDuration");
    out->estimated_duration_s = json_is_integer(est) ? (double)json_integer_value(est) : NAN;
    const json_t *ch = json_object_get(n, "children");
    size_t nc = json_array_size(ch);
    if (nc == 0)
        return;
    c->children += nc;
    if (c->children > KUBE_ARGO_MAX_CHILDREN) {
        problem(c, "status.nodes: more than %d children in all", KUBE_ARGO_MAX_CHILDREN);
        return;
    }
    const char **v = alloc(c, nc, sizeof *v);
    for (size_t i = 0; v != NULL && i < nc; i++) {
        const json_t *x = json_array_get(ch, i);
        size_t len = json_string_length(x);
        if (!json_is_string(x) || len > KUBE_ARGO_MAX_STR) {
            problem(c, "%.60schildren[%zu]: must be a node id", path, i);
            return;
        }
        v[i] = ds_arena_strndup(&c->w->arena, json_string_value(x), len);
        if (v[i] == NULL) {
            c->oom = true;
            return;
        }
        c->w->bytes += len + 1;
    }
    out->children = v;
    out->n_children = nc;
}

/* The job family of learned run times: what every run of the same work shares. The label Argo's
 * `submit --from` sets (its WorkflowTemplate or ClusterWorkflowTemplate), else the CronWorkflow
 * that created it (its runs are named <cron>-<time>, with no generateName), else the
 * WorkflowTemplate it references, else its generateName; NULL when none (the Workflow's own name
 * is then the family). */
static const char *workflow_family(actx *c, const json_t *md, const json_t *spec)
{
    static const char *const labels[] = {"workflows.argoproj.io/workflow-template",
                                         "workflows.argoproj.io/cluster-workflow-template",
                                         "workflows.argoproj.io/cron-workflow"};
    const json_t *l = json_object_get(md, "labels");
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
        const char *f = str(c, l, labels[i], "metadata.labels.", 63);
        if (f != NULL)
            return f;
    }
    const char *f = str(c, json_object_get(spec, "workflowTemplateRef"), "name",
                        "spec.workflowTemplateRef.", 253);
    return f != NULL ? f : str(c, md, "generateName", "metadata.", 253);
}

static void decode(actx *c, const json_t *obj)
{
    ds_wf_obs *o = &c->w->obs;
    const json_t *md = json_object_get(obj, "metadata");
    o->name = str(c, md, "name", "metadata.", 253);
    o->ns = str(c, md, "namespace", "metadata.", 63);
    o->created_at = time_of(c, md, "creationTimestamp", "metadata.");
    o->runtime = annotation(c, md, DS_ANN_RUNTIME, "metadata.annotations.");
    o->deadline = annotation(c, md, DS_ANN_DEADLINE, "metadata.annotations.");
    o->deadline_after = annotation(c, md, DS_ANN_DEADLINE_AFTER, "metadata.annotations.");
    const json_t *spec = json_object_get(obj, "spec");
    o->family = workflow_family(c, md, spec);
    const json_t *status = json_object_get(obj, "status");
    /* A Workflow of a WorkflowTemplate: Argo stores the template's spec in the status. */
    const json_t *src = spec;
    const json_t *stored = json_object_get(status, "storedWorkflowTemplateSpec");
    if (json_array_size(json_object_get(spec, "templates")) == 0 && json_is_object(stored))
        src = stored;
    o->entrypoint = str(c, spec, "entrypoint", "spec.", KUBE_ARGO_MAX_STR);
    if (o->entrypoint == NULL)
        o->entrypoint = str(c, src, "entrypoint", "spec.", KUBE_ARGO_MAX_STR);
    const json_t *templates = json_object_get(src, "templates");
    size_t nt = json_array_size(templates);
    if (nt > DS_WF_MAX_TEMPLATES) {
        problem(c, "spec.templates: more than %d", DS_WF_MAX_TEMPLATES);
        return;
    }
    ds_wf_template *tv = alloc(c, nt, sizeof *tv);
    for (size_t i = 0; tv != NULL && i < nt && !c->oom; i++)
        decode_template(c, json_array_get(templates, i), i, &tv[i]);
    o->templates = tv;
    o->n_templates = tv != NULL ? nt : 0;
    const json_t *nodes = json_object_get(status, "nodes");
    if (json_object_size(nodes) == 0 && json_object_get(status, "compressedNodes") != NULL) {
        problem(c, "status.compressedNodes: compressed node status is not supported");
        return;
    }
    const char *offload = json_string_value(json_object_get(status, "offloadNodeStatusVersion"));
    if (json_object_size(nodes) == 0 && offload != NULL && offload[0] != '\0') {
        problem(c, "status.offloadNodeStatusVersion: offloaded node status is not supported");
        return;
    }
    size_t nn = json_object_size(nodes);
    if (nn > DS_WF_MAX_NODES) {
        problem(c, "status.nodes: more than %d", DS_WF_MAX_NODES);
        return;
    }
    ds_wf_node *nv = alloc(c, nn, sizeof *nv);
    size_t k = 0;
    const char *id;
    json_t *n;
    json_object_foreach((json_t *)nodes, id, n)
    {
        if (nv == NULL || c->oom)
            break;
        decode_node(c, id, n, &nv[k++]);
    }
    o->nodes = nv;
    o->n_nodes = nv != NULL ? k : 0;
}

int kube_argo_decode(const json_t *obj, const kube_decode_opts *opts, kube_argo_wf **out,
                     ds_err *err)
{
    *out = NULL;
    if (!json_is_object(obj))
        return ds_err_set(err, "workflow: not a JSON object");
    kube_argo_wf *w = calloc(1, sizeof *w);
    if (w == NULL)
        return ds_err_set(err, "workflow: out of memory");
    actx c = {.w = w, .opts = opts};
    decode(&c, obj);
    if (c.oom) {
        kube_argo_wf_free(w);
        return ds_err_set(err, "workflow: out of memory");
    }
    if (c.error[0] != '\0') {
        char *e = ds_arena_strdup(&w->arena, c.error);
        if (e == NULL) {
            kube_argo_wf_free(w);
            return ds_err_set(err, "workflow: out of memory");
        }
        w->obs.decode_error = e;
    }
    *out = w;
    return 0;
}

void kube_argo_wf_free(kube_argo_wf *w)
{
    if (w == NULL)
        return;
    ds_arena_free(&w->arena);
    free(w);
}
