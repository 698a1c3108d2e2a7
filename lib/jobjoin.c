/* jobjoin.c: joining job sets built from disjoint groups of objects into one set (see
 * ds_jobset_join in jobmodel.h), so that a caller can rebuild the jobs whose objects changed and
 * keep the others. */
#include <stdlib.h>
#include <string.h>

#include "jobmodel.h"
#include "jobstate.h"

static int oom(ds_jobset *out, ds_err *err)
{
    ds_jobset_free(out);
    return ds_err_set(err, "joining job sets: out of memory");
}

/* Copy n indexes adding base to each one that is not DS_NONE. */
static size_t *shift(ds_arena *a, const size_t *from, size_t n, size_t base)
{
    size_t *to = ds_arena_calloc(a, n ? n : 1, sizeof *to);
    if (to == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        to[i] = from[i] == DS_NONE ? DS_NONE : from[i] + base;
    return to;
}

/* Every key of part's pod index, with the pod's index shifted by base. */
static int join_pod_index(ds_jobset *out, const ds_jobset *part, size_t base)
{
    if (part->pod_index.slots == NULL)
        return 0;
    for (size_t k = 0; k <= part->pod_index.mask; k++) {
        const ds_strmap_slot *sl = &part->pod_index.slots[k];
        if (sl->key != NULL && ds_strmap_put_hashed(&out->pod_index, sl->key, sl->len, sl->hash,
                                                    sl->value + base, NULL) < 0)
            return -1;
    }
    return 0;
}

static int join_jobs(ds_jobset *out, const ds_jobset *part, size_t pod_base)
{
    for (size_t j = 0; j < part->n_jobs; j++) {
        const ds_job *from = &part->jobs[j];
        ds_job *to = &out->jobs[out->n_jobs];
        *to = *from;
        if (from->n_pods > 0 &&
            (to->pods = shift(&out->arena, from->pods, from->n_pods, pod_base)) == NULL)
            return -1;
        if (from->valid && from->dag.n > 0 && from->task_pod != NULL) {
            if ((to->task_pod = shift(&out->arena, from->task_pod, from->dag.n, pod_base)) ==
                    NULL ||
                (to->wait_rank =
                     ds_arena_calloc(&out->arena, from->dag.n, sizeof *to->wait_rank)) == NULL)
                return -1;
            for (size_t t = 0; t < from->dag.n; t++)
                to->wait_rank[t] = -1.0;
        }
        if (ds_strmap_put(&out->job_index, to->key, strlen(to->key), out->n_jobs, NULL) < 0)
            return -1;
        out->n_jobs++;
    }
    return 0;
}

int ds_jobset_join(const ds_jobset *const *parts, size_t n_parts, ds_jobset *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    out->joined = true;
    size_t n_jobs = 0, n_pods = 0, n_graphs = 0, n_wfs = 0;
    for (size_t k = 0; k < n_parts; k++) {
        n_jobs += parts[k]->n_jobs;
        n_pods += parts[k]->n_pods;
        n_graphs += parts[k]->n_graphs;
        n_wfs += parts[k]->n_wfs;
    }
    out->jobs = calloc(n_jobs ? n_jobs : 1, sizeof *out->jobs);
    out->pods = ds_arena_calloc(&out->arena, n_pods ? n_pods : 1, sizeof *out->pods);
    out->graphs = ds_arena_calloc(&out->arena, n_graphs ? n_graphs : 1, sizeof *out->graphs);
    out->wfs = ds_arena_calloc(&out->arena, n_wfs ? n_wfs : 1, sizeof *out->wfs);
    if (out->jobs == NULL || out->pods == NULL || out->graphs == NULL || out->wfs == NULL ||
        ds_strmap_init(&out->job_index, n_jobs ? n_jobs : 1) != 0 ||
        ds_strmap_init(&out->pod_index, n_pods ? n_pods : 1) != 0)
        return oom(out, err);
    size_t pod_base = 0;
    for (size_t k = 0; k < n_parts; k++) {
        const ds_jobset *p = parts[k];
        size_t job_base = out->n_jobs;
        for (size_t i = 0; i < p->n_pods; i++) {
            out->pods[out->n_pods + i] = p->pods[i];
            if (p->pods[i].job != DS_NONE)
                out->pods[out->n_pods + i].job += job_base;
        }
        for (size_t i = 0; i < p->n_graphs; i++) {
            out->graphs[out->n_graphs + i] = p->graphs[i];
            if (p->graphs[i].job != DS_NONE)
                out->graphs[out->n_graphs + i].job += job_base;
        }
        for (size_t i = 0; i < p->n_wfs; i++) {
            out->wfs[out->n_wfs + i] = p->wfs[i];
            if (p->wfs[i].job != DS_NONE)
                out->wfs[out->n_wfs + i].job += job_base;
        }
        if (join_jobs(out, p, pod_base) != 0 || join_pod_index(out, p, pod_base) != 0)
            return oom(out, err);
        out->n_pods += p->n_pods;
        out->n_graphs += p->n_graphs;
        out->n_wfs += p->n_wfs;
        pod_base += p->n_pods;
    }
    if (ds_jobset_rank_waiting(out, err) != 0) {
        ds_jobset_free(out);
        return -1;
    }
    return 0;
}
