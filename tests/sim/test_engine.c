/* test_engine.c: the simulator's event loop on tiny cases whose outcome is computed by hand:
 * exact makespan of a chain (also with create and start latencies), a preemption that restarts (or
 * resumes) its victim, DSP urgent preemption, eviction yield and lost work, the dependency-disorder
 * counter, determinism of generated runs, the order across jobs (shipped and paper), the
 * generator's job mix. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include "engine.h"
#include "metrics.h"
#include "sim_test_util.h"
#include "workload_gen.h"

/* Release latency 0: dagsched's pods enter kube-scheduler's queue in the round that releases them
 * (test_release.c covers the latency). */
static void run_ok(const sim_workload *w, const char *policy, double restart_delay, sim_result *r)
{
    sim_config c;
    sim_config_defaults(&c, sim_policy_find(policy));
    assert_non_null(c.policy);
    c.restart_delay_s = restart_delay;
    c.release_latency_s = 0;
    c.record_segments = true;
    ds_err err = {{0}};
    int rc = sim_run(w, &c, r, &err);
    if (rc != 0)
        fail_msg("sim_run(%s): %s", policy, err.msg);
}

/* Three tasks a -> b -> c (10, 20, 30 s on a speed-1 node) on one node of speed 2: each runs
 * runtime / 2 after the previous one: 5 + 10 + 15 = 30 s (dagsched: its controller rounds, at 0, 5
 * and 15, are more than the round interval apart and the release latency is 0). */
static void test_chain_makespan(void **state)
{
    (void)state;
    const char *policies[] = {"default", "tetris", "dsp-nopp", "dsp", "sailfish", "dagsched"};
    for (size_t p = 0; p < sizeof policies / sizeof policies[0]; p++) {
        sim_workload w = {0};
        snprintf(w.name, sizeof w.name, "chain");
        tu_node(&w, 1000, 2.0);
        double rt[3] = {10, 20, 30};
        int64_t cpu[3] = {500, 500, 500};
        tu_job(&w, "chain", 0, 3, rt, cpu, 1);
        sim_result r;
        run_ok(&w, policies[p], 1.0, &r);
        sim_metrics m = {0};
        assert_int_equal(sim_metrics_compute(&r, &m), 0);
        assert_double_near(m.makespan_s, 30.0, 1e-9);
        assert_double_near(r.jobs[0].completion, 30.0, 1e-9);
        assert_int_equal(r.starts, 3);
        assert_int_equal(r.disorders, 0);
        assert_int_equal(r.preemptions, 0);
        /* cpu: 500m of 1000m busy for the whole makespan */
        assert_double_near(m.util_cpu, 0.5, 1e-9);
        assert_int_equal(r.n_segs, 3);
        assert_double_near(r.segs[1].start, 5.0, 1e-9);
        assert_double_near(r.segs[1].end, 15.0, 1e-9);
        sim_result_free(&r);
        sim_workload_free(&w);
    }
}

/* The chain of test_chain_makespan (10, 20, 30 s on one node of speed 2) with a create latency of
 * 2 s and a start latency of 0.5 s.
 * - sailfish (no gate), released by a workflow engine (onUpstream): each pod is created 2 s after
 *   its task could be (arrival, or its upstream task's end), holds the node 0.5 s from binding,
 *   then runs runtime / 2: a 2..7.5, b 9.5..20, c 22..37.5.
 * - sailfish, pods created up front: no create latency: a 0..5.5, b 5.5..16, c 16..31.5.
 * - dagsched, onUpstream, release latency 0.25 s, no round interval: the pod is gated when it is
 *   created and enters the queue 0.25 s after the round that releases it: a bound at 2.25, runs
 *   2.75..7.75; b created at 9.75, bound at 10, runs 10.5..20.5; c bound at 22.75, ends at 38.25.
 * A negative latency is refused. */
