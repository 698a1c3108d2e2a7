/* test_procmetrics.c: the process's own metrics (procmetrics.h): the /proc/self/stat and
 * /proc/stat parsers on fixed and hostile text, a counter set from outside never going back, the
 * render hook, and the live figures of this test process (resident memory, descriptors, threads,
 * CPU time, start time, and the heap's in-use bytes following a 32 MiB allocation). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metrics.h"
#include "procmetrics.h"

static void test_stat_parse(void **state)
{
    (void)state;
    /* A command name with spaces and a ')' of its own: fields count after the last ')'. */
    const char *text = "4242 (dag sched) (x)) S 1 4242 4242 0 -1 4194560 2700 0 0 0 250 50 0 0 "
                       "20 0 11 0 123456 104857600 9000 18446744073709551615 1 1 0 0 0 0 0 "
                       "4096 0 0 0 0 17 1 0 0 0 0 0\n";
    rt_proc_stat st;
    assert_int_equal(rt_proc_stat_parse(text, 100, &st), 0);
    assert_double_near(st.cpu_s, 3.0, 0);
    assert_int_equal(st.threads, 11);
    assert_double_near(st.start_ticks, 123456, 0);
    assert_int_equal(rt_proc_stat_parse(text, 0, &st), -1);
    assert_int_equal(rt_proc_stat_parse("4242 (x S 1 2 3", 100, &st), -1); /* no ')' */
    assert_int_equal(rt_proc_stat_parse("4242 (x) S 1 2 3 4 5 6 7 8 9 10", 100, &st), -1);
    assert_int_equal(
        rt_proc_stat_parse("1 (x) S 1 1 1 0 -1 0 0 0 0 0 -5 50 0 0 20 0 1 0 9 0", 100, &st),
        -1); /* a negative utime */
    assert_int_equal(
        rt_proc_stat_parse("1 (x) S 1 1 1 0 -1 0 0 0 0 0 1x 50 0 0 20 0 1 0 9 0", 100, &st), -1);
    assert_int_equal(rt_proc_stat_parse(NULL, 100, &st), -1);
}

static void test_boot_time_parse(void **state)
{
    (void)state;
    double t = 0;
    assert_int_equal(rt_proc_boot_time_parse("cpu  1 2 3\nintr 5 6\nbtime 1795600000\n", &t), 0);
    assert_double_near(t, 1795600000, 0);
    assert_int_equal(rt_proc_boot_time_parse("btime 17\n", &t), 0);
    assert_double_near(t, 17, 0);
    assert_int_equal(rt_proc_boot_time_parse("cpu 1\n", &t), -1);
    assert_int_equal(rt_proc_boot_time_parse("btime x\n", &t), -1);
    assert_int_equal(rt_proc_boot_time_parse("btime 12x\n", &t), -1);
    assert_int_equal(rt_proc_boot_time_parse("btime 0\n", &t), -1);
    assert_int_equal(rt_proc_boot_time_parse("xbtime 5\n", &t), -1);
    assert_int_equal(rt_proc_boot_time_parse(NULL, &t), -1);
}

static void test_set_total(void **state)
{
    (void)state;
    metrics_registry *r = metrics_registry_new();
    assert_non_null(r);
    metrics_family *c =
        metrics_family_new(r, METRICS_COUNTER, "x_seconds_total", "x", NULL, 0, NULL, 0);
    metrics_family *g = metrics_family_new(r, METRICS_GAUGE, "g", "g", NULL, 0, NULL, 0);
    metrics_set_total(c, NULL, 5);
    assert_double_near(metrics_get(c, NULL), 5, 0);
    metrics_set_total(c, NULL, 3); /* never back */
    assert_double_near(metrics_get(c, NULL), 5, 0);
    metrics_set_total(c, NULL, 0.0 * (double)INFINITY); /* NaN ignored */
    assert_double_near(metrics_get(c, NULL), 5, 0);
    metrics_set_total(c, NULL, 7.5);
    assert_double_near(metrics_get(c, NULL), 7.5, 0);
    metrics_set_total(g, NULL, 4); /* a gauge is not a counter */
    assert_double_near(metrics_get(g, NULL), 0, 0);
    metrics_registry_free(r);
}

