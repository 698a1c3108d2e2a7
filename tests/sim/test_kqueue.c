/* test_kqueue.c: kube-scheduler's queue after a failed scheduling attempt in the simulator
 * (sim/kqueue.c), on one 1-core node, for the policies without a gate and for dagsched (whose
 * look-ahead releases a pod that does not fit yet): a pod that failed waits for a pod to leave a
 * node, then for the rest of its back-off (1 s after the first failure, 2 s after the second,
 * doubling, at most the maximum), and is retried at the back-off queue's next flush. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include "engine.h"
#include "engine_state.h"
#include "sim_test_util.h"

static const char *const policies[] = {"default", "tetris", "sailfish", "dsp", "dagsched"};
#define N_POLICIES (sizeof policies / sizeof policies[0])

/* One single-task job of `cpu_m` milli-cores and run time `runtime` arriving at `arrival`. */
static void one_task_job(sim_workload *w, const char *name, double arrival, double runtime,
                         int64_t cpu_m)
{
    double rt[1] = {runtime};
    int64_t cpu[1] = {cpu_m};
    tu_job(w, name, arrival, 1, rt, cpu, 0);
}

static void config(sim_config *c, const char *policy)
{
    sim_config_defaults(c, sim_policy_find(policy));
    assert_non_null(c->policy);
    c->release_latency_s = 0;
    c->round_interval_s = 0;
    c->pol.preemption_enabled = false;
    c->record_segments = true;
}

static void run_ok(const sim_workload *w, const sim_config *c, sim_result *r)
{
    ds_err err = {{0}};
    if (sim_run(w, c, r, &err) != 0)
        fail_msg("sim_run(%s): %s", c->policy->name, err.msg);
}

/* Start of job `job`'s only run. */
static double start_of(const sim_result *r, uint32_t job)
{
    for (size_t i = 0; i < r->n_segs; i++)
        if (r->segs[i].job == job)
            return r->segs[i].start;
    fail_msg("job %u never ran", job);
    return -1;
}

/* "a" holds the node 0..0.8; "b" arrives at 0.5 and fails (attempt 1, back-off 1 s): the end of
 * "a" at 0.8 moves it to the back-off queue until 1.5. With the flush at the end of each back-off
 * it starts at 1.5; with kube-scheduler's flush every second, at 2.0. Not at 0.8. */
static void test_first_backoff(void **state)
{
    (void)state;
    for (size_t p = 0; p < N_POLICIES; p++) {
        sim_workload w = {0};
        snprintf(w.name, sizeof w.name, "backoff1");
        tu_node(&w, 1000, 1.0);
        one_task_job(&w, "a", 0, 0.8, 1000);
        one_task_job(&w, "b", 0.5, 1, 1000);
        sim_config c;
        config(&c, policies[p]);
        const double flush[2] = {0, 1}, want[2] = {1.5, 2.0};
        for (int f = 0; f < 2; f++) {
            c.backoff_flush_s = flush[f];
            sim_result r;
            run_ok(&w, &c, &r);
            if (fabs(start_of(&r, 1) - want[f]) > 1e-9)
                fail_msg("%s, flush %g: b started at %g, want %g", policies[p], flush[f],
                         start_of(&r, 1), want[f]);
            assert_int_equal(r.sched_failures, 1);
            sim_result_free(&r);
        }
        sim_workload_free(&w);
    }
}

/* As test_first_backoff (flush at the end of each back-off), plus "c" (1 s) arriving at 1.0 on
 * the free node: "b" becomes active at 1.5, fails again (attempt 2, back-off 2 s), the end of "c"
 * at 2.0 moves it to the back-off queue until 3.5, where it starts. With an initial back-off of
 * 4 s and a maximum of 6 s the second back-off is 6 s, not 8: "c" arrives at 4.0 instead, "b"
 * fails again at 4.5 and starts at 10.5. */
