/* dag.h: the job DAG model.
 *
 * A job is a set of named tasks; a task may depend on other tasks of the same job ("upstream").
 * Building a DAG validates it (duplicate names, unknown upstream names and cycles are errors naming
 * the tasks involved), computes levels (level 1 = no upstream; otherwise 1 + the highest upstream
 * level) and a topological order, all in O(tasks + edges). */
#ifndef DAGSCHED_DAG_H
#define DAGSCHED_DAG_H

#include <stddef.h>
#include <stdint.h>

#include "ds_error.h"
#include "strmap.h"

#define DS_TASK_NAME_MAX 253    /* a Kubernetes object name */
#define DS_DAG_MAX_TASKS 100000 /* bounded input */
#define DS_DAG_MAX_EDGES 2000000

/* Input description of one task. Names are copied; the spec array may be freed after building. */
typedef struct ds_task_spec {
    const char *name;
    double runtime_s;            /* estimated run time on a reference (speed 1.0) node; >= 0 */
    const char *const *upstream; /* names of the tasks this one depends on (duplicates ignored) */
    size_t n_upstream;
} ds_task_spec;

typedef struct ds_dag_task {
    char *name;
    double runtime_s;
    int level;  /* 1-based */
    size_t *up; /* indexes of upstream tasks */
    size_t n_up;
    size_t *down; /* indexes of dependent tasks */
    size_t n_down;
} ds_dag_task;

typedef struct ds_dag {
    ds_dag_task *tasks; /* in the order of the specs */
    size_t n;
    size_t *topo; /* all task indexes, every upstream before its dependents */
    int n_levels;
    double *level_max_runtime; /* [n_levels + 1]; [l] = longest runtime at level l; [0] unused */
    /* private: name -> task index (keys are the tasks' names); critical path computed when
     * building */
    ds_strmap index;
    double critical_path_s;
} ds_dag;

/* Build and validate. 0 on success; -1 with err set (and *out zeroed, nothing leaked) otherwise. */
int ds_dag_build(ds_dag *out, const ds_task_spec *specs, size_t n, ds_err *err);

void ds_dag_free(ds_dag *d);

/* Index of the named task: 0 and *idx set when found, -1 otherwise. O(1) expected. */
int ds_dag_find(const ds_dag *d, const char *name, size_t *idx);

/* Mark every (transitive) ancestor of `task` with mark[i] = 1 (mark has d->n bytes, which the
 * caller zeroes). The task itself is not marked. `stack` is caller-provided scratch of d->n
 * entries. Tasks already marked are not walked again, so one mark array can collect the ancestors
 * of several tasks. O(ancestors + their edges), no allocation; a task out of range marks nothing.
 */
void ds_dag_mark_ancestors(const ds_dag *d, size_t task, unsigned char *mark, size_t *stack);

/* Length of the critical path (sum of runtimes along the longest upstream chain), reference speed.
 */
double ds_dag_critical_path(const ds_dag *d);

#endif
