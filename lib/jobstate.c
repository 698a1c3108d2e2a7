/* jobstate.c: task states from observed pods, DSP evaluation, and the queries on a built job set
 * (pending upstream tasks, rank among waiting tasks). See jobmodel.h. */
#include "jobstate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool terminal(int phase)
{
    return phase == DS_PHASE_SUCCEEDED || phase == DS_PHASE_FAILED;
}

/* Compare two times, an unknown (NAN) time being the oldest. */
static int cmp_time(double a, double b)
{
    if (isnan(a) || isnan(b))
        return !isnan(a) - !isnan(b);
    return (a > b) - (a < b);
}

static int cmp_str(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

bool ds_pod_obs_better(const ds_pod_obs *a, const ds_pod_obs *b)
{
    bool ta = terminal(a->phase), tb = terminal(b->phase);
    if (ta != tb)
        return !ta;
    if (ta && a->phase != b->phase)
        return a->phase == DS_PHASE_SUCCEEDED;
    int c = cmp_time(a->created_at, b->created_at);
    if (c == 0)
        c = cmp_str(a->name, b->name);
    if (c == 0)
        c = cmp_str(a->uid, b->uid);
    return c > 0;
}

/* When a succeeded task finished: its pod's finish time, else its start, else its creation. */
static double finish_time(const ds_pod_obs *p)
{
    if (isfinite(p->finished_at))
        return p->finished_at;
    if (isfinite(p->started_at))
        return p->started_at;
    return p->created_at;
}

/* When upstream task u finished: its pod's time, else its node's (a deleted pod). */
static double task_finish_time(const ds_job *j, const ds_pod_obs *pods, size_t u)
{
    if (j->task_pod[u] != DS_NONE)
        return finish_time(&pods[j->task_pod[u]]);
    if (j->node != NULL)
        return isfinite(j->node[u].finished_at) ? j->node[u].finished_at : j->node[u].started_at;
    return NAN;
}

/* A task of a Workflow: what its node in status.nodes adds to what its pod says. */
static void node_state(const ds_task_node *nd, bool has_pod_obs, ds_task_status *st, double now)
{
    if (nd->phase == DS_WF_NODE_SUCCEEDED) {
        st->state = DS_TASK_SUCCEEDED;
    } else if (nd->phase == DS_WF_NODE_FAILED) {
        st->state = DS_TASK_FAILED;
    } else if (st->state == DS_TASK_FAILED) {
        st->state = DS_TASK_BLOCKED; /* Argo retries it: its next attempt waits */
    } else if (!has_pod_obs && !nd->has_pod && nd->phase == DS_WF_NODE_RUNNING) {
        st->state = DS_TASK_RUNNING;
        st->started_at = isfinite(nd->started_at) && nd->started_at <= now ? nd->started_at : now;
    }
}

static void job_states(ds_job *j, const ds_pod_obs *pods, double now)
{
    const ds_dag *d = &j->dag;
    /* First what the pods say; then unstarted tasks by their upstream. */
    for (size_t t = 0; t < d->n; t++) {
        ds_task_status *st = &j->status[t];
        memset(st, 0, sizeof *st);
        st->speed = 1.0;
        st->runnable_since = NAN;
        st->started_at = NAN;
        st->state = DS_TASK_BLOCKED;
        size_t pi = j->task_pod[t];
        if (pi == DS_NONE) {
            if (j->node != NULL)
                node_state(&j->node[t], false, st, now);
            continue;
        }
        const ds_pod_obs *p = &pods[pi];
        if (p->phase == DS_PHASE_SUCCEEDED) {
            st->state = DS_TASK_SUCCEEDED;
        } else if (p->phase == DS_PHASE_FAILED) {
            st->state = DS_TASK_FAILED;
        } else if (p->bound || p->phase == DS_PHASE_RUNNING) {
            st->state = DS_TASK_RUNNING;
            st->started_at = isfinite(p->started_at)   ? p->started_at
                             : isfinite(p->created_at) ? p->created_at
                                                       : now;
            if (st->started_at > now)
                st->started_at = now;
            st->speed = isfinite(p->node_speed) && p->node_speed > 0 ? p->node_speed : 1.0;
        }
        if (j->node != NULL)
            node_state(&j->node[t], true, st, now);
    }
    for (size_t t = 0; t < d->n; t++) {
        ds_task_status *st = &j->status[t];
        if (st->state != DS_TASK_BLOCKED || (j->missing != NULL && j->missing[t]))
            continue; /* a task without a pod yet cannot run, whatever its upstream */
        bool runnable = true;
        double since = NAN;
        const ds_dag_task *dt = &d->tasks[t];
        for (size_t k = 0; k < dt->n_up && runnable; k++) {
            size_t u = dt->up[k];
            if (j->status[u].state != DS_TASK_SUCCEEDED) {
                runnable = false;
                break;
            }
            double f = task_finish_time(j, pods, u);
            if (isfinite(f) && (isnan(since) || f > since))
                since = f;
        }
        if (!runnable)
            continue;
        st->state = DS_TASK_WAITING;
        size_t pi = j->task_pod[t];
        if (pi != DS_NONE) {
            double c = pods[pi].created_at;
            if (isfinite(c) && (isnan(since) || c > since))
                since = c;
        }
        if (isnan(since))
            since = isfinite(j->created_at) ? j->created_at : now;
        st->runnable_since = since > now ? now : since;
    }
}

typedef struct waiting {
    double priority;
    size_t job, task;
} waiting;

/* Highest priority first; NaN last. */
static int cmp_waiting(const void *x, const void *y)
{
    double a = ((const waiting *)x)->priority, b = ((const waiting *)y)->priority;
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return (a < b) - (a > b);
}

static bool same_priority(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

int ds_jobset_rank_waiting(ds_jobset *s, ds_err *err)
{
    size_t n = 0;
    for (size_t j = 0; j < s->n_jobs; j++) {
        ds_job *job = &s->jobs[j];
        for (size_t t = 0; job->valid && t < job->dag.n; t++)
            if (job->status[t].state == DS_TASK_WAITING)
                n++;
    }
    s->n_waiting = n;
    if (n == 0)
        return 0;
    waiting *w = malloc(n * sizeof *w);
    if (w == NULL)
        return ds_err_set(err, "out of memory");
    size_t k = 0;
    for (size_t j = 0; j < s->n_jobs; j++) {
        ds_job *job = &s->jobs[j];
        for (size_t t = 0; job->valid && t < job->dag.n; t++)
            if (job->status[t].state == DS_TASK_WAITING)
                w[k++] = (waiting){job->eval[t].priority, j, t};
    }
    qsort(w, n, sizeof *w, cmp_waiting);
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && same_priority(w[b].priority, w[a].priority))
            b++;
        double rank = n == 1 ? 1.0 : 1.0 - (double)a / (double)(n - 1);
        for (size_t m = a; m < b; m++)
            s->jobs[w[m].job].wait_rank[w[m].task] = rank;
        a = b;
    }
    free(w);
    return 0;
}

