/* informer.c: list+watch loop with relist-and-diff on 410, reconnect with backoff, and the cache
 * it keeps (see informer.h). */
#include "informer.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytebuf.h"
#include "clock.h"
#include "kutil.h"
#include "log.h"
#include "watchstream.h"

#define RV_MAX       64
#define PATH_MAX_LEN 4096

struct kube_informer {
    kube_client *client;
    kube_informer_opts opts;
    char *ns, *label_selector, *field_selector; /* owned copies */
    char *gpu_names_block;                      /* owned copies of decode.gpu_names */
    const char **gpu_names;
    /* Names set by kube_informer_set_gpu_names, taken by the watch thread before its next list
     * (under `lock`). */
    bool redecode;
    char *pending_block;
    const char **pending_names;
    size_t n_pending;
    kube_cache *cache;
    char what[128]; /* "pods in batch" for logs */

    pthread_t thread;
    bool started;
    atomic_bool stopping;
    atomic_bool abort_watch; /* ends the current watch: stop or hold */
    atomic_bool hold;

    pthread_mutex_t lock; /* status fields, `ended` and the debug rv below */
    pthread_cond_t synced_cond;
    kube_informer_status st;
    bool ended; /* the thread has returned (the client was shut down) */
    double last_ok_mono;
    char debug_rv[RV_MAX];

    /* Watch-thread state. */
    char rv[RV_MAX];
    uint64_t rng;
    kube_json_splitter splitter;
    bool gone;          /* the stream reported 410 */
    bool stream_failed; /* the stream was malformed or reported another error */
    ds_err stream_err;
};

static void mark_ok(kube_informer *inf)
{
    pthread_mutex_lock(&inf->lock);
    inf->st.last_ok_wall = rt_wall_now();
    inf->last_ok_mono = rt_mono_now();
    snprintf(inf->st.resource_version, sizeof inf->st.resource_version, "%s", inf->rv);
    pthread_mutex_unlock(&inf->lock);
}

static void record_failure(kube_informer *inf, const char *msg)
{
    pthread_mutex_lock(&inf->lock);
    inf->st.failures++;
    snprintf(inf->st.last_error, sizeof inf->st.last_error, "%s", msg);
    pthread_mutex_unlock(&inf->lock);
}

static void count(kube_informer *inf, uint64_t *field)
{
    pthread_mutex_lock(&inf->lock);
    (*field)++;
    pthread_mutex_unlock(&inf->lock);
}

static void set_watching(kube_informer *inf, bool on)
{
    pthread_mutex_lock(&inf->lock);
    inf->st.watching = on;
    pthread_mutex_unlock(&inf->lock);
}

/* Append "&name=escaped(value)" when value is set. */
static int add_param(ds_bytebuf *b, const char *name, const char *value)
{
    if (value == NULL || value[0] == '\0')
        return 0;
    char *e = kutil_query_escape(value);
    if (e == NULL)
        return -1;
    int rc = ds_bytebuf_printf(b, "&%s=%s", name, e);
    free(e);
    return rc;
}

static int collection_path(kube_informer *inf, ds_bytebuf *b)
{
    ds_bytebuf_reset(b);
    if (ds_bytebuf_printf(b, "%s/", kube_kind_api_prefix(inf->opts.kind)) != 0)
        return -1;
    if (inf->ns != NULL && ds_bytebuf_printf(b, "namespaces/%s/", inf->ns) != 0)
        return -1;
    return ds_bytebuf_printf(b, "%s?", kube_kind_resource(inf->opts.kind));
}

static void apply_put(kube_informer *inf, kube_meta *obj, bool only_if_changed)
{
    const kube_meta *old = NULL;
    if (kube_cache_put(inf->cache, obj, &old) != 0) {
        KLOG_ERROR("informer", "%s: out of memory caching %s", inf->what, obj->name);
        kube_obj_unref(obj);
        return;
    }
    const kube_informer_callbacks *cb = &inf->opts.cb;
    if (old == NULL) {
        if (cb->on_add != NULL)
            cb->on_add(cb->user, obj);
    } else {
        bool changed = strcmp(old->resource_version, obj->resource_version) != 0;
        if ((changed || !only_if_changed) && cb->on_update != NULL)
            cb->on_update(cb->user, old, obj);
        kube_obj_unref(old);
    }
}

