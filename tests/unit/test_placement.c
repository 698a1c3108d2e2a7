/* test_placement.c: unit tests of the extender's per-pod placement decisions: filter verdicts (fit,
 * unknown nodes, level-deadline feasibility), the resource shortfall, prioritize scores computed by
 * hand, the preemptor modes and the preemption rules applied to proposed victims (C2, protection,
 * minimum run time, slack, normalised gap, unknown victims, dropping nodes that no longer fit). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "placement.h"

#define GI ((int64_t)1 << 30)

static ds_node_view node(int64_t cpu, int64_t mem, int64_t used_cpu, int64_t used_mem, double speed)
{
    ds_node_view n = {.allocatable = {{cpu, mem, 0, 0}},
                      .requested = {{used_cpu, used_mem, 0, 0}},
                      .speed = speed};
    return n;
}

static ds_place_pod pod(int64_t cpu, int64_t mem, double runtime, double deadline)
{
    ds_place_pod p = {.request = {{cpu, mem, 0, 0}},
                      .runtime_s = runtime,
                      .level_deadline = deadline,
                      .criticality = 0};
    return p;
}

static void test_filter_fit_and_unknown(void **state)
{
    (void)state;
    ds_node_view a = node(4000, 8 * GI, 3500, 0, 1.0); /* 500m free */
    ds_node_view b = node(4000, 8 * GI, 0, 0, 1.0);
    const ds_node_view *nodes[] = {&a, NULL, &b};
    ds_place_pod p = pod(1000, GI, 0, INFINITY);
    ds_node_verdict v[3];
    assert_int_equal(ds_place_filter(&p, nodes, 3, 1000, true, v), 2);
    assert_int_equal(v[0], DS_NODE_NO_FIT);
    assert_int_equal(v[1], DS_NODE_UNKNOWN);
    assert_int_equal(v[2], DS_NODE_OK);
    assert_false(ds_node_verdict_passes(DS_NODE_NO_FIT));
    assert_false(ds_node_verdict_passes(DS_NODE_TOO_SLOW));
    assert_true(ds_node_verdict_passes(DS_NODE_UNKNOWN));

    /* A pod asking for a GPU does not fit a node without GPUs, even an empty one. */
    ds_place_pod g = p;
    g.request.v[DS_RES_GPU] = 1;
    assert_int_equal(ds_place_filter(&g, nodes, 3, 1000, true, v), 1);
    assert_int_equal(v[2], DS_NODE_NO_FIT);

    /* No nodes at all. */
    assert_int_equal(ds_place_filter(&p, nodes, 0, 1000, true, v), 0);
}

