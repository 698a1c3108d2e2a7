/* test_jobmodel.c: unit tests of the job model on jobs declared by pod labels and annotations:
 * levels and task states as pods progress, upstream lists, retried pods, the Argo label, deadlines
 * and invalid jobs kept apart from valid ones (with their exact messages). */
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
#include "jobstate.h"

/* 2026-11-22T10:00:00Z */
#define DEADLINE_TEXT  "2026-11-22T10:00:00Z"
#define DEADLINE_EPOCH 1795341600.0

/* The diamond used by several tests: a (60s); b (120s) and c (30s) depend on a; d (90s) on both. */
enum { PA, PB, PC, PD };
static void diamond(ds_pod_obs p[4], const char *job)
{
    p[PA] = mkpod("a-1", job, "a", NULL, "60s");
    p[PB] = mkpod("b-1", job, "b", "a", "2m");
    p[PC] = mkpod("c-1", job, "c", " a ", "30s");
    p[PD] = mkpod("d-1", job, "d", "b, c", "1m30s");
}

static void expect_pending(const ds_job *j, const char *task, size_t n, const char *names)
{
    char buf[128];
    assert_int_equal(ds_job_pending_upstream(j, task_idx(j, task), buf, sizeof buf), n);
    assert_string_equal(buf, names);
}

/* The evaluation must be DSP's on exactly the statuses the model derived. */
static void expect_eval_consistent(const ds_job *j, double now)
{
    ds_priority_params pp;
    ds_priority_defaults(&pp);
    ds_task_eval *ev = calloc(j->dag.n, sizeof *ev);
    assert_non_null(ev);
    ds_err e = {{0}};
    assert_int_equal(ds_dsp_evaluate(&j->dag, j->status, j->deadline, now, &pp, ev, &e), 0);
    for (size_t t = 0; t < j->dag.n; t++)
        assert_double_near(ev[t].priority, j->eval[t].priority, 0);
    free(ev);
}

