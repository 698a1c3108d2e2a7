/* test_policy.c: unit tests of the SchedulingPolicy module: defaults from the papers, the shipped
 * policies in policies/, strict parsing (every validation error with its exact message), YAML
 * limits, validation of policies built in code, label selectors and name lists. Run from the
 * repository root (the Makefile does) so that policies/ can be read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evictor.h"
#include "policy.h"

#define HEAD       "apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\nmetadata:\n  name: t\n"
#define SPEC(body) HEAD "spec: " body "\n"

#define DNS_LABEL_REASON                                                                           \
    "must be a lowercase RFC 1123 label: at most 63 characters of a-z, 0-9 and '-', starting and " \
    "ending with an alphanumeric character"
#define DNS_SUBDOMAIN_REASON                                                                       \
    "must be a lowercase RFC 1123 subdomain: at most 253 characters of a-z, 0-9, '-' and '.', "    \
    "each '.'-separated part starting and ending with an alphanumeric character"
#define QUALIFIED_PREFIX_REASON                                                                    \
    "must be a qualified name: the prefix before '/' must be a lowercase RFC 1123 subdomain of "   \
    "at most 253 characters"
#define QUALIFIED_NAME_REASON                                                                      \
    "must be a qualified name: the name (after an optional prefix and '/') must be 1-63 "          \
    "characters of alphanumerics, '-', '_' and '.', starting and ending with an alphanumeric "     \
    "character"
#define LABEL_VALUE_REASON                                                                         \
    "must be at most 63 characters of alphanumerics, '-', '_' and '.', starting and ending with "  \
    "an alphanumeric character"
#define DURATION_WANT "must be a duration with a unit, such as \"10s\" or \"5m\""

/* Parse a document expected to fail: the message must match exactly and *out must stay as it
 * was. */
static void expect_error_len(const char *yaml, size_t len, const char *msg)
{
    ds_policy *p = malloc(sizeof *p);
    ds_policy *before = malloc(sizeof *before);
    assert_non_null(p);
    assert_non_null(before);
    memset(p, 0x5a, sizeof *p);
    memcpy(before, p, sizeof *p);
    ds_err err = {{0}};
    if (ds_policy_parse(yaml, len, p, &err) != -1)
        fail_msg("parsed, expected error \"%s\"", msg);
    assert_string_equal(err.msg, msg);
    assert_memory_equal(p, before, sizeof *p);
    /* Reporting every error starts with the same one and leaves *out alone too. */
    ds_err items[4];
    ds_errs all = {.items = items, .max = 4};
    assert_int_equal(ds_policy_parse_all(yaml, len, p, &all), -1);
    assert_true(all.n >= 1);
    assert_string_equal(items[0].msg, msg);
    assert_memory_equal(p, before, sizeof *p);
    free(p);
    free(before);
}

static void expect_error(const char *yaml, const char *msg)
{
    expect_error_len(yaml, strlen(yaml), msg);
}

static void parse_ok(const char *yaml, ds_policy *p)
{
    ds_err err = {{0}};
    int rc = ds_policy_parse(yaml, strlen(yaml), p, &err);
    if (rc != 0)
        fail_msg("unexpected error: %s", err.msg);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        fail_msg("cannot open %s (tests run from the repository root)", path);
    char *buf = malloc(DS_POLICY_MAX_BYTES + 1);
    assert_non_null(buf);
    size_t n = fread(buf, 1, DS_POLICY_MAX_BYTES + 1, f);
    assert_int_equal(ferror(f), 0);
    fclose(f);
    assert_true(n <= DS_POLICY_MAX_BYTES);
    *len = n;
    return buf;
}

static void parse_file(const char *path, ds_policy *p)
{
    size_t len;
    char *buf = read_file(path, &len);
    ds_err err = {{0}};
    int rc = ds_policy_parse(buf, len, p, &err);
    free(buf);
    if (rc != 0)
        fail_msg("%s: %s", path, err.msg);
}

static void assert_names(const ds_name_list *l, size_t n, const char *const *names)
{
    assert_int_equal(l->n, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(l->name[i], names[i]);
}

/* Every field except metadata.name. */
static void assert_same_settings(const ds_policy *a, const ds_policy *b)
{
    assert_true(a->priority.gamma == b->priority.gamma);
    assert_true(a->priority.w_remaining == b->priority.w_remaining);
    assert_true(a->priority.w_waiting == b->priority.w_waiting);
    assert_true(a->priority.w_slack == b->priority.w_slack);
    assert_int_equal(a->priority.slack_term, b->priority.slack_term);
    assert_true(a->priority.time_scale_s == b->priority.time_scale_s);
    assert_true(a->priority.min_remaining_s == b->priority.min_remaining_s);
    assert_int_equal(a->order.job_order, b->order.job_order);
    assert_true(a->order.starvation_s == b->order.starvation_s);
    assert_int_equal(a->order.within_job, b->order.within_job);
    assert_true(a->theta_cpu == b->theta_cpu);
    assert_true(a->theta_memory == b->theta_memory);
    assert_string_equal(a->speed_label, b->speed_label);
    assert_true(a->urgent_threshold_s == b->urgent_threshold_s);
    assert_int_equal(a->filter_infeasible_nodes, b->filter_infeasible_nodes);
    assert_true(a->packing.w_complementarity == b->packing.w_complementarity);
    assert_true(a->packing.w_best_fit == b->packing.w_best_fit);
    assert_true(a->packing.w_speed == b->packing.w_speed);
    assert_int_equal(a->gpu_resource_names.n, b->gpu_resource_names.n);
    for (size_t i = 0; i < a->gpu_resource_names.n; i++)
        assert_string_equal(a->gpu_resource_names.name[i], b->gpu_resource_names.name[i]);
    assert_int_equal(a->preemption_enabled, b->preemption_enabled);
    assert_true(a->preemption.epsilon_s == b->preemption.epsilon_s);
    assert_true(a->preemption.epoch_s == b->preemption.epoch_s);
    assert_true(a->preemption.delta == b->preemption.delta);
    assert_true(a->preemption.rho == b->preemption.rho);
    assert_true(a->preemption.tau_s == b->preemption.tau_s);
    assert_true(a->preemption.min_run_s == b->preemption.min_run_s);
    assert_int_equal(a->preemption.max_victims_per_preemptor,
                     b->preemption.max_victims_per_preemptor);
    assert_int_equal(a->preemption.max_evictions, b->preemption.max_evictions);
    assert_int_equal(a->max_evictions_per_node, b->max_evictions_per_node);
    assert_int_equal(a->max_evictions_per_namespace, b->max_evictions_per_namespace);
    assert_int_equal(a->max_evictions_per_minute, b->max_evictions_per_minute);
    assert_true(a->cooldown_s == b->cooldown_s);
    assert_int_equal(a->preemption.norm, b->preemption.norm);
    assert_int_equal(a->preemption.payoff, b->preemption.payoff);
    assert_double_near(a->preemption.start_latency_s, b->preemption.start_latency_s, 0);
    assert_int_equal(a->preemption.queue_order, b->preemption.queue_order);
    assert_int_equal(a->preemption.deadline_victims, b->preemption.deadline_victims);
    assert_int_equal(a->preemption.same_resource_first, b->preemption.same_resource_first);
    assert_true(a->preemption.long_task_s == b->preemption.long_task_s);
    assert_true(a->long_task_window_s == b->long_task_window_s);
    assert_int_equal(a->max_evictions_per_task, b->max_evictions_per_task);
    assert_int_equal(a->opt_in_selector.n, b->opt_in_selector.n);
    for (size_t i = 0; i < a->opt_in_selector.n; i++) {
        assert_string_equal(a->opt_in_selector.key[i], b->opt_in_selector.key[i]);
        assert_string_equal(a->opt_in_selector.value[i], b->opt_in_selector.value[i]);
    }
    assert_int_equal(a->opt_in_namespace_selector.n, b->opt_in_namespace_selector.n);
    for (size_t i = 0; i < a->opt_in_namespace_selector.n; i++) {
        assert_string_equal(a->opt_in_namespace_selector.key[i],
                            b->opt_in_namespace_selector.key[i]);
        assert_string_equal(a->opt_in_namespace_selector.value[i],
                            b->opt_in_namespace_selector.value[i]);
    }
    assert_int_equal(a->protected_namespaces.n, b->protected_namespaces.n);
    for (size_t i = 0; i < a->protected_namespaces.n; i++)
        assert_string_equal(a->protected_namespaces.name[i], b->protected_namespaces.name[i]);
    assert_int_equal(a->protected_priority_classes.n, b->protected_priority_classes.n);
    for (size_t i = 0; i < a->protected_priority_classes.n; i++)
        assert_string_equal(a->protected_priority_classes.name[i],
                            b->protected_priority_classes.name[i]);
    assert_int_equal(a->max_concurrent_releases, b->max_concurrent_releases);
    assert_int_equal(a->release_admission, b->release_admission);
    assert_int_equal(a->release_lookahead, b->release_lookahead);
    assert_int_equal(a->fairness_enabled, b->fairness_enabled);
    assert_string_equal(a->tenant_label, b->tenant_label);
    assert_double_near(a->gang_timeout_s, b->gang_timeout_s, 0);
    const ds_tenant_map *am[2] = {&a->tenant_weights, &a->tenant_caps};
    const ds_tenant_map *bm[2] = {&b->tenant_weights, &b->tenant_caps};
    for (int m = 0; m < 2; m++) {
        assert_int_equal(am[m]->n, bm[m]->n);
        for (size_t i = 0; i < am[m]->n; i++) {
            assert_string_equal(am[m]->name[i], bm[m]->name[i]);
            assert_double_near(am[m]->value[i], bm[m]->value[i], 0);
        }
    }
}

/* ---- defaults ---- */

static void test_defaults_are_the_papers(void **state)
{
    (void)state;
    ds_policy p;
    ds_policy_defaults(&p);
    assert_string_equal(p.name, "default");
    /* DSP paper: gamma 0.5, w1..w3 = 0.5, 0.3, 0.2, theta 0.5/0.5, delta 0.35. */
    assert_double_near(p.priority.gamma, 0.5, 0);
    assert_double_near(p.priority.w_remaining, 0.5, 0);
    assert_double_near(p.priority.w_waiting, 0.3, 0);
    assert_double_near(p.priority.w_slack, 0.2, 0);
    assert_double_near(p.theta_cpu, 0.5, 0);
    assert_double_near(p.theta_memory, 0.5, 0);
    assert_double_near(p.preemption.delta, 0.35, 0);
    /* Design resolutions: urgency slack term, 60 s time scale, 1 s floor, rho 1.5, epsilon 30 s,
     * epoch 10 s, tau off. */
    assert_int_equal(p.priority.slack_term, DS_SLACK_URGENCY);
    assert_double_near(p.priority.time_scale_s, 60.0, 0);
    assert_double_near(p.priority.min_remaining_s, 1.0, 0);
    assert_double_near(p.preemption.rho, 1.5, 0);
    assert_double_near(p.urgent_threshold_s, 30.0, 0);
    assert_double_near(p.preemption.epsilon_s, 30.0, 0);
    assert_double_near(p.preemption.epoch_s, 10.0, 0);
    assert_double_near(p.preemption.tau_s, 0.0, 0);
    /* Anti-thrash limits and the rest. */
    assert_double_near(p.preemption.min_run_s, 60.0, 0);
    assert_int_equal(p.preemption.max_victims_per_preemptor, 1);
    assert_int_equal(p.max_evictions_per_node, 1);
    assert_int_equal(p.max_evictions_per_namespace, 5);
    assert_int_equal(p.max_evictions_per_minute, 10);
    assert_int_equal(p.preemption.max_evictions, 10);
    assert_double_near(p.cooldown_s, 300.0, 0);
    assert_true(p.preemption_enabled);
    assert_true(p.filter_infeasible_nodes);
    assert_string_equal(p.speed_label, "dagsched.io/speed");
    assert_double_near(p.packing.w_complementarity, 0.4, 0);
    assert_double_near(p.packing.w_best_fit, 0.4, 0);
    assert_double_near(p.packing.w_speed, 0.2, 0);
    const char *gpus[] = {"nvidia.com/gpu", "amd.com/gpu"};
    assert_names(&p.gpu_resource_names, 2, gpus);
    assert_int_equal(p.opt_in_selector.n, 0);
    assert_int_equal(p.opt_in_namespace_selector.n, 0); /* every namespace */
    const char *ns[] = {"kube-system"};
    assert_names(&p.protected_namespaces, 1, ns);
    const char *pcs[] = {"system-cluster-critical", "system-node-critical"};
    assert_names(&p.protected_priority_classes, 2, pcs);
    assert_int_equal(p.max_concurrent_releases, 0);
    assert_int_equal(p.release_admission, DS_ADMIT_CAPACITY);
    assert_int_equal(p.release_lookahead, 2);
    /* Order across jobs, measured in the simulator (docs/simulator.md): jobs with the least
     * remaining work first, tasks waiting 20 minutes before everything else. */
    assert_int_equal(p.order.job_order, DS_ORDER_SHORTEST_REMAINING);
    assert_double_near(p.order.starvation_s, 1200.0, 0);

    ds_err err = {{0}};
    assert_int_equal(ds_policy_validate(&p, &err), 0);
}

static void test_minimal_document_gives_defaults(void **state)
{
    (void)state;
    ds_policy def, p;
    ds_policy_defaults(&def);
    const char *docs[] = {
        HEAD, SPEC("{}"), HEAD "spec:\n", SPEC("{preemption: {}, release: ~}"),
        "{apiVersion: dagsched.io/v1alpha1, kind: SchedulingPolicy, metadata: {name: t}}"};
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        parse_ok(docs[i], &p);
        assert_string_equal(p.name, "t");
        assert_same_settings(&p, &def);
    }
    /* Quoted values of string fields, explicit document markers and CRLF line ends are fine. */
    parse_ok("---\r\napiVersion: \"dagsched.io/v1alpha1\"\r\nkind: 'SchedulingPolicy'\r\n"
             "metadata:\r\n  name: \"my-policy.v2\"\r\n...\r\n",
             &p);
    assert_string_equal(p.name, "my-policy.v2");
    assert_same_settings(&p, &def);
}

