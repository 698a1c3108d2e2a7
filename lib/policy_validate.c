/* policy_validate.c: ds_policy_validate, the checks a ds_policy must pass whether it was parsed
 * or built in code: every field within the bounds of the schema (policy_schema.c), strings
 * terminated and well-formed, lists within their limits and without duplicates, and the
 * cross-field rules (weights not all zero, theta summing to 1, mirrored fields agreeing, per-node
 * and per-namespace eviction caps within the global ones). Messages use the YAML field paths.
 * ds_policy_check runs them all, stopping at the first failure or, for ds_policy_parse_all,
 * keeping each one and going on. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "policy_schema.h"
#include "strquote.h"
#include "timefmt.h"

#define PATH_MAX_LEN 384

static const void *field_ptr(const ds_policy *p, const ds_pfield *f)
{
    return (const char *)p + f->offset;
}

/* A fixed buffer must hold a NUL-terminated string. */
static int check_terminated(const char *s, size_t size, const char *path, const char *what,
                            ds_err *err)
{
    if (strnlen(s, size) == size)
        return ds_err_set(err, "%s: %smust be at most %zu characters (not NUL-terminated)", path,
                          what, size - 1);
    return 0;
}

static int check_name_list(const ds_pfield *f, const ds_name_list *l, const char *path, ds_err *err)
{
    if (l->n > DS_POLICY_MAX_LIST)
        return ds_err_set(err, "%s: must have at most %d entries (got %zu)", path,
                          DS_POLICY_MAX_LIST, l->n);
    for (size_t i = 0; i < l->n; i++) {
        char ipath[PATH_MAX_LEN];
        ds_pf_index(ipath, sizeof ipath, path, i);
        if (check_terminated(l->name[i], sizeof l->name[i], ipath, "", err) != 0 ||
            ds_pf_check_syntax(f->syntax, ipath, "", l->name[i], err) != 0)
            return -1;
        for (size_t j = 0; j < i; j++) {
            if (strcmp(l->name[j], l->name[i]) == 0) {
                char q[DS_QUOTE_BUF];
                return ds_err_set(err, "%s: duplicate entry (got %s)", ipath,
                                  ds_quote(l->name[i], 64, q, sizeof q));
            }
        }
    }
    return 0;
}

/* The keys of a mapping field: at most max, each NUL-terminated, of syntax syn, unique. keys: n
 * buffers of keysize bytes, one after the other. */
static int check_keys(const char *keys, size_t keysize, size_t n, size_t max, ds_pf_syntax syn,
                      const char *path, ds_err *err)
{
    if (n > max)
        return ds_err_set(err, "%s: must have at most %zu entries (got %zu)", path, max, n);
    for (size_t i = 0; i < n; i++) {
        const char *key = keys + i * keysize;
        if (check_terminated(key, keysize, path, "key ", err) != 0 ||
            ds_pf_check_syntax(syn, path, "key ", key, err) != 0)
            return -1;
        char epath[PATH_MAX_LEN];
        ds_pf_entry(epath, sizeof epath, path, key);
        for (size_t j = 0; j < i; j++)
            if (strcmp(keys + j * keysize, key) == 0)
                return ds_err_set(err, "%s: duplicate key", epath);
    }
    return 0;
}

static int check_labels(const ds_label_selector *sel, const char *path, ds_err *err)
{
    if (check_keys(sel->key[0], sizeof sel->key[0], sel->n, DS_POLICY_MAX_LABELS, DS_SYN_QUALIFIED,
                   path, err) != 0)
        return -1;
    for (size_t i = 0; i < sel->n; i++) {
        char epath[PATH_MAX_LEN];
        ds_pf_entry(epath, sizeof epath, path, sel->key[i]);
        if (check_terminated(sel->value[i], sizeof sel->value[i], epath, "", err) != 0 ||
            ds_pf_check_syntax(DS_SYN_LABEL_VALUE, epath, "", sel->value[i], err) != 0)
            return -1;
    }
    return 0;
}

