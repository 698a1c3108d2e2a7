/* preempt_rules.h: when an eviction is allowed to pay for a preemptor, as pure rules shared by
 * the controller, the extender's preempt verb and the simulator (docs/model.md, "Preemption").
 *
 * The rules:
 * - Savable: a preemptor with a deadline preempts only when it can still meet its level deadline
 *   if it starts now on the node where room is made: t_allow + t_rem * (1 - 1/speed) >= 0, where
 *   t_allow = level deadline - now - t_rem is its slack at reference speed (lib/dsp.h). A deadline
 *   that has passed, or that the task would miss even on that node, is saved by no eviction, so it
 *   justifies none. A task without a deadline (t_allow infinite) is always savable.
 * - Exchange: an eviction must save the preemptor more time than it throws away, counting only
 *   the wait that room freeing anyway would not end (ds_eviction_pays, lib/room.h), and the
 *   victim's own deadline must survive the redo (ds_victim_survives_redo).
 * - Queue order: the victim comes after the preemptor in the order across jobs (ds_victim_after).
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
 * t_rem_s (0 when unknown) still meet its deadline if room is made for it now on a node of rate
 * speed (<= 0 or not a number: 1.0)? It then starts start_s later (spec.preemption.startLatency:
 * the release, kube-scheduler's queue, the bind and the start; < 0 or not finite: 0). False for
 * a NaN slack. */
bool ds_preemptor_savable(double t_allow_s, double t_rem_s, double speed, double start_s);

/* The job deadline rule (with payoff): can the preemptor's job still meet its deadline? Its
 * remaining critical path, run from now on the fastest node (rate max_speed; <= 0 or not a
 * number: 1.0) after start_s, must end by the deadline: job_slack + path * (1 - 1/max_speed) -
 * start_s >= 0, where job_slack = deadline - now - path at reference speed. A task's level
 * deadline can still be within reach when its job's is not (level deadlines are spread over the
 * levels when the job is released, and earlier levels may have run late): an eviction saves that
 * task and nothing else, since the job misses anyway. True without a deadline (job_slack
 * infinite); false for a NaN slack. */
bool ds_job_savable(double job_slack_s, double job_path_s, double max_speed, double start_s);
/* The exchange rule: does evicting a victim pay for the preemptor? What the eviction saves is
 * lateness: the time the preemptor would otherwise wait for room, wait_s, less the slack it can
 * afford on the node (preemptor_slack_s). A preemptor without a deadline has no lateness to
 * save: never. wait_s is the earlier of the victim's remaining run time on its node and the time
 * room frees anyway on any node (lib/room.h); the caller passes their minimum. Never when the
 * saving is not positive (the room comes in time anyway; wait_s <= 0: the preemptor fits
 * somewhere now). What it costs: the victim's finished work (victim_ran_s), thrown away.
 * - A victim without a deadline has no lateness to lose; its owner redoes the work
 *   (lib/owner_retry.h decides whether it does). A deadline the eviction saves is worth more
 *   than work without one: the eviction pays whenever it saves lateness. The work at stake is
 *   bounded by the other rules (minRunTime, the long-task rule, the budgets).
 * - A victim with a deadline (victim_has_deadline) trades time for time: the saving must be
 *   larger than the work thrown away, and the victim's own deadline must survive the redo
 *   (ds_victim_survives_redo, checked by the callers).
 * A wait that is not known (INFINITY or not a number: no end known) is not judged: true.
 * preemptor_slack_s is ds_preemptor_slack_on's slack on the node. */
bool ds_eviction_pays(double preemptor_slack_s, bool preemptor_has_deadline, double victim_ran_s,
                      bool victim_has_deadline, double wait_s);

