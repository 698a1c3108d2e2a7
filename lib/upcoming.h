/* upcoming.h: the tasks of deadline jobs that just became ready: the room their upstream tasks
 * freed is theirs, for the release rule (controller/release.h) and the extender's filter
 * (lib/room_hold.h).
 *
 * When a task ends, kube-scheduler gives the room it freed to whatever waits in its queue: a task
 * of another job released ahead of room, an owner's replacement pod. The job's next task is not
 * there yet: an Argo Workflow creates a task's pod only after its upstream tasks end (the
 * workflow controller sees the end, updates status.nodes, then creates the pod, seconds later),
 * and a gated pod waits for dagsched's release. So the deadline job's next task waits, or needs
 * an eviction, at every level of its DAG.
 *
 * An upcoming task is a ready task (all its upstream tasks succeeded; it has some) of a valid job
 * with a deadline, for DS_UPCOMING_HOLD_S after it became ready (its runnable_since): its pod is
 * still to come, or is gated or pending. A task whose pod does not exist yet counts only when
 * its request is known before the pod exists (an Argo pod template that states it,
 * ds_task_node.has_request); with a pod, its pod's request. The release rule gives upcoming tasks
 * the room first, before the tasks already in kube-scheduler's queue, and keeps room for those
 * without a pod; the extender's filter keeps the other jobs' pods of the namespace off the room
 * on the node the upstream task ran on. A task of a job without a deadline never is (idle room
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
    size_t job, task;   /* indexes into the jobset and the job's DAG */
    size_t pod;         /* its pod (an index into the observed pods), DS_NONE when none yet */
    ds_res request;     /* the template's without a pod; the pod's (when pods are given) */
    double ready_since; /* when it became ready (its runnable_since) */
    /* The pod of its upstream task that ended last, as an index into the observed pods (its node
     * is where the room it freed is), DS_NONE when no upstream pod is known (gone to podGC). */
    size_t from_pod;
} ds_upcoming;

/* What an upcoming task holds of the room its upstream task freed: of `left` (the freed room its
 * job's tasks have not taken yet: bound downstream tasks, the holds of upcoming tasks before it
 * with the same upstream pod), kind by kind the smaller of that and its request, never below 0.
 * The next tasks of one upstream task share the room it freed: a fan-out of three behind a task
 * that freed room for one holds that room, not three times it. Zero: it holds nothing. */
ds_res ds_upcoming_share(const ds_res *left, const ds_res *request);

/* The number of upcoming tasks of js at `now`; the first `cap` of them (in job, then task order)
 * written to out (out may be NULL when cap is 0). pods: the pods js was built from (for
 * from_pod's finish times and the requests of tasks with a pod; NULL: from_pod is any upstream
 * task's pod, and such requests are zero: the caller takes them from its pods). */
size_t ds_jobset_upcoming(const ds_jobset *js, const ds_pod_obs *pods, double now, ds_upcoming *out,
                          size_t cap);

#endif
