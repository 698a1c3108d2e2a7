/* policy_source.c: choosing and hot-reloading the active SchedulingPolicy from the policy
 * ConfigMaps (see policy_source.h). */
#include "policy_source.h"

#include <stdio.h>
#include <string.h>

#include "kutil.h"
#include "log.h"

static const char *or_empty(const char *s)
{
    return s != NULL ? s : "";
}

void kube_policy_state_init(kube_policy_state *ps)
{
    memset(ps, 0, sizeof *ps);
    ds_policy_defaults(&ps->policy);
    ps->generation = 1;
    kutil_sfmt(ps->source, sizeof ps->source, "built-in defaults");
}

/* The policy document of a ConfigMap: "policy.yaml", else its only key. */
static const kube_kv *document(const kube_configmap *cm)
{
    for (size_t i = 0; i < cm->n_data; i++)
        if (strcmp(cm->data[i].key, KUBE_POLICY_DATA_KEY) == 0)
            return &cm->data[i];
    return cm->n_data == 1 ? &cm->data[0] : NULL;
}

/* Named NAME or dagsched-policy-NAME. */
static bool named(const kube_configmap *cm, const char *name)
{
    const char *n = cm->meta.name;
    if (n == NULL)
        return false;
    if (strcmp(n, name) == 0)
        return true;
    size_t pl = strlen(KUBE_POLICY_CM_PREFIX);
    return strncmp(n, KUBE_POLICY_CM_PREFIX, pl) == 0 && strcmp(n + pl, name) == 0;
}

static int parse_cm(const kube_configmap *cm, ds_policy *out, ds_err *err)
{
    const kube_kv *doc = document(cm);
    if (doc == NULL)
        return ds_err_set(err, "data: no \"%s\" key (and not exactly one key to use instead)",
                          KUBE_POLICY_DATA_KEY);
    if (ds_policy_parse(doc->value, strlen(doc->value), out, err) != 0) {
        ds_err_prefix(err, "data[%s]", doc->key);
        return -1;
    }
    return 0;
}

/* The ConfigMap holding policy `name`: by ConfigMap name first (the exact name before the
 * prefixed one), else by document name (then *parsed holds its policy). */
static const kube_configmap *find(const kube_configmap *const *cms, size_t n, const char *name,
                                  ds_policy *parsed, bool *have_parsed)
{
    *have_parsed = false;
    const kube_configmap *best = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!named(cms[i], name))
            continue;
        if (best == NULL || strcmp(cms[i]->meta.name, name) == 0)
            best = cms[i];
    }
    if (best != NULL)
        return best;
    for (size_t i = 0; i < n; i++) {
        ds_err err;
        if (cms[i]->meta.name != NULL && parse_cm(cms[i], parsed, &err) == 0 &&
            strcmp(parsed->name, name) == 0) {
            *have_parsed = true;
            return cms[i];
        }
    }
    return NULL;
}

void kube_policy_refresh(kube_policy_state *ps, const kube_configmap *const *cms, size_t n,
                         const char *name, kube_policy_update *u)
{
    memset(u, 0, sizeof *u);
    ds_policy parsed;
    memset(&parsed, 0, sizeof parsed); /* compared with memcmp below */
    bool have_parsed;
    const kube_configmap *cm = find(cms, n, name, &parsed, &have_parsed);
    if (cm == NULL) {
        if (ps->from_configmap && ps->seen_uid[0] != '\0') {
            u->outcome = KUBE_POLICY_GONE;
            ps->seen_uid[0] = '\0';
            ps->seen_rv[0] = '\0';
        }
        return;
    }
    const char *uid = or_empty(cm->meta.uid);
    const char *rv = or_empty(cm->meta.resource_version);
    if (strcmp(uid, ps->seen_uid) == 0 && strcmp(rv, ps->seen_rv) == 0)
        return; /* this version was examined already */
    kutil_sfmt(ps->seen_uid, sizeof ps->seen_uid, "%s", uid);
    kutil_sfmt(ps->seen_rv, sizeof ps->seen_rv, "%s", rv);
    u->cm = cm;

    ds_err err;
    if (!have_parsed && parse_cm(cm, &parsed, &err) != 0) {
        u->outcome = KUBE_POLICY_INVALID;
        kutil_sfmt(u->error, sizeof u->error, "configmap %s/%s: %s", or_empty(cm->meta.ns),
                   cm->meta.name, err.msg);
        return;
    }
    bool same = ps->from_configmap && memcmp(&parsed, &ps->policy, sizeof parsed) == 0;
    ps->from_configmap = true;
    kutil_sfmt(ps->source, sizeof ps->source, "configmap %s/%s", or_empty(cm->meta.ns),
               cm->meta.name);
    if (same)
        return; /* a new resourceVersion with the same content */
    ps->policy = parsed;
    ps->generation++;
    u->outcome = KUBE_POLICY_UPDATED;
}

const char *kube_policy_outcome_name(kube_policy_outcome o)
{
    switch (o) {
    case KUBE_POLICY_UNCHANGED:
        return "unchanged";
    case KUBE_POLICY_UPDATED:
        return "updated";
    case KUBE_POLICY_INVALID:
        return "invalid";
    case KUBE_POLICY_GONE:
        return "gone";
    }
    return "unknown";
}

void kube_policy_log(const char *component, const char *name, const kube_policy_state *ps,
                     const kube_policy_update *u)
{
    switch (u->outcome) {
    case KUBE_POLICY_UNCHANGED:
        return;
    case KUBE_POLICY_UPDATED:
        KLOG_INFO(component, "policy %s from %s is active (generation %llu)", ps->policy.name,
                  ps->source, (unsigned long long)ps->generation);
        return;
    case KUBE_POLICY_INVALID:
        KLOG_ERROR(component, "invalid policy, keeping policy %s (generation %llu) from %s: %s",
                   ps->policy.name, (unsigned long long)ps->generation, ps->source, u->error);
        return;
    case KUBE_POLICY_GONE:
        KLOG_WARN(component, "policy ConfigMap for %s disappeared; keeping policy %s from %s", name,
                  ps->policy.name, ps->source);
        return;
    }
}

void kube_policy_event_message(const char *reporter, const kube_policy_state *ps,
                               const kube_policy_update *u, char *buf, size_t size)
{
    kutil_sfmt(buf, size, "%s: %s; keeping policy %s (generation %llu)", reporter, u->error,
               ps->policy.name, (unsigned long long)ps->generation);
}
