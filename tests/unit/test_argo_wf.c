/* test_argo_wf.c: unit tests of Argo Workflows as DAG jobs (lib/argo_wf.h and ds_jobs_build_wf):
 * dag templates with dependencies and depends, steps, nested templates, fan-out as it appears in
 * status.nodes, retries, run time sources, deadlines, unsupported features, task states from
 * status.nodes (pods deleted by podGC) and pods matched by Argo's node annotations. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argo_wf.h"
#include "upcoming.h"
#include "jobmodel_helpers.h"

#define WF "etl"

static const char *const DEP_A[] = {"A"};
static const char *const DEP_BC[] = {"B", "C"};

/* The diamond: A; B and C after A; D after B and C; every task runs template "work". */
static const ds_wf_step DIAMOND[] = {
    {.name = "A", .template_name = "work"},
    {.name = "B", .template_name = "work", .dependencies = DEP_A, .n_dependencies = 1},
    {.name = "C", .template_name = "work", .depends = "A.Succeeded"},
    {.name = "D", .template_name = "work", .dependencies = DEP_BC, .n_dependencies = 2},
};

static ds_wf_obs mkwf(const ds_wf_template *t, size_t n, const ds_wf_node *nodes, size_t nn)
{
    ds_wf_obs w;
    memset(&w, 0, sizeof w);
    w.ns = NS;
    w.name = WF;
    w.created_at = T0;
    w.entrypoint = "main";
    w.templates = t;
    w.n_templates = n;
    w.nodes = nodes;
    w.n_nodes = nn;
    return w;
}

static void expand_ok(const ds_wf_obs *w, ds_wf_job *j)
{
    ds_err e = {{0}};
    if (ds_wf_expand(w, j, &e) != 0)
        fail_msg("ds_wf_expand: %s", e.msg);
}

static void expand_fails(const ds_wf_obs *w, const char *msg)
{
    ds_wf_job j;
    ds_err e = {{0}};
    assert_int_equal(ds_wf_expand(w, &j, &e), -1);
    assert_string_equal(e.msg, msg);
    ds_wf_job_free(&j);
}

static const ds_wf_task *task_named(const ds_wf_job *j, const char *name)
{
    for (size_t t = 0; t < j->n_tasks; t++)
        if (strcmp(j->tasks[t].name, name) == 0)
            return &j->tasks[t];
    fail_msg("no task %s", name);
    return NULL;
}

/* The upstream names of a task, sorted and joined by ",". */
static void expect_up(const ds_wf_job *j, const char *name, const char *want)
{
    const ds_wf_task *t = task_named(j, name);
    const char *v[64];
    assert_true(t->n_up <= 64);
    for (size_t k = 0; k < t->n_up; k++)
        v[k] = t->up[k];
    for (size_t a = 1; a < t->n_up; a++)
        for (size_t b = a; b > 0 && strcmp(v[b - 1], v[b]) > 0; b--) {
            const char *x = v[b];
            v[b] = v[b - 1];
            v[b - 1] = x;
        }
    char buf[512] = "";
    for (size_t k = 0; k < t->n_up; k++) {
        if (k > 0)
            strcat(buf, ",");
        strcat(buf, v[k]);
    }
    assert_string_equal(buf, want);
}

static void test_diamond_dag(void **state)
{
    (void)state;
    ds_wf_template t[] = {
        {.name = "main", .kind = DS_WF_TMPL_DAG, .steps = DIAMOND, .n_steps = 4},
        {.name = "work", .kind = DS_WF_TMPL_POD},
    };
    ds_wf_obs w = mkwf(t, 2, NULL, 0);
    ds_wf_job j;
    expand_ok(&w, &j);
    assert_int_equal(j.n_tasks, 4);
    expect_up(&j, "A", "");
    expect_up(&j, "B", "A");
    expect_up(&j, "C", "A");
    expect_up(&j, "D", "B,C");
    assert_string_equal(task_named(&j, "D")->node_name, "etl.D");
    assert_double_near(task_named(&j, "A")->runtime_s, DS_DEFAULT_RUNTIME_S, 0);
    assert_int_equal(task_named(&j, "A")->runtime_source, DS_WF_RUNTIME_DEFAULT);
    assert_int_equal(j.deadline_kind, DS_WF_DEADLINE_NONE);
    ds_wf_job_free(&j);
}

