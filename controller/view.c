/* view.c: small helpers over the controller's cluster view (see view.h). */
#include "view.h"

#include <string.h>

const char *ctl_kv_get(const ctl_kv *kv, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(kv[i].key, key) == 0)
            return kv[i].value;
    return NULL;
}

const char *ctl_pod_state_name(ctl_pod_state s)
{
    switch (s) {
    case CTL_POD_GATED:
        return "gated";
    case CTL_POD_PENDING:
        return "pending";
    case CTL_POD_UNSCHEDULABLE:
        return "unschedulable";
    case CTL_POD_BOUND:
        return "bound";
    case CTL_POD_SUCCEEDED:
        return "succeeded";
    case CTL_POD_FAILED:
        return "failed";
    }
    return "unknown";
}
