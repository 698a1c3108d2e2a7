/* policy.c: SchedulingPolicy defaults and the small queries the controller and the extender make
 * on a policy (label selector matching, name list membership). Parsing is in policy_parse.c,
 * validation in policy_validate.c; docs/policy.md documents every field. */
#include "policy.h"

#include <string.h>

static void set_string(char *dst, size_t size, const char *s)
{
    memset(dst, 0, size);
    size_t len = strnlen(s, size - 1);
    memcpy(dst, s, len);
}

static void add_name(ds_name_list *l, const char *name)
{
    if (l->n < DS_POLICY_MAX_LIST) {
        set_string(l->name[l->n], sizeof l->name[l->n], name);
        l->n++;
    }
}

void ds_policy_defaults(ds_policy *p)
{
    if (p == NULL)
        return;
    memset(p, 0, sizeof *p);
    set_string(p->name, sizeof p->name, "default");

    /* DSP paper, Eq. 12 and 13 (gamma 0.5, weights 0.5 / 0.3 / 0.2); time scale 60 s, floor 1 s
     * and the urgency slack term as resolved in the design. */
    ds_priority_defaults(&p->priority);

    /* Order across jobs: the paper compares raw task priorities (DS_ORDER_DSP, the zero value);
     * dagsched ships the order that measured best in the simulator (docs/simulator.md): jobs
     * with the least remaining work first (CSS's minimum completion time first, per job), DSP
     * priority within a job, and CSS's starvation threshold so that large jobs still advance. */
    p->order.job_order = DS_ORDER_SHORTEST_REMAINING;
    p->order.starvation_s = 1200.0;
    p->gang_timeout_s = 600.0;
    p->order.within_job = DS_WITHIN_DSP;

    /* DSP paper, Eq. 1: equal weights of cpu and memory. */
    p->theta_cpu = 0.5;
    p->theta_memory = 0.5;
    set_string(p->speed_label, sizeof p->speed_label, "dagsched.io/speed");

    p->urgent_threshold_s = 30.0;
    p->filter_infeasible_nodes = true;

    p->packing.w_complementarity = 0.4;
    p->packing.w_best_fit = 0.4;
    p->packing.w_speed = 0.2;
    add_name(&p->gpu_resource_names, "nvidia.com/gpu");
    add_name(&p->gpu_resource_names, "amd.com/gpu");

    p->preemption_enabled = true;
    p->preemption.epsilon_s = p->urgent_threshold_s;
    p->preemption.epoch_s = 10.0;
    p->preemption.delta = 0.35; /* DSP paper, section V */
    p->preemption.rho = 1.5;
    p->preemption.tau_s = 0.0; /* off */
    p->preemption.min_run_s = 60.0;
    p->preemption.start_latency_s = 5.0;
    p->preemption.job_room = false; /* fewer evictions, fewer deadlines met: docs/simulator.md */
    p->preemption.max_victims_per_preemptor = 1;
    p->max_evictions_per_node = 1;
    p->max_evictions_per_namespace = 5;
    p->max_evictions_per_minute = 10;
    p->preemption.max_evictions = p->max_evictions_per_minute;
    p->cooldown_s = 300.0;
    /* Dice: at most 2 evictions of a task over its life; one long task per node per window. */
    p->max_evictions_per_task = 2;
    p->preemption.long_task_s = 600.0;
    p->long_task_window_s = 100.0;            /* Dice's suspension time */
    p->preemption.same_resource_first = true; /* 3DSF */
    add_name(&p->protected_namespaces, "kube-system");
    add_name(&p->protected_priority_classes, "system-cluster-critical");
    add_name(&p->protected_priority_classes, "system-node-critical");
    /* The pair-only ratio (the paper's P_bar is an option, see docs/model.md), evictions only
     * when they pay, only of work the queue order puts after the preemptor and without a
     * deadline of its own. */
    p->preemption.norm = DS_NORM_RATIO;
    p->preemption.payoff = true;
    p->preemption.queue_order = true;
    p->preemption.deadline_victims = false; /* only tasks without a deadline are evicted */
    p->cross_ns_require_higher = true; /* and no trusted namespace: preemption within a namespace */

    p->max_concurrent_releases = 0; /* unlimited */
    p->release_admission = DS_ADMIT_CAPACITY;
    p->release_lookahead = 2;
    p->release_hold_room = 100;
    /* spec.fairness: off; a tenant is a namespace, every weight 1, no cap (the zero values). */
}

bool ds_name_list_contains(const ds_name_list *l, const char *name)
{
    if (l == NULL || name == NULL)
        return false;
    size_t m = l->n < DS_POLICY_MAX_LIST ? l->n : DS_POLICY_MAX_LIST;
    for (size_t i = 0; i < m; i++)
        if (strncmp(l->name[i], name, sizeof l->name[i]) == 0)
            return true;
    return false;
}

size_t ds_name_list_ptrs(const ds_name_list *l, const char **out)
{
    size_t m = l->n < DS_POLICY_MAX_LIST ? l->n : DS_POLICY_MAX_LIST;
    for (size_t i = 0; i < m; i++)
        out[i] = l->name[i];
    return m;
}

bool ds_name_list_equal(const ds_name_list *a, const ds_name_list *b)
{
    if (a->n != b->n)
        return false;
    size_t m = a->n < DS_POLICY_MAX_LIST ? a->n : DS_POLICY_MAX_LIST;
    for (size_t i = 0; i < m; i++)
        if (strncmp(a->name[i], b->name[i], sizeof a->name[i]) != 0)
            return false;
    return true;
}
