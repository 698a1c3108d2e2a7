/* pod_times.h: the one parser of the run time and deadline a pod's annotations state
 * (dagsched.io/runtime, dagsched.io/deadline, dagsched.io/deadline-after), with every check the
 * job model applies, so that the job model and the extender (which reads a pod before the job
 * model has seen it) accept and refuse the same values: Go durations of at most
 * DS_DURATION_ANN_MAX (one year; anything longer is a mistake, such as a missing unit, that would
 * make a task look endless), an RFC 3339 deadline, and not both deadline forms at once. */
#ifndef DAGSCHED_POD_TIMES_H
#define DAGSCHED_POD_TIMES_H

#include <stdbool.h>

#include "ds_error.h"
#include "jobgraph.h" /* ds_deadline_kind */

typedef struct ds_pod_times {
    bool runtime_set; /* dagsched.io/runtime present (and valid) */
    double runtime_s; /* when runtime_set */
    ds_deadline_kind deadline_kind;
    double deadline; /* epoch seconds (absolute) or a duration in seconds (after) */
} ds_pod_times;

/* Parse the three annotation values (NULL: absent) into out. 0; or -1 with err saying which
 * annotation is wrong and why ("annotation dagsched.io/runtime: ..."), out then unusable. */
int ds_pod_times_parse(const char *runtime, const char *deadline, const char *deadline_after,
                       ds_pod_times *out, ds_err *err);

#endif
