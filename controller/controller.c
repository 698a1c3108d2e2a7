/* controller.c: the controller object's own small services, used by the decision loop (round.c)
 * and the actions (actions.c) alike: its metrics, waking the loop, and whether this process may
 * write now. Kept apart so that the loop and the actions do not depend on each other. */
#include <stdatomic.h>

#include "controller.h"
#include "procmetrics.h"

int ctl_metrics_init(ctl_metrics *m, const char *version, const char *git)
{
    static const char *const l_ns_outcome[] = {"namespace", "outcome"};
    static const char *const l_from[] = {"from"};
    /* Seconds to hours: DAG tasks wait and jobs run from seconds to a day. */
    static const double long_buckets[] = {1,    5,    15,   30,   60,    120,   300,  600,
                                          1200, 1800, 3600, 7200, 14400, 43200, 86400};
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
    if (m->reg == NULL || rt_procmetrics_register(m->reg) != 0)
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
    m->urgent_rounds = metrics_family_new(
        m->reg, METRICS_COUNTER, "dagsched_controller_urgent_rounds_total",
        "Decision rounds run at once for a DAG task's pod just found Unschedulable, ahead of "
        "--min-round-interval (at most one such round per interval)",
        NULL, 0, NULL, 0);
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
    static const char *const l_verb[] = {"verb"};
    m->api_requests = metrics_family_new(
        m->reg, METRICS_COUNTER, "dagsched_controller_api_requests_total",
        "Requests sent to the API server by HTTP method (GET, POST, PUT, PATCH, DELETE, other): "
        "every attempt, retries and watches included",
        l_verb, 1, NULL, 0);
    m->api_throttled = metrics_family_new(
        m->reg, METRICS_COUNTER, "dagsched_controller_api_throttled_total",
        "Requests that waited for the client's rate limit (--kube-api-qps, --kube-api-burst)", NULL,
        0, NULL, 0);
    static const char *const l_request[] = {"request"};
    static const double request_buckets[] = {0.001, 0.0025, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075,
                                             0.1,   0.15,   0.25,  0.5,  1,    2.5,  5,    10};
    m->release_request = metrics_family_new(
        m->reg, METRICS_HISTOGRAM, "dagsched_controller_release_request_seconds",
        "The API requests of a pod's release, each as the controller waited for it: the gate's "
        "removal with dagsched.io/released-at (request=patch) and the Released Event "
        "(request=event)",
        l_request, 1, request_buckets, sizeof request_buckets / sizeof request_buckets[0]);
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
        "behind-starving, limit, invalid-job, argo-unlisted, fair-share)",
        l_reason, 1, NULL, 0);
    m->jobs_done = metrics_family_new(
        m->reg, METRICS_COUNTER, "dagsched_controller_jobs_finished_total",
        "DAG jobs that finished, by namespace and outcome (deadline_met, deadline_missed, "
        "no_deadline, failed)",
        l_ns_outcome, 2, NULL, 0);
    m->makespan =
        metrics_family_new(m->reg, METRICS_HISTOGRAM, "dagsched_controller_job_makespan_seconds",
                           "Finished DAG jobs: creation to the last task's finish", NULL, 0,
                           long_buckets, sizeof long_buckets / sizeof long_buckets[0]);
    m->lateness = metrics_family_new(
        m->reg, METRICS_HISTOGRAM, "dagsched_controller_job_lateness_seconds",
        "Finished DAG jobs that missed their deadline: how late the last task finished", NULL, 0,
        long_buckets, sizeof long_buckets / sizeof long_buckets[0]);
    m->task_wait = metrics_family_new(
        m->reg, METRICS_HISTOGRAM, "dagsched_controller_task_wait_seconds",
        "DAG tasks that started: wait from the pod's creation (from=created) and from the "
        "moment its upstream tasks had succeeded (from=ready)",
        l_from, 1, long_buckets, sizeof long_buckets / sizeof long_buckets[0]);
    m->build_info = metrics_build_info(m->reg, "dagsched_controller_build_info", version, git);
    static const char *const l_fate[] = {"fate"};
    m->room = metrics_family_new(
        m->reg, METRICS_COUNTER, "dagsched_controller_eviction_room_total",
        "Evictions carried out, by what became of the room they freed: the preemptor bound on "
        "that node (reached), on another (elsewhere), or not within the cooldown (lost)",
        l_fate, 1, NULL, 0);
    m->preemptor_jobs = metrics_family_new(
        m->reg, METRICS_COUNTER, "dagsched_controller_evictions_for_finished_jobs_total",
        "Evictions made for a task of a DAG job with a deadline, counted when the job finishes, "
        "by its outcome (deadline_met, deadline_missed): eviction yield = met / (met + missed)",
        l_outcome, 1, NULL, 0);
    m->preemptor_tasks = metrics_family_new(
        m->reg, METRICS_COUNTER, "dagsched_controller_evictions_for_finished_tasks_total",
        "Evictions made for a DAG task with a level deadline, counted when its job finishes (met "
        "or missed), by whether the task itself finished by its level deadline "
        "(level_deadline_met, level_deadline_missed): the task-level eviction yield",
        l_outcome, 1, NULL, 0);
    m->reserved = metrics_family_new(
        m->reg, METRICS_GAUGE, "dagsched_controller_reserved_preemptors",
        "Preemptors the room freed by their eviction is held for (not bound yet, within the "
        "cooldown)",
        NULL, 0, NULL, 0);
    m->upcoming_kept = metrics_family_new(
        m->reg, METRICS_GAUGE, "dagsched_controller_upcoming_room_kept",
        "Ready tasks of deadline jobs whose pod is not created yet (an Argo task after its "
        "upstream ended) that free room is kept for in the release order",
        NULL, 0, NULL, 0);
    static const char *const l_stage[] = {"stage"};
    static const double write_buckets[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                           0.5,   1,      2.5,   5,    10,    30,   60,  300};
    m->wq_depth = metrics_family_new(m->reg, METRICS_GAUGE, "dagsched_controller_write_queue_depth",
                                     "Informational pod writes (DSP annotations, waiting reasons) "
                                     "queued, not yet made",
                                     NULL, 0, NULL, 0);
    m->wq_coalesced = metrics_family_new(
        m->reg, METRICS_COUNTER, "dagsched_controller_write_queue_coalesced_total",
        "Informational pod writes that replaced a queued write for the same pod and kind", NULL, 0,
        NULL, 0);
    m->wq_dropped = metrics_family_new(
        m->reg, METRICS_COUNTER, "dagsched_controller_write_queue_dropped_total",
        "Informational pod writes dropped: refused by a full queue (made again by a later round), "
        "or not made because this process may not write (not the leader, stopping)",
        NULL, 0, NULL, 0);
    m->wq_latency = metrics_family_new(
        m->reg, METRICS_HISTOGRAM, "dagsched_controller_write_latency_seconds",
        "Informational pod writes: time queued (stage=wait) and the API request (stage=request)",
        l_stage, 1, write_buckets, sizeof write_buckets / sizeof write_buckets[0]);
    m->round_cpu =
        metrics_family_new(m->reg, METRICS_HISTOGRAM, "dagsched_controller_decision_cpu_seconds",
                           "CPU time of one decision round (the deciding thread's)", NULL, 0,
                           buckets, sizeof buckets / sizeof buckets[0]);
    m->unsaved = metrics_family_new(
        m->reg, METRICS_COUNTER, "dagsched_controller_urgent_unsaved_total",
        "Urgent DAG tasks (slack within the urgent threshold, no room) that no eviction could "
        "save because every running DAG task that could have made room belongs to an owner that "
        "would fail if it were evicted (guard owner-would-fail), counted once per task and "
        "cooldown",
        NULL, 0, NULL, 0);
    static const char *const l_tenant[] = {"tenant"};
    m->tenant_share = metrics_family_new(
        m->reg, METRICS_GAUGE, "dagsched_controller_tenant_dominant_share",
        "spec.fairness: a tenant's dominant share of the schedulable nodes (bound pods' requests)",
        l_tenant, 1, NULL, 0);
    m->gangs_waiting = metrics_family_new(
        m->reg, METRICS_GAUGE, "dagsched_controller_gangs_waiting",
        "Gangs (pods labelled dagsched.io/gang) whose members wait: not started and not released "
        "by the last round (members missing or not ready, no room for all of them, invalid)",
        NULL, 0, NULL, 0);
    m->gang_timeouts = metrics_family_new(
        m->reg, METRICS_COUNTER, "dagsched_controller_gang_timeouts_total",
        "GangTimeout Events posted: a gang unreleased longer than spec.gang.timeout", NULL, 0, NULL,
        0);
    m->jobs_deferred = metrics_family_new(
        m->reg, METRICS_COUNTER, "dagsched_controller_jobs_deferred_total",
        "DAG jobs a round did not evaluate because the tasks of the jobs it evaluated reached "
        "--max-graph-tasks-per-round (counted once per round and job); they are evaluated in a "
        "later round, in turn",
        NULL, 0, NULL, 0);
    const char *gl[] = {"disposition"};
    m->graph_tasks =
        metrics_family_new(m->reg, METRICS_GAUGE, "dagsched_controller_round_graph_tasks",
                           "Tasks of the DAG jobs the last round evaluated (disposition "
                           "evaluated) and deferred (disposition deferred)",
                           gl, 1, NULL, 0);
    if (!m->wq_depth || !m->wq_coalesced || !m->wq_dropped || !m->wq_latency || !m->round_cpu ||
        !m->unsaved || !m->tenant_share || !m->jobs_deferred || !m->graph_tasks ||
        !m->gangs_waiting || !m->gang_timeouts)
        return -1;
    if (!m->jobs_done || !m->makespan || !m->lateness || !m->task_wait || !m->build_info ||
        !m->room || !m->preemptor_jobs || !m->preemptor_tasks || !m->reserved || !m->upcoming_kept)
        return -1;
    if (!m->release_latency || !m->release_request || !m->queue || !m->policy_dups ||
        !m->evictions || !m->releases || !m->nudges || !m->urgent || !m->duration || !m->leader ||
        !m->rounds || !m->urgent_rounds || !m->healthy || !m->tasks || !m->annotations ||
        !m->api_errors || !m->api_requests || !m->api_throttled || !m->guards)
        return -1;
    return 0;
}

/* Set one of the loop's kick flags and wake it. */
static void kick(ctl_controller *c, bool *flag)
{
    pthread_mutex_lock(&c->mu);
    *flag = true;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

void ctl_kick(ctl_controller *c)
{
    kick(c, &c->kicked);
}

void ctl_kick_urgent(ctl_controller *c)
{
    kick(c, &c->kicked_urgent);
}

bool ctl_may_write(ctl_controller *c)
{
    if (atomic_load(&c->stop))
        return false;
    if (!c->opt.leader_elect)
        return true;
    return c->leader != NULL && kube_leader_is_leader(c->leader);
}