static void test_runtime_sources(void **state)
{
    (void)state;
    ds_wf_template t[] = {
        {.name = "main", .kind = DS_WF_TMPL_DAG, .steps = DIAMOND, .n_steps = 4},
        {.name = "work", .kind = DS_WF_TMPL_POD},
    };
    ds_wf_node nodes[] = {
        {.id = "etl-1",
         .name = "etl.A",
         .type = "Pod",
         .phase = DS_WF_NODE_RUNNING,
         .estimated_duration_s = 42,
         .started_at = T0,
         .finished_at = NAN},
    };
    ds_wf_obs w = mkwf(t, 2, nodes, 1);
    ds_wf_job j;
    expand_ok(&w, &j);
    assert_double_near(task_named(&j, "A")->runtime_s, 42, 0);
    assert_int_equal(task_named(&j, "A")->runtime_source, DS_WF_RUNTIME_ESTIMATED);
    assert_double_near(task_named(&j, "B")->runtime_s, DS_DEFAULT_RUNTIME_S, 0);
    ds_wf_job_free(&j);

    /* The Workflow's annotation beats estimatedDuration; the template's beats both. */
    w.runtime = "2m";
    expand_ok(&w, &j);
    assert_double_near(task_named(&j, "A")->runtime_s, 120, 0);
    assert_int_equal(task_named(&j, "A")->runtime_source, DS_WF_RUNTIME_WORKFLOW);
    ds_wf_job_free(&j);
    t[1].runtime = "90s";
    expand_ok(&w, &j);
    assert_double_near(task_named(&j, "A")->runtime_s, 90, 0);
    assert_int_equal(task_named(&j, "A")->runtime_source, DS_WF_RUNTIME_TEMPLATE);
    ds_wf_job_free(&j);

    t[1].runtime = "soon";
    expand_fails(&w, "template \"work\": annotation dagsched.io/runtime: duration \"soon\": "
                     "expected a number at offset 0, found 's'");
}

static void test_deadline_annotations(void **state)
{
    (void)state;
    ds_wf_template t[] = {
        {.name = "main", .kind = DS_WF_TMPL_DAG, .steps = DIAMOND, .n_steps = 4},
        {.name = "work", .kind = DS_WF_TMPL_POD},
    };
    ds_wf_obs w = mkwf(t, 2, NULL, 0);
    w.deadline_after = "10m";
    ds_wf_job j;
    expand_ok(&w, &j);
    assert_int_equal(j.deadline_kind, DS_WF_DEADLINE_AFTER);
    assert_double_near(j.deadline, 600, 0);
    ds_wf_job_free(&j);
    w.deadline = "2026-11-22T10:00:00Z";
    expand_fails(&w, "annotations dagsched.io/deadline and dagsched.io/deadline-after are both "
                     "set; use one");
    w.deadline_after = NULL;
    expand_ok(&w, &j);
    assert_int_equal(j.deadline_kind, DS_WF_DEADLINE_ABSOLUTE);
    assert_double_near(j.deadline, 1795341600.0, 0);
    ds_wf_job_free(&j);
}

static void test_depends_expressions(void **state)
{
    (void)state;
    ds_wf_step s[] = {
        {.name = "A", .template_name = "work"},
        {.name = "B", .template_name = "work"},
        {.name = "C", .template_name = "work", .depends = "(A.Succeeded && B) "},
    };
    ds_wf_template t[] = {
        {.name = "main", .kind = DS_WF_TMPL_DAG, .steps = s, .n_steps = 3},
        {.name = "work", .kind = DS_WF_TMPL_POD},
    };
    ds_wf_obs w = mkwf(t, 2, NULL, 0);
    ds_wf_job j;
    expand_ok(&w, &j);
    expect_up(&j, "C", "A,B");
    ds_wf_job_free(&j);

    static const char *const bad[] = {"A || B", "A.Failed", "!A",
                                      "A && ",  "(A && B",  "A.Succeededx"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s[2].depends = bad[i];
        char want[256];
        snprintf(want, sizeof want,
                 "template \"main\", task \"C\": depends \"%s\": dagsched supports only task "
                 "names, optionally with .Succeeded, joined by &&",
                 bad[i]);
        expand_fails(&w, want);
    }
    s[2].depends = "A && X";
    expand_fails(&w, "template \"main\", task \"C\": depends on unknown task \"X\"");
    s[2].depends = "A";
    s[0].depends = "C";
    expand_fails(&w, "template \"main\": dependency cycle");
}

static void test_steps_are_sequential_groups(void **state)
{
    (void)state;
    ds_wf_step s[] = {
        {.name = "a", .template_name = "work", .group = 0},
        {.name = "b1", .template_name = "work", .group = 1},
        {.name = "b2", .template_name = "work", .group = 1},
        {.name = "c", .template_name = "work", .group = 2},
    };
    ds_wf_template t[] = {
        {.name = "main", .kind = DS_WF_TMPL_STEPS, .steps = s, .n_steps = 4},
        {.name = "work", .kind = DS_WF_TMPL_POD},
    };
    ds_wf_obs w = mkwf(t, 2, NULL, 0);
    ds_wf_job j;
    expand_ok(&w, &j);
    assert_int_equal(j.n_tasks, 4);
    expect_up(&j, "[0].a", "");
    expect_up(&j, "[1].b1", "[0].a");
    expect_up(&j, "[1].b2", "[0].a");
    expect_up(&j, "[2].c", "[1].b1,[1].b2");
    assert_string_equal(task_named(&j, "[2].c")->node_name, "etl[2].c");
    ds_wf_job_free(&j);
}

