/* tenant_view.c: the tenants of spec.fairness for `get tenants` (see tenant_view.h). */
#include "tenant_view.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fairshare.h"
#include "release.h"
#include "tenants.h"
#include "victim.h"

/* What the tenant's pods add up to. */
typedef struct tally {
    bool dag; /* it has DAG tasks not finished */
    size_t running, ready, held;
} tally;

static bool dag_task(const ctl_pod *p)
{
    return p->task.job != DS_NO_TASK && p->state != CTL_POD_SUCCEEDED && p->state != CTL_POD_FAILED;
}

static bool ready_task(const ctl_pod *p)
{
    return dag_task(p) && p->state == CTL_POD_GATED && p->task.state == DS_TASK_WAITING;
}

static bool held_for_fairness(const ctl_pod *p)
{
    return ready_task(p) && ctl_wait_reason_of(p->waiting_reason) == CTL_WAIT_FAIR_SHARE;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_row(const void *a, const void *b)
{
    return strcmp(((const cli_tenant_row *)a)->name, ((const cli_tenant_row *)b)->name);
}

/* The distinct jobs of tenant t's held tasks into row. 0, or -1 when out of memory. */
static int held_jobs(const ctl_pod *pods, size_t n_pods, const size_t *tenant_of, size_t t,
                     cli_tenant_row *row)
{
    if (row->held == 0)
        return 0;
    row->held_jobs = malloc(row->held * sizeof *row->held_jobs);
    if (row->held_jobs == NULL)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < n_pods; i++)
        if (tenant_of[i] == t && held_for_fairness(&pods[i]))
            row->held_jobs[n++] = pods[i].task.job;
    qsort(row->held_jobs, n, sizeof *row->held_jobs, cmp_size);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || row->held_jobs[u - 1] != row->held_jobs[i])
            row->held_jobs[u++] = row->held_jobs[i];
    row->n_held_jobs = u;
    return 0;
}

/* The rows of the tenants with DAG tasks, from the tenants ts, each pod's tenant and the tally. */
static int fill_rows(const ctl_pod *pods, size_t n_pods, const ctl_tenants *ts,
                     const size_t *tenant_of, const tally *tl, const ds_fair_queue *q,
                     cli_tenant_view *out)
{
    out->rows = calloc(ts->n ? ts->n : 1, sizeof *out->rows);
    if (out->rows == NULL)
        return -1;
    for (size_t t = 0; t < ts->n; t++) {
        if (!tl[t].dag)
            continue;
        cli_tenant_row *r = &out->rows[out->n++];
        *r = (cli_tenant_row){.name = ts->name[t],
                              .weight = ts->fair[t].weight,
                              .cap = ts->fair[t].cap,
                              .used = ts->fair[t].used,
                              .share = ds_fair_queue_share(q, t),
                              .dominant = ds_dominant_resource(&ts->fair[t].used, &ts->capacity),
                              .fair_share = ds_fair_queue_fair_share(q, t),
                              .above = ds_fair_queue_above(q, t),
                              .running = tl[t].running,
                              .ready = tl[t].ready,
                              .held = tl[t].held};
        if (held_jobs(pods, n_pods, tenant_of, t, r) != 0)
            return -1;
    }
    qsort(out->rows, out->n, sizeof *out->rows, cmp_row);
    return 0;
}

int cli_tenant_view_build(const ctl_pod *pods, size_t n_pods, const ctl_namespace *ns, size_t n_ns,
                          const ctl_node *nodes, size_t n_nodes, const ds_policy *pol,
                          cli_tenant_view *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    ctl_fairness f = ctl_fairness_of(pol);
    ctl_tenants ts;
    if (ctl_tenants_build(&ts, &f, ns, n_ns, pods, n_pods, nodes, n_nodes, err) != 0)
        return -1;
    out->capacity = ts.capacity;
    size_t *tenant_of = malloc((n_pods ? n_pods : 1) * sizeof *tenant_of);
    size_t *ready_of = malloc((n_pods ? n_pods : 1) * sizeof *ready_of);
    tally *tl = NULL;
    ds_fair_queue q = {0};
    size_t n_ready = 0;
    bool ok = tenant_of != NULL && ready_of != NULL;
    /* Every tenant with DAG tasks first (a tenant may have no bound pod), then the tally. */
    for (size_t i = 0; ok && i < n_pods; i++) {
        tenant_of[i] = SIZE_MAX;
        if (dag_task(&pods[i]))
            ok = (tenant_of[i] = ctl_tenants_of(&ts, pods[i].ns)) != SIZE_MAX;
    }
    if (ok)
        ok = (tl = calloc(ts.n ? ts.n : 1, sizeof *tl)) != NULL;
    for (size_t i = 0; ok && i < n_pods; i++) {
        size_t t = tenant_of[i];
        if (t == SIZE_MAX)
            continue;
        tl[t].dag = true;
        tl[t].running += pods[i].state == CTL_POD_BOUND;
        if (ready_task(&pods[i])) {
            tl[t].ready++;
            ready_of[n_ready++] = t;
        }
        tl[t].held += held_for_fairness(&pods[i]);
    }
    int rc = 0;
    if (!ok)
        rc = ds_err_set(err, "tenants: out of memory");
    else if (ds_fair_queue_init(&q, ts.fair, ts.n, &ts.capacity, ready_of, n_ready, err) != 0)
        rc = -1;
    else if (fill_rows(pods, n_pods, &ts, tenant_of, tl, &q, out) != 0)
        rc = ds_err_set(err, "tenants: out of memory");
    ds_fair_queue_free(&q);
    free(tl);
    free(ready_of);
    free(tenant_of);
    ctl_tenants_free(&ts);
    if (rc != 0)
        cli_tenant_view_free(out);
    return rc;
}

void cli_tenant_view_free(cli_tenant_view *v)
{
    for (size_t i = 0; v->rows != NULL && i < v->n; i++)
        free(v->rows[i].held_jobs);
    free(v->rows);
    memset(v, 0, sizeof *v);
}
