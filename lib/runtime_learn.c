/* runtime_learn.c: recording the run times of the DAG tasks that succeeded into the history of
 * learned run times (ds_jobset_learn_runtimes in jobmodel.h; lib/runtime_history.h). */
#include <math.h>
#include <stdio.h>

#include "jobmodel.h"

/* One task's run: its pod's (times the pod's node speed: reference seconds), else, for a
 * Workflow's task whose pod is gone (podGC), its node's times at reference speed. The id counts
 * each run once. */
static bool run_of(const ds_jobset *s, const ds_job *j, size_t t, const ds_pod_obs *pods,
                   size_t n_pods, double *seconds, char *id, size_t id_size)
{
    size_t p = j->task_pod[t];
    if (p != DS_NONE && p < n_pods && pods[p].phase == DS_PHASE_SUCCEEDED && pods[p].uid != NULL) {
        double speed =
            pods[p].node_speed > 0 && isfinite(pods[p].node_speed) ? pods[p].node_speed : 1.0;
        *seconds = (pods[p].finished_at - pods[p].started_at) * speed;
        snprintf(id, id_size, "%s", pods[p].uid);
        return isfinite(*seconds) && *seconds > 0;
    }
    (void)s;
    if (j->node != NULL && j->workflow != NULL && j->node[t].phase == DS_WF_NODE_SUCCEEDED &&
        j->node[t].has_pod) {
        *seconds = j->node[t].finished_at - j->node[t].started_at;
        int n = snprintf(id, id_size, "wf:%s:%zu", j->workflow, t);
        return n > 0 && (size_t)n < id_size && isfinite(*seconds) && *seconds > 0;
    }
    return false;
}

size_t ds_jobset_learn_runtimes(const ds_jobset *s, const ds_pod_obs *pods, size_t n_pods,
                                ds_rt_history *h, double now)
{
    size_t recorded = 0;
    if (s == NULL || h == NULL)
        return 0;
    for (size_t ji = 0; ji < s->n_jobs; ji++) {
        const ds_job *j = &s->jobs[ji];
        if (!j->valid || j->status == NULL || j->task_pod == NULL)
            continue;
        for (size_t t = 0; t < j->dag.n; t++) {
            if (j->status[t].state != DS_TASK_SUCCEEDED || (j->missing != NULL && j->missing[t]))
                continue;
            char key[DS_RT_KEY_MAX], id[DS_RT_UID_MAX];
            double seconds;
            if (!run_of(s, j, t, pods, n_pods, &seconds, id, sizeof id) ||
                !ds_jobset_runtime_key(j, j->dag.tasks[t].name, key, sizeof key))
                continue;
            if (ds_rt_history_record(h, key, id, seconds, now, NULL) == 1)
                recorded++;
        }
    }
    return recorded;
}
