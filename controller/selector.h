/* selector.h: Kubernetes label selectors (metav1.LabelSelector: matchLabels and matchExpressions
 * with In, NotIn, Exists, DoesNotExist), parsed from their JSON form and matched against a pod's
 * labels. Used for PodDisruptionBudget selectors. Parsing is strict and bounded: an unknown
 * operator or an oversized selector is an error naming the field, so a budget the controller
 * cannot evaluate is never taken as "selects nothing". */
#ifndef DAGSCHED_CONTROLLER_SELECTOR_H
#define DAGSCHED_CONTROLLER_SELECTOR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"
#include "view.h"

#define CTL_SELECTOR_MAX_REQS   64
#define CTL_SELECTOR_MAX_VALUES 64

typedef enum ctl_sel_op {
    CTL_SEL_IN = 0,
    CTL_SEL_NOT_IN,
    CTL_SEL_EXISTS,
    CTL_SEL_DOES_NOT_EXIST,
} ctl_sel_op;

typedef struct ctl_sel_req {
    char *key;
    ctl_sel_op op;
    char **values;
    size_t n_values;
} ctl_sel_req;

struct ctl_selector {
    ctl_sel_req *reqs; /* matchLabels entries become In with one value */
    size_t n;
};

/* Parse a LabelSelector JSON object. An empty object selects everything. -1 with err set
 * ("matchExpressions[1].operator: unknown operator (got \"Gt\")") on invalid input. */
int ctl_selector_parse(const json_t *sel, ctl_selector *out, ds_err *err);
void ctl_selector_free(ctl_selector *s);

/* Does the selector select these labels? */
bool ctl_selector_matches(const ctl_selector *s, const ctl_kv *labels, size_t n_labels);

#endif
