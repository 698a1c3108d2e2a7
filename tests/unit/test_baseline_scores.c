/* test_baseline_scores.c: unit tests of the baseline node scores (kube-scheduler LeastAllocated and
 * BalancedAllocation, Tetris alignment) and of kube-scheduler's priority preemption. Expected
 * values are computed by hand in the comments. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include "baseline_scores.h"
#include "kube_preempt.h"

#define GI (1024LL * 1024 * 1024)

static void test_least_allocated(void **state)
{
    (void)state;
    ds_res alloc = {{4000, 8 * GI, 0, 0}};
    ds_res requested = {{1000, 2 * GI, 0, 0}};
    ds_res pod = {{1000, 2 * GI, 0, 0}};
    /* cpu (4000-2000)*100/4000 = 50, memory (8-4)/8*100 = 50 -> 50 */
    assert_int_equal(ds_kube_least_allocated(&pod, &requested, &alloc), 50);
    ds_res requested2 = {{2000, 0, 0, 0}};
    ds_res pod2 = {{1000, 1 * GI, 0, 0}};
    /* cpu (4000-3000)*100/4000 = 25, memory 7/8*100 = 87 (truncated) -> (25+87)/2 = 56 */
    assert_int_equal(ds_kube_least_allocated(&pod2, &requested2, &alloc), 56);
    /* over-committed cpu scores 0 for cpu: (0 + 87) / 2 = 43 */
    ds_res big = {{5000, 1 * GI, 0, 0}};
    ds_res none = {{0, 0, 0, 0}};
    assert_int_equal(ds_kube_least_allocated(&big, &none, &alloc), 43);
    ds_res no_cap = {{0, 0, 0, 0}};
    assert_int_equal(ds_kube_least_allocated(&pod, &none, &no_cap), 0);
}

static void test_balanced_allocation(void **state)
{
    (void)state;
    ds_res alloc = {{4000, 8 * GI, 0, 0}};
    ds_res requested = {{2000, 0, 0, 0}};
    ds_res pod = {{1000, 1 * GI, 0, 0}};
    /* fractions 0.75 and 0.125, std = 0.3125, (1 - 0.3125) * 100 = 68.75 -> 68 */
    assert_int_equal(ds_kube_balanced_allocation(&pod, &requested, &alloc), 68);
    ds_res even = {{2000, 4 * GI, 0, 0}};
    ds_res zero = {{0, 0, 0, 0}};
    assert_int_equal(ds_kube_balanced_allocation(&even, &zero, &alloc), 100);
    /* fractions capped at 1: cpu 2.0 -> 1, memory 0 -> std 0.5 -> 50 */
    ds_res huge = {{8000, 0, 0, 0}};
    assert_int_equal(ds_kube_balanced_allocation(&huge, &zero, &alloc), 50);
    /* only cpu known: std 0 */
    ds_res cpu_only = {{4000, 0, 0, 0}};
    assert_int_equal(ds_kube_balanced_allocation(&pod, &zero, &cpu_only), 100);
}

static void test_tetris_alignment(void **state)
{
    (void)state;
    ds_res alloc = {{4000, 8 * GI, 0, 0}};
    ds_res requested = {{1000, 2 * GI, 0, 0}};
    ds_res pod = {{1000, 1 * GI, 0, 0}};
    /* 0.25 * 0.75 + 0.125 * 0.75 = 0.28125 */
    assert_double_near(ds_tetris_alignment(&pod, &requested, &alloc), 0.28125, 1e-12);
    /* an over-committed node contributes 0 free */
    ds_res over = {{5000, 8 * GI, 0, 0}};
    assert_double_near(ds_tetris_alignment(&pod, &over, &alloc), 0.0, 1e-12);
    /* a node with more free resources aligns better with the same pod */
    ds_res empty = {{0, 0, 0, 0}};
    assert_true(ds_tetris_alignment(&pod, &empty, &alloc) >
                ds_tetris_alignment(&pod, &requested, &alloc));
}

