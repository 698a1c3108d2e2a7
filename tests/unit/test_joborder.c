/* test_joborder.c: unit tests of the order across jobs (joborder.h): job summaries (remaining work,
 * remaining critical path, slack), the remaining path of each task (critical-path-first), order
 * keys under each job order, each order within a job and the starvation threshold, and the names.
 * Expected values are worked out by hand in the comments. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <math.h>
#include <string.h>

#include "joborder.h"
#include "jobmodel_helpers.h"

/* DSP Fig. 2 shape: T2, T3 depend on T1; T4, T5 on T2; T6, T7 on T3. Runtimes (reference s):
 * T1 60, T2 120, T3 30, T4 10, T5 200, T6 40, T7 50. */
static void build_job(ds_dag *d)
{
    static const char *u1[] = {"T1"}, *u2[] = {"T2"}, *u3[] = {"T3"};
    const ds_task_spec specs[] = {
        {"T1", 60, NULL, 0}, {"T2", 120, u1, 1}, {"T3", 30, u1, 1}, {"T4", 10, u2, 1},
        {"T5", 200, u2, 1},  {"T6", 40, u3, 1},  {"T7", 50, u3, 1},
    };
    ds_err err = {{0}};
    assert_int_equal(ds_dag_build(d, specs, 7, &err), 0);
}

/* now = 1000: T1 succeeded, T2 running since 940 on a node of speed 1, T3 waiting since 990, the
 * rest blocked. Remaining times: T2 120 - 60 = 60, T3 30, T4 10, T5 200, T6 40, T7 50.
 *   work = 60 + 30 + 10 + 200 + 40 + 50 = 390
 *   paths: T4 10, T5 200, T6 40, T7 50; T2 60 + 200 = 260; T3 30 + 50 = 80; T1 0 + 260 = 260
 *   slack = 1600 - 1000 - 260 = 340 with the deadline at 1600. */
static void evaluate(const ds_dag *d, ds_task_status *st, ds_task_eval *ev, double deadline)
{
    st[0] = (ds_task_status){DS_TASK_SUCCEEDED, 0, 0, 0};
    st[1] = (ds_task_status){DS_TASK_RUNNING, 0, 940, 1.0};
    st[2] = (ds_task_status){DS_TASK_WAITING, 990, 0, 0};
    for (size_t i = 3; i < 7; i++)
        st[i] = (ds_task_status){DS_TASK_BLOCKED, 0, 0, 0};
    ds_priority_params pp;
    ds_priority_defaults(&pp);
    ds_err err = {{0}};
    assert_int_equal(ds_dsp_evaluate(d, st, deadline, 1000, &pp, ev, &err), 0);
}