static void apply_delete(kube_informer *inf, const char *ns, const char *name,
                         const kube_meta *last)
{
    const kube_meta *old = NULL;
    kube_cache_remove(inf->cache, ns, name, &old);
    const kube_meta *shown = last != NULL ? last : old;
    if (shown != NULL && inf->opts.cb.on_delete != NULL)
        inf->opts.cb.on_delete(inf->opts.cb.user, shown);
    kube_obj_unref(old);
}

/* List everything (all pages) and make the cache equal to the result. Returns 0, -1 on failure,
 * or 1 when the list's continue token expired (retry at once). */
static int list_and_replace(kube_informer *inf)
{
    ds_bytebuf path;
    ds_bytebuf_init(&path, PATH_MAX_LEN);
    kube_cache *fresh = kube_cache_new(inf->opts.kind);
    char cont[4096] = "";
    char list_rv[RV_MAX] = "";
    int rc = -1;
    size_t pages = 0, items = 0;
    kube_request_opts ro = {.cancel = &inf->stopping};
    if (fresh == NULL)
        goto out;
    for (;;) {
        if (collection_path(inf, &path) != 0 ||
            ds_bytebuf_printf(&path, "limit=%d", inf->opts.page_size) != 0 ||
            add_param(&path, "labelSelector", inf->label_selector) != 0 ||
            add_param(&path, "fieldSelector", inf->field_selector) != 0 ||
            add_param(&path, "continue", cont) != 0) {
            record_failure(inf, "list: request path too long");
            goto out;
        }
        kube_response resp;
        ds_err err = {{0}};
        json_t *body = NULL;
        int r = kube_request_ex(inf->client, &ro, "GET", path.data, NULL, NULL, &resp, &err);
        if (r == 0)
            r = kube_response_json(&resp, path.data, &body, &err);
        long status = resp.status;
        kube_response_free(&resp);
        if (r != 0) {
            if (status == 410 && cont[0] != '\0') {
                KLOG_INFO("informer", "%s: list continue token expired; listing again", inf->what);
                rc = 1;
                goto out;
            }
            if (kube_client_is_shutdown(inf->client))
                goto out; /* not a failure of the server: the loop ends */
            KLOG_WARN("informer", "%s: list failed: %s", inf->what, err.msg);
            record_failure(inf, err.msg);
            goto out;
        }
        const json_t *md = json_object_get(body, "metadata");
        const char *rv = json_string_value(json_object_get(md, "resourceVersion"));
        const char *next = json_string_value(json_object_get(md, "continue"));
        const json_t *list = json_object_get(body, "items");
        if (rv == NULL || strlen(rv) >= RV_MAX || (list != NULL && !json_is_array(list)) ||
            (next != NULL && strlen(next) >= sizeof cont)) {
            record_failure(inf, "list: response without a valid resourceVersion or items");
            KLOG_WARN("informer", "%s: list response without a valid resourceVersion or items",
                      inf->what);
            json_decref(body);
            goto out;
        }
        snprintf(list_rv, sizeof list_rv, "%s", rv);
        size_t i;
        json_t *it;
        json_array_foreach(list, i, it)
        {
            kube_meta *m;
            ds_err derr;
            if (kube_obj_decode(inf->opts.kind, it, &inf->opts.decode, &m, &derr) != 0) {
                KLOG_WARN("informer", "%s: skipping undecodable object: %s", inf->what, derr.msg);
                count(inf, &inf->st.decode_errors);
                continue;
            }
            const kube_meta *dup = NULL;
            if (kube_cache_put(fresh, m, &dup) != 0) {
                kube_obj_unref(m);
                json_decref(body);
                record_failure(inf, "list: out of memory");
                goto out;
            }
            kube_obj_unref(dup);
            items++;
        }
        pages++;
        snprintf(cont, sizeof cont, "%s", next != NULL ? next : "");
        json_decref(body);
        if (cont[0] == '\0')
            break;
        if (atomic_load(&inf->stopping))
            goto out;
    }

    /* Diff the fresh list against the cache: adds and updates, then deletions. */
    kube_obj_list now;
    if (kube_cache_list(fresh, &now) != 0) {
        record_failure(inf, "list: out of memory");
        goto out;
    }
    for (size_t i = 0; i < now.n; i++)
        apply_put(inf, (kube_meta *)kube_obj_ref(now.items[i]), true);
    kube_obj_list_free(&now);
    kube_obj_list cached;
    if (kube_cache_list(inf->cache, &cached) != 0) {
        record_failure(inf, "list: out of memory");
        goto out;
    }
    for (size_t i = 0; i < cached.n; i++) {
        const kube_meta *m = cached.items[i];
        const kube_meta *still = kube_cache_get(fresh, m->ns, m->name);
        if (still == NULL)
            apply_delete(inf, m->ns, m->name, NULL);
        kube_obj_unref(still);
    }
    kube_obj_list_free(&cached);
    snprintf(inf->rv, sizeof inf->rv, "%s", list_rv);
    KLOG_INFO("informer", "%s: listed %zu objects in %zu page(s) at resourceVersion %s", inf->what,
              items, pages, inf->rv);
    pthread_mutex_lock(&inf->lock);
    inf->st.lists++;
    inf->st.synced = true;
    pthread_cond_broadcast(&inf->synced_cond);
    pthread_mutex_unlock(&inf->lock);
    mark_ok(inf);
    if (inf->opts.cb.on_synced != NULL)
        inf->opts.cb.on_synced(inf->opts.cb.user);
    rc = 0;
out:
    kube_cache_free(fresh);
    ds_bytebuf_free(&path);
    return rc;
}

