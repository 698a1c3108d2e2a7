/* test_metrics.c: the Prometheus registry: exact exposition text, label escaping, histogram
 * buckets, invalid registrations, the series bound. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

static void test_exposition(void **state)
{
    (void)state;
    metrics_registry *r = metrics_registry_new();
    assert_non_null(r);
    const char *lbl[] = {"result", "reason"};
    metrics_family *c = metrics_family_new(r, METRICS_COUNTER, "dagsched_evictions_total",
                                           "Evictions.", lbl, 2, NULL, 0);
    metrics_family *g = metrics_family_new(r, METRICS_GAUGE, "dagsched_leader", "1 when leading.",
                                           NULL, 0, NULL, 0);
    const double b[] = {0.1, 1};
    metrics_family *h = metrics_family_new(r, METRICS_HISTOGRAM, "dagsched_loop_seconds",
                                           "Loop duration.", NULL, 0, b, 2);
    assert_non_null(c);
    assert_non_null(g);
    assert_non_null(h);
    const char *v1[] = {"evicted", "urgent"};
    const char *v2[] = {"blocked", "say \"hi\"\n\\"};
    metrics_add(c, v1, 1);
    metrics_add(c, v1, 2);
    metrics_add(c, v2, 1);
    metrics_add(c, v1, -5); /* ignored: counters only go up */
    metrics_set(g, NULL, 1);
    metrics_observe(h, NULL, 0.05);
    metrics_observe(h, NULL, 0.5);
    metrics_observe(h, NULL, 7);
    assert_double_near(metrics_get(c, v1), 3, 0);
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(metrics_render(r, &text, &len), 0);
    const char *want =
        "# HELP dagsched_evictions_total Evictions.\n"
        "# TYPE dagsched_evictions_total counter\n"
        "dagsched_evictions_total{result=\"evicted\",reason=\"urgent\"} 3\n"
        "dagsched_evictions_total{result=\"blocked\",reason=\"say \\\"hi\\\"\\n\\\\\"} 1\n"
        "# HELP dagsched_leader 1 when leading.\n"
        "# TYPE dagsched_leader gauge\n"
        "dagsched_leader 1\n"
        "# HELP dagsched_loop_seconds Loop duration.\n"
        "# TYPE dagsched_loop_seconds histogram\n"
        "dagsched_loop_seconds_bucket{le=\"0.10000000000000001\"} 1\n"
        "dagsched_loop_seconds_bucket{le=\"1\"} 2\n"
        "dagsched_loop_seconds_bucket{le=\"+Inf\"} 3\n"
        "dagsched_loop_seconds_sum 7.5499999999999998\n"
        "dagsched_loop_seconds_count 3\n";
    assert_int_equal(strncmp(text, want, strlen(want)), 0);
    assert_int_equal(len, strlen(text));
    free(text);
    metrics_registry_free(r);
}

static void test_invalid_families(void **state)
{
    (void)state;
    metrics_registry *r = metrics_registry_new();
    const char *bad[] = {"le-x"};
    const double unsorted[] = {1, 0.5};
    assert_null(metrics_family_new(r, METRICS_COUNTER, "1abc", "", NULL, 0, NULL, 0));
    assert_null(metrics_family_new(r, METRICS_COUNTER, "ok", "", bad, 1, NULL, 0));
    assert_null(metrics_family_new(r, METRICS_HISTOGRAM, "h", "", NULL, 0, NULL, 0));
    assert_null(metrics_family_new(r, METRICS_HISTOGRAM, "h", "", NULL, 0, unsorted, 2));
    metrics_registry_free(r);
}

static void test_series_bound(void **state)
{
    (void)state;
    metrics_registry *r = metrics_registry_new();
    const char *lbl[] = {"pod"};
    metrics_family *c = metrics_family_new(r, METRICS_COUNTER, "x_total", "x", lbl, 1, NULL, 0);
    char name[32];
    for (int i = 0; i < METRICS_MAX_SERIES + 10; i++) {
        snprintf(name, sizeof name, "p%d", i);
        const char *v[] = {name};
        metrics_add(c, v, 1);
    }
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(metrics_render(r, &text, &len), 0);
    assert_non_null(strstr(text, "dagsched_metrics_dropped_series_total 10\n"));
    assert_null(strstr(text, "x_total{pod=\"p4100\"}"));
    assert_non_null(strstr(text, "x_total{pod=\"p4095\"} 1\n"));
    free(text);
    metrics_registry_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exposition),
        cmocka_unit_test(test_invalid_families),
        cmocka_unit_test(test_series_bound),
    };
    return cmocka_run_group_tests_name("metrics", tests, NULL, NULL);
}
