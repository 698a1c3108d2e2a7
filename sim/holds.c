/* holds.c: room held for upcoming tasks in the simulation (policies with `gated`: what dagsched
 * ships). When a task of a job with a deadline ends and one of its downstream tasks becomes ready,
 * the room it freed on its node is that task's for DS_UPCOMING_HOLD_S (lib/upcoming.h), while the
 * task's pod exists and is not bound; the next tasks of one upstream task share the room it freed
 * (ds_upcoming_share, in task order: what a sibling holds is not held again):
 *
 *  - the controller's release rule decides it first, before the pods in kube-scheduler's queue
 *    (ds_admit_task.first, release.c);
 *  - the extender's filter refuses the node to the pods of other jobs that do not fit beside the
 *    held room (lib/room_hold.h, ds_room_hold_applies: the namespace rule and the time bounds
 *    are the extender's own), so a pod already in kube-scheduler's queue cannot take it.
 *
 * As on the cluster, a task whose pod does not exist yet (a workflow engine creates it
 * create_latency_s after the upstream task ends) holds nothing: a batch/v1 Job's request is not
 * known before its pod. A gang member released with its gang holds the room planned for it the
 * same way (dagsched.io/reserved-node, DS_GANG_HOLD_S or the cooldown when shorter, lib/gang.h):
 * other jobs' pods are kept off it until the member binds (the extender exempts only the holder
 * itself; here its job, as for upcoming tasks). Holds for preemptors are not modelled: DSP
 * preemption binds its preemptor at once. The extender recomputes the shares from its snapshot
 * (a sibling bound elsewhere leaves its share to the next one); here each share is fixed when the
 * task becomes ready. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_state.h"
#include "grow.h"
#include "room_hold.h"
#include "upcoming.h"

/* May the task's hold apply now or later: it has not run out, and the task's pod is still to be
 * created (DELAYED) or is not bound? */
static bool kept(const engine *e, const sim_hold *h)
{
    const ejob *j = e->jobs[h->job];
    if (j == NULL || !(e->now < h->until))
        return false;
    uint8_t s = j->t[h->task].state;
    return s == T_DELAYED || s == T_GATED || s == T_RELEASING || s == T_QUEUED;
}

/* Does the task's hold apply now: kept, and its pod exists? */
static bool live(const engine *e, const sim_hold *h)
{
    return kept(e, h) && e->jobs[h->job]->t[h->task].state != T_DELAYED;
}

void sim_holds_prune(engine *e)
{
    size_t k = 0;
    for (size_t i = 0; i < e->n_holds; i++)
        if (kept(e, &e->holds[i]))
            e->holds[k++] = e->holds[i];
    e->n_holds = k;
}

/* Append a hold. 0, or -1 when out of memory. */
static int push_hold(engine *e, sim_hold h)
{
    if (e->n_holds == e->cap_holds) {
        sim_hold *g = ds_grow(e->holds, &e->cap_holds, sizeof *g, 64);
        if (g == NULL)
            return sim_eng_oom(e, "room holds");
        e->holds = g;
    }
    e->holds[e->n_holds++] = h;
    return 0;
}

int sim_hold_add(engine *e, uint32_t job, uint32_t task, uint32_t from, uint32_t node)
{
    const ejob *j = e->jobs[job];
    if (!e->p->gated || !e->c->room_holds || j == NULL || !isfinite(j->deadline))
        return 0;
    sim_holds_prune(e);
    /* The room `from` freed, less the shares of its next tasks held before this one. */
    ds_res left = j->t[from].req;
    for (size_t i = 0; i < e->n_holds; i++)
        if (e->holds[i].job == job && e->holds[i].from == from)
            ds_res_sub(&left, &e->holds[i].held);
    ds_res share = ds_upcoming_share(&left, &j->t[task].req);
    if (ds_res_is_zero(&share))
        return 0; /* its siblings hold what `from` freed */
    return push_hold(e, (sim_hold){.job = job,
                                   .task = task,
                                   .from = from,
                                   .node = node,
                                   .held = share,
                                   .until = e->now + DS_UPCOMING_HOLD_S});
}

int sim_hold_gang(engine *e, uint32_t job, uint32_t task, uint32_t node, double for_s)
{
    const ejob *j = e->jobs[job];
    if (!e->p->gated || !e->c->room_holds || j == NULL || !(for_s > 0))
        return 0;
    sim_holds_prune(e);
    return push_hold(e, (sim_hold){.job = job,
                                   .task = task,
                                   .from = UINT32_MAX,
                                   .node = node,
                                   .held = j->t[task].req,
                                   .until = e->now + for_s});
}

bool sim_hold_upcoming(const engine *e, uint32_t job, uint32_t task)
{
    for (size_t i = 0; i < e->n_holds; i++)
        if (e->holds[i].job == job && e->holds[i].task == task && live(e, &e->holds[i]))
            return true;
    return false;
}

/* Whether hold h keeps a pod of job `job` off its room now (the extender's rule). */
static bool applies(const engine *e, const sim_hold *h, uint32_t job)
{
    if (!live(e, h))
        return false;
    char holder[16], pod_job[16];
    snprintf(holder, sizeof holder, "%u", (unsigned)h->job);
    snprintf(pod_job, sizeof pod_job, "%u", (unsigned)job);
    const ds_room_hold rh = {.ns = e->tenant_name[e->jobs[h->job]->tenant],
                             .job = holder,
                             .node = h->node,
                             .request = h->held,
                             .until = h->until};
    return ds_room_hold_applies(&e->c->pol, &rh, e->tenant_name[e->jobs[job]->tenant], NULL,
                                pod_job, e->now);
}

bool sim_hold_refuses(engine *e, uint32_t node, uint32_t job, const ds_res *req,
                      const ds_res *free_)
{
    if (e->n_holds == 0)
        return false;
    ds_res room = *free_;
    bool held = false;
    for (size_t i = 0; i < e->n_holds; i++) {
        const sim_hold *h = &e->holds[i];
        if (h->node != node || !applies(e, h, job))
            continue;
        ds_res_sub(&room, &h->held);
        held = true;
    }
    return held && !ds_res_fits(req, &room);
}

void sim_holds_free(engine *e)
{
    free(e->hold_allowed);
    e->hold_allowed = NULL;
    free(e->holds);
    e->holds = NULL;
    e->n_holds = e->cap_holds = 0;
}
