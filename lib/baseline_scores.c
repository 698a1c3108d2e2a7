/* baseline_scores.c: kube-scheduler LeastAllocated / BalancedAllocation scores and the Tetris
 * alignment score (see baseline_scores.h). */
#include "baseline_scores.h"

#include <math.h>

static const int kube_kinds[2] = {DS_RES_CPU, DS_RES_MEMORY};

int ds_kube_least_allocated(const ds_res *pod, const ds_res *requested, const ds_res *allocatable)
{
    int64_t sum = 0, weights = 0;
    for (int i = 0; i < 2; i++) {
        int k = kube_kinds[i];
        int64_t cap = allocatable->v[k];
        if (cap <= 0)
            continue;
        ds_res used = *requested;
        ds_res_add(&used, pod);
        int64_t req = used.v[k];
        int64_t score = 0;
        if (req <= cap) {
            /* (cap - req) * 100 / cap without overflow for byte-sized capacities. */
            long double s = (long double)(cap - req) * DS_KUBE_MAX_NODE_SCORE / (long double)cap;
            score = (int64_t)s;
        }
        sum += score;
        weights++;
    }
    if (weights == 0)
        return 0;
    return (int)(sum / weights);
}

int ds_kube_balanced_allocation(const ds_res *pod, const ds_res *requested,
                                const ds_res *allocatable)
{
    double f[2];
    int n = 0;
    ds_res used = *requested;
    ds_res_add(&used, pod);
    for (int i = 0; i < 2; i++) {
        int k = kube_kinds[i];
        if (allocatable->v[k] <= 0)
            continue;
        double x = (double)used.v[k] / (double)allocatable->v[k];
        if (x > 1.0)
            x = 1.0;
        if (x < 0.0)
            x = 0.0;
        f[n++] = x;
    }
    double std = 0.0;
    if (n == 2)
        std = fabs(f[0] - f[1]) / 2.0;
    return (int)((1.0 - std) * DS_KUBE_MAX_NODE_SCORE);
}

double ds_tetris_alignment(const ds_res *pod, const ds_res *requested, const ds_res *allocatable)
{
    double score = 0.0;
    for (int k = 0; k < DS_RES_N; k++) {
        double cap = (double)allocatable->v[k];
        if (cap <= 0)
            continue;
        double free_ = cap - (double)requested->v[k];
        if (free_ < 0)
            free_ = 0;
        score += ((double)pod->v[k] / cap) * (free_ / cap);
    }
    return score;
}
