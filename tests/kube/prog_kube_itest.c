/* prog_kube_itest.c: integration scenarios of the Kubernetes client against a real API server
 * (KUBECONFIG). Each subcommand is one scenario that prints what it checks and exits 0 on success,
 * 1 on failure:
 *   list-watch            an informer sees creates, updates and deletes, in order
 *   restart CMD...        the watch survives an API server restart (CMD restarts it) and catches
 *                         up without losing or repeating events
 *   relist CMD...         a too-old resourceVersion leads to a relist whose diff reports what
 *                         changed meanwhile (CMD restarts the API server if its watch cache
 *                         still reaches back to resourceVersion 1)
 *   evict-pdb             an eviction blocked by a PodDisruptionBudget is reported as such; an
 *                         allowed one succeeds; a missing pod is "not found"; a pod read back
 *                         one by one (kube_get_pod) is decoded, a missing one is 404
 *   tls-wrong-ca CA.pem   a server certificate not signed by the configured CA is refused */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytebuf.h"
#include "client.h"
#include "clock.h"
#include "config.h"
#include "informer.h"
#include "itest_util.h"
#include "kutil.h"
#include "log.h"
#include "writes.h"

static kube_client *connect_client(void)
{
    kube_config *cfg;
    ds_err err = {{0}};
    if (kube_config_load(NULL, &cfg, &err) != 0)
        itest_die("load kubeconfig", &err);
    kube_client *c;
    kube_client_opts o = {.max_retries = 3, .backoff_max_s = 2};
    if (kube_client_new(cfg, &o, &c, &err) != 0)
        itest_die("client", &err);
    kube_config_free(cfg);
    return c;
}

/* ---- event recording ---- */

#define MAX_EVENTS 256

typedef struct recorder {
    pthread_mutex_t lock;
    char ev[MAX_EVENTS][160];
    int n;
} recorder;

static void rec(recorder *r, const char *kind, const kube_meta *m, const kube_meta *old)
{
    pthread_mutex_lock(&r->lock);
    if (r->n < MAX_EVENTS) {
        const char *v = NULL;
        if (m->kind == KUBE_KIND_CONFIGMAP) {
            const kube_configmap *cm = (const kube_configmap *)m;
            for (size_t i = 0; i < cm->n_data; i++)
                if (strcmp(cm->data[i].key, "v") == 0)
                    v = cm->data[i].value;
        }
        snprintf(r->ev[r->n++], sizeof r->ev[0], "%s %s v=%s%s%s", kind, m->name, v ? v : "-",
                 old ? " old-rv=" : "", old ? old->resource_version : "");
    }
    pthread_mutex_unlock(&r->lock);
}

static void on_add(void *u, const kube_meta *m)
{
    rec(u, "add", m, NULL);
}

static void on_update(void *u, const kube_meta *o, const kube_meta *m)
{
    rec(u, "update", m, o);
}

static void on_delete(void *u, const kube_meta *m)
{
    rec(u, "delete", m, NULL);
}

/* Events about one object, joined by "; ", without the old-rv part. */
static void history(recorder *r, const char *name, char *out, size_t size)
{
    out[0] = '\0';
    size_t len = 0;
    pthread_mutex_lock(&r->lock);
    for (int i = 0; i < r->n; i++) {
        char kind[16], nm[64], v[64];
        if (sscanf(r->ev[i], "%15s %63s %63s", kind, nm, v) != 3 || strcmp(nm, name) != 0)
            continue;
        int w = snprintf(out + len, size - len, "%s%s %s", len ? "; " : "", kind, v);
        if (w > 0 && (size_t)w < size - len)
            len += (size_t)w;
    }
    pthread_mutex_unlock(&r->lock);
}

static int rec_count(recorder *r)
{
    pthread_mutex_lock(&r->lock);
    int n = r->n;
    pthread_mutex_unlock(&r->lock);
    return n;
}

static bool wait_events(recorder *r, int n, double timeout)
{
    double end = rt_mono_now() + timeout;
    while (rec_count(r) < n && rt_mono_now() < end)
        usleep(20000);
    return rec_count(r) >= n;
}

