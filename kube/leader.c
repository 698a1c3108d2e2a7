/* leader.c: Lease-based leader election (see leader.h). */
#include "leader.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "kutil.h"
#include "log.h"
#include "writes.h"

#define HOLDER_MAX 256

struct kube_leader {
    kube_client *client;
    kube_leader_opts opts;
    char *ns, *name, *identity;
    char path[1024];
    char collection[512];
    pthread_t thread;
    bool started;
    atomic_bool stopping;
    pthread_mutex_t lock;
    bool leading;
    double last_renew_mono; /* start of the last successful acquire/renew */
    char holder[HOLDER_MAX];
    /* Candidate-side observation of the record (elector thread only). */
    char observed_rv[64];
    char observed_holder[HOLDER_MAX];
    char observed_renew[64];
    double observed_mono;
    uint64_t rng;
};

static void set_holder(kube_leader *le, const char *h)
{
    bool changed;
    pthread_mutex_lock(&le->lock);
    changed = strcmp(le->holder, h) != 0;
    snprintf(le->holder, sizeof le->holder, "%s", h);
    pthread_mutex_unlock(&le->lock);
    if (changed && h[0] != '\0') {
        KLOG_INFO("leader", "lease %s/%s: holder is now %s", le->ns, le->name, h);
        if (le->opts.on_new_leader != NULL)
            le->opts.on_new_leader(le->opts.user, h);
    }
}

/* A failed request, logged unless the client was shut down (then all requests fail). */
static void request_failed(kube_leader *le, const char *doing, const char *msg)
{
    if (!kube_client_is_shutdown(le->client))
        KLOG_WARN("leader", "%s: %s", doing, msg);
}

/* Create (POST) or update (PUT) the Lease with this identity as holder; takes the lease object.
 * 1: written; 0: someone else wrote first (409); -1: error (logged with `doing`). */
static int write_lease(kube_leader *le, const kube_request_opts *ro, const char *method,
                       const char *path, json_t *lease, bool acquired, const char *doing)
{
    char *body = lease != NULL ? json_dumps(lease, JSON_COMPACT) : NULL;
    json_decref(lease);
    if (body == NULL)
        return -1;
    kube_response resp;
    ds_err err = {{0}};
    int rc = kube_request_ex(le->client, ro, method, path, body, NULL, &resp, &err);
    free(body);
    long status = resp.status;
    kube_response_free(&resp);
    if (rc == 0) {
        if (acquired)
            KLOG_INFO("leader", "lease %s/%s: acquired by %s", le->ns, le->name, le->identity);
        set_holder(le, le->identity);
        return 1;
    }
    if (status == 409)
        return 0; /* someone else wrote it first */
    request_failed(le, doing, err.msg);
    return -1;
}

/* One attempt to acquire or renew. 1: we hold the lease now; 0: someone else does or the update
 * lost a race; -1: error talking to the server. */
static int try_acquire_or_renew(kube_leader *le)
{
    double timeout = le->opts.renew_deadline_s / 2;
    if (timeout < 1)
        timeout = 1;
    kube_request_opts ro = {.no_retry = true, .timeout_s = timeout, .cancel = &le->stopping};
    char now[40];
    kube_format_microtime(rt_wall_now(), now, sizeof now);
    int duration = (int)(le->opts.lease_duration_s + 0.5);
    kube_response resp;
    ds_err err = {{0}};
    int rc = kube_request_ex(le->client, &ro, "GET", le->path, NULL, NULL, &resp, &err);
    if (rc != 0 && resp.status == 404) {
        kube_response_free(&resp);
        json_t *lease = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:i, s:s, s:s, s:i}}",
                                  "apiVersion", "coordination.k8s.io/v1", "kind", "Lease",
                                  "metadata", "name", le->name, "namespace", le->ns, "spec",
                                  "holderIdentity", le->identity, "leaseDurationSeconds", duration,
                                  "acquireTime", now, "renewTime", now, "leaseTransitions", 0);
        return write_lease(le, &ro, "POST", le->collection, lease, false, "creating lease");
    }
    if (rc != 0) {
        request_failed(le, "reading lease", err.msg);
        kube_response_free(&resp);
        return -1;
    }
    json_t *lease;
    rc = kube_response_json(&resp, le->path, &lease, &err);
    kube_response_free(&resp);
    if (rc != 0) {
        KLOG_WARN("leader", "%s", err.msg);
        return -1;
    }
    json_t *md = json_object_get(lease, "metadata");
    json_t *spec = json_object_get(lease, "spec");
    if (!json_is_object(spec)) {
        spec = json_object();
        json_object_set_new(lease, "spec", spec);
    }
    const char *rv = json_string_value(json_object_get(md, "resourceVersion"));
    const char *holder = json_string_value(json_object_get(spec, "holderIdentity"));
    const char *renew = json_string_value(json_object_get(spec, "renewTime"));
    json_t *dur = json_object_get(spec, "leaseDurationSeconds");
    json_t *trans = json_object_get(spec, "leaseTransitions");
    if (holder == NULL)
        holder = "";
    if (renew == NULL)
        renew = "";
    if (rv == NULL || strlen(rv) >= sizeof le->observed_rv || strlen(holder) >= HOLDER_MAX ||
        strlen(renew) >= sizeof le->observed_renew) {
        KLOG_WARN("leader", "lease %s/%s: malformed record", le->ns, le->name);
        json_decref(lease);
        return -1;
    }
    double now_mono = rt_mono_now();
    if (strcmp(holder, le->observed_holder) != 0 || strcmp(renew, le->observed_renew) != 0 ||
        le->observed_mono == 0) {
        snprintf(le->observed_holder, sizeof le->observed_holder, "%s", holder);
        snprintf(le->observed_renew, sizeof le->observed_renew, "%s", renew);
        le->observed_mono = now_mono;
    }
    snprintf(le->observed_rv, sizeof le->observed_rv, "%s", rv);
    set_holder(le, holder);
    double their_duration = json_is_integer(dur) ? (double)json_integer_value(dur) : 0;
    bool mine = strcmp(holder, le->identity) == 0;
    if (!mine && holder[0] != '\0' && le->observed_mono + their_duration > now_mono) {
        json_decref(lease);
        return 0; /* held by someone else and not expired */
    }
    json_object_set_new(spec, "holderIdentity", json_string(le->identity));
    json_object_set_new(spec, "leaseDurationSeconds", json_integer(duration));
    json_object_set_new(spec, "renewTime", json_string(now));
    if (!mine) {
        json_object_set_new(spec, "acquireTime", json_string(now));
        json_object_set_new(
            spec, "leaseTransitions",
            json_integer(json_is_integer(trans) ? json_integer_value(trans) + 1 : 1));
    }
    return write_lease(le, &ro, "PUT", le->path, lease, !mine, "updating lease");
}

