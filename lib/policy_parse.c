/* policy_parse.c: ds_policy_parse, the strict reader of SchedulingPolicy YAML documents.
 *
 * The document is loaded into a bounded tree (yaml_tree.h), then walked against the schema
 * (policy_schema.h): unknown fields, duplicate keys, wrong types and out-of-range values are
 * rejected with the field path. Absent fields keep ds_policy_defaults(). The result is finally
 * checked by ds_policy_validate and copied to the caller only when everything is valid.
 * ds_policy_parse stops at the first error; ds_policy_parse_all walks on and reports every bad
 * field (then, when every field is good, every broken rule across fields), with the same checks
 * and messages.
 *
 * Typing rules: numbers, integers and booleans must be written plain (unquoted); strings may be
 * plain or quoted, but a plain scalar that YAML reads as a boolean, a number or null ("yes", "on",
 * "5", "~") is refused where a string is expected, so that "no" never silently means false. A
 * mapping written as null counts as empty; lists and scalar fields need a value. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "policy_schema.h"
#include "strquote.h"
#include "timefmt.h"
#include "yaml_tree.h"

#define PATH_MAX_LEN 384
#define SHOW_MAX     64 /* bytes of a bad value shown in a message */

static const ds_yaml_limits policy_limits = {
    .max_bytes = DS_POLICY_MAX_BYTES,
    .max_depth = 16,
    .max_nodes = 4096,
    .max_scalar = 1024,
};

static const char DURATION_WANT[] = "a duration with a unit, such as \"10s\" or \"5m\"";

/* How a bad value is shown: its quoted text, "null", "a mapping" or "a list". */
static const char *describe(const ds_yaml_node *v, char *buf, size_t bufsize)
{
    if (v->kind == DS_YAML_MAPPING)
        return "a mapping";
    if (v->kind == DS_YAML_SEQUENCE)
        return "a list";
    if (ds_yaml_is_null(v))
        return "null";
    return ds_quote(v->text, SHOW_MAX, buf, bufsize);
}

/* A plain scalar's text for "(got ...)", cut short when long. */
static const char *shown(const ds_yaml_node *v, char *buf, size_t bufsize)
{
    snprintf(buf, bufsize, "%.*s%s", SHOW_MAX, v->text, v->len > SHOW_MAX ? "..." : "");
    return buf;
}

