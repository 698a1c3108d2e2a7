/* test_release.c: unit tests of task release (gated pods and suspended Jobs whose upstream tasks
 * succeeded, in the policy's queue order then highest DSP priority first, maxConcurrentReleases)
 * and of nudges (once per unschedulable episode). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ctl_test_util.h"
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
    ctl_release_in in = {.pods = pods, .n_pods = 6};
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
    in = (ctl_release_in){.pods = more, .n_pods = 7, .max_concurrent = 3};
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
    ctl_release_in in = {.pods = pods, .n_pods = 6, .max_concurrent = 1};
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
    ctl_release_in in = {.pods = pods, .n_pods = 5, .max_concurrent = 1};
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
    ctl_release_in in = {.pods = pods, .n_pods = 3, .max_concurrent = 1};
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
    ctl_release_in in = {.jobs = jobs, .n_jobs = 3, .max_concurrent = 1};
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
    ctl_release_in in = {.pods = pods, .n_pods = 5};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_nudge, 2);
    assert_int_equal(out.nudge[0], 0);
    assert_int_equal(out.nudge[1], 2);
    assert_int_equal(out.n_rel, 0);
    ctl_release_out_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_release_order_and_limit),
        cmocka_unit_test(test_queue_order_first),
        cmocka_unit_test(test_ungate_pods_outside_dag),
        cmocka_unit_test(test_ungate_gated_non_tasks),
        cmocka_unit_test(test_suspended_jobs),
        cmocka_unit_test(test_nudges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