static void test_create_and_start_latency(void **state)
{
    (void)state;
    static const struct {
        const char *policy;
        bool upfront;
        double first, bound_b, end;
    } cases[] = {
        {"sailfish", false, 2.0, 9.5, 37.5},
        {"sailfish", true, 0.0, 5.5, 31.5},
        {"dagsched", false, 2.25, 10.0, 38.25},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        sim_workload w = {0};
        snprintf(w.name, sizeof w.name, "latency");
        tu_node(&w, 1000, 2.0);
        double rt[3] = {10, 20, 30};
        int64_t cpu[3] = {500, 500, 500};
        sim_job_def *j = tu_job(&w, "chain", 0, 3, rt, cpu, 1);
        j->release = cases[k].upfront ? SIM_RELEASE_UPFRONT : SIM_RELEASE_ON_UPSTREAM;
        sim_config c;
        sim_config_defaults(&c, sim_policy_find(cases[k].policy));
        c.create_latency_s = 2.0;
        c.start_latency_s = 0.5;
        c.release_latency_s = 0.25;
        c.round_interval_s = 0;
        c.record_segments = true;
        sim_result r;
        ds_err err = {{0}};
        if (sim_run(&w, &c, &r, &err) != 0)
            fail_msg("sim_run(%s): %s", cases[k].policy, err.msg);
        assert_double_near(r.jobs[0].completion, cases[k].end, 1e-9);
        assert_int_equal(r.n_segs, 3);
        assert_double_near(r.segs[0].start, cases[k].first, 1e-9);
        assert_double_near(r.segs[1].start, cases[k].bound_b, 1e-9);
        assert_double_near(r.segs[1].end, cases[k].bound_b + 0.5 + 10.0, 1e-9);
        sim_result_free(&r);
        c.start_latency_s = -1;
        assert_int_equal(sim_run(&w, &c, &r, &err), -1);
        assert_string_equal(err.msg, "simulator: delays and latencies must be >= 0 (disorder "
                                     "failure > 0) and backoff base <= max");
        sim_workload_free(&w);
    }
}

/* One 1-core node. Job "low" (priority 0) runs a 100 s task from t = 0; job "high" (priority
 * 1000) submits a 20 s task at t = 10 that needs the whole node. kube-scheduler preemption evicts
 * "low" at 10; "high" runs 10..30; "low" restarts from zero at 30 and ends at 130 (10 s of work
 * lost). With checkpointing it resumes and ends at 120. */
static void test_preemption_restarts_victim(void **state)
{
    (void)state;
    for (int checkpoint = 0; checkpoint <= 1; checkpoint++) {
        sim_workload w = {0};
        snprintf(w.name, sizeof w.name, "preempt");
        tu_node(&w, 1000, 1.0);
        double rt_low[1] = {100}, rt_high[1] = {20};
        int64_t cpu[1] = {1000};
        sim_job_def *low = tu_job(&w, "low", 0, 1, rt_low, cpu, 0);
        low->tasks[0].checkpoint = checkpoint;
        sim_job_def *high = tu_job(&w, "high", 10, 1, rt_high, cpu, 0);
        high->priority = 1000;
        sim_result r;
        run_ok(&w, "default", 0.0, &r);
        assert_int_equal(r.preemptions, 1);
        assert_int_equal(r.preempt_kube, 1);
        assert_double_near(r.jobs[1].completion, 30.0, 1e-9);
        assert_double_near(r.jobs[0].completion, checkpoint ? 120.0 : 130.0, 1e-9);
        assert_double_near(r.lost_work_s, checkpoint ? 0.0 : 10.0, 1e-9);
        assert_int_equal(r.starts, 3);
        /* the Gantt record shows the evicted run 0..10 */
        assert_int_equal(r.n_segs, 3);
        assert_int_equal(r.segs[0].outcome, SIM_SEG_EVICTED);
        assert_double_near(r.segs[0].end, 10.0, 1e-9);
        sim_result_free(&r);

        /* equal priorities: no preemption, high waits until 100 and ends at 120 */
        high->priority = 0;
        run_ok(&w, "default", 0.0, &r);
        assert_int_equal(r.preemptions, 0);
        assert_double_near(r.jobs[1].completion, 120.0, 1e-9);
        sim_result_free(&r);
        sim_workload_free(&w);
    }
}

/* DSP urgent preemption: job "a" (no deadline) runs a 100 s task from 0 on the only node; job "b"
 * arrives at 5 with a 20 s task and a deadline 30 s after arrival (t = 35). At the epoch at t = 10
 * its allowable waiting time is 35 - 10 - 20 = 5 <= epsilon (30 s): urgent, and just savable with
 * the default 5 s start latency; "a" has infinite slack, so it is evicted; "b" runs 10..30 and
 * meets its deadline; "a" restarts at 30, ends 130. */