static void test_nested_templates(void **state)
{
    (void)state;
    static const char *const dep_x[] = {"x"};
    static const char *const dep_outer[] = {"outer"};
    ds_wf_step inner[] = {
        {.name = "x", .template_name = "work"},
        {.name = "y", .template_name = "work", .dependencies = dep_x, .n_dependencies = 1},
        {.name = "w", .template_name = "work", .dependencies = dep_x, .n_dependencies = 1},
    };
    ds_wf_step steps[] = {
        {.name = "s", .template_name = "work", .group = 0},
        {.name = "t", .template_name = "work", .group = 1},
    };
    ds_wf_step top[] = {
        {.name = "first", .template_name = "seq"},
        {.name = "outer", .template_name = "inner", .depends = "first"},
        {.name = "z", .template_name = "work", .dependencies = dep_outer, .n_dependencies = 1},
    };
    ds_wf_template t[] = {
        {.name = "main", .kind = DS_WF_TMPL_DAG, .steps = top, .n_steps = 3},
        {.name = "inner", .kind = DS_WF_TMPL_DAG, .steps = inner, .n_steps = 3},
        {.name = "seq", .kind = DS_WF_TMPL_STEPS, .steps = steps, .n_steps = 2},
        {.name = "work", .kind = DS_WF_TMPL_POD},
    };
    ds_wf_obs w = mkwf(t, 4, NULL, 0);
    ds_wf_job j;
    expand_ok(&w, &j);
    assert_int_equal(j.n_tasks, 6);
    expect_up(&j, "first[0].s", "");
    expect_up(&j, "first[1].t", "first[0].s");
    expect_up(&j, "outer.x", "first[1].t");
    expect_up(&j, "outer.y", "outer.x");
    expect_up(&j, "outer.w", "outer.x");
    expect_up(&j, "z", "outer.w,outer.y");
    ds_wf_job_free(&j);

    /* A template that calls itself, an unknown template, templateRef. */
    inner[0].template_name = "inner";
    expand_fails(&w, "template \"inner\" calls itself: recursive templates are not supported by "
                     "dagsched");
    inner[0].template_name = "nope";
    expand_fails(&w, "template \"inner\", step \"x\": unknown template \"nope\"");
    inner[0].template_ref = true;
    expand_fails(&w, "template \"inner\", step \"x\": templateRef is not supported by dagsched");
}

static void test_fan_out_from_status_nodes(void **state)
{
    (void)state;
    ds_wf_step s[] = {
        {.name = "A", .template_name = "work"},
        {.name = "B",
         .template_name = "work",
         .dependencies = DEP_A,
         .n_dependencies = 1,
         .fan_out = true},
        {.name = "D", .template_name = "work", .depends = "B"},
    };
    ds_wf_template t[] = {
        {.name = "main", .kind = DS_WF_TMPL_DAG, .steps = s, .n_steps = 3},
        {.name = "work", .kind = DS_WF_TMPL_POD},
    };
    /* Before Argo expands B: one task stands for it. */
    ds_wf_obs w = mkwf(t, 2, NULL, 0);
    ds_wf_job j;
    expand_ok(&w, &j);
    assert_int_equal(j.n_tasks, 3);
    expect_up(&j, "D", "B");
    ds_wf_job_free(&j);

    static const char *const items[] = {"n-b0", "n-b1", "n-b2"};
    ds_wf_node nodes[] = {
        {.id = "n-a", .name = "etl.A", .type = "Pod", .phase = DS_WF_NODE_SUCCEEDED},
        {.id = "n-b",
         .name = "etl.B",
         .type = "TaskGroup",
         .phase = DS_WF_NODE_RUNNING,
         .children = items,
         .n_children = 3},
        {.id = "n-b0", .name = "etl.B(0:x)", .type = "Pod", .phase = DS_WF_NODE_RUNNING},
        {.id = "n-b1", .name = "etl.B(1:y)", .type = "Pod", .phase = DS_WF_NODE_PENDING},
        {.id = "n-b2", .name = "etl.B(2:z)", .type = "Pod", .phase = DS_WF_NODE_PENDING},
    };
    w = mkwf(t, 2, nodes, 5);
    expand_ok(&w, &j);
    assert_int_equal(j.n_tasks, 5);
    expect_up(&j, "B(1:y)", "A");
    expect_up(&j, "D", "B(0:x),B(1:y),B(2:z)");
    assert_int_equal(task_named(&j, "A")->phase, DS_WF_NODE_SUCCEEDED);
    assert_int_equal(task_named(&j, "B(0:x)")->phase, DS_WF_NODE_RUNNING);
    size_t t1 = ds_wf_job_task_of(&j, "n-b1", NULL);
    assert_int_not_equal(t1, (size_t)-1);
    assert_string_equal(j.tasks[t1].name, "B(1:y)");
    assert_int_equal(ds_wf_job_task_of(&j, NULL, "etl.B(2:z)"),
                     ds_wf_job_task_of(&j, "n-b2", NULL));
    assert_int_equal(ds_wf_job_task_of(&j, "other", "etl.onExit"), (size_t)-1);
    ds_wf_job_free(&j);
}

