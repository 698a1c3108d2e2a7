/* test_release.c: unit tests of task release (gated pods and suspended Jobs whose upstream tasks
 * succeeded, in the policy's queue order then highest DSP priority first, maxConcurrentReleases)
 * and of nudges (once per unschedulable episode). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include "ctl_test_util.h"
#include "publish.h"
#include "release.h"

static ctl_pod gated(const char *name, ds_task_state st, double prio, double created)
{
    ctl_pod p = t_pod("batch", name, CTL_POD_GATED);
    p.task.job = 0;
    p.task.task = 0;
    p.task.state = st;
    p.task.evaluated = true;
    p.task.eval.priority = prio;
    p.created_at = created;
    return p;
}

static void test_release_order_and_limit(void **state)
{
    (void)state;
    ctl_pod pods[6] = {
        gated("blocked", DS_TASK_BLOCKED, 9.0, 1), gated("low", DS_TASK_WAITING, 0.2, 1),
        gated("high", DS_TASK_WAITING, 0.9, 5),    gated("mid-new", DS_TASK_WAITING, 0.5, 9),
        gated("mid-old", DS_TASK_WAITING, 0.5, 3), t_pod("batch", "not-a-task", CTL_POD_GATED),
    };
    ctl_release_in in = {.pods = pods, .n_pods = 6, .admission = DS_ADMIT_ALL};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_ready, 4);
    assert_int_equal(out.n_rel, 4);
    assert_int_equal(out.rel[0].idx, 2);
    assert_int_equal(out.rel[1].idx, 4); /* equal priority: the older first */
    assert_int_equal(out.rel[2].idx, 3);
    assert_int_equal(out.rel[3].idx, 1);
    assert_int_equal(out.n_held, 0);
    ctl_release_out_free(&out);

    /* Limit 3 with one released task still pending: two go now, the two lowest wait. */
    ctl_pod more[7];
    memcpy(more, pods, sizeof pods);
    more[6] = gated("released", DS_TASK_WAITING, 0.1, 1);
    more[6].state = CTL_POD_PENDING;
    in =
        (ctl_release_in){.pods = more, .n_pods = 7, .admission = DS_ADMIT_ALL, .max_concurrent = 3};
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.in_flight, 1);
    assert_int_equal(out.n_rel, 2);
    assert_int_equal(out.rel[0].idx, 2);
    assert_int_equal(out.rel[1].idx, 4);
    assert_int_equal(out.n_held, 2);
    ctl_release_out_free(&out);

    /* Bound or finished tasks do not count. */
    more[6].state = CTL_POD_BOUND;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.in_flight, 0);
    assert_int_equal(out.n_rel, 3);
    ctl_release_out_free(&out);
}

/* Another scheduler's pods (ctl_pod.foreign) are never released, ungated, held or nudged. */
static void test_foreign_pods_untouched(void **state)
{
    (void)state;
    ctl_pod pods[3] = {gated("ours", DS_TASK_WAITING, 0.5, 1),
                       gated("theirs", DS_TASK_WAITING, 0.9, 1),
                       t_pod("batch", "theirs-not-a-task", CTL_POD_GATED)};
    pods[1].foreign = pods[2].foreign = true;
    ctl_release_in in = {.pods = pods, .n_pods = 3, .admission = DS_ADMIT_ALL};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 1);
    assert_int_equal(out.rel[0].idx, 0);
    assert_int_equal(out.n_ungate, 0);
    assert_int_equal(out.n_held, 0);
    assert_int_equal(out.n_wait, 0);
    ctl_release_out_free(&out);
}

/* A gated pod whose dagsched metadata cannot be used is outside any DAG job: its gate is removed
 * at once, whatever the limit on concurrent releases; other pods with such metadata are left
 * alone. A gated pod that is no task of any job (no dagsched.io/job label: the admission webhook
 * gates every pod of the dagsched scheduler) is ungated at once too. */
static void test_ungate_pods_outside_dag(void **state)
{
    (void)state;
    const char *why = "annotation dagsched.io/depends-on: 204800 bytes, limit 65536";
    ctl_pod pods[6] = {
        t_pod("batch", "big-gated", CTL_POD_GATED),
        t_pod("batch", "big-pending", CTL_POD_PENDING),
        t_pod("batch", "big-leaving", CTL_POD_GATED),
        t_pod("batch", "not-a-task", CTL_POD_GATED),
        gated("ready", DS_TASK_WAITING, 0.5, 1),
        gated("in-flight", DS_TASK_WAITING, 0.5, 1),
    };
    pods[0].dagsched_error = why;
    pods[1].dagsched_error = why;
    pods[2].dagsched_error = why;
    pods[2].terminating = true;
    pods[5].state = CTL_POD_PENDING;
    ctl_release_in in = {.pods = pods, .n_pods = 6, .admission = DS_ADMIT_ALL, .max_concurrent = 1};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_ungate, 2);
    assert_int_equal(out.ungate[0], 0);
    assert_int_equal(out.ungate[1], 3);
    assert_int_equal(out.n_rel, 0); /* the one release allowed is in flight */
    assert_int_equal(out.n_held, 1);
    ctl_release_out_free(&out);
}

/* Gated pods outside every DAG job are ungated whatever their count and the release limit, except
 * while they are being deleted; ungated (pending, bound) ones are left alone and do not count as
 * released tasks in flight. A task of a job that is invalid right now (its pods may still be
 * being created) keeps its gate: released, it could run before its upstream tasks. */
