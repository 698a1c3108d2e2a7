/* preempt_rules.h: when an eviction is allowed to pay for a preemptor, as pure rules shared by
 * the controller, the extender's preempt verb and the simulator (docs/model.md, "Preemption").
 *
 * Three rules live here:
 * - Savable: a preemptor with a deadline preempts only when it can still meet its level deadline
 *   if it starts now on the node where room is made: t_allow + t_rem * (1 - 1/speed) >= 0, where
 *   t_allow = level deadline - now - t_rem is its slack at reference speed (lib/dsp.h). A deadline
 *   that has passed, or that the task would miss even on that node, is saved by no eviction, so it
 *   justifies none. A task without a deadline (t_allow infinite) is always savable.
 * - Exchange: an eviction must save the preemptor more time than it throws away
 *   (ds_eviction_pays), and the victim's own deadline must survive the redo
 *   (ds_victim_survives_redo).
 * - Who may preempt whom: a victim never has a higher Kubernetes priority than its preemptor. In
 *   another namespace, the preemptor's namespace must be trusted by the policy
 *   (spec.preemption.crossNamespace.trustedNamespaces, empty by default: preemption stays within
 *   a namespace) and its Kubernetes priority strictly higher than the victim's unless
 *   crossNamespace.requireHigherPriority is false. So one tenant's annotations cannot take another
 *   tenant's room. */
#ifndef DAGSCHED_PREEMPT_RULES_H
#define DAGSCHED_PREEMPT_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

/* Can a preemptor of slack t_allow_s (INFINITY without deadline) and remaining reference run time
 * t_rem_s (0 when unknown) still meet its deadline if it starts now on a node of rate speed
 * (<= 0 or not a number: 1.0)? False for a NaN slack. */
bool ds_preemptor_savable(double t_allow_s, double t_rem_s, double speed);

/* The exchange rule: does evicting a victim pay for the preemptor? The victim's finished work is
 * thrown away (ran_s, on its node); what the eviction saves is the time the preemptor would
 * otherwise wait for the victim's room, its remaining run time on its node (victim_rem_s =
 * t_rem / speed), less the slack the preemptor can afford on the preemptor's node (a task without
 * deadline affords none: it waits the whole time). The eviction pays when the saving is positive
 * (the room would not free in time anyway) and larger than the work thrown away. A victim whose
 * remaining time is unknown (victim_rem_s <= 0 or not a number) is not judged: true.
 * preemptor_slack_s is ds_preemptor_savable's slack on the node (INFINITY without deadline). */
bool ds_eviction_pays(double preemptor_slack_s, bool preemptor_has_deadline, double victim_ran_s,
                      double victim_rem_s);

/* Does a victim's own deadline survive the redo? Evicted, it starts again from scratch, so its
 * slack shrinks by the work it had done: t_allow - ran > 0. Always true without a deadline
 * (t_allow infinite); false for a NaN slack. Part of the exchange rule (payoff). */
bool ds_victim_survives_redo(double victim_t_allow_s, double victim_ran_s);

/* The preemptor's slack on a node of this speed: t_allow + t_rem * (1 - 1/speed); INFINITY
 * without a deadline. */
double ds_preemptor_slack_on(double t_allow_s, double t_rem_s, double speed);

/* One side of a preemption: the pod's namespace and Kubernetes priority (spec.priority). */
typedef struct ds_preempt_side {
    const char *ns;
    int32_t priority;
} ds_preempt_side;

typedef enum ds_pair_reason {
    DS_PAIR_OK = 0,
    DS_PAIR_HIGHER_PRIORITY,     /* the victim's Kubernetes priority is above the preemptor's */
    DS_PAIR_CROSS_NS_UNTRUSTED,  /* another namespace, and the preemptor's is not trusted */
    DS_PAIR_CROSS_NS_NOT_HIGHER, /* another namespace, and the preemptor's priority is not higher */
} ds_pair_reason;

/* May preemptor a evict victim b? The first rule that fails, DS_PAIR_OK when none does. A NULL
 * namespace never matches another (it counts as another namespace). */
ds_pair_reason ds_preempt_pair_check(const ds_policy *p, const ds_preempt_side *a,
                                     const ds_preempt_side *b);

/* "ok", "higher-priority", "cross-namespace-untrusted", "cross-namespace-not-higher". */
const char *ds_pair_reason_name(ds_pair_reason r);

#endif
