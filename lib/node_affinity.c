/* node_affinity.c: required node affinity (a Kubernetes NodeSelector) and its matching against a
 * node's labels and name (see node_affinity.h). */
#include "node_affinity.h"

#include <string.h>

#include "k8s_names.h"

static const char *const op_names[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
#define N_OPS (sizeof op_names / sizeof op_names[0])

int ds_nsel_op_parse(const char *s, ds_nsel_op *out)
{
    if (s == NULL)
        return -1;
    for (size_t i = 0; i < N_OPS; i++)
        if (strcmp(s, op_names[i]) == 0) {
            *out = (ds_nsel_op)i;
            return 0;
        }
    return -1;
}

const char *ds_nsel_op_name(ds_nsel_op op)
{
    return (unsigned)op < N_OPS ? op_names[op] : "unknown";
}

int ds_nsel_parse_int(const char *s, int64_t *out)
{
    if (s == NULL)
        return -1;
    bool neg = false;
    if (*s == '+' || *s == '-') {
        neg = *s == '-';
        s++;
    }
    if (*s == '\0')
        return -1;
    /* Accumulate as a negative number: its range includes INT64_MIN. */
    int64_t v = 0;
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        int d = *s - '0';
        if (v < (INT64_MIN + d) / 10)
            return -1;
        v = v * 10 - d;
    }
    if (!neg) {
        if (v == INT64_MIN)
            return -1;
        v = -v;
    }
    *out = v;
    return 0;
}

/* The shape Kubernetes requires of a label requirement: values per operator, integers for Gt/Lt.
 */
static bool expr_shape_ok(const ds_nsel_req *r)
{
    switch (r->op) {
    case DS_NSEL_IN:
    case DS_NSEL_NOT_IN:
        return r->n_values > 0;
    case DS_NSEL_EXISTS:
    case DS_NSEL_DOES_NOT_EXIST:
        return r->n_values == 0;
    case DS_NSEL_GT:
    case DS_NSEL_LT: {
        int64_t x;
        return r->n_values == 1 && ds_nsel_parse_int(r->values[0], &x) == 0;
    }
    }
    return false;
}

/* A field requirement: metadata.name, In or NotIn, exactly one value. */
static bool field_shape_ok(const ds_nsel_req *r)
{
    return r->key != NULL && strcmp(r->key, DS_NSEL_FIELD_NODE_NAME) == 0 &&
           (r->op == DS_NSEL_IN || r->op == DS_NSEL_NOT_IN) && r->n_values == 1;
}

static bool has_value(const ds_nsel_req *r, const char *v)
{
    for (size_t i = 0; i < r->n_values; i++)
        if (strcmp(r->values[i], v) == 0)
            return true;
    return false;
}

static bool expr_matches(const ds_nsel_req *r, const ds_nsel_node *node)
{
    const char *v = node->label != NULL ? node->label(node->ctx, r->key) : NULL;
    switch (r->op) {
    case DS_NSEL_IN:
        return v != NULL && has_value(r, v);
    case DS_NSEL_NOT_IN:
        return v == NULL || !has_value(r, v);
    case DS_NSEL_EXISTS:
        return v != NULL;
    case DS_NSEL_DOES_NOT_EXIST:
        return v == NULL;
    case DS_NSEL_GT:
    case DS_NSEL_LT: {
        int64_t have, want;
        if (v == NULL || ds_nsel_parse_int(v, &have) != 0 ||
            ds_nsel_parse_int(r->values[0], &want) != 0)
            return false;
        return r->op == DS_NSEL_GT ? have > want : have < want;
    }
    }
    return false;
}

