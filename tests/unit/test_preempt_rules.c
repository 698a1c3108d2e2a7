/* test_preempt_rules.c: unit tests of the rules that decide whether an eviction may pay for a
 * preemptor (lib/preempt_rules.h): a deadline that can no longer be met justifies no eviction,
 * in Algorithm 1 (lib/victim.h) and in the extender's preempt verb (lib/placement.h) alike, and
 * who may preempt whom across namespaces, with the policy fields that configure it. Every test
 * asserts exact decisions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "placement.h"
#include "policy.h"
#include "preempt_rules.h"
#include "victim.h"

#define GI ((int64_t)1 << 30)

/* Savable: slack at reference speed plus the time a node of this speed saves on the remaining
 * work (t_rem * (1 - 1/speed)) must not be negative. */
static void test_savable(void **state)
{
    (void)state;
    assert_true(ds_preemptor_savable(INFINITY, 100, 1.0)); /* no deadline */
    assert_false(ds_preemptor_savable(-INFINITY, 0, 1.0));
    assert_false(ds_preemptor_savable(NAN, 0, 1.0));
    assert_true(ds_preemptor_savable(0.0, 0, 1.0)); /* just in time */
    assert_true(ds_preemptor_savable(5.0, 20, 1.0));
    assert_false(ds_preemptor_savable(-3600.0, 20, 1.0)); /* the deadline passed an hour ago */
    assert_false(ds_preemptor_savable(-0.001, 0, 1.0));
    /* -5 s with 20 s left: on speed 2 it takes 10 s, so it gains 10 s: +5 s of slack. */
    assert_false(ds_preemptor_savable(-5.0, 20, 1.0));
    assert_true(ds_preemptor_savable(-5.0, 20, 2.0));
    assert_false(ds_preemptor_savable(-5.0, 20, 1.25)); /* gains 4 s: -1 s */
    /* A slow node loses time: +5 s slack, 20 s left at speed 0.5 takes 40 s: -15 s. */
    assert_false(ds_preemptor_savable(5.0, 20, 0.5));
    assert_true(ds_preemptor_savable(25.0, 20, 0.5));
    /* Unknown speed or remaining time: reference speed. */
    assert_false(ds_preemptor_savable(-5.0, 20, 0.0));
    assert_false(ds_preemptor_savable(-5.0, 20, NAN));
    assert_false(ds_preemptor_savable(-5.0, NAN, 2.0));
    assert_true(ds_preemptor_savable(5.0, INFINITY, 2.0));
}

static ds_policy trusted(const char *ns, bool higher)
{
    ds_policy p;
    ds_policy_defaults(&p);
    if (ns != NULL) {
        p.cross_ns_trusted.n = 1;
        snprintf(p.cross_ns_trusted.name[0], sizeof p.cross_ns_trusted.name[0], "%s", ns);
    }
    p.cross_ns_require_higher = higher;
    return p;
}

static void test_pair_defaults(void **state)
{
    (void)state;
    ds_policy p;
    ds_policy_defaults(&p);
    assert_int_equal(p.cross_ns_trusted.n, 0);
    assert_true(p.cross_ns_require_higher);
    ds_preempt_side a = {"team-a", 0}, same = {"team-a", 0}, other = {"team-b", 0};
    assert_int_equal(ds_preempt_pair_check(&p, &a, &same), DS_PAIR_OK);
    assert_int_equal(ds_preempt_pair_check(&p, &a, &other), DS_PAIR_CROSS_NS_UNTRUSTED);
    /* Even far above the victim, a namespace that is not trusted evicts nothing elsewhere. */
    ds_preempt_side high = {"team-a", 1000000};
    assert_int_equal(ds_preempt_pair_check(&p, &high, &other), DS_PAIR_CROSS_NS_UNTRUSTED);
    /* Never against a higher Kubernetes priority, also within a namespace. */
    ds_preempt_side up = {"team-a", 10};
    assert_int_equal(ds_preempt_pair_check(&p, &a, &up), DS_PAIR_HIGHER_PRIORITY);
    /* No namespace is never the same namespace. */
    ds_preempt_side none = {NULL, 0};
    assert_int_equal(ds_preempt_pair_check(&p, &none, &none), DS_PAIR_CROSS_NS_UNTRUSTED);
    assert_string_equal(ds_pair_reason_name(DS_PAIR_CROSS_NS_UNTRUSTED),
                        "cross-namespace-untrusted");
    assert_string_equal(ds_pair_reason_name(DS_PAIR_CROSS_NS_NOT_HIGHER),
                        "cross-namespace-not-higher");
    assert_string_equal(ds_pair_reason_name(DS_PAIR_HIGHER_PRIORITY), "higher-priority");
    assert_string_equal(ds_pair_reason_name(DS_PAIR_OK), "ok");
}

