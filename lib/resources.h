/* resources.h: the multi-resource vector that scheduling decisions work on.
 *
 * dagsched schedules on four resource types: cpu (milli-cores), memory (bytes), ephemeral-storage
 * (bytes) and gpu (whole devices, summed over the extended resource names the policy declares as
 * GPUs, e.g. nvidia.com/gpu). Arithmetic saturates instead of wrapping. */
#ifndef DAGSCHED_RESOURCES_H
#define DAGSCHED_RESOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { DS_RES_CPU = 0, DS_RES_MEMORY = 1, DS_RES_EPHEMERAL = 2, DS_RES_GPU = 3, DS_RES_N = 4 };

typedef struct ds_res {
    int64_t v[DS_RES_N];
} ds_res;

/* "cpu", "memory", "ephemeral-storage", "gpu". */
const char *ds_res_name(int kind);

/* Index for a Kubernetes resource name, or -1 when dagsched does not manage it. gpu_names lists the
 * extended resource names counted as gpu. */
int ds_res_kind(const char *k8s_name, const char *const *gpu_names, size_t n_gpu_names);

void ds_res_add(ds_res *acc, const ds_res *x); /* saturating */
void ds_res_sub(ds_res *acc, const ds_res *x); /* saturating; may go negative (over-committed) */
bool ds_res_fits(const ds_res *request, const ds_res *free_);
bool ds_res_is_zero(const ds_res *r);

/* The non-zero kinds of r as Kubernetes writes quantities, "cpu 1500m, memory 4Gi, gpu 1" (cpu
 * in cores when whole, else milli-cores; bytes with the largest binary suffix that divides them
 * exactly); "nothing" when r is zero. Always NUL-terminated (bufsize > 0); cut before the first
 * kind that does not fit. */
void ds_res_format(const ds_res *r, char *buf, size_t bufsize);

/* The same for the kinds that `like` has positive (zero values included: "cpu 0, gpu 0"), e.g. a
 * node's free room of the kinds a pod requests; ds_res_format when like has none. */
void ds_res_format_like(const ds_res *r, const ds_res *like, char *buf, size_t bufsize);

/* Demand normalised by capacity: out[k] = x[k] / cap[k] for every kind with cap[k] > 0, else 0. */
void ds_res_normalise(const ds_res *x, const ds_res *cap, double out[DS_RES_N]);

#endif
