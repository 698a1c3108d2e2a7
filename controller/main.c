/* main.c: bin/dagsched-controller: flags, logging, signals, the watches, leader election, the
 * /healthz /readyz /metrics server, and the decision loop (round.c). See docs/controller.md. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotations.h"
#include "controller.h"
#include "workflows.h"
#include "clock.h"
#include "flags.h"
#include "httpd.h"
#include "malloc_setup.h"
#include "kutil.h"
#include "log.h"
#include "timefmt.h"
#include "probe.h"
#include "uninstall.h"
#include "version.h"

static volatile sig_atomic_t g_signal;

static void on_signal(int sig)
{
    g_signal = sig;
}

#define USAGE                                                                                      \
    "Usage: dagsched-controller [flags]\n"                                                         \
    "       dagsched-controller uninstall [flags]   (see uninstall --help)\n"                      \
    "       dagsched-controller probe --url URL...  (see probe --help)\n"                          \
    "\n"                                                                                           \
    "Releases DAG tasks when their upstream tasks succeed and evicts low-priority pods\n"          \
    "for urgent deadline tasks (DSP). See docs/controller.md.\n"

typedef struct flags {
    ctl_options o;
    int log_format, log_level; /* kube_log_format, kube_log_level */
    char identity[300];
} flags;