static void test_retry_attempts_are_one_task(void **state)
{
    (void)state;
    ds_wf_template t[] = {
        {.name = "main", .kind = DS_WF_TMPL_DAG, .steps = DIAMOND, .n_steps = 4},
        {.name = "work", .kind = DS_WF_TMPL_POD},
    };
    static const char *const attempts[] = {"n-a0", "n-a1"};
    ds_wf_node nodes[] = {
        {.id = "n-a",
         .name = "etl.A",
         .type = "Retry",
         .phase = DS_WF_NODE_RUNNING,
         .children = attempts,
         .n_children = 2},
        {.id = "n-a0", .name = "etl.A(0)", .type = "Pod", .phase = DS_WF_NODE_FAILED},
        {.id = "n-a1", .name = "etl.A(1)", .type = "Pod", .phase = DS_WF_NODE_PENDING},
    };
    ds_wf_obs w = mkwf(t, 2, nodes, 3);
    ds_wf_job j;
    expand_ok(&w, &j);
    assert_int_equal(j.n_tasks, 4);
    size_t a = ds_wf_job_task_of(&j, "n-a0", NULL);
    assert_string_equal(j.tasks[a].name, "A");
    assert_int_equal(ds_wf_job_task_of(&j, "n-a1", NULL), a);
    assert_int_equal(ds_wf_job_task_of(&j, NULL, "etl.A(1)"), a);
    assert_int_equal(j.tasks[a].phase, DS_WF_NODE_RUNNING);
    ds_wf_job_free(&j);
}

static void test_skipped_nested_dag_skips_its_tasks(void **state)
{
    (void)state;
    static const char *const dep_outer[] = {"outer"};
    ds_wf_step inner[] = {{.name = "x", .template_name = "work"}};
    ds_wf_step top[] = {
        {.name = "outer", .template_name = "inner"},
        {.name = "z", .template_name = "work", .dependencies = dep_outer, .n_dependencies = 1},
    };
    ds_wf_template t[] = {
        {.name = "main", .kind = DS_WF_TMPL_DAG, .steps = top, .n_steps = 2},
        {.name = "inner", .kind = DS_WF_TMPL_DAG, .steps = inner, .n_steps = 1},
        {.name = "work", .kind = DS_WF_TMPL_POD},
    };
    ds_wf_node nodes[] = {
        {.id = "n-o", .name = "etl.outer", .type = "Skipped", .phase = DS_WF_NODE_SUCCEEDED},
    };
    ds_wf_obs w = mkwf(t, 3, nodes, 1);
    ds_wf_job j;
    expand_ok(&w, &j);
    assert_int_equal(task_named(&j, "outer.x")->phase, DS_WF_NODE_SUCCEEDED);
    assert_int_equal(task_named(&j, "z")->phase, DS_WF_NODE_NONE);
    ds_wf_job_free(&j);
}

/* An Argo pod: no dagsched label, the workflow label and Argo's node annotations. */
static ds_pod_obs argo_pod(const char *name, const char *node_id, const char *node_name)
{
    ds_pod_obs p = mkpod(name, NULL, NULL, NULL, NULL);
    p.argo_workflow = WF;
    p.argo_node_id = node_id;
    p.argo_node_name = node_name;
    return p;
}

static void build_wf_ok(ds_jobset *s, const ds_pod_obs *pods, size_t n, const ds_wf_obs *w,
                        double now)
{
    ds_priority_params pp;
    ds_priority_defaults(&pp);
    ds_err e = {{0}};
    if (ds_jobs_build_wf(pods, n, NULL, 0, w, 1, now, &pp, s, &e) != 0)
        fail_msg("ds_jobs_build_wf: %s", e.msg);
}

