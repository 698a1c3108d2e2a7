/* test_jobmodel_graph.c: unit tests of the job model on jobs declared by JobGraph ConfigMaps (tasks
 * without pods, annotations overridden, graph errors), of the ranking of waiting tasks across jobs,
 * and of large inputs (a 2,000-task job among thousands of pods). */
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

#include "jobmodel_helpers.h"

#define GRAPH_HEAD "apiVersion: dagsched.io/v1alpha1\nkind: JobGraph\n"

static ds_graph_obs mkgraph(const char *cm_name, const char *yaml, double created)
{
    return (ds_graph_obs){NS, cm_name, yaml, strlen(yaml), created};
}

static const char *etl_graph = GRAPH_HEAD "metadata: {name: etl}\n"
                                          "spec:\n"
                                          "  deadlineAfter: 1h\n"
                                          "  tasks:\n"
                                          "    - {name: extract, runtime: 90s}\n"
                                          "    - {name: transform, runtime: 3m, dependsOn: "
                                          "[extract]}\n"
                                          "    - {name: report, runtime: 30s}\n"
                                          "    - {name: load, runtime: 1m, dependsOn: [transform, "
                                          "report]}\n";

static void test_graph_job_with_tasks_without_pods(void **state)
{
    (void)state;
    ds_graph_obs g = mkgraph("etl-graph", etl_graph, T0 - 50);
    ds_pod_obs p[4];
    p[0] = mkpod("extract-1", "etl", "extract", NULL, NULL);
    set_done(&p[0], DS_PHASE_SUCCEEDED, T0 + 100);
    /* transform's annotations disagree with the graph: the graph wins, with a warning. */
    p[1] = mkpod("transform-1", "etl", "transform", "extract, report", "3m");
    p[1].created_at = T0 + 120;
    /* A task the graph does not know is an error for that pod only. */
    p[2] = mkpod("cleanup-1", "etl", "cleanup", NULL, "1m");
    /* A malformed annotation is only a warning: the graph is used instead. */
    p[3] = mkpod("extract-0", "etl", "extract", NULL, "3x");
    p[3].created_at = T0 - 10;
    set_done(&p[3], DS_PHASE_FAILED, T0);
    ds_jobset s;
    build_ok(&s, p, 4, &g, 1, T0 + 130);

    assert_int_equal(s.n_jobs, 1);
    const ds_job *j = job_named(&s, "etl");
    assert_true(j->valid);
    assert_string_equal(j->graph, "etl-graph");
    assert_int_equal(s.graphs[0].job, 0);
    assert_null(s.graphs[0].error);
    /* The DAG is the graph's, in its order. */
    assert_int_equal(j->dag.n, 4);
    assert_int_equal(task_idx(j, "extract"), 0);
    assert_int_equal(task_idx(j, "load"), 3);
    assert_int_equal(j->dag.tasks[task_idx(j, "report")].level, 1);
    assert_int_equal(j->dag.tasks[task_idx(j, "transform")].level, 2);
    assert_int_equal(j->dag.tasks[task_idx(j, "load")].level, 3);
    assert_double_near(j->dag.tasks[task_idx(j, "transform")].runtime_s, 180, 0);
    /* Job start = the ConfigMap's creation (earlier than every pod); deadline = start + 1h. */
    assert_double_near(j->created_at, T0 - 50, 0);
    assert_double_near(j->deadline, T0 - 50 + 3600, 0);
    assert_double_near(j->level_deadline[3], T0 - 50 + 3600, 0);
    assert_double_near(j->level_deadline[2], T0 - 50 + 3600 - 60, 0);
    assert_double_near(j->level_deadline[1], T0 - 50 + 3600 - 60 - 180, 0);

    assert_int_equal(state_of(j, "extract"), DS_TASK_SUCCEEDED);
    assert_int_equal(j->task_pod[task_idx(j, "extract")], 0);
    assert_int_equal(state_of(j, "transform"), DS_TASK_WAITING);
    assert_double_near(j->status[task_idx(j, "transform")].runnable_since, T0 + 120, 0);
    /* report has no pod yet: waiting since the job started; it counts but has no pod. */
    assert_int_equal(state_of(j, "report"), DS_TASK_WAITING);
    assert_int_equal(j->task_pod[task_idx(j, "report")], DS_NONE);
    assert_double_near(j->status[task_idx(j, "report")].runnable_since, T0 - 50, 0);
    assert_int_equal(state_of(j, "load"), DS_TASK_BLOCKED);
    assert_int_equal(j->task_pod[task_idx(j, "load")], DS_NONE);
    char buf[64];
    assert_int_equal(ds_job_pending_upstream(j, task_idx(j, "load"), buf, sizeof buf), 2);
    assert_string_equal(buf, "transform, report");
    assert_int_equal(s.n_waiting, 2);
    /* extract's priority includes load, which has no pod yet (Eq. 12 through transform). */
    assert_true(j->eval[task_idx(j, "extract")].priority >
                j->eval[task_idx(j, "transform")].priority);
    assert_true(j->eval[task_idx(j, "transform")].priority > j->eval[task_idx(j, "load")].priority);

    assert_string_equal(pod_res(&s, "transform-1")->warning,
                        "annotation dagsched.io/depends-on \"extract, report\" differs from "
                        "JobGraph \"etl-graph\" (ignored)");
    assert_null(pod_res(&s, "transform-1")->error);
    assert_string_equal(pod_res(&s, "cleanup-1")->error,
                        "task \"cleanup\" is not in JobGraph \"etl-graph\"");
    assert_int_equal(pod_res(&s, "cleanup-1")->task, DS_NONE);
    assert_string_equal(
        pod_res(&s, "extract-0")->warning,
        "annotation dagsched.io/runtime: duration \"3x\": unknown unit \"x\" (use "
        "ns, us, ms, s, m or h) (ignored: JobGraph \"etl-graph\" declares the job)");
    assert_false(pod_res(&s, "extract-0")->primary);
    assert_true(pod_res(&s, "extract-1")->primary);
    /* No runtime annotation under a graph: no default-runtime warning. */
    assert_null(pod_res(&s, "extract-1")->warning);
    ds_jobset_free(&s);
}

