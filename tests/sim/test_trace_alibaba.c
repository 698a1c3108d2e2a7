/* test_trace_alibaba.c: the Alibaba cluster-trace-v2018 batch_task.csv loader on a small file
 * made for the purpose (tests/sim/data/batch_task_small.csv): task-name dependency encoding,
 * column mapping, skipped jobs, dropped edges, instance expansion, errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "trace_alibaba.h"

#define DATA "tests/sim/data/batch_task_small.csv"

static void test_names(void **state)
{
    (void)state;
    long id, deps[4];
    size_t n;
    assert_int_equal(sim_alibaba_parse_name("M1", &id, deps, 4, &n), 1);
    assert_int_equal(id, 1);
    assert_int_equal(n, 0);
    assert_int_equal(sim_alibaba_parse_name("R2_1", &id, deps, 4, &n), 1);
    assert_int_equal(id, 2);
    assert_int_equal(n, 1);
    assert_int_equal(deps[0], 1);
    assert_int_equal(sim_alibaba_parse_name("J3_1_2", &id, deps, 4, &n), 1);
    assert_int_equal(id, 3);
    assert_int_equal(n, 2);
    assert_int_equal(deps[1], 2);
    assert_int_equal(sim_alibaba_parse_name("R12_10_11", &id, deps, 4, &n), 1);
    assert_int_equal(id, 12);
    assert_int_equal(deps[0], 10);
    /* independent tasks */
    assert_int_equal(sim_alibaba_parse_name("task_Nzg3ODA=", &id, deps, 4, &n), 0);
    assert_int_equal(sim_alibaba_parse_name("MergeTask", &id, deps, 4, &n), 0);
    assert_int_equal(sim_alibaba_parse_name("M1_Stg2", &id, deps, 4, &n), 0);
    assert_int_equal(sim_alibaba_parse_name("m1", &id, deps, 4, &n), 0);
    assert_int_equal(sim_alibaba_parse_name("R", &id, deps, 4, &n), 0);
    assert_int_equal(sim_alibaba_parse_name("R2_", &id, deps, 4, &n), 0);
    assert_int_equal(sim_alibaba_parse_name("R99999999999999999999", &id, deps, 4, &n), 0);
    /* too many dependencies */
    assert_int_equal(sim_alibaba_parse_name("J9_1_2_3_4_5", &id, deps, 4, &n), -1);
}

static const sim_job_def *find_job(const sim_workload *w, const char *name)
{
    for (size_t j = 0; j < w->n_jobs; j++)
        if (strcmp(w->jobs[j].name, name) == 0)
            return &w->jobs[j];
    return NULL;
}

