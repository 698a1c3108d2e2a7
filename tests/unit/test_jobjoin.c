/* test_jobjoin.c: ds_jobset_join against one build over the same pods: two jobs and a pod outside
 * any job built separately and joined give the same pod results, pod and job indexes, task pods
 * and job pod lists, and waiting tasks ranked across both jobs (not within each part). */
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

#define N_PODS 7

/* Job x: a (succeeded) -> b, c waiting; job y: a running -> b blocked, d waiting (5 minutes of
 * runtime, a lower priority than x's short tasks); and a pod outside any job. */
static void pods(ds_pod_obs p[N_PODS])
{
    p[0] = mkpod("x-a", "x", "a", NULL, "60s");
    set_done(&p[0], DS_PHASE_SUCCEEDED, T0 + 60);
    p[1] = mkpod("x-b", "x", "b", "a", "30s");
    p[2] = mkpod("x-c", "x", "c", "a", "2m");
    p[3] = mkpod("y-a", "y", "a", NULL, "60s");
    set_running(&p[3], T0 + 10, 1.0);
    p[4] = mkpod("y-b", "y", "b", "a", "60s");
    p[5] = mkpod("y-d", "y", "d", NULL, "5m");
    p[6] = mkpod("web", NULL, NULL, NULL, NULL);
}

static void test_join_equals_one_build(void **state)
{
    (void)state;
    ds_pod_obs p[N_PODS];
    pods(p);
    double now = T0 + 120;
    ds_jobset whole, parts[3], joined;
    build_ok(&whole, p, N_PODS, NULL, 0, now);
    build_ok(&parts[0], p, 3, NULL, 0, now);
    build_ok(&parts[1], p + 3, 3, NULL, 0, now);
    build_ok(&parts[2], p + 6, 1, NULL, 0, now);
    const ds_jobset *pp[] = {&parts[0], &parts[1], &parts[2]};
    ds_err err;
    assert_int_equal(ds_jobset_join(pp, 3, &joined, &err), 0);

    assert_int_equal(joined.n_pods, whole.n_pods);
    assert_int_equal(joined.n_jobs, whole.n_jobs);
    assert_int_equal(joined.n_waiting, whole.n_waiting);
    assert_int_equal(joined.n_waiting, 3);
    for (size_t i = 0; i < N_PODS; i++) {
        assert_int_equal(ds_jobset_find_pod(&joined, p[i].uid), i);
        assert_int_equal(joined.pods[i].job, whole.pods[i].job);
        assert_int_equal(joined.pods[i].task, whole.pods[i].task);
        assert_int_equal(joined.pods[i].primary, whole.pods[i].primary);
    }
    for (size_t j = 0; j < whole.n_jobs; j++) {
        const ds_job *a = &joined.jobs[j], *b = &whole.jobs[j];
        assert_string_equal(a->key, b->key);
        assert_ptr_equal(ds_jobset_find_job(&joined, a->ns, a->name), a);
        assert_int_equal(a->n_pods, b->n_pods);
        for (size_t k = 0; k < a->n_pods; k++)
            assert_int_equal(a->pods[k], b->pods[k]);
        for (size_t t = 0; t < a->dag.n; t++) {
            assert_int_equal(a->task_pod[t], b->task_pod[t]);
            assert_double_near(a->wait_rank[t], b->wait_rank[t], 0);
            assert_double_near(a->eval[t].priority, b->eval[t].priority, 0);
        }
    }
    /* Ranked across the jobs: y's d is not the highest waiting task any more, as it is in y alone.
     */
    const ds_job *yj = job_named(&joined, "y"), *y1 = job_named(&parts[1], "y");
    assert_double_near(y1->wait_rank[task_idx(y1, "d")], 1.0, 0);
    assert_true(yj->wait_rank[task_idx(yj, "d")] < 1.0);

    ds_jobset_free(&joined);
    for (int k = 0; k < 3; k++)
        ds_jobset_free(&parts[k]);
    ds_jobset_free(&whole);
}

static void test_join_nothing(void **state)
{
    (void)state;
    ds_jobset joined;
    ds_err err;
    assert_int_equal(ds_jobset_join(NULL, 0, &joined, &err), 0);
    assert_int_equal(joined.n_jobs, 0);
    assert_int_equal(joined.n_pods, 0);
    assert_int_equal(ds_jobset_find_pod(&joined, "x"), DS_NONE);
    ds_jobset_free(&joined);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_equals_one_build),
        cmocka_unit_test(test_join_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
