/* fmt.c: how kubectl-dagsched writes durations and instants (see fmt.h). */
#include "fmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

void cli_fmt_dur(double s, char *buf, size_t size)
{
    if (!isfinite(s)) {
        snprintf(buf, size, "-");
        return;
    }
    const char *sign = s < 0 ? "-" : "";
    double a = fabs(s);
    long v = (long)floor(a + 0.5);
    if (v < 60)
        snprintf(buf, size, "%s%lds", sign, v);
    else if (v < 3600)
        snprintf(buf, size, "%s%ldm%02lds", sign, v / 60, v % 60);
    else
        snprintf(buf, size, "%s%ldh%02ldm", sign, v / 3600, (v % 3600) / 60);
}

/* "in 9m30s", "passed 2m ago", "-". */
void cli_fmt_until(double at, double now, char *buf, size_t size)
{
    if (!isfinite(at)) {
        snprintf(buf, size, "-");
        return;
    }
    char d[32];
    cli_fmt_dur(fabs(at - now), d, sizeof d);
    if (at >= now)
        snprintf(buf, size, "in %s", d);
    else
        snprintf(buf, size, "passed %s ago", d);
}

/* "14:03:40", "2026-12-01 14:03:40" on another day than now, "-". */
void cli_fmt_clock(double at, double now, char *buf, size_t size)
{
    struct tm a, n;
    time_t ta = (time_t)floor(at + 0.5), tn = (time_t)floor(now + 0.5);
    if (!isfinite(at) || !isfinite(now) || localtime_r(&ta, &a) == NULL ||
        localtime_r(&tn, &n) == NULL) {
        snprintf(buf, size, "-");
        return;
    }
    bool today = a.tm_year == n.tm_year && a.tm_yday == n.tm_yday;
    if (size == 0 || strftime(buf, size, today ? "%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &a) == 0)
        snprintf(buf, size, "-");
}