static kube_informer *cm_informer(kube_client *c, const char *ns, recorder *r)
{
    kube_informer_opts o = {.kind = KUBE_KIND_CONFIGMAP,
                            .namespace = ns,
                            .label_selector = "itest=1",
                            .page_size = 2,
                            .cb = {on_add, on_update, on_delete, NULL, r}};
    kube_informer *inf;
    ds_err err = {{0}};
    if (kube_informer_new(c, &o, &inf, &err) != 0 || kube_informer_start(inf, &err) != 0)
        itest_die("informer", &err);
    if (!kube_informer_wait_synced(inf, 30)) {
        printf("FAIL  informer did not sync\n");
        exit(1);
    }
    return inf;
}

static void cm_put(kube_client *c, const char *ns, const char *name, const char *v, bool create)
{
    ds_err err = {{0}};
    char path[512];
    if (create) {
        json_t *o = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:s}}", "apiVersion", "v1", "kind",
                              "ConfigMap", "metadata", "name", name, "labels", "itest", "1", "data",
                              "v", v);
        snprintf(path, sizeof path, "/api/v1/namespaces/%s/configmaps", ns);
        if (kube_create(c, path, o, NULL, &err) != 0)
            itest_die("create configmap", &err);
        json_decref(o);
    } else {
        json_t *p = json_pack("{s:{s:s}}", "data", "v", v);
        snprintf(path, sizeof path, "/api/v1/namespaces/%s/configmaps/%s", ns, name);
        if (kube_patch_merge(c, path, p, NULL, &err) != 0)
            itest_die("patch configmap", &err);
        json_decref(p);
    }
}

static void cm_delete(kube_client *c, const char *ns, const char *name)
{
    char path[512];
    ds_err err = {{0}};
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/configmaps/%s", ns, name);
    if (kube_delete(c, path, false, &err) != 0)
        itest_die("delete configmap", &err);
}

/* ---- scenarios ---- */

static int run_command(char **cmd);

static void scenario_list_watch(kube_client *c)
{
    char ns[64];
    itest_namespace(c, ns, sizeof ns, "itest-lw");
    cm_put(c, ns, "pre1", "0", true);
    cm_put(c, ns, "pre2", "0", true);
    cm_put(c, ns, "pre3", "0", true);
    recorder r = {.n = 0};
    pthread_mutex_init(&r.lock, NULL);
    kube_informer *inf = cm_informer(c, ns, &r);
    CHECK(rec_count(&r) == 3, "initial paginated list (page size 2) reports 3 objects (got %d)",
          rec_count(&r));
    cm_put(c, ns, "a", "1", true);
    cm_put(c, ns, "b", "1", true);
    cm_put(c, ns, "a", "2", false);
    cm_delete(c, ns, "b");
    cm_put(c, ns, "c", "1", true);
    cm_delete(c, ns, "pre1");
    CHECK(wait_events(&r, 9, 30), "6 watch events arrive (got %d)", rec_count(&r) - 3);
    static const char *const want[] = {"add a v=1",    "add b v=1", "update a v=2",
                                       "delete b v=1", "add c v=1", "delete pre1 v=0"};
    pthread_mutex_lock(&r.lock);
    for (int i = 0; i < 6 && 3 + i < r.n; i++)
        CHECK(strncmp(r.ev[3 + i], want[i], strlen(want[i])) == 0,
              "event %d is \"%s\" (got \"%s\")", i + 1, want[i], r.ev[3 + i]);
    pthread_mutex_unlock(&r.lock);
    const kube_meta *a = kube_informer_get(inf, ns, "a");
    CHECK(a != NULL && ((const kube_configmap *)a)->n_data == 1 &&
              strcmp(((const kube_configmap *)a)->data[0].value, "2") == 0,
          "cache holds the updated object");
    kube_obj_unref(a);
    kube_obj_list l;
    kube_informer_list(inf, &l);
    CHECK(l.n == 4, "cache holds 4 objects (got %zu)", l.n);
    kube_obj_list_free(&l);
    CHECK(kube_informer_healthy(inf, 60), "informer healthy");
    kube_informer_free(inf);
    itest_delete_namespace(c, ns);
}

