/* test_node_affinity.c: unit tests of required node affinity matching (lib/node_affinity.h):
 * every operator on present and absent labels, matchFields on the node name, ORed terms and ANDed
 * requirements, the empty cases (no term, empty term), malformed requirements, the integer parser
 * behind Gt/Lt and the validation messages and limits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "node_affinity.h"

/* A node: name and up to 8 labels. */
typedef struct tnode {
    const char *keys[8];
    const char *vals[8];
    size_t n;
} tnode;

static const char *tnode_label(const void *ctx, const char *key)
{
    const tnode *t = ctx;
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->keys[i], key) == 0)
            return t->vals[i];
    return NULL;
}

/* zone=a, gen=5, pool=fast, odd=x7 (not an integer). */
static const tnode LABELS = {{"zone", "gen", "pool", "odd"}, {"a", "5", "fast", "x7"}, 4};
static const tnode NO_LABELS = {{NULL}, {NULL}, 0};

static ds_nsel_node node_of(const char *name, const tnode *t)
{
    return (ds_nsel_node){.name = name, .label = tnode_label, .ctx = t};
}

/* Does a selector of one term with one label requirement match the node? */
static bool one_expr(const tnode *t, const char *key, ds_nsel_op op, const char *const *values,
                     size_t n)
{
    ds_nsel_req r = {.key = key, .op = op, .values = values, .n_values = n};
    ds_nsel_term term = {.match_expressions = &r, .n_match_expressions = 1};
    ds_node_selector sel = {.terms = &term, .n_terms = 1};
    ds_nsel_node node = node_of("n1", t);
    return ds_node_selector_matches(&sel, &node);
}

static void test_in_not_in(void **state)
{
    (void)state;
    const char *ab[] = {"b", "a"}, *b[] = {"b"};
    assert_true(one_expr(&LABELS, "zone", DS_NSEL_IN, ab, 2));
    assert_false(one_expr(&LABELS, "zone", DS_NSEL_IN, b, 1));
    assert_false(one_expr(&NO_LABELS, "zone", DS_NSEL_IN, ab, 2)); /* absent: never In */
    assert_false(one_expr(&LABELS, "zone", DS_NSEL_NOT_IN, ab, 2));
    assert_true(one_expr(&LABELS, "zone", DS_NSEL_NOT_IN, b, 1));
    assert_true(one_expr(&NO_LABELS, "zone", DS_NSEL_NOT_IN, ab, 2)); /* absent: NotIn holds */
    /* Values compare exactly: no prefix or case folding. */
    const char *cap[] = {"A"}, *fas[] = {"fas"};
    assert_false(one_expr(&LABELS, "zone", DS_NSEL_IN, cap, 1));
    assert_false(one_expr(&LABELS, "pool", DS_NSEL_IN, fas, 1));
    /* In/NotIn without values: malformed, the term matches nothing (NotIn included). */
    assert_false(one_expr(&LABELS, "zone", DS_NSEL_IN, NULL, 0));
    assert_false(one_expr(&NO_LABELS, "zone", DS_NSEL_NOT_IN, NULL, 0));
}

static void test_exists(void **state)
{
    (void)state;
    assert_true(one_expr(&LABELS, "pool", DS_NSEL_EXISTS, NULL, 0));
    assert_false(one_expr(&NO_LABELS, "pool", DS_NSEL_EXISTS, NULL, 0));
    assert_false(one_expr(&LABELS, "pool", DS_NSEL_DOES_NOT_EXIST, NULL, 0));
    assert_true(one_expr(&NO_LABELS, "pool", DS_NSEL_DOES_NOT_EXIST, NULL, 0));
    /* With values: malformed. */
    const char *v[] = {"fast"};
    assert_false(one_expr(&LABELS, "pool", DS_NSEL_EXISTS, v, 1));
    assert_false(one_expr(&NO_LABELS, "pool", DS_NSEL_DOES_NOT_EXIST, v, 1));
}

