/* timefmt.h: durations ("90s", "1m30s", "1.5h", "250ms") and RFC 3339 timestamps, as written in
 * dagsched annotations and policies. Pure parsing, no clock access: callers pass "now" in. */
#ifndef DAGSCHED_TIMEFMT_H
#define DAGSCHED_TIMEFMT_H

#include "ds_error.h"

#define DS_DURATION_MAX_LEN  64
#define DS_TIMESTAMP_MAX_LEN 64

/* Go time.ParseDuration syntax (units ns, us, µs, ms, s, m, h; a unit is required except for "0";
 * fractions allowed; sequences such as "1h2m3.5s"). Negative durations are rejected: dagsched never
 * needs them. Result in seconds. */
int ds_duration_parse(const char *s, double *seconds, ds_err *err);

/* RFC 3339 timestamp ("2026-11-22T10:00:00Z", "2026-11-22T12:00:00.5+02:00") to seconds since the
 * Unix epoch (UTC). */
int ds_timestamp_parse(const char *s, double *epoch_s, ds_err *err);

/* Format seconds as a compact Go-style duration ("1m30s", "250ms", "2h0m0s"); used in messages. */
void ds_duration_format(double seconds, char *buf, unsigned long bufsize);

#endif
