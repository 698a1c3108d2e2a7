/* test_jobview.c: the DAG of a job as dagsched's controller knows it (sim/jobview.c). With the
 * graph declared the controller knows every task from the job's arrival; observed, only the tasks
 * whose pods a workflow engine created so far, so the order across jobs by remaining work
 * (shortestRemaining) sees a long chain as short while its later tasks have no pod. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include "engine.h"
#include "sim_test_util.h"

/* One node with room for one task at a time. Job "chain" (a 1 s -> b 100 s) and job "single" (one
 * 10 s task) arrive together; the order across jobs is shortestRemaining. Declared: chain has 101 s
 * left, single 10 s: single runs first (0..10), then chain's a (10..11) and b (11..111).
 * Observed: chain's known work is a's 1 s: a runs first (0..1); b's pod is created at 1 and
 * chain has 100 s left: single (1..11), then b (11..111). Pods created up front are known whole
 * either way. */
static void test_order_by_known_work(void **state)
{
    (void)state;
    static const struct {
        bool observed, upfront;
        double chain_a, single;
    } cases[] = {
        {false, false, 10, 0},
        {true, false, 0, 1},
        {true, true, 10, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        sim_workload w = {0};
        snprintf(w.name, sizeof w.name, "view");
        tu_node(&w, 1000, 1.0);
        double rt[2] = {1, 100};
        int64_t cpu[2] = {1000, 1000};
        tu_job(&w, "chain", 0, 2, rt, cpu, 1);
        double rs[1] = {10};
        tu_job(&w, "single", 0, 1, rs, cpu, 0);
        if (cases[k].upfront)
            w.jobs[0].release = w.jobs[1].release = SIM_RELEASE_UPFRONT;
        sim_config c;
        sim_config_defaults(&c, sim_policy_find("dagsched"));
        c.release_latency_s = 0;
        c.round_interval_s = 0;
        c.pol.preemption_enabled = false;
        c.pol.release_lookahead = 0;
        c.graph_observed = cases[k].observed;
        c.record_segments = true;
        sim_result r;
        ds_err err = {{0}};
        if (sim_run(&w, &c, &r, &err) != 0)
            fail_msg("sim_run: %s", err.msg);
        assert_int_equal(r.n_segs, 3);
        for (size_t i = 0; i < r.n_segs; i++) {
            const sim_segment *s = &r.segs[i];
            double want = s->job == 1 ? cases[k].single : s->task == 0 ? cases[k].chain_a : 11;
            if (fabs(s->start - want) > 1e-9)
                fail_msg("case %zu: job %u task %u started at %g, want %g", k, s->job, s->task,
                         s->start, want);
        }
        assert_double_near(r.jobs[0].completion, 111, 1e-9);
        sim_result_free(&r);
        sim_workload_free(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_by_known_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
