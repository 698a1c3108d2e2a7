/* test_runtime_history.c: run times learned from history (lib/runtime_history.h): keys, the 90th
 * percentile of the last runs, one record per pod, the bound on keys, and the text form. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "runtime_history.h"

#define NOW 1795000000.0

static void assert_near(double got, double want)
{
    if (!isfinite(got) || fabs(got - want) > 1e-3)
        fail_msg("got %g, want %g", got, want);
}

static void test_key(void **state)
{
    (void)state;
    char k[DS_RT_KEY_MAX];
    assert_true(ds_rt_key("wf", "urgent-", "prep", k, sizeof k));
    assert_string_equal(k, "wf/urgent-/prep");
    assert_false(ds_rt_key("wf", "", "prep", k, sizeof k));
    assert_false(ds_rt_key(NULL, "a", "prep", k, sizeof k));
    assert_false(ds_rt_key("wf", "a b", "prep", k, sizeof k)); /* one field of a line */
    assert_false(ds_rt_key("wf", "a\tb", "prep", k, sizeof k));
    char longname[400];
    memset(longname, 'x', 399);
    longname[399] = '\0';
    assert_false(ds_rt_key("wf", longname, "prep", k, sizeof k));
}

static void test_estimate(void **state)
{
    (void)state;
    ds_rt_history h;
    ds_err err = {{0}};
    assert_int_equal(ds_rt_history_init(&h, 8, &err), 0);
    unsigned n = 99;
    assert_true(isnan(ds_rt_history_estimate(&h, "wf/a/t", &n)));
    assert_int_equal(n, 0);
    assert_int_equal(ds_rt_history_record(&h, "wf/a/t", "u1", 5.0, NOW, &err), 1);
    assert_near(ds_rt_history_estimate(&h, "wf/a/t", &n), 5.0);
    assert_int_equal(n, 1);
    /* The same pod again: once only. Not a run time: ignored. */
    assert_int_equal(ds_rt_history_record(&h, "wf/a/t", "u1", 50.0, NOW, &err), 0);
    assert_int_equal(ds_rt_history_record(&h, "wf/a/t", "u2", NAN, NOW, &err), 0);
    assert_int_equal(ds_rt_history_record(&h, "wf/a/t", "u2", -1, NOW, &err), 0);
    assert_int_equal(ds_rt_history_record(&h, "wf/a/t", "u2", INFINITY, NOW, &err), 0);
    assert_near(ds_rt_history_estimate(&h, "wf/a/t", NULL), 5.0);
    /* Ten runs of 1..10 s: the 90th percentile is 9 s (nearest rank). */
    for (int i = 1; i <= 10; i++) {
        char uid[16];
        snprintf(uid, sizeof uid, "v%d", i);
        assert_int_equal(ds_rt_history_record(&h, "wf/b/t", uid, i, NOW + i, &err), 1);
    }
    assert_near(ds_rt_history_estimate(&h, "wf/b/t", &n), 9.0);
    assert_int_equal(n, 10);
    /* Only the last DS_RT_SAMPLES runs count: 20 runs of 100 s push the early ones out. */
    for (int i = 0; i < 20; i++) {
        char uid[16];
        snprintf(uid, sizeof uid, "w%d", i);
        ds_rt_history_record(&h, "wf/b/t", uid, 100.0, NOW + 20 + i, &err);
    }
    assert_near(ds_rt_history_estimate(&h, "wf/b/t", &n), 100.0);
    assert_int_equal(n, DS_RT_SAMPLES);
    /* Bad input is refused, not recorded. */
    assert_int_equal(ds_rt_history_record(&h, "", "u", 1, NOW, &err), -1);
    assert_int_equal(ds_rt_history_record(&h, "k", "", 1, NOW, &err), -1);
    assert_int_equal(ds_rt_history_record(NULL, "k", "u", 1, NOW, &err), -1);
    ds_rt_history_free(&h);
    assert_int_equal(ds_rt_history_init(&h, 0, &err), -1);
}

