/* uninstall.c: `dagsched-controller uninstall` (see uninstall.h): removes the admission webhook,
 * then dagsched's scheduling gate from every pod, and reports what is left; or (--objects-only)
 * waits for the release's pods to be gone and deletes the ConfigMaps and Leases they wrote. */
#include "uninstall.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "clock.h"
#include "config.h"
#include "flags.h"
#include "k8s_names.h"
#include "kutil.h"
#include "list.h"
#include "log.h"
#include "objects.h"
#include "timefmt.h"
#include "view.h"
#include "writes.h"

#define LIST_PAGE    500
#define REPORT_FIRST 20

typedef struct uninstall_opts {
    const char *kubeconfig, *context;
    const char *webhook;        /* MutatingWebhookConfiguration to delete; NULL: none */
    const char *scheduler_name; /* pods of this scheduler are reported as left waiting */
    int log_format, log_level;  /* kube_log_format, kube_log_level */
    bool objects_only;          /* no webhook, no gates: only the steps below */
    const char *ns;             /* namespace of the objects below; NULL: none given */
    const char *wait_selector;  /* wait until no pod of ns matches it; NULL: no wait */
    double wait_timeout_s;      /* for that wait */
    const char *configmaps[UNINSTALL_MAX_OBJECTS]; /* ConfigMaps of ns to delete */
    size_t n_configmaps;
    const char *leases[UNINSTALL_MAX_OBJECTS]; /* Leases of ns to delete */
    size_t n_leases;
} uninstall_opts;

typedef struct tally {
    size_t ungated, failed, gated_seen; /* this pass */
    size_t waiting_for_scheduler;       /* ungated pods of --scheduler-name still pending */
    size_t suspended_jobs;
} tally;

#define USAGE                                                                                      \
    "Usage: dagsched-controller uninstall [flags]\n"                                               \
    "\n"                                                                                           \
    "Run by the Helm chart's pre-delete hook: deletes the admission webhook configuration,\n"      \
    "then removes the " DS_GATE_DEPENDENCIES " scheduling gate from every pod so that\n"           \
    "no pod is stranded once dagsched is gone. With --objects-only (the post-delete\n"             \
    "hook): waits for the release's pods to go, then deletes the ConfigMaps and Leases\n"          \
    "they wrote. See docs/admission.md (Uninstall).\n"

/* Appends a ConfigMap or Lease name to its list (at most UNINSTALL_MAX_OBJECTS), a flag's
 * conversion (runtime/flags.h). */
typedef struct name_list {
    const char **v;
    size_t *n;
} name_list;

static int add_name(void *dest, const char *name, char *why, size_t size)
{
    name_list *l = dest;
    const char *bad = ds_check_dns_subdomain(name);
    if (bad != NULL) {
        snprintf(why, size, "%s", bad);
        return -1;
    }
    if (*l->n == UNINSTALL_MAX_OBJECTS) {
        snprintf(why, size, "given more than %d times", UNINSTALL_MAX_OBJECTS);
        return -1;
    }
    l->v[(*l->n)++] = name;
    return 0;
}

