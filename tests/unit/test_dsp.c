/* test_dsp.c: unit tests of the DSP priority (Eq. 12, 13), per-level deadlines, allowable waiting
 * time, parameter validation, node processing rate and the deadline feasibility test. Expected
 * values are worked out by hand in the comments. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsp.h"

static ds_priority_params defaults(void)
{
    ds_priority_params p;
    ds_priority_defaults(&p);
    return p;
}

static void test_defaults(void **state)
{
    (void)state;
    ds_priority_params p = defaults();
    assert_double_near(p.gamma, 0.5, 0);
    assert_double_near(p.w_remaining, 0.5, 0);
    assert_double_near(p.w_waiting, 0.3, 0);
    assert_double_near(p.w_slack, 0.2, 0);
    assert_int_equal(p.slack_term, DS_SLACK_URGENCY);
    assert_double_near(p.time_scale_s, 60, 0);
    assert_double_near(p.min_remaining_s, 1, 0);
}

static ds_task_status blocked(void)
{
    return (ds_task_status){DS_TASK_BLOCKED, 0, 0, 0};
}

static ds_task_status waiting(double since)
{
    return (ds_task_status){DS_TASK_WAITING, since, 0, 0};
}

static ds_task_status running(double started, double speed)
{
    return (ds_task_status){DS_TASK_RUNNING, 0, started, speed};
}

/* DSP paper, Fig. 2: T2, T3 depend on T1; T4, T5 on T2; T6, T7 on T3. Every task runs 60 s. */
static void build_fig2(ds_dag *d)
{
    static const char *u1[] = {"T1"}, *u2[] = {"T2"}, *u3[] = {"T3"};
    const ds_task_spec specs[] = {
        {"T1", 60, NULL, 0}, {"T2", 60, u1, 1}, {"T3", 60, u1, 1}, {"T4", 60, u2, 1},
        {"T5", 60, u2, 1},   {"T6", 60, u3, 1}, {"T7", 60, u3, 1},
    };
    ds_err err = {{0}};
    assert_int_equal(ds_dag_build(d, specs, 7, &err), 0);
}

/* now = 1000, deadline 1600, T1 waiting since 940, the rest blocked; defaults (gamma 0.5, weights
 * 0.5/0.3/0.2, time scale 60 s).
 * Level deadlines: L3 = 1600, L2 = 1600 - 60 = 1540, L1 = 1540 - 60 = 1480.
 * Leaves T4..T7: t_rem = 60 s = 1, t_wait = 0, t_allow = 1600 - 1000 - 60 = 540 s = 9.
 *   urgency: 0.5 / 1 + 0.2 / (1 + 9) = 0.52;  literal: 0.5 + 0.2 * 9 = 2.3.
 * T2, T3 = 2 * 1.5 * leaf: 1.56 / 6.9.  T1 = 2 * 1.5 * T2: 4.68 / 20.7. */