/* One watch event from the splitter. Non-zero stops the stream. */
static int on_event(void *user, const char *text, size_t len)
{
    kube_informer *inf = user;
    kube_watch_event ev;
    ds_err err = {{0}};
    if (kube_watch_event_parse(text, len, &ev, &err) != 0) {
        KLOG_WARN("informer", "%s: skipping a bad watch event: %s", inf->what, err.msg);
        count(inf, &inf->st.decode_errors);
        return 0;
    }
    int rc = 0;
    if (ev.type == KUBE_WATCH_ERROR) {
        kube_status st;
        kube_status_from_json(ev.object, &st);
        if (st.code == 410) {
            inf->gone = true;
        } else {
            inf->stream_failed = true;
            ds_err_set(&inf->stream_err, "watch ERROR event: %d %s: %s", st.code, st.reason,
                       st.message);
        }
        kube_watch_event_clear(&ev);
        return 1;
    }
    if (strlen(ev.resource_version) >= RV_MAX) {
        KLOG_WARN("informer", "%s: resourceVersion too long; ignoring event", inf->what);
        kube_watch_event_clear(&ev);
        return 0;
    }
    if (ev.type == KUBE_WATCH_BOOKMARK) {
        snprintf(inf->rv, sizeof inf->rv, "%s", ev.resource_version);
        kube_watch_event_clear(&ev);
        mark_ok(inf);
        return 0;
    }
    kube_meta *m = NULL;
    if (kube_obj_decode(inf->opts.kind, ev.object, &inf->opts.decode, &m, &err) != 0) {
        KLOG_WARN("informer", "%s: skipping undecodable %s event: %s", inf->what,
                  kube_watch_type_name(ev.type), err.msg);
        count(inf, &inf->st.decode_errors);
        if (ev.type == KUBE_WATCH_DELETED) {
            /* Still forget the object: a stale entry is worse than a missing callback. */
            const json_t *md = json_object_get(ev.object, "metadata");
            const char *name = json_string_value(json_object_get(md, "name"));
            if (name != NULL)
                apply_delete(inf, json_string_value(json_object_get(md, "namespace")), name, NULL);
        }
    } else if (ev.type == KUBE_WATCH_DELETED) {
        apply_delete(inf, m->ns, m->name, m);
        kube_obj_unref(m);
    } else {
        /* An ADDED or MODIFIED event for a version already cached (a replay) changes nothing. */
        apply_put(inf, m, true);
    }
    snprintf(inf->rv, sizeof inf->rv, "%s", ev.resource_version);
    kube_watch_event_clear(&ev);
    count(inf, &inf->st.events);
    mark_ok(inf);
    return rc;
}