static void test_kube_preempt_choice(void **state)
{
    (void)state;
    /* node 0: A (prio 0, 1 core, started 5), B (prio 0, 1 core, started 10): full (2 cores);
     * node 1: C (prio 5, 2 cores): full. A priority-10 pod asking 1 core: on node 0 A is reprieved
     * (more important: earlier start), B is the victim; node 1 would need C (prio 5): node 0 wins.
     */
    ds_res free_[2] = {{{0, 0, 0, 0}}, {{0, 0, 0, 0}}};
    ds_kube_pod pods[3] = {
        {.node = 0, .priority = 0, .start_time = 5, .request = {{1000, 0, 0, 0}}, .evictable = 1},
        {.node = 0, .priority = 0, .start_time = 10, .request = {{1000, 0, 0, 0}}, .evictable = 1},
        {.node = 1, .priority = 5, .start_time = 1, .request = {{2000, 0, 0, 0}}, .evictable = 1},
    };
    ds_res req = {{1000, 0, 0, 0}};
    size_t victims[4], nv = 99, node = 99;
    ds_err err = {{0}};
    assert_int_equal(
        ds_kube_select_victims(&req, 10, free_, 2, pods, 3, victims, 4, &nv, &node, &err), 1);
    assert_int_equal(node, 0);
    assert_int_equal(nv, 1);
    assert_int_equal(victims[0], 1);

    /* a 2-core pod needs both A and B on node 0 (sum 0+0 offsets) or C on node 1 (prio 5): node 0
     * has the lower highest-victim priority. */
    ds_res req2 = {{2000, 0, 0, 0}};
    assert_int_equal(
        ds_kube_select_victims(&req2, 10, free_, 2, pods, 3, victims, 4, &nv, &node, &err), 1);
    assert_int_equal(node, 0);
    assert_int_equal(nv, 2);
    assert_int_equal(victims[0], 0); /* most important first */
    assert_int_equal(victims[1], 1);
    /* with room for one victim only, node 1 (one victim, C) is the answer */
    assert_int_equal(
        ds_kube_select_victims(&req2, 10, free_, 2, pods, 3, victims, 1, &nv, &node, &err), 1);
    assert_int_equal(node, 1);
    assert_int_equal(victims[0], 2);

    /* equal priority never preempts; protected pods are never victims */
    assert_int_equal(
        ds_kube_select_victims(&req, 0, free_, 2, pods, 3, victims, 4, &nv, &node, &err), 0);
    ds_kube_pod locked[3];
    for (int i = 0; i < 3; i++) {
        locked[i] = pods[i];
        locked[i].evictable = 0;
    }
    assert_int_equal(
        ds_kube_select_victims(&req, 10, free_, 2, locked, 3, victims, 4, &nv, &node, &err), 0);
}

static void test_kube_preempt_ties(void **state)
{
    (void)state;
    /* two nodes, one prio-0 victim each: the node whose victim started latest is chosen */
    ds_res free_[2] = {{{0, 0, 0, 0}}, {{0, 0, 0, 0}}};
    ds_kube_pod pods[2] = {
        {.node = 0, .priority = 0, .start_time = 3, .request = {{1000, 0, 0, 0}}, .evictable = 1},
        {.node = 1, .priority = 0, .start_time = 7, .request = {{1000, 0, 0, 0}}, .evictable = 1},
    };
    ds_res req = {{1000, 0, 0, 0}};
    size_t victims[2], nv, node;
    ds_err err = {{0}};
    assert_int_equal(
        ds_kube_select_victims(&req, 1, free_, 2, pods, 2, victims, 2, &nv, &node, &err), 1);
    assert_int_equal(node, 1);
    assert_int_equal(victims[0], 1);
    /* a request that no eviction can satisfy */
    ds_res too_big = {{3000, 0, 0, 0}};
    assert_int_equal(
        ds_kube_select_victims(&too_big, 1, free_, 2, pods, 2, victims, 2, &nv, &node, &err), 0);
    /* bad node index is an error naming the pod */
    pods[1].node = 7;
    assert_int_equal(
        ds_kube_select_victims(&req, 1, free_, 2, pods, 2, victims, 2, &nv, &node, &err), -1);
    assert_string_equal(err.msg, "kube preemption: pod 1: node index out of range (got 7)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_least_allocated),   cmocka_unit_test(test_balanced_allocation),
        cmocka_unit_test(test_tetris_alignment),  cmocka_unit_test(test_kube_preempt_choice),
        cmocka_unit_test(test_kube_preempt_ties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
