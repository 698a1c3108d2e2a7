/* test_owner_retry.c: unit tests of the rule that no eviction fails its pod's owner
 * (lib/owner_retry.h): which owners recreate an evicted pod, and how many evictions a Job takes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>

#include "owner_retry.h"

static ds_owner_facts job(int32_t backoff, int32_t failed)
{
    ds_owner_facts o = {
        .kind = DS_OWNER_JOB, .known = true, .backoff_limit = backoff, .failed = failed};
    return o;
}

static void expect(const ds_owner_facts *o, size_t left, ds_retry_verdict why)
{
    ds_retry_verdict v = DS_RETRY_N;
    assert_int_equal(ds_owner_evictions_left(o, &v), left);
    assert_int_equal(v, left > 0 ? DS_RETRY_OK : why);
}

static void test_kinds(void **state)
{
    (void)state;
    assert_int_equal(ds_owner_kind_of(NULL), DS_OWNER_NONE);
    assert_int_equal(ds_owner_kind_of(""), DS_OWNER_NONE);
    assert_int_equal(ds_owner_kind_of("Job"), DS_OWNER_JOB);
    assert_int_equal(ds_owner_kind_of("ReplicaSet"), DS_OWNER_REPLICASET);
    assert_int_equal(ds_owner_kind_of("StatefulSet"), DS_OWNER_STATEFULSET);
    assert_int_equal(ds_owner_kind_of("DaemonSet"), DS_OWNER_DAEMONSET);
    assert_int_equal(ds_owner_kind_of("Workflow"), DS_OWNER_WORKFLOW);
    assert_int_equal(ds_owner_kind_of("SparkApplication"), DS_OWNER_OTHER);
    assert_int_equal(ds_owner_kind_of("job"), DS_OWNER_OTHER); /* kinds are case-sensitive */
}

static void test_owners(void **state)
{
    (void)state;
    ds_owner_facts o = {.kind = DS_OWNER_REPLICASET};
    expect(&o, DS_EVICTIONS_UNLIMITED, DS_RETRY_OK);
    o.kind = DS_OWNER_STATEFULSET;
    expect(&o, DS_EVICTIONS_UNLIMITED, DS_RETRY_OK);
    o.kind = DS_OWNER_NONE;
    expect(&o, 0, DS_RETRY_BARE);
    o.kind = DS_OWNER_DAEMONSET;
    expect(&o, 0, DS_RETRY_DAEMONSET);
    o.kind = DS_OWNER_WORKFLOW;
    expect(&o, 0, DS_RETRY_WORKFLOW);
    o.workflow_retries = 2; /* a retryStrategy retrying errors, two retries left */
    expect(&o, 2, DS_RETRY_OK);
    o.workflow_retries = INT_MAX; /* without a limit */
    expect(&o, DS_EVICTIONS_UNLIMITED, DS_RETRY_OK);
    o.workflow_retries = 0;
    o.kind = DS_OWNER_OTHER;
    expect(&o, 0, DS_RETRY_OTHER_OWNER);
    assert_int_equal(ds_owner_evictions_left(&o, NULL), 0);
}

/* A Job fails once its failed pods exceed backoffLimit, and each eviction is a failed pod. */
static void test_jobs(void **state)
{
    (void)state;
    ds_owner_facts o = job(6, 0);
    expect(&o, 6, DS_RETRY_OK);
    o = job(6, 5);
    expect(&o, 1, DS_RETRY_OK);
    o = job(6, 6);
    expect(&o, 0, DS_RETRY_JOB_EXHAUSTED);
    o = job(0, 0); /* the batch workflow of the issue: one eviction fails it */
    expect(&o, 0, DS_RETRY_JOB_EXHAUSTED);
    o = job(3, 1);
    o.pending_failures = 1; /* an earlier eviction not yet in status.failed */
    expect(&o, 1, DS_RETRY_OK);
    o.pending_failures = 5;
    expect(&o, 0, DS_RETRY_JOB_EXHAUSTED);
    o = job(2, 40); /* more failures than the limit: still none */
    expect(&o, 0, DS_RETRY_JOB_EXHAUSTED);
    /* A podFailurePolicy that ignores disruptions: evictions count against nothing. */
    o = job(0, 0);
    o.ignores_disruption = true;
    expect(&o, DS_EVICTIONS_UNLIMITED, DS_RETRY_OK);
    o.finished = true;
    expect(&o, 0, DS_RETRY_JOB_FINISHED);
    o = job(6, 0);
    o.known = false;
    expect(&o, 0, DS_RETRY_JOB_UNKNOWN);
    o = job(6, 0);
    o.per_index_limit = true;
    expect(&o, 0, DS_RETRY_JOB_PER_INDEX);
    o.ignores_disruption = true;
    expect(&o, DS_EVICTIONS_UNLIMITED, DS_RETRY_OK);
}

static void test_names(void **state)
{
    (void)state;
    for (int v = 0; v < DS_RETRY_N; v++) {
        assert_string_not_equal(ds_retry_verdict_name((ds_retry_verdict)v), "unknown");
        assert_string_not_equal(ds_retry_verdict_text((ds_retry_verdict)v), "unknown");
    }
    assert_string_equal(ds_retry_verdict_name(DS_RETRY_JOB_EXHAUSTED), "job-retries-exhausted");
    assert_string_equal(ds_retry_verdict_name(DS_RETRY_N), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_owners),
        cmocka_unit_test(test_jobs),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