static int on_stream_data(void *user, const char *data, size_t len)
{
    kube_informer *inf = user;
    if (!inf->st.watching) {
        set_watching(inf, true);
        mark_ok(inf);
    }
    ds_err err = {{0}};
    int rc = kube_splitter_feed(&inf->splitter, data, len, on_event, inf, &err);
    if (rc < 0) {
        inf->stream_failed = true;
        inf->stream_err = err;
    }
    return rc != 0;
}

typedef enum { WATCH_ENDED, WATCH_GONE, WATCH_FAILED } watch_result;

static watch_result watch_once(kube_informer *inf)
{
    ds_bytebuf path;
    ds_bytebuf_init(&path, PATH_MAX_LEN);
    int t = inf->opts.watch_timeout_s;
    int timeout = t + (int)(kutil_rand01(&inf->rng) * t);
    if (collection_path(inf, &path) != 0 ||
        ds_bytebuf_printf(&path, "watch=1&allowWatchBookmarks=true&timeoutSeconds=%d", timeout) !=
            0 ||
        add_param(&path, "resourceVersion", inf->rv) != 0 ||
        add_param(&path, "labelSelector", inf->label_selector) != 0 ||
        add_param(&path, "fieldSelector", inf->field_selector) != 0) {
        ds_bytebuf_free(&path);
        record_failure(inf, "watch: request path too long");
        return WATCH_FAILED;
    }
    kube_splitter_reset(&inf->splitter);
    inf->gone = false;
    inf->stream_failed = false;
    count(inf, &inf->st.watch_starts);
    KLOG_DEBUG("informer", "%s: watching from resourceVersion %s", inf->what, inf->rv);
    kube_response resp;
    ds_err err = {{0}};
    int rc = kube_stream(inf->client, path.data, timeout + 30.0, inf->opts.idle_timeout_s,
                         &inf->abort_watch, on_stream_data, inf, &resp, &err);
    long status = resp.status;
    kube_response_free(&resp);
    ds_bytebuf_free(&path);
    set_watching(inf, false);
    if (inf->gone || status == 410) {
        KLOG_INFO("informer", "%s: resourceVersion %s is too old (410); relisting", inf->what,
                  inf->rv);
        return WATCH_GONE;
    }
    if (inf->stream_failed) {
        KLOG_WARN("informer", "%s: watch stream failed: %s", inf->what, inf->stream_err.msg);
        record_failure(inf, inf->stream_err.msg);
        return WATCH_FAILED;
    }
    if (rc == 0) {
        if (kube_splitter_pending(&inf->splitter))
            KLOG_DEBUG("informer", "%s: watch ended inside an event; resuming from %s", inf->what,
                       inf->rv);
        else
            mark_ok(inf);
        return WATCH_ENDED;
    }
    if (atomic_load(&inf->abort_watch) || kube_client_is_shutdown(inf->client))
        return WATCH_ENDED;
    KLOG_WARN("informer", "%s: watch failed: %s", inf->what, err.msg);
    record_failure(inf, err.msg);
    return WATCH_FAILED;
}

static bool take_pending_names(kube_informer *inf);