static void test_summary(void **state)
{
    (void)state;
    ds_dag d;
    build_job(&d);
    ds_task_status st[7];
    ds_task_eval ev[7];
    evaluate(&d, st, ev, 1600);
    ds_job_summary s;
    ds_err err = {{0}};
    assert_int_equal(ds_job_summarise(&d, st, ev, 1600, 1000, &s, &err), 0);
    assert_double_near(s.remaining_work_s, 390, 1e-9);
    assert_double_near(s.remaining_path_s, 260, 1e-9);
    assert_double_near(s.slack_s, 340, 1e-9);
    assert_int_equal(s.unfinished, 6);
    assert_int_equal(s.remaining_steps, 2); /* T2, T5: T1 has succeeded */

    /* Without a deadline the slack is infinite; the rest is the same. */
    evaluate(&d, st, ev, INFINITY);
    assert_int_equal(ds_job_summarise(&d, st, ev, INFINITY, 1000, &s, &err), 0);
    assert_double_inf(s.slack_s, 1);
    assert_double_near(s.remaining_work_s, 390, 1e-9);

    /* Nothing started: T1 waiting, the rest blocked. Work 60 + 120 + 30 + 10 + 200 + 40 + 50 =
     * 510; longest path T1 T2 T5 = 380; slack 1600 - 1000 - 380 = 220. */
    st[0] = (ds_task_status){DS_TASK_WAITING, 1000, 0, 0};
    for (size_t i = 1; i < 7; i++)
        st[i] = (ds_task_status){DS_TASK_BLOCKED, 0, 0, 0};
    ds_priority_params pp;
    ds_priority_defaults(&pp);
    assert_int_equal(ds_dsp_evaluate(&d, st, 1600, 1000, &pp, ev, &err), 0);
    assert_int_equal(ds_job_summarise(&d, st, ev, 1600, 1000, &s, &err), 0);
    assert_double_near(s.remaining_work_s, 510, 1e-12);
    assert_double_near(s.remaining_path_s, 380, 1e-12);
    assert_double_near(s.slack_s, 220, 1e-12);
    assert_int_equal(s.unfinished, 7);
    assert_int_equal(s.remaining_steps, 3); /* T1, T2, T5 */

    /* A job without tasks: nothing left, the whole time to the deadline is slack. */
    ds_dag empty;
    assert_int_equal(ds_dag_build(&empty, NULL, 0, &err), 0);
    assert_int_equal(ds_job_summarise(&empty, NULL, NULL, 1600, 1000, &s, &err), 0);
    assert_double_near(s.remaining_work_s, 0, 0);
    assert_double_near(s.remaining_path_s, 0, 0);
    assert_double_near(s.slack_s, 600, 0);
    assert_int_equal(s.unfinished, 0);
    assert_int_equal(s.remaining_steps, 0);
    ds_dag_free(&empty);

    /* T2 finished and T5 failed: work = 30 + 10 + 40 + 50 = 130; T5 counts 0 but T2's path is
     * max(10, 0) = 10, T3's 80: longest 80; slack at 1200 with the deadline at 1600: 320. */
    evaluate(&d, st, ev, 1600);
    st[1].state = DS_TASK_SUCCEEDED;
    st[4].state = DS_TASK_FAILED;
    assert_int_equal(ds_job_summarise(&d, st, ev, 1600, 1200, &s, &err), 0);
    assert_double_near(s.remaining_work_s, 130, 1e-9);
    assert_double_near(s.remaining_path_s, 80, 1e-9);
    assert_double_near(s.slack_s, 320, 1e-9);
    assert_int_equal(s.unfinished, 4);

    /* Every task done: nothing left, the slack is what remains of the deadline (negative when
     * late). */
    for (size_t i = 0; i < 7; i++)
        st[i].state = DS_TASK_SUCCEEDED;
    assert_int_equal(ds_job_summarise(&d, st, ev, 1600, 1700, &s, &err), 0);
    assert_double_near(s.remaining_work_s, 0, 0);
    assert_double_near(s.remaining_path_s, 0, 0);
    assert_double_near(s.slack_s, -100, 1e-9);
    assert_int_equal(s.unfinished, 0);
    ds_dag_free(&d);
}

static void test_summary_errors(void **state)
{
    (void)state;
    ds_dag d;
    build_job(&d);
    ds_task_status st[7];
    ds_task_eval ev[7];
    evaluate(&d, st, ev, 1600);
    ds_job_summary s;
    ds_err err = {{0}};
    assert_int_equal(ds_job_summarise(NULL, st, ev, 1600, 1000, &s, &err), -1);
    assert_string_equal(err.msg, "job summary: job DAG is missing");
    assert_int_equal(ds_job_summarise(&d, st, ev, 1600, 1000, NULL, &err), -1);
    assert_string_equal(err.msg, "job summary: output is missing");
    assert_int_equal(ds_job_summarise(&d, NULL, ev, 1600, 1000, &s, &err), -1);
    assert_string_equal(err.msg, "job summary: task status array is missing");
    assert_int_equal(ds_job_summarise(&d, st, NULL, 1600, 1000, &s, &err), -1);
    assert_string_equal(err.msg, "job summary: task evaluation array is missing");
    assert_int_equal(ds_job_summarise(&d, st, ev, 1600, NAN, &s, &err), -1);
    assert_string_equal(err.msg, "now: must be a finite time (got nan)");
    assert_int_equal(ds_job_summarise(&d, st, ev, -INFINITY, 1000, &s, &err), -1);
    assert_string_equal(err.msg,
                        "job deadline: must be a finite time, or +inf for none (got -inf)");
    ds_dag_free(&d);
}

