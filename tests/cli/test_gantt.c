/* test_gantt.c: unit tests of the gantt chart of kubectl-dagsched (cli/gantt_chart.h) on built
 * rows: the axis spans the job (a 13 s job fills the width), tick labels relative to the job's
 * creation at a readable spacing for widths 40, 60 and 120, the deadline marker and its label
 * inside the width wherever the deadline is (at the right edge, just past the last finish, long
 * after it), and the SVG picture with the same axis. Every expected line is computed by hand:
 * column of t = floor((t - t0) / (t1 - t0) * width). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gantt_chart.h"

#define T0 1800000000.0 /* the job's creation */

/* The 13 s job: a waits 1 s and runs 5 s on n1, then b runs 7 s on n2; finished 87 s ago. */
static const cli_gantt_row ROWS13[] = {
    {"a", "n1", T0, T0 + 1, T0 + 6, false},
    {"b", "n2", T0, T0 + 6, T0 + 13, false},
};

/* Job ns/NAME created at T0, scaled. */
static cli_gantt chart(const char *name, const cli_gantt_row *rows, size_t n, double deadline,
                       double now, bool running)
{
    cli_gantt c = {.ns = "ns", .name = name, .rows = rows, .n = n, .created = T0};
    c.deadline = deadline;
    c.now = now;
    c.running = running;
    cli_gantt_scale(&c);
    return c;
}

static cli_gantt job13(double deadline)
{
    return chart("short", ROWS13, 2, deadline, T0 + 100, false);
}

/* The chart as text, split into lines (at most 16). */
typedef struct lines {
    char *buf;
    char *l[16];
    size_t n;
} lines;

static void render(const cli_gantt *c, int width, lines *out)
{
    size_t len = 0;
    FILE *f = open_memstream(&out->buf, &len);
    assert_non_null(f);
    cli_gantt_text(c, width, f);
    assert_int_equal(fclose(f), 0);
    out->n = 0;
    for (char *s = out->buf, *nl; *s != '\0' && out->n < 16; s = nl + 1) {
        nl = strchr(s, '\n');
        assert_non_null(nl);
        *nl = '\0';
        out->l[out->n++] = s;
    }
}

/* The 13 s job with this deadline, rendered at width. */
static cli_gantt chart13(double deadline, int width, lines *ls)
{
    cli_gantt c = job13(deadline);
    render(&c, width, ls);
    return c;
}

/* The part of a line in the plot: after the name and node columns ("a" and "n1" are short: the
 * columns are TASK and NODE wide, each followed by a space). */
static const char *plot(const char *line)
{
    assert_true(strlen(line) >= 10);
    return line + 10;
}

/* A line of the chart that starts with `prefix`, or fail. */
static const char *line_of(const lines *ls, const char *prefix)
{
    for (size_t i = 0; i < ls->n; i++)
        if (strncmp(ls->l[i], prefix, strlen(prefix)) == 0)
            return ls->l[i];
    fail_msg("no line starts with \"%s\"", prefix);
    return NULL;
}

/* n copies of c then the rest. */
static char *rep(char *p, int n, char c)
{
    for (int i = 0; i < n; i++)
        *p++ = c;
    *p = '\0';
    return p;
}

static void test_short_job_fills_the_width(void **state)
{
    (void)state;
    cli_gantt c = job13(T0 + 600);
    /* The axis is the job (13 s), not up to its deadline 10 minutes later. */
    assert_true(c.t0 == T0 && c.t1 == T0 + 13);
    lines ls;
    render(&c, 60, &ls);
    assert_string_equal(ls.l[0], "Job ns/short: 13s from its creation to its last finish; "
                                 "deadline +10:00 (in 8m20s)");
    /* a: waits from column 0 to col(1 s) = 4, runs to col(6 s) = 27; b: waits to 27, runs to
     * the last column (its finish is the axis end). */
    char want[128], *p = want;
    p = rep(p, 4, '.');
    p = rep(p, 24, '#');
    rep(p, 32, ' ');
    assert_string_equal(plot(line_of(&ls, "a ")), want);
    p = rep(want, 27, '.');
    rep(p, 33, '#');
    assert_string_equal(plot(line_of(&ls, "b ")), want);
    free(ls.buf);
}

static void test_axis_labels_width_60(void **state)
{
    (void)state;
    lines ls;
    chart13(T0 + 600, 60, &ls);
    /* 1 s steps would be 60 / 13 = 4.6 columns apart, fewer than a label ("13s") and 3 blanks:
     * 2 s steps, at floor(2k * 60 / 13) = 0, 9, 18, 27, 36, 46, 55. */
    const char *head = line_of(&ls, "TASK");
    assert_string_equal(head,
                        "TASK NODE 0s       2s       4s       6s       8s        10s      12s");
    const char *axis = line_of(&ls, "          +");
    assert_string_equal(plot(axis), "+--------+--------+--------+--------+---------+--------+----");
    /* The deadline is 587 s past the axis end: no '|' column, a label that ends in the last
     * column and says where it is. */
    assert_null(strchr(plot(line_of(&ls, "a ")), '|'));
    const char *dl = ls.l[ls.n - 1];
    char want[128];
    snprintf(want, sizeof want, "%18s%s", "", "deadline +10:00 is after the chart's end >");
    assert_string_equal(plot(dl), want);
    assert_int_equal(strlen(plot(dl)), 60);
    free(ls.buf);
}

