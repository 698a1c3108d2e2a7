/* test_ledger.c: unit tests of the eviction ledger (add, order, prune, counts, the bound, JSON
 * round trip and its error messages). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guards.h"
#include "ledger.h"

static ctl_ledger_entry entry(double at, const char *ns, const char *victim, const char *node,
                              const char *preemptor)
{
    ctl_ledger_entry e;
    memset(&e, 0, sizeof e);
    e.at = at;
    snprintf(e.victim_ns, sizeof e.victim_ns, "%s", ns);
    snprintf(e.victim_name, sizeof e.victim_name, "%s", victim);
    snprintf(e.victim_uid, sizeof e.victim_uid, "uid-%s", victim);
    snprintf(e.node, sizeof e.node, "%s", node);
    snprintf(e.preemptor_ns, sizeof e.preemptor_ns, "prod");
    snprintf(e.preemptor_name, sizeof e.preemptor_name, "%s", preemptor);
    snprintf(e.preemptor_uid, sizeof e.preemptor_uid, "uid-%s", preemptor);
    snprintf(e.reason, sizeof e.reason, "urgent");
    snprintf(e.result, sizeof e.result, CTL_LEDGER_EVICTED);
    return e;
}

static void test_counts_and_prune(void **state)
{
    (void)state;
    ctl_ledger l;
    ctl_ledger_init(&l);
    ctl_ledger_entry es[] = {
        entry(100, "a", "v1", "n1", "p1"), entry(130, "b", "v2", "n1", "p2"),
        entry(110, "a", "v3", "n2", "p1"), /* out of order: inserted in time order */
    };
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(ctl_ledger_add(&l, &es[i], NULL), 0);
    assert_int_equal(l.n, 3);
    assert_true(l.e[0].at == 100 && l.e[1].at == 110 && l.e[2].at == 130);
    /* The limits over the ledger (lib/evict_budget.h): at 150, the last minute holds all three
     * entries; at 170, the one of 110 is exactly a minute old and no longer counts. */
    ds_policy pol;
    ds_policy_defaults(&pol);
    pol.max_evictions_per_minute = 10;
    pol.max_evictions_per_namespace = 10;
    pol.max_evictions_per_node = 10;
    pol.preemption.epoch_s = 30;
    ctl_budget b;
    ctl_budget_init(&b, &pol, &l, 150);
    assert_int_equal(b.total_left, 7);
    assert_int_equal(ctl_budget_namespace_left(&b, "a"), 8);
    assert_int_equal(ctl_budget_node_left(&b, "n1"), 9); /* 130 only: 100 is over an epoch old */
    ctl_budget_init(&b, &pol, &l, 170);
    assert_int_equal(b.total_left, 9);
    assert_int_equal(ctl_budget_namespace_left(&b, "a"), 10);
    assert_true(ctl_ledger_last_for_preemptor(&l, "uid-p1") == 110);
    assert_true(isnan(ctl_ledger_last_for_preemptor(&l, "uid-p9")));
    assert_true(ctl_ledger_last_for_victim(&l, "uid-v2") == 130);
    /* A refused eviction counts for the victim's cooldown only. */
    assert_int_equal(ctl_ledger_set_result(&l, "uid-v3", CTL_LEDGER_REFUSED), 0);
    assert_int_equal(ctl_ledger_set_result(&l, "uid-none", CTL_LEDGER_REFUSED), -1);
    ctl_budget_init(&b, &pol, &l, 150);
    assert_int_equal(ctl_budget_namespace_left(&b, "a"), 9);
    assert_true(ctl_ledger_last_for_preemptor(&l, "uid-p1") == 100);
    assert_true(ctl_ledger_last_for_victim(&l, "uid-v3") == 110);
    ctl_ledger_prune(&l, 200, 80); /* keep >= 120 */
    assert_int_equal(l.n, 1);
    assert_string_equal(l.e[0].victim_name, "v2");
    ctl_ledger_free(&l);
}