static void test_fig2_ordering(void **state)
{
    (void)state;
    ds_dag d;
    build_fig2(&d);
    ds_task_status st[7];
    st[0] = waiting(940);
    for (size_t i = 1; i < 7; i++)
        st[i] = blocked();
    ds_task_eval ev[7];
    ds_err err = {{0}};

    ds_priority_params p = defaults();
    assert_int_equal(ds_dsp_evaluate(&d, st, 1600, 1000, &p, ev, &err), 0);
    for (size_t i = 3; i < 7; i++)
        assert_double_near(ev[i].priority, 0.52, 1e-12);
    assert_double_near(ev[1].priority, 1.56, 1e-12);
    assert_double_near(ev[2].priority, 1.56, 1e-12);
    assert_double_near(ev[0].priority, 4.68, 1e-12);
    for (size_t i = 1; i < 3; i++) {
        assert_true(ev[0].priority > ev[i].priority);
        for (size_t j = 3; j < 7; j++)
            assert_true(ev[i].priority > ev[j].priority);
    }
    /* T1: t_wait 60 s, t_allow = 1480 - 1000 - 60 = 420; T2: 1540 - 1000 - 60 = 480. */
    assert_double_near(ev[0].t_wait_s, 60, 0);
    assert_double_near(ev[0].level_deadline, 1480, 0);
    assert_double_near(ev[0].t_allow_s, 420, 0);
    assert_double_near(ev[1].level_deadline, 1540, 0);
    assert_double_near(ev[1].t_allow_s, 480, 0);
    assert_double_near(ev[1].t_wait_s, 0, 0);
    assert_double_near(ev[6].t_allow_s, 540, 0);

    p.slack_term = DS_SLACK_LITERAL;
    assert_int_equal(ds_dsp_evaluate(&d, st, 1600, 1000, &p, ev, &err), 0);
    for (size_t i = 3; i < 7; i++)
        assert_double_near(ev[i].priority, 2.3, 1e-12);
    assert_double_near(ev[1].priority, 6.9, 1e-12);
    assert_double_near(ev[2].priority, 6.9, 1e-12);
    assert_double_near(ev[0].priority, 20.7, 1e-12);

    /* Without a deadline: no slack term under either form; leaves 0.5, T2 1.5, T1 4.5. */
    for (int form = 0; form < 2; form++) {
        p.slack_term = form == 0 ? DS_SLACK_URGENCY : DS_SLACK_LITERAL;
        assert_int_equal(ds_dsp_evaluate(&d, st, INFINITY, 1000, &p, ev, &err), 0);
        assert_double_near(ev[6].priority, 0.5, 1e-12);
        assert_double_near(ev[1].priority, 1.5, 1e-12);
        assert_double_near(ev[0].priority, 4.5, 1e-12);
        assert_double_inf(ev[0].t_allow_s, 1);
        assert_double_inf(ev[0].level_deadline, 1);
    }
    ds_dag_free(&d);
}

/* B and C depend on A, D on B; E stands alone. Runtimes A 120, B 300, C 60, D 180, E 30.
 * Levels: A, E 1; B, C 2; D 3. Longest runtime per level: 120, 300, 180.
 * now = 10000, deadline 11200: level deadlines L3 11200, L2 11200 - 180 = 11020,
 * L1 11020 - 300 = 10720.
 * A runs since 9940 on a node of speed 1.5: t_rem = 120 / 1.5 - 60 = 20 s, t_allow = 10720 - 10000
 * - 20 = 700 s. E waits since 9880 (t_wait 120 s = 2), t_rem 30 s = 0.5, t_allow 10720 - 10000 - 30
 * = 690 s = 11.5. B, C, D are blocked.
 * Leaves (urgency, defaults):
 *   C: t_rem 1, t_allow (11020 - 10000 - 60) / 60 = 16:  0.5 + 0.2 / 17            = 87/170
 *   D: t_rem 3, t_allow (11200 - 10000 - 180) / 60 = 17: 0.5 / 3 + 0.2 / 18       = 8/45
 *   E: 0.5 / 0.5 + 0.3 * 2 + 0.2 / 12.5                                          = 1.616
 * B = 1.5 * 8/45 = 4/15;  A = 1.5 * (4/15 + 87/170) = 397/340. */
