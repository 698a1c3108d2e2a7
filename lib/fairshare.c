/* fairshare.c: dominant shares of tenants and the fair queue of a release round (see
 * fairshare.h and docs/model.md, "Fair share across tenants"). */
#include "fairshare.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Shares within this relative margin of the fair share count as at it (rounding of sums). */
#define SHARE_MARGIN 1e-9

double ds_tenant_map_get(const ds_tenant_map *m, const char *name, double dflt)
{
    if (m == NULL || name == NULL)
        return dflt;
    size_t n = m->n < DS_FAIR_MAX_TENANTS ? m->n : DS_FAIR_MAX_TENANTS;
    for (size_t i = 0; i < n; i++)
        if (strncmp(m->name[i], name, sizeof m->name[i]) == 0)
            return m->value[i];
    return dflt;
}

const char *ds_tenant_name(const char *tenant_label, const char *ns, const char *label_value)
{
    if (tenant_label != NULL && tenant_label[0] != '\0' && label_value != NULL &&
        label_value[0] != '\0')
        return label_value;
    return ns != NULL ? ns : "";
}

double ds_dominant_share(const ds_res *used, const ds_res *capacity)
{
    double best = 0;
    for (int k = 0; k < DS_RES_N; k++) {
        if (capacity->v[k] <= 0 || used->v[k] <= 0)
            continue;
        double s = (double)used->v[k] / (double)capacity->v[k];
        if (s > best)
            best = s;
    }
    return best;
}

static double weight_of(const ds_fair_tenant *t)
{
    return t->weight > 0 ? t->weight : 1.0;
}

double ds_fair_rank(const ds_fair_tenant *t, const ds_res *capacity)
{
    return ds_dominant_share(&t->used, capacity) / weight_of(t);
}

void ds_fair_queue_free(ds_fair_queue *q)
{
    if (q == NULL)
        return;
    free(q->slot);
    free(q->link); /* and the heap after it */
    memset(q, 0, sizeof *q);
    q->pending = SIZE_MAX;
}

/* Count a tenant among the tenants of the round (once). */
static void enter_round(ds_fair_queue *q, ds_fair_slot *sl)
{
    if (sl->in_round)
        return;
    sl->in_round = true;
    q->active_tenants++;
    q->active_weight += weight_of(&sl->t);
}

int ds_fair_queue_init(ds_fair_queue *q, const ds_fair_tenant *tenants, size_t n_tenants,
                       const ds_res *capacity, const size_t *tenant_of, size_t n_tasks, ds_err *err)
{
    if (q == NULL)
        return ds_err_set(err, "fair queue: missing queue");
    memset(q, 0, sizeof *q);
    q->pending = SIZE_MAX;
    if (capacity == NULL || (tenants == NULL && n_tenants > 0) ||
        (tenant_of == NULL && n_tasks > 0))
        return ds_err_set(err, "fair queue: missing %s",
                          capacity == NULL  ? "capacity"
                          : tenants == NULL ? "tenants"
                                            : "tenants of the tasks");
    for (size_t i = 0; i < n_tasks; i++)
        if (tenant_of[i] >= n_tenants)
            return ds_err_set(err, "fair queue: task %zu: tenant out of range (got %zu of %zu)", i,
                              tenant_of[i], n_tenants);
    if (n_tasks > SIZE_MAX / 2 / sizeof(size_t) || n_tenants > SIZE_MAX / 2 / sizeof(size_t))
        return ds_err_set(err, "fair queue: too many tenants or tasks (%zu, %zu)", n_tenants,
                          n_tasks);
    q->slot = calloc(n_tenants ? n_tenants : 1, sizeof *q->slot);
    q->link = malloc((n_tasks + n_tenants + 1) * sizeof *q->link);
    if (q->slot == NULL || q->link == NULL) {
        ds_fair_queue_free(q);
        return ds_err_set(err, "fair queue: out of memory for %zu tenants and %zu tasks", n_tenants,
                          n_tasks);
    }
    q->heap = q->link + n_tasks;
    q->capacity = *capacity;
    q->n_tenants = n_tenants;
    q->n_tasks = n_tasks;
    q->tenant_of = tenant_of;
    for (size_t t = 0; t < n_tenants; t++)
        q->slot[t] = (ds_fair_slot){.t = tenants[t], .head = SIZE_MAX};
    /* Each tenant's tasks linked in the order given: walk backwards, pushing onto the heads. */
    for (size_t i = n_tasks; i-- > 0;) {
        ds_fair_slot *sl = &q->slot[tenant_of[i]];
        enter_round(q, sl);
        q->link[i] = sl->head;
        sl->head = i;
    }
    return 0;
}

