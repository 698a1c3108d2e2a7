/* test_graph_budget.c: unit tests of the bound on graph work per round (lib/graph_budget.h): jobs
 * taken in key order from where the last round stopped, the ones that do not fit deferred while
 * later ones that fit are evaluated, a job larger than the bound evaluated alone and paid for by
 * later rounds, no job waiting for ever over many rounds, no bound, and bad arguments. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "graph_budget.h"

static const ds_work_job jobs5[] = {
    {"a/big", 41000}, {"a/etl", 30}, {"b/ml", 12000}, {"b/tiny", 0}, {"c/wide", 5000},
};
#define N5 (sizeof jobs5 / sizeof jobs5[0])

/* "1" for evaluated, "0" for deferred, one per job. */
static void verdicts(const bool *e, size_t n, char *buf)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = e[i] ? '1' : '0';
    buf[n] = '\0';
}

static void test_first_fit_from_start(void **state)
{
    (void)state;
    bool e[N5];
    char v[N5 + 1];
    ds_work_plan p;
    ds_err err = {{0}};
    /* From the start, a bound of 20,000: big (41,000) is first, so it is evaluated alone; 21,000
     * over the budget is the next rounds' debt. */
    assert_int_equal(ds_work_select(jobs5, N5, 20000, NULL, 0, e, &p, &err), 0);
    verdicts(e, N5, v);
    assert_string_equal(v, "10000");
    assert_int_equal(p.n_evaluated, 1);
    assert_int_equal(p.n_deferred, 4);
    assert_int_equal(p.tasks_evaluated, 41000);
    assert_int_equal(p.tasks_deferred, 30 + 12000 + 1 + 5000);
    assert_int_equal(p.next_start, 1); /* a/etl */
    assert_int_equal(p.debt, 21000);

    /* Starting at b/ml with no debt: b/ml 12,000, b/tiny 1, c/wide 5,000 (17,001); a/big does not
     * fit in the 2,999 left, a/etl (30) does. */
    assert_int_equal(ds_work_select(jobs5, N5, 20000, "b/ml", 0, e, &p, &err), 0);
    verdicts(e, N5, v);
    assert_string_equal(v, "01111");
    assert_int_equal(p.tasks_evaluated, 12000 + 1 + 5000 + 30);
    assert_int_equal(p.tasks_deferred, 41000);
    assert_int_equal(p.next_start, 0); /* a/big, the first deferred after c/wide */
    assert_int_equal(p.debt, 0);

    /* A start key that is no job's: the first key after it ("a/f" -> b/ml). */
    assert_int_equal(ds_work_select(jobs5, N5, 20000, "a/f", 0, e, &p, &err), 0);
    verdicts(e, N5, v);
    assert_string_equal(v, "01111");
    /* Past every key: from the first. */
    assert_int_equal(ds_work_select(jobs5, N5, 20000, "z", 0, e, &p, &err), 0);
    verdicts(e, N5, v);
    assert_string_equal(v, "10000");
}

static void test_debt(void **state)
{
    (void)state;
    bool e[N5];
    char v[N5 + 1];
    ds_work_plan p;
    ds_err err = {{0}};
    /* A debt of 21,000 against a bound of 20,000: nothing this round, 1,000 left to pay; the next
     * round still starts at the same job. */
    assert_int_equal(ds_work_select(jobs5, N5, 20000, "a/etl", 21000, e, &p, &err), 0);
    verdicts(e, N5, v);
    assert_string_equal(v, "00000");
    assert_int_equal(p.n_deferred, 5);
    assert_int_equal(p.tasks_evaluated, 0);
    assert_int_equal(p.next_start, 1);
    assert_int_equal(p.debt, 1000);
    /* A debt equal to the bound: nothing either, and none left. */
    assert_int_equal(ds_work_select(jobs5, N5, 20000, "a/etl", 20000, e, &p, &err), 0);
    verdicts(e, N5, v);
    assert_string_equal(v, "00000");
    assert_int_equal(p.debt, 0);
    /* Then 1,000 owed: a budget of 19,000 from a/etl: a/etl 30, b/ml 12,000, b/tiny 1, c/wide
     * 5,000 (17,031); a/big deferred. */
    assert_int_equal(ds_work_select(jobs5, N5, 20000, "a/etl", 1000, e, &p, &err), 0);
    verdicts(e, N5, v);
    assert_string_equal(v, "01111");
    assert_int_equal(p.tasks_evaluated, 17031);
    assert_int_equal(p.next_start, 0);
    assert_int_equal(p.debt, 0);
    /* A first job that fits leaves no debt; only the first job may go past the budget. */
    assert_int_equal(ds_work_select(jobs5, N5, 12001, "b/ml", 0, e, &p, &err), 0);
    verdicts(e, N5, v);
    assert_string_equal(v, "00110");
    assert_int_equal(p.tasks_evaluated, 12001);
    assert_int_equal(p.next_start, 4); /* c/wide */
    assert_int_equal(p.debt, 0);
    /* No job: the debt is paid all the same. */
    assert_int_equal(ds_work_select(NULL, 0, 100, NULL, 250, NULL, &p, &err), 0);
    assert_int_equal(p.debt, 150);
    assert_int_equal(p.next_start, SIZE_MAX);
    assert_int_equal(ds_work_select(NULL, 0, 100, NULL, 50, NULL, &p, &err), 0);
    assert_int_equal(p.debt, 0);
}

