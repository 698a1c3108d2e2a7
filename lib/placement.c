/* placement.c: per-pod placement decisions (filter verdicts, prioritize scores, preemption rules on
 * proposed victims); see placement.h. */
#include "placement.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool ds_node_verdict_passes(ds_node_verdict v)
{
    return v == DS_NODE_OK || v == DS_NODE_UNKNOWN;
}

double ds_place_finish_time(const ds_place_pod *pod, const ds_node_view *node, double now)
{
    double rt = pod->runtime_s > 0.0 && isfinite(pod->runtime_s) ? pod->runtime_s : 0.0;
    if (rt == 0.0)
        return now;
    if (!(node->speed > 0.0))
        return INFINITY;
    return now + rt / node->speed;
}

/* Would the pod finish by its level deadline on this node? Always when it has no deadline or no
 * runtime estimate. */
static bool in_time(const ds_place_pod *pod, const ds_node_view *node, double now)
{
    if (!(pod->level_deadline < INFINITY))
        return true; /* also NaN: no usable deadline */
    if (!(pod->runtime_s > 0.0) || !isfinite(pod->runtime_s))
        return true;
    return ds_can_finish_by(pod->runtime_s, node->speed, now, pod->level_deadline);
}

size_t ds_place_filter(const ds_place_pod *pod, const ds_node_view *const *nodes, size_t n,
                       double now, bool reject_late, ds_node_verdict *out)
{
    bool any_in_time = false;
    for (size_t i = 0; i < n; i++) {
        if (nodes[i] == NULL) {
            out[i] = DS_NODE_UNKNOWN;
            continue;
        }
        if (!ds_node_fits(&pod->request, nodes[i])) {
            out[i] = DS_NODE_NO_FIT;
            continue;
        }
        out[i] = DS_NODE_OK;
        if (reject_late && !any_in_time && in_time(pod, nodes[i], now))
            any_in_time = true;
    }
    size_t passing = 0;
    for (size_t i = 0; i < n; i++) {
        if (any_in_time && out[i] == DS_NODE_OK && !in_time(pod, nodes[i], now))
            out[i] = DS_NODE_TOO_SLOW;
        if (ds_node_verdict_passes(out[i]))
            passing++;
    }
    return passing;
}

int ds_place_shortfall(const ds_res *request, const ds_node_view *node)
{
    ds_res free_ = node->allocatable;
    ds_res_sub(&free_, &node->requested);
    for (int k = 0; k < DS_RES_N; k++) {
        if (request->v[k] <= 0)
            continue;
        if (node->allocatable.v[k] <= 0 || request->v[k] > free_.v[k])
            return k;
    }
    return -1;
}

void ds_place_prioritize(const ds_place_pod *pod, const ds_node_view *const *nodes, size_t n,
                         double max_speed, const ds_pack_params *p, int *scores)
{
    for (size_t i = 0; i < n; i++) {
        if (nodes[i] == NULL) {
            scores[i] = 0;
            continue;
        }
        ds_node_score s;
        ds_score_node(&pod->request, nodes[i], pod->criticality, max_speed, p, &s);
        scores[i] = s.score;
    }
}

ds_preemptor_mode ds_place_preemptor_mode(const ds_place_preemptor *a, const ds_preempt_params *p)
{
    if (a->task.job == DS_NO_TASK)
        return DS_PREEMPTOR_OUTSIDE;
    ds_urgency_in u = {.t_allow_s = a->task.t_allow_s,
                       .t_rem_s = a->task.t_rem_s,
                       .job_slack_s = a->task.job_known ? a->task.job_slack_s : NAN,
                       .job_path_s = a->task.job_known ? a->task.job_path_s : NAN,
                       .job_steps = a->task.job_steps,
                       .max_speed = a->fastest_speed,
                       .start_s = p->start_latency_s,
                       .epsilon_s = p->epsilon_s,
                       .wait_s = p->payoff && a->room_known ? a->room_wait_s : NAN};
    if (ds_task_urgent(&u))
        return DS_PREEMPTOR_URGENT;
    if (p->tau_s > 0.0 && a->task.t_wait_s >= p->tau_s)
        return DS_PREEMPTOR_STARVING;
    if (a->rank < ds_delta_count(p->delta, a->n_waiting))
        return DS_PREEMPTOR_PRIORITY;
    return DS_PREEMPTOR_BARRED;
}

