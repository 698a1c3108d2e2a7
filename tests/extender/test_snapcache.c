/* test_snapcache.c: the incremental snapshot (snapcache.h) against a snapshot built from scratch
 * (ext_snapshot_build): a random sequence (fixed seed) of pod, JobGraph, Argo Workflow and node
 * additions,
 * updates and deletions, compared after every step field by field (pods, their nodes and job
 * results, jobs with every task's state, evaluation and rank, node usage, P_bar, the order
 * figures); and the count of units rebuilt when one job, one pod outside any job, or a node
 * changes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/ds_assert.h"
#include "fixtures.h"
#include "snapcache.h"

#define N_NODES  6
#define N_PODS   48
#define N_GRAPHS 3
#define N_WFS    2
#define STEPS    400
#define NOW      1795000000.0 /* 2026-11-18, after every creation time below */

typedef struct world {
    const kube_node *nodes[N_NODES];
    const kube_pod *pods[N_PODS]; /* NULL: free slot */
    const kube_configmap *graphs[N_GRAPHS];
    const kube_workflow *wfs[N_WFS];
    unsigned gen;
    uint64_t rng;
    ds_policy policy;
} world;

static unsigned rnd(world *w, unsigned n)
{
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    return (unsigned)(w->rng % n);
}

static const kube_node *random_node(world *w, size_t i)
{
    static const char *const cpus[] = {"8", "16", "4"};
    static const char *const speeds[] = {"1", "2", "0.5", NULL};
    char name[16];
    snprintf(name, sizeof name, "n%zu", i);
    return fx_node(name, cpus[rnd(w, 3)], "32Gi", speeds[rnd(w, 4)]);
}

/* A pod for slot i: sometimes outside any job, sometimes with a task label only, else a task of
 * one of a few jobs with random upstream tasks, runtime, deadline, node and phase. */
static const kube_pod *random_pod(world *w, size_t i)
{
    static const char *const ns[] = {"a", "b"};
    static const char *const jobs[] = {"j0", "j1", "j2", "j3"};
    static const char *const tasks[] = {"t0", "t1", "t2", "t3"};
    static const char *const deps[] = {NULL, "t0", "t0,t1", "t2", "t9", "t1,"};
    static const char *const runtimes[] = {NULL, "30s", "2m", "5m", "soon"};
    static const char *const deadlines[] = {NULL, NULL, "2026-11-18T10:00:00Z",
                                            "2026-11-18T11:00:00Z", "tomorrow"};
    static const char *const nodes[] = {NULL, NULL, "n0", "n1", "n2", "n3", "n4", "n5", "gone"};
    static const char *const phases[] = {"Pending", "Running", "Running", "Succeeded", "Failed"};
    static const char *const created[] = {"2026-11-18T08:00:00Z", "2026-11-18T08:30:00Z",
                                          "2026-11-18T09:00:00Z"};
    static const char *const cpus[] = {"500m", "1", "2", "3"};
    char name[16], uid[32], rv[16];
    snprintf(name, sizeof name, "p%zu", i);
    snprintf(uid, sizeof uid, "u%zu-%u", i, w->gen);
    snprintf(rv, sizeof rv, "%u", w->gen++);
    unsigned kind = rnd(w, 10);
    const char *node = nodes[rnd(w, 9)];
    fx_pod_spec s = {.ns = ns[i % 2], /* an update never moves a pod to another namespace */
                     .name = name,
                     .uid = uid,
                     .rv = rv,
                     .job = kind < 3 ? NULL : jobs[rnd(w, 4)],
                     /* A pod of an Argo Workflow: the job is the Workflow's name. */
                     .extra_label_key = kind == 2 ? "workflows.argoproj.io/workflow" : NULL,
                     .extra_label_value = jobs[2 + rnd(w, 2)],
                     .task = kind == 0 ? NULL : tasks[rnd(w, 4)],
                     .depends_on = deps[rnd(w, 6)],
                     .runtime = runtimes[rnd(w, 5)],
                     .deadline = deadlines[rnd(w, 5)],
                     .node = node,
                     .phase = node == NULL ? "Pending" : phases[rnd(w, 5)],
                     .cpu = cpus[rnd(w, 4)],
                     .mem = "1Gi",
                     .created = created[rnd(w, 3)],
                     .started = node != NULL ? created[2] : NULL};
    return fx_pod(&s);
}

