/* clock.c: monotonic and wall clocks in seconds, timed waits on the monotonic clock (see
 * clock.h). */
#include "clock.h"

#include <errno.h>
#include <math.h>
#include <time.h>

static double read_s(clockid_t clk)
{
    struct timespec t;
    if (clock_gettime(clk, &t) != 0)
        return 0.0; /* only for a clock id the system lacks; both are POSIX-required */
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

double rt_mono_now(void)
{
    return read_s(CLOCK_MONOTONIC);
}

double rt_wall_now(void)
{
    return read_s(CLOCK_REALTIME);
}

int rt_cond_init(pthread_cond_t *cv)
{
    pthread_condattr_t ca;
    int rc = pthread_condattr_init(&ca);
    if (rc != 0)
        return rc;
    rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
    return rc;
}

int rt_cond_wait_s(pthread_cond_t *cv, pthread_mutex_t *mu, double seconds)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return EINVAL; /* POSIX requires the clock; never taken */
    if (!(seconds > 0.0))
        seconds = 0.0;
    if (seconds > 86400.0)
        seconds = 86400.0; /* a day: beyond any wait of the tree, and time_t-safe */
    double whole = floor(seconds);
    ts.tv_sec += (time_t)whole;
    ts.tv_nsec += (long)((seconds - whole) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return pthread_cond_timedwait(cv, mu, &ts);
}
