/* kube_preempt.c: kube-scheduler's default priority preemption (see kube_preempt.h). */
#include "kube_preempt.h"

#include <stdlib.h>

/* More important first: higher priority, then earlier start, then lower index. */
static int more_important(const ds_kube_pod *pods, size_t a, size_t b)
{
    if (pods[a].priority != pods[b].priority)
        return pods[a].priority > pods[b].priority ? -1 : 1;
    if (pods[a].start_time != pods[b].start_time)
        return pods[a].start_time < pods[b].start_time ? -1 : 1;
    return a < b ? -1 : (a > b ? 1 : 0);
}

/* Insertion sort keeps this free of a global comparator context; per-node lists are short. */
static void sort_by_importance(const ds_kube_pod *pods, size_t *idx, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        size_t x = idx[i];
        size_t j = i;
        while (j > 0 && more_important(pods, x, idx[j - 1]) < 0) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = x;
    }
}

typedef struct node_pick {
    int32_t max_prio;
    long double prio_sum;
    size_t n;
    double earliest_top_start;
} node_pick;

/* -1 when a is the better node, 1 when b is, 0 when equal. */
static int compare_pick(const node_pick *a, const node_pick *b)
{
    if (a->max_prio != b->max_prio)
        return a->max_prio < b->max_prio ? -1 : 1;
    if (a->prio_sum != b->prio_sum)
        return a->prio_sum < b->prio_sum ? -1 : 1;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    if (a->earliest_top_start != b->earliest_top_start)
        return a->earliest_top_start > b->earliest_top_start ? -1 : 1;
    return 0;
}

int ds_kube_select_victims(const ds_res *request, int32_t priority, const ds_res *node_free,
                           size_t n_nodes, const ds_kube_pod *pods, size_t n_pods, size_t *victims,
                           size_t victims_cap, size_t *n_victims, size_t *node_out, ds_err *err)
{
    if (request == NULL || n_victims == NULL || node_out == NULL ||
        (n_nodes > 0 && node_free == NULL) || (n_pods > 0 && pods == NULL) ||
        (victims_cap > 0 && victims == NULL))
        return ds_err_set(err, "kube preemption: missing argument");
    for (size_t i = 0; i < n_pods; i++)
        if (pods[i].node >= n_nodes)
            return ds_err_set(err, "kube preemption: pod %zu: node index out of range (got %zu)", i,
                              pods[i].node);
    *n_victims = 0;
    if (n_pods == 0 || n_nodes == 0)
        return 0;

    /* Bucket candidate pods by node (counting sort), then work node by node. */
    size_t *start = calloc(n_nodes + 1, sizeof *start);
    size_t *cand = malloc(n_pods * sizeof *cand);
    size_t *work = malloc(n_pods * sizeof *work);
    if (start == NULL || cand == NULL || work == NULL) {
        free(start);
        free(cand);
        free(work);
        return ds_err_set(err, "kube preemption: out of memory (%zu pods)", n_pods);
    }
    for (size_t i = 0; i < n_pods; i++)
        if (pods[i].evictable && pods[i].priority < priority)
            start[pods[i].node + 1]++;
    for (size_t i = 0; i < n_nodes; i++)
        start[i + 1] += start[i];
    size_t *cursor = calloc(n_nodes, sizeof *cursor);
    if (cursor == NULL) {
        free(start);
        free(cand);
        free(work);
        return ds_err_set(err, "kube preemption: out of memory (%zu nodes)", n_nodes);
    }
    for (size_t i = 0; i < n_pods; i++)
        if (pods[i].evictable && pods[i].priority < priority)
            cand[start[pods[i].node] + cursor[pods[i].node]++] = i;
    free(cursor);

    int found = 0;
    node_pick best = {0};
    size_t best_node = 0;
    for (size_t nd = 0; nd < n_nodes; nd++) {
        size_t *list = cand + start[nd];
        size_t n = start[nd + 1] - start[nd];
        if (n == 0)
            continue;
        ds_res avail = node_free[nd];
        for (size_t i = 0; i < n; i++)
            ds_res_add(&avail, &pods[list[i]].request);
        if (!ds_res_fits(request, &avail))
            continue;
        sort_by_importance(pods, list, n);
        /* Reprieve the most important first while the pod still fits. */
        size_t nv = 0;
        for (size_t i = 0; i < n; i++) {
            ds_res trial = avail;
            ds_res_sub(&trial, &pods[list[i]].request);
            if (ds_res_fits(request, &trial))
                avail = trial;
            else
                work[nv++] = list[i];
        }
        if (nv == 0 || nv > victims_cap)
            continue;
        node_pick pk = {.max_prio = pods[work[0]].priority,
                        .prio_sum = 0,
                        .n = nv,
                        .earliest_top_start = pods[work[0]].start_time};
        for (size_t i = 0; i < nv; i++) {
            const ds_kube_pod *p = &pods[work[i]];
            pk.prio_sum += (long double)p->priority + 2147483648.0L;
            if (p->priority == pk.max_prio && p->start_time < pk.earliest_top_start)
                pk.earliest_top_start = p->start_time;
        }
        if (!found || compare_pick(&pk, &best) < 0) {
            found = 1;
            best = pk;
            best_node = nd;
            for (size_t i = 0; i < nv; i++)
                victims[i] = work[i];
            *n_victims = nv;
        }
    }
    free(start);
    free(cand);
    free(work);
    if (found)
        *node_out = best_node;
    return found;
}
