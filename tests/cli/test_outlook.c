/* test_outlook.c: unit tests of a job's outlook in kubectl-dagsched (cli/outlook.h): a finished
 * job's makespan and deadline margin, a running job's ETA and the margin at that pace, and the
 * cases where nothing is known. Float checks fail on NaN and infinity unless expected. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "outlook.h"

#define NOW 1000000.0

static void near(double got, double want)
{
    assert_true(isfinite(got));
    assert_true(fabs(got - want) < 1e-9);
}

static void test_finished(void **state)
{
    (void)state;
    cli_outlook o;
    /* Created 100 s before it finished 30 s ago; deadline 48 s after the finish. */
    cli_outlook_of(NOW - 130, NOW - 30, NOW + 18, NOW, 0, &o);
    assert_true(o.ended);
    near(o.finished, NOW - 30);
    near(o.makespan_s, 100);
    near(o.margin_s, 48);
    assert_true(isnan(o.eta));
    char buf[256];
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "finished 30s ago, makespan 1m40s; deadline met with 48s to spare");
    /* Missed by 62 s. */
    cli_outlook_of(NOW - 130, NOW - 30, NOW - 92, NOW, 0, &o);
    near(o.margin_s, -62);
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "finished 30s ago, makespan 1m40s; deadline missed by 1m02s");
    /* No deadline. */
    cli_outlook_of(NOW - 130, NOW - 30, INFINITY, NOW, 0, &o);
    assert_true(isnan(o.margin_s));
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "finished 30s ago, makespan 1m40s");
    /* Ended, but its finish is not known (every pod gone, no finish recorded). */
    cli_outlook_of(NOW - 130, INFINITY, NOW, NOW, 0, &o);
    assert_true(o.ended);
    assert_true(isnan(o.makespan_s) && isnan(o.margin_s));
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "finished (when is not known)");
}

static void test_running(void **state)
{
    (void)state;
    cli_outlook o;
    char buf[256];
    cli_outlook_of(NOW - 60, NAN, NOW + 240, NOW, 200, &o);
    assert_false(o.ended);
    near(o.eta, NOW + 200);
    near(o.margin_s, 40);
    assert_true(isnan(o.finished) && isnan(o.makespan_s));
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "in 3m20s (now + remaining critical path; the wait for room not "
                             "counted); deadline met with 40s to spare at that pace");
    cli_outlook_of(NOW - 60, NAN, NOW + 180, NOW, 200, &o);
    near(o.margin_s, -20);
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "in 3m20s (now + remaining critical path; the wait for room not "
                             "counted); deadline missed by 20s at that pace");
    /* No path known (an invalid job): nothing to say. */
    cli_outlook_of(NOW - 60, NAN, NOW + 180, NOW, NAN, &o);
    assert_true(isnan(o.eta) && isnan(o.margin_s));
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "-");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finished),
        cmocka_unit_test(test_running),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