static void test_no_bound(void **state)
{
    (void)state;
    bool e[N5];
    char v[N5 + 1];
    ds_work_plan p;
    ds_err err = {{0}};
    assert_int_equal(ds_work_select(jobs5, N5, 0, "b/ml", 99999, e, &p, &err), 0);
    verdicts(e, N5, v);
    assert_string_equal(v, "11111");
    assert_int_equal(p.n_evaluated, 5);
    assert_int_equal(p.n_deferred, 0);
    assert_int_equal(p.tasks_evaluated, 41000 + 30 + 12000 + 1 + 5000);
    assert_int_equal(p.next_start, SIZE_MAX);
    assert_int_equal(p.debt, 0);
    /* Everything fits under a bound: the same, whatever the start. */
    assert_int_equal(ds_work_select(jobs5, N5, 58031, "c/wide", 0, e, &p, &err), 0);
    verdicts(e, N5, v);
    assert_string_equal(v, "11111");
    assert_int_equal(p.next_start, SIZE_MAX);
    assert_int_equal(p.debt, 0);
}

/* Rounds carried out as the controller does (the next start is the first deferred job's key):
 * over many rounds every job is evaluated, none waits longer than the ring allows, and the work
 * evaluated stays within the bound on average (plus one job). */
static void test_rounds_are_fair(void **state)
{
    (void)state;
    const size_t bound = 20000, rounds = 400;
    size_t last[N5], longest[N5], count[N5];
    for (size_t i = 0; i < N5; i++)
        last[i] = longest[i] = count[i] = 0;
    char start[32] = "";
    size_t debt = 0, total = 0;
    ds_err err = {{0}};
    for (size_t r = 1; r <= rounds; r++) {
        bool e[N5];
        ds_work_plan p;
        assert_int_equal(
            ds_work_select(jobs5, N5, bound, start[0] ? start : NULL, debt, e, &p, &err), 0);
        total += p.tasks_evaluated;
        for (size_t i = 0; i < N5; i++)
            if (e[i]) {
                if (r - last[i] > longest[i])
                    longest[i] = r - last[i];
                last[i] = r;
                count[i]++;
            }
        debt = p.debt;
        if (p.next_start != SIZE_MAX)
            snprintf(start, sizeof start, "%s", jobs5[p.next_start].key);
    }
    /* A cycle of three rounds: a/big alone (21,000 over the budget), a round that pays 20,000 of
     * it and evaluates nothing, then the other four jobs (17,031 of the 19,000 left) with a/big
     * deferred, which starts the next cycle. */
    for (size_t i = 0; i < N5; i++) {
        if (longest[i] > 3 || count[i] < rounds / 3)
            fail_msg("job %s: evaluated %zu times in %zu rounds, longest wait %zu rounds",
                     jobs5[i].key, count[i], rounds, longest[i]);
    }
    /* At most the bound a round on average, plus one job: 134 cycles' a/big, 133 of the rest. */
    assert_int_equal(total, 134 * 41000 + 133 * 17031);
    assert_true(total <= rounds * bound + 41000);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    bool e[2];
    ds_work_plan p;
    ds_err err = {{0}};
    const ds_work_job unsorted[] = {{"b/x", 1}, {"a/y", 1}};
    assert_int_equal(ds_work_select(unsorted, 2, 10, NULL, 0, e, &p, &err), -1);
    assert_string_equal(
        err.msg, "graph budget: keys not distinct and ascending (got \"b/x\" before \"a/y\")");
    const ds_work_job twice[] = {{"a/x", 1}, {"a/x", 1}};
    assert_int_equal(ds_work_select(twice, 2, 10, NULL, 0, e, &p, &err), -1);
    assert_string_equal(
        err.msg, "graph budget: keys not distinct and ascending (got \"a/x\" before \"a/x\")");
    const ds_work_job nokey[] = {{"a/x", 1}, {NULL, 1}};
    assert_int_equal(ds_work_select(nokey, 2, 10, NULL, 0, e, &p, &err), -1);
    assert_string_equal(err.msg, "graph budget: job 1 has no key");
    assert_int_equal(ds_work_select(nokey, 1, 10, NULL, 0, NULL, &p, &err), -1);
    assert_string_equal(err.msg, "graph budget: missing argument");
    assert_int_equal(ds_work_select(nokey, 1, 10, NULL, 0, e, NULL, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_fit_from_start),
        cmocka_unit_test(test_debt),
        cmocka_unit_test(test_no_bound),
        cmocka_unit_test(test_rounds_are_fair),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests_name("graph_budget", tests, NULL, NULL);
}
