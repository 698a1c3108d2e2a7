/* test_release.c: the simulated admission gate and controller (sim/release.c) on cases computed by
 * hand: a gated pod enters kube-scheduler's queue exactly the release latency after the round
 * that releases it, rounds are at least the round interval apart, capacity admission releases
 * only what fits (plus the look-ahead), kube-scheduler orders released pods by creation time
 * (whatever the controller's order), the upper bound `dsp` orders the queue itself, and
 * critical-path-first within a job, fair share across tenants (spec.fairness). A property over
 * a generated workload: no pod of a gated policy starts before it became ready plus the release
 * latency. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../common/ds_assert.h"

#include "engine.h"
#include "sim_test_util.h"
#include "workload_file.h"
#include "workload_gen.h"

static void config(sim_config *c, const char *policy, double latency, double interval)
{
    sim_config_defaults(c, sim_policy_find(policy));
    assert_non_null(c->policy);
    c->release_latency_s = latency;
    c->round_interval_s = interval;
    c->record_segments = true;
}

static void run_cfg(const sim_workload *w, const sim_config *c, sim_result *r)
{
    ds_err err = {{0}};
    if (sim_run(w, c, r, &err) != 0)
        fail_msg("sim_run(%s): %s", c->policy->name, err.msg);
}

/* The segment of task `task` of job `job` (the first one recorded). */
static const sim_segment *seg_of(const sim_result *r, uint32_t job, uint32_t task)
{
    for (size_t i = 0; i < r->n_segs; i++)
        if (r->segs[i].job == job && r->segs[i].task == task)
            return &r->segs[i];
    fail_msg("no run of job %u task %u", job, task);
    return NULL;
}

/* Chain a -> b -> c (10, 20, 30 s at speed 1) on one node of speed 2 (runs of 5, 10, 15 s).
 * dagsched with latency L: a is ready at 0, the round at 0 releases it, it is queued and starts
 * at L and ends at L + 5; b is ready then, its round runs at once (more than the 1 s interval
 * after the last one) and it starts at 2L + 5; c at 3L + 15; the job ends at 3L + 30. default
 * (no gate) ends at 30 with every pod queued when it became ready. */
static void test_latency_chain(void **state)
{
    (void)state;
    sim_workload w = {0};
    snprintf(w.name, sizeof w.name, "chain");
    tu_node(&w, 1000, 2.0);
    double rt[3] = {10, 20, 30};
    int64_t cpu[3] = {500, 500, 500};
    tu_job(&w, "chain", 0, 3, rt, cpu, 1);
    const double lat[3] = {0, 0.5, 2.5};
    const double ready_at[3] = {0, 5, 15}; /* plus 0, L, 2L */
    for (size_t k = 0; k < 3; k++) {
        double L = lat[k];
        sim_config c;
        config(&c, "dagsched", L, 1.0);
        sim_result r;
        run_cfg(&w, &c, &r);
        assert_double_near(r.jobs[0].completion, 3 * L + 30, 1e-9);
        assert_int_equal(r.releases, 3);
        for (uint32_t t = 0; t < 3; t++) {
            const sim_segment *s = seg_of(&r, 0, t);
            assert_double_near(s->ready, ready_at[t] + t * L, 1e-9);
            assert_double_near(s->queued, s->ready + L, 1e-9);
            assert_double_near(s->start, s->queued, 1e-9);
        }
        sim_result_free(&r);
    }
    sim_config c;
    config(&c, "default", 2.5, 1.0); /* no gate: the latency does not apply */
    sim_result r;
    run_cfg(&w, &c, &r);
    assert_double_near(r.jobs[0].completion, 30, 1e-9);
    assert_int_equal(r.releases, 0);
    for (uint32_t t = 0; t < 3; t++)
        assert_double_near(seg_of(&r, 0, t)->queued, seg_of(&r, 0, t)->ready, 1e-9);
    sim_result_free(&r);
    sim_workload_free(&w);
}

/* Rounds at most once per interval: job A (0.5 core, 10 s) arrives at 0, job B (0.5 core, 10 s)
 * at 0.25, on a 1-core node, latency 0.5. The round at 0 releases A (queued 0.5). With a 1 s
 * interval B's round waits until 1: queued at 1.5. With no interval it runs at 0.25: queued 0.75.
 */
