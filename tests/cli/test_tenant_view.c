/* test_tenant_view.c: unit tests of the tenants `kubectl dagsched get tenants` shows
 * (cli/tenant_view.h) on a built cluster: each tenant's use, dominant share and its resource over
 * the schedulable nodes, weights and caps from the policy, the fair share among the tenants with
 * ready tasks, whether a tenant is above it, the tasks it runs, has ready and has held for fair
 * share, and the distinct jobs of the held ones; tenants named by a namespace label; pods that do
 * not count. Every share is computed by hand in the comments. Float checks fail on NaN and
 * infinity. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenant_view.h"

#define HELD "tenant flood is above its fair share (dominant share 0.38, fair share 0.25): cpu 1"

static void near(double got, double want)
{
    assert_true(isfinite(got));
    assert_true(fabs(got - want) < 1e-9);
}

/* Four schedulable nodes of 8 cores (32 cores, 64 GiB) and a cordoned one that does not count. */
static ctl_node nodes[5];

static void make_nodes(void)
{
    for (int i = 0; i < 5; i++)
        nodes[i] = (ctl_node){.name = "n",
                              .allocatable = {.v = {8000, 16LL << 30, 0, 0}},
                              .schedulable = i < 4,
                              .speed = 1};
}

/* A pod of namespace ns: of job `job` (DS_NO_TASK: outside any DAG) in task state ts, pod state
 * st, requesting cpu milli-cores and mem bytes, with a waiting reason. */
static ctl_pod pod(const char *ns, size_t job, ds_task_state ts, ctl_pod_state st, int64_t cpu,
                   int64_t mem, const char *why)
{
    ctl_pod p = {.ns = ns,
                 .name = "p",
                 .node = st == CTL_POD_BOUND ? "n" : "",
                 .state = st,
                 .request = {.v = {cpu, mem, 0, 0}},
                 .waiting_reason = why,
                 .started_at = NAN};
    p.task.job = job;
    p.task.state = ts;
    return p;
}

static void set(ds_tenant_map *m, const char *name, double v)
{
    strcpy(m->name[m->n], name);
    m->value[m->n++] = v;
}

static const cli_tenant_row *row(const cli_tenant_view *v, const char *name)
{
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->rows[i].name, name) == 0)
            return &v->rows[i];
    return NULL;
}

static void test_shares_and_held_jobs(void **state)
{
    (void)state;
    make_nodes();
    ctl_pod pods[] = {
        /* flood: 3 bound tasks of 4 cores (12 of 32: 0.375) and 4 GiB each (12 of 64: 0.1875) */
        pod("flood", 0, DS_TASK_RUNNING, CTL_POD_BOUND, 4000, 4LL << 30, ""),
        pod("flood", 1, DS_TASK_RUNNING, CTL_POD_BOUND, 4000, 4LL << 30, ""),
        pod("flood", 1, DS_TASK_RUNNING, CTL_POD_BOUND, 4000, 4LL << 30, ""),
        /* three ready tasks held for fair share, of jobs 3, 1 and 3 (two distinct) */
        pod("flood", 3, DS_TASK_WAITING, CTL_POD_GATED, 1000, 0, HELD),
        pod("flood", 1, DS_TASK_WAITING, CTL_POD_GATED, 1000, 0, HELD),
        pod("flood", 3, DS_TASK_WAITING, CTL_POD_GATED, 1000, 0, HELD),
        /* a task whose upstream has not ended: not ready, whatever its annotation says */
        pod("flood", 3, DS_TASK_BLOCKED, CTL_POD_GATED, 1000, 0, HELD),
        /* light: one bound task of 2 cores and 16 GiB (memory dominant: 0.25 against 0.0625),
         * one ready task waiting for room */
        pod("light", 2, DS_TASK_RUNNING, CTL_POD_BOUND, 2000, 16LL << 30, ""),
        pod("light", 2, DS_TASK_WAITING, CTL_POD_GATED, 2000, 0, "no room: cpu 2"),
        /* outside any DAG: takes room, but its namespace has no DAG task to show */
        pod("idle", DS_NO_TASK, DS_TASK_RUNNING, CTL_POD_BOUND, 4000, 0, ""),
        /* a namespace whose DAG tasks have all ended */
        pod("done", 4, DS_TASK_SUCCEEDED, CTL_POD_SUCCEEDED, 4000, 0, ""),
        /* released, waiting for kube-scheduler: a DAG task (its tenant is shown), not ready */
        pod("queued", 5, DS_TASK_WAITING, CTL_POD_PENDING, 1000, 0, HELD),
    };
    ds_policy pol;
    ds_policy_defaults(&pol);
    pol.fairness_enabled = true;
    set(&pol.tenant_weights, "light", 3);
    set(&pol.tenant_caps, "flood", 0.5);
    cli_tenant_view v;
    ds_err err = {{0}};
    assert_int_equal(cli_tenant_view_build(pods, sizeof pods / sizeof pods[0], NULL, 0, nodes, 5,
                                           &pol, &v, &err),
                     0);
    assert_int_equal(v.capacity.v[0], 32000);
    assert_int_equal(v.n, 3);
    assert_string_equal(v.rows[0].name, "flood"); /* by name */
    assert_string_equal(v.rows[1].name, "light");
    assert_string_equal(v.rows[2].name, "queued");

    const cli_tenant_row *f = row(&v, "flood");
    near(f->share, 0.375);
    assert_int_equal(f->dominant, DS_RES_CPU);
    near(f->weight, 1);
    near(f->cap, 0.5);
    /* the tenants with ready tasks: flood (1) and light (3): 1 / 4 */
    near(f->fair_share, 0.25);
    assert_true(f->above); /* 0.375 > 0.25 */
    assert_int_equal(f->running, 3);
    assert_int_equal(f->ready, 3);
    assert_int_equal(f->held, 3);
    assert_int_equal(f->n_held_jobs, 2);
    assert_int_equal(f->held_jobs[0], 1);
    assert_int_equal(f->held_jobs[1], 3);

    const cli_tenant_row *l = row(&v, "light");
    near(l->share, 0.25);
    assert_int_equal(l->dominant, DS_RES_MEMORY);
    near(l->weight, 3);
    near(l->cap, 0);
    near(l->fair_share, 0.75);
    assert_false(l->above);
    assert_int_equal(l->running, 1);
    assert_int_equal(l->ready, 1);
    assert_int_equal(l->held, 0);
    assert_int_equal(l->n_held_jobs, 0);

    /* no ready task: its share if it had one, 1 / (4 + 1); it uses nothing */
    const cli_tenant_row *q = row(&v, "queued");
    near(q->share, 0);
    assert_int_equal(q->dominant, -1);
    near(q->fair_share, 0.2);
    assert_false(q->above);
    assert_int_equal(q->ready + q->held + q->running, 0);
    cli_tenant_view_free(&v);
}

