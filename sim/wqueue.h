/* wqueue.h: the scheduler's waiting queue: pending pods ordered by a policy's key, with the query
 * the scheduling loop needs: "the first pod in queue order whose request fits these free
 * resources". A treap (randomised balanced search tree) keyed by (k[0], ..., k[5], seq),
 * augmented with subtree sizes (for ranks) and component-wise minimum requests (to prune the fit
 * search). Insert, remove, rank: O(log n) expected; re-keying every entry and rebuilding: O(n log
 * n). */
#ifndef DAGSCHED_SIM_WQUEUE_H
#define DAGSCHED_SIM_WQUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "resources.h"

#define SIM_WQ_NONE UINT32_MAX

#define SIM_QKEY_N 6

typedef struct sim_qkey {
    double k[SIM_QKEY_N]; /* ascending, lexicographic (0 where a policy needs fewer) */
    uint64_t seq;         /* unique tie-breaker, compared last */
} sim_qkey;

typedef struct sim_wq_node {
    sim_qkey key;
    ds_res req;
    int64_t minreq[DS_RES_N];
    uint32_t left, right;
    uint32_t prio;
    uint32_t size;
    uint32_t job, task;
    uint32_t live;   /* 1 while in the queue; free-list link otherwise */
    uint32_t active; /* entries of the subtree that are not parked */
    uint8_t parked;  /* kept in order but skipped by the fit and head queries */
} sim_wq_node;

typedef struct sim_wqueue {
    sim_wq_node *nodes;
    uint32_t cap, used;
    uint32_t free_head;
    uint32_t root;
    uint32_t count;
    uint64_t rng;
    uint32_t *scratch; /* rebuild buffers */
    uint32_t *scratch2;
    uint32_t scratch_cap;
} sim_wqueue;

int sim_wq_init(sim_wqueue *q, uint64_t seed);
void sim_wq_free(sim_wqueue *q);

/* Insert; *handle identifies the entry until it is removed. -1 on allocation failure. */
int sim_wq_insert(sim_wqueue *q, sim_qkey key, uint32_t job, uint32_t task, const ds_res *req,
                  uint32_t *handle);
void sim_wq_remove(sim_wqueue *q, uint32_t handle);

/* Parking: a parked entry keeps its place in the order (rank, collect, size count it) but the
 * fit queries and sim_wq_first_active skip it (kube-scheduler's pods backing off or in the
 * unschedulable pool). Entries are inserted unparked. O(log n) expected. */
void sim_wq_set_parked(sim_wqueue *q, uint32_t handle, int parked);
/* The same for n entries at once: O(n log size), or O(size) when that is less. */
void sim_wq_set_parked_many(sim_wqueue *q, const uint32_t *handles, size_t n, int parked);
/* Move the entry to a new key, parked or not (a remove and an insert); *handle is updated. -1 on
 * allocation failure. */
int sim_wq_reinsert(sim_wqueue *q, uint32_t *handle, sim_qkey key, int parked);
/* First entry in queue order that is not parked, or SIM_WQ_NONE. */
uint32_t sim_wq_first_active(const sim_wqueue *q);
/* Entries that are not parked. */
size_t sim_wq_active(const sim_wqueue *q);

/* First unparked entry in queue order whose request fits free_ component-wise, or SIM_WQ_NONE. */
uint32_t sim_wq_first_fit(const sim_wqueue *q, const ds_res *free_);
/* First unparked entry at position >= start in queue order whose request fits free_, or
 * SIM_WQ_NONE. */
uint32_t sim_wq_first_fit_from(const sim_wqueue *q, const ds_res *free_, size_t start);
/* 0-based position of the entry in queue order. */
size_t sim_wq_rank(const sim_wqueue *q, uint32_t handle);
/* Number of entries whose key comes before `key` (seq included in the comparison). */
size_t sim_wq_count_before(const sim_wqueue *q, const sim_qkey *key);
size_t sim_wq_size(const sim_wqueue *q);

/* Re-keying: change keys with sim_wq_set_key (the tree is invalid meanwhile), then call
 * sim_wq_rebuild before any other operation. */
void sim_wq_set_key(sim_wqueue *q, uint32_t handle, sim_qkey key);
int sim_wq_rebuild(sim_wqueue *q);

/* Handles of all entries in queue order into out (room for sim_wq_size entries); returns count. */
size_t sim_wq_collect(const sim_wqueue *q, uint32_t *out);

/* The first k handles in queue order into out; returns how many. */
size_t sim_wq_collect_first(const sim_wqueue *q, uint32_t *out, size_t k);

/* Does entry a come before entry b in queue order? */
int sim_wq_before(const sim_wqueue *q, uint32_t a, uint32_t b);

static inline const sim_wq_node *sim_wq_get(const sim_wqueue *q, uint32_t h)
{
    return &q->nodes[h];
}

#endif