static void test_round_interval(void **state)
{
    (void)state;
    sim_workload w = {0};
    snprintf(w.name, sizeof w.name, "interval");
    tu_node(&w, 1000, 1.0);
    double rt[1] = {10};
    int64_t cpu[1] = {500};
    tu_job(&w, "a", 0, 1, rt, cpu, 0);
    tu_job(&w, "b", 0.25, 1, rt, cpu, 0);
    for (int k = 0; k < 2; k++) {
        sim_config c;
        config(&c, "dagsched", 0.5, k == 0 ? 1.0 : 0.0);
        sim_result r;
        run_cfg(&w, &c, &r);
        assert_double_near(seg_of(&r, 0, 0)->queued, 0.5, 1e-9);
        assert_double_near(seg_of(&r, 1, 0)->queued, k == 0 ? 1.5 : 0.75, 1e-9);
        assert_double_near(r.jobs[1].completion, k == 0 ? 11.5 : 10.75, 1e-9);
        assert_int_equal(r.rounds, 2);
        sim_result_free(&r);
    }
    sim_workload_free(&w);
}

/* Capacity admission: one job of six independent 1-core, 10 s tasks on two 1-core nodes, latency
 * 1. With no look-ahead the controller releases only what fits: two pods at a time, each placed
 * the moment it is queued, so kube-scheduler's queue never holds more than two and every pod
 * starts when it is queued. Three waves: 1..11, 12..22, 23..33. With the default look-ahead of
 * 2, four are queued at once; releasing every ready task (admission: all) queues all six, as the
 * ungated default does. */
