/* evictor.c: the evictor filter of the SchedulingPolicy (see evictor.h). */
#include "evictor.h"

#include <string.h>

bool ds_labels_match(const ds_label_selector *sel, ds_labels labels)
{
    if (sel == NULL || sel->n == 0)
        return true;
    if (labels.get == NULL)
        return false;
    size_t m = sel->n < DS_POLICY_MAX_LABELS ? sel->n : DS_POLICY_MAX_LABELS;
    for (size_t i = 0; i < m; i++) {
        const char *v = labels.get(labels.ctx, sel->key[i]);
        if (v == NULL || strncmp(v, sel->value[i], sizeof sel->value[i]) != 0)
            return false;
    }
    return true;
}

ds_evict_reason ds_evictor_filter(const ds_policy *p, const ds_evict_candidate *c)
{
    if (c->ns != NULL && ds_name_list_contains(&p->protected_namespaces, c->ns))
        return DS_EVICT_PROTECTED_NS;
    if (c->priority_class != NULL && c->priority_class[0] != '\0' &&
        ds_name_list_contains(&p->protected_priority_classes, c->priority_class))
        return DS_EVICT_PROTECTED_CLASS;
    if (p->opt_in_namespace_selector.n > 0) {
        if (!c->ns_known)
            return DS_EVICT_NS_UNKNOWN;
        if (!ds_labels_match(&p->opt_in_namespace_selector, c->ns_labels))
            return DS_EVICT_NS_NOT_OPTED_IN;
    }
    if (!ds_labels_match(&p->opt_in_selector, c->labels))
        return DS_EVICT_NOT_OPTED_IN;
    return DS_EVICT_OK;
}

const char *ds_evict_reason_name(ds_evict_reason r)
{
    switch (r) {
    case DS_EVICT_OK:
        return "ok";
    case DS_EVICT_PROTECTED_NS:
        return "protected-namespace";
    case DS_EVICT_PROTECTED_CLASS:
        return "protected-priority-class";
    case DS_EVICT_NS_NOT_OPTED_IN:
        return "namespace-not-opted-in";
    case DS_EVICT_NS_UNKNOWN:
        return "namespace-unknown";
    case DS_EVICT_NOT_OPTED_IN:
        return "not-opted-in";
    }
    return "unknown";
}
