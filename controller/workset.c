/* workset.c: the DAG jobs of a round, their graph work, and which ones the round defers (see
 * workset.h). */
#include "workset.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotations.h"
#include "jobgraph.h"
#include "model_input.h"

#define KEY_MAX 640 /* "ns/" + a marker and any object name + NUL */

/* A job as its objects are gathered. */
typedef struct acc {
    const char *key; /* in the round's arena */
    size_t graph_tasks, objects;
    const kube_meta *graph, *wf, *pod_live, *pod_any;
} acc;

typedef struct build {
    ctl_work_round *r;
    acc *a;
    size_t n, cap;
} build;

void ctl_workset_init(ctl_workset *w)
{
    memset(w, 0, sizeof *w);
}

static void fact_free(ctl_graph_fact *f)
{
    free(f->id);
    free(f->job);
    memset(f, 0, sizeof *f);
}

void ctl_workset_free(ctl_workset *w)
{
    for (size_t i = 0; i < w->n_facts; i++)
        fact_free(&w->facts[i]);
    free(w->facts);
    free(w->start);
    memset(w, 0, sizeof *w);
}

void ctl_work_round_free(ctl_work_round *r)
{
    free(r->jobs);
    free(r->graph_deferred);
    ds_strmap_free(&r->index);
    ds_arena_free(&r->arena);
    memset(r, 0, sizeof *r);
}

static const char *or_empty(const char *s)
{
    return s != NULL ? s : "";
}

/* "ns/name" when name can be a job's name, else "ns/#<what>:<name>": a work item of its own,
 * which no pod names. */
static void key_of(const char *ns, const char *name, const char *what, char *buf, size_t size)
{
    name = or_empty(name);
    if (ds_name_valid(name, strlen(name)))
        snprintf(buf, size, "%s/%s", or_empty(ns), name);
    else
        snprintf(buf, size, "%s/#%s:%.500s", or_empty(ns), what, name);
}

/* The job of key, added when new; NULL when out of memory. */
static acc *job_of(build *b, const char *key)
{
    size_t len = strlen(key), idx;
    if (ds_strmap_get(&b->r->index, key, len, &idx) == 0)
        return &b->a[idx];
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        acc *a = realloc(b->a, cap * sizeof *a);
        if (a == NULL)
            return NULL;
        b->a = a;
        b->cap = cap;
    }
    if (b->r->index.n >= b->r->index.max &&
        ds_strmap_reserve(&b->r->index, 2 * b->r->index.max) != 0)
        return NULL;
    char *k = ds_arena_strndup(&b->r->arena, key, len);
    if (k == NULL || ds_strmap_put(&b->r->index, k, len, b->n, NULL) != 0)
        return NULL;
    acc *a = &b->a[b->n++];
    memset(a, 0, sizeof *a);
    a->key = k;
    return a;
}

static bool earlier(const kube_meta *m, const kube_meta *than)
{
    return than == NULL || strcmp(or_empty(m->name), or_empty(than->name)) < 0;
}

/* ---- JobGraph facts, read once per version ---- */

static int cmp_fact(const void *x, const void *y)
{
    return strcmp(((const ctl_graph_fact *)x)->id, ((const ctl_graph_fact *)y)->id);
}

static char *fact_id(const kube_meta *m)
{
    char buf[KEY_MAX + 64];
    if (m->uid != NULL && m->uid[0] != '\0')
        snprintf(buf, sizeof buf, "%.300s\n%.200s", m->uid, or_empty(m->resource_version));
    else
        snprintf(buf, sizeof buf, "%.63s/%.300s\n%.200s", or_empty(m->ns), or_empty(m->name),
                 or_empty(m->resource_version));
    return strdup(buf);
}

/* Read what the graph declares into f (f->id set). -1 when out of memory. */
static int read_fact(ctl_workset *w, const kube_configmap *cm, ctl_graph_fact *f)
{
    ds_graph_obs o;
    kube_graph_obs(cm, &o);
    ds_jobgraph g;
    ds_err err = {{0}};
    int rc = ds_jobgraph_parse(o.yaml, o.len, &g, &err);
    w->reads++;
    f->tasks = rc == 0 ? g.n_tasks : o.len / DS_JOBGRAPH_MIN_TASK_BYTES;
    f->job = NULL;
    if (g.name != NULL && ds_name_valid(g.name, strlen(g.name)) &&
        (f->job = strdup(g.name)) == NULL) {
        ds_jobgraph_free(&g);
        return -1;
    }
    ds_jobgraph_free(&g);
    return 0;
}

/* The facts of the listed JobGraph ConfigMaps, in list order: those of the last round for versions
 * seen before, read for the others; taken[i]: the old fact i is reused (moved at commit). */
typedef struct fact_ref {
    ctl_graph_fact f;
    size_t old; /* index into w->facts, SIZE_MAX when read now */
} fact_ref;