static void test_job_states_from_nodes_and_pods(void **state)
{
    (void)state;
    ds_wf_template t[] = {
        {.name = "main", .kind = DS_WF_TMPL_DAG, .steps = DIAMOND, .n_steps = 4},
        {.name = "work", .kind = DS_WF_TMPL_POD},
    };
    /* A succeeded and its pod is gone (podGC); B's pod is gated; C's node is running. */
    ds_wf_node nodes[] = {
        {.id = "n-a",
         .name = "etl.A",
         .type = "Pod",
         .phase = DS_WF_NODE_SUCCEEDED,
         .started_at = T0,
         .finished_at = T0 + 50,
         .estimated_duration_s = NAN},
        {.id = "n-b",
         .name = "etl.B",
         .type = "Pod",
         .phase = DS_WF_NODE_PENDING,
         .started_at = T0 + 51,
         .finished_at = NAN,
         .estimated_duration_s = NAN},
        {.id = "n-c",
         .name = "etl.C",
         .type = "Pod",
         .phase = DS_WF_NODE_PENDING,
         .started_at = T0 + 51,
         .finished_at = NAN,
         .estimated_duration_s = NAN},
    };
    ds_wf_obs w = mkwf(t, 2, nodes, 3);
    w.deadline_after = "10m";
    ds_pod_obs p[] = {
        argo_pod("etl-work-1", "n-b", "etl.B"),
        argo_pod("etl-work-2", NULL, "etl.C"),
        argo_pod("etl-exit-3", "n-x", "etl.onExit"),
    };
    p[0].created_at = T0 + 52;
    set_running(&p[1], T0 + 53, 1.0);
    ds_jobset s;
    build_wf_ok(&s, p, 3, &w, T0 + 60);
    const ds_job *j = job_named(&s, WF);
    assert_true(j->valid);
    assert_string_equal(j->workflow, WF);
    assert_double_near(j->deadline, T0 + 600, 0);
    assert_int_equal(state_of(j, "A"), DS_TASK_SUCCEEDED);
    assert_int_equal(state_of(j, "B"), DS_TASK_WAITING);
    assert_int_equal(state_of(j, "C"), DS_TASK_RUNNING);
    assert_int_equal(state_of(j, "D"), DS_TASK_BLOCKED);
    assert_double_near(j->status[task_idx(j, "B")].runnable_since, T0 + 52, 0);
    assert_int_equal(pod_res(&s, "etl-work-1")->task, task_idx(j, "B"));
    assert_true(pod_res(&s, "etl-work-1")->primary);
    assert_int_equal(pod_res(&s, "etl-work-2")->task, task_idx(j, "C"));
    assert_string_equal(pod_res(&s, "etl-exit-3")->error,
                        "Argo node \"etl.onExit\" is not a task of Workflow \"etl\"");
    assert_int_equal(s.n_wfs, 1);
    assert_null(s.wfs[0].error);
    ds_jobset_free(&s);

    /* A failed attempt of a retried task (its node still running) waits for the next one. */
    set_done(&p[1], DS_PHASE_FAILED, T0 + 55);
    nodes[2].phase = DS_WF_NODE_RUNNING;
    build_wf_ok(&s, p, 2, &w, T0 + 60);
    j = job_named(&s, WF);
    assert_int_equal(state_of(j, "C"), DS_TASK_WAITING);
    ds_jobset_free(&s);
    /* ... and fails with its node. */
    nodes[2].phase = DS_WF_NODE_FAILED;
    build_wf_ok(&s, p, 2, &w, T0 + 60);
    assert_int_equal(state_of(job_named(&s, WF), "C"), DS_TASK_FAILED);
    ds_jobset_free(&s);
}

/* Upcoming tasks (lib/upcoming.h): a ready task of a deadline Workflow, for DS_UPCOMING_HOLD_S
 * after it became ready: without a pod yet (with its template's request, when stated), or with
 * its gated pod; never without a deadline, never a root task. */
static void test_upcoming_tasks(void **state)
{
    (void)state;
    ds_wf_template t[] = {
        {.name = "main", .kind = DS_WF_TMPL_DAG, .steps = DIAMOND, .n_steps = 4},
        {.name = "work", .kind = DS_WF_TMPL_POD, .has_request = true, .request = {{4000, 0, 0, 0}}},
    };
    /* A succeeded at T0 + 50; B's pod exists (gated); C has no pod yet. */
    ds_wf_node nodes[] = {
        {.id = "n-a",
         .name = "etl.A",
         .type = "Pod",
         .phase = DS_WF_NODE_SUCCEEDED,
         .started_at = T0,
         .finished_at = T0 + 50,
         .estimated_duration_s = NAN},
    };
    ds_wf_obs w = mkwf(t, 2, nodes, 1);
    w.deadline_after = "10m";
    ds_pod_obs p[] = {argo_pod("etl-work-1", "n-b", "etl.B")};
    p[0].created_at = T0 + 52;
    ds_jobset s;
    build_wf_ok(&s, p, 0, &w, T0 + 55);
    const ds_job *j = job_named(&s, WF);
    ds_upcoming u[4];
    assert_int_equal(ds_jobset_upcoming(&s, NULL, T0 + 55, u, 4), 2); /* B and C: no pods yet */
    assert_int_equal(u[0].task, task_idx(j, "B"));
    assert_int_equal(u[1].task, task_idx(j, "C"));
    assert_int_equal(u[1].request.v[DS_RES_CPU], 4000);
    assert_double_near(u[1].ready_since, T0 + 50, 0);
    assert_int_equal(u[1].from_pod, DS_NONE); /* A's pod is gone */
    assert_int_equal(ds_jobset_upcoming(&s, NULL, T0 + 55, NULL, 0), 2);
    assert_int_equal(ds_jobset_upcoming(&s, NULL, T0 + 50 + DS_UPCOMING_HOLD_S, u, 4), 0);
    ds_jobset_free(&s);

    /* B's pod exists (gated): B is upcoming with its pod and its pod's request, C without; A's
     * pod, still there, is where their room is. */
    ds_pod_obs p2[] = {p[0], argo_pod("etl-work-0", "n-a", "etl.A")};
    p2[0].request.v[DS_RES_CPU] = 3000;
    set_done(&p2[1], DS_PHASE_SUCCEEDED, T0 + 50);
    build_wf_ok(&s, p2, 2, &w, T0 + 55);
    j = job_named(&s, WF);
    assert_int_equal(ds_jobset_upcoming(&s, p2, T0 + 55, u, 4), 2);
    assert_int_equal(u[0].task, task_idx(j, "B"));
    assert_int_equal(u[0].pod, 0);
    assert_int_equal(u[0].request.v[DS_RES_CPU], 3000);
    assert_double_near(u[0].ready_since, T0 + 52, 0); /* its pod's creation */
    assert_int_equal(u[1].task, task_idx(j, "C"));
    assert_int_equal(u[1].pod, DS_NONE);
    assert_int_equal(u[1].from_pod, 1);
    ds_jobset_free(&s);

    /* No deadline: none; no request stated: only the task with a pod. */
    w.deadline_after = NULL;
    build_wf_ok(&s, p, 1, &w, T0 + 55);
    assert_int_equal(ds_jobset_upcoming(&s, NULL, T0 + 55, u, 4), 0);
    ds_jobset_free(&s);
    w.deadline_after = "10m";
    t[1].has_request = false;
    build_wf_ok(&s, p, 1, &w, T0 + 55);
    assert_int_equal(ds_jobset_upcoming(&s, NULL, T0 + 55, u, 4), 1);
    assert_int_equal(u[0].pod, 0);
    ds_jobset_free(&s);
    /* A root task is never upcoming: no upstream room is its own. */
    t[1].has_request = true;
    ds_wf_obs fresh = mkwf(t, 2, NULL, 0);
    fresh.deadline_after = "10m";
    build_wf_ok(&s, NULL, 0, &fresh, T0 + 1);
    assert_int_equal(state_of(job_named(&s, WF), "A"), DS_TASK_WAITING);
    assert_int_equal(ds_jobset_upcoming(&s, NULL, T0 + 1, u, 4), 0);
    ds_jobset_free(&s);
}

