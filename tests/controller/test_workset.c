/* test_workset.c: unit tests of the bound on graph work per round (workset.c) on decoded objects:
 * the jobs of pods, batch Jobs, JobGraphs and Workflows with the work of each, rounds that take
 * them in turn (a JobGraph read once per version), a snapshot that leaves a deferred job's objects
 * out of the job model while its pods keep their gate and its suspended Job stays suspended, and
 * outcomes that a deferred round does not make count twice. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outcomes.h"
#include "release.h"
#include "tracker.h"
#include "workset.h"
#include "model_input.h"
#include "ctl_obj_util.h"

#define POD(name, labels, ann, spec, status)                                                       \
    "{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"b\",\"uid\":\"u-" name "\","             \
    "\"resourceVersion\":\"1\",\"creationTimestamp\":\"2026-11-22T10:00:00Z\",\"labels\":{" labels \
    "},\"annotations\":{\"dagsched.io/runtime\":\"5s\"" ann "}},\"spec\":{\"containers\":[{"       \
    "\"name\":\"c\"}]" spec "},\"status\":" status "}"
#define JOBL(job, task) "\"dagsched.io/job\":\"" job "\",\"dagsched.io/task\":\"" task "\""
#define GATE            ",\"schedulingGates\":[{\"name\":\"dagsched.io/dependencies\"}]"
#define PENDING         "{\"phase\":\"Pending\"}"

/* JobGraph "big" (six tasks: t1 -> t2, four more roots) in ConfigMap g-big, at version rv. */
static const kube_meta *big_graph(const char *rv)
{
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"metadata\":{\"name\":\"g-big\",\"namespace\":\"b\",\"uid\":\"u-g\","
             "\"resourceVersion\":\"%s\",\"labels\":{\"dagsched.io/kind\":\"JobGraph\"}},"
             "\"data\":{\"graph.yaml\":\"apiVersion: dagsched.io/v1alpha1\\nkind: JobGraph\\n"
             "metadata: {name: big}\\nspec:\\n  tasks:\\n  - {name: t1, runtime: 5s}\\n"
             "  - {name: t2, runtime: 5s, dependsOn: [t1]}\\n  - {name: t3, runtime: 5s}\\n"
             "  - {name: t4, runtime: 5s}\\n  - {name: t5, runtime: 5s}\\n"
             "  - {name: t6, runtime: 5s}\\n\"}}",
             rv);
    return obj(KUBE_KIND_CONFIGMAP, buf);
}

/* The objects of the tests: job big (the JobGraph, t2's pod gated, t1's pod released and
 * pending, a suspended batch Job for t3), job small (three gated root pods s1..s3), job tiny (one
 * gated root pod), and a pod outside any job. */
static void objects(kube_obj_list *pods, kube_obj_list *jobs, kube_obj_list *graphs, const char *rv)
{
    add(graphs, big_graph(rv));
    add(pods, obj(KUBE_KIND_POD, POD("big-t2", JOBL("big", "t2"), "", GATE, PENDING)));
    add(pods, obj(KUBE_KIND_POD, POD("big-t1", JOBL("big", "t1"), "", "", PENDING)));
    add(pods, obj(KUBE_KIND_POD, POD("small-s2", JOBL("small", "s2"), "", GATE, PENDING)));
    add(pods, obj(KUBE_KIND_POD, POD("small-s1", JOBL("small", "s1"), "", GATE, PENDING)));
    add(pods, obj(KUBE_KIND_POD, POD("small-s3", JOBL("small", "s3"), "", GATE, PENDING)));
    add(pods, obj(KUBE_KIND_POD, POD("tiny-x", JOBL("tiny", "x"), "", GATE, PENDING)));
    add(pods, obj(KUBE_KIND_POD, POD("plain", "\"app\":\"web\"", "", "", PENDING)));
    add(jobs, obj(KUBE_KIND_JOB, "{\"metadata\":{\"name\":\"big-t3\",\"namespace\":\"b\","
                                 "\"uid\":\"u-j\",\"resourceVersion\":\"1\",\"labels\":{" JOBL(
                                     "big", "t3") "}},\"spec\":{\"suspend\":true},\"status\":{}}"));
}