static void test_ungate_gated_non_tasks(void **state)
{
    (void)state;
    ctl_pod pods[5] = {
        t_pod("web", "plain", CTL_POD_GATED),       t_pod("web", "plain-pending", CTL_POD_PENDING),
        t_pod("web", "plain-bound", CTL_POD_BOUND), t_pod("web", "leaving", CTL_POD_GATED),
        t_pod("etl", "invalid-job", CTL_POD_GATED),
    };
    pods[3].terminating = true;
    pods[4].task.job_invalid = true;
    ctl_release_in in = {.pods = pods, .n_pods = 5, .admission = DS_ADMIT_ALL, .max_concurrent = 1};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_ungate, 1);
    assert_int_equal(out.ungate[0], 0);
    assert_int_equal(out.n_rel, 0);
    assert_int_equal(out.n_ready, 0);
    assert_int_equal(out.in_flight, 0);
    ctl_release_out_free(&out);
}

/* The policy's order across jobs (queue_pos, from lib/joborder) comes before DSP priority: a
 * short job's task is released ahead of a higher-priority task of a long job. */
static void test_queue_order_first(void **state)
{
    (void)state;
    ctl_pod pods[3] = {
        gated("long-job-root", DS_TASK_WAITING, 50.0, 1),
        gated("short-job", DS_TASK_WAITING, 0.3, 2),
        gated("unranked", DS_TASK_WAITING, 99.0, 0),
    };
    pods[0].task.queue_pos = 1;
    pods[1].task.queue_pos = 0;
    pods[2].task.queue_pos = SIZE_MAX;
    ctl_release_in in = {.pods = pods, .n_pods = 3, .admission = DS_ADMIT_ALL, .max_concurrent = 1};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_ready, 3);
    assert_int_equal(out.n_rel, 1);
    assert_int_equal(out.rel[0].idx, 1);
    assert_int_equal(out.n_held, 2);
    ctl_release_out_free(&out);
    in.max_concurrent = 0;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 3);
    assert_int_equal(out.rel[0].idx, 1);
    assert_int_equal(out.rel[1].idx, 0);
    assert_int_equal(out.rel[2].idx, 2);
    ctl_release_out_free(&out);
}

static void test_suspended_jobs(void **state)
{
    (void)state;
    ctl_batch_job jobs[3];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < 3; i++) {
        jobs[i].ns = "batch";
        jobs[i].task.job = 0;
        jobs[i].task.evaluated = true;
    }
    jobs[0].name = "ready";
    jobs[0].suspended = true;
    jobs[0].task.state = DS_TASK_WAITING;
    jobs[0].task.eval.priority = 0.4;
    jobs[1].name = "blocked";
    jobs[1].suspended = true;
    jobs[1].task.state = DS_TASK_BLOCKED;
    jobs[2].name = "resumed-no-pod-yet";
    jobs[2].suspended = false;
    jobs[2].task.state = DS_TASK_WAITING;
    ctl_release_in in = {.jobs = jobs, .n_jobs = 3, .admission = DS_ADMIT_ALL, .max_concurrent = 1};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.in_flight, 1);
    assert_int_equal(out.n_ready, 1);
    assert_int_equal(out.n_rel, 0);
    assert_int_equal(out.n_held, 1);
    ctl_release_out_free(&out);
    jobs[2].has_pods = true;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 1);
    assert_int_equal(out.rel[0].kind, CTL_RELEASE_JOB);
    assert_int_equal(out.rel[0].idx, 0);
    ctl_release_out_free(&out);
}

static void test_nudges(void **state)
{
    (void)state;
    ctl_pod pods[5];
    pods[0] = t_waiting("batch", "never-nudged", 0, 0, 1, INFINITY, 1);
    pods[1] = t_waiting("batch", "nudged-this-episode", 0, 1, 1, INFINITY, 1);
    pods[1].nudged_at = pods[1].unschedulable_since + 1;
    pods[2] = t_waiting("batch", "nudged-before", 0, 2, 1, INFINITY, 1);
    pods[2].nudged_at = pods[2].unschedulable_since - 100;
    pods[3] = t_waiting("batch", "still-blocked", 0, 3, 1, INFINITY, 1);
    pods[3].task.state = DS_TASK_BLOCKED;
    pods[4] = t_waiting("batch", "root-waiting-for-room", 0, 4, 1, INFINITY, 1);
    pods[4].task.has_upstream = false; /* nothing upstream: never rejected for it */
    ctl_release_in in = {.pods = pods, .n_pods = 5, .admission = DS_ADMIT_ALL};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_nudge, 2);
    assert_int_equal(out.nudge[0], 0);
    assert_int_equal(out.nudge[1], 2);
    assert_int_equal(out.n_rel, 0);
    ctl_release_out_free(&out);
}

/* ---- release as admission (spec.release.admission: capacity, lib/admit.h) ---- */

static ctl_pod ready_pod(const char *name, size_t queue_pos, int64_t cpu)
{
    ctl_pod p = gated(name, DS_TASK_WAITING, 1.0, 1);
    p.task.queue_pos = queue_pos;
    p.request.v[DS_RES_CPU] = cpu;
    return p;
}

static size_t released_idx(const ctl_release_out *out, size_t k)
{
    assert_true(k < out->n_rel);
    return out->rel[k].idx;
}

static const ctl_wait *wait_of(const ctl_release_out *out, size_t pod)
{
    for (size_t i = 0; i < out->n_wait; i++)
        if (out->wait[i].kind == CTL_RELEASE_POD && out->wait[i].idx == pod)
            return &out->wait[i];
    fail_msg("pod %zu is not held", pod);
    return NULL;
}