static void test_levels_and_states_as_pods_progress(void **state)
{
    (void)state;
    ds_pod_obs p[4];
    diamond(p, "etl");
    ds_jobset s;

    /* 1. Nothing has run: a is waiting (since its creation), the rest blocked. */
    build_ok(&s, p, 4, NULL, 0, T0 + 5);
    assert_int_equal(s.n_jobs, 1);
    const ds_job *j = job_named(&s, "etl");
    assert_true(j->valid);
    assert_null(j->error);
    assert_string_equal(j->key, "default/etl");
    assert_null(j->graph);
    assert_int_equal(j->dag.n, 4);
    assert_int_equal(j->n_pods, 4);
    assert_int_equal(j->dag.n_levels, 3);
    assert_int_equal(j->dag.tasks[task_idx(j, "a")].level, 1);
    assert_int_equal(j->dag.tasks[task_idx(j, "b")].level, 2);
    assert_int_equal(j->dag.tasks[task_idx(j, "c")].level, 2);
    assert_int_equal(j->dag.tasks[task_idx(j, "d")].level, 3);
    assert_double_near(j->dag.tasks[task_idx(j, "b")].runtime_s, 120, 0);
    assert_double_near(j->dag.tasks[task_idx(j, "d")].runtime_s, 90, 0);
    assert_int_equal(state_of(j, "a"), DS_TASK_WAITING);
    assert_double_near(j->status[task_idx(j, "a")].runnable_since, T0, 0);
    assert_int_equal(state_of(j, "b"), DS_TASK_BLOCKED);
    assert_int_equal(state_of(j, "c"), DS_TASK_BLOCKED);
    assert_int_equal(state_of(j, "d"), DS_TASK_BLOCKED);
    expect_pending(j, "a", 0, "");
    expect_pending(j, "b", 1, "a");
    expect_pending(j, "d", 2, "b, c");
    assert_double_inf(j->deadline, 1);
    assert_double_inf(j->eval[task_idx(j, "a")].level_deadline, 1);
    assert_double_near(j->created_at, T0, 0);
    /* Every pod is the primary pod of its task, without error or warning. */
    for (size_t i = 0; i < 4; i++) {
        const ds_pod_result *r = pod_res(&s, p[i].uid);
        assert_int_equal(ds_jobset_find_pod(&s, p[i].uid), i);
        assert_int_equal(r->job, 0);
        assert_int_equal(r->task, task_idx(j, p[i].task));
        assert_int_equal(j->task_pod[r->task], i);
        assert_true(r->primary);
        assert_null(r->error);
        assert_null(r->warning);
    }
    assert_int_equal(s.n_waiting, 1);
    assert_double_near(ds_jobset_wait_rank(&s, j, task_idx(j, "a")), 1.0, 0);
    assert_double_near(ds_jobset_wait_rank(&s, j, task_idx(j, "b")), -1.0, 0);
    /* DSP: a task's priority exceeds each of its children's (Eq. 12). */
    assert_true(j->eval[task_idx(j, "a")].priority > j->eval[task_idx(j, "b")].priority);
    assert_true(j->eval[task_idx(j, "b")].priority > j->eval[task_idx(j, "d")].priority);
    expect_eval_consistent(j, T0 + 5);
    ds_jobset_free(&s);

    /* 2. a is bound and running on a node of speed 2. */
    set_running(&p[PA], T0 + 10, 2.0);
    build_ok(&s, p, 4, NULL, 0, T0 + 20);
    j = job_named(&s, "etl");
    assert_int_equal(state_of(j, "a"), DS_TASK_RUNNING);
    assert_double_near(j->status[task_idx(j, "a")].started_at, T0 + 10, 0);
    assert_double_near(j->status[task_idx(j, "a")].speed, 2.0, 0);
    assert_int_equal(state_of(j, "b"), DS_TASK_BLOCKED);
    assert_int_equal(s.n_waiting, 0);
    expect_pending(j, "b", 1, "a");
    expect_eval_consistent(j, T0 + 20);
    ds_jobset_free(&s);

    /* 3. a succeeded at T0+40: b and c are runnable since then. */
    set_done(&p[PA], DS_PHASE_SUCCEEDED, T0 + 40);
    build_ok(&s, p, 4, NULL, 0, T0 + 50);
    j = job_named(&s, "etl");
    assert_int_equal(state_of(j, "a"), DS_TASK_SUCCEEDED);
    assert_int_equal(state_of(j, "b"), DS_TASK_WAITING);
    assert_int_equal(state_of(j, "c"), DS_TASK_WAITING);
    assert_double_near(j->status[task_idx(j, "b")].runnable_since, T0 + 40, 0);
    assert_double_near(j->status[task_idx(j, "c")].runnable_since, T0 + 40, 0);
    assert_int_equal(state_of(j, "d"), DS_TASK_BLOCKED);
    expect_pending(j, "b", 0, "");
    expect_pending(j, "d", 2, "b, c");
    assert_int_equal(s.n_waiting, 2);
    /* b and c each feed only d: equal priorities (Eq. 12), so an equal (top) rank. */
    assert_double_near(j->eval[task_idx(j, "b")].priority, j->eval[task_idx(j, "c")].priority, 0);
    assert_double_near(ds_jobset_wait_rank(&s, j, task_idx(j, "b")), 1.0, 0);
    assert_double_near(ds_jobset_wait_rank(&s, j, task_idx(j, "c")), 1.0, 0);
    ds_jobset_free(&s);

    /* 4. b succeeded at T0+200, c is running: d still waits for c. */
    set_done(&p[PB], DS_PHASE_SUCCEEDED, T0 + 200);
    set_running(&p[PC], T0 + 60, 1.0);
    build_ok(&s, p, 4, NULL, 0, T0 + 210);
    j = job_named(&s, "etl");
    assert_int_equal(state_of(j, "c"), DS_TASK_RUNNING);
    assert_int_equal(state_of(j, "d"), DS_TASK_BLOCKED);
    expect_pending(j, "d", 1, "c");
    ds_jobset_free(&s);

    /* 5. c succeeded at T0+150 (before b): d is runnable since the later one, T0+200. */
    set_done(&p[PC], DS_PHASE_SUCCEEDED, T0 + 150);
    build_ok(&s, p, 4, NULL, 0, T0 + 220);
    j = job_named(&s, "etl");
    assert_int_equal(state_of(j, "d"), DS_TASK_WAITING);
    assert_double_near(j->status[task_idx(j, "d")].runnable_since, T0 + 200, 0);
    expect_pending(j, "d", 0, "");
    ds_jobset_free(&s);

    /* ... unless d's pod was created later: then since its creation. */
    p[PD].created_at = T0 + 250;
    build_ok(&s, p, 4, NULL, 0, T0 + 260);
    j = job_named(&s, "etl");
    assert_double_near(j->status[task_idx(j, "d")].runnable_since, T0 + 250, 0);
    ds_jobset_free(&s);

    /* 6. d bound but not started (no startTime): running since its creation, speed 1 when the
     * node's speed is unknown. Then d succeeds. */
    p[PD].bound = true;
    p[PD].node_speed = NAN;
    build_ok(&s, p, 4, NULL, 0, T0 + 270);
    j = job_named(&s, "etl");
    assert_int_equal(state_of(j, "d"), DS_TASK_RUNNING);
    assert_double_near(j->status[task_idx(j, "d")].started_at, T0 + 250, 0);
    assert_double_near(j->status[task_idx(j, "d")].speed, 1.0, 0);
    ds_jobset_free(&s);
    set_done(&p[PD], DS_PHASE_SUCCEEDED, T0 + 400);
    build_ok(&s, p, 4, NULL, 0, T0 + 410);
    j = job_named(&s, "etl");
    for (size_t t = 0; t < 4; t++)
        assert_int_equal(j->status[t].state, DS_TASK_SUCCEEDED);
    assert_int_equal(s.n_waiting, 0);
    ds_jobset_free(&s);
}

