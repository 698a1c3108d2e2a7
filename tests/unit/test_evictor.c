/* test_evictor.c: unit tests of the policy's evictor filter (lib/evictor.h): protected namespaces
 * and priority classes, the namespace selector (a namespace not seen yet is not selected), the pod
 * selector, the order of the checks and the reason names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "evictor.h"

/* Labels as "k=v" strings, NULL-terminated. */
static const char *get(const void *ctx, const char *key)
{
    static char value[64];
    for (const char *const *l = ctx; *l != NULL; l++) {
        const char *eq = strchr(*l, '=');
        if (eq != NULL && (size_t)(eq - *l) == strlen(key) && strncmp(*l, key, strlen(key)) == 0) {
            snprintf(value, sizeof value, "%s", eq + 1);
            return value;
        }
    }
    return NULL;
}

static void select_on(ds_label_selector *sel, const char *key, const char *value)
{
    snprintf(sel->key[sel->n], sizeof sel->key[0], "%s", key);
    snprintf(sel->value[sel->n], sizeof sel->value[0], "%s", value);
    sel->n++;
}

static const char *const team_ml[] = {"team=ml", NULL};
static const char *const tier_batch[] = {"tier=batch", "team=ml", NULL};
static const char *const none[] = {NULL};

static ds_evict_candidate pod(const char *ns, const char *pc, const char *const *labels,
                              bool ns_known, const char *const *ns_labels)
{
    return (ds_evict_candidate){.ns = ns,
                                .priority_class = pc,
                                .labels = {get, labels},
                                .ns_known = ns_known,
                                .ns_labels = {get, ns_labels}};
}

static void test_defaults(void **state)
{
    (void)state;
    ds_policy p;
    ds_policy_defaults(&p);
    ds_evict_candidate c = pod("ml", NULL, none, false, none);
    /* Empty selectors: any pod of any namespace, seen or not. */
    assert_int_equal(ds_evictor_filter(&p, &c), DS_EVICT_OK);
    c = pod("kube-system", NULL, none, true, none);
    assert_int_equal(ds_evictor_filter(&p, &c), DS_EVICT_PROTECTED_NS);
    c = pod("ml", "system-node-critical", none, true, none);
    assert_int_equal(ds_evictor_filter(&p, &c), DS_EVICT_PROTECTED_CLASS);
    c = pod("ml", "", none, true, none);
    assert_int_equal(ds_evictor_filter(&p, &c), DS_EVICT_OK);
}

static void test_selectors(void **state)
{
    (void)state;
    ds_policy p;
    ds_policy_defaults(&p);
    select_on(&p.opt_in_namespace_selector, "team", "ml");
    select_on(&p.opt_in_selector, "tier", "batch");
    ds_evict_candidate c = pod("ml", NULL, tier_batch, true, team_ml);
    assert_int_equal(ds_evictor_filter(&p, &c), DS_EVICT_OK);
    c = pod("ml", NULL, tier_batch, false, team_ml);
    assert_int_equal(ds_evictor_filter(&p, &c), DS_EVICT_NS_UNKNOWN);
    c = pod("web", NULL, tier_batch, true, none);
    assert_int_equal(ds_evictor_filter(&p, &c), DS_EVICT_NS_NOT_OPTED_IN);
    c = pod("ml", NULL, team_ml, true, team_ml);
    assert_int_equal(ds_evictor_filter(&p, &c), DS_EVICT_NOT_OPTED_IN);
    /* No lookup at all: matches only an empty selector. */
    c = (ds_evict_candidate){.ns = "ml", .ns_known = true, .ns_labels = {get, team_ml}};
    assert_int_equal(ds_evictor_filter(&p, &c), DS_EVICT_NOT_OPTED_IN);
    assert_true(ds_labels_match(&(ds_label_selector){0}, (ds_labels){0}));
}

/* The first failing check is the reason: protection before selection. */
static void test_order(void **state)
{
    (void)state;
    ds_policy p;
    ds_policy_defaults(&p);
    select_on(&p.opt_in_namespace_selector, "team", "ml");
    select_on(&p.opt_in_selector, "tier", "batch");
    ds_evict_candidate c = pod("kube-system", "system-cluster-critical", none, false, none);
    assert_int_equal(ds_evictor_filter(&p, &c), DS_EVICT_PROTECTED_NS);
    c = pod("ml", "system-cluster-critical", none, false, none);
    assert_int_equal(ds_evictor_filter(&p, &c), DS_EVICT_PROTECTED_CLASS);
    c = pod("ml", NULL, none, false, none);
    assert_int_equal(ds_evictor_filter(&p, &c), DS_EVICT_NS_UNKNOWN);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(ds_evict_reason_name(DS_EVICT_OK), "ok");
    assert_string_equal(ds_evict_reason_name(DS_EVICT_PROTECTED_NS), "protected-namespace");
    assert_string_equal(ds_evict_reason_name(DS_EVICT_PROTECTED_CLASS), "protected-priority-class");
    assert_string_equal(ds_evict_reason_name(DS_EVICT_NS_NOT_OPTED_IN), "namespace-not-opted-in");
    assert_string_equal(ds_evict_reason_name(DS_EVICT_NS_UNKNOWN), "namespace-unknown");
    assert_string_equal(ds_evict_reason_name(DS_EVICT_NOT_OPTED_IN), "not-opted-in");
    assert_string_equal(ds_evict_reason_name((ds_evict_reason)99), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_selectors),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