static void *informer_main(void *arg)
{
    kube_informer *inf = arg;
    bool need_list = true;
    int attempt = 0;
    while (!atomic_load(&inf->stopping)) {
        /* Every request of a shut-down client fails at once: retrying would spin. */
        if (kube_client_is_shutdown(inf->client)) {
            KLOG_INFO("informer", "%s: the API client is shut down; the watch stops", inf->what);
            break;
        }
        if (atomic_load(&inf->hold)) {
            kube_client_sleep(inf->client, 0.05, &inf->stopping);
            continue;
        }
        atomic_store(&inf->abort_watch, false);
        pthread_mutex_lock(&inf->lock);
        if (inf->debug_rv[0] != '\0') {
            snprintf(inf->rv, sizeof inf->rv, "%s", inf->debug_rv);
            inf->debug_rv[0] = '\0';
        }
        pthread_mutex_unlock(&inf->lock);
        if (atomic_load(&inf->hold))
            continue;
        if (take_pending_names(inf))
            need_list = true;
        if (need_list) {
            int r = list_and_replace(inf);
            if (r == 1)
                continue;
            if (r != 0) {
                double d = kube_client_backoff(inf->client, attempt++);
                if (d > inf->opts.backoff_max_s)
                    d = inf->opts.backoff_max_s;
                kube_client_sleep(inf->client, d, &inf->stopping);
                continue;
            }
            need_list = false;
            attempt = 0;
        }
        watch_result w = watch_once(inf);
        if (w == WATCH_ENDED) {
            attempt = 0;
        } else if (w == WATCH_GONE) {
            pthread_mutex_lock(&inf->lock);
            inf->st.relists_gone++;
            pthread_mutex_unlock(&inf->lock);
            need_list = true;
        } else {
            double d = kube_client_backoff(inf->client, attempt++);
            if (d > inf->opts.backoff_max_s)
                d = inf->opts.backoff_max_s;
            KLOG_INFO("informer", "%s: reconnecting in %.2fs from resourceVersion %s", inf->what, d,
                      inf->rv);
            kube_client_sleep(inf->client, d, &inf->stopping);
        }
    }
    set_watching(inf, false);
    pthread_mutex_lock(&inf->lock);
    inf->ended = true;
    pthread_cond_broadcast(&inf->synced_cond);
    pthread_mutex_unlock(&inf->lock);
    return NULL;
}

/* Copies of names[0..n): one array plus one block of strings (both NULL when n is 0). */
static int copy_names(const char *const *names, size_t n, const char ***arr, char **block)
{
    *arr = NULL;
    *block = NULL;
    if (n == 0)
        return 0;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += strlen(names[i]) + 1;
    *arr = calloc(n, sizeof **arr);
    *block = malloc(total);
    if (*arr == NULL || *block == NULL) {
        free(*arr);
        free(*block);
        *arr = NULL;
        *block = NULL;
        return -1;
    }
    char *p = *block;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(names[i]) + 1;
        memcpy(p, names[i], l);
        (*arr)[i] = p;
        p += l;
    }
    return 0;
}

static bool same_names(const char *const *a, size_t na, const char *const *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i], b[i]) != 0)
            return false;
    return true;
}

/* Watch thread: take names set by kube_informer_set_gpu_names; true when the cache must be
 * listed again to decode every object with them. */
static bool take_pending_names(kube_informer *inf)
{
    pthread_mutex_lock(&inf->lock);
    bool relist = inf->redecode;
    if (relist) {
        free(inf->gpu_names);
        free(inf->gpu_names_block);
        inf->gpu_names = inf->pending_names;
        inf->gpu_names_block = inf->pending_block;
        inf->opts.decode.gpu_names = inf->gpu_names;
        inf->opts.decode.n_gpu_names = inf->n_pending;
        inf->pending_names = NULL;
        inf->pending_block = NULL;
        inf->n_pending = 0;
        inf->redecode = false;
    }
    pthread_mutex_unlock(&inf->lock);
    if (relist)
        KLOG_INFO("informer",
                  "%s: GPU resource names changed; listing again to decode every object",
                  inf->what);
    return relist;
}

