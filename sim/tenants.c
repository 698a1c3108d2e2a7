/* tenants.c: the simulated cluster's tenants (a job's namespace) and the requests of each one's
 * running pods, which the controller's release rule shares fairly under spec.fairness
 * (lib/fairshare.h, release.c). The simulation knows no namespace labels: a tenant is a
 * namespace, whatever spec.fairness.tenantLabel says. */
#include <stdlib.h>
#include <string.h>

#include "engine_state.h"
#include "grow.h"

int sim_tenants_init(engine *e)
{
    if (ds_strmap_init(&e->tenant_ix, 16) != 0)
        return sim_eng_oom(e, "tenants");
    return 0;
}

void sim_tenants_free(engine *e)
{
    for (size_t i = 0; i < e->n_tenants; i++)
        free(e->tenant_name[i]);
    free(e->tenant_name);
    free(e->tenant_used);
    ds_strmap_free(&e->tenant_ix);
    e->tenant_name = NULL;
    e->tenant_used = NULL;
    e->n_tenants = e->cap_tenants = 0;
}

int sim_tenant_of(engine *e, const char *ns, uint32_t *out)
{
    size_t len = strlen(ns), found;
    if (ds_strmap_get(&e->tenant_ix, ns, len, &found) == 0) {
        *out = (uint32_t)found;
        return 0;
    }
    if (e->n_tenants == e->cap_tenants) {
        size_t cap = e->cap_tenants;
        char **names = ds_grow(e->tenant_name, &cap, sizeof *names, 16);
        if (names == NULL)
            return sim_eng_oom(e, "tenants");
        e->tenant_name = names;
        cap = e->cap_tenants;
        ds_res *used = ds_grow(e->tenant_used, &cap, sizeof *used, 16);
        if (used == NULL)
            return sim_eng_oom(e, "tenants");
        e->tenant_used = used;
        e->cap_tenants = cap;
    }
    if (e->tenant_ix.n == e->tenant_ix.max &&
        ds_strmap_reserve(&e->tenant_ix, 2 * e->tenant_ix.max) != 0)
        return sim_eng_oom(e, "tenants");
    char *name = strdup(ns);
    if (name == NULL)
        return sim_eng_oom(e, "tenants");
    size_t i = e->n_tenants;
    if (ds_strmap_put(&e->tenant_ix, name, len, i, NULL) != 0) {
        free(name);
        return sim_eng_oom(e, "tenants");
    }
    e->tenant_name[i] = name;
    memset(&e->tenant_used[i], 0, sizeof e->tenant_used[i]);
    e->n_tenants++;
    *out = (uint32_t)i;
    return 0;
}

void sim_tenant_use(engine *e, uint32_t tenant, const ds_res *request, bool add)
{
    if (tenant >= e->n_tenants)
        return;
    if (add)
        ds_res_add(&e->tenant_used[tenant], request);
    else
        ds_res_sub(&e->tenant_used[tenant], request);
}

int sim_tenants_result(engine *e)
{
    sim_result *r = e->r;
    r->tenants = calloc(e->n_tenants ? e->n_tenants : 1, sizeof *r->tenants);
    if (r->tenants == NULL)
        return sim_eng_oom(e, "tenants");
    for (size_t i = 0; i < e->n_tenants; i++) {
        r->tenants[i] = strdup(e->tenant_name[i]);
        if (r->tenants[i] == NULL)
            return sim_eng_oom(e, "tenants");
        r->n_tenants = i + 1;
    }
    return 0;
}
