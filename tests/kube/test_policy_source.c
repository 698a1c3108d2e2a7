/* test_policy_source.c: the active SchedulingPolicy from policy ConfigMaps (kube/policy_source.h),
 * as the extender and the controller use it: a valid load, which ConfigMap holds policy NAME,
 * an invalid version keeping the previous policy with its error, log line and Event message, the
 * ConfigMap's deletion, and the generation number. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube_test_util.h"
#include "log.h"
#include "policy_source.h"

#define MAX_CMS 4

/* A policy document; rho "1.5" is valid, "0.5" is not (0 or > 1). */
static void policy_doc(char *buf, size_t size, const char *name, const char *min_run,
                       const char *rho)
{
    snprintf(buf, size,
             "apiVersion: dagsched.io/v1alpha1\\nkind: SchedulingPolicy\\nmetadata: {name: %s}\\n"
             "spec:\\n  preemption: {minRunTime: %s, rho: %s}\\n",
             name, min_run, rho);
}

/* A decoded policy ConfigMap in namespace dagsched-system; data is a JSON object body. */
static kube_configmap *cm_with_data(const char *name, const char *uid, const char *rv,
                                    const char *data)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\",\"namespace\":"
             "\"dagsched-system\",\"uid\":\"%s\",\"resourceVersion\":\"%s\",\"labels\":"
             "{\"dagsched.io/kind\":\"SchedulingPolicy\"}},\"data\":{%s}}",
             name, uid, rv, data);
    kube_meta *m = ktest_decode(KUBE_KIND_CONFIGMAP, text);
    if (m == NULL)
        fail_msg("cannot decode the test ConfigMap");
    return (kube_configmap *)m;
}

/* A policy ConfigMap created at `created` (RFC 3339) whose document is policy `policy_name`. */
static kube_configmap *cm_policy_at(const char *name, const char *uid, const char *created,
                                    const char *policy_name, const char *min_run)
{
    char doc[1024], text[4096];
    policy_doc(doc, sizeof doc, policy_name, min_run, "2");
    snprintf(text, sizeof text,
             "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\",\"namespace\":"
             "\"dagsched-system\",\"uid\":\"%s\",\"resourceVersion\":\"1\","
             "\"creationTimestamp\":\"%s\"},\"data\":{\"policy.yaml\":\"%s\"}}",
             name, uid, created, doc);
    kube_meta *m = ktest_decode(KUBE_KIND_CONFIGMAP, text);
    if (m == NULL)
        fail_msg("cannot decode the test ConfigMap");
    return (kube_configmap *)m;
}

static kube_configmap *cm_policy(const char *name, const char *uid, const char *rv,
                                 const char *policy_name, const char *min_run, const char *rho)
{
    char doc[1024], data[1200];
    policy_doc(doc, sizeof doc, policy_name, min_run, rho);
    snprintf(data, sizeof data, "\"policy.yaml\":\"%s\"", doc);
    return cm_with_data(name, uid, rv, data);
}

typedef struct cm_set {
    const kube_configmap *cms[MAX_CMS];
    size_t n;
} cm_set;

static void set_free(cm_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        kube_obj_unref(&s->cms[i]->meta);
    s->n = 0;
}

static void set_add(cm_set *s, kube_configmap *cm)
{
    assert_true(s->n < MAX_CMS);
    s->cms[s->n++] = cm;
}

static kube_policy_outcome refresh(kube_policy_state *ps, const cm_set *s, const char *name,
                                   kube_policy_update *u)
{
    kube_policy_refresh(ps, s->cms, s->n, name, u);
    return u->outcome;
}

