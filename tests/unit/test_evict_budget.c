/* test_evict_budget.c: unit tests of the eviction limits (lib/evict_budget.h): per minute in
 * total and per namespace, per node over the last epoch, the window edge, entries that do not
 * count, the cooldown and the window a history must keep. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "evict_budget.h"

typedef struct rec {
    ds_evict_mark m;
    bool counts;
} rec;

static bool get(const void *ctx, size_t i, ds_evict_mark *m)
{
    const rec *r = &((const rec *)ctx)[i];
    *m = r->m;
    return r->counts;
}

static ds_policy policy(void)
{
    ds_policy p;
    ds_policy_defaults(&p);
    p.max_evictions_per_minute = 5;
    p.max_evictions_per_namespace = 3;
    p.max_evictions_per_node = 2;
    p.preemption.epoch_s = 10;
    p.cooldown_s = 300;
    p.long_task_window_s = 100;
    return p;
}

static const rec history[] = {
    {{940, "a", "n1", true}, true},  /* 60 s before 1000: no longer counts; a long task */
    {{950, "a", "n1", false}, true}, /* in the minute, not in the epoch */
    {{991, "a", "n1", false}, true}, /* in the epoch */
    {{995, "b", "n2", false}, true}, /* in the epoch */
    {{996, "a", "n3", true}, false}, /* refused: counts for nothing, long or not */
    {{999, "a", NULL, false}, true}, /* no node: counts for the minute and its namespace */
};

static void test_limits(void **state)
{
    (void)state;
    ds_policy p = policy();
    ds_evict_budget b;
    ds_evict_history h = {.n = sizeof history / sizeof history[0], .get = get, .ctx = history};
    ds_evict_budget_init(&b, &p, h, 1000);
    assert_int_equal(b.total_left, 1);                            /* 950, 991, 995, 999 */
    assert_int_equal(ds_evict_budget_namespace_left(&b, "a"), 0); /* 950, 991, 999 */
    assert_int_equal(ds_evict_budget_namespace_left(&b, "b"), 2);
    assert_int_equal(ds_evict_budget_namespace_left(&b, "c"), 3);
    assert_int_equal(ds_evict_budget_node_left(&b, "n1"), 1); /* 991 */
    assert_int_equal(ds_evict_budget_node_left(&b, "n2"), 1);
    assert_int_equal(ds_evict_budget_node_left(&b, "n3"), 2);
    /* At 1001 the eviction of 991 is an epoch old: n1 has its two again. */
    ds_evict_budget_init(&b, &p, h, 1001);
    assert_int_equal(ds_evict_budget_node_left(&b, "n1"), 2);
    /* At 1010 the minute holds 991, 995, 999. */
    ds_evict_budget_init(&b, &p, h, 1010);
    assert_int_equal(b.total_left, 2);
    ds_evict_budget_init(&b, &p, h, 1004.5);
    assert_int_equal(ds_evict_budget_node_left(&b, "n2"), 1);
    ds_evict_budget_init(&b, &p, h, 1005);
    assert_int_equal(ds_evict_budget_node_left(&b, "n2"), 2);
}

/* Dice: one long task per node per window (100 s here); a task's evictions over its life. */
static void test_long_tasks_and_task_limit(void **state)
{
    (void)state;
    ds_policy p = policy();
    ds_evict_budget b;
    ds_evict_history h = {.n = sizeof history / sizeof history[0], .get = get, .ctx = history};
    ds_evict_budget_init(&b, &p, h, 1000);
    assert_true(ds_evict_budget_node_long_evicted(&b, "n1")); /* 940, 60 s ago */
    assert_false(ds_evict_budget_node_long_evicted(&b, "n2"));
    assert_false(ds_evict_budget_node_long_evicted(&b, "n3")); /* refused */
    assert_false(ds_evict_budget_node_long_evicted(&b, NULL));
    ds_evict_budget_init(&b, &p, h, 1040);
    assert_false(ds_evict_budget_node_long_evicted(&b, "n1")); /* a whole window ago */
    p.long_task_window_s = 0;
    ds_evict_budget_init(&b, &p, h, 1000);
    assert_false(ds_evict_budget_node_long_evicted(&b, "n1"));

    ds_policy_defaults(&p);
    assert_int_equal(p.max_evictions_per_task, 2);
    assert_true(ds_evict_task_left(&p, 0));
    assert_true(ds_evict_task_left(&p, 1));
    assert_false(ds_evict_task_left(&p, 2));
    p.max_evictions_per_task = 0; /* no limit */
    assert_true(ds_evict_task_left(&p, 1000));
}

static void test_empty_history(void **state)
{
    (void)state;
    ds_policy p = policy();
    ds_evict_budget b;
    ds_evict_budget_init(&b, &p, (ds_evict_history){.n = 3, .get = NULL}, 1000);
    assert_int_equal(b.total_left, 5);
    assert_int_equal(ds_evict_budget_namespace_left(&b, "a"), 3);
    assert_int_equal(ds_evict_budget_node_left(&b, "n1"), 2);
    /* A limit of 0 leaves nothing. */
    p.max_evictions_per_minute = 0;
    ds_evict_budget_init(&b, &p, (ds_evict_history){0}, 1000);
    assert_int_equal(b.total_left, 0);
}

/* The window edge: one made a whole window ago no longer counts, also when the two times went
 * through rounding (an epoch tick computed by adding epoch lengths). */
static void test_window_edge(void **state)
{
    (void)state;
    assert_true(ds_evict_in_window(940.5, 1000, 60));
    assert_false(ds_evict_in_window(940, 1000, 60));
    /* Six epochs of 9.9 s added up from 0.1: now - t is 59.39999999999999, just under the
     * window 6 * 9.9 = 59.400000000000006, and still a whole window. */
    double t = 0.1, now = t, epoch = 9.9;
    for (int i = 0; i < 6; i++)
        now += epoch;
    assert_true(now - t < 6 * epoch);
    assert_false(ds_evict_in_window(t, now, 6 * epoch));
    assert_true(ds_evict_in_window(t, t + 59.9, 60));
}

static void test_cooldown_and_window(void **state)
{
    (void)state;
    ds_policy p = policy();
    assert_false(ds_evict_cooling(&p, NAN, 1000));
    assert_true(ds_evict_cooling(&p, 800, 1000));
    assert_false(ds_evict_cooling(&p, 700, 1000));
    assert_false(ds_evict_cooling(&p, -INFINITY, 1000));
    assert_true(ds_evict_budget_window(&p) == 300);
    p.cooldown_s = 5;
    assert_true(ds_evict_budget_window(&p) == 100); /* the long-task window */
    p.long_task_window_s = 0;
    assert_true(ds_evict_budget_window(&p) == 60);
    p.preemption.epoch_s = 90;
    assert_true(ds_evict_budget_window(&p) == 90);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_long_tasks_and_task_limit),
        cmocka_unit_test(test_empty_history),
        cmocka_unit_test(test_window_edge),
        cmocka_unit_test(test_cooldown_and_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