/* RT_FLAGS_RUN, or the exit status (runtime/flags.h). */
static int parse(int argc, char **argv, uninstall_opts *o)
{
    memset(o, 0, sizeof *o);
    o->scheduler_name = "dagsched";
    o->log_format = KUBE_LOG_TEXT;
    o->log_level = KUBE_LOG_INFO;
    o->wait_timeout_s = 120;
    name_list cms = {o->configmaps, &o->n_configmaps}, leases = {o->leases, &o->n_leases};
    const rt_flag table[] = {
        RT_FLAG_STRING("kubeconfig", "PATH", &o->kubeconfig,
                       "kubeconfig file (default: $KUBECONFIG,\n"
                       "~/.kube/config, else the in-cluster service account)"),
        RT_FLAG_STRING("context", "NAME", &o->context, "kubeconfig context"),
        RT_FLAG_STRING("webhook-configuration", "NAME", &o->webhook,
                       "MutatingWebhookConfiguration to delete first"),
        RT_FLAG_STRING("scheduler-name", "NAME", &o->scheduler_name,
                       "dagsched's scheduler name, for the report of pods\n"
                       "left waiting for it (default dagsched)"),
        RT_FLAG_STRING("namespace", "NS", &o->ns,
                       "namespace of the ConfigMaps, Leases and pods below"),
        RT_FLAG_FUNC("delete-configmap", "NAME", add_name, &cms,
                     "delete this ConfigMap of NS last (repeatable; one\nalready gone is fine)"),
        RT_FLAG_FUNC("delete-lease", "NAME", add_name, &leases,
                     "delete this Lease of NS last (repeatable)"),
        RT_FLAG_STRING("wait-for-pods", "SELECTOR", &o->wait_selector,
                       "before those deletions, wait until no pod of NS\n"
                       "matches the label selector (the pods that would\n"
                       "write them again)"),
        RT_FLAG_DURATION("wait-timeout", &o->wait_timeout_s, 0, 86400,
                         "the longest wait (default 2m); then exit 1"),
        RT_FLAG_SET("objects-only", &o->objects_only,
                    "only the four flags above: no webhook, no gates\n"
                    "(the chart's post-delete hook)"),
        KUBE_LOG_FLAGS(&o->log_format, &o->log_level),
    };
    const rt_flags spec = {
        .prog = "dagsched-controller uninstall", .usage = USAGE, RT_FLAGS_TABLE(table)};
    int rc = rt_flags_parse(&spec, argc, argv, NULL);
    if (rc != RT_FLAGS_RUN)
        return rc;
    const char *why;
    if (o->webhook != NULL && (why = ds_check_dns_subdomain(o->webhook)) != NULL)
        return rt_flags_error(&spec, "--webhook-configuration: %s", why);
    bool in_ns = o->n_configmaps > 0 || o->n_leases > 0 || o->wait_selector != NULL;
    if (in_ns && o->ns == NULL)
        return rt_flags_error(&spec, "--delete-configmap, --delete-lease and --wait-for-pods "
                                     "need --namespace");
    if (o->ns != NULL && (why = ds_check_dns_label(o->ns)) != NULL)
        return rt_flags_error(&spec, "--namespace: %s", why);
    if (o->wait_selector != NULL &&
        (o->wait_selector[0] == '\0' || strlen(o->wait_selector) > 1024))
        return rt_flags_error(&spec, "--wait-for-pods: 1 to 1024 bytes");
    if (o->objects_only && o->webhook != NULL)
        return rt_flags_error(&spec, "--objects-only deletes no webhook configuration");
    return RT_FLAGS_RUN;
}

static bool has_gate(const kube_pod *pod)
{
    for (size_t i = 0; i < pod->n_gates; i++)
        if (strcmp(pod->gates[i], DS_GATE_DEPENDENCIES) == 0)
            return true;
    return false;
}

/* Called with each decoded object of a list (a kube_pod or a kube_job, by the list's kind). */
typedef int (*item_fn)(kube_client *c, const kube_meta *item, const uninstall_opts *o, tally *t);

typedef struct lister {
    kube_client *c;
    kube_kind kind;
    item_fn fn;
    const uninstall_opts *o;
    tally *t;
    int failed;
} lister;

static int on_item(void *user, const json_t *item, ds_err *err)
{
    (void)err;
    lister *l = user;
    kube_meta *m = NULL;
    ds_err derr = {{0}};
    if (kube_obj_decode(l->kind, item, NULL, &m, &derr) != 0) {
        /* Not identified well enough to act on: said, and the run fails. */
        KLOG_ERROR("uninstall", "%s", derr.msg);
        l->failed = 1;
        return 0;
    }
    if (l->fn(l->c, m, l->o, l->t) != 0)
        l->failed = 1; /* go on: one pod's failure must not keep the others gated */
    kube_obj_unref(m);
    return 0;
}

/* Every object of collection (paginated, decoded as kind), fn on each; -1 when the list, a
 * decoding or an item failed. */
static int list_all(kube_client *c, const char *collection, kube_kind kind, item_fn fn,
                    const uninstall_opts *o, tally *t)
{
    lister l = {.c = c, .kind = kind, .fn = fn, .o = o, .t = t};
    ds_err err = {{0}};
    if (kube_list_each(c, collection, LIST_PAGE, on_item, &l, &err) != 0) {
        KLOG_ERROR("uninstall", "%s", err.msg);
        return -1;
    }
    return l.failed ? -1 : 0;
}

static int ungate_pod(kube_client *c, const kube_meta *m, const uninstall_opts *o, tally *t)
{
    (void)o;
    const kube_pod *pod = (const kube_pod *)m;
    if (!has_gate(pod))
        return 0;
    t->gated_seen++;
    ds_err err = {{0}};
    if (kube_remove_scheduling_gate(c, m->ns, m->name, DS_GATE_DEPENDENCIES, &err) != 0) {
        /* A pod deleted meanwhile is not stranded. */
        if (strstr(err.msg, "404") == NULL && strstr(err.msg, "not found") == NULL) {
            t->failed++;
            KLOG_ERROR("uninstall", "pod %s/%s: removing the gate: %s", m->ns, m->name, err.msg);
            return -1;
        }
        return 0;
    }
    t->ungated++;
    KLOG_INFO("uninstall", "pod %s/%s: gate %s removed", m->ns, m->name, DS_GATE_DEPENDENCIES);
    return 0;
}