static void test_second_backoff_and_cap(void **state)
{
    (void)state;
    static const struct {
        double initial, max, c_arrival, want;
    } cases[] = {{1, 10, 1.0, 3.5}, {4, 6, 4.0, 10.5}};
    for (size_t p = 0; p < N_POLICIES; p++)
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            sim_workload w = {0};
            snprintf(w.name, sizeof w.name, "backoff2");
            tu_node(&w, 1000, 1.0);
            one_task_job(&w, "a", 0, 0.8, 1000);
            one_task_job(&w, "b", 0.5, 1, 1000);
            one_task_job(&w, "c", cases[k].c_arrival, 1, 1000);
            sim_config c;
            config(&c, policies[p]);
            c.backoff_flush_s = 0;
            c.pod_initial_backoff_s = cases[k].initial;
            c.pod_max_backoff_s = cases[k].max;
            sim_result r;
            run_ok(&w, &c, &r);
            assert_double_near(start_of(&r, 2), cases[k].c_arrival, 1e-9);
            if (fabs(start_of(&r, 1) - cases[k].want) > 1e-9)
                fail_msg("%s, back-off %g..%g: b started at %g, want %g", policies[p],
                         cases[k].initial, cases[k].max, start_of(&r, 1), cases[k].want);
            assert_int_equal(r.sched_failures, 2);
            sim_result_free(&r);
            sim_workload_free(&w);
        }
}

/* The back-off after n failed attempts: 1, 2, 4, 8, then 10 (the maximum) for ever. */
static void test_backoff_formula(void **state)
{
    (void)state;
    sim_config c;
    sim_config_defaults(&c, sim_policy_find("default"));
    const double want[] = {1, 1, 2, 4, 8, 10, 10, 10};
    for (unsigned n = 1; n < sizeof want / sizeof want[0]; n++)
        assert_double_near(sim_kq_backoff(&c, n), want[n], 1e-12);
    assert_double_near(sim_kq_backoff(&c, 60000), 10, 1e-12);
    assert_double_near(sim_kq_backoff(&c, 0), 1, 1e-12);
}

/* "a" holds the node 0..39.8; "b" arrives at 0.5 and fails. Its back-off ends at 1.5, but it
 * stays in the unschedulable pool (not retried: one failed attempt in all) until a pod leaves a
 * node: "c", bound at 3 on the second node, is no such event; the end of "a" at 39.8 is, after the
 * back-off: "b" is active at once and starts at 39.8 (not at the next flush, 40). Without an event
 * a pod leaves the pool after max_unschedulable_s, checked every 30 s: with 2 s, "b" is retried at
 * 30 and fails a second time. */
static void test_unschedulable_waits_for_event(void **state)
{
    (void)state;
    for (size_t p = 0; p < N_POLICIES; p++)
        for (int timeout = 0; timeout < 2; timeout++) {
            sim_workload w = {0};
            snprintf(w.name, sizeof w.name, "unschedulable");
            tu_node(&w, 1000, 1.0);
            tu_node(&w, 500, 1.0);
            one_task_job(&w, "a", 0, 39.8, 1000);
            one_task_job(&w, "b", 0.5, 1, 1000);
            one_task_job(&w, "c", 3, 50, 500);
            sim_config c;
            config(&c, policies[p]);
            if (timeout)
                c.max_unschedulable_s = 2;
            sim_result r;
            run_ok(&w, &c, &r);
            assert_double_near(start_of(&r, 2), 3.0, 1e-9);
            if (fabs(start_of(&r, 1) - 39.8) > 1e-9)
                fail_msg("%s: b started at %g, want 39.8", policies[p], start_of(&r, 1));
            if (r.sched_failures != (uint64_t)(1 + timeout))
                fail_msg("%s, timeout %d: %llu failed attempts, want %d", policies[p], timeout,
                         (unsigned long long)r.sched_failures, 1 + timeout);
            sim_result_free(&r);
            sim_workload_free(&w);
        }
}

