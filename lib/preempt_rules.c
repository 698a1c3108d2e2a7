/* preempt_rules.c: whether a preemptor can still be saved, whether an eviction pays, the queue
 * order between preemptor and victim, and who may preempt whom (see preempt_rules.h). */
#include "preempt_rules.h"

#include <math.h>
#include <string.h>

double ds_preemptor_slack_on(double t_allow_s, double t_rem_s, double speed, double start_s)
{
    if (isnan(t_allow_s) || isinf(t_allow_s))
        return t_allow_s;
    if (!(speed > 0.0) || !isfinite(speed))
        speed = 1.0;
    double rem = t_rem_s > 0.0 && isfinite(t_rem_s) ? t_rem_s : 0.0;
    double start = start_s > 0.0 && isfinite(start_s) ? start_s : 0.0;
    /* Slack on this node: level deadline - now - start latency - t_rem / speed. */
    return t_allow_s + rem * (1.0 - 1.0 / speed) - start;
}

bool ds_preemptor_savable(double t_allow_s, double t_rem_s, double speed, double start_s)
{
    double slack = ds_preemptor_slack_on(t_allow_s, t_rem_s, speed, start_s);
    return !isnan(slack) && slack >= 0.0;
}

bool ds_job_savable(double job_slack_s, double job_path_s, double max_speed, double start_s)
{
    return ds_preemptor_savable(job_slack_s, job_path_s, max_speed, start_s);
}

bool ds_eviction_pays(double preemptor_slack_s, bool preemptor_has_deadline, double victim_ran_s,
                      bool victim_has_deadline, double wait_s)
{
    if (!preemptor_has_deadline)
        return false; /* no lateness to save */
    if (isnan(wait_s) || isinf(wait_s))
        return true;
    double afford = preemptor_slack_s > 0.0 ? preemptor_slack_s : 0.0;
    double saved = (wait_s > 0.0 ? wait_s : 0.0) - afford;
    if (!(saved > 0.0))
        return false;
    if (!victim_has_deadline)
        return true;
    double lost = victim_ran_s > 0.0 && isfinite(victim_ran_s) ? victim_ran_s : 0.0;
    return saved > lost;
}

bool ds_task_urgent(const ds_urgency_in *u)
{
    if (u == NULL || isnan(u->t_allow_s) || isinf(u->t_allow_s))
        return false;
    if (u->t_allow_s <= u->epsilon_s)
        return true;
    if (isnan(u->wait_s))
        return false; /* not forecast */
    if (isinf(u->wait_s))
        return u->wait_s > 0; /* the known ends never free enough room: at risk */
    double afford = ds_preemptor_afford(u, u->max_speed);
    return !isnan(afford) && u->wait_s > afford;
}

double ds_preemptor_afford(const ds_urgency_in *u, double node_speed)
{
    double afford = ds_preemptor_slack_on(u->t_allow_s, u->t_rem_s, node_speed, u->start_s);
    if (!isnan(u->job_slack_s) && !isnan(u->job_path_s)) {
        double steps = u->job_steps > 1 ? (double)u->job_steps : 1.0;
        double start = u->start_s > 0 && isfinite(u->start_s) ? u->start_s * steps : u->start_s;
        double job = ds_preemptor_slack_on(u->job_slack_s, u->job_path_s, u->max_speed, start);
        if (job < afford || isnan(job))
            afford = job;
    }
    return afford;
}

double ds_eviction_wait(double victim_rem_s, double room_wait_s)
{
    if (room_wait_s >= 0.0) /* a forecast (INFINITY included): it counts the victim's end */
        return room_wait_s;
    return victim_rem_s > 0.0 && isfinite(victim_rem_s) ? victim_rem_s : INFINITY;
}

bool ds_victim_after(const double a_job[2], double a_priority, const double b_job[2],
                     double b_priority)
{
    for (int i = 0; i < 2; i++) {
        if (isnan(a_job[i]) || isnan(b_job[i]))
            return false;
        if (a_job[i] != b_job[i])
            return b_job[i] > a_job[i];
    }
    return b_priority < a_priority;
}

static bool same_ns(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

ds_pair_reason ds_preempt_pair_check(const ds_policy *p, const ds_preempt_side *a,
                                     const ds_preempt_side *b)
{
    if (b->priority > a->priority)
        return DS_PAIR_HIGHER_PRIORITY;
    if (same_ns(a->ns, b->ns))
        return DS_PAIR_OK;
    if (a->ns == NULL || !ds_name_list_contains(&p->cross_ns_trusted, a->ns))
        return DS_PAIR_CROSS_NS_UNTRUSTED;
    if (p->cross_ns_require_higher && !(a->priority > b->priority))
        return DS_PAIR_CROSS_NS_NOT_HIGHER;
    return DS_PAIR_OK;
}

const char *ds_pair_reason_name(ds_pair_reason r)
{
    switch (r) {
    case DS_PAIR_OK:
        return "ok";
    case DS_PAIR_HIGHER_PRIORITY:
        return "higher-priority";
    case DS_PAIR_CROSS_NS_UNTRUSTED:
        return "cross-namespace-untrusted";
    case DS_PAIR_CROSS_NS_NOT_HIGHER:
        return "cross-namespace-not-higher";
    }
    return "unknown";
}

bool ds_victim_survives_redo(double victim_t_allow_s, double victim_ran_s)
{
    if (isnan(victim_t_allow_s))
        return false;
    if (isinf(victim_t_allow_s))
        return victim_t_allow_s > 0.0;
    double ran = victim_ran_s > 0.0 && isfinite(victim_ran_s) ? victim_ran_s : 0.0;
    return victim_t_allow_s - ran > 0.0;
}