/* Remaining path per task, the state of evaluate(): T4 10, T5 200, T6 40, T7 50; T2 (running, 60
 * s left) 60 + 200 = 260; T3 30 + 50 = 80; T1 (succeeded) 0 + max(260, 80) = 260. ds_dsp_evaluate
 * fills path_s with the same figures. With T2 succeeded and T5 failed (both count 0): T2
 * max(10, 0) = 10, T1 max(10, 80) = 80. */
static void test_remaining_paths(void **state)
{
    (void)state;
    ds_dag d;
    build_job(&d);
    ds_task_status st[7];
    ds_task_eval ev[7];
    evaluate(&d, st, ev, 1600);
    const double want[7] = {260, 260, 80, 10, 200, 40, 50};
    double path[7];
    ds_remaining_paths(&d, st, ev, path);
    for (size_t i = 0; i < 7; i++) {
        assert_double_near(path[i], want[i], 1e-9);
        assert_double_near(ev[i].path_s, want[i], 1e-9);
    }
    st[1].state = DS_TASK_SUCCEEDED;
    st[4].state = DS_TASK_FAILED;
    ds_remaining_paths(&d, st, ev, path);
    const double after[7] = {80, 10, 80, 10, 0, 40, 50};
    for (size_t i = 0; i < 7; i++)
        assert_double_near(path[i], after[i], 1e-9);
    ds_dag_free(&d);
}

static ds_job_summary summary(double work, double slack)
{
    ds_job_summary s = {.remaining_work_s = work, .remaining_path_s = 0, .slack_s = slack};
    return s;
}

static ds_task_eval task(double priority, double t_wait)
{
    ds_task_eval e = {.priority = priority, .t_wait_s = t_wait};
    return e;
}

/* k0: starving or not, k1, k2: the job figures, k3, k4: the task (the tenant rank, k[1], is 0
 * without fair share). */
static void assert_key5(const ds_order_key *k, double k0, double k1, double k2, double k3,
                        double k4)
{
    assert_true(k->k[0] == k0);
    assert_true(k->k[1] == 0);
    assert_true(k->k[2] == k1);
    assert_true(k->k[3] == k2);
    assert_true(k->k[4] == k3);
    assert_true(k->k[5] == k4);
}

static void assert_key(const ds_order_key *k, double k0, double k1, double k2, double k3)
{
    assert_key5(k, k0, k1, k2, k3, 0);
}

/* A small job (work 100 s, slack 500 s) with a task of priority 1, and a large job (work
 * 10,000 s, slack 200 s) with a task of priority 1000 (Eq. 12 grows with the job). */
