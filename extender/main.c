/* main.c: bin/dagsched-extender: command-line flags, signals, and the wiring of the Kubernetes
 * client, the informer-backed state and the HTTP(S) server. See docs/extender.md. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "config.h"
#include "flags.h"
#include "log.h"
#include "malloc_setup.h"
#include "metrics.h"
#include "procmetrics.h"
#include "server.h"
#include "state.h"
#include "version.h"

#define COMPONENT "main"

typedef struct flags {
    const char *kubeconfig;
    const char *context;
    char host[256];
    int port;
    const char *tls_cert, *tls_key;
    const char *policy_namespace;
    const char *policy_name;
    int log_format, log_level; /* kube_log_format, kube_log_level */
    size_t max_body;
    size_t adm_max_body;
    size_t max_conns;
    size_t max_buffered;
    size_t max_nodes;
    double refresh_s;
    char adm_host[256];
    int adm_port; /* 0: the webhook is served on --listen */
    const char *adm_scheduler_name;
    const char *adm_install_namespace;
    bool adm_set_scheduler_name;
} flags;

#define USAGE                                                                                      \
    "Usage: dagsched-extender [flags]\n"                                                           \
    "\n"                                                                                           \
    "The dagsched scheduler extender: kube-scheduler calls it to filter, prioritize and\n"         \
    "preempt for the pods of its dagsched profile (DAG dependencies, DSP priorities and\n"         \
    "deadlines, Sailfish packing). See docs/extender.md.\n"

/* HOST:PORT with a port 1..65535, into a listen_addr (a flag's conversion, runtime/flags.h). */
typedef struct listen_addr {
    char *host; /* 256 bytes */
    int *port;
} listen_addr;

static int parse_listen(void *dest, const char *s, char *why, size_t size)
{
    listen_addr *a = dest;
    const char *colon = strrchr(s, ':');
    char *end;
    errno = 0;
    long port = colon != NULL ? strtol(colon + 1, &end, 10) : 0;
    if (colon == NULL || colon == s || (size_t)(colon - s) >= 256 || colon[1] == '\0' ||
        colon[1] == '-' || errno != 0 || *end != '\0' || port < 1 || port > 65535) {
        snprintf(why, size, "expected HOST:PORT with a port 1..65535");
        return -1;
    }
    memcpy(a->host, s, (size_t)(colon - s));
    a->host[colon - s] = '\0';
    *a->port = (int)port;
    return 0;
}

/* A DNS-1123 subdomain (what the API server accepts as a scheduler name or namespace). */
static int parse_dns_name(void *dest, const char *s, char *why, size_t size)
{
    size_t n = strlen(s);
    bool ok = n > 0 && n <= 253;
    for (size_t i = 0; ok && i < n; i++)
        ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
             s[i] == '.';
    if (!ok) {
        snprintf(why, size,
                 "expected a DNS name (lower-case letters, digits, '-', '.'; 1 to 253 "
                 "characters)");
        return -1;
    }
    *(const char **)dest = s;
    return 0;
}

static int parse_policy_name(void *dest, const char *s, char *why, size_t size)
{
    if (s[0] == '\0' || strlen(s) > 253) {
        snprintf(why, size, "expected 1 to 253 characters");
        return -1;
    }
    *(const char **)dest = s;
    return 0;
}

