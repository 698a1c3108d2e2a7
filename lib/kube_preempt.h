/* kube_preempt.h: kube-scheduler's default priority preemption (DefaultPreemption plugin) as a pure
 * function, for the baseline policies of the simulator.
 *
 * For a pod that fits on no node, every node is tried: all running pods of strictly lower priority
 * that may be evicted are removed; if the pod then fits, the removed pods are added back one by
 * one, most important first (higher priority, then earlier start), as long as the pod still fits;
 * the ones that cannot be added back are the node's victims. Among the nodes with victims the one
 * chosen has, in order: the lowest highest-victim priority, the lowest sum of victim priorities,
 * the fewest victims, the latest start among its highest-priority victims, the lowest index. (Pod
 * disruption budgets are not modelled here.) */
#ifndef DAGSCHED_KUBE_PREEMPT_H
#define DAGSCHED_KUBE_PREEMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ds_error.h"
#include "resources.h"

typedef struct ds_kube_pod {
    size_t node;       /* index into the nodes array */
    int32_t priority;  /* PriorityClass value */
    double start_time; /* when it started (any clock; only compared) */
    ds_res request;    /* its requests */
    bool evictable;    /* not protected; allowed to be evicted */
} ds_kube_pod;

/* Choose victims for a pod of `priority` requesting `request`. node_free[i] is node i's allocatable
 * minus the requests of its running pods. On success returns 1 with *node_out and the victims'
 * indexes (into pods, most important first) in victims[0..*n_victims) (victims has room for
 * victims_cap entries; nodes needing more are skipped); returns 0 when no node can make room, -1
 * with err set on invalid input or allocation failure. */
int ds_kube_select_victims(const ds_res *request, int32_t priority, const ds_res *node_free,
                           size_t n_nodes, const ds_kube_pod *pods, size_t n_pods, size_t *victims,
                           size_t victims_cap, size_t *n_victims, size_t *node_out, ds_err *err);

#endif
