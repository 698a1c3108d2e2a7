/* uninstall.c: `dagsched-controller uninstall` (see uninstall.h): removes the admission webhook,
 * then dagsched's scheduling gate from every pod, and reports what is left. */
#include "uninstall.h"

#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "config.h"
#include "k8s_names.h"
#include "kutil.h"
#include "list.h"
#include "log.h"
#include "view.h"
#include "writes.h"

#define LIST_PAGE    500
#define REPORT_FIRST 20

typedef struct uninstall_opts {
    const char *kubeconfig, *context;
    const char *webhook;        /* MutatingWebhookConfiguration to delete; NULL: none */
    const char *scheduler_name; /* pods of this scheduler are reported as left waiting */
    const char *log_format, *log_level;
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
           "no pod is stranded once dagsched is gone. See docs/install.md (Uninstall).\n"
           "\n"
           "Flags:\n"
           "  --kubeconfig PATH              kubeconfig file (default: $KUBECONFIG,\n"
           "                                 ~/.kube/config, else the in-cluster service account)\n"
           "  --context NAME                 kubeconfig context\n"
           "  --webhook-configuration NAME   MutatingWebhookConfiguration to delete first\n"
           "  --scheduler-name NAME          dagsched's scheduler name, for the report of pods\n"
           "                                 left waiting for it (default dagsched)\n"
           "  --log-format text|json         (default text)\n"
           "  --log-level debug|info|warn|error (default info)\n"
           "  --help                         this text\n");
}

enum { O_KUBECONFIG = 1000, O_CONTEXT, O_WEBHOOK, O_SCHED, O_LOG_FORMAT, O_LOG_LEVEL, O_HELP };

static int parse(int argc, char **argv, uninstall_opts *o)
{
    static const struct option opts[] = {
        {"kubeconfig", required_argument, NULL, O_KUBECONFIG},
        {"context", required_argument, NULL, O_CONTEXT},
        {"webhook-configuration", required_argument, NULL, O_WEBHOOK},
        {"scheduler-name", required_argument, NULL, O_SCHED},
        {"log-format", required_argument, NULL, O_LOG_FORMAT},
        {"log-level", required_argument, NULL, O_LOG_LEVEL},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->scheduler_name = "dagsched";
    o->log_format = "text";
    o->log_level = "info";
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

static int run(kube_client *c, const uninstall_opts *o)
{
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
    return 0;
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