static void test_filter_level_deadline(void **state)
{
    (void)state;
    /* 100 s of reference work, now = 1000, level deadline 1150: the speed-1 node finishes at 1100,
     * the speed-0.5 node at 1200 (late). */
    ds_node_view slow = node(4000, 8 * GI, 0, 0, 0.5);
    ds_node_view fast = node(4000, 8 * GI, 0, 0, 1.0);
    ds_node_view full_fast = node(4000, 8 * GI, 4000, 0, 2.0);
    const ds_node_view *nodes[] = {&slow, &fast, &full_fast};
    ds_place_pod p = pod(1000, GI, 100, 1150);
    ds_node_verdict v[3];
    assert_int_equal(ds_place_filter(&p, nodes, 3, 1000, true, v), 1);
    assert_int_equal(v[0], DS_NODE_TOO_SLOW);
    assert_int_equal(v[1], DS_NODE_OK);
    assert_int_equal(v[2], DS_NODE_NO_FIT);
    assert_true(ds_place_finish_time(&p, &slow, 1000) == 1200.0);
    assert_true(ds_place_finish_time(&p, &fast, 1000) == 1100.0);

    /* Exactly on the deadline is in time. */
    p.level_deadline = 1200;
    assert_int_equal(ds_place_filter(&p, nodes, 3, 1000, true, v), 2);
    assert_int_equal(v[0], DS_NODE_OK);

    /* Only the node that does not fit could make it: nobody fitting can, so both pass. */
    p.level_deadline = 1060;
    assert_int_equal(ds_place_filter(&p, nodes, 3, 1000, true, v), 2);
    assert_int_equal(v[0], DS_NODE_OK);
    assert_int_equal(v[1], DS_NODE_OK);
    assert_int_equal(v[2], DS_NODE_NO_FIT);

    /* The policy may turn the deadline test off. */
    p.level_deadline = 1150;
    assert_int_equal(ds_place_filter(&p, nodes, 3, 1000, false, v), 2);
    assert_int_equal(v[0], DS_NODE_OK);

    /* No runtime estimate or no deadline: no deadline test. */
    p.runtime_s = 0;
    assert_int_equal(ds_place_filter(&p, nodes, 3, 1000, true, v), 2);
    p.runtime_s = 100;
    p.level_deadline = INFINITY;
    assert_int_equal(ds_place_filter(&p, nodes, 3, 1000, true, v), 2);

    /* A node of speed 0 never finishes. */
    ds_node_view stuck = node(4000, 8 * GI, 0, 0, 0.0);
    const ds_node_view *two[] = {&stuck, &fast};
    p.level_deadline = 1150;
    assert_int_equal(ds_place_filter(&p, two, 2, 1000, true, v), 1);
    assert_int_equal(v[0], DS_NODE_TOO_SLOW);
    assert_double_inf(ds_place_finish_time(&p, &stuck, 1000), 1);

    /* A negative or unknown runtime is no estimate: finished now, and no deadline test even when
     * the deadline has passed (993: the speed-1 node would "finish" -5 s at 995, the speed-0.5
     * node at 990). */
    p.runtime_s = 0.5; /* below a second still counts: 0.5 / 0.5 */
    assert_double_near(ds_place_finish_time(&p, &slow, 1000), 1001, 0);
    p.runtime_s = NAN;
    assert_double_near(ds_place_finish_time(&p, &fast, 1000), 1000, 0);
    p.runtime_s = -5;
    assert_double_near(ds_place_finish_time(&p, &fast, 1000), 1000, 0);
    p.level_deadline = 993;
    const ds_node_view *mixed[] = {&slow, &fast};
    assert_int_equal(ds_place_filter(&p, mixed, 2, 1000, true, v), 2);
    assert_int_equal(v[0], DS_NODE_OK);
    assert_int_equal(v[1], DS_NODE_OK);
}

static void test_shortfall(void **state)
{
    (void)state;
    ds_node_view n = node(4000, 8 * GI, 1000, 6 * GI, 1.0);
    ds_res r = {{1000, GI, 0, 0}};
    assert_int_equal(ds_place_shortfall(&r, &n), -1);
    r.v[DS_RES_MEMORY] = 3 * GI;
    assert_int_equal(ds_place_shortfall(&r, &n), DS_RES_MEMORY);
    r.v[DS_RES_CPU] = 3001;
    assert_int_equal(ds_place_shortfall(&r, &n), DS_RES_CPU);
    ds_res g = {{0, 0, 0, 1}};
    assert_int_equal(ds_place_shortfall(&g, &n), DS_RES_GPU);
    /* A node with one gpu, none in use, takes a one-gpu pod. */
    n.allocatable.v[DS_RES_GPU] = 1;
    assert_int_equal(ds_place_shortfall(&g, &n), -1);
    g.v[DS_RES_GPU] = 2;
    assert_int_equal(ds_place_shortfall(&g, &n), DS_RES_GPU);
}