static void test_axis_labels_width_40_and_120(void **state)
{
    (void)state;
    lines ls;
    cli_gantt c = chart13(T0 + 600, 40, &ls);
    /* 2 s steps (6.2 columns) at floor(2k * 40 / 13) = 0, 6, 12, 18, 24, 30, 36. */
    assert_string_equal(plot(line_of(&ls, "TASK")), "0s    2s    4s    6s    8s    10s   12s");
    /* The long label does not fit in 40 columns: the short one does. */
    char want[64];
    snprintf(want, sizeof want, "%23s%s", "", "deadline +10:00 >");
    assert_string_equal(plot(ls.l[ls.n - 1]), want);
    free(ls.buf);
    render(&c, 120, &ls);
    /* 1 s steps (9.2 columns) at floor(k * 120 / 13); 13s at column 119 would not fit. */
    assert_string_equal(plot(line_of(&ls, "TASK")),
                        "0s       1s       2s       3s       4s        5s       6s       7s       "
                        "8s        9s       10s      11s      12s");
    free(ls.buf);
}

static void test_deadline_at_the_right_edge(void **state)
{
    (void)state;
    /* Met exactly at the last finish: the marker is the last column, its label left of it. */
    lines ls;
    assert_true(chart13(T0 + 13, 60, &ls).t1 == T0 + 13);
    assert_string_equal(ls.l[0], "Job ns/short: 13s from its creation to its last finish; "
                                 "deadline +13s (passed 1m27s ago)");
    const char *a = plot(line_of(&ls, "a "));
    assert_int_equal(strlen(a), 60);
    assert_int_equal(a[59], '|');
    const char *dl = plot(ls.l[ls.n - 1]);
    assert_int_equal(strlen(dl), 60);
    assert_string_equal(dl + 45, "deadline +13s ^");
    free(ls.buf);
}

static void test_deadline_just_past_the_last_finish(void **state)
{
    (void)state;
    /* 2 s after the finish (within a quarter of the job's 13 s): the axis reaches it. */
    lines ls;
    assert_true(chart13(T0 + 15, 60, &ls).t1 == T0 + 15);
    /* b runs to col(13 s) = floor(13 / 15 * 60) = 52; the deadline is the last column. */
    char want[128], *p = want;
    p = rep(p, 24, '.');
    p = rep(p, 29, '#');
    p = rep(p, 6, ' ');
    rep(p, 1, '|');
    assert_string_equal(plot(line_of(&ls, "b ")), want);
    assert_string_equal(plot(ls.l[ls.n - 1]) + 45, "deadline +15s ^");
    free(ls.buf);
}

static void test_deadline_inside_the_job(void **state)
{
    (void)state;
    /* Missed: at 3 s, col floor(3 / 13 * 60) = 13; the label starts at the marker. */
    cli_gantt c = job13(T0 + 3);
    lines ls;
    render(&c, 60, &ls);
    const char *dl = plot(ls.l[ls.n - 1]);
    char want[128];
    snprintf(want, sizeof want, "%13s^ deadline +3s", "");
    assert_string_equal(dl, want);
    free(ls.buf);
    /* A 20-minute job at width 20, its deadline at 10:00 in column 10: "^ deadline +10:00" (17
     * columns) fits neither right of the marker nor left of it; "^ deadline" does. */
    const cli_gantt_row rows[] = {{"a", "n1", T0, T0 + 10, T0 + 1200, false}};
    c = chart("long", rows, 1, T0 + 600, T0 + 1300, false);
    render(&c, 20, &ls);
    assert_string_equal(plot(ls.l[ls.n - 1]), "          ^ deadline");
    free(ls.buf);
}

static void test_running_job_minutes(void **state)
{
    (void)state;
    /* Running for 4m10s: m:ss labels; 20 s steps would be 4.8 columns apart, fewer than a label
     * ("4:00") and 3 blanks: 30 s steps, at floor(30k * 60 / 250) = 0, 7, 14, 21, 28, 36, 43,
     * 50 (and 57, where "4:00" would not fit). */
    const cli_gantt_row rows[] = {{"long-task-name", "node-1", T0 + 5, T0 + 10, NAN, false}};
    cli_gantt c = chart("run", rows, 1, INFINITY, T0 + 250, true);
    assert_true(c.t1 == T0 + 250);
    lines ls;
    render(&c, 60, &ls);
    assert_string_equal(ls.l[0],
                        "Job ns/run: 4m10s from its creation to now (running); no deadline");
    /* The columns are as wide as the longest name and node. */
    const char *head = line_of(&ls, "TASK");
    assert_string_equal(head, "TASK           NODE   0:00   0:30   1:00   1:30   2:00    2:30   "
                              "3:00   3:30");
    free(ls.buf);
}

/* The SVG: tick labels relative to the creation, the deadline label anchored inside. */
static void test_svg(void **state)
{
    (void)state;
    cli_gantt c = job13(T0 + 13);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    cli_gantt_svg(&c, f);
    assert_int_equal(fclose(f), 0);
    assert_non_null(strstr(buf, ">0s</text>"));
    assert_non_null(strstr(buf, ">12s</text>"));
    /* At the right edge: anchored at its end, left of the line. */
    const char *dl = strstr(buf, ">deadline +13s</text>");
    assert_non_null(dl);
    const char *open = dl;
    while (open > buf && *open != '<')
        open--;
    assert_non_null(strstr(open, "text-anchor=\"end\""));
    assert_true(strstr(open, "text-anchor=\"end\"") < dl);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_job_fills_the_width),
        cmocka_unit_test(test_axis_labels_width_60),
        cmocka_unit_test(test_axis_labels_width_40_and_120),
        cmocka_unit_test(test_deadline_at_the_right_edge),
        cmocka_unit_test(test_deadline_just_past_the_last_finish),
        cmocka_unit_test(test_deadline_inside_the_job),
        cmocka_unit_test(test_running_job_minutes),
        cmocka_unit_test(test_svg),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
