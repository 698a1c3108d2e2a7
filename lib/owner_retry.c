/* owner_retry.c: whether a pod's owner recreates it without failing when it is evicted (see
 * owner_retry.h). */
#include "owner_retry.h"

#include <limits.h>
#include <string.h>

ds_owner_kind ds_owner_kind_of(const char *kind)
{
    static const struct {
        const char *name;
        ds_owner_kind k;
    } known[] = {
        {"Job", DS_OWNER_JOB},
        {"ReplicaSet", DS_OWNER_REPLICASET},
        {"StatefulSet", DS_OWNER_STATEFULSET},
        {"DaemonSet", DS_OWNER_DAEMONSET},
        {"Workflow", DS_OWNER_WORKFLOW},
    };
    if (kind == NULL || kind[0] == '\0')
        return DS_OWNER_NONE;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(kind, known[i].name) == 0)
            return known[i].k;
    return DS_OWNER_OTHER;
}

static size_t none(ds_retry_verdict v, ds_retry_verdict *why)
{
    if (why != NULL)
        *why = v;
    return 0;
}

size_t ds_owner_evictions_left(const ds_owner_facts *o, ds_retry_verdict *why)
{
    if (why != NULL)
        *why = DS_RETRY_OK;
    switch (o->kind) {
    case DS_OWNER_REPLICASET:
    case DS_OWNER_STATEFULSET:
        return DS_EVICTIONS_UNLIMITED;
    case DS_OWNER_NONE:
        return none(DS_RETRY_BARE, why);
    case DS_OWNER_DAEMONSET:
        return none(DS_RETRY_DAEMONSET, why);
    case DS_OWNER_WORKFLOW:
        if (o->workflow_retries == INT_MAX)
            return DS_EVICTIONS_UNLIMITED;
        return o->workflow_retries > 0 ? (size_t)o->workflow_retries : none(DS_RETRY_WORKFLOW, why);
    case DS_OWNER_OTHER:
        return none(DS_RETRY_OTHER_OWNER, why);
    case DS_OWNER_JOB:
        break;
    }
    if (!o->known)
        return none(DS_RETRY_JOB_UNKNOWN, why);
    if (o->finished)
        return none(DS_RETRY_JOB_FINISHED, why);
    if (o->ignores_disruption)
        return DS_EVICTIONS_UNLIMITED;
    if (o->per_index_limit)
        return none(DS_RETRY_JOB_PER_INDEX, why);
    /* The Job fails once its failures exceed backoffLimit: each eviction adds one. */
    int64_t left = (int64_t)o->backoff_limit - (o->failed > 0 ? o->failed : 0) -
                   (int64_t)(o->pending_failures > INT32_MAX ? INT32_MAX : o->pending_failures);
    if (left <= 0)
        return none(DS_RETRY_JOB_EXHAUSTED, why);
    return (size_t)left;
}

const char *ds_retry_verdict_name(ds_retry_verdict v)
{
    static const char *const names[DS_RETRY_N] = {"ok",
                                                  "bare-pod",
                                                  "daemonset",
                                                  "job-unknown",
                                                  "job-finished",
                                                  "job-retries-exhausted",
                                                  "job-per-index",
                                                  "argo-workflow",
                                                  "other-owner"};
    return (unsigned)v < DS_RETRY_N ? names[v] : "unknown";
}

const char *ds_retry_verdict_text(ds_retry_verdict v)
{
    static const char *const text[DS_RETRY_N] = {
        "its owner recreates it",
        "no owner would recreate it (a bare pod)",
        "a DaemonSet pod would come back on the same node",
        "its Job is not known (not seen yet)",
        "its Job has finished and would not recreate it",
        "its Job would fail (no retry left under spec.backoffLimit; a podFailurePolicy rule "
        "ignoring DisruptionTarget makes evictions free)",
        "its Job counts failures per index (spec.backoffLimitPerIndex) without a podFailurePolicy "
        "rule ignoring DisruptionTarget",
        "its Argo Workflow would fail the node (no retryStrategy with retryPolicy Always or "
        "OnError "
        "and retries left)",
        "its owner is not known to recreate it"};
    return (unsigned)v < DS_RETRY_N ? text[v] : "unknown";
}