static const ctl_work_job *job_named(const ctl_work_round *r, const char *key)
{
    for (size_t i = 0; i < r->n_jobs; i++)
        if (strcmp(r->jobs[i].key, key) == 0)
            return &r->jobs[i];
    fail_msg("no job %s in the round", key);
    return NULL;
}

/* With a bound of 5 tasks: big (6: its JobGraph's tasks) alone in the first round, 1 over the
 * budget; small (3) and tiny (1) in the second, which pays that 1 and defers big; big again in
 * the third. The JobGraph is read once, and again when it changes. */
static void test_rounds(void **state)
{
    (void)state;
    kube_obj_list pods = {0}, jobs = {0}, graphs = {0};
    ctl_workset w;
    ctl_workset_init(&w);
    ctl_work_round r;
    ds_err err = {{0}};
    /* Nothing listed: no job, nothing deferred. */
    assert_int_equal(ctl_workset_plan(&w, &pods, &jobs, &graphs, 5, &r, &err), 0);
    assert_int_equal(r.n_jobs, 0);
    assert_int_equal(r.plan.n_deferred, 0);
    assert_false(ctl_work_deferred(&r, "b", "big"));
    ctl_work_round_free(&r);

    objects(&pods, &jobs, &graphs, "1");

    assert_int_equal(ctl_workset_plan(&w, &pods, &jobs, &graphs, 5, &r, &err), 0);
    assert_int_equal(r.n_jobs, 3);
    assert_string_equal(r.jobs[0].key, "b/big");
    assert_int_equal(r.jobs[0].tasks, 6);
    assert_ptr_equal(r.jobs[0].target, graphs.items[0]); /* its JobGraph ConfigMap */
    assert_int_equal(job_named(&r, "b/small")->tasks, 3);
    assert_string_equal(job_named(&r, "b/small")->target->name, "small-s1");
    assert_int_equal(job_named(&r, "b/tiny")->tasks, 1);
    assert_false(ctl_work_deferred(&r, "b", "big"));
    assert_true(ctl_work_deferred(&r, "b", "small"));
    assert_true(ctl_work_deferred(&r, "b", "tiny"));
    assert_false(ctl_work_deferred(&r, "b", "other"));
    assert_false(r.graph_deferred[0]);
    assert_int_equal(r.plan.tasks_evaluated, 6);
    assert_int_equal(r.plan.tasks_deferred, 4);
    assert_int_equal(w.debt, 1);
    assert_string_equal(w.start, "b/small");
    assert_int_equal(w.reads, 1);
    ctl_work_round_free(&r);

    assert_int_equal(ctl_workset_plan(&w, &pods, &jobs, &graphs, 5, &r, &err), 0);
    assert_true(ctl_work_deferred(&r, "b", "big"));
    assert_true(r.graph_deferred[0]);
    assert_false(ctl_work_deferred(&r, "b", "small"));
    assert_false(ctl_work_deferred(&r, "b", "tiny"));
    assert_int_equal(r.plan.n_deferred, 1);
    assert_int_equal(w.debt, 0);
    assert_string_equal(w.start, "b/big");
    assert_int_equal(w.reads, 1); /* the same version: not read again */
    ctl_work_round_free(&r);

    /* A new version of the JobGraph is read again; big's turn. */
    kube_obj_unref(graphs.items[0]);
    graphs.items[0] = big_graph("2");
    assert_int_equal(ctl_workset_plan(&w, &pods, &jobs, &graphs, 5, &r, &err), 0);
    assert_false(ctl_work_deferred(&r, "b", "big"));
    assert_true(ctl_work_deferred(&r, "b", "small"));
    assert_int_equal(w.reads, 2);
    assert_int_equal(w.n_facts, 1);
    ctl_work_round_free(&r);

    /* The JobGraph gone: its fact is dropped. */
    kube_obj_list none = {0};
    assert_int_equal(ctl_workset_plan(&w, &pods, &jobs, &none, 5, &r, &err), 0);
    assert_int_equal(w.n_facts, 0);
    assert_int_equal(job_named(&r, "b/big")->tasks, 3); /* two pods and the batch Job */
    ctl_work_round_free(&r);

    /* No bound: every job, every round, nothing read nor carried. */
    assert_int_equal(ctl_workset_plan(&w, &pods, &jobs, &graphs, 0, &r, &err), 0);
    assert_int_equal(r.n_jobs, 0);
    assert_int_equal(r.plan.n_deferred, 0);
    assert_false(ctl_work_deferred(&r, "b", "big"));
    assert_false(r.graph_deferred[0]);
    assert_int_equal(w.reads, 2);
    assert_int_equal(w.n_facts, 0);
    assert_null(w.start);
    assert_int_equal(w.debt, 0);
    ctl_work_round_free(&r);

    ctl_workset_free(&w);
    kube_obj_list_free(&pods);
    kube_obj_list_free(&jobs);
    kube_obj_list_free(&graphs);
}

