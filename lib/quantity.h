/* quantity.h: Kubernetes resource quantities ("100m", "1.5", "2Gi", "1e3", "500M").
 *
 * Parsed exactly as k8s.io/apimachinery/pkg/api/resource does: a signed decimal number followed by
 * a binary-SI suffix (Ki Mi Gi Ti Pi Ei), a decimal-SI suffix (n u m "" k M G T P E) or a decimal
 * exponent (e3, E-2). Results are integers; like Quantity.MilliValue() and Quantity.Value(), values
 * that are not whole in the target unit are rounded up (away from zero). Out-of-range values are an
 * error, never a silent wrap. */
#ifndef DAGSCHED_QUANTITY_H
#define DAGSCHED_QUANTITY_H

#include <stdint.h>

#include "ds_error.h"

/* Longest quantity string accepted (Kubernetes' own limit is far lower in practice). */
#define DS_QUANTITY_MAX_LEN 64

/* Parse into milli-units (cpu: "100m" -> 100, "1.5" -> 1500). 0 on success, -1 and err set on a
 * syntax error or when the value does not fit in int64. */
int ds_quantity_parse_milli(const char *s, int64_t *milli, ds_err *err);

/* Parse into whole units (memory: "2Gi" -> 2147483648; "100m" -> 1, rounded up). */
int ds_quantity_parse_value(const char *s, int64_t *value, ds_err *err);

#endif
