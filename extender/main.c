/* main.c: bin/dagsched-extender: command-line flags, signals, and the wiring of the Kubernetes
 * client, the informer-backed state and the HTTP(S) server. See docs/extender.md. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "config.h"
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
    kube_log_format log_format;
    kube_log_level log_level;
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

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: dagsched-extender [flags]\n"
            "\n"
            "The dagsched scheduler extender: kube-scheduler calls it to filter, prioritize and\n"
            "preempt for the pods of its dagsched profile (DAG dependencies, DSP priorities and\n"
            "deadlines, Sailfish packing). See docs/extender.md.\n"
            "\n"
            "Flags:\n"
            "  --kubeconfig PATH         kubeconfig file (default: $KUBECONFIG, ~/.kube/config,\n"
            "                            else the in-cluster service account)\n"
            "  --context NAME            kubeconfig context (default: current-context)\n"
            "  --listen HOST:PORT        address to serve on (default 0.0.0.0:8888)\n"
            "  --tls-cert PATH           serve HTTPS with this certificate (PEM); reloaded when\n"
            "  --tls-key PATH            the files change. Both or neither.\n"
            "  --policy-namespace NS     namespace of the SchedulingPolicy ConfigMaps (default:\n"
            "                            the client's namespace)\n"
            "  --policy-name NAME        policy to use (ConfigMap NAME or dagsched-policy-NAME,\n"
            "                            or metadata.name NAME; default \"default\")\n"
            "  --log-format text|json    log format (default text)\n"
            "  --log-level LEVEL         debug, info, warn, error (default info)\n"
            "  --max-body-bytes N        largest request body (default 67108864); larger: 413\n"
            "  --admission-max-body-bytes N  largest AdmissionReview on --admission-listen\n"
            "                            (default 4194304: the API server sends at most ~3 MiB)\n"
            "  --max-connections N       connections open at once on both listeners together\n"
            "                            (default 1024; 0: no limit); more: 503 and closed\n"
            "  --max-buffered-bytes N    request bytes received and not yet answered on both\n"
            "                            listeners together (default 268435456; 0: no limit);\n"
            "                            the request that would pass it: 503 and closed\n"
            "  --max-nodes N             most nodes or victim nodes per request (default 20000)\n"
            "  --refresh SECONDS         rebuild the snapshot at least this often (default 5)\n"
            "  --admission-listen HOST:PORT  serve the admission webhook (POST /mutate-pods) on\n"
            "                            a listener of its own, with the same certificate\n"
            "                            (default: on --listen)\n"
            "  --admission-scheduler-name NAME  pods of this scheduler are gated, and are the\n"
            "                            only ones the verbs treat as DAG tasks (default\n"
            "                            dagsched)\n"
            "  --admission-install-namespace NS  never gate pods of NS (default: the client's\n"
            "                            namespace); kube-system is never gated either\n"
            "  --admission-set-scheduler-name  also serve POST /mutate-pods/set-scheduler-name,\n"
            "                            which sets an empty or default-scheduler schedulerName\n"
            "                            to --admission-scheduler-name before gating\n"
            "  --help                    print this help and exit\n"
            "  --version                 print the version and exit\n");
}

static int parse_size(const char *s, size_t min, size_t max, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v < min || v > max)
        return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_listen(const char *s, char host[256], int *port_out)
{
    const char *colon = strrchr(s, ':');
    if (colon == NULL || colon == s || (size_t)(colon - s) >= 256)
        return -1;
    size_t port;
    if (parse_size(colon + 1, 1, 65535, &port) != 0)
        return -1;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    *port_out = (int)port;
    return 0;
}

/* A DNS-1123 subdomain (what the API server accepts as a scheduler name or namespace). */
static bool dns_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 253)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'))
            return false;
    }
    return true;
}

