/* evictor.h: who may be evicted, as far as the SchedulingPolicy says: the one evictor filter that
 * the extender (victims kube-scheduler proposes) and the controller (victims of DSP preemption)
 * both apply, like a descheduler's single evictor filter.
 *
 * A pod may be evicted when it is not in a protected namespace (spec.preemption.
 * protectedNamespaces), not of a protected priority class (protectedPriorityClasses), its
 * namespace is selected by namespaceSelector (a namespace not seen yet is not) and the pod itself
 * by podSelector. The checks run in that order and the first that fails is the reason. What else
 * a caller knows (a bare or DaemonSet pod, a disruption budget, cooldowns, eviction limits) it
 * checks itself. Pure: labels are read through a lookup, so each caller keeps its own storage. */
#ifndef DAGSCHED_EVICTOR_H
#define DAGSCHED_EVICTOR_H

#include <stdbool.h>

#include "policy.h"

/* The labels of an object: get(ctx, key) is the value of label `key`, NULL when absent. */
typedef struct ds_labels {
    const char *(*get)(const void *ctx, const char *key);
    const void *ctx;
} ds_labels;

typedef struct ds_evict_candidate {
    const char *ns;             /* the pod's namespace (NULL: none) */
    const char *priority_class; /* spec.priorityClassName (NULL or "": none) */
    ds_labels labels;           /* the pod's */
    bool ns_known;              /* the namespace object has been seen */
    ds_labels ns_labels;        /* the namespace's (read only when ns_known) */
} ds_evict_candidate;

typedef enum ds_evict_reason {
    DS_EVICT_OK = 0,
    DS_EVICT_PROTECTED_NS,    /* in spec.preemption.protectedNamespaces */
    DS_EVICT_PROTECTED_CLASS, /* of a class in spec.preemption.protectedPriorityClasses */
    DS_EVICT_NS_NOT_OPTED_IN, /* namespace not selected by spec.preemption.namespaceSelector */
    DS_EVICT_NS_UNKNOWN,      /* namespaceSelector set and the namespace not seen yet */
    DS_EVICT_NOT_OPTED_IN,    /* not selected by spec.preemption.podSelector */
} ds_evict_reason;

/* The first check the pod fails, DS_EVICT_OK when it may be evicted. */
ds_evict_reason ds_evictor_filter(const ds_policy *p, const ds_evict_candidate *c);

/* "ok", "protected-namespace", "protected-priority-class", "namespace-not-opted-in",
 * "namespace-unknown", "not-opted-in". */
const char *ds_evict_reason_name(ds_evict_reason r);

/* Does every matchLabels pair of sel hold in the labels? (An empty selector selects everything.) */
bool ds_labels_match(const ds_label_selector *sel, ds_labels labels);

#endif
