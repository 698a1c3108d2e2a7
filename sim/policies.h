/* policies.h: the scheduling policies the simulator compares. Each is a combination of a queue
 * order, a node score, DAG gating and preemption, all computed by the core library:
 *
 *   default   kube-scheduler: queue by pod priority then arrival; LeastAllocated +
 * BalancedAllocation; priority preemption; ignores the DAG (only a workflow engine's release order
 * helps) tetris    as default but nodes scored by the Tetris alignment score dsp-nopp  DSP priority
 * order (Eq. 12/13), DAG gating, DSP preemption with rho = 0 (no PP) dsp       as dsp-nopp with
 * DSP's normalised-priority preemption (rho from the policy) sailfish  queue as default, DAG
 * gating, nodes scored by the extender (Sailfish packing, no node speed preference) on top of
 * kube-scheduler's scores dagsched  what dagsched ships: pod priority then the policy's order
 * across jobs (spec.order; DSP priority within a job), DAG gating, extender score with packing and
 * fast nodes for critical tasks, level-deadline node filter, DSP preemption with the policy's
 * anti-thrash limits, kube priority preemption. */
#ifndef DAGSCHED_SIM_POLICIES_H
#define DAGSCHED_SIM_POLICIES_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"
#include "resources.h"

typedef enum {
    SIM_ORDER_KUBE = 0,     /* pod priority, then time entered the queue */
    SIM_ORDER_DSP,          /* DSP priority only */
    SIM_ORDER_KUBE_THEN_DSP /* pod priority, then the policy's order across jobs (joborder.h) */
} sim_order;

typedef enum {
    SIM_SCORE_KUBE = 0, /* LeastAllocated + BalancedAllocation */
    SIM_SCORE_TETRIS,   /* alignment */
    SIM_SCORE_EXTENDER  /* kube scores + extender score (ds_score_node) x 10 x weight */
} sim_score;

typedef struct sim_policy_desc {
    const char *name;
    const char *summary;
    sim_order order;
    sim_score score;
    bool dag_aware;       /* pods wait until their upstream tasks have succeeded */
    bool kube_preemption; /* kube-scheduler priority preemption */
    bool dsp_preemption;  /* DSP Algorithm 1 every epoch */
    bool rho_zero;        /* DSP without normalised-priority preemption */
    bool paper_gap;       /* the paper's normalisation (P_bar) whatever the policy says */
    bool anti_thrash;     /* min run time, evictions per node/minute, cooldown from the policy */
    bool criticality;     /* prefer fast nodes by DSP rank */
    bool deadline_filter; /* honour spec.deadlines.filterInfeasibleNodes */
    bool release_limit;   /* honour spec.release.maxConcurrentReleases */
} sim_policy_desc;

const sim_policy_desc *sim_policy_find(const char *name);
const sim_policy_desc *sim_policy_all(size_t *n);

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
