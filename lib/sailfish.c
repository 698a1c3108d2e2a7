/* sailfish.c: complementary multi-resource packing (dominant resource, the DV deviation of Eq. 1,
 * the complementary partner), best fit ("most matched server") and the extender's per-node score.
 *
 * Per-node score of one pod (see docs/model.md, "Packing"):
 *   - Used dimensions: the resource kinds with allocatable > 0 on the node. A pod requesting a kind
 *     the node does not have (allocatable 0) does not fit.
 *   - a_k = request_k / allocatable_k (the pod), b_k = requested_k / allocatable_k (the node's
 *     existing load, clamped to 0..1), both over the used dimensions only.
 *   - Complementarity C = DV(a, b) / (m / 2) with m the number of used dimensions (for vectors in
 *     [0,1]^m, DV = sum (a_k - b_k)^2 / 2 <= m / 2), clamped to 0..1; C = 0 when the node is empty,
 *     when the request is zero, or when the dominant resources of a and b are the same.
 *   - Best fit B = 1 - mean over used dimensions of the free fraction left after placement
 *     ((allocatable - requested - request) / allocatable, clamped to 0..1).
 *   - Speed S = criticality * speed / max_speed (0 when max_speed <= 0), clamped to 0..1.
 *   - total = (wc*C + wb*B + ws*S) / (wc + wb + ws) (0 when every weight is 0; negative or
 *     non-finite weights count as 0); score = round(10 * total), clamped to 0..10.
 *   - A node the pod does not fit scores 0 with fits = false and every component 0. */
#include "sailfish.h"

#include <math.h>

int ds_dominant(const double *d, size_t n)
{
    int best = -1;
    double best_v = 0.0;
    for (size_t k = 0; k < n; k++) {
        /* NaN compares false and is never dominant. */
        if (d[k] > best_v) {
            best_v = d[k];
            best = (int)k;
        }
    }
    return best;
}

double ds_dv(const double *dj, const double *di, size_t n)
{
    double sum = 0.0;
    for (size_t k = 0; k < n; k++) {
        double m = (dj[k] + di[k]) / 2.0;
        double a = dj[k] - m;
        double b = di[k] - m;
        sum += a * a + b * b;
    }
    return sum;
}

int ds_complementary_partner(const double *target, const double *cands, size_t n_cands, size_t n,
                             size_t *out)
{
    int dt = ds_dominant(target, n);
    if (dt < 0)
        return -1; /* a zero demand has no dominant resource to complement */
    int found = -1;
    double best = 0.0;
    for (size_t c = 0; c < n_cands; c++) {
        const double *row = cands + c * n;
        int dc = ds_dominant(row, n);
        if (dc < 0 || dc == dt)
            continue;
        double dv = ds_dv(row, target, n);
        if (found < 0 || dv > best) {
            best = dv;
            found = 0;
            if (out != NULL)
                *out = c;
        }
    }
    return found;
}

/* The pod fits the node's free resources, and the node has every kind the pod requests. */
static bool fits_node(const ds_res *request, const ds_res *free_, const ds_res *allocatable)
{
    for (int k = 0; k < DS_RES_N; k++)
        if (request->v[k] > 0 && allocatable->v[k] <= 0)
            return false;
    return ds_res_fits(request, free_);
}

static double clamp01(double x)
{
    if (!(x > 0.0)) /* also NaN */
        return 0.0;
    return x > 1.0 ? 1.0 : x;
}

/* Free fraction of kind k left after placing `request` on a node with `free_` (allocatable > 0). */
static double free_fraction_after(const ds_res *request, const ds_res *free_,
                                  const ds_res *allocatable, int k)
{
    double left = (double)free_->v[k] - (double)(request->v[k] > 0 ? request->v[k] : 0);
    return clamp01(left / (double)allocatable->v[k]);
}

int ds_best_fit(const ds_res *request, const ds_res *free_, const ds_res *allocatable,
                size_t n_nodes, size_t *out)
{
    int found = -1;
    double best = 0.0;
    for (size_t i = 0; i < n_nodes; i++) {
        if (!fits_node(request, &free_[i], &allocatable[i]))
            continue;
        double remaining = 0.0;
        for (int k = 0; k < DS_RES_N; k++)
            if (allocatable[i].v[k] > 0)
                remaining += free_fraction_after(request, &free_[i], &allocatable[i], k);
        if (found < 0 || remaining < best) {
            best = remaining;
            found = 0;
            if (out != NULL)
                *out = i;
        }
    }
    return found;
}

bool ds_node_fits(const ds_res *request, const ds_node_view *node)
{
    ds_res free_ = node->allocatable;
    ds_res_sub(&free_, &node->requested);
    return fits_node(request, &free_, &node->allocatable);
}

static double weight(double w)
{
    return isfinite(w) && w > 0.0 ? w : 0.0;
}

void ds_score_node(const ds_res *request, const ds_node_view *node, double criticality,
                   double max_speed, const ds_pack_params *p, ds_node_score *out)
{
    static const ds_pack_params defaults = {0.4, 0.4, 0.2};
    if (p == NULL)
        p = &defaults;
    *out = (ds_node_score){0};

    const ds_res *alloc = &node->allocatable;
    ds_res free_ = *alloc;
    ds_res_sub(&free_, &node->requested);
    if (!fits_node(request, &free_, alloc))
        return;
    out->fits = true;

    /* Pod demand and node load over the dimensions in use, normalised by allocatable: a kind the
     * node has but neither the pod requests nor the node's pods use (an idle GPU under a pod
     * without GPU) says nothing about packing, and counting it would dilute the others. */
    double a[DS_RES_N], b[DS_RES_N];
    size_t m = 0;
    double free_sum = 0.0;
    for (int k = 0; k < DS_RES_N; k++) {
        if (alloc->v[k] <= 0 || (request->v[k] <= 0 && node->requested.v[k] <= 0))
            continue;
        double cap = (double)alloc->v[k];
        a[m] = clamp01((double)request->v[k] / cap);
        b[m] = clamp01((double)node->requested.v[k] / cap);
        free_sum += free_fraction_after(request, &free_, alloc, k);
        m++;
    }

    if (m > 0) {
        int da = ds_dominant(a, m);
        int db = ds_dominant(b, m);
        if (da >= 0 && db >= 0 && da != db)
            out->complementarity = clamp01(ds_dv(a, b, m) / ((double)m / 2.0));
        out->best_fit = clamp01(1.0 - free_sum / (double)m);
    }

    if (isfinite(max_speed) && max_speed > 0.0)
        out->speed = clamp01(clamp01(criticality) * clamp01(node->speed / max_speed));

    double wc = weight(p->w_complementarity), wb = weight(p->w_best_fit), ws = weight(p->w_speed);
    double wsum = wc + wb + ws;
    double total = 0.0;
    if (wsum > 0.0 && isfinite(wsum))
        total = (wc * out->complementarity + wb * out->best_fit + ws * out->speed) / wsum;
    long s = lround(10.0 * clamp01(total));
    out->score = (int)(s < 0 ? 0 : s > 10 ? 10 : s);
}