static void test_prioritize_by_hand(void **state)
{
    (void)state;
    ds_pack_params pp = {0.4, 0.4, 0.2};
    /* Pod (500m, 4Gi) on a node (4 cpu, 8Gi) already carrying (3 cpu, 1Gi), speed 1 of max 2,
     * criticality 1:
     *   a = (0.125, 0.5) (memory dominant), b = (0.75, 0.125) (cpu dominant): complementary.
     *   DV = (0.625^2 + 0.375^2) / 2 = 0.265625, C = DV / (2 / 2) = 0.265625.
     *   free after: cpu 500/4000 = 0.125, memory 3/8 = 0.375, B = 1 - 0.25 = 0.75.
     *   S = 1 * 1/2 = 0.5.  total = 0.4*0.265625 + 0.4*0.75 + 0.2*0.5 = 0.50625 -> 5. */
    ds_node_view n1 = node(4000, 8 * GI, 3000, GI, 1.0);
    /* Same pod on an empty node of speed 2: C = 0, B = 1 - (0.875 + 0.5)/2 = 0.3125, S = 1:
     * total = 0.125 + 0.2 = 0.325 -> 3. */
    ds_node_view n2 = node(4000, 8 * GI, 0, 0, 2.0);
    /* A node it does not fit scores 0, as does an unknown node. */
    ds_node_view n3 = node(4000, 8 * GI, 0, 5 * GI, 2.0);
    const ds_node_view *nodes[] = {&n1, &n2, &n3, NULL};
    ds_place_pod p = pod(500, 4 * GI, 60, INFINITY);
    p.criticality = 1.0;
    int s[4] = {-1, -1, -1, -1};
    ds_place_prioritize(&p, nodes, 4, 2.0, &pp, s);
    assert_int_equal(s[0], 5);
    assert_int_equal(s[1], 3);
    assert_int_equal(s[2], 0);
    assert_int_equal(s[3], 0);

    /* Deterministic: the same input gives the same scores. */
    int again[4];
    ds_place_prioritize(&p, nodes, 4, 2.0, &pp, again);
    assert_memory_equal(s, again, sizeof s);

    /* Packing only: the complementary node (CPU-loaded, for a memory-heavy pod) beats a node
     * loaded the same way as the pod (memory), although both leave the same free fraction. */
    ds_pack_params pack = {1.0, 0.0, 0.0};
    ds_node_view cpu_loaded = node(4000, 8 * GI, 2000, 0, 1.0);
    ds_node_view mem_loaded = node(4000, 8 * GI, 0, 4 * GI, 1.0);
    const ds_node_view *two[] = {&cpu_loaded, &mem_loaded};
    ds_place_pod m = pod(0, 2 * GI, 0, INFINITY);
    int t[2];
    ds_place_prioritize(&m, two, 2, 1.0, &pack, t);
    /* a = (0, 0.25), b = (0.5, 0): DV = (0.25 + 0.0625) / 2 = 0.15625 -> C = 0.15625 -> 2. */
    assert_int_equal(t[0], 2);
    assert_int_equal(t[1], 0);
}

static ds_preempt_params pparams(void)
{
    ds_preempt_params p = {.epsilon_s = 30,
                           .epoch_s = 10,
                           .delta = 0.5,
                           .rho = 1.5,
                           .tau_s = 0,
                           .min_run_s = 60,
                           .max_victims_per_preemptor = 1,
                           .max_evictions = 10,
                           .deadline_victims = true};
    return p;
}

static ds_place_preemptor preemptor(size_t job, size_t task, double prio, int64_t cpu)
{
    ds_place_preemptor a = {.task = {.job = job,
                                     .task = task,
                                     .priority = prio,
                                     .t_allow_s = INFINITY,
                                     .t_wait_s = 0,
                                     .request = {{cpu, GI, 0, 0}}},
                            .rank = 0,
                            .n_waiting = 4};
    return a;
}

static ds_running_task victim(size_t job, size_t task, double prio, int64_t cpu)
{
    ds_running_task r = {.job = job,
                         .task = task,
                         .priority = prio,
                         .t_allow_s = INFINITY,
                         .ran_s = 600,
                         .request = {{cpu, GI, 0, 0}},
                         .node = 0,
                         .evictable = true};
    return r;
}