static int check_tenant_map(const ds_pfield *f, const ds_tenant_map *m, const char *path,
                            ds_err *err)
{
    if (check_keys(m->name[0], sizeof m->name[0], m->n, DS_FAIR_MAX_TENANTS, DS_SYN_TENANT, path,
                   err) != 0)
        return -1;
    for (size_t i = 0; i < m->n; i++) {
        char epath[PATH_MAX_LEN], got[64];
        ds_pf_entry(epath, sizeof epath, path, m->name[i]);
        snprintf(got, sizeof got, "%g", m->value[i]);
        if (ds_pf_check_range(f, epath, m->value[i], got, err) != 0)
            return -1;
    }
    return 0;
}

static int check_field(const ds_policy *p, const ds_pfield *f, const char *parent, ds_err *err,
                       ds_errs *all);

/* Every field of a table; with `all`, a field that fails is kept there and the next one checked. */
static int check_fields(const ds_policy *p, const ds_pfield *fields, const char *parent,
                        ds_err *err, ds_errs *all)
{
    for (const ds_pfield *f = fields; f->name != NULL; f++)
        if (check_field(p, f, parent, err, all) != 0 && ds_errs_keep(all, err) != 0)
            return -1;
    return 0;
}

static int check_field(const ds_policy *p, const ds_pfield *f, const char *parent, ds_err *err,
                       ds_errs *all)
{
    char path[PATH_MAX_LEN], got[64];
    ds_pf_join(path, sizeof path, parent, f->name);
    const void *at = field_ptr(p, f);
    switch (f->type) {
    case DS_PF_SECTION:
        if (check_fields(p, f->sub, path, err, all) != 0)
            return -1;
        break;
    case DS_PF_CONST:
    case DS_PF_BOOL:
        break;
    case DS_PF_NUMBER: {
        double v = *(const double *)at;
        snprintf(got, sizeof got, "%g", v);
        if (ds_pf_check_range(f, path, v, got, err) != 0)
            return -1;
        break;
    }
    case DS_PF_DURATION: {
        double v = *(const double *)at;
        ds_duration_format(v, got, sizeof got);
        if (ds_pf_check_range(f, path, v, got, err) != 0)
            return -1;
        break;
    }
    case DS_PF_COUNT: {
        size_t v = *(const size_t *)at;
        snprintf(got, sizeof got, "%zu", v);
        if (ds_pf_check_range(f, path, (double)v, got, err) != 0)
            return -1;
        break;
    }
    case DS_PF_SLACK_TERM: {
        ds_slack_term t = *(const ds_slack_term *)at;
        if (t != DS_SLACK_URGENCY && t != DS_SLACK_LITERAL)
            return ds_err_set(err, "%s: must be one of urgency, literal (got %d)", path, (int)t);
        break;
    }
    case DS_PF_JOB_ORDER: {
        ds_job_order o = *(const ds_job_order *)at;
        if (o != DS_ORDER_DSP && o != DS_ORDER_LEAST_SLACK && o != DS_ORDER_SHORTEST_REMAINING)
            return ds_err_set(err, "%s: must be one of dsp, leastSlack, shortestRemaining (got %d)",
                              path, (int)o);
        break;
    }
    case DS_PF_WITHIN_ORDER: {
        ds_within_order o = *(const ds_within_order *)at;
        if (o != DS_WITHIN_DSP && o != DS_WITHIN_CRITICAL_PATH)
            return ds_err_set(err, "%s: must be one of dsp, criticalPath (got %d)", path, (int)o);
        break;
    }
    case DS_PF_GAP_NORM: {
        ds_gap_norm n = *(const ds_gap_norm *)at;
        if (n != DS_NORM_RATIO && n != DS_NORM_PAPER)
            return ds_err_set(err, "%s: must be one of ratio, paper (got %d)", path, (int)n);
        break;
    }
    case DS_PF_ADMIT_MODE: {
        ds_admit_mode m = *(const ds_admit_mode *)at;
        if (m != DS_ADMIT_CAPACITY && m != DS_ADMIT_ALL)
            return ds_err_set(err, "%s: must be one of capacity, all (got %d)", path, (int)m);
        break;
    }
    case DS_PF_STRING:
        if (check_terminated(at, f->size, path, "", err) != 0 ||
            ds_pf_check_syntax(f->syntax, path, "", at, err) != 0)
            return -1;
        break;
    case DS_PF_NAME_LIST:
        if (check_name_list(f, at, path, err) != 0)
            return -1;
        break;
    case DS_PF_LABELS:
        if (check_labels(at, path, err) != 0)
            return -1;
        break;
    case DS_PF_TENANT_MAP:
        if (check_tenant_map(f, at, path, err) != 0)
            return -1;
        break;
    }
    return 0;
}

