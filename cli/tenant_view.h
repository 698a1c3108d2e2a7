/* tenant_view.h: the tenants of spec.fairness as the controller's release order sees them, for
 * `kubectl dagsched get tenants`: for each tenant with DAG tasks, its weight and cap from the
 * policy, its use (the requests of its bound pods, the ones outside DAG jobs included: they hold
 * room as well) and dominant share of the schedulable nodes (the figure of the controller's
 * dagsched_controller_tenant_dominant_share), its fair share among the tenants with ready tasks
 * (lib/fairshare.h: its weight over theirs, its own counted as if it had one), whether it is above
 * it, and its DAG tasks: running, ready (upstream done, gated) and held for fair share (the
 * controller's waiting reason on the pod, ctl_wait_reason_of), with the jobs they belong to.
 *
 * Pure: over the plugin's snapshot (controller/view.h: pods, namespaces, nodes); the tenants are
 * the controller's own (controller/tenants.h), the shares lib/fairshare.h's. */
#ifndef DAGSCHED_CLI_TENANT_VIEW_H
#define DAGSCHED_CLI_TENANT_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"
#include "policy.h"
#include "resources.h"
#include "view.h"

typedef struct cli_tenant_row {
    const char *name;   /* borrowed from the snapshot */
    double weight, cap; /* cap 0: none */
    ds_res used;        /* the requests of its bound pods */
    double share;       /* its dominant share (unweighted) */
    int dominant;       /* the DS_RES_* kind of that share; -1 when it uses nothing */
    double fair_share;  /* its weight over the weights of the tenants with ready tasks (its own
                         * counted as if it had some) */
    bool above;         /* above its fair share while another tenant has ready tasks */
    size_t running, ready, held; /* its DAG tasks: bound, ready (gated, upstream done), and held
                                  * by the controller for fair share (ready ones among them) */
    size_t *held_jobs;           /* [n_held_jobs]: the jobs (ctl_task_info.job) of the held ones,
                                  * ascending, each once */
    size_t n_held_jobs;
} cli_tenant_row;

typedef struct cli_tenant_view {
    cli_tenant_row *rows; /* [n]: the tenants with DAG tasks not finished, by name */
    size_t n;
    ds_res capacity; /* the allocatable of the schedulable nodes */
} cli_tenant_view;

/* The tenants of pol's spec.fairness (its tenant label, weights and caps, whether or not it is
 * enabled) over the pods, the namespaces (sorted by name, as the snapshot keeps them; NULL when
 * unknown: each namespace is then a tenant of its own) and the nodes. 0, or -1 with err set
 * (out of memory). */
int cli_tenant_view_build(const ctl_pod *pods, size_t n_pods, const ctl_namespace *ns, size_t n_ns,
                          const ctl_node *nodes, size_t n_nodes, const ds_policy *pol,
                          cli_tenant_view *out, ds_err *err);
void cli_tenant_view_free(cli_tenant_view *v);

#endif
