/* dsp.c: DSP task priority (Eq. 12, 13), per-level deadlines and allowable waiting time (section
 * IV-B), node processing rate (Eq. 1, 2) and the deadline feasibility test (see dsp.h and
 * docs/model.md for the formulas and where they deviate from the paper). */
#include "dsp.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* Priorities grow as (1 + gamma)^depth: keep them finite (and never NaN) on very deep DAGs. */
static double saturate(double x)
{
    if (x > DBL_MAX)
        return DBL_MAX;
    if (x < -DBL_MAX)
        return -DBL_MAX;
    return x;
}

void ds_priority_defaults(ds_priority_params *p)
{
    if (p == NULL)
        return;
    p->gamma = 0.5;
    p->w_remaining = 0.5;
    p->w_waiting = 0.3;
    p->w_slack = 0.2;
    p->slack_term = DS_SLACK_URGENCY;
    p->time_scale_s = 60;
    p->min_remaining_s = 1;
}

static int check_params(const ds_priority_params *p, ds_err *err)
{
    if (p == NULL)
        return ds_err_set(err, "priority: parameters are missing");
    if (!(p->gamma > 0 && p->gamma < 1))
        return ds_err_set(err, "priority.gamma: must be in (0, 1) (got %g)", p->gamma);
    const struct {
        const char *name;
        double v;
    } weights[] = {
        {"w_remaining", p->w_remaining},
        {"w_waiting", p->w_waiting},
        {"w_slack", p->w_slack},
    };
    for (size_t i = 0; i < sizeof weights / sizeof weights[0]; i++)
        if (!isfinite(weights[i].v) || weights[i].v < 0)
            return ds_err_set(err, "priority.%s: must be a finite number >= 0 (got %g)",
                              weights[i].name, weights[i].v);
    if (p->slack_term != DS_SLACK_URGENCY && p->slack_term != DS_SLACK_LITERAL)
        return ds_err_set(err, "priority.slack_term: must be urgency or literal (got %d)",
                          (int)p->slack_term);
    if (!isfinite(p->time_scale_s) || p->time_scale_s <= 0)
        return ds_err_set(err,
                          "priority.time_scale_s: must be a finite number of seconds > 0 (got %g)",
                          p->time_scale_s);
    if (!isfinite(p->min_remaining_s) || p->min_remaining_s <= 0)
        return ds_err_set(
            err, "priority.min_remaining_s: must be a finite number of seconds > 0 (got %g)",
            p->min_remaining_s);
    return 0;
}

static int check_status(const ds_dag_task *t, const ds_task_status *s, ds_err *err)
{
    switch (s->state) {
    case DS_TASK_BLOCKED:
    case DS_TASK_SUCCEEDED:
    case DS_TASK_FAILED:
        return 0;
    case DS_TASK_WAITING:
        if (!isfinite(s->runnable_since))
            return ds_err_set(err,
                              "task \"%s\": runnable_since: must be a finite time for a waiting "
                              "task (got %g)",
                              t->name, s->runnable_since);
        return 0;
    case DS_TASK_RUNNING:
        if (!isfinite(s->started_at))
            return ds_err_set(
                err, "task \"%s\": started_at: must be a finite time for a running task (got %g)",
                t->name, s->started_at);
        if (!isfinite(s->speed) || s->speed <= 0)
            return ds_err_set(
                err, "task \"%s\": speed: must be a finite number > 0 for a running task (got %g)",
                t->name, s->speed);
        return 0;
    }
    return ds_err_set(err, "task \"%s\": state: unknown value (got %d)", t->name, (int)s->state);
}

void ds_level_deadlines(const ds_dag *d, double job_deadline, double *out)
{
    if (d == NULL || out == NULL || d->n_levels < 1)
        return;
    out[d->n_levels] = job_deadline;
    for (int l = d->n_levels - 1; l >= 1; l--)
        out[l] = out[l + 1] - d->level_max_runtime[l + 1];
}

/* Eq. 13 for a task without dependents; times in units of time_scale_s. */
static double leaf_priority(const ds_task_eval *e, const ds_priority_params *p)
{
    double scale = p->time_scale_s;
    double rem = fmax(e->t_rem_s, p->min_remaining_s) / scale;
    double pr = p->w_remaining / rem + p->w_waiting * (e->t_wait_s / scale);
    if (e->t_allow_s != INFINITY && p->w_slack > 0) {
        if (p->slack_term == DS_SLACK_URGENCY)
            pr += p->w_slack / (1 + fmax(e->t_allow_s, 0) / scale);
        else
            pr += p->w_slack * (e->t_allow_s / scale);
    }
    return saturate(pr);
}