bool ds_nsel_term_matches(const ds_nsel_term *term, const ds_nsel_node *node)
{
    if (term == NULL || node == NULL)
        return false;
    if (term->n_match_expressions == 0 && term->n_match_fields == 0)
        return false; /* an empty term selects no node */
    if ((term->n_match_expressions > 0 && term->match_expressions == NULL) ||
        (term->n_match_fields > 0 && term->match_fields == NULL))
        return false;
    /* A malformed requirement anywhere in the term makes the whole term match nothing. */
    for (size_t i = 0; i < term->n_match_expressions; i++) {
        const ds_nsel_req *r = &term->match_expressions[i];
        if (r->key == NULL || (r->n_values > 0 && r->values == NULL) || !expr_shape_ok(r))
            return false;
    }
    for (size_t i = 0; i < term->n_match_fields; i++) {
        const ds_nsel_req *r = &term->match_fields[i];
        if (r->values == NULL || !field_shape_ok(r))
            return false;
    }
    for (size_t i = 0; i < term->n_match_expressions; i++)
        if (!expr_matches(&term->match_expressions[i], node))
            return false;
    const char *name = node->name != NULL ? node->name : "";
    for (size_t i = 0; i < term->n_match_fields; i++) {
        const ds_nsel_req *r = &term->match_fields[i];
        bool same = strcmp(name, r->values[0]) == 0;
        if (r->op == DS_NSEL_IN ? !same : same)
            return false;
    }
    return true;
}

bool ds_node_selector_matches(const ds_node_selector *sel, const ds_nsel_node *node)
{
    if (sel == NULL || node == NULL || (sel->n_terms > 0 && sel->terms == NULL))
        return false;
    for (size_t i = 0; i < sel->n_terms; i++)
        if (ds_nsel_term_matches(&sel->terms[i], node))
            return true;
    return false; /* no term, or none satisfied */
}

/* ---- validation ---- */

static int check_expr(const ds_nsel_req *r, size_t t, size_t i, ds_err *err)
{
    const char *why = ds_check_qualified_name(r->key);
    if (why != NULL)
        return ds_err_set(err,
                          "nodeSelectorTerms[%zu].matchExpressions[%zu].key: %s (got \"%.64s\")", t,
                          i, why, r->key != NULL ? r->key : "");
    if ((unsigned)r->op >= N_OPS)
        return ds_err_set(err,
                          "nodeSelectorTerms[%zu].matchExpressions[%zu].operator: must be In, "
                          "NotIn, Exists, DoesNotExist, Gt or Lt (got %d)",
                          t, i, (int)r->op);
    if (r->n_values > 0 && r->values == NULL)
        return ds_err_set(err, "nodeSelectorTerms[%zu].matchExpressions[%zu].values: missing", t,
                          i);
    const char *op = op_names[r->op];
    switch (r->op) {
    case DS_NSEL_IN:
    case DS_NSEL_NOT_IN:
        if (r->n_values == 0)
            return ds_err_set(err,
                              "nodeSelectorTerms[%zu].matchExpressions[%zu].values: must not be "
                              "empty with operator %s",
                              t, i, op);
        break;
    case DS_NSEL_EXISTS:
    case DS_NSEL_DOES_NOT_EXIST:
        if (r->n_values != 0)
            return ds_err_set(err,
                              "nodeSelectorTerms[%zu].matchExpressions[%zu].values: must be empty "
                              "with operator %s (got %zu values)",
                              t, i, op, r->n_values);
        break;
    case DS_NSEL_GT:
    case DS_NSEL_LT: {
        if (r->n_values != 1)
            return ds_err_set(err,
                              "nodeSelectorTerms[%zu].matchExpressions[%zu].values: must hold "
                              "exactly one value with operator %s (got %zu)",
                              t, i, op, r->n_values);
        int64_t x;
        if (r->values[0] == NULL || ds_nsel_parse_int(r->values[0], &x) != 0)
            return ds_err_set(err,
                              "nodeSelectorTerms[%zu].matchExpressions[%zu].values[0]: must be a "
                              "base-10 integer with operator %s (got \"%.64s\")",
                              t, i, op, r->values[0] != NULL ? r->values[0] : "");
        break;
    }
    }
    for (size_t j = 0; j < r->n_values; j++) {
        if (r->values[j] == NULL)
            return ds_err_set(
                err, "nodeSelectorTerms[%zu].matchExpressions[%zu].values[%zu]: missing", t, i, j);
        why = ds_check_label_value(r->values[j]);
        if (why != NULL)
            return ds_err_set(err,
                              "nodeSelectorTerms[%zu].matchExpressions[%zu].values[%zu]: %s (got "
                              "\"%.64s\")",
                              t, i, j, why, r->values[j]);
    }
    return 0;
}

