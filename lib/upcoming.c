/* upcoming.c: ready tasks of deadline jobs whose pod is still to come (see upcoming.h). */
#include "upcoming.h"

#include <math.h>

size_t ds_jobset_upcoming(const ds_jobset *js, double now, ds_upcoming *out, size_t cap)
{
    size_t n = 0;
    for (size_t j = 0; j < js->n_jobs; j++) {
        const ds_job *job = &js->jobs[j];
        if (!job->valid || job->node == NULL || !isfinite(job->deadline))
            continue;
        for (size_t t = 0; t < job->dag.n; t++) {
            const ds_task_status *st = &job->status[t];
            const ds_task_node *nd = &job->node[t];
            if (st->state != DS_TASK_WAITING || job->task_pod[t] != DS_NONE || !nd->has_pod ||
                !nd->has_request || !(now - st->runnable_since < DS_UPCOMING_HOLD_S))
                continue;
            if (n < cap)
                out[n] = (ds_upcoming){
                    .job = j, .task = t, .request = nd->request, .ready_since = st->runnable_since};
            n++;
        }
    }
    return n;
}