/* "a" holds node 0 (1 core) 0..100; "d" holds node 1 (0.5 core) 0.1..25; "b" (1 core, fits only
 * on node 0) arrives at 0.5 and fails; the end of "d" moves "b", which fails again at 25. With
 * max_unschedulable_s 20 (checked every 30 s), the check at 30 finds "b" 5 s after its last
 * failure and leaves it; the one at 60 moves it (third failure), the one at 90 again (fourth);
 * the end of "a" at 100 moves it and it starts. With the default 300 s only the two failures. */
static void test_unschedulable_timeout_counts_from_last_failure(void **state)
{
    (void)state;
    for (size_t p = 0; p < N_POLICIES; p++)
        for (int timeout = 0; timeout < 2; timeout++) {
            sim_workload w = {0};
            snprintf(w.name, sizeof w.name, "last-failure");
            tu_node(&w, 1000, 1.0);
            tu_node(&w, 500, 1.0);
            one_task_job(&w, "a", 0, 100, 1000);
            one_task_job(&w, "d", 0.1, 24.9, 500);
            one_task_job(&w, "b", 0.5, 1, 1000);
            sim_config c;
            config(&c, policies[p]);
            if (timeout)
                c.max_unschedulable_s = 20;
            sim_result r;
            run_ok(&w, &c, &r);
            if (fabs(start_of(&r, 2) - 100) > 1e-9)
                fail_msg("%s: b started at %g, want 100", policies[p], start_of(&r, 2));
            if (r.sched_failures != (uint64_t)(timeout ? 4 : 2))
                fail_msg("%s, timeout %d: %llu failed attempts, want %d", policies[p], timeout,
                         (unsigned long long)r.sched_failures, timeout ? 4 : 2);
            sim_result_free(&r);
            sim_workload_free(&w);
        }
}

/* Back-off disabled (initial and maximum 0, flush 0): 200 pods of 1 core and 1 s arrive at 0 on
 * one 1-core node. The first is bound and the 199 others fail; every pod end moves every parked
 * pod, the first is bound and the rest fail again: 199 + 198 + ... + 1 = 19,900 failed attempts
 * (kube order and DSP order alike: the pods are alike), the last pod ending at 200. The event heap
 * holds at most one timeout per pod, not one per failed attempt: at most 2 events per pod at
 * once (it held about 100 per pod when each failed attempt kept its own 300 s event). dagsched
 * releases the pod that fits and two that do not yet (spec.release.lookahead 2): at 0 both of
 * those fail; at each pod end from 1 to 197 the older is bound, the younger fails again and the
 * pod released in its place fails once; at 198 the last one fails once: 2 + 2 x 197 + 1 = 397. */
static void test_backoff_disabled_heap_bounded(void **state)
{
    (void)state;
    enum { N = 200 };
    sim_workload w = {0};
    snprintf(w.name, sizeof w.name, "no-backoff");
    tu_node(&w, 1000, 1.0);
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%03d", i);
        one_task_job(&w, name, 0, 1, 1000);
    }
    for (size_t p = 0; p < N_POLICIES; p++) {
        sim_config c;
        config(&c, policies[p]);
        c.pod_initial_backoff_s = 0;
        c.pod_max_backoff_s = 0;
        c.backoff_flush_s = 0;
        c.record_segments = false;
        sim_result r;
        run_ok(&w, &c, &r);
        assert_double_near(r.end_time, N, 1e-9);
        uint64_t want =
            strcmp(policies[p], "dagsched") == 0 ? 2 * (N - 1) - 1 : (uint64_t)N * (N - 1) / 2;
        if (r.sched_failures != want)
            fail_msg("%s: %llu failed attempts, want %llu", policies[p],
                     (unsigned long long)r.sched_failures, (unsigned long long)want);
        if (r.peak_events > 2 * (size_t)N)
            fail_msg("%s: %zu events in the heap at once, want at most %d", policies[p],
                     r.peak_events, 2 * N);
        sim_result_free(&r);
    }
    sim_workload_free(&w);
}