/* A failed task blocks its dependents, which list it as pending. */
static void test_failed_upstream(void **state)
{
    (void)state;
    ds_pod_obs p[4];
    diamond(p, "etl");
    set_done(&p[PA], DS_PHASE_SUCCEEDED, T0 + 10);
    set_done(&p[PB], DS_PHASE_FAILED, T0 + 20);
    ds_jobset s;
    build_ok(&s, p, 4, NULL, 0, T0 + 30);
    const ds_job *j = job_named(&s, "etl");
    assert_int_equal(state_of(j, "b"), DS_TASK_FAILED);
    assert_int_equal(state_of(j, "c"), DS_TASK_WAITING);
    assert_int_equal(state_of(j, "d"), DS_TASK_BLOCKED);
    expect_pending(j, "d", 2, "b, c");
    ds_jobset_free(&s);
}

/* Several pods for one task: the newest non-terminal pod wins, else Succeeded over Failed. */
static void test_duplicate_pods_per_task(void **state)
{
    (void)state;
    ds_pod_obs p[8];
    /* x: a failed try, a succeeded one and a newer pending retry: the retry represents x. */
    p[0] = mkpod("x-1", "dup", "x", NULL, "10s");
    set_done(&p[0], DS_PHASE_FAILED, T0 + 5);
    p[1] = mkpod("x-2", "dup", "x", NULL, "10s");
    p[1].created_at = T0 + 100;
    p[2] = mkpod("x-3", "dup", "x", NULL, "10s");
    p[2].created_at = T0 + 50;
    set_done(&p[2], DS_PHASE_SUCCEEDED, T0 + 60);
    /* y: an older success beats a newer failure. */
    p[3] = mkpod("y-1", "dup", "y", NULL, "10s");
    p[3].created_at = T0 + 10;
    set_done(&p[3], DS_PHASE_FAILED, T0 + 20);
    p[4] = mkpod("y-2", "dup", "y", NULL, "10s");
    set_done(&p[4], DS_PHASE_SUCCEEDED, T0 + 8);
    /* z: two live pods (a recreated one while the old one still runs): the newest wins. */
    p[5] = mkpod("z-1", "dup", "z", "y", "10s");
    set_running(&p[5], T0 + 30, 1.0);
    p[6] = mkpod("z-2", "dup", "z", "y", "10s");
    p[6].created_at = T0 + 40;
    /* w: two pods created at the same time: the choice is by name, not by input order. */
    p[7] = mkpod("w-b", "dup", "w", NULL, "10s");
    ds_pod_obs q = mkpod("w-a", "dup", "w", NULL, "10s");

    ds_pod_obs all[9];
    memcpy(all, p, sizeof p);
    all[8] = q;
    ds_jobset s;
    build_ok(&s, all, 9, NULL, 0, T0 + 200);
    const ds_job *j = job_named(&s, "dup");
    assert_true(j->valid);
    assert_int_equal(j->dag.n, 4);
    assert_int_equal(j->n_pods, 9);
    size_t x = task_idx(j, "x"), y = task_idx(j, "y"), z = task_idx(j, "z"), w = task_idx(j, "w");
    assert_int_equal(j->task_pod[x], 1);
    assert_int_equal(state_of(j, "x"), DS_TASK_WAITING);
    assert_double_near(j->status[x].runnable_since, T0 + 100, 0);
    assert_int_equal(j->task_pod[y], 4);
    assert_int_equal(state_of(j, "y"), DS_TASK_SUCCEEDED);
    assert_int_equal(j->task_pod[z], 6);
    assert_int_equal(state_of(j, "z"), DS_TASK_WAITING);
    assert_double_near(j->status[z].runnable_since, T0 + 40, 0);
    assert_int_equal(j->task_pod[w], 7);
    /* Every pod maps to its task; only the representative is primary. */
    const char *names[] = {"x-1", "x-2", "x-3", "y-1", "y-2", "z-1", "z-2", "w-b", "w-a"};
    const bool primary[] = {false, true, false, false, true, false, true, true, false};
    const size_t task[] = {x, x, x, y, y, z, z, w, w};
    for (size_t i = 0; i < 9; i++) {
        const ds_pod_result *r = pod_res(&s, names[i]);
        assert_int_equal(r->task, task[i]);
        assert_int_equal(r->primary, primary[i]);
    }
    ds_jobset_free(&s);

    /* Reversing the input order changes nothing. */
    ds_pod_obs rev[9];
    for (size_t i = 0; i < 9; i++)
        rev[i] = all[8 - i];
    build_ok(&s, rev, 9, NULL, 0, T0 + 200);
    j = job_named(&s, "dup");
    assert_string_equal(rev[j->task_pod[task_idx(j, "x")]].name, "x-2");
    assert_string_equal(rev[j->task_pod[task_idx(j, "y")]].name, "y-2");
    assert_string_equal(rev[j->task_pod[task_idx(j, "z")]].name, "z-2");
    assert_string_equal(rev[j->task_pod[task_idx(j, "w")]].name, "w-b");
    ds_jobset_free(&s);
}

