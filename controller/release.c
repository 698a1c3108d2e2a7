/* release.c: release of held-back DAG tasks and nudges of rejected pods (see release.h). Held
 * tasks go in the policy's queue order across jobs (spec.order, lib/joborder.h), then by DSP
 * priority. */
#include "release.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cand {
    ctl_release r;
    size_t queue_pos; /* the policy's order across jobs (spec.order); SIZE_MAX when unknown */
    double created;
    const char *ns, *name;
} cand;

static int cmp_cand(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    if (a->queue_pos != b->queue_pos)
        return a->queue_pos < b->queue_pos ? -1 : 1;
    if (a->r.priority != b->r.priority)
        return a->r.priority > b->r.priority ? -1 : 1;
    if (a->created != b->created)
        return a->created < b->created ? -1 : 1;
    int c = strcmp(a->ns, b->ns);
    return c ? c : strcmp(a->name, b->name);
}

static double prio_of(const ctl_task_info *t)
{
    return t->evaluated && isfinite(t->eval.priority) ? t->eval.priority : -INFINITY;
}

int ctl_release_plan(const ctl_release_in *in, ctl_release_out *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    if ((in->pods == NULL && in->n_pods) || (in->jobs == NULL && in->n_jobs))
        return ds_err_set(err, "release round: missing array");
    size_t cap = in->n_pods + in->n_jobs;
    cand *c = calloc(cap ? cap : 1, sizeof *c);
    out->nudge = calloc(in->n_pods ? in->n_pods : 1, sizeof *out->nudge);
    out->ungate = calloc(in->n_pods ? in->n_pods : 1, sizeof *out->ungate);
    if (c == NULL || out->nudge == NULL || out->ungate == NULL) {
        free(c);
        ctl_release_out_free(out);
        return ds_err_set(err, "release round: out of memory");
    }
    size_t nc = 0;
    for (size_t i = 0; i < in->n_pods; i++) {
        const ctl_pod *p = &in->pods[i];
        /* A gated pod outside every DAG job (unusable dagsched metadata, no dagsched.io/job label,
         * a pod error) has no upstream tasks to wait for: the gate (written by its author or by
         * the admission webhook) is removed at once, never held. A task of a job that is invalid
         * right now keeps its gate: the job may be one whose pods are still being created, and
         * releasing it could run it before its upstream tasks (InvalidJob says why it waits). */
        bool outside = (p->dagsched_error != NULL && p->dagsched_error[0] != '\0') ||
                       (p->task.job == DS_NO_TASK && !p->task.job_invalid);
        if (outside) {
            if (p->state == CTL_POD_GATED && !p->terminating)
                out->ungate[out->n_ungate++] = i;
            continue;
        }
        if (p->terminating)
            continue;
        bool ready = p->task.state == DS_TASK_WAITING;
        if (p->state == CTL_POD_GATED) {
            if (ready)
                c[nc++] = (cand){.r = {CTL_RELEASE_POD, i, prio_of(&p->task)},
                                 .queue_pos = p->task.queue_pos,
                                 .created = p->created_at,
                                 .ns = p->ns,
                                 .name = p->name};
            continue;
        }
        if (p->state == CTL_POD_PENDING || p->state == CTL_POD_UNSCHEDULABLE)
            out->in_flight++;
        /* Only a task with upstream tasks can have been rejected for them: a root task that
         * waits for room is left to kube-scheduler's own retries. */
        if (p->state == CTL_POD_UNSCHEDULABLE && ready && p->task.has_upstream &&
            (isnan(p->nudged_at) || isnan(p->unschedulable_since) ||
             p->nudged_at < p->unschedulable_since))
            out->nudge[out->n_nudge++] = i;
    }
    for (size_t i = 0; i < in->n_jobs; i++) {
        const ctl_batch_job *j = &in->jobs[i];
        if (j->task.job == DS_NO_TASK)
            continue;
        if (!j->suspended) {
            if (j->task.state == DS_TASK_WAITING && !j->has_pods)
                out->in_flight++;
            continue;
        }
        if (j->task.state == DS_TASK_WAITING)
            c[nc++] = (cand){.r = {CTL_RELEASE_JOB, i, prio_of(&j->task)},
                             .queue_pos = j->task.queue_pos,
                             .created = j->created_at,
                             .ns = j->ns,
                             .name = j->name};
    }
    out->n_ready = nc;
    qsort(c, nc, sizeof *c, cmp_cand);
    size_t n = nc;
    if (in->max_concurrent > 0) {
        size_t room =
            out->in_flight >= in->max_concurrent ? 0 : in->max_concurrent - out->in_flight;
        if (n > room)
            n = room;
    }
    out->n_held = nc - n;
    if (n > 0) {
        out->rel = calloc(n, sizeof *out->rel);
        if (out->rel == NULL) {
            free(c);
            ctl_release_out_free(out);
            return ds_err_set(err, "release round: out of memory");
        }
        for (size_t i = 0; i < n; i++)
            out->rel[i] = c[i].r;
        out->n_rel = n;
    }
    free(c);
    return 0;
}

void ctl_release_out_free(ctl_release_out *out)
{
    free(out->rel);
    free(out->nudge);
    free(out->ungate);
    memset(out, 0, sizeof *out);
}