/* 0: run; 1: exit 0 (help, version); 2: usage error (message printed). */
static int parse_flags(int argc, char **argv, flags *f)
{
    enum {
        O_KUBECONFIG = 256,
        O_CONTEXT,
        O_LISTEN,
        O_TLS_CERT,
        O_TLS_KEY,
        O_POLICY_NS,
        O_POLICY_NAME,
        O_LOG_FORMAT,
        O_LOG_LEVEL,
        O_MAX_BODY,
        O_ADM_MAX_BODY,
        O_MAX_CONNS,
        O_MAX_BUFFERED,
        O_MAX_NODES,
        O_REFRESH,
        O_ADM_LISTEN,
        O_ADM_SCHED,
        O_ADM_NS,
        O_ADM_SET_SCHED,
        O_HELP,
        O_VERSION,
    };
    static const struct option opts[] = {
        {"kubeconfig", required_argument, NULL, O_KUBECONFIG},
        {"context", required_argument, NULL, O_CONTEXT},
        {"listen", required_argument, NULL, O_LISTEN},
        {"tls-cert", required_argument, NULL, O_TLS_CERT},
        {"tls-key", required_argument, NULL, O_TLS_KEY},
        {"policy-namespace", required_argument, NULL, O_POLICY_NS},
        {"policy-name", required_argument, NULL, O_POLICY_NAME},
        {"log-format", required_argument, NULL, O_LOG_FORMAT},
        {"log-level", required_argument, NULL, O_LOG_LEVEL},
        {"max-body-bytes", required_argument, NULL, O_MAX_BODY},
        {"admission-max-body-bytes", required_argument, NULL, O_ADM_MAX_BODY},
        {"max-connections", required_argument, NULL, O_MAX_CONNS},
        {"max-buffered-bytes", required_argument, NULL, O_MAX_BUFFERED},
        {"max-nodes", required_argument, NULL, O_MAX_NODES},
        {"refresh", required_argument, NULL, O_REFRESH},
        {"admission-listen", required_argument, NULL, O_ADM_LISTEN},
        {"admission-scheduler-name", required_argument, NULL, O_ADM_SCHED},
        {"admission-install-namespace", required_argument, NULL, O_ADM_NS},
        {"admission-set-scheduler-name", no_argument, NULL, O_ADM_SET_SCHED},
        {"help", no_argument, NULL, O_HELP},
        {"version", no_argument, NULL, O_VERSION},
        {NULL, 0, NULL, 0},
    };
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
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        size_t v;
        switch (c) {
        case O_KUBECONFIG:
            f->kubeconfig = optarg;
            break;
        case O_CONTEXT:
            f->context = optarg;
            break;
        case O_LISTEN:
            if (parse_listen(optarg, f->host, &f->port) != 0) {
                fprintf(stderr,
                        "dagsched-extender: --listen: expected HOST:PORT with a port "
                        "1..65535 (got \"%s\")\n",
                        optarg);
                return 2;
            }
            break;
        case O_TLS_CERT:
            f->tls_cert = optarg;
            break;
        case O_TLS_KEY:
            f->tls_key = optarg;
            break;
        case O_POLICY_NS:
            f->policy_namespace = optarg;
            break;
        case O_POLICY_NAME:
            if (optarg[0] == '\0' || strlen(optarg) > 253) {
                fprintf(stderr, "dagsched-extender: --policy-name: 1 to 253 characters\n");
                return 2;
            }
            f->policy_name = optarg;
            break;
        case O_LOG_FORMAT:
            if (kube_log_format_parse(optarg, &f->log_format) != 0) {
                fprintf(stderr,
                        "dagsched-extender: --log-format: expected text or json (got \"%s\")\n",
                        optarg);
                return 2;
            }
            break;
        case O_LOG_LEVEL:
            if (kube_log_level_parse(optarg, &f->log_level) != 0) {
                fprintf(stderr,
                        "dagsched-extender: --log-level: expected debug, info, warn, error or "
                        "off (got \"%s\")\n",
                        optarg);
                return 2;
            }
            break;
        case O_MAX_BODY:
            if (parse_size(optarg, 1024, (size_t)1 << 30, &v) != 0) {
                fprintf(stderr,
                        "dagsched-extender: --max-body-bytes: expected 1024..1073741824 (got "
                        "\"%s\")\n",
                        optarg);
                return 2;
            }
            f->max_body = v;
            break;
        case O_ADM_MAX_BODY:
            if (parse_size(optarg, 1024, (size_t)1 << 30, &v) != 0) {
                fprintf(stderr,
                        "dagsched-extender: --admission-max-body-bytes: expected "
                        "1024..1073741824 (got \"%s\")\n",
                        optarg);
                return 2;
            }
            f->adm_max_body = v;
            break;
        case O_MAX_CONNS:
            if (parse_size(optarg, 0, 1000000, &v) != 0) {
                fprintf(stderr,
                        "dagsched-extender: --max-connections: expected 0..1000000 (got "
                        "\"%s\")\n",
                        optarg);
                return 2;
            }
            f->max_conns = v;
            break;
        case O_MAX_BUFFERED:
            if (parse_size(optarg, 0, (size_t)1 << 40, &v) != 0) {
                fprintf(stderr,
                        "dagsched-extender: --max-buffered-bytes: expected 0..1099511627776 (got "
                        "\"%s\")\n",
                        optarg);
                return 2;
            }
            f->max_buffered = v;
            break;
        case O_MAX_NODES:
            if (parse_size(optarg, 1, 1000000, &v) != 0) {
                fprintf(stderr,
                        "dagsched-extender: --max-nodes: expected 1..1000000 (got \"%s\")\n",
                        optarg);
                return 2;
            }
            f->max_nodes = v;
            break;
        case O_REFRESH: {
            char *end;
            double d = strtod(optarg, &end);
            if (end == optarg || *end != '\0' || !(d >= 0.1 && d <= 3600)) {
                fprintf(stderr,
                        "dagsched-extender: --refresh: expected seconds in 0.1..3600 (got "
                        "\"%s\")\n",
                        optarg);
                return 2;
            }
            f->refresh_s = d;
            break;
        }
        case O_ADM_LISTEN:
            if (parse_listen(optarg, f->adm_host, &f->adm_port) != 0) {
                fprintf(stderr,
                        "dagsched-extender: --admission-listen: expected HOST:PORT with a port "
                        "1..65535 (got \"%s\")\n",
                        optarg);
                return 2;
            }
            break;
        case O_ADM_SCHED:
        case O_ADM_NS:
            if (!dns_name(optarg)) {
                fprintf(stderr,
                        "dagsched-extender: --%s: expected a DNS name (lower-case letters, "
                        "digits, '-', '.'; 1 to 253 characters) (got \"%s\")\n",
                        c == O_ADM_SCHED ? "admission-scheduler-name"
                                         : "admission-install-namespace",
                        optarg);
                return 2;
            }
            if (c == O_ADM_SCHED)
                f->adm_scheduler_name = optarg;
            else
                f->adm_install_namespace = optarg;
            break;
        case O_ADM_SET_SCHED:
            f->adm_set_scheduler_name = true;
            break;
        case O_HELP:
            usage(stdout);
            return 1;
        case O_VERSION:
            printf("dagsched-extender %s (git %s)\n", DAGSCHED_VERSION, DAGSCHED_GIT);
            return 1;
        default:
            fprintf(stderr, "dagsched-extender: unknown flag or missing value: %s\n",
                    argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "dagsched-extender: unexpected argument \"%s\"\n", argv[optind]);
        return 2;
    }
    if ((f->tls_cert == NULL) != (f->tls_key == NULL)) {
        fprintf(stderr, "dagsched-extender: --tls-cert and --tls-key must be given together\n");
        return 2;
    }
    return 0;
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
    if (rc == 1)
        return 0;
    if (rc == 2)
        return 2;
    if (rt_malloc_setup(RT_MALLOC_EXTENDER) != 0)
        fprintf(stderr, "dagsched-extender: warning: malloc settings refused\n");
    kube_log_setup(f.log_level, f.log_format, NULL);

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
