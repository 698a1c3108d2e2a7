/* tenants.c: the tenants of a controller round and their use (see tenants.h). */
#include "tenants.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

ctl_fairness ctl_fairness_of(const ds_policy *pol)
{
    return (ctl_fairness){.enabled = pol->fairness_enabled,
                          .tenant_label = pol->tenant_label,
                          .weights = &pol->tenant_weights,
                          .caps = &pol->tenant_caps};
}

int ctl_tenants_init(ctl_tenants *ts, const ctl_fairness *f, const ctl_namespace *ns, size_t n_ns,
                     const ctl_node *nodes, size_t n_nodes, ds_err *err)
{
    memset(ts, 0, sizeof *ts);
    ts->f = f;
    ts->ns = ns;
    ts->n_ns = ns != NULL ? n_ns : 0;
    for (size_t k = 0; k < n_nodes; k++)
        if (nodes[k].schedulable)
            ds_res_add(&ts->capacity, &nodes[k].allocatable);
    if (ds_strmap_init(&ts->ix, 16) != 0)
        return ds_err_set(err, "tenants: out of memory");
    return 0;
}

void ctl_tenants_free(ctl_tenants *ts)
{
    free(ts->name);
    free(ts->fair);
    ds_strmap_free(&ts->ix);
    memset(ts, 0, sizeof *ts);
}

/* The value of the tenant label on namespace `name`, NULL when absent or unknown. */
static const char *label_of(const ctl_tenants *ts, const char *name)
{
    const char *key = ts->f != NULL ? ts->f->tenant_label : NULL;
    if (key == NULL || key[0] == '\0')
        return NULL;
    size_t lo = 0, hi = ts->n_ns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ts->ns[mid].name, name);
        if (c == 0)
            return ctl_kv_get(ts->ns[mid].labels, ts->ns[mid].n_labels, key);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

size_t ctl_tenants_of(ctl_tenants *ts, const char *ns)
{
    if (ns == NULL)
        ns = "";
    const char *key = ts->f != NULL ? ts->f->tenant_label : NULL;
    const char *name = ds_tenant_name(key, ns, label_of(ts, ns));
    size_t len = strlen(name), found;
    if (ds_strmap_get(&ts->ix, name, len, &found) == 0)
        return found;
    if (ts->n == ts->cap) {
        size_t cap = ts->cap;
        const char **names = ds_grow(ts->name, &cap, sizeof *names, 16);
        if (names == NULL)
            return SIZE_MAX;
        ts->name = names;
        cap = ts->cap;
        ds_fair_tenant *fair = ds_grow(ts->fair, &cap, sizeof *fair, 16);
        if (fair == NULL)
            return SIZE_MAX;
        ts->fair = fair;
        ts->cap = cap;
    }
    if (ts->ix.n == ts->ix.max && ds_strmap_reserve(&ts->ix, 2 * ts->ix.max) != 0)
        return SIZE_MAX;
    if (ds_strmap_put(&ts->ix, name, len, ts->n, NULL) != 0)
        return SIZE_MAX;
    const ds_tenant_map *w = ts->f != NULL ? ts->f->weights : NULL;
    const ds_tenant_map *c = ts->f != NULL ? ts->f->caps : NULL;
    ts->name[ts->n] = name;
    ts->fair[ts->n] = (ds_fair_tenant){.weight = ds_tenant_map_get(w, name, 1.0),
                                       .cap = ds_tenant_map_get(c, name, 0.0)};
    return ts->n++;
}

int ctl_tenants_charge(ctl_tenants *ts, const char *ns, const ds_res *request)
{
    size_t t = ctl_tenants_of(ts, ns);
    if (t == SIZE_MAX)
        return -1;
    ds_res_add(&ts->fair[t].used, request);
    return 0;
}

int ctl_tenants_add_bound(ctl_tenants *ts, const ctl_pod *pods, size_t n_pods, ds_err *err)
{
    for (size_t i = 0; i < n_pods; i++)
        if (pods[i].state == CTL_POD_BOUND &&
            ctl_tenants_charge(ts, pods[i].ns, &pods[i].request) != 0)
            return ds_err_set(err, "tenants: out of memory");
    return 0;
}

int ctl_tenants_build(ctl_tenants *ts, const ctl_fairness *f, const ctl_namespace *ns, size_t n_ns,
                      const ctl_pod *pods, size_t n_pods, const ctl_node *nodes, size_t n_nodes,
                      ds_err *err)
{
    if (ctl_tenants_init(ts, f, ns, n_ns, nodes, n_nodes, err) != 0)
        return -1;
    if (ctl_tenants_add_bound(ts, pods, n_pods, err) != 0) {
        ctl_tenants_free(ts);
        return -1;
    }
    return 0;
}
