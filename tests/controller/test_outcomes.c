/* test_outcomes.c: unit tests of outcomes.c: a finished job is reported once with its outcome
 * (deadline met, missed, none, failed) and makespan, a started task once with its waits from
 * creation and from readiness, nothing before the process's start, nothing for a job still
 * running, and a job or pod seen again after it was gone is new. */
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
#include "ctl_obj_util.h"
#include "outcomes.h"

/* 2026-11-22T10:00:00Z */
#define T0 1795341600.0

/* A task pod of job `job` created at 10:00:00; started and finished at the given minutes:seconds
 * ("" when not); phase as given. */
static const kube_meta *task_pod(const char *job, const char *task, const char *deps,
                                 const char *deadline, const char *phase, const char *started,
                                 const char *finished)
{
    char buf[4096];
    char status[1024];
    if (finished[0])
        snprintf(status, sizeof status,
                 "{\"phase\":\"%s\",\"startTime\":\"2026-11-22T10:%s\",\"containerStatuses\":[{"
                 "\"name\":\"c\",\"state\":{\"terminated\":{\"exitCode\":0,\"finishedAt\":"
                 "\"2026-11-22T10:%s\"}}}]}",
                 phase, started, finished);
    else if (started[0])
        snprintf(status, sizeof status, "{\"phase\":\"%s\",\"startTime\":\"2026-11-22T10:%s\"}",
                 phase, started);
    else
        snprintf(status, sizeof status, "{\"phase\":\"%s\"}", phase);
    char ann[512];
    int n = snprintf(ann, sizeof ann, "\"dagsched.io/runtime\":\"60s\"");
    if (deps[0])
        n += snprintf(ann + n, sizeof ann - (size_t)n, ",\"dagsched.io/depends-on\":\"%s\"", deps);
    if (deadline[0])
        snprintf(ann + n, sizeof ann - (size_t)n, ",\"dagsched.io/deadline\":\"%s\"", deadline);
    snprintf(buf, sizeof buf,
             "{\"metadata\":{\"name\":\"%s-%s\",\"namespace\":\"ns\",\"uid\":\"u-%s-%s\","
             "\"resourceVersion\":\"1\",\"creationTimestamp\":\"2026-11-22T10:00:00Z\","
             "\"labels\":{\"dagsched.io/job\":\"%s\",\"dagsched.io/task\":\"%s\"},"
             "\"annotations\":{%s}},\"spec\":{%s\"containers\":[{\"name\":\"c\"}]},"
             "\"status\":%s}",
             job, task, job, task, job, task, ann, started[0] ? "\"nodeName\":\"n1\"," : "",
             status);
    return obj(KUBE_KIND_POD, buf);
}

static void build(ctl_snapshot *s, kube_obj_list *pods, double now)
{
    kube_obj_list nodes = {0}, pdbs = {0}, jobs = {0}, graphs = {0};
    ds_policy pol;
    ds_policy_defaults(&pol);
    ds_err err = {{0}};
    assert_int_equal(
        ctl_snapshot_build(pods, &nodes, &pdbs, &jobs, &graphs, NULL, &pol, now, s, &err), 0);
}

/* etl: a (00:10 -> 01:10) -> b (01:30 -> 02:30), deadline 10:05; late: one task finishing at
 * 02:00 against a deadline at 10:01; free: no deadline; broken: a failed, b blocked behind it;
 * busy: still running. */
static void fill(kube_obj_list *l)
{
    add(l, task_pod("etl", "a", "", "2026-11-22T10:05:00Z", "Succeeded", "00:10Z", "01:10Z"));
    add(l, task_pod("etl", "b", "a", "2026-11-22T10:05:00Z", "Succeeded", "01:30Z", "02:30Z"));
    add(l, task_pod("late", "a", "", "2026-11-22T10:01:00Z", "Succeeded", "00:05Z", "02:00Z"));
    add(l, task_pod("free", "a", "", "", "Succeeded", "00:00Z", "00:30Z"));
    add(l, task_pod("broken", "a", "", "", "Failed", "00:01Z", "00:20Z"));
    add(l, task_pod("broken", "b", "a", "", "Pending", "", ""));
    add(l, task_pod("busy", "a", "", "", "Running", "00:02Z", ""));
}

static const ctl_job_done *job_in(const ctl_outcome_events *e, ctl_job_outcome o)
{
    for (size_t i = 0; i < e->n_jobs; i++)
        if (e->jobs[i].outcome == o)
            return &e->jobs[i];
    return NULL;
}

