/* policy_watch.c: the active SchedulingPolicy from the policy ConfigMaps (see policy_watch.h). */
#include "policy_watch.h"

#include <stdio.h>
#include <string.h>

void ctl_policy_state_init(ctl_policy_state *ps)
{
    memset(ps, 0, sizeof *ps);
    ds_policy_defaults(&ps->policy);
    ps->generation = 1;
    snprintf(ps->source, sizeof ps->source, "built-in defaults");
}

/* The policy document of a ConfigMap: "policy.yaml", else its only key. */
static const char *document(const kube_configmap *cm)
{
    for (size_t i = 0; i < cm->n_data; i++)
        if (strcmp(cm->data[i].key, CTL_POLICY_DATA_KEY) == 0)
            return cm->data[i].value;
    return cm->n_data == 1 ? cm->data[0].value : NULL;
}

static bool named(const kube_configmap *cm, const char *name)
{
    const char *n = cm->meta.name;
    size_t pl = strlen(CTL_POLICY_CM_PREFIX);
    return strcmp(n, name) == 0 ||
           (strncmp(n, CTL_POLICY_CM_PREFIX, pl) == 0 && strcmp(n + pl, name) == 0);
}

static const kube_configmap *choose(const kube_configmap *const *cms, size_t n, const char *name,
                                    ds_policy *parsed, bool *parsed_ok)
{
    *parsed_ok = false;
    for (size_t i = 0; i < n; i++)
        if (named(cms[i], name))
            return cms[i];
    /* Else one whose document names the policy. */
    for (size_t i = 0; i < n; i++) {
        const char *doc = document(cms[i]);
        ds_policy p;
        if (doc != NULL && ds_policy_parse(doc, strlen(doc), &p, NULL) == 0 &&
            strcmp(p.name, name) == 0) {
            *parsed = p;
            *parsed_ok = true;
            return cms[i];
        }
    }
    return NULL;
}

void ctl_policy_refresh(ctl_policy_state *ps, const kube_configmap *const *cms, size_t n,
                        const char *name, ctl_policy_update *u)
{
    memset(u, 0, sizeof *u);
    ds_policy parsed;
    bool parsed_ok;
    const kube_configmap *cm = choose(cms, n, name, &parsed, &parsed_ok);
    if (cm == NULL) {
        if (ps->from_configmap) {
            ps->from_configmap = false;
            ps->seen_uid[0] = ps->seen_rv[0] = '\0';
            u->outcome = CTL_POLICY_GONE;
        }
        return;
    }
    const char *uid = cm->meta.uid ? cm->meta.uid : "";
    const char *rv = cm->meta.resource_version ? cm->meta.resource_version : "";
    if (strcmp(uid, ps->seen_uid) == 0 && strcmp(rv, ps->seen_rv) == 0)
        return;
    snprintf(ps->seen_uid, sizeof ps->seen_uid, "%s", uid);
    snprintf(ps->seen_rv, sizeof ps->seen_rv, "%s", rv);
    u->cm = cm;
    ds_err err = {{0}};
    if (!parsed_ok) {
        const char *doc = document(cm);
        if (doc == NULL) {
            snprintf(u->error, sizeof u->error,
                     "configmap %s/%s: no key \"%s\" (and not exactly one key)", cm->meta.ns,
                     cm->meta.name, CTL_POLICY_DATA_KEY);
            u->outcome = CTL_POLICY_INVALID;
            return;
        }
        if (ds_policy_parse(doc, strlen(doc), &parsed, &err) != 0) {
            snprintf(u->error, sizeof u->error, "configmap %.63s/%.100s: %.300s", cm->meta.ns,
                     cm->meta.name, err.msg);
            u->outcome = CTL_POLICY_INVALID;
            return;
        }
    }
    ps->policy = parsed;
    ps->generation++;
    ps->from_configmap = true;
    snprintf(ps->source, sizeof ps->source, "configmap %s/%s", cm->meta.ns, cm->meta.name);
    u->outcome = CTL_POLICY_UPDATED;
}