static void scenario_restart(kube_client *c, char **cmd)
{
    char ns[64];
    itest_namespace(c, ns, sizeof ns, "itest-rs");
    recorder r = {.n = 0};
    pthread_mutex_init(&r.lock, NULL);
    cm_put(c, ns, "x1", "1", true);
    kube_informer *inf = cm_informer(c, ns, &r);
    cm_put(c, ns, "x2", "1", true);
    CHECK(wait_events(&r, 2, 30), "events before the restart arrive");
    int rc = run_command(cmd);
    CHECK(rc == 0, "API server restarted (exit status %d)", rc);
    kube_informer_status st;
    kube_informer_get_status(inf, &st);
    uint64_t starts_before = st.watch_starts;
    /* Changes right after the restart: the informer may still be reconnecting. */
    cm_put(c, ns, "x1", "2", false);
    cm_put(c, ns, "x3", "1", true);
    cm_put(c, ns, "x2", "2", false);
    cm_put(c, ns, "x3", "2", false);
    double end = rt_mono_now() + 60;
    char h1[512], h2[512], h3[512];
    for (;;) {
        history(&r, "x1", h1, sizeof h1);
        history(&r, "x2", h2, sizeof h2);
        history(&r, "x3", h3, sizeof h3);
        if ((strstr(h1, "v=2") && strstr(h2, "v=2") && strstr(h3, "v=2")) || rt_mono_now() > end)
            break;
        usleep(50000);
    }
    usleep(500000); /* let any duplicate show up */
    history(&r, "x1", h1, sizeof h1);
    history(&r, "x2", h2, sizeof h2);
    history(&r, "x3", h3, sizeof h3);
    kube_informer_get_status(inf, &st);
    printf("note  watch starts %llu -> %llu, relists after 410: %llu, failures: %llu\n",
           (unsigned long long)starts_before, (unsigned long long)st.watch_starts,
           (unsigned long long)st.relists_gone, (unsigned long long)st.failures);
    CHECK(st.watch_starts > 1, "the watch was reopened after the restart");
    CHECK(strcmp(h1, "add v=1; update v=2") == 0,
          "x1: add, update, nothing lost or repeated "
          "(got \"%s\")",
          h1);
    CHECK(strcmp(h2, "add v=1; update v=2") == 0, "x2: add, update (got \"%s\")", h2);
    /* x3 was created and updated while the informer may have been away: either both events
     * (watch resumed) or one add of the final state (relist). */
    CHECK(strcmp(h3, "add v=1; update v=2") == 0 || strcmp(h3, "add v=2") == 0,
          "x3: caught up (got \"%s\")", h3);
    CHECK(kube_informer_healthy(inf, 60), "informer healthy after the restart");
    kube_informer_free(inf);
    itest_delete_namespace(c, ns);
}

static int collect_chunk(void *user, const char *data, size_t len)
{
    return ds_bytebuf_append(user, data, len) != 0;
}

/* Whether a watch from resourceVersion 1 is answered with 410 (the API server's watch cache
 * starts later than that). */
static bool rv1_too_old(kube_client *c)
{
    ds_bytebuf b;
    ds_bytebuf_init(&b, 1 << 20);
    kube_response resp;
    ds_err err = {{0}};
    kube_stream(c,
                "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1&"
                "timeoutSeconds=1",
                5, 0, NULL, collect_chunk, &b, &resp, &err);
    bool gone = resp.status == 410 || (b.data != NULL && strstr(b.data, "\"code\":410"));
    kube_response_free(&resp);
    ds_bytebuf_free(&b);
    return gone;
}

static int run_command(char **cmd)
{
    ds_bytebuf line;
    ds_bytebuf_init(&line, 8192);
    for (char **a = cmd; *a != NULL; a++)
        ds_bytebuf_printf(&line, "%s'%s'", a == cmd ? "" : " ", *a);
    printf("note  running: %s\n", line.data);
    fflush(stdout);
    int rc = system(line.data);
    ds_bytebuf_free(&line);
    return rc;
}

