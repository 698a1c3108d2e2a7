/* guards.c: the safety guards on evictions (see guards.h). */
#include "guards.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evictor.h"

const char *ctl_guard_name(ctl_guard g)
{
    static const char *const names[] = {
        "ok",
        "not-a-task",
        "not-running",
        "terminating",
        "no-owner",
        "daemonset",
        "mirror",
        "not-opted-in",
        "protected-namespace",
        "protected-priority-class",
        "namespace-not-opted-in",
        "namespace-unknown",
        "pdb",
        "pdb-stale",
        "multiple-pdbs",
        "cooldown",
        "namespace-limit",
        "min-run-time",
        "no-slack",
        "cross-namespace",
        "task-eviction-limit",
        "has-deadline",
        "long-task",
        "owner-would-fail",
    };
    _Static_assert(sizeof names / sizeof names[0] == CTL_GUARD_N, "a name for every guard");
    if ((size_t)g < sizeof names / sizeof names[0])
        return names[g];
    return "unknown";
}

const char *ctl_guard_explain(ctl_guard g)
{
    switch (g) {
    case CTL_GUARD_OK:
        return "may be evicted";
    case CTL_GUARD_NOT_A_TASK:
        return "is not a task of a DAG job with a DSP priority";
    case CTL_GUARD_NOT_RUNNING:
        return "is not running";
    case CTL_GUARD_TERMINATING:
        return "is already terminating";
    case CTL_GUARD_NO_OWNER:
        return "has no controlling owner that would recreate it";
    case CTL_GUARD_OWNER_WOULD_FAIL:
        return "has an owner that would not recreate it without failing (a Job out of retries, "
               "an Argo Workflow, an owner not known to retry)";
    case CTL_GUARD_DAEMONSET:
        return "belongs to a DaemonSet";
    case CTL_GUARD_MIRROR:
        return "is a static pod's mirror";
    case CTL_GUARD_NOT_OPTED_IN:
        return "is not selected by spec.preemption.podSelector";
    case CTL_GUARD_PROTECTED_NS:
        return "is in a protected namespace";
    case CTL_GUARD_PROTECTED_CLASS:
        return "has a protected priority class";
    case CTL_GUARD_NS_NOT_OPTED_IN:
        return "is in a namespace not selected by spec.preemption.namespaceSelector";
    case CTL_GUARD_NS_UNKNOWN:
        return "is in a namespace the controller has not seen, so not selected by "
               "spec.preemption.namespaceSelector";
    case CTL_GUARD_PDB:
        return "is covered by a PodDisruptionBudget that allows no disruption";
    case CTL_GUARD_PDB_STALE:
        return "is covered by a PodDisruptionBudget whose status is not up to date";
    case CTL_GUARD_MULTIPLE_PDBS:
        return "is covered by more than one PodDisruptionBudget";
    case CTL_GUARD_COOLDOWN:
        return "had an eviction requested within the cooldown";
    case CTL_GUARD_NAMESPACE_LIMIT:
        return "is in a namespace whose evictions per minute are used up";
    case CTL_GUARD_MIN_RUN_TIME:
        return "has run less than the minimum run time";
    case CTL_GUARD_NO_SLACK:
        return "cannot afford a delay of one epoch";
    case CTL_GUARD_CROSS_NAMESPACE:
        return "is in another namespace than the preemptor, which the policy does not trust for "
               "it (spec.preemption.crossNamespace)";
    case CTL_GUARD_TASK_LIMIT:
        return "belongs to a task evicted spec.preemption.maxEvictionsPerTask times already";
    case CTL_GUARD_HAS_DEADLINE:
        return "has a deadline of its own (spec.preemption.deadlineVictims is false)";
    case CTL_GUARD_LONG_TASK:
        return "is a long task on a node where a long task was evicted within "
               "spec.preemption.longTask.window";
    case CTL_GUARD_N:
        break;
    }
    return "unknown guard";
}

