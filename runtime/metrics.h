/* metrics.h: a small thread-safe Prometheus metrics registry (counters, gauges, histograms with
 * labels) and its text exposition format (version 0.0.4), served on /metrics by both binaries.
 *
 * A registry owns its families; a family owns its series (one per distinct label-value tuple). The
 * number of series per family is bounded (METRICS_MAX_SERIES): past it, new label tuples are
 * counted in the registry's own `dagsched_metrics_dropped_series_total` instead of growing memory.
 */
#ifndef DAGSCHED_METRICS_H
#define DAGSCHED_METRICS_H

#include <stddef.h>

#define METRICS_MAX_LABELS      4
#define METRICS_MAX_BUCKETS     24
#define METRICS_MAX_SERIES      4096
#define METRICS_MAX_LABEL_VALUE 128

typedef enum { METRICS_COUNTER, METRICS_GAUGE, METRICS_HISTOGRAM } metrics_type;

typedef struct metrics_registry metrics_registry;
typedef struct metrics_family metrics_family;

metrics_registry *metrics_registry_new(void);
void metrics_registry_free(metrics_registry *r);

/* Register a family. label_names has n_labels entries (at most METRICS_MAX_LABELS); buckets (upper
 * bounds, increasing) only for histograms. Returns NULL on invalid arguments or allocation failure.
 * Names are copied. */
metrics_family *metrics_family_new(metrics_registry *r, metrics_type type, const char *name,
                                   const char *help, const char *const *label_names,
                                   size_t n_labels, const double *buckets, size_t n_buckets);

/* Update a series (created on first use). label_values has the family's n_labels entries; values
 * longer than METRICS_MAX_LABEL_VALUE are truncated. Counters reject negative increments. */
void metrics_add(metrics_family *f, const char *const *label_values, double v);
void metrics_set(metrics_family *f, const char *const *label_values, double v);
void metrics_observe(metrics_family *f, const char *const *label_values, double v);

/* A counter kept by someone else (the kernel's CPU time of the process): set to v when v is not
 * below its current value; a lower or NaN v is ignored, so the counter never goes back. */
void metrics_set_total(metrics_family *f, const char *const *label_values, double v);

/* A function the registry calls at the start of every metrics_render, outside its lock, to
 * refresh figures read on demand (procmetrics.h). One per registry; a second call replaces it.
 * The registry owns `user` from then on: free_user (may be NULL) releases it when the registry is
 * freed or the function replaced. */
void metrics_registry_on_render(metrics_registry *r, void (*fn)(void *user), void *user,
                                void (*free_user)(void *user));

/* Register `name` (e.g. dagsched_controller_build_info), a gauge set to 1 with the labels version
 * and git: which binary serves these metrics. Returns the family, or NULL on failure. */
metrics_family *metrics_build_info(metrics_registry *r, const char *name, const char *version,
                                   const char *git);

/* Current value of a counter or gauge series (0 when absent); for tests and health logic. */
double metrics_get(metrics_family *f, const char *const *label_values);

/* Render the whole registry. *out is malloc'd (caller frees). 0 on success, -1 on allocation
 * failure. */
int metrics_render(metrics_registry *r, char **out, size_t *len);

/* Latency buckets in seconds, 50 us .. 10 s, for request histograms. */
extern const double metrics_latency_buckets[];
extern const size_t metrics_latency_buckets_n;

#endif