static void test_dsp_urgent_preemption(void **state)
{
    (void)state;
    sim_workload w = {0};
    snprintf(w.name, sizeof w.name, "urgent");
    tu_node(&w, 1000, 1.0);
    double rt_a[1] = {100}, rt_b[1] = {20};
    int64_t cpu[1] = {1000};
    tu_job(&w, "a", 0, 1, rt_a, cpu, 0);
    sim_job_def *b = tu_job(&w, "b", 5, 1, rt_b, cpu, 0);
    b->deadline_s = 30;
    const char *policies[] = {"dsp", "dsp-nopp"};
    for (size_t p = 0; p < 2; p++) {
        sim_result r;
        run_ok(&w, policies[p], 0.0, &r);
        assert_int_equal(r.preemptions, 1);
        assert_int_equal(r.preempt_urgent, 1);
        assert_double_near(r.jobs[1].completion, 30.0, 1e-9);
        assert_double_near(r.jobs[0].completion, 130.0, 1e-9);
        sim_metrics m = {0};
        assert_int_equal(sim_metrics_compute(&r, &m), 0);
        assert_double_near(m.deadline_met_ratio, 1.0, 1e-12); /* only b has a deadline */
        /* the eviction was made for b, which met its deadline; a had run 10 s */
        assert_int_equal(r.jobs[1].evictions_for, 1);
        assert_int_equal(m.evict_deadline, 1);
        assert_int_equal(m.evict_met, 1);
        assert_int_equal(m.evict_no_deadline, 0);
        assert_double_near(m.eviction_yield, 1.0, 1e-12);
        /* the task-level yield: b, the preemptor, ended at 30, by its level deadline (35) */
        assert_int_equal(m.evict_task_deadline, 1);
        assert_int_equal(m.evict_task_met, 1);
        assert_double_near(m.evict_task_yield, 1.0, 1e-12);
        assert_double_near(m.lost_run_s, 10.0, 1e-9);
        sim_result_free(&r);
    }
    /* default (no DSP) lets b wait: it ends at 120 and misses its deadline */
    sim_result r;
    run_ok(&w, "default", 0.0, &r);
    assert_int_equal(r.preemptions, 0);
    assert_double_near(r.jobs[1].completion, 120.0, 1e-9);
    sim_metrics m = {0};
    assert_int_equal(sim_metrics_compute(&r, &m), 0);
    assert_double_near(m.deadline_met_ratio, 0.0, 1e-12);
    assert_int_equal(m.evict_deadline + m.evict_no_deadline, 0);
    assert_true(isnan(m.eviction_yield)); /* no eviction: no yield */
    sim_result_free(&r);
    sim_workload_free(&w);
}

/* Eviction figures by hand. One 1-core node of speed 2, restart delay 0, kube-scheduler
 * preemption (policy default). "low" (priority 0, no deadline) needs 200 reference s (100 s on the
 * node). Three priority-1000 jobs of one 40-reference-s task (20 s on the node) each evict it:
 *   hi-met   arrives 10, deadline 30 s after: evicts low at 10 (low ran 0..10), runs 10..30, meets
 *            its deadline (40);
 *   hi-late  arrives 50, deadline 5 s after: low restarted at 30, evicted at 50 (ran 20 s); runs
 *            50..70 and misses its deadline (55);
 *   hi-batch arrives 80, no deadline: low restarted at 70, evicted at 80 (ran 10 s); runs 80..100.
 * Evictions 3: 2 made for jobs with a deadline (1 met it), 1 for a job without one. Yield = 1/2.
 * Lost: 10 + 20 + 10 = 40 node s = 80 reference s; low restarts at 100 and ends at 200. With a
 * checkpointing low nothing is lost and low ends at 100 + (200 - 20 - 40 - 20) / 2 = 160. */