/* RT_FLAGS_RUN, or the exit status (runtime/flags.h). */
static int parse_flags(int argc, char **argv, flags *f)
{
    ctl_options *o = &f->o;
    o->policy_namespace = "dagsched-system";
    o->policy_name = "default";
    o->leader_elect = true;
    o->lease_name = "dagsched-controller";
    o->lease_duration_s = 15;
    o->renew_deadline_s = 10;
    o->retry_period_s = 2;
    o->metrics_listen = "0.0.0.0:10271";
    o->cache_max_age_s = 30;
    o->ledger_name = "dagsched-controller-evictions";
    o->runtime_history_name = DS_RUNTIME_HISTORY_NAME;
    o->scheduler_name = "dagsched";
    o->max_annotation_updates = 100;
    o->min_round_interval_s = 1;
    o->write_qps = 20;
    o->write_queue_max = 10000;
    o->max_graph_tasks = CTL_MAX_GRAPH_TASKS_DEFAULT;
    o->release_window = 16;
    o->kube_api_qps = 300;
    o->kube_api_burst = 600;
    f->log_format = KUBE_LOG_TEXT;
    f->log_level = KUBE_LOG_INFO;
    const rt_flag table[] = {
        RT_FLAG_STRING("kubeconfig", "PATH", &o->kubeconfig,
                       "kubeconfig file (default: $KUBECONFIG, ~/.kube/config,\n"
                       "else the in-cluster service account)"),
        RT_FLAG_STRING("context", "NAME", &o->context,
                       "kubeconfig context (default: current-context)"),
        RT_FLAG_STRING("policy-namespace", "NS", &o->policy_namespace,
                       "namespace of the SchedulingPolicy ConfigMaps, the\n"
                       "eviction ledger and the Lease (default dagsched-system)"),
        RT_FLAG_STRING("policy-name", "NAME", &o->policy_name,
                       "SchedulingPolicy to apply (default \"default\")"),
        RT_FLAG_BOOL("dry-run", &o->dry_run,
                     "decide, log and post Events, but evict, release and\nannotate nothing"),
        RT_FLAG_BOOL("leader-elect", &o->leader_elect,
                     "elect a leader on a Lease; only the leader writes\n(default true)"),
        RT_FLAG_STRING("leader-elect-lease-name", "NAME", &o->lease_name,
                       "Lease name (default dagsched-controller)"),
        RT_FLAG_STRING("leader-elect-namespace", "NS", &o->lease_namespace,
                       "Lease namespace (default: --policy-namespace)"),
        RT_FLAG_STRING("leader-elect-identity", "ID", &o->identity,
                       "this process's identity (default hostname_pid)"),
        RT_FLAG_DURATION("leader-elect-lease-duration", &o->lease_duration_s, 1, 3600,
                         "(default 15s)"),
        RT_FLAG_DURATION("leader-elect-renew-deadline", &o->renew_deadline_s, 0.1, 3600,
                         "(default 10s)"),
        RT_FLAG_DURATION("leader-elect-retry-period", &o->retry_period_s, 0.1, 3600,
                         "(default 2s)"),
        RT_FLAG_STRING("metrics-listen", "HOST:PORT", &o->metrics_listen,
                       "serve /healthz, /readyz and /metrics (default\n"
                       "0.0.0.0:10271; \"\" disables)"),
        RT_FLAG_DURATION("cache-max-age", &o->cache_max_age_s, 1, 3600,
                         "act only while every watch was in contact with the\n"
                         "API server within D (default 30s)"),
        RT_FLAG_STRING("ledger-name", "NAME", &o->ledger_name,
                       "ConfigMap of the eviction ledger (default\n"
                       "dagsched-controller-evictions)"),
        RT_FLAG_STRING("runtime-history-name", "NAME", &o->runtime_history_name,
                       "ConfigMap of the run times learned from earlier runs\n"
                       "(default dagsched-runtime-history)"),
        RT_FLAG_STRING("scheduler-name", "NAME", &o->scheduler_name,
                       "the pods dagsched acts on: spec.schedulerName NAME\n"
                       "(default dagsched); others are never released,\n"
                       "annotated or evicted. Empty: every scheduler's pods\n"
                       "(the controller alone beside the default scheduler)"),
        RT_FLAG_INT("max-annotation-updates", "N", &o->max_annotation_updates, 0, 100000,
                    "pod annotation updates queued per round (waiting\n"
                    "reasons, then DSP values; default 100)"),
        RT_FLAG_DOUBLE("write-qps", "Q", &o->write_qps, 0, 100000,
                       "annotation writes a second, made by the write queue's\n"
                       "own thread (default 20; 0: no limit)"),
        RT_FLAG_SIZE("write-queue-size", "N", &o->write_queue_max, 1, 1000000,
                     "annotation writes queued at most (default 10000)"),
        RT_FLAG_SIZE("max-graph-tasks-per-round", "N", &o->max_graph_tasks, 0, 100000000,
                     "tasks of DAG jobs a round evaluates; the jobs past it\n"
                     "wait for a later round, in turn (default 50000; 0: no\n"
                     "bound)"),
        RT_FLAG_SIZE("release-concurrency", "N", &o->release_window, 1, CTL_RELEASER_MAX_WINDOW,
                     "releases sent to the API server at once, by threads\n"
                     "of their own (default 16; 1: one after the other)"),
        RT_FLAG_DOUBLE("kube-api-qps", "Q", &o->kube_api_qps, 0, 100000,
                       "requests a second to the API server, watches aside\n"
                       "(default 300; 0: no limit)"),
        RT_FLAG_DOUBLE("kube-api-burst", "N", &o->kube_api_burst, 0, 100000,
                       "requests sent at once above --kube-api-qps (default\n"
                       "600)"),
        RT_FLAG_DURATION("min-round-interval", &o->min_round_interval_s, 0.1, 3600,
                         "shortest time between two rounds (default 1s)"),
        KUBE_LOG_FLAGS(&f->log_format, &f->log_level),
    };
    const rt_flags spec = {.prog = "dagsched-controller",
                           .usage = USAGE,
                           .version = DAGSCHED_VERSION_LINE("dagsched-controller"),
                           RT_FLAGS_TABLE(table)};
    int rc = rt_flags_parse(&spec, argc, argv, NULL);
    if (rc != RT_FLAGS_RUN)
        return rc;
    if (o->lease_namespace == NULL)
        o->lease_namespace = o->policy_namespace;
    if (o->identity == NULL) {
        char host[256] = "unknown";
        gethostname(host, sizeof host - 1);
        snprintf(f->identity, sizeof f->identity, "%s_%ld", host, (long)getpid());
        o->identity = f->identity;
    }
    if (!(o->renew_deadline_s < o->lease_duration_s) ||
        !(o->renew_deadline_s > 1.2 * o->retry_period_s))
        return rt_flags_error(&spec, "leader election needs retry-period * 1.2 < renew-deadline "
                                     "< lease-duration");
    return RT_FLAGS_RUN;
}

