/* tenants.h: the tenants of one controller round under spec.fairness (lib/fairshare.h): the
 * tenant of each namespace (the namespace itself, or the value of the policy's tenant label on
 * it), each tenant's weight and cap from the policy, its use (the requests of its bound pods,
 * the ones of other schedulers included: they hold room as well) and the cluster's capacity (the
 * allocatable of the schedulable nodes). Pure: over the view (view.h); the names are borrowed
 * from it. The tracker ranks jobs by their tenant's weighted dominant share (the release order,
 * tracker.c); the release rule charges what it releases on top (release.c). */
#ifndef DAGSCHED_CONTROLLER_TENANTS_H
#define DAGSCHED_CONTROLLER_TENANTS_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"
#include "fairshare.h"
#include "policy.h"
#include "strmap.h"
#include "view.h"

/* The policy's spec.fairness, borrowed. */
typedef struct ctl_fairness {
    bool enabled;
    const char *tenant_label; /* "" or NULL: a tenant is a namespace */
    const ds_tenant_map *weights, *caps;
} ctl_fairness;

/* The spec.fairness of policy pol (borrowed from it). */
ctl_fairness ctl_fairness_of(const ds_policy *pol);

typedef struct ctl_tenants {
    const char **name;    /* [n]: a namespace's name or a label value, borrowed from the view */
    ds_fair_tenant *fair; /* [n]: use, weight, cap */
    size_t n, cap;
    ds_res capacity;
    ds_strmap ix; /* name -> index */
    const ctl_fairness *f;
    const ctl_namespace *ns; /* sorted by name, as the snapshot keeps them */
    size_t n_ns;
} ctl_tenants;

/* Empty tenants of policy f over the namespaces (n_ns, sorted by name; their labels name the
 * tenants) and the capacity of the nodes. 0, or -1 with err set when out of memory. */
int ctl_tenants_init(ctl_tenants *ts, const ctl_fairness *f, const ctl_namespace *ns, size_t n_ns,
                     const ctl_node *nodes, size_t n_nodes, ds_err *err);
void ctl_tenants_free(ctl_tenants *ts);

/* The index of the tenant of namespace ns (NULL counts as ""), added with no use when new;
 * SIZE_MAX when out of memory. */
size_t ctl_tenants_of(ctl_tenants *ts, const char *ns);

/* Add a request to the use of namespace ns's tenant. 0, or -1 when out of memory. */
int ctl_tenants_charge(ctl_tenants *ts, const char *ns, const ds_res *request);

/* Charge the requests of the bound pods to their tenants. 0, or -1 with err set when out of
 * memory. */
int ctl_tenants_add_bound(ctl_tenants *ts, const ctl_pod *pods, size_t n_pods, ds_err *err);

/* ctl_tenants_init and ctl_tenants_add_bound: the tenants as the round begins. */
int ctl_tenants_build(ctl_tenants *ts, const ctl_fairness *f, const ctl_namespace *ns, size_t n_ns,
                      const ctl_pod *pods, size_t n_pods, const ctl_node *nodes, size_t n_nodes,
                      ds_err *err);

#endif
