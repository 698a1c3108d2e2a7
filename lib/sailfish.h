/* sailfish.h: Sailfish complementary multi-resource packing (Sailfish paper, section III-D/E) and
 * the extender's per-node score that combines it with best fit and DAG-aware node speed.
 * See docs/model.md for the mapping onto one-pod-at-a-time node scoring. */
#ifndef DAGSCHED_SAILFISH_H
#define DAGSCHED_SAILFISH_H

#include <stdbool.h>
#include <stddef.h>

#include "resources.h"

/* Index of the dominant (largest) component; ties go to the lowest index. -1 when all are <= 0. */
int ds_dominant(const double *d, size_t n);

/* Eq. 1: DV(j, i) = sum_k (d_jk - m_k)^2 + (d_ik - m_k)^2 with m_k = (d_jk + d_ik) / 2. */
double ds_dv(const double *dj, const double *di, size_t n);

/* The complementary partner of `target` among `cands` (n_cands rows of n values, row-major): the
 * candidate whose dominant resource differs from target's with the largest DV (ties: lowest index).
 * 0 and *out set when one exists, -1 otherwise. */
int ds_complementary_partner(const double *target, const double *cands, size_t n_cands, size_t n,
                             size_t *out);

/* Best fit ("most matched server"): among feasible nodes (free[i] fits request), the one left with
 * the least remaining resources (sum of normalised free fractions after placement). 0 and *out set,
 * -1 when no node fits. */
int ds_best_fit(const ds_res *request, const ds_res *free_, const ds_res *allocatable,
                size_t n_nodes, size_t *out);

typedef struct ds_pack_params {
    double w_complementarity; /* default 0.4 */
    double w_best_fit;        /* default 0.4 */
    double w_speed;           /* default 0.2 */
} ds_pack_params;

typedef struct ds_node_view {
    ds_res allocatable;
    ds_res requested; /* sum of requests of bound, unfinished pods */
    double speed;     /* processing rate (label or Eq. 1) */
} ds_node_view;

typedef struct ds_node_score {
    int score;              /* 0..10, the extender's range */
    bool fits;              /* the pod's request fits the node's free resources */
    double complementarity; /* 0..1 */
    double best_fit;        /* 0..1 */
    double speed;           /* 0..1, already multiplied by the pod's criticality */
} ds_node_score;

/* The pod's request fits the node's free resources (allocatable - requested), and the node has
 * every resource kind the pod requests. The fit test of ds_score_node. */
bool ds_node_fits(const ds_res *request, const ds_node_view *node);

/* Score one node for one pod. `criticality` in 0..1 says how much the pod should prefer fast nodes
 * (its DSP priority rank among pending tasks; 0 for pods outside any DAG); `max_speed` is the
 * fastest node's rate. A node the pod does not fit scores 0. Deterministic. */
void ds_score_node(const ds_res *request, const ds_node_view *node, double criticality,
                   double max_speed, const ds_pack_params *p, ds_node_score *out);

#endif
