/* test_publish.c: unit tests of the DSP annotation values (rounding that limits updates), the
 * order and pace of annotation updates, and the Event texts that explain an eviction. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ctl_test_util.h"
#include "publish.h"

static void test_values(void **state)
{
    (void)state;
    ctl_task_info t;
    memset(&t, 0, sizeof t);
    t.evaluated = true;
    t.eval.priority = 0.87349;
    t.eval.t_allow_s = 273.0;             /* below 5 min: 10 s steps */
    t.eval.level_deadline = 1767322800.0; /* 2026-01-02T03:00:00Z */
    ctl_dsp_values v;
    ctl_publish_values(&t, &v);
    assert_string_equal(v.priority, "0.873");
    assert_string_equal(v.slack, "4m30s");
    assert_string_equal(v.level_deadline, "2026-01-02T03:00:00Z");
    t.eval.t_allow_s = 1799.0; /* below 1 h: whole minutes */
    ctl_publish_values(&t, &v);
    assert_string_equal(v.slack, "30m0s");
    t.eval.t_allow_s = 7000.0; /* 10 min steps */
    ctl_publish_values(&t, &v);
    assert_string_equal(v.slack, "2h0m0s");
    t.eval.t_allow_s = -24.0; /* late */
    ctl_publish_values(&t, &v);
    assert_string_equal(v.slack, "-20s");
    t.eval.t_allow_s = INFINITY;
    t.eval.level_deadline = INFINITY;
    ctl_publish_values(&t, &v);
    assert_string_equal(v.slack, "none");
    assert_string_equal(v.level_deadline, "none");
    assert_false(ctl_publish_differs(&v, "0.873", "none", "none"));
    assert_true(ctl_publish_differs(&v, "0.874", "none", "none"));
    assert_true(ctl_publish_differs(&v, NULL, "none", "none"));
}

static void test_messages(void **state)
{
    (void)state;
    ds_policy pol;
    ds_policy_defaults(&pol);
    ctl_pod pre = t_waiting("prod", "report", 1, 0, 2.5, 12.4, 1000);
    ctl_pod vic = t_running("batch", "etl-3", "n1", 0, 0, 0.3, 1000);
    ctl_eviction e = {.victim = 1,
                      .preemptor = 0,
                      .node = 0,
                      .reason = DS_REASON_URGENT,
                      .gap = 2.2,
                      .normalised_gap = 4,
                      .room_wait_s = NAN};
    char buf[CTL_MSG_MAX];
    ctl_victim_message(&e, &pre, &vic, "n1", &pol, false, buf, sizeof buf);
    assert_string_equal(buf, "Evicted on node n1 to make room for prod/report (urgent: its slack "
                             "12s is within the urgent threshold 30s); this pod's DSP priority "
                             "is 0.3");
    ctl_preemptor_message(&e, &pre, &vic, "n1", &pol, true, buf, sizeof buf);
    assert_string_equal(buf, "Would evict (dry run) batch/etl-3 (DSP priority 0.3) on node n1 for "
                             "this pod (urgent: its slack 12s is within the urgent threshold "
                             "30s)");
    /* Urgent by forecast: room would come too late (lib/preempt_rules.h, ds_task_urgent). */
    e.room_wait_s = 49.4;
    ctl_explain_reason(&e, &pre, &vic, &pol, buf, sizeof buf);
    assert_string_equal(buf, "urgent: room would come in 49s without an eviction, too late for "
                             "its slack 12s (or its job's)");
    /* ... or never, as far as the running tasks' ends go. */
    e.room_wait_s = INFINITY;
    ctl_explain_reason(&e, &pre, &vic, &pol, buf, sizeof buf);
    assert_string_equal(buf, "urgent: room would not come without an eviction (the tasks queued "
                             "ahead of it take what the running tasks free), too late for its "
                             "slack 12s (or its job's)");
    e.reason = DS_REASON_PRIORITY;
    ctl_explain_reason(&e, &pre, &vic, &pol, buf, sizeof buf);
    assert_string_equal(buf, "priority: its DSP priority 2.5 exceeds 0.3 by 4.00 times the "
                             "average priority gap (rho 1.50)");
    e.reason = DS_REASON_STARVATION;
    pol.preemption.tau_s = 300;
    pre.task.eval.t_wait_s = 312;
    ctl_explain_reason(&e, &pre, &vic, &pol, buf, sizeof buf);
    assert_string_equal(buf, "starving: it has waited 5m12s, at least tau 5m0s");
}

/* The pace of annotation updates: a pending pod every 2 minutes and never while cooling down, a
 * running one every minute unless urgent; never updated before means due. */
static void test_publish_due(void **state)
{
    (void)state;
    ctl_pod run = t_running("ml", "r", "n1", 0, 0, 0.5, MILLI(1));
    assert_true(ctl_publish_due(&run, -1, NOW, false, false));
    assert_false(ctl_publish_due(&run, NOW - 59, NOW, false, false));
    assert_true(ctl_publish_due(&run, NOW - 59, NOW, true, false)); /* just became urgent */
    assert_true(ctl_publish_due(&run, NOW - 60, NOW, false, false));
    assert_true(ctl_publish_due(&run, NOW - 60, NOW, false, true)); /* cooling: pending only */
    ctl_pod wait = t_waiting("ml", "w", 0, 1, 0.9, 30, MILLI(1));
    assert_true(ctl_publish_due(&wait, -1, NOW, false, false));
    assert_false(ctl_publish_due(&wait, NOW - 119, NOW, true, false)); /* urgent: no exception */
    assert_true(ctl_publish_due(&wait, NOW - 120, NOW, false, false));
    assert_false(ctl_publish_due(&wait, -1, NOW, false, true));
    assert_false(ctl_publish_due(&wait, NOW - 600, NOW, true, true));
    wait.state = CTL_POD_GATED;
    assert_false(ctl_publish_due(&wait, NOW - 60, NOW, false, false));
}

/* Highest DSP priority first, ties by index; finished, terminating and unevaluated pods are left
 * out. */
static void test_publish_order(void **state)
{
    (void)state;
    ctl_pod pods[] = {
        t_running("ml", "a", "n1", 0, 0, 0.2, MILLI(1)),
        t_waiting("ml", "b", 0, 1, 0.9, 30, MILLI(1)),
        t_running("ml", "c", "n1", 0, 2, 0.5, MILLI(1)),
        t_running("ml", "d", "n1", 0, 3, 0.5, MILLI(1)),
        t_running("ml", "e", "n1", 0, 4, 0.99, MILLI(1)),
        t_running("ml", "f", "n1", 0, 5, 0.98, MILLI(1)),
        t_pod("ml", "g", CTL_POD_PENDING),
    };
    pods[4].state = CTL_POD_SUCCEEDED;
    pods[5].terminating = true;
    size_t idx[7];
    assert_int_equal(ctl_publish_order(pods, 7, idx), 4);
    assert_int_equal(idx[0], 1);
    assert_int_equal(idx[1], 2);
    assert_int_equal(idx[2], 3);
    assert_int_equal(idx[3], 0);
    assert_int_equal(ctl_publish_order(pods, 0, idx), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_publish_due),
        cmocka_unit_test(test_publish_order),
        cmocka_unit_test(test_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