/* ---- informer callbacks ---- */

static bool pod_changed(const kube_pod *a, const kube_pod *b)
{
    if (a->phase != b->phase || a->unschedulable != b->unschedulable || a->n_gates != b->n_gates ||
        a->meta.deleting != b->meta.deleting)
        return true;
    if ((a->node_name == NULL) != (b->node_name == NULL))
        return true;
    return a->node_name != NULL && strcmp(a->node_name, b->node_name) != 0;
}

static void kick_add(void *user, const kube_meta *obj)
{
    (void)obj;
    ctl_kick(user);
}

static void kick_update(void *user, const kube_meta *old, const kube_meta *cur)
{
    (void)old;
    (void)cur;
    ctl_kick(user);
}

static void pod_update(void *user, const kube_meta *old, const kube_meta *cur)
{
    const kube_pod *a = (const kube_pod *)old, *b = (const kube_pod *)cur;
    /* kube-scheduler found no node for a DAG task: it may need an eviction, decide at once. */
    if (!a->unschedulable && b->unschedulable && b->job_key != NULL && b->node_name == NULL)
        ctl_kick_urgent(user);
    else if (pod_changed(a, b))
        ctl_kick(user);
}

static void node_update(void *user, const kube_meta *old, const kube_meta *cur)
{
    const kube_node *a = (const kube_node *)old, *b = (const kube_node *)cur;
    if (a->ready != b->ready || a->unschedulable != b->unschedulable ||
        memcmp(&a->allocatable, &b->allocatable, sizeof a->allocatable) != 0)
        ctl_kick(user);
}

/* A namespace's labels decide whether its pods may be evicted (namespaceSelector). */
static bool same_labels(const kube_meta *a, const kube_meta *b)
{
    if (a->n_labels != b->n_labels)
        return false;
    for (size_t i = 0; i < a->n_labels; i++) {
        const char *v = kube_meta_label(b, a->labels[i].key);
        if (v == NULL || strcmp(v, a->labels[i].value) != 0)
            return false;
    }
    return true;
}

static void namespace_update(void *user, const kube_meta *old, const kube_meta *cur)
{
    if (!same_labels(old, cur))
        ctl_kick(user);
}

static void on_started(void *user)
{
    ctl_controller *c = user;
    atomic_store(&c->leading, true);
    atomic_store(&c->need_ledger, true);
    atomic_store(&c->need_runtimes, true);
    KLOG_INFO("leader", "%s is now the leader", c->opt.identity);
    ctl_kick(c);
}

static void on_stopped(void *user)
{
    ctl_controller *c = user;
    atomic_store(&c->leading, false);
    KLOG_WARN("leader", "%s is no longer the leader", c->opt.identity);
}

static void on_new_leader(void *user, const char *identity)
{
    ctl_controller *c = user;
    if (identity != NULL && strcmp(identity, c->opt.identity) != 0)
        KLOG_INFO("leader", "the leader is %s", identity[0] ? identity : "(none)");
}

static int start_informer(ctl_controller *c, kube_kind kind, const char *ns, const char *selector,
                          kube_informer_callbacks cb, kube_informer **out)
{
    kube_informer_opts io;
    memset(&io, 0, sizeof io);
    io.kind = kind;
    io.namespace = ns;
    io.label_selector = selector;
    io.cb = cb;
    /* The active policy's gpuResourceNames (its documented default until a policy is read; a
     * reloaded policy's list is applied in round.c). The informer copies them. */
    const char *gpu[DS_POLICY_MAX_LIST];
    io.decode.gpu_names = gpu;
    io.decode.n_gpu_names = ds_name_list_ptrs(&c->policy.policy.gpu_resource_names, gpu);
    ds_err err = {{0}};
    if (kube_informer_new(c->client, &io, out, &err) != 0 || kube_informer_start(*out, &err) != 0) {
        KLOG_ERROR("main", "%s watch: %s", kube_kind_name(kind), err.msg);
        return -1;
    }
    return 0;
}

/* ---- HTTP ---- */

