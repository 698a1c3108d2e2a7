/* test_cadence.c: unit tests of the decision loop's cadence (cadence.h): rounds every epoch, a
 * kick waits for --min-round-interval, an urgent kick runs a round at once but adds at most one
 * round per interval, and the waits the loop is told to sleep. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "../common/ds_assert.h"
#include "cadence.h"

#define EPOCH 10.0
#define MIN_IV 1.0

static ctl_cadence_step next(ctl_cadence *cd, double now, bool kicked, bool urgent, double *wait)
{
    *wait = -1;
    return ctl_cadence_next(cd, now, EPOCH, MIN_IV, kicked, urgent, wait);
}

static void test_epoch(void **state)
{
    (void)state;
    ctl_cadence cd;
    ctl_cadence_init(&cd);
    double w;
    assert_int_equal(next(&cd, 100, false, false, &w), CTL_CADENCE_ROUND); /* first round */
    assert_double_near(w, 0, 0);
    assert_int_equal(next(&cd, 100.5, false, false, &w), CTL_CADENCE_WAIT);
    assert_double_near(w, 1.0, 0); /* capped: the loop wakes every second */
    assert_int_equal(next(&cd, 109.995, false, false, &w), CTL_CADENCE_WAIT);
    assert_double_near(w, 0.01, 1e-12); /* floor */
    assert_int_equal(next(&cd, 110, false, false, &w), CTL_CADENCE_ROUND);
    assert_double_near(cd.next_epoch, 120, 0);
    /* A bad epoch counts as 10 s. */
    assert_int_equal(ctl_cadence_next(&cd, 120, NAN, MIN_IV, false, false, &w),
                     CTL_CADENCE_ROUND);
    assert_double_near(cd.next_epoch, 130, 0);
    assert_int_equal(ctl_cadence_next(&cd, 130, -1, MIN_IV, false, false, &w), CTL_CADENCE_ROUND);
    assert_double_near(cd.next_epoch, 140, 0);
}

static void test_kick_waits_for_interval(void **state)
{
    (void)state;
    ctl_cadence cd;
    ctl_cadence_init(&cd);
    double w;
    assert_int_equal(next(&cd, 100, false, false, &w), CTL_CADENCE_ROUND);
    assert_int_equal(next(&cd, 100.3, true, false, &w), CTL_CADENCE_WAIT);
    assert_double_near(w, 0.7, 1e-9);
    assert_int_equal(next(&cd, 101, true, false, &w), CTL_CADENCE_ROUND);
    assert_double_near(cd.last_round, 101, 0);
    assert_double_near(cd.next_epoch, 110, 0); /* a kick does not move the epoch */
    /* An epoch due right after a kicked round waits for the interval too. */
    cd.next_epoch = 101.5;
    assert_int_equal(next(&cd, 101.5, false, false, &w), CTL_CADENCE_WAIT);
    assert_int_equal(next(&cd, 102, false, false, &w), CTL_CADENCE_ROUND);
    assert_double_near(cd.next_epoch, 112, 0);
}

static void test_urgent_runs_at_once(void **state)
{
    (void)state;
    ctl_cadence cd;
    ctl_cadence_init(&cd);
    double w;
    assert_int_equal(next(&cd, 100, false, false, &w), CTL_CADENCE_ROUND);
    /* 50 ms after a round: an ordinary kick waits, an urgent one does not. */
    assert_int_equal(next(&cd, 100.05, true, false, &w), CTL_CADENCE_WAIT);
    assert_int_equal(next(&cd, 100.05, true, true, &w), CTL_CADENCE_URGENT);
    assert_double_near(cd.last_urgent_round, 100.05, 0);
    assert_double_near(cd.last_round, 100.05, 0);
    assert_double_near(cd.next_epoch, 110, 0);
    /* A second urgent kick within the interval waits for the interval after the first. */
    assert_int_equal(next(&cd, 100.2, false, true, &w), CTL_CADENCE_WAIT);
    assert_double_near(w, 0.85, 1e-9);
    assert_int_equal(next(&cd, 101.05, false, true, &w), CTL_CADENCE_ROUND);
    /* Spaced from every round, an urgent kick is an ordinary round (it adds nothing). */
    assert_double_near(cd.last_urgent_round, 100.05, 0);
    /* The interval since the last urgent round is over: the next urgent kick runs at once. */
    assert_int_equal(next(&cd, 101.1, false, true, &w), CTL_CADENCE_URGENT);
}

/* However many urgent kicks arrive, at most one round per interval is added to the regular ones:
 * over 100 s of kicks every 10 ms, about two rounds a second. */
static void test_urgent_burst_is_bounded(void **state)
{
    (void)state;
    ctl_cadence cd;
    ctl_cadence_init(&cd);
    int rounds = 0, urgent = 0;
    for (int i = 0; i < 10000; i++) {
        double w;
        ctl_cadence_step s = next(&cd, 100 + i * 0.01, true, true, &w);
        rounds += s != CTL_CADENCE_WAIT;
        urgent += s == CTL_CADENCE_URGENT;
        assert_true(s != CTL_CADENCE_WAIT || (w >= 0.01 && w <= 1.0));
    }
    assert_in_range(rounds, 100, 201);
    assert_in_range(urgent, 0, 101);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_epoch),
        cmocka_unit_test(test_kick_waits_for_interval),
        cmocka_unit_test(test_urgent_runs_at_once),
        cmocka_unit_test(test_urgent_burst_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
