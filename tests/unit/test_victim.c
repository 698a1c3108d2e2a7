/* test_victim.c: unit tests of victim selection (DSP Algorithm 1 adapted to per-node fit): the
 * normalised priority gap, condition C2 (never evict an ancestor), urgent and starving preemptors,
 * the per-node fit rule, multi-victim plans, every anti-thrash limit and input validation. Every
 * test asserts the exact decisions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "victim.h"

#define GI    ((int64_t)1 << 30)
#define NOJOB DS_NO_TASK

static ds_preempt_params params(void)
{
    ds_preempt_params p = {
        .epsilon_s = 30,
        .epoch_s = 10,
        .delta = 1.0,
        .rho = 1.5,
        .tau_s = 0,
        .min_run_s = 60,
        .max_victims_per_preemptor = 1,
        .max_evictions = 10,
        .deadline_victims = true,
    };
    return p;
}

static ds_waiting_task waiting(double prio, int64_t cpu, int64_t mem)
{
    ds_waiting_task w = {.job = NOJOB,
                         .task = 0,
                         .priority = prio,
                         .t_allow_s = INFINITY,
                         .t_wait_s = 0,
                         .request = {{cpu, mem, 0, 0}}};
    return w;
}

static ds_waiting_task urgent(double prio, int64_t cpu, int64_t mem)
{
    ds_waiting_task w = waiting(prio, cpu, mem);
    w.t_allow_s = 5;
    return w;
}

static ds_running_task running(double prio, int64_t cpu, int64_t mem, size_t node)
{
    ds_running_task r = {.job = NOJOB,
                         .task = 0,
                         .priority = prio,
                         .t_allow_s = INFINITY,
                         .ran_s = 600,
                         .request = {{cpu, mem, 0, 0}},
                         .node = node,
                         .evictable = true};
    return r;
}

static ds_node_free node(int64_t cpu, int64_t mem, size_t budget)
{
    ds_node_free n = {.free_ = {{cpu, mem, 0, 0}}, .evictions_left = budget};
    return n;
}

#define N_OUT 16

/* Run with no DAGs. */
static long select_plain(const ds_waiting_task *w, size_t nw, const ds_running_task *r, size_t nr,
                         const ds_node_free *n, size_t nn, const ds_preempt_params *p,
                         ds_decision *out)
{
    ds_err err = {{0}};
    memset(out, 0xab, N_OUT * sizeof *out);
    long got = ds_select_victims(w, nw, r, nr, n, nn, NULL, 0, p, out, N_OUT, &err);
    if (got < 0)
        fail_msg("unexpected error: %s", err.msg);
    return got;
}

static void assert_decision(const ds_decision *d, size_t w, size_t r, size_t node,
                            ds_preempt_reason reason)
{
    assert_int_equal(d->waiting, w);
    assert_int_equal(d->running, r);
    assert_int_equal(d->node, node);
    assert_int_equal(d->reason, reason);
}

/* Priorities {2.0 waiting; 1.0, 0.0, 3.0 running}: P_bar = (3 - 0) / 3 = 1. The gap to the only
 * evictable task (1.0) is 1.0, normalised 1.0 <= rho = 1.5: no eviction. With rho = 0: eviction. */