/* A JobGraph in namespace a declaring one of the jobs (sometimes invalid YAML). */
static const kube_configmap *random_graph(world *w, size_t i)
{
    static const char *const yaml[] = {
        "apiVersion: dagsched.io/v1alpha1\nkind: JobGraph\nmetadata: {name: j1}\nspec:\n"
        "  deadlineAfter: 2h\n  tasks:\n    - {name: t0, runtime: 1m}\n"
        "    - {name: t1, runtime: 2m, dependsOn: [t0]}\n    - {name: t2, runtime: 30s}\n",
        "apiVersion: dagsched.io/v1alpha1\nkind: JobGraph\nmetadata: {name: j2}\nspec:\n"
        "  tasks:\n    - {name: t0, runtime: 1m}\n    - {name: t3, runtime: 3m, dependsOn: [t0]}\n",
        "apiVersion: dagsched.io/v1alpha1\nkind: JobGraph\nmetadata: {name: j1}\nspec:\n"
        "  tasks:\n    - {name: t0, runtime: 1m, dependsOn: [t0]}\n",
        "apiVersion: dagsched.io/v1alpha1\nkind: JobGraph\nmetadata: {name: j3}\nspec: [",
        "not yaml: [",
    };
    char name[16], rv[16];
    snprintf(name, sizeof name, "g%zu", i);
    snprintf(rv, sizeof rv, "%u", w->gen++);
    return fx_configmap("a", name, rv, "JobGraph", "graph.yaml", yaml[rnd(w, 5)]);
}

static int cmp_meta(const void *x, const void *y)
{
    const kube_meta *a = *(const kube_meta *const *)x, *b = *(const kube_meta *const *)y;
    int c = strcmp(a->ns, b->ns);
    return c != 0 ? c : strcmp(a->name, b->name);
}

/* The objects of the world in the cache's canonical order (by namespace, then name). */
/* An Argo Workflow for slot i (a/j2 or b/j3): a DAG of three tasks, sometimes one Argo's
 * expression dagsched does not accept, with Argo's record of each task in a random phase. */
static const kube_workflow *random_wf(world *w, size_t i)
{
    static const char *const phases[] = {"Pending", "Running", "Succeeded", "Failed"};
    static const char *const depends[] = {"t0", "t0 && t1", "t0 || t1"};
    char rv[16], json[2048];
    snprintf(rv, sizeof rv, "%u", w->gen++);
    const char *name = i == 0 ? "j2" : "j3";
    int n = snprintf(
        json, sizeof json,
        "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\",\"uid\":\"w%zu-%s\","
        "\"resourceVersion\":\"%s\",\"creationTimestamp\":\"2026-11-18T08:00:00Z\","
        "\"annotations\":{\"dagsched.io/deadline-after\":\"%s\"}},"
        "\"spec\":{\"entrypoint\":\"main\",\"templates\":["
        "{\"name\":\"main\",\"dag\":{\"tasks\":["
        "{\"name\":\"t0\",\"template\":\"work\"},"
        "{\"name\":\"t1\",\"template\":\"work\",\"dependencies\":[\"t0\"]},"
        "{\"name\":\"t2\",\"template\":\"work\",\"depends\":\"%s\"}]}},"
        "{\"name\":\"work\",\"metadata\":{\"annotations\":{\"dagsched.io/runtime\":\"%s\"}},"
        "\"container\":{\"image\":\"busybox\"}}]},"
        "\"status\":{\"phase\":\"Running\",\"nodes\":{"
        "\"n0\":{\"id\":\"n0\",\"name\":\"%s.t0\",\"type\":\"Pod\",\"phase\":\"%s\","
        "\"startedAt\":\"2026-11-18T08:10:00Z\"},"
        "\"n1\":{\"id\":\"n1\",\"name\":\"%s.t1\",\"type\":\"Pod\",\"phase\":\"%s\"}}}}",
        name, i == 0 ? "a" : "b", i, rv, rv, rnd(w, 2) ? "1h" : "5m", depends[rnd(w, 3)],
        rnd(w, 2) ? "90s" : "3m", name, phases[rnd(w, 4)], name, phases[rnd(w, 4)]);
    if (n < 0 || (size_t)n >= sizeof json)
        fail_msg("workflow fixture too long");
    json_error_t jerr;
    json_t *j = json_loads(json, 0, &jerr);
    if (j == NULL)
        fail_msg("workflow fixture: %s", jerr.text);
    return (const kube_workflow *)fx_decode(KUBE_KIND_WORKFLOW, j, name);
}

