/* room.c: when room frees anyway (see room.h). */
#include "room.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool known_end(const ds_room_task *t, size_t n_nodes)
{
    return t->node < n_nodes && isfinite(t->end_s) && t->end_s > 0.0;
}

/* A task (or node) and the end it is sorted by. */
typedef struct end_ix {
    double end;
    size_t idx;
} end_ix;

static int cmp_end(const void *pa, const void *pb)
{
    const end_ix *a = pa, *b = pb;
    if (a->end != b->end)
        return a->end < b->end ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

void ds_room_index_free(ds_room_index *ix)
{
    free(ix->start);
    free(ix->order);
    free(ix->node_order);
    free(ix->pool_end);
    free(ix->pool_room);
    ix->start = ix->order = ix->node_order = NULL;
    ix->pool_end = NULL;
    ix->pool_room = NULL;
    ix->n_nodes = ix->n_node_order = ix->n_pool = 0;
}

int ds_room_index_build(ds_room_index *ix, const ds_room_task *tasks, size_t n_tasks,
                        const ds_res *free_, size_t n_nodes, ds_err *err)
{
    memset(ix, 0, sizeof *ix);
    ix->n_nodes = n_nodes;
    ix->start = calloc(n_nodes + 1, sizeof *ix->start);
    ix->order = calloc(n_tasks ? n_tasks : 1, sizeof *ix->order);
    ix->node_order = calloc(n_nodes ? n_nodes : 1, sizeof *ix->node_order);
    ix->pool_end = calloc(n_tasks ? n_tasks : 1, sizeof *ix->pool_end);
    ix->pool_room = calloc(n_tasks ? n_tasks : 1, sizeof *ix->pool_room);
    end_ix *tmp =
        calloc(n_tasks > n_nodes ? (n_tasks ? n_tasks : 1) : (n_nodes ? n_nodes : 1), sizeof *tmp);
    if (ix->start == NULL || ix->order == NULL || ix->node_order == NULL || ix->pool_end == NULL ||
        ix->pool_room == NULL || tmp == NULL) {
        free(tmp);
        ds_room_index_free(ix);
        return ds_err_set(err, "room index: out of memory (%zu tasks, %zu nodes)", n_tasks,
                          n_nodes);
    }
    /* Counting sort by node, then each node's tasks by end. */
    for (size_t i = 0; i < n_tasks; i++)
        if (known_end(&tasks[i], n_nodes))
            ix->start[tasks[i].node + 1]++;
    for (size_t n = 0; n < n_nodes; n++)
        ix->start[n + 1] += ix->start[n];
    size_t *fill = ix->node_order; /* scratch until the node order is written */
    for (size_t n = 0; n < n_nodes; n++)
        fill[n] = ix->start[n];
    for (size_t i = 0; i < n_tasks; i++)
        if (known_end(&tasks[i], n_nodes))
            ix->order[fill[tasks[i].node]++] = i;
    for (size_t n = 0; n < n_nodes; n++) {
        size_t a = ix->start[n], b = ix->start[n + 1];
        for (size_t k = a; k < b; k++)
            tmp[k - a] = (end_ix){tasks[ix->order[k]].end_s, ix->order[k]};
        qsort(tmp, b - a, sizeof *tmp, cmp_end);
        for (size_t k = a; k < b; k++)
            ix->order[k] = tmp[k - a].idx;
    }
    size_t m = 0;
    for (size_t n = 0; n < n_nodes; n++)
        if (ix->start[n + 1] > ix->start[n])
            tmp[m++] = (end_ix){tasks[ix->order[ix->start[n]]].end_s, n};
    qsort(tmp, m, sizeof *tmp, cmp_end);
    for (size_t k = 0; k < m; k++)
        ix->node_order[k] = tmp[k].idx;
    ix->n_node_order = m;

    /* The pool: free resources now (a node over its capacity offers nothing), then every known
     * end in time order. */
    for (size_t n = 0; n < n_nodes; n++)
        for (int d = 0; d < DS_RES_N; d++)
            if (free_[n].v[d] > 0 &&
                __builtin_add_overflow(ix->pool_free.v[d], free_[n].v[d], &ix->pool_free.v[d]))
                ix->pool_free.v[d] = INT64_MAX;
    size_t np = 0;
    for (size_t i = 0; i < n_tasks; i++) {
        if (known_end(&tasks[i], n_nodes))
            tmp[np++] = (end_ix){tasks[i].end_s, i};
        else if (tasks[i].node < n_nodes && free_[tasks[i].node].v[DS_RES_CPU] > INT64_MIN / 8)
            ix->n_unknown++; /* its node within reach (not marked out of it) */
    }
    qsort(tmp, np, sizeof *tmp, cmp_end);
    /* A node's room is what it has beyond its requests: an end on a node over its capacity (or
     * one the caller marks as out of reach with a very negative free room) adds only what brings
     * the node above zero. */
    ds_res *node_room = calloc(n_nodes ? n_nodes : 1, sizeof *node_room);
    if (node_room == NULL) {
        free(tmp);
        ds_room_index_free(ix);
        return ds_err_set(err, "room index: out of memory (%zu nodes)", n_nodes);
    }
    if (n_nodes > 0)
        memcpy(node_room, free_, n_nodes * sizeof *node_room);
    ds_res room = ix->pool_free;
    for (size_t k = 0; k < np; k++) {
        const ds_room_task *t = &tasks[tmp[k].idx];
        ds_res *nr = &node_room[t->node];
        for (int d = 0; d < DS_RES_N; d++) {
            int64_t before = nr->v[d] > 0 ? nr->v[d] : 0;
            if (__builtin_add_overflow(nr->v[d], t->request.v[d], &nr->v[d]))
                nr->v[d] = INT64_MAX;
            int64_t after = nr->v[d] > 0 ? nr->v[d] : 0;
            if (__builtin_add_overflow(room.v[d], after - before, &room.v[d]))
                room.v[d] = INT64_MAX;
        }
        ix->pool_end[k] = tmp[k].end;
        ix->pool_room[k] = room;
    }
    ix->n_pool = np;
    free(node_room);
    free(tmp);
    return 0;
}

double ds_room_pool_wait(const ds_room_index *ix, const ds_res *demand)
{
    if (ds_res_fits(demand, &ix->pool_free))
        return 0.0;
    /* The pooled room only grows with time: the first end at which it covers the demand. */
    size_t lo = 0, hi = ix->n_pool;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ds_res_fits(demand, &ix->pool_room[mid]))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo < ix->n_pool ? ix->pool_end[lo] : INFINITY;
}