static void release(kube_leader *le)
{
    kube_request_opts ro = {.no_retry = true, .timeout_s = 5};
    kube_response resp;
    ds_err err = {{0}};
    if (kube_request_ex(le->client, &ro, "GET", le->path, NULL, NULL, &resp, &err) != 0) {
        kube_response_free(&resp);
        KLOG_WARN("leader", "release: %s", err.msg);
        return;
    }
    json_t *lease;
    int rc = kube_response_json(&resp, le->path, &lease, &err);
    kube_response_free(&resp);
    if (rc != 0)
        return;
    json_t *spec = json_object_get(lease, "spec");
    const char *holder = json_string_value(json_object_get(spec, "holderIdentity"));
    if (!json_is_object(spec) || holder == NULL || strcmp(holder, le->identity) != 0) {
        json_decref(lease);
        return;
    }
    char now[40];
    kube_format_microtime(rt_wall_now(), now, sizeof now);
    json_object_del(spec, "holderIdentity");
    json_object_set_new(spec, "leaseDurationSeconds", json_integer(1));
    json_object_set_new(spec, "renewTime", json_string(now));
    char *body = json_dumps(lease, JSON_COMPACT);
    json_decref(lease);
    if (body == NULL)
        return;
    if (kube_request_ex(le->client, &ro, "PUT", le->path, body, NULL, &resp, &err) == 0)
        KLOG_INFO("leader", "lease %s/%s: released by %s", le->ns, le->name, le->identity);
    else
        KLOG_WARN("leader", "release: %s", err.msg);
    kube_response_free(&resp);
    free(body);
}

static double jittered(kube_leader *le, double base)
{
    return base * (1.0 + 0.2 * kutil_rand01(&le->rng));
}

static void stop_leading(kube_leader *le, const char *why)
{
    pthread_mutex_lock(&le->lock);
    bool was = le->leading;
    le->leading = false;
    pthread_mutex_unlock(&le->lock);
    if (was) {
        KLOG_WARN("leader", "lease %s/%s: %s stops leading: %s", le->ns, le->name, le->identity,
                  why);
        if (le->opts.on_stopped != NULL)
            le->opts.on_stopped(le->opts.user);
    }
}

/* Stop asked, or the client shut down (every request would fail at once: retrying would spin). */
static bool ending(kube_leader *le)
{
    return atomic_load(&le->stopping) || kube_client_is_shutdown(le->client);
}

