/* test_leader.c: leader election's options checked before it starts (renew deadline against
 * lease duration and retry period, identity length), no server needed. The election itself
 * (contention, release, takeover of a silent holder after the lease duration, a leader that
 * cannot renew, shutdown) is checked against the real kube-apiserver's Leases by
 * tests/kube/prog_leader_itest.c and integration-run.sh (make kube-integration-test). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "leader.h"

static void test_bad_options(void **state)
{
    (void)state;
    kube_leader *le;
    ds_err err = {{0}};
    kube_leader_opts o = {.namespace = "ns",
                          .name = "l",
                          .identity = "x",
                          .lease_duration_s = 10,
                          .renew_deadline_s = 10};
    assert_int_equal(kube_leader_new(NULL, &o, &le, &err), -1);
    assert_string_equal(err.msg,
                        "leader election: renewDeadline must be below leaseDuration (got 10 >= "
                        "10)");
    o.renew_deadline_s = 2;
    o.retry_period_s = 2;
    assert_int_equal(kube_leader_new(NULL, &o, &le, &err), -1);
    assert_string_equal(err.msg, "leader election: renewDeadline must exceed 1.2 * retryPeriod "
                                 "(got 2 and 2)");
    o.identity = "";
    assert_int_equal(kube_leader_new(NULL, &o, &le, &err), -1);
    assert_string_equal(err.msg, "leader election: identity must be 1..255 characters");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