static void test_exact_priorities(void **state)
{
    (void)state;
    const char *up_a[] = {"A"}, *up_b[] = {"B"};
    const ds_task_spec specs[] = {
        {"A", 120, NULL, 0}, {"B", 300, up_a, 1}, {"C", 60, up_a, 1},
        {"D", 180, up_b, 1}, {"E", 30, NULL, 0},
    };
    ds_dag d;
    assert_int_equal(ds_dag_build(&d, specs, 5, NULL), 0);
    ds_task_status st[5] = {running(9940, 1.5), blocked(), blocked(), blocked(), waiting(9880)};
    ds_task_eval ev[5];
    ds_priority_params p = defaults();
    ds_err err = {{0}};
    assert_int_equal(ds_dsp_evaluate(&d, st, 11200, 10000, &p, ev, &err), 0);

    assert_double_near(ev[2].priority, 87.0 / 170.0, 1e-12);
    assert_double_near(ev[3].priority, 8.0 / 45.0, 1e-12);
    assert_double_near(ev[4].priority, 1.616, 1e-12);
    assert_double_near(ev[1].priority, 4.0 / 15.0, 1e-12);
    assert_double_near(ev[0].priority, 397.0 / 340.0, 1e-12);

    assert_double_near(ev[0].t_rem_s, 20, 1e-9);
    assert_double_near(ev[0].t_wait_s, 0, 0);
    assert_double_near(ev[0].level_deadline, 10720, 0);
    assert_double_near(ev[0].t_allow_s, 700, 1e-9);
    assert_double_near(ev[4].t_rem_s, 30, 0);
    assert_double_near(ev[4].t_wait_s, 120, 0);
    assert_double_near(ev[4].t_allow_s, 690, 0);
    assert_double_near(ev[1].t_rem_s, 300, 0);
    assert_double_near(ev[1].level_deadline, 11020, 0);
    assert_double_near(ev[1].t_allow_s, 720, 0);
    assert_double_near(ev[3].level_deadline, 11200, 0);

    /* gamma 0.25 scales the chain by 1.25 per level: B = 1.25 * 8/45 = 2/9,
     * A = 1.25 * (2/9 + 87/170) = 1.25 * 1123/1530 = 1123/1224. */
    p.gamma = 0.25;
    assert_int_equal(ds_dsp_evaluate(&d, st, 11200, 10000, &p, ev, &err), 0);
    assert_double_near(ev[1].priority, 2.0 / 9.0, 1e-12);
    assert_double_near(ev[0].priority, 1123.0 / 1224.0, 1e-12);
    ds_dag_free(&d);
}

/* Levels' longest runtimes: L1 max(100, 40) = 100, L2 max(250, 30) = 250, L3 70.
 * Deadline 5000: L3 5000, L2 5000 - 70 = 4930, L1 4930 - 250 = 4680. */
static void test_level_deadlines(void **state)
{
    (void)state;
    const char *up_a[] = {"a"}, *up_b[] = {"b"}, *up_cb[] = {"c", "b"};
    const ds_task_spec specs[] = {
        {"a", 100, NULL, 0}, {"x", 40, NULL, 0},  {"b", 250, up_a, 1},
        {"c", 30, up_a, 1},  {"d", 70, up_cb, 2}, {"y", 10, up_b, 1},
    };
    ds_dag d;
    assert_int_equal(ds_dag_build(&d, specs, 6, NULL), 0);
    assert_int_equal(d.n_levels, 3);
    double dl[4];
    ds_level_deadlines(&d, 5000, dl);
    assert_double_near(dl[3], 5000, 0);
    assert_double_near(dl[2], 4930, 0);
    assert_double_near(dl[1], 4680, 0);
    ds_level_deadlines(&d, INFINITY, dl);
    for (int l = 1; l <= 3; l++)
        assert_double_inf(dl[l], 1);

    /* The evaluation uses the same deadlines: x (level 1, waiting) has t_allow 4680 - 4000 - 40. */
    ds_task_status st[6] = {running(3990, 1), waiting(3990), blocked(),
                            blocked(),        blocked(),     blocked()};
    ds_task_eval ev[6];
    ds_priority_params p = defaults();
    assert_int_equal(ds_dsp_evaluate(&d, st, 5000, 4000, &p, ev, NULL), 0);
    assert_double_near(ev[1].level_deadline, 4680, 0);
    assert_double_near(ev[1].t_allow_s, 640, 0);
    assert_double_near(ev[5].level_deadline, 5000, 0);
    assert_double_near(ev[5].t_allow_s, 990, 0);
    assert_double_near(ev[3].level_deadline, 4930, 0);
    ds_dag_free(&d);
}

