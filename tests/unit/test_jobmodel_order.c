/* test_jobmodel_order.c: unit tests of the job model on pods that arrive in any order: an upstream
 * task without a pod yet keeps its dependents blocked (never "not a DAG task"), a job whose
 * upstream pods never come says why once the grace period is over, and the pods of an invalid job
 * that may depend on other tasks must wait while its root tasks may run. */
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

static void expect_pending(const ds_job *j, const char *task, size_t n, const char *names)
{
    char buf[256];
    assert_int_equal(ds_job_pending_upstream(j, task_idx(j, task), buf, sizeof buf), n);
    assert_string_equal(buf, names);
}

static bool missing(const ds_job *j, const char *task)
{
    return j->missing != NULL && j->missing[task_idx(j, task)] != 0;
}

/* A 5-task chain whose pods arrive last first: at every step, no task is WAITING before its
 * upstream task has a pod that succeeded. */
static void test_chain_created_downstream_first(void **state)
{
    (void)state;
    ds_pod_obs p[5];
    p[0] = mkpod("c5-1", "chain", "c5", "c4", "10s");
    p[1] = mkpod("c4-1", "chain", "c4", "c3", "10s");
    p[2] = mkpod("c3-1", "chain", "c3", "c2", "10s");
    p[3] = mkpod("c2-1", "chain", "c2", "c1", "10s");
    p[4] = mkpod("c1-1", "chain", "c1", NULL, "10s");
    for (size_t have = 1; have <= 5; have++) {
        ds_jobset s;
        build_ok(&s, p, have, NULL, 0, T0 + 1);
        const ds_job *j = job_named(&s, "chain");
        assert_true(j->valid);
        assert_null(j->error);
        assert_null(j->stalled);
        /* Every task with a pod, plus the one upstream task that has none yet. */
        assert_int_equal(j->dag.n, have < 5 ? have + 1 : 5);
        for (size_t k = 0; k < have; k++) {
            const ds_pod_result *r = pod_res(&s, p[k].uid);
            assert_int_equal(r->job, (size_t)(j - s.jobs));
            assert_int_not_equal(r->task, DS_NONE);
            assert_null(r->error);
            assert_true(r->depends == (k < 4));
            assert_false(ds_jobset_pod_must_wait(&s, k));
            /* Only the chain's root may run. */
            assert_int_equal(j->status[r->task].state, k == 4 ? DS_TASK_WAITING : DS_TASK_BLOCKED);
        }
        if (have < 5) {
            char up[8], want[64];
            snprintf(up, sizeof up, "c%zu", 5 - have);
            assert_true(missing(j, up));
            assert_int_equal(j->task_pod[task_idx(j, up)], DS_NONE);
            assert_int_equal(state_of(j, up), DS_TASK_BLOCKED);
            snprintf(want, sizeof want, "%s (not created yet)", up);
            char down[8];
            snprintf(down, sizeof down, "c%zu", 6 - have);
            expect_pending(j, down, 1, want);
        } else {
            assert_null(j->missing);
            assert_int_equal(s.n_waiting, 1);
        }
        ds_jobset_free(&s);
    }
}

/* A fan-out f0 -> f1..f6 -> f7 whose join arrives first, then the middle, then the root. */
static void test_fan_out_created_downstream_first(void **state)
{
    (void)state;
    ds_pod_obs p[8];
    static const char *names[8] = {"f7", "f1", "f2", "f3", "f4", "f5", "f6", "f0"};
    static const char *uids[8] = {"f7-x", "f1-x", "f2-x", "f3-x", "f4-x", "f5-x", "f6-x", "f0-x"};
    p[0] = mkpod(uids[0], "fan", names[0], "f1,f2,f3,f4,f5,f6", "5s");
    for (int k = 1; k <= 6; k++)
        p[k] = mkpod(uids[k], "fan", names[k], "f0", "5s");
    p[7] = mkpod(uids[7], "fan", names[7], NULL, "5s");

    ds_jobset s;
    build_ok(&s, p, 1, NULL, 0, T0 + 1);
    const ds_job *j = job_named(&s, "fan");
    assert_true(j->valid);
    assert_int_equal(j->dag.n, 7);
    assert_int_equal(state_of(j, "f7"), DS_TASK_BLOCKED);
    expect_pending(j, "f7", 6,
                   "f1 (not created yet), f2 (not created yet), f3 (not created yet), f4 (not "
                   "created yet), f5 (not created yet), f6 (not created yet)");
    /* Tasks without pods are never waiting, so they are not ranked. */
    assert_int_equal(s.n_waiting, 0);
    ds_jobset_free(&s);

    build_ok(&s, p, 7, NULL, 0, T0 + 1);
    j = job_named(&s, "fan");
    assert_int_equal(j->dag.n, 8);
    assert_true(missing(j, "f0"));
    for (int k = 1; k <= 6; k++) {
        assert_int_equal(state_of(j, names[k]), DS_TASK_BLOCKED);
        expect_pending(j, names[k], 1, "f0 (not created yet)");
    }
    expect_pending(j, "f7", 6, "f1, f2, f3, f4, f5, f6");
    assert_int_equal(s.n_waiting, 0);
    ds_jobset_free(&s);

    /* The root's pod arrives and succeeds: the middle runs, the join still waits. */
    set_done(&p[7], DS_PHASE_SUCCEEDED, T0 + 6);
    build_ok(&s, p, 8, NULL, 0, T0 + 7);
    j = job_named(&s, "fan");
    assert_null(j->missing);
    for (int k = 1; k <= 6; k++)
        assert_int_equal(state_of(j, names[k]), DS_TASK_WAITING);
    assert_int_equal(state_of(j, "f7"), DS_TASK_BLOCKED);
    ds_jobset_free(&s);
}