/* kube-scheduler's scheduling cycle takes time (sched_cycle_s, sched_cycle_failed_s): one attempt
 * at a time, the next when the cycle is over. Three pods of 1 core arriving at 0 on a 3-core node
 * are bound at 0, 0.25 and 0.5 with a 0.25 s cycle (all at 0 without one). */
static void test_cycle_binds_one_at_a_time(void **state)
{
    (void)state;
    for (size_t p = 0; p < N_POLICIES; p++) {
        sim_workload w = {0};
        snprintf(w.name, sizeof w.name, "cycle");
        tu_node(&w, 3000, 1.0);
        one_task_job(&w, "a", 0, 10, 1000);
        one_task_job(&w, "b", 0, 10, 1000);
        one_task_job(&w, "c", 0, 10, 1000);
        for (int with = 0; with < 2; with++) {
            sim_config c;
            config(&c, policies[p]);
            c.sched_cycle_s = with ? 0.25 : 0;
            c.sched_cycle_failed_s = c.sched_cycle_s;
            sim_result r;
            run_ok(&w, &c, &r);
            for (uint32_t j = 0; j < 3; j++)
                if (fabs(start_of(&r, j) - (with ? 0.25 * j : 0)) > 1e-9)
                    fail_msg("%s, cycle %g: job %u bound at %g, want %g", policies[p],
                             c.sched_cycle_s, j, start_of(&r, j), with ? 0.25 * j : 0.0);
            assert_int_equal(r.sched_failures, 0);
            sim_result_free(&r);
        }
        sim_workload_free(&w);
    }
}

/* A pod that ends during a cycle frees its room for the next attempt, and a failed attempt keeps
 * the scheduler busy for its own cycle. One 1-core node; "a" (1 core) runs 0..0.3, "b" and "c"
 * (1 core) arrive at 0; cycles 0.1 s binding, F failing; back-off flushed at its end. "a" is bound
 * at 0, "b" tried at 0.1 fails (a runs). With F = 0.1, "c" is tried at 0.2 and fails too; the end
 * of "a" at 0.3 sends both to back-off, "b" until 1.1: it starts at 1.1. With F = 0.3, "c" is
 * tried at 0.4, after the end of "a": it is bound at 0.4, "b" waits for it. Instantaneous (0 and
 * 0): "b" and "c" fail at 0 and "b" starts when its back-off ends at 1.0. */
static void test_cycle_failed_attempt_holds_the_scheduler(void **state)
{
    (void)state;
    static const struct {
        double bind, fail, b_start, c_start;
        unsigned failures;
    } cases[] = {{0.1, 0.1, 1.1, -1, 3}, {0.1, 0.3, -1, 0.4, 2}, {0, 0, 1.0, -1, 3}};
    for (size_t p = 0; p < N_POLICIES; p++)
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            sim_workload w = {0};
            snprintf(w.name, sizeof w.name, "cycle-failed");
            tu_node(&w, 1000, 1.0);
            one_task_job(&w, "a", 0, 0.3, 1000);
            one_task_job(&w, "b", 0, 1, 1000);
            one_task_job(&w, "c", 0, 1, 1000);
            sim_config c;
            config(&c, policies[p]);
            c.backoff_flush_s = 0;
            c.sched_cycle_s = cases[k].bind;
            c.sched_cycle_failed_s = cases[k].fail;
            sim_result r;
            run_ok(&w, &c, &r);
            if (cases[k].b_start >= 0 && fabs(start_of(&r, 1) - cases[k].b_start) > 1e-9)
                fail_msg("%s, cycles %g/%g: b started at %g, want %g", policies[p], cases[k].bind,
                         cases[k].fail, start_of(&r, 1), cases[k].b_start);
            if (cases[k].c_start >= 0 && fabs(start_of(&r, 2) - cases[k].c_start) > 1e-9)
                fail_msg("%s, cycles %g/%g: c started at %g, want %g", policies[p], cases[k].bind,
                         cases[k].fail, start_of(&r, 2), cases[k].c_start);
            if (r.sched_failures != cases[k].failures)
                fail_msg("%s, cycles %g/%g: %llu failed attempts, want %u", policies[p],
                         cases[k].bind, cases[k].fail, (unsigned long long)r.sched_failures,
                         cases[k].failures);
            sim_result_free(&r);
            sim_workload_free(&w);
        }
}