static void test_bound(void **state)
{
    (void)state;
    ctl_ledger l;
    ctl_ledger_init(&l);
    for (int i = 0; i < CTL_LEDGER_MAX + 5; i++) {
        ctl_ledger_entry e = entry(i, "a", "v", "n", "p");
        assert_int_equal(ctl_ledger_add(&l, &e, NULL), 0);
    }
    assert_int_equal(l.n, CTL_LEDGER_MAX);
    assert_true(l.e[0].at == 5); /* the oldest five were dropped */
    ctl_ledger_free(&l);
}

static void test_json_round_trip(void **state)
{
    (void)state;
    ctl_ledger l, m;
    ctl_ledger_init(&l);
    ctl_ledger_init(&m);
    ctl_ledger_entry e = entry(1700000000.25, "batch", "etl-1", "node-3", "urgent-0");
    strcpy(e.victim_job, "etl");
    strcpy(e.victim_task, "load");
    strcpy(e.preemptor_job, "urgent");
    strcpy(e.preemptor_task, "main");
    assert_int_equal(ctl_ledger_add(&l, &e, NULL), 0);
    char *s = ctl_ledger_encode(&l);
    assert_non_null(s);
    assert_string_equal(s, "[{\"at\":1700000000.25,\"victimNamespace\":\"batch\",\"victim\":"
                           "\"etl-1\",\"victimUID\":\"uid-etl-1\",\"node\":\"node-3\","
                           "\"preemptorNamespace\":\"prod\",\"preemptor\":\"urgent-0\","
                           "\"preemptorUID\":\"uid-urgent-0\",\"reason\":\"urgent\","
                           "\"result\":\"evicted\",\"victimJob\":\"etl\",\"victimTask\":\"load\","
                           "\"preemptorJob\":\"urgent\",\"preemptorTask\":\"main\"}]");
    ds_err err = {{0}};
    assert_int_equal(ctl_ledger_decode(s, strlen(s), &m, &err), 0);
    assert_int_equal(m.n, 1);
    assert_memory_equal(&m.e[0], &l.e[0], sizeof e);
    free(s);
    /* A ledger written before the task fields were recorded still decodes (tasks unknown). */
    const char *old = "[{\"at\":5,\"victimNamespace\":\"batch\",\"victim\":\"v\",\"victimUID\":"
                      "\"u\",\"node\":\"n\",\"preemptorNamespace\":\"prod\",\"preemptor\":\"p\","
                      "\"preemptorUID\":\"w\",\"reason\":\"urgent\",\"result\":\"evicted\"}]";
    assert_int_equal(ctl_ledger_decode(old, strlen(old), &m, &err), 0);
    assert_int_equal(m.n, 1);
    assert_string_equal(m.e[0].victim_job, "");
    ctl_task_ref none = {"batch", "", ""};
    assert_true(isnan(ctl_ledger_last_task_evicted(&m, &none)));
    ctl_ledger_free(&l);
    ctl_ledger_free(&m);
}

/* Cooldowns follow the task: any pod of batch/etl/load (a replacement has a new UID and name). */
static void test_task_lookup(void **state)
{
    (void)state;
    ctl_ledger l;
    ctl_ledger_init(&l);
    ctl_ledger_entry a = entry(100, "batch", "etl-load-x1", "n", "urgent-0");
    strcpy(a.victim_job, "etl");
    strcpy(a.victim_task, "load");
    strcpy(a.preemptor_job, "urgent");
    strcpy(a.preemptor_task, "main");
    ctl_ledger_entry b = entry(200, "batch", "etl-load-x2", "n", "urgent-1");
    strcpy(b.victim_job, "etl");
    strcpy(b.victim_task, "load");
    strcpy(b.preemptor_job, "urgent");
    strcpy(b.preemptor_task, "main");
    strcpy(b.result, CTL_LEDGER_REFUSED);
    assert_int_equal(ctl_ledger_add(&l, &a, NULL), 0);
    assert_int_equal(ctl_ledger_add(&l, &b, NULL), 0);
    ctl_task_ref load = {"batch", "etl", "load"};
    ctl_task_ref other_ns = {"prod", "etl", "load"};
    ctl_task_ref other_task = {"batch", "etl", "extract"};
    ctl_task_ref urgent = {"prod", "urgent", "main"};
    assert_true(ctl_ledger_last_task_evicted(&l, &load) == 200); /* any outcome */
    assert_true(isnan(ctl_ledger_last_task_evicted(&l, &other_ns)));
    assert_true(isnan(ctl_ledger_last_task_evicted(&l, &other_task)));
    assert_true(ctl_ledger_last_task_preempted(&l, &urgent) ==
                100); /* the refused one does not count */
    assert_true(isnan(ctl_ledger_last_task_preempted(&l, &load)));
    ctl_ledger_free(&l);
}

