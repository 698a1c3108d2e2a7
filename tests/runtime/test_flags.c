/* test_flags.c: the flags layer of runtime/flags.h: every kind of value parsed and range-checked,
 * each usage error printed as "PROG: --FLAG: expected ... (got \"VALUE\")" with the exit status
 * 2, --help and --version answered with 0, the help printed from the table, arguments kept in
 * order after the flags, and a second parse in the same process starting over. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/ds_assert.h"
#include "flags.h"

static const char *const formats[] = {"text", "json", NULL};
static const char *const levels[] = {"debug", "info", "warn", "error", "off", NULL};

typedef struct vals {
    const char *name;
    bool dry, leader, quiet;
    int count, format, level;
    size_t size;
    double qps, wait;
    char pair[16];
} vals;

/* "A:B" with A and B single letters: a flag's own conversion. */
static int letters(void *dest, const char *v, char *why, size_t size)
{
    if (strlen(v) != 3 || v[1] != ':') {
        snprintf(why, size, "expected A:B");
        return -1;
    }
    snprintf(dest, 16, "%s", v);
    return 0;
}

/* The output of one parse: its status, what it printed on each stream. */
typedef struct run {
    int rc, first;
    char out[4096], err[1024];
} run;

static void parse_into(vals *v, bool arguments, bool refuse_quiet, run *r, int argc, char **argv)
{
    rt_flag table[] = {
        RT_FLAG_STRING("name", "NAME", &v->name, "who"),
        RT_FLAG_SET("quiet", &v->quiet, "say less"),
        RT_FLAG_BOOL("dry-run", &v->dry, "decide, do nothing"),
        RT_FLAG_BOOL("leader", &v->leader, NULL),
        RT_FLAG_INT("count", "N", &v->count, -5, 100, "how many\n(default 3)"),
        RT_FLAG_SIZE("size", "BYTES", &v->size, 1024, 1ll << 40, NULL),
        RT_FLAG_DOUBLE("qps", "Q", &v->qps, 0, 1000, NULL),
        RT_FLAG_SECTION("Time"),
        RT_FLAG_DURATION("wait", &v->wait, 0.1, 3600, "the longest wait"),
        RT_FLAG_CHOICE("log-format", "text|json", &v->format, formats, NULL),
        RT_FLAG_CHOICE("log-level", "LEVEL", &v->level, levels, NULL),
        RT_FLAG_FUNC("pair", "A:B", letters, v->pair, NULL),
    };
    table[1].short_name = 'q';
    table[4].short_name = 'c';
    table[1].refused = refuse_quiet;
    FILE *out = fmemopen(r->out, sizeof r->out, "w");
    FILE *err = fmemopen(r->err, sizeof r->err, "w");
    assert_non_null(out);
    assert_non_null(err);
    rt_flags spec = {.prog = "prog",
                     .usage = "Usage: prog [flags]\n",
                     .version = "prog 1.2 (git abc)",
                     .flags = table,
                     .n_flags = sizeof table / sizeof table[0],
                     .arguments = arguments,
                     .out = out,
                     .err = err};
    r->first = -1;
    r->rc = rt_flags_parse(&spec, argc, argv, &r->first);
    assert_int_equal(fclose(out), 0);
    assert_int_equal(fclose(err), 0);
}

static void defaults(vals *v)
{
    memset(v, 0, sizeof *v);
    v->name = "default";
    v->leader = true;
    v->count = 3;
    v->size = 4096;
    v->qps = 20;
    v->wait = 120;
    v->level = 1;
}

/* Parse the arguments of ap (NULL-terminated, after "prog") with the defaults set first. */
static run parse_list(vals *v, bool arguments, bool refuse_quiet, va_list ap)
{
    char *argv[32] = {"prog"};
    int argc = 1;
    for (char *a; argc < 31 && (a = va_arg(ap, char *)) != NULL;)
        argv[argc++] = a;
    argv[argc] = NULL;
    defaults(v);
    run r;
    memset(&r, 0, sizeof r);
    parse_into(v, arguments, refuse_quiet, &r, argc, argv);
    return r;
}

static run parse(vals *v, bool arguments, ...)
{
    va_list ap;
    va_start(ap, arguments);
    run r = parse_list(v, arguments, false, ap);
    va_end(ap);
    return r;
}

