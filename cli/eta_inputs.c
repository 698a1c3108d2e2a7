/* eta_inputs.c: the room, the release queue and a job's ready tasks off the plugin's snapshot,
 * for the ETA (see eta_inputs.h). */
#include "eta_inputs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guards.h"
#include "release.h"
#include "strmap.h"

#define OUT_OF_REACH (INT64_MIN / 4) /* a node no task can use (lib/room.h) */

/* Task t of job ji's request while it waits: its unbound pod's, its suspended batch Job's, or its
 * Argo template's. false when none states it (no pod yet). */
static bool waiting_request(const ctl_snapshot *s, size_t ji, size_t t, ds_res *out)
{
    const ds_job *j = &s->js.jobs[ji];
    const ctl_pod *p = cli_view_task_pod(s, j, t);
    if (p != NULL && p->node[0] == '\0') {
        *out = p->request;
        return true;
    }
    for (size_t k = 0; k < s->n_job; k++)
        if (s->job[k].task.job == ji && s->job[k].task.task == t && s->job[k].suspended) {
            *out = s->job[k].request;
            return true;
        }
    if (j->node != NULL && j->node[t].has_request) {
        *out = j->node[t].request;
        return true;
    }
    return false;
}

/* The waiting tasks of every valid job with a known request, by queue position (the positions
 * are 0 .. js.n_waiting - 1, one a task). */
static int build_queue(const ctl_snapshot *s, cli_eta_inputs *in, ds_err *err)
{
    size_t n = s->js.n_waiting;
    ds_res *req = calloc(n ? n : 1, sizeof *req);
    bool *known = calloc(n ? n : 1, sizeof *known);
    in->q_pos = calloc(n ? n : 1, sizeof *in->q_pos);
    in->q_sum = calloc(n + 1, sizeof *in->q_sum);
    if (req == NULL || known == NULL || in->q_pos == NULL || in->q_sum == NULL) {
        free(req);
        free(known);
        return ds_err_set(err, "ETA: out of memory (%zu waiting tasks)", n);
    }
    for (size_t ji = 0; ji < s->js.n_jobs; ji++) {
        const ds_job *j = &s->js.jobs[ji];
        for (size_t t = 0; j->valid && t < j->dag.n; t++) {
            size_t pos = s->queue_pos[s->pos_base[ji] + t];
            if (j->status[t].state == DS_TASK_WAITING && pos < n)
                known[pos] = waiting_request(s, ji, t, &req[pos]);
        }
    }
    size_t m = 0;
    for (size_t pos = 0; pos < n; pos++) {
        if (!known[pos])
            continue;
        in->q_pos[m] = pos;
        in->q_sum[m + 1] = in->q_sum[m];
        ds_res_add(&in->q_sum[m + 1], &req[pos]);
        m++;
    }
    in->n_q = m;
    free(req);
    free(known);
    return 0;
}

/* Each node's free room and the running DAG tasks (ds_room_task.node: the node's index). */
static int build_room(const ctl_snapshot *s, cli_eta_inputs *in, ds_err *err)
{
    ds_strmap names;
    in->free_ = calloc(s->n_node ? s->n_node : 1, sizeof *in->free_);
    in->running = calloc(s->n_pod ? s->n_pod : 1, sizeof *in->running);
    if (in->free_ == NULL || in->running == NULL || ds_strmap_init(&names, s->n_node) != 0)
        return ds_err_set(err, "ETA: out of memory (%zu nodes, %zu pods)", s->n_node, s->n_pod);
    for (size_t n = 0; n < s->n_node; n++) {
        in->free_[n] = s->node[n].allocatable;
        if (ds_strmap_put(&names, s->node[n].name, strlen(s->node[n].name), n, NULL) < 0) {
            ds_strmap_free(&names);
            return ds_err_set(err, "ETA: more nodes than expected (%zu)", s->n_node);
        }
    }
    size_t nr = 0;
    for (size_t i = 0; i < s->n_pod; i++) {
        const ctl_pod *p = &s->pod[i];
        size_t n;
        if (p->state != CTL_POD_BOUND || ds_strmap_get(&names, p->node, strlen(p->node), &n) != 0)
            continue;
        ds_res_sub(&in->free_[n], &p->request);
        if (p->task.job != DS_NO_TASK && p->task.state == DS_TASK_RUNNING && p->task.evaluated)
            in->running[nr++] = (ds_room_task){n, p->task.eval.t_rem_s, p->request};
    }
    ds_strmap_free(&names);
    for (size_t n = 0; n < s->n_node; n++)
        if (!s->node[n].schedulable)
            for (int k = 0; k < DS_RES_N; k++)
                in->free_[n].v[k] = OUT_OF_REACH;
    in->all = (cli_room){
        .free_ = in->free_, .n_nodes = s->n_node, .running = in->running, .n_running = nr};
    in->plain = calloc(s->n_node ? s->n_node : 1, sizeof *in->plain);
    in->free_plain = calloc(s->n_node ? s->n_node : 1, sizeof *in->free_plain);
    if (in->plain == NULL || in->free_plain == NULL)
        return ds_err_set(err, "ETA: out of memory (%zu nodes)", s->n_node);
    ctl_pod none;
    memset(&none, 0, sizeof none);
    for (size_t n = 0; n < s->n_node; n++)
        in->plain[n] = ctl_guard_node_eligible(&none, &s->node[n]);
    return cli_room_only(&in->all, in->plain, in->free_plain, &in->room, err);
}

