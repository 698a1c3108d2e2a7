/* client.h: HTTP requests to the Kubernetes API server over libcurl.
 *
 * Guarantees:
 *  - TLS verification is on unless the configuration says insecure-skip-tls-verify; a server whose
 *    certificate does not chain to the configured CA is refused (fail closed, never retried).
 *  - Connections are reused: finished requests return their curl handle (and its open connection)
 *    to a small pool.
 *  - Connection errors, 429 and 5xx (except 501) are retried with exponential backoff and full
 *    jitter (initial * 2^attempt, capped, times a random factor in [0.5, 1)), honouring
 *    Retry-After / Status.details.retryAfterSeconds (capped). Other 4xx are never retried.
 *  - Every failure carries the API server's Status message: "POST /api/v1/namespaces/a/pods:
 *    409 AlreadyExists: pods \"x\" already exists".
 *  - Response bodies are bounded (max_body_bytes); a larger body fails the request.
 *  - Bearer tokens read from a file are re-read whenever the file changes (and at least every
 *    minute), so rotated service account tokens keep working.
 *  - It counts the requests it sends by HTTP method (every attempt, retries and watches
 *    included): kube_client_requests.
 *  - With opts.qps, requests wait for a token of the client's rate limit (kube_client_throttled
 *    counts those that waited).
 * The client is thread-safe: any number of threads may issue requests at once. */
#ifndef DAGSCHED_KUBE_CLIENT_H
#define DAGSCHED_KUBE_CLIENT_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "ds_error.h"
#include "status.h"

typedef struct kube_client kube_client;

typedef struct kube_client_opts {
    double connect_timeout_s; /* TCP+TLS connect; default 10 */
    double request_timeout_s; /* whole non-watch request; default 60 */
    int max_retries;          /* retries after the first attempt; default 5 */
    double backoff_initial_s; /* default 0.2 */
    double backoff_max_s;     /* default 10 */
    double retry_after_max_s; /* cap on a server-requested delay; default 60 */
    size_t max_body_bytes;    /* non-watch response bodies; default 64 MiB */
    const char *user_agent;   /* default "dagsched" */
    /* Rate limit of the requests (every attempt of kube_request*, not the streams): a token
     * bucket of qps tokens a second holding at most burst (at least 1; default qps * 2). A
     * request that finds no token waits for its turn. qps <= 0: no limit (the default). */
    double qps;
    double burst;
} kube_client_opts;

typedef struct kube_response {
    long status; /* HTTP status; 0 when no response was received */
    char *body;  /* NUL-terminated response body (owned; kube_response_free) */
    size_t body_len;
    kube_status st; /* the Status in the body of a failed request, if any */
    int attempts;   /* attempts made (1 = no retry) */
} kube_response;

typedef struct kube_request_opts {
    bool no_retry_429;         /* a 429 is an answer, not a throttle (evictions blocked by a PDB) */
    bool no_retry;             /* a single attempt */
    double timeout_s;          /* overrides request_timeout_s when > 0 */
    const atomic_bool *cancel; /* abort (and stop retrying) when it becomes true; may be NULL */
} kube_request_opts;

/* NULL opts: the defaults above. The configuration is copied. */
int kube_client_new(const kube_config *cfg, const kube_client_opts *opts, kube_client **out,
                    ds_err *err);
/* Frees the client. Every request, stream and informer using it must have finished. */
void kube_client_free(kube_client *c);
/* Wake every backoff sleep and abort every transfer in progress (for shutdown). Irreversible:
 * every later request fails at once, so informers and leader electors on the client end their
 * threads rather than retry (they must still be stopped and freed). */
void kube_client_shutdown(kube_client *c);
bool kube_client_is_shutdown(kube_client *c);
/* The configuration the client was created with (namespace, server, source). */
const kube_config *kube_client_config(const kube_client *c);

/* One request with retries. path starts with "/" ("/api/v1/namespaces/a/pods?limit=10"). body
 * may be NULL; content_type defaults to application/json when a body is given. Returns 0 on a 2xx
 * answer; -1 otherwise, with resp->status (0 on transport failure) and resp->st filled and err
 * set. resp must be released with kube_response_free whatever the result. */
int kube_request(kube_client *c, const char *method, const char *path, const char *body,
                 const char *content_type, kube_response *resp, ds_err *err);
int kube_request_ex(kube_client *c, const kube_request_opts *ro, const char *method,
                    const char *path, const char *body, const char *content_type,
                    kube_response *resp, ds_err *err);
void kube_response_free(kube_response *resp);

/* GET path and parse the body as JSON (*out owned by the caller). */
int kube_get_json(kube_client *c, const char *path, json_t **out, kube_response *resp, ds_err *err);
/* Parse resp->body as JSON; errors name the path. */
int kube_response_json(const kube_response *resp, const char *path, json_t **out, ds_err *err);

/* Streaming GET (watch). on_data is called once with len 0 when a 200 answer's headers have
 * arrived (the stream is open), then with every chunk, in order; a non-zero return aborts the
 * transfer. No retries: the caller reconnects. timeout_s bounds the whole
 * stream (0: none); the connection is also dropped when no byte arrives for idle_timeout_s
 * (0: none). Returns 0 when the server ended a 200 stream normally; -1 otherwise with
 * resp->status (0 on a transport failure, including a cancel) and resp->st (the Status of a non-200
 * answer). */
typedef int (*kube_stream_cb)(void *user, const char *data, size_t len);
int kube_stream(kube_client *c, const char *path, double timeout_s, double idle_timeout_s,
                const atomic_bool *cancel, kube_stream_cb on_data, void *user, kube_response *resp,
                ds_err *err);

/* The HTTP methods the client counts; KUBE_METHOD_OTHER: any other. */
typedef enum {
    KUBE_METHOD_GET = 0,
    KUBE_METHOD_POST,
    KUBE_METHOD_PUT,
    KUBE_METHOD_PATCH,
    KUBE_METHOD_DELETE,
    KUBE_METHOD_OTHER,
    KUBE_METHOD_N
} kube_method;

/* "GET", "POST", "PUT", "PATCH", "DELETE", "other". */
const char *kube_method_name(kube_method m);
/* Requests sent with method m since the client was created: every attempt that reached the
 * transfer (a retry counts again; a watch is a GET). */
uint64_t kube_client_requests(kube_client *c, kube_method m);

/* Requests that waited for the rate limit (opts.qps) since the client was created. */
uint64_t kube_client_throttled(kube_client *c);

/* Sleep up to seconds; returns early (non-zero) on client shutdown or when *cancel becomes true. */
int kube_client_sleep(kube_client *c, double seconds, const atomic_bool *cancel);

/* Backoff delay before retry number `attempt` (0-based) using the client's settings and jitter. */
double kube_client_backoff(kube_client *c, int attempt);

/* Whether a failed answer is worth retrying: connection errors (status 0), 429, 5xx but 501. */
bool kube_status_retryable(long status);

#endif