static void test_reported_once(void **state)
{
    (void)state;
    kube_obj_list pods = {0};
    fill(&pods);
    ctl_snapshot s;
    build(&s, &pods, T0 + 600);
    ctl_outcomes o;
    ctl_outcomes_init(&o, T0 - 1);
    ctl_outcome_events e;
    ds_err err = {{0}};
    assert_int_equal(ctl_outcomes_scan(&o, &s, &e, &err), 0);
    assert_int_equal(e.n_jobs, 4); /* etl, late, free, broken; not busy */
    const ctl_job_done *met = job_in(&e, CTL_OUTCOME_DEADLINE_MET);
    assert_non_null(met);
    assert_double_near(met->makespan_s, 150.0, 1e-6); /* 10:00:00 -> 10:02:30 */
    assert_double_near(met->lateness_s, -150.0, 1e-6);
    /* The job index leads to the job and its tasks' finish times (the task-level yield). */
    assert_true(met->job_idx < s.js.n_jobs);
    const ds_job *etl = &s.js.jobs[met->job_idx];
    assert_string_equal(etl->name, met->job);
    size_t tb;
    assert_int_equal(ds_dag_find(&etl->dag, "b", &tb), 0);
    assert_double_near(ctl_outcomes_task_finish(&s, etl, tb, NAN), T0 + 150, 1e-6);
    const ctl_job_done *late = job_in(&e, CTL_OUTCOME_DEADLINE_MISSED);
    assert_non_null(late);
    assert_double_near(late->lateness_s, 60.0, 1e-6);
    assert_non_null(job_in(&e, CTL_OUTCOME_NO_DEADLINE));
    const ctl_job_done *bad = job_in(&e, CTL_OUTCOME_FAILED);
    assert_non_null(bad);
    assert_double_near(bad->makespan_s, 20.0, 1e-6);
    assert_string_equal(bad->ns, "ns");
    /* Six started pods; etl/b was ready when a finished (01:10) and started at 01:30. */
    assert_int_equal(e.n_tasks, 6);
    bool saw_b = false;
    for (size_t i = 0; i < e.n_tasks; i++)
        if (fabs(e.tasks[i].from_created_s - 90.0) < 1e-6) {
            assert_double_near(e.tasks[i].from_ready_s, 20.0, 1e-6);
            saw_b = true;
        }
    assert_true(saw_b);
    ctl_outcome_events_free(&e);

    /* The same snapshot again: nothing new. */
    assert_int_equal(ctl_outcomes_scan(&o, &s, &e, &err), 0);
    assert_int_equal(e.n_jobs, 0);
    assert_int_equal(e.n_tasks, 0);
    ctl_outcome_events_free(&e);
    ctl_snapshot_free(&s);

    /* Everything gone, then back (a new job of the same name, new pods): reported again. */
    kube_obj_list none = {0};
    build(&s, &none, T0 + 700);
    assert_int_equal(ctl_outcomes_scan(&o, &s, &e, &err), 0);
    assert_int_equal(e.n_jobs + e.n_tasks, 0);
    ctl_outcome_events_free(&e);
    ctl_snapshot_free(&s);
    kube_obj_list again = {0};
    fill(&again);
    build(&s, &again, T0 + 800);
    assert_int_equal(ctl_outcomes_scan(&o, &s, &e, &err), 0);
    assert_int_equal(e.n_jobs, 4);
    ctl_outcome_events_free(&e);
    ctl_snapshot_free(&s);
    ctl_outcomes_free(&o);
}

/* Jobs run by another scheduler (every pod foreign: ctl_mark_foreign) are not dagsched's to count.
 */
static void test_foreign_jobs_not_counted(void **state)
{
    (void)state;
    kube_obj_list pods = {0};
    fill(&pods);
    ctl_snapshot s;
    build(&s, &pods, T0 + 600);
    ctl_mark_foreign(&s, "some-other-scheduler");
    ctl_outcomes o;
    ctl_outcomes_init(&o, T0 - 1);
    ctl_outcome_events e;
    ds_err err = {{0}};
    assert_int_equal(ctl_outcomes_scan(&o, &s, &e, &err), 0);
    assert_int_equal(e.n_jobs, 0);
    assert_int_equal(e.n_tasks, 0);
    ctl_outcome_events_free(&e);
    ctl_snapshot_free(&s);
    ctl_outcomes_free(&o);
}

static void test_nothing_before_start(void **state)
{
    (void)state;
    kube_obj_list pods = {0};
    fill(&pods);
    ctl_snapshot s;
    build(&s, &pods, T0 + 600);
    ctl_outcomes o;
    ctl_outcomes_init(&o, T0 + 95); /* the process started at 10:01:35 */
    ctl_outcome_events e;
    ds_err err = {{0}};
    assert_int_equal(ctl_outcomes_scan(&o, &s, &e, &err), 0);
    /* Only what finished or started since: etl (finished 02:30) and late (02:00). */
    assert_int_equal(e.n_jobs, 2);
    assert_non_null(job_in(&e, CTL_OUTCOME_DEADLINE_MET));
    assert_non_null(job_in(&e, CTL_OUTCOME_DEADLINE_MISSED));
    assert_int_equal(e.n_tasks, 0); /* the last start was 01:30 */
    ctl_outcome_events_free(&e);
    ctl_snapshot_free(&s);
    ctl_outcomes_free(&o);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(ctl_job_outcome_name(CTL_OUTCOME_DEADLINE_MISSED), "deadline_missed");
    assert_string_equal(ctl_job_outcome_name(CTL_OUTCOME_FAILED), "failed");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reported_once),
        cmocka_unit_test(test_foreign_jobs_not_counted),
        cmocka_unit_test(test_nothing_before_start),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
