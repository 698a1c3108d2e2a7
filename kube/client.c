/* client.c: HTTP requests to the API server over libcurl: TLS, authentication, connection pool,
 * retries with backoff, Status errors, streaming (see client.h). */
#include "client.h"

#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bytebuf.h"
#include "clock.h"
#include "kutil.h"
#include "readfile.h"
#include "log.h"

/* Idle connections kept: one per thread that may send at once (the controller's release window,
 * its write queue, its round, leader election). */
#define POOL_MAX        32
#define TOKEN_MAX_BYTES (64u << 10)
/* Re-read a token file at least this often, even when it looks unchanged. */
#define TOKEN_RECHECK_S 60.0
#define MAX_PATH_LEN    8192
/* Bodies of failed watch requests (Status objects) are small. */
#define STREAM_ERROR_BODY_MAX (64u << 10)

struct kube_client {
    kube_config *cfg;
    kube_client_opts opts;
    char *base_url;                /* server URL, with the TLS server name as host if one is set */
    struct curl_slist *connect_to; /* maps the TLS server name back to the real host */
    pthread_mutex_t lock;          /* pool, rng, sleep condition */
    pthread_cond_t wake;
    CURL *pool[POOL_MAX];
    int n_pool;
    uint64_t rng;
    atomic_bool shutdown;
    pthread_mutex_t token_lock; /* token cache */
    char *token;                /* current bearer token (static or read from token_file) */
    double token_read_at;
    struct stat token_stat;
    atomic_uint_fast64_t requests[KUBE_METHOD_N]; /* sent, by method (kube_client_requests) */
    double tokens, tokens_at;                     /* rate limit (opts.qps; under lock) */
    atomic_uint_fast64_t throttled;               /* requests that waited for a token */
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_OK;

static void curl_init_once(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

const kube_config *kube_client_config(const kube_client *c)
{
    return c->cfg;
}

/* Split "scheme://host[:port]/prefix" into host (brackets kept), port and the rest. */
static int split_server(const char *server, char *host, size_t hsize, long *port, const char **rest)
{
    const char *p = strstr(server, "://");
    if (p == NULL)
        return -1;
    bool https = strncmp(server, "https", 5) == 0;
    p += 3;
    const char *end;
    if (*p == '[') {
        end = strchr(p, ']');
        if (end == NULL)
            return -1;
        end++;
    } else {
        end = p + strcspn(p, ":/");
    }
    size_t hl = (size_t)(end - p);
    if (hl == 0 || hl >= hsize)
        return -1;
    memcpy(host, p, hl);
    host[hl] = '\0';
    *port = https ? 443 : 80;
    if (*end == ':') {
        char *e;
        errno = 0;
        long v = strtol(end + 1, &e, 10);
        if (errno != 0 || v <= 0 || v > 65535)
            return -1;
        *port = v;
        end = e;
    }
    *rest = end;
    return 0;
}

int kube_client_new(const kube_config *cfg, const kube_client_opts *opts, kube_client **out,
                    ds_err *err)
{
    *out = NULL;
    pthread_once(&curl_once, curl_init_once);
    if (curl_init_rc != CURLE_OK)
        return ds_err_set(err, "libcurl initialisation failed: %s",
                          curl_easy_strerror(curl_init_rc));
    kube_client *c = calloc(1, sizeof *c);
    if (c == NULL)
        return ds_err_set(err, "out of memory");
    if (rt_cond_init(&c->wake) != 0) {
        free(c);
        return ds_err_set(err, "out of memory (a condition variable)");
    }
    if (kube_config_copy(cfg, &c->cfg, err) != 0) {
        pthread_cond_destroy(&c->wake);
        free(c);
        return -1;
    }
    kube_client_opts d = {.connect_timeout_s = 10,
                          .request_timeout_s = 60,
                          .max_retries = 5,
                          .backoff_initial_s = 0.2,
                          .backoff_max_s = 10,
                          .retry_after_max_s = 60,
                          .max_body_bytes = 64u << 20,
                          .user_agent = "dagsched"};
    if (opts != NULL) {
        if (opts->connect_timeout_s > 0)
            d.connect_timeout_s = opts->connect_timeout_s;
        if (opts->request_timeout_s > 0)
            d.request_timeout_s = opts->request_timeout_s;
        if (opts->max_retries >= 0)
            d.max_retries = opts->max_retries;
        if (opts->backoff_initial_s > 0)
            d.backoff_initial_s = opts->backoff_initial_s;
        if (opts->backoff_max_s > 0)
            d.backoff_max_s = opts->backoff_max_s;
        if (opts->retry_after_max_s > 0)
            d.retry_after_max_s = opts->retry_after_max_s;
        if (opts->max_body_bytes > 0)
            d.max_body_bytes = opts->max_body_bytes;
        if (opts->user_agent != NULL)
            d.user_agent = opts->user_agent;
        if (opts->qps > 0) {
            d.qps = opts->qps;
            d.burst = opts->burst > 0 ? opts->burst : 2 * opts->qps;
            if (d.burst < 1)
                d.burst = 1;
        }
    }
    c->opts = d;
    c->opts.user_agent = NULL; /* set below from our own copy */
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_init(&c->token_lock, NULL);
    atomic_init(&c->shutdown, false);
    atomic_init(&c->throttled, 0);
    c->tokens = c->opts.burst; /* the bucket starts full */
    c->tokens_at = rt_mono_now();
    for (int m = 0; m < KUBE_METHOD_N; m++)
        atomic_init(&c->requests[m], 0);
    c->rng = (uint64_t)(rt_wall_now() * 1e6) ^ (uint64_t)(uintptr_t)c;

    char host[512];
    long port;
    const char *rest;
    if (split_server(c->cfg->server, host, sizeof host, &port, &rest) != 0) {
        ds_err_set(err, "%s: cannot parse server URL \"%s\"", c->cfg->source, c->cfg->server);
        kube_client_free(c);
        return -1;
    }
    if (c->cfg->tls_server_name != NULL) {
        /* Send the TLS server name as the URL host and connect to the real host instead. */
        const char *scheme_end = strstr(c->cfg->server, "://") + 3;
        size_t sl = (size_t)(scheme_end - c->cfg->server);
        size_t n = sl + strlen(c->cfg->tls_server_name) + 16 + strlen(rest) + 1;
        c->base_url = malloc(n);
        char ct[1200];
        snprintf(ct, sizeof ct, "%s:%ld:%s:%ld", c->cfg->tls_server_name, port, host, port);
        if (c->base_url != NULL) {
            snprintf(c->base_url, n, "%.*s%s:%ld%s", (int)sl, c->cfg->server,
                     c->cfg->tls_server_name, port, rest);
            c->connect_to = curl_slist_append(NULL, ct);
        }
        if (c->base_url == NULL || c->connect_to == NULL) {
            ds_err_set(err, "out of memory");
            kube_client_free(c);
            return -1;
        }
    } else if ((c->base_url = kutil_strdup(c->cfg->server)) == NULL) {
        ds_err_set(err, "out of memory");
        kube_client_free(c);
        return -1;
    }
    if (strncmp(c->cfg->server, "http://", 7) == 0)
        KLOG_WARN("client", "%s: plain http to %s: credentials and data travel unencrypted",
                  c->cfg->source, c->cfg->server);
    if (c->cfg->insecure_skip_tls_verify)
        KLOG_WARN("client", "%s: insecure-skip-tls-verify: the server's identity is not checked",
                  c->cfg->source);
    /* The user agent is kept in the config copy's lifetime via a private strdup. */
    char *ua = kutil_strdup(d.user_agent);
    if (ua == NULL) {
        ds_err_set(err, "out of memory");
        kube_client_free(c);
        return -1;
    }
    c->opts.user_agent = ua;
    *out = c;
    return 0;
}

void kube_client_free(kube_client *c)
{
    if (c == NULL)
        return;
    for (int i = 0; i < c->n_pool; i++)
        curl_easy_cleanup(c->pool[i]);
    curl_slist_free_all(c->connect_to);
    free(c->base_url);
    free((char *)c->opts.user_agent);
    if (c->token != NULL) {
        volatile char *p = c->token;
        for (size_t i = 0; p[i] != '\0'; i++)
            p[i] = 0;
    }
    free(c->token);
    kube_config_free(c->cfg);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->wake);
    pthread_mutex_destroy(&c->token_lock);
    free(c);
}

void kube_client_shutdown(kube_client *c)
{
    pthread_mutex_lock(&c->lock);
    atomic_store(&c->shutdown, true);
    pthread_cond_broadcast(&c->wake);
    pthread_mutex_unlock(&c->lock);
}

const char *kube_method_name(kube_method m)
{
    static const char *const names[KUBE_METHOD_N] = {"GET",   "POST",   "PUT",
                                                     "PATCH", "DELETE", "other"};
    return (unsigned)m < KUBE_METHOD_N ? names[m] : "other";
}

static kube_method method_of(const char *method)
{
    for (int m = 0; m < KUBE_METHOD_OTHER; m++)
        if (strcmp(method, kube_method_name((kube_method)m)) == 0)
            return (kube_method)m;
    return KUBE_METHOD_OTHER;
}

uint64_t kube_client_requests(kube_client *c, kube_method m)
{
    if ((unsigned)m >= KUBE_METHOD_N)
        return 0;
    return (uint64_t)atomic_load(&c->requests[m]);
}

bool kube_client_is_shutdown(kube_client *c)
{
    return atomic_load(&c->shutdown);
}

static bool cancelled(kube_client *c, const atomic_bool *cancel)
{
    return atomic_load(&c->shutdown) || (cancel != NULL && atomic_load(cancel));
}

int kube_client_sleep(kube_client *c, double seconds, const atomic_bool *cancel)
{
    double deadline = rt_mono_now() + seconds;
    pthread_mutex_lock(&c->lock);
    int rc = 0;
    for (;;) {
        if (cancelled(c, cancel)) {
            rc = 1;
            break;
        }
        double left = deadline - rt_mono_now();
        if (left <= 0)
            break;
        /* Wake at least every 100 ms to notice a per-call cancel flag. */
        if (left > 0.1)
            left = 0.1;
        rt_cond_wait_s(&c->wake, &c->lock, left);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

uint64_t kube_client_throttled(kube_client *c)
{
    return atomic_load(&c->throttled);
}

/* Take a token of the rate limit, waiting for it when there is none: each caller reserves the
 * next token (the bucket may go below zero) and sleeps until its time, so that waiting requests
 * go in turn. Non-zero when the wait was cut short (shutdown, cancel). */
static int throttle(kube_client *c, const atomic_bool *cancel)
{
    if (!(c->opts.qps > 0))
        return 0;
    pthread_mutex_lock(&c->lock);
    double now = rt_mono_now();
    if (now > c->tokens_at) {
        c->tokens += (now - c->tokens_at) * c->opts.qps;
        if (c->tokens > c->opts.burst)
            c->tokens = c->opts.burst;
        c->tokens_at = now;
    }
    c->tokens -= 1;
    double wait = c->tokens < 0 ? -c->tokens / c->opts.qps : 0;
    pthread_mutex_unlock(&c->lock);
    if (!(wait > 0))
        return 0;
    atomic_fetch_add(&c->throttled, 1);
    return kube_client_sleep(c, wait, cancel);
}

double kube_client_backoff(kube_client *c, int attempt)
{
    double d = c->opts.backoff_initial_s * pow(2.0, attempt < 30 ? attempt : 30);
    if (d > c->opts.backoff_max_s)
        d = c->opts.backoff_max_s;
    pthread_mutex_lock(&c->lock);
    double r = kutil_rand01(&c->rng);
    pthread_mutex_unlock(&c->lock);
    return d * (0.5 + 0.5 * r);
}

bool kube_status_retryable(long status)
{
    return status == 0 || status == 429 || (status >= 500 && status <= 599 && status != 501);
}

/* ---- authentication ---- */

/* Copy the current bearer token into a freshly allocated "Authorization: Bearer ..." header, or
 * NULL in *hdr when there is none. */
static int auth_header(kube_client *c, char **hdr, ds_err *err)
{
    *hdr = NULL;
    if (c->cfg->token == NULL && c->cfg->token_file == NULL)
        return 0;
    pthread_mutex_lock(&c->token_lock);
    if (c->cfg->token_file != NULL) {
        struct stat st;
        double now = rt_mono_now();
        bool changed = true;
        if (stat(c->cfg->token_file, &st) == 0 && c->token != NULL)
            changed = st.st_ino != c->token_stat.st_ino || st.st_dev != c->token_stat.st_dev ||
                      st.st_size != c->token_stat.st_size ||
                      st.st_mtim.tv_sec != c->token_stat.st_mtim.tv_sec ||
                      st.st_mtim.tv_nsec != c->token_stat.st_mtim.tv_nsec ||
                      now - c->token_read_at > TOKEN_RECHECK_S;
        if (changed) {
            char *t;
            size_t n;
            ds_err e;
            if (rt_read_file(c->cfg->token_file, TOKEN_MAX_BYTES, &t, &n, &e) != 0) {
                if (c->token == NULL) {
                    pthread_mutex_unlock(&c->token_lock);
                    return ds_err_set(err, "token file: %s", e.msg);
                }
                KLOG_WARN("client", "cannot re-read token file (keeping the previous token): %s",
                          e.msg);
            } else {
                while (n > 0 && (t[n - 1] == '\n' || t[n - 1] == '\r' || t[n - 1] == ' '))
                    t[--n] = '\0';
                if (n == 0 || strpbrk(t, "\r\n") != NULL) {
                    free(t);
                    if (c->token == NULL) {
                        pthread_mutex_unlock(&c->token_lock);
                        return ds_err_set(err, "token file %s: empty or multi-line",
                                          c->cfg->token_file);
                    }
                } else {
                    if (c->token != NULL && strcmp(c->token, t) != 0)
                        KLOG_INFO("client", "token file %s changed: using the new token",
                                  c->cfg->token_file);
                    free(c->token);
                    c->token = t;
                    stat(c->cfg->token_file, &c->token_stat);
                    c->token_read_at = now;
                }
            }
        }
    }
    const char *tok = c->cfg->token_file != NULL ? c->token : c->cfg->token;
    size_t n = strlen("Authorization: Bearer ") + strlen(tok) + 1;
    *hdr = malloc(n);
    if (*hdr != NULL)
        snprintf(*hdr, n, "Authorization: Bearer %s", tok);
    pthread_mutex_unlock(&c->token_lock);
    if (*hdr == NULL)
        return ds_err_set(err, "out of memory");
    return 0;
}

/* ---- curl handles ---- */

#define NO_TYPE_OPT ((CURLoption)0)

/* A PEM credential given inline (blob_opt, copied) or as a file (file_opt); type_opt (unless
 * NO_TYPE_OPT: the CA has none) says it is PEM. true on a setopt failure. */
static bool set_pem(CURL *h, CURLoption blob_opt, CURLoption file_opt, CURLoption type_opt,
                    char *data, size_t len, const char *file)
{
    bool bad = false;
    if (data != NULL) {
        struct curl_blob b = {.data = data, .len = len, .flags = CURL_BLOB_COPY};
        bad |= curl_easy_setopt(h, blob_opt, &b) != CURLE_OK;
    } else if (file != NULL) {
        bad |= curl_easy_setopt(h, file_opt, file) != CURLE_OK;
    } else {
        return false;
    }
    if (type_opt != NO_TYPE_OPT)
        bad |= curl_easy_setopt(h, type_opt, "PEM") != CURLE_OK;
    return bad;
}

static CURL *handle_new(kube_client *c)
{
    CURL *h = curl_easy_init();
    if (h == NULL)
        return NULL;
    const kube_config *cfg = c->cfg;
    int bad = 0;
    bad |= curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_USERAGENT, c->opts.user_agent) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                            (long)(c->opts.connect_timeout_s * 1000)) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_TCP_KEEPIDLE, 30L) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_TCP_KEEPINTVL, 10L) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https,http") != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_PROXY, "") != CURLE_OK; /* no proxy from environment */
    bad |= curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, cfg->insecure_skip_tls_verify ? 0L : 1L) !=
           CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, cfg->insecure_skip_tls_verify ? 0L : 2L) !=
           CURLE_OK;
    if (c->connect_to != NULL)
        bad |= curl_easy_setopt(h, CURLOPT_CONNECT_TO, c->connect_to) != CURLE_OK;
    bad |= set_pem(h, CURLOPT_CAINFO_BLOB, CURLOPT_CAINFO, NO_TYPE_OPT, cfg->ca_data,
                   cfg->ca_data_len, cfg->ca_file);
    bad |= set_pem(h, CURLOPT_SSLCERT_BLOB, CURLOPT_SSLCERT, CURLOPT_SSLCERTTYPE, cfg->cert_data,
                   cfg->cert_data_len, cfg->cert_file);
    bad |= set_pem(h, CURLOPT_SSLKEY_BLOB, CURLOPT_SSLKEY, CURLOPT_SSLKEYTYPE, cfg->key_data,
                   cfg->key_data_len, cfg->key_file);
    if (bad) {
        curl_easy_cleanup(h);
        return NULL;
    }
    return h;
}