static void test_eviction_yield_and_lost_work(void **state)
{
    (void)state;
    for (int checkpoint = 0; checkpoint <= 1; checkpoint++) {
        sim_workload w = {0};
        snprintf(w.name, sizeof w.name, "yield");
        tu_node(&w, 1000, 2.0);
        double rt_low[1] = {200}, rt_hi[1] = {40};
        int64_t cpu[1] = {1000};
        sim_job_def *low = tu_job(&w, "low", 0, 1, rt_low, cpu, 0);
        low->tasks[0].checkpoint = checkpoint;
        sim_job_def *met = tu_job(&w, "hi-met", 10, 1, rt_hi, cpu, 0);
        met->priority = 1000;
        met->deadline_s = 30;
        sim_job_def *late = tu_job(&w, "hi-late", 50, 1, rt_hi, cpu, 0);
        late->priority = 1000;
        late->deadline_s = 5;
        sim_job_def *batch = tu_job(&w, "hi-batch", 80, 1, rt_hi, cpu, 0);
        batch->priority = 1000;
        sim_result r;
        run_ok(&w, "default", 0.0, &r);
        sim_metrics m = {0};
        assert_int_equal(sim_metrics_compute(&r, &m), 0);
        assert_int_equal(m.preemptions, 3);
        assert_double_near(r.jobs[1].completion, 30.0, 1e-9);
        assert_double_near(r.jobs[2].completion, 70.0, 1e-9);
        assert_double_near(r.jobs[3].completion, 100.0, 1e-9);
        assert_double_near(r.jobs[0].completion, checkpoint ? 160.0 : 200.0, 1e-9);
        assert_int_equal(r.jobs[0].evictions_for, 0);
        assert_int_equal(r.jobs[1].evictions_for, 1);
        assert_int_equal(r.jobs[2].evictions_for, 1);
        assert_int_equal(r.jobs[3].evictions_for, 1);
        assert_int_equal(m.evict_deadline, 2);
        assert_int_equal(m.evict_met, 1);
        assert_int_equal(m.evict_no_deadline, 1);
        assert_double_near(m.eviction_yield, 0.5, 1e-12);
        /* kube-scheduler's preemption knows no level deadlines: no task-level yield */
        assert_int_equal(m.evict_task_deadline, 0);
        assert_true(isnan(m.evict_task_yield));
        assert_int_equal(m.deadline_jobs, 2);
        assert_int_equal(m.deadline_met, 1);
        assert_double_near(m.lost_run_s, checkpoint ? 0.0 : 40.0, 1e-9);
        assert_double_near(m.lost_work_s, checkpoint ? 0.0 : 80.0, 1e-9);
        sim_result_free(&r);
        sim_workload_free(&w);
    }
}

/* Planted violation: a chain a (20 s) -> b (10 s) whose pods are all created up front, on two
 * nodes. The DAG-unaware default policy starts b at 0 on the second node: disorder 1; b fails at
 * 5 (no inputs), is recreated after 10 s, starts again at 15 while a still runs: disorder 2,
 * fails at 20, is recreated after 20 s and runs 40..50. A DAG-aware policy holds b until a is
 * done: no disorder, makespan 30. */
static void test_disorder_counter(void **state)
{
    (void)state;
    sim_workload w = {0};
    snprintf(w.name, sizeof w.name, "disorder");
    tu_node(&w, 1000, 1.0);
    tu_node(&w, 1000, 1.0);
    double rt[2] = {20, 10};
    int64_t cpu[2] = {1000, 1000};
    sim_job_def *j = tu_job(&w, "pipeline", 0, 2, rt, cpu, 1);
    j->release = SIM_RELEASE_UPFRONT;
    sim_result r;
    run_ok(&w, "default", 1.0, &r);
    assert_int_equal(r.disorders, 2);
    assert_int_equal(r.failures, 2);
    assert_double_near(r.jobs[0].completion, 50.0, 1e-9);
    assert_int_equal(r.n_segs, 4);
    sim_result_free(&r);
    run_ok(&w, "tetris", 1.0, &r);
    assert_int_equal(r.disorders, 2);
    sim_result_free(&r);
    const char *aware[] = {"dsp-nopp", "dsp", "sailfish", "dagsched"};
    for (size_t p = 0; p < 4; p++) {
        run_ok(&w, aware[p], 1.0, &r);
        assert_int_equal(r.disorders, 0);
        assert_double_near(r.jobs[0].completion, 30.0, 1e-9);
        sim_result_free(&r);
    }
    /* released by a workflow engine, even default has no disorder */
    j->release = SIM_RELEASE_ON_UPSTREAM;
    run_ok(&w, "default", 1.0, &r);
    assert_int_equal(r.disorders, 0);
    assert_double_near(r.jobs[0].completion, 30.0, 1e-9);
    sim_result_free(&r);
    sim_workload_free(&w);
}