static void scenario_relist(kube_client *c, char **restart_cmd)
{
    /* A fresh API server's watch cache may still hold resourceVersion 1; after a restart it
     * starts at the current one. */
    if (!rv1_too_old(c)) {
        CHECK(run_command(restart_cmd) == 0, "API server restarted so that old versions expire");
        CHECK(rv1_too_old(c), "a watch from resourceVersion 1 is now answered with 410");
    }
    char ns[64];
    itest_namespace(c, ns, sizeof ns, "itest-rl");
    recorder r = {.n = 0};
    pthread_mutex_init(&r.lock, NULL);
    cm_put(c, ns, "y0", "1", true);
    cm_put(c, ns, "y2", "1", true);
    kube_informer *inf = cm_informer(c, ns, &r);
    CHECK(rec_count(&r) == 2, "listed 2 objects");
    kube_informer_debug_hold(inf, true);
    usleep(300000);
    cm_put(c, ns, "y1", "1", true);
    cm_delete(c, ns, "y0");
    cm_put(c, ns, "y2", "2", false);
    usleep(300000);
    CHECK(rec_count(&r) == 2, "no events while the watch is held");
    kube_informer_debug_set_rv(inf, "1");
    kube_informer_debug_hold(inf, false);
    CHECK(wait_events(&r, 5, 30), "relist diff reports 3 changes (got %d)", rec_count(&r) - 2);
    char h0[256], h1[256], h2[256];
    history(&r, "y0", h0, sizeof h0);
    history(&r, "y1", h1, sizeof h1);
    history(&r, "y2", h2, sizeof h2);
    CHECK(strcmp(h0, "add v=1; delete v=1") == 0, "y0 deleted (got \"%s\")", h0);
    CHECK(strcmp(h1, "add v=1") == 0, "y1 added (got \"%s\")", h1);
    CHECK(strcmp(h2, "add v=1; update v=2") == 0, "y2 updated (got \"%s\")", h2);
    kube_informer_status st;
    kube_informer_get_status(inf, &st);
    CHECK(st.relists_gone >= 1, "the stale resourceVersion caused a relist (410 Gone), %llu",
          (unsigned long long)st.relists_gone);
    CHECK(st.lists >= 2, "lists: %llu", (unsigned long long)st.lists);
    kube_informer_free(inf);
    itest_delete_namespace(c, ns);
}

static void create_pod(kube_client *c, const char *ns, const char *name)
{
    json_t *pod = json_pack(
        "{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:[{s:s, s:s, s:{s:{s:s, s:s}}}], s:[{s:s, s:s}]}}",
        "apiVersion", "v1", "kind", "Pod", "metadata", "name", name, "labels", "app", "pdbtest",
        "spec", "containers", "name", "main", "image", "busybox", "resources", "requests", "cpu",
        "100m", "memory", "64Mi", "tolerations", "operator", "Exists", "effect", "NoSchedule");
    char path[512];
    ds_err err = {{0}};
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods", ns);
    /* A new namespace gets its "default" service account shortly after it is created; until
     * then pods are refused. */
    double end = rt_mono_now() + 60;
    while (kube_create(c, path, pod, NULL, &err) != 0) {
        if (strstr(err.msg, "serviceaccount") == NULL || rt_mono_now() > end)
            itest_die("create pod", &err);
        usleep(250000);
    }
    json_decref(pod);
}

/* Wait until the PDB's status is current and shows `healthy` healthy pods. On a timeout, `seen`
 * says what the status last showed, so that a failure tells which component was late. */
static bool wait_pdb(kube_client *c, const char *ns, int healthy, int allowed, double timeout,
                     char *seen, size_t seen_size)
{
    snprintf(seen, seen_size, "no status read");
    char path[512];
    snprintf(path, sizeof path, "/apis/policy/v1/namespaces/%s/poddisruptionbudgets/budget", ns);
    double end = rt_mono_now() + timeout;
    while (rt_mono_now() < end) {
        json_t *obj;
        ds_err err = {{0}};
        if (kube_get_json(c, path, &obj, NULL, &err) == 0) {
            kube_meta *m;
            if (kube_obj_decode(KUBE_KIND_PDB, obj, NULL, &m, &err) == 0) {
                kube_pdb *p = (kube_pdb *)m;
                bool ok = p->observed_generation >= p->generation &&
                          p->current_healthy == healthy && p->disruptions_allowed == allowed;
                snprintf(seen, seen_size,
                         "last seen: generation %lld observed %lld, %d healthy, %d allowed",
                         (long long)p->generation, (long long)p->observed_generation,
                         (int)p->current_healthy, (int)p->disruptions_allowed);
                kube_obj_unref(m);
                if (ok) {
                    json_decref(obj);
                    return true;
                }
            }
            json_decref(obj);
        }
        usleep(200000);
    }
    return false;
}

