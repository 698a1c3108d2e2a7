/* evict_budget.h: the eviction limits of spec.preemption, as one pure rule that the controller
 * (over its eviction ledger) and the simulator (over its own record) both apply.
 *
 * Limits: maxEvictionsPerMinute evictions in total and maxEvictionsPerNamespace in one victim
 * namespace over the last minute, maxEvictionsPerNode on one node over the last epoch, one long
 * task per node over longTask.window; a victim is not evicted again, and a preemptor does not
 * preempt again, within the cooldown; a task is evicted at most maxEvictionsPerTask times. An
 * eviction counts in a window of w seconds while its age is below w, less DS_EVICT_SLACK_S: one
 * made a whole window ago no longer counts, however the two times were rounded. The history is read
 * through a lookup, so each caller keeps its own storage and no copy is made. */
#ifndef DAGSCHED_EVICT_BUDGET_H
#define DAGSCHED_EVICT_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

#define DS_EVICT_MINUTE_S 60.0
#define DS_EVICT_SLACK_S  1e-6

/* One eviction as the limits see it. */
typedef struct ds_evict_mark {
    double at;        /* when it was made (seconds, the caller's clock) */
    const char *ns;   /* the victim's namespace (NULL: counts for no namespace) */
    const char *node; /* the victim's node (NULL: counts for no node) */
    bool long_task;   /* the victim was a long task (lib/victim.h, ds_running_is_long) */
} ds_evict_mark;

/* The evictions made so far: get(ctx, i, &m) fills entry i (0 <= i < n) and says whether it counts
 * against the limits at all. */
typedef struct ds_evict_history {
    size_t n;
    bool (*get)(const void *ctx, size_t i, ds_evict_mark *m);
    const void *ctx;
} ds_evict_history;

/* The budgets left at one instant. */
typedef struct ds_evict_budget {
    size_t total_left; /* maxEvictionsPerMinute minus the evictions of the last minute */
    double now;
    const ds_policy *policy;
    ds_evict_history history;
} ds_evict_budget;

void ds_evict_budget_init(ds_evict_budget *b, const ds_policy *p, ds_evict_history h, double now);
/* Evictions left in a namespace over the last minute. */
size_t ds_evict_budget_namespace_left(const ds_evict_budget *b, const char *ns);
/* Evictions left on a node over the last epoch. */
size_t ds_evict_budget_node_left(const ds_evict_budget *b, const char *node);
/* Was a long task evicted on this node within spec.preemption.longTask.window (Dice: at most one
 * per node per window)? */
bool ds_evict_budget_node_long_evicted(const ds_evict_budget *b, const char *node);
/* May a task that was evicted `evictions` times over its life be evicted again
 * (spec.preemption.maxEvictionsPerTask, Dice; 0: no limit)? */
bool ds_evict_task_left(const ds_policy *p, size_t evictions);
/* The longest window the limits look back over (what a history must keep). */
double ds_evict_budget_window(const ds_policy *p);
/* Does an eviction made at `at` count at `now` in a window of window_s seconds? */
bool ds_evict_in_window(double at, double now, double window_s);
/* Is the cooldown since `last` (NAN: never) still running at `now`? */
bool ds_evict_cooling(const ds_policy *p, double last, double now);

#endif
