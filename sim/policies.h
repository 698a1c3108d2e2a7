/* policies.h: the scheduling policies the simulator compares. Each is a combination of a queue
 * order, a node score, how pods wait for their upstream tasks and preemption, all computed by the
 * core library. Shipped components only, unless marked as an upper bound:
 *
 *   default    kube-scheduler: queue by pod priority then time queued; LeastAllocated +
 *              BalancedAllocation; priority preemption; ignores the DAG
 *   tetris     as default, nodes scored by the Tetris alignment score (a score plugin)
 *   sailfish   as default, plus an extender that filters pods whose upstream tasks have not
 *              succeeded and scores nodes by Sailfish packing (no node speed preference)
 *   dagsched   what dagsched ships: every pod gated at creation (admission webhook); the
 *              controller releases ready tasks in the policy's order (spec.order) as far as they
 *              fit (lib/admit.h), after a release latency; kube-scheduler's queue (pod priority,
 *              then creation time); extender score with packing and fast nodes for critical
 *              tasks, level-deadline node filter; DSP preemption with the policy's anti-thrash
 *              limits, kube priority preemption
 *
 * Upper bounds, not shipped (a power no shipped component has: kube-scheduler's queue itself
 * ordered by DSP priority, as a QueueSort plugin would; the name says what they assume, not that
 * their results bound dagsched's):
 *
 *   dsp-nopp   queue by DSP priority (Eq. 12/13), DSP preemption with rho = 0
 *   dsp        as dsp-nopp with normalised-priority preemption (rho from the policy) */
#ifndef DAGSCHED_SIM_POLICIES_H
#define DAGSCHED_SIM_POLICIES_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"
#include "resources.h"

typedef enum {
    SIM_ORDER_KUBE = 0, /* pod priority, then time entered the queue (PrioritySort) */
    SIM_ORDER_DSP       /* upper bound: DSP priority only */
} sim_order;

typedef enum {
    SIM_SCORE_KUBE = 0, /* LeastAllocated + BalancedAllocation */
    SIM_SCORE_TETRIS,   /* alignment */
    SIM_SCORE_EXTENDER  /* kube scores + extender score (ds_score_node) x 10 x weight */
} sim_score;

typedef struct sim_policy_desc {
    const char *name;
    const char *label; /* upper bounds: the name with "(upper bound)"; NULL otherwise */
    const char *summary;
    bool upper_bound; /* has a power no shipped component has: not what dagsched can do */
    sim_order order;
    sim_score score;
    bool dag_aware;       /* pods wait until their upstream tasks have succeeded */
    bool gated;           /* gated at creation, released by the controller (release.c) */
    bool kube_preemption; /* kube-scheduler priority preemption */
    bool dsp_preemption;  /* DSP Algorithm 1 every epoch */
    bool rho_zero;        /* DSP without normalised-priority preemption */
    bool paper_gap;       /* the paper's normalisation (P_bar) whatever the policy says */
    bool anti_thrash;     /* min run time, evictions per node/minute, cooldown from the policy */
    bool criticality;     /* prefer fast nodes by DSP rank among waiting tasks (gated only) */
    bool deadline_filter; /* honour spec.deadlines.filterInfeasibleNodes */
} sim_policy_desc;

const sim_policy_desc *sim_policy_find(const char *name);
const sim_policy_desc *sim_policy_all(size_t *n);

/* The name as tables and plots show it: the label of an upper bound, the name otherwise (unknown
 * names as given). */
const char *sim_policy_label(const char *name);

typedef struct sim_node_state {
    ds_res alloc;
    ds_res used;
    double speed;
} sim_node_state;

/* The node a pod goes to among the nodes it fits on (and `allowed`, when not NULL), by the
 * policy's score; ties go to the lowest index. SIZE_MAX when it fits nowhere. */
size_t sim_policy_pick_node(const sim_policy_desc *d, const ds_policy *pol, const ds_res *req,
                            const sim_node_state *nodes, size_t n, const unsigned char *allowed,
                            double criticality, double max_speed, double extender_weight);

#endif