/* Five independent tasks of 300 s, one level, deadline now + 1000 (now = 50000). */
static void test_allowable_waiting(void **state)
{
    (void)state;
    const ds_task_spec specs[] = {
        {"wait", 300, NULL, 0}, {"fast", 300, NULL, 0}, {"overrun", 300, NULL, 0},
        {"done", 300, NULL, 0}, {"skew", 300, NULL, 0},
    };
    ds_dag d;
    assert_int_equal(ds_dag_build(&d, specs, 5, NULL), 0);
    const double now = 50000;
    ds_task_status st[5] = {
        waiting(now + 20),     /* runnable "in the future": t_wait 0 */
        running(now - 100, 2), /* 300 / 2 - 100 = 50 s left */
        running(now - 400, 1), /* 300 - 400 < 0: the floor, 1 s */
        {DS_TASK_SUCCEEDED, 0, 0, 0},
        running(now + 50, 2), /* started "in the future": 150 s left */
    };
    ds_task_eval ev[5];
    ds_priority_params p = defaults();
    ds_err err = {{0}};
    assert_int_equal(ds_dsp_evaluate(&d, st, now + 1000, now, &p, ev, &err), 0);
    assert_double_near(ev[0].t_rem_s, 300, 0);
    assert_double_near(ev[0].t_wait_s, 0, 0);
    assert_double_near(ev[0].t_allow_s, 700, 0);
    assert_double_near(ev[1].t_rem_s, 50, 0);
    assert_double_near(ev[1].t_allow_s, 950, 0);
    assert_double_near(ev[2].t_rem_s, 1, 0);
    assert_double_near(ev[2].t_allow_s, 999, 0);
    assert_double_near(ev[3].t_rem_s, 0, 0);
    assert_double_near(ev[3].t_allow_s, 1000, 0);
    assert_double_near(ev[4].t_rem_s, 150, 0);
    assert_double_near(ev[4].t_allow_s, 850, 0);
    /* Running tasks never have waiting time. */
    for (size_t i = 1; i < 5; i++)
        assert_double_near(ev[i].t_wait_s, 0, 0);
    /* The succeeded task enters Eq. 13 with the 1 s floor: 0.5 / (1/60) + 0.2 / (1 + 1000/60)
     * = 30 + 0.2 * 60 / 1060. */
    assert_double_near(ev[3].priority, 30 + 12.0 / 1060.0, 1e-12);

    /* A smaller floor changes only the overrun task: 0.25 s. */
    p.min_remaining_s = 0.25;
    assert_int_equal(ds_dsp_evaluate(&d, st, now + 1000, now, &p, ev, &err), 0);
    assert_double_near(ev[2].t_rem_s, 0.25, 0);
    assert_double_near(ev[2].t_allow_s, 999.75, 0);
    assert_double_near(ev[1].t_rem_s, 50, 0);
    ds_dag_free(&d);
}

/* One waiting task of 60 s per job, waiting 180 s (t_wait = 3, so 0.3 * 3 = 0.9), now = 7200.
 *   deadline now + 600:  t_allow 540 = 9:   urgency 0.5 + 0.9 + 0.2 / 10  = 1.42,  literal 3.2
 *   deadline now + 6000: t_allow 5940 = 99: urgency 0.5 + 0.9 + 0.2 / 100 = 1.402, literal 21.2
 *   deadline now + 30:   t_allow -30:       urgency 0.5 + 0.9 + 0.2       = 1.6,   literal 1.3
 *   no deadline:                            1.4 under both */
static void test_slack_terms(void **state)
{
    (void)state;
    const ds_task_spec spec = {"t", 60, NULL, 0};
    ds_dag d;
    assert_int_equal(ds_dag_build(&d, &spec, 1, NULL), 0);
    const double now = 7200;
    ds_task_status st = waiting(now - 180);
    const double deadlines[] = {now + 600, now + 6000, now + 30, INFINITY};
    const double want_urgency[] = {1.42, 1.402, 1.6, 1.4};
    const double want_literal[] = {3.2, 21.2, 1.3, 1.4};
    ds_priority_params p = defaults();
    double urg[4], lit[4];
    for (size_t k = 0; k < 4; k++) {
        ds_task_eval ev;
        p.slack_term = DS_SLACK_URGENCY;
        assert_int_equal(ds_dsp_evaluate(&d, &st, deadlines[k], now, &p, &ev, NULL), 0);
        urg[k] = ev.priority;
        assert_double_near(urg[k], want_urgency[k], 1e-12);
        p.slack_term = DS_SLACK_LITERAL;
        assert_int_equal(ds_dsp_evaluate(&d, &st, deadlines[k], now, &p, &ev, NULL), 0);
        lit[k] = ev.priority;
        assert_double_near(lit[k], want_literal[k], 1e-12);
    }
    /* Less slack, more priority under urgency; the opposite under the literal form. */
    assert_true(urg[2] > urg[0] && urg[0] > urg[1] && urg[1] > urg[3]);
    assert_true(lit[1] > lit[0] && lit[0] > lit[2]);

    /* A zero slack weight drops the term entirely (also for a missed deadline, literal form). */
    p.w_slack = 0;
    ds_task_eval ev;
    assert_int_equal(ds_dsp_evaluate(&d, &st, now + 30, now, &p, &ev, NULL), 0);
    assert_double_near(ev.priority, 1.4, 1e-12);
    ds_dag_free(&d);
}