static void test_keys(void **state)
{
    (void)state;
    ds_job_summary small = summary(100, 500), large = summary(10000, 200);
    ds_task_eval ts = task(1, 0), tl = task(1000, 0);
    ds_order_params p = {0};
    ds_order_key ks, kl;

    /* dsp (the zero value): the task priority alone; the large job's task goes first. */
    ds_order_key_of(&p, &small, &ts, &ks);
    ds_order_key_of(&p, &large, &tl, &kl);
    assert_key(&ks, 1, 0, 0, -1);
    assert_key(&kl, 1, 0, 0, -1000);
    assert_true(ds_order_key_cmp(&kl, &ks) < 0);

    /* shortestRemaining: the small job first, whatever the priorities. */
    p.job_order = DS_ORDER_SHORTEST_REMAINING;
    ds_order_key_of(&p, &small, &ts, &ks);
    ds_order_key_of(&p, &large, &tl, &kl);
    assert_key(&ks, 1, 100, 500, -1);
    assert_key(&kl, 1, 10000, 200, -1000);
    assert_true(ds_order_key_cmp(&ks, &kl) < 0);

    /* leastSlack: the large job has less slack (200 < 500) and goes first. */
    p.job_order = DS_ORDER_LEAST_SLACK;
    ds_order_key_of(&p, &small, &ts, &ks);
    ds_order_key_of(&p, &large, &tl, &kl);
    assert_key(&ks, 1, 500, 100, -1);
    assert_key(&kl, 1, 200, 10000, -1000);
    assert_true(ds_order_key_cmp(&kl, &ks) < 0);

    /* Within one job, the higher DSP priority goes first under every order. */
    ds_order_key a, b;
    ds_task_eval hi = task(7, 0), lo = task(3, 0);
    for (int o = DS_ORDER_DSP; o <= DS_ORDER_SHORTEST_REMAINING; o++) {
        p.job_order = (ds_job_order)o;
        ds_order_key_of(&p, &small, &hi, &a);
        ds_order_key_of(&p, &small, &lo, &b);
        assert_true(ds_order_key_cmp(&a, &b) < 0);
        assert_true(ds_order_key_cmp(&b, &a) > 0);
        assert_int_equal(ds_order_key_cmp(&a, &a), 0);
    }

    /* Jobs without a deadline (infinite slack) come after every job with one under leastSlack,
     * and among themselves by remaining work. */
    p.job_order = DS_ORDER_LEAST_SLACK;
    ds_job_summary none_small = summary(50, INFINITY), none_large = summary(5000, INFINITY);
    ds_order_key n1, n2;
    ds_order_key_of(&p, &none_small, &ts, &n1);
    ds_order_key_of(&p, &none_large, &tl, &n2);
    ds_order_key_of(&p, &small, &ts, &ks);
    assert_true(ds_order_key_cmp(&ks, &n1) < 0);
    assert_true(ds_order_key_cmp(&n1, &n2) < 0);
}

/* Starvation threshold 300 s: a task that has waited at least 300 s goes before every task that
 * has not, longest wait first, whatever its job. */
static void test_starvation(void **state)
{
    (void)state;
    ds_job_summary small = summary(100, 500), large = summary(10000, 200);
    ds_order_params p = {.job_order = DS_ORDER_SHORTEST_REMAINING, .starvation_s = 300};
    ds_order_key k_small, k_starved, k_older, k_almost;
    ds_task_eval fresh = task(1, 0), starved = task(1000, 300), older = task(2, 450),
                 almost = task(1000, 299.5);
    ds_order_key_of(&p, &small, &fresh, &k_small);
    ds_order_key_of(&p, &large, &starved, &k_starved);
    ds_order_key_of(&p, &large, &older, &k_older);
    ds_order_key_of(&p, &large, &almost, &k_almost);
    assert_key(&k_starved, 0, 0, 0, -300); /* inclusive: waited exactly 300 s */
    assert_key(&k_older, 0, 0, 0, -450);
    assert_key(&k_almost, 1, 10000, 200, -1000);
    assert_true(ds_order_key_cmp(&k_older, &k_starved) < 0);
    assert_true(ds_order_key_cmp(&k_starved, &k_small) < 0);
    assert_true(ds_order_key_cmp(&k_small, &k_almost) < 0);

    /* Thresholds below a second work too: 0.5 s. */
    p.starvation_s = 0.5;
    ds_task_eval brief = task(1000, 0.75), not_yet = task(1000, 0.25);
    ds_order_key_of(&p, &large, &brief, &k_older);
    assert_key(&k_older, 0, 0, 0, -0.75);
    ds_order_key_of(&p, &large, &not_yet, &k_older);
    assert_key(&k_older, 1, 10000, 200, -1000);

    /* 0 turns the threshold off. */
    p.starvation_s = 0;
    ds_order_key_of(&p, &large, &older, &k_older);
    assert_key(&k_older, 1, 10000, 200, -2);
}

/* Within a job: task "fan" (priority 18, remaining path 20 s: 10 s with four 10 s dependents) and
 * task "long" (priority 0.1, remaining path 300 s). dsp puts fan first, criticalPath long; ties on
 * the path go by DSP priority. Under acrossJobs dsp the task figures compare tasks of different
 * jobs too. A starving task goes first by its wait either way. */
