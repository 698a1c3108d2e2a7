/* fmt.c: how kubectl-dagsched writes durations and instants (see fmt.h). */
#include "fmt.h"

#include <math.h>
#include <stdio.h>

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
