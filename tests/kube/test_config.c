/* test_config.c: unit tests of kubeconfig and in-cluster configuration loading and of logging. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "kube_test_util.h"
#include "kutil.h"
#include "log.h"

/* "hello CA\n" and "hello cert\n" / "hello key\n" in base64. */
#define CA_B64   "aGVsbG8gQ0EK"
#define CERT_B64 "aGVsbG8gY2VydAo="
#define KEY_B64  "aGVsbG8ga2V5Cg=="

static const char *const full_kubeconfig =
    "apiVersion: v1\n"
    "kind: Config\n"
    "current-context: dev\n"
    "clusters:\n"
    "- name: c-dev\n"
    "  cluster:\n"
    "    server: https://127.0.0.1:6443/\n"
    "    certificate-authority-data: " CA_B64 "\n"
    "- name: c-test\n"
    "  cluster:\n"
    "    server: https://10.1.2.3:443\n"
    "    insecure-skip-tls-verify: true\n"
    "    tls-server-name: kubernetes\n"
    "users:\n"
    "- name: admin\n"
    "  user:\n"
    "    client-certificate-data: " CERT_B64 "\n"
    "    client-key-data: " KEY_B64 "\n"
    "- name: bot\n"
    "  user:\n"
    "    token: abc.def\n"
    "contexts:\n"
    "- name: dev\n"
    "  context: {cluster: c-dev, user: admin, namespace: batch}\n"
    "- name: test\n"
    "  context:\n"
    "    cluster: c-test\n"
    "    user: bot\n";

static kube_config *parse_ok(const char *text, const char *context)
{
    kube_config *cfg = NULL;
    ds_err err = {{0}};
    int rc = kube_config_parse_kubeconfig(text, strlen(text), "/etc/kc", context, &cfg, &err);
    if (rc != 0)
        fail_msg("unexpected error: %s", err.msg);
    assert_non_null(cfg);
    return cfg;
}

static void expect_error(const char *text, const char *context, const char *message)
{
    kube_config *cfg = NULL;
    ds_err err = {{0}};
    assert_int_equal(
        kube_config_parse_kubeconfig(text, strlen(text), "/etc/kc", context, &cfg, &err), -1);
    assert_null(cfg);
    assert_string_equal(err.msg, message);
}

static void test_current_context_cert_data(void **state)
{
    (void)state;
    kube_config *cfg = parse_ok(full_kubeconfig, NULL);
    assert_string_equal(cfg->server, "https://127.0.0.1:6443");
    assert_string_equal(cfg->namespace, "batch");
    assert_int_equal(cfg->ca_data_len, 9);
    assert_memory_equal(cfg->ca_data, "hello CA\n", 9);
    assert_null(cfg->ca_file);
    assert_int_equal(cfg->cert_data_len, 11);
    assert_memory_equal(cfg->cert_data, "hello cert\n", 11);
    assert_memory_equal(cfg->key_data, "hello key\n", 10);
    assert_false(cfg->insecure_skip_tls_verify);
    assert_null(cfg->token);
    assert_string_equal(cfg->source, "kubeconfig /etc/kc (context dev)");
    kube_config_free(cfg);
}

static void test_explicit_context_token_insecure(void **state)
{
    (void)state;
    kube_config *cfg = parse_ok(full_kubeconfig, "test");
    assert_string_equal(cfg->server, "https://10.1.2.3:443");
    assert_string_equal(cfg->namespace, "default");
    assert_true(cfg->insecure_skip_tls_verify);
    assert_string_equal(cfg->tls_server_name, "kubernetes");
    assert_string_equal(cfg->token, "abc.def");
    assert_null(cfg->cert_data);
    assert_null(cfg->ca_data);
    kube_config_free(cfg);
}