static void test_json_errors(void **state)
{
    (void)state;
    ctl_ledger l;
    ctl_ledger_init(&l);
    ds_err err = {{0}};
    const char *bad1 = "{}";
    assert_int_equal(ctl_ledger_decode(bad1, strlen(bad1), &l, &err), -1);
    assert_string_equal(err.msg, "eviction ledger: must be a list");
    const char *bad2 = "[{\"at\":\"x\"}]";
    assert_int_equal(ctl_ledger_decode(bad2, strlen(bad2), &l, &err), -1);
    assert_string_equal(err.msg, "eviction ledger[0].at: must be a number");
    const char *bad3 = "[{\"at\":1,\"victimNamespace\":\"a\"}]";
    assert_int_equal(ctl_ledger_decode(bad3, strlen(bad3), &l, &err), -1);
    assert_string_equal(err.msg, "eviction ledger[0].victim: must be a string");
    const char *bad4 = "[1,";
    assert_int_equal(ctl_ledger_decode(bad4, strlen(bad4), &l, &err), -1);
    assert_non_null(strstr(err.msg, "eviction ledger: invalid JSON"));
    assert_int_equal(l.n, 0);
    ctl_ledger_free(&l);
}

/* Counts that outlive the entries: pruned entries of DAG tasks fold into per-task counts, which
 * maxEvictionsPerTask and the eviction yield read; they survive a JSON round trip (a new leader)
 * and are forgotten CTL_TASK_MEMORY_S after their last eviction. */
static void test_task_counts(void **state)
{
    (void)state;
    ctl_ledger l;
    ctl_ledger_init(&l);
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "etl-load-x%d", i);
        ctl_ledger_entry e = entry(100 + 100 * i, "batch", name, "n", "urgent-0");
        strcpy(e.victim_job, "etl");
        strcpy(e.victim_task, "load");
        strcpy(e.preemptor_ns, "batch");
        strcpy(e.preemptor_job, "report");
        strcpy(e.preemptor_task, i == 2 ? "sum" : "main");
        e.victim_long = i == 1;
        if (i == 2)
            strcpy(e.result, CTL_LEDGER_GONE); /* counts for nothing */
        assert_int_equal(ctl_ledger_add(&l, &e, NULL), 0);
    }
    ctl_task_ref load = {"batch", "etl", "load"};
    assert_int_equal(ctl_ledger_task_evictions(&l, &load), 2);
    assert_int_equal(ctl_ledger_job_preemptions(&l, "batch", "report"), 2);
    assert_int_equal(ctl_ledger_job_preemptions(&l, "prod", "report"), 0);
    /* By task: report/main had two made for it; report/sum's one was gone (counts not). */
    ctl_task_ref main_t = {"batch", "report", "main"}, sum_t = {"batch", "report", "sum"};
    ctl_task_ref other_ns = {"prod", "report", "main"};
    assert_int_equal(ctl_ledger_task_preemptions(&l, &main_t), 2);
    assert_int_equal(ctl_ledger_task_preemptions(&l, &sum_t), 0);
    assert_int_equal(ctl_ledger_task_preemptions(&l, &other_ns), 0);
    /* Prune everything: the counts stay. */
    ctl_ledger_prune(&l, 1000, 10);
    assert_int_equal(ctl_ledger_task_preemptions(&l, &main_t), 2);
    assert_int_equal(l.n, 0);
    assert_int_equal(l.n_tc, 2); /* etl/load and report/main (report/sum's entry counted not) */
    assert_int_equal(ctl_ledger_task_evictions(&l, &load), 2);
    assert_int_equal(ctl_ledger_job_preemptions(&l, "batch", "report"), 2);
    /* One more, still in the list: counted once each. */
    ctl_ledger_entry e = entry(990, "batch", "etl-load-x3", "n", "urgent-1");
    strcpy(e.victim_job, "etl");
    strcpy(e.victim_task, "load");
    assert_int_equal(ctl_ledger_add(&l, &e, NULL), 0);
    assert_int_equal(ctl_ledger_task_evictions(&l, &load), 3);
    /* A new leader reads both lists back. */
    char *text = ctl_ledger_encode(&l), *tasks = ctl_ledger_encode_tasks(&l);
    assert_non_null(text);
    assert_non_null(tasks);
    ctl_ledger m;
    ctl_ledger_init(&m);
    ds_err err = {{0}};
    assert_int_equal(ctl_ledger_decode(text, strlen(text), &m, &err), 0);
    assert_int_equal(ctl_ledger_decode_tasks(tasks, strlen(tasks), &m, &err), 0);
    assert_int_equal(ctl_ledger_task_evictions(&m, &load), 3);
    assert_int_equal(ctl_ledger_job_preemptions(&m, "batch", "report"), 2);
    free(text);
    free(tasks);
    /* A day after the last of them, forgotten: report/main's last was at 100, etl/load's at 990
     * (folded in now). */
    ctl_ledger_prune(&m, 300 + CTL_TASK_MEMORY_S, 10);
    assert_int_equal(ctl_ledger_job_preemptions(&m, "batch", "report"), 0);
    assert_int_equal(ctl_ledger_task_evictions(&m, &load), 3);
    ctl_ledger_prune(&m, 990 + CTL_TASK_MEMORY_S + 1, 10);
    assert_int_equal(ctl_ledger_task_evictions(&m, &load), 0);
    assert_int_equal(m.n_tc, 0);
    /* Bad task counts. */
    const char *bad = "[{\"namespace\":\"a\",\"job\":\"j\",\"task\":\"t\",\"evicted\":-1,"
                      "\"preempted\":0,\"last\":1}]";
    assert_int_equal(ctl_ledger_decode_tasks(bad, strlen(bad), &m, &err), -1);
    assert_string_equal(err.msg, "eviction ledger task[0].evicted: must be a count");
    ctl_ledger_free(&m);
    ctl_ledger_free(&l);
}