static void *leader_main(void *arg)
{
    kube_leader *le = arg;
    while (!ending(le)) {
        /* Candidate. */
        double start = rt_mono_now();
        int r = try_acquire_or_renew(le);
        if (r != 1) {
            kube_client_sleep(le->client, jittered(le, le->opts.retry_period_s), &le->stopping);
            continue;
        }
        if (ending(le))
            break;
        pthread_mutex_lock(&le->lock);
        le->leading = true;
        le->last_renew_mono = start;
        pthread_mutex_unlock(&le->lock);
        KLOG_INFO("leader", "lease %s/%s: %s starts leading", le->ns, le->name, le->identity);
        if (le->opts.on_started != NULL)
            le->opts.on_started(le->opts.user);
        /* Leader: renew until a renewal is overdue. */
        while (!ending(le)) {
            if (kube_client_sleep(le->client, le->opts.retry_period_s, &le->stopping) != 0)
                break;
            double t = rt_mono_now();
            r = try_acquire_or_renew(le);
            pthread_mutex_lock(&le->lock);
            if (r == 1)
                le->last_renew_mono = t;
            double since = rt_mono_now() - le->last_renew_mono;
            pthread_mutex_unlock(&le->lock);
            if (r == 0) {
                stop_leading(le, "the lease was taken by another holder");
                break;
            }
            if (since >= le->opts.renew_deadline_s) {
                stop_leading(le, "could not renew within the renew deadline");
                break;
            }
        }
    }
    pthread_mutex_lock(&le->lock);
    bool was = le->leading;
    pthread_mutex_unlock(&le->lock);
    bool client_down = kube_client_is_shutdown(le->client);
    if (client_down && !atomic_load(&le->stopping))
        KLOG_INFO("leader", "lease %s/%s: the API client is shut down; the election stops", le->ns,
                  le->name);
    if (was) {
        stop_leading(le, client_down ? "the API client is shut down" : "stopping");
        if (!client_down)
            release(le); /* a shut-down client cannot: the lease expires instead */
    }
    return NULL;
}

int kube_leader_new(kube_client *client, const kube_leader_opts *opts, kube_leader **out,
                    ds_err *err)
{
    *out = NULL;
    kube_leader_opts o = *opts;
    if (o.lease_duration_s <= 0)
        o.lease_duration_s = 15;
    if (o.renew_deadline_s <= 0)
        o.renew_deadline_s = 10;
    if (o.retry_period_s <= 0)
        o.retry_period_s = 2;
    if (!kube_valid_name(o.namespace) || !kube_valid_name(o.name))
        return ds_err_set(err, "leader election: invalid lease namespace or name");
    if (o.identity == NULL || o.identity[0] == '\0' || strlen(o.identity) >= HOLDER_MAX)
        return ds_err_set(err, "leader election: identity must be 1..%d characters",
                          HOLDER_MAX - 1);
    if (o.renew_deadline_s >= o.lease_duration_s)
        return ds_err_set(err,
                          "leader election: renewDeadline must be below leaseDuration (got %g "
                          ">= %g)",
                          o.renew_deadline_s, o.lease_duration_s);
    if (o.renew_deadline_s <= 1.2 * o.retry_period_s)
        return ds_err_set(err,
                          "leader election: renewDeadline must exceed 1.2 * retryPeriod (got %g "
                          "and %g)",
                          o.renew_deadline_s, o.retry_period_s);
    kube_leader *le = calloc(1, sizeof *le);
    if (le == NULL)
        return ds_err_set(err, "out of memory");
    pthread_mutex_init(&le->lock, NULL);
    le->client = client;
    le->ns = kutil_strdup(o.namespace);
    le->name = kutil_strdup(o.name);
    le->identity = kutil_strdup(o.identity);
    if (le->ns == NULL || le->name == NULL || le->identity == NULL) {
        kube_leader_free(le);
        return ds_err_set(err, "out of memory");
    }
    o.namespace = le->ns;
    o.name = le->name;
    o.identity = le->identity;
    le->opts = o;
    snprintf(le->collection, sizeof le->collection,
             "/apis/coordination.k8s.io/v1/namespaces/%s/leases", le->ns);
    snprintf(le->path, sizeof le->path, "%s/%s", le->collection, le->name);
    atomic_init(&le->stopping, false);
    le->rng = (uint64_t)(rt_wall_now() * 1e6) ^ (uint64_t)(uintptr_t)le;
    *out = le;
    return 0;
}

int kube_leader_start(kube_leader *le, ds_err *err)
{
    if (le->started)
        return ds_err_set(err, "leader election: already started");
    if (pthread_create(&le->thread, NULL, leader_main, le) != 0)
        return ds_err_set(err, "leader election: cannot create thread");
    le->started = true;
    return 0;
}

void kube_leader_stop(kube_leader *le)
{
    if (le == NULL || !le->started)
        return;
    atomic_store(&le->stopping, true);
    pthread_join(le->thread, NULL);
    le->started = false;
}

void kube_leader_free(kube_leader *le)
{
    if (le == NULL)
        return;
    kube_leader_stop(le);
    pthread_mutex_destroy(&le->lock);
    free(le->ns);
    free(le->name);
    free(le->identity);
    free(le);
}

bool kube_leader_is_leader(kube_leader *le)
{
    pthread_mutex_lock(&le->lock);
    bool l = le->leading && rt_mono_now() - le->last_renew_mono < le->opts.renew_deadline_s;
    pthread_mutex_unlock(&le->lock);
    return l;
}

void kube_leader_holder(kube_leader *le, char *buf, size_t size)
{
    pthread_mutex_lock(&le->lock);
    snprintf(buf, size, "%s", le->holder);
    pthread_mutex_unlock(&le->lock);
}
