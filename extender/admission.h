/* admission.h: the mutating admission webhook of the extender (POST /mutate-pods): decide
 * whether a Pod being created is managed by dagsched and, if so, answer with a JSONPatch that adds
 * the scheduling gate dagsched.io/dependencies (and optionally sets spec.schedulerName), so that
 * the controller releases it in dependency order. Pure: no I/O, no clock, no globals.
 *
 * Input: an AdmissionReview v1 (admission.k8s.io/v1). Only the review's envelope (request.uid,
 * kind, resource, operation, namespace) and the Pod's own fields (spec.schedulerName,
 * spec.nodeName, spec.schedulingGates, metadata.name/generateName) are read. Bounded: the body is
 * at most limits.max_body bytes (the HTTP server refuses larger ones), nesting at most
 * EXT_MAX_DEPTH, strings decoded into fixed buffers.
 *
 * Answers (docs/admission.md):
 *  - a body that is not an AdmissionReview v1 with request.uid: HTTP 400 with a message (the API
 *    server then applies the webhook's failurePolicy);
 *  - a review of anything but the CREATE of a core v1 Pod: allowed, no patch (ignored);
 *  - a Pod that dagsched does not manage (another scheduler, kube-system or the install
 *    namespace, already bound): allowed, no patch (ignored);
 *  - a managed Pod: allowed with a JSONPatch (base64) adding the gate, or no patch when the gate is
 *    already there (retries and reinvocations are idempotent) (gated). */
#ifndef DAGSCHED_EXT_ADMISSION_H
#define DAGSCHED_EXT_ADMISSION_H

#include <stdbool.h>
#include <stddef.h>

#include "annotations.h"
#include "protocol.h"

#define EXT_ADM_DEFAULT_SCHED "default-scheduler"
#define EXT_ADM_NAME_MAX      253 /* names, namespaces, scheduler names (DNS subdomains) */
#define EXT_ADM_UID_MAX       128
#define EXT_ADM_PATCH_MAX     512

typedef struct ext_adm_opts {
    const char *scheduler_name;    /* the pods dagsched manages: spec.schedulerName ("dagsched") */
    const char *install_namespace; /* never gated (dagsched's own namespace); NULL: none */
    bool set_scheduler_name;       /* set spec.schedulerName when empty or default-scheduler */
    size_t max_body;               /* bytes */
} ext_adm_opts;

/* What is known of the Pod to decide on it. */
typedef struct ext_adm_pod {
    const char *ns;             /* request.namespace (or metadata.namespace) */
    const char *scheduler_name; /* NULL or "" when absent */
    bool bound;                 /* spec.nodeName is set: the API server refuses gates then */
    bool gates_array;           /* spec.schedulingGates is a non-empty or empty array */
    bool has_gate;              /* ... and holds our gate */
} ext_adm_pod;

typedef enum ext_adm_result {
    EXT_ADM_GATED = 0, /* managed: the gate is added or already there */
    EXT_ADM_IGNORED,   /* allowed unchanged */
    EXT_ADM_ERROR,     /* malformed review: HTTP 400 */
    EXT_ADM_RESULTS
} ext_adm_result;

typedef struct ext_adm_decision {
    ext_adm_result result;
    bool set_scheduler_name; /* patch spec.schedulerName */
    bool add_gate;           /* patch spec.schedulingGates */
    const char *why;         /* static text: why ignored, or how gated */
} ext_adm_decision;

/* The decision for one Pod (pure). */
ext_adm_decision ext_adm_decide(const ext_adm_opts *o, const ext_adm_pod *p);

/* The JSONPatch (not yet base64) for a decision: "[...]" with 0 to 2 operations; writes at most
 * cap bytes (NUL included). Returns its length, or -1 when it does not fit. */
long ext_adm_patch(const ext_adm_opts *o, const ext_adm_pod *p, const ext_adm_decision *d,
                   char *out, size_t cap);

/* Standard base64 (RFC 4648, padded; OpenSSL's EVP_EncodeBlock) of in[0..n) into out (capacity
 * cap, NUL-terminated). Returns the length, or -1 when it does not fit. */
long ext_adm_base64(const unsigned char *in, size_t n, char *out, size_t cap);

typedef struct ext_adm_reply {
    int status; /* 200 or 400 */
    char *body; /* malloc'd: the AdmissionReview (200) or a message (400); NULL: out of memory */
    size_t len;
    bool json; /* body is application/json (else text/plain) */
    ext_adm_result result;
    char uid[EXT_ADM_UID_MAX + 1];
    char ns[EXT_ADM_NAME_MAX + 1];
    char name[EXT_ADM_NAME_MAX + 1]; /* metadata.name, else generateName, else "" */
    const char *why;                 /* static text */
    char error[EXT_ERR_MAX];         /* for EXT_ADM_ERROR */
} ext_adm_reply;

/* Handle one POST /mutate-pods body. Always fills out (body NULL only on allocation failure);
 * the caller frees out->body. */
void ext_adm_review(const ext_adm_opts *o, const char *body, size_t len, ext_adm_reply *out);

const char *ext_adm_result_name(ext_adm_result r);

#endif