/* The rules across fields; with `all`, each broken one is kept there and the next one checked. */
static int check_cross_fields(const ds_policy *p, ds_err *err, ds_errs *all)
{
    const ds_priority_params *pr = &p->priority;
    if (pr->w_remaining == 0.0 && pr->w_waiting == 0.0 && pr->w_slack == 0.0) {
        ds_err_set(err, "spec.priority.weights: must not all be 0");
        if (ds_errs_keep(all, err) != 0)
            return -1;
    }
    const ds_pack_params *pk = &p->packing;
    if (pk->w_complementarity == 0.0 && pk->w_best_fit == 0.0 && pk->w_speed == 0.0) {
        ds_err_set(err, "spec.packing.weights: must not all be 0");
        if (ds_errs_keep(all, err) != 0)
            return -1;
    }
    double theta = p->theta_cpu + p->theta_memory;
    if (fabs(theta - 1.0) > 1e-9) {
        ds_err_set(err, "spec.nodeSpeed.theta: cpu + memory must be 1 (got %g)", theta);
        if (ds_errs_keep(all, err) != 0)
            return -1;
    }
    if (p->preemption.epsilon_s != p->urgent_threshold_s) {
        char want[64], got[64];
        ds_duration_format(p->urgent_threshold_s, want, sizeof want);
        ds_duration_format(p->preemption.epsilon_s, got, sizeof got);
        ds_err_set(err,
                   "preemption.epsilon_s: must equal spec.deadlines.urgentThreshold (%s) "
                   "(got %s)",
                   want, got);
        if (ds_errs_keep(all, err) != 0)
            return -1;
    }
    if (p->preemption.max_victims_per_preemptor > p->max_evictions_per_node) {
        ds_err_set(err,
                   "spec.preemption.maxVictimsPerPreemptor: must be <= "
                   "spec.preemption.maxEvictionsPerNode (%zu) (got %zu)",
                   p->max_evictions_per_node, p->preemption.max_victims_per_preemptor);
        if (ds_errs_keep(all, err) != 0)
            return -1;
    }
    if (p->max_evictions_per_namespace > p->max_evictions_per_minute) {
        ds_err_set(err,
                   "spec.preemption.maxEvictionsPerNamespace: must be <= "
                   "spec.preemption.maxEvictionsPerMinute (%zu) (got %zu)",
                   p->max_evictions_per_minute, p->max_evictions_per_namespace);
        if (ds_errs_keep(all, err) != 0)
            return -1;
    }
    if (p->preemption.max_evictions > p->max_evictions_per_minute) {
        ds_err_set(err,
                   "preemption.max_evictions: must be <= "
                   "spec.preemption.maxEvictionsPerMinute (%zu) (got %zu)",
                   p->max_evictions_per_minute, p->preemption.max_evictions);
        if (ds_errs_keep(all, err) != 0)
            return -1;
    }
    return 0;
}

int ds_policy_check(const ds_policy *p, ds_err *err, ds_errs *all)
{
    if (p == NULL)
        return ds_err_set(err, "policy: missing");
    if (check_fields(p, ds_policy_schema(), "", err, all) != 0)
        return -1;
    return check_cross_fields(p, err, all);
}

int ds_policy_validate(const ds_policy *p, ds_err *err)
{
    return ds_policy_check(p, err, NULL);
}