static void test_pair_trusted(void **state)
{
    (void)state;
    ds_policy p = trusted("platform", true);
    ds_preempt_side a = {"platform", 100}, eq = {"batch", 100}, low = {"batch", 99};
    assert_int_equal(ds_preempt_pair_check(&p, &a, &eq), DS_PAIR_CROSS_NS_NOT_HIGHER);
    assert_int_equal(ds_preempt_pair_check(&p, &a, &low), DS_PAIR_OK);
    ds_preempt_side b = {"batch", 100}, plat = {"platform", 0};
    assert_int_equal(ds_preempt_pair_check(&p, &b, &plat), DS_PAIR_CROSS_NS_UNTRUSTED);
    p = trusted("platform", false);
    assert_int_equal(ds_preempt_pair_check(&p, &a, &eq), DS_PAIR_OK);
    ds_preempt_side high = {"batch", 101};
    assert_int_equal(ds_preempt_pair_check(&p, &a, &high), DS_PAIR_HIGHER_PRIORITY);
}

static void test_policy_fields(void **state)
{
    (void)state;
    const char *doc = "apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\n"
                      "metadata: {name: t}\nspec:\n  preemption:\n    crossNamespace:\n"
                      "      trustedNamespaces: [platform, ml-prod]\n"
                      "      requireHigherPriority: false\n";
    ds_policy p;
    ds_err err = {{0}};
    assert_int_equal(ds_policy_parse(doc, strlen(doc), &p, &err), 0);
    assert_int_equal(p.cross_ns_trusted.n, 2);
    assert_string_equal(p.cross_ns_trusted.name[1], "ml-prod");
    assert_false(p.cross_ns_require_higher);
    const char *bad = "apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\n"
                      "metadata: {name: t}\nspec:\n  preemption:\n    crossNamespace:\n"
                      "      trustedNamespaces: [Not_A_Namespace]\n";
    assert_int_equal(ds_policy_parse(bad, strlen(bad), &p, &err), -1);
    assert_non_null(strstr(err.msg, "spec.preemption.crossNamespace.trustedNamespaces[0]"));
}

/* Algorithm 1: one 4-cpu node full of two evictable 2-cpu tasks, one urgent 2-cpu preemptor. */
static long run_one(double t_allow, double t_rem, double speed, ds_decision *out)
{
    ds_preempt_params p = {.epsilon_s = 30,
                           .epoch_s = 10,
                           .delta = 1.0,
                           .rho = 1.5,
                           .min_run_s = 60,
                           .max_victims_per_preemptor = 1,
                           .max_evictions = 10};
    ds_waiting_task w = {.job = DS_NO_TASK,
                         .priority = 1.0,
                         .t_allow_s = t_allow,
                         .t_rem_s = t_rem,
                         .request = {{2000, GI, 0, 0}}};
    ds_running_task r[2];
    for (size_t i = 0; i < 2; i++)
        r[i] = (ds_running_task){.job = DS_NO_TASK,
                                 .priority = 0.1 * (double)(i + 1),
                                 .t_allow_s = INFINITY,
                                 .ran_s = 600,
                                 .request = {{2000, GI, 0, 0}},
                                 .node = 0,
                                 .evictable = true};
    ds_node_free n = {.free_ = {{0, 0, 0, 0}}, .evictions_left = 5, .speed = speed};
    ds_err err = {{0}};
    long got = ds_select_victims(&w, 1, r, 2, &n, 1, NULL, 0, &p, out, 4, &err);
    if (got < 0)
        fail_msg("unexpected error: %s", err.msg);
    return got;
}

static void test_victims_only_when_savable(void **state)
{
    (void)state;
    ds_decision out[4];
    assert_int_equal(run_one(5.0, 20, 0.0, out), 1); /* urgent, savable */
    assert_int_equal(out[0].running, 0);
    assert_int_equal(out[0].reason, DS_REASON_URGENT);
    assert_int_equal(run_one(-3600.0, 20, 0.0, out), 0); /* the deadline passed */
    assert_int_equal(run_one(-5.0, 20, 1.0, out), 0);
    assert_int_equal(run_one(-5.0, 20, 2.0, out), 1); /* saved by the fast node */
    assert_int_equal(run_one(5.0, 20, 0.5, out), 0);  /* lost on the slow node */
    /* Invalid inputs are refused with the field named. */
    ds_preempt_params p = {
        .epsilon_s = 30, .epoch_s = 10, .delta = 1, .max_victims_per_preemptor = 1};
    ds_waiting_task w = {.job = DS_NO_TASK, .t_allow_s = 1, .t_rem_s = -1};
    ds_node_free n = {.speed = 1};
    ds_err err = {{0}};
    assert_int_equal(ds_select_victims(&w, 1, NULL, 0, &n, 1, NULL, 0, &p, out, 4, &err), -1);
    assert_non_null(strstr(err.msg, "waiting[0].t_rem_s"));
    w.t_rem_s = 0;
    n.speed = NAN;
    assert_int_equal(ds_select_victims(&w, 1, NULL, 0, &n, 1, NULL, 0, &p, out, 4, &err), -1);
    assert_non_null(strstr(err.msg, "nodes[0].speed"));
}

