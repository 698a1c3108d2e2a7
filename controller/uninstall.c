/* uninstall.c: `dagsched-controller uninstall` (see uninstall.h): removes the admission webhook,
 * then dagsched's scheduling gate from every pod, and reports what is left; or (--objects-only)
 * waits for the release's pods to be gone and deletes the ConfigMaps and Leases they wrote. */
#include "uninstall.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "clock.h"
#include "config.h"
#include "k8s_names.h"
#include "kutil.h"
#include "list.h"
#include "log.h"
#include "timefmt.h"
#include "view.h"
#include "writes.h"

#define LIST_PAGE    500
#define REPORT_FIRST 20

typedef struct uninstall_opts {
    const char *kubeconfig, *context;
    const char *webhook;        /* MutatingWebhookConfiguration to delete; NULL: none */
    const char *scheduler_name; /* pods of this scheduler are reported as left waiting */
    const char *log_format, *log_level;
    bool objects_only;         /* no webhook, no gates: only the steps below */
    const char *ns;            /* namespace of the objects below; NULL: none given */
    const char *wait_selector; /* wait until no pod of ns matches it; NULL: no wait */
    double wait_timeout_s;     /* for that wait */
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

static void usage(FILE *f)
{
    fprintf(
        f, "Usage: dagsched-controller uninstall [flags]\n"
           "\n"
           "Run by the Helm chart's pre-delete hook: deletes the admission webhook configuration,\n"
           "then removes the " DS_GATE_DEPENDENCIES " scheduling gate from every pod so that\n"
           "no pod is stranded once dagsched is gone. With --objects-only (the post-delete\n"
           "hook): waits for the release's pods to go, then deletes the ConfigMaps and Leases\n"
           "they wrote. See docs/admission.md (Uninstall).\n"
           "\n"
           "Flags:\n"
           "  --kubeconfig PATH              kubeconfig file (default: $KUBECONFIG,\n"
           "                                 ~/.kube/config, else the in-cluster service account)\n"
           "  --context NAME                 kubeconfig context\n"
           "  --webhook-configuration NAME   MutatingWebhookConfiguration to delete first\n"
           "  --scheduler-name NAME          dagsched's scheduler name, for the report of pods\n"
           "                                 left waiting for it (default dagsched)\n"
           "  --namespace NS                 namespace of the ConfigMaps, Leases and pods below\n"
           "  --delete-configmap NAME        delete this ConfigMap of NS last (repeatable; one\n"
           "                                 already gone is fine)\n"
           "  --delete-lease NAME            delete this Lease of NS last (repeatable)\n"
           "  --wait-for-pods SELECTOR       before those deletions, wait until no pod of NS\n"
           "                                 matches the label selector (the pods that would\n"
           "                                 write them again)\n"
           "  --wait-timeout D               the longest wait (default 2m); then exit 1\n"
           "  --objects-only                 only the four flags above: no webhook, no gates\n"
           "                                 (the chart's post-delete hook)\n"
           "  --log-format text|json         (default text)\n"
           "  --log-level debug|info|warn|error (default info)\n"
           "  --help                         this text\n");
}

enum {
    O_KUBECONFIG = 1000,
    O_CONTEXT,
    O_WEBHOOK,
    O_SCHED,
    O_NAMESPACE,
    O_DELETE_CM,
    O_DELETE_LEASE,
    O_WAIT_PODS,
    O_WAIT_TIMEOUT,
    O_OBJECTS_ONLY,
    O_LOG_FORMAT,
    O_LOG_LEVEL,
    O_HELP
};

/* Appends name to list (at most UNINSTALL_MAX_OBJECTS); -1 with a message when it does not fit
 * or is not an object name. */
static int add_name(const char **list, size_t *n, const char *flag, const char *name)
{
    const char *why = ds_check_dns_subdomain(name);
    if (why != NULL) {
        fprintf(stderr, "dagsched-controller uninstall: --%s \"%.64s\": %s\n", flag, name, why);
        return -1;
    }
    if (*n == UNINSTALL_MAX_OBJECTS) {
        fprintf(stderr, "dagsched-controller uninstall: --%s: at most %d\n", flag,
                UNINSTALL_MAX_OBJECTS);
        return -1;
    }
    list[(*n)++] = name;
    return 0;
}

static int parse(int argc, char **argv, uninstall_opts *o)
{
    static const struct option opts[] = {
        {"kubeconfig", required_argument, NULL, O_KUBECONFIG},
        {"context", required_argument, NULL, O_CONTEXT},
        {"webhook-configuration", required_argument, NULL, O_WEBHOOK},
        {"scheduler-name", required_argument, NULL, O_SCHED},
        {"namespace", required_argument, NULL, O_NAMESPACE},
        {"delete-configmap", required_argument, NULL, O_DELETE_CM},
        {"delete-lease", required_argument, NULL, O_DELETE_LEASE},
        {"wait-for-pods", required_argument, NULL, O_WAIT_PODS},
        {"wait-timeout", required_argument, NULL, O_WAIT_TIMEOUT},
        {"objects-only", no_argument, NULL, O_OBJECTS_ONLY},
        {"log-format", required_argument, NULL, O_LOG_FORMAT},
        {"log-level", required_argument, NULL, O_LOG_LEVEL},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->scheduler_name = "dagsched";
    o->log_format = "text";
    o->log_level = "info";
    o->wait_timeout_s = 120;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_KUBECONFIG:
            o->kubeconfig = optarg;
            break;
        case O_CONTEXT:
            o->context = optarg;
            break;
        case O_WEBHOOK:
            o->webhook = optarg;
            break;
        case O_SCHED:
            o->scheduler_name = optarg;
            break;
        case O_NAMESPACE:
            o->ns = optarg;
            break;
        case O_DELETE_CM:
            if (add_name(o->configmaps, &o->n_configmaps, "delete-configmap", optarg) != 0)
                return -1;
            break;
        case O_DELETE_LEASE:
            if (add_name(o->leases, &o->n_leases, "delete-lease", optarg) != 0)
                return -1;
            break;
        case O_WAIT_PODS:
            o->wait_selector = optarg;
            break;
        case O_WAIT_TIMEOUT: {
            ds_err derr = {{0}};
            if (ds_duration_parse(optarg, &o->wait_timeout_s, &derr) != 0) {
                fprintf(stderr, "dagsched-controller uninstall: --wait-timeout: %s\n", derr.msg);
                return -1;
            }
            break;
        }
        case O_OBJECTS_ONLY:
            o->objects_only = true;
            break;
        case O_LOG_FORMAT:
            o->log_format = optarg;
            break;
        case O_LOG_LEVEL:
            o->log_level = optarg;
            break;
        case O_HELP:
            usage(stdout);
            exit(0);
        default:
            fprintf(stderr, "dagsched-controller uninstall: unknown or incomplete flag %s\n",
                    optind > 0 && optind <= argc ? argv[optind - 1] : "?");
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "dagsched-controller uninstall: unexpected argument \"%.64s\"\n",
                argv[optind]);
        return -1;
    }
    const char *why;
    if (o->webhook != NULL && (why = ds_check_dns_subdomain(o->webhook)) != NULL) {
        fprintf(stderr, "dagsched-controller uninstall: --webhook-configuration: %s\n", why);
        return -1;
    }
    bool in_ns = o->n_configmaps > 0 || o->n_leases > 0 || o->wait_selector != NULL;
    if (in_ns && o->ns == NULL) {
        fprintf(stderr, "dagsched-controller uninstall: --delete-configmap, --delete-lease and "
                        "--wait-for-pods need --namespace\n");
        return -1;
    }
    if (o->ns != NULL && (why = ds_check_dns_label(o->ns)) != NULL) {
        fprintf(stderr, "dagsched-controller uninstall: --namespace: %s\n", why);
        return -1;
    }
    if (o->wait_selector != NULL &&
        (o->wait_selector[0] == '\0' || strlen(o->wait_selector) > 1024)) {
        fprintf(stderr, "dagsched-controller uninstall: --wait-for-pods: 1 to 1024 bytes\n");
        return -1;
    }
    if (o->objects_only && o->webhook != NULL) {
        fprintf(stderr, "dagsched-controller uninstall: --objects-only deletes no webhook "
                        "configuration\n");
        return -1;
    }
    return 0;
}