static int gather_facts(ctl_workset *w, const kube_obj_list *graphs, fact_ref *refs, bool *taken,
                        size_t *n_refs)
{
    size_t n = 0;
    for (size_t i = 0; i < graphs->n; i++) {
        const kube_meta *m = graphs->items[i];
        if (m->kind == KUBE_KIND_WORKFLOW)
            continue;
        fact_ref *r = &refs[n];
        memset(r, 0, sizeof *r);
        r->old = SIZE_MAX;
        char *id = fact_id(m);
        if (id == NULL)
            return -1;
        ctl_graph_fact key = {.id = id};
        const ctl_graph_fact *hit =
            w->n_facts > 0 ? bsearch(&key, w->facts, w->n_facts, sizeof key, cmp_fact) : NULL;
        if (hit != NULL && !taken[hit - w->facts]) {
            free(id);
            r->old = (size_t)(hit - w->facts);
            taken[r->old] = true;
            r->f = *hit;
        } else {
            r->f.id = id;
            n++; /* counted before reading, so that a failure frees it */
            if (read_fact(w, (const kube_configmap *)m, &r->f) != 0) {
                *n_refs = n;
                return -1;
            }
            continue;
        }
        n++;
    }
    *n_refs = n;
    return 0;
}

static void drop_facts(fact_ref *refs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (refs[i].old == SIZE_MAX)
            fact_free(&refs[i].f);
}

/* ---- the round ---- */

static int cmp_acc(const void *x, const void *y)
{
    return strcmp(((const acc *)x)->key, ((const acc *)y)->key);
}

/* The graphs' jobs; gkey[i]: the key of graph i (in the arena). */
static int add_graphs(build *b, const kube_obj_list *graphs, const fact_ref *refs,
                      const char **gkey)
{
    char key[KEY_MAX];
    size_t f = 0;
    for (size_t i = 0; i < graphs->n; i++) {
        const kube_meta *m = graphs->items[i];
        acc *a;
        if (m->kind == KUBE_KIND_WORKFLOW) {
            key_of(m->ns, m->name, "workflow", key, sizeof key);
            if ((a = job_of(b, key)) == NULL)
                return -1;
            ds_wf_obs o;
            kube_workflow_obs((const kube_workflow *)m, &o);
            size_t steps = o.n_nodes;
            for (size_t t = 0; t < o.n_templates; t++)
                steps += o.templates[t].n_steps;
            a->graph_tasks += steps;
            if (earlier(m, a->wf))
                a->wf = m;
        } else {
            const ctl_graph_fact *fact = &refs[f++].f;
            if (fact->job != NULL)
                snprintf(key, sizeof key, "%s/%s", or_empty(m->ns), fact->job);
            else /* it declares no job: a work item of its own, which no pod names */
                snprintf(key, sizeof key, "%s/#graph:%.500s", or_empty(m->ns), or_empty(m->name));
            if ((a = job_of(b, key)) == NULL)
                return -1;
            a->graph_tasks += fact->tasks;
            if (earlier(m, a->graph))
                a->graph = m;
        }
        gkey[i] = a->key;
    }
    return 0;
}

/* The pods' and batch Jobs' jobs: each object that names one counts once. */
static int add_objects(build *b, const kube_obj_list *l, bool pods)
{
    char key[KEY_MAX];
    for (size_t i = 0; i < l->n; i++) {
        const kube_meta *m = l->items[i];
        ds_pod_obs o;
        kube_meta_obs(m, &o);
        const char *job = ds_job_label_value(o.job_label, o.argo_workflow, NULL);
        if (job == NULL || !ds_name_valid(job, strlen(job)))
            continue;
        snprintf(key, sizeof key, "%s/%s", or_empty(m->ns), job);
        acc *a = job_of(b, key);
        if (a == NULL)
            return -1;
        a->objects++;
        if (!pods)
            continue;
        const kube_pod *p = (const kube_pod *)m;
        bool live = p->phase != KUBE_POD_SUCCEEDED && p->phase != KUBE_POD_FAILED && !m->deleting;
        if (live && earlier(m, a->pod_live))
            a->pod_live = m;
        if (earlier(m, a->pod_any))
            a->pod_any = m;
    }
    return 0;
}