const char *ds_preemptor_mode_name(ds_preemptor_mode m)
{
    switch (m) {
    case DS_PREEMPTOR_URGENT:
        return "urgent";
    case DS_PREEMPTOR_STARVING:
        return "starving";
    case DS_PREEMPTOR_PRIORITY:
        return "priority";
    case DS_PREEMPTOR_OUTSIDE:
        return "outside-dag";
    case DS_PREEMPTOR_BARRED:
        return "barred";
    }
    return "unknown";
}

const char *ds_victim_verdict_name(ds_victim_verdict v)
{
    switch (v) {
    case DS_VICTIM_KEEP:
        return "keep";
    case DS_VICTIM_UNKNOWN:
        return "unknown";
    case DS_VICTIM_ANCESTOR:
        return "ancestor";
    case DS_VICTIM_NOT_EVICTABLE:
        return "not-evictable";
    case DS_VICTIM_TOO_YOUNG:
        return "too-young";
    case DS_VICTIM_TOO_LITTLE_SLACK:
        return "too-little-slack";
    case DS_VICTIM_PRIORITY_GAP:
        return "priority-gap";
    case DS_VICTIM_PREEMPTOR_BARRED:
        return "preemptor-barred";
    case DS_VICTIM_UNSAVABLE:
        return "preemptor-unsavable";
    case DS_VICTIM_CROSS_NAMESPACE:
        return "cross-namespace";
    case DS_VICTIM_NO_PAYOFF:
        return "no-payoff";
    case DS_VICTIM_QUEUE_ORDER:
        return "queue-order";
    case DS_VICTIM_HAS_DEADLINE:
        return "has-deadline";
    }
    return "unknown";
}

static ds_victim_verdict judge(const ds_place_preemptor *a, ds_preemptor_mode mode,
                               const unsigned char *ancestors, const ds_running_task *b,
                               double pbar_half, const ds_preempt_params *p)
{
    if (mode == DS_PREEMPTOR_BARRED)
        return DS_VICTIM_PREEMPTOR_BARRED;
    if (b == NULL)
        return DS_VICTIM_UNKNOWN;
    bool same_job = a->task.job != DS_NO_TASK && b->job == a->task.job;
    if (same_job && ancestors != NULL && (b->task == a->task.task || ancestors[b->task]))
        return DS_VICTIM_ANCESTOR;
    switch (ds_running_preemptable(b, p)) {
    case DS_NOT_EVICTABLE:
        return DS_VICTIM_NOT_EVICTABLE;
    case DS_TOO_YOUNG:
        return DS_VICTIM_TOO_YOUNG;
    case DS_TOO_LITTLE_SLACK:
        return DS_VICTIM_TOO_LITTLE_SLACK;
    case DS_HAS_DEADLINE:
        return DS_VICTIM_HAS_DEADLINE;
    case DS_PREEMPTABLE:
        break;
    }
    if (mode == DS_PREEMPTOR_PRIORITY && b->job != DS_NO_TASK &&
        !ds_pair_gap_passes(p, a->task.priority, b->priority, pbar_half))
        return DS_VICTIM_PRIORITY_GAP;
    return DS_VICTIM_KEEP;
}