/* A JobGraph that cannot be read counts as many tasks as its size could declare, under the job
 * its metadata.name names, else as a work item of its own. */
static void test_unreadable_graph(void **state)
{
    (void)state;
    kube_obj_list pods = {0}, jobs = {0}, graphs = {0};
    static const char named[] =
        "{\"metadata\":{\"name\":\"g1\",\"namespace\":\"b\",\"uid\":\"u-1\",\"resourceVersion\":"
        "\"1\"},\"data\":{\"graph.yaml\":\"apiVersion: dagsched.io/v1alpha1\\nkind: JobGraph\\n"
        "metadata: {name: etl}\\nspec: {tasks: 7}\\n\"}}";
    static const char anonymous[] =
        "{\"metadata\":{\"name\":\"g2\",\"namespace\":\"b\",\"uid\":\"u-2\",\"resourceVersion\":"
        "\"1\"},\"data\":{\"graph.yaml\":\"[not, a, graph, at, all, but, long, enough]\"}}";
    add(&graphs, obj(KUBE_KIND_CONFIGMAP, named));
    add(&graphs, obj(KUBE_KIND_CONFIGMAP, anonymous));
    ctl_workset w;
    ctl_workset_init(&w);
    ctl_work_round r;
    ds_err err = {{0}};
    assert_int_equal(ctl_workset_plan(&w, &pods, &jobs, &graphs, 100, &r, &err), 0);
    assert_int_equal(r.n_jobs, 2);
    ds_graph_obs g1, g2;
    kube_graph_obs((const kube_configmap *)graphs.items[0], &g1);
    kube_graph_obs((const kube_configmap *)graphs.items[1], &g2);
    assert_int_equal(g1.len, 87);
    assert_int_equal(g2.len, 43);
    assert_string_equal(r.jobs[0].key, "b/#graph:g2");
    assert_int_equal(r.jobs[0].tasks, 43 / DS_JOBGRAPH_MIN_TASK_BYTES);
    assert_string_equal(r.jobs[1].key, "b/etl");
    assert_int_equal(r.jobs[1].tasks, 87 / DS_JOBGRAPH_MIN_TASK_BYTES);
    ctl_work_round_free(&r);
    ctl_workset_free(&w);
    kube_obj_list_free(&graphs);
}

/* A Workflow's work: the steps of its templates plus the nodes of its status, at least its pods;
 * its Event goes to the Workflow; deferred, its pods (by the Argo label) are left out too. */
