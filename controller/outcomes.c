/* outcomes.c: finished jobs and started tasks, each reported once (see outcomes.h). */
#include "outcomes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ctl_job_outcome_name(ctl_job_outcome o)
{
    switch (o) {
    case CTL_OUTCOME_DEADLINE_MET:
        return "deadline_met";
    case CTL_OUTCOME_DEADLINE_MISSED:
        return "deadline_missed";
    case CTL_OUTCOME_NO_DEADLINE:
        return "no_deadline";
    case CTL_OUTCOME_FAILED:
        return "failed";
    }
    return "unknown";
}

void ctl_outcomes_init(ctl_outcomes *o, double since)
{
    memset(o, 0, sizeof *o);
    o->since = since;
}

void ctl_outcomes_free(ctl_outcomes *o)
{
    if (o->init)
        ds_strmap_free(&o->seen);
    ds_arena_free(&o->keys);
    memset(o, 0, sizeof *o);
}

void ctl_outcome_events_free(ctl_outcome_events *e)
{
    free(e->jobs);
    free(e->tasks);
    memset(e, 0, sizeof *e);
}

double ctl_outcomes_task_finish(const ctl_snapshot *s, const ds_job *j, size_t t, double fallback)
{
    size_t i = j->task_pod[t];
    if (i == DS_NONE || i >= s->n_pod)
        return fallback;
    const kube_pod *kp = (const kube_pod *)s->pods.items[i];
    return kp->finished_at > 0 ? kp->finished_at : fallback;
}

/* The job is over: every task succeeded, or one failed and none runs or can still run (a task
 * blocked behind a failed one never will). *finish: the latest task finish. */
static bool job_over(const ctl_snapshot *s, const ds_job *j, bool *failed, double *finish)
{
    size_t ok = 0, bad = 0;
    *finish = -INFINITY;
    for (size_t t = 0; t < j->dag.n; t++) {
        ds_task_state st = j->status[t].state;
        if (st == DS_TASK_RUNNING || st == DS_TASK_WAITING)
            return false;
        if (st == DS_TASK_SUCCEEDED || st == DS_TASK_FAILED) {
            double f = ctl_outcomes_task_finish(s, j, t, s->now);
            if (f > *finish)
                *finish = f;
            if (st == DS_TASK_SUCCEEDED)
                ok++;
            else
                bad++;
        }
    }
    *failed = bad > 0;
    return j->dag.n > 0 && (ok == j->dag.n || bad > 0);
}

/* When the task became ready: its pod's creation, or its last upstream task's finish. */
static double ready_of(const ctl_snapshot *s, const ds_job *j, size_t t, double created)
{
    double r = created;
    const ds_dag_task *task = &j->dag.tasks[t];
    for (size_t k = 0; k < task->n_up; k++) {
        double f = ctl_outcomes_task_finish(s, j, task->up[k], NAN);
        if (isfinite(f) && f > r)
            r = f;
    }
    return r;
}

typedef struct scan {
    ctl_outcomes *o;
    ds_arena keys;
    ds_strmap seen;
    bool fresh; /* not reported before */
} scan;

/* Remember key in the new set; true when the old set did not have it. -1 on out of memory. */
static int remember(scan *sc, const char *key)
{
    size_t len = strlen(key);
    char *k = ds_arena_strndup(&sc->keys, key, len);
    if (k == NULL || ds_strmap_put(&sc->seen, k, len, 0, NULL) < 0)
        return -1;
    size_t v;
    return !(sc->o->init && ds_strmap_get(&sc->o->seen, key, len, &v) == 0);
}

/* A job the round defers (workset.h) is not in its model: what was reported of it and of its
 * pods is remembered all the same, so that it is not reported again once it is evaluated. */
static int carry_deferred(scan *sc, const ctl_snapshot *s)
{
    if (!sc->o->init || s->work == NULL || s->work->plan.n_deferred == 0)
        return 0;
    char key[1024];
    size_t v;
    for (size_t i = 0; i < s->n_pod; i++) {
        const ctl_pod *p = &s->pod[i];
        if (!p->task.deferred || p->uid[0] == '\0')
            continue;
        snprintf(key, sizeof key, "pod/%s", p->uid);
        if (ds_strmap_get(&sc->o->seen, key, strlen(key), &v) == 0 && remember(sc, key) < 0)
            return -1;
    }
    const ds_strmap *old = &sc->o->seen;
    for (size_t i = 0; old->slots != NULL && i <= old->mask; i++) {
        const ds_strmap_slot *sl = &old->slots[i];
        /* "job/<ns>/<name>/<created>" */
        if (sl->key == NULL || sl->len < 4 || memcmp(sl->key, "job/", 4) != 0)
            continue;
        const char *end = sl->key + sl->len;
        while (end > sl->key + 4 && end[-1] != '/')
            end--;
        if (end > sl->key + 5 &&
            ctl_work_key_deferred(s->work, sl->key + 4, (size_t)(end - 1 - (sl->key + 4)))) {
            snprintf(key, sizeof key, "%.*s", (int)sl->len, sl->key);
            if (remember(sc, key) < 0)
                return -1;
        }
    }
    return 0;
}

