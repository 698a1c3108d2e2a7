/* test_memo.c: unit tests of the controller's memo (controller/memo.h): a key never recorded, a
 * key recorded and read back, the interval of ctl_memo_due (not due inside it, due at its end),
 * a later record moving it, pruning, and keys that share a bucket. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "memo.h"

static void test_get_put(void **state)
{
    (void)state;
    ctl_memo m;
    ctl_memo_init(&m);
    assert_true(ctl_memo_get(&m, "a") < 0);
    assert_int_equal(ctl_memo_put(&m, "a", 100), 0);
    assert_true(ctl_memo_get(&m, "a") == 100);
    assert_int_equal(ctl_memo_put(&m, "a", 130), 0);
    assert_true(ctl_memo_get(&m, "a") == 130);
    assert_true(ctl_memo_get(&m, "b") < 0);
    ctl_memo_free(&m);
}

static void test_due(void **state)
{
    (void)state;
    ctl_memo m;
    ctl_memo_init(&m);
    assert_true(ctl_memo_due(&m, "ev", 0, 60)); /* never done: due, even at time 0 */
    assert_int_equal(ctl_memo_put(&m, "ev", 0), 0);
    assert_false(ctl_memo_due(&m, "ev", 0, 60));
    assert_false(ctl_memo_due(&m, "ev", 59.999, 60));
    assert_true(ctl_memo_due(&m, "ev", 60, 60));
    assert_true(ctl_memo_due(&m, "other", 1, 60));
    assert_int_equal(ctl_memo_put(&m, "ev", 100), 0);
    assert_false(ctl_memo_due(&m, "ev", 150, 60));
    assert_true(ctl_memo_due(&m, "ev", 150, 0)); /* no interval: always due */
    ctl_memo_free(&m);
}

static void test_prune_and_many_keys(void **state)
{
    (void)state;
    ctl_memo m;
    ctl_memo_init(&m);
    char key[32];
    for (int i = 0; i < 3 * CTL_MEMO_BUCKETS; i++) { /* buckets hold several keys */
        snprintf(key, sizeof key, "k%d", i);
        assert_int_equal(ctl_memo_put(&m, key, i < CTL_MEMO_BUCKETS ? 10 : 20), 0);
    }
    assert_int_equal(m.n, 3 * CTL_MEMO_BUCKETS);
    ctl_memo_prune(&m, 15);
    assert_int_equal(m.n, 2 * CTL_MEMO_BUCKETS);
    assert_true(ctl_memo_get(&m, "k0") < 0);
    assert_true(ctl_memo_due(&m, "k0", 16, 60));
    snprintf(key, sizeof key, "k%d", CTL_MEMO_BUCKETS);
    assert_true(ctl_memo_get(&m, key) == 20);
    ctl_memo_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get_put),
        cmocka_unit_test(test_due),
        cmocka_unit_test(test_prune_and_many_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