static void test_tenant_label(void **state)
{
    (void)state;
    make_nodes();
    const ctl_kv team_a[] = {{"example.com/team", "a"}};
    const ctl_namespace ns[] = {
        {"a1", team_a, 1, false}, {"a2", team_a, 1, false}, {"b", NULL, 0, false}};
    ctl_pod pods[] = {
        pod("a1", 0, DS_TASK_RUNNING, CTL_POD_BOUND, 8000, 0, ""),
        pod("a1", 0, DS_TASK_RUNNING, CTL_POD_BOUND, 4000, 0, ""),
        pod("a2", 1, DS_TASK_RUNNING, CTL_POD_BOUND, 8000, 0, ""),
        pod("a2", 1, DS_TASK_WAITING, CTL_POD_GATED, 1000, 0, HELD),
        pod("b", 2, DS_TASK_WAITING, CTL_POD_GATED, 1000, 0, ""),
    };
    ds_policy pol;
    ds_policy_defaults(&pol);
    strcpy(pol.tenant_label, "example.com/team");
    cli_tenant_view v;
    ds_err err = {{0}};
    assert_int_equal(cli_tenant_view_build(pods, 5, ns, 3, nodes, 5, &pol, &v, &err), 0);
    assert_int_equal(v.n, 2);
    assert_string_equal(v.rows[0].name, "a"); /* a1 and a2: 20 of 32 cores */
    near(v.rows[0].share, 0.625);
    near(v.rows[0].fair_share, 0.5);
    assert_true(v.rows[0].above); /* 0.625 > 0.5 */
    assert_int_equal(v.rows[0].running, 3);
    assert_int_equal(v.rows[0].n_held_jobs, 1);
    assert_int_equal(v.rows[0].held_jobs[0], 1);
    assert_string_equal(v.rows[1].name, "b");
    near(v.rows[1].share, 0);
    assert_false(v.rows[1].above);
    cli_tenant_view_free(&v);

    /* Without the namespaces' labels, each namespace is a tenant of its own. */
    assert_int_equal(cli_tenant_view_build(pods, 5, NULL, 0, nodes, 5, &pol, &v, &err), 0);
    assert_int_equal(v.n, 3);
    assert_string_equal(v.rows[0].name, "a1");
    assert_string_equal(v.rows[1].name, "a2");
    near(v.rows[1].share, 0.25);
    cli_tenant_view_free(&v);
}

static void test_empty(void **state)
{
    (void)state;
    ds_policy pol;
    ds_policy_defaults(&pol);
    cli_tenant_view v;
    ds_err err = {{0}};
    assert_int_equal(cli_tenant_view_build(NULL, 0, NULL, 0, NULL, 0, &pol, &v, &err), 0);
    assert_int_equal(v.n, 0);
    cli_tenant_view_free(&v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shares_and_held_jobs),
        cmocka_unit_test(test_tenant_label),
        cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
