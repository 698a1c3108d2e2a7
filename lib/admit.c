/* admit.c: release as admission, which ready tasks to release against the nodes' free room (see
 * admit.h for the rule). */
#include "admit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mode_names[] = {"capacity", "all"};
static const char *const verdict_names[DS_ADMIT_VERDICT_N] = {"released", "lookahead", "no-room",
                                                              "behind-starving", "limit"};

const char *ds_admit_mode_name(ds_admit_mode m)
{
    if ((unsigned)m >= sizeof mode_names / sizeof mode_names[0])
        return "unknown";
    return mode_names[m];
}

int ds_admit_mode_parse(const char *name, ds_admit_mode *out)
{
    if (name == NULL)
        return -1;
    for (size_t i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++)
        if (strcmp(name, mode_names[i]) == 0) {
            *out = (ds_admit_mode)i;
            return 0;
        }
    return -1;
}

const char *ds_admit_verdict_name(ds_admit_verdict v)
{
    if ((unsigned)v >= DS_ADMIT_VERDICT_N)
        return "unknown";
    return verdict_names[v];
}

bool ds_admit_verdict_releases(ds_admit_verdict v)
{
    return v == DS_ADMIT_RELEASED || v == DS_ADMIT_LOOKAHEAD;
}

static bool may_use(const ds_admit_task *t, size_t k)
{
    return t->eligible == NULL || t->eligible[k];
}

/* Free room left after the request, as fractions of allocatable summed over kinds. */
static double leftover(const ds_res *request, const ds_res *free_, const ds_res *alloc)
{
    ds_res left = *free_;
    ds_res_sub(&left, request);
    double f[DS_RES_N];
    ds_res_normalise(&left, alloc, f);
    double s = 0;
    for (int k = 0; k < DS_RES_N; k++)
        s += f[k];
    return s;
}

/* Shortfall of the request on free room, as fractions of allocatable summed over kinds (a kind
 * without allocatable counts 1 when requested). */
static double shortfall(const ds_res *request, const ds_res *free_, const ds_res *alloc)
{
    double s = 0;
    for (int k = 0; k < DS_RES_N; k++) {
        if (request->v[k] <= 0 || request->v[k] <= free_->v[k])
            continue;
        if (alloc->v[k] <= 0) {
            s += 1.0;
            continue;
        }
        double gap = (double)request->v[k] - (double)free_->v[k];
        s += gap / (double)alloc->v[k];
    }
    return s;
}

static double free_sum(const ds_res *free_, const ds_res *alloc)
{
    double f[DS_RES_N];
    ds_res_normalise(free_, alloc, f);
    double s = 0;
    for (int k = 0; k < DS_RES_N; k++)
        s += f[k];
    return s;
}

/* The best-fitting node the task may use whose free room holds it, skipping reserved nodes when
 * `reserved` is given; SIZE_MAX when none. */
static size_t best_fit(const ds_admit_task *t, const ds_admit_node *nodes, const ds_res *free_,
                       size_t n_nodes, const size_t *reserved)
{
    size_t best = SIZE_MAX;
    double best_left = 0;
    for (size_t k = 0; k < n_nodes; k++) {
        if (!may_use(t, k) || !ds_res_fits(&t->request, &free_[k]))
            continue;
        if (reserved != NULL && reserved[k] != SIZE_MAX)
            continue;
        double l = leftover(&t->request, &free_[k], &nodes[k].allocatable);
        if (best == SIZE_MAX || l < best_left) {
            best = k;
            best_left = l;
        }
    }
    return best;
}

/* The node the task may use that comes closest to holding it; SIZE_MAX when it may use none. */
static size_t closest(const ds_admit_task *t, const ds_admit_node *nodes, const ds_res *free_,
                      size_t n_nodes)
{
    size_t best = SIZE_MAX;
    double best_short = 0, best_free = 0;
    for (size_t k = 0; k < n_nodes; k++) {
        if (!may_use(t, k))
            continue;
        double s = shortfall(&t->request, &free_[k], &nodes[k].allocatable);
        double f = free_sum(&free_[k], &nodes[k].allocatable);
        if (best == SIZE_MAX || s < best_short || (s == best_short && f > best_free)) {
            best = k;
            best_short = s;
            best_free = f;
        }
    }
    return best;
}

static void set_node(ds_admit_result *r, size_t node, const ds_res *free_)
{
    r->node = node;
    if (node != SIZE_MAX)
        r->node_free = free_[node];
}