static int hook_calls;
static void hook(void *user)
{
    (void)user;
    hook_calls++;
}

static void test_render_hook(void **state)
{
    (void)state;
    metrics_registry *r = metrics_registry_new();
    assert_non_null(r);
    int *owned = malloc(sizeof *owned); /* freed by the registry (LeakSanitizer checks) */
    assert_non_null(owned);
    metrics_registry_on_render(r, hook, owned, free);
    char *text;
    size_t len;
    hook_calls = 0;
    assert_int_equal(metrics_render(r, &text, &len), 0);
    free(text);
    assert_int_equal(metrics_render(r, &text, &len), 0);
    free(text);
    assert_int_equal(hook_calls, 2);
    int *second = malloc(sizeof *second);
    assert_non_null(second);
    metrics_registry_on_render(r, hook, second, free); /* frees the first */
    metrics_registry_free(r);
}

/* The value of an unlabelled series (or of the series with the given label text) in rendered
 * text; NaN when absent. */
static double value_of(const char *text, const char *series)
{
    size_t n = strlen(series);
    for (const char *p = text; p != NULL && *p != '\0';) {
        if (strncmp(p, series, n) == 0 && p[n] == ' ')
            return strtod(p + n + 1, NULL);
        p = strchr(p, '\n');
        if (p != NULL)
            p++;
    }
    return 0.0 * (double)INFINITY;
}

static double render_value(metrics_registry *r, const char *series)
{
    char *text;
    size_t len;
    assert_int_equal(metrics_render(r, &text, &len), 0);
    double v = value_of(text, series);
    free(text);
    return v;
}

static void test_live_figures(void **state)
{
    (void)state;
    metrics_registry *r = metrics_registry_new();
    assert_non_null(r);
    assert_int_equal(rt_procmetrics_register(r), 0);
    double rss = render_value(r, "process_resident_memory_bytes");
    double vsize = render_value(r, "process_virtual_memory_bytes");
    assert_true(rss > 1e6 && rss < 1e11);
    assert_true(vsize >= rss);
    double fds = render_value(r, "process_open_fds");
    assert_true(fds >= 3 && fds < 1e6); /* stdin, stdout, stderr at least */
    assert_true(render_value(r, "process_max_fds") >= fds);
    assert_true(render_value(r, "process_threads") >= 1);
    double start = render_value(r, "process_start_time_seconds");
    double now = (double)time(NULL);
    assert_true(start > now - 3600 && start <= now + 1); /* started within the hour */
    /* CPU time: some spent, and it grows with work. */
    double cpu0 = render_value(r, "process_cpu_seconds_total");
    assert_true(cpu0 >= 0);
    volatile double sink = 0;
    clock_t c0 = clock();
    while ((double)(clock() - c0) / CLOCKS_PER_SEC < 0.05)
        sink += 1;
    (void)sink;
    assert_true(render_value(r, "process_cpu_seconds_total") >= cpu0);
    /* The heap: 32 MiB allocated and touched is in use, then no longer. Under AddressSanitizer
     * malloc's figures are not there to read: the series is left out. */
    double in0 = render_value(r, "dagsched_process_heap_bytes{state=\"in_use\"}");
#ifdef __SANITIZE_ADDRESS__
    assert_true(isnan(in0));
    metrics_registry_free(r);
    return;
#endif
    assert_true(in0 > 0);
    size_t big = 32u << 20;
    char *p = malloc(big);
    assert_non_null(p);
    memset(p, 1, big);
    double in1 = render_value(r, "dagsched_process_heap_bytes{state=\"in_use\"}");
    assert_true(in1 - in0 >= (double)big);
    assert_true(render_value(r, "process_resident_memory_bytes") - rss >= 0.9 * (double)big);
    free(p);
    double in2 = render_value(r, "dagsched_process_heap_bytes{state=\"in_use\"}");
    assert_true(in1 - in2 >= (double)big);
    assert_true(render_value(r, "dagsched_process_heap_bytes{state=\"free\"}") >= 0);
    metrics_registry_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stat_parse),   cmocka_unit_test(test_boot_time_parse),
        cmocka_unit_test(test_set_total),    cmocka_unit_test(test_render_hook),
        cmocka_unit_test(test_live_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