int ds_jobstate_compute(ds_jobset *s, const ds_pod_obs *pods, double now,
                        const ds_priority_params *pp, ds_err *err)
{
    for (size_t ji = 0; ji < s->n_jobs; ji++) {
        ds_job *j = &s->jobs[ji];
        if (!j->valid)
            continue;
        size_t n = j->dag.n;
        j->status = ds_arena_calloc(&s->arena, n, sizeof *j->status);
        j->eval = ds_arena_calloc(&s->arena, n, sizeof *j->eval);
        j->wait_rank = ds_arena_calloc(&s->arena, n, sizeof *j->wait_rank);
        j->level_deadline =
            ds_arena_calloc(&s->arena, (size_t)j->dag.n_levels + 1, sizeof *j->level_deadline);
        if (j->status == NULL || j->eval == NULL || j->wait_rank == NULL ||
            j->level_deadline == NULL)
            return ds_err_set(err, "out of memory");
        job_states(j, pods, now);
        if (ds_dsp_evaluate(&j->dag, j->status, j->deadline, now, pp, j->eval, err) != 0) {
            ds_err_prefix(err, "job %s", j->key);
            return -1;
        }
        ds_level_deadlines(&j->dag, j->deadline, j->level_deadline);
        j->level_deadline[0] = NAN;
        for (size_t t = 0; t < n; t++)
            j->wait_rank[t] = -1.0;
    }
    return ds_jobset_rank_waiting(s, err);
}

static void append(char *buf, size_t bufsize, size_t *pos, const char *s, size_t len)
{
    if (*pos + len >= bufsize)
        len = bufsize - 1 - *pos;
    memcpy(buf + *pos, s, len);
    *pos += len;
    buf[*pos] = '\0';
}

size_t ds_job_pending_upstream(const ds_job *j, size_t task, char *buf, size_t bufsize)
{
    if (buf != NULL && bufsize > 0)
        buf[0] = '\0';
    if (j == NULL || !j->valid || task >= j->dag.n)
        return 0;
    const ds_dag_task *dt = &j->dag.tasks[task];
    size_t pending = 0;
    for (size_t k = 0; k < dt->n_up; k++)
        if (j->status[dt->up[k]].state != DS_TASK_SUCCEEDED)
            pending++;
    if (buf == NULL || bufsize == 0)
        return pending;
    size_t pos = 0, written = 0;
    for (size_t k = 0; k < dt->n_up && written < pending; k++) {
        size_t u = dt->up[k];
        if (j->status[u].state == DS_TASK_SUCCEEDED)
            continue;
        const char *name = j->dag.tasks[u].name;
        const char *note = j->missing != NULL && j->missing[u] ? DS_MISSING_TASK_NOTE : "";
        size_t len = strlen(name) + strlen(note) + (written > 0 ? 2 : 0);
        size_t left = pending - written - 1; /* after this one */
        char more[48] = "";
        if (left > 0)
            snprintf(more, sizeof more, " and %zu more", left);
        /* Room for this name, and for the "and N more" that may have to follow it. */
        if (pos + len + strlen(more) >= bufsize) {
            if (written > 0)
                snprintf(more, sizeof more, " and %zu more", pending - written);
            else
                snprintf(more, sizeof more, "%zu tasks", pending);
            append(buf, bufsize, &pos, more, strlen(more));
            return pending;
        }
        if (written > 0)
            append(buf, bufsize, &pos, ", ", 2);
        append(buf, bufsize, &pos, name, strlen(name));
        append(buf, bufsize, &pos, note, strlen(note));
        written++;
    }
    return pending;
}

double ds_jobset_wait_rank(const ds_jobset *s, const ds_job *j, size_t task)
{
    if (s == NULL || j == NULL || !j->valid || task >= j->dag.n || j->wait_rank == NULL)
        return -1.0;
    return j->wait_rank[task];
}

const char *ds_task_state_name(ds_task_state state)
{
    switch (state) {
    case DS_TASK_BLOCKED:
        return "blocked";
    case DS_TASK_WAITING:
        return "waiting";
    case DS_TASK_RUNNING:
        return "running";
    case DS_TASK_SUCCEEDED:
        return "succeeded";
    case DS_TASK_FAILED:
        return "failed";
    }
    return "unknown";
}
