/* room.h: when room frees anyway, as a pure rule shared by victim selection (lib/victim.h, for the
 * controller and the simulator) and the extender's preempt verb.
 *
 * Running tasks end: a waiting task that fits no node now gets room on a node once enough of the
 * tasks running there have finished. The wait is the earliest such time over all nodes, from the
 * nodes' free resources and each running task's expected remaining run time (t_rem_s; a task whose
 * remaining time is unknown is never counted as ending). An eviction that only brings this room
 * forward by less than the preemptor can afford to wait saves nothing (lib/preempt_rules.h, the
 * exchange rule).
 *
 * The waiting tasks ahead of the preemptor in the queue order take the room that frees before it
 * does, so its wait is also at least the time until everything freed, pooled over the nodes, covers
 * their requests and its own (ds_room_pool_wait; pooling ignores how the room is split between
 * nodes). Both estimates leave out tasks not handed in (e.g. pods outside any DAG job) and work
 * that arrives later: they err on the side of a shorter wait, that is of fewer evictions. */
#ifndef DAGSCHED_ROOM_H
#define DAGSCHED_ROOM_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"
#include "resources.h"

/* One running task as the room rule sees it. */
typedef struct ds_room_task {
    size_t node;    /* index into the nodes */
    double end_s;   /* expected remaining run time on its node; <= 0 or not finite: unknown */
    ds_res request; /* what it frees when it ends */
} ds_room_task;

/* The running tasks of every node, by expected end (built once, read by many ds_room_wait calls).
 */
typedef struct ds_room_index {
    size_t n_nodes;
    size_t *start;      /* [n_nodes + 1]: node n's tasks are order[start[n] .. start[n + 1]) */
    size_t *order;      /* task indexes, by node, ascending end within a node */
    size_t *node_order; /* nodes with at least one known end, by their earliest end */
    size_t n_node_order;
    /* Pooled over the nodes: every known end in ascending order, with the resources free by
     * then (the nodes' free resources now plus the requests of the tasks ended so far). */
    double *pool_end;  /* [n_pool] */
    ds_res *pool_room; /* [n_pool] */
    size_t n_pool;
    ds_res pool_free; /* the nodes' free resources now, summed (negative ones as 0) */
    size_t n_unknown; /* running tasks whose end is not known, on nodes within reach */
} ds_room_index;

/* Index n_tasks tasks on n_nodes nodes whose free resources are free_[n_nodes] (a task whose node
 * is not below n_nodes, or whose end is unknown, is left out). 0, or -1 with err set on allocation
 * failure. */
int ds_room_index_build(ds_room_index *ix, const ds_room_task *tasks, size_t n_tasks,
                        const ds_res *free_, size_t n_nodes, ds_err *err);
void ds_room_index_free(ds_room_index *ix);

/* The time from now until `request` fits some node: 0 when it fits one now (free[n] is each
 * node's free resources), INFINITY when the known ends never free enough on any node. gone
 * (NULL, or one flag per task) marks tasks that no longer run (already evicted): they free their
 * request now, so the caller adds it to free[] and flags them. tasks must be the array indexed. */
double ds_room_wait(const ds_room_index *ix, const ds_room_task *tasks, const bool *gone,
                    const ds_res *free_, const ds_res *request);

/* A preemptor's wait for room without evictions: the later of ds_room_wait for its own request
 * and ds_room_pool_wait for the requests queued ahead of it (`ahead`, summed) plus its own. When
 * that is INFINITY while some running task within reach has no known end, the room may yet come
 * from it: not a number (not forecast). INFINITY only when every end is known and none frees
 * enough. */
double ds_room_preemptor_wait(const ds_room_index *ix, const ds_room_task *tasks, const bool *gone,
                              const ds_res *free_, const ds_res *request, const ds_res *ahead);

/* The wait an eviction saves a preemptor, for the exchange rule (lib/preempt_rules.h,
 * ds_eviction_wait): its forecast wait, ds_room_preemptor_wait, except when that is INFINITY only
 * because of the tasks ahead that wait at dagsched's gate (ahead_gated, a part of ahead). The
 * pool counts the ends of the tasks running now, not those of the tasks ahead once they run, so
 * a long queue ahead in the release order reads as "never": not a time an eviction saves. Then
 * not a number (not forecast: the exchange rule takes the victim's remaining run time). INFINITY
 * stays when the tasks in kube-scheduler's queue alone, which take freed room whatever
 * dagsched's order, leave the preemptor no room from the known ends. */
double ds_room_saved_wait(const ds_room_index *ix, const ds_room_task *tasks, const bool *gone,
                          const ds_res *free_, const ds_res *request, const ds_res *ahead,
                          const ds_res *ahead_gated);

/* The time from now until the resources free now and freed by the known ends, pooled over the
 * nodes as indexed, cover `demand` (e.g. the requests of the waiting tasks ahead of a preemptor
 * and its own): 0 when they do now, INFINITY when they never do. A node counts only its room
 * above zero: an end on a node over its capacity, or on one the caller marks out of reach with
 * a very negative free room (a node the preemptor may not use), adds only what brings the node
 * above zero. */
double ds_room_pool_wait(const ds_room_index *ix, const ds_res *demand);

#endif
