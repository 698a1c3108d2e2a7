/* cache.h: a thread-safe store of cached objects keyed by namespace/name, with secondary indexes
 * (pods by node name, pods by job key). Readers get references (snapshots), never pointers that a
 * concurrent update could free. Informers own one cache each; callers read it through the
 * informer. */
#ifndef DAGSCHED_KUBE_CACHE_H
#define DAGSCHED_KUBE_CACHE_H

#include <stddef.h>

#include "objects.h"

typedef enum {
    KUBE_INDEX_POD_NODE = 0, /* value: spec.nodeName */
    KUBE_INDEX_POD_JOB = 1,  /* value: "<namespace>/<job key>" */
    KUBE_INDEX_MAX = 2
} kube_index;

typedef struct kube_cache kube_cache;

/* A list of object references; release with kube_obj_list_free. */
typedef struct kube_obj_list {
    const kube_meta **items;
    size_t n;
} kube_obj_list;

void kube_obj_list_free(kube_obj_list *l);

/* Move every reference of src to the end of dst; src is left empty. 0, or -1 when out of memory
 * (both lists unchanged). */
int kube_obj_list_append(kube_obj_list *dst, kube_obj_list *src);

/* NULL on allocation failure. Pods get both indexes; other kinds none. */
kube_cache *kube_cache_new(kube_kind kind);
void kube_cache_free(kube_cache *c);

/* Insert or replace (same namespace/name). Takes over the caller's reference to obj; *old receives
 * the replaced object's reference (caller releases it) or NULL. -1 only on allocation failure,
 * in which case the cache is unchanged and the caller keeps its reference. */
int kube_cache_put(kube_cache *c, const kube_meta *obj, const kube_meta **old);
/* Remove; *old receives the removed object's reference or NULL when absent. */
void kube_cache_remove(kube_cache *c, const char *ns, const char *name, const kube_meta **old);
/* A new reference to the object, or NULL. ns is NULL for cluster-scoped kinds. */
const kube_meta *kube_cache_get(kube_cache *c, const char *ns, const char *name);
size_t kube_cache_size(kube_cache *c);
/* Snapshot of every object. -1 on allocation failure. */
int kube_cache_list(kube_cache *c, kube_obj_list *out);
/* Snapshot of the objects whose index value equals value. */
int kube_cache_by_index(kube_cache *c, kube_index index, const char *value, kube_obj_list *out);
/* Bytes held by the cache's own tables (not the objects). */
size_t kube_cache_table_bytes(kube_cache *c);

/* Index key of a pod for KUBE_INDEX_POD_JOB: "<ns>/<job>" into buf; 0 when it has a job key. */
int kube_pod_job_index_key(const char *ns, const char *job_key, char *buf, size_t size);

#endif