static bool has_gate(const json_t *pod)
{
    const json_t *gates = json_object_get(json_object_get(pod, "spec"), "schedulingGates");
    size_t i;
    const json_t *g;
    json_array_foreach(gates, i, g)
    {
        const char *name = json_string_value(json_object_get(g, "name"));
        if (name != NULL && strcmp(name, DS_GATE_DEPENDENCIES) == 0)
            return true;
    }
    return false;
}

typedef int (*item_fn)(kube_client *c, const json_t *item, const uninstall_opts *o, tally *t);

typedef struct lister {
    kube_client *c;
    item_fn fn;
    const uninstall_opts *o;
    tally *t;
    int failed;
} lister;

static int on_item(void *user, const json_t *item, ds_err *err)
{
    (void)err;
    lister *l = user;
    if (l->fn(l->c, item, l->o, l->t) != 0)
        l->failed = 1; /* go on: one pod's failure must not keep the others gated */
    return 0;
}

/* Every item of collection (paginated), fn on each; -1 when the list or an item failed. */
static int list_all(kube_client *c, const char *collection, item_fn fn, const uninstall_opts *o,
                    tally *t)
{
    lister l = {.c = c, .fn = fn, .o = o, .t = t};
    ds_err err = {{0}};
    if (kube_list_each(c, collection, LIST_PAGE, on_item, &l, &err) != 0) {
        KLOG_ERROR("uninstall", "%s", err.msg);
        return -1;
    }
    return l.failed ? -1 : 0;
}