static void test_within_job(void **state)
{
    (void)state;
    ds_job_summary job = summary(340, 500);
    ds_task_eval fan = {.priority = 18, .path_s = 20}, lng = {.priority = 0.1, .path_s = 300};
    ds_order_key kf, kl;
    for (int o = DS_ORDER_DSP; o <= DS_ORDER_SHORTEST_REMAINING; o++) {
        ds_order_params p = {.job_order = (ds_job_order)o};
        ds_order_key_of(&p, &job, &fan, &kf);
        ds_order_key_of(&p, &job, &lng, &kl);
        assert_true(ds_order_key_cmp(&kf, &kl) < 0);
        p.within_job = DS_WITHIN_CRITICAL_PATH;
        ds_order_key_of(&p, &job, &fan, &kf);
        ds_order_key_of(&p, &job, &lng, &kl);
        assert_true(ds_order_key_cmp(&kl, &kf) < 0);
    }
    ds_order_params p = {.job_order = DS_ORDER_SHORTEST_REMAINING,
                         .within_job = DS_WITHIN_CRITICAL_PATH};
    ds_order_key_of(&p, &job, &lng, &kl);
    assert_key5(&kl, 1, 340, 500, -300, -0.1);
    /* equal paths: the higher DSP priority first */
    ds_task_eval same = {.priority = 5, .path_s = 300};
    ds_order_key ks;
    ds_order_key_of(&p, &job, &same, &ks);
    assert_true(ds_order_key_cmp(&ks, &kl) < 0);
    /* starving: minus the wait, nothing else */
    p.starvation_s = 60;
    ds_task_eval starved = {.priority = 0.1, .path_s = 300, .t_wait_s = 90};
    ds_order_key_of(&p, &job, &starved, &kl);
    assert_key5(&kl, 0, 0, 0, -90, 0);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(ds_job_order_name(DS_ORDER_DSP), "dsp");
    assert_string_equal(ds_job_order_name(DS_ORDER_LEAST_SLACK), "leastSlack");
    assert_string_equal(ds_job_order_name(DS_ORDER_SHORTEST_REMAINING), "shortestRemaining");
    assert_string_equal(ds_job_order_name((ds_job_order)9), "unknown");
    ds_job_order o = DS_ORDER_DSP;
    assert_int_equal(ds_job_order_parse("shortestRemaining", &o), 0);
    assert_int_equal(o, DS_ORDER_SHORTEST_REMAINING);
    assert_int_equal(ds_job_order_parse("leastSlack", &o), 0);
    assert_int_equal(o, DS_ORDER_LEAST_SLACK);
    assert_int_equal(ds_job_order_parse("dsp", &o), 0);
    assert_int_equal(o, DS_ORDER_DSP);
    assert_int_equal(ds_job_order_parse("LeastSlack", &o), -1);
    assert_int_equal(ds_job_order_parse("", &o), -1);
    assert_int_equal(ds_job_order_parse(NULL, &o), -1);
    assert_int_equal(o, DS_ORDER_DSP);

    assert_string_equal(ds_within_order_name(DS_WITHIN_DSP), "dsp");
    assert_string_equal(ds_within_order_name(DS_WITHIN_CRITICAL_PATH), "criticalPath");
    assert_string_equal(ds_within_order_name((ds_within_order)5), "unknown");
    ds_within_order w = DS_WITHIN_DSP;
    assert_int_equal(ds_within_order_parse("criticalPath", &w), 0);
    assert_int_equal(w, DS_WITHIN_CRITICAL_PATH);
    assert_int_equal(ds_within_order_parse("dsp", &w), 0);
    assert_int_equal(w, DS_WITHIN_DSP);
    assert_int_equal(ds_within_order_parse("criticalpath", &w), -1);
    assert_int_equal(ds_within_order_parse(NULL, &w), -1);
    assert_int_equal(w, DS_WITHIN_DSP);
}