/* Commit the facts of this round to w (reused ones moved, the others freed). */
static int commit_facts(ctl_workset *w, fact_ref *refs, size_t n, bool *taken)
{
    ctl_graph_fact *facts = calloc(n ? n : 1, sizeof *facts);
    if (facts == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        facts[i] = refs[i].f;
    for (size_t i = 0; i < w->n_facts; i++)
        if (!taken[i])
            fact_free(&w->facts[i]);
    free(w->facts);
    if (n > 1)
        qsort(facts, n, sizeof *facts, cmp_fact);
    w->facts = facts;
    w->n_facts = n;
    return 0;
}

int ctl_workset_plan(ctl_workset *w, const kube_obj_list *pods, const kube_obj_list *jobs,
                     const kube_obj_list *graphs, size_t bound, ctl_work_round *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    out->bound = bound;
    if (bound == 0) { /* every job, every round: nothing to read or to carry */
        out->graph_deferred = calloc(graphs->n ? graphs->n : 1, sizeof *out->graph_deferred);
        if (out->graph_deferred == NULL || ds_strmap_init(&out->index, 1) != 0) {
            ctl_work_round_free(out);
            return ds_err_set(err, "graph work: out of memory");
        }
        out->n_graphs = graphs->n;
        out->plan.next_start = SIZE_MAX;
        for (size_t i = 0; i < w->n_facts; i++)
            fact_free(&w->facts[i]);
        free(w->facts);
        w->facts = NULL;
        w->n_facts = 0;
        free(w->start);
        w->start = NULL;
        w->debt = 0;
        return 0;
    }
    build b = {.r = out};
    fact_ref *refs = calloc(graphs->n ? graphs->n : 1, sizeof *refs);
    bool *taken = calloc(w->n_facts ? w->n_facts : 1, sizeof *taken);
    const char **gkey = calloc(graphs->n ? graphs->n : 1, sizeof *gkey);
    out->graph_deferred = calloc(graphs->n ? graphs->n : 1, sizeof *out->graph_deferred);
    out->n_graphs = graphs->n;
    size_t n_refs = 0;
    ds_work_job *wj = NULL;
    bool *eval = NULL;
    char *start = NULL;
    if (refs == NULL || taken == NULL || gkey == NULL || out->graph_deferred == NULL ||
        ds_strmap_init(&out->index, 64) != 0 ||
        gather_facts(w, graphs, refs, taken, &n_refs) != 0 ||
        add_graphs(&b, graphs, refs, gkey) != 0 || add_objects(&b, pods, true) != 0 ||
        add_objects(&b, jobs, false) != 0)
        goto oom;
    if (b.n > 1)
        qsort(b.a, b.n, sizeof *b.a, cmp_acc);
    out->jobs = calloc(b.n ? b.n : 1, sizeof *out->jobs);
    wj = calloc(b.n ? b.n : 1, sizeof *wj);
    eval = calloc(b.n ? b.n : 1, sizeof *eval);
    if (out->jobs == NULL || wj == NULL || eval == NULL)
        goto oom;
    for (size_t i = 0; i < b.n; i++) {
        const acc *a = &b.a[i];
        wj[i] = (ds_work_job){a->key, a->graph_tasks > a->objects ? a->graph_tasks : a->objects};
        out->jobs[i] = (ctl_work_job){.key = a->key,
                                      .tasks = wj[i].tasks,
                                      .target = a->graph      ? a->graph
                                                : a->wf       ? a->wf
                                                : a->pod_live ? a->pod_live
                                                              : a->pod_any};
    }
    out->n_jobs = b.n;
    /* The index, built in the order the jobs were met, now in the sorted order. */
    ds_strmap_free(&out->index);
    if (ds_strmap_init(&out->index, b.n ? b.n : 1) != 0)
        goto oom;
    for (size_t i = 0; i < b.n; i++)
        if (ds_strmap_put(&out->index, out->jobs[i].key, strlen(out->jobs[i].key), i, NULL) != 0)
            goto oom;
    if (ds_work_select(wj, b.n, bound, w->start, w->debt, eval, &out->plan, err) != 0)
        goto fail;
    if (out->plan.next_start != SIZE_MAX && (start = strdup(wj[out->plan.next_start].key)) == NULL)
        goto oom;
    for (size_t i = 0; i < b.n; i++)
        out->jobs[i].deferred = !eval[i];
    for (size_t i = 0; i < graphs->n; i++) {
        size_t idx;
        out->graph_deferred[i] =
            ds_strmap_get(&out->index, gkey[i], strlen(gkey[i]), &idx) == 0 && !eval[idx];
    }
    if (commit_facts(w, refs, n_refs, taken) != 0)
        goto oom;
    free(w->start);
    w->start = start;
    w->debt = out->plan.debt;
    free(refs);
    free(taken);
    free(gkey);
    free(b.a);
    free(wj);
    free(eval);
    return 0;
oom:
    ds_err_set(err, "graph work: out of memory (%zu jobs)", b.n);
fail:
    drop_facts(refs, n_refs);
    free(refs);
    free(taken);
    free(gkey);
    free(b.a);
    free(wj);
    free(eval);
    free(start);
    ctl_work_round_free(out);
    return -1;
}

bool ctl_work_key_deferred(const ctl_work_round *r, const char *key, size_t len)
{
    size_t idx;
    return r != NULL && r->n_jobs > 0 && key != NULL &&
           ds_strmap_get(&r->index, key, len, &idx) == 0 && idx < r->n_jobs &&
           r->jobs[idx].deferred;
}

bool ctl_work_deferred(const ctl_work_round *r, const char *ns, const char *job)
{
    if (r == NULL || r->n_jobs == 0 || job == NULL)
        return false;
    char key[KEY_MAX];
    int n = snprintf(key, sizeof key, "%s/%s", or_empty(ns), job);
    return n > 0 && (size_t)n < sizeof key && ctl_work_key_deferred(r, key, (size_t)n);
}