void ds_fair_queue_join(ds_fair_queue *q, size_t tenant)
{
    if (q == NULL || tenant >= q->n_tenants || q->started)
        return;
    enter_round(q, &q->slot[tenant]);
}

void ds_fair_queue_charge(ds_fair_queue *q, size_t tenant, const ds_res *request)
{
    if (q == NULL || request == NULL || tenant >= q->n_tenants)
        return;
    if (q->started && tenant != q->pending)
        return; /* in the heap at its rank: charging it now would break the heap's order */
    ds_res_add(&q->slot[tenant].t.used, request);
}

/* Skip the tenant's tasks decided outside the queue. */
static void skip_decided(ds_fair_queue *q, size_t t, const bool *decided)
{
    ds_fair_slot *sl = &q->slot[t];
    while (decided != NULL && sl->head != SIZE_MAX && decided[sl->head])
        sl->head = q->link[sl->head];
}

/* Does tenant a come before tenant b? */
static bool before(const ds_fair_queue *q, size_t a, size_t b)
{
    const ds_fair_slot *x = &q->slot[a], *y = &q->slot[b];
    if (x->rank != y->rank)
        return x->rank < y->rank;
    return x->head < y->head;
}

static void heap_push(ds_fair_queue *q, size_t t)
{
    q->slot[t].rank = ds_fair_rank(&q->slot[t].t, &q->capacity);
    size_t i = q->n_heap++;
    q->heap[i] = t;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(q, q->heap[i], q->heap[parent]))
            break;
        size_t x = q->heap[i];
        q->heap[i] = q->heap[parent];
        q->heap[parent] = x;
        i = parent;
    }
}

static size_t heap_pop(ds_fair_queue *q)
{
    size_t top = q->heap[0];
    q->heap[0] = q->heap[--q->n_heap];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < q->n_heap && before(q, q->heap[l], q->heap[m]))
            m = l;
        if (r < q->n_heap && before(q, q->heap[r], q->heap[m]))
            m = r;
        if (m == i)
            break;
        size_t x = q->heap[i];
        q->heap[i] = q->heap[m];
        q->heap[m] = x;
        i = m;
    }
    return top;
}

size_t ds_fair_queue_next(ds_fair_queue *q, const bool *decided)
{
    if (q == NULL)
        return SIZE_MAX;
    if (!q->started) {
        q->started = true;
        for (size_t t = 0; t < q->n_tenants; t++) {
            skip_decided(q, t, decided);
            if (q->slot[t].head != SIZE_MAX)
                heap_push(q, t);
        }
    } else if (q->pending != SIZE_MAX) {
        skip_decided(q, q->pending, decided);
        if (q->slot[q->pending].head != SIZE_MAX)
            heap_push(q, q->pending);
    }
    q->pending = SIZE_MAX;
    while (q->n_heap > 0) {
        size_t t = heap_pop(q);
        skip_decided(q, t, decided); /* decided since it entered the heap */
        size_t i = q->slot[t].head;
        if (i == SIZE_MAX)
            continue;
        q->slot[t].head = q->link[i];
        q->pending = t;
        return i;
    }
    return SIZE_MAX;
}

double ds_fair_queue_share(const ds_fair_queue *q, size_t tenant)
{
    if (q == NULL || tenant >= q->n_tenants)
        return 0;
    return ds_dominant_share(&q->slot[tenant].t.used, &q->capacity);
}

double ds_fair_queue_fair_share(const ds_fair_queue *q, size_t tenant)
{
    if (q == NULL || tenant >= q->n_tenants)
        return 0;
    double w = weight_of(&q->slot[tenant].t);
    double total = q->active_weight + (q->slot[tenant].in_round ? 0 : w);
    return w / total;
}

bool ds_fair_queue_above(const ds_fair_queue *q, size_t tenant)
{
    if (q == NULL || tenant >= q->n_tenants)
        return false;
    size_t others = q->active_tenants - (q->slot[tenant].in_round ? 1 : 0);
    if (others == 0)
        return false;
    double fair = ds_fair_queue_fair_share(q, tenant);
    return ds_fair_queue_share(q, tenant) > fair * (1 + SHARE_MARGIN);
}

bool ds_fair_queue_over_cap(const ds_fair_queue *q, size_t tenant, const ds_res *request)
{
    if (q == NULL || request == NULL || tenant >= q->n_tenants)
        return false;
    const ds_fair_tenant *t = &q->slot[tenant].t;
    if (!(t->cap > 0) || ds_dominant_share(&t->used, &q->capacity) <= 0)
        return false;
    ds_res with = t->used;
    ds_res_add(&with, request);
    return ds_dominant_share(&with, &q->capacity) > t->cap * (1 + SHARE_MARGIN);
}