double ds_room_wait(const ds_room_index *ix, const ds_room_task *tasks, const bool *gone,
                    const ds_res *free_, const ds_res *request)
{
    for (size_t n = 0; n < ix->n_nodes; n++)
        if (ds_res_fits(request, &free_[n]))
            return 0.0;
    double best = INFINITY;
    for (size_t k = 0; k < ix->n_node_order; k++) {
        size_t n = ix->node_order[k];
        /* Nodes come by their earliest end, a lower bound of when they can offer room. */
        if (tasks[ix->order[ix->start[n]]].end_s >= best)
            break;
        ds_res room = free_[n];
        for (size_t j = ix->start[n]; j < ix->start[n + 1]; j++) {
            const ds_room_task *t = &tasks[ix->order[j]];
            if (t->end_s >= best)
                break;
            if (gone != NULL && gone[ix->order[j]])
                continue;
            ds_res_add(&room, &t->request);
            if (ds_res_fits(request, &room)) {
                best = t->end_s;
                break;
            }
        }
    }
    return best;
}

double ds_room_preemptor_wait(const ds_room_index *ix, const ds_room_task *tasks, const bool *gone,
                              const ds_res *free_, const ds_res *request, const ds_res *ahead)
{
    ds_res demand = *ahead;
    ds_res_add(&demand, request);
    double own = ds_room_wait(ix, tasks, gone, free_, request);
    double queued = ds_room_pool_wait(ix, &demand);
    double wait = queued > own ? queued : own;
    return isinf(wait) && ix->n_unknown > 0 ? NAN : wait;
}

double ds_room_saved_wait(const ds_room_index *ix, const ds_room_task *tasks, const bool *gone,
                          const ds_res *free_, const ds_res *request, const ds_res *ahead,
                          const ds_res *ahead_gated)
{
    double wait = ds_room_preemptor_wait(ix, tasks, gone, free_, request, ahead);
    if (!isinf(wait))
        return wait;
    ds_res queued = *ahead; /* the tasks ahead in kube-scheduler's queue */
    ds_res_sub(&queued, ahead_gated);
    for (int k = 0; k < DS_RES_N; k++)
        if (queued.v[k] < 0)
            queued.v[k] = 0;
    double q = ds_room_preemptor_wait(ix, tasks, gone, free_, request, &queued);
    return isinf(q) ? q : NAN;
}
