/* clock.c: monotonic and wall clocks in seconds (see clock.h). */
#include "clock.h"

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
