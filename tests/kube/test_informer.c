/* test_informer.c: the informer's options checked before it starts (a namespace for a
 * cluster-scoped kind, an invalid namespace), no server needed. The list+watch loop itself
 * (pagination, events in order, bookmarks, 410 Gone and the relist diff, reconnects, selectors,
 * status counters, new GPU resource names, an unreachable server, shutdown) is checked against
 * the real kube-apiserver by tests/kube/prog_kube_itest.c and prog_informer_itest.c
 * (make kube-integration-test). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "informer.h"
#include "log.h"

static void test_bad_options(void **state)
{
    (void)state;
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    kube_config cfg = {.server = "http://127.0.0.1:9", .namespace = "default", .source = "test"};
    kube_client *c;
    ds_err err = {{0}};
    assert_int_equal(kube_client_new(&cfg, NULL, &c, &err), 0);
    kube_informer *inf;
    kube_informer_opts io = {.kind = KUBE_KIND_NODE, .namespace = "x"};
    assert_int_equal(kube_informer_new(c, &io, &inf, &err), -1);
    assert_string_equal(err.msg, "informer: node is not namespaced");
    io.kind = KUBE_KIND_NAMESPACE;
    assert_int_equal(kube_informer_new(c, &io, &inf, &err), -1);
    assert_string_equal(err.msg, "informer: namespace is not namespaced");
    io.kind = KUBE_KIND_POD;
    io.namespace = "Bad_NS";
    assert_int_equal(kube_informer_new(c, &io, &inf, &err), -1);
    assert_string_equal(err.msg, "informer: invalid namespace \"Bad_NS\"");
    kube_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
