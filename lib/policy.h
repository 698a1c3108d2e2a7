/* policy.h: the SchedulingPolicy document (apiVersion dagsched.io/v1alpha1) that configures the
 * extender, the controller and the simulator.
 *
 * Parsing is strict: unknown fields, wrong types and out-of-range values are rejected with the
 * field path and the reason ("spec.preemption.rho: must be > 1 (got 0.5)"). Fields that are absent
 * keep the defaults of ds_policy_defaults(). The struct holds no pointers, so it can be copied by
 * value and swapped atomically by a hot-reloading caller. See docs/policy.md for every field. */
#ifndef DAGSCHED_POLICY_H
#define DAGSCHED_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"
#include "admit.h"
#include "dsp.h"
#include "fairshare.h"
#include "joborder.h"
#include "sailfish.h"
#include "victim.h"

#define DS_POLICY_API_VERSION "dagsched.io/v1alpha1"
#define DS_POLICY_KIND        "SchedulingPolicy"
#define DS_POLICY_MAX_BYTES   (256 * 1024)
#define DS_POLICY_NAME_MAX    254 /* 253 + NUL */
#define DS_POLICY_MAX_LIST    32  /* entries in each list field */
#define DS_POLICY_MAX_LABELS  16  /* matchLabels entries */
#define DS_LABEL_VALUE_MAX    64  /* 63 + NUL */
#define DS_LABEL_KEY_MAX      318 /* prefix (253) + '/' + name (63) + NUL */

typedef struct ds_label_selector {
    size_t n;
    char key[DS_POLICY_MAX_LABELS][DS_LABEL_KEY_MAX];
    char value[DS_POLICY_MAX_LABELS][DS_LABEL_VALUE_MAX];
} ds_label_selector; /* matchLabels only; empty selects everything */

typedef struct ds_name_list {
    size_t n;
    char name[DS_POLICY_MAX_LIST][DS_POLICY_NAME_MAX];
} ds_name_list;

typedef struct ds_policy {
    char name[DS_POLICY_NAME_MAX]; /* metadata.name */

    ds_priority_params priority; /* spec.priority */
    ds_order_params order;       /* spec.order: tasks of different jobs */

    /* spec.nodeSpeed */
    double theta_cpu, theta_memory;     /* Eq. 1 weights, default 0.5 / 0.5 */
    char speed_label[DS_LABEL_KEY_MAX]; /* default "dagsched.io/speed" */

    /* spec.deadlines */
    double urgent_threshold_s;    /* epsilon, default 30s (also preemption.epsilon_s) */
    bool filter_infeasible_nodes; /* extender rejects nodes that miss the level deadline */

    /* spec.packing */
    ds_pack_params packing;
    ds_name_list gpu_resource_names; /* default nvidia.com/gpu, amd.com/gpu */

    /* spec.preemption */
    bool preemption_enabled;            /* default true */
    ds_preempt_params preemption;       /* epsilon mirrors urgent_threshold_s */
    size_t max_evictions_per_node;      /* per epoch; default 1 */
    size_t max_evictions_per_namespace; /* per minute; default 5 */
    size_t max_evictions_per_minute;    /* total; default 10 */
    double cooldown_s;                  /* a pod is not evicted twice within this; default 300 */
    size_t max_evictions_per_task;      /* over the task's life (Dice); 0 = no limit; default 2 */
    double long_task_window_s; /* one long task evicted per node per window (Dice); default 600 */
    ds_label_selector opt_in_selector; /* pods that may be evicted; default: all */
    /* Namespaces, by their labels, whose pods may be evicted (and'ed with opt_in_selector);
     * default: all. */
    ds_label_selector opt_in_namespace_selector;
    ds_name_list protected_namespaces; /* default kube-system */
    ds_name_list
        protected_priority_classes; /* default system-cluster-critical, system-node-critical */
    /* spec.preemption.crossNamespace: who may preempt pods of another namespace
     * (lib/preempt_rules.h). Default: no namespace is trusted, so preemption stays within a
     * namespace; a trusted preemptor needs a strictly higher Kubernetes priority than its victim
     * unless requireHigherPriority is false. */
    ds_name_list cross_ns_trusted;
    bool cross_ns_require_higher; /* default true */

    /* spec.release */
    size_t max_concurrent_releases;  /* 0 = unlimited (default) */
    ds_admit_mode release_admission; /* default capacity (admit.h) */
    size_t release_lookahead;        /* default 2 */
    size_t release_hold_room;        /* tasks that may hold room (lib/admit.h), default 100 */

    /* spec.fairness: fair share across tenants in the release order (lib/fairshare.h) */
    bool fairness_enabled;               /* default false */
    char tenant_label[DS_LABEL_KEY_MAX]; /* namespace label naming the tenant; "": the namespace */
    ds_tenant_map tenant_weights;        /* absent tenants weigh 1 */
    ds_tenant_map tenant_caps;           /* largest dominant share; absent tenants: no cap */

    /* spec.gang: gang release (lib/gang.h) */
    double gang_timeout_s; /* a gang unreleased this long gets a GangTimeout Event; 0: never;
                            * default 600 */
} ds_policy;

void ds_policy_defaults(ds_policy *p);

/* Parse and validate a YAML policy document of `len` bytes (need not be NUL-terminated). On success
 * fills *out (defaults for absent fields) and returns 0; on error returns -1, sets err to
 * "<field path>: <reason>" and leaves *out untouched. */
int ds_policy_parse(const char *yaml, size_t len, ds_policy *out, ds_err *err);

/* ds_policy_parse reporting every error rather than the first: each bad field (unknown,
 * duplicate, wrong type or out of range, missing) in document order, then, when the fields are
 * all good, each broken rule across fields (ds_policy_validate). The messages go into errs->items
 * (at most errs->max of them; errs->n counts them all). 0 and *out filled when the document is
 * valid; -1 otherwise (errs->n >= 1). A malformed YAML document or one of another kind is one
 * error. */
int ds_policy_parse_all(const char *yaml, size_t len, ds_policy *out, ds_errs *errs);

/* Cross-field validation (also run by ds_policy_parse); usable on a policy built in code. */
int ds_policy_validate(const ds_policy *p, ds_err *err);

bool ds_name_list_contains(const ds_name_list *l, const char *name);

/* Pointers to the names of l in out (room for DS_POLICY_MAX_LIST); returns how many. */
size_t ds_name_list_ptrs(const ds_name_list *l, const char **out);

/* Do two lists hold the same names in the same order? */
bool ds_name_list_equal(const ds_name_list *a, const ds_name_list *b);

#endif