static void test_absent_fields_keep_defaults(void **state)
{
    (void)state;
    ds_policy def, p;
    ds_policy_defaults(&def);
    parse_ok(SPEC("{preemption: {rho: 2.5, maxEvictionsPerMinute: 20}, deadlines: "
                  "{urgentThreshold: 1m30s}, packing: {gpuResourceNames: []}}"),
             &p);
    assert_double_near(p.preemption.rho, 2.5, 0);
    assert_int_equal(p.max_evictions_per_minute, 20);
    assert_int_equal(p.preemption.max_evictions, 20); /* mirrors maxEvictionsPerMinute */
    assert_double_near(p.urgent_threshold_s, 90.0, 0);
    assert_double_near(p.preemption.epsilon_s, 90.0, 0); /* mirrors urgentThreshold */
    assert_int_equal(p.gpu_resource_names.n, 0);
    /* Everything else as before. */
    p.preemption.rho = def.preemption.rho;
    p.max_evictions_per_minute = def.max_evictions_per_minute;
    p.preemption.max_evictions = def.preemption.max_evictions;
    p.urgent_threshold_s = def.urgent_threshold_s;
    p.preemption.epsilon_s = def.preemption.epsilon_s;
    p.gpu_resource_names = def.gpu_resource_names;
    assert_same_settings(&p, &def);
}

/* The document of the design, in full. */
static void test_full_document(void **state)
{
    (void)state;
    const char *doc =
        "apiVersion: dagsched.io/v1alpha1\n"
        "kind: SchedulingPolicy\n"
        "metadata:\n"
        "  name: example\n"
        "spec:\n"
        "  priority: {gamma: 0.25, weights: {remaining: 1, waiting: 0, slack: 2.5e-1}, "
        "slackTerm: literal, timeScale: 2m, minRemaining: 250ms}\n"
        "  order: {acrossJobs: leastSlack, starvationThreshold: 90s, withinJob: criticalPath}\n"
        "  nodeSpeed: {theta: {cpu: 0.75, memory: 0.25}, speedLabel: example.com/node-speed}\n"
        "  deadlines: {urgentThreshold: 0s, filterInfeasibleNodes: false}\n"
        "  packing: {weights: {complementarity: 1, bestFit: 0, speed: 0}, gpuResourceNames: "
        "[gpu.intel.com/i915]}\n"
        "  preemption:\n"
        "    enabled: false\n"
        "    epoch: 1h\n"
        "    delta: 1\n"
        "    rho: 0          # DSP without normalised preemption\n"
        "    tau: 0.05s\n"
        "    minRunTime: 0\n"
        "    maxVictimsPerPreemptor: 64\n"
        "    maxEvictionsPerNode: 1000\n"
        "    maxEvictionsPerNamespace: 10000\n"
        "    maxEvictionsPerMinute: 10000\n"
        "    cooldown: 168h\n"
        "    podSelector: {matchLabels: {dagsched.io/preemptable: \"true\", tier: batch, "
        "empty: \"\"}}\n"
        "    namespaceSelector:\n"
        "      matchLabels:\n"
        "        team.example.com/preemption: opted-in\n"
        "        env: \"batch\"\n"
        "    protectedNamespaces: []\n"
        "    protectedPriorityClasses:\n"
        "      - system-node-critical\n"
        "      - high.priority\n"
        "  release: {maxConcurrentReleases: 100000, admission: all, lookahead: 10000}\n";
    ds_policy p;
    parse_ok(doc, &p);
    assert_string_equal(p.name, "example");
    assert_double_near(p.priority.gamma, 0.25, 0);
    assert_double_near(p.priority.w_remaining, 1.0, 0);
    assert_double_near(p.priority.w_waiting, 0.0, 0);
    assert_double_near(p.priority.w_slack, 0.25, 0);
    assert_int_equal(p.priority.slack_term, DS_SLACK_LITERAL);
    assert_double_near(p.priority.time_scale_s, 120.0, 0);
    assert_double_near(p.priority.min_remaining_s, 0.25, 1e-12);
    assert_int_equal(p.order.job_order, DS_ORDER_LEAST_SLACK);
    assert_double_near(p.order.starvation_s, 90.0, 0);
    assert_int_equal(p.order.within_job, DS_WITHIN_CRITICAL_PATH);
    assert_double_near(p.theta_cpu, 0.75, 0);
    assert_double_near(p.theta_memory, 0.25, 0);
    assert_string_equal(p.speed_label, "example.com/node-speed");
    assert_double_near(p.urgent_threshold_s, 0.0, 0);
    assert_double_near(p.preemption.epsilon_s, 0.0, 0);
    assert_false(p.filter_infeasible_nodes);
    assert_double_near(p.packing.w_complementarity, 1.0, 0);
    assert_double_near(p.packing.w_best_fit, 0.0, 0);
    const char *gpus[] = {"gpu.intel.com/i915"};
    assert_names(&p.gpu_resource_names, 1, gpus);
    assert_false(p.preemption_enabled);
    assert_double_near(p.preemption.epoch_s, 3600.0, 0);
    assert_double_near(p.preemption.delta, 1.0, 0);
    assert_double_near(p.preemption.rho, 0.0, 0);
    assert_double_near(p.preemption.tau_s, 0.05, 1e-12);
    assert_double_near(p.preemption.min_run_s, 0.0, 0);
    assert_int_equal(p.preemption.max_victims_per_preemptor, 64);
    assert_int_equal(p.max_evictions_per_node, 1000);
    assert_int_equal(p.max_evictions_per_namespace, 10000);
    assert_int_equal(p.max_evictions_per_minute, 10000);
    assert_int_equal(p.preemption.max_evictions, 10000);
    assert_double_near(p.cooldown_s, 604800.0, 0);
    assert_int_equal(p.opt_in_selector.n, 3);
    assert_string_equal(p.opt_in_selector.key[0], "dagsched.io/preemptable");
    assert_string_equal(p.opt_in_selector.value[0], "true");
    assert_string_equal(p.opt_in_selector.key[1], "tier");
    assert_string_equal(p.opt_in_selector.value[1], "batch");
    assert_string_equal(p.opt_in_selector.key[2], "empty");
    assert_string_equal(p.opt_in_selector.value[2], "");
    assert_int_equal(p.opt_in_namespace_selector.n, 2);
    assert_string_equal(p.opt_in_namespace_selector.key[0], "team.example.com/preemption");
    assert_string_equal(p.opt_in_namespace_selector.value[0], "opted-in");
    assert_string_equal(p.opt_in_namespace_selector.key[1], "env");
    assert_string_equal(p.opt_in_namespace_selector.value[1], "batch");
    assert_int_equal(p.protected_namespaces.n, 0);
    const char *pcs[] = {"system-node-critical", "high.priority"};
    assert_names(&p.protected_priority_classes, 2, pcs);
    assert_int_equal(p.max_concurrent_releases, 100000);
    assert_int_equal(p.release_admission, DS_ADMIT_ALL);
    assert_int_equal(p.release_lookahead, 10000);
}

static void test_null_selector_selects_all(void **state)
{
    (void)state;
    ds_policy p;
    parse_ok(SPEC("{preemption: {podSelector: {}}}"), &p);
    assert_int_equal(p.opt_in_selector.n, 0);
    parse_ok(SPEC("{preemption: {podSelector: {matchLabels: ~}}}"), &p);
    assert_int_equal(p.opt_in_selector.n, 0);
    parse_ok(SPEC("{preemption: {podSelector: {matchLabels: {}}}}"), &p);
    assert_int_equal(p.opt_in_selector.n, 0);

    /* The same for the namespace selector: absent, {}, null or empty matchLabels. */
    const char *docs[] = {
        SPEC("{preemption: {}}"),
        SPEC("{preemption: {namespaceSelector: {}}}"),
        SPEC("{preemption: {namespaceSelector: ~}}"),
        HEAD "spec:\n  preemption:\n    namespaceSelector:\n",
        SPEC("{preemption: {namespaceSelector: {matchLabels: ~}}}"),
        SPEC("{preemption: {namespaceSelector: {matchLabels: {}}}}"),
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        parse_ok(docs[i], &p);
        assert_int_equal(p.opt_in_namespace_selector.n, 0);
    }
}

/* The two opt-in selectors are separate fields: one never fills the other. */
/* Labels as parallel arrays (NULL entries skipped), for ds_labels_match. */
typedef struct {
    const char *const *keys, *const *values;
    size_t n;
} label_arrays;

static const char *label_get(const void *ctx, const char *key)
{
    const label_arrays *a = ctx;
    for (size_t j = 0; a->keys != NULL && a->values != NULL && j < a->n; j++)
        if (a->keys[j] != NULL && a->values[j] != NULL && strcmp(a->keys[j], key) == 0)
            return a->values[j];
    return NULL;
}

