/* baseline_scores.h: the node scores of the baseline schedulers that dagsched is compared with.
 *
 * - kube-scheduler's NodeResourcesFit "LeastAllocated" strategy and NodeResourcesBalancedAllocation
 *   (default plugins since Kubernetes 1.23; cpu and memory with weight 1 each), both 0..100;
 * - Tetris' alignment score (Grandl et al., SIGCOMM 2014): the dot product of the task's demand and
 *   the node's free resources, both normalised by the node's allocatable.
 *
 * Pure functions; `requested` is the sum of requests already on the node (without the pod). */
#ifndef DAGSCHED_BASELINE_SCORES_H
#define DAGSCHED_BASELINE_SCORES_H

#include "resources.h"

#define DS_KUBE_MAX_NODE_SCORE 100

/* LeastAllocated: mean over cpu and memory of (allocatable - (requested + pod)) * 100 /
 * allocatable, each term in integers and 0 when the node would be over-committed. Resources with
 * allocatable 0 are skipped; 0 when both are. */
int ds_kube_least_allocated(const ds_res *pod, const ds_res *requested, const ds_res *allocatable);

/* BalancedAllocation: (1 - std) * 100 truncated, where std is the standard deviation of the
 * fractions (requested + pod) / allocatable of cpu and memory, each capped at 1 (for two resources
 * std = |f_cpu - f_mem| / 2). Resources with allocatable 0 are skipped. */
int ds_kube_balanced_allocation(const ds_res *pod, const ds_res *requested,
                                const ds_res *allocatable);

/* Tetris alignment: sum over resource kinds with allocatable > 0 of
 * (pod_k / allocatable_k) * (free_k / allocatable_k), where free = allocatable - requested (floored
 * at 0). Higher is better; the caller checks that the pod fits first. */
double ds_tetris_alignment(const ds_res *pod, const ds_res *requested, const ds_res *allocatable);

#endif