static void test_preemptor_modes(void **state)
{
    (void)state;
    ds_preempt_params p = pparams();
    ds_place_preemptor a = preemptor(DS_NO_TASK, 0, 1, 1000);
    assert_int_equal(ds_place_preemptor_mode(&a, &p), DS_PREEMPTOR_OUTSIDE);
    a = preemptor(0, 0, 1, 1000);
    assert_int_equal(ds_place_preemptor_mode(&a, &p), DS_PREEMPTOR_PRIORITY);
    /* delta 0.5 of 4 waiting tasks: ranks 0 and 1 may preempt on priority, rank 2 may not. */
    a.rank = 1;
    assert_int_equal(ds_place_preemptor_mode(&a, &p), DS_PREEMPTOR_PRIORITY);
    a.rank = 2;
    assert_int_equal(ds_place_preemptor_mode(&a, &p), DS_PREEMPTOR_BARRED);
    assert_string_equal(ds_preemptor_mode_name(DS_PREEMPTOR_BARRED), "barred");
    /* Urgent and starving tasks preempt whatever their rank. */
    a.task.t_allow_s = 30;
    assert_int_equal(ds_place_preemptor_mode(&a, &p), DS_PREEMPTOR_URGENT);
    a.task.t_allow_s = 31;
    a.task.t_wait_s = 1000;
    assert_int_equal(ds_place_preemptor_mode(&a, &p), DS_PREEMPTOR_BARRED); /* tau off */
    p.tau_s = 600;
    assert_int_equal(ds_place_preemptor_mode(&a, &p), DS_PREEMPTOR_STARVING);
    assert_string_equal(ds_preemptor_mode_name(DS_PREEMPTOR_STARVING), "starving");
}

/* Job 0: a -> b -> c and a -> d (c depends on b, b on a; d on a). */
static void build_chain(ds_dag *d)
{
    const char *ua[] = {"a"};
    const char *ub[] = {"b"};
    ds_task_spec specs[] = {
        {"a", 60, NULL, 0}, {"b", 60, ua, 1}, {"c", 60, ub, 1}, {"d", 60, ua, 1}};
    ds_err err;
    assert_int_equal(ds_dag_build(d, specs, 4, &err), 0);
}

