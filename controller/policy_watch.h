/* policy_watch.h: the active SchedulingPolicy from the policy ConfigMaps (label
 * dagsched.io/kind=SchedulingPolicy in --policy-namespace), with hot reload; the same rules as the
 * extender's, so both components apply the same policy.
 *
 * The ConfigMap of policy NAME is the one named NAME or dagsched-policy-NAME, else one whose
 * document has metadata.name NAME. Its document is the value of the key "policy.yaml" (or of its
 * only key). A ConfigMap version (uid + resourceVersion) is examined once: a valid document
 * becomes the active policy; an invalid one keeps the previous policy and is reported once (the
 * caller logs it and posts an Event on the ConfigMap). Without any ConfigMap the built-in defaults
 * apply; when the ConfigMap disappears the last policy stays active. */
#ifndef DAGSCHED_CONTROLLER_POLICY_WATCH_H
#define DAGSCHED_CONTROLLER_POLICY_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "objects.h"
#include "policy.h"

#define CTL_POLICY_DATA_KEY  "policy.yaml"
#define CTL_POLICY_CM_PREFIX "dagsched-policy-"
#define CTL_POLICY_KIND      "SchedulingPolicy"

typedef struct ctl_policy_state {
    ds_policy policy;
    uint64_t generation; /* 1 for the built-in defaults; +1 on every change */
    char source[320];    /* "built-in defaults" or "configmap <ns>/<name>" */
    char seen_uid[128];
    char seen_rv[64];
    bool from_configmap;
} ctl_policy_state;

typedef enum {
    CTL_POLICY_UNCHANGED = 0,
    CTL_POLICY_UPDATED,
    CTL_POLICY_INVALID,
    CTL_POLICY_GONE,
} ctl_policy_outcome;

typedef struct ctl_policy_update {
    ctl_policy_outcome outcome;
    const kube_configmap *cm; /* the ConfigMap examined (borrowed), or NULL */
    char error[DS_ERR_MAX];
} ctl_policy_update;

void ctl_policy_state_init(ctl_policy_state *ps);
void ctl_policy_refresh(ctl_policy_state *ps, const kube_configmap *const *cms, size_t n,
                        const char *name, ctl_policy_update *u);

#endif