void ctl_guard_describe(ctl_guard g, const ctl_pod *pod, char *buf, size_t size)
{
    if (size == 0)
        return;
    const char *ns = pod->ns != NULL ? pod->ns : "", *name = pod->name != NULL ? pod->name : "";
    int n;
    if (g == CTL_GUARD_NS_NOT_OPTED_IN)
        n = snprintf(buf, size,
                     "pod %s/%s: namespace %s is not selected by "
                     "spec.preemption.namespaceSelector",
                     ns, name, ns);
    else if (g == CTL_GUARD_NS_UNKNOWN)
        n = snprintf(buf, size,
                     "pod %s/%s: namespace %s is not in the namespace cache (just created or being "
                     "deleted), so it is not selected by spec.preemption.namespaceSelector",
                     ns, name, ns);
    else
        n = snprintf(buf, size, "pod %s/%s %s", ns, name, ctl_guard_explain(g));
    (void)n; /* cut short when it does not fit: only a log line */
}

double ctl_budget_window(const ds_policy *p)
{
    return ds_evict_budget_window(p);
}

/* A ledger entry as lib/evict_budget.h counts it (pending and evicted entries count). */
static bool ledger_mark(const void *ctx, size_t i, ds_evict_mark *m)
{
    const ctl_ledger_entry *e = &((const ctl_ledger *)ctx)->e[i];
    *m = (ds_evict_mark){
        .at = e->at, .ns = e->victim_ns, .node = e->node, .long_task = e->victim_long};
    return ctl_ledger_entry_counts(e);
}

void ctl_budget_init(ctl_budget *b, const ds_policy *p, const ctl_ledger *l, double now)
{
    ds_evict_history h = {.n = l->n, .get = ledger_mark, .ctx = l};
    ds_evict_budget_init(&b->limits, p, h, now);
    b->total_left = b->limits.total_left;
    b->now = now;
    b->ledger = l;
    b->policy = p;
}

size_t ctl_budget_namespace_left(const ctl_budget *b, const char *ns)
{
    return ds_evict_budget_namespace_left(&b->limits, ns);
}

size_t ctl_budget_node_left(const ctl_budget *b, const char *node)
{
    return ds_evict_budget_node_left(&b->limits, node);
}

bool ctl_budget_node_long_evicted(const ctl_budget *b, const char *node)
{
    return ds_evict_budget_node_long_evicted(&b->limits, node);
}

/* The pod's task has been evicted maxEvictionsPerTask times over its life (any of its pods). */
static bool task_limit_reached(const ds_policy *p, const ctl_ledger *l, const ctl_pod *pod)
{
    if (pod->task.job_name == NULL || pod->task.task_name == NULL || pod->ns == NULL)
        return false;
    ctl_task_ref t = {pod->ns, pod->task.job_name, pod->task.task_name};
    return !ds_evict_task_left(p, ctl_ledger_task_evictions(l, &t));
}

/* The pod as a running task of Algorithm 1, for the rules of lib/victim.h. */
static ds_running_task as_running(const ctl_pod *pod, double now)
{
    double ran = isnan(pod->started_at) ? 0.0 : now - pod->started_at;
    double rem = pod->task.eval.t_rem_s;
    return (ds_running_task){.ran_s = ran > 0.0 && isfinite(ran) ? ran : 0.0,
                             .t_rem_s = isfinite(rem) && rem > 0.0 ? rem : 0.0,
                             .t_allow_s = pod->task.eval.t_allow_s};
}

bool ctl_pod_is_long_task(const ds_policy *p, const ctl_pod *pod, double now)
{
    ds_running_task r = as_running(pod, now);
    return ds_running_is_long(&r, &p->preemption);
}

/* A label set of the snapshot, read by lib/evictor.h. */
typedef struct kv_set {
    const ctl_kv *kv;
    size_t n;
} kv_set;

