/* upcoming.h: tasks of deadline jobs that are ready but whose pod does not exist yet, for which
 * the release rule keeps room.
 *
 * An Argo Workflow creates a task's pod only after its upstream tasks end: the workflow
 * controller sees the end, updates status.nodes, then creates the pod, seconds later. Meanwhile
 * the room the upstream task freed looks free, and a task of another job released into it
 * (a batch item) takes it: the deadline job's next task then waits, or needs an eviction, at
 * every level of its DAG. So a ready task of a job with a deadline whose pod is still to come
 * (an upcoming task) takes its place in the release order like a gated task, with the request its
 * template states: room it fits is kept free for it, for at most DS_UPCOMING_HOLD_S after it
 * became ready; it releases nothing, and counts against neither maxConcurrentReleases nor the
 * look-ahead. Only tasks whose request is known before the pod exists are upcoming (Argo pod
 * templates, ds_task_node.has_request); a task of a job without a deadline never is (idle room
 * is then a pure loss). Pure: no I/O, no clock. */
#ifndef DAGSCHED_UPCOMING_H
#define DAGSCHED_UPCOMING_H

#include <stddef.h>

#include "jobmodel.h"
#include "resources.h"

/* How long after it became ready an upcoming task keeps room: the workflow controller creates
 * the pod within seconds; past this it waits for something else (Argo's parallelism, a suspended
 * Workflow), and the room goes to others. */
#define DS_UPCOMING_HOLD_S 15.0

typedef struct ds_upcoming {
    size_t job, task; /* indexes into the jobset and the job's DAG */
    ds_res request;
    double ready_since; /* when it became ready (its runnable_since) */
    /* The pod of its upstream task that ended last, as an index into the observed pods (its node
     * is where the room it freed is), DS_NONE when no upstream pod is known (gone to podGC). */
    size_t from_pod;
} ds_upcoming;

/* The number of upcoming tasks of js at `now`; the first `cap` of them (in job, then task order)
 * written to out (out may be NULL when cap is 0). pods: the pods js was built from (for
 * from_pod's finish times; NULL: from_pod is any upstream task's pod). */
size_t ds_jobset_upcoming(const ds_jobset *js, const ds_pod_obs *pods, double now, ds_upcoming *out,
                          size_t cap);

#endif
