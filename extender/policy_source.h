/* policy_source.h: choosing the active SchedulingPolicy from the policy ConfigMaps the extender
 * watches (label dagsched.io/kind=SchedulingPolicy in --policy-namespace), with hot reload.
 *
 * The ConfigMap of policy NAME is the one named NAME or dagsched-policy-NAME, else one whose
 * document has metadata.name NAME. Its document is the value of the key "policy.yaml" (or of its
 * only key). A ConfigMap version (uid + resourceVersion) is examined once: a valid document
 * becomes the active policy and bumps the generation; an invalid one keeps the previous policy and
 * is reported once (the caller logs it and posts an Event on the ConfigMap). Without any
 * ConfigMap the built-in defaults (ds_policy_defaults) apply; when the ConfigMap disappears the
 * last policy stays active. */
#ifndef DAGSCHED_EXT_POLICY_SOURCE_H
#define DAGSCHED_EXT_POLICY_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "objects.h"
#include "policy.h"

#define EXT_POLICY_DATA_KEY  "policy.yaml"
#define EXT_POLICY_CM_PREFIX "dagsched-policy-"

typedef struct ext_policy_state {
    ds_policy policy;    /* the active policy */
    uint64_t generation; /* 1 for the built-in defaults; +1 on every change */
    char source[320];    /* "built-in defaults" or "configmap <ns>/<name>" */
    char seen_uid[128];  /* last ConfigMap version examined */
    char seen_rv[64];
    bool from_configmap;
} ext_policy_state;

/* The built-in defaults, generation 1. */
void ext_policy_state_init(ext_policy_state *ps);

typedef enum {
    EXT_POLICY_UNCHANGED = 0,
    EXT_POLICY_UPDATED, /* a new valid policy is active */
    EXT_POLICY_INVALID, /* a new ConfigMap version is invalid; the previous policy stays */
    EXT_POLICY_GONE,    /* the ConfigMap that was active disappeared; its policy stays */
} ext_policy_outcome;

typedef struct ext_policy_update {
    ext_policy_outcome outcome;
    const kube_configmap *cm; /* the ConfigMap examined (borrowed from the input), or NULL */
    char error[DS_ERR_MAX];   /* EXT_POLICY_INVALID: "configmap ns/x: spec.rho: ..." */
} ext_policy_update;

/* Look at the current policy ConfigMaps (cms, n) for the policy `name` and update ps. */
void ext_policy_refresh(ext_policy_state *ps, const kube_configmap *const *cms, size_t n,
                        const char *name, ext_policy_update *u);

#endif