static const char *meta_str(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(json_object_get(obj, "metadata"), key));
    return s != NULL ? s : "";
}

static int ungate_pod(kube_client *c, const json_t *pod, const uninstall_opts *o, tally *t)
{
    (void)o;
    bool gated = has_gate(pod);
    const char *ns = meta_str(pod, "namespace"), *name = meta_str(pod, "name");
    if (gated) {
        t->gated_seen++;
        ds_err err = {{0}};
        if (kube_remove_scheduling_gate(c, ns, name, DS_GATE_DEPENDENCIES, &err) != 0) {
            /* A pod deleted meanwhile is not stranded. */
            if (strstr(err.msg, "404") == NULL && strstr(err.msg, "not found") == NULL) {
                t->failed++;
                KLOG_ERROR("uninstall", "pod %s/%s: removing the gate: %s", ns, name, err.msg);
                return -1;
            }
            return 0;
        }
        t->ungated++;
        KLOG_INFO("uninstall", "pod %s/%s: gate %s removed", ns, name, DS_GATE_DEPENDENCIES);
    }
    return 0;
}

static int report_pod(kube_client *c, const json_t *pod, const uninstall_opts *o, tally *t)
{
    (void)c;
    const char *sched =
        json_string_value(json_object_get(json_object_get(pod, "spec"), "schedulerName"));
    if (sched == NULL || strcmp(sched, o->scheduler_name) != 0)
        return 0;
    if (t->waiting_for_scheduler < REPORT_FIRST)
        KLOG_WARN("uninstall",
                  "pod %s/%s is pending with schedulerName %s: it waits for a scheduler of that "
                  "name (delete it, or recreate it for another scheduler)",
                  meta_str(pod, "namespace"), meta_str(pod, "name"), o->scheduler_name);
    t->waiting_for_scheduler++;
    return 0;
}

static int report_job(kube_client *c, const json_t *job, const uninstall_opts *o, tally *t)
{
    (void)c;
    (void)o;
    if (!json_is_true(json_object_get(json_object_get(job, "spec"), "suspend")))
        return 0;
    if (t->suspended_jobs < REPORT_FIRST)
        KLOG_WARN("uninstall",
                  "Job %s/%s (a DAG task) is suspended and stays so: resume it with `kubectl "
                  "patch job -n %s %s -p '{\"spec\":{\"suspend\":false}}'` if it should run",
                  meta_str(job, "namespace"), meta_str(job, "name"), meta_str(job, "namespace"),
                  meta_str(job, "name"));
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
    if (pc->n++ == 0)
        snprintf(pc->first, sizeof pc->first, "%s", meta_str(item, "name"));
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
        int rc =
            list_all(c, "/api/v1/pods?fieldSelector=status.phase%3DPending", ungate_pod, o, &p);
        total += p.ungated;
        KLOG_INFO("uninstall", "pass %d: %zu gated pods found, %zu gates removed, %zu failures",
                  pass, p.gated_seen, p.ungated, p.failed);
        if (rc != 0)
            return 1;
        clean = p.gated_seen == 0;
    }
    if (list_all(c, "/api/v1/pods?fieldSelector=status.phase%3DPending", report_pod, o, &t) != 0)
        KLOG_WARN("uninstall", "could not list the pending pods for the report");
    if (list_all(c, "/apis/batch/v1/jobs?labelSelector=" DS_LABEL_TASK, report_job, o, &t) != 0)
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
    if (parse(argc, argv, &o) != 0)
        return 2;
    kube_log_level level;
    kube_log_format format;
    if (kube_log_level_parse(o.log_level, &level) != 0 ||
        kube_log_format_parse(o.log_format, &format) != 0) {
        fprintf(stderr, "dagsched-controller uninstall: bad --log-level or --log-format\n");
        return 2;
    }
    kube_log_setup(level, format, NULL);
    kube_config_opts co = {.kubeconfig = o.kubeconfig, .context = o.context};
    kube_config *cfg = NULL;
    ds_err err = {{0}};
    if (kube_config_load(&co, &cfg, &err) != 0) {
        KLOG_ERROR("uninstall", "%s", err.msg);
        return 1;
    }
    kube_client_opts clo = {.user_agent = "dagsched-controller-uninstall"};
    kube_client *c = NULL;
    int rc = kube_client_new(cfg, &clo, &c, &err);
    kube_config_free(cfg);
    if (rc != 0) {
        KLOG_ERROR("uninstall", "%s", err.msg);
        return 1;
    }
    rc = run(c, &o);
    kube_client_free(c);
    return rc;
}