int ctl_outcomes_scan(ctl_outcomes *o, const ctl_snapshot *s, ctl_outcome_events *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    scan sc = {.o = o};
    unsigned char *who = NULL; /* per job: 1 a foreign pod seen, 2 one of ours */
    size_t cap = s->js.n_jobs + s->n_pod;
    if (ds_strmap_init(&sc.seen, cap ? cap : 1) != 0)
        return ds_err_set(err, "outcomes: out of memory");
    out->jobs = calloc(s->js.n_jobs ? s->js.n_jobs : 1, sizeof *out->jobs);
    out->tasks = calloc(s->n_pod ? s->n_pod : 1, sizeof *out->tasks);
    if (out->jobs == NULL || out->tasks == NULL)
        goto oom;
    /* Jobs run by another scheduler (every pod of theirs seen is foreign) are not dagsched's. */
    who = calloc(s->js.n_jobs ? s->js.n_jobs : 1, 1);
    if (who == NULL)
        goto oom;
    for (size_t i = 0; i < s->n_pod; i++)
        if (s->pod[i].task.job != DS_NO_TASK && s->pod[i].task.job < s->js.n_jobs)
            who[s->pod[i].task.job] |= s->pod[i].foreign ? 1 : 2;
    char key[1024];
    for (size_t i = 0; i < s->js.n_jobs; i++) {
        const ds_job *j = &s->js.jobs[i];
        bool failed;
        double finish;
        if (!j->valid || who[i] == 1 || !job_over(s, j, &failed, &finish))
            continue;
        snprintf(key, sizeof key, "job/%s/%.0f", j->key,
                 isfinite(j->created_at) ? j->created_at : 0);
        int fresh = remember(&sc, key);
        if (fresh < 0)
            goto oom;
        if (!fresh || finish < o->since)
            continue;
        ctl_job_done *d = &out->jobs[out->n_jobs++];
        d->job_idx = i;
        d->ns = j->ns;
        d->job = j->name;
        d->makespan_s = isfinite(j->created_at) ? finish - j->created_at : NAN;
        d->lateness_s = isfinite(j->deadline) ? finish - j->deadline : NAN;
        d->outcome = failed                   ? CTL_OUTCOME_FAILED
                     : !isfinite(j->deadline) ? CTL_OUTCOME_NO_DEADLINE
                     : finish <= j->deadline  ? CTL_OUTCOME_DEADLINE_MET
                                              : CTL_OUTCOME_DEADLINE_MISSED;
    }
    for (size_t i = 0; i < s->n_pod; i++) {
        const ctl_pod *p = &s->pod[i];
        if (p->task.job == DS_NO_TASK || isnan(p->started_at) || p->uid[0] == '\0' || p->foreign)
            continue;
        const ds_job *j = ctl_snapshot_job_of(s, &p->task);
        if (j == NULL || !j->valid || p->task.task >= j->dag.n)
            continue;
        snprintf(key, sizeof key, "pod/%s", p->uid);
        int fresh = remember(&sc, key);
        if (fresh < 0)
            goto oom;
        if (!fresh || p->started_at < o->since)
            continue;
        ctl_task_start *t = &out->tasks[out->n_tasks++];
        t->ns = p->ns;
        t->from_created_s = p->started_at - p->created_at;
        t->from_ready_s = p->started_at - ready_of(s, j, p->task.task, p->created_at);
    }
    if (carry_deferred(&sc, s) != 0)
        goto oom;
    free(who);
    if (o->init)
        ds_strmap_free(&o->seen);
    ds_arena_free(&o->keys);
    o->keys = sc.keys;
    o->seen = sc.seen;
    o->init = true;
    return 0;
oom:
    free(who);
    ds_strmap_free(&sc.seen);
    ds_arena_free(&sc.keys);
    ctl_outcome_events_free(out);
    return ds_err_set(err, "outcomes: out of memory");
}