static void test_gt_lt(void **state)
{
    (void)state;
    const char *four[] = {"4"}, *five[] = {"5"}, *six[] = {"6"}, *neg[] = {"-3"};
    assert_true(one_expr(&LABELS, "gen", DS_NSEL_GT, four, 1));
    assert_false(one_expr(&LABELS, "gen", DS_NSEL_GT, five, 1)); /* strict */
    assert_true(one_expr(&LABELS, "gen", DS_NSEL_LT, six, 1));
    assert_false(one_expr(&LABELS, "gen", DS_NSEL_LT, five, 1));
    assert_true(one_expr(&LABELS, "gen", DS_NSEL_GT, neg, 1));
    /* Absent label, or a label value that is not an integer: no match either way. */
    assert_false(one_expr(&NO_LABELS, "gen", DS_NSEL_GT, four, 1));
    assert_false(one_expr(&NO_LABELS, "gen", DS_NSEL_LT, four, 1));
    assert_false(one_expr(&LABELS, "odd", DS_NSEL_GT, four, 1));
    assert_false(one_expr(&LABELS, "odd", DS_NSEL_LT, four, 1));
    assert_false(one_expr(&LABELS, "zone", DS_NSEL_LT, four, 1));
    /* Malformed: no value, two values, a value that is not an integer. */
    const char *two[] = {"1", "9"}, *word[] = {"four"}, *dec[] = {"4.5"};
    assert_false(one_expr(&LABELS, "gen", DS_NSEL_GT, NULL, 0));
    assert_false(one_expr(&LABELS, "gen", DS_NSEL_GT, two, 2));
    assert_false(one_expr(&LABELS, "gen", DS_NSEL_LT, word, 1));
    assert_false(one_expr(&LABELS, "gen", DS_NSEL_LT, dec, 1));
}

