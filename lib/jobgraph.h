/* jobgraph.h: the JobGraph document, which declares a whole DAG job at once.
 *
 * A JobGraph is stored under the data key `graph.yaml` of a ConfigMap labelled
 * `dagsched.io/kind=JobGraph`:
 *
 *   apiVersion: dagsched.io/v1alpha1
 *   kind: JobGraph
 *   metadata: {name: etl}              # the job key, in the ConfigMap's namespace
 *   spec:
 *     deadline: "2026-11-22T10:00:00Z" # or deadlineAfter: 10m (from the ConfigMap's creation)
 *     tasks:
 *       - {name: extract, runtime: 90s}
 *       - {name: transform, runtime: 3m, dependsOn: [extract]}
 *
 * Parsing is strict: unknown fields, wrong types, duplicate fields, duplicate task names and
 * dependencies on undeclared tasks are rejected with the field path ("spec.tasks[2].runtime:
 * invalid duration ..."). Cycles are detected when the DAG is built (dag.h). */
#ifndef DAGSCHED_JOBGRAPH_H
#define DAGSCHED_JOBGRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"

#define DS_JOBGRAPH_API_VERSION "dagsched.io/v1alpha1"
#define DS_JOBGRAPH_KIND        "JobGraph"
#define DS_JOBGRAPH_MAX_BYTES   (1024 * 1024)

typedef struct ds_jobgraph_task {
    char *name;
    double runtime_s;
    char **depends_on; /* upstream task names, as written (duplicates kept) */
    size_t n_depends_on;
} ds_jobgraph_task;

typedef enum {
    DS_DEADLINE_NONE = 0,
    DS_DEADLINE_ABSOLUTE, /* spec.deadline: deadline holds epoch seconds */
    DS_DEADLINE_AFTER,    /* spec.deadlineAfter: deadline holds a duration in seconds */
} ds_deadline_kind;

typedef struct ds_jobgraph {
    char *name; /* metadata.name */
    ds_deadline_kind deadline_kind;
    double deadline;
    ds_jobgraph_task *tasks;
    size_t n_tasks;
} ds_jobgraph;

/* Parse and validate `len` bytes of YAML (need not be NUL-terminated). 0 on success; -1 with err
 * set to "<field path>: <reason>" otherwise. Even on failure, out->name holds metadata.name when
 * that field itself was valid (so the caller can attach the error to the job); call
 * ds_jobgraph_free in both cases. */
int ds_jobgraph_parse(const char *yaml, size_t len, ds_jobgraph *out, ds_err *err);

void ds_jobgraph_free(ds_jobgraph *g);

#endif