static bool sel_match(const ds_label_selector *sel, const char *const *keys,
                      const char *const *values, size_t n)
{
    label_arrays a = {keys, values, n};
    return ds_labels_match(sel, (ds_labels){.get = label_get, .ctx = &a});
}

static void test_selectors_are_separate(void **state)
{
    (void)state;
    ds_policy p;
    parse_ok(SPEC("{preemption: {namespaceSelector: {matchLabels: {team: ml}}}}"), &p);
    assert_int_equal(p.opt_in_selector.n, 0);
    assert_int_equal(p.opt_in_namespace_selector.n, 1);
    assert_string_equal(p.opt_in_namespace_selector.key[0], "team");
    assert_string_equal(p.opt_in_namespace_selector.value[0], "ml");
    parse_ok(SPEC("{preemption: {podSelector: {matchLabels: {team: ml}}}}"), &p);
    assert_int_equal(p.opt_in_selector.n, 1);
    assert_int_equal(p.opt_in_namespace_selector.n, 0);
    parse_ok(SPEC("{preemption: {podSelector: {matchLabels: {app: etl}}, "
                  "namespaceSelector: {matchLabels: {team: ml, env: prod}}}}"),
             &p);
    assert_int_equal(p.opt_in_selector.n, 1);
    assert_string_equal(p.opt_in_selector.key[0], "app");
    assert_int_equal(p.opt_in_namespace_selector.n, 2);
    assert_string_equal(p.opt_in_namespace_selector.key[1], "env");
    assert_string_equal(p.opt_in_namespace_selector.value[1], "prod");
    /* Namespace labels are matched like pod labels (all entries, exact values). */
    const char *keys[] = {"kubernetes.io/metadata.name", "team", "env"};
    const char *vals[] = {"ml-batch", "ml", "prod"};
    const char *stage[] = {"ml-batch", "ml", "staging"};
    assert_true(sel_match(&p.opt_in_namespace_selector, keys, vals, 3));
    assert_false(sel_match(&p.opt_in_namespace_selector, keys, stage, 3));
    assert_false(sel_match(&p.opt_in_namespace_selector, keys, vals, 2));
}

/* ---- shipped policies ---- */

static void test_every_shipped_policy_parses(void **state)
{
    (void)state;
    DIR *d = opendir("policies");
    if (d == NULL)
        fail_msg("cannot open policies/ (tests run from the repository root)");
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".yaml") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "policies/%s", e->d_name);
        ds_policy p;
        parse_file(path, &p);
        /* metadata.name is the file name without .yaml. */
        assert_int_equal(strlen(p.name), n - 5);
        assert_memory_equal(p.name, e->d_name, n - 5);
        count++;
    }
    closedir(d);
    assert_true(count >= 3);
}

static void test_shipped_default(void **state)
{
    (void)state;
    ds_policy def, p;
    ds_policy_defaults(&def);
    parse_file("policies/default.yaml", &p);
    assert_string_equal(p.name, "default");
    assert_same_settings(&p, &def);
}

static void test_shipped_packing_first(void **state)
{
    (void)state;
    ds_policy p;
    parse_file("policies/packing-first.yaml", &p);
    assert_double_near(p.priority.w_remaining, 0.4, 0);
    assert_double_near(p.priority.w_waiting, 0.5, 0);
    assert_double_near(p.priority.w_slack, 0.1, 0);
    assert_double_near(p.priority.time_scale_s, 300.0, 0);
    assert_double_near(p.priority.min_remaining_s, 5.0, 0);
    assert_double_near(p.theta_cpu, 0.3, 0);
    assert_double_near(p.theta_memory, 0.7, 0);
    assert_double_near(p.urgent_threshold_s, 10.0, 0);
    assert_double_near(p.preemption.epsilon_s, 10.0, 0);
    assert_false(p.filter_infeasible_nodes);
    assert_double_near(p.packing.w_complementarity, 0.5, 0);
    assert_double_near(p.packing.w_best_fit, 0.45, 0);
    assert_double_near(p.packing.w_speed, 0.05, 0);
    const char *gpus[] = {"nvidia.com/gpu"};
    assert_names(&p.gpu_resource_names, 1, gpus);
    assert_true(p.preemption_enabled);
    assert_double_near(p.preemption.epoch_s, 30.0, 0);
    assert_double_near(p.preemption.delta, 0.2, 0);
    assert_double_near(p.preemption.rho, 3.0, 0);
    assert_double_near(p.preemption.tau_s, 1800.0, 0);
    assert_double_near(p.preemption.min_run_s, 600.0, 0);
    assert_int_equal(p.max_evictions_per_namespace, 2);
    assert_int_equal(p.max_evictions_per_minute, 4);
    assert_int_equal(p.preemption.max_evictions, 4);
    assert_double_near(p.cooldown_s, 1800.0, 0);
    assert_int_equal(p.opt_in_selector.n, 1);
    assert_string_equal(p.opt_in_selector.key[0], "dagsched.io/preemptable");
    assert_string_equal(p.opt_in_selector.value[0], "true");
    const char *ns[] = {"kube-system", "monitoring"};
    assert_names(&p.protected_namespaces, 2, ns);
    assert_int_equal(p.max_concurrent_releases, 200);
}

static void test_shipped_deadline_strict(void **state)
{
    (void)state;
    ds_policy p;
    parse_file("policies/deadline-strict.yaml", &p);
    assert_double_near(p.priority.gamma, 0.8, 0);
    assert_double_near(p.priority.w_remaining, 0.3, 0);
    assert_double_near(p.priority.w_waiting, 0.1, 0);
    assert_double_near(p.priority.w_slack, 0.6, 0);
    assert_double_near(p.theta_cpu, 0.6, 0);
    assert_double_near(p.theta_memory, 0.4, 0);
    assert_double_near(p.urgent_threshold_s, 120.0, 0);
    assert_double_near(p.preemption.epsilon_s, 120.0, 0);
    assert_true(p.filter_infeasible_nodes);
    assert_double_near(p.packing.w_speed, 0.5, 0);
    assert_double_near(p.packing.w_complementarity, 0.25, 0);
    assert_double_near(p.preemption.epoch_s, 5.0, 0);
    assert_double_near(p.preemption.delta, 0.5, 0);
    assert_double_near(p.preemption.rho, 1.2, 0);
    assert_double_near(p.preemption.tau_s, 900.0, 0);
    assert_double_near(p.preemption.min_run_s, 30.0, 0);
    assert_int_equal(p.preemption.max_victims_per_preemptor, 2);
    assert_int_equal(p.max_evictions_per_node, 2);
    assert_int_equal(p.max_evictions_per_namespace, 10);
    assert_int_equal(p.max_evictions_per_minute, 20);
    assert_double_near(p.cooldown_s, 120.0, 0);
    assert_int_equal(p.opt_in_selector.n, 0);
    const char *ns[] = {"kube-system", "ingress-nginx"};
    assert_names(&p.protected_namespaces, 2, ns);
    const char *pcs[] = {"system-cluster-critical", "system-node-critical", "production-critical"};
    assert_names(&p.protected_priority_classes, 3, pcs);
}

/* ---- errors ---- */

typedef struct error_case {
    const char *yaml;
    const char *msg;
} error_case;

static void run_cases(const error_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        expect_error(cases[i].yaml, cases[i].msg);
}

