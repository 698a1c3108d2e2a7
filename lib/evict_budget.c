/* evict_budget.c: the eviction limits of spec.preemption (see evict_budget.h). */
#include "evict_budget.h"

#include <math.h>
#include <string.h>

bool ds_evict_in_window(double at, double now, double window_s)
{
    return now - at < window_s - DS_EVICT_SLACK_S;
}

bool ds_evict_cooling(const ds_policy *p, double last, double now)
{
    return !isnan(last) && now - last < p->cooldown_s;
}

/* Counting evictions of the last window_s seconds, of one namespace / node when given. */
static size_t count(const ds_evict_budget *b, double window_s, const char *ns, const char *node)
{
    size_t c = 0;
    for (size_t i = 0; i < b->history.n; i++) {
        ds_evict_mark m = {0};
        if (!b->history.get(b->history.ctx, i, &m) || !ds_evict_in_window(m.at, b->now, window_s))
            continue;
        if (ns != NULL && (m.ns == NULL || strcmp(m.ns, ns) != 0))
            continue;
        if (node != NULL && (m.node == NULL || strcmp(m.node, node) != 0))
            continue;
        c++;
    }
    return c;
}

static size_t left(size_t max, size_t used)
{
    return used >= max ? 0 : max - used;
}

void ds_evict_budget_init(ds_evict_budget *b, const ds_policy *p, ds_evict_history h, double now)
{
    b->now = now;
    b->policy = p;
    b->history = h;
    if (h.get == NULL)
        b->history.n = 0;
    b->total_left = left(p->max_evictions_per_minute, count(b, DS_EVICT_MINUTE_S, NULL, NULL));
}

size_t ds_evict_budget_namespace_left(const ds_evict_budget *b, const char *ns)
{
    return left(b->policy->max_evictions_per_namespace, count(b, DS_EVICT_MINUTE_S, ns, NULL));
}

size_t ds_evict_budget_node_left(const ds_evict_budget *b, const char *node)
{
    return left(b->policy->max_evictions_per_node,
                count(b, b->policy->preemption.epoch_s, NULL, node));
}

bool ds_evict_budget_node_long_evicted(const ds_evict_budget *b, const char *node)
{
    if (node == NULL)
        return false;
    for (size_t i = 0; i < b->history.n; i++) {
        ds_evict_mark m = {0};
        if (b->history.get(b->history.ctx, i, &m) && m.long_task && m.node != NULL &&
            strcmp(m.node, node) == 0 &&
            ds_evict_in_window(m.at, b->now, b->policy->long_task_window_s))
            return true;
    }
    return false;
}

bool ds_evict_task_left(const ds_policy *p, size_t evictions)
{
    return p->max_evictions_per_task == 0 || evictions < p->max_evictions_per_task;
}

double ds_evict_budget_window(const ds_policy *p)
{
    double w = DS_EVICT_MINUTE_S;
    if (p->long_task_window_s > w)
        w = p->long_task_window_s;
    if (p->preemption.epoch_s > w)
        w = p->preemption.epoch_s;
    if (p->cooldown_s > w)
        w = p->cooldown_s;
    return w;
}
