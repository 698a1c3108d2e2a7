/* policy_source.c: choosing and hot-reloading the active SchedulingPolicy from the policy
 * ConfigMaps (see policy_source.h). */
#include "policy_source.h"

#include <math.h>
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

/* How a ConfigMap claims policy `name`, best first; CLAIM_NONE when it does not. */
enum { CLAIM_EXACT = 0, CLAIM_PREFIXED, CLAIM_DOCUMENT, CLAIM_NONE };

static int claim_of(const kube_configmap *cm, const char *name, ds_policy *parsed)
{
    if (cm->meta.name == NULL)
        return CLAIM_NONE;
    if (strcmp(cm->meta.name, name) == 0)
        return CLAIM_EXACT;
    if (named(cm, name))
        return CLAIM_PREFIXED;
    ds_err err;
    if (parse_cm(cm, parsed, &err) == 0 && strcmp(parsed->name, name) == 0)
        return CLAIM_DOCUMENT;
    return CLAIM_NONE;
}

/* Does claim (ka, a) come before (kb, b): the better claim, then the older ConfigMap (an unknown
 * creation time last), then the first by name. */
static bool claim_before(int ka, const kube_configmap *a, int kb, const kube_configmap *b)
{
    if (ka != kb)
        return ka < kb;
    double ta = a->meta.creation_ts > 0 ? a->meta.creation_ts : INFINITY;
    double tb = b->meta.creation_ts > 0 ? b->meta.creation_ts : INFINITY;
    if (ta != tb)
        return ta < tb;
    return strcmp(a->meta.name, b->meta.name) < 0;
}

/* Append "ns/name" of a duplicate to the state's list (cut with "and N more" when full). */
static void note_duplicate(kube_policy_state *ps, const kube_configmap *cm, size_t *listed)
{
    char *buf = ps->duplicate_names;
    size_t used = strlen(buf), room = sizeof ps->duplicate_names;
    char one[KUBE_POLICY_SOURCE_MAX];
    kutil_sfmt(one, sizeof one, "%s%s/%s", used > 0 ? ", " : "", or_empty(cm->meta.ns),
               cm->meta.name);
    if (*listed == ps->duplicates && used + strlen(one) + 24 < room) {
        memcpy(buf + used, one, strlen(one) + 1);
        (*listed)++;
    }
    ps->duplicates++;
}

/* The ConfigMap holding policy `name` (see policy_source.h), or NULL; when it claims the name by
 * its document, *parsed holds its policy. Records the duplicates in ps. */
static const kube_configmap *find(kube_policy_state *ps, const kube_configmap *const *cms, size_t n,
                                  const char *name, ds_policy *parsed, bool *have_parsed)
{
    *have_parsed = false;
    const kube_configmap *best = NULL;
    int best_claim = CLAIM_NONE;
    ds_policy cand;
    memset(&cand, 0, sizeof cand); /* compared with memcmp by the caller once copied */
    for (size_t i = 0; i < n; i++) {
        int k = claim_of(cms[i], name, &cand);
        if (k == CLAIM_NONE || (best != NULL && !claim_before(k, cms[i], best_claim, best)))
            continue;
        best = cms[i];
        best_claim = k;
        if (k == CLAIM_DOCUMENT)
            *parsed = cand;
    }
    *have_parsed = best_claim == CLAIM_DOCUMENT;
    ps->duplicates = 0;
    ps->duplicate_names[0] = '\0';
    size_t listed = 0;
    for (size_t i = 0; i < n; i++)
        if (cms[i] != best && claim_of(cms[i], name, &cand) != CLAIM_NONE)
            note_duplicate(ps, cms[i], &listed);
    if (ps->duplicates > listed) {
        size_t used = strlen(ps->duplicate_names);
        kutil_sfmt(ps->duplicate_names + used, sizeof ps->duplicate_names - used, " and %zu more",
                   ps->duplicates - listed);
    }
    return best;
}

void kube_policy_refresh(kube_policy_state *ps, const kube_configmap *const *cms, size_t n,
                         const char *name, kube_policy_update *u)
{
    memset(u, 0, sizeof *u);
    ds_policy parsed;
    memset(&parsed, 0, sizeof parsed); /* compared with memcmp below */
    bool have_parsed;
    size_t old_dups = ps->duplicates;
    char old_names[KUBE_POLICY_SOURCE_MAX];
    memcpy(old_names, ps->duplicate_names, sizeof old_names);
    const kube_configmap *cm = find(ps, cms, n, name, &parsed, &have_parsed);
    u->duplicates_changed =
        old_dups != ps->duplicates || strcmp(old_names, ps->duplicate_names) != 0;
    if (cm != NULL)
        kutil_sfmt(u->chosen, sizeof u->chosen, "%s/%s", or_empty(cm->meta.ns), cm->meta.name);
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

/* The duplicates' warning (see kube_policy_log). */
static void log_duplicates(const char *component, const char *name, const kube_policy_state *ps,
                           const kube_policy_update *u)
{
    if (!u->duplicates_changed)
        return;
    if (ps->duplicates == 0) {
        KLOG_INFO(component, "policy %s: no other ConfigMap claims it any more", name);
        return;
    }
    KLOG_WARN(component,
              "policy %s is claimed by %zu ConfigMaps: using %s (the ConfigMap named %s, else "
              "%s%s, else the oldest whose document is named %s), ignoring %s",
              name, ps->duplicates + 1, u->chosen, name, KUBE_POLICY_CM_PREFIX, name, name,
              ps->duplicate_names);
}

void kube_policy_log(const char *component, const char *name, const kube_policy_state *ps,
                     const kube_policy_update *u)
{
    log_duplicates(component, name, ps, u);
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