/* An upstream task that never gets a pod: after the grace period the job says why it is stalled
 * (naming the earliest dependent), and its dependents still never run. */
static void test_missing_task_past_grace(void **state)
{
    (void)state;
    ds_pod_obs p[3];
    p[0] = mkpod("v1-1", "typo", "v1", NULL, "5s");
    p[1] = mkpod("v2-1", "typo", "v2", "v1, ghost", "5s");
    p[2] = mkpod("v3-1", "typo", "v3", "ghost, phantom", "5s");
    p[2].created_at = T0 + 30; /* named "ghost" later than v2 did */
    set_done(&p[0], DS_PHASE_SUCCEEDED, T0 + 5);

    ds_jobset s;
    build_ok(&s, p, 3, NULL, 0, T0 + DS_MISSING_TASK_GRACE_S - 1);
    const ds_job *j = job_named(&s, "typo");
    assert_true(j->valid);
    assert_null(j->stalled);
    assert_int_equal(state_of(j, "v2"), DS_TASK_BLOCKED);
    expect_pending(j, "v2", 1, "ghost (not created yet)");
    ds_jobset_free(&s);

    build_ok(&s, p, 3, NULL, 0, T0 + DS_MISSING_TASK_GRACE_S);
    j = job_named(&s, "typo");
    assert_true(j->valid);
    assert_non_null(j->stalled);
    assert_string_equal(j->stalled,
                        "task \"v2\" depends on task \"ghost\", which no pod of the job carries "
                        "(label dagsched.io/task) after 2m0s: \"v2\" and the tasks after it will "
                        "not run until a pod of task \"ghost\" is created or the dependency is "
                        "removed");
    assert_int_equal(state_of(j, "v2"), DS_TASK_BLOCKED);
    assert_int_equal(state_of(j, "v3"), DS_TASK_BLOCKED);
    ds_jobset_free(&s);

    /* Both missing tasks late: the message counts the others. */
    build_ok(&s, p, 3, NULL, 0, T0 + 30 + DS_MISSING_TASK_GRACE_S);
    j = job_named(&s, "typo");
    assert_non_null(strstr(j->stalled, "(and 1 more such tasks)"));
    ds_jobset_free(&s);

    /* Unknown creation times cannot start a grace period: stalled at once. */
    p[1].created_at = NAN;
    p[2].created_at = NAN;
    build_ok(&s, p, 3, NULL, 0, T0 + 1);
    assert_non_null(job_named(&s, "typo")->stalled);
    ds_jobset_free(&s);
}

/* A succeeded upstream pod deleted (ttlSecondsAfterFinished) leaves a task without a pod: its
 * dependents wait instead of running outside the DAG. */
static void test_deleted_upstream_pod_blocks(void **state)
{
    (void)state;
    ds_pod_obs p[1];
    p[0] = mkpod("load-1", "etl", "load", "extract", "5s");
    ds_jobset s;
    build_ok(&s, p, 1, NULL, 0, T0 + 1);
    const ds_job *j = job_named(&s, "etl");
    assert_true(j->valid);
    assert_int_equal(state_of(j, "load"), DS_TASK_BLOCKED);
    assert_false(ds_jobset_pod_must_wait(&s, 0));
    ds_jobset_free(&s);
}

