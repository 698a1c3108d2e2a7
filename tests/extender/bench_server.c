/* bench_server.c: the extender's HTTP server on a synthetic cluster, for `make bench-extender`.
 *
 * Builds a snapshot of NODES nodes and PODS pods (a fifth outside any DAG, running; the rest in
 * ten-task DAG jobs: three tasks succeeded, two running, one runnable, four blocked; half of the
 * jobs with deadlines) exactly as the live state would from its caches, then serves it with the
 * production server code. With --floor, /filter and /prioritize parse the request and answer
 * constants (the benchmark's floor). With --write-bodies DIR, writes the filter/prioritize request
 * kube-scheduler would send (nodeCacheCapable, every node a candidate, a runnable DAG task) to
 * DIR/request.json first. Prints "port N" when serving; stops on SIGINT or SIGTERM.
 *
 * With --in-process ITER it instead times ITER calls of each handler on that request without
 * HTTP (needs --write-bodies) and prints the mean per verb.
 *
 * Usage: bench_server NODES PODS [--floor] [--write-bodies DIR] [--in-process ITER] */
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "fixtures.h"
#include "kutil.h"
#include "log.h"
#include "malloc_setup.h"
#include "server.h"

#define TASKS_PER_JOB 10

static const ext_snapshot *static_acquire(void *user)
{
    return ext_snapshot_ref(user);
}

static bool static_ready(void *user)
{
    (void)user;
    return true;
}

