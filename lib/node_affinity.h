/* node_affinity.h: a pod's required node affinity (a Kubernetes NodeSelector,
 * spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution) and whether a node
 * satisfies it, with kube-scheduler's semantics. Pure: no I/O, no allocation.
 *
 * Semantics (those of kube-scheduler's NodeAffinity filter):
 *  - nodeSelectorTerms are ORed: the node must satisfy at least one term; a selector without
 *    terms matches no node.
 *  - Within a term, every matchExpressions requirement (on the node's labels) and every
 *    matchFields requirement (on the node's fields: only metadata.name exists) must hold. A term
 *    with neither matches no node.
 *  - In: the label exists and its value is one of the values. NotIn: the label is absent, or its
 *    value is none of the values. Exists / DoesNotExist: the label is present / absent.
 *    Gt / Lt: the label exists, its value is a base-10 64-bit integer and it is greater / less
 *    than the single value (a label value that is not an integer never matches).
 *  - A requirement of the wrong shape (an unknown operator, a wrong number of values, a Gt/Lt
 *    value that is not an integer, a field other than metadata.name) makes its term match no
 *    node; the other terms still count. The syntax of keys and values is left to
 *    ds_node_selector_check, which a caller runs once on what it decoded (a selector that fails
 *    it must be treated as matching no node: Kubernetes would refuse it).
 *
 * The limits below bound what a caller accepts from the API (Kubernetes sets none but the size of
 * the object); ds_node_selector_check enforces them. */
#ifndef DAGSCHED_NODE_AFFINITY_H
#define DAGSCHED_NODE_AFFINITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ds_error.h"

#define DS_NSEL_MAX_TERMS        64 /* nodeSelectorTerms */
#define DS_NSEL_MAX_REQS         64 /* matchExpressions of one term, and matchFields of one term */
#define DS_NSEL_MAX_VALUES       1024 /* values of one requirement */
#define DS_NSEL_MAX_TOTAL_VALUES 4096 /* values of the whole selector */
#define DS_NSEL_FIELD_NODE_NAME  "metadata.name"

typedef enum ds_nsel_op {
    DS_NSEL_IN = 0,
    DS_NSEL_NOT_IN,
    DS_NSEL_EXISTS,
    DS_NSEL_DOES_NOT_EXIST,
    DS_NSEL_GT,
    DS_NSEL_LT,
} ds_nsel_op;

/* One NodeSelectorRequirement. Strings are borrowed and never NULL (values[i] may be ""). */
typedef struct ds_nsel_req {
    const char *key;
    ds_nsel_op op;
    const char *const *values;
    size_t n_values;
} ds_nsel_req;

/* One NodeSelectorTerm. */
typedef struct ds_nsel_term {
    const ds_nsel_req *match_expressions; /* on node labels */
    size_t n_match_expressions;
    const ds_nsel_req *match_fields; /* on node fields (metadata.name) */
    size_t n_match_fields;
} ds_nsel_term;

/* A NodeSelector: its terms, ORed. */
typedef struct ds_node_selector {
    const ds_nsel_term *terms;
    size_t n_terms;
} ds_node_selector;

/* A node as the matcher sees it: its name and a lookup of its labels (NULL when absent). */
typedef const char *(*ds_label_lookup)(const void *ctx, const char *key);

typedef struct ds_nsel_node {
    const char *name;
    ds_label_lookup label;
    const void *ctx; /* passed to label */
} ds_nsel_node;

/* "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt" (case-sensitive, as in the API). 0 on
 * success, -1 for any other string (*out untouched). */
int ds_nsel_op_parse(const char *s, ds_nsel_op *out);
const char *ds_nsel_op_name(ds_nsel_op op);

/* A base-10 64-bit integer as Go's strconv.ParseInt(s, 10, 64) reads it: an optional sign, then
 * one or more digits, nothing else; out of range fails. 0 on success, -1 otherwise. */
int ds_nsel_parse_int(const char *s, int64_t *out);

/* Would Kubernetes accept the selector, and is it within the limits above? Checks every term:
 * label keys are qualified names; In/NotIn have values, Exists/DoesNotExist none, Gt/Lt exactly
 * one base-10 integer; label values are valid label values; matchFields use the key
 * metadata.name with In or NotIn and exactly one value. 0 when valid, else -1 with err naming
 * the first offending field ("nodeSelectorTerms[0].matchExpressions[1].values: ..."). */
int ds_node_selector_check(const ds_node_selector *sel, ds_err *err);

/* Does the node satisfy the selector (see the semantics above)? NULL sel or node: false. */
bool ds_node_selector_matches(const ds_node_selector *sel, const ds_nsel_node *node);

/* Does the node satisfy one term? (Exposed for tests and diagnostics.) */
bool ds_nsel_term_matches(const ds_nsel_term *term, const ds_nsel_node *node);

#endif
