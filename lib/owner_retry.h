/* owner_retry.h: whether a pod's owner recreates it, without failing, when it is evicted: the rule
 * every victim of dagsched's preemption passes, so that saving one workflow never fails another.
 *
 * An evicted pod is gone; what happens next is its owner's decision:
 *  - a ReplicaSet or a StatefulSet makes a new pod, whatever the number of evictions;
 *  - a batch/v1 Job counts the evicted pod as failed, and fails itself once more pods failed than
 *    spec.backoffLimit (6 by default) allows, unless spec.podFailurePolicy has a rule with action
 *    Ignore on the pod condition DisruptionTarget, which every eviction sets: then the eviction
 *    counts against nothing. A finished Job makes nothing; a Job with spec.backoffLimitPerIndex
 *    counts per index, which is not observed here, so only the Ignore rule makes its pods safe;
 *  - a bare pod is never recreated; a DaemonSet's would come back on the same node;
 *  - an Argo Workflow fails the node of an evicted pod (an error, "pod deleted") unless the
 *    template's retryStrategy retries errors (retryPolicy Always or OnError) with retries left
 *    (ds_wf_retries_left, lib/argo_wf.h);
 *  - any other owner (a custom resource) is not known to retry: never.
 * Pure; the controller gathers the facts (controller/tracker.c) and counts the evictions it plans
 * per owner within a round against the number returned. */
#ifndef DAGSCHED_OWNER_RETRY_H
#define DAGSCHED_OWNER_RETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ds_owner_kind {
    DS_OWNER_NONE = 0, /* a bare pod */
    DS_OWNER_JOB,
    DS_OWNER_REPLICASET,
    DS_OWNER_STATEFULSET,
    DS_OWNER_DAEMONSET,
    DS_OWNER_WORKFLOW, /* argoproj.io Workflow */
    DS_OWNER_OTHER,
} ds_owner_kind;

/* The controlling ownerReference's kind ("Job", "ReplicaSet"...; NULL: none). */
ds_owner_kind ds_owner_kind_of(const char *kind);

typedef struct ds_owner_facts {
    ds_owner_kind kind;
    /* A Job's (when kind is DS_OWNER_JOB): */
    bool known;              /* the Job object was seen */
    bool finished;           /* its condition Complete or Failed is True */
    int32_t backoff_limit;   /* spec.backoffLimit */
    int32_t failed;          /* status.failed */
    size_t pending_failures; /* its pods failed or being deleted that status.failed may not count
                              * yet (the Job controller counts them a moment later) */
    bool per_index_limit;    /* spec.backoffLimitPerIndex is set */
    bool ignores_disruption; /* a podFailurePolicy rule ignores DisruptionTarget */
    /* An Argo Workflow's (DS_OWNER_WORKFLOW): the retries its node has left for errors
     * (ds_wf_retries_left: INT_MAX without a limit, 0 when none or the node is not known). */
    int workflow_retries;
} ds_owner_facts;

typedef enum ds_retry_verdict {
    DS_RETRY_OK = 0,
    DS_RETRY_BARE,          /* no owner recreates it */
    DS_RETRY_DAEMONSET,     /* it would come back on the same node */
    DS_RETRY_JOB_UNKNOWN,   /* its Job was not seen */
    DS_RETRY_JOB_FINISHED,  /* its Job has finished */
    DS_RETRY_JOB_EXHAUSTED, /* its Job would fail: no retry left under spec.backoffLimit */
    DS_RETRY_JOB_PER_INDEX, /* backoffLimitPerIndex without a podFailurePolicy ignoring it */
    DS_RETRY_WORKFLOW,      /* an Argo Workflow would fail the node (no retryStrategy retrying
                             * errors, or none left) */
    DS_RETRY_OTHER_OWNER,   /* an owner not known to recreate it */
    DS_RETRY_N
} ds_retry_verdict;

#define DS_EVICTIONS_UNLIMITED SIZE_MAX

/* How many of the owner's pods may be evicted now without failing it: DS_EVICTIONS_UNLIMITED for
 * a ReplicaSet, a StatefulSet or a Job that ignores disruptions; a Job's retries left (its
 * backoffLimit minus the failures it counts and those on their way); 0 otherwise, with *why (NULL
 * allowed) saying why. */
size_t ds_owner_evictions_left(const ds_owner_facts *o, ds_retry_verdict *why);

/* "ok", "bare-pod", "daemonset", "job-unknown", "job-finished", "job-retries-exhausted",
 * "job-per-index", "argo-workflow", "other-owner" (metric labels). */
const char *ds_retry_verdict_name(ds_retry_verdict v);

/* In words, for Events and logs: "its Job would fail (no retry left under spec.backoffLimit)". */
const char *ds_retry_verdict_text(ds_retry_verdict v);

#endif
