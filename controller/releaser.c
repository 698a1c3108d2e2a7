/* releaser.c: the release window's threads (see releaser.h). */
#include "releaser.h"

#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "writes.h"

static void req_free(ctl_release_req *q)
{
    if (q == NULL)
        return;
    free(q->ns);
    free(q->name);
    for (size_t i = 0; i < 2 * q->n_kv; i++)
        free(q->kv[i]);
    free(q);
}

/* One release ended: done, then the count (so that a waiter sees every done called). */
static void settle(ctl_releaser *r, ctl_release_req *q, int rc, const ds_err *err, double seconds)
{
    r->done(r->ud, q, rc, err, seconds);
    req_free(q);
    pthread_mutex_lock(&r->mu);
    r->pending--;
    pthread_cond_broadcast(&r->settled);
    pthread_mutex_unlock(&r->mu);
}

static void send_one(ctl_releaser *r, ctl_release_req *q)
{
    if (r->may_write != NULL && !r->may_write(r->ud)) {
        ds_err none = {{0}};
        settle(r, q, CTL_RELEASE_SKIPPED, &none, 0);
        return;
    }
    const char *kv[2 * (CTL_RELEASER_MAX_KV + 1)];
    size_t n = 0;
    char ts[40];
    if (r->stamp_key != NULL) {
        kube_format_microtime(rt_wall_now(), ts, sizeof ts);
        kv[0] = r->stamp_key;
        kv[1] = ts;
        n = 1;
    }
    for (size_t i = 0; i < q->n_kv; i++, n++) {
        kv[2 * n] = q->kv[2 * i];
        kv[2 * n + 1] = q->kv[2 * i + 1];
    }
    ds_err err = {{0}};
    double t0 = rt_mono_now();
    int rc = kube_release_pod(r->client, q->ns, q->name, r->gate, kv, n, &err);
    settle(r, q, rc, &err, rt_mono_now() - t0);
}

static void *run(void *arg)
{
    ctl_releaser *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (r->head == NULL && !r->stop)
            pthread_cond_wait(&r->work, &r->mu);
        if (r->stop)
            break;
        ctl_release_req *q = r->head;
        r->head = q->next;
        if (r->head == NULL)
            r->tail = NULL;
        q->next = NULL;
        r->in_flight++;
        if (r->in_flight > r->max_in_flight)
            r->max_in_flight = r->in_flight;
        pthread_mutex_unlock(&r->mu);
        send_one(r, q);
        pthread_mutex_lock(&r->mu);
        r->in_flight--;
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

int ctl_releaser_start(ctl_releaser *r, kube_client *client, const char *gate,
                       const char *stamp_key, size_t window, ctl_releaser_done done,
                       ctl_releaser_may may_write, void *ud, ds_err *err)
{
    memset(r, 0, sizeof *r);
    if (client == NULL || gate == NULL || done == NULL)
        return ds_err_set(err, "release window: missing client, gate or callback");
    if (window < 1 || window > CTL_RELEASER_MAX_WINDOW)
        return ds_err_set(err, "release window: %zu threads (1..%d)", window,
                          CTL_RELEASER_MAX_WINDOW);
    r->client = client;
    r->gate = gate;
    r->stamp_key = stamp_key;
    r->done = done;
    r->may_write = may_write;
    r->ud = ud;
    if (pthread_mutex_init(&r->mu, NULL) != 0)
        return ds_err_set(err, "release window: no mutex");
    if (pthread_cond_init(&r->work, NULL) != 0) {
        pthread_mutex_destroy(&r->mu);
        return ds_err_set(err, "release window: no condition variable");
    }
    if (pthread_cond_init(&r->settled, NULL) != 0) {
        pthread_cond_destroy(&r->work);
        pthread_mutex_destroy(&r->mu);
        return ds_err_set(err, "release window: no condition variable");
    }
    r->started = true;
    for (size_t i = 0; i < window; i++) {
        if (pthread_create(&r->threads[i], NULL, run, r) != 0) {
            ctl_releaser_stop(r);
            return ds_err_set(err, "release window: cannot start thread %zu of %zu", i + 1, window);
        }
        r->n_threads++;
    }
    return 0;
}

int ctl_releaser_submit(ctl_releaser *r, const char *ns, const char *name, const char *const *kv,
                        size_t n_kv, void *payload)
{
    if (!r->started || ns == NULL || name == NULL || n_kv > CTL_RELEASER_MAX_KV)
        return -1;
    ctl_release_req *q = calloc(1, sizeof *q);
    if (q == NULL)
        return -1;
    q->ns = strdup(ns);
    q->name = strdup(name);
    bool ok = q->ns != NULL && q->name != NULL;
    for (size_t i = 0; ok && i < n_kv; i++) {
        q->n_kv = i + 1;
        q->kv[2 * i] = kv[2 * i] != NULL ? strdup(kv[2 * i]) : NULL;
        q->kv[2 * i + 1] = kv[2 * i + 1] != NULL ? strdup(kv[2 * i + 1]) : NULL;
        ok = q->kv[2 * i] != NULL && (kv[2 * i + 1] == NULL || q->kv[2 * i + 1] != NULL);
    }
    if (!ok) {
        req_free(q);
        return -1;
    }
    q->payload = payload;
    pthread_mutex_lock(&r->mu);
    if (r->stop) {
        pthread_mutex_unlock(&r->mu);
        req_free(q);
        return -1;
    }
    if (r->tail != NULL)
        r->tail->next = q;
    else
        r->head = q;
    r->tail = q;
    r->pending++;
    pthread_cond_signal(&r->work);
    pthread_mutex_unlock(&r->mu);
    return 0;
}

void ctl_releaser_wait(ctl_releaser *r)
{
    if (!r->started)
        return;
    pthread_mutex_lock(&r->mu);
    while (r->pending > 0)
        pthread_cond_wait(&r->settled, &r->mu);
    pthread_mutex_unlock(&r->mu);
}

size_t ctl_releaser_max_in_flight(ctl_releaser *r)
{
    if (!r->started)
        return 0;
    pthread_mutex_lock(&r->mu);
    size_t n = r->max_in_flight;
    pthread_mutex_unlock(&r->mu);
    return n;
}

void ctl_releaser_stop(ctl_releaser *r)
{
    if (!r->started)
        return;
    pthread_mutex_lock(&r->mu);
    r->stop = true;
    pthread_cond_broadcast(&r->work);
    pthread_mutex_unlock(&r->mu);
    for (size_t i = 0; i < r->n_threads; i++)
        pthread_join(r->threads[i], NULL);
    /* No thread left: what is still queued is skipped. */
    ctl_release_req *q = r->head;
    r->head = r->tail = NULL;
    ds_err none = {{0}};
    while (q != NULL) {
        ctl_release_req *next = q->next;
        settle(r, q, CTL_RELEASE_SKIPPED, &none, 0);
        q = next;
    }
    pthread_cond_destroy(&r->settled);
    pthread_cond_destroy(&r->work);
    pthread_mutex_destroy(&r->mu);
    r->started = false;
    r->n_threads = 0;
}