static void test_files_relative_to_kubeconfig(void **state)
{
    (void)state;
    char dir[64], path[512], kc[512];
    assert_int_equal(ds_test_mkdtemp(dir, sizeof dir), 0);
    assert_int_equal(ds_test_write(dir, "ca.crt", "ca\n", path, sizeof path), 0);
    assert_int_equal(ds_test_write(dir, "tls.crt", "crt\n", path, sizeof path), 0);
    assert_int_equal(ds_test_write(dir, "tls.key", "key\n", path, sizeof path), 0);
    assert_int_equal(ds_test_write(dir, "token", "tok\n", path, sizeof path), 0);
    const char *text = "current-context: a\n"
                       "clusters: [{name: a, cluster: {server: 'https://h:1', "
                       "certificate-authority: ca.crt}}]\n"
                       "users:\n"
                       "- name: a\n"
                       "  user: {client-certificate: tls.crt, client-key: tls.key}\n"
                       "- name: t\n"
                       "  user: {tokenFile: token}\n"
                       "contexts: [{name: a, context: {cluster: a, user: a}},"
                       " {name: t, context: {cluster: a, user: t}}]\n";
    assert_int_equal(ds_test_write(dir, "config", text, kc, sizeof kc), 0);

    kube_config_opts opts = {.kubeconfig = kc};
    kube_config *cfg = NULL;
    ds_err err = {{0}};
    assert_int_equal(kube_config_load(&opts, &cfg, &err), 0);
    snprintf(path, sizeof path, "%s/ca.crt", dir);
    assert_string_equal(cfg->ca_file, path);
    snprintf(path, sizeof path, "%s/tls.crt", dir);
    assert_string_equal(cfg->cert_file, path);
    snprintf(path, sizeof path, "%s/tls.key", dir);
    assert_string_equal(cfg->key_file, path);
    assert_null(cfg->token_file);
    kube_config_free(cfg);

    opts.context = "t";
    assert_int_equal(kube_config_load(&opts, &cfg, &err), 0);
    snprintf(path, sizeof path, "%s/token", dir);
    assert_string_equal(cfg->token_file, path);
    kube_config_free(cfg);

    /* $KUBECONFIG: the first entry of the list is used. */
    char env[1200];
    snprintf(env, sizeof env, "%s:/nonexistent", kc);
    setenv("KUBECONFIG", env, 1);
    assert_int_equal(kube_config_load(NULL, &cfg, &err), 0);
    assert_string_equal(cfg->server, "https://h:1");
    kube_config_free(cfg);
    unsetenv("KUBECONFIG");

    /* A missing referenced file names the field and the path. */
    unlink(path);
    assert_int_equal(kube_config_load(&opts, &cfg, &err), -1);
    char want[1200];
    snprintf(want, sizeof want, "%s: users[\"t\"].user.tokenFile: %s: No such file or directory",
             kc, path);
    assert_string_equal(err.msg, want);
    ds_test_rmdir(dir);
}

static void test_errors_name_file_and_field(void **state)
{
    (void)state;
    kube_config *cfg = NULL;
    ds_err err = {{0}};
    kube_config_opts opts = {.kubeconfig = "/nonexistent/kc"};
    assert_int_equal(kube_config_load(&opts, &cfg, &err), -1);
    assert_string_equal(err.msg, "kubeconfig: /nonexistent/kc: No such file or directory");

    expect_error("a: [", NULL,
                 "/etc/kc: line 2, column 1: invalid YAML: did not find expected node content "
                 "(while parsing a flow node at line 2, column 1)");
    expect_error("", NULL, "/etc/kc: empty document");
    expect_error("- 1\n", NULL, "/etc/kc: top level must be a mapping");
    expect_error("clusters: []\n", NULL, "/etc/kc: current-context: not set and no context given");
    expect_error(full_kubeconfig, "prod", "/etc/kc: contexts: no entry named \"prod\"");
    expect_error("current-context: x\ncontexts: [{name: x, context: {cluster: nope}}]\n"
                 "clusters: []\n",
                 NULL, "/etc/kc: clusters: no entry named \"nope\"");
    expect_error("current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n"
                 "clusters: [{name: c, cluster: {certificate-authority-data: " CA_B64 "}}]\n",
                 NULL, "/etc/kc: clusters[\"c\"].cluster.server: missing");
    expect_error("current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n"
                 "clusters: [{name: c, cluster: {server: 'ftp://h'}}]\n",
                 NULL,
                 "/etc/kc: clusters[\"c\"].cluster.server: must be an https:// URL (got "
                 "\"ftp://h\")");
    expect_error("current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n"
                 "clusters: [{name: c, cluster: {server: 'https://h', "
                 "certificate-authority-data: '!!'}}]\n",
                 NULL,
                 "/etc/kc: clusters[\"c\"].cluster.certificate-authority-data: invalid base64 at "
                 "offset 0");
    expect_error("current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n"
                 "clusters: [{name: c, cluster: {server: 'https://h', "
                 "insecure-skip-tls-verify: yes-please}}]\n",
                 NULL,
                 "/etc/kc: clusters[\"c\"].cluster.insecure-skip-tls-verify: must be true or "
                 "false (got \"yes-please\")");
    expect_error("current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n"
                 "clusters: [{name: c, cluster: {server: 'https://h', "
                 "insecure-skip-tls-verify: true, certificate-authority-data: " CA_B64 "}}]\n",
                 NULL,
                 "/etc/kc: clusters[\"c\"].cluster: insecure-skip-tls-verify and a certificate "
                 "authority are both set");
    expect_error("current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
                 "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
                 "users: [{name: u, user: {exec: {command: aws}}}]\n",
                 NULL,
                 "/etc/kc: users[\"u\"].user.exec: not supported (use a client certificate or a "
                 "token)");
    expect_error("current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
                 "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
                 "users: [{name: u, user: {client-certificate-data: " CERT_B64 "}}]\n",
                 NULL, "/etc/kc: users[\"u\"].user: client-certificate without client-key");
    expect_error("current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
                 "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
                 "users: [{name: u, user: {token: [a]}}]\n",
                 NULL, "/etc/kc: users[\"u\"].user.token: must be a string");
}