static void test_defaults_then_valid_load(void **state)
{
    (void)state;
    kube_policy_state ps;
    kube_policy_state_init(&ps);
    ds_policy def;
    ds_policy_defaults(&def);
    assert_int_equal(ps.generation, 1);
    assert_string_equal(ps.source, "built-in defaults");
    assert_false(ps.from_configmap);
    assert_true(ps.policy.preemption.min_run_s == def.preemption.min_run_s);

    /* No ConfigMap at all: nothing happens. */
    cm_set s = {.n = 0};
    kube_policy_update u;
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_UNCHANGED);
    assert_null(u.cm);
    assert_int_equal(ps.generation, 1);

    set_add(&s, cm_policy("dagsched-policy-default", "u1", "10", "default", "0s", "2"));
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_UPDATED);
    assert_ptr_equal(u.cm, s.cms[0]);
    assert_string_equal(u.error, "");
    assert_int_equal(ps.generation, 2);
    assert_string_equal(ps.source, "configmap dagsched-system/dagsched-policy-default");
    assert_string_equal(ps.policy.name, "default");
    assert_true(ps.policy.preemption.min_run_s == 0.0);
    assert_true(ps.policy.preemption.rho == 2.0);
    assert_true(ps.from_configmap);

    /* The same version again is not examined again. */
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_UNCHANGED);
    assert_null(u.cm);
    assert_int_equal(ps.generation, 2);
    set_free(&s);
}

static void test_name_resolution(void **state)
{
    (void)state;
    kube_policy_state ps;
    kube_policy_update u;
    cm_set s = {.n = 0};

    /* Policy "fast": the ConfigMap named exactly "fast" wins over dagsched-policy-fast, whatever
     * the order, and both win over a document named "fast" in another ConfigMap. */
    set_add(&s, cm_policy("by-doc", "u1", "1", "fast", "10s", "2"));
    set_add(&s, cm_policy("dagsched-policy-fast", "u2", "1", "other", "20s", "2"));
    set_add(&s, cm_policy("fast", "u3", "1", "whatever", "30s", "2"));
    set_add(&s, cm_policy("dagsched-policy-slow", "u4", "1", "slow", "40s", "2"));
    kube_policy_state_init(&ps);
    assert_int_equal(refresh(&ps, &s, "fast", &u), KUBE_POLICY_UPDATED);
    assert_string_equal(u.cm->meta.name, "fast");
    assert_true(ps.policy.preemption.min_run_s == 30.0);
    assert_string_equal(ps.policy.name, "whatever");

    /* Without the exact name: the prefixed one. */
    kube_obj_unref(&s.cms[2]->meta);
    s.cms[2] = s.cms[3];
    s.n = 3;
    kube_policy_state_init(&ps);
    assert_int_equal(refresh(&ps, &s, "fast", &u), KUBE_POLICY_UPDATED);
    assert_string_equal(ps.source, "configmap dagsched-system/dagsched-policy-fast");
    assert_true(ps.policy.preemption.min_run_s == 20.0);

    /* Without either: the ConfigMap whose document is metadata.name "fast". */
    kube_obj_unref(&s.cms[1]->meta);
    s.cms[1] = s.cms[2];
    s.n = 2;
    kube_policy_state_init(&ps);
    assert_int_equal(refresh(&ps, &s, "fast", &u), KUBE_POLICY_UPDATED);
    assert_string_equal(ps.source, "configmap dagsched-system/by-doc");
    assert_true(ps.policy.preemption.min_run_s == 10.0);

    /* A name nobody has: the defaults stay. */
    kube_policy_state_init(&ps);
    assert_int_equal(refresh(&ps, &s, "missing", &u), KUBE_POLICY_UNCHANGED);
    assert_int_equal(ps.generation, 1);
    assert_string_equal(ps.source, "built-in defaults");
    set_free(&s);

    /* The document may sit under another key when it is the only one. */
    char doc[1024], data[1200];
    policy_doc(doc, sizeof doc, "default", "5s", "2");
    snprintf(data, sizeof data, "\"custom.yaml\":\"%s\"", doc);
    set_add(&s, cm_with_data("default", "u5", "1", data));
    kube_policy_state_init(&ps);
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_UPDATED);
    assert_true(ps.policy.preemption.min_run_s == 5.0);
    set_free(&s);

    /* ...but not when there are several and none is policy.yaml. */
    snprintf(data, sizeof data, "\"a.yaml\":\"%s\",\"b\":\"x\"", doc);
    set_add(&s, cm_with_data("default", "u6", "1", data));
    kube_policy_state_init(&ps);
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_INVALID);
    assert_string_equal(u.error, "configmap dagsched-system/default: data: no \"policy.yaml\" key "
                                 "(and not exactly one key to use instead)");
    assert_int_equal(ps.generation, 1);
    set_free(&s);
}