/* Only what fits the nodes' free room is released, in queue order; bound pods and released
 * pods not bound yet take room; the rest stay gated with a reason that names the request and
 * the most free room. */
static void test_capacity_releases_what_fits(void **state)
{
    (void)state;
    ctl_node nodes[2] = {t_node("n2", MILLI(4)), t_node("n1", MILLI(4))};
    ctl_pod pods[7] = {
        ready_pod("q3", 3, MILLI(2)),
        ready_pod("q0", 0, MILLI(2)),
        ready_pod("q1", 1, MILLI(2)),
        ready_pod("q2", 2, MILLI(2)),
        t_running("batch", "bound", "n1", 0, 9, 1.0, MILLI(1)),
        ready_pod("in-flight", SIZE_MAX, MILLI(1)), /* released, pending */
        ready_pod("q4", 4, MILLI(1)),
    };
    pods[5].state = CTL_POD_PENDING;
    ctl_release_in in = {.pods = pods, .n_pods = 7, .nodes = nodes, .n_nodes = 2};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    /* n1: 4 - 1 bound - 1 in flight = 2 free; n2: 4 free. q0 -> n1 (best fit), q1 -> n2,
     * q2 -> n2; q3 fits nowhere; q4 (1 core) fits nowhere either. */
    assert_int_equal(out.n_ready, 5);
    assert_int_equal(out.n_rel, 3);
    assert_int_equal(released_idx(&out, 0), 1);
    assert_string_equal(nodes[out.rel[0].r.node].name, "n1");
    assert_int_equal(released_idx(&out, 1), 2);
    assert_string_equal(nodes[out.rel[1].r.node].name, "n2");
    assert_int_equal(released_idx(&out, 2), 3);
    assert_int_equal(out.n_held, 2);
    assert_int_equal(out.by_reason[CTL_WAIT_NO_ROOM], 2);
    const ctl_wait *w = wait_of(&out, 0);
    assert_int_equal(w->reason, CTL_WAIT_NO_ROOM);
    char msg[CTL_MSG_MAX];
    ctl_wait_message(&in, w, msg, sizeof msg);
    assert_string_equal(msg, "no room: needs cpu 2; most free room on node n1: cpu 0");
    assert_int_equal(ctl_wait_reason_of(msg), CTL_WAIT_NO_ROOM);
    char how[CTL_MSG_MAX];
    ctl_release_message(&in, &out.rel[0], how, sizeof how);
    assert_string_equal(how, "fits on node n1");
    ctl_release_out_free(&out);

    /* The same queue under admission all (the rule before): everything at once. */
    in.admission = DS_ADMIT_ALL;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 5);
    ctl_release_message(&in, &out.rel[0], how, sizeof how);
    assert_string_equal(how, "");
    ctl_release_out_free(&out);
}

/* Room held for a preemptor (reserve.h) is not released: with n2's 4 cores held, only q0 (n1)
 * is released and q1, q2 wait for room. */
static void test_capacity_reserved_room(void **state)
{
    (void)state;
    ctl_node nodes[2] = {t_node("n2", MILLI(4)), t_node("n1", MILLI(4))};
    ctl_pod pods[4] = {
        ready_pod("q0", 0, MILLI(2)),
        ready_pod("q1", 1, MILLI(2)),
        ready_pod("q2", 2, MILLI(2)),
        t_running("batch", "bound", "n1", 0, 9, 1.0, MILLI(2)),
    };
    ds_res held[2] = {{{MILLI(4), 0, 0, 0}}, {{0}}};
    ctl_release_in in = {.pods = pods, .n_pods = 4, .nodes = nodes, .n_nodes = 2};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 3); /* without the hold: n1 takes q0, n2 q1 and q2 */
    ctl_release_out_free(&out);
    in.reserved = held;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_true(out.n_rel >= 1);
    assert_int_equal(released_idx(&out, 0), 0);
    assert_string_equal(nodes[out.rel[0].r.node].name, "n1");
    for (size_t i = 1; i < out.n_rel; i++) /* anything else only as look-ahead */
        assert_int_equal(out.rel[i].r.verdict, DS_ADMIT_LOOKAHEAD);
    ctl_release_out_free(&out);
}

/* The look-ahead releases tasks beyond what fits; a released task still pending that fits
 * nowhere uses a slot. Pending pods outside any DAG take room but no slot; pods held by other
 * scheduling gates take nothing. */
