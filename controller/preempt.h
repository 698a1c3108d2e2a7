/* preempt.h: one round of DSP preemption over the controller's view, as a pure function.
 *
 * Builds the inputs of DSP Algorithm 1 (lib/victim.h) from the view: the waiting tasks (DAG tasks
 * whose upstream tasks all succeeded, that kube-scheduler found unschedulable, not terminating and
 * not cooling down after an eviction already made for them), the running DAG tasks (each marked
 * evictable only when every guard of guards.h passes) and each node's free resources and eviction
 * budget (allocatable minus the requests of every pod bound to it, terminating ones included, and
 * minus the room reserved for earlier preemptors; cordoned or not-ready nodes take no preemptor
 * and lose no pod). Then it runs
 * ds_select_victims and checks each preemptor's plan against what the algorithm does not know:
 * the preemptor's node selector, its required node affinity and the node's taints, the
 * Kubernetes priority of the victims (never above the preemptor's) and the per-namespace eviction
 * limit. A plan that fails is removed and the selection is run again without the offending victim
 * or node choice (a few rounds at most), so that every eviction returned is one the controller
 * may carry out. Preemptors that cannot use every node are planned one at a time on the nodes
 * they can use. Where equally justified victims (same highest victim priority, same number) would
 * make room on several nodes, the fastest node (ctl_node.speed, the job model's g(k)) is chosen,
 * then the first by name: the preemptor finishes soonest there, and the choice does not depend on
 * the order of the nodes in the view. */
#ifndef DAGSCHED_CONTROLLER_PREEMPT_H
#define DAGSCHED_CONTROLLER_PREEMPT_H

#include <stddef.h>

#include "dag.h"
#include "ds_error.h"
#include "guards.h"
#include "ledger.h"
#include "policy.h"
#include "victim.h"
#include "view.h"

typedef struct ctl_preempt_in {
    const ctl_pod *pods;
    size_t n_pods;
    const ctl_node *nodes;
    size_t n_nodes;
    const ds_dag *const *dags; /* the jobs' DAGs, indexed by ctl_task_info.job */
    size_t n_jobs;
    const ds_policy *policy;
    const ctl_ledger *ledger;
    double now;
    /* P_bar / 2 of the whole job model (ctl_snapshot_pbar_half), for the paper's normalisation;
     * when pbar_given is false it is computed over the tasks offered to the algorithm. */
    bool pbar_given;
    double pbar_half;
    /* Room held for earlier preemptors on each node (reserve.h, ctl_reserved_room; n_nodes
     * entries, NULL: none): not free for this round's preemptors. */
    const ds_res *reserved;
    /* Gated pods the release rule holds for lack of room this round (n_pods flags, NULL: none):
     * preemptors like the pods kube-scheduler found unschedulable. The controller owns their
     * admission, so an urgent task need not be released into a full cluster first to make room. */
    const bool *held_for_room;
    /* The release rule's limit (spec.release.maxConcurrentReleases): a gated preemptor is released
     * into the room its eviction makes, so it takes a release slot like any release. When
     * release_limited, at most release_slots gated preemptors get evictions this round (the first
     * in the algorithm's order); the others wait for a slot (n_release_limit). */
    bool release_limited;
    size_t release_slots;
} ctl_preempt_in;

typedef struct ctl_eviction {
    size_t victim;    /* index into pods */
    size_t preemptor; /* index into pods */
    size_t node;      /* index into nodes */
    ds_preempt_reason reason;
    double gap;            /* P_preemptor - P_victim */
    double normalised_gap; /* gap / average neighbour gap (INFINITY when that is 0) */
    double room_wait_s;    /* urgent by forecast: the wait for room it foresaw (ds_decision;
                            * INFINITY: never; NAN: not forecast) */
} ctl_eviction;

typedef struct ctl_preempt_out {
    ctl_eviction *ev; /* in the order they should be carried out */
    size_t n_ev;
    ctl_guard *guard; /* [n_pods]: the guard verdict of every running DAG task; NOT_RUNNING else */
    size_t n_waiting; /* waiting tasks offered to the algorithm */
    size_t n_urgent;  /* pending DAG tasks whose slack is within the urgent threshold */
    size_t n_cooling; /* waiting tasks held back by the preemptor cooldown */
    size_t n_running; /* running DAG tasks */
    size_t n_evictable; /* of which evictable */
    size_t n_dropped;   /* preemption plans removed by the checks after the algorithm */
    /* Waiting tasks that no eviction can save, so none is planned for them: their own deadline
     * is out of reach on every node (the savable rule), or their job's (the job deadline rule,
     * with payoff); lib/preempt_rules.h. */
    size_t n_too_late;
    /* Gated preemptors left without an eviction because the release limit had no slot left. */
    size_t n_release_limit;
    size_t n_job_late;
    bool budget_spent; /* the eviction budgets leave nothing for this round */
    int rounds;        /* selections run */
} ctl_preempt_out;

/* Plan one round. With preemption disabled in the policy, or no budget left, the plan is empty
 * (the counts are still filled). -1 with err set on invalid input or allocation failure. */
int ctl_preempt_plan(const ctl_preempt_in *in, ctl_preempt_out *out, ds_err *err);
void ctl_preempt_out_free(ctl_preempt_out *out);

#endif