static ext_build_input input(world *w, const kube_pod **pods, size_t *n_pods,
                             const kube_configmap **graphs, size_t *n_graphs,
                             const kube_workflow **wfs, size_t *n_wfs)
{
    *n_pods = *n_graphs = *n_wfs = 0;
    for (size_t i = 0; i < N_WFS; i++)
        if (w->wfs[i] != NULL)
            wfs[(*n_wfs)++] = w->wfs[i];
    for (size_t i = 0; i < N_PODS; i++)
        if (w->pods[i] != NULL)
            pods[(*n_pods)++] = w->pods[i];
    for (size_t i = 0; i < N_GRAPHS; i++)
        if (w->graphs[i] != NULL)
            graphs[(*n_graphs)++] = w->graphs[i];
    qsort(pods, *n_pods, sizeof *pods, cmp_meta);
    qsort(graphs, *n_graphs, sizeof *graphs, cmp_meta);
    qsort(wfs, *n_wfs, sizeof *wfs, cmp_meta);
    return (ext_build_input){.nodes = w->nodes,
                             .n_nodes = N_NODES,
                             .pods = pods,
                             .n_pods = *n_pods,
                             .graphs = graphs,
                             .n_graphs = *n_graphs,
                             .workflows = wfs,
                             .n_workflows = *n_wfs,
                             .policy = &w->policy,
                             .policy_generation = 1,
                             .now = NOW};
}