static void test_normalised_gap(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    ds_waiting_task w[] = {waiting(2.0, 1000, GI)};
    ds_running_task r[] = {running(1.0, 1000, GI, 0), running(0.0, 1000, GI, 0),
                           running(3.0, 1000, GI, 0)};
    r[1].evictable = false;
    r[2].evictable = false;
    ds_node_free n[] = {node(0, 0, 5)};
    ds_decision out[N_OUT];

    assert_int_equal(select_plain(w, 1, r, 3, n, 1, &p, out), 0);

    p.rho = 0;
    assert_int_equal(select_plain(w, 1, r, 3, n, 1, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_PRIORITY);
    assert_double_near(out[0].gap, 1.0, 1e-12);
    assert_double_near(out[0].normalised_gap, 1.0, 1e-12);

    /* The test is strict: 2.5 - 1.0 = 1.5 is not above rho = 1.5 (P_bar still 1). */
    w[0].priority = 2.5;
    p.rho = 1.5;
    assert_int_equal(select_plain(w, 1, r, 3, n, 1, &p, out), 0);

    /* A larger gap passes rho: 2.9 - 1.0 = 1.9 > 1.5 (P_bar still 1). */
    p.rho = 1.5;
    w[0].priority = 2.9;
    assert_int_equal(select_plain(w, 1, r, 3, n, 1, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_PRIORITY);
    assert_double_near(out[0].gap, 1.9, 1e-12);
    assert_double_near(out[0].normalised_gap, 1.9, 1e-12);

    /* Phase 2 never evicts a task of higher or equal priority (P_hat <= 0), even with rho = 0. */
    p.rho = 0;
    w[0].priority = 1.0;
    assert_int_equal(select_plain(w, 1, r, 3, n, 1, &p, out), 0);
}

/* Priorities that would overflow a plain subtraction: P_bar = 2e308 / 1, P_hat = 2e308. */
static void test_huge_priorities(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    ds_waiting_task w[] = {waiting(1e308, 1000, 0)};
    ds_running_task r[] = {running(-1e308, 1000, 0, 0)};
    ds_node_free n[] = {node(0, 0, 1)};
    ds_decision out[N_OUT];
    assert_int_equal(select_plain(w, 1, r, 1, n, 1, &p, out), 0); /* ratio 1 <= 1.5 */
    p.rho = 0;
    assert_int_equal(select_plain(w, 1, r, 1, n, 1, &p, out), 1);
    assert_double_near(out[0].normalised_gap, 1.0, 1e-12);
    assert_double_inf(out[0].gap, 1);
}

/* Job DAG a -> b -> c, plus d independent. c (waiting, urgent) must not evict a (transitive
 * ancestor) nor b (parent), only d, even though d has the highest priority. */
static void test_ancestor_never_chosen(void **state)
{
    (void)state;
    const char *up_b[] = {"a"};
    const char *up_c[] = {"b"};
    ds_task_spec specs[] = {
        {"a", 10, NULL, 0}, {"b", 10, up_b, 1}, {"c", 10, up_c, 1}, {"d", 10, NULL, 0}};
    ds_dag job0, job1;
    ds_err err = {{0}};
    assert_int_equal(ds_dag_build(&job0, specs, 4, &err), 0);
    assert_int_equal(ds_dag_build(&job1, specs, 4, &err), 0);
    const ds_dag *jobs[] = {&job0, &job1};

    ds_preempt_params p = params();
    ds_waiting_task w[] = {urgent(5.0, 1000, GI)};
    w[0].job = 0;
    w[0].task = 2; /* c */
    ds_running_task r[] = {running(0.1, 1000, GI, 0), running(0.2, 1000, GI, 2),
                           running(0.5, 1000, GI, 1)};
    r[0].job = 0, r[0].task = 0; /* a */
    r[1].job = 0, r[1].task = 1; /* b */
    r[2].job = 0, r[2].task = 3; /* d */
    ds_node_free n[] = {node(0, 0, 1), node(0, 0, 1), node(0, 0, 1)};
    ds_decision out[N_OUT];

    long got = ds_select_victims(w, 1, r, 3, n, 3, jobs, 2, &p, out, N_OUT, &err);
    assert_int_equal(got, 1);
    assert_decision(&out[0], 0, 2, 1, DS_REASON_URGENT);
    assert_double_near(out[0].gap, 4.5, 1e-12);

    /* Without d, nothing can be evicted. */
    got = ds_select_victims(w, 1, r, 2, n, 3, jobs, 2, &p, out, N_OUT, &err);
    assert_int_equal(got, 0);

    /* The same task indexes in another job are not ancestors; neither is a task outside any DAG.
     */
    r[0].job = 1;
    got = ds_select_victims(w, 1, r, 2, n, 3, jobs, 2, &p, out, N_OUT, &err);
    assert_int_equal(got, 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);
    r[0].job = 0;
    r[1].job = NOJOB;
    got = ds_select_victims(w, 1, r, 2, n, 3, jobs, 2, &p, out, N_OUT, &err);
    assert_int_equal(got, 1);
    assert_decision(&out[0], 0, 1, 2, DS_REASON_URGENT);

    /* Phase 2 obeys C2 too: a non-urgent c with a huge gap still leaves a and b alone. */
    r[1].job = 0;
    w[0].t_allow_s = INFINITY;
    w[0].priority = 100;
    p.rho = 0;
    got = ds_select_victims(w, 1, r, 2, n, 3, jobs, 2, &p, out, N_OUT, &err);
    assert_int_equal(got, 0);
    got = ds_select_victims(w, 1, r, 3, n, 3, jobs, 2, &p, out, N_OUT, &err);
    assert_int_equal(got, 1);
    assert_decision(&out[0], 0, 2, 1, DS_REASON_PRIORITY);

    ds_dag_free(&job0);
    ds_dag_free(&job1);
}

/* The urgent pod needs (1000 cpu, 2Gi). Node 0's victim frees too little cpu, node 1's too little
 * memory; node 2 has two victims that each free enough: the lower-priority one is chosen. */
static void test_urgent_per_node_fit(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    ds_waiting_task w[] = {urgent(0.05, 1000, 2 * GI)};
    ds_running_task r[] = {
        running(0.1, 500, 1 * GI, 0),  /* node 0: 500 cpu free after eviction */
        running(0.2, 2000, GI / 2, 1), /* node 1: 1.5Gi free after eviction */
        running(0.4, 4000, 4 * GI, 2), /* node 2: enough, higher priority */
        running(0.3, 1000, 2 * GI, 2), /* node 2: enough, lowest that works */
        running(0.05, 100, GI / 4, 2), /* node 2: lowest of all but frees too little */
    };
    ds_node_free n[] = {node(0, 8 * GI, 1), node(0, 1 * GI, 1), node(0, 0, 1)};
    ds_decision out[N_OUT];
    assert_int_equal(select_plain(w, 1, r, 5, n, 3, &p, out), 1);
    /* Urgent preempts regardless of priority (the victim 0.3 is above the preemptor 0.05). */
    assert_decision(&out[0], 0, 3, 2, DS_REASON_URGENT);
    assert_double_near(out[0].gap, -0.25, 1e-12);

    /* Epsilon is inclusive: t_allow = 30 is urgent, 30.5 is not (and phase 2 refuses: the
     * preemptor's priority is lower than any useful victim's). */
    w[0].t_allow_s = 30;
    assert_int_equal(select_plain(w, 1, r, 5, n, 3, &p, out), 1);
    w[0].t_allow_s = 30.5;
    assert_int_equal(select_plain(w, 1, r, 5, n, 3, &p, out), 0);
}

/* The start latency: an urgent task with 3 s of slack can be saved when room made now reaches it
 * at once, not when it takes 5 s to start there (spec.preemption.startLatency); a faster node that
 * gains the difference saves it again. */
static void test_start_latency(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    ds_waiting_task w[] = {urgent(0.9, 1000, GI)};
    w[0].t_allow_s = 3;
    w[0].t_rem_s = 20;
    ds_running_task r[] = {running(0.1, 1000, GI, 0)};
    ds_node_free n[] = {node(0, 0, 1)};
    ds_decision out[N_OUT];
    assert_int_equal(select_plain(w, 1, r, 1, n, 1, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);
    p.start_latency_s = 5;
    assert_int_equal(select_plain(w, 1, r, 1, n, 1, &p, out), 0);
    p.start_latency_s = 3;
    assert_int_equal(select_plain(w, 1, r, 1, n, 1, &p, out), 1);
    /* Twice the speed saves 10 s of the 20 s left: 13 s of slack cover 5 s to start. */
    p.start_latency_s = 5;
    n[0].speed = 2.0;
    assert_int_equal(select_plain(w, 1, r, 1, n, 1, &p, out), 1);
}

/* The job deadline rule (with payoff): a task whose level deadline is within reach does not
 * preempt when its job misses its deadline even if all its remaining tasks got room now. */
static void test_job_deadline_rule(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    p.payoff = true;
    ds_waiting_task w[] = {urgent(0.9, 1000, GI)};
    w[0].t_allow_s = 3;
    w[0].t_rem_s = 20;
    ds_running_task r[] = {running(0.1, 1000, GI, 0)};
    ds_node_free n[] = {node(0, 0, 1), node(0, 0, 0)};
    n[1].speed = 1.5; /* no budget: never a victim's node, but the fastest */
    ds_decision out[N_OUT];
    assert_int_equal(select_plain(w, 1, r, 1, n, 2, &p, out), 1);
    w[0].job_known = true;
    w[0].job_slack_s = -40; /* 40 s late on reference nodes... */
    w[0].job_path_s = 300;  /* ...100 s early on the 1.5x node */
    assert_int_equal(select_plain(w, 1, r, 1, n, 2, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);
    w[0].job_slack_s = -120; /* 20 s late even on the fastest node */
    assert_int_equal(select_plain(w, 1, r, 1, n, 2, &p, out), 0);
    w[0].job_slack_s = INFINITY; /* a job without a deadline */
    assert_int_equal(select_plain(w, 1, r, 1, n, 2, &p, out), 1);
    /* The paper's rule (payoff false) does not look at the job. */
    w[0].job_slack_s = -120;
    p.payoff = false;
    assert_int_equal(select_plain(w, 1, r, 1, n, 2, &p, out), 1);
}

static void test_preemptable_conditions(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    ds_waiting_task w[] = {urgent(5, 1000, 0)};
    /* Candidates on separate nodes by ascending priority; each alone would make room. */
    ds_running_task r[] = {running(0.1, 1000, 0, 0), running(0.2, 1000, 0, 1),
                           running(0.3, 1000, 0, 2), running(0.4, 1000, 0, 3),
                           running(0.5, 1000, 0, 4)};
    r[0].ran_s = 59;        /* below min_run_s = 60 */
    r[1].t_allow_s = 10;    /* t_allow <= epoch: would miss its own deadline */
    r[2].evictable = false; /* protected / PDB */
    /* r[3]: its node has no eviction budget left */
    ds_node_free n[] = {node(0, 0, 1), node(0, 0, 1), node(0, 0, 1), node(0, 0, 0), node(0, 0, 1)};
    ds_decision out[N_OUT];
    assert_int_equal(select_plain(w, 1, r, 5, n, 5, &p, out), 1);
    assert_decision(&out[0], 0, 4, 4, DS_REASON_URGENT);

    /* Relax each condition in turn: the lowest-priority eligible one is chosen. */
    r[1].t_allow_s = 10.5;
    assert_int_equal(select_plain(w, 1, r, 5, n, 5, &p, out), 1);
    assert_decision(&out[0], 0, 1, 1, DS_REASON_URGENT);
    r[0].ran_s = 60;
    assert_int_equal(select_plain(w, 1, r, 5, n, 5, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);
    p.min_run_s = 0;
    r[0].ran_s = 0;
    assert_int_equal(select_plain(w, 1, r, 5, n, 5, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);

    /* Nothing eligible at all. */
    for (size_t i = 0; i < 5; i++)
        r[i].evictable = false;
    assert_int_equal(select_plain(w, 1, r, 5, n, 5, &p, out), 0);
}

/* Two urgent pods, one node with two suitable victims. The node's budget and max_evictions cap
 * the decisions; out_cap caps them too. */
static void test_budgets(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    ds_waiting_task w[] = {urgent(1, 1000, 0), urgent(2, 1000, 0)};
    ds_running_task r[] = {running(0.1, 1000, 0, 0), running(0.2, 1000, 0, 0)};
    ds_node_free n[] = {node(0, 0, 1)};
    ds_decision out[N_OUT];
    ds_err err = {{0}};

    /* Budget 1: only the higher-priority preemptor (index 1) gets the lowest victim. */
    assert_int_equal(select_plain(w, 2, r, 2, n, 1, &p, out), 1);
    assert_decision(&out[0], 1, 0, 0, DS_REASON_URGENT);

    n[0].evictions_left = 2;
    assert_int_equal(select_plain(w, 2, r, 2, n, 1, &p, out), 2);
    assert_decision(&out[0], 1, 0, 0, DS_REASON_URGENT);
    assert_decision(&out[1], 0, 1, 0, DS_REASON_URGENT);

    p.max_evictions = 1;
    assert_int_equal(select_plain(w, 2, r, 2, n, 1, &p, out), 1);
    assert_decision(&out[0], 1, 0, 0, DS_REASON_URGENT);

    p.max_evictions = 0;
    assert_int_equal(select_plain(w, 2, r, 2, n, 1, &p, out), 0);

    p.max_evictions = 10;
    assert_int_equal(ds_select_victims(w, 2, r, 2, n, 1, NULL, 0, &p, out, 1, &err), 1);
    assert_decision(&out[0], 1, 0, 0, DS_REASON_URGENT);
    assert_int_equal(ds_select_victims(w, 2, r, 2, n, 1, NULL, 0, &p, NULL, 0, &err), 0);
}

/* After a decision, the node's free resources reflect the eviction and the placement: a large
 * victim makes room for two preemptors, so the second one needs no eviction. */
static void test_state_update(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    ds_waiting_task w[] = {urgent(2, 1000, GI), urgent(1, 1000, GI)};
    ds_running_task r[] = {running(0.1, 2000, 2 * GI, 0), running(0.2, 1000, GI, 1)};
    ds_node_free n[] = {node(0, 0, 2), node(0, 0, 2)};
    ds_decision out[N_OUT];
    assert_int_equal(select_plain(w, 2, r, 2, n, 2, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);

    /* A smaller first victim leaves no room: the second preemptor evicts on node 1. */
    r[0].request = (ds_res){{1000, GI, 0, 0}};
    assert_int_equal(select_plain(w, 2, r, 2, n, 2, &p, out), 2);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);
    assert_decision(&out[1], 1, 1, 1, DS_REASON_URGENT);

    /* The input is not modified. */
    assert_true(n[0].free_.v[DS_RES_CPU] == 0);
    assert_int_equal(n[0].evictions_left, 2);
}

static void test_starvation(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    ds_waiting_task w[] = {waiting(0.5, 1000, 0)}; /* lower priority than the victim */
    w[0].t_wait_s = 100;
    ds_running_task r[] = {running(0.9, 1000, 0, 0)};
    ds_node_free n[] = {node(0, 0, 1)};
    ds_decision out[N_OUT];

    /* tau = 0: the guard is off, and the priority test refuses. */
    assert_int_equal(select_plain(w, 1, r, 1, n, 1, &p, out), 0);

    p.tau_s = 60;
    assert_int_equal(select_plain(w, 1, r, 1, n, 1, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_STARVATION);
    assert_double_near(out[0].gap, -0.4, 1e-12);

    w[0].t_wait_s = 60; /* inclusive */
    assert_int_equal(select_plain(w, 1, r, 1, n, 1, &p, out), 1);
    w[0].t_wait_s = 59;
    assert_int_equal(select_plain(w, 1, r, 1, n, 1, &p, out), 0);

    /* Urgent and starving: reported as urgent. */
    w[0].t_wait_s = 100;
    w[0].t_allow_s = 0;
    assert_int_equal(select_plain(w, 1, r, 1, n, 1, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);
}

/* Node 0: victims 0.1 (500 cpu), 0.2 (500 cpu), 0.3 (1000 cpu). The pod needs 1000 cpu. */
static void test_multi_victim(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    ds_waiting_task w[] = {urgent(5, 1000, 0)};
    ds_running_task r[] = {running(0.3, 1000, 0, 0), running(0.2, 500, 0, 0),
                           running(0.1, 500, 0, 0)};
    ds_node_free n[] = {node(0, 0, 3)};
    ds_decision out[N_OUT];

    /* One victim per preemptor: the single task that makes room. */
    assert_int_equal(select_plain(w, 1, r, 3, n, 1, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);

    /* Two allowed: the two lowest (highest victim priority 0.2 < 0.3), in ascending priority. */
    p.max_victims_per_preemptor = 2;
    assert_int_equal(select_plain(w, 1, r, 3, n, 1, &p, out), 2);
    assert_decision(&out[0], 0, 2, 0, DS_REASON_URGENT);
    assert_decision(&out[1], 0, 1, 0, DS_REASON_URGENT);

    /* The node's budget of 1 forbids the pair. */
    n[0].evictions_left = 1;
    assert_int_equal(select_plain(w, 1, r, 3, n, 1, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);

    /* So does a global budget of 1. */
    n[0].evictions_left = 3;
    p.max_evictions = 1;
    assert_int_equal(select_plain(w, 1, r, 3, n, 1, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);
}

/* Three victims allowed. Candidates on the node by ascending priority: h0 0.1 (100 cpu), h1 0.2
 * (2000 cpu), h2 0.3 (4Gi), top 0.4 (2000 cpu); the preemptor needs 4000 cpu and 4Gi of a full
 * node. A greedy pass limited to three takes top, then h0 (the lowest that reduces the missing
 * cpu), then h1, and runs out of slots with memory missing; {top, h1, h2} makes room. It is found,
 * as it was with four slots allowed (then h0 was dropped as unnecessary). */
static void test_multi_victim_slot_spent_on_helper(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    p.max_victims_per_preemptor = 3;
    ds_waiting_task w[] = {urgent(5, 4000, 4 * GI)};
    ds_running_task r[] = {running(0.1, 100, 0, 0), running(0.2, 2000, 0, 0),
                           running(0.3, 0, 4 * GI, 0), running(0.4, 2000, 0, 0)};
    ds_node_free n[] = {node(0, 0, 5)};
    ds_decision out[N_OUT];
    assert_int_equal(select_plain(w, 1, r, 4, n, 1, &p, out), 3);
    assert_decision(&out[0], 0, 1, 0, DS_REASON_URGENT);
    assert_decision(&out[1], 0, 2, 0, DS_REASON_URGENT);
    assert_decision(&out[2], 0, 3, 0, DS_REASON_URGENT);
    p.max_victims_per_preemptor = 4; /* the same three */
    assert_int_equal(select_plain(w, 1, r, 4, n, 1, &p, out), 3);
    assert_decision(&out[2], 0, 3, 0, DS_REASON_URGENT);
    p.max_victims_per_preemptor = 2; /* no two make room */
    assert_int_equal(select_plain(w, 1, r, 4, n, 1, &p, out), 0);
}

/* A four-step greedy plan on one node (up to 4 victims) for a pod needing 1000 cpu and 2Gi.
 * Candidates by ascending priority: z 0.05 (only another resource), c0 0.1 (500, 0),
 * c1 0.2 (1000, 512Mi), c2 0.3 (0, 512Mi), c3 0.4 (0, 1Gi). Only with c3 do the candidates cover
 * the request, so c3 is the top victim: it leaves (1000, 1Gi) missing. No candidate completes
 * that; the first that reduces it is c0 (z reduces nothing): (500, 1Gi) missing. Again none
 * completes; c1 reduces: (0, 512Mi) missing, which c2 completes. c0 is then unnecessary (c1 has
 * its cpu) and is dropped: victims c1, c2, c3, in ascending priority. */
static void test_greedy_plan_drops_helpers(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    p.max_victims_per_preemptor = 4;
    ds_waiting_task w[] = {urgent(5, 1000, 2 * GI)};
    ds_running_task r[] = {running(0.4, 0, GI, 0), running(0.2, 1000, GI / 2, 0),
                           running(0.05, 0, 0, 0), running(0.3, 0, GI / 2, 0),
                           running(0.1, 500, 0, 0)};
    r[2].request.v[2] = 1;
    ds_node_free n[] = {node(0, 0, 4)};
    ds_decision out[N_OUT];
    assert_int_equal(select_plain(w, 1, r, 5, n, 1, &p, out), 3);
    assert_decision(&out[0], 0, 1, 0, DS_REASON_URGENT);
    assert_decision(&out[1], 0, 3, 0, DS_REASON_URGENT);
    assert_decision(&out[2], 0, 0, 0, DS_REASON_URGENT);

    /* Dropping is cumulative: (4000, 4Gi) needed; c0 0.1 (0, 1Gi), c1 0.2 (0, 1Gi), c2 0.3
     * (0, 2Gi), c3 0.4 (1000, 0), top c4 0.5 (3000, 1Gi). The greedy steps take c0, c1, c2 (each
     * only reduces), then c3 completes: (4000, 5Gi). c1 is unnecessary and goes; without it c0 is
     * necessary (dropping both leaves 3Gi) and stays: victims c0, c2, c3, c4. */
    p.max_victims_per_preemptor = 5;
    w[0] = urgent(5, 4000, 4 * GI);
    ds_running_task r5[] = {running(0.1, 0, GI, 0), running(0.2, 0, GI, 0),
                            running(0.3, 0, 2 * GI, 0), running(0.4, 1000, 0, 0),
                            running(0.5, 3000, GI, 0)};
    n[0].evictions_left = 5;
    assert_int_equal(select_plain(w, 1, r5, 5, n, 1, &p, out), 4);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);
    assert_decision(&out[1], 0, 2, 0, DS_REASON_URGENT);
    assert_decision(&out[2], 0, 3, 0, DS_REASON_URGENT);
    assert_decision(&out[3], 0, 4, 0, DS_REASON_URGENT);
}

/* Resource sums near INT64_MAX saturate instead of wrapping: a node with almost INT64_MAX bytes
 * of free memory still takes the single victim that frees enough cpu (two victims allowed, so
 * the multi-victim bound on the three candidates is computed). */
static void test_huge_free_memory(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    p.max_victims_per_preemptor = 2;
    ds_waiting_task w[] = {urgent(5, 1000, 1)};
    ds_running_task r[] = {running(0.1, 200, 100, 0), running(0.2, 200, 100, 0),
                           running(0.3, 1000, 100, 0)};
    ds_node_free n[] = {node(0, INT64_MAX - 10, 3)};
    ds_decision out[N_OUT];
    assert_int_equal(select_plain(w, 1, r, 3, n, 1, &p, out), 1);
    assert_decision(&out[0], 0, 2, 0, DS_REASON_URGENT);
}

/* Among nodes: the lowest highest-victim priority wins; ties go to fewer victims, then the lower
 * node index. A helper victim that is not needed is not evicted. */
static void test_node_choice(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    p.max_victims_per_preemptor = 3;
    ds_waiting_task w[] = {urgent(5, 1000, GI)};
    ds_running_task r[] = {
        running(0.1, 500, GI, 0), running(0.2, 500, 0, 0), /* node 0: pair, top 0.2 */
        running(0.2, 1000, GI, 1),                         /* node 1: single, top 0.2 */
        running(0.2, 1000, GI, 2),                         /* node 2: single, top 0.2 */
    };
    ds_node_free n[] = {node(0, 0, 3), node(0, 0, 3), node(0, 0, 3)};
    ds_decision out[N_OUT];
    assert_int_equal(select_plain(w, 1, r, 4, n, 3, &p, out), 1);
    assert_decision(&out[0], 0, 2, 1, DS_REASON_URGENT);

    /* Node 1's victim at 0.25: node 0's pair and node 2's single both top out at 0.2; node 2 has
     * fewer victims. */
    r[2].priority = 0.25;
    assert_int_equal(select_plain(w, 1, r, 4, n, 3, &p, out), 1);
    assert_decision(&out[0], 0, 3, 2, DS_REASON_URGENT);

    /* Node 2's victim at 0.3 too: node 0's pair now has the lowest top. */
    r[3].priority = 0.3;
    assert_int_equal(select_plain(w, 1, r, 4, n, 3, &p, out), 2);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);
    assert_decision(&out[1], 0, 1, 0, DS_REASON_URGENT);

    /* Node 0 with an extra lowest-priority task whose memory is not needed once the other two
     * are chosen: needed are 1000 cpu and 1Gi; victims 0.05 (0 cpu, 1Gi), 0.1 (500, 1Gi),
     * 0.2 (500, 0). The greedy plan takes 0.2 first, then 0.1 completes the fit: 0.05 stays. */
    /* A later node with a lower top victim beats an earlier one found first. */
    ds_running_task r_later[] = {running(0.5, 1000, GI, 0), running(0.3, 1000, GI, 1)};
    assert_int_equal(select_plain(w, 1, r_later, 2, n, 2, &p, out), 1);
    assert_decision(&out[0], 0, 1, 1, DS_REASON_URGENT);

    ds_running_task r2[] = {running(0.05, 0, GI, 0), running(0.1, 500, GI, 0),
                            running(0.2, 500, 0, 0)};
    assert_int_equal(select_plain(w, 1, r2, 3, n, 1, &p, out), 2);
    assert_decision(&out[0], 0, 1, 0, DS_REASON_URGENT);
    assert_decision(&out[1], 0, 2, 0, DS_REASON_URGENT);

    /* Equal priorities: the lower running index is preferred. */
    ds_running_task r3[] = {running(0.2, 1000, GI, 0), running(0.2, 1000, GI, 0)};
    assert_int_equal(select_plain(w, 1, r3, 2, n, 1, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);
}

static void test_already_fits(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    p.rho = 0;
    ds_waiting_task w[] = {urgent(5, 1000, GI), waiting(4, 1000, GI)};
    ds_running_task r[] = {running(0.1, 1000, GI, 0)};
    /* Node 1 has room: the scheduler will place both, nothing is evicted. */
    ds_node_free n[] = {node(0, 0, 1), node(4000, 4 * GI, 1)};
    ds_decision out[N_OUT];
    assert_int_equal(select_plain(w, 2, r, 1, n, 2, &p, out), 0);

    /* Without room on node 1, only the higher-priority (urgent) one gets a decision; the other
     * finds no second victim. */
    n[1] = node(500, 4 * GI, 1);
    assert_int_equal(select_plain(w, 2, r, 1, n, 2, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);

    /* A pod that cannot fit anywhere even after evictions: no decision at all. */
    ds_waiting_task big[] = {urgent(5, 8000, GI)};
    assert_int_equal(select_plain(big, 1, r, 1, n, 2, &p, out), 0);
}

/* delta bounds phase 2 to the first ceil(delta * n_waiting) waiting tasks by priority. */
static void test_delta(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    p.rho = 0;
    ds_waiting_task w[] = {waiting(3, 1000, 0), waiting(5, 1000, 0), waiting(4, 1000, 0)};
    ds_running_task r[] = {running(0.1, 1000, 0, 0), running(0.2, 1000, 0, 1),
                           running(0.3, 1000, 0, 2)};
    ds_node_free n[] = {node(0, 0, 1), node(0, 0, 1), node(0, 0, 1)};
    ds_decision out[N_OUT];

    p.delta = 0.34; /* ceil(1.02) = 2: the tasks of priority 5 and 4 */
    assert_int_equal(select_plain(w, 3, r, 3, n, 3, &p, out), 2);
    assert_decision(&out[0], 1, 0, 0, DS_REASON_PRIORITY);
    assert_decision(&out[1], 2, 1, 1, DS_REASON_PRIORITY);

    p.delta = 0; /* phase 2 off */
    assert_int_equal(select_plain(w, 3, r, 3, n, 3, &p, out), 0);

    p.delta = 1.0 / 3.0; /* exactly 1 despite rounding */
    assert_int_equal(select_plain(w, 3, r, 3, n, 3, &p, out), 1);
    assert_decision(&out[0], 1, 0, 0, DS_REASON_PRIORITY);

    /* A phase-1 task is not retried in phase 2: the urgent priority-5 task needs 3000 cpu, which
     * no single victim frees; the other two then evict in phase 2. */
    p.delta = 1.0;
    w[1].t_allow_s = 0;
    w[1].request = (ds_res){{3000, 0, 0, 0}};
    assert_int_equal(select_plain(w, 3, r, 3, n, 3, &p, out), 2);
    assert_decision(&out[0], 2, 0, 0, DS_REASON_PRIORITY);
    assert_decision(&out[1], 0, 1, 1, DS_REASON_PRIORITY);
}

/* All priorities equal: P_bar = 0, the normalised gap is reported as infinite. */
static void test_equal_priorities(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    ds_waiting_task w[] = {urgent(1, 1000, 0)};
    ds_running_task r[] = {running(1, 1000, 0, 0)};
    ds_node_free n[] = {node(0, 0, 1)};
    ds_decision out[N_OUT];
    assert_int_equal(select_plain(w, 1, r, 1, n, 1, &p, out), 1);
    assert_double_near(out[0].gap, 0.0, 0);
    assert_double_inf(out[0].normalised_gap, 1);
    /* Not urgent: no priority-based eviction. */
    w[0].t_allow_s = INFINITY;
    p.rho = 0;
    assert_int_equal(select_plain(w, 1, r, 1, n, 1, &p, out), 0);
}

static void expect_error(const ds_waiting_task *w, size_t nw, const ds_running_task *r, size_t nr,
                         const ds_node_free *n, size_t nn, const ds_dag *const *jobs, size_t nj,
                         const ds_preempt_params *p, const char *msg)
{
    ds_err err = {{0}};
    ds_decision out[N_OUT];
    assert_int_equal(ds_select_victims(w, nw, r, nr, n, nn, jobs, nj, p, out, N_OUT, &err), -1);
    assert_string_equal(err.msg, msg);
}

static void test_invalid_params(void **state)
{
    (void)state;
    ds_waiting_task w[] = {urgent(1, 1000, 0)};
    ds_running_task r[] = {running(0.5, 1000, 0, 0)};
    ds_node_free n[] = {node(0, 0, 1)};
    ds_preempt_params p = params();

    p.rho = 0.5;
    expect_error(w, 1, r, 1, n, 1, NULL, 0, &p,
                 "rho: must be 0 (no normalised-gap test) or > 1 (got 0.5)");
    p.rho = 1.0;
    expect_error(w, 1, r, 1, n, 1, NULL, 0, &p,
                 "rho: must be 0 (no normalised-gap test) or > 1 (got 1)");
    p.rho = INFINITY;
    expect_error(w, 1, r, 1, n, 1, NULL, 0, &p,
                 "rho: must be 0 (no normalised-gap test) or > 1 (got inf)");
    p = params();
    p.delta = 1.5;
    expect_error(w, 1, r, 1, n, 1, NULL, 0, &p, "delta: must be between 0 and 1 (got 1.5)");
    p.delta = NAN;
    expect_error(w, 1, r, 1, n, 1, NULL, 0, &p, "delta: must be between 0 and 1 (got nan)");
    p = params();
    p.epsilon_s = -1;
    expect_error(w, 1, r, 1, n, 1, NULL, 0, &p, "epsilon_s: must be a finite number >= 0 (got -1)");
    p = params();
    p.epoch_s = INFINITY;
    expect_error(w, 1, r, 1, n, 1, NULL, 0, &p, "epoch_s: must be a finite number >= 0 (got inf)");
    p = params();
    p.min_run_s = -0.5;
    expect_error(w, 1, r, 1, n, 1, NULL, 0, &p,
                 "min_run_s: must be a finite number >= 0 (got -0.5)");
    p = params();
    p.tau_s = NAN;
    expect_error(w, 1, r, 1, n, 1, NULL, 0, &p, "tau_s: must be a finite number >= 0 (got nan)");
    p = params();
    p.max_victims_per_preemptor = 0;
    expect_error(w, 1, r, 1, n, 1, NULL, 0, &p, "max_victims_per_preemptor: must be >= 1 (got 0)");
    expect_error(w, 1, r, 1, n, 1, NULL, 0, NULL, "preemption parameters: missing (got NULL)");
}

static void test_invalid_tasks(void **state)
{
    (void)state;
    const char *up_b[] = {"a"};
    ds_task_spec specs[] = {{"a", 1, NULL, 0}, {"b", 1, up_b, 1}};
    ds_dag job;
    ds_err err = {{0}};
    assert_int_equal(ds_dag_build(&job, specs, 2, &err), 0);
    const ds_dag *jobs[] = {&job};
    const ds_dag *null_jobs[] = {NULL};
    ds_preempt_params p = params();
    ds_waiting_task w[] = {urgent(1, 1000, 0)};
    ds_running_task r[] = {running(0.5, 1000, 0, 0)};
    ds_node_free n[] = {node(0, 0, 1)};

    w[0].priority = NAN;
    expect_error(w, 1, r, 1, n, 1, jobs, 1, &p,
                 "waiting[0].priority: must be a finite number (got nan)");
    w[0].priority = 1;
    r[0].priority = -INFINITY;
    expect_error(w, 1, r, 1, n, 1, jobs, 1, &p,
                 "running[0].priority: must be a finite number (got -inf)");
    r[0].priority = 0.5;
    w[0].job = 1;
    expect_error(w, 1, r, 1, n, 1, jobs, 1, &p,
                 "waiting[0].job: must be below the number of jobs 1 (got 1)");
    w[0].job = 0;
    w[0].task = 2;
    expect_error(w, 1, r, 1, n, 1, jobs, 1, &p,
                 "waiting[0].task: must be below the 2 tasks of job 0 (got 2)");
    w[0].task = 1;
    r[0].job = 0;
    r[0].task = 7;
    expect_error(w, 1, r, 1, n, 1, jobs, 1, &p,
                 "running[0].task: must be below the 2 tasks of job 0 (got 7)");
    r[0].task = 0;
    r[0].node = 1;
    expect_error(w, 1, r, 1, n, 1, jobs, 1, &p,
                 "running[0].node: must be below the number of nodes 1 (got 1)");
    r[0].node = 0;
    r[0].request.v[DS_RES_MEMORY] = -5;
    expect_error(w, 1, r, 1, n, 1, jobs, 1, &p, "running[0].request.memory: must be >= 0 (got -5)");
    r[0].request.v[DS_RES_MEMORY] = 0;
    w[0].t_allow_s = NAN;
    expect_error(w, 1, r, 1, n, 1, jobs, 1, &p, "waiting[0].t_allow_s: must be a number (got nan)");
    w[0].t_allow_s = 0;
    w[0].t_wait_s = -1;
    expect_error(w, 1, r, 1, n, 1, jobs, 1, &p,
                 "waiting[0].t_wait_s: must be a finite number >= 0 (got -1)");
    w[0].t_wait_s = 0;
    r[0].ran_s = INFINITY;
    expect_error(w, 1, r, 1, n, 1, jobs, 1, &p,
                 "running[0].ran_s: must be a finite number >= 0 (got inf)");
    r[0].ran_s = 600;
    expect_error(w, 1, r, 1, n, 1, null_jobs, 1, &p, "jobs[0]: missing DAG (got NULL)");
    expect_error(w, 1, r, 1, n, 1, NULL, 1, &p, "jobs: missing (got NULL for 1 jobs)");
    expect_error(NULL, 1, r, 1, n, 1, jobs, 1, &p, "waiting: missing (got NULL for 1 tasks)");
    expect_error(w, 1, r, 1, NULL, 1, jobs, 1, &p, "nodes: missing (got NULL for 1 nodes)");

    /* Valid again: r (task a) is an ancestor of w (task b): no decision. */
    ds_decision out[N_OUT];
    assert_int_equal(ds_select_victims(w, 1, r, 1, n, 1, jobs, 1, &p, out, N_OUT, &err), 0);
    ds_dag_free(&job);
}

static void test_reason_names(void **state)
{
    (void)state;
    assert_string_equal(ds_reason_name(DS_REASON_URGENT), "urgent");
    assert_string_equal(ds_reason_name(DS_REASON_STARVATION), "starvation");
    assert_string_equal(ds_reason_name(DS_REASON_PRIORITY), "priority");
    assert_string_equal(ds_reason_name((ds_preempt_reason)42), "unknown");
}

static void test_empty_inputs(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    ds_decision out[N_OUT];
    ds_err err = {{0}};
    assert_int_equal(ds_select_victims(NULL, 0, NULL, 0, NULL, 0, NULL, 0, &p, out, N_OUT, &err),
                     0);
    ds_waiting_task w[] = {urgent(1, 1000, 0)};
    assert_int_equal(ds_select_victims(w, 1, NULL, 0, NULL, 0, NULL, 0, &p, out, N_OUT, &err), 0);
}

/* Deterministic pseudo-random instances (xorshift64), checked by replaying every decision: the
 * preemptor fitted nowhere before, fits its node after its victims leave, every victim was
 * preemptable and not an ancestor, budgets and reasons are respected. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static size_t rng_below(uint64_t *s, size_t n)
{
    return (size_t)(rng_next(s) % n);
}

/* Is `anc` an ancestor of `task` (walking the upstream lists directly)? */
static bool is_ancestor(const ds_dag *d, size_t task, size_t anc, int depth)
{
    assert_true(depth < 64);
    for (size_t k = 0; k < d->tasks[task].n_up; k++) {
        size_t u = d->tasks[task].up[k];
        if (u == anc || is_ancestor(d, u, anc, depth + 1))
            return true;
    }
    return false;
}

#define P_TASKS 12
#define P_NODES 4
#define P_RUN   24
#define P_WAIT  10

/* Reference for one victim per preemptor, by brute force over every running task: the same rules,
 * written as directly as possible. Used to check the library's decisions exactly. */
static long reference_one_victim(const ds_waiting_task *w, const size_t *order, size_t nw,
                                 const ds_running_task *r, size_t nr, const ds_node_free *n,
                                 size_t nn, const ds_dag *const *jobs, const ds_preempt_params *p,
                                 ds_decision *out)
{
    double pmin = INFINITY, pmax = -INFINITY;
    for (size_t i = 0; i < nw; i++)
        pmin = fmin(pmin, w[i].priority), pmax = fmax(pmax, w[i].priority);
    for (size_t i = 0; i < nr; i++)
        pmin = fmin(pmin, r[i].priority), pmax = fmax(pmax, r[i].priority);
    double pbar = (pmax - pmin) / (double)(nw + nr - 1);
    size_t limit = p->max_evictions < N_OUT ? p->max_evictions : N_OUT;
    ds_res free_[P_NODES];
    size_t budget[P_NODES];
    for (size_t k = 0; k < nn; k++)
        free_[k] = n[k].free_, budget[k] = n[k].evictions_left;
    bool taken[P_RUN] = {false}, handled[P_WAIT] = {false};
    size_t got = 0;
    size_t n_try = (size_t)ceil(p->delta * (double)nw - 1e-9);
    for (int phase = 1; phase <= 2; phase++) {
        for (size_t o = 0; o < (phase == 1 ? nw : n_try) && got < limit; o++) {
            size_t a = order[o];
            bool urgent_a = w[a].t_allow_s <= p->epsilon_s;
            bool starving = p->tau_s > 0 && w[a].t_wait_s >= p->tau_s;
            if (phase == 1 && !urgent_a && !starving)
                continue;
            if (phase == 2 && handled[a])
                continue;
            handled[a] = true;
            bool fits = false;
            for (size_t k = 0; k < nn; k++)
                fits = fits || ds_res_fits(&w[a].request, &free_[k]);
            if (fits)
                continue;
            size_t best = SIZE_MAX;
            for (size_t b = 0; b < nr; b++) {
                const ds_running_task *v = &r[b];
                if (taken[b] || !v->evictable || v->ran_s < p->min_run_s ||
                    v->t_allow_s <= p->epoch_s || budget[v->node] == 0)
                    continue;
                if (w[a].job != NOJOB && v->job == w[a].job &&
                    (v->task == w[a].task || is_ancestor(jobs[v->job], w[a].task, v->task, 0)))
                    continue;
                double hat = w[a].priority - v->priority;
                if (phase == 2 && !(hat > 0 && (p->rho == 0 || (pbar > 0 && hat / pbar > p->rho))))
                    continue;
                ds_res room = free_[v->node];
                ds_res_add(&room, &v->request);
                if (!ds_res_fits(&w[a].request, &room))
                    continue;
                if (best == SIZE_MAX || v->priority < r[best].priority ||
                    (v->priority == r[best].priority && v->node < r[best].node))
                    best = b;
            }
            if (best == SIZE_MAX)
                continue;
            out[got++] = (ds_decision){.waiting = a,
                                       .running = best,
                                       .node = r[best].node,
                                       .reason = phase == 2 ? DS_REASON_PRIORITY
                                                 : urgent_a ? DS_REASON_URGENT
                                                            : DS_REASON_STARVATION};
            taken[best] = true;
            budget[r[best].node]--;
            ds_res_add(&free_[r[best].node], &r[best].request);
            ds_res_sub(&free_[r[best].node], &w[a].request);
        }
    }
    return (long)got;
}

static void test_random_invariants(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    /* Two jobs of P_TASKS tasks: task i depends on up to two earlier tasks. */
    char names[P_TASKS][8];
    const char *ups[P_TASKS][2];
    ds_task_spec specs[P_TASKS];
    ds_dag dags[2];
    ds_err err = {{0}};
    for (int j = 0; j < 2; j++) {
        for (size_t i = 0; i < P_TASKS; i++) {
            snprintf(names[i], sizeof names[i], "t%zu", i);
            size_t nu = i == 0 ? 0 : rng_below(&seed, 3);
            for (size_t u = 0; u < nu; u++)
                ups[i][u] = names[rng_below(&seed, i)];
            specs[i] = (ds_task_spec){names[i], 10, ups[i], nu};
        }
        assert_int_equal(ds_dag_build(&dags[j], specs, P_TASKS, &err), 0);
    }
    const ds_dag *jobs[] = {&dags[0], &dags[1]};
    size_t by_reason[3] = {0, 0, 0};
    size_t multi = 0, ancestor_pairs = 0, compared = 0;

    for (int round = 0; round < 300; round++) {
        ds_preempt_params p = params();
        p.rho = rng_below(&seed, 2) ? 0 : 1.5;
        p.tau_s = rng_below(&seed, 2) ? 0 : 50;
        p.delta = (double)rng_below(&seed, 5) / 4.0;
        p.max_victims_per_preemptor = 1 + rng_below(&seed, 3);
        p.max_evictions = rng_below(&seed, 8);
        ds_node_free n[P_NODES];
        for (size_t k = 0; k < P_NODES; k++)
            n[k] = node((int64_t)rng_below(&seed, 3) * 250, (int64_t)rng_below(&seed, 3) * GI,
                        rng_below(&seed, 3));
        ds_running_task r[P_RUN];
        for (size_t i = 0; i < P_RUN; i++) {
            r[i] = running((double)rng_below(&seed, 20) / 4.0, (int64_t)rng_below(&seed, 5) * 250,
                           (int64_t)rng_below(&seed, 3) * GI, rng_below(&seed, P_NODES));
            r[i].job = rng_below(&seed, 3) == 2 ? NOJOB : rng_below(&seed, 2);
            r[i].task = rng_below(&seed, P_TASKS);
            r[i].ran_s = (double)rng_below(&seed, 200);
            r[i].t_allow_s = rng_below(&seed, 4) == 0 ? 5 : INFINITY;
            r[i].evictable = rng_below(&seed, 5) != 0;
        }
        ds_waiting_task w[P_WAIT];
        for (size_t i = 0; i < P_WAIT; i++) {
            w[i] = waiting((double)rng_below(&seed, 20) / 4.0,
                           250 + (int64_t)rng_below(&seed, 6) * 250,
                           (int64_t)rng_below(&seed, 3) * GI);
            w[i].job = rng_below(&seed, 3) == 2 ? NOJOB : rng_below(&seed, 2);
            w[i].task = rng_below(&seed, P_TASKS);
            w[i].t_allow_s = rng_below(&seed, 3) == 0 ? (double)rng_below(&seed, 60) : INFINITY;
            w[i].t_wait_s = (double)rng_below(&seed, 100);
        }
        ds_decision out[N_OUT];
        long got =
            ds_select_victims(w, P_WAIT, r, P_RUN, n, P_NODES, jobs, 2, &p, out, N_OUT, &err);
        assert_true(got >= 0);
        assert_true((size_t)got <= p.max_evictions);

        /* P_bar as the paper defines it: the mean gap between neighbours in priority order. */
        double all[P_WAIT + P_RUN];
        size_t na = 0;
        for (size_t i = 0; i < P_WAIT; i++)
            all[na++] = w[i].priority;
        for (size_t i = 0; i < P_RUN; i++)
            all[na++] = r[i].priority;
        for (size_t i = 1; i < na; i++)
            for (size_t j = i; j > 0 && all[j - 1] > all[j]; j--) {
                double t = all[j];
                all[j] = all[j - 1];
                all[j - 1] = t;
            }
        double pbar = 0;
        for (size_t i = 1; i < na; i++)
            pbar += (all[i] - all[i - 1]) / (double)(na - 1);

        /* Waiting tasks by descending priority, ties by index: rank of each. */
        size_t rank[P_WAIT];
        for (size_t i = 0; i < P_WAIT; i++) {
            rank[i] = 0;
            for (size_t j = 0; j < P_WAIT; j++)
                if (w[j].priority > w[i].priority || (w[j].priority == w[i].priority && j < i))
                    rank[i]++;
        }

        ds_res free_[P_NODES];
        size_t budget[P_NODES];
        for (size_t k = 0; k < P_NODES; k++) {
            free_[k] = n[k].free_;
            budget[k] = n[k].evictions_left;
        }
        bool taken[P_RUN] = {false};
        bool preempted[P_WAIT] = {false};
        for (long i = 0; i < got;) {
            size_t a = out[i].waiting, nd = out[i].node;
            assert_true(a < P_WAIT && nd < P_NODES);
            assert_false(preempted[a]);
            preempted[a] = true;
            for (size_t k = 0; k < P_NODES; k++)
                assert_false(ds_res_fits(&w[a].request, &free_[k]));
            bool urgent_a = w[a].t_allow_s <= p.epsilon_s;
            bool starving = p.tau_s > 0 && w[a].t_wait_s >= p.tau_s;
            ds_preempt_reason want = urgent_a   ? DS_REASON_URGENT
                                     : starving ? DS_REASON_STARVATION
                                                : DS_REASON_PRIORITY;
            if (want == DS_REASON_PRIORITY)
                assert_true(rank[a] < (size_t)ceil(p.delta * P_WAIT - 1e-9));
            by_reason[want]++;
            long j = i;
            for (; j < got && out[j].waiting == a; j++) {
                const ds_running_task *b = &r[out[j].running];
                assert_int_equal(out[j].node, nd);
                assert_int_equal(out[j].reason, want);
                assert_int_equal(b->node, nd);
                assert_false(taken[out[j].running]);
                taken[out[j].running] = true;
                assert_true(b->evictable && b->ran_s >= p.min_run_s && b->t_allow_s > p.epoch_s);
                assert_true(budget[nd] > 0);
                budget[nd]--;
                if (w[a].job != NOJOB && b->job == w[a].job) {
                    assert_true(b->task != w[a].task);
                    assert_false(is_ancestor(jobs[w[a].job], w[a].task, b->task, 0));
                }
                if (want == DS_REASON_PRIORITY) {
                    double hat = w[a].priority - b->priority;
                    assert_true(hat > 0);
                    if (p.rho > 0)
                        assert_true(pbar > 0 && hat / pbar > p.rho * (1 + 1e-9));
                }
                ds_res_add(&free_[nd], &b->request);
            }
            assert_true((size_t)(j - i) <= p.max_victims_per_preemptor);
            if (j - i > 1)
                multi++;
            assert_true(ds_res_fits(&w[a].request, &free_[nd]));
            ds_res_sub(&free_[nd], &w[a].request);
            i = j;
        }
        if (p.max_victims_per_preemptor == 1) {
            size_t order[P_WAIT];
            for (size_t i = 0; i < P_WAIT; i++)
                order[rank[i]] = i;
            ds_decision ref[N_OUT];
            long want_n =
                reference_one_victim(w, order, P_WAIT, r, P_RUN, n, P_NODES, jobs, &p, ref);
            assert_int_equal(got, want_n);
            for (long i = 0; i < got; i++) {
                assert_int_equal(out[i].waiting, ref[i].waiting);
                assert_int_equal(out[i].running, ref[i].running);
                assert_int_equal(out[i].node, ref[i].node);
                assert_int_equal(out[i].reason, ref[i].reason);
            }
            compared += (size_t)got;
        }
        /* Waiting/running pairs where the running task is an ancestor: C2 has work to do. */
        for (size_t a = 0; a < P_WAIT; a++)
            for (size_t b = 0; b < P_RUN; b++)
                if (w[a].job != NOJOB && r[b].job == w[a].job &&
                    is_ancestor(jobs[w[a].job], w[a].task, r[b].task, 0))
                    ancestor_pairs++;
    }
    /* The generator must exercise every path. */
    assert_true(by_reason[DS_REASON_URGENT] > 20);
    assert_true(by_reason[DS_REASON_STARVATION] > 20);
    assert_true(by_reason[DS_REASON_PRIORITY] > 20);
    assert_true(multi > 10);
    assert_true(compared > 50);
    assert_true(ancestor_pairs > 100);
    ds_dag_free(&dags[0]);
    ds_dag_free(&dags[1]);
}

/* A preemptor refused only because of C2 does not make a later preemptor with the same request
 * give up: DAG a -> b -> c; c (urgent) may not evict a, an urgent pod outside the DAG may. */
static void test_c2_refusal_not_shared(void **state)
{
    (void)state;
    const char *up_b[] = {"a"};
    const char *up_c[] = {"b"};
    ds_task_spec specs[] = {{"a", 10, NULL, 0}, {"b", 10, up_b, 1}, {"c", 10, up_c, 1}};
    ds_dag job;
    ds_err err = {{0}};
    assert_int_equal(ds_dag_build(&job, specs, 3, &err), 0);
    const ds_dag *jobs[] = {&job};
    ds_preempt_params p = params();
    ds_waiting_task w[] = {urgent(5, 1000, 0), urgent(4, 1000, 0)};
    w[0].job = 0;
    w[0].task = 2; /* c */
    ds_running_task r[] = {running(0.1, 1000, 0, 0)};
    r[0].job = 0;
    r[0].task = 0; /* a */
    ds_node_free n[] = {node(0, 0, 1)};
    ds_decision out[N_OUT];
    assert_int_equal(ds_select_victims(w, 2, r, 1, n, 1, jobs, 1, &p, out, N_OUT, &err), 1);
    assert_decision(&out[0], 1, 0, 0, DS_REASON_URGENT);
    ds_dag_free(&job);
}

/* A refusal holds only until the next decision. Node 0 has (0 cpu, 1Gi) free and two victims:
 * v (0.1; 3000 cpu, 0) and u (0.5; 100 cpu, 1Gi). w0 (5; 500 cpu, 2Gi) fits with neither alone.
 * w1 (4; 1000 cpu) evicts v, which leaves (2000 cpu, 1Gi) free. w2 (3; 600 cpu, 2Gi) asks more
 * than w0 everywhere, yet now fits once u is evicted: (2100 cpu, 2Gi). */
static void test_refusal_forgotten_after_decision(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    ds_waiting_task w[] = {urgent(5, 500, 2 * GI), urgent(4, 1000, 0), urgent(3, 600, 2 * GI)};
    ds_running_task r[] = {running(0.1, 3000, 0, 0), running(0.5, 100, GI, 0)};
    ds_node_free n[] = {node(0, GI, 2)};
    ds_decision out[N_OUT];
    assert_int_equal(select_plain(w, 3, r, 2, n, 1, &p, out), 2);
    assert_decision(&out[0], 1, 0, 0, DS_REASON_URGENT);
    assert_decision(&out[1], 2, 1, 0, DS_REASON_URGENT);

    /* Without the first decision's room (v too small to leave any), w2 is refused like w0. */
    r[0].request.v[DS_RES_CPU] = 1000;
    assert_int_equal(select_plain(w, 3, r, 2, n, 1, &p, out), 1);
    assert_decision(&out[0], 1, 0, 0, DS_REASON_URGENT);
}

/* Dice: at most one long task (ran + left >= long_task_s) evicted per node, in the window (the
 * caller's long_evicted) and within one call. Two urgent tasks, a node full of two long tasks. */
static void test_one_long_task_per_node(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    ds_waiting_task w[2] = {urgent(2.0, 2000, GI), urgent(1.5, 2000, GI)};
    ds_running_task r[2] = {running(0.1, 2000, GI, 0), running(0.2, 2000, GI, 0)};
    ds_node_free n = node(0, 0, 5);
    ds_decision out[N_OUT];
    assert_int_equal(select_plain(w, 2, r, 2, &n, 1, &p, out), 2); /* no task is long */
    p.long_task_s = 500;                                           /* both ran 600 s */
    assert_int_equal(select_plain(w, 2, r, 2, &n, 1, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);
    r[1].ran_s = 100; /* short: 100 s run, nothing known left */
    assert_int_equal(select_plain(w, 2, r, 2, &n, 1, &p, out), 2);
    r[1].t_rem_s = 400; /* 100 + 400: long again */
    assert_int_equal(select_plain(w, 2, r, 2, &n, 1, &p, out), 1);
    n.long_evicted = true; /* one went within the window: none of them now */
    assert_int_equal(select_plain(w, 2, r, 2, &n, 1, &p, out), 0);
    r[1].t_rem_s = 0; /* the short one still may go */
    assert_int_equal(select_plain(w, 2, r, 2, &n, 1, &p, out), 1);
    assert_decision(&out[0], 0, 1, 0, DS_REASON_URGENT);
}

/* 3DSF: the preemptor lacks cpu most (1 of 4 cpu, 1 of 16 GiB); A (priority 0.1) is
 * memory-dominant, B (0.2) cpu-dominant: B goes first with same_resource_first, A without it or
 * when the node's capacity is unknown. */
static void test_same_resource_first(void **state)
{
    (void)state;
    ds_preempt_params p = params();
    ds_waiting_task w = urgent(2.0, 1000, GI);
    ds_running_task r[2] = {running(0.1, 1000, 8 * GI, 0), running(0.2, 2000, GI, 0)};
    ds_node_free n = node(0, 0, 5);
    n.capacity = (ds_res){{4000, 16 * GI, 0, 0}};
    ds_decision out[N_OUT];
    assert_int_equal(select_plain(&w, 1, r, 2, &n, 1, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);
    p.same_resource_first = true;
    assert_int_equal(select_plain(&w, 1, r, 2, &n, 1, &p, out), 1);
    assert_decision(&out[0], 0, 1, 0, DS_REASON_URGENT);
    /* Memory lacking most: A matches, and is also the lowest priority. */
    w.request = (ds_res){{500, 8 * GI, 0, 0}};
    assert_int_equal(select_plain(&w, 1, r, 2, &n, 1, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);
    /* A matching victim on another node wins over a lower-priority one that does not match. */
    w.request = (ds_res){{1000, GI, 0, 0}};
    ds_running_task r2[2] = {running(0.1, 1000, 8 * GI, 0), running(0.3, 2000, GI, 1)};
    ds_node_free n2[2] = {node(0, 0, 5), node(0, 0, 5)};
    n2[0].capacity = n2[1].capacity = n.capacity;
    assert_int_equal(select_plain(&w, 1, r2, 2, n2, 2, &p, out), 1);
    assert_decision(&out[0], 0, 1, 1, DS_REASON_URGENT);
    n2[0].capacity = n2[1].capacity = (ds_res){{0}}; /* unknown: priority alone */
    assert_int_equal(select_plain(&w, 1, r2, 2, n2, 2, &p, out), 1);
    assert_decision(&out[0], 0, 0, 0, DS_REASON_URGENT);
    assert_int_equal(ds_dominant_resource(&(ds_res){{1000, 8 * GI, 0, 0}}, &n.capacity),
                     DS_RES_MEMORY);
    assert_int_equal(ds_dominant_resource(&(ds_res){{1000, 0, 0, 0}}, &(ds_res){{0}}), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalised_gap),
        cmocka_unit_test(test_huge_priorities),
        cmocka_unit_test(test_ancestor_never_chosen),
        cmocka_unit_test(test_urgent_per_node_fit),
        cmocka_unit_test(test_start_latency),
        cmocka_unit_test(test_job_deadline_rule),
        cmocka_unit_test(test_preemptable_conditions),
        cmocka_unit_test(test_budgets),
        cmocka_unit_test(test_state_update),
        cmocka_unit_test(test_starvation),
        cmocka_unit_test(test_multi_victim),
        cmocka_unit_test(test_multi_victim_slot_spent_on_helper),
        cmocka_unit_test(test_greedy_plan_drops_helpers),
        cmocka_unit_test(test_huge_free_memory),
        cmocka_unit_test(test_node_choice),
        cmocka_unit_test(test_already_fits),
        cmocka_unit_test(test_delta),
        cmocka_unit_test(test_equal_priorities),
        cmocka_unit_test(test_invalid_params),
        cmocka_unit_test(test_invalid_tasks),
        cmocka_unit_test(test_reason_names),
        cmocka_unit_test(test_empty_inputs),
        cmocka_unit_test(test_random_invariants),
        cmocka_unit_test(test_c2_refusal_not_shared),
        cmocka_unit_test(test_refusal_forgotten_after_decision),
        cmocka_unit_test(test_one_long_task_per_node),
        cmocka_unit_test(test_same_resource_first),
    };
    return cmocka_run_group_tests_name("victim", tests, NULL, NULL);
}