static const char *kv_set_get(const void *ctx, const char *key)
{
    const kv_set *l = ctx;
    return l->kv != NULL ? ctl_kv_get(l->kv, l->n, key) : NULL;
}

/* The policy's evictor filter (lib/evictor.h), its reason as a guard. */
static ctl_guard policy_guard(const ds_policy *p, const ctl_pod *pod)
{
    kv_set labels = {pod->labels, pod->n_labels}, ns_labels = {pod->ns_labels, pod->n_ns_labels};
    ds_evict_candidate c = {.ns = pod->ns,
                            .priority_class = pod->priority_class,
                            .labels = {kv_set_get, &labels},
                            .ns_known = pod->ns_known,
                            .ns_labels = {kv_set_get, &ns_labels}};
    switch (ds_evictor_filter(p, &c)) {
    case DS_EVICT_OK:
        return CTL_GUARD_OK;
    case DS_EVICT_PROTECTED_NS:
        return CTL_GUARD_PROTECTED_NS;
    case DS_EVICT_PROTECTED_CLASS:
        return CTL_GUARD_PROTECTED_CLASS;
    case DS_EVICT_NS_NOT_OPTED_IN:
        return CTL_GUARD_NS_NOT_OPTED_IN;
    case DS_EVICT_NS_UNKNOWN:
        return CTL_GUARD_NS_UNKNOWN;
    case DS_EVICT_NOT_OPTED_IN:
        return CTL_GUARD_NOT_OPTED_IN;
    }
    return CTL_GUARD_NOT_OPTED_IN; /* an unknown reason: the safe side */
}

static ctl_guard pdb_guard(const ctl_pod *pod)
{
    if (pod->n_pdbs > 1)
        return CTL_GUARD_MULTIPLE_PDBS;
    if (pod->n_pdbs == 1 && pod->pdb_stale)
        return CTL_GUARD_PDB_STALE;
    if (pod->n_pdbs == 1 && pod->pdb_blocks)
        return CTL_GUARD_PDB;
    return CTL_GUARD_OK;
}

/* Was the pod's task (any of its pods: a replacement has a new UID) evicted (as_victim) or given
 * an eviction as the preemptor (else) within the cooldown? */
static bool task_cooling(const ds_policy *p, const ctl_ledger *l, const ctl_pod *pod, double now,
                         bool as_victim)
{
    if (pod->task.job_name == NULL || pod->task.task_name == NULL || pod->ns == NULL)
        return false;
    ctl_task_ref t = {pod->ns, pod->task.job_name, pod->task.task_name};
    double at =
        as_victim ? ctl_ledger_last_task_evicted(l, &t) : ctl_ledger_last_task_preempted(l, &t);
    return ds_evict_cooling(p, at, now);
}

ctl_guard ctl_guard_victim(const ds_policy *p, const ctl_budget *b, const ctl_pod *pod)
{
    if (pod->task.job == DS_NO_TASK || !pod->task.evaluated)
        return CTL_GUARD_NOT_A_TASK;
    if (pod->state != CTL_POD_BOUND || pod->node[0] == '\0')
        return CTL_GUARD_NOT_RUNNING;
    if (pod->terminating)
        return CTL_GUARD_TERMINATING;
    if (pod->mirror)
        return CTL_GUARD_MIRROR;
    if (pod->owner_evictions_left == 0)
        return pod->owner_verdict == DS_RETRY_BARE        ? CTL_GUARD_NO_OWNER
               : pod->owner_verdict == DS_RETRY_DAEMONSET ? CTL_GUARD_DAEMONSET
                                                          : CTL_GUARD_OWNER_WOULD_FAIL;
    ctl_guard g = policy_guard(p, pod);
    if (g != CTL_GUARD_OK)
        return g;
    g = pdb_guard(pod);
    if (g != CTL_GUARD_OK)
        return g;
    if (ds_evict_cooling(p, pod->evicted_at, b->now) ||
        ds_evict_cooling(p, ctl_ledger_last_for_victim(b->ledger, pod->uid), b->now) ||
        task_cooling(p, b->ledger, pod, b->now, true))
        return CTL_GUARD_COOLDOWN;
    if (task_limit_reached(p, b->ledger, pod))
        return CTL_GUARD_TASK_LIMIT;
    if (ctl_budget_namespace_left(b, pod->ns) == 0)
        return CTL_GUARD_NAMESPACE_LIMIT;
    double ran = isnan(pod->started_at) ? 0.0 : b->now - pod->started_at;
    if (ran < p->preemption.min_run_s)
        return CTL_GUARD_MIN_RUN_TIME;
    if (!(pod->task.eval.t_allow_s > p->preemption.epoch_s))
        return CTL_GUARD_NO_SLACK;
    ds_running_task r = as_running(pod, b->now);
    r.evictable = true;
    r.ran_s = fmax(r.ran_s, p->preemption.min_run_s); /* checked above */
    if (ds_running_preemptable(&r, &p->preemption) == DS_HAS_DEADLINE)
        return CTL_GUARD_HAS_DEADLINE;
    if (ds_running_is_long(&r, &p->preemption) && ctl_budget_node_long_evicted(b, pod->node))
        return CTL_GUARD_LONG_TASK;
    return CTL_GUARD_OK;
}