static void scenario_evict_pdb(kube_client *c)
{
    char ns[64];
    itest_namespace(c, ns, sizeof ns, "itest-ev");
    create_pod(c, ns, "p1");
    json_t *pdb = json_pack("{s:s, s:s, s:{s:s}, s:{s:i, s:{s:{s:s}}}}", "apiVersion", "policy/v1",
                            "kind", "PodDisruptionBudget", "metadata", "name", "budget", "spec",
                            "minAvailable", 1, "selector", "matchLabels", "app", "pdbtest");
    char path[512];
    ds_err err = {{0}};
    snprintf(path, sizeof path, "/apis/policy/v1/namespaces/%s/poddisruptionbudgets", ns);
    if (kube_create(c, path, pdb, NULL, &err) != 0)
        itest_die("create pdb", &err);
    json_decref(pdb);
    char seen[160];
    CHECK(wait_pdb(c, ns, 1, 0, 120, seen, sizeof seen),
          "PDB status: 1 healthy pod, 0 disruptions allowed (%s)", seen);
    kube_evict_result r = kube_evict(c, ns, "p1", NULL, false, &err);
    CHECK(r == KUBE_EVICT_BLOCKED_PDB,
          "eviction of the only pod is blocked by the PDB (got %s: %s)", kube_evict_result_name(r),
          err.msg);
    r = kube_evict(c, ns, "nope", NULL, false, &err);
    CHECK(r == KUBE_EVICT_NOT_FOUND, "eviction of a missing pod: not found (got %s)",
          kube_evict_result_name(r));
    create_pod(c, ns, "p2");
    CHECK(wait_pdb(c, ns, 2, 1, 120, seen, sizeof seen),
          "PDB status: 2 healthy pods, 1 disruption allowed (%s)", seen);
    err.msg[0] = '\0';
    r = kube_evict(c, ns, "p2", NULL, true, &err);
    CHECK(r == KUBE_EVICT_OK, "dry-run eviction allowed (got %s: %s)", kube_evict_result_name(r),
          err.msg);
    err.msg[0] = '\0';
    r = kube_evict(c, ns, "p2", NULL, false, &err);
    CHECK(r == KUBE_EVICT_OK, "eviction allowed by the PDB succeeds (got %s: %s)",
          kube_evict_result_name(r), err.msg);
    /* A uid precondition: a pod with the same name but another uid is never evicted. */
    create_pod(c, ns, "p3");
    CHECK(wait_pdb(c, ns, 2, 1, 120, seen, sizeof seen),
          "PDB status: p2 gone, p3 healthy, 1 disruption allowed (%s)", seen);
    err.msg[0] = '\0';
    r = kube_evict(c, ns, "p3", "00000000-0000-0000-0000-000000000000", false, &err);
    CHECK(r == KUBE_EVICT_NOT_FOUND,
          "eviction with another pod's uid is refused as not found "
          "(got %s: %s)",
          kube_evict_result_name(r), err.msg);
    const kube_pod *p3 = NULL;
    long status = 0;
    err.msg[0] = '\0';
    CHECK(kube_get_pod(c, ns, "p3", NULL, &p3, &status, &err) == 0 && status == 200,
          "p3 read back and decoded (HTTP %ld: %s)", status, err.msg);
    CHECK(p3 != NULL && !p3->meta.deleting && strcmp(p3->meta.name, "p3") == 0 &&
              strcmp(p3->meta.ns, ns) == 0 && p3->meta.uid != NULL && p3->meta.uid[0] != '\0' &&
              p3->node_name != NULL && p3->phase == KUBE_POD_RUNNING,
          "and p3 is running on a node, not being deleted (node %s, phase %s)",
          p3 != NULL && p3->node_name != NULL ? p3->node_name : "none",
          p3 != NULL ? kube_pod_phase_name(p3->phase) : "-");
    if (p3 != NULL)
        kube_obj_unref(&p3->meta);
    const kube_pod *gone = NULL;
    CHECK(kube_get_pod(c, ns, "nope", NULL, &gone, &status, &err) == -1 && status == 404 &&
              gone == NULL,
          "a missing pod read back: 404 (got HTTP %ld)", status);
    err.msg[0] = '\0';
    kube_object_ref ref = {"v1", "Pod", ns, "p1", NULL};
    CHECK(kube_create_event(c, &ref, "Warning", "EvictionBlocked", "blocked by budget",
                            "dagsched-itest", &err) == 0,
          "event created (%s)", err.msg);
    CHECK(kube_annotate_pod(c, ns, "p1", "dagsched.io/note", "x", &err) == 0, "pod annotated (%s)",
          err.msg);
    itest_delete_namespace(c, ns);
}

