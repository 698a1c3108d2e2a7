/* test_dag.c: unit tests of the job DAG: levels, topological order, de-duplicated edges, the name
 * index, ancestors, the critical path, every validation error, and large jobs (2,000 tasks, a
 * 100,000-task chain, a 100,000-task cycle). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag.h"

/* Every edge goes forwards in d->topo, which holds each task exactly once. */
static void assert_topo_valid(const ds_dag *d)
{
    size_t *pos = malloc(d->n * sizeof *pos);
    assert_non_null(pos);
    for (size_t i = 0; i < d->n; i++)
        pos[i] = SIZE_MAX;
    for (size_t t = 0; t < d->n; t++) {
        assert_true(d->topo[t] < d->n);
        assert_true(pos[d->topo[t]] == SIZE_MAX);
        pos[d->topo[t]] = t;
    }
    for (size_t i = 0; i < d->n; i++)
        for (size_t k = 0; k < d->tasks[i].n_up; k++)
            assert_true(pos[d->tasks[i].up[k]] < pos[i]);
    free(pos);
}

static size_t find(const ds_dag *d, const char *name)
{
    size_t idx = SIZE_MAX;
    assert_int_equal(ds_dag_find(d, name, &idx), 0);
    assert_string_equal(d->tasks[idx].name, name);
    return idx;
}

/* a, e: level 1; b, c: 2 (b lists a three times); d: 3; f: 4 (f is listed before its upstream d).
 */
static void test_small_dag(void **state)
{
    (void)state;
    const char *up_b[] = {"a", "a", "a"};
    const char *up_c[] = {"a"};
    const char *up_d[] = {"b", "c"};
    const char *up_f[] = {"e", "d"};
    ds_task_spec specs[] = {
        {"f", 2, up_f, 2},  {"a", 10, NULL, 0}, {"b", 5, up_b, 3},
        {"c", 20, up_c, 1}, {"d", 1, up_d, 2},  {"e", 30, NULL, 0},
    };
    ds_dag d;
    ds_err err = {{0}};
    assert_int_equal(ds_dag_build(&d, specs, 6, &err), 0);
    assert_int_equal(d.n, 6);
    assert_int_equal(d.n_levels, 4);
    size_t a = find(&d, "a"), b = find(&d, "b"), c = find(&d, "c"), dd = find(&d, "d"),
           e = find(&d, "e"), f = find(&d, "f");
    assert_int_equal(f, 0); /* tasks keep the order of the specs */
    assert_int_equal(d.tasks[a].level, 1);
    assert_int_equal(d.tasks[e].level, 1);
    assert_int_equal(d.tasks[b].level, 2);
    assert_int_equal(d.tasks[c].level, 2);
    assert_int_equal(d.tasks[dd].level, 3);
    assert_int_equal(d.tasks[f].level, 4);
    assert_topo_valid(&d);

    /* De-duplicated upstream of b; dependents of a in spec order. */
    assert_int_equal(d.tasks[b].n_up, 1);
    assert_int_equal(d.tasks[b].up[0], a);
    assert_int_equal(d.tasks[a].n_down, 2);
    assert_int_equal(d.tasks[a].down[0], b);
    assert_int_equal(d.tasks[a].down[1], c);
    assert_int_equal(d.tasks[dd].n_down, 1);
    assert_int_equal(d.tasks[dd].down[0], f);
    assert_int_equal(d.tasks[f].n_down, 0);

    /* Longest runtime per level: {a 10, e 30}, {b 5, c 20}, {d 1}, {f 2}. */
    assert_double_near(d.level_max_runtime[1], 30, 0);
    assert_double_near(d.level_max_runtime[2], 20, 0);
    assert_double_near(d.level_max_runtime[3], 1, 0);
    assert_double_near(d.level_max_runtime[4], 2, 0);
    /* Longest chain a -> c -> d -> f = 10 + 20 + 1 + 2 = 33 (e -> f is 32). */
    assert_double_near(ds_dag_critical_path(&d), 33, 1e-12);

    /* Ancestors of f: everything else; of d: a, b, c. */
    unsigned char mark[6] = {0};
    size_t stack[6];
    ds_dag_mark_ancestors(&d, f, mark, stack);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(mark[i], i == f ? 0 : 1);
    memset(mark, 0, sizeof mark);
    ds_dag_mark_ancestors(&d, dd, mark, stack);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(mark[i], (i == a || i == b || i == c) ? 1 : 0);
    memset(mark, 0, sizeof mark);
    ds_dag_mark_ancestors(&d, a, mark, stack);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(mark[i], 0);
    ds_dag_mark_ancestors(&d, 99, mark, stack); /* out of range: nothing */
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(mark[i], 0);

    size_t idx = 7;
    assert_int_equal(ds_dag_find(&d, "g", &idx), -1);
    assert_int_equal(idx, 7);
    assert_int_equal(ds_dag_find(&d, "", &idx), -1);
    assert_int_equal(ds_dag_find(&d, NULL, &idx), -1);
    assert_int_equal(ds_dag_find(NULL, "a", &idx), -1);
    ds_dag_free(&d);
    assert_null(d.tasks);
    ds_dag_free(&d); /* freeing twice is harmless */
}

