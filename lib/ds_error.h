/* ds_error.h: error reporting for the core library.
 *
 * Every fallible core function takes a `ds_err *` (which may be NULL) and, on failure, writes a
 * human-readable message into it. Messages name the offending input ("spec.preemption.rho: must be
 * > 1 (got 0.5)", "task \"b\": depends on unknown task \"x\"") so callers can show them verbatim.
 */
#ifndef DAGSCHED_DS_ERROR_H
#define DAGSCHED_DS_ERROR_H

#include <stddef.h>

#define DS_ERR_MAX 512

typedef struct ds_err {
    char msg[DS_ERR_MAX];
} ds_err;

/* Every error of an input, for a caller that reports each one (a policy's every bad field): at
 * most `max` messages are kept in items; n counts every error, also those beyond max. */
typedef struct ds_errs {
    ds_err *items;
    size_t max, n;
} ds_errs;

/* Keep err's message in l (while fewer than l->max are kept) and count it. -1 when l is NULL (the
 * caller then stops at its first error, err holding it), else 0 (the caller goes on). */
int ds_errs_keep(ds_errs *l, const ds_err *err);

/* Format a message into err (no-op when err is NULL). Always returns -1 so callers can write
 * `return ds_err_set(err, "...")`. */
int ds_err_set(ds_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prefix the existing message with "prefix: " (used to add a field path or a file name). */
void ds_err_prefix(ds_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
