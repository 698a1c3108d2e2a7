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

#define EPOCH  10.0
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
    assert_int_equal(ctl_cadence_next(&cd, 120, NAN, MIN_IV, false, false, &w), CTL_CADENCE_ROUND);
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
    ctl_cadence_done(&cd, 100.02); /* rounds of 20 ms: the urgent gap is its floor, 0.1 s */
    assert_double_near(ctl_cadence_urgent_gap(&cd, MIN_IV), 0.1, 1e-12);
    /* 50 ms after a round: an ordinary kick waits, an urgent one does not. */
    assert_int_equal(next(&cd, 100.05, true, false, &w), CTL_CADENCE_WAIT);
    assert_int_equal(next(&cd, 100.05, true, true, &w), CTL_CADENCE_URGENT);
    ctl_cadence_done(&cd, 100.07);
    assert_double_near(cd.last_urgent_round, 100.05, 0);
    assert_double_near(cd.last_round, 100.05, 0);
    assert_double_near(cd.next_epoch, 110, 0);
    /* A second urgent kick within the gap waits for the gap after the first. */
    assert_int_equal(next(&cd, 100.1, false, true, &w), CTL_CADENCE_WAIT);
    assert_double_near(w, 0.05, 1e-9);
    assert_int_equal(next(&cd, 100.15, false, true, &w), CTL_CADENCE_URGENT);
    /* Spaced from every round, an urgent kick is an ordinary round. */
    ctl_cadence_done(&cd, 100.17);
    assert_int_equal(next(&cd, 101.2, false, true, &w), CTL_CADENCE_ROUND);
    assert_double_near(cd.last_urgent_round, 100.15, 0);
}

/* The gap follows the last round's duration: four times it, within [0.1 s, min_interval]. */
static void test_urgent_gap(void **state)
{
    (void)state;
    ctl_cadence cd;
    ctl_cadence_init(&cd);
    assert_double_near(ctl_cadence_urgent_gap(&cd, MIN_IV), 0.1, 1e-12); /* no round yet */
    double w;
    assert_int_equal(next(&cd, 100, false, false, &w), CTL_CADENCE_ROUND);
    ctl_cadence_done(&cd, 100.15);
    assert_double_near(ctl_cadence_urgent_gap(&cd, MIN_IV), 0.6, 1e-9);
    assert_int_equal(next(&cd, 100.2, false, true, &w), CTL_CADENCE_URGENT);
    ctl_cadence_done(&cd, 100.35);
    assert_int_equal(next(&cd, 100.5, false, true, &w), CTL_CADENCE_WAIT);
    assert_double_near(w, 0.3, 1e-9);
    assert_int_equal(next(&cd, 100.8, false, true, &w), CTL_CADENCE_URGENT);
    ctl_cadence_done(&cd, 101.3); /* a 0.5 s round: the gap is capped at min_interval */
    assert_double_near(ctl_cadence_urgent_gap(&cd, MIN_IV), MIN_IV, 0);
    ctl_cadence_done(&cd, 100.7); /* a clock that went back counts as a round of no time */
    assert_double_near(cd.last_duration, 0, 0);
}

/* However many urgent kicks arrive, urgent rounds take at most about a quarter of the loop's
 * time (one per min_interval when rounds are long): kicks every 10 ms for 100 s, with rounds of
 * several durations. */
static void test_urgent_burst_is_bounded(void **state)
{
    (void)state;
    static const double durations[] = {0.001, 0.02, 0.05, 0.1, 0.25, 0.5, 0.9};
    for (size_t k = 0; k < sizeof durations / sizeof durations[0]; k++) {
        double d = durations[k];
        ctl_cadence cd;
        ctl_cadence_init(&cd);
        double now = 100, busy_urgent = 0;
        int rounds = 0, urgent = 0;
        while (now < 200) {
            double w;
            ctl_cadence_step s = next(&cd, now, true, true, &w);
            if (s == CTL_CADENCE_WAIT) {
                assert_true(w >= 0.01 && w <= 1.0);
                now += 0.01;
                continue;
            }
            rounds++;
            if (s == CTL_CADENCE_URGENT) {
                urgent++;
                busy_urgent += d;
            }
            now += d;
            ctl_cadence_done(&cd, now);
        }
        /* Regular rounds: one per min_interval at most (plus the first). */
        assert_in_range(rounds - urgent, 1, 101);
        /* Urgent rounds: one per gap at most, the gap being max(0.1, 4d) capped at 1 s. */
        double gap = fmin(MIN_IV, fmax(0.1, 4 * d));
        assert_true(urgent <= 100 / gap + 1);
        assert_true(busy_urgent <= 0.25 * 100 + d || gap == MIN_IV);
        assert_true(urgent >= 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_epoch),
        cmocka_unit_test(test_kick_waits_for_interval),
        cmocka_unit_test(test_urgent_runs_at_once),
        cmocka_unit_test(test_urgent_gap),
        cmocka_unit_test(test_urgent_burst_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