/* DSP paper, Fig. 2: T2, T3 depend on T1; T4, T5 on T2; T6, T7 on T3. */
static void test_fig2(void **state)
{
    (void)state;
    const char *u1[] = {"T1"}, *u2[] = {"T2"}, *u3[] = {"T3"};
    ds_task_spec specs[] = {
        {"T1", 1, NULL, 0}, {"T2", 1, u1, 1}, {"T3", 1, u1, 1}, {"T4", 1, u2, 1},
        {"T5", 1, u2, 1},   {"T6", 1, u3, 1}, {"T7", 1, u3, 1},
    };
    ds_dag d;
    assert_int_equal(ds_dag_build(&d, specs, 7, NULL), 0);
    assert_int_equal(d.n_levels, 3);
    const int want[] = {1, 2, 2, 3, 3, 3, 3};
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(d.tasks[i].level, want[i]);
    assert_int_equal(d.topo[0], 0);
    assert_topo_valid(&d);
    assert_double_near(ds_dag_critical_path(&d), 3, 0);

    /* One mark array collects the ancestors of T5 (T1, T2), then also of T6 (adds T3). */
    unsigned char mark[7] = {0};
    size_t stack[7];
    ds_dag_mark_ancestors(&d, 4, mark, stack);
    const unsigned char after_t5[] = {1, 1, 0, 0, 0, 0, 0};
    assert_memory_equal(mark, after_t5, 7);
    ds_dag_mark_ancestors(&d, 5, mark, stack);
    const unsigned char after_t6[] = {1, 1, 1, 0, 0, 0, 0};
    assert_memory_equal(mark, after_t6, 7);
    ds_dag_free(&d);
}

static void test_empty(void **state)
{
    (void)state;
    ds_dag d;
    assert_int_equal(ds_dag_build(&d, NULL, 0, NULL), 0);
    assert_int_equal(d.n, 0);
    assert_int_equal(d.n_levels, 0);
    assert_non_null(d.level_max_runtime);
    assert_double_near(ds_dag_critical_path(&d), 0, 0);
    assert_int_equal(ds_dag_find(&d, "a", NULL), -1);
    ds_dag_free(&d);
}

/* Build must fail with exactly `want`, leaving *out zeroed. */
static void expect_error(const ds_task_spec *specs, size_t n, const char *want)
{
    ds_dag d;
    memset(&d, 0xab, sizeof d);
    ds_err err = {{0}};
    assert_int_equal(ds_dag_build(&d, specs, n, &err), -1);
    assert_string_equal(err.msg, want);
    ds_dag zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&d, &zero, sizeof d);
    /* Also without an error buffer. */
    assert_int_equal(ds_dag_build(&d, specs, n, NULL), -1);
    assert_memory_equal(&d, &zero, sizeof d);
}

