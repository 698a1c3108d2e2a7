/* test_room_hold.c: room held for a preemptor (lib/room_hold.h): the annotation's format, and
 * whom a hold keeps off the room (the holder's namespace, trusted namespaces, within the
 * cooldown). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "room_hold.h"

#define NOW 1795000000.0

static void test_parse_format(void **state)
{
    (void)state;
    char v[320], node[256];
    double until = 0;
    ds_err err = {{0}};
    ds_room_hold_format("ctl-node-1", NOW + 300.7, v, sizeof v);
    assert_string_equal(v, "ctl-node-1 2026-11-18T11:11:40Z");
    assert_int_equal(ds_room_hold_parse(v, node, sizeof node, &until, &err), 0);
    assert_string_equal(node, "ctl-node-1");
    assert_true(fabs(until - (NOW + 300)) < 1e-9);
    const char *bad[] = {"", "ctl-node-1", " 2026-11-18T11:11:40Z", "n1 yesterday", "n1  x", NULL};
    for (int i = 0; bad[i] != NULL; i++)
        assert_int_equal(ds_room_hold_parse(bad[i], node, sizeof node, &until, &err), -1);
    assert_int_equal(ds_room_hold_parse(NULL, node, sizeof node, &until, &err), -1);
    char longname[400];
    memset(longname, 'a', 300);
    strcpy(longname + 300, " 2026-11-18T11:11:40Z");
    assert_int_equal(ds_room_hold_parse(longname, node, sizeof node, &until, &err), -1);
    char tiny[4];
    assert_int_equal(ds_room_hold_parse(v, tiny, sizeof tiny, &until, &err), -1);
}

static void test_applies(void **state)
{
    (void)state;
    ds_policy p;
    ds_policy_defaults(&p); /* cooldown 5 min, no trusted namespace */
    ds_room_hold h = {.ns = "prod", .uid = "u-pre", .name = "pre", .node = 0, .until = NOW + 60};
    assert_true(ds_room_hold_applies(&p, &h, "prod", "u-other", NULL, NOW));
    assert_false(ds_room_hold_applies(&p, &h, "prod", "u-pre", NULL, NOW)); /* the holder itself */
    assert_false(ds_room_hold_applies(&p, &h, "batch", "u-b", NULL, NOW));  /* another tenant */
    p.cross_ns_trusted.n = 1;
    snprintf(p.cross_ns_trusted.name[0], sizeof p.cross_ns_trusted.name[0], "prod");
    assert_true(
        ds_room_hold_applies(&p, &h, "batch", "u-b", NULL, NOW)); /* trusted: may evict there */
    /* Ended, or further ahead than the cooldown (a hostile annotation): no hold. */
    assert_false(ds_room_hold_applies(&p, &h, "prod", "u-other", NULL, NOW + 60));
    h.until = NOW + p.cooldown_s;
    assert_true(ds_room_hold_applies(&p, &h, "prod", "u-other", NULL, NOW));
    h.until = NOW + p.cooldown_s + 5;
    assert_false(ds_room_hold_applies(&p, &h, "prod", "u-other", NULL, NOW));
    h.until = NAN;
    assert_false(ds_room_hold_applies(&p, &h, "prod", "u-other", NULL, NOW));
    h.until = INFINITY;
    assert_false(ds_room_hold_applies(&p, &h, "prod", "u-other", NULL, NOW));
    h.until = NOW + 10;
    assert_false(ds_room_hold_applies(&p, &h, NULL, "u-other", NULL, NOW));
    assert_false(ds_room_hold_applies(NULL, &h, "prod", "u-other", NULL, NOW));
    assert_false(ds_room_hold_applies(&p, NULL, "prod", "u-other", NULL, NOW));
    /* An upcoming task's hold (no uid): every pod of the namespace but those of its own job. */
    ds_room_hold up = {.ns = "prod", .job = "prod/urgent-x", .name = "compute", .until = NOW + 10};
    assert_true(ds_room_hold_applies(&p, &up, "prod", "u-b", "prod/batch", NOW));
    assert_true(ds_room_hold_applies(&p, &up, "prod", "u-b", NULL, NOW)); /* outside any job */
    assert_false(ds_room_hold_applies(&p, &up, "prod", "u-c", "prod/urgent-x", NOW));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_format),
        cmocka_unit_test(test_applies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