static void test_preempt_rules(void **state)
{
    (void)state;
    ds_dag d;
    build_chain(&d);
    ds_preempt_params p = pparams();
    /* Preemptor: task c (index 2) of job 0, priority 5, needs 2 cpu. P_bar = 1 (pbar_half 0.5):
     * a victim of priority 3 passes (gap 2 > 1.5), one of priority 4 does not (gap 1). */
    ds_place_preemptor a = preemptor(0, 2, 5, 2000);
    ds_running_task anc = victim(0, 0, 0, 1000);             /* task a: ancestor of c */
    ds_running_task sib = victim(0, 3, 3, 1000);             /* task d: not an ancestor */
    ds_running_task other = victim(1, 0, 3, 1000);           /* another job */
    ds_running_task close_ = victim(1, 1, 4, 1000);          /* gap too small */
    ds_running_task prot = victim(1, 2, 0, 1000);            /* protected */
    ds_running_task young = victim(1, 3, 0, 1000);           /* ran 59 s */
    ds_running_task tight = victim(1, 4, 0, 1000);           /* t_allow 10 = epoch */
    ds_running_task plain = victim(DS_NO_TASK, 0, 99, 1000); /* outside any DAG */
    prot.evictable = false;
    young.ran_s = 59;
    tight.t_allow_s = 10;
    const ds_running_task *vs[] = {&anc,   &sib,   &other, &close_, &prot,
                                   &young, &tight, &plain, NULL};
    /* 8 cpu node carrying 8 cpu of victims and others. */
    ds_node_view n = node(8000, 64 * GI, 8000, 9 * GI, 1.0);
    ds_victim_verdict v[9];
    bool keep = false;
    ds_err err;
    long kept = ds_place_preempt_node(&a, DS_PREEMPTOR_PRIORITY, &d, &n, vs, NULL, 9, 0.5, &p, v,
                                      &keep, &err);
    assert_int_equal(kept, 3);
    assert_int_equal(v[0], DS_VICTIM_ANCESTOR);
    assert_int_equal(v[1], DS_VICTIM_KEEP);
    assert_int_equal(v[2], DS_VICTIM_KEEP);
    assert_int_equal(v[3], DS_VICTIM_PRIORITY_GAP);
    assert_int_equal(v[4], DS_VICTIM_NOT_EVICTABLE);
    assert_int_equal(v[5], DS_VICTIM_TOO_YOUNG);
    assert_int_equal(v[6], DS_VICTIM_TOO_LITTLE_SLACK);
    assert_int_equal(v[7], DS_VICTIM_KEEP); /* no gap test against a pod outside the DAGs */
    assert_int_equal(v[8], DS_VICTIM_UNKNOWN);
    assert_true(keep); /* 3 cpu freed >= 2 needed */
    assert_string_equal(ds_victim_verdict_name(v[3]), "priority-gap");

    /* Urgent: no gap test, but C2 and the protections still hold. */
    kept = ds_place_preempt_node(&a, DS_PREEMPTOR_URGENT, &d, &n, vs, NULL, 9, 0.5, &p, v, &keep,
                                 &err);
    assert_int_equal(kept, 4);
    assert_int_equal(v[0], DS_VICTIM_ANCESTOR);
    assert_int_equal(v[3], DS_VICTIM_KEEP);

    /* The preemptor itself is never its own victim (a stale copy of it still running). */
    ds_running_task self = victim(0, 2, 0, 1000);
    const ds_running_task *selfv[] = {&self};
    kept = ds_place_preempt_node(&a, DS_PREEMPTOR_URGENT, &d, &n, selfv, NULL, 1, 0.5, &p, v, &keep,
                                 &err);
    assert_int_equal(kept, 0);
    assert_int_equal(v[0], DS_VICTIM_ANCESTOR);
    assert_false(keep);

    /* Barred preemptor: nothing is evicted, the node is dropped. */
    kept = ds_place_preempt_node(&a, DS_PREEMPTOR_BARRED, &d, &n, vs, NULL, 9, 0.5, &p, v, &keep,
                                 &err);
    assert_int_equal(kept, 0);
    assert_int_equal(v[1], DS_VICTIM_PREEMPTOR_BARRED);
    assert_false(keep);

    /* Every victim index is checked against the preemptor's DAG, not only the first. */
    ds_running_task stale = victim(0, 7, 0, 1000);
    const ds_running_task *badv[] = {&sib, &stale};
    assert_int_equal(ds_place_preempt_node(&a, DS_PREEMPTOR_URGENT, &d, &n, badv, NULL, 2, 0.5, &p,
                                           v, &keep, &err),
                     -1);
    assert_string_equal(err.msg, "victims[1].task: must be below the 4 tasks of the preemptor's "
                                 "job (got 7)");

    /* Keeping the node: with victims, only when at least one is kept and frees enough room; with
     * no victims proposed, when the preemptor fits as it is; never for a barred preemptor. */
    ds_node_view roomy = node(8000, 64 * GI, 4000, 9 * GI, 1.0);
    const ds_running_task *protv[] = {&prot};
    kept = ds_place_preempt_node(&a, DS_PREEMPTOR_URGENT, &d, &roomy, protv, NULL, 1, 0.5, &p, v,
                                 &keep, &err);
    assert_int_equal(kept, 0);
    assert_false(keep); /* the 2 cpu would fit, but the only victim is refused */
    const ds_running_task *sibv[] = {&sib};
    kept = ds_place_preempt_node(&a, DS_PREEMPTOR_URGENT, &d, &roomy, sibv, NULL, 1, 0.5, &p, v,
                                 &keep, &err);
    assert_int_equal(kept, 1);
    assert_true(keep);
    kept = ds_place_preempt_node(&a, DS_PREEMPTOR_URGENT, &d, &roomy, NULL, NULL, 0, 0.5, &p, v,
                                 &keep, &err);
    assert_int_equal(kept, 0);
    assert_true(keep);
    kept = ds_place_preempt_node(&a, DS_PREEMPTOR_BARRED, &d, &roomy, NULL, NULL, 0, 0.5, &p, v,
                                 &keep, &err);
    assert_false(keep);

    /* A preemptor outside any DAG: C2 and the gap test do not apply. */
    ds_place_preemptor o = preemptor(DS_NO_TASK, 0, 0, 2000);
    kept = ds_place_preempt_node(&o, DS_PREEMPTOR_OUTSIDE, NULL, &n, vs, NULL, 9, 0.5, &p, v, &keep,
                                 &err);
    assert_int_equal(kept, 5);
    assert_int_equal(v[0], DS_VICTIM_KEEP);
    assert_int_equal(v[3], DS_VICTIM_KEEP);
    assert_int_equal(v[4], DS_VICTIM_NOT_EVICTABLE);
    ds_dag_free(&d);
}