static void test_spec_errors(void **state)
{
    (void)state;
    const char *up_a[] = {"a"};
    ds_task_spec no_name[] = {{"a", 1, NULL, 0}, {NULL, 1, NULL, 0}};
    expect_error(no_name, 2, "tasks[1]: name is missing");
    ds_task_spec empty_name[] = {{"", 1, NULL, 0}};
    expect_error(empty_name, 1, "tasks[0]: name is empty");

    char longest[DS_TASK_NAME_MAX + 1], too_long[DS_TASK_NAME_MAX + 2];
    memset(longest, 'x', DS_TASK_NAME_MAX);
    longest[DS_TASK_NAME_MAX] = '\0';
    memset(too_long, 'y', DS_TASK_NAME_MAX + 1);
    too_long[DS_TASK_NAME_MAX + 1] = '\0';
    ds_task_spec long_name[] = {{too_long, 1, NULL, 0}};
    expect_error(long_name, 1,
                 "tasks[0]: name is longer than 253 characters "
                 "(got \"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy...\")");
    ds_task_spec ok_name[] = {{longest, 1, NULL, 0}};
    ds_dag d;
    assert_int_equal(ds_dag_build(&d, ok_name, 1, NULL), 0);
    assert_int_equal(ds_dag_find(&d, longest, NULL), 0);
    assert_int_equal(ds_dag_find(&d, too_long, NULL), -1);
    ds_dag_free(&d);

    ds_task_spec negative[] = {{"a", -1, NULL, 0}};
    expect_error(negative, 1,
                 "task \"a\": runtime must be a finite number of seconds >= 0 (got -1)");
    ds_task_spec nan_rt[] = {{"a", NAN, NULL, 0}};
    expect_error(nan_rt, 1,
                 "task \"a\": runtime must be a finite number of seconds >= 0 (got nan)");
    ds_task_spec inf_rt[] = {{"a", INFINITY, NULL, 0}};
    expect_error(inf_rt, 1,
                 "task \"a\": runtime must be a finite number of seconds >= 0 (got inf)");

    ds_task_spec no_list[] = {{"a", 1, NULL, 0}, {"b", 1, NULL, 2}};
    expect_error(no_list, 2, "task \"b\": upstream list is missing (got 2 entries)");
    const char *null_entry[] = {"a", NULL};
    ds_task_spec null_up[] = {{"a", 1, NULL, 0}, {"b", 1, null_entry, 2}};
    expect_error(null_up, 2, "task \"b\": upstream entry 1 is missing");
    expect_error(NULL, 3, "job: task list is missing (got 3 tasks)");

    ds_task_spec dup[] = {{"a", 1, NULL, 0}, {"x", 1, up_a, 1}, {"x", 2, NULL, 0}};
    expect_error(dup, 3, "duplicate task name \"x\"");
    const char *up_x[] = {"a", "x"};
    ds_task_spec unknown[] = {{"a", 1, NULL, 0}, {"b", 1, up_x, 2}};
    expect_error(unknown, 2, "task \"b\": depends on unknown task \"x\"");
    const char *up_long[] = {too_long};
    ds_task_spec unknown_long[] = {{"a", 1, up_long, 1}};
    char want[DS_ERR_MAX];
    snprintf(want, sizeof want, "task \"a\": depends on unknown task \"%.253s\"", too_long);
    expect_error(unknown_long, 1, want);
}