int ds_dsp_evaluate(const ds_dag *d, const ds_task_status *st, double job_deadline, double now,
                    const ds_priority_params *p, ds_task_eval *out, ds_err *err)
{
    if (d == NULL)
        return ds_err_set(err, "priority: job DAG is missing");
    if (d->n > 0 && (st == NULL || out == NULL))
        return ds_err_set(err, "priority: task %s is missing",
                          st == NULL ? "status array" : "output array");
    if (check_params(p, err) != 0)
        return -1;
    if (!isfinite(now))
        return ds_err_set(err, "now: must be a finite time (got %g)", now);
    if (isnan(job_deadline) || job_deadline == -INFINITY)
        return ds_err_set(err, "job deadline: must be a finite time, or +inf for none (got %g)",
                          job_deadline);
    for (size_t i = 0; i < d->n; i++)
        if (check_status(&d->tasks[i], &st[i], err) != 0)
            return -1;
    if (d->n == 0)
        return 0;

    double *deadline = malloc(((size_t)d->n_levels + 1) * sizeof *deadline);
    if (deadline == NULL)
        return ds_err_set(err, "priority: out of memory for %d level deadlines", d->n_levels);
    ds_level_deadlines(d, job_deadline, deadline);
    bool has_deadline = job_deadline != INFINITY;

    for (size_t i = 0; i < d->n; i++) {
        const ds_dag_task *t = &d->tasks[i];
        const ds_task_status *s = &st[i];
        ds_task_eval *e = &out[i];
        switch (s->state) {
        case DS_TASK_RUNNING: {
            double elapsed = fmax(now - s->started_at, 0);
            e->t_rem_s = fmax(t->runtime_s / s->speed - elapsed, p->min_remaining_s);
            break;
        }
        case DS_TASK_SUCCEEDED:
        case DS_TASK_FAILED:
            e->t_rem_s = 0;
            break;
        default:
            e->t_rem_s = t->runtime_s;
            break;
        }
        e->t_wait_s = s->state == DS_TASK_WAITING ? fmax(now - s->runnable_since, 0) : 0;
        e->level_deadline = deadline[t->level];
        e->t_allow_s = has_deadline ? e->level_deadline - now - e->t_rem_s : INFINITY;
    }
    free(deadline);

    double *path = malloc(d->n * sizeof *path);
    if (path == NULL)
        return ds_err_set(err, "priority: out of memory for %zu remaining paths", d->n);
    ds_remaining_paths(d, st, out, path);
    for (size_t i = 0; i < d->n; i++)
        out[i].path_s = path[i];
    free(path);

    /* Eq. 12 needs every dependent's priority first: reverse topological order. */
    double factor = p->gamma + 1;
    for (size_t k = d->n; k-- > 0;) {
        size_t i = d->topo[k];
        const ds_dag_task *t = &d->tasks[i];
        if (t->n_down == 0) {
            out[i].priority = leaf_priority(&out[i], p);
            continue;
        }
        double sum = 0;
        for (size_t c = 0; c < t->n_down; c++)
            sum = saturate(sum + saturate(factor * out[t->down[c]].priority));
        out[i].priority = sum;
    }
    return 0;
}

void ds_remaining_paths(const ds_dag *d, const ds_task_status *st, const ds_task_eval *ev,
                        double *out)
{
    /* Reverse topological order sees every dependent first. */
    for (size_t k = d->n; k-- > 0;) {
        size_t i = d->topo[k];
        const ds_dag_task *t = &d->tasks[i];
        bool finished = st[i].state == DS_TASK_SUCCEEDED || st[i].state == DS_TASK_FAILED;
        double own = finished ? 0 : fmax(ev[i].t_rem_s, 0);
        double below = 0;
        for (size_t c = 0; c < t->n_down; c++)
            below = fmax(below, out[t->down[c]]);
        out[i] = own + below;
    }
}

bool ds_dsp_is_urgent(const ds_task_eval *e, double epsilon_s)
{
    return e != NULL && e->t_allow_s <= epsilon_s;
}

/* cap > 0: x / cap (negative or NaN x counts as 0); otherwise the cluster has no figure for this
 * resource and every node counts as the largest (1). */
static double share(double x, double cap)
{
    if (!(cap > 0))
        return 1;
    if (!(x > 0))
        return 0;
    return x / cap;
}

double ds_node_rate(double cpu, double mem, double max_cpu, double max_mem, double theta_cpu,
                    double theta_mem)
{
    if (!(max_cpu > 0) && !(max_mem > 0))
        return 1.0;
    double tc = isfinite(theta_cpu) && theta_cpu > 0 ? theta_cpu : 0;
    double tm = isfinite(theta_mem) && theta_mem > 0 ? theta_mem : 0;
    return tc * share(cpu, max_cpu) + tm * share(mem, max_mem);
}

bool ds_can_finish_by(double runtime_s, double speed, double now, double deadline)
{
    if (deadline == INFINITY)
        return true;
    if (!(speed > 0))
        return false;
    return now + runtime_s / speed <= deadline;
}
