/* joborder.c: job summaries and the order of waiting tasks across jobs (see joborder.h and
 * docs/model.md, "Order across jobs"). */
#include "joborder.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const order_names[] = {"dsp", "leastSlack", "shortestRemaining"};

const char *ds_job_order_name(ds_job_order o)
{
    if ((unsigned)o >= sizeof order_names / sizeof order_names[0])
        return "unknown";
    return order_names[o];
}

int ds_job_order_parse(const char *name, ds_job_order *out)
{
    if (name == NULL)
        return -1;
    for (size_t i = 0; i < sizeof order_names / sizeof order_names[0]; i++)
        if (strcmp(name, order_names[i]) == 0) {
            *out = (ds_job_order)i;
            return 0;
        }
    return -1;
}

static const char *const within_names[] = {"dsp", "criticalPath"};

const char *ds_within_order_name(ds_within_order o)
{
    if ((unsigned)o >= sizeof within_names / sizeof within_names[0])
        return "unknown";
    return within_names[o];
}

int ds_within_order_parse(const char *name, ds_within_order *out)
{
    if (name == NULL)
        return -1;
    for (size_t i = 0; i < sizeof within_names / sizeof within_names[0]; i++)
        if (strcmp(name, within_names[i]) == 0) {
            *out = (ds_within_order)i;
            return 0;
        }
    return -1;
}

static bool finished(const ds_task_status *s)
{
    return s->state == DS_TASK_SUCCEEDED || s->state == DS_TASK_FAILED;
}

int ds_job_summarise(const ds_dag *d, const ds_task_status *st, const ds_task_eval *ev,
                     double job_deadline, double now, ds_job_summary *out, ds_err *err)
{
    if (d == NULL || out == NULL)
        return ds_err_set(err, "job summary: %s is missing", d == NULL ? "job DAG" : "output");
    if (d->n > 0 && (st == NULL || ev == NULL))
        return ds_err_set(err, "job summary: task %s is missing",
                          st == NULL ? "status array" : "evaluation array");
    if (!isfinite(now))
        return ds_err_set(err, "now: must be a finite time (got %g)", now);
    if (isnan(job_deadline) || job_deadline == -INFINITY)
        return ds_err_set(err, "job deadline: must be a finite time, or +inf for none (got %g)",
                          job_deadline);
    memset(out, 0, sizeof *out);
    double *path = d->n > 0 ? malloc(d->n * sizeof *path) : NULL;
    size_t *steps = d->n > 0 ? malloc(d->n * sizeof *steps) : NULL;
    if (d->n > 0 && (path == NULL || steps == NULL)) {
        free(path);
        free(steps);
        return ds_err_set(err, "job summary: out of memory for %zu tasks", d->n);
    }
    ds_remaining_paths(d, st, ev, path);
    /* The unfinished tasks on each task's longest remaining chain, dependents first. */
    for (size_t k = d->n; k-- > 0;) {
        size_t i = d->topo[k];
        const ds_dag_task *t = &d->tasks[i];
        size_t below = 0;
        double below_path = -1;
        for (size_t c = 0; c < t->n_down; c++) {
            size_t dn = t->down[c];
            if (path[dn] > below_path || (path[dn] == below_path && steps[dn] > below)) {
                below_path = path[dn];
                below = steps[dn];
            }
        }
        steps[i] = (finished(&st[i]) ? 0 : 1) + below;
    }
    double longest = 0;
    size_t longest_steps = 0;
    for (size_t i = 0; i < d->n; i++) {
        if (!finished(&st[i])) {
            out->remaining_work_s += ev[i].t_rem_s > 0 ? ev[i].t_rem_s : 0;
            out->unfinished++;
        }
        if (path[i] > longest || (path[i] == longest && steps[i] > longest_steps)) {
            longest = path[i];
            longest_steps = steps[i];
        }
    }
    free(path);
    free(steps);
    out->remaining_path_s = longest;
    out->remaining_steps = longest_steps;
    out->slack_s = job_deadline == INFINITY ? INFINITY : job_deadline - now - longest;
    return 0;
}

void ds_order_key_of(const ds_order_params *p, const ds_job_summary *job, const ds_task_eval *task,
                     ds_order_key *out)
{
    double fig[2] = {0, 0};
    switch (p->job_order) {
    case DS_ORDER_LEAST_SLACK:
        fig[0] = job->slack_s;
        fig[1] = job->remaining_work_s;
        break;
    case DS_ORDER_SHORTEST_REMAINING:
        fig[0] = job->remaining_work_s;
        fig[1] = job->slack_s;
        break;
    default:
        break;
    }
    ds_order_key_from_figures(p, fig, task, out);
}