static void gen_workload(sim_workload *w, uint64_t seed)
{
    memset(w, 0, sizeof *w);
    ds_err err = {{0}};
    assert_int_equal(sim_nodes_parse("3x8:32Gi:1,1x16:64Gi:1.5", &w->nodes, &w->n_nodes, &err), 0);
    sim_gen_params g;
    sim_gen_defaults(&g);
    g.seed = seed;
    g.n_jobs = 9;
    g.task_scale = 0.02;
    g.release = SIM_RELEASE_UPFRONT;
    if (sim_gen_workload(&g, w, &err) != 0)
        fail_msg("%s", err.msg);
}

/* Same seed, same result (bit for bit); DAG-aware policies never start a task early. */
static void test_determinism(void **state)
{
    (void)state;
    size_t n;
    const sim_policy_desc *all = sim_policy_all(&n);
    for (size_t p = 0; p < n; p++) {
        sim_workload w;
        gen_workload(&w, 7);
        sim_result a, b;
        run_ok(&w, all[p].name, 1.0, &a);
        run_ok(&w, all[p].name, 1.0, &b);
        assert_int_equal(a.n_tasks, b.n_tasks);
        assert_int_equal(a.events, b.events);
        assert_int_equal(a.preemptions, b.preemptions);
        for (size_t j = 0; j < a.n_jobs; j++)
            assert_true(a.jobs[j].completion == b.jobs[j].completion);
        if (all[p].dag_aware)
            assert_int_equal(a.disorders, 0);
        else
            assert_true(a.disorders > 0); /* up-front pods, DAG-unaware policy */
        sim_result_free(&a);
        sim_result_free(&b);
        sim_workload_free(&w);
    }
}

/* One 1-core node; at t = 0 job "big" (a chain of three 100 s tasks, 1 core each) and job "small"
 * (one 50 s task) arrive. No deadlines; default priority parameters (time scale 60 s).
 * DSP priorities at t = 0: big t2 = 0.5 / (100/60) = 0.3, t1 = 1.5 * 0.3 = 0.45,
 * t0 = 1.5 * 0.45 = 0.675; small t0 = 0.5 / (50/60) = 0.6.
 * Shipped order (shortestRemaining): small (50 s of work) before big (300 s): small runs 0..50,
 * big 50..350. Paper order (dsp): big t0 (0.675 > 0.6) runs 0..100; at 100 small has waited
 * 100 s (0.6 + 0.3 * 100/60 = 1.1 > big t1's 0.45): small 100..150, big t1 and t2 150..350.
 * The controller releases in this order: with no look-ahead and no release latency only the task
 * that fits is released, so the order alone decides (test_release.c: look-ahead, latency). */
static void test_order_across_jobs(void **state)
{
    (void)state;
    for (int paper = 0; paper <= 1; paper++) {
        sim_workload w = {0};
        snprintf(w.name, sizeof w.name, "order");
        tu_node(&w, 1000, 1.0);
        double rt_big[3] = {100, 100, 100}, rt_small[1] = {50};
        int64_t cpu[3] = {1000, 1000, 1000};
        tu_job(&w, "big", 0, 3, rt_big, cpu, 1);
        tu_job(&w, "small", 0, 1, rt_small, cpu, 0);
        sim_config c;
        sim_config_defaults(&c, sim_policy_find("dagsched"));
        if (paper) {
            c.pol.order.job_order = DS_ORDER_DSP;
            c.pol.order.starvation_s = 0;
        }
        c.release_latency_s = 0;
        c.pol.release_lookahead = 0;
        sim_result r;
        ds_err err = {{0}};
        if (sim_run(&w, &c, &r, &err) != 0)
            fail_msg("sim_run: %s", err.msg);
        assert_int_equal(r.preemptions, 0);
        assert_double_near(r.jobs[0].completion, 350.0, 1e-9);
        assert_double_near(r.jobs[1].completion, paper ? 150.0 : 50.0, 1e-9);
        sim_result_free(&r);
        sim_workload_free(&w);
    }
}

/* Generator job classes: --mix 2:0:1 repeats small, small, large; --batch-large takes the large
 * jobs' deadline away and --large-runtime sets their tasks' run times. The default 1:1:1 keeps
 * DSP's small, medium, large sequence. Sizes with task scale 1: small 10 (10:10), medium 30,
 * large 50. */