/* Two jobs observed as pods at T0 + 60 s, no deadlines, default priority parameters (time scale
 * 60 s). Job "big": a (100 s) with four dependents b, c, e, f (100 s each, blocked), and d (30 s).
 * Job "small": x (100 s). Waiting since T0: a, d, x (t_wait = 1 minute).
 *   leaves b, c, e, f: 0.5 / (100/60) = 0.3 (blocked: no waiting term)
 *   a = 1.5 * 4 * 0.3 = 1.8;  d = 0.5 / 0.5 + 0.3 * 1 = 1.3;  x = 0.5 / (100/60) + 0.3 = 0.6
 *   remaining work: big 100 + 400 + 30 = 530 s, small 100 s.
 * dsp: a, d, x. shortestRemaining (and leastSlack: no slack, then remaining work): x, a, d. */
static void test_jobset_queue_order(void **state)
{
    (void)state;
    ds_pod_obs pods[] = {
        mkpod("a", "big", "a", NULL, "100s"),   mkpod("b", "big", "b", "a", "100s"),
        mkpod("c", "big", "c", "a", "100s"),    mkpod("e", "big", "e", "a", "100s"),
        mkpod("f", "big", "f", "a", "100s"),    mkpod("d", "big", "d", NULL, "30s"),
        mkpod("x", "small", "x", NULL, "100s"),
    };
    ds_jobset s;
    double now = T0 + 60;
    build_ok(&s, pods, 7, NULL, 0, now);
    assert_int_equal(s.n_waiting, 3);
    const ds_job *big = job_named(&s, "big"), *small = job_named(&s, "small");
    size_t ib = (size_t)(big - s.jobs), is = (size_t)(small - s.jobs);
    size_t ta, td, tx;
    assert_int_equal(ds_dag_find(&big->dag, "a", &ta), 0);
    assert_int_equal(ds_dag_find(&big->dag, "d", &td), 0);
    assert_int_equal(ds_dag_find(&small->dag, "x", &tx), 0);
    assert_double_near(big->eval[ta].priority, 1.8, 1e-9);
    assert_double_near(big->eval[td].priority, 1.3, 1e-9);
    assert_double_near(small->eval[tx].priority, 0.6, 1e-9);

    ds_task_ref out[3];
    ds_err err = {{0}};
    ds_order_params p = {.job_order = DS_ORDER_DSP};
    assert_int_equal(ds_jobset_queue_order(&s, &p, now, out, 3, &err), 3);
    assert_int_equal(out[0].job, ib);
    assert_int_equal(out[0].task, ta);
    assert_int_equal(out[1].job, ib);
    assert_int_equal(out[1].task, td);
    assert_int_equal(out[2].job, is);
    assert_int_equal(out[2].task, tx);

    for (int o = DS_ORDER_LEAST_SLACK; o <= DS_ORDER_SHORTEST_REMAINING; o++) {
        p.job_order = (ds_job_order)o;
        assert_int_equal(ds_jobset_queue_order(&s, &p, now, out, 3, &err), 3);
        assert_int_equal(out[0].job, is);
        assert_int_equal(out[0].task, tx);
        assert_int_equal(out[1].job, ib);
        assert_int_equal(out[1].task, ta);
        assert_int_equal(out[2].job, ib);
        assert_int_equal(out[2].task, td);
    }

    /* Starvation threshold 1 minute: all three have waited 60 s; equal waits, so by job index,
     * then task index. */
    p.starvation_s = 60;
    assert_int_equal(ds_jobset_queue_order(&s, &p, now, out, 3, &err), 3);
    ds_task_ref want[3] = {{ib, ta}, {ib, td}, {is, tx}};
    for (size_t i = 1; i < 3; i++) /* ascending (job, task) */
        for (size_t j = i;
             j > 0 && (want[j - 1].job > want[j].job ||
                       (want[j - 1].job == want[j].job && want[j - 1].task > want[j].task));
             j--) {
            ds_task_ref t = want[j];
            want[j] = want[j - 1];
            want[j - 1] = t;
        }
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(out[i].job, want[i].job);
        assert_int_equal(out[i].task, want[i].task);
    }

    assert_int_equal(ds_jobset_queue_order(&s, &p, now, out, 2, &err), -1);
    assert_string_equal(err.msg, "queue order: room for 3 waiting tasks is needed (got 2)");
    assert_int_equal(ds_jobset_queue_order(&s, &p, now, NULL, 3, &err), -1);
    assert_string_equal(err.msg, "queue order: room for 3 waiting tasks is needed (got 0)");
    /* Nothing waiting: no room needed. */
    ds_jobset none;
    memset(&none, 0, sizeof none);
    err.msg[0] = '\0';
    assert_int_equal(ds_jobset_queue_order(&none, &p, now, NULL, 0, &err), 0);
    assert_string_equal(err.msg, "");
    /* A bad time fails the first job's summary; the error names the job. */
    assert_int_equal(ds_jobset_queue_order(&s, &p, NAN, out, 3, &err), -1);
    assert_string_equal(err.msg, "job default/big: now: must be a finite time (got nan)");
    assert_int_equal(ds_jobset_queue_order(&s, NULL, now, out, 3, &err), -1);
    assert_string_equal(err.msg, "queue order: order is missing");
    assert_int_equal(ds_jobset_queue_order(NULL, &p, now, out, 3, &err), -1);
    assert_string_equal(err.msg, "queue order: job set is missing");
    ds_jobset_free(&s);
}