static CURL *handle_get(kube_client *c)
{
    pthread_mutex_lock(&c->lock);
    CURL *h = c->n_pool > 0 ? c->pool[--c->n_pool] : NULL;
    pthread_mutex_unlock(&c->lock);
    return h != NULL ? h : handle_new(c);
}

static void handle_put(kube_client *c, CURL *h, bool reusable)
{
    if (h == NULL)
        return;
    pthread_mutex_lock(&c->lock);
    if (reusable && c->n_pool < POOL_MAX) {
        c->pool[c->n_pool++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    if (h != NULL)
        curl_easy_cleanup(h);
}

static void err_copy(ds_err *dst, const ds_err *src)
{
    if (dst != NULL)
        *dst = *src;
}

/* ---- one transfer ---- */

typedef struct xfer {
    kube_client *c;
    CURL *h;
    ds_bytebuf body;
    kube_stream_cb on_data; /* streaming mode when set */
    void *user;
    bool stream_ok;     /* a 200 answer is being streamed */
    bool callback_stop; /* on_data asked to stop */
    double retry_after_s;
    const atomic_bool *cancel;
} xfer;

static size_t on_write(char *ptr, size_t size, size_t nmemb, void *ud)
{
    xfer *x = ud;
    size_t n = size * nmemb;
    if (x->on_data != NULL) {
        long code = 0;
        curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
        if (code == 200) {
            x->stream_ok = true;
            if (x->on_data(x->user, ptr, n) != 0) {
                x->callback_stop = true;
                return 0;
            }
            return n;
        }
    }
    if (ds_bytebuf_append(&x->body, ptr, n) != 0)
        return 0; /* too large: abort the transfer */
    return n;
}

static size_t on_header(char *buf, size_t size, size_t nitems, void *ud)
{
    xfer *x = ud;
    size_t n = size * nitems;
    if (x->on_data != NULL && !x->stream_ok && n <= 2 &&
        (n == 0 || buf[0] == '\r' || buf[0] == '\n')) {
        /* End of the headers: tell the consumer the stream is open, even before any byte. */
        long code = 0;
        curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
        if (code == 200) {
            x->stream_ok = true;
            if (x->on_data(x->user, "", 0) != 0) {
                x->callback_stop = true;
                return 0;
            }
        }
        return n;
    }
    static const char name[] = "retry-after:";
    if (n > sizeof name && strncasecmp(buf, name, sizeof name - 1) == 0) {
        char tmp[32];
        size_t l = n - (sizeof name - 1);
        if (l >= sizeof tmp)
            l = sizeof tmp - 1;
        memcpy(tmp, buf + sizeof name - 1, l);
        tmp[l] = '\0';
        char *end;
        long v = strtol(tmp, &end, 10);
        if (end != tmp && v > 0 && v < 86400)
            x->retry_after_s = (double)v;
    }
    return n;
}

static int on_progress(void *ud, curl_off_t a, curl_off_t b, curl_off_t cc, curl_off_t d)
{
    (void)a;
    (void)b;
    (void)cc;
    (void)d;
    xfer *x = ud;
    return cancelled(x->c, x->cancel) ? 1 : 0;
}

/* Perform one attempt. Returns the CURLcode; fills resp->status. */
static CURLcode perform(kube_client *c, xfer *x, const char *method, const char *url,
                        const char *body, const char *content_type, double timeout_s,
                        double idle_timeout_s, long *status, ds_err *err, bool *reusable)
{
    *status = 0;
    *reusable = false;
    char *auth = NULL;
    if (auth_header(c, &auth, err) != 0)
        return CURLE_LOGIN_DENIED;
    CURL *h = handle_get(c);
    if (h == NULL) {
        free(auth);
        ds_err_set(err, "cannot create a curl handle");
        return CURLE_OUT_OF_MEMORY;
    }
    x->h = h;
    struct curl_slist *hdrs = NULL, *t;
    char ct[160];
    snprintf(ct, sizeof ct, "Content-Type: %s", content_type);
    bool oom = false;
    const char *lines[] = {"Accept: application/json", "Expect:", body != NULL ? ct : NULL, auth};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        if (lines[i] == NULL)
            continue;
        t = curl_slist_append(hdrs, lines[i]);
        if (t == NULL) {
            oom = true;
            break;
        }
        hdrs = t;
    }
    if (auth != NULL) {
        memset(auth, 0, strlen(auth));
        free(auth);
    }
    if (oom) {
        curl_slist_free_all(hdrs);
        handle_put(c, h, true);
        ds_err_set(err, "out of memory");
        return CURLE_OUT_OF_MEMORY;
    }
    int bad = 0;
    bad |= curl_easy_setopt(h, CURLOPT_URL, url) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs) != CURLE_OK;
    if (body != NULL) {
        bad |= curl_easy_setopt(h, CURLOPT_POSTFIELDS, body) != CURLE_OK;
        bad |=
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body)) != CURLE_OK;
        bad |= curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method) != CURLE_OK;
    } else {
        bad |= curl_easy_setopt(h, CURLOPT_HTTPGET, 1L) != CURLE_OK;
        bad |= curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST,
                                strcmp(method, "GET") == 0 ? NULL : method) != CURLE_OK;
    }
    bad |= curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_WRITEDATA, x) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_HEADERDATA, x) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_XFERINFODATA, x) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(timeout_s * 1000)) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, idle_timeout_s > 0 ? 1L : 0L) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, (long)idle_timeout_s) != CURLE_OK;
    if (bad) {
        curl_slist_free_all(hdrs);
        handle_put(c, h, false);
        ds_err_set(err, "cannot configure the request");
        return CURLE_FAILED_INIT;
    }
    atomic_fetch_add(&c->requests[method_of(method)], 1);
    CURLcode rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    /* Do not keep pointers to this call's data in a pooled handle. */
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, NULL);
    curl_slist_free_all(hdrs);
    handle_put(c, h, rc == CURLE_OK);
    x->h = NULL;
    *reusable = rc == CURLE_OK;
    return rc;
}