static bool same_double(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

static void assert_same_str(const char *a, const char *b, const char *what)
{
    if ((a == NULL) != (b == NULL) || (a != NULL && strcmp(a, b) != 0))
        fail_msg("%s differs: \"%s\" != \"%s\"", what, a ? a : "(null)", b ? b : "(null)");
}

static void assert_same_double(double a, double b, const char *what, const char *key)
{
    if (!same_double(a, b))
        fail_msg("%s of %s differs: %.17g != %.17g", what, key, a, b);
}

static const char *uid_of(const ext_snapshot *s, size_t pod)
{
    return pod == DS_NONE ? NULL : s->pods[pod]->meta.uid;
}

static void compare_jobs(const ext_snapshot *a, const ext_snapshot *b)
{
    assert_int_equal(a->jobs.n_jobs, b->jobs.n_jobs);
    assert_int_equal(a->jobs.n_waiting, b->jobs.n_waiting);
    for (size_t ja = 0; ja < a->jobs.n_jobs; ja++) {
        const ds_job *x = &a->jobs.jobs[ja];
        const ds_job *y = ds_jobset_find_job(&b->jobs, x->ns, x->name);
        if (y == NULL)
            fail_msg("job %s missing from the full build", x->key);
        size_t jb = (size_t)(y - b->jobs.jobs);
        assert_int_equal(x->valid, y->valid);
        assert_same_str(x->error, y->error, x->key);
        assert_same_str(x->graph, y->graph, "graph");
        assert_same_str(x->workflow, y->workflow, "workflow");
        assert_same_double(x->deadline, y->deadline, "deadline", x->key);
        assert_same_double(x->created_at, y->created_at, "created_at", x->key);
        assert_int_equal(x->n_pods, y->n_pods);
        assert_same_double(a->job_order[ja][0], b->job_order[jb][0], "order[0]", x->key);
        assert_same_double(a->job_order[ja][1], b->job_order[jb][1], "order[1]", x->key);
        assert_same_double(a->job_sum[ja].slack_s, b->job_sum[jb].slack_s, "job slack", x->key);
        assert_same_double(a->job_sum[ja].remaining_path_s, b->job_sum[jb].remaining_path_s,
                           "job path", x->key);
        if (!x->valid)
            continue;
        assert_int_equal(x->dag.n, y->dag.n);
        for (int l = 1; l <= x->dag.n_levels; l++)
            assert_same_double(x->level_deadline[l], y->level_deadline[l], "level deadline",
                               x->key);
        for (size_t t = 0; t < x->dag.n; t++) {
            assert_string_equal(x->dag.tasks[t].name, y->dag.tasks[t].name);
            assert_int_equal(x->status[t].state, y->status[t].state);
            assert_same_double(x->status[t].runnable_since, y->status[t].runnable_since,
                               "runnable_since", x->key);
            assert_same_double(x->status[t].started_at, y->status[t].started_at, "started_at",
                               x->key);
            assert_same_double(x->status[t].speed, y->status[t].speed, "speed", x->key);
            assert_same_double(x->eval[t].priority, y->eval[t].priority, "priority", x->key);
            assert_same_double(x->eval[t].t_rem_s, y->eval[t].t_rem_s, "t_rem", x->key);
            assert_same_double(x->eval[t].t_allow_s, y->eval[t].t_allow_s, "t_allow", x->key);
            assert_same_double(x->eval[t].path_s, y->eval[t].path_s, "path", x->key);
            assert_same_double(x->wait_rank[t], y->wait_rank[t], "wait rank", x->key);
            assert_same_str(uid_of(a, x->task_pod[t]), uid_of(b, y->task_pod[t]), "task pod");
        }
    }
}

/* a (incremental) equals b (from scratch), matching pods by uid and jobs by key. */
static void compare(const ext_snapshot *a, const ext_snapshot *b)
{
    assert_int_equal(a->n_nodes, b->n_nodes);
    assert_same_double(a->max_speed, b->max_speed, "max speed", "nodes");
    for (size_t n = 0; n < a->n_nodes; n++) {
        assert_string_equal(a->nodes[n].name, b->nodes[n].name);
        assert_int_equal(a->nodes[n].n_pods, b->nodes[n].n_pods);
        assert_memory_equal(&a->nodes[n].view.requested, &b->nodes[n].view.requested,
                            sizeof(ds_res));
        assert_same_double(a->nodes[n].view.speed, b->nodes[n].view.speed, "speed", "node");
    }
    assert_int_equal(a->n_pods, b->n_pods);
    assert_int_equal(a->jobs.n_pods, b->jobs.n_pods);
    for (size_t i = 0; i < a->n_pods; i++) {
        const char *uid = a->pods[i]->meta.uid;
        size_t k = ds_jobset_find_pod(&b->jobs, uid);
        assert_int_equal(ds_jobset_find_pod(&a->jobs, uid), i);
        if (k == DS_NONE)
            fail_msg("pod %s missing from the full build", uid);
        assert_ptr_equal(a->pods[i], b->pods[k]);
        assert_int_equal(a->pod_node[i], b->pod_node[k]);
        const ds_pod_result *x = &a->jobs.pods[i], *y = &b->jobs.pods[k];
        assert_int_equal(x->job == DS_NONE, y->job == DS_NONE);
        if (x->job != DS_NONE)
            assert_string_equal(a->jobs.jobs[x->job].key, b->jobs.jobs[y->job].key);
        assert_int_equal(x->task, y->task);
        assert_int_equal(x->primary, y->primary);
        assert_same_str(x->error, y->error, uid);
        assert_same_str(x->warning, y->warning, uid);
    }
    compare_jobs(a, b);
    assert_int_equal(a->n_dsp_tasks, b->n_dsp_tasks);
    /* A sum over jobs, in another order: equal up to rounding. */
    assert_double_near(a->pbar_half, b->pbar_half, 1e-9 * fmax(1.0, fabs(b->pbar_half)));
}

static ext_snapshot *full_build(world *w)
{
    const kube_pod *pods[N_PODS];
    const kube_configmap *graphs[N_GRAPHS];
    const kube_workflow *wfs[N_WFS];
    size_t np, ng, nw;
    ext_build_input in = input(w, pods, &np, graphs, &ng, wfs, &nw);
    ext_snapshot *s = NULL;
    ds_err err;
    if (ext_snapshot_build(&in, &s, &err) != 0)
        fail_msg("full build: %s", err.msg);
    return s;
}

static ext_snapshot *incremental_build(world *w, ext_snapcache *c)
{
    const kube_pod *pods[N_PODS];
    const kube_configmap *graphs[N_GRAPHS];
    const kube_workflow *wfs[N_WFS];
    size_t np, ng, nw;
    ext_build_input in = input(w, pods, &np, graphs, &ng, wfs, &nw);
    ext_snapshot *s = NULL;
    ds_err err;
    assert_false(ext_snapcache_needs_reset(c));
    if (ext_snapcache_build(c, &in, &s, &err) != 0)
        fail_msg("incremental build: %s", err.msg);
    return s;
}

/* One random change, applied to the world and reported to the cache as an informer would. */
static void random_change(world *w, ext_snapcache *c)
{
    unsigned what = rnd(w, 20);
    if (what == 0) {
        size_t i = rnd(w, N_NODES);
        kube_obj_unref(&w->nodes[i]->meta);
        w->nodes[i] = random_node(w, i);
        (void)c; /* the cache sees other node objects at its next build */
    } else if (what == 1) {
        size_t i = rnd(w, N_WFS);
        const kube_workflow *old = w->wfs[i];
        const kube_workflow *cur = rnd(w, 4) == 0 ? NULL : random_wf(w, i);
        if (old != NULL || cur != NULL)
            ext_snapcache_workflow(c, old, cur);
        w->wfs[i] = cur;
        if (old != NULL)
            kube_obj_unref(&old->meta);
    } else if (what <= 3) {
        size_t i = rnd(w, N_GRAPHS);
        const kube_configmap *old = w->graphs[i];
        const kube_configmap *cur = rnd(w, 4) == 0 ? NULL : random_graph(w, i);
        if (old != NULL || cur != NULL)
            ext_snapcache_graph(c, old, cur);
        w->graphs[i] = cur;
        if (old != NULL)
            kube_obj_unref(&old->meta);
    } else {
        size_t i = rnd(w, N_PODS);
        const kube_pod *old = w->pods[i];
        const kube_pod *cur = old != NULL && rnd(w, 4) == 0 ? NULL : random_pod(w, i);
        ext_snapcache_pod(c, old, cur);
        w->pods[i] = cur;
        if (old != NULL)
            kube_obj_unref(&old->meta);
    }
}

static void world_init(world *w, uint64_t seed)
{
    memset(w, 0, sizeof *w);
    w->rng = seed;
    ds_policy_defaults(&w->policy);
    for (size_t i = 0; i < N_NODES; i++)
        w->nodes[i] = random_node(w, i);
    for (size_t i = 0; i < N_PODS / 2; i++)
        w->pods[i] = random_pod(w, i);
}

static void world_free(world *w)
{
    for (size_t i = 0; i < N_NODES; i++)
        kube_obj_unref(&w->nodes[i]->meta);
    for (size_t i = 0; i < N_PODS; i++)
        if (w->pods[i] != NULL)
            kube_obj_unref(&w->pods[i]->meta);
    for (size_t i = 0; i < N_GRAPHS; i++)
        if (w->graphs[i] != NULL)
            kube_obj_unref(&w->graphs[i]->meta);
    for (size_t i = 0; i < N_WFS; i++)
        if (w->wfs[i] != NULL)
            kube_obj_unref(&w->wfs[i]->meta);
}

static void test_random_changes_match_full_build(void **state)
{
    (void)state;
    world w;
    world_init(&w, 0x5eed1234abcdull);
    ext_snapcache *c = ext_snapcache_new();
    assert_non_null(c);
    const kube_pod *pods[N_PODS];
    const kube_configmap *graphs[N_GRAPHS];
    const kube_workflow *wfs[N_WFS];
    size_t np, ng, nw;
    ext_build_input in = input(&w, pods, &np, graphs, &ng, wfs, &nw);
    ds_err err;
    assert_int_equal(ext_snapcache_reset(c, &in, &err), 0);
    size_t jobs_seen = 0, wf_jobs = 0;
    for (int step = 0; step < STEPS; step++) {
        size_t n = 1 + rnd(&w, 3);
        for (size_t k = 0; k < n; k++)
            random_change(&w, c);
        ext_snapshot *inc = incremental_build(&w, c);
        ext_snapshot *full = full_build(&w);
        compare(inc, full);
        jobs_seen += full->jobs.n_jobs;
        for (size_t j = 0; j < full->jobs.n_jobs; j++)
            wf_jobs += full->jobs.jobs[j].workflow != NULL && full->jobs.jobs[j].valid;
        /* A snapshot stays valid after the cache moves on. */
        if (step % 50 == 0)
            compare(inc, full);
        ext_snapshot_unref(inc);
        ext_snapshot_unref(full);
    }
    assert_true(jobs_seen > STEPS); /* the sequence exercised jobs, not only plain pods */
    assert_true(wf_jobs > 0);       /* and jobs declared by Workflows */
    ext_snapcache_free(c);
    world_free(&w);
}

/* A snapshot built by the cache outlives changes and the cache itself. */
static void test_snapshot_outlives_cache(void **state)
{
    (void)state;
    world w;
    world_init(&w, 42);
    ext_snapcache *c = ext_snapcache_new();
    assert_non_null(c);
    const kube_pod *pods[N_PODS];
    const kube_configmap *graphs[N_GRAPHS];
    const kube_workflow *wfs[N_WFS];
    size_t np, ng, nw;
    ext_build_input in = input(&w, pods, &np, graphs, &ng, wfs, &nw);
    ds_err err;
    assert_int_equal(ext_snapcache_reset(c, &in, &err), 0);
    ext_snapshot *before = incremental_build(&w, c);
    ext_snapshot *full = full_build(&w);
    for (int k = 0; k < 20; k++)
        random_change(&w, c);
    ext_snapshot_unref(incremental_build(&w, c));
    ext_snapcache_free(c);
    compare(before, full);
    ext_snapshot_unref(before);
    ext_snapshot_unref(full);
    world_free(&w);
}

/* A pod that is not a task of job key `job` (ns a). */
static const kube_pod *pod(const char *name, const char *job, const char *task, const char *rv)
{
    return fx_pod(&(fx_pod_spec){.ns = "a",
                                 .name = name,
                                 .uid = name,
                                 .rv = rv,
                                 .job = job,
                                 .task = task,
                                 .runtime = "1m",
                                 .phase = "Pending",
                                 .cpu = "1",
                                 .mem = "1Gi",
                                 .created = "2026-11-18T08:00:00Z"});
}

static void test_unchanged_jobs_not_rebuilt(void **state)
{
    (void)state;
    ds_policy pol;
    ds_policy_defaults(&pol);
    const kube_node *node = fx_node("n0", "8", "32Gi", NULL);
    const kube_pod *pods[] = {pod("x0", "x", "t0", "1"), pod("x1", "x", "t1", "1"),
                              pod("y0", "y", "t0", "1"), pod("z0", "z", "t0", "1"),
                              pod("web", NULL, NULL, "1")};
    ext_build_input in = {
        .nodes = &node, .n_nodes = 1, .pods = pods, .n_pods = 5, .policy = &pol, .now = NOW};
    ext_snapcache *c = ext_snapcache_new();
    assert_non_null(c);
    ds_err err;
    assert_int_equal(ext_snapcache_reset(c, &in, &err), 0);
    ext_snapshot *s = NULL;
    assert_int_equal(ext_snapcache_build(c, &in, &s, &err), 0);
    assert_int_equal(ext_snapcache_units_built(c), 4); /* x, y, z and the bucket of web */
    ext_snapshot_unref(s);

    /* Nothing changed: nothing evaluated again. */
    assert_int_equal(ext_snapcache_build(c, &in, &s, &err), 0);
    assert_int_equal(ext_snapcache_units_built(c), 4);
    ext_snapshot_unref(s);

    /* A pod of job y changes: only y. */
    const kube_pod *y0 = pod("y0", "y", "t0", "2");
    ext_snapcache_pod(c, pods[2], y0);
    assert_int_equal(ext_snapcache_build(c, &in, &s, &err), 0);
    assert_int_equal(ext_snapcache_units_built(c), 5);
    assert_int_equal(s->jobs.n_jobs, 3);
    ext_snapshot_unref(s);

    /* A pod moves from job x to job z: both. */
    const kube_pod *x1 = pod("x1", "z", "t1", "2");
    ext_snapcache_pod(c, pods[1], x1);
    assert_int_equal(ext_snapcache_build(c, &in, &s, &err), 0);
    assert_int_equal(ext_snapcache_units_built(c), 7);
    assert_int_equal(ds_jobset_find_job(&s->jobs, "a", "z")->n_pods, 2);
    ext_snapshot_unref(s);

    /* The pod outside any job goes: its bucket, now empty, is dropped without an evaluation. */
    ext_snapcache_pod(c, pods[4], NULL);
    assert_int_equal(ext_snapcache_build(c, &in, &s, &err), 0);
    assert_int_equal(ext_snapcache_units_built(c), 7);
    assert_int_equal(s->n_pods, 4);
    ext_snapshot_unref(s);

    /* Deleting a pod the cache does not hold (a reset's list saw it gone) changes nothing. */
    ext_snapcache_pod(c, pods[4], NULL);
    assert_false(ext_snapcache_needs_reset(c));
    assert_int_equal(ext_snapcache_build(c, &in, &s, &err), 0);
    assert_int_equal(ext_snapcache_units_built(c), 7);
    ext_snapshot_unref(s);
    /* Nor does an update whose new version it holds already (the old one is not there). */
    ext_snapcache_pod(c, pods[2], y0);
    assert_int_equal(ext_snapcache_build(c, &in, &s, &err), 0);
    assert_int_equal(s->n_pods, 4);
    ext_snapshot_unref(s);

    /* After a node change every unit is evaluated again (x, y and z). */
    const kube_node *node2 = fx_node("n0", "8", "32Gi", "2");
    in.nodes = &node2;
    assert_int_equal(ext_snapcache_build(c, &in, &s, &err), 0);
    assert_int_equal(ext_snapcache_units_built(c), 10);
    ext_snapshot_unref(s);
    /* After a policy change too. */
    pol.priority.time_scale_s *= 2;
    assert_int_equal(ext_snapcache_build(c, &in, &s, &err), 0);
    assert_int_equal(ext_snapcache_units_built(c), 13);
    ext_snapshot_unref(s);
    /* And on ext_snapcache_invalidate. */
    ext_snapcache_invalidate(c);
    assert_int_equal(ext_snapcache_build(c, &in, &s, &err), 0);
    assert_int_equal(ext_snapcache_units_built(c), 16);
    ext_snapshot_unref(s);
    kube_obj_unref(&node2->meta);

    ext_snapcache_free(c);
    kube_obj_unref(&y0->meta);
    kube_obj_unref(&x1->meta);
    for (size_t i = 0; i < 5; i++)
        kube_obj_unref(&pods[i]->meta);
    kube_obj_unref(&node->meta);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_changes_match_full_build),
        cmocka_unit_test(test_snapshot_outlives_cache),
        cmocka_unit_test(test_unchanged_jobs_not_rebuilt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
