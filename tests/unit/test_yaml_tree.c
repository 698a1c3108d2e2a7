/* test_yaml_tree.c: unit tests of the bounded YAML loader: tree shape and positions, plain and
 * quoted scalars, null detection, lookups, every limit and refusal with its message, and freeing of
 * partly built trees (leaks are errors under the sanitizer run). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "yaml_tree.h"

static const ds_yaml_limits limits = {
    .max_bytes = 4096, .max_depth = 4, .max_nodes = 32, .max_scalar = 16};

static ds_yaml_node *load_ok(const char *yaml)
{
    ds_yaml_node *root = NULL;
    ds_err err = {{0}};
    if (ds_yaml_load(yaml, strlen(yaml), &limits, &root, &err) != 0)
        fail_msg("unexpected error: %s", err.msg);
    assert_non_null(root);
    return root;
}

static void expect_error(const char *yaml, const char *msg)
{
    ds_yaml_node *root = (ds_yaml_node *)&limits; /* a sentinel that must not change */
    ds_err err = {{0}};
    assert_int_equal(ds_yaml_load(yaml, strlen(yaml), &limits, &root, &err), -1);
    assert_string_equal(err.msg, msg);
    assert_ptr_equal(root, &limits);
}

static void test_tree_shape(void **state)
{
    (void)state;
    ds_yaml_node *root = load_ok("# comment\n"
                                 "name: demo\n"
                                 "list:\n"
                                 "  - 'one'\n"
                                 "  - \"two\"\n"
                                 "  - {k: v}\n"
                                 "empty:\n"
                                 "block: |\n"
                                 "  text\n");
    assert_int_equal(root->kind, DS_YAML_MAPPING);
    assert_int_equal(root->n, 4);
    assert_int_equal(root->line, 2);
    assert_int_equal(root->column, 1);

    const ds_yaml_node *name = ds_yaml_get(root, "name");
    assert_non_null(name);
    assert_int_equal(name->kind, DS_YAML_SCALAR);
    assert_string_equal(name->text, "demo");
    assert_int_equal(name->len, 4);
    assert_true(name->plain);
    assert_int_equal(name->line, 2);
    assert_int_equal(name->column, 7);

    const ds_yaml_node *list = ds_yaml_get(root, "list");
    assert_non_null(list);
    assert_int_equal(list->kind, DS_YAML_SEQUENCE);
    assert_int_equal(list->n, 3);
    assert_string_equal(list->child[0]->text, "one");
    assert_false(list->child[0]->plain);
    assert_string_equal(list->child[1]->text, "two");
    assert_false(list->child[1]->plain);
    assert_int_equal(list->child[2]->kind, DS_YAML_MAPPING);
    assert_int_equal(list->child[2]->line, 6);
    assert_int_equal(list->child[2]->column, 5);
    assert_string_equal(ds_yaml_get(list->child[2], "k")->text, "v");

    const ds_yaml_node *empty = ds_yaml_get(root, "empty");
    assert_non_null(empty);
    assert_true(ds_yaml_is_null(empty));
    assert_string_equal(empty->text, "");

    const ds_yaml_node *block = ds_yaml_get(root, "block");
    assert_string_equal(block->text, "text\n");
    assert_false(block->plain);
    assert_false(ds_yaml_is_null(block));

    assert_null(ds_yaml_get(root, "missing"));
    assert_null(ds_yaml_get(list, "list")); /* not a mapping */
    assert_null(ds_yaml_get(NULL, "x"));
    ds_yaml_free(root);
    ds_yaml_free(NULL);
}

static void test_null_forms(void **state)
{
    (void)state;
    ds_yaml_node *root = load_ok("[~, null, Null, NULL, '', \"null\", nil, '~']");
    assert_int_equal(root->n, 8);
    for (size_t i = 0; i < 4; i++)
        assert_true(ds_yaml_is_null(root->child[i]));
    for (size_t i = 4; i < 8; i++)
        assert_false(ds_yaml_is_null(root->child[i])); /* quoted, or not a null word */
    assert_false(ds_yaml_is_null(root));
    assert_false(ds_yaml_is_null(NULL));
    ds_yaml_free(root);
}

static void test_duplicate_keys_are_kept(void **state)
{
    (void)state;
    /* The tree keeps both pairs; the caller decides (the policy parser refuses them). */
    ds_yaml_node *root = load_ok("a: 1\na: 2\n");
    assert_int_equal(root->n, 2);
    assert_string_equal(ds_yaml_get(root, "a")->text, "1");
    ds_yaml_free(root);
}