static int report_pod(kube_client *c, const kube_meta *m, const uninstall_opts *o, tally *t)
{
    (void)c;
    const char *sched = ((const kube_pod *)m)->scheduler_name;
    if (sched == NULL || strcmp(sched, o->scheduler_name) != 0)
        return 0;
    if (t->waiting_for_scheduler < REPORT_FIRST)
        KLOG_WARN("uninstall",
                  "pod %s/%s is pending with schedulerName %s: it waits for a scheduler of that "
                  "name (delete it, or recreate it for another scheduler)",
                  m->ns, m->name, o->scheduler_name);
    t->waiting_for_scheduler++;
    return 0;
}

static int report_job(kube_client *c, const kube_meta *m, const uninstall_opts *o, tally *t)
{
    (void)c;
    (void)o;
    if (!((const kube_job *)m)->suspend)
        return 0;
    if (t->suspended_jobs < REPORT_FIRST)
        KLOG_WARN("uninstall",
                  "Job %s/%s (a DAG task) is suspended and stays so: resume it with `kubectl "
                  "patch job -n %s %s -p '{\"spec\":{\"suspend\":false}}'` if it should run",
                  m->ns, m->name, m->ns, m->name);
    t->suspended_jobs++;
    return 0;
}

static int delete_webhook(kube_client *c, const char *name)
{
    char path[400];
    snprintf(path, sizeof path,
             "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/%s", name);
    ds_err err = {{0}};
    if (kube_delete(c, path, true, &err) != 0) {
        KLOG_ERROR("uninstall", "deleting MutatingWebhookConfiguration %s: %s", name, err.msg);
        return -1;
    }
    KLOG_INFO("uninstall", "MutatingWebhookConfiguration %s deleted: new pods are not gated", name);
    return 0;
}

typedef struct pod_count {
    size_t n;
    char first[320]; /* one of them, for the log */
} pod_count;

static int count_pod(void *user, const json_t *item, ds_err *err)
{
    (void)err;
    pod_count *pc = user;
    /* A pod that does not decode is still a pod of the release: counted, named "?". */
    kube_meta *m = NULL;
    ds_err derr = {{0}};
    bool decoded = kube_obj_decode(KUBE_KIND_POD, item, NULL, &m, &derr) == 0;
    if (pc->n++ == 0)
        snprintf(pc->first, sizeof pc->first, "%s", decoded ? m->name : "?");
    if (decoded)
        kube_obj_unref(m);
    return 0;
}

/* Waits until no pod of o->ns matches o->wait_selector: 0; -1 when the list fails or the pods
 * are still there after o->wait_timeout_s. */