/* Several ConfigMaps claiming one policy name: the choice does not depend on the order of the
 * list (the best claim, then the oldest, then the first by name), the others are counted and
 * named, and a warning names them once per change. */
static void test_duplicates(void **state)
{
    (void)state;
    FILE *logf = tmpfile();
    assert_non_null(logf);
    kube_log_setup(KUBE_LOG_INFO, KUBE_LOG_TEXT, logf);
    kube_configmap *zeta = cm_policy_at("zeta", "uz", "2026-01-01T00:00:00Z", "fast", "10s");
    kube_configmap *alpha = cm_policy_at("alpha", "ua", "2026-03-01T00:00:00Z", "fast", "20s");
    kube_configmap *beta = cm_policy_at("beta", "ub", "2026-01-01T00:00:00Z", "fast", "30s");
    kube_configmap *other = cm_policy_at("other", "uo", "2025-01-01T00:00:00Z", "slow", "40s");
    const kube_configmap *orders[2][4] = {{zeta, alpha, beta, other}, {other, beta, alpha, zeta}};
    for (int o = 0; o < 2; o++) {
        kube_policy_state ps;
        kube_policy_update u;
        kube_policy_state_init(&ps);
        kube_policy_refresh(&ps, orders[o], 4, "fast", &u);
        assert_int_equal(u.outcome, KUBE_POLICY_UPDATED);
        /* zeta and beta are the oldest; beta comes first by name. */
        assert_string_equal(ps.source, "configmap dagsched-system/beta");
        assert_true(ps.policy.preemption.min_run_s == 30.0);
        assert_string_equal(u.chosen, "dagsched-system/beta");
        assert_int_equal(ps.duplicates, 2);
        assert_true(u.duplicates_changed);
        assert_string_equal(ps.duplicate_names,
                            o == 0 ? "dagsched-system/zeta, dagsched-system/alpha"
                                   : "dagsched-system/alpha, dagsched-system/zeta");
        kube_policy_log("extender", "fast", &ps, &u);
        /* The same list again: nothing new to say. */
        kube_policy_refresh(&ps, orders[o], 4, "fast", &u);
        assert_int_equal(u.outcome, KUBE_POLICY_UNCHANGED);
        assert_false(u.duplicates_changed);
        assert_int_equal(ps.duplicates, 2);
        /* Without the duplicates: the change is reported, the count drops to 0. */
        const kube_configmap *alone[1] = {beta};
        kube_policy_refresh(&ps, alone, 1, "fast", &u);
        assert_true(u.duplicates_changed);
        assert_int_equal(ps.duplicates, 0);
        assert_string_equal(ps.duplicate_names, "");
        kube_policy_log("extender", "fast", &ps, &u);
    }
    /* A ConfigMap named after the policy comes before any document name, however old. */
    kube_configmap *named_cm = cm_policy_at("fast", "uf", "2026-06-01T00:00:00Z", "x", "50s");
    const kube_configmap *with_named[3] = {zeta, named_cm, beta};
    kube_policy_state ps;
    kube_policy_update u;
    kube_policy_state_init(&ps);
    kube_policy_refresh(&ps, with_named, 3, "fast", &u);
    assert_string_equal(ps.source, "configmap dagsched-system/fast");
    assert_int_equal(ps.duplicates, 2);
    char logged[4096];
    ktest_read_log(logf, logged, sizeof logged);
    kube_log_setup(KUBE_LOG_INFO, KUBE_LOG_TEXT, NULL);
    fclose(logf);
    assert_non_null(strstr(logged,
                           "WARN  extender: policy fast is claimed by 3 ConfigMaps: using "
                           "dagsched-system/beta (the ConfigMap named fast, else "
                           "dagsched-policy-fast, else the oldest whose document is named "
                           "fast), ignoring dagsched-system/zeta, dagsched-system/alpha\n"));
    assert_non_null(strstr(logged, "INFO  extender: policy fast: no other ConfigMap claims it any "
                                   "more\n"));
    kube_obj_unref(&zeta->meta);
    kube_obj_unref(&alpha->meta);
    kube_obj_unref(&beta->meta);
    kube_obj_unref(&other->meta);
    kube_obj_unref(&named_cm->meta);
}

