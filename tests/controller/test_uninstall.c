/* test_uninstall.c: `dagsched-controller uninstall`'s flags refused before any request (exit
 * 2): objects named without a namespace, invalid names and namespaces, a bad duration, a webhook
 * with --objects-only, too many objects. What it does on a cluster (waiting for the release's
 * pods, deleting ConfigMaps and Leases, a refused deletion, removing gates) is checked against
 * the real kube-apiserver by the `uninstall` scenario of tests/controller/integration.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "uninstall.h"

/* Runs `uninstall --kubeconfig /nonexistent ARGS...` (NULL-terminated): a run that got past the
 * flags would fail to load it (exit 1), not exit 2. */
static int run(const char *first, ...)
{
    char *argv[32] = {"uninstall", "--kubeconfig", "/nonexistent/kubeconfig", "--log-level",
                      "error"};
    int argc = 5;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; argc < 31 && a != NULL; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    return ctl_uninstall_main(argc, argv);
}

static void test_bad_flags(void **state)
{
    (void)state;
    assert_int_equal(run("--objects-only", "--delete-lease", "x", NULL), 2);
    assert_int_equal(run("--objects-only", "--wait-for-pods", "a=b", NULL), 2);
    assert_int_equal(run("--namespace", "ns1", "--delete-configmap", "Bad_Name", NULL), 2);
    assert_int_equal(run("--namespace", "no.dots", "--delete-lease", "x", NULL), 2);
    assert_int_equal(run("--namespace", "ns1", "--wait-timeout", "soon", NULL), 2);
    assert_int_equal(run("--objects-only", "--webhook-configuration", "w", NULL), 2);
    assert_int_equal(run("--namespace", "ns1", "--delete-lease", "1", "--delete-lease", "2",
                         "--delete-lease", "3", "--delete-lease", "4", "--delete-lease", "5",
                         "--delete-lease", "6", "--delete-lease", "7", "--delete-lease", "8",
                         "--delete-lease", "9", NULL),
                     2);
    /* The same flags, valid: past the parsing, the missing kubeconfig fails the run (1). */
    assert_int_equal(run("--objects-only", "--namespace", "ns1", "--delete-lease", "x", NULL), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