int kube_informer_set_gpu_names(kube_informer *inf, const char *const *names, size_t n, ds_err *err)
{
    pthread_mutex_lock(&inf->lock);
    bool same = inf->redecode ? same_names(inf->pending_names, inf->n_pending, names, n)
                              : same_names(inf->opts.decode.gpu_names, inf->opts.decode.n_gpu_names,
                                           names, n);
    pthread_mutex_unlock(&inf->lock);
    if (same)
        return 0;
    const char **arr;
    char *block;
    if (copy_names(names, n, &arr, &block) != 0)
        return ds_err_set(err, "%s: out of memory copying GPU resource names", inf->what);
    pthread_mutex_lock(&inf->lock);
    free(inf->pending_names);
    free(inf->pending_block);
    inf->pending_names = arr;
    inf->pending_block = block;
    inf->n_pending = n;
    inf->redecode = true;
    pthread_mutex_unlock(&inf->lock);
    atomic_store(&inf->abort_watch, true); /* end the current watch: the thread lists again */
    return 1;
}

static char *dup_opt(const char *s, bool *oom)
{
    if (s == NULL || s[0] == '\0')
        return NULL;
    char *d = kutil_strdup(s);
    if (d == NULL)
        *oom = true;
    return d;
}

int kube_informer_new(kube_client *client, const kube_informer_opts *opts, kube_informer **out,
                      ds_err *err)
{
    *out = NULL;
    if ((unsigned)opts->kind >= KUBE_KIND_N)
        return ds_err_set(err, "informer: unknown kind %d", (int)opts->kind);
    if (opts->namespace != NULL && !kube_kind_namespaced(opts->kind))
        return ds_err_set(err, "informer: %s is not namespaced", kube_kind_name(opts->kind));
    if (opts->namespace != NULL &&
        (strlen(opts->namespace) > 63 ||
         strspn(opts->namespace, "abcdefghijklmnopqrstuvwxyz0123456789-") !=
             strlen(opts->namespace)))
        return ds_err_set(err, "informer: invalid namespace \"%.64s\"", opts->namespace);
    kube_informer *inf = calloc(1, sizeof *inf);
    if (inf == NULL)
        return ds_err_set(err, "out of memory");
    inf->client = client;
    inf->opts = *opts;
    if (inf->opts.page_size <= 0)
        inf->opts.page_size = 500;
    if (inf->opts.watch_timeout_s <= 0)
        inf->opts.watch_timeout_s = 300;
    if (inf->opts.backoff_max_s <= 0)
        inf->opts.backoff_max_s = 30;
    bool oom = false;
    inf->ns = dup_opt(opts->namespace, &oom);
    inf->label_selector = dup_opt(opts->label_selector, &oom);
    inf->field_selector = dup_opt(opts->field_selector, &oom);
    inf->opts.namespace = inf->ns;
    inf->opts.label_selector = inf->label_selector;
    inf->opts.field_selector = inf->field_selector;
    if (copy_names(opts->decode.gpu_names, opts->decode.n_gpu_names, &inf->gpu_names,
                   &inf->gpu_names_block) != 0)
        oom = true;
    inf->opts.decode.gpu_names = inf->gpu_names;
    inf->cache = kube_cache_new(opts->kind);
    if (inf->cache == NULL)
        oom = true;
    if (oom) {
        kube_informer_free(inf);
        return ds_err_set(err, "out of memory");
    }
    snprintf(inf->what, sizeof inf->what, "%s%s%s%s%s", kube_kind_resource(opts->kind),
             inf->ns ? " in " : "", inf->ns ? inf->ns : "", inf->label_selector ? " with " : "",
             inf->label_selector ? inf->label_selector : "");
    pthread_mutex_init(&inf->lock, NULL);
    if (rt_cond_init(&inf->synced_cond) != 0) {
        kube_informer_free(inf);
        return ds_err_set(err, "out of memory (a condition variable)");
    }
    atomic_init(&inf->stopping, false);
    atomic_init(&inf->abort_watch, false);
    atomic_init(&inf->hold, false);
    inf->rng = (uint64_t)(rt_wall_now() * 1e6) ^ ((uint64_t)(uintptr_t)inf << 7);
    kube_splitter_init(&inf->splitter, KUBE_WATCH_MAX_EVENT);
    *out = inf;
    return 0;
}