static void test_limits(void **state)
{
    (void)state;
    /* Depth: 4 nested collections load, 5 do not. */
    ds_yaml_free(load_ok("[[[[1]]]]"));
    expect_error("[[[[[1]]]]]", "line 1, column 5: nesting deeper than 4 levels");
    expect_error("a: {b: {c: {d: {e: 1}}}}", "line 1, column 16: nesting deeper than 4 levels");
    /* Nodes: a 31-item list is 32 nodes, one more is refused at the item that exceeds. */
    char buf[256];
    size_t pos = (size_t)snprintf(buf, sizeof buf, "[");
    for (int i = 0; i < 31; i++)
        pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%s%d", i ? "," : "", i % 10);
    snprintf(buf + pos, sizeof buf - pos, "]");
    ds_yaml_free(load_ok(buf));
    buf[pos] = '\0';
    snprintf(buf + pos, sizeof buf - pos, ",7]");
    expect_error(buf, "line 1, column 64: more than 32 YAML nodes");
    /* Scalar length. */
    ds_yaml_free(load_ok("k: 0123456789abcdef"));
    expect_error("k: 0123456789abcdefg", "line 1, column 4: scalar longer than 16 bytes (got 17)");
    /* Size, checked before parsing. */
    static char big[4098];
    memset(big, '#', sizeof big - 1);
    ds_yaml_node *root = NULL;
    ds_err err = {{0}};
    assert_int_equal(ds_yaml_load(big, 4097, &limits, &root, &err), -1);
    assert_string_equal(err.msg, "YAML document: must be at most 4096 bytes (got 4097)");
    assert_null(root);
    assert_int_equal(ds_yaml_load(big, 4096, &limits, &root, &err), -1);
    assert_string_equal(err.msg, "YAML document: empty");
}

static void test_refusals(void **state)
{
    (void)state;
    expect_error("", "YAML document: empty");
    expect_error("a: &x 1\n", "line 1, column 4: YAML anchors are not supported (got &x)");
    expect_error("a: *x\n", "line 1, column 4: YAML aliases are not supported (got *x)");
    expect_error("- !!int 1\n", "line 1, column 3: YAML tags are not supported (got "
                                "tag:yaml.org,2002:int)");
    expect_error("? {a: 1}\n: b\n", "line 1, column 3: mapping keys must be scalars");
    expect_error("a\n---\nb\n", "line 2, column 1: only one YAML document is allowed");
    expect_error("a: \"\\0\"\n", "line 1, column 4: NUL characters are not allowed in scalars");
    expect_error("a: [1, 2\n", "line 2, column 1: invalid YAML: did not find expected ',' or ']' "
                               "(while parsing a flow sequence at line 1, column 4)");
    expect_error("a: 1\n b: 2\n",
                 "line 2, column 3: invalid YAML: mapping values are not allowed in this context");
    /* Errors deep inside partly built trees: everything built so far is freed. */
    expect_error("a: {b: [1, 2, *x]}\n",
                 "line 1, column 15: YAML aliases are not supported (got *x)");
    expect_error("a: 1\nb: *x\n", "line 2, column 4: YAML aliases are not supported (got *x)");
    expect_error("a:\n  - b\n  - c: [d, e\n",
                 "line 4, column 1: invalid YAML: did not find expected ',' or ']' (while parsing "
                 "a flow sequence at line 3, column 8)");
}

static void test_bad_arguments(void **state)
{
    (void)state;
    ds_yaml_node *root = NULL;
    ds_err err = {{0}};
    assert_int_equal(ds_yaml_load(NULL, 1, &limits, &root, &err), -1);
    assert_string_equal(err.msg, "YAML: invalid arguments");
    assert_int_equal(ds_yaml_load("a", 1, NULL, &root, &err), -1);
    assert_int_equal(ds_yaml_load("a", 1, &limits, NULL, &err), -1);
    assert_int_equal(ds_yaml_load(NULL, 0, &limits, &root, &err), -1);
    assert_string_equal(err.msg, "YAML document: empty");
    /* err may be NULL. */
    assert_int_equal(ds_yaml_load("[", 1, &limits, &root, NULL), -1);
    assert_null(root);
    /* len bounds the input: no NUL terminator needed. */
    char buf[] = {'a', ':', ' ', '1', 'X', 'Y'};
    assert_int_equal(ds_yaml_load(buf, 4, &limits, &root, &err), 0);
    assert_string_equal(ds_yaml_get(root, "a")->text, "1");
    ds_yaml_free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_shape),
        cmocka_unit_test(test_null_forms),
        cmocka_unit_test(test_duplicate_keys_are_kept),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests_name("yaml_tree", tests, NULL, NULL);
}