/* RT_FLAGS_RUN, or the exit status (runtime/flags.h). */
static int parse_flags(int argc, char **argv, flags *f)
{
    memset(f, 0, sizeof *f);
    snprintf(f->host, sizeof f->host, "0.0.0.0");
    f->port = 8888;
    f->policy_name = "default";
    f->log_format = KUBE_LOG_TEXT;
    f->log_level = KUBE_LOG_INFO;
    f->max_body = 64u << 20;
    f->adm_max_body = 4u << 20;
    f->max_conns = 1024;
    f->max_buffered = 256u << 20;
    f->max_nodes = 20000;
    f->refresh_s = 5;
    f->adm_scheduler_name = "dagsched";
    listen_addr listen = {f->host, &f->port}, adm_listen = {f->adm_host, &f->adm_port};
    const rt_flag table[] = {
        RT_FLAG_STRING("kubeconfig", "PATH", &f->kubeconfig,
                       "kubeconfig file (default: $KUBECONFIG, ~/.kube/config,\n"
                       "else the in-cluster service account)"),
        RT_FLAG_STRING("context", "NAME", &f->context,
                       "kubeconfig context (default: current-context)"),
        RT_FLAG_FUNC("listen", "HOST:PORT", parse_listen, &listen,
                     "address to serve on (default 0.0.0.0:8888)"),
        RT_FLAG_STRING("tls-cert", "PATH", &f->tls_cert,
                       "serve HTTPS with this certificate (PEM); reloaded when"),
        RT_FLAG_STRING("tls-key", "PATH", &f->tls_key, "the files change. Both or neither."),
        RT_FLAG_STRING("policy-namespace", "NS", &f->policy_namespace,
                       "namespace of the SchedulingPolicy ConfigMaps (default:\n"
                       "the client's namespace)"),
        RT_FLAG_FUNC("policy-name", "NAME", parse_policy_name, &f->policy_name,
                     "policy to use (ConfigMap NAME or dagsched-policy-NAME,\n"
                     "or metadata.name NAME; default \"default\")"),
        KUBE_LOG_FLAGS(&f->log_format, &f->log_level),
        RT_FLAG_SIZE("max-body-bytes", "N", &f->max_body, 1024, 1ll << 30,
                     "largest request body (default 67108864); larger: 413"),
        RT_FLAG_SIZE("admission-max-body-bytes", "N", &f->adm_max_body, 1024, 1ll << 30,
                     "largest AdmissionReview on --admission-listen\n"
                     "(default 4194304: the API server sends at most ~3 MiB)"),
        RT_FLAG_SIZE("max-connections", "N", &f->max_conns, 0, 1000000,
                     "connections open at once on both listeners together\n"
                     "(default 1024; 0: no limit); more: 503 and closed"),
        RT_FLAG_SIZE("max-buffered-bytes", "N", &f->max_buffered, 0, 1ll << 40,
                     "request bytes received and not yet answered on both\n"
                     "listeners together (default 268435456; 0: no limit);\n"
                     "the request that would pass it: 503 and closed"),
        RT_FLAG_SIZE("max-nodes", "N", &f->max_nodes, 1, 1000000,
                     "most nodes or victim nodes per request (default 20000)"),
        RT_FLAG_DOUBLE("refresh", "SECONDS", &f->refresh_s, 0.1, 3600,
                       "rebuild the snapshot at least this often (default 5)"),
        RT_FLAG_FUNC("admission-listen", "HOST:PORT", parse_listen, &adm_listen,
                     "serve the admission webhook (POST /mutate-pods) on\n"
                     "a listener of its own, with the same certificate\n"
                     "(default: on --listen)"),
        RT_FLAG_FUNC("admission-scheduler-name", "NAME", parse_dns_name, &f->adm_scheduler_name,
                     "pods of this scheduler are gated, and are the\n"
                     "only ones the verbs treat as DAG tasks (default\n"
                     "dagsched)"),
        RT_FLAG_FUNC("admission-install-namespace", "NS", parse_dns_name, &f->adm_install_namespace,
                     "never gate pods of NS (default: the client's\n"
                     "namespace); kube-system is never gated either"),
        RT_FLAG_SET("admission-set-scheduler-name", &f->adm_set_scheduler_name,
                    "also serve POST /mutate-pods/set-scheduler-name,\n"
                    "which sets an empty or default-scheduler schedulerName\n"
                    "to --admission-scheduler-name before gating"),
    };
    const rt_flags spec = {.prog = "dagsched-extender",
                           .usage = USAGE,
                           .version = DAGSCHED_VERSION_LINE("dagsched-extender"),
                           RT_FLAGS_TABLE(table)};
    int rc = rt_flags_parse(&spec, argc, argv, NULL);
    if (rc != RT_FLAGS_RUN)
        return rc;
    if ((f->tls_cert == NULL) != (f->tls_key == NULL))
        return rt_flags_error(&spec, "--tls-cert and --tls-key must be given together");
    return RT_FLAGS_RUN;
}

static const ext_snapshot *source_acquire(void *user)
{
    return ext_state_acquire(user);
}

static bool source_ready(void *user)
{
    return ext_state_ready(user);
}

static bool source_event(void *user, const kube_pod *pod, const char *reason, const char *msg)
{
    return ext_state_pod_event(user, pod, reason, msg);
}