static void test_graph_mismatch_warnings(void **state)
{
    (void)state;
    const char *y = GRAPH_HEAD "metadata: {name: etl}\n"
                               "spec:\n"
                               "  deadline: \"2026-11-22T10:00:00Z\"\n"
                               "  tasks:\n"
                               "    - {name: a, runtime: 1m}\n"
                               "    - {name: b, runtime: 2m, dependsOn: [a]}\n";
    ds_graph_obs g = mkgraph("etl-graph", y, T0);
    ds_pod_obs p[3];
    /* Agreeing annotations (the same set of upstream tasks, the same runtime and deadline). */
    p[0] = mkpod("b-1", "etl", "b", " a,a ", "120s");
    p[0].deadline = "2026-11-22T11:00:00+01:00";
    /* Disagreeing: upstream, runtime and deadline. */
    p[1] = mkpod("b-2", "etl", "b", "", "1m");
    p[1].created_at = T0 - 1;
    p[1].deadline_after = "10m";
    p[2] = mkpod("a-1", "etl", "a", "b", NULL);
    ds_jobset s;
    build_ok(&s, p, 3, &g, 1, T0 + 1);
    const ds_job *j = job_named(&s, "etl");
    assert_true(j->valid);
    assert_double_near(j->deadline, 1795341600.0, 0);
    assert_null(pod_res(&s, "b-1")->warning);
    assert_string_equal(
        pod_res(&s, "b-2")->warning,
        "annotation dagsched.io/depends-on \"\" differs from JobGraph \"etl-graph\" "
        "(ignored); annotation dagsched.io/runtime \"1m\" differs from JobGraph "
        "\"etl-graph\" (ignored); annotation dagsched.io/deadline-after \"10m\" "
        "differs from JobGraph \"etl-graph\" (ignored)");
    assert_string_equal(pod_res(&s, "a-1")->warning,
                        "annotation dagsched.io/depends-on \"b\" differs from JobGraph "
                        "\"etl-graph\" (ignored)");
    ds_jobset_free(&s);
}

