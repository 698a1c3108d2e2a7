/* test_ds_assert.c: unit tests of the float assertions in tests/common/ds_assert.h. The checks must
 * refuse NaN, +inf against 5, -inf against +inf and values outside the tolerance (all of which
 * cmocka's assert_float_equal accepts), and the assertion macros must fail a test: each macro case
 * runs in a child process (this binary, re-executed with --case NAME) whose exit status and error
 * output are checked. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_near_accepts(void **state)
{
    (void)state;
    assert_true(ds_double_near_ok(1.5, 1.5, 0));
    assert_true(ds_double_near_ok(0.0, -0.0, 0));
    assert_true(ds_double_near_ok(0.1 + 0.2, 0.3, 1e-15));
    /* relative: 1e6 * 1e-9 = 1e-3 of room */
    assert_true(ds_double_near_ok(1e6 + 9e-4, 1e6, 1e-9));
    /* absolute floor below 1: rel_tol itself */
    assert_true(ds_double_near_ok(5e-13, 0.0, 1e-12));
    assert_true(ds_double_near_ok(-DBL_MAX, -DBL_MAX, 0));
}

static void test_near_refuses_non_finite(void **state)
{
    (void)state;
    assert_false(ds_double_near_ok(NAN, 1.0, 1e-12));
    assert_false(ds_double_near_ok(1.0, NAN, 1e-12));
    assert_false(ds_double_near_ok(NAN, NAN, 1e-12));
    assert_false(ds_double_near_ok(INFINITY, 5.0, 1e-12));
    assert_false(ds_double_near_ok(5.0, INFINITY, 1e-12));
    assert_false(ds_double_near_ok(-INFINITY, INFINITY, 1e-12));
    /* even equal infinities: a test expecting one says so with assert_double_inf */
    assert_false(ds_double_near_ok(INFINITY, INFINITY, 0));
}

static void test_near_refuses_outside_tolerance(void **state)
{
    (void)state;
    assert_false(ds_double_near_ok(1.0, 1.0 + 1e-9, 1e-12));
    assert_false(ds_double_near_ok(1e6 + 2e-3, 1e6, 1e-9));
    assert_false(ds_double_near_ok(2e-12, 0.0, 1e-12));
    assert_false(ds_double_near_ok(-1.0, 1.0, 0.5));
    /* equal as floats, different as doubles: cmocka's float cast accepts these */
    assert_false(ds_double_near_ok(0.1, (double)0.1f, 0));
    assert_false(ds_double_near_ok(1795000000.0, 1795000001.0, 0));
}

static void test_near_refuses_bad_tolerance(void **state)
{
    (void)state;
    assert_false(ds_double_near_ok(1.0, 1.0, -1e-12));
    assert_false(ds_double_near_ok(1.0, 1.0, NAN));
    assert_false(ds_double_near_ok(1.0, 1.0, INFINITY));
    assert_false(ds_double_near_ok(1.0, 2.0, 1.0));
}

static void test_inf_and_nan_checks(void **state)
{
    (void)state;
    assert_true(ds_double_inf_ok(INFINITY, 1));
    assert_true(ds_double_inf_ok(-INFINITY, -1));
    assert_false(ds_double_inf_ok(INFINITY, -1));
    assert_false(ds_double_inf_ok(-INFINITY, 1));
    assert_false(ds_double_inf_ok(INFINITY, 0));
    assert_false(ds_double_inf_ok(DBL_MAX, 1));
    assert_false(ds_double_inf_ok(5.0, 1));
    assert_false(ds_double_inf_ok(NAN, 1));
    assert_true(ds_double_nan_ok(NAN));
    assert_false(ds_double_nan_ok(INFINITY));
    assert_false(ds_double_nan_ok(0.0));
}

/* ---- the macros, run in a child process ---- */

static volatile double v_nan = NAN, v_inf = INFINITY;

