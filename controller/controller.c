/* controller.c: the controller object's own small services, used by the decision loop (round.c)
 * and the actions (actions.c) alike: its metrics, waking the loop, and whether this process may
 * write now. Kept apart so that the loop and the actions do not depend on each other. */
#include <stdatomic.h>

#include "controller.h"

int ctl_metrics_init(ctl_metrics *m)
{
    static const char *const l_res_reason[] = {"result", "reason"};
    static const char *const l_kind[] = {"kind"};
    static const char *const l_outcome[] = {"outcome"};
    static const char *const l_state[] = {"state"};
    static const char *const l_action[] = {"action"};
    static const char *const l_guard[] = {"guard"};
    static const char *const l_reason[] = {"reason"};
    static const double release_buckets[] = {0.1, 0.25, 0.5, 1,   2.5,  5,    10,   30,
                                             60,  120,  300, 600, 1800, 3600, 7200, 21600};
    static const double buckets[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                     0.25,  0.5,    1,     2.5,  5,     10};
    m->reg = metrics_registry_new();
    if (m->reg == NULL)
        return -1;
    m->evictions = metrics_family_new(
        m->reg, METRICS_COUNTER, "dagsched_controller_evictions_total",
        "Evictions decided, by result (evicted, refused, gone, stale, error, dry-run) and "
        "reason (urgent, starvation, priority)",
        l_res_reason, 2, NULL, 0);
    m->releases =
        metrics_family_new(m->reg, METRICS_COUNTER, "dagsched_controller_releases_total",
                           "Tasks released (pod gate removed, Job resumed)", l_kind, 1, NULL, 0);
    m->nudges = metrics_family_new(m->reg, METRICS_COUNTER, "dagsched_controller_nudges_total",
                                   "Unschedulable pods asked to be retried after their upstream "
                                   "tasks succeeded",
                                   NULL, 0, NULL, 0);
    m->urgent = metrics_family_new(
        m->reg, METRICS_GAUGE, "dagsched_controller_urgent_pending_tasks",
        "Pending DAG tasks whose slack is within the urgent threshold", NULL, 0, NULL, 0);
    m->duration = metrics_family_new(
        m->reg, METRICS_HISTOGRAM, "dagsched_controller_decision_duration_seconds",
        "Duration of one decision round", NULL, 0, buckets, sizeof buckets / sizeof buckets[0]);
    m->leader = metrics_family_new(m->reg, METRICS_GAUGE, "dagsched_controller_leader",
                                   "1 while this process is the leader", NULL, 0, NULL, 0);
    m->rounds = metrics_family_new(m->reg, METRICS_COUNTER, "dagsched_controller_rounds_total",
                                   "Decision rounds by outcome (acted, not-leader, "
                                   "cache-not-ready, error)",
                                   l_outcome, 1, NULL, 0);
    m->healthy =
        metrics_family_new(m->reg, METRICS_GAUGE, "dagsched_controller_cache_healthy",
                           "1 while every watch is synced and in contact", NULL, 0, NULL, 0);
    m->tasks = metrics_family_new(m->reg, METRICS_GAUGE, "dagsched_controller_tasks",
                                  "DAG tasks by state", l_state, 1, NULL, 0);
    m->annotations =
        metrics_family_new(m->reg, METRICS_COUNTER, "dagsched_controller_annotation_updates_total",
                           "DSP annotation updates on pods", NULL, 0, NULL, 0);
    m->api_errors =
        metrics_family_new(m->reg, METRICS_COUNTER, "dagsched_controller_api_errors_total",
                           "Failed writes to the API server by action", l_action, 1, NULL, 0);
    m->guards = metrics_family_new(m->reg, METRICS_GAUGE, "dagsched_controller_guarded_tasks",
                                   "Running DAG tasks by the first eviction guard they fail "
                                   "(ok: evictable)",
                                   l_guard, 1, NULL, 0);
    m->policy_dups = metrics_family_new(
        m->reg, METRICS_GAUGE, "dagsched_controller_policy_duplicates",
        "Other ConfigMaps claiming the active policy's name, ignored", NULL, 0, NULL, 0);
    m->release_latency = metrics_family_new(
        m->reg, METRICS_HISTOGRAM, "dagsched_controller_release_latency_seconds",
        "Time from a held task's creation (pod, or suspended Job) to its release (scheduling gate "
        "removed, Job resumed)",
        l_kind, 1, release_buckets, sizeof release_buckets / sizeof release_buckets[0]);
    m->queue = metrics_family_new(
        m->reg, METRICS_GAUGE, "dagsched_controller_release_queue_length",
        "Held DAG tasks (gated pods, suspended Jobs) by why they wait (upstream, no-room, "
        "behind-starving, limit, invalid-job)",
        l_reason, 1, NULL, 0);
    if (!m->release_latency || !m->queue || !m->policy_dups || !m->evictions || !m->releases ||
        !m->nudges || !m->urgent || !m->duration || !m->leader || !m->rounds || !m->healthy ||
        !m->tasks || !m->annotations || !m->api_errors || !m->guards)
        return -1;
    return 0;
}

void ctl_kick(ctl_controller *c)
{
    pthread_mutex_lock(&c->mu);
    c->kicked = true;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

bool ctl_may_write(ctl_controller *c)
{
    if (atomic_load(&c->stop))
        return false;
    if (!c->opt.leader_elect)
        return true;
    return c->leader != NULL && kube_leader_is_leader(c->leader);
}
