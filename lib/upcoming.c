/* upcoming.c: the tasks of deadline jobs that just became ready, whose room their upstream tasks
 * freed (see upcoming.h). */
#include "upcoming.h"

#include <math.h>

/* The pod of task t's upstream task that ended last, or DS_NONE. */
static size_t last_upstream_pod(const ds_job *job, size_t t, const ds_pod_obs *pods)
{
    size_t best = DS_NONE;
    double best_end = -INFINITY;
    const ds_dag_task *dt = &job->dag.tasks[t];
    for (size_t k = 0; k < dt->n_up; k++) {
        size_t pi = job->task_pod[dt->up[k]];
        if (pi == DS_NONE)
            continue;
        double end = pods != NULL && isfinite(pods[pi].finished_at) ? pods[pi].finished_at : 0;
        if (best == DS_NONE || end > best_end) {
            best = pi;
            best_end = end;
        }
    }
    return best;
}

size_t ds_jobset_upcoming(const ds_jobset *js, const ds_pod_obs *pods, double now, ds_upcoming *out,
                          size_t cap)
{
    size_t n = 0;
    for (size_t j = 0; j < js->n_jobs; j++) {
        const ds_job *job = &js->jobs[j];
        if (!job->valid || !isfinite(job->deadline))
            continue;
        for (size_t t = 0; t < job->dag.n; t++) {
            const ds_task_status *st = &job->status[t];
            if (st->state != DS_TASK_WAITING || job->dag.tasks[t].n_up == 0 ||
                !(now - st->runnable_since < DS_UPCOMING_HOLD_S))
                continue;
            size_t pod = job->task_pod[t];
            const ds_task_node *nd = job->node != NULL ? &job->node[t] : NULL;
            if (pod == DS_NONE && (nd == NULL || !nd->has_pod || !nd->has_request))
                continue; /* no pod yet, and no request known before it exists */
            if (n < cap) {
                out[n] = (ds_upcoming){.job = j,
                                       .task = t,
                                       .pod = pod,
                                       .ready_since = st->runnable_since,
                                       .from_pod = last_upstream_pod(job, t, pods)};
                if (pod == DS_NONE)
                    out[n].request = nd->request;
                else if (pods != NULL)
                    out[n].request = pods[pod].request;
            }
            n++;
        }
    }
    return n;
}

ds_res ds_upcoming_share(const ds_res *left, const ds_res *request)
{
    ds_res out = {{0}};
    for (int k = 0; k < DS_RES_N; k++) {
        int64_t v = request->v[k] < left->v[k] ? request->v[k] : left->v[k];
        out.v[k] = v > 0 ? v : 0;
    }
    return out;
}