/* At most max_keys keys: a new key replaces the one seen longest ago. */
static void test_bound(void **state)
{
    (void)state;
    ds_rt_history h;
    ds_err err = {{0}};
    assert_int_equal(ds_rt_history_init(&h, 3, &err), 0);
    ds_rt_history_record(&h, "n/j/a", "u1", 1, NOW + 1, &err);
    ds_rt_history_record(&h, "n/j/b", "u2", 2, NOW + 2, &err);
    ds_rt_history_record(&h, "n/j/c", "u3", 3, NOW + 3, &err);
    ds_rt_history_record(&h, "n/j/a", "u4", 1, NOW + 4, &err); /* a seen again */
    ds_rt_history_record(&h, "n/j/d", "u5", 4, NOW + 5, &err); /* replaces b */
    assert_int_equal(h.n, 3);
    assert_true(isnan(ds_rt_history_estimate(&h, "n/j/b", NULL)));
    assert_near(ds_rt_history_estimate(&h, "n/j/a", NULL), 1);
    assert_near(ds_rt_history_estimate(&h, "n/j/c", NULL), 3);
    assert_near(ds_rt_history_estimate(&h, "n/j/d", NULL), 4);
    ds_rt_history_free(&h);
}

static void test_text_form(void **state)
{
    (void)state;
    ds_rt_history h, g;
    ds_err err = {{0}};
    assert_int_equal(ds_rt_history_init(&h, 8, &err), 0);
    ds_rt_history_record(&h, "wf/urgent-/prep", "u1", 5.25, NOW, &err);
    ds_rt_history_record(&h, "wf/urgent-/prep", "u2", 6, NOW + 1, &err);
    ds_rt_history_record(&h, "wf/batch/crunch", "u3", 60, NOW + 2, &err);
    assert_true(h.dirty);
    ds_bytebuf b;
    ds_bytebuf_init(&b, 1 << 20);
    assert_int_equal(ds_rt_history_encode(&h, &b, &err), 0);
    assert_false(h.dirty);
    assert_string_equal(b.data, "wf/batch/crunch\tu3\t1795000002.000\t60.000\n"
                                "wf/urgent-/prep\tu2\t1795000001.000\t5.250 6.000\n");
    assert_int_equal(ds_rt_history_init(&g, 8, &err), 0);
    size_t skipped = 9;
    assert_int_equal(ds_rt_history_decode(&g, b.data, b.len, &skipped, &err), 0);
    assert_int_equal(skipped, 0);
    assert_int_equal(g.n, 2);
    assert_near(ds_rt_history_estimate(&g, "wf/urgent-/prep", NULL), 6);
    /* The pod recorded last is remembered: it does not count twice after a restart. */
    assert_int_equal(ds_rt_history_record(&g, "wf/urgent-/prep", "u2", 6, NOW + 9, &err), 0);
    /* Malformed lines are skipped, the rest kept; a duplicated key keeps its latest line. */
    const char *bad = "a/b/c\tu\t1\t5\n"
                      "no-tabs\n"
                      "x/y/z\tu\tnot-a-time\t5\n"
                      "x/y/z\tu\t1\t-5\n"
                      "x/y/z\tu\t1\t\n"
                      "x/y/z\tu\t1\t5 nan\n"
                      "a/b/c\tu9\t9\t7\n"
                      "\n";
    assert_int_equal(ds_rt_history_decode(&g, bad, strlen(bad), &skipped, &err), 0);
    assert_int_equal(skipped, 6);
    assert_int_equal(g.n, 1);
    assert_near(ds_rt_history_estimate(&g, "a/b/c", NULL), 7);
    /* A table smaller than the text keeps the most recently seen keys. */
    ds_rt_history small;
    assert_int_equal(ds_rt_history_init(&small, 1, &err), 0);
    assert_int_equal(ds_rt_history_decode(&small, b.data, b.len, NULL, &err), 0);
    assert_int_equal(small.n, 1);
    assert_near(ds_rt_history_estimate(&small, "wf/batch/crunch", NULL), 60);
    ds_rt_history_free(&small);
    ds_bytebuf_free(&b);
    ds_rt_history_free(&g);
    ds_rt_history_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key),
        cmocka_unit_test(test_estimate),
        cmocka_unit_test(test_bound),
        cmocka_unit_test(test_text_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
