/* fmt.h: how kubectl-dagsched writes durations and instants relative to now, like kubectl:
 * "45s", "9m30s", "2h05m", "-" for none (infinite or NaN); "in 9m30s", "passed 2m ago"; and an
 * instant as a local clock time: "14:03:40" (with its date on another day than now). */
#ifndef DAGSCHED_CLI_FMT_H
#define DAGSCHED_CLI_FMT_H

#include <stddef.h>

void cli_fmt_dur(double seconds, char *buf, size_t size);
void cli_fmt_until(double at, double now, char *buf, size_t size);
void cli_fmt_clock(double at, double now, char *buf, size_t size);

#endif
