/* fairshare.h: fair share across tenants in the release order (Dominant Resource Fairness, as
 * 3DSF's allocation step uses it, with weights and caps).
 *
 * A tenant is a namespace, or a group of namespaces that share the value of a namespace label
 * (spec.fairness.tenantLabel). Its usage is the sum of the requests of its running pods (bound,
 * not finished) and of its tasks released and not yet bound. Its dominant share is the largest,
 * over the resource kinds the cluster has, of usage / the cluster's allocatable; weighted, it is
 * divided by the tenant's weight (default 1).
 *
 * The fair queue orders the ready tasks of one release round across tenants by progressive
 * filling: the next task is the first (in the order given, the order within a tenant) of the
 * tenant with the lowest weighted dominant share, and what the round releases is charged to its
 * tenant before the next pick, so that a tenant's share grows as it is served. Ties go to the
 * tenant whose next task comes first in the order given. A tenant's fair share is its weight over
 * the weights of the tenants with tasks in the round; a cap (optional) bounds a tenant's dominant
 * share. Pure: no I/O, no global state. See docs/model.md ("Fair share across tenants"). */
#ifndef DAGSCHED_FAIRSHARE_H
#define DAGSCHED_FAIRSHARE_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"
#include "resources.h"

#define DS_FAIR_MAX_TENANTS 64 /* entries of each per-tenant map of the policy */
#define DS_TENANT_NAME_MAX  64 /* a namespace (RFC 1123 label) or a label value: 63 + NUL */

/* A map from tenant names to numbers (spec.fairness.weights, spec.fairness.caps). */
typedef struct ds_tenant_map {
    size_t n;
    char name[DS_FAIR_MAX_TENANTS][DS_TENANT_NAME_MAX];
    double value[DS_FAIR_MAX_TENANTS];
} ds_tenant_map;

/* The value of `name` in m, or dflt when m does not list it (or name is NULL). */
double ds_tenant_map_get(const ds_tenant_map *m, const char *name, double dflt);

/* The tenant of a namespace: the value of the tenant label on the namespace when the policy
 * names a label (tenant_label not empty) and the namespace carries it with a value that is not
 * empty (label_value), else the namespace's own name. */
const char *ds_tenant_name(const char *tenant_label, const char *ns, const char *label_value);

typedef struct ds_fair_tenant {
    ds_res used;   /* requests of its running pods and of its tasks released and not bound */
    double weight; /* > 0 (1 by default) */
    double cap;    /* largest dominant share it may reach, in (0, 1]; 0: no cap */
} ds_fair_tenant;

/* max over the kinds with capacity > 0 of used / capacity (a negative use counts 0); 0 when the
 * capacity has no kind. */
double ds_dominant_share(const ds_res *used, const ds_res *capacity);

/* The tenant's dominant share divided by its weight (a weight that is not > 0 counts 1): the
 * tenant rank of the release order (lib/joborder.h), lowest first. */
double ds_fair_rank(const ds_fair_tenant *t, const ds_res *capacity);

/* A tenant in the fair queue. */
typedef struct ds_fair_slot {
    ds_fair_tenant t; /* copied: its use grows as tasks are charged */
    size_t head;      /* its next task not yet offered, SIZE_MAX: none */
    double rank;      /* its rank when it entered the heap */
    bool in_round;    /* it has tasks in the round */
} ds_fair_slot;

/* Progressive filling over the ready tasks of one round. */
typedef struct ds_fair_queue {
    ds_res capacity;
    ds_fair_slot *slot; /* [n_tenants] */
    size_t n_tenants;
    size_t n_tasks;
    const size_t *tenant_of; /* borrowed: the tenant of each task */
    size_t *link;            /* [n_tasks]: the next task of the same tenant, SIZE_MAX: none */
    size_t *heap;            /* [n_tenants], after link: tenants with tasks left, lowest first */
    size_t n_heap;
    size_t pending;        /* the tenant of the task last offered, SIZE_MAX: none */
    bool started;          /* ds_fair_queue_next was called */
    double active_weight;  /* weights of the tenants with tasks in the round */
    size_t active_tenants; /* how many they are */
} ds_fair_queue;

/* Set up a round: the tenants (n_tenants, their use before the round) and the cluster's capacity
 * (the sum of the nodes' allocatable), n_tasks ready tasks in their order, tenant_of[i] the tenant
 * of task i (< n_tenants; borrowed for the queue's life). 0, or -1 with err set on missing or out
 * of range input or out of memory (q is then empty: ds_fair_queue_free is safe). */
int ds_fair_queue_init(ds_fair_queue *q, const ds_fair_tenant *tenants, size_t n_tenants,
                       const ds_res *capacity, const size_t *tenant_of, size_t n_tasks,
                       ds_err *err);
void ds_fair_queue_free(ds_fair_queue *q);

/* Add a request to a tenant's use (a task released, or in flight). Before the first
 * ds_fair_queue_next, any tenant; afterwards only the tenant of the task last offered (the others
 * wait in the queue at their rank). Out of range: nothing. */
void ds_fair_queue_charge(ds_fair_queue *q, size_t tenant, const ds_res *request);

/* A tenant with tasks in flight (released, not yet bound: waiting in kube-scheduler's queue)
 * takes part in the round without tasks to offer: it counts among the tenants of the round for
 * the fair shares and for ds_fair_queue_above, as a tenant with ready tasks does. Call before the
 * first ds_fair_queue_next; out of range: nothing. */
void ds_fair_queue_join(ds_fair_queue *q, size_t tenant);

/* The next task to decide: the first task not yet offered, and not marked in `decided` (NULL:
 * none is), of the tenant with the lowest rank (ties: the tenant whose task comes first).
 * SIZE_MAX when every task was offered. */
size_t ds_fair_queue_next(ds_fair_queue *q, const bool *decided);

/* A tenant's dominant share now (unweighted), and its fair share: its weight over the weights of
 * the tenants with tasks in the round (ready, or in flight: ds_fair_queue_join) (1 for a tenant
 * without tasks in it when no other has any; 0 for an index out of range). */
double ds_fair_queue_share(const ds_fair_queue *q, size_t tenant);
double ds_fair_queue_fair_share(const ds_fair_queue *q, size_t tenant);

/* Is the tenant above its fair share: its dominant share exceeds its fair share while another
 * tenant has tasks in the round? */
bool ds_fair_queue_above(const ds_fair_queue *q, size_t tenant);

/* Would `request` take the tenant past its cap? False without a cap, and for a tenant that uses
 * nothing (it may always start one task, however large). */
bool ds_fair_queue_over_cap(const ds_fair_queue *q, size_t tenant, const ds_res *request);

#endif