static void test_capacity_admission(void **state)
{
    (void)state;
    sim_workload w = {0};
    snprintf(w.name, sizeof w.name, "capacity");
    tu_node(&w, 1000, 1.0);
    tu_node(&w, 1000, 1.0);
    double rt[6] = {10, 10, 10, 10, 10, 10};
    int64_t cpu[6] = {1000, 1000, 1000, 1000, 1000, 1000};
    tu_job(&w, "wide", 0, 6, rt, cpu, 0);
    sim_config c;
    config(&c, "dagsched", 1.0, 1.0);
    c.pol.release_lookahead = 0;
    sim_result r;
    run_cfg(&w, &c, &r);
    assert_int_equal(r.peak_queued, 2);
    assert_int_equal(r.releases, 6);
    for (uint32_t t = 0; t < 6; t++)
        assert_double_near(seg_of(&r, 0, t)->start, seg_of(&r, 0, t)->queued, 1e-9);
    assert_double_near(r.jobs[0].completion, 33, 1e-9);
    sim_result_free(&r);

    config(&c, "dagsched", 1.0, 1.0);
    run_cfg(&w, &c, &r);
    assert_int_equal(r.peak_queued, 4);
    sim_result_free(&r);

    config(&c, "dagsched", 1.0, 1.0);
    c.pol.release_admission = DS_ADMIT_ALL;
    run_cfg(&w, &c, &r);
    assert_int_equal(r.peak_queued, 6);
    sim_result_free(&r);

    config(&c, "default", 1.0, 1.0);
    run_cfg(&w, &c, &r);
    assert_int_equal(r.peak_queued, 6);
    sim_result_free(&r);
    sim_workload_free(&w);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* What releases cost (--release-cost, --release-concurrency): six independent 1-core tasks on six
 * 1-core nodes, all released by the round at 0, latency 0. Free: all queued at 0. At 0.5 s a
 * request one at a time: queued 0.5, 1.0, ... 3.0; two at a time: 0.5, 0.5, 1.0, 1.0, 1.5, 1.5.
 * Job b (one task) arrives at 0.25 with no round interval: its round waits for the first round's
 * writes, at 3.0 (one at a time) or 1.5 (two), and its release takes one request more. */
/* Gang release (lib/gang.h) in the simulator: one 2-core node; job a (one 1-core task, 100 s)
 * arrives at 0; job g (two 1-core tasks of 10 s, one gang of 2) at 1. The room holds one member
 * until a ends: neither starts before 100, and both start together. The same workload without
 * the gang starts one member at once. */
static void test_gang(void **state)
{
    (void)state;
    sim_workload w = {0};
    snprintf(w.name, sizeof w.name, "gang");
    tu_node(&w, 2000, 1.0);
    double rt_a[1] = {100}, rt_g[2] = {10, 10};
    int64_t cpu[2] = {1000, 1000};
    tu_job(&w, "a", 0, 1, rt_a, cpu, 0);
    sim_job_def *g = tu_job(&w, "g", 1, 2, rt_g, cpu, 0);
    for (int gang = 1; gang >= 0; gang--) {
        for (size_t k = 0; k < 2; k++) {
            free(g->tasks[k].gang);
            g->tasks[k].gang = gang ? strdup("w") : NULL;
            g->tasks[k].gang_size = gang ? 2 : 0;
            assert_true(!gang || g->tasks[k].gang != NULL);
        }
        sim_config c;
        config(&c, "dagsched", 0.5, 1.0);
        sim_result r;
        run_cfg(&w, &c, &r);
        double s0 = seg_of(&r, 1, 0)->start, s1 = seg_of(&r, 1, 1)->start;
        if (gang) {
            assert_true(s0 >= 100 && s1 >= 100);
            assert_double_near(s0, s1, 1e-9);
        } else {
            assert_true(s0 < 100 || s1 < 100);
        }
        sim_result_free(&r);
    }
    sim_workload_free(&w);
}

static void test_release_cost(void **state)
{
    (void)state;
    sim_workload w = {0};
    snprintf(w.name, sizeof w.name, "cost");
    for (int k = 0; k < 7; k++)
        tu_node(&w, 1000, 1.0);
    double rt[6] = {10, 10, 10, 10, 10, 10};
    int64_t cpu[6] = {1000, 1000, 1000, 1000, 1000, 1000};
    tu_job(&w, "wide", 0, 6, rt, cpu, 0);
    tu_job(&w, "b", 0.25, 1, rt, cpu, 0);
    const double want[3][6] = {
        {0, 0, 0, 0, 0, 0}, {0.5, 1.0, 1.5, 2.0, 2.5, 3.0}, {0.5, 0.5, 1.0, 1.0, 1.5, 1.5}};
    const double want_b[3] = {0.25, 3.5, 2.0};
    for (int k = 0; k < 3; k++) {
        sim_config c;
        config(&c, "dagsched", 0, 0);
        c.pol.release_admission = DS_ADMIT_ALL;
        c.release_cost_s = k == 0 ? 0 : 0.5;
        c.release_concurrency = k == 2 ? 2 : 1;
        sim_result r;
        run_cfg(&w, &c, &r);
        double q[6];
        for (uint32_t t = 0; t < 6; t++)
            q[t] = seg_of(&r, 0, t)->queued;
        qsort(q, 6, sizeof q[0], cmp_double);
        for (int t = 0; t < 6; t++)
            assert_double_near(q[t], want[k][t], 1e-9);
        assert_double_near(seg_of(&r, 1, 0)->queued, want_b[k], 1e-9);
        sim_result_free(&r);
    }
    sim_config c;
    config(&c, "dagsched", 0, 0);
    c.release_concurrency = 0;
    sim_result r;
    ds_err err = {{0}};
    assert_int_not_equal(sim_run(&w, &c, &r, &err), 0);
    assert_non_null(strstr(err.msg, "release concurrency at least 1"));
    sim_workload_free(&w);
}

/* A gated task held for lack of room is a preemptor (the controller owns its admission). One
 * 1-core node; job a (100 s, no deadline) arrives at 0 and runs from the release latency on; job
 * b (20 s) arrives at 5 with a deadline 30 s later (t = 35). Look-ahead 0: the release rule holds
 * b at its gate, as nothing fits. minRunTime 0. Once b is urgent (slack 35 - now - 20 at most the
 * urgent threshold, and at least the default 5 s start latency), the preemption round evicts a for
 * it and releases b into the room: b meets its deadline. Without preemption b waits for a's end
 * (about 100) and misses it. */
static void test_gated_preemptor(void **state)
{
    (void)state;
    sim_workload w = {0};
    snprintf(w.name, sizeof w.name, "gated-preemptor");
    tu_node(&w, 1000, 1.0);
    double rt_a[1] = {100}, rt_b[1] = {20};
    int64_t cpu[1] = {1000};
    tu_job(&w, "a", 0, 1, rt_a, cpu, 0);
    sim_job_def *b = tu_job(&w, "b", 5, 1, rt_b, cpu, 0);
    b->deadline_s = 30;
    sim_config c;
    config(&c, "dagsched", 0.5, 1.0);
    c.pol.release_lookahead = 0;
    c.pol.preemption.min_run_s = 0; /* a may go however short it ran */
    sim_result r;
    run_cfg(&w, &c, &r);
    assert_int_equal(r.preemptions, 1);
    assert_int_equal(r.preempt_urgent, 1);
    assert_int_equal(r.jobs[1].evictions_for, 1);
    assert_true(r.jobs[1].completion <= 35.0);
    assert_true(r.jobs[0].completion > 100.0); /* a ran again from scratch */
    sim_result_free(&r);

    config(&c, "dagsched", 0.5, 1.0);
    c.pol.release_lookahead = 0;
    c.pol.preemption.min_run_s = 0;
    c.pol.preemption_enabled = false;
    run_cfg(&w, &c, &r);
    assert_int_equal(r.preemptions, 0);
    assert_true(r.jobs[1].completion > 100.0);
    sim_result_free(&r);
    sim_workload_free(&w);
}

/* Whose order decides. One 1-core node; one-task jobs of 1 core: z (50 s) arrives at 0, x (300 s)
 * at 0.2, y (10 s) at 0.4. Latency 1, interval 1.
 *   dagsched, look-ahead 2: the round at 0 releases z (queued at 1, runs 1..51). The round at 1
 *     finds no room (z in flight takes it) and releases y and x as look-ahead, y first (least
 *     remaining work); both are queued at 2. kube-scheduler orders its queue by creation: x
 *     (0.2) before y (0.4): x 51..351, y 351..361.
 *   dagsched, look-ahead 0: y and x are held until room frees; the round at 51 releases y (it
 *     fits, x does not): y 52..62; the round at 62 releases x: 63..363.
 *   dsp (upper bound, the queue itself ordered by DSP priority, no gate; preemption off): z
 *     0..50; at 50 y (DSP 3.2) goes before x (0.35): y 50..60, x 60..360.
 *   default: first come first served: z 0..50, x 50..350, y 350..360. */
static void test_whose_order(void **state)
{
    (void)state;
    sim_workload w = {0};
    snprintf(w.name, sizeof w.name, "order");
    tu_node(&w, 1000, 1.0);
    double rz[1] = {50}, rx[1] = {300}, ry[1] = {10};
    int64_t cpu[1] = {1000};
    tu_job(&w, "z", 0, 1, rz, cpu, 0);
    tu_job(&w, "x", 0.2, 1, rx, cpu, 0);
    tu_job(&w, "y", 0.4, 1, ry, cpu, 0);
    struct {
        const char *policy;
        size_t lookahead;
        double z, x, y;
    } want[] = {
        {"dagsched", 2, 51, 351, 361},
        {"dagsched", 0, 51, 363, 62},
        {"dsp", 2, 50, 360, 60},
        {"default", 2, 50, 350, 360},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        sim_config c;
        config(&c, want[k].policy, 1.0, 1.0);
        c.pol.release_lookahead = want[k].lookahead;
        c.pol.preemption_enabled = false;
        sim_result r;
        run_cfg(&w, &c, &r);
        assert_double_near(r.jobs[0].completion, want[k].z, 1e-9);
        assert_double_near(r.jobs[1].completion, want[k].x, 1e-9);
        assert_double_near(r.jobs[2].completion, want[k].y, 1e-9);
        sim_result_free(&r);
    }
    sim_workload_free(&w);
}

/* Critical-path-first within a job. One 2-core node, latency 0, no look-ahead; one job: f1 and
 * f2 (10 s) with four 10 s dependents each, and `long` (300 s); every task 1 core.
 *   withinJob dsp: f1, f2 (priority 18) before long (0.1): 0..10; their eight dependents
 *     (priority 3) before long: 10..50; long 50..350.
 *   withinJob criticalPath: long (remaining path 300) and f1 (20) at 0; f2 (20) 10..20, then the
 *     eight dependents one at a time beside long: 20..100; long ends the job at 300. */
static void test_critical_path(void **state)
{
    (void)state;
    sim_workload w = {0};
    snprintf(w.name, sizeof w.name, "critical-path");
    tu_node(&w, 2000, 1.0);
    double rt[11] = {10, 10, 300, 10, 10, 10, 10, 10, 10, 10, 10};
    int64_t cpu[11] = {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000};
    sim_job_def *j = tu_job(&w, "job", 0, 11, rt, cpu, 0);
    for (size_t i = 3; i < 11; i++) { /* tasks 3-6 depend on f1 (0), 7-10 on f2 (1) */
        j->tasks[i].up = malloc(sizeof *j->tasks[i].up);
        j->tasks[i].up[0] = i < 7 ? 0 : 1;
        j->tasks[i].n_up = 1;
    }
    for (int cp = 0; cp <= 1; cp++) {
        sim_config c;
        config(&c, "dagsched", 0, 1.0);
        c.pol.release_lookahead = 0;
        c.pol.order.within_job = cp ? DS_WITHIN_CRITICAL_PATH : DS_WITHIN_DSP;
        sim_result r;
        run_cfg(&w, &c, &r);
        assert_double_near(seg_of(&r, 0, 2)->start, cp ? 0 : 50, 1e-9);
        assert_double_near(r.jobs[0].completion, cp ? 300 : 350, 1e-9);
        sim_result_free(&r);
    }
    sim_workload_free(&w);
}

/* Every pod of a gated policy enters kube-scheduler's queue at least the release latency after
 * it became ready and starts no earlier; an ungated policy queues it when it becomes ready. A
 * generated workload of pods created up front (the gate holds them until their upstream tasks
 * have succeeded: no disorder). */
/* n one-task jobs of 1 cpu on one node of 2 cpu: job i named names[i] in namespace ns[i],
 * arriving at at[i] and running rts[i] s. */
static void tenant_jobs(sim_workload *w, size_t n, const char *const *names, const char *const *ns,
                        const double *at, const double *rts)
{
    memset(w, 0, sizeof *w);
    snprintf(w->name, sizeof w->name, "tenants");
    tu_node(w, 2000, 1.0);
    const int64_t cpu[1] = {1000};
    for (size_t i = 0; i < n; i++)
        tu_job(w, names[i], at[i], 1, &rts[i], cpu, 0)->ns = strdup(ns[i]);
}

/* dagsched without look-ahead and latency, fairness on or off. */
static void run_tenants(const sim_workload *w, int fair, sim_result *r)
{
    sim_config c;
    config(&c, "dagsched", 0, 1.0);
    c.pol.release_lookahead = 0;
    c.pol.fairness_enabled = fair;
    run_cfg(w, &c, r);
}

/* Fair share across tenants, by hand. One node of 2 cpu, no look-ahead. Tenant a: four one-task
 * jobs of 1 cpu for 100 s at 0; tenant b: one such job at 1 s. Without fairness a's jobs go
 * first (they waited longer: higher DSP priority): a0, a1 run 0-100, a2, a3 100-200, b 200-300.
 * With it, at 100 both tenants use nothing: a2 goes first (it comes first in the order) and
 * counts for a, so b (0 < 0.5) goes next: b runs 100-200, a3 200-300. */
static void test_fairness_by_hand(void **state)
{
    (void)state;
    sim_workload w;
    const char *names[5] = {"a0", "a1", "a2", "a3", "b"}, *ns[5] = {"a", "a", "a", "a", "b"};
    const double at[5] = {0, 0, 0, 0, 1}, rts[5] = {100, 100, 100, 100, 100};
    tenant_jobs(&w, 5, names, ns, at, rts);
    for (int fair = 0; fair < 2; fair++) {
        sim_result r;
        run_tenants(&w, fair, &r);
        assert_int_equal(r.n_tenants, 2);
        assert_string_equal(r.tenants[0], "a");
        assert_string_equal(r.tenants[1], "b");
        assert_int_equal(r.jobs[4].tenant, 1);
        assert_double_near(r.jobs[4].completion, fair ? 200 : 300, 1e-9);
        assert_double_near(r.jobs[2].completion, 200, 1e-9);
        assert_double_near(r.jobs[3].completion, fair ? 300 : 200, 1e-9);
        sim_result_free(&r);
    }
    sim_workload_free(&w);

    /* What ran counts no more once it finished. a0 (50 s) and b0 (200 s) start at 0; b1 (ready
     * at 1) and a1 (at 2) wait. At 50, a0 is done: a uses nothing, b half the node, so a1 goes
     * first with fairness (50-150, b1 150-250); without it b1 does (it waited longer). */
    const char *jobs2[4] = {"a0", "b0", "b1", "a1"}, *ns2[4] = {"a", "b", "b", "a"};
    const double at2[4] = {0, 0, 1, 2}, rts2[4] = {50, 200, 100, 100};
    tenant_jobs(&w, 4, jobs2, ns2, at2, rts2);
    for (int fair = 0; fair < 2; fair++) {
        sim_result r;
        run_tenants(&w, fair, &r);
        assert_double_near(r.jobs[3].completion, fair ? 150 : 250, 1e-9); /* a1 */
        assert_double_near(r.jobs[2].completion, fair ? 250 : 150, 1e-9); /* b1 */
        sim_result_free(&r);
    }
    sim_workload_free(&w);
}

/* Mean job completion time of a tenant's jobs. */
static double tenant_jct(const sim_result *r, const char *tenant)
{
    double sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < r->n_jobs; i++)
        if (strcmp(r->tenants[r->jobs[i].tenant], tenant) == 0) {
            sum += r->jobs[i].completion - r->jobs[i].arrival;
            n++;
        }
    assert_true(n > 0);
    return sum / (double)n;
}

