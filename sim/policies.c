/* policies.c: the simulator's policy table and node choice; every score comes from the core
 * library (baseline_scores.h, sailfish.h). */
#include "policies.h"

#include <stdint.h>
#include <string.h>

#include "baseline_scores.h"
#include "sailfish.h"

static const sim_policy_desc policies[] = {
    {.name = "default",
     .summary = "kube-scheduler: priority then arrival, LeastAllocated+BalancedAllocation, "
                "priority preemption",
     .order = SIM_ORDER_KUBE,
     .score = SIM_SCORE_KUBE,
     .kube_preemption = true},
    {.name = "tetris",
     .summary = "kube-scheduler queue, Tetris alignment score",
     .order = SIM_ORDER_KUBE,
     .score = SIM_SCORE_TETRIS,
     .kube_preemption = true},
    {.name = "dsp-nopp",
     .label = "dsp-nopp (upper bound)",
     .summary = "upper bound, not shipped: queue ordered by DSP priority, DSP preemption without "
                "normalised priorities (rho = 0)",
     .upper_bound = true,
     .order = SIM_ORDER_DSP,
     .score = SIM_SCORE_KUBE,
     .dag_aware = true,
     .dsp_preemption = true,
     .paper_gap = true,
     .rho_zero = true},
    {.name = "dsp",
     .label = "dsp (upper bound)",
     .summary = "upper bound, not shipped: queue ordered by DSP priority, normalised-priority "
                "preemption (the paper's P_bar)",
     .upper_bound = true,
     .order = SIM_ORDER_DSP,
     .score = SIM_SCORE_KUBE,
     .dag_aware = true,
     .dsp_preemption = true,
     .paper_gap = true},
    {.name = "sailfish",
     .summary = "kube-scheduler queue, extender filter on upstream tasks, Sailfish packing score",
     .order = SIM_ORDER_KUBE,
     .score = SIM_SCORE_EXTENDER,
     .dag_aware = true,
     .kube_preemption = true},
    {.name = "dagsched",
     .summary = "dagsched as shipped: pods gated at creation, released by the controller in the "
                "policy's order as far as they fit, kube-scheduler's queue, packing + fast nodes, "
                "deadline filter, DSP preemption with anti-thrash limits",
     .order = SIM_ORDER_KUBE,
     .score = SIM_SCORE_EXTENDER,
     .dag_aware = true,
     .gated = true,
     .kube_preemption = true,
     .dsp_preemption = true,
     .anti_thrash = true,
     .criticality = true,
     .deadline_filter = true},
};

const sim_policy_desc *sim_policy_all(size_t *n)
{
    *n = sizeof policies / sizeof policies[0];
    return policies;
}

const sim_policy_desc *sim_policy_find(const char *name)
{
    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++)
        if (strcmp(policies[i].name, name) == 0)
            return &policies[i];
    return NULL;
}

const char *sim_policy_label(const char *name)
{
    const sim_policy_desc *d = sim_policy_find(name);
    return d != NULL && d->label != NULL ? d->label : name;
}

static double node_score(const sim_policy_desc *d, const ds_policy *pol, const ds_res *req,
                         const sim_node_state *nd, double criticality, double max_speed,
                         double extender_weight)
{
    switch (d->score) {
    case SIM_SCORE_TETRIS:
        return ds_tetris_alignment(req, &nd->used, &nd->alloc);
    case SIM_SCORE_EXTENDER: {
        ds_node_view view = {.allocatable = nd->alloc, .requested = nd->used, .speed = nd->speed};
        ds_node_score ns;
        ds_score_node(req, &view, d->criticality ? criticality : 0.0, max_speed, &pol->packing,
                      &ns);
        return (double)ds_kube_least_allocated(req, &nd->used, &nd->alloc) +
               (double)ds_kube_balanced_allocation(req, &nd->used, &nd->alloc) +
               (double)ns.score * 10.0 * extender_weight;
    }
    default:
        return (double)ds_kube_least_allocated(req, &nd->used, &nd->alloc) +
               (double)ds_kube_balanced_allocation(req, &nd->used, &nd->alloc);
    }
}

size_t sim_policy_pick_node(const sim_policy_desc *d, const ds_policy *pol, const ds_res *req,
                            const sim_node_state *nodes, size_t n, const unsigned char *allowed,
                            double criticality, double max_speed, double extender_weight)
{
    size_t best = SIZE_MAX;
    double best_score = 0;
    for (size_t i = 0; i < n; i++) {
        if (allowed != NULL && !allowed[i])
            continue;
        ds_res free_ = nodes[i].alloc;
        ds_res_sub(&free_, &nodes[i].used);
        if (!ds_res_fits(req, &free_))
            continue;
        double s = node_score(d, pol, req, &nodes[i], criticality, max_speed, extender_weight);
        if (best == SIZE_MAX || s > best_score) {
            best = i;
            best_score = s;
        }
    }
    return best;
}
