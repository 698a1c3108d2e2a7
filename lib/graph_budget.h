/* graph_budget.h: the bound on the graph work of one decision round of the controller: which DAG
 * jobs the round evaluates (reads their JobGraph or Workflow, builds their DAG, derives task states
 * and priorities, releases and preempts for them) and which it defers to a later round.
 *
 * A job's work is the number of its tasks (at least 1). Jobs are taken in the order of their keys
 * ("ns/name"), as a ring, from where the previous round stopped: the first job it deferred. Each
 * job is evaluated when it fits in what is left of the round's budget, else deferred (jobs after it
 * that fit are still evaluated). The first job of the round is evaluated even when it does not fit,
 * so that a job larger than the bound still has its turn; what it takes beyond the budget is a debt
 * that the next rounds pay first (a round whose budget the debt takes whole evaluates nothing).
 * Over any run of rounds the controller therefore evaluates at most `bound` tasks a round on
 * average, plus one job; and no job waits for ever: the next round starts at the first job
 * deferred, so every deferred job starts a round (and is evaluated) within as many rounds as there
 * are jobs ahead of it, plus the rounds that pay a debt.
 *
 * Pure: no I/O, no clock, no allocation. */
#ifndef DAGSCHED_GRAPH_BUDGET_H
#define DAGSCHED_GRAPH_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"

/* The fewest bytes of a JobGraph document that declare one task ("{name: a,runtime: 1s},"
 * takes 22): a document that cannot be read counts as len / DS_JOBGRAPH_MIN_TASK_BYTES tasks,
 * the most it could declare. */
#define DS_JOBGRAPH_MIN_TASK_BYTES 16

typedef struct ds_work_job {
    const char *key; /* "ns/name": distinct, in strictly ascending strcmp order */
    size_t tasks;    /* its graph work; 0 counts as 1 */
} ds_work_job;

typedef struct ds_work_plan {
    size_t n_evaluated, n_deferred;
    size_t tasks_evaluated, tasks_deferred; /* work of each kind, each job counted at least 1 */
    /* Index of the job the next round starts at (the first one deferred, in this round's order),
     * or SIZE_MAX when none was deferred: the caller keeps that job's key as the next `start`. */
    size_t next_start;
    size_t debt; /* the next round's debt */
} ds_work_plan;

/* Decide the round: evaluate[i] for jobs[i]. bound: tasks a round (0: no bound, every job is
 * evaluated and the debt is dropped); start: the key the round starts at (the first job whose key
 * is not below it, else the first job; NULL: the first job); debt: what the previous rounds took
 * beyond the bound. 0, or -1 with err set when an argument is missing or the keys are not
 * distinct and ascending (nothing is decided then). Cost: O(n). */
int ds_work_select(const ds_work_job *jobs, size_t n, size_t bound, const char *start, size_t debt,
                   bool *evaluate, ds_work_plan *out, ds_err *err);

#endif