/* Bad parameters are refused. */
static void test_bad_parameters(void **state)
{
    (void)state;
    sim_workload w = {0};
    snprintf(w.name, sizeof w.name, "bad");
    tu_node(&w, 1000, 1.0);
    one_task_job(&w, "a", 0, 1, 1000);
    sim_config c;
    config(&c, "default");
    c.pod_max_backoff_s = 0.5;
    sim_result r;
    ds_err err = {{0}};
    assert_int_equal(sim_run(&w, &c, &r, &err), -1);
    assert_string_equal(err.msg, "simulator: kube-scheduler back-off: initial must be >= 0 and "
                                 "<= max, flush interval >= 0, unschedulable time > 0");
    config(&c, "default");
    c.backoff_flush_s = -1;
    assert_int_equal(sim_run(&w, &c, &r, &err), -1);
    const double bad_cycle[] = {-0.1, NAN, INFINITY, 61};
    for (size_t i = 0; i < sizeof bad_cycle / sizeof bad_cycle[0]; i++)
        for (int which = 0; which < 2; which++) {
            config(&c, "default");
            *(which ? &c.sched_cycle_failed_s : &c.sched_cycle_s) = bad_cycle[i];
            assert_int_equal(sim_run(&w, &c, &r, &err), -1);
            assert_non_null(strstr(err.msg, "kube-scheduler's scheduling cycle must be 0..60 s"));
        }
    sim_workload_free(&w);
}

/* A flush interval finer than the simulator's time resolution is refused: a denormal one put
 * every flush at infinity, and a pod that backed off was never retried ("simulated time passed
 * the limit of 1e+09 s with 1 of 2 jobs done"). 1e-9 s is accepted and behaves as 0: "b" starts
 * when its back-off ends (test_first_backoff). */
static void test_flush_below_resolution(void **state)
{
    (void)state;
    sim_workload w = {0};
    snprintf(w.name, sizeof w.name, "fine-flush");
    tu_node(&w, 1000, 1.0);
    one_task_job(&w, "a", 0, 0.8, 1000);
    one_task_job(&w, "b", 0.5, 1, 1000);
    sim_config c;
    config(&c, "default");
    sim_result r;
    ds_err err = {{0}};
    c.backoff_flush_s = 1e-320;
    assert_int_equal(sim_run(&w, &c, &r, &err), -1);
    assert_string_equal(err.msg, "simulator: kube-scheduler back-off: flush interval must be 0 (at "
                                 "the end of each back-off) or at least 1e-09 s, the simulator's "
                                 "time resolution (got 9.99989e-321): below it a flush can fall at "
                                 "infinity and the run cannot finish");
    c.backoff_flush_s = 1e-9;
    run_ok(&w, &c, &r);
    assert_double_near(start_of(&r, 1), 1.5, 1e-9);
    sim_result_free(&r);
    sim_workload_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_backoff),
        cmocka_unit_test(test_second_backoff_and_cap),
        cmocka_unit_test(test_backoff_formula),
        cmocka_unit_test(test_unschedulable_waits_for_event),
        cmocka_unit_test(test_unschedulable_timeout_counts_from_last_failure),
        cmocka_unit_test(test_backoff_disabled_heap_bounded),
        cmocka_unit_test(test_cycle_binds_one_at_a_time),
        cmocka_unit_test(test_cycle_failed_attempt_holds_the_scheduler),
        cmocka_unit_test(test_bad_parameters),
        cmocka_unit_test(test_flush_below_resolution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