/* A kubeconfig is loaded under the bounds of every YAML document dagsched reads: an alias bomb
 * is refused at its first anchor, nesting past 16 levels where it starts, and more than 4 MiB
 * before it is parsed. */
static void test_yaml_bounds(void **state)
{
    (void)state;
    char *y = malloc(KUBE_CONFIG_MAX_FILE + 2);
    assert_non_null(y);
    int n = snprintf(y, KUBE_CONFIG_MAX_FILE, "%s", full_kubeconfig);
    assert_true(n > 0);
    size_t pos = (size_t)n;
    pos += (size_t)sprintf(y + pos, "preferences:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                                    "  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                                    "  c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n");
    expect_error(y, NULL, "/etc/kc: line 30, column 6: YAML anchors are not supported (got &a)");

    pos = (size_t)n;
    pos += (size_t)sprintf(y + pos, "preferences: ");
    for (int i = 0; i < 10000; i++)
        y[pos++] = '[';
    for (int i = 0; i < 10000; i++)
        y[pos++] = ']';
    y[pos] = '\0';
    expect_error(y, NULL, "/etc/kc: line 29, column 29: nesting deeper than 16 levels");

    memset(y, ' ', KUBE_CONFIG_MAX_FILE + 1);
    y[KUBE_CONFIG_MAX_FILE + 1] = '\0';
    expect_error(y, NULL, "/etc/kc: too large (got 4194305 bytes, limit 4194304)");
    free(y);
}

static void test_in_cluster(void **state)
{
    (void)state;
    char dir[64], path[512];
    assert_int_equal(ds_test_mkdtemp(dir, sizeof dir), 0);
    kube_config *cfg = NULL;
    ds_err err = {{0}};
    unsetenv("KUBERNETES_SERVICE_HOST");
    assert_int_equal(kube_config_in_cluster(dir, &cfg, &err), -1);
    assert_string_equal(err.msg, "in-cluster: KUBERNETES_SERVICE_HOST and "
                                 "KUBERNETES_SERVICE_PORT must be set");
    setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    assert_int_equal(kube_config_in_cluster(dir, &cfg, &err), -1);
    char want[700];
    snprintf(want, sizeof want,
             "in-cluster: service account token %s/token: No such file or directory", dir);
    assert_string_equal(err.msg, want);
    assert_int_equal(ds_test_write(dir, "token", "t0k", path, sizeof path), 0);
    assert_int_equal(ds_test_write(dir, "ca.crt", "ca", path, sizeof path), 0);
    assert_int_equal(ds_test_write(dir, "namespace", "dagsched-system\n", path, sizeof path), 0);
    assert_int_equal(kube_config_in_cluster(dir, &cfg, &err), 0);
    assert_string_equal(cfg->server, "https://[fd00::1]:443");
    assert_string_equal(cfg->namespace, "dagsched-system");
    snprintf(want, sizeof want, "%s/token", dir);
    assert_string_equal(cfg->token_file, want);
    snprintf(want, sizeof want, "%s/ca.crt", dir);
    assert_string_equal(cfg->ca_file, want);
    assert_string_equal(cfg->source, "in-cluster");
    kube_config_free(cfg);

    /* Chosen automatically when no kubeconfig exists. */
    kube_config_opts opts = {.sa_dir = dir};
    setenv("HOME", dir, 1);
    unsetenv("KUBECONFIG");
    assert_int_equal(kube_config_load(&opts, &cfg, &err), 0);
    assert_string_equal(cfg->source, "in-cluster");
    kube_config_free(cfg);
    unsetenv("KUBERNETES_SERVICE_HOST");
    assert_int_equal(kube_config_load(&opts, &cfg, &err), -1);
    assert_string_equal(err.msg, "no kubeconfig: set --kubeconfig or KUBECONFIG, create "
                                 "~/.kube/config, or run in a cluster");
    ds_test_rmdir(dir);
}