static void test_preempt_drops_node_that_no_longer_fits(void **state)
{
    (void)state;
    ds_dag d;
    build_chain(&d);
    ds_preempt_params p = pparams();
    ds_place_preemptor a = preemptor(0, 2, 5, 2000);
    /* 4 cpu node, full: one evictable 1-cpu victim and one protected 3-cpu victim. Without the
     * protected one, only 1 cpu frees up: the preemptor (2 cpu) would not fit. */
    ds_running_task small = victim(1, 0, 0, 1000);
    ds_running_task big = victim(1, 1, 0, 3000);
    big.evictable = false;
    const ds_running_task *vs[] = {&small, &big};
    ds_node_view n = node(4000, 64 * GI, 4000, 2 * GI, 1.0);
    ds_victim_verdict v[2];
    bool keep = true;
    ds_err err;
    assert_int_equal(ds_place_preempt_node(&a, DS_PREEMPTOR_URGENT, &d, &n, vs, NULL, 2, 0.5, &p, v,
                                           &keep, &err),
                     1);
    assert_false(keep);
    /* With both evictable the node stays. */
    big.evictable = true;
    assert_int_equal(ds_place_preempt_node(&a, DS_PREEMPTOR_URGENT, &d, &n, vs, NULL, 2, 0.5, &p, v,
                                           &keep, &err),
                     2);
    assert_true(keep);
    /* Memory counts too: the node also needs 1Gi free for the preemptor. */
    n.requested.v[DS_RES_MEMORY] = 64 * GI + 2 * GI;
    assert_int_equal(ds_place_preempt_node(&a, DS_PREEMPTOR_URGENT, &d, &n, vs, NULL, 2, 0.5, &p, v,
                                           &keep, &err),
                     2);
    assert_false(keep);
    ds_dag_free(&d);
}

/* The predicates exported by victim.c for this module. */
static void test_shared_predicates(void **state)
{
    (void)state;
    /* Priorities 1..5 over 5 tasks: P_bar = 4 / 4 = 1. */
    assert_true(ds_pbar_half(1, 5, 5) == 0.5);
    assert_true(ds_pbar_half(1, 5, 1) == 0.0);
    assert_true(ds_gap_passes(5, 3, 0.5, 1.5));  /* 2 / 1 > 1.5 */
    assert_false(ds_gap_passes(5, 4, 0.5, 1.5)); /* 1 / 1 */
    assert_false(ds_gap_passes(3, 5, 0.5, 0));   /* P_hat <= 0 even without rho */
    assert_true(ds_gap_passes(5, 4, 0.5, 0));
    assert_false(ds_gap_passes(5, 4, 0.0, 1.5)); /* P_bar = 0 with rho > 1 */
    assert_true(ds_normalised_gap(5, 3, 0.5) == 2.0);
    assert_double_inf(ds_normalised_gap(5, 3, 0.0), 1);
    assert_int_equal(ds_delta_count(0.35, 10), 4);
    assert_int_equal(ds_delta_count(0.7, 10), 7);
    assert_int_equal(ds_delta_count(0, 10), 0);
    assert_int_equal(ds_delta_count(1, 3), 3);
    ds_preempt_params p = pparams();
    ds_running_task r = victim(0, 0, 1, 1000);
    assert_int_equal(ds_running_preemptable(&r, &p), DS_PREEMPTABLE);
    r.t_allow_s = 10.5;
    assert_int_equal(ds_running_preemptable(&r, &p), DS_PREEMPTABLE);
    r.t_allow_s = 10;
    assert_int_equal(ds_running_preemptable(&r, &p), DS_TOO_LITTLE_SLACK);
    r.ran_s = 59.9;
    assert_int_equal(ds_running_preemptable(&r, &p), DS_TOO_YOUNG);
    r.evictable = false;
    assert_int_equal(ds_running_preemptable(&r, &p), DS_NOT_EVICTABLE);
    /* Without spec.preemption.deadlineVictims only tasks without a deadline may go. */
    p.deadline_victims = false;
    r = victim(0, 0, 1, 1000);
    assert_int_equal(ds_running_preemptable(&r, &p), DS_PREEMPTABLE); /* no deadline */
    r.t_allow_s = 1000;
    assert_int_equal(ds_running_preemptable(&r, &p), DS_HAS_DEADLINE);
}