bool ctl_guard_preemptor_cooling(const ds_policy *p, const ctl_ledger *l, const ctl_pod *pod,
                                 double now)
{
    return ds_evict_cooling(p, ctl_ledger_last_for_preemptor(l, pod->uid), now) ||
           task_cooling(p, l, pod, now, false) || task_cooling(p, l, pod, now, true);
}

ds_pair_reason ctl_guard_pair(const ds_policy *p, const ctl_pod *preemptor, const ctl_pod *victim)
{
    ds_preempt_side a = {preemptor->ns, preemptor->k8s_priority};
    ds_preempt_side b = {victim->ns, victim->k8s_priority};
    return ds_preempt_pair_check(p, &a, &b);
}

static bool tolerates(const ctl_pod *pod, const ctl_taint *t)
{
    static const char *const effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute"};
    const char *effect = effects[t->effect];
    for (size_t i = 0; i < pod->n_tolerations; i++) {
        const ctl_toleration *tol = &pod->tolerations[i];
        if (tol->effect[0] != '\0' && strcmp(tol->effect, effect) != 0)
            continue;
        if (tol->key[0] == '\0') {
            if (tol->op_exists)
                return true;
            continue;
        }
        if (strcmp(tol->key, t->key) != 0)
            continue;
        if (tol->op_exists || strcmp(tol->value, t->value) == 0)
            return true;
    }
    return false;
}

static const char *node_label(const void *ctx, const char *key)
{
    const ctl_node *n = ctx;
    return ctl_kv_get(n->labels, n->n_labels, key);
}

bool ctl_guard_node_eligible(const ctl_pod *preemptor, const ctl_node *node)
{
    if (!node->schedulable)
        return false;
    for (size_t i = 0; i < preemptor->n_node_selector; i++) {
        const char *v = ctl_kv_get(node->labels, node->n_labels, preemptor->node_selector[i].key);
        if (v == NULL || strcmp(v, preemptor->node_selector[i].value) != 0)
            return false;
    }
    if (preemptor->affinity_error != NULL && preemptor->affinity_error[0] != '\0')
        return false; /* unknown constraints: no node is known to fit */
    if (preemptor->has_required_affinity) {
        ds_nsel_node nn = {.name = node->name, .label = node_label, .ctx = node};
        if (!ds_node_selector_matches(&preemptor->required_affinity, &nn))
            return false;
    }
    for (size_t i = 0; i < node->n_taints; i++) {
        const ctl_taint *t = &node->taints[i];
        if (t->effect == CTL_TAINT_PREFER_NO_SCHEDULE)
            continue;
        if (!tolerates(preemptor, t))
            return false;
    }
    return true;
}