static void test_graph_errors(void **state)
{
    (void)state;
    ds_graph_obs g[6];
    /* Duplicate task names: the job is invalid, with the field path. */
    g[0] = mkgraph("dup-graph",
                   GRAPH_HEAD "metadata: {name: dup}\nspec:\n  tasks:\n"
                              "    - {name: a, runtime: 1s}\n    - {name: a, runtime: 2s}\n",
                   T0);
    /* A cycle, found when building the DAG. */
    g[1] = mkgraph("cyc-graph",
                   GRAPH_HEAD "metadata: {name: cyc}\nspec:\n  tasks:\n"
                              "    - {name: a, runtime: 1s, dependsOn: [b]}\n"
                              "    - {name: b, runtime: 1s, dependsOn: [a]}\n",
                   T0);
    /* Two ConfigMaps declaring the same job. */
    g[2] = mkgraph("twice-1",
                   GRAPH_HEAD "metadata: {name: twice}\nspec: {tasks: [{name: a, "
                              "runtime: 1s}]}\n",
                   T0);
    g[3] = mkgraph("twice-2",
                   GRAPH_HEAD "metadata: {name: twice}\nspec: {tasks: [{name: a, "
                              "runtime: 1s}]}\n",
                   T0);
    /* No usable name: an error for the ConfigMap, no job. */
    g[4] =
        mkgraph("noname", GRAPH_HEAD "metadata: {}\nspec: {tasks: [{name: a, runtime: 1s}]}\n", T0);
    /* A valid graph whose relative deadline has no origin (creation time unknown). */
    g[5] = mkgraph("nodate",
                   GRAPH_HEAD "metadata: {name: nodate}\nspec: {deadlineAfter: 1m, "
                              "tasks: [{name: a, runtime: 1s}]}\n",
                   NAN);
    ds_pod_obs p[2];
    p[0] = mkpod("dup-a", "dup", "a", NULL, NULL);
    p[1] = mkpod("ok-a", "ok", "a", NULL, "1s");
    ds_jobset s;
    build_ok(&s, p, 2, g, 6, T0 + 1);
    assert_int_equal(s.n_jobs, 5);

    const ds_job *j = job_named(&s, "dup");
    assert_false(j->valid);
    assert_string_equal(j->error, "JobGraph \"dup-graph\": spec.tasks[1].name: duplicate task "
                                  "name \"a\" (also spec.tasks[0].name)");
    assert_string_equal(s.graphs[0].error,
                        "spec.tasks[1].name: duplicate task name \"a\" (also spec.tasks[0].name)");
    assert_int_equal(s.graphs[0].job, (size_t)(j - s.jobs));
    assert_int_equal(pod_res(&s, "dup-a")->job, (size_t)(j - s.jobs));
    assert_int_equal(pod_res(&s, "dup-a")->task, DS_NONE);

    j = job_named(&s, "cyc");
    assert_false(j->valid);
    assert_string_equal(j->error, "JobGraph \"cyc-graph\": dependency cycle: a -> b -> a");
    assert_null(s.graphs[1].error);

    j = job_named(&s, "twice");
    assert_false(j->valid);
    assert_string_equal(
        j->error, "declared by more than one JobGraph: ConfigMaps \"twice-1\" and \"twice-2\"");

    assert_int_equal(s.graphs[4].job, DS_NONE);
    assert_string_equal(s.graphs[4].error, "metadata.name: required");

    j = job_named(&s, "nodate");
    assert_false(j->valid);
    assert_string_equal(j->error, "JobGraph \"nodate\": spec.deadlineAfter needs the ConfigMap's "
                                  "creation time, which is unknown");

    /* The job without a graph is unaffected. */
    j = job_named(&s, "ok");
    assert_true(j->valid);
    assert_int_equal(state_of(j, "a"), DS_TASK_WAITING);
    assert_int_equal(s.n_waiting, 1);
    ds_jobset_free(&s);
}

/* A JobGraph's run times and deadlineAfter are bounded like the annotations (8760h). */
static void test_graph_durations_bounded(void **state)
{
    (void)state;
    ds_graph_obs g[3];
    g[0] = mkgraph("long-graph",
                   GRAPH_HEAD "metadata: {name: long}\nspec:\n  tasks:\n"
                              "    - {name: a, runtime: 1s}\n    - {name: b, runtime: 1000000h}\n",
                   T0);
    g[1] = mkgraph("late-graph",
                   GRAPH_HEAD "metadata: {name: late}\nspec: {deadlineAfter: 9000h, "
                              "tasks: [{name: a, runtime: 1s}]}\n",
                   T0);
    g[2] = mkgraph("max-graph",
                   GRAPH_HEAD "metadata: {name: max}\nspec: {deadlineAfter: 8760h, "
                              "tasks: [{name: a, runtime: 8760h}]}\n",
                   T0);
    ds_jobset s;
    build_ok(&s, NULL, 0, g, 3, T0 + 1);
    const ds_job *j = job_named(&s, "long");
    assert_false(j->valid);
    assert_string_equal(j->error, "JobGraph \"long-graph\": spec.tasks[1].runtime: 1000000h0m0s "
                                  "exceeds the limit 8760h");
    j = job_named(&s, "late");
    assert_false(j->valid);
    assert_string_equal(j->error, "JobGraph \"late-graph\": spec.deadlineAfter: 9000h0m0s exceeds "
                                  "the limit 8760h");
    j = job_named(&s, "max");
    assert_true(j->valid);
    ds_jobset_free(&s);
}