static char *make_url(kube_client *c, const char *path, ds_err *err)
{
    if (path == NULL || path[0] != '/')
        return ds_err_set(err, "request path must start with / (got \"%s\")",
                          path ? path : "(null)"),
               NULL;
    size_t pl = strlen(path);
    if (pl > MAX_PATH_LEN)
        return ds_err_set(err, "request path too long (%zu bytes)", pl), NULL;
    for (size_t i = 0; i < pl; i++)
        if ((unsigned char)path[i] <= ' ' || path[i] == 0x7f)
            return ds_err_set(err, "request path contains a space or control character"), NULL;
    size_t n = strlen(c->base_url) + pl + 1;
    char *url = malloc(n);
    if (url == NULL)
        return ds_err_set(err, "out of memory"), NULL;
    snprintf(url, n, "%s%s", c->base_url, path);
    return url;
}

/* Short form of the path for messages: without the query. */
static void path_for_msg(const char *path, char *buf, size_t size)
{
    size_t n = strcspn(path, "?");
    if (n >= size)
        n = size - 1;
    memcpy(buf, path, n);
    buf[n] = '\0';
}

static void set_http_error(const char *method, const char *path, long status, const kube_status *st,
                           ds_err *err)
{
    char p[256];
    path_for_msg(path, p, sizeof p);
    if (st->valid && st->message[0] != '\0')
        ds_err_set(err, "%s %s: %ld %s: %s", method, p, status,
                   st->reason[0] ? st->reason : "Failure", st->message);
    else
        ds_err_set(err, "%s %s: HTTP %ld", method, p, status);
}