static void test_argo_label_and_namespaces(void **state)
{
    (void)state;
    ds_pod_obs p[6];
    p[0] = mkpod("wf-1-a", NULL, "step-a", NULL, "1m");
    p[0].argo_workflow = "wf-1";
    p[1] = mkpod("wf-1-b", NULL, "step-b", "step-a", "1m");
    p[1].argo_workflow = "wf-1";
    /* dagsched.io/job wins over the Argo label. */
    p[2] = mkpod("both", "etl", "t", NULL, "1m");
    p[2].argo_workflow = "wf-2";
    /* The same job name in another namespace is another job. */
    p[3] = mkpod("other-ns", NULL, "step-a", NULL, "1m");
    p[3].argo_workflow = "wf-1";
    p[3].ns = "team-b";
    /* An Argo pod without a task label is an error for that pod only. */
    p[4] = mkpod("wf-1-init", NULL, NULL, NULL, NULL);
    p[4].argo_workflow = "wf-1";
    /* A pod of no job is left alone; a task label alone only earns a warning. */
    p[5] = mkpod("plain", NULL, "lonely", NULL, NULL);
    ds_jobset s;
    build_ok(&s, p, 6, NULL, 0, T0 + 1);
    assert_int_equal(s.n_jobs, 3);
    const ds_job *wf = job_named(&s, "wf-1");
    assert_true(wf->valid);
    assert_int_equal(wf->dag.n, 2);
    assert_int_equal(wf->n_pods, 3);
    assert_int_equal(wf->dag.tasks[task_idx(wf, "step-b")].level, 2);
    assert_non_null(job_named(&s, "etl"));
    assert_null(ds_jobset_find_job(&s, NS, "wf-2"));
    const ds_job *other = ds_jobset_find_job(&s, "team-b", "wf-1");
    assert_non_null(other);
    assert_true(other != wf);
    assert_string_equal(other->key, "team-b/wf-1");
    assert_int_equal(other->dag.n, 1);
    assert_string_equal(pod_res(&s, "wf-1-init")->error,
                        "missing label dagsched.io/task (the pod has label "
                        "workflows.argoproj.io/workflow=wf-1)");
    assert_int_equal(pod_res(&s, "wf-1-init")->job, (size_t)(wf - s.jobs));
    assert_int_equal(pod_res(&s, "wf-1-init")->task, DS_NONE);
    const ds_pod_result *plain = pod_res(&s, "plain");
    assert_int_equal(plain->job, DS_NONE);
    assert_null(plain->error);
    assert_string_equal(plain->warning, "label dagsched.io/task without a job label "
                                        "(dagsched.io/job): the pod is not part of a DAG job");
    assert_int_equal(ds_jobset_find_pod(&s, "nope"), DS_NONE);
    assert_null(ds_jobset_find_job(&s, NS, "nope"));
    ds_jobset_free(&s);
}

static void test_default_runtime_warning(void **state)
{
    (void)state;
    ds_pod_obs p[2];
    p[0] = mkpod("a-1", "etl", "a", NULL, NULL);
    p[1] = mkpod("b-1", "etl", "b", "a", "2m");
    ds_jobset s;
    build_ok(&s, p, 2, NULL, 0, T0);
    const ds_job *j = job_named(&s, "etl");
    assert_double_near(j->dag.tasks[task_idx(j, "a")].runtime_s, DS_DEFAULT_RUNTIME_S, 0);
    assert_string_equal(pod_res(&s, "a-1")->warning,
                        "annotation dagsched.io/runtime is missing: assuming 60s");
    assert_null(pod_res(&s, "a-1")->error);
    assert_null(pod_res(&s, "b-1")->warning);
    ds_jobset_free(&s);
}

static void build_learned_ok(ds_jobset *s, const ds_pod_obs *pods, size_t n, const ds_rt_history *h,
                             double now)
{
    ds_priority_params pp;
    ds_priority_defaults(&pp);
    ds_err e = {{0}};
    if (ds_jobs_build_learned(pods, n, NULL, 0, NULL, 0, now, &pp, h, s, &e) != 0)
        fail_msg("ds_jobs_build_learned: %s", e.msg);
}

/* Run times learned from earlier runs (lib/runtime_history.h): a task that succeeded is
 * recorded at reference speed (20 s on a 2x node is 40 s); the next run of the job counts it
 * instead of the 60 s default and says where it came from; an annotation still wins; a run is
 * recorded once. Before, every run counted 60 s. */