/* Argo creates a fan-out or retry pod before it lists the pod's node in status.nodes: such a pod
 * of a valid Workflow waits (gated) for the node to be listed, at most DS_WF_UNLISTED_GRACE_S
 * after its creation; then it is not a task and waits no more. Before, it was released at once,
 * outside the DAG's order. */
static void test_unlisted_pod_waits(void **state)
{
    (void)state;
    ds_wf_template t[] = {
        {.name = "main", .kind = DS_WF_TMPL_DAG, .steps = DIAMOND, .n_steps = 4},
        {.name = "work", .kind = DS_WF_TMPL_POD},
    };
    ds_wf_node nodes[] = {{.id = "n-a",
                           .name = "etl.A",
                           .type = "Pod",
                           .phase = DS_WF_NODE_RUNNING,
                           .started_at = T0,
                           .finished_at = NAN,
                           .estimated_duration_s = NAN}};
    ds_wf_obs w = mkwf(t, 2, nodes, 1);
    ds_pod_obs p[] = {argo_pod("etl-work-1", "n-a", "etl.A"),
                      argo_pod("etl-work-2", "n-b1", "etl.B(1)")};
    p[1].created_at = T0 + 50;
    ds_jobset s;
    build_wf_ok(&s, p, 2, &w, T0 + 60);
    const ds_pod_result *r = pod_res(&s, "etl-work-2");
    assert_true(r->unlisted);
    assert_int_equal(r->task, DS_NONE);
    assert_true(ds_jobset_pod_must_wait(&s, 1));
    assert_false(ds_jobset_pod_must_wait(&s, 0));
    assert_non_null(strstr(r->error, "Argo has not listed node \"etl.B(1)\" in Workflow \"etl\""));
    ds_jobset_free(&s);
    /* Listed (the attempt of B's Retry node): a task of the DAG, in its order. */
    static const char *const b_kids[] = {"n-b1"};
    ds_wf_node listed[] = {nodes[0],
                           {.id = "n-b",
                            .name = "etl.B",
                            .type = "Retry",
                            .children = b_kids,
                            .n_children = 1,
                            .phase = DS_WF_NODE_PENDING,
                            .started_at = NAN,
                            .finished_at = NAN,
                            .estimated_duration_s = NAN},
                           {.id = "n-b1",
                            .name = "etl.B(1)",
                            .type = "Pod",
                            .phase = DS_WF_NODE_PENDING,
                            .started_at = NAN,
                            .finished_at = NAN,
                            .estimated_duration_s = NAN}};
    w = mkwf(t, 2, listed, 3);
    build_wf_ok(&s, p, 2, &w, T0 + 60);
    r = pod_res(&s, "etl-work-2");
    assert_false(r->unlisted);
    assert_int_equal(r->task, task_idx(job_named(&s, WF), "B"));
    assert_false(ds_jobset_pod_must_wait(&s, 1));
    ds_jobset_free(&s);
    /* Never listed: past the grace it is not a task, and no longer held. */
    w = mkwf(t, 2, nodes, 1);
    build_wf_ok(&s, p, 2, &w, T0 + 50 + DS_WF_UNLISTED_GRACE_S);
    r = pod_res(&s, "etl-work-2");
    assert_false(r->unlisted);
    assert_false(ds_jobset_pod_must_wait(&s, 1));
    assert_string_equal(r->error, "Argo node \"etl.B(1)\" is not a task of Workflow \"etl\"");
    ds_jobset_free(&s);
}

