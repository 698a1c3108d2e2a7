/* publish.h: what the controller shows users, as pure functions: the DSP annotations on each task
 * pod (priority, slack, level deadline) and the texts of the Events it posts.
 *
 * Annotation values are rounded so that they change only when the change means something (three
 * significant digits of priority; slack to 10 s below 5 min, to 1 min below 1 h, to 10 min above),
 * which keeps the number of pod updates low. */
#ifndef DAGSCHED_CONTROLLER_PUBLISH_H
#define DAGSCHED_CONTROLLER_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"
#include "preempt.h"
#include "view.h"

/* Event reasons (Event.reason). */
#define CTL_EV_PREEMPTED       "DagschedEvicted"         /* on a victim */
#define CTL_EV_PREEMPTING      "DagschedEvicting"        /* on a preemptor */
#define CTL_EV_WOULD_PREEMPT   "DagschedWouldEvict"      /* --dry-run, on both */
#define CTL_EV_EVICTION_FAILED "DagschedEvictionRefused" /* the Eviction API said no */
#define CTL_EV_UNSAVED         "DagschedUnsaved" /* urgent, every possible victim's owner would fail */
#define CTL_EV_RELEASED        "Released"        /* gate removed or Job resumed */
#define CTL_EV_NUDGED          "UpstreamSucceeded"        /* retry asked of kube-scheduler */
#define CTL_EV_WAITING         "Waiting"                  /* a held task's reason to wait changed */
#define CTL_EV_JOB_INVALID     DS_EV_INVALID_JOB_GRAPH    /* lib/annotations.h */
#define CTL_EV_POD_INVALID     DS_EV_INVALID_POD_METADATA /* lib/annotations.h */
#define CTL_EV_JOB_DEFERRED    DS_EV_JOB_DEFERRED         /* lib/annotations.h */

#define CTL_PUB_VALUE_MAX 48
#define CTL_MSG_MAX       1024

typedef struct ctl_dsp_values {
    char priority[CTL_PUB_VALUE_MAX];       /* "0.873" */
    char slack[CTL_PUB_VALUE_MAX];          /* "4m30s", "-20s" (late), "none" */
    char level_deadline[CTL_PUB_VALUE_MAX]; /* RFC 3339 UTC, "none" */
} ctl_dsp_values;

/* The values for a task (t->evaluated must be true). */
void ctl_publish_values(const ctl_task_info *t, ctl_dsp_values *out);

/* Does the pod's current annotation set (values NULL when absent) differ from want? */
bool ctl_publish_differs(const ctl_dsp_values *want, const char *priority, const char *slack,
                         const char *level_deadline);

/* Pacing of annotation updates: every update of a pending pod makes kube-scheduler retry it and
 * restarts its back-off, so a pending pod is updated at most every CTL_PUBLISH_PENDING_EVERY_S
 * and never while an eviction made for it is cooling down (its room is on the way); a running pod
 * at most every CTL_PUBLISH_RUNNING_EVERY_S unless it has just become urgent. */
#define CTL_PUBLISH_PENDING_EVERY_S 120.0
#define CTL_PUBLISH_RUNNING_EVERY_S 60.0

/* May the pod's annotations be updated at `now`? last: when they were last updated (< 0: never);
 * urgent: its slack is within the urgent threshold; cooling: an eviction made for it is cooling
 * down (ctl_guard_preemptor_cooling). */
bool ctl_publish_due(const ctl_pod *p, double last, double now, bool urgent, bool cooling);

/* The pods whose annotations are kept up to date, in the order of updating (at most
 * --max-annotation-updates a round): evaluated tasks that have not finished and are not
 * terminating, highest DSP priority first (ties by index). idx receives their indices (room for
 * n); returns how many. -1 on allocation failure. */
long ctl_publish_order(const ctl_pod *pods, size_t n, size_t *idx);

/* RFC 3339 UTC with seconds ("2026-01-02T03:04:05Z"); "none" when not finite. */
void ctl_format_time(double epoch_s, char *buf, size_t size);

/* Why the preemptor may preempt: "its slack 12s is within the urgent threshold 30s". */
void ctl_explain_reason(const ctl_eviction *e, const ctl_pod *preemptor, const ctl_pod *victim,
                        const ds_policy *p, char *buf, size_t size);

/* Event texts for one eviction: on the victim and on the preemptor; dry_run words them as
 * what would be done. */
void ctl_victim_message(const ctl_eviction *e, const ctl_pod *preemptor, const ctl_pod *victim,
                        const char *node, const ds_policy *p, bool dry_run, char *buf, size_t size);
void ctl_preemptor_message(const ctl_eviction *e, const ctl_pod *preemptor, const ctl_pod *victim,
                           const char *node, const ds_policy *p, bool dry_run, char *buf,
                           size_t size);

#endif