/* The remembered failure of one preemptor (no victim anywhere) must not bar a later preemptor of
 * the same request that is savable where the first was not. */
static void test_unsavable_failure_not_shared(void **state)
{
    (void)state;
    ds_preempt_params p = {.epsilon_s = 30,
                           .epoch_s = 10,
                           .delta = 1.0,
                           .rho = 1.5,
                           .min_run_s = 60,
                           .max_victims_per_preemptor = 1,
                           .max_evictions = 10};
    ds_waiting_task w[2] = {
        {.job = DS_NO_TASK, .priority = 2.0, .t_allow_s = -100, .request = {{2000, GI, 0, 0}}},
        {.job = DS_NO_TASK, .priority = 1.0, .t_allow_s = 5, .request = {{2000, GI, 0, 0}}},
    };
    ds_running_task r = {.job = DS_NO_TASK,
                         .priority = 0.1,
                         .t_allow_s = INFINITY,
                         .ran_s = 600,
                         .request = {{2000, GI, 0, 0}},
                         .node = 0,
                         .evictable = true};
    ds_node_free n = {.free_ = {{0, 0, 0, 0}}, .evictions_left = 5, .speed = 1};
    ds_decision out[4];
    ds_err err = {{0}};
    assert_int_equal(ds_select_victims(w, 2, &r, 1, &n, 1, NULL, 0, &p, out, 4, &err), 1);
    assert_int_equal(out[0].waiting, 1);
}

/* The extender's preempt verb: the same rules for victims kube-scheduler proposes. */
static void test_place_preempt_node(void **state)
{
    (void)state;
    ds_dag d;
    ds_task_spec t[1] = {{.name = "a", .runtime_s = 20}};
    ds_err err = {{0}};
    assert_int_equal(ds_dag_build(&d, t, 1, &err), 0);
    ds_preempt_params p = {.epsilon_s = 30,
                           .epoch_s = 10,
                           .delta = 1.0,
                           .rho = 1.5,
                           .min_run_s = 60,
                           .max_victims_per_preemptor = 1,
                           .max_evictions = 10};
    ds_place_preemptor a = {.task = {.job = 0,
                                     .task = 0,
                                     .priority = 1.0,
                                     .t_allow_s = -5.0,
                                     .t_rem_s = 20.0,
                                     .request = {{2000, GI, 0, 0}}},
                            .rank = 0,
                            .n_waiting = 1};
    ds_running_task v = {.job = DS_NO_TASK,
                         .priority = 0.1,
                         .t_allow_s = INFINITY,
                         .ran_s = 600,
                         .request = {{2000, GI, 0, 0}},
                         .node = 0,
                         .evictable = true};
    const ds_running_task *vs[1] = {&v};
    ds_node_view node = {
        .allocatable = {{2000, GI, 0, 0}}, .requested = {{2000, GI, 0, 0}}, .speed = 1.0};
    ds_victim_verdict out[1];
    bool keep = true;
    assert_int_equal(ds_place_preempt_node(&a, DS_PREEMPTOR_URGENT, &d, &node, vs, NULL, 1, 0.5, &p,
                                           out, &keep, &err),
                     0);
    assert_int_equal(out[0], DS_VICTIM_UNSAVABLE);
    assert_false(keep);
    assert_string_equal(ds_victim_verdict_name(DS_VICTIM_UNSAVABLE), "preemptor-unsavable");
    node.speed = 2.0; /* saved there */
    assert_int_equal(ds_place_preempt_node(&a, DS_PREEMPTOR_URGENT, &d, &node, vs, NULL, 1, 0.5, &p,
                                           out, &keep, &err),
                     1);
    assert_int_equal(out[0], DS_VICTIM_KEEP);
    assert_true(keep);
    ds_pair_reason pair[1] = {DS_PAIR_CROSS_NS_UNTRUSTED};
    assert_int_equal(ds_place_preempt_node(&a, DS_PREEMPTOR_URGENT, &d, &node, vs, pair, 1, 0.5, &p,
                                           out, &keep, &err),
                     0);
    assert_int_equal(out[0], DS_VICTIM_CROSS_NAMESPACE);
    assert_false(keep);
    assert_string_equal(ds_victim_verdict_name(DS_VICTIM_CROSS_NAMESPACE), "cross-namespace");
    ds_dag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_savable),
        cmocka_unit_test(test_pair_defaults),
        cmocka_unit_test(test_pair_trusted),
        cmocka_unit_test(test_policy_fields),
        cmocka_unit_test(test_victims_only_when_savable),
        cmocka_unit_test(test_unsavable_failure_not_shared),
        cmocka_unit_test(test_place_preempt_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