static int check_field(const ds_nsel_req *r, size_t t, size_t i, ds_err *err)
{
    if (r->key == NULL || strcmp(r->key, DS_NSEL_FIELD_NODE_NAME) != 0)
        return ds_err_set(err,
                          "nodeSelectorTerms[%zu].matchFields[%zu].key: must be metadata.name "
                          "(got \"%.64s\")",
                          t, i, r->key != NULL ? r->key : "");
    if (r->op != DS_NSEL_IN && r->op != DS_NSEL_NOT_IN)
        return ds_err_set(err,
                          "nodeSelectorTerms[%zu].matchFields[%zu].operator: must be In or NotIn "
                          "(got %s)",
                          t, i, ds_nsel_op_name(r->op));
    if (r->n_values != 1 || r->values == NULL || r->values[0] == NULL)
        return ds_err_set(err,
                          "nodeSelectorTerms[%zu].matchFields[%zu].values: must hold exactly one "
                          "value (got %zu)",
                          t, i, r->n_values);
    return 0;
}

int ds_node_selector_check(const ds_node_selector *sel, ds_err *err)
{
    if (sel == NULL)
        return ds_err_set(err, "node selector: missing (got NULL)");
    if (sel->n_terms > DS_NSEL_MAX_TERMS)
        return ds_err_set(err, "nodeSelectorTerms: at most %d terms (got %zu)", DS_NSEL_MAX_TERMS,
                          sel->n_terms);
    if (sel->n_terms > 0 && sel->terms == NULL)
        return ds_err_set(err, "nodeSelectorTerms: missing (got NULL for %zu terms)", sel->n_terms);
    size_t total = 0;
    for (size_t t = 0; t < sel->n_terms; t++) {
        const ds_nsel_term *term = &sel->terms[t];
        if (term->n_match_expressions > DS_NSEL_MAX_REQS)
            return ds_err_set(err, "nodeSelectorTerms[%zu].matchExpressions: at most %d (got %zu)",
                              t, DS_NSEL_MAX_REQS, term->n_match_expressions);
        if (term->n_match_fields > DS_NSEL_MAX_REQS)
            return ds_err_set(err, "nodeSelectorTerms[%zu].matchFields: at most %d (got %zu)", t,
                              DS_NSEL_MAX_REQS, term->n_match_fields);
        if ((term->n_match_expressions > 0 && term->match_expressions == NULL) ||
            (term->n_match_fields > 0 && term->match_fields == NULL))
            return ds_err_set(err, "nodeSelectorTerms[%zu]: missing requirements", t);
        for (size_t i = 0; i < term->n_match_expressions; i++) {
            const ds_nsel_req *r = &term->match_expressions[i];
            if (r->n_values > DS_NSEL_MAX_VALUES)
                return ds_err_set(err,
                                  "nodeSelectorTerms[%zu].matchExpressions[%zu].values: at most "
                                  "%d (got %zu)",
                                  t, i, DS_NSEL_MAX_VALUES, r->n_values);
            total += r->n_values;
            if (check_expr(r, t, i, err) != 0)
                return -1;
        }
        for (size_t i = 0; i < term->n_match_fields; i++) {
            total += term->match_fields[i].n_values;
            if (check_field(&term->match_fields[i], t, i, err) != 0)
                return -1;
        }
        if (total > DS_NSEL_MAX_TOTAL_VALUES)
            return ds_err_set(err, "nodeSelectorTerms: at most %d values in all (got more)",
                              DS_NSEL_MAX_TOTAL_VALUES);
    }
    return 0;
}