long ds_place_preempt_node(const ds_place_preemptor *a, ds_preemptor_mode mode,
                           const ds_dag *preemptor_dag, const ds_node_view *node,
                           const ds_running_task *const *victims, const ds_pair_reason *pair,
                           size_t n, double pbar_half, const ds_preempt_params *p,
                           ds_victim_verdict *out, bool *keep_node, ds_err *err)
{
    *keep_node = false;
    unsigned char *mark = NULL;
    size_t *stack = NULL;
    bool in_dag = a->task.job != DS_NO_TASK && preemptor_dag != NULL;
    if (in_dag) {
        if (a->task.task >= preemptor_dag->n)
            return ds_err_set(err,
                              "preemptor task: must be below the %zu tasks of its job (got %zu)",
                              preemptor_dag->n, a->task.task);
        for (size_t i = 0; i < n; i++)
            if (victims[i] != NULL && victims[i]->job == a->task.job &&
                victims[i]->task >= preemptor_dag->n)
                return ds_err_set(err,
                                  "victims[%zu].task: must be below the %zu tasks of the "
                                  "preemptor's job (got %zu)",
                                  i, preemptor_dag->n, victims[i]->task);
        mark = calloc(preemptor_dag->n, 1);
        stack = calloc(preemptor_dag->n, sizeof *stack);
        if (mark == NULL || stack == NULL) {
            free(mark);
            free(stack);
            return ds_err_set(err, "preemption: out of memory (%zu tasks)", preemptor_dag->n);
        }
        ds_dag_mark_ancestors(preemptor_dag, a->task.task, mark, stack);
    }

    double slack =
        ds_preemptor_slack_on(a->task.t_allow_s, a->task.t_rem_s, node->speed, p->start_latency_s);
    ds_urgency_in u = {.t_allow_s = a->task.t_allow_s,
                       .t_rem_s = a->task.t_rem_s,
                       .job_slack_s = a->task.job_known ? a->task.job_slack_s : NAN,
                       .job_path_s = a->task.job_known ? a->task.job_path_s : NAN,
                       .job_steps = a->task.job_steps,
                       .max_speed = a->fastest_speed,
                       .start_s = p->start_latency_s};
    double afford = ds_preemptor_afford(&u, node->speed);
    bool lost = in_dag && mode != DS_PREEMPTOR_BARRED &&
                (!(slack >= 0.0) || (p->payoff && a->task.job_known &&
                                     !ds_job_savable(a->task.job_slack_s, a->task.job_path_s,
                                                     a->fastest_speed, p->start_latency_s)));
    double saved_wait = a->room_known ? a->room_saved_s : NAN;
    ds_node_view after = *node;
    long kept = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = judge(a, mode, mark, victims[i], pbar_half, p);
        if (out[i] == DS_VICTIM_KEEP && lost)
            out[i] = DS_VICTIM_UNSAVABLE;
        if (out[i] == DS_VICTIM_KEEP && in_dag && p->queue_order && victims[i]->job != DS_NO_TASK &&
            !ds_victim_after(a->task.order, a->task.priority, victims[i]->order,
                             victims[i]->priority))
            out[i] = DS_VICTIM_QUEUE_ORDER;
        if (out[i] == DS_VICTIM_KEEP && in_dag && p->payoff &&
            (!ds_eviction_pays(afford, isfinite(a->task.t_allow_s), victims[i]->ran_s,
                               isfinite(victims[i]->t_allow_s),
                               ds_eviction_wait(victims[i]->t_rem_s, saved_wait)) ||
             !ds_victim_survives_redo(victims[i]->t_allow_s, victims[i]->ran_s)))
            out[i] = DS_VICTIM_NO_PAYOFF;
        if (out[i] == DS_VICTIM_KEEP && pair != NULL && pair[i] != DS_PAIR_OK)
            out[i] = DS_VICTIM_CROSS_NAMESPACE;
        if (out[i] == DS_VICTIM_KEEP) {
            kept++;
            ds_res_sub(&after.requested, &victims[i]->request);
        }
    }
    free(mark);
    free(stack);
    if (mode != DS_PREEMPTOR_BARRED && (kept > 0 || n == 0))
        *keep_node = ds_node_fits(&a->task.request, &after);
    return kept;
}