static void test_document_errors(void **state)
{
    (void)state;
    static const error_case cases[] = {
        {"", "YAML document: empty"},
        {"# only a comment\n", "YAML document: empty"},
        {"- a\n", "policy document: must be a mapping (got a list)"},
        {"hello", "policy document: must be a mapping (got \"hello\")"},
        {"---\n", "policy document: must be a mapping (got null)"},
        {"kind: SchedulingPolicy\nmetadata: {name: t}\n", "apiVersion: required"},
        {"apiVersion: v1\nkind: SchedulingPolicy\nmetadata: {name: t}\n",
         "apiVersion: must be dagsched.io/v1alpha1 (got \"v1\")"},
        {"apiVersion: {a: 1}\nkind: SchedulingPolicy\n",
         "apiVersion: must be dagsched.io/v1alpha1 (got a mapping)"},
        {"apiVersion: dagsched.io/v1alpha1\nmetadata: {name: t}\n", "kind: required"},
        /* A document of another kind is named as such, before its unknown fields. */
        {"apiVersion: dagsched.io/v1alpha1\nkind: Deployment\nspec: {replicas: 1}\n",
         "kind: must be SchedulingPolicy (got \"Deployment\")"},
        {"apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\n", "metadata.name: required"},
        {"apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\nmetadata:\n",
         "metadata.name: required"},
        {"apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\nmetadata: {}\n",
         "metadata.name: required"},
        {"apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\nmetadata: [a]\n",
         "metadata: must be a mapping (got a list)"},
        {HEAD "kind: SchedulingPolicy\n", "kind: duplicate key"},
        {HEAD "status: {}\n", "status: unknown field"},
        {"apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\n"
         "metadata: {name: t, labels: {a: b}}\n",
         "metadata.labels: unknown field"},
        {"apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: Default}\n",
         "metadata.name: " DNS_SUBDOMAIN_REASON " (got \"Default\")"},
        {"apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: a..b}\n",
         "metadata.name: " DNS_SUBDOMAIN_REASON " (got \"a..b\")"},
        {"apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: \"\"}\n",
         "metadata.name: must not be empty (got \"\")"},
        {"apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: 5}\n",
         "metadata.name: must be a string; quote it (got 5)"},
        {"apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: ~}\n",
         "metadata.name: must be a string (got null)"},
        {SPEC("[]"), "spec: must be a mapping (got a list)"},
        {SPEC("{priority: fast}"), "spec.priority: must be a mapping (got \"fast\")"},
        {SPEC("{preemption: {rhoo: 2}}"), "spec.preemption.rhoo: unknown field"},
        {SPEC("{preemption: {podSelector: {matchExpressions: []}}}"),
         "spec.preemption.podSelector.matchExpressions: unknown field"},
        {SPEC("{preemption: {namespaceSelector: {matchExpressions: []}}}"),
         "spec.preemption.namespaceSelector.matchExpressions: unknown field"},
        {SPEC("{preemption: {namespaceSelector: {names: [batch]}}}"),
         "spec.preemption.namespaceSelector.names: unknown field"},
        {SPEC("{preemption: {namespaceSelector: {matchLabels: {a: b}, matchLabels: {c: d}}}}"),
         "spec.preemption.namespaceSelector.matchLabels: duplicate key"},
        {SPEC("{preemption: {nameSpaceSelector: {}}}"),
         "spec.preemption.nameSpaceSelector: unknown field"},
        {SPEC("{\"a b\": 1}"), "spec[\"a b\"]: unknown field"},
        {SPEC("{Priority: {}}"), "spec.Priority: unknown field"},
        {HEAD "spec:\n  preemption:\n    rho: 2\n    rho: 3\n",
         "spec.preemption.rho: duplicate key"},
        {HEAD "spec:\n  release: {}\n  release: {}\n", "spec.release: duplicate key"},
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

/* ds_policy_parse_all reports every bad field in document order, at most max messages with all
 * counted; then, once the fields are good, every broken rule across fields. */
static void test_every_error(void **state)
{
    (void)state;
    const char *doc = HEAD "spec:\n"
                           "  preemption: {rho: 0.5, bogus: 1}\n"
                           "  deadlines: {urgentThreshold: 5}\n"
                           "  extra: true\n";
    ds_policy p;
    ds_err items[8];
    ds_errs all = {.items = items, .max = 8};
    assert_int_equal(ds_policy_parse_all(doc, strlen(doc), &p, &all), -1);
    assert_int_equal(all.n, 4);
    ds_err first = {{0}};
    assert_int_equal(ds_policy_parse(doc, strlen(doc), &p, &first), -1);
    assert_string_equal(items[0].msg, first.msg);
    assert_non_null(strstr(items[0].msg, "spec.preemption.rho"));
    assert_string_equal(items[1].msg, "spec.preemption.bogus: unknown field");
    assert_non_null(strstr(items[2].msg, "spec.deadlines.urgentThreshold"));
    assert_string_equal(items[3].msg, "spec.extra: unknown field");
    /* Bounded: two kept, four counted. */
    ds_errs two = {.items = items, .max = 2};
    assert_int_equal(ds_policy_parse_all(doc, strlen(doc), &p, &two), -1);
    assert_int_equal(two.n, 4);
    assert_string_equal(items[1].msg, "spec.preemption.bogus: unknown field");
    /* Rules across fields: each one broken. */
    const char *cross = HEAD "spec:\n"
                             "  priority: {weights: {remaining: 0, waiting: 0, slack: 0}}\n"
                             "  packing: {weights: {complementarity: 0, bestFit: 0, speed: 0}}\n";
    assert_int_equal(ds_policy_parse_all(cross, strlen(cross), &p, &all), -1);
    assert_int_equal(all.n, 2);
    assert_string_equal(items[0].msg, "spec.priority.weights: must not all be 0");
    assert_string_equal(items[1].msg, "spec.packing.weights: must not all be 0");
    /* A valid document: no error, the policy as ds_policy_parse gives it. */
    const char *good = HEAD;
    ds_policy q;
    assert_int_equal(ds_policy_parse_all(good, strlen(good), &p, &all), 0);
    assert_int_equal(all.n, 0);
    parse_ok(good, &q);
    assert_memory_equal(&p, &q, sizeof p);
    assert_int_equal(ds_policy_parse_all(good, strlen(good), &p, NULL), -1);
}

static void test_type_errors(void **state)
{
    (void)state;
    static const error_case cases[] = {
        {SPEC("{preemption: {delta: abc}}"),
         "spec.preemption.delta: must be a number (got \"abc\")"},
        {SPEC("{preemption: {delta: \"0.5\"}}"),
         "spec.preemption.delta: must be a number (got \"0.5\")"},
        {SPEC("{preemption: {delta: .inf}}"),
         "spec.preemption.delta: must be a number (got \".inf\")"},
        {SPEC("{preemption: {delta: 0x1}}"),
         "spec.preemption.delta: must be a number (got \"0x1\")"},
        {SPEC("{preemption: {delta: }}"), "spec.preemption.delta: must be a number (got null)"},
        {SPEC("{preemption: {delta: [1]}}"),
         "spec.preemption.delta: must be a number (got a list)"},
        {SPEC("{preemption: {delta: 1e999}}"),
         "spec.preemption.delta: must be a finite number (got 1e999)"},
        {SPEC("{preemption: {enabled: yes}}"),
         "spec.preemption.enabled: must be true or false (got \"yes\")"},
        {SPEC("{preemption: {enabled: True}}"),
         "spec.preemption.enabled: must be true or false (got \"True\")"},
        {SPEC("{preemption: {enabled: \"true\"}}"),
         "spec.preemption.enabled: must be true or false (got \"true\")"},
        {SPEC("{deadlines: {filterInfeasibleNodes: 1}}"),
         "spec.deadlines.filterInfeasibleNodes: must be true or false (got \"1\")"},
        {SPEC("{preemption: {maxEvictionsPerNode: 2.5}}"),
         "spec.preemption.maxEvictionsPerNode: must be an integer (got \"2.5\")"},
        {SPEC("{preemption: {maxEvictionsPerNode: 010}}"),
         "spec.preemption.maxEvictionsPerNode: must be an integer (got \"010\")"},
        {SPEC("{preemption: {maxEvictionsPerNode: \"2\"}}"),
         "spec.preemption.maxEvictionsPerNode: must be an integer (got \"2\")"},
        {SPEC("{preemption: {maxEvictionsPerNode: 1e3}}"),
         "spec.preemption.maxEvictionsPerNode: must be an integer (got \"1e3\")"},
        {SPEC("{priority: {slackTerm: inverse}}"),
         "spec.priority.slackTerm: must be one of urgency, literal (got \"inverse\")"},
        {SPEC("{priority: {slackTerm: {a: 1}}}"),
         "spec.priority.slackTerm: must be one of urgency, literal (got a mapping)"},
        {SPEC("{order: {acrossJobs: fifo}}"),
         "spec.order.acrossJobs: must be one of dsp, leastSlack, shortestRemaining (got \"fifo\")"},
        {SPEC("{order: {acrossJobs: ShortestRemaining}}"),
         "spec.order.acrossJobs: must be one of dsp, leastSlack, shortestRemaining (got "
         "\"ShortestRemaining\")"},
        {SPEC("{order: {acrossJobs: [dsp]}}"),
         "spec.order.acrossJobs: must be one of dsp, leastSlack, shortestRemaining (got a list)"},
        {SPEC("{order: {starvationThreshold: 300}}"),
         "spec.order.starvationThreshold: " DURATION_WANT " (got \"300\")"},
        {SPEC("{order: {starvationThreshold: -1s}}"),
         "spec.order.starvationThreshold: " DURATION_WANT " (got \"-1s\")"},
        {SPEC("{order: {across: dsp}}"), "spec.order.across: unknown field"},
        {SPEC("{order: {withinJob: longestPath}}"),
         "spec.order.withinJob: must be one of dsp, criticalPath (got \"longestPath\")"},
        {SPEC("{order: {withinJob: [dsp]}}"),
         "spec.order.withinJob: must be one of dsp, criticalPath (got a list)"},
        {SPEC("{preemption: {epoch: abc}}"),
         "spec.preemption.epoch: " DURATION_WANT " (got \"abc\")"},
        {SPEC("{preemption: {epoch: 10}}"),
         "spec.preemption.epoch: " DURATION_WANT " (got \"10\")"},
        {SPEC("{preemption: {epoch: -5s}}"),
         "spec.preemption.epoch: " DURATION_WANT " (got \"-5s\")"},
        {SPEC("{preemption: {cooldown: 1d}}"),
         "spec.preemption.cooldown: " DURATION_WANT " (got \"1d\")"},
        {SPEC("{preemption: {epoch: ~}}"), "spec.preemption.epoch: " DURATION_WANT " (got null)"},
        {SPEC("{preemption: {epoch: [10s]}}"),
         "spec.preemption.epoch: " DURATION_WANT " (got a list)"},
        {SPEC("{preemption: {protectedNamespaces: kube-system}}"),
         "spec.preemption.protectedNamespaces: must be a list (got \"kube-system\")"},
        {SPEC("{preemption: {protectedNamespaces: }}"),
         "spec.preemption.protectedNamespaces: must be a list (got null)"},
        {SPEC("{preemption: {protectedNamespaces: [{a: b}]}}"),
         "spec.preemption.protectedNamespaces[0]: must be a string (got a mapping)"},
        {SPEC("{preemption: {protectedNamespaces: [default, no]}}"),
         "spec.preemption.protectedNamespaces[1]: must be a string; quote it (got no)"},
        {SPEC("{preemption: {protectedPriorityClasses: [1.5]}}"),
         "spec.preemption.protectedPriorityClasses[0]: must be a string; quote it (got 1.5)"},
        {SPEC("{nodeSpeed: {speedLabel: [a]}}"),
         "spec.nodeSpeed.speedLabel: must be a string (got a list)"},
        {SPEC("{nodeSpeed: {speedLabel: off}}"),
         "spec.nodeSpeed.speedLabel: must be a string; quote it (got off)"},
        {SPEC("{nodeSpeed: {speedLabel: 0x1F}}"),
         "spec.nodeSpeed.speedLabel: must be a string; quote it (got 0x1F)"},
        {SPEC("{preemption: {protectedNamespaces: [0b1_0]}}"),
         "spec.preemption.protectedNamespaces[0]: must be a string; quote it (got 0b1_0)"},
        /* Not a number in YAML: an ordinary (here invalid) namespace name. */
        {SPEC("{preemption: {protectedNamespaces: [0xZZ]}}"),
         "spec.preemption.protectedNamespaces[0]: " DNS_LABEL_REASON " (got \"0xZZ\")"},
        {SPEC("{preemption: {podSelector: {matchLabels: [a]}}}"),
         "spec.preemption.podSelector.matchLabels: must be a mapping (got a list)"},
        {SPEC("{preemption: {podSelector: {matchLabels: {dagsched.io/preemptable: true}}}}"),
         "spec.preemption.podSelector.matchLabels[\"dagsched.io/preemptable\"]: must be a string; "
         "quote it (got true)"},
        {SPEC("{preemption: {podSelector: {matchLabels: {tier: }}}}"),
         "spec.preemption.podSelector.matchLabels[\"tier\"]: must be a string (got null)"},
        {SPEC("{preemption: {podSelector: [a]}}"),
         "spec.preemption.podSelector: must be a mapping (got a list)"},
        {SPEC("{preemption: {namespaceSelector: [a]}}"),
         "spec.preemption.namespaceSelector: must be a mapping (got a list)"},
        {SPEC("{preemption: {namespaceSelector: batch}}"),
         "spec.preemption.namespaceSelector: must be a mapping (got \"batch\")"},
        {SPEC("{preemption: {namespaceSelector: {matchLabels: [a]}}}"),
         "spec.preemption.namespaceSelector.matchLabels: must be a mapping (got a list)"},
        {SPEC("{preemption: {namespaceSelector: {matchLabels: team}}}"),
         "spec.preemption.namespaceSelector.matchLabels: must be a mapping (got \"team\")"},
        {SPEC("{preemption: {namespaceSelector: {matchLabels: {preempt: yes}}}}"),
         "spec.preemption.namespaceSelector.matchLabels[\"preempt\"]: must be a string; quote it "
         "(got yes)"},
        {SPEC("{preemption: {namespaceSelector: {matchLabels: {tier: }}}}"),
         "spec.preemption.namespaceSelector.matchLabels[\"tier\"]: must be a string (got null)"},
        {SPEC("{preemption: {namespaceSelector: {matchLabels: {tier: {a: b}}}}}"),
         "spec.preemption.namespaceSelector.matchLabels[\"tier\"]: must be a string (got a "
         "mapping)"},
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

static void test_range_errors(void **state)
{
    (void)state;
    static const error_case cases[] = {
        {SPEC("{priority: {gamma: 0}}"), "spec.priority.gamma: must be > 0 (got 0)"},
        {SPEC("{priority: {gamma: 1}}"), "spec.priority.gamma: must be < 1 (got 1)"},
        {SPEC("{priority: {gamma: -0.5}}"), "spec.priority.gamma: must be > 0 (got -0.5)"},
        {SPEC("{priority: {weights: {remaining: -0.1}}}"),
         "spec.priority.weights.remaining: must be >= 0 (got -0.1)"},
        {SPEC("{priority: {weights: {waiting: 1001}}}"),
         "spec.priority.weights.waiting: must be <= 1000 (got 1001)"},
        {SPEC("{priority: {weights: {slack: -1}}}"),
         "spec.priority.weights.slack: must be >= 0 (got -1)"},
        {SPEC("{priority: {weights: {remaining: 0, waiting: 0, slack: 0}}}"),
         "spec.priority.weights: must not all be 0"},
        {SPEC("{order: {starvationThreshold: 169h}}"),
         "spec.order.starvationThreshold: must be <= 168h (got 169h)"},
        {SPEC("{priority: {timeScale: 500ms}}"),
         "spec.priority.timeScale: must be >= 1s (got 500ms)"},
        {SPEC("{priority: {timeScale: 25h}}"), "spec.priority.timeScale: must be <= 24h (got 25h)"},
        {SPEC("{priority: {minRemaining: 0}}"),
         "spec.priority.minRemaining: must be >= 1ms (got 0)"},
        {SPEC("{priority: {minRemaining: 2h}}"),
         "spec.priority.minRemaining: must be <= 1h (got 2h)"},
        {SPEC("{nodeSpeed: {theta: {cpu: 1.5, memory: 0}}}"),
         "spec.nodeSpeed.theta.cpu: must be <= 1 (got 1.5)"},
        {SPEC("{nodeSpeed: {theta: {memory: -0.5}}}"),
         "spec.nodeSpeed.theta.memory: must be >= 0 (got -0.5)"},
        {SPEC("{nodeSpeed: {theta: {cpu: 0.5, memory: 0.4}}}"),
         "spec.nodeSpeed.theta: cpu + memory must be 1 (got 0.9)"},
        {SPEC("{nodeSpeed: {theta: {cpu: 1}}}"),
         "spec.nodeSpeed.theta: cpu + memory must be 1 (got 1.5)"},
        {SPEC("{deadlines: {urgentThreshold: 25h}}"),
         "spec.deadlines.urgentThreshold: must be <= 24h (got 25h)"},
        {SPEC("{packing: {weights: {complementarity: -0.4}}}"),
         "spec.packing.weights.complementarity: must be >= 0 (got -0.4)"},
        {SPEC("{packing: {weights: {bestFit: 2000}}}"),
         "spec.packing.weights.bestFit: must be <= 1000 (got 2000)"},
        {SPEC("{packing: {weights: {speed: -1}}}"),
         "spec.packing.weights.speed: must be >= 0 (got -1)"},
        {SPEC("{packing: {weights: {complementarity: 0, bestFit: 0, speed: 0}}}"),
         "spec.packing.weights: must not all be 0"},
        {SPEC("{preemption: {epoch: 500ms}}"), "spec.preemption.epoch: must be >= 1s (got 500ms)"},
        {SPEC("{preemption: {epoch: 2h}}"), "spec.preemption.epoch: must be <= 1h (got 2h)"},
        {SPEC("{preemption: {delta: 1.5}}"), "spec.preemption.delta: must be <= 1 (got 1.5)"},
        {SPEC("{preemption: {delta: -0.1}}"), "spec.preemption.delta: must be >= 0 (got -0.1)"},
        {SPEC("{preemption: {rho: 0.5}}"), "spec.preemption.rho: must be > 1 (got 0.5)"},
        {SPEC("{preemption: {rho: 1}}"), "spec.preemption.rho: must be > 1 (got 1)"},
        {SPEC("{preemption: {rho: -2}}"), "spec.preemption.rho: must be > 1 (got -2)"},
        {SPEC("{preemption: {rho: 5000}}"), "spec.preemption.rho: must be <= 1000 (got 5000)"},
        {SPEC("{preemption: {tau: 200h}}"), "spec.preemption.tau: must be <= 168h (got 200h)"},
        {SPEC("{preemption: {minRunTime: 25h}}"),
         "spec.preemption.minRunTime: must be <= 24h (got 25h)"},
        {SPEC("{preemption: {cooldown: 169h}}"),
         "spec.preemption.cooldown: must be <= 168h (got 169h)"},
        {SPEC("{preemption: {maxVictimsPerPreemptor: 0}}"),
         "spec.preemption.maxVictimsPerPreemptor: must be >= 1 (got 0)"},
        {SPEC("{preemption: {maxVictimsPerPreemptor: 65}}"),
         "spec.preemption.maxVictimsPerPreemptor: must be <= 64 (got 65)"},
        {SPEC("{preemption: {maxEvictionsPerNode: -1}}"),
         "spec.preemption.maxEvictionsPerNode: must be >= 1 (got -1)"},
        {SPEC("{preemption: {maxEvictionsPerNode: 1001}}"),
         "spec.preemption.maxEvictionsPerNode: must be <= 1000 (got 1001)"},
        {SPEC("{preemption: {maxEvictionsPerNode: 99999999999999999999999}}"),
         "spec.preemption.maxEvictionsPerNode: must be <= 1000 (got 99999999999999999999999)"},
        {SPEC("{preemption: {maxEvictionsPerNamespace: 0}}"),
         "spec.preemption.maxEvictionsPerNamespace: must be >= 1 (got 0)"},
        {SPEC("{preemption: {maxEvictionsPerNamespace: 10001}}"),
         "spec.preemption.maxEvictionsPerNamespace: must be <= 10000 (got 10001)"},
        {SPEC("{preemption: {maxEvictionsPerMinute: 0}}"),
         "spec.preemption.maxEvictionsPerMinute: must be >= 1 (got 0)"},
        {SPEC("{preemption: {maxEvictionsPerMinute: 10001}}"),
         "spec.preemption.maxEvictionsPerMinute: must be <= 10000 (got 10001)"},
        {SPEC("{release: {maxConcurrentReleases: -1}}"),
         "spec.release.maxConcurrentReleases: must be >= 0 (got -1)"},
        {SPEC("{release: {maxConcurrentReleases: 100001}}"),
         "spec.release.maxConcurrentReleases: must be <= 100000 (got 100001)"},
        {SPEC("{release: {lookahead: -1}}"), "spec.release.lookahead: must be >= 0 (got -1)"},
        {SPEC("{release: {lookahead: 10001}}"),
         "spec.release.lookahead: must be <= 10000 (got 10001)"},
        {SPEC("{release: {admission: fifo}}"),
         "spec.release.admission: must be one of capacity, all (got \"fifo\")"},
        {SPEC("{release: {admission: [capacity]}}"),
         "spec.release.admission: must be one of capacity, all (got a list)"},
        /* Cross-field rules. */
        {SPEC("{preemption: {maxVictimsPerPreemptor: 2}}"),
         "spec.preemption.maxVictimsPerPreemptor: must be <= spec.preemption.maxEvictionsPerNode "
         "(1) (got 2)"},
        {SPEC("{preemption: {maxEvictionsPerNamespace: 11}}"),
         "spec.preemption.maxEvictionsPerNamespace: must be <= "
         "spec.preemption.maxEvictionsPerMinute (10) (got 11)"},
        {SPEC("{preemption: {maxEvictionsPerMinute: 4}}"),
         "spec.preemption.maxEvictionsPerNamespace: must be <= "
         "spec.preemption.maxEvictionsPerMinute (4) (got 5)"},
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

static void test_name_errors(void **state)
{
    (void)state;
    static const error_case cases[] = {
        {SPEC("{preemption: {protectedNamespaces: [Kube_System]}}"),
         "spec.preemption.protectedNamespaces[0]: " DNS_LABEL_REASON " (got \"Kube_System\")"},
        {SPEC("{preemption: {protectedNamespaces: [a.b]}}"),
         "spec.preemption.protectedNamespaces[0]: " DNS_LABEL_REASON " (got \"a.b\")"},
        {SPEC("{preemption: {protectedNamespaces: [kube-system, team-a, kube-system]}}"),
         "spec.preemption.protectedNamespaces[2]: duplicate entry (got \"kube-system\")"},
        {SPEC("{preemption: {protectedNamespaces: [\"\"]}}"),
         "spec.preemption.protectedNamespaces[0]: must not be empty (got \"\")"},
        {SPEC("{preemption: {protectedPriorityClasses: [-high]}}"),
         "spec.preemption.protectedPriorityClasses[0]: " DNS_SUBDOMAIN_REASON " (got \"-high\")"},
        {SPEC("{packing: {gpuResourceNames: [gpu]}}"),
         "spec.packing.gpuResourceNames[0]: must be an extended resource name with a domain "
         "prefix, such as nvidia.com/gpu (got \"gpu\")"},
        {SPEC("{packing: {gpuResourceNames: [kubernetes.io/gpu]}}"),
         "spec.packing.gpuResourceNames[0]: must not use the kubernetes.io domain (reserved for "
         "built-in resources) (got \"kubernetes.io/gpu\")"},
        {SPEC("{packing: {gpuResourceNames: [x.kubernetes.io/gpu]}}"),
         "spec.packing.gpuResourceNames[0]: must not use the kubernetes.io domain (reserved for "
         "built-in resources) (got \"x.kubernetes.io/gpu\")"},
        {SPEC("{packing: {gpuResourceNames: [example.com/a/b]}}"),
         "spec.packing.gpuResourceNames[0]: must be a qualified name: at most one '/' (got "
         "\"example.com/a/b\")"},
        {SPEC("{packing: {gpuResourceNames: [nvidia.com/gpu, nvidia.com/gpu]}}"),
         "spec.packing.gpuResourceNames[1]: duplicate entry (got \"nvidia.com/gpu\")"},
        {SPEC("{nodeSpeed: {speedLabel: Example.com/speed}}"),
         "spec.nodeSpeed.speedLabel: " QUALIFIED_PREFIX_REASON " (got \"Example.com/speed\")"},
        {SPEC("{nodeSpeed: {speedLabel: /speed}}"),
         "spec.nodeSpeed.speedLabel: " QUALIFIED_PREFIX_REASON " (got \"/speed\")"},
        {SPEC("{nodeSpeed: {speedLabel: example.com/-speed}}"),
         "spec.nodeSpeed.speedLabel: " QUALIFIED_NAME_REASON " (got \"example.com/-speed\")"},
        {SPEC("{nodeSpeed: {speedLabel: \"\"}}"),
         "spec.nodeSpeed.speedLabel: must not be empty (got \"\")"},
        {SPEC("{preemption: {podSelector: {matchLabels: {-bad: x}}}}"),
         "spec.preemption.podSelector.matchLabels: key " QUALIFIED_NAME_REASON " (got \"-bad\")"},
        {SPEC("{preemption: {podSelector: {matchLabels: {\"A.io/x\": y}}}}"),
         "spec.preemption.podSelector.matchLabels: key " QUALIFIED_PREFIX_REASON
         " (got \"A.io/x\")"},
        {SPEC("{preemption: {podSelector: {matchLabels: {tier: -x}}}}"),
         "spec.preemption.podSelector.matchLabels[\"tier\"]: " LABEL_VALUE_REASON " (got \"-x\")"},
        {SPEC("{preemption: {podSelector: {matchLabels: {tier: \"a b\"}}}}"),
         "spec.preemption.podSelector.matchLabels[\"tier\"]: " LABEL_VALUE_REASON " (got \"a b\")"},
        {SPEC("{preemption: {podSelector: {matchLabels: {tier: a, tier: b}}}}"),
         "spec.preemption.podSelector.matchLabels[\"tier\"]: duplicate key"},
        {SPEC("{preemption: {namespaceSelector: {matchLabels: {-bad: x}}}}"),
         "spec.preemption.namespaceSelector.matchLabels: key " QUALIFIED_NAME_REASON
         " (got \"-bad\")"},
        {SPEC("{preemption: {namespaceSelector: {matchLabels: {\"Team.io/x\": y}}}}"),
         "spec.preemption.namespaceSelector.matchLabels: key " QUALIFIED_PREFIX_REASON
         " (got \"Team.io/x\")"},
        {SPEC("{preemption: {namespaceSelector: {matchLabels: {\"\": y}}}}"),
         "spec.preemption.namespaceSelector.matchLabels: key must not be empty (got \"\")"},
        {SPEC("{preemption: {namespaceSelector: {matchLabels: {tier: batch-}}}}"),
         "spec.preemption.namespaceSelector.matchLabels[\"tier\"]: " LABEL_VALUE_REASON
         " (got \"batch-\")"},
        {SPEC("{preemption: {namespaceSelector: {matchLabels: {team: a, team: b}}}}"),
         "spec.preemption.namespaceSelector.matchLabels[\"team\"]: duplicate key"},
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

/* Long strings: the value shown in the message is cut short. */
static void test_long_strings(void **state)
{
    (void)state;
    char name[300];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    char doc[1024], msg[1024];
    snprintf(doc, sizeof doc,
             "apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: %s}\n",
             name);
    snprintf(msg, sizeof msg, "metadata.name: %s (got \"%.64s\"...)", DNS_SUBDOMAIN_REASON, name);
    expect_error(doc, msg);

    /* 253 characters in parts of 63: the longest valid name. */
    char longest[254];
    memset(longest, 'b', 253);
    longest[63] = longest[127] = longest[191] = '.';
    longest[253] = '\0';
    snprintf(doc, sizeof doc,
             "apiVersion: dagsched.io/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: %s}\n",
             longest);
    ds_policy p;
    parse_ok(doc, &p);
    assert_string_equal(p.name, longest);

    /* A valid extended resource name (253-character prefix limit) longer than a list entry. */
    char prefix[241];
    memset(prefix, 'g', 240);
    prefix[240] = '\0';
    snprintf(doc, sizeof doc, SPEC("{packing: {gpuResourceNames: [%s/gpu-0123456789abcdef]}}"),
             prefix);
    expect_error(doc, "spec.packing.gpuResourceNames[0]: must be at most 253 characters (got 261)");

    char value[70];
    memset(value, 'v', 64);
    value[64] = '\0';
    snprintf(doc, sizeof doc, SPEC("{preemption: {podSelector: {matchLabels: {k: %s}}}}"), value);
    snprintf(msg, sizeof msg, "spec.preemption.podSelector.matchLabels[\"k\"]: %s (got \"%s\")",
             LABEL_VALUE_REASON, value);
    expect_error(doc, msg);
    value[63] = '\0'; /* 63 is the limit */
    snprintf(doc, sizeof doc, SPEC("{preemption: {podSelector: {matchLabels: {k: %s}}}}"), value);
    parse_ok(doc, &p);
    assert_string_equal(p.opt_in_selector.value[0], value);
}

/* head (a SPEC(...) line, its newline dropped), n entries of fmt ("k%d: v", i from 0) separated
 * by ", ", then tail, into doc. */
static void many_entries(char *doc, size_t size, const char *head, const char *fmt, int n,
                         const char *tail)
{
    size_t pos = (size_t)snprintf(doc, size, "%s", head) - 1;
    for (int i = 0; i < n; i++) {
        pos += (size_t)snprintf(doc + pos, size - pos, "%s", i ? ", " : "");
        pos += (size_t)snprintf(doc + pos, size - pos, fmt, i);
    }
    snprintf(doc + pos, size - pos, "%s", tail);
}

static void test_list_limits(void **state)
{
    (void)state;
    char doc[4096];
    const char *ns_list = SPEC("{preemption: {protectedNamespaces: [");
    many_entries(doc, sizeof doc, ns_list, "ns-%d", DS_POLICY_MAX_LIST + 1, "]}}\n");
    expect_error(doc, "spec.preemption.protectedNamespaces: must have at most 32 entries (got 33)");
    /* Exactly 32 entries is fine. */
    many_entries(doc, sizeof doc, ns_list, "ns-%d", DS_POLICY_MAX_LIST, "]}}\n");
    ds_policy p;
    parse_ok(doc, &p);
    assert_int_equal(p.protected_namespaces.n, DS_POLICY_MAX_LIST);
    assert_string_equal(p.protected_namespaces.name[31], "ns-31");

    many_entries(doc, sizeof doc, SPEC("{preemption: {podSelector: {matchLabels: {"), "k%d: v",
                 DS_POLICY_MAX_LABELS + 1, "}}}}\n");
    expect_error(doc, "spec.preemption.podSelector.matchLabels: must have at most 16 entries (got "
                      "17)");

    const char *ns_sel = SPEC("{preemption: {namespaceSelector: {matchLabels: {");
    many_entries(doc, sizeof doc, ns_sel, "k%d: v", DS_POLICY_MAX_LABELS + 1, "}}}}\n");
    expect_error(doc, "spec.preemption.namespaceSelector.matchLabels: must have at most 16 entries "
                      "(got 17)");
    /* Exactly 16 entries is fine. */
    many_entries(doc, sizeof doc, ns_sel, "k%d: v", DS_POLICY_MAX_LABELS, "}}}}\n");
    parse_ok(doc, &p);
    assert_int_equal(p.opt_in_namespace_selector.n, DS_POLICY_MAX_LABELS);
    assert_string_equal(p.opt_in_namespace_selector.key[15], "k15");
    assert_int_equal(p.opt_in_selector.n, 0);
}

static void test_yaml_syntax_errors(void **state)
{
    (void)state;
    static const error_case cases[] = {
        {"a: b: c\n", "line 1, column 5: invalid YAML: mapping values are not allowed in this "
                      "context"},
        {HEAD "spec: {preemption: {rho: 2}\n",
         "line 6, column 1: invalid YAML: did not find expected ',' or '}' (while parsing a flow "
         "mapping at line 5, column 7)"},
        {HEAD "spec:\n\tpreemption: {}\n",
         "line 6, column 1: invalid YAML: found character that cannot start any token (while "
         "scanning for the next token at line 6, column 1)"},
        {HEAD "spec:\n  preemption:\n    rho: 2\n   delta: 0.5\n",
         "line 8, column 4: invalid YAML: did not find expected key (while parsing a block "
         "mapping at line 6, column 3)"},
        {HEAD "spec: 'open\n",
         "line 6, column 1: invalid YAML: found unexpected end of stream (while scanning a quoted "
         "scalar at line 5, column 7)"},
        {HEAD "---\n" HEAD, "line 5, column 1: only one YAML document is allowed"},
        {HEAD "spec: !!map {}\n",
         "line 5, column 7: YAML tags are not supported (got tag:yaml.org,2002:map)"},
        {HEAD "spec: {preemption: {rho: !custom 2}}\n",
         "line 5, column 26: YAML tags are not supported (got !custom)"},
        {HEAD "? [a, b]\n: c\n", "line 5, column 3: mapping keys must be scalars"},
        {HEAD "spec: {release: {maxConcurrentReleases: \"1\\0\"}}\n",
         "line 5, column 41: NUL characters are not allowed in scalars"},
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
    /* Reader errors carry a byte offset, turned into line and column. */
    expect_error(HEAD "spec: \xff\n", "line 5, column 7: invalid YAML: invalid leading UTF-8 octet "
                                      "(value 0xFF)");
    static const char truncated[] = HEAD "spec: \xc3";
    expect_error_len(truncated, sizeof truncated - 1,
                     "line 5, column 7: invalid YAML: incomplete UTF-8 octet sequence");
    static const char with_nul[] = HEAD "spec: {}\0\n";
    expect_error_len(with_nul, sizeof with_nul - 1,
                     "line 5, column 9: invalid YAML: control characters are not allowed (value "
                     "0x0)");
}

/* Anchors and aliases are refused outright, so a "billion laughs" document costs nothing. */
static void test_anchors_and_aliases(void **state)
{
    (void)state;
    const char *laughs = "a: &a [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n"
                         "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                         "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                         "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n";
    expect_error(laughs, "line 1, column 4: YAML anchors are not supported (got &a)");
    expect_error(HEAD "spec: {preemption: *p}\n",
                 "line 5, column 20: YAML aliases are not supported (got *p)");
    expect_error(HEAD "spec: &s {}\n", "line 5, column 7: YAML anchors are not supported (got &s)");
}

static void test_size_and_depth_limits(void **state)
{
    (void)state;
    /* Size: one byte over the limit is refused before parsing; the limit itself is fine. */
    size_t big = DS_POLICY_MAX_BYTES + 1;
    char *doc = malloc(big + 1);
    assert_non_null(doc);
    size_t head = strlen(HEAD);
    memcpy(doc, HEAD, head);
    memset(doc + head, '#', big - head);
    doc[head] = '#';
    doc[big - 1] = '\n';
    doc[big] = '\0';
    expect_error_len(doc, big, "policy document: must be at most 262144 bytes (got 262145)");
    ds_policy p;
    ds_err err = {{0}};
    doc[big - 2] = '\n';
    assert_int_equal(ds_policy_parse(doc, big - 1, &p, &err), 0);
    assert_string_equal(p.name, "t");
    free(doc);

    /* Depth: 16 nested flow mappings parse (then fail on the unknown field); 17 do not. */
    char deep[512];
    size_t pos = (size_t)snprintf(deep, sizeof deep, "%s", HEAD "spec: ");
    for (int i = 0; i < 15; i++)
        pos += (size_t)snprintf(deep + pos, sizeof deep - pos, "{x: ");
    pos += (size_t)snprintf(deep + pos, sizeof deep - pos, "1");
    for (int i = 0; i < 15; i++)
        pos += (size_t)snprintf(deep + pos, sizeof deep - pos, "}");
    snprintf(deep + pos, sizeof deep - pos, "\n");
    expect_error(deep, "spec.x: unknown field");
    pos = (size_t)snprintf(deep, sizeof deep, "%s", HEAD "spec: ");
    for (int i = 0; i < 16; i++)
        pos += (size_t)snprintf(deep + pos, sizeof deep - pos, "{x: ");
    pos += (size_t)snprintf(deep + pos, sizeof deep - pos, "1");
    for (int i = 0; i < 16; i++)
        pos += (size_t)snprintf(deep + pos, sizeof deep - pos, "}");
    snprintf(deep + pos, sizeof deep - pos, "\n");
    expect_error(deep, "line 5, column 67: nesting deeper than 16 levels");

    /* Node count: a list of 5000 numbers. HEAD and "x" make 10 nodes and the list one more, so
     * the list's item 4085 (0-based) is node 4097; items start at column 5, two columns apart. */
    size_t cap = 5000 * 3 + 256;
    char *many = malloc(cap);
    assert_non_null(many);
    pos = (size_t)snprintf(many, cap, "%s", HEAD "x: [");
    for (int i = 0; i < 5000; i++)
        pos += (size_t)snprintf(many + pos, cap - pos, "1,");
    snprintf(many + pos, cap - pos, "1]\n");
    expect_error(many, "line 5, column 8175: more than 4096 YAML nodes");
    free(many);

    /* Scalar length. */
    char *longs = malloc(2048);
    assert_non_null(longs);
    pos = (size_t)snprintf(longs, 2048, "%s", HEAD "spec: {preemption: {epoch: ");
    memset(longs + pos, '9', 1500);
    snprintf(longs + pos + 1500, 2048 - pos - 1500, "}}\n");
    expect_error(longs, "line 5, column 28: scalar longer than 1024 bytes (got 1500)");
    free(longs);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    ds_policy p;
    ds_err err = {{0}};
    assert_int_equal(ds_policy_parse(NULL, 0, &p, &err), -1);
    assert_string_equal(err.msg, "policy document: missing");
    assert_int_equal(ds_policy_parse(HEAD, strlen(HEAD), NULL, &err), -1);
    assert_string_equal(err.msg, "policy: no output given");
    assert_int_equal(ds_policy_parse(HEAD, strlen(HEAD), &p, NULL), 0);
    assert_int_equal(ds_policy_parse("x", 1, &p, NULL), -1);
    assert_int_equal(ds_policy_validate(NULL, &err), -1);
    assert_string_equal(err.msg, "policy: missing");
    /* A document need not be NUL-terminated: len bounds it. */
    char buf[sizeof HEAD + 8];
    memcpy(buf, HEAD, strlen(HEAD));
    memset(buf + strlen(HEAD), 'Z', sizeof buf - strlen(HEAD));
    assert_int_equal(ds_policy_parse(buf, strlen(HEAD), &p, &err), 0);
}

/* ---- validation of policies built in code ---- */

static void expect_invalid(const ds_policy *p, const char *msg)
{
    ds_err err = {{0}};
    assert_int_equal(ds_policy_validate(p, &err), -1);
    assert_string_equal(err.msg, msg);
}

/* spec.gang: the timeout, its default, bounds and messages. */
static void test_gang(void **state)
{
    (void)state;
    ds_policy p;
    ds_policy_defaults(&p);
    assert_double_near(p.gang_timeout_s, 600, 0);
    parse_ok(SPEC("{gang: {timeout: 90s}}"), &p);
    assert_double_near(p.gang_timeout_s, 90, 0);
    parse_ok(SPEC("{gang: {timeout: 0s}}"), &p);
    assert_double_near(p.gang_timeout_s, 0, 0);
    expect_error(SPEC("{gang: {timeout: 169h}}"), "spec.gang.timeout: must be <= 168h (got 169h)");
    expect_error(SPEC("{gang: {timeout: -1s}}"),
                 "spec.gang.timeout: must be a duration with a unit, such as \"10s\" or \"5m\" "
                 "(got \"-1s\")");
    expect_error(SPEC("{gang: {size: 3}}"), "spec.gang.size: unknown field");
}

/* spec.fairness: the fields, their defaults, bounds and messages. */
static void test_fairness(void **state)
{
    (void)state;
    ds_policy p;
    ds_policy_defaults(&p);
    assert_false(p.fairness_enabled);
    assert_string_equal(p.tenant_label, "");
    assert_int_equal(p.tenant_weights.n, 0);
    assert_int_equal(p.tenant_caps.n, 0);
    parse_ok(SPEC("{fairness: {enabled: true, tenantLabel: example.com/team,\n"
                  "  weights: {team-a: 2, \"ml_batch.1\": 0.5}, caps: {team-b: 0.25}}}"),
             &p);
    assert_true(p.fairness_enabled);
    assert_string_equal(p.tenant_label, "example.com/team");
    assert_int_equal(p.tenant_weights.n, 2);
    assert_double_near(ds_tenant_map_get(&p.tenant_weights, "team-a", 1), 2, 0);
    assert_double_near(ds_tenant_map_get(&p.tenant_weights, "ml_batch.1", 1), 0.5, 0);
    assert_double_near(ds_tenant_map_get(&p.tenant_weights, "team-b", 1), 1, 0);
    assert_double_near(ds_tenant_map_get(&p.tenant_caps, "team-b", 0), 0.25, 0);
    parse_ok(SPEC("{fairness: {weights: null, caps: {t: 1}, tenantLabel: \"\"}}"), &p);
    assert_int_equal(p.tenant_weights.n, 0);
    assert_string_equal(p.tenant_label, "");

    expect_error(SPEC("{fairness: {weights: {team-a: 0}}}"),
                 "spec.fairness.weights[\"team-a\"]: must be > 0 (got 0)");
    expect_error(SPEC("{fairness: {weights: {team-a: 1001}}}"),
                 "spec.fairness.weights[\"team-a\"]: must be <= 1000 (got 1001)");
    expect_error(SPEC("{fairness: {caps: {team-a: 1.5}}}"),
                 "spec.fairness.caps[\"team-a\"]: must be <= 1 (got 1.5)");
    expect_error(SPEC("{fairness: {caps: {team-a: 0}}}"),
                 "spec.fairness.caps[\"team-a\"]: must be > 0 (got 0)");
    expect_error(SPEC("{fairness: {weights: {team-a: \"2\"}}}"),
                 "spec.fairness.weights[\"team-a\"]: must be a number (got \"2\")");
    expect_error(SPEC("{fairness: {weights: {team-a: 2, team-a: 3}}}"),
                 "spec.fairness.weights[\"team-a\"]: duplicate key");
    expect_error(SPEC("{fairness: {weights: {\"Team A\": 2}}}"),
                 "spec.fairness.weights: key " LABEL_VALUE_REASON " (got \"Team A\")");
    expect_error(SPEC("{fairness: {weights: {"
                      "a123456789012345678901234567890123456789012345678901234567890123: 2}}}"),
                 "spec.fairness.weights: key " LABEL_VALUE_REASON " (got \"a12345678901234567890123"
                 "4567890123456789012345678901234567890123\")");
    expect_error(SPEC("{fairness: {weights: {\"\": 2}}}"),
                 "spec.fairness.weights: key must not be empty (got \"\")");
    expect_error(SPEC("{fairness: {weights: [a]}}"),
                 "spec.fairness.weights: must be a mapping (got a list)");
    expect_error(SPEC("{fairness: {tenantLabel: \"a b\"}}"),
                 "spec.fairness.tenantLabel: " QUALIFIED_NAME_REASON " (got \"a b\")");
    expect_error(SPEC("{fairness: {enabled: yes}}"),
                 "spec.fairness.enabled: must be true or false (got \"yes\")");
    expect_error(SPEC("{fairness: {tenants: {}}}"), "spec.fairness.tenants: unknown field");

    /* At most 64 tenants in a map. */
    char doc[8192];
    many_entries(doc, sizeof doc, SPEC("{fairness: {caps: {"), "t%d: 0.5", DS_FAIR_MAX_TENANTS + 1,
                 "}}}\n");
    expect_error(doc, "spec.fairness.caps: must have at most 64 entries (got 65)");
    many_entries(doc, sizeof doc, SPEC("{fairness: {caps: {"), "t%d: 0.5", DS_FAIR_MAX_TENANTS,
                 "}}}\n");
    parse_ok(doc, &p);
    assert_int_equal(p.tenant_caps.n, DS_FAIR_MAX_TENANTS);
    assert_string_equal(p.tenant_caps.name[63], "t63");

    /* Built in code. */
    ds_policy_defaults(&p);
    p.tenant_weights.n = 1;
    strcpy(p.tenant_weights.name[0], "team-a");
    p.tenant_weights.value[0] = -1;
    expect_invalid(&p, "spec.fairness.weights[\"team-a\"]: must be > 0 (got -1)");
    p.tenant_weights.value[0] = 1;
    p.tenant_weights.name[0][0] = '\0';
    expect_invalid(&p, "spec.fairness.weights: key must not be empty (got \"\")");
    p.tenant_weights.n = DS_FAIR_MAX_TENANTS + 1;
    expect_invalid(&p, "spec.fairness.weights: must have at most 64 entries (got 65)");
    ds_policy_defaults(&p);
    p.tenant_caps.n = 2;
    strcpy(p.tenant_caps.name[0], "a");
    strcpy(p.tenant_caps.name[1], "a");
    p.tenant_caps.value[0] = p.tenant_caps.value[1] = 0.5;
    expect_invalid(&p, "spec.fairness.caps[\"a\"]: duplicate key");
}

static void test_validate_code_built(void **state)
{
    (void)state;
    ds_policy p;

    ds_policy_defaults(&p);
    p.preemption.epsilon_s = 10.0;
    expect_invalid(&p, "preemption.epsilon_s: must equal spec.deadlines.urgentThreshold (30s) (got "
                       "10s)");

    ds_policy_defaults(&p);
    p.preemption.max_evictions = 11;
    expect_invalid(&p, "preemption.max_evictions: must be <= spec.preemption.maxEvictionsPerMinute "
                       "(10) (got 11)");
    p.preemption.max_evictions = 0; /* an exhausted budget is valid */
    ds_err err = {{0}};
    assert_int_equal(ds_policy_validate(&p, &err), 0);

    ds_policy_defaults(&p);
    p.priority.gamma = NAN;
    expect_invalid(&p, "spec.priority.gamma: must be a finite number (got nan)");
    p.priority.gamma = INFINITY;
    expect_invalid(&p, "spec.priority.gamma: must be a finite number (got inf)");

    ds_policy_defaults(&p);
    p.preemption.epoch_s = 0.0;
    expect_invalid(&p, "spec.preemption.epoch: must be >= 1s (got 0s)");
    p.preemption.epoch_s = 5400.0;
    expect_invalid(&p, "spec.preemption.epoch: must be <= 1h (got 1h30m0s)");

    ds_policy_defaults(&p);
    p.preemption.rho = 0.0;
    assert_int_equal(ds_policy_validate(&p, &err), 0);
    p.preemption.rho = 0.9;
    expect_invalid(&p, "spec.preemption.rho: must be > 1 (got 0.9)");

    ds_policy_defaults(&p);
    p.max_evictions_per_node = 0;
    expect_invalid(&p, "spec.preemption.maxEvictionsPerNode: must be >= 1 (got 0)");

    ds_policy_defaults(&p);
    p.priority.slack_term = (ds_slack_term)7;
    expect_invalid(&p, "spec.priority.slackTerm: must be one of urgency, literal (got 7)");

    ds_policy_defaults(&p);
    p.order.job_order = (ds_job_order)3;
    expect_invalid(&p, "spec.order.acrossJobs: must be one of dsp, leastSlack, shortestRemaining "
                       "(got 3)");
    p.order.job_order = DS_ORDER_DSP;
    p.order.starvation_s = NAN;
    expect_invalid(&p, "spec.order.starvationThreshold: must be a finite number (got NaN)");
    p.order.starvation_s = -1.0;
    expect_invalid(&p, "spec.order.starvationThreshold: must be >= 0s (got -1s)");

    ds_policy_defaults(&p);
    p.order.within_job = (ds_within_order)2;
    expect_invalid(&p, "spec.order.withinJob: must be one of dsp, criticalPath (got 2)");

    ds_policy_defaults(&p);
    p.release_admission = (ds_admit_mode)2;
    expect_invalid(&p, "spec.release.admission: must be one of capacity, all (got 2)");
    p.release_admission = DS_ADMIT_ALL;
    p.release_lookahead = 10001;
    expect_invalid(&p, "spec.release.lookahead: must be <= 10000 (got 10001)");

    ds_policy_defaults(&p);
    p.name[0] = '\0';
    expect_invalid(&p, "metadata.name: must not be empty (got \"\")");
    memset(p.name, 'a', sizeof p.name);
    expect_invalid(&p, "metadata.name: must be at most 253 characters (not NUL-terminated)");

    ds_policy_defaults(&p);
    memset(p.speed_label, 'a', sizeof p.speed_label);
    expect_invalid(&p, "spec.nodeSpeed.speedLabel: must be at most 317 characters (not "
                       "NUL-terminated)");

    ds_policy_defaults(&p);
    p.gpu_resource_names.n = DS_POLICY_MAX_LIST + 1;
    expect_invalid(&p, "spec.packing.gpuResourceNames: must have at most 32 entries (got 33)");

    ds_policy_defaults(&p);
    strcpy(p.protected_priority_classes.name[1], "system-cluster-critical");
    expect_invalid(&p, "spec.preemption.protectedPriorityClasses[1]: duplicate entry (got "
                       "\"system-cluster-critical\")");
    memset(p.protected_priority_classes.name[1], 'x', sizeof p.protected_priority_classes.name[1]);
    expect_invalid(&p, "spec.preemption.protectedPriorityClasses[1]: must be at most 253 "
                       "characters (not NUL-terminated)");

    ds_policy_defaults(&p);
    p.protected_namespaces.n = 2;
    strcpy(p.protected_namespaces.name[1], "Team");
    expect_invalid(&p,
                   "spec.preemption.protectedNamespaces[1]: " DNS_LABEL_REASON " (got \"Team\")");

    ds_policy_defaults(&p);
    p.opt_in_selector.n = DS_POLICY_MAX_LABELS + 1;
    expect_invalid(&p, "spec.preemption.podSelector.matchLabels: must have at most 16 entries (got "
                       "17)");
    p.opt_in_selector.n = 2;
    strcpy(p.opt_in_selector.key[0], "a");
    strcpy(p.opt_in_selector.key[1], "a");
    expect_invalid(&p, "spec.preemption.podSelector.matchLabels[\"a\"]: duplicate key");
    strcpy(p.opt_in_selector.key[1], "b");
    strcpy(p.opt_in_selector.value[1], "-b");
    expect_invalid(&p, "spec.preemption.podSelector.matchLabels[\"b\"]: " LABEL_VALUE_REASON
                       " (got \"-b\")");
    memset(p.opt_in_selector.value[1], 'v', sizeof p.opt_in_selector.value[1]);
    expect_invalid(&p, "spec.preemption.podSelector.matchLabels[\"b\"]: must be at most 63 "
                       "characters (not NUL-terminated)");
    memset(p.opt_in_selector.key[1], 'k', sizeof p.opt_in_selector.key[1]);
    expect_invalid(&p, "spec.preemption.podSelector.matchLabels: key must be at most 317 "
                       "characters (not NUL-terminated)");
    strcpy(p.opt_in_selector.key[1], "");
    expect_invalid(&p, "spec.preemption.podSelector.matchLabels: key must not be empty (got \"\")");

    ds_policy_defaults(&p);
    p.opt_in_namespace_selector.n = DS_POLICY_MAX_LABELS + 1;
    expect_invalid(&p, "spec.preemption.namespaceSelector.matchLabels: must have at most 16 "
                       "entries (got 17)");
    p.opt_in_namespace_selector.n = 2;
    strcpy(p.opt_in_namespace_selector.key[0], "team");
    strcpy(p.opt_in_namespace_selector.key[1], "team");
    expect_invalid(&p, "spec.preemption.namespaceSelector.matchLabels[\"team\"]: duplicate key");
    strcpy(p.opt_in_namespace_selector.key[1], "env");
    strcpy(p.opt_in_namespace_selector.value[1], "prod_");
    expect_invalid(&p, "spec.preemption.namespaceSelector.matchLabels[\"env\"]: " LABEL_VALUE_REASON
                       " (got \"prod_\")");
    memset(p.opt_in_namespace_selector.value[1], 'v', sizeof p.opt_in_namespace_selector.value[1]);
    expect_invalid(&p, "spec.preemption.namespaceSelector.matchLabels[\"env\"]: must be at most 63 "
                       "characters (not NUL-terminated)");
    memset(p.opt_in_namespace_selector.key[1], 'k', sizeof p.opt_in_namespace_selector.key[1]);
    expect_invalid(&p, "spec.preemption.namespaceSelector.matchLabels: key must be at most 317 "
                       "characters (not NUL-terminated)");
    strcpy(p.opt_in_namespace_selector.key[1], "Env");
    strcpy(p.opt_in_namespace_selector.value[1], "prod");
    assert_int_equal(ds_policy_validate(&p, &err), 0); /* upper case is fine in a label name */
    strcpy(p.opt_in_namespace_selector.key[1], "Example.com/env");
    expect_invalid(&p, "spec.preemption.namespaceSelector.matchLabels: key " QUALIFIED_PREFIX_REASON
                       " (got \"Example.com/env\")");

    ds_policy_defaults(&p);
    p.priority.w_remaining = p.priority.w_waiting = p.priority.w_slack = 0.0;
    expect_invalid(&p, "spec.priority.weights: must not all be 0");
}

/* ---- selectors and name lists ---- */

static void test_selector_matches(void **state)
{
    (void)state;
    ds_label_selector sel;
    memset(&sel, 0, sizeof sel);
    const char *keys[] = {"dagsched.io/preemptable", "tier", "app"};
    const char *vals[] = {"true", "batch", "etl"};
    /* Empty selects everything, even pods without labels. */
    assert_true(sel_match(&sel, keys, vals, 3));
    assert_true(sel_match(&sel, NULL, NULL, 0));
    assert_true(sel_match(NULL, keys, vals, 3));

    sel.n = 1;
    strcpy(sel.key[0], "dagsched.io/preemptable");
    strcpy(sel.value[0], "true");
    assert_true(sel_match(&sel, keys, vals, 3));
    assert_false(sel_match(&sel, keys + 1, vals + 1, 2)); /* label absent */
    assert_false(sel_match(&sel, NULL, NULL, 0));
    assert_false(sel_match(&sel, NULL, vals, 3)); /* no keys: no labels */
    const char *other[] = {"false", "batch", "etl"};
    assert_false(sel_match(&sel, keys, other, 3)); /* value differs */
    const char *upper[] = {"True", "batch", "etl"};
    assert_false(sel_match(&sel, keys, upper, 3)); /* case-sensitive */

    /* Every entry must match (AND). */
    sel.n = 2;
    strcpy(sel.key[1], "tier");
    strcpy(sel.value[1], "batch");
    assert_true(sel_match(&sel, keys, vals, 3));
    const char *vals2[] = {"true", "service", "etl"};
    assert_false(sel_match(&sel, keys, vals2, 3));
    /* Label order does not matter; NULL entries are skipped. */
    const char *rkeys[] = {NULL, "tier", "dagsched.io/preemptable"};
    const char *rvals[] = {"x", "batch", "true"};
    assert_true(sel_match(&sel, rkeys, rvals, 3));

    /* An empty value selects the label with an empty value, not its absence. */
    sel.n = 1;
    strcpy(sel.key[0], "canary");
    strcpy(sel.value[0], "");
    const char *ckeys[] = {"canary"};
    const char *cvals[] = {""};
    assert_true(sel_match(&sel, ckeys, cvals, 1));
    assert_false(sel_match(&sel, keys, vals, 3));

    /* Through the parser. */
    ds_policy p;
    parse_ok(SPEC("{preemption: {podSelector: {matchLabels: {tier: batch, app: etl}}}}"), &p);
    assert_true(sel_match(&p.opt_in_selector, keys, vals, 3));
    assert_false(sel_match(&p.opt_in_selector, keys, vals, 2));
}

static void test_name_list_contains(void **state)
{
    (void)state;
    ds_policy p;
    ds_policy_defaults(&p);
    assert_true(ds_name_list_contains(&p.protected_namespaces, "kube-system"));
    assert_false(ds_name_list_contains(&p.protected_namespaces, "kube-public"));
    assert_false(ds_name_list_contains(&p.protected_namespaces, "kube-system-2"));
    assert_false(ds_name_list_contains(&p.protected_namespaces, "kube"));
    assert_false(ds_name_list_contains(&p.protected_namespaces, ""));
    assert_true(ds_name_list_contains(&p.protected_priority_classes, "system-node-critical"));
    assert_false(ds_name_list_contains(&p.protected_priority_classes, NULL));
    assert_false(ds_name_list_contains(NULL, "kube-system"));
    parse_ok(SPEC("{preemption: {protectedNamespaces: []}}"), &p);
    assert_false(ds_name_list_contains(&p.protected_namespaces, "kube-system"));
}

/* Mutated copies of the shipped default policy (deterministic): every outcome is either a valid
 * policy or an error with a message; the sanitizer run catches memory errors and leaks. */
static void test_mutations_never_crash(void **state)
{
    (void)state;
    size_t len;
    char *orig = read_file("policies/default.yaml", &len);
    char *doc = malloc(len + 1);
    assert_non_null(doc);
    static const char alphabet[] = ":-{}[],&*!|>'\"#%@` \n\t0aZ.~?";
    uint32_t rng = 12345;
    size_t ok = 0, failed = 0;
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(doc, orig, len);
        size_t n = len;
        int edits = 1 + iter % 4;
        for (int e = 0; e < edits; e++) {
            rng = rng * 1103515245u + 12345u;
            size_t at = (rng >> 8) % n;
            rng = rng * 1103515245u + 12345u;
            doc[at] = alphabet[(rng >> 8) % (sizeof alphabet - 1)];
        }
        if (iter % 7 == 0) {
            rng = rng * 1103515245u + 12345u;
            n = (rng >> 8) % n; /* truncated */
        }
        ds_policy p;
        ds_err err = {{0}}, items[3];
        ds_errs all = {.items = items, .max = 3};
        int rc_all = ds_policy_parse_all(doc, n, &p, &all);
        if (ds_policy_parse(doc, n, &p, &err) == 0) {
            assert_int_equal(ds_policy_validate(&p, &err), 0);
            assert_int_equal(rc_all, 0);
            ok++;
        } else {
            assert_true(err.msg[0] != '\0');
            assert_int_equal(rc_all, -1);
            assert_string_equal(items[0].msg, err.msg);
            failed++;
        }
    }
    /* Both outcomes occur (comment edits keep the document valid). */
    assert_true(ok > 0);
    assert_true(failed > 0);
    free(doc);
    free(orig);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_are_the_papers),
        cmocka_unit_test(test_minimal_document_gives_defaults),
        cmocka_unit_test(test_absent_fields_keep_defaults),
        cmocka_unit_test(test_full_document),
        cmocka_unit_test(test_null_selector_selects_all),
        cmocka_unit_test(test_selectors_are_separate),
        cmocka_unit_test(test_every_shipped_policy_parses),
        cmocka_unit_test(test_shipped_default),
        cmocka_unit_test(test_shipped_packing_first),
        cmocka_unit_test(test_shipped_deadline_strict),
        cmocka_unit_test(test_document_errors),
        cmocka_unit_test(test_every_error),
        cmocka_unit_test(test_type_errors),
        cmocka_unit_test(test_range_errors),
        cmocka_unit_test(test_name_errors),
        cmocka_unit_test(test_long_strings),
        cmocka_unit_test(test_list_limits),
        cmocka_unit_test(test_yaml_syntax_errors),
        cmocka_unit_test(test_anchors_and_aliases),
        cmocka_unit_test(test_size_and_depth_limits),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_validate_code_built),
        cmocka_unit_test(test_fairness),
        cmocka_unit_test(test_gang),
        cmocka_unit_test(test_selector_matches),
        cmocka_unit_test(test_name_list_contains),
        cmocka_unit_test(test_mutations_never_crash),
    };
    return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