void kube_response_free(kube_response *resp)
{
    if (resp == NULL)
        return;
    free(resp->body);
    resp->body = NULL;
    resp->body_len = 0;
}

int kube_request(kube_client *c, const char *method, const char *path, const char *body,
                 const char *content_type, kube_response *resp, ds_err *err)
{
    return kube_request_ex(c, NULL, method, path, body, content_type, resp, err);
}

int kube_request_ex(kube_client *c, const kube_request_opts *ro, const char *method,
                    const char *path, const char *body, const char *content_type,
                    kube_response *resp, ds_err *err)
{
    kube_request_opts none = {0};
    if (ro == NULL)
        ro = &none;
    memset(resp, 0, sizeof *resp);
    if (content_type == NULL)
        content_type = "application/json";
    char *url = make_url(c, path, err);
    if (url == NULL)
        return -1;
    char p[256];
    path_for_msg(path, p, sizeof p);
    int max_retries = ro->no_retry ? 0 : c->opts.max_retries;
    double timeout = ro->timeout_s > 0 ? ro->timeout_s : c->opts.request_timeout_s;
    int result = -1;
    for (int attempt = 0;; attempt++) {
        xfer x = {.c = c, .cancel = ro->cancel};
        ds_bytebuf_init(&x.body, c->opts.max_body_bytes);
        long status = 0;
        bool reusable;
        ds_err e = {{0}};
        if (throttle(c, ro->cancel) != 0) {
            ds_bytebuf_free(&x.body);
            resp->status = 0;
            ds_err_set(err, "%s %s: cancelled", method, p);
            break;
        }
        CURLcode rc =
            perform(c, &x, method, url, body, content_type, timeout, 0, &status, &e, &reusable);
        resp->attempts = attempt + 1;
        bool retry = false;
        double delay = 0;
        /* A final status read before the transport failed (an answer cut after its head) is
         * the server's decision: kept as the answer, not retried (tests/kube/test_cut_answer.c). */
        bool final_cut = rc != CURLE_OK && status >= 400 && !kube_status_retryable(status) &&
                         !x.body.overflow && !cancelled(c, ro->cancel);
        if (rc != CURLE_OK && !final_cut) {
            status = 0;
            if (e.msg[0] == '\0') {
                if (x.body.overflow)
                    ds_err_set(&e, "%s %s: response body larger than %zu bytes", method, p,
                               c->opts.max_body_bytes);
                else if (cancelled(c, ro->cancel))
                    ds_err_set(&e, "%s %s: cancelled", method, p);
                else
                    ds_err_set(&e, "%s %s: %s (%s)", method, p, curl_easy_strerror(rc),
                               c->cfg->server);
            }
            /* Retry transport failures, except TLS verification failures (fail closed), local
             * errors and an oversized body. */
            retry = !x.body.overflow && !cancelled(c, ro->cancel) &&
                    rc != CURLE_PEER_FAILED_VERIFICATION && rc != CURLE_SSL_CACERT_BADFILE &&
                    rc != CURLE_SSL_CERTPROBLEM && rc != CURLE_OUT_OF_MEMORY &&
                    rc != CURLE_FAILED_INIT && rc != CURLE_LOGIN_DENIED &&
                    rc != CURLE_URL_MALFORMAT && rc != CURLE_UNSUPPORTED_PROTOCOL;
            ds_bytebuf_free(&x.body);
        } else {
            free(resp->body);
            resp->body = ds_bytebuf_take(&x.body, &resp->body_len);
            resp->status = status;
            if (resp->body == NULL) {
                ds_err_set(err, "out of memory");
                break;
            }
            if (status >= 200 && status < 300) {
                result = 0;
                break;
            }
            kube_status_parse(resp->body, resp->body_len, &resp->st);
            set_http_error(method, path, status, &resp->st, &e);
            retry = kube_status_retryable(status) && !(status == 429 && ro->no_retry_429);
            delay = x.retry_after_s;
            if (resp->st.retry_after_s > delay)
                delay = resp->st.retry_after_s;
        }
        resp->status = status;
        err_copy(err, &e);
        if (!retry || attempt >= max_retries || cancelled(c, ro->cancel))
            break;
        double backoff = kube_client_backoff(c, attempt);
        if (delay > c->opts.retry_after_max_s)
            delay = c->opts.retry_after_max_s;
        if (delay < backoff)
            delay = backoff;
        KLOG_WARN("client", "%s (attempt %d of %d; retrying in %.2fs)", e.msg, attempt + 1,
                  max_retries + 1, delay);
        if (kube_client_sleep(c, delay, ro->cancel) != 0)
            break;
    }
    free(url);
    return result;
}