static void test_invalid_keeps_previous(void **state)
{
    (void)state;
    FILE *logf = tmpfile();
    assert_non_null(logf);
    kube_log_setup(KUBE_LOG_INFO, KUBE_LOG_TEXT, logf);

    kube_policy_state ps;
    kube_policy_update u;
    cm_set s = {.n = 0};
    kube_policy_state_init(&ps);
    set_add(&s, cm_policy("dagsched-policy-default", "u1", "10", "default", "0s", "2"));
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_UPDATED);
    kube_policy_log("extender", "default", &ps, &u);
    set_free(&s);

    /* A new version with rho 0.5: refused, the policy of version 10 stays. */
    set_add(&s, cm_policy("dagsched-policy-default", "u1", "11", "default", "0s", "0.5"));
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_INVALID);
    assert_ptr_equal(u.cm, s.cms[0]);
    assert_string_equal(u.error, "configmap dagsched-system/dagsched-policy-default: "
                                 "data[policy.yaml]: spec.preemption.rho: must be > 1 (got 0.5)");
    assert_int_equal(ps.generation, 2);
    assert_true(ps.policy.preemption.rho == 2.0);
    assert_string_equal(ps.source, "configmap dagsched-system/dagsched-policy-default");
    kube_policy_log("extender", "default", &ps, &u);

    char msg[1024];
    kube_policy_event_message("dagsched-extender", &ps, &u, msg, sizeof msg);
    assert_string_equal(msg,
                        "dagsched-extender: configmap dagsched-system/dagsched-policy-default: "
                        "data[policy.yaml]: spec.preemption.rho: must be > 1 (got 0.5); "
                        "keeping policy default (generation 2)");
    /* A short buffer truncates the message, never overflows. */
    char small[16];
    kube_policy_event_message("dagsched-extender", &ps, &u, small, sizeof small);
    assert_string_equal(small, "dagsched-extend");

    /* Reported once: the same invalid version is not examined again. */
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_UNCHANGED);
    set_free(&s);

    /* A later valid version is taken. */
    set_add(&s, cm_policy("dagsched-policy-default", "u1", "12", "default", "0s", "3"));
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_UPDATED);
    assert_int_equal(ps.generation, 3);
    assert_true(ps.policy.preemption.rho == 3.0);
    set_free(&s);

    /* Invalid YAML before any valid policy: the defaults stay. */
    kube_policy_state_init(&ps);
    set_add(&s, cm_with_data("default", "u9", "1", "\"policy.yaml\":\"kind: [\""));
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_INVALID);
    assert_int_equal(ps.generation, 1);
    assert_string_equal(ps.source, "built-in defaults");
    assert_non_null(strstr(u.error, "configmap dagsched-system/default: data[policy.yaml]: "));
    set_free(&s);

    char logged[4096];
    ktest_read_log(logf, logged, sizeof logged);
    kube_log_setup(KUBE_LOG_INFO, KUBE_LOG_TEXT, NULL);
    fclose(logf);
    assert_non_null(strstr(logged, "INFO  extender: policy default from configmap "
                                   "dagsched-system/dagsched-policy-default is active (generation "
                                   "2)\n"));
    assert_non_null(strstr(logged, "ERROR extender: invalid policy, keeping policy default "
                                   "(generation 2) from configmap "
                                   "dagsched-system/dagsched-policy-default: configmap "
                                   "dagsched-system/dagsched-policy-default: data[policy.yaml]: "
                                   "spec.preemption.rho: must be > 1 (got 0.5)\n"));
}