int kube_informer_start(kube_informer *inf, ds_err *err)
{
    if (inf->started)
        return ds_err_set(err, "informer %s: already started", inf->what);
    atomic_store(&inf->stopping, false);
    pthread_mutex_lock(&inf->lock);
    inf->ended = false;
    pthread_mutex_unlock(&inf->lock);
    if (pthread_create(&inf->thread, NULL, informer_main, inf) != 0)
        return ds_err_set(err, "informer %s: cannot create thread", inf->what);
    inf->started = true;
    return 0;
}

void kube_informer_stop(kube_informer *inf)
{
    if (inf == NULL || !inf->started)
        return;
    atomic_store(&inf->stopping, true);
    atomic_store(&inf->abort_watch, true);
    pthread_mutex_lock(&inf->lock);
    pthread_cond_broadcast(&inf->synced_cond);
    pthread_mutex_unlock(&inf->lock);
    pthread_join(inf->thread, NULL);
    inf->started = false;
}

void kube_informer_free(kube_informer *inf)
{
    if (inf == NULL)
        return;
    kube_informer_stop(inf);
    kube_cache_free(inf->cache);
    kube_splitter_free(&inf->splitter);
    free(inf->ns);
    free(inf->label_selector);
    free(inf->field_selector);
    free(inf->gpu_names);
    free(inf->gpu_names_block);
    free(inf->pending_names);
    free(inf->pending_block);
    pthread_mutex_destroy(&inf->lock);
    pthread_cond_destroy(&inf->synced_cond);
    free(inf);
}

bool kube_informer_wait_synced(kube_informer *inf, double timeout_s)
{
    double deadline = rt_mono_now() + timeout_s;
    pthread_mutex_lock(&inf->lock);
    while (!inf->st.synced && !inf->ended && !atomic_load(&inf->stopping)) {
        double left = deadline - rt_mono_now();
        if (left <= 0)
            break;
        rt_cond_wait_s(&inf->synced_cond, &inf->lock, left > 0.2 ? 0.2 : left);
    }
    bool s = inf->st.synced;
    pthread_mutex_unlock(&inf->lock);
    return s;
}

bool kube_informer_synced(kube_informer *inf)
{
    pthread_mutex_lock(&inf->lock);
    bool s = inf->st.synced;
    pthread_mutex_unlock(&inf->lock);
    return s;
}

bool kube_informer_healthy(kube_informer *inf, double max_age_s)
{
    pthread_mutex_lock(&inf->lock);
    bool h = inf->st.synced && (inf->st.watching || rt_mono_now() - inf->last_ok_mono <= max_age_s);
    pthread_mutex_unlock(&inf->lock);
    return h;
}

void kube_informer_get_status(kube_informer *inf, kube_informer_status *st)
{
    pthread_mutex_lock(&inf->lock);
    *st = inf->st;
    st->last_ok_age_s = inf->last_ok_mono > 0 ? rt_mono_now() - inf->last_ok_mono : -1;
    pthread_mutex_unlock(&inf->lock);
}

const kube_meta *kube_informer_get(kube_informer *inf, const char *ns, const char *name)
{
    return kube_cache_get(inf->cache, ns, name);
}

int kube_informer_list(kube_informer *inf, kube_obj_list *out)
{
    return kube_cache_list(inf->cache, out);
}

int kube_informer_by_index(kube_informer *inf, kube_index index, const char *value,
                           kube_obj_list *out)
{
    return kube_cache_by_index(inf->cache, index, value, out);
}

void kube_informer_debug_hold(kube_informer *inf, bool hold)
{
    atomic_store(&inf->hold, hold);
    if (hold)
        atomic_store(&inf->abort_watch, true);
}

void kube_informer_debug_set_rv(kube_informer *inf, const char *rv)
{
    pthread_mutex_lock(&inf->lock);
    snprintf(inf->debug_rv, sizeof inf->debug_rv, "%s", rv);
    pthread_mutex_unlock(&inf->lock);
}
