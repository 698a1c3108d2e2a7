/* test_holds.c: room held for upcoming tasks in the simulation (sim/holds.c), computed by hand.
 *
 * One node of 1 core. Job a (deadline 100 s) is a chain a0 -> a1 of 10 s each, arriving at 0;
 * job b (one task of 10 s, no deadline) arrives at 1. Release latency 0.2 s, rounds at most once a
 * second, look-ahead 2: a0 is released at 0, queued at 0.2 and runs 0.2-10.2; b is released ahead
 * of room at 1 and waits in kube-scheduler's queue (unschedulable). At 10.2 a0 ends: a1 is ready,
 * its pod (created with the job, gated) exists, and b is retried at once (the pod end moves it).
 *
 *  - Holds on (as shipped): the room a0 freed is a1's. b fits only in it and fails again; the round
 *    at 10.2 decides a1 first, before b in flight: a1 is queued at 10.4 and runs 10.4-20.4; b
 *    runs 20.4-30.4. Job a ends at 20.4.
 *  - Holds off: b takes the room at 10.2 (10.2-20.2); a1, released ahead of room by the same
 *    round (look-ahead), waits in kube-scheduler's queue and runs 20.2-30.2.
 *
 * A job without a deadline holds nothing: with a's deadline removed, the runs are those of holds
 * off. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/ds_assert.h"

#include "engine.h"
#include "sim_test_util.h"

static void build(sim_workload *w, double deadline)
{
    memset(w, 0, sizeof *w);
    snprintf(w->name, sizeof w->name, "holds");
    tu_node(w, 1000, 1.0);
    double rt[2] = {10, 10};
    int64_t cpu[2] = {1000, 1000};
    sim_job_def *a = tu_job(w, "a", 0, 2, rt, cpu, 1);
    a->deadline_s = deadline;
    a->release = SIM_RELEASE_UPFRONT;
    tu_job(w, "b", 1, 1, rt, cpu, 0);
}

static void run(const sim_workload *w, bool holds, sim_result *r)
{
    sim_config c;
    sim_config_defaults(&c, sim_policy_find("dagsched"));
    c.release_latency_s = 0.2;
    c.round_interval_s = 1.0;
    c.pol.release_lookahead = 2;
    c.pol.release_hold_room = 0; /* held room of upcoming tasks only (not spec.release.holdRoom) */
    c.room_holds = holds;
    c.record_segments = true;
    ds_err err = {{0}};
    if (sim_run(w, &c, r, &err) != 0)
        fail_msg("sim_run: %s", err.msg);
}

static double start_of(const sim_result *r, uint32_t job, uint32_t task)
{
    for (size_t i = 0; i < r->n_segs; i++)
        if (r->segs[i].job == job && r->segs[i].task == task)
            return r->segs[i].start;
    fail_msg("no run of job %u task %u", job, task);
    return NAN;
}

static void test_upcoming_task_keeps_its_room(void **state)
{
    (void)state;
    sim_workload w;
    build(&w, 100);
    sim_result r;
    run(&w, true, &r);
    assert_double_near(start_of(&r, 0, 0), 0.2, 1e-9);
    assert_double_near(start_of(&r, 0, 1), 10.4, 1e-9);
    assert_double_near(start_of(&r, 1, 0), 20.4, 1e-9);
    assert_double_near(r.jobs[0].completion, 20.4, 1e-9);
    assert_true(r.held_refusals >= 1);
    sim_result_free(&r);

    run(&w, false, &r);
    assert_double_near(start_of(&r, 1, 0), 10.2, 1e-9);
    assert_double_near(start_of(&r, 0, 1), 20.2, 1e-9);
    assert_double_near(r.jobs[0].completion, 30.2, 1e-9);
    assert_int_equal(r.held_refusals, 0);
    sim_result_free(&r);
    sim_workload_free(&w);
}

static void test_no_deadline_no_hold(void **state)
{
    (void)state;
    sim_workload w;
    build(&w, INFINITY);
    sim_result r;
    run(&w, true, &r);
    assert_double_near(start_of(&r, 1, 0), 10.2, 1e-9);
    assert_double_near(start_of(&r, 0, 1), 20.2, 1e-9);
    assert_int_equal(r.held_refusals, 0);
    sim_result_free(&r);
    sim_workload_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upcoming_task_keeps_its_room),
        cmocka_unit_test(test_no_deadline_no_hold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