static void test_capacity_lookahead_and_queue(void **state)
{
    (void)state;
    ctl_node nodes[1] = {t_node("n1", MILLI(4))};
    ctl_pod pods[6] = {
        ready_pod("a", 0, MILLI(3)),
        ready_pod("b", 1, MILLI(3)),
        ready_pod("c", 2, MILLI(3)),
        t_pod("web", "other-pending", CTL_POD_PENDING), /* 1 core, not a DAG task */
        t_pod("web", "other-gated", CTL_POD_PENDING),   /* someone else's gate */
        t_pod("web", "other-huge", CTL_POD_UNSCHEDULABLE),
    };
    pods[3].request.v[DS_RES_CPU] = MILLI(1);
    pods[4].request.v[DS_RES_CPU] = MILLI(4);
    pods[4].other_gates = true;
    pods[5].request.v[DS_RES_CPU] = MILLI(64);
    ctl_release_in in = {.pods = pods, .n_pods = 6, .nodes = nodes, .n_nodes = 1, .lookahead = 1};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 2);
    assert_int_equal(out.rel[0].idx, 0);
    assert_int_equal(out.rel[0].r.verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out.rel[1].idx, 1);
    assert_int_equal(out.rel[1].r.verdict, DS_ADMIT_LOOKAHEAD);
    char how[CTL_MSG_MAX];
    ctl_release_message(&in, &out.rel[1], how, sizeof how);
    assert_string_equal(how, "released ahead of room (look-ahead): needs cpu 3; most free room on "
                             "node n1: cpu 0");
    assert_int_equal(wait_of(&out, 2)->reason, CTL_WAIT_NO_ROOM);
    assert_int_equal(out.in_flight, 0); /* the pending pods are not DAG tasks */
    ctl_release_out_free(&out);

    /* Next round: a is bound, b pending (in flight, fits nowhere): the one slot is used. */
    pods[0].state = CTL_POD_BOUND;
    pods[0].node = "n1";
    pods[1].state = CTL_POD_PENDING;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.in_flight, 1);
    assert_int_equal(out.n_rel, 0);
    assert_int_equal(wait_of(&out, 2)->reason, CTL_WAIT_NO_ROOM);
    ctl_release_out_free(&out);
}

/* An upcoming task (its pod still to come) keeps the room it fits, wherever it stands in the
 * order: the batch task is held for lack of room, and the room kept is reported; without it, the
 * batch task takes the room. Under admission all, nothing is kept. */
static void test_capacity_upcoming_keeps_room(void **state)
{
    (void)state;
    ctl_node nodes[2] = {t_node("n1", MILLI(4)), t_node("n2", MILLI(4))};
    ctl_pod pods[2] = {ready_pod("batch-a", 1, MILLI(4)), ready_pod("batch-b", 2, MILLI(4))};
    pods[1].state = CTL_POD_BOUND;
    pods[1].node = "n2";
    ctl_upcoming up[1] = {{.pod = SIZE_MAX,
                           .request = {{MILLI(4), 0, 0, 0}},
                           .priority = 2.0,
                           .queue_pos = 0,
                           .ready_since = 1,
                           .ns = "urgent",
                           .job_name = "u",
                           .task_name = "compute"}};
    ctl_release_in in = {
        .pods = pods, .n_pods = 2, .nodes = nodes, .n_nodes = 2, .upcoming = up, .n_upcoming = 1};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 0);
    assert_int_equal(out.n_ready, 1);
    assert_int_equal(out.n_held, 1);
    assert_int_equal(wait_of(&out, 0)->reason, CTL_WAIT_NO_ROOM);
    assert_int_equal(out.n_kept, 1);
    assert_int_equal(out.kept[0].idx, 0);
    assert_int_equal(out.kept[0].node, 0);
    ctl_release_out_free(&out);

    /* Behind the batch task in the order, the room its upstream freed is still its own. */
    up[0].queue_pos = 5;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 0);
    assert_int_equal(out.n_kept, 1);
    ctl_release_out_free(&out);

    /* Without upcoming tasks, and under admission all, nothing is kept. */
    up[0].queue_pos = 0;
    in.admission = DS_ADMIT_ALL;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 1);
    assert_int_equal(out.n_kept, 0);
    ctl_release_out_free(&out);
    in.admission = DS_ADMIT_CAPACITY;
    in.n_upcoming = 0;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 1);
    ctl_release_out_free(&out);
    in.upcoming = NULL;
    in.n_upcoming = 1;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), -1);
}

/* The gated pod of an upcoming task (its upstream tasks just freed room) is decided before the
 * tasks already in kube-scheduler's queue: a look-ahead task pending there would otherwise take
 * the room first in the rule's count, and the urgent job's next task would be held. */
static void test_capacity_upcoming_pod_goes_first(void **state)
{
    (void)state;
    ctl_node nodes[1] = {t_node("n1", MILLI(4))};
    ctl_pod pods[2] = {ready_pod("next", 0, MILLI(4)), ready_pod("lookahead", 5, MILLI(4))};
    pods[1].state = CTL_POD_PENDING; /* released earlier ahead of room */
    ctl_release_in in = {.pods = pods, .n_pods = 2, .nodes = nodes, .n_nodes = 1, .lookahead = 2};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 1); /* ahead of room, behind the pending task */
    assert_int_equal(out.rel[0].r.verdict, DS_ADMIT_LOOKAHEAD);
    ctl_release_out_free(&out);
    ctl_upcoming up[1] = {{.pod = 0, .priority = 1, .queue_pos = 0, .ready_since = 1}};
    in.upcoming = up;
    in.n_upcoming = 1;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 1);
    assert_int_equal(out.rel[0].idx, 0);
    assert_int_equal(out.rel[0].r.verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out.n_kept, 0); /* it has a pod: released, not kept */
    ctl_release_out_free(&out);
}

/* A task takes room only on nodes it may use: node selector, taints it does not tolerate and
 * cordoned nodes are honoured; a task that may use no node is held and says so. */