static void case_near_nan(void **state)
{
    (void)state;
    assert_double_near(v_nan, 1.0, 1e-12);
}
static void case_near_inf_vs_5(void **state)
{
    (void)state;
    assert_double_near(v_inf, 5.0, 1e-12);
}
static void case_near_neg_inf_vs_inf(void **state)
{
    (void)state;
    assert_double_near(-v_inf, v_inf, 1e-12);
}
static void case_near_outside(void **state)
{
    (void)state;
    assert_double_near(1.001, 1.0, 1e-6);
}
static void case_inf_finite(void **state)
{
    (void)state;
    assert_double_inf(5.0, 1);
}
static void case_inf_wrong_sign(void **state)
{
    (void)state;
    assert_double_inf(-v_inf, 1);
}
static void case_nan_finite(void **state)
{
    (void)state;
    assert_double_nan(1.0);
}
static void case_all_pass(void **state)
{
    (void)state;
    assert_double_near(1.0 + 1e-13, 1.0, 1e-12);
    assert_double_inf(v_inf, 1);
    assert_double_inf(-v_inf, -1);
    assert_double_nan(v_nan);
}

static const struct {
    const char *name;
    void (*fn)(void **);
} cases[] = {
    {"near_nan", case_near_nan},
    {"near_inf_vs_5", case_near_inf_vs_5},
    {"near_neg_inf_vs_inf", case_near_neg_inf_vs_inf},
    {"near_outside", case_near_outside},
    {"inf_finite", case_inf_finite},
    {"inf_wrong_sign", case_inf_wrong_sign},
    {"nan_finite", case_nan_finite},
    {"all_pass", case_all_pass},
};

static int run_case(const char *name)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(cases[i].name, name) != 0)
            continue;
        const struct CMUnitTest one[] = {{cases[i].name, cases[i].fn, NULL, NULL, NULL}};
        return cmocka_run_group_tests_name(name, one, NULL, NULL);
    }
    fprintf(stderr, "unknown case %s\n", name);
    return 100;
}

/* Runs this binary with --case `name`; returns its exit status and its output in `out`. */
static int run_child(const char *name, char *out, size_t cap)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl("/proc/self/exe", "test_ds_assert", "--case", name, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t n;
    while ((n = read(fds[0], out + len, cap - 1 - len)) > 0)
        len += (size_t)n;
    out[len] = '\0';
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void expect_case_fails(const char *name, const char *message)
{
    char out[8192];
    int rc = run_child(name, out, sizeof out);
    if (rc != 1 || strstr(out, message) == NULL || strstr(out, "test_ds_assert.c:") == NULL) {
        print_error("case %s: exit %d, output:\n%s\n", name, rc, out);
        fail();
    }
}

static void test_macros_fail(void **state)
{
    (void)state;
    expect_case_fails("near_nan", "non-finite operand: actual nan, expected 1");
    expect_case_fails("near_inf_vs_5", "non-finite operand: actual inf, expected 5");
    expect_case_fails("near_neg_inf_vs_inf", "non-finite operand: actual -inf, expected inf");
    expect_case_fails(
        "near_outside",
        "actual 1.0009999999999999, expected 1, |difference| 0.00099999999999988987 > "
        "tolerance 1.0009999999999998e-06");
    expect_case_fails("inf_finite", "assert_double_inf(5.0): actual 5, expected +inf");
    expect_case_fails("inf_wrong_sign", "assert_double_inf(-v_inf): actual -inf, expected +inf");
    expect_case_fails("nan_finite", "assert_double_nan(1.0): actual 1, expected nan");
}

static void test_macros_pass(void **state)
{
    (void)state;
    char out[8192];
    assert_int_equal(run_child("all_pass", out, sizeof out), 0);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--case") == 0)
        return run_case(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_near_accepts),
        cmocka_unit_test(test_near_refuses_non_finite),
        cmocka_unit_test(test_near_refuses_outside_tolerance),
        cmocka_unit_test(test_near_refuses_bad_tolerance),
        cmocka_unit_test(test_inf_and_nan_checks),
        cmocka_unit_test(test_macros_fail),
        cmocka_unit_test(test_macros_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