static void test_bounds(void **state)
{
    (void)state;
    /* Counts are checked before any spec is read: the specs here are all empty. */
    ds_task_spec *many = calloc(DS_DAG_MAX_TASKS + 1, sizeof *many);
    assert_non_null(many);
    expect_error(many, DS_DAG_MAX_TASKS + 1, "job: too many tasks: at most 100000 (got 100001)");
    free(many);

    const char **ups = calloc(DS_DAG_MAX_EDGES, sizeof *ups);
    assert_non_null(ups);
    ds_task_spec edges[] = {{"a", 1, ups, 1000000}, {"b", 1, ups, 1000001}};
    expect_error(edges, 2, "job: too many dependencies: at most 2000000 (got 2000001)");
    ds_task_spec huge[] = {{"a", 1, ups, SIZE_MAX}, {"b", 1, ups, 5}};
    char want[DS_ERR_MAX];
    snprintf(want, sizeof want, "job: too many dependencies: at most 2000000 (got %zu)",
             (size_t)SIZE_MAX);
    expect_error(huge, 2, want);
    free(ups);
}

static void test_cycles(void **state)
{
    (void)state;
    const char *up_a[] = {"a"}, *up_b[] = {"b"}, *up_c[] = {"c"};
    /* a depends on c, b on a, c on b. */
    ds_task_spec three[] = {{"a", 1, up_c, 1}, {"b", 1, up_a, 1}, {"c", 1, up_b, 1}};
    expect_error(three, 3, "dependency cycle: a -> b -> c -> a");
    ds_task_spec self[] = {{"r", 1, NULL, 0}, {"a", 1, up_a, 1}};
    expect_error(self, 2, "dependency cycle: a -> a");

    /* r is fine; p, x, y, z form a cycle; t hangs off it. Reported from the first left-over task
     * in spec order when it lies on the cycle... */
    const char *up_p[] = {"p"}, *up_x[] = {"x"}, *up_y[] = {"y"}, *up_z[] = {"z"};
    const char *up_rz[] = {"r", "z"};
    ds_task_spec ring[] = {{"r", 1, NULL, 0}, {"p", 1, up_rz, 2}, {"x", 1, up_p, 1},
                           {"y", 1, up_x, 1}, {"z", 1, up_y, 1},  {"t", 1, up_z, 1}};
    expect_error(ring, 6, "dependency cycle: p -> x -> y -> z -> p");
    /* ... and only the cycle, not the task leading into it, when it does not. */
    ds_task_spec tail_first[] = {{"t", 1, up_z, 1}, {"r", 1, NULL, 0}, {"p", 1, up_rz, 2},
                                 {"x", 1, up_p, 1}, {"y", 1, up_x, 1}, {"z", 1, up_y, 1}};
    expect_error(tail_first, 6, "dependency cycle: z -> p -> x -> y -> z");
}

/* n tasks named "t<i>", task i depending on task i - 1 (task 0 on task n - 1 when `ring`), given in
 * reverse order so that the build cannot rely on the spec order. */
typedef struct chain {
    char (*names)[24];
    const char **up;
    ds_task_spec *specs;
} chain;

static void chain_make(chain *c, size_t n, bool ring)
{
    c->names = malloc(n * sizeof *c->names);
    c->up = malloc(n * sizeof *c->up);
    c->specs = calloc(n, sizeof *c->specs);
    assert_non_null(c->names);
    assert_non_null(c->up);
    assert_non_null(c->specs);
    for (size_t i = 0; i < n; i++)
        snprintf(c->names[i], sizeof c->names[i], "t%zu", i);
    for (size_t i = 0; i < n; i++) {
        ds_task_spec *s = &c->specs[n - 1 - i];
        s->name = c->names[i];
        s->runtime_s = 1;
        if (i > 0 || ring) {
            c->up[i] = c->names[i > 0 ? i - 1 : n - 1];
            s->upstream = &c->up[i];
            s->n_upstream = 1;
        }
    }
}

static void chain_free(chain *c)
{
    free(c->names);
    free(c->up);
    free(c->specs);
}

