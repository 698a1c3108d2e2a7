/* policy_source.c: choosing and hot-reloading the active SchedulingPolicy from ConfigMaps (see
 * policy_source.h). */
#include "policy_source.h"

#include "protocol.h"

#include <stdio.h>
#include <string.h>

void ext_policy_state_init(ext_policy_state *ps)
{
    memset(ps, 0, sizeof *ps);
    ds_policy_defaults(&ps->policy);
    ps->generation = 1;
    snprintf(ps->source, sizeof ps->source, "built-in defaults");
}

/* The policy document of a ConfigMap: "policy.yaml", else its only key. */
static const kube_kv *document(const kube_configmap *cm)
{
    for (size_t i = 0; i < cm->n_data; i++)
        if (strcmp(cm->data[i].key, EXT_POLICY_DATA_KEY) == 0)
            return &cm->data[i];
    return cm->n_data == 1 ? &cm->data[0] : NULL;
}

static bool named(const kube_configmap *cm, const char *name)
{
    const char *n = cm->meta.name;
    if (n == NULL)
        return false;
    if (strcmp(n, name) == 0)
        return true;
    size_t pl = strlen(EXT_POLICY_CM_PREFIX);
    return strncmp(n, EXT_POLICY_CM_PREFIX, pl) == 0 && strcmp(n + pl, name) == 0;
}

static int parse_cm(const kube_configmap *cm, ds_policy *out, ds_err *err)
{
    const kube_kv *doc = document(cm);
    if (doc == NULL)
        return ds_err_set(err, "data: no \"%s\" key (and not exactly one key to use instead)",
                          EXT_POLICY_DATA_KEY);
    if (ds_policy_parse(doc->value, strlen(doc->value), out, err) != 0) {
        if (strcmp(doc->key, EXT_POLICY_DATA_KEY) == 0)
            ds_err_prefix(err, "data[%s]", doc->key);
        return -1;
    }
    return 0;
}

/* The ConfigMap holding policy `name`: by ConfigMap name first, else by document name. */
static const kube_configmap *find(const kube_configmap *const *cms, size_t n, const char *name,
                                  ds_policy *parsed, bool *have_parsed)
{
    *have_parsed = false;
    const kube_configmap *best = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!named(cms[i], name))
            continue;
        /* Prefer the exact name over the prefixed one. */
        if (best == NULL || strcmp(cms[i]->meta.name, name) == 0)
            best = cms[i];
    }
    if (best != NULL)
        return best;
    for (size_t i = 0; i < n; i++) {
        ds_err err;
        if (parse_cm(cms[i], parsed, &err) == 0 && strcmp(parsed->name, name) == 0) {
            *have_parsed = true;
            return cms[i];
        }
    }
    return NULL;
}

static void copy_str(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src != NULL ? src : "");
}

void ext_policy_refresh(ext_policy_state *ps, const kube_configmap *const *cms, size_t n,
                        const char *name, ext_policy_update *u)
{
    memset(u, 0, sizeof *u);
    ds_policy parsed;
    memset(&parsed, 0, sizeof parsed); /* compared with memcmp below */
    bool have_parsed;
    const kube_configmap *cm = find(cms, n, name, &parsed, &have_parsed);
    if (cm == NULL) {
        if (ps->from_configmap && ps->seen_uid[0] != '\0') {
            u->outcome = EXT_POLICY_GONE;
            ps->seen_uid[0] = '\0';
            ps->seen_rv[0] = '\0';
        }
        return;
    }
    const char *uid = cm->meta.uid != NULL ? cm->meta.uid : "";
    const char *rv = cm->meta.resource_version != NULL ? cm->meta.resource_version : "";
    if (strcmp(uid, ps->seen_uid) == 0 && strcmp(rv, ps->seen_rv) == 0)
        return; /* this version was examined already */
    copy_str(ps->seen_uid, sizeof ps->seen_uid, uid);
    copy_str(ps->seen_rv, sizeof ps->seen_rv, rv);
    u->cm = cm;

    ds_err err;
    if (!have_parsed && parse_cm(cm, &parsed, &err) != 0) {
        u->outcome = EXT_POLICY_INVALID;
        ext_sfmt(u->error, sizeof u->error, "configmap %s/%s: %s",
                 cm->meta.ns != NULL ? cm->meta.ns : "", cm->meta.name, err.msg);
        return;
    }
    bool same = ps->from_configmap && memcmp(&parsed, &ps->policy, sizeof parsed) == 0;
    ps->from_configmap = true;
    snprintf(ps->source, sizeof ps->source, "configmap %s/%s",
             cm->meta.ns != NULL ? cm->meta.ns : "", cm->meta.name);
    if (same)
        return; /* a new resourceVersion with the same content */
    ps->policy = parsed;
    ps->generation++;
    u->outcome = EXT_POLICY_UPDATED;
}