static void test_preempt_bad_input(void **state)
{
    (void)state;
    ds_dag d;
    build_chain(&d);
    ds_preempt_params p = pparams();
    ds_place_preemptor a = preemptor(0, 7, 5, 2000);
    ds_node_view n = node(4000, 64 * GI, 4000, 0, 1.0);
    ds_victim_verdict v[1];
    bool keep = true;
    ds_err err;
    assert_int_equal(ds_place_preempt_node(&a, DS_PREEMPTOR_URGENT, &d, &n, NULL, NULL, 0, 0.5, &p,
                                           v, &keep, &err),
                     -1);
    assert_string_equal(err.msg, "preemptor task: must be below the 4 tasks of its job (got 7)");
    assert_false(keep);
    a.task.task = 2;
    ds_running_task bad = victim(0, 9, 0, 1000);
    const ds_running_task *vs[] = {&bad};
    assert_int_equal(ds_place_preempt_node(&a, DS_PREEMPTOR_URGENT, &d, &n, vs, NULL, 1, 0.5, &p, v,
                                           &keep, &err),
                     -1);
    assert_string_equal(
        err.msg, "victims[0].task: must be below the 4 tasks of the preemptor's job (got 9)");
    ds_dag_free(&d);
}

/* The names that logs, events and metrics carry. */
static void test_names(void **state)
{
    (void)state;
    const char *modes[] = {"urgent", "starving", "priority", "outside-dag", "barred"};
    const ds_preemptor_mode mode_of[] = {DS_PREEMPTOR_URGENT, DS_PREEMPTOR_STARVING,
                                         DS_PREEMPTOR_PRIORITY, DS_PREEMPTOR_OUTSIDE,
                                         DS_PREEMPTOR_BARRED};
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(ds_preemptor_mode_name(mode_of[i]), modes[i]);
    assert_string_equal(ds_preemptor_mode_name((ds_preemptor_mode)99), "unknown");

    const char *verdicts[] = {"keep",      "unknown",          "ancestor",     "not-evictable",
                              "too-young", "too-little-slack", "priority-gap", "preemptor-barred"};
    const ds_victim_verdict verdict_of[] = {DS_VICTIM_KEEP,         DS_VICTIM_UNKNOWN,
                                            DS_VICTIM_ANCESTOR,     DS_VICTIM_NOT_EVICTABLE,
                                            DS_VICTIM_TOO_YOUNG,    DS_VICTIM_TOO_LITTLE_SLACK,
                                            DS_VICTIM_PRIORITY_GAP, DS_VICTIM_PREEMPTOR_BARRED};
    for (size_t i = 0; i < 8; i++)
        assert_string_equal(ds_victim_verdict_name(verdict_of[i]), verdicts[i]);
    assert_string_equal(ds_victim_verdict_name((ds_victim_verdict)99), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_filter_fit_and_unknown),
        cmocka_unit_test(test_filter_level_deadline),
        cmocka_unit_test(test_shortfall),
        cmocka_unit_test(test_prioritize_by_hand),
        cmocka_unit_test(test_preemptor_modes),
        cmocka_unit_test(test_preempt_rules),
        cmocka_unit_test(test_preempt_drops_node_that_no_longer_fits),
        cmocka_unit_test(test_shared_predicates),
        cmocka_unit_test(test_preempt_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