/* Invalid graphs: every pod keeps its job; pods that may depend on other tasks must wait, roots
 * may run. */
static void test_invalid_jobs_hold_dependents(void **state)
{
    (void)state;
    ds_pod_obs p[16];
    size_t n = 0;
    p[n++] = mkpod("cyc-a", "cyc", "a", "b", "1m");   /* 0 */
    p[n++] = mkpod("cyc-b", "cyc", "b", "a", "1m");   /* 1 */
    p[n++] = mkpod("cyc-r", "cyc", "r", NULL, "1m");  /* 2: a root of the cyclic job */
    p[n++] = mkpod("self-a", "self", "a", "a", "1m"); /* 3 */
    p[n] = mkpod("conf-a", "conf", "a", " ", "1m");   /* 4: blank depends-on, a root */
    p[n++].deadline = "2026-11-22T10:00:00Z";
    p[n] = mkpod("conf-b", "conf", "b", "a", "1m"); /* 5 */
    p[n++].deadline_after = "10m";
    p[n++] = mkpod("bad-a", "bad", "a", "a,,b", "1m");   /* 6: malformed depends-on */
    p[n++] = mkpod("bad-r", "bad", "r", NULL, "1m");     /* 7 */
    p[n++] = mkpod("notask", "nt", NULL, "up", "1m");    /* 8: a pod error, but depends */
    p[n++] = mkpod("notask-r", "nt2", NULL, NULL, "1m"); /* 9: a pod error, no dependency */
    p[n++] = mkpod("plain", NULL, NULL, "x", "1m");      /* 10: no job at all */
    ds_jobset s;
    build_ok(&s, p, n, NULL, 0, T0 + 1);
    assert_false(job_named(&s, "cyc")->valid);
    assert_false(job_named(&s, "self")->valid);
    assert_false(job_named(&s, "conf")->valid);
    assert_false(job_named(&s, "bad")->valid);
    bool want[11] = {true, true, false, true, false, true, true, false, true, false, false};
    for (size_t i = 0; i < n; i++) {
        if (ds_jobset_pod_must_wait(&s, i) != want[i])
            fail_msg("pod %s: must_wait %d, want %d", p[i].name, !want[i], want[i]);
    }
    assert_false(ds_jobset_pod_must_wait(&s, n));
    assert_false(ds_jobset_pod_must_wait(NULL, 0));
    ds_jobset_free(&s);
}

/* A job declared by a broken JobGraph: none of its pods may run (the graph may give any of them
 * upstream tasks); declared by a valid one, a pod the graph does not list has no dependency. */
static void test_invalid_graph_holds_every_pod(void **state)
{
    (void)state;
    const char *cyc = GRAPH_HEAD "metadata: {name: cyc}\nspec:\n  tasks:\n"
                                 "    - {name: a, runtime: 1s, dependsOn: [b]}\n"
                                 "    - {name: b, runtime: 1s, dependsOn: [a]}\n";
    const char *ok = GRAPH_HEAD "metadata: {name: ok}\nspec:\n  tasks:\n"
                                "    - {name: a, runtime: 1s}\n";
    ds_graph_obs g[2] = {{NS, "cyc-graph", cyc, strlen(cyc), T0},
                         {NS, "ok-graph", ok, strlen(ok), T0}};
    ds_pod_obs p[3];
    p[0] = mkpod("cyc-a", "cyc", "a", NULL, NULL);
    p[1] = mkpod("ok-a", "ok", "a", NULL, NULL);
    p[2] = mkpod("ok-z", "ok", "z", NULL, NULL);
    ds_jobset s;
    build_ok(&s, p, 3, g, 2, T0 + 1);
    assert_false(job_named(&s, "cyc")->valid);
    assert_true(ds_jobset_pod_must_wait(&s, 0));
    assert_false(ds_jobset_pod_must_wait(&s, 1));
    assert_non_null(pod_res(&s, "ok-z")->error);
    assert_false(ds_jobset_pod_must_wait(&s, 2));
    ds_jobset_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_created_downstream_first),
        cmocka_unit_test(test_fan_out_created_downstream_first),
        cmocka_unit_test(test_missing_task_past_grace),
        cmocka_unit_test(test_deleted_upstream_pod_blocks),
        cmocka_unit_test(test_invalid_jobs_hold_dependents),
        cmocka_unit_test(test_invalid_graph_holds_every_pod),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
