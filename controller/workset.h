/* workset.h: the graph work of the controller's rounds (--max-graph-tasks-per-round): which DAG
 * jobs the listed objects make, the work each takes, and which ones a round evaluates and which it
 * defers (the rule of lib/graph_budget.h); what carries from one round to the next.
 *
 * A job is "ns/name": the dagsched.io/job label (else the Argo workflow label) of its pods and
 * batch Jobs, the metadata.name inside a JobGraph ConfigMap's graph.yaml, an Argo Workflow's name.
 * Its work is the number of its tasks: the tasks its JobGraphs declare plus, for a Workflow, the
 * steps of its templates and the nodes of its status, and at least the pods and Jobs that carry
 * its key. A JobGraph is read for its job and its tasks once per version (uid and
 * resourceVersion), kept while it is listed; one that cannot be read counts as many tasks as a
 * document of its size can declare (DS_JOBGRAPH_MIN_TASK_BYTES), under the job its metadata.name
 * names, else as a work item of its own.
 *
 * A deferred job's objects are left out of the round's job model (tracker.h): its pods keep their
 * gate and their annotations, its suspended Jobs stay suspended, none of its tasks is released,
 * nudged, evicted or evicted for in that round.
 *
 * No I/O, no clock. Not thread-safe: owned by the decision loop. */
#ifndef DAGSCHED_CONTROLLER_WORKSET_H
#define DAGSCHED_CONTROLLER_WORKSET_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "cache.h"
#include "ds_error.h"
#include "graph_budget.h"
#include "objects.h"
#include "strmap.h"

/* --max-graph-tasks-per-round by default: a little more than the largest JobGraph (1 MiB holds
 * about 45,000 tasks) and every other job beside it in the same round, on most clusters. */
#define CTL_MAX_GRAPH_TASKS_DEFAULT 50000

/* What a version of a JobGraph ConfigMap declares, read once. */
typedef struct ctl_graph_fact {
    char *id;     /* its uid (else "ns/name") and resourceVersion, as "uid\nrv" */
    char *job;    /* metadata.name of its graph.yaml; NULL when it names none that can be used */
    size_t tasks; /* the tasks it declares; when it cannot be read, its bytes /
                   * DS_JOBGRAPH_MIN_TASK_BYTES */
} ctl_graph_fact;

typedef struct ctl_workset {
    ctl_graph_fact *facts; /* of the graphs listed in the last round, sorted by id */
    size_t n_facts;
    char *start; /* the job the next round starts at (lib/graph_budget.h), NULL: the first */
    size_t debt;
    size_t reads; /* JobGraph documents read for their job so far (once per version) */
} ctl_workset;

typedef struct ctl_work_job {
    const char *key; /* "ns/name" */
    size_t tasks;
    bool deferred;
    /* Where an Event about it goes: its JobGraph ConfigMap, else its Workflow, else its first pod
     * by name that has not finished (else its first pod); NULL when it has none of these. */
    const kube_meta *target;
} ctl_work_job;

/* One round's decision. */
typedef struct ctl_work_round {
    ctl_work_job *jobs; /* sorted by key */
    size_t n_jobs;
    ds_work_plan plan;
    size_t bound;         /* tasks a round, 0: none */
    bool *graph_deferred; /* [graphs.n]: the graph is left out of this round's job model */
    size_t n_graphs;
    /* private */
    ds_strmap index; /* key -> jobs[] */
    ds_arena arena;
} ctl_work_round;

void ctl_workset_init(ctl_workset *w);
void ctl_workset_free(ctl_workset *w);

/* Decide the round over the listed pods, batch Jobs and graphs (JobGraph ConfigMaps and Argo
 * Workflows, as the snapshot takes them) under `bound` tasks, and carry the start and the debt to
 * the next round. With no bound (0) every job is evaluated and nothing is read: *out lists no
 * job. *out borrows the objects: keep the lists until it is freed.
 * 0, or -1 with err set when out of memory (*out is then empty: nothing deferred, and w as it
 * was). */
int ctl_workset_plan(ctl_workset *w, const kube_obj_list *pods, const kube_obj_list *jobs,
                     const kube_obj_list *graphs, size_t bound, ctl_work_round *out, ds_err *err);

/* Whether the round defers job `job` of namespace `ns` (false for NULL r, or a job it does not
 * know). */
bool ctl_work_deferred(const ctl_work_round *r, const char *ns, const char *job);

/* The same for a job key "ns/name" of len bytes. */
bool ctl_work_key_deferred(const ctl_work_round *r, const char *key, size_t len);

void ctl_work_round_free(ctl_work_round *r);

#endif
