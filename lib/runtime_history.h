/* runtime_history.h: run times learned from history (Sailfish's prediction, seed 002, made
 * practical), as a pure, bounded table.
 *
 * A task without a dagsched.io/runtime annotation used to count DS_DEFAULT_RUNTIME_S (60 s): a
 * short urgent job looked lost before it started, a long batch task looked about to end. Instead,
 * the controller records the run time of every DAG task that succeeded, under a key that stays the
 * same from one run of a job to the next:
 *
 *     <namespace>/<job family>/<task>
 *
 * where the job family is the job's name (dagsched.io/job label, JobGraph; a CronJob's template
 * keeps it), or for an Argo Workflow its WorkflowTemplate (label
 * workflows.argoproj.io/workflow-template), else its metadata.generateName, else its name. The
 * run time is recorded at the reference speed: the observed time times the node's speed.
 *
 * The estimate is a high percentile (the 90th, nearest rank) of the last DS_RT_SAMPLES runs: it
 * errs long, as a deadline scheduler should, and one outlier among many runs does not move it. The
 * table holds at most max_keys keys; a new key replaces the one seen longest ago. It is persisted
 * by the controller in a ConfigMap (ds_rt_history_encode / _decode) and read by the extender. */
#ifndef DAGSCHED_RUNTIME_HISTORY_H
#define DAGSCHED_RUNTIME_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "bytebuf.h"
#include "ds_error.h"
#include "strmap.h"

#define DS_RT_SAMPLES      16   /* runs kept per key */
#define DS_RT_KEY_MAX      300  /* bytes of a key, NUL included */
#define DS_RT_UID_MAX      64   /* bytes of the last pod uid recorded, NUL included */
#define DS_RT_MAX_KEYS     1024 /* the controller's bound (about 300 KiB encoded at most) */
#define DS_RT_PERCENTILE   0.9
#define DS_RT_MAX_SAMPLE_S (8760.0 * 3600.0)

typedef struct ds_rt_entry {
    char key[DS_RT_KEY_MAX];
    char last_uid[DS_RT_UID_MAX]; /* the pod recorded last: a pod counts once */
    double last_seen;             /* when a run was last recorded (epoch seconds) */
    float samples[DS_RT_SAMPLES]; /* seconds at reference speed, oldest first */
    unsigned n;
} ds_rt_entry;

typedef struct ds_rt_history {
    ds_rt_entry *entries;
    size_t n, max_keys;
    ds_strmap index; /* key -> entry index */
    bool dirty;      /* changed since ds_rt_history_encode */
} ds_rt_history;

/* An empty table of at most max_keys (>= 1) keys. 0, or -1 with err set. */
int ds_rt_history_init(ds_rt_history *h, size_t max_keys, ds_err *err);
void ds_rt_history_free(ds_rt_history *h);

/* The key of a task: "<ns>/<family>/<task>" into buf (DS_RT_KEY_MAX). False when a part is
 * missing or empty, or the key does not fit. */
bool ds_rt_key(const char *ns, const char *family, const char *task, char *buf, size_t size);

/* Record one run of `seconds` (reference speed; finite, > 0 and at most DS_RT_MAX_SAMPLE_S)
 * of the pod `uid` at time now. The same pod recorded again for the key changes nothing. Returns
 * 1 when recorded, 0 when ignored, -1 with err set on invalid input or allocation failure. */
int ds_rt_history_record(ds_rt_history *h, const char *key, const char *uid, double seconds,
                         double now, ds_err *err);

/* The estimate for key: DS_RT_PERCENTILE of its runs (nearest rank), with the number of runs in
 * *n_runs (NULL allowed). NAN when the key has no run. */
double ds_rt_history_estimate(const ds_rt_history *h, const char *key, unsigned *n_runs);

/* Text form, one key per line: "<key>\t<last uid>\t<last seen>\t<s1> <s2> ...\n", keys in
 * ascending order. Clears dirty. 0, or -1 with err set. */
int ds_rt_history_encode(ds_rt_history *h, ds_bytebuf *out, ds_err *err);

/* Replace the table's content by the text form (bounded: at most max_keys lines are kept, the
 * most recently seen; malformed lines are skipped and counted in *skipped, NULL allowed). 0, or
 * -1 with err set on allocation failure. */
int ds_rt_history_decode(ds_rt_history *h, const char *text, size_t len, size_t *skipped,
                         ds_err *err);

#endif