static void test_urgent(void **state)
{
    (void)state;
    ds_task_eval e = {0};
    e.t_allow_s = 30;
    assert_true(ds_dsp_is_urgent(&e, 30));
    e.t_allow_s = -5;
    assert_true(ds_dsp_is_urgent(&e, 30));
    e.t_allow_s = 30.5;
    assert_false(ds_dsp_is_urgent(&e, 30));
    e.t_allow_s = INFINITY;
    assert_false(ds_dsp_is_urgent(&e, 30));
    assert_false(ds_dsp_is_urgent(NULL, 30));
}

static void expect_eval_error(const ds_dag *d, const ds_task_status *st, double deadline,
                              double now, const ds_priority_params *p, const char *want)
{
    ds_task_eval ev[4];
    ds_err err = {{0}};
    assert_int_equal(ds_dsp_evaluate(d, st, deadline, now, p, ev, &err), -1);
    assert_string_equal(err.msg, want);
}

static void test_invalid(void **state)
{
    (void)state;
    const char *up_a[] = {"a"};
    const ds_task_spec specs[] = {{"a", 10, NULL, 0}, {"b", 10, up_a, 1}};
    ds_dag d;
    assert_int_equal(ds_dag_build(&d, specs, 2, NULL), 0);
    ds_task_status st[2] = {waiting(0), blocked()};
    const ds_priority_params ok = defaults();
    ds_priority_params p;

    p = ok;
    p.gamma = 1;
    expect_eval_error(&d, st, 100, 50, &p, "priority.gamma: must be in (0, 1) (got 1)");
    p.gamma = 0;
    expect_eval_error(&d, st, 100, 50, &p, "priority.gamma: must be in (0, 1) (got 0)");
    p.gamma = NAN;
    expect_eval_error(&d, st, 100, 50, &p, "priority.gamma: must be in (0, 1) (got nan)");
    p = ok;
    p.w_remaining = -0.1;
    expect_eval_error(&d, st, 100, 50, &p,
                      "priority.w_remaining: must be a finite number >= 0 (got -0.1)");
    p = ok;
    p.w_waiting = INFINITY;
    expect_eval_error(&d, st, 100, 50, &p,
                      "priority.w_waiting: must be a finite number >= 0 (got inf)");
    p = ok;
    p.w_slack = NAN;
    expect_eval_error(&d, st, 100, 50, &p,
                      "priority.w_slack: must be a finite number >= 0 (got nan)");
    p = ok;
    p.slack_term = (ds_slack_term)7;
    expect_eval_error(&d, st, 100, 50, &p,
                      "priority.slack_term: must be urgency or literal (got 7)");
    p = ok;
    p.time_scale_s = 0;
    expect_eval_error(&d, st, 100, 50, &p,
                      "priority.time_scale_s: must be a finite number of seconds > 0 (got 0)");
    p = ok;
    p.min_remaining_s = 0; /* a task with no time left would get an infinite priority */
    expect_eval_error(&d, st, 100, 50, &p,
                      "priority.min_remaining_s: must be a finite number of seconds > 0 (got 0)");
    p.min_remaining_s = -1;
    expect_eval_error(&d, st, 100, 50, &p,
                      "priority.min_remaining_s: must be a finite number of seconds > 0 (got -1)");
    expect_eval_error(&d, st, 100, 50, NULL, "priority: parameters are missing");
    expect_eval_error(&d, st, 100, NAN, &ok, "now: must be a finite time (got nan)");
    expect_eval_error(&d, st, 100, INFINITY, &ok, "now: must be a finite time (got inf)");
    expect_eval_error(&d, st, NAN, 50, &ok,
                      "job deadline: must be a finite time, or +inf for none (got nan)");
    expect_eval_error(&d, st, -INFINITY, 50, &ok,
                      "job deadline: must be a finite time, or +inf for none (got -inf)");
    expect_eval_error(NULL, st, 100, 50, &ok, "priority: job DAG is missing");
    expect_eval_error(&d, NULL, 100, 50, &ok, "priority: task status array is missing");

    ds_task_status bad[2] = {running(0, 0), blocked()};
    expect_eval_error(&d, bad, 100, 50, &ok,
                      "task \"a\": speed: must be a finite number > 0 for a running task (got 0)");
    bad[0] = running(0, NAN);
    expect_eval_error(
        &d, bad, 100, 50, &ok,
        "task \"a\": speed: must be a finite number > 0 for a running task (got nan)");
    bad[0] = running(NAN, 1);
    expect_eval_error(&d, bad, 100, 50, &ok,
                      "task \"a\": started_at: must be a finite time for a running task (got nan)");
    bad[0] = waiting(INFINITY);
    expect_eval_error(
        &d, bad, 100, 50, &ok,
        "task \"a\": runnable_since: must be a finite time for a waiting task (got inf)");
    bad[0] = waiting(0);
    bad[1].state = (ds_task_state)42;
    expect_eval_error(&d, bad, 100, 50, &ok, "task \"b\": state: unknown value (got 42)");

    /* Speed is not looked at unless the task runs. */
    ds_task_status fine[2] = {{DS_TASK_SUCCEEDED, NAN, NAN, 0}, {DS_TASK_WAITING, 10, NAN, -1}};
    ds_task_eval ev[2];
    assert_int_equal(ds_dsp_evaluate(&d, fine, 100, 50, &ok, ev, NULL), 0);
    ds_dag_free(&d);
}