static int wait_for_pods(kube_client *c, const uninstall_opts *o)
{
    char *sel = kutil_query_escape(o->wait_selector);
    if (sel == NULL) {
        KLOG_ERROR("uninstall", "out of memory");
        return -1;
    }
    char path[2048];
    int len =
        snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods?labelSelector=%s", o->ns, sel);
    free(sel);
    if (len < 0 || (size_t)len >= sizeof path) {
        KLOG_ERROR("uninstall", "--wait-for-pods: the selector is too long");
        return -1;
    }
    double deadline = rt_mono_now() + o->wait_timeout_s;
    for (bool logged = false;; logged = true) {
        pod_count pc = {0};
        ds_err err = {{0}};
        if (kube_list_each(c, path, LIST_PAGE, count_pod, &pc, &err) != 0) {
            KLOG_ERROR("uninstall", "listing the pods of %s (%s): %s", o->ns, o->wait_selector,
                       err.msg);
            return -1;
        }
        if (pc.n == 0) {
            KLOG_INFO("uninstall", "no pod of %s matches %s", o->ns, o->wait_selector);
            return 0;
        }
        if (rt_mono_now() >= deadline) {
            KLOG_ERROR("uninstall",
                       "%zu pods of %s still match %s (%s...) after %.0f s: their ConfigMaps and "
                       "Leases are not deleted",
                       pc.n, o->ns, o->wait_selector, pc.first, o->wait_timeout_s);
            return -1;
        }
        if (!logged)
            KLOG_INFO("uninstall", "waiting for %zu pods of %s matching %s (%s...) to be gone",
                      pc.n, o->ns, o->wait_selector, pc.first);
        struct timespec ts = {.tv_sec = 1};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
}

/* Deletes one object of o->ns (already gone: fine). */
static int delete_in_ns(kube_client *c, const char *ns, const char *collection, const char *kind,
                        const char *name)
{
    char path[600];
    int len = snprintf(path, sizeof path, "%s/namespaces/%s/%s/%s",
                       strcmp(kind, "Lease") == 0 ? "/apis/coordination.k8s.io/v1" : "/api/v1", ns,
                       collection, name);
    if (len < 0 || (size_t)len >= sizeof path) {
        KLOG_ERROR("uninstall", "%s %s/%s: name too long", kind, ns, name);
        return -1;
    }
    ds_err err = {{0}};
    if (kube_delete(c, path, true, &err) != 0) {
        KLOG_ERROR("uninstall", "deleting %s %s/%s: %s", kind, ns, name, err.msg);
        return -1;
    }
    KLOG_INFO("uninstall", "%s %s/%s deleted (or already gone)", kind, ns, name);
    return 0;
}

/* The release's own objects: wait for its pods, then delete the ConfigMaps and Leases (every
 * one tried). 0 when all are gone. */
static int delete_objects(kube_client *c, const uninstall_opts *o)
{
    if (o->wait_selector != NULL && wait_for_pods(c, o) != 0)
        return 1;
    int rc = 0;
    for (size_t i = 0; i < o->n_configmaps; i++)
        if (delete_in_ns(c, o->ns, "configmaps", "ConfigMap", o->configmaps[i]) != 0)
            rc = 1;
    for (size_t i = 0; i < o->n_leases; i++)
        if (delete_in_ns(c, o->ns, "leases", "Lease", o->leases[i]) != 0)
            rc = 1;
    return rc;
}

static int run(kube_client *c, const uninstall_opts *o)
{
    if (o->objects_only)
        return delete_objects(c, o);
    if (o->webhook != NULL && delete_webhook(c, o->webhook) != 0)
        return 1;
    tally t = {0};
    size_t total = 0;
    bool clean = false;
    for (int pass = 1; pass <= UNINSTALL_MAX_PASSES && !clean; pass++) {
        tally p = {0};
        int rc = list_all(c, "/api/v1/pods?fieldSelector=status.phase%3DPending", KUBE_KIND_POD,
                          ungate_pod, o, &p);
        total += p.ungated;
        KLOG_INFO("uninstall", "pass %d: %zu gated pods found, %zu gates removed, %zu failures",
                  pass, p.gated_seen, p.ungated, p.failed);
        if (rc != 0)
            return 1;
        clean = p.gated_seen == 0;
    }
    if (list_all(c, "/api/v1/pods?fieldSelector=status.phase%3DPending", KUBE_KIND_POD, report_pod,
                 o, &t) != 0)
        KLOG_WARN("uninstall", "could not list the pending pods for the report");
    if (list_all(c, "/apis/batch/v1/jobs?labelSelector=" DS_LABEL_TASK, KUBE_KIND_JOB, report_job,
                 o, &t) != 0)
        KLOG_WARN("uninstall", "could not list the Jobs of DAG tasks (not needed to finish)");
    KLOG_INFO("uninstall",
              "done: %zu gates removed; %zu pending pods wait for scheduler %s; %zu suspended DAG "
              "Jobs left suspended",
              total, t.waiting_for_scheduler, o->scheduler_name, t.suspended_jobs);
    if (!clean) {
        KLOG_ERROR("uninstall", "gated pods remain after %d passes", UNINSTALL_MAX_PASSES);
        return 1;
    }
    return delete_objects(c, o);
}

int ctl_uninstall_main(int argc, char **argv)
{
    uninstall_opts o;
    int rc = parse(argc, argv, &o);
    if (rc != RT_FLAGS_RUN)
        return rc;
    kube_log_setup((kube_log_level)o.log_level, (kube_log_format)o.log_format, NULL);
    kube_config_opts co = {.kubeconfig = o.kubeconfig, .context = o.context};
    kube_config *cfg = NULL;
    ds_err err = {{0}};
    if (kube_config_load(&co, &cfg, &err) != 0) {
        KLOG_ERROR("uninstall", "%s", err.msg);
        return 1;
    }
    kube_client_opts clo = {.user_agent = "dagsched-controller-uninstall"};
    kube_client *c = NULL;
    rc = kube_client_new(cfg, &clo, &c, &err);
    kube_config_free(cfg);
    if (rc != 0) {
        KLOG_ERROR("uninstall", "%s", err.msg);
        return 1;
    }
    rc = run(c, &o);
    kube_client_free(c);
    return rc;
}
