/* server.h: the extender's HTTP(S) endpoints on the runtime server: POST /filter, /prioritize,
 * /preempt (handlers.h), GET /healthz, /readyz and /metrics, with per-verb metrics and logs, and
 * the admission webhook POST /mutate-pods (admission.h, docs/admission.md).
 *
 * Where snapshots come from is given as callbacks (ext_source): the binary uses the live
 * informer-backed state, the benchmark a fixed synthetic snapshot. In floor mode (benchmark
 * only) /filter and /prioritize parse the request and answer without consulting any state. */
#ifndef DAGSCHED_EXT_SERVER_H
#define DAGSCHED_EXT_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "admission.h"
#include "httpd.h"
#include "handlers.h"
#include "metrics.h"
#include "state.h"

typedef struct ext_source {
    const ext_snapshot *(*acquire)(void *user); /* a reference, or NULL when not ready */
    bool (*ready)(void *user);
    /* Queue a Warning Event on a pod; true when it was queued (not a recent duplicate). May be
     * NULL. */
    bool (*pod_event)(void *user, const kube_pod *pod, const char *reason, const char *message);
    void *user;
} ext_source;

/* The admission webhook (admission.h): POST /mutate-pods, and with adm.set_scheduler_name POST
 * /mutate-pods/set-scheduler-name (the same, also setting an empty or default-scheduler
 * spec.schedulerName), on the main listener or on a listener of their own. */
typedef struct ext_admission_opts {
    bool enabled;
    ext_adm_opts adm;  /* set_scheduler_name: also route /mutate-pods/set-scheduler-name */
    bool own_listener; /* serve it (and /healthz) on host:port below, not on the main listener */
    const char *host;
    int port;        /* 0: pick a free one */
    size_t max_body; /* its own listener's body limit; 0: the main listener's */
} ext_admission_opts;

typedef struct ext_server_opts {
    const char *host;
    int port; /* 0: pick a free one (tests, benchmark) */
    const char *tls_cert, *tls_key;
    ext_ctx ctx; /* limits (max_body also bounds HTTP bodies: 413 above) and decoding */
    ext_source source;
    metrics_registry *metrics; /* required */
    bool floor_mode;
    ext_admission_opts admission;
    httpd_budget *budget; /* both listeners' shared limits (httpd.h); NULL: none */
} ext_server_opts;

typedef struct ext_server ext_server;

int ext_server_start(const ext_server_opts *opts, ext_server **out, ds_err *err);
int ext_server_port(const ext_server *s);
int ext_server_admission_port(const ext_server *s); /* its own listener's port, else -1 */
void ext_server_stop(ext_server *s);                /* safe with NULL */

#endif