static void test_invalid_workflow_and_pods_without_workflow(void **state)
{
    (void)state;
    ds_wf_step s[] = {
        {.name = "A", .template_name = "work"},
        {.name = "B", .template_name = "work", .depends = "A || A"},
    };
    ds_wf_template t[] = {
        {.name = "main", .kind = DS_WF_TMPL_DAG, .steps = s, .n_steps = 2},
        {.name = "work", .kind = DS_WF_TMPL_POD},
    };
    ds_wf_obs w = mkwf(t, 2, NULL, 0);
    ds_pod_obs p[] = {argo_pod("etl-work-1", "n-a", "etl.A")};
    ds_jobset js;
    build_wf_ok(&js, p, 1, &w, T0);
    const ds_job *j = job_named(&js, WF);
    assert_false(j->valid);
    assert_string_equal(j->error, "Workflow \"etl\": template \"main\", task \"B\": depends "
                                  "\"A || A\": dagsched supports only task names, optionally "
                                  "with .Succeeded, joined by &&");
    assert_string_equal(js.wfs[0].error, "template \"main\", task \"B\": depends \"A || A\": "
                                         "dagsched supports only task names, optionally with "
                                         ".Succeeded, joined by &&");
    assert_int_equal(pod_res(&js, "etl-work-1")->job, (size_t)(j - js.jobs));
    ds_jobset_free(&js);

    /* Without the Workflow, Argo's pods have no task: the pod error of a missing task label. */
    build_ok(&js, p, 1, NULL, 0, T0);
    assert_string_equal(pod_res(&js, "etl-work-1")->error,
                        "missing label dagsched.io/task (the pod has label "
                        "workflows.argoproj.io/workflow=etl)");
    ds_jobset_free(&js);
}

/* Bounded: a fan-out of 10,000 items (10,003 nodes) expands into 10,002 tasks. */
static void test_large_fan_out(void **state)
{
    (void)state;
    enum { N = 10000 };
    ds_wf_step s[] = {
        {.name = "A", .template_name = "work"},
        {.name = "B",
         .template_name = "work",
         .dependencies = DEP_A,
         .n_dependencies = 1,
         .fan_out = true},
        {.name = "D", .template_name = "work", .depends = "B"},
    };
    ds_wf_template t[] = {
        {.name = "main", .kind = DS_WF_TMPL_DAG, .steps = s, .n_steps = 3},
        {.name = "work", .kind = DS_WF_TMPL_POD},
    };
    ds_wf_node *nodes = calloc(N + 3, sizeof *nodes);
    char(*ids)[16] = calloc(N, sizeof *ids);
    char(*names)[32] = calloc(N, sizeof *names);
    const char **children = calloc(N, sizeof *children);
    assert_non_null(nodes);
    assert_non_null(ids);
    assert_non_null(names);
    assert_non_null(children);
    nodes[0] = (ds_wf_node){.id = "n-a", .name = "etl.A", .phase = DS_WF_NODE_SUCCEEDED};
    nodes[1] = (ds_wf_node){.id = "n-b",
                            .name = "etl.B",
                            .type = "TaskGroup",
                            .phase = DS_WF_NODE_RUNNING,
                            .children = children,
                            .n_children = N};
    for (size_t i = 0; i < N; i++) {
        snprintf(ids[i], sizeof ids[i], "n-%zu", i);
        snprintf(names[i], sizeof names[i], "etl.B(%zu:%zu)", i, i);
        children[i] = ids[i];
        nodes[2 + i] = (ds_wf_node){
            .id = ids[i], .name = names[i], .type = "Pod", .phase = DS_WF_NODE_PENDING};
    }
    nodes[N + 2] = (ds_wf_node){.id = "n-d", .name = "etl.D", .phase = DS_WF_NODE_NONE};
    ds_wf_obs w = mkwf(t, 2, nodes, N + 3);
    ds_jobset js;
    build_wf_ok(&js, NULL, 0, &w, T0);
    const ds_job *j = job_named(&js, WF);
    assert_true(j->valid);
    assert_int_equal(j->dag.n, N + 2);
    assert_int_equal(j->dag.tasks[task_idx(j, "D")].n_up, N);
    assert_int_equal(state_of(j, "B(9999:9999)"), DS_TASK_WAITING);
    ds_jobset_free(&js);
    free(nodes);
    free(ids);
    free(names);
    free(children);
}

/* How often Argo runs a pod's node again after an eviction: its template's retryStrategy, for
 * errors only, minus the attempts under its Retry node. */