static void test_workflow(void **state)
{
    (void)state;
    kube_obj_list pods = {0}, jobs = {0}, graphs = {0}, nodes = {0}, pdbs = {0};
    add(&graphs,
        obj(KUBE_KIND_WORKFLOW,
            "{\"metadata\":{\"name\":\"wf\",\"namespace\":\"b\",\"uid\":\"w-uid\","
            "\"resourceVersion\":\"3\"},\"spec\":{\"entrypoint\":\"main\",\"templates\":["
            "{\"name\":\"main\",\"dag\":{\"tasks\":[{\"name\":\"a\",\"template\":\"work\"},"
            "{\"name\":\"b\",\"template\":\"work\",\"dependencies\":[\"a\"]}]}},"
            "{\"name\":\"work\",\"container\":{}}]},\"status\":{\"nodes\":{"
            "\"wf-2\":{\"id\":\"wf-2\",\"name\":\"wf.a\",\"type\":\"Pod\","
            "\"templateName\":\"work\",\"phase\":\"Running\"}}}}"));
    add(&pods, obj(KUBE_KIND_POD, POD("wf-a", "\"workflows.argoproj.io/workflow\":\"wf\"",
                                      ",\"workflows.argoproj.io/node-id\":\"wf-2\"",
                                      ",\"nodeName\":\"n1\"", "{\"phase\":\"Running\"}")));
    add(&pods, obj(KUBE_KIND_POD, POD("tiny-x", JOBL("tiny", "x"), "", GATE, PENDING)));
    ctl_workset w;
    ctl_workset_init(&w);
    ctl_work_round r;
    ds_err err = {{0}};
    /* b/tiny (1) first, then b/wf (2 steps + 1 node) does not fit in the 1 left. */
    assert_int_equal(ctl_workset_plan(&w, &pods, &jobs, &graphs, 2, &r, &err), 0);
    assert_int_equal(r.n_jobs, 2);
    assert_string_equal(r.jobs[1].key, "b/wf");
    assert_int_equal(r.jobs[1].tasks, 3);
    assert_ptr_equal(r.jobs[1].target, graphs.items[0]);
    assert_true(r.jobs[1].deferred);
    assert_true(r.graph_deferred[0]);
    ds_policy pol;
    ds_policy_defaults(&pol);
    ctl_snapshot s;
    assert_int_equal(ctl_snapshot_build_work(&pods, &nodes, &pdbs, &jobs, &graphs, NULL, &pol, NULL,
                                             &r, 1795341700.0, &s, &err),
                     0);
    assert_null(ds_jobset_find_job(&s.js, "b", "wf"));
    assert_true(s.pod[0].task.deferred);
    assert_int_equal(s.pod[0].task.job, DS_NO_TASK);
    assert_false(s.pod[1].task.deferred);
    ctl_snapshot_free(&s);
    ctl_work_round_free(&r);
    ctl_workset_free(&w);
}

static size_t pod_index(const ctl_snapshot *s, const char *name)
{
    for (size_t i = 0; i < s->n_pod; i++)
        if (strcmp(s->pod[i].name, name) == 0)
            return i;
    fail_msg("no pod %s", name);
    return 0;
}

/* The second round of test_rounds: big deferred. Its objects are outside the job model; its gated
 * pod keeps its gate (not ungated, released, held with a reason or nudged), its suspended Job
 * stays suspended, its released pending pod still counts in flight; small and tiny are released
 * as usual. */
static void test_snapshot_leaves_deferred_jobs(void **state)
{
    (void)state;
    kube_obj_list pods = {0}, jobs = {0}, graphs = {0}, nodes = {0}, pdbs = {0};
    objects(&pods, &jobs, &graphs, "1");
    ctl_workset w;
    ctl_workset_init(&w);
    ctl_work_round r;
    ds_err err = {{0}};
    assert_int_equal(ctl_workset_plan(&w, &pods, &jobs, &graphs, 5, &r, &err), 0);
    ctl_work_round_free(&r);
    assert_int_equal(ctl_workset_plan(&w, &pods, &jobs, &graphs, 5, &r, &err), 0);
    assert_true(ctl_work_deferred(&r, "b", "big"));

    ds_policy pol;
    ds_policy_defaults(&pol);
    ctl_snapshot s;
    assert_int_equal(ctl_snapshot_build_work(&pods, &nodes, &pdbs, &jobs, &graphs, NULL, &pol, NULL,
                                             &r, 1795341700.0, &s, &err),
                     0);
    assert_null(ds_jobset_find_job(&s.js, "b", "big"));
    assert_non_null(ds_jobset_find_job(&s.js, "b", "small"));
    const ctl_pod *t2 = &s.pod[pod_index(&s, "big-t2")];
    assert_true(t2->task.deferred);
    assert_int_equal(t2->task.job, DS_NO_TASK);
    assert_int_equal(t2->state, CTL_POD_GATED);
    assert_true(s.pod[pod_index(&s, "big-t1")].task.deferred);
    assert_false(s.pod[pod_index(&s, "small-s1")].task.deferred);
    assert_false(s.pod[pod_index(&s, "plain")].task.deferred);
    assert_int_equal(s.n_job, 1);
    assert_true(s.job[0].task.deferred);
    assert_int_equal(s.job[0].task.job, DS_NO_TASK);

    ctl_release_in in = {.pods = s.pod,
                         .n_pods = s.n_pod,
                         .jobs = s.job,
                         .n_jobs = s.n_job,
                         .model = s.js.jobs,
                         .n_model = s.js.n_jobs,
                         .admission = DS_ADMIT_ALL};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, &err), 0);
    assert_int_equal(out.n_ungate, 0); /* big-t2 keeps its gate */
    assert_int_equal(out.n_rel, 4);    /* small's three roots and tiny's */
    for (size_t i = 0; i < out.n_rel; i++) {
        assert_int_equal(out.rel[i].kind, CTL_RELEASE_POD);
        assert_false(s.pod[out.rel[i].idx].task.deferred);
    }
    assert_int_equal(out.n_wait, 0);    /* big-t2 and the suspended Job: no reason written */
    assert_int_equal(out.in_flight, 1); /* big-t1: released, pending */
    ctl_release_out_free(&out);
    /* It counts under maxConcurrentReleases: with 2, one more task is released. */
    in.max_concurrent = 2;
    assert_int_equal(ctl_release_plan(&in, &out, &err), 0);
    assert_int_equal(out.n_rel, 1);
    assert_int_equal(out.by_reason[CTL_WAIT_LIMIT], 3);
    ctl_release_out_free(&out);
    ctl_snapshot_free(&s);
    ctl_work_round_free(&r);
    ctl_workset_free(&w);
}