/* A chain of 3,000 tasks: priorities grow by 1.5 per level and saturate at DBL_MAX instead of
 * overflowing (1.5^1750 > DBL_MAX). */
static void test_saturation(void **state)
{
    (void)state;
    enum { N = 3000 };
    static char names[N][16];
    static const char *ups[N];
    static ds_task_spec specs[N];
    static ds_task_status st[N];
    static ds_task_eval ev[N];
    for (size_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "s%zu", i);
        specs[i] = (ds_task_spec){names[i], 1, NULL, 0};
        st[i] = blocked();
        if (i > 0) {
            ups[i] = names[i - 1];
            specs[i].upstream = &ups[i];
            specs[i].n_upstream = 1;
        }
    }
    ds_dag d;
    assert_int_equal(ds_dag_build(&d, specs, N, NULL), 0);
    ds_priority_params p = defaults();
    assert_int_equal(ds_dsp_evaluate(&d, st, INFINITY, 0, &p, ev, NULL), 0);
    /* Leaf: 0.5 / (1/60) = 30; its parent 45. */
    assert_double_near(ev[N - 1].priority, 30, 1e-9);
    assert_double_near(ev[N - 2].priority, 45, 1e-9);
    for (size_t i = 0; i + 1 < N; i++) {
        assert_true(isfinite(ev[i].priority));
        assert_true(ev[i].priority >= ev[i + 1].priority);
    }
    assert_true(ev[0].priority == DBL_MAX);
    ds_dag_free(&d);
}

/* A priority that overflows downwards is held at -DBL_MAX: the literal slack term with a huge
 * weight and a deadline long past: 0.5 / 1 + 1e300 * (-1e12 - 60) / 60 = -inf. */
static void test_negative_saturation(void **state)
{
    (void)state;
    ds_task_spec specs[] = {{"a", 60, NULL, 0}};
    ds_dag d;
    assert_int_equal(ds_dag_build(&d, specs, 1, NULL), 0);
    ds_task_status st[] = {waiting(0)};
    ds_task_eval ev[1];
    ds_priority_params p = defaults();
    p.slack_term = DS_SLACK_LITERAL;
    p.w_slack = 1e300;
    assert_int_equal(ds_dsp_evaluate(&d, st, -1e12, 0, &p, ev, NULL), 0);
    assert_double_near(ev[0].t_allow_s, -1e12 - 60, 1e-15);
    assert_true(ev[0].priority == -DBL_MAX);
    ds_dag_free(&d);
}