static void h_readyz(void *ctx, const httpd_request *req, httpd_response *resp)
{
    (void)req;
    ctl_controller *c = ctx;
    kube_informer *all[] = {c->pods,   c->nodes,    c->pdbs,       c->jobs,
                            c->graphs, c->policies, c->namespaces, c->workflows};
    bool ready = true;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ready = ready && (all[i] == NULL || kube_informer_healthy(all[i], c->opt.cache_max_age_s));
    httpd_respond_ready(resp, ready, "watches not synced or out of contact\n");
}

static void h_metrics(void *ctx, const httpd_request *req, httpd_response *resp)
{
    ctl_controller *c = ctx;
    metrics_set(c->m.leader, NULL, ctl_may_write(c) ? 1 : 0);
    for (int m = 0; m < KUBE_METHOD_N; m++) {
        const char *lv[] = {kube_method_name((kube_method)m)};
        metrics_set_total(c->m.api_requests, lv, (double)kube_client_requests(c->client, m));
    }
    metrics_set_total(c->m.api_throttled, NULL, (double)kube_client_throttled(c->client));
    httpd_handle_metrics(c->m.reg, req, resp);
}

static int start_http(ctl_controller *c, httpd **out)
{
    *out = NULL;
    const char *l = c->opt.metrics_listen;
    if (l == NULL || l[0] == '\0')
        return 0;
    const char *colon = strrchr(l, ':');
    char host[128];
    if (colon == NULL || (size_t)(colon - l) >= sizeof host) {
        KLOG_ERROR("main", "--metrics-listen: expected HOST:PORT (got \"%.64s\")", l);
        return -1;
    }
    memcpy(host, l, (size_t)(colon - l));
    host[colon - l] = '\0';
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end != '\0' || port < 0 || port > 65535) {
        KLOG_ERROR("main", "--metrics-listen: invalid port (got \"%.64s\")", l);
        return -1;
    }
    httpd_route routes[] = {
        {"GET", "/healthz", httpd_handle_healthz, NULL},
        {"GET", "/readyz", h_readyz, c},
        {"GET", "/metrics", h_metrics, c},
    };
    httpd_opts ho;
    memset(&ho, 0, sizeof ho);
    ho.host = host[0] ? host : "0.0.0.0";
    ho.port = (int)port;
    ho.max_body = 4096;
    httpd_budget_init(&c->http_budget, CTL_HTTP_MAX_CONNS, CTL_HTTP_MAX_BUFFERED);
    ho.budget = &c->http_budget;
    ho.routes = routes;
    ho.n_routes = 3;
    ho.metrics = c->m.reg;
    ho.metrics_prefix = "dagsched_controller_http";
    ds_err err = {{0}};
    if (httpd_start(&ho, out, &err) != 0) {
        KLOG_ERROR("main", "--metrics-listen %s: %s", l, err.msg);
        return -1;
    }
    KLOG_INFO("main", "serving /healthz, /readyz and /metrics on %s:%d", ho.host, httpd_port(*out));
    return 0;
}