/* Predictive urgency: is a waiting task urgent, that is, may it preempt without the priority-gap
 * test? A task without a deadline (t_allow_s infinite) never is; one whose slack t_allow_s is at
 * most epsilon_s is; otherwise it is as soon as the forecast says room will not come in time:
 * the wait for room without evictions (wait_s: lib/room.h's ds_room_preemptor_wait; INFINITY
 * when the room the known ends free never covers it, and the tasks queued ahead of it: urgent;
 * not a number when not forecast: not judged) is longer than what it can afford, the smaller
 * of its own slack on the fastest node (ds_preemptor_slack_on with t_rem_s, max_speed, start_s)
 * and, when its job is known (job_slack_s and job_path_s numbers), its job's slack with the
 * remaining critical path run on the fastest node, each of the job_steps tasks on that path
 * paying start_s (released, scheduled, started, and created by its engine once its upstream
 * task ended: 0 counts as 1). So urgency starts at the round where the
 * deadline becomes at risk, not when the slack has shrunk to epsilon. The callers forecast with
 * spec.preemption.payoff only; without it (the paper's rule) urgency is epsilon alone. */
typedef struct ds_urgency_in {
    double t_allow_s, t_rem_s;
    double job_slack_s, job_path_s; /* NaN: the job is not known */
    size_t job_steps;               /* tasks on the job's remaining critical path */
    double max_speed, start_s, epsilon_s;
    double wait_s;
} ds_urgency_in;

bool ds_task_urgent(const ds_urgency_in *u);

/* What the preemptor can afford to wait for room on a node of this speed: the smaller of its own
 * slack there (ds_preemptor_slack_on) and, when its job is known, its job's slack with the
 * remaining critical path on the fastest node (u->max_speed). The slack passed to
 * ds_eviction_pays, and the one ds_task_urgent judges on the fastest node. */
double ds_preemptor_afford(const ds_urgency_in *u, double node_speed);

/* The wait passed to ds_eviction_pays: the time room frees anyway for the preemptor
 * (room_wait_s, lib/room.h's forecast: the running tasks' known ends, the victim's among them,
 * after the tasks queued ahead of it take theirs; INFINITY: never), when it is a number >= 0;
 * else (not forecast) the victim's remaining run time (victim_rem_s, <= 0 when unknown),
 * INFINITY when that is not known either. Not the smaller of the two: when tasks are queued
 * ahead of the preemptor (a look-ahead release in kube-scheduler's queue), the room the victim
 * frees by ending goes to them first. */
double ds_eviction_wait(double victim_rem_s, double room_wait_s);

/* The queue-order rule (spec.preemption.queueOrder): does victim b come strictly after preemptor
 * a in the order across jobs (lib/joborder.h, ignoring starvation)? The jobs' figures first
 * (a_job, b_job: ds_order_job_figures), then the tasks' DSP priorities (the higher first). An
 * eviction then only gives room to work the queue would have run first anyway: a large job's
 * urgent task cannot take a small job's room under shortestRemaining, nor a job with more slack
 * another's under leastSlack. A figure that is not a number orders nothing: false. */
bool ds_victim_after(const double a_job[2], double a_priority, const double b_job[2],
                     double b_priority);

/* Does a victim's own deadline survive the redo? Evicted, it starts again from scratch, so its
 * slack shrinks by the work it had done: t_allow - ran > 0. Always true without a deadline
 * (t_allow infinite); false for a NaN slack. Part of the exchange rule (payoff). */
bool ds_victim_survives_redo(double victim_t_allow_s, double victim_ran_s);

/* The preemptor's slack on a node of this speed once room is there for it: t_allow + t_rem *
 * (1 - 1/speed) - start_s, where start_s (spec.preemption.startLatency; < 0 or not finite: 0) is
 * the time from room on a node to the task running there. The same latency follows room that
 * frees anyway, so the exchange rule's preemptor can afford to wait this slack, not t_allow.
 * INFINITY without a deadline. */
double ds_preemptor_slack_on(double t_allow_s, double t_rem_s, double speed, double start_s);

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