static void test_learned_runtimes(void **state)
{
    (void)state;
    ds_rt_history h;
    ds_err e = {{0}};
    assert_int_equal(ds_rt_history_init(&h, 16, &e), 0);
    ds_pod_obs p[2];
    p[0] = mkpod("a-1", "etl", "a", NULL, NULL);
    p[1] = mkpod("b-1", "etl", "b", "a", NULL);
    set_running(&p[0], T0 + 1, 2.0);
    set_done(&p[0], DS_PHASE_SUCCEEDED, T0 + 21);
    ds_jobset s;
    build_learned_ok(&s, p, 2, &h, T0 + 30);
    const ds_job *j = job_named(&s, "etl");
    assert_double_near(j->dag.tasks[task_idx(j, "b")].runtime_s, DS_DEFAULT_RUNTIME_S, 0);
    assert_int_equal(ds_jobset_learn_runtimes(&s, p, 2, &h, T0 + 30), 1);
    assert_int_equal(ds_jobset_learn_runtimes(&s, p, 2, &h, T0 + 31), 0); /* once */
    ds_jobset_free(&s);
    assert_double_near(ds_rt_history_estimate(&h, NS "/etl/a", NULL), 40.0, 1e-3);

    /* The next run of etl: a counts 40 s, b still 60 s; b's annotation wins where it has one. */
    p[0] = mkpod("a-2", "etl", "a", NULL, NULL);
    p[1] = mkpod("b-2", "etl", "b", "a", "7s");
    build_learned_ok(&s, p, 2, &h, T0 + 100);
    j = job_named(&s, "etl");
    assert_double_near(j->dag.tasks[task_idx(j, "a")].runtime_s, 40.0, 1e-3);
    assert_double_near(j->dag.tasks[task_idx(j, "b")].runtime_s, 7.0, 0);
    assert_string_equal(pod_res(&s, "a-2")->warning,
                        "annotation dagsched.io/runtime is missing: 40s learned from 1 earlier "
                        "run(s)");
    ds_jobset_free(&s);
    /* Without the table: the default, as before. */
    build_learned_ok(&s, p, 2, NULL, T0 + 100);
    j = job_named(&s, "etl");
    assert_double_near(j->dag.tasks[task_idx(j, "a")].runtime_s, DS_DEFAULT_RUNTIME_S, 0);
    ds_jobset_free(&s);

    /* The key of an Argo fan-out item: its family and the task without the item suffix. */
    char key[DS_RT_KEY_MAX];
    ds_job wj = {.ns = "wf", .name = "batch-x7k", .workflow = "batch-x7k", .family = "batch-"};
    assert_true(ds_jobset_runtime_key(&wj, "crunch(3:3)", key, sizeof key));
    assert_string_equal(key, "wf/batch-/crunch");
    wj.family = NULL;
    assert_true(ds_jobset_runtime_key(&wj, "split", key, sizeof key));
    assert_string_equal(key, "wf/batch-x7k/split");
    ds_job aj = {.ns = "wf", .name = "etl"}; /* not Argo: the name is kept whole */
    assert_true(ds_jobset_runtime_key(&aj, "x(1)", key, sizeof key));
    assert_string_equal(key, "wf/etl/x(1)");
    ds_rt_history_free(&h);
}

/* dagsched.io/runtime and deadline-after are bounded by 8760h (one year): up to it the job is
 * valid, beyond it invalid with a message naming the annotation and the limit. */
static void test_duration_annotations_bounded(void **state)
{
    (void)state;
    ds_pod_obs p[4];
    p[0] = mkpod("max-a", "max", "a", NULL, "8760h");
    p[0].deadline_after = "8760h";
    p[1] = mkpod("longrt-a", "longrt", "a", NULL, "1000000h");
    p[2] = mkpod("longdl-a", "longdl", "a", NULL, "1m");
    p[2].deadline_after = "8760h1s";
    p[3] = mkpod("hugert-a", "hugert", "a", NULL, "9999999999999999999h");
    ds_jobset s;
    build_ok(&s, p, 4, NULL, 0, T0);
    const ds_job *j = job_named(&s, "max");
    assert_true(j->valid);
    assert_double_near(j->dag.tasks[task_idx(j, "a")].runtime_s, 8760.0 * 3600.0, 0);
    j = job_named(&s, "longrt");
    assert_false(j->valid);
    assert_string_equal(j->error, "pod \"longrt-a\": annotation dagsched.io/runtime: "
                                  "\"1000000h\" exceeds the limit 8760h");
    j = job_named(&s, "longdl");
    assert_false(j->valid);
    assert_string_equal(j->error, "pod \"longdl-a\": annotation dagsched.io/deadline-after: "
                                  "\"8760h1s\" exceeds the limit 8760h");
    j = job_named(&s, "hugert");
    assert_false(j->valid);
    assert_non_null(strstr(j->error, "annotation dagsched.io/runtime: "));
    ds_jobset_free(&s);
}