static void test_base64(void **state)
{
    (void)state;
    char *out;
    size_t n;
    ds_err err = {{0}};
    assert_int_equal(kutil_base64_decode("aGk=", 4, &out, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(out, "hi");
    free(out);
    assert_int_equal(kutil_base64_decode("aGk", 3, &out, &n, &err), 0);
    assert_string_equal(out, "hi");
    free(out);
    assert_int_equal(kutil_base64_decode("a", 1, &out, &n, &err), -1);
    assert_string_equal(err.msg, "invalid base64: truncated input");
    assert_int_equal(kutil_base64_decode("aG=k", 4, &out, &n, &err), -1);
    assert_string_equal(err.msg, "invalid base64 at offset 3");
}

/* Decode text and compare with want (n bytes, may hold NULs). */
static void decodes_to(const char *text, const char *want, size_t want_len)
{
    char *out = NULL;
    size_t n = 99;
    ds_err err = {{0}};
    assert_int_equal(kutil_base64_decode(text, strlen(text), &out, &n, &err), 0);
    assert_int_equal(n, want_len);
    assert_memory_equal(out, want, want_len);
    assert_int_equal(out[n], '\0');
    free(out);
}

static void fails_with(const char *text, const char *msg)
{
    char *out = (char *)1;
    size_t n = 99;
    ds_err err = {{0}};
    assert_int_equal(kutil_base64_decode(text, strlen(text), &out, &n, &err), -1);
    assert_string_equal(err.msg, msg);
    assert_null(out);
    assert_int_equal(n, 0);
}

/* Padding present, absent or partial; whitespace anywhere; every alphabet class; bytes above
 * 0x7f and NULs; and each kind of invalid input with the offset it names. */
static void test_base64_padding_and_errors(void **state)
{
    (void)state;
    decodes_to("", "", 0);
    decodes_to("Zg==", "f", 1);
    decodes_to("Zg=", "f", 1);
    decodes_to("Zg", "f", 1);
    decodes_to("Zm8=", "fo", 2);
    decodes_to("Zm8", "fo", 2);
    decodes_to("Zm9v", "foo", 3);
    decodes_to("Zm9vYmFy", "foobar", 6);
    decodes_to(" Zm9v\nYmFy\r\n\t", "foobar", 6);
    decodes_to("Zm9vYg==\n", "foob", 4);
    decodes_to("+/+/", "\xfb\xff\xbf", 3);
    decodes_to("AAAA", "\0\0\0", 3);
    decodes_to("aGVsbG8gY2VydAo=", "hello cert\n", 11);
    fails_with("Z", "invalid base64: truncated input");
    fails_with("Zm9vY", "invalid base64: truncated input");
    fails_with("Zg===", "invalid base64: truncated input");
    fails_with("Zm9v!", "invalid base64 at offset 4");
    fails_with("Zm-v", "invalid base64 at offset 2"); /* base64url is not accepted */
    fails_with("Zg==Zg==", "invalid base64 at offset 4");
    fails_with("Zg= =Zg", "invalid base64 at offset 5");
    fails_with("Zm9v\x80", "invalid base64 at offset 4");
}

static void test_log_formats(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    kube_log_setup(KUBE_LOG_INFO, KUBE_LOG_JSON, f);
    KLOG_DEBUG("t", "hidden");
    KLOG_WARN("informer", "a \"quoted\"\nline\x01");
    kube_log_setup(KUBE_LOG_INFO, KUBE_LOG_TEXT, f);
    KLOG_ERROR("client", "two\nlines");
    kube_log_setup(KUBE_LOG_INFO, KUBE_LOG_TEXT, NULL);
    fclose(f);
    /* Skip the timestamps: {"ts":"2026-01-02T03:04:05.678Z", is 33 characters. */
    char *nl = strchr(text, '\n');
    assert_non_null(nl);
    *nl = '\0';
    assert_int_equal(strncmp(text, "{\"ts\":\"", 7), 0);
    assert_string_equal(text + 33, "\"level\":\"warn\",\"component\":\"informer\",\"msg\":\"a "
                                   "\\\"quoted\\\"\\nline\\u0001\"}");
    assert_string_equal(nl + 1 + 24, " ERROR client: two lines\n");
    free(text);

    kube_log_level lv;
    kube_log_format fm;
    assert_int_equal(kube_log_level_parse("warn", &lv), 0);
    assert_int_equal(lv, KUBE_LOG_WARN);
    assert_int_equal(kube_log_level_parse("verbose", &lv), -1);
    assert_int_equal(kube_log_format_parse("json", &fm), 0);
    assert_int_equal(fm, KUBE_LOG_JSON);
    assert_int_equal(kube_log_format_parse("xml", &fm), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_current_context_cert_data),
        cmocka_unit_test(test_explicit_context_token_insecure),
        cmocka_unit_test(test_files_relative_to_kubeconfig),
        cmocka_unit_test(test_errors_name_file_and_field),
        cmocka_unit_test(test_yaml_bounds),
        cmocka_unit_test(test_in_cluster),
        cmocka_unit_test(test_base64),
        cmocka_unit_test(test_base64_padding_and_errors),
        cmocka_unit_test(test_log_formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