/* Ranks among the waiting tasks of all jobs. Lone waiting tasks without deadline and without
 * waiting time have priority w1 / (runtime / 60 s) = 0.5 * 60 / runtime (DSP Eq. 13). */
static void test_wait_rank_across_jobs(void **state)
{
    (void)state;
    ds_pod_obs p[5];
    p[0] = mkpod("a", "r1", "a", NULL, "1m");   /* 0.5 */
    p[1] = mkpod("b", "r2", "b", NULL, "10m");  /* 0.05 */
    p[2] = mkpod("c", "r3", "c", NULL, "1m");   /* 0.5 */
    p[3] = mkpod("d", "r3", "d", NULL, "100m"); /* 0.005 */
    p[4] = mkpod("e", "r3", "e", "d", "1m");    /* blocked: not ranked */
    ds_jobset s;
    build_ok(&s, p, 5, NULL, 0, T0);
    assert_int_equal(s.n_waiting, 4);
    const ds_job *r1 = job_named(&s, "r1"), *r2 = job_named(&s, "r2"), *r3 = job_named(&s, "r3");
    assert_double_near(r1->eval[0].priority, 0.5, 1e-12);
    assert_double_near(r2->eval[0].priority, 0.05, 1e-12);
    /* d has a dependent (e, blocked): priority (1 + gamma) * P(e) = 1.5 * 0.5 = 0.75. */
    assert_double_near(r3->eval[task_idx(r3, "d")].priority, 0.75, 1e-12);
    /* Sorted: d (0.75), a = c (0.5), b (0.05); rank = 1 - (strictly higher) / (n - 1). */
    assert_double_near(ds_jobset_wait_rank(&s, r3, task_idx(r3, "d")), 1.0, 0);
    assert_double_near(ds_jobset_wait_rank(&s, r1, 0), 2.0 / 3.0, 1e-12);
    assert_double_near(ds_jobset_wait_rank(&s, r3, task_idx(r3, "c")), 2.0 / 3.0, 1e-12);
    assert_double_near(ds_jobset_wait_rank(&s, r2, 0), 0.0, 0);
    assert_double_near(ds_jobset_wait_rank(&s, r3, task_idx(r3, "e")), -1.0, 0);
    assert_double_near(ds_jobset_wait_rank(&s, r3, 99), -1.0, 0);
    ds_jobset_free(&s);
}

/* A 2,000-task job (20 levels of 100 tasks; each task depends on three of the level above) among
 * 200 small jobs (2,000 more pods), plus a 2,000-task JobGraph without any pod. */
#define LEVELS 20
#define WIDTH  100
#define SMALL  200

