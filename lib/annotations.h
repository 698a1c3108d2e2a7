/* annotations.h: the labels and annotations by which pods and ConfigMaps declare DAG jobs, and
 * the parsing of their values (see docs/dag-jobs.md for the user-facing reference).
 *
 * A pod belongs to the job named by its `dagsched.io/job` label (or, for Argo Workflows, its
 * `workflows.argoproj.io/workflow` label) within its namespace, and is the task named by its
 * `dagsched.io/task` label. Its annotations give the upstream tasks, the run time estimate and the
 * job deadline. */
#ifndef DAGSCHED_ANNOTATIONS_H
#define DAGSCHED_ANNOTATIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"

#define DS_LABEL_JOB                "dagsched.io/job"
#define DS_LABEL_ARGO_WORKFLOW      "workflows.argoproj.io/workflow"
#define DS_LABEL_TASK               "dagsched.io/task"
#define DS_ANN_DEPENDS_ON           "dagsched.io/depends-on"
#define DS_ANN_RUNTIME              "dagsched.io/runtime"
#define DS_ANN_DEADLINE             "dagsched.io/deadline"
#define DS_ANN_DEADLINE_AFTER       "dagsched.io/deadline-after"
#define DS_LABEL_KIND               "dagsched.io/kind"
#define DS_KIND_JOBGRAPH            "JobGraph"
#define DS_JOBGRAPH_DATA_KEY        "graph.yaml"
#define DS_GATE_DEPENDENCIES        "dagsched.io/dependencies" /* dagsched's scheduling gate */
#define DS_SELECTOR_JOBGRAPH        DS_LABEL_KIND "=" DS_KIND_JOBGRAPH
#define DS_KIND_RUNTIME_HISTORY     "RuntimeHistory" /* the controller's learned run times */
#define DS_SELECTOR_RUNTIME_HISTORY DS_LABEL_KIND "=" DS_KIND_RUNTIME_HISTORY
#define DS_RUNTIME_HISTORY_NAME     "dagsched-runtime-history" /* its ConfigMap, by default */
#define DS_RUNTIME_HISTORY_DATA_KEY "history.tsv"

/* What the controller writes on the pods it schedules (docs/controller.md). */
#define DS_ANN_PRIORITY              "dagsched.io/priority"
#define DS_ANN_SLACK                 "dagsched.io/slack"
#define DS_ANN_LEVEL_DEADLINE        "dagsched.io/level-deadline"
#define DS_ANN_EVICTED_AT            "dagsched.io/evicted-at"
#define DS_ANN_EVICTION_REASON       "dagsched.io/eviction-reason"
#define DS_ANN_RELEASED_AT           "dagsched.io/released-at"
#define DS_ANN_UPSTREAM_SUCCEEDED_AT "dagsched.io/upstream-succeeded-at"
#define DS_ANN_WAITING_REASON        "dagsched.io/waiting-reason"

/* Warning Event reasons that the controller and the extender both post. */
#define DS_EV_INVALID_JOB_GRAPH "InvalidJobGraph" /* the job's DAG cannot be built */
#define DS_EV_INVALID_POD_METADATA                                                                 \
    "InvalidPodMetadata" /* the pod's dagsched metadata is beyond the bounds */
/* A Warning Event of the controller: the job was left for a later round, its tasks past the bound
 * on graph work a round (--max-graph-tasks-per-round). */
#define DS_EV_JOB_DEFERRED "JobDeferred"

#define DS_NAME_VALUE_MAX     63                /* a label value: job keys and task names */
#define DS_DURATION_ANN_MAX_S (8760.0 * 3600.0) /* dagsched.io/runtime, deadline-after: 8760h */
#define DS_DURATION_ANN_MAX   "8760h"

#define DS_DEPENDS_ON_MAX_LEN (64 * 1024) /* bytes of one depends-on annotation */

/* Is s[0..len) usable as a job key or task name: a non-empty Kubernetes label value (at most 63
 * letters, digits, '-', '_' or '.', beginning and ending with a letter or digit)? */
bool ds_name_valid(const char *s, size_t len);

/* The rule above as text, for error messages. */
#define DS_NAME_RULE                                                                               \
    "must be 1 to 63 letters, digits, '-', '_' or '.', beginning and ending with a letter or "     \
    "digit"

/* The job key of a pod from its two label values (either may be NULL): dagsched.io/job wins over
 * the Argo workflow label. Returns NULL when neither is set; *label receives the name of the label
 * used. */
const char *ds_job_label_value(const char *dagsched_job, const char *argo_workflow,
                               const char **label);

/* A byte range of a string. */
typedef struct ds_span {
    size_t off;
    size_t len;
} ds_span;

/* Upper bound on the number of entries in a depends-on value (for sizing the output array); reads
 * at most DS_DEPENDS_ON_MAX_LEN + 1 bytes. */
size_t ds_depends_on_max_entries(const char *s);

/* Split a depends-on value ("a, b,c") into task names: comma-separated, blanks (spaces and tabs)
 * around names ignored. An all-blank value means no dependency. Empty entries and invalid names are
 * errors ("entry 2 is empty (got \"a,,b\")"). `out` must hold ds_depends_on_max_entries(s)
 * entries; spans index into s. 0 on success, -1 with err set otherwise. */
int ds_depends_on_parse(const char *s, ds_span *out, size_t *n, ds_err *err);

/* Whether a dagsched.io/depends-on value names (or, malformed, may name) upstream tasks: false for
 * NULL and for a blank value (a root task), true otherwise. Looks at DS_DEPENDS_ON_MAX_LEN bytes at
 * most (a longer value is malformed, hence true). */
bool ds_depends_on_declared(const char *s);

#endif