/* A job finished and reported, deferred in a later round, then evaluated again: reported once. */
static void test_outcomes_across_deferral(void **state)
{
    (void)state;
    static const char done[] =
        POD("done-a", JOBL("done", "a"), "", ",\"nodeName\":\"n1\"",
            "{\"phase\":\"Succeeded\",\"startTime\":\"2026-11-22T10:00:10Z\"}");
    static const char other[] = POD("other-a", JOBL("other", "a"), "", GATE, PENDING);
    ctl_outcomes o;
    ctl_outcomes_init(&o, 1795341600.0);
    ctl_workset w;
    ctl_workset_init(&w);
    ds_policy pol;
    ds_policy_defaults(&pol);
    size_t reported = 0, started = 0;
    bool done_deferred[3];
    for (int round = 0; round < 3; round++) {
        kube_obj_list pods = {0}, jobs = {0}, graphs = {0}, nodes = {0}, pdbs = {0};
        add(&pods, obj(KUBE_KIND_POD, done));
        add(&pods, obj(KUBE_KIND_POD, other));
        ctl_work_round r;
        ds_err err = {{0}};
        /* A bound of 1: one job a round, in turn (b/done, b/other, b/done). */
        assert_int_equal(ctl_workset_plan(&w, &pods, &jobs, &graphs, 1, &r, &err), 0);
        done_deferred[round] = ctl_work_deferred(&r, "b", "done");
        ctl_snapshot s;
        assert_int_equal(ctl_snapshot_build_work(&pods, &nodes, &pdbs, &jobs, &graphs, NULL, &pol,
                                                 NULL, &r, 1795341700.0 + round, &s, &err),
                         0);
        ctl_outcome_events e;
        assert_int_equal(ctl_outcomes_scan(&o, &s, &e, &err), 0);
        reported += e.n_jobs;
        started += e.n_tasks;
        ctl_outcome_events_free(&e);
        ctl_snapshot_free(&s);
        ctl_work_round_free(&r);
    }
    assert_false(done_deferred[0]);
    assert_true(done_deferred[1]);
    assert_false(done_deferred[2]);
    assert_int_equal(reported, 1);
    assert_int_equal(started, 1);
    ctl_outcomes_free(&o);
    ctl_workset_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rounds),
        cmocka_unit_test(test_unreadable_graph),
        cmocka_unit_test(test_workflow),
        cmocka_unit_test(test_snapshot_leaves_deferred_jobs),
        cmocka_unit_test(test_outcomes_across_deferral),
    };
    return cmocka_run_group_tests_name("workset", tests, NULL, NULL);
}