static void test_parse_int(void **state)
{
    (void)state;
    int64_t v = 42;
    assert_int_equal(ds_nsel_parse_int("0", &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(ds_nsel_parse_int("007", &v), 0);
    assert_int_equal(v, 7);
    assert_int_equal(ds_nsel_parse_int("+12", &v), 0);
    assert_int_equal(v, 12);
    assert_int_equal(ds_nsel_parse_int("-12", &v), 0);
    assert_int_equal(v, -12);
    assert_int_equal(ds_nsel_parse_int("9223372036854775807", &v), 0);
    assert_true(v == INT64_MAX);
    assert_int_equal(ds_nsel_parse_int("-9223372036854775808", &v), 0);
    assert_true(v == INT64_MIN);
    v = 42;
    const char *bad[] = {"",
                         "+",
                         "-",
                         "1_000",
                         " 1",
                         "1 ",
                         "0x10",
                         "1e3",
                         "--1",
                         "+-1",
                         "9223372036854775808",
                         "-9223372036854775809",
                         "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(ds_nsel_parse_int(bad[i], &v), -1);
    assert_int_equal(v, 42); /* untouched on failure */
    assert_int_equal(ds_nsel_parse_int(NULL, &v), -1);
}

static void test_match_fields(void **state)
{
    (void)state;
    const char *n1[] = {"n1"};
    ds_nsel_req f = {.key = "metadata.name", .op = DS_NSEL_IN, .values = n1, .n_values = 1};
    ds_nsel_term term = {.match_fields = &f, .n_match_fields = 1};
    ds_node_selector sel = {.terms = &term, .n_terms = 1};
    ds_nsel_node a = node_of("n1", &NO_LABELS), b = node_of("n2", &NO_LABELS);
    assert_true(ds_node_selector_matches(&sel, &a));
    assert_false(ds_node_selector_matches(&sel, &b));
    f.op = DS_NSEL_NOT_IN;
    assert_false(ds_node_selector_matches(&sel, &a));
    assert_true(ds_node_selector_matches(&sel, &b));
    /* Malformed field requirements match nothing: another key, another operator, two values. */
    f.key = "metadata.labels";
    assert_false(ds_node_selector_matches(&sel, &b));
    f.key = "metadata.name";
    f.op = DS_NSEL_EXISTS;
    assert_false(ds_node_selector_matches(&sel, &a));
    const char *two[] = {"n1", "n2"};
    f.op = DS_NSEL_IN;
    f.values = two;
    f.n_values = 2;
    assert_false(ds_node_selector_matches(&sel, &a));
}

/* Terms are ORed, requirements within a term ANDed (labels and fields together). */
static void test_terms_or_requirements_and(void **state)
{
    (void)state;
    const char *a[] = {"a"}, *slow[] = {"slow"}, *n1[] = {"n1"}, *four[] = {"4"};
    ds_nsel_req zone_a = {.key = "zone", .op = DS_NSEL_IN, .values = a, .n_values = 1};
    ds_nsel_req pool_slow = {.key = "pool", .op = DS_NSEL_IN, .values = slow, .n_values = 1};
    ds_nsel_req gen_gt4 = {.key = "gen", .op = DS_NSEL_GT, .values = four, .n_values = 1};
    ds_nsel_req name_n1 = {.key = "metadata.name", .op = DS_NSEL_IN, .values = n1, .n_values = 1};
    ds_nsel_node node = node_of("n1", &LABELS), other = node_of("n2", &LABELS);

    ds_nsel_req both[2] = {zone_a, pool_slow}; /* pool is fast: the term fails */
    ds_nsel_term t_fail = {.match_expressions = both, .n_match_expressions = 2};
    ds_nsel_req ok[2] = {zone_a, gen_gt4};
    ds_nsel_term t_ok = {.match_expressions = ok, .n_match_expressions = 2};
    assert_false(ds_nsel_term_matches(&t_fail, &node));
    assert_true(ds_nsel_term_matches(&t_ok, &node));

    ds_nsel_term one_fails[2] = {t_fail, t_ok};
    ds_node_selector sel = {.terms = one_fails, .n_terms = 2};
    assert_true(ds_node_selector_matches(&sel, &node));
    sel.n_terms = 1; /* only the failing term */
    assert_false(ds_node_selector_matches(&sel, &node));

    /* Labels and fields in one term: both must hold. */
    ds_nsel_term mixed = {.match_expressions = ok,
                          .n_match_expressions = 2,
                          .match_fields = &name_n1,
                          .n_match_fields = 1};
    assert_true(ds_nsel_term_matches(&mixed, &node));
    assert_false(ds_nsel_term_matches(&mixed, &other));

    /* A malformed term does not spoil a good one (Kubernetes evaluates terms separately). */
    ds_nsel_req bad = {.key = "gen", .op = DS_NSEL_GT, .values = NULL, .n_values = 0};
    ds_nsel_term t_bad = {.match_expressions = &bad, .n_match_expressions = 1};
    ds_nsel_term bad_then_ok[2] = {t_bad, t_ok};
    sel = (ds_node_selector){.terms = bad_then_ok, .n_terms = 2};
    assert_true(ds_node_selector_matches(&sel, &node));
    /* A malformed requirement next to a satisfied one spoils its own term. */
    ds_nsel_req with_bad[2] = {zone_a, bad};
    ds_nsel_term t_mixed_bad = {.match_expressions = with_bad, .n_match_expressions = 2};
    assert_false(ds_nsel_term_matches(&t_mixed_bad, &node));
}

static void test_empty_cases(void **state)
{
    (void)state;
    ds_nsel_node node = node_of("n1", &LABELS);
    /* No term: matches nothing. */
    ds_node_selector none = {.terms = NULL, .n_terms = 0};
    assert_false(ds_node_selector_matches(&none, &node));
    /* A term without requirements: matches nothing. */
    ds_nsel_term empty = {0};
    ds_node_selector sel = {.terms = &empty, .n_terms = 1};
    assert_false(ds_node_selector_matches(&sel, &node));
    assert_false(ds_nsel_term_matches(&empty, &node));
    /* NULLs. */
    assert_false(ds_node_selector_matches(NULL, &node));
    assert_false(ds_node_selector_matches(&sel, NULL));
    /* A node without a label lookup has no labels. */
    ds_nsel_req dne = {.key = "zone", .op = DS_NSEL_DOES_NOT_EXIST};
    ds_nsel_term t = {.match_expressions = &dne, .n_match_expressions = 1};
    sel.terms = &t;
    ds_nsel_node bare = {.name = "n1"};
    assert_true(ds_node_selector_matches(&sel, &bare));
}

static void test_op_names(void **state)
{
    (void)state;
    const char *names[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
    for (int i = 0; i < 6; i++) {
        ds_nsel_op op = DS_NSEL_LT;
        assert_int_equal(ds_nsel_op_parse(names[i], &op), 0);
        assert_int_equal(op, i);
        assert_string_equal(ds_nsel_op_name(op), names[i]);
    }
    ds_nsel_op op = DS_NSEL_GT;
    assert_int_equal(ds_nsel_op_parse("in", &op), -1);
    assert_int_equal(ds_nsel_op_parse("Equals", &op), -1);
    assert_int_equal(ds_nsel_op_parse(NULL, &op), -1);
    assert_int_equal(op, DS_NSEL_GT);
    assert_string_equal(ds_nsel_op_name((ds_nsel_op)17), "unknown");
}

/* One term with one expression for the validation tests. */
static int check_one(const char *key, ds_nsel_op op, const char *const *values, size_t n,
                     ds_err *err)
{
    ds_nsel_req r = {.key = key, .op = op, .values = values, .n_values = n};
    ds_nsel_term term = {.match_expressions = &r, .n_match_expressions = 1};
    ds_node_selector sel = {.terms = &term, .n_terms = 1};
    return ds_node_selector_check(&sel, err);
}

static void test_check(void **state)
{
    (void)state;
    ds_err err = {{0}};
    const char *a[] = {"a"}, *four[] = {"4"}, *word[] = {"four"}, *two[] = {"1", "2"};
    const char *bad_val[] = {"a b"};
    assert_int_equal(check_one("topology.kubernetes.io/zone", DS_NSEL_IN, a, 1, &err), 0);
    assert_int_equal(check_one("zone", DS_NSEL_EXISTS, NULL, 0, &err), 0);
    assert_int_equal(check_one("gen", DS_NSEL_LT, four, 1, &err), 0);

    assert_int_equal(check_one("zone", DS_NSEL_IN, NULL, 0, &err), -1);
    assert_string_equal(err.msg, "nodeSelectorTerms[0].matchExpressions[0].values: must not be "
                                 "empty with operator In");
    assert_int_equal(check_one("zone", DS_NSEL_DOES_NOT_EXIST, a, 1, &err), -1);
    assert_string_equal(err.msg, "nodeSelectorTerms[0].matchExpressions[0].values: must be empty "
                                 "with operator DoesNotExist (got 1 values)");
    assert_int_equal(check_one("gen", DS_NSEL_GT, two, 2, &err), -1);
    assert_string_equal(err.msg, "nodeSelectorTerms[0].matchExpressions[0].values: must hold "
                                 "exactly one value with operator Gt (got 2)");
    assert_int_equal(check_one("gen", DS_NSEL_GT, word, 1, &err), -1);
    assert_string_equal(err.msg, "nodeSelectorTerms[0].matchExpressions[0].values[0]: must be a "
                                 "base-10 integer with operator Gt (got \"four\")");
    assert_int_equal(check_one("zone", DS_NSEL_IN, bad_val, 1, &err), -1);
    assert_non_null(strstr(err.msg, "nodeSelectorTerms[0].matchExpressions[0].values[0]: must be "
                                    "at most 63 characters"));
    assert_int_equal(check_one("bad key!", DS_NSEL_EXISTS, NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "nodeSelectorTerms[0].matchExpressions[0].key: must be a "
                                    "qualified name"));
    assert_int_equal(check_one("zone", (ds_nsel_op)9, a, 1, &err), -1);
    assert_string_equal(err.msg, "nodeSelectorTerms[0].matchExpressions[0].operator: must be In, "
                                 "NotIn, Exists, DoesNotExist, Gt or Lt (got 9)");

    /* Fields: metadata.name, In/NotIn, one value. */
    const char *n1[] = {"n1"};
    ds_nsel_req f = {.key = "metadata.uid", .op = DS_NSEL_IN, .values = n1, .n_values = 1};
    ds_nsel_term term = {.match_fields = &f, .n_match_fields = 1};
    ds_node_selector sel = {.terms = &term, .n_terms = 1};
    assert_int_equal(ds_node_selector_check(&sel, &err), -1);
    assert_string_equal(err.msg, "nodeSelectorTerms[0].matchFields[0].key: must be metadata.name "
                                 "(got \"metadata.uid\")");
    f.key = "metadata.name";
    assert_int_equal(ds_node_selector_check(&sel, &err), 0);
    f.op = DS_NSEL_GT;
    assert_int_equal(ds_node_selector_check(&sel, &err), -1);
    assert_string_equal(err.msg, "nodeSelectorTerms[0].matchFields[0].operator: must be In or "
                                 "NotIn (got Gt)");
    f.op = DS_NSEL_NOT_IN;
    f.n_values = 0;
    assert_int_equal(ds_node_selector_check(&sel, &err), -1);
    assert_string_equal(err.msg, "nodeSelectorTerms[0].matchFields[0].values: must hold exactly "
                                 "one value (got 0)");

    /* No term and empty terms are valid for the checker (they simply match nothing). */
    ds_node_selector none = {0};
    assert_int_equal(ds_node_selector_check(&none, &err), 0);
    ds_nsel_term empty = {0};
    sel = (ds_node_selector){.terms = &empty, .n_terms = 1};
    assert_int_equal(ds_node_selector_check(&sel, &err), 0);
    assert_int_equal(ds_node_selector_check(NULL, &err), -1);
}

static void test_check_limits(void **state)
{
    (void)state;
    ds_err err = {{0}};
    static ds_nsel_term terms[DS_NSEL_MAX_TERMS + 1];
    static ds_nsel_req reqs[DS_NSEL_MAX_REQS + 1];
    static const char *vals[DS_NSEL_MAX_VALUES + 1];
    for (size_t i = 0; i <= DS_NSEL_MAX_VALUES; i++)
        vals[i] = "v";
    for (size_t i = 0; i <= DS_NSEL_MAX_REQS; i++)
        reqs[i] = (ds_nsel_req){.key = "k", .op = DS_NSEL_EXISTS};
    for (size_t i = 0; i <= DS_NSEL_MAX_TERMS; i++)
        terms[i] = (ds_nsel_term){.match_expressions = reqs, .n_match_expressions = 1};
    ds_node_selector sel = {.terms = terms, .n_terms = DS_NSEL_MAX_TERMS};
    assert_int_equal(ds_node_selector_check(&sel, &err), 0);
    sel.n_terms = DS_NSEL_MAX_TERMS + 1;
    assert_int_equal(ds_node_selector_check(&sel, &err), -1);
    assert_string_equal(err.msg, "nodeSelectorTerms: at most 64 terms (got 65)");

    sel.n_terms = 1;
    terms[0].n_match_expressions = DS_NSEL_MAX_REQS;
    assert_int_equal(ds_node_selector_check(&sel, &err), 0);
    terms[0].n_match_expressions = DS_NSEL_MAX_REQS + 1;
    assert_int_equal(ds_node_selector_check(&sel, &err), -1);
    assert_string_equal(err.msg, "nodeSelectorTerms[0].matchExpressions: at most 64 (got 65)");

    terms[0].n_match_expressions = 1;
    reqs[0] = (ds_nsel_req){.key = "k", .op = DS_NSEL_IN, .values = vals, .n_values = 1024};
    assert_int_equal(ds_node_selector_check(&sel, &err), 0);
    reqs[0].n_values = DS_NSEL_MAX_VALUES + 1;
    assert_int_equal(ds_node_selector_check(&sel, &err), -1);
    assert_string_equal(err.msg,
                        "nodeSelectorTerms[0].matchExpressions[0].values: at most 1024 (got 1025)");
    /* Over the total: five terms of 1024 values (4096 allowed in all). */
    reqs[0].n_values = DS_NSEL_MAX_VALUES;
    sel.n_terms = 4;
    assert_int_equal(ds_node_selector_check(&sel, &err), 0);
    sel.n_terms = 5;
    assert_int_equal(ds_node_selector_check(&sel, &err), -1);
    assert_string_equal(err.msg, "nodeSelectorTerms: at most 4096 values in all (got more)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_not_in),    cmocka_unit_test(test_exists),
        cmocka_unit_test(test_gt_lt),        cmocka_unit_test(test_parse_int),
        cmocka_unit_test(test_match_fields), cmocka_unit_test(test_terms_or_requirements_and),
        cmocka_unit_test(test_empty_cases),  cmocka_unit_test(test_op_names),
        cmocka_unit_test(test_check),        cmocka_unit_test(test_check_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