/* victimLong survives the round trip; absent it reads false; not a boolean is an error. */
static void test_victim_long(void **state)
{
    (void)state;
    ctl_ledger l;
    ctl_ledger_init(&l);
    ctl_ledger_entry e = entry(100, "batch", "v", "n1", "p");
    e.victim_long = true;
    assert_int_equal(ctl_ledger_add(&l, &e, NULL), 0);
    char *text = ctl_ledger_encode(&l);
    assert_non_null(strstr(text, "\"victimLong\":true"));
    ctl_ledger m;
    ctl_ledger_init(&m);
    ds_err err = {{0}};
    assert_int_equal(ctl_ledger_decode(text, strlen(text), &m, &err), 0);
    assert_true(m.e[0].victim_long);
    free(text);
    /* Spec limits over the ledger: one long task per node per window. */
    ds_policy p;
    ds_policy_defaults(&p);
    ctl_budget b;
    ctl_budget_init(&b, &p, &m, 100 + p.long_task_window_s - 1);
    assert_true(ctl_budget_node_long_evicted(&b, "n1"));
    assert_false(ctl_budget_node_long_evicted(&b, "n2"));
    ctl_budget_init(&b, &p, &m, 100 + p.long_task_window_s);
    assert_false(ctl_budget_node_long_evicted(&b, "n1"));
    const char *bad = "[{\"at\":1,\"victimLong\":1}]";
    assert_int_equal(ctl_ledger_decode(bad, strlen(bad), &m, &err), -1);
    assert_string_equal(err.msg, "eviction ledger[0].victimLong: must be true or false");
    ctl_ledger_free(&m);
    ctl_ledger_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_and_prune), cmocka_unit_test(test_bound),
        cmocka_unit_test(test_json_round_trip),  cmocka_unit_test(test_task_lookup),
        cmocka_unit_test(test_json_errors),      cmocka_unit_test(test_task_counts),
        cmocka_unit_test(test_victim_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