static void test_capacity_node_constraints(void **state)
{
    (void)state;
    ctl_node nodes[3] = {t_node("big-cordoned", MILLI(64)), t_node("tainted", MILLI(64)),
                         t_node("gpu", MILLI(4))};
    nodes[0].schedulable = false;
    ctl_taint taint = {"dedicated", "infra", CTL_TAINT_NO_SCHEDULE};
    nodes[1].taints = &taint;
    nodes[1].n_taints = 1;
    ctl_kv gpu_label = {"pool", "gpu"};
    nodes[2].labels = &gpu_label;
    nodes[2].n_labels = 1;
    ctl_pod pods[5] = {
        ready_pod("plain", 0, MILLI(8)),
        ready_pod("tolerant", 1, MILLI(8)),
        ready_pod("selects-gpu", 2, MILLI(2)),
        ready_pod("selects-none", 3, MILLI(1)),
        ready_pod("affinity-not-understood", 4, MILLI(1)),
    };
    pods[4].has_required_affinity = true;
    pods[4].affinity_error = "nodeSelectorTerms: more than 64 terms";
    ctl_toleration tol = {.key = "dedicated", .op_exists = true, .value = "", .effect = ""};
    pods[1].tolerations = &tol;
    pods[1].n_tolerations = 1;
    ctl_kv sel_gpu = {"pool", "gpu"}, sel_none = {"pool", "none"};
    pods[2].node_selector = &sel_gpu;
    pods[2].n_node_selector = 1;
    pods[3].node_selector = &sel_none;
    pods[3].n_node_selector = 1;
    ctl_release_in in = {.pods = pods, .n_pods = 5, .nodes = nodes, .n_nodes = 3};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 3);
    assert_int_equal(out.rel[0].idx, 1);
    assert_string_equal(nodes[out.rel[0].r.node].name, "tainted");
    assert_int_equal(out.rel[1].idx, 2);
    assert_string_equal(nodes[out.rel[1].r.node].name, "gpu");
    /* An affinity the controller cannot read does not hold the pod: kube-scheduler judges it. */
    assert_int_equal(out.rel[2].idx, 4);
    assert_string_equal(nodes[out.rel[2].r.node].name, "gpu");
    char msg[CTL_MSG_MAX];
    ctl_wait_message(&in, wait_of(&out, 0), msg, sizeof msg);
    assert_string_equal(msg, "no room: needs cpu 8; larger than the allocatable of every node it "
                             "may run on");
    ctl_wait_message(&in, wait_of(&out, 3), msg, sizeof msg);
    assert_string_equal(msg, "no room: no node it may run on (node selector, affinity, taints)");
    ctl_release_out_free(&out);
}

/* A starving task (waited past spec.order.starvationThreshold) that does not fit keeps the room
 * of the nodes it could use: a smaller task behind it is held there, but starts elsewhere. */
static void test_capacity_starvation_guard(void **state)
{
    (void)state;
    ctl_node nodes[2] = {t_node("big", MILLI(8)), t_node("small", MILLI(2))};
    ctl_pod pods[4] = {
        ready_pod("starving", 0, MILLI(8)),
        ready_pod("small-1", 1, MILLI(2)),
        ready_pod("small-2", 2, MILLI(2)),
        t_running("batch", "on-big", "big", 0, 9, 1.0, MILLI(4)),
    };
    pods[0].task.eval.t_wait_s = 1500;
    ctl_release_in in = {
        .pods = pods, .n_pods = 4, .nodes = nodes, .n_nodes = 2, .starvation_s = 1200};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 1);
    assert_int_equal(out.rel[0].idx, 1);
    assert_string_equal(nodes[out.rel[0].r.node].name, "small");
    const ctl_wait *w = wait_of(&out, 2);
    assert_int_equal(w->reason, CTL_WAIT_STARVING);
    char msg[CTL_MSG_MAX];
    ctl_wait_message(&in, w, msg, sizeof msg);
    assert_string_equal(msg, "behind starving task batch/starving, which waits for room on node "
                             "big");
    assert_int_equal(ctl_wait_reason_of(msg), CTL_WAIT_STARVING);
    ctl_release_out_free(&out);

    /* Below the threshold: small-2 backfills the big node. */
    pods[0].task.eval.t_wait_s = 60;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 2);
    assert_int_equal(out.rel[1].idx, 2);
    ctl_release_out_free(&out);
}

/* Held tasks say why: upstream tasks not succeeded (named, bounded), maxConcurrentReleases, an
 * invalid job; a suspended Job is admitted on its template's request. */
/* spec.fairness: the flood namespace uses 3 of the 4 cores (2 bound, 1 released and not bound),
 * so the light namespace's task, last in the queue order, takes the free core; the flood's ready
 * tasks wait, above their fair share, with the reason that says so. With a tenant label naming
 * both namespaces one tenant, the queue order holds again. */