/* A time scale below a second is valid: leaf a (1 s, waited 0) with time_scale 0.5 s:
 * 0.5 / (1 / 0.5) = 0.25. */
static void test_subsecond_time_scale(void **state)
{
    (void)state;
    ds_task_spec specs[] = {{"a", 1, NULL, 0}};
    ds_dag d;
    assert_int_equal(ds_dag_build(&d, specs, 1, NULL), 0);
    ds_task_status st[] = {waiting(100)};
    ds_task_eval ev[1];
    ds_priority_params p = defaults();
    p.time_scale_s = 0.5;
    ds_err err = {{0}};
    assert_int_equal(ds_dsp_evaluate(&d, st, INFINITY, 100, &p, ev, &err), 0);
    assert_double_near(ev[0].priority, 0.25, 1e-12);
    ds_dag_free(&d);
}

/* Edges: ds_level_deadlines with a missing DAG or output array, or a DAG without levels, writes
 * nothing, and never the unused slot 0; a one-task evaluation without its status array fails. */
static void test_edge_arguments(void **state)
{
    (void)state;
    ds_task_spec specs[] = {{"a", 10, NULL, 0}};
    ds_dag d;
    assert_int_equal(ds_dag_build(&d, specs, 1, NULL), 0);
    double dl[2] = {-1, -1};
    ds_level_deadlines(NULL, 100, dl);
    ds_level_deadlines(&d, 100, NULL);
    assert_double_near(dl[0], -1, 0);
    assert_double_near(dl[1], -1, 0);
    ds_level_deadlines(&d, 100, dl);
    assert_double_near(dl[1], 100, 0);
    assert_double_near(dl[0], -1, 0); /* there is no level 0 */
    ds_dag_free(&d);

    /* A job without tasks has no levels: nothing is written. */
    assert_int_equal(ds_dag_build(&d, NULL, 0, NULL), 0);
    ds_level_deadlines(&d, 100, dl);
    assert_double_near(dl[0], -1, 0);
    ds_dag_free(&d);

    /* The evaluation of a one-task job needs its status and output arrays. */
    ds_dag one;
    assert_int_equal(ds_dag_build(&one, specs, 1, NULL), 0);
    ds_priority_params p = defaults();
    ds_task_eval ev[1];
    ds_err err = {{0}};
    assert_int_equal(ds_dsp_evaluate(&one, NULL, 100, 50, &p, ev, &err), -1);
    assert_string_equal(err.msg, "priority: task status array is missing");
    ds_dag_free(&one);
}

/* A job without tasks: nothing to evaluate, success, and no arrays are needed. */
static void test_empty_dag(void **state)
{
    (void)state;
    ds_dag d;
    ds_err err = {{0}};
    assert_int_equal(ds_dag_build(&d, NULL, 0, &err), 0);
    ds_priority_params p = defaults();
    assert_int_equal(ds_dsp_evaluate(&d, NULL, 2000, 1000, &p, NULL, &err), 0);
    assert_int_equal(ds_dsp_evaluate(&d, NULL, INFINITY, 1000, &p, NULL, &err), 0);
    assert_string_equal(err.msg, "");
    ds_dag_free(&d);
}

