/* test_workload_file.c: the Workload YAML format: fields and defaults, errors with field paths,
 * and a round trip of a generated workload through the writer and the reader. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "workload_file.h"
#include "workload_gen.h"

static const char good[] = "apiVersion: dagsched.io/v1alpha1\n"
                           "kind: Workload\n"
                           "metadata: {name: sample}\n"
                           "spec:\n"
                           "  nodes:\n"
                           "  - {name: fast, count: 2, cpu: \"16\", memory: 64Gi, speed: 1.5}\n"
                           "  - {cpu: 8, memory: 32Gi, gpu: 1}\n"
                           "  jobs:\n"
                           "  - name: late\n"
                           "    arrival: 1m\n"
                           "    deadlineFactor: 2\n"
                           "    release: upfront\n"
                           "    tasks:\n"
                           "    - {name: only, runtime: 1m30s, cpu: 500m, memory: 1Gi}\n"
                           "  - name: etl\n"
                           "    namespace: team-a\n"
                           "    arrival: 0s\n"
                           "    priority: 100\n"
                           "    deadline: 30m\n"
                           "    checkpoint: true\n"
                           "    tasks:\n"
                           "    - {name: extract, runtime: 90s, cpu: 500m, memory: 1Gi}\n"
                           "    - name: transform\n"
                           "      runtime: 2m\n"
                           "      cpu: \"2\"\n"
                           "      memory: 4Gi\n"
                           "      dependsOn: [extract]\n"
                           "      checkpoint: false\n"
                           "    - {name: load, runtime: 30s, cpu: 250m, memory: 512Mi, "
                           "dependsOn: [transform, extract]}\n";

/* w written to path and read back into *back (zeroed first); the file is removed. */
static void write_and_load(const sim_workload *w, const char *path, sim_workload *back)
{
    ds_err err = {{0}};
    memset(back, 0, sizeof *back);
    if (sim_workload_write(path, w, &err) != 0 || sim_workload_load(path, back, &err) != 0)
        fail_msg("%s", err.msg);
    remove(path);
}