static void ts(double t, char *buf, size_t size)
{
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Task k of job j: t0 root; t1, t2 after t0; t3 after t1; t4 after t2; t5 after t0 (runnable);
 * t6..t9 after t3 or t4 (blocked). */
static void task_spec(size_t j, size_t k, size_t n_nodes, double now, fx_pod_spec *s, char *bufs,
                      size_t bufsize)
{
    static const char *const deps[TASKS_PER_JOB] = {NULL, "t0", "t0", "t1", "t2",
                                                    "t0", "t3", "t4", "t3", "t4"};
    static const char *const phase[TASKS_PER_JOB] = {
        "Succeeded", "Succeeded", "Succeeded", "Running", "Running",
        "Pending",   "Pending",   "Pending",   "Pending", "Pending"};
    char *name = bufs, *uid = bufs + bufsize, *job = bufs + 2 * bufsize, *task = bufs + 3 * bufsize,
         *node = bufs + 4 * bufsize, *created = bufs + 5 * bufsize, *deadline = bufs + 6 * bufsize;
    snprintf(job, bufsize, "job-%05zu", j);
    snprintf(task, bufsize, "t%zu", k);
    kutil_sfmt(name, bufsize, "%s-%s", job, task);
    kutil_sfmt(uid, bufsize, "uid-%s", name);
    snprintf(node, bufsize, "node-%05zu", (j * 7 + k) % n_nodes);
    ts(now - 600, created, bufsize);
    ts(now + 3600 + (double)(j % 50) * 60, deadline, bufsize);
    *s = (fx_pod_spec){.ns = "batch",
                       .name = name,
                       .uid = uid,
                       .rv = "7",
                       .job = job,
                       .task = task,
                       .depends_on = deps[k],
                       .runtime = "90s",
                       .deadline = j % 2 == 0 ? deadline : NULL,
                       .node = k < 5 ? node : NULL,
                       .phase = phase[k],
                       .cpu = "500m",
                       .mem = "1Gi",
                       .created = created,
                       .started = k < 5 ? created : NULL};
}

/* Time the handlers without HTTP on the request written to dir. */
static int in_process(ext_snapshot *snap, const char *dir, long iters)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/request.json", dir);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 1;
    static char body[32 << 20];
    size_t len = fread(body, 1, sizeof body, f);
    fclose(f);
    ext_ctx c;
    memset(&c, 0, sizeof c);
    ext_limits_default(&c.limits);
    double now = (double)time(NULL);
    const char *names[] = {"filter", "prioritize", "floor-filter", "floor-prioritize"};
    for (int v = 0; v < 4; v++) {
        double t0 = rt_mono_now();
        for (long i = 0; i < iters; i++) {
            ext_reply r;
            ext_outcome o;
            if (v == 0)
                ext_handle_filter(&c, snap, body, len, now, &r, &o);
            else if (v == 1)
                ext_handle_prioritize(&c, snap, body, len, now, &r, &o);
            else if (v == 2)
                ext_handle_floor_filter(&c, body, len, &r, &o);
            else
                ext_handle_floor_prioritize(&c, body, len, &r, &o);
            if (r.status != 200) {
                fprintf(stderr, "bench_server: %s answered %d: %s\n", names[v], r.status, o.error);
                return 1;
            }
            free(r.body);
            ext_outcome_clear(&o);
        }
        printf("%-17s %8.1f us\n", names[v], (rt_mono_now() - t0) / (double)iters * 1e6);
    }
    ext_snapshot_unref(snap);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_server NODES PODS [--floor] [--write-bodies DIR]\n");
        return 2;
    }
    size_t n_nodes = strtoul(argv[1], NULL, 10), n_pods = strtoul(argv[2], NULL, 10);
    bool floor_mode = false;
    const char *bodies = NULL;
    long iters = 0;
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--floor") == 0)
            floor_mode = true;
        else if (strcmp(argv[i], "--write-bodies") == 0 && i + 1 < argc)
            bodies = argv[++i];
        else if (strcmp(argv[i], "--in-process") == 0 && i + 1 < argc)
            iters = strtol(argv[++i], NULL, 10);
    }
    if (n_nodes == 0 || n_nodes > 100000 || n_pods > 1000000) {
        fprintf(stderr, "bench_server: NODES 1..100000, PODS 0..1000000\n");
        return 2;
    }
    (void)rt_malloc_setup(RT_MALLOC_EXTENDER); /* as the extender does (main.c) */
    kube_log_setup(KUBE_LOG_WARN, KUBE_LOG_TEXT, NULL);
    double now = (double)time(NULL);

    const kube_node **nodes = calloc(n_nodes, sizeof *nodes);
    const kube_pod **pods = calloc(n_pods ? n_pods : 1, sizeof *pods);
    if (nodes == NULL || pods == NULL)
        return 1;
    static const char *const cpus[] = {"16", "32", "64", "8"};
    static const char *const mems[] = {"64Gi", "128Gi", "256Gi", "32Gi"};
    static const char *const speeds[] = {"1", "2", "0.5", NULL};
    for (size_t i = 0; i < n_nodes; i++) {
        char name[32];
        snprintf(name, sizeof name, "node-%05zu", i);
        nodes[i] = fx_node(name, cpus[i % 4], mems[(i / 4) % 4], speeds[(i / 16) % 4]);
    }
    size_t n_plain = n_pods / 5, n_jobs = (n_pods - n_plain) / TASKS_PER_JOB, np = 0;
    char bufs[7 * 64];
    for (size_t i = 0; i < n_plain; i++) {
        char name[32], uid[40], node[32];
        snprintf(name, sizeof name, "web-%06zu", i);
        snprintf(uid, sizeof uid, "uid-%s", name);
        snprintf(node, sizeof node, "node-%05zu", (i * 13) % n_nodes);
        pods[np++] = fx_pod(&(fx_pod_spec){.ns = "web",
                                           .name = name,
                                           .uid = uid,
                                           .node = node,
                                           .phase = "Running",
                                           .cpu = "250m",
                                           .mem = "512Mi"});
    }
    json_t *request_pod = NULL;
    for (size_t j = 0; j < n_jobs; j++)
        for (size_t k = 0; k < TASKS_PER_JOB; k++) {
            fx_pod_spec s;
            task_spec(j, k, n_nodes, now, &s, bufs, 64);
            if (j == 0 && k == 5)
                request_pod = fx_pod_json(&s);
            pods[np++] = fx_pod(&s);
        }

    ds_policy pol;
    ds_policy_defaults(&pol);
    ext_build_input in = {.nodes = nodes,
                          .n_nodes = n_nodes,
                          .pods = pods,
                          .n_pods = np,
                          .policy = &pol,
                          .policy_generation = 1,
                          .policy_source = "built-in defaults",
                          .now = now};
    ext_snapshot *snap = NULL;
    ds_err err;
    if (ext_snapshot_build(&in, &snap, &err) != 0) {
        fprintf(stderr, "bench_server: %s\n", err.msg);
        return 1;
    }
    fprintf(stderr, "bench_server: %zu nodes, %zu pods, %zu jobs, snapshot built in %.1f ms\n",
            snap->n_nodes, snap->n_pods, snap->jobs.n_jobs, snap->build_s * 1e3);
    for (size_t i = 0; i < n_nodes; i++)
        kube_obj_unref(&nodes[i]->meta);
    for (size_t i = 0; i < np; i++)
        kube_obj_unref(&pods[i]->meta);
    free(nodes);
    free(pods);

    if (bodies != NULL) {
        if (request_pod == NULL) {
            fprintf(stderr, "bench_server: --write-bodies needs PODS >= %d\n", TASKS_PER_JOB * 2);
            return 2;
        }
        json_t *names = json_array();
        for (size_t i = 0; i < n_nodes; i++) {
            char name[32];
            snprintf(name, sizeof name, "node-%05zu", i);
            json_array_append_new(names, json_string(name));
        }
        json_t *req = json_pack("{s:O,s:n,s:o}", "Pod", request_pod, "Nodes", "NodeNames", names);
        char path[4096];
        snprintf(path, sizeof path, "%s/request.json", bodies);
        if (req == NULL || json_dump_file(req, path, JSON_COMPACT) != 0) {
            fprintf(stderr, "bench_server: cannot write %s\n", path);
            return 1;
        }
        json_decref(req);
    }
    json_decref(request_pod);
    if (iters > 0) {
        if (bodies == NULL) {
            fprintf(stderr, "bench_server: --in-process needs --write-bodies\n");
            return 2;
        }
        return in_process(snap, bodies, iters);
    }

    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    metrics_registry *reg = metrics_registry_new();
    ext_server_opts so = {
        .host = "127.0.0.1",
        .port = 0,
        .source = {.acquire = static_acquire, .ready = static_ready, .user = snap},
        .metrics = reg,
        .floor_mode = floor_mode};
    ext_limits_default(&so.ctx.limits);
    ext_server *srv = NULL;
    if (reg == NULL || ext_server_start(&so, &srv, &err) != 0) {
        fprintf(stderr, "bench_server: %s\n", err.msg);
        return 1;
    }
    printf("port %d\n", ext_server_port(srv));
    fflush(stdout);
    int sig;
    while (sigwait(&sigs, &sig) != 0)
        ;
    ext_server_stop(srv);
    metrics_registry_free(reg);
    ext_snapshot_unref(snap);
    return 0;
}