static void scenario_tls_wrong_ca(const char *ca_path)
{
    kube_config *cfg;
    ds_err err = {{0}};
    if (kube_config_load(NULL, &cfg, &err) != 0)
        itest_die("load kubeconfig", &err);
    kube_client *good;
    if (kube_client_new(cfg, NULL, &good, &err) != 0)
        itest_die("client", &err);
    kube_response resp;
    CHECK(kube_request(good, "GET", "/version", NULL, NULL, &resp, &err) == 0,
          "the configured CA verifies the server (%s)", resp.status ? "200" : err.msg);
    kube_response_free(&resp);
    kube_client_free(good);
    free(cfg->ca_data);
    cfg->ca_data = NULL;
    cfg->ca_data_len = 0;
    free(cfg->ca_file);
    cfg->ca_file = kutil_strdup(ca_path);
    kube_client *bad;
    if (kube_client_new(cfg, NULL, &bad, &err) != 0)
        itest_die("client", &err);
    int rc = kube_request(bad, "GET", "/version", NULL, NULL, &resp, &err);
    CHECK(rc == -1 && resp.status == 0, "a server not signed by the configured CA is refused");
    CHECK(resp.attempts == 1, "a verification failure is not retried (attempts %d)", resp.attempts);
    CHECK(strstr(err.msg, "SSL") != NULL || strstr(err.msg, "certificate") != NULL,
          "the error names the TLS failure: %s", err.msg);
    kube_response_free(&resp);
    kube_client_free(bad);
    kube_config_free(cfg);
}

int main(int argc, char **argv)
{
    kube_log_setup(KUBE_LOG_WARN, KUBE_LOG_TEXT, NULL);
    const char *lvl = getenv("KUBE_ITEST_LOG");
    kube_log_level l;
    if (lvl != NULL && kube_log_level_parse(lvl, &l) == 0)
        kube_log_setup(l, KUBE_LOG_TEXT, NULL);
    if (argc < 2) {
        fprintf(stderr,
                "usage: %s list-watch|restart CMD...|relist CMD...|evict-pdb|tls-wrong-ca CA\n",
                argv[0]);
        return 2;
    }
    const char *s = argv[1];
    printf("== %s\n", s);
    if (strcmp(s, "tls-wrong-ca") == 0 && argc == 3) {
        scenario_tls_wrong_ca(argv[2]);
    } else {
        kube_client *c = connect_client();
        if (strcmp(s, "list-watch") == 0)
            scenario_list_watch(c);
        else if (strcmp(s, "restart") == 0 && argc > 2)
            scenario_restart(c, argv + 2);
        else if (strcmp(s, "relist") == 0 && argc > 2)
            scenario_relist(c, argv + 2);
        else if (strcmp(s, "evict-pdb") == 0)
            scenario_evict_pdb(c);
        else {
            fprintf(stderr, "unknown scenario %s\n", s);
            kube_client_free(c);
            return 2;
        }
        kube_client_free(c);
    }
    printf("== %s: %s\n", s, itest_failures ? "FAILED" : "passed");
    return itest_failures ? 1 : 0;
}
