/* jobmodel.c: grouping observed pods and JobGraphs into jobs, validating each job and building its
 * DAG and deadline (see jobmodel.h). Task states and priorities are computed in jobstate.c. */
#include "jobmodel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobstate.h"
#include "pod_times.h"
#include "strquote.h"
#include "timefmt.h"

#define KEY_MAX (2 * DS_NAME_VALUE_MAX + 2) /* "ns/name" + NUL */

/* What ds_jobs_build learns about one pod before looking at its job. */
typedef struct pod_work {
    bool has_task;     /* a valid task label */
    bool argo_node;    /* no task label, but Argo's node annotations (resolved by the Workflow) */
    char *ann_error;   /* first malformed annotation, or NULL */
    bool runtime_set;  /* dagsched.io/runtime present and valid */
    double runtime_s;  /* when runtime_set */
    int deadline_kind; /* DS_DEADLINE_* (ds_deadline_kind), when valid */
    double deadline;   /* epoch s (absolute) or duration s (after) */
    char **deps;       /* dagsched.io/depends-on names, when valid */
    size_t n_deps;
} pod_work;

/* Per job, while building. */
typedef struct job_work {
    size_t graph;  /* first graph declaring the job, or DS_NONE */
    size_t graph2; /* a second one (an error), or DS_NONE */
    size_t wf;     /* the Workflow declaring the job, or DS_NONE */
    size_t n_pods;
} job_work;

/* A pod of a job with a task label, for sorting by task then name. */
typedef struct task_pod {
    const char *task;
    const char *name;
    const char *uid;
    size_t pod;
} task_pod;

typedef struct builder {
    ds_jobset *s;
    const ds_pod_obs *pods;
    const ds_graph_obs *graphs;
    ds_jobgraph *parsed; /* [n_graphs] */
    const ds_wf_obs *wfs;
    ds_wf_job *wjobs; /* [n_wfs] */
    pod_work *pw;     /* [n_pods] */
    job_work *jw;     /* [cap_jobs] */
    size_t cap_jobs;
    double now;
    const ds_rt_history *learned; /* run times learned from earlier runs, or NULL */
    ds_arena tmp;                 /* scratch freed at the end of the build */
    ds_err *err;
} builder;

bool ds_jobset_runtime_key(const ds_job *j, const char *task, char *buf, size_t size)
{
    if (j == NULL || task == NULL)
        return false;
    const char *family = j->family != NULL ? j->family : j->name;
    size_t n = strlen(task);
    /* An Argo item or retry suffix: "crunch(3:3)" is task crunch. */
    if (j->workflow != NULL && n > 2 && task[n - 1] == ')') {
        const char *open = memchr(task, '(', n);
        if (open != NULL && open > task)
            n = (size_t)(open - task);
    }
    char base[DS_RT_KEY_MAX];
    if (n >= sizeof base)
        return false;
    memcpy(base, task, n);
    base[n] = '\0';
    return ds_rt_key(j->ns, family, base, buf, size);
}

/* The learned run time of a task of j (NAN when none); runs: how many runs it comes from. */
static double learned_runtime(const builder *b, const ds_job *j, const char *task, unsigned *runs)
{
    char key[DS_RT_KEY_MAX];
    if (runs != NULL)
        *runs = 0;
    if (b->learned == NULL || !ds_jobset_runtime_key(j, task, key, sizeof key))
        return NAN;
    return ds_rt_history_estimate(b->learned, key, runs);
}

static int oom(builder *b)
{
    return ds_err_set(b->err, "out of memory");
}

static const char *pod_label(const ds_pod_obs *p)
{
    if (p->name != NULL)
        return p->name;
    if (p->uid != NULL)
        return p->uid;
    return "(unnamed)";
}