void ds_order_key_from_figures(const ds_order_params *p, const double job[2],
                               const ds_task_eval *task, ds_order_key *out)
{
    memset(out, 0, sizeof *out);
    if (p->starvation_s > 0 && task->t_wait_s >= p->starvation_s) {
        out->k[0] = 0;
        out->k[4] = -task->t_wait_s;
        return;
    }
    out->k[0] = 1;
    out->k[2] = job[0];
    out->k[3] = job[1];
    if (p->within_job == DS_WITHIN_CRITICAL_PATH) {
        out->k[4] = -task->path_s;
        out->k[5] = -task->priority;
    } else {
        out->k[4] = -task->priority;
    }
}

void ds_order_key_set_tenant(ds_order_key *k, double rank)
{
    if (k->k[0] != 0)
        k->k[1] = rank;
}

void ds_order_job_figures(const ds_order_params *p, const ds_job_summary *job, double out[2])
{
    ds_order_params q = *p;
    q.starvation_s = 0; /* the job's figures, whatever a task waited */
    ds_task_eval none = {0};
    ds_order_key k;
    ds_order_key_of(&q, job, &none, &k);
    out[0] = k.k[2];
    out[1] = k.k[3];
}

int ds_jobset_job_figures(const ds_jobset *s, const ds_order_params *p, double now,
                          double (*out)[2], ds_job_summary *sums, ds_err *err)
{
    if (s == NULL || p == NULL || (out == NULL && s->n_jobs > 0))
        return ds_err_set(err, "job figures: %s is missing",
                          s == NULL   ? "job set"
                          : p == NULL ? "order"
                                      : "output");
    for (size_t ji = 0; ji < s->n_jobs; ji++) {
        const ds_job *j = &s->jobs[ji];
        out[ji][0] = out[ji][1] = NAN;
        if (sums != NULL)
            sums[ji] = (ds_job_summary){.slack_s = NAN, .remaining_path_s = NAN};
        if (!j->valid)
            continue;
        ds_job_summary sum;
        if (ds_job_summarise(&j->dag, j->status, j->eval, j->deadline, now, &sum, err) != 0) {
            ds_err_prefix(err, "job %s", j->key);
            return -1;
        }
        ds_order_job_figures(p, &sum, out[ji]);
        if (sums != NULL)
            sums[ji] = sum;
    }
    return 0;
}

int ds_order_key_cmp(const ds_order_key *a, const ds_order_key *b)
{
    for (int i = 0; i < DS_ORDER_KEY_N; i++)
        if (a->k[i] != b->k[i])
            return a->k[i] < b->k[i] ? -1 : 1;
    return 0;
}

typedef struct keyed_task {
    ds_order_key key;
    ds_task_ref ref;
} keyed_task;

static int cmp_keyed(const void *x, const void *y)
{
    const keyed_task *a = x, *b = y;
    int c = ds_order_key_cmp(&a->key, &b->key);
    if (c != 0)
        return c;
    if (a->ref.job != b->ref.job)
        return a->ref.job < b->ref.job ? -1 : 1;
    return (a->ref.task > b->ref.task) - (a->ref.task < b->ref.task);
}

long ds_jobset_queue_order(const ds_jobset *s, const ds_order_params *p, double now,
                           ds_task_ref *out, size_t cap, ds_err *err)
{
    return ds_jobset_queue_order_fair(s, p, now, NULL, out, cap, err);
}

long ds_jobset_queue_order_fair(const ds_jobset *s, const ds_order_params *p, double now,
                                const double *job_rank, ds_task_ref *out, size_t cap, ds_err *err)
{
    if (s == NULL || p == NULL)
        return ds_err_set(err, "queue order: %s is missing", s == NULL ? "job set" : "order");
    if (cap < s->n_waiting || (out == NULL && s->n_waiting > 0))
        return ds_err_set(err, "queue order: room for %zu waiting tasks is needed (got %zu)",
                          s->n_waiting, out == NULL ? (size_t)0 : cap);
    if (s->n_waiting == 0)
        return 0;
    keyed_task *k = malloc(s->n_waiting * sizeof *k);
    if (k == NULL)
        return ds_err_set(err, "queue order: out of memory for %zu waiting tasks", s->n_waiting);
    size_t n = 0;
    for (size_t ji = 0; ji < s->n_jobs; ji++) {
        const ds_job *j = &s->jobs[ji];
        if (!j->valid)
            continue;
        ds_job_summary sum;
        if (ds_job_summarise(&j->dag, j->status, j->eval, j->deadline, now, &sum, err) != 0) {
            ds_err_prefix(err, "job %s", j->key);
            free(k);
            return -1;
        }
        for (size_t t = 0; t < j->dag.n && n < s->n_waiting; t++)
            if (j->status[t].state == DS_TASK_WAITING) {
                ds_order_key_of(p, &sum, &j->eval[t], &k[n].key);
                if (job_rank != NULL)
                    ds_order_key_set_tenant(&k[n].key, job_rank[ji]);
                k[n].ref = (ds_task_ref){ji, t};
                n++;
            }
    }
    qsort(k, n, sizeof *k, cmp_keyed);
    for (size_t i = 0; i < n; i++)
        out[i] = k[i].ref;
    free(k);
    return (long)n;
}