static void test_capacity_fair_share(void **state)
{
    (void)state;
    ctl_node nodes[1] = {t_node("n1", MILLI(4))};
    ctl_pod pods[6] = {
        t_running("flood", "busy", "n1", 0, 9, 1.0, MILLI(2)),
        ready_pod("in-flight", SIZE_MAX, MILLI(1)),
        ready_pod("f0", 0, MILLI(1)),
        ready_pod("f1", 1, MILLI(1)),
        ready_pod("l0", 2, MILLI(1)),
        t_pod("other", "finished", CTL_POD_SUCCEEDED),
    };
    pods[1].state = CTL_POD_PENDING;
    for (size_t i = 1; i < 4; i++)
        pods[i].ns = "flood";
    pods[4].ns = "light";
    ctl_fairness fair = {.enabled = false};
    ctl_release_in in = {
        .pods = pods, .n_pods = 6, .nodes = nodes, .n_nodes = 1, .fairness = &fair};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 1);
    assert_int_equal(released_idx(&out, 0), 2); /* off: the queue order, f0 */
    assert_int_equal(out.n_tenants, 0);
    ctl_release_out_free(&out);

    fair.enabled = true;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 1);
    assert_int_equal(released_idx(&out, 0), 4); /* l0 */
    assert_int_equal(out.by_reason[CTL_WAIT_FAIR_SHARE], 2);
    const ctl_wait *w = wait_of(&out, 2);
    assert_int_equal(w->reason, CTL_WAIT_FAIR_SHARE);
    assert_string_equal(w->tenant, "flood");
    char msg[CTL_MSG_MAX];
    ctl_wait_message(&in, w, msg, sizeof msg);
    assert_string_equal(msg, "tenant flood is above its fair share (dominant share 0.75, fair "
                             "share 0.50): needs cpu 1; most free room on node n1: cpu 0");
    assert_int_equal(ctl_wait_reason_of(msg), CTL_WAIT_FAIR_SHARE);
    assert_string_equal(ctl_wait_reason_name(CTL_WAIT_FAIR_SHARE), "fair-share");
    /* The tenants with DAG tasks, by name: their bound pods' shares, the tasks held for them. */
    const ctl_tenant_share want[2] = {{"flood", 0.5, 1, 2}, {"light", 0, 1, 0}};
    assert_int_equal(out.n_tenants, 2);
    for (size_t k = 0; k < 2; k++) {
        assert_string_equal(out.tenants[k].name, want[k].name);
        assert_double_near(out.tenants[k].share, want[k].share, 0);
        assert_double_near(out.tenants[k].weight, want[k].weight, 0);
        assert_int_equal(out.tenants[k].held, want[k].held);
    }
    ctl_release_out_free(&out);

    /* A weight of 4 for flood: its fair share is 0.8 (4 of 5), 0.75 is below it. */
    ds_tenant_map weights = {.n = 1, .value = {4}};
    strcpy(weights.name[0], "flood");
    fair.weights = &weights;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(released_idx(&out, 0), 4); /* light still first: 0 < 0.75 / 4 */
    assert_int_equal(out.by_reason[CTL_WAIT_FAIR_SHARE], 0);
    assert_int_equal(out.by_reason[CTL_WAIT_NO_ROOM], 2);
    ctl_release_out_free(&out);
    fair.weights = NULL;

    /* One tenant "x" for both namespaces (their label example.com/team). */
    ctl_kv team = {"example.com/team", "x"};
    ctl_namespace nss[2] = {{"flood", &team, 1, false}, {"light", &team, 1, false}};
    fair.tenant_label = "example.com/team";
    in.namespaces = nss;
    in.n_namespaces = 2;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(released_idx(&out, 0), 2);
    assert_int_equal(out.n_tenants, 1);
    assert_string_equal(out.tenants[0].name, "x");
    ctl_release_out_free(&out);
}

static void test_wait_reasons(void **state)
{
    (void)state;
    ds_dag dag;
    assert_int_equal(t_chain_dag(&dag), 0);
    ds_task_status st[3] = {
        {.state = DS_TASK_SUCCEEDED}, {.state = DS_TASK_RUNNING}, {.state = DS_TASK_BLOCKED}};
    ds_job model;
    memset(&model, 0, sizeof model);
    model.valid = true;
    model.dag = dag;
    model.status = st;
    ctl_node nodes[1] = {t_node("n1", MILLI(4))};
    ctl_pod pods[4] = {
        gated("c", DS_TASK_BLOCKED, 1.0, 1),
        ready_pod("r0", 0, MILLI(1)),
        ready_pod("r1", 1, MILLI(1)),
        t_pod("etl", "invalid", CTL_POD_GATED),
    };
    pods[0].task.task = 2;
    pods[3].task.job_invalid = true;
    ctl_batch_job jobs[2];
    memset(jobs, 0, sizeof jobs);
    jobs[0] = (ctl_batch_job){.ns = "batch",
                              .name = "too-big",
                              .suspended = true,
                              .task = {.job = 0, .state = DS_TASK_WAITING, .queue_pos = 2}};
    jobs[0].request.v[DS_RES_CPU] = MILLI(16);
    jobs[1] = (ctl_batch_job){
        .ns = "batch", .name = "blocked", .suspended = true, .task = {.job = 0, .task = 2}};
    jobs[1].task.state = DS_TASK_BLOCKED;
    ctl_release_in in = {.pods = pods,
                         .n_pods = 4,
                         .jobs = jobs,
                         .n_jobs = 2,
                         .nodes = nodes,
                         .n_nodes = 1,
                         .model = &model,
                         .n_model = 1,
                         .max_concurrent = 1};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 1);
    assert_int_equal(out.rel[0].idx, 1);
    char msg[CTL_MSG_MAX];
    ctl_wait_message(&in, wait_of(&out, 0), msg, sizeof msg);
    assert_string_equal(msg, "waiting for upstream tasks: b");
    assert_int_equal(ctl_wait_reason_of(msg), CTL_WAIT_UPSTREAM);
    ctl_wait_message(&in, wait_of(&out, 2), msg, sizeof msg);
    assert_string_equal(msg, "maxConcurrentReleases (1) tasks released and not yet running");
    assert_int_equal(ctl_wait_reason_of(msg), CTL_WAIT_LIMIT);
    ctl_wait_message(&in, wait_of(&out, 3), msg, sizeof msg);
    assert_int_equal(ctl_wait_reason_of(msg), CTL_WAIT_INVALID_JOB);
    assert_int_equal(out.by_reason[CTL_WAIT_UPSTREAM], 2);
    assert_int_equal(out.by_reason[CTL_WAIT_LIMIT], 2);
    assert_int_equal(out.by_reason[CTL_WAIT_INVALID_JOB], 1);
    ctl_release_out_free(&out);

    /* Without the limit the Job is held for room, on its template's request. */
    in.max_concurrent = 0;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_rel, 2);
    const ctl_wait *w = NULL;
    for (size_t i = 0; i < out.n_wait; i++)
        if (out.wait[i].kind == CTL_RELEASE_JOB && out.wait[i].idx == 0)
            w = &out.wait[i];
    assert_non_null(w);
    ctl_wait_message(&in, w, msg, sizeof msg);
    assert_string_equal(msg, "no room: needs cpu 16; larger than the allocatable of every node it "
                             "may run on");
    ctl_release_out_free(&out);

    /* Upstream names are bounded. */
    static const char *names[] = {"u0", "u1", "u2", "u3", "u4", "u5", "u6", "down"};
    static const char *ups[] = {"u0", "u1", "u2", "u3", "u4", "u5", "u6"};
    ds_task_spec specs[8];
    memset(specs, 0, sizeof specs);
    for (int i = 0; i < 8; i++) {
        specs[i].name = names[i];
        specs[i].runtime_s = 60;
    }
    specs[7].upstream = ups;
    specs[7].n_upstream = 7;
    ds_dag wide;
    assert_int_equal(ds_dag_build(&wide, specs, 8, NULL), 0);
    ds_task_status wst[8];
    memset(wst, 0, sizeof wst);
    for (int i = 0; i < 8; i++)
        wst[i].state = DS_TASK_RUNNING;
    wst[3].state = DS_TASK_SUCCEEDED;
    wst[7].state = DS_TASK_BLOCKED;
    model.dag = wide;
    model.status = wst;
    ctl_wait ww = {.kind = CTL_RELEASE_POD, .idx = 0, .reason = CTL_WAIT_UPSTREAM};
    pods[0].task.task = 7;
    ctl_wait_message(&in, &ww, msg, sizeof msg);
    assert_string_equal(msg, "waiting for upstream tasks: u0, u1, u2, u4, u5 (+1 more)");
    in.model = NULL;
    ctl_wait_message(&in, &ww, msg, sizeof msg);
    assert_string_equal(msg, "waiting for upstream tasks");
    ds_dag_free(&wide);
    ds_dag_free(&dag);
}