static void test_large_jobs(void **state)
{
    (void)state;
    size_t n_big = LEVELS * WIDTH, n = n_big + SMALL * 10;
    ds_pod_obs *p = calloc(n, sizeof *p);
    char(*names)[32] = calloc(n, sizeof *names);
    char(*jobs)[32] = calloc(SMALL, sizeof *jobs);
    char(*deps)[64] = calloc(n, sizeof *deps);
    assert_non_null(p);
    assert_non_null(names);
    assert_non_null(jobs);
    assert_non_null(deps);
    for (size_t l = 0; l < LEVELS; l++) {
        for (size_t i = 0; i < WIDTH; i++) {
            size_t k = l * WIDTH + i;
            snprintf(names[k], sizeof names[k], "t-%zu-%zu", l + 1, i);
            if (l > 0)
                snprintf(deps[k], sizeof deps[k], "t-%zu-%zu,t-%zu-%zu,t-%zu-%zu", l, i, l,
                         (i + 1) % WIDTH, l, (i + 7) % WIDTH);
            p[k] = mkpod(names[k], "big", names[k], l > 0 ? deps[k] : NULL, "30s");
            /* Levels 1-5 have succeeded, level l at T0 + 10 l. */
            if (l < 5)
                set_done(&p[k], DS_PHASE_SUCCEEDED, T0 + 10.0 * (double)(l + 1));
        }
    }
    for (size_t j = 0; j < SMALL; j++) {
        snprintf(jobs[j], sizeof jobs[j], "small-%zu", j);
        for (size_t t = 0; t < 10; t++) {
            size_t k = n_big + j * 10 + t;
            snprintf(names[k], sizeof names[k], "s-%zu-%zu", j, t);
            /* A chain: task t depends on t - 1 (names are "s-J-T"). */
            if (t > 0)
                snprintf(deps[k], sizeof deps[k], "s-%zu-%zu", j, t - 1);
            p[k] = mkpod(names[k], jobs[j], names[k], t > 0 ? deps[k] : NULL, "1m");
        }
    }
    /* The graph: same shape, as YAML. */
    size_t cap = 128 * n_big + 256; /* lines are under 100 bytes */
    char *y = malloc(cap);
    assert_non_null(y);
    size_t pos = (size_t)snprintf(y, cap,
                                  GRAPH_HEAD "metadata: {name: biggraph}\nspec:\n"
                                             "  deadlineAfter: 2h\n  tasks:\n");
    for (size_t l = 0; l < LEVELS; l++)
        for (size_t i = 0; i < WIDTH; i++) {
            pos +=
                (size_t)snprintf(y + pos, cap - pos, "  - {name: g-%zu-%zu, runtime: 1m", l + 1, i);
            if (l > 0)
                pos += (size_t)snprintf(y + pos, cap - pos,
                                        ", dependsOn: [g-%zu-%zu, g-%zu-%zu, g-%zu-%zu]", l, i, l,
                                        (i + 1) % WIDTH, l, (i + 7) % WIDTH);
            pos += (size_t)snprintf(y + pos, cap - pos, "}\n");
        }
    assert_true(pos < cap);
    ds_graph_obs g = {NS, "biggraph", y, pos, T0};

    ds_jobset s;
    build_ok(&s, p, n, &g, 1, T0 + 100);
    assert_int_equal(s.n_jobs, 1 + 1 + SMALL);
    const ds_job *big = job_named(&s, "big");
    assert_true(big->valid);
    assert_int_equal(big->dag.n, n_big);
    assert_int_equal(big->dag.n_levels, LEVELS);
    size_t waiting = 0;
    for (size_t k = 0; k < n_big; k++) {
        size_t l = k / WIDTH + 1;
        const ds_pod_result *r = pod_res(&s, names[k]);
        assert_int_equal(r->job, (size_t)(big - s.jobs));
        assert_string_equal(big->dag.tasks[r->task].name, names[k]);
        assert_int_equal(big->dag.tasks[r->task].level, (int)l);
        ds_task_state want = l <= 5   ? DS_TASK_SUCCEEDED
                             : l == 6 ? DS_TASK_WAITING
                                      : DS_TASK_BLOCKED;
        assert_int_equal(big->status[r->task].state, want);
        if (want == DS_TASK_WAITING) {
            waiting++;
            assert_double_near(big->status[r->task].runnable_since, T0 + 50, 0);
        }
    }
    assert_int_equal(waiting, WIDTH);
    for (size_t j = 0; j < SMALL; j++) {
        const ds_job *sj = job_named(&s, jobs[j]);
        assert_true(sj->valid);
        assert_int_equal(sj->dag.n_levels, 10);
    }
    const ds_job *bg = job_named(&s, "biggraph");
    assert_true(bg->valid);
    assert_int_equal(bg->dag.n, n_big);
    assert_int_equal(bg->dag.n_levels, LEVELS);
    assert_double_near(bg->deadline, T0 + 7200, 0);
    assert_double_near(bg->level_deadline[1], T0 + 7200 - 60.0 * (LEVELS - 1), 0);
    /* Waiting: level 6 of big, the first task of each small job, level 1 of the graph. */
    assert_int_equal(s.n_waiting, WIDTH + SMALL + WIDTH);
    ds_jobset_free(&s);
    free(y);
    free(deps);
    free(jobs);
    free(names);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_job_with_tasks_without_pods),
        cmocka_unit_test(test_graph_mismatch_warnings),
        cmocka_unit_test(test_graph_errors),
        cmocka_unit_test(test_graph_durations_bounded),
        cmocka_unit_test(test_wait_rank_across_jobs),
        cmocka_unit_test(test_large_jobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
