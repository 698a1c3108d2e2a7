/* ledger.h: the record of recent evictions, which the eviction limits and the cooldowns are
 * computed from.
 *
 * The leader keeps it in a ConfigMap (data key "evictions", a JSON list) and writes each entry
 * there *before* it calls the Eviction API, so a restarted controller or a new leader sees every
 * eviction already made or attempted and never repeats one nor exceeds a limit. Entries older than
 * the longest window in use are pruned; the list is bounded (CTL_LEDGER_MAX, oldest dropped).
 * Pure: no I/O here, the caller stores the encoded text. */
#ifndef DAGSCHED_CONTROLLER_LEDGER_H
#define DAGSCHED_CONTROLLER_LEDGER_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"

#define CTL_LEDGER_MAX       2048
#define CTL_LEDGER_MAX_BYTES (900 * 1024) /* a ConfigMap holds at most 1 MiB */
#define CTL_LEDGER_KEY       "evictions"
#define CTL_NS_MAX           64  /* a namespace name (63) + NUL */
#define CTL_NAME_MAX         254 /* an object name (253) + NUL */
#define CTL_UID_MAX          64
#define CTL_TASK_NAME_MAX    64 /* a job or task name (63) + NUL */

typedef struct ctl_ledger_entry {
    double at; /* seconds since the epoch */
    char victim_ns[CTL_NS_MAX];
    char victim_name[CTL_NAME_MAX];
    char victim_uid[CTL_UID_MAX];
    char node[CTL_NAME_MAX];
    char preemptor_ns[CTL_NS_MAX];
    char preemptor_name[CTL_NAME_MAX];
    char preemptor_uid[CTL_UID_MAX];
    char reason[16]; /* ds_reason_name */
    char result[16]; /* CTL_LEDGER_* below */
    /* The DAG tasks involved (job and task names in the job model; "" when unknown, as in
     * ledgers written before they were recorded). Cooldowns follow the task, not the pod: a
     * victim's replacement pod is the same task. */
    char victim_job[CTL_TASK_NAME_MAX];
    char victim_task[CTL_TASK_NAME_MAX];
    char preemptor_job[CTL_TASK_NAME_MAX];
    char preemptor_task[CTL_TASK_NAME_MAX];
    bool victim_long; /* the victim was a long task (spec.preemption.longTask); false if absent */
} ctl_ledger_entry;

/* What the ledger remembers of a task after its entries are pruned: how often a pod of it was
 * evicted and how many evictions were made for its pods, counting entries that count against the
 * limits (ctl_ledger_entry_counts). Kept CTL_TASK_MEMORY_S after the last of them, so that
 * spec.preemption.maxEvictionsPerTask holds over a task's life, across replacement pods and
 * leaders, and the eviction yield can be told when the preemptor's job finishes. */
#define CTL_TASK_MEMORY_S    86400.0
#define CTL_TASK_COUNTS_MAX  1024
#define CTL_LEDGER_TASKS_KEY "taskEvictions"

typedef struct ctl_task_count {
    char ns[CTL_NS_MAX];
    char job[CTL_TASK_NAME_MAX];
    char task[CTL_TASK_NAME_MAX];
    unsigned evicted;   /* evictions of its pods */
    unsigned preempted; /* evictions made for its pods */
    double last;        /* the latest of them */
} ctl_task_count;

/* Outcomes of an eviction. "pending" is written before the Eviction API is called and stays when
 * the outcome is unknown (an error): like "evicted" it counts against the limits and holds the
 * preemptor back. "refused" (a PodDisruptionBudget said no) and "gone" (the pod no longer
 * existed) count only for the victim's cooldown. */
#define CTL_LEDGER_PENDING "pending"
#define CTL_LEDGER_EVICTED "evicted"
#define CTL_LEDGER_REFUSED "refused"
#define CTL_LEDGER_GONE    "gone"