static void test_deletion(void **state)
{
    (void)state;
    kube_policy_state ps;
    kube_policy_update u;
    cm_set s = {.n = 0}, none = {.n = 0};
    kube_policy_state_init(&ps);
    set_add(&s, cm_policy("default", "u1", "10", "default", "0s", "2"));
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_UPDATED);
    set_free(&s);

    /* The ConfigMap goes: reported once, its policy stays active. */
    assert_int_equal(refresh(&ps, &none, "default", &u), KUBE_POLICY_GONE);
    assert_null(u.cm);
    assert_int_equal(ps.generation, 2);
    assert_true(ps.policy.preemption.rho == 2.0);
    assert_int_equal(refresh(&ps, &none, "default", &u), KUBE_POLICY_UNCHANGED);
    assert_int_equal(ps.generation, 2);

    /* Created again (a new uid) with other content: loaded. */
    set_add(&s, cm_policy("default", "u2", "20", "default", "0s", "4"));
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_UPDATED);
    assert_int_equal(ps.generation, 3);
    assert_true(ps.policy.preemption.rho == 4.0);
    set_free(&s);

    /* Defaults active and no ConfigMap ever: nothing to report. */
    kube_policy_state_init(&ps);
    assert_int_equal(refresh(&ps, &none, "default", &u), KUBE_POLICY_UNCHANGED);
    assert_string_equal(kube_policy_outcome_name(KUBE_POLICY_GONE), "gone");
    assert_string_equal(kube_policy_outcome_name(KUBE_POLICY_UPDATED), "updated");
    assert_string_equal(kube_policy_outcome_name(KUBE_POLICY_INVALID), "invalid");
    assert_string_equal(kube_policy_outcome_name(KUBE_POLICY_UNCHANGED), "unchanged");
}

static void test_generation(void **state)
{
    (void)state;
    kube_policy_state ps;
    kube_policy_update u;
    cm_set s = {.n = 0};
    kube_policy_state_init(&ps);
    set_add(&s, cm_policy("default", "u1", "1", "default", "0s", "2"));
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_UPDATED);
    assert_int_equal(ps.generation, 2);
    set_free(&s);

    /* A new resourceVersion with the same content (a label change, say): no new generation. */
    set_add(&s, cm_policy("default", "u1", "2", "default", "0s", "2"));
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_UNCHANGED);
    assert_int_equal(ps.generation, 2);
    set_free(&s);

    /* Each change of content: +1. */
    set_add(&s, cm_policy("default", "u1", "3", "default", "10s", "2"));
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_UPDATED);
    assert_int_equal(ps.generation, 3);
    set_free(&s);
    set_add(&s, cm_policy("default", "u1", "4", "default", "10s", "0"));
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_UPDATED);
    assert_int_equal(ps.generation, 4);
    assert_true(ps.policy.preemption.rho == 0.0);
    set_free(&s);

    /* An invalid version in between does not count. */
    set_add(&s, cm_policy("default", "u1", "5", "default", "10s", "-1"));
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_INVALID);
    assert_int_equal(ps.generation, 4);
    set_free(&s);
    set_add(&s, cm_policy("default", "u1", "6", "default", "20s", "0"));
    assert_int_equal(refresh(&ps, &s, "default", &u), KUBE_POLICY_UPDATED);
    assert_int_equal(ps.generation, 5);
    set_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_then_valid_load),
        cmocka_unit_test(test_name_resolution),
        cmocka_unit_test(test_invalid_keeps_previous),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_deletion),
        cmocka_unit_test(test_generation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