static void test_every_kind_parsed(void **state)
{
    (void)state;
    vals v;
    run r = parse(&v, false, "--name", "x", "--quiet", "--dry-run", "--leader=false", "--count=-5",
                  "--size", "1099511627776", "--qps", "2.5e2", "--wait", "1m30s", "--log-format",
                  "json", "--log-level=off", "--pair", "a:b", NULL);
    assert_int_equal(r.rc, RT_FLAGS_RUN);
    assert_string_equal(r.err, "");
    assert_string_equal(v.name, "x");
    assert_true(v.quiet && v.dry && !v.leader);
    assert_int_equal(v.count, -5);
    assert_int_equal(v.size, (size_t)1 << 40);
    assert_double_near(v.qps, 250, 0);
    assert_double_near(v.wait, 90, 0);
    assert_int_equal(v.format, 1);
    assert_int_equal(v.level, 4);
    assert_string_equal(v.pair, "a:b");
    assert_int_equal(r.first, 18);
}

static void test_defaults_kept(void **state)
{
    (void)state;
    vals v;
    run r = parse(&v, false, "--dry-run=1", "-q", "-c", "7", NULL);
    assert_int_equal(r.rc, RT_FLAGS_RUN);
    assert_true(v.dry && v.quiet && v.leader);
    assert_int_equal(v.count, 7);
    assert_string_equal(v.name, "default");
    assert_int_equal(v.size, 4096);
    assert_double_near(v.wait, 120, 0);
    assert_int_equal(v.level, 1);
    /* "" is a value like any other. */
    r = parse(&v, false, "--name=", NULL);
    assert_int_equal(r.rc, RT_FLAGS_RUN);
    assert_string_equal(v.name, "");
}

/* One bad flag: exit status 2, the message, and nothing on the help stream. */
static void bad(const char *message, ...)
{
    vals v;
    va_list ap;
    va_start(ap, message);
    run r = parse_list(&v, false, true, ap);
    va_end(ap);
    assert_int_equal(r.rc, RT_EXIT_USAGE);
    assert_string_equal(r.err, message);
    assert_string_equal(r.out, "");
}

static void test_values_out_of_range(void **state)
{
    (void)state;
    bad("prog: --count: expected an integer in -5..100 (got \"101\")\n", "--count", "101", NULL);
    bad("prog: --count: expected an integer in -5..100 (got \"-6\")\n", "--count=-6", NULL);
    bad("prog: --count: expected an integer in -5..100 (got \"3x\")\n", "--count", "3x", NULL);
    bad("prog: --count: expected an integer in -5..100 (got \" 3\")\n", "--count", " 3", NULL);
    bad("prog: -c: expected an integer in -5..100 (got \"\")\n", "-c", "", NULL);
    bad("prog: --count: expected an integer in -5..100 (got \"99999999999999999999\")\n", "--count",
        "99999999999999999999", NULL);
    bad("prog: --size: expected an integer in 1024..1099511627776 (got \"1023\")\n", "--size",
        "1023", NULL);
    bad("prog: --size: expected an integer in 1024..1099511627776 (got \"1099511627777\")\n",
        "--size", "1099511627777", NULL);
    bad("prog: --qps: expected a number in 0..1000 (got \"nan\")\n", "--qps", "nan", NULL);
    bad("prog: --qps: expected a number in 0..1000 (got \"-0.5\")\n", "--qps", "-0.5", NULL);
    bad("prog: --qps: expected a number in 0..1000 (got \"1e4\")\n", "--qps", "1e4", NULL);
    bad("prog: --qps: expected a number in 0..1000 (got \"\")\n", "--qps=", NULL);
    bad("prog: --wait: expected a duration in 100ms..1h0m0s, such as 30s or 1m30s (got "
        "\"10ms\")\n",
        "--wait", "10ms", NULL);
    bad("prog: --wait: expected a duration in 100ms..1h0m0s, such as 30s or 1m30s (got "
        "\"30\")\n",
        "--wait", "30", NULL);
    bad("prog: --wait: expected a duration in 100ms..1h0m0s, such as 30s or 1m30s (got "
        "\"2h\")\n",
        "--wait", "2h", NULL);
}

static void test_choices_and_bools(void **state)
{
    (void)state;
    bad("prog: --log-format: expected text or json (got \"xml\")\n", "--log-format", "xml", NULL);
    bad("prog: --log-level: expected debug, info, warn, error or off (got \"verbose\")\n",
        "--log-level", "verbose", NULL);
    bad("prog: --log-level: expected debug, info, warn, error or off (got \"INFO\")\n",
        "--log-level=INFO", NULL);
    bad("prog: --dry-run: expected true or false (got \"yes\")\n", "--dry-run=yes", NULL);
    bad("prog: --pair: expected A:B (got \"ab\")\n", "--pair", "ab", NULL);
}

