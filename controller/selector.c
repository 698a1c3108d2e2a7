/* selector.c: Kubernetes label selectors (see selector.h). */
#include "selector.h"

#include <stdlib.h>
#include <string.h>

#include "strquote.h"

static int add_req(ctl_selector *s, const char *key, ctl_sel_op op, ds_err *err)
{
    if (s->n >= CTL_SELECTOR_MAX_REQS)
        return ds_err_set(err, "selector: at most %d requirements (got more)",
                          CTL_SELECTOR_MAX_REQS);
    ctl_sel_req *r = &s->reqs[s->n];
    memset(r, 0, sizeof *r);
    r->key = strdup(key);
    if (r->key == NULL)
        return ds_err_set(err, "selector: out of memory");
    r->op = op;
    s->n++;
    return 0;
}

static int add_value(ctl_sel_req *r, const char *v, ds_err *err)
{
    if (r->n_values >= CTL_SELECTOR_MAX_VALUES)
        return ds_err_set(err, "selector: at most %d values per requirement",
                          CTL_SELECTOR_MAX_VALUES);
    if (r->values == NULL) {
        r->values = calloc(CTL_SELECTOR_MAX_VALUES, sizeof *r->values);
        if (r->values == NULL)
            return ds_err_set(err, "selector: out of memory");
    }
    r->values[r->n_values] = strdup(v);
    if (r->values[r->n_values] == NULL)
        return ds_err_set(err, "selector: out of memory");
    r->n_values++;
    return 0;
}

static int parse_op(const char *s, ctl_sel_op *op)
{
    static const struct {
        const char *name;
        ctl_sel_op op;
    } ops[] = {{"In", CTL_SEL_IN},
               {"NotIn", CTL_SEL_NOT_IN},
               {"Exists", CTL_SEL_EXISTS},
               {"DoesNotExist", CTL_SEL_DOES_NOT_EXIST}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(s, ops[i].name) == 0) {
            *op = ops[i].op;
            return 0;
        }
    return -1;
}

static int parse_expressions(const json_t *exprs, ctl_selector *s, ds_err *err)
{
    char q[DS_QUOTE_BUF];
    if (!json_is_array(exprs))
        return ds_err_set(err, "matchExpressions: must be a list");
    size_t i;
    const json_t *e;
    json_array_foreach(exprs, i, e)
    {
        const char *key = json_string_value(json_object_get(e, "key"));
        const char *opname = json_string_value(json_object_get(e, "operator"));
        if (key == NULL)
            return ds_err_set(err, "matchExpressions[%zu].key: must be a string", i);
        ctl_sel_op op;
        if (opname == NULL || parse_op(opname, &op) != 0)
            return ds_err_set(err, "matchExpressions[%zu].operator: unknown operator (got %s)", i,
                              ds_quote(opname, 64, q, sizeof q));
        if (add_req(s, key, op, err))
            return -1;
        const json_t *vals = json_object_get(e, "values");
        size_t nv = json_is_array(vals) ? json_array_size(vals) : 0;
        if (vals != NULL && !json_is_null(vals) && !json_is_array(vals))
            return ds_err_set(err, "matchExpressions[%zu].values: must be a list", i);
        if ((op == CTL_SEL_IN || op == CTL_SEL_NOT_IN) && nv == 0)
            return ds_err_set(err, "matchExpressions[%zu].values: must not be empty for %s", i,
                              opname);
        if ((op == CTL_SEL_EXISTS || op == CTL_SEL_DOES_NOT_EXIST) && nv != 0)
            return ds_err_set(err, "matchExpressions[%zu].values: must be empty for %s", i,
                              opname);
        size_t j;
        const json_t *v;
        json_array_foreach(vals, j, v)
        {
            if (!json_is_string(v))
                return ds_err_set(err, "matchExpressions[%zu].values[%zu]: must be a string", i,
                                  j);
            if (add_value(&s->reqs[s->n - 1], json_string_value(v), err))
                return -1;
        }
    }
    return 0;
}

int ctl_selector_parse(const json_t *sel, ctl_selector *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    if (!json_is_object(sel))
        return ds_err_set(err, "selector: must be an object");
    out->reqs = calloc(CTL_SELECTOR_MAX_REQS, sizeof *out->reqs);
    if (out->reqs == NULL)
        return ds_err_set(err, "selector: out of memory");
    const json_t *ml = json_object_get(sel, "matchLabels");
    if (ml != NULL && !json_is_null(ml)) {
        if (!json_is_object(ml)) {
            ctl_selector_free(out);
            return ds_err_set(err, "matchLabels: must be an object");
        }
        const char *k;
        const json_t *v;
        json_object_foreach((json_t *)ml, k, v)
        {
            if (!json_is_string(v)) {
                ctl_selector_free(out);
                return ds_err_set(err, "matchLabels.%s: must be a string", k);
            }
            if (add_req(out, k, CTL_SEL_IN, err) ||
                add_value(&out->reqs[out->n - 1], json_string_value(v), err)) {
                ctl_selector_free(out);
                return -1;
            }
        }
    }
    const json_t *me = json_object_get(sel, "matchExpressions");
    if (me != NULL && !json_is_null(me) && parse_expressions(me, out, err)) {
        ctl_selector_free(out);
        return -1;
    }
    return 0;
}

void ctl_selector_free(ctl_selector *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; s->reqs != NULL && i < s->n; i++) {
        free(s->reqs[i].key);
        for (size_t j = 0; j < s->reqs[i].n_values; j++)
            free(s->reqs[i].values[j]);
        free(s->reqs[i].values);
    }
    free(s->reqs);
    s->reqs = NULL;
    s->n = 0;
}

static bool has_value(const ctl_sel_req *r, const char *v)
{
    for (size_t i = 0; i < r->n_values; i++)
        if (strcmp(r->values[i], v) == 0)
            return true;
    return false;
}

bool ctl_selector_matches(const ctl_selector *s, const ctl_kv *labels, size_t n_labels)
{
    for (size_t i = 0; i < s->n; i++) {
        const ctl_sel_req *r = &s->reqs[i];
        const char *v = ctl_kv_get(labels, n_labels, r->key);
        switch (r->op) {
        case CTL_SEL_IN:
            if (v == NULL || !has_value(r, v))
                return false;
            break;
        case CTL_SEL_NOT_IN:
            if (v != NULL && has_value(r, v))
                return false;
            break;
        case CTL_SEL_EXISTS:
            if (v == NULL)
                return false;
            break;
        case CTL_SEL_DOES_NOT_EXIST:
            if (v != NULL)
                return false;
            break;
        }
    }
    return true;
}