static void test_load(void **state)
{
    (void)state;
    sim_alibaba_params p;
    sim_alibaba_defaults(&p);
    sim_workload w = {0};
    sim_alibaba_stats st;
    ds_err err = {{0}};
    if (sim_alibaba_load(DATA, &p, &w, &st, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(st.lines, 12);
    assert_int_equal(st.jobs, 4);
    assert_int_equal(st.skipped_jobs, 3);  /* j_3 running, j_5 no plan_cpu, j_6 cycle */
    assert_int_equal(st.dropped_edges, 1); /* R2_1_7: no task 7 in j_4 */
    assert_int_equal(st.tasks, 8);
    assert_int_equal(st.pods, 8);
    assert_int_equal(w.n_jobs, 4);
    /* sorted by first start, relative to the first job (j_2 at 90) */
    assert_string_equal(w.jobs[0].name, "j_2");
    assert_string_equal(w.jobs[1].name, "j_1");
    assert_string_equal(w.jobs[2].name, "j_4");
    assert_string_equal(w.jobs[3].name, "j_7");
    assert_double_near(w.jobs[0].arrival_s, 0, 1e-12);
    assert_double_near(w.jobs[1].arrival_s, 10, 1e-12);
    assert_double_near(w.jobs[2].arrival_s, 310, 1e-12);
    assert_double_near(w.jobs[3].arrival_s, 710, 1e-12);

    const sim_job_def *j1 = find_job(&w, "j_1");
    assert_non_null(j1);
    assert_int_equal(j1->n_tasks, 3);
    assert_string_equal(j1->tasks[0].name, "M1");
    assert_double_near(j1->tasks[0].runtime_s, 60, 1e-12);
    assert_int_equal(j1->tasks[0].request.v[DS_RES_CPU], 1000); /* plan_cpu 100 = 1 core */
    assert_int_equal(j1->tasks[1].request.v[DS_RES_CPU], 500);
    int64_t mem = (int64_t)ceil(0.39 / 100.0 * p.machine_memory_bytes);
    assert_int_equal(j1->tasks[0].request.v[DS_RES_MEMORY], mem);
    assert_int_equal(j1->tasks[0].n_up, 0);
    assert_int_equal(j1->tasks[1].n_up, 1);
    assert_int_equal(j1->tasks[1].up[0], 0);
    assert_int_equal(j1->tasks[2].n_up, 2);
    assert_int_equal(j1->tasks[2].up[0], 0);
    assert_int_equal(j1->tasks[2].up[1], 1);
    assert_double_inf(j1->deadline_s, 1);
    assert_true(j1->deadline_factor >= p.deadline_factor_min &&
                j1->deadline_factor <= p.deadline_factor_max);

    const sim_job_def *j4 = find_job(&w, "j_4");
    assert_int_equal(j4->n_tasks, 2);
    assert_double_near(j4->tasks[1].runtime_s, 1, 1e-12); /* end == start: at least 1 s */
    assert_int_equal(j4->tasks[1].n_up, 1);               /* the edge to task 7 is dropped */

    const sim_job_def *j7 = find_job(&w, "j_7");
    assert_int_equal(j7->n_tasks, 2); /* "M1_Stg2" is an independent task beside "M1" */
    assert_int_equal(j7->tasks[0].n_up + j7->tasks[1].n_up, 0);

    /* the loaded trace runs: J3 of j_1 cannot start before M1 and R2_1 are done */
    assert_int_equal(sim_nodes_parse("2x96:512Gi", &w.nodes, &w.n_nodes, &err), 0);
    assert_int_equal(sim_workload_validate(&w, &err), 0);
    sim_config c;
    sim_config_defaults(&c, sim_policy_find("dagsched"));
    c.release_latency_s = 0; /* test_release.c covers the latency */
    sim_result r;
    if (sim_run(&w, &c, &r, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(r.disorders, 0);
    /* j_1 arrives at 10: 60 + 30 + 50 s on speed-1 nodes */
    assert_double_near(r.jobs[1].completion, 150, 1e-9);
    sim_result_free(&r);
    sim_workload_free(&w);
}

static void test_instances(void **state)
{
    (void)state;
    sim_alibaba_params p;
    sim_alibaba_defaults(&p);
    p.max_instances = 3;
    sim_workload w = {0};
    sim_alibaba_stats st;
    ds_err err = {{0}};
    assert_int_equal(sim_alibaba_load(DATA, &p, &w, &st, &err), 0);
    assert_int_equal(st.pods, 13); /* j_2 1, j_1 3+3+1, j_4 1+2, j_7 2 */
    const sim_job_def *j1 = find_job(&w, "j_1");
    assert_int_equal(j1->n_tasks, 7);
    assert_string_equal(j1->tasks[0].name, "M1.0");
    assert_string_equal(j1->tasks[5].name, "R2_1.2");
    assert_string_equal(j1->tasks[6].name, "J3_1_2");
    assert_int_equal(j1->tasks[3].n_up, 3); /* every R2_1 pod waits for every M1 pod */
    assert_int_equal(j1->tasks[6].n_up, 6);
    sim_workload_free(&w);
}

static void test_errors(void **state)
{
    (void)state;
    sim_alibaba_params p;
    sim_alibaba_defaults(&p);
    sim_workload w = {0};
    sim_alibaba_stats st;
    ds_err err = {{0}};
    assert_int_equal(sim_alibaba_load("tests/sim/data/absent.csv", &p, &w, &st, &err), -1);
    assert_string_equal(err.msg,
                        "tests/sim/data/absent.csv: cannot open: No such file or directory");
    const char *path = "build/test_trace_bad.csv";
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("task_name,instance_num,job_name,task_type,status,start_time,end_time,plan_cpu,"
          "plan_mem\nM1,1,j_1,1,Terminated,1,2,100\n",
          f);
    fclose(f);
    assert_int_equal(sim_alibaba_load(path, &p, &w, &st, &err), -1);
    assert_string_equal(err.msg, "build/test_trace_bad.csv: line 2: expected 9 columns "
                                 "(task_name, instance_num, job_name, task_type, status, "
                                 "start_time, end_time, plan_cpu, plan_mem), got 8");
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("M1,1,j_1,1,Failed,1,2,100,1\n", f);
    fclose(f);
    assert_int_equal(sim_alibaba_load(path, &p, &w, &st, &err), -1);
    assert_string_equal(err.msg,
                        "build/test_trace_bad.csv: no usable job (1 lines, 1 jobs skipped)");
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_instances),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