static int cmp_nullable(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int cmp_task_pod(const void *x, const void *y)
{
    const task_pod *a = x, *b = y;
    int c = strcmp(a->task, b->task);
    if (c == 0)
        c = cmp_nullable(a->name, b->name);
    if (c == 0)
        c = cmp_nullable(a->uid, b->uid);
    if (c == 0)
        c = (a->pod > b->pod) - (a->pod < b->pod);
    return c;
}

/* Append a warning to a pod ("; "-separated). */
static int add_warning(builder *b, size_t pod, const char *msg)
{
    ds_pod_result *r = &b->s->pods[pod];
    char *w = r->warning == NULL ? ds_arena_strdup(&b->s->arena, msg)
                                 : ds_arena_printf(&b->s->arena, "%s; %s", r->warning, msg);
    if (w == NULL)
        return oom(b);
    r->warning = w;
    return 0;
}

/* *slot = a copy of msg in the job set's arena. */
static int set_error(builder *b, char **slot, const char *msg)
{
    *slot = ds_arena_strdup(&b->s->arena, msg);
    return *slot == NULL ? oom(b) : 0;
}

static int set_pod_error(builder *b, size_t pod, const char *msg)
{
    return set_error(b, &b->s->pods[pod].error, msg);
}

static int set_job_error(builder *b, ds_job *j, const char *msg)
{
    j->valid = false;
    return set_error(b, &j->error, msg);
}

/* The job for "ns/name", created when new. */
static int job_get(builder *b, const char *ns, const char *name, size_t *job)
{
    ds_jobset *s = b->s;
    char *key = ds_arena_printf(&s->arena, "%s/%s", ns, name);
    if (key == NULL)
        return oom(b);
    int put = ds_strmap_put(&s->job_index, key, strlen(key), s->n_jobs, job);
    if (put < 0)
        return oom(b);
    if (put == 1)
        return 0;
    if (s->n_jobs == b->cap_jobs) {
        size_t cap = b->cap_jobs == 0 ? 16 : b->cap_jobs * 2;
        ds_job *jobs = realloc(s->jobs, cap * sizeof *jobs);
        if (jobs == NULL)
            return oom(b);
        s->jobs = jobs;
        job_work *jw = realloc(b->jw, cap * sizeof *jw);
        if (jw == NULL)
            return oom(b);
        b->jw = jw;
        b->cap_jobs = cap;
    }
    *job = s->n_jobs++;
    ds_job *j = &s->jobs[*job];
    memset(j, 0, sizeof *j);
    j->key = key;
    j->ns = ds_arena_strdup(&s->arena, ns);
    j->name = ds_arena_strdup(&s->arena, name);
    if (j->ns == NULL || j->name == NULL)
        return oom(b);
    j->valid = true;
    j->deadline = INFINITY;
    j->created_at = NAN;
    b->jw[*job] = (job_work){.graph = DS_NONE, .graph2 = DS_NONE, .wf = DS_NONE, .n_pods = 0};
    return 0;
}

static bool ns_valid(const char *ns)
{
    return ns != NULL && ds_name_valid(ns, strnlen(ns, DS_NAME_VALUE_MAX + 1));
}

static int observe_graphs(builder *b, size_t n_graphs)
{
    ds_jobset *s = b->s;
    for (size_t i = 0; i < n_graphs; i++) {
        const ds_graph_obs *g = &b->graphs[i];
        ds_graph_result *r = &s->graphs[i];
        r->job = DS_NONE;
        ds_err e = {{0}};
        int rc;
        if (!ns_valid(g->ns))
            rc = ds_err_set(&e, "ConfigMap has no valid namespace");
        else
            rc = ds_jobgraph_parse(g->yaml, g->len, &b->parsed[i], &e);
        if (rc != 0 && set_error(b, &r->error, e.msg) != 0)
            return -1;
        if (b->parsed[i].name == NULL)
            continue;
        if (job_get(b, g->ns, b->parsed[i].name, &r->job) != 0)
            return -1;
        job_work *w = &b->jw[r->job];
        if (w->graph == DS_NONE)
            w->graph = i;
        else if (w->graph2 == DS_NONE)
            w->graph2 = i;
    }
    return 0;
}

static int observe_workflows(builder *b, size_t n_wfs)
{
    ds_jobset *s = b->s;
    for (size_t i = 0; i < n_wfs; i++) {
        const ds_wf_obs *w = &b->wfs[i];
        ds_wf_result *r = &s->wfs[i];
        r->job = DS_NONE;
        if (!ns_valid(w->ns) || w->name == NULL ||
            !ds_name_valid(w->name, strnlen(w->name, DS_NAME_VALUE_MAX + 1))) {
            if (set_error(b, &r->error,
                          "the Workflow's namespace or name is not usable as a job key") != 0)
                return -1;
            continue;
        }
        ds_err e = {{0}};
        if (ds_wf_expand(w, &b->wjobs[i], &e) != 0) {
            if (strcmp(e.msg, "out of memory") == 0)
                return oom(b);
            if (set_error(b, &r->error, e.msg) != 0)
                return -1;
        }
        if (job_get(b, w->ns, w->name, &r->job) != 0)
            return -1;
        if (b->jw[r->job].wf == DS_NONE)
            b->jw[r->job].wf = i;
    }
    return 0;
}

/* Parse one pod's dagsched annotations into pw (first error into pw->ann_error). */
static int parse_annotations(builder *b, const ds_pod_obs *p, pod_work *pw)
{
    ds_err e = {{0}};
    const char *what = NULL;
    ds_pod_times times;
    if (ds_pod_times_parse(p->runtime, p->deadline, p->deadline_after, &times, &e) != 0) {
        pw->ann_error = ds_arena_strdup(&b->tmp, e.msg);
        return pw->ann_error == NULL ? oom(b) : 0;
    }
    pw->runtime_set = times.runtime_set;
    pw->runtime_s = times.runtime_s;
    pw->deadline_kind = (int)times.deadline_kind;
    pw->deadline = times.deadline;
    if (p->depends_on != NULL) {
        size_t max = ds_depends_on_max_entries(p->depends_on);
        ds_span *spans = ds_arena_calloc(&b->tmp, max, sizeof *spans);
        if (spans == NULL)
            return oom(b);
        size_t n;
        if (ds_depends_on_parse(p->depends_on, spans, &n, &e) != 0) {
            what = DS_ANN_DEPENDS_ON;
        } else if (n > 0) {
            pw->deps = ds_arena_calloc(&b->tmp, n, sizeof *pw->deps);
            if (pw->deps == NULL)
                return oom(b);
            for (size_t k = 0; k < n; k++) {
                pw->deps[k] = ds_arena_strndup(&b->tmp, p->depends_on + spans[k].off, spans[k].len);
                if (pw->deps[k] == NULL)
                    return oom(b);
            }
            pw->n_deps = n;
        }
    }
    if (what != NULL) {
        pw->ann_error = ds_arena_printf(&b->tmp, "annotation %s: %s", what, e.msg);
        if (pw->ann_error == NULL)
            return oom(b);
    }
    return 0;
}

static int observe_pods(builder *b, size_t n_pods)
{
    ds_jobset *s = b->s;
    for (size_t i = 0; i < n_pods; i++) {
        const ds_pod_obs *p = &b->pods[i];
        ds_pod_result *r = &s->pods[i];
        r->job = DS_NONE;
        r->task = DS_NONE;
        if (p->uid != NULL) {
            char *uid = ds_arena_strdup(&s->arena, p->uid);
            if (uid == NULL)
                return oom(b);
            if (ds_strmap_put(&s->pod_index, uid, strlen(uid), i, NULL) < 0)
                return oom(b);
        }
        const char *label;
        const char *key = ds_job_label_value(p->job_label, p->argo_workflow, &label);
        if (key == NULL) {
            if (p->task != NULL &&
                add_warning(b, i,
                            "label " DS_LABEL_TASK " without a job label (" DS_LABEL_JOB
                            "): the pod is not part of a DAG job") != 0)
                return -1;
            continue;
        }
        ds_err e;
        if (!ns_valid(p->ns)) {
            ds_err_set(&e, "pod has no valid namespace");
            if (set_pod_error(b, i, e.msg) != 0)
                return -1;
            continue;
        }
        if (!ds_name_valid(key, strnlen(key, DS_NAME_VALUE_MAX + 1))) {
            char q[DS_QUOTE_BUF];
            ds_err_set(&e, "label %s: job name " DS_NAME_RULE " (got %s)", label,
                       ds_quote(key, DS_NAME_VALUE_MAX, q, sizeof q));
            if (set_pod_error(b, i, e.msg) != 0)
                return -1;
            continue;
        }
        if (job_get(b, p->ns, key, &r->job) != 0)
            return -1;
        b->jw[r->job].n_pods++;
        r->depends = ds_depends_on_declared(p->depends_on);
        if (p->task == NULL && (p->argo_node_id != NULL || p->argo_node_name != NULL)) {
            b->pw[i].argo_node = true; /* its job's Workflow, if any, says which task it is */
            continue;
        }
        if (p->task == NULL) {
            ds_err_set(&e, "missing label " DS_LABEL_TASK " (the pod has label %s=%s)", label, key);
            if (set_pod_error(b, i, e.msg) != 0)
                return -1;
            continue;
        }
        if (!ds_name_valid(p->task, strnlen(p->task, DS_NAME_VALUE_MAX + 1))) {
            char q[DS_QUOTE_BUF];
            ds_err_set(&e, "label " DS_LABEL_TASK ": task name " DS_NAME_RULE " (got %s)",
                       ds_quote(p->task, DS_NAME_VALUE_MAX, q, sizeof q));
            if (set_pod_error(b, i, e.msg) != 0)
                return -1;
            continue;
        }
        b->pw[i].has_task = true;
        if (parse_annotations(b, p, &b->pw[i]) != 0)
            return -1;
    }
    return 0;
}

/* Every job's list of pods, in input order. */
static int collect_job_pods(builder *b, size_t n_pods)
{
    ds_jobset *s = b->s;
    for (size_t j = 0; j < s->n_jobs; j++) {
        if (b->jw[j].n_pods == 0)
            continue;
        s->jobs[j].pods = ds_arena_calloc(&s->arena, b->jw[j].n_pods, sizeof(size_t));
        if (s->jobs[j].pods == NULL)
            return oom(b);
    }
    for (size_t i = 0; i < n_pods; i++) {
        size_t j = s->pods[i].job;
        if (j == DS_NONE)
            continue;
        ds_job *job = &s->jobs[j];
        job->pods[job->n_pods++] = i;
        double c = b->pods[i].created_at;
        if (isfinite(c) && (isnan(job->created_at) || c < job->created_at))
            job->created_at = c;
    }
    return 0;
}

/* The job's pods that have a task label, sorted by task name, then pod name. */
static task_pod *sorted_task_pods(builder *b, const ds_job *j, size_t *n)
{
    *n = 0;
    if (j->n_pods == 0)
        return NULL;
    task_pod *tp = ds_arena_calloc(&b->tmp, j->n_pods, sizeof *tp);
    if (tp == NULL) {
        oom(b);
        return NULL;
    }
    for (size_t k = 0; k < j->n_pods; k++) {
        size_t i = j->pods[k];
        if (!b->pw[i].has_task)
            continue;
        tp[*n] = (task_pod){b->pods[i].task, b->pods[i].name, b->pods[i].uid, i};
        (*n)++;
    }
    qsort(tp, *n, sizeof *tp, cmp_task_pod);
    return tp;
}

/* End of the run of equal task names starting at k. */
static size_t run_end(const task_pod *tp, size_t n, size_t k)
{
    size_t e = k + 1;
    while (e < n && strcmp(tp[e].task, tp[k].task) == 0)
        e++;
    return e;
}

static size_t best_pod(const builder *b, const task_pod *tp, size_t from, size_t to)
{
    size_t best = tp[from].pod;
    for (size_t k = from + 1; k < to; k++)
        if (ds_pod_obs_better(&b->pods[tp[k].pod], &b->pods[best]))
            best = tp[k].pod;
    return best;
}

static int alloc_task_pods(builder *b, ds_job *j)
{
    j->task_pod = ds_arena_calloc(&b->s->arena, j->dag.n, sizeof *j->task_pod);
    if (j->task_pod == NULL)
        return oom(b);
    for (size_t t = 0; t < j->dag.n; t++)
        j->task_pod[t] = DS_NONE;
    return 0;
}

/* Assign the pods of a run to task t of the job (the best one represents it). */
static void assign_run(builder *b, ds_job *j, const task_pod *tp, size_t from, size_t to, size_t t)
{
    size_t best = best_pod(b, tp, from, to);
    j->task_pod[t] = best;
    for (size_t k = from; k < to; k++) {
        b->s->pods[tp[k].pod].task = t;
        b->s->pods[tp[k].pod].primary = tp[k].pod == best;
    }
}

/* An upstream task that no pod of the job carries (yet). */
typedef struct missing_task {
    const char *name;
    const char *first_dependent; /* the task that named it in the oldest pod */
    double named_since;          /* creation of that pod; NAN when unknown */
} missing_task;

/* Append to the n_tasks specs of a job declared by annotations a task without upstream for every
 * upstream name that no run of tp carries (*miss, *n_miss: what they are). Its pods may be created
 * after their dependents', or were deleted: either way the dependents must wait for it. */
static int add_missing_tasks(builder *b, const task_pod *tp, size_t n, ds_task_spec **specs,
                             size_t n_tasks, missing_task **miss, size_t *n_miss)
{
    ds_task_spec *sp = *specs;
    size_t n_refs = 0;
    for (size_t t = 0; t < n_tasks; t++)
        n_refs += sp[t].n_upstream;
    *miss = NULL;
    *n_miss = 0;
    if (n_refs == 0)
        return 0;
    ds_strmap names;
    if (ds_strmap_init(&names, n_tasks + n_refs) != 0)
        return oom(b);
    int rc = 0;
    for (size_t t = 0; t < n_tasks && rc == 0; t++)
        if (ds_strmap_put(&names, sp[t].name, strlen(sp[t].name), t, NULL) < 0)
            rc = oom(b);
    missing_task *m = rc == 0 ? ds_arena_calloc(&b->tmp, n_refs, sizeof *m) : NULL;
    if (rc == 0 && m == NULL)
        rc = oom(b);
    /* The pod that describes each task (tp runs in spec order) and when it was created. */
    size_t t = 0;
    for (size_t k = 0; k < n && rc == 0; k = run_end(tp, n, k), t++) {
        double created = b->pods[best_pod(b, tp, k, run_end(tp, n, k))].created_at;
        for (size_t u = 0; u < sp[t].n_upstream && rc == 0; u++) {
            const char *up = sp[t].upstream[u];
            size_t at;
            int put = ds_strmap_put(&names, up, strlen(up), n_tasks + *n_miss, &at);
            if (put < 0) {
                rc = oom(b);
            } else if (put == 0) {
                m[(*n_miss)++] = (missing_task){up, sp[t].name, created};
            } else if (at >= n_tasks) {
                missing_task *x = &m[at - n_tasks];
                if (isfinite(created) && (isnan(x->named_since) || created < x->named_since)) {
                    x->named_since = created;
                    x->first_dependent = sp[t].name;
                }
            }
        }
    }
    ds_strmap_free(&names);
    if (rc != 0 || *n_miss == 0)
        return rc;
    ds_task_spec *all = ds_arena_calloc(&b->tmp, n_tasks + *n_miss, sizeof *all);
    if (all == NULL)
        return oom(b);
    memcpy(all, sp, n_tasks * sizeof *all);
    for (size_t k = 0; k < *n_miss; k++)
        all[n_tasks + k] = (ds_task_spec){.name = m[k].name, .runtime_s = DS_DEFAULT_RUNTIME_S};
    *specs = all;
    *miss = m;
    return 0;
}

/* Mark tasks n_tasks.. of the built DAG as missing and, once one has lacked a pod for the grace
 * period, say why the job is stalled. */
static int mark_missing(builder *b, ds_job *j, size_t n_tasks, const missing_task *miss,
                        size_t n_miss)
{
    j->missing = ds_arena_calloc(&b->s->arena, j->dag.n, sizeof *j->missing);
    if (j->missing == NULL)
        return oom(b);
    size_t late = 0, first = DS_NONE;
    for (size_t k = 0; k < n_miss; k++) {
        j->missing[n_tasks + k] = 1;
        double since = miss[k].named_since;
        if (!isnan(since) && b->now - since < DS_MISSING_TASK_GRACE_S)
            continue;
        late++;
        if (first == DS_NONE)
            first = k;
    }
    if (late == 0)
        return 0;
    char grace[32], more[64] = "";
    ds_duration_format(DS_MISSING_TASK_GRACE_S, grace, sizeof grace);
    if (late > 1)
        snprintf(more, sizeof more, " (and %zu more such tasks)", late - 1);
    const missing_task *x = &miss[first];
    j->stalled = ds_arena_printf(
        &b->s->arena,
        "task \"%s\" depends on task \"%s\", which no pod of the job carries (label " DS_LABEL_TASK
        ") after %s%s: \"%s\" and the tasks after it will not run until a pod of task \"%s\" is "
        "created or the dependency is removed",
        x->first_dependent, x->name, grace, more, x->first_dependent, x->name);
    return j->stalled == NULL ? oom(b) : 0;
}

/* A job declared by its pods' annotations. */
static int build_from_pods(builder *b, ds_job *j)
{
    size_t n;
    task_pod *tp = sorted_task_pods(b, j, &n);
    if (tp == NULL && j->n_pods > 0)
        return -1;
    ds_err em;
    for (size_t k = 0; k < n; k++) {
        const char *ae = b->pw[tp[k].pod].ann_error;
        if (ae != NULL) {
            ds_err_set(&em, "pod \"%s\": %s", pod_label(&b->pods[tp[k].pod]), ae);
            return set_job_error(b, j, em.msg);
        }
    }
    if (n == 0)
        return set_job_error(b, j, "no pod of the job has a " DS_LABEL_TASK " label");

    /* Deadline: every pod that states one must agree. */
    size_t ref = DS_NONE;
    for (size_t k = 0; k < n; k++) {
        size_t i = tp[k].pod;
        const pod_work *pw = &b->pw[i];
        if (pw->deadline_kind == DS_DEADLINE_NONE)
            continue;
        double d = pw->deadline;
        if (pw->deadline_kind == DS_DEADLINE_AFTER) {
            if (isnan(j->created_at)) {
                ds_err_set(&em,
                           "pod \"%s\": annotation " DS_ANN_DEADLINE_AFTER
                           " needs the creation time of the job's pods, which is unknown",
                           pod_label(&b->pods[i]));
                return set_job_error(b, j, em.msg);
            }
            d += j->created_at;
        }
        if (ref == DS_NONE) {
            ref = i;
            j->deadline = d;
        } else if (fabs(d - j->deadline) > DS_DEADLINE_TOLERANCE_S) {
            const ds_pod_obs *p = &b->pods[ref], *q = &b->pods[i];
            bool p_abs = b->pw[ref].deadline_kind == DS_DEADLINE_ABSOLUTE;
            bool q_abs = pw->deadline_kind == DS_DEADLINE_ABSOLUTE;
            ds_err_set(&em,
                       "conflicting deadlines: pod \"%s\" has %s \"%.64s\" but pod \"%s\" has %s "
                       "\"%.64s\"",
                       pod_label(p), p_abs ? DS_ANN_DEADLINE : DS_ANN_DEADLINE_AFTER,
                       p_abs ? p->deadline : p->deadline_after, pod_label(q),
                       q_abs ? DS_ANN_DEADLINE : DS_ANN_DEADLINE_AFTER,
                       q_abs ? q->deadline : q->deadline_after);
            return set_job_error(b, j, em.msg);
        }
    }

    /* One task per run of equal task names, described by its representative pod. */
    size_t n_tasks = 0;
    for (size_t k = 0; k < n; k = run_end(tp, n, k))
        n_tasks++;
    ds_task_spec *specs = ds_arena_calloc(&b->tmp, n_tasks, sizeof *specs);
    if (specs == NULL)
        return oom(b);
    size_t t = 0;
    for (size_t k = 0; k < n; k = run_end(tp, n, k), t++) {
        size_t best = best_pod(b, tp, k, run_end(tp, n, k));
        const pod_work *pw = &b->pw[best];
        specs[t].name = tp[k].task;
        double learned = pw->runtime_set ? NAN : learned_runtime(b, j, tp[k].task, NULL);
        specs[t].runtime_s = pw->runtime_set     ? pw->runtime_s
                             : isfinite(learned) ? learned
                                                 : DS_DEFAULT_RUNTIME_S;
        specs[t].upstream = (const char *const *)pw->deps;
        specs[t].n_upstream = pw->n_deps;
    }
    missing_task *miss = NULL;
    size_t n_miss = 0;
    if (add_missing_tasks(b, tp, n, &specs, n_tasks, &miss, &n_miss) != 0)
        return -1;
    ds_err e = {{0}};
    if (ds_dag_build(&j->dag, specs, n_tasks + n_miss, &e) != 0) {
        memset(&j->dag, 0, sizeof j->dag);
        return set_job_error(b, j, e.msg);
    }
    if (alloc_task_pods(b, j) != 0)
        return -1;
    /* ds_dag_build keeps the order of the specs, so task t is the t-th run, then the missing. */
    t = 0;
    for (size_t k = 0; k < n; k = run_end(tp, n, k), t++)
        assign_run(b, j, tp, k, run_end(tp, n, k), t);
    if (n_miss > 0 && mark_missing(b, j, n_tasks, miss, n_miss) != 0)
        return -1;
    for (size_t k = 0; k < n; k++) {
        if (!b->pw[tp[k].pod].runtime_set) {
            unsigned runs;
            double learned = learned_runtime(b, j, tp[k].task, &runs);
            char d[32];
            ds_duration_format(learned, d, sizeof d);
            if (isfinite(learned))
                ds_err_set(&em,
                           "annotation " DS_ANN_RUNTIME " is missing: %s learned from %u earlier "
                           "run(s)",
                           d, runs);
            else
                ds_err_set(&em, "annotation " DS_ANN_RUNTIME " is missing: assuming %gs",
                           DS_DEFAULT_RUNTIME_S);
            if (add_warning(b, tp[k].pod, em.msg) != 0)
                return -1;
        }
    }
    return 0;
}

/* Warnings for a pod whose annotations disagree with the JobGraph of its job (they are ignored).
 * mark is scratch of dag.n zero bytes, left zeroed. */
static int graph_mismatch_warnings(builder *b, const ds_job *j, const ds_jobgraph *g, size_t t,
                                   size_t i, unsigned char *mark)
{
    const ds_pod_obs *p = &b->pods[i];
    const pod_work *pw = &b->pw[i];
    ds_err em;
    if (pw->ann_error != NULL) {
        ds_err_set(&em, "%s (ignored: JobGraph \"%s\" declares the job)", pw->ann_error, j->graph);
        return add_warning(b, i, em.msg);
    }
    const ds_dag_task *dt = &j->dag.tasks[t];
    if (p->depends_on != NULL) {
        for (size_t k = 0; k < dt->n_up; k++)
            mark[dt->up[k]] = 1;
        bool same = true;
        size_t matched = 0;
        for (size_t k = 0; k < pw->n_deps; k++) {
            size_t u;
            if (ds_dag_find(&j->dag, pw->deps[k], &u) != 0 || mark[u] == 0) {
                same = false;
            } else if (mark[u] == 1) {
                mark[u] = 2;
                matched++;
            }
        }
        if (matched != dt->n_up)
            same = false;
        for (size_t k = 0; k < dt->n_up; k++)
            mark[dt->up[k]] = 0;
        if (!same) {
            char q[DS_QUOTE_BUF];
            ds_err_set(&em,
                       "annotation " DS_ANN_DEPENDS_ON " %s differs from JobGraph \"%s\" (ignored)",
                       ds_quote(p->depends_on, 100, q, sizeof q), j->graph);
            if (add_warning(b, i, em.msg) != 0)
                return -1;
        }
    }
    if (pw->runtime_set && fabs(pw->runtime_s - dt->runtime_s) > DS_DEADLINE_TOLERANCE_S) {
        ds_err_set(&em,
                   "annotation " DS_ANN_RUNTIME " \"%.64s\" differs from JobGraph \"%s\" (ignored)",
                   p->runtime, j->graph);
        if (add_warning(b, i, em.msg) != 0)
            return -1;
    }
    if (pw->deadline_kind != DS_DEADLINE_NONE &&
        (pw->deadline_kind != (int)g->deadline_kind ||
         fabs(pw->deadline - g->deadline) > DS_DEADLINE_TOLERANCE_S)) {
        bool abs_ = pw->deadline_kind == DS_DEADLINE_ABSOLUTE;
        ds_err_set(&em, "annotation %s \"%.64s\" differs from JobGraph \"%s\" (ignored)",
                   abs_ ? DS_ANN_DEADLINE : DS_ANN_DEADLINE_AFTER,
                   abs_ ? p->deadline : p->deadline_after, j->graph);
        if (add_warning(b, i, em.msg) != 0)
            return -1;
    }
    return 0;
}

/* The JobGraph's durations within the bounds of the annotations (DS_DURATION_ANN_MAX): 0, else
 * the job error is set. */
static int graph_durations_bounded(builder *b, ds_job *j, const ds_jobgraph *g)
{
    char field[64], got[64];
    field[0] = '\0';
    for (size_t t = 0; t < g->n_tasks && field[0] == '\0'; t++)
        if (g->tasks[t].runtime_s > DS_DURATION_ANN_MAX_S) {
            snprintf(field, sizeof field, "spec.tasks[%zu].runtime", t);
            ds_duration_format(g->tasks[t].runtime_s, got, sizeof got);
        }
    if (field[0] == '\0' && g->deadline_kind == DS_DEADLINE_AFTER &&
        g->deadline > DS_DURATION_ANN_MAX_S) {
        snprintf(field, sizeof field, "spec.deadlineAfter");
        ds_duration_format(g->deadline, got, sizeof got);
    }
    if (field[0] == '\0')
        return 0;
    ds_err em;
    ds_err_set(&em, "JobGraph \"%s\": %s: %s exceeds the limit " DS_DURATION_ANN_MAX, j->graph,
               field, got);
    return set_job_error(b, j, em.msg);
}

/* A job declared by a JobGraph: the graph gives the DAG and the deadline; pods give states. */
static int build_from_graph(builder *b, ds_job *j, size_t gi)
{
    const ds_jobgraph *g = &b->parsed[gi];
    const ds_graph_obs *obs = &b->graphs[gi];
    if (graph_durations_bounded(b, j, g) != 0 || !j->valid)
        return 0;
    ds_err em;
    ds_task_spec *specs = ds_arena_calloc(&b->tmp, g->n_tasks, sizeof *specs);
    if (specs == NULL)
        return oom(b);
    for (size_t t = 0; t < g->n_tasks; t++) {
        specs[t].name = g->tasks[t].name;
        specs[t].runtime_s = g->tasks[t].runtime_s;
        specs[t].upstream = (const char *const *)g->tasks[t].depends_on;
        specs[t].n_upstream = g->tasks[t].n_depends_on;
    }
    ds_err e = {{0}};
    if (ds_dag_build(&j->dag, specs, g->n_tasks, &e) != 0) {
        memset(&j->dag, 0, sizeof j->dag);
        ds_err_set(&em, "JobGraph \"%s\": %s", j->graph, e.msg);
        return set_job_error(b, j, em.msg);
    }
    if (isfinite(obs->created_at) && (isnan(j->created_at) || obs->created_at < j->created_at))
        j->created_at = obs->created_at;
    if (g->deadline_kind == DS_DEADLINE_ABSOLUTE) {
        j->deadline = g->deadline;
    } else if (g->deadline_kind == DS_DEADLINE_AFTER) {
        if (!isfinite(obs->created_at)) {
            ds_err_set(&em,
                       "JobGraph \"%s\": spec.deadlineAfter needs the ConfigMap's creation time, "
                       "which is unknown",
                       j->graph);
            return set_job_error(b, j, em.msg);
        }
        j->deadline = obs->created_at + g->deadline;
    }
    if (alloc_task_pods(b, j) != 0)
        return -1;
    size_t n;
    task_pod *tp = sorted_task_pods(b, j, &n);
    if (tp == NULL && j->n_pods > 0)
        return -1;
    unsigned char *mark = ds_arena_calloc(&b->tmp, j->dag.n, 1);
    if (mark == NULL)
        return oom(b);
    for (size_t k = 0; k < n; k = run_end(tp, n, k)) {
        size_t end = run_end(tp, n, k);
        size_t t;
        if (ds_dag_find(&j->dag, tp[k].task, &t) != 0) {
            ds_err_set(&em, "task \"%s\" is not in JobGraph \"%s\"", tp[k].task, j->graph);
            for (size_t m = k; m < end; m++)
                if (set_pod_error(b, tp[m].pod, em.msg) != 0)
                    return -1;
            continue;
        }
        assign_run(b, j, tp, k, end, t);
        for (size_t m = k; m < end; m++)
            if (graph_mismatch_warnings(b, j, g, t, tp[m].pod, mark) != 0)
                return -1;
    }
    return 0;
}

/* Pods that carry Argo's node annotations but no task label, in a job no Workflow declares. */
static int argo_pods_without_workflow(builder *b, const ds_job *j)
{
    for (size_t k = 0; k < j->n_pods; k++) {
        size_t i = j->pods[k];
        if (!b->pw[i].argo_node)
            continue;
        const char *label;
        const char *key =
            ds_job_label_value(b->pods[i].job_label, b->pods[i].argo_workflow, &label);
        ds_err e;
        ds_err_set(&e, "missing label " DS_LABEL_TASK " (the pod has label %s=%s)", label, key);
        if (set_pod_error(b, i, e.msg) != 0)
            return -1;
    }
    return 0;
}

typedef struct wf_pod {
    size_t task, pod;
} wf_pod;

static int cmp_wf_pod(const void *x, const void *y)
{
    const wf_pod *a = x, *c = y;
    if (a->task != c->task)
        return (a->task > c->task) - (a->task < c->task);
    return (a->pod > c->pod) - (a->pod < c->pod);
}

/* A job declared by an Argo Workflow (argo_wf.h): tasks from its templates, states from
 * status.nodes and the pods matched by their node annotations. */
static int build_from_workflow(builder *b, ds_job *j, size_t wi)
{
    const ds_wf_obs *obs = &b->wfs[wi];
    const ds_wf_job *wj = &b->wjobs[wi];
    ds_err em;
    j->workflow = ds_arena_strdup(&b->s->arena, obs->name);
    if (j->workflow == NULL)
        return oom(b);
    if (obs->family != NULL && obs->family[0] != '\0' &&
        (j->family = ds_arena_strdup(&b->s->arena, obs->family)) == NULL)
        return oom(b);
    if (isfinite(obs->created_at) && (isnan(j->created_at) || obs->created_at < j->created_at))
        j->created_at = obs->created_at;
    const char *we = b->s->wfs[wi].error;
    if (we != NULL) {
        ds_err_set(&em, "Workflow \"%s\": %s", obs->name, we);
        return set_job_error(b, j, em.msg);
    }
    ds_task_spec *specs = ds_arena_calloc(&b->tmp, wj->n_tasks, sizeof *specs);
    if (specs == NULL)
        return oom(b);
    bool *learned = ds_arena_calloc(&b->tmp, wj->n_tasks ? wj->n_tasks : 1, sizeof *learned);
    if (learned == NULL)
        return oom(b);
    for (size_t t = 0; t < wj->n_tasks; t++) {
        specs[t].name = wj->tasks[t].name;
        specs[t].runtime_s = wj->tasks[t].runtime_s;
        if (wj->tasks[t].runtime_source == DS_WF_RUNTIME_DEFAULT && wj->tasks[t].runtime_s > 0) {
            double l = learned_runtime(b, j, wj->tasks[t].name, NULL);
            if (isfinite(l)) {
                specs[t].runtime_s = l;
                learned[t] = true;
            }
        }
        specs[t].upstream = wj->tasks[t].up;
        specs[t].n_upstream = wj->tasks[t].n_up;
    }
    ds_err e = {{0}};
    if (ds_dag_build(&j->dag, specs, wj->n_tasks, &e) != 0) {
        memset(&j->dag, 0, sizeof j->dag);
        ds_err_set(&em, "Workflow \"%s\": %s", obs->name, e.msg);
        return set_job_error(b, j, em.msg);
    }
    if (wj->deadline_kind == DS_WF_DEADLINE_ABSOLUTE) {
        j->deadline = wj->deadline;
    } else if (wj->deadline_kind == DS_WF_DEADLINE_AFTER) {
        if (!isfinite(obs->created_at)) {
            ds_err_set(&em,
                       "Workflow \"%s\": annotation " DS_ANN_DEADLINE_AFTER
                       " needs the Workflow's creation time, which is unknown",
                       obs->name);
            return set_job_error(b, j, em.msg);
        }
        j->deadline = obs->created_at + wj->deadline;
    }
    j->node = ds_arena_calloc(&b->s->arena, j->dag.n, sizeof *j->node);
    if (j->node == NULL)
        return oom(b);
    for (size_t t = 0; t < j->dag.n; t++)
        j->node[t] = (ds_task_node){.phase = wj->tasks[t].phase,
                                    .started_at = wj->tasks[t].started_at,
                                    .finished_at = wj->tasks[t].finished_at,
                                    .has_pod = wj->tasks[t].has_pod,
                                    .request = wj->tasks[t].request,
                                    .has_request = wj->tasks[t].has_request,
                                    .runtime_source = learned[t] ? DS_WF_RUNTIME_LEARNED
                                                                 : wj->tasks[t].runtime_source};
    if (alloc_task_pods(b, j) != 0)
        return -1;
    /* Pods to tasks: Argo's node annotations, else the dagsched.io/task label. */
    wf_pod *wp = ds_arena_calloc(&b->tmp, j->n_pods ? j->n_pods : 1, sizeof *wp);
    if (wp == NULL)
        return oom(b);
    size_t n = 0;
    for (size_t k = 0; k < j->n_pods; k++) {
        size_t i = j->pods[k];
        const ds_pod_obs *p = &b->pods[i];
        if (!b->pw[i].argo_node && !b->pw[i].has_task)
            continue; /* already has a pod error */
        size_t t = ds_wf_job_task_of(wj, p->argo_node_id, p->argo_node_name);
        if (t == (size_t)-1 && b->pw[i].has_task && ds_dag_find(&j->dag, p->task, &t) != 0)
            t = (size_t)-1;
        if (t == (size_t)-1) {
            const char *node = p->argo_node_name != NULL ? p->argo_node_name
                               : p->task != NULL         ? p->task
                                                         : "";
            bool young = b->pw[i].argo_node && isfinite(p->created_at) &&
                         b->now - p->created_at < DS_WF_UNLISTED_GRACE_S;
            if (young)
                ds_err_set(&em,
                           "Argo has not listed node \"%.100s\" in Workflow \"%s\"'s status "
                           "yet; the pod waits for it (at most %.0fs after its creation)",
                           node, obs->name, DS_WF_UNLISTED_GRACE_S);
            else
                ds_err_set(&em, "Argo node \"%.100s\" is not a task of Workflow \"%s\"", node,
                           obs->name);
            b->s->pods[i].unlisted = young;
            if (set_pod_error(b, i, em.msg) != 0)
                return -1;
            continue;
        }
        wp[n++] = (wf_pod){t, i};
    }
    qsort(wp, n, sizeof *wp, cmp_wf_pod);
    for (size_t k = 0; k < n;) {
        size_t end = k + 1, best = wp[k].pod;
        while (end < n && wp[end].task == wp[k].task)
            end++;
        for (size_t m = k + 1; m < end; m++)
            if (ds_pod_obs_better(&b->pods[wp[m].pod], &b->pods[best]))
                best = wp[m].pod;
        j->task_pod[wp[k].task] = best;
        for (size_t m = k; m < end; m++) {
            b->s->pods[wp[m].pod].task = wp[k].task;
            b->s->pods[wp[m].pod].primary = wp[m].pod == best;
        }
        k = end;
    }
    return 0;
}

static int build_job(builder *b, size_t ji)
{
    ds_job *j = &b->s->jobs[ji];
    const job_work *w = &b->jw[ji];
    ds_err em;
    if (w->graph == DS_NONE && w->wf != DS_NONE)
        return build_from_workflow(b, j, w->wf);
    if (argo_pods_without_workflow(b, j) != 0)
        return -1;
    if (w->graph == DS_NONE)
        return build_from_pods(b, j);
    j->graph = ds_arena_strdup(&b->s->arena,
                               b->graphs[w->graph].name != NULL ? b->graphs[w->graph].name : "");
    if (j->graph == NULL)
        return oom(b);
    if (w->graph2 != DS_NONE) {
        ds_err_set(&em, "declared by more than one JobGraph: ConfigMaps \"%s\" and \"%s\"",
                   j->graph, b->graphs[w->graph2].name != NULL ? b->graphs[w->graph2].name : "");
        return set_job_error(b, j, em.msg);
    }
    const char *ge = b->s->graphs[w->graph].error;
    if (ge != NULL) {
        ds_err_set(&em, "JobGraph \"%s\": %s", j->graph, ge);
        return set_job_error(b, j, em.msg);
    }
    return build_from_graph(b, j, w->graph);
}

static int build(builder *b, size_t n_pods, size_t n_graphs, size_t n_wfs, double now,
                 const ds_priority_params *pp)
{
    ds_jobset *s = b->s;
    if (n_pods > 0) {
        s->pods = ds_arena_calloc(&s->arena, n_pods, sizeof *s->pods);
        b->pw = calloc(n_pods, sizeof *b->pw);
        if (s->pods == NULL || b->pw == NULL)
            return oom(b);
    }
    if (n_graphs > 0) {
        s->graphs = ds_arena_calloc(&s->arena, n_graphs, sizeof *s->graphs);
        b->parsed = calloc(n_graphs, sizeof *b->parsed);
        if (s->graphs == NULL || b->parsed == NULL)
            return oom(b);
    }
    if (n_wfs > 0) {
        s->wfs = ds_arena_calloc(&s->arena, n_wfs, sizeof *s->wfs);
        b->wjobs = calloc(n_wfs, sizeof *b->wjobs);
        if (s->wfs == NULL || b->wjobs == NULL)
            return oom(b);
    }
    s->n_pods = n_pods;
    s->n_graphs = n_graphs;
    s->n_wfs = n_wfs;
    if (ds_strmap_init(&s->job_index, n_pods + n_graphs + n_wfs) != 0 ||
        ds_strmap_init(&s->pod_index, n_pods) != 0)
        return oom(b);
    if (observe_graphs(b, n_graphs) != 0 || observe_workflows(b, n_wfs) != 0 ||
        observe_pods(b, n_pods) != 0 || collect_job_pods(b, n_pods) != 0)
        return -1;
    for (size_t j = 0; j < s->n_jobs; j++)
        if (build_job(b, j) != 0)
            return -1;
    return ds_jobstate_compute(s, b->pods, now, pp, b->err);
}

int ds_jobs_build_wf(const ds_pod_obs *pods, size_t n_pods, const ds_graph_obs *graphs,
                     size_t n_graphs, const ds_wf_obs *wfs, size_t n_wfs, double now,
                     const ds_priority_params *pp, ds_jobset *out, ds_err *err)
{
    return ds_jobs_build_learned(pods, n_pods, graphs, n_graphs, wfs, n_wfs, now, pp, NULL, out,
                                 err);
}

int ds_jobs_build_learned(const ds_pod_obs *pods, size_t n_pods, const ds_graph_obs *graphs,
                          size_t n_graphs, const ds_wf_obs *wfs, size_t n_wfs, double now,
                          const ds_priority_params *pp, const ds_rt_history *learned,
                          ds_jobset *out, ds_err *err)
{
    if (out == NULL)
        return ds_err_set(err, "ds_jobs_build: no output");
    memset(out, 0, sizeof *out);
    if ((pods == NULL && n_pods > 0) || (graphs == NULL && n_graphs > 0) ||
        (wfs == NULL && n_wfs > 0) || pp == NULL)
        return ds_err_set(err, "ds_jobs_build: missing input");
    if (n_pods > DS_JOBSET_MAX_PODS)
        return ds_err_set(err, "pods: too many (got %zu, at most %d)", n_pods, DS_JOBSET_MAX_PODS);
    if (n_graphs > DS_JOBSET_MAX_GRAPHS)
        return ds_err_set(err, "JobGraphs: too many (got %zu, at most %d)", n_graphs,
                          DS_JOBSET_MAX_GRAPHS);
    if (n_wfs > DS_JOBSET_MAX_WORKFLOWS)
        return ds_err_set(err, "Workflows: too many (got %zu, at most %d)", n_wfs,
                          DS_JOBSET_MAX_WORKFLOWS);
    if (!isfinite(now))
        return ds_err_set(err, "now: must be a finite time (got %g)", now);
    builder b = {.s = out,
                 .pods = pods,
                 .graphs = graphs,
                 .wfs = wfs,
                 .now = now,
                 .learned = learned,
                 .err = err};
    int rc = build(&b, n_pods, n_graphs, n_wfs, now, pp);
    for (size_t i = 0; b.parsed != NULL && i < n_graphs; i++)
        ds_jobgraph_free(&b.parsed[i]);
    for (size_t i = 0; b.wjobs != NULL && i < n_wfs; i++)
        ds_wf_job_free(&b.wjobs[i]);
    free(b.parsed);
    free(b.wjobs);
    free(b.pw);
    free(b.jw);
    ds_arena_free(&b.tmp);
    if (rc != 0)
        ds_jobset_free(out);
    return rc;
}

int ds_jobs_build(const ds_pod_obs *pods, size_t n_pods, const ds_graph_obs *graphs,
                  size_t n_graphs, double now, const ds_priority_params *pp, ds_jobset *out,
                  ds_err *err)
{
    return ds_jobs_build_wf(pods, n_pods, graphs, n_graphs, NULL, 0, now, pp, out, err);
}

void ds_jobset_free(ds_jobset *s)
{
    if (s == NULL)
        return;
    for (size_t j = 0; j < s->n_jobs && !s->joined; j++)
        if (s->jobs[j].dag.tasks != NULL)
            ds_dag_free(&s->jobs[j].dag);
    free(s->jobs);
    ds_strmap_free(&s->job_index);
    ds_strmap_free(&s->pod_index);
    ds_arena_free(&s->arena);
    memset(s, 0, sizeof *s);
}

const ds_job *ds_jobset_find_job(const ds_jobset *s, const char *ns, const char *name)
{
    if (s == NULL || ns == NULL || name == NULL)
        return NULL;
    size_t ln = strnlen(ns, KEY_MAX), lk = strnlen(name, KEY_MAX);
    if (ln + lk + 2 > KEY_MAX)
        return NULL;
    char key[KEY_MAX];
    memcpy(key, ns, ln);
    key[ln] = '/';
    memcpy(key + ln + 1, name, lk);
    size_t j;
    if (ds_strmap_get(&s->job_index, key, ln + 1 + lk, &j) != 0)
        return NULL;
    return &s->jobs[j];
}

bool ds_jobset_pod_must_wait(const ds_jobset *s, size_t i)
{
    if (s == NULL || i >= s->n_pods)
        return false;
    const ds_pod_result *r = &s->pods[i];
    if (r->unlisted)
        return true;
    if (r->job == DS_NONE || r->job >= s->n_jobs)
        return false;
    const ds_job *j = &s->jobs[r->job];
    if (j->valid && r->task != DS_NONE)
        return false;
    return ds_job_holds_pod(j, r->depends);
}

bool ds_job_holds_pod(const ds_job *j, bool depends)
{
    if (j == NULL || (j->workflow != NULL && j->graph == NULL))
        return false;
    return depends || (!j->valid && j->graph != NULL);
}

size_t ds_jobset_find_pod(const ds_jobset *s, const char *uid)
{
    size_t i;
    if (s == NULL || uid == NULL || ds_strmap_get(&s->pod_index, uid, strlen(uid), &i) != 0)
        return DS_NONE;
    return i;
}
