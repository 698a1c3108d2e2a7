/* status.h: the API server's Status object (metav1.Status), which carries the reason and message
 * of every failed request and of watch ERROR events:
 *   {"kind":"Status","status":"Failure","message":"pods \"x\" not found","reason":"NotFound",
 *    "details":{"retryAfterSeconds":1},"code":404}
 * Parsing never fails hard: a body that is not a Status leaves the fields empty. */
#ifndef DAGSCHED_KUBE_STATUS_H
#define DAGSCHED_KUBE_STATUS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define KUBE_STATUS_MAX_MESSAGE 1024
#define KUBE_STATUS_MAX_REASON  64

typedef struct kube_status {
    bool valid;                            /* the body was a Status object */
    int code;                              /* .code, 0 when absent */
    char reason[KUBE_STATUS_MAX_REASON];   /* .reason, "" when absent */
    char message[KUBE_STATUS_MAX_MESSAGE]; /* .message (truncated), "" when absent */
    int retry_after_s;                     /* .details.retryAfterSeconds, 0 when absent */
    bool cause_disruption_budget;          /* a .details.causes[].reason is DisruptionBudget */
} kube_status;

/* From a parsed JSON value. */
void kube_status_from_json(const json_t *obj, kube_status *out);
/* From a response body (any content). */
void kube_status_parse(const char *body, size_t len, kube_status *out);

#endif
