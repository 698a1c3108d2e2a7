/* release.h: which held-back DAG tasks to release now, and which pods to nudge, as a pure
 * function over the controller's view.
 *
 * A task is held back either by the dagsched.io/dependencies scheduling gate on its pod or by its
 * batch/v1 Job being suspended. It is ready when the job model says all its upstream tasks have
 * succeeded (task state WAITING). Ready tasks are released highest DSP priority first (then the
 * oldest, then by namespace/name). With spec.release.maxConcurrentReleases = N > 0, at most N
 * tasks may be released and not yet bound at any time: pending pods of DAG tasks that are neither
 * gated nor bound, and unsuspended Jobs that have no pod yet, count against N.
 *
 * A pod outside every valid DAG job (its dagsched metadata cannot be used, ctl_pod.dagsched_error;
 * or it has no task in a valid job: no dagsched.io/job label, a pod error, an invalid job) is
 * never held: when it carries the gate (its author's or the admission webhook's, which gates every
 * pod of the dagsched scheduler), the gate is removed at once (ungate).
 *
 * A pod that kube-scheduler found unschedulable (the extender rejects pods whose upstream tasks
 * have not succeeded) and whose upstream tasks have all succeeded since is nudged once per
 * unschedulable episode: the controller updates an annotation, which makes kube-scheduler retry
 * it at once instead of after its back-off. */
#ifndef DAGSCHED_CONTROLLER_RELEASE_H
#define DAGSCHED_CONTROLLER_RELEASE_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"
#include "view.h"

typedef enum ctl_release_kind { CTL_RELEASE_POD = 0, CTL_RELEASE_JOB } ctl_release_kind;

typedef struct ctl_release {
    ctl_release_kind kind;
    size_t idx; /* into pods or jobs */
    double priority;
} ctl_release;

typedef struct ctl_release_in {
    const ctl_pod *pods;
    size_t n_pods;
    const ctl_batch_job *jobs;
    size_t n_jobs;
    size_t max_concurrent; /* 0: unlimited */
} ctl_release_in;

typedef struct ctl_release_out {
    ctl_release *rel; /* to release now, in order */
    size_t n_rel;
    size_t *nudge; /* pod indexes to nudge */
    size_t n_nudge;
    size_t *ungate; /* pods outside any DAG job whose gate is to be removed */
    size_t n_ungate;
    size_t n_ready;   /* tasks ready to be released */
    size_t in_flight; /* released tasks not bound yet */
    size_t n_held;    /* ready tasks held back by maxConcurrentReleases */
} ctl_release_out;

int ctl_release_plan(const ctl_release_in *in, ctl_release_out *out, ds_err *err);
void ctl_release_out_free(ctl_release_out *out);

#endif