/* The reason annotation is written when it says something else: at once when the reason
 * changes (with an Event), the details at most every CTL_WAIT_UPDATE_EVERY_S, never when equal. */
/* A gang member of job `job`, task `task`, with the gang labels given. */
static ctl_pod gang_pod(const char *name, size_t job, size_t task, ctl_kv *labels, size_t n)
{
    ctl_pod p = ready_pod(name, task, MILLI(2));
    p.task.job = job;
    p.task.task = task;
    p.labels = labels;
    p.n_labels = n;
    return p;
}

/* Gang release: room for 2 of 3 members: none is released, each gets the gang's reason, and the
 * task behind the gang takes the room; room for 3: all in the same round. The same gang name in
 * another job (another namespace) is another gang. Malformed labels and an invalid gang are
 * reasons, never releases. */
static void test_capacity_gang(void **state)
{
    (void)state;
    ctl_kv lab[2] = {{DS_LABEL_GANG, "workers"}, {DS_LABEL_GANG_SIZE, "3"}};
    ctl_kv bad[1] = {{DS_LABEL_GANG, "workers"}};
    ctl_node nodes[2] = {t_node("n1", MILLI(4)), t_node("n2", MILLI(2))};
    ctl_pod pods[6] = {
        gang_pod("w0", 0, 0, lab, 2),       gang_pod("w1", 0, 1, lab, 2),
        gang_pod("w2", 0, 2, lab, 2),       ready_pod("single", 3, MILLI(1)),
        gang_pod("other-ns", 1, 4, lab, 2), gang_pod("bad", 2, 5, bad, 1),
    };
    pods[3].task.job = 3;
    pods[4].ns = "team-b";
    /* n1 has room for 2 members, n2 (1 core bound) for none. */
    ctl_pod more[7];
    memcpy(more, pods, sizeof pods);
    more[6] = t_running("batch", "bound", "n2", 9, 9, 1.0, MILLI(1));
    ctl_release_in in = {.pods = more, .n_pods = 7, .nodes = nodes, .n_nodes = 2};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    /* The gang holds the room of its third member on n2, where the bound pod's core frees: the
     * single task is not given the core free there (lib/admit.h, gang release). */
    assert_int_equal(out.n_rel, 0);
    assert_int_equal(wait_of(&out, 3)->reason, CTL_WAIT_NO_ROOM);
    char msg[CTL_MSG_MAX];
    for (size_t i = 0; i < 3; i++) {
        const ctl_wait *w = wait_of(&out, i);
        assert_int_equal(w->reason, CTL_WAIT_GANG);
        ctl_wait_message(&in, w, msg, sizeof msg);
        assert_string_equal(msg, "gang workers: room for 2 of 3 members; the room that frees is "
                                 "held for it");
        assert_int_equal(ctl_wait_reason_of(msg), CTL_WAIT_GANG);
    }
    ctl_wait_message(&in, wait_of(&out, 4), msg, sizeof msg);
    assert_string_equal(msg, "gang workers: 1 of 3 members ready"); /* its own job's gang */
    ctl_wait_message(&in, wait_of(&out, 5), msg, sizeof msg);
    assert_string_equal(msg, "gang labels are invalid: label dagsched.io/gang is set without "
                             "dagsched.io/gang-size");
    assert_int_equal(out.by_reason[CTL_WAIT_GANG], 5);
    assert_int_equal(out.n_gangs, 2);
    assert_int_equal(out.gangs_waiting, 2);
    assert_int_equal(out.gangs[0].pod, 0);
    assert_string_equal(
        out.gangs[0].why,
        "gang workers: room for 2 of 3 members; the room that frees is held for it");
    /* Ready since the pods' creation (at 1; no job model here): the timeout counts from then. */
    assert_double_near(out.gangs[0].g.ready_since, 1, 0);
    assert_true(ds_gang_timed_out(out.gangs[0].g.ready_since, 601, 600));
    assert_false(ds_gang_timed_out(out.gangs[0].g.ready_since, 600, 600));
    ctl_release_out_free(&out);

    /* The room frees: the three members go in one round. */
    more[6].state = CTL_POD_SUCCEEDED;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    size_t members = 0, on_n2 = 0;
    for (size_t k = 0; k < out.n_rel; k++) {
        bool member = out.rel[k].idx < 3;
        members += member ? 1 : 0;
        /* Each member holds the room planned for it (dagsched.io/reserved-node); others don't. */
        if (member) {
            assert_non_null(out.rel[k].hold_node);
            assert_string_equal(out.rel[k].hold_node, nodes[out.rel[k].r.node].name);
            on_n2 += strcmp(out.rel[k].hold_node, "n2") == 0 ? 1 : 0;
        } else {
            assert_null(out.rel[k].hold_node);
        }
    }
    assert_int_equal(members, 3);
    assert_int_equal(on_n2, 1);
    assert_int_equal(out.gangs_waiting, 1);
    ctl_release_out_free(&out);

    /* Started: one member released before; the others go as any task. */
    more[0].state = CTL_POD_PENDING;
    more[6].state = CTL_POD_BOUND;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.gangs[0].g.state, DS_GANG_STARTED);
    assert_int_equal(released_idx(&out, 0), 1);
    assert_int_equal(wait_of(&out, 2)->reason, CTL_WAIT_NO_ROOM);
    ctl_release_out_free(&out);

    /* Four members of a gang of three: invalid, none released. */
    ctl_pod four[4] = {gang_pod("a", 0, 0, lab, 2), gang_pod("b", 0, 1, lab, 2),
                       gang_pod("c", 0, 2, lab, 2), gang_pod("d", 0, 3, lab, 2)};
    ctl_release_in in4 = {
        .pods = four, .n_pods = 4, .nodes = nodes, .n_nodes = 2, .admission = DS_ADMIT_ALL};
    assert_int_equal(ctl_release_plan(&in4, &out, NULL), 0);
    assert_int_equal(out.n_rel, 0);
    ctl_wait_message(&in4, wait_of(&out, 3), msg, sizeof msg);
    assert_string_equal(msg, "gang workers is invalid: 4 members, more than its size 3");
    ctl_release_out_free(&out);
}