static void test_deadlines_from_annotations(void **state)
{
    (void)state;
    ds_pod_obs p[7];
    /* Absolute: every pod that states a deadline agrees; c states none. */
    diamond(p, "abs");
    p[PA].deadline = DEADLINE_TEXT;
    p[PB].deadline = DEADLINE_TEXT;
    p[PD].deadline = "2026-11-22T11:00:00+01:00"; /* the same instant */
    /* Relative to the earliest pod creation (T0 - 30); an absolute one at the same instant
     * (T0 - 30 + 600 = 2026-11-18T11:16:10Z) agrees. */
    p[4] = mkpod("x-1", "rel", "x", NULL, "1m");
    p[4].created_at = T0 - 30;
    p[4].deadline_after = "10m";
    p[5] = mkpod("y-1", "rel", "y", "x", "1m");
    p[5].deadline_after = "600s";
    p[6] = mkpod("z-1", "rel", "z", "y", "1m");
    p[6].deadline = "2026-11-18T11:16:10Z";
    set_running(&p[4], T0 - 10, 1.0);
    ds_jobset s;
    build_ok(&s, p, 7, NULL, 0, T0 + 1);

    const ds_job *j = job_named(&s, "abs");
    assert_true(j->valid);
    assert_double_near(j->deadline, DEADLINE_EPOCH, 0);
    /* Level deadlines: L3 = D; L2 = D - 90 (longest at level 3); L1 = L2 - 120 (longest at 2). */
    assert_double_near(j->level_deadline[3], DEADLINE_EPOCH, 0);
    assert_double_near(j->level_deadline[2], DEADLINE_EPOCH - 90, 0);
    assert_double_near(j->level_deadline[1], DEADLINE_EPOCH - 210, 0);
    assert_double_near(j->eval[task_idx(j, "a")].level_deadline, DEADLINE_EPOCH - 210, 0);
    assert_double_near(j->eval[task_idx(j, "c")].level_deadline, DEADLINE_EPOCH - 90, 0);
    assert_double_near(j->eval[task_idx(j, "d")].level_deadline, DEADLINE_EPOCH, 0);
    /* a waits: t_allow = level deadline - now - runtime. */
    assert_double_near(j->eval[task_idx(j, "a")].t_allow_s, DEADLINE_EPOCH - 210 - (T0 + 1) - 60,
                       1e-6);

    j = job_named(&s, "rel");
    assert_true(j->valid);
    assert_double_near(j->created_at, T0 - 30, 0);
    assert_double_near(j->deadline, T0 + 570, 0);
    assert_double_near(j->level_deadline[1], T0 + 570 - 120, 0);
    /* x runs since T0 - 10: 60 - 11 = 49 s left; its slack is finite like a waiting task's:
     * (T0 + 450) - (T0 + 1) - 49 = 400. */
    assert_int_equal(state_of(j, "x"), DS_TASK_RUNNING);
    assert_double_near(j->eval[task_idx(j, "x")].t_rem_s, 49, 1e-9);
    assert_double_near(j->eval[task_idx(j, "x")].t_allow_s, 400, 1e-9);
    ds_jobset_free(&s);
}