/* The controller's release order within a job. Job "j", no deadline, observed at T0 + 60 s: "fan"
 * (10 s) with four blocked dependents of 10 s each, and "long" (300 s) without dependents; both
 * waiting since T0.
 *   leaves: 0.5 / (10/60) = 3 each; fan = 1.5 * 4 * 3 = 18; long = 0.5 / 5 + 0.3 * 1 = 0.4
 *   remaining paths: fan 10 + 10 = 20, long 300
 * withinJob dsp: fan, long; criticalPath: long, fan. */
static void test_jobset_critical_path(void **state)
{
    (void)state;
    ds_pod_obs pods[] = {
        mkpod("fan", "j", "fan", NULL, "10s"), mkpod("c1", "j", "c1", "fan", "10s"),
        mkpod("c2", "j", "c2", "fan", "10s"),  mkpod("c3", "j", "c3", "fan", "10s"),
        mkpod("c4", "j", "c4", "fan", "10s"),  mkpod("long", "j", "long", NULL, "300s"),
    };
    ds_jobset s;
    double now = T0 + 60;
    build_ok(&s, pods, 6, NULL, 0, now);
    const ds_job *j = job_named(&s, "j");
    size_t tf, tl;
    assert_int_equal(ds_dag_find(&j->dag, "fan", &tf), 0);
    assert_int_equal(ds_dag_find(&j->dag, "long", &tl), 0);
    assert_double_near(j->eval[tf].priority, 18, 1e-9);
    assert_double_near(j->eval[tl].priority, 0.4, 1e-9);
    assert_double_near(j->eval[tf].path_s, 20, 1e-9);
    assert_double_near(j->eval[tl].path_s, 300, 1e-9);
    ds_task_ref out[2];
    ds_err err = {{0}};
    ds_order_params p = {.job_order = DS_ORDER_SHORTEST_REMAINING};
    assert_int_equal(ds_jobset_queue_order(&s, &p, now, out, 2, &err), 2);
    assert_int_equal(out[0].task, tf);
    assert_int_equal(out[1].task, tl);
    p.within_job = DS_WITHIN_CRITICAL_PATH;
    assert_int_equal(ds_jobset_queue_order(&s, &p, now, out, 2, &err), 2);
    assert_int_equal(out[0].task, tl);
    assert_int_equal(out[1].task, tf);
    ds_jobset_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_summary_errors),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_starvation),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_jobset_queue_order),
        cmocka_unit_test(test_remaining_paths),
        cmocka_unit_test(test_within_job),
        cmocka_unit_test(test_jobset_critical_path),
    };
    return cmocka_run_group_tests_name("joborder", tests, NULL, NULL);
}