static void test_wait_pacing(void **state)
{
    (void)state;
    bool changed = true;
    const char *room1 = "no room: needs cpu 2; most free room on node n1: cpu 1";
    const char *room2 = "no room: needs cpu 2; most free room on node n1: cpu 1500m";
    assert_false(ctl_wait_due(room1, room1, CTL_WAIT_NO_ROOM, -1, NOW, &changed));
    assert_false(changed);
    assert_true(ctl_wait_due("", room1, CTL_WAIT_NO_ROOM, NOW - 1, NOW, &changed));
    assert_true(changed);
    assert_true(ctl_wait_due("waiting for upstream tasks: a", room1, CTL_WAIT_NO_ROOM, NOW - 1, NOW,
                             &changed));
    assert_true(changed);
    assert_false(ctl_wait_due(room1, room2, CTL_WAIT_NO_ROOM, NOW - 60, NOW, &changed));
    assert_false(changed);
    assert_true(
        ctl_wait_due(room1, room2, CTL_WAIT_NO_ROOM, NOW - CTL_WAIT_UPDATE_EVERY_S, NOW, &changed));
    assert_false(changed);
    assert_true(ctl_wait_due(room1, room2, CTL_WAIT_NO_ROOM, -1, NOW, &changed));
    assert_false(changed);
    assert_int_equal(ctl_wait_reason_of("something else"), CTL_WAIT_N);
    assert_int_equal(ctl_wait_reason_of(NULL), CTL_WAIT_N);
    assert_string_equal(ctl_wait_reason_name(CTL_WAIT_STARVING), "behind-starving");
    assert_string_equal(ctl_wait_reason_name(CTL_WAIT_N), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_release_order_and_limit),
        cmocka_unit_test(test_foreign_pods_untouched),
        cmocka_unit_test(test_queue_order_first),
        cmocka_unit_test(test_ungate_pods_outside_dag),
        cmocka_unit_test(test_ungate_gated_non_tasks),
        cmocka_unit_test(test_suspended_jobs),
        cmocka_unit_test(test_nudges),
        cmocka_unit_test(test_capacity_releases_what_fits),
        cmocka_unit_test(test_capacity_reserved_room),
        cmocka_unit_test(test_capacity_lookahead_and_queue),
        cmocka_unit_test(test_capacity_upcoming_keeps_room),
        cmocka_unit_test(test_capacity_upcoming_pod_goes_first),
        cmocka_unit_test(test_capacity_node_constraints),
        cmocka_unit_test(test_capacity_starvation_guard),
        cmocka_unit_test(test_wait_reasons),
        cmocka_unit_test(test_capacity_fair_share),
        cmocka_unit_test(test_capacity_gang),
        cmocka_unit_test(test_wait_pacing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