static int type_error(const char *path, const char *want, const ds_yaml_node *v, ds_err *err)
{
    char q[DS_QUOTE_BUF];
    return ds_err_set(err, "%s: must be %s (got %s)", path, want, describe(v, q, sizeof q));
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* YAML 1.2 core-schema float: [-+]? ( . [0-9]+ | [0-9]+ ( . [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
static bool is_decimal_number(const char *s)
{
    size_t i = 0;
    if (s[i] == '-' || s[i] == '+')
        i++;
    size_t int_digits = 0, frac_digits = 0;
    while (is_digit(s[i])) {
        i++;
        int_digits++;
    }
    if (s[i] == '.') {
        i++;
        while (is_digit(s[i])) {
            i++;
            frac_digits++;
        }
    }
    if (int_digits == 0 && frac_digits == 0)
        return false;
    if (s[i] == 'e' || s[i] == 'E') {
        i++;
        if (s[i] == '-' || s[i] == '+')
            i++;
        if (!is_digit(s[i]))
            return false;
        while (is_digit(s[i]))
            i++;
    }
    return s[i] == '\0';
}

/* 0 | -?[1-9][0-9]* (no leading zeros: YAML 1.1 would read them as octal). */
static bool is_decimal_integer(const char *s)
{
    size_t i = 0;
    if (s[i] == '-')
        i++;
    if (s[i] == '0')
        return s[i + 1] == '\0' && i == 0;
    if (!is_digit(s[i]))
        return false;
    while (is_digit(s[i]))
        i++;
    return s[i] == '\0';
}

static bool one_of(const char *s, const char *const *words)
{
    for (size_t i = 0; words[i] != NULL; i++)
        if (strcmp(s, words[i]) == 0)
            return true;
    return false;
}

/* A plain scalar that a YAML 1.1 or 1.2 reader would not take as a string. */
static bool plain_is_not_string(const ds_yaml_node *v)
{
    static const char *const words[] = {
        "y",     "Y",     "yes",   "Yes",   "YES",   "n",     "N",     "no",    "No",
        "NO",    "true",  "True",  "TRUE",  "false", "False", "FALSE", "on",    "On",
        "ON",    "off",   "Off",   "OFF",   ".inf",  ".Inf",  ".INF",  "+.inf", "+.Inf",
        "+.INF", "-.inf", "-.Inf", "-.INF", ".nan",  ".NaN",  ".NAN",  NULL,
    };
    if (!v->plain)
        return false;
    if (ds_yaml_is_null(v) || one_of(v->text, words) || is_decimal_number(v->text))
        return true;
    const char *s = v->text;
    if (s[0] == '-' || s[0] == '+')
        s++;
    /* Hexadecimal, octal and binary integers (YAML 1.1 also allows '_' separators). */
    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'o' && s[1] != 'b') || s[2] == '\0')
        return false;
    for (s += 2; *s != '\0'; s++)
        if (!is_digit(*s) && !(*s >= 'a' && *s <= 'f') && !(*s >= 'A' && *s <= 'F') && *s != '_')
            return false;
    return true;
}

/* The text of a string-valued scalar, or NULL with err set. */
static const char *string_value(const ds_yaml_node *v, const char *path, ds_err *err)
{
    if (v->kind != DS_YAML_SCALAR || ds_yaml_is_null(v)) {
        type_error(path, "a string", v, err);
        return NULL;
    }
    if (plain_is_not_string(v)) {
        char got[SHOW_MAX + 8];
        ds_err_set(err, "%s: must be a string; quote it (got %s)", path, shown(v, got, sizeof got));
        return NULL;
    }
    return v->text;
}

static void *field_ptr(ds_policy *p, const ds_pfield *f)
{
    return (char *)p + f->offset;
}

/* Copy a syntax-checked string into a zeroed buffer of `size` bytes. */
static int store_string(char *dst, size_t size, ds_pf_syntax syn, const char *path,
                        const char *what, const char *s, ds_err *err)
{
    if (ds_pf_check_syntax(syn, path, what, s, err) != 0)
        return -1;
    size_t len = strlen(s);
    if (len >= size)
        return ds_err_set(err, "%s: %smust be at most %zu characters (got %zu)", path, what,
                          size - 1, len);
    memset(dst, 0, size);
    memcpy(dst, s, len);
    return 0;
}

/* A plain decimal number within the field's bounds, into *out. */
static int number_value(const ds_pfield *f, const ds_yaml_node *v, const char *path, double *out,
                        ds_err *err)
{
    if (v->kind != DS_YAML_SCALAR || !v->plain || !is_decimal_number(v->text))
        return type_error(path, "a number", v, err);
    double d = strtod(v->text, NULL);
    char got[SHOW_MAX + 8];
    if (ds_pf_check_range(f, path, d, shown(v, got, sizeof got), err) != 0)
        return -1;
    *out = d;
    return 0;
}

static int parse_number(const ds_pfield *f, const ds_yaml_node *v, const char *path, ds_policy *p,
                        ds_err *err)
{
    return number_value(f, v, path, field_ptr(p, f), err);
}

static int parse_duration(const ds_pfield *f, const ds_yaml_node *v, const char *path, ds_policy *p,
                          ds_err *err)
{
    if (v->kind != DS_YAML_SCALAR || ds_yaml_is_null(v) || v->len > DS_DURATION_MAX_LEN)
        return type_error(path, DURATION_WANT, v, err);
    double s;
    ds_err ignored;
    if (ds_duration_parse(v->text, &s, &ignored) != 0)
        return type_error(path, DURATION_WANT, v, err);
    if (ds_pf_check_range(f, path, s, v->text, err) != 0) /* a valid duration: short, printable */
        return -1;
    *(double *)field_ptr(p, f) = s;
    return 0;
}

static int parse_count(const ds_pfield *f, const ds_yaml_node *v, const char *path, ds_policy *p,
                       ds_err *err)
{
    if (v->kind != DS_YAML_SCALAR || !v->plain || !is_decimal_integer(v->text))
        return type_error(path, "an integer", v, err);
    /* Every bound is far below 2^53, so the double is exact wherever it passes the check. */
    double d = strtod(v->text, NULL);
    char got[SHOW_MAX + 8];
    if (ds_pf_check_range(f, path, d, shown(v, got, sizeof got), err) != 0)
        return -1;
    *(size_t *)field_ptr(p, f) = (size_t)d;
    return 0;
}

static int parse_bool(const ds_pfield *f, const ds_yaml_node *v, const char *path, ds_policy *p,
                      ds_err *err)
{
    bool b;
    if (v->kind == DS_YAML_SCALAR && v->plain && strcmp(v->text, "true") == 0)
        b = true;
    else if (v->kind == DS_YAML_SCALAR && v->plain && strcmp(v->text, "false") == 0)
        b = false;
    else
        return type_error(path, "true or false", v, err);
    *(bool *)field_ptr(p, f) = b;
    return 0;
}

static int parse_slack_term(const ds_pfield *f, const ds_yaml_node *v, const char *path,
                            ds_policy *p, ds_err *err)
{
    ds_slack_term t;
    if (v->kind == DS_YAML_SCALAR && strcmp(v->text, "urgency") == 0)
        t = DS_SLACK_URGENCY;
    else if (v->kind == DS_YAML_SCALAR && strcmp(v->text, "literal") == 0)
        t = DS_SLACK_LITERAL;
    else
        return type_error(path, "one of urgency, literal", v, err);
    *(ds_slack_term *)field_ptr(p, f) = t;
    return 0;
}

static int parse_job_order(const ds_pfield *f, const ds_yaml_node *v, const char *path,
                           ds_policy *p, ds_err *err)
{
    ds_job_order o;
    if (v->kind != DS_YAML_SCALAR || ds_job_order_parse(v->text, &o) != 0)
        return type_error(path, "one of dsp, leastSlack, shortestRemaining", v, err);
    *(ds_job_order *)field_ptr(p, f) = o;
    return 0;
}

static int parse_within_order(const ds_pfield *f, const ds_yaml_node *v, const char *path,
                              ds_policy *p, ds_err *err)
{
    ds_within_order o;
    if (v->kind != DS_YAML_SCALAR || ds_within_order_parse(v->text, &o) != 0)
        return type_error(path, "one of dsp, criticalPath", v, err);
    *(ds_within_order *)field_ptr(p, f) = o;
    return 0;
}

static int parse_gap_norm(const ds_pfield *f, const ds_yaml_node *v, const char *path, ds_policy *p,
                          ds_err *err)
{
    ds_gap_norm n;
    if (v->kind != DS_YAML_SCALAR || ds_gap_norm_parse(v->text, &n) != 0)
        return type_error(path, "one of ratio, paper", v, err);
    *(ds_gap_norm *)field_ptr(p, f) = n;
    return 0;
}

static int parse_admit_mode(const ds_pfield *f, const ds_yaml_node *v, const char *path,
                            ds_policy *p, ds_err *err)
{
    ds_admit_mode m;
    if (v->kind != DS_YAML_SCALAR || ds_admit_mode_parse(v->text, &m) != 0)
        return type_error(path, "one of capacity, all", v, err);
    *(ds_admit_mode *)field_ptr(p, f) = m;
    return 0;
}

static int parse_string(const ds_pfield *f, const ds_yaml_node *v, const char *path, ds_policy *p,
                        ds_err *err)
{
    const char *s = string_value(v, path, err);
    if (s == NULL)
        return -1;
    return store_string(field_ptr(p, f), f->size, f->syntax, path, "", s, err);
}

static int parse_name_list(const ds_pfield *f, const ds_yaml_node *v, const char *path,
                           ds_policy *p, ds_err *err)
{
    if (v->kind != DS_YAML_SEQUENCE)
        return type_error(path, "a list", v, err);
    if (v->n > DS_POLICY_MAX_LIST)
        return ds_err_set(err, "%s: must have at most %d entries (got %zu)", path,
                          DS_POLICY_MAX_LIST, v->n);
    ds_name_list *l = field_ptr(p, f);
    memset(l, 0, sizeof *l);
    for (size_t i = 0; i < v->n; i++) {
        char ipath[PATH_MAX_LEN];
        ds_pf_index(ipath, sizeof ipath, path, i);
        const char *s = string_value(v->child[i], ipath, err);
        if (s == NULL)
            return -1;
        if (store_string(l->name[i], sizeof l->name[i], f->syntax, ipath, "", s, err) != 0)
            return -1;
        for (size_t j = 0; j < i; j++) {
            if (strcmp(l->name[j], s) == 0) {
                char q[DS_QUOTE_BUF];
                return ds_err_set(err, "%s: duplicate entry (got %s)", ipath,
                                  ds_quote(s, SHOW_MAX, q, sizeof q));
            }
        }
        l->n = i + 1;
    }
    return 0;
}

/* One entry of a mapping field (key i of the mapping; its value val), stored into dst. */
typedef int (*map_entry_fn)(const ds_pfield *f, void *dst, size_t i, const char *key,
                            const ds_yaml_node *val, const char *path, const char *epath,
                            ds_err *err);

/* A mapping field (size bytes at its offset) of at most `max` entries with unique keys, each
 * stored by `entry`; null clears it. */
static int parse_map(const ds_pfield *f, const ds_yaml_node *v, const char *path, ds_policy *p,
                     size_t size, size_t max, map_entry_fn entry, ds_err *err)
{
    void *dst = field_ptr(p, f);
    if (ds_yaml_is_null(v)) {
        memset(dst, 0, size);
        return 0;
    }
    if (v->kind != DS_YAML_MAPPING)
        return type_error(path, "a mapping", v, err);
    if (v->n > max)
        return ds_err_set(err, "%s: must have at most %zu entries (got %zu)", path, max, v->n);
    memset(dst, 0, size);
    for (size_t i = 0; i < v->n; i++) {
        const char *key = v->child[2 * i]->text;
        char epath[PATH_MAX_LEN];
        ds_pf_entry(epath, sizeof epath, path, key);
        for (size_t j = 0; j < i; j++)
            if (strcmp(v->child[2 * j]->text, key) == 0)
                return ds_err_set(err, "%s: duplicate key", epath);
        if (entry(f, dst, i, key, v->child[2 * i + 1], path, epath, err) != 0)
            return -1;
    }
    return 0;
}

/* matchLabels: label keys to label values. */
static int label_entry(const ds_pfield *f, void *dst, size_t i, const char *key,
                       const ds_yaml_node *val, const char *path, const char *epath, ds_err *err)
{
    (void)f;
    ds_label_selector *sel = dst;
    if (store_string(sel->key[i], sizeof sel->key[i], DS_SYN_QUALIFIED, path, "key ", key, err) !=
        0)
        return -1;
    const char *s = string_value(val, epath, err);
    if (s == NULL || store_string(sel->value[i], sizeof sel->value[i], DS_SYN_LABEL_VALUE, epath,
                                  "", s, err) != 0)
        return -1;
    sel->n = i + 1;
    return 0;
}

/* spec.fairness.weights and caps: tenant names to numbers within the field's bounds. */
static int tenant_entry(const ds_pfield *f, void *dst, size_t i, const char *key,
                        const ds_yaml_node *val, const char *path, const char *epath, ds_err *err)
{
    ds_tenant_map *m = dst;
    if (store_string(m->name[i], sizeof m->name[i], DS_SYN_TENANT, path, "key ", key, err) != 0 ||
        number_value(f, val, epath, &m->value[i], err) != 0)
        return -1;
    m->n = i + 1;
    return 0;
}

static int parse_const(const ds_pfield *f, const ds_yaml_node *v, const char *path, ds_err *err)
{
    if (v->kind == DS_YAML_SCALAR && strcmp(v->text, f->text) == 0)
        return 0;
    return type_error(path, f->text, v, err);
}

static int walk_section(const ds_pfield *fields, const ds_yaml_node *m, const char *path,
                        ds_policy *p, ds_err *err, ds_errs *all);

static int parse_field(const ds_pfield *f, const ds_yaml_node *v, const char *path, ds_policy *p,
                       ds_err *err, ds_errs *all)
{
    switch (f->type) {
    case DS_PF_SECTION:
        return walk_section(f->sub, v, path, p, err, all);
    case DS_PF_CONST:
        return parse_const(f, v, path, err);
    case DS_PF_NUMBER:
        return parse_number(f, v, path, p, err);
    case DS_PF_DURATION:
        return parse_duration(f, v, path, p, err);
    case DS_PF_COUNT:
        return parse_count(f, v, path, p, err);
    case DS_PF_BOOL:
        return parse_bool(f, v, path, p, err);
    case DS_PF_SLACK_TERM:
        return parse_slack_term(f, v, path, p, err);
    case DS_PF_JOB_ORDER:
        return parse_job_order(f, v, path, p, err);
    case DS_PF_WITHIN_ORDER:
        return parse_within_order(f, v, path, p, err);
    case DS_PF_GAP_NORM:
        return parse_gap_norm(f, v, path, p, err);
    case DS_PF_ADMIT_MODE:
        return parse_admit_mode(f, v, path, p, err);
    case DS_PF_STRING:
        return parse_string(f, v, path, p, err);
    case DS_PF_NAME_LIST:
        return parse_name_list(f, v, path, p, err);
    case DS_PF_LABELS:
        return parse_map(f, v, path, p, sizeof(ds_label_selector), DS_POLICY_MAX_LABELS,
                         label_entry, err);
    case DS_PF_TENANT_MAP:
        return parse_map(f, v, path, p, sizeof(ds_tenant_map), DS_FAIR_MAX_TENANTS, tenant_entry,
                         err);
    }
    return ds_err_set(err, "%s: unsupported field type", path);
}

/* Path of a key in a mapping: ".key" for ordinary keys, ["key"] for anything unusual. */
static void key_path(char *buf, size_t bufsize, const char *parent, const char *key)
{
    bool simple = key[0] != '\0' && strlen(key) <= SHOW_MAX;
    for (const char *c = key; simple && *c != '\0'; c++)
        simple = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || is_digit(*c) ||
                 *c == '_' || *c == '-' || *c == '.' || *c == '/';
    if (simple)
        ds_pf_join(buf, bufsize, parent, key);
    else
        ds_pf_entry(buf, bufsize, parent, key);
}

/* The first required field under a missing one, for "metadata.name: required". */
static int missing_error(const ds_pfield *f, const char *parent, ds_err *err)
{
    char path[PATH_MAX_LEN];
    ds_pf_join(path, sizeof path, parent, f->name);
    if (f->type == DS_PF_SECTION)
        for (const ds_pfield *s = f->sub; s->name != NULL; s++)
            if (s->flags & DS_PF_REQUIRED)
                return missing_error(s, path, err);
    return ds_err_set(err, "%s: required", path);
}

/* The fields of mapping m. Without `all`, -1 at the first error (in err). With it, a bad field
 * (unknown, duplicate, of a bad value, missing) is kept there and the walk goes on: -1 only for an
 * error not kept (m is not a mapping), which the caller keeps. */
static int walk_section(const ds_pfield *fields, const ds_yaml_node *m, const char *path,
                        ds_policy *p, ds_err *err, ds_errs *all)
{
    bool is_null = ds_yaml_is_null(m);
    if (!is_null && m->kind != DS_YAML_MAPPING)
        return type_error(path, "a mapping", m, err);
    size_t nfields = 0;
    while (fields[nfields].name != NULL)
        nfields++;
    bool seen[32] = {false};
    if (nfields > sizeof seen / sizeof seen[0])
        return ds_err_set(err, "%s: schema table too large", path);
    for (size_t i = 0; !is_null && i < m->n; i++) {
        const char *key = m->child[2 * i]->text;
        char kpath[PATH_MAX_LEN];
        key_path(kpath, sizeof kpath, path, key);
        size_t k = 0;
        while (k < nfields && strcmp(fields[k].name, key) != 0)
            k++;
        int rc;
        if (k == nfields) {
            rc = ds_err_set(err, "%s: unknown field", kpath);
        } else if (seen[k]) {
            rc = ds_err_set(err, "%s: duplicate key", kpath);
        } else {
            seen[k] = true;
            rc = parse_field(&fields[k], m->child[2 * i + 1], kpath, p, err, all);
        }
        if (rc != 0 && ds_errs_keep(all, err) != 0)
            return -1;
    }
    for (size_t k = 0; k < nfields; k++)
        if ((fields[k].flags & DS_PF_REQUIRED) && !seen[k] &&
            missing_error(&fields[k], path, err) != 0 && ds_errs_keep(all, err) != 0)
            return -1;
    return 0;
}

/* apiVersion and kind first, so that a document of another kind is named as such rather than
 * reported for its first unknown field. */
static int check_identity(const ds_pfield *root, const ds_yaml_node *doc, ds_err *err)
{
    for (const ds_pfield *f = root; f->name != NULL; f++) {
        if (f->type != DS_PF_CONST)
            continue;
        const ds_yaml_node *v = ds_yaml_get(doc, f->name);
        if (v == NULL)
            return ds_err_set(err, "%s: required", f->name);
        if (parse_const(f, v, f->name, err) != 0)
            return -1;
    }
    return 0;
}

/* ds_policy_parse, and with `all` ds_policy_parse_all: 0 when valid; 1 when the errors are kept
 * in all; -1 with err set for an error not kept. */
static int parse(const char *yaml, size_t len, ds_policy *out, ds_err *err, ds_errs *all)
{
    if (out == NULL)
        return ds_err_set(err, "policy: no output given");
    if (yaml == NULL)
        return ds_err_set(err, "policy document: missing");
    if (len > DS_POLICY_MAX_BYTES)
        return ds_err_set(err, "policy document: must be at most %d bytes (got %zu)",
                          DS_POLICY_MAX_BYTES, len);
    ds_yaml_node *doc = NULL;
    if (ds_yaml_load(yaml, len, &policy_limits, &doc, err) != 0)
        return -1;
    int rc = -1;
    size_t kept = all != NULL ? all->n : 0;
    ds_policy *p = malloc(sizeof *p);
    if (p == NULL) {
        ds_err_set(err, "policy: out of memory");
        goto done;
    }
    ds_policy_defaults(p);
    const ds_pfield *root = ds_policy_schema();
    if (doc->kind != DS_YAML_MAPPING) {
        type_error("policy document", "a mapping", doc, err);
        goto done;
    }
    if (check_identity(root, doc, err) != 0 || walk_section(root, doc, "", p, err, all) != 0)
        goto done;
    /* A field that failed kept its default: the rules across fields would judge values the
     * document does not hold. */
    if (all != NULL && all->n > kept) {
        rc = 1;
        goto done;
    }
    /* Fields that mirror others (see policy.h). */
    p->preemption.epsilon_s = p->urgent_threshold_s;
    p->preemption.max_evictions = p->max_evictions_per_minute;
    if (ds_policy_check(p, err, all) != 0)
        goto done;
    if (all != NULL && all->n > kept) {
        rc = 1;
        goto done;
    }
    *out = *p;
    rc = 0;
done:
    free(p);
    ds_yaml_free(doc);
    return rc;
}

int ds_policy_parse(const char *yaml, size_t len, ds_policy *out, ds_err *err)
{
    return parse(yaml, len, out, err, NULL) == 0 ? 0 : -1;
}

int ds_policy_parse_all(const char *yaml, size_t len, ds_policy *out, ds_errs *errs)
{
    if (errs == NULL)
        return -1;
    errs->n = 0;
    ds_err e = {{0}};
    int rc = parse(yaml, len, out, &e, errs);
    if (rc < 0)
        ds_errs_keep(errs, &e);
    return rc == 0 ? 0 : -1;
}