static void test_generator_mix(void **state)
{
    (void)state;
    for (int variant = 0; variant < 2; variant++) {
        sim_workload w = {0};
        ds_err err = {{0}};
        assert_int_equal(sim_nodes_parse("2x8:32Gi:1", &w.nodes, &w.n_nodes, &err), 0);
        sim_gen_params g;
        sim_gen_defaults(&g);
        g.n_jobs = 6;
        g.small_min = g.small_max = 10;
        g.medium_tasks = 30;
        g.large_tasks = 50;
        if (variant == 1) {
            g.mix[0] = 2;
            g.mix[1] = 0;
            g.mix[2] = 1;
            g.large_no_deadline = true;
            /* --large-runtime const:5000: every task of a large job runs 5000 s */
            g.large_runtime_set = true;
            g.large_runtime_s = (sim_dist){SIM_DIST_CONST, 5000, 0, 0, 1e9};
        }
        if (sim_gen_workload(&g, &w, &err) != 0)
            fail_msg("%s", err.msg);
        const size_t want[2][6] = {{10, 30, 50, 10, 30, 50}, {10, 10, 50, 10, 10, 50}};
        for (size_t j = 0; j < 6; j++) {
            sim_job_def d;
            bool owned = false;
            assert_int_equal(sim_workload_job(&w, j, &d, &owned, &err), 0);
            assert_int_equal(d.n_tasks, want[variant][j]);
            bool batch = variant == 1 && d.n_tasks == 50;
            assert_true(batch ? d.deadline_factor == 0 : d.deadline_factor >= 1.5);
            assert_true(isinf(d.deadline_s));
            for (size_t t = 0; t < d.n_tasks; t++) /* the default runtimes stay below 3600 s */
                assert_true(batch ? d.tasks[t].runtime_s == 5000 : d.tasks[t].runtime_s <= 3600);
            if (owned)
                sim_job_def_free(&d);
        }
        sim_workload_free(&w);
    }
    /* a mix of nothing is refused */
    sim_workload w = {0};
    ds_err err = {{0}};
    assert_int_equal(sim_nodes_parse("1x8:32Gi:1", &w.nodes, &w.n_nodes, &err), 0);
    sim_gen_params g;
    sim_gen_defaults(&g);
    g.mix[0] = g.mix[1] = g.mix[2] = 0;
    assert_int_equal(sim_gen_workload(&g, &w, &err), -1);
    assert_string_equal(err.msg, "generator: mix: each count must be <= 1000 and one > 0");
    sim_workload_free(&w);
}

static void test_bad_workloads(void **state)
{
    (void)state;
    sim_workload w = {0};
    snprintf(w.name, sizeof w.name, "bad");
    tu_node(&w, 1000, 1.0);
    double rt[1] = {10};
    int64_t cpu[1] = {2000};
    tu_job(&w, "too-big", 0, 1, rt, cpu, 0);
    ds_err err = {{0}};
    assert_int_equal(sim_workload_validate(&w, &err), -1);
    assert_string_equal(err.msg,
                        "job \"too-big\": task \"t0\": request (cpu 2000m, memory 1048576) fits "
                        "on no node");
    sim_workload_free(&w);

    sim_node_def *nodes;
    size_t nn;
    assert_int_equal(sim_nodes_parse("2x4:8Gi:1.5,1x8:16Gi", &nodes, &nn, &err), 0);
    assert_int_equal(nn, 3);
    assert_int_equal(nodes[2].allocatable.v[DS_RES_CPU], 8000);
    assert_true(nodes[1].speed == 1.5 && nodes[2].speed == 0);
    free(nodes);
    assert_int_equal(sim_nodes_parse("2x4", &nodes, &nn, &err), -1);
    assert_string_equal(err.msg, "nodes: expected COUNTxCPU:MEMORY[:SPEED] (got \"2x4\")");
    assert_int_equal(sim_nodes_parse("1x4:8Gi:-1", &nodes, &nn, &err), -1);
    assert_string_equal(err.msg, "nodes \"1x4:8Gi:-1\": speed must be in (0, 1000] (got \"-1\")");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_makespan),
        cmocka_unit_test(test_create_and_start_latency),
        cmocka_unit_test(test_preemption_restarts_victim),
        cmocka_unit_test(test_dsp_urgent_preemption),
        cmocka_unit_test(test_eviction_yield_and_lost_work),
        cmocka_unit_test(test_disorder_counter),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_order_across_jobs),
        cmocka_unit_test(test_generator_mix),
        cmocka_unit_test(test_bad_workloads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