static void test_deep_chain(void **state)
{
    (void)state;
    const size_t n = DS_DAG_MAX_TASKS;
    chain c;
    chain_make(&c, n, false);
    ds_dag d;
    ds_err err = {{0}};
    assert_int_equal(ds_dag_build(&d, c.specs, n, &err), 0);
    assert_int_equal(d.n_levels, (int)n);
    for (size_t i = 0; i < n; i++) {
        char name[24];
        snprintf(name, sizeof name, "t%zu", i);
        size_t idx = find(&d, name);
        assert_int_equal(d.tasks[idx].level, (int)i + 1);
        assert_int_equal(d.topo[i], idx);
    }
    assert_double_near(ds_dag_critical_path(&d), (double)n, 0);
    assert_double_near(d.level_max_runtime[n], 1, 0);

    unsigned char *mark = calloc(n, 1);
    size_t *stack = malloc(n * sizeof *stack);
    assert_non_null(mark);
    assert_non_null(stack);
    size_t last = find(&d, "t99999");
    ds_dag_mark_ancestors(&d, last, mark, stack);
    size_t marked = 0;
    for (size_t i = 0; i < n; i++)
        marked += mark[i];
    assert_int_equal(marked, n - 1);
    assert_int_equal(mark[last], 0);
    free(mark);
    free(stack);
    ds_dag_free(&d);
    chain_free(&c);

    /* The same chain closed into a ring: one cycle of 100,000 tasks, message truncated. */
    chain_make(&c, n, true);
    memset(&err, 0, sizeof err);
    assert_int_equal(ds_dag_build(&d, c.specs, n, &err), -1);
    assert_non_null(strstr(err.msg, "dependency cycle: t99999 -> t0 -> t1 -> t2 -> "));
    size_t len = strlen(err.msg);
    assert_true(len < DS_ERR_MAX);
    assert_string_equal(err.msg + len - 7, " -> ...");
    assert_null(d.tasks);
    chain_free(&c);
}

/* 2,000 tasks in 20 layers of 100. A task of layer l > 1 depends on one task of layer l - 1 and two
 * pseudo-random tasks of earlier layers (possibly the same one twice), so its level is l. */
static void test_large_job(void **state)
{
    (void)state;
    enum { LAYERS = 20, WIDTH = 100, N = LAYERS * WIDTH };
    static char names[N][16];
    static const char *ups[N][3];
    static ds_task_spec specs[N];
    uint32_t rnd = 12345;
    for (size_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "job-task-%zu", i);
        specs[i] = (ds_task_spec){names[i], (double)(i % 7), NULL, 0};
    }
    for (size_t i = WIDTH; i < N; i++) {
        size_t layer = i / WIDTH;
        rnd = rnd * 1103515245u + 12345u;
        ups[i][0] = names[(layer - 1) * WIDTH + (rnd >> 8) % WIDTH];
        for (size_t k = 1; k < 3; k++) {
            rnd = rnd * 1103515245u + 12345u;
            ups[i][k] = names[(rnd >> 8) % (layer * WIDTH)];
        }
        specs[i].upstream = ups[i];
        specs[i].n_upstream = 3;
    }
    ds_dag d;
    ds_err err = {{0}};
    assert_int_equal(ds_dag_build(&d, specs, N, &err), 0);
    assert_int_equal(d.n_levels, LAYERS);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(d.tasks[i].level, (int)(i / WIDTH) + 1);
        assert_int_equal(find(&d, names[i]), i);
        assert_true(d.tasks[i].n_up <= 3);
        assert_true(i < WIDTH || d.tasks[i].n_up >= 1);
    }
    for (int l = 1; l <= LAYERS; l++)
        assert_double_near(d.level_max_runtime[l], 6, 0);
    assert_topo_valid(&d);
    ds_dag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_dag),  cmocka_unit_test(test_fig2),
        cmocka_unit_test(test_empty),      cmocka_unit_test(test_spec_errors),
        cmocka_unit_test(test_bounds),     cmocka_unit_test(test_cycles),
        cmocka_unit_test(test_deep_chain), cmocka_unit_test(test_large_job),
    };
    return cmocka_run_group_tests_name("dag", tests, NULL, NULL);
}