/* The two-tenant workload of docs/simulator.md: one tenant floods the queue with small jobs, the
 * other submits four larger DAGs. Fairness more than halves the light tenant's mean completion
 * time (its jobs no longer wait behind the flood's) and costs the flood less than a third; the
 * cluster is no worse used. */
static void test_fairness_two_tenants(void **state)
{
    (void)state;
    sim_workload w = {0};
    ds_err err = {{0}};
    if (sim_workload_load("tests/sim/data/two-tenants.yaml", &w, &err) != 0)
        fail_msg("%s", err.msg);
    double light[2], flood[2], makespan[2];
    for (int fair = 0; fair < 2; fair++) {
        sim_config c;
        config(&c, "dagsched", SIM_DEFAULT_RELEASE_LATENCY_S, 1.0);
        c.pol.fairness_enabled = fair;
        sim_result r;
        run_cfg(&w, &c, &r);
        light[fair] = tenant_jct(&r, "light");
        flood[fair] = tenant_jct(&r, "flood");
        makespan[fair] = r.end_time - r.first_arrival;
        sim_result_free(&r);
    }
    if (!(light[1] < light[0] / 2 && flood[1] < flood[0] * 4 / 3 && makespan[1] <= makespan[0]))
        fail_msg("light %g -> %g s, flood %g -> %g s, makespan %g -> %g s", light[0], light[1],
                 flood[0], flood[1], makespan[0], makespan[1]);
    sim_workload_free(&w);
}