int kube_response_json(const kube_response *resp, const char *path, json_t **out, ds_err *err)
{
    json_error_t jerr;
    char p[256];
    path_for_msg(path, p, sizeof p);
    /* JSON_ALLOW_NUL: the API server accepts "\u0000" in annotation values; one such pod must
     * not make a whole list unreadable (the object decoder checks the strings it keeps). */
    *out = json_loadb(resp->body, resp->body_len, JSON_ALLOW_NUL, &jerr);
    if (*out == NULL)
        return ds_err_set(err, "%s: invalid JSON in response at line %d column %d: %s", p,
                          jerr.line, jerr.column, jerr.text);
    return 0;
}

int kube_get_json(kube_client *c, const char *path, json_t **out, kube_response *resp, ds_err *err)
{
    kube_response local;
    kube_response *r = resp != NULL ? resp : &local;
    *out = NULL;
    int rc = kube_request(c, "GET", path, NULL, NULL, r, err);
    if (rc == 0)
        rc = kube_response_json(r, path, out, err);
    if (resp == NULL)
        kube_response_free(&local);
    return rc;
}

int kube_stream(kube_client *c, const char *path, double timeout_s, double idle_timeout_s,
                const atomic_bool *cancel, kube_stream_cb on_data, void *user, kube_response *resp,
                ds_err *err)
{
    memset(resp, 0, sizeof *resp);
    char *url = make_url(c, path, err);
    if (url == NULL)
        return -1;
    char p[256];
    path_for_msg(path, p, sizeof p);
    xfer x = {.c = c, .on_data = on_data, .user = user, .cancel = cancel};
    ds_bytebuf_init(&x.body, STREAM_ERROR_BODY_MAX);
    long status = 0;
    bool reusable;
    ds_err e = {{0}};
    CURLcode rc =
        perform(c, &x, "GET", url, NULL, NULL, timeout_s, idle_timeout_s, &status, &e, &reusable);
    free(url);
    resp->attempts = 1;
    resp->status = status;
    int result = -1;
    if (x.stream_ok && status == 200 && (rc == CURLE_OK || rc == CURLE_OPERATION_TIMEDOUT) &&
        !x.callback_stop) {
        /* The server closed the stream (timeoutSeconds) or our overall limit ended it. */
        result = 0;
    } else if (x.callback_stop) {
        ds_err_set(err, "GET %s: stopped by the stream consumer", p);
    } else if (rc != CURLE_OK) {
        if (e.msg[0] != '\0')
            err_copy(err, &e);
        else if (cancelled(c, cancel))
            ds_err_set(err, "GET %s: cancelled", p);
        else
            ds_err_set(err, "GET %s: %s (%s)", p, curl_easy_strerror(rc), c->cfg->server);
        if (!x.stream_ok)
            resp->status = 0;
    } else {
        resp->body = ds_bytebuf_take(&x.body, &resp->body_len);
        kube_status_parse(resp->body, resp->body_len, &resp->st);
        set_http_error("GET", path, status, &resp->st, err);
    }
    ds_bytebuf_free(&x.body);
    return result;
}