int cli_eta_inputs_build(const cli_view *v, const char *missing, cli_eta_inputs *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    if (build_queue(&v->snap, out, err) != 0) {
        cli_eta_inputs_free(out);
        return -1;
    }
    if (missing != NULL) {
        snprintf(out->missing, sizeof out->missing, "%s", missing);
        return 0;
    }
    if (build_room(&v->snap, out, err) != 0) {
        cli_eta_inputs_free(out);
        return -1;
    }
    out->room_known = true;
    return 0;
}

void cli_eta_inputs_free(cli_eta_inputs *in)
{
    if (in->room_known)
        cli_room_free(&in->room);
    free(in->free_);
    free(in->running);
    free(in->plain);
    free(in->free_plain);
    free(in->q_pos);
    free(in->q_sum);
    memset(in, 0, sizeof *in);
}

/* Why the controller holds a gated pod besides room, from its waiting-reason; NULL for room
 * (or no reason, or one the controller did not write). */
static const char *held_why(const ctl_pod *p)
{
    if (p == NULL || p->state != CTL_POD_GATED)
        return NULL;
    switch (ctl_wait_reason_of(p->waiting_reason)) {
    case CTL_WAIT_LIMIT:
        return "the controller holds it: maxConcurrentReleases tasks released and not yet "
               "running";
    case CTL_WAIT_STARVING:
        return "the controller holds it behind a starving task";
    case CTL_WAIT_UNLISTED:
        return "the controller holds it until Argo lists it";
    default:
        return NULL;
    }
}

/* Whether pod p may be kept off some node a pod without constraints may use (as
 * controller/release.c judges it). */
static bool constrained(const ctl_pod *p)
{
    return p != NULL &&
           (p->n_node_selector > 0 || p->has_required_affinity || p->n_tolerations > 0 ||
            (p->affinity_error != NULL && p->affinity_error[0] != '\0'));
}

/* The nodes the constrained pod p may use, as the controller's release judges them
 * (controller/release.c): a required node affinity it could not decode is left to
 * kube-scheduler. true when they differ from the plain ones. */
static bool eligible_of(const ctl_snapshot *s, const cli_eta_inputs *in, const ctl_pod *p,
                        bool *out)
{
    ctl_pod judged = *p;
    if (judged.affinity_error != NULL && judged.affinity_error[0] != '\0') {
        judged.affinity_error = "";
        judged.has_required_affinity = false;
    }
    bool differs = false;
    for (size_t n = 0; n < s->n_node; n++) {
        out[n] = ctl_guard_node_eligible(&judged, &s->node[n]);
        differs |= out[n] != in->plain[n];
    }
    return differs;
}

int cli_eta_of_job(const cli_eta_inputs *in, const cli_view *v, const ds_job *j, double path_s,
                   cli_eta *out, ds_err *err)
{
    const ctl_snapshot *s = &v->snap;
    size_t ji = (size_t)(j - s->js.jobs);
    cli_ready_task *r = calloc(j->dag.n ? j->dag.n : 1, sizeof *r);
    if (r == NULL)
        return ds_err_set(err, "ETA: out of memory (%zu tasks)", j->dag.n);
    /* The rooms of the ready tasks that may use other nodes than the plain ones. */
    size_t n_own = 0;
    cli_room *own = NULL;
    ds_res **own_free = NULL;
    bool *mask = NULL;
    size_t n = 0;
    int rc = 0;
    for (size_t k = 0; k < j->dag.n; k++) {
        size_t t = j->dag.topo[k];
        if (j->status[t].state != DS_TASK_WAITING)
            continue;
        cli_ready_task *rt = &r[n++];
        const ctl_pod *p = cli_view_task_pod(s, j, t);
        rt->name = j->dag.tasks[t].name;
        rt->path_s = j->eval[t].path_s;
        rt->request_known = waiting_request(s, ji, t, &rt->request);
        rt->held = held_why(p);
        if (in->room_known && constrained(p) && (p->node == NULL || p->node[0] == '\0')) {
            if (mask == NULL) {
                mask = calloc(s->n_node ? s->n_node : 1, sizeof *mask);
                own = calloc(j->dag.n, sizeof *own);
                own_free = calloc(j->dag.n, sizeof *own_free);
            }
            if (mask == NULL || own == NULL || own_free == NULL) {
                rc = ds_err_set(err, "ETA: out of memory (%zu nodes)", s->n_node);
                break;
            }
            if (eligible_of(s, in, p, mask)) {
                own_free[n_own] = calloc(s->n_node ? s->n_node : 1, sizeof **own_free);
                if (own_free[n_own] == NULL) {
                    rc = ds_err_set(err, "ETA: out of memory (%zu nodes)", s->n_node);
                    break;
                }
                if (cli_room_only(&in->all, mask, own_free[n_own], &own[n_own], err) != 0) {
                    free(own_free[n_own]);
                    rc = -1;
                    break;
                }
                rt->room = &own[n_own++];
            }
        }
        /* The entries before its place in the queue order. */
        size_t pos = s->queue_pos[s->pos_base[ji] + t], lo = 0, hi = in->n_q;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (in->q_pos[mid] < pos)
                lo = mid + 1;
            else
                hi = mid;
        }
        rt->ahead = in->q_sum[lo];
        rt->n_ahead = lo;
    }
    if (rc == 0)
        cli_eta_of(in->room_known ? &in->room : NULL, in->missing, r, n, path_s, out);
    for (size_t k = 0; k < n_own; k++) {
        cli_room_free(&own[k]);
        free(own_free[k]);
    }
    free(own);
    free(own_free);
    free(mask);
    free(r);
    return rc;
}