typedef struct ctl_ledger {
    ctl_ledger_entry *e; /* oldest first */
    size_t n, cap;
    ctl_task_count *tc; /* counts folded from pruned entries, by last, oldest first */
    size_t n_tc, cap_tc;
} ctl_ledger;

void ctl_ledger_init(ctl_ledger *l);
void ctl_ledger_free(ctl_ledger *l);
void ctl_ledger_clear(ctl_ledger *l);

/* Append an entry (strings are truncated to their fields; the caller passes valid Kubernetes
 * names, which fit). At CTL_LEDGER_MAX entries the oldest is dropped. -1 on allocation failure. */
int ctl_ledger_add(ctl_ledger *l, const ctl_ledger_entry *e, ds_err *err);

/* Drop entries older than now - keep_s, folding those of DAG tasks into the task counts, and
 * task counts older than CTL_TASK_MEMORY_S (at most CTL_TASK_COUNTS_MAX, oldest dropped). An
 * entry that cannot be folded (out of memory) is dropped all the same. */
void ctl_ledger_prune(ctl_ledger *l, double now, double keep_s);

/* Whether an entry counts against the limits and the preemptor cooldown (pending or evicted). */
bool ctl_ledger_entry_counts(const ctl_ledger_entry *e);

/* Record the outcome of the latest entry for this victim UID; -1 when there is none. */
int ctl_ledger_set_result(ctl_ledger *l, const char *victim_uid, const char *result);

/* Latest counting eviction made for this preemptor (by UID), NAN when none. */
double ctl_ledger_last_for_preemptor(const ctl_ledger *l, const char *preemptor_uid);

/* Latest eviction of this victim (by UID), whatever its outcome; NAN when none. */
double ctl_ledger_last_for_victim(const ctl_ledger *l, const char *victim_uid);

/* A DAG task: namespace, job and task names (none may be NULL or ""). */
typedef struct ctl_task_ref {
    const char *ns, *job, *task;
} ctl_task_ref;

/* Latest eviction of any pod of this task (whatever its outcome), NAN when none. */
double ctl_ledger_last_task_evicted(const ctl_ledger *l, const ctl_task_ref *t);

/* Latest counting eviction made for any pod of this task as the preemptor, NAN when none. */
double ctl_ledger_last_task_preempted(const ctl_ledger *l, const ctl_task_ref *t);

/* Evictions of any pod of this task over the ledger's memory (entries and task counts). */
size_t ctl_ledger_task_evictions(const ctl_ledger *l, const ctl_task_ref *t);

/* Evictions made for any pod of this task as the preemptor, over the ledger's memory (entries and
 * task counts). */
size_t ctl_ledger_task_preemptions(const ctl_ledger *l, const ctl_task_ref *t);

/* Evictions made for any pod of any task of this job (ns, job). */
size_t ctl_ledger_job_preemptions(const ctl_ledger *l, const char *ns, const char *job);

/* JSON text (malloc'd, caller frees); NULL on allocation failure. */
char *ctl_ledger_encode(const ctl_ledger *l);

/* The task counts as JSON text (a list, malloc'd); NULL on allocation failure. */
char *ctl_ledger_encode_tasks(const ctl_ledger *l);

/* Parse the task counts (as written by ctl_ledger_encode_tasks) into l, replacing its counts; -1
 * with err set (l unchanged) on wrong fields or over CTL_TASK_COUNTS_MAX entries. */
int ctl_ledger_decode_tasks(const char *text, size_t len, ctl_ledger *l, ds_err *err);

/* Parse JSON text (as written by ctl_ledger_encode) into *l, replacing its content. Entries with
 * missing or wrong fields are an error naming the entry; so is text over CTL_LEDGER_MAX_BYTES.
 * The task fields (victimJob, victimTask, preemptorJob, preemptorTask) may be absent. */
int ctl_ledger_decode(const char *text, size_t len, ctl_ledger *l, ds_err *err);

#endif
