/* test_k8s_names.c: unit tests of the Kubernetes name syntax checks (RFC 1123 labels and
 * subdomains, qualified names, label values, extended resource names), including the length
 * boundaries. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "k8s_names.h"

/* n copies of c, NUL-terminated, into buf. */
static const char *repeat(char *buf, char c, size_t n)
{
    memset(buf, c, n);
    buf[n] = '\0';
    return buf;
}

static void test_dns_label(void **state)
{
    (void)state;
    char buf[128];
    assert_null(ds_check_dns_label("kube-system"));
    assert_null(ds_check_dns_label("a"));
    assert_null(ds_check_dns_label("0abc9"));
    assert_null(ds_check_dns_label(repeat(buf, 'a', 63)));
    assert_non_null(ds_check_dns_label(repeat(buf, 'a', 64)));
    assert_string_equal(ds_check_dns_label(""), "must not be empty");
    assert_string_equal(ds_check_dns_label(NULL), "must not be empty");
    const char *bad[] = {"-a", "a-", "A", "a_b", "a.b", "a b", "ä"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_non_null(ds_check_dns_label(bad[i]));
}

static void test_dns_subdomain(void **state)
{
    (void)state;
    char buf[300];
    assert_null(ds_check_dns_subdomain("system-node-critical"));
    assert_null(ds_check_dns_subdomain("a.b-c.d"));
    assert_null(ds_check_dns_subdomain(repeat(buf, 'a', 63)));
    /* Parts are not limited to 63 here (Kubernetes checks only the total for subdomains). */
    assert_null(ds_check_dns_subdomain(repeat(buf, 'a', 253)));
    assert_non_null(ds_check_dns_subdomain(repeat(buf, 'a', 254)));
    const char *bad[] = {".a", "a.", "a..b", "a.-b", "a-.b", "A.b", "a_b", "a/b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_non_null(ds_check_dns_subdomain(bad[i]));
}

static void test_qualified_name(void **state)
{
    (void)state;
    char buf[400];
    const char *good[] = {"tier", "dagsched.io/speed", "A_b.c-D", "x/Y", "a.b/c_d.e-F9"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_null(ds_check_qualified_name(good[i]));
    assert_null(ds_check_qualified_name(repeat(buf, 'n', 63)));
    assert_non_null(ds_check_qualified_name(repeat(buf, 'n', 64)));
    /* Longest: a 253-character prefix, '/', a 63-character name. */
    repeat(buf, 'p', 253);
    buf[253] = '/';
    repeat(buf + 254, 'n', 63);
    assert_null(ds_check_qualified_name(buf));
    buf[253 + 64] = 'n';
    buf[253 + 65] = '\0';
    assert_non_null(ds_check_qualified_name(buf));

    const char *prefix_reason = ds_check_qualified_name("Upper.io/x");
    assert_non_null(prefix_reason);
    assert_ptr_equal(ds_check_qualified_name("/x"), prefix_reason);
    assert_ptr_equal(ds_check_qualified_name("a..b/x"), prefix_reason);
    const char *name_reason = ds_check_qualified_name("-x");
    assert_non_null(name_reason);
    assert_ptr_not_equal(name_reason, prefix_reason);
    assert_ptr_equal(ds_check_qualified_name("a.io/"), name_reason);
    assert_ptr_equal(ds_check_qualified_name("a.io/x-"), name_reason);
    assert_ptr_equal(ds_check_qualified_name("a b"), name_reason);
    assert_string_equal(ds_check_qualified_name("a/b/c"),
                        "must be a qualified name: at most one '/'");
    assert_string_equal(ds_check_qualified_name(""), "must not be empty");
}

static void test_label_value(void **state)
{
    (void)state;
    char buf[80];
    assert_null(ds_check_label_value(""));
    assert_null(ds_check_label_value(NULL));
    assert_null(ds_check_label_value("true"));
    assert_null(ds_check_label_value("v1.2_3-A"));
    assert_null(ds_check_label_value(repeat(buf, 'v', 63)));
    assert_non_null(ds_check_label_value(repeat(buf, 'v', 64)));
    const char *bad[] = {"-a", "a-", ".a", "a b", "a/b", "a:b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_non_null(ds_check_label_value(bad[i]));
}

static void test_extended_resource_name(void **state)
{
    (void)state;
    assert_null(ds_check_extended_resource_name("nvidia.com/gpu"));
    assert_null(ds_check_extended_resource_name("gpu.intel.com/i915"));
    assert_null(ds_check_extended_resource_name("notkubernetes.io/gpu"));
    assert_string_equal(ds_check_extended_resource_name("gpu"),
                        "must be an extended resource name with a domain prefix, such as "
                        "nvidia.com/gpu");
    const char *reserved =
        "must not use the kubernetes.io domain (reserved for built-in resources)";
    assert_string_equal(ds_check_extended_resource_name("kubernetes.io/gpu"), reserved);
    assert_string_equal(ds_check_extended_resource_name("node.kubernetes.io/gpu"), reserved);
    assert_string_equal(ds_check_extended_resource_name(""), "must not be empty");
    assert_non_null(ds_check_extended_resource_name("nvidia.com/-gpu"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dns_label),
        cmocka_unit_test(test_dns_subdomain),
        cmocka_unit_test(test_qualified_name),
        cmocka_unit_test(test_label_value),
        cmocka_unit_test(test_extended_resource_name),
    };
    return cmocka_run_group_tests_name("k8s_names", tests, NULL, NULL);
}