static void test_gate_property(void **state)
{
    (void)state;
    sim_workload w = {0};
    ds_err err = {{0}};
    assert_int_equal(sim_nodes_parse("3x8:32Gi:1,1x16:64Gi:1.5", &w.nodes, &w.n_nodes, &err), 0);
    sim_gen_params g;
    sim_gen_defaults(&g);
    g.seed = 3;
    g.n_jobs = 12;
    g.task_scale = 0.03;
    g.release = SIM_RELEASE_UPFRONT;
    if (sim_gen_workload(&g, &w, &err) != 0)
        fail_msg("%s", err.msg);
    const double L = 1.75;
    sim_config c;
    config(&c, "dagsched", L, 1.0);
    sim_result r;
    run_cfg(&w, &c, &r);
    assert_int_equal(r.disorders, 0);
    assert_true(r.n_segs >= r.n_tasks && !r.segs_truncated);
    assert_true(r.releases >= r.n_tasks);
    for (size_t i = 0; i < r.n_segs; i++) {
        assert_true(r.segs[i].queued >= r.segs[i].ready + L - 1e-9);
        assert_true(r.segs[i].start >= r.segs[i].queued - 1e-9);
    }
    sim_result_free(&r);
    config(&c, "sailfish", L, 1.0);
    run_cfg(&w, &c, &r);
    assert_int_equal(r.disorders, 0);
    for (size_t i = 0; i < r.n_segs; i++)
        assert_double_near(r.segs[i].queued, r.segs[i].ready, 1e-9);
    sim_result_free(&r);
    sim_workload_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_latency_chain),
        cmocka_unit_test(test_round_interval),
        cmocka_unit_test(test_capacity_admission),
        cmocka_unit_test(test_gated_preemptor),
        cmocka_unit_test(test_whose_order),
        cmocka_unit_test(test_critical_path),
        cmocka_unit_test(test_gate_property),
        cmocka_unit_test(test_fairness_by_hand),
        cmocka_unit_test(test_fairness_two_tenants),
        cmocka_unit_test(test_release_cost),
        cmocka_unit_test(test_gang),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
