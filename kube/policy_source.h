/* policy_source.h: the active SchedulingPolicy of a dagsched component, chosen from the policy
 * ConfigMaps it watches (label dagsched.io/kind=SchedulingPolicy in its policy namespace), with
 * hot reload. The extender and the controller both use it, so they apply the same policy by the
 * same rules.
 *
 * The ConfigMap of policy NAME is the one named NAME (preferred) or dagsched-policy-NAME, else one
 * whose document has metadata.name NAME; among several of those, the oldest (creationTimestamp),
 * then the first by ConfigMap name, so the choice does not depend on the order of the list. Every
 * other ConfigMap that claims NAME in one of these ways is a duplicate: it is ignored, counted in
 * kube_policy_state.duplicates and named in the state (the caller logs it once per change with
 * kube_policy_log and exports the count). Its document is the value of the key "policy.yaml" (or
 * of its only key), parsed and validated by ds_policy_parse. A ConfigMap version (uid +
 * resourceVersion) is examined once:
 *  - a valid document with new content becomes the active policy and the generation goes up by
 *    one (a new version with the same content changes nothing);
 *  - an invalid one keeps the previous policy and is reported once, with the error (the caller
 *    logs it, kube_policy_log, and posts a Warning Event KUBE_POLICY_EVENT_REASON on the ConfigMap
 *    with kube_policy_event_message);
 *  - when the ConfigMap of the active policy disappears, that policy stays active (reported once).
 * Without any ConfigMap the built-in defaults (ds_policy_defaults) apply, generation 1.
 *
 * Pure: no I/O and no clock; the caller lists the ConfigMaps (an informer with
 * KUBE_POLICY_SELECTOR) and owns the state (one thread at a time). */
#ifndef DAGSCHED_KUBE_POLICY_SOURCE_H
#define DAGSCHED_KUBE_POLICY_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ds_error.h"
#include "objects.h"
#include "policy.h"

#define KUBE_POLICY_SELECTOR     "dagsched.io/kind=SchedulingPolicy"
#define KUBE_POLICY_DATA_KEY     "policy.yaml"
#define KUBE_POLICY_CM_PREFIX    "dagsched-policy-"
#define KUBE_POLICY_EVENT_REASON "InvalidPolicy"
#define KUBE_POLICY_SOURCE_MAX   320

typedef struct kube_policy_state {
    ds_policy policy;                    /* the active policy */
    uint64_t generation;                 /* 1 for the built-in defaults; +1 on every change */
    char source[KUBE_POLICY_SOURCE_MAX]; /* "built-in defaults" or "configmap <ns>/<name>" */
    char seen_uid[128];                  /* last ConfigMap version examined */
    char seen_rv[64];
    bool from_configmap; /* the active policy came from a ConfigMap */
    /* Other ConfigMaps claiming the policy's name, ignored: how many, and "ns/a, ns/b" (cut to
     * fit, ending with "and N more"). */
    size_t duplicates;
    char duplicate_names[KUBE_POLICY_SOURCE_MAX];
} kube_policy_state;

typedef enum {
    KUBE_POLICY_UNCHANGED = 0,
    KUBE_POLICY_UPDATED, /* a new valid policy is active */
    KUBE_POLICY_INVALID, /* a new ConfigMap version is invalid; the previous policy stays */
    KUBE_POLICY_GONE,    /* the ConfigMap that was active disappeared; its policy stays */
} kube_policy_outcome;

typedef struct kube_policy_update {
    kube_policy_outcome outcome;
    const kube_configmap *cm; /* the ConfigMap examined (borrowed from the input), or NULL */
    char error[DS_ERR_MAX];   /* KUBE_POLICY_INVALID: "configmap ns/x: data[policy.yaml]: ..." */
    bool duplicates_changed;  /* the set of duplicate ConfigMaps changed (see the state) */
    char chosen[KUBE_POLICY_SOURCE_MAX]; /* "ns/name" of the ConfigMap chosen, "" without one */
} kube_policy_update;

/* The built-in defaults, generation 1. */
void kube_policy_state_init(kube_policy_state *ps);

/* Look at the current policy ConfigMaps (cms, n) for the policy `name` and update ps; u says what
 * happened. */
void kube_policy_refresh(kube_policy_state *ps, const kube_configmap *const *cms, size_t n,
                         const char *name, kube_policy_update *u);

/* "unchanged", "updated", "invalid", "gone" (metric labels). */
const char *kube_policy_outcome_name(kube_policy_outcome o);

/* Log an outcome on behalf of `component` (nothing for KUBE_POLICY_UNCHANGED): updated at info
 * ("policy default from configmap ns/x is active (generation 2)"), invalid at error ("invalid
 * policy, keeping policy default (generation 2) from ...: <error>"), gone at warn. When the set of
 * duplicates changed, a warning naming the ConfigMap used and those ignored ("policy default is
 * claimed by 2 ConfigMaps: using dagsched-system/a (...), ignoring dagsched-system/b"), or an info
 * line when none is left. */
void kube_policy_log(const char *component, const char *name, const kube_policy_state *ps,
                     const kube_policy_update *u);

/* The message of the Warning Event on an invalid ConfigMap: "<reporter>: <error>; keeping policy
 * <name> (generation <n>)". */
void kube_policy_event_message(const char *reporter, const kube_policy_state *ps,
                               const kube_policy_update *u, char *buf, size_t size);

#endif