static void test_node_rate(void **state)
{
    (void)state;
    /* 8 of 16 cores, 32 of 64 GiB: 0.5 * 0.5 + 0.5 * 0.5 = 0.5. */
    assert_double_near(ds_node_rate(8, 32, 16, 64, 0.5, 0.5), 0.5, 1e-12);
    /* The largest node: 1. */
    assert_double_near(ds_node_rate(16, 64, 16, 64, 0.5, 0.5), 1.0, 1e-12);
    /* 16 cores, 16 GiB: 0.5 * 1 + 0.5 * 0.25 = 0.625. */
    assert_double_near(ds_node_rate(16, 16, 16, 64, 0.5, 0.5), 0.625, 1e-12);
    /* theta 0.7 / 0.3, 4 of 16 cores, 64 of 64 GiB: 0.7 * 0.25 + 0.3 * 1 = 0.475. */
    assert_double_near(ds_node_rate(4, 64, 16, 64, 0.7, 0.3), 0.475, 1e-12);
    /* No figures at all: the reference rate. */
    assert_double_near(ds_node_rate(0, 0, 0, 0, 0.5, 0.5), 1.0, 0);
    assert_double_near(ds_node_rate(8, 32, 0, 0, 0.7, 0.3), 1.0, 0);
    /* No memory figure in the cluster: every node counts as the largest in memory:
     * 0.5 * 0.5 + 0.5 * 1 = 0.75. */
    assert_double_near(ds_node_rate(8, 0, 16, 0, 0.5, 0.5), 0.75, 1e-12);
    /* Nothing allocatable; negative inputs count as 0. */
    assert_double_near(ds_node_rate(0, 0, 16, 64, 0.5, 0.5), 0, 0);
    assert_double_near(ds_node_rate(-8, 32, 16, 64, 0.5, 0.5), 0.25, 1e-12);
    assert_double_near(ds_node_rate(8, 32, 16, 64, -1, 0.5), 0.25, 1e-12);
    assert_double_near(ds_node_rate(8, 32, 16, 64, 0.5, -1), 0.25, 1e-12);
    assert_double_near(ds_node_rate(8, 32, 16, 64, 0.5, NAN), 0.25, 1e-12);
    /* No figures: the reference rate, whatever the weights sum to. */
    assert_double_near(ds_node_rate(8, 32, 0, 0, 0.6, 0.2), 1.0, 0);
    /* Capacities and amounts below 1 (a cluster of half-core nodes): 0.25 of 0.5 cores, 0.5 of
     * 2 GiB: 0.5 * 0.5 + 0.5 * 0.25 = 0.375. */
    assert_double_near(ds_node_rate(0.25, 0.5, 0.5, 2, 0.5, 0.5), 0.375, 1e-12);
    /* No memory figure, 0.25 of a 0.5-core cpu capacity: 0.5 * 0.5 + 0.5 * 1 = 0.75. */
    assert_double_near(ds_node_rate(0.25, 0, 0.5, 0, 0.5, 0.5), 0.75, 1e-12);
    /* No cpu figure, 0.25 of a 0.5 GiB memory capacity: 0.7 * 1 + 0.3 * 0.5 = 0.85. */
    assert_double_near(ds_node_rate(0.25, 0.25, 0, 0.5, 0.7, 0.3), 0.85, 1e-12);

    /* Eq. 2: 100 s on a node of rate 0.5 takes 200 s. */
    assert_true(ds_can_finish_by(100, 0.5, 1000, 1200));
    assert_false(ds_can_finish_by(100, 0.5, 1000, 1199));
    assert_true(ds_can_finish_by(100, 2, 1000, 1050));
    assert_false(ds_can_finish_by(100, 2, 1000, 1049.9));
    assert_true(ds_can_finish_by(100, 0.5, 1000, INFINITY));
    assert_true(ds_can_finish_by(100, 0, 1000, INFINITY));
    assert_false(ds_can_finish_by(100, 0, 1000, 1e12));
    assert_false(ds_can_finish_by(100, NAN, 1000, 1e12));
    assert_false(ds_can_finish_by(100, 1, 1000, NAN));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_fig2_ordering),
        cmocka_unit_test(test_exact_priorities),
        cmocka_unit_test(test_level_deadlines),
        cmocka_unit_test(test_allowable_waiting),
        cmocka_unit_test(test_slack_terms),
        cmocka_unit_test(test_urgent),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_saturation),
        cmocka_unit_test(test_negative_saturation),
        cmocka_unit_test(test_subsecond_time_scale),
        cmocka_unit_test(test_edge_arguments),
        cmocka_unit_test(test_empty_dag),
        cmocka_unit_test(test_node_rate),
    };
    return cmocka_run_group_tests_name("dsp", tests, NULL, NULL);
}