static void test_flags_themselves(void **state)
{
    (void)state;
    bad("prog: unknown flag --nope (see --help)\n", "--nope", NULL);
    bad("prog: unknown flag --nope (see --help)\n", "--nope=3", NULL);
    bad("prog: unknown flag -x (see --help)\n", "-x", NULL);
    bad("prog: --name: expected NAME (got nothing)\n", "--name", NULL);
    bad("prog: -c: expected N (got nothing)\n", "-c", NULL);
    bad("prog: --log-format: expected text|json (got nothing)\n", "--log-format", NULL);
    bad("prog: --quiet: takes no value\n", "--quiet=1", NULL);
    bad("prog: --help: takes no value\n", "--help=1", NULL);
    bad("prog: --quiet is not a flag of this command\n", "--quiet", NULL);
    bad("prog: -q is not a flag of this command\n", "-q", NULL);
    bad("prog: unexpected argument \"extra\" (see --help)\n", "extra", NULL);
    bad("prog: unexpected argument \"extra\" (see --help)\n", "--count", "1", "extra", NULL);
}

static void test_arguments_in_order(void **state)
{
    (void)state;
    vals v;
    char *argv[] = {"prog", "one", "--count", "4", "two", "-c5", "--", "--three", NULL};
    defaults(&v);
    run r;
    memset(&r, 0, sizeof r);
    parse_into(&v, true, false, &r, 8, argv);
    assert_int_equal(r.rc, RT_FLAGS_RUN);
    assert_int_equal(v.count, 5);
    assert_int_equal(r.first, 5);
    assert_string_equal(argv[5], "one");
    assert_string_equal(argv[6], "two");
    assert_string_equal(argv[7], "--three");
}

/* getopt keeps its place in globals: a second parse (a subcommand, a test) starts over. */
static void test_parses_again(void **state)
{
    (void)state;
    vals v;
    run r = parse(&v, false, "--count", "9", "--count", NULL);
    assert_int_equal(r.rc, RT_EXIT_USAGE);
    r = parse(&v, false, "--count", "8", NULL);
    assert_int_equal(r.rc, RT_FLAGS_RUN);
    assert_int_equal(v.count, 8);
    assert_int_equal(r.first, 3);
}

static void test_help_and_version(void **state)
{
    (void)state;
    vals v;
    run r = parse(&v, false, "--version", NULL);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.out, "prog 1.2 (git abc)\n");
    assert_string_equal(r.err, "");
    r = parse(&v, false, "--count", "4", "--help", "--count", "x", NULL);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.err, "");
    assert_string_equal(r.out, "Usage: prog [flags]\n"
                               "\n"
                               "Flags:\n"
                               "      --name NAME             who\n"
                               "  -q, --quiet                 say less\n"
                               "      --dry-run[=BOOL]        decide, do nothing\n"
                               "      --leader[=BOOL]\n"
                               "  -c, --count N               how many\n"
                               "                              (default 3)\n"
                               "      --size BYTES\n"
                               "      --qps Q\n"
                               "\n"
                               "Time:\n"
                               "      --wait D                the longest wait\n"
                               "      --log-format text|json\n"
                               "      --log-level LEVEL\n"
                               "      --pair A:B\n"
                               "      --help                  print this help and exit\n"
                               "      --version               print the version and exit\n");
}

static void test_usage_error_after_parse(void **state)
{
    (void)state;
    char buf[256] = "";
    FILE *err = fmemopen(buf, sizeof buf, "w");
    assert_non_null(err);
    rt_flags spec = {.prog = "prog sub", .err = err};
    assert_int_equal(rt_flags_error(&spec, "--a and --%s go together", "b"), RT_EXIT_USAGE);
    assert_int_equal(fclose(err), 0);
    assert_string_equal(buf, "prog sub: --a and --b go together\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_parsed),
        cmocka_unit_test(test_defaults_kept),
        cmocka_unit_test(test_values_out_of_range),
        cmocka_unit_test(test_choices_and_bools),
        cmocka_unit_test(test_flags_themselves),
        cmocka_unit_test(test_arguments_in_order),
        cmocka_unit_test(test_parses_again),
        cmocka_unit_test(test_help_and_version),
        cmocka_unit_test(test_usage_error_after_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