static void test_retries_left(void **state)
{
    (void)state;
    ds_wf_template t[] = {
        {.name = "main", .kind = DS_WF_TMPL_DAG, .steps = DIAMOND, .n_steps = 4},
        {.name = "work", .kind = DS_WF_TMPL_POD, .retry_limit = 3, .retries_errors = true},
        {.name = "fail-only", .kind = DS_WF_TMPL_POD, .retry_limit = 3},
        {.name = "none", .kind = DS_WF_TMPL_POD, .retry_limit = DS_WF_NO_RETRY},
        {.name = "forever",
         .kind = DS_WF_TMPL_POD,
         .retry_limit = DS_WF_RETRY_UNLIMITED,
         .retries_errors = true},
    };
    const char *const two[] = {"a-1", "a-2"};
    ds_wf_node nodes[] = {
        {.id = "a",
         .name = "etl.A",
         .type = "Retry",
         .template_name = "work",
         .children = two,
         .n_children = 2},
        {.id = "a-1", .name = "etl.A(0)", .type = "Pod", .template_name = "work"},
        {.id = "a-2", .name = "etl.A(1)", .type = "Pod", .template_name = "work"},
        {.id = "b-1", .name = "etl.B(0)", .type = "Pod", .template_name = "work"},
        {.id = "c-1", .name = "etl.C", .type = "Pod", .template_name = "fail-only"},
        {.id = "d-1", .name = "etl.D", .type = "Pod", .template_name = "none"},
        {.id = "e-1", .name = "etl.E", .type = "Pod", .template_name = "forever"},
        {.id = "f-1", .name = "etl.F", .type = "Pod", .template_name = "gone"},
    };
    ds_wf_obs w = mkwf(t, 5, nodes, 8);
    assert_int_equal(ds_wf_retries_left(&w, "a-2"), 2); /* limit 3, two attempts made */
    assert_int_equal(ds_wf_retries_left(&w, "b-1"), 3); /* no Retry node seen: one attempt */
    assert_int_equal(ds_wf_retries_left(&w, "c-1"), 0); /* OnFailure: an eviction is an error */
    assert_int_equal(ds_wf_retries_left(&w, "d-1"), 0);
    assert_int_equal(ds_wf_retries_left(&w, "e-1"), DS_WF_RETRY_UNLIMITED);
    assert_int_equal(ds_wf_retries_left(&w, "f-1"), 0); /* template unknown */
    assert_int_equal(ds_wf_retries_left(&w, "zz"), 0);
    assert_int_equal(ds_wf_retries_left(NULL, "a-1"), 0);
    t[1].retry_limit = 1; /* both attempts used */
    assert_int_equal(ds_wf_retries_left(&w, "a-2"), 0);
}

/* The next tasks of one upstream task share the room it freed (ds_upcoming_share): kind by kind
 * the smaller of what is left and the request; nothing below 0. */
static void test_upcoming_share(void **state)
{
    (void)state;
    ds_res freed = {.v = {2000, 4LL << 30, 0, 0}};
    ds_res req = {.v = {1500, 1LL << 30, 0, 0}};
    ds_res a = ds_upcoming_share(&freed, &req); /* the first sibling: its request */
    assert_int_equal(a.v[DS_RES_CPU], 1500);
    assert_int_equal(a.v[DS_RES_MEMORY], 1LL << 30);
    ds_res left = freed;
    ds_res_sub(&left, &a);
    ds_res b = ds_upcoming_share(&left, &req); /* the second: what is left, 500m and 1 GiB */
    assert_int_equal(b.v[DS_RES_CPU], 500);
    assert_int_equal(b.v[DS_RES_MEMORY], 1LL << 30);
    ds_res_sub(&left, &b);
    ds_res c = ds_upcoming_share(&left, &req); /* the third: no cpu left */
    assert_int_equal(c.v[DS_RES_CPU], 0);
    assert_int_equal(c.v[DS_RES_MEMORY], 1LL << 30);
    ds_res over = {.v = {-300, -1, 0, 0}}; /* taken by more than was freed */
    ds_res d = ds_upcoming_share(&over, &req);
    assert_true(ds_res_is_zero(&d));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diamond_dag),
        cmocka_unit_test(test_runtime_sources),
        cmocka_unit_test(test_deadline_annotations),
        cmocka_unit_test(test_depends_expressions),
        cmocka_unit_test(test_steps_are_sequential_groups),
        cmocka_unit_test(test_nested_templates),
        cmocka_unit_test(test_fan_out_from_status_nodes),
        cmocka_unit_test(test_retry_attempts_are_one_task),
        cmocka_unit_test(test_skipped_nested_dag_skips_its_tasks),
        cmocka_unit_test(test_job_states_from_nodes_and_pods),
        cmocka_unit_test(test_upcoming_tasks),
        cmocka_unit_test(test_unlisted_pod_waits),
        cmocka_unit_test(test_invalid_workflow_and_pods_without_workflow),
        cmocka_unit_test(test_large_fan_out),
        cmocka_unit_test(test_retries_left),
        cmocka_unit_test(test_upcoming_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