static void test_invalid_jobs_are_isolated(void **state)
{
    (void)state;
    ds_pod_obs p[16];
    size_t n = 0;
    /* A valid job, with one pod lacking its task label. */
    p[n++] = mkpod("good-1", "good", "g1", NULL, "1m");
    p[n++] = mkpod("good-2", "good", "g2", "g1", "1m");
    p[n++] = mkpod("good-x", "good", NULL, NULL, "1m");
    /* A cycle. */
    p[n++] = mkpod("cyc-a", "cyc", "a", "b", "1m");
    p[n++] = mkpod("cyc-b", "cyc", "b", "a", "1m");
    /* (An upstream task without a pod is no error: test_jobmodel_order.c.) */
    /* Conflicting deadlines. */
    p[n] = mkpod("conf-a", "conf", "a", NULL, "1m");
    p[n++].deadline = DEADLINE_TEXT;
    p[n] = mkpod("conf-b", "conf", "b", "a", "1m");
    p[n++].deadline_after = "10m";
    /* Both deadline annotations on one pod. */
    p[n] = mkpod("both-a", "both", "a", NULL, "1m");
    p[n].deadline = DEADLINE_TEXT;
    p[n++].deadline_after = "10m";
    /* A malformed runtime, a malformed depends-on. */
    p[n++] = mkpod("badrt-a", "badrt", "a", NULL, "3x");
    p[n++] = mkpod("baddeps-a", "baddeps", "a", "a,,b", "1m");
    /* Pods of a job of which none has a task label. */
    p[n++] = mkpod("notask-1", "notask", NULL, NULL, "1m");
    /* An unusable job name. */
    p[n++] = mkpod("badname", "Bad Job", "a", NULL, "1m");
    ds_jobset s;
    build_ok(&s, p, n, NULL, 0, T0 + 1);

    const ds_job *good = job_named(&s, "good");
    assert_true(good->valid);
    assert_int_equal(good->dag.n, 2);
    assert_int_equal(good->n_pods, 3);
    assert_int_equal(state_of(good, "g1"), DS_TASK_WAITING);
    assert_string_equal(pod_res(&s, "good-x")->error,
                        "missing label dagsched.io/task (the pod has label dagsched.io/job=good)");
    assert_null(pod_res(&s, "good-1")->error);

    struct {
        const char *job, *msg;
    } bad[] = {
        {"cyc", "dependency cycle: a -> b -> a"},
        {"conf", "conflicting deadlines: pod \"conf-a\" has dagsched.io/deadline "
                 "\"2026-11-22T10:00:00Z\" but pod \"conf-b\" has dagsched.io/deadline-after "
                 "\"10m\""},
        {"both", "pod \"both-a\": annotations dagsched.io/deadline and dagsched.io/deadline-after "
                 "are both set; use one"},
        {"badrt", "pod \"badrt-a\": annotation dagsched.io/runtime: duration \"3x\": unknown unit "
                  "\"x\" (use ns, us, ms, s, m or h)"},
        {"baddeps", "pod \"baddeps-a\": annotation dagsched.io/depends-on: entry 2 is empty (got "
                    "\"a,,b\")"},
        {"notask", "no pod of the job has a dagsched.io/task label"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const ds_job *j = job_named(&s, bad[k].job);
        assert_false(j->valid);
        assert_string_equal(j->error, bad[k].msg);
        assert_int_equal(j->dag.n, 0);
        assert_null(j->status);
        assert_true(j->n_pods >= 1);
        /* Its pods still point at it (so a caller can post an Event), without a task. */
        for (size_t m = 0; m < j->n_pods; m++) {
            assert_int_equal(s.pods[j->pods[m]].job, (size_t)(j - s.jobs));
            assert_int_equal(s.pods[j->pods[m]].task, DS_NONE);
        }
        assert_int_equal(ds_job_pending_upstream(j, 0, NULL, 0), 0);
        assert_double_near(ds_jobset_wait_rank(&s, j, 0), -1.0, 0);
    }
    assert_string_equal(pod_res(&s, "badname")->error,
                        "label dagsched.io/job: job name must be 1 to 63 letters, digits, '-', "
                        "'_' or '.', beginning and ending with a letter or digit (got \"Bad "
                        "Job\")");
    assert_int_equal(pod_res(&s, "badname")->job, DS_NONE);
    assert_int_equal(s.n_jobs, 7);
    /* Only the valid job's waiting task counts. */
    assert_int_equal(s.n_waiting, 1);
    assert_double_near(ds_jobset_wait_rank(&s, good, task_idx(good, "g1")), 1.0, 0);
    ds_jobset_free(&s);
}

static void test_pending_upstream_format(void **state)
{
    (void)state;
    ds_pod_obs p[5];
    p[0] = mkpod("alpha", "j", "alpha", NULL, "1m");
    p[1] = mkpod("beta", "j", "beta", NULL, "1m");
    p[2] = mkpod("gamma", "j", "gamma", NULL, "1m");
    p[3] = mkpod("delta", "j", "delta", NULL, "1m");
    p[4] = mkpod("z", "j", "z", "alpha, beta, gamma, delta", "1m");
    set_done(&p[2], DS_PHASE_SUCCEEDED, T0);
    ds_jobset s;
    build_ok(&s, p, 5, NULL, 0, T0 + 1);
    const ds_job *j = job_named(&s, "j");
    size_t z = task_idx(j, "z");
    char buf[64];
    /* In the order of the annotation, gamma (succeeded) left out. */
    assert_int_equal(ds_job_pending_upstream(j, z, buf, sizeof buf), 3);
    assert_string_equal(buf, "alpha, beta, delta");
    /* When they do not all fit: as many as fit, then how many more. */
    assert_int_equal(ds_job_pending_upstream(j, z, buf, 20), 3);
    assert_string_equal(buf, "alpha and 2 more");
    /* Exactly enough room (16 characters and the terminator). A name is written only when the
     * "and N more" that may follow it fits too: "alpha, beta and 1 more" needs 23 bytes, so 22
     * stops after alpha, 23 gives the full list (the last name needs no "more"). */
    assert_int_equal(ds_job_pending_upstream(j, z, buf, 17), 3);
    assert_string_equal(buf, "alpha and 2 more");
    assert_int_equal(ds_job_pending_upstream(j, z, buf, 22), 3);
    assert_string_equal(buf, "alpha and 2 more");
    assert_int_equal(ds_job_pending_upstream(j, z, buf, 23), 3);
    assert_string_equal(buf, "alpha, beta, delta");
    assert_int_equal(ds_job_pending_upstream(j, z, buf, 8), 3);
    assert_string_equal(buf, "3 tasks");
    assert_int_equal(ds_job_pending_upstream(j, z, buf, 1), 3);
    assert_string_equal(buf, "");
    assert_int_equal(ds_job_pending_upstream(j, z, NULL, 0), 3);
    assert_int_equal(ds_job_pending_upstream(j, 99, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    ds_jobset_free(&s);
}

/* Details of the task states: unknown times are NaN; a succeeded upstream without a finish time
 * counts from its start, then from its creation; the state names; which pod represents a task. */
static void test_state_details(void **state)
{
    (void)state;
    ds_pod_obs p[4];
    diamond(p, "etl");
    ds_jobset s;
    build_ok(&s, p, 4, NULL, 0, T0 + 5);
    const ds_job *j = job_named(&s, "etl");
    assert_int_equal(state_of(j, "b"), DS_TASK_BLOCKED);
    assert_double_nan(j->status[task_idx(j, "b")].runnable_since);
    assert_double_nan(j->status[task_idx(j, "b")].started_at);
    assert_double_nan(j->status[task_idx(j, "a")].started_at); /* waiting */
    assert_double_near(ds_jobset_wait_rank(NULL, j, task_idx(j, "a")), -1.0, 0);
    assert_double_near(ds_jobset_wait_rank(&s, NULL, 0), -1.0, 0);
    ds_jobset_free(&s);

    /* a succeeded, finish time unknown, started at T0+30: b is runnable since T0+30. */
    p[PA].phase = DS_PHASE_SUCCEEDED;
    p[PA].bound = true;
    p[PA].started_at = T0 + 30;
    build_ok(&s, p, 4, NULL, 0, T0 + 100);
    j = job_named(&s, "etl");
    assert_int_equal(state_of(j, "b"), DS_TASK_WAITING);
    assert_double_near(j->status[task_idx(j, "b")].runnable_since, T0 + 30, 0);
    ds_jobset_free(&s);

    const char *names[] = {"blocked", "waiting", "running", "succeeded", "failed"};
    const ds_task_state states[] = {DS_TASK_BLOCKED, DS_TASK_WAITING, DS_TASK_RUNNING,
                                    DS_TASK_SUCCEEDED, DS_TASK_FAILED};
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(ds_task_state_name(states[i]), names[i]);
    assert_string_equal(ds_task_state_name((ds_task_state)99), "unknown");

    /* Among live pods of a task the newest represents it, whatever the names (which only break
     * ties); an unknown creation time is the oldest. */
    ds_pod_obs older = mkpod("x-2", "etl", "x", NULL, "1m");
    ds_pod_obs newer = mkpod("x-1", "etl", "x", NULL, "1m");
    newer.created_at = T0 + 10;
    assert_true(ds_pod_obs_better(&newer, &older));
    assert_false(ds_pod_obs_better(&older, &newer));
    ds_pod_obs unknown = mkpod("x-9", "etl", "x", NULL, "1m");
    unknown.created_at = NAN;
    assert_true(ds_pod_obs_better(&older, &unknown));
    assert_false(ds_pod_obs_better(&unknown, &older));
}

static void test_bad_arguments(void **state)
{
    (void)state;
    ds_pod_obs p[1];
    p[0] = mkpod("a-1", "etl", "a", NULL, "1m");
    ds_priority_params pp;
    ds_priority_defaults(&pp);
    ds_jobset s;
    ds_err e = {{0}};
    assert_int_equal(ds_jobs_build(p, 1, NULL, 0, T0, NULL, &s, &e), -1);
    assert_string_equal(e.msg, "ds_jobs_build: missing input");
    assert_int_equal(s.n_jobs, 0);
    assert_int_equal(ds_jobs_build(NULL, 1, NULL, 0, T0, &pp, &s, &e), -1);
    assert_string_equal(e.msg, "ds_jobs_build: missing input");
    assert_int_equal(ds_jobs_build(p, 1, NULL, 0, NAN, &pp, &s, &e), -1);
    assert_string_equal(e.msg, "now: must be a finite time (got nan)");
    assert_int_equal(ds_jobs_build(p, DS_JOBSET_MAX_PODS + 1, NULL, 0, T0, &pp, &s, &e), -1);
    assert_string_equal(e.msg, "pods: too many (got 1000001, at most 1000000)");
    pp.gamma = 2;
    assert_int_equal(ds_jobs_build(p, 1, NULL, 0, T0, &pp, &s, &e), -1);
    assert_string_equal(e.msg, "job default/etl: priority.gamma: must be in (0, 1) (got 2)");
    assert_int_equal(s.n_jobs, 0);
    assert_null(s.jobs);
    ds_jobset_free(&s);
    /* Nothing observed: an empty set. */
    ds_priority_defaults(&pp);
    assert_int_equal(ds_jobs_build(NULL, 0, NULL, 0, T0, &pp, &s, &e), 0);
    assert_int_equal(s.n_jobs, 0);
    assert_int_equal(s.n_pods, 0);
    assert_null(ds_jobset_find_job(&s, NS, "etl"));
    assert_int_equal(ds_jobset_find_pod(&s, "a-1"), DS_NONE);
    ds_jobset_free(&s);
    ds_jobset_free(&s); /* freeing twice is harmless */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_levels_and_states_as_pods_progress),
        cmocka_unit_test(test_failed_upstream),
        cmocka_unit_test(test_duplicate_pods_per_task),
        cmocka_unit_test(test_argo_label_and_namespaces),
        cmocka_unit_test(test_default_runtime_warning),
        cmocka_unit_test(test_learned_runtimes),
        cmocka_unit_test(test_deadlines_from_annotations),
        cmocka_unit_test(test_duration_annotations_bounded),
        cmocka_unit_test(test_invalid_jobs_are_isolated),
        cmocka_unit_test(test_pending_upstream_format),
        cmocka_unit_test(test_state_details),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