static void test_parse(void **state)
{
    (void)state;
    sim_workload w = {0};
    ds_err err = {{0}};
    if (sim_workload_parse(good, strlen(good), &w, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(w.name, "sample");
    assert_int_equal(w.n_nodes, 3);
    assert_string_equal(w.nodes[0].name, "fast-0");
    assert_string_equal(w.nodes[1].name, "fast-1");
    assert_string_equal(w.nodes[2].name, "node-2");
    assert_int_equal(w.nodes[0].allocatable.v[DS_RES_CPU], 16000);
    assert_true(w.nodes[1].speed == 1.5 && w.nodes[2].speed == 0);
    assert_int_equal(w.nodes[2].allocatable.v[DS_RES_GPU], 1);
    assert_int_equal(w.n_jobs, 2);
    /* sorted by arrival */
    const sim_job_def *etl = &w.jobs[0];
    assert_string_equal(etl->name, "etl");
    assert_string_equal(etl->ns, "team-a");
    assert_int_equal(etl->priority, 100);
    assert_double_near(etl->deadline_s, 1800, 1e-9);
    assert_int_equal(etl->release, SIM_RELEASE_ON_UPSTREAM);
    assert_int_equal(etl->n_tasks, 3);
    assert_double_near(etl->tasks[0].runtime_s, 90, 1e-9);
    assert_true(etl->tasks[0].checkpoint);  /* job default */
    assert_false(etl->tasks[1].checkpoint); /* task override */
    assert_int_equal(etl->tasks[1].request.v[DS_RES_MEMORY], 4LL << 30);
    assert_int_equal(etl->tasks[2].n_up, 2);
    assert_int_equal(etl->tasks[2].up[0], 1);
    assert_int_equal(etl->tasks[2].up[1], 0);
    const sim_job_def *late = &w.jobs[1];
    assert_double_near(late->arrival_s, 60, 1e-9);
    assert_double_inf(late->deadline_s, 1);
    assert_double_near(late->deadline_factor, 2, 1e-12);
    assert_int_equal(late->release, SIM_RELEASE_UPFRONT);
    assert_null(late->ns); /* the default namespace */
    assert_int_equal(sim_workload_validate(&w, &err), 0);
    /* The namespace is written back; a job without one gets none. */
    sim_workload back;
    write_and_load(&w, "build/test_workload_namespace.yaml", &back);
    assert_string_equal(back.jobs[0].ns, "team-a");
    assert_null(back.jobs[1].ns);
    sim_workload_free(&back);
    sim_workload_free(&w);
}

static void expect_error(const char *doc, const char *msg)
{
    sim_workload w = {0};
    ds_err err = {{0}};
    assert_int_equal(sim_workload_parse(doc, strlen(doc), &w, &err), -1);
    assert_string_equal(err.msg, msg);
    assert_int_equal(w.n_jobs, 0);
}

#define HEAD "apiVersion: dagsched.io/v1alpha1\nkind: Workload\nspec:\n  jobs:\n  - name: j\n"

static void test_errors(void **state)
{
    (void)state;
    expect_error("apiVersion: v1\nkind: Workload\nspec: {}\n",
                 "apiVersion: must be dagsched.io/v1alpha1 (got \"v1\")");
    expect_error(HEAD "    tasks:\n    - {name: a, runtime: 10s, colour: red}\n",
                 "spec.jobs[0].tasks[0]: unknown field \"colour\"");
    expect_error(HEAD "    tasks:\n    - {name: a, runtime: ten}\n",
                 "spec.jobs[0].tasks[0].runtime: duration \"ten\": expected a number at offset 0, "
                 "found 't'");
    expect_error(HEAD "    tasks:\n    - {name: a, runtime: 1s, dependsOn: [b]}\n",
                 "spec.jobs[0].tasks[0].dependsOn: unknown task \"b\"");
    expect_error(HEAD "    tasks:\n    - {name: a, runtime: 1s, dependsOn: [b]}\n"
                      "    - {name: b, runtime: 1s, dependsOn: [a]}\n",
                 "spec.jobs[0]: job \"j\": dependency cycle: a -> b -> a");
    expect_error(HEAD "    tasks:\n    - {name: a, runtime: 1s}\n    - {name: a, runtime: 1s}\n",
                 "spec.jobs[0].tasks[1].name: duplicate task name \"a\"");
    expect_error(HEAD "    release: later\n    tasks:\n    - {name: a, runtime: 1s}\n",
                 "spec.jobs[0].release: must be onUpstream or upfront (got \"later\")");
    expect_error(HEAD "    deadline: 1m\n    deadlineFactor: 2\n    tasks:\n"
                      "    - {name: a, runtime: 1s}\n",
                 "spec.jobs[0]: deadline and deadlineFactor are mutually exclusive");
    expect_error(HEAD "    tasks: []\n", "spec.jobs[0]: tasks must be a non-empty list");
    expect_error(HEAD "    namespace: Team-A\n    tasks:\n    - {name: a, runtime: 1s}\n",
                 "spec.jobs[0].namespace: must be a lowercase RFC 1123 label: at most 63 "
                 "characters of a-z, 0-9 and '-', starting and ending with an alphanumeric "
                 "character (got \"Team-A\")");
    expect_error(
        HEAD "    tasks:\n    - {name: a, runtime: 1s, cpu: lots}\n",
        "spec.jobs[0].tasks[0].cpu: quantity \"lots\": unexpected 'l' at offset 0 (expected "
        "e.g. \"100m\", \"1.5\", \"2Gi\" or \"1e3\")");
}

/* Gangs: both fields or neither, a valid name, a size from 1 to 1000 that the tasks naming the
 * gang all declare and match; written out and read back. */
static void test_gang(void **state)
{
    (void)state;
    const char *doc = "apiVersion: dagsched.io/v1alpha1\nkind: Workload\nspec:\n"
                      "  nodes:\n  - {cpu: 8, memory: 32Gi}\n  jobs:\n  - name: j\n"
                      "    tasks:\n"
                      "    - {name: a, runtime: 1s, gang: w, gangSize: 2}\n"
                      "    - {name: b, runtime: 1s, gang: w, gangSize: 2}\n"
                      "    - {name: c, runtime: 1s, dependsOn: [a, b]}\n";
    sim_workload w = {0};
    ds_err err = {{0}};
    assert_int_equal(sim_workload_parse(doc, strlen(doc), &w, &err), 0);
    assert_string_equal(w.jobs[0].tasks[1].gang, "w");
    assert_int_equal(w.jobs[0].tasks[1].gang_size, 2);
    assert_null(w.jobs[0].tasks[2].gang);
    sim_workload back;
    write_and_load(&w, "build/test_workload_gang.yaml", &back);
    assert_string_equal(back.jobs[0].tasks[0].gang, "w");
    assert_int_equal(back.jobs[0].tasks[0].gang_size, 2);
    sim_workload_free(&back);
    sim_workload_free(&w);
    expect_error(HEAD "    tasks:\n    - {name: a, runtime: 1s, gang: w}\n",
                 "spec.jobs[0].tasks[0]: gang and gangSize go together");
    expect_error(HEAD "    tasks:\n    - {name: a, runtime: 1s, gang: w, gangSize: 0}\n",
                 "spec.jobs[0].tasks[0].gangSize: must be in [1, 1000] (got \"0\")");
    expect_error(HEAD "    tasks:\n    - {name: a, runtime: 1s, gang: w, gangSize: 1.5}\n",
                 "spec.jobs[0].tasks[0].gangSize: must be a whole number");
    expect_error(HEAD "    tasks:\n    - {name: a, runtime: 1s, gang: -w, gangSize: 1}\n",
                 "spec.jobs[0].tasks[0].gang: must be 1 to 63 letters, digits, '-', '_' or '.', "
                 "beginning and ending with a letter or digit (got \"-w\")");
    expect_error(HEAD "    tasks:\n    - {name: a, runtime: 1s, gang: w, gangSize: 2}\n",
                 "spec.jobs[0].tasks: gang w: 1 tasks name it, its size is 2");
    expect_error(HEAD "    tasks:\n    - {name: a, runtime: 1s, gang: w, gangSize: 1}\n"
                      "    - {name: b, runtime: 1s, gang: w, gangSize: 2}\n",
                 "spec.jobs[0].tasks: gang w: its tasks declare different sizes");
}

/* A generated workload written out and read back is the same workload. */
static void test_round_trip(void **state)
{
    (void)state;
    sim_workload g = {0};
    ds_err err = {{0}};
    assert_int_equal(sim_nodes_parse("2x8:32Gi:1,1x16:64Gi:1.5", &g.nodes, &g.n_nodes, &err), 0);
    sim_gen_params p;
    sim_gen_defaults(&p);
    p.n_jobs = 4;
    p.task_scale = 0.05;
    p.seed = 3;
    assert_int_equal(sim_gen_workload(&p, &g, &err), 0);
    sim_workload r;
    write_and_load(&g, "build/test_workload_round_trip.yaml", &r);
    assert_int_equal(r.n_nodes, 3);
    assert_true(r.nodes[2].speed == 1.5);
    assert_int_equal(r.n_jobs, 4);
    for (size_t j = 0; j < 4; j++) {
        sim_job_def d;
        bool owned;
        assert_int_equal(sim_workload_job(&g, j, &d, &owned, &err), 0);
        const sim_job_def *x = &r.jobs[j];
        assert_string_equal(x->name, d.name);
        assert_double_near(x->arrival_s, d.arrival_s, 1e-6);
        assert_double_near(x->deadline_factor, d.deadline_factor, 1e-12);
        assert_int_equal(x->n_tasks, d.n_tasks);
        for (size_t t = 0; t < d.n_tasks; t++) {
            assert_double_near(x->tasks[t].runtime_s, d.tasks[t].runtime_s, 1e-6);
            assert_memory_equal(&x->tasks[t].request, &d.tasks[t].request, sizeof(ds_res));
            assert_int_equal(x->tasks[t].n_up, d.tasks[t].n_up);
            for (size_t k = 0; k < d.tasks[t].n_up; k++)
                assert_int_equal(x->tasks[t].up[k], d.tasks[t].up[k]);
        }
        sim_job_def_free(&d);
    }
    sim_workload_free(&r);
    sim_workload_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_gang),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