int ds_admit_plan(const ds_admit_params *p, const ds_admit_node *nodes, size_t n_nodes,
                  const ds_admit_task *inflight, size_t n_inflight, const ds_admit_task *ready,
                  size_t n_ready, ds_admit_result *out, ds_admit_summary *summary, ds_err *err)
{
    if (p == NULL || (nodes == NULL && n_nodes > 0) || (inflight == NULL && n_inflight > 0) ||
        (ready == NULL && n_ready > 0) || (out == NULL && n_ready > 0))
        return ds_err_set(err, "admission: missing %s",
                          p == NULL                              ? "parameters"
                          : (nodes == NULL && n_nodes > 0)       ? "nodes"
                          : (inflight == NULL && n_inflight > 0) ? "in-flight tasks"
                          : (ready == NULL && n_ready > 0)       ? "ready tasks"
                                                                 : "results");
    ds_admit_summary sum;
    memset(&sum, 0, sizeof sum);
    for (size_t i = 0; i < n_ready; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].node = SIZE_MAX;
        out[i].blocker = SIZE_MAX;
    }
    size_t limit = p->max_concurrent;
    size_t in_flight = 0;
    for (size_t i = 0; i < n_inflight; i++)
        in_flight += inflight[i].room_only ? 0 : 1;
    if (p->mode == DS_ADMIT_ALL) {
        for (size_t i = 0; i < n_ready; i++) {
            bool full = limit > 0 && in_flight >= limit;
            out[i].verdict = full ? DS_ADMIT_HELD_LIMIT : DS_ADMIT_RELEASED;
            if (!full)
                in_flight++;
            sum.count[out[i].verdict]++;
        }
        if (summary != NULL)
            *summary = sum;
        return 0;
    }
    ds_res *free_ = NULL;
    size_t *reserved = NULL; /* reserved[k]: ready index of the starving task, SIZE_MAX: none */
    bool *kept = NULL;       /* kept[k]: room on node k went to an upcoming or first task */
    bool *early = NULL;      /* early[i]: ready task i was decided before the tasks in flight */
    if (n_nodes > 0 || n_ready > 0) {
        free_ = malloc((n_nodes ? n_nodes : 1) * sizeof *free_);
        reserved = malloc((n_nodes ? n_nodes : 1) * sizeof *reserved);
        kept = calloc(n_nodes ? n_nodes : 1, sizeof *kept);
        early = calloc(n_ready ? n_ready : 1, sizeof *early);
        if (free_ == NULL || reserved == NULL || kept == NULL || early == NULL) {
            free(free_);
            free(reserved);
            free(kept);
            free(early);
            return ds_err_set(err, "admission: out of memory for %zu nodes", n_nodes);
        }
    }
    for (size_t k = 0; k < n_nodes; k++) {
        free_[k] = nodes[k].free_;
        reserved[k] = SIZE_MAX;
    }
    /* Upcoming tasks and those marked first take the room before the tasks in flight. */
    for (size_t i = 0; i < n_ready; i++) {
        const ds_admit_task *t = &ready[i];
        ds_admit_result *r = &out[i];
        if (!t->upcoming && !t->first)
            continue;
        if (!t->upcoming && limit > 0 && in_flight >= limit)
            continue; /* decided with the others */
        size_t k = best_fit(t, nodes, free_, n_nodes, NULL);
        if (k == SIZE_MAX && !t->upcoming)
            continue; /* decided with the others */
        r->verdict = k != SIZE_MAX ? DS_ADMIT_RELEASED : DS_ADMIT_HELD_NO_ROOM;
        set_node(r, k != SIZE_MAX ? k : closest(t, nodes, free_, n_nodes), free_);
        if (k != SIZE_MAX) {
            ds_res_sub(&free_[k], &t->request);
            kept[k] = true;
            in_flight += t->upcoming ? 0 : 1;
        }
        early[i] = true;
        sum.count[r->verdict]++;
    }
    for (size_t i = 0; i < n_inflight; i++) {
        size_t k = best_fit(&inflight[i], nodes, free_, n_nodes, NULL);
        if (k == SIZE_MAX) {
            sum.inflight_unplaced += inflight[i].room_only ? 0 : 1;
            continue;
        }
        ds_res_sub(&free_[k], &inflight[i].request);
        sum.inflight_placed++;
    }
    size_t slots = p->lookahead > sum.inflight_unplaced ? p->lookahead - sum.inflight_unplaced : 0;
    for (size_t i = 0; i < n_ready; i++) {
        const ds_admit_task *t = &ready[i];
        ds_admit_result *r = &out[i];
        if (early[i])
            continue; /* decided before the tasks in flight */
        if (limit > 0 && in_flight >= limit) {
            r->verdict = DS_ADMIT_HELD_LIMIT;
            sum.count[r->verdict]++;
            continue;
        }
        size_t k = best_fit(t, nodes, free_, n_nodes, reserved);
        if (k != SIZE_MAX) {
            r->verdict = DS_ADMIT_RELEASED;
            set_node(r, k, free_);
            ds_res_sub(&free_[k], &t->request);
            in_flight++;
            sum.count[r->verdict]++;
            continue;
        }
        /* Fits no free node it may take. Which nodes could ever hold it, and is one of them
         * reserved by a starving task ahead? */
        size_t could = 0, blocked_on = SIZE_MAX, fits_reserved = SIZE_MAX, on_kept = SIZE_MAX;
        for (size_t n = 0; n < n_nodes; n++) {
            if (!may_use(t, n) || !ds_res_fits(&t->request, &nodes[n].allocatable))
                continue;
            could++;
            if (kept[n] && on_kept == SIZE_MAX)
                on_kept = n;
            if (reserved[n] != SIZE_MAX && blocked_on == SIZE_MAX)
                blocked_on = n;
            if (reserved[n] != SIZE_MAX && fits_reserved == SIZE_MAX &&
                ds_res_fits(&t->request, &free_[n]))
                fits_reserved = n;
        }
        size_t on = fits_reserved != SIZE_MAX ? fits_reserved : blocked_on;
        if (on != SIZE_MAX) {
            r->verdict = DS_ADMIT_HELD_STARVING;
            set_node(r, on, free_);
            r->blocker = reserved[on];
        } else {
            set_node(r, closest(t, nodes, free_, n_nodes), free_);
            if (could == 0) {
                r->verdict = DS_ADMIT_HELD_NO_ROOM;
                r->never_fits = true;
            } else if (on_kept != SIZE_MAX) {
                /* Released ahead of room, it would take the room kept for the upcoming task
                 * the moment it frees (kube-scheduler binds what is in its queue). */
                r->verdict = DS_ADMIT_HELD_NO_ROOM;
                set_node(r, on_kept, free_);
            } else if (slots > 0) {
                r->verdict = DS_ADMIT_LOOKAHEAD;
                slots--;
                in_flight++;
            } else {
                r->verdict = DS_ADMIT_HELD_NO_ROOM;
            }
        }
        sum.count[r->verdict]++;
        if (t->starving && could > 0)
            for (size_t n = 0; n < n_nodes; n++)
                if (reserved[n] == SIZE_MAX && may_use(t, n) &&
                    ds_res_fits(&t->request, &nodes[n].allocatable))
                    reserved[n] = i;
    }
    free(free_);
    free(reserved);
    free(kept);
    free(early);
    if (summary != NULL)
        *summary = sum;
    return 0;
}