/* Signals are turned into c->stop by a watcher thread (handlers only set a flag). */
static void *signal_watch(void *arg)
{
    ctl_controller *c = arg;
    while (!atomic_load(&c->stop)) {
        if (g_signal != 0) {
            KLOG_INFO("main", "signal %d: shutting down", (int)g_signal);
            atomic_store(&c->stop, true);
            ctl_kick(c);
            break;
        }
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "uninstall") == 0)
        return ctl_uninstall_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "probe") == 0)
        return ctl_probe_main(argc - 1, argv + 1);
    flags f;
    memset(&f, 0, sizeof f);
    int rc = parse_flags(argc, argv, &f);
    if (rc != RT_FLAGS_RUN)
        return rc;
    if (rt_malloc_setup(RT_MALLOC_CONTROLLER) != 0)
        fprintf(stderr, "dagsched-controller: warning: malloc settings refused\n");
    kube_log_setup((kube_log_level)f.log_level, (kube_log_format)f.log_format, NULL);

    static ctl_controller c; /* large (the memo): not on the stack */
    c.opt = f.o;
    pthread_mutex_init(&c.mu, NULL);
    if (rt_cond_init(&c.cv) != 0) {
        KLOG_ERROR("main", "out of memory (a condition variable)");
        return 1;
    }
    ctl_memo_init(&c.memo);
    ctl_workset_init(&c.work);
    kube_policy_state_init(&c.policy);
    if (ctl_metrics_init(&c.m, DAGSCHED_VERSION, DAGSCHED_GIT) != 0) {
        KLOG_ERROR("main", "metrics: out of memory");
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    kube_config_opts co = {.kubeconfig = c.opt.kubeconfig, .context = c.opt.context};
    kube_config *cfg = NULL;
    ds_err err = {{0}};
    if (kube_config_load(&co, &cfg, &err) != 0) {
        KLOG_ERROR("main", "%s", err.msg);
        return 1;
    }
    kube_client_opts clo = {
        .user_agent = CTL_COMPONENT, .qps = c.opt.kube_api_qps, .burst = c.opt.kube_api_burst};
    if (kube_client_new(cfg, &clo, &c.client, &err) != 0) {
        KLOG_ERROR("main", "%s", err.msg);
        kube_config_free(cfg);
        return 1;
    }
    KLOG_INFO("main", "dagsched-controller %s (git %s): API server %s (%s)%s", DAGSCHED_VERSION,
              DAGSCHED_GIT, cfg->server, cfg->source, c.opt.dry_run ? ", dry run" : "");
    kube_config_free(cfg);
    ctl_ledger_store_init(&c.ledger, c.client, c.opt.policy_namespace, c.opt.ledger_name);
    atomic_store(&c.need_ledger, true);
    if (ctl_runtime_store_init(&c.runtimes, c.client, c.opt.policy_namespace,
                               c.opt.runtime_history_name, &err) != 0) {
        KLOG_ERROR("main", "%s", err.msg);
        ctl_ledger_store_free(&c.ledger);
        kube_client_free(c.client);
        return 1;
    }
    atomic_store(&c.need_runtimes, true);

    httpd *http = NULL;
    rc = 1;
    kube_informer_callbacks pod_cb = {kick_add, pod_update, kick_add, NULL, &c};
    kube_informer_callbacks node_cb = {kick_add, node_update, kick_add, NULL, &c};
    kube_informer_callbacks all_cb = {kick_add, kick_update, kick_add, NULL, &c};
    kube_informer_callbacks none_cb = {NULL, NULL, NULL, NULL, &c};
    kube_informer_callbacks ns_cb = {NULL, namespace_update, NULL, NULL, &c};
    if (start_informer(&c, KUBE_KIND_POD, NULL, NULL, pod_cb, &c.pods) != 0 ||
        start_informer(&c, KUBE_KIND_NODE, NULL, NULL, node_cb, &c.nodes) != 0 ||
        start_informer(&c, KUBE_KIND_PDB, NULL, NULL, none_cb, &c.pdbs) != 0 ||
        /* Every Job, not only DAG tasks': a victim's Job says whether it would retry an evicted
         * pod (spec.backoffLimit, spec.podFailurePolicy; lib/owner_retry.h). */
        start_informer(&c, KUBE_KIND_JOB, NULL, NULL, all_cb, &c.jobs) != 0 ||
        start_informer(&c, KUBE_KIND_CONFIGMAP, NULL, DS_SELECTOR_JOBGRAPH, all_cb, &c.graphs) !=
            0 ||
        start_informer(&c, KUBE_KIND_CONFIGMAP, c.opt.policy_namespace, KUBE_POLICY_SELECTOR,
                       all_cb, &c.policies) != 0 ||
        /* Always watched (name and labels only; namespaces are few): a hot-reloaded policy may
         * set spec.preemption.namespaceSelector at any time, and must then act on a synced
         * cache at once rather than wait for a first list. */
        start_informer(&c, KUBE_KIND_NAMESPACE, NULL, NULL, ns_cb, &c.namespaces) != 0)
        goto out;
    if (ctl_workflows_served(c.client) &&
        start_informer(&c, KUBE_KIND_WORKFLOW, NULL, NULL, all_cb, &c.workflows) != 0)
        goto out;
    if (start_http(&c, &http) != 0)
        goto out;
    if (c.opt.leader_elect) {
        kube_leader_opts lo = {.namespace = c.opt.lease_namespace,
                               .name = c.opt.lease_name,
                               .identity = c.opt.identity,
                               .lease_duration_s = c.opt.lease_duration_s,
                               .renew_deadline_s = c.opt.renew_deadline_s,
                               .retry_period_s = c.opt.retry_period_s,
                               .on_started = on_started,
                               .on_stopped = on_stopped,
                               .on_new_leader = on_new_leader,
                               .user = &c};
        if (kube_leader_new(c.client, &lo, &c.leader, &err) != 0 ||
            kube_leader_start(c.leader, &err) != 0) {
            KLOG_ERROR("main", "leader election: %s", err.msg);
            goto out;
        }
        KLOG_INFO("main", "leader election on lease %s/%s as %s", c.opt.lease_namespace,
                  c.opt.lease_name, c.opt.identity);
    } else {
        KLOG_INFO("main", "leader election off: this process acts alone");
    }
    if (ctl_writer_start(&c.writer, &c, c.opt.write_queue_max, c.opt.write_qps) != 0) {
        KLOG_ERROR("main", "cannot start the write queue");
        goto out;
    }
    KLOG_INFO("main", "write queue: at most %zu annotation writes queued, %g a second%s",
              c.opt.write_queue_max, c.opt.write_qps, c.opt.write_qps > 0 ? "" : " (no limit)");
    if (ctl_releaser_start(&c.releaser, c.client, DS_GATE_DEPENDENCIES, DS_ANN_RELEASED_AT,
                           c.opt.release_window, ctl_release_done, ctl_release_may_write, &c,
                           &err) != 0) {
        KLOG_ERROR("main", "%s", err.msg);
        goto out;
    }
    if (c.opt.kube_api_qps > 0)
        KLOG_INFO("main", "releases: %zu sent at once; API requests: %g a second, burst %g",
                  c.opt.release_window, c.opt.kube_api_qps, c.opt.kube_api_burst);
    else
        KLOG_INFO("main", "releases: %zu sent at once; API requests: no rate limit",
                  c.opt.release_window);
    if (c.opt.max_graph_tasks > 0)
        KLOG_INFO("main", "graph work: at most %zu tasks of DAG jobs evaluated a round",
                  c.opt.max_graph_tasks);
    else
        KLOG_INFO("main", "graph work: every DAG job evaluated every round (no bound)");
    pthread_t sig_thread;
    if (pthread_create(&sig_thread, NULL, signal_watch, &c) != 0) {
        KLOG_ERROR("main", "cannot start the signal thread");
        goto out;
    }
    ctl_loop(&c);
    atomic_store(&c.stop, true);
    pthread_join(sig_thread, NULL);
    rc = 0;
out:
    atomic_store(&c.stop, true);
    ctl_writer_stop(&c.writer);     /* before the leader: its thread asks whether it may write */
    ctl_releaser_stop(&c.releaser); /* the same */
    if (c.leader != NULL) {
        kube_leader_stop(c.leader); /* releases the Lease for a fast takeover */
        kube_leader_free(c.leader);
    }
    httpd_stop(http);
    kube_informer *all[] = {c.pods,   c.nodes,    c.pdbs,       c.jobs,
                            c.graphs, c.policies, c.namespaces, c.workflows};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i] != NULL)
            kube_informer_stop(all[i]);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i] != NULL)
            kube_informer_free(all[i]);
    ctl_ledger_store_free(&c.ledger);
    ctl_runtime_store_free(&c.runtimes);
    ctl_memo_free(&c.memo);
    ctl_workset_free(&c.work);
    ctl_outcomes_free(&c.outcomes);
    for (size_t i = 0; i < c.n_tenant_series; i++)
        free(c.tenant_series[i]);
    free(c.tenant_series);
    kube_client_free(c.client);
    metrics_registry_free(c.m.reg);
    KLOG_INFO("main", "stopped");
    return rc;
}
