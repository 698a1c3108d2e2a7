/* test_reserve.c: unit tests of the room held for preemptors after their evictions
 * (controller/reserve.h): which evictions hold room on which node, until when, and what became
 * of each eviction's room; and that a preemption round does not plan a second preemptor into it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>

#include "ctl_test_util.h"
#include "preempt.h"
#include "reserve.h"

static void add(ctl_ledger *l, double at, const char *victim, const char *node,
                const char *preemptor, const char *result)
{
    ctl_ledger_entry e;
    memset(&e, 0, sizeof e);
    e.at = at;
    snprintf(e.victim_ns, sizeof e.victim_ns, "batch");
    snprintf(e.victim_name, sizeof e.victim_name, "%s", victim);
    snprintf(e.victim_uid, sizeof e.victim_uid, "%s", victim);
    snprintf(e.node, sizeof e.node, "%s", node);
    snprintf(e.preemptor_ns, sizeof e.preemptor_ns, "batch");
    snprintf(e.preemptor_name, sizeof e.preemptor_name, "%s", preemptor);
    snprintf(e.preemptor_uid, sizeof e.preemptor_uid, "%s", preemptor);
    snprintf(e.reason, sizeof e.reason, "urgent");
    snprintf(e.result, sizeof e.result, "%s", result);
    assert_int_equal(ctl_ledger_add(l, &e, NULL), 0);
}

static ctl_room_fate fate_of(const ctl_reserve_out *r, const ctl_ledger *l, const char *victim)
{
    for (size_t i = 0; i < r->n_fate; i++)
        if (strcmp(l->e[r->fate[i].entry].victim_uid, victim) == 0)
            return r->fate[i].fate;
    return CTL_ROOM_FATES;
}

static void test_fates_and_reservations(void **state)
{
    (void)state;
    ctl_node nodes[2] = {t_node("n1", MILLI(4)), t_node("n2", MILLI(4))};
    ctl_pod pods[4];
    pods[0] = t_waiting("batch", "waits", 1, 0, 1.0, 5, MILLI(2)); /* pending */
    pods[1] = t_waiting("batch", "late", 1, 1, 1.0, 5, MILLI(2));  /* pending, hold over */
    pods[2] = t_running("batch", "here", "n1", 1, 2, 1.0, MILLI(1));
    pods[3] = t_running("batch", "there", "n2", 1, 3, 1.0, MILLI(1));
    ctl_ledger l;
    ctl_ledger_init(&l);
    add(&l, NOW - 400, "v-late", "n1", "late", CTL_LEDGER_EVICTED);
    add(&l, NOW - 200, "v-waits-old", "n2", "waits", CTL_LEDGER_EVICTED);
    add(&l, NOW - 100, "v-here", "n1", "here", CTL_LEDGER_EVICTED);
    add(&l, NOW - 90, "v-there", "n1", "there", CTL_LEDGER_EVICTED);
    add(&l, NOW - 80, "v-gone", "n1", "gone", CTL_LEDGER_EVICTED);
    add(&l, NOW - 70, "v-refused", "n1", "waits", CTL_LEDGER_REFUSED);
    add(&l, NOW - 30, "v-waits", "n1", "waits", CTL_LEDGER_EVICTED);
    ctl_reserve_out r;
    ds_err err = {{0}};
    assert_int_equal(ctl_reserve_plan(&l, pods, 4, nodes, 2, NOW, 300, &r, &err), 0);
    assert_int_equal(r.n_fate, 6); /* the refused one freed nothing */
    assert_int_equal(fate_of(&r, &l, "v-late"), CTL_ROOM_LOST);
    assert_int_equal(fate_of(&r, &l, "v-here"), CTL_ROOM_REACHED);
    assert_int_equal(fate_of(&r, &l, "v-there"), CTL_ROOM_ELSEWHERE);
    assert_int_equal(fate_of(&r, &l, "v-gone"), CTL_ROOM_LOST);
    assert_int_equal(fate_of(&r, &l, "v-waits"), CTL_ROOM_RESERVED);
    assert_int_equal(fate_of(&r, &l, "v-waits-old"), CTL_ROOM_RESERVED);
    /* One reservation for the waiting preemptor, on the node of its latest eviction. */
    assert_int_equal(r.n_res, 1);
    assert_int_equal(r.res[0].node, 0);
    assert_int_equal(r.res[0].preemptor, 0);
    assert_true(r.res[0].until == NOW - 30 + 300);
    ds_res room[2];
    ctl_reserved_room(&r, 2, room);
    assert_int_equal(room[0].v[DS_RES_CPU], MILLI(2));
    assert_int_equal(room[1].v[DS_RES_CPU], 0);
    ctl_reserve_out_free(&r);
    /* Once it binds, the room is no longer held: it reached it. */
    pods[0].state = CTL_POD_BOUND;
    pods[0].node = "n1";
    assert_int_equal(ctl_reserve_plan(&l, pods, 4, nodes, 2, NOW, 300, &r, &err), 0);
    assert_int_equal(r.n_res, 0);
    assert_int_equal(fate_of(&r, &l, "v-waits"), CTL_ROOM_REACHED);
    assert_int_equal(fate_of(&r, &l, "v-waits-old"), CTL_ROOM_ELSEWHERE);
    ctl_reserve_out_free(&r);
    assert_string_equal(ctl_room_fate_name(CTL_ROOM_ELSEWHERE), "elsewhere");
    ctl_ledger_free(&l);
}

/* A round does not plan a second preemptor into room held for the first: node n2 has 2 cpu free,
 * all of it held for an earlier preemptor, so the urgent task evicts on n1 instead of taking it,
 * and without the hold it would just fit (no eviction). */
static void test_round_respects_reservations(void **state)
{
    (void)state;
    ds_dag low, urg;
    assert_int_equal(t_flat_dag(&low, 3), 0);
    assert_int_equal(t_flat_dag(&urg, 1), 0);
    const ds_dag *dags[2] = {&low, &urg};
    ctl_node nodes[2] = {t_node("n1", MILLI(4)), t_node("n2", MILLI(4))};
    ctl_pod pods[4];
    pods[0] = t_running("batch", "r0", "n1", 0, 0, 0.5, MILLI(2));
    pods[1] = t_running("batch", "r1", "n1", 0, 1, 0.3, MILLI(2));
    pods[2] = t_running("batch", "r2", "n2", 0, 2, 0.4, MILLI(2));
    pods[3] = t_waiting("batch", "w", 1, 0, 0.2, 5.0, MILLI(2));
    ds_policy pol;
    ds_policy_defaults(&pol);
    ctl_ledger l;
    ctl_ledger_init(&l);
    ctl_preempt_in in = {.pods = pods,
                         .n_pods = 4,
                         .nodes = nodes,
                         .n_nodes = 2,
                         .dags = dags,
                         .n_jobs = 2,
                         .policy = &pol,
                         .ledger = &l,
                         .now = NOW};
    ctl_preempt_out out;
    assert_int_equal(ctl_preempt_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_ev, 0); /* n2's free room is enough */
    ctl_preempt_out_free(&out);
    ds_res held[2] = {{{0}}, {{MILLI(2), 0, 0, 0}}};
    in.reserved = held;
    assert_int_equal(ctl_preempt_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, 1);
    assert_int_equal(out.ev[0].node, 0);
    ctl_preempt_out_free(&out);
    ctl_ledger_free(&l);
    ds_dag_free(&low);
    ds_dag_free(&urg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fates_and_reservations),
        cmocka_unit_test(test_round_respects_reservations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