void ds_admit_describe(const ds_admit_result *r, const ds_res *request, const char *node_name,
                       const char *blocker_name, size_t max_concurrent, char *buf, size_t bufsize)
{
    if (buf == NULL || bufsize == 0)
        return;
    char req[160], room[160];
    ds_res_format(request, req, sizeof req);
    ds_res_format_like(&r->node_free, request, room, sizeof room);
    bool has_node = r->node != SIZE_MAX && node_name != NULL;
    const char *nn = has_node ? node_name : "";
    switch (r->verdict) {
    case DS_ADMIT_RELEASED:
        if (has_node)
            snprintf(buf, bufsize, "fits on node %s", nn);
        else
            snprintf(buf, bufsize, "released");
        return;
    case DS_ADMIT_LOOKAHEAD:
    case DS_ADMIT_HELD_NO_ROOM: {
        const char *head =
            r->verdict == DS_ADMIT_LOOKAHEAD ? "released ahead of room (look-ahead)" : "no room";
        if (r->node == SIZE_MAX)
            snprintf(buf, bufsize, "%s: no node it may run on (node selector, affinity, taints)",
                     head);
        else if (r->never_fits)
            snprintf(buf, bufsize,
                     "%s: needs %s; larger than the allocatable of every node it may run on", head,
                     req);
        else
            snprintf(buf, bufsize, "%s: needs %s; most free room on node %s: %s", head, req, nn,
                     room);
        return;
    }
    case DS_ADMIT_HELD_STARVING:
        snprintf(buf, bufsize, "behind starving task %s, which waits for room on node %s",
                 blocker_name != NULL ? blocker_name : "?", has_node ? nn : "?");
        return;
    case DS_ADMIT_HELD_LIMIT:
        snprintf(buf, bufsize, "maxConcurrentReleases (%zu) tasks released and not yet running",
                 max_concurrent);
        return;
    case DS_ADMIT_VERDICT_N:
        break;
    }
    snprintf(buf, bufsize, "unknown");
}