int main(int argc, char **argv)
{
    flags f;
    int rc = parse_flags(argc, argv, &f);
    if (rc != RT_FLAGS_RUN)
        return rc;
    if (rt_malloc_setup(RT_MALLOC_EXTENDER) != 0)
        fprintf(stderr, "dagsched-extender: warning: malloc settings refused\n");
    kube_log_setup((kube_log_level)f.log_level, (kube_log_format)f.log_format, NULL);

    /* Signals are taken by sigwait below; every thread created from here on blocks them. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    ds_err err;
    kube_config *cfg = NULL;
    kube_client *client = NULL;
    metrics_registry *reg = NULL;
    ext_state *st = NULL;
    ext_server *srv = NULL;
    rc = 1;
    kube_config_opts co = {.kubeconfig = f.kubeconfig, .context = f.context};
    if (kube_config_load(&co, &cfg, &err) != 0) {
        KLOG_ERROR(COMPONENT, "configuration: %s", err.msg);
        return 1;
    }
    kube_client_opts cl = {.user_agent = "dagsched-extender/" DAGSCHED_VERSION};
    if (kube_client_new(cfg, &cl, &client, &err) != 0) {
        KLOG_ERROR(COMPONENT, "client: %s", err.msg);
        goto out;
    }
    KLOG_INFO(COMPONENT, "dagsched-extender %s (git %s): API server %s (%s)", DAGSCHED_VERSION,
              DAGSCHED_GIT, cfg->server, cfg->source);

    reg = metrics_registry_new();
    if (reg == NULL ||
        metrics_build_info(reg, "dagsched_extender_build_info", DAGSCHED_VERSION, DAGSCHED_GIT) ==
            NULL ||
        rt_procmetrics_register(reg) != 0) {
        KLOG_ERROR(COMPONENT, "out of memory");
        goto out;
    }
    ext_state_opts so = {.policy_namespace = f.policy_namespace,
                         .policy_name = f.policy_name,
                         .refresh_s = f.refresh_s,
                         .metrics = reg};
    if (ext_state_start(client, &so, &st, &err) != 0) {
        KLOG_ERROR(COMPONENT, "state: %s", err.msg);
        goto out;
    }

    ext_server_opts sv = {.host = f.host,
                          .port = f.port,
                          .tls_cert = f.tls_cert,
                          .tls_key = f.tls_key,
                          .source = {.acquire = source_acquire,
                                     .ready = source_ready,
                                     .pod_event = source_event,
                                     .user = st},
                          .metrics = reg};
    ext_limits_default(&sv.ctx.limits);
    sv.ctx.limits.max_body = f.max_body;
    sv.ctx.limits.max_nodes = f.max_nodes;
    sv.ctx.tasks_succeeded = ext_state_tasks_succeeded;
    sv.ctx.tasks_user = st;
    sv.ctx.scheduler_name = f.adm_scheduler_name;
    httpd_budget budget;
    httpd_budget_init(&budget, f.max_conns, f.max_buffered);
    sv.budget = &budget;
    sv.admission = (ext_admission_opts){.enabled = true,
                                        .adm = {.scheduler_name = f.adm_scheduler_name,
                                                .install_namespace = f.adm_install_namespace != NULL
                                                                         ? f.adm_install_namespace
                                                                         : cfg->namespace,
                                                .set_scheduler_name = f.adm_set_scheduler_name},
                                        .own_listener = f.adm_port > 0,
                                        .max_body = f.adm_max_body,
                                        .host = f.adm_host,
                                        .port = f.adm_port};
    if (ext_server_start(&sv, &srv, &err) != 0) {
        KLOG_ERROR(COMPONENT, "server: %s", err.msg);
        goto out;
    }
    KLOG_INFO(COMPONENT, "serving %s on %s:%d (policy %s in namespace %s)",
              f.tls_cert != NULL ? "HTTPS" : "HTTP", f.host, ext_server_port(srv), f.policy_name,
              f.policy_namespace != NULL ? f.policy_namespace : cfg->namespace);
    KLOG_INFO(COMPONENT,
              "admission webhook POST /mutate-pods%s on %s:%d: gates pods of scheduler %s "
              "outside kube-system and %s",
              f.adm_set_scheduler_name ? " and /mutate-pods/set-scheduler-name" : "",
              f.adm_port > 0 ? f.adm_host : f.host,
              f.adm_port > 0 ? ext_server_admission_port(srv) : ext_server_port(srv),
              f.adm_scheduler_name, sv.admission.adm.install_namespace);

    int sig = 0;
    while (sigwait(&sigs, &sig) != 0)
        ;
    KLOG_INFO(COMPONENT, "received signal %d; shutting down", sig);
    rc = 0;
out:
    ext_server_stop(srv);
    ext_state_stop(st); /* stops the watches before the client goes */
    if (client != NULL)
        kube_client_shutdown(client);
    ext_state_free(st);
    metrics_registry_free(reg);
    kube_client_free(client);
    kube_config_free(cfg);
    return rc;
}
