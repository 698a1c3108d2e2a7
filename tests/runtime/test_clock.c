/* test_clock.c: the clocks and the timed waits of runtime/clock.h: the monotonic clock never goes
 * back, a wait on a monotonic condition variable times out (also when asked for no time, a
 * negative or a NaN time) and a signal ends a long one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>

#include "clock.h"

static void test_mono_never_goes_back(void **state)
{
    (void)state;
    double a = rt_mono_now(), b = rt_mono_now();
    assert_true(isfinite(a) && isfinite(b) && b >= a);
    assert_true(rt_wall_now() > 1.6e9); /* after 2020: the wall clock is Unix time */
}

static void test_short_waits_time_out(void **state)
{
    (void)state;
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cv;
    assert_int_equal(rt_cond_init(&cv), 0);
    pthread_mutex_lock(&mu);
    const double waits[] = {0.0, -1.0, NAN, 0.01};
    for (size_t i = 0; i < sizeof waits / sizeof waits[0]; i++) {
        double before = rt_mono_now();
        int rc = rt_cond_wait_s(&cv, &mu, waits[i]);
        assert_true(rc == ETIMEDOUT || rc == 0); /* 0: a spurious wake-up, allowed by POSIX */
        assert_true(rt_mono_now() >= before);
    }
    pthread_mutex_unlock(&mu);
    pthread_cond_destroy(&cv);
}

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool waiting, done;
} waiter;

static void *signal_when_waiting(void *arg)
{
    waiter *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->waiting) {
        pthread_mutex_unlock(&w->mu);
        sched_yield();
        pthread_mutex_lock(&w->mu);
    }
    w->done = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static void test_signal_ends_a_long_wait(void **state)
{
    (void)state;
    waiter w = {.mu = PTHREAD_MUTEX_INITIALIZER};
    assert_int_equal(rt_cond_init(&w.cv), 0);
    pthread_t t;
    pthread_mutex_lock(&w.mu);
    assert_int_equal(pthread_create(&t, NULL, signal_when_waiting, &w), 0);
    w.waiting = true;
    /* An hour (a wall-clock deadline on a monotonic condition variable would end at once; a
     * monotonic one on a wall-clock variable would wait for decades): only the signal ends it. */
    while (!w.done)
        assert_int_equal(rt_cond_wait_s(&w.cv, &w.mu, 3600.0), 0);
    pthread_mutex_unlock(&w.mu);
    assert_int_equal(pthread_join(t, NULL), 0);
    pthread_cond_destroy(&w.cv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mono_never_goes_back),
        cmocka_unit_test(test_short_waits_time_out),
        cmocka_unit_test(test_signal_ends_a_long_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
