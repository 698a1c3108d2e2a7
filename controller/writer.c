/* writer.c: the write-queue thread (see writer.h). */
#include "writer.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "controller.h"
#include "clock.h"
#include "log.h"
#include "writes.h"

/* Called with w->mu held, so that the gauge follows the queue's changes in order. */
static void set_depth(ctl_writer *w, size_t depth)
{
    metrics_set(w->c->m.wq_depth, NULL, (double)depth);
}

static void observe(ctl_writer *w, const char *stage, double seconds)
{
    const char *lv[] = {stage};
    metrics_observe(w->c->m.wq_latency, lv, seconds);
}

/* One write: the patch, then its Event (when it has one and the patch succeeded). */
static void carry_out(ctl_writer *w, const ctl_wq_item *it)
{
    ctl_controller *c = w->c;
    if (!ctl_may_write(c)) {
        metrics_add(c->m.wq_dropped, NULL, 1);
        return;
    }
    const char *kv[2 * CTL_WQ_MAX_KV];
    for (size_t i = 0; i < 2 * it->n_kv; i++)
        kv[i] = it->kv[i];
    bool publish = strcmp(it->kind, CTL_WQ_KIND_PUBLISH) == 0;
    double t0 = rt_mono_now();
    observe(w, "wait", t0 - it->enqueued_at);
    ds_err err = {{0}};
    int rc = kube_annotate_pod_pairs(c->client, it->ns, it->name, kv, it->n_kv, &err);
    observe(w, "request", rt_mono_now() - t0);
    if (rc != 0) {
        KLOG_DEBUG(publish ? "publish" : "release", "pod %s/%s: annotation %s: %s", it->ns,
                   it->name, it->kv[0], err.msg);
        const char *lv[] = {publish ? "publish" : "waiting-reason"};
        metrics_add(c->m.api_errors, lv, 1);
        return;
    }
    if (publish)
        metrics_add(c->m.annotations, NULL, 1);
    if (it->event_reason == NULL)
        return;
    kube_object_ref ref = {
        .api_version = "v1", .kind = "Pod", .ns = it->ns, .name = it->name, .uid = it->uid};
    if (kube_create_event(c->client, &ref, "Normal", it->event_reason, it->event_msg, CTL_COMPONENT,
                          &err) != 0) {
        KLOG_WARN("events", "event %s on Pod %s/%s: %s", it->event_reason, it->ns, it->name,
                  err.msg);
        const char *lv[] = {"event"};
        metrics_add(c->m.api_errors, lv, 1);
        return;
    }
}

static void *run(void *arg)
{
    ctl_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        ctl_wq_item it;
        double wait = 1.0;
        int rc = ctl_wq_pop(&w->q, rt_mono_now(), &it, &wait);
        if (rc == 1) {
            w->busy = &it;
            set_depth(w, w->q.n);
            pthread_mutex_unlock(&w->mu);
            carry_out(w, &it);
            pthread_mutex_lock(&w->mu);
            w->busy = NULL;
            pthread_cond_broadcast(&w->done);
            ctl_wq_item_free(&it);
            continue;
        }
        if (rc == 0 || wait > 1.0)
            wait = 1.0; /* wake up regularly to notice stop */
        if (!(wait > 0.001))
            wait = 0.001;
        rt_cond_wait_s(&w->cv, &w->mu, wait);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int ctl_writer_start(ctl_writer *w, struct ctl_controller *c, size_t max, double qps)
{
    memset(w, 0, sizeof *w);
    w->c = c;
    if (ctl_wq_init(&w->q, max, qps, rt_mono_now()) != 0)
        return -1;
    pthread_mutex_init(&w->mu, NULL);
    if (rt_cond_init(&w->cv) != 0) {
        pthread_mutex_destroy(&w->mu);
        ctl_wq_free(&w->q);
        return -1;
    }
    pthread_cond_init(&w->done, NULL);
    if (pthread_create(&w->thread, NULL, run, w) != 0) {
        pthread_cond_destroy(&w->done);
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        ctl_wq_free(&w->q);
        return -1;
    }
    w->started = true;
    return 0;
}

ctl_wq_result ctl_writer_push(ctl_writer *w, const ctl_wq_write *wr)
{
    if (!w->started)
        return CTL_WQ_DROPPED;
    pthread_mutex_lock(&w->mu);
    ctl_wq_result r = ctl_wq_push(&w->q, wr, rt_mono_now());
    if (r == CTL_WQ_ADDED || r == CTL_WQ_COALESCED)
        pthread_cond_signal(&w->cv);
    set_depth(w, w->q.n);
    pthread_mutex_unlock(&w->mu);
    if (r == CTL_WQ_COALESCED)
        metrics_add(w->c->m.wq_coalesced, NULL, 1);
    else if (r == CTL_WQ_DROPPED)
        metrics_add(w->c->m.wq_dropped, NULL, 1);
    return r;
}

void ctl_writer_cancel(ctl_writer *w, const char *ns, const char *name, const char *kind)
{
    if (!w->started)
        return;
    pthread_mutex_lock(&w->mu);
    ctl_wq_cancel(&w->q, ns, name, kind);
    set_depth(w, w->q.n);
    while (w->busy != NULL && ctl_wq_item_is(w->busy, ns, name, kind))
        pthread_cond_wait(&w->done, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

size_t ctl_writer_depth(ctl_writer *w)
{
    if (!w->started)
        return 0;
    pthread_mutex_lock(&w->mu);
    size_t n = w->q.n;
    pthread_mutex_unlock(&w->mu);
    return n;
}

void ctl_writer_stop(ctl_writer *w)
{
    if (!w->started)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    size_t n = ctl_wq_clear(&w->q);
    if (n > 0)
        KLOG_INFO("main", "%zu informational pod writes dropped at shutdown", n);
    ctl_wq_free(&w->q);
    pthread_cond_destroy(&w->done);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    w->started = false;
    set_depth(w, 0);
}
