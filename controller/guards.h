/* guards.h: the safety guards on evictions, as pure functions.
 *
 * Before a running pod is offered to DSP Algorithm 1 as a victim, it must pass every guard:
 * a task of a DAG job with a DSP evaluation, bound and not terminating, recreated by an owner (not
 * a bare, mirror or DaemonSet pod), not in a protected namespace, not of a protected priority
 * class, in a namespace opted in by the policy's namespace selector (a namespace the controller
 * has not seen is not opted in), opted in by the policy's pod selector, not covered by a
 * PodDisruptionBudget that allows no disruption now (or by several budgets, which the Eviction API
 * refuses), not evicted before within the cooldown, its task evicted fewer than
 * maxEvictionsPerTask times, with eviction budget left in its namespace, without a deadline of
 * its own (unless deadlineVictims), and not a long task on a node where one was evicted within
 * longTask.window.
 * The eviction limits (total per minute, per namespace per minute, per node per epoch) and the
 * preemptor cooldown are computed from the eviction ledger, so they hold across restarts and leader
 * changes. */
#ifndef DAGSCHED_CONTROLLER_GUARDS_H
#define DAGSCHED_CONTROLLER_GUARDS_H

#include <stdbool.h>
#include <stddef.h>

#include "evict_budget.h"
#include "ledger.h"
#include "policy.h"
#include "preempt_rules.h"
#include "view.h"

typedef enum ctl_guard {
    CTL_GUARD_OK = 0,
    CTL_GUARD_NOT_A_TASK,      /* not a task of a DAG job with a DSP evaluation */
    CTL_GUARD_NOT_RUNNING,     /* not bound to a node, or finished */
    CTL_GUARD_TERMINATING,     /* already being deleted */
    CTL_GUARD_NO_OWNER,        /* a bare pod: nothing would recreate it */
    CTL_GUARD_DAEMONSET,       /* a DaemonSet pod: would come back on the same node */
    CTL_GUARD_MIRROR,          /* a static pod's mirror: the API cannot evict it */
    CTL_GUARD_NOT_OPTED_IN,    /* not selected by spec.preemption.podSelector */
    CTL_GUARD_PROTECTED_NS,    /* in spec.preemption.protectedNamespaces */
    CTL_GUARD_PROTECTED_CLASS, /* of a class in spec.preemption.protectedPriorityClasses */
    CTL_GUARD_NS_NOT_OPTED_IN, /* namespace not selected by spec.preemption.namespaceSelector */
    CTL_GUARD_NS_UNKNOWN,      /* namespaceSelector set, its namespace not in the namespace cache */
    CTL_GUARD_PDB,             /* a PodDisruptionBudget allows no disruption now */
    CTL_GUARD_PDB_STALE,       /* a budget's status is older than its spec */
    CTL_GUARD_MULTIPLE_PDBS,   /* several budgets select it (the Eviction API refuses) */
    CTL_GUARD_COOLDOWN,        /* an eviction of it was requested within the cooldown */
    CTL_GUARD_NAMESPACE_LIMIT, /* the namespace's evictions per minute are used up */
    CTL_GUARD_MIN_RUN_TIME,    /* ran less than spec.preemption.minRunTime */
    CTL_GUARD_NO_SLACK,        /* its own allowable waiting time is within one epoch */
    CTL_GUARD_CROSS_NAMESPACE, /* a preemptor of another namespace may not evict it (pair rule) */
    CTL_GUARD_TASK_LIMIT,      /* its task was evicted maxEvictionsPerTask times already */
    CTL_GUARD_HAS_DEADLINE,    /* it has a deadline of its own (spec.preemption.deadlineVictims) */
    CTL_GUARD_LONG_TASK,       /* a long task, and one was evicted on its node in the window */
    CTL_GUARD_OWNER_WOULD_FAIL, /* its owner would not recreate it without failing (a Job out of
                                 * retries, an Argo Workflow, an unknown owner: owner_retry.h) */
    CTL_GUARD_N                 /* number of guards (not a guard) */
} ctl_guard;

const char *ctl_guard_name(ctl_guard g);    /* "ok", "not-a-task", "pdb", ... (metrics label) */
const char *ctl_guard_explain(ctl_guard g); /* a sentence fragment for logs and Events */

/* One sentence for logs about a pod held back by a guard, naming the pod and, for the namespace
 * guards, its namespace: "pod ml/etl-a: namespace ml is not selected by
 * spec.preemption.namespaceSelector". Always NUL-terminated (cut short when size is too small). */
void ctl_guard_describe(ctl_guard g, const ctl_pod *pod, char *buf, size_t size);

/* Eviction budgets left now: the limits of lib/evict_budget.h over the ledger. */
typedef struct ctl_budget {
    size_t total_left; /* spec.preemption.maxEvictionsPerMinute minus those of the last minute */
    double now;
    const ctl_ledger *ledger;
    const ds_policy *policy;
    ds_evict_budget limits;
} ctl_budget;

void ctl_budget_init(ctl_budget *b, const ds_policy *p, const ctl_ledger *l, double now);
/* Evictions left in a namespace over the last minute. */
size_t ctl_budget_namespace_left(const ctl_budget *b, const char *ns);
/* Evictions left on a node over the last epoch. */
size_t ctl_budget_node_left(const ctl_budget *b, const char *node);
/* Was a long task evicted on this node within spec.preemption.longTask.window? */
bool ctl_budget_node_long_evicted(const ctl_budget *b, const char *node);
/* Longest window the guards look back over (what the ledger must keep). */
double ctl_budget_window(const ds_policy *p);

/* Is the running pod a long task now (ds_running_is_long: run time so far plus t_rem)? */
bool ctl_pod_is_long_task(const ds_policy *p, const ctl_pod *pod, double now);

/* Every guard for one running pod, first failing one returned. */
ctl_guard ctl_guard_victim(const ds_policy *p, const ctl_budget *b, const ctl_pod *pod);

/* Is a waiting pod barred from preempting now because an eviction was made for it (or for its
 * task's earlier pods) within the cooldown, so its room is on the way, or because its task was
 * itself evicted within the cooldown (a victim's replacement never evicts others: no cascade)? */
bool ctl_guard_preemptor_cooling(const ds_policy *p, const ctl_ledger *l, const ctl_pod *pod,
                                 double now);

/* Pair guard, lib/preempt_rules.h: never evict a pod whose Kubernetes priority is above the
 * preemptor's (its replacement would preempt the preemptor back through kube-scheduler), nor a
 * pod of another namespace unless the policy trusts the preemptor's namespace (and then only of a
 * strictly lower Kubernetes priority, unless the policy says otherwise). */
ds_pair_reason ctl_guard_pair(const ds_policy *p, const ctl_pod *preemptor, const ctl_pod *victim);

/* Can the preemptor run on the node as far as the controller can tell: node schedulable,
 * spec.nodeSelector matched, the required node affinity
 * (spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution) satisfied and every
 * NoSchedule/NoExecute taint tolerated. A preemptor whose affinity could not be decoded
 * (affinity_error set) is eligible nowhere. */
bool ctl_guard_node_eligible(const ctl_pod *preemptor, const ctl_node *node);

#endif
